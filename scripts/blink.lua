-- blink.lua - a procedural control (bindings/controls.h): periodic
-- blinks at randomized, seedable intervals driving the two ARKit blink
-- channels.
--
-- The same stream and shape as the C animator's blink (include/blendwerk/
-- animator.h, bw_animator_blink_interval): xorshift32 (x ^= x << 13;
-- x ^= x >> 17; x ^= x << 5, on 32 bits), interval = min + (max - min) *
-- (x >> 8) / 2^24; the first blink starts one interval after init, each
-- next one an interval after the previous start; the weight is
-- sin(pi u), u = (time since the blink started) / duration.
--
-- options: seed = 1 (an integer in [0, 2^32 - 1]; 0 counts as 1; character
-- i uses seed + i - 1 so a crowd does not blink in step), interval_min = 2,
-- interval_max = 6, duration = 0.15 (seconds); any other field is an error.
--
-- Outputs: ctx.arkit[1] (eyeBlinkLeft) and ctx.arkit[8] (eyeBlinkRight)
-- set to the weight, ctx.blink = the weight; when the rig has curves named
-- eyeBlinkLeft / eyeBlinkRight, the pose's values become max(value,
-- weight). State: rng, clock, next, start, blinking, weight, count (blinks
-- started); keep_state: a reload goes on with the same stream.

local M = {}

local MASK = 0xffffffff

-- One step of the stream: returns the interval and the new rng state.
function M.interval(rng, min, max)
    local x = rng ~= 0 and rng or 1
    x = x ~ ((x << 13) & MASK)
    x = x ~ (x >> 17)
    x = x ~ ((x << 5) & MASK)
    return min + (max - min) * ((x >> 8) / 16777216), x
end

local function number(options, name, default)
    local v = options[name]
    if v == nil then return default end
    if type(v) ~= "number" or v ~= v or v <= 0 or v == math.huge then
        error(string.format("blink: options.%s must be a finite number > 0", name))
    end
    return v
end

M.priority = 20
M.keep_state = true

local OPTIONS = { "seed", "interval_min", "interval_max", "duration" }

function M.init(ctx, options)
    blendwerk.check_fields(options, OPTIONS, "blink: options") -- a misspelt option is an error, not a default
    local seed = options.seed or 1
    if math.type(seed) ~= "integer" or seed < 0 or seed > MASK then
        error("blink: options.seed must be an integer in [0, 2^32 - 1]")
    end
    local s = {
        rng = ((seed + ctx.character - 1) & MASK),
        min = number(options, "interval_min", 2),
        max = number(options, "interval_max", 6),
        duration = number(options, "duration", 0.15),
        clock = 0, start = 0, blinking = false, weight = 0, count = 0,
    }
    if s.min > s.max then error("blink: options.interval_min must be <= interval_max") end
    s.next, s.rng = M.interval(s.rng, s.min, s.max)
    s.left, s.right = ctx.rig:find_curve("eyeBlinkLeft"), ctx.rig:find_curve("eyeBlinkRight")
    ctx.blink = 0
    return s
end

function M.update(s, pose, ctx, dt)
    s.clock = s.clock + dt
    local w = 0
    local guard = 0
    while guard < 16 and s.clock >= s.next do -- a huge dt starts at most 16 blinks
        s.blinking, s.start = true, s.next
        local iv
        iv, s.rng = M.interval(s.rng, s.min, s.max)
        s.next = s.next + iv
        s.count = s.count + 1
        guard = guard + 1
    end
    if s.blinking then
        local u = (s.clock - s.start) / s.duration
        if u >= 1 then s.blinking = false else w = math.sin(math.pi * u) end
    end
    s.weight = w
    ctx.blink = w
    local arkit = ctx.arkit
    arkit[1], arkit[8] = w, w
    if s.left then
        local v, c = pose:curve(s.left)
        if w > v then pose:set_curve(s.left, w, c > 0 and c or 1) end
    end
    if s.right then
        local v, c = pose:curve(s.right)
        if w > v then pose:set_curve(s.right, w, c > 0 and c or 1) end
    end
end

return M
