/* lua_blendwerk.c - the `blendwerk` Lua 5.4 module: luaopen_blendwerk, the
 * module-level functions that belong to no type (ease, lerp_angle), and the
 * helpers every bindings/lua_<type>.c shares (object lifetime, checked
 * numbers, vectors and transforms, error messages). See lua_support.h for
 * the lifetime rules and docs/lua-api.md for the Lua-facing API. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "blendwerk/version.h"
#include "clamp_float.h"
#include "controls.h"
#include "lua_blendwerk.h"
#include "lua_support.h"

/* ---- object lifetime ---- */

void *bw_lua_new_object(lua_State *L, size_t size, int nuv, const char *type_name, bw_lua_destroy_fn destroy)
{
    bw_lua_object *o = (bw_lua_object *)lua_newuserdatauv(L, size, nuv);
    memset(o, 0, size);
    o->type_name = type_name;
    o->destroy = destroy;
    luaL_setmetatable(L, type_name);
    return o;
}

void bw_lua_object_use(bw_lua_object *self, bw_lua_object *dep)
{
    for (int i = 0; i < BW_LUA_MAX_DEPS; i++) {
        if (!self->deps[i]) {
            self->deps[i] = dep;
            dep->users++;
            return;
        }
    }
    /* A type with more dependencies than slots is a programming error in
     * the bindings, never a user error. */
#ifndef NDEBUG
    assert(0 && "bw_lua_object_use: too many dependencies");
#endif
}

static void maybe_destroy(bw_lua_object *o)
{
    if (!o->closed || o->users > 0 || o->destroyed) return;
    o->destroyed = true;
    if (o->destroy) o->destroy(o);
    /* Only after the C object is gone may what it used go too. */
    for (int i = 0; i < BW_LUA_MAX_DEPS; i++) {
        bw_lua_object *dep = o->deps[i];
        o->deps[i] = NULL;
        if (dep) bw_lua_object_unuse(dep);
    }
}

void bw_lua_object_unuse(bw_lua_object *dep)
{
    if (dep->users > 0) dep->users--;
    maybe_destroy(dep);
}

void bw_lua_object_collect(bw_lua_object *self)
{
    if (self->closed) return;
    self->closed = true;
    maybe_destroy(self);
}

void bw_lua_object_close(bw_lua_object *self)
{
    /* Others hold a borrowed handle too: closing it for one holder would
     * close it for all (docs/lua-api.md, "Borrowed handles"). */
    if (self->borrowed) return;
    bw_lua_object_collect(self);
}

/* The C object behind a Rig or Clip handle at `i`, or NULL. */
static const void *wrapped_object(lua_State *L, int i)
{
    const bw_lua_rig *r = (const bw_lua_rig *)luaL_testudata(L, i, BW_LUA_RIG);
    if (r) return r->rig;
    const bw_lua_clip *c = (const bw_lua_clip *)luaL_testudata(L, i, BW_LUA_CLIP);
    return c ? c->clip : NULL;
}

int bw_lua_shared_eq(lua_State *L)
{
    const void *a = wrapped_object(L, 1);
    lua_pushboolean(L, a && a == wrapped_object(L, 2));
    return 1;
}

void bw_lua_object_gc_or_close(lua_State *L, bw_lua_object *self)
{
    if (lua_gettop(L) >= 2) bw_lua_object_close(self);
    else bw_lua_object_collect(self);
}

void bw_lua_push_shared(lua_State *L, int idx)
{
    BW_LUA_STACK_BEGIN(L);
    idx = lua_absindex(L, idx);
    bw_lua_rig *r = (bw_lua_rig *)luaL_testudata(L, idx, BW_LUA_RIG);
    bw_lua_object *o = r ? &r->hdr : (bw_lua_object *)luaL_checkudata(L, idx, BW_LUA_CLIP);
    if (o->borrowed) {
        lua_pushvalue(L, idx);
    } else {
        const int slot = r ? BW_LUA_UV_RIG_SHARED : BW_LUA_UV_CLIP_SHARED;
        lua_getiuservalue(L, idx, slot);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            /* The twin borrows from the original (a counted use and a
             * uservalue), the original caches the twin: a cycle the
             * collector takes apart like any other. */
            if (r) bw_lua_push_rig(L, r->rig, idx);
            else bw_lua_push_clip(L, ((bw_lua_clip *)o)->clip, idx);
            lua_pushvalue(L, -1);
            lua_setiuservalue(L, idx, slot);
        }
    }
    BW_LUA_STACK_END(L, 1);
}

void *bw_lua_check_object(lua_State *L, int arg, const char *type_name)
{
    bw_lua_object *o = (bw_lua_object *)luaL_checkudata(L, arg, type_name);
    if (o->closed) {
        lua_pushfstring(L, "%s is closed", type_name);
        luaL_argerror(L, arg, lua_tostring(L, -1));
    }
    return o;
}

void *bw_lua_test_object(lua_State *L, int arg, const char *type_name)
{
    bw_lua_object *o = (bw_lua_object *)luaL_testudata(L, arg, type_name);
    if (o && o->closed) {
        lua_pushfstring(L, "%s is closed", type_name);
        luaL_argerror(L, arg, lua_tostring(L, -1));
    }
    return o;
}

/* __close / __gc as scripts see them through getmetatable: the type's own
 * __close called as Lua calls it at scope end (value, nil), so it closes
 * like h:close() (a no-op on a borrowed handle, no error on a closed one)
 * and never collects: a script cannot free a handle others still use. */
static int view_close(lua_State *L)
{
    lua_settop(L, 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_pushnil(L);
    lua_call(L, 2, 0);
    return 0;
}

/* The __metatable guard: getmetatable(handle) gives a read-only view (a
 * userdata, so rawset cannot write into it either; bw_lua_push_readonly_view)
 * of a table holding __name and the closing view_close as __close and
 * __gc, never the metatable itself, whose __index, __gc and methods stay
 * out of a script's reach. Metatable at the top of the stack. */
static void set_metatable_guard(lua_State *L, const char *type_name)
{
    lua_createtable(L, 0, 3); /* what reading the view gives */
    lua_pushstring(L, type_name);
    lua_setfield(L, -2, "__name");
    lua_getfield(L, -2, "__close");
    lua_pushcclosure(L, view_close, 1);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, "__close");
    lua_setfield(L, -2, "__gc");
    lua_pushfstring(L, "the metatable of %s is protected", type_name);
    bw_lua_push_readonly_view(L, -2, true, lua_tostring(L, -1));
    lua_setfield(L, -4, "__metatable");
    lua_pop(L, 2);
}

/* ---- the lifetime functions (bw_lua_register_object_type) ----
 * Upvalue 1 of each is the type's bw_lua_lifetime (a light userdata). */

static const bw_lua_lifetime *lifetime_of(lua_State *L)
{
    return (const bw_lua_lifetime *)lua_touserdata(L, lua_upvalueindex(1));
}

/* What closing or collecting the handle at 1 drops besides the header. */
static void drop_on_close(lua_State *L, const bw_lua_lifetime *life)
{
    if (life->clear_uservalue == 0) return;
    lua_pushnil(L);
    lua_setiuservalue(L, 1, life->clear_uservalue);
}

/* __gc and __close */
static int lifetime_gc(lua_State *L)
{
    const bw_lua_lifetime *life = lifetime_of(L);
    bw_lua_object_gc_or_close(L, (bw_lua_object *)luaL_checkudata(L, 1, life->type_name));
    drop_on_close(L, life);
    return 0;
}

/* handle:close() */
static int lifetime_close(lua_State *L)
{
    const bw_lua_lifetime *life = lifetime_of(L);
    bw_lua_object *o = life->close_closed_quietly ? (bw_lua_object *)luaL_checkudata(L, 1, life->type_name)
                                                  : (bw_lua_object *)bw_lua_check_object(L, 1, life->type_name);
    bw_lua_object_close(o);
    drop_on_close(L, life);
    return 0;
}

/* __tostring: the type's description of a live handle, then ": ADDRESS";
 * "TYPE (closed): ADDRESS" once closed or when describe finds nothing. */
static int lifetime_tostring(lua_State *L)
{
    const bw_lua_lifetime *life = lifetime_of(L);
    const bw_lua_object *o = (const bw_lua_object *)luaL_checkudata(L, 1, life->type_name);
    if (o->closed || life->describe(L) == 0) {
        if (life->no_address) lua_pushfstring(L, "%s (closed)", life->type_name);
        else lua_pushfstring(L, "%s (closed): %p", life->type_name, (const void *)o);
    } else if (!life->no_address) {
        lua_pushfstring(L, ": %p", (const void *)o);
        lua_concat(L, 2);
    }
    return 1;
}

/* Set t[name] = closure(fn, life) for the table on top of the stack. */
static void set_lifetime_fn(lua_State *L, const char *name, lua_CFunction fn, const bw_lua_lifetime *life)
{
    lua_pushlightuserdata(L, (void *)(uintptr_t)life); /* read only: lifetime_of gives it back const */
    lua_pushcclosure(L, fn, 1);
    lua_setfield(L, -2, name);
}

void bw_lua_register_object_type(lua_State *L, const bw_lua_lifetime *life, const luaL_Reg *methods,
                                 const luaL_Reg *meta)
{
    BW_LUA_STACK_BEGIN(L);
    luaL_newmetatable(L, life->type_name); /* sets __name */
    if (meta) luaL_setfuncs(L, meta, 0);
    set_lifetime_fn(L, "__gc", lifetime_gc, life);
    set_lifetime_fn(L, "__close", lifetime_gc, life);
    if (life->describe) set_lifetime_fn(L, "__tostring", lifetime_tostring, life);
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    set_lifetime_fn(L, "close", lifetime_close, life);
    lua_setfield(L, -2, "__index");
    set_metatable_guard(L, life->type_name);
    lua_pop(L, 1);
    BW_LUA_STACK_END(L, 0);
}

/* ---- numbers and vectors ---- */

const char *bw_lua_to_float(double v, float *out)
{
    if (isnan(v)) return "is NaN";
    if (isinf(v)) return "is infinite";
    if (fabs(v) > (double)FLT_MAX) return "is too large for a float";
    *out = (float)v;
    return NULL;
}

float bw_lua_check_float(lua_State *L, int arg)
{
    double v = (double)luaL_checknumber(L, arg);
    float f = 0.0f;
    const char *why = bw_lua_to_float(v, &f);
    if (why) {
        lua_pushfstring(L, "number %s", why);
        luaL_argerror(L, arg, lua_tostring(L, -1));
    }
    return f;
}

float bw_lua_clamp_float(double v) { return bw_clamp_to_float(v); }

float bw_lua_check_time(lua_State *L, int arg) { return bw_lua_clamp_float((double)luaL_checknumber(L, arg)); }

float bw_lua_opt_float(lua_State *L, int arg, float def)
{
    return lua_isnoneornil(L, arg) ? def : bw_lua_check_float(L, arg);
}

static const char *const component_names[4] = {"x", "y", "z", "w"};

/* Descriptions are plain data: fields are read raw, so a metatable cannot
 * hand back values (names) that nothing anchors while C holds pointers. */
int bw_lua_raw_field(lua_State *L, int idx, const char *name)
{
    idx = lua_absindex(L, idx);
    lua_pushstring(L, name);
    return lua_rawget(L, idx);
}

static int raw_field_in(lua_State *L) /* (t, name as a light pointer) */
{
    lua_pushstring(L, (const char *)lua_touserdata(L, 2));
    lua_rawget(L, 1);
    return 1;
}

int bw_lua_raw_field_protected(lua_State *L, int idx, const char *name)
{
    idx = lua_absindex(L, idx);
    /* a light C function and a light pointer: pushing them allocates nothing */
    lua_pushcfunction(L, raw_field_in);
    lua_pushvalue(L, idx);
    lua_pushlightuserdata(L, (void *)(uintptr_t)name);
    if (lua_pcall(L, 2, 1, 0) != LUA_OK) {
        lua_pop(L, 1);
        lua_pushnil(L);
        return LUA_TNONE;
    }
    return lua_type(L, -1);
}

static int ref_in(lua_State *L)
{
    lua_pushinteger(L, luaL_ref(L, LUA_REGISTRYINDEX)); /* pops the value */
    return 1;
}

int bw_lua_ref_protected(lua_State *L)
{
    lua_pushcfunction(L, ref_in);
    lua_insert(L, -2);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        lua_pop(L, 1);
        return LUA_NOREF;
    }
    int ref = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    return ref;
}

/* "t, r, s, coverage": the accepted fields, for messages. */
static void list_names(const char *const *allowed, char *out, size_t out_size)
{
    size_t used = 0;
    out[0] = '\0';
    for (const char *const *a = allowed; *a && used < out_size; a++) {
        int n = snprintf(out + used, out_size - used, "%s%s", a == allowed ? "" : ", ", *a);
        if (n < 0) break;
        used += (size_t)n;
    }
}

/* Every key of the table at idx is one of `allowed` or an integer in
 * 1..list_len; else why names the first other key and, when `hint`, what
 * is accepted. */
static bool check_keys(lua_State *L, int idx, const char *const *allowed, lua_Integer list_len, bool hint,
                       char *why, size_t why_size)
{
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1); /* value */
        bool known = false;
        if (lua_type(L, -1) == LUA_TSTRING) {
            size_t len = 0;
            const char *key = lua_tolstring(L, -1, &len);
            /* by length too: "rig\0x" is not "rig" */
            for (const char *const *a = allowed; *a && !known; a++)
                known = strlen(*a) == len && memcmp(*a, key, len) == 0;
            if (!known)
                snprintf(why, why_size, "unknown field '%s'%s", key, strlen(key) < len ? " (with a NUL byte)" : "");
        } else if (lua_isinteger(L, -1)) {
            lua_Integer i = lua_tointeger(L, -1);
            known = i >= 1 && i <= list_len;
            if (!known) snprintf(why, why_size, "unexpected list entry [%lld]", (long long)i);
        } else {
            snprintf(why, why_size, "unexpected %s key", luaL_typename(L, -1));
        }
        if (!known && hint) {
            size_t used = strlen(why);
            char names[140];
            list_names(allowed, names, sizeof names);
            if (allowed[0]) snprintf(why + used, why_size - used, " (accepted fields: %s)", names);
            else
                snprintf(why + used, why_size - used, " (a list of %lld entr%s)", (long long)list_len,
                         list_len == 1 ? "y" : "ies");
        }
        if (!known) {
            lua_pop(L, 1); /* key */
            return false;
        }
    }
    return true;
}

void bw_lua_push_keys(lua_State *L, const char *const *keys, bool value)
{
    int n = 0;
    while (keys[n]) n++;
    lua_createtable(L, 0, n);
    for (int i = 0; i < n; i++) {
        lua_pushboolean(L, value);
        lua_setfield(L, -2, keys[i]);
    }
}

bool bw_lua_fields_in_set(lua_State *L, int t, int set)
{
    BW_LUA_STACK_BEGIN(L);
    t = lua_absindex(L, t);
    set = lua_absindex(L, set);
    bool known = true;
    lua_pushnil(L);
    while (known && lua_next(L, t)) {
        lua_pop(L, 1); /* value */
        lua_pushvalue(L, -1);
        known = lua_rawget(L, set) != LUA_TNIL;
        lua_pop(L, known ? 1 : 2); /* the lookup, and the key on a miss */
    }
    BW_LUA_STACK_END(L, 0);
    return known;
}

const char *const bw_lua_transform_fields[] = {"t", "r", "s", NULL};
const char *const bw_lua_joint_fields[] = {"t", "r", "s", "coverage", NULL};
static const char *const no_fields[] = {NULL};
static const char *const xyz_fields[] = {"x", "y", "z", NULL};
static const char *const xyzw_fields[] = {"x", "y", "z", "w", NULL};

static bool read_vector(lua_State *L, int idx, int n, const char *what, float *out, char *why, size_t why_size)
{
    if (lua_type(L, idx) != LUA_TTABLE) {
        snprintf(why, why_size, "%s must be a table {x, y, z%s}, not a %s", what, n == 4 ? ", w" : "",
                 luaL_typename(L, idx));
        return false;
    }
    /* Array form if [1] is present, else named fields; nothing else. */
    bool array = lua_rawgeti(L, idx, 1) != LUA_TNIL;
    lua_pop(L, 1);
    char bad_key[200];
    if (!check_keys(L, idx, array ? no_fields : n == 4 ? xyzw_fields : xyz_fields, array ? n : 0, true, bad_key,
                    sizeof bad_key)) {
        snprintf(why, why_size, "%s: %s", what, bad_key);
        return false;
    }
    float v[4] = {0, 0, 0, 0};
    for (int i = 0; i < n; i++) {
        int type = array ? lua_rawgeti(L, idx, i + 1) : bw_lua_raw_field(L, idx, component_names[i]);
        if (type != LUA_TNUMBER) {
            snprintf(why, why_size, "%s.%s %s", what, component_names[i],
                     type == LUA_TNIL ? "is missing" : "must be a number");
            lua_pop(L, 1);
            return false;
        }
        const char *bad = bw_lua_to_float((double)lua_tonumber(L, -1), &v[i]);
        lua_pop(L, 1);
        if (bad) {
            snprintf(why, why_size, "%s.%s %s", what, component_names[i], bad);
            return false;
        }
    }
    memcpy(out, v, sizeof(float) * (size_t)n);
    return true;
}

bool bw_lua_check_fields(lua_State *L, int idx, const char *const *allowed, char *why, size_t why_size)
{
    BW_LUA_STACK_BEGIN(L);
    bool ok = check_keys(L, lua_absindex(L, idx), allowed, 0, false, why, why_size);
    BW_LUA_STACK_END(L, 0);
    return ok;
}

bool bw_lua_check_fields_hint(lua_State *L, int idx, const char *const *allowed, char *why, size_t why_size)
{
    BW_LUA_STACK_BEGIN(L);
    bool ok = check_keys(L, lua_absindex(L, idx), allowed, 0, true, why, why_size);
    BW_LUA_STACK_END(L, 0);
    return ok;
}

bool bw_lua_check_list(lua_State *L, int idx, char *why, size_t why_size)
{
    BW_LUA_STACK_BEGIN(L);
    idx = lua_absindex(L, idx);
    bool ok = check_keys(L, idx, no_fields, (lua_Integer)lua_rawlen(L, idx), true, why, why_size);
    BW_LUA_STACK_END(L, 0);
    return ok;
}

static bool read_transform(lua_State *L, int idx, bw_transform *x, char *why, size_t why_size)
{
    bw_transform tmp = *x;
    bool ok = true;
    if (bw_lua_raw_field(L, idx, "t") != LUA_TNIL) ok = read_vector(L, lua_gettop(L), 3, "t", tmp.t, why, why_size);
    lua_pop(L, 1);
    if (!ok) return false;

    if (bw_lua_raw_field(L, idx, "r") != LUA_TNIL) {
        ok = read_vector(L, lua_gettop(L), 4, "r", tmp.r, why, why_size);
        if (ok && tmp.r[0] == 0 && tmp.r[1] == 0 && tmp.r[2] == 0 && tmp.r[3] == 0) {
            snprintf(why, why_size, "r is a zero quaternion");
            ok = false;
        }
    }
    lua_pop(L, 1);
    if (!ok) return false;

    int type = bw_lua_raw_field(L, idx, "s");
    if (type == LUA_TNUMBER) {
        float s = 0.0f;
        const char *bad = bw_lua_to_float((double)lua_tonumber(L, -1), &s);
        if (bad) {
            snprintf(why, why_size, "s %s", bad);
            ok = false;
        } else {
            tmp.s[0] = tmp.s[1] = tmp.s[2] = s;
        }
    } else if (type != LUA_TNIL) {
        ok = read_vector(L, lua_gettop(L), 3, "s", tmp.s, why, why_size);
    }
    lua_pop(L, 1);
    if (ok) *x = tmp;
    return ok;
}

bool bw_lua_read_transform(lua_State *L, int idx, bw_transform *x, char *why, size_t why_size)
{
    BW_LUA_STACK_BEGIN(L);
    bool ok = read_transform(L, lua_absindex(L, idx), x, why, why_size);
    BW_LUA_STACK_END(L, 0);
    return ok;
}

static void collect_warning(void *user, bw_log_level level, const char *message)
{
    bw_lua_warnings *w = (bw_lua_warnings *)user;
    (void)level; /* creators only warn; every level is kept alike */
    size_t n = strlen(message) + 1;
    if (n > sizeof w->text - w->used) {
        w->dropped++;
        return;
    }
    memcpy(w->text + w->used, message, n);
    w->used += n;
    w->count++;
}

bw_lua_warnings *bw_lua_push_warnings(lua_State *L, bw_logger *logger)
{
    bw_lua_warnings *w = (bw_lua_warnings *)lua_newuserdatauv(L, sizeof *w, 0);
    w->used = 0;
    w->count = w->dropped = 0;
    logger->fn = collect_warning;
    logger->user = w;
    return w;
}

void bw_lua_push_warning_list(lua_State *L, const bw_lua_warnings *w, const char *prefix)
{
    if (!prefix) prefix = "";
    lua_createtable(L, w->count + (w->dropped ? 1 : 0), 0);
    const char *p = w->text;
    for (int i = 0; i < w->count; i++) {
        lua_pushfstring(L, "%s%s", prefix, p);
        lua_rawseti(L, -2, i + 1);
        p += strlen(p) + 1;
    }
    if (w->dropped) {
        lua_pushfstring(L, "%s(%d more warning%s not kept)", prefix, w->dropped, w->dropped == 1 ? "" : "s");
        lua_rawseti(L, -2, w->count + 1);
    }
}

bw_lua_warnings *bw_lua_begin_made_warnings(lua_State *L, bw_logger *logger)
{
    luaL_where(L, 1);
    return bw_lua_push_warnings(L, logger);
}

void bw_lua_keep_made_warnings(lua_State *L, int idx, int slot)
{
    idx = lua_absindex(L, idx);
    const bw_lua_warnings *w = (const bw_lua_warnings *)lua_touserdata(L, -1);
    if (w->count || w->dropped) {
        bw_lua_push_warning_list(L, w, lua_tostring(L, -2));
        lua_setiuservalue(L, idx, slot);
    }
    lua_pop(L, 2); /* the buffer, the call site */
}

void bw_lua_push_made_warnings(lua_State *L, int idx)
{
    BW_LUA_STACK_BEGIN(L);
    idx = lua_absindex(L, idx);
    const bw_lua_object *o = (const bw_lua_object *)lua_touserdata(L, idx);
    const bool rig = luaL_testudata(L, idx, BW_LUA_RIG) != NULL;
    if (!o->borrowed) {
        lua_getiuservalue(L, idx, rig ? BW_LUA_UV_RIG_WARNINGS : BW_LUA_UV_CLIP_WARNINGS);
    } else {
        lua_getiuservalue(L, idx, rig ? BW_LUA_UV_RIG_ASSET : BW_LUA_UV_CLIP_ASSET); /* the owner */
        if (luaL_testudata(L, -1, BW_LUA_ASSET)) {
            lua_getiuservalue(L, -1, BW_LUA_UV_ASSET_CACHE);
            lua_getfield(L, -1, "warnings");
            lua_replace(L, -3);
            lua_pop(L, 1);
        } else {
            /* a shared twin's owner owns its object: one step */
            lua_getiuservalue(L, -1, rig ? BW_LUA_UV_RIG_WARNINGS : BW_LUA_UV_CLIP_WARNINGS);
            lua_remove(L, -2);
        }
    }
    BW_LUA_STACK_END(L, 1);
}

void bw_lua_push_list_copy(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    lua_newtable(L);
    if (lua_type(L, idx) != LUA_TTABLE) return;
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, i);
        lua_rawseti(L, -2, i);
    }
}

void bw_lua_push_floats(lua_State *L, const float *v, int n)
{
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushnumber(L, (lua_Number)v[i]);
        lua_rawseti(L, -2, i + 1);
    }
}

void bw_lua_push_transform(lua_State *L, const bw_transform *x)
{
    lua_createtable(L, 0, 4);
    bw_lua_push_floats(L, x->t, 3);
    lua_setfield(L, -2, "t");
    bw_lua_push_floats(L, x->r, 4);
    lua_setfield(L, -2, "r");
    bw_lua_push_floats(L, x->s, 3);
    lua_setfield(L, -2, "s");
}

void bw_lua_push_error(lua_State *L, const char *context, bw_result result, const bw_error *err)
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    if (context) {
        luaL_addstring(&b, context);
        luaL_addstring(&b, ": ");
    }
    if (err && err->message[0]) {
        /* The core's messages may already start with the file name; only
         * prefix the location when the message does not carry it. */
        if (err->file[0] && strncmp(err->message, err->file, strlen(err->file)) != 0) {
            luaL_addstring(&b, err->file);
            if (err->line > 0) {
                char line[32];
                snprintf(line, sizeof line, ":%d", err->line);
                luaL_addstring(&b, line);
            }
            luaL_addstring(&b, ": ");
        }
        if (err->where[0] && !strstr(err->message, err->where)) {
            luaL_addstring(&b, err->where);
            luaL_addstring(&b, ": ");
        }
        luaL_addstring(&b, err->message);
    } else {
        luaL_addstring(&b, bw_result_name(result));
    }
    luaL_pushresult(&b);
}

/* ---- joint and curve arguments ---- */

/* A 1-based index argument (2.0 counts as 2, as in luaL_checkinteger)
 * for one of `count` joints or curves; returns it 0-based. */
static int check_index(lua_State *L, int arg, const char *what, int count)
{
    int isint = 0;
    lua_Integer i = lua_tointegerx(L, arg, &isint);
    if (!isint || lua_type(L, arg) != LUA_TNUMBER)
        return luaL_typeerror(L, arg, lua_pushfstring(L, "%s index or name", what));
    if (i < 1 || i > count)
        return luaL_argerror(L, arg,
                             lua_pushfstring(L, "%s index %I out of range 1..%d", what, (LUAI_UACINT)i, count));
    return (int)(i - 1);
}

int bw_lua_check_joint(lua_State *L, int arg, const bw_rig *rig)
{
    int count = bw_rig_joint_count(rig);
    if (lua_type(L, arg) == LUA_TSTRING) {
        const char *name = lua_tostring(L, arg);
        int j = bw_rig_find_by_name(rig, name);
        if (j == BW_RIG_AMBIGUOUS)
            return luaL_argerror(L, arg, lua_pushfstring(L, "joint name '%s' is ambiguous; use an index", name));
        if (j < 0) return luaL_argerror(L, arg, lua_pushfstring(L, "no joint named '%s'", name));
        return j;
    }
    return check_index(L, arg, "joint", count);
}

int bw_lua_check_curve(lua_State *L, int arg, const bw_rig *rig)
{
    int count = bw_rig_curve_count(rig);
    if (lua_type(L, arg) == LUA_TSTRING) {
        const char *name = lua_tostring(L, arg);
        int c = bw_rig_find_curve(rig, name);
        if (c < 0) return luaL_argerror(L, arg, lua_pushfstring(L, "no curve named '%s'", name));
        return c;
    }
    return check_index(L, arg, "curve", count);
}

/* ---- the allocator ---- */

static const char allocator_key[] = "blendwerk.allocator";

/* lua_Alloc and bw_alloc_fn have the same contract (nsize 0 frees), so
 * the state's allocator serves the core directly. */
static void register_allocator(lua_State *L)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, allocator_key) == LUA_TUSERDATA) {
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    bw_allocator *a = (bw_allocator *)lua_newuserdatauv(L, sizeof *a, 0);
    void *ud = NULL;
    a->fn = lua_getallocf(L, &ud);
    a->user = ud;
    lua_setfield(L, LUA_REGISTRYINDEX, allocator_key);
}

const bw_allocator *bw_lua_allocator(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, allocator_key);
    const bw_allocator *a = (const bw_allocator *)lua_touserdata(L, -1);
    lua_pop(L, 1); /* the registry keeps it */
    return a;      /* NULL (malloc) if the module was never opened here */
}

bw_allocator bw_lua_allocator_value(lua_State *L)
{
    const bw_allocator *a = bw_lua_allocator(L);
    bw_allocator v = {NULL, NULL}; /* fn NULL: malloc */
    return a ? *a : v;
}

/* ---- module-level functions ---- */

/* blendwerk.ease(style, dir, u) -> eased u */
static int l_ease(lua_State *L)
{
    const char *style_name = luaL_checkstring(L, 1);
    const char *dir_name = luaL_optstring(L, 2, "in");
    double u = (double)luaL_checknumber(L, 3);
    int style = bw_ease_style_find(style_name);
    if (style < 0) return luaL_argerror(L, 1, lua_pushfstring(L, "unknown easing style '%s'", style_name));
    int dir = bw_ease_dir_find(dir_name);
    if (dir < 0) return luaL_argerror(L, 2, lua_pushfstring(L, "unknown easing direction '%s'", dir_name));
    float uf = 0.0f;
    if (bw_lua_to_float(u, &uf)) uf = isnan(u) ? 0.0f : (u > 0 ? 1.0f : 0.0f); /* the core clamps anyway */
    lua_pushnumber(L, (lua_Number)bw_ease((bw_ease_style)style, (bw_ease_dir)dir, uf));
    return 1;
}

/* blendwerk.easing_styles() -> a new list of the style names ease takes,
 * in bw_ease_style order (bw_ease_style_name: the one list, easing.c) */
static int l_easing_styles(lua_State *L)
{
    lua_createtable(L, BW_EASE_STYLE_COUNT, 0);
    for (int i = 0; i < BW_EASE_STYLE_COUNT; i++) {
        lua_pushstring(L, bw_ease_style_name((bw_ease_style)i));
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* blendwerk.lerp_angle(a, b, u) -> radians along the shortest arc */
static int l_lerp_angle(lua_State *L)
{
    float a = bw_lua_check_float(L, 1);
    float b = bw_lua_check_float(L, 2);
    float u = bw_lua_check_float(L, 3);
    lua_pushnumber(L, (lua_Number)bw_lerp_angle(a, b, u));
    return 1;
}

#define CHECK_FIELDS_MAX 32

/* blendwerk.check_fields(t, names, what [, level]) -> t: raises "what:
 * unknown field 'x' (accepted fields: a, b)" when t has a key that is not
 * one of the list `names`, positioned like error(message, level) (1, the
 * default: the line that called check_fields; 2: that function's caller);
 * the check the C descriptions use, for scripts' own tables. */
static int l_check_fields(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    const char *what = luaL_checkstring(L, 3);
    lua_Integer level = luaL_optinteger(L, 4, 1);
    luaL_argcheck(L, level >= 1 && level <= 1000, 4, "a level in [1, 1000]");
    const char *names[CHECK_FIELDS_MAX + 1];
    lua_Integer n = luaL_len(L, 2);
    if (n > CHECK_FIELDS_MAX) return luaL_error(L, "blendwerk.check_fields: at most %d names", CHECK_FIELDS_MAX);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, 2, i);
        if (!bw_lua_is_name(L, -1)) return luaL_error(L, "blendwerk.check_fields: names[%d] is not a name", (int)i);
        names[i - 1] = lua_tostring(L, -1); /* anchored by the list at 2 */
        lua_pop(L, 1);
    }
    names[n] = NULL;
    char why[256];
    if (!bw_lua_check_fields_hint(L, 1, names, why, sizeof why)) {
        luaL_where(L, (int)level);
        lua_pushfstring(L, "%s: %s", what, why);
        lua_concat(L, 2);
        return lua_error(L);
    }
    lua_settop(L, 1);
    return 1;
}

static const luaL_Reg module_functions[] = {
    {"check_fields", l_check_fields},
    {"ease", l_ease},
    {"easing_styles", l_easing_styles},
    {"lerp_angle", l_lerp_angle},
    {NULL, NULL},
};

#if defined(__SANITIZE_ADDRESS__)
#define BW_LUA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BW_LUA_ASAN 1
#endif
#endif
#ifndef BW_LUA_ASAN
#define BW_LUA_ASAN 0
#endif

int luaopen_blendwerk(lua_State *L)
{
    luaL_checkversion(L);
    register_allocator(L);
    luaL_newlib(L, module_functions);
    lua_pushliteral(L, BW_VERSION_STRING);
    lua_setfield(L, -2, "version");
    /* How this module was built; lets a test that loads build/blendwerk.so
     * into another interpreter preload the sanitizer runtime it needs. */
    lua_createtable(L, 0, 1);
    lua_pushboolean(L, BW_LUA_ASAN);
    lua_setfield(L, -2, "asan");
    lua_setfield(L, -2, "build");

    bw_lua_open_rig(L);
    bw_lua_open_clip(L);
    bw_lua_open_binding(L);
    bw_lua_open_pose(L);
    bw_lua_open_track_set(L);
    bw_lua_open_asset(L);
    bw_lua_open_blendspace(L);
    bw_lua_open_blendtree(L);
    bw_lua_open_rootmotion(L);
    bw_lua_open_graph(L);
    bw_lua_open_animator(L);
    bw_lua_open_control(L);
    bw_lua_open_controls(L);
    return 1;
}
