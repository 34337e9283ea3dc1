-- jump.timeline.lua - drives graphs/jump.lua for 4 s:
--   0.5  jump pressed              * -> start (freeze fade, 0.1 s)
--   0.8  takeoff: not grounded     start ends (0.3 s clip) -> air, a 0.2 s fade
--   0.9  grounded again (a hop)    air -> land interrupts the start -> air fade
--                                  (frozen source); land -> idle at 0.9 of land
--   2.0  jump pressed              * -> start
--   2.3  takeoff                   start -> air; air loops
--   2.6  jump pressed in the air   not grounded: nothing takes it; it expires at 2.8
--   3.2  grounded                  air -> land (no interruption), then idle
return {
  dt = 1 / 60,
  duration = 4.0,
  { at = 0.5, fire = "jump" },
  { at = 0.8, set = { grounded = false } },
  { at = 0.9, set = { grounded = true } },
  { at = 2.0, fire = "jump" },
  { at = 2.3, set = { grounded = false } },
  { at = 2.6, fire = "jump" },
  { at = 3.2, set = { grounded = true } },
}
