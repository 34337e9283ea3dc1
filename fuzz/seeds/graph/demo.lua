-- demo.lua - the demo's graph (blendwerk-demo's default, docs/demo.md): one
-- character combining what the other examples show, on the built-in
-- humanoid (scripts/humanoid.lua).
--   base    2D locomotion on vx, vz (the character's frame, m/s: +vz
--           forward, +vx its left) with the feet in sync, as locomotion.lua;
--           a jump from any state on the `jump` trigger (freeze start, air,
--           land), as jump.lua, but the air lasts one cycle of jump_air (the
--           demo has no ground contact to report);
--   upper   the right arm's wave, masked, over everything, as
--           upper_wave.lua; the host keeps it silent (weight 0) until a
--           wave: the demo does so at start and fades it in on its wave
--           key, the timeline with layer_weight;
--   breath  the additive breathing, its weight following `breath`, as
--           breathing.lua.
-- The demo sets speed = |(vx, vz)| from its input every frame.
return {
  params = {
    speed = 0, vx = 0, vz = 0, breath = 1,
    jump = { trigger = true, expires = 0.2 },
    wave = "trigger",
  },
  masks = {
    right_arm = { { "clavicle_r", 0.5, descendants = false },
                  { "upperarm_r", 1 } },
  },
  layers = {
    { name = "base", entry = "idle",
      states = {
        idle = { clip = "idle" },
        walk = { sync = "feet",
                 blend = { kind = "directional", params = { "vx", "vz" }, children = {
                   { at = { 0, 0 },    clip = "idle" },
                   { at = { 0, 1.5 },  clip = "walk_fwd" },
                   { at = { 0, -1.5 }, clip = "walk_back" },
                   { at = { 1.5, 0 },  clip = "walk_left" },
                   { at = { -1.5, 0 }, clip = "walk_right" } } } },
        run  = { sync = "feet",
                 blend = { kind = "directional", params = { "vx", "vz" }, children = {
                   { at = { 0, 4 },  clip = "run_fwd" },
                   { at = { 0, -4 }, clip = "run_back" },
                   { at = { 4, 0 },  clip = "run_left" },
                   { at = { -4, 0 }, clip = "run_right" } } } },
        jump_start = { clip = "jump_start", loop = false },
        jump_air   = { clip = "jump_air" },
        jump_land  = { clip = "jump_land", loop = false },
      },
      transitions = {
        { from = "*",          to = "jump_start", when = { "jump" }, duration = 0.1, mode = "freeze" },
        { from = "jump_start", to = "jump_air",   exit_time = 1, duration = 0.15 },
        { from = "jump_air",   to = "jump_land",  exit_time = 1, duration = 0.08 },
        { from = "jump_land",  to = "walk",       exit_time = 0.9, when = { "speed > 0.1" }, duration = 0.25 },
        { from = "jump_land",  to = "idle",       exit_time = 0.9, duration = 0.25, curve = "sine" },
        { from = "idle", to = "walk", when = { "speed > 0.1" },   duration = 0.25 },
        { from = "walk", to = "idle", when = { "speed <= 0.1" },  duration = 0.3 },
        { from = "walk", to = "run",  when = { "speed > 2.75" },  duration = 0.3, curve = "sine" },
        { from = "run",  to = "walk", when = { "speed <= 2.75" }, duration = 0.35, curve = "sine" },
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
    { name = "breath", entry = "breathe", mode = "additive", weight = "breath",
      states = {
        breathe = { clip = "breathing" },
      },
    },
  },
}
