/* cmd_run.c - `blendwerk run SCRIPT.lua [ARGS...]`: run a Lua script with
 * the blendwerk module preloaded, the way the stock lua5.4 interpreter runs
 * one:
 * - the standard libraries are open (this is a tool for the developer's
 *   own scripts, not the sandbox that graph and control scripts get);
 * - `require "blendwerk"` works (package.preload) and the global
 *   `blendwerk` already holds the module;
 * - `arg` is lua5.4's: arg[0] the script, arg[1..n] the arguments, and the
 *   command before them at negative indices (arg[-2] = "blendwerk",
 *   arg[-1] = "run"); the arguments are also the chunk's `...`;
 * - SCRIPT "-" reads standard input;
 * - an error prints "file:line: message" and a traceback on stderr and the
 *   exit status is 1; a script that returns normally exits with 0, and
 *   os.exit works as usual. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "lua_blendwerk.h"

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

/* Runs in protected mode: everything that can raise (out of memory while
 * setting up, loading, running) ends up in one report. */
static int run_main(lua_State *L)
{
    int argc = (int)lua_tointeger(L, 1);
    char **argv = (char **)lua_touserdata(L, 2);
    const char *script = argv[1];

    luaL_openlibs(L);
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
    if (status != LUA_OK) return lua_error(L); /* "file:line: message" already */
    luaL_checkstack(L, argc, "too many arguments to the script");
    for (int i = 2; i < argc; i++) lua_pushstring(L, argv[i]);
    lua_call(L, argc - 2, 0);
    return 0;
}

int bw_cmd_run(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: blendwerk run SCRIPT.lua [ARGS...]\n"
               "runs SCRIPT.lua with the blendwerk module loaded (global `blendwerk`, require \"blendwerk\");\n"
               "ARGS become the script's `arg` table and its `...`, as with lua5.4\n");
        return 0;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: blendwerk run SCRIPT.lua [ARGS...]\n");
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
    int status = lua_pcall(L, 2, 0, 1);
    if (status != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        fprintf(stderr, "%s\n", msg ? msg : "(error object is not a string)");
        fflush(stderr);
    }
    lua_close(L);
    return status == LUA_OK ? 0 : 1;
}
