/* test_lua_rootmotion.c - the Lua root-motion and blend-tree bindings from
 * C: what bw_lua_open_rootmotion adds to the module table, the Lua tests
 * tests/lua/test_rootmotion.lua and test_blendtree.lua run in a state where
 * this test opens the root-motion functions itself (so they run whether or
 * not luaopen_blendwerk already calls bw_lua_open_rootmotion), and
 * allocation failure at every point of a script that builds and uses a
 * BlendTree and a RootMotion (under ASan: no leak, no double free, no
 * half-owned object; the script finishes or fails with Lua's memory error,
 * never with anything else). */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_alloc_counter.h"
#include "test_lua_sweep.h"
#include "lua_blendwerk.h"

/* luaopen_blendwerk plus the root-motion functions; leaves the module. */
static int open_module(lua_State *L)
{
    luaopen_blendwerk(L);
    bw_lua_open_rootmotion(L);
    return 1;
}

/* Open the standard libraries and the module as `blendwerk` (global and
 * require). Runs protected. */
static int setup(lua_State *L)
{
    luaL_openlibs(L);
    luaL_requiref(L, "blendwerk", open_module, 1);
    lua_pop(L, 1);
    return 0;
}

static void should_add_functions_to_the_module_table(void)
{
    lua_State *L = luaL_newstate();
    CHECK(L != NULL);
    if (!L) return;
    luaL_openlibs(L);
    luaopen_blendwerk(L);
    int top = lua_gettop(L);
    bw_lua_open_rootmotion(L);
    CHECK_INT(lua_gettop(L), top); /* the module table stays, nothing else */
    const char *names[] = {"root_motion", "blend_tree", "phase_advance", "leaf_time", "cycle_duration"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        lua_getfield(L, -1, names[i]);
        if (!lua_iscfunction(L, -1)) fprintf(stderr, "missing blendwerk.%s\n", names[i]);
        CHECK(lua_iscfunction(L, -1));
        lua_pop(L, 1);
    }
    const char *types[] = {"blendwerk.RootMotion", "blendwerk.BlendTree"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        CHECK_INT(luaL_getmetatable(L, types[i]), LUA_TTABLE);
        lua_getfield(L, -1, "__name");
        CHECK_STR(lua_tostring(L, -1), types[i]);
        lua_getfield(L, -2, "__gc");
        lua_getfield(L, -3, "__close");
        CHECK(lua_tocfunction(L, -1) != NULL && lua_tocfunction(L, -1) == lua_tocfunction(L, -2));
        lua_pop(L, 4);
    }
    /* Opening twice (once by luaopen_blendwerk, once by a host) is harmless. */
    bw_lua_open_rootmotion(L);
    CHECK_INT(lua_gettop(L), top);
    lua_close(L);
}

/* os.exit for a script run inside this test process: the shared harness's
 * finish() ends with os.exit(0 or 1, true), which must not end the test
 * executable. Success returns (finish() is a script's last statement); a
 * failure becomes an error, which the caller sees as a failed dofile. */
static int exit_as_error(lua_State *L)
{
    int ok = lua_isboolean(L, 1) ? lua_toboolean(L, 1) : luaL_optinteger(L, 1, 0) == 0;
    if (!ok) return luaL_error(L, "the script reported failures (os.exit(%s))", luaL_tolstring(L, 1, NULL));
    return 0;
}

/* What `blendwerk run` gives a script and the harness relies on: arg[0],
 * the script's path (harness.lua is found beside it), and an os.exit that
 * returns here. Runs protected; the path is argument 1. */
static int prepare_script(lua_State *L)
{
    lua_getglobal(L, "os");
    lua_pushcfunction(L, exit_as_error);
    lua_setfield(L, -2, "exit");
    lua_pop(L, 1);
    lua_createtable(L, 0, 1);
    lua_pushvalue(L, 1);
    lua_rawseti(L, -2, 0);
    lua_setglobal(L, "arg");
    return 0;
}

static void run_lua_file(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/lua/%s", BW_SOURCE_DIR, name);
    lua_State *L = luaL_newstate();
    CHECK(L != NULL);
    if (!L) return;
    lua_pushcfunction(L, setup);
    int status = lua_pcall(L, 0, 0, 0);
    if (status == LUA_OK) {
        lua_pushcfunction(L, prepare_script);
        lua_pushstring(L, path);
        status = lua_pcall(L, 1, 0, 0);
    }
    if (status == LUA_OK) status = luaL_dofile(L, path);
    if (status != LUA_OK) fprintf(stderr, "%s: %s\n", name, lua_tostring(L, -1));
    CHECK_INT(status, LUA_OK);
    lua_close(L);
}

static void lua_root_motion_tests_should_pass(void) { run_lua_file("test_rootmotion.lua"); }
static void lua_blend_tree_tests_should_pass(void) { run_lua_file("test_blendtree.lua"); }

/* ---- allocation failure ---- */

/* Builds and uses every object these bindings make. Returns the 2 m/s
 * walk's travel over 0.8 -> 3.8 s (6 m) plus the blend's cycle (0.935 s)
 * plus the number of leaves (2), so a completed run is checked by value. */
static const char *const script =
    "local bw = require('blendwerk')\n"
    "local rig = assert(bw.rig{ joints = { {name='root'}, {name='spine', parent='root'} } })\n"
    "local walk = assert(bw.clip{ name='walk', loop=true, joints = { {joint='root', parent='',\n"
    "  keys = { {time=0, t={0,0,0}}, {time=1, t={0,0,2}} }} } })\n"
    "local tree = assert(bw.blend_tree{ kind='1d', param='speed', children = {\n"
    "  {at=1.5, clip=walk, length=0.71}, {at=4, kind='2d', params={'x','y'}, children = {\n"
    "    {at={0,0}, clip='run', length=1.16}, {at={1,0}, clip='strafe', length=1} }} } })\n"
    "assert(bw.blend_tree{ kind='polar' } == nil)\n"
    "local p, leaves, cycle = tree:step(0, 0.1, { speed=2.75, x=0, y=0 })\n"
    "local rm = assert(bw.root_motion(rig, { root='root', axes={'x','z','yaw'} }))\n"
    "assert(bw.root_motion(rig, { root='nope' }) == nil)\n"
    "local d = assert(rm:extract{ {clip=walk, from=0.8, delta=3.0} })\n"
    "local set = assert(bw.track_set(rig))\n"
    "assert(set:play(walk, {speed=1.5}))\n"
    "set:update(0.5)\n"
    "local d2 = assert(rm:extract_tracks(set))\n"
    "local x = assert(rm:remove{ t={1,0,2} })\n"
    "assert(rm:remove(set:pose()))\n"
    "rm:close(); tree:close(); rig:close()\n"
    "return d.z + cycle + #leaves\n";

static int run_script(lua_State *L)
{
    setup(L);
    if (luaL_loadstring(L, script) != LUA_OK) return lua_error(L);
    lua_call(L, 0, 1);
    return 1;
}

/* 6 m (see the Lua test's derivation) + 0.935 s + 2 leaves */
static void expected_sum(lua_State *L) { CHECK_NEAR(lua_tonumber(L, -1), 6.0 + 0.935 + 2.0, 1e-4); }

static void should_survive_allocation_failure_everywhere(void)
{
    lua_allocation_failure_sweep(run_script, expected_sum);
}

int main(void)
{
    RUN(should_add_functions_to_the_module_table);
    RUN(lua_root_motion_tests_should_pass);
    RUN(lua_blend_tree_tests_should_pass);
    RUN(should_survive_allocation_failure_everywhere);
    return check_summary();
}
