/* lua_blendwerk.h - the Lua 5.4 module `blendwerk`. */
#ifndef BW_LUA_BLENDWERK_H
#define BW_LUA_BLENDWERK_H

#include <lua.h>

/* Open the module: pushes the `blendwerk` table. */
int luaopen_blendwerk(lua_State *L);

/* Each bindings/lua_<area>.c adds its functions to the module table on top
 * of the stack (luaopen_blendwerk calls every one of these). */
void bw_lua_open_blendspace(lua_State *L);

#endif
