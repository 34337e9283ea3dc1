-- test_example_graphs.lua - the example graphs in graphs/ and their
-- timelines are consistent with SPEC §12.1 / §12.3 and with the humanoid
-- (scripts/humanoid.lua) they are written for. Until the Lua graph reader
-- and `blendwerk check` land, this is what keeps the data honest: every
-- field is one the format pins, every clip, state, parameter, mask, mask
-- joint and layer a graph or timeline names exists, every string condition
-- parses, and each graph has a timeline that touches its parameters.
-- Run from the source folder (CTest does): blendwerk run tests/lua/test_example_graphs.lua
local h = dofile((arg[0]:match("^(.*[/\\])") or "./") .. "harness.lua")
local test, check, eq, finish = h.test, h.check, h.eq, h.finish

local humanoid = dofile("scripts/humanoid.lua")
local CLIPS = {}
for _, c in ipairs(humanoid.clips) do CLIPS[c:name()] = c end
local NAMES = { "locomotion", "jump", "upper_wave", "breathing", "travel", "demo" }

local function fields_in(t, allowed, what)
    for k in pairs(t) do
        if type(k) ~= "number" then check(allowed[k], what .. ": unknown field '" .. tostring(k) .. "'") end
    end
end
local function set(list) local s = {} for _, x in ipairs(list) do s[x] = true end return s end
local GRAPH = set { "params", "masks", "layers" }
local LAYER = set { "name", "entry", "mode", "weight", "mask", "states", "transitions" }
local STATE = set { "clip", "blend", "speed", "loop", "sync", "offset" }
local TRANSITION = set { "from", "to", "when", "exit_time", "duration", "mode", "source_speed", "interruptible",
                         "curve", "to_self" }
local TIMELINE = set { "dt", "duration", "frames" }
local ENTRY = set { "at", "set", "fire", "travel", "layer", "layer_weight", "fade",
                    "velocity", "yaw", "turn", "look_at", "gesture" } -- the last five: demo inputs (bindings/timeline.h)

-- The parameter a condition string reads, or nil if it does not parse.
local function condition_param(s)
    local p = s:match("^%s*([%w_]+)%s*[<>=~]=?%s*%-?[%d%.]+%s*$")
    if p and not s:match("[<>]=?") and not s:match("[=~]=") then p = nil end
    return p or s:match("^%s*not%s+([%w_]+)%s*$") or s:match("^%s*([%w_]+)%s*$")
end

local function leaves(node, out)
    if node.clip then out[#out + 1] = node.clip end
    for _, child in ipairs(node.children or {}) do leaves(child, out) end
    return out
end

local graphs = {}
for _, name in ipairs(NAMES) do graphs[name] = dofile("graphs/" .. name .. ".lua") end

test("every graph uses only the pinned fields, known clips, states and params", function()
    for _, name in ipairs(NAMES) do
        local g = graphs[name]
        fields_in(g, GRAPH, name)
        local params, read = g.params or {}, {}
        for mask_name, entries in pairs(g.masks or {}) do
            for i, e in ipairs(entries) do
                check(humanoid.rig:find(e[1]), name .. ": mask " .. mask_name .. "[" .. i .. "] joint " .. tostring(e[1]))
                check(type(e[2]) == "number", name .. ": mask weight")
            end
        end
        check(#g.layers >= 1, name .. ": layers")
        for li, layer in ipairs(g.layers) do
            local where = name .. ".layers[" .. li .. "]"
            fields_in(layer, LAYER, where)
            check(type(layer.name) == "string", where .. ".name")
            check(layer.states[layer.entry], where .. ".entry " .. tostring(layer.entry))
            check(layer.mask == nil or (g.masks or {})[layer.mask], where .. ".mask")
            check(layer.mode == nil or layer.mode == "override" or layer.mode == "additive", where .. ".mode")
            if type(layer.weight) == "string" then
                check(params[layer.weight] ~= nil, where .. ".weight")
                read[layer.weight] = true
            end
            for sname, st in pairs(layer.states) do
                fields_in(st, STATE, where .. ".states." .. sname)
                check((st.clip == nil) ~= (st.blend == nil), where .. ".states." .. sname .. ": clip or blend")
                for _, clip in ipairs(st.clip and { st.clip } or leaves(st.blend, {})) do
                    check(CLIPS[clip], where .. ".states." .. sname .. ": clip " .. clip)
                end
                if st.blend then for _, p in ipairs(st.blend.params or { st.blend.param }) do
                    check(params[p] ~= nil, where .. ": blend param " .. p)
                    read[p] = true
                end end
            end
            for ti, t in ipairs(layer.transitions or {}) do
                local tw = where .. ".transitions[" .. ti .. "]"
                fields_in(t, TRANSITION, tw)
                check(t.from == "*" or layer.states[t.from], tw .. ".from")
                check(layer.states[t.to], tw .. ".to")
                for _, c in ipairs(t.when or {}) do
                    local p = type(c) == "string" and condition_param(c)
                    check(p and params[p] ~= nil, tw .. ": condition " .. tostring(c))
                    if p then read[p] = true end
                end
            end
        end
        for p in pairs(params) do check(read[p], name .. ": parameter " .. p .. " is never read") end
    end
end)

test("each graph has a timeline naming only its params, states and layers", function()
    for _, name in ipairs(NAMES) do
        local g, tl = graphs[name], dofile("graphs/" .. name .. ".timeline.lua")
        fields_in(tl, TIMELINE, name .. ".timeline")
        check(tl.duration and tl.duration > 0, name .. ".timeline: duration")
        local layers, touched, last = {}, {}, -1
        for _, l in ipairs(g.layers) do layers[l.name] = l end
        check(#tl >= 2, name .. ".timeline: at least two entries")
        for i, e in ipairs(tl) do
            local w = name .. ".timeline[" .. i .. "]"
            fields_in(e, ENTRY, w)
            check(e.at >= last and e.at < tl.duration, w .. ".at in order, inside the run")
            last = e.at
            for p in pairs(e.set or {}) do
                check(g.params[p] ~= nil and g.params[p] ~= "trigger", w .. ".set " .. p)
                touched[p] = true
            end
            if e.fire then
                local kind = g.params[e.fire]
                check(kind == "trigger" or (type(kind) == "table" and kind.trigger), w .. ".fire " .. e.fire)
                touched[e.fire] = true
            end
            local layer = e.layer and layers[e.layer] or g.layers[1]
            check(layer ~= nil, w .. ".layer")
            if e.travel then check(layer.states[e.travel], w .. ".travel " .. e.travel) end
            for l in pairs(e.layer_weight or {}) do check(layers[l], w .. ".layer_weight " .. l) end
        end
        for p, v in pairs(g.params or {}) do
            -- a bool that starts true may stay so; every other param is driven
            if v ~= true then check(touched[p], name .. ".timeline never drives " .. p) end
        end
    end
end)

test("the locomotion spaces place the clips at their ground speeds and directions", function()
    local walk = graphs.locomotion.layers[1].states.walk.blend
    eq(walk.kind, "directional", "walk kind")
    eq(#walk.children, 5, "walk samples")
    -- walk 1.5 m/s, run 4 m/s: each sample sits at its clip's travel per second
    local dirs = { fwd = { 0, 1 }, back = { 0, -1 }, left = { 1, 0 }, right = { -1, 0 } }
    for _, state in ipairs { "walk", "run" } do
        for _, child in ipairs(graphs.locomotion.layers[1].states[state].blend.children) do
            local gait, dir = child.clip:match("^(%a+)_(%a+)$")
            if gait then
                local v = gait == "walk" and 1.5 or 4
                eq(child.at[1], dirs[dir][1] * v, child.clip .. " x")
                eq(child.at[2], dirs[dir][2] * v, child.clip .. " z")
            else
                eq(child.clip, "idle", "the centre")
            end
        end
    end
end)

finish()
