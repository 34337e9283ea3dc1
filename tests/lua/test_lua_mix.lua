-- test_lua_mix.lua - blendwerk.mix from Lua: the per-joint priority mixer
-- of SPEC §5 with hand-derived results (50/50 means, rank overlays, thin
-- weights filled from the rest pose, the quaternion hemisphere), and its
-- argument checking.
local bw = blendwerk or require("blendwerk")
-- the shared harness beside this file: test, check, eq, near, raises, fails, finish
local h = dofile((arg[0]:match("^(.*[/\\])") or "./") .. "harness.lua")
local test, check, eq, near, raises, fails, finish = h.test, h.check, h.eq, h.near, h.raises, h.fails, h.finish

local rig = assert(bw.rig { joints = { { name = "hips", t = { 0, 1, 0 } }, { name = "arm", parent = "hips", t = { 1, 0, 0 } } } })

-- a pose covering only the hips with translation t and rotation r
local function hips_pose(t, r, coverage)
    local p = rig:pose()
    p:set("hips", { t = t, r = r or { 0, 0, 0, 1 }, coverage = coverage or 1 })
    return p
end

test("a 50/50 mix of two full poses is their mean", function()
    local a, b = hips_pose { 2, 0, 0 }, hips_pose { 0, 0, 4 }
    local m = bw.mix { { a, 0.5 }, { b, 0.5 } }
    -- (0.5 * (2,0,0) + 0.5 * (0,0,4)) / 1 = (1, 0, 2), full coverage
    local x, y, z = m:t("hips")
    near(x, 1, 1e-6, "x"); near(y, 0, 1e-6, "y"); near(z, 2, 1e-6, "z")
    near(m:coverage("hips"), 1, 0, "coverage")
    -- the arm nobody covers passes through from the rig's rest values
    near(m:t("arm"), 1, 0, "arm rest"); near(m:coverage("arm"), 1, 0, "rest coverage")
    -- named fields work the same; unequal weights: (0.25 * (2,0,0) + 0.75 * (0,0,4)) / 1 = (0.5, 0, 3)
    local n = bw.mix { { pose = a, weight = 0.25 }, { pose = b, weight = 0.75 } }
    near(n:t("hips"), 0.5, 1e-6, "weighted x"); near(select(3, n:t("hips")), 3, 1e-6, "weighted z")
    -- a share is clamp(weight * coverage, 0, 1): weight 3 counts as 1, so 1 vs 3 is still 50/50
    local c = bw.mix { { pose = a, weight = 1 }, { pose = b, weight = 3 } }
    near(c:t("hips"), 1, 1e-6, "clamped x"); near(select(3, c:t("hips")), 2, 1e-6, "clamped z")
end)

test("a 50/50 rotation mix is the halfway rotation", function()
    local s = math.sqrt(0.5)
    local a = hips_pose({ 0, 1, 0 }, { 0, 0, 0, 1 })
    local b = hips_pose({ 0, 1, 0 }, { 0, s, 0, s }) -- 90 deg about +Y
    local x, y, z, w = bw.mix({ { a, 0.5 }, { b, 0.5 } }):r("hips")
    -- normalize((0,0,0,1) + (0,s,0,s)) = 45 deg about +Y = (0, sin 22.5, 0, cos 22.5)
    near(y, 0.38268343, 1e-5, "y"); near(w, 0.92387953, 1e-5, "w"); near(x, 0, 1e-6, "x"); near(z, 0, 1e-6, "z")
end)

test("q and -q never cancel (hemisphere alignment)", function()
    local a = hips_pose({ 0, 1, 0 }, { 0, 0, 0, 1 })
    local b = hips_pose({ 0, 1, 0 }, { 0, 0, 0, -1 })
    for _, wa in ipairs { 0.5, 0.1, 0.9 } do
        local x, y, z, w = bw.mix({ { a, wa }, { b, 1 - wa } }):r("hips")
        near(math.abs(w), 1, 1e-6, "|w| at " .. wa); near(x, 0, 1e-6, "x"); near(y, 0, 1e-6, "y"); near(z, 0, 1e-6, "z")
    end
end)

test("ranks overlay by coverage; thin weights leave the rest", function()
    local a, b = hips_pose { 2, 0, 0 }, hips_pose { 0, 0, 4 }
    -- rank 0: a fully (x = 2); rank 1: b at 0.25: lerp((2,0,0), (0,0,4), 0.25) = (1.5, 0, 1)
    local m = bw.mix { { a, 1, 0 }, { b, 0.25, 1 } }
    local x, y, z = m:t("hips")
    near(x, 1.5, 1e-6, "x"); near(y, 0, 1e-6, "y"); near(z, 1, 1e-6, "z")
    -- the list order inside the call does not matter
    local m2 = bw.mix { { pose = b, weight = 0.25, priority = 1 }, { pose = a, weight = 1, priority = 0 } }
    near(m2:t("hips"), 1.5, 1e-6, "order independent")
    -- one contribution at weight 0.25 over the rest (0,1,0): 0.25 of the way to (0,0,4)
    x, y, z = bw.mix({ { b, 0.25 } }):t("hips")
    near(x, 0, 1e-6, "thin x"); near(y, 0.75, 1e-6, "thin y"); near(z, 1, 1e-6, "thin z")
    -- a partially covered pose: share = weight * coverage = 1 * 0.5
    near(select(3, bw.mix({ hips_pose({ 0, 1, 4 }, nil, 0.5) }):t("hips")), 2, 1e-6, "coverage 0.5")
end)

test("explicit base and output poses", function()
    local base = hips_pose { 10, 0, 0 }
    local b = hips_pose { 0, 0, 0 }
    local out = rig:pose()
    local m = bw.mix({ { b, 0.5 } }, base, out)
    eq(m, out, "the output pose is returned")
    near(out:t("hips"), 5, 1e-6, "halfway from the base")
    -- a pose with coverage 0 everywhere as base and no contributions: the base
    near(bw.mix({}, base):t("hips"), 10, 0, "empty list keeps the base")
end)

test("non-finite weights contribute nothing, never NaN", function()
    local b = hips_pose { 0, 0, 4 }
    for _, w in ipairs { 0 / 0, 1 / 0, -1 / 0, -2, 0 } do
        local x, y, z = bw.mix({ { b, w } }):t("hips")
        near(x, 0, 0, "x for " .. tostring(w)); near(y, 1, 0, "y (rest)"); near(z, 0, 0, "z")
    end
    -- a weight far beyond float range clamps to full weight
    near(select(3, bw.mix({ { b, 1e300 } }):t("hips")), 4, 1e-6, "huge weight")
end)

test("misuse raises errors naming the argument", function()
    local a = hips_pose { 1, 0, 0 }
    local other = assert(bw.rig { joints = { { name = "hips" } } })
    raises(function() bw.mix(a) end, "bad argument #1 to 'mix'", "table expected")
    raises(function() bw.mix { 5 } end, "bad argument #1 to 'mix'", "entry 1: Pose expected")
    raises(function() bw.mix { { a, "x" } } end, "bad argument #1 to 'mix'", "entry 1: weight must be a number")
    raises(function() bw.mix { { a, 1, 0.5 } } end, "bad argument #1 to 'mix'", "entry 1: priority must be an integer")
    raises(function() bw.mix { a, other:pose() } end, "bad argument #1 to 'mix'", "entry 2: pose belongs to another rig")
    raises(function() bw.mix {} end, "bad argument #1 to 'mix'", "no contributions and no base pose")
    raises(function() bw.mix({ a }, other:pose()) end, "bad argument #1 to 'mix'", "another rig")
    raises(function() bw.mix({ a }, nil, a) end, "bad argument #3 to 'mix'", "also a contribution")
    raises(function() bw.mix({ a }, 5) end, "bad argument #2 to 'mix'", "blendwerk.Pose expected")
end)

test("angle curves mix along the shortest arc", function()
    -- a rig with an angle curve (rest 0) and a float one: 350 deg and 10 deg
    -- at 50/50 over the rest. The mixer knows the rig's curve kinds, so each
    -- angle is unwrapped to within pi of the covered running value 0:
    -- -10 deg and +10 deg, mean 0 rad exactly (not 2 pi, and not the 180 deg
    -- a float mean of 6.1087 and 0.1745 gives, which the float curve shows).
    local arig = assert(bw.rig { joints = { { name = "hips" } },
        curves = { { name = "yaw", angle = true }, { name = "plain" } } })
    local a, b = arig:pose(), arig:pose()
    a:set_curve("yaw", math.rad(350)); b:set_curve("yaw", math.rad(10))
    a:set_curve("plain", math.rad(350)); b:set_curve("plain", math.rad(10))
    local m = bw.mix { { a, 0.5 }, { b, 0.5 } }
    local yaw, cov = m:curve("yaw")
    near(yaw, 0, 1e-6, "yaw 0 rad"); near(cov, 1, 0, "yaw coverage")
    near(m:curve("plain"), math.rad(180), 1e-5, "a float curve takes the plain mean")
end)

finish()
