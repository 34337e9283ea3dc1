-- test_lua_rig.lua - blendwerk.rig / Rig / Pose from Lua: building rigs
-- from tables, name and parent queries, rest transforms, pose access by
-- index and name, local-to-model with hand-derived positions, and the
-- nil, message / error answers to bad input.
local bw = blendwerk or require("blendwerk")
-- the shared harness beside this file: test, check, eq, near, raises, fails, finish
local h = dofile((arg[0]:match("^(.*[/\\])") or "./") .. "harness.lua")
local test, check, eq, near, raises, fails, finish = h.test, h.check, h.eq, h.near, h.raises, h.fails, h.finish

local S45 = math.sqrt(0.5) -- sin 45 deg = cos 45 deg

local function make_rig()
    return assert(bw.rig {
        joints = {
            { name = "hips", t = { 0, 1, 0 } },
            { name = "spine", parent = "hips", t = { 0, 0.5, 0 }, r = { 0, S45, 0, S45 } }, -- 90 deg about +Y
            { name = "arm", parent = "spine", t = { 0.3, 0, 0 } },
            { name = "leg", parent = 1, t = { 0.1, -0.5, 0 } },                             -- parent by index
        },
        curves = { { name = "smile", rest = 0.25 }, { name = "turn", angle = true } },
    })
end

test("names, parents and finds", function()
    local rig = make_rig()
    eq(rig:joint_count(), 4, "joint_count"); eq(rig:curve_count(), 2, "curve_count")
    eq(rig:joint_name(3), "arm", "joint_name(3)"); eq(rig:joint_name("leg"), "leg", "joint_name by name")
    eq(rig:joint_parent("arm"), 2, "arm's parent"); eq(rig:joint_parent(4), 1, "leg's parent (given by index)")
    eq(rig:joint_parent(1), nil, "root has no parent")
    eq(rig:find("spine"), 2, "find"); eq(rig:find("spine", "hips"), 2, "find with parent")
    eq(rig:find("hips", ""), 1, "root with parent \"\"")
    local none, why = rig:find("spine", "arm")
    eq(none, nil, "wrong parent"); eq(why, "not found", "reason")
    eq(rig:find_curve("turn"), 2, "find_curve"); eq(rig:find_curve("frown"), nil, "missing curve")
    eq(rig:curve_name(1), "smile", "curve_name"); eq(rig:curve_kind("turn"), "angle", "curve_kind")
    eq(rig:curve_kind(1), "float", "float curve")
    eq(rig:topology_revision(), 1, "revision starts at 1")
    -- the layout signature hashes names + parents: equal for equal rigs
    eq(rig:layout_signature(), make_rig():layout_signature(), "same layout, same signature")
    local other = assert(bw.rig { joints = { { name = "hips" }, { name = "spine", parent = "hips" } } })
    check(other:layout_signature() ~= rig:layout_signature(), "different layout, different signature")

    local twins = assert(bw.rig { joints = {
        { name = "root" }, { name = "l", parent = "root" }, { name = "hand", parent = "l" },
        { name = "r", parent = "root" }, { name = "hand", parent = "r" } } })
    local amb, reason = twins:find("hand")
    eq(amb, nil, "ambiguous find"); eq(reason, "ambiguous", "reason")
    eq(twins:find("hand", "r"), 5, "disambiguated by parent")
    raises(function() twins:rest("hand") end, "bad argument #1 to 'rest'", "ambiguous")
end)

test("rest transforms, set_rest and rest_pose", function()
    local rig = make_rig()
    local r = rig:rest("spine")
    near(r.t[2], 0.5, 1e-6, "spine t.y"); near(r.r[2], S45, 1e-6, "spine r.y"); near(r.s[1], 1, 0, "default scale")
    -- set_rest changes only the fields given; the rotation is normalized
    rig:set_rest("arm", { r = { 0, 0, 2, 0 }, s = 3 })
    local a = rig:rest(3)
    near(a.t[1], 0.3, 1e-6, "t kept"); near(a.r[3], 1, 1e-6, "r normalized"); near(a.s[2], 3, 0, "uniform s")
    eq(rig:topology_revision(), 1, "rest values do not bump the revision")
    local p = rig:rest_pose()
    near(p:coverage(3), 1, 0, "rest pose coverage"); near(select(3, p:r("arm")), 1, 1e-6, "rest pose r.z")
    near(select(2, p:s(3)), 3, 0, "rest pose s.y")
end)

test("local_to_model: positions derived by hand", function()
    local rig = make_rig()
    local pose = rig:rest_pose()
    -- hips at (0,1,0); spine at hips + (0,0.5,0) = (0,1.5,0), turned 90 deg about +Y;
    -- arm's offset (0.3,0,0) turned 90 deg about Y is (0.3 cos 90, 0, -0.3 sin 90) = (0,0,-0.3)
    local x, y, z = pose:model_position("arm")
    near(x, 0, 1e-6, "arm x"); near(y, 1.5, 1e-6, "arm y"); near(z, -0.3, 1e-6, "arm z")
    -- leg hangs off the hips, unaffected by the spine's turn: (0.1, 0.5, 0)
    x, y, z = pose:model_position(4)
    near(x, 0.1, 1e-6, "leg x"); near(y, 0.5, 1e-6, "leg y"); near(z, 0, 1e-6, "leg z")
    -- the matrices are column-major: [13..15] hold the translation, and
    -- the spine's first column is its +X axis turned to -Z: (0, 0, -1)
    local m = pose:local_to_model()
    eq(#m, 4, "one matrix per joint"); eq(#m[2], 16, "16 numbers")
    near(m[3][13], 0, 1e-6, "m13"); near(m[3][14], 1.5, 1e-6, "m14"); near(m[3][15], -0.3, 1e-6, "m15")
    near(m[2][1], 0, 1e-6, "spine X.x"); near(m[2][3], -1, 1e-6, "spine X.z"); near(m[2][16], 1, 0, "m44")
    -- scale of a parent scales its children's offsets: hips s = 2 puts
    -- spine at (0, 1 + 2 * 0.5, 0) = (0, 2, 0) and arm at (0, 2, -0.6)
    pose:set("hips", { s = 2 })
    x, y, z = pose:model_position("arm")
    near(x, 0, 1e-6, "scaled arm x"); near(y, 2, 1e-6, "scaled arm y"); near(z, -0.6, 1e-6, "scaled arm z")
end)

test("pose get/set by index and name", function()
    local rig = make_rig()
    local pose = rig:pose()
    eq(pose:joint_count(), 4, "joint_count"); eq(pose:curve_count(), 2, "curve_count")
    near(pose:coverage(1), 0, 0, "a new pose covers nothing"); near(select(4, pose:r(1)), 1, 0, "identity")
    pose:set("leg", { t = { 1, 2, 3 }, r = { 0, 0, 0, 4 }, coverage = 0.5 })
    local g = pose:get(4)
    near(g.t[3], 3, 0, "t.z"); near(g.r[4], 1, 1e-6, "r normalized"); near(g.coverage, 0.5, 0, "coverage")
    pose:set_curve("smile", 0.75, 0.5)
    local v, c = pose:curve(1)
    near(v, 0.75, 0, "curve value"); near(c, 0.5, 0, "curve coverage")
    local copy = pose:copy()
    pose:set(4, { t = { 9, 9, 9 } })
    near(select(3, copy:t("leg")), 3, 0, "a copy is independent")
    pose:clear()
    near(pose:coverage(4), 0, 0, "cleared"); near(pose:t(4), 0, 0, "cleared t")
    pose:set_rest()
    near(pose:curve("smile"), 0.25, 1e-6, "rest curve value")
    eq(pose:rig(), rig, "pose:rig()")
end)

test("pose:set and rig:set_rest refuse unknown fields, naming what they accept", function()
    local rig = make_rig()
    local pose = rig:pose()
    pose:set(1, { t = { 1, 2, 3 } })
    raises(function() pose:set(1, { rot = { 0, 0, 0, 1 } }) end, "bad argument #2 to 'set'",
        "unknown field 'rot' (accepted fields: t, r, s, coverage)")
    raises(function() pose:set(1, { t = { 1, 2, 3, 4 } }) end, "t: unexpected list entry [4] (a list of 3 entries)")
    raises(function() pose:set(1, { t = { x = 1, y = 2, z = 3, q = 4 } }) end,
        "t: unknown field 'q' (accepted fields: x, y, z)")
    raises(function() pose:set(1, { r = { x = 0, y = 0, z = 0, w = 1, v = 0 } }) end,
        "r: unknown field 'v' (accepted fields: x, y, z, w)")
    raises(function() pose:set(1, { [1] = 0 }) end, "unexpected list entry [1] (accepted fields: t, r, s, coverage)")
    near(pose:t(1), 1, 0, "a refused set changes nothing")
    pose:set(1, pose:get(2)) -- what get returns, set takes back
    near(pose:t(1), select(1, pose:t(2)), 0, "round trip")
    raises(function() rig:set_rest(1, { coverage = 1 }) end, "bad argument #2 to 'set_rest'",
        "unknown field 'coverage' (accepted fields: t, r, s)")
    raises(function() rig:set_rest(1, { t = { 0, 0, 0 }, scale = 2 }) end, "unknown field 'scale'")
    rig:set_rest(1, rig:rest(2)) -- what rest returns, set_rest takes back
end)

-- rig:warnings(): a rest rotation that is not unit length is stored
-- normalized, and creation says so once, after the blendwerk.rig call's
-- file:line. {0, 0, 0, 2} has length 2; {0, 0.6, 0, 0.8} is unit (0.36 +
-- 0.64) and {0, 0, 0, 1.0005} within the 1e-3 tolerance: no warning.
test("warnings: an unnormalized rest rotation, after the call's file:line", function()
    local src = debug.getinfo(1, "S").short_src
    local rig, line = assert(bw.rig { joints = { { name = "hips", r = { 0, 0.6, 0, 0.8 } },
        { name = "spine", parent = "hips", r = { 0, 0, 0, 2 } } } }), debug.getinfo(1, "l").currentline - 1
    local w = rig:warnings()
    eq(#w, 1, "one warning")
    eq(w[1], src .. ":" .. line .. ": rig: joint 'spine' (index 1): rest rotation had length 2; normalized",
        "the message")
    near(rig:rest("spine").r[4], 1, 1e-6, "stored normalized")
    w[1] = "changed"
    eq(rig:warnings()[1]:sub(-10), "normalized", "a new list each call")
    -- a shared handle of the rig (binding:rig()) has the rig's warnings
    local clip = assert(bw.clip { joints = { { joint = "hips", keys = { { time = 0, t = { 0, 0, 0 } } } } } })
    eq(bw.bind(clip, rig):rig():warnings()[1], rig:warnings()[1], "the shared handle's")
    -- called from C (pcall), there is no Lua call site to name
    local _, bare = pcall(bw.rig, { joints = { { name = "x", r = { 0, 0, 2, 0 } } } })
    eq(bare:warnings()[1], "rig: joint 'x' (index 0): rest rotation had length 2; normalized", "no position")
    eq(#make_rig():warnings(), 0, "a clean rig has none")
    eq(#assert(bw.rig { joints = { { name = "a", r = { 0, 0, 0, 1.0005 } } } }):warnings(), 0, "within tolerance")
    eq(type(make_rig():warnings()), "table", "an empty list, not nil")
end)

-- The 16 KiB cap of asset:warnings(): 1024 joints j0000..j1023, each rest
-- {0,0,0,2}. The core's message for joint i is 68 bytes plus the digits
-- of i beyond one, and a NUL: 10 x 69 + 90 x 70 + 132 x 71 = 16362 bytes
-- hold joints 0..231; joint 232 needs 71 more (16433 > 16384), and no later
-- one is shorter: 232 kept, 792 counted, the count after the call site too.
test("warnings: at most 16 KiB kept, then a count", function()
    local src = debug.getinfo(1, "S").short_src
    local joints = {}
    for i = 1, 1024 do joints[i] = { name = ("j%04d"):format(i - 1), r = { 0, 0, 0, 2 } } end
    local rig, line = assert(bw.rig { joints = joints }), debug.getinfo(1, "l").currentline
    local w = rig:warnings()
    eq(#w, 233, "232 kept and the count")
    eq(w[232], src .. ":" .. line .. ": rig: joint 'j0231' (index 231): rest rotation had length 2; normalized",
        "the last kept")
    eq(w[233], src .. ":" .. line .. ": (792 more warnings not kept)", "the count")
end)

test("bad rig tables return nil and a message", function()
    fails("rig: joint 2 'spine': parent 'hip' not found",
        bw.rig { joints = { { name = "hips" }, { name = "spine", parent = "hip" } } })
    fails({ "rig: joint 1 'spine': parent 'hips' is listed after it", "parents come first" },
        bw.rig { joints = { { name = "spine", parent = "hips" }, { name = "hips" } } })
    fails("parent index 2 is not an earlier joint",
        bw.rig { joints = { { name = "a" }, { name = "b", parent = 2 } } })
    fails("parent name 'hand' is ambiguous", bw.rig { joints = {
        { name = "root" }, { name = "l", parent = "root" }, { name = "hand", parent = "l" },
        { name = "r", parent = "root" }, { name = "hand", parent = "r" }, { name = "finger", parent = "hand" } } })
    fails("joint 2: name must be a non-empty string", bw.rig { joints = { { name = "a" }, { name = "" } } })
    -- a repeated (parent, name) pair, in the script's numbering (joint 3, not the C index 2)
    fails("rig: joint 3 'b': joint 'b' appears twice under parent 'a'",
        bw.rig { joints = { { name = "a" }, { name = "b", parent = "a" }, { name = "b", parent = "a" } } })
    fails("rig: joint 2 'a': a root named 'a' is listed twice", bw.rig { joints = { { name = "a" }, { name = "a" } } })
    -- C reads "a\0b" as "a": refused, not a second "a"
    fails("joint 2: name must be a non-empty string without NUL bytes",
        bw.rig { joints = { { name = "a" }, { name = "a\0b", parent = "a" } } })
    fails("curve 1: name must be a non-empty string without NUL bytes", bw.rig { curves = { { name = "c\0" } } })
    fails("joint 1 'a': t.y is NaN", bw.rig { joints = { { name = "a", t = { 0, 0 / 0, 0 } } } })
    fails("joint 1 'a': r is a zero quaternion", bw.rig { joints = { { name = "a", r = { 0, 0, 0, 0 } } } })
    fails("joint 1 'a': unknown field 'rotation'", bw.rig { joints = { { name = "a", rotation = { 0, 0, 0, 1 } } } })
    fails("curve 1 'c': rest is infinite", bw.rig { curves = { { name = "c", rest = 1 / 0 } } })
    fails("rig: unknown field 'bones'", bw.rig { bones = {} })
    fails("rig: unknown field 'bones' (accepted fields: joints, curves)", bw.rig { bones = {} })
    fails("joint 1 'a': unknown field 'rotation' (accepted fields: name, parent, t, r, s)",
        bw.rig { joints = { { name = "a", rotation = { 0, 0, 0, 1 } } } })
    fails("curve 1 'c': unknown field 'kind' (accepted fields: name, angle, rest)",
        bw.rig { curves = { { name = "c", kind = "angle" } } })
    fails("rig: joints: unknown field 'extra' (a list of 1 entry)", bw.rig { joints = { { name = "a" }, extra = 1 } })
    fails("rig: curves: unexpected list entry [3] (a list of 1 entry)", bw.rig { curves = { { name = "c" }, [3] = {} } })
    fails("joint 1 'a': t: unknown field 'w' (accepted fields: x, y, z)",
        bw.rig { joints = { { name = "a", t = { x = 0, y = 0, z = 0, w = 1 } } } })
    -- duplicate (parent, name) pairs are the core's to refuse; the message says so
    local dup, msg = bw.rig { joints = { { name = "a" }, { name = "b", parent = "a" }, { name = "b", parent = "a" } } }
    eq(dup, nil, "duplicate pair refused"); check(type(msg) == "string" and msg:find("^rig: "), "message: " .. tostring(msg))
    -- an empty rig is valid
    local empty = assert(bw.rig {})
    eq(empty:joint_count(), 0, "empty rig"); eq(empty:pose():joint_count(), 0, "empty pose")
end)

test("misuse raises errors naming the argument", function()
    local rig = make_rig()
    raises(function() bw.rig("hips") end, "bad argument #1 to 'rig'", "table expected")
    raises(function() rig:joint_name(0) end, "bad argument #1 to 'joint_name'", "joint index 0 out of range 1..4")
    raises(function() rig:joint_name(true) end, "bad argument #1 to 'joint_name'", "joint index or name expected")
    raises(function() rig:joint_parent("tail") end, "bad argument #1 to 'joint_parent'", "no joint named 'tail'")
    raises(function() rig:set_rest(1, { t = { 0 / 0, 0, 0 } }) end, "bad argument #2 to 'set_rest'", "t.x is NaN")
    raises(function() rig:set_rest(1, 5) end, "bad argument #2 to 'set_rest'", "table expected")
    raises(function() rig:curve_name(3) end, "bad argument #1 to 'curve_name'", "curve index 3 out of range")
    local pose = rig:pose()
    raises(function() pose:set(1, { coverage = 2 }) end, "bad argument #2 to 'set'", "coverage must be in [0, 1]")
    raises(function() pose:set(1, { r = { 0, 0, 0, 0 } }) end, "bad argument #2 to 'set'", "zero quaternion")
    raises(function() pose:set_curve("smile", 0 / 0) end, "bad argument #2 to 'set_curve'", "NaN")
    raises(function() pose:t(5) end, "bad argument #1 to 't'", "out of range")
    raises(function() rig.joint_count(pose) end, "blendwerk.Rig expected, got blendwerk.Pose")
end)

finish()
