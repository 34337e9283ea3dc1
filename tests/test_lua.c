/* test_lua.c - C-side tests of the Lua binding: what luaopen_blendwerk
 * leaves on the stack, and allocation failure at every point of a script
 * that touches every type (the Lua allocator starts failing after N
 * allocations, for every N until the script completes). Under ASan this
 * proves that no failure point leaks, double-frees or leaves a C object
 * half-owned; the script must either finish or fail with Lua's memory
 * error, never with anything else. */
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

static void should_push_one_module_table(void)
{
    lua_State *L = luaL_newstate();
    CHECK(L != NULL);
    if (!L) return;
    int top = lua_gettop(L);
    luaL_requiref(L, "blendwerk", luaopen_blendwerk, 0);
    CHECK_INT(lua_gettop(L), top + 1);
    CHECK(lua_istable(L, -1));
    const char *names[] = {"rig", "clip", "bind", "pose", "mix", "track_set", "load", "ease", "lerp_angle"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        lua_getfield(L, -1, names[i]);
        if (!lua_iscfunction(L, -1)) fprintf(stderr, "missing blendwerk.%s\n", names[i]);
        CHECK(lua_iscfunction(L, -1));
        lua_pop(L, 1);
    }
    /* every type's metatable is registered under its __name */
    const char *types[] = {"blendwerk.Rig",  "blendwerk.Clip",     "blendwerk.Binding",
                           "blendwerk.Pose", "blendwerk.TrackSet", "blendwerk.Asset"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        CHECK_INT(luaL_getmetatable(L, types[i]), LUA_TTABLE);
        lua_getfield(L, -1, "__name");
        CHECK_STR(lua_tostring(L, -1), types[i]);
        lua_getfield(L, -2, "__gc");
        lua_getfield(L, -3, "__close");
        CHECK(lua_tocfunction(L, -1) != NULL && lua_tocfunction(L, -1) == lua_tocfunction(L, -2));
        lua_pop(L, 4);
    }
    CHECK_INT(lua_gettop(L), top + 1);
    lua_close(L);
}

/* ---- allocation failure ---- */

/* Touches every type, callbacks included. */
static const char *const script =
    "local bw = require('blendwerk')\n"
    "local rig = assert(bw.rig{ joints = { {name='hips', t={0,1,0}}, {name='arm', parent='hips'} },\n"
    "                           curves = { {name='blink'} } })\n"
    "local clip = assert(bw.clip{ name='w', length=1, loop=true,\n"
    "  joints = { {joint='hips', keys={ {time=0, t={0,1,0}}, {time=1, t={1,1,0}, ease='cubic', dir='in_out'} }},\n"
    "             {joint='arm', parent='hips', keys={ {time=0, r={0,0,0,1}}, {time=0.5, r={0,0,1,0}} }} },\n"
    "  curves = { {name='blink', keys={ {time=0, value=0}, {time=1, value=1} }} },\n"
    "  markers = { {name='a', time=0.25}, {name='b', time=0.75} } })\n"
    "local bad, msg = bw.clip{ name='x', joints={ {joint='a', keys={ {time=0/0} }} } }\n"
    "assert(bad == nil and msg:find('NaN'))\n"
    "local b = assert(clip:bind(rig)); b:report()\n"
    "local p = clip:sample(rig, 0.5); p:get('hips'); p:local_to_model(); p:copy()\n"
    "local m = bw.mix({ {p, 0.5}, {rig:rest_pose(), 0.5, 1} })\n"
    "local set = assert(bw.track_set(rig, {capacity = 2}))\n"
    "local n = 0\n"
    "set:on('loop', function(h) n = n + 1 end)\n"
    "local h = assert(set:play(clip, { on_marker = function(name, t) n = n + 1 end }))\n"
    "for i = 1, 10 do set:update(0.125) end\n"
    "set:stop(h, 0.1); set:update(0.2)\n"
    "assert(bw.load('no/such/file.gltf') == nil)\n"
    "rig:close(); clip:close()\n"
    "return n\n";

/* Protected body: open libraries, preload the module, run the script. */
static int run_script(lua_State *L)
{
    luaL_openlibs(L);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
    lua_pushcfunction(L, luaopen_blendwerk);
    lua_setfield(L, -2, "blendwerk");
    lua_pop(L, 1);
    if (luaL_loadstring(L, script) != LUA_OK) return lua_error(L);
    lua_call(L, 0, 1);
    return 1;
}

/* The script's signal count, known by hand: markers a, b per pass over
 * 1.25 s (a at 0.25, b at 0.75, a at 1.25) = 3, plus one loop = 4. */
static void four_signals(lua_State *L) { CHECK_INT(lua_tointeger(L, -1), 4); }

static void should_survive_allocation_failure_everywhere(void)
{
    lua_allocation_failure_sweep(run_script, four_signals);
}

int main(void)
{
    RUN(should_push_one_module_table);
    RUN(should_survive_allocation_failure_everywhere);
    return check_summary();
}
