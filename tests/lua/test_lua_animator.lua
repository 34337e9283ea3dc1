-- test_lua_animator.lua - blendwerk.animator from Lua (docs/animator.md):
-- locomotion weights and rates, explicit clips by name, head aim and gaze,
-- a gesture, validation with Lua field paths, and descriptions refused
-- with nil, message. Numbers worked out by hand in the comments.

local bw = rawget(_G, "blendwerk") or require("blendwerk")
local h = dofile((arg[0]:match("^(.*[/\\])") or "./") .. "harness.lua")
local test, check, eq, near, fails, finish = h.test, h.check, h.eq, h.near, h.fails, h.finish

-- root -> spine -> neck_01 -> neck_02 -> head, identity rests
local rig = assert(bw.rig { joints = {
  { name = "root" }, { name = "spine", parent = "root" }, { name = "neck_01", parent = "spine" },
  { name = "neck_02", parent = "neck_01" }, { name = "head", parent = "neck_02" } } })
-- spine x from 0 to x1 over the length
local function clip(name, length, x1, joint)
  return assert(bw.clip { name = name, length = length, loop = true, joints = { { joint = joint or "spine",
    parent = joint and "neck_02" or "root", keys = { { time = 0, t = { 0, 0, 0 } }, { time = length, t = { x1, 0, 0 } } } } } })
end
local clips = { idle = clip("idle", 2.0, 0), walk = clip("walk", 1.0, 1), run = clip("run", 0.6, 2),
  wave = clip("wave", 1.0, 1, "head") }
local desc = { rig = rig, clips = clips, gestures = { "wave" }, blink = false,
  locomotion = { { clip = "idle", speed = 0 }, { clip = "walk", speed = 1.5 }, { clip = "run", speed = 4.0 } } }

local function play(a, name)
  for _, p in ipairs(a:plays()) do if p.clip == name then return p end end
end

test("locomotion from the planar speed, and explicit clips by name", function()
  local a = assert(bw.animator(desc))
  -- |(1.65, 2.2)| = 2.75: walk 0.5, run 0.5; cycle 0.8 s; dt 0.2 -> phase 0.25:
  -- walk at 0.25 s, run at 0.15 s
  eq(a:update(0.2, { velocity = { 1.65, 3, 2.2 } }), true, "update")
  local w, r = play(a, "walk"), play(a, "run")
  near(w.weight, 0.5, 1e-5, "walk weight"); near(r.weight, 0.5, 1e-5, "run weight")
  near(w.time, 0.25, 1e-5, "walk time"); near(r.time, 0.15, 1e-5, "run time")
  -- 6 m/s: run alone at 6 / 4 = 1.5x
  a:update(0.2, { velocity = { 0, 0, 6 } })
  near(play(a, "run").rate, 1.5, 1e-5, "run rate")
  -- clips = { walk = 1 }: walk alone whatever the speed; the pose shows it
  a:update(0.25, { velocity = { 0, 0, 6 }, clips = { walk = 1 } })
  eq(#a:plays(), 1, "one play")
  -- (an explicit clip runs on its own clock, from 0 the first time it has weight)
  near(play(a, "walk").time, 0.25, 1e-5, "walk on its own clock")
  local x = a:pose():t("spine")
  near(x, 0.25, 1e-5, "spine x")
end)

test("head aim clamps relative to the body and gives the rest to the eyes", function()
  local a = assert(bw.animator(desc))
  -- target on world +Z, body yawed 1.5: relative -1.5 -> head -1.2, eyes -0.3
  a:update(0, { yaw = 1.5, look_at = { 0, 0, 10 } })
  local yaw = a:head_aim()
  near(yaw, -1.2, 1e-5, "head yaw")
  near(a:gaze().yaw_l, -0.3, 1e-5, "gaze yaw")
  -- the camera when no look_at: camera on +X at body yaw 0 -> pi/2: head 1.2
  a:update(0, {}, { 10, 0, 0 })
  near((a:head_aim()), 1.2, 1e-5, "camera target")
  near(a:gaze().yaw_r, math.pi / 2 - 1.2, 1e-5, "gaze remainder")
end)

test("a gesture runs its envelope over the base", function()
  local a = assert(bw.animator(desc))
  -- wave: head x 0 -> 1 over 1 s; fade_in 0.25 linear: at t 0.125 weight 0.5,
  -- head x = 0.5 * 0.125 = 0.0625
  assert(a:gesture("wave", { fade_in = 0.25, fade_out = 0.5 }))
  a:update(0.125, {})
  near((a:pose():t("head")), 0.0625, 1e-5, "head x")
  fails("not listed in gestures", a:gesture("walk"))
  fails("no such clip 'wlak'", a:gesture("wlak"))
  fails("unknown curve", a:gesture("wave", { curve = "wobbly" }))
  fails("envelope must be a function", a:gesture("wave", { envelope = 3 }))
  -- numbers that are not finite floats never reach the core
  check(not pcall(a.gesture, a, "wave", { duration = 0 / 0 }), "a NaN duration raises")
  check(not pcall(a.gesture, a, "wave", { fade_in = "slow" }), "a string fade raises")
  check(not pcall(bw.animator, { rig = rig, clips = clips, blink = { seed = -1 } }), "a negative seed raises")
  check(not pcall(bw.animator, { rig = rig, clips = clips, blink = { seed = 1.5 } }), "a fractional seed raises")
  check(bw.animator { rig = rig, clips = clips, blink = { seed = 4294967295 } } ~= nil, "the largest seed")
end)

-- A Lua envelope replaces the default one: weight = 0.8 whatever t, so at
-- t 0.125 head x = 0.8 × 0.125 = 0.1; it is called with (t, duration).
-- One that fails gives weight 0 for that update (head x back to the base 0).
test("a gesture's Lua envelope shapes its weight", function()
  local a = assert(bw.animator(desc))
  local seen_t, seen_d
  assert(a:gesture("wave", { duration = 2, envelope = function(t, d) seen_t, seen_d = t, d; return 0.8 end }))
  a:update(0.125, {})
  near(seen_t, 0.125, 1e-6, "t"); near(seen_d, 2, 0, "duration")
  near((a:pose():t("head")), 0.1, 1e-5, "head x at weight 0.8")
  assert(a:gesture("wave", { duration = 2, envelope = function() error("envelope broke") end }))
  a:update(0.125, {})
  near((a:pose():t("head")), 0, 1e-6, "a failed envelope: weight 0")
end)

test("validation names the field with Lua paths", function()
  local a = assert(bw.animator(desc))
  local ok, problems = bw.validate_character_state({ velocity = { 0, 0 / 0, 0 } }, a)
  eq(ok, false, "NaN velocity")
  eq(problems[1], "state.velocity[2] is NaN", "message")
  ok, problems = bw.validate_character_state({ clips = { wlak = 1 } }, a)
  eq(problems[1], "state.clips.wlak: no such clip", "unknown clip")
  ok, problems = bw.validate_character_state({ clips = { walk = -1 } }, a)
  eq(problems[1], "state.clips.walk is negative", "negative weight")
  ok, problems = bw.validate_character_state({ yaw = "north" })
  eq(problems[1], "state.yaw is not a number", "yaw type")
  eq(bw.validate_character_state({ velocity = { 1, 0, 0 } }, a), true, "good state")
  -- update on a bad state keeps the previous one: still walking at 1.5 m/s
  a:update(0.1, { velocity = { 1.5, 0, 0 } })
  ok, problems = a:update(0.1, { velocity = { 1.5, 0, 0 }, clips = { wlak = 1 } })
  eq(ok, false, "bad update"); eq(problems[1], "state.clips.wlak: no such clip", "its problem")
  near(play(a, "walk").weight, 1, 1e-6, "previous state kept")
end)

-- A custom space of 3 numbers: out[1] = 2 × eyeBlinkLeft (ARKit slot 1),
-- out[2] = 7, out[3] = tongueOut (slot 52). With blink off and the state's
-- own expression (slot 1 = 0.25, slot 52 = 0.5) that is { 0.5, 7, 0.5 }.
-- The map reuses the same two tables every update (nothing allocated per
-- frame): out keeps what the last call left in it.
test("a custom expression space maps through Lua", function()
  local calls = 0
  local d = { rig = rig, clips = clips, blink = false, locomotion = desc.locomotion,
    expression_space = { kind = "custom", dim = 3, map = function(arkit, out)
      calls = calls + 1
      out[1] = 2 * arkit[1]; out[2] = 7; out[3] = arkit[52]
    end } }
  local a = assert(bw.animator(d))
  local ex = {}
  for i = 1, 52 do ex[i] = 0 end
  ex[1], ex[52] = 0.25, 0.5
  eq(a:update(0.1, { expression = ex }), true, "update")
  local e = a:expression()
  eq(#e, 3, "dim 3"); near(e[1], 0.5, 1e-6, "2 x eyeBlinkLeft"); near(e[2], 7, 0, "constant"); near(e[3], 0.5, 1e-6, "tongueOut")
  a:update(0.1, { expression = ex })
  eq(calls, 2, "one call per update")
  -- a map that fails gives 0 for that update; the animator keeps running
  local n = 0
  d.expression_space.map = function(arkit, out) n = n + 1; if n == 2 then error("map broke") end; out[1] = 1 end
  a = assert(bw.animator(d))
  a:update(0.1, {}); near(a:expression()[1], 1, 0, "first call")
  eq(a:update(0.1, {}), true, "update survives the map's error"); near(a:expression()[1], 0, 0, "failed call: 0")
  a:update(0.1, {}); near(a:expression()[1], 1, 0, "the next call counts again")
end)

test("bad descriptions are refused with a message", function()
  fails("no such clip 'jog'", bw.animator { rig = rig, clips = clips, locomotion = { { clip = "jog", speed = 2 } } })
  fails("a custom space needs dim", bw.animator { rig = rig, clips = clips, expression_space = { kind = "custom" } })
  fails("needs map = function", bw.animator { rig = rig, clips = clips, expression_space = { kind = "custom", dim = 3 } })
  fails("\"arkit52\" or \"custom\"", bw.animator { rig = rig, clips = clips, expression_space = { kind = "facs" } })
  fails("desc.head.chain[0]", bw.animator { rig = rig, clips = clips, head = { chain = { "nekc" } } })
  fails("unknown field 'locomtion'", bw.animator { rig = rig, clips = clips, locomtion = {} })
  local a = assert(bw.animator(desc))
  a:close()
  check(not pcall(a.update, a, 0.1, {}), "closed animator raises")
end)

finish()
