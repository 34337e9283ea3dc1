/* lua_blendspace.c - blend-space weights and phase helpers for Lua (SPEC §6).
 *
 * Pure weight functions:
 *   blendwerk.blend1d_weights(thresholds, x)           -> weights, rates
 *   blendwerk.blend2d_weights(points, x, y [, mode])   -> weights
 *   blendwerk.grid_weights(x_values, y_values, x, y)   -> weights
 *
 * thresholds / x_values / y_values are arrays of finite numbers; points is
 * an array of {x, y} pairs (or {x = .., y = ..} tables); mode is
 * "cartesian" (default) or "directional". Each returns an array of weights
 * in member order (row-major, x fastest, for the grid); blend1d_weights
 * also returns each member's locomotion rate multiplier (1 inside the
 * range; x / threshold for the end members outside it). The query numbers
 * follow the C rules: NaN or infinite counts as 0; a finite number beyond
 * float range clamps to ±FLT_MAX (1e39 is far past the end, not 0).
 * points holds at most BW_BLEND_MAX_MEMBERS (64) entries, the core's bound
 * on the O(n²) 2D modes; the other arrays at most BW_BLEND_MAX_CHILDREN
 * (4096; grids as many cells).
 *
 * Synchronized phase without a tree (blend trees: lua_blendtree.c):
 *   blendwerk.phase_advance(progress, dt, cycle) -> progress'
 *   blendwerk.leaf_time(progress, length [, rate]) -> seconds
 *   blendwerk.cycle_duration(leaves)           -> seconds
 *
 * Misuse raises an error that names the argument ("bad argument #1 to
 * 'blend1d_weights' (thresholds[3] is not a number (got string))").
 * Scratch arrays are userdata, so an error mid-call leaks nothing.
 */
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "blendwerk/blendspace.h"
#include "lua_blendwerk.h"
#include "lua_support.h"

/* Largest arrays accepted: 1D thresholds and grid cells as many as a
 * compiled node's children (BW_BLEND_MAX_CHILDREN); 2D points the core's
 * BW_BLEND_MAX_MEMBERS (its O(n²) bound, checked here to name the
 * argument); phase leaves as many as 1D members. */
#define MAX_MEMBERS BW_BLEND_MAX_CHILDREN

static float *scratch(lua_State *L, size_t floats)
{
    return (float *)lua_newuserdatauv(L, floats * sizeof(float), 0);
}

static float number_at(lua_State *L, int arg, const char *what, int i)
{
    int isnum = 0;
    lua_Number v = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumberx(L, -1, &isnum) : 0;
    if (!isnum)
        luaL_argerror(L, arg, lua_pushfstring(L, "%s[%d] is not a number (got %s)", what, i, luaL_typename(L, -1)));
    float f = 0.0f;
    if (bw_lua_to_float((double)v, &f))
        luaL_argerror(L, arg, lua_pushfstring(L, "%s[%d] is not a finite float", what, i));
    return f;
}

/* An array of numbers at `arg`, copied into new userdata scratch (left on
 * the stack). */
static float *check_numbers(lua_State *L, int arg, const char *what, int *out_count)
{
    if (lua_type(L, arg) != LUA_TTABLE)
        luaL_argerror(L, arg, lua_pushfstring(L, "%s must be an array of numbers (got %s)", what, luaL_typename(L, arg)));
    lua_Unsigned n = lua_rawlen(L, arg);
    if (n == 0) luaL_argerror(L, arg, lua_pushfstring(L, "%s is empty", what));
    if (n > MAX_MEMBERS) luaL_argerror(L, arg, lua_pushfstring(L, "%s has more than %d entries", what, MAX_MEMBERS));
    float *v = scratch(L, (size_t)n);
    for (int i = 1; i <= (int)n; i++) {
        lua_rawgeti(L, arg, i);
        v[i - 1] = number_at(L, arg, what, i);
        lua_pop(L, 1);
    }
    *out_count = (int)n;
    return v;
}

/* A query coordinate: any number (NaN and ±inf are allowed and count as
 * 0 in the core; finite values beyond float range clamp to ±FLT_MAX, so a
 * huge query stays "far past the end" instead of becoming inf, which the
 * core would read as 0), anything else names the argument. */
static float check_coordinate(lua_State *L, int arg, const char *what)
{
    int isnum = 0;
    lua_Number v = lua_type(L, arg) == LUA_TNUMBER ? lua_tonumberx(L, arg, &isnum) : 0;
    if (!isnum) luaL_argerror(L, arg, lua_pushfstring(L, "%s must be a number (got %s)", what, luaL_typename(L, arg)));
    return bw_lua_clamp_float(v);
}

static int l_blend1d_weights(lua_State *L)
{
    int n = 0;
    float *t = check_numbers(L, 1, "thresholds", &n);
    float x = check_coordinate(L, 2, "x");
    float *w = scratch(L, 2 * (size_t)n), *r = w + n;
    if (bw_blend1d_weights(t, n, x, w, r) != BW_OK) return luaL_error(L, "blend1d_weights: %s", "failed");
    bw_lua_push_floats(L, w, n);
    bw_lua_push_floats(L, r, n);
    return 2;
}

/* One point: {x, y} or {x = .., y = ..}. */
static void point_at(lua_State *L, int arg, int i, float *out)
{
    int e = lua_gettop(L);
    if (lua_type(L, e) != LUA_TTABLE)
        luaL_argerror(L, arg, lua_pushfstring(L, "points[%d] must be a {x, y} table (got %s)", i, luaL_typename(L, e)));
    static const char *const keys[2] = {"x", "y"};
    for (int c = 0; c < 2; c++) {
        if (lua_rawgeti(L, e, c + 1) == LUA_TNIL) {
            lua_pop(L, 1);
            lua_pushstring(L, keys[c]);
            lua_rawget(L, e);
        }
        int isnum = 0;
        lua_Number v = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumberx(L, -1, &isnum) : 0;
        if (!isnum)
            luaL_argerror(L, arg, lua_pushfstring(L, "points[%d].%s is not a number (got %s)", i, keys[c],
                                                  luaL_typename(L, -1)));
        if (bw_lua_to_float((double)v, &out[c]))
            luaL_argerror(L, arg, lua_pushfstring(L, "points[%d].%s is not a finite float", i, keys[c]));
        lua_pop(L, 1);
    }
}

static int l_blend2d_weights(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TTABLE)
        luaL_argerror(L, 1, lua_pushfstring(L, "points must be an array of {x, y} (got %s)", luaL_typename(L, 1)));
    float x = check_coordinate(L, 2, "x");
    float y = check_coordinate(L, 3, "y");
    bw_blend2d_mode mode = BW_BLEND2D_CARTESIAN;
    if (!lua_isnoneornil(L, 4)) {
        const char *m = lua_type(L, 4) == LUA_TSTRING ? lua_tostring(L, 4) : NULL;
        if (m && !strcmp(m, "cartesian")) mode = BW_BLEND2D_CARTESIAN;
        else if (m && !strcmp(m, "directional")) mode = BW_BLEND2D_DIRECTIONAL;
        else luaL_argerror(L, 4, "mode must be \"cartesian\" or \"directional\"");
    }
    lua_Unsigned n = lua_rawlen(L, 1);
    if (n == 0) luaL_argerror(L, 1, "points is empty");
    if (n > BW_BLEND_MAX_MEMBERS)
        luaL_argerror(L, 1, lua_pushfstring(L, "points has more than %d entries", BW_BLEND_MAX_MEMBERS));
    float *p = scratch(L, 3 * (size_t)n), *w = p + 2 * n;
    for (int i = 1; i <= (int)n; i++) {
        lua_rawgeti(L, 1, i);
        point_at(L, 1, i, p + 2 * (i - 1));
        lua_pop(L, 1);
    }
    if (bw_blend2d_weights(p, (int)n, x, y, mode, w) != BW_OK) return luaL_error(L, "blend2d_weights: failed");
    bw_lua_push_floats(L, w, (int)n);
    return 1;
}

static int l_grid_weights(lua_State *L)
{
    int nx = 0, ny = 0;
    float *xs = check_numbers(L, 1, "x_values", &nx);
    float *ys = check_numbers(L, 2, "y_values", &ny);
    float x = check_coordinate(L, 3, "x");
    float y = check_coordinate(L, 4, "y");
    if (nx > MAX_MEMBERS / ny)
        luaL_argerror(L, 2, lua_pushfstring(L, "the grid has more than %d cells", MAX_MEMBERS));
    float *w = scratch(L, (size_t)nx * (size_t)ny);
    if (bw_blend_grid_weights(xs, nx, ys, ny, x, y, w) != BW_OK) return luaL_error(L, "grid_weights: failed");
    bw_lua_push_floats(L, w, nx * ny);
    return 1;
}


/* ---- synchronized phase without a tree ---- */

/* blendwerk.phase_advance(progress, dt, cycle) -> progress' in [0, 1) */
static int l_phase_advance(lua_State *L)
{
    float progress = bw_lua_clamp_float(luaL_checknumber(L, 1));
    float dt = bw_lua_clamp_float(luaL_checknumber(L, 2));
    float cycle = bw_lua_clamp_float(luaL_checknumber(L, 3));
    lua_pushnumber(L, (lua_Number)bw_blend_phase_advance(progress, dt, cycle));
    return 1;
}

/* blendwerk.leaf_time(progress, length [, rate = 1]) -> seconds */
static int l_leaf_time(lua_State *L)
{
    bw_blend_leaf leaf;
    memset(&leaf, 0, sizeof leaf);
    float progress = bw_lua_clamp_float(luaL_checknumber(L, 1));
    leaf.length = bw_lua_clamp_float(luaL_checknumber(L, 2));
    leaf.rate = bw_lua_clamp_float(luaL_optnumber(L, 3, 1.0));
    leaf.weight = 1.0f;
    lua_pushnumber(L, (lua_Number)bw_blend_leaf_time(&leaf, progress));
    return 1;
}

/* A number field of leaves[i] (the table on top of the stack). */
static float leaf_field(lua_State *L, int i, const char *field, bool required, float def)
{
    int type = bw_lua_raw_field(L, -1, field);
    float v = def;
    if (type == LUA_TNUMBER) v = bw_lua_clamp_float(lua_tonumber(L, -1));
    else if (type != LUA_TNIL || required)
        luaL_argerror(L, 1, lua_pushfstring(L, "leaves[%d].%s %s", i, field,
                                            type == LUA_TNIL ? "is missing" : "must be a number"));
    lua_pop(L, 1);
    return v;
}

/* blendwerk.cycle_duration(leaves) -> seconds, for a list of
 * {weight =, length = [, rate = 1]} (e.g. what tree:evaluate returns). */
static int l_cycle_duration(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Unsigned n = lua_rawlen(L, 1);
    if (n > MAX_MEMBERS) luaL_argerror(L, 1, lua_pushfstring(L, "leaves has more than %d entries", MAX_MEMBERS));
    bw_blend_leaf *leaves = (bw_blend_leaf *)lua_newuserdatauv(L, sizeof(bw_blend_leaf) * (n ? n : 1), 0);
    for (int i = 1; i <= (int)n; i++) {
        if (lua_rawgeti(L, 1, i) != LUA_TTABLE)
            luaL_argerror(L, 1, lua_pushfstring(L, "leaves[%d] must be a table {weight =, length =, rate =}", i));
        bw_blend_leaf *l = &leaves[i - 1];
        memset(l, 0, sizeof *l);
        l->weight = leaf_field(L, i, "weight", true, 0.0f);
        l->length = leaf_field(L, i, "length", true, 0.0f);
        l->rate = leaf_field(L, i, "rate", false, 1.0f);
        lua_pop(L, 1);
    }
    lua_pushnumber(L, (lua_Number)bw_blend_cycle_duration(leaves, (int)n));
    return 1;
}

static const luaL_Reg functions[] = {
    {"blend1d_weights", l_blend1d_weights},
    {"blend2d_weights", l_blend2d_weights},
    {"grid_weights", l_grid_weights},
    {"phase_advance", l_phase_advance},
    {"leaf_time", l_leaf_time},
    {"cycle_duration", l_cycle_duration},
    {NULL, NULL},
};

void bw_lua_open_blendspace(lua_State *L)
{
    luaL_checktype(L, -1, LUA_TTABLE);
    luaL_setfuncs(L, functions, 0);
}
