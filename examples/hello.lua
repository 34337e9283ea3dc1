-- hello.lua - the smallest complete Blendwerk program.
--
-- Builds a small rig (hips -> spine -> arm -> hand), describes a looping
-- one-second "wave" clip with eased keys and two markers, samples it at a
-- few times, then plays it on a track set at 60 Hz for one second and
-- prints every marker and loop the playback crosses.
--
-- Run it with:  blendwerk run examples/hello.lua
-- (or with the stock interpreter: LUA_CPATH='build/?.so' lua5.4 examples/hello.lua)

local blendwerk = blendwerk or require("blendwerk")

local function deg(rad) return rad * 180 / math.pi end

-- Rotation of `angle` degrees about a unit axis, as {x, y, z, w}.
local function axis_angle(x, y, z, angle)
    local h = math.rad(angle) / 2
    local s = math.sin(h)
    return { x * s, y * s, z * s, math.cos(h) }
end

-- Joints are listed parent-first; t/r/s are the rest (bind) transform.
local rig = assert(blendwerk.rig {
    joints = {
        { name = "hips",  t = { 0, 1.0, 0 } },
        { name = "spine", parent = "hips",  t = { 0, 0.25, 0 } },
        { name = "arm",   parent = "spine", t = { 0.3, 0.2, 0 } },
        { name = "hand",  parent = "arm",   t = { 0.4, 0, 0 } },
    },
})

-- A keyframe sequence: each key sets any of t, r, s; `ease`/`dir` shape
-- the segment that ends at that key.
local clip = assert(blendwerk.clip {
    name = "wave",
    length = 1.0,
    loop = true,
    joints = {
        { joint = "hips", parent = false, keys = {            -- parent=false: a root
            { time = 0.0, t = { 0, 1.00, 0 } },
            { time = 0.5, t = { 0, 1.08, 0 }, ease = "sine", dir = "in_out" },
            { time = 1.0, t = { 0, 1.00, 0 }, ease = "sine", dir = "in_out" },
        } },
        { joint = "spine", parent = "hips", keys = {
            { time = 0.0, r = axis_angle(0, 1, 0, 0) },
            { time = 0.5, r = axis_angle(0, 1, 0, 30), ease = "cubic", dir = "in_out" },
            { time = 1.0, r = axis_angle(0, 1, 0, 0),  ease = "cubic", dir = "in_out" },
        } },
        { joint = "arm", parent = "spine", keys = {
            { time = 0.0, r = axis_angle(0, 0, 1, 0) },
            { time = 0.5, r = axis_angle(0, 0, 1, 90), ease = "quad", dir = "out" },
            { time = 1.0, r = axis_angle(0, 0, 1, 0),  ease = "quad", dir = "in" },
        } },
    },
    markers = {
        { name = "wave_up",   time = 0.25 },
        { name = "wave_down", time = 0.75 },
    },
})

print(string.format("blendwerk %s", blendwerk.version))
local names = {}
for j = 1, rig:joint_count() do names[j] = rig:joint_name(j) end
print(string.format("rig: %d joints: %s", rig:joint_count(), table.concat(names, " > ")))
print(string.format("clip '%s': %.2f s, %s, %d markers", clip:name(), clip:length(),
    clip:loop() and "looping" or "once", clip:marker_count()))

-- Sampling: a pure function of time.
local function fix(v) return math.abs(v) < 5e-4 and 0 or v end -- print -0.000 as 0.000
local function describe(pose)
    local _, hips_y = pose:t("hips")
    local _, sy, _, sw = pose:r("spine")
    local _, _, az, aw = pose:r("arm")
    local x, y, z = pose:model_position("hand")
    return string.format("hips y=%.3f  spine yaw=%4.1f deg  arm roll=%4.1f deg  hand at (%.3f, %.3f, %.3f)",
        hips_y, fix(deg(2 * math.atan(sy, sw))), fix(deg(2 * math.atan(az, aw))), fix(x), fix(y), fix(z))
end

-- A sampled pose covers only the joints the clip keys (the hand has
-- coverage 0), so mix it over the rig's rest pose before asking where the
-- hand is in model space.
print("\nsampled:")
for _, time in ipairs { 0.0, 0.25, 0.5, 0.75 } do
    local sampled = clip:sample(rig, time)
    print(string.format("  t=%.2f  %s", time, describe(blendwerk.mix { sampled })))
end

-- Playback: markers and loops are signals, delivered after the frame's
-- pose is composed, so a callback sees the pose of the frame it fired in.
print("\nplaying at 60 Hz for 1 s:")
local set = blendwerk.track_set(rig)
local frame = 0
local track
track = assert(set:play(clip, {
    on_marker = function(name, marker_time)
        print(string.format("  frame %2d (t=%.3f s): marker '%s' at %.2f   %s",
            frame, frame / 60, name, marker_time, describe(set:pose())))
    end,
    on_loop = function()
        print(string.format("  frame %2d (t=%.3f s): loop, clip time now %.3f", frame, frame / 60, set:time(track)))
    end,
}))
for i = 1, 60 do
    frame = i
    set:update(1 / 60)
end
print(string.format("after 60 frames: clip time %.3f, %s", set:time(track), describe(set:pose())))
