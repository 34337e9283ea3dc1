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

#include "blendwerk/types.h"

/* Open the module: pushes the `blendwerk` table. The only exported name of
 * the bindings (a host calls it through luaL_requiref). */
BW_API int luaopen_blendwerk(lua_State *L);

/* The openers of the areas, one per bindings/lua_<area>.c. Each adds its
 * functions to the module table on top of the stack and registers its
 * type's metatable, leaving the stack as it found it. luaopen_blendwerk
 * calls every one of them, the core types (rig, clip, binding, pose, track
 * set, asset) first; the others only need those metatables when their
 * functions run, not at open time. */
void bw_lua_open_rig(lua_State *L);
void bw_lua_open_clip(lua_State *L);
void bw_lua_open_binding(lua_State *L);
void bw_lua_open_pose(lua_State *L);
void bw_lua_open_track_set(lua_State *L);
void bw_lua_open_asset(lua_State *L);
void bw_lua_open_blendspace(lua_State *L);
void bw_lua_open_blendtree(lua_State *L);   /* blendwerk.blend_tree, blendwerk.BlendTree */
void bw_lua_open_rootmotion(lua_State *L); /* blendwerk.root_motion, blendwerk.RootMotion */
void bw_lua_open_graph(lua_State *L);      /* blendwerk.graph, blendwerk.Graph, blendwerk.Cursor */
void bw_lua_open_animator(lua_State *L);   /* blendwerk.animator, blendwerk.validate_character_state, blendwerk.Animator */

#endif
