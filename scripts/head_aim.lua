-- head_aim.lua - a procedural control (bindings/controls.h): turn a neck
-- and head chain toward ctx.target, clamped relative to the BODY's
-- forward (ctx.yaw), and hand what the chain cannot reach to the eyes.
--
-- The same numbers as the C animator's head aim (include/blendwerk/
-- animator.h, step 4): both run bw_aim_head of include/blendwerk/
-- procedural.h (blendwerk.aim = aim_angles, aim_clamp and aim_chain in one call).
--
-- options (all optional; the animator's defaults; any other field is an error):
--   chain    = { "neck_01", "neck_02", "head" }  joint names, root-most first,
--              the last is the head; default: that chain if the rig has it,
--              else { "neck", "head" }, else { "head" }
--   weights  = { 0.25, 0.25, 0.5 }  one per joint (default for the chain
--              above; a chain of your own without weights splits equally)
--   yaw_limit, pitch_limit, eye_yaw_limit, eye_pitch_limit (radians), behind (the band
--   around straight behind where the head keeps the side it turned to): by default
--   blendwerk.aim_defaults(), the C animator's (yaw 1.2, pitch 0.6, eye yaw 0.6, eye pitch
--   0.4, behind 0.2; BW_ANIMATOR_HEAD_LIMITS in include/blendwerk/animator.h)
--
-- Outputs: the chain's rotations folded into the pose; the chain's joints
-- listed in ctx.overrides (once, in init: the host reads their new
-- parent-local rotations from the pose, bw_controls_overrides);
-- ctx.gaze = { pitch_l, yaw_l, pitch_r, yaw_r } (radians); ctx.aim_limits.
-- keep_state: a reload keeps the last yaw (no flip after an edit); `reload` resolves the
-- chain and limits again, so an edit of the defaults below (D.yaw -> 0.9) takes effect at once.
--
-- Per frame it allocates nothing: every table it touches is made in init.

local bw = blendwerk
-- locals: one upvalue read a call instead of a lookup in the module proxy; D: the default limits
local aim, aim_chain, aim_setup, D = bw.aim, bw.aim_chain, bw.aim_setup, bw.aim_defaults()

local DEFAULT_CHAINS = {
    { names = { "neck_01", "neck_02", "head" }, weights = { 0.25, 0.25, 0.5 } },
    { names = { "neck", "head" }, weights = { 0.4, 0.6 } },
    { names = { "head" }, weights = { 1 } },
}

local function limit(options, name, default)
    local v = options[name]
    if v == nil then return default end
    if type(v) ~= "number" or v ~= v or v < 0 or v == math.huge then
        error(string.format("head_aim: options.%s must be a finite number >= 0", name))
    end
    return v
end

local function resolve(rig, options)
    local joints, weights = {}, {}
    if options.chain then
        for i, name in ipairs(options.chain) do
            joints[i] = rig:find(name) or error(string.format("head_aim: options.chain[%d]: no joint '%s'", i, name))
        end
        for i = 1, #joints do
            local w = options.weights and options.weights[i] or 1 / #joints
            if type(w) ~= "number" or w ~= w or w < 0 then
                error(string.format("head_aim: options.weights[%d] must be a number >= 0", i))
            end
            weights[i] = w
        end
        return joints, weights
    end
    for _, set in ipairs(DEFAULT_CHAINS) do
        local found = {}
        for i, name in ipairs(set.names) do found[i] = rig:find(name) end
        if #found == #set.names then
            for i = 1, #found do weights[i] = options.weights and options.weights[i] or set.weights[i] end
            return found, weights
        end
    end
    return joints, weights -- no chain: the control does nothing
end

-- Add the chain to ctx.overrides once (a reload calls init again).
local function publish(overrides, joints)
    for _, j in ipairs(joints) do
        local listed = false
        for _, k in ipairs(overrides) do listed = listed or k == j end
        if not listed then overrides[#overrides + 1] = j end
    end
end

-- The chain, weights and limits are the same for every character of a
-- control: resolved, checked and packed into one blendwerk.aim_setup once
-- per options table and rig (this chunk's; a reload runs the file again
-- and so resolves afresh) and shared, so a character's state is just its
-- last yaw and one reference, and the helpers check nothing
-- fixed per frame.
local shared_options, shared_rig, shared

local OPTIONS = { "chain", "weights", "yaw_limit", "pitch_limit", "eye_yaw_limit", "eye_pitch_limit", "behind" }

local function setup_of(rig, options)
    if options == shared_options and rig == shared_rig then return shared end
    bw.check_fields(options, OPTIONS, "head_aim: options") -- a misspelt option is an error, not a default
    local joints, weights = resolve(rig, options)
    local limits = { -- blendwerk.aim_clamp's
        yaw = limit(options, "yaw_limit", D.yaw),
        pitch = limit(options, "pitch_limit", D.pitch),
        eye_yaw = limit(options, "eye_yaw_limit", D.eye_yaw),
        eye_pitch = limit(options, "eye_pitch_limit", D.eye_pitch),
        behind = limit(options, "behind", D.behind),
    }
    shared = {
        joints = joints,
        limits = limits,
        setup = #joints > 0 and aim_setup(rig, joints, weights, limits) or nil, -- nil: no chain, nothing to do
    }
    shared_options, shared_rig = options, rig
    return shared
end

local function init(ctx, options)
    local set = setup_of(ctx.rig, options)
    publish(ctx.overrides, set.joints)
    local limits = set.limits
    -- the limits in force, for the host's overlay (the demo): { yaw, pitch,
    -- eye_yaw, eye_pitch }, set in init and so at every reload
    ctx.aim_limits = { limits.yaw, limits.pitch, limits.eye_yaw, limits.eye_pitch }
    return {
        setup = set.setup, -- the chain (its last joint the head), weights and limits
        last_yaw = 0, -- the yaw the chain took last frame
    }
end

return {
    priority = 10,
    keep_state = true,
    init = init,

    reload = function(s, ctx, options)
        local fresh = init(ctx, options)
        fresh.last_yaw = s.last_yaw
        return fresh
    end,

    update = function(s, pose, ctx, dt)
        local setup = s.setup
        if not setup then return end
        local gaze = ctx.gaze
        if ctx.has_target then
            -- blendwerk.aim: aim_angles from the head, aim_clamp, aim_chain in one call
            local yaw, _, eye_yaw, eye_pitch = aim(pose, setup, ctx.position, ctx.yaw, ctx.target, s.last_yaw)
            gaze[1], gaze[2], gaze[3], gaze[4] = eye_pitch, eye_yaw, eye_pitch, eye_yaw
            s.last_yaw = yaw
        else -- no target: the aim relaxes to 0
            gaze[1], gaze[2], gaze[3], gaze[4] = 0, 0, 0, 0
            s.last_yaw = 0
            aim_chain(pose, setup, 0, 0)
        end
    end,
}
