/* lua_binding.c - blendwerk.Binding: a clip's tracks matched to a rig's
 * joints (bw_binding), with its report, and sampling into a Pose.
 *
 *   blendwerk.bind(clip, rig) / clip:bind(rig) -> Binding | nil, message
 *
 * A Binding keeps its Clip and Rig alive (uservalues plus counted uses),
 * so neither can be freed while it exists, even after close().
 *
 * The bindings clip:sample, TrackSet:play and root motion make on their
 * own come from the core's bw_binding_cache, one per lua_State, created
 * when the module is opened and kept in the registry (the only binding
 * cache: Lua keeps none of its own). A Binding handle to a cached binding
 * borrows it; the cache frees it when the clip's C object is destroyed
 * (the Clip drops its entries) or when the state closes. That is safe
 * because a handle uses its Clip, and the cache, made at module open
 * before any Clip, is finalized after every Clip and handle when the state
 * closes (Lua finalizes in reverse order of creation). */
#include <string.h>

#include "lua_support.h"

static void destroy_binding(bw_lua_object *o)
{
    bw_lua_binding *b = (bw_lua_binding *)o;
    if (!b->cached) bw_binding_destroy(b->binding);
    b->binding = NULL;
}

bw_lua_binding *bw_lua_check_binding(lua_State *L, int arg)
{
    return (bw_lua_binding *)bw_lua_check_object(L, arg, BW_LUA_BINDING);
}

/* Push an empty Binding handle that uses the Clip and Rig at these
 * (absolute) indices. */
static bw_lua_binding *push_handle(lua_State *L, int clip_idx, int rig_idx)
{
    bw_lua_clip *c = (bw_lua_clip *)lua_touserdata(L, clip_idx);
    bw_lua_rig *r = (bw_lua_rig *)lua_touserdata(L, rig_idx);
    bw_lua_binding *b = (bw_lua_binding *)bw_lua_new_object(L, sizeof *b, 2, BW_LUA_BINDING, destroy_binding);
    b->clip = c;
    b->rig = r;
    bw_lua_object_use(&b->hdr, &c->hdr);
    bw_lua_object_use(&b->hdr, &r->hdr);
    lua_pushvalue(L, clip_idx);
    lua_setiuservalue(L, -2, BW_LUA_UV_BINDING_CLIP);
    lua_pushvalue(L, rig_idx);
    lua_setiuservalue(L, -2, BW_LUA_UV_BINDING_RIG);
    return b;
}

bw_lua_binding *bw_lua_push_binding(lua_State *L, int clip_idx, int rig_idx)
{
    clip_idx = lua_absindex(L, clip_idx);
    rig_idx = lua_absindex(L, rig_idx);
    bw_lua_binding *b = push_handle(L, clip_idx, rig_idx);
    bw_lua_clip *c = b->clip;
    bw_lua_rig *r = b->rig;
    bw_error err;
    memset(&err, 0, sizeof err);
    bw_result res = bw_binding_create(&(bw_binding_desc){.clip = c->clip, .rig = r->rig, .allocator = *bw_lua_allocator(L)}, &b->binding, &err);
    if (res != BW_OK) {
        b->binding = NULL;
        bw_lua_object_close(&b->hdr); /* releases the clip and rig now */
        lua_pop(L, 1);
        lua_pushnil(L);
        lua_pushfstring(L, "binding clip '%s': ", bw_clip_name(c->clip));
        bw_lua_push_error(L, NULL, res, &err);
        lua_concat(L, 2);
        return NULL;
    }
    return b;
}

/* ---- the state's binding cache ---- */

static const char binding_cache_key[] = "blendwerk.binding_cache";
#define BINDING_CACHE_TYPE "blendwerk.BindingCache"

typedef struct cache_holder {
    bw_binding_cache *cache;
} cache_holder;

static int l_cache_gc(lua_State *L)
{
    cache_holder *h = (cache_holder *)luaL_checkudata(L, 1, BINDING_CACHE_TYPE);
    bw_binding_cache_destroy(h->cache);
    h->cache = NULL;
    return 0;
}

/* Make the state's cache unless the module was opened here before. The
 * holder is registered before the cache is made, so a failure leaves
 * nothing to leak. */
static void open_binding_cache(lua_State *L)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, binding_cache_key) == LUA_TUSERDATA) {
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    cache_holder *h = (cache_holder *)lua_newuserdatauv(L, sizeof *h, 0);
    h->cache = NULL;
    if (luaL_newmetatable(L, BINDING_CACHE_TYPE)) {
        lua_pushcfunction(L, l_cache_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, binding_cache_key);
    bw_result res = bw_binding_cache_create(bw_lua_allocator(L), &h->cache);
    lua_pop(L, 1);
    if (res != BW_OK) luaL_error(L, "blendwerk: creating the binding cache: %s", bw_result_name(res));
}

static bw_binding_cache *binding_cache(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, binding_cache_key);
    cache_holder *h = (cache_holder *)luaL_testudata(L, -1, BINDING_CACHE_TYPE);
    lua_pop(L, 1); /* the registry keeps it */
    return h ? h->cache : NULL;
}

const bw_binding *bw_lua_cached_binding(lua_State *L, int clip_idx, int rig_idx)
{
    bw_lua_clip *c = (bw_lua_clip *)lua_touserdata(L, clip_idx);
    bw_lua_rig *r = (bw_lua_rig *)lua_touserdata(L, rig_idx);
    bw_binding_cache *cache = binding_cache(L);
    if (!cache) {
        lua_pushnil(L);
        lua_pushliteral(L, "blendwerk: the module was not opened in this state (no binding cache)");
        return NULL;
    }
    const bw_binding *binding = NULL;
    bw_error err;
    memset(&err, 0, sizeof err);
    bw_result res = bw_binding_cache_get(cache, c->clip, r->rig, 0, &binding, &err);
    if (res != BW_OK) {
        lua_pushnil(L);
        lua_pushfstring(L, "binding clip '%s': ", bw_clip_name(c->clip));
        bw_lua_push_error(L, NULL, res, &err);
        lua_concat(L, 2);
        return NULL;
    }
    c->bindings = cache; /* its destroy drops the clip's entries */
    return binding;
}

bw_lua_binding *bw_lua_push_cached_binding(lua_State *L, int clip_idx, int rig_idx)
{
    BW_LUA_STACK_BEGIN(L);
    clip_idx = lua_absindex(L, clip_idx);
    rig_idx = lua_absindex(L, rig_idx);
    const bw_binding *binding = bw_lua_cached_binding(L, clip_idx, rig_idx);
    if (!binding) {
        BW_LUA_STACK_END(L, 2); /* nil, message */
        return NULL;
    }
    bw_lua_binding *b = push_handle(L, clip_idx, rig_idx);
    /* borrowed from the cache, which only reads it through const too: the
     * handle's pointer is non-const because fresh bindings are owned */
    b->binding = (bw_binding *)binding;
    b->cached = true;
    BW_LUA_STACK_END(L, 1);
    return b;
}

/* blendwerk.bind(clip, rig) */
static int l_bind(lua_State *L)
{
    bw_lua_check_clip(L, 1);
    bw_lua_check_rig(L, 2);
    return bw_lua_push_binding(L, 1, 2) ? 1 : 2;
}

/* binding:report() -> {bound=, by_name=, ambiguous=, unbound=} */
static int l_report(lua_State *L)
{
    bw_bind_report r = bw_binding_report(bw_lua_check_binding(L, 1)->binding);
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, r.bound);
    lua_setfield(L, -2, "bound");
    lua_pushinteger(L, r.by_name);
    lua_setfield(L, -2, "by_name");
    lua_pushinteger(L, r.ambiguous);
    lua_setfield(L, -2, "ambiguous");
    lua_pushinteger(L, r.unbound);
    lua_setfield(L, -2, "unbound");
    return 1;
}

static int check_track(lua_State *L, int arg, const bw_lua_binding *b)
{
    int count = bw_clip_track_count(b->clip->clip);
    lua_Integer i = luaL_checkinteger(L, arg);
    if (i < 1 || i > count)
        return luaL_argerror(L, arg, lua_pushfstring(L, "track index %I out of range 1..%d", (LUAI_UACINT)i, count));
    return (int)(i - 1);
}

/* binding:track_status(i) -> "exact" | "by_name" | "ambiguous" | "unbound" */
static int l_track_status(lua_State *L)
{
    bw_lua_binding *b = bw_lua_check_binding(L, 1);
    static const char *const names[] = {"exact", "by_name", "ambiguous", "unbound"};
    bw_bind_status s = bw_binding_track_status(b->binding, check_track(L, 2, b));
    lua_pushstring(L, (unsigned)s < 4 ? names[s] : "unbound");
    return 1;
}

/* binding:track_target(i) -> joint (or curve) index | nil */
static int l_track_target(lua_State *L)
{
    bw_lua_binding *b = bw_lua_check_binding(L, 1);
    int target = bw_binding_track_target(b->binding, check_track(L, 2, b));
    if (target < 0) lua_pushnil(L);
    else lua_pushinteger(L, target + 1);
    return 1;
}

/* binding:clip() / binding:rig() -> borrowed handles (closing them
 * leaves them open; they equal the handles the binding was made from) */
static int l_clip(lua_State *L)
{
    bw_lua_check_binding(L, 1);
    lua_getiuservalue(L, 1, BW_LUA_UV_BINDING_CLIP);
    bw_lua_push_shared(L, -1);
    return 1;
}

static int l_rig(lua_State *L)
{
    bw_lua_check_binding(L, 1);
    lua_getiuservalue(L, 1, BW_LUA_UV_BINDING_RIG);
    bw_lua_push_shared(L, -1);
    return 1;
}

/* binding:sample(time [, pose]) -> Pose */
static int l_sample(lua_State *L)
{
    bw_lua_binding *b = bw_lua_check_binding(L, 1);
    float time = bw_lua_check_time(L, 2);
    bw_lua_pose *out;
    if (lua_isnoneornil(L, 3)) {
        lua_getiuservalue(L, 1, BW_LUA_UV_BINDING_RIG);
        out = bw_lua_push_pose(L, -1);
    } else {
        out = bw_lua_check_pose(L, 3);
        if (out->rig->rig != b->rig->rig) return luaL_argerror(L, 3, "pose belongs to another rig");
        lua_pushvalue(L, 3);
    }
    bw_sample_clip(b->binding, b->rig->rig, time, &out->pose);
    return 1;
}

/* __tostring of a live Binding; close(), __gc and __close are the shared ones */
static int describe_binding(lua_State *L)
{
    const bw_lua_binding *b = (const bw_lua_binding *)lua_touserdata(L, 1);
    if (!b->binding) return 0;
    bw_bind_report r = bw_binding_report(b->binding);
    lua_pushfstring(L, "%s '%s' (%d bound, %d unbound, %d ambiguous)", BW_LUA_BINDING, bw_clip_name(b->clip->clip),
                    r.bound, r.unbound, r.ambiguous);
    return 1;
}

static const bw_lua_lifetime binding_lifetime = {.type_name = BW_LUA_BINDING, .describe = describe_binding};

static const luaL_Reg binding_methods[] = {
    {"report", l_report},
    {"track_status", l_track_status},
    {"track_target", l_track_target},
    {"clip", l_clip},
    {"rig", l_rig},
    {"sample", l_sample},
    {NULL, NULL},
};

static const luaL_Reg binding_functions[] = {
    {"bind", l_bind},
    {NULL, NULL},
};

void bw_lua_open_binding(lua_State *L)
{
    open_binding_cache(L);
    bw_lua_register_object_type(L, &binding_lifetime, binding_methods, NULL);
    luaL_setfuncs(L, binding_functions, 0);
}
