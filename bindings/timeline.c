/* timeline.c - the timeline reader of `blendwerk simulate`, `blendwerk
 * watch` and the demo (timeline.h; moved here from cli/). */
#include <float.h>
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendwerk/text.h"
#include "lua_graph.h"
#include "lua_support.h"
#include "timeline.h"

void bw_timeline_free(bw_timeline *t)
{
    free(t->at);
    free(t->line);
    free(t->acts);
    memset(t, 0, sizeof *t);
}

void bw_timeline_report_stderr(void *user, const char *path, int line, const char *message)
{
    (void)user;
    bw_text_print(stderr, path);
    if (line > 0) fprintf(stderr, ":%d", line);
    fputs(": ", stderr);
    bw_text_print(stderr, message);
    fputc('\n', stderr);
}

/* The problem (printf's fmt and ap) to t's report, formatted in a buffer
 * on the stack; a longer text (a long name quoted) in one allocated for
 * it, or cut to the stack's when memory runs out. */
static void tl_vreport(const bw_timeline *t, int line, const char *fmt, va_list ap)
{
    char text[1024];
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    char *big = n >= (int)sizeof text ? (char *)malloc((size_t)n + 1) : NULL;
    if (big) vsnprintf(big, (size_t)n + 1, fmt, again);
    va_end(again);
    const char *message = big ? big : n >= 0 ? text : "(the problem's text cannot be formatted)";
    if (t->report) t->report(t->report_user, t->path, line, message);
    else bw_timeline_report_stderr(NULL, t->path, line, message);
    free(big);
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void tl_report(const bw_timeline *t, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tl_vreport(t, line, fmt, ap);
    va_end(ap);
}

/* A problem of the read (counted in t->errors). */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void tl_error(bw_timeline *s, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tl_vreport(s, line, fmt, ap);
    va_end(ap);
    s->errors++;
}

/* One more action, the array doubled when full (a read adds as many as
 * the file writes: no reservation per entry to overflow); NULL and a
 * printed problem when memory runs out. */
static bw_timeline_action *add_act(bw_timeline *t, bw_timeline_act_kind kind, int entry)
{
    if (t->act_count == t->act_capacity) {
        const int grown = t->act_capacity ? 2 * t->act_capacity : 64;
        bw_timeline_action *more =
            t->act_capacity < (1 << 28) ? (bw_timeline_action *)realloc(t->acts, (size_t)grown * sizeof *more) : NULL;
        if (!more) {
            tl_error(t, t->line[entry], "out of memory for the timeline's actions");
            return NULL;
        }
        t->acts = more;
        t->act_capacity = grown;
    }
    bw_timeline_action *a = &t->acts[t->act_count++];
    memset(a, 0, sizeof *a);
    a->kind = kind;
    a->entry = entry;
    return a;
}

/* Whether the string at idx reads the same in C: a name holding a NUL byte
 * ("grounded\0x") would be found as its first part ("grounded"), so it is
 * a problem of `what` at `line` instead. */
static bool whole_name(bw_timeline *s, lua_State *L, int idx, int line, const char *what)
{
    if (!bw_lua_holds_nul(L, idx)) return true;
    tl_error(s, line, "%s: " BW_LUA_NUL_NAME, what, lua_tostring(L, idx));
    return false;
}

static int find_param(bw_timeline *s, lua_State *L, int idx, int line, const char *what)
{
    if (lua_type(L, idx) != LUA_TSTRING) {
        tl_error(s, line, "%s must be a parameter name, not a %s", what, luaL_typename(L, idx));
        return -1;
    }
    if (!whole_name(s, L, idx, line, what)) return -1;
    int p = bw_graph_find_param(s->graph, lua_tostring(L, idx));
    if (p < 0) tl_error(s, line, "%s: unknown parameter '%s'", what, lua_tostring(L, idx));
    return p;
}

static int find_layer(bw_timeline *s, const char *name, int line)
{
    int l = bw_graph_find_layer(s->graph, name);
    if (l < 0) tl_error(s, line, "unknown layer '%s'", name);
    return l;
}

/* Whether x is a number a float holds (the actions and the cursor take
 * floats: 1e300 would arrive as infinity). */
static bool float_range(double x) { return fabs(x) <= FLT_MAX; }

/* The number field `key` of the table at idx into *out (absent: false). */
static bool opt_number(bw_timeline *s, lua_State *L, int idx, const char *key, double *out, int line)
{
    bw_lua_raw_field(L, idx, key);
    bool present = !lua_isnil(L, -1);
    if (present && (lua_type(L, -1) != LUA_TNUMBER || !float_range(lua_tonumber(L, -1)))) {
        tl_error(s, line, "%s must be a finite number within +-3.4e38", key);
        present = false;
    } else if (present) {
        *out = lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    return present;
}

/* A key that is not a string, at idx, in words for a problem: "list entry
 * [3]", "number key 1.5", "boolean key" (its type's name says nothing of
 * which key it is). */
static const char *key_words(lua_State *L, int idx, char *buf, size_t size)
{
    if (lua_isinteger(L, idx)) snprintf(buf, size, "list entry [%lld]", (long long)lua_tointeger(L, idx));
    else if (lua_type(L, idx) == LUA_TNUMBER) snprintf(buf, size, "number key %.14g", (double)lua_tonumber(L, idx));
    else snprintf(buf, size, "%s key", luaL_typename(L, idx));
    return buf;
}

/* The line of the value under the key at the top of the stack in the
 * table at t: its own table's line when it is a table (an entry written
 * `[3] = { ... }`), else `line`. */
static int value_line(lua_State *L, int t, int line)
{
    lua_pushvalue(L, -1);
    int at = lua_rawget(L, t) == LUA_TTABLE ? bw_lua_table_line(L, -1) : 0;
    lua_pop(L, 1);
    return at > 0 ? at : line;
}

static const char *const entry_fields[] = {"at",      "set", "fire", "travel",  "layer",   "layer_weight", "fade",
                                           "velocity", "yaw", "turn", "look_at", "gesture", NULL};
#define ENTRY_FIELDS_TEXT "at, set, fire, travel, layer, layer_weight, fade, velocity, yaw, turn, look_at, gesture"

/* A list of exactly 3 finite numbers at idx into out. */
static bool vec3(lua_State *L, int idx, float out[3])
{
    if (!lua_istable(L, idx) || lua_rawlen(L, idx) != 3) return false;
    bool ok = true;
    for (int k = 0; k < 3; k++) {
        lua_rawgeti(L, idx, k + 1);
        ok = ok && lua_type(L, -1) == LUA_TNUMBER && isfinite(lua_tonumber(L, -1)) && fabs(lua_tonumber(L, -1)) < 1e30;
        out[k] = ok ? (float)lua_tonumber(L, -1) : 0.0f;
        lua_pop(L, 1);
    }
    return ok;
}

/* The character inputs of an entry (timeline.h). */
static void read_inputs(bw_timeline *t, lua_State *L, int e, int i)
{
    static const char *const vec_keys[2] = {"velocity", "look_at"};
    for (int v = 0; v < 2; v++) {
        bw_lua_raw_field(L, e, vec_keys[v]);
        if (!lua_isnil(L, -1)) {
            int line = bw_lua_key_line(L, e, vec_keys[v]);
            float vec[3];
            bool clear = v == 1 && lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1);
            if (!clear && !vec3(L, lua_gettop(L), vec)) {
                tl_error(t, line, "%s must be { x, y, z } (3 finite numbers)%s", vec_keys[v], v ? " or false" : "");
            } else {
                bw_timeline_action *a = add_act(t, v ? BW_TL_ACT_LOOK_AT : BW_TL_ACT_VELOCITY, i);
                if (a && !clear) memcpy(a->vec, vec, sizeof vec);
                if (a) a->state = clear ? 0 : 1;
            }
        }
        lua_pop(L, 1);
    }
    static const char *const num_keys[2] = {"yaw", "turn"};
    for (int v = 0; v < 2; v++) {
        double x = 0;
        if (opt_number(t, L, e, num_keys[v], &x, bw_lua_key_line(L, e, num_keys[v]))) {
            bw_timeline_action *a = add_act(t, v ? BW_TL_ACT_TURN : BW_TL_ACT_YAW, i);
            if (a) a->value = (float)x;
        }
    }
    bw_lua_raw_field(L, e, "gesture");
    if (lua_type(L, -1) == LUA_TSTRING && !whole_name(t, L, -1, bw_lua_key_line(L, e, "gesture"), "gesture")) {
        /* said */
    } else if (lua_type(L, -1) == LUA_TSTRING) {
        int clip = -1;
        for (int c = 0; c < t->clip_count && clip < 0; c++)
            if (t->clips[c] && strcmp(bw_clip_name(t->clips[c]), lua_tostring(L, -1)) == 0) clip = c;
        if (t->clips && clip < 0)
            tl_error(t, bw_lua_key_line(L, e, "gesture"), "gesture: unknown clip '%s'", lua_tostring(L, -1));
        else {
            bw_timeline_action *a = add_act(t, BW_TL_ACT_GESTURE, i);
            if (a) a->index = clip;
        }
    } else if (!lua_isnil(L, -1)) {
        tl_error(t, bw_lua_key_line(L, e, "gesture"), "gesture must be a clip name");
    }
    lua_pop(L, 1);
}

static void read_entry(bw_timeline *s, lua_State *L, int e, int i)
{
    bw_timeline *t = s;
    int line = bw_lua_table_line(L, e);
    t->line[i] = line;
    lua_pushnil(L);
    while (lua_next(L, e)) {
        lua_pop(L, 1);
        bool known = false;
        if (lua_type(L, -1) == LUA_TSTRING) {
            char what[32];
            snprintf(what, sizeof what, "entry %d", i + 1);
            if (!whole_name(s, L, -1, line, what)) continue;
            for (int k = 0; entry_fields[k] && !known; k++) known = strcmp(entry_fields[k], lua_tostring(L, -1)) == 0;
        }
        char key[64];
        if (!known && lua_type(L, -1) == LUA_TSTRING)
            tl_error(s, bw_lua_key_line(L, e, lua_tostring(L, -1)), "entry %d: unknown field '%s' (accepted fields: %s)",
                     i + 1, lua_tostring(L, -1), ENTRY_FIELDS_TEXT);
        else if (!known)
            tl_error(s, line, "entry %d: unexpected %s (accepted fields: %s)", i + 1, key_words(L, -1, key, sizeof key),
                     ENTRY_FIELDS_TEXT);
    }
    double at = 0;
    const bool has_at = bw_lua_raw_field(L, e, "at") != LUA_TNIL;
    lua_pop(L, 1);
    /* a bad one is its own problem (opt_number says it), not also "missing" */
    if (!opt_number(s, L, e, "at", &at, line) && !has_at) tl_error(s, line, "entry %d: at is missing (seconds)", i + 1);
    t->at[i] = at;
    /* set = { name = value }: in the order written */
    bw_lua_raw_field(L, e, "set");
    if (lua_istable(L, -1)) {
        const int st = lua_gettop(L);
        /* pairs order is arbitrary: order by line, then by parameter index */
        int start = t->act_count;
        lua_pushnil(L);
        while (lua_next(L, st)) {
            int p = find_param(s, L, -2, bw_lua_key_line(L, st, lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : ""), "set");
            float v = 0;
            if (lua_type(L, -1) == LUA_TBOOLEAN) v = lua_toboolean(L, -1) ? 1.0f : 0.0f;
            else if (lua_type(L, -1) == LUA_TNUMBER && float_range(lua_tonumber(L, -1))) v = (float)lua_tonumber(L, -1);
            else {
                tl_error(s, line, "set: a value must be a finite number within +-3.4e38 or a boolean");
                p = -1;
            }
            if (p >= 0 && bw_graph_param_kind_of(s->graph, p) == BW_GRAPH_PARAM_TRIGGER) {
                tl_error(s, line, "set: '%s' is a trigger: use fire", bw_graph_param_name(s->graph, p));
                p = -1;
            }
            lua_pop(L, 1);
            bw_timeline_action *a = p >= 0 ? add_act(t, BW_TL_ACT_SET, i) : NULL;
            if (a) {
                a->index = p;
                a->value = v;
                a->state = bw_lua_key_line(L, st, bw_graph_param_name(s->graph, p)); /* sort key */
            }
        }
        for (int a = start + 1; a < t->act_count; a++) /* insertion sort: few entries */
            for (int b = a; b > start && (t->acts[b].state < t->acts[b - 1].state ||
                                           (t->acts[b].state == t->acts[b - 1].state && t->acts[b].index < t->acts[b - 1].index));
                 b--) {
                bw_timeline_action tmp = t->acts[b];
                t->acts[b] = t->acts[b - 1];
                t->acts[b - 1] = tmp;
            }
    } else if (!lua_isnil(L, -1)) {
        tl_error(s, line, "set must be a table { param = value }");
    }
    lua_pop(L, 1);
    /* fire = "name" or { "a", "b" } */
    bw_lua_raw_field(L, e, "fire");
    const int fire_line = bw_lua_key_line(L, e, "fire");
    if (lua_type(L, -1) == LUA_TSTRING || lua_istable(L, -1)) {
        int n = lua_istable(L, -1) ? (int)lua_rawlen(L, -1) : 1;
        for (int k = 1; k <= n; k++) {
            if (lua_istable(L, -1)) lua_rawgeti(L, -1, k);
            else lua_pushvalue(L, -1);
            int p = find_param(s, L, -1, fire_line, "fire");
            lua_pop(L, 1);
            if (p >= 0 && bw_graph_param_kind_of(s->graph, p) != BW_GRAPH_PARAM_TRIGGER) {
                tl_error(s, fire_line, "fire: '%s' is not a trigger", bw_graph_param_name(s->graph, p));
                p = -1;
            }
            bw_timeline_action *a = p >= 0 ? add_act(t, BW_TL_ACT_FIRE, i) : NULL;
            if (a) a->index = p;
        }
    } else if (!lua_isnil(L, -1)) {
        tl_error(s, fire_line, "fire must be a trigger name or a list of them");
    }
    lua_pop(L, 1);
    /* travel = "state" [, layer = "name"] */
    int layer = 0;
    bw_lua_raw_field(L, e, "layer");
    if (lua_type(L, -1) == LUA_TSTRING)
        layer = whole_name(s, L, -1, bw_lua_key_line(L, e, "layer"), "layer")
                    ? find_layer(s, lua_tostring(L, -1), bw_lua_key_line(L, e, "layer"))
                    : -1;
    else if (!lua_isnil(L, -1)) tl_error(s, line, "layer must be a layer name");
    lua_pop(L, 1);
    bw_lua_raw_field(L, e, "travel");
    if (lua_type(L, -1) == LUA_TSTRING && !s->graph) {
        tl_error(s, bw_lua_key_line(L, e, "travel"), "travel: no graph is running");
    } else if (lua_type(L, -1) == LUA_TSTRING && layer >= 0 &&
               whole_name(s, L, -1, bw_lua_key_line(L, e, "travel"), "travel")) {
        int st = bw_graph_find_state(s->graph, layer, lua_tostring(L, -1));
        if (st < 0) tl_error(s, bw_lua_key_line(L, e, "travel"), "travel: unknown state '%s' in layer '%s'", lua_tostring(L, -1),
                             bw_graph_layer_name(s->graph, layer));
        bw_timeline_action *a = st >= 0 ? add_act(t, BW_TL_ACT_TRAVEL, i) : NULL;
        if (a) {
            a->index = layer;
            a->state = st;
        }
    } else if (!lua_isnil(L, -1) && lua_type(L, -1) != LUA_TSTRING) {
        tl_error(s, line, "travel must be a state name");
    }
    lua_pop(L, 1);
    /* layer_weight = { name = w } [, fade = s] */
    double fade = 0;
    opt_number(s, L, e, "fade", &fade, line);
    if (fade < 0) tl_error(s, line, "fade must be >= 0");
    bw_lua_raw_field(L, e, "layer_weight");
    if (lua_istable(L, -1)) {
        const int wt = lua_gettop(L);
        lua_pushnil(L);
        while (lua_next(L, wt)) {
            int l = lua_type(L, -2) == LUA_TSTRING && whole_name(s, L, -2, line, "layer_weight")
                        ? find_layer(s, lua_tostring(L, -2), line)
                        : -1;
            if (lua_type(L, -1) != LUA_TNUMBER || !(lua_tonumber(L, -1) >= 0) || !float_range(lua_tonumber(L, -1))) {
                tl_error(s, line, "layer_weight: a weight must be a finite number >= 0 (at most 3.4e38)");
                l = -1;
            }
            /* the cursor would refuse it (BW_ERR_INVALID_ARGUMENT) every run:
             * said once, here, before anything runs */
            const int follows = bw_graph_layer_weight_param(s->graph, l);
            if (l >= 0 && follows >= 0) {
                tl_error(s, line, "layer_weight: the weight of layer '%s' follows the parameter '%s': set it instead",
                         bw_graph_layer_name(s->graph, l), bw_graph_param_name(s->graph, follows));
                l = -1;
            }
            bw_timeline_action *a = l >= 0 ? add_act(t, BW_TL_ACT_WEIGHT, i) : NULL;
            if (a) {
                a->index = l;
                a->value = (float)lua_tonumber(L, -1);
                a->fade = (float)fade;
            }
            lua_pop(L, 1);
        }
    } else if (!lua_isnil(L, -1)) {
        tl_error(s, line, "layer_weight must be a table { layer = weight }");
    }
    lua_pop(L, 1);
    read_inputs(t, L, e, i);
}

/* The timeline table on top of L's stack into *s. */
static bool read_timeline(bw_timeline *s, lua_State *L)
{
    bw_timeline *t = s;
    const int tt = lua_gettop(L);
    if (!lua_istable(L, tt)) {
        tl_error(s, 0, "a timeline is a table { dt =, duration = | frames =, entries... }");
        return false;
    }
    int line = bw_lua_table_line(L, tt);
    lua_pushnil(L);
    int n = (int)lua_rawlen(L, tt);
    while (lua_next(L, tt)) {
        lua_pop(L, 1);
        const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        if (k && (!strcmp(k, "dt") || !strcmp(k, "duration") || !strcmp(k, "frames"))) continue;
        if (lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 1 && lua_tointeger(L, -1) <= n) continue;
        char key[64];
        if (k)
            tl_error(s, bw_lua_key_line(L, tt, k), "unknown field '%s' (a timeline has dt, duration or frames, and entries)", k);
        else if (lua_isinteger(L, -1)) /* past the list's end, e.g. [3] without [2] */
            tl_error(s, value_line(L, tt, line), "entry [%lld]: the entries are a list 1..N with no gaps",
                     (long long)lua_tointeger(L, -1));
        else
            tl_error(s, value_line(L, tt, line), "unexpected %s (a timeline has dt, duration or frames, and entries)",
                     key_words(L, -1, key, sizeof key));
    }
    t->dt = 1.0 / 60.0;
    opt_number(s, L, tt, "dt", &t->dt, bw_lua_key_line(L, tt, "dt"));
    if (!(t->dt > 0)) tl_error(s, bw_lua_key_line(L, tt, "dt"), "dt must be > 0");
    double duration = 0, frames = 0;
    /* a bad one is its own problem (opt_number says it), not also "give one" */
    const bool wrote_d = bw_lua_raw_field(L, tt, "duration") != LUA_TNIL;
    const bool wrote_f = bw_lua_raw_field(L, tt, "frames") != LUA_TNIL;
    lua_pop(L, 2);
    bool has_d = opt_number(s, L, tt, "duration", &duration, bw_lua_key_line(L, tt, "duration"));
    bool has_f = opt_number(s, L, tt, "frames", &frames, bw_lua_key_line(L, tt, "frames"));
    if (wrote_d == wrote_f) tl_error(s, line, "give one of duration (seconds) or frames");
    else if (has_f && (frames < 0 || frames != floor(frames) || frames > BW_TIMELINE_MAX_FRAMES))
        tl_error(s, bw_lua_key_line(L, tt, "frames"), "frames must be a whole number in 0..%d", BW_TIMELINE_MAX_FRAMES);
    else if (has_d && (duration < 0 || (t->dt > 0 && duration / t->dt > BW_TIMELINE_MAX_FRAMES)))
        tl_error(s, bw_lua_key_line(L, tt, "duration"), "duration must be >= 0 and at most %d frames", BW_TIMELINE_MAX_FRAMES);
    else if (t->dt > 0 && (has_d || has_f)) /* only a count in range: 1e30 frames is no long */
        t->frames = has_f ? (long)frames : (long)ceil(duration / t->dt - BW_TIMELINE_AT_EPSILON);
    if (t->frames < 0) t->frames = 0;
    if (n > BW_TIMELINE_MAX_ENTRIES) {
        tl_error(s, line, "a timeline has at most %d entries, this one has %d", BW_TIMELINE_MAX_ENTRIES, n);
        return false;
    }
    t->entry_count = n;
    t->at = (double *)calloc((size_t)n + 1, sizeof *t->at);
    t->line = (int *)calloc((size_t)n + 1, sizeof *t->line);
    if (!t->at || !t->line) {
        tl_error(s, 0, "out of memory");
        return false;
    }
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, tt, i + 1);
        if (lua_istable(L, -1)) read_entry(s, L, lua_gettop(L), i);
        else tl_error(s, bw_lua_item_line(L, tt, i + 1), "entry %d must be a table { at = s, ... }", i + 1);
        lua_pop(L, 1);
    }
    return s->errors == 0;
}

/* read_timeline in a protected call: the table at 2, the timeline at 1 */
static int read_protected(lua_State *L)
{
    lua_pushboolean(L, read_timeline((bw_timeline *)lua_touserdata(L, 1), L));
    return 1;
}

bool bw_timeline_read(bw_timeline *t, lua_State *L, const bw_graph *graph, const char *path, double applied_until)
{
    return bw_timeline_read_clips(t, L, graph, NULL, 0, path, applied_until);
}

bool bw_timeline_read_clips(bw_timeline *t, lua_State *L, const bw_graph *graph, const bw_clip *const *clips,
                            int clip_count, const char *path, double applied_until)
{
    const bw_timeline_report_fn report = t->report; /* the host's, kept */
    void *const report_user = t->report_user;
    bw_timeline_free(t);
    t->report = report;
    t->report_user = report_user;
    t->path = path;
    t->graph = graph;
    t->clips = clips;
    t->clip_count = clips ? clip_count : 0;
    /* the reads are raw, but a key string may still need memory the
     * sandbox's cap refuses: that error ends the read, not the process */
    lua_pushcfunction(L, read_protected);
    lua_pushlightuserdata(L, t);
    lua_pushvalue(L, -3);
    bool ok = false;
    if (lua_pcall(L, 2, 1, 0) == LUA_OK) ok = lua_toboolean(L, -1);
    else tl_error(t, 0, "%s", lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "the timeline cannot be read");
    lua_pop(L, 1);
    for (int a = 0; a < t->act_count; a++)
        t->acts[a].done = t->at[t->acts[a].entry] <= applied_until + BW_TIMELINE_AT_EPSILON;
    return ok;
}

void bw_timeline_input_init(bw_timeline_input *input)
{
    memset(input, 0, sizeof *input);
    input->gesture = -1;
}

bool bw_timeline_apply(bw_timeline *t, bw_graph_cursor *cursor, double now, long frame)
{
    return bw_timeline_apply_input(t, cursor, NULL, now, frame);
}

/* A character input action into *in (NULL: dropped). */
static void apply_input(const bw_timeline_action *act, bw_timeline_input *in)
{
    if (!in) return;
    switch (act->kind) {
    case BW_TL_ACT_VELOCITY: memcpy(in->velocity, act->vec, sizeof in->velocity); break;
    case BW_TL_ACT_YAW:
        in->has_yaw = true;
        in->yaw = act->value;
        break;
    case BW_TL_ACT_TURN: in->turn = act->value; break;
    case BW_TL_ACT_LOOK_AT:
        in->has_look_at = act->state != 0;
        memcpy(in->look_at, act->vec, sizeof in->look_at);
        break;
    case BW_TL_ACT_GESTURE:
        if (act->index >= 0) in->gesture = act->index;
        break;
    default: break;
    }
}

bool bw_timeline_apply_input(bw_timeline *t, bw_graph_cursor *cursor, bw_timeline_input *input, double now, long frame)
{
    bool routed = true;
    now += BW_TIMELINE_AT_EPSILON;
    for (int a = 0; a < t->act_count; a++) {
        bw_timeline_action *act = &t->acts[a];
        if (act->done || t->at[act->entry] > now) continue;
        act->done = true;
        if (act->kind >= BW_TL_ACT_VELOCITY) {
            apply_input(act, input);
            continue;
        }
        if (!cursor) continue;
        switch (act->kind) {
        case BW_TL_ACT_SET: bw_graph_cursor_set_param(cursor, act->index, act->value); break;
        case BW_TL_ACT_FIRE: bw_graph_cursor_fire(cursor, act->index); break;
        case BW_TL_ACT_WEIGHT: /* read only for a layer with a numeric weight: it cannot fail */
            bw_graph_cursor_set_layer_weight(cursor, act->index, act->value, act->fade);
            break;
        case BW_TL_ACT_TRAVEL:
            if (bw_graph_cursor_travel(cursor, act->index, act->state) != BW_OK) {
                bw_graph_layer_status st;
                bw_graph_cursor_layer_status(cursor, act->index, &st);
                tl_report(t, t->line[act->entry], "travel to '%s' in layer '%s': no route from '%s' (frame %ld)",
                          bw_graph_state_name(t->graph, act->index, act->state), bw_graph_layer_name(t->graph, act->index),
                          bw_graph_state_name(t->graph, act->index, st.state), frame);
                routed = false;
            }
            break;
        default: break;
        }
    }
    return routed;
}

/* In the timeline's sandbox: (file name, path as given) -> timeline table,
 * the file read by the sandbox's own reader (bw_lua_run_source_file). */
static int timeline_protected(lua_State *L)
{
    bw_lua_run_source_file(L, NULL, lua_tostring(L, 1), lua_tostring(L, 2));
    return 1;
}

bw_sandbox *bw_timeline_load(const char *path, char *err, size_t err_size)
{
    char dir[BW_SANDBOX_PATH_MAX];
    const char *name = bw_sandbox_split_path(path, dir, sizeof dir);
    if (!name) {
        snprintf(err, err_size, "%s: the path is too long", path);
        return NULL;
    }
    bw_sandbox_desc d;
    memset(&d, 0, sizeof d);
    d.dir = dir;
    bw_sandbox *sb = bw_sandbox_create(&d, err, err_size);
    if (sb) {
        lua_State *L = bw_sandbox_state(sb);
        lua_pushcfunction(L, timeline_protected);
        lua_pushstring(L, name);
        lua_pushstring(L, path);
        if (bw_sandbox_call(sb, 2, 1) != BW_SANDBOX_OK) {
            snprintf(err, err_size, "%s", bw_sandbox_error(sb));
            bw_sandbox_destroy(sb);
            sb = NULL;
        }
    }
    return sb;
}
