-- test_blendspace.lua - the Lua blend-space weight functions
-- (blend1d_weights, blend2d_weights, grid_weights) against hand-computed
-- weights and rates (the derivations are in tests/test_blendspace.c; each
-- case is summarized next to it), huge and NaN queries, and misuse naming
-- the argument.

local bw = rawget(_G, "blendwerk") or require("blendwerk")
-- the shared harness beside this file: test, check, eq, near, raises, fails, finish
local h = dofile((arg[0]:match("^(.*[/\\])") or "./") .. "harness.lua")
local test, check, eq, near, raises, finish = h.test, h.check, h.eq, h.near, h.raises, h.finish

-- every element of `got` within tol of `want`, and no extra elements
local function near_array(what, got, want, tol)
  tol = tol or 1e-5
  if type(got) ~= "table" then return check(false, what .. ": expected a table, got " .. tostring(got)) end
  eq(#got, #want, what .. ": count")
  for i = 1, #want do near(got[i], want[i], tol, string.format("%s [%d]", what, i)) end
end

-- 1D: members run (4), idle (0), walk (1.5). 2.75 is midway between walk
-- and run; 1 is 2/3 of the way from idle to walk; 6 clamps to run, which
-- plays at 6/4 = 1.5x.
test("1d weights interpolate between the neighbouring thresholds", function()
  local w, r = bw.blend1d_weights({ 4, 0, 1.5 }, 2.75)
  near_array("1d midway walk/run", w, { 0.5, 0, 0.5 })
  near_array("1d rates inside", r, { 1, 1, 1 })
  near_array("1d idle to walk", (bw.blend1d_weights({ 4, 0, 1.5 }, 1)), { 0, 1 / 3, 2 / 3 })
end)

test("1d beyond the last threshold clamps and scales the rate", function()
  local w, r = bw.blend1d_weights({ 4, 0, 1.5 }, 6)
  near_array("1d clamp high", w, { 1, 0, 0 })
  near_array("1d rate scaling", r, { 1.5, 1, 1 })
end)

test("1d duplicate thresholds share and NaN counts as 0", function()
  -- duplicates at 1 share: x = 0.5 gives 0.5 to threshold 0 and 0.25 each
  near_array("1d duplicates", (bw.blend1d_weights({ 0, 1, 1, 2 }, 0.5)), { 0.5, 0.25, 0.25, 0 })
  -- NaN counts as 0: idle alone
  near_array("1d NaN", (bw.blend1d_weights({ 4, 0, 1.5 }, 0 / 0)), { 0, 1, 0 })
end)

-- 2D cartesian, triangle A(0,0) B(2,0) C(0,2): centroid -> 1/2, 1/4, 1/4;
-- midpoint of BC -> 1/3 each; midpoint of AB -> 1/2, 1/2, 0.
local tri = { { 0, 0 }, { 2, 0 }, { 0, 2 } }
test("2d cartesian weights follow the gradient bands", function()
  near_array("2d centroid", bw.blend2d_weights(tri, 2 / 3, 2 / 3), { 0.5, 0.25, 0.25 })
  near_array("2d edge BC", bw.blend2d_weights(tri, 1, 1, "cartesian"), { 1 / 3, 1 / 3, 1 / 3 })
  near_array("2d edge AB, keyed points", bw.blend2d_weights({ { x = 0, y = 0 }, { x = 2, y = 0 }, { x = 0, y = 2 } }, 1, 0),
    { 0.5, 0.5, 0 })
  near_array("2d on a sample", bw.blend2d_weights(tri, 0, 2), { 0, 0, 1 })
  near_array("2d single sample", bw.blend2d_weights({ { 5, 5 } }, -1, 3), { 1 })
end)

-- 2D directional, idle (0,0), forward (0,1), right (1,0):
-- (0, 0.5) -> idle 1/2, forward 1/2, right 0;
-- 45 degrees at speed 1 -> raw idle r = pi^2/(64 + pi^2), forward = right = 1/2,
--   normalized by 1 + r.
local pts = { { 0, 0 }, { 0, 1 }, { 1, 0 } }
test("2d directional weights blend by speed and angle", function()
  near_array("directional half forward", bw.blend2d_weights(pts, 0, 0.5, "directional"), { 0.5, 0.5, 0 })
  local s = math.sqrt(0.5)
  local rr = math.pi ^ 2 / (64 + math.pi ^ 2)
  near_array("directional 45 degrees", bw.blend2d_weights(pts, s, s, "directional"),
    { rr / (1 + rr), 0.5 / (1 + rr), 0.5 / (1 + rr) })
  -- forward and right only, 30 degrees from forward: 2/3 and 1/3 (linear in angle)
  near_array("directional by angle", bw.blend2d_weights({ { 0, 1 }, { 1, 0 } }, 0.5, math.sqrt(3) / 2, "directional"),
    { 2 / 3, 1 / 3 })
end)

-- Grid x {0,1,2}, y {0,10} at (0.5, 2.5): x 1/2, 1/2; y 3/4, 1/4; row-major.
test("grid weights are bilinear and clamp at the edges", function()
  near_array("grid bilinear", bw.grid_weights({ 0, 1, 2 }, { 0, 10 }, 0.5, 2.5), { 0.375, 0.375, 0, 0.125, 0.125, 0 })
  near_array("grid clamped", bw.grid_weights({ 0, 1, 2 }, { 0, 10 }, 5, -3), { 0, 0, 1, 0, 0, 0 })
end)

-- Query numbers beyond float range clamp to +-FLT_MAX (3.4e38): "far past
-- the end", not inf (which the core reads as 0). 1e39 on idle 0 / walk 1.5
-- / run 4 is far above the run: the run alone, at its rate cap of 100
-- (x / 4 is far above it); -1e39 is below idle, whose threshold 0 keeps
-- rate 1. (A plain (float) cast gave inf here and so selected idle.)
test("huge queries select the far end instead of turning into inf", function()
  local w, r = bw.blend1d_weights({ 0, 1.5, 4 }, 1e39)
  near_array("1d huge x selects the far end", w, { 0, 0, 1 })
  near_array("1d huge x: rate capped", r, { 1, 1, 100 })
  w, r = bw.blend1d_weights({ 0, 1.5, 4 }, -1e39)
  near_array("1d huge negative x selects the near end", w, { 1, 0, 0 })
  near_array("1d huge negative x: rate 1 at threshold 0", r, { 1, 1, 1 })
  -- Triangle A(0,0) B(2,0) C(0,2) at (1e39, 0): for A, h_AB = 1 - p.B/4 < 0;
  -- for C, h_CB = 1 - (p - C).(B - C)/8 < 0; B's bands are all >= 1: B alone
  -- (the cast gave (0, 0): A alone).
  near_array("2d huge x", bw.blend2d_weights(tri, 1e39, 0), { 0, 1, 0 })
  -- Directional idle / forward / right at (0, 1e39): straight ahead, far
  -- beyond forward's speed: forward alone.
  near_array("directional huge y", bw.blend2d_weights(pts, 0, 1e39, "directional"), { 0, 1, 0 })
  -- Grid x {0,1,2}, y {0,10} at (1e39, -1e39): clamped to the corner (2, 0),
  -- member 3 (the cast gave (0, 0): member 1).
  near_array("grid huge", bw.grid_weights({ 0, 1, 2 }, { 0, 10 }, 1e39, -1e39), { 0, 0, 1, 0, 0, 0 })
end)

test("misuse raises an error naming the argument", function()
  raises(function() bw.blend1d_weights({ 1, "a" }, 1) end, "#1", "thresholds[2]")
  raises(function() bw.blend1d_weights(nil, 1) end, "#1", "thresholds")
  raises(function() bw.blend1d_weights({}, 1) end, "#1", "thresholds is empty")
  raises(function() bw.blend1d_weights({ 1, 2 }) end, "#2", "x must be a number")
  raises(function() bw.blend1d_weights({ 1, math.huge }, 1) end, "#1", "finite")
  raises(function() bw.blend2d_weights("nope", 1, 2) end, "#1", "points")
  raises(function() bw.blend2d_weights({ { 0, 0 }, { 1 } }, 1, 2) end, "#1", "points[2]")
  raises(function() bw.blend2d_weights({ { 0, 0 } }, 1) end, "#3", "y must be a number")
  raises(function() bw.blend2d_weights({ { 0, 0 } }, 1, 2, "polar") end, "#4", "mode")
  -- 65 points: over BW_BLEND_MAX_MEMBERS, the O(n^2) bound (it took 4096)
  local many = {}
  for i = 1, 65 do many[i] = { i, 0 } end
  raises(function() bw.blend2d_weights(many, 1, 0) end, "#1", "points has more than 64 entries")
  many[65] = nil
  near_array("64 points", bw.blend2d_weights(many, 64, 0), (function()
    local w = {}
    for i = 1, 64 do w[i] = i == 64 and 1 or 0 end
    return w
  end)())
  raises(function() bw.grid_weights({ 0, 1 }, {}, 0, 0) end, "#2", "y_values is empty")
  raises(function() bw.grid_weights({ 0, 1 }, { 0 }, "0", 0) end, "#3", "x must be a number")
end)

finish()
