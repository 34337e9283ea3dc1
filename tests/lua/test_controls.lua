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

test("aim_defaults: the animator's limits, the ones absent fields take", function()
    -- the C definition (BW_ANIMATOR_HEAD_LIMITS) in float: 1.2f, 0.6f, 0.6f, 0.4f, 0.2f
    local d = bw.aim_defaults()
    local f = function(x) return string.unpack("f", string.pack("f", x)) end
    eq(d.yaw, f(1.2), "yaw"); eq(d.pitch, f(0.6), "pitch"); eq(d.eye_yaw, f(0.6), "eye_yaw")
    eq(d.eye_pitch, f(0.4), "eye_pitch"); eq(d.behind, f(0.2), "behind")
    local n = 0
    for _ in pairs(d) do n = n + 1 end
    eq(n, 5, "five fields")
    -- a new table each call: editing one changes nothing
    d.yaw = 0.1
    eq(bw.aim_defaults().yaw, f(1.2), "a fresh table")
    -- aim_clamp's and aim_setup's absent limits are these: yaw 2 and pitch 1.5
    -- clamp at yaw and pitch; the rest, 0.8 and 0.9, at eye_yaw and eye_pitch
    local hy, hp, ey, ep = bw.aim_clamp(2, 1.5, 0, {})
    eq(hy, f(1.2), "head yaw"); eq(hp, f(0.6), "head pitch"); eq(ey, f(0.6), "eye yaw"); eq(ep, f(0.4), "eye pitch")
    -- the behind band: 3.0 is within 0.2 of pi (0.1416) after a turn to the right: kept right
    hy = bw.aim_clamp(3.0, 0, -1, {})
    eq(hy, -f(1.2), "behind band 0.2")
    hy = bw.aim_clamp(2.9, 0, -1, {})
    eq(hy, f(1.2), "outside the band")
    local setup = bw.aim_setup(rig, { 2, 3 }, { 0.5, 0.5 })
    hy, hp, ey, ep = bw.aim_clamp(2, 1.5, 0, setup)
    eq(hy, f(1.2), "setup head yaw"); eq(hp, f(0.6), "setup head pitch")
    eq(ey, f(0.6), "setup eye yaw"); eq(ep, f(0.4), "setup eye pitch")
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

-- blendwerk.aim_setup: the chain, weights and limits checked once; the
-- helpers given a setup give the numbers of their table forms, and
-- blendwerk.aim is aim_angles + aim_clamp + aim_chain in one call.
test("aim_setup: the setup forms and aim give the table forms' numbers", function()
    local setup = bw.aim_setup(rig, { 2, 3 }, { 0.5, 0.5 }, { yaw = 1.2, pitch = 0.6, eye_yaw = 0.6, eye_pitch = 0.4 })
    check(tostring(setup):find("blendwerk.AimSetup (2 joints, head 3)", 1, true), tostring(setup))
    eq(getmetatable(setup), "an AimSetup is immutable", "the metatable is hidden")
    -- the head is b, at model (0, 1, 1): the body 4 m along +Z, facing +Z,
    -- puts it at world (0, 1, 5); the target (0, 2, 6) is 1 m ahead and 1 m up
    local p = rig:rest_pose()
    local yaw, pitch = bw.aim_angles(p, setup, { 0, 0, 4 }, 0, { 0, 2, 6 })
    near(yaw, 0, 1e-6); near(pitch, math.pi / 4, 1e-6)
    local hy, hp, ey, ep = bw.aim_clamp(-math.pi / 2, math.atan(1, 5), 0, setup)
    near(hy, -1.2, 1e-6); near(ey, -(math.pi / 2 - 1.2), 1e-6); near(hp, math.atan(1, 5), 1e-6); near(ep, 0, 1e-7)
    local out = {}
    eq(bw.aim_chain(p, setup, 1.0, 0, out), out, "out comes back")
    eq(out[1], 2); eq(out[6], 3)
    near(out[3], math.sin(0.25), 1e-6); near(out[5], math.cos(0.25), 1e-6)
    near(out[8], math.sin(0.25), 1e-6); near(out[10], math.cos(0.25), 1e-6)
    -- aim: pitch pi/4 clamps to 0.6, the eyes take pi/4 - 0.6 (under 0.4);
    -- each joint turns by half the pitch, -0.3 rad about X (pitch up is a
    -- negative turn about X); b's parent frame turned about the same axis,
    -- so its local turn is the same: (-sin 0.15, 0, 0, cos 0.15) for both
    local q = rig:rest_pose()
    hy, hp, ey, ep = bw.aim(q, setup, { 0, 0, 4 }, 0, { 0, 2, 6 }, 0)
    near(hy, 0, 1e-6); near(hp, 0.6, 1e-6); near(ey, 0, 1e-6); near(ep, math.pi / 4 - 0.6, 1e-6)
    for j = 2, 3 do
        local x, y, z, w = q:r(j)
        near(x, -math.sin(0.15), 1e-6); near(y, 0, 1e-7); near(z, 0, 1e-7); near(w, math.cos(0.15), 1e-6)
    end
    -- the three calls on a fresh pose: the same rotations
    local r3 = rig:rest_pose()
    local ry, rp = bw.aim_angles(r3, 3, { 0, 0, 4 }, 0, { 0, 2, 6 })
    local cy, cp = bw.aim_clamp(ry, rp, 0, { yaw = 1.2, pitch = 0.6, eye_yaw = 0.6, eye_pitch = 0.4 })
    bw.aim_chain(r3, { 2, 3 }, { 0.5, 0.5 }, cy, cp)
    local a, b = q:rotations({ 2, 3 }, {}), r3:rotations({ 2, 3 }, {})
    for i = 1, 8 do near(a[i], b[i], 1e-7, "rotation " .. i) end
    -- absent limits are the animator's defaults
    hy, hp, ey, ep = bw.aim_clamp(2, 1, 0, bw.aim_setup(rig, { 3 }, { 1 }))
    near(hy, 1.2, 1e-6); near(hp, 0.6, 1e-6); near(ey, 0.6, 1e-6); near(ep, 0.4, 1e-6)
end)

test("aim_setup checks once and names what is wrong", function()
    raises(function() bw.aim_setup(rig, { 4 }, { 1 }) end, "joints[1] is not a joint index in [1, 3]")
    raises(function() bw.aim_setup(rig, {}, {}) end, "at least one joint expected")
    raises(function() bw.aim_setup(rig, { 2 }, { 0 / 0 }) end, "weights[1] is NaN")
    raises(function() bw.aim_setup(rig, { 2 }, { 1, 1 }) end, "one weight per joint")
    raises(function() bw.aim_setup(rig, { 2 }, { 1 }, { behind = -1 }) end, "limits.behind must be >= 0")
    raises(function() bw.aim_setup({}, { 2 }, { 1 }) end, "blendwerk.Rig expected")
    local p = rig:rest_pose()
    raises(function() bw.aim(p, { 2 }, { 0, 0, 0 }, 0, { 0, 0, 1 }, 0) end, "#2", "blendwerk.AimSetup expected")
    local setup = bw.aim_setup(rig, { 2, 3 }, { 0.5, 0.5 })
    raises(function() bw.aim(p, setup, { 0, 0, 0 }, 0, { 0, 0, 1 }, 0 / 0) end, "#6", "last_yaw is NaN")
    raises(function() bw.aim(p, setup, { 0, 0, 0 }, 0, { 0, 0 / 0, 1 }, 0) end, "#5", "target[2] is NaN")
    -- a setup made for a bigger rig, used on a smaller rig's pose
    local small = assert(bw.rig { joints = { { name = "root" } } }):rest_pose()
    raises(function() bw.aim_chain(small, setup, 0, 0) end, "the AimSetup's joint 3 is not in [1, 1]")
    raises(function() bw.aim_angles(small, setup, { 0, 0, 0 }, 0, { 0, 0, 1 }) end, "joint 3 is not in [1, 1]")
    raises(function() bw.aim(small, setup, { 0, 0, 0 }, 0, { 0, 0, 1 }, 0) end, "joint 3 is not in [1, 1]")
end)

-- scripts/envelope.lua as a gesture's envelope: the same weights as the
-- animator's default envelope with the same fades and curve. The clip
-- moves head x from 0 to 1 over 1 s, so head x = weight * t.
test("envelope.new shapes a gesture as the default envelope does", function()
    local env = dofile("scripts/envelope.lua")
    local r = assert(bw.rig { joints = { { name = "root" }, { name = "head", parent = "root" } } })
    local wave = assert(bw.clip { name = "wave", length = 1, joints = { { joint = "head", parent = "root",
        keys = { { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 1, 0, 0 } } } } } })
    local desc = { rig = r, clips = { wave = wave }, gestures = { "wave" }, blink = false, head = { disabled = true } }
    local a, b = assert(bw.animator(desc)), assert(bw.animator(desc))
    assert(a:gesture("wave", { duration = 1, fade_in = 0.25, fade_out = 0.5, curve = "sine" }))
    assert(b:gesture("wave", { duration = 1, envelope = env.new { fade_in = 0.25, fade_out = 0.5, curve = "sine" } }))
    for step = 1, 7 do
        a:update(0.125, {}); b:update(0.125, {})
        local t = step * 0.125
        near((b:pose():t("head")), (a:pose():t("head")), 1e-6, "head x at " .. t)
        -- by hand at t = 0.125: u_in = 0.5, sine in_out(0.5) = 0.5: x = 0.0625;
        -- t = 0.75: u_out = 0.5 -> 0.5 * 0.75; t = 0.875: u_out = 0.25 ->
        -- (1 - cos(pi/4)) / 2 * 0.875
        if step == 1 then near((b:pose():t("head")), 0.0625, 1e-6, "x at 0.125") end
        if step == 6 then near((b:pose():t("head")), 0.375, 1e-6, "x at 0.75") end
        if step == 7 then near((b:pose():t("head")), (1 - math.cos(math.pi / 4)) / 2 * 0.875, 1e-6, "x at 0.875") end
    end
    -- a user-written envelope through custom(): 2t clamped to [0, 1]
    local c = assert(bw.animator(desc))
    assert(c:gesture("wave", { duration = 1, envelope = env.custom(function(t) return 2 * t end) }))
    c:update(0.25, {})
    near((c:pose():t("head")), 0.5 * 0.25, 1e-6, "custom at 0.25")
    c:update(0.5, {})
    near((c:pose():t("head")), 1 * 0.75, 1e-6, "custom clamped at 0.75")
end)

-- blendwerk.controls: the runner from Lua. head_aim.lua over the humanoid
-- gives the Lua animator's head aim (both use procedural.h) while the body
-- turns; blink.lua's channel follows the animator's blink for the same seed.
test("blendwerk.controls runs head_aim.lua and blink.lua as the animator does", function()
    local rig = dofile("scripts/humanoid.lua").rig
    local c = assert(bw.controls { rig = rig, dir = "scripts", characters = 2 })
    eq(c:load("head_aim.lua"), 1, "index"); eq(c:load("blink.lua", "{ seed = 9, interval_min = 0.2, interval_max = 0.4 }"), 2)
    eq(c:count(), 2, "count")
    local a = assert(bw.animator { rig = rig, clips = {}, blink = { seed = 9, interval_min = 0.2, interval_max = 0.4 } })
    local pose = rig:pose()
    local target = { 0.5, 1.7, 3 }
    for k = 0, 360, 5 do
        local yaw = math.rad(k)
        a:update(1 / 60, { yaw = yaw, look_at = target })
        pose:set_rest()
        eq(c:run(1, pose, { position = { 0, 0, 0 }, yaw = yaw, target = target }, 1 / 60), 0, "failures")
        local gaze, want = c:read(1, "gaze"), a:gaze()
        near(gaze[1], want.pitch_l, 1e-5, "pitch_l"); near(gaze[2], want.yaw_l, 1e-5, "yaw_l")
        near(gaze[4], want.yaw_r, 1e-5, "yaw_r")
        local head = rig:find("head")
        local x, y, z, w = pose:r(head)
        local ax, ay, az, aw = a:pose():r(head)
        near(x, ax, 1e-5); near(y, ay, 1e-5); near(z, az, 1e-5); near(w, aw, 1e-5)
        near(c:read(1, "arkit")[1], a:expression()[1], 1e-5, "eyeBlinkLeft")
        local o = c:overrides(1, pose)
        eq(#o, 3, "three overrides"); eq(o[3].joint, head, "the head last")
        near(o[3].r[4], w, 0, "the pose's rotation")
    end
    -- the second character ran nothing yet: its ctx is untouched
    eq(c:read(2, "gaze")[2], 0, "character 2")
    local status = c:reload("head_aim.lua")
    eq(status, "done", "reload")
    local n, msg = c:load("missing.lua")
    eq(n, nil); check(tostring(msg):find("missing.lua", 1, true), msg)
    h.raises(function() c:run(3, pose) end, "character 3 is not in [1, 2]")
    local other = assert(bw.rig { joints = { { name = "root" } } })
    h.raises(function() c:run(1, other:pose()) end, "another rig")
    h.raises(function() c:run(1, pose, { yaw = 0 / 0 }) end, "input.yaw is NaN")
    h.raises(function() c:run(1, pose, { target = { 0, "x", 0 } }) end, "input.target[2] is not a number")
    c:close()
    h.raises(function() c:count() end, "closed")
    h.raises(function() c:close() end, "blendwerk.Controls is closed")
    eq(tostring(c):match("^blendwerk.Controls: "), "blendwerk.Controls: ") -- Lua's default text (no __tostring)
end)

test("blendwerk.controls refuses bad descriptions", function()
    local rig = assert(bw.rig { joints = { { name = "root" } } })
    h.raises(function() bw.controls { dir = "scripts" } end, "rig: a blendwerk.Rig expected")
    h.raises(function() bw.controls { rig = rig } end, "dir: the scripts' folder expected")
    h.raises(function() bw.controls { rig = rig, dir = "scripts", characters = 0 } end, "characters must be")
    h.raises(function() bw.controls { rig = rig, dir = "scripts", charcters = 2 } end, "unknown field 'charcters'")
end)

finish()
