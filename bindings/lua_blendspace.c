/* lua_blendspace.c - blend-space weight functions for Lua.
 *
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
 * follow the C rules: NaN or infinite counts as 0.
 *
 * Misuse raises an error that names the argument ("bad argument #1 to
 * 'blend1d_weights' (thresholds[3] is not a number (got string))").
 * Scratch arrays are userdata, so an error mid-call leaks nothing.
 */
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <string.h>

#include "blendwerk/blendspace.h"

void bw_lua_open_blendspace(lua_State *L);

/* Largest member array accepted; the 2D modes are O(n²). */
#define MAX_MEMBERS 4096

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
    if (!isfinite(v) || fabs(v) > 3.4e38)
        luaL_argerror(L, arg, lua_pushfstring(L, "%s[%d] is not a finite float", what, i));
    return (float)v;
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
 * 0 in the core), anything else names the argument. */
static float check_coordinate(lua_State *L, int arg, const char *what)
{
    int isnum = 0;
    lua_Number v = lua_type(L, arg) == LUA_TNUMBER ? lua_tonumberx(L, arg, &isnum) : 0;
    if (!isnum) luaL_argerror(L, arg, lua_pushfstring(L, "%s must be a number (got %s)", what, luaL_typename(L, arg)));
    return (float)v;
}

static void push_array(lua_State *L, const float *v, int n)
{
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushnumber(L, (lua_Number)v[i]);
        lua_rawseti(L, -2, i + 1);
    }
}

static int l_blend1d_weights(lua_State *L)
{
    int n = 0;
    float *t = check_numbers(L, 1, "thresholds", &n);
    float x = check_coordinate(L, 2, "x");
    float *w = scratch(L, 2 * (size_t)n), *r = w + n;
    if (bw_blend1d_weights(t, n, x, w, r) != BW_OK) return luaL_error(L, "blend1d_weights: %s", "failed");
    push_array(L, w, n);
    push_array(L, r, n);
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
        if (!isfinite(v) || fabs(v) > 3.4e38)
            luaL_argerror(L, arg, lua_pushfstring(L, "points[%d].%s is not a finite float", i, keys[c]));
        out[c] = (float)v;
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
    if (n > MAX_MEMBERS) luaL_argerror(L, 1, lua_pushfstring(L, "points has more than %d entries", MAX_MEMBERS));
    float *p = scratch(L, 3 * (size_t)n), *w = p + 2 * n;
    for (int i = 1; i <= (int)n; i++) {
        lua_rawgeti(L, 1, i);
        point_at(L, 1, i, p + 2 * (i - 1));
        lua_pop(L, 1);
    }
    if (bw_blend2d_weights(p, (int)n, x, y, mode, w) != BW_OK) return luaL_error(L, "blend2d_weights: failed");
    push_array(L, w, (int)n);
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
    push_array(L, w, nx * ny);
    return 1;
}

static const luaL_Reg functions[] = {
    {"blend1d_weights", l_blend1d_weights},
    {"blend2d_weights", l_blend2d_weights},
    {"grid_weights", l_grid_weights},
    {NULL, NULL},
};

void bw_lua_open_blendspace(lua_State *L)
{
    luaL_checktype(L, -1, LUA_TTABLE);
    luaL_setfuncs(L, functions, 0);
}
