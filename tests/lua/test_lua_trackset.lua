-- test_lua_trackset.lua - blendwerk.track_set from Lua: marker, loop, ended
-- and stopped callbacks (order, times, delivery after compose), fades,
-- priorities, callbacks that play or fail, and misuse errors. Steps of
-- 0.125 s are exact in binary floating point, so the expected times and
-- orders below follow from SPEC §4 and play.h by hand.
local bw = blendwerk or require("blendwerk")
-- the shared harness beside this file: test, check, eq, near, raises, fails, finish
local h = dofile((arg[0]:match("^(.*[/\\])") or "./") .. "harness.lua")
local test, check, eq, near, raises, fails, finish = h.test, h.check, h.eq, h.near, h.raises, h.fails, h.finish

local rig = assert(bw.rig { joints = { { name = "hips", t = { 0, 1, 0 } }, { name = "arm", parent = "hips" } } })

-- hips x follows clip time (x = time), markers at 0, 0.25 and 0.75
local walk = assert(bw.clip { name = "walk", length = 1, loop = true,
    joints = { { joint = "hips", keys = { { time = 0, t = { 0, 1, 0 } }, { time = 1, t = { 1, 1, 0 } } } } },
    markers = { { name = "b", time = 0.75 }, { name = "start", time = 0 }, { name = "a", time = 0.25 } } })

local function recorder(set)
    local events = {}
    local function add(s) events[#events + 1] = s end
    return events, {
        on_marker = function(name, time, track)
            -- the callback sees the pose composed this frame: hips x = clip time
            add(string.format("%s@%.3f x=%.3f", name, time, (set:pose():t("hips"))))
        end,
        on_loop = function(track) add("loop") end,
        on_ended = function(track) add("ended") end,
        on_stopped = function(track) add("stopped") end,
    }
end

local function same(got, want, what)
    local a, b = table.concat(got, ", "), table.concat(want, ", ")
    if a ~= b then eq(a, b, what) end
end

test("markers in order over a loop, delivered after compose", function()
    local set = bw.track_set(rig)
    local events, callbacks = recorder(set)
    local h = assert(set:play(walk, callbacks))
    for _ = 1, 10 do set:update(0.125) end
    -- step 1 (0 -> 0.125) includes the start time: "start"; step 2 reaches
    -- 0.25: "a"; step 6 reaches 0.75: "b"; step 8 reaches 1.0 = wraps to 0:
    -- loop, then the new pass's "start"; step 10 reaches 0.25: "a".
    -- At a marker the hips x is the wrapped clip time (x = 1 - 1 = 0 at the wrap).
    same(events, { "start@0.000 x=0.125", "a@0.250 x=0.250", "b@0.750 x=0.750", "loop",
        "start@0.000 x=0.000", "a@0.250 x=0.250" }, "event order")
    near(set:time(h), 0.25, 1e-6, "time after 1.25 s")
    eq(set:looping(h), true, "looping from the clip flag")
end)

test("reverse playback visits markers in reverse order", function()
    local set = bw.track_set(rig)
    local events, callbacks = recorder(set)
    callbacks.speed, callbacks.time = -1, 0.5
    local h = assert(set:play(walk, callbacks))
    for _ = 1, 6 do set:update(0.125) end
    -- 0.5 -> 0.375 -> 0.25 ("a") -> 0.125 -> 0 ("start", new endpoint
    -- included) -> wraps to 0.875: loop (0 was the excluded old endpoint)
    -- -> 0.75 ("b")
    same(events, { "a@0.250 x=0.250", "start@0.000 x=0.000", "loop", "b@0.750 x=0.750" }, "reverse order")
    near(set:time(h), 0.75, 1e-6, "time"); near(set:speed(h), -1, 0, "speed")
end)

test("a non-looping track ends once and holds its end", function()
    local once = assert(bw.clip { name = "once", length = 0.5,
        joints = { { joint = "hips", keys = { { time = 0, t = { 0, 0, 0 } }, { time = 0.5, t = { 2, 0, 0 } } } } },
        markers = { { name = "end", time = 0.5 } } })
    local set = bw.track_set(rig)
    local events, callbacks = recorder(set)
    local h = assert(set:play(once, callbacks))
    for _ = 1, 8 do set:update(0.125) end
    -- the end marker then ENDED, once; the track keeps contributing its end sample
    same(events, { "end@0.500 x=2.000", "ended" }, "ended once")
    eq(set:alive(h), true, "still alive"); near(set:time(h), 0.5, 0, "held at the end")
    near(set:pose():t("hips"), 2, 1e-6, "end sample")
end)

test("stop fades the weight out, then the track is removed", function()
    local set = bw.track_set(rig)
    local events, callbacks = recorder(set)
    callbacks.on_marker = nil
    local h = assert(set:play(walk, callbacks))
    set:update(0.125)
    assert(set:stop(h, 0.25))
    eq(set:stopping(h), true, "stopping")
    set:update(0.125)
    -- linear fade 1 -> 0 over 0.25 s: half way after one 0.125 s step
    near(set:weight(h), 0.5, 1e-6, "weight half way")
    -- the composed hips x: rest 0 blended with clip x = 0.25 at weight 0.5
    near(set:pose():t("hips"), 0.125, 1e-6, "fading contribution")
    same(events, {}, "nothing yet")
    set:update(0.125)
    same(events, { "stopped" }, "stopped delivered")
    eq(set:alive(h), false, "removed"); eq(set:count(), 0, "no tracks")
    eq(set:time(h), nil, "time of a removed track")
    near(set:pose():t("hips"), 0, 0, "back to rest")
    -- per-track calls on a removed handle answer nil, message
    local ok, msg = set:stop(h)
    eq(ok, nil, "stop a removed track"); check(type(msg) == "string" and msg:find("track"), "message")
end)

test("fade-in, weights and priorities compose as SPEC §5 says", function()
    local const = function(x) return assert(bw.clip { name = "c" .. x, loop = true,
        joints = { { joint = "hips", keys = { { time = 0, t = { x, 1, 0 } } } } } }) end
    local set = bw.track_set(rig)
    local low = assert(set:play(const(1)))
    local high = assert(set:play(const(5), { priority = 1, weight = 0.25 }))
    set:update(0.125)
    -- rank 0 takes hips x to 1; rank 1 overlays with coverage 0.25: 1 + 0.25 * (5 - 1) = 2
    near(set:pose():t("hips"), 2, 1e-6, "priority overlay")
    set:set_priority(high, 0)
    set:compose()
    -- one rank: weighted mean (1 * 1 + 0.25 * 5) / 1.25 = 1.8, full coverage
    near(set:pose():t("hips"), 1.8, 1e-6, "same rank mean")
    local fading = bw.track_set(rig)
    local f = assert(fading:play(const(4), { fade_in = 0.5 }))
    fading:update(0.125)
    near(fading:weight(f), 0.25, 1e-6, "fade-in a quarter way")
    -- over the rest x = 0: 0.25 of the way to 4
    near(fading:pose():t("hips"), 1, 1e-6, "thin weight leaves the rest")
    assert(fading:fade(f, 0, 0))
    fading:compose()
    near(fading:pose():t("hips"), 0, 0, "weight 0 contributes nothing")
    eq(fading:alive(f), true, "a fade to 0 without stop keeps the track")
    eq(#set:handles(), 2, "handles"); eq(set:clip(low):name(), "c1", "clip of a track")
end)

test("set-wide callbacks, callbacks that play, and callback errors", function()
    local set = bw.track_set(rig, { capacity = 4 })
    local seen = {}
    set:on("marker", function(name, time, track) seen[#seen + 1] = name end)
    local first = assert(set:play(walk))
    local extra
    set:on("loop", function(track)
        -- playing from a callback is allowed: the core is not mid-drain
        extra = assert(set:play(walk, { time = 0.5 }))
    end)
    for _ = 1, 8 do set:update(0.125) end
    same(seen, { "start", "a", "b", "start" }, "set-wide marker callback")
    check(extra ~= nil and set:alive(extra), "track played from a callback")
    eq(set:count(), 2, "two tracks")
    set:on("loop", nil)
    set:on("marker", function(name) if name == "a" then error("boom at " .. name) end end)
    local ok, err = pcall(set.update, set, 0.125) -- first reaches 0.125, extra 0.625: nothing
    eq(ok, true, "no marker, no error")
    ok, err = pcall(set.update, set, 0.125)       -- first reaches 0.25: "a" raises
    eq(ok, false, "callback error propagates"); check(tostring(err):find("boom at a", 1, true), "message: " .. tostring(err))
    set:on("marker", nil)
    set:update(0.125) -- the set is still consistent afterwards
    near(set:time(first), 0.375, 1e-6, "still playing")
    raises(function() set:on("marker", function() set:drain() end); set:update(1) end, "called from a track set callback")
end)

test("a full set answers nil, message; signal capacity bounds the queue", function()
    local set = bw.track_set(rig, { capacity = 1 })
    assert(set:play(walk))
    local h, msg = set:play(walk)
    eq(h, nil, "full"); check(msg and msg:find("full"), "message: " .. tostring(msg))
    -- a 100 s stall at speed 1 crosses 100 loops: at most 16 loop signals
    -- and 4 cycles of markers (3 each) are queued per advance
    local big = bw.track_set(rig)
    local loops, markers = 0, 0
    local h = assert(big:play(walk, { on_loop = function() loops = loops + 1 end,
        on_marker = function() markers = markers + 1 end }))
    big:update(0.125) -- "start"
    markers = 0
    big:update(100)
    eq(loops, 16, "loop signals capped at 16"); check(markers <= 12, "marker cycles capped: " .. markers)
    big:update(0 / 0); big:update(-1); big:update(1 / 0) -- non-finite / negative dt count as 0
    near(big:time(h), 0.125, 1e-6, "time unchanged by bad dt")
end)

test("misuse raises errors naming the argument", function()
    local set = bw.track_set(rig)
    raises(function() bw.track_set("rig") end, "bad argument #1 to 'track_set'", "blendwerk.Rig expected")
    raises(function() bw.track_set(rig, { capacity = -1 }) end, "bad argument #2 to 'track_set'", "capacity")
    raises(function() bw.track_set(rig, { size = 3 }) end, "bad argument #2 to 'track_set'", "unknown field 'size'")
    raises(function() set:play("walk") end, "bad argument #1 to 'play'", "blendwerk.Clip or blendwerk.Binding expected")
    raises(function() set:play(walk, { speed = 0 / 0 }) end, "bad argument #2 to 'play'", "speed is NaN")
    raises(function() set:play(walk, { sped = 2 }) end, "bad argument #2 to 'play'", "unknown field 'sped'")
    raises(function() set:play(walk, { on_marker = 5 }) end, "bad argument #2 to 'play'", "on_marker must be a function")
    raises(function() set:play(walk, { loop = "yes" }) end, "bad argument #2 to 'play'", "loop must be a boolean")
    local other = assert(bw.rig { joints = { { name = "hips" } } })
    raises(function() set:play(walk:bind(other)) end, "bad argument #1 to 'play'", "another rig")
    raises(function() set:stop("h") end, "bad argument #1 to 'stop'", "number expected")
    raises(function() set:fade(1, 0 / 0) end, "bad argument #2 to 'fade'", "NaN")
    raises(function() set:on("bounce", print) end, "bad argument #1 to 'on'", "invalid option 'bounce'")
    raises(function() set:compose(other:pose()) end, "bad argument #1 to 'compose'", "another rig")
    eq(set:time(12345), nil, "unknown handle"); eq(set:alive(12345), false, "unknown handle alive")
    set:close()
    raises(function() set:count() end, "calling 'count' on bad self", "blendwerk.TrackSet is closed")
end)

test("play refusals say why; 0 speed holds and 0 weight silences", function()
    local set = bw.track_set(rig, { capacity = 1 })
    raises(function() set:play(walk, { weight = -1 }) end, "bad argument #2 to 'play'", "weight must be >= 0")
    raises(function() set:play(walk, { fade_in = -1 }) end, "bad argument #2 to 'play'", "fade_in must be >= 0")
    raises(function() set:play(walk, { wieght = 1 }) end, "bad argument #2 to 'play'", "unknown field 'wieght'")
    local held = assert(set:play(walk, { time = 0.5, speed = 0, weight = 0 }))
    local h, msg = set:play(walk)
    eq(h, nil, "full"); eq(msg, "track set is full (capacity 1)", "full message")
    set:update(0.25)
    -- held: the time stays at 0.5; silent: weight 0, so the hips show the rest x = 0
    near(set:time(held), 0.5, 0, "held"); near(set:weight(held), 0, 0, "silent")
    near(set:pose():t("hips"), 0, 0, "silent track contributes nothing")
    -- track_pose samples the track alone on request: hips x = clip time 0.5
    near(set:track_pose(held):t("hips"), 0.5, 1e-6, "track pose")
    eq(set:track_pose(12345), nil, "unknown handle")
end)

test("angle curves compose along the shortest arc", function()
    -- two tracks holding 350 deg and 10 deg at weight 0.5 each, one rank,
    -- over the rig's rest 0: unwrapped to -10 and +10 deg, mean 0 rad
    local arig = assert(bw.rig { joints = { { name = "hips" } }, curves = { { name = "yaw", angle = true } } })
    local function hold(deg)
        return assert(bw.clip { name = "y" .. deg, length = 1, loop = true,
            curves = { { name = "yaw", angle = true, keys = { { time = 0, value = math.rad(deg) } } } } })
    end
    local set = bw.track_set(arig)
    assert(set:play(hold(350), { weight = 0.5 })); assert(set:play(hold(10), { weight = 0.5 }))
    local yaw, cov = set:update(0.125):curve("yaw")
    near(yaw, 0, 1e-6, "yaw 0 rad"); near(cov, 1, 0, "coverage")
end)

finish()
