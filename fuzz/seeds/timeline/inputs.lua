return { dt = 1/120, duration = 0.5, { at = 0, velocity = { 0, 0, 1.5 }, look_at = { 1, 2, 3 }, gesture = "nod" }, { at = 0.2, look_at = false, travel = "wave", layer = "upper" } }
