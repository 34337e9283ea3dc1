-- upper_wave.lua - a right-arm wave over locomotion (SPEC §12.1): the
-- "upper" layer overrides only the joints of the mask "right_arm" (the
-- right clavicle and everything below it), so the legs, the spine and the
-- left arm keep walking while the right arm waves. Clips:
-- scripts/humanoid.lua.
-- The game fires `wave` and fades the layer in with it (the timeline's
-- layer_weight entries stand for that code) and out again at the wave's
-- `lower` marker; a second `wave` while waving restarts it (to_self).
-- Mask entries: a joint name and a weight, propagated to descendants that
-- have no entry of their own; the shoulder gets only a little of the wave
-- (0.5, its own entry, not propagated) so the arm rises from a live chest.
return {
  params = { speed = 0, wave = "trigger" },
  masks = {
    right_arm = { { "clavicle_r", 0.5, descendants = false },
                  { "upperarm_r", 1 } },
  },
  layers = {
    { name = "base", entry = "idle",
      states = {
        idle = { clip = "idle" },
        walk = { clip = "walk_fwd" },
      },
      transitions = {
        { from = "idle", to = "walk", when = { "speed > 0.1" }, duration = 0.25 },
        { from = "walk", to = "idle", when = { "speed <= 0.1" }, duration = 0.3 },
      },
    },
    { name = "upper", entry = "wave", mask = "right_arm", mode = "override",
      states = {
        wave = { clip = "wave", loop = false },
      },
      transitions = {
        { from = "*", to = "wave", when = { "wave" }, to_self = true, duration = 0.15 },
      },
    },
  },
}
