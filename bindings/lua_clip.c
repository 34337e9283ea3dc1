/* lua_clip.c - blendwerk.Clip: clips compiled from Lua tables in the
 * keyframe-sequence format (bw_clip_compile_sequence), or borrowed from a
 * loaded Asset; queries, track sampling and clip:sample(rig, time).
 *
 *   blendwerk.clip{ name=, length=, loop=, id=, revision=,
 *     joints  = { {joint=, parent=, keys = { {time=, t=, r=, s=, weight=,
 *                                             mask=, ease=, dir=}, ... }}, ... },
 *     curves  = { {name=, angle=, keys = { {time=, value=, ease=, dir=}, ... }}, ... },
 *     markers = { {name=, time=}, ... } }
 *   -> Clip | nil, message
 *
 * clip:warnings() lists what the core warned of while compiling it
 * (rotation keys that were not unit length, stored normalized), each
 * message after the "file:line: " of the blendwerk.clip call.
 *
 * The binding validates everything itself first so that the message can
 * name the clip, the joint and the key as the script wrote them
 * ("clip 'walk': joint 'arm' key 3: time is NaN"); whatever the core still
 * rejects comes back with the clip's name in front. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lua_support.h"

static void destroy_clip(bw_lua_object *o)
{
    bw_lua_clip *c = (bw_lua_clip *)o;
    /* An owned clip has this one handle and dies here: drop its cached
     * bindings. A borrowed handle hands the cache on to its owner, which is
     * destroyed after it: a shared twin (bw_lua_push_shared) to the owned
     * Clip, an Asset's clip to the Asset (another handle for the same clip
     * may follow this one and share the entries, so they go with the
     * Asset). */
    if (c->owned && c->bindings && c->clip) bw_binding_cache_remove_clip(c->bindings, c->clip);
    bw_lua_object *from = c->hdr.deps[0];
    if (!c->owned && c->bindings && from && strcmp(from->type_name, BW_LUA_CLIP) == 0)
        ((bw_lua_clip *)from)->bindings = c->bindings;
    if (!c->owned && c->bindings && from && strcmp(from->type_name, BW_LUA_ASSET) == 0)
        ((bw_lua_asset *)from)->bindings = c->bindings;
    if (c->owned) bw_clip_destroy(c->clip);
    c->clip = NULL;
}

bw_lua_clip *bw_lua_push_clip(lua_State *L, bw_clip *clip, int owner_idx)
{
    if (owner_idx) owner_idx = lua_absindex(L, owner_idx);
    bw_lua_clip *c = (bw_lua_clip *)bw_lua_new_object(L, sizeof *c, 3, BW_LUA_CLIP, destroy_clip);
    c->clip = clip;
    if (owner_idx) {
        c->hdr.borrowed = true;
        bw_lua_object_use(&c->hdr, (bw_lua_object *)lua_touserdata(L, owner_idx));
        lua_pushvalue(L, owner_idx);
        lua_setiuservalue(L, -2, BW_LUA_UV_CLIP_ASSET);
    } else {
        c->owned = true;
    }
    return c;
}

bw_lua_clip *bw_lua_check_clip(lua_State *L, int arg)
{
    return (bw_lua_clip *)bw_lua_check_object(L, arg, BW_LUA_CLIP);
}

/* ---- parsing ---- */

typedef struct parse {
    lua_State *L;
    char clip[160];   /* "clip 'walk'" */
    char where[200];  /* "joint 'arm' key 3" */
    char why[384];
} parse;

static const char *const clip_fields[] = {"name", "length", "loop", "id", "revision", "joints", "curves", "markers",
                                          NULL};
static const char *const joint_fields[] = {"joint", "parent", "keys", NULL};
static const char *const key_fields[] = {"time", "t", "r", "s", "weight", "mask", "ease", "dir", NULL};
static const char *const curve_fields[] = {"name", "angle", "keys", NULL};
static const char *const curve_key_fields[] = {"time", "value", "ease", "dir", NULL};
static const char *const marker_fields[] = {"name", "time", NULL};

/* Push nil, "clip 'walk': <where>: <why>"; returns 2 for the caller. */
static int fail(parse *p)
{
    lua_State *L = p->L;
    lua_pushnil(L);
    if (p->where[0]) lua_pushfstring(L, "%s: %s: %s", p->clip, p->where, p->why);
    else lua_pushfstring(L, "%s: %s", p->clip, p->why);
    return 2;
}

/* Read a number field of the table at idx into *out. `required` decides
 * whether nil is an error; returns false (why filled) on failure, and
 * sets *present. */
static bool read_number(parse *p, int idx, const char *field, bool required, float *out, bool *present)
{
    lua_State *L = p->L;
    int type = bw_lua_raw_field(L, idx, field);
    bool ok = true;
    if (present) *present = type != LUA_TNIL;
    if (type == LUA_TNIL) {
        if (required) {
            snprintf(p->why, sizeof p->why, "%s is missing", field);
            ok = false;
        }
    } else if (type != LUA_TNUMBER) {
        snprintf(p->why, sizeof p->why, "%s must be a number, not a %s", field, luaL_typename(L, -1));
        ok = false;
    } else {
        const char *bad = bw_lua_to_float((double)lua_tonumber(L, -1), out);
        if (bad) {
            snprintf(p->why, sizeof p->why, "%s %s", field, bad);
            ok = false;
        }
    }
    lua_pop(L, 1);
    return ok;
}

/* ease= / dir= of a key; absent means linear / in (the core's defaults). */
static bool read_easing(parse *p, int idx, bw_ease_style *style, bw_ease_dir *dir)
{
    lua_State *L = p->L;
    *style = BW_EASE_LINEAR;
    *dir = BW_EASE_IN;
    int type = bw_lua_raw_field(L, idx, "ease");
    if (type != LUA_TNIL) {
        int s = type == LUA_TSTRING ? bw_ease_style_find(lua_tostring(L, -1)) : -1;
        if (s < 0) {
            if (type == LUA_TSTRING) snprintf(p->why, sizeof p->why, "unknown ease '%s'", lua_tostring(L, -1));
            else snprintf(p->why, sizeof p->why, "ease must be a string such as \"cubic\"");
            lua_pop(L, 1);
            return false;
        }
        *style = (bw_ease_style)s;
    }
    lua_pop(L, 1);
    type = bw_lua_raw_field(L, idx, "dir");
    if (type != LUA_TNIL) {
        int d = type == LUA_TSTRING ? bw_ease_dir_find(lua_tostring(L, -1)) : -1;
        if (d < 0) {
            if (type == LUA_TSTRING)
                snprintf(p->why, sizeof p->why, "unknown dir '%s' (in, out or in_out)", lua_tostring(L, -1));
            else snprintf(p->why, sizeof p->why, "dir must be \"in\", \"out\" or \"in_out\"");
            lua_pop(L, 1);
            return false;
        }
        *dir = (bw_ease_dir)d;
    }
    lua_pop(L, 1);
    return true;
}

/* Key times must be strictly increasing within one list. */
static bool check_order(parse *p, int k, float time, float prev)
{
    if (k == 0 || time > prev) return true;
    if (time == prev)
        snprintf(p->why, sizeof p->why, "time %g repeats key %d's time (duplicate key time)", (double)time, k);
    else
        snprintf(p->why, sizeof p->why, "time %g is before key %d's time %g (keys must be sorted by time)",
                 (double)time, k, (double)prev);
    return false;
}

/* Length of the list field `field` of the table at idx (pushed; caller
 * pops), or -1 with why filled when it is neither nil nor a table. */
static lua_Integer list_field(parse *p, int idx, const char *field)
{
    int type = bw_lua_raw_field(p->L, idx, field);
    if (type == LUA_TNIL) return 0;
    if (type != LUA_TTABLE) {
        snprintf(p->why, sizeof p->why, "%s must be a list of tables, not a %s", field, luaL_typename(p->L, -1));
        return -1;
    }
    char why[sizeof p->why - 64];
    if (!bw_lua_check_list(p->L, -1, why, sizeof why)) {
        snprintf(p->why, sizeof p->why, "%s: %s", field, why);
        return -1;
    }
    return (lua_Integer)lua_rawlen(p->L, -1);
}

#define MAX_ITEMS (1 << 24)

/* Offsets of the scratch block's parts, aligned for any of them. */
static size_t align_up(size_t n) { return (n + 15u) & ~(size_t)15u; }

static int l_clip_new(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    parse p;
    memset(&p, 0, sizeof p);
    p.L = L;

    /* name first, so that every later message can carry it */
    int nt = bw_lua_raw_field(L, 1, "name"); /* 2 */
    if (nt == LUA_TSTRING) snprintf(p.clip, sizeof p.clip, "clip '%s'", lua_tostring(L, 2));
    else snprintf(p.clip, sizeof p.clip, "clip");
    if (nt != LUA_TSTRING && nt != LUA_TNIL) {
        snprintf(p.why, sizeof p.why, "name must be a string");
        return fail(&p);
    }
    if (!bw_lua_check_fields_hint(L, 1, clip_fields, p.why, sizeof p.why)) return fail(&p);

    bw_sequence_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.name = nt == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
    bool present = false;
    if (!read_number(&p, 1, "length", false, &desc.length, &present)) return fail(&p);
    if (present && desc.length < 0) {
        snprintf(p.why, sizeof p.why, "length %g is negative", (double)desc.length);
        return fail(&p);
    }
    int lt = bw_lua_raw_field(L, 1, "loop");
    if (lt != LUA_TNIL && lt != LUA_TBOOLEAN) {
        snprintf(p.why, sizeof p.why, "loop must be a boolean");
        return fail(&p);
    }
    desc.loop = lua_toboolean(L, -1);
    lua_pop(L, 1);
    int it = bw_lua_raw_field(L, 1, "id");
    if (it != LUA_TNIL && (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 0)) {
        snprintf(p.why, sizeof p.why, "id must be a non-negative integer");
        return fail(&p);
    }
    desc.sequence_id = (uint64_t)lua_tointeger(L, -1);
    lua_pop(L, 1);
    int rt = bw_lua_raw_field(L, 1, "revision");
    if (rt != LUA_TNIL && (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 0 || lua_tointeger(L, -1) > UINT32_MAX)) {
        snprintf(p.why, sizeof p.why, "revision must be a non-negative 32-bit integer");
        return fail(&p);
    }
    desc.revision = (uint32_t)lua_tointeger(L, -1);
    lua_pop(L, 1);

    lua_Integer joint_count = list_field(&p, 1, "joints"); /* 3 */
    if (joint_count < 0) return fail(&p);
    lua_Integer curve_count = list_field(&p, 1, "curves"); /* 4 */
    if (curve_count < 0) return fail(&p);
    lua_Integer marker_count = list_field(&p, 1, "markers"); /* 5 */
    if (marker_count < 0) return fail(&p);
    const int joints_idx = 3, curves_idx = 4, markers_idx = 5;

    /* Pass 1: shapes and sizes. */
    lua_Integer key_total = 0, curve_key_total = 0;
    for (int pass = 0; pass < 2; pass++) {
        int list = pass == 0 ? joints_idx : curves_idx;
        lua_Integer n = pass == 0 ? joint_count : curve_count;
        for (lua_Integer i = 1; i <= n; i++) {
            snprintf(p.where, sizeof p.where, "%s %lld", pass == 0 ? "joint" : "curve", (long long)i);
            if (lua_rawgeti(L, list, i) != LUA_TTABLE) {
                snprintf(p.why, sizeof p.why, "must be a table");
                return fail(&p);
            }
            lua_Integer k = list_field(&p, -1, "keys");
            if (k < 0) return fail(&p);
            if (k == 0) {
                snprintf(p.why, sizeof p.why, "keys is empty or missing");
                return fail(&p);
            }
            if (pass == 0) key_total += k;
            else curve_key_total += k;
            lua_pop(L, 2);
            if (key_total > MAX_ITEMS || curve_key_total > MAX_ITEMS) {
                p.where[0] = 0;
                snprintf(p.why, sizeof p.why, "too many keys");
                return fail(&p);
            }
        }
    }
    p.where[0] = 0;
    if (joint_count > MAX_ITEMS || curve_count > MAX_ITEMS || marker_count > MAX_ITEMS) {
        snprintf(p.why, sizeof p.why, "too many entries");
        return fail(&p);
    }

    /* One scratch block (a userdata, so any error frees it). */
    size_t off_jk = 0;
    size_t off_keys = align_up(off_jk + sizeof(bw_joint_keys) * (size_t)joint_count);
    size_t off_ck = align_up(off_keys + sizeof(bw_joint_key) * (size_t)key_total);
    size_t off_times = align_up(off_ck + sizeof(bw_curve_keys) * (size_t)curve_count);
    size_t off_values = align_up(off_times + sizeof(float) * (size_t)curve_key_total);
    size_t off_styles = align_up(off_values + sizeof(float) * (size_t)curve_key_total);
    size_t off_dirs = align_up(off_styles + (size_t)curve_key_total);
    size_t off_markers = align_up(off_dirs + (size_t)curve_key_total);
    size_t total = align_up(off_markers + sizeof(bw_marker_desc) * (size_t)marker_count) + 16;
    unsigned char *block = (unsigned char *)lua_newuserdatauv(L, total, 0); /* 6 */
    memset(block, 0, total);
    const int scratch_top = lua_gettop(L);
    bw_joint_keys *jks = (bw_joint_keys *)(block + off_jk);
    bw_joint_key *keys = (bw_joint_key *)(block + off_keys);
    bw_curve_keys *cks = (bw_curve_keys *)(block + off_ck);
    float *ctimes = (float *)(block + off_times);
    float *cvalues = (float *)(block + off_values);
    unsigned char *cstyles = block + off_styles;
    unsigned char *cdirs = block + off_dirs;
    bw_marker_desc *markers = (bw_marker_desc *)(block + off_markers);

    lua_newtable(L); /* scratch_top + 1: "parent\0joint" -> entry, to catch repeats */
    const int seen = lua_gettop(L);

    /* Pass 2: joints. Names stay anchored by the description table. */
    bw_joint_key *kp = keys;
    for (lua_Integer i = 1; i <= joint_count; i++) {
        lua_rawgeti(L, joints_idx, i);
        const int e = lua_gettop(L);
        snprintf(p.where, sizeof p.where, "joint %lld", (long long)i);
        if (bw_lua_raw_field(L, e, "joint") != LUA_TSTRING || !bw_lua_is_name(L, -1)) {
            snprintf(p.why, sizeof p.why, "joint must be a non-empty string without NUL bytes (the joint's name)");
            return fail(&p);
        }
        bw_joint_keys *jk = &jks[i - 1];
        jk->joint = lua_tostring(L, -1);
        lua_pop(L, 1);
        snprintf(p.where, sizeof p.where, "joint '%s'", jk->joint);
        if (!bw_lua_check_fields_hint(L, e, joint_fields, p.why, sizeof p.why)) return fail(&p);
        int pt = bw_lua_raw_field(L, e, "parent");
        if (pt == LUA_TSTRING) jk->parent = lua_tostring(L, -1);
        else if (pt == LUA_TBOOLEAN && !lua_toboolean(L, -1)) jk->parent = ""; /* false: a root */
        else if (pt == LUA_TNIL) jk->parent = NULL;                              /* unknown: bind by name */
        else {
            snprintf(p.why, sizeof p.why, "parent must be a joint name, \"\" or false for a root, or nil");
            return fail(&p);
        }
        lua_pop(L, 1);
        /* One entry per joint: a repeat would split its keys over two
         * entries that both drive the same channels. */
        lua_pushstring(L, jk->parent ? jk->parent : "\001");
        lua_pushliteral(L, "\0");
        lua_pushstring(L, jk->joint);
        lua_concat(L, 3);
        lua_pushvalue(L, -1);
        if (lua_rawget(L, seen) == LUA_TNUMBER) {
            snprintf(p.why, sizeof p.why, "listed twice (joint entries %lld and %lld); put its keys in one entry",
                     (long long)lua_tointeger(L, -1), (long long)i);
            return fail(&p);
        }
        lua_pop(L, 1);
        lua_pushinteger(L, i);
        lua_rawset(L, seen);
        bw_lua_raw_field(L, e, "keys");
        const int kl = lua_gettop(L);
        lua_Integer n = (lua_Integer)lua_rawlen(L, kl);
        jk->keys = kp;
        jk->key_count = (int)n;
        for (lua_Integer k = 1; k <= n; k++, kp++) {
            snprintf(p.where, sizeof p.where, "joint '%s' key %lld", jk->joint, (long long)k);
            if (lua_rawgeti(L, kl, k) != LUA_TTABLE) {
                snprintf(p.why, sizeof p.why, "must be a table");
                return fail(&p);
            }
            const int ki = lua_gettop(L);
            if (!bw_lua_check_fields_hint(L, ki, key_fields, p.why, sizeof p.why)) return fail(&p);
            if (!read_number(&p, ki, "time", true, &kp->time, NULL)) return fail(&p);
            if (!check_order(&p, (int)k - 1, kp->time, k > 1 ? kp[-1].time : 0.0f)) return fail(&p);
            /* t / r / s: only the present ones are keyed */
            kp->r[3] = 1.0f;
            kp->s[0] = kp->s[1] = kp->s[2] = 1.0f;
            kp->pose_weight = 1.0f;
            bw_transform x = bw_transform_identity;
            if (!bw_lua_read_transform(L, ki, &x, p.why, sizeof p.why)) return fail(&p);
            if (bw_lua_raw_field(L, ki, "t") != LUA_TNIL) kp->flags |= BW_KEY_T;
            if (bw_lua_raw_field(L, ki, "r") != LUA_TNIL) kp->flags |= BW_KEY_R;
            if (bw_lua_raw_field(L, ki, "s") != LUA_TNIL) kp->flags |= BW_KEY_S;
            lua_pop(L, 3);
            memcpy(kp->t, x.t, sizeof kp->t);
            memcpy(kp->r, x.r, sizeof kp->r);
            memcpy(kp->s, x.s, sizeof kp->s);
            bool has = false;
            if (!read_number(&p, ki, "weight", false, &kp->pose_weight, &has)) return fail(&p);
            if (has) kp->flags |= BW_KEY_POSE_WEIGHT;
            if (!read_number(&p, ki, "mask", false, &kp->mask_weight, &has)) return fail(&p);
            if (has) kp->flags |= BW_KEY_MASK_WEIGHT;
            if (!read_easing(&p, ki, &kp->style, &kp->dir)) return fail(&p);
            lua_settop(L, kl);
        }
        lua_settop(L, seen);
    }
    lua_settop(L, scratch_top);

    /* Curves. */
    int ck_at = 0;
    for (lua_Integer i = 1; i <= curve_count; i++) {
        lua_rawgeti(L, curves_idx, i);
        const int e = lua_gettop(L);
        snprintf(p.where, sizeof p.where, "curve %lld", (long long)i);
        if (bw_lua_raw_field(L, e, "name") != LUA_TSTRING || !bw_lua_is_name(L, -1)) {
            snprintf(p.why, sizeof p.why, "name must be a non-empty string without NUL bytes");
            return fail(&p);
        }
        bw_curve_keys *ck = &cks[i - 1];
        ck->name = lua_tostring(L, -1);
        lua_pop(L, 1);
        snprintf(p.where, sizeof p.where, "curve '%s'", ck->name);
        if (!bw_lua_check_fields_hint(L, e, curve_fields, p.why, sizeof p.why)) return fail(&p);
        int at = bw_lua_raw_field(L, e, "angle");
        if (at != LUA_TNIL && at != LUA_TBOOLEAN) {
            snprintf(p.why, sizeof p.why, "angle must be a boolean");
            return fail(&p);
        }
        ck->angle = lua_toboolean(L, -1);
        lua_pop(L, 1);
        bw_lua_raw_field(L, e, "keys");
        const int kl = lua_gettop(L);
        lua_Integer n = (lua_Integer)lua_rawlen(L, kl);
        ck->times = ctimes + ck_at;
        ck->values = cvalues + ck_at;
        ck->styles = cstyles + ck_at;
        ck->dirs = cdirs + ck_at;
        ck->key_count = (int)n;
        for (lua_Integer k = 1; k <= n; k++, ck_at++) {
            snprintf(p.where, sizeof p.where, "curve '%s' key %lld", ck->name, (long long)k);
            if (lua_rawgeti(L, kl, k) != LUA_TTABLE) {
                snprintf(p.why, sizeof p.why, "must be a table");
                return fail(&p);
            }
            const int ki = lua_gettop(L);
            if (!bw_lua_check_fields_hint(L, ki, curve_key_fields, p.why, sizeof p.why)) return fail(&p);
            if (!read_number(&p, ki, "time", true, &ctimes[ck_at], NULL)) return fail(&p);
            if (!check_order(&p, (int)k - 1, ctimes[ck_at], k > 1 ? ctimes[ck_at - 1] : 0.0f)) return fail(&p);
            if (!read_number(&p, ki, "value", true, &cvalues[ck_at], NULL)) return fail(&p);
            bw_ease_style style;
            bw_ease_dir dir;
            if (!read_easing(&p, ki, &style, &dir)) return fail(&p);
            cstyles[ck_at] = (unsigned char)style;
            cdirs[ck_at] = (unsigned char)dir;
            lua_settop(L, kl);
        }
        lua_settop(L, scratch_top);
    }

    /* Markers. */
    for (lua_Integer i = 1; i <= marker_count; i++) {
        snprintf(p.where, sizeof p.where, "marker %lld", (long long)i);
        if (lua_rawgeti(L, markers_idx, i) != LUA_TTABLE) {
            snprintf(p.why, sizeof p.why, "must be a table {name=, time=}");
            return fail(&p);
        }
        const int e = lua_gettop(L);
        if (bw_lua_raw_field(L, e, "name") != LUA_TSTRING) {
            snprintf(p.why, sizeof p.why, "name must be a string");
            return fail(&p);
        }
        markers[i - 1].name = lua_tostring(L, -1);
        snprintf(p.where, sizeof p.where, "marker %lld '%s'", (long long)i, markers[i - 1].name);
        lua_pop(L, 1);
        if (!bw_lua_check_fields_hint(L, e, marker_fields, p.why, sizeof p.why)) return fail(&p);
        if (!read_number(&p, e, "time", true, &markers[i - 1].time, NULL)) return fail(&p);
        lua_settop(L, scratch_top);
    }
    p.where[0] = 0;

    desc.joints = jks;
    desc.joint_count = (int)joint_count;
    desc.curves = cks;
    desc.curve_count = (int)curve_count;
    desc.markers = markers;
    desc.marker_count = (int)marker_count;
    desc.allocator = bw_lua_allocator_value(L);

    bw_lua_clip *c = bw_lua_push_clip(L, NULL, 0); /* the empty handle first */
    const int handle = lua_gettop(L);
    bw_lua_begin_made_warnings(L, &desc.logger);
    bw_error err;
    memset(&err, 0, sizeof err);
    bw_result res = bw_clip_compile_sequence(&desc, &c->clip, &err);
    if (res != BW_OK) {
        c->clip = NULL;
        lua_pushnil(L);
        bw_lua_push_error(L, p.clip, res, &err);
        return 2;
    }
    bw_lua_keep_made_warnings(L, handle, BW_LUA_UV_CLIP_WARNINGS);
    return 1;
}

/* ---- methods ---- */

static const bw_clip *check_clip_ptr(lua_State *L) { return bw_lua_check_clip(L, 1)->clip; }

static int l_name(lua_State *L)
{
    lua_pushstring(L, bw_clip_name(check_clip_ptr(L)));
    return 1;
}

static int l_length(lua_State *L)
{
    lua_pushnumber(L, (lua_Number)bw_clip_length(check_clip_ptr(L)));
    return 1;
}

static int l_loop(lua_State *L)
{
    lua_pushboolean(L, bw_clip_loop(check_clip_ptr(L)));
    return 1;
}

static int l_track_count(lua_State *L)
{
    lua_pushinteger(L, bw_clip_track_count(check_clip_ptr(L)));
    return 1;
}

static int l_marker_count(lua_State *L)
{
    lua_pushinteger(L, bw_clip_marker_count(check_clip_ptr(L)));
    return 1;
}

static int check_index(lua_State *L, int arg, int count, const char *what)
{
    lua_Integer i = luaL_checkinteger(L, arg);
    if (i < 1 || i > count)
        return luaL_argerror(L, arg, lua_pushfstring(L, "%s index %I out of range 1..%d", what, (LUAI_UACINT)i, count));
    return (int)(i - 1);
}

/* clip:marker(i) -> name, time */
static int l_marker(lua_State *L)
{
    const bw_clip *clip = check_clip_ptr(L);
    int m = check_index(L, 2, bw_clip_marker_count(clip), "marker");
    lua_pushstring(L, bw_clip_marker_name(clip, m));
    lua_pushnumber(L, (lua_Number)bw_clip_marker_time(clip, m));
    return 2;
}

/* clip:markers() -> { {name=, time=}, ... } sorted by time */
static int l_markers(lua_State *L)
{
    const bw_clip *clip = check_clip_ptr(L);
    int n = bw_clip_marker_count(clip);
    lua_createtable(L, n, 0);
    for (int m = 0; m < n; m++) {
        lua_createtable(L, 0, 2);
        lua_pushstring(L, bw_clip_marker_name(clip, m));
        lua_setfield(L, -2, "name");
        lua_pushnumber(L, (lua_Number)bw_clip_marker_time(clip, m));
        lua_setfield(L, -2, "time");
        lua_rawseti(L, -2, m + 1);
    }
    return 1;
}

static const char *const channel_names[BW_CHANNEL_COUNT] = {"translation", "rotation", "scale", "weight",
                                                            "mask",        "float",    "angle"};

/* clip:track(i) -> {joint=, parent=, channel=, interp=, key_count=} */
static int l_track(lua_State *L)
{
    const bw_clip *clip = check_clip_ptr(L);
    int t = check_index(L, 2, bw_clip_track_count(clip), "track");
    bw_track_desc d;
    memset(&d, 0, sizeof d);
    if (bw_clip_track(clip, t, &d) != BW_OK) return luaL_error(L, "track %d could not be read", t + 1);
    lua_createtable(L, 0, 5);
    lua_pushstring(L, d.joint);
    lua_setfield(L, -2, "joint");
    if (d.parent) {
        lua_pushstring(L, d.parent);
        lua_setfield(L, -2, "parent");
    }
    lua_pushstring(L, (unsigned)d.channel < BW_CHANNEL_COUNT ? channel_names[d.channel] : "unknown");
    lua_setfield(L, -2, "channel");
    lua_pushstring(L, d.interp == BW_INTERP_CUBICSPLINE ? "cubicspline" : "eased");
    lua_setfield(L, -2, "interp");
    lua_pushinteger(L, d.key_count);
    lua_setfield(L, -2, "key_count");
    return 1;
}

/* clip:sample_track(i, time) -> the track's values (1, 3 or 4 numbers) */
static int l_sample_track(lua_State *L)
{
    const bw_clip *clip = check_clip_ptr(L);
    int t = check_index(L, 2, bw_clip_track_count(clip), "track");
    float time = bw_lua_check_float(L, 3);
    bw_track_desc d;
    memset(&d, 0, sizeof d);
    if (bw_clip_track(clip, t, &d) != BW_OK) return luaL_error(L, "track %d could not be read", t + 1);
    int width = bw_channel_width(d.channel);
    float v[4] = {0, 0, 0, 0};
    if (width < 1 || width > 4) return luaL_error(L, "track %d has an unexpected width %d", t + 1, width);
    bw_sample_track(clip, t, time, v);
    for (int i = 0; i < width; i++) lua_pushnumber(L, (lua_Number)v[i]);
    return width;
}

/* clip:bind(rig) -> Binding | nil, message (a new binding each call) */
static int l_bind(lua_State *L)
{
    bw_lua_check_clip(L, 1);
    bw_lua_check_rig(L, 2);
    return bw_lua_push_binding(L, 1, 2) ? 1 : 2;
}

/* clip:sample(rig, time [, pose]) -> Pose. Binds once per rig (cached). */
static int l_sample(lua_State *L)
{
    bw_lua_check_clip(L, 1);
    bw_lua_rig *r = bw_lua_check_rig(L, 2);
    float time = bw_lua_check_time(L, 3);
    bw_lua_pose *out = NULL;
    if (!lua_isnoneornil(L, 4)) {
        out = bw_lua_check_pose(L, 4);
        if (out->rig->rig != r->rig) return luaL_argerror(L, 4, "pose belongs to another rig");
    }
    lua_settop(L, 4);
    const bw_binding *b = bw_lua_cached_binding(L, 1, 2);
    if (!b) return lua_error(L); /* binding failed (out of memory): the message is on top */
    if (!out) out = bw_lua_push_pose(L, 2);
    else lua_pushvalue(L, 4);
    bw_sample_clip(b, r->rig, time, &out->pose);
    return 1;
}

/* clip:warnings() -> { message, ... }: what blendwerk.clip warned of (a
 * new list each call, possibly empty; see bw_lua_push_made_warnings) */
static int l_warnings(lua_State *L)
{
    bw_lua_check_clip(L, 1);
    bw_lua_push_made_warnings(L, 1);
    bw_lua_push_list_copy(L, -1);
    return 1;
}

/* __tostring of a live Clip; close(), __gc and __close are the shared
 * ones (closing is a no-op on a borrowed Clip) */
static int describe_clip(lua_State *L)
{
    const bw_lua_clip *c = (const bw_lua_clip *)lua_touserdata(L, 1);
    lua_pushfstring(L, "%s '%s' (%f s%s%s)", BW_LUA_CLIP, bw_clip_name(c->clip), (lua_Number)bw_clip_length(c->clip),
                    bw_clip_loop(c->clip) ? ", loop" : "", c->hdr.borrowed ? ", borrowed" : "");
    return 1;
}

static const bw_lua_lifetime clip_lifetime = {.type_name = BW_LUA_CLIP, .describe = describe_clip};

static const luaL_Reg clip_methods[] = {
    {"name", l_name},
    {"length", l_length},
    {"loop", l_loop},
    {"track_count", l_track_count},
    {"track", l_track},
    {"sample_track", l_sample_track},
    {"marker_count", l_marker_count},
    {"marker", l_marker},
    {"markers", l_markers},
    {"bind", l_bind},
    {"sample", l_sample},
    {"warnings", l_warnings},
    {NULL, NULL},
};

static const luaL_Reg clip_meta[] = {
    {"__eq", bw_lua_shared_eq},
    {NULL, NULL},
};

static const luaL_Reg clip_functions[] = {
    {"clip", l_clip_new},
    {NULL, NULL},
};

void bw_lua_open_clip(lua_State *L)
{
    bw_lua_register_object_type(L, &clip_lifetime, clip_methods, clip_meta);
    luaL_setfuncs(L, clip_functions, 0);
}
