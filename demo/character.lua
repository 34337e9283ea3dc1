-- character.lua - the demo's default character: a 20-joint stick figure,
-- three clips and the scene that plays them. blendwerk-demo runs this file
-- in a sandbox and reloads it whenever it is saved (docs/demo.md).
--
-- The script returns { rig = Rig, clips = { Clip, ... }, scene = { ... } }.
-- The order of `clips` is the order of the keys 1..9 in the demo.
--
-- Conventions: Y is up, the figure faces +Z, so its left side is +X.
-- Angles below are degrees; a clip key's `r` is the joint's whole local
-- rotation (not an offset from the rest pose).

local bw = blendwerk

-- With --asset PATH the demo shows that file's rig and clips instead.
if demo and demo.asset then
    local asset = assert(bw.load(demo.asset))
    return {
        rig = asset:rig(),
        clips = asset:clips(),
        scene = { play = { { clip = 1 } }, view = { yaw = 60, pitch = 10 } },
    }
end

-- ---- rotations ----

local function axis_angle(x, y, z, degrees)
    local h = math.rad(degrees) / 2
    local s = math.sin(h)
    return { x * s, y * s, z * s, math.cos(h) }
end
local function rx(d) return axis_angle(1, 0, 0, d) end -- +: the limb swings back, the trunk leans forward
local function ry(d) return axis_angle(0, 1, 0, d) end -- +: turns left (+X goes back)
local function rz(d) return axis_angle(0, 0, 1, d) end -- +: a hanging limb swings toward +X (left)

-- Quaternion product a * b: rotate by b, then by a.
local function mul(a, b)
    local ax, ay, az, aw = a[1], a[2], a[3], a[4]
    local bx, by, bz, bw_ = b[1], b[2], b[3], b[4]
    return {
        aw * bx + ax * bw_ + ay * bz - az * by,
        aw * by - ax * bz + ay * bw_ + az * bx,
        aw * bz + ax * by - ay * bx + az * bw_,
        aw * bw_ - ax * bx - ay * by - az * bz,
    }
end

-- ---- the rig: 20 joints, parents first, rest pose standing with arms down ----

local ARM_SPREAD = 8 -- degrees the arms hang away from the body

local rig = assert(bw.rig {
    joints = {
        { name = "hips",        t = { 0, 0.95, 0 } },
        { name = "spine",       parent = "hips",        t = { 0, 0.12, 0 } },
        { name = "chest",       parent = "spine",       t = { 0, 0.20, 0 } },
        { name = "neck",        parent = "chest",       t = { 0, 0.20, 0 } },
        { name = "head",        parent = "neck",        t = { 0, 0.08, 0.01 } },
        { name = "head_end",    parent = "head",        t = { 0, 0.21, 0 } },
        { name = "upper_arm_l", parent = "chest",       t = { 0.19, 0.16, 0 }, r = rz(ARM_SPREAD) },
        { name = "forearm_l",   parent = "upper_arm_l", t = { 0, -0.28, 0 } },
        { name = "hand_l",      parent = "forearm_l",   t = { 0, -0.26, 0 } },
        { name = "upper_arm_r", parent = "chest",       t = { -0.19, 0.16, 0 }, r = rz(-ARM_SPREAD) },
        { name = "forearm_r",   parent = "upper_arm_r", t = { 0, -0.28, 0 } },
        { name = "hand_r",      parent = "forearm_r",   t = { 0, -0.26, 0 } },
        { name = "thigh_l",     parent = "hips",        t = { 0.10, -0.04, 0 } },
        { name = "shin_l",      parent = "thigh_l",     t = { 0, -0.43, 0 } },
        { name = "foot_l",      parent = "shin_l",      t = { 0, -0.42, 0 } },
        { name = "toe_l",       parent = "foot_l",      t = { 0, -0.06, 0.15 } },
        { name = "thigh_r",     parent = "hips",        t = { -0.10, -0.04, 0 } },
        { name = "shin_r",      parent = "thigh_r",     t = { 0, -0.43, 0 } },
        { name = "foot_r",      parent = "shin_r",      t = { 0, -0.42, 0 } },
        { name = "toe_r",       parent = "foot_r",      t = { 0, -0.06, 0.15 } },
    },
})

-- ---- clips ----

-- A track of rotation keys: times and angles (degrees) through `rot`,
-- every segment eased with `ease`/`dir`.
local function rot_track(joint, parent, times, angles, rot, ease, dir)
    local keys = {}
    for i, time in ipairs(times) do
        keys[i] = { time = time, r = rot(angles[i]), ease = ease, dir = dir }
    end
    return { joint = joint, parent = parent, keys = keys }
end

-- Walk: one 1 s cycle, two steps. Keys at the contacts (0, 0.5) and the
-- passing poses (0.25, 0.75); the first key repeats at 1.0 so the loop
-- closes without a pop. foot_down_l / foot_down_r mark the heel strikes.
local STEP = { 0, 0.25, 0.5, 0.75, 1.0 }
local function left_arm(a) return mul(rz(ARM_SPREAD), rx(a)) end
local function right_arm(a) return mul(rz(-ARM_SPREAD), rx(a)) end

local walk = assert(bw.clip {
    name = "walk", length = 1.0, loop = true,
    joints = {
        { joint = "hips", parent = false, keys = {
            { time = 0.00, t = { 0, 0.915, 0 }, r = ry(-5) },
            { time = 0.25, t = { 0, 0.955, 0 }, r = ry(0),  ease = "sine", dir = "in_out" },
            { time = 0.50, t = { 0, 0.915, 0 }, r = ry(5),  ease = "sine", dir = "in_out" },
            { time = 0.75, t = { 0, 0.955, 0 }, r = ry(0),  ease = "sine", dir = "in_out" },
            { time = 1.00, t = { 0, 0.915, 0 }, r = ry(-5), ease = "sine", dir = "in_out" },
        } },
        { joint = "spine", parent = "hips", keys = { { time = 0, r = rx(5) } } },
        rot_track("chest", "spine", STEP, { 8, 0, -8, 0, 8 }, ry, "sine", "in_out"),
        { joint = "neck", parent = "chest", keys = { { time = 0, r = rx(-4) } } },
        rot_track("thigh_l", "hips", STEP, { -22, 0, 20, -18, -22 }, rx, "sine", "in_out"),
        rot_track("shin_l", "thigh_l", STEP, { 4, 4, 20, 60, 4 }, rx, "sine", "in_out"),
        rot_track("foot_l", "shin_l", STEP, { -10, 0, 18, -8, -10 }, rx, "sine", "in_out"),
        rot_track("thigh_r", "hips", STEP, { 20, -18, -22, 0, 20 }, rx, "sine", "in_out"),
        rot_track("shin_r", "thigh_r", STEP, { 20, 60, 4, 4, 20 }, rx, "sine", "in_out"),
        rot_track("foot_r", "shin_r", STEP, { 18, -8, -10, 0, 18 }, rx, "sine", "in_out"),
        rot_track("upper_arm_l", "chest", STEP, { 20, 0, -20, 0, 20 }, left_arm, "sine", "in_out"),
        rot_track("forearm_l", "upper_arm_l", STEP, { -12, -20, -30, -20, -12 }, rx, "sine", "in_out"),
        rot_track("upper_arm_r", "chest", STEP, { -20, 0, 20, 0, -20 }, right_arm, "sine", "in_out"),
        rot_track("forearm_r", "upper_arm_r", STEP, { -30, -20, -12, -20, -30 }, rx, "sine", "in_out"),
    },
    markers = {
        { name = "foot_down_l", time = 0.0 },
        { name = "foot_down_r", time = 0.5 },
    },
})

-- Idle: slow breathing over 3 s. The chest rises and leans back a little
-- on the in-breath, the shoulders lift, the head settles.
local BREATH = { 0, 1.5, 3.0 }
local idle = assert(bw.clip {
    name = "idle", length = 3.0, loop = true,
    joints = {
        { joint = "hips", parent = false, keys = {
            { time = 0.0, t = { 0, 0.94, 0 } },
            { time = 1.5, t = { 0, 0.935, 0 }, ease = "sine", dir = "in_out" },
            { time = 3.0, t = { 0, 0.94, 0 }, ease = "sine", dir = "in_out" },
        } },
        { joint = "chest", parent = "spine", keys = {
            { time = 0.0, t = { 0, 0.20, 0 }, r = rx(1) },
            { time = 1.5, t = { 0, 0.212, 0 }, r = rx(-3), ease = "sine", dir = "in_out" },
            { time = 3.0, t = { 0, 0.20, 0 }, r = rx(1), ease = "sine", dir = "in_out" },
        } },
        rot_track("head", "neck", BREATH, { 3, -2, 3 }, rx, "sine", "in_out"),
        rot_track("upper_arm_l", "chest", BREATH, { ARM_SPREAD - 2, ARM_SPREAD + 3, ARM_SPREAD - 2 }, rz, "sine", "in_out"),
        rot_track("upper_arm_r", "chest", BREATH, { 2 - ARM_SPREAD, -3 - ARM_SPREAD, 2 - ARM_SPREAD }, rz, "sine", "in_out"),
        { joint = "forearm_l", parent = "upper_arm_l", keys = { { time = 0, r = rx(-10) } } },
        { joint = "forearm_r", parent = "upper_arm_r", keys = { { time = 0, r = rx(-10) } } },
        { joint = "thigh_l", parent = "hips", keys = { { time = 0, r = mul(rz(3), rx(-4)) } } },
        { joint = "shin_l", parent = "thigh_l", keys = { { time = 0, r = rx(8) } } },
        { joint = "foot_l", parent = "shin_l", keys = { { time = 0, r = mul(rz(-3), rx(-4)) } } },
        { joint = "thigh_r", parent = "hips", keys = { { time = 0, r = mul(rz(-3), rx(-2)) } } },
        { joint = "shin_r", parent = "thigh_r", keys = { { time = 0, r = rx(4) } } },
        { joint = "foot_r", parent = "shin_r", keys = { { time = 0, r = mul(rz(3), rx(-2)) } } },
    },
    markers = {
        { name = "inhale", time = 0.0 },
        { name = "exhale", time = 1.5 },
    },
})

-- Wave: the right arm only (plus a partial lean of the chest). The arm
-- rises with a slight overshoot (back out), the forearm waves three times
-- (sine in_out), and the arm lowers again (cubic in_out). The chest key
-- has pose weight 0.35: it covers the chest only partly, so a clip below
-- it (the walk's twist) still shows through at 65%.
local RAISED = -140 -- degrees about Z: the right arm up and out
local wave = assert(bw.clip {
    name = "wave", length = 2.4, loop = false,
    joints = {
        { joint = "upper_arm_r", parent = "chest", keys = {
            { time = 0.00, r = rz(-ARM_SPREAD) },
            { time = 0.45, r = mul(rz(RAISED), rx(-15)), ease = "back", dir = "out" },
            { time = 1.95, r = mul(rz(RAISED + 8), rx(-15)), ease = "sine", dir = "in_out" },
            { time = 2.40, r = rz(-ARM_SPREAD), ease = "cubic", dir = "in_out" },
        } },
        rot_track("forearm_r", "upper_arm_r",
            { 0.00, 0.45, 0.70, 0.95, 1.20, 1.45, 1.70, 1.95, 2.40 },
            { 0, -40, -70, -15, -70, -15, -70, -40, 0 }, rz, "sine", "in_out"),
        { joint = "chest", parent = "spine", keys = {
            { time = 0.00, r = rz(0), weight = 0.35 },
            { time = 0.45, r = rz(-7), weight = 0.35, ease = "quad", dir = "out" },
            { time = 1.95, r = rz(-7), weight = 0.35 },
            { time = 2.40, r = rz(0), weight = 0.35, ease = "quad", dir = "in_out" },
        } },
    },
    markers = {
        { name = "hello", time = 0.45 },
        { name = "lower", time = 1.95 },
    },
})

return {
    rig = rig,
    clips = { idle, walk, wave }, -- keys 1, 2, 3
    scene = {
        play = {
            { clip = "walk" },                                            -- the base, looping
            { clip = "wave", priority = 1, loop = true, fade_in = 0.3 },  -- layered over the right arm
        },
        gesture = { clip = "wave", priority = 1, fade_in = 0.2, fade_out = 0.3 }, -- space
        crossfade = 0.35,
        view = { yaw = 35, pitch = 8 },
        -- the walk covers about 1.16 m per cycle (two 0.58 m steps)
        ground_speed = { walk = 1.16 },
    },
}
