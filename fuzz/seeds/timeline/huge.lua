return { dt = 1/60, frames = 30, { at = 0, set = { speed = 1e300, vx = 1e39 } }, { at = 0.1, yaw = 1e300, turn = -1e300 }, { at = 0.2, layer_weight = { upper = 1e300 }, fade = 1e300 } }
