/* test_animator_reload.c - a graph replaced under a running animator
 * (bw_animator_set_graph, include/blendwerk/animator.h) and the graph-file
 * reloader driving animators in host mode (bindings/graph_reload.h).
 *
 * Rig: root -> spine, identity rests. Clips (spine translation x, linear
 * from 0 at time 0 to x1 at the length, looping):
 *   IDLE "idle" 2.0 s  x 0 -> 0     WALK "walk" 1.0 s  x 0 -> 1
 *   RUN  "run"  0.5 s  x 0 -> 2
 * Graph G1: params speed (float), jump (trigger); layer base: idle (IDLE,
 * entry), move (WALK), jump (RUN); idle -> move when speed > 0.1, * -> jump
 * on jump, both instant. The other graphs are variations named where they
 * are made. Every expected number is worked out next to its check. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blendwerk/blendwerk.h"
#include "check.h"
#include "fixtures.h"
#include "graph_reload.h"
#include "test_alloc_counter.h"
#include "test_files.h"

#define TOL 1e-5

enum { ROOT, SPINE, JOINTS };
static const char *const joint_names[JOINTS] = {"root", "spine"};
static const int joint_parents[JOINTS] = {-1, ROOT};

enum { IDLE, WALK, RUN, CLIPS };
static const char *const clip_names[CLIPS] = {"idle", "walk", "run"};

static bw_rig *rig;
static bw_clip *clips[CLIPS];
static char dir[256];

static bw_clip *spine_clip(const char *name, float length, float x1)
{
    static float values[CLIPS][6];
    static int next;
    float *v = values[next++ % CLIPS];
    memset(v, 0, 6 * sizeof *v);
    v[3] = x1;
    float times[2] = {0.0f, length};
    bw_track_desc t = {"root", "spine", BW_CHANNEL_TRANSLATION, BW_INTERP_EASED, 2, times, v, NULL, NULL};
    bw_clip_desc d = {0};
    d.name = name;
    d.tracks = &t;
    d.track_count = 1;
    d.length = length;
    d.loop = true;
    return fixture_clip_desc(&d);
}

/* One layer "base" with entry idle. states / transitions as given; params
 * in the order given; the clip list `cl` of `cl_count` clips. */
static bw_graph *compile(const bw_graph_param_desc *params, int param_count, const bw_graph_state_desc *states,
                         int state_count, const bw_graph_transition_desc *tr, int tr_count, const bw_clip *const *cl,
                         int cl_count)
{
    bw_graph_layer_desc layer = {.name = "base", .entry = "idle", .states = states, .state_count = state_count,
                                 .transitions = tr, .transition_count = tr_count};
    bw_graph_desc gd = {0};
    gd.params = params;
    gd.param_count = param_count;
    gd.layers = &layer;
    gd.layer_count = 1;
    gd.clips = cl;
    gd.clip_count = cl_count;
    bw_graph *g = NULL;
    CHECK_INT(bw_graph_compile(&gd, &g, NULL), BW_OK);
    return g;
}

static const bw_graph_condition_desc fast = {.kind = BW_GRAPH_COND_COMPARE, .param = "speed", .op = BW_GRAPH_GT,
                                             .value = 0.1f};
static const bw_graph_condition_desc jumped = {.kind = BW_GRAPH_COND_TRUE, .param = "jump"};

static bw_graph *graph_g1(void)
{
    bw_graph_param_desc params[2] = {{"speed", BW_GRAPH_PARAM_FLOAT, 0, 0, false}, {"jump", BW_GRAPH_PARAM_TRIGGER, 0, 0, false}};
    bw_graph_state_desc states[3] = {{.name = "idle", .clip = IDLE}, {.name = "move", .clip = WALK},
                                     {.name = "jump", .clip = RUN}};
    bw_graph_transition_desc tr[2] = {{.from = "idle", .to = "move", .conditions = &fast, .condition_count = 1},
                                      {.from = "*", .to = "jump", .conditions = &jumped, .condition_count = 1}};
    return compile(params, 2, states, 3, tr, 2, (const bw_clip *const *)clips, CLIPS);
}

/* G2: G1 with a new first parameter "lean" (so speed is 1 and jump 2) and a
 * new state "crouch". */
static bw_graph *graph_g2(void)
{
    bw_graph_param_desc params[3] = {{"lean", BW_GRAPH_PARAM_FLOAT, 0, 0, false},
                                     {"speed", BW_GRAPH_PARAM_FLOAT, 0, 0, false},
                                     {"jump", BW_GRAPH_PARAM_TRIGGER, 0, 0, false}};
    bw_graph_state_desc states[4] = {{.name = "idle", .clip = IDLE}, {.name = "crouch", .clip = IDLE},
                                     {.name = "move", .clip = WALK}, {.name = "jump", .clip = RUN}};
    bw_graph_transition_desc tr[2] = {{.from = "idle", .to = "move", .conditions = &fast, .condition_count = 1},
                                      {.from = "*", .to = "jump", .conditions = &jumped, .condition_count = 1}};
    return compile(params, 3, states, 4, tr, 2, (const bw_clip *const *)clips, CLIPS);
}

static bw_animator_desc base_desc(const bw_graph *graph)
{
    bw_animator_desc d = {0};
    d.rig = rig;
    d.clips = (const bw_clip *const *)clips;
    d.clip_names = clip_names;
    d.clip_count = CLIPS;
    d.blink.disabled = true;
    d.head.disabled = true;
    d.graph = graph;
    return d;
}

static bw_animator *make(const bw_animator_desc *d)
{
    bw_animator *a = NULL;
    CHECK_INT(bw_animator_create(d, &a, NULL), BW_OK);
    return a;
}

static bw_graph_layer_status status(const bw_animator *a)
{
    bw_graph_layer_status st;
    memset(&st, 0, sizeof st);
    CHECK_INT(bw_graph_cursor_layer_status(bw_animator_cursor(a), 0, &st), BW_OK);
    return st;
}

static const char *state_name(const bw_animator *a)
{
    return bw_graph_state_name(bw_animator_graph(a), 0, status(a).state);
}

static float spine_x(const bw_animator *a) { return bw_animator_pose(a)->joints[SPINE].t[0]; }

/* Speed 1 then three updates of 0.25 s: update 1 fires idle -> move (move
 * at p 0), updates 2 and 3 advance move (WALK, 1 s) to p 0.5: spine x 0.5. */
static void walk_to_half(bw_animator *a, const bw_graph *graph)
{
    bw_character_param p = {bw_graph_find_param(graph, "speed"), 1.0f};
    bw_character_state s = {.velocity = {0}};
    s.params = &p;
    s.param_count = 1;
    for (int i = 0; i < 3; i++) CHECK_INT(bw_animator_update(a, 0.25f, &s, NULL), BW_OK);
    CHECK_STR(state_name(a), "move");
    CHECK_NEAR(status(a).progress, 0.5, 1e-9);
    CHECK_NEAR(spine_x(a), 0.5, TOL);
}

static void set_graph_keeps_the_state_progress_and_params(void)
{
    bw_graph *g1 = graph_g1(), *g2 = graph_g2();
    bw_animator_desc d = base_desc(g1);
    bw_animator *a = make(&d);
    walk_to_half(a, g1);
    CHECK_INT(bw_animator_set_graph(a, g2, NULL, 0.5f, NULL), BW_OK);
    bw_graph_destroy(g1); /* the animator no longer uses it (ASan would see) */
    CHECK(bw_animator_graph(a) == g2);
    CHECK(bw_graph_cursor_graph(bw_animator_cursor(a)) == g2);
    /* the set_graph cleared the last update's events (they named g1's strings) */
    int n = -1;
    bw_animator_events(a, &n);
    CHECK_INT(n, 0);
    /* move kept by name with its progress; speed carried by name (index 1 now) */
    bw_graph_layer_status st = status(a);
    CHECK_STR(state_name(a), "move");
    CHECK_NEAR(st.progress, 0.5, 1e-9);
    CHECK_NEAR(bw_graph_cursor_param(bw_animator_cursor(a), 1), 1.0, 0.0);
    CHECK_NEAR(bw_graph_cursor_param(bw_animator_cursor(a), 0), 0.0, 0.0); /* lean: its default */
    /* nothing to fade (graph.h, carry-over): move was not in a transition
     * and g2's move shows the same pose, so the layer goes on as it was */
    CHECK(!st.transition.active);
    /* One update of 0.25 s: move at p 0.75, spine x 0.75 at full weight. */
    bw_character_state s = {.velocity = {0}};
    CHECK_INT(bw_animator_update(a, 0.25f, &s, NULL), BW_OK);
    CHECK_NEAR(status(a).progress, 0.75, 1e-9);
    CHECK_NEAR(spine_x(a), 0.75, TOL);
    /* params and triggers are validated against the new graph: g1's jump
     * index (1) is g2's speed, not a trigger; g2's jump is 2 */
    int old_jump = 1, new_jump = bw_graph_find_param(g2, "jump");
    CHECK_INT(new_jump, 2);
    s.fire = &old_jump;
    s.fire_count = 1;
    CHECK_INT(bw_animator_update(a, 0.25f, &s, NULL), BW_ERR_INVALID_ARGUMENT);
    int pn = 0;
    const bw_state_problem *p = bw_animator_problems(a, &pn);
    CHECK_INT(pn, 1);
    CHECK_STR(p[0].path, "state.fire[0]");
    CHECK_STR(p[0].message, "is not a trigger");
    CHECK_STR(state_name(a), "move");
    s.fire = &new_jump;
    CHECK_INT(bw_animator_update(a, 0.25f, &s, NULL), BW_OK);
    CHECK_STR(state_name(a), "jump");
    bw_animator_destroy(a);
    bw_graph_destroy(g2);
}

static void a_removed_state_restarts_at_the_entry(void)
{
    bw_graph *g1 = graph_g1();
    /* G3: idle and stroll (WALK), no transitions: "move" is gone */
    bw_graph_param_desc params[1] = {{"speed", BW_GRAPH_PARAM_FLOAT, 0, 0, false}};
    bw_graph_state_desc states[2] = {{.name = "idle", .clip = IDLE}, {.name = "stroll", .clip = WALK}};
    bw_graph *g3 = compile(params, 1, states, 2, NULL, 0, (const bw_clip *const *)clips, CLIPS);
    bw_animator_desc d = base_desc(g1);
    bw_animator *a = make(&d);
    walk_to_half(a, g1);
    CHECK_INT(bw_animator_set_graph(a, g3, NULL, 0.2f, NULL), BW_OK);
    bw_graph_layer_status st = status(a);
    CHECK_STR(state_name(a), "idle");
    CHECK_NEAR(st.progress, 0.0, 0.0);
    CHECK(st.transition.active && st.transition.frozen);
    CHECK_NEAR(bw_graph_cursor_param(bw_animator_cursor(a), 0), 1.0, 0.0);
    /* One update of 0.1 s: idle (x 0 everywhere) at weight 0.1 / 0.2 = 0.5
     * over the frozen move pose (x 0.5): x = 0.25; idle p = 0.1 / 2 = 0.05. */
    bw_character_state s = {.velocity = {0}};
    bw_animator_update(a, 0.1f, &s, NULL);
    CHECK_NEAR(status(a).progress, 0.05, 1e-7);
    CHECK_NEAR(spine_x(a), 0.25, TOL);
    bw_animator_destroy(a);
    bw_graph_destroy(g1);
    bw_graph_destroy(g3);
}

static void an_incompatible_graph_is_refused_and_changes_nothing(void)
{
    bw_graph *g1 = graph_g1();
    /* G4: its own clip list {walk, idle}: idle plays graph clip 1, move 0 */
    const bw_clip *list[2] = {clips[WALK], clips[IDLE]};
    bw_graph_param_desc params[1] = {{"speed", BW_GRAPH_PARAM_FLOAT, 0, 0, false}};
    bw_graph_state_desc states[2] = {{.name = "idle", .clip = 1}, {.name = "move", .clip = 0}};
    bw_graph *g4 = compile(params, 1, states, 2, NULL, 0, list, 2);
    alloc_counter c = ALLOC_COUNTER(-1);
    bw_animator_desc d = base_desc(g1);
    d.allocator = (bw_allocator){alloc_counter_fn, &c};
    bw_animator *a = make(&d);
    walk_to_half(a, g1);
    const bw_graph_cursor *cursor = bw_animator_cursor(a);
    long live = c.live_blocks;
    bw_error e[4];
    bw_animator_errors errs = {e, 4, 0};
    /* 2 clips against the animator's 3, no mapping */
    CHECK_INT(bw_animator_set_graph(a, g4, NULL, 0.2f, &errs), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(errs.count, 1);
    CHECK_STR(e[0].where, "graph");
    CHECK_CONTAINS(e[0].message, "the graph has 2 clips, the animator 3");
    /* a mapping with an index out of range */
    const int bad_map[2] = {5, IDLE};
    errs.count = 0;
    CHECK_INT(bw_animator_set_graph(a, g4, bad_map, 0.2f, &errs), BW_ERR_RANGE);
    CHECK_INT(errs.count, 1);
    CHECK_STR(e[0].where, "graph_clips[0]");
    CHECK_STR(e[0].message, "clip 5 is not in [0, 3)");
    /* a bad fade */
    errs.count = 0;
    CHECK_INT(bw_animator_set_graph(a, g4, NULL, NAN, &errs), BW_ERR_NON_FINITE); /* types.h: NaN is non-finite */
    CHECK_STR(e[0].where, "fade");
    CHECK_INT(bw_animator_set_graph(NULL, g4, NULL, 0.0f, NULL), BW_ERR_INVALID_ARGUMENT);
    /* every allocation failure inside set_graph: refused, nothing leaks */
    const int good_map[2] = {WALK, IDLE};
    for (long budget = 0;; budget++) {
        c.budget = budget;
        bw_result r = bw_animator_set_graph(a, g4, good_map, 0.2f, NULL);
        c.budget = -1;
        if (r == BW_OK) {
            CHECK(budget > 0);
            break;
        }
        CHECK_INT(r, BW_ERR_OUT_OF_MEMORY);
        CHECK_INT((int)(c.live_blocks - live), 0);
        if (budget > 1000) break;
    }
    /* the refusals changed nothing: the attempt that succeeded carried the
     * same state over */
    CHECK(bw_animator_graph(a) == g4);
    CHECK(bw_animator_cursor(a) != cursor);
    CHECK_STR(state_name(a), "move");
    CHECK_NEAR(status(a).progress, 0.5, 1e-9);
    /* g4's move plays graph clip 0 = WALK through the map: one update of
     * 0.25 s with fade 0.2: move at p 0.75 (x 0.75) at weight 1 (0.25 >=
     * 0.2 ends the carry-over fade): x = 0.75. */
    bw_character_state s = {.velocity = {0}};
    bw_animator_update(a, 0.25f, &s, NULL);
    CHECK_NEAR(spine_x(a), 0.75, TOL);
    /* removing the graph needs the body layer's mixer, which an animator
       made with a graph has not made: refused, the animator is unchanged */
    c.budget = 0;
    CHECK_INT(bw_animator_set_graph(a, NULL, NULL, 0.0f, NULL), BW_ERR_OUT_OF_MEMORY);
    c.budget = -1;
    CHECK(bw_animator_graph(a) == g4 && bw_animator_cursor(a) != NULL);
    CHECK_STR(state_name(a), "move");
    /* removing the graph: the base goes back to locomotion (none here: rest) */
    CHECK_INT(bw_animator_set_graph(a, NULL, NULL, 0.0f, NULL), BW_OK);
    CHECK(bw_animator_cursor(a) == NULL && bw_animator_graph(a) == NULL);
    bw_animator_update(a, 0.25f, &s, NULL);
    CHECK_NEAR(spine_x(a), 0.0, 0.0);
    /* and a graph set on an animator without one starts at its entry */
    CHECK_INT(bw_animator_set_graph(a, g1, NULL, 0.3f, NULL), BW_OK);
    CHECK_STR(state_name(a), "idle");
    CHECK(!status(a).transition.active);
    bw_animator_destroy(a);
    CHECK_INT((int)c.live_blocks, 0);
    bw_graph_destroy(g1);
    bw_graph_destroy(g4);
}

static void refused_set_graph_keeps_the_running_cursor(void)
{
    bw_graph *g1 = graph_g1();
    const bw_clip *list[2] = {clips[WALK], clips[IDLE]};
    bw_graph_state_desc states[1] = {{.name = "idle", .clip = 1}};
    bw_graph *g5 = compile(NULL, 0, states, 1, NULL, 0, list, 2);
    bw_animator_desc d = base_desc(g1);
    bw_animator *a = make(&d);
    walk_to_half(a, g1);
    const bw_graph_cursor *cursor = bw_animator_cursor(a);
    CHECK_INT(bw_animator_set_graph(a, g5, NULL, 0.2f, NULL), BW_ERR_INVALID_ARGUMENT);
    CHECK(bw_animator_cursor(a) == cursor);
    CHECK(bw_animator_graph(a) == g1);
    bw_graph_destroy(g5); /* refused: never used */
    /* the old graph keeps running: move p 0.5 + 0.25 = 0.75, x 0.75 */
    bw_character_state s = {.velocity = {0}};
    bw_animator_update(a, 0.25f, &s, NULL);
    CHECK_STR(state_name(a), "move");
    CHECK_NEAR(status(a).progress, 0.75, 1e-9);
    CHECK_NEAR(spine_x(a), 0.75, TOL);
    bw_animator_destroy(a);
    bw_graph_destroy(g1);
}

static void updates_after_a_swap_allocate_nothing(void)
{
    bw_graph *g1 = graph_g1(), *g2 = graph_g2();
    alloc_counter c = ALLOC_COUNTER(-1);
    bw_animator_desc d = base_desc(g1);
    d.allocator = (bw_allocator){alloc_counter_fn, &c};
    bw_animator *a = make(&d);
    walk_to_half(a, g1);
    CHECK_INT(bw_animator_set_graph(a, g2, NULL, 0.5f, NULL), BW_OK);
    int speed = bw_graph_find_param(g2, "speed"), jump = bw_graph_find_param(g2, "jump");
    bw_character_param p = {speed, 0.0f};
    bw_character_state s = {.velocity = {0}};
    s.params = &p;
    s.param_count = 1;
    bw_animator_update(a, 1.0f / 60.0f, &s, NULL); /* warm-up */
    long before = c.allocations;
    int jumps = 0;
    for (int k = 0; k < 10000; k++) {
        p.value = (float)(k % 50) / 25.0f;
        s.fire_count = k % 97 == 0 ? 1 : 0;
        s.fire = &jump;
        bw_animator_update(a, 1.0f / 60.0f, &s, NULL);
        jumps += strcmp(state_name(a), "jump") == 0;
    }
    CHECK_INT((int)(c.allocations - before), 0);
    /* the jump fired at k = 0 is taken at once and nothing leaves jump */
    CHECK_INT(jumps, 10000);
    bw_animator_destroy(a);
    CHECK_INT((int)c.live_blocks, 0);
    bw_graph_destroy(g1);
    bw_graph_destroy(g2);
}

/* ---- hot reload of clips: bw_animator_refresh_clips ---- */

/* The graph of WALK alone: graph clip 0, played by its one state idle. */
static bw_graph *graph_of_walk(void)
{
    const bw_clip *walk_only[1] = {clips[WALK]};
    bw_graph_state_desc idle = {.name = "idle", .clip = 0};
    return compile(NULL, 0, &idle, 1, NULL, 0, walk_only, 1);
}

/* A graph of WALK alone (graph clip 0; state idle plays it), run by an
 * animator through desc.graph_clips {WALK} over a binding cache, and a
 * second animator that first played WALK as an explicit clip. WALK is
 * re-exported 2 s long, x 0 -> 4 (x = 2τ). The first animator: 0.25 s at
 * p 0.25 (x 0.25); refreshed, 0.5 s more: p 0.25 + 0.5 / 2 = 0.5, τ 1.0,
 * x 2.0. The second: explicit WALK for 0.25 s (track time 0.25, x 0.25),
 * then the graph (entry at p 0) for the refresh; back on explicit clips,
 * its track rebound keeps time 0.25 and plays 1 s on to 1.25 within the
 * new 2 s: x = 2 × 1.25 = 2.5 (on the old 1 s length it would wrap to
 * 0.25). The updates after it allocate nothing. */
static void refresh_clips_rebinds_the_animators_clips_and_cursor(void)
{
    bw_graph *g = graph_of_walk();
    bw_binding_cache *cache = NULL;
    CHECK_INT(bw_binding_cache_create(NULL, &cache), BW_OK);
    const int map[1] = {WALK};
    alloc_counter c = ALLOC_COUNTER(-1);
    bw_animator_desc d = base_desc(g);
    d.graph_clips = map;
    d.binding_cache = cache;
    d.allocator = (bw_allocator){alloc_counter_fn, &c};
    bw_animator *a = make(&d);
    bw_animator_desc d2 = base_desc(NULL);
    bw_animator *b = make(&d2);
    bw_character_state s = {.velocity = {0}};
    const float walk_weight[CLIPS] = {0.0f, 1.0f, 0.0f};
    bw_character_state explicit_walk = s;
    explicit_walk.clip_weights = walk_weight;
    explicit_walk.clip_weight_count = CLIPS;
    CHECK_INT(bw_animator_update(a, 0.25f, &s, NULL), BW_OK);
    CHECK_NEAR(spine_x(a), 0.25, TOL);
    CHECK_INT(bw_animator_update(b, 0.25f, &explicit_walk, NULL), BW_OK);
    CHECK_NEAR(spine_x(b), 0.25, TOL);
    CHECK_INT(bw_animator_set_graph(b, g, map, 0.0f, NULL), BW_OK);

    bw_clip *walk2 = spine_clip("walk", 2.0f, 4.0f);
    const bw_clip *fresh[1] = {walk2};
    /* refusals change nothing: a wrong count, a NULL clip, no graph */
    bw_error err[2];
    bw_animator_errors errs = {err, 2, 0};
    CHECK_INT(bw_animator_refresh_clips(a, fresh, 2, &errs), BW_ERR_INVALID_ARGUMENT);
    CHECK_STR(err[0].where, "clips");
    CHECK_STR(err[0].message, "2 clips for a graph of 1");
    const bw_clip *none[1] = {NULL};
    errs.count = 0;
    CHECK_INT(bw_animator_refresh_clips_validate(a, none, 1, &errs), BW_ERR_INVALID_ARGUMENT);
    CHECK_STR(err[0].where, "clips[0]");
    CHECK_STR(err[0].message, "clip is NULL");
    bw_animator *plain = make(&d2);
    errs.count = 0;
    CHECK_INT(bw_animator_refresh_clips(plain, fresh, 1, &errs), BW_ERR_INVALID_ARGUMENT);
    CHECK_STR(err[0].where, "animator");
    bw_animator_destroy(plain);
    CHECK_INT(bw_animator_refresh_clips_validate(a, fresh, 1, NULL), BW_OK);

    CHECK_INT(bw_graph_refresh_clips(g, fresh, 1, NULL), BW_OK);
    CHECK_INT(bw_animator_refresh_clips(a, fresh, 1, NULL), BW_OK);
    CHECK_INT(bw_animator_refresh_clips(b, fresh, 1, NULL), BW_OK);
    CHECK_NEAR(status(a).progress, 0.25, 1e-6);
    CHECK_INT(bw_animator_update(a, 0.5f, &s, NULL), BW_OK);
    CHECK_NEAR(status(a).progress, 0.5, 1e-6);
    CHECK_NEAR(spine_x(a), 2.0, TOL);
    CHECK_INT(bw_animator_set_graph(b, NULL, NULL, 0.0f, NULL), BW_OK);
    CHECK_INT(bw_animator_update(b, 1.0f, &explicit_walk, NULL), BW_OK);
    CHECK_NEAR(spine_x(b), 2.5, TOL);
    /* the old WALK is no longer used by either; the frame path allocates nothing */
    long before = c.allocations;
    for (int k = 0; k < 1000; k++) bw_animator_update(a, 1.0f / 60.0f, &s, NULL);
    CHECK_INT((int)(c.allocations - before), 0);
    bw_animator_destroy(a);
    CHECK_INT((int)c.live_blocks, 0);
    bw_animator_destroy(b);
    bw_graph_destroy(g);
    bw_binding_cache_destroy(cache);
    bw_clip_destroy(walk2);
}

/* A refreshed clip the animator also baked (here a locomotion clip) is
 * refused, every one reported, and nothing changes: x still follows the
 * 1 s WALK. */
static void refresh_clips_refuses_a_baked_clip(void)
{
    bw_graph *g = graph_of_walk();
    const int map[1] = {WALK};
    const bw_locomotion_entry loco[1] = {{WALK, 1.0f}};
    bw_animator_desc d = base_desc(g);
    d.graph_clips = map;
    d.locomotion = loco;
    d.locomotion_count = 1;
    bw_animator *a = make(&d);
    bw_clip *walk2 = spine_clip("walk", 2.0f, 4.0f);
    const bw_clip *fresh[1] = {walk2};
    bw_error err[2];
    bw_animator_errors errs = {err, 2, 0};
    CHECK_INT(bw_animator_refresh_clips(a, fresh, 1, &errs), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(errs.count, 1);
    CHECK_STR(err[0].where, "clips[0]");
    CHECK_STR(err[0].message, "the animator's clip 'walk' is also its locomotion clip, baked at creation (make a "
                              "new animator with the new clips)");
    /* the clip it already has is no change: accepted */
    const bw_clip *same[1] = {clips[WALK]};
    CHECK_INT(bw_animator_refresh_clips(a, same, 1, NULL), BW_OK);
    bw_character_state s = {.velocity = {0}};
    CHECK_INT(bw_animator_update(a, 0.25f, &s, NULL), BW_OK);
    CHECK_NEAR(spine_x(a), 0.25, TOL);
    bw_animator_destroy(a);
    bw_graph_destroy(g);
    bw_clip_destroy(walk2);
}

/* ---- the reloader in host mode ---- */

static const char *graph_file(const char *walk, double duration)
{
    static char buf[2][1024];
    static int next;
    char *b = buf[next++ % 2];
    snprintf(b, sizeof buf[0],
             "return {\n"
             "  params = { speed = 0, jump = \"trigger\" },\n"
             "  layers = {\n"
             "    { name = \"base\", entry = \"idle\",\n"
             "      states = {\n"
             "        idle = { clip = \"idle\" },\n"
             "        %s = { clip = \"walk\" },\n"
             "      },\n"
             "      transitions = {\n"
             "        { from = \"idle\", to = \"%s\", when = { \"speed > 0.1\" }, duration = %g },\n"
             "      },\n"
             "    },\n"
             "  },\n"
             "}\n",
             walk, walk, duration);
    return b;
}

static void the_reloader_drives_animators_in_host_mode(void)
{
    const char *path = path_in(dir, "host.lua");
    write_text_file(path, graph_file("move", 0));
    bw_graph_reload_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.path = path;
    rd.rig = rig;
    rd.clips = (const bw_clip *const *)clips;
    rd.clip_count = CLIPS;
    rd.host_cursors = true;
    bw_watch_desc wd = {0, false};
    rd.watch = &wd;
    char err[1024];
    bw_graph_reload *r = bw_graph_reload_create(&rd, err, sizeof err);
    if (!r) fprintf(stderr, "reload: %s\n", err);
    CHECK(r != NULL);
    if (!r) return;
    CHECK_INT(bw_graph_reload_cursor_count(r), 0);
    CHECK(bw_graph_reload_cursor(r, 0) == NULL);
    CHECK_INT(bw_graph_reload_versions(r), 1);
    const bw_graph *held = bw_graph_reload_acquire(r);
    CHECK(held == bw_graph_reload_graph(r));
    /* two characters on the file's graph (its clip list is rd.clips) */
    bw_animator_desc d = base_desc(held);
    bw_animator *a = make(&d), *b = make(&d);
    walk_to_half(a, held);
    /* an edit: the walk state is renamed for nobody, the fade changes */
    write_text_file(path, graph_file("move", 0.5));
    CHECK_INT(bw_graph_reload_now(r), BW_GRAPH_RELOAD_DONE);
    CHECK_STR(bw_graph_reload_summary(r), "");
    CHECK_INT(bw_graph_reload_versions(r), 2); /* the old one is held by the animators */
    const bw_graph *fresh = bw_graph_reload_acquire(r);
    CHECK(fresh != held && fresh == bw_graph_reload_graph(r));
    CHECK_INT(bw_animator_set_graph(a, fresh, NULL, 0.25f, NULL), BW_OK);
    CHECK_INT(bw_animator_set_graph(b, fresh, NULL, 0.25f, NULL), BW_OK);
    CHECK(bw_graph_reload_release(r, held));
    CHECK_INT(bw_graph_reload_versions(r), 1);
    CHECK(!bw_graph_reload_release(r, held)); /* gone: not a live version any more */
    CHECK_STR(state_name(a), "move");
    CHECK_NEAR(status(a).progress, 0.5, 1e-9);
    CHECK_STR(state_name(b), "idle");
    /* a: move carries on unchanged (same pose, no transition: nothing
     * fades); one update of 0.1 s: move p 0.6, x 0.6 */
    CHECK(!status(a).transition.active);
    bw_character_state s = {.velocity = {0}};
    bw_animator_update(a, 0.1f, &s, NULL);
    CHECK_NEAR(spine_x(a), 0.6, TOL);
    /* a bad edit is rejected: the animators keep their graph, nothing to do */
    write_text_file(path, "return {\n  params = { speed = },\n}\n");
    CHECK_INT(bw_graph_reload_now(r), BW_GRAPH_RELOAD_REJECTED);
    CHECK_CONTAINS(bw_graph_reload_error(r), "host.lua:2:");
    CHECK(bw_graph_reload_graph(r) == fresh);
    CHECK_INT(bw_graph_reload_versions(r), 1);
    /* an edit the rig cannot run (a mask joint it lacks) is refused by the probe cursor */
    write_text_file(path, "return {\n"
                          "  masks = { upper = { nope = 1 } },\n"
                          "  layers = { { name = \"base\", entry = \"idle\", mask = \"upper\",\n"
                          "    states = { idle = { clip = \"idle\" } } } },\n"
                          "}\n");
    CHECK_INT(bw_graph_reload_now(r), BW_GRAPH_RELOAD_REJECTED);
    CHECK_CONTAINS(bw_graph_reload_error(r), "nope");
    CHECK_INT(bw_graph_reload_versions(r), 1);
    bw_animator_update(a, 0.1f, &s, NULL);
    CHECK_NEAR(status(a).progress, 0.7, 1e-6);
    bw_animator_destroy(a);
    bw_animator_destroy(b);
    CHECK(bw_graph_reload_release(r, fresh));
    CHECK_INT(bw_graph_reload_versions(r), 1); /* still current */
    bw_graph_reload_destroy(r);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/bw_test_animator_reload_XXXXXX");
    if (!mkdtemp(dir)) SKIP_ALL("no temporary folder");
    rig = fixture_rig(joint_names, joint_parents, JOINTS);
    clips[IDLE] = spine_clip("idle", 2.0f, 0.0f);
    clips[WALK] = spine_clip("walk", 1.0f, 1.0f);
    clips[RUN] = spine_clip("run", 0.5f, 2.0f);
    RUN(set_graph_keeps_the_state_progress_and_params);
    RUN(a_removed_state_restarts_at_the_entry);
    RUN(an_incompatible_graph_is_refused_and_changes_nothing);
    RUN(refused_set_graph_keeps_the_running_cursor);
    RUN(updates_after_a_swap_allocate_nothing);
    RUN(refresh_clips_rebinds_the_animators_clips_and_cursor);
    RUN(refresh_clips_refuses_a_baked_clip);
    RUN(the_reloader_drives_animators_in_host_mode);
    for (int i = 0; i < CLIPS; i++) bw_clip_destroy(clips[i]);
    bw_rig_destroy(rig);
    remove_tree(dir);
    return check_summary();
}
