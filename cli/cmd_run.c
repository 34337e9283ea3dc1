/* cmd_run.c - `blendwerk run SCRIPT.lua [ARGS...]`: run a Lua script with
 * the blendwerk module preloaded.
 *
 * `blendwerk run --sandbox SCRIPT.lua [--budget N] [--memory-mb N]
 * [--time-limit S] [ARGS...]` runs it as untrusted mod code instead, in
 * the sandbox every script of a mod gets (bindings/sandbox.h,
 * docs/sandbox.md): the mod's folder is the script's folder, ARGS are the
 * chunk's `...`, and an error or a stop prints "file:line: message" and
 * exits with 1. Anyone can check a mod this way.
 *
 * Without --sandbox it runs the way the stock lua5.4 interpreter runs
 * a script (TRUSTED: full standard libraries):
 * - the standard libraries are open (this is a tool for the developer's
 *   own scripts, not the sandbox that graph and control scripts get);
 * - `require "blendwerk"` works (package.preload) and the global
 *   `blendwerk` already holds the module;
 * - `arg` is lua5.4's: arg[0] the script, arg[1..n] the arguments, and the
 *   command before them at negative indices (arg[-2] = "blendwerk",
 *   arg[-1] = "run"); the arguments are also the chunk's `...`;
 * - SCRIPT "-" reads standard input;
 * - an error prints "file:line: message" and a traceback on stderr and the
 *   exit status is 1 (a script that does not load, a missing file or a
 *   syntax error, prints its message alone: there is no stack to show); a
 *   script that returns normally exits with 0, and os.exit works as usual.
 *
 * The sandbox's options may come before or after --sandbox and the script
 * (`run --budget N --sandbox x.lua`); a limit without --sandbox is a usage
 * error (a trusted script has no limits), not a script named --budget. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "cli_args.h"
#include "cli_json.h"
#include "commands.h"
#include "lua_blendwerk.h"
#include "sandbox.h"

/* Message handler: turn the error into a string and add a traceback. */
static int message_handler(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    luaL_traceback(L, L, msg, 1);
    return 1;
}

/* lua5.4's print (each argument through luaL_tolstring, tabs between, a
 * newline, a flush), flushing through bw_cli_flush so that output lost to
 * a full disk is reported with its reason at exit (main.c). */
static int print_flushed(lua_State *L)
{
    int n = lua_gettop(L);
    for (int i = 1; i <= n; i++) {
        size_t len = 0;
        const char *s = luaL_tolstring(L, i, &len);
        if (i > 1) fputc('\t', stdout);
        fwrite(s, 1, len, stdout);
        lua_pop(L, 1);
    }
    fputc('\n', stdout);
    bw_cli_flush();
    return 0;
}

/* Runs in protected mode: everything that can raise (out of memory while
 * setting up, running) ends up in one report. A script that does not load
 * is no error here: its message is the one result (a traceback would show
 * only this C function). */
static int run_main(lua_State *L)
{
    int argc = (int)lua_tointeger(L, 1);
    char **argv = (char **)lua_touserdata(L, 2);
    const char *script = argv[1];

    luaL_openlibs(L);
    lua_pushcfunction(L, print_flushed);
    lua_setglobal(L, "print");
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
    lua_pushcfunction(L, luaopen_blendwerk);
    lua_setfield(L, -2, "blendwerk");
    lua_pop(L, 1);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "blendwerk");
    lua_call(L, 1, 1);
    lua_setglobal(L, "blendwerk");

    /* arg, as lua5.4 builds it */
    lua_createtable(L, argc - 1, 2);
    lua_pushliteral(L, "blendwerk");
    lua_rawseti(L, -2, -2);
    lua_pushstring(L, argv[0]);
    lua_rawseti(L, -2, -1);
    for (int i = 1; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i - 1);
    }
    lua_setglobal(L, "arg");

    int status = luaL_loadfile(L, strcmp(script, "-") == 0 ? NULL : script);
    if (status != LUA_OK) return 1; /* "file:line: message" already */
    luaL_checkstack(L, argc, "too many arguments to the script");
    for (int i = 2; i < argc; i++) lua_pushstring(L, argv[i]);
    lua_call(L, argc - 2, 0);
    return 0; /* nil: ran */
}

#define RUN_USAGE                                                                                           \
    "usage: blendwerk run SCRIPT.lua [ARGS...]\n"                                                          \
    "       blendwerk run --sandbox SCRIPT.lua [--budget N] [--memory-mb N] [--time-limit S] [ARGS...]\n"

/* A positive number option's value, or -1. */
static double option_number(const char *v)
{
    char *end = NULL;
    double x = v ? strtod(v, &end) : -1.0;
    return v && end != v && *end == '\0' && x > 0 && x < 1e15 ? x : -1.0;
}

/* The limit an option sets, or false after printing why it is refused. A
 * zero field means "the default" to the sandbox, so no accepted value may
 * come out as 0: --budget takes whole instructions only (0.5 is refused,
 * not run with the default 50 million), and a --memory-mb of less than a
 * byte is one byte (the state then cannot be made: exit 1, as for any cap
 * too small), never the default 64 MiB. */
static bool set_limit(bw_sandbox_limits *lim, const char *opt, const char *value)
{
    double v = option_number(value);
    bool memory = !strcmp(opt, "--memory-mb"), budget = !strcmp(opt, "--budget");
    if (memory && v > 1048576.0) v = -1.0; /* more than a TiB: a typo */
    if (budget && v != floor(v)) v = -1.0;
    if (v < 0) {
        /* the bound too: "1e13" is positive, and was refused as if it were not */
        fprintf(stderr, "blendwerk run: %s needs a positive %s%s%s%s%s\n" RUN_USAGE, opt,
                budget ? "whole number" : "number", memory ? " of at most 1048576 (1 TiB)" : " below 1e15",
                value ? ", not '" : "", value ? value : "", value ? "'" : "");
        return false;
    }
    if (budget) lim->instructions = (long long)v;
    else if (memory) lim->memory = (size_t)ceil(v * 1048576.0);
    else lim->seconds = v;
    return true;
}

static bool is_limit(const char *a)
{
    return !strcmp(a, "--budget") || !strcmp(a, "--memory-mb") || !strcmp(a, "--time-limit");
}

/* argv[1..] holds --sandbox somewhere before the script, the limits
 * before or after it. */
static int run_sandboxed(int argc, char **argv)
{
    const char *script = NULL;
    bw_sandbox_limits lim = {0};
    const char *given[3] = {NULL, NULL, NULL}; /* --budget, --memory-mb, --time-limit */
    int first_arg = argc;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!script && !strcmp(a, "--sandbox")) continue;
        if (is_limit(a)) {
            const char **seen = &given[a[2] == 'b' ? 0 : a[2] == 'm' ? 1 : 2];
            if (i + 1 < argc && !bw_cli_option_once("run", a, seen, argv[i + 1])) {
                fprintf(stderr, RUN_USAGE);
                return 2;
            }
            if (!set_limit(&lim, a, i + 1 < argc ? argv[i + 1] : NULL)) return 2;
            i++;
        } else if (!script) {
            script = a;
        } else {
            first_arg = i;
            break;
        }
    }
    if (!script || !strcmp(script, "-")) {
        fprintf(stderr, "blendwerk run --sandbox: a script file is needed (standard input is not a mod)\n" RUN_USAGE);
        return 2;
    }
    char dir[BW_SANDBOX_PATH_MAX];
    const char *name = bw_sandbox_split_path(script, dir, sizeof dir);
    if (!name) {
        fprintf(stderr, "blendwerk run: %s: the path is too long\n", script);
        return 2;
    }
    char err[BW_SANDBOX_ERROR_MAX];
    bw_sandbox_desc desc = {.limits = lim, .dir = dir, .name = name};
    bw_sandbox *sb = bw_sandbox_create(&desc, err, sizeof err);
    if (!sb) {
        fprintf(stderr, "blendwerk run: %s: %s\n", name, err);
        return 1;
    }
    bool ok = bw_sandbox_load_file(sb, name, script) == BW_SANDBOX_OK;
    if (ok) {
        lua_State *L = bw_sandbox_state(sb);
        int nargs = 0;
        ok = lua_checkstack(L, argc);
        for (int i = first_arg; ok && i < argc; i++, nargs++) lua_pushstring(L, argv[i]);
        ok = ok && bw_sandbox_call(sb, nargs, 0) == BW_SANDBOX_OK;
    }
    if (!ok) bw_cli_error_line(NULL, bw_sandbox_error(sb)); /* the mod's own text: control bytes as \xNN */
    bw_sandbox_destroy(sb);
    return ok ? 0 : 1;
}

int bw_cmd_run(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf(RUN_USAGE
               "runs SCRIPT.lua with the blendwerk module loaded (global `blendwerk`, require \"blendwerk\");\n"
               "ARGS become the script's `arg` table and its `...`, as with lua5.4.\n"
               "Without --sandbox the script is TRUSTED: it gets the full standard libraries (io, os, debug,\n"
               "package) and no limits; use it for your own tools only.\n"
               "--sandbox runs it as untrusted mod code (docs/sandbox.md): no io/os/debug/package, files only\n"
               "inside the script's folder, ARGS as its `...`, and per-run limits:\n"
               "  --budget N        VM instructions (default %lld)\n"
               "  --memory-mb N     memory cap in MiB (default %d)\n"
               "  --time-limit S    wall-clock seconds (default %g)\n",
               BW_SANDBOX_DEFAULT_INSTRUCTIONS, (int)(BW_SANDBOX_DEFAULT_MEMORY >> 20), BW_SANDBOX_DEFAULT_SECONDS);
        return 0;
    }
    /* --sandbox among the options before the script: the limits may come first */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sandbox")) return run_sandboxed(argc, argv);
        if (!is_limit(argv[i])) break;
        /* its value; a missing one ("--budget --sandbox x.lua") the sandboxed run names */
        if (i + 1 < argc && strcmp(argv[i + 1], "--sandbox") != 0) i++;
    }
    if (argc >= 2 && is_limit(argv[1])) {
        fprintf(stderr, "blendwerk run: %s goes with --sandbox (a trusted script runs without limits)\n" RUN_USAGE,
                argv[1]);
        return 2;
    }
    if (argc < 2) {
        fprintf(stderr, RUN_USAGE);
        return 2;
    }
    lua_State *L = luaL_newstate();
    if (!L) {
        fprintf(stderr, "blendwerk run: cannot create a Lua state (out of memory)\n");
        return 1;
    }
    lua_pushcfunction(L, message_handler);
    lua_pushcfunction(L, run_main);
    lua_pushinteger(L, argc);
    lua_pushlightuserdata(L, argv);
    int status = lua_pcall(L, 2, 1, 1);
    /* an error (message and traceback), or a script that did not load (its message) */
    bool failed = status != LUA_OK || !lua_isnil(L, -1);
    if (failed) {
        const char *msg = lua_tostring(L, -1);
        fprintf(stderr, "%s\n", msg ? msg : "(error object is not a string)");
        fflush(stderr);
    }
    lua_close(L);
    return failed ? 1 : 0;
}
