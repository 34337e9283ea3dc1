-- harness.lua - the tiny test harness the Lua tests share (loaded with
-- dofile from beside each test): test(name, fn) runs one case; near / eq /
-- check / raises / fails record failures with file:line and keep going;
-- finish() prints the closing line "N passed, N failed" and exits non-zero
-- on failure.
local passed, failed, case_ok = 0, 0, true

local function report(msg)
    local info = debug.getinfo(3, "Sl")
    io.stderr:write(string.format("%s:%d: %s\n", info.short_src, info.currentline, msg))
    case_ok = false
end
local function check(cond, what)
    if not cond then report("check failed: " .. tostring(what)) end
end
local function eq(got, want, what)
    if got ~= want then report(string.format("%s = %s, expected %s", what or "value", tostring(got), tostring(want))) end
end
local function near(got, want, tol, what)
    if type(got) ~= "number" or not (math.abs(got - want) <= tol) then
        report(string.format("%s = %s, expected %.9g (tol %g)", what or "value", tostring(got), want, tol))
    end
end
-- fn must raise an error whose message contains every given fragment
local function raises(fn, ...)
    local ok, err = pcall(fn)
    if ok then return report("expected an error, got none") end
    for _, fragment in ipairs { ... } do
        if not tostring(err):find(fragment, 1, true) then
            return report(string.format("error %q lacks %q", tostring(err), fragment))
        end
    end
end
-- fails(fragments, f(...)): f must return nil, message where the message
-- contains the fragment (a string, or a list of strings)
local function fails(fragments, value, message)
    if value ~= nil then return report("expected nil, message; got " .. tostring(value)) end
    if type(fragments) == "string" then fragments = { fragments } end
    for _, fragment in ipairs(fragments) do
        if not tostring(message):find(fragment, 1, true) then
            return report(string.format("message %q lacks %q", tostring(message), fragment))
        end
    end
end
local function test(name, fn)
    case_ok = true
    local ok, err = xpcall(fn, debug.traceback)
    if not ok then
        io.stderr:write(name .. ": " .. tostring(err) .. "\n")
        case_ok = false
    end
    if case_ok then passed = passed + 1 else failed = failed + 1; io.stderr:write("FAILED: " .. name .. "\n") end
end
local function finish()
    print(string.format("%d passed, %d failed", passed, failed))
    os.exit(failed == 0 and 0 or 1, true)
end

return { test = test, check = check, eq = eq, near = near, raises = raises, fails = fails, finish = finish }
