-- annotations.lua TYPES_FILE - the module and its LuaCATS annotations
-- (types/blendwerk.lua) list the same functions, fields and methods.
--
-- The module's side is read from the running module: the functions and
-- fields of `require "blendwerk"`, and the methods in the __index table of
-- every metatable named "blendwerk.*" in the registry (read through
-- debug.getregistry(), so a __metatable guard does not hide them). The
-- annotation side is read from the file: `function blendwerk.NAME(`,
-- `---@field` lines of `---@class blendwerk`, and `function Local:NAME(`
-- after `---@class blendwerk.Type` / `local Local = {}`; each function's
-- parameters must have their `---@param` lines. Runs in
-- `blendwerk run` (ctest) and in the stock lua5.4 (the package check).
local path = assert(arg and arg[1], "usage: annotations.lua types/blendwerk.lua")
local bw = require "blendwerk"
assert(loadfile(path)) -- the annotations are valid Lua (a syntax error would confuse the language server)

local function set_of(t)
    local s = {}
    for _, v in ipairs(t) do s[v] = true end
    return s
end

-- the module as it is
local actual = { functions = {}, fields = {}, classes = {} }
for k, v in pairs(bw) do
    if type(v) == "function" then actual.functions[#actual.functions + 1] = k
    else actual.fields[#actual.fields + 1] = k end
end
local problems = {}
for name, mt in pairs(debug.getregistry()) do
    if type(name) == "string" and name:match("^blendwerk%.") and type(mt) == "table" then
        local index = rawget(mt, "__index")
        if type(index) == "table" then
            local methods = {}
            for k, v in pairs(index) do
                if type(v) == "function" then methods[#methods + 1] = k end
            end
            actual.classes[name] = methods
        elseif index ~= nil then
            problems[#problems + 1] = name .. ": __index is a " .. type(index) .. ", its methods cannot be listed"
        end
        -- no __index: an internal type with no methods (blendwerk.BindingCache)
    end
end

-- the annotations
local annotated = { functions = {}, fields = {}, classes = {} }
local class, locals = nil, {}
local params = {} -- the ---@param names above the next function
local n = 0
-- every parameter of an annotated function has a ---@param line, in order
local function check_params(line)
    local list = line:match("^function%s+[%w_%.:]+%s*%((.-)%)")
    if not list then return end
    local names = {}
    for name in list:gmatch("[^,%s]+") do names[#names + 1] = name end
    if table.concat(names, ", ") ~= table.concat(params, ", ") then
        problems[#problems + 1] = ("%s:%d: the parameters (%s) and the ---@param lines (%s) differ"):format(
            path, n, table.concat(names, ", "), table.concat(params, ", "))
    end
end
for line in io.lines(path) do
    n = n + 1
    local c = line:match("^%-%-%-@class%s+([%w_%.]+)")
    local p = line:match("^%-%-%-@param%s+([%w_%.]+)")
    if p then params[#params + 1] = p end
    if line:match("^function") then check_params(line) end
    if not line:match("^%-%-") then params = {} end
    if c then
        class = c
    elseif line:match("^%-%-%-@field") then
        local f = line:match("^%-%-%-@field%s+([%w_]+)")
        if class == "blendwerk" and f then annotated.fields[#annotated.fields + 1] = f end
    else
        local l = line:match("^local%s+([%w_]+)%s*=%s*{%s*}")
        if l and class then locals[l] = class end
        local f = line:match("^function%s+blendwerk%.([%w_]+)%s*%(")
        if f then annotated.functions[#annotated.functions + 1] = f end
        local owner, m = line:match("^function%s+([%w_]+):([%w_]+)%s*%(")
        if owner then
            local cls = locals[owner]
            if not cls then
                problems[#problems + 1] = ("%s:%d: method of '%s', which no '---@class' + 'local %s = {}' declares"):format(path, n, owner, owner)
            else
                annotated.classes[cls] = annotated.classes[cls] or {}
                table.insert(annotated.classes[cls], m)
            end
        end
        if not line:match("^%-%-") then class = class and (l and class or nil) end
    end
end

local function compare(what, have, documented)
    local h, d = set_of(have), set_of(documented)
    local missing, stale = {}, {}
    for k in pairs(h) do if not d[k] then missing[#missing + 1] = k end end
    for k in pairs(d) do if not h[k] then stale[#stale + 1] = k end end
    table.sort(missing)
    table.sort(stale)
    for _, k in ipairs(missing) do
        problems[#problems + 1] = ("%s%s is in the module but not annotated in %s"):format(what, k, path)
    end
    for _, k in ipairs(stale) do
        problems[#problems + 1] = ("%s%s is annotated in %s but not in the module"):format(what, k, path)
    end
end

compare("function blendwerk.", actual.functions, annotated.functions)
compare("field blendwerk.", actual.fields, annotated.fields)
local names = {}
for name in pairs(actual.classes) do names[#names + 1] = name end
for name in pairs(annotated.classes) do
    if not actual.classes[name] then names[#names + 1] = name end
end
table.sort(names)
local methods = 0
for _, name in ipairs(names) do
    local have, documented = actual.classes[name], annotated.classes[name]
    if not have then
        problems[#problems + 1] = ("class %s is annotated in %s but no metatable of that name is registered"):format(name, path)
    elseif not documented then
        problems[#problems + 1] = ("class %s (methods: %s) is not annotated in %s: add '---@class %s' and its methods"):format(
            name, table.concat(have, ", "), path, name)
    else
        compare("method " .. name .. ":", have, documented)
        methods = methods + #have
    end
end

if #problems > 0 then
    io.stderr:write(table.concat(problems, "\n"), "\n")
    io.stderr:write(#problems, " difference(s) between the module and ", path, "\n")
    os.exit(1)
end
print(("%s matches the module: %d functions, %d fields, %d classes, %d methods"):format(
    path, #actual.functions, #actual.fields, #names, methods))
