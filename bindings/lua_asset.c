/* lua_asset.c - blendwerk.Asset: a loaded glTF / BVH file (bw_asset), its
 * rig and clips.
 *
 *   blendwerk.load(path [, {max_bytes=}]) -> Asset | nil, message
 *
 * The asset owns its rig and clips; asset:rig() and asset:clip() hand out
 * handles that borrow them and keep the asset alive, so closing the asset
 * while a borrowed rig is in use is safe (the asset's memory goes with the
 * last borrower). Each borrowed object is made once and cached, so
 * asset:rig() returns the same Rig every time.
 *
 * Loader warnings (a BVH frame count that disagrees with the data, skipped
 * glTF channels, renamed joints) are collected during the load and kept
 * with the asset: asset:warnings() returns them as a list of strings. They
 * are gathered in a fixed buffer, not in Lua tables, because the logger
 * runs inside the loader: a Lua allocation error raised there would jump
 * over the loader's cleanup. */
#include <stdio.h>
#include <string.h>

#include "lua_support.h"

static void destroy_asset(bw_lua_object *o)
{
    bw_lua_asset *a = (bw_lua_asset *)o;
    /* Every Clip handle borrowing from the asset is gone (they use it), and
     * so is every Binding of them: the cached bindings of its clips can go
     * before the clips do, so a long-lived state that loads assets over and
     * over (hot reload) does not keep them. */
    if (a->bindings && a->asset)
        for (int i = 0; i < a->asset->clip_count; i++) bw_binding_cache_remove_clip(a->bindings, a->asset->clips[i]);
    bw_asset_destroy(a->asset);
    a->asset = NULL;
}

static bw_lua_asset *check_asset(lua_State *L, int arg)
{
    return (bw_lua_asset *)bw_lua_check_object(L, arg, BW_LUA_ASSET);
}

static const char *const load_fields[] = {"max_bytes", NULL};

/* Store the collected warnings as a list in the asset's cache table (at
 * index `cache`). */
static void store_warnings(lua_State *L, int cache, const bw_lua_warnings *w)
{
    bw_lua_push_warning_list(L, w, NULL);
    lua_setfield(L, cache, "warnings");
}

/* The load behind blendwerk.load and the folder-bound loaders:
 * `dir` NULL loads `path` as named (bw_asset_load_file), otherwise
 * beneath `dir` (bw_asset_load_beneath). */
static int load_asset(lua_State *L, const char *dir)
{
    size_t path_len = 0;
    const char *path = luaL_checklstring(L, 1, &path_len);
    bw_asset_options options;
    memset(&options, 0, sizeof options);
    options.allocator = bw_lua_allocator_value(L);
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        char why[256];
        if (!bw_lua_check_fields_hint(L, 2, load_fields, why, sizeof why))
            return luaL_argerror(L, 2, lua_pushstring(L, why));
        if (bw_lua_raw_field(L, 2, "max_bytes") != LUA_TNIL) {
            int isint = 0;
            lua_Integer n = lua_tointegerx(L, -1, &isint);
            if (!isint || n < 0) return luaL_argerror(L, 2, "max_bytes must be a non-negative integer");
            options.max_bytes = (size_t)n;
        }
        lua_pop(L, 1);
    }
    if (strlen(path) != path_len) { /* C would see a shorter name: refuse, do not truncate */
        lua_pushnil(L);
        lua_pushfstring(L, "%s: the path contains a NUL byte", path);
        return 2;
    }
    lua_settop(L, 2);
    bw_lua_asset *a = (bw_lua_asset *)bw_lua_new_object(L, sizeof *a, 1, BW_LUA_ASSET, destroy_asset);
    lua_createtable(L, 0, 3); /* cache of borrowed handles, and the warnings */
    lua_newtable(L);
    lua_setfield(L, -2, "clips");
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, -3, BW_LUA_UV_ASSET_CACHE);
    const int cache = lua_gettop(L);
    /* userdata, not a C local: a 16 KiB frame is a lot of C stack, and
     * Lua frees it whatever happens */
    bw_lua_warnings *warnings = bw_lua_push_warnings(L, &options.logger);
    bw_error err;
    memset(&err, 0, sizeof err);
    bw_result res = dir ? bw_asset_load_beneath(dir, path, &options, &a->asset, &err)
                        : bw_asset_load_file(path, &options, &a->asset, &err);
    if (res == BW_OK) {
        store_warnings(L, cache, warnings);
        lua_settop(L, cache - 1); /* the Asset on top */
    } else {
        lua_settop(L, cache - 1);
        a->asset = NULL;
        bw_lua_object_close(&a->hdr);
        lua_pushnil(L);
        if (err.message[0] && !strstr(err.message, path)) {
            /* make sure the file name is in the message */
            lua_pushfstring(L, "%s: ", path);
            bw_lua_push_error(L, NULL, res, &err);
            lua_concat(L, 2);
        } else if (!err.message[0]) {
            lua_pushfstring(L, "%s: %s", path, bw_result_name(res));
        } else {
            bw_lua_push_error(L, NULL, res, &err);
        }
        return 2;
    }
    return 1;
}

static int l_load(lua_State *L) { return load_asset(L, NULL); }

static int l_load_beneath(lua_State *L) { return load_asset(L, lua_tostring(L, lua_upvalueindex(1))); }

void bw_lua_push_loader_beneath(lua_State *L, const char *dir)
{
    lua_pushstring(L, dir ? dir : "");
    lua_pushcclosure(L, l_load_beneath, 1);
}

/* asset:rig() -> Rig (borrowed; the same handle every call) */
static int l_rig(lua_State *L)
{
    bw_lua_asset *a = check_asset(L, 1);
    lua_getiuservalue(L, 1, BW_LUA_UV_ASSET_CACHE); /* 2 */
    lua_getfield(L, 2, "rig");
    bw_lua_rig *r = (bw_lua_rig *)luaL_testudata(L, -1, BW_LUA_RIG);
    if (r && !r->hdr.closed) return 1;
    lua_pop(L, 1);
    bw_lua_push_rig(L, a->asset->rig, 1);
    lua_pushvalue(L, -1);
    lua_setfield(L, 2, "rig");
    return 1;
}

/* asset:warnings() -> { message, ... } (a new list each call, possibly
 * empty) */
static int l_warnings(lua_State *L)
{
    check_asset(L, 1);
    lua_getiuservalue(L, 1, BW_LUA_UV_ASSET_CACHE); /* 2 */
    lua_getfield(L, 2, "warnings");                 /* 3 */
    bw_lua_push_list_copy(L, 3);
    return 1;
}

static int l_clip_count(lua_State *L)
{
    lua_pushinteger(L, check_asset(L, 1)->asset->clip_count);
    return 1;
}

/* Push the borrowed handle of clip i (0-based), cached. */
static void push_clip(lua_State *L, bw_lua_asset *a, int i)
{
    lua_getiuservalue(L, 1, BW_LUA_UV_ASSET_CACHE);
    lua_getfield(L, -1, "clips");
    lua_remove(L, -2);
    const int clips = lua_gettop(L);
    lua_rawgeti(L, clips, i + 1);
    bw_lua_clip *c = (bw_lua_clip *)luaL_testudata(L, -1, BW_LUA_CLIP);
    if (!c || c->hdr.closed) {
        lua_pop(L, 1);
        bw_lua_push_clip(L, a->asset->clips[i], 1);
        lua_pushvalue(L, -1);
        lua_rawseti(L, clips, i + 1);
    }
    lua_remove(L, clips);
}

/* asset:clip(name | index) -> Clip | nil. A string is a clip name or
 * "#N" (0-based, as bw_asset_find_clip); a number is a 1-based index. */
static int l_clip(lua_State *L)
{
    bw_lua_asset *a = check_asset(L, 1);
    int i = -1;
    if (lua_type(L, 2) == LUA_TSTRING) {
        i = bw_asset_find_clip(a->asset, lua_tostring(L, 2));
    } else if (lua_isinteger(L, 2)) {
        lua_Integer n = lua_tointeger(L, 2);
        if (n >= 1 && n <= a->asset->clip_count) i = (int)n - 1;
    } else {
        return luaL_typeerror(L, 2, "clip name or index");
    }
    if (i < 0 || i >= a->asset->clip_count) {
        lua_pushnil(L);
        return 1;
    }
    push_clip(L, a, i);
    return 1;
}

/* asset:clips() -> { Clip, ... } in file order */
static int l_clips(lua_State *L)
{
    bw_lua_asset *a = check_asset(L, 1);
    lua_createtable(L, a->asset->clip_count, 0);
    for (int i = 0; i < a->asset->clip_count; i++) {
        push_clip(L, a, i);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int l_kind(lua_State *L)
{
    lua_pushstring(L, check_asset(L, 1)->asset->kind == BW_ASSET_BVH ? "bvh" : "gltf");
    return 1;
}

static int l_frame_time(lua_State *L)
{
    lua_pushnumber(L, (lua_Number)check_asset(L, 1)->asset->frame_time);
    return 1;
}

static int l_frame_count(lua_State *L)
{
    lua_pushinteger(L, check_asset(L, 1)->asset->frame_count);
    return 1;
}

/* __tostring of a live Asset; close(), __gc and __close are the shared ones */
static int describe_asset(lua_State *L)
{
    const bw_lua_asset *a = (const bw_lua_asset *)lua_touserdata(L, 1);
    if (!a->asset) return 0;
    lua_pushfstring(L, "%s (%s, %d joints, %d clips)", BW_LUA_ASSET, a->asset->kind == BW_ASSET_BVH ? "bvh" : "gltf",
                    bw_rig_joint_count(a->asset->rig), a->asset->clip_count);
    return 1;
}

static const bw_lua_lifetime asset_lifetime = {.type_name = BW_LUA_ASSET, .describe = describe_asset};

static const luaL_Reg asset_methods[] = {
    {"rig", l_rig},
    {"clip_count", l_clip_count},
    {"clip", l_clip},
    {"clips", l_clips},
    {"kind", l_kind},
    {"frame_time", l_frame_time},
    {"frame_count", l_frame_count},
    {"warnings", l_warnings},
    {NULL, NULL},
};

static const luaL_Reg asset_functions[] = {
    {"load", l_load},
    {NULL, NULL},
};

void bw_lua_open_asset(lua_State *L)
{
    bw_lua_register_object_type(L, &asset_lifetime, asset_methods, NULL);
    luaL_setfuncs(L, asset_functions, 0);
}
