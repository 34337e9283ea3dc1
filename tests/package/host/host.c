/* host.c - a program with its own lua_State that opens the blendwerk module
 * from the installed bindings library (blendwerk::lua / blendwerk-lua.pc)
 * and runs a chunk with it: what docs/embedding.md step 4 shows. Prints the
 * module's version and a sampled joint position. */
#include <stdio.h>

#include <lauxlib.h>
#include <lualib.h>

#include <blendwerk/lua_blendwerk.h>
#include <blendwerk/version.h>

static const char chunk[] = "local rig = assert(blendwerk.rig { joints = { { name = 'hips' } } })\n"
                            "local clip = assert(blendwerk.clip { joints = { { joint = 'hips', keys = {\n"
                            "    { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 0, 0, 2 } } } } } })\n"
                            "local x, y, z = clip:sample(rig, 0.25):t('hips')\n"
                            "return blendwerk.version .. ' ' .. z\n";

int main(void)
{
    lua_State *L = luaL_newstate();
    if (!L) return 1;
    luaL_openlibs(L);
    luaL_requiref(L, "blendwerk", luaopen_blendwerk, 1);
    lua_pop(L, 1);
    int status = luaL_dostring(L, chunk);
    printf("%s %s\n", BW_VERSION_STRING, lua_tostring(L, -1));
    lua_close(L);
    return status == LUA_OK ? 0 : 1;
}
