-- humanoid.lua - the built-in humanoid: a 26-joint rig with conventional
-- joint names and 18 clips authored as keyframe sequences (15 body clips and
-- 3 ARKit-52 face clips).
--
-- A character file (SPEC §12.3): a Lua chunk, run in the sandbox, that
-- builds everything with the `blendwerk` module and returns
--     { rig = Rig, clips = { Clip, ... } }
-- with unique clip names. It reads no files and no host globals, so every
-- loader of character files (the demo, `blendwerk info / sample /
-- simulate FILE.lua`, tests) can run it as is.
--
-- Conventions: metres and seconds, Y up, the character faces +Z, so its
-- left is +X. Angles below are degrees; a key's `r` is the joint's whole
-- local rotation (every rest rotation is the identity, so it is also the
-- offset from the rest pose).
--
-- Root motion: `root` is a joint on the ground under the hips. Locomotion
-- clips move it in a straight line at a constant ground speed (linear keys):
-- walk 1.5 m/s, run 4 m/s; every other clip keeps it at the origin. The
-- hips (child of root) carry the bob and sway. Extract root motion with
-- root = "root".
--
-- Markers: foot_l / foot_r at the contacts of the locomotion clips (foot_l
-- at 0, foot_r at half the cycle in every direction, so a directional blend
-- synced on them keeps the feet together); takeoff (jump_start), land
-- (jump_land), hello / lower (wave), inhale / exhale (idle, breathing).
--
-- Face: face_idle, face_talk and face_smile are looping clips of float
-- curves named by ARKit-52 blendshape names (jawOpen, mouthSmileLeft, ...)
-- for the animator's face layer (SPEC §9: face_clips); they have no joint
-- tracks. The rig has no curves, so a graph or mixer that plays them binds
-- nothing; the animator reads their curves directly. The eyes are joints
-- so head aim can hand them gaze; the blink comes from the animator.

local bw = blendwerk

-- ---- rotations ----

local function axis_angle(x, y, z, degrees)
    local h = math.rad(degrees) / 2
    local s = math.sin(h)
    return { x * s, y * s, z * s, math.cos(h) }
end
local function rx(d) return axis_angle(1, 0, 0, d) end -- +: a hanging limb swings back, an upright one leans forward
local function ry(d) return axis_angle(0, 1, 0, d) end -- +: turns left
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

-- ---- the rig: 26 joints, parents first, rest pose standing, arms down ----

local HIPS_Y = 0.96 -- hips above the ground at rest (legs straight: 0.05 + 0.42 + 0.42 + ankle 0.07)

local rig = assert(bw.rig {
    joints = {
        { name = "root" },
        { name = "hips",        parent = "root",        t = { 0, HIPS_Y, 0 } },
        { name = "spine_01",    parent = "hips",        t = { 0, 0.10, 0 } },
        { name = "spine_02",    parent = "spine_01",    t = { 0, 0.12, 0 } },
        { name = "spine_03",    parent = "spine_02",    t = { 0, 0.12, 0 } },
        { name = "neck_01",     parent = "spine_03",    t = { 0, 0.15, 0 } },
        { name = "neck_02",     parent = "neck_01",     t = { 0, 0.05, 0.005 } },
        { name = "head",        parent = "neck_02",     t = { 0, 0.05, 0.005 } },
        { name = "eye_l",       parent = "head",        t = { 0.032, 0.07, 0.08 } },
        { name = "eye_r",       parent = "head",        t = { -0.032, 0.07, 0.08 } },
        { name = "clavicle_l",  parent = "spine_03",    t = { 0.02, 0.11, 0 } },
        { name = "upperarm_l",  parent = "clavicle_l",  t = { 0.15, 0, 0 } },
        { name = "lowerarm_l",  parent = "upperarm_l",  t = { 0, -0.28, 0 } },
        { name = "hand_l",      parent = "lowerarm_l",  t = { 0, -0.25, 0 } },
        { name = "clavicle_r",  parent = "spine_03",    t = { -0.02, 0.11, 0 } },
        { name = "upperarm_r",  parent = "clavicle_r",  t = { -0.15, 0, 0 } },
        { name = "lowerarm_r",  parent = "upperarm_r",  t = { 0, -0.28, 0 } },
        { name = "hand_r",      parent = "lowerarm_r",  t = { 0, -0.25, 0 } },
        { name = "thigh_l",     parent = "hips",        t = { 0.09, -0.05, 0 } },
        { name = "calf_l",      parent = "thigh_l",     t = { 0, -0.42, 0 } },
        { name = "foot_l",      parent = "calf_l",      t = { 0, -0.42, 0 } },
        { name = "toe_l",       parent = "foot_l",      t = { 0, -0.06, 0.13 } },
        { name = "thigh_r",     parent = "hips",        t = { -0.09, -0.05, 0 } },
        { name = "calf_r",      parent = "thigh_r",     t = { 0, -0.42, 0 } },
        { name = "foot_r",      parent = "calf_r",      t = { 0, -0.42, 0 } },
        { name = "toe_r",       parent = "foot_r",      t = { 0, -0.06, 0.13 } },
    },
})

local PARENT = {}
for i = 1, rig:joint_count() do
    local p = rig:joint_parent(i)
    PARENT[rig:joint_name(i)] = p and rig:joint_name(p) or false
end

-- ---- key helpers ----

-- A track of `joint` with one key per entry of `times`: key i gets
-- rot(values[i]) as its rotation (rot may return nil for no rotation) and
-- t(values[i]) as its translation when `trans` is given; every segment is
-- eased with ease / dir (default sine in_out: limbs slow at the extremes).
local function track(joint, times, values, rot, trans, ease, dir)
    local keys = {}
    for i, time in ipairs(times) do
        keys[i] = { time = time, r = rot and rot(values[i]) or nil, t = trans and trans(values[i]) or nil,
                    ease = ease or "sine", dir = dir or "in_out" }
    end
    return { joint = joint, parent = PARENT[joint], keys = keys }
end

-- Scale a list of key times by a clip length.
local function at(fractions, length)
    local out = {}
    for i, f in ipairs(fractions) do out[i] = f * length end
    return out
end

-- The arms hang slightly away from the body; swing is about X.
local SPREAD = 5
local function arm_l(a) return mul(rz(SPREAD), rx(a)) end
local function arm_r(a) return mul(rz(-SPREAD), rx(a)) end

-- ---- locomotion: one generator, eight clips ----

-- A gait cycle has two steps and five keys at 0, 1/4, 1/2, 3/4, 1 of the
-- cycle: left contact, passing, right contact, passing, left contact again
-- (the last key repeats the first, so the loop closes without a pop).
-- Values are degrees per key, written for walking forward; the directions
-- derive from them (see `direction` below).
local CYCLE = { 0, 0.25, 0.5, 0.75, 1 }

local WALK = {
    length = 1.0, speed = 1.5, bob = { -0.03, 0.01 }, lean = 4, yaw = 5,
    thigh_l = { -22, 0, 20, -10, -22 }, thigh_r = { 20, -10, -22, 0, 20 },
    calf_l = { 4, 4, 20, 60, 4 },       calf_r = { 20, 60, 4, 4, 20 },
    foot_l = { -10, 0, 18, -8, -10 },   foot_r = { 18, -8, -10, 0, 18 },
    arm_l = { 20, 0, -20, 0, 20 },      arm_r = { -20, 0, 20, 0, -20 },
    elbow_l = { -12, -20, -30, -20, -12 }, elbow_r = { -30, -20, -12, -20, -30 },
    twist = { 8, 0, -8, 0, 8 },
}

local RUN = {
    length = 0.7, speed = 4.0, bob = { -0.07, 0.02 }, lean = 12, yaw = 8,
    thigh_l = { -40, 5, 30, -25, -40 }, thigh_r = { 30, -25, -40, 5, 30 },
    calf_l = { 15, 30, 40, 110, 15 },   calf_r = { 40, 110, 15, 30, 40 },
    foot_l = { -15, 5, 25, -10, -15 },  foot_r = { 25, -10, -15, 5, 25 },
    arm_l = { 40, 0, -40, 0, 40 },      arm_r = { -40, 0, 40, 0, -40 },
    elbow_l = { -80, -90, -100, -90, -80 }, elbow_r = { -100, -90, -80, -90, -100 },
    twist = { 12, 0, -12, 0, 12 },
}

-- Directions: travel (x, z) per unit speed, and how a forward value list
-- turns into this direction's list (`cycle`) and rotation (`leg`).
-- back plays each forward list mirrored about the half cycle,
-- v(L/2 - t), which keeps the left contact at 0: the left foot lands
-- behind and the body moves back over it. The strafes swing the thighs
-- sideways (about Z, two thirds of the amplitude, feet apart), and keep
-- the knee and ankle bends of the forward gait.
local function same(v) return v end
local function mirrored(v) return { v[3], v[2], v[1], v[4], v[3] } end
local function scaled(v, k) local o = {} for i, x in ipairs(v) do o[i] = x * k end return o end
local DIRECTIONS = {
    fwd   = { x = 0,  z = 1,  cycle = same,     thigh = rx, arms = 1 },
    back  = { x = 0,  z = -1, cycle = mirrored, thigh = rx, arms = 1 },
    left  = { x = 1,  z = 0,  cycle = same, arms = 0.4,
              thigh_l = function(a) return rz(4 - a * 0.66) end, thigh_r = function(a) return rz(-4 - a * 0.66) end },
    right = { x = -1, z = 0,  cycle = same, arms = 0.4,
              thigh_l = function(a) return rz(4 + a * 0.66) end, thigh_r = function(a) return rz(-4 + a * 0.66) end },
}

local function locomotion(prefix, g, dir_name)
    local d = DIRECTIONS[dir_name]
    local L, v = g.length, g.speed
    local times = at(CYCLE, L)
    local cyc = d.cycle
    local lo, hi = g.bob[1], g.bob[2]
    return assert(bw.clip {
        name = prefix .. "_" .. dir_name, length = L, loop = true,
        joints = {
            -- ground travel: linear keys, so the speed is constant
            track("root", times, CYCLE, nil, function(f) return { d.x * v * L * f, 0, d.z * v * L * f } end,
                  "linear", "in"),
            track("hips", times, cyc({ lo, hi, lo, hi, lo }), nil, function(y) return { 0, HIPS_Y + y, 0 } end),
            { joint = "spine_01", parent = "hips", keys = { { time = 0, r = rx(g.lean * d.z) } } },
            track("spine_02", times, cyc(g.twist), ry),
            track("spine_03", times, cyc(scaled(g.twist, -0.5)), ry),
            track("thigh_l", times, cyc(g.thigh_l), d.thigh_l or d.thigh),
            track("thigh_r", times, cyc(g.thigh_r), d.thigh_r or d.thigh),
            track("calf_l", times, cyc(g.calf_l), rx),
            track("calf_r", times, cyc(g.calf_r), rx),
            track("foot_l", times, cyc(g.foot_l), rx),
            track("foot_r", times, cyc(g.foot_r), rx),
            track("upperarm_l", times, cyc(scaled(g.arm_l, d.arms)), arm_l),
            track("upperarm_r", times, cyc(scaled(g.arm_r, d.arms)), arm_r),
            track("lowerarm_l", times, cyc(g.elbow_l), rx),
            track("lowerarm_r", times, cyc(g.elbow_r), rx),
        },
        markers = { { name = "foot_l", time = 0 }, { name = "foot_r", time = L / 2 } },
    })
end

-- ---- the other clips ----

-- Idle: 3 s of quiet standing; the chest rises on the in-breath, the
-- weight shifts a little from foot to foot.
local BREATH = { 0, 1.5, 3.0 }
local idle = assert(bw.clip {
    name = "idle", length = 3.0, loop = true,
    joints = {
        { joint = "root", parent = false, keys = { { time = 0, t = { 0, 0, 0 } } } },
        track("hips", BREATH, { 0, 0.01, 0 }, nil, function(x) return { x, HIPS_Y - 0.01, 0 } end),
        track("spine_02", BREATH, { 0, -2, 0 }, rx),
        track("spine_03", BREATH, { 0, -2, 0 }, rx),
        track("head", BREATH, { 2, -1, 2 }, rx),
        track("upperarm_l", BREATH, { 0, 2, 0 }, function(a) return mul(rz(SPREAD + a), rx(3)) end),
        track("upperarm_r", BREATH, { 0, 2, 0 }, function(a) return mul(rz(-SPREAD - a), rx(3)) end),
        { joint = "lowerarm_l", parent = "upperarm_l", keys = { { time = 0, r = rx(-10) } } },
        { joint = "lowerarm_r", parent = "upperarm_r", keys = { { time = 0, r = rx(-10) } } },
        { joint = "calf_l", parent = "thigh_l", keys = { { time = 0, r = rx(3) } } },
        { joint = "calf_r", parent = "thigh_r", keys = { { time = 0, r = rx(3) } } },
    },
    markers = { { name = "inhale", time = 0.0 }, { name = "exhale", time = 1.5 } },
})

-- The jump, in three parts for a state machine: a crouch that ends in the
-- takeoff, an airborne loop, and a landing that absorbs the impact. The
-- root stays put: the game's physics moves the character up and down.
-- Both legs and the hips from one knee angle per key: the thigh forward
-- by half of it, the knee bent by it, the ankle back by half (feet flat),
-- and the hips sunk by what that takes off the 0.84 m leg (0.84 × (1 −
-- cos(knee / 2))), so the feet stay on the ground; `lift` (metres per key,
-- optional) raises the hips on top of that (the push off the toes).
local function crouch(times, knees, lift, ease, dir)
    local drops = {}
    for i, k in ipairs(knees) do drops[i] = (lift and lift[i] or 0) - 0.84 * (1 - math.cos(math.rad(k / 2))) end
    local out = { track("hips", times, drops, nil, function(y) return { 0, HIPS_Y + y, 0 } end, ease, dir) }
    for _, side in ipairs { "l", "r" } do
        out[#out + 1] = track("thigh_" .. side, times, knees, function(k) return rx(-k / 2) end, nil, ease, dir)
        out[#out + 1] = track("calf_" .. side, times, knees, rx, nil, ease, dir)
        out[#out + 1] = track("foot_" .. side, times, knees, function(k) return rx(-k / 2) end, nil, ease, dir)
    end
    return out
end
local function both_arms(times, swing, ease, dir)
    return { track("upperarm_l", times, swing, arm_l, nil, ease, dir),
             track("upperarm_r", times, swing, arm_r, nil, ease, dir) }
end
local function joined(...)
    local out = {}
    for _, list in ipairs { ... } do for _, x in ipairs(list) do out[#out + 1] = x end end
    return out
end
local STILL_ROOT = { joint = "root", parent = false, keys = { { time = 0, t = { 0, 0, 0 } } } }

local JS = { 0, 0.2, 0.3 }
local jump_start = assert(bw.clip {
    name = "jump_start", length = 0.3, loop = false,
    joints = joined({ STILL_ROOT,
        track("spine_01", JS, { 0, 20, -5 }, rx, nil, "quad", "out") },
        crouch(JS, { 0, 60, 0 }, { 0, 0, 0.02 }, "quad", "out"),
        both_arms(JS, { 0, 40, -60 }, "quad", "out")),
    markers = { { name = "takeoff", time = 0.3 } },
})

local JA = { 0, 0.25, 0.5 }
local jump_air = assert(bw.clip {
    name = "jump_air", length = 0.5, loop = true,
    joints = joined({ STILL_ROOT,
        track("spine_01", JA, { -5, -2, -5 }, rx) },
        crouch(JA, { 30, 40, 30 }),
        both_arms(JA, { -60, -70, -60 })),
})

local JL = { 0, 0.12, 0.4 }
local jump_land = assert(bw.clip {
    name = "jump_land", length = 0.4, loop = false,
    joints = joined({ STILL_ROOT,
        track("spine_01", JL, { 0, 25, 0 }, rx, nil, "quad", "out") },
        crouch(JL, { 20, 70, 0 }, nil, "quad", "out"),
        both_arms(JL, { -40, 30, 0 }, "back", "out")),
    markers = { { name = "land", time = 0 } },
})

-- Wave: the right arm only (for a masked upper-body layer). The arm rises
-- with a slight overshoot (back out), the forearm waves three times, and
-- the arm comes down (cubic in_out).
local RAISED = -150 -- degrees about Z: the right arm up and out
local wave = assert(bw.clip {
    name = "wave", length = 2.4, loop = false,
    joints = {
        track("clavicle_r", { 0, 0.45, 1.95, 2.4 }, { 0, -10, -10, 0 }, rz, nil, "quad", "in_out"),
        { joint = "upperarm_r", parent = "clavicle_r", keys = {
            { time = 0.00, r = arm_r(0) },
            { time = 0.45, r = mul(rz(RAISED), rx(-15)), ease = "back", dir = "out" },
            { time = 1.95, r = mul(rz(RAISED + 8), rx(-15)), ease = "sine", dir = "in_out" },
            { time = 2.40, r = arm_r(0), ease = "cubic", dir = "in_out" },
        } },
        track("lowerarm_r", { 0, 0.45, 0.7, 0.95, 1.2, 1.45, 1.7, 1.95, 2.4 },
              { 0, -40, -70, -15, -70, -15, -70, -40, 0 }, rz),
        track("hand_r", { 0, 0.45, 1.95, 2.4 }, { 0, 10, 10, 0 }, rx),
    },
    markers = { { name = "hello", time = 0.45 }, { name = "lower", time = 1.95 } },
})

-- Nod: twice down and up, spread over the neck and the head.
local NOD = { 0, 0.2, 0.4, 0.6, 0.8, 1.0 }
local DIP = { 0, 14, 0, 10, 0, 0 }
local nod = assert(bw.clip {
    name = "nod", length = 1.0, loop = false,
    joints = {
        track("neck_02", NOD, scaled(DIP, 0.4), rx),
        track("head", NOD, scaled(DIP, 0.6), rx),
    },
})

-- Breathing, for an additive layer: its pose at time 0 is the rest pose
-- (the reference an additive layer subtracts), so at weight 1 it adds only
-- the breath: the chest lifts and leans back, the clavicles rise.
local BR = { 0, 1.6, 4.0 }
local breathing = assert(bw.clip {
    name = "breathing", length = 4.0, loop = true,
    joints = {
        track("spine_02", BR, { 0, -2, 0 }, rx),
        track("spine_03", BR, { 0, -3, 0 }, rx, function(d) return { 0, 0.12 - d * 0.002, 0 } end),
        track("clavicle_l", BR, { 0, 3, 0 }, rz),
        track("clavicle_r", BR, { 0, -3, 0 }, rz),
    },
    markers = { { name = "inhale", time = 0 }, { name = "exhale", time = 1.6 } },
})

-- ---- the face: ARKit-52 curves ----

-- A looping face clip of `length` seconds: curves = { name = { {t, v}, ... } }
-- with linear keys (a loop's last key equals its first).
local function face(name, length, curves)
    local list, names = {}, {}
    for curve in pairs(curves) do names[#names + 1] = curve end
    table.sort(names) -- a fixed order, whatever pairs gives
    for _, curve in ipairs(names) do
        local keys = {}
        for i, k in ipairs(curves[curve]) do keys[i] = { time = k[1], value = k[2] } end
        list[#list + 1] = { name = curve, angle = false, keys = keys }
    end
    return assert(bw.clip { name = name, length = length, loop = true, curves = list })
end

-- A resting face: the brows drift a little, the mouth barely open.
local face_idle = face("face_idle", 4.0, {
    browInnerUp = { { 0, 0.05 }, { 2, 0.15 }, { 4, 0.05 } },
    jawOpen = { { 0, 0.02 }, { 2, 0.05 }, { 4, 0.02 } },
})
-- Talking: the jaw opens and closes on syllables, the lips funnel between.
local face_talk = face("face_talk", 1.2, {
    jawOpen = { { 0, 0 }, { 0.15, 0.45 }, { 0.3, 0.1 }, { 0.5, 0.6 }, { 0.7, 0.15 }, { 0.9, 0.35 }, { 1.2, 0 } },
    mouthFunnel = { { 0, 0 }, { 0.3, 0.4 }, { 0.6, 0 }, { 0.9, 0.3 }, { 1.2, 0 } },
    browInnerUp = { { 0, 0.1 }, { 0.6, 0.3 }, { 1.2, 0.1 } },
})
-- A smile held, the cheeks up and the eyes narrowed a little.
local face_smile = face("face_smile", 3.0, {
    mouthSmileLeft = { { 0, 0.8 }, { 1.5, 0.9 }, { 3, 0.8 } },
    mouthSmileRight = { { 0, 0.8 }, { 1.5, 0.9 }, { 3, 0.8 } },
    cheekSquintLeft = { { 0, 0.4 }, { 3, 0.4 } },
    cheekSquintRight = { { 0, 0.4 }, { 3, 0.4 } },
    eyeSquintLeft = { { 0, 0.25 }, { 3, 0.25 } },
    eyeSquintRight = { { 0, 0.25 }, { 3, 0.25 } },
    jawOpen = { { 0, 0.05 }, { 3, 0.05 } },
})

local clips = { idle }
for _, gait in ipairs { { "walk", WALK }, { "run", RUN } } do
    for _, dir_name in ipairs { "fwd", "back", "left", "right" } do
        clips[#clips + 1] = locomotion(gait[1], gait[2], dir_name)
    end
end
for _, c in ipairs { jump_start, jump_air, jump_land, wave, nod, breathing, face_idle, face_talk, face_smile } do
    clips[#clips + 1] = c
end

return { rig = rig, clips = clips }
