/* lua_blendwerk.h - the Lua 5.4 module `blendwerk` (docs/lua-api.md).
 *
 * luaopen_blendwerk builds the module table, registers every type's
 * metatable (blendwerk.Rig, .Clip, .Binding, .Pose, .TrackSet, .Asset) and
 * the state's allocator for core objects, then lets each area add its
 * functions. The same entry point serves the `blendwerk` tool
 * (package.preload) and build/blendwerk.so (require through LUA_CPATH).
 * Helpers shared by the per-type files are in lua_support.h. */
#ifndef BW_LUA_BLENDWERK_H
#define BW_LUA_BLENDWERK_H

#include <lua.h>

/* Open the module: pushes the `blendwerk` table. */
int luaopen_blendwerk(lua_State *L);

/* Each bindings/lua_<area>.c adds its functions to the module table on top
 * of the stack (luaopen_blendwerk calls every one of these; the per-type
 * openers of the core types are declared in lua_support.h). */
void bw_lua_open_blendspace(lua_State *L);

#endif
