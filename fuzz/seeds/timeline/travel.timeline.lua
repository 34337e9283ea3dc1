-- travel.timeline.lua - drives graphs/travel.lua for 10 s:
--   0.2  speed 4                 idle -> walk, and walk -> run on the next
--                                update (an interruption of the first fade)
--   2.0  stop, travel "greet"    run -> walk -> idle -> greet, one edge per
--                                update, conditions ignored
--   3.0  travel "agree"          queued: greet -> idle waits for the end of
--                                the wave (exit time 1, at about 4.45), then
--                                idle -> agree; agree -> idle when the nod ends
--   6.2  fire "agree"            the ordinary way in: idle -> agree on the trigger
--   7.5  fire "greet"            idle -> greet; greet -> idle when the wave ends
return {
  dt = 1 / 60,
  duration = 10.0,
  { at = 0.2, set = { speed = 4 } },
  { at = 2.0, set = { speed = 0 } },
  { at = 2.0, travel = "greet", layer = "base" },
  { at = 3.0, travel = "agree" },
  { at = 6.2, fire = "agree" },
  { at = 7.5, fire = "greet" },
}
