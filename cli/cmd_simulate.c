/* cmd_simulate.c - `blendwerk simulate GRAPH.lua --asset FILE --timeline
 * TIMELINE.lua [--json] [--joints]` (SPEC §12.3): run a graph over a
 * scripted timeline and print one trace record per frame.
 *
 * The graph file and the timeline are untrusted: both run in one sandbox
 * (bindings/sandbox.h) whose folder is the graph's (its require and
 * blendwerk.load see only that folder); the timeline's text is read by
 * this host and run there too. The graph is read by the one graph reader
 * (bindings/lua_graph.c), so its problems come out as FILE:LINE; the
 * timeline's table constructors record their lines the same way, so a
 * bad entry or a travel with no route names the timeline's line.
 * Predicates run with the sandbox's per-call callback limits.
 *
 * Frame k (k = 0, 1, ...) applies, in list order, every entry with
 * at <= k*dt + 1e-9 not yet applied, then updates the cursor by dt,
 * evaluates the pose (the freeze snapshots need it) and drains the
 * events. `duration = D` runs ceil(D/dt - 1e-9) frames, `frames = N` N.
 * Numbers print with %.9g; `t` is (k + 1) * dt.
 * Exit codes: 0 done, 1 a file failed to load or read (or a travel of the
 * timeline had no route: the trace is complete and the error is on
 * stderr), 2 bad arguments. */
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendwerk/asset.h"
#include "blendwerk/bind.h"
#include "blendwerk/graph.h"
#include "blendwerk/pose.h"
#include "cli_json.h"
#include "cli_load.h"
#include "commands.h"
#include "lua_graph.h"
#include "sandbox.h"

#define AT_EPSILON 1e-9
#define MAX_FRAMES 10000000

static void usage(FILE *to)
{
    fprintf(to, "usage: blendwerk simulate GRAPH.lua --asset FILE --timeline TIMELINE.lua [--json] [--joints]\n"
                "  FILE       a .glb / .gltf / .bvh file whose clips the graph names\n"
                "  TIMELINE   a Lua chunk returning { dt = 1/60, duration = s | frames = n,\n"
                "             { at = s, set = { p = v } | fire = \"t\" | travel = \"state\", layer = \"l\" |\n"
                "               layer_weight = { l = w }, fade = s }, ... }\n"
                "  --json     one JSON object per frame (docs/cli.md)\n"
                "  --joints   add each frame's joints as `blendwerk sample --json` prints them\n");
}

/* ---- the character: the one place that loads it ---- */

typedef struct character {
    bw_asset *asset;
    const bw_rig *rig;
    const bw_clip *const *clips;
    int clip_count;
} character;

static bool load_character(const char *path, character *out)
{
    memset(out, 0, sizeof *out);
    out->asset = bw_cli_load_asset("simulate", path);
    if (!out->asset) return false;
    out->rig = out->asset->rig;
    out->clips = (const bw_clip *const *)out->asset->clips;
    out->clip_count = out->asset->clip_count;
    return true;
}

static void unload_character(character *c) { bw_asset_destroy(c->asset); }

/* ---- the timeline ---- */

typedef enum { ACT_SET, ACT_FIRE, ACT_TRAVEL, ACT_WEIGHT } act_kind;

typedef struct action {
    act_kind kind;
    int entry; /* index of its entry */
    int index; /* param or layer */
    int state; /* travel */
    float value;
    float fade;
    bool done;
} action;

typedef struct timeline {
    double dt;
    long frames;
    int entry_count;
    double *at;   /* per entry */
    int *line;    /* per entry */
    action *acts; /* in application order */
    int act_count;
} timeline;

static void timeline_free(timeline *t)
{
    free(t->at);
    free(t->line);
    free(t->acts);
    memset(t, 0, sizeof *t);
}

typedef struct sim {
    const char *graph_path, *timeline_path;
    character ch;
    const bw_graph *graph;
    timeline tl;
    int errors; /* timeline problems printed */
} sim;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void tl_error(sim *s, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (line > 0) fprintf(stderr, "%s:%d: ", s->timeline_path, line);
    else fprintf(stderr, "%s: ", s->timeline_path);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    s->errors++;
}

static action *add_act(timeline *t, int cap, act_kind kind, int entry)
{
    if (t->act_count >= cap) return NULL;
    action *a = &t->acts[t->act_count++];
    memset(a, 0, sizeof *a);
    a->kind = kind;
    a->entry = entry;
    return a;
}

static int find_param(sim *s, lua_State *L, int idx, int line, const char *what)
{
    if (lua_type(L, idx) != LUA_TSTRING) {
        tl_error(s, line, "%s must be a parameter name, not a %s", what, luaL_typename(L, idx));
        return -1;
    }
    int p = bw_graph_find_param(s->graph, lua_tostring(L, idx));
    if (p < 0) tl_error(s, line, "%s: unknown parameter '%s'", what, lua_tostring(L, idx));
    return p;
}

static int find_layer(sim *s, const char *name, int line)
{
    int l = bw_graph_find_layer(s->graph, name);
    if (l < 0) tl_error(s, line, "unknown layer '%s'", name);
    return l;
}

/* The number field `key` of the table at idx into *out (absent: false). */
static bool opt_number(sim *s, lua_State *L, int idx, const char *key, double *out, int line)
{
    lua_getfield(L, idx, key);
    bool present = !lua_isnil(L, -1);
    if (present && (lua_type(L, -1) != LUA_TNUMBER || !isfinite(lua_tonumber(L, -1)))) {
        tl_error(s, line, "%s must be a finite number", key);
        present = false;
    } else if (present) {
        *out = lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    return present;
}

static const char *const entry_fields[] = {"at", "set", "fire", "travel", "layer", "layer_weight", "fade", NULL};

static void read_entry(sim *s, lua_State *L, int e, int i, int cap)
{
    timeline *t = &s->tl;
    int line = bw_lua_table_line(L, e);
    t->line[i] = line;
    lua_pushnil(L);
    while (lua_next(L, e)) {
        lua_pop(L, 1);
        bool known = false;
        if (lua_type(L, -1) == LUA_TSTRING)
            for (int k = 0; entry_fields[k] && !known; k++) known = strcmp(entry_fields[k], lua_tostring(L, -1)) == 0;
        if (!known)
            tl_error(s, lua_type(L, -1) == LUA_TSTRING ? bw_lua_key_line(L, e, lua_tostring(L, -1)) : line,
                     "entry %d: unknown field '%s' (accepted fields: at, set, fire, travel, layer, layer_weight, fade)",
                     i + 1, lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1));
    }
    double at = 0;
    if (!opt_number(s, L, e, "at", &at, line)) tl_error(s, line, "entry %d: at is missing (seconds)", i + 1);
    t->at[i] = at;
    /* set = { name = value }: in the order written */
    lua_getfield(L, e, "set");
    if (lua_istable(L, -1)) {
        const int st = lua_gettop(L);
        /* pairs order is arbitrary: order by line, then by parameter index */
        int start = t->act_count;
        lua_pushnil(L);
        while (lua_next(L, st)) {
            int p = find_param(s, L, -2, bw_lua_key_line(L, st, lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : ""), "set");
            float v = 0;
            if (lua_type(L, -1) == LUA_TBOOLEAN) v = lua_toboolean(L, -1) ? 1.0f : 0.0f;
            else if (lua_type(L, -1) == LUA_TNUMBER && isfinite(lua_tonumber(L, -1))) v = (float)lua_tonumber(L, -1);
            else {
                tl_error(s, line, "set: a value must be a finite number or a boolean");
                p = -1;
            }
            if (p >= 0 && bw_graph_param_kind_of(s->graph, p) == BW_GRAPH_PARAM_TRIGGER) {
                tl_error(s, line, "set: '%s' is a trigger: use fire", bw_graph_param_name(s->graph, p));
                p = -1;
            }
            lua_pop(L, 1);
            action *a = p >= 0 ? add_act(t, cap, ACT_SET, i) : NULL;
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
                action tmp = t->acts[b];
                t->acts[b] = t->acts[b - 1];
                t->acts[b - 1] = tmp;
            }
    } else if (!lua_isnil(L, -1)) {
        tl_error(s, line, "set must be a table { param = value }");
    }
    lua_pop(L, 1);
    /* fire = "name" or { "a", "b" } */
    lua_getfield(L, e, "fire");
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
            action *a = p >= 0 ? add_act(t, cap, ACT_FIRE, i) : NULL;
            if (a) a->index = p;
        }
    } else if (!lua_isnil(L, -1)) {
        tl_error(s, fire_line, "fire must be a trigger name or a list of them");
    }
    lua_pop(L, 1);
    /* travel = "state" [, layer = "name"] */
    int layer = 0;
    lua_getfield(L, e, "layer");
    if (lua_type(L, -1) == LUA_TSTRING) layer = find_layer(s, lua_tostring(L, -1), bw_lua_key_line(L, e, "layer"));
    else if (!lua_isnil(L, -1)) tl_error(s, line, "layer must be a layer name");
    lua_pop(L, 1);
    lua_getfield(L, e, "travel");
    if (lua_type(L, -1) == LUA_TSTRING && layer >= 0) {
        int st = bw_graph_find_state(s->graph, layer, lua_tostring(L, -1));
        if (st < 0) tl_error(s, bw_lua_key_line(L, e, "travel"), "travel: unknown state '%s' in layer '%s'", lua_tostring(L, -1),
                             bw_graph_layer_name(s->graph, layer));
        action *a = st >= 0 ? add_act(t, cap, ACT_TRAVEL, i) : NULL;
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
    lua_getfield(L, e, "layer_weight");
    if (lua_istable(L, -1)) {
        const int wt = lua_gettop(L);
        lua_pushnil(L);
        while (lua_next(L, wt)) {
            int l = lua_type(L, -2) == LUA_TSTRING ? find_layer(s, lua_tostring(L, -2), line) : -1;
            if (lua_type(L, -1) != LUA_TNUMBER || !(lua_tonumber(L, -1) >= 0)) {
                tl_error(s, line, "layer_weight: a weight must be a number >= 0");
                l = -1;
            }
            action *a = l >= 0 ? add_act(t, cap, ACT_WEIGHT, i) : NULL;
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
}

/* The timeline table on top of L's stack into s->tl. */
static bool read_timeline(sim *s, lua_State *L)
{
    timeline *t = &s->tl;
    const int tt = lua_gettop(L);
    if (!lua_istable(L, tt)) {
        tl_error(s, 0, "a timeline is a table { dt =, duration = | frames =, entries... }");
        return false;
    }
    int line = bw_lua_table_line(L, tt);
    lua_pushnil(L);
    int n = (int)lua_rawlen(L, tt), slots = 0;
    while (lua_next(L, tt)) {
        lua_pop(L, 1);
        const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        if (k && (!strcmp(k, "dt") || !strcmp(k, "duration") || !strcmp(k, "frames"))) continue;
        if (lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 1 && lua_tointeger(L, -1) <= n) continue;
        tl_error(s, k ? bw_lua_key_line(L, tt, k) : line, "unknown field '%s' (a timeline has dt, duration or frames, and entries)",
                 k ? k : luaL_typename(L, -1));
    }
    t->dt = 1.0 / 60.0;
    opt_number(s, L, tt, "dt", &t->dt, bw_lua_key_line(L, tt, "dt"));
    if (!(t->dt > 0)) tl_error(s, bw_lua_key_line(L, tt, "dt"), "dt must be > 0");
    double duration = 0, frames = 0;
    bool has_d = opt_number(s, L, tt, "duration", &duration, bw_lua_key_line(L, tt, "duration"));
    bool has_f = opt_number(s, L, tt, "frames", &frames, bw_lua_key_line(L, tt, "frames"));
    if (has_d == has_f) tl_error(s, line, "give one of duration (seconds) or frames");
    else if (has_f && (frames < 0 || frames != floor(frames) || frames > MAX_FRAMES))
        tl_error(s, bw_lua_key_line(L, tt, "frames"), "frames must be a whole number in 0..%d", MAX_FRAMES);
    else if (has_d && (duration < 0 || (t->dt > 0 && duration / t->dt > MAX_FRAMES)))
        tl_error(s, bw_lua_key_line(L, tt, "duration"), "duration must be >= 0 and at most %d frames", MAX_FRAMES);
    if (t->dt > 0) t->frames = has_f ? (long)frames : (long)ceil(duration / t->dt - AT_EPSILON);
    if (t->frames < 0) t->frames = 0;
    /* every entry has at most (params + 1 + 1 + layers) actions */
    int per_entry = bw_graph_param_count(s->graph) + bw_graph_layer_count(s->graph) + 2;
    t->entry_count = n;
    t->at = (double *)calloc((size_t)n + 1, sizeof *t->at);
    t->line = (int *)calloc((size_t)n + 1, sizeof *t->line);
    slots = n * per_entry + 1;
    t->acts = (action *)calloc((size_t)slots, sizeof *t->acts);
    if (!t->at || !t->line || !t->acts) {
        tl_error(s, 0, "out of memory");
        return false;
    }
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, tt, i + 1);
        if (lua_istable(L, -1)) read_entry(s, L, lua_gettop(L), i, slots);
        else tl_error(s, bw_lua_item_line(L, tt, i + 1), "entry %d must be a table { at = s, ... }", i + 1);
        lua_pop(L, 1);
    }
    return s->errors == 0;
}

/* ---- loading in the sandbox ---- */

/* In the sandbox: (graph file name, display, timeline text, timeline
 * display, clips light userdata, clip count) -> Graph | nil, errors ;
 * timeline table */
static int load_protected(lua_State *L)
{
    const character *ch = (const character *)lua_touserdata(L, 5);
    bw_lua_run_source_file(L, "simulate", lua_tostring(L, 1), lua_tostring(L, 2));
    const int desc = lua_gettop(L);
    int n = bw_lua_graph_build(L, desc, lua_tostring(L, 2), 0, ch->clips, ch->clip_count);
    if (n == 2) return 2;
    size_t size = 0;
    const char *text = lua_tolstring(L, 3, &size);
    bw_lua_run_source(L, text, size, lua_tostring(L, 4));
    return 2;
}

static char *read_text(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = (char *)malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *more = cap < ((size_t)4 << 20) ? (char *)realloc(buf, cap * 2) : NULL;
            if (!more) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = more;
            cap *= 2;
        }
    }
    fclose(f);
    *size = n;
    return buf;
}

/* ---- the trace ---- */

typedef struct frame_events {
    const sim *s;
    bool json;
    int n;
} frame_events;

static void print_event(void *user, const bw_graph_event *e)
{
    frame_events *fe = (frame_events *)user;
    const bw_graph *g = fe->s->graph;
    static const char *const kinds[] = {"enter", "exit", "marker"};
    if (fe->json) {
        printf("%s{\"kind\":\"%s\",\"layer\":", fe->n ? "," : "", kinds[e->kind]);
        bw_cli_json_string(bw_graph_layer_name(g, e->layer));
        if (e->kind == BW_GRAPH_EVENT_MARKER) {
            printf(",\"clip\":");
            bw_cli_json_string(bw_clip_name(fe->s->ch.clips[e->clip]));
            printf(",\"name\":");
            bw_cli_json_string(e->name);
            printf(",\"time\":");
            bw_cli_json_number(e->time);
        } else {
            printf(",\"state\":");
            bw_cli_json_string(bw_graph_state_name(g, e->layer, e->state));
        }
        putchar('}');
    } else if (e->kind == BW_GRAPH_EVENT_MARKER) {
        printf("  marker %s %s %s %.9g\n", bw_graph_layer_name(g, e->layer), bw_clip_name(fe->s->ch.clips[e->clip]), e->name,
               (double)e->time);
    } else {
        printf("  %s %s %s\n", kinds[e->kind], bw_graph_layer_name(g, e->layer), bw_graph_state_name(g, e->layer, e->state));
    }
    fe->n++;
}

static void print_frame(const sim *s, bw_graph_cursor *cursor, long k, bool json, bool joints, const bw_pose *pose)
{
    const bw_graph *g = s->graph;
    double t = (double)(k + 1) * s->tl.dt;
    int layers = bw_graph_layer_count(g);
    if (json) {
        printf("{\"frame\":%ld,\"t\":%.9g,\"layers\":[", k, t);
    } else {
        printf("frame %ld t=%.9g\n", k, t);
    }
    for (int l = 0; l < layers; l++) {
        bw_graph_layer_status st;
        bw_graph_cursor_layer_status(cursor, l, &st);
        const bw_graph_transition_status *tr = &st.transition;
        if (json) {
            printf("%s{\"name\":", l ? "," : "");
            bw_cli_json_string(bw_graph_layer_name(g, l));
            printf(",\"state\":");
            bw_cli_json_string(bw_graph_state_name(g, l, st.state));
            printf(",\"progress\":%.9g,\"normalized\":", st.progress);
            bw_cli_json_number(st.normalized);
            printf(",\"weight\":");
            bw_cli_json_number(st.weight);
            printf(",\"transition\":");
            if (!tr->active) {
                printf("null}");
                continue;
            }
            printf("{\"from\":");
            if (tr->from >= 0) bw_cli_json_string(bw_graph_state_name(g, l, tr->from));
            else printf("null");
            printf(",\"to\":");
            bw_cli_json_string(bw_graph_state_name(g, l, tr->to));
            printf(",\"elapsed\":");
            bw_cli_json_number(tr->elapsed);
            printf(",\"duration\":");
            bw_cli_json_number(tr->duration);
            printf(",\"weight\":");
            bw_cli_json_number(tr->weight);
            printf(",\"mode\":\"%s\",\"frozen\":%s}}", tr->mode == BW_GRAPH_FREEZE ? "freeze" : "live",
                   tr->frozen ? "true" : "false");
        } else {
            printf("  %-12s %-16s p=%-10.4f n=%-8.4f w=%-6.3g", bw_graph_layer_name(g, l), bw_graph_state_name(g, l, st.state),
                   st.progress, (double)st.normalized, (double)st.weight);
            if (tr->active)
                printf(" %s -> %s %.4g/%.4g w=%.4g %s%s", tr->from >= 0 ? bw_graph_state_name(g, l, tr->from) : "(reload)",
                       bw_graph_state_name(g, l, tr->to), (double)tr->elapsed, (double)tr->duration, (double)tr->weight,
                       tr->mode == BW_GRAPH_FREEZE ? "freeze" : "live", tr->frozen ? " frozen" : "");
            putchar('\n');
        }
    }
    frame_events fe = {s, json, 0};
    if (json) printf("],\"events\":[");
    bw_graph_cursor_drain(cursor, print_event, &fe);
    if (json) {
        printf("],\"params\":{");
        for (int p = 0; p < bw_graph_param_count(g); p++) {
            printf("%s", p ? "," : "");
            bw_cli_json_string(bw_graph_param_name(g, p));
            putchar(':');
            bw_cli_json_number(bw_graph_cursor_param(cursor, p));
        }
        putchar('}');
        if (joints) {
            printf(",");
            bw_cli_json_joints(s->ch.asset, pose);
        }
        printf("}\n");
    } else {
        printf("  params");
        for (int p = 0; p < bw_graph_param_count(g); p++)
            printf(" %s=%.9g", bw_graph_param_name(g, p), (double)bw_graph_cursor_param(cursor, p));
        putchar('\n');
    }
}

static int run(sim *s, bool json, bool joints)
{
    const int n = s->ch.clip_count;
    bw_binding **bindings = (bw_binding **)calloc((size_t)n + 1, sizeof *bindings);
    int status = bindings ? 0 : 1;
    for (int i = 0; i < n && status == 0; i++) {
        bw_binding_desc bd;
        memset(&bd, 0, sizeof bd);
        bd.clip = s->ch.clips[i];
        bd.rig = s->ch.rig;
        bw_error err;
        memset(&err, 0, sizeof err);
        if (bw_binding_create(&bd, &bindings[i], &err) != BW_OK) {
            fprintf(stderr, "blendwerk simulate: binding clip '%s': %s\n", bw_clip_name(bd.clip), err.message);
            status = 1;
        }
    }
    bw_graph_cursor *cursor = NULL;
    bw_pose pose;
    memset(&pose, 0, sizeof pose);
    if (status == 0) {
        bw_graph_cursor_desc cd;
        memset(&cd, 0, sizeof cd);
        cd.rig = s->ch.rig;
        cd.bindings = (const bw_binding *const *)bindings;
        cd.binding_count = n;
        bw_error errs[16];
        bw_graph_errors list = {errs, 16, 0};
        if (bw_graph_cursor_create(s->graph, &cd, &cursor, &list) != BW_OK) {
            for (int i = 0; i < list.count && i < 16; i++)
                fprintf(stderr, "%s: %s: %s\n", s->graph_path, errs[i].where, errs[i].message);
            status = 1;
        } else if (bw_pose_init(&pose, s->ch.rig, NULL) != BW_OK) {
            status = 1;
        }
    }
    if (status == 0) {
        timeline *t = &s->tl;
        bool no_route = false;
        for (long k = 0; k < t->frames; k++) {
            /* in list order, every action of an entry that is due and not applied yet */
            double now = (double)k * t->dt + AT_EPSILON;
            for (int a = 0; a < t->act_count; a++) {
                action *act = &t->acts[a];
                if (act->done || t->at[act->entry] > now) continue;
                act->done = true;
                switch (act->kind) {
                case ACT_SET: bw_graph_cursor_set_param(cursor, act->index, act->value); break;
                case ACT_FIRE: bw_graph_cursor_fire(cursor, act->index); break;
                case ACT_WEIGHT: bw_graph_cursor_set_layer_weight(cursor, act->index, act->value, act->fade); break;
                case ACT_TRAVEL:
                    if (bw_graph_cursor_travel(cursor, act->index, act->state) != BW_OK) {
                        bw_graph_layer_status st;
                        bw_graph_cursor_layer_status(cursor, act->index, &st);
                        fprintf(stderr, "%s:%d: travel to '%s' in layer '%s': no route from '%s' (frame %ld)\n",
                                s->timeline_path, t->line[act->entry], bw_graph_state_name(s->graph, act->index, act->state),
                                bw_graph_layer_name(s->graph, act->index),
                                bw_graph_state_name(s->graph, act->index, st.state), k);
                        no_route = true;
                    }
                    break;
                }
            }
            bw_graph_cursor_update(cursor, (float)t->dt);
            bw_graph_cursor_evaluate(cursor, NULL, &pose);
            print_frame(s, cursor, k, json, joints, &pose);
        }
        if (no_route) status = 1;
    }
    bw_pose_deinit(&pose);
    bw_graph_cursor_destroy(cursor);
    for (int i = 0; bindings && i < n; i++) bw_binding_destroy(bindings[i]);
    free(bindings);
    return status;
}

static void report_callback(void *user, const char *message)
{
    (void)user;
    fprintf(stderr, "%s (reported once; the condition counts as false)\n", message);
}

int bw_cmd_simulate(int argc, char **argv)
{
    sim s;
    memset(&s, 0, sizeof s);
    const char *asset_path = NULL;
    bool json = false, joints = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--asset") && i + 1 < argc) asset_path = argv[++i];
        else if (!strcmp(a, "--timeline") && i + 1 < argc) s.timeline_path = argv[++i];
        else if (!strcmp(a, "--json")) json = true;
        else if (!strcmp(a, "--joints")) joints = true;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (a[0] != '-' && !s.graph_path) s.graph_path = a;
        else {
            fprintf(stderr, "blendwerk simulate: unexpected argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!s.graph_path || !asset_path || !s.timeline_path) {
        usage(stderr);
        return 2;
    }
    if (joints && !json) {
        fprintf(stderr, "blendwerk simulate: --joints needs --json\n");
        return 2;
    }
    size_t tl_size = 0;
    char *tl_text = read_text(s.timeline_path, &tl_size);
    if (!tl_text) {
        fprintf(stderr, "blendwerk simulate: cannot read %s\n", s.timeline_path);
        return 1;
    }
    if (!load_character(asset_path, &s.ch)) {
        free(tl_text);
        return 1;
    }
    char dir[BW_SANDBOX_PATH_MAX];
    const char *name = bw_sandbox_split_path(s.graph_path, dir, sizeof dir);
    int status = 1;
    bw_sandbox *sb = NULL;
    if (name) {
        bw_sandbox_desc sd;
        memset(&sd, 0, sizeof sd);
        sd.dir = dir;
        sd.name = name;
        sd.report = report_callback;
        char err[256];
        sb = bw_sandbox_create(&sd, err, sizeof err);
        if (!sb) fprintf(stderr, "blendwerk simulate: %s\n", err);
    } else {
        fprintf(stderr, "blendwerk simulate: %s: the path is too long\n", s.graph_path);
    }
    if (sb) {
        lua_State *L = bw_sandbox_state(sb);
        lua_pushcfunction(L, load_protected);
        lua_pushstring(L, name);
        lua_pushstring(L, s.graph_path);
        lua_pushlstring(L, tl_text, tl_size);
        lua_pushstring(L, s.timeline_path);
        lua_pushlightuserdata(L, &s.ch);
        if (bw_sandbox_call(sb, 5, 2) != BW_SANDBOX_OK) {
            fprintf(stderr, "%s\n", bw_sandbox_error(sb));
        } else if (lua_isnil(L, -2)) {
            for (int i = 1; i <= (int)lua_rawlen(L, -1); i++) {
                lua_rawgeti(L, -1, i);
                fprintf(stderr, "%s\n", lua_tostring(L, -1));
                lua_pop(L, 1);
            }
        } else {
            s.graph = bw_lua_graph_check(L, -2);
            if (read_timeline(&s, L)) status = run(&s, json, joints);
        }
        lua_settop(L, 0);
    }
    timeline_free(&s.tl);
    bw_sandbox_destroy(sb);
    unload_character(&s.ch);
    free(tl_text);
    return status;
}
