/* lua_blendspace.c - placeholder until the blend-space bindings land. */
#include "lua_blendwerk.h"

void bw_lua_open_blendspace(lua_State *L) { (void)L; }
