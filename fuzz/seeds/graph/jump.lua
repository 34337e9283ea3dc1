-- jump.lua - a jump in three parts (SPEC §12.1): jump_start (the crouch
-- up to the takeoff), air (jump_air, looping while airborne) and land
-- (jump_land). Clips: scripts/humanoid.lua.
-- The game fires `jump` on the button and keeps `grounded` up to date
-- (false from the takeoff marker until the feet touch down).
-- - The start freezes what was on screen (mode "freeze"): whatever the
--   character was doing, the crouch fades in from that still pose.
-- - `jump` expires after 0.2 s: a press in the air does not wait to fire
--   a second jump on landing.
-- - air -> land runs on `grounded` alone and interrupts whatever fade is
--   in flight: a short hop that lands while start -> air is still fading
--   goes straight to land, from a snapshot of the blended pose on screen
--   (SPEC §7, interruptions), so the chain never jumps.
return {
  params = {
    jump = { trigger = true, expires = 0.2 },
    grounded = true,
  },
  layers = {
    { name = "base", entry = "idle",
      states = {
        idle  = { clip = "idle" },
        start = { clip = "jump_start", loop = false },
        air   = { clip = "jump_air" },
        land  = { clip = "jump_land", loop = false },
      },
      transitions = {
        { from = "*",     to = "start", when = { "jump", "grounded" }, duration = 0.1, mode = "freeze" },
        { from = "start", to = "air",   exit_time = 1, duration = 0.2 },
        { from = "air",   to = "land",  when = { "grounded" }, duration = 0.08 },
        { from = "land",  to = "idle",  exit_time = 0.9, duration = 0.25, curve = "sine" },
      },
    },
  },
}
