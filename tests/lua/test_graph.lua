-- test_graph.lua - graphs from Lua (blendwerk.graph, SPEC §12.1): graph
-- files whose every mistake comes back as FILE:LINE (the line of the
-- offending entry, found through the source rewrite of graph_source.c,
-- also past comments, strings and long brackets holding braces and through
-- f{...} call syntax), tables built in code (the caller's line), the
-- defaults of §12.1, predicates, and the Cursor API by index and by name,
-- against numbers worked out by hand in the comments.

local bw = rawget(_G, "blendwerk") or require("blendwerk")
local h = dofile((arg[0]:match("^(.*[/\\])") or "./") .. "harness.lua")
local test, check, eq, near, raises, finish = h.test, h.check, h.eq, h.near, h.raises, h.finish

-- A two-joint rig; clips idle (1 s), walk (0.5 s), jump (1 s, not looping)
-- moving the hips from x 0 to x 1 over their length.
local rig = assert(bw.rig { joints = { { name = "hips" }, { name = "spine", parent = "hips", t = { 0, 1, 0 } } } })
local function clip(name, length, loop)
  return assert(bw.clip { name = name, length = length, loop = loop, joints = {
    { joint = "hips", keys = { { time = 0, t = { 0, 0, 0 } }, { time = length, t = { 1, 0, 0 } } } } } })
end
local clips = { clip("idle", 1, true), clip("walk", 0.5, true), clip("jump", 1, false) }
local bound = { rig = rig, clips = clips }

local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p '" .. dir .. "'"))
local function write(name, text)
  local path = dir .. "/" .. name
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
  return path
end

-- every problem of a file, each must be present exactly
local function errors_are(path, want)
  local g, errs = bw.graph(path, bound)
  eq(g, nil, path .. ": the graph")
  if type(errs) ~= "table" then return check(false, "no error list: " .. tostring(errs)) end
  local got = table.concat(errs, "\n")
  for _, w in ipairs(want) do
    local line = path .. ":" .. w
    check(got:find(line, 1, true), string.format("missing %q in\n%s", line, got))
  end
  eq(#errs, #want, "error count in\n" .. got)
end

test("every kind of mistake, at once, each on its own line", function()
  local path = write("bad.lua", [===[
-- { a comment with a brace
local S = function(t) return t end
local text = "{ not a table }"  --[==[ nor { this ]==]
local long = [[ { ]] .. "]]" .. [=[
   still { a string ]=]
return {
  params = { speed = 0, jump = "trigger", grounded = true },
  layers = {
    { name = "base", entry = "idle",
      states = {
        idle = S{ clip = "idle" },
        move = { clip = "wlak" },
        idle = { clip = "idle" },
        hop = { clip = "jump", speed = 0 },  -- fine: 0 holds the state still
      },
      transitions = {
        { from = "idle", to = "move", when = { "speed > 0.1" }, duraton = 0.25 },
        { from = "move",
          to = "jmup",
          when = { "sped <= 0.1",
                   "speed => 1" } },
        { from = "*", to = "idle", when = { "speed != 2", "jump" }, mode = "frozen" },
      },
    },
  },
}
]===])
  errors_are(path, {
    "13: layers[1].states: 'idle' is defined twice (first at line 11)",
    "12: layers[1].states.move: state 'move': unknown clip 'wlak'",
    "17: layers[1].transitions[1]: unknown field 'duraton' (accepted fields: from, to, when",
    "21: layers[1].transitions[2].when[2]: bad operator '=>' in 'speed => 1' (one of < <= > >= == ~=)",
    "22: layers[1].transitions[3].when[1]: bad operator '!=' in 'speed != 2'",
    "22: layers[1].transitions[3]: mode must be \"live\" or \"freeze\"",
    "19: layers[1].transitions[2].to: unknown state 'jmup'",
    "20: layers[1].transitions[2].when[1].param: unknown parameter 'sped'",
  })
end)

-- A layer whose own fields are bad (mode, weight, mask) is still compiled,
-- with their defaults, so every problem inside it comes out at once
-- (SPEC §12.1); only a layer without a usable name or entry is left out.
-- Compile problems of renamed fields print the Lua names (weight, speed).
-- Layer 1's bad mode compiles as override, where its state's reference
-- would be an error that only follows from the refused mode: not reported.
test("a layer with a bad mode or weight still reports every problem inside it", function()
  local path = write("badlayer.lua", [===[
return {
  params = { w = 1 },
  layers = {
    { name = "base", entry = "idle", mode = "overide",
      states = { idle = { clip = "idle", reference = 0.25 }, move = { clip = "walk", speed = "nosuch" } },
      transitions = { { from = "idle", to = "nowhere", duration = -1 } } },
    { name = "top", entry = "j", weight = "nosuch", states = { j = { clip = "jump" } } },
    { name = "third", entry = "k", weight = -1,
      mask = 3,
      states = { k = { clip = "idle", reference = "rest" } },
      transitions = { { from = "k", to = "k", exit_time = 0.5, source_speed = -2 } } },
    { name = "fourth", entry = "q", weight = true, states = { q = { clip = "wlak" } } },
  },
}
]===])
  errors_are(path, {
    "4: layers[1]: mode must be \"override\" or \"additive\"",
    "5: layers[1].states.move.speed: unknown parameter 'nosuch'",
    "6: layers[1].transitions[1].to: unknown state 'nowhere'",
    "6: layers[1].transitions[1].duration: duration must be finite and >= 0",
    "7: layers[2].weight: unknown parameter 'nosuch'",
    "8: layers[3].weight: weight must be finite and >= 0",
    "9: layers[3]: mask must be a mask name, not a number",
    "10: layers[3].states.k.reference: state 'k': a reference is for additive layers only",
    "11: layers[3].transitions[1].source_speed: source speed must be finite and >= 0",
    "12: layers[4]: weight must be a number, not a boolean",
    "12: layers[4].states.q: state 'q': unknown clip 'wlak'",
  })
end)

test("a syntax error is Lua's own, with its line", function()
  local path = write("syntax.lua", "return {\n  layers = {\n    { name = 'a' \n")
  local g, errs = bw.graph(path, bound)
  eq(g, nil, "graph")
  check(errs and errs[1]:find(path .. ":4:", 1, true), "syntax line: " .. tostring(errs and errs[1]))
end)

test("a table built in code carries the caller's line", function()
  local g, errs = bw.graph({ layers = { { name = "b", entry = "nope", states = { i = { clip = "idle" } } } } }, bound)
  eq(g, nil, "graph")
  check(errs and errs[1]:find("test_graph.lua:" .. (debug.getinfo(1, "l").currentline - 2) .. ": layers[1].entry", 1, true),
        "caller line: " .. tostring(errs and errs[1]))
end)

-- idle -> move when speed > 0.1 (duration absent: 0.2), move -> idle
-- over 0.5 s with a quad_out curve, any -> jump on the trigger.
local graph_text = [[
return {
  params = { speed = 0, jump = "trigger", dodge = { trigger = true, expires = 0.25 }, grounded = true },
  layers = {
    { name = "base", entry = "idle",
      states = {
        idle = { clip = "idle" },
        move = { clip = "walk", speed = "speed" },
        jump = { clip = "jump" },
        sit = { clip = "idle" },
      },
      transitions = {
        { from = "idle", to = "move", when = { "speed > 0.1" } },
        { from = "move", to = "idle", when = { "not grounded" }, duration = 0.5, curve = "quad_out" },
        { from = "*", to = "jump", when = { "jump" }, duration = 0.1 },
        { from = "jump", to = "idle", exit_time = 0.5 },
      },
    },
  },
}
]]

test("defaults: duration 0.2, live, linear; a curve name with a direction", function()
  local g = assert(bw.graph(write("g.lua", graph_text), bound))
  -- parameters in the order written: speed, jump, dodge, grounded (one line: by name)
  local names = g:params()
  eq(#names, 4, "params")
  eq(table.concat(g:states(1), ","), "idle,move,jump,sit", "states in the order written")
  local c = assert(g:cursor())
  c:set("speed", 1)
  c:update(0.1)                       -- fires idle -> move: elapsed 0
  local s = c:status("base")
  eq(s.state, "move", "state")
  near(s.transition.duration, 0.2, 1e-6, "default duration")
  eq(s.transition.mode, "live", "default mode")
  eq(s.transition.frozen, false, "frozen")
  c:update(0.05)                      -- linear: 0.05 / 0.2 = 0.25
  near(c:status().transition.weight, 0.25, 1e-6, "linear weight")
  c:update(0.2)                       -- over
  eq(c:status().transition, nil, "over")
  c:set("grounded", false)
  c:set("speed", 0)                   -- (else idle -> move would interrupt at once)
  c:update(0.1)                       -- move -> idle over 0.5 s
  c:update(0.2)                       -- u = 0.4: quad out 1 - 0.6^2 = 0.64
  near(c:status().transition.weight, 0.64, 1e-6, "quad_out weight")
  near(c:status().transition.weight, bw.ease("quad", "out", 0.4), 1e-6, "as blendwerk.ease")
end)

test("the cursor API by index and by name", function()
  local g = assert(bw.graph(write("g2.lua", graph_text), bound))
  local c = assert(g:cursor())
  local speed = c:param_index("speed")
  eq(speed, g:param_index("speed"), "param_index on graph and cursor")
  eq(c:param_index("nope"), nil, "unknown param")
  c:set(speed, 0.5)
  eq(c:get("speed"), 0.5, "set by index, get by name")
  c:set("grounded", false)
  eq(c:get(c:param_index("grounded")), false, "a bool reads back as a boolean")
  raises(function() c:set("jump", 1) end, "trigger")
  raises(function() c:set("nope", 1) end, "unknown parameter 'nope'")
  raises(function() c:set(99, 1) end, "out of range")
  -- a huge index is named as given (it was cast to int first: -1)
  raises(function() c:set(math.maxinteger, 1) end, "parameter index 9223372036854775807 out of range")
  raises(function() c:layer_weight(math.mininteger, 1) end, "layer index -9223372036854775808 out of range")
  raises(function() c:travel((1 << 32) + 1) end, "state index 4294967297 out of range")
  -- a state speed from a parameter: move plays at 0.5 x its rate
  c:set("grounded", true)
  local pose = c:update(0.1)          -- idle -> move fires
  eq(c:state(), "move", "state")
  eq(c:pose(), pose, "update returns the cursor's pose")
  local ev = c:events()
  eq(#ev, 3, "the entry's enter (first update), exit, enter")
  eq(ev[1].kind, "enter"); eq(ev[1].state, "idle"); eq(ev[1].layer, "base")
  eq(ev[2].kind, "exit"); eq(ev[2].state, "idle"); eq(ev[3].kind, "enter"); eq(ev[3].state, "move")
  c:update(0.2)                       -- p = 0.2 * 0.5 / 0.5 = 0.2
  near(c:status(1).progress, 0.2, 1e-6, "progress at speed 0.5")
  -- a trigger by index: consumed by the transition that fires on it
  c:fire(c:param_index("jump"))
  eq(c:get("jump"), true, "fired")
  c:update(0.1)
  eq(c:state("base"), "jump", "any -> jump")
  eq(c:get("jump"), false, "consumed")
  -- reset, and an expiring trigger: still set at age 0.2, gone at 0.3
  c:fire("dodge")
  c:reset("dodge")
  eq(c:get("dodge"), false, "reset")
  c:fire("dodge")
  c:update(0.1); c:update(0.1)
  eq(c:get("dodge"), true, "age 0.2 < 0.25")
  c:update(0.1)
  eq(c:get("dodge"), false, "expired at age 0.3")
  -- travel: no route to sit; a route to move (jump -> idle -> move)
  local ok, msg = c:travel("sit")
  eq(ok, nil, "no route")
  check(msg and msg:find("no route from 'jump' to 'sit'", 1, true), tostring(msg))
  eq(c:travel("move", "base"), true, "route")
  eq(c:status().travel_pending, 2, "two queued edges")
  raises(function() c:travel("nowhere") end, "unknown state 'nowhere'")
  -- layer weight fade: 1 -> 0 over 0.4 s, 0.1 s in: 0.75
  c:layer_weight("base", 0, 0.4)
  c:update(0.1)
  near(c:status().weight, 0.75, 1e-6, "layer weight fade")
  c:layer_weight(1, 1)
  c:update(0.1)
  near(c:status().weight, 1, 0, "at once")
end)

test("a predicate sees the parameters by name, read-only; a failing one is false", function()
  local calls = 0
  local g = assert(bw.graph({
    params = { speed = 0, grounded = true },
    layers = { { name = "base", entry = "a", states = { a = { clip = "idle" }, b = { clip = "walk" }, c = { clip = "jump" } },
      transitions = {
        { from = "a", to = "c", when = { function(p) calls = calls + 1; error("boom") end } },
        { from = "a", to = "c", when = { function(p) p.speed = 3; return true end } },
        { from = "a", to = "c", when = { function(p) rawset(p, "speed", 3); return true end } },
        { from = "a", to = "b", when = { function(p) return p.grounded == true and p.speed > 1 end } },
      } } },
  }, bound))
  local c = assert(g:cursor())
  c:update(0.1)
  eq(c:state(), "a", "failing predicates are false")
  c:set("speed", 2)
  c:update(0.1)
  eq(c:state(), "b", "the third one holds")
  eq(c:get("speed"), 2, "the view did not write")
  eq(c:state(), "b", "nor did rawset shadow a parameter")
  eq(calls, 2, "the failing one ran every frame")
end)

-- SPEC §12.2: an expiring trigger unsets at the end of the update in which
-- its age reaches `expires`. a (expires = 0) and b (1e-46, 0 as a float)
-- reach it in the first update (age 0.004); c (0.01) in the third (0.012;
-- the second's 0.008 is short of it); d (no expires) waits for ever. They
-- used to read 0 as "never": a and b stayed set.
test("expires = 0 unsets a trigger at the end of the first update; absent never", function()
  local g = assert(bw.graph({
    params = { a = { trigger = true, expires = 0 }, b = { trigger = true, expires = 1e-46 },
               c = { trigger = true, expires = 0.01 }, d = { trigger = true } },
    layers = { { name = "base", entry = "i", states = { i = { clip = "idle" } } } },
  }, bound))
  local c = assert(g:cursor())
  for _, t in ipairs({ "a", "b", "c", "d" }) do c:fire(t) end
  local want = { { false, false, true, true }, { false, false, true, true }, { false, false, false, true } }
  for u = 1, 3 do
    c:update(0.004)
    for k, t in ipairs({ "a", "b", "c", "d" }) do eq(c:get(t), want[u][k], t .. " after update " .. u) end
  end
  for _ = 1, 100 do c:update(0.004) end
  eq(c:get("d"), true, "d still set")
end)

test("a graph without a rig compiles but makes no cursor; options are checked", function()
  local g = assert(bw.graph(write("g3.lua", graph_text), { clips = clips }))
  raises(function() g:cursor() end, "no rig")
  raises(function() bw.graph({}, { rigg = rig }) end, "unknown field 'rigg'")
  raises(function() bw.graph(42) end, "graph table or file name")
  g:close()
  raises(function() g:params() end, "closed")
end)

-- A blend state: a 1d node on "speed" between idle (1 s, at 0) and walk
-- (0.5 s, at 2). At speed 1 each weighs 1/2, so the cycle is
-- 0.5 * 1 + 0.5 * 0.5 = 0.75 s and 0.15 s advance the progress by 0.2.
test("blend states read through the blend-tree reader; clips by name", function()
  local desc = {
    params = { speed = 1 },
    layers = { { name = "base", entry = "loco", states = {
      loco = { blend = { kind = "1d", param = "speed", children = {
        { at = 0, clip = "idle" }, { at = 2, clip = "walk" } } } } } } },
  }
  local g = assert(bw.graph(desc, bound))
  local c = assert(g:cursor())
  c:update(0.15)
  near(c:status().progress, 0.2, 1e-6, "blend cycle 0.75 s")
  -- mistakes inside the blend, each at its path (a table built in code:
  -- the caller's line): a missing clip, a length, an unknown parameter
  local leaf = desc.layers[1].states.loco.blend.children[2]
  local function only(want)
    local g, errs = bw.graph(desc, bound)
    eq(g, nil, "the graph")
    eq(#(errs or {}), 1, "problem count")
    local got = errs and errs[1] or ""
    check(got:sub(-#want - 2) == ": " .. want, string.format("%q does not end with %q", got, want))
  end
  leaf.clip = "wlak"
  only("layers[1].states.loco.blend.children[2].clip: unknown clip 'wlak'")
  leaf.clip, leaf.length = "walk", 3
  only("layers[1].states.loco.blend.children[2].length: a blend leaf in a graph takes its length from its clip; remove length")
  leaf.length = nil
  desc.layers[1].states.loco.blend.param = "sped"
  only("layers[1].states.loco.blend.param: unknown parameter 'sped'")
end)

-- The list of problems of a graph file, exactly and in order.
local function problems_are(path, want)
  local g, errs = bw.graph(path, bound)
  eq(g, nil, path .. ": the graph")
  local expect = {}
  for i, w in ipairs(want) do expect[i] = path .. ":" .. w end
  eq(table.concat(errs or {}, "\n"), table.concat(expect, "\n"), "the problems")
end

-- A blend tree in a graph file reports every problem at once, each at the
-- entry the file writes (docs/graphs.md "Errors"): both parameters of a 2d
-- node that the graph does not declare (each at its own line) and the
-- unknown clip of a leaf (at its clip's line); the clips idle and walk
-- exist. Before, only the first parameter came out, in the Lua API's
-- words ("params[1] 'ax' is not in options.params", at the state's line).
test("a graph file's blend tree: every unknown parameter and clip, at its entry", function()
  local path = write("blend2d.lua", [===[
return {
  params = { speed = 0 },
  layers = {
    { name = "base", entry = "move",
      states = {
        move = { blend = { kind = "2d",
          params = { "ax",
                     "ay" },
          children = {
            { at = { 0, 0 }, clip = "idle" },
            { at = { 1, 0 }, clip = "wlak" },
            { at = { 0, 1 }, clip = "walk" },
          } } },
      },
    },
  },
}
]===])
  problems_are(path, {
    "7: layers[1].states.move.blend.params[1]: unknown parameter 'ax'",
    "8: layers[1].states.move.blend.params[2]: unknown parameter 'ay'",
    "11: layers[1].states.move.blend.children[2].clip: unknown clip 'wlak'",
  })
end)

-- A hostile graph file: a directional state of 65 children (one line
-- each), one over BW_BLEND_MAX_MEMBERS. Its O(n^2) weights would run on
-- every parameter change (4000 children took a second per update); the
-- core refuses it, reported at the node's line (6). Before, it loaded.
-- The same file with 64 children loads.
local function ring_graph(name, n)
  local rows = {}
  for k = 0, n - 1 do
    local a = 2 * math.pi * k / n
    rows[#rows + 1] = string.format("            { at = { %.17g, %.17g }, clip = \"walk\" },", math.cos(a), math.sin(a))
  end
  return write(name, [===[
return {
  params = { vx = 0, vz = 0 },
  layers = {
    { name = "base", entry = "move",
      states = {
        move = { blend = { kind = "directional", params = { "vx", "vz" },
          children = {
]===] .. table.concat(rows, "\n") .. [===[

          } } },
      },
    },
  },
}
]===])
end

test("a graph file's 2d node of more than 64 children is refused at its line", function()
  problems_are(ring_graph("ring65.lua", 65), {
    "6: layers[1].states.move.blend: 65 children, more than the 64 a 2D node takes "
      .. "(BW_BLEND_MAX_MEMBERS: its weights cost O(n^2) per evaluation)",
  })
  local g, errs = bw.graph(ring_graph("ring64.lua", 64), bound)
  check(g ~= nil, "64 children load: " .. table.concat(errs or {}, "; "))
end)

-- A string holding a NUL byte anywhere in the file, key or value, is a
-- problem at its line, in line order, and the read stops there: C would
-- read "speed\0evil" as "speed" (it said "params.speed: ... not nil", or
-- "duplicate parameter 'speed'" beside a real speed), a state name or a
-- condition cut short ("speed > 1\0 or true" read as "speed > 1").
test("a graph file's strings holding a NUL byte are refused at their lines", function()
  local path = write("nul.lua", [===[
return {
  params = { ["speed\0evil"] = 0, speed = 1 },
  layers = {
    { name = "base", entry = "idle",
      states = { idle = { clip = "idle" }, ["run\0x"] = { clip = "walk" } },
      transitions = { { from = "idle", to = "idle",
                        when = { "speed > 1\0 or true" } } } },
  },
}
]===])
  problems_are(path, {
    "2: params: the name 'speed' is followed by a NUL byte (names cannot hold one)",
    "5: layers[1].states: the name 'run' is followed by a NUL byte (names cannot hold one)",
    "7: layers[1].transitions[1].when[1]: 'speed > 1' is followed by a NUL byte (names and conditions cannot hold one)",
  })
end)

-- Every other kind of mistake in one tree, nested, in reading order (a
-- child's place before the child): a field of the wrong type, a length in
-- a graph leaf, a bad 1d place, an unknown field (the graph's wording, as
-- for any other table of the file), a clip that is not a name, a position
-- missing its y (the line of its table), a speed that is not a number, an
-- unknown kind (that node's fields are not judged). A tree the reader
-- accepts goes to the core compiler, whose problem (a NaN speed) names
-- the node by the same path, at the node's line.
test("a graph file's blend tree: each bad field and number, nested, and the compiler's word", function()
  local path = write("blendmany.lua", [===[
return {
  params = { speed = 0, vx = 0 },
  layers = {
    { name = "base", entry = "move",
      states = {
        move = { blend = { kind = "1d", param = "sped", rate_scale = 1,
          children = {
            { at = 0, clip = "idle", length = 2 },
            { at = "far", clip = "walk", sped = 2 },
            { at = 1, kind = "2d", params = { "vx", "vz" }, children = {
              { at = { 0, 0 }, clip = 3 },
              { at = { 1 }, clip = "jump", speed = "fast" } } },
            { at = 2, kind = "polar", children = {} },
          } } },
        still = { blend = { kind = "1d", param = "speed", children = {
          { at = 0, clip = "idle", speed = 0 / 0 } } } },
      },
    },
  },
}
]===])
  local move = "layers[1].states.move.blend"
  problems_are(path, {
    "6: " .. move .. ".rate_scale: rate_scale must be a boolean",
    "6: " .. move .. ".param: unknown parameter 'sped'",
    "8: " .. move .. ".children[1].length: a blend leaf in a graph takes its length from its clip; remove length",
    "9: " .. move .. ".children[2].at: at must be a number (a 1d threshold)",
    "9: " .. move .. ".children[2]: unknown field 'sped' (accepted fields: clip, length, speed, at)",
    "10: " .. move .. ".children[3].params[2]: unknown parameter 'vz'",
    "11: " .. move .. ".children[3].children[1].clip: a blend leaf's clip must be a clip name, not a number",
    "12: " .. move .. ".children[3].children[2].at: at.y is missing",
    "12: " .. move .. ".children[3].children[2].speed: speed must be a number, not a string",
    "13: " .. move .. ".children[4].kind: unknown kind 'polar' (1d, 2d, directional or grid)",
    "16: layers[1].states.still.blend.children[1]: speed is NaN",
  })
end)

-- Masks and layer weights: an override layer "upper" masked to the spine
-- only (descendants = false) at weight from the parameter "aim".
-- 0 is a value in a graph file (SPEC §12.1). Clips move the hips x from 0
-- to 1 over their length. Base: idle at speed 0 from offset 0.25 holds
-- x = 0.25. Top: weight 0, walk (0.5 s): silent, so x stays 0.25 while
-- walk runs at p = 0.2 / 0.5 = 0.4; faded in over 0.4 s, 0.1 s later the
-- weight is 0.25 and walk is at p 0.6: x = 0.25 + 0.25 (0.6 - 0.25).
test("weight 0: a layer starts silent; speed 0: a state holds still at its offset", function()
  local g = assert(bw.graph({ layers = {
    { name = "base", entry = "i", states = { i = { clip = "idle", speed = 0, offset = 0.25 } } },
    { name = "top", entry = "w", weight = 0, states = { w = { clip = "walk" } } } } }, bound))
  local c = assert(g:cursor())
  eq(c:status("top").weight, 0, "starts silent")
  near((c:update(0.1):t(1)), 0.25, 1e-6, "the base alone")
  near((c:update(0.1):t(1)), 0.25, 1e-6, "walk at 0.4 shows nothing")
  near(c:status("top").progress, 0.4, 1e-6, "the silent layer still advances")
  c:layer_weight("top", 1, 0.4)
  local x = c:update(0.1):t(1)
  near(c:status("top").weight, 0.25, 1e-6, "fading in")
  near(x, 0.25 + 0.25 * (0.6 - 0.25), 1e-5, "a quarter of walk over the held idle")
  eq(c:status("base").progress, 0.25, "held at its offset")
  -- a speed-0 state's first advance includes its start: the marker at
  -- 0.25 s fires once; its looping exit-time gate (0.25) never opens, as
  -- p never moves past it
  local step = assert(bw.clip { name = "step", length = 1, loop = true, markers = { { name = "foot", time = 0.25 } },
    joints = { { joint = "hips", keys = { { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 1, 0, 0 } } } } } })
  local g2 = assert(bw.graph({ layers = { { name = "base", entry = "h",
    states = { h = { clip = "step", speed = 0, offset = 0.25 }, i = { clip = "idle" } },
    transitions = { { from = "h", to = "i", exit_time = 0.25 } } } } }, { rig = rig, clips = { clips[1], step } }))
  local c2 = assert(g2:cursor())
  c2:update(0.1)
  local ev = c2:events()
  eq(#ev, 2, "enter, the start marker")
  eq(ev[2].kind, "marker"); eq(ev[2].name, "foot")
  for _ = 1, 5 do
    c2:update(0.1)
    eq(#c2:events(), 0, "nothing more")
  end
  eq(c2:state(), "h", "the exit-time edge never fires")
end)

-- source_speed 0: a live source that stands still. a (idle) -> b (walk)
-- on go over 1 s. Update 0.5: a at 0.5; go, update 0.25: a at 0.75, then
-- fires (w 0: x 0.75). Update 0.25: the source stays at 0.75 (at the
-- default speed 1 it would be at 1.0, x 0), b at 0.25 / 0.5 = 0.5, w 0.25:
-- x = 0.75 · 0.75 + 0.25 · 0.5 = 0.6875. Update 0.1: b at 0.7, w 0.35:
-- x = 0.65 · 0.75 + 0.35 · 0.7 = 0.7325.
test("source_speed 0: a live source that stands still", function()
  local g = assert(bw.graph({ params = { go = "trigger" }, layers = { { name = "base", entry = "a",
    states = { a = { clip = "idle" }, b = { clip = "walk" } },
    transitions = { { from = "a", to = "b", when = { "go" }, duration = 1, source_speed = 0 } } } } }, bound))
  local c = assert(g:cursor())
  c:update(0.5)
  c:fire("go")
  near((c:update(0.25):t(1)), 0.75, 1e-6, "fired: the source alone")
  near((c:update(0.25):t(1)), 0.6875, 1e-6, "the source held at 0.75")
  local tr = c:status().transition
  eq(tr.mode, "live"); eq(tr.frozen, false, "a live source, not a snapshot")
  near((c:update(0.1):t(1)), 0.7325, 1e-5, "still held")
end)

test("masks, a layer weight from a parameter, and a mask joint the rig lacks", function()
  local function desc(joint)
    return {
      params = { aim = 0.5 },
      masks = { upper = { { joint, 1, descendants = false } } },
      layers = {
        { name = "base", entry = "i", states = { i = { clip = "idle" } } },
        { name = "upper", entry = "j", weight = "aim", mask = "upper", states = { j = { clip = "jump" } } },
      },
    }
  end
  local g = assert(bw.graph(desc("hips/spine"), bound))
  local c = assert(g:cursor())
  c:update(0.1)
  near(c:status("upper").weight, 0.5, 1e-6, "weight follows aim")
  c:set("aim", 1)
  c:update(0.1)
  near(c:status(2).weight, 1, 1e-6, "weight follows aim")
  raises(function() c:layer_weight("upper", 0) end, "follows a parameter")
  local g2 = assert(bw.graph(desc("tail"), bound))
  local none, msg = g2:cursor()
  eq(none, nil, "cursor")
  check(msg and msg:find("tail", 1, true), tostring(msg))
end)

-- Marker events: a 1 s looping clip with "foot" at 0.25 s. The first
-- update (0.3 s) starts with the entry's enter, then crosses the marker;
-- the next (0.3 -> 0.6 s) crosses nothing; 0.6 -> 1.3 s wraps and crosses
-- it again at 1.25.
test("marker events name the marker, its time and the clip", function()
  local step = assert(bw.clip { name = "step", length = 1, loop = true, markers = { { name = "foot", time = 0.25 } },
    joints = { { joint = "hips", keys = { { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 1, 0, 0 } } } } } })
  local g = assert(bw.graph({ layers = { { name = "base", entry = "s", states = { s = { clip = "step" } } } } },
    { rig = rig, clips = { clips[1], step } }))
  local c = assert(g:cursor())
  c:update(0.3)
  local ev = c:events()
  eq(#ev, 2, "enter, marker")
  eq(ev[1].kind, "enter"); eq(ev[1].clip, nil, "an enter has no clip"); eq(ev[1].time, nil)
  eq(ev[2].kind, "marker"); eq(ev[2].name, "foot"); eq(ev[2].clip, 2); eq(ev[2].state, "s")
  near(ev[2].time, 0.25, 1e-6, "marker time")
  c:update(0.3)
  eq(#c:events(), 0, "nothing crossed")
  c:update(0.7)
  eq(#c:events(), 1, "crossed again after the wrap")
end)


-- Event callbacks (cursor:on). Clip "step" (1 s, looping, "foot" at 0.25
-- s) in states s and t; s -> t when go, instantly. Update 1 (0.3 s): the
-- entry's enter of s, then foot (0 -> 0.3 crosses 0.25). Update 2 (0.1 s,
-- go): s 0.3 -> 0.4 crosses nothing, then exit s, enter t. Update 3 (0.3 s):
-- t 0 -> 0.3 (its first advance, start included): foot again.
-- Each callback gets positional values; "event" the listed table.
test("event callbacks: enter, exit, marker and every event, in order", function()
  local step = assert(bw.clip { name = "step", length = 1, loop = true, markers = { { name = "foot", time = 0.25 } },
    joints = { { joint = "hips", keys = { { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 1, 0, 0 } } } } } })
  local g = assert(bw.graph({ params = { go = false }, layers = { { name = "base", entry = "s",
    states = { s = { clip = "step" }, t = { clip = "step" } },
    transitions = { { from = "s", to = "t", when = { "go" }, duration = 0 } } } } },
    { rig = rig, clips = { step } }))
  local c = assert(g:cursor())
  local log = {}
  c:on("enter", function(state, layer) log[#log + 1] = "enter " .. state .. " " .. layer end)
  c:on("exit", function(state, layer) log[#log + 1] = "exit " .. state .. " " .. layer end)
  c:on("marker", function(name, time, state, layer)
    log[#log + 1] = string.format("marker %s %.2f %s %s", name, time, state, layer)
  end)
  local kinds = {}
  c:on("event", function(e) kinds[#kinds + 1] = e.kind end)
  c:update(0.3)
  c:set("go", true)
  c:update(0.1)
  c:update(0.3)
  eq(table.concat(log, "; "), "enter s base; marker foot 0.25 s base; exit s base; enter t base; marker foot 0.25 t base")
  eq(table.concat(kinds, " "), "enter marker exit enter marker")
  eq(#c:events(), 1, "the list holds the last update's events")
  eq(c:events()[1].name, "foot")
  -- nil removes a callback; an unknown kind is an argument error
  c:on("marker", nil)
  c:update(1.0)
  eq(#log, 5, "no marker callback any more")
  raises(function() c:on("entre", print) end, "invalid option 'entre'")
  raises(function() c:on("enter", 42) end, "function expected")
end)

-- A failing callback is reported once with its file:line, counted on
-- every failure, and neither stops the update nor the other callbacks;
-- a callback cannot update its own cursor.
test("a failing event callback is counted, reported with its line, and the cursor goes on", function()
  local step = assert(bw.clip { name = "step", length = 1, loop = true, markers = { { name = "foot", time = 0.25 } },
    joints = { { joint = "hips", keys = { { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 1, 0, 0 } } } } } })
  local g = assert(bw.graph({ layers = { { name = "base", entry = "s", states = { s = { clip = "step" } } } } },
    { rig = rig, clips = { step } }))
  local c = assert(g:cursor())
  local line = debug.getinfo(1, "l").currentline + 1
  c:on("marker", function() error("boom") end)
  local entered = 0
  c:on("enter", function() entered = entered + 1 end)
  c:update(0.3)                     -- enter, then the failing marker callback
  c:update(1.0)                     -- the marker again: a second failure
  near(c:status().progress, 1.3, 1e-6, "the cursor kept going")
  eq(entered, 1, "the enter callback ran")
  local n, msg = c:callback_errors("marker")
  eq(n, 2, "failures counted")
  check(msg and msg:find("test_graph.lua:" .. line .. ": boom", 1, true), tostring(msg))
  eq((c:callback_errors("enter")), 0)
  c:on("marker", function() c:update(0.1) end)
  c:update(1.0)
  n, msg = c:callback_errors("marker")
  eq(n, 1, "a fresh callback, one failure")
  check(msg and msg:find("called from the cursor's own event callback", 1, true), tostring(msg))
  near(c:status().progress, 2.3, 1e-6, "not updated from inside")
  -- an error object that is not a string still names the line (it was "error")
  line = debug.getinfo(1, "l").currentline + 1
  c:on("marker", function() error({ code = 1 }) end)
  c:update(1.0)
  n, msg = c:callback_errors("marker")
  check(msg and msg:find("test_graph.lua:" .. line .. ": (error object is a table value)", 1, true), tostring(msg))
end)

-- After warm-up, updates that deliver events to callbacks and fill
-- cursor:events() allocate nothing (the collector is stopped, so any
-- allocation would raise the count; a collection shrinks the Lua stack, so
-- a warm-up follows it). fast is 1 for frames f % 50 < 25: each run ends
-- (f = 100, 600) setting it and entering t at p 0; in the measured run t
-- plays frames 1..24 (p 0.4 at the end: foot at 0.25 once), then a switch
-- at f = 25, 50, ..., 600 (24 enters); each of the 23 full segments of 25
-- frames plays the new state from p 0 to 0.417 (foot once, after the 0.2 s
-- fade's midpoint, so from the destination): 24 markers; "hand" at 0.75 is
-- never reached.
test("events and callbacks allocate nothing per frame once warm", function()
  local step = assert(bw.clip { name = "step", length = 1, loop = true,
    markers = { { name = "foot", time = 0.25 }, { name = "hand", time = 0.75 } },
    joints = { { joint = "hips", keys = { { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 1, 0, 0 } } } } } })
  local g = assert(bw.graph({ params = { fast = 0 }, layers = { { name = "base", entry = "s",
    states = { s = { clip = "step" }, t = { clip = "step" } },
    transitions = { { from = "s", to = "t", when = { "fast > 0.5" }, duration = 0.2 },
                    { from = "t", to = "s", when = { function(p) return p.fast < 0.5 end }, duration = 0.2 } } } } },
    { rig = rig, clips = { step } }))
  local c = assert(g:cursor())
  local markers, changes = 0, 0
  c:on("marker", function() markers = markers + 1 end)
  c:on("enter", function() changes = changes + 1 end)
  c:on("event", function(e) local _ = e.kind end)
  local fast = c:param_index("fast")
  local function run(frames)
    for f = 1, frames do
      c:set(fast, (f % 50) < 25 and 1 or 0)
      c:update(1 / 60)
    end
  end
  run(300)
  collectgarbage("collect")
  collectgarbage("stop")
  run(100)
  local before = collectgarbage("count")
  markers, changes = 0, 0
  run(600)
  local after = collectgarbage("count")
  collectgarbage("restart")
  eq(markers, 24, "one foot per state played")
  eq(changes, 24, "a switch every 25 frames")
  eq(after - before, 0, "KiB allocated over 600 frames")
end)

-- A graph file that requires its states from another file: the mistakes
-- in that file name it and their own lines (found on package.path, run
-- through the same line-recording rewrite), the graph file's own
-- mistakes keep its name.
test("entries of a required file carry that file's name and lines", function()
  write("gparts.lua", [[
return {                                   -- 1
  idle = { clip = "idle" },                -- 2
  move = { clip = "wlak" },                -- 3
  jump = { clip = "jump", duraton = 1 },   -- 4
}
]])
  local path = write("greq.lua", [[
local states = require("gparts")
return { layers = { { name = "base", entry = "idle", states = states,
  transitions = { { from = "idle", to = "mvoe" } } } } }
]])
  local saved = package.path
  package.path = dir .. "/?.lua;" .. saved
  local g, errs = bw.graph(path, bound)
  package.path = saved
  eq(g, nil, "refused")
  local got = table.concat(errs or {}, "\n")
  local parts = dir .. "/gparts.lua"
  for _, want in ipairs {
    parts .. ":3: layers[1].states.move: state 'move': unknown clip 'wlak'",
    parts .. ":4: layers[1].states.jump: unknown field 'duraton'",
    path .. ":3: layers[1].transitions[1].to: unknown state 'mvoe'",
  } do
    check(got:find(want, 1, true), string.format("missing %q in\n%s", want, got))
  end
  eq(#errs, 3, "error count in\n" .. got)
end)

-- Additive references from a graph file. Base: jump (x = τ, not looping);
-- additive: idle (x = τ over 1 s). After 0.5 s both are at τ 0.5: the
-- base x 0.5, and the additive adds idle's x at 0.5 minus its reference's:
-- none (own clip at 0): 0.5 -> 1.0; reference = 0.25 or { frame = 3, fps =
-- 12 } (= 0.25 s): 0.25 -> 0.75; { clip = "walk", time = 0.25 } (walk:
-- x = 2τ over 0.5 s, 0.5 at 0.25): 0 -> 0.5; "rest" (x 0): 0.5 -> 1.0.
test("additive references: own time, a frame, another clip, the rest pose", function()
  local cases = {
    { nil, 1.0 }, { "0.25", 0.75 }, { "{ frame = 3, fps = 12 }", 0.75 },
    { '{ clip = "walk", time = 0.25 }', 0.5 }, { '"rest"', 1.0 },
  }
  for i, case in ipairs(cases) do
    local ref = case[1] and (", reference = " .. case[1]) or ""
    local path = write("ref" .. i .. ".lua", [[
return { layers = {
  { name = "base", entry = "j", states = { j = { clip = "jump" } } },
  { name = "add", mode = "additive", entry = "b", states = { b = { clip = "idle"]] .. ref .. [[ } } },
} }
]])
    local g = assert(bw.graph(path, bound))
    local c = assert(g:cursor())
    local pose = c:update(0.5)
    near((pose:t(1)), case[2], 1e-5, "x with reference " .. tostring(case[1]))
  end
  local path = write("badref.lua", [[
return { layers = {
  { name = "base", entry = "j", states = { j = { clip = "jump",
      reference = "rest" } } },
  { name = "add", mode = "additive", entry = "a", states = {
    a = { clip = "idle", reference = { clip = "wakl" } },
    b = { clip = "idle", reference = "first" },
    c = { clip = "idle", reference = { frame = 2 } },
    d = { clip = "idle", reference = { time = -1, fps = 2 } },
  } },
} }
]])
  errors_are(path, {
    "3: layers[1].states.j.reference: state 'j': a reference is for additive layers only",
    "5: layers[2].states.a.reference: unknown clip 'wakl'",
    "6: layers[2].states.b: reference 'first' is not \"rest\"",
    "7: layers[2].states.c.reference: frame and fps (frames per second) go together",
    "8: layers[2].states.d.reference: a reference has time or frame, not both",
  })
end)

-- graph:refresh_clips: new lengths in place, every open cursor rebound at
-- once; progress is normalized, timers are seconds. The graph: idle (1 s)
-- -> walk (0.5 s) when go, 0.5 s. The new idle is 2 s long and moves the
-- hips 0 -> 4 (x = 2τ), the new walk 1 s long (x = τ).
local function moving(name, length, x1, loop)
  return assert(bw.clip { name = name, length = length, loop = loop, joints = {
    { joint = "hips", keys = { { time = 0, t = { 0, 0, 0 } }, { time = length, t = { x1, 0, 0 } } } } } })
end
local refresh_desc = {
  params = { go = false },
  layers = { { name = "base", entry = "idle",
    states = { idle = { clip = "idle" }, walk = { clip = "walk" } },
    transitions = { { from = "idle", to = "walk", when = { "go" }, duration = 0.5 } } } },
}

test("refresh_clips keeps normalized progress and rebinds every cursor", function()
  local mine = { clip("idle", 1, true), clip("walk", 0.5, true), clip("jump", 1, false) }
  local g = assert(bw.graph(refresh_desc, { rig = rig, clips = mine }))
  local a, b, gone = assert(g:cursor()), assert(g:cursor()), assert(g:cursor())
  a:update(0.25)                        -- idle p 0.25 (x 0.25)
  b:set("go", true)
  b:update(0.25)                        -- idle p 0.25, fires: walk at p 0
  b:update(0.125)                       -- walk p 0.125 / 0.5 = 0.25, fade 0.125 s in
  gone:close()
  local idle2, walk2 = moving("idle", 2, 4, true), moving("walk", 1, 1, true)
  eq(g:refresh_clips { idle2, walk2, mine[3] }, true, "refreshed")
  near(a:status().progress, 0.25, 1e-9, "a: idle progress kept")
  near(b:status().progress, 0.25, 1e-9, "b: walk progress kept")
  near(b:status().transition.elapsed, 0.125, 1e-6, "b: fade seconds kept")
  -- a: 0.5 s more at the new 2 s cycle: p 0.25 + 0.25 = 0.5, x = 2·1 = 2 (the new clip)
  local pose = a:update(0.5)
  near(a:status().progress, 0.5, 1e-9, "a: new cycle")
  near((pose:t(1)), 2.0, 1e-5, "a: samples the new idle")
  -- b: 0.25 s more: walk p 0.25 + 0.25 / 1 = 0.5 (τ 0.5, x 0.5); idle, the
  -- live source (p 0.25 when it fired, 0.375 after the 0.125 s update),
  -- p 0.375 + 0.25 / 2 = 0.5 (τ 1.0, x 2.0); fade 0.375 / 0.5, w 0.75:
  -- x = 0.25·2 + 0.75·0.5 = 0.875
  pose = b:update(0.25)
  near(b:status().progress, 0.5, 1e-9, "b: walk at its new cycle")
  near(b:status().transition.elapsed, 0.375, 1e-6, "b: fade timer in seconds")
  near((pose:t(1)), 0.875, 1e-5, "b: source and destination from the new clips")
  -- the old clips may go: nothing plays them any more
  mine[1]:close(); mine[2]:close()
  mine[1], mine[2] = nil, nil
  collectgarbage(); collectgarbage()
  pose = a:update(0.5)                  -- p 0.75: x = 2·1.5 = 3
  near((pose:t(1)), 3.0, 1e-5, "a: after the old clips went")
  -- a cursor made now is bound to the new clips too: idle p 0 -> 0.125 (x 0.5)
  local c = assert(g:cursor())
  near((c:update(0.25):t(1)), 0.5, 1e-5, "a new cursor")
end)

test("refresh_clips refuses what needs a recompile and changes nothing", function()
  local mine = { clip("idle", 1, true), clip("walk", 0.5, true), clip("jump", 1, false) }
  local g = assert(bw.graph(refresh_desc, { rig = rig, clips = mine }))
  local a = assert(g:cursor())
  a:update(0.25)
  local looping_jump = moving("jump", 1, 1, true)
  local steady_walk = moving("walk", 1, 1, false)
  local ok, errs = g:refresh_clips { moving("idle", 2, 4, true), steady_walk, looping_jump }
  eq(ok, nil, "refused")
  eq(type(errs) == "table" and #errs, 2, "both clips reported")
  eq(errs and errs[1], "clips[2]: clip 'walk' changed its loop flag (recompile the graph)", "first")
  eq(errs and errs[2], "clips[3]: clip 'jump' changed its loop flag (recompile the graph)", "second")
  -- unchanged: the old 1 s idle, p 0.25 + 0.25 = 0.5, x 0.5
  near((a:update(0.25):t(1)), 0.5, 1e-5, "the old clips still play")
  raises(function() g:refresh_clips { mine[1], mine[2] } end, "2 clips for a graph of 3")
  raises(function() g:refresh_clips { mine[1], "walk", mine[3] } end, "clips[2] is not a blendwerk.Clip")
  raises(function() g:refresh_clips(nil) end, "table expected")
  -- never from inside an update of one of the graph's cursors
  a:on("exit", function() g:refresh_clips(mine) end)
  a:set("go", true)
  a:update(0.1)
  local failures, message = a:callback_errors("exit")
  eq(failures, 1, "the callback failed")
  check(message and message:find("called while a cursor of the graph updates", 1, true), tostring(message))
end)

-- A constructor of 20,000 named keys: each key's line and the first key
-- written twice come from one parse of the constructor's key list, not a
-- scan of the whole list per key (the old reader: about 30 s under
-- AddressSanitizer for this file). Lines: 1 "return {", 2 "params = {",
-- p<i> on line i + 2, then p777 again on 20003 and p5 again on 20004.
-- The earliest name written twice is p5 (line 7; p777 is on 779), with
-- its first repeat; p5's value is the last one written, "x", on 20004.
test("a constructor of 20,000 keys: lines and the first duplicate from one parse", function()
  local parts = { "return {\n  params = {\n" }
  for i = 1, 20000 do parts[#parts + 1] = string.format("    p%d = 0,\n", i) end
  parts[#parts + 1] = '    p777 = 1,\n    p5 = "x",\n  },\n'
  parts[#parts + 1] = '  layers = { { name = "l", entry = "s", states = { s = { clip = "idle" } } } },\n}\n'
  errors_are(write("many_keys.lua", table.concat(parts)), {
    "20004: params: 'p5' is defined twice (first at line 7)",
    "20004: params.p5: a parameter's default is a number, a boolean, \"trigger\" or { trigger = true, expires = s }, not \"x\"",
  })
end)

os.execute("rm -rf '" .. dir .. "'")
finish()
