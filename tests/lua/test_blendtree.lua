-- test_blendtree.lua - blend trees from Lua (blendwerk.blend_tree, SPEC §6):
-- weights multiplied along nested nodes, rates, cycle duration and the
-- synchronized phase (stepping, reverse leaves, from/delta for root
-- motion), the module-level phase helpers, misuse that raises and bad
-- descriptions refused with nil, message naming the node, against numbers
-- worked out by hand in the comments.

local bw = rawget(_G, "blendwerk") or require("blendwerk")
-- the shared harness beside this file: test, check, eq, near, raises, fails, finish
local h = dofile((arg[0]:match("^(.*[/\\])") or "./") .. "harness.lua")
local test, check, eq, near, raises, fails, finish = h.test, h.check, h.eq, h.near, h.raises, h.fails, h.finish

-- leaves: what evaluate returned; want: { {clip, weight, rate [, time]}, ... }
-- in depth-first order.
local function leaves_are(what, leaves, want, tol)
  tol = tol or 1e-5
  if type(leaves) ~= "table" then return check(false, what .. ": no leaves: " .. tostring(leaves)) end
  eq(#leaves, #want, what .. ": leaf count")
  for i, w in ipairs(want) do
    local l = leaves[i] or {}
    local where = string.format("%s: leaf %d ", what, i)
    eq(l.clip, w[1], where .. "clip")
    near(l.weight, w[2], tol, where .. "weight")
    near(l.rate, w[3], tol, where .. "rate")
    if w[4] then near(l.time, w[4], tol, where .. "time") end
  end
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

test("a BlendTree is a named userdata whose __gc and __close are one function", function()
  check(tostring(loco):find("blendwerk.BlendTree (3 nodes, 2 leaves, 1 params)", 1, true) ~= nil, "tostring: " .. tostring(loco))
  check(getmetatable(loco).__name == "blendwerk.BlendTree", "metatable name")
  check(getmetatable(loco).__gc == getmetatable(loco).__close, "gc and close share one function")
end)

test("a 1d tree splits midway 50/50 and steps both leaves through one shared cycle", function()
  local leaves, cycle = loco:evaluate { speed = 2.75 }
  leaves_are("walk/run 50/50", leaves, { { "walk", 0.5, 1 }, { "run", 0.5, 1 } })
  near(cycle, 0.935, 1e-5, "walk/run cycle")
  check(leaves[1].length and math.abs(leaves[1].length - 0.71) < 1e-6 and leaves[1].leaf == 1
    and leaves[2].leaf == 2 and leaves[1].time == nil and leaves[1].from == nil and leaves[1].delta == nil, "leaf fields")
  local progress
  progress, leaves, cycle = loco:step(0, 0.4675, { speed = 2.75 })
  near(progress, 0.5, 1e-5, "half a cycle: progress")
  leaves_are("half a cycle: per-leaf times", leaves, { { "walk", 0.5, 1, 0.355 }, { "run", 0.5, 1, 0.58 } })
  near(cycle, 0.935, 1e-5, "step reports the cycle")
  -- from / delta for root motion: both leaves start at 0 and advance by half
  -- their length (0.4675 / 0.935 = 0.5 of a cycle): 0.355 and 0.58 s.
  near(leaves[1].from, 0, 1e-5, "walk from")
  near(leaves[1].delta, 0.355, 1e-5, "walk delta")
  near(leaves[2].from, 0, 1e-5, "run from")
  near(leaves[2].delta, 0.58, 1e-5, "run delta")
  progress, leaves = loco:step(progress, 0.4675, { speed = 2.75 })
  near(leaves[1].from, 0.355, 1e-5, "second half: walk from")
  near(leaves[1].delta, 0.355, 1e-5, "second half: walk delta")
  check(progress < 1e-5 or progress > 1 - 1e-5, "a whole cycle wraps to 0: " .. tostring(progress))
  check((leaves[1].time < 1e-5 or leaves[1].time > 0.71 - 1e-5)
    and (leaves[2].time < 1e-5 or leaves[2].time > 1.16 - 1e-5), "both leaves back at their start")
end)

-- A bad dt leaves the progress where it was; a bad progress counts as 0.
test("a bad dt keeps the progress and a negative dt wraps backwards", function()
  near((loco:step(0.3, 0 / 0, { speed = 2.75 })), 0.3, 1e-5, "NaN dt keeps the progress")
  near((loco:step(0.3, math.huge, { speed = 2.75 })), 0.3, 1e-5, "infinite dt keeps the progress")
  near((loco:step(0 / 0, 0.4675, { speed = 2.75 })), 0.5, 1e-5, "NaN progress counts as 0")
  -- Negative dt runs backwards: 0.25 - 0.5 wraps to 0.75.
  near((loco:step(0.25, -0.4675, { speed = 2.75 })), 0.75, 1e-5, "negative dt wraps backwards")
end)

-- Values by index give the same as by name; the index is found once.
test("values by index equal values by name", function()
  check(loco:param_index("speed") == 1 and loco:param_index("nope") == nil, "param index")
  local by_index = loco:evaluate { 2.75 }
  leaves_are("values by index", by_index, { { "walk", 0.5, 1 }, { "run", 0.5, 1 } })
  check(#loco:params() == 1 and loco:params()[1] == "speed", "params list")
  check(loco:clips()[1] == "walk" and loco:clips()[2] == "run" and loco:leaf_count() == 2
    and loco:node_count() == 3, "clips list")
end)

-- Rate scaling outside the range: 6 m/s plays the 4 m/s run at 6/4 = 1.5;
-- cycle = 1.16 / 1.5 = 0.773333.
test("a parameter past the ends scales the rate, NaN counts as 0 and huge stays finite", function()
  local leaves, cycle
  leaves, cycle = loco:evaluate { speed = 6 }
  leaves_are("rate scaling", leaves, { { "run", 1, 1.5 } })
  near(cycle, 1.16 / 1.5, 1e-5, "rate-scaled cycle")
  -- NaN counts as 0: below the range, the walk alone; 0 m/s with rate
  -- scaling holds the walk (rate 0), and a rate of 0 leaves no cycle.
  leaves, cycle = loco:evaluate { speed = 0 / 0 }
  leaves_are("NaN parameter counts as 0", leaves, { { "walk", 1, 0 } })
  near(cycle, 0, 1e-5, "no moving leaf, no cycle")
  -- A huge value stays "far past the end" instead of turning into inf: the
  -- rate is capped at 100 (BW_BLEND_MAX_RATE).
  leaves = loco:evaluate { speed = 1e300 }
  leaves_are("huge parameter", leaves, { { "run", 1, 100 } })
end)

-- Reusing an output table: same table back, stale entries cleared.
test("evaluate reuses an output table and clears its stale entries", function()
  local out = { {}, {}, {}, "stale" }
  local same = loco:evaluate({ speed = 6 }, out)
  check(same == out and #out == 1 and out[1].clip == "run" and out[2] == nil and out[4] == nil, "out table reused")
end)

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
test("nested weights multiply along the tree", function()
  local leaves, cycle
  leaves, cycle = nested:evaluate { x = 2 / 3, y = 2 / 3, speed = 2.75 }
  leaves_are("nested weights multiply", leaves,
    { { "idle", 0.5, 1 }, { "walk", 0.125, 2 }, { "run", 0.125, 3 }, { "wave", 0.25, 1 } })
  near(cycle, 1 + 0.71 / 16 + 1.16 / 24 + 0.25, 1e-5, "nested cycle")
  check(nested:param_index("speed") == 1 and nested:param_index("y") == 3, "options fix the parameter order")
  leaves = nested:evaluate { 2.75, 2 / 3, 2 / 3 }
  leaves_are("nested by index", leaves,
    { { "idle", 0.5, 1 }, { "walk", 0.125, 2 }, { "run", 0.125, 3 }, { "wave", 0.25, 1 } })
  -- On B exactly, the 1D node alone decides: speed 1 < 1.5 clamps to walk,
  -- and rate scaling is off there, so walk plays at B's speed 2.
  leaves = nested:evaluate { x = 2, y = 0, speed = 1 }
  leaves_are("nested on a sample", leaves, { { "walk", 1, 2 } })
end)

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
test("a directional node blends by speed and angle", function()
  local leaves, cycle
  leaves, cycle = dir:evaluate { vx = 0, vz = 0.5 }
  leaves_are("directional", leaves, { { "idle", 0.5, 1 }, { "fwd", 0.5, 1 } })
  near(cycle, 1.5, 1e-5, "directional cycle")
end)

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
test("a grid node is bilinear in row-major order", function()
  local leaves
  leaves = grid:evaluate { yaw = 0, pitch = 0.5 }
  leaves_are("grid", leaves, { { "ld", 0.375, 1 }, { "rd", 0.375, 1 }, { "lu", 0.125, 1 }, { "ru", 0.125, 1 } })
end)

-- ---- a Clip as a leaf: its length is the default ------------------------
local clip = assert(bw.clip { name = "c", length = 0.8, joints = { { joint = "a", keys = { { time = 0, t = { 0, 0, 0 } } } } } })
local single = assert(bw.blend_tree { clip = clip, speed = -2 })
test("a reverse Clip leaf steps backwards and reports from and delta", function()
  local leaves, cycle, progress
  leaves, cycle = single:evaluate()
  check(leaves[1].clip == clip, "clip leaf keeps the Clip")
  near(leaves[1].length, 0.8, 1e-5, "clip leaf length")
  near(cycle, 0.4, 1e-5, "reverse leaf cycle uses |rate|")
  -- A reverse leaf samples at (1 - progress) * length: progress 0.25 -> 0.6.
  -- It starts at (1 - 0) * 0.8 = 0.8 and moves back by 0.25 * 0.8 = 0.2 s.
  progress, leaves = single:step(0, 0.1, nil)
  near(progress, 0.25, 1e-5, "reverse progress")
  near(leaves[1].time, 0.6, 1e-5, "reverse leaf time")
  near(leaves[1].from, 0.8, 1e-5, "reverse leaf from")
  near(leaves[1].delta, -0.2, 1e-5, "reverse leaf delta is negative")
  -- Several cycles in one step count whole: 0.25 -> 0.25 + 2.5 cycles; the
  -- delta is 2.5 x 0.8 = 2 s back, and from + delta lands on time (mod 0.8).
  progress, leaves = single:step(0.25, 1.0, nil)
  near(progress, 0.75, 1e-5, "multi-cycle progress")
  near(leaves[1].from, 0.6, 1e-5, "multi-cycle from")
  near(leaves[1].delta, -2.0, 1e-5, "multi-cycle delta")
  near(leaves[1].time, 0.2, 1e-5, "multi-cycle time")
  -- A step that changes nothing (NaN dt) reports a zero delta.
  progress, leaves = single:step(0.25, 0 / 0, nil)
  near(leaves[1].delta, 0, 1e-5, "NaN dt: delta 0")
  near(leaves[1].from, 0.6, 1e-5, "NaN dt: from")
  -- evaluate into a table a step filled clears the step's fields.
  local reused = {}
  single:step(0, 0.1, nil, reused)
  single:evaluate(nil, reused)
  check(reused[1].time == nil and reused[1].from == nil and reused[1].delta == nil, "evaluate clears time, from and delta")
end)

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
test("a blend tree's step drives root motion without a jump at the loop", function()
  check(bw.root_motion ~= nil, "blendwerk.root_motion exists")
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
    near(c, 0.9, 1e-5, "tree cycle")
    local d = feed(ls)
    near(d.z, 0.235, 1e-5, "one step of the tree: 0.235 m")
    check(math.abs(d.x) < 1e-9 and math.abs(d.yaw) < 1e-9 and d.used == 2, "one step: straight, both leaves used")
    local z, backwards = d.z, 0
    for _ = 2, 25 do
      p, ls = tree:step(p, 0.09, { speed = 2.75 }, ls)
      d = feed(ls)
      if d.z <= 0 then backwards = backwards + 1 end
      z = z + d.z
    end
    near(z, 5.875, 1e-4, "2.5 cycles of the tree: 5.875 m")
    check(backwards == 0, "no step went backwards")
    near(p, 0.5, 1e-5, "2.5 cycles end half way")
end)

-- ---- module-level phase helpers -----------------------------------------
test("the module-level phase helpers advance, wrap and skip still leaves", function()
  near(bw.phase_advance(0.25, 0.4675, 0.935), 0.75, 1e-5, "phase_advance")
  near(bw.phase_advance(0.25, -0.4675, 0.935), 0.75, 1e-5, "phase_advance wraps backwards")
  near(bw.phase_advance(0.3, 1, 0), 0.3, 1e-5, "phase_advance without a cycle")
  near(bw.phase_advance(0.3, 1, math.huge), 0.3, 1e-5, "phase_advance with an infinite cycle")
  near(bw.leaf_time(0.5, 0), 0, 1e-5, "leaf_time of a zero-length leaf")
  near(bw.leaf_time(0.5, 1.16), 0.58, 1e-5, "leaf_time")
  near(bw.leaf_time(0.25, 0.8, -1), 0.6, 1e-5, "leaf_time reverse")
  near(bw.cycle_duration { { weight = 0.5, length = 0.71 }, { weight = 0.5, length = 1.16, rate = 1 } }, 0.935, 1e-5, "cycle_duration")
  near(bw.cycle_duration { { weight = 1, length = 2, rate = 0 } }, 0, 1e-5, "cycle_duration skips still leaves")
end)

-- ---- misuse raises, naming the argument ---------------------------------
test("misuse raises an error naming the argument", function()
  raises(function() bw.blend_tree(42) end, "bad argument #1 to 'blend_tree'", "table expected") -- desc not a table
  raises(function() bw.blend_tree({ clip = 1, length = 1 }, { param = {} }) end,
    "bad argument #2 to 'blend_tree'", "unknown field 'param'") -- options unknown field
  raises(function() bw.blend_tree({ clip = 1, length = 1 }, { params = { "a", "a" } }) end,
    "#2", "params[2] 'a' repeats") -- options repeated name
  raises(function() loco:evaluate {} end, "bad argument #1 to 'evaluate'", "values.speed is missing") -- values missing
  raises(function() loco:evaluate { speed = "fast" } end, "#1", "values.speed must be a number (got string)") -- values wrong type
  raises(function() loco:evaluate(2.75) end, "#1", "table of parameter values expected") -- values not a table
  raises(function() loco:step("a", 0.1, { 1 }) end, "bad argument #1 to 'step'") -- step progress
  raises(function() loco.evaluate("tree", { 1 }) end, "blendwerk.BlendTree expected") -- bad self
  raises(function() bw.cycle_duration { { weight = 1 } } end,
    "bad argument #1 to 'cycle_duration'", "leaves[1].length is missing") -- cycle_duration entry
end)

test("a closed tree raises and a to-be-closed tree is closed at scope end", function()
  local t = assert(bw.blend_tree { clip = "x", length = 1 })
  t:close()
  raises(function() t:evaluate() end, "blendwerk.BlendTree is closed") -- closed tree
  check(tostring(t):find("closed", 1, true) ~= nil, "closed tostring")
  raises(function() t:close() end, "blendwerk.BlendTree is closed") -- closing twice is misuse, as for every type
  getmetatable(t).__close(t) -- the metamethod itself tolerates a closed handle
  local kept
  do
  local c <close> = assert(bw.blend_tree { clip = "y", length = 1 })
  kept = c
  check(not tostring(kept):find("closed", 1, true), "open inside its scope: " .. tostring(kept))
  end
  check(tostring(kept):find("closed", 1, true) ~= nil, "closed after its scope: " .. tostring(kept))
end)

-- ---- bad descriptions return nil, message naming the node ---------------
test("bad descriptions return nil and a message naming the node", function()
  fails({ "blend tree: root.children[2]: length is missing" }, bw.blend_tree {
    kind = "1d", param = "s", children = { { at = 0, clip = "a", length = 1 }, { at = 1, clip = "b" } } }) -- leaf without length
  fails({ "root.children[1].children[1]: length -1 is negative" }, bw.blend_tree {
    kind = "1d", param = "s", children = { { at = 0, kind = "2d", params = { "x", "y" },
      children = { { at = { 0, 0 }, clip = "a", length = -1 } } } } }) -- negative length
  -- the core names the child whose place (at) is bad, and the node it is in
  fails({ "root.children[1]: position in root is NaN" }, bw.blend_tree {
    kind = "1d", param = "s", children = { { at = 0 / 0, clip = "a", length = 1 } } }) -- NaN threshold
  fails({ "root.children[1]: at is missing" }, bw.blend_tree {
    kind = "1d", param = "s", children = { { clip = "a", length = 1 } } }) -- missing at
  fails({ "root.children[1]: at.y is missing" }, bw.blend_tree {
    kind = "directional", params = { "x", "y" }, children = { { at = { 1 }, clip = "a", length = 1 } } }) -- bad 2d at
  fails({ "root: unknown kind 'polar'" }, bw.blend_tree { kind = "polar", children = {} }) -- unknown kind
  fails({ "root: unknown field 'thresholds' of a 1d node" }, bw.blend_tree {
    kind = "1d", param = "s", thresholds = { 1 }, children = { { at = 0, clip = "a", length = 1 } } }) -- unknown field
  fails({ "root: unknown field 'lenght' of a leaf" }, bw.blend_tree { clip = "a", lenght = 1 }) -- leaf typo
  fails({ "root: a node needs clip=" }, bw.blend_tree { length = 1 }) -- neither leaf nor blend
  fails({ "not both" }, bw.blend_tree { clip = "a", kind = "1d" }) -- both leaf and blend
  fails({ "root: children is empty" }, bw.blend_tree { kind = "1d", param = "s", children = {} }) -- empty children
  fails({ "root: param is missing" }, bw.blend_tree {
    kind = "1d", children = { { at = 0, clip = "a", length = 1 } } }) -- 1d without param
  fails({ "params must be a list of two parameter names" }, bw.blend_tree {
    kind = "2d", params = { "x" }, children = { { at = { 0, 0 }, clip = "a", length = 1 } } }) -- 2d with one param
  fails({ "param 'sped' is not in options.params" }, bw.blend_tree({
    kind = "1d", param = "sped", children = { { at = 0, clip = "a", length = 1 } } }, { params = { "speed" } })) -- param not in options
  -- the Lua API keeps its contract: the first problem only (a graph file's tree lists each, test_graph.lua)
  local _, first = bw.blend_tree({ kind = "2d", params = { "ax", "ay" }, children = {
    { at = { 0, 0 }, clip = "a" }, { at = { 1, 0 }, clip = "b", length = 1 } } }, { params = { "speed" } })
  eq(first, "blend tree: root: params[1] 'ax' is not in options.params", "the first problem")
  fails({ "a 2 x 2 grid needs 4 children, not 3" }, bw.blend_tree {
    kind = "grid", params = { "x", "y" }, x_values = { 0, 1 }, y_values = { 0, 1 },
    children = { { clip = "a", length = 1 }, { clip = "b", length = 1 }, { clip = "c", length = 1 } } }) -- grid size
  fails({ "root.children[1]: a grid child takes its place" }, bw.blend_tree {
    kind = "grid", params = { "x", "y" }, x_values = { 0 }, y_values = { 0 },
    children = { { at = 0, clip = "a", length = 1 } } }) -- grid child with at
  fails({ "root: grid x value 1 is infinite" }, bw.blend_tree { -- 0-based, as the core counts
    kind = "grid", params = { "x", "y" }, x_values = { 0, math.huge }, y_values = { 0 },
    children = { { clip = "a", length = 1 }, { clip = "b", length = 1 } } }) -- grid value
  fails({ "root: the root has no parent" }, bw.blend_tree { at = 1, clip = "a", length = 1 }) -- root with at
  fails({ "root.children[1]: a node must be a table, not a string" }, bw.blend_tree {
    kind = "1d", param = "s", children = { "walk" } }) -- non-table child
  fails({ "root: speed is NaN" }, bw.blend_tree { clip = "a", length = 1, speed = 0 / 0 }) -- speed NaN
  fails({ "rate_scale must be a boolean" }, bw.blend_tree {
    kind = "1d", param = "s", rate_scale = 1, children = { { at = 0, clip = "a", length = 1 } } }) -- rate_scale type
end)

-- A 2d or directional node takes at most 64 children (BW_BLEND_MAX_MEMBERS:
-- gradient bands cost O(n^2) per evaluation), in the core's words; 64 on
-- a ring (child k at angle 2*pi*k/64) build, and on the ring halfway
-- between children 1 and 2 the directional weights are 1/2 each
-- (tests/test_blendtree.c two_d_nodes_take_at_most_max_members_children
-- works it out). Before, the reader took 4096 and the compiler any count.
test("a 2d node takes at most 64 children", function()
  local function ring(kind, n)
    local children = {}
    for k = 0, n - 1 do
      local a = 2 * math.pi * k / n
      children[k + 1] = { at = { math.cos(a), math.sin(a) }, clip = "c" .. k, length = 1 }
    end
    return { kind = kind, params = { "x", "y" }, children = children }
  end
  for _, kind in ipairs({ "2d", "directional" }) do
    local t, msg = bw.blend_tree(ring(kind, 65))
    eq(t, nil, kind .. " 65: no tree")
    eq(msg, "blend tree: root: 65 children, more than the 64 a 2D node takes (BW_BLEND_MAX_MEMBERS: "
      .. "its weights cost O(n^2) per evaluation)", kind .. " 65: the message")
  end
  local t = assert(bw.blend_tree(ring("directional", 64)))
  local half = math.pi / 64
  local leaves = t:evaluate({ x = math.cos(half), y = math.sin(half) })
  leaves_are("64 children", leaves, { { "c0", 0.5, 1 }, { "c1", 0.5, 1 } })
  t:close()
end)

-- Unknown fields are refused with the path of the table they are in.
test("unknown fields name the field and the node's path", function()
  fails({ "blend tree: root.children[2]: unknown field 'sped' of a leaf" }, bw.blend_tree {
    kind = "1d", param = "s", children = { { at = 0, clip = "a", length = 1 }, { at = 1, clip = "b", length = 1, sped = 2 } } })
  fails({ "blend tree: root.children[1]: unknown field 'param' of a 2d node" }, bw.blend_tree {
    kind = "1d", param = "s", children = { { at = 0, kind = "2d", param = "x", params = { "x", "y" },
      children = { { at = { 0, 0 }, clip = "a", length = 1 } } } } })
end)

-- speed = 0 (or absent) is the default 1, as in the C core; -0.5 halves
-- and reverses: a 2 s leaf at rate -0.5 has a cycle of 2 / 0.5 = 4 s.
test("speed 0 means the default 1", function()
  local t = assert(bw.blend_tree { clip = "a", length = 2, speed = 0 })
  local leaves, cycle = t:evaluate()
  near(leaves[1].rate, 1, 0, "speed 0 plays at 1")
  near(cycle, 2, 1e-6, "speed 0: cycle is the length")
  leaves, cycle = assert(bw.blend_tree { clip = "a", length = 2, speed = -0.5 }):evaluate()
  near(leaves[1].rate, -0.5, 0, "negative speed kept")
  near(cycle, 4, 1e-6, "cycle uses |rate|")
end)

test("self-containing, too deep and shared-table descriptions are handled", function()
  local leaves
  local loop = { kind = "1d", param = "s", children = {} }
  loop.children[1] = { at = 0, kind = "1d", param = "s", children = { { at = 0, clip = "a", length = 1 } } }
  loop.children[2] = { at = 1, kind = "1d", param = "s", children = { { at = 0, clip = "b", length = 1 } } }
  loop.children[2].children[2] = loop.children[2]
  loop.children[2].at = 1
  loop.children[2].children[2].at = 1 -- the same table: at = 1 in both roles
  fails({ "root.children[2].children[2]: contains itself" }, bw.blend_tree(loop)) -- cycle
  -- 17 levels of nesting
  local deep = { at = 0, clip = "leaf", length = 1 }
  for _ = 1, 16 do deep = { at = 0, kind = "1d", param = "s", children = { deep } } end
  deep.at = nil
  fails({ "nested deeper than 16 levels" }, bw.blend_tree(deep)) -- too deep
  -- the reader itself stops at 64 levels of tables (its recursion bound)
  local very = { at = 0, clip = "leaf", length = 1 }
  for _ = 1, 64 do very = { at = 0, kind = "1d", param = "s", children = { very } } end
  very.at = nil
  fails({ "nested deeper than 64 levels" }, bw.blend_tree(very)) -- reader bound
  -- a number a float cannot hold is the reader's to refuse
  fails({ "root: length is too large for a float" }, bw.blend_tree { clip = "a", length = 1e39 })
  -- 16 levels are fine, and a table used twice is two nodes
  deep = deep.children[1]
  deep.at = nil
  local ok = bw.blend_tree(deep)
  check(ok ~= nil and ok:leaf_count() == 1 and ok:node_count() == 16, "16 levels build")
  local shared = { at = 0, clip = "s", length = 1 }
  local twice = assert(bw.blend_tree { kind = "1d", param = "p", children = { shared, shared } })
  leaves = twice:evaluate { p = 0 }
  leaves_are("a shared table splits like duplicates", leaves, { { "s", 0.5, 1 }, { "s", 0.5, 1 } })
end)

test("a closed Clip as a leaf is refused", function()
  local closed = assert(bw.clip { name = "z", joints = { { joint = "a", keys = { { time = 0, t = { 0, 0, 0 } } } } } })
  closed:close()
  fails({ "clip is a closed blendwerk.Clip" }, bw.blend_tree { clip = closed }) -- closed clip without length
end)

finish()
