/* lua_blendwerk.h - the Lua 5.4 module `blendwerk`. */
#ifndef BW_LUA_BLENDWERK_H
#define BW_LUA_BLENDWERK_H

#include <lua.h>

/* Open the module: pushes the `blendwerk` table. */
int luaopen_blendwerk(lua_State *L);

#endif
