-- locomotion_blend.lua - an example blend-space spec for `blendwerk plot-blend`.
--
--   blendwerk plot-blend examples/locomotion_blend.lua --out locomotion.svg
--
-- A directional (polar gradient band) locomotion space: the input is the
-- character's planar velocity in its own frame, x = sideways speed to the
-- character's left (+X is its left, as in graphs/README.md, docs/demo.md and
-- the humanoid's clips) and y = forward speed (+Z), in metres per second. An
-- idle sits at the origin; walks at 1.5 m/s and runs at 4 m/s (3 m/s
-- backwards, since nobody sprints in reverse) ring it in the four
-- directions. Directional mode blends neighbouring directions by angle
-- and the rings by speed.
--
-- Change mode to "cartesian" to compare with plain gradient bands: the
-- bands then follow straight distances, and a 45-degree walk at 1.5 m/s
-- takes about twice as much idle (0.23 against 0.12), i.e. shorter,
-- slower-looking steps.

local walk, run, run_back = 1.5, 4.0, 3.0

return {
  mode = "directional",
  samples = {
    { name = "idle",   x = 0,     y = 0 },
    { name = "walk_f", x = 0,     y = walk },
    { name = "walk_b", x = 0,     y = -walk },
    { name = "walk_l", x = walk,  y = 0 },
    { name = "walk_r", x = -walk, y = 0 },
    { name = "run_f",  x = 0,     y = run },
    { name = "run_b",  x = 0,     y = -run_back },
    { name = "run_l",  x = run,   y = 0 },
    { name = "run_r",  x = -run,  y = 0 },
  },
  -- the plotted part of the plane: {xmin, xmax, ymin, ymax}
  range = { -5, 5, -5, 5 },
}
