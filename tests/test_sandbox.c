/* test_sandbox.c - the adversarial suite for the shared sandbox
 * (bindings/sandbox.h, docs/sandbox.md, SPEC section 10).
 *
 * Every case is a small mod script written into a temporary mod folder and
 * run five ways:
 * - through the C API (bw_sandbox_load_file + bw_sandbox_call), timed;
 * - through `blendwerk run --sandbox` (the built binary, popen);
 * - through the demo's character loading (bw_character_load, the one
 *   loader the demo uses);
 * - through the demo's hot reload (demo/app.h: a good character, then the
 *   case saved over it: the reload fails, the old character keeps playing,
 *   a good save afterwards loads again);
 * - as the body of a graph predicate (blendwerk.graph), which counts as
 *   false and is reported once while the script around it runs on.
 * Each must end with the case's error, naming the file and line, and the
 * process keeps running: after every case a bystander sandbox created at
 * the start still counts correctly, the stopped sandbox runs a harmless
 * chunk, and a new sandbox runs a harmless script.
 *
 * Timing: an instruction-budget stop must come within the CPU time of a
 * plain loop spending the same budget (measured here, the reference) times
 * a margin for costlier instructions, plus 1 ms; a wall-clock stop within
 * the limit plus 10 ms of this thread's CPU time (and, in wall time, not
 * before the limit and not hanging); refusals and memory stops within the
 * reference plus 1 ms. Under AddressSanitizer the slack is multiplied by
 * SLACK_FACTOR (the reference is measured under it too). CPU time of this
 * thread is what is bounded, so other processes on the machine (CI runs
 * tests side by side) do not make the test flaky.
 *
 * The demo's session comes from its SDL-free logic library
 * (blendwerk_demo_logic), as in tests/test_demo.c, so it is tested
 * without SDL.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <lauxlib.h> /* LUA_NOREF */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "character.h"
#include "check.h"
#include "test_files.h"
#include "sandbox.h"

#define BLENDWERK BW_BINARY_DIR "/blendwerk"

#if defined(__SANITIZE_ADDRESS__)
#define SLACK_FACTOR 8.0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLACK_FACTOR 8.0
#endif
#endif
#ifndef SLACK_FACTOR
#define SLACK_FACTOR 1.0
#endif

/* The limits every case runs with (some cases raise the budget). */
#define BUDGET 1000000LL
#define MEMORY_MB 16
#define SECONDS 2.0        /* the wall clock never decides a budget case */
#define TIME_CASE_SECONDS 0.05
#define WALL_HANG 1.0 /* seconds of wall time no stop may take, whatever the load */
/* A costlier instruction mix (C calls, metamethods) than the plain loop,
 * and the same instructions running slower on a loaded machine (two
 * vCPUs sharing caches with other test processes: 14x the quiet
 * reference was seen). A stop that does not come runs for SECONDS, 2 s:
 * far beyond this bound. */
#define BUDGET_MARGIN 25.0

static char parent_dir[256]; /* holds the mod folder and a file outside it */
static char mod_dir[300];
static double reference_cpu; /* seconds to spend BUDGET in a plain loop */

typedef enum stop_kind { KIND_BUDGET, KIND_TIME, KIND_MEMORY, KIND_REFUSED } stop_kind;

typedef struct sandbox_case {
    const char *name;   /* the file is name.lua in the mod folder */
    const char *script;
    const char *want;   /* the error contains this */
    int line;           /* and starts with "name.lua:line:" (0: any line) */
    stop_kind kind;
    long long budget;   /* 0: BUDGET */
    int memory_mb;      /* 0: MEMORY_MB */
} sandbox_case;

static const sandbox_case cases[] = {
    /* infinite loops */
    {"loop_plain", "local x = 0\nwhile true do x = x + 1 end\n", "instruction budget of 1000000 exceeded", 2, KIND_BUDGET, 0, 0},
    {"loop_pcall", "while true do\n  pcall(function() while true do end end)\nend\n", "instruction budget", 0, KIND_BUDGET, 0, 0},
    {"loop_pcall_error", "while true do\n  pcall(error, 'x')\nend\n", "instruction budget", 0, KIND_BUDGET, 0, 0},
    {"loop_xpcall", "xpcall(function() while true do end end,\n  function(e) while true do end end)\n", "instruction budget", 1,
     KIND_BUDGET, 0, 0},
    {"loop_coroutine", "local co = coroutine.wrap(function() while true do end end)\nco()\n", "instruction budget", 1,
     KIND_BUDGET, 0, 0},
    {"loop_resume", "while true do\n  coroutine.resume(coroutine.create(function() while true do end end))\nend\n",
     "instruction budget", 2, KIND_BUDGET, 0, 0},
    {"loop_index", "local t = setmetatable({}, { __index = function(t, k)\n  while true do end\nend })\nreturn t.x\n",
     "instruction budget", 2, KIND_BUDGET, 0, 0},
    {"loop_lt", "local mt = { __lt = function()\n  while true do end\nend }\nreturn setmetatable({}, mt) < setmetatable({}, mt)\n",
     "instruction budget", 2, KIND_BUDGET, 0, 0},
    {"loop_sort", "local t = {}\nfor i = 1, 100 do t[i] = i end\ntable.sort(t, function(a, b) while true do end end)\n",
     "instruction budget", 3, KIND_BUDGET, 0, 0},
    {"loop_close", "do\n  local x <close> = setmetatable({}, { __close = function() while true do end end })\nend\n",
     "instruction budget", 2, KIND_BUDGET, 0, 0},
    {"loop_close_unwind", "do\n  local x <close> = setmetatable({}, { __close = function() while true do end end })\n"
                          "  while true do end\nend\n",
     "instruction budget", 3, KIND_BUDGET, 0, 0},
    {"loop_close_coroutine", "local co = coroutine.wrap(function()\n"
                             "  local x <close> = setmetatable({}, { __close = function() while true do end end })\n"
                             "  while true do end\nend)\nco()\n",
     "instruction budget", 3, KIND_BUDGET, 0, 0},
    /* single C calls the hook never interrupts */
    {"rep_empty", "\nstring.rep('', math.maxinteger)\n", "instruction budget", 2, KIND_BUDGET, 0, 0},
    {"move_huge", "\ntable.move({}, 1, 1e15, 2)\n", "instruction budget", 2, KIND_BUDGET, 0, 0},
    {"concat_count", "\ntable.concat({}, '', 1, math.maxinteger)\n", "instruction budget", 2, KIND_BUDGET, 0, 0},
    /* one instruction, much C work: big allocations are charged */
    {"concat_big", "local s = string.rep('xxxxxxxxxxxxxxxx', 1 << 17)\nwhile true do local t = s .. 'x' end\n",
     "instruction budget", 2, KIND_BUDGET, 4000000LL, 0},
    {"upper_loop", "local s = string.rep('xxxxxxxxxxxxxxxx', 1 << 17)\nwhile true do s:upper() end\n", "instruction budget", 2,
     KIND_BUDGET, 4000000LL, 0},
    {"insert_front", "local t = {}\nfor i = 1, 100000 do t[i] = i end\nwhile true do table.insert(t, 1, 0) end\n",
     "instruction budget", 3, KIND_BUDGET, 0, 0},
    {"date_format", "\nos.date(string.rep('%c', 1000000))\n", "instruction budget", 2, KIND_BUDGET, 0, 0},
    {"unpack_huge", "\nreturn table.unpack({}, 1, 1e12)\n", "instruction budget", 2, KIND_BUDGET, 0, 0},
    /* the wall clock (a budget that would take hours) */
    {"time_loop", "\nwhile true do end\n", "time limit of 0.05 s exceeded", 2, KIND_TIME, 1000000000000LL, 0},
    /* memory bombs */
    {"mem_doubling", "local s = 'x'\nwhile true do s = s .. s end\n", "memory cap of 16384 KiB exceeded", 2, KIND_MEMORY,
     100000000LL, 0},
    {"mem_table", "local t = {}\nwhile true do t[#t + 1] = {} end\n", "memory cap of 16384 KiB exceeded", 2, KIND_MEMORY,
     100000000LL, 0},
    {"mem_rep", "\nlocal s = string.rep('x', 1 << 30)\n", "memory cap of 16384 KiB exceeded", 2, KIND_MEMORY, 0, 0},
    {"mem_rep_caught", "\npcall(string.rep, 'x', 1 << 30)\nreturn 1\n", "memory cap of 16384 KiB exceeded", 2, KIND_MEMORY, 0, 0},
    {"mem_concat", "local t = {}\nfor i = 1, 500 do t[i] = string.rep('x', 4096) end\nlocal s = table.concat(t)\n"
                   "local u = table.concat({ s, s, s, s, s, s, s, s })\n",
     "memory cap of 16384 KiB exceeded", 4, KIND_MEMORY, 100000000LL, 0},
    {"mem_format", "\nlocal s = string.format('%s%s%s', string.rep('x', 1 << 22), string.rep('x', 1 << 22), string.rep('x', 1 << 22))\n",
     "memory cap of 16384 KiB exceeded", 2, KIND_MEMORY, 100000000LL, 0},
    /* metatable and environment escapes */
    {"escape_string_mt", "\ngetmetatable('').__index.upper = nil\n", "attempt to index a boolean value", 2, KIND_REFUSED, 0, 0},
    {"escape_rawset", "\nrawset(string, 'find', print)\n", "rawset: the sandbox's libraries are read-only", 2, KIND_REFUSED, 0, 0},
    {"escape_assign", "\nstring.find = print\n", "the library 'string' is read-only", 2, KIND_REFUSED, 0, 0},
    {"escape_module_assign", "\nblendwerk.rig = print\n", "the library 'blendwerk' is read-only", 2, KIND_REFUSED, 0, 0},
    {"escape_module_mt", "local r = blendwerk.rig { joints = { { name = 'root' } } }\n"
                         "getmetatable(r).__gc = function() while true do end end\n",
     "the metatable of blendwerk.Rig is protected", 2, KIND_REFUSED, 0, 0}, /* getmetatable gives a read-only view */
    {"escape_env", "local _ENV = setmetatable({}, { __index = _G })\nreturn io.open('/etc/passwd')\n", "attempt to index a nil value", 2,
     KIND_REFUSED, 0, 0},
    {"escape_load_env", "\nreturn load('return io')().open('/etc/passwd')\n", "attempt to index a nil value", 2, KIND_REFUSED, 0, 0},
    /* a binding's `out` table is written raw: a library is refused as one */
    {"escape_out_table", "local p = blendwerk.rig { joints = { { name = 'root' } } }:pose()\np:rotations({ 1 }, math)\n",
     "a read-only table cannot take the results", 2, KIND_REFUSED, 0, 0},
    {"escape_pairs", "for k, v in pairs(string) do\n  if k == 'find' then rawset(string, k, nil) end\nend\n",
     "read-only", 2, KIND_REFUSED, 0, 0},
    /* __gc loops and resurrection */
    {"gc_loop", "\nsetmetatable({}, { __gc = function() while true do end end })\n", "setmetatable: __gc metamethods are not allowed", 2,
     KIND_REFUSED, 0, 0},
    {"gc_resurrect", "local keep\nsetmetatable({}, { __gc = function(o) keep = o end })\n", "__gc metamethods are not allowed", 2,
     KIND_REFUSED, 0, 0},
    {"gc_added_later", "local mt = {}\nlocal t = setmetatable({}, mt)\nmt.__gc = function() while true do end end\nt = nil\n"
                       "error('finalizers added later never run')\n",
     "finalizers added later never run", 5, KIND_REFUSED, 0, 0},
    /* binary chunks, io / os / package / debug */
    {"binary_chunk", "\nassert(load('\\27Lua\\84\\0\\25\\147\\13\\10\\26\\10', 'b', 'b'))\n", "attempt to load a binary chunk", 2,
     KIND_REFUSED, 0, 0},
    {"dump", "\nreturn string.dump(print)\n", "attempt to call a nil value (field 'dump')", 2, KIND_REFUSED, 0, 0},
    {"io_open", "\nreturn io.open('/etc/passwd')\n", "attempt to index a nil value (global 'io')", 2, KIND_REFUSED, 0, 0},
    {"os_execute", "\nos.execute('true')\n", "attempt to call a nil value (field 'execute')", 2, KIND_REFUSED, 0, 0},
    {"package_loadlib", "\npackage.loadlib('libc.so.6', 'system')\n", "attempt to index a nil value (global 'package')", 2,
     KIND_REFUSED, 0, 0},
    {"debug_sethook", "\ndebug.sethook()\n", "attempt to index a nil value (global 'debug')", 2, KIND_REFUSED, 0, 0},
    {"require_io", "\nrequire('io')\n", "only \"blendwerk\" and the mod's own modules can be required", 2, KIND_REFUSED, 0, 0},
    {"dofile", "\ndofile('/etc/passwd')\n", "attempt to call a nil value (global 'dofile')", 2, KIND_REFUSED, 0, 0},
    {"collect", "\ncollectgarbage()\n", "only collectgarbage(\"count\")", 2, KIND_REFUSED, 0, 0},
    /* pattern bombs */
    {"pattern_find", "\nstring.find(string.rep('a', 200), 'a*a*a*a*a*a*b')\n", "string.find: refused", 2, KIND_REFUSED, 0, 0},
    {"pattern_gsub", "\nstring.gsub(string.rep('a', 5000), '.-.-.-b', '')\n", "string.gsub: refused", 2, KIND_REFUSED, 0, 0},
    {"pattern_gmatch", "\nfor x in string.rep('a', 5000):gmatch('(.-)(.-)(.-)b') do end\n", "string.gmatch: refused", 2,
     KIND_REFUSED, 0, 0},
    /* the Lua 5.4.4 coroutine.close crash (unbounded C recursion) */
    {"close_crash", "local cos = {}\nfor i = 1, 20000 do\n  cos[i] = coroutine.create(function()\n"
                    "    local x <close> = setmetatable({}, { __close = function()\n"
                    "      if cos[i + 1] then assert(coroutine.close(cos[i + 1])) end\n    end })\n"
                    "    coroutine.yield()\n  end)\n  coroutine.resume(cos[i])\nend\ncoroutine.close(cos[1])\n",
     "coroutines nested deeper than 64", 5, KIND_REFUSED, 100000000LL, 64},
    /* the same with 180 levels of C recursion in each close: the C stack
     * guard (or, with small frames, the depth cap) stops it */
    {"close_deep", "local cos = {}\nlocal function deep(n, i)\n  if n == 0 then\n"
                   "    if cos[i + 1] then coroutine.close(cos[i + 1]) end\n    return\n  end\n"
                   "  local t = setmetatable({}, { __index = function() deep(n - 1, i) return 1 end })\n  return t.x\nend\n"
                   "for i = 1, 2000 do\n  cos[i] = coroutine.create(function()\n"
                   "    local x <close> = setmetatable({}, { __close = function() deep(180, i) end })\n"
                   "    coroutine.yield()\n  end)\n  coroutine.resume(cos[i])\nend\ncoroutine.close(cos[1])\n",
     "coroutines nested", 4, KIND_REFUSED, 100000000LL, 0},
    /* files: only the mod's own, no symbolic link out of its folder */
    {"symlink_file", "\nreturn require('evil')\n", "'evil.lua' is a symbolic link", 2, KIND_REFUSED, 0, 0},
    {"symlink_folder", "\nreturn require('outside.secret')\n", "'outside' is a symbolic link", 2, KIND_REFUSED, 0, 0},
    {"parent_folder", "\nreturn blendwerk.load('../secret.lua')\n", "leaves the mod's folder", 2, KIND_REFUSED, 0, 0},
    {"absolute_path", "\nreturn blendwerk.load('/etc/passwd')\n", "is absolute", 2, KIND_REFUSED, 0, 0},
    /* a named pipe planted in the mod: refused at once (opening it
     * blocked the host until a writer came), and a module file holding a
     * binary chunk: refused naming the module's file */
    {"fifo_module", "\nreturn require('pipe')\n", "cannot open pipe.lua: not a regular file", 2, KIND_REFUSED, 0, 0},
    {"binary_module", "\nreturn require('binary')\n", "binary.lua: attempt to load a binary chunk", 2, KIND_REFUSED, 0, 0},
    /* a module nested past the parser's C levels: named too (in place of
     * the requiring line Lua gives that stop) */
    {"deep_module", "\nreturn require('deep')\n", "deep_module.lua:2: deep.lua: C stack overflow", 2, KIND_REFUSED, 0, 0},
};
#define CASE_COUNT ((int)(sizeof cases / sizeof cases[0]))

static const char harmless[] =
    "local own = require('own')\n"
    "assert(own.answer == 42 and require('own') == own)\n"
    /* a module's error reaches the script's pcall: a table as it was
     * raised, a message with the module's position */
    "local ok, e = pcall(require, 'raises_table')\n"
    "assert(not ok and type(e) == 'table' and e.code == 7)\n"
    "ok, e = pcall(require, 'raises_text')\n"
    "assert(not ok and e == 'raises_text.lua:1: no luck')\n"
    /* a mod file that does not open is blendwerk.load's nil, message
     * (lua-api.md), not an error; a refused name still raises */
    "local a, m = blendwerk.load('missing.bvh')\n"
    "assert(a == nil and m == 'missing.bvh: cannot open: No such file or directory', m)\n"
    /* a name with a NUL byte is refused, not cut short (require loaded
     * own.lua, load opened own.lua) */
    "ok, e = pcall(require, 'own\\0zz')\n"
    "assert(not ok and e:find(\"require 'own': the module name contains a NUL byte\", 1, true), e)\n"
    "a, m = blendwerk.load('own.lua\\0.bvh')\n"
    "assert(a == nil and m == 'own.lua: the path contains a NUL byte', m)\n"
    "assert(('arm_l'):gsub('_l$', '_r') == 'arm_r' and string.rep('ab', 3, ',') == 'ab,ab,ab')\n"
    "local co = coroutine.wrap(function(a) local b = coroutine.yield(a + 1) return b * 2 end)\n"
    "assert(co(1) == 2 and co(5) == 10)\n"
    "assert(pcall(error, 'x') == false and select(2, pcall(error, 'x', 0)) == 'x')\n"
    "assert(table.concat({ 1, 2, 3 }, '-') == '1-2-3' and os.time() > 0 and collectgarbage('count') > 0)\n"
    "local rig = blendwerk.rig { joints = { { name = 'root' } } }\n"
    "local c = blendwerk.clip { name = 'c', joints = { { joint = 'root', keys = { { time = 0, t = { 0, 1, 0 } } } } } }\n"
    "return { rig = rig, clips = { c } }\n";

/* ---- helpers ---- */

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *mod_path(const char *name) { return path_in(mod_dir, name); }

static const char *case_file(const sandbox_case *c)
{
    static char name[128];
    snprintf(name, sizeof name, "%s.lua", c->name);
    return name;
}

static bw_sandbox_limits case_limits(const sandbox_case *c)
{
    bw_sandbox_limits lim = {0};
    lim.instructions = c->budget ? c->budget : BUDGET;
    lim.memory = (size_t)(c->memory_mb ? c->memory_mb : MEMORY_MB) << 20;
    lim.seconds = c->kind == KIND_TIME ? TIME_CASE_SECONDS : SECONDS;
    return lim;
}

/* The error names the file and the case's line, and says what happened. */
static void check_message(const sandbox_case *c, const char *path_name, const char *err)
{
    char prefix[160];
    if (c->line > 0)
        snprintf(prefix, sizeof prefix, "%s.lua:%d:", c->name, c->line);
    else
        snprintf(prefix, sizeof prefix, "%s.lua:", c->name);
    bool ok = strstr(err, prefix) != NULL && strstr(err, c->want) != NULL;
    if (!ok) fprintf(stderr, "case %s through %s: got \"%s\", want \"%s\" ... \"%s\"\n", c->name, path_name, err, prefix, c->want);
    CHECK(ok);
}

static bw_sandbox *new_sandbox(const bw_sandbox_limits *lim)
{
    char err[BW_SANDBOX_ERROR_MAX];
    bw_sandbox_desc desc = {.dir = mod_dir, .name = "test"};
    if (lim) desc.limits = *lim;
    bw_sandbox *sb = bw_sandbox_create(&desc, err, sizeof err);
    if (!sb) fprintf(stderr, "bw_sandbox_create: %s\n", err);
    return sb;
}

/* Run a chunk of text in sb; returns the status. */
static bw_sandbox_status run_text(bw_sandbox *sb, const char *text, int nresults)
{
    bw_sandbox_status st = bw_sandbox_load_string(sb, text, strlen(text), "=chunk");
    return st != BW_SANDBOX_OK ? st : bw_sandbox_call(sb, 0, nresults);
}

/* ---- the bystander: a sandbox that lives through every case ---- */

static bw_sandbox *bystander;
static int bystander_count;

static void bystander_still_counts(void)
{
    lua_State *L = bw_sandbox_state(bystander);
    CHECK_INT(run_text(bystander, "local count = require('counted')\ncount.n = count.n + 1\n"
                                  "return count.n, ('a.b'):find('.', 1, true)", 2),
              BW_SANDBOX_OK);
    bystander_count++;
    CHECK_INT(lua_tointeger(L, -2), bystander_count);
    CHECK_INT(lua_tointeger(L, -1), 2);
    lua_pop(L, 2);
}

/* ---- the cases through each path ---- */

/* Seconds of this thread's CPU time a case's stop may take. For the wall
 * clock that is the limit plus 10 ms: a stop that came late while the
 * thread ran would show in CPU time, while time the machine gave to other
 * processes (CI runs tests side by side) shows only in the wall time, which
 * is checked separately: at least the limit (not early) and within
 * WALL_HANG seconds (no hang). */
static double case_bound(const sandbox_case *c)
{
    if (c->kind == KIND_BUDGET)
        return reference_cpu * (double)(c->budget ? c->budget : BUDGET) / (double)BUDGET * BUDGET_MARGIN +
               0.001 * SLACK_FACTOR;
    if (c->kind == KIND_TIME) return TIME_CASE_SECONDS + 0.010 * SLACK_FACTOR;
    if (c->budget == 0) return reference_cpu + 0.001 * SLACK_FACTOR;
    /* memory bombs and the close chain, given a larger budget to reach their limit */
    return reference_cpu * (double)c->budget / (double)BUDGET * BUDGET_MARGIN;
}

static void cases_stop_through_the_c_api(void)
{
    for (int i = 0; i < CASE_COUNT; i++) {
        const sandbox_case *c = &cases[i];
        bw_sandbox_limits lim = case_limits(c);
        bw_sandbox *sb = new_sandbox(&lim);
        CHECK(sb != NULL);
        if (!sb) return;
        double w0 = wall_now(), c0 = cpu_now();
        bw_sandbox_status st = bw_sandbox_load_file(sb, case_file(c), NULL);
        if (st == BW_SANDBOX_OK) st = bw_sandbox_call(sb, 0, 0);
        double wall = wall_now() - w0, cpu = cpu_now() - c0;
        bw_sandbox_status want = c->kind == KIND_BUDGET ? BW_SANDBOX_BUDGET
                                 : c->kind == KIND_TIME ? BW_SANDBOX_TIME
                                 : c->kind == KIND_MEMORY ? BW_SANDBOX_MEMORY
                                                          : BW_SANDBOX_ERROR;
        if ((int)st != (int)want) fprintf(stderr, "case %s: status %d, want %d (%s)\n", c->name, st, want, bw_sandbox_error(sb));
        CHECK_INT(st, want);
        check_message(c, "the C API", bw_sandbox_error(sb));
        double bound = case_bound(c), took = cpu;
        if (c->kind == KIND_TIME) CHECK(wall <= TIME_CASE_SECONDS + WALL_HANG);
        if (took > bound) fprintf(stderr, "case %s: took %.4f s, bound %.4f s\n", c->name, took, bound);
        CHECK(took <= bound);
        if (c->kind == KIND_TIME) CHECK(wall >= TIME_CASE_SECONDS); /* not stopped early */
        /* a stop ends with its call: the same sandbox runs the next one */
        CHECK_INT(run_text(sb, "return 6 * 7", 1), BW_SANDBOX_OK);
        CHECK_INT(lua_tointeger(bw_sandbox_state(sb), -1), 42);
        CHECK_STR(bw_sandbox_error(sb), "");
        lua_pop(bw_sandbox_state(sb), 1);
        double d0 = wall_now();
        bw_sandbox_destroy(sb); /* no finalizer of the script runs here */
        CHECK(wall_now() - d0 < 0.5);
        bystander_still_counts();
        /* and a harmless script still runs in a new sandbox */
        sb = new_sandbox(NULL);
        CHECK_INT(bw_sandbox_load_file(sb, "harmless.lua", NULL), BW_SANDBOX_OK);
        CHECK_INT(bw_sandbox_call(sb, 0, 0), BW_SANDBOX_OK);
        bw_sandbox_destroy(sb);
    }
}

static void cases_stop_through_run_sandbox(void)
{
    if (access(BLENDWERK, X_OK) != 0) {
        fprintf(stderr, "%s is not built\n", BLENDWERK);
        CHECK(!"blendwerk built");
        return;
    }
    /* a few processes at a time: each case's output fits a pipe's buffer */
    enum { BATCH = 6 };
    for (int first = 0; first < CASE_COUNT; first += BATCH) {
        FILE *pipes[BATCH] = {NULL};
        int count = CASE_COUNT - first < BATCH ? CASE_COUNT - first : BATCH;
        for (int k = 0; k < count; k++) {
            const sandbox_case *c = &cases[first + k];
            bw_sandbox_limits lim = case_limits(c);
            char cmd[1024];
            snprintf(cmd, sizeof cmd, "'%s' run --sandbox '%s' --budget %lld --memory-mb %d --time-limit %g 2>&1",
                     BLENDWERK, mod_path(case_file(c)), lim.instructions, (int)(lim.memory >> 20), lim.seconds);
            pipes[k] = popen(cmd, "r");
            CHECK(pipes[k] != NULL);
        }
        for (int k = 0; k < count; k++) {
            if (!pipes[k]) continue;
            char out[4096] = "";
            size_t n = fread(out, 1, sizeof out - 1, pipes[k]);
            out[n] = '\0';
            int status = pclose(pipes[k]);
            CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
            check_message(&cases[first + k], "run --sandbox", out);
        }
    }
    /* the harmless script passes, and its arguments are its `...` */
    write_text_file(mod_path("args.lua"), "local a, b = ...\nassert(a == 'x' and b == 'y')\nprint(select('#', ...))\n");
    char cmd[1024], out[256] = "";
    snprintf(cmd, sizeof cmd, "'%s' run --sandbox '%s' x y 2>&1", BLENDWERK, mod_path("args.lua"));
    FILE *p = popen(cmd, "r");
    size_t n = p ? fread(out, 1, sizeof out - 1, p) : 0;
    out[n] = '\0';
    CHECK(p && pclose(p) == 0);
    CHECK_STR(out, "[args.lua] 2\n");
    /* print lines are cut at 1000 bytes: "[print.lua] " + 1000 + " ...\n" */
    write_text_file(mod_path("print.lua"), "print(string.rep('x', 5000))\n");
    snprintf(cmd, sizeof cmd, "'%s' run --sandbox '%s' 2>&1 | wc -c", BLENDWERK, mod_path("print.lua"));
    p = popen(cmd, "r");
    n = p ? fread(out, 1, sizeof out - 1, p) : 0;
    out[n] = '\0';
    if (p) pclose(p);
    CHECK_INT(atoi(out), 12 + 1000 + 5);
    snprintf(cmd, sizeof cmd, "'%s' run --sandbox '%s' >/dev/null 2>&1", BLENDWERK, mod_path("harmless.lua"));
    CHECK_INT(system(cmd), 0);
    /* bad options are usage errors */
    snprintf(cmd, sizeof cmd, "'%s' run --sandbox '%s' --budget -3 >/dev/null 2>&1", BLENDWERK, mod_path("harmless.lua"));
    int st = system(cmd);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    snprintf(cmd, sizeof cmd, "'%s' run --sandbox >/dev/null 2>&1", BLENDWERK);
    st = system(cmd);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2);
}

/* plot-blend's specs run in the same sandbox: the plot-blend
 * escapes end with the file and line, fast (its budget is 20 million). */
static void plot_blend_specs_are_sandboxed(void)
{
    static const struct {
        const char *script, *want;
    } specs[] = {
        {"while true do\n  pcall(function() while true do end end)\nend\n", "pb.lua:2: instruction budget of 20000000 exceeded"},
        {"\nsetmetatable({}, { __gc = function() while true do end end })\n", "pb.lua:2: setmetatable: __gc"},
        {"\nstring.find(string.rep('a', 200), 'a*a*a*a*a*a*b')\n", "pb.lua:2: string.find: refused"},
        {"\nstring.rep('', math.maxinteger)\n", "pb.lua:2: instruction budget of 20000000 exceeded"},
        {"\nos.exit(0)\n", "pb.lua:2: attempt to call a nil value (field 'exit')"},
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        write_text_file(mod_path("pb.lua"), specs[i].script);
        char cmd[1024], out[2048] = "";
        snprintf(cmd, sizeof cmd, "'%s' plot-blend '%s' --out '%s' 2>&1", BLENDWERK, mod_path("pb.lua"), mod_path("pb.svg"));
        double t0 = wall_now();
        FILE *p = popen(cmd, "r");
        size_t n = p ? fread(out, 1, sizeof out - 1, p) : 0;
        out[n] = '\0';
        int status = p ? pclose(p) : -1;
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
        CHECK_CONTAINS(out, specs[i].want);
        CHECK(wall_now() - t0 < 2.0); /* 20 s before the shared sandbox */
    }
}

static void cases_stop_through_demo_loading(void)
{
    for (int i = 0; i < CASE_COUNT; i++) {
        const sandbox_case *c = &cases[i];
        bw_character_options opt = {.limits = case_limits(c)};
        char err[1024] = "";
        bw_character *ch = NULL;
        CHECK(!bw_character_load(mod_path(case_file(c)), &opt, &ch, err, sizeof err));
        CHECK(ch == NULL);
        check_message(c, "the demo", err);
    }
    char err[1024] = "";
    bw_character *ch = NULL;
    CHECK(bw_character_load(mod_path("harmless.lua"), NULL, &ch, err, sizeof err));
    if (!ch) fprintf(stderr, "harmless: %s\n", err);
    CHECK(ch != NULL && ch->clip_count == 1);
    bw_character_destroy(ch);
}

static void cases_stop_through_demo_hot_reload(void)
{
    const char *live = mod_path("live.lua");
    write_text_file(live, harmless);
    for (int i = 0; i < CASE_COUNT; i++) {
        const sandbox_case *c = &cases[i];
        demo_app_desc d = {.character = live, .force_polling = true, .limits = case_limits(c)};
        char err[DEMO_APP_ERROR_MAX];
        demo_app *app = demo_app_create(&d, err, sizeof err);
        CHECK(app != NULL);
        if (!app) {
            fprintf(stderr, "live.lua: %s\n", err);
            return;
        }
        CHECK(demo_app_frame(app, 1.0f / 60.0f, 0.0));
        const bw_rig *first = demo_app_rig(app);
        /* the case is saved over the live script, under the case's name
         * in the message: it is included from the live file's place */
        char text[2048];
        snprintf(text, sizeof text, "return include('%s')\n", case_file(c));
        write_text_file(live, text);
        CHECK_INT(demo_app_reload(app, 1.0, true), -1);
        check_message(c, "the demo's hot reload", demo_app_error(app));
        CHECK(demo_app_rig(app) == first); /* the old version keeps playing */
        CHECK(demo_app_frame(app, 1.0f / 60.0f, 1.1));
        write_text_file(live, harmless);
        CHECK_INT(demo_app_reload(app, 2.0, true), 1);
        CHECK_STR(demo_app_error(app), "");
        CHECK(demo_app_frame(app, 1.0f / 60.0f, 2.1));
        demo_app_destroy(app);
    }
}

/* ---- the limits and the API ---- */

static void limits_resolve_to_the_documented_defaults(void)
{
    bw_sandbox_limits d = bw_sandbox_limits_resolve(NULL);
    CHECK_INT(d.instructions, 50000000LL);
    CHECK_NEAR(d.seconds, 2.0, 0.0);
    CHECK_INT((long long)d.memory, 64LL << 20);
    CHECK_INT(d.callback_instructions, 100000LL);
    CHECK_NEAR(d.callback_seconds, 0.005, 0.0);
    CHECK_INT((long long)d.max_string, 16LL << 20);
    CHECK_INT(d.max_coroutine_depth, 64);
    bw_sandbox_limits odd = {.seconds = NAN, .callback_seconds = -1, .instructions = -5};
    d = bw_sandbox_limits_resolve(&odd);
    CHECK_NEAR(d.seconds, 2.0, 0.0);
    CHECK_NEAR(d.callback_seconds, 0.005, 0.0);
    CHECK_INT(d.instructions, 50000000LL);
    /* a cap too small for the libraries fails cleanly */
    char err[BW_SANDBOX_ERROR_MAX] = "";
    bw_sandbox_desc tiny = {.limits = {.memory = 4096}};
    CHECK(bw_sandbox_create(&tiny, err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "memory cap of 4096 bytes");
    bw_sandbox_destroy(NULL);
}

static void string_results_are_capped_by_max_string(void)
{
    bw_sandbox_limits lim = {.max_string = 1000};
    bw_sandbox *sb = new_sandbox(&lim);
    CHECK_INT(run_text(sb, "local s = string.rep('x', 1000)\nreturn #s", 1), BW_SANDBOX_OK);
    CHECK_INT(lua_tointeger(bw_sandbox_state(sb), -1), 1000);
    lua_pop(bw_sandbox_state(sb), 1);
    CHECK_INT(run_text(sb, "\nreturn string.rep('x', 1001)", 1), BW_SANDBOX_ERROR);
    CHECK_STR(bw_sandbox_error(sb), "chunk:2: string.rep: a result of 1001 bytes; the sandbox allows at most 1000");
    CHECK_INT(run_text(sb, "return table.concat({ string.rep('x', 600), string.rep('y', 600) })", 1), BW_SANDBOX_ERROR);
    CHECK_CONTAINS(bw_sandbox_error(sb), "table.concat: a result of 1200 bytes");
    bw_sandbox_destroy(sb);
}

/* bw_sandbox_set_memory_cap moves the cap between calls, counted in the
 * bytes bw_sandbox_memory_used reports: a 100,000-byte string held in a
 * module's table adds its bytes (plus its header and the field's slot, under
 * 16 KiB); a cap 512 bytes above the use refuses a 1,000-byte string as a
 * memory stop; 0 brings the default back and the same call runs. */
static void the_memory_cap_moves_between_calls(void)
{
    bw_sandbox_limits lim = {.memory = (size_t)8 << 20};
    bw_sandbox *sb = new_sandbox(&lim);
    lua_State *L = bw_sandbox_state(sb);
    CHECK_INT(run_text(sb, "require('box')", 0), BW_SANDBOX_OK); /* what holds the string: a module's table */
    lua_gc(L, LUA_GCCOLLECT, 0);
    const size_t base = bw_sandbox_memory_used(sb);
    CHECK(base > 0);
    CHECK_INT(run_text(sb, "require('box').big = string.rep('x', 100000)", 0), BW_SANDBOX_OK);
    lua_gc(L, LUA_GCCOLLECT, 0);
    const size_t held = bw_sandbox_memory_used(sb);
    CHECK(held >= base + 100000);
    CHECK(held < base + 100000 + 16384);
    static const char text[] = "return #string.rep('y', 1000)";
    CHECK_INT(bw_sandbox_load_string(sb, text, sizeof text - 1, "=capped"), BW_SANDBOX_OK);
    lua_gc(L, LUA_GCCOLLECT, 0);
    const size_t tight = bw_sandbox_memory_used(sb) + 512;
    CHECK_INT((long long)bw_sandbox_set_memory_cap(sb, tight), 8LL << 20); /* desc.limits.memory */
    CHECK_INT(bw_sandbox_call(sb, 0, 1), BW_SANDBOX_MEMORY);
    CHECK_CONTAINS(bw_sandbox_error(sb), "memory cap of");
    CHECK_INT(bw_sandbox_modules_loading(sb), 0);
    CHECK_INT((long long)bw_sandbox_set_memory_cap(sb, 0), (long long)tight);
    CHECK_INT(run_text(sb, text, 1), BW_SANDBOX_OK);
    CHECK_INT(lua_tointeger(L, -1), 1000);
    lua_pop(L, 1);
    CHECK_INT((long long)bw_sandbox_set_memory_cap(sb, 0), (long long)BW_SANDBOX_DEFAULT_MEMORY);
    bw_sandbox_destroy(sb);
}

static void a_caught_stop_stays_spent(void)
{
    bw_sandbox_limits lim = {.instructions = 100000};
    bw_sandbox *sb = new_sandbox(&lim);
    /* every construct that catches errors re-raises the stop */
    static const char *const catchers[] = {
        "local ok = pcall(function() while true do end end)\nreturn 'escaped'",
        "local ok = xpcall(function() while true do end end, debug and debug.traceback or tostring)\nreturn 'escaped'",
        "local co = coroutine.create(function() while true do end end)\nlocal ok = coroutine.resume(co)\nreturn 'escaped'",
        "local ok = pcall(coroutine.wrap(function() while true do end end))\nreturn 'escaped'",
        "local f = load(function() while true do end end)\nreturn 'escaped'",
    };
    for (size_t i = 0; i < sizeof catchers / sizeof catchers[0]; i++) {
        CHECK_INT(run_text(sb, catchers[i], 1), BW_SANDBOX_BUDGET);
        CHECK_CONTAINS(bw_sandbox_error(sb), "instruction budget of 100000 exceeded: script stopped");
        CHECK(lua_gettop(bw_sandbox_state(sb)) == 0); /* nothing returned */
    }
    /* a coroutine the stop killed never runs its __close handler later */
    CHECK_INT(run_text(sb, "require('box').co = coroutine.create(function()\n"
                           "  local x <close> = setmetatable({}, { __close = function() while true do end end })\n"
                           "  while true do end\nend)\ncoroutine.resume(require('box').co)\n",
                       0),
              BW_SANDBOX_BUDGET);
    CHECK_INT(run_text(sb, "return coroutine.close(require('box').co)", 2), BW_SANDBOX_OK);
    lua_State *L = bw_sandbox_state(sb);
    CHECK(!lua_toboolean(L, -2));
    CHECK_CONTAINS(lua_tostring(L, -1), "the sandbox stopped this coroutine");
    lua_pop(L, 2);
    bw_sandbox_destroy(sb);
}

/* ---- per-frame callbacks ---- */

static int reports;
static char last_report[BW_SANDBOX_ERROR_MAX];

static void count_report(void *user, const char *message)
{
    (void)user;
    reports++;
    snprintf(last_report, sizeof last_report, "%s", message);
}

/* A sandbox with a callback budget of 20000 instructions and the report
 * counted, that has run module `file` (text: its source) and taken its
 * functions fast, flaky and runaway (the module table stays on the stack).
 * The callbacks' time limit is 10 s, not 5 ms, so that only the budget
 * stops a runaway: on a loaded machine the process can lose the CPU for
 * longer than 5 ms inside one call (it did, in CI). */
static bw_sandbox *callbacks_of(const char *file, const char *text, bw_sandbox_callback cb[3])
{
    bw_sandbox_desc desc = {.limits = {.callback_instructions = 20000, .callback_seconds = 10.0},
                            .dir = mod_dir,
                            .report = count_report};
    char err[BW_SANDBOX_ERROR_MAX];
    bw_sandbox *sb = bw_sandbox_create(&desc, err, sizeof err);
    CHECK(sb != NULL);
    if (!sb) return NULL;
    lua_State *L = bw_sandbox_state(sb);
    write_text_file(mod_path(file), text);
    CHECK_INT(bw_sandbox_load_file(sb, file, NULL), BW_SANDBOX_OK);
    CHECK_INT(bw_sandbox_call(sb, 0, 1), BW_SANDBOX_OK);
    static const char *const names[3] = {"fast", "flaky", "runaway"};
    for (int i = 0; i < 3; i++) {
        lua_getfield(L, -1, names[i]);
        CHECK(bw_sandbox_callback_init(sb, &cb[i]));
    }
    return sb;
}

static void predicates_fail_as_false_and_report_once(void)
{
    bw_sandbox_callback cb[3];
    bw_sandbox *sb = callbacks_of("graph.lua",
                                  "return {\n"
                                  "  fast = function(p) return p > 0.5 end,\n"
                                  "  flaky = function(p)\n    if p > 2 then error('speed is off the chart') end\n    return true\n  end,\n"
                                  "  runaway = function(p) while true do end end,\n"
                                  "}\n",
                                  cb);
    if (!sb) return;
    lua_State *L = bw_sandbox_state(sb);
    bw_sandbox_callback fast = cb[0], flaky = cb[1], runaway = cb[2];
    lua_pushnumber(L, 1);
    bw_sandbox_callback not_a_function;
    CHECK(!bw_sandbox_callback_init(sb, &not_a_function));
    lua_pop(L, 1);
    CHECK_INT(lua_gettop(L), 0);

    reports = 0;
    int trues = 0;
    double worst = 0;
    for (int frame = 0; frame < 100; frame++) {
        double p = frame / 20.0; /* 0 .. 4.95 exactly: flaky fails from frame 41 on */
        lua_pushnumber(L, p);
        trues += bw_sandbox_predicate(sb, &fast, 1);
        lua_pushnumber(L, p);
        trues += bw_sandbox_predicate(sb, &flaky, 1);
        double t0 = cpu_now();
        lua_pushnumber(L, p);
        CHECK(!bw_sandbox_predicate(sb, &runaway, 1));
        double t = cpu_now() - t0;
        if (t > worst) worst = t;
        CHECK_INT(lua_gettop(L), 0);
    }
    /* fast: p > 0.5 from frame 11 on (89 frames); flaky: frames 0..40 */
    CHECK_INT(trues, 89 + 41);
    CHECK_INT(flaky.failures, 59);
    CHECK_INT(runaway.failures, 100);
    CHECK_INT(fast.failures, 0);
    CHECK_INT(reports, 2); /* once per failing callback, not per frame */
    CHECK_STR(flaky.error, "graph.lua:4: speed is off the chart");
    CHECK_STR(runaway.error, "graph.lua:7: instruction budget of 20000 exceeded: script stopped");
    CHECK_STR(last_report, flaky.error); /* runaway reported at frame 0, flaky at frame 41 */
    /* a small budget is a small time: 20000 instructions are 1/50 of the reference's */
    CHECK(worst <= reference_cpu / 50.0 * BUDGET_MARGIN + 0.001 * SLACK_FACTOR);
    /* the callback results come back on success */
    lua_pushnumber(L, 3);
    CHECK_INT(bw_sandbox_callback_call(sb, &fast, 1, 1), BW_SANDBOX_OK);
    CHECK(lua_toboolean(L, -1));
    lua_pop(L, 1);
    bw_sandbox_callback_deinit(sb, &fast);
    bw_sandbox_callback_deinit(sb, &fast); /* empty: a no-op */
    lua_pushnumber(L, 3);
    CHECK(!bw_sandbox_predicate(sb, &fast, 1));
    bw_sandbox_callback_deinit(sb, &flaky);
    bw_sandbox_callback_deinit(sb, &runaway);
    CHECK_INT(lua_gettop(L), 0);
    bw_sandbox_destroy(sb);
}

/* bw_sandbox_set_reporter: while set, a callback's first failure goes to
 * the new function with its user; on_open keeps desc.user throughout; the
 * pair put back takes the reports again. */
static int opens_with_desc_user, other_reports;
static char other_last[BW_SANDBOX_ERROR_MAX];
static int desc_user_marker, other_user_marker;

static bool open_checks_user(void *user, const char *path, char *why, size_t why_size)
{
    (void)path;
    (void)why;
    (void)why_size;
    if (user == &desc_user_marker) opens_with_desc_user++;
    return true;
}

static void other_report(void *user, const char *message)
{
    if (user == &other_user_marker) other_reports++;
    snprintf(other_last, sizeof other_last, "%s", message);
}

static void a_reporter_takes_the_reports_while_set(void)
{
    bw_sandbox_desc desc = {.limits = {.callback_instructions = 20000}, .dir = mod_dir, .on_open = open_checks_user,
                            .report = count_report, .user = &desc_user_marker};
    char err[BW_SANDBOX_ERROR_MAX];
    bw_sandbox *sb = bw_sandbox_create(&desc, err, sizeof err);
    CHECK(sb != NULL);
    if (!sb) return;
    lua_State *L = bw_sandbox_state(sb);
    write_text_file(mod_path("reporter_helper.lua"), "return { two = 2 }\n");
    write_text_file(mod_path("reporter.lua"), "return {\n"
                                             "  fails = function() error('first') end,\n"
                                             "  opens = function() return require('reporter_helper').two end,\n"
                                             "  also_fails = function() error('second') end,\n"
                                             "}\n");
    opens_with_desc_user = 0;
    CHECK_INT(bw_sandbox_load_file(sb, "reporter.lua", NULL), BW_SANDBOX_OK);
    CHECK_INT(opens_with_desc_user, 1); /* the host's own load */
    CHECK_INT(bw_sandbox_call(sb, 0, 1), BW_SANDBOX_OK);
    bw_sandbox_callback fails, opens, also_fails;
    lua_getfield(L, -1, "fails");
    CHECK(bw_sandbox_callback_init(sb, &fails));
    lua_getfield(L, -1, "opens");
    CHECK(bw_sandbox_callback_init(sb, &opens));
    lua_getfield(L, -1, "also_fails");
    CHECK(bw_sandbox_callback_init(sb, &also_fails));
    lua_pop(L, 1);

    reports = other_reports = 0;
    bw_sandbox_reporter host = {NULL, NULL};
    bw_sandbox_set_reporter(sb, (bw_sandbox_reporter){other_report, &other_user_marker}, &host);
    CHECK(host.fn == count_report && host.user == &desc_user_marker);
    CHECK_INT(bw_sandbox_callback_call(sb, &fails, 0, 0), BW_SANDBOX_ERROR);
    CHECK_INT(other_reports, 1);
    CHECK_INT(reports, 0);
    CHECK_STR(other_last, "reporter.lua:2: first");
    CHECK_INT(bw_sandbox_callback_call(sb, &opens, 0, 1), BW_SANDBOX_OK);
    CHECK(lua_tonumber(L, -1) == 2.0);
    lua_pop(L, 1);
    CHECK_INT(opens_with_desc_user, 2); /* the require, still with desc.user */
    bw_sandbox_set_reporter(sb, host, NULL);
    CHECK_INT(bw_sandbox_callback_call(sb, &also_fails, 0, 0), BW_SANDBOX_ERROR);
    CHECK_INT(reports, 1);
    CHECK_INT(other_reports, 1);
    CHECK_STR(last_report, "reporter.lua:4: second");
    bw_sandbox_callback_deinit(sb, &fails);
    bw_sandbox_callback_deinit(sb, &opens);
    bw_sandbox_callback_deinit(sb, &also_fails);
    CHECK_INT(lua_gettop(L), 0);
    bw_sandbox_destroy(sb);
}

/* bw_sandbox_callback_push + bw_sandbox_callback_pushed (the control
 * runner's per-frame form): the same results, failure counts, report and
 * messages as bw_sandbox_callback_call, what lies below the call stays,
 * and an empty callback pushes nothing. */
static void the_pushed_form_counts_and_reports_as_the_call(void)
{
    bw_sandbox_callback cb[3];
    bw_sandbox *sb = callbacks_of("pushed.lua",
                                  "return {\n"
                                  "  fast = function(a, b) return 2 * a + b end,\n"
                                  "  flaky = function(p)\n    if p > 2 then error('too far') end\n  end,\n"
                                  "  runaway = function() while true do end end,\n"
                                  "}\n",
                                  cb);
    if (!sb) return;
    lua_State *L = bw_sandbox_state(sb);
    bw_sandbox_callback twice = cb[0], flaky = cb[1], runaway = cb[2], empty = {.ref = LUA_NOREF};
    lua_pop(L, 1);
    lua_pushliteral(L, "below"); /* as the runner's states table under its calls */
    reports = 0;
    CHECK(bw_sandbox_callback_push(sb, &twice));
    lua_pushnumber(L, 3);
    lua_pushnumber(L, 0.5);
    CHECK_INT(bw_sandbox_callback_pushed(sb, &twice, 2, 1), BW_SANDBOX_OK);
    CHECK_INT(lua_gettop(L), 2);
    CHECK_NEAR(lua_tonumber(L, -1), 6.5, 0); /* 2 * 3 + 0.5 */
    lua_pop(L, 1);
    for (int frame = 0; frame < 5; frame++) { /* p = 0 .. 4: fails at 3 and 4 */
        CHECK(bw_sandbox_callback_push(sb, &flaky));
        lua_pushnumber(L, frame);
        CHECK_INT(bw_sandbox_callback_pushed(sb, &flaky, 1, 0), frame > 2 ? BW_SANDBOX_ERROR : BW_SANDBOX_OK);
        CHECK(bw_sandbox_callback_push(sb, &runaway));
        CHECK_INT(bw_sandbox_callback_pushed(sb, &runaway, 0, 0), BW_SANDBOX_BUDGET);
        CHECK_INT(lua_gettop(L), 1);
    }
    CHECK_INT(flaky.failures, 2);
    CHECK_INT(runaway.failures, 5);
    CHECK_INT(reports, 2); /* once per failing callback */
    CHECK_STR(flaky.error, "pushed.lua:4: too far");
    CHECK_STR(runaway.error, "pushed.lua:6: instruction budget of 20000 exceeded: script stopped");
    CHECK(!bw_sandbox_callback_push(sb, &empty));
    CHECK_INT(lua_gettop(L), 1);
    CHECK_STR(lua_tostring(L, 1), "below");
    lua_pop(L, 1);
    bw_sandbox_callback_deinit(sb, &twice);
    bw_sandbox_callback_deinit(sb, &flaky);
    bw_sandbox_callback_deinit(sb, &runaway);
    bw_sandbox_destroy(sb);
}

/* Every case as the body of a graph predicate, in a script that builds a
 * graph whose one transition waits for it and updates a cursor three
 * times. The predicate runs with the callback limits (set to the case's
 * own, so the messages match the other paths): each of the three calls
 * stops or fails, counts as false (the layer stays in 'a'), and is
 * reported once with the case's file and line; the script itself runs on
 * to its end. The prefix sits on line 1 before the case's first line, so
 * the case's line numbers are the file's. */
static const char predicate_prefix[] =
    "local bw = require('blendwerk') "
    "local rig = bw.rig { joints = { { name = 'root' } } } "
    "local clip = bw.clip { name = 'c', length = 1, loop = true, "
    "joints = { { joint = 'root', keys = { { time = 0, t = { 0, 0, 0 } } } } } } "
    "local g = assert(bw.graph({ params = { x = 0 }, layers = { { name = 'base', entry = 'a', "
    "states = { a = { clip = 'c' }, b = { clip = 'c' } }, "
    "transitions = { { from = 'a', to = 'b', when = { function(p) ";
static const char predicate_suffix[] =
    "\nend } } } } } }, { rig = rig, clips = { clip } })) "
    "local cursor = g:cursor() "
    "for _ = 1, 3 do cursor:update(1 / 60) end "
    "assert(cursor:state() == 'a', 'the failing predicate counted as true') "
    "return 'still running'\n";

static void cases_stop_through_a_graph_predicate(void)
{
    static char text[16384];
    for (int i = 0; i < CASE_COUNT; i++) {
        const sandbox_case *c = &cases[i];
        snprintf(text, sizeof text, "%s%s%s", predicate_prefix, c->script, predicate_suffix);
        write_text_file(mod_path(case_file(c)), text);
        bw_sandbox_limits lim = case_limits(c);
        lim.callback_instructions = lim.instructions;
        lim.callback_seconds = lim.seconds;
        lim.instructions = 4 * lim.instructions + BUDGET; /* the three calls are charged to the script */
        lim.seconds = 4 * lim.seconds;
        bw_sandbox_desc desc = {.limits = lim, .dir = mod_dir, .name = "test", .report = count_report};
        char err[BW_SANDBOX_ERROR_MAX];
        bw_sandbox *sb = bw_sandbox_create(&desc, err, sizeof err);
        CHECK(sb != NULL);
        if (!sb) return;
        reports = 0;
        last_report[0] = '\0';
        double w0 = wall_now(), c0 = cpu_now();
        bw_sandbox_status st = bw_sandbox_load_file(sb, case_file(c), NULL);
        if (st == BW_SANDBOX_OK) st = bw_sandbox_call(sb, 0, 1);
        double wall = wall_now() - w0, cpu = cpu_now() - c0;
        if (st != BW_SANDBOX_OK) fprintf(stderr, "case %s as a predicate: %s\n", c->name, bw_sandbox_error(sb));
        CHECK_INT(st, BW_SANDBOX_OK);
        if (st == BW_SANDBOX_OK) {
            CHECK_STR(lua_tostring(bw_sandbox_state(sb), -1), "still running");
            lua_pop(bw_sandbox_state(sb), 1);
        }
        CHECK_INT(reports, 1);
        check_message(c, "a graph predicate", last_report);
        /* three stopped calls and the script around them (the wall clock
         * of three time stops gets room for a busy machine: the C API path
         * above holds the tight bound for one) */
        double took = cpu, bound = 3 * case_bound(c) + reference_cpu + 0.01 * SLACK_FACTOR;
        if (c->kind == KIND_TIME) CHECK(wall <= 3 * TIME_CASE_SECONDS + WALL_HANG);
        if (took > bound) fprintf(stderr, "case %s as a predicate: took %.4f s, bound %.4f s\n", c->name, took, bound);
        CHECK(took <= bound);
        bw_sandbox_destroy(sb);
        write_text_file(mod_path(case_file(c)), c->script); /* the case as the other paths read it */
        bystander_still_counts();
    }
}

/* A text chunk the host loads is named in a refusal without a line: as
 * shown, without the '=' or '@' of its chunk name (a binary chunk was
 * refused with no name, an oversized one as "=name") */
static void string_chunks_are_named_in_their_refusals(void)
{
    bw_sandbox *sb = new_sandbox(NULL);
    static const char binary[] = "\033Lua\124\0";
    CHECK_INT(bw_sandbox_load_string(sb, binary, sizeof binary - 1, "=spec options"), BW_SANDBOX_ERROR);
    CHECK_STR(bw_sandbox_error(sb), "spec options: attempt to load a binary chunk (mode is 't')");
    size_t big = ((size_t)4 << 20) + 1;
    char *text = (char *)malloc(big);
    CHECK(text != NULL);
    if (text) {
        memset(text, ' ', big);
        CHECK_INT(bw_sandbox_load_string(sb, text, big, "@huge.lua"), BW_SANDBOX_ERROR);
        CHECK_STR(bw_sandbox_error(sb), "huge.lua is larger than 4194304 bytes");
        free(text);
    }
    CHECK_INT(lua_gettop(bw_sandbox_state(sb)), 0);
    bw_sandbox_destroy(sb);
}

/* Run mod script `file` (text `script`: it returns its animator's first
 * expression number after a map that fails on each of three updates) with
 * a callback budget of `callback_budget`: it runs on, the expression is
 * 0, and the failure is reported once as `want`. */
static void map_failure_reported_once(const char *file, const char *script, long long callback_budget, const char *want)
{
    write_text_file(mod_path(file), script);
    bw_sandbox_desc desc = {.limits = {.callback_instructions = callback_budget}, .dir = mod_dir, .report = count_report};
    char err[BW_SANDBOX_ERROR_MAX];
    bw_sandbox *sb = bw_sandbox_create(&desc, err, sizeof err);
    CHECK(sb != NULL);
    if (!sb) return;
    reports = 0;
    last_report[0] = '\0';
    bw_sandbox_status st = bw_sandbox_load_file(sb, file, NULL);
    if (st == BW_SANDBOX_OK) st = bw_sandbox_call(sb, 0, 1);
    if (st != BW_SANDBOX_OK) fprintf(stderr, "%s: %s\n", file, bw_sandbox_error(sb));
    CHECK_INT(st, BW_SANDBOX_OK);
    if (st == BW_SANDBOX_OK) CHECK_NEAR(lua_tonumber(bw_sandbox_state(sb), -1), 0.0, 0.0);
    CHECK_INT(reports, 1);
    CHECK_STR(last_report, want);
    CHECK_INT(lua_gettop(bw_sandbox_state(sb)), st == BW_SANDBOX_OK ? 1 : 0);
    bw_sandbox_destroy(sb);
}

/* The animator's Lua expression map is a per-frame callback too: a map
 * that never returns is stopped at the callback budget on each of three
 * updates, reported once (with its line), and the script runs on. */
static void an_animator_map_is_a_callback(void)
{
    map_failure_reported_once("face.lua",
                              "local bw = require('blendwerk')\n"
                              "local rig = bw.rig { joints = { { name = 'root' } } }\n"
                              "local a = assert(bw.animator { rig = rig, clips = {}, blink = false,\n"
                              "  expression_space = { kind = 'custom', dim = 2, map = function(arkit, out)\n"
                              "    while true do end\n"
                              "  end } })\n"
                              "for _ = 1, 3 do assert(a:update(1 / 60, {})) end\n"
                              "return a:expression()[1]\n",
                              20000, "face.lua:5: instruction budget of 20000 exceeded: script stopped");
}

/* A callback called from a coroutine of the sandbox (a script updating
 * its animator inside coroutine.wrap) fails as in the sandbox's own
 * thread: an error object that is not a string is reported with its line,
 * once, to the sandbox's report function (it went to stderr as "error"). */
static void a_callback_in_a_coroutine_reports_like_the_sandbox(void)
{
    map_failure_reported_once("coface.lua",
                              "local bw = require('blendwerk')\n"
                              "local rig = bw.rig { joints = { { name = 'root' } } }\n"
                              "local a = assert(bw.animator { rig = rig, clips = {}, blink = false,\n"
                              "  expression_space = { kind = 'custom', dim = 2, map = function(arkit, out)\n"
                              "    error({ code = 1 })\n"
                              "  end } })\n"
                              "return coroutine.wrap(function()\n"
                              "  for _ = 1, 3 do assert(a:update(1 / 60, {})) end\n"
                              "  return a:expression()[1]\n"
                              "end)()\n",
                              0, "coface.lua:5: (error object is a table value)");
}

/* What a mod prints, and a callback's error it raises, reach stderr
 * escaped: print("\27[31mred", "a\nb\tc", 1) is one line, the arguments
 * separated by a tab as Lua's print does, every control byte of the text
 * (the ESC, the line break, the tab inside an argument) as \xNN; the
 * once-reported error of an animator map is printed the same way, under
 * run --sandbox (the sandbox's report) and plain run (no sandbox: the
 * callback's own report). */
static void script_text_reaches_stderr_escaped(void)
{
    write_text_file(mod_path("esc.lua"), "local bw = require('blendwerk')\n"
                                         "local rig = bw.rig { joints = { { name = 'root' } } }\n"
                                         "local a = assert(bw.animator { rig = rig, clips = {}, blink = false,\n"
                                         "  expression_space = { kind = 'custom', dim = 2, map = function(arkit, out)\n"
                                         "    error('\\27]0;pwned\\7')\n"
                                         "  end } })\n"
                                         "for _ = 1, 3 do assert(a:update(1 / 60, {})) end\n"
                                         "print('\\27[31mred', 'a\\nb\\tc', 1)\n");
    for (int sandboxed = 1; sandboxed >= 0; sandboxed--) {
        char cmd[1024], out[1024] = "";
        snprintf(cmd, sizeof cmd, "cd '%s' && '%s' run %s esc.lua 2>&1%s", mod_dir, BLENDWERK, sandboxed ? "--sandbox" : "",
                 sandboxed ? "" : " >/dev/null");
        FILE *p = popen(cmd, "r");
        size_t n = p ? fread(out, 1, sizeof out - 1, p) : 0;
        out[n] = '\0';
        CHECK(p && pclose(p) == 0);
        if (sandboxed)
            CHECK_STR(out, "esc.lua:5: \\x1b]0;pwned\\x07 (reported once; the call counts as failed)\n"
                           "[esc.lua] \\x1b[31mred\ta\\x0ab\\x09c\t1\n");
        else /* a plain run's print is Lua's own (the user's script, not a mod) */
            CHECK_STR(out, "esc.lua:5: \\x1b]0;pwned\\x07 (reported once; the call counts as failed)\n");
    }
}

/* A graph predicate that calls its own cursor's update: that call is an
 * error of the predicate, said as one (it read "called from the cursor's
 * own event callback"), and the predicate counts as false (the layer stays
 * in 'a'); the report says so as the docs do ("the condition counts as
 * false"), in a plain run and a sandboxed one alike (a plain run said "the
 * call counts as failed", a sandboxed one "the call counts as false"). */
static void a_predicate_updating_its_cursor_is_named_a_predicate(void)
{
    write_text_file(mod_path("pred_up.lua"),
                    "local bw = require('blendwerk')\n"
                    "local rig = bw.rig { joints = { { name = 'root' } } }\n"
                    "local clip = bw.clip { name = 'idle', length = 1, loop = true, joints = { { joint = 'root',\n"
                    "  keys = { { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 1, 0, 0 } } } } } }\n"
                    "local c\n"
                    "local g = assert(bw.graph({ layers = { { name = 'base', entry = 'a',\n"
                    "  states = { a = { clip = 'idle' }, b = { clip = 'idle' } },\n"
                    "  transitions = { { from = 'a', to = 'b', when = { function(p)\n"
                    "    c:update(0.1)\n"
                    "    return true end } } } } } }, { rig = rig, clips = { clip } }))\n"
                    "c = assert(g:cursor())\n"
                    "for _ = 1, 3 do c:update(0.1) end\n"
                    "assert(c:state() == 'a', c:state())\n");
    for (int sandboxed = 1; sandboxed >= 0; sandboxed--) {
        char cmd[1024], out[1024];
        snprintf(cmd, sizeof cmd, "cd '%s' && '%s' run %s pred_up.lua 2>&1", mod_dir, BLENDWERK, sandboxed ? "--sandbox" : "");
        CHECK_INT(capture_command(cmd, out, sizeof out), 0);
        CHECK_STR(out, "pred_up.lua:9: cursor:update: called from a graph predicate during the cursor's own "
                       "update (reported once; the condition counts as false)\n");
    }
}

static void host_granted_files_and_watches(void)
{
    /* blendwerk.load opens a granted path as given, and tells the host */
    bw_sandbox *sb = new_sandbox(NULL);
    char outside[512];
    snprintf(outside, sizeof outside, "%s/secret.lua", parent_dir);
    CHECK(bw_sandbox_allow_file(sb, outside));
    char script[1024];
    snprintf(script, sizeof script, "local a, e = blendwerk.load('%s')\nreturn a == nil and e ~= nil", outside);
    CHECK_INT(run_text(sb, script, 1), BW_SANDBOX_OK); /* opened: not an asset, so a load error, not a refusal */
    CHECK(lua_toboolean(bw_sandbox_state(sb), -1));
    lua_pop(bw_sandbox_state(sb), 1);
    bw_sandbox_destroy(sb);
}

/* ---- each chunk's globals are its own ---- */

/* A chunk that changes its globals (math, blendwerk, _G's metatable) and
 * then fails leaves the next chunk of the same sandbox with the libraries
 * as they were; a chunk's globals are its own (_G is its environment),
 * the environment's metatable is guarded, and load without env shares
 * the caller's globals. Before, the first chunk's `math = nil` reached
 * every later chunk: "attempt to index a nil value (global 'math')". */
static void a_chunks_globals_are_its_own(void)
{
    bw_sandbox *sb = new_sandbox(NULL);
    lua_State *L = bw_sandbox_state(sb);
    CHECK_INT(run_text(sb, "x = 1\nmath = nil\nblendwerk = nil\nstring = nil\nrequire = nil\n"
                           "error('oops')\n", 0),
              BW_SANDBOX_ERROR);
    CHECK_STR(bw_sandbox_error(sb), "chunk:6: oops");
    CHECK_INT(run_text(sb, "return x, math.floor(math.pi * 100), blendwerk.rig ~= nil, ('ab'):upper(), "
                           "require('own').answer", 5),
              BW_SANDBOX_OK);
    CHECK(lua_isnil(L, -5));
    CHECK_INT(lua_tointeger(L, -4), 314);
    CHECK(lua_toboolean(L, -3));
    CHECK_STR(lua_tostring(L, -2), "AB");
    CHECK_INT(lua_tointeger(L, -1), 42);
    lua_settop(L, 0);
    /* the environment's metatable is guarded; _G is the chunk's own */
    CHECK_INT(run_text(sb, "\nsetmetatable(_G, { __index = function() error('hijacked') end })\n", 0), BW_SANDBOX_ERROR);
    CHECK_STR(bw_sandbox_error(sb), "chunk:2: cannot change a protected metatable");
    CHECK_INT(run_text(sb, "y = 2\nreturn getmetatable(_G) == false and _G.y == 2 and rawget(_G, 'math') == nil "
                           "and _G.math == math and _ENV == _G", 1),
              BW_SANDBOX_OK);
    CHECK(lua_toboolean(L, -1));
    lua_settop(L, 0);
    /* load without env: the caller's globals (a chunk of its own with env) */
    CHECK_INT(run_text(sb, "z = 5\nload('z = z + 1; w = 1')()\nlocal e = {}\nload('v = 3', 'e', 't', e)()\n"
                           "return z, w, v, e.v", 4),
              BW_SANDBOX_OK);
    CHECK_INT(lua_tointeger(L, -4), 6);
    CHECK_INT(lua_tointeger(L, -3), 1);
    CHECK(lua_isnil(L, -2));
    CHECK_INT(lua_tointeger(L, -1), 3);
    lua_settop(L, 0);
    /* a graph file a script reads (bindings/graph_source.c loads it itself) has its own too */
    write_text_file(mod_path("g_evil.lua"), "math = nil\nblendwerk = nil\nerror('bad graph')\n");
    CHECK_INT(run_text(sb, "local g, e = blendwerk.graph('g_evil.lua', {})\n"
                           "return g == nil and type(e) == 'table' and e[1], math.floor(2.5), blendwerk ~= nil", 3),
              BW_SANDBOX_OK);
    CHECK_CONTAINS(lua_tostring(L, -3), "g_evil.lua:3: bad graph");
    CHECK_INT(lua_tointeger(L, -2), 2);
    CHECK(lua_toboolean(L, -1));
    lua_settop(L, 0);
    /* a module's globals stay in the module; the module's functions keep them */
    write_text_file(mod_path("globals_mod.lua"), "hidden = 41\nreturn { get = function() return hidden + 1 end }\n");
    CHECK_INT(run_text(sb, "local m = require('globals_mod')\nreturn hidden, m.get()", 2), BW_SANDBOX_OK);
    CHECK(lua_isnil(L, -2));
    CHECK_INT(lua_tointeger(L, -1), 42);
    lua_settop(L, 0);
    bw_sandbox_destroy(sb);
}

/* require of the host's own file from inside it is a require loop, not a
 * second run of the file (it ran twice before); after the run the mark is
 * gone, so a later require loads the file as any module. */
static void requiring_the_running_file_is_a_loop(void)
{
    write_text_file(mod_path("runs.lua"), "return { n = 0 }\n");
    write_text_file(mod_path("rmain.lua"), "local runs = require('runs')\nruns.n = runs.n + 1\n"
                                           "local ok, e = pcall(require, 'rmain')\n"
                                           "return ok, e, runs.n\n");
    bw_sandbox *sb = new_sandbox(NULL);
    lua_State *L = bw_sandbox_state(sb);
    CHECK_INT(bw_sandbox_load_file(sb, "rmain.lua", NULL), BW_SANDBOX_OK);
    CHECK_INT(bw_sandbox_call(sb, 0, 3), BW_SANDBOX_OK);
    CHECK(!lua_toboolean(L, -3));
    CHECK_STR(lua_tostring(L, -2), "require 'rmain': a require loop"); /* raised in pcall: no line, as any require */
    CHECK_INT(lua_tointeger(L, -1), 1);
    lua_settop(L, 0);
    /* failing runs clear the mark too: the third run ends in an error */
    write_text_file(mod_path("rfail.lua"), "local runs = require('runs')\nruns.n = runs.n + 1\n"
                                           "assert(not pcall(require, 'rfail'))\nerror({})\n");
    CHECK_INT(bw_sandbox_load_file(sb, "rfail.lua", NULL), BW_SANDBOX_OK);
    CHECK_INT(bw_sandbox_call(sb, 0, 0), BW_SANDBOX_ERROR);
    CHECK_STR(bw_sandbox_error(sb), "rfail.lua:4: (error object is a table value)");
    /* no mark left: require runs it as a module (its pcall'd require is a loop then too) */
    CHECK_INT(run_text(sb, "local a, b, n = require('rmain')\nreturn tostring(a) .. ' ' .. require('runs').n", 1),
              BW_SANDBOX_OK);
    CHECK_STR(lua_tostring(L, -1), "false 3");
    lua_settop(L, 0);
    bw_sandbox_destroy(sb);
}

/* print names the file that calls it (a module's print its module's
 * file), not the sandbox's desc name; a chunk load() names "@x" does not
 * pass for file x. */
static void print_names_the_calling_file(void)
{
    char lib[600];
    snprintf(lib, sizeof lib, "%s/lib", mod_dir);
    mkdir(lib, 0755);
    write_text_file(mod_path("lib/say.lua"), "return function(s) print(s) end\n");
    write_text_file(mod_path("printer.lua"), "local say = require('lib.say')\nprint('top')\nsay('from lib')\n"
                                             "load('print(1)', '@forged.lua')()\npcall(print, 'via pcall')\n");
    char cmd[1024], out[1024] = "";
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' run --sandbox printer.lua 2>&1", mod_dir, BLENDWERK);
    FILE *p = popen(cmd, "r");
    size_t n = p ? fread(out, 1, sizeof out - 1, p) : 0;
    out[n] = '\0';
    CHECK(p && pclose(p) == 0);
    CHECK_STR(out, "[printer.lua] top\n[lib/say.lua] from lib\n[printer.lua] 1\n[printer.lua] via pcall\n");
}

/* include() that fails (an error the script catches, a missing file)
 * leaves its file out of the list of includes in flight: the second try
 * gets the file's own error again (it said "an include loop (bad.lua ->
 * bad.lua)"), 40 failures do not use up the nesting depth (33 made a
 * real include "nest more than 32 files deep"), and an error value that
 * is not a string reaches the script as it was raised. */
static void a_failed_include_leaves_no_trace(void)
{
    write_text_file(mod_path("inc_bad.lua"), "\nerror('bad luck')\n");
    write_text_file(mod_path("inc_table.lua"), "error({ code = 3 })\n");
    write_text_file(mod_path("inc_rig.lua"), "return blendwerk.rig { joints = { { name = 'root' } } }\n");
    write_text_file(mod_path("inc_main.lua"),
                    "local ok1, e1 = pcall(include, 'inc_bad.lua')\n"
                    "local ok2, e2 = pcall(include, 'inc_bad.lua')\n"
                    "assert(not ok1 and not ok2 and e1 == 'inc_bad.lua:2: bad luck' and e2 == e1, e2)\n"
                    "for i = 1, 40 do assert(not pcall(include, 'inc_bad.lua')) end\n"
                    "for i = 1, 40 do assert(not pcall(include, 'inc_missing.lua')) end\n"
                    "local ok3, e3 = pcall(include, 'inc_missing.lua')\n"
                    "assert(e3:find('cannot open inc_missing.lua', 1, true), e3)\n"
                    "local ok4, e4 = pcall(include, 'inc_table.lua')\n"
                    "assert(not ok4 and type(e4) == 'table' and e4.code == 3)\n"
                    "local rig = include('inc_rig.lua')\n"
                    "local c = blendwerk.clip { name = 'c', joints = { { joint = 'root', keys = { { time = 0, t = { 0, 1, 0 } } } } } }\n"
                    "return { rig = rig, clips = { c } }\n");
    char err[1024] = "";
    bw_character *ch = NULL;
    CHECK(bw_character_load(mod_path("inc_main.lua"), NULL, &ch, err, sizeof err));
    CHECK_STR(err, "");
    CHECK(ch != NULL && ch->clip_count == 1 && bw_rig_joint_count(ch->rig) == 1);
    bw_character_destroy(ch);
    /* an uncaught failure still names its file and line */
    write_text_file(mod_path("inc_top.lua"), "local x = 1\ninclude('inc_bad.lua')\n");
    CHECK(!bw_character_load(mod_path("inc_top.lua"), NULL, &ch, err, sizeof err));
    CHECK_STR(err, "inc_bad.lua:2: bad luck");
}

/* A host's globals (bw_character_options.setup): the `host` table it
 * adds, with a list inside, and its own reference to it (the registry) to
 * read back after the run. */
#define HOST_KEY "test_sandbox.host"

static int add_host_table(lua_State *L)
{
    lua_createtable(L, 0, 2);
    lua_pushliteral(L, "knight");
    lua_setfield(L, -2, "name");
    lua_createtable(L, 2, 0);
    for (int i = 1; i <= 2; i++) {
        lua_pushinteger(L, i);
        lua_rawseti(L, -2, i);
    }
    lua_setfield(L, -2, "colors");
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, HOST_KEY);
    lua_setglobal(L, "host");
    return 0;
}

/* After the run: the host's own table as "name colors[1] colors[2]
 * #colors" (colors read through its view, which now stands in the host's
 * table: bw_sandbox_protect_globals). */
static void read_host_table(void *user, lua_State *L, int table, const bw_character *character)
{
    (void)table;
    (void)character;
    lua_getfield(L, LUA_REGISTRYINDEX, HOST_KEY);
    lua_getfield(L, -1, "name");
    lua_getfield(L, -2, "colors");
    lua_geti(L, -1, 1);
    lua_geti(L, -2, 2);
    lua_len(L, -3);
    snprintf((char *)user, 64, "%s %d %d %d", lua_tostring(L, -5), (int)lua_tointeger(L, -3), (int)lua_tointeger(L, -2),
             (int)lua_tointeger(L, -1));
    lua_pop(L, 6);
}

/* The tables a host adds to the base are read-only to the scripts, as the
 * libraries are: every file of a load has globals of its own, but the
 * base is one for all of them, so before, `host.name = 'rogue'` (or a
 * write into host.colors) in one file went through, an include run after
 * it saw "rogue", and the host read the script's values back from its own
 * table. Now each write raises the libraries' error at its line, reads,
 * ipairs and # see through, and the host's table is as it made it. */
static void a_hosts_tables_are_read_only(void)
{
    static const struct {
        const char *file, *text, *want;
    } bad[] = {
        {"host_name.lua", "local x = host.name\nhost.name = 'rogue'\n", "host_name.lua:2: the library 'host' is read-only"},
        {"host_list.lua", "\n\nhost.colors[1] = 9\n", "host_list.lua:3: the library 'host' is read-only"},
        {"host_raw.lua", "rawset(host.colors, 3, 9)\n", "host_raw.lua:1: rawset: the sandbox's libraries are read-only"},
    };
    char seen[64] = "", err[1024] = "";
    bw_character_options opt = {.setup = add_host_table, .read = read_host_table, .user = seen};
    bw_character *ch = NULL;
    for (int i = 0; i < 3; i++) {
        write_text_file(mod_path(bad[i].file), bad[i].text);
        CHECK(!bw_character_load(mod_path(bad[i].file), &opt, &ch, err, sizeof err));
        CHECK_STR(err, bad[i].want);
    }
    write_text_file(mod_path("host_seen.lua"),
                    "local n = 0\nfor i, v in ipairs(host.colors) do n = n + v end\n"
                    "return host.name .. ' ' .. n .. ' ' .. #host.colors .. ' ' .. table.concat(host.colors, ',')\n");
    write_text_file(mod_path("host_main.lua"),
                    "local ok, e = pcall(function() host.name = 'rogue' end)\n"
                    "assert(not ok and e == \"host_main.lua:1: the library 'host' is read-only\", e)\n"
                    "ok, e = pcall(function() host.colors[1] = 9 end)\n"
                    "assert(not ok and e == \"host_main.lua:3: the library 'host' is read-only\", e)\n"
                    "host = { name = 'mine' }\n" /* the file's own global */
                    "assert(host.name == 'mine')\n"
                    "local seen = include('host_seen.lua')\n"
                    "assert(seen == 'knight 3 2 1,2', seen)\n"
                    "local rig = blendwerk.rig { joints = { { name = 'root' } } }\n"
                    "local c = blendwerk.clip { name = 'c', joints = { { joint = 'root', keys = { { time = 0, t = { 0, 1, 0 } } } } } }\n"
                    "return { rig = rig, clips = { c } }\n");
    err[0] = '\0';
    CHECK(bw_character_load(mod_path("host_main.lua"), &opt, &ch, err, sizeof err));
    CHECK_STR(err, "");
    CHECK_STR(seen, "knight 1 2 2"); /* the host's table as it made it */
    bw_character_destroy(ch);
}

/* A host table nested `user` levels deep, as a global `deep`. */
static int add_deep_table(lua_State *L)
{
    int levels = *(const int *)lua_touserdata(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setglobal(L, "deep");
    for (int i = 1; i < levels; i++) { /* one table on the stack at a time */
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, -3, "next");
        lua_remove(L, -2);
    }
    lua_pop(L, 1);
    return 0;
}

/* The read-only walk over a host's tables is one C frame per level: a
 * host table nested 200 deep is made read-only all the way down, one of
 * 201 or 100,000 levels is refused with a message and the process goes on
 * (before, the walk recursed once per level, as deep as the memory cap
 * let the host nest its tables). */
static void a_host_table_nested_too_deep_is_refused(void)
{
    write_text_file(mod_path("deep_main.lua"),
                    "local t, n = deep, 1\n"
                    "while t.next do t, n = t.next, n + 1 end\n"
                    "assert(n == 200, n)\n"
                    "assert(not pcall(function() t.x = 1 end))\n"
                    "local rig = blendwerk.rig { joints = { { name = 'root' } } }\n"
                    "local c = blendwerk.clip { name = 'c', joints = { { joint = 'root', keys = { { time = 0, t = { 0, 1, 0 } } } } } }\n"
                    "return { rig = rig, clips = { c } }\n");
    int levels = BW_SANDBOX_MAX_TABLE_DEPTH;
    char err[1024] = "";
    bw_character_options opt = {.setup = add_deep_table, .user = &levels};
    bw_character *ch = NULL;
    CHECK(bw_character_load(mod_path("deep_main.lua"), &opt, &ch, err, sizeof err));
    CHECK_STR(err, "");
    bw_character_destroy(ch);
    ch = NULL;
    levels = 100000;
    CHECK(!bw_character_load(mod_path("deep_main.lua"), &opt, &ch, err, sizeof err));
    CHECK(ch == NULL);
    CHECK_CONTAINS(err, "the table 'deep' nests more than 200 tables deep");
    levels = BW_SANDBOX_MAX_TABLE_DEPTH + 1; /* the bound itself: one level past it is refused */
    err[0] = '\0';
    CHECK(!bw_character_load(mod_path("deep_main.lua"), &opt, &ch, err, sizeof err));
    CHECK(ch == NULL);
    CHECK_CONTAINS(err, "the table 'deep' nests more than 200 tables deep");
}

/* What a character load told its logger: the messages, one a line. */
typedef struct told {
    char text[4096];
    int count, other_levels;
} told;

static void tell(void *user, bw_log_level level, const char *message)
{
    told *t = (told *)user;
    size_t used = strlen(t->text);
    snprintf(t->text + used, sizeof t->text - used, "%s\n", message);
    t->count++;
    t->other_levels += level != BW_LOG_WARNING;
}

/* Load the mod's character file `name` with its warnings told into *t
 * (cleared first); false and the message in err when it fails. */
static bool load_telling(const char *name, told *t, bw_character **ch, char *err, size_t err_size)
{
    memset(t, 0, sizeof *t);
    bw_character_options opt = {.logger = {tell, t}};
    err[0] = '\0';
    *ch = NULL;
    return bw_character_load(mod_path(name), &opt, ch, err, err_size);
}

/* The warnings of the rig and clips a character file returns reach the
 * host's logger once each, in order (the rig's, then the clips' by the
 * character's sorted names: idle has none, walk one), after the
 * "file:line: " of the call that made them (inc_warn_rig.lua names
 * itself: the rig is made there); a rig and a clip the script made but
 * did not return are not told. spine's rest {0,0,0,2} has length 2;
 * walk's key 0 {0,0,0,3} length 3, key 1 is unit. A load that fails tells
 * nothing; no logger is fine. An asset's warnings come once. */
static void a_characters_warnings_reach_the_host(void)
{
    write_text_file(mod_path("inc_warn_rig.lua"),
                    "return blendwerk.rig { joints = { { name = 'root' },\n"
                    "  { name = 'spine', parent = 'root', r = { 0, 0, 0, 2 } } } }\n");
    static const char body[] =
        "local bw = blendwerk\n"
        "local rig = include('inc_warn_rig.lua')\n"
        "local spare = bw.rig { joints = { { name = 'x', r = { 0, 0, 2, 0 } } } }\n"
        "local walk = bw.clip { name = 'walk', joints = { { joint = 'spine', keys = {\n"
        "  { time = 0, r = { 0, 0, 0, 3 } }, { time = 1, r = { 0, 0, 0, 1 } } } } } }\n"
        "local idle = bw.clip { name = 'idle', joints = { { joint = 'root', keys = { { time = 0, t = { 0, 0, 0 } } } } } }\n"
        "local unused = bw.clip { name = 'unused', joints = { { joint = 'root', keys = { { time = 0, r = { 2, 0, 0, 0 } } } } } }\n";
    char text[2048];
    snprintf(text, sizeof text, "%sreturn { rig = rig, clips = { walk = walk, idle = idle } }\n", body);
    write_text_file(mod_path("warn_char.lua"), text);
    told t;
    char err[1024];
    bw_character *ch;
    CHECK(load_telling("warn_char.lua", &t, &ch, err, sizeof err));
    CHECK_STR(err, "");
    CHECK_INT(t.count, 2);
    CHECK_INT(t.other_levels, 0);
    CHECK_STR(t.text, "inc_warn_rig.lua:1: rig: joint 'spine' (index 1): rest rotation had length 2; normalized\n"
                      "warn_char.lua:4: clip \"walk\": track 0 (joint \"spine\" rotation): 1 of 2 keys were not unit "
                      "length (first: key 0, length 3); normalized\n");
    bw_character_destroy(ch);
    ch = NULL;
    CHECK(bw_character_load(mod_path("warn_char.lua"), NULL, &ch, err, sizeof err)); /* no logger */
    bw_character_destroy(ch);
    ch = NULL;
    /* the same objects, but the returned table is refused: nothing told */
    snprintf(text, sizeof text, "%sreturn { rig = rig, clips = { walk = walk, idle = idle }, extra = 1 }\n", body);
    write_text_file(mod_path("warn_bad.lua"), text);
    CHECK(!load_telling("warn_bad.lua", &t, &ch, err, sizeof err));
    CHECK_CONTAINS(err, "unknown field 'extra'");
    CHECK_INT(t.count, 0);
    CHECK_STR(t.text, "");

    /* a rig and clips of a blendwerk.load asset bring the asset's loader
     * warnings, once however many of its objects the character returns:
     * a BVH whose header says 3 frames where 2 follow (line 8) */
    write_text_file(mod_path("warn_short.bvh"), "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 1 Yrotation\n}\n"
                                                "MOTION\nFrames: 3\nFrame Time: 0.5\n0\n90\n");
    write_text_file(mod_path("warn_asset.lua"),
                    "local a = assert(blendwerk.load('warn_short.bvh'))\n"
                    "local twin = blendwerk.clip { name = 'twin', joints = { { joint = 'Hips', keys = { { time = 0, t = { 0, 0, 0 } } } } } }\n"
                    "return { rig = a:rig(), clips = { a:clips()[1], twin } }\n");
    CHECK(load_telling("warn_asset.lua", &t, &ch, err, sizeof err));
    CHECK_STR(err, "");
    CHECK_INT(t.count, 1);
    CHECK_STR(t.text, "warn_short.bvh:8: the header says Frames: 3 but 2 frames follow; using 2\n");
    bw_character_destroy(ch);
}

int main(void)
{
    snprintf(parent_dir, sizeof parent_dir, "/tmp/bw_test_sandbox_XXXXXX");
    if (!mkdtemp(parent_dir)) {
        fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    snprintf(mod_dir, sizeof mod_dir, "%s/mod", parent_dir);
    mkdir(mod_dir, 0755);
    char path[512], target[512];
    snprintf(path, sizeof path, "%s/secret.lua", parent_dir);
    write_text_file(path, "return 'the secret'\n");
    snprintf(path, sizeof path, "%s/evil.lua", mod_dir);
    snprintf(target, sizeof target, "%s/secret.lua", parent_dir);
    if (symlink(target, path) != 0) fprintf(stderr, "symlink: %s\n", strerror(errno));
    snprintf(path, sizeof path, "%s/outside", mod_dir);
    if (symlink(parent_dir, path) != 0) fprintf(stderr, "symlink: %s\n", strerror(errno));
    write_text_file(mod_path("own.lua"), "return { answer = 42 }\n");
    write_text_file(mod_path("box.lua"), "return {}\n"); /* a module's table: what chunks share */
    write_text_file(mod_path("raises_table.lua"), "error({ code = 7 })\n");
    write_text_file(mod_path("raises_text.lua"), "error('no luck', 0)\n");
    write_text_file(mod_path("harmless.lua"), harmless);
    write_text_file(mod_path("binary.lua"), "\033Lua\124\0\031\223\r\n\032\n");
    char deep[700] = "return ";
    for (int i = 0; i < 300; i++) strcat(deep, "(");
    strcat(deep, "1");
    for (int i = 0; i < 300; i++) strcat(deep, ")");
    write_text_file(mod_path("deep.lua"), deep);
    if (mkfifo(mod_path("pipe.lua"), 0600) != 0) fprintf(stderr, "mkfifo: %s\n", strerror(errno));
    for (int i = 0; i < CASE_COUNT; i++) write_text_file(mod_path(case_file(&cases[i])), cases[i].script);

    /* the reference: CPU seconds a plain loop takes to spend BUDGET */
    bw_sandbox_limits lim = {.instructions = BUDGET, .seconds = 60};
    bw_sandbox *ref = new_sandbox(&lim);
    reference_cpu = 1e9;
    for (int k = 0; k < 3; k++) {
        double c0 = cpu_now();
        CHECK_INT(run_text(ref, "while true do end", 0), BW_SANDBOX_BUDGET);
        double t = cpu_now() - c0;
        if (t < reference_cpu) reference_cpu = t;
    }
    bw_sandbox_destroy(ref);
    printf("reference: %.2f ms for %lld instructions\n", reference_cpu * 1e3, BUDGET);

    bystander = new_sandbox(NULL);
    write_text_file(mod_path("counted.lua"), "return { n = 0 }\n"); /* the count lives in a module: chunks' globals are their own */
    CHECK_INT(run_text(bystander, "require('counted')", 0), BW_SANDBOX_OK);

    RUN(limits_resolve_to_the_documented_defaults);
    RUN(cases_stop_through_the_c_api);
    RUN(cases_stop_through_run_sandbox);
    RUN(plot_blend_specs_are_sandboxed);
    RUN(cases_stop_through_demo_loading);
    RUN(cases_stop_through_demo_hot_reload);
    RUN(string_results_are_capped_by_max_string);
    RUN(string_chunks_are_named_in_their_refusals);
    RUN(the_memory_cap_moves_between_calls);
    RUN(a_caught_stop_stays_spent);
    RUN(predicates_fail_as_false_and_report_once);
    RUN(the_pushed_form_counts_and_reports_as_the_call);
    RUN(a_reporter_takes_the_reports_while_set);
    RUN(cases_stop_through_a_graph_predicate);
    RUN(an_animator_map_is_a_callback);
    RUN(a_callback_in_a_coroutine_reports_like_the_sandbox);
    RUN(host_granted_files_and_watches);
    RUN(script_text_reaches_stderr_escaped);
    RUN(a_predicate_updating_its_cursor_is_named_a_predicate);
    RUN(a_chunks_globals_are_its_own);
    RUN(requiring_the_running_file_is_a_loop);
    RUN(print_names_the_calling_file);
    RUN(a_failed_include_leaves_no_trace);
    RUN(a_hosts_tables_are_read_only);
    RUN(a_host_table_nested_too_deep_is_refused);
    RUN(a_characters_warnings_reach_the_host);
    bw_sandbox_destroy(bystander);

    remove_tree(parent_dir);
    return check_summary();
}
