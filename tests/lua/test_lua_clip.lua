-- test_lua_clip.lua - blendwerk.clip / Clip / Binding / sampling from Lua:
-- exact sampled values (derived by hand in the comments), the nil, message
-- answers for bad clip tables, and misuse errors that name the argument.
local bw = blendwerk or require("blendwerk")
-- the shared harness beside this file: test, check, eq, near, raises, fails, finish
local h = dofile((arg[0]:match("^(.*[/\\])") or "./") .. "harness.lua")
local test, check, eq, near, raises, fails, finish = h.test, h.check, h.eq, h.near, h.raises, h.fails, h.finish

local function q_axis(x, y, z, deg)
    local h = math.rad(deg) / 2
    return { x * math.sin(h), y * math.sin(h), z * math.sin(h), math.cos(h) }
end

local function make_rig()
    return assert(bw.rig {
        joints = {
            { name = "hips", t = { 0, 1, 0 } },
            { name = "spine", parent = "hips", t = { 0, 0.5, 0 } },
            { name = "arm", parent = "spine", t = { 0.3, 0, 0 } },
        },
        curves = { { name = "blink" }, { name = "yaw", angle = true } },
    })
end

test("linear translation sampled at the midpoint and a quarter", function()
    local rig = make_rig()
    local clip = assert(bw.clip { name = "lin", joints = {
        { joint = "hips", parent = false, keys = { { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 2, 4, -6 } } } },
    } })
    -- u = 0.5: (0,0,0) + 0.5 * (2,4,-6) = (1, 2, -3); u = 0.25: (0.5, 1, -1.5)
    local x, y, z = clip:sample(rig, 0.5):t("hips")
    near(x, 1, 1e-6, "x(0.5)"); near(y, 2, 1e-6, "y(0.5)"); near(z, -3, 1e-6, "z(0.5)")
    local p = clip:sample(rig, 0.25)
    local g = p:get(1)
    near(g.t[1], 0.5, 1e-6, "x(0.25)"); near(g.t[2], 1, 1e-6, "y(0.25)"); near(g.t[3], -1.5, 1e-6, "z(0.25)")
    near(g.coverage, 1, 0, "coverage of a keyed joint")
    -- unkeyed channels of the keyed joint: the rig's values (r identity, s 1)
    near(g.r[4], 1, 1e-6, "r.w"); near(g.s[1], 1, 1e-6, "s.x")
    -- joints the clip does not key: coverage 0 (their transform means nothing)
    near(p:coverage("spine"), 0, 0, "spine coverage"); near(p:coverage(3), 0, 0, "arm coverage")
    -- before the first key / after the last: hold the endpoints
    near(clip:sample(rig, -3):t(1), 0, 0, "hold first"); near(clip:sample(rig, 7):t(1), 2, 1e-6, "hold last")
end)

test("eased keys: the destination key's style and direction", function()
    local rig = make_rig()
    local function clip_with(ease, dir)
        return assert(bw.clip { name = "e", joints = { { joint = "hips", keys = {
            { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 8, 0, 0 }, ease = ease, dir = dir } } } } })
    end
    -- cubic in(u) = u^3: at u = 0.5 -> 0.125, x = 8 * 0.125 = 1
    near(clip_with("cubic"):sample(rig, 0.5):t(1), 1, 1e-5, "cubic in")
    -- out(u) = 1 - in(1 - u) = 1 - 0.125 = 0.875 -> 7
    near(clip_with("cubic", "out"):sample(rig, 0.5):t(1), 7, 1e-5, "cubic out")
    -- in_out(0.25) = in(0.5) / 2 = 0.0625 -> 0.5
    near(clip_with("cubic", "in_out"):sample(rig, 0.25):t(1), 0.5, 1e-5, "cubic in_out")
    -- quad in_out(0.75) = 1 - in(0.5) / 2 = 1 - 0.125 = 0.875 -> 7
    near(clip_with("quad", "in_out"):sample(rig, 0.75):t(1), 7, 1e-5, "quad in_out")
    -- constant: a step that holds the previous key until the next one
    near(clip_with("constant"):sample(rig, 0.99):t(1), 0, 0, "constant before the key")
    near(clip_with("constant"):sample(rig, 1):t(1), 8, 1e-6, "constant at the key")
    -- the module's ease() agrees with the same hand values
    near(bw.ease("cubic", "in", 0.5), 0.125, 1e-6, "ease cubic")
    near(bw.ease("quad", "in_out", 0.75), 0.875, 1e-6, "ease quad in_out")
end)

test("easing_styles: the C list of styles, which envelope.lua's curves are", function()
    -- easing.h's names, in bw_ease_style order (written out here by hand)
    local want = { "linear", "constant", "quad", "cubic", "quart", "quint", "sine", "exponential", "circular",
        "back", "elastic", "bounce" }
    local styles = bw.easing_styles()
    eq(#styles, #want, "twelve styles")
    for i, name in ipairs(want) do eq(styles[i], name, "style " .. i) end
    -- each is a style ease() takes; its in(0.5) by hand for a few (easing.h)
    local half = { linear = 0.5, constant = 0, quad = 0.25, cubic = 0.125, quart = 0.0625, quint = 0.03125,
        exponential = 2 ^ -5 }
    for _, name in ipairs(styles) do
        local v = bw.ease(name, "in", 0.5)
        if half[name] then near(v, half[name], 1e-6, name .. " in(0.5)") end
        eq(bw.ease(name, "in", 1), 1, name .. " in(1)")
    end
    -- a new list each call: editing one changes nothing
    styles[1] = "wobble"
    eq(bw.easing_styles()[1], "linear", "a fresh list")
    -- scripts/envelope.lua's curves are this list (and it accepts each)
    local env = dofile("scripts/envelope.lua")
    eq(#env.curves, #want, "envelope.curves: twelve")
    -- at u = 0.25 (t = 0.25 into a 1 s fade-in): in_out(0.25) = in(0.5) / 2,
    -- by hand from easing.h's base curves (at u = 0.5 every in_out but
    -- constant is 1/2, which would not tell the curves apart); back and
    -- elastic dip below 0 there, and envelope.new does not clamp
    local quarter = {
        linear = 0.25, constant = 0, quad = 0.125, cubic = 0.0625, quart = 0.03125, quint = 0.015625,
        sine = (1 - math.sqrt(0.5)) / 2,          -- (1 - cos(pi/4)) / 2 = 0.1464466
        exponential = 2 ^ -6,                     -- 2^(5 - 10) / 2
        circular = (1 - math.sqrt(0.75)) / 2,     -- 0.0669873
        back = (2.70158 * 0.125 - 1.70158 * 0.25) / 2, -- (c3 / 8 - c1 / 4) / 2 = -0.0438488
        elastic = -2 ^ -5 * 0.5 / 2,              -- sin((5 - 10.75) * 2pi/3) = sin(pi/6 - 4pi) = 1/2
        bounce = (1 - (7.5625 * (0.5 - 1.5 / 2.75) ^ 2 + 0.75)) / 2, -- (1 - 0.765625) / 2 = 0.1171875
    }
    for i, name in ipairs(want) do
        eq(env.curves[i], name, "envelope.curves[" .. i .. "]")
        near(env.new { fade_in = 1, curve = name }(0.25, 2), quarter[name], 1e-6, "envelope " .. name .. " at u = 0.25")
    end
end)

test("rotation slerps along the shortest arc", function()
    local rig = make_rig()
    -- identity to 90 deg about Y: halfway is 45 deg, (0, sin 22.5, 0, cos 22.5)
    local clip = assert(bw.clip { name = "rot", joints = { { joint = "arm", parent = "spine", keys = {
        { time = 0, r = { 0, 0, 0, 1 } }, { time = 2, r = q_axis(0, 1, 0, 90) } } } } })
    local x, y, z, w = clip:sample(rig, 1):r("arm")
    near(x, 0, 1e-6, "x"); near(y, 0.38268343, 1e-5, "y"); near(z, 0, 1e-6, "z"); near(w, 0.92387953, 1e-5, "w")
    -- the same target given as -q takes the same (short) path
    local neg = q_axis(0, 1, 0, 90)
    for i = 1, 4 do neg[i] = -neg[i] end
    local clip2 = assert(bw.clip { name = "rot2", joints = { { joint = "arm", keys = {
        { time = 0, r = { 0, 0, 0, 1 } }, { time = 2, r = neg } } } } })
    local _, y2, _, w2 = clip2:sample(rig, 1):r("arm")
    near(math.abs(y2), 0.38268343, 1e-5, "|y| via -q"); near(math.abs(w2), 0.92387953, 1e-5, "|w| via -q")
    -- an unnormalized key is normalized on load: (0,0,0,2) is identity
    local clip3 = assert(bw.clip { name = "n", joints = { { joint = "arm", keys = { { time = 0, r = { 0, 0, 0, 2 } } } } } })
    near(select(4, clip3:sample(rig, 0):r("arm")), 1, 1e-6, "normalized w")
    -- unkeyed translation of a keyed joint takes the rig's rest value
    near(clip:sample(rig, 1):t("arm"), 0.3, 1e-6, "rest t.x")
end)

test("coverage = clamp(weight * (1 - mask), 0, 1)", function()
    local rig = make_rig()
    local clip = assert(bw.clip { name = "cov", joints = {
        { joint = "hips", keys = { { time = 0, weight = 0.5, mask = 0.5 }, { time = 1, weight = 0.5, mask = 0.5 } } },
        { joint = "spine", keys = { { time = 0, weight = 0, t = { 0, 0, 0 } }, { time = 1, weight = 1, t = { 0, 0, 0 } } } },
        { joint = "arm", keys = { { time = 0, weight = 3, t = { 0, 0, 0 } } } },
    } })
    local p = clip:sample(rig, 0.5)
    near(p:coverage("hips"), 0.25, 1e-6, "0.5 * (1 - 0.5)")
    near(p:coverage("spine"), 0.5, 1e-6, "weight lerped 0 -> 1 at u = 0.5")
    near(p:coverage("arm"), 1, 0, "weight 3 clamps to 1")
end)

test("float and angle curves", function()
    local rig = make_rig()
    local clip = assert(bw.clip { name = "c", curves = {
        { name = "blink", keys = { { time = 0, value = 0 }, { time = 2, value = 1 } } },
        { name = "yaw", angle = true, keys = { { time = 0, value = math.rad(350) }, { time = 1, value = math.rad(10) } } },
    } })
    local p = clip:sample(rig, 0.5)
    local v, c = p:curve("blink")
    near(v, 0.25, 1e-6, "blink at 0.5 of 0..2"); near(c, 1, 0, "blink coverage")
    -- shortest arc: 350 deg -> 10 deg halfway is 0 (mod 360), never 180
    local yaw = p:curve(2)
    near(math.cos(yaw), 1, 1e-6, "cos yaw"); near(math.sin(yaw), 0, 1e-5, "sin yaw")
    local a = bw.lerp_angle(math.rad(350), math.rad(10), 0.5)
    near(math.cos(a), 1, 1e-6, "cos lerp_angle"); near(math.sin(a), 0, 1e-5, "sin lerp_angle")
    -- and a quarter of the way: 350 + 0.25 * 20 = 355 deg
    local b = bw.lerp_angle(math.rad(350), math.rad(10), 0.25)
    near(math.cos(b), math.cos(math.rad(355)), 1e-5, "cos 355"); near(math.sin(b), math.sin(math.rad(355)), 1e-5, "sin 355")
end)

test("queries: name, length, loop, markers sorted, tracks", function()
    local clip = assert(bw.clip { name = "q", loop = true,
        joints = { { joint = "hips", parent = false, keys = { { time = 0, t = { 0, 0, 0 }, r = { 0, 0, 0, 1 } }, { time = 0.5, t = { 1, 0, 0 } } } } },
        markers = { { name = "b", time = 0.75 }, { name = "a", time = 0.25 } } })
    eq(clip:name(), "q", "name"); eq(clip:loop(), true, "loop")
    near(clip:length(), 0.75, 1e-6, "length = last key or marker time")
    eq(clip:marker_count(), 2, "marker count")
    local n1, t1 = clip:marker(1)
    eq(n1, "a", "first marker by time"); near(t1, 0.25, 1e-6, "first marker time")
    local ms = clip:markers()
    eq(ms[2].name, "b", "second marker"); near(ms[2].time, 0.75, 1e-6, "second time")
    -- keys carrying t and r split into a translation and a rotation track
    eq(clip:track_count(), 2, "tracks")
    local channels = {}
    for i = 1, clip:track_count() do
        local tr = clip:track(i)
        eq(tr.joint, "hips", "track joint"); eq(tr.parent, "", "root parent")
        channels[tr.channel] = tr.key_count
    end
    eq(channels.translation, 2, "translation keys"); eq(channels.rotation, 1, "rotation keys")
    local explicit = assert(bw.clip { name = "x", length = 2, joints = { { joint = "hips", keys = { { time = 0, t = { 0, 0, 0 } } } } } })
    near(explicit:length(), 2, 0, "explicit length")
end)

test("binding report: exact, by name, unbound, ambiguous", function()
    local rig = make_rig()
    local clip = assert(bw.clip { name = "b", joints = {
        { joint = "hips", parent = false, keys = { { time = 0, t = { 0, 0, 0 } } } }, -- exact (root)
        { joint = "arm", keys = { { time = 0, t = { 0, 0, 0 } } } },                  -- parent unknown: by name
        { joint = "tail", parent = "hips", keys = { { time = 0, t = { 0, 0, 0 } } } }, -- no such joint
    } })
    local b = assert(clip:bind(rig))
    local r = b:report()
    eq(r.bound, 2, "bound"); eq(r.by_name, 1, "by_name"); eq(r.unbound, 1, "unbound"); eq(r.ambiguous, 0, "ambiguous")
    local status = {}
    for i = 1, 3 do status[clip:track(i).joint] = { b:track_status(i), b:track_target(i) } end
    eq(status.hips[1], "exact", "hips status"); eq(status.hips[2], 1, "hips target")
    eq(status.arm[1], "by_name", "arm status"); eq(status.arm[2], 3, "arm target")
    eq(status.tail[1], "unbound", "tail status"); eq(status.tail[2], nil, "tail target")
    eq(b:clip(), clip, "binding:clip()"); eq(b:rig(), rig, "binding:rig()")
    -- binding:sample is clip:sample
    near(b:sample(0):coverage("hips"), 1, 0, "bound joint covered")

    local twins = assert(bw.rig { joints = {
        { name = "root" },
        { name = "l_arm", parent = "root" }, { name = "hand", parent = "l_arm" },
        { name = "r_arm", parent = "root" }, { name = "hand", parent = "r_arm" } } })
    local amb = assert(bw.bind(assert(bw.clip { name = "h", joints = { { joint = "hand", keys = { { time = 0, t = { 1, 0, 0 } } } } } }), twins))
    eq(amb:report().ambiguous, 1, "a name-only match with two candidates is refused")
    eq(amb:track_status(1), "ambiguous", "status")
end)

-- clip:warnings(): rotation keys that are not unit length are stored
-- normalized, one warning per track, after the blendwerk.clip call's
-- file:line. The rotation track is the clip's track 0 (the joint's only
-- channel); key 0 has length 3, key 1 is unit: 1 of 2 keys.
test("warnings: unnormalized rotation keys, after the call's file:line", function()
    local src = debug.getinfo(1, "S").short_src
    local walk, line = assert(bw.clip { name = "walk", joints = { { joint = "spine", keys = {
        { time = 0, r = { 0, 0, 0, 3 } }, { time = 1, r = { 0, 0, 0, 1 } } } } } }), debug.getinfo(1, "l").currentline - 1
    local w = walk:warnings()
    eq(#w, 1, "one warning")
    eq(w[1], src .. ":" .. line .. ': clip "walk": track 0 (joint "spine" rotation): 1 of 2 keys were not unit '
        .. "length (first: key 0, length 3); normalized", "the message")
    near(select(4, walk:sample_track(1, 0)), 1, 1e-6, "stored normalized")
    w[1] = "changed"
    eq(walk:warnings()[1]:sub(-10), "normalized", "a new list each call")
    local clean = assert(bw.clip { name = "idle", joints = { { joint = "spine", keys = {
        { time = 0, r = { 0, 0.6, 0, 0.8 } }, { time = 1, t = { 1, 0, 0 } } } } } })
    eq(type(clean:warnings()), "table", "a list")
    eq(#clean:warnings(), 0, "a clean clip has none")
end)

test("bad clip tables return nil and a message naming the problem", function()
    local function keys(k) return { name = "walk", joints = { { joint = "arm", keys = k } } } end
    fails("clip 'walk': joint 'arm' key 3: time is NaN",
        bw.clip(keys { { time = 0, t = { 0, 0, 0 } }, { time = 0.5, t = { 0, 0, 0 } }, { time = 0 / 0, t = { 1, 1, 1 } } }))
    fails({ "clip 'walk': joint 'arm' key 3:", "sorted" },
        bw.clip(keys { { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 0, 0, 0 } }, { time = 0.5, t = { 1, 1, 1 } } }))
    fails({ "key 2:", "duplicate" }, bw.clip(keys { { time = 0, t = { 0, 0, 0 } }, { time = 0, t = { 1, 0, 0 } } }))
    fails("key 1: t.x is infinite", bw.clip(keys { { time = 0, t = { 1 / 0, 0, 0 } } }))
    fails("key 1: t.y is too large", bw.clip(keys { { time = 0, t = { 0, 1e300, 0 } } }))
    fails("t.z is missing", bw.clip(keys { { time = 0, t = { 0, 0 } } }))
    fails("r is a zero quaternion", bw.clip(keys { { time = 0, r = { 0, 0, 0, 0 } } }))
    fails("s is NaN", bw.clip(keys { { time = 0, s = 0 / 0 } }))
    fails("weight must be a number", bw.clip(keys { { time = 0, weight = "x" } }))
    fails("unknown ease 'cubical'", bw.clip(keys { { time = 0, t = { 0, 0, 0 }, ease = "cubical" } }))
    fails("unknown dir 'sideways'", bw.clip(keys { { time = 0, t = { 0, 0, 0 }, dir = "sideways" } }))
    fails("key 1: unknown field 'rot'", bw.clip(keys { { time = 0, rot = { 0, 0, 0, 1 } } }))
    fails("key 1: time is missing", bw.clip(keys { { t = { 0, 0, 0 } } }))
    fails("clip 'walk': joint 1: keys is empty", bw.clip(keys {}))
    fails("key 1: must be a table", bw.clip(keys { 5 }))
    fails("joint 1: joint must be a non-empty string",
        bw.clip { name = "walk", joints = { { keys = { { time = 0 } } } } })
    fails("joint 1: joint must be a non-empty string without NUL bytes",
        bw.clip { name = "walk", joints = { { joint = "hips\0x", keys = { { time = 0 } } } } })
    fails("curve 1: name must be a non-empty string without NUL bytes",
        bw.clip { name = "walk", curves = { { name = "\0", keys = { { time = 0, value = 1 } } } } })
    fails("clip 'walk': marker 1 'step': time is NaN",
        bw.clip { name = "walk", markers = { { name = "step", time = 0 / 0 } } })
    fails("curve 'c' key 1: value is infinite",
        bw.clip { name = "walk", curves = { { name = "c", keys = { { time = 0, value = 1 / 0 } } } } })
    fails("clip 'walk': length -1 is negative", bw.clip { name = "walk", length = -1 })
    fails("clip 'walk': unknown field 'lenght'", bw.clip { name = "walk", lenght = 1 })
    fails("clip 'walk': unknown field 'lenght' (accepted fields: name, length, loop, id, revision, joints, curves, markers)",
        bw.clip { name = "walk", lenght = 1 })
    fails("key 1: unknown field 'rot' (accepted fields: time, t, r, s, weight, mask, ease, dir)",
        bw.clip(keys { { time = 0, rot = { 0, 0, 0, 1 } } }))
    fails("joint 'hips': unknown field 'key' (accepted fields: joint, parent, keys)",
        bw.clip { name = "walk", joints = { { joint = "hips", key = {}, keys = { { time = 0 } } } } })
    fails("curve 'c': unknown field 'kind' (accepted fields: name, angle, keys)",
        bw.clip { name = "walk", curves = { { name = "c", kind = 1, keys = { { time = 0, value = 0 } } } } })
    fails("curve 'c' key 1: unknown field 'v' (accepted fields: time, value, ease, dir)",
        bw.clip { name = "walk", curves = { { name = "c", keys = { { time = 0, value = 0, v = 1 } } } } })
    fails("marker 1 'step': unknown field 'at' (accepted fields: name, time)",
        bw.clip { name = "walk", markers = { { name = "step", time = 0, at = 1 } } })
    fails("clip 'walk': markers: unknown field 'n' (a list of 1 entry)",
        bw.clip { name = "walk", markers = { { name = "step", time = 0 }, n = 1 } })
    fails("joint 1: keys: unknown field 'first' (a list of 1 entry)",
        bw.clip { name = "walk", joints = { { joint = "hips", keys = { { time = 0 }, first = 0 } } } })
    fails("key 1: r: unknown field 'angle' (accepted fields: x, y, z, w)",
        bw.clip(keys { { time = 0, r = { x = 0, y = 0, z = 0, w = 1, angle = 0 } } }))
    fails("clip: joints must be a list", bw.clip { joints = 3 })
    fails("clip 'walk': joint 'arm': listed twice (joint entries 1 and 2)", bw.clip { name = "walk", joints = {
        { joint = "arm", keys = { { time = 0, t = { 0, 0, 0 } } } }, { joint = "arm", keys = { { time = 1, r = { 0, 0, 0, 1 } } } } } })
    -- nothing was half-built: a good clip still compiles afterwards
    check(bw.clip(keys { { time = 0, t = { 0, 0, 0 } } }), "good clip after failures")
end)

test("misuse raises errors naming the argument", function()
    local rig = make_rig()
    local clip = assert(bw.clip { name = "m", joints = { { joint = "hips", keys = { { time = 0, t = { 0, 0, 0 } } } } } })
    raises(function() bw.clip("walk") end, "bad argument #1 to 'clip'", "table expected")
    raises(function() clip:sample("rig", 0) end, "bad argument #1 to 'sample'", "blendwerk.Rig expected")
    raises(function() clip:sample(rig) end, "bad argument #2 to 'sample'", "number expected")
    raises(function() clip:sample(rig, 0, "pose") end, "bad argument #3 to 'sample'", "blendwerk.Pose expected")
    raises(function() clip:marker(1) end, "bad argument #1 to 'marker'", "out of range")
    raises(function() clip:track(0) end, "bad argument #1 to 'track'", "out of range")
    raises(function() clip.length(rig) end, "blendwerk.Clip expected")
    raises(function() bw.bind(rig, clip) end, "bad argument #1 to 'bind'", "blendwerk.Clip expected")
    raises(function() bw.ease("wobbly", "in", 0.5) end, "bad argument #1 to 'ease'", "unknown easing style")
    local other = make_rig()
    raises(function() clip:sample(rig, 0, other:pose()) end, "bad argument #3 to 'sample'", "another rig")
end)

test("non-finite sample times never reach the pose", function()
    local rig = make_rig()
    local clip = assert(bw.clip { name = "nf", joints = { { joint = "hips", keys = {
        { time = 0, t = { 1, 2, 3 } }, { time = 1, t = { 5, 6, 7 } } } } } })
    -- NaN samples at 0 (the first key); -inf and +inf hold the first and last keys
    for _, case in ipairs { { 0 / 0, 1 }, { -1 / 0, 1 }, { 1 / 0, 5 } } do
        local x, y, z = clip:sample(rig, case[1]):t(1)
        near(x, case[2], 1e-6, "x at " .. tostring(case[1]))
        near(y, case[2] + 1, 1e-6, "y"); near(z, case[2] + 2, 1e-6, "z")
    end
    -- huge finite times hold the last key
    near(clip:sample(rig, 1e300):t(1), 5, 1e-6, "huge time")
end)

test("sampling into a caller's pose reuses it", function()
    local rig = make_rig()
    local clip = assert(bw.clip { name = "r", joints = { { joint = "hips", keys = {
        { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 1, 0, 0 } } } } } })
    local pose = rig:pose()
    local back = clip:sample(rig, 0.5, pose)
    eq(back, pose, "same object returned")
    near(pose:t(1), 0.5, 1e-6, "written in place")
end)

finish()
