-- test_lua_lifetime.lua - object lifetime from Lua: closed handles raise
-- clear errors, <close> variables, and dependents (poses, bindings,
-- playing tracks, borrowed rigs) keep what they use alive through close()
-- and garbage collection. Run under ASan, use-after-free shows up here.
local bw = blendwerk or require("blendwerk")
-- the shared harness beside this file: test, check, eq, near, raises, fails, finish
local h = dofile((arg[0]:match("^(.*[/\\])") or "./") .. "harness.lua")
local test, check, eq, near, raises, fails, finish = h.test, h.check, h.eq, h.near, h.raises, h.fails, h.finish

local function make_rig()
    return assert(bw.rig { joints = { { name = "hips", t = { 0, 1, 0 } }, { name = "arm", parent = "hips", t = { 1, 0, 0 } } } })
end
local function make_clip()
    return assert(bw.clip { name = "walk", length = 1, loop = true,
        joints = { { joint = "hips", keys = { { time = 0, t = { 0, 1, 0 } }, { time = 1, t = { 4, 1, 0 } } } } },
        markers = { { name = "step", time = 0.5 } } })
end

test("a closed handle raises a clear error", function()
    local rig = make_rig()
    rig:close()
    raises(function() rig:joint_count() end, "calling 'joint_count' on bad self", "blendwerk.Rig is closed")
    raises(function() make_clip():sample(rig, 0) end, "bad argument #1 to 'sample'", "blendwerk.Rig is closed")
    raises(function() rig:close() end, "blendwerk.Rig is closed")
    check(tostring(rig):find("blendwerk.Rig (closed)", 1, true), "tostring: " .. tostring(rig))
    local clip = make_clip()
    clip:close()
    raises(function() clip:length() end, "blendwerk.Clip is closed")
    local pose = make_rig():pose()
    pose:close()
    raises(function() pose:t(1) end, "blendwerk.Pose is closed")
    raises(function() bw.mix { pose } end, "bad argument #1 to 'mix'", "blendwerk.Pose is closed")
end)

test("<close> variables close at the end of their scope", function()
    local escaped
    do
        local rig <close> = make_rig()
        escaped = rig
        eq(rig:joint_count(), 2, "usable inside")
    end
    raises(function() escaped:joint_count() end, "blendwerk.Rig is closed")
end)

test("dependents keep a closed rig and clip alive", function()
    local rig, clip = make_rig(), make_clip()
    local pose = rig:rest_pose()
    local binding = assert(clip:bind(rig))
    rig:close()
    clip:close()
    -- the handles are closed, the C objects live on for their users
    near(select(2, pose:t("hips")), 1, 0, "pose reads its rig's data")
    near(select(2, pose:model_position("arm")), 1, 1e-6, "local_to_model uses the rig")
    local p = binding:sample(0.5)
    near(p:t("hips"), 2, 1e-6, "the binding still samples: x = 4 * 0.5")
    eq(binding:report().bound, 1, "report")
    check(binding:clip() == clip and binding:rig() == rig, "the binding still refers to its handles")
end)

test("garbage collection never frees what a live object uses", function()
    local binding, set
    do
        local rig, clip = make_rig(), make_clip()
        binding = assert(clip:bind(rig))
        set = bw.track_set(rig)
        assert(set:play(clip, { on_marker = function() end }))
    end
    for _ = 1, 3 do collectgarbage("collect") end
    near(binding:sample(0.25):t("hips"), 1, 1e-6, "binding after collection: x = 4 * 0.25")
    local names = {}
    set:on("marker", function(name, time) names[#names + 1] = name .. "@" .. time end)
    for _ = 1, 4 do set:update(0.125); collectgarbage("step") end
    eq(table.concat(names, ","), "step@0.5", "marker name from a clip only the set holds")
    near(set:pose():t("hips"), 2, 1e-6, "composed from the collected-by-Lua clip")
end)

test("closing a clip under a playing track", function()
    local rig, clip = make_rig(), make_clip()
    local set = bw.track_set(rig)
    local h = assert(set:play(clip))
    clip:close()
    set:update(0.25)
    near(set:pose():t("hips"), 1, 1e-6, "still plays")
    eq(set:clip(h), clip, "set:clip gives the (closed) handle back")
    assert(set:stop(h))
    set:update(0)
    eq(set:alive(h), false, "removed")
    collectgarbage("collect") -- the clip may go now; nothing may touch it
    set:update(0.1)
    near(set:pose():t("hips"), 0, 0, "rest")
end)

test("closing a track set from its own callback", function()
    local rig = make_rig()
    local set = bw.track_set(rig)
    assert(set:play(make_clip(), { on_marker = function() set:close() end }))
    set:update(0.5) -- fires "step", which closes the set mid-delivery
    raises(function() set:update(0.1) end, "blendwerk.TrackSet is closed")
end)

test("closing in every order, then collecting", function()
    for order = 1, 6 do
        local rig, clip = make_rig(), make_clip()
        local binding = assert(clip:bind(rig))
        local set = bw.track_set(rig)
        assert(set:play(binding))
        local pose = binding:sample(0.5)
        local objects = { rig, clip, binding, set, pose }
        -- rotate the close order
        for i = 0, #objects - 1 do objects[(i + order) % #objects + 1]:close() end
        -- whatever the order, every handle ends closed (and ASan sees no
        -- use after free when the collector runs)
        for _, o in ipairs(objects) do
            check(tostring(o):find("(closed)", 1, true), "closed after order " .. order .. ": " .. tostring(o))
        end
        collectgarbage("collect")
    end
end)

test("a borrowed rig outlives its closed asset", function()
    local dir = os.getenv("BW_ASSET_DIR")
    if not dir then return end -- covered by test_lua_asset when assets exist
    local asset = bw.load(dir .. "/SimpleSkin.gltf")
    if not asset then return end
    local rig, clip = asset:rig(), asset:clip(1)
    eq(asset:rig(), rig, "the same handle every call")
    asset:close()
    raises(function() asset:clip_count() end, "blendwerk.Asset is closed")
    eq(rig:joint_count(), 2, "borrowed rig still usable")
    check(clip:sample(rig, 1):coverage(2) == 1, "borrowed clip still samples")
    rig:close(); clip:close()
    collectgarbage("collect")
end)

-- Borrowed handles: what an owner hands out again on later calls is shared
-- by every holder, so close() and <close> leave it open (docs/lua-api.md).
-- The clip moves hips x = 4 * t.
test("the track set's output pose survives <close> and close()", function()
    local rig, clip = make_rig(), make_clip()
    local set = bw.track_set(rig)
    assert(set:play(clip))
    do local p <close> = set:update(0.25) end
    local p = set:update(0.25)
    near(p:t("hips"), 2, 1e-6, "x = 4 * 0.5 after two updates")
    p:close()
    near(set:update(0.25):t("hips"), 3, 1e-6, "x = 4 * 0.75: the set still composes into it")
    near(p:t("hips"), 3, 1e-6, "the closed-by-a-holder handle still reads")
    check(rawequal(set:pose(), p) and rawequal(set:compose(), p), "the same handle every call")
    do local q <close> = set:compose() end
    check(tostring(p):find("borrowed", 1, true), "tostring: " .. tostring(p))
    set:close()
    near(p:t("hips"), 3, 1e-6, "the output outlives its closed set")
    collectgarbage("collect")
end)

test("set:clip(h), binding:clip(), binding:rig() and pose:rig() survive close()", function()
    local rig, clip = make_rig(), make_clip()
    local set = bw.track_set(rig)
    local h = assert(set:play(clip))
    do local c <close> = set:clip(h) end
    set:clip(h):close()
    eq(set:clip(h):name(), "walk", "set:clip(h) still open")
    check(rawequal(set:clip(h), set:clip(h)), "set:clip(h): the same handle every call")
    eq(set:clip(h), clip, "equal (__eq) to the played clip")
    eq(clip:length(), 1, "the user's own clip is untouched")
    local b = assert(clip:bind(rig))
    do local c <close> = b:clip(); local r <close> = b:rig() end
    b:clip():close(); b:rig():close()
    eq(b:clip():length(), 1, "binding:clip() still open"); eq(b:rig():joint_count(), 2, "binding:rig() still open")
    eq(clip:name(), "walk", "clip open"); eq(rig:joint_count(), 2, "rig open")
    local pose = rig:pose()
    do local r <close> = pose:rig() end
    pose:rig():close()
    eq(pose:rig():joint_count(), 2, "pose:rig() still open")
    check(rawequal(pose:rig(), b:rig()), "one shared twin per rig")
    eq(pose:rig(), rig, "equal (__eq) to the rig")
    check(not rawequal(pose:rig(), rig), "a twin, not the user's handle")
    -- closing the user's own handles closes only those
    rig:close(); clip:close()
    raises(function() rig:joint_count() end, "blendwerk.Rig is closed")
    raises(function() clip:length() end, "blendwerk.Clip is closed")
    eq(pose:rig():joint_count(), 2, "the twin outlives the closed rig")
    eq(b:clip():name(), "walk", "the twin outlives the closed clip")
    near(b:sample(0.5, pose):t("hips"), 2, 1e-6, "still samples: x = 4 * 0.5")
    eq(b:clip(), clip, "still equal to the closed original: the same C clip")
    set:update(0.25)
    near(set:pose():t("hips"), 1, 1e-6, "the set still plays: x = 4 * 0.25")
    pose, b, set = nil, nil, nil
    collectgarbage("collect") -- ASan: everything goes, nothing is used after free
end)


-- Every type's close(), __gc / __close and __tostring are the one shared
-- set (bw_lua_register_object_type): the texts and errors each type shows.
-- The live texts are worked out from the objects made here: the rig has 2
-- joints and no curve; the clip 'walk' is 1 s long and loops, its one
-- track (hips) binds; a track set holds 16 tracks unless told; a one-clip
-- blend tree is 1 node, 1 leaf, no parameter; root motion defaults to
-- joint 1 on x, z and yaw; the graph has one layer and no parameter.
test("tostring, close and use after close, type by type", function()
    local rig, clip = make_rig(), make_clip()
    local graph = assert(bw.graph({ layers = { { name = "b", entry = "i", states = { i = { clip = "walk" } } } } },
                                  { rig = rig, clips = { clip } }))
    local cases = {
        { rig, "blendwerk.Rig", "blendwerk.Rig (2 joints, 0 curves)", "joint_count" },
        { clip, "blendwerk.Clip", "blendwerk.Clip 'walk' (1.0 s, loop)", "length" },
        { rig:pose(), "blendwerk.Pose", "blendwerk.Pose (2 joints)", "copy" },
        { clip:bind(rig), "blendwerk.Binding", "blendwerk.Binding 'walk' (1 bound, 0 unbound, 0 ambiguous)", "report" },
        { bw.track_set(rig), "blendwerk.TrackSet", "blendwerk.TrackSet (0 of 16 tracks)", "count" },
        { bw.blend_tree { clip = clip }, "blendwerk.BlendTree", "blendwerk.BlendTree (1 nodes, 1 leaves, 0 params)",
          "leaf_count" },
        { bw.root_motion(rig), "blendwerk.RootMotion", "blendwerk.RootMotion (root 1 'hips', axes x z yaw)", "root" },
    }
    for _, c in ipairs(cases) do
        local o, name, live, method = c[1], c[2], c[3], c[4]
        local text = tostring(o)
        local addr = text:match("^" .. live:gsub("%p", "%%%0") .. ": (%S+)$")
        check(addr, name .. " live: " .. text)
        raises(function() o.close(42) end, name .. " expected, got number")
        o:close()
        eq(tostring(o), name .. " (closed): " .. tostring(addr), name .. " closed: the same address")
        raises(function() o[method](o) end, "bad argument #1", name .. " is closed")
        raises(function() o:close() end, "calling 'close' on bad self", name .. " is closed")
        local ok, err = pcall(getmetatable(o).__close, o)
        check(ok, name .. ": the metatable's __close is quiet on a closed handle: " .. tostring(err))
        eq(getmetatable(o).__name, name, name .. " __name")
    end
    -- Graph and Cursor print no address, and close() twice is quiet
    local cursor = graph:cursor()
    eq(tostring(graph), "blendwerk.Graph (1 layers, 0 params)", "graph live")
    eq(tostring(cursor), "blendwerk.Cursor", "cursor live")
    cursor:close(); cursor:close()
    eq(tostring(cursor), "blendwerk.Cursor (closed)", "cursor closed")
    raises(function() cursor:update(0.1) end, "blendwerk.Cursor is closed")
    graph:close(); graph:close()
    eq(tostring(graph), "blendwerk.Graph (closed)", "graph closed")
    raises(function() graph:params() end, "blendwerk.Graph is closed")
    raises(function() graph.close("g") end, "blendwerk.Graph expected, got string")
    -- a borrowed handle: close() leaves it open for everyone
    local set = bw.track_set(make_rig())
    local out = set:pose()
    out:close()
    check(tostring(out):find("^blendwerk%.Pose %(borrowed, 2 joints%): "), "borrowed pose open: " .. tostring(out))
    collectgarbage("collect")
end)


-- A graph idle <-> move, both ways whenever `pred` holds, over make_rig's
-- hips; clips "walk" (the animator's too) and "idle".
local function flip_graph(rig, clips, pred)
    return assert(bw.graph({
        params = { speed = 0 },
        layers = { { name = "base", entry = "idle", states = { idle = { clip = "idle" }, move = { clip = "walk" } },
            transitions = { { from = "idle", to = "move", when = { pred } }, { from = "move", to = "idle", when = { pred } } } } },
    }, { rig = rig, clips = clips }))
end

test("a cursor closed by its own predicate or event callback lives until its update returns", function()
    local rig = make_rig()
    local idle = assert(bw.clip { name = "idle", length = 1, loop = true,
        joints = { { joint = "hips", keys = { { time = 0, t = { 0, 1, 0 } } } } } })
    local clips = { make_clip(), idle }
    local cursor
    local graph = flip_graph(rig, clips, function() cursor:close(); collectgarbage("collect"); return true end)
    cursor = graph:cursor()
    -- the predicate closes the cursor half way through its update: the
    -- update finishes on the live C cursor (under ASan a use after free
    -- shows here), and the handle is closed afterwards
    local pose = cursor:update(0.1)
    eq(pose:joint_count(), 2, "the update's pose")
    raises(function() cursor:update(0.1) end, "blendwerk.Cursor is closed")
    eq(tostring(cursor), "blendwerk.Cursor (closed)", "closed after the update")
    -- the same from the enter callback, during event delivery
    local c2 = flip_graph(rig, clips, function() return true end):cursor()
    local entered = 0
    c2:on("enter", function(state)
        entered = entered + 1
        c2:close()
        collectgarbage("collect")
    end)
    c2:update(0.1)
    eq(entered, 1, "delivery went on to the callback once")
    raises(function() c2:state() end, "blendwerk.Cursor is closed")
    collectgarbage("collect")
end)

test("an animator closed or re-entered from its own callbacks", function()
    local rig = make_rig()
    local idle = assert(bw.clip { name = "idle", length = 1, loop = true,
        joints = { { joint = "hips", keys = { { time = 0, t = { 0, 1, 0 } } } } } })
    local clips = { walk = make_clip(), idle = idle }
    local a
    -- closed by its expression map during the update: the update finishes
    a = assert(bw.animator { rig = rig, clips = clips,
        expression_space = { kind = "custom", dim = 1, map = function(arkit, out) a:close(); collectgarbage("collect"); out[1] = 1 end } })
    eq(a:update(0.1, {}), true, "the update that closed it")
    raises(function() a:update(0.1, {}) end, "blendwerk.Animator is closed")
    -- closed by a gesture's envelope
    a = assert(bw.animator { rig = rig, clips = clips, gestures = { "walk" } })
    assert(a:gesture("walk", { duration = 1, envelope = function() a:close(); collectgarbage("collect"); return 1 end }))
    eq(a:update(0.1, {}), true, "the update that closed it")
    raises(function() a:pose() end, "blendwerk.Animator is closed")
    -- closed by a predicate of its graph
    a = assert(bw.animator { rig = rig, clips = clips, graph = flip_graph(rig, { clips.walk, idle },
        function() a:close(); collectgarbage("collect"); return true end) })
    eq(a:update(0.1, {}), true, "the update that closed it")
    raises(function() a:status() end, "blendwerk.Animator is closed")
    -- update and set_graph from inside the update are the callback's
    -- errors (counted as its failure; the outer update goes on)
    local inner
    local graph = flip_graph(rig, { clips.walk, idle }, function()
        local ok, e = pcall(a.set_graph, a, nil)
        inner = e
        a:update(1, {})
        return true
    end)
    a = assert(bw.animator { rig = rig, clips = clips, graph = graph })
    eq(a:update(0.1, {}), true, "the outer update")
    check(tostring(inner):find("animator:set_graph: called from the animator's own update", 1, true), tostring(inner))
    eq(a:status().state, "idle", "the failing predicate counted as false")
    a:close()
    collectgarbage("collect")
end)

finish()
