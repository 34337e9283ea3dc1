-- locomotion.lua - idle, walk and run in every direction (SPEC §12.1).
-- Clips: scripts/humanoid.lua. Parameters the game sets each frame:
--   vx, vz  the character's planar velocity in its own frame, m/s
--           (+X is its left, +Z its front), as the blend spaces read it;
--   speed   |(vx, vz)|, which picks idle, walk or run.
-- The walk space has five samples (idle in the centre and the four walks
-- at 1.5 m/s), the run space the four runs at 4 m/s. Directional blending
-- (SPEC §6) blends by direction, so walking diagonally mixes walk_fwd and
-- walk_left, not walk_fwd and idle. Every leaf of a blend samples at the
-- state's one phase; walk and run share the sync group "feet", so a
-- walk <-> run crossfade keeps the feet together: the follower maps its
-- phase between the foot_l / foot_r markers of the leader (the walk cycle
-- is 1.0 s, the run 0.7 s; both mark foot_l at 0 and foot_r halfway).
return {
  params = { speed = 0, vx = 0, vz = 0 },
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
      },
      transitions = {
        { from = "idle", to = "walk", when = { "speed > 0.1" },   duration = 0.25 },
        { from = "walk", to = "idle", when = { "speed <= 0.1" },  duration = 0.3 },
        { from = "walk", to = "run",  when = { "speed > 2.75" },  duration = 0.3, curve = "sine" },
        { from = "run",  to = "walk", when = { "speed <= 2.75" }, duration = 0.35, curve = "sine" },
      },
    },
  },
}
