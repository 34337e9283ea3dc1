-- upper_wave.timeline.lua - drives graphs/upper_wave.lua for 7 s:
--   0.0  the upper layer silent (weight 0 at once)
--   0.5  walk forward                     base: idle -> walk
--   1.0  wave, layer fades in over 0.2 s  upper: * -> wave (to_self), the arm rises
--   3.0  layer fades out over 0.4 s       (the wave's `lower` marker is at 2.95)
--   4.0  wave again, fade in              the wave restarts from its start
--   4.5  stop walking                     base: walk -> idle; the wave goes on
--   6.4  wave ends (held), fade out
return {
  dt = 1 / 60,
  duration = 7.0,
  { at = 0.0, layer_weight = { upper = 0 }, fade = 0 },
  { at = 0.5, set = { speed = 1.5 } },
  { at = 1.0, fire = "wave" },
  { at = 1.0, layer_weight = { upper = 1 }, fade = 0.2 },
  { at = 3.0, layer_weight = { upper = 0 }, fade = 0.4 },
  { at = 4.0, fire = "wave" },
  { at = 4.0, layer_weight = { upper = 1 }, fade = 0.2 },
  { at = 4.5, set = { speed = 0 } },
  { at = 6.4, layer_weight = { upper = 0 }, fade = 0.4 },
}
