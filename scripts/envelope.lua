-- envelope.lua - gesture envelopes: fade-in, hold, fade-out, shaped by a
-- curve of the easing set (include/blendwerk/easing.h), or a function you
-- write. A module (require("envelope") from a script of this folder):
-- gesture code passes its functions as a gesture's envelope, other
-- controls sample them.
--
-- An envelope is a function(t, duration) -> weight, t seconds after the
-- gesture started; the Lua animator's a:gesture(name, { envelope = f })
-- takes one as is.
--
--   envelope.weight(t, duration, fade_in, fade_out [, curve = "linear"])
--     the animator's default envelope (bw_gesture_envelope): with
--     u_in = t / fade_in and u_out = (duration - t) / fade_out (a fade of
--     0 counts as u = 1), weight = ease(curve, "in_out", min(u_in, u_out, 1)),
--     0 outside [0, duration].
--   envelope.new{ fade_in =, fade_out =, curve = "linear" [, duration =] }
--     -> envelope function: that shape; a duration given here replaces
--     the caller's.
--   envelope.custom(fn) -> envelope function: your fn(t, duration) with
--     its result made safe: clamped to [0, 1], a non-number or NaN is 0,
--     0 outside [0, duration].
--   envelope.curves: the curve names (blendwerk.easing_styles(), the C
--     easing set's, in its order).
--
-- No function allocates when called (new and custom allocate their closure
-- once).

local bw = blendwerk
local ease = bw.ease

local M = {}

M.curves = bw.easing_styles() -- the C list (bw_ease_style_name), not a copy of it
local known = {}
for _, name in ipairs(M.curves) do known[name] = true end

function M.weight(t, duration, fade_in, fade_out, curve)
    if not (t >= 0) or not (t <= duration) then return 0 end
    local u = 1
    if fade_in > 0 and t / fade_in < u then u = t / fade_in end
    if fade_out > 0 and (duration - t) / fade_out < u then u = (duration - t) / fade_out end
    return ease(curve or "linear", "in_out", u)
end

local function seconds(desc, name)
    local v = desc[name]
    if v == nil then return 0 end
    if type(v) ~= "number" or v ~= v or v < 0 or v == math.huge then
        error(string.format("envelope.new: %s must be a finite number >= 0", name), 3)
    end
    return v
end

local FIELDS = { "fade_in", "fade_out", "curve", "duration" }

function M.new(desc)
    if type(desc) ~= "table" then error("envelope.new: a table { fade_in, fade_out, curve } expected", 2) end
    bw.check_fields(desc, FIELDS, "envelope.new", 2) -- at the caller's line
    local fade_in, fade_out = seconds(desc, "fade_in"), seconds(desc, "fade_out")
    local own = desc.duration ~= nil and seconds(desc, "duration") or nil
    local curve = desc.curve or "linear"
    if not known[curve] then error(string.format("envelope.new: unknown curve '%s'", tostring(curve)), 2) end
    local weight = M.weight
    return function(t, duration)
        return weight(t, own or duration, fade_in, fade_out, curve)
    end
end

function M.custom(fn)
    if type(fn) ~= "function" then error("envelope.custom: a function(t, duration) expected", 2) end
    return function(t, duration)
        if not (t >= 0) or not (t <= duration) then return 0 end
        local w = fn(t, duration)
        if type(w) ~= "number" or w ~= w then return 0 end
        return w < 0 and 0 or (w > 1 and 1 or w)
    end
end

return M
