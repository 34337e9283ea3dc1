/* cmd_simulate.c - `blendwerk simulate GRAPH.lua --asset FILE --timeline
 * TIMELINE.lua [--json] [--joints]` (SPEC §12.3): run a graph over a
 * scripted timeline and print one trace record per frame.
 *
 * The graph file and the timeline are untrusted: each runs in a sandbox
 * (bindings/sandbox.h) whose folder is its own file's (its require and
 * blendwerk.load see only that folder; so the timeline may live
 * elsewhere). The timeline is loaded first, as `watch` and the demo load
 * it (bw_timeline_load: the sandbox's file reader, no symbolic link, at
 * most 4 MiB); the graph's sandbox is made and loaded by cli_graph.h as
 * for `check`. The graph is read by the one graph reader
 * (bindings/lua_graph.c), so its problems come out as FILE:LINE; the
 * timeline's table constructors record their lines the same way, so a
 * bad entry or a travel with no route names the timeline's line. The
 * timeline's actions hold the compiled graph's indices (bw_timeline_read),
 * not its Lua state. Predicates run with the sandbox's per-call callback
 * limits.
 *
 * Frame k (k = 0, 1, ...) applies, in list order, every entry with
 * at <= k*dt + 1e-9 not yet applied, then updates the cursor by dt,
 * evaluates the pose (the freeze snapshots need it) and drains the
 * events. `duration = D` runs ceil(D/dt - 1e-9) frames, `frames = N` N.
 * Numbers print with %.9g; `t` is (k + 1) * dt.
 * The cursor's event queue holds the most events one update can queue
 * (bw_graph_event_bound, at least 64, at most SIMULATE_EVENTS_MAX), so
 * every frame lists all of its events unless the bound is past that cap
 * (a graph of many layers playing clips of many markers): then a warning
 * says so before the trace, and a frame that queues more than the cap
 * drops the rest, stderr names the frame, the cap and the bound, and the
 * exit status is 1.
 * Exit codes: 0 done, 1 a file failed to load or read (or a travel of the
 * timeline had no route: the trace is complete and the error is on
 * stderr; or events were dropped), 2 bad arguments. */
#include <lua.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendwerk/asset.h"
#include "blendwerk/bind.h"
#include "blendwerk/graph.h"
#include "blendwerk/pose.h"
#include "blendwerk/text.h"
#include "cli_args.h"
#include "cli_json.h"
#include "cli_graph.h"
#include "cli_load.h"
#include "commands.h"
#include "lua_graph.h"
#include "sandbox.h"
#include "timeline.h"

/* A tool's one cursor may hold a large queue: up to 40 MiB of events. A
 * graph whose bound is past it is warned of (warn_events_past_the_cap). */
#define SIMULATE_EVENTS_MAX (1 << 20)

static void usage(FILE *to)
{
    fprintf(to, "usage: blendwerk simulate GRAPH.lua --asset FILE --timeline TIMELINE.lua [--json] [--joints]\n"
                "  FILE       a .glb / .gltf / .bvh file or Lua character (.lua) whose clips the graph names\n"
                "  TIMELINE   a Lua chunk returning { dt = 1/60, duration = s | frames = n,\n"
                "             { at = s, set = { p = v } | fire = \"t\" | travel = \"state\", layer = \"l\" |\n"
                "               layer_weight = { l = w }, fade = s }, ... }\n"
                "  --json     one JSON object per frame (docs/cli.md)\n"
                "  --joints   add each frame's joints as `blendwerk sample --json` prints them\n");
}

typedef struct sim {
    const char *graph_path, *timeline_path;
    bw_sandbox *tl_sb; /* the timeline's sandbox, its table at index 1 */
    bool json, joints;
    bw_cli_graph *file; /* the graph file and the character (cli_graph.h) */
    const bw_graph *graph;
    bw_timeline tl;
} sim;

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
            bw_cli_json_string(bw_clip_name(fe->s->file->clips[e->clip]));
            printf(",\"name\":");
            bw_cli_json_string(e->name);
            printf(",\"time\":");
            bw_cli_json_number(e->time);
        } else {
            printf(",\"state\":");
            bw_cli_json_string(bw_graph_state_name(g, e->layer, e->state));
        }
        putchar('}');
    } else {
        /* names as the text outputs print them (control bytes as \xNN) */
        printf("  %s ", kinds[e->kind]);
        bw_text_print(stdout, bw_graph_layer_name(g, e->layer));
        putchar(' ');
        if (e->kind == BW_GRAPH_EVENT_MARKER) {
            bw_text_print(stdout, bw_clip_name(fe->s->file->clips[e->clip]));
            putchar(' ');
            bw_text_print(stdout, e->name);
            printf(" %.9g", (double)e->time);
        } else {
            bw_text_print(stdout, bw_graph_state_name(g, e->layer, e->state));
        }
        putchar('\n');
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
            printf("  ");
            bw_text_print_padded(stdout, bw_graph_layer_name(g, l), 12);
            putchar(' ');
            bw_text_print_padded(stdout, bw_graph_state_name(g, l, st.state), 16);
            printf(" p=%-10.4f n=%-8.4f w=%-6.3g", st.progress, (double)st.normalized, (double)st.weight);
            if (tr->active) {
                putchar(' ');
                bw_text_print(stdout, tr->from >= 0 ? bw_graph_state_name(g, l, tr->from) : "(reload)");
                printf(" -> ");
                bw_text_print(stdout, bw_graph_state_name(g, l, tr->to));
                printf(" %.4g/%.4g w=%.4g %s%s", (double)tr->elapsed, (double)tr->duration, (double)tr->weight,
                       tr->mode == BW_GRAPH_FREEZE ? "freeze" : "live", tr->frozen ? " frozen" : "");
            }
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
            bw_cli_json_joints(s->file->asset, pose);
        }
        printf("}\n");
    } else {
        printf("  params");
        for (int p = 0; p < bw_graph_param_count(g); p++) {
            putchar(' ');
            bw_text_print(stdout, bw_graph_param_name(g, p));
            printf("=%.9g", (double)bw_graph_cursor_param(cursor, p));
        }
        putchar('\n');
    }
}

static int run(sim *s, bool json, bool joints)
{
    const int n = s->file->clip_count;
    bw_binding **bindings = (bw_binding **)calloc((size_t)n + 1, sizeof *bindings);
    int status = bindings ? 0 : 1;
    for (int i = 0; i < n && status == 0; i++) {
        bw_binding_desc bd;
        memset(&bd, 0, sizeof bd);
        bd.clip = s->file->clips[i];
        bd.rig = s->file->rig;
        bw_error err;
        memset(&err, 0, sizeof err);
        if (bw_binding_create(&bd, &bindings[i], &err) != BW_OK) {
            fputs("blendwerk simulate: binding clip '", stderr);
            bw_text_print(stderr, bw_clip_name(bd.clip));
            fputs("': ", stderr);
            bw_text_print_lines(stderr, err.message);
            fputc('\n', stderr);
            status = 1;
        }
    }
    bw_graph_cursor *cursor = NULL;
    bw_pose pose;
    memset(&pose, 0, sizeof pose);
    if (status == 0) {
        bw_graph_cursor_desc cd;
        memset(&cd, 0, sizeof cd);
        cd.rig = s->file->rig;
        cd.bindings = (const bw_binding *const *)bindings;
        cd.binding_count = n;
        /* the whole bound, past the default's cap: a trace lists every event */
        int bound = bw_graph_event_bound(s->graph);
        cd.event_capacity = bound < 64 ? 64 : bound > SIMULATE_EVENTS_MAX ? SIMULATE_EVENTS_MAX : bound;
        bw_error errs[16];
        bw_graph_errors list = {errs, 16, 0};
        if (bw_graph_cursor_create(s->graph, &cd, &cursor, &list) != BW_OK) {
            for (int i = 0; i < list.count && i < 16; i++) { /* the graph's names: escaped */
                fprintf(stderr, "%s: ", s->graph_path);
                bw_text_print(stderr, errs[i].where);
                fputs(": ", stderr);
                bw_text_print(stderr, errs[i].message);
                fputc('\n', stderr);
            }
            status = 1;
        } else if (bw_pose_init(&pose, s->file->rig, NULL) != BW_OK) {
            status = 1;
        }
    }
    if (status == 0) {
        bw_timeline *t = &s->tl;
        bool no_route = false;
        int dropped = 0;
        for (long k = 0; k < t->frames; k++) {
            if (!bw_timeline_apply(t, cursor, (double)k * t->dt, k)) no_route = true;
            bw_graph_cursor_update(cursor, (float)t->dt);
            bw_graph_cursor_evaluate(cursor, NULL, &pose);
            print_frame(s, cursor, k, json, joints, &pose);
            /* the queue holds bw_graph_event_bound events up to the cap: a
             * drop (only past the cap) is never silent, the trace of that
             * frame lacks events */
            int now = bw_graph_cursor_dropped_events(cursor);
            if (now != dropped) {
                fprintf(stderr,
                        "blendwerk simulate: frame %ld: %d event%s dropped: the event queue holds at most %d "
                        "(simulate's cap) and one update of this graph can queue up to %d; a smaller dt crosses "
                        "fewer markers a frame\n",
                        k, now - dropped, now - dropped == 1 ? "" : "s", SIMULATE_EVENTS_MAX, bw_graph_event_bound(s->graph));
                dropped = now;
            }
        }
        if (no_route || dropped) status = 1;
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
    bw_text_print_lines(stderr, message); /* the predicate's own error text: control bytes as \xNN */
    fprintf(stderr, " (reported once; the condition counts as false)\n");
}

/* In the sandbox, the compiled graph at 1 (or nil and its problems at 2:
 * printed on stderr, status 1); leaves the Graph. */
static int load(lua_State *L, bw_cli_graph *g)
{
    (void)g;
    if (lua_isnil(L, 1)) {
        bw_cli_print_list(L, 2, stderr, "");
        return 1;
    }
    lua_settop(L, 1);
    return 0;
}

/* An entry whose `at` no frame reaches (frame k applies at <= k*dt + eps,
 * the last frame is frames - 1) would be dropped silently: one warning a
 * line on stderr, "warning: TIMELINE:LINE: ...", the exit code unchanged. */
static void warn_entries_past_the_end(const bw_timeline *t)
{
    double last = (double)(t->frames - 1) * t->dt;
    for (int e = 0; e < t->entry_count; e++) {
        if (!(t->at[e] > last + BW_TIMELINE_AT_EPSILON)) continue;
        fputs("warning: ", stderr);
        bw_text_print(stderr, t->path ? t->path : "timeline");
        fprintf(stderr, ":%d: at = %.9g is past the run's end (%ld frame%s of %.9g s apply entries up to at = %.9g): never applied\n",
                t->line[e], t->at[e], t->frames, t->frames == 1 ? "" : "s", t->dt, t->frames > 0 ? last : 0.0);
    }
}

/* A graph one update of which can queue more events than the queue's cap
 * (bw_graph_event_bound past SIMULATE_EVENTS_MAX) may drop some in a long
 * step: said before the trace, "warning: GRAPH: ...", the exit code
 * unchanged (a frame that does drop makes it 1). */
static void warn_events_past_the_cap(const sim *s)
{
    const int bound = bw_graph_event_bound(s->graph);
    if (bound <= SIMULATE_EVENTS_MAX) return;
    fputs("warning: ", stderr);
    bw_text_print(stderr, s->graph_path);
    fprintf(stderr,
            ": one update can queue up to %d events, more than simulate's event queue holds (%d): a frame that "
            "queues more drops the rest (exit 1); a smaller dt crosses fewer markers a frame\n",
            bound, SIMULATE_EVENTS_MAX);
}

/* Outside the protected call: the Graph at -1; the timeline's table in
 * its own sandbox. */
static int simulate(lua_State *L, bw_cli_graph *g)
{
    sim *s = (sim *)g->user;
    s->graph = bw_lua_graph_check(L, -1);
    /* the timeline's problems as SPEC §12.3 has them: "TIMELINE:LINE:
     * message" on stderr (the file's names escaped), stdout left to the trace */
    s->tl.report = bw_timeline_report_stderr;
    bool read = bw_timeline_read(&s->tl, bw_sandbox_state(s->tl_sb), s->graph, s->timeline_path, -1);
    if (read) warn_entries_past_the_end(&s->tl);
    if (read) warn_events_past_the_cap(s);
    int status = read ? run(s, s->json, s->joints) : 1;
    bw_timeline_free(&s->tl);
    return status;
}

int bw_cmd_simulate(int argc, char **argv)
{
    sim s;
    memset(&s, 0, sizeof s);
    const char *asset_path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if ((!strcmp(a, "--asset") || !strcmp(a, "--timeline")) && i + 1 < argc) {
            if (!bw_cli_option_once("simulate", a, a[2] == 'a' ? &asset_path : &s.timeline_path, argv[++i])) {
                usage(stderr);
                return 2;
            }
        } else if (!strcmp(a, "--json")) s.json = true;
        else if (!strcmp(a, "--joints")) s.joints = true;
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
    const char *missing = !s.graph_path ? "GRAPH.lua is missing"
                          : !asset_path   ? "--asset FILE is missing (the character whose clips the graph names)"
                          : !s.timeline_path ? "--timeline TIMELINE.lua is missing"
                                             : NULL;
    if (missing) { /* what is wrong, then the usage, as sample and plot-blend say it */
        fprintf(stderr, "blendwerk simulate: %s\n", missing);
        usage(stderr);
        return 2;
    }
    if (s.joints && !s.json) {
        fprintf(stderr, "blendwerk simulate: --joints needs --json\n");
        return 2;
    }
    static char err[BW_CLI_ERROR_MAX];
    s.tl_sb = bw_timeline_load(s.timeline_path, err, sizeof err);
    if (!s.tl_sb) {
        bw_cli_error_line("simulate", err);
        return 1;
    }
    bw_cli_graph g;
    memset(&g, 0, sizeof g);
    g.cmd = "simulate";
    g.path = s.graph_path;
    g.asset_path = asset_path;
    g.user = &s;
    g.report = report_callback;
    g.after = simulate;
    g.results = 1;
    g.compile = true;
    s.file = &g;
    int status = bw_cli_graph_run(&g, load);
    bw_sandbox_destroy(s.tl_sb);
    return status;
}
