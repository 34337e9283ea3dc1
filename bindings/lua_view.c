/* lua_view.c - the one builder of read-only views of a table (lua_support.h
 * bw_lua_push_readonly_view): the sandbox's libraries, the parameter view
 * a graph predicate reads, and the view getmetatable gives of a handle. */
#include <lauxlib.h>
#include <lua.h>
#include <stdbool.h>

#include "lua_support.h"

/* __newindex: the message (upvalue 1). */
static int view_newindex(lua_State *L) { return luaL_error(L, "%s", lua_tostring(L, lua_upvalueindex(1))); }

/* The iterator pairs(view) returns: lua_next over the viewed table
 * (upvalue 1), so the table itself never reaches the script. */
static int view_next(lua_State *L)
{
    lua_settop(L, 2);
    if (lua_next(L, lua_upvalueindex(1))) return 2;
    return 0;
}

/* __len: the viewed table's (upvalue 1) raw length. */
static int view_len(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, lua_upvalueindex(1)));
    return 1;
}

/* __pairs: next-like iterator, the view, nil. */
static int view_pairs(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushcclosure(L, view_next, 1);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

void bw_lua_push_readonly_view(lua_State *L, int idx, bool userdata, const char *message)
{
    BW_LUA_STACK_BEGIN(L);
    idx = lua_absindex(L, idx);
    if (userdata) lua_newuserdatauv(L, 0, 0);
    else lua_newtable(L);
    lua_createtable(L, 0, 5);
    lua_pushvalue(L, idx);
    lua_setfield(L, -2, "__index");
    lua_pushvalue(L, idx);
    lua_pushcclosure(L, view_len, 1);
    lua_setfield(L, -2, "__len");
    lua_pushstring(L, message);
    lua_pushcclosure(L, view_newindex, 1);
    lua_setfield(L, -2, "__newindex");
    lua_pushvalue(L, idx);
    lua_pushcclosure(L, view_pairs, 1);
    lua_setfield(L, -2, "__pairs");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
    BW_LUA_STACK_END(L, 1);
}

void bw_lua_check_out_table(lua_State *L, int arg)
{
    luaL_checktype(L, arg, LUA_TTABLE);
    if (!lua_getmetatable(L, arg)) return;
    lua_pushliteral(L, "__newindex");
    lua_rawget(L, -2);
    bool view = lua_tocfunction(L, -1) == view_newindex;
    lua_pop(L, 2);
    if (view) luaL_argerror(L, arg, "a read-only table cannot take the results");
}
