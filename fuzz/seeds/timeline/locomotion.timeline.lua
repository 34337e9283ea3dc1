-- locomotion.timeline.lua - drives graphs/locomotion.lua for 6.5 s:
--   0.0  idle
--   0.5  walk forward at 1.5 m/s           idle -> walk (0.25 s fade)
--   1.5  walk diagonally forward-left       walk_fwd and walk_left blend
--   2.5  run forward at 4 m/s               walk -> run, feet synced
--   3.5  run to the right (strafe)          run_right
--   4.5  walk backwards at 1.5 m/s          run -> walk, walk_back
--   5.5  stop                               walk -> idle (0.3 s fade)
-- With --json the foot_l / foot_r marker events show the contacts.
return {
  dt = 1 / 60,
  duration = 6.5,
  { at = 0.5, set = { speed = 1.5, vx = 0, vz = 1.5 } },
  { at = 1.5, set = { speed = 1.5, vx = 1.06, vz = 1.06 } },
  { at = 2.5, set = { speed = 4, vx = 0, vz = 4 } },
  { at = 3.5, set = { speed = 4, vx = -4, vz = 0 } },
  { at = 4.5, set = { speed = 1.5, vx = 0, vz = -1.5 } },
  { at = 5.5, set = { speed = 0, vx = 0, vz = 0 } },
}
