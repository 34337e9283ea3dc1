-- test_lua_asset.lua - blendwerk.load from Lua on the shared assets (skips
-- with 77 when BW_ASSET_DIR is missing). Expected values were read from the
-- files themselves (decoded independently with Python's json/struct and by
-- reading the BVH text), not produced by the loaders.
local bw = blendwerk or require("blendwerk")
-- the shared harness beside this file: test, check, eq, near, raises, fails, finish
local h = dofile((arg[0]:match("^(.*[/\\])") or "./") .. "harness.lua")
local test, check, eq, near, raises, fails, finish = h.test, h.check, h.eq, h.near, h.raises, h.fails, h.finish

local dir = os.getenv("BW_ASSET_DIR")
local probe = dir and io.open(dir .. "/SimpleSkin.gltf", "r")
if not probe then
    print("skip: shared assets not found (BW_ASSET_DIR)")
    os.exit(77, true)
end
probe:close()

test("SimpleSkin.gltf: rig, clip and sampled keys", function()
    local asset = assert(bw.load(dir .. "/SimpleSkin.gltf"))
    eq(asset:kind(), "gltf", "kind"); eq(asset:clip_count(), 1, "one animation")
    local rig = asset:rig()
    eq(rig:joint_count(), 2, "skin joints 1 and 2")
    eq(rig:joint_parent(2), 1, "node 2 is node 1's child")
    near(rig:rest(1).t[2], 1, 0, "node 1 translation (0, 1, 0)")
    local clip = asset:clip(1)
    eq(asset:clip("#0"), clip, "clip by \"#0\""); eq(asset:clip(2), nil, "no second clip")
    near(clip:length(), 5.5, 1e-6, "last input time 5.5")
    -- the rotation keys of node 2 are (0,0,0,1) at 0 s, (0,0,0.383,0.924)
    -- at 0.5 s and (0,0,0.707,0.707) at 1 s (LINEAR); at a key the
    -- normalized key value comes back
    local x, y, z, w = clip:sample(rig, 1.0):r(2)
    near(z, 0.70710678, 1e-5, "z at 1 s"); near(w, 0.70710678, 1e-5, "w at 1 s")
    -- halfway between 0 and 0.5 s: slerp to half of key 1's 45.03 deg about
    -- Z, i.e. (0, 0, sin(45.03/4 deg), cos(45.03/4 deg)) = (0, 0, 0.19521, 0.98076)
    x, y, z, w = clip:sample(rig, 0.25):r(2)
    near(z, 0.19521, 1e-4, "z at 0.25 s"); near(w, 0.98076, 1e-4, "w at 0.25 s")
    near(x, 0, 1e-6, "x"); near(y, 0, 1e-6, "y")
    local r = clip:bind(rig):report()
    eq(r.unbound, 0, "every track binds to the asset's own rig")
    -- asset:rig() and asset:clip() are borrowed: closing them leaves them open
    do local rr <close> = asset:rig(); local cc <close> = asset:clip(1) end
    rig:close(); clip:close()
    check(rawequal(asset:rig(), rig) and rawequal(asset:clip(1), clip), "the same handles after close()")
    eq(rig:joint_count(), 2, "the rig still open"); near(clip:length(), 5.5, 1e-6, "the clip still open")
end)

test("Fox.glb: 24 joints and three named clips", function()
    local asset = assert(bw.load(dir .. "/Fox.glb"))
    eq(asset:rig():joint_count(), 24, "skin joints")
    local names = {}
    for i, c in ipairs(asset:clips()) do names[i] = c:name() end
    eq(table.concat(names, ","), "Survey,Walk,Run", "clip names in file order")
    near(asset:clip("Walk"):length(), 0.70833331, 1e-6, "Walk length")
    eq(asset:clip("Trot"), nil, "missing clip name")
    -- a clip of the file plays on its rig
    local set = bw.track_set(asset:rig())
    assert(set:play(asset:clip("Run")))
    set:update(1 / 60)
    local pose = set:pose()
    for j = 1, pose:joint_count() do
        local px, py, pz = pose:t(j)
        check(px == px and py == py and pz == pz, "no NaN in joint " .. j)
    end
end)

test("cmu_01_01.bvh: hierarchy, frames and the first frame", function()
    local asset = assert(bw.load(dir .. "/cmu_01_01.bvh"))
    eq(asset:kind(), "bvh", "kind")
    local rig = asset:rig()
    eq(rig:joint_count(), 31, "ROOT + JOINT lines")
    eq(rig:joint_name(1), "Hips", "root")
    eq(asset:frame_count(), 2752, "Frames: 2752"); near(asset:frame_time(), 0.0083333, 1e-7, "Frame Time")
    local leg = rig:find("LeftUpLeg")
    local t = rig:rest(leg).t
    near(t[1], 1.36306, 1e-5, "OFFSET x"); near(t[2], -1.79463, 1e-5, "OFFSET y"); near(t[3], 0.83929, 1e-5, "OFFSET z")
    -- frame 0 starts "9.3722 17.8693 -17.3198 0 0 0": hips position, no rotation
    local hx, hy, hz = asset:clip(1):sample(rig, 0):t("Hips")
    near(hx, 9.3722, 1e-4, "hips x"); near(hy, 17.8693, 1e-4, "hips y"); near(hz, -17.3198, 1e-4, "hips z")
    near(select(4, asset:clip(1):sample(rig, 0):r("Hips")), 1, 1e-6, "hips w")
end)

test("a file that is not what its name says: nil, message", function()
    fails({ "Fox.glb.missing" }, bw.load(dir .. "/Fox.glb.missing"))
    fails({ "CREDITS.md" }, bw.load(dir .. "/CREDITS.md"))
    -- a size limit below the file's size is an expected failure too
    fails({ "Fox.glb" }, bw.load(dir .. "/Fox.glb", { max_bytes = 1000 }))
end)

finish()
