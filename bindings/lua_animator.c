/* lua_animator.c - blendwerk.animator{...} and blendwerk.Animator over the
 * C animator (include/blendwerk/animator.h); docs/animator.md.
 *
 * The description: rig, clips ({ name = Clip } or an Asset: its clips by
 * their names), expression_space (ARKit-52, or a custom one whose Lua
 * `map(arkit, out)` runs once per update), locomotion, head, gestures,
 * face, blink, graph (a blendwerk.Graph, bound to the animator's clips by
 * name). A custom map and a gesture's Lua `envelope(t, duration)` run in a
 * sandboxed state with the sandbox's per-call callback limits: an error or
 * a stop gives 0 for that update and is reported once with file:line.
 *
 * Names become indices here, once, at creation (and at set_graph): clip
 * names, face clip names, graph parameter names. update reads the state
 * table into the C state (clip and face weights by name, params by name,
 * triggers by name, 1-based lists) and reports problems with Lua paths
 * ("state.velocity[2] is NaN", "state.clips.wlak: no such clip"). A state
 * with problems is not used: the previous good one is (the C rule), without
 * its params and triggers (they were applied when it was new).
 *
 * Nothing on the frame path allocates after warm-up: the state is read
 * into buffers made at creation; the problems list, the event, play,
 * expression, gaze, root-motion and override tables and the output Pose are
 * the animator's own, refreshed in place (valid until the next call that
 * refreshes them); the strings the outputs hold (clip, layer, state and
 * marker names) are anchored here so pushing them finds them interned. */
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "blendwerk/animator.h"
#include "blendwerk/procedural.h"
#include "lua_blendwerk.h"
#include "lua_graph.h"
#include "lua_graph_fields.h"
#include "lua_support.h"
#include "sandbox.h"

#define BW_LUA_ANIMATOR "blendwerk.Animator"
#define DEFAULT_SET_GRAPH_FADE 0.2f /* a:set_graph's fade when none is given */
#define PRESIZED_RECORDS 16        /* event and play records made at creation */

enum {
    UV_RIG = 1,
    UV_CLIPS,
    UV_NAMES,
    UV_BUFFERS,
    UV_MAP,
    UV_GRAPH,
    UV_GRAPH_DATA,
    UV_OUT,
    UV_STATE_FIELDS, /* { state field = true }: the state's keys are checked against it */
    UV_WARNINGS,     /* the creation's warnings, a list (a:warnings()) */
    UV_COUNT = UV_WARNINGS
};
/* UV_GRAPH_DATA: { [1] = the block (graph_clip, params, fire), [2] = the
 * graph's own { param name -> 0-based index } (bw_lua_graph_push_param_indices,
 * read only), [3] = the graph's names (anchored) }. UV_OUT: the output tables, below. */
enum { GD_BLOCK = 1, GD_PARAMS, GD_STRINGS };

typedef struct lua_animator {
    bw_lua_object hdr; /* deps: rig; clips and the graph counted by hand */
    bw_animator *animator;
    int clip_count, face_count, expr_cap;
    bw_lua_clip **clips;   /* in the UV_BUFFERS block */
    const char **names;    /* clip names, anchored as keys of the UV_NAMES table */
    int *face_clip;        /* face_count: the clip index of each face clip */
    float *weights, *next_weights; /* clip_count: the last good state's / the one being read */
    float *face_w, *next_face_w;   /* face_count */
    float *expression, *next_expression; /* expr_cap = max(52, dim) */
    bw_character_state last; /* the last good state, params and triggers dropped */
    bool has_last;
    /* the graph (UV_GRAPH) */
    bw_lua_object *graph_obj; /* its handle's header (one use counted), or NULL */
    const bw_graph *graph;
    int param_count;
    int *graph_clip;            /* graph clip -> animator clip */
    bw_character_param *params; /* param_count: scratch for the state being read */
    int *fire;                  /* param_count */
    /* lengths of the reused output lists */
    int problem_len, event_len, play_len;
    /* a custom expression space's Lua map: the function (map.ref in the
     * registry), its two tables in UV_MAP ({ arkit, out }, made once so an
     * update allocates nothing), the state and the thread it runs in */
    bw_sandbox_callback map;
    bw_sandbox_callback envelope; /* the current gesture's Lua envelope, if it has one */
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
    if (a->graph_obj) bw_lua_object_unuse(a->graph_obj);
    a->graph_obj = NULL;
    a->graph = NULL;
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

/* The 0-based index the name table at `names` gives the string at `key`
 * (a stack index), or -1. No allocation: the key is pushed as a value. */
static int index_of_key(lua_State *L, int names, int key)
{
    names = lua_absindex(L, names);
    lua_pushvalue(L, key);
    lua_rawget(L, names);
    int isint = 0;
    lua_Integer i = lua_tointegerx(L, -1, &isint);
    lua_pop(L, 1);
    return isint ? (int)i : -1;
}

/* Index of clip `name` in the names table at `names` (name -> 0-based), or -1. */
static int clip_index(lua_State *L, int names, const char *name)
{
    names = lua_absindex(L, names);
    lua_pushstring(L, name);
    int i = index_of_key(L, names, -1);
    lua_pop(L, 1);
    return i;
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
    if (n > cap) {
        snprintf(why, why_size, "%s: more than %d clips", field, cap);
        lua_pop(L, 1);
        return 0;
    }
    for (int i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, i);
        const char *name = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
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

/* The core's path of a desc field in the Lua desc's terms (docs/lua-api.md:
 * 1-based): "desc." dropped, and the index of a list the Lua desc gives in
 * the core's order (head.chain, head.weights, locomotion) one up, so
 * "desc.locomotion[0].speed" reads "locomotion[1].speed" as the binding's
 * own messages do. */
static void lua_desc_path(const char *where, char *out, size_t size)
{
    static const char *const lists[] = {"head.chain[", "head.weights[", "locomotion["};
    const char *w = strncmp(where, "desc.", 5) == 0 ? where + 5 : where;
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++) {
        size_t n = strlen(lists[k]);
        int i = 0, used = 0;
        if (strncmp(w, lists[k], n) == 0 && sscanf(w + n, "%d]%n", &i, &used) == 1 && used > 0 && i >= 0) {
            snprintf(out, size, "%.*s%d]%s", (int)n, w, i + 1, w + n + used);
            return;
        }
    }
    size_t len = strlen(w) < size ? strlen(w) : size - 1; /* size > 0 */
    memcpy(out, w, len);
    out[len] = '\0';
}

static const char *const desc_fields[] = {"rig", "clips", "expression_space", "locomotion", "head", "graph",
                                          "gestures", "face", "blink", NULL};
static const char *const head_fields[] = {"chain", "weights", "yaw_limit", "pitch_limit", "eye_yaw_limit",
                                          "eye_pitch_limit", "disabled", NULL};
static const char *const loco_fields[] = {"clip", "speed", NULL};
static const char *const blink_fields[] = {"seed", "interval_min", "interval_max", "duration", "disabled", NULL};
static const char *const space_fields[] = {"kind", "dim", "map", NULL};
static const char *const state_fields[] = {"velocity", "position", "yaw", "clips", "face", "look_at",
                                           "expression", "params", "fire", NULL};

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

/* Append the string on top of the stack to the list at `list` (pops it). */
static void anchor(lua_State *L, int list)
{
    lua_rawseti(L, list, (lua_Integer)lua_rawlen(L, list) + 1);
}

/* A new table with the fields `keys` set to false: an output table whose
 * keys never change afterwards (setting them allocates nothing). */
static void new_record(lua_State *L, const char *const *keys) { bw_lua_push_keys(L, keys, false); }

/* ---- the graph ---- */

/* graph:refresh_clips's view of an animator (lua_graph.h): busy inside
 * its own update; `refresh` checks the graph's new clips against it or,
 * with apply, takes them (bw_animator_refresh_clips), each new Clip
 * replacing the animator's clip its graph clip played (a use counted). */
static bool graph_user_busy(lua_State *L, int idx, const bw_graph *graph)
{
    const lua_animator *a = (const lua_animator *)lua_touserdata(L, idx);
    return a && a->thread && a->graph == graph; /* one that left the graph is not its business */
}

static bw_result graph_user_refresh(lua_State *L, int idx, const bw_graph *graph, const bw_clip *const *clips,
                                    bw_lua_clip *const *objs, int list, int n, bool apply, bw_graph_errors *errors)
{
    lua_animator *a = (lua_animator *)lua_touserdata(L, idx);
    if (!a || !a->animator || a->graph != graph) return BW_OK; /* closed, or on another graph by now */
    bw_result r = apply ? bw_animator_refresh_clips(a->animator, clips, n, errors)
                        : bw_animator_refresh_clips_validate(a->animator, clips, n, errors);
    if (!apply || r != BW_OK || !lua_checkstack(L, 2)) return r;
    /* the slots' Clips (UV_CLIPS: slot k's userdata at k + 1, an entry that
     * exists: setting it allocates nothing) */
    lua_getiuservalue(L, idx, UV_CLIPS);
    for (int i = 0; i < n; i++) {
        const int k = a->graph_clip[i];
        bw_lua_clip **slot = &a->clips[k];
        if ((*slot)->clip == objs[i]->clip) continue; /* kept, or taken for an earlier graph clip */
        objs[i]->hdr.users++;
        bw_lua_object_unuse(&(*slot)->hdr);
        *slot = objs[i];
        lua_rawgeti(L, list, i + 1);
        lua_rawseti(L, -2, k + 1);
    }
    lua_pop(L, 1);
    return r;
}

static const bw_lua_graph_user graph_user = {graph_user_busy, graph_user_refresh};

/* Bind the Graph at `gidx` (0: none) to the animator at index 1: its clips
 * by name among the animator's (the same Clip under another name counts
 * too), its parameter names into a table, then bw_animator_set_graph;
 * the animator becomes one of the graph's users (its refresh_clips).
 * Returns 1, or pushes nothing and writes why (the animator unchanged). */
static int bind_graph(lua_State *L, lua_animator *a, int gidx, float fade, char *why, size_t why_size)
{
    const int top = lua_gettop(L);
    const bw_graph *g = gidx ? bw_lua_graph_check(L, gidx) : NULL;
    int n = g ? bw_graph_clip_count(g) : 0, pc = g ? bw_graph_param_count(g) : 0;
    lua_createtable(L, 3, 0); /* top + 1: the graph data */
    const int data = top + 1;
    size_t size = (size_t)n * sizeof(int) + (size_t)pc * (sizeof(bw_character_param) + sizeof(int)) + 1;
    char *block = (char *)lua_newuserdatauv(L, size, 0);
    memset(block, 0, size);
    lua_rawseti(L, data, GD_BLOCK);
    bw_character_param *params = (bw_character_param *)block;
    int *fire = (int *)(block + (size_t)pc * sizeof(bw_character_param));
    int *map = fire + pc;
    if (g) bw_lua_graph_push_param_indices(L, gidx); /* the graph's own name -> index table */
    else lua_newtable(L);
    lua_rawseti(L, data, GD_PARAMS);
    lua_newtable(L);
    lua_rawseti(L, data, GD_STRINGS);
    if (g) {
        lua_getiuservalue(L, 1, UV_NAMES); /* top + 2 */
        bw_lua_graph_push_clips(L, gidx);  /* top + 3 */
        for (int i = 0; i < n; i++) {
            lua_rawgeti(L, top + 3, i + 1);
            bw_lua_clip *c = (bw_lua_clip *)bw_lua_test_object(L, -1, BW_LUA_CLIP);
            lua_pop(L, 1);
            const char *name = c ? bw_clip_name(c->clip) : NULL;
            int k = name && name[0] ? clip_index(L, top + 2, name) : -1;
            for (int j = 0; k < 0 && c && j < a->clip_count; j++)
                if (a->clips[j]->clip == c->clip) k = j;
            if (k < 0) {
                snprintf(why, why_size, "graph: clip '%s' is not among the animator's clips", name ? name : "?");
                lua_settop(L, top);
                return 0;
            }
            float lg = bw_clip_length(c->clip), la = bw_clip_length(a->clips[k]->clip);
            if (lg != la) {
                snprintf(why, why_size, "graph: clip '%s' is %g s long in the graph, %g s in the animator", name,
                         (double)lg, (double)la);
                lua_settop(L, top);
                return 0;
            }
            map[i] = k;
        }
        lua_settop(L, data);
        lua_rawgeti(L, data, GD_STRINGS);
        const int strings = lua_gettop(L);
        for (int l = 0; l < bw_graph_layer_count(g); l++) {
            lua_pushstring(L, bw_graph_layer_name(g, l));
            anchor(L, strings);
            for (int s = 0; s < bw_graph_state_count(g, l); s++) {
                lua_pushstring(L, bw_graph_state_name(g, l, s));
                anchor(L, strings);
            }
        }
        lua_pop(L, 1);
    }
    bw_error err[1];
    bw_animator_errors errs = {err, 1, 0};
    bw_result r = bw_animator_set_graph(a->animator, g, g ? map : NULL, fade, &errs);
    if (r != BW_OK) {
        snprintf(why, why_size, "graph: %.100s: %.140s", errs.count ? err[0].where : "graph",
                 errs.count ? err[0].message : bw_result_name(r));
        lua_settop(L, top);
        return 0;
    }
    /* swap in: the handle (one use counted) and its data */
    bw_lua_object *obj = g ? (bw_lua_object *)lua_touserdata(L, gidx) : NULL;
    if (obj) obj->users++;
    if (a->graph_obj) bw_lua_object_unuse(a->graph_obj);
    a->graph_obj = obj;
    a->graph = g;
    a->param_count = pc;
    a->params = params;
    a->fire = fire;
    a->graph_clip = map;
    if (g) bw_lua_graph_add_user(L, gidx, 1, &graph_user); /* graph:refresh_clips hands it the new clips */
    lua_settop(L, data);
    lua_setiuservalue(L, 1, UV_GRAPH_DATA);
    if (g) lua_pushvalue(L, gidx);
    else lua_pushnil(L);
    lua_setiuservalue(L, 1, UV_GRAPH);
    lua_settop(L, top);
    return 1;
}

/* ---- creation ---- */

static const char *const event_keys[] = {"kind", "name", "layer", "state", "clip", "time", NULL};
static const char *const play_keys[] = {"clip", "weight", "rate", "time", NULL};

/* The output tables (UV_OUT) and the strings they will hold. */
static void make_outputs(lua_State *L, lua_animator *a, const bw_rig *rig)
{
    lua_createtable(L, 0, 12);
    const int out = lua_gettop(L);
    static const char *const lists[] = {"problems", "events", "plays", "strings", NULL};
    for (int i = 0; lists[i]; i++) {
        lua_createtable(L, PRESIZED_RECORDS, 0);
        lua_setfield(L, out, lists[i]);
    }
    /* the records the event and play lists reuse: made now, so that only
     * an update with more than PRESIZED_RECORDS of them makes more (once) */
    lua_createtable(L, PRESIZED_RECORDS, 0);
    for (int i = 1; i <= PRESIZED_RECORDS; i++) {
        new_record(L, event_keys);
        lua_rawseti(L, -2, i);
    }
    lua_setfield(L, out, "event_pool");
    lua_createtable(L, PRESIZED_RECORDS, 0);
    for (int i = 1; i <= PRESIZED_RECORDS; i++) {
        new_record(L, play_keys);
        lua_rawseti(L, -2, i);
    }
    lua_setfield(L, out, "play_pool");
    int dim = bw_animator_expression_dim(a->animator);
    lua_createtable(L, dim, 0);
    for (int i = 1; i <= dim; i++) {
        lua_pushnumber(L, 0);
        lua_rawseti(L, -2, i);
    }
    lua_setfield(L, out, "expression");
    static const char *const gaze_keys[] = {"pitch_l", "yaw_l", "pitch_r", "yaw_r", NULL};
    static const char *const root_keys[] = {"x", "z", "yaw", NULL};
    new_record(L, gaze_keys);
    lua_setfield(L, out, "gaze");
    new_record(L, root_keys);
    lua_setfield(L, out, "root_motion");
    int no = 0;
    const bw_joint_override *ov = bw_animator_joint_overrides(a->animator, &no);
    lua_createtable(L, no, 0);
    for (int i = 0; i < no; i++) {
        lua_createtable(L, 0, 2);
        lua_pushstring(L, bw_rig_joint_name(rig, ov[i].joint));
        lua_setfield(L, -2, "joint");
        bw_lua_push_floats(L, ov[i].r, 4);
        lua_setfield(L, -2, "r");
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, out, "overrides");
    /* { field = true } for the state's fields (UV_STATE_FIELDS): a state's
     * keys are checked against it, one lookup each (its keys anchor the
     * names the reader pushes, present or not) */
    bw_lua_push_keys(L, state_fields, true);
    lua_setiuservalue(L, 1, UV_STATE_FIELDS);
    /* marker names and event kinds, anchored */
    lua_getfield(L, out, "strings");
    const int strings = lua_gettop(L);
    static const char *const kinds[] = {"enter", "exit", "marker", "gesture_end", "blink", NULL};
    for (int i = 0; kinds[i]; i++) {
        lua_pushstring(L, kinds[i]);
        anchor(L, strings);
    }
    for (int c = 0; c < a->clip_count; c++)
        for (int m = 0; m < bw_clip_marker_count(a->clips[c]->clip); m++) {
            lua_pushstring(L, bw_clip_marker_name(a->clips[c]->clip, m));
            anchor(L, strings);
        }
    lua_pop(L, 1);
    /* face clip names -> face index */
    lua_createtable(L, 0, a->face_count);
    for (int f = 0; f < a->face_count; f++) {
        lua_pushstring(L, a->names[a->face_clip[f]]);
        lua_pushinteger(L, f);
        lua_rawset(L, -3);
    }
    lua_setfield(L, out, "faces");
    /* the output Pose */
    lua_getiuservalue(L, 1, UV_RIG);
    bw_lua_push_pose(L, lua_gettop(L));
    lua_setfield(L, out, "pose");
    lua_pop(L, 1);
    lua_setiuservalue(L, 1, UV_OUT);
}

/* `clips = Asset`: replace the Asset at `idx` by a { name = Clip } table of
 * its clips (an unnamed clip as "#N", 0-based as bw_asset_find_clip; two
 * clips of one name: the first counts). */
static void clips_of_asset(lua_State *L, int idx)
{
    lua_getfield(L, idx, "clips"); /* the Asset's method */
    lua_pushvalue(L, idx);
    lua_call(L, 1, 1);
    const int list = lua_gettop(L);
    int n = (int)lua_rawlen(L, list);
    lua_createtable(L, 0, n);
    const int by_name = list + 1;
    for (int i = 1; i <= n; i++) {
        lua_rawgeti(L, list, i); /* clip */
        const char *name = bw_clip_name(bw_lua_check_clip(L, -1)->clip);
        if (name && name[0]) lua_pushstring(L, name); /* clip, key */
        else lua_pushfstring(L, "#%d", i - 1);
        lua_pushvalue(L, -1);
        if (lua_rawget(L, by_name) == LUA_TNIL) { /* clip, key, nil */
            lua_pop(L, 1);
            lua_pushvalue(L, -2);
            lua_rawset(L, by_name);
            lua_pop(L, 1);
        } else {
            lua_pop(L, 3);
        }
    }
    lua_replace(L, idx);
    lua_settop(L, list - 1);
}

/* blendwerk.animator{ rig =, clips = { name = Clip } | Asset, ... } -> Animator | nil, message */
static int l_animator(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    char why[256];
    if (!bw_lua_check_fields_hint(L, 1, desc_fields, why, sizeof why)) return fail(L, "%s", why);
    bw_lua_raw_field(L, 1, "rig"); /* 2 */
    bw_lua_rig *rig = bw_lua_check_rig(L, 2);
    bw_lua_raw_field(L, 1, "clips"); /* 3 */
    if (bw_lua_test_object(L, 3, BW_LUA_ASSET)) clips_of_asset(L, 3);
    if (!lua_istable(L, 3)) return fail(L, "clips must be a table { name = Clip } or an Asset");
    int n = 0;
    lua_pushnil(L);
    while (lua_next(L, 3)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) return fail(L, "clips: keys must be clip names");
        n++;
    }
    if (n > 65536) return fail(L, "clips: more than 65536");
    int faces[256], gestures[256], face_count = 0, gesture_count = 0;
    /* the handle and its buffers (one Lua-owned block) */
    lua_animator *a = (lua_animator *)bw_lua_new_object(L, sizeof *a, UV_COUNT, BW_LUA_ANIMATOR, destroy_animator); /* 4 */
    a->map.ref = a->envelope.ref = LUA_NOREF;
    lua_createtable(L, 0, n); /* 5: name -> index */
    /* the face list is read below, once the names are known; its buffers
     * are sized for the largest list (256) to keep one block */
    int dim = 0;
    if (bw_lua_raw_field(L, 1, "expression_space") == LUA_TTABLE) {
        bw_lua_raw_field(L, -1, "dim");
        /* range-checked before the cast: 2^32 + 3 is no dim, not 3 */
        lua_Integer v = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : 0;
        dim = v >= 1 && v <= BW_ANIMATOR_MAX_DIM ? (int)v : -1;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    a->expr_cap = dim > BW_ARKIT52_COUNT && dim <= BW_ANIMATOR_MAX_DIM ? dim : BW_ARKIT52_COUNT;
    size_t block = (size_t)n * (sizeof(bw_lua_clip *) + sizeof(const bw_clip *) + sizeof(const char *) +
                                2 * sizeof(float)) +
                   256 * (sizeof(int) + 2 * sizeof(float)) + 2 * (size_t)a->expr_cap * sizeof(float) + 1;
    char *buf = (char *)lua_newuserdatauv(L, block, 0); /* 6 */
    memset(buf, 0, block);
    lua_setiuservalue(L, 4, UV_BUFFERS);
    a->clips = (bw_lua_clip **)buf;
    const bw_clip **clips = (const bw_clip **)(buf + (size_t)n * sizeof(bw_lua_clip *));
    const char **names = (const char **)((char *)clips + (size_t)n * sizeof(const bw_clip *));
    a->weights = (float *)((char *)names + (size_t)n * sizeof(const char *));
    a->next_weights = a->weights + n;
    a->face_w = a->next_weights + n;
    a->next_face_w = a->face_w + 256;
    a->expression = a->next_face_w + 256;
    a->next_expression = a->expression + a->expr_cap;
    a->face_clip = (int *)(a->next_expression + a->expr_cap);
    a->names = names;
    /* the animator's own list of its Clips, slot i's at i + 1 (not the
     * caller's table, which the caller may change) */
    lua_createtable(L, n, 0);
    lua_setiuservalue(L, 4, UV_CLIPS);
    int i = 0;
    lua_pushnil(L);
    while (lua_next(L, 3)) {
        bw_lua_clip *c = (bw_lua_clip *)bw_lua_test_object(L, -1, BW_LUA_CLIP);
        if (!c) return fail(L, "clips.%s is not a blendwerk.Clip", lua_tostring(L, -2));
        lua_getiuservalue(L, 4, UV_CLIPS);
        lua_pushvalue(L, -2);
        lua_rawseti(L, -2, i + 1);
        lua_pop(L, 1);
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
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
    a->main = lua_tothread(L, -1);
    lua_pop(L, 1);
    int type = bw_lua_raw_field(L, 1, "expression_space"); /* 6 */
    if (type == LUA_TTABLE) {
        if (!bw_lua_check_fields_hint(L, 6, space_fields, why, sizeof why)) return fail(L, "expression_space: %s", why);
        bw_lua_raw_field(L, 6, "kind");
        const char *kind = lua_tostring(L, -1);
        if (kind && strcmp(kind, "custom") == 0) {
            if (dim < 1 || dim > BW_ANIMATOR_MAX_DIM)
                return fail(L, "expression_space: a custom space needs dim, an integer in [1, %d]", BW_ANIMATOR_MAX_DIM);
            if (bw_lua_raw_field(L, 6, "map") != LUA_TFUNCTION)
                return fail(L, "expression_space: a custom space needs map = function(arkit, out) ... end");
            a->map.ref = luaL_ref(L, LUA_REGISTRYINDEX);
            lua_createtable(L, 2, 0); /* { arkit, out } */
            lua_createtable(L, BW_ARKIT52_COUNT, 0);
            for (int k = 1; k <= BW_ARKIT52_COUNT; k++) {
                lua_pushnumber(L, 0);
                lua_rawseti(L, -2, k);
            }
            lua_rawseti(L, -2, 1);
            lua_createtable(L, dim, 0);
            for (int k = 1; k <= dim; k++) {
                lua_pushnumber(L, 0);
                lua_rawseti(L, -2, k);
            }
            lua_rawseti(L, -2, 2);
            lua_setiuservalue(L, 4, UV_MAP);
            d.expression_space.kind = BW_EXPRESSION_CUSTOM;
            d.expression_space.dim = dim;
            d.expression_space.map = lua_map;
            d.expression_space.user = a;
        } else if (kind && strcmp(kind, "arkit52") != 0) {
            return fail(L, "expression_space: kind '%s': \"arkit52\" or \"custom\"", kind);
        } else if (!kind && !lua_isnil(L, -1)) {
            return fail(L, "expression_space.kind must be \"arkit52\" or \"custom\"");
        }
        lua_pop(L, 1);
    } else if (type != LUA_TNIL) {
        return fail(L, "expression_space must be a table { kind =, dim =, map = }");
    }
    lua_pop(L, 1);
    /* locomotion */
    bw_locomotion_entry loco[64];
    type = bw_lua_raw_field(L, 1, "locomotion"); /* 6 */
    if (type == LUA_TTABLE) {
        int m = (int)lua_rawlen(L, 6);
        if (m > 64) return fail(L, "locomotion: more than 64 entries");
        for (int k = 1; k <= m; k++) {
            if (lua_rawgeti(L, 6, k) != LUA_TTABLE) return fail(L, "locomotion[%d] must be { clip =, speed = }", k);
            if (!bw_lua_check_fields_hint(L, -1, loco_fields, why, sizeof why)) return fail(L, "locomotion[%d]: %s", k, why);
            if (bw_lua_raw_field(L, -1, "speed") == LUA_TNIL)
                return fail(L, "locomotion[%d].speed is required (the m/s the clip was authored at)", k);
            lua_pop(L, 1);
            bw_lua_raw_field(L, -1, "clip");
            const char *name = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
            int c = name ? clip_index(L, 5, name) : -1;
            if (c < 0) return fail(L, "locomotion[%d].clip: no such clip '%s'", k, name ? name : "?");
            lua_pop(L, 1);
            loco[k - 1].clip = c;
            loco[k - 1].speed = opt_number_field(L, lua_gettop(L), "speed", NAN);
            lua_pop(L, 1);
        }
        d.locomotion = loco;
        d.locomotion_count = m;
    } else if (type != LUA_TNIL) {
        return fail(L, "locomotion must be a list of { clip =, speed = }");
    }
    lua_pop(L, 1);
    /* head */
    const char *chain[BW_ANIMATOR_MAX_CHAIN];
    float weights[BW_ANIMATOR_MAX_CHAIN];
    type = bw_lua_raw_field(L, 1, "head"); /* 6: stays, so chain names stay anchored */
    if (type == LUA_TTABLE) {
        if (!bw_lua_check_fields_hint(L, 6, head_fields, why, sizeof why)) return fail(L, "head: %s", why);
        /* an absent limit is the default, a given 0 is 0 (as scripts/head_aim.lua
         * and blendwerk.aim_clamp take it) */
        const bw_aim_limits defaults = BW_ANIMATOR_HEAD_LIMITS;
        d.head.yaw_limit = opt_number_field(L, 6, "yaw_limit", defaults.yaw);
        d.head.pitch_limit = opt_number_field(L, 6, "pitch_limit", defaults.pitch);
        d.head.eye_yaw_limit = opt_number_field(L, 6, "eye_yaw_limit", defaults.eye_yaw);
        d.head.eye_pitch_limit = opt_number_field(L, 6, "eye_pitch_limit", defaults.eye_pitch);
        d.head.has_limits = true;
        bw_lua_raw_field(L, 6, "disabled");
        d.head.disabled = lua_toboolean(L, -1);
        lua_pop(L, 1);
        if (bw_lua_raw_field(L, 6, "chain") == LUA_TTABLE) { /* 7 */
            int m = (int)lua_rawlen(L, 7);
            if (m > BW_ANIMATOR_MAX_CHAIN) return fail(L, "head.chain: more than %d joints", BW_ANIMATOR_MAX_CHAIN);
            for (int k = 1; k <= m; k++) {
                lua_rawgeti(L, 7, k);
                chain[k - 1] = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
                if (!chain[k - 1]) return fail(L, "head.chain[%d] must be a joint name", k);
                lua_pop(L, 1); /* anchored by the chain table */
            }
            d.head.chain = chain;
            d.head.chain_count = m;
            if (bw_lua_raw_field(L, 6, "weights") == LUA_TTABLE) { /* 8 */
                if ((int)lua_rawlen(L, 8) != m) return fail(L, "head.weights must have one weight per chain joint");
                for (int k = 1; k <= m; k++) {
                    lua_rawgeti(L, 8, k);
                    if (!lua_isnumber(L, -1)) return fail(L, "head.weights[%d] must be a number", k);
                    weights[k - 1] = (float)lua_tonumber(L, -1);
                    lua_pop(L, 1);
                }
                d.head.weights = weights;
            }
            lua_pop(L, 1);
        }
        /* the chain table stays on the stack until create */
    } else if (type != LUA_TNIL) {
        return fail(L, "head must be a table { chain =, weights =, ... }");
    }
    if (!read_clip_list(L, 1, "gestures", 5, gestures, 256, &gesture_count, why, sizeof why) ||
        !read_clip_list(L, 1, "face", 5, faces, 256, &face_count, why, sizeof why))
        return fail(L, "%s", why);
    d.gesture_clips = gestures;
    d.gesture_clip_count = gesture_count;
    d.face_clips = faces;
    d.face_clip_count = face_count;
    int top = lua_gettop(L);
    type = bw_lua_raw_field(L, 1, "blink");
    if (type == LUA_TTABLE) {
        if (!bw_lua_check_fields_hint(L, top + 1, blink_fields, why, sizeof why)) return fail(L, "blink: %s", why);
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
    } else if (type == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
        d.blink.disabled = true; /* blink = false */
    } else if (type != LUA_TNIL && type != LUA_TBOOLEAN) {
        return fail(L, "blink must be a table { seed =, ... } or false");
    }
    lua_pop(L, 1);
    int graph_type = bw_lua_raw_field(L, 1, "graph");
    bool graph_ok = graph_type == LUA_TNIL || bw_lua_test_object(L, -1, BW_LUA_GRAPH);
    lua_pop(L, 1);
    if (!graph_ok) return fail(L, "graph must be a blendwerk.Graph (blendwerk.graph(...))");
    bw_error err[1];
    bw_animator_errors errs = {err, 1, 0};
    const bw_lua_warnings *warnings = bw_lua_push_warnings(L, &d.logger); /* on top, above the desc's tables */
    bw_result r = bw_animator_create(&d, &a->animator, &errs);
    if (r == BW_OK) {
        bw_lua_push_warning_list(L, warnings, NULL);
        lua_setiuservalue(L, 4, UV_WARNINGS);
    }
    lua_pop(L, 1); /* the buffer */
    if (r != BW_OK) {
        char where[sizeof err[0].where + 16]; /* one index one digit longer at most */
        lua_desc_path(errs.count ? err[0].where : "desc", where, sizeof where);
        return fail(L, "%s: %s", where, errs.count ? err[0].message : bw_result_name(r));
    }
    a->face_count = face_count;
    memcpy(a->face_clip, faces, (size_t)face_count * sizeof(int));
    bw_lua_object_use(&a->hdr, &rig->hdr);
    lua_pushvalue(L, 2);
    lua_setiuservalue(L, 4, UV_RIG);
    lua_pushvalue(L, 5);
    lua_setiuservalue(L, 4, UV_NAMES);
    /* from here on the animator is at index 1 (the helpers' convention) */
    lua_settop(L, 4);
    lua_insert(L, 1); /* 1 animator, 2 desc, 3 rig, 4 clips */
    lua_settop(L, 2);
    make_outputs(L, a, rig->rig);
    if (graph_type != LUA_TNIL) {
        bw_lua_raw_field(L, 2, "graph"); /* 3 */
        if (!bind_graph(L, a, 3, 0.0f, why, sizeof why)) return fail(L, "%s", why);
    } else if (!bind_graph(L, a, 0, 0.0f, why, sizeof why)) {
        return fail(L, "%s", why);
    }
    lua_settop(L, 1);
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


/* Push the table at field `field` of the state at t and return 1; nothing
 * pushed and 0 when it is absent, or (a problem: "state.FIELD must be
 * SHAPE") not a table. */
static int open_field(reader *r, int t, const char *field, const char *shape)
{
    int type = bw_lua_raw_field(r->L, t, field);
    if (type != LUA_TTABLE && type != LUA_TNIL) add_problem(r, "state.%s must be %s", field, shape);
    if (type == LUA_TTABLE) return 1;
    lua_pop(r->L, 1);
    return 0;
}

/* Push the graph's parameter names (name -> 0-based index) and return
 * their index, or 0 (nothing pushed) without a graph. */
static int push_param_names(lua_State *L, const lua_animator *a)
{
    if (!a || !a->graph) return 0;
    lua_getiuservalue(L, 1, UV_GRAPH_DATA);
    lua_rawgeti(L, -1, GD_PARAMS);
    lua_remove(L, -2);
    return lua_gettop(L);
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

/* A { name = weight } table at field `field`: weights by the names table
 * at `names` (name -> 0-based; NULL `a`: names not checked) into w[0..count). */
static bool read_weights(reader *r, int t, const char *field, int names, const char *what, float *w, int count)
{
    lua_State *L = r->L;
    if (!open_field(r, t, field, "a table { name = weight }")) return false;
    for (int i = 0; i < count; i++) w[i] = 0.0f;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        const char *name = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        int c = name && names ? index_of_key(L, names, -2) : -1;
        if (!name) add_problem(r, "state.%s: keys must be %s names", field, what);
        else if (names && c < 0) add_problem(r, "state.%s.%s: no such %s", field, name, what);
        else if (lua_type(L, -1) != LUA_TNUMBER) add_problem(r, "state.%s.%s is not a number", field, name);
        else if (names) w[c] = (float)lua_tonumber(L, -1);
        else if (!isfinite(lua_tonumber(L, -1))) add_problem(r, "state.%s.%s %s", field, name,
                                                              isnan(lua_tonumber(L, -1)) ? "is NaN" : "is infinite");
        else if (lua_tonumber(L, -1) < 0) add_problem(r, "state.%s.%s is negative", field, name);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return names != 0;
}

/* params = { name = number | boolean }: by the graph's names into s->params. */
static void read_params(reader *r, int t, lua_animator *a, bw_character_state *s)
{
    lua_State *L = r->L;
    if (!open_field(r, t, "params", "a table { name = value }")) return;
    const int table = lua_gettop(L);
    int names = push_param_names(L, a);
    lua_pushnil(L);
    while (lua_next(L, table)) {
        const char *name = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        int vt = lua_type(L, -1);
        int p = name && names ? index_of_key(L, names, -2) : -1;
        bw_graph_param_kind kind = p >= 0 ? bw_graph_param_kind_of(a->graph, p) : BW_GRAPH_PARAM_FLOAT;
        float v = 0.0f;
        const char *bad = vt == LUA_TNUMBER ? bw_lua_to_float(lua_tonumber(L, -1), &v) : NULL;
        if (!name) add_problem(r, "state.params: keys must be parameter names");
        else if (a && !a->graph) add_problem(r, "state.params.%s: the animator has no graph", name);
        else if (names && p < 0) add_problem(r, "state.params.%s: no such parameter", name);
        else if (kind == BW_GRAPH_PARAM_TRIGGER) add_problem(r, "state.params.%s is a trigger: fire it", name);
        else if (vt == LUA_TBOOLEAN && kind == BW_GRAPH_PARAM_BOOL) v = lua_toboolean(L, -1) ? 1.0f : 0.0f;
        else if (vt == LUA_TBOOLEAN && !names) v = 0.0f;
        else if (vt != LUA_TNUMBER)
            add_problem(r, "state.params.%s is not a number%s", name, kind == BW_GRAPH_PARAM_BOOL ? " or a boolean" : "");
        else if (bad) add_problem(r, "state.params.%s %s", name, bad);
        if (names && p >= 0 && s->param_count < a->param_count && r->count == 0)
            a->params[s->param_count++] = (bw_character_param){p, v};
        lua_pop(L, 1);
    }
    lua_settop(L, table - 1);
}

/* fire = { "trigger", ... }: by the graph's names into s->fire, each
 * trigger once however often the list names it. */
static void read_fire(reader *r, int t, lua_animator *a, bw_character_state *s)
{
    lua_State *L = r->L;
    if (!open_field(r, t, "fire", "a list of trigger names")) return;
    const int list = lua_gettop(L);
    int n = (int)lua_rawlen(L, list);
    int names = push_param_names(L, a);
    if (a && !a->graph && n > 0) add_problem(r, "state.fire: the animator has no graph");
    for (int i = 1; i <= n && (!a || names); i++) {
        lua_rawgeti(L, list, i);
        const char *name = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        int p = name && names ? index_of_key(L, names, -1) : -1;
        if (!name) add_problem(r, "state.fire[%d] must be a trigger name", i);
        else if (names && p < 0) add_problem(r, "state.fire[%d]: no such trigger '%s'", i, name);
        else if (names && bw_graph_param_kind_of(a->graph, p) != BW_GRAPH_PARAM_TRIGGER)
            add_problem(r, "state.fire[%d]: '%s' is not a trigger", i, name);
        else if (names && r->count == 0) {
            /* firing a trigger twice in a frame is firing it once (SPEC
             * §11): each trigger once, so a->fire (param_count) holds them */
            bool again = false;
            for (int k = 0; k < s->fire_count && !again; k++) again = a->fire[k] == p;
            if (!again) a->fire[s->fire_count++] = p;
        }
        lua_pop(L, 1);
    }
    lua_settop(L, list - 1);
}

/* Whether every key of the state table at t is one of state_fields: one
 * lookup a key in the animator's set (its user value, at 1), per frame; a
 * miss goes to bw_lua_check_fields_hint for the message. */
static bool known_state_fields(lua_State *L, int t)
{
    lua_getiuservalue(L, 1, UV_STATE_FIELDS);
    bool known = bw_lua_fields_in_set(L, t, -1);
    lua_pop(L, 1);
    return known;
}

/* Read the state table at `t` into *s (clip weights into w, face weights
 * into fw, expression into ex); problems go to the list at r->problems.
 * `a` may be NULL (no names to check against). */
static void read_state(reader *r, int t, lua_animator *a, bw_character_state *s, float *w, float *fw, float *ex)
{
    lua_State *L = r->L;
    memset(s, 0, sizeof *s);
    if (!lua_istable(L, t)) {
        add_problem(r, "state must be a table");
        return;
    }
    char why[256];
    if (!(a && known_state_fields(L, t)) && !bw_lua_check_fields_hint(L, t, state_fields, why, sizeof why))
        add_problem(r, "state: %s", why);
    read_vec(r, t, "velocity", s->velocity, 3);
    read_vec(r, t, "position", s->position, 3);
    s->has_look_at = read_vec(r, t, "look_at", s->look_at, 3);
    int type = bw_lua_raw_field(L, t, "yaw");
    if (type == LUA_TNUMBER) s->yaw = (float)lua_tonumber(L, -1);
    else if (type != LUA_TNIL) add_problem(r, "state.yaw is not a number");
    lua_pop(L, 1);
    int names = 0, faces = 0;
    if (a) {
        lua_getiuservalue(L, 1, UV_NAMES);
        names = lua_gettop(L);
        lua_getiuservalue(L, 1, UV_OUT);
        lua_getfield(L, -1, "faces");
        lua_remove(L, -2);
        faces = lua_gettop(L);
    }
    if (read_weights(r, t, "clips", names, "clip", w, a ? a->clip_count : 0)) {
        s->clip_weights = w;
        s->clip_weight_count = a->clip_count;
    }
    if (read_weights(r, t, "face", faces, "face clip", fw, a ? a->face_count : 0)) {
        s->face_weights = fw;
        s->face_weight_count = a->face_count;
    }
    if (a) lua_pop(L, 2);
    type = bw_lua_raw_field(L, t, "expression");
    int dim = a ? bw_animator_expression_dim(a->animator) : BW_ARKIT52_COUNT;
    if (type == LUA_TTABLE) {
        int n = (int)lua_rawlen(L, -1);
        if (n != BW_ARKIT52_COUNT && n != dim) {
            if (dim != BW_ARKIT52_COUNT) add_problem(r, "state.expression has %d numbers, expected 52 or %d", n, dim);
            else add_problem(r, "state.expression has %d numbers, expected 52", n);
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
        add_problem(r, "state.expression must be a list of 52 numbers%s", dim != BW_ARKIT52_COUNT ? " (or dim)" : "");
    }
    lua_pop(L, 1);
    if (a && a->graph) {
        s->params = a->params;
        s->fire = a->fire;
    }
    read_params(r, t, a, s);
    read_fire(r, t, a, s);
}

/* The C problems in Lua terms: indices from 1, clip and face weights by name. */
static void add_core_problems(reader *r, const bw_state_problem *p, int n, lua_animator *a)
{
    for (int i = 0; i < n; i++) {
        int idx = -1;
        char field[64];
        if (sscanf(p[i].path, "state.clip_weights[%d]", &idx) == 1 && a && idx >= 0 && idx < a->clip_count) {
            add_problem(r, "state.clips.%s %s", a->names[idx], p[i].message);
        } else if (sscanf(p[i].path, "state.face_weights[%d]", &idx) == 1 && a && idx >= 0 && idx < a->face_count) {
            add_problem(r, "state.face.%s %s", a->names[a->face_clip[idx]], p[i].message);
        } else if (sscanf(p[i].path, "state.%63[a-z_][%d]", field, &idx) == 2) {
            add_problem(r, "state.%s[%d] %s", field, idx + 1, p[i].message);
        } else {
            add_problem(r, "%s %s", p[i].path, p[i].message);
        }
    }
}

/* Read and validate the state at t into the list at `list` (emptied
 * first: `old_len` entries); returns the number of problems. */
static int take_state(lua_State *L, int t, int list, int old_len, lua_animator *a, bw_character_state *s, float *w,
                      float *fw, float *ex)
{
    for (int i = 1; i <= old_len; i++) {
        lua_pushnil(L);
        lua_rawseti(L, list, i);
    }
    reader r = {L, list, 0};
    read_state(&r, t, a, s, w, fw, ex);
    { /* the core's numeric checks of what was read, also after the reader's
       * own problems: every problem of the state at once */
        bw_state_problem p[BW_ANIMATOR_MAX_PROBLEMS];
        int n = 0;
        bw_character_state_validate(s, a ? a->animator : NULL, p, BW_ANIMATOR_MAX_PROBLEMS, &n);
        add_core_problems(&r, p, n < BW_ANIMATOR_MAX_PROBLEMS ? n : BW_ANIMATOR_MAX_PROBLEMS, a);
    }
    return r.count;
}

/* true, or nil and the problems list at `list`. */
static int push_outcome(lua_State *L, int n, int list)
{
    if (n == 0) {
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_pushnil(L);
    lua_pushvalue(L, list);
    return 2;
}

/* Push the output table `name` of the animator at 1. */
static int push_out(lua_State *L, const char *name)
{
    lua_getiuservalue(L, 1, UV_OUT);
    lua_getfield(L, -1, name);
    lua_remove(L, -2);
    return lua_gettop(L);
}

/* What update_protected runs. */
typedef struct update_args {
    float dt;
    const bw_character_state *state;
    const float *camera;
} update_args;

/* bw_animator_update in a protected call (the animator, the update_args
 * as light userdata): an error cannot leave the update marked as running.
 * The map, envelopes and graph predicates run on this thread, the
 * animator at index 1. */
static int update_protected(lua_State *L)
{
    lua_animator *a = (lua_animator *)lua_touserdata(L, 1);
    const update_args *u = (const update_args *)lua_touserdata(L, 2);
    a->thread = L;
    bw_animator_update(a->animator, u->dt, u->state, u->camera);
    return 0;
}

/* Raise when the animator at 1 is inside its own update (a:update or
 * a:set_graph from its map, an envelope or a graph predicate would change
 * what the update is working on). */
static void check_not_updating(lua_State *L, const lua_animator *a, const char *what)
{
    if (a->thread)
        luaL_error(L, "animator:%s: called from the animator's own update (its map, an envelope or a graph predicate)",
                   what);
}

/* a:update(dt, state [, camera]) -> true | nil, problems */
static int l_update(lua_State *L)
{
    lua_animator *a = check_animator(L, 1);
    check_not_updating(L, a, "update");
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
    } else if (!lua_isnoneornil(L, 4)) {
        return luaL_typeerror(L, 4, "camera position {x, y, z}");
    }
    lua_settop(L, 3);
    int list = push_out(L, "problems"); /* 4 */
    bw_character_state s;
    int problems = take_state(L, 3, list, a->problem_len, a, &s, a->next_weights, a->next_face_w, a->next_expression);
    a->problem_len = problems;
    const bw_character_state *use = &s;
    if (problems == 0) {
        if (s.clip_weights) memcpy(a->weights, a->next_weights, (size_t)a->clip_count * sizeof(float));
        if (s.face_weights) memcpy(a->face_w, a->next_face_w, (size_t)a->face_count * sizeof(float));
        if (s.expression) memcpy(a->expression, a->next_expression, (size_t)s.expression_count * sizeof(float));
        a->last = s;
        if (s.clip_weights) a->last.clip_weights = a->weights;
        if (s.face_weights) a->last.face_weights = a->face_w;
        if (s.expression) a->last.expression = a->expression;
        a->last.params = NULL; /* applied once, now */
        a->last.param_count = 0;
        a->last.fire = NULL;
        a->last.fire_count = 0;
        a->has_last = true;
    } else {
        memset(&s, 0, sizeof s);
        if (a->has_last) use = &a->last;
    }
    /* The graph's predicates run on this thread during the update and on
     * the one they ran in before after it, so the graph never keeps a
     * coroutine that may be collected (its handle is anchored in UV_GRAPH). */
    bw_lua_object *graph = a->graph_obj;
    lua_State *before = graph ? bw_lua_graph_use_thread(graph, L) : NULL;
    update_args u = {dt, use, has_cam ? cam : NULL};
    lua_pushcfunction(L, update_protected);
    lua_pushvalue(L, 1);
    lua_pushlightuserdata(L, &u);
    /* a use of its own for the update: a callback that closes the
     * animator frees it only once the update is over */
    a->hdr.users++;
    int status = lua_pcall(L, 2, 0, 0);
    a->thread = NULL;
    if (graph) bw_lua_graph_use_thread(graph, before);
    bw_lua_object_unuse(&a->hdr);
    if (status != LUA_OK) return lua_error(L);
    return push_outcome(L, problems, list);
}

/* blendwerk.validate_character_state(state [, animator]) -> true | nil, problems */
static int l_validate(lua_State *L)
{
    lua_settop(L, 2);
    lua_animator *a = lua_isnil(L, 2) ? NULL : check_animator(L, 2);
    if (a) { /* the animator at 1 for the uservalue reads */
        lua_pushvalue(L, 2);
        lua_pushvalue(L, 1);
        lua_replace(L, 2);
        lua_replace(L, 1);
    }
    lua_newtable(L); /* 3: the caller keeps this list */
    bw_character_state s;
    float ex[BW_ARKIT52_COUNT];
    /* with an animator, its scratch buffers (the next update overwrites them anyway) */
    int n = take_state(L, a ? 2 : 1, 3, 0, a, &s, a ? a->next_weights : NULL, a ? a->next_face_w : NULL,
                       a ? a->next_expression : ex);
    return push_outcome(L, n, 3);
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

/* a:set_graph(graph | nil [, fade]) -> true | nil, message */
static int l_set_graph(lua_State *L)
{
    lua_animator *a = check_animator(L, 1);
    check_not_updating(L, a, "set_graph");
    lua_settop(L, 3);
    if (!lua_isnil(L, 2) && !bw_lua_test_object(L, 2, BW_LUA_GRAPH))
        return luaL_typeerror(L, 2, "blendwerk.Graph or nil");
    float fade = DEFAULT_SET_GRAPH_FADE;
    if (!lua_isnil(L, 3)) {
        const char *bad = bw_lua_to_float(luaL_checknumber(L, 3), &fade);
        if (bad || fade < 0.0f) return luaL_argerror(L, 3, bad ? bad : "fade must be >= 0");
    }
    char why[256];
    if (!bind_graph(L, a, lua_isnil(L, 2) ? 0 : 2, fade, why, sizeof why)) return fail(L, "%s", why);
    lua_pushboolean(L, 1);
    return 1;
}

/* The graph layer named or numbered (1-based) at arg (default 1) -> 0-based
 * (the cursor binding's lookup, lua_graph_fields.h). */
static int check_layer(lua_State *L, lua_animator *a, int arg)
{
    if (!a->graph) luaL_error(L, "the animator has no graph");
    return bw_lua_check_layer(L, a->graph, arg);
}


/* a:status([layer]) -> the cursor's status table (lua_graph_fields.h) */
static int l_status(lua_State *L)
{
    lua_animator *a = check_animator(L, 1);
    int layer = check_layer(L, a, 2);
    bw_lua_push_layer_status(L, a->graph, bw_animator_cursor(a->animator), layer);
    return 1;
}

/* a:param(name) -> number | boolean (bools and triggers as booleans) */
static int l_param(lua_State *L)
{
    lua_animator *a = check_animator(L, 1);
    const char *name = luaL_checkstring(L, 2);
    if (!a->graph) return luaL_error(L, "the animator has no graph");
    int p = bw_graph_find_param(a->graph, name);
    if (p < 0) return luaL_argerror(L, 2, lua_pushfstring(L, "no parameter '%s'", name));
    bw_lua_push_param_value(L, a->graph, p, bw_graph_cursor_param(bw_animator_cursor(a->animator), p));
    return 1;
}

/* a:travel(state [, layer]) -> true | nil, message: the graph cursor's
 * travel (queued edges fire as their exit-time gates open) */
static int l_travel(lua_State *L)
{
    lua_animator *a = check_animator(L, 1);
    if (!a->graph) return luaL_error(L, "the animator has no graph");
    return bw_lua_graph_travel(L, a->graph, bw_animator_cursor_mut(a->animator), 2);
}

/* ---- outputs (the animator's own tables, refreshed in place) ---- */

static int l_expression(lua_State *L)
{
    lua_animator *a = check_animator(L, 1);
    int dim = 0;
    const float *e = bw_animator_expression(a->animator, &dim);
    int t = push_out(L, "expression");
    for (int i = 0; i < dim; i++) {
        lua_pushnumber(L, (lua_Number)e[i]);
        lua_rawseti(L, t, i + 1);
    }
    return 1;
}

static int l_gaze(lua_State *L)
{
    lua_animator *a = check_animator(L, 1);
    const float *g = bw_animator_gaze(a->animator);
    static const char *const keys[4] = {"pitch_l", "yaw_l", "pitch_r", "yaw_r"};
    push_out(L, "gaze");
    for (int i = 0; i < 4; i++) bw_lua_set_number(L, keys[i], g[i]);
    return 1;
}

static int l_root_motion(lua_State *L)
{
    lua_animator *a = check_animator(L, 1);
    const bw_root_delta *d = bw_animator_root_motion(a->animator);
    push_out(L, "root_motion");
    bw_lua_set_number(L, "x", d->t[0]);
    bw_lua_set_number(L, "z", d->t[2]);
    bw_lua_set_number(L, "yaw", d->yaw);
    return 1;
}

/* Item i (1-based) of the pool at `pool`, made with `keys` the first time. */
static void pool_item(lua_State *L, int pool, int i, const char *const *keys)
{
    if (lua_rawgeti(L, pool, i) != LUA_TTABLE) {
        lua_pop(L, 1);
        new_record(L, keys);
        lua_pushvalue(L, -1);
        lua_rawseti(L, pool, i);
    }
}

/* A reused output list and its record pool (pushed, the list at the
 * returned index, the pool above it). */
static int open_list(lua_State *L, const char *list, const char *pool)
{
    int at = push_out(L, list);
    push_out(L, pool);
    return at;
}

/* The list now holds n records: entries n + 1 .. *len (the last length) go. */
static int close_list(lua_State *L, int list, int n, int *len)
{
    for (int i = n + 1; i <= *len; i++) {
        lua_pushnil(L);
        lua_rawseti(L, list, i);
    }
    *len = n;
    lua_settop(L, list);
    return 1;
}

static void set_str(lua_State *L, const char *key, const char *s)
{
    lua_pushstring(L, key);
    if (s) lua_pushstring(L, s);
    else lua_pushboolean(L, 0);
    lua_rawset(L, -3); /* raw, as bw_lua_set_number */
}

/* a:plays() -> { { clip = name, weight =, rate =, time = }, ... } */
static int l_plays(lua_State *L)
{
    lua_animator *a = check_animator(L, 1);
    int n = 0;
    const bw_animator_play *p = bw_animator_plays(a->animator, &n);
    int list = open_list(L, "plays", "play_pool"), pool = list + 1;
    for (int i = 0; i < n; i++) {
        pool_item(L, pool, i + 1, play_keys);
        set_str(L, "clip", a->names[p[i].clip]);
        bw_lua_set_number(L, "weight", p[i].weight);
        bw_lua_set_number(L, "rate", p[i].rate);
        bw_lua_set_number(L, "time", p[i].time);
        lua_rawseti(L, list, i + 1);
    }
    return close_list(L, list, n, &a->play_len);
}

/* a:events() -> { { kind =, name =, layer =, state =, clip =, time = }, ... }:
 * the last update's events; fields that do not apply are false. */
static int l_events(lua_State *L)
{
    lua_animator *a = check_animator(L, 1);
    int n = 0;
    const bw_animator_event *e = bw_animator_events(a->animator, &n);
    int list = open_list(L, "events", "event_pool"), pool = list + 1;
    for (int i = 0; i < n; i++) {
        pool_item(L, pool, i + 1, event_keys);
        const char *kind = "blink", *name = NULL, *layer = NULL, *state = NULL, *clip = NULL;
        double time = 0.0;
        if (e[i].kind == BW_ANIMATOR_EVENT_GRAPH && a->graph) {
            bw_lua_graph_event f;
            bw_lua_graph_event_fields(a->graph, &e[i].graph_event, &f);
            kind = f.kind;
            name = f.name;
            layer = f.layer;
            state = f.state;
            if (f.clip >= 0) clip = a->names[a->graph_clip[f.clip]];
            time = f.time;
        } else if (e[i].kind == BW_ANIMATOR_EVENT_MARKER || e[i].kind == BW_ANIMATOR_EVENT_GESTURE_END) {
            kind = e[i].kind == BW_ANIMATOR_EVENT_MARKER ? "marker" : "gesture_end";
            name = e[i].name;
            clip = e[i].clip >= 0 && e[i].clip < a->clip_count ? a->names[e[i].clip] : NULL;
            time = e[i].time;
        }
        set_str(L, "kind", kind);
        set_str(L, "name", name);
        set_str(L, "layer", layer);
        set_str(L, "state", state);
        set_str(L, "clip", clip);
        bw_lua_set_number(L, "time", time);
        lua_rawseti(L, list, i + 1);
    }
    return close_list(L, list, n, &a->event_len);
}

/* a:joint_overrides() -> { { joint = name, r = { x, y, z, w } }, ... } */
static int l_joint_overrides(lua_State *L)
{
    lua_animator *a = check_animator(L, 1);
    int n = 0;
    const bw_joint_override *o = bw_animator_joint_overrides(a->animator, &n);
    int list = push_out(L, "overrides");
    for (int i = 0; i < n; i++) {
        /* the records are the script's to keep (and to break): read and
         * written raw, one that is no longer a record made anew, and the
         * joint named as it is now (the first update chooses them) */
        if (lua_rawgeti(L, list, i + 1) != LUA_TTABLE) {
            lua_pop(L, 1);
            lua_createtable(L, 0, 2);
            lua_pushvalue(L, -1);
            lua_rawseti(L, list, i + 1);
        }
        /* deps[0] is the rig (the one use l_animator records) */
        const char *name = bw_rig_joint_name(((const bw_lua_rig *)a->hdr.deps[0])->rig, o[i].joint);
        lua_pushliteral(L, "joint");
        if (lua_rawget(L, -2) != LUA_TSTRING || strcmp(lua_tostring(L, -1), name) != 0) {
            lua_pushliteral(L, "joint");
            lua_pushstring(L, name);
            lua_rawset(L, -4);
        }
        lua_pop(L, 1);
        lua_pushliteral(L, "r");
        if (lua_rawget(L, -2) != LUA_TTABLE) {
            lua_pop(L, 1);
            lua_createtable(L, 4, 0);
            lua_pushliteral(L, "r");
            lua_pushvalue(L, -2);
            lua_rawset(L, -4);
        }
        for (int k = 0; k < 4; k++) {
            lua_pushnumber(L, (lua_Number)o[i].r[k]);
            lua_rawseti(L, -2, k + 1);
        }
        lua_pop(L, 2);
    }
    return 1;
}

/* a:warnings() -> { message, ... }: what creation warned of (a new list
 * each call, possibly empty; e.g. a default head chain passing over a
 * name the rig has twice) */
static int l_warnings(lua_State *L)
{
    check_animator(L, 1);
    lua_getiuservalue(L, 1, UV_WARNINGS);
    bw_lua_push_list_copy(L, -1);
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

/* a:pose() -> the animator's Pose, refreshed with the output pose (a new
 * one only when the last was closed) */
static int l_pose(lua_State *L)
{
    lua_animator *a = check_animator(L, 1);
    push_out(L, "pose");
    bw_lua_pose *p = (bw_lua_pose *)luaL_testudata(L, -1, BW_LUA_POSE);
    if (!p || p->hdr.closed) {
        lua_pop(L, 1);
        lua_getiuservalue(L, 1, UV_OUT);
        lua_getiuservalue(L, 1, UV_RIG);
        p = bw_lua_push_pose(L, lua_gettop(L));
        lua_pushvalue(L, -1);
        lua_setfield(L, -4, "pose");
    }
    bw_pose_copy(&p->pose, bw_animator_pose(a->animator));
    return 1;
}

/* close(), __gc and __close are the shared ones; no __tostring (Lua's
 * "blendwerk.Animator: ADDRESS") */
static const bw_lua_lifetime animator_lifetime = {.type_name = BW_LUA_ANIMATOR};

static const luaL_Reg methods[] = {
    {"update", l_update},         {"gesture", l_gesture},       {"set_graph", l_set_graph},
    {"status", l_status},         {"param", l_param},           {"travel", l_travel},
    {"expression", l_expression},
    {"gaze", l_gaze},             {"root_motion", l_root_motion}, {"plays", l_plays},
    {"events", l_events},         {"joint_overrides", l_joint_overrides},
    {"head_aim", l_head_aim},     {"pose", l_pose},     {"warnings", l_warnings},
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
    bw_lua_register_object_type(L, &animator_lifetime, methods, NULL);
    luaL_setfuncs(L, functions, 0);
}
