-- breathing.timeline.lua - drives graphs/breathing.lua for 8 s:
--   0.0  idle, breathing at weight 1 (a 4 s breath cycle)
--   1.0  walk, then run (speed 4)    base: idle -> walk -> run
--   4.0  stop                        base: run -> walk -> idle
--   4.0  out of breath               breath = 2 (twice the breath)
--   6.5  calm again                  breath = 1
return {
  dt = 1 / 60,
  duration = 8.0,
  { at = 1.0, set = { speed = 4 } },
  { at = 4.0, set = { speed = 0, breath = 2 } },
  { at = 6.5, set = { breath = 1 } },
}
