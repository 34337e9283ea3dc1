-- test_rootmotion.lua - root motion from Lua (blendwerk.root_motion, SPEC §8):
-- extraction over plays and over a track set's live tracks (loop wraps,
-- reverse, bindings), the mixer's weight and priority rule over the root,
-- yaw, axes, the root's parent frame, removal from transforms and poses,
-- bad input and lifetime, against travel worked out by hand from the
-- clips' keys.
--
-- Game-side integration (docs/root-motion.md): position += rotY(heading) *
-- {x, y, z}; heading += yaw. A positive yaw turns +Z toward +X.

local bw = rawget(_G, "blendwerk") or require("blendwerk")
if not bw.root_motion then
  error("blendwerk.root_motion is missing: luaopen_blendwerk must call bw_lua_open_rootmotion")
end
-- the shared harness beside this file: test, check, eq, near, raises, fails, finish
local h = dofile((arg[0]:match("^(.*[/\\])") or "./") .. "harness.lua")
local test, check, eq, near, raises, fails, finish = h.test, h.check, h.eq, h.near, h.raises, h.fails, h.finish

-- d: a delta table; want: {x, y, z, yaw}
local function delta_is(what, d, want, tol)
  tol = tol or 1e-5
  if type(d) ~= "table" then return check(false, what .. ": no delta: " .. tostring(d)) end
  near(d.x, want[1], tol, what .. ": x")
  near(d.y, want[2], tol, what .. ": y")
  near(d.z, want[3], tol, what .. ": z")
  near(d.yaw, want[4], tol, what .. ": yaw")
end

local function qy(deg) local half = math.rad(deg) / 2 return { 0, math.sin(half), 0, math.cos(half) } end
local function qx(deg) local half = math.rad(deg) / 2 return { math.sin(half), 0, 0, math.cos(half) } end

-- |dot| = 1: the same rotation (q and -q)
local function same_rotation(what, r, q)
  local dot = r[1] * q[1] + r[2] * q[2] + r[3] * q[3] + r[4] * q[4]
  check(math.abs(math.abs(dot) - 1) < 1e-5,
    string.format("%s: got {%.6f, %.6f, %.6f, %.6f}, expected {%.6f, %.6f, %.6f, %.6f}", what, r[1], r[2], r[3], r[4],
      q[1], q[2], q[3], q[4]))
end

-- ---- fixtures ------------------------------------------------------------
local rig = assert(bw.rig { joints = { { name = "root" }, { name = "spine", parent = "root", t = { 0, 0.5, 0 } } } })

-- Straight walk: the root moves 2 m along +Z per 1 s loop.
local walk = assert(bw.clip { name = "walk", loop = true, joints = { { joint = "root", parent = "", keys = {
  { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 0, 0, 2 } } } } } })
-- Stands still.
local still = assert(bw.clip { name = "still", loop = true, joints = { { joint = "root", parent = "", keys = {
  { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 0, 0, 0 } } } } } })
-- Turns 90 degrees about +Y per 1 s loop, on the spot.
local turn = assert(bw.clip { name = "turn", loop = true, joints = { { joint = "root", parent = "", keys = {
  { time = 0, r = qy(0) }, { time = 1, r = qy(90) } } } } })
-- Rises 1 m and walks 2 m per loop.
local rise = assert(bw.clip { name = "rise", loop = true, joints = { { joint = "root", parent = "", keys = {
  { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 0, 1, 2 } } } } } })

local rm = assert(bw.root_motion(rig))
local walk_binding = assert(walk:bind(rig))
local rm_y = assert(bw.root_motion(rig, { axes = { "y" } }))
local rm_xz = assert(bw.root_motion(rig, { root = 1, axes = { "x", "z" } }))

test("a RootMotion reports its defaults: root joint 1, axes x z yaw", function()
  check(getmetatable(rm).__name == "blendwerk.RootMotion", "metatable name")
  check(getmetatable(rm).__gc == getmetatable(rm).__close, "gc and close share one function")
  local root_index, root_name = rm:root()
  check(root_index == 1 and root_name == "root", "default root is joint 1")
  local axes = rm:axes()
  check(#axes == 3 and axes[1] == "x" and axes[2] == "z" and axes[3] == "yaw", "default axes")
  check(tostring(rm):find("root 1 'root', axes x z yaw", 1, true) ~= nil, "tostring: " .. tostring(rm))
  check(rm:rig() == rig, "rig()")
  do local r <close> = rm:rig() end
  rm:rig():close()
  check(rm:rig():joint_count() == rig:joint_count() and rig:joint_count() > 0, "rig() is borrowed: close() leaves it open")
end)

-- ---- straight walk over loop crossings -----------------------------------
-- Speed 1.5 for 2 s from clip time 0.8 advances the clip by 3.0 s:
-- 0.8 -> 1 (0.4 m), two whole loops (4 m), 0 -> 0.8 (1.6 m) = 6.0 m,
-- i.e. speed × time × 2 m/s = 1.5 × 2 × 2. No backwards jump at a wrap.
test("a straight walk travels speed x time across loop wraps, either way", function()
  local d = rm:extract { { clip = walk, from = 0.8, delta = 1.5 * 2.0 } }
  delta_is("walk across three wraps", d, { 0, 0, 6, 0 })
  check(d.used == 1 and d.skipped == 0 and d.coverage == 1, "one play used")
  -- Backwards by the same amount: the exact mirror, -6 m.
  delta_is("reverse across three wraps", rm:extract { { clip = walk, from = 0.8, delta = -3.0 } }, { 0, 0, -6, 0 })
  -- From a Binding instead of a Clip: the same travel.
  delta_is("binding form", rm:extract { { binding = walk_binding, from = 0.8, delta = 3.0, loop = true } }, { 0, 0, 6, 0 })
  -- Not looping: travel stops at the clip's end, 0.8 -> 1 = 0.4 m.
  delta_is("non-looping play", rm:extract { { clip = walk, from = 0.8, delta = 3.0, loop = false } }, { 0, 0, 0.4, 0 })
end)

-- Through a TrackSet, 120 frames of 1/60 s at speed 1.5 from 0.8: the sum
-- of the frames' deltas is the same 6 m (the set's float times and the
-- frame sum round a little: 1e-3).
test("a TrackSet's frames add up to the travel of one long step", function()
  local set = assert(bw.track_set(rig))
  assert(set:play(walk, { speed = 1.5, time = 0.8 }))
  local z, x, yaw = 0, 0, 0
  for _ = 1, 120 do
    set:update(1 / 60)
    local f = rm:extract_tracks(set)
    z, x, yaw = z + f.z, x + f.x, yaw + f.yaw
  end
  near(z, 6.0, 1e-3, "track set: 2 s of frames at 1.5x")
  check(math.abs(x) < 1e-6 and math.abs(yaw) < 1e-6, "track set: straight")
  -- One long frame of 2 s: the same 6 m at once.
  local set2 = assert(bw.track_set(rig))
  assert(set2:play(walk, { speed = 1.5, time = 0.8 }))
  set2:advance(2.0)
  local out = {}
  local f = rm:extract_tracks(set2, out)
  check(f == out, "extract_tracks reuses out")
  delta_is("track set: one 2 s step", f, { 0, 0, 6, 0 }, 1e-4)
  -- A set on another rig is misuse.
  local other = assert(bw.rig { joints = { { name = "root" } } })
  local set3 = assert(bw.track_set(other))
  raises(function() rm:extract_tracks(set3) end,
    "bad argument #1 to 'extract_tracks'", "another rig") -- track set of another rig
  raises(function() rm:extract_tracks({}) end, "#1", "blendwerk.TrackSet expected") -- not a track set
  set3:close()
  raises(function() rm:extract_tracks(set3) end, "blendwerk.TrackSet is closed") -- closed track set
end)

-- ---- weights: the mixer's rule over the root --------------------------------
-- Each play's share is clamp(weight x its clip's coverage of the root, 0, 1);
-- per priority rank, lowest first, the share-weighted mean travel overlays
-- what lay below by the rank's coverage min(sum of shares, 1), starting
-- from the rest pose's zero travel.
-- walk (0.25) 0 -> 0.5 travels 1 m; still (0.75) 0 m; one rank, shares sum
-- to 1: 0.25 x 1 = 0.25 m, covering the root fully.
test("plays blend over the root by the mixer's weight and priority rule", function()
  local d
  d = rm:extract { { clip = walk, from = 0, delta = 0.5, weight = 0.25 }, { clip = still, from = 0, delta = 0.5, weight = 0.75 } }
  delta_is("fade blend", d, { 0, 0, 0.25, 0 })
  check(d.used == 2 and d.skipped == 0 and math.abs(d.coverage - 1) < 1e-12, "fade blend counts")
  -- Weights 1 and 3: each share clamps to 1, an equal mean: 0.5 m.
  d = rm:extract { { clip = walk, from = 0, delta = 0.5, weight = 1 }, { clip = still, from = 0, delta = 0.5, weight = 3 } }
  delta_is("shares clamp to 1", d, { 0, 0, 0.5, 0 })
  -- The walk fading out alone at weight 0.5 shows half its pose over the
  -- rest pose: 0.5 m, coverage 0.5.
  d = rm:extract { { clip = walk, from = 0, delta = 0.5, weight = 0.5 } }
  delta_is("lone walk at weight 0.5", d, { 0, 0, 0.5, 0 })
  check(math.abs(d.coverage - 0.5) < 1e-7, "lone walk coverage")
  -- "still" keys the root: at a higher priority it overlays the walk
  -- completely (0 m); at weight 0.25 it leaves 3/4 of the walk's 1 m.
  d = rm:extract { { clip = walk, from = 0, delta = 0.5 }, { clip = still, from = 0, delta = 0.5, priority = 1 } }
  delta_is("root-keyed clip on a higher rank", d, { 0, 0, 0, 0 })
  d = rm:extract { { clip = walk, from = 0, delta = 0.5 }, { clip = still, from = 0, delta = 0.5, priority = 1, weight = 0.25 } }
  delta_is("partial higher rank", d, { 0, 0, 0.75, 0 })
  -- An arm-only wave does not touch the root (share 0): the walk's full 1 m,
  -- at any priority.
  local wave = assert(bw.clip { name = "wave", loop = true, joints = { { joint = "spine", parent = "root", keys = {
    { time = 0, r = qx(0) }, { time = 1, r = qx(40) } } } } })
  d = rm:extract { { clip = walk, from = 0, delta = 0.5 }, { clip = wave, from = 0, delta = 0.5, priority = 5 } }
  delta_is("arm-only clip at priority 5", d, { 0, 0, 1, 0 })
  check(d.used == 1 and d.coverage == 1, "arm-only clip is not used")
  -- No plays at all: a zero delta, nothing used.
  d = rm:extract {}
  delta_is("no plays", d, { 0, 0, 0, 0 })
  check(d.used == 0 and d.skipped == 0 and d.coverage == 0, "no plays counts")
end)

-- ---- yaw -----------------------------------------------------------------
-- The turn clip slerps 0 -> 90 degrees over 1 s: half a second turns 45
-- degrees (pi/4); 0.5 -> 1.5 crosses the wrap: 45 + 45 = 90 (pi/2);
-- 1.5 loops from 0: 90 + 45 = 135 (3pi/4). Positive: +Z turns toward +X.
test("yaw accumulates across loop wraps, either way", function()
  delta_is("yaw half a turn", rm:extract { { clip = turn, from = 0, delta = 0.5 } }, { 0, 0, 0, math.pi / 4 })
  delta_is("yaw across the wrap", rm:extract { { clip = turn, from = 0.5, delta = 1.0 } }, { 0, 0, 0, math.pi / 2 })
  delta_is("yaw over 1.5 loops", rm:extract { { clip = turn, from = 0, delta = 1.5 } }, { 0, 0, 0, 3 * math.pi / 4 })
  delta_is("yaw backwards", rm:extract { { clip = turn, from = 0.5, delta = -0.5 } }, { 0, 0, 0, -math.pi / 4 })
end)

-- ---- axes -------------------------------------------------------------------
-- rise: 0 -> 0.25 s moves (0, 0.25, 0.5). Default axes drop Y; {"y"} keeps
-- only Y; {"x", "z"} reports no yaw for the turn clip.
test("axes select the reported components", function()
  delta_is("default axes drop y", rm:extract { { clip = rise, from = 0, delta = 0.25 } }, { 0, 0, 0.5, 0 })
  delta_is("y only", rm_y:extract { { clip = rise, from = 0, delta = 0.25 } }, { 0, 0.25, 0, 0 })
  delta_is("no yaw axis", rm_xz:extract { { clip = turn, from = 0, delta = 0.5 } }, { 0, 0, 0, 0 })
  check(#rm_xz:axes() == 2 and rm_xz:axes()[2] == "z", "axes list")
end)

-- ---- the root's parent frame --------------------------------------------
-- An armature scaled 0.01 above the root: 200 units of local +Z per loop
-- are 2 m in model space; half a loop, 1 m. Root by name or by index.
test("travel is measured in model space through the root's parent", function()
  local d
  local rig2 = assert(bw.rig { joints = { { name = "armature", s = 0.01 }, { name = "hips", parent = "armature" } } })
  local cm = assert(bw.clip { name = "cm", loop = true, joints = { { joint = "hips", parent = "armature", keys = {
    { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 0, 0, 200 } } } } } })
  local by_name = assert(bw.root_motion(rig2, { root = "hips" }))
  local by_index = assert(bw.root_motion(rig2, { root = 2 }))
  delta_is("parent scale by name", by_name:extract { { clip = cm, from = 0, delta = 0.5 } }, { 0, 0, 1, 0 }, 1e-4)
  delta_is("parent scale by index", by_index:extract { { clip = cm, from = 0, delta = 0.5 } }, { 0, 0, 1, 0 }, 1e-4)
  check(select(2, by_name:root()) == "hips", "root by name")
  -- A binding made for another rig layout is skipped, not an error.
  d = by_name:extract { { binding = walk_binding, from = 0, delta = 0.5 } }
  check(d.used == 0 and d.skipped == 1 and d.z == 0, "binding of another layout is skipped")
end)

-- ---- removal -------------------------------------------------------------
-- Root at (1, 0.3, 2) turned 30 degrees: default removal keeps the height
-- and nothing else: (0, 0.3, 0), identity rotation.
test("remove clears the extracted axes from a transform or a pose", function()
  local x = rm:remove { t = { 1, 0.3, 2 }, r = qy(30) }
  check(type(x) == "table" and x.t and x.r and x.s, "remove: a new transform")
  near(x.t[1], 0, 1e-5, "remove: x")
  near(x.t[2], 0.3, 1e-5, "remove: height kept")
  near(x.t[3], 0, 1e-5, "remove: z")
  same_rotation("remove: yaw gone", x.r, { 0, 0, 0, 1 })
  -- A lean survives: rotY(90)·rotX(10) = (c45 s5, s45 c5, -s45 s5, c45 c5);
  -- its twist about Y is exactly rotY(90), so the swing left is rotX(10).
  local lean = { math.cos(math.rad(45)) * math.sin(math.rad(5)), math.sin(math.rad(45)) * math.cos(math.rad(5)),
    -math.sin(math.rad(45)) * math.sin(math.rad(5)), math.cos(math.rad(45)) * math.cos(math.rad(5)) }
  x = rm:remove { t = { 1, 0.3, 2 }, r = lean }
  same_rotation("remove: the lean stays", x.r, qx(10))
  near(x.t[2], 0.3, 1e-5, "remove: height with a lean")
  -- Without yaw extraction the rotation is left alone, X and Z still go.
  x = rm_xz:remove { t = { 1, 0.3, 2 }, r = qy(30) }
  same_rotation("remove without yaw keeps rotation", x.r, qy(30))
  check(math.abs(x.t[1]) < 1e-6 and math.abs(x.t[2] - 0.3) < 1e-6 and math.abs(x.t[3]) < 1e-6, "remove without yaw: position")
  -- On a pose: the root joint changes in place, other joints do not.
  do
    local pose = rig:rest_pose()
    pose:set("root", { t = { 1, 0.3, 2 }, r = qy(30) })
    check(rm:remove(pose) == pose, "remove: returns the pose")
    local px, py, pz = pose:t("root")
    check(math.abs(px) < 1e-6 and math.abs(py - 0.3) < 1e-6 and math.abs(pz) < 1e-6, "remove: pose root position")
    same_rotation("remove: pose root rotation", { pose:r("root") }, { 0, 0, 0, 1 })
    local sx, sy, sz = pose:t("spine")
    check(sx == 0 and math.abs(sy - 0.5) < 1e-6 and sz == 0, "remove: other joints untouched")
    -- pose:get() output is a transform table too
    x = rm:remove(pose:get("spine"))
    check(x ~= nil, "remove accepts pose:get() tables")
    -- the spine sits at (0, 0.5, 0) unrotated: removal keeps its height 0.5
    near(x and x.t[2], 0.5, 1e-6, "remove of pose:get(): height kept")
    local other = assert(bw.rig { joints = { { name = "root" } } })
    raises(function() rm:remove(other:rest_pose()) end, "bad argument #1 to 'remove'", "another rig") -- pose of another rig
  end
end)

-- ---- bad input ------------------------------------------------------------
-- Misuse raises, naming the argument.
test("misuse raises an error naming the argument", function()
  raises(function() bw.root_motion("rig") end, "bad argument #1 to 'root_motion'") -- rig not a Rig
  raises(function() bw.root_motion(rig, 5) end, "bad argument #2 to 'root_motion'") -- config not a table
  raises(function() rm:extract(5) end, "bad argument #1 to 'extract'") -- plays not a table
  raises(function() rm:remove(5) end, "bad argument #1 to 'remove'", "blendwerk.Pose or transform table") -- remove a number
  do
    local b = assert(walk:bind(rig))
    b:close()
    raises(function() rm:extract { { binding = b, delta = 1 } } end, "#1", "plays[1].binding is a closed") -- closed binding
  end
end)

-- Bad tables return nil, message naming the entry.
test("bad tables return nil and a message naming the entry", function()
  fails("no joint named 'nope'", bw.root_motion(rig, { root = "nope" })) -- unknown root name
  fails("root joint index 7 out of range 1..2", bw.root_motion(rig, { root = 7 })) -- root index out of range
  fails("root must be a joint index", bw.root_motion(rig, { root = 1.5 })) -- root not an integer
  fails("axes[2]: unknown axis 'w'", bw.root_motion(rig, { axes = { "x", "w" } })) -- unknown axis
  fails("axes is empty", bw.root_motion(rig, { axes = {} })) -- empty axes
  fails("unknown field 'axis'", bw.root_motion(rig, { axis = { "x" } })) -- config typo
  fails("unknown field 'axis' (accepted fields: root, axes)", bw.root_motion(rig, { axis = { "x" } })) -- config typo, named
  fails("axes: unknown field 'yaw' (a list of 1 entry)", bw.root_motion(rig, { axes = { "x", yaw = true } })) -- axes not a list
  fails("plays[1]: unknown field 'speed' (accepted fields: binding, clip, from, delta, loop, weight, priority)",
    rm:extract { { clip = walk, delta = 1, speed = 2 } }) -- play typo, named
  fails("plays[2]: unexpected list entry [1] (accepted fields: binding, clip, from, delta, loop, weight, priority)",
    rm:extract { { clip = walk, delta = 1 }, { walk, clip = walk, delta = 1 } }) -- a list entry in a play
  fails("transform: unknown field 'rot' (accepted fields: t, r, s, coverage)", rm:remove { rot = qy(30) }) -- remove typo
  fails("several joints are named 'hip'", bw.root_motion(assert(bw.rig { joints = {
    { name = "a" }, { name = "hip", parent = "a" }, { name = "b" }, { name = "hip", parent = "b" } } }), { root = "hip" })) -- ambiguous root name
  fails("plays[1]: needs binding=", rm:extract { { from = 0, delta = 1 } }) -- play without clip
  fails("plays[1].delta is missing", rm:extract { { clip = walk } }) -- play without delta
  fails("plays[2].delta must be a number", rm:extract { { clip = walk, delta = 1 }, { clip = walk, delta = "1" } }) -- play delta type
  fails("plays[1]: unknown field 'speed'", rm:extract { { clip = walk, delta = 1, speed = 2 } }) -- play typo
  fails("plays[1].clip must be a blendwerk.Clip, not a string", rm:extract { { clip = "walk", delta = 1 } }) -- play clip type
  fails("not both", rm:extract { { clip = walk, binding = walk_binding, delta = 1 } }) -- play with both
  fails("plays[1]: unexpected list entry [1]", rm:extract { { walk, delta = 1 } }) -- play as a list
  fails("plays[1] must be a table", rm:extract { 5 }) -- play not a table
  fails("plays[1].loop must be a boolean", rm:extract { { clip = walk, delta = 1, loop = 1 } }) -- play loop type
  fails("plays[1].priority must be an integer", rm:extract { { clip = walk, delta = 1, priority = 0.5 } }) -- play priority type
  fails("plays[1].priority must be an integer", rm:extract { { clip = walk, delta = 1, priority = 2 ^ 40 } }) -- play priority range
  fails("transform: t.x is NaN", rm:remove { t = { 0 / 0, 0, 0 } }) -- transform NaN
  fails("zero quaternion", rm:remove { r = { 0, 0, 0, 0 } }) -- transform zero rotation
  do
    local many = {}
    for i = 1, 65 do many[i] = { clip = walk, delta = 0 } end
    fails("more than 64", rm:extract(many)) -- too many plays
  end
end)

-- Non-finite numbers inside a play: skipped and counted, never NaN.
test("non-finite plays are skipped and a huge delta is capped, never NaN", function()
  local d
  d = rm:extract { { clip = walk, from = 0, delta = 0 / 0 } }
  check(d.used == 0 and d.skipped == 1 and d.z == 0 and d.x == 0 and d.yaw == 0, "NaN delta skipped")
  d = rm:extract { { clip = walk, from = 0, delta = 0.5, weight = math.huge }, { clip = walk, from = 0, delta = 0.25 } }
  delta_is("infinite weight skipped, the other play counts", d, { 0, 0, 0.5, 0 })
  check(d.used == 1 and d.skipped == 1, "infinite weight counts")
  -- A huge delta is capped at 2^20 whole cycles (BW_ROOT_MOTION_MAX_CYCLES):
  -- finite, forward, at least 2 m per counted cycle.
  d = rm:extract { { clip = walk, from = 0, delta = 1e300 } }
  check(d.z == d.z and d.z > 2 * 2 ^ 20 - 1 and d.z < math.huge, "huge delta stays finite: " .. tostring(d.z))
end)

-- Lifetime: the RootMotion keeps its rig; closing it makes it unusable.
test("a RootMotion keeps its rig and is unusable once closed", function()
  local r2 = assert(bw.rig { joints = { { name = "root" } } })
  local rm2 = assert(bw.root_motion(r2))
  local c2 = assert(bw.clip { loop = true, joints = { { joint = "root", parent = "", keys = {
    { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 1, 0, 0 } } } } } })
  r2:close()
  delta_is("works after its rig handle is closed", rm2:extract { { clip = c2, from = 0, delta = 0.5 } }, { 0.5, 0, 0, 0 })
  rm2:close()
  raises(function() rm2:extract {} end, "blendwerk.RootMotion is closed") -- closed RootMotion
  check(tostring(rm2):find("closed", 1, true) ~= nil, "closed tostring")
  local kept
  do
  local c <close> = assert(bw.root_motion(rig))
  kept = c
  check(not tostring(kept):find("closed", 1, true), "open inside its scope: " .. tostring(kept))
  end
  check(tostring(kept):find("closed", 1, true) ~= nil, "closed after its scope: " .. tostring(kept))
end)

finish()
