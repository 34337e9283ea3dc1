return { layers = { { name = "l", entry = "s", states = { s = { clip = "nope" } } } } }
