/* lua_blendwerk.c - module entry point (placeholder until the bindings land). */
#include <lauxlib.h>

#include "lua_blendwerk.h"

int luaopen_blendwerk(lua_State *L)
{
    lua_newtable(L);
    return 1;
}
