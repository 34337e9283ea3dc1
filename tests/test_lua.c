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

#include "blendwerk/animator.h"
#include "blendwerk/procedural.h"
#include "check.h"
#include "lua_blendwerk.h"
#include "test_alloc_counter.h"
#include "test_lua_sweep.h"

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

/* blendwerk.aim_defaults() gives the C definition (BW_ANIMATOR_HEAD_LIMITS)
 * bit for bit, and that definition is the documented 1.2, 0.6, 0.6, 0.4,
 * 0.2 (in float). */
static void aim_defaults_are_the_c_head_limits(void)
{
    const bw_aim_limits c = BW_ANIMATOR_HEAD_LIMITS;
    const float hand[5] = {1.2f, 0.6f, 0.6f, 0.4f, 0.2f};
    const float from_c[5] = {c.yaw, c.pitch, c.eye_yaw, c.eye_pitch, c.behind};
    const char *keys[5] = {"yaw", "pitch", "eye_yaw", "eye_pitch", "behind"};
    lua_State *L = luaL_newstate();
    CHECK(L != NULL);
    if (!L) return;
    luaL_requiref(L, "blendwerk", luaopen_blendwerk, 0);
    CHECK_INT(lua_getfield(L, -1, "aim_defaults"), LUA_TFUNCTION);
    CHECK_INT(lua_pcall(L, 0, 1, 0), LUA_OK);
    CHECK(lua_istable(L, -1));
    for (int k = 0; k < 5 && lua_istable(L, -1); k++) {
        CHECK_INT(lua_getfield(L, -1, keys[k]), LUA_TNUMBER);
        double got = (double)lua_tonumber(L, -1);
        if (got != (double)from_c[k])
            fprintf(stderr, "aim_defaults().%s = %.9g, C %.9g\n", keys[k], got, (double)from_c[k]);
        CHECK(got == (double)from_c[k]);
        CHECK(from_c[k] == hand[k]);
        lua_pop(L, 1);
    }
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

/* ---- memory over repeated asset loads ---- */

/* Load Fox.glb, sample each of its clips through the state's binding cache
 * and close the asset, `n` times. */
static const char *const reload_script =
    "local path, n = ...\n"
    "local bw = require('blendwerk')\n"
    "for _ = 1, n do\n"
    "  local asset = assert(bw.load(path))\n"
    "  local rig = asset:rig()\n"
    "  for i = 1, asset:clip_count() do asset:clip(i):sample(rig, 0.5) end\n"
    "  asset:close()\n"
    "  asset, rig = nil, nil\n"
    "  collectgarbage(); collectgarbage()\n"
    "end\n";

static long long live_bytes_after_loads(lua_State *L, alloc_counter *counter, const char *path, int n)
{
    CHECK_INT(luaL_loadstring(L, reload_script), LUA_OK);
    lua_pushstring(L, path);
    lua_pushinteger(L, n);
    if (lua_pcall(L, 2, 0, 0) != LUA_OK) {
        fprintf(stderr, "reload script: %s\n", lua_tostring(L, -1));
        CHECK(false);
        lua_pop(L, 1);
    }
    lua_gc(L, LUA_GCCOLLECT);
    return counter->live_bytes;
}

/* The core objects a script makes go through the state's allocator, so a
 * counting allocator sees every byte, the binding cache's included. Fox
 * has 24 joints and 3 clips: each load binds 3 clips (a binding of 24
 * joints × 3 channels is over 1 KiB), so 50 loads that kept their cached
 * bindings would hold more than 50 KiB; with the entries gone with each
 * asset the state holds the same after 10 loads as after 60, to within
 * Lua's own table growth (a few hundred bytes). */
static void reloading_an_asset_keeps_no_bindings_of_earlier_loads(void)
{
    const char *path = BW_ASSET_DIR "/Fox.glb";
    FILE *probe = fopen(path, "rb");
    if (!probe) {
        printf("(Fox.glb not found: skipping the reload memory case)\n");
        return;
    }
    fclose(probe);
    alloc_counter counter = ALLOC_COUNTER(-1);
    lua_State *L = lua_newstate(alloc_counter_fn, &counter);
    luaL_openlibs(L);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
    lua_pushcfunction(L, luaopen_blendwerk);
    lua_setfield(L, -2, "blendwerk");
    lua_pop(L, 1);
    long long warm = live_bytes_after_loads(L, &counter, path, 10);
    long long later = live_bytes_after_loads(L, &counter, path, 50);
    if (later - warm >= 4096) fprintf(stderr, "grew by %lld bytes over 50 loads\n", later - warm);
    CHECK(later - warm < 4096);
    lua_close(L);
    CHECK_INT(counter.live_blocks, 0);
}

int main(void)
{
    RUN(should_push_one_module_table);
    RUN(aim_defaults_are_the_c_head_limits);
    RUN(should_survive_allocation_failure_everywhere);
    RUN(reloading_an_asset_keeps_no_bindings_of_earlier_loads);
    return check_summary();
}
