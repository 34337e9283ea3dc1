-- breathing.lua - an additive breathing layer over idle, walk and run
-- (SPEC §7, additive layers). Clips: scripts/humanoid.lua.
-- The breathing clip's pose at time 0 is the rest pose, which is what an
-- additive layer subtracts (its reference), so the layer adds only the
-- breath: the chest lifts and leans back, the clavicles rise. Its weight
-- follows the parameter `breath`: 1 is a calm breath; the game raises it
-- after running (an additive weight above 1 exaggerates the breath).
return {
  params = { speed = 0, breath = 1 },
  layers = {
    { name = "base", entry = "idle",
      states = {
        idle = { clip = "idle" },
        walk = { clip = "walk_fwd" },
        run  = { clip = "run_fwd" },
      },
      transitions = {
        { from = "idle", to = "walk", when = { "speed > 0.1" }, duration = 0.25 },
        { from = "walk", to = "run",  when = { "speed > 2.75" }, duration = 0.3 },
        { from = "run",  to = "walk", when = { "speed <= 2.75" }, duration = 0.35 },
        { from = "walk", to = "idle", when = { "speed <= 0.1" }, duration = 0.3 },
      },
    },
    { name = "breath", entry = "breathe", mode = "additive", weight = "breath",
      states = {
        breathe = { clip = "breathing" },
      },
    },
  },
}
