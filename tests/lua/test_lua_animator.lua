-- test_lua_animator.lua - blendwerk.animator from Lua (docs/animator.md):
-- locomotion weights and rates, explicit clips by name, head aim and gaze,
-- a gesture, a graph driven by params and fire (state and weights after N
-- updates), set_graph carrying the character over, events, face drive
-- weights, clips from an Asset, validation of 15 malformed states with
-- their exact Lua paths, 10,000 updates that allocate nothing, and
-- descriptions refused with nil, message. Numbers worked out by hand in
-- the comments.

local bw = rawget(_G, "blendwerk") or require("blendwerk")
local h = dofile((arg[0]:match("^(.*[/\\])") or "./") .. "harness.lua")
local test, check, eq, near, raises, fails, finish = h.test, h.check, h.eq, h.near, h.raises, h.fails, h.finish

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
-- walk again, with a marker "step" at 0.45 s (the graph tests' walk)
clips.stride = assert(bw.clip { name = "stride", length = 1.0, loop = true, markers = { { name = "step", time = 0.45 } },
  joints = { { joint = "spine", parent = "root", keys = { { time = 0, t = { 0, 0, 0 } }, { time = 1.0, t = { 1, 0, 0 } } } } } })
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

-- a:warnings() holds what creation warned of: a rig with two joints named
-- "head" (one under the neck, one under an arm) has no head aim from the
-- default chain, and says so once; the rig above has one head: none.
test("warnings: the default chain passing over a name the rig has twice", function()
  local twins = assert(bw.rig { joints = { { name = "root" }, { name = "neck", parent = "root" },
    { name = "head", parent = "neck" }, { name = "arm", parent = "root" }, { name = "head", parent = "arm" } } })
  local idle = assert(bw.clip { name = "idle", length = 1, joints = { { joint = "root", parent = "",
    keys = { { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 0, 0, 0 } } } } } })
  local a = assert(bw.animator { rig = twins, clips = { idle = idle }, blink = false })
  local w = a:warnings()
  eq(#w, 1, "one warning")
  eq(w[1], "head: the default head chain passes over 'head': the rig has several joints of that name " ..
    "(name the chain: head.chain = { ..., 'parent/head' })", "the warning")
  w[1] = "changed"
  eq(a:warnings()[1]:sub(1, 5), "head:", "a new list each call")
  local plain = assert(bw.animator(desc))
  eq(#plain:warnings(), 0, "no warning for one head")
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
  -- the animator's limits (desc gives no head field: the defaults) are the ones Lua
  -- reads from blendwerk.aim_defaults(): pi/2 clamps at yaw exactly
  eq((a:head_aim()), bw.aim_defaults().yaw, "the animator's yaw limit is aim_defaults().yaw")
  a:update(0, { yaw = 0, look_at = { 0, 10, 0.001 } }) -- straight up: pitch ~pi/2
  local _, pitch = a:head_aim()
  eq(pitch, bw.aim_defaults().pitch, "the animator's pitch limit is aim_defaults().pitch")
end)

-- A limit given as 0 is 0 (as scripts/head_aim.lua and aim_clamp take
-- it); an absent one is the default. yaw_limit 0 was taken as "the
-- default 1.2": the head turned -1.2 where it should stay still.
test("a head limit of 0 keeps that part still; absent limits are the defaults", function()
  local d = {}
  for k, v in pairs(desc) do d[k] = v end
  d.head = { yaw_limit = 0 }
  local a = assert(bw.animator(d))
  -- relative yaw -1.5 (as above): the head takes 0, the eyes their 0.6
  a:update(0, { yaw = 1.5, look_at = { 0, 0, 10 } })
  near((a:head_aim()), 0, 0, "head yaw limit 0")
  near(a:gaze().yaw_l, -0.6, 1e-5, "the eyes' default limit")
  local hy = bw.aim_clamp(-1.5, 0, 0, { yaw = 0 })
  near(hy, 0, 0, "aim_clamp agrees")
  -- straight up: the pitch limit, absent, is the default
  a:update(0, { yaw = 0, look_at = { 0, 10, 0.001 } })
  local _, pitch = a:head_aim()
  eq(pitch, bw.aim_defaults().pitch, "absent pitch_limit: the default")
  d.head = { yaw_limit = 0.5, eye_yaw_limit = 0 }
  a = assert(bw.animator(d))
  a:update(0, { yaw = 1.5, look_at = { 0, 0, 10 } })
  near((a:head_aim()), -0.5, 1e-6, "head yaw 0.5")
  near(a:gaze().yaw_l, 0, 0, "eye yaw limit 0")
end)

test("joint_overrides names the chain; broken output records are remade, written raw", function()
  local a = assert(bw.animator(desc))
  a:update(0, { yaw = 0, look_at = { 10, 0, 10 } })
  local o = a:joint_overrides()
  eq(#o, 3, "the default chain")
  -- the joints as they are (all three were named "root", the name before the first update)
  eq(o[1].joint, "neck_01"); eq(o[2].joint, "neck_02"); eq(o[3].joint, "head")
  local pose = a:pose()
  for i, j in ipairs { 3, 4, 5 } do
    local x, y, z, w = pose:r(j)
    near(o[i].r[2], y, 0, "override " .. i .. " y"); near(o[i].r[4], w, 0, "override " .. i .. " w")
  end
  -- a script breaks the records: r not a table (a crash: lua_rawseti on a
  -- number), a record replaced, a record whose reads would run code
  local ran = false
  o[1].r = 5
  o[2] = 7
  o[3] = setmetatable({}, { __index = function() ran = true; a:close() end, __newindex = function() ran = true end })
  local again = a:joint_overrides()
  check(rawequal(again, o), "the same list")
  check(not ran, "no metamethod ran")
  eq(type(o[1].r), "table", "r made anew"); eq(o[2].joint, "neck_02", "record 2 made anew")
  eq(rawget(o[3], "joint"), "head", "record 3 filled raw")
  local x, y, z, w = pose:r(5)
  near(rawget(o[3], "r")[4], w, 0, "record 3 r.w")
  -- the event records too: fields taken out and a __newindex that closes the
  -- animator (it ran mid-refresh: a use after free)
  local b = assert(bw.animator(desc))
  b:update(0.5, { clips = { stride = 1 } }) -- stride's marker "step" at 0.45 s
  local ev = b:events()
  eq(#ev, 1, "one marker"); eq(ev[1].name, "step", "the marker")
  local rec = ev[1]
  for k in pairs(rec) do rec[k] = nil end
  setmetatable(rec, { __newindex = function() ran = true; b:close() end })
  b:events()
  check(not ran, "no __newindex ran")
  eq(rawget(rec, "kind"), "marker", "refreshed raw"); eq(rawget(rec, "name"), "step")
  eq(#b:plays(), 1, "still open")
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
  eq(ok, nil, "NaN velocity")
  eq(problems[1], "state.velocity[2] is NaN", "message")
  ok, problems = bw.validate_character_state({ clips = { wlak = 1 } }, a)
  eq(problems[1], "state.clips.wlak: no such clip", "unknown clip")
  ok, problems = bw.validate_character_state({ clips = { walk = -1 } }, a)
  eq(problems[1], "state.clips.walk is negative", "negative weight")
  ok, problems = bw.validate_character_state({ yaw = "north" })
  eq(problems[1], "state.yaw is not a number", "yaw type")
  eq(bw.validate_character_state({ velocity = { 1, 0, 0 } }, a), true, "good state")
  -- every problem at once: a name the reader refuses no longer hides the
  -- core's numeric checks (the NaN was reported only once the names were
  -- mended)
  ok, problems = bw.validate_character_state({ velocity = { 0, 0 / 0, 0 }, clips = { wlak = 1 } }, a)
  eq(ok, nil, "two problems")
  eq(#problems, 2, "both")
  eq(problems[1], "state.clips.wlak: no such clip", "the reader's")
  eq(problems[2], "state.velocity[2] is NaN", "the core's")
  -- update on a bad state keeps the previous one: still walking at 1.5 m/s
  a:update(0.1, { velocity = { 1.5, 0, 0 } })
  ok, problems = a:update(0.1, { velocity = { 1.5, 0, 0 }, clips = { wlak = 1 } })
  eq(ok, nil, "bad update"); eq(problems[1], "state.clips.wlak: no such clip", "its problem")
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
  -- a dim beyond int range is no dim (it was cast first: 2^32 + 3 read as 3)
  fails("a custom space needs dim", bw.animator { rig = rig, clips = clips,
    expression_space = { kind = "custom", dim = (1 << 32) + 3, map = function() end } })
  fails("\"arkit52\" or \"custom\"", bw.animator { rig = rig, clips = clips, expression_space = { kind = "facs" } })
  -- the core's paths in Lua terms, 1-based as the binding's own (they read
  -- desc.head.chain[0], desc.locomotion[0].speed)
  fails("head.chain[1]", bw.animator { rig = rig, clips = clips, head = { chain = { "nekc" } } })
  fails("animator: locomotion[1].speed:", bw.animator { rig = rig, clips = clips, locomotion = { { clip = "walk", speed = -1 } } })
  fails("unknown field 'locomtion'", bw.animator { rig = rig, clips = clips, locomtion = {} })
  fails("locomotion[1]: unknown field 'sped'", bw.animator { rig = rig, clips = clips, locomotion = { { clip = "walk", sped = 1 } } })
  fails("locomotion[2].speed is required", bw.animator { rig = rig, clips = clips,
    locomotion = { { clip = "walk", speed = 1 }, { clip = "run" } } })
  fails("locomotion must be a list", bw.animator { rig = rig, clips = clips, locomotion = "walk" })
  fails("blink: unknown field 'sead'", bw.animator { rig = rig, clips = clips, blink = { sead = 1 } })
  fails("head must be a table", bw.animator { rig = rig, clips = clips, head = true })
  fails("head.weights[2] must be a number", bw.animator { rig = rig, clips = clips,
    head = { chain = { "neck_01", "head" }, weights = { 0.5, "half" } } })
  fails("expression_space must be a table", bw.animator { rig = rig, clips = clips, expression_space = "arkit52" })
  fails("graph must be a blendwerk.Graph", bw.animator { rig = rig, clips = clips, graph = {} })
  fails("clips.walk is not a blendwerk.Clip", bw.animator { rig = rig, clips = { walk = 3 } })
  fails("face[1]: no such clip 'grin'", bw.animator { rig = rig, clips = clips, face = { "grin" } })
  local a = assert(bw.animator(desc))
  a:close()
  check(not pcall(a.update, a, 0.1, {}), "closed animator raises")
end)

-- ---- graphs ----

-- The graph: params speed (float), jump (trigger), crouch (bool); layer
-- base: idle (IDLE, entry), MOVE (stride: spine x 0 -> 1 over 1 s, marker
-- "step" at 0.45 s), jump (run); idle -> MOVE when speed > 0.5 over 0.5 s
-- (linear), * -> jump on jump at once, jump -> idle at exit time 1.
local function graph_desc(move)
  return {
    params = { speed = 0, jump = "trigger", crouch = false },
    layers = { { name = "base", entry = "idle",
      states = { idle = { clip = "idle" }, [move] = { clip = "stride" }, jump = { clip = "run" } },
      transitions = {
        { from = "idle", to = move, when = { "speed > 0.5" }, duration = 0.5 },
        { from = "*", to = "jump", when = { "jump" }, duration = 0 },
        { from = "jump", to = "idle", exit_time = 1, duration = 0 },
      } } },
  }
end
local graph_clips = { clips = { clips.idle, clips.stride, clips.run } }
local function graph_animator(graph, extra)
  local d = { rig = rig, clips = clips, graph = graph, blink = false, head = { disabled = true } }
  for k, v in pairs(extra or {}) do d[k] = v end
  return assert(bw.animator(d))
end
local function spine_x(a) return (a:pose():t("spine")) end
local function kinds(a)
  local out = {}
  for i, e in ipairs(a:events()) do out[i] = e.kind .. ":" .. tostring(e.name) end
  return table.concat(out, ",")
end

-- dt 0.125 throughout. Update 1 (speed 1): idle advances, idle -> move fires
-- (move at p 0, fade weight 0). Updates 2-4: move at p 0.125 k, fade weight
-- 0.25 k over the idle source (x 0): x = 0.25 k × 0.125 k: 0.03125, 0.125,
-- 0.28125. Update 5: p 0.5, the fade is over (0.5 s), x 0.5, and the step
-- marker at 0.45 s was crossed (0.375 -> 0.5).
local function walk_in(a)
  eq(a:update(0.125, { params = { speed = 1 } }), true, "update 1")
  local s = a:status()
  eq(s.state, "move", "state after update 1"); near(s.progress, 0, 0, "progress 1")
  near(s.transition.weight, 0, 0, "fade weight 1"); eq(s.transition.from, "idle", "from")
  -- the cursor's status fields (one implementation, lua_graph_fields.h):
  -- no travel queued; idle -> move is the layer's transition 1, live by
  -- default, just fired (elapsed 0 of its 0.5 s)
  eq(s.travel_pending, 0, "no travel queued")
  eq(s.transition.index, 1, "transition 1 of the layer"); eq(s.transition.mode, "live", "the default mode")
  eq(s.transition.frozen, false, "a live source"); eq(s.transition.to, "move", "to")
  near(s.transition.elapsed, 0, 0, "elapsed 1"); near(s.transition.duration, 0.5, 0, "duration")
  eq(kinds(a), "enter:idle,exit:idle,enter:move", "events 1")
  local want = { 0.03125, 0.125, 0.28125 }
  for k = 2, 4 do
    a:update(0.125, {})
    s = a:status("base")
    near(s.progress, 0.125 * (k - 1), 1e-9, "progress " .. k)
    near(s.transition.weight, 0.25 * (k - 1), 1e-6, "fade weight " .. k)
    near(s.transition.elapsed, 0.125 * (k - 1), 1e-6, "elapsed " .. k); eq(s.transition.index, 1, "index " .. k)
    near(spine_x(a), want[k - 1], 1e-5, "spine x " .. k)
  end
  a:update(0.125, {})
  s = a:status(1)
  eq(s.transition, nil, "the fade is over")
  near(s.progress, 0.5, 1e-9, "progress 5"); near(spine_x(a), 0.5, 1e-5, "spine x 5")
  -- the layer argument as the cursor reads it (one lookup): the graph has one layer
  raises(function() a:status("legs") end, "bad argument #1 to 'status'", "unknown layer 'legs'")
  raises(function() a:status(2) end, "layer index 2 out of range 1..1")
  raises(function() a:status(0) end, "layer index 0 out of range 1..1")
end

test("travel through the animator: queued edges, travel_pending, errors", function()
  local g = assert(bw.graph(graph_desc("move"), graph_clips))
  local a = graph_animator(g)
  -- from idle, jump is one edge away (* -> jump): queued, then fired by
  -- the next update although the jump trigger was never fired
  eq(a:travel("jump"), true, "travel to jump")
  eq(a:status().travel_pending, 1, "one edge queued")
  a:update(0.125, {})
  eq(a:status().state, "jump", "arrived"); eq(a:status().travel_pending, 0, "nothing left")
  -- from jump to move: jump -> idle at exit time 1 (run, 0.6 s: p 1 after
  -- five more updates of 0.125 s), then idle -> move (its speed condition
  -- ignored) in the update after
  eq(a:travel("move", "base"), true, "travel to move")
  eq(a:status().travel_pending, 2, "two edges queued")
  for _ = 1, 4 do a:update(0.125, {}) end
  eq(a:status().state, "jump", "still in the air at p 0.833")
  a:update(0.125, {})
  eq(a:status().state, "idle", "jump -> idle at p 1.04"); eq(a:status().travel_pending, 1, "one edge left")
  a:update(0.125, {})
  eq(a:status().state, "move", "idle -> move without speed"); eq(a:status().travel_pending, 0, "arrived")
  raises(function() a:travel("fly") end, "bad argument #1 to 'travel'", "unknown state 'fly' in layer 'base'")
  raises(function() a:travel("idle", "legs") end, "unknown layer 'legs'")
  local plain = assert(bw.animator(desc))
  raises(function() plain:travel("idle") end, "the animator has no graph")
end)

test("a graph driven by params and fire: state and weights after each update", function()
  local g = assert(bw.graph(graph_desc("move"), graph_clips))
  local a = graph_animator(g)
  walk_in(a)
  local e = a:events()
  eq(#e, 1, "one event in update 5")
  eq(e[1].kind, "marker"); eq(e[1].name, "step"); eq(e[1].layer, "base"); eq(e[1].state, "move")
  eq(e[1].clip, "stride"); near(e[1].time, 0.45, 1e-6, "marker time")
  -- update 6 fires jump: move advances to 0.625 and leaves; jump (run) at p 0: x 0
  eq(a:update(0.125, { fire = { "jump" }, params = { crouch = true } }), true, "update 6")
  eq(a:status().state, "jump", "jumped"); near(spine_x(a), 0, 1e-6, "run at 0")
  eq(kinds(a), "exit:move,enter:jump", "events 6")
  eq(a:param("jump"), false, "the trigger was consumed"); eq(a:param("crouch"), true, "bool param")
  near(a:param("speed"), 1, 0, "float param")
  -- the graph decides: locomotion and clip weights of the state do not count
  a:update(0.125, { velocity = { 0, 0, 4 }, clips = { walk = 1 } })
  eq(#a:plays(), 0, "no locomotion plays under a graph")
  -- run (0.6 s) at p 0.125 / 0.6: x = 2 × 0.125 / 0.6
  near(spine_x(a), 2 * 0.125 / 0.6, 1e-5, "jump plays run")
end)

-- A trigger fired twice in a frame fires once (SPEC §11): a list longer
-- than the graph's 3 parameters was refused whole ("state.fire has 4
-- names, the graph has 3 parameters"), and that frame's state was lost.
test("a trigger named twice in fire fires once", function()
  local g = assert(bw.graph(graph_desc("move"), graph_clips))
  local a = graph_animator(g)
  walk_in(a)
  eq(a:update(0.125, { fire = { "jump", "jump", "jump", "jump" }, params = { crouch = true } }), true, "update 6")
  eq(a:status().state, "jump", "jumped"); eq(a:param("jump"), false, "consumed once")
  eq(a:param("crouch"), true, "the frame's params applied")
  local ok, problems = a:update(0.125, { fire = { "jump", "jump", "jump", "jmup" } })
  eq(ok, nil, "a bad name still refuses")
  eq(#problems, 1, "one problem"); eq(problems[1], "state.fire[4]: no such trigger 'jmup'")
end)

-- Predicates (Lua) in the graph run on the thread that updates: first a
-- coroutine, collected afterwards, then the main thread, which must not
-- find the dead coroutine (ASan would).
test("graph predicates run on the updating thread, coroutines included", function()
  local seen = {}
  local function note(ok) seen[#seen + 1] = coroutine.running(); return ok end
  local g = assert(bw.graph({ params = { speed = 0 }, layers = { { name = "base", entry = "idle",
    states = { idle = { clip = "idle" }, move = { clip = "stride" } },
    transitions = {
      { from = "idle", to = "move", duration = 0, when = { function(p) return note(p.speed > 0.5) end } },
      { from = "move", to = "idle", duration = 0, when = { function(p) return note(p.speed < 0.5) end } },
    } } } }, graph_clips))
  local a = graph_animator(g)
  local co = coroutine.create(function() a:update(0.125, { params = { speed = 1 } }) end)
  assert(coroutine.resume(co))
  eq(a:status().state, "move", "the predicate held")
  check(seen[1] == co, "it ran in the coroutine")
  co = nil
  collectgarbage("collect")
  a:update(0.125, { params = { speed = 0 } })
  eq(a:status().state, "idle", "the main thread's update ran move -> idle")
  local main = coroutine.running()
  check(seen[#seen] == main, "and its predicate ran on the main thread")
end)

-- An update nested in another of the same graph (here a predicate
-- updating a second animator) gives the thread back: the outer update's
-- later predicates still run on its coroutine.
test("a nested update restores the thread of the graph's predicates", function()
  local a2, inside, nested, after = nil, false, false, nil
  local g = assert(bw.graph({ params = { speed = 0 }, layers = { { name = "base", entry = "idle",
    states = { idle = { clip = "idle" }, move = { clip = "stride" } },
    transitions = {
      { from = "idle", to = "move", duration = 0, when = { function()
        if not inside then
          inside = true
          a2:update(0.125, {})
          inside, nested = false, true
        end
        return false
      end } },
      { from = "idle", to = "move", duration = 0, when = { function(p)
        if nested and after == nil then after = coroutine.running() end
        return p.speed > 0.5
      end } },
    } } } }, graph_clips))
  local a = graph_animator(g)
  a2 = graph_animator(g)
  local co = coroutine.create(function() assert(a:update(0.125, { params = { speed = 1 } })) end)
  assert(coroutine.resume(co))
  check(nested, "the second animator updated inside the first's predicate")
  check(after == co, "the later predicate ran in the coroutine")
  eq(a:status().state, "move", "the outer update's predicate held")
  eq(a2:status().state, "idle", "the inner update stayed")
end)

test("set_graph carries the character over; refusals change nothing", function()
  local a = graph_animator(assert(bw.graph(graph_desc("move"), graph_clips)))
  walk_in(a)
  local d2 = graph_desc("move")
  d2.params.lean = 0
  assert(a:set_graph(assert(bw.graph(d2, graph_clips)), 0.25))
  local s = a:status()
  eq(s.state, "move", "kept by name"); near(s.progress, 0.5, 1e-9, "its progress")
  eq(s.transition, nil, "same state, same pose, no transition: nothing to fade")
  near(a:param("speed"), 1, 0, "speed carried by name"); near(a:param("lean"), 0, 0, "lean: its default")
  -- one update of 0.125: move at p 0.625, x 0.625 at full weight
  a:update(0.125, {})
  near(spine_x(a), 0.625, 1e-5, "the walk goes on as it was")
  -- a graph whose clip the animator lacks, or whose clip has another length
  local hop = assert(bw.clip { name = "hop", length = 1, joints = { { joint = "spine", parent = "root",
    keys = { { time = 0, t = { 0, 0, 0 } } } } } })
  local long_walk = assert(bw.clip { name = "walk", length = 2, joints = { { joint = "spine", parent = "root",
    keys = { { time = 0, t = { 0, 0, 0 } } } } } })
  local one = function(clip) return { layers = { { name = "base", entry = "idle", states = { idle = { clip = clip } } } } } end
  fails("graph: clip 'hop' is not among the animator's clips", a:set_graph(assert(bw.graph(one("hop"), { clips = { hop } }))))
  fails("graph: clip 'walk' is 2 s long in the graph, 1 s in the animator",
    a:set_graph(assert(bw.graph(one("walk"), { clips = { long_walk } }))))
  fails("graph: clip 'hop' is not among the animator's clips",
    bw.animator { rig = rig, clips = clips, graph = assert(bw.graph(one("hop"), { clips = { hop } })) })
  s = a:status()
  eq(s.state, "move", "still move"); near(s.progress, 0.625, 1e-9, "still its progress")
  -- a removed state restarts its layer at the entry
  assert(a:set_graph(assert(bw.graph(graph_desc("stroll"), graph_clips)), 0))
  eq(a:status().state, "idle", "move is gone: the entry"); near(a:status().progress, 0, 0, "at its start")
  -- with a fade: the layer restarts at the entry and fades from the old
  -- pose, a reload fade (docs/graphs.md): from nil, index 0, freeze, frozen
  local f = graph_animator(assert(bw.graph(graph_desc("move"), graph_clips)))
  walk_in(f)
  assert(f:set_graph(assert(bw.graph(graph_desc("stroll"), graph_clips)), 0.25))
  eq(f:status().state, "idle", "faded: the entry too")
  local t = f:status().transition
  eq(t and t.from, nil, "a reload fade has no source state"); eq(t and t.to, "idle", "to the entry")
  eq(t and t.index, 0, "a reload fade: index 0"); eq(t and t.mode, "freeze", "a reload fade: freeze")
  eq(t and t.frozen, true, "frozen"); near(t and t.duration, 0.25, 0, "over the fade"); near(t and t.elapsed, 0, 0, "not begun")
  eq(f:status().travel_pending, 0, "no travel queued")
  -- the same Clip under another name binds too (identity), and nil removes the graph
  local renamed = { rig = rig, clips = { rest = clips.idle, stride = clips.stride, run = clips.run } }
  local b = assert(bw.animator(renamed))
  assert(b:set_graph(assert(bw.graph(graph_desc("move"), graph_clips))))
  eq(b:status().state, "idle", "bound by identity")
  assert(b:set_graph(nil))
  check(not pcall(b.status, b), "no graph: status raises")
  raises(function() a:set_graph(3) end, "blendwerk.Graph or nil")
  raises(function() a:set_graph(nil, -1) end, "fade must be >= 0")
end)

test("events: base markers, gesture end, blink; the same list each call", function()
  local a = assert(bw.animator { rig = rig, clips = clips, gestures = { "wave" }, head = { disabled = true },
    blink = { seed = 5, interval_min = 0.4, interval_max = 0.4 } })
  assert(a:gesture("wave", { duration = 0.25 }))
  -- 0.5 s of stride alone crosses step (0.45); the 0.25 s gesture ends; the
  -- first blink starts at 0.4 s (the next at 0.8)
  a:update(0.5, { clips = { stride = 1 } })
  local e = a:events()
  eq(kinds(a), "marker:step,gesture_end:false,blink:false", "events")
  eq(e[1].clip, "stride"); near(e[1].time, 0.45, 1e-6, "marker time"); eq(e[1].layer, false, "no layer")
  eq(e[2].clip, "wave", "the gesture's clip")
  check(rawequal(a:events(), e), "the same table")
  a:update(0.125, { clips = { stride = 1 } })
  eq(#a:events(), 0, "no events")
end)

test("face drive weights by name; a custom space takes dim numbers", function()
  local smile = assert(bw.clip { name = "smile", length = 2, loop = true, curves = { { name = "mouthSmileLeft",
    keys = { { time = 0, value = 0.2 }, { time = 1, value = 0.6 } } } } })
  local fc = { idle = clips.idle, smile = smile }
  local a = assert(bw.animator { rig = rig, clips = fc, face = { "smile" }, blink = false })
  -- smile at 0.5 s: 0.2 + 0.5 × 0.4 = 0.4, driven at 0.5: 0.2 (mouthSmileLeft: slot 24)
  eq(a:update(0.5, { face = { smile = 0.5 } }), true, "update")
  near(a:expression()[24], 0.2, 1e-6, "mouthSmileLeft")
  a:update(0.5, {})
  near(a:expression()[24], 0, 0, "no drive weight: 0")
  local ok, p = bw.validate_character_state({ face = { grin = 1 } }, a)
  eq(p[1], "state.face.grin: no such face clip", "unknown face clip")
  ok, p = bw.validate_character_state({ face = { smile = -1 } }, a)
  eq(p[1], "state.face.smile is negative", "negative face weight")
  local c = assert(bw.animator { rig = rig, clips = fc, blink = false,
    expression_space = { kind = "custom", dim = 3, map = function(_, out) out[1] = 9 end } })
  eq(c:update(0.1, { expression = { 1, 2, 3 } }), true, "3 numbers")
  local x = c:expression()
  eq(x[1] .. "," .. x[2] .. "," .. x[3], "1.0,2.0,3.0", "copied as is")
  check(rawequal(c:expression(), x), "the same table")
  ok, p = bw.validate_character_state({ expression = { 1, 2 } }, c)
  eq(p[1], "state.expression has 2 numbers, expected 52 or 3", "wrong count")
end)

test("clips = Asset: its clips by their names", function()
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p '" .. dir .. "'"))
  local path = dir .. "/hop.bvh"
  local f = assert(io.open(path, "wb"))
  f:write("HIERARCHY\nROOT root\n{\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n",
    "  JOINT spine\n  {\n    OFFSET 0 1 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n",
    "    End Site\n    {\n      OFFSET 0 1 0\n    }\n  }\n}\nMOTION\nFrames: 3\nFrame Time: 0.5\n",
    "0 0 0 0 0 0 0 0 0\n0 1 0 0 0 0 0 0 0\n0 2 0 0 0 0 0 0 0\n")
  f:close()
  local asset = assert(bw.load(path))
  os.remove(path)
  os.execute("rmdir '" .. dir .. "'")
  local name = asset:clip(1):name()
  check(#name > 0, "the clip has a name")
  local a = assert(bw.animator { rig = asset:rig(), clips = asset, blink = false })
  eq(a:update(0.25, { clips = { [name] = 1 } }), true, "by the clip's name")
  local p = a:plays()
  eq(#p, 1, "one play"); eq(p[1].clip, name, "its name"); near(p[1].time, 0.25, 1e-6, "its clock")
  local ok, problems = bw.validate_character_state({ clips = { nope = 1 } }, a)
  eq(problems[1], "state.clips.nope: no such clip", "other names are not clips")
end)

-- Each malformed state alone, with the one problem it must produce.
test("validate_character_state: malformed states, each with its exact problem", function()
  local g = assert(bw.graph(graph_desc("move"), graph_clips))
  local smile = assert(bw.clip { name = "smile", length = 1, curves = { { name = "jawOpen",
    keys = { { time = 0, value = 0 } } } } })
  local fc = {}
  for k, v in pairs(clips) do fc[k] = v end
  fc.smile = smile
  local a = assert(bw.animator { rig = rig, clips = fc, graph = g, face = { "smile" }, blink = false })
  local nan_expression = {}
  for i = 1, 52 do nan_expression[i] = 0 end
  nan_expression[5] = 0 / 0
  local cases = {
    { { velocity = { 0, 0 / 0, 0 } }, "state.velocity[2] is NaN" },
    { { velocity = 3 }, "state.velocity must be a list of 3 numbers" },
    { { position = { 1, "x", 0 } }, "state.position[2] is not a number" },
    { { position = { 0, 0, math.huge } }, "state.position[3] is infinite" },
    { { yaw = "north" }, "state.yaw is not a number" },
    { { look_at = { 0 / 0, 0, 0 } }, "state.look_at[1] is NaN" },
    { { clips = { wlak = 1 } }, "state.clips.wlak: no such clip" },
    { { clips = { walk = -1 } }, "state.clips.walk is negative" },
    { { clips = { walk = "lots" } }, "state.clips.walk is not a number" },
    { { face = { grin = 1 } }, "state.face.grin: no such face clip" },
    { { expression = { 1, 2, 3 } }, "state.expression has 3 numbers, expected 52" },
    { { expression = nan_expression }, "state.expression[5] is NaN" },
    { { params = { sped = 1 } }, "state.params.sped: no such parameter" },
    { { params = { jump = 1 } }, "state.params.jump is a trigger: fire it" },
    { { params = { speed = 0 / 0 } }, "state.params.speed is NaN" },
    { { params = { speed = true } }, "state.params.speed is not a number" },
    { { params = { crouch = "yes" } }, "state.params.crouch is not a number or a boolean" },
    { { params = 1 }, "state.params must be a table { name = value }" },
    { { fire = { "jmup" } }, "state.fire[1]: no such trigger 'jmup'" },
    { { fire = { "speed" } }, "state.fire[1]: 'speed' is not a trigger" },
    { { fire = "jump" }, "state.fire must be a list of trigger names" },
    { { velocty = { 1, 0, 0 } },
      "state: unknown field 'velocty' (accepted fields: velocity, position, yaw, clips, face, look_at, expression, params, fire)" },
    { { yaw = 0, [true] = 1 },
      "state: unexpected boolean key (accepted fields: velocity, position, yaw, clips, face, look_at, expression, params, fire)" },
    { "walk", "state must be a table" },
  }
  check(#cases >= 15, "at least 15 cases")
  -- a good state first: walk in (the previous state every bad update keeps)
  eq(a:update(0.125, { params = { speed = 1 } }), true, "good state")
  for i, c in ipairs(cases) do
    local ok, problems = bw.validate_character_state(c[1], a)
    eq(ok, nil, "case " .. i .. " refused")
    eq(problems and #problems, 1, "case " .. i .. ": one problem")
    eq(problems and problems[1], c[2], "case " .. i)
    -- update: the same report, and the previous state stays
    local uok, uproblems = a:update(0.125, c[1])
    eq(uok, nil, "update " .. i .. " refused")
    eq(uproblems and uproblems[1], c[2], "update " .. i)
  end
  -- the bad updates still advanced the graph on the previous state:
  -- move faded in over 0.5 s long ago and sits at p = 0.125 × #cases
  local s = a:status()
  eq(s.state, "move", "the previous state ran"); near(s.progress, 0.125 * #cases, 1e-6, "progress")
  eq(bw.validate_character_state({ velocity = { 1, 0, 0 }, params = { speed = 2, crouch = true }, fire = { "jump" } }, a),
    true, "a good state")
  -- without an animator: names are not checked, numbers are
  eq(bw.validate_character_state({ clips = { anything = 1 }, params = { x = true } }), true, "no animator")
  local ok, problems = bw.validate_character_state({ params = { x = 0 / 0 } })
  eq(problems[1], "state.params.x is NaN", "no animator: NaN")
end)

test("10,000 updates with a graph allocate nothing (Lua's own count)", function()
  local smile = assert(bw.clip { name = "smile", length = 2, loop = true, curves = { { name = "jawOpen",
    keys = { { time = 0, value = 0.2 }, { time = 1, value = 0.6 } } } } })
  local fc = {}
  for k, v in pairs(clips) do fc[k] = v end
  fc.smile = smile
  local a = assert(bw.animator { rig = rig, clips = fc, graph = assert(bw.graph(graph_desc("move"), graph_clips)),
    face = { "smile" }, gestures = { "wave" }, blink = { seed = 3, interval_min = 0.5, interval_max = 2 } })
  local params = { speed = 0, crouch = false }
  local plain = { velocity = { 0, 0, 0 }, yaw = 0, look_at = { 1, 1.6, 3 }, params = params, face = { smile = 0.5 } }
  local jump = { velocity = { 0, 0, 0 }, yaw = 0, look_at = { 1, 1.6, 3 }, params = params, face = { smile = 0.5 },
    fire = { "jump" } }
  local camera = { 0, 1.7, -4 }
  local seen = 0
  local function frame(k)
    params.speed = (k % 50) / 25
    params.crouch = k % 2 == 0
    plain.yaw = 0.01 * k
    if k % 700 == 0 then a:gesture("wave") end
    local ok = a:update(1 / 60, k % 97 == 0 and jump or plain, camera)
    seen = seen + #a:events()
    a:pose(); a:expression(); a:gaze(); a:root_motion(); a:joint_overrides(); a:plays()
    return ok
  end
  for k = 1, 2000 do frame(k) end -- warm-up: every pool at its size
  collectgarbage("collect") -- (it also shrinks the Lua stack: a few frames regrow it)
  collectgarbage("stop")
  for k = 1, 10 do frame(k) end
  local before = collectgarbage("count")
  local bad = 0
  seen = 0
  for k = 1, 10000 do
    if not frame(k) then bad = bad + 1 end
  end
  local grown = (collectgarbage("count") - before) * 1024
  collectgarbage("restart")
  eq(bad, 0, "every state good")
  check(seen > 100, "events were delivered: " .. seen)
  eq(grown, 0, "bytes allocated over 10,000 updates")
end)
-- ---- graph:refresh_clips and the animators of the graph ----

-- walk: spine y 0 -> 1 over 1 s (y = τ); the re-exported walk: 4 s long,
-- y 0 -> 6 (y = 1.5 τ). The graph: walk (entry) and step, both playing
-- walk; walk -> step on the trigger go, at once.
local function walk_y(length, y1)
  return assert(bw.clip { name = "walk", length = length, loop = true, joints = { { joint = "spine", parent = "root",
    keys = { { time = 0, t = { 0, 0, 0 } }, { time = length, t = { 0, y1, 0 } } } } } })
end
local refresh_desc = { params = { go = "trigger" }, layers = { { name = "base", entry = "walk",
  states = { walk = { clip = "walk" }, step = { clip = "walk" } },
  transitions = { { from = "walk", to = "step", when = { "go" }, duration = 0 } } } } }
local function spine_y(a) return (select(2, a:pose():t("spine"))) end

test("refresh_clips rebinds the animators of the graph to the new clips", function()
  local w1, w4 = walk_y(1, 1), walk_y(4, 6)
  local g = assert(bw.graph(refresh_desc, { rig = rig, clips = { w1 } }))
  local c = assert(g:cursor())
  local a = assert(bw.animator { rig = rig, clips = { walk = w1 }, graph = g, blink = false, head = { disabled = true } })
  c:update(0.3); a:update(0.3, {})          -- both at p 0.3 of the 1 s walk (y 0.3)
  near(spine_y(a), 0.3, 1e-5, "the old walk before")
  eq(g:refresh_clips { w4 }, true, "refreshed")
  near(a:status().progress, 0.3, 1e-6, "the animator keeps its progress")
  -- 2 s at the new 4 s cycle: p 0.3 + 2 / 4 = 0.8 for both; τ = 3.2 s, y = 1.5 × 3.2 = 4.8
  for _ = 1, 4 do c:update(0.5); a:update(0.5, {}) end
  near(c:status().progress, 0.8, 1e-6, "the cursor on the new cycle")
  near(a:status().progress, 0.8, 1e-6, "the animator on the new cycle")
  near(spine_y(a), 4.8, 1e-4, "the animator samples the new walk")
  -- a state entered after the refresh: step at p 0 on the update that
  -- fires go, then 0.8 s: p 0.2, τ 0.8, y 1.2
  a:update(0.1, { fire = { "go" } })
  eq(a:status().state, "step", "step entered"); near(a:status().progress, 0, 0, "at its start")
  a:update(0.8, {})
  near(a:status().progress, 0.2, 1e-6, "step on the new length")
  near(spine_y(a), 1.2, 1e-4, "step samples the new walk")
  -- the animator took the new clip: its graph binds again, the old clip may go
  w1:close()
  collectgarbage(); collectgarbage()
  assert(a:set_graph(g, 0))
  eq(a:status().state, "step", "kept by set_graph"); near(a:status().progress, 0.2, 1e-6, "and its progress")
  a:update(0.4, {})                         -- p 0.3, τ 1.2, y 1.8
  near(spine_y(a), 1.8, 1e-4, "still the new walk after set_graph")
  -- a new animator takes the graph with the new clip, not the old one
  local w1b = walk_y(1, 1)
  fails("graph: clip 'walk' is 4 s long in the graph, 1 s in the animator",
    bw.animator { rig = rig, clips = { walk = w1b }, graph = g })
  assert(bw.animator { rig = rig, clips = { walk = w4 }, graph = g })
end)

test("an animator keeps the clips it plays alive, whoever else lets them go", function()
  -- the caller's clips table changed after creation: the animator's clip
  -- stays (it sampled freed memory once: the table was its only anchor)
  local t = { walk = walk_y(1, 1) }
  local a = assert(bw.animator { rig = rig, clips = t, blink = false, head = { disabled = true } })
  t.walk = nil
  collectgarbage(); collectgarbage()
  a:update(0.25, { clips = { walk = 1 } })   -- y = τ = 0.25
  near(spine_y(a), 0.25, 1e-5, "the walk after its table entry went")
  -- a clip taken through refresh_clips, after the animator left the graph
  -- and the graph took yet another: the animator's 4 s walk stays alive
  local w1 = walk_y(1, 1)
  local g = assert(bw.graph(refresh_desc, { rig = rig, clips = { w1 } }))
  local b = assert(bw.animator { rig = rig, clips = { walk = w1 }, graph = g, blink = false, head = { disabled = true } })
  eq(g:refresh_clips { walk_y(4, 6) }, true, "the animator takes the 4 s walk")
  assert(b:set_graph(nil))
  eq(g:refresh_clips { walk_y(2, 2) }, true, "the graph alone takes a 2 s walk")
  collectgarbage(); collectgarbage()
  local ok, why = b:set_graph(g, 0)
  eq(ok, nil, "the lengths differ")
  eq(why, "animator: graph: clip 'walk' is 2 s long in the graph, 4 s in the animator", "the animator's walk is the 4 s one")
  b:update(1, { clips = { walk = 1 } })      -- τ 1 of the 4 s walk: y = 1.5
  near(spine_y(b), 1.5, 1e-4, "and it still samples it")
end)

test("refresh_clips refuses a clip an animator baked, and from inside an update", function()
  local w1, w4 = walk_y(1, 1), walk_y(4, 6)
  local g = assert(bw.graph(refresh_desc, { rig = rig, clips = { w1 } }))
  local c = assert(g:cursor())
  local a = assert(bw.animator { rig = rig, clips = { walk = w1 }, graph = g, blink = false, head = { disabled = true },
    locomotion = { { clip = "walk", speed = 1 } } })
  -- two more animators that could take the new walk: the refusal is still all or nothing
  local free = {}
  for i = 1, 2 do
    free[i] = assert(bw.animator { rig = rig, clips = { walk = w1 }, graph = g, blink = false, head = { disabled = true } })
    free[i]:update(0.25, {})
  end
  c:update(0.25); a:update(0.25, {})
  local ok, errs = g:refresh_clips { w4 }
  eq(ok, nil, "refused")
  eq(type(errs) == "table" and #errs, 1, "one problem")
  eq(errs and errs[1], "clips[1]: the animator's clip 'walk' is also its locomotion clip, baked at creation "
    .. "(make a new animator with the new clips)", "the problem")
  -- nothing changed: the old 1 s walk for both, p 0.25 + 0.5 = 0.75, y 0.75
  c:update(0.5); a:update(0.5, {})
  near(c:status().progress, 0.75, 1e-6, "the cursor on the old cycle")
  near(spine_y(a), 0.75, 1e-5, "the animator on the old walk")
  for i = 1, 2 do
    free[i]:update(0.5, {})
    near(spine_y(free[i]), 0.75, 1e-5, "the other animators on the old walk too")
  end
  -- once the animator plays another graph, the refresh goes through
  assert(a:set_graph(nil))
  eq(g:refresh_clips { w4 }, true, "no animator of the graph baked the walk")
  -- the others took it: p 0.75 + 0.5 / 4 = 0.875, τ 3.5, y 5.25
  free[1]:update(0.5, {})
  near(spine_y(free[1]), 5.25, 1e-4, "the new walk")
  -- never from inside an animator's update (its graph's predicate)
  local caught
  local h = assert(bw.graph({ layers = { { name = "base", entry = "walk",
    states = { walk = { clip = "walk" }, step = { clip = "walk" } },
    transitions = { { from = "walk", to = "step", duration = 0, when = { function()
      if caught == nil then caught = select(2, pcall(g.refresh_clips, g, { w4 })) or false end
      return false
    end } } } } } }, { rig = rig, clips = { w4 } }))
  g = h
  local b = assert(bw.animator { rig = rig, clips = { walk = w4 }, graph = h, blink = false, head = { disabled = true } })
  b:update(0.1, {})
  check(type(caught) == "string" and caught:find("called while an animator of the graph updates", 1, true), tostring(caught))
end)

finish()
