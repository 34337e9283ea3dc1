/* lua_rootmotion.h - root motion for Lua (SPEC §8): blendwerk.root_motion
 * and the blendwerk.RootMotion type (bindings/lua_rootmotion.c).
 *
 * Same convention as the other bw_lua_open_* functions: adds its functions
 * to the module table on top of the stack and registers its metatable;
 * leaves the stack as it found it. luaopen_blendwerk is expected to call it
 * after the Rig, Clip, Binding, Pose and TrackSet types are registered
 * (it only needs their metatables at call time of its functions, not at
 * open time, so the order is not critical). */
#ifndef BW_LUA_ROOTMOTION_H
#define BW_LUA_ROOTMOTION_H

#include <lua.h>

void bw_lua_open_rootmotion(lua_State *L);

#endif
