/* test_event_bound.c - bw_graph_event_bound (graph.h) and the default
 * event queues sized by it: a graph cursor's (bw_graph_cursor_desc
 * event_capacity 0) and an animator's (bw_animator_desc event_capacity 0,
 * and after bw_animator_set_graph), so that one update never drops an
 * event however long its step (SPEC §4: at most 4 cycles of markers).
 *
 * Clips (1 s each, a root translation track):
 *   L20  looping, 20 markers at k/20
 *   N30  not looping, 30 markers at k/30
 *   L5   looping, 5 markers at k/5
 *   Z    looping, no markers
 * Graph (parameter x = 0):
 *   layer "body": walk (L20: looping, 4 x 20 = 80), once (N30 with its own
 *     flag, not looping: 1 x 30 = 30), mix (entry; a 1D blend of L5 at 0
 *     and N30 at 1 over x: a blend state loops, its dominant leaf may be
 *     N30: 4 x 30 = 120) -> 120 + exit + enter + the first enter = 123
 *   layer "face": still (Z: no markers) -> 3
 *   bound 126.
 * A stall: x = 1 (mix plays N30 alone, cycle 1 s), update(100): the body's
 * window is the last 4 cycles, (96, 100]: every N30 marker 4 times = 120,
 * after both layers' entry enters: 122 events. A default queue reserves
 * at most BW_GRAPH_DEFAULT_EVENTS_MAX (a clip of 300 markers). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "blendwerk/blendwerk.h"
#include "check.h"
#include "fixtures.h"

enum { L20, N30, L5, Z, CLIPS };
static bw_rig *rig;
static bw_clip *clips[CLIPS];
static bw_graph *graph;

static bw_clip *marked(const char *name, int markers, bool loop)
{
    static const float times[2] = {0, 1};
    static const float values[6] = {0, 0, 0, 1, 0, 0};
    static char names[64][16];
    bw_marker_desc m[64];
    for (int i = 0; i < markers && i < 64; i++) {
        snprintf(names[i], sizeof names[i], "m%d", i);
        m[i] = (bw_marker_desc){names[i], (float)i / (float)markers};
    }
    bw_track_desc track = {"", "root", BW_CHANNEL_TRANSLATION, BW_INTERP_EASED, 2, times, values, NULL, NULL};
    bw_clip_desc d = {0};
    d.name = name;
    d.tracks = &track;
    d.track_count = 1;
    d.markers = markers ? m : NULL;
    d.marker_count = markers;
    d.length = 1;
    d.loop = loop;
    return fixture_clip_desc(&d);
}

static bool setup(void)
{
    static const char *const names[] = {"root"};
    static const int parents[] = {-1};
    rig = fixture_rig(names, parents, 1);
    clips[L20] = marked("L20", 20, true);
    clips[N30] = marked("N30", 30, false);
    clips[L5] = marked("L5", 5, true);
    clips[Z] = marked("Z", 0, true);
    static const int children[] = {0, 1};
    static const float thresholds[] = {0, 1};
    bw_blend_node nodes[3] = {bw_blend_clip_node(L5, 1), bw_blend_clip_node(N30, 1),
                              bw_blend_1d_node(children, thresholds, 2, 0, false)};
    bw_blend_tree_desc td = {.nodes = nodes, .node_count = 3, .root = 2, .param_count = 1};
    bw_blend_tree *tree = NULL;
    if (bw_blend_tree_compile(&td, &tree, NULL) != BW_OK) return false;
    static const bw_graph_param_desc params[] = {{"x", BW_GRAPH_PARAM_FLOAT, 0, 0, false}};
    bw_graph_state_desc body[3] = {{.name = "walk", .clip = L20}, {.name = "once", .clip = N30},
                                   {.name = "mix", .blend = tree}};
    bw_graph_state_desc face[1] = {{.name = "still", .clip = Z}};
    bw_graph_layer_desc layers[2] = {{.name = "body", .entry = "mix", .states = body, .state_count = 3},
                                     {.name = "face", .entry = "still", .states = face, .state_count = 1}};
    bw_graph_desc gd = {.params = params, .param_count = 1, .layers = layers, .layer_count = 2,
                        .clips = (const bw_clip *const *)clips, .clip_count = CLIPS};
    bw_result r = bw_graph_compile(&gd, &graph, NULL);
    bw_blend_tree_destroy(tree);
    return r == BW_OK;
}

static void teardown(void)
{
    bw_graph_destroy(graph);
    for (int i = 0; i < CLIPS; i++) bw_clip_destroy(clips[i]);
    bw_rig_destroy(rig);
}

static bw_graph_cursor *cursor_with(int capacity, bw_binding *const *bindings)
{
    bw_graph_cursor_desc cd = {0};
    cd.rig = rig;
    cd.bindings = (const bw_binding *const *)bindings;
    cd.binding_count = CLIPS;
    cd.event_capacity = capacity;
    bw_graph_cursor *c = NULL;
    CHECK_INT(bw_graph_cursor_create(graph, &cd, &c, NULL), BW_OK);
    return c;
}

static void the_bound_counts_four_cycles_of_the_most_marked_clip_per_layer(void)
{
    CHECK_INT(bw_graph_event_bound(graph), 123 + 3);
    CHECK_INT(bw_graph_event_bound(NULL), 0);
}

static void a_default_cursor_drops_nothing_in_a_stall(void)
{
    bw_binding *bindings[CLIPS];
    for (int i = 0; i < CLIPS; i++) bindings[i] = fixture_binding(clips[i], rig);
    bw_graph_cursor *c = cursor_with(0, bindings);
    CHECK_INT(bw_graph_cursor_set_param(c, 0, 1.0f), BW_OK);
    bw_graph_cursor_update(c, 100.0f);
    CHECK_INT(bw_graph_cursor_event_count(c), 122);
    CHECK_INT(bw_graph_cursor_dropped_events(c), 0);
    bw_graph_cursor_destroy(c);
    /* a smaller queue given by the caller keeps the oldest and counts the rest */
    c = cursor_with(10, bindings);
    CHECK_INT(bw_graph_cursor_set_param(c, 0, 1.0f), BW_OK);
    bw_graph_cursor_update(c, 100.0f);
    CHECK_INT(bw_graph_cursor_event_count(c), 10);
    CHECK_INT(bw_graph_cursor_dropped_events(c), 112);
    bw_graph_cursor_destroy(c);
    for (int i = 0; i < CLIPS; i++) bw_binding_destroy(bindings[i]);
}

/* The animator's own queue (graph events, a gesture end, a blink) by
 * default holds the graph's bound + 2: the 122 events of the stall. */
static int animator_stall_events(bw_animator *a)
{
    bw_character_param p = {0, 1.0f};
    bw_character_state s = {.velocity = {0}};
    s.params = &p;
    s.param_count = 1;
    bw_animator_update(a, 100.0f, &s, NULL);
    int n = 0;
    const bw_animator_event *ev = bw_animator_events(a, &n);
    int markers = 0;
    for (int i = 0; i < n; i++) markers += ev[i].graph_event.kind == BW_GRAPH_EVENT_MARKER;
    CHECK_INT(markers, 120);
    return n;
}

static void a_default_animator_drops_no_graph_event(void)
{
    bw_animator_desc d = {0};
    d.rig = rig;
    d.clips = (const bw_clip *const *)clips;
    d.clip_count = CLIPS;
    d.blink.disabled = true;
    d.graph = graph;
    bw_animator *a = NULL;
    CHECK_INT(bw_animator_create(&d, &a, NULL), BW_OK);
    if (!a) return;
    CHECK_INT(animator_stall_events(a), 122);
    bw_animator_destroy(a);
    /* made without a graph (64 events), then given this one: the default
     * queue grows with it */
    d.graph = NULL;
    a = NULL;
    CHECK_INT(bw_animator_create(&d, &a, NULL), BW_OK);
    if (!a) return;
    CHECK_INT(bw_animator_set_graph(a, graph, NULL, 0.0f, NULL), BW_OK);
    CHECK_INT(animator_stall_events(a), 122);
    bw_animator_destroy(a);
}

/* A clip with 300 markers (as a hostile file may hold a million): its
 * bound is 4 x 300 + 3 = 1203, but a default queue reserves at most
 * BW_GRAPH_DEFAULT_EVENTS_MAX = 1024 events, so the stall (1200 markers
 * after the entry enter: 1201 events) keeps 1024 and counts 177 dropped;
 * a caller asking for the bound (as `blendwerk simulate` does) keeps all. */
static void a_default_queue_reserves_a_bounded_room(void)
{
    enum { MANY = 300 };
    static char names[MANY][8];
    static bw_marker_desc m[MANY];
    for (int i = 0; i < MANY; i++) {
        snprintf(names[i], sizeof names[i], "m%d", i);
        m[i] = (bw_marker_desc){names[i], (float)i / (float)MANY};
    }
    static const float times[2] = {0, 1};
    static const float values[6] = {0, 0, 0, 1, 0, 0};
    bw_track_desc track = {"", "root", BW_CHANNEL_TRANSLATION, BW_INTERP_EASED, 2, times, values, NULL, NULL};
    bw_clip_desc d = {0};
    d.name = "many";
    d.tracks = &track;
    d.track_count = 1;
    d.markers = m;
    d.marker_count = MANY;
    d.length = 1;
    d.loop = true;
    bw_clip *many = fixture_clip_desc(&d);
    bw_graph_state_desc states[1] = {{.name = "busy", .clip = 0}};
    bw_graph_layer_desc layers[1] = {{.name = "body", .entry = "busy", .states = states, .state_count = 1}};
    bw_graph_desc gd = {.layers = layers, .layer_count = 1, .clips = (const bw_clip *const *)&many, .clip_count = 1};
    bw_graph *g = NULL;
    CHECK_INT(bw_graph_compile(&gd, &g, NULL), BW_OK);
    CHECK_INT(bw_graph_event_bound(g), 1203);
    bw_binding *binding = fixture_binding(many, rig);
    for (int ask = 0; ask <= 1203; ask += 1203) {
        bw_graph_cursor_desc cd = {0};
        cd.rig = rig;
        cd.bindings = (const bw_binding *const *)&binding;
        cd.binding_count = 1;
        cd.event_capacity = ask;
        bw_graph_cursor *c = NULL;
        CHECK_INT(bw_graph_cursor_create(g, &cd, &c, NULL), BW_OK);
        if (!c) continue;
        bw_graph_cursor_update(c, 100.0f);
        CHECK_INT(bw_graph_cursor_event_count(c), ask ? 1201 : BW_GRAPH_DEFAULT_EVENTS_MAX);
        CHECK_INT(bw_graph_cursor_dropped_events(c), ask ? 0 : 1201 - BW_GRAPH_DEFAULT_EVENTS_MAX);
        bw_graph_cursor_destroy(c);
    }
    bw_binding_destroy(binding);
    bw_graph_destroy(g);
    bw_clip_destroy(many);
}

int main(void)
{
    if (!setup()) {
        fprintf(stderr, "setup failed\n");
        return 1;
    }
    RUN(the_bound_counts_four_cycles_of_the_most_marked_clip_per_layer);
    RUN(a_default_cursor_drops_nothing_in_a_stall);
    RUN(a_default_animator_drops_no_graph_event);
    RUN(a_default_queue_reserves_a_bounded_room);
    teardown();
    return check_summary();
}
