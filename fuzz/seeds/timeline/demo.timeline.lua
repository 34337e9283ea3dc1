-- demo.timeline.lua - drives graphs/demo.lua for 8 s. `set` entries are
-- read by `blendwerk simulate` as by the demo; the character inputs
-- (velocity, turn, look_at, gesture; docs/demo.md "Timelines") are the
-- demo's: it turns them into vx, vz and speed every frame and moves the
-- character by its root motion. simulate ignores them, so it keeps the
-- set values.
--   0.0  walk forward, look to the front left  base: idle -> walk
--   1.0  turn left at 0.6 rad/s while walking
--   2.5  wave (the upper layer, faded in)      upper: * -> wave
--   3.0  run forward, breathe deeper           base: walk -> run
--   4.0  jump                                  base: * -> jump_start -> jump_air -> jump_land -> walk/run
--   5.0  walk, stop turning; nod (a gesture)
--   6.5  stop                                  base: walk -> idle
return {
  dt = 1 / 60,
  duration = 8.0,
  { at = 0.0, set = { vx = 0, vz = 1.5, speed = 1.5 }, velocity = { 0, 0, 1.5 }, look_at = { 2, 1.6, 4 } },
  { at = 0.0, layer_weight = { upper = 0 }, fade = 0 },
  { at = 1.0, turn = 0.6 },
  { at = 2.5, fire = "wave" },
  { at = 2.5, layer_weight = { upper = 1 }, fade = 0.2 },
  { at = 3.0, set = { vz = 4, speed = 4, breath = 1.5 }, velocity = { 0, 0, 4 } },
  { at = 4.0, fire = "jump" },
  { at = 4.9, layer_weight = { upper = 0 }, fade = 0.4 },
  { at = 5.0, set = { vz = 1.5, speed = 1.5 }, velocity = { 0, 0, 1.5 }, turn = 0, gesture = "nod" },
  { at = 6.5, set = { vz = 0, speed = 0, breath = 1 }, velocity = { 0, 0, 0 }, look_at = false },
}
