-- blendwerk-scm-1.rockspec: the Lua module blendwerk.so for Lua 5.4.
--
--   luarocks --lua-version 5.4 make                       (in a checkout; system tree)
--   luarocks --lua-version 5.4 --tree ~/.rocks make       (a private tree)
--
-- build.type "cmake" runs this repository's CMakeLists.txt with
-- BW_LUA_MODULE_ONLY=ON: only the core and the bindings are compiled, into
-- one self-contained blendwerk.so, installed into the rock's lib folder
-- (luarocks then deploys it to <tree>/lib/lua/5.4/). The CMake build
-- writes blendwerk-<version>-1.rockspec (this file with the project
-- version) into its build folder for releases.
rockspec_format = "3.0"
package = "blendwerk"
version = "scm-1"
source = {
    -- the repository the lead publishes; `luarocks make` does not use it
    url = "git+https://example.invalid/blendwerk.git",
    branch = "main",
}
description = {
    summary = "Scriptable skeletal-animation runtime: rigs, clips, mixing, blend trees, root motion",
    detailed = [[
Blendwerk samples skeletal-animation clips (glTF 2.0 and BVH files, or
keyframes described in Lua), plays them on track sets with marker
callbacks, mixes poses per joint by priority, computes blend-space weights
and blend trees and extracts root motion. The C11 core does the work; this
rock is its Lua 5.4 module. Editor annotations: types/blendwerk.lua.
]],
    labels = { "animation", "gamedev", "gltf" },
}
dependencies = {
    "lua >= 5.4, < 5.5",
}
external_dependencies = {
    CGLM = { header = "cglm/cglm.h" },
    CJSON = { header = "cjson/cJSON.h" },
}
build = {
    type = "cmake",
    variables = {
        CMAKE_BUILD_TYPE = "Release",
        CMAKE_INSTALL_PREFIX = "$(PREFIX)",
        BW_LUA_MODULE_ONLY = "ON",
        BW_INSTALL = "ON",
        BW_INSTALL_LUA_CMODDIR = "$(LIBDIR)",
        BW_LUA_INCLUDE_DIR = "$(LUA_INCDIR)",
    },
    copy_directories = { "types" },
}
