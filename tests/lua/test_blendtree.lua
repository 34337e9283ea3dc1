-- test_blendtree.lua - blend trees from Lua (blendwerk.blend_tree, SPEC §6):
-- weights multiplied along nested nodes, rates, cycle duration and the
-- synchronized phase, against numbers worked out by hand in the comments.
-- Ends with "N passed, N failed" and raises an error when anything failed.

local bw = rawget(_G, "blendwerk") or require("blendwerk")

local passed, failed = 0, 0

local function check(name, cond, detail)
  if cond then
    passed = passed + 1
  else
    failed = failed + 1
    print("FAIL " .. name .. (detail and (": " .. detail) or ""))
  end
end

local function near(name, got, want, tol)
  tol = tol or 1e-5
  check(name, type(got) == "number" and math.abs(got - want) <= tol,
    string.format("got %s, expected %.9g", tostring(got), want))
end

-- leaves: what evaluate returned; want: { {clip, weight, rate [, time]}, ... }
-- in depth-first order.
local function leaves_are(name, leaves, want, tol)
  tol = tol or 1e-5
  if type(leaves) ~= "table" or #leaves ~= #want then
    check(name, false, string.format("expected %d leaves, got %s", #want, type(leaves) == "table" and #leaves or tostring(leaves)))
    return
  end
  for i, w in ipairs(want) do
    local l = leaves[i]
    local ok = l.clip == w[1] and math.abs(l.weight - w[2]) <= tol and math.abs(l.rate - w[3]) <= tol
    if ok and w[4] then ok = type(l.time) == "number" and math.abs(l.time - w[4]) <= tol end
    if not ok then
      check(name, false, string.format("leaf %d = {%s, w %.9g, rate %.9g, time %s}, expected {%s, %.9g, %.9g, %s}",
        i, tostring(l.clip), l.weight, l.rate, tostring(l.time), tostring(w[1]), w[2], w[3], tostring(w[4])))
      return
    end
  end
  check(name, true)
end

local function raises(name, fn, ...)
  local needles = { ... }
  local ok, msg = pcall(fn)
  if ok then
    check(name, false, "no error raised")
    return
  end
  msg = tostring(msg)
  for _, n in ipairs(needles) do
    if not msg:find(n, 1, true) then
      check(name, false, "message '" .. msg .. "' lacks '" .. n .. "'")
      return
    end
  end
  check(name, true)
end

-- nil, message whose message contains every needle
local function refused(name, needles, tree, msg)
  if tree ~= nil then
    check(name, false, "built " .. tostring(tree))
    return
  end
  for _, n in ipairs(needles) do
    if type(msg) ~= "string" or not msg:find(n, 1, true) then
      check(name, false, "message '" .. tostring(msg) .. "' lacks '" .. n .. "'")
      return
    end
  end
  check(name, true)
end

-- ---- 1D: a 0.71 s walk and a 1.16 s run --------------------------------
-- Walk at 1.5 m/s, run at 4 m/s. speed 2.75 is midway: 1/2 each.
-- cycle = (0.5 * 0.71 + 0.5 * 1.16) / 1 = 0.935 s. After 0.4675 s the
-- progress is 0.4675 / 0.935 = 0.5: the walk samples at 0.5 * 0.71 = 0.355,
-- the run at 0.5 * 1.16 = 0.58. After another 0.4675 s both are back at 0.
local loco = assert(bw.blend_tree {
  kind = "1d", param = "speed", rate_scale = true,
  children = {
    { at = 1.5, clip = "walk", length = 0.71 },
    { at = 4, clip = "run", length = 1.16 },
  },
})
check("tostring", tostring(loco):find("blendwerk.BlendTree (3 nodes, 2 leaves, 1 params)", 1, true) ~= nil, tostring(loco))
check("metatable name", getmetatable(loco).__name == "blendwerk.BlendTree")
check("gc and close share one function", getmetatable(loco).__gc == getmetatable(loco).__close)
local leaves, cycle = loco:evaluate { speed = 2.75 }
leaves_are("walk/run 50/50", leaves, { { "walk", 0.5, 1 }, { "run", 0.5, 1 } })
near("walk/run cycle", cycle, 0.935)
check("leaf fields", leaves[1].length and math.abs(leaves[1].length - 0.71) < 1e-6 and leaves[1].leaf == 1
  and leaves[2].leaf == 2 and leaves[1].time == nil and leaves[1].from == nil and leaves[1].delta == nil)
local progress
progress, leaves, cycle = loco:step(0, 0.4675, { speed = 2.75 })
near("half a cycle: progress", progress, 0.5)
leaves_are("half a cycle: per-leaf times", leaves, { { "walk", 0.5, 1, 0.355 }, { "run", 0.5, 1, 0.58 } })
near("step reports the cycle", cycle, 0.935)
-- from / delta for root motion: both leaves start at 0 and advance by half
-- their length (0.4675 / 0.935 = 0.5 of a cycle): 0.355 and 0.58 s.
near("walk from", leaves[1].from, 0)
near("walk delta", leaves[1].delta, 0.355)
near("run from", leaves[2].from, 0)
near("run delta", leaves[2].delta, 0.58)
progress, leaves = loco:step(progress, 0.4675, { speed = 2.75 })
near("second half: walk from", leaves[1].from, 0.355)
near("second half: walk delta", leaves[1].delta, 0.355)
check("a whole cycle wraps to 0", progress < 1e-5 or progress > 1 - 1e-5, tostring(progress))
check("both leaves back at their start", (leaves[1].time < 1e-5 or leaves[1].time > 0.71 - 1e-5)
  and (leaves[2].time < 1e-5 or leaves[2].time > 1.16 - 1e-5))

-- A bad dt leaves the progress where it was; a bad progress counts as 0.
near("NaN dt keeps the progress", (loco:step(0.3, 0 / 0, { speed = 2.75 })), 0.3)
near("infinite dt keeps the progress", (loco:step(0.3, math.huge, { speed = 2.75 })), 0.3)
near("NaN progress counts as 0", (loco:step(0 / 0, 0.4675, { speed = 2.75 })), 0.5)
-- Negative dt runs backwards: 0.25 - 0.5 wraps to 0.75.
near("negative dt wraps backwards", (loco:step(0.25, -0.4675, { speed = 2.75 })), 0.75)

-- Values by index give the same as by name; the index is found once.
check("param index", loco:param_index("speed") == 1 and loco:param_index("nope") == nil)
local by_index = loco:evaluate { 2.75 }
leaves_are("values by index", by_index, { { "walk", 0.5, 1 }, { "run", 0.5, 1 } })
check("params list", #loco:params() == 1 and loco:params()[1] == "speed")
check("clips list", loco:clips()[1] == "walk" and loco:clips()[2] == "run" and loco:leaf_count() == 2
  and loco:node_count() == 3)

-- Rate scaling outside the range: 6 m/s plays the 4 m/s run at 6/4 = 1.5;
-- cycle = 1.16 / 1.5 = 0.773333.
leaves, cycle = loco:evaluate { speed = 6 }
leaves_are("rate scaling", leaves, { { "run", 1, 1.5 } })
near("rate-scaled cycle", cycle, 1.16 / 1.5)
-- NaN counts as 0: below the range, the walk alone; 0 m/s with rate
-- scaling holds the walk (rate 0), and a rate of 0 leaves no cycle.
leaves, cycle = loco:evaluate { speed = 0 / 0 }
leaves_are("NaN parameter counts as 0", leaves, { { "walk", 1, 0 } })
near("no moving leaf, no cycle", cycle, 0)
-- A huge value stays "far past the end" instead of turning into inf: the
-- rate is capped at 100 (BW_BLEND_MAX_RATE).
leaves = loco:evaluate { speed = 1e300 }
leaves_are("huge parameter", leaves, { { "run", 1, 100 } })

-- Reusing an output table: same table back, stale entries cleared.
local out = { {}, {}, {}, "stale" }
local same = loco:evaluate({ speed = 6 }, out)
check("out table reused", same == out and #out == 1 and out[1].clip == "run" and out[2] == nil and out[4] == nil)

-- ---- nested: a 1D node inside a 2D cartesian node ------------------------
-- 2D members A (0,0) idle, B (2,0) the 1D walk/run node, C (0,2) "wave".
-- At the centroid p = (2/3, 2/3), gradient bands:
--   A: h_AB = 1 - (p-A).(B-A)/|B-A|^2 = 1 - (4/3)/4 = 2/3, h_AC = 2/3  -> 2/3
--   B: h_BA = 1 - (-4/3, 2/3).(-2, 0)/4 = 1 - (8/3)/4 = 1/3,
--      h_BC = 1 - (-4/3, 2/3).(-2, 2)/8 = 1 - 4/8 = 1/2                 -> 1/3
--   C: by symmetry 1/3. Normalized: 1/2, 1/4, 1/4.
-- Inside B, speed 2.75 splits 1/2, 1/2, so walk = run = 1/4 * 1/2 = 1/8.
-- Rates: B has speed 2 and the run leaf speed 1.5: walk 2, run 3.
-- cycle = 0.5*2.0/1 + 0.125*0.71/2 + 0.125*1.16/3 + 0.25*1.0/1
--       = 1 + 0.044375 + 0.0483333 + 0.25 = 1.3427083
local nested = assert(bw.blend_tree({
  kind = "2d", params = { "x", "y" },
  children = {
    { at = { 0, 0 }, clip = "idle", length = 2 },
    { at = { x = 2, y = 0 }, kind = "1d", param = "speed", speed = 2,
      children = {
        { at = 1.5, clip = "walk", length = 0.71 },
        { at = 4, clip = "run", length = 1.16, speed = 1.5 },
      } },
    { at = { 0, 2 }, clip = "wave", length = 1 },
  },
}, { params = { "speed", "x", "y" } }))
leaves, cycle = nested:evaluate { x = 2 / 3, y = 2 / 3, speed = 2.75 }
leaves_are("nested weights multiply", leaves,
  { { "idle", 0.5, 1 }, { "walk", 0.125, 2 }, { "run", 0.125, 3 }, { "wave", 0.25, 1 } })
near("nested cycle", cycle, 1 + 0.71 / 16 + 1.16 / 24 + 0.25, 1e-5)
check("options fix the parameter order", nested:param_index("speed") == 1 and nested:param_index("y") == 3)
leaves = nested:evaluate { 2.75, 2 / 3, 2 / 3 }
leaves_are("nested by index", leaves,
  { { "idle", 0.5, 1 }, { "walk", 0.125, 2 }, { "run", 0.125, 3 }, { "wave", 0.25, 1 } })
-- On B exactly, the 1D node alone decides: speed 1 < 1.5 clamps to walk,
-- and rate scaling is off there, so walk plays at B's speed 2.
leaves = nested:evaluate { x = 2, y = 0, speed = 1 }
leaves_are("nested on a sample", leaves, { { "walk", 1, 2 } })

-- ---- directional: idle (0,0), forward (0,1), right (1,0) ----------------
-- p = (0, 0.5) (derivation in docs/blendspace.md and test_blendspace.c):
-- idle 1/2, forward 1/2, right 0 (right gets h_RF = 0: it lies 90 degrees
-- away, so the angle term cancels its whole band).
local dir = assert(bw.blend_tree {
  kind = "directional", params = { "vx", "vz" },
  children = {
    { at = { 0, 0 }, clip = "idle", length = 2 },
    { at = { 0, 1 }, clip = "fwd", length = 1 },
    { at = { 1, 0 }, clip = "right", length = 1 },
  },
})
leaves, cycle = dir:evaluate { vx = 0, vz = 0.5 }
leaves_are("directional", leaves, { { "idle", 0.5, 1 }, { "fwd", 0.5, 1 } })
near("directional cycle", cycle, 1.5)

-- ---- grid: x {-1, 1} x y {0, 2} at (0, 0.5) ----------------------------
-- x halves, y 3/4 (y = 0) and 1/4 (y = 2); row-major children:
-- (-1,0) 3/8, (1,0) 3/8, (-1,2) 1/8, (1,2) 1/8.
local grid = assert(bw.blend_tree {
  kind = "grid", params = { "yaw", "pitch" }, x_values = { -1, 1 }, y_values = { 0, 2 },
  children = {
    { clip = "ld", length = 1 }, { clip = "rd", length = 1 },
    { clip = "lu", length = 1 }, { clip = "ru", length = 1 },
  },
})
leaves = grid:evaluate { yaw = 0, pitch = 0.5 }
leaves_are("grid", leaves, { { "ld", 0.375, 1 }, { "rd", 0.375, 1 }, { "lu", 0.125, 1 }, { "ru", 0.125, 1 } })

-- ---- a Clip as a leaf: its length is the default ------------------------
local clip = assert(bw.clip { name = "c", length = 0.8, joints = { { joint = "a", keys = { { time = 0, t = { 0, 0, 0 } } } } } })
local single = assert(bw.blend_tree { clip = clip, speed = -2 })
leaves, cycle = single:evaluate()
check("clip leaf keeps the Clip", leaves[1].clip == clip)
near("clip leaf length", leaves[1].length, 0.8)
near("reverse leaf cycle uses |rate|", cycle, 0.4)
-- A reverse leaf samples at (1 - progress) * length: progress 0.25 -> 0.6.
-- It starts at (1 - 0) * 0.8 = 0.8 and moves back by 0.25 * 0.8 = 0.2 s.
progress, leaves = single:step(0, 0.1, nil)
near("reverse progress", progress, 0.25)
near("reverse leaf time", leaves[1].time, 0.6)
near("reverse leaf from", leaves[1].from, 0.8)
near("reverse leaf delta is negative", leaves[1].delta, -0.2)
-- Several cycles in one step count whole: 0.25 -> 0.25 + 2.5 cycles; the
-- delta is 2.5 x 0.8 = 2 s back, and from + delta lands on time (mod 0.8).
progress, leaves = single:step(0.25, 1.0, nil)
near("multi-cycle progress", progress, 0.75)
near("multi-cycle from", leaves[1].from, 0.6)
near("multi-cycle delta", leaves[1].delta, -2.0)
near("multi-cycle time", leaves[1].time, 0.2)
-- A step that changes nothing (NaN dt) reports a zero delta.
progress, leaves = single:step(0.25, 0 / 0, nil)
near("NaN dt: delta 0", leaves[1].delta, 0)
near("NaN dt: from", leaves[1].from, 0.6)
-- evaluate into a table a step filled clears the step's fields.
local reused = {}
single:step(0, 0.1, nil, reused)
single:evaluate(nil, reused)
check("evaluate clears time, from and delta", reused[1].time == nil and reused[1].from == nil and reused[1].delta == nil)

-- ---- end to end: a blend tree's step driving root motion ----------------
-- Two straight walks on the root: "slow" 1.5 m along +Z per 1 s loop
-- (1.5 m/s), "fast" 3.2 m per 0.8 s loop (4 m/s). At speed 2.75 (midway
-- between thresholds 1.5 and 4) each weighs 1/2, both at rate 1; cycle =
-- 0.5 x 1 + 0.5 x 0.8 = 0.9 s.
-- One step of 0.09 s advances the phase by 0.1: slow by 0.1 s (0.15 m),
-- fast by 0.08 s (0.32 m). One rank, shares 1/2 + 1/2 = 1: the travel is
-- their mean, (0.15 + 0.32) / 2 = 0.235 m.
-- 25 such steps are 2.5 cycles, crossing both loop points twice:
-- 2.5 x (0.5 x 1.5 + 0.5 x 3.2) = 5.875 m, never a jump back.
if bw.root_motion then
  local rig = assert(bw.rig { joints = { { name = "root" } } })
  local slow = assert(bw.clip { name = "slow", loop = true, joints = { { joint = "root", parent = "", keys = {
    { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 0, 0, 1.5 } } } } } })
  local fast = assert(bw.clip { name = "fast", loop = true, joints = { { joint = "root", parent = "", keys = {
    { time = 0, t = { 0, 0, 0 } }, { time = 0.8, t = { 0, 0, 3.2 } } } } } })
  local tree = assert(bw.blend_tree { kind = "1d", param = "speed", children = {
    { at = 1.5, clip = slow }, { at = 4, clip = fast } } })
  local rm = assert(bw.root_motion(rig))
  local plays, out = { {}, {} }, {}
  local function feed(ls)
    for i, leaf in ipairs(ls) do
      local p = plays[i]
      p.clip, p.from, p.delta, p.weight = leaf.clip, leaf.from, leaf.delta, leaf.weight
    end
    return rm:extract(plays, out)
  end
  local p, ls, c = tree:step(0, 0.09, { speed = 2.75 })
  near("tree cycle", c, 0.9)
  local d = feed(ls)
  near("one step of the tree: 0.235 m", d.z, 0.235)
  check("one step: straight, both leaves used", math.abs(d.x) < 1e-9 and math.abs(d.yaw) < 1e-9 and d.used == 2)
  local z, backwards = d.z, 0
  for _ = 2, 25 do
    p, ls = tree:step(p, 0.09, { speed = 2.75 }, ls)
    d = feed(ls)
    if d.z <= 0 then backwards = backwards + 1 end
    z = z + d.z
  end
  near("2.5 cycles of the tree: 5.875 m", z, 5.875, 1e-4)
  check("no step went backwards", backwards == 0)
  near("2.5 cycles end half way", p, 0.5, 1e-5)
end

-- ---- module-level phase helpers -----------------------------------------
near("phase_advance", bw.phase_advance(0.25, 0.4675, 0.935), 0.75)
near("phase_advance wraps backwards", bw.phase_advance(0.25, -0.4675, 0.935), 0.75)
near("phase_advance without a cycle", bw.phase_advance(0.3, 1, 0), 0.3)
near("phase_advance with an infinite cycle", bw.phase_advance(0.3, 1, math.huge), 0.3)
near("leaf_time of a zero-length leaf", bw.leaf_time(0.5, 0), 0)
near("leaf_time", bw.leaf_time(0.5, 1.16), 0.58)
near("leaf_time reverse", bw.leaf_time(0.25, 0.8, -1), 0.6)
near("cycle_duration", bw.cycle_duration { { weight = 0.5, length = 0.71 }, { weight = 0.5, length = 1.16, rate = 1 } }, 0.935)
near("cycle_duration skips still leaves", bw.cycle_duration { { weight = 1, length = 2, rate = 0 } }, 0)

-- ---- misuse raises, naming the argument ---------------------------------
raises("desc not a table", function() bw.blend_tree(42) end, "bad argument #1 to 'blend_tree'", "table expected")
raises("options unknown field", function() bw.blend_tree({ clip = 1, length = 1 }, { param = {} }) end,
  "bad argument #2 to 'blend_tree'", "unknown field 'param'")
raises("options repeated name", function() bw.blend_tree({ clip = 1, length = 1 }, { params = { "a", "a" } }) end,
  "#2", "params[2] 'a' repeats")
raises("values missing", function() loco:evaluate {} end, "bad argument #1 to 'evaluate'", "values.speed is missing")
raises("values wrong type", function() loco:evaluate { speed = "fast" } end, "#1", "values.speed must be a number (got string)")
raises("values not a table", function() loco:evaluate(2.75) end, "#1", "table of parameter values expected")
raises("step progress", function() loco:step("a", 0.1, { 1 }) end, "bad argument #1 to 'step'")
raises("bad self", function() loco.evaluate("tree", { 1 }) end, "blendwerk.BlendTree expected")
raises("cycle_duration entry", function() bw.cycle_duration { { weight = 1 } } end,
  "bad argument #1 to 'cycle_duration'", "leaves[1].length is missing")
do
  local t = assert(bw.blend_tree { clip = "x", length = 1 })
  t:close()
  raises("closed tree", function() t:evaluate() end, "blendwerk.BlendTree is closed")
  check("closed tostring", tostring(t):find("closed", 1, true) ~= nil)
  raises("closing twice is misuse, as for every type", function() t:close() end, "blendwerk.BlendTree is closed")
  getmetatable(t).__close(t) -- the metamethod itself tolerates a closed handle
  do local c <close> = assert(bw.blend_tree { clip = "y", length = 1 }) end
  check("to-be-closed variable", true)
end

-- ---- bad descriptions return nil, message naming the node ---------------
refused("leaf without length", { "blend tree: root.children[2]: length is missing" }, bw.blend_tree {
  kind = "1d", param = "s", children = { { at = 0, clip = "a", length = 1 }, { at = 1, clip = "b" } } })
refused("negative length", { "root.children[1].children[1]: length -1 is negative" }, bw.blend_tree {
  kind = "1d", param = "s", children = { { at = 0, kind = "2d", params = { "x", "y" },
    children = { { at = { 0, 0 }, clip = "a", length = -1 } } } } })
refused("NaN threshold", { "root.children[1]: at is NaN" }, bw.blend_tree {
  kind = "1d", param = "s", children = { { at = 0 / 0, clip = "a", length = 1 } } })
refused("missing at", { "root.children[1]: at is missing" }, bw.blend_tree {
  kind = "1d", param = "s", children = { { clip = "a", length = 1 } } })
refused("bad 2d at", { "root.children[1]: at.y is missing" }, bw.blend_tree {
  kind = "directional", params = { "x", "y" }, children = { { at = { 1 }, clip = "a", length = 1 } } })
refused("unknown kind", { "root: unknown kind 'polar'" }, bw.blend_tree { kind = "polar", children = {} })
refused("unknown field", { "root: unknown field 'thresholds' of a 1d node" }, bw.blend_tree {
  kind = "1d", param = "s", thresholds = { 1 }, children = { { at = 0, clip = "a", length = 1 } } })
refused("leaf typo", { "root: unknown field 'lenght' of a leaf" }, bw.blend_tree { clip = "a", lenght = 1 })
refused("neither leaf nor blend", { "root: a node needs clip=" }, bw.blend_tree { length = 1 })
refused("both leaf and blend", { "not both" }, bw.blend_tree { clip = "a", kind = "1d" })
refused("empty children", { "root: children is empty" }, bw.blend_tree { kind = "1d", param = "s", children = {} })
refused("1d without param", { "root: param is missing" }, bw.blend_tree {
  kind = "1d", children = { { at = 0, clip = "a", length = 1 } } })
refused("2d with one param", { "params must be a list of two parameter names" }, bw.blend_tree {
  kind = "2d", params = { "x" }, children = { { at = { 0, 0 }, clip = "a", length = 1 } } })
refused("param not in options", { "param 'sped' is not in options.params" }, bw.blend_tree({
  kind = "1d", param = "sped", children = { { at = 0, clip = "a", length = 1 } } }, { params = { "speed" } }))
refused("grid size", { "a 2 x 2 grid needs 4 children, not 3" }, bw.blend_tree {
  kind = "grid", params = { "x", "y" }, x_values = { 0, 1 }, y_values = { 0, 1 },
  children = { { clip = "a", length = 1 }, { clip = "b", length = 1 }, { clip = "c", length = 1 } } })
refused("grid child with at", { "root.children[1]: a grid child takes its place" }, bw.blend_tree {
  kind = "grid", params = { "x", "y" }, x_values = { 0 }, y_values = { 0 },
  children = { { at = 0, clip = "a", length = 1 } } })
refused("grid value", { "x_values[2] is infinite" }, bw.blend_tree {
  kind = "grid", params = { "x", "y" }, x_values = { 0, math.huge }, y_values = { 0 },
  children = { { clip = "a", length = 1 }, { clip = "b", length = 1 } } })
refused("root with at", { "root: the root has no parent" }, bw.blend_tree { at = 1, clip = "a", length = 1 })
refused("non-table child", { "root.children[1]: a node must be a table, not a string" }, bw.blend_tree {
  kind = "1d", param = "s", children = { "walk" } })
refused("speed NaN", { "root: speed is NaN" }, bw.blend_tree { clip = "a", length = 1, speed = 0 / 0 })
refused("rate_scale type", { "rate_scale must be a boolean" }, bw.blend_tree {
  kind = "1d", param = "s", rate_scale = 1, children = { { at = 0, clip = "a", length = 1 } } })
do
  -- a node that contains itself
  local loop = { kind = "1d", param = "s", children = {} }
  loop.children[1] = { at = 0, kind = "1d", param = "s", children = { { at = 0, clip = "a", length = 1 } } }
  loop.children[2] = { at = 1, kind = "1d", param = "s", children = { { at = 0, clip = "b", length = 1 } } }
  loop.children[2].children[2] = loop.children[2]
  loop.children[2].at = 1
  loop.children[2].children[2].at = 1 -- the same table: at = 1 in both roles
  refused("cycle", { "root.children[2].children[2]: contains itself" }, bw.blend_tree(loop))
  -- 17 levels of nesting
  local deep = { at = 0, clip = "leaf", length = 1 }
  for _ = 1, 16 do deep = { at = 0, kind = "1d", param = "s", children = { deep } } end
  deep.at = nil
  refused("too deep", { "nested deeper than 16 levels" }, bw.blend_tree(deep))
  -- 16 levels are fine, and a table used twice is two nodes
  deep = deep.children[1]
  deep.at = nil
  local ok = bw.blend_tree(deep)
  check("16 levels build", ok ~= nil and ok:leaf_count() == 1 and ok:node_count() == 16)
  local shared = { at = 0, clip = "s", length = 1 }
  local twice = assert(bw.blend_tree { kind = "1d", param = "p", children = { shared, shared } })
  leaves = twice:evaluate { p = 0 }
  leaves_are("a shared table splits like duplicates", leaves, { { "s", 0.5, 1 }, { "s", 0.5, 1 } })
end
do
  local closed = assert(bw.clip { name = "z", joints = { { joint = "a", keys = { { time = 0, t = { 0, 0, 0 } } } } } })
  closed:close()
  refused("closed clip without length", { "clip is a closed blendwerk.Clip" }, bw.blend_tree { clip = closed })
end

print(string.format("%d passed, %d failed", passed, failed))
if failed > 0 then error(failed .. " blend-tree checks failed") end
