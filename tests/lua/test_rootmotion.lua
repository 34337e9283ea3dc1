-- test_rootmotion.lua - root motion from Lua (blendwerk.root_motion, SPEC §8):
-- extraction over plays and over a track set's live tracks, the config,
-- and removal, against travel worked out by hand from the clips' keys.
-- Ends with "N passed, N failed" and raises an error when anything failed.
--
-- Game-side integration (docs/root-motion.md): position += rotY(heading) *
-- {x, y, z}; heading += yaw. A positive yaw turns +Z toward +X.

local bw = rawget(_G, "blendwerk") or require("blendwerk")
if not bw.root_motion then
  error("blendwerk.root_motion is missing: luaopen_blendwerk must call bw_lua_open_rootmotion")
end

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

-- d: a delta table; want: {x, y, z, yaw}
local function delta_is(name, d, want, tol)
  tol = tol or 1e-5
  if type(d) ~= "table" then
    check(name, false, "no delta: " .. tostring(d))
    return
  end
  local got = { d.x, d.y, d.z, d.yaw }
  for i = 1, 4 do
    if type(got[i]) ~= "number" or math.abs(got[i] - want[i]) > tol then
      check(name, false, string.format("got {%s, %s, %s, yaw %s}, expected {%.9g, %.9g, %.9g, yaw %.9g}",
        tostring(d.x), tostring(d.y), tostring(d.z), tostring(d.yaw), want[1], want[2], want[3], want[4]))
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

local function refused(name, needle, value, msg)
  check(name, value == nil and type(msg) == "string" and msg:find(needle, 1, true) ~= nil,
    "got " .. tostring(value) .. ", " .. tostring(msg))
end

local function qy(deg) local h = math.rad(deg) / 2 return { 0, math.sin(h), 0, math.cos(h) } end
local function qx(deg) local h = math.rad(deg) / 2 return { math.sin(h), 0, 0, math.cos(h) } end

-- |dot| = 1: the same rotation (q and -q)
local function same_rotation(name, r, q)
  local dot = r[1] * q[1] + r[2] * q[2] + r[3] * q[3] + r[4] * q[4]
  check(name, math.abs(math.abs(dot) - 1) < 1e-5,
    string.format("got {%.6f, %.6f, %.6f, %.6f}, expected {%.6f, %.6f, %.6f, %.6f}", r[1], r[2], r[3], r[4],
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
check("metatable name", getmetatable(rm).__name == "blendwerk.RootMotion")
check("gc and close share one function", getmetatable(rm).__gc == getmetatable(rm).__close)
local root_index, root_name = rm:root()
check("default root is joint 1", root_index == 1 and root_name == "root")
local axes = rm:axes()
check("default axes", #axes == 3 and axes[1] == "x" and axes[2] == "z" and axes[3] == "yaw")
check("tostring", tostring(rm):find("root 1 'root', axes x z yaw", 1, true) ~= nil, tostring(rm))
check("rig()", rm:rig() == rig)

-- ---- straight walk over loop crossings -----------------------------------
-- Speed 1.5 for 2 s from clip time 0.8 advances the clip by 3.0 s:
-- 0.8 -> 1 (0.4 m), two whole loops (4 m), 0 -> 0.8 (1.6 m) = 6.0 m,
-- i.e. speed × time × 2 m/s = 1.5 × 2 × 2. No backwards jump at a wrap.
local d = rm:extract { { clip = walk, from = 0.8, delta = 1.5 * 2.0 } }
delta_is("walk across three wraps", d, { 0, 0, 6, 0 })
check("one play used", d.used == 1 and d.skipped == 0 and d.coverage == 1)
-- Backwards by the same amount: the exact mirror, -6 m.
delta_is("reverse across three wraps", rm:extract { { clip = walk, from = 0.8, delta = -3.0 } }, { 0, 0, -6, 0 })
-- From a Binding instead of a Clip: the same travel.
local walk_binding = assert(walk:bind(rig))
delta_is("binding form", rm:extract { { binding = walk_binding, from = 0.8, delta = 3.0, loop = true } }, { 0, 0, 6, 0 })
-- Not looping: travel stops at the clip's end, 0.8 -> 1 = 0.4 m.
delta_is("non-looping play", rm:extract { { clip = walk, from = 0.8, delta = 3.0, loop = false } }, { 0, 0, 0.4, 0 })

-- Through a TrackSet, 120 frames of 1/60 s at speed 1.5 from 0.8: the sum
-- of the frames' deltas is the same 6 m (the set's float times and the
-- frame sum round a little: 1e-3).
do
  local set = assert(bw.track_set(rig))
  assert(set:play(walk, { speed = 1.5, time = 0.8 }))
  local z, x, yaw = 0, 0, 0
  for _ = 1, 120 do
    set:update(1 / 60)
    local f = rm:extract_tracks(set)
    z, x, yaw = z + f.z, x + f.x, yaw + f.yaw
  end
  near("track set: 2 s of frames at 1.5x", z, 6.0, 1e-3)
  check("track set: straight", math.abs(x) < 1e-6 and math.abs(yaw) < 1e-6)
  -- One long frame of 2 s: the same 6 m at once.
  local set2 = assert(bw.track_set(rig))
  assert(set2:play(walk, { speed = 1.5, time = 0.8 }))
  set2:advance(2.0)
  local out = {}
  local f = rm:extract_tracks(set2, out)
  check("extract_tracks reuses out", f == out)
  delta_is("track set: one 2 s step", f, { 0, 0, 6, 0 }, 1e-4)
  -- A set on another rig is misuse.
  local other = assert(bw.rig { joints = { { name = "root" } } })
  local set3 = assert(bw.track_set(other))
  raises("track set of another rig", function() rm:extract_tracks(set3) end,
    "bad argument #1 to 'extract_tracks'", "another rig")
  raises("not a track set", function() rm:extract_tracks({}) end, "#1", "blendwerk.TrackSet expected")
  set3:close()
  raises("closed track set", function() rm:extract_tracks(set3) end, "blendwerk.TrackSet is closed")
end

-- ---- weights: the mixer's rule over the root --------------------------------
-- Each play's share is clamp(weight x its clip's coverage of the root, 0, 1);
-- per priority rank, lowest first, the share-weighted mean travel overlays
-- what lay below by the rank's coverage min(sum of shares, 1), starting
-- from the rest pose's zero travel.
-- walk (0.25) 0 -> 0.5 travels 1 m; still (0.75) 0 m; one rank, shares sum
-- to 1: 0.25 x 1 = 0.25 m, covering the root fully.
d = rm:extract { { clip = walk, from = 0, delta = 0.5, weight = 0.25 }, { clip = still, from = 0, delta = 0.5, weight = 0.75 } }
delta_is("fade blend", d, { 0, 0, 0.25, 0 })
check("fade blend counts", d.used == 2 and d.skipped == 0 and math.abs(d.coverage - 1) < 1e-12)
-- Weights 1 and 3: each share clamps to 1, an equal mean: 0.5 m.
d = rm:extract { { clip = walk, from = 0, delta = 0.5, weight = 1 }, { clip = still, from = 0, delta = 0.5, weight = 3 } }
delta_is("shares clamp to 1", d, { 0, 0, 0.5, 0 })
-- The walk fading out alone at weight 0.5 shows half its pose over the
-- rest pose: 0.5 m, coverage 0.5.
d = rm:extract { { clip = walk, from = 0, delta = 0.5, weight = 0.5 } }
delta_is("lone walk at weight 0.5", d, { 0, 0, 0.5, 0 })
check("lone walk coverage", math.abs(d.coverage - 0.5) < 1e-7)
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
check("arm-only clip is not used", d.used == 1 and d.coverage == 1)
-- No plays at all: a zero delta, nothing used.
d = rm:extract {}
delta_is("no plays", d, { 0, 0, 0, 0 })
check("no plays counts", d.used == 0 and d.skipped == 0 and d.coverage == 0)

-- ---- yaw -----------------------------------------------------------------
-- The turn clip slerps 0 -> 90 degrees over 1 s: half a second turns 45
-- degrees (pi/4); 0.5 -> 1.5 crosses the wrap: 45 + 45 = 90 (pi/2);
-- 1.5 loops from 0: 90 + 45 = 135 (3pi/4). Positive: +Z turns toward +X.
delta_is("yaw half a turn", rm:extract { { clip = turn, from = 0, delta = 0.5 } }, { 0, 0, 0, math.pi / 4 })
delta_is("yaw across the wrap", rm:extract { { clip = turn, from = 0.5, delta = 1.0 } }, { 0, 0, 0, math.pi / 2 })
delta_is("yaw over 1.5 loops", rm:extract { { clip = turn, from = 0, delta = 1.5 } }, { 0, 0, 0, 3 * math.pi / 4 })
delta_is("yaw backwards", rm:extract { { clip = turn, from = 0.5, delta = -0.5 } }, { 0, 0, 0, -math.pi / 4 })

-- ---- axes -------------------------------------------------------------------
-- rise: 0 -> 0.25 s moves (0, 0.25, 0.5). Default axes drop Y; {"y"} keeps
-- only Y; {"x", "z"} reports no yaw for the turn clip.
delta_is("default axes drop y", rm:extract { { clip = rise, from = 0, delta = 0.25 } }, { 0, 0, 0.5, 0 })
local rm_y = assert(bw.root_motion(rig, { axes = { "y" } }))
delta_is("y only", rm_y:extract { { clip = rise, from = 0, delta = 0.25 } }, { 0, 0.25, 0, 0 })
local rm_xz = assert(bw.root_motion(rig, { root = 1, axes = { "x", "z" } }))
delta_is("no yaw axis", rm_xz:extract { { clip = turn, from = 0, delta = 0.5 } }, { 0, 0, 0, 0 })
check("axes list", #rm_xz:axes() == 2 and rm_xz:axes()[2] == "z")

-- ---- the root's parent frame --------------------------------------------
-- An armature scaled 0.01 above the root: 200 units of local +Z per loop
-- are 2 m in model space; half a loop, 1 m. Root by name or by index.
do
  local rig2 = assert(bw.rig { joints = { { name = "armature", s = 0.01 }, { name = "hips", parent = "armature" } } })
  local cm = assert(bw.clip { name = "cm", loop = true, joints = { { joint = "hips", parent = "armature", keys = {
    { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 0, 0, 200 } } } } } })
  local by_name = assert(bw.root_motion(rig2, { root = "hips" }))
  local by_index = assert(bw.root_motion(rig2, { root = 2 }))
  delta_is("parent scale by name", by_name:extract { { clip = cm, from = 0, delta = 0.5 } }, { 0, 0, 1, 0 }, 1e-4)
  delta_is("parent scale by index", by_index:extract { { clip = cm, from = 0, delta = 0.5 } }, { 0, 0, 1, 0 }, 1e-4)
  check("root by name", select(2, by_name:root()) == "hips")
  -- A binding made for another rig layout is skipped, not an error.
  d = by_name:extract { { binding = walk_binding, from = 0, delta = 0.5 } }
  check("binding of another layout is skipped", d.used == 0 and d.skipped == 1 and d.z == 0)
end

-- ---- removal -------------------------------------------------------------
-- Root at (1, 0.3, 2) turned 30 degrees: default removal keeps the height
-- and nothing else: (0, 0.3, 0), identity rotation.
local x = rm:remove { t = { 1, 0.3, 2 }, r = qy(30) }
check("remove: a new transform", type(x) == "table" and x.t and x.r and x.s)
near("remove: x", x.t[1], 0)
near("remove: height kept", x.t[2], 0.3)
near("remove: z", x.t[3], 0)
same_rotation("remove: yaw gone", x.r, { 0, 0, 0, 1 })
-- A lean survives: rotY(90)·rotX(10) = (c45 s5, s45 c5, -s45 s5, c45 c5);
-- its twist about Y is exactly rotY(90), so the swing left is rotX(10).
local lean = { math.cos(math.rad(45)) * math.sin(math.rad(5)), math.sin(math.rad(45)) * math.cos(math.rad(5)),
  -math.sin(math.rad(45)) * math.sin(math.rad(5)), math.cos(math.rad(45)) * math.cos(math.rad(5)) }
x = rm:remove { t = { 1, 0.3, 2 }, r = lean }
same_rotation("remove: the lean stays", x.r, qx(10))
near("remove: height with a lean", x.t[2], 0.3)
-- Without yaw extraction the rotation is left alone, X and Z still go.
x = rm_xz:remove { t = { 1, 0.3, 2 }, r = qy(30) }
same_rotation("remove without yaw keeps rotation", x.r, qy(30))
check("remove without yaw: position", math.abs(x.t[1]) < 1e-6 and math.abs(x.t[2] - 0.3) < 1e-6 and math.abs(x.t[3]) < 1e-6)
-- On a pose: the root joint changes in place, other joints do not.
do
  local pose = rig:rest_pose()
  pose:set("root", { t = { 1, 0.3, 2 }, r = qy(30) })
  check("remove: returns the pose", rm:remove(pose) == pose)
  local px, py, pz = pose:t("root")
  check("remove: pose root position", math.abs(px) < 1e-6 and math.abs(py - 0.3) < 1e-6 and math.abs(pz) < 1e-6)
  same_rotation("remove: pose root rotation", { pose:r("root") }, { 0, 0, 0, 1 })
  local sx, sy, sz = pose:t("spine")
  check("remove: other joints untouched", sx == 0 and math.abs(sy - 0.5) < 1e-6 and sz == 0)
  -- pose:get() output is a transform table too
  x = rm:remove(pose:get("spine"))
  check("remove accepts pose:get() tables", x ~= nil)
  local other = assert(bw.rig { joints = { { name = "root" } } })
  raises("pose of another rig", function() rm:remove(other:rest_pose()) end, "bad argument #1 to 'remove'", "another rig")
end

-- ---- bad input ------------------------------------------------------------
-- Misuse raises, naming the argument.
raises("rig not a Rig", function() bw.root_motion("rig") end, "bad argument #1 to 'root_motion'")
raises("config not a table", function() bw.root_motion(rig, 5) end, "bad argument #2 to 'root_motion'")
raises("plays not a table", function() rm:extract(5) end, "bad argument #1 to 'extract'")
raises("remove a number", function() rm:remove(5) end, "bad argument #1 to 'remove'", "blendwerk.Pose or transform table")
do
  local b = assert(walk:bind(rig))
  b:close()
  raises("closed binding", function() rm:extract { { binding = b, delta = 1 } } end, "#1", "plays[1].binding is a closed")
end

-- Bad tables return nil, message naming the entry.
refused("unknown root name", "no joint named 'nope'", bw.root_motion(rig, { root = "nope" }))
refused("root index out of range", "root joint index 7 out of range 1..2", bw.root_motion(rig, { root = 7 }))
refused("root not an integer", "root must be a joint index", bw.root_motion(rig, { root = 1.5 }))
refused("unknown axis", "axes[2]: unknown axis 'w'", bw.root_motion(rig, { axes = { "x", "w" } }))
refused("empty axes", "axes is empty", bw.root_motion(rig, { axes = {} }))
refused("config typo", "unknown field 'axis'", bw.root_motion(rig, { axis = { "x" } }))
refused("ambiguous root name", "several joints are named 'hip'", bw.root_motion(assert(bw.rig { joints = {
  { name = "a" }, { name = "hip", parent = "a" }, { name = "b" }, { name = "hip", parent = "b" } } }), { root = "hip" }))
refused("play without clip", "plays[1]: needs binding=", rm:extract { { from = 0, delta = 1 } })
refused("play without delta", "plays[1].delta is missing", rm:extract { { clip = walk } })
refused("play delta type", "plays[2].delta must be a number", rm:extract { { clip = walk, delta = 1 }, { clip = walk, delta = "1" } })
refused("play typo", "plays[1]: unknown field 'speed'", rm:extract { { clip = walk, delta = 1, speed = 2 } })
refused("play clip type", "plays[1].clip must be a blendwerk.Clip, not a string", rm:extract { { clip = "walk", delta = 1 } })
refused("play with both", "not both", rm:extract { { clip = walk, binding = walk_binding, delta = 1 } })
refused("play as a list", "plays[1]: unexpected list entry [1]", rm:extract { { walk, delta = 1 } })
refused("play not a table", "plays[1] must be a table", rm:extract { 5 })
refused("play loop type", "plays[1].loop must be a boolean", rm:extract { { clip = walk, delta = 1, loop = 1 } })
refused("play priority type", "plays[1].priority must be an integer", rm:extract { { clip = walk, delta = 1, priority = 0.5 } })
refused("play priority range", "plays[1].priority must be an integer", rm:extract { { clip = walk, delta = 1, priority = 2 ^ 40 } })
refused("transform NaN", "transform: t.x is NaN", rm:remove { t = { 0 / 0, 0, 0 } })
refused("transform zero rotation", "zero quaternion", rm:remove { r = { 0, 0, 0, 0 } })
do
  local many = {}
  for i = 1, 65 do many[i] = { clip = walk, delta = 0 } end
  refused("too many plays", "more than 64", rm:extract(many))
end

-- Non-finite numbers inside a play: skipped and counted, never NaN.
d = rm:extract { { clip = walk, from = 0, delta = 0 / 0 } }
check("NaN delta skipped", d.used == 0 and d.skipped == 1 and d.z == 0 and d.x == 0 and d.yaw == 0)
d = rm:extract { { clip = walk, from = 0, delta = 0.5, weight = math.huge }, { clip = walk, from = 0, delta = 0.25 } }
delta_is("infinite weight skipped, the other play counts", d, { 0, 0, 0.5, 0 })
check("infinite weight counts", d.used == 1 and d.skipped == 1)
-- A huge delta is capped at 2^20 whole cycles (BW_ROOT_MOTION_MAX_CYCLES):
-- finite, forward, at least 2 m per counted cycle.
d = rm:extract { { clip = walk, from = 0, delta = 1e300 } }
check("huge delta stays finite", d.z == d.z and d.z > 2 * 2 ^ 20 - 1 and d.z < math.huge, tostring(d.z))

-- Lifetime: the RootMotion keeps its rig; closing it makes it unusable.
do
  local r2 = assert(bw.rig { joints = { { name = "root" } } })
  local rm2 = assert(bw.root_motion(r2))
  local c2 = assert(bw.clip { loop = true, joints = { { joint = "root", parent = "", keys = {
    { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 1, 0, 0 } } } } } })
  r2:close()
  delta_is("works after its rig handle is closed", rm2:extract { { clip = c2, from = 0, delta = 0.5 } }, { 0.5, 0, 0, 0 })
  rm2:close()
  raises("closed RootMotion", function() rm2:extract {} end, "blendwerk.RootMotion is closed")
  check("closed tostring", tostring(rm2):find("closed", 1, true) ~= nil)
  do local c <close> = assert(bw.root_motion(rig)) end
  check("to-be-closed variable", true)
end

print(string.format("%d passed, %d failed", passed, failed))
if failed > 0 then error(failed .. " root-motion checks failed") end
