return { dt = 1e300, frames = 10, { at = 0, fire = { "jump", "wave" }, travel = "jump_air" } }
