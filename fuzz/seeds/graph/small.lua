return {
  params = { a = 0, t = "trigger" },
  layers = {
    { name = "base", entry = "idle",
      states = { idle = { clip = "idle" }, walk = { clip = "walk_fwd", speed = "a" } },
      transitions = {
        { from = "idle", to = "walk", when = { "a > 0.5" }, duration = 0.2 },
        { from = "*", to = "idle", when = { "t" }, duration = 0 },
        { from = "walk", to = "idle", when = { function(p) return p.a < 0 end } },
      } },
  },
}
