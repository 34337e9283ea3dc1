-- test_controls.lua - the Lua face of the procedural helpers and the
-- Pose batch methods (docs/lua-api.md "Procedural controls"): values
-- worked out by hand, arguments checked by name, batch writes that change
-- nothing on a bad value. The scripts and the runner are tested in C
-- (tests/test_controls.c).

local bw = rawget(_G, "blendwerk") or require("blendwerk")
local h = dofile((arg[0]:match("^(.*[/\\])") or "./") .. "harness.lua")
local test, check, eq, near, raises, finish = h.test, h.check, h.eq, h.near, h.raises, h.finish

-- root -> a (1 m up) -> b (1 m along +Z), identity rests
local rig = assert(bw.rig { joints = {
    { name = "root" }, { name = "a", parent = "root", t = { 0, 1, 0 } }, { name = "b", parent = "a", t = { 0, 0, 1 } } } })
local S = math.sqrt(0.5)

test("batch reads and writes by index", function()
    local p = rig:rest_pose()
    local joints, out = { 2, 3 }, {}
    p:set_rotations({ 2 }, { 0, 2, 0, 2 }) -- normalized: Ry(90°)
    local r = p:rotations(joints, out)
    eq(r, out, "the caller's table comes back")
    near(r[2], S, 1e-7, "a.r.y"); near(r[4], S, 1e-7, "a.r.w"); near(r[8], 1, 0, "b.r.w")
    -- b in model space: a turned 90° about Y takes (0, 0, 1) to (1, 0, 0)
    local m = p:model_positions(joints, out)
    near(m[1], 0, 1e-7); near(m[2], 1, 1e-7); near(m[3], 0, 1e-7)
    near(m[4], 1, 1e-6); near(m[5], 1, 1e-6); near(m[6], 0, 1e-6)
    local x, y, z = p:model_position(3)
    near(x, 1, 1e-6); near(y, 1, 1e-6); near(z, 0, 1e-6)
    p:set_translations({ 3 }, { 0, 0, 2 })
    local t = p:translations({ 3 })
    eq(#t, 3, "a new table when out is absent"); near(t[3], 2, 0)
    local mp = p:model_positions({ 3 }, {})
    near(mp[1], 2, 1e-6)
end)

test("a bad batch value raises naming the entry and writes nothing", function()
    local p = rig:rest_pose()
    raises(function() p:set_rotations({ 2, 3 }, { 0, 0, 0, 1, 0 / 0, 0, 0, 1 }) end, "values[5] is NaN")
    raises(function() p:set_rotations({ 2 }, { 0, 0, 0, 0 }) end, "zero rotation")
    raises(function() p:set_translations({ 2, 3 }, { 1, 1, 1, 1, 1 }) end, "values[6] is not a number")
    raises(function() p:rotations({ 4 }, {}) end, "joints[1] is not a joint index in [1, 3]")
    raises(function() p:translations({ 1.5 }) end, "joints[1]")
    local x, y, z, w = p:r(2)
    eq(w, 1, "the first joint was not written either"); local tx, ty = p:t(2); eq(ty, 1, "a.t.y")
end)

test("swing_twist, look_rotation, rotate_toward by hand", function()
    -- Rz(90°) * Ry(90°) = (-0.5, 0.5, 0.5, 0.5); about +Y: twist Ry(90°), swing Rz(90°)
    local sx, sy, sz, sw, tx, ty, tz, tw = bw.swing_twist(-0.5, 0.5, 0.5, 0.5, 0, 1, 0)
    near(sx, 0, 1e-6); near(sy, 0, 1e-6); near(sz, S, 1e-6); near(sw, S, 1e-6)
    near(tx, 0, 1e-6); near(ty, S, 1e-6); near(tz, 0, 1e-6); near(tw, S, 1e-6)
    local x, y, z, w = bw.look_rotation(-1, 0, 0) -- +Z onto -X: Ry(-90°)
    near(x, 0, 1e-6); near(y, -S, 1e-6); near(z, 0, 1e-6); near(w, S, 1e-6)
    -- identity body, target 90° to the left (+X), limit 0.5: Ry(0.5)
    x, y, z, w = bw.rotate_toward(0, 0, 0, 1, 1, 0, 0, 0.5, 0.5)
    near(y, math.sin(0.25), 1e-6); near(w, math.cos(0.25), 1e-6)
end)

test("aim_angles and aim_clamp: relative to the body, overflow, behind", function()
    -- body at the origin facing +X (yaw 90°), joint a at model (0, 1, 0),
    -- target at world (0, 2, 5): yaw atan2(0, 5) - pi/2 = -pi/2, pitch atan2(1, 5)
    local p = rig:rest_pose()
    local yaw, pitch = bw.aim_angles(p, 2, { 0, 0, 0 }, math.pi / 2, { 0, 2, 5 })
    near(yaw, -math.pi / 2, 1e-6); near(pitch, math.atan(1, 5), 1e-6)
    -- the body 4 m along +Z, facing +Z: the target 1 m ahead and 1 m above joint a
    yaw, pitch = bw.aim_angles(p, 2, { 0, 0, 4 }, 0, { 0, 2, 5 })
    near(yaw, 0, 1e-6); near(pitch, math.pi / 4, 1e-6)
    local limits = { yaw = 1.2, pitch = 0.6, eye_yaw = 0.6, eye_pitch = 0.4 }
    local hy, hp, ey, ep = bw.aim_clamp(-math.pi / 2, math.atan(1, 5), 0, limits)
    near(hy, -1.2, 1e-6); near(ey, -(math.pi / 2 - 1.2), 1e-6); near(hp, math.atan(1, 5), 1e-6); near(ep, 0, 1e-7)
    -- 3.1 rad (inside the 0.2 band behind) after turning right: stays right
    hy, hp, ey = bw.aim_clamp(3.1, 0, -1.2, limits)
    near(hy, -1.2, 1e-6); near(ey, -0.6, 1e-6)
    -- outside the band (2.9 < pi - 0.2) it follows the target
    hy = bw.aim_clamp(2.9, 0, -1.2, limits)
    near(hy, 1.2, 1e-6)
    -- a wider band keeps the side at 2.9 too; absent limits are the animator's defaults
    hy = bw.aim_clamp(2.9, 0, -1.2, { behind = 0.3 })
    near(hy, -1.2, 1e-6)
    hy, hp, ey, ep = bw.aim_clamp(2, 1, 0, {})
    near(hy, 1.2, 1e-6); near(hp, 0.6, 1e-6); near(ey, 0.6, 1e-6); near(ep, 0.4, 1e-6)
end)

test("aim_chain splits the turn and fills out with overrides", function()
    local p = rig:rest_pose()
    local out = {}
    bw.aim_chain(p, { 2, 3 }, { 0.5, 0.5 }, 1.0, 0, out)
    eq(#out, 10, "5 numbers per joint")
    eq(out[1], 2, "joint index"); eq(out[6], 3, "joint index")
    -- each turns 0.5 rad about Y; b's parent frame is already turned, Y stays Y
    near(out[3], math.sin(0.25), 1e-6); near(out[5], math.cos(0.25), 1e-6)
    near(out[8], math.sin(0.25), 1e-6); near(out[10], math.cos(0.25), 1e-6)
    local r = p:rotations({ 3 }, {})
    near(r[2], math.sin(0.25), 1e-6)
end)

test("every helper names its bad argument", function()
    local p = rig:rest_pose()
    raises(function() bw.aim_angles(p, 2, { 0, 0, 0 / 0 }, 0, { 0, 0, 1 }) end, "#3", "position[3] is NaN")
    raises(function() bw.aim_angles(p, 2, { 0, 0, 0 }, 0 / 0, { 0, 0, 1 }) end, "#4", "body_yaw is NaN")
    raises(function() bw.aim_angles(p, 2, { 0, 0, 0 }, 0, { 0, "x", 1 }) end, "#5", "target[2] is not a number")
    raises(function() bw.aim_angles(p, 7, { 0, 0, 0 }, 0, { 0, 0, 1 }) end, "#2", "joint 7 is not in [1, 3]")
    raises(function() bw.aim_angles({}, 2, { 0, 0, 0 }, 0, { 0, 0, 1 }) end, "#1", "blendwerk.Pose expected")
    raises(function() bw.aim_clamp(0, math.huge, 0, {}) end, "pitch is infinite")
    raises(function() bw.aim_clamp(0, 0, 0, { yaw = -1 }) end, "limits.yaw must be >= 0")
    raises(function() bw.aim_clamp(0, 0, 0, { eye_pitch = 0 / 0 }) end, "limits.eye_pitch is NaN")
    raises(function() bw.swing_twist(0, 0, 0, 1, 0, "y", 0) end, "ay: number expected")
    raises(function() bw.look_rotation(1, 0, 0, 0, 0 / 0, 0) end, "uy is NaN")
    raises(function() bw.rotate_toward(0, 0, 0, 1, 1, 0, 0, 1e300, 1) end, "yaw_limit is too large")
    local closed = rig:rest_pose(); closed:close()
    raises(function() bw.aim_chain(closed, { 2 }, { 1 }, 0, 0) end, "closed")
    raises(function() bw.aim_chain(p, { 2 }, { 0 / 0 }, 0, 0) end, "weights[1] is NaN")
    raises(function() bw.aim_chain(p, { 2 }, { 1, 1 }, 0, 0) end, "one weight per joint")
    raises(function() bw.aim_chain(p, { 9 }, { 1 }, 0, 0) end, "joints[1] is not a joint index")
    raises(function() bw.aim_chain(p, { 2 }, { 1 }, 0 / 0, 0) end, "yaw is NaN")
end)

finish()
