-- travel.lua - states a game reaches by travel (SPEC §7, §12.2): a
-- request to reach a state finds the shortest route over the transitions
-- (breadth-first, in list order) and takes it edge by edge, each edge as
-- soon as its exit-time gate is open, its conditions ignored. Clips:
-- scripts/humanoid.lua.
-- Locomotion idle / walk / run runs on `speed`; greet (the wave) and
-- agree (the nod) hang off idle, on triggers a game may also fire
-- directly. From run, travel "greet" goes run -> walk -> idle -> greet on
-- three updates (no exit times on the way); from greet, travel "agree"
-- waits for greet's exit time (the end of the wave) and then goes
-- greet -> idle -> agree.
return {
  params = { speed = 0, greet = "trigger", agree = "trigger" },
  layers = {
    { name = "base", entry = "idle",
      states = {
        idle  = { clip = "idle" },
        walk  = { clip = "walk_fwd" },
        run   = { clip = "run_fwd" },
        greet = { clip = "wave", loop = false },
        agree = { clip = "nod", loop = false },
      },
      transitions = {
        { from = "idle",  to = "walk",  when = { "speed > 0.1" }, duration = 0.25 },
        { from = "walk",  to = "run",   when = { "speed > 2.75" }, duration = 0.3 },
        { from = "run",   to = "walk",  when = { "speed <= 2.75" }, duration = 0.35 },
        { from = "walk",  to = "idle",  when = { "speed <= 0.1" }, duration = 0.3 },
        { from = "idle",  to = "greet", when = { "greet" }, duration = 0.2 },
        { from = "greet", to = "idle",  exit_time = 1, duration = 0.3 },
        { from = "idle",  to = "agree", when = { "agree" }, duration = 0.2 },
        { from = "agree", to = "idle",  exit_time = 1, duration = 0.3 },
      },
    },
  },
}
