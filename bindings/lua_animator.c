/* lua_animator.c - blendwerk.animator{...} and blendwerk.Animator over the
 * C animator (include/blendwerk/animator.h); docs/animator.md.
 *
 * This first slice reads rig, clips ({ name = Clip }), locomotion, head,
 * gestures, face and blink, and the expression space: ARKit-52, or a custom
 * one whose Lua `map(arkit, out)` runs once per update (in a sandboxed
 * state with the sandbox's per-call callback limits: an error or a stop
 * leaves the expression at 0 for that update and is reported once with
 * file:line). A gesture's `envelope = function(t, duration)` runs the same
 * way. Graphs are refused with a message for now.
 *
 * Names become indices here, once, at creation; update reads the state
 * table (clip weights by name, 1-based lists) into the C state and reports
 * problems with Lua paths ("state.velocity[2] is NaN", "state.clips.wlak:
 * no such clip"). A state with problems is not used: the previous good one
 * is (the C rule). */
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "blendwerk/animator.h"
#include "lua_blendwerk.h"
#include "lua_support.h"
#include "sandbox.h"

#define BW_LUA_ANIMATOR "blendwerk.Animator"

enum { UV_RIG = 1, UV_CLIPS, UV_NAMES, UV_BUFFERS, UV_MAP, UV_COUNT = UV_MAP };

typedef struct lua_animator {
    bw_lua_object hdr; /* deps: rig; clips counted by hand (clips[]) */
    bw_animator *animator;
    int clip_count;
    bw_lua_clip **clips;  /* in the UV_BUFFERS block */
    const char **names;   /* clip names, anchored as keys of the UV_NAMES table */
    float *weights;       /* clip_count: the last good state's clip weights */
    float *next_weights;  /* clip_count: scratch for the state being read */
    float expression[BW_ARKIT52_COUNT];
    bw_character_state last; /* the last good state (arrays point into this object) */
    bool has_last;
    /* a custom expression space's Lua map: the function (map.ref in the
     * registry), its two tables in UV_MAP ({ arkit, out }, made once so an
     * update allocates nothing), the state and the thread it runs in */
    bw_sandbox_callback map;
    bw_sandbox_callback envelope; /* the current gesture's Lua envelope, if it has one */
    int map_dim;
    lua_State *main;
    lua_State *thread; /* the thread of the update in progress (the animator at index 1) */
} lua_animator;

static lua_animator *check_animator(lua_State *L, int arg)
{
    lua_animator *a = (lua_animator *)bw_lua_check_object(L, arg, BW_LUA_ANIMATOR);
    if (!a->animator) luaL_error(L, "animator is closed");
    return a;
}

static void destroy_animator(bw_lua_object *self)
{
    lua_animator *a = (lua_animator *)self;
    bw_animator_destroy(a->animator);
    a->animator = NULL;
    if (a->main && a->map.ref != LUA_NOREF && a->map.ref != LUA_REFNIL) luaL_unref(a->main, LUA_REGISTRYINDEX, a->map.ref);
    if (a->main && a->envelope.ref != LUA_NOREF && a->envelope.ref != LUA_REFNIL)
        luaL_unref(a->main, LUA_REGISTRYINDEX, a->envelope.ref);
    a->map.ref = a->envelope.ref = LUA_NOREF;
    for (int i = 0; a->clips && i < a->clip_count; i++)
        if (a->clips[i]) bw_lua_object_unuse(&a->clips[i]->hdr);
    a->clip_count = 0;
}

static int fail(lua_State *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lua_pushnil(L);
    lua_pushliteral(L, "animator: ");
    lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    lua_concat(L, 2);
    return 2;
}

/* Index of clip `name` in the names table at `names` (name -> 0-based), or -1. */
static int clip_index(lua_State *L, int names, const char *name)
{
    lua_getfield(L, names, name);
    int isint = 0;
    lua_Integer i = lua_tointegerx(L, -1, &isint);
    lua_pop(L, 1);
    return isint ? (int)i : -1;
}

/* A list of clip names at field `field` of the table at `t` into out (at most cap). */
static int read_clip_list(lua_State *L, int t, const char *field, int names, int *out, int cap, int *count,
                          char *why, size_t why_size)
{
    *count = 0;
    int type = bw_lua_raw_field(L, t, field);
    if (type == LUA_TNIL) {
        lua_pop(L, 1);
        return 1;
    }
    if (type != LUA_TTABLE) {
        snprintf(why, why_size, "%s must be a list of clip names", field);
        lua_pop(L, 1);
        return 0;
    }
    int n = (int)lua_rawlen(L, -1);
    for (int i = 1; i <= n && *count < cap; i++) {
        lua_rawgeti(L, -1, i);
        const char *name = lua_tostring(L, -1);
        int c = name ? clip_index(L, names, name) : -1;
        lua_pop(L, 1);
        if (c < 0) {
            snprintf(why, why_size, "%s[%d]: no such clip '%s'", field, i, name ? name : "?");
            lua_pop(L, 1);
            return 0;
        }
        out[(*count)++] = c;
    }
    lua_pop(L, 1);
    return 1;
}

/* An optional number field: `def` when absent; a finite float otherwise
 * (anything else raises, naming the field: a NaN must not reach the core
 * as a duration or a limit). */
static float opt_number_field(lua_State *L, int t, const char *field, float def)
{
    int type = bw_lua_raw_field(L, t, field);
    float v = def;
    if (type == LUA_TNUMBER) {
        const char *bad = bw_lua_to_float(lua_tonumber(L, -1), &v);
        if (bad) luaL_error(L, "%s %s", field, bad);
    } else if (type != LUA_TNIL) {
        luaL_error(L, "%s must be a number, not a %s", field, luaL_typename(L, -1));
    }
    lua_pop(L, 1);
    return v;
}

static const char *const desc_fields[] = {"rig", "clips", "expression_space", "locomotion", "head", "graph",
                                          "gestures", "face", "blink", NULL};
static const char *const head_fields[] = {"chain", "weights", "yaw_limit", "pitch_limit", "eye_yaw_limit",
                                          "eye_pitch_limit", "disabled", NULL};

/* The animator's map in Lua: arkit (52 numbers) and out (dim numbers,
 * what the last call left there) are the animator's own two tables; out's
 * first dim entries become the expression (anything else than a finite
 * number counts as 0; a failed call gives 0). */
static void lua_map(void *user, const float *arkit, float *out, int dim)
{
    lua_animator *a = (lua_animator *)user;
    lua_State *L = a->thread;
    for (int i = 0; i < dim; i++) out[i] = 0.0f;
    if (!L || !lua_checkstack(L, 8)) return;
    const int top = lua_gettop(L);
    lua_getiuservalue(L, 1, UV_MAP);
    lua_rawgeti(L, -1, 1);
    for (int i = 0; i < BW_ARKIT52_COUNT; i++) {
        lua_pushnumber(L, (lua_Number)arkit[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_rawgeti(L, -2, 2);
    const int out_table = lua_gettop(L);
    lua_pushvalue(L, out_table - 1);
    lua_pushvalue(L, out_table);
    if (bw_sandbox_callback_call_from(L, &a->map, 2, 0))
        for (int i = 0; i < dim; i++) {
            lua_rawgeti(L, out_table, i + 1);
            lua_Number v = lua_tonumber(L, -1);
            out[i] = isfinite(v) ? (float)v : 0.0f;
            lua_pop(L, 1);
        }
    lua_settop(L, top);
}

/* A gesture's Lua envelope(t, duration) -> weight (clamped to [0, 1] by
 * the core; a failed call or a non-number gives 0). */
static float lua_envelope(void *user, float t, float duration)
{
    lua_animator *a = (lua_animator *)user;
    lua_State *L = a->thread;
    if (!L || !lua_checkstack(L, 4)) return 0.0f;
    lua_pushnumber(L, (lua_Number)t);
    lua_pushnumber(L, (lua_Number)duration);
    if (!bw_sandbox_callback_call_from(L, &a->envelope, 2, 1)) return 0.0f;
    lua_Number v = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return isfinite(v) ? (float)v : 0.0f;
}

/* blendwerk.animator{ rig =, clips = { name = Clip }, ... } -> Animator | nil, message */
static int l_animator(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    char why[256];
    if (!bw_lua_check_fields_hint(L, 1, desc_fields, why, sizeof why)) return fail(L, "%s", why);
    bw_lua_raw_field(L, 1, "rig"); /* 2 */
    bw_lua_rig *rig = bw_lua_check_rig(L, 2);
    if (bw_lua_raw_field(L, 1, "clips") != LUA_TTABLE) return fail(L, "clips must be a table { name = Clip }"); /* 3 */
    if (bw_lua_raw_field(L, 1, "graph") != LUA_TNIL) /* 4 */
        return fail(L, "graph: not read by the Lua binding yet (use the C API)");
    lua_pop(L, 1);
    int n = 0;
    lua_pushnil(L);
    while (lua_next(L, 3)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) return fail(L, "clips: keys must be clip names");
        n++;
    }
    if (n > 65536) return fail(L, "clips: more than 65536");
    /* the handle and its buffers (one Lua-owned block) */
    lua_animator *a = (lua_animator *)bw_lua_new_object(L, sizeof *a, UV_COUNT, BW_LUA_ANIMATOR, destroy_animator); /* 4 */
    size_t block = (size_t)n * (sizeof(bw_lua_clip *) + sizeof(const bw_clip *) + sizeof(const char *) +
                                2 * sizeof(float)) + 1;
    char *buf = (char *)lua_newuserdatauv(L, block, 0); /* 5 */
    memset(buf, 0, block);
    lua_setiuservalue(L, 4, UV_BUFFERS);
    a->clips = (bw_lua_clip **)buf;
    const bw_clip **clips = (const bw_clip **)(buf + (size_t)n * sizeof(bw_lua_clip *));
    const char **names = (const char **)((char *)clips + (size_t)n * sizeof(const bw_clip *));
    a->weights = (float *)((char *)names + (size_t)n * sizeof(const char *));
    a->next_weights = a->weights + n;
    a->names = names;
    lua_createtable(L, 0, n); /* 5: name -> index */
    int i = 0;
    lua_pushnil(L);
    while (lua_next(L, 3)) {
        bw_lua_clip *c = bw_lua_check_clip(L, -1);
        a->clips[i] = c;
        c->hdr.users++; /* dropped in destroy_animator */
        a->clip_count = i + 1;
        clips[i] = c->clip;
        names[i] = lua_tostring(L, -2);
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_pushinteger(L, i);
        lua_rawset(L, 5);
        i++;
    }
    bw_animator_desc d = {0};
    d.rig = rig->rig;
    d.clips = clips;
    d.clip_names = names;
    d.clip_count = n;
    d.allocator = bw_lua_allocator_value(L);
    /* expression space */
    a->map.ref = a->envelope.ref = LUA_NOREF;
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
    a->main = lua_tothread(L, -1);
    lua_pop(L, 1);
    if (bw_lua_raw_field(L, 1, "expression_space") == LUA_TTABLE) { /* 6 */
        static const char *const space_fields[] = {"kind", "dim", "map", NULL};
        if (!bw_lua_check_fields_hint(L, 6, space_fields, why, sizeof why)) return fail(L, "expression_space: %s", why);
        bw_lua_raw_field(L, 6, "kind");
        const char *kind = lua_tostring(L, -1);
        if (kind && strcmp(kind, "custom") == 0) {
            bw_lua_raw_field(L, 6, "dim");
            lua_Integer dim = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : 0;
            lua_pop(L, 1);
            if (dim < 1 || dim > BW_ANIMATOR_MAX_DIM)
                return fail(L, "expression_space: a custom space needs dim, an integer in [1, %d]", BW_ANIMATOR_MAX_DIM);
            if (bw_lua_raw_field(L, 6, "map") != LUA_TFUNCTION)
                return fail(L, "expression_space: a custom space needs map = function(arkit, out) ... end");
            a->map.ref = luaL_ref(L, LUA_REGISTRYINDEX);
            a->map_dim = (int)dim;
            lua_createtable(L, 2, 0); /* { arkit, out } */
            lua_createtable(L, BW_ARKIT52_COUNT, 0);
            for (int k = 1; k <= BW_ARKIT52_COUNT; k++) {
                lua_pushnumber(L, 0);
                lua_rawseti(L, -2, k);
            }
            lua_rawseti(L, -2, 1);
            lua_createtable(L, (int)dim, 0);
            for (int k = 1; k <= (int)dim; k++) {
                lua_pushnumber(L, 0);
                lua_rawseti(L, -2, k);
            }
            lua_rawseti(L, -2, 2);
            lua_setiuservalue(L, 4, UV_MAP);
            d.expression_space.kind = BW_EXPRESSION_CUSTOM;
            d.expression_space.dim = (int)dim;
            d.expression_space.map = lua_map;
            d.expression_space.user = a;
        } else if (kind && strcmp(kind, "arkit52") != 0) {
            return fail(L, "expression_space: kind '%s': \"arkit52\" or \"custom\"", kind);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    /* locomotion */
    bw_locomotion_entry loco[64];
    if (bw_lua_raw_field(L, 1, "locomotion") == LUA_TTABLE) { /* 6 */
        int m = (int)lua_rawlen(L, 6);
        if (m > 64) return fail(L, "locomotion: more than 64 entries");
        for (int k = 1; k <= m; k++) {
            if (lua_rawgeti(L, 6, k) != LUA_TTABLE) return fail(L, "locomotion[%d] must be { clip =, speed = }", k);
            bw_lua_raw_field(L, -1, "clip");
            const char *name = lua_tostring(L, -1);
            int c = name ? clip_index(L, 5, name) : -1;
            if (c < 0) return fail(L, "locomotion[%d].clip: no such clip '%s'", k, name ? name : "?");
            lua_pop(L, 1);
            loco[k - 1].clip = c;
            loco[k - 1].speed = opt_number_field(L, lua_gettop(L), "speed", NAN);
            lua_pop(L, 1);
        }
        d.locomotion = loco;
        d.locomotion_count = m;
    }
    lua_pop(L, 1);
    /* head */
    const char *chain[BW_ANIMATOR_MAX_CHAIN];
    float weights[BW_ANIMATOR_MAX_CHAIN];
    if (bw_lua_raw_field(L, 1, "head") == LUA_TTABLE) { /* 6: stays, so chain names stay anchored */
        if (!bw_lua_check_fields_hint(L, 6, head_fields, why, sizeof why)) return fail(L, "head: %s", why);
        d.head.yaw_limit = opt_number_field(L, 6, "yaw_limit", 0.0f);
        d.head.pitch_limit = opt_number_field(L, 6, "pitch_limit", 0.0f);
        d.head.eye_yaw_limit = opt_number_field(L, 6, "eye_yaw_limit", 0.0f);
        d.head.eye_pitch_limit = opt_number_field(L, 6, "eye_pitch_limit", 0.0f);
        bw_lua_raw_field(L, 6, "disabled");
        d.head.disabled = lua_toboolean(L, -1);
        lua_pop(L, 1);
        if (bw_lua_raw_field(L, 6, "chain") == LUA_TTABLE) { /* 7 */
            int m = (int)lua_rawlen(L, 7);
            if (m > BW_ANIMATOR_MAX_CHAIN) return fail(L, "head.chain: more than %d joints", BW_ANIMATOR_MAX_CHAIN);
            for (int k = 1; k <= m; k++) {
                lua_rawgeti(L, 7, k);
                chain[k - 1] = lua_tostring(L, -1);
                if (!chain[k - 1]) return fail(L, "head.chain[%d] must be a joint name", k);
                lua_pop(L, 1); /* anchored by the chain table */
            }
            d.head.chain = chain;
            d.head.chain_count = m;
            if (bw_lua_raw_field(L, 6, "weights") == LUA_TTABLE) { /* 8 */
                if ((int)lua_rawlen(L, 8) != m) return fail(L, "head.weights must have one weight per chain joint");
                for (int k = 1; k <= m; k++) {
                    lua_rawgeti(L, 8, k);
                    weights[k - 1] = (float)luaL_optnumber(L, -1, NAN);
                    lua_pop(L, 1);
                }
                d.head.weights = weights;
            }
            lua_pop(L, 1);
        }
        /* the chain table stays on the stack until create */
    }
    int gestures[256], faces[256];
    if (!read_clip_list(L, 1, "gestures", 5, gestures, 256, &d.gesture_clip_count, why, sizeof why) ||
        !read_clip_list(L, 1, "face", 5, faces, 256, &d.face_clip_count, why, sizeof why))
        return fail(L, "%s", why);
    d.gesture_clips = gestures;
    d.face_clips = faces;
    int top = lua_gettop(L);
    if (bw_lua_raw_field(L, 1, "blink") == LUA_TTABLE) {
        bw_lua_raw_field(L, top + 1, "seed");
        int is_int = 0;
        lua_Integer seed = lua_tointegerx(L, -1, &is_int);
        if (!lua_isnil(L, -1) && (!is_int || seed < 0 || seed > (lua_Integer)UINT32_MAX))
            luaL_error(L, "blink.seed must be an integer in [0, %u]", (unsigned)UINT32_MAX);
        lua_pop(L, 1);
        d.blink.seed = is_int ? (uint32_t)seed : 0u;
        d.blink.interval_min = opt_number_field(L, top + 1, "interval_min", 0.0f);
        d.blink.interval_max = opt_number_field(L, top + 1, "interval_max", 0.0f);
        d.blink.duration = opt_number_field(L, top + 1, "duration", 0.0f);
        bw_lua_raw_field(L, top + 1, "disabled");
        d.blink.disabled = lua_toboolean(L, -1);
        lua_pop(L, 1);
    } else if (lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
        d.blink.disabled = true; /* blink = false */
    }
    lua_pop(L, 1);
    bw_error err[1];
    bw_animator_errors errs = {err, 1, 0};
    bw_result r = bw_animator_create(&d, &a->animator, &errs);
    if (r != BW_OK) return fail(L, "%s: %s", errs.count ? err[0].where : "desc", errs.count ? err[0].message : bw_result_name(r));
    bw_lua_object_use(&a->hdr, &rig->hdr);
    lua_pushvalue(L, 2);
    lua_setiuservalue(L, 4, UV_RIG);
    lua_pushvalue(L, 3);
    lua_setiuservalue(L, 4, UV_CLIPS);
    lua_pushvalue(L, 5);
    lua_setiuservalue(L, 4, UV_NAMES);
    lua_settop(L, 4);
    return 1;
}

/* ---- the state ---- */

typedef struct reader {
    lua_State *L;
    int problems; /* index of the problems list */
    int count;
} reader;

static void add_problem(reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lua_pushvfstring(r->L, fmt, ap);
    va_end(ap);
    lua_rawseti(r->L, r->problems, ++r->count);
}

/* A list of n numbers at field `field` of the table at t (nil: leaves out untouched, returns false). */
static bool read_vec(reader *r, int t, const char *field, float *out, int n)
{
    lua_State *L = r->L;
    int type = bw_lua_raw_field(L, t, field);
    if (type == LUA_TNIL) {
        lua_pop(L, 1);
        return false;
    }
    if (type != LUA_TTABLE) {
        add_problem(r, "state.%s must be a list of %d numbers", field, n);
        lua_pop(L, 1);
        return false;
    }
    for (int i = 0; i < n; i++) {
        if (lua_rawgeti(L, -1, i + 1) != LUA_TNUMBER) add_problem(r, "state.%s[%d] is not a number", field, i + 1);
        else out[i] = (float)lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return true;
}

/* Read the state table at `t` into *s (weights into w, expression into ex);
 * problems go to the list at r->problems. `a` may be NULL (no clip names). */
static void read_state(reader *r, int t, lua_animator *a, int names, bw_character_state *s, float *w, float *ex)
{
    lua_State *L = r->L;
    memset(s, 0, sizeof *s);
    if (!lua_istable(L, t)) {
        add_problem(r, "state must be a table");
        return;
    }
    read_vec(r, t, "velocity", s->velocity, 3);
    read_vec(r, t, "position", s->position, 3);
    s->has_look_at = read_vec(r, t, "look_at", s->look_at, 3);
    int type = bw_lua_raw_field(L, t, "yaw");
    if (type == LUA_TNUMBER) s->yaw = (float)lua_tonumber(L, -1);
    else if (type != LUA_TNIL) add_problem(r, "state.yaw is not a number");
    lua_pop(L, 1);
    type = bw_lua_raw_field(L, t, "clips");
    if (type == LUA_TTABLE && a) {
        for (int i = 0; i < a->clip_count; i++) w[i] = 0.0f;
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            const char *name = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
            int c = name ? clip_index(L, names, name) : -1;
            if (c < 0) add_problem(r, "state.clips.%s: no such clip", name ? name : "?");
            else if (!lua_isnumber(L, -1)) add_problem(r, "state.clips.%s is not a number", name);
            else w[c] = (float)lua_tonumber(L, -1);
            lua_pop(L, 1);
        }
        s->clip_weights = w;
        s->clip_weight_count = a->clip_count;
    } else if (type != LUA_TNIL && type != LUA_TTABLE) {
        add_problem(r, "state.clips must be a table { name = weight }");
    }
    lua_pop(L, 1);
    type = bw_lua_raw_field(L, t, "expression");
    if (type == LUA_TTABLE) {
        int n = (int)lua_rawlen(L, -1);
        if (n != BW_ARKIT52_COUNT) {
            add_problem(r, "state.expression has %d numbers, expected 52", n);
        } else {
            for (int i = 0; i < n; i++) {
                if (lua_rawgeti(L, -1, i + 1) != LUA_TNUMBER) add_problem(r, "state.expression[%d] is not a number", i + 1);
                else ex[i] = (float)lua_tonumber(L, -1);
                lua_pop(L, 1);
            }
            s->expression = ex;
            s->expression_count = n;
        }
    } else if (type != LUA_TNIL) {
        add_problem(r, "state.expression must be a list of 52 numbers");
    }
    lua_pop(L, 1);
}

/* The C problems in Lua terms: indices from 1, clip weights by name. */
static void add_core_problems(reader *r, const bw_state_problem *p, int n, lua_animator *a, int names_unused)
{
    (void)names_unused;
    for (int i = 0; i < n; i++) {
        int idx = -1;
        char field[64];
        if (sscanf(p[i].path, "state.clip_weights[%d]", &idx) == 1 && a && idx >= 0 && idx < a->clip_count) {
            add_problem(r, "state.clips.%s %s", a->names[idx], p[i].message);
        } else if (sscanf(p[i].path, "state.%63[a-z_][%d]", field, &idx) == 2) {
            add_problem(r, "state.%s[%d] %s", field, idx + 1, p[i].message);
        } else {
            add_problem(r, "%s %s", p[i].path, p[i].message);
        }
    }
}

/* Read and validate; leaves the problems list on the stack; returns its length. */
static int take_state(lua_State *L, int t, lua_animator *a, bw_character_state *s, float *w, float *ex)
{
    lua_newtable(L);
    reader r = {L, lua_gettop(L), 0};
    int names = 0;
    if (a) {
        lua_getiuservalue(L, 1, UV_NAMES);
        names = lua_gettop(L);
    }
    read_state(&r, t, a, names, s, w, ex);
    if (a) lua_pop(L, 1);
    if (r.count == 0) {
        bw_state_problem p[BW_ANIMATOR_MAX_PROBLEMS];
        int n = 0;
        bw_character_state_validate(s, a ? a->animator : NULL, p, BW_ANIMATOR_MAX_PROBLEMS, &n);
        add_core_problems(&r, p, n < BW_ANIMATOR_MAX_PROBLEMS ? n : BW_ANIMATOR_MAX_PROBLEMS, a, 0);
    }
    return r.count;
}

/* true, or false and the problems list on top of the stack (n problems). */
static int push_outcome(lua_State *L, int n)
{
    if (n == 0) {
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_pushboolean(L, 0);
    lua_insert(L, -2);
    return 2;
}

/* a:update(dt, state [, camera]) -> true | false, problems */
static int l_update(lua_State *L)
{
    lua_animator *a = check_animator(L, 1);
    float dt = (float)luaL_checknumber(L, 2);
    float cam[3];
    bool has_cam = false;
    if (lua_istable(L, 4)) {
        for (int i = 0; i < 3; i++) {
            lua_rawgeti(L, 4, i + 1);
            cam[i] = (float)luaL_checknumber(L, -1);
            lua_pop(L, 1);
        }
        has_cam = true;
    }
    bw_character_state s;
    float ex[BW_ARKIT52_COUNT];
    int problems = take_state(L, 3, a, &s, a->next_weights, ex);
    if (problems == 0) {
        if (s.clip_weights) memcpy(a->weights, a->next_weights, (size_t)a->clip_count * sizeof(float));
        if (s.expression) memcpy(a->expression, ex, sizeof ex);
        a->last = s;
        if (s.clip_weights) a->last.clip_weights = a->weights;
        if (s.expression) a->last.expression = a->expression;
        a->has_last = true;
    }
    bw_character_state zero;
    memset(&zero, 0, sizeof zero);
    a->thread = L; /* the map runs on this thread, above what is on the stack now */
    bw_animator_update(a->animator, dt, a->has_last ? &a->last : &zero, has_cam ? cam : NULL);
    a->thread = NULL;
    return push_outcome(L, problems);
}

/* blendwerk.validate_character_state(state [, animator]) -> true | false, problems */
static int l_validate(lua_State *L)
{
    lua_settop(L, 2);
    lua_animator *a = lua_isnil(L, 2) ? NULL : check_animator(L, 2);
    if (a) { /* the animator at 1 for take_state's uservalue reads */
        lua_pushvalue(L, 2);
        lua_pushvalue(L, 1);
        lua_replace(L, 2);
        lua_replace(L, 1);
    }
    bw_character_state s;
    float ex[BW_ARKIT52_COUNT];
    int n = take_state(L, a ? 2 : 1, a, &s, a ? a->next_weights : NULL, ex);
    return push_outcome(L, n);
}

static const char *const gesture_fields[] = {"duration", "fade_in", "fade_out", "curve", "envelope", NULL};

/* a:gesture(name [, { duration, fade_in, fade_out, curve }]) -> true | nil, message */
static int l_gesture(lua_State *L)
{
    lua_animator *a = check_animator(L, 1);
    const char *name = luaL_checkstring(L, 2);
    lua_getiuservalue(L, 1, UV_NAMES);
    int clip = clip_index(L, lua_gettop(L), name);
    lua_pop(L, 1);
    if (clip < 0) return fail(L, "gesture: no such clip '%s'", name);
    bw_gesture_desc g = {0};
    if (lua_istable(L, 3)) {
        char why[256];
        if (!bw_lua_check_fields_hint(L, 3, gesture_fields, why, sizeof why)) return fail(L, "gesture: %s", why);
        g.duration = opt_number_field(L, 3, "duration", 0.0f);
        g.fade_in = opt_number_field(L, 3, "fade_in", 0.0f);
        g.fade_out = opt_number_field(L, 3, "fade_out", 0.0f);
        if (bw_lua_raw_field(L, 3, "curve") == LUA_TSTRING) {
            int style = bw_ease_style_find(lua_tostring(L, -1));
            if (style < 0) return fail(L, "gesture: unknown curve '%s'", lua_tostring(L, -1));
            g.curve = (bw_ease_style)style;
        }
        lua_pop(L, 1);
        int type = bw_lua_raw_field(L, 3, "envelope");
        if (type != LUA_TFUNCTION && type != LUA_TNIL)
            return fail(L, "gesture: envelope must be a function(t, duration) -> weight");
        if (type == LUA_TFUNCTION) {
            g.envelope = lua_envelope;
            g.user = a;
        }
    } else {
        lua_pushnil(L);
    }
    /* the envelope (or nil) on top */
    bw_sandbox_callback before = a->envelope;
    if (g.envelope) { /* in place before the call: the core may evaluate it at once */
        memset(&a->envelope, 0, sizeof a->envelope);
        a->envelope.ref = luaL_ref(L, LUA_REGISTRYINDEX);
    } else {
        lua_pop(L, 1);
    }
    bw_result r = bw_animator_gesture(a->animator, clip, &g);
    if (r != BW_OK && g.envelope) { /* refused: the running gesture keeps its envelope */
        luaL_unref(L, LUA_REGISTRYINDEX, a->envelope.ref);
        a->envelope = before;
    } else if (r == BW_OK && g.envelope && before.ref != LUA_NOREF && before.ref != LUA_REFNIL) {
        luaL_unref(L, LUA_REGISTRYINDEX, before.ref); /* an outgoing gesture keeps its weight, not its envelope */
    }
    if (r == BW_ERR_RANGE) return fail(L, "gesture: '%s' is not listed in gestures", name);
    if (r != BW_OK) return fail(L, "gesture: %s", bw_result_name(r));
    lua_pushboolean(L, 1);
    return 1;
}

/* ---- outputs ---- */

static int l_expression(lua_State *L)
{
    lua_animator *a = check_animator(L, 1);
    int dim = 0;
    const float *e = bw_animator_expression(a->animator, &dim);
    bw_lua_push_floats(L, e, dim);
    return 1;
}

static int l_gaze(lua_State *L)
{
    lua_animator *a = check_animator(L, 1);
    const float *g = bw_animator_gaze(a->animator);
    static const char *const keys[4] = {"pitch_l", "yaw_l", "pitch_r", "yaw_r"};
    lua_createtable(L, 0, 4);
    for (int i = 0; i < 4; i++) {
        lua_pushnumber(L, g[i]);
        lua_setfield(L, -2, keys[i]);
    }
    return 1;
}

static int l_root_motion(lua_State *L)
{
    lua_animator *a = check_animator(L, 1);
    const bw_root_delta *d = bw_animator_root_motion(a->animator);
    lua_createtable(L, 0, 3);
    lua_pushnumber(L, d->t[0]);
    lua_setfield(L, -2, "x");
    lua_pushnumber(L, d->t[2]);
    lua_setfield(L, -2, "z");
    lua_pushnumber(L, d->yaw);
    lua_setfield(L, -2, "yaw");
    return 1;
}

/* a:plays() -> { { clip = name, weight =, rate =, time = }, ... } */
static int l_plays(lua_State *L)
{
    lua_animator *a = check_animator(L, 1);
    int n = 0;
    const bw_animator_play *p = bw_animator_plays(a->animator, &n);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_createtable(L, 0, 4);
        lua_pushstring(L, a->names[p[i].clip]);
        lua_setfield(L, -2, "clip");
        lua_pushnumber(L, p[i].weight);
        lua_setfield(L, -2, "weight");
        lua_pushnumber(L, p[i].rate);
        lua_setfield(L, -2, "rate");
        lua_pushnumber(L, p[i].time);
        lua_setfield(L, -2, "time");
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* a:head_aim() -> yaw, pitch (radians) */
static int l_head_aim(lua_State *L)
{
    lua_animator *a = check_animator(L, 1);
    float yaw = 0, pitch = 0;
    bw_animator_head_aim(a->animator, &yaw, &pitch);
    lua_pushnumber(L, yaw);
    lua_pushnumber(L, pitch);
    return 2;
}

/* a:pose() -> a new Pose holding the output pose */
static int l_pose(lua_State *L)
{
    lua_animator *a = check_animator(L, 1);
    lua_getiuservalue(L, 1, UV_RIG);
    bw_lua_pose *p = bw_lua_push_pose(L, lua_gettop(L));
    bw_pose_copy(&p->pose, bw_animator_pose(a->animator));
    return 1;
}

static int l_gc(lua_State *L)
{
    bw_lua_object_gc_or_close(L, (bw_lua_object *)luaL_checkudata(L, 1, BW_LUA_ANIMATOR));
    return 0;
}

static int l_close(lua_State *L)
{
    bw_lua_check_object(L, 1, BW_LUA_ANIMATOR);
    bw_lua_object_close((bw_lua_object *)lua_touserdata(L, 1));
    return 0;
}

static const luaL_Reg methods[] = {
    {"update", l_update},         {"gesture", l_gesture},     {"expression", l_expression},
    {"gaze", l_gaze},             {"root_motion", l_root_motion}, {"plays", l_plays},
    {"head_aim", l_head_aim},     {"pose", l_pose},           {"close", l_close},
    {NULL, NULL},
};

static const luaL_Reg meta[] = {
    {"__gc", l_gc},
    {"__close", l_gc},
    {NULL, NULL},
};

static const luaL_Reg functions[] = {
    {"animator", l_animator},
    {"validate_character_state", l_validate},
    {NULL, NULL},
};

void bw_lua_open_animator(lua_State *L)
{
    luaL_checktype(L, -1, LUA_TTABLE);
    bw_lua_register_type(L, BW_LUA_ANIMATOR, methods, meta);
    luaL_setfuncs(L, functions, 0);
}
