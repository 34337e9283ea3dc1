return {
  layers = { { name = "b", entry = "x",
    states = { x = { blend = { kind = "1d", param = "p", children = { { at = 0, clip = "idle" }, { at = 1, clip = "run_fwd" } } } } } } },
  params = { p = 0 },
}
