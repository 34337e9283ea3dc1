-- test_lua_module.lua - the module as a whole: what `blendwerk run` sets up
-- (global, require, arg, "file:line: message" errors with exit 1), the
-- type names, blendwerk.load's nil, message answers, and the same module
-- loaded as build/blendwerk.so by the stock lua5.4 interpreter through
-- LUA_CPATH (skipped when lua5.4 or BW_BINARY_DIR is missing).
local bw = blendwerk or require("blendwerk")
-- the shared harness beside this file: test, check, eq, near, raises, fails, finish
local h = dofile((arg[0]:match("^(.*[/\\])") or "./") .. "harness.lua")
local test, check, eq, near, raises, fails, finish = h.test, h.check, h.eq, h.near, h.raises, h.fails, h.finish

local bin = os.getenv("BW_BINARY_DIR")

local function write_file(path, text)
    local f = assert(io.open(path, "w"))
    f:write(text)
    f:close()
end
local function read_file(path)
    local f = io.open(path, "r")
    if not f then return nil end
    local s = f:read("a")
    f:close()
    return s
end
-- run a shell command; returns exit code, stdout, stderr
local function run(cmd)
    local out, err = os.tmpname(), os.tmpname()
    local ok, how, code = os.execute(cmd .. " >" .. out .. " 2>" .. err)
    local o, e = read_file(out), read_file(err)
    os.remove(out); os.remove(err)
    return how == "exit" and code or -1, o or "", e or ""
end
local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

test("the module, its global and its types", function()
    eq(require("blendwerk"), blendwerk, "require gives the preloaded global")
    eq(type(bw.version), "string", "version"); eq(bw.version, "0.1.0", "version value")
    local rig = assert(bw.rig { joints = { { name = "a" } } })
    local clip = assert(bw.clip { name = "c", joints = { { joint = "a", keys = { { time = 0, t = { 0, 0, 0 } } } } } })
    eq(getmetatable(rig).__name, "blendwerk.Rig", "Rig")
    eq(getmetatable(clip).__name, "blendwerk.Clip", "Clip")
    eq(getmetatable(clip:bind(rig)).__name, "blendwerk.Binding", "Binding")
    eq(getmetatable(rig:pose()).__name, "blendwerk.Pose", "Pose")
    eq(getmetatable(bw.track_set(rig)).__name, "blendwerk.TrackSet", "TrackSet")
    for _, name in ipairs { "rig", "clip", "bind", "pose", "mix", "track_set", "load", "ease", "lerp_angle" } do
        eq(type(bw[name]), "function", "blendwerk." .. name)
    end
end)

test("metatables are guarded: getmetatable gives a read-only view", function()
    local rig = assert(bw.rig { joints = { { name = "a" } } })
    local clip = assert(bw.clip { name = "c", joints = { { joint = "a", keys = { { time = 0, t = { 0, 0, 0 } } } } } })
    local set = bw.track_set(rig)
    local objects = { Rig = rig, Clip = clip, Binding = clip:bind(rig), Pose = rig:pose(), TrackSet = set,
        RootMotion = bw.root_motion(rig) }
    for name, o in pairs(objects) do
        local mt = getmetatable(o)
        eq(type(mt), "userdata", name .. ": the view, not the metatable")
        eq(mt.__name, "blendwerk." .. name, name .. " __name")
        eq(mt.__index, nil, name .. ": the methods table is out of reach")
        eq(mt.__gc, mt.__close, name .. ": __gc and __close are one closing function")
        raises(function() mt.__index = {} end, "the metatable of blendwerk." .. name .. " is protected")
        raises(function() rawset(mt, "__index", {}) end, "bad argument #1 to 'rawset' (table expected, got userdata)")
        eq(getmetatable(mt), false, name .. ": the view's own metatable is hidden too")
    end
    eq(rig:joint_count(), 1, "methods still work")
    raises(function() setmetatable(rig, {}) end, "bad argument #1 to 'setmetatable' (table expected, got blendwerk.Rig)")
    -- the view's __gc closes like close(): the pose goes, a borrowed handle stays
    local pose = rig:pose()
    getmetatable(pose).__gc(pose)
    raises(function() pose:t(1) end, "blendwerk.Pose is closed")
    getmetatable(pose).__gc(pose) -- no error on a closed handle
    local out = set:update(0)
    getmetatable(out).__gc(out)
    eq(out:joint_count(), 1, "a borrowed handle stays open")
end)

test("load answers nil, message for missing and malformed files", function()
    fails({ "no/such/file.gltf" }, bw.load("no/such/file.gltf"))
    fails({ "no_such.bvh" }, bw.load("no_such.bvh"))
    local bad = os.tmpname() .. ".gltf"
    write_file(bad, "{ this is not json")
    fails({ bad }, bw.load(bad))
    os.remove(bad)
    local bvh = os.tmpname() .. ".bvh"
    write_file(bvh, "HIERARCHY\nROOT hips\n{\n  OFFSET 0 0 nan\n")
    fails({ bvh }, bw.load(bvh))
    os.remove(bvh)
    raises(function() bw.load() end, "bad argument #1 to 'load'", "string expected")
    raises(function() bw.load("x.gltf", { max = 1 }) end, "bad argument #2 to 'load'", "unknown field 'max'")
    raises(function() bw.load("x.gltf", { max = 1 }) end, "unknown field 'max' (accepted fields: max_bytes)")
end)

test("check_fields: a script's own option check, with the caller's line", function()
    local t = { seed = 1, duration = 2 }
    eq(bw.check_fields(t, { "seed", "duration", "rate" }, "opts"), t, "returns the table")
    eq(bw.check_fields({}, {}, "opts") ~= nil, true, "empty table, no names")
    local function misspelt() bw.check_fields({ sead = 1 }, { "seed" }, "blink: options") end
    local line = debug.getinfo(misspelt, "S").linedefined
    raises(misspelt, "test_lua_module.lua:" .. line .. ": blink: options: unknown field 'sead' (accepted fields: seed)")
    raises(function() bw.check_fields({ 5 }, { "seed" }, "o") end, "o: unexpected list entry [1]")
    -- level 2: the line of the function that called the checking one
    local function new(desc) return bw.check_fields(desc, { "curve" }, "new", 2) end
    local function caller() new { curv = 1 } end
    local at = debug.getinfo(caller, "S").linedefined
    raises(caller, "test_lua_module.lua:" .. at .. ": new: unknown field 'curv' (accepted fields: curve)")
    raises(function() bw.check_fields({}, {}, "o", 0) end, "bad argument #4")
    raises(function() bw.check_fields({ ["seed\0x"] = 1 }, { "seed" }, "o") end, "o: unknown field 'seed' (with a NUL byte)")
    fails("unknown field 'joints' (with a NUL byte)", bw.rig { joints = { { name = "a" } }, ["joints\0"] = 1 })
    raises(function() bw.check_fields({ [true] = 1 }, { "seed" }, "o") end, "o: unexpected boolean key")
    raises(function() bw.check_fields({}, { "a", 7 }, "o") end, "check_fields: names[2] is not a name")
    raises(function() bw.check_fields({}, { "a\0b" }, "o") end, "check_fields: names[1] is not a name")
    local many = {}
    for i = 1, 33 do many[i] = "f" .. i end
    raises(function() bw.check_fields({}, many, "o") end, "check_fields: at most 32 names")
    many[33] = nil
    eq(bw.check_fields({ f32 = 1 }, many, "o").f32, 1, "32 names are fine")
    raises(function() bw.check_fields(nil, {}, "o") end, "bad argument #1")
    raises(function() bw.check_fields({}, "seed", "o") end, "bad argument #2")
end)

test("blendwerk run: arg table, exit codes and error positions", function()
    if not bin then return print("skip: BW_BINARY_DIR not set") end
    local exe = bin .. "/blendwerk"
    local script = os.tmpname() .. ".lua"
    write_file(script, [[
print(arg[-2], arg[-1], arg[0] == ..., select("#", ...), arg[1], arg[2], type(blendwerk))
]])
    -- `...` holds the arguments: its first value is arg[1], not arg[0]
    local code, out = run(quote(exe) .. " run " .. quote(script) .. " one two")
    eq(code, 0, "exit 0")
    eq(out, "blendwerk\trun\tfalse\t2\tone\ttwo\ttable\n", "arg and ...")

    write_file(script, "local x = 1\n\nerror('boom')\n")
    local err
    code, out, err = run(quote(exe) .. " run " .. quote(script))
    eq(code, 1, "runtime error exits 1")
    eq(err:match("^[^\n]*"), script .. ":3: boom", "first line is file:line: message")

    write_file(script, "local rig = blendwerk.rig{}\nrig:joint_name(1)\n")
    code, out, err = run(quote(exe) .. " run " .. quote(script))
    eq(code, 1, "binding error exits 1")
    eq(err:match("^[^\n]*"), script .. ":2: bad argument #1 to 'joint_name' (joint index 1 out of range 1..0)",
        "binding errors carry the script's position")

    write_file(script, "local = 3\n")
    code, out, err = run(quote(exe) .. " run " .. quote(script))
    eq(code, 1, "syntax error exits 1")
    check(err:find(script .. ":1:", 1, true), "syntax error position: " .. err)

    write_file(script, "os.exit(3)\n")
    eq((run(quote(exe) .. " run " .. quote(script))), 3, "os.exit code")
    os.remove(script)

    code, out, err = run(quote(exe) .. " run " .. quote(script .. ".missing"))
    eq(code, 1, "missing script exits 1"); check(err:find("cannot open", 1, true), "message: " .. err)
    eq((run(quote(exe) .. " run")), 2, "no script: usage, exit 2")
end)

test("stock lua5.4 loads build/blendwerk.so through LUA_CPATH", function()
    if not bin then return print("skip: BW_BINARY_DIR not set") end
    if (run("command -v lua5.4")) ~= 0 then return print("skip: lua5.4 not installed") end
    local so = bin .. "/blendwerk.so"
    if not read_file(so) then return report("missing " .. so) end
    -- A sanitized module needs the sanitizer runtime loaded first: find
    -- the one it links against and preload it.
    local env = "LUA_CPATH=" .. quote(bin .. "/?.so") .. " "
    local _, deps = run("ldd " .. quote(so))
    local asan = deps:match("(%S*libasan%.so[%.%d]*) =>") and deps:match("libasan%.so[%.%d]* => (%S+)")
    if asan then
        env = env .. "LD_PRELOAD=" .. quote(asan) .. " ASAN_OPTIONS=detect_leaks=0 "
    elseif bw.build.asan then
        return print("skip: cannot find the ASan runtime the module needs")
    end
    local script = os.tmpname() .. ".lua"
    -- independent of this process: a linear clip sampled at a quarter,
    -- x = 8 * 0.25 = 2, and the module's own type name
    write_file(script, [[
local bw = require("blendwerk")
local rig = assert(bw.rig { joints = { { name = "hips" } } })
local clip = assert(bw.clip { name = "c", joints = { { joint = "hips", keys = {
    { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 8, 0, 0 } } } } } })
print(bw.version, getmetatable(rig).__name, (clip:sample(rig, 0.25):t(1)), blendwerk == nil)
]])
    local code, out, err = run(env .. "lua5.4 " .. quote(script))
    os.remove(script)
    eq(code, 0, "lua5.4 exit code (" .. err .. ")")
    eq(out, "0.1.0\tblendwerk.Rig\t2.0\ttrue\n", "output from lua5.4")
end)

finish()
