/* test_graph.c - state-machine graphs (SPEC §7, §12.2): compile errors,
 * the update order (advance, select, fire), exit-time gates, triggers,
 * any-state, non-interruptible fades, interruptions, freeze and live
 * sources, travel, events, masks, coverage, and no allocation per frame.
 *
 * Every clip here keys translations that are linear in clip time:
 * x = slope × τ, y = a constant that names the clip. A sampled pose thus
 * tells which clips were mixed at which times and weights, and every
 * expected number below is worked out by hand beside its check. The rig's
 * rest pose is the identity (t = 0). dts are 0.1 where the SPEC's example
 * uses it and powers of two otherwise, so timer comparisons are exact. */
#include "blendwerk/blendwerk.h"
#include "bw_math.h"
#include "graph_internal.h"
#include "simd.h"
#include "check.h"
#include "fixtures.h"
#include "graph_fixtures.h"
#include "test_alloc_counter.h"

/* Rig:  0 root
 *       1 spine <- root     4 leg <- root
 *       2 arm   <- spine    3 head <- spine
 *       5 eye   <- head
 *       6 tip   <- arm      7 tip <- head   (two joints named "tip") */
enum { ROOT, SPINE, ARM, HEAD, LEG, EYE, TIP_ARM, TIP_HEAD, JOINTS };
static const char *const joint_names[JOINTS] = {"root", "spine", "arm", "head", "leg", "eye", "tip", "tip"};
static const int joint_parents[JOINTS] = {-1, ROOT, SPINE, SPINE, ROOT, HEAD, ARM, HEAD};

/* Clips:      joints     length loop  y    x        markers */
enum {
    IDLE, /*  root       1      yes   0    τ        -                        */
    MOVE, /*  root       2      yes   10   τ        foot_l 0.5, foot_r 1.5   */
    JUMP, /*  root       1      no    20   τ        start 0, land 0.8        */
    ARMC, /*  arm        1      yes   30   τ        -                        */
    ALL,  /*  every      1      yes   40   0        -                        */
    ZERO, /*  every      1      yes   0    0        -                        */
    ADDC, /*  root       1      yes   5    2τ, rotation 0 -> 90° about Y    */
    TILT, /*  root       1      yes   0    0, rotation 90° about X (held)   */
    RUNC, /*  root       1      yes   50   τ        foot_l 0.1, foot_r 0.6   */
    STEP, /*  root       1      yes   60   τ        foot_l 0, foot_r 0.5     */
    CLIPS
};

static bw_rig *rig;
static bw_clip *clips[CLIPS];
static bw_binding *bindings[CLIPS];
static const float tol = 1e-5f;

static bw_clip *make_clip(int first_joint, int joint_count, float length, bool loop, float y, float slope,
                          const bw_marker_desc *markers, int marker_count)
{
    static float values[JOINTS][6];
    static float times[JOINTS][2];
    bw_track_desc tracks[JOINTS];
    for (int i = 0; i < joint_count; i++) {
        int j = first_joint + i;
        float v[6] = {0, y, 0, slope * length, y, 0};
        memcpy(values[i], v, sizeof v);
        times[i][0] = 0;
        times[i][1] = length;
        tracks[i] = (bw_track_desc){joint_parents[j] < 0 ? "" : joint_names[joint_parents[j]],
                                    joint_names[j],
                                    BW_CHANNEL_TRANSLATION,
                                    BW_INTERP_EASED,
                                    2,
                                    times[i],
                                    values[i],
                                    NULL,
                                    NULL};
    }
    bw_clip_desc d = {0};
    d.tracks = tracks;
    d.track_count = joint_count;
    d.markers = markers;
    d.marker_count = marker_count;
    d.length = length;
    d.loop = loop;
    return fixture_clip_desc(&d);
}

/* A looping 1 s root clip: translation (0, y, 0) -> (x1, y, 0) and a
 * rotation about (ax, ay, az) from 0 to 90° (turning) or held at 90°. */
static bw_clip *make_turning_clip(float y, float x1, float ax, float ay, float az, int turning)
{
    static float tv[2][6], rv[2][8];
    static const float times[2] = {0, 1};
    static int n;
    float s = sinf((float)M_PI / 4), c = cosf((float)M_PI / 4);
    float *t = tv[n], *r = rv[n];
    n++;
    const float t0[6] = {0, y, 0, x1, y, 0};
    const float r0[8] = {
        turning ? 0 : ax * s, turning ? 0 : ay * s, turning ? 0 : az * s, turning ? 1 : c, ax * s, ay * s, az * s, c};
    memcpy(t, t0, sizeof t0);
    memcpy(r, r0, sizeof r0);
    bw_track_desc tracks[2] = {{"", "root", BW_CHANNEL_TRANSLATION, BW_INTERP_EASED, 2, times, t, NULL, NULL},
                               {"", "root", BW_CHANNEL_ROTATION, BW_INTERP_EASED, 2, times, r, NULL, NULL}};
    bw_clip_desc d = {0};
    d.tracks = tracks;
    d.track_count = 2;
    d.length = 1.0f;
    d.loop = true;
    return fixture_clip_desc(&d);
}

static void make_world(void)
{
    rig = fixture_rig(joint_names, joint_parents, JOINTS);
    const bw_marker_desc move_markers[2] = {{"foot_l", 0.5f}, {"foot_r", 1.5f}};
    const bw_marker_desc jump_markers[2] = {{"start", 0.0f}, {"land", 0.8f}};
    clips[IDLE] = make_clip(ROOT, 1, 1.0f, true, 0.0f, 1.0f, NULL, 0);
    clips[MOVE] = make_clip(ROOT, 1, 2.0f, true, 10.0f, 1.0f, move_markers, 2);
    clips[JUMP] = make_clip(ROOT, 1, 1.0f, false, 20.0f, 1.0f, jump_markers, 2);
    clips[ARMC] = make_clip(ARM, 1, 1.0f, true, 30.0f, 1.0f, NULL, 0);
    clips[ALL] = make_clip(ROOT, JOINTS, 1.0f, true, 40.0f, 0.0f, NULL, 0);
    clips[ZERO] = make_clip(ROOT, JOINTS, 1.0f, true, 0.0f, 0.0f, NULL, 0);
    const bw_marker_desc run_markers[2] = {{"foot_l", 0.1f}, {"foot_r", 0.6f}};
    clips[RUNC] = make_clip(ROOT, 1, 1.0f, true, 50.0f, 1.0f, run_markers, 2);
    const bw_marker_desc step_markers[2] = {{"foot_l", 0.0f}, {"foot_r", 0.5f}};
    clips[STEP] = make_clip(ROOT, 1, 1.0f, true, 60.0f, 1.0f, step_markers, 2);
    clips[ADDC] = make_turning_clip(5.0f, 2.0f, 0.0f, 1.0f, 0.0f, 1);
    clips[TILT] = make_turning_clip(0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0);
    for (int i = 0; i < CLIPS; i++) bindings[i] = fixture_binding(clips[i], rig);
}

static void free_world(void) { graph_fixture_free(clips, bindings, CLIPS, rig); }

/* ---- building graphs ---- */

static bw_graph_desc graph_desc(const bw_graph_layer_desc *layers, int layer_count, const bw_graph_param_desc *params,
                                int param_count)
{
    bw_graph_desc d = {0};
    d.layers = layers;
    d.layer_count = layer_count;
    d.params = params;
    d.param_count = param_count;
    d.clips = (const bw_clip *const *)clips;
    d.clip_count = CLIPS;
    return d;
}

/* A compiled blend tree over `nodes` (the caller destroys it; a graph
 * keeps its own copy, so right after bw_graph_compile is fine). */
static bw_blend_tree *tree_of(const bw_blend_node *nodes, int count, int root, int param_count)
{
    bw_blend_tree_desc td = {.nodes = nodes, .node_count = count, .root = root, .param_count = param_count};
    bw_blend_tree *t = NULL;
    bw_error e = {0};
    if (bw_blend_tree_compile(&td, &t, &e) != BW_OK) {
        fprintf(stderr, "blend tree refused: %s\n", e.message);
        exit(1);
    }
    return t;
}

/* A 1D blend on parameter 0 of clip a (threshold 0) and clip b
 * (threshold 1), both at their clips' lengths. */
static bw_blend_tree *blend_1d_of(int a, int b)
{
    const int children[2] = {0, 1};
    const float thresholds[2] = {0.0f, 1.0f};
    bw_blend_node nodes[3] = {bw_blend_clip_node(a, 0.0f), bw_blend_clip_node(b, 0.0f),
                              bw_blend_1d_node(children, thresholds, 2, 0, false)};
    return tree_of(nodes, 3, 2, 1);
}

static bw_graph *compile(const bw_graph_desc *d) { return graph_fixture_compile(d); }

static bw_graph_cursor *cursor_for(const bw_graph *g, const bw_allocator *a)
{
    return graph_fixture_cursor(g, rig, bindings, CLIPS, a);
}

static bw_graph_layer_status status(const bw_graph_cursor *c, int layer) { return graph_fixture_status(c, layer); }

static bw_graph_condition_desc cond_cmp(const char *param, bw_graph_op op, float value)
{
    bw_graph_condition_desc c = {0};
    c.kind = BW_GRAPH_COND_COMPARE;
    c.param = param;
    c.op = op;
    c.value = value;
    return c;
}

static bw_graph_condition_desc cond_is(const char *param)
{
    bw_graph_condition_desc c = {0};
    c.kind = BW_GRAPH_COND_TRUE;
    c.param = param;
    return c;
}

static bw_graph_transition_desc edge(const char *from, const char *to, const bw_graph_condition_desc *conds, int n,
                                     float duration)
{
    bw_graph_transition_desc t = {0};
    t.from = from;
    t.to = to;
    t.conditions = conds;
    t.condition_count = n;
    t.duration = duration;
    return t;
}

#define layer(...) graph_fixture_layer(__VA_ARGS__)

/* The graph most fade tests need: one layer "base" of two states whose
 * first is the entry, a bool "go" (default go0) and one transition
 * states[0] -> states[1] when go, `tr` supplying the rest (duration, mode,
 * source speed, ...). */
static bw_graph *two_state_graph(const bw_graph_state_desc *states, bw_graph_transition_desc tr, float go0)
{
    bw_graph_param_desc params[1] = {{"go", BW_GRAPH_PARAM_BOOL, go0, 0, false}};
    bw_graph_condition_desc go = cond_is("go");
    tr.from = states[0].name;
    tr.to = states[1].name;
    tr.conditions = &go;
    tr.condition_count = 1;
    bw_graph_layer_desc layers[1] = {layer("base", states[0].name, states, 2, &tr, 1)};
    bw_graph_desc d = graph_desc(layers, 1, params, 1);
    return compile(&d);
}

static bw_pose new_pose(void) { return graph_fixture_pose(rig); }

/* Update by dt, evaluate over the rest pose, and check the root's x and y. */
static void check_root_after(bw_graph_cursor *c, bw_pose *out, float dt, float x, float y, int line)
{
    bw_graph_cursor_update(c, dt);
    bw_result r = bw_graph_cursor_evaluate(c, NULL, out);
    if (r != BW_OK || !(fabsf(out->joints[ROOT].t[0] - x) <= tol) || !(fabsf(out->joints[ROOT].t[1] - y) <= tol)) {
        fprintf(stderr, "%s:%d: root (%.9g, %.9g), expected (%.9g, %.9g) (result %d)\n", __FILE__, line,
                out->joints[ROOT].t[0], out->joints[ROOT].t[1], x, y, (int)r);
        check_failures_in_test++;
    }
}
#define CHECK_ROOT_AFTER(c, out, dt, x, y) check_root_after((c), (out), (dt), (x), (y), __LINE__)

/* Destroy what a test made (pose may be NULL). */
static void teardown(bw_graph_cursor *c, bw_graph *g, bw_pose *pose)
{
    if (pose) bw_pose_deinit(pose);
    bw_graph_cursor_destroy(c);
    bw_graph_destroy(g);
}

/* ---- event recording ---- */

typedef struct recorded {
    int count;
    bw_graph_event_kind kind[64];
    int layer[64];
    char name[64][16];
} recorded;

static void record(void *user, const bw_graph_event *e)
{
    recorded *r = (recorded *)user;
    if (r->count >= 64) return;
    r->kind[r->count] = e->kind;
    r->layer[r->count] = e->layer;
    snprintf(r->name[r->count], sizeof r->name[0], "%s", e->name ? e->name : "");
    r->count++;
}

static void check_event(const recorded *r, int i, bw_graph_event_kind kind, int layer_index, const char *name, int line)
{
    if (i >= r->count) {
        fprintf(stderr, "%s:%d: event %d missing (%d recorded)\n", __FILE__, line, i, r->count);
        check_failures_in_test++;
        return;
    }
    if (r->kind[i] != kind || r->layer[i] != layer_index || strcmp(r->name[i], name) != 0) {
        fprintf(stderr, "%s:%d: event %d is (%d, %d, %s), expected (%d, %d, %s)\n", __FILE__, line, i, (int)r->kind[i],
                r->layer[i], r->name[i], (int)kind, layer_index, name);
        check_failures_in_test++;
    }
}
#define CHECK_EVENT(r, i, kind, layer_index, name) check_event((r), (i), (kind), (layer_index), (name), __LINE__)

/* ======================================================================== */

static void compile_should_report_every_problem_at_once(void)
{
    bw_graph_param_desc params[3] = {{"speed", BW_GRAPH_PARAM_FLOAT, 0, 0, false},
                                     {"speed", BW_GRAPH_PARAM_FLOAT, 0, 0, false}, /* 1: duplicate */
                                     {"jump", BW_GRAPH_PARAM_TRIGGER, 0, 0, false}};
    bw_graph_state_desc states[3] = {{.name = "idle", .clip = IDLE},
                                     {.name = "jump", .clip = 99}, /* 2: clip out of range */
                                     {.name = "move", .clip = MOVE}};
    bw_graph_condition_desc fast = cond_cmp("sped", BW_GRAPH_GT, 0.1f); /* 3: unknown parameter */
    bw_graph_condition_desc jump = cond_is("jump");
    bw_graph_transition_desc trs[4] = {edge("idle", "move", &fast, 1, 0.25f), edge("move", "idle", NULL, 0, 0.25f),
                                       edge("*", "jump", &jump, 1, 0.1f),
                                       edge("jump", "jmup", NULL, 0, 0.2f)}; /* 4: unknown state */
    trs[1].duration = -1.0f;                                                 /* 5: negative duration */
    bw_graph_layer_desc layers[1] = {layer("base", "idle", states, 3, trs, 4)};
    layers[0].mask = "upper"; /* 6: unknown mask */
    bw_graph_desc d = graph_desc(layers, 1, params, 3);
    bw_error errs[16];
    bw_graph_errors list = {errs, 16, 0};
    bw_graph *g = (bw_graph *)0x1; /* untouched on failure */
    bw_result r = bw_graph_compile(&d, &g, &list);
    CHECK_INT(r, BW_ERR_DUPLICATE); /* the first problem found: params come first */
    CHECK(g == (bw_graph *)0x1);
    CHECK_INT(list.count, 6);
    CHECK_STR(errs[0].where, "params[1].name");
    CHECK_CONTAINS(errs[0].message, "duplicate parameter 'speed'");
    CHECK_STR(errs[1].where, "layers[0].mask");
    CHECK_CONTAINS(errs[1].message, "unknown mask 'upper'");
    CHECK_STR(errs[2].where, "layers[0].states[1].clip");
    CHECK_INT(errs[2].code, BW_ERR_RANGE);
    CHECK_STR(errs[3].where, "layers[0].transitions[0].conditions[0].param");
    CHECK_CONTAINS(errs[3].message, "unknown parameter 'sped'");
    CHECK_STR(errs[4].where, "layers[0].transitions[1].duration");
    CHECK_STR(errs[5].where, "layers[0].transitions[3].to");
    CHECK_CONTAINS(errs[5].message, "unknown state 'jmup'");
    CHECK_INT(errs[5].code, BW_ERR_NOT_FOUND);

    /* A list shorter than the problems keeps the count; NULL list is fine. */
    bw_graph_errors two = {errs, 2, 0};
    CHECK_INT(bw_graph_compile(&d, &g, &two), BW_ERR_DUPLICATE);
    CHECK_INT(two.count, 6);
    CHECK_INT(bw_graph_compile(&d, &g, NULL), BW_ERR_DUPLICATE);
    CHECK_INT(bw_graph_compile(NULL, &g, NULL), BW_ERR_INVALID_ARGUMENT);

    /* An enum out of range and an empty group name. */
    bw_graph_state_desc synced[1] = {{.name = "idle", .clip = IDLE, .sync = ""}};
    bw_graph_layer_desc add[1] = {layer("add", "idle", synced, 1, NULL, 0)};
    add[0].mode = (bw_graph_layer_mode)7;
    d = graph_desc(add, 1, NULL, 0);
    CHECK_INT(bw_graph_compile(&d, &g, &list), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(list.count, 2);
    CHECK_STR(errs[0].where, "layers[0].mode");
    CHECK_STR(errs[1].where, "layers[0].states[0].sync");
    CHECK(g == (bw_graph *)0x1);

    /* No layers at all. */
    d = graph_desc(NULL, 0, NULL, 0);
    CHECK_INT(bw_graph_compile(&d, &g, &list), BW_ERR_EMPTY);
    CHECK_STR(errs[0].where, "layers");
}

/* The codes types.h gives: a NaN or infinity in a time, value or weight is
 * BW_ERR_NON_FINITE, a finite negative one BW_ERR_RANGE, for every
 * "finite and >= 0" field of a graph desc (expires and exit_time were
 * RANGE for NaN). One field broken per compile; the message is kept. */
static void a_non_finite_field_is_non_finite_and_a_negative_one_range(void)
{
    enum { EXPIRES, EXIT_TIME, DURATION, SOURCE_SPEED, LAYER_WEIGHT, STATE_SPEED, FIELDS };
    static const char *where[FIELDS] = {"params[0].expires", "layers[0].transitions[0].exit_time",
                                        "layers[0].transitions[0].duration", "layers[0].transitions[0].source_speed",
                                        "layers[0].weight", "layers[0].states[0].speed"};
    const float bad[3] = {NAN, INFINITY, -1.0f};
    const bw_result want[3] = {BW_ERR_NON_FINITE, BW_ERR_NON_FINITE, BW_ERR_RANGE};
    for (int f = 0; f < FIELDS; f++) {
        for (int b = 0; b < 3; b++) {
            if (f == STATE_SPEED && b == 2) continue; /* a negative speed plays backwards */
            bw_graph_param_desc params[1] = {{"jump", BW_GRAPH_PARAM_TRIGGER, 0, 0, false}};
            bw_graph_state_desc states[2] = {{.name = "idle", .clip = IDLE, .speed = 1.0f},
                                             {.name = "move", .clip = MOVE, .speed = 1.0f}};
            bw_graph_condition_desc jump = cond_is("jump");
            bw_graph_transition_desc trs[1] = {edge("idle", "move", &jump, 1, 0.25f)};
            trs[0].has_exit_time = true;
            trs[0].exit_time = 0.5f;
            bw_graph_layer_desc layers[1] = {layer("base", "idle", states, 2, trs, 1)};
            float v = bad[b];
            switch (f) {
            case EXPIRES: params[0].expires = v; break;
            case EXIT_TIME: trs[0].exit_time = v; break;
            case DURATION: trs[0].duration = v; break;
            case SOURCE_SPEED: trs[0].source_speed = v; break;
            case LAYER_WEIGHT: layers[0].weight = v; break;
            case STATE_SPEED: states[0].speed = v; break;
            }
            bw_graph_desc d = graph_desc(layers, 1, params, 1);
            bw_error errs[4];
            bw_graph_errors list = {errs, 4, 0};
            bw_graph *g = NULL;
            CHECK_INT(bw_graph_compile(&d, &g, &list), want[b]);
            CHECK(g == NULL);
            CHECK_INT(list.count, 1);
            CHECK_STR(errs[0].where, where[f]);
            CHECK_INT(errs[0].code, want[b]);
            if (f != STATE_SPEED) CHECK_CONTAINS(errs[0].message, "must be finite and >= 0");
            bw_graph_destroy(g);
        }
    }
}

/* idle -> move when speed > 0.1, duration 0.25, at dt = 0.1:
 *  frame 0: idle p 0 -> 0.1 (length 1). Nothing fires (speed 0).
 *  frame 1 (speed 1): idle p 0.2; idle->move fires: move at p 0, elapsed 0,
 *           weight 0. Pose: idle alone at τ 0.2 -> x 0.2, y 0.
 *  frame 2: source idle p 0.3 (live, speed 1), move p 0.1/2 = 0.05
 *           (τ 0.1), timer 0.1, weight 0.4:
 *           x = 0.6·0.3 + 0.4·0.1 = 0.22, y = 0.4·10 = 4.
 *  frame 3: idle 0.4, move 0.1 (τ 0.2), timer 0.2, weight 0.8:
 *           x = 0.2·0.4 + 0.8·0.2 = 0.24, y = 8.
 *  frame 4: timer 0.3 >= 0.25: over. move 0.15 (τ 0.3): x 0.3, y 10. */
static void timeline_idle_to_move_should_follow_the_hand_derivation(void)
{
    bw_graph_param_desc params[1] = {{"speed", BW_GRAPH_PARAM_FLOAT, 0, 0, false}};
    bw_graph_state_desc states[2] = {{.name = "idle", .clip = IDLE}, {.name = "move", .clip = MOVE}};
    bw_graph_condition_desc fast = cond_cmp("speed", BW_GRAPH_GT, 0.1f);
    bw_graph_transition_desc trs[1] = {edge("idle", "move", &fast, 1, 0.25f)};
    bw_graph_layer_desc layers[1] = {layer("base", "idle", states, 2, trs, 1)};
    bw_graph_desc d = graph_desc(layers, 1, params, 1);
    bw_graph *g = compile(&d);
    bw_graph_cursor *c = cursor_for(g, NULL);
    bw_pose out = new_pose();
    int speed = bw_graph_find_param(g, "speed"), idle = bw_graph_find_state(g, 0, "idle"),
        move = bw_graph_find_state(g, 0, "move");
    CHECK_INT(speed, 0);
    CHECK_INT(move, 1);

    const float expect_x[5] = {0.1f, 0.2f, 0.22f, 0.24f, 0.3f}, expect_y[5] = {0, 0, 4, 8, 10};
    const float expect_w[5] = {-1, 0.0f, 0.4f, 0.8f, -1}; /* -1: no transition */
    const double expect_p[5] = {0.1, 0.0, 0.05, 0.1, 0.15};
    for (int frame = 0; frame < 5; frame++) {
        if (frame == 1) CHECK_INT(bw_graph_cursor_set_param(c, speed, 1.0f), BW_OK);
        bw_graph_cursor_update(c, 0.1f);
        CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &out), BW_OK);
        bw_graph_layer_status s = status(c, 0);
        CHECK_INT(s.state, frame == 0 ? idle : move);
        CHECK_NEAR(s.progress, expect_p[frame], tol);
        CHECK_NEAR(s.normalized, expect_p[frame], tol);
        CHECK_NEAR(s.weight, 1.0f, 0);
        CHECK_NEAR(out.joints[ROOT].t[0], expect_x[frame], tol);
        CHECK_NEAR(out.joints[ROOT].t[1], expect_y[frame], tol);
        CHECK_INT(s.transition.active, expect_w[frame] >= 0);
        if (expect_w[frame] >= 0) {
            CHECK_INT(s.transition.from, idle);
            CHECK_INT(s.transition.to, move);
            CHECK_NEAR(s.transition.weight, expect_w[frame], tol);
            CHECK_NEAR(s.transition.elapsed, 0.1f * (float)(frame - 1), tol);
            CHECK_NEAR(s.transition.duration, 0.25f, 0);
            CHECK_INT(s.transition.mode, BW_GRAPH_LIVE);
            CHECK(!s.transition.frozen);
            CHECK_INT(s.transition.source_state, idle);
            CHECK_NEAR(s.transition.source_progress, 0.1 * (frame + 1), tol);
        }
        CHECK(fabsf(out.coverage[ARM] - 1.0f) < tol && fabsf(out.joints[ARM].t[1]) < tol); /* rest passes */
    }
    teardown(c, g, &out);
}

/* One state a -> b with an exit time, no conditions, duration 0. */
static int exit_time_fires_after(bw_graph_loop loop, int clip, float exit_time, float offset, const float *dts, int n)
{
    bw_graph_state_desc states[2] = {{.name = "a", .clip = clip, .loop = loop, .offset = offset},
                                     {.name = "b", .clip = IDLE}};
    bw_graph_transition_desc trs[1] = {edge("a", "b", NULL, 0, 0.0f)};
    trs[0].has_exit_time = true;
    trs[0].exit_time = exit_time;
    bw_graph_layer_desc layers[1] = {layer("base", "a", states, 2, trs, 1)};
    bw_graph_desc d = graph_desc(layers, 1, NULL, 0);
    bw_graph *g = compile(&d);
    bw_graph_cursor *c = cursor_for(g, NULL);
    int fired_at = -1;
    for (int i = 0; i < n && fired_at < 0; i++) {
        bw_graph_cursor_update(c, dts[i]);
        if (status(c, 0).state == 1) fired_at = i;
    }
    teardown(c, g, NULL);
    return fired_at;
}

static void exit_time_gates_should_follow_the_three_rules(void)
{
    /* looping, e = 0.9, dt 0.8 then 0.5: p 0.8 (0.9 not reached), then 1.3:
     * the advance crossed 0 + 0.9 and the loop boundary: fires at step 1. */
    const float a[2] = {0.8f, 0.5f};
    CHECK_INT(exit_time_fires_after(BW_GRAPH_LOOP_CLIP, IDLE, 0.9f, 0.0f, a, 2), 1);
    /* offset 0.95 (past 0.9 already), dt 0.9: p 1.85 crosses the boundary
     * but not 1.9; dt 0.1: 1.95 crosses 1.9: fires at step 1. */
    const float b[2] = {0.9f, 0.1f};
    CHECK_INT(exit_time_fires_after(BW_GRAPH_LOOP_CLIP, IDLE, 0.9f, 0.95f, b, 2), 1);
    /* one huge dt (p 0 -> 7.5) crosses 0.9 as well */
    const float big[1] = {7.5f};
    CHECK_INT(exit_time_fires_after(BW_GRAPH_LOOP_CLIP, IDLE, 0.9f, 0.0f, big, 1), 0);
    /* looping e = 1.5 > 1: accumulated progress; p 0.5, 1.0, 1.5 (fires), once */
    const float half[4] = {0.5f, 0.5f, 0.5f, 0.5f};
    CHECK_INT(exit_time_fires_after(BW_GRAPH_LOOP_CLIP, IDLE, 1.5f, 0.0f, half, 4), 2);
    /* non-looping (jump): p saturates at 1, open while p >= e: dt 0.5 (p 0.5),
     * then 5 (p 1 >= 0.9) */
    const float c[2] = {0.5f, 5.0f};
    CHECK_INT(exit_time_fires_after(BW_GRAPH_LOOP_CLIP, JUMP, 0.9f, 0.0f, c, 2), 1);
    /* the state's loop flag overrides the clip's: a looping jump at dt 0.5
     * never satisfies e = 1.5 before accumulated p 1.5 (step 2) */
    CHECK_INT(exit_time_fires_after(BW_GRAPH_LOOP_YES, JUMP, 1.5f, 0.0f, half, 4), 2);
    /* and a non-looping idle with e = 1.5 never opens */
    CHECK_INT(exit_time_fires_after(BW_GRAPH_LOOP_NO, IDLE, 1.5f, 0.0f, half, 4), -1);
}

/* idle -> jump when {jump, grounded}; jump -> idle when {jump}; dodge is
 * another trigger no transition names. */
static void triggers_should_be_consumed_only_by_the_transition_that_fires(void)
{
    bw_graph_param_desc params[3] = {{"jump", BW_GRAPH_PARAM_TRIGGER, 0, 0, false},
                                     {"grounded", BW_GRAPH_PARAM_BOOL, 0, 0, false},
                                     {"dodge", BW_GRAPH_PARAM_TRIGGER, 0, 0, false}};
    bw_graph_state_desc states[2] = {{.name = "idle", .clip = IDLE}, {.name = "jump", .clip = JUMP}};
    bw_graph_condition_desc up[2] = {cond_is("jump"), cond_is("grounded")};
    bw_graph_transition_desc trs[2] = {edge("idle", "jump", up, 2, 0.0f), edge("jump", "idle", up, 1, 0.0f)};
    bw_graph_layer_desc layers[1] = {layer("base", "idle", states, 2, trs, 2)};
    bw_graph_desc d = graph_desc(layers, 1, params, 3);
    bw_graph *g = compile(&d);
    bw_graph_cursor *c = cursor_for(g, NULL);
    const int jump = 0, grounded = 1, dodge = 2;

    /* Fired while nothing can take it (not grounded): stays set. */
    CHECK_INT(bw_graph_cursor_fire(c, jump), BW_OK);
    CHECK_INT(bw_graph_cursor_fire(c, dodge), BW_OK);
    for (int i = 0; i < 3; i++) bw_graph_cursor_update(c, 0.125f);
    CHECK_NEAR(bw_graph_cursor_param(c, jump), 1.0f, 0);
    CHECK_INT(status(c, 0).state, 0);

    /* Grounded: idle->jump fires and consumes jump (but not dodge). */
    CHECK_INT(bw_graph_cursor_set_param(c, grounded, 3.0f), BW_OK); /* a bool stores 1 */
    CHECK_NEAR(bw_graph_cursor_param(c, grounded), 1.0f, 0);
    bw_graph_cursor_update(c, 0.125f);
    CHECK_INT(status(c, 0).state, 1);
    CHECK_NEAR(bw_graph_cursor_param(c, jump), 0.0f, 0);
    CHECK_NEAR(bw_graph_cursor_param(c, dodge), 1.0f, 0);
    /* jump->idle needs the trigger again: it was consumed, so no bounce. */
    bw_graph_cursor_update(c, 0.125f);
    CHECK_INT(status(c, 0).state, 1);

    /* Fired twice in one frame: one transition (jump->idle), trigger 0 after,
     * and the next update does not take idle->jump with a stale trigger. */
    CHECK_INT(bw_graph_cursor_fire(c, jump), BW_OK);
    CHECK_INT(bw_graph_cursor_fire(c, jump), BW_OK);
    bw_graph_cursor_update(c, 0.125f);
    CHECK_INT(status(c, 0).state, 0);
    CHECK_NEAR(bw_graph_cursor_param(c, jump), 0.0f, 0);
    bw_graph_cursor_update(c, 0.125f);
    CHECK_INT(status(c, 0).state, 0);

    /* reset, and the setters' refusals */
    CHECK_INT(bw_graph_cursor_fire(c, jump), BW_OK);
    CHECK_INT(bw_graph_cursor_reset_trigger(c, jump), BW_OK);
    bw_graph_cursor_update(c, 0.125f);
    CHECK_INT(status(c, 0).state, 0);
    CHECK_INT(bw_graph_cursor_set_param(c, jump, 1.0f), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_graph_cursor_fire(c, grounded), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_graph_cursor_set_param(c, grounded, NAN), BW_ERR_NON_FINITE);
    CHECK_INT(bw_graph_cursor_set_param(c, 7, 1.0f), BW_ERR_RANGE);
    CHECK(isnan(bw_graph_cursor_param(c, -1)));
    teardown(c, g, NULL);
}

/* dodge expires after 0.25 s; idle -> b when {dodge, go}. At dt 0.1 its
 * age is 0.1, 0.2, 0.3: it unsets at the end of the third update. */
static void expiring_trigger_should_unset_itself_at_the_end_of_the_update(void)
{
    bw_graph_param_desc params[2] = {{"dodge", BW_GRAPH_PARAM_TRIGGER, 0, 0.25f, false}, {"go", BW_GRAPH_PARAM_BOOL, 0, 0, false}};
    bw_graph_state_desc states[2] = {{.name = "idle", .clip = IDLE}, {.name = "b", .clip = MOVE}};
    bw_graph_condition_desc cs[2] = {cond_is("dodge"), cond_is("go")};
    bw_graph_transition_desc trs[1] = {edge("idle", "b", cs, 2, 0.0f)};
    bw_graph_layer_desc layers[1] = {layer("base", "idle", states, 2, trs, 1)};
    bw_graph_desc d = graph_desc(layers, 1, params, 2);
    bw_graph *g = compile(&d);
    for (int go_at = 2; go_at <= 3; go_at++) {
        bw_graph_cursor *c = cursor_for(g, NULL);
        CHECK_INT(bw_graph_cursor_fire(c, 0), BW_OK);
        for (int i = 0; i < 4; i++) {
            if (i == go_at) CHECK_INT(bw_graph_cursor_set_param(c, 1, 1.0f), BW_OK);
            bw_graph_cursor_update(c, 0.1f);
            if (i < 2) CHECK_NEAR(bw_graph_cursor_param(c, 0), 1.0f, 0);
        }
        /* go in the third update: the transition took it within its last
         * update; go in the fourth: it had expired, nothing fires */
        CHECK_INT(status(c, 0).state, go_at == 2 ? 1 : 0);
        CHECK_NEAR(bw_graph_cursor_param(c, 0), 0.0f, 0);
        bw_graph_cursor_destroy(c);
    }
    bw_graph_destroy(g);
}

/* expires 0 with has_expires: unset at the end of the first update after
 * fire (its age, 0.1, reaches 0); without the flag a 0 keeps meaning
 * never (set after 10 updates); has_expires on a float is an error. */
static void expires_zero_should_unset_in_the_first_update_only_with_its_flag(void)
{
    bw_graph_param_desc params[2] = {{"now", BW_GRAPH_PARAM_TRIGGER, 0, 0, true}, {"never", BW_GRAPH_PARAM_TRIGGER, 0, 0, false}};
    bw_graph_state_desc states[1] = {{.name = "idle", .clip = IDLE}};
    bw_graph_layer_desc layers[1] = {layer("base", "idle", states, 1, NULL, 0)};
    bw_graph_desc d = graph_desc(layers, 1, params, 2);
    bw_graph *g = compile(&d);
    bw_graph_cursor *c = cursor_for(g, NULL);
    CHECK_INT(bw_graph_cursor_fire(c, 0), BW_OK);
    CHECK_INT(bw_graph_cursor_fire(c, 1), BW_OK);
    bw_graph_cursor_update(c, 0.1f);
    CHECK_NEAR(bw_graph_cursor_param(c, 0), 0.0f, 0);
    CHECK_NEAR(bw_graph_cursor_param(c, 1), 1.0f, 0);
    for (int i = 0; i < 9; i++) bw_graph_cursor_update(c, 0.1f);
    CHECK_NEAR(bw_graph_cursor_param(c, 1), 1.0f, 0);
    bw_graph_cursor_destroy(c);
    bw_graph_destroy(g);

    params[1] = (bw_graph_param_desc){"speed", BW_GRAPH_PARAM_FLOAT, 0, 0, true};
    bw_error e;
    bw_graph_errors one = {&e, 1, 0};
    CHECK_INT(bw_graph_compile(&d, &g, &one), BW_ERR_INVALID_ARGUMENT);
    CHECK(one.count == 1 && strcmp(e.where, "params[1].expires") == 0 && strcmp(e.message, "only a trigger expires") == 0);
}

static int count_enters(bw_graph_cursor *c, int updates, const char *state)
{
    recorded r = {0};
    int n = 0;
    for (int i = 0; i < updates; i++) {
        bw_graph_cursor_update(c, 0.125f);
        r.count = 0;
        bw_graph_cursor_drain(c, record, &r);
        for (int k = 0; k < r.count; k++) n += r.kind[k] == BW_GRAPH_EVENT_ENTER && strcmp(r.name[k], state) == 0;
    }
    return n;
}

/* "*" -> jump when grounded, grounded held true for 50 updates. */
static void any_state_into_the_current_state_should_need_to_self(void)
{
    bw_graph_param_desc params[1] = {{"grounded", BW_GRAPH_PARAM_BOOL, 1, 0, false}};
    bw_graph_state_desc states[2] = {{.name = "idle", .clip = IDLE}, {.name = "jump", .clip = JUMP, .offset = 0.25f}};
    bw_graph_condition_desc cs[1] = {cond_is("grounded")};
    bw_graph_transition_desc trs[1] = {edge("*", "jump", cs, 1, 0.0f)};
    bw_graph_layer_desc layers[1] = {layer("base", "idle", states, 2, trs, 1)};
    bw_graph_desc d = graph_desc(layers, 1, params, 1);
    bw_graph *g = compile(&d);
    bw_graph_cursor *c = cursor_for(g, NULL);
    /* A condition held true fires once: then "*" -> current is excluded. */
    CHECK_INT(count_enters(c, 50, "jump"), 1);
    /* jump entered at offset 0.25, then 49 advances of 0.125: saturated */
    CHECK_NEAR(status(c, 0).progress, 1.0, 0);
    teardown(c, g, NULL);

    trs[0].to_self = true; /* may fire while jump is current: every update */
    g = compile(&d);
    c = cursor_for(g, NULL);
    CHECK_INT(count_enters(c, 5, "jump"), 5);
    CHECK_NEAR(status(c, 0).progress, 0.25, 0); /* re-entered at its offset, not yet advanced */
    teardown(c, g, NULL);
    trs[0].to_self = false;

    /* to_self on an ordinary transition is a compile error */
    bw_graph_transition_desc bad[1] = {edge("idle", "jump", NULL, 0, 0.0f)};
    bad[0].to_self = true;
    layers[0].transitions = bad;
    bw_error e;
    bw_graph_errors list = {&e, 1, 0};
    CHECK_INT(bw_graph_compile(&d, &g, &list), BW_ERR_INVALID_ARGUMENT);
    CHECK_STR(e.where, "layers[0].transitions[0].to_self");
}

/* a -> b (duration 0.5, non-interruptible) when go; b -> c when stop.
 * dt 0.125: the fade runs 4 updates; stop is set right after it starts.
 * Updates 2..4 advance the timer to 0.125, 0.25, 0.375: selection skipped;
 * update 5 reaches 0.5: the fade ends in its advance, selection runs, and
 * b -> c fires in that same update. */
static void non_interruptible_fade_should_ignore_conditions_until_it_ends(void)
{
    bw_graph_param_desc params[2] = {{"go", BW_GRAPH_PARAM_BOOL, 0, 0, false}, {"stop", BW_GRAPH_PARAM_BOOL, 0, 0, false}};
    bw_graph_state_desc states[3] = {
        {.name = "a", .clip = IDLE}, {.name = "b", .clip = MOVE}, {.name = "c", .clip = JUMP}};
    bw_graph_condition_desc go = cond_is("go"), stop = cond_is("stop");
    bw_graph_transition_desc trs[2] = {edge("a", "b", &go, 1, 0.5f), edge("b", "c", &stop, 1, 0.0f)};
    trs[0].non_interruptible = true;
    bw_graph_layer_desc layers[1] = {layer("base", "a", states, 3, trs, 2)};
    bw_graph_desc d = graph_desc(layers, 1, params, 2);
    bw_graph *g = compile(&d);
    bw_graph_cursor *c = cursor_for(g, NULL);
    bw_graph_cursor_set_param(c, 0, 1);
    bw_graph_cursor_update(c, 0.125f);
    CHECK_INT(status(c, 0).state, 1);
    bw_graph_cursor_set_param(c, 1, 1);
    for (int i = 1; i <= 3; i++) {
        bw_graph_cursor_update(c, 0.125f);
        bw_graph_layer_status s = status(c, 0);
        CHECK_INT(s.state, 1);
        CHECK(s.transition.active);
        CHECK_NEAR(s.transition.elapsed, 0.125f * (float)i, 0);
    }
    bw_graph_cursor_update(c, 0.125f);
    bw_graph_layer_status s = status(c, 0);
    CHECK_INT(s.state, 2);
    CHECK(!s.transition.active); /* duration-0 b -> c is complete at once */
    teardown(c, g, NULL);
}

/* A -> B when go (0.5 s), B -> C when jump (0.5 s), dt 0.125.
 * u1: A p 0.125; A->B fires (weight 0).
 * u2: A 0.25 (live), B 0.0625 (τ 0.125), w 0.25.
 * u3: A 0.375, B 0.125 (τ 0.25), w 0.5: x = 0.5·0.375 + 0.5·0.25 = 0.3125,
 *     y = 0.5·10 = 5. Evaluated: this is pose P, on screen.
 * u4 (jump): B->C fires during the fade: an interruption, source = P frozen.
 *     Evaluated at weight 0: exactly P (no jump).
 * u5: C (jump clip) at p 0.125 (τ 0.125), w 0.25:
 *     x = 0.75·0.3125 + 0.25·0.125 = 0.265625, y = 0.75·5 + 0.25·20 = 8.75. */
static void interruption_should_start_from_the_frozen_pose_on_screen(void)
{
    bw_graph_param_desc params[2] = {{"go", BW_GRAPH_PARAM_BOOL, 0, 0, false}, {"jump", BW_GRAPH_PARAM_TRIGGER, 0, 0, false}};
    bw_graph_state_desc states[3] = {
        {.name = "A", .clip = IDLE}, {.name = "B", .clip = MOVE}, {.name = "C", .clip = JUMP}};
    bw_graph_condition_desc go = cond_is("go"), jump = cond_is("jump");
    bw_graph_transition_desc trs[2] = {edge("A", "B", &go, 1, 0.5f), edge("B", "C", &jump, 1, 0.5f)};
    bw_graph_layer_desc layers[1] = {layer("base", "A", states, 3, trs, 2)};
    bw_graph_desc d = graph_desc(layers, 1, params, 2);
    bw_graph *g = compile(&d);
    bw_graph_cursor *c = cursor_for(g, NULL);
    bw_pose out = new_pose();
    bw_graph_cursor_set_param(c, 0, 1);
    for (int i = 0; i < 3; i++) {
        bw_graph_cursor_update(c, 0.125f);
        CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &out), BW_OK);
    }
    CHECK_NEAR(out.joints[ROOT].t[0], 0.3125f, tol);
    CHECK_NEAR(out.joints[ROOT].t[1], 5.0f, tol);
    bw_graph_cursor_fire(c, 1);
    bw_graph_cursor_update(c, 0.125f);
    bw_graph_layer_status s = status(c, 0);
    CHECK_INT(s.state, 2);
    CHECK(s.transition.active && s.transition.frozen);
    CHECK_INT(s.transition.mode, BW_GRAPH_LIVE); /* as authored */
    CHECK_INT(s.transition.from, 1);
    CHECK_INT(s.transition.source_state, -1);
    CHECK_NEAR(s.transition.elapsed, 0.0f, 0);
    CHECK_NEAR(s.transition.weight, 0.0f, 0);
    CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &out), BW_OK);
    CHECK_NEAR(out.joints[ROOT].t[0], 0.3125f, tol);
    CHECK_NEAR(out.joints[ROOT].t[1], 5.0f, tol);
    CHECK_ROOT_AFTER(c, &out, 0.125f, 0.265625f, 8.75f);
    teardown(c, g, &out);
}

/* A -> B when go, duration 1, dt 0.25.
 * u1: A p 0.25, evaluated (x 0.25). go set.
 * u2: A p 0.5; A->B fires. freeze: source = the pose evaluated after u1
 *     (x 0.25, y 0); live: source = A at p 0.5.
 * u3: B p 0.125 (τ 0.25), w 0.25. freeze: x = 0.75·0.25 + 0.25·0.25 = 0.25;
 *     live with source_speed 0.5: A p 0.5 + 0.25·0.5 = 0.625,
 *     x = 0.75·0.625 + 0.25·0.25 = 0.53125. y = 2.5 in both.
 * u4: B p 0.25 (τ 0.5), w 0.5. freeze: x = 0.5·0.25 + 0.5·0.5 = 0.375;
 *     live: A 0.75, x = 0.5·0.75 + 0.5·0.5 = 0.625. y = 5. */
static void freeze_and_live_sources_should_differ_as_derived(void)
{
    for (int mode = 0; mode < 2; mode++) {
        bw_graph_state_desc states[2] = {{.name = "A", .clip = IDLE}, {.name = "B", .clip = MOVE}};
        bw_graph *g =
            two_state_graph(states,
                            (bw_graph_transition_desc){
                                .duration = 1.0f, .mode = mode ? BW_GRAPH_FREEZE : BW_GRAPH_LIVE, .source_speed = 0.5f},
                            0.0f);
        bw_graph_cursor *c = cursor_for(g, NULL);
        bw_pose out = new_pose();
        bw_graph_cursor_update(c, 0.25f);
        bw_graph_cursor_evaluate(c, NULL, &out);
        CHECK_NEAR(out.joints[ROOT].t[0], 0.25f, tol);
        bw_graph_cursor_set_param(c, 0, 1);
        bw_graph_cursor_update(c, 0.25f);
        bw_graph_layer_status s = status(c, 0);
        CHECK_INT(s.transition.frozen, mode == 1);
        CHECK_INT(s.transition.mode, mode ? BW_GRAPH_FREEZE : BW_GRAPH_LIVE);
        bw_graph_cursor_evaluate(c, NULL, &out);
        CHECK_NEAR(out.joints[ROOT].t[0], mode ? 0.25f : 0.5f, tol); /* weight 0: the source alone */
        const float x3[2] = {0.53125f, 0.25f}, x4[2] = {0.625f, 0.375f};
        CHECK_ROOT_AFTER(c, &out, 0.25f, x3[mode], 2.5f);
        if (!mode) CHECK_NEAR(status(c, 0).transition.source_progress, 0.625, tol);
        CHECK_ROOT_AFTER(c, &out, 0.25f, x4[mode], 5.0f);
        teardown(c, g, &out);
    }
}

/* States a b c d e; edges in list order
 *   t0 a->b (go)   t1 b->a (not go: true, the automatic pull back)
 *   t2 b->d (exit 0.5)   t3 a->c (go)   t4 c->d (go)
 * BFS from a: t0 -> b, t3 -> c; from b: t2 -> d. Route [t0, t2] (length 2,
 * found before a-c-d). e has no incoming edge: no route. */
static void travel_should_follow_the_first_shortest_route(void)
{
    bw_graph_param_desc params[1] = {{"go", BW_GRAPH_PARAM_BOOL, 0, 0, false}};
    bw_graph_state_desc states[5] = {{.name = "a", .clip = IDLE},
                                     {.name = "b", .clip = MOVE},
                                     {.name = "c", .clip = IDLE},
                                     {.name = "d", .clip = IDLE},
                                     {.name = "e", .clip = IDLE}};
    bw_graph_condition_desc go = cond_is("go");
    bw_graph_condition_desc not_go = {.kind = BW_GRAPH_COND_NOT, .param = "go"};
    bw_graph_transition_desc trs[5] = {edge("a", "b", &go, 1, 0.0f), edge("b", "a", &not_go, 1, 0.0f),
                                       edge("b", "d", &go, 1, 0.0f), edge("a", "c", &go, 1, 0.0f),
                                       edge("c", "d", &go, 1, 0.0f)};
    trs[2].has_exit_time = true;
    trs[2].exit_time = 0.5f;
    bw_graph_layer_desc layers[1] = {layer("base", "a", states, 5, trs, 5)};
    bw_graph_desc d = graph_desc(layers, 1, params, 1);
    bw_graph *g = compile(&d);
    bw_graph_cursor *c = cursor_for(g, NULL);
    /* Requested before the first update. */
    CHECK_INT(bw_graph_cursor_travel(c, 0, 3), BW_OK);
    CHECK_INT(bw_graph_cursor_travel_pending(c, 0), 2);
    /* No route to e: an error, and the queued route is kept. */
    CHECK_INT(bw_graph_cursor_travel(c, 0, 4), BW_ERR_NOT_FOUND);
    CHECK_INT(bw_graph_cursor_travel_pending(c, 0), 2);
    CHECK_INT(bw_graph_cursor_travel(c, 0, 9), BW_ERR_RANGE);
    /* u1: t0 fires although go is 0 (conditions ignored). */
    bw_graph_cursor_update(c, 0.25f);
    CHECK_INT(status(c, 0).state, 1);
    /* b (length 2) advances 0.125 per update: p 0.125, 0.25, 0.375 - the
     * gate of t2 is closed, and t1 (b->a, true) is suspended. */
    for (int i = 0; i < 3; i++) {
        bw_graph_cursor_update(c, 0.25f);
        CHECK_INT(status(c, 0).state, 1);
    }
    /* u5: p 0.5 crosses the exit time: t2 fires; the route is complete. */
    bw_graph_cursor_update(c, 0.25f);
    CHECK_INT(status(c, 0).state, 3);
    CHECK_INT(bw_graph_cursor_travel_pending(c, 0), 0);
    /* Travel to the current state queues nothing. */
    CHECK_INT(bw_graph_cursor_travel(c, 0, 3), BW_OK);
    CHECK_INT(bw_graph_cursor_travel_pending(c, 0), 0);
    /* Automatic selection back: nothing leaves d. From a fresh cursor the
     * route a->b is pulled back by t1 without travel. */
    bw_graph_cursor_destroy(c);
    c = cursor_for(g, NULL);
    CHECK_INT(bw_graph_cursor_travel(c, 0, 1), BW_OK);
    bw_graph_cursor_update(c, 0.25f);
    CHECK_INT(status(c, 0).state, 1);
    bw_graph_cursor_update(c, 0.25f); /* route done: t1 (not go) fires */
    CHECK_INT(status(c, 0).state, 0);
    teardown(c, g, NULL);
}

/* Layer 0: jump (markers start 0, land 0.8; non-looping) -> idle at exit
 * time 0.9; layer 1: arm (no markers). dt 0.5:
 * u1: enter jump, enter arm (frame 0, layers in order), then marker start
 *     (a freshly entered state includes its start time).
 * u2: p 1.0: marker land, then the exit gate (1 >= 0.9) fires:
 *     exit jump, enter idle. */
static void events_should_come_markers_exit_enter_after_frame_zero_enters(void)
{
    bw_graph_state_desc states[2] = {{.name = "jump", .clip = JUMP}, {.name = "idle", .clip = IDLE}};
    bw_graph_transition_desc trs[1] = {edge("jump", "idle", NULL, 0, 0.0f)};
    trs[0].has_exit_time = true;
    trs[0].exit_time = 0.9f;
    bw_graph_state_desc arm_states[1] = {{.name = "arm", .clip = ARMC}};
    bw_graph_layer_desc layers[2] = {layer("base", "jump", states, 2, trs, 1),
                                     layer("upper", "arm", arm_states, 1, NULL, 0)};
    bw_graph_desc d = graph_desc(layers, 2, NULL, 0);
    bw_graph *g = compile(&d);
    bw_graph_cursor *c = cursor_for(g, NULL);
    bw_pose out = new_pose();
    recorded r = {0};
    bw_graph_cursor_update(c, 0.5f);
    bw_graph_cursor_evaluate(c, NULL, &out);
    bw_graph_cursor_drain(c, record, &r);
    CHECK_INT(r.count, 3);
    CHECK_EVENT(&r, 0, BW_GRAPH_EVENT_ENTER, 0, "jump");
    CHECK_EVENT(&r, 1, BW_GRAPH_EVENT_ENTER, 1, "arm");
    CHECK_EVENT(&r, 2, BW_GRAPH_EVENT_MARKER, 0, "start");
    r.count = 0;
    bw_graph_cursor_update(c, 0.5f);
    bw_graph_cursor_drain(c, record, &r);
    CHECK_INT(r.count, 3);
    CHECK_EVENT(&r, 0, BW_GRAPH_EVENT_MARKER, 0, "land");
    CHECK_EVENT(&r, 1, BW_GRAPH_EVENT_EXIT, 0, "jump");
    CHECK_EVENT(&r, 2, BW_GRAPH_EVENT_ENTER, 0, "idle");
    CHECK_INT(bw_graph_cursor_event_count(c), 0);
    teardown(c, g, &out);
}

/* move (markers foot_l 0.5, foot_r 1.5; length 2, looping) -> jump
 * (start 0, land 0.8) live over 1 s, at dt 0.25 from move p 0.125 (τ
 * 0.25, entered at offset 0.125):
 * u1: move τ 0.25 -> 0.5: foot_l; the transition fires (exit, enter).
 * u2: timer 0.25 < 0.5: the source supplies markers: move τ 0.5 -> 0.75,
 *     none. (jump τ 0 -> 0.25 would fire start: it is not the dominant play.)
 * u3: timer 0.5: from the midpoint the destination: jump τ 0.25 -> 0.5, none.
 * u4: timer 0.75: jump τ 0.5 -> 0.75, none; u5: timer 1, over: jump τ
 *     0.75 -> 1.0: land. The source's foot_r at τ 1.5 (u5 region) never
 *     fires. */
static void fade_markers_should_switch_from_source_to_destination_at_the_midpoint(void)
{
    bw_graph_state_desc states[2] = {{.name = "move", .clip = MOVE, .offset = 0.125f}, {.name = "jump", .clip = JUMP}};
    bw_graph *g = two_state_graph(states, (bw_graph_transition_desc){.duration = 1.0f}, 1.0f);
    bw_graph_cursor *c = cursor_for(g, NULL);
    recorded r = {0};
    for (int i = 0; i < 5; i++) {
        bw_graph_cursor_update(c, 0.25f);
        bw_graph_cursor_drain(c, record, &r);
    }
    CHECK_INT(r.count, 5);
    CHECK_EVENT(&r, 0, BW_GRAPH_EVENT_ENTER, 0, "move");
    CHECK_EVENT(&r, 1, BW_GRAPH_EVENT_MARKER, 0, "foot_l");
    CHECK_EVENT(&r, 2, BW_GRAPH_EVENT_EXIT, 0, "move");
    CHECK_EVENT(&r, 3, BW_GRAPH_EVENT_ENTER, 0, "jump");
    CHECK_EVENT(&r, 4, BW_GRAPH_EVENT_MARKER, 0, "land");
    teardown(c, g, NULL);
}

/* Layer 0 plays ZERO (every joint y 0), layer 1 plays ALL (every joint
 * y 40) through mask "upper" = {spine 1 (propagates), head 0.3 (own only)}:
 *   root 0 (no entry above it), spine 1, arm 1 and tip(arm) 1 (inherited),
 *   head 0.3 (own entry overrides), eye 1 and tip(head) 1 (inherit spine's
 *   1 past head, whose entry does not propagate), leg 0.
 * Over layer 0 (coverage 1) each joint is lerp(0, 40, weight × mask):
 * y = 40 × mask at layer weight 1, 20 × mask at 0.5. */
static void masks_should_propagate_and_own_entries_override(void)
{
    bw_graph_mask_entry_desc entries[2] = {{"spine", 1.0f, false}, {"head", 0.3f, true}};
    bw_graph_mask_desc masks[1] = {{"upper", entries, 2}};
    bw_graph_state_desc base_states[1] = {{.name = "zero", .clip = ZERO}};
    bw_graph_state_desc upper_states[1] = {{.name = "all", .clip = ALL}};
    bw_graph_layer_desc layers[2] = {layer("base", "zero", base_states, 1, NULL, 0),
                                     layer("upper", "all", upper_states, 1, NULL, 0)};
    layers[1].mask = "upper";
    bw_graph_desc d = graph_desc(layers, 2, NULL, 0);
    d.masks = masks;
    d.mask_count = 1;
    bw_graph *g = compile(&d);
    bw_graph_cursor *c = cursor_for(g, NULL);
    bw_pose out = new_pose();
    const float mask[JOINTS] = {0, 1, 1, 0.3f, 0, 1, 1, 1};
    bw_graph_cursor_update(c, 0.125f);
    CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &out), BW_OK);
    for (int j = 0; j < JOINTS; j++) CHECK_NEAR(out.joints[j].t[1], 40.0f * mask[j], tol);
    CHECK_INT(bw_graph_cursor_set_layer_weight(c, 1, 0.5f, 0.0f), BW_OK);
    CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &out), BW_OK);
    for (int j = 0; j < JOINTS; j++) CHECK_NEAR(out.joints[j].t[1], 20.0f * mask[j], tol);
    /* A weight fade to 0 over 0.5 s at dt 0.125: 0.5 -> 0.375 -> 0.25. */
    CHECK_INT(bw_graph_cursor_set_layer_weight(c, 1, 0.0f, 0.5f), BW_OK);
    bw_graph_cursor_update(c, 0.125f);
    bw_graph_cursor_update(c, 0.125f);
    CHECK_NEAR(status(c, 1).weight, 0.25f, tol);
    CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &out), BW_OK);
    CHECK_NEAR(out.joints[SPINE].t[1], 10.0f, tol);
    CHECK_NEAR(out.joints[HEAD].t[1], 3.0f, tol);
    /* the layer's own pose is unmasked */
    CHECK_NEAR(bw_graph_cursor_layer_pose(c, 1)->coverage[ROOT], 1.0f, tol);
    teardown(c, g, &out);

    /* Names resolve on the rig: "tip" is ambiguous, "arm/tip" is not,
     * "nose" is missing; every problem is reported. */
    bw_graph_mask_entry_desc bad[3] = {{"tip", 1.0f, false}, {"arm/tip", 1.0f, false}, {"nose", 1.0f, false}};
    masks[0].entries = bad;
    masks[0].entry_count = 3;
    g = compile(&d);
    bw_graph_cursor_desc cd = {.rig = rig, .bindings = (const bw_binding *const *)bindings, .binding_count = CLIPS};
    bw_error errs[4];
    bw_graph_errors list = {errs, 4, 0};
    bw_graph_cursor *none = NULL;
    CHECK_INT(bw_graph_cursor_create(g, &cd, &none, &list), BW_ERR_DUPLICATE);
    CHECK(none == NULL);
    CHECK_INT(list.count, 2);
    CHECK_STR(errs[0].where, "masks[0].entries[0].joint");
    CHECK_CONTAINS(errs[0].message, "ambiguous");
    CHECK_STR(errs[1].where, "masks[0].entries[2].joint");
    CHECK_INT(errs[1].code, BW_ERR_NOT_FOUND);
    /* "arm/tip" resolves to joint 6; spine's 0 propagates to everything
     * else below it, and tip(arm)'s own entry overrides it there. */
    bad[2] = (bw_graph_mask_entry_desc){"spine", 0.0f, false};
    masks[0].entry_count = 2;
    masks[0].entries = bad + 1;
    bw_graph_destroy(g);
    g = compile(&d);
    c = cursor_for(g, NULL);
    out = new_pose();
    bw_graph_cursor_update(c, 0.125f);
    CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &out), BW_OK);
    CHECK_NEAR(out.joints[TIP_ARM].t[1], 40.0f, tol);
    CHECK_NEAR(out.joints[TIP_HEAD].t[1], 0.0f, tol);
    CHECK_NEAR(out.joints[SPINE].t[1], 0.0f, tol);
    CHECK_NEAR(out.joints[ARM].t[1], 0.0f, tol);
    teardown(c, g, &out);
}

/* A (root only) -> B (arm only) over 1 s at dt 0.25.
 * u1: A p 0.25; fires. u2: A p 0.5 (τ 0.5), B p 0.25 (τ 0.25), w 0.25.
 * Layer pose: root share 0.75 (A only): x 0.5, coverage 0.75; arm share
 * 0.25 (B only): x 0.25, y 30, coverage 0.25.
 * Over a cleared base the output is that partial pose; over the rest pose
 * (t 0, coverage 1): root x = 0.75·0.5 = 0.375; arm y = 0.25·30 = 7.5,
 * x = 0.25·0.25 = 0.0625: the arm fades in with the weight. */
static void coverage_should_fade_a_joint_present_on_one_side_only(void)
{
    bw_graph_state_desc states[2] = {{.name = "A", .clip = IDLE}, {.name = "B", .clip = ARMC}};
    bw_graph *g = two_state_graph(states, (bw_graph_transition_desc){.duration = 1.0f}, 1.0f);
    bw_graph_cursor *c = cursor_for(g, NULL);
    bw_pose out = new_pose(), cleared = new_pose();
    bw_graph_cursor_update(c, 0.25f);
    bw_graph_cursor_update(c, 0.25f);
    CHECK_INT(bw_graph_cursor_evaluate(c, &cleared, &out), BW_OK);
    CHECK_NEAR(out.coverage[ROOT], 0.75f, tol);
    CHECK_NEAR(out.joints[ROOT].t[0], 0.5f, tol);
    CHECK_NEAR(out.coverage[ARM], 0.25f, tol);
    CHECK_NEAR(out.joints[ARM].t[0], 0.25f, tol);
    CHECK_NEAR(out.joints[ARM].t[1], 30.0f, tol);
    CHECK_NEAR(out.coverage[LEG], 0.0f, 0);
    CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &out), BW_OK);
    CHECK_NEAR(out.coverage[ARM], 1.0f, tol);
    CHECK_NEAR(out.joints[ROOT].t[0], 0.375f, tol);
    CHECK_NEAR(out.joints[ARM].t[1], 7.5f, tol);
    CHECK_NEAR(out.joints[ARM].t[0], 0.0625f, tol);
    /* a pose of the wrong size is refused and untouched */
    bw_pose small;
    CHECK_INT(bw_pose_init_counts(&small, 2, 0, NULL), BW_OK);
    small.joints[0].t[0] = 9.0f;
    CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &small), BW_ERR_INVALID_ARGUMENT);
    CHECK_NEAR(small.joints[0].t[0], 9.0f, 0);
    bw_pose_deinit(&small);
    bw_pose_deinit(&out);
    bw_pose_deinit(&cleared);
    teardown(c, g, NULL);
}

static int drain_markers(bw_graph_cursor *c, char names[][16], int max)
{
    recorded r = {0};
    bw_graph_cursor_drain(c, record, &r);
    int n = 0;
    for (int k = 0; k < r.count; k++)
        if (r.kind[k] == BW_GRAPH_EVENT_MARKER && n < max) snprintf(names[n++], 16, "%s", r.name[k]);
    return n;
}

/* walk plays MOVE (length 2, markers foot_l 0.5, foot_r 1.5) in "progress
 * seconds" p × 2.
 * Forward: dt 0.25 -> (0, 0.25]: none; dt 5 -> (0.25, 5.25]: 0.5 1.5 2.5
 * 3.5 4.5 = foot_l foot_r foot_l foot_r foot_l; dt 20 -> (5.25, 25.25] is
 * more than 4 cycles: only (17.25, 25.25], 8 markers, from foot_r (17.5 =
 * 16 + 1.5) to foot_l (24.5 = 24 + 0.5).
 * Reverse (speed -1): a marker at clip time m sits at 2 − m: foot_r at 0.5,
 * foot_l at 1.5. dt 0.75 -> [0, 0.75] (fresh: start included): foot_r;
 * dt 1 -> (0.75, 1.75]: foot_l; dt 2.5 -> (1.75, 4.25]: 2.5 foot_r, 3.5
 * foot_l. */
static void markers_should_follow_loops_and_reverse_playback(void)
{
    for (int reverse = 0; reverse < 2; reverse++) {
        bw_graph_state_desc states[1] = {{.name = "walk", .clip = MOVE, .speed = reverse ? -1.0f : 1.0f}};
        bw_graph_layer_desc layers[1] = {layer("base", "walk", states, 1, NULL, 0)};
        bw_graph_desc d = graph_desc(layers, 1, NULL, 0);
        bw_graph *g = compile(&d);
        bw_graph_cursor *c = cursor_for(g, NULL);
        char names[16][16];
        if (!reverse) {
            bw_graph_cursor_update(c, 0.25f);
            CHECK_INT(drain_markers(c, names, 16), 0);
            bw_graph_cursor_update(c, 5.0f);
            CHECK_INT(drain_markers(c, names, 16), 5);
            CHECK_STR(names[0], "foot_l");
            CHECK_STR(names[3], "foot_r");
            CHECK_STR(names[4], "foot_l");
            bw_graph_cursor_update(c, 20.0f);
            CHECK_INT(drain_markers(c, names, 16), 8);
            CHECK_STR(names[0], "foot_r");
            CHECK_STR(names[7], "foot_l");
            /* p = 25.25 / 2 = 12.625: the 13th pass, normalized 0.625 */
            CHECK_NEAR(status(c, 0).progress, 12.625, 1e-5);
            CHECK_NEAR(status(c, 0).normalized, 0.625f, 1e-5);
        } else {
            bw_graph_cursor_update(c, 0.75f);
            CHECK_INT(drain_markers(c, names, 16), 1);
            CHECK_STR(names[0], "foot_r");
            bw_graph_cursor_update(c, 1.0f);
            CHECK_INT(drain_markers(c, names, 16), 1);
            CHECK_STR(names[0], "foot_l");
            bw_graph_cursor_update(c, 2.5f);
            CHECK_INT(drain_markers(c, names, 16), 2);
            CHECK_STR(names[0], "foot_r");
            CHECK_STR(names[1], "foot_l");
            /* p = 4.25 / 2 = 2.125: clip time (1 − 0.125) × 2 = 1.75 -> x 1.75 */
            bw_pose out = new_pose();
            CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &out), BW_OK);
            CHECK_NEAR(out.joints[ROOT].t[0], 1.75f, tol);
            bw_pose_deinit(&out);
        }
        teardown(c, g, NULL);
    }
}

/* A rate × dt so large that the progress passes 2^53 cycles (found by
 * fuzz/fuzz_graph.c: speed 1e30, dt 1e9): the marker walk counted its
 * passes with k += 1, which stops moving there, and the update never
 * returned. walk plays MOVE (length 2, looping, markers 0.5 and 1.5) at
 * speed ±1e30 (as a float 1.0000000150474662e30): dt 1e9 moves p by
 * 1e9 × 1.0000000150474662e30 / 2 = 5.000000075237331e38. The window is
 * cut to the last 4 cycles, (hi − 8, hi], which rounds to (hi, hi] at
 * that magnitude: no marker. p is a whole number there (its ulp is about
 * 7e22), so normalized is 0 and the pose is MOVE at τ 0: x 0, y 10
 * (reverse plays τ = 2 × (1 − 0) = 2, which the looping clip wraps to 0). */
static void huge_rate_times_dt_should_end_without_markers(void)
{
    for (int reverse = 0; reverse < 2; reverse++) {
        bw_graph_state_desc states[1] = {{.name = "walk", .clip = MOVE, .speed = reverse ? -1e30f : 1e30f}};
        bw_graph_layer_desc layers[1] = {layer("base", "walk", states, 1, NULL, 0)};
        bw_graph_desc d = graph_desc(layers, 1, NULL, 0);
        bw_graph *g = compile(&d);
        bw_graph_cursor *c = cursor_for(g, NULL);
        char names[16][16];
        bw_graph_cursor_update(c, 1e9f);
        CHECK_INT(drain_markers(c, names, 16), 0);
        CHECK_NEAR(status(c, 0).progress / 5.000000075237331e38, 1.0, 1e-12);
        CHECK_NEAR(status(c, 0).normalized, 0.0f, 0.0f);
        bw_graph_cursor_update(c, 0.25f);
        CHECK_INT(drain_markers(c, names, 16), 0);
        bw_pose out = new_pose();
        CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &out), BW_OK);
        CHECK_NEAR(out.joints[ROOT].t[0], 0.0f, tol);
        CHECK_NEAR(out.joints[ROOT].t[1], 10.0f, tol);
        bw_pose_deinit(&out);
        teardown(c, g, NULL);
    }
}

/* A state's speed multiplied by a parameter, a layer weight that follows
 * a parameter, a quad fade curve, and dts the update ignores. */
static void parameters_should_drive_speed_layer_weight_and_curves(void)
{
    bw_graph_param_desc params[3] = {{"rate", BW_GRAPH_PARAM_FLOAT, 2, 0, false},
                                     {"blend", BW_GRAPH_PARAM_FLOAT, 0.5f, 0, false},
                                     {"go", BW_GRAPH_PARAM_BOOL, 0, 0, false}};
    bw_graph_state_desc states[2] = {{.name = "a", .clip = MOVE, .speed = 0.5f, .speed_param = "rate"},
                                     {.name = "b", .clip = IDLE}};
    bw_graph_condition_desc go = cond_is("go");
    bw_graph_transition_desc trs[1] = {edge("a", "b", &go, 1, 1.0f)};
    trs[0].curve = BW_EASE_QUAD;
    bw_graph_layer_desc layers[1] = {layer("base", "a", states, 2, trs, 1)};
    layers[0].weight_param = "blend";
    bw_graph_desc d = graph_desc(layers, 1, params, 3);
    bw_graph *g = compile(&d);
    bw_graph_cursor *c = cursor_for(g, NULL);
    /* rate 0.5 × 2 = 1 on a 2 s clip: dt 0.5 -> p 0.25 */
    bw_graph_cursor_update(c, 0.5f);
    CHECK_NEAR(status(c, 0).progress, 0.25, 1e-9);
    CHECK_NEAR(status(c, 0).weight, 0.5f, 0);
    bw_graph_cursor_set_param(c, 0, 0.0f); /* rate 0: the state holds */
    bw_graph_cursor_update(c, 0.5f);
    CHECK_NEAR(status(c, 0).progress, 0.25, 1e-9);
    bw_graph_cursor_update(c, NAN);
    bw_graph_cursor_update(c, -3.0f);
    bw_graph_cursor_set_param(c, 0, 4.0f);
    bw_graph_cursor_update(c, INFINITY);
    CHECK_NEAR(status(c, 0).progress, 0.25, 1e-9);
    bw_graph_cursor_set_param(c, 1, -2.0f); /* a negative parameter weight counts as 0 */
    CHECK_NEAR(status(c, 0).weight, 0.0f, 0);
    CHECK_INT(bw_graph_cursor_set_layer_weight(c, 0, 1.0f, 0.0f), BW_ERR_INVALID_ARGUMENT);
    /* quad fade: weight at elapsed 0.5 of 1 is 0.25 */
    bw_graph_cursor_set_param(c, 2, 1.0f);
    bw_graph_cursor_update(c, 0.5f);
    bw_graph_cursor_update(c, 0.5f);
    CHECK_NEAR(status(c, 0).transition.weight, 0.25f, tol);
    teardown(c, g, NULL);
}

/* A -> B when go, B -> A when not go, both 0.5 s, dt 0.125 (SPEC §11:
 * A -> B -> A never jumps). go flips back at 50%: the interruption's first
 * evaluated pose equals the last one on screen, and each later frame
 * moves by at most the fade's own step. */
static void going_back_mid_fade_should_not_jump(void)
{
    bw_graph_param_desc params[1] = {{"go", BW_GRAPH_PARAM_BOOL, 1, 0, false}};
    bw_graph_state_desc states[2] = {{.name = "A", .clip = IDLE}, {.name = "B", .clip = MOVE}};
    bw_graph_condition_desc go = cond_is("go");
    bw_graph_condition_desc stay = {.kind = BW_GRAPH_COND_NOT, .param = "go"};
    bw_graph_transition_desc trs[2] = {edge("A", "B", &go, 1, 0.5f), edge("B", "A", &stay, 1, 0.5f)};
    bw_graph_layer_desc layers[1] = {layer("base", "A", states, 2, trs, 2)};
    bw_graph_desc d = graph_desc(layers, 1, params, 1);
    bw_graph *g = compile(&d);
    bw_graph_cursor *c = cursor_for(g, NULL);
    bw_pose out = new_pose();
    float last_y = 0.0f, worst_step = 0.0f;
    for (int frame = 0; frame < 12; frame++) {
        if (frame == 3) bw_graph_cursor_set_param(c, 0, 0.0f); /* B at weight 0.5 on screen */
        bw_graph_cursor_update(c, 0.125f);
        bw_graph_cursor_evaluate(c, NULL, &out);
        float y = out.joints[ROOT].t[1];
        if (frame == 3) {
            CHECK_INT(status(c, 0).state, 0);
            CHECK(status(c, 0).transition.frozen);
            CHECK_NEAR(y, last_y, 0); /* = 5: the pose on screen */
        }
        if (frame > 0 && fabsf(y - last_y) > worst_step) worst_step = fabsf(y - last_y);
        last_y = y;
    }
    /* A's y is 0 and B's 10: a fade step of 0.25 weight moves y by 2.5;
     * from the frozen 5 back to 0 over 4 steps, 1.25 per step. */
    CHECK_NEAR(worst_step, 2.5f, tol);
    CHECK_NEAR(last_y, 0.0f, tol);
    teardown(c, g, &out);
}

/* Travel over an any-state edge: a -> b via "*" -> x, x -> b. From x the
 * any-state edge into x itself is excluded. */
static void travel_should_use_any_state_edges(void)
{
    bw_graph_param_desc params[1] = {{"never", BW_GRAPH_PARAM_BOOL, 0, 0, false}};
    bw_graph_state_desc states[3] = {
        {.name = "a", .clip = IDLE}, {.name = "b", .clip = IDLE}, {.name = "x", .clip = IDLE}};
    bw_graph_condition_desc never = cond_is("never");
    bw_graph_transition_desc trs[2] = {edge("*", "x", &never, 1, 0.0f), edge("x", "b", &never, 1, 0.0f)};
    bw_graph_layer_desc layers[1] = {layer("base", "a", states, 3, trs, 2)};
    bw_graph_desc d = graph_desc(layers, 1, params, 1);
    bw_graph *g = compile(&d);
    bw_graph_cursor *c = cursor_for(g, NULL);
    CHECK_INT(bw_graph_cursor_travel(c, 0, 1), BW_OK);
    CHECK_INT(bw_graph_cursor_travel_pending(c, 0), 2);
    bw_graph_cursor_update(c, 0.125f);
    CHECK_INT(status(c, 0).state, 2);
    bw_graph_cursor_update(c, 0.125f);
    CHECK_INT(status(c, 0).state, 1);
    /* from b, a is unreachable (nothing leads to a): the error changes nothing */
    CHECK_INT(bw_graph_cursor_travel(c, 0, 0), BW_ERR_NOT_FOUND);
    teardown(c, g, NULL);
}

/* A queue of 2 events: frame 0 of three layers queues 3 enters. */
static void a_full_event_queue_should_drop_and_count(void)
{
    bw_graph_state_desc states[1] = {{.name = "idle", .clip = IDLE}};
    bw_graph_layer_desc layers[3] = {layer("l0", "idle", states, 1, NULL, 0), layer("l1", "idle", states, 1, NULL, 0),
                                     layer("l2", "idle", states, 1, NULL, 0)};
    bw_graph_desc d = graph_desc(layers, 3, NULL, 0);
    bw_graph *g = compile(&d);
    bw_graph_cursor_desc cd = {.rig = rig, .bindings = (const bw_binding *const *)bindings, .binding_count = CLIPS, .event_capacity = 2};
    bw_graph_cursor *c = NULL;
    CHECK_INT(bw_graph_cursor_create(g, &cd, &c, NULL), BW_OK);
    bw_graph_cursor_update(c, 0.125f);
    CHECK_INT(bw_graph_cursor_event_count(c), 2);
    CHECK_INT(bw_graph_cursor_dropped_events(c), 1);
    recorded r = {0};
    bw_graph_cursor_drain(c, record, &r);
    CHECK_EVENT(&r, 1, BW_GRAPH_EVENT_ENTER, 1, "idle");
    CHECK_INT(bw_graph_find_layer(g, "l2"), 2);
    CHECK_STR(bw_graph_layer_name(g, 2), "l2");
    CHECK_STR(bw_graph_state_name(g, 1, 0), "idle");
    CHECK(bw_graph_state_name(g, 1, 1) == NULL);
    teardown(c, g, NULL);
}

/* A 1D blend over speed: idle (threshold 0, 1 s, y 0) and move (threshold
 * 1, 2 s, y 10, foot_l at 0.5). speed 0.75: weights 0.25 / 0.75; cycle =
 * 0.25·1 + 0.75·2 = 1.75 s; dt 0.4375 -> p 0.25: idle τ 0.25, move τ 0.5:
 * x = 0.25·0.25 + 0.75·0.5 = 0.4375, y = 7.5. Markers come from the
 * dominant leaf (move): (0, 0.5] with the start included: foot_l.
 * speed 0.25: idle dominant (0.75); cycle 0.75 + 0.25·2 = 1.25; dt 0.3125
 * -> p 0.25: move also reaches τ 0.5 but is not dominant: no marker.
 * State speed 2 halves the cycle: dt 0.21875 at speed 0.75 -> p 0.25. */
static void blend_states_should_advance_by_the_weighted_cycle(void)
{
    const int children[2] = {0, 1};
    const float thresholds[2] = {0.0f, 1.0f};
    bw_blend_node nodes[3] = {bw_blend_clip_node(IDLE, 99.0f), /* the length comes from the clip */
                              bw_blend_clip_node(MOVE, 0.0f), bw_blend_1d_node(children, thresholds, 2, 0, false)};
    bw_blend_tree *tree = tree_of(nodes, 3, 2, 1);
    for (int k = 0; k < 3; k++) {
        const float speed[3] = {0.75f, 0.25f, 0.75f}, dt[3] = {0.4375f, 0.3125f, 0.21875f};
        bw_graph_param_desc params[1] = {{"speed", BW_GRAPH_PARAM_FLOAT, speed[k], 0, false}};
        bw_graph_state_desc states[1] = {{.name = "loco", .blend = tree, .speed = k == 2 ? 2.0f : 0.0f}};
        bw_graph_layer_desc layers[1] = {layer("base", "loco", states, 1, NULL, 0)};
        bw_graph_desc d = graph_desc(layers, 1, params, 1);
        bw_graph *g = compile(&d);
        bw_graph_cursor *c = cursor_for(g, NULL);
        bw_pose out = new_pose();
        bw_graph_cursor_update(c, dt[k]);
        CHECK_NEAR(status(c, 0).progress, 0.25, 1e-6);
        CHECK_NEAR(status(c, 0).normalized, 0.25f, 1e-6); /* blends loop */
        char names[4][16];
        CHECK_INT(drain_markers(c, names, 4), k == 1 ? 0 : 1);
        if (k != 1) CHECK_STR(names[0], "foot_l");
        CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &out), BW_OK);
        if (k == 0) {
            CHECK_NEAR(out.joints[ROOT].t[0], 0.4375f, tol);
            CHECK_NEAR(out.joints[ROOT].t[1], 7.5f, tol);
        }
        teardown(c, g, &out);
    }
    /* A leaf naming a clip the graph does not have, and a tree reading more
     * parameters than the graph has, are compile errors. */
    bw_blend_tree_destroy(tree);
    nodes[1].clip = 42;
    tree = tree_of(nodes, 3, 2, 3);
    bw_graph_param_desc params[1] = {{"speed", BW_GRAPH_PARAM_FLOAT, 0, 0, false}};
    bw_graph_state_desc states[1] = {{.name = "loco", .blend = tree}};
    bw_graph_layer_desc layers[1] = {layer("base", "loco", states, 1, NULL, 0)};
    bw_graph_desc d = graph_desc(layers, 1, params, 1);
    bw_error e[4];
    bw_graph_errors list = {e, 4, 0};
    bw_graph *g = NULL;
    CHECK_INT(bw_graph_compile(&d, &g, &list), BW_ERR_RANGE);
    CHECK_INT(list.count, 2);
    CHECK_STR(e[0].where, "layers[0].states[0].blend.param_count");
    CHECK_STR(e[1].where, "layers[0].states[0].blend.nodes[1].clip");
    bw_blend_tree_destroy(tree);
    /* and an invalid tree never reaches a graph: its own compiler refuses it
     * with the blend module's message */
    nodes[1].clip = MOVE;
    nodes[2].child_count = 0; /* a blend node needs children */
    bw_blend_tree_desc td = {.nodes = nodes, .node_count = 3, .root = 2, .param_count = 1};
    bw_error te = {0};
    tree = NULL;
    CHECK_INT(bw_blend_tree_compile(&td, &tree, &te), BW_ERR_EMPTY);
    CHECK(tree == NULL);
    CHECK(te.message[0] != '\0');
}

/* Base layer TILT (root rotated 90° about X, t 0); additive layer ADDC
 * (root t (2τ, 5, 0), rotation 0 -> 90° about Y; its reference at τ 0 is
 * t (0, 5, 0) and no rotation).
 * Before any update (τ 0) the additive is its reference: the base as is.
 * dt 0.5 (τ 0.5): Δt = (1, 0, 0), Δr = 45° about Y, post-multiplied:
 *   q = q_x90 · q_y45 = (A c, A s, A s, A c), A = cos 45°, c = cos 22.5°,
 *   s = sin 22.5°: (0.65328148, 0.27059805, 0.27059805, 0.65328148)
 *   (pre-multiplying would give z = −0.2706). t = (1, 0, 0).
 * Layer weight 0.5: t = (0.5, 0, 0), r = q_x90 · (22.5° about Y):
 *   (A cos 11.25°, A sin 11.25°, A sin 11.25°, A cos 11.25°).
 * Weight 0: the base. 1,000 whole loops later: the same numbers (an
 * additive layer never reads last frame's output). */
static void additive_layers_should_add_the_delta_from_the_reference(void)
{
    bw_graph_state_desc base_states[1] = {{.name = "tilt", .clip = TILT}};
    bw_graph_state_desc add_states[1] = {{.name = "add", .clip = ADDC}};
    bw_graph_layer_desc layers[2] = {layer("base", "tilt", base_states, 1, NULL, 0),
                                     layer("add", "add", add_states, 1, NULL, 0)};
    layers[1].mode = BW_GRAPH_ADDITIVE;
    bw_graph_desc d = graph_desc(layers, 2, NULL, 0);
    bw_graph *g = compile(&d);
    bw_graph_cursor *c = cursor_for(g, NULL);
    bw_pose out = new_pose();
    const float A = cosf((float)M_PI / 4);
    const float c45 = cosf((float)M_PI / 8), s45 = sinf((float)M_PI / 8);
    const float c22 = cosf((float)M_PI / 16), s22 = sinf((float)M_PI / 16);
    const float *q = out.joints[ROOT].r;
    CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &out), BW_OK);
    CHECK_NEAR(out.joints[ROOT].t[0], 0.0f, tol);
    CHECK_NEAR(out.joints[ROOT].t[1], 0.0f, tol);
    CHECK_NEAR(q[0], A, tol);
    CHECK_NEAR(q[1], 0.0f, tol);
    CHECK_NEAR(q[3], A, tol);
    for (int loops = 0; loops < 2; loops++) {
        for (int i = 0; i < (loops ? 1000 : 1); i++) bw_graph_cursor_update(c, loops ? 1.0f : 0.5f);
        CHECK_INT(bw_graph_cursor_set_layer_weight(c, 1, 1.0f, 0.0f), BW_OK);
        CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &out), BW_OK);
        CHECK_NEAR(out.joints[ROOT].t[0], 1.0f, 1e-4);
        CHECK_NEAR(out.joints[ROOT].t[1], 0.0f, tol);
        CHECK_NEAR(q[0], A * c45, 1e-4);
        CHECK_NEAR(q[1], A * s45, 1e-4);
        CHECK_NEAR(q[2], A * s45, 1e-4);
        CHECK_NEAR(q[3], A * c45, 1e-4);
        CHECK_INT(bw_graph_cursor_set_layer_weight(c, 1, 0.5f, 0.0f), BW_OK);
        CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &out), BW_OK);
        CHECK_NEAR(out.joints[ROOT].t[0], 0.5f, 1e-4);
        CHECK_NEAR(q[0], A * c22, 1e-4);
        CHECK_NEAR(q[1], A * s22, 1e-4);
        CHECK_NEAR(q[2], A * s22, 1e-4);
        CHECK_NEAR(q[3], A * c22, 1e-4);
        CHECK_INT(bw_graph_cursor_set_layer_weight(c, 1, 0.0f, 0.0f), BW_OK);
        CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &out), BW_OK);
        CHECK_NEAR(out.joints[ROOT].t[0], 0.0f, 0);
        CHECK_NEAR(q[0], A, tol);
        CHECK_NEAR(q[1], 0.0f, tol);
        CHECK_NEAR(out.coverage[ROOT], 1.0f, 0);
    }
    teardown(c, g, &out);
}

/* Root motion from the first layer: IDLE moves the root 1 m per clip
 * second along X. A (IDLE, speed 1) -> B (IDLE, speed 2) live over 1 s
 * when go, dt 0.25:
 *   before any update: zero; u1..u4 (go 0): p 0 -> 1.0, 0.25 m each.
 *   u5 (go): A advances 1.0 -> 1.25 across its loop (0.25, never a
 *   backwards jump) and fires away: it counts in full.
 *   u6: A (source, weight 0.75) 0.25, B (weight 0.25) 0.5:
 *       0.75·0.25 + 0.25·0.5 = 0.3125. */
static void root_motion_should_follow_the_plays_by_their_weights(void)
{
    bw_graph_state_desc states[2] = {{.name = "A", .clip = IDLE}, {.name = "B", .clip = IDLE, .speed = 2.0f}};
    bw_graph *g = two_state_graph(states, (bw_graph_transition_desc){.duration = 1.0f}, 0.0f);
    bw_graph_cursor *c = cursor_for(g, NULL);
    bw_root_motion_config cfg = {0};
    bw_root_delta delta;
    CHECK_INT(bw_graph_cursor_root_motion(c, &cfg, &delta), BW_OK);
    CHECK_NEAR(delta.t[0], 0.0, 0);
    const double expect[6] = {0.25, 0.25, 0.25, 0.25, 0.25, 0.3125};
    for (int u = 0; u < 6; u++) {
        if (u == 4) bw_graph_cursor_set_param(c, 0, 1.0f);
        bw_graph_cursor_update(c, 0.25f);
        CHECK_INT(bw_graph_cursor_root_motion(c, &cfg, &delta), BW_OK);
        CHECK_NEAR(delta.t[0], expect[u], 1e-5);
        CHECK_NEAR(delta.t[2], 0.0, 1e-6);
        CHECK_INT(delta.used, u == 5 ? 2 : 1);
    }
    CHECK_INT(bw_graph_cursor_root_motion(c, NULL, &delta), BW_ERR_INVALID_ARGUMENT);
    teardown(c, g, NULL);
}

/* Sync group "feet": walk (MOVE: 2 s, foot_l at phase 0.25, foot_r 0.75)
 * -> run (RUNC: 1 s, foot_l 0.1, foot_r 0.6) live over 0.8 s, dt 0.25.
 * u1: walk p 0.125; walk -> run fires (run at p 0).
 * u2: walk 0.25, run 0.25; w = 0.3125: walk (0.6875) leads at phase 0.25,
 *     on its foot_l: run adopts its foot_l, p 0.1.
 * u3: walk 0.375, run 0.35; w = 0.625: run leads at 0.35, half way from
 *     its foot_l (0.1) to foot_r (0.6): walk adopts half way from 0.25 to
 *     0.75: p 0.5.
 * u4: walk 0.625, run 0.6; w = 0.9375: run leads on its foot_r: walk
 *     adopts 0.75.
 * A second layer in the group with no markers (ARMC, weight 0.5) follows
 * the heavier walk by normalized phase: on its own it would be at 0.25
 * after u1; synced it is at walk's 0.125. */
static void sync_groups_should_map_phase_between_shared_markers(void)
{
    bw_graph_param_desc params[1] = {{"go", BW_GRAPH_PARAM_BOOL, 0, 0, false}};
    bw_graph_state_desc states[2] = {{.name = "walk", .clip = MOVE, .sync = "feet"},
                                     {.name = "run", .clip = RUNC, .sync = "feet"}};
    bw_graph_state_desc arm_states[1] = {{.name = "arm", .clip = ARMC, .sync = "feet"}};
    bw_graph_condition_desc go = cond_is("go");
    bw_graph_transition_desc trs[1] = {edge("walk", "run", &go, 1, 0.8f)};
    bw_graph_layer_desc layers[2] = {layer("base", "walk", states, 2, trs, 1),
                                     layer("upper", "arm", arm_states, 1, NULL, 0)};
    layers[1].weight = 0.5f;
    bw_graph_desc d = graph_desc(layers, 2, params, 1);
    bw_graph *g = compile(&d);
    bw_graph_cursor *c = cursor_for(g, NULL);
    bw_graph_cursor_set_param(c, 0, 1.0f);
    bw_graph_cursor_update(c, 0.25f);
    CHECK_NEAR(status(c, 1).progress, 0.125, 1e-6);
    CHECK_NEAR(status(c, 0).progress, 0.0, 0); /* run entered, not yet advanced */
    const double run_p[3] = {0.1, 0.35, 0.6}, walk_p[3] = {0.25, 0.5, 0.75};
    for (int u = 0; u < 3; u++) {
        bw_graph_cursor_update(c, 0.25f);
        bw_graph_layer_status s = status(c, 0);
        CHECK_INT(s.state, 1);
        CHECK(s.transition.active);
        CHECK_NEAR(s.progress, run_p[u], 1e-6);
        CHECK_NEAR(s.transition.source_progress, walk_p[u], 1e-6);
    }
    teardown(c, g, NULL);
}

/* Fades count their time in double (as progress does), so a fade of
 * duration D at dt ends on the update whose advance reaches D. dt =
 * 1/60.f = 0.016666667535901070 (exactly): 60 of them are 1.0000000521540642
 * >= 1, where a float sum stops at 0.99999970 (one update too long).
 * a -> b (1 s, linear) fires in u0; after u0 + 59 updates the timer is
 * 59·dt = 0.98333338461816311 (elapsed and weight, as floats,
 * 0.98333335); u60's advance reaches 1: no transition. b -> c (live,
 * 0.5 s) when "next", set before u60, fires in u60 after the fade ended:
 * a clean live fade from b (not an interruption, so not frozen). */
static void a_fade_at_sixty_hertz_should_end_on_the_update_that_reaches_its_duration(void)
{
    const float dt = 1.0f / 60.0f;
    bw_graph_param_desc params[2] = {{"go", BW_GRAPH_PARAM_BOOL, 1, 0, false}, {"next", BW_GRAPH_PARAM_BOOL, 0, 0, false}};
    bw_graph_state_desc states[3] = {
        {.name = "a", .clip = IDLE}, {.name = "b", .clip = MOVE}, {.name = "c", .clip = RUNC}};
    bw_graph_condition_desc go = cond_is("go"), next = cond_is("next");
    bw_graph_transition_desc trs[2] = {edge("a", "b", &go, 1, 1.0f), edge("b", "c", &next, 1, 0.5f)};
    bw_graph_layer_desc layers[1] = {layer("base", "a", states, 3, trs, 2)};
    bw_graph_desc d = graph_desc(layers, 1, params, 2);
    bw_graph *g = compile(&d);
    bw_graph_cursor *c = cursor_for(g, NULL);
    bw_graph_cursor_update(c, dt); /* u0: a -> b fires */
    CHECK(status(c, 0).transition.active);
    CHECK_NEAR(status(c, 0).transition.elapsed, 0.0, 0);
    for (int u = 1; u <= 59; u++) bw_graph_cursor_update(c, dt);
    bw_graph_layer_status s = status(c, 0);
    CHECK_INT(s.state, 1);
    CHECK(s.transition.active);
    CHECK_NEAR(s.transition.elapsed, 0.98333338461816311, 1e-7);
    CHECK_NEAR(s.transition.weight, 0.98333338461816311, 1e-7);
    CHECK_NEAR(s.progress, 59.0 * (double)dt / 2.0, 1e-12); /* b (2 s) advanced 59 times */
    bw_graph_cursor_set_param(c, 1, 1.0f);
    bw_graph_cursor_update(c, dt); /* u60: a -> b ends in the advance, b -> c fires */
    s = status(c, 0);
    CHECK_INT(s.state, 2);
    CHECK(s.transition.active);
    CHECK_INT(s.transition.from, 1);
    CHECK(!s.transition.frozen);
    CHECK_INT(s.transition.source_state, 1);
    CHECK_NEAR(s.transition.source_progress, 60.0 * (double)dt / 2.0, 1e-12);
    teardown(c, g, NULL);
}

/* A layer weight fading 1 -> 0 over 1 s at dt = 1/60.f: after 59 updates
 * 1 − 59·dt = 0.016666615381837 (as a float 0.01666662), after 60 exactly
 * 0 (the elapsed time, in double, reaches the duration). */
static void a_layer_weight_fade_at_sixty_hertz_should_end_on_time(void)
{
    const float dt = 1.0f / 60.0f;
    bw_graph_state_desc base[1] = {{.name = "a", .clip = IDLE}}, upper[1] = {{.name = "b", .clip = ARMC}};
    bw_graph_layer_desc layers[2] = {layer("base", "a", base, 1, NULL, 0), layer("upper", "b", upper, 1, NULL, 0)};
    bw_graph_desc d = graph_desc(layers, 2, NULL, 0);
    bw_graph *g = compile(&d);
    bw_graph_cursor *c = cursor_for(g, NULL);
    CHECK_INT(bw_graph_cursor_set_layer_weight(c, 1, 0.0f, 1.0f), BW_OK);
    for (int u = 1; u <= 59; u++) bw_graph_cursor_update(c, dt);
    CHECK_NEAR(status(c, 1).weight, 0.016666615381837, 1e-8);
    bw_graph_cursor_update(c, dt);
    CHECK_NEAR(status(c, 1).weight, 0.0, 0);
    bw_graph_cursor_update(c, dt);
    CHECK_NEAR(status(c, 1).weight, 0.0, 0);
    teardown(c, g, NULL);
}

/* A follower joining a sync group mid-cycle, in the same layer: walk
 * (MOVE, 2 s, foot_l at phase 0.25, foot_r 0.75) -> run (RUNC, 1 s,
 * foot_l 0.1, foot_r 0.6), live over 0.5 s, dt 0.125 (walk +0.0625 per
 * update, run +0.125). go before u13: walk at 13·0.0625 = 0.8125, walk ->
 * run fires, run entered at 0.
 * u14: walk 0.875 (weight 0.75) leads; phase 0.875 is a quarter of the way
 *   from foot_r (0.75) to foot_l (1.25): run adopts a quarter of the way
 *   from 0.6 to 1.1: 0.725. Its nearest pass to its own 0.125 would be
 *   -0.275 (backwards): it takes 0.725, and as a joining follower counts
 *   only its own advance (0.6, 0.725]. Root x: walk 0.75 · 0.0625 · 2 m +
 *   run 0.25 · 0.125 · 1 m = 0.125.
 * u15: w 0.5, run (first on the tie) leads: 0.725 + 0.125 = 0.85, half way
 *   from foot_r to foot_l: walk adopts 1.0 (from 0.875, own 0.9375).
 *   Root x = 0.5 · 0.125 + 0.5 · 0.125 · 2 = 0.1875.
 * u16: w 0.75: run 0.975; walk three quarters from 0.75 to 1.25: 1.125.
 *   Root x = 0.75 · 0.125 + 0.25 · 0.125 · 2 = 0.15625.
 * u17: the fade ends: run alone, 1.1, crossing foot_l. Root x = 0.125. */
static void a_joining_sync_follower_should_never_move_backwards(void)
{
    bw_graph_param_desc params[1] = {{"go", BW_GRAPH_PARAM_BOOL, 0, 0, false}};
    bw_graph_state_desc states[2] = {{.name = "walk", .clip = MOVE, .sync = "feet"},
                                     {.name = "run", .clip = RUNC, .sync = "feet"}};
    bw_graph_condition_desc go = cond_is("go");
    bw_graph_transition_desc trs[1] = {edge("walk", "run", &go, 1, 0.5f)};
    bw_graph_layer_desc layers[1] = {layer("base", "walk", states, 2, trs, 1)};
    bw_graph_desc d = graph_desc(layers, 1, params, 1);
    bw_graph *g = compile(&d);
    bw_graph_cursor *c = cursor_for(g, NULL);
    bw_root_motion_config cfg = {0};
    bw_root_delta delta;
    for (int u = 1; u <= 12; u++) bw_graph_cursor_update(c, 0.125f);
    bw_graph_cursor_set_param(c, 0, 1.0f);
    bw_graph_cursor_update(c, 0.125f); /* u13 */
    CHECK_INT(status(c, 0).state, 1);
    bw_graph_cursor_drain(c, NULL, NULL);
    const double run_p[4] = {0.725, 0.85, 0.975, 1.1}, walk_p[3] = {0.875, 1.0, 1.125};
    const double root_x[4] = {0.125, 0.1875, 0.15625, 0.125};
    for (int u = 0; u < 4; u++) {
        bw_graph_cursor_update(c, 0.125f);
        bw_graph_layer_status s = status(c, 0);
        CHECK_NEAR(s.progress, run_p[u], 1e-6);
        CHECK(s.transition.active == (u < 3));
        if (u < 3) CHECK_NEAR(s.transition.source_progress, walk_p[u], 1e-6);
        CHECK_INT(bw_graph_cursor_root_motion(c, &cfg, &delta), BW_OK);
        CHECK_NEAR(delta.t[0], root_x[u], 1e-5);
        char names[4][16];
        int n = drain_markers(c, names, 4);
        CHECK_INT(n, u == 3 ? 1 : 0);
        if (n == 1) CHECK_STR(names[0], "foot_l");
    }
    teardown(c, g, NULL);
}

/* The graph and the first 14 updates of the two tests below; `exit_time`
 * > 0 adds step -> idle at that exit time (duration 0); step plays at
 * `speed`. */
static bw_graph_cursor *step_joins_walk(bw_graph **g, float exit_time, float speed)
{
    bw_graph_param_desc params[1] = {{"go", BW_GRAPH_PARAM_BOOL, 0, 0, false}};
    bw_graph_state_desc base[2] = {{.name = "idle", .clip = IDLE},
                                   {.name = "step", .clip = STEP, .speed = speed, .sync = "feet"}};
    bw_graph_state_desc upper[1] = {{.name = "walk", .clip = MOVE, .sync = "feet"}};
    bw_graph_condition_desc go = cond_is("go");
    bw_graph_transition_desc trs[2] = {edge("idle", "step", &go, 1, 0.0f), edge("step", "idle", NULL, 0, 0.0f)};
    trs[1].has_exit_time = true;
    trs[1].exit_time = exit_time;
    bw_graph_layer_desc layers[2] = {layer("base", "idle", base, 2, trs, exit_time > 0.0f ? 2 : 1),
                                     layer("upper", "walk", upper, 1, NULL, 0)};
    layers[0].weight = 0.5f;
    bw_graph_desc d = graph_desc(layers, 2, params, 1);
    *g = compile(&d);
    bw_graph_cursor *c = cursor_for(*g, NULL);
    for (int u = 1; u <= 13; u++) bw_graph_cursor_update(c, 0.125f);
    bw_graph_cursor_set_param(c, 0, 1.0f);
    bw_graph_cursor_update(c, 0.125f); /* u14 */
    CHECK_INT(status(c, 0).state, 1);
    CHECK_NEAR(status(c, 1).progress, 0.875, 1e-12);
    bw_graph_cursor_drain(c, NULL, NULL);
    return c;
}

/* Across layers, with the follower on the first layer (root motion reads
 * it): base (weight 0.5) idle -> step (STEP, 1 s, foot_l 0, foot_r 0.5)
 * at once when go; upper (weight 1) plays walk (MOVE, 2 s) and leads.
 * Walk phase φ maps to step phase φ − 0.25 (foot_l 0.25 -> 0, foot_r
 * 0.75 -> 0.5, both spans half a cycle). dt 0.125: walk +0.0625 per
 * update, step's own +0.125. go before u14: step entered at 0 (walk
 * 0.875).
 * u15: walk 0.9375: step adopts 0.6875 (not -0.3125): a join counting its
 *   own advance (0.5625, 0.6875]: no marker (foot_l at 0 is not played,
 *   foot_r at 0.5 lies before it); root x 0.125.
 * u16..u19: step follows walk's pace, 0.75 .. 0.9375, x 0.0625 each.
 * u20: walk 1.25, on its foot_l: step 1.0, crossing its foot_l once.
 *   Events: base foot_l, upper foot_l.
 * Played backwards (speed -1) step's progress is the same (p grows for
 * either sign); its clip runs from 1 − p: u15 from 0.4375 down to 0.3125
 * (no marker), u20 from 0.0625 down to 0 (foot_l), and every root x is
 * negated. */
static void a_cross_layer_follower_should_fire_its_start_marker_once(void)
{
    for (int sign = 1; sign >= -1; sign -= 2) {
        bw_graph *g;
        bw_graph_cursor *c = step_joins_walk(&g, 0.0f, (float)sign);
        bw_root_motion_config cfg = {0};
        bw_root_delta delta;
        for (int u = 15; u <= 20; u++) {
            bw_graph_cursor_update(c, 0.125f);
            CHECK_NEAR(status(c, 0).progress, 0.6875 + 0.0625 * (u - 15), 1e-6);
            CHECK_INT(bw_graph_cursor_root_motion(c, &cfg, &delta), BW_OK);
            CHECK_NEAR(delta.t[0], sign * (u == 15 ? 0.125 : 0.0625), 1e-5);
            recorded r = {0};
            bw_graph_cursor_drain(c, record, &r);
            CHECK_INT(r.count, u == 20 ? 2 : 0);
            if (u == 20) {
                CHECK_EVENT(&r, 0, BW_GRAPH_EVENT_MARKER, 0, "foot_l");
                CHECK_EVENT(&r, 1, BW_GRAPH_EVENT_MARKER, 1, "foot_l");
            }
        }
        teardown(c, g, NULL);
    }
}

/* A follower that runs its clip backwards keeps its feet with a leader
 * running forwards: the markers map along each play's own direction.
 * base (weight 0.5) plays back (RUNC at speed -1: 1 s, foot_l 0.1,
 * foot_r 0.6, so along its progress foot_r comes at 0.4 and foot_l at
 * 0.9); upper (weight 1) plays walk (MOVE, 2 s, foot_l at phase 0.25,
 * foot_r 0.75) and leads. dt 0.125: walk +0.0625 per update.
 * u1: walk 0.0625, 0.3125 past foot_r (0.75 − 1) of the 0.5 to foot_l:
 *   5/8 of the span; back lands 5/8 of its span foot_r -> foot_l, 0.4 +
 *   0.3125 = 0.7125 (clip phase 0.2875: on its way down from foot_r 0.6 to
 *   foot_l 0.1). Then +0.0625 per update, both spans being half a cycle.
 * u4: walk 0.25 on foot_l, back 0.9 on its foot_l; u12: walk 0.75 and
 *   back 1.4 on their foot_r. Mapping clip phases instead (as before)
 *   put back at 0.9125: foot_l at clip 0.0875, the other foot. */
static void a_backwards_follower_should_keep_its_feet_with_the_leader(void)
{
    bw_graph_state_desc base[1] = {{.name = "back", .clip = RUNC, .speed = -1.0f, .sync = "feet"}};
    bw_graph_state_desc upper[1] = {{.name = "walk", .clip = MOVE, .sync = "feet"}};
    bw_graph_layer_desc layers[2] = {layer("base", "back", base, 1, NULL, 0), layer("upper", "walk", upper, 1, NULL, 0)};
    layers[0].weight = 0.5f;
    bw_graph_desc d = graph_desc(layers, 2, NULL, 0);
    bw_graph *g = compile(&d);
    bw_graph_cursor *c = cursor_for(g, NULL);
    for (int u = 1; u <= 12; u++) {
        bw_graph_cursor_update(c, 0.125f);
        CHECK_NEAR(status(c, 1).progress, 0.0625 * u, 1e-9);
        CHECK_NEAR(status(c, 0).progress, 0.7125 + 0.0625 * (u - 1), 1e-6);
        recorded r = {0};
        bw_graph_cursor_drain(c, record, &r);
        CHECK_INT(r.count, u == 1 || u == 4 || u == 12 ? 2 : 0);
        if (u == 1) { /* the entry states' enters come with frame 0 */
            CHECK_EVENT(&r, 0, BW_GRAPH_EVENT_ENTER, 0, "back");
            CHECK_EVENT(&r, 1, BW_GRAPH_EVENT_ENTER, 1, "walk");
        } else if (u == 4 || u == 12) {
            CHECK_EVENT(&r, 0, BW_GRAPH_EVENT_MARKER, 0, u == 4 ? "foot_l" : "foot_r");
            CHECK_EVENT(&r, 1, BW_GRAPH_EVENT_MARKER, 1, u == 4 ? "foot_l" : "foot_r");
        }
    }
    teardown(c, g, NULL);
}

/* The same join with step -> idle at exit time 0.9: the gate follows the
 * phase step shows, (0.5625, 0.6875] in u15, then (0.6875, 0.75] ... and
 * (0.875, 0.9375] in u19, which crosses 0.9: step leaves in u19 (from
 * -0.3125 upwards it would not cross 0.9 before u35). */
static void a_joining_follower_should_open_its_exit_gate_on_the_phase_it_shows(void)
{
    bw_graph *g;
    bw_graph_cursor *c = step_joins_walk(&g, 0.9f, 1.0f);
    for (int u = 15; u <= 19; u++) {
        bw_graph_cursor_update(c, 0.125f);
        CHECK_INT(status(c, 0).state, u == 19 ? 0 : 1);
    }
    teardown(c, g, NULL);
}

static unsigned stress_rand(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* Random parameters, triggers, travel, layer weights and dts (0, tiny,
 * huge, NaN, negative) over every feature at once: the invariants hold on
 * every frame (finite unit-quaternion poses, normalized time in [0, 1],
 * transition weights and layer weights in range, states in range). */
/* Three layers over every kind of play: a synced 1D blend, a freezing
 * any-state jump, a reverse state, an overshooting curve, a
 * non-interruptible fade; a masked upper layer whose weight follows a
 * parameter; an additive layer. Parameters: speed, jump, grounded, upper. */
static bw_graph *stress_graph(void)
{
    bw_graph_param_desc params[4] = {{"speed", BW_GRAPH_PARAM_FLOAT, 0, 0, false},
                                     {"jump", BW_GRAPH_PARAM_TRIGGER, 0, 0.2f, false},
                                     {"grounded", BW_GRAPH_PARAM_BOOL, 1, 0, false},
                                     {"upper", BW_GRAPH_PARAM_FLOAT, 1, 0, false}};
    const int children[2] = {0, 1};
    const float thresholds[2] = {0.0f, 2.0f};
    bw_blend_node nodes[3] = {bw_blend_clip_node(MOVE, 0), bw_blend_clip_node(RUNC, 0),
                              bw_blend_1d_node(children, thresholds, 2, 0, true)};
    bw_blend_tree *tree = tree_of(nodes, 3, 2, 1);
    bw_graph_state_desc states[4] = {{.name = "idle", .clip = IDLE},
                                     {.name = "loco", .blend = tree, .sync = "feet"},
                                     {.name = "jump", .clip = JUMP, .speed = 1.5f},
                                     {.name = "back", .clip = MOVE, .speed = -1.0f, .sync = "feet"}};
    bw_graph_condition_desc fast = cond_cmp("speed", BW_GRAPH_GT, 0.5f), slow = cond_cmp("speed", BW_GRAPH_LE, 0.5f);
    bw_graph_condition_desc up[2] = {cond_is("jump"), cond_is("grounded")};
    bw_graph_condition_desc neg = cond_cmp("speed", BW_GRAPH_LT, -0.5f);
    bw_graph_transition_desc trs[6] = {edge("idle", "loco", &fast, 1, 0.3f), edge("loco", "idle", &slow, 1, 0.3f),
                                       edge("*", "jump", up, 2, 0.1f),       edge("jump", "idle", NULL, 0, 0.2f),
                                       edge("idle", "back", &neg, 1, 0.4f),  edge("back", "idle", &slow, 1, 0.0f)};
    trs[2].mode = BW_GRAPH_FREEZE;
    trs[3].has_exit_time = true;
    trs[3].exit_time = 0.8f;
    trs[4].curve = BW_EASE_BACK; /* overshoots [0, 1] */
    trs[4].curve_dir = BW_EASE_IN_OUT;
    trs[1].non_interruptible = true;
    bw_graph_mask_entry_desc entries[2] = {{"spine", 1.0f, false}, {"head", 0.5f, true}};
    bw_graph_mask_desc masks[1] = {{"upper", entries, 2}};
    bw_graph_state_desc upper_states[2] = {{.name = "arm", .clip = ARMC, .sync = "feet"}, {.name = "all", .clip = ALL}};
    bw_graph_transition_desc upper_trs[2] = {edge("arm", "all", &fast, 1, 0.5f), edge("all", "arm", &slow, 1, 0.5f)};
    bw_graph_state_desc add_states[1] = {{.name = "add", .clip = ADDC}};
    bw_graph_layer_desc layers[3] = {layer("base", "idle", states, 4, trs, 6),
                                     layer("upper", "arm", upper_states, 2, upper_trs, 2),
                                     layer("add", "add", add_states, 1, NULL, 0)};
    layers[1].mask = "upper";
    layers[1].weight_param = "upper";
    layers[2].mode = BW_GRAPH_ADDITIVE;
    bw_graph_desc d = graph_desc(layers, 3, params, 4);
    d.masks = masks;
    d.mask_count = 1;
    bw_graph *g = compile(&d);
    bw_blend_tree_destroy(tree); /* the graph keeps its own copy */
    return g;
}

/* One random step of the stress graph's inputs and dt. */
static float stress_drive(bw_graph_cursor *c, unsigned *seed)
{
    unsigned r = stress_rand(seed);
    if (r % 7 == 0) bw_graph_cursor_set_param(c, 0, (float)(int)(stress_rand(seed) % 7) * 0.5f - 1.5f);
    if (r % 11 == 0) bw_graph_cursor_fire(c, 1);
    if (r % 13 == 0) bw_graph_cursor_set_param(c, 2, (float)(stress_rand(seed) % 2));
    if (r % 17 == 0) bw_graph_cursor_set_param(c, 3, (float)(stress_rand(seed) % 3) * 0.5f);
    if (r % 19 == 0) bw_graph_cursor_travel(c, 0, (int)(stress_rand(seed) % 4));
    if (r % 23 == 0) bw_graph_cursor_set_layer_weight(c, 2, (float)(stress_rand(seed) % 3) * 0.5f, 0.25f);
    const float dts[8] = {1.0f / 60, 1.0f / 30, 0.0f, 1e-6f, 3.7f, NAN, -1.0f, 0.25f};
    return dts[stress_rand(seed) % 8];
}

static void random_driving_should_keep_every_invariant(void)
{
    bw_graph *g = stress_graph();
    bw_graph_cursor *c = cursor_for(g, NULL);
    bw_pose out = new_pose();
    unsigned seed = 12345u, visited[2] = {0, 0};
    int bad = 0, frozen = 0;
    for (int frame = 0; frame < 20000 && bad < 5; frame++) {
        bw_graph_cursor_update(c, stress_drive(c, &seed));
        if (bw_graph_cursor_evaluate(c, NULL, &out) != BW_OK) bad++;
        bw_graph_cursor_drain(c, NULL, NULL);
        for (int l = 0; l < 3; l++) {
            bw_graph_layer_status s = status(c, l);
            if (l < 2) visited[l] |= 1u << s.state;
            frozen += s.transition.active && s.transition.frozen;
            if (!(s.state >= 0 && s.state < bw_graph_state_count(g, l)) || !(s.normalized >= 0 && s.normalized <= 1) ||
                !(s.weight >= 0) || !isfinite(s.progress) ||
                (s.transition.active && !(s.transition.elapsed >= 0 && s.transition.elapsed < s.transition.duration)))
                bad++;
        }
        for (int j = 0; j < JOINTS; j++) {
            const bw_transform *x = &out.joints[j];
            float n2 = x->r[0] * x->r[0] + x->r[1] * x->r[1] + x->r[2] * x->r[2] + x->r[3] * x->r[3];
            if (!(fabsf(n2 - 1.0f) < 1e-3f) || !isfinite(x->t[0] + x->t[1] + x->t[2]) ||
                !isfinite(x->s[0] + x->s[1] + x->s[2]))
                bad++;
        }
    }
    CHECK_INT(bad, 0);
    CHECK_INT(visited[0], 0xF); /* every state was reached, */
    CHECK_INT(visited[1], 0x3);
    CHECK(frozen > 10); /* and frozen sources ran */
    teardown(c, g, &out);
}

static bool poses_bitwise_equal(const bw_pose *a, const bw_pose *b)
{
    return a && b && a->joint_count == b->joint_count && a->curve_count == b->curve_count &&
           memcmp(a->joints, b->joints, (size_t)a->joint_count * sizeof *a->joints) == 0 &&
           memcmp(a->coverage, b->coverage, (size_t)a->joint_count * sizeof *a->coverage) == 0 &&
           memcmp(a->curves, b->curves, (size_t)a->curve_count * sizeof *a->curves) == 0 &&
           memcmp(a->curve_coverage, b->curve_coverage, (size_t)a->curve_count * sizeof *a->curve_coverage) == 0;
}

/* The independent method is the cursor evaluating in its own poses: a
 * cursor evaluated in a shared scratch, which a second cursor overwrites
 * after each of its evaluations, must show the same numbers bit for bit
 * over the stress graph's random driving (freezing jumps and
 * interruptions take the last evaluated pose, which is gone from the
 * scratch by then), through rebinds, layer-pose queries and a reload
 * carry from it. */
static void a_shared_scratch_should_give_the_own_poses_results_bit_for_bit(void)
{
    bw_graph *g = stress_graph();
    bw_graph_scratch *scratch = NULL, *small = NULL;
    bw_graph_scratch_desc sd = {JOINTS, bw_rig_curve_count(rig), 3, {0}};
    CHECK_INT(bw_graph_scratch_create(&sd, &scratch), BW_OK);
    CHECK(bw_graph_scratch_fits(scratch, g, rig));
    sd.layer_capacity = 2; /* one layer short: the cursor's own poses */
    CHECK_INT(bw_graph_scratch_create(&sd, &small), BW_OK);
    CHECK(!bw_graph_scratch_fits(small, g, rig));
    bw_graph_cursor *own = cursor_for(g, NULL), *shared = cursor_for(g, NULL), *other = cursor_for(g, NULL);
    bw_pose a = new_pose(), b = new_pose(), o = new_pose();
    unsigned seed_a = 777u, seed_b = 777u, seed_o = 4242u;
    int differ = 0, layer_differ = 0, frozen = 0;
    for (int frame = 0; frame < 6000; frame++) {
        float dt = stress_drive(own, &seed_a);
        CHECK(stress_drive(shared, &seed_b) == dt || isnan(dt));
        float dto = stress_drive(other, &seed_o);
        bw_graph_cursor_update(own, dt);
        bw_graph_cursor_update(shared, dt);
        bw_graph_cursor_update(other, dto);
        CHECK_INT(bw_graph_cursor_evaluate(own, NULL, &a), BW_OK);
        CHECK_INT(bw_graph_cursor_evaluate_in(shared, scratch, NULL, &b), BW_OK);
        CHECK_INT(bw_graph_cursor_evaluate_in(other, frame % 2 ? scratch : small, NULL, &o), BW_OK);
        differ += !poses_bitwise_equal(&a, &b);
        frozen += status(shared, 0).transition.active && status(shared, 0).transition.frozen;
        if (frame % 97 == 0)
            for (int l = 0; l < 3; l++)
                layer_differ += !poses_bitwise_equal(bw_graph_cursor_layer_pose(own, l),
                                                     bw_graph_cursor_layer_pose(shared, l));
        if (frame % 401 == 0) { /* fresh bindings of the same clips, the old ones freed at once
                                   (AddressSanitizer: nothing reads them later) */
            bw_binding *fresh[CLIPS];
            for (int i = 0; i < CLIPS; i++) fresh[i] = fixture_binding(clips[i], rig);
            CHECK_INT(bw_graph_cursor_rebind(own, (const bw_binding *const *)fresh, CLIPS, NULL), BW_OK);
            CHECK_INT(bw_graph_cursor_rebind(shared, (const bw_binding *const *)fresh, CLIPS, NULL), BW_OK);
            CHECK_INT(bw_graph_cursor_rebind(other, (const bw_binding *const *)fresh, CLIPS, NULL), BW_OK);
            for (int i = 0; i < CLIPS; i++) {
                bw_binding_destroy(bindings[i]);
                bindings[i] = fresh[i];
            }
        }
        bw_graph_cursor_drain(own, NULL, NULL);
        bw_graph_cursor_drain(shared, NULL, NULL);
        bw_graph_cursor_drain(other, NULL, NULL);
    }
    CHECK_INT(differ, 0);
    CHECK_INT(layer_differ, 0);
    CHECK(frozen > 100); /* the snapshots were taken */
    /* A reload carry from each (a shared evaluation last) continues alike. */
    bw_graph_cursor_update(own, 1.0f / 60);
    bw_graph_cursor_update(shared, 1.0f / 60);
    CHECK_INT(bw_graph_cursor_evaluate(own, NULL, &a), BW_OK);
    CHECK_INT(bw_graph_cursor_evaluate_in(shared, scratch, NULL, &b), BW_OK);
    CHECK_INT(bw_graph_cursor_evaluate_in(other, scratch, NULL, &o), BW_OK);
    bw_graph_cursor *own2 = cursor_for(g, NULL), *shared2 = cursor_for(g, NULL);
    CHECK_INT(bw_graph_cursor_carry_over(own2, own, 0.3f), BW_OK);
    CHECK_INT(bw_graph_cursor_carry_over(shared2, shared, 0.3f), BW_OK);
    for (int frame = 0; frame < 60; frame++) {
        bw_graph_cursor_update(own2, 1.0f / 60);
        bw_graph_cursor_update(shared2, 1.0f / 60);
        CHECK_INT(bw_graph_cursor_evaluate(own2, NULL, &a), BW_OK);
        CHECK_INT(bw_graph_cursor_evaluate_in(shared2, scratch, NULL, &b), BW_OK);
        differ += !poses_bitwise_equal(&a, &b);
    }
    CHECK_INT(differ, 0);
    /* bad arguments */
    bw_graph_scratch *none = NULL;
    CHECK_INT(bw_graph_scratch_create(NULL, &none), BW_ERR_INVALID_ARGUMENT);
    sd.layer_capacity = -1;
    CHECK_INT(bw_graph_scratch_create(&sd, &none), BW_ERR_INVALID_ARGUMENT);
    sd.layer_capacity = 1025;
    CHECK_INT(bw_graph_scratch_create(&sd, &none), BW_ERR_INVALID_ARGUMENT);
    CHECK(none == NULL);
    CHECK(!bw_graph_scratch_fits(NULL, g, rig));
    CHECK_INT(bw_graph_cursor_evaluate_in(NULL, scratch, NULL, &b), BW_ERR_INVALID_ARGUMENT);
    bw_graph_scratch_destroy(NULL);
    bw_graph_cursor_destroy(own2);
    bw_graph_cursor_destroy(shared2);
    bw_graph_cursor_destroy(shared);
    bw_graph_cursor_destroy(other);
    bw_pose_deinit(&b);
    bw_pose_deinit(&o);
    bw_graph_scratch_destroy(scratch);
    bw_graph_scratch_destroy(small);
    teardown(own, g, &a);
}

/* Hot reload mid-transition. Old graph: idle -> move when go (0.5 s).
 * u1 (dt 0.25): idle p 0.25, fires. u2: idle 0.5 (source), move 0.125
 * (τ 0.25), w 0.5: on screen x = 0.5·0.5 + 0.5·0.25 = 0.375, y = 5.
 * New graph: "move" kept, idle renamed "rest" (the entry), so the live
 * source is gone and the transition cannot carry (test_carry_over.c has
 * the cases that do). Carried over with a 0.5 s fade: move at p 0.125, a
 * frozen fade from the pose on screen: evaluated at weight 0 it is that
 * pose (no pop). Next update
 * (0.25): move p 0.25 (τ 0.5), w 0.5: x = 0.5·0.375 + 0.5·0.5 = 0.4375,
 * y = 0.5·5 + 0.5·10 = 7.5. A graph whose layer lost "move" restarts the
 * layer at its entry. Parameters carry by name and kind. */
static void carry_over_should_continue_without_a_pop(void)
{
    bw_graph_state_desc old_states[2] = {{.name = "idle", .clip = IDLE}, {.name = "move", .clip = MOVE}};
    bw_graph *old = two_state_graph(old_states, (bw_graph_transition_desc){.duration = 0.5f}, 1.0f);
    bw_graph_cursor *a = cursor_for(old, NULL);
    bw_pose out = new_pose();
    bw_graph_cursor_update(a, 0.25f);
    CHECK_ROOT_AFTER(a, &out, 0.25f, 0.375f, 5.0f);

    bw_graph_param_desc params[2] = {{"extra", BW_GRAPH_PARAM_FLOAT, 7, 0, false}, {"go", BW_GRAPH_PARAM_BOOL, 0, 0, false}};
    bw_graph_state_desc states[2] = {{.name = "rest", .clip = IDLE}, {.name = "move", .clip = MOVE}};
    bw_graph_layer_desc layers[1] = {layer("base", "rest", states, 2, NULL, 0)};
    bw_graph_desc d = graph_desc(layers, 1, params, 2);
    bw_graph *g = compile(&d);
    bw_graph_cursor *b = cursor_for(g, NULL);
    CHECK_INT(bw_graph_cursor_carry_over(b, a, 0.5f), BW_OK);
    CHECK_NEAR(bw_graph_cursor_param(b, 0), 7.0f, 0); /* new: its default */
    CHECK_NEAR(bw_graph_cursor_param(b, 1), 1.0f, 0); /* carried */
    bw_graph_layer_status s = status(b, 0);
    CHECK_INT(s.state, 1);
    CHECK_NEAR(s.progress, 0.125, 1e-6);
    CHECK(s.transition.active && s.transition.frozen);
    CHECK_INT(s.transition.from, -1);
    CHECK_INT(s.transition.transition, -1);
    CHECK_INT(bw_graph_cursor_evaluate(b, NULL, &out), BW_OK);
    CHECK_NEAR(out.joints[ROOT].t[0], 0.375f, tol);
    CHECK_NEAR(out.joints[ROOT].t[1], 5.0f, tol);
    CHECK_ROOT_AFTER(b, &out, 0.25f, 0.4375f, 7.5f);
    recorded r = {0};
    bw_graph_cursor_drain(b, record, &r);
    for (int i = 0; i < r.count; i++) CHECK(r.kind[i] != BW_GRAPH_EVENT_ENTER); /* no second frame 0 */
    bw_graph_cursor_destroy(b);
    bw_graph_destroy(g);

    /* "move" removed: the layer restarts at its entry. */
    bw_graph_layer_desc only_rest[1] = {layer("base", "rest", states, 1, NULL, 0)};
    d = graph_desc(only_rest, 1, params, 2);
    g = compile(&d);
    b = cursor_for(g, NULL);
    CHECK_INT(bw_graph_cursor_carry_over(b, a, 0.0f), BW_OK);
    s = status(b, 0);
    CHECK_INT(s.state, 0);
    CHECK_NEAR(s.progress, 0.0, 0);
    CHECK(!s.transition.active); /* fade 0: none */
    CHECK_INT(bw_graph_cursor_carry_over(b, a, -1.0f), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_graph_cursor_carry_over(b, b, 0.0f), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_graph_cursor_carry_over(NULL, a, 0.0f), BW_ERR_INVALID_ARGUMENT);
    bw_pose_deinit(&out);
    bw_graph_cursor_destroy(b);
    bw_graph_destroy(g);
    bw_graph_cursor_destroy(a);
    bw_graph_destroy(old);
}

static bool speed_is_high(void *user, const float *params, int count)
{
    (*(int *)user)++;
    return count == 2 && params[0] > 0.5f;
}

/* Two layers, a predicate, freeze and live fades, travel, triggers and a
 * masked layer weight fade, run for 10,000 frames through the counting
 * allocator: every allocation happens at compile and creation. */
static void ten_thousand_frames_should_not_allocate(void)
{
    alloc_counter counter = ALLOC_COUNTER(-1);
    bw_allocator a = {alloc_counter_fn, &counter};
    int calls = 0;
    bw_graph_param_desc params[2] = {{"speed", BW_GRAPH_PARAM_FLOAT, 0, 0, false}, {"jump", BW_GRAPH_PARAM_TRIGGER, 0, 0.5f, false}};
    const int children[2] = {0, 1};
    const float thresholds[2] = {0.0f, 1.0f};
    bw_blend_node nodes[3] = {bw_blend_clip_node(MOVE, 0.0f), bw_blend_clip_node(IDLE, 0.0f),
                              bw_blend_1d_node(children, thresholds, 2, 0, true)};
    bw_blend_tree *tree = tree_of(nodes, 3, 2, 1);
    bw_graph_state_desc states[3] = {
        {.name = "idle", .clip = IDLE}, {.name = "move", .blend = tree}, {.name = "jump", .clip = JUMP}};
    bw_graph_condition_desc fast = {.kind = BW_GRAPH_COND_PREDICATE, .fn = speed_is_high, .user = &calls};
    bw_graph_condition_desc slow = cond_cmp("speed", BW_GRAPH_LE, 0.5f), jump = cond_is("jump");
    bw_graph_transition_desc trs[4] = {edge("idle", "move", &fast, 1, 0.25f), edge("move", "idle", &slow, 1, 0.25f),
                                       edge("*", "jump", &jump, 1, 0.1f), edge("jump", "idle", NULL, 0, 0.2f)};
    trs[2].mode = BW_GRAPH_FREEZE;
    trs[3].has_exit_time = true;
    trs[3].exit_time = 0.9f;
    bw_graph_mask_entry_desc entries[1] = {{"spine", 1.0f, false}};
    bw_graph_mask_desc masks[1] = {{"upper", entries, 1}};
    bw_graph_state_desc upper_states[1] = {{.name = "arm", .clip = ARMC}};
    bw_graph_layer_desc layers[2] = {layer("base", "idle", states, 3, trs, 4),
                                     layer("upper", "arm", upper_states, 1, NULL, 0)};
    layers[1].mask = "upper";
    bw_graph_desc d = graph_desc(layers, 2, params, 2);
    d.masks = masks;
    d.mask_count = 1;
    d.allocator = a;
    bw_graph *g = compile(&d);
    bw_blend_tree_destroy(tree); /* the graph keeps its own copy */
    bw_graph_cursor *c = cursor_for(g, &a);
    bw_pose out = new_pose();
    bw_graph_scratch *scratch = NULL; /* every other frame evaluated in it */
    bw_graph_scratch_desc sd = {JOINTS, bw_rig_curve_count(rig), 2, a};
    CHECK_INT(bw_graph_scratch_create(&sd, &scratch), BW_OK);
    long before = counter.allocations;
    int enters = 0;
    bw_root_motion_config cfg = {0};
    bw_root_delta delta;
    double travel = 0.0;
    int refused = 0; /* every frame's root motion and evaluation must succeed */
    for (int frame = 0; frame < 10000; frame++) {
        bw_graph_cursor_set_param(c, 0, (frame / 37) % 2 ? 1.0f : 0.0f);
        if (frame % 101 == 0) bw_graph_cursor_fire(c, 1);
        if (frame % 503 == 0) bw_graph_cursor_travel(c, 0, 1);
        if (frame % 211 == 0) bw_graph_cursor_set_layer_weight(c, 1, (frame / 211) % 2 ? 0.0f : 1.0f, 0.3f);
        bw_graph_cursor_update(c, 1.0f / 60.0f);
        if (bw_graph_cursor_root_motion(c, &cfg, &delta) != BW_OK) refused++;
        else travel += delta.t[0];
        if (bw_graph_cursor_evaluate_in(c, frame % 2 ? scratch : NULL, NULL, &out) != BW_OK) refused++;
        recorded r = {0};
        bw_graph_cursor_drain(c, record, &r);
        for (int k = 0; k < r.count; k++) enters += r.kind[k] == BW_GRAPH_EVENT_ENTER;
    }
    CHECK_INT(counter.allocations - before, 0);
    CHECK_INT(refused, 0);
    CHECK(calls > 1000);  /* the predicate really ran */
    CHECK(enters > 100);  /* and transitions really happened */
    CHECK(travel > 50.0); /* about 1 m/s for 167 s, less the time jumps hold still */
    for (int j = 0; j < JOINTS; j++) CHECK(isfinite(out.joints[j].t[0]) && isfinite(out.joints[j].t[1]));
    bw_graph_scratch_destroy(scratch);
    teardown(c, g, &out);
    CHECK_INT(counter.live_blocks, 0);
    CHECK(counter.live_bytes == 0);
}

/* Every allocation failure of compile and cursor creation is reported as
 * out of memory and leaves nothing behind. */
static void allocation_failures_should_be_reported_and_leak_nothing(void)
{
    bw_graph_mask_entry_desc entries[1] = {{"spine", 1.0f, false}};
    bw_graph_mask_desc masks[1] = {{"upper", entries, 1}};
    bw_graph_state_desc states[2] = {{.name = "idle", .clip = IDLE}, {.name = "move", .clip = MOVE}};
    bw_graph_transition_desc trs[1] = {edge("idle", "move", NULL, 0, 0.25f)};
    bw_graph_layer_desc layers[1] = {layer("base", "idle", states, 2, trs, 1)};
    layers[0].mask = "upper";
    bw_graph_desc d = graph_desc(layers, 1, NULL, 0);
    d.masks = masks;
    d.mask_count = 1;
    int successes = 0;
    for (long budget = 0; budget < 64 && successes == 0; budget++) {
        alloc_counter counter = ALLOC_COUNTER(budget);
        bw_allocator a = {alloc_counter_fn, &counter};
        d.allocator = a;
        bw_graph *g = NULL;
        bw_result r = bw_graph_compile(&d, &g, NULL);
        if (r == BW_OK) {
            bw_graph_cursor_desc cd = {rig, (const bw_binding *const *)bindings, CLIPS, 0, a};
            bw_graph_cursor *c = NULL;
            r = bw_graph_cursor_create(g, &cd, &c, NULL);
            if (r == BW_OK) successes++;
            else CHECK(c == NULL);
            teardown(c, g, NULL);
        }
        if (r != BW_OK) CHECK_INT(r, BW_ERR_OUT_OF_MEMORY);
        CHECK_INT(counter.live_blocks, 0);
    }
    CHECK_INT(successes, 1);
}

static void cursor_create_should_check_its_bindings(void)
{
    bw_graph_state_desc states[2] = {{.name = "idle", .clip = IDLE}, {.name = "move", .clip = MOVE}};
    bw_graph_layer_desc layers[1] = {layer("base", "idle", states, 2, NULL, 0)};
    bw_graph_desc d = graph_desc(layers, 1, NULL, 0);
    bw_graph *g = compile(&d);
    const bw_binding *some[CLIPS] = {bindings[IDLE], NULL, NULL, NULL, NULL, NULL}; /* move has none */
    bw_graph_cursor_desc cd = {.rig = rig, .bindings = some, .binding_count = CLIPS};
    bw_error e[2];
    bw_graph_errors list = {e, 2, 0};
    bw_graph_cursor *c = NULL;
    CHECK_INT(bw_graph_cursor_create(g, &cd, &c, &list), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(list.count, 1);
    CHECK_STR(e[0].where, "bindings[1]");
    cd.binding_count = 2;
    CHECK_INT(bw_graph_cursor_create(g, &cd, &c, &list), BW_ERR_INVALID_ARGUMENT);
    CHECK_STR(e[0].where, "bindings");
    CHECK(c == NULL);
    CHECK_INT(bw_graph_cursor_create(NULL, &cd, &c, NULL), BW_ERR_INVALID_ARGUMENT);
    bw_graph_destroy(g);
    bw_graph_destroy(NULL);
    bw_graph_cursor_destroy(NULL);
}


/* ---- baked additive references ---- */

static void quat_mul(const float *a, const float *b, float *out)
{
    float r[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1], a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                  a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3], a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
    memcpy(out, r, sizeof r);
}

static void check_root(const bw_pose *p, const float *t, const float *q, int line)
{
    const bw_transform *x = &p->joints[ROOT];
    float dot = 0;
    for (int k = 0; k < 4; k++) dot += x->r[k] * q[k];
    bool ok = fabsf(fabsf(dot) - 1.0f) <= 1e-5f;
    for (int k = 0; k < 3; k++) ok = ok && fabsf(x->t[k] - t[k]) <= 1e-4f;
    if (!ok) {
        fprintf(stderr, "%s:%d: root t (%.6g %.6g %.6g) r (%.6g %.6g %.6g %.6g), expected t (%.6g %.6g %.6g) r (%.6g %.6g %.6g %.6g)\n",
                __FILE__, line, x->t[0], x->t[1], x->t[2], x->r[0], x->r[1], x->r[2], x->r[3], t[0], t[1], t[2], q[0], q[1],
                q[2], q[3]);
        check_failures_in_test++;
    }
}
#define CHECK_ROOT(p, t, q) check_root((p), (t), (q), __LINE__)

/* Base TILT (t 0, r = q_x90 = (A, 0, 0, A), A = cos 45°) under an additive
 * ADDC (t (2τ, 5, 0), r slerps 0 -> 90° about Y over 1 s) at τ 0.5 (one
 * update of 0.5 s): t (1, 5, 0), r = q_y(45°). q_y(θ) = (0, sin θ/2, 0,
 * cos θ/2); q_x90 · q_y(θ) = (A cos θ/2, A sin θ/2, A sin θ/2, A cos θ/2).
 * Per reference (r_ref, t_ref), Δt = t − t_ref, Δr = r_ref⁻¹ · r, and the
 * layer at weight w gives t = w Δt, r = q_x90 · Δr^w:
 * - own clip at 0.25 s: t_ref (0.5, 5, 0), r_ref q_y(22.5°): Δ = (0.5, 0,
 *   0), q_y(22.5°); w 1: t (0.5, 0, 0), r q_x90·q_y(22.5°); w 0.5:
 *   (0.25, 0, 0), q_x90·q_y(11.25°).
 * - own clip at 0.5 s (= the pose shown): the identity at any weight.
 * - clip TILT at 0: t_ref 0, r_ref q_x90: Δt (1, 5, 0), Δr = q_x90⁻¹·q_y45;
 *   w 1: t (1, 5, 0), r = q_y(45°) (the base's tilt undone); w 0.5: t (0.5,
 *   2.5, 0), r = q_x90 · half(Δr), half(q) = normalize(1 + q) (slerp from
 *   the identity at 1/2: an independent formula for the half power).
 * - the rest pose (identity): Δt (1, 5, 0), Δr = q_y(45°); w 1: r
 *   q_x90·q_y(45°); w 0.5: t (0.5, 2.5, 0), q_x90·q_y(22.5°).
 * 1,000 more whole loops change none of it (no growth). Each single-clip
 * layer uses its one baked pose: no reference is mixed per frame. */
static void additive_references_should_be_baked_against_each_kind(void)
{
    const float A = cosf((float)M_PI / 4);
    struct {
        bw_graph_reference_desc ref;
        float t1[3], t5[3];
        float half_angle1, half_angle5; /* about Y after the tilt, when not NaN */
    } cases[4] = {
        {{BW_GRAPH_REF_OWN, 0, 0.25f}, {0.5f, 0, 0}, {0.25f, 0, 0}, (float)M_PI / 16, (float)M_PI / 32},
        {{BW_GRAPH_REF_OWN, 0, 0.5f}, {0, 0, 0}, {0, 0, 0}, 0.0f, 0.0f},
        {{BW_GRAPH_REF_CLIP, TILT, 0.0f}, {1, 5, 0}, {0.5f, 2.5f, 0}, NAN, NAN},
        {{BW_GRAPH_REF_REST, 0, 0.0f}, {1, 5, 0}, {0.5f, 2.5f, 0}, (float)M_PI / 8, (float)M_PI / 16},
    };
    const float qx90[4] = {A, 0, 0, A};
    for (int k = 0; k < 4; k++) {
        bw_graph_state_desc base_states[1] = {{.name = "tilt", .clip = TILT}};
        bw_graph_state_desc add_states[1] = {{.name = "add", .clip = ADDC, .reference = cases[k].ref}};
        bw_graph_layer_desc layers[2] = {layer("base", "tilt", base_states, 1, NULL, 0),
                                         layer("add", "add", add_states, 1, NULL, 0)};
        layers[1].mode = BW_GRAPH_ADDITIVE;
        bw_graph_desc d = graph_desc(layers, 2, NULL, 0);
        bw_graph *g = compile(&d);
        bw_graph_cursor *c = cursor_for(g, NULL);
        bw_pose out = new_pose();
        for (int loops = 0; loops < 2; loops++) {
            for (int i = 0; i < (loops ? 1000 : 1); i++) bw_graph_cursor_update(c, loops ? 1.0f : 0.5f);
            for (int half = 0; half < 2; half++) {
                CHECK_INT(bw_graph_cursor_set_layer_weight(c, 1, half ? 0.5f : 1.0f, 0.0f), BW_OK);
                CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &out), BW_OK);
                float q[4], angle = half ? cases[k].half_angle5 : cases[k].half_angle1;
                if (!isnan(angle)) {
                    const float qy[4] = {0, sinf(angle), 0, cosf(angle)};
                    quat_mul(qx90, qy, q);
                } else if (!half) {
                    const float qy45[4] = {0, sinf((float)M_PI / 8), 0, cosf((float)M_PI / 8)};
                    memcpy(q, qy45, sizeof q);
                } else {
                    const float inv[4] = {-A, 0, 0, A}, qy45[4] = {0, sinf((float)M_PI / 8), 0, cosf((float)M_PI / 8)};
                    float dr[4];
                    quat_mul(inv, qy45, dr);
                    dr[3] += 1.0f;
                    float len = sqrtf(dr[0] * dr[0] + dr[1] * dr[1] + dr[2] * dr[2] + dr[3] * dr[3]);
                    for (int i = 0; i < 4; i++) dr[i] /= len;
                    quat_mul(qx90, dr, q);
                }
                CHECK_ROOT(&out, half ? cases[k].t5 : cases[k].t1, q);
            }
        }
        CHECK(bw_graph_cursor_counters_of(c).reference_mixes == 0);
        teardown(c, g, &out);
    }
}

/* Cursors whose baked references are bitwise equal read one shared set
 * (graph_internal.h); a cursor baked against other numbers reads its own.
 * The graph of the REST case above: at τ 0.5, w 1, the root shows t
 * (1, 5, 0) − t_ref and r q_x90·q_y(45°) (the rest rotation stays the
 * identity). A and B are baked against the rig's rest t_ref 0: (1, 5, 0).
 * After the rig's root rest moves to t (0, 1, 0), C is baked against it:
 * (1, 4, 0), while A and B keep theirs; A destroyed, B still reads the
 * set (AddressSanitizer would see a freed one); B rebound bakes against
 * the new rest: (1, 4, 0); C rebound keeps (1, 4, 0). */
static void equal_references_should_be_shared_and_others_kept_apart(void)
{
    const float A = cosf((float)M_PI / 4);
    const float qx90[4] = {A, 0, 0, A}, qy45[4] = {0, sinf((float)M_PI / 8), 0, cosf((float)M_PI / 8)};
    float q[4];
    quat_mul(qx90, qy45, q);
    const float t_old[3] = {1, 5, 0}, t_new[3] = {1, 4, 0};
    bw_graph_state_desc base_states[1] = {{.name = "tilt", .clip = TILT}};
    bw_graph_state_desc add_states[1] = {{.name = "add", .clip = ADDC, .reference = {BW_GRAPH_REF_REST, 0, 0}}};
    bw_graph_layer_desc layers[2] = {layer("base", "tilt", base_states, 1, NULL, 0),
                                     layer("add", "add", add_states, 1, NULL, 0)};
    layers[1].mode = BW_GRAPH_ADDITIVE;
    bw_graph_desc d = graph_desc(layers, 2, NULL, 0);
    bw_graph *g = compile(&d);
    const bw_transform saved = bw_rig_rest_pose(rig)[ROOT];
    bw_graph_cursor *a = cursor_for(g, NULL), *b = cursor_for(g, NULL);
    CHECK(g->shares && !g->shares->next && g->shares->users == 2); /* A and B: one set */
    bw_transform moved = saved;
    moved.t[0] = 0, moved.t[1] = 1, moved.t[2] = 0;
    CHECK_INT(bw_rig_set_rest(rig, ROOT, &moved), BW_OK);
    bw_graph_cursor *c = cursor_for(g, NULL);
    CHECK(g->shares && g->shares->next && !g->shares->next->next); /* C's numbers differ: a second set */
    CHECK(g->shares->users + g->shares->next->users == 3);
    bw_pose out = new_pose();
    bw_graph_cursor *all[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        bw_graph_cursor_update(all[i], 0.5f);
        CHECK_INT(bw_graph_cursor_evaluate(all[i], NULL, &out), BW_OK);
        CHECK_ROOT(&out, i < 2 ? t_old : t_new, q);
    }
    bw_graph_cursor_destroy(a);
    CHECK_INT(bw_graph_cursor_evaluate(b, NULL, &out), BW_OK);
    CHECK_ROOT(&out, t_old, q);
    CHECK_INT(bw_graph_cursor_rebind(b, (const bw_binding *const *)bindings, CLIPS, NULL), BW_OK);
    CHECK_INT(bw_graph_cursor_rebind(c, (const bw_binding *const *)bindings, CLIPS, NULL), BW_OK);
    /* before any evaluation, B's additive layer measures from the same
     * reference in its new set (its old set went with A and the rebind):
     * a carry-over into D, baked alike, compares them equal and starts no
     * fade. (This pins the re-pointing by id; the earlier re-pointing by
     * pointer compare passed it too, so it guards behaviour, not a past
     * bug.) */
    bw_graph_cursor *dd = cursor_for(g, NULL);
    CHECK_INT(bw_graph_cursor_carry_over(dd, b, 0.2f), BW_OK);
    CHECK(!status(dd, 1).transition.active);
    CHECK_INT(bw_graph_cursor_evaluate(dd, NULL, &out), BW_OK);
    CHECK_ROOT(&out, t_new, q);
    bw_graph_cursor_destroy(dd);
    for (int i = 1; i < 3; i++) {
        CHECK_INT(bw_graph_cursor_evaluate(all[i], NULL, &out), BW_OK);
        CHECK_ROOT(&out, t_new, q);
    }
    CHECK_INT(bw_rig_set_rest(rig, ROOT, &saved), BW_OK);
    bw_graph_cursor_destroy(c);
    teardown(b, g, &out);

    /* The shared set against the straightforward own copy, bit for bit:
     * with the graph's allocator refusing, the first cursor cannot publish
     * a set and reads its own; the second publishes one and reads it. The
     * additive layer at weight 0.7 over 50 uneven updates. */
    alloc_counter counter = ALLOC_COUNTER(-1);
    d.allocator = (bw_allocator){alloc_counter_fn, &counter};
    g = compile(&d);
    counter.budget = 0;
    bw_graph_cursor *own = cursor_for(g, NULL);
    counter.budget = -1;
    CHECK(counter.refused == 1); /* the set it could not publish */
    CHECK(g->shares == NULL); /* the refused one reads its own copy */
    bw_graph_cursor *shared = cursor_for(g, NULL);
    CHECK(g->shares && !g->shares->next && g->shares->users == 1);
    out = new_pose();
    bw_pose out2 = new_pose();
    bool same = true;
    for (int f = 0; f < 50; f++) {
        float dt = 0.01f + 0.003f * (float)(f % 7);
        bw_graph_cursor *both[2] = {own, shared};
        bw_pose *outs[2] = {&out, &out2};
        for (int i = 0; i < 2; i++) {
            CHECK_INT(bw_graph_cursor_set_layer_weight(both[i], 1, 0.7f, 0.0f), BW_OK);
            bw_graph_cursor_update(both[i], dt);
            CHECK_INT(bw_graph_cursor_evaluate(both[i], NULL, outs[i]), BW_OK);
        }
        same = same && memcmp(out.joints, out2.joints, (size_t)out.joint_count * sizeof *out.joints) == 0 &&
               memcmp(out.coverage, out2.coverage, (size_t)out.joint_count * sizeof *out.coverage) == 0;
    }
    CHECK(same);
    bw_pose_deinit(&out2);
    bw_graph_cursor_destroy(own);
    teardown(shared, g, &out);
    CHECK_INT(counter.live_blocks, 0);
}

/* A blend state on an additive layer measures each leaf against its own
 * clip's reference (per blend node), or all against one named pose. 1D
 * blend of IDLE (t (τ, 0, 0)) and ADDC (t (2τ, 5, 0)) at speed 0.5:
 * weights 0.5 / 0.5, both 1 s, so after 0.5 s both at τ 0.5: mean t
 * (0.75, 2.5, 0). Own references at 0: IDLE (0, 0, 0), ADDC (0, 5, 0),
 * mean (0, 2.5, 0): Δt (0.75, 0, 0), one reference mix per evaluation
 * (two baked poses). "rest" (t 0): Δt (0.75, 2.5, 0), the one baked pose,
 * no mix. Over the rest pose (no other layer). */
static void a_blend_state_should_measure_each_leaf_against_its_reference(void)
{
    bw_blend_tree *tree = blend_1d_of(IDLE, ADDC);
    for (int k = 0; k < 2; k++) {
        bw_graph_param_desc params[1] = {{"speed", BW_GRAPH_PARAM_FLOAT, 0.5f, 0, false}};
        bw_graph_state_desc states[1] = {{.name = "mix", .blend = tree}};
        if (k == 1) states[0].reference.kind = BW_GRAPH_REF_REST;
        bw_graph_layer_desc layers[1] = {layer("add", "mix", states, 1, NULL, 0)};
        layers[0].mode = BW_GRAPH_ADDITIVE;
        bw_graph_desc d = graph_desc(layers, 1, params, 1);
        bw_graph *g = compile(&d);
        bw_graph_cursor *c = cursor_for(g, NULL);
        bw_pose out = new_pose();
        long long before = bw_graph_cursor_counters_of(c).reference_mixes;
        bw_graph_cursor_update(c, 0.5f);
        CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &out), BW_OK);
        CHECK_NEAR(out.joints[ROOT].t[0], 0.75f, 1e-5);
        CHECK_NEAR(out.joints[ROOT].t[1], k == 0 ? 0.0f : 2.5f, 1e-5);
        CHECK(bw_graph_cursor_counters_of(c).reference_mixes - before == (k == 0 ? 1 : 0));
        teardown(c, g, &out);
    }
    bw_blend_tree_destroy(tree);
}

/* A reference is refused where it cannot apply: on an override layer's
 * state, naming a clip out of range, at a negative or NaN time; every
 * problem at once. */
static void references_should_be_checked_at_compile(void)
{
    bw_graph_state_desc base_states[1] = {{.name = "idle", .clip = IDLE, .reference = {BW_GRAPH_REF_REST, 0, 0}}};
    bw_graph_state_desc add_states[3] = {{.name = "a", .clip = ADDC, .reference = {BW_GRAPH_REF_CLIP, 99, 0}},
                                         {.name = "b", .clip = ADDC, .reference = {BW_GRAPH_REF_OWN, 0, -1.0f}},
                                         {.name = "c", .clip = ADDC, .reference = {BW_GRAPH_REF_OWN, 0, NAN}}};
    bw_graph_layer_desc layers[2] = {layer("base", "idle", base_states, 1, NULL, 0),
                                     layer("add", "a", add_states, 3, NULL, 0)};
    layers[1].mode = BW_GRAPH_ADDITIVE;
    bw_graph_desc d = graph_desc(layers, 2, NULL, 0);
    bw_error e[8];
    bw_graph_errors list = {e, 8, 0};
    bw_graph *g = NULL;
    CHECK_INT(bw_graph_compile(&d, &g, &list), BW_ERR_INVALID_ARGUMENT);
    CHECK(g == NULL);
    CHECK_INT(list.count, 4);
    CHECK_STR(e[0].where, "layers[0].states[0].reference");
    CHECK_STR(e[0].message, "state 'idle': a reference is for additive layers only");
    CHECK_STR(e[1].where, "layers[1].states[0].reference.clip");
    CHECK_INT(e[1].code, BW_ERR_RANGE);
    CHECK_STR(e[2].where, "layers[1].states[1].reference.time");
    CHECK_INT(e[2].code, BW_ERR_RANGE);
    CHECK_STR(e[3].where, "layers[1].states[2].reference.time");
    CHECK_INT(e[3].code, BW_ERR_NON_FINITE);
}

/* An additive fade between two clips with different own references (ADDC
 * at τ 0: t (0, 5, 0); IDLE at 0: t 0) mixes the references with the fade
 * weights, once per evaluation and only while the fade runs. a (ADDC) ->
 * b (IDLE) over 1 s, fired at once (go), dt 0.5 then 0.5 more:
 * update 1: a advances to τ 0.5 and fires; b at 0, w 0 (the source a alone:
 *   Δt (1, 0, 0)) - but a fade at w 0 still mixes: 1 reference mix.
 * update 2: a (live) τ 1.0 ≡ 0 (looping: t (0, 5, 0) again, Δ 0), b τ 0.5:
 *   w 0.5, translation is linear in both means: Δt = 0.5·(0 − 0) + 0.5·(0.5
 *   − 0) = (0.25, 0, 0) over the base's 0 (no base layer: rest, t 0).
 * update 3: the fade is over (timer 1.5 >= 1): b alone, τ 1.0 ≡ 0: Δ 0,
 *   no reference mix. */
static void an_additive_fade_should_mix_references_only_while_it_runs(void)
{
    bw_graph_state_desc states[2] = {{.name = "a", .clip = ADDC}, {.name = "b", .clip = IDLE}};
    bw_graph_param_desc params[1] = {{"go", BW_GRAPH_PARAM_BOOL, 1, 0, false}};
    bw_graph_condition_desc go = cond_is("go");
    bw_graph_transition_desc tr = edge("a", "b", &go, 1, 1.0f);
    bw_graph_layer_desc layers[1] = {layer("add", "a", states, 2, &tr, 1)};
    layers[0].mode = BW_GRAPH_ADDITIVE;
    bw_graph_desc d = graph_desc(layers, 1, params, 1);
    bw_graph *g = compile(&d);
    bw_graph_cursor *c = cursor_for(g, NULL);
    bw_pose out = new_pose();
    const long long mixes[3] = {1, 2, 2};
    const float x[3] = {1.0f, 0.25f, 0.0f};
    for (int u = 0; u < 3; u++) {
        bw_graph_cursor_update(c, 0.5f);
        CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &out), BW_OK);
        CHECK_NEAR(out.joints[ROOT].t[0], x[u], 1e-5);
        CHECK_NEAR(out.joints[ROOT].t[1], 0.0f, 1e-5);
        CHECK(bw_graph_cursor_counters_of(c).reference_mixes == mixes[u]);
        bw_graph_cursor_set_param(c, 0, 0.0f);
    }
    teardown(c, g, &out);
}

/* A blend state is evaluated once per update however often the update,
 * the evaluation and root motion read its leaves: cursor creation
 * evaluates the entry (1); each of 10 frames sets a new speed (the
 * parameters change: the cache is stale), updates, evaluates and asks for
 * root motion: 1 more each, 11 in all (reading the leaves afresh each
 * time would be 1 + 3 × 10 = 31). Frames that change no parameter
 * evaluate nothing. One layer mix per evaluation. */
static void a_blend_tree_should_be_evaluated_once_per_update(void)
{
    bw_blend_tree *tree = blend_1d_of(IDLE, MOVE);
    bw_graph_param_desc params[1] = {{"speed", BW_GRAPH_PARAM_FLOAT, 0.5f, 0, false}};
    bw_graph_state_desc states[1] = {{.name = "loco", .blend = tree}};
    bw_graph_layer_desc layers[1] = {layer("base", "loco", states, 1, NULL, 0)};
    bw_graph_desc d = graph_desc(layers, 1, params, 1);
    bw_graph *g = compile(&d);
    bw_blend_tree_destroy(tree);
    bw_graph_cursor *c = cursor_for(g, NULL);
    bw_pose out = new_pose();
    bw_root_motion_config cfg = {0};
    bw_root_delta delta;
    CHECK(bw_graph_cursor_counters_of(c).tree_evaluations == 1);
    for (int f = 0; f < 10; f++) {
        CHECK_INT(bw_graph_cursor_set_param(c, 0, 0.05f * (float)(f + 1)), BW_OK);
        bw_graph_cursor_update(c, 1.0f / 60);
        CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &out), BW_OK);
        CHECK_INT(bw_graph_cursor_root_motion(c, &cfg, &delta), BW_OK);
    }
    CHECK(bw_graph_cursor_counters_of(c).tree_evaluations == 11);
    for (int f = 0; f < 5; f++) {
        bw_graph_cursor_update(c, 1.0f / 60);
        CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &out), BW_OK);
    }
    CHECK(bw_graph_cursor_counters_of(c).tree_evaluations == 11);
    CHECK(bw_graph_cursor_counters_of(c).layer_mixes == 1 + 15);
    teardown(c, g, &out);
}

/* bw_graph_cursor_leaves reads the cursor's leaves as last evaluated.
 * "loco" is a 1D blend of IDLE (threshold 0) and MOVE (threshold 1) on
 * speed: at 0.25 the weights are 1 - 0.25 = 0.75 and 0.25, at 0.5 0.5 and
 * 0.5 (linear between the two thresholds); "still" plays IDLE alone (one
 * leaf, node -1, weight 1). During loco -> still (1 s) the live source's
 * leaves are loco's; a frozen source has none. Reading evaluates nothing. */
static void the_cursor_leaves_are_the_last_evaluated_ones(void)
{
    bw_blend_tree *tree = blend_1d_of(IDLE, MOVE);
    bw_graph_param_desc params[2] = {{"speed", BW_GRAPH_PARAM_FLOAT, 0.25f, 0, false}, {"stop", BW_GRAPH_PARAM_BOOL, 0, 0, false}};
    bw_graph_state_desc states[2] = {{.name = "loco", .blend = tree}, {.name = "still", .clip = IDLE}};
    bw_graph_condition_desc stop = cond_is("stop");
    bw_graph_transition_desc tr = edge("loco", "still", &stop, 1, 1.0f);
    bw_graph_layer_desc layers[1] = {layer("base", "loco", states, 2, &tr, 1)};
    bw_graph_desc d = graph_desc(layers, 1, params, 2);
    bw_graph *g = compile(&d);
    bw_blend_tree_destroy(tree);
    bw_graph_cursor *c = cursor_for(g, NULL);
    bw_pose out = new_pose();
    int n = -1;
    /* at creation: the entry's leaves at speed 0.25 */
    const bw_blend_leaf *lv = bw_graph_cursor_leaves(c, 0, false, &n);
    CHECK_INT(n, 2);
    CHECK(lv != NULL);
    if (lv && n == 2) {
        CHECK_INT(lv[0].clip, IDLE);
        CHECK_INT(lv[1].clip, MOVE);
        CHECK_NEAR(lv[0].weight, 0.75f, 1e-6);
        CHECK_NEAR(lv[1].weight, 0.25f, 1e-6);
        CHECK_NEAR(lv[0].length, 1.0f, 1e-6);
        CHECK_NEAR(lv[1].length, 2.0f, 1e-6);
    }
    n = -1;
    CHECK(bw_graph_cursor_leaves(c, 0, true, &n) == NULL); /* no transition */
    CHECK_INT(n, 0);
    /* a new speed shows after the update that used it, not before */
    long long evals = bw_graph_cursor_counters_of(c).tree_evaluations;
    CHECK_INT(bw_graph_cursor_set_param(c, 0, 0.5f), BW_OK);
    lv = bw_graph_cursor_leaves(c, 0, false, &n);
    CHECK(lv != NULL && n == 2 && fabsf(lv[0].weight - 0.75f) <= 1e-6f);
    CHECK(bw_graph_cursor_counters_of(c).tree_evaluations == evals); /* reading evaluated nothing */
    bw_graph_cursor_update(c, 0.1f);
    CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &out), BW_OK);
    lv = bw_graph_cursor_leaves(c, 0, false, &n);
    CHECK_INT(n, 2);
    if (lv && n == 2) {
        CHECK_NEAR(lv[0].weight, 0.5f, 1e-6);
        CHECK_NEAR(lv[1].weight, 0.5f, 1e-6);
    }
    /* loco -> still: the destination's one leaf, the live source's two */
    CHECK_INT(bw_graph_cursor_set_param(c, 1, 1.0f), BW_OK);
    bw_graph_cursor_update(c, 0.1f);
    CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &out), BW_OK);
    CHECK_INT(status(c, 0).state, 1);
    lv = bw_graph_cursor_leaves(c, 0, false, &n);
    CHECK_INT(n, 1);
    if (lv && n == 1) {
        CHECK_INT(lv[0].node, -1);
        CHECK_INT(lv[0].clip, IDLE);
        CHECK_NEAR(lv[0].weight, 1.0f, 0);
    }
    lv = bw_graph_cursor_leaves(c, 0, true, &n);
    CHECK_INT(n, 2);
    if (lv && n == 2) {
        CHECK_INT(lv[0].clip, IDLE);
        CHECK_INT(lv[1].clip, MOVE);
        CHECK_NEAR(lv[0].weight, 0.5f, 1e-6);
        CHECK_NEAR(lv[1].weight, 0.5f, 1e-6);
    }
    /* bad arguments: none (count may be NULL) */
    CHECK(bw_graph_cursor_leaves(c, 1, false, &n) == NULL && n == 0);
    CHECK(bw_graph_cursor_leaves(c, -1, false, &n) == NULL && n == 0);
    CHECK(bw_graph_cursor_leaves(NULL, 0, false, &n) == NULL && n == 0);
    CHECK(bw_graph_cursor_leaves(c, 0, false, NULL) != NULL);
    teardown(c, g, &out);

    /* a frozen source has no leaves */
    bw_graph_state_desc two[2] = {{.name = "a", .clip = IDLE}, {.name = "b", .clip = MOVE}};
    bw_graph_transition_desc freeze = {0};
    freeze.duration = 1.0f;
    freeze.mode = BW_GRAPH_FREEZE;
    g = two_state_graph(two, freeze, 1.0f);
    c = cursor_for(g, NULL);
    out = new_pose();
    bw_graph_cursor_update(c, 0.1f);
    CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &out), BW_OK);
    CHECK(status(c, 0).transition.active && status(c, 0).transition.frozen);
    CHECK(bw_graph_cursor_leaves(c, 0, true, &n) == NULL && n == 0);
    lv = bw_graph_cursor_leaves(c, 0, false, &n);
    CHECK(lv != NULL && n == 1 && lv[0].clip == MOVE);
    teardown(c, g, &out);
}

/* Refreshing a live graph's clips: IDLE (1 s, x = τ) is replaced by a 2 s
 * clip (x = τ over 2 s) and MOVE (2 s, foot_l 0.5, foot_r 1.5) by a 4 s
 * one (foot_l 1.0, foot_r 3.0). A cursor in "idle" at p 0.25 (dt 0.25)
 * keeps p 0.25 = τ 0.5 in the new clip: x 0.5; the next 0.5 s advances p
 * by 0.5 / 2 = 0.25 to 0.5: x 1.0. Entering "move" then, 0.8 s advance
 * p by 0.8 / 4 = 0.2 (clip time 0.8: before foot_l at 1.0, no marker; the
 * old 2 s clip would have reached p 0.4 past its foot_l at 0.5), 0.4 s
 * more to p 0.3 (clip time 1.2): foot_l. Changed marker names, loop flags
 * or the clip count are refused and change nothing. */
static void refreshed_clips_should_keep_normalized_progress(void)
{
    bw_graph_state_desc states[2] = {{.name = "idle", .clip = IDLE}, {.name = "move", .clip = MOVE}};
    bw_graph_param_desc params[1] = {{"go", BW_GRAPH_PARAM_BOOL, 0, 0, false}};
    bw_graph_condition_desc go = cond_is("go");
    bw_graph_transition_desc tr = edge("idle", "move", &go, 1, 0.0f);
    bw_graph_layer_desc layers[1] = {layer("base", "idle", states, 2, &tr, 1)};
    bw_graph_desc d = graph_desc(layers, 1, params, 1);
    bw_graph *g = compile(&d);
    bw_graph_cursor *c = cursor_for(g, NULL);
    bw_pose out = new_pose();
    CHECK_ROOT_AFTER(c, &out, 0.25f, 0.25f, 0.0f);
    const bw_marker_desc long_markers[2] = {{"foot_l", 1.0f}, {"foot_r", 3.0f}};
    const bw_marker_desc renamed[2] = {{"left", 1.0f}, {"foot_r", 3.0f}};
    bw_clip *idle2 = make_clip(ROOT, 1, 2.0f, true, 0.0f, 1.0f, NULL, 0);
    bw_clip *move4 = make_clip(ROOT, 1, 4.0f, true, 10.0f, 1.0f, long_markers, 2);
    bw_clip *move_bad = make_clip(ROOT, 1, 4.0f, true, 10.0f, 1.0f, renamed, 2);
    bw_clip *idle_once = make_clip(ROOT, 1, 2.0f, false, 0.0f, 1.0f, NULL, 0);
    const bw_clip *fresh[CLIPS];
    bw_binding *fresh_bindings[CLIPS];
    for (int i = 0; i < CLIPS; i++) fresh[i] = clips[i];
    /* refused: a renamed marker and a clip that stopped looping, both reported */
    fresh[IDLE] = idle_once;
    fresh[MOVE] = move_bad;
    bw_error e[4];
    bw_graph_errors list = {e, 4, 0};
    CHECK_INT(bw_graph_refresh_clips(g, fresh, CLIPS, &list), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(list.count, 2);
    CHECK_STR(e[0].where, "clips[0]");
    CHECK_STR(e[1].where, "clips[1]");
    CHECK_INT(bw_graph_refresh_clips(g, fresh, CLIPS - 1, &list), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &out), BW_OK);
    CHECK_NEAR(out.joints[ROOT].t[0], 0.25f, tol); /* unchanged */
    /* accepted */
    fresh[IDLE] = idle2;
    fresh[MOVE] = move4;
    CHECK_INT(bw_graph_refresh_clips(g, fresh, CLIPS, &list), BW_OK);
    for (int i = 0; i < CLIPS; i++) fresh_bindings[i] = fixture_binding(fresh[i], rig);
    CHECK_INT(bw_graph_cursor_rebind(c, (const bw_binding *const *)fresh_bindings, CLIPS, NULL), BW_OK);
    CHECK_NEAR(status(c, 0).progress, 0.25, 1e-9);
    CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &out), BW_OK);
    CHECK_NEAR(out.joints[ROOT].t[0], 0.5f, tol);
    CHECK_ROOT_AFTER(c, &out, 0.5f, 1.0f, 0.0f);
    CHECK_NEAR(status(c, 0).progress, 0.5, 1e-6);
    bw_graph_cursor_drain(c, NULL, NULL);
    bw_graph_cursor_set_param(c, 0, 1.0f);
    bw_graph_cursor_update(c, 0.0f); /* idle -> move, instant */
    CHECK_INT(status(c, 0).state, 1);
    bw_graph_cursor_drain(c, NULL, NULL);
    char names[4][16];
    bw_graph_cursor_update(c, 0.8f);
    CHECK_NEAR(status(c, 0).progress, 0.2, 1e-6);
    CHECK_INT(drain_markers(c, names, 4), 0);
    bw_graph_cursor_update(c, 0.4f);
    CHECK_NEAR(status(c, 0).progress, 0.3, 1e-6);
    CHECK_INT(drain_markers(c, names, 4), 1);
    CHECK_STR(names[0], "foot_l");
    teardown(c, g, &out);
    for (int i = 0; i < CLIPS; i++) bw_binding_destroy(fresh_bindings[i]);
    bw_clip_destroy(idle2);
    bw_clip_destroy(move4);
    bw_clip_destroy(move_bad);
    bw_clip_destroy(idle_once);
}

/* The additive layer's q^a: the per-frame form (slerp series) against the
 * rotation built directly, in double, from the axis and a times the half
 * angle: q = ±(n sin θ, cos θ) with θ in [0, π/2] gives q^a = (n sin aθ,
 * cos aθ). θ spans the series' range and beyond it (θ ≥ 0.8 rad takes the
 * exact form), a spans (0, 1] and exaggeration up to 1.5 (exact form). */
static void quat_pow_fast_should_match_the_direct_rotation(void)
{
    unsigned state = 2463534242u;
    double worst_fast = 0.0, worst_exact = 0.0;
    float ca[BW_SLERP_SERIES_TERMS], cb[BW_SLERP_SERIES_TERMS];
    for (int i = 0; i < 20000; i++) {
        double u[4];
        for (int k = 0; k < 4; k++) {
            state ^= state << 13; state ^= state >> 17; state ^= state << 5;
            u[k] = (double)(state >> 8) / 16777216.0;
        }
        double theta = (i % 4 == 0 ? 0.8 : 1.0) * u[0] * (M_PI / 2.0); /* a quarter at most 0.8 rad (the series) */
        if (i % 97 == 0) theta = 1e-9 * u[0];                         /* (nearly) identity */
        double a = i % 5 == 0 ? 1.0 + 0.5 * u[1] : 0.001 + 0.999 * u[1];
        double z = 2.0 * u[2] - 1.0, phi = 2.0 * M_PI * u[3], rxy = sqrt(1.0 - z * z);
        double n[3] = {rxy * cos(phi), rxy * sin(phi), z}, sign = i % 2 ? -1.0 : 1.0;
        float q[4] = {(float)(sign * n[0] * sin(theta)), (float)(sign * n[1] * sin(theta)),
                      (float)(sign * n[2] * sin(theta)), (float)(sign * cos(theta))};
        double want[4] = {n[0] * sin(a * theta), n[1] * sin(a * theta), n[2] * sin(a * theta), cos(a * theta)};
        bw_slerp_series(1.0f - (float)a, ca);
        bw_slerp_series((float)a, cb);
        float fast[4], exact[4];
        bw_graph_quat_pow_fast(q, (float)a, ca, cb, fast);
        bw_graph_quat_pow_exact(q, (float)a, exact);
        for (int k = 0; k < 4; k++) {
            worst_fast = fmax(worst_fast, fabs(fast[k] - want[k]));
            worst_exact = fmax(worst_exact, fabs(exact[k] - want[k]));
        }
    }
    /* float inputs (q rounded, a rounded) bound both near 2e-7 */
    CHECK(worst_fast <= 1e-6);
    CHECK(worst_exact <= 1e-6);
}

/* bw_graph_add_layer with a mask that changes a per joint (the series is
 * recomputed per distinct a) against each joint added alone at its own
 * weight with the mask's weight folded in: identical numbers. */
static void additive_layer_should_use_each_joints_own_weight(void)
{
    bw_pose out = new_pose(), pose = new_pose(), ref = new_pose(), one = new_pose();
    float mask[JOINTS];
    for (int j = 0; j < JOINTS; j++) {
        mask[j] = j % 3 == 0 ? 1.0f : 0.15f * (float)j;
        float angle = 0.2f + 0.1f * (float)j;
        bw_quat_from_axis_angle(0.0f, 0.6f, 0.8f, angle, pose.joints[j].r);
        bw_quat_from_axis_angle(1.0f, 0.0f, 0.0f, 0.05f * (float)j, ref.joints[j].r);
        bw_quat_from_axis_angle(0.0f, 1.0f, 0.0f, 0.3f, out.joints[j].r);
        pose.coverage[j] = 1.0f;
    }
    bw_pose_copy(&one, &out);
    bw_graph_add_layer(&out, &pose, &ref, mask, 0.9f);
    for (int j = 0; j < JOINTS; j++) {
        bw_pose single = new_pose();
        bw_pose_copy(&single, &one);
        float alone[JOINTS] = {0};
        alone[j] = mask[j];
        bw_graph_add_layer(&single, &pose, &ref, alone, 0.9f);
        for (int k = 0; k < 4; k++) CHECK(single.joints[j].r[k] == out.joints[j].r[k]);
        /* and against the direct rotation: Δ = ref⁻¹ · pose is about the
           same axis only for j = 0 (ref identity); there the result is
           out · (rotation about (0, .6, .8) by a × 0.2) */
        if (j == 0) {
            float step[4], want[4];
            bw_quat_from_axis_angle(0.0f, 0.6f, 0.8f, 0.9f * 0.2f, step);
            bw_quat_mul(one.joints[0].r, step, want);
            for (int k = 0; k < 4; k++) CHECK_NEAR(out.joints[0].r[k], want[k], 1e-6);
        }
        bw_pose_deinit(&single);
    }
    bw_pose_deinit(&out);
    bw_pose_deinit(&pose);
    bw_pose_deinit(&ref);
    bw_pose_deinit(&one);
}

/* bw_graph_add_layer_on every SIMD path this build and CPU run (blocks of
 * 4, 8 or 16 joints, each joint with its own weight, lanes whose delta is
 * out of the series' range by the exact form) against
 * bw_graph_add_layer_scalar (joint by joint) on 67 joints (16, 8 or 4
 * blocks and a tail of 3) and 3 curves:
 * random rotations with deltas from 0 to 1.2 rad and, every seventh joint,
 * 1.7 to 2.5 rad (beyond the series' range: the exact form for that lane
 * of its block), translations and scales, some joints uncovered, one whose
 * result overflows (kept as it was). Weights: no mask at 0.7 (every block),
 * a mask constant over runs of four and varying across them, a mask that
 * changes per joint, and 1.3 (exaggeration: the exact form throughout).
 * The same formulas (the wide paths fuse multiply-adds): every component
 * within 1e-6. */
static void additive_layer_blocks_should_match_the_joint_by_joint_form(void)
{
    enum { N = 67, NC = 3 };
    bw_pose pose = {0}, ref = {0}, base = {0}, fast = {0}, slow = {0};
    CHECK(bw_pose_init_counts(&pose, N, NC, NULL) == BW_OK);
    CHECK(bw_pose_init_counts(&ref, N, NC, NULL) == BW_OK);
    CHECK(bw_pose_init_counts(&base, N, NC, NULL) == BW_OK);
    CHECK(bw_pose_init_counts(&fast, N, NC, NULL) == BW_OK);
    CHECK(bw_pose_init_counts(&slow, N, NC, NULL) == BW_OK);
    unsigned state = 88172645u;
    float u[8];
    for (int j = 0; j < N; j++) {
        for (int k = 0; k < 8; k++) {
            state ^= state << 13; state ^= state >> 17; state ^= state << 5;
            u[k] = (float)(state >> 8) / 16777216.0f;
        }
        float z = 2.0f * u[0] - 1.0f, phi = 6.2831853f * u[1], rxy = sqrtf(1.0f - z * z);
        float delta[4];
        bw_quat_from_axis_angle(0.6f, 0.0f, 0.8f, 3.0f * u[2] - 1.5f, ref.joints[j].r);
        bw_quat_from_axis_angle(rxy * cosf(phi), rxy * sinf(phi), z, j % 7 == 3 ? 1.7f + 0.8f * u[3] : 1.2f * u[3], delta);
        bw_quat_mul(ref.joints[j].r, delta, pose.joints[j].r);
        if (j % 2) for (int k = 0; k < 4; k++) pose.joints[j].r[k] = -pose.joints[j].r[k]; /* the other hemisphere */
        bw_quat_from_axis_angle(0.0f, 1.0f, 0.0f, 6.0f * u[4] - 3.0f, base.joints[j].r);
        for (int k = 0; k < 3; k++) {
            pose.joints[j].t[k] = u[5] - 0.5f * (float)k;
            ref.joints[j].t[k] = u[6];
            base.joints[j].t[k] = u[7] * (float)k;
            pose.joints[j].s[k] = 0.5f + u[k + 4];
            ref.joints[j].s[k] = j % 11 == 5 && k == 1 ? 0.0f : 0.8f + 0.4f * u[k + 5];
            base.joints[j].s[k] = 1.0f;
        }
        pose.coverage[j] = j % 13 == 6 ? 0.0f : 1.0f;
    }
    pose.joints[21].t[0] = 3e38f; /* 3e38 − ref overflows once added to base: keeps base */
    base.joints[21].t[0] = 3e38f;
    pose.joints[30].r[2] = NAN; /* a covered joint with a NaN rotation keeps base */
    pose.coverage[14] = NAN;    /* reads as coverage 0 */
    for (int c = 0; c < NC; c++) {
        pose.curves[c] = 0.25f * (float)c;
        ref.curves[c] = 0.1f;
        base.curves[c] = 1.0f;
        pose.curve_coverage[c] = 1.0f;
    }
    float runs[N], each[N];
    for (int j = 0; j < N; j++) {
        runs[j] = 0.2f + 0.05f * (float)(j / 4);
        each[j] = 0.3f + 0.01f * (float)j;
    }
    each[9] = NAN; /* a NaN mask weight: that joint untouched */
    const struct {
        const float *mask;
        float weight;
    } cases[] = {{NULL, 0.7f}, {runs, 0.9f}, {each, 0.8f}, {NULL, 1.3f}, {runs, 1.0f}};
    int paths = 0;
    for (int path = BW_SIMD_PORTABLE; path < BW_SIMD_PATH_COUNT; path++)
    for (size_t i = 0; i < sizeof cases / sizeof cases[0] && bw_simd_supported((bw_simd_path)path); i++) {
        paths += i == 0;
        bw_pose_copy(&fast, &base);
        bw_pose_copy(&slow, &base);
        bw_graph_add_layer_on((bw_simd_path)path, &fast, &pose, &ref, cases[i].mask, cases[i].weight);
        bw_graph_add_layer_scalar(&slow, &pose, &ref, cases[i].mask, cases[i].weight);
        double worst = 0.0;
        for (int j = 0; j < N; j++) {
            const float *a = fast.joints[j].t, *b = slow.joints[j].t; /* t, r, s: 10 floats */
            for (int k = 0; k < 10; k++) worst = fmax(worst, fabs((double)a[k] - (double)b[k]));
        }
        for (int c = 0; c < NC; c++) worst = fmax(worst, fabs((double)fast.curves[c] - (double)slow.curves[c]));
        CHECK(worst <= 1e-6);
        bool finite = true; /* (fmax above ignores a NaN) */
        for (int j = 0; j < N; j++) finite = finite && bw_transform_isfinite(&fast.joints[j]);
        CHECK(finite);
        for (int k = 0; k < 4; k++) CHECK(fast.joints[30].r[k] == base.joints[30].r[k]);
        CHECK(fast.joints[14].t[2] == base.joints[14].t[2]);
        CHECK(fast.joints[9].r[1] == base.joints[9].r[1] || cases[i].mask != each);
        CHECK(fast.joints[21].t[0] == 3e38f);               /* the overflowing joint kept its value */
        CHECK(fast.joints[6].r[0] == base.joints[6].r[0]); /* uncovered: untouched */
        CHECK(fast.joints[6].t[1] == base.joints[6].t[1]);
    }
    CHECK(paths >= 2); /* portable and SSE2 at least, on x86-64 */
    /* and the fast form moved the joints: joint 0 at weight 0.7 is base · Δ^0.7 */
    bw_pose_copy(&fast, &base);
    bw_graph_add_layer(&fast, &pose, &ref, NULL, 0.7f);
    float inv[4], d[4], step[4], want[4];
    bw_quat_conjugate(ref.joints[0].r, inv);
    bw_quat_mul(inv, pose.joints[0].r, d);
    bw_graph_quat_pow_exact(d, 0.7f, step);
    bw_quat_mul(base.joints[0].r, step, want);
    for (int k = 0; k < 4; k++) CHECK_NEAR(fast.joints[0].r[k], want[k], 2e-6);
    bw_pose_deinit(&pose);
    bw_pose_deinit(&ref);
    bw_pose_deinit(&base);
    bw_pose_deinit(&fast);
    bw_pose_deinit(&slow);
}

/* ---- size: compile is O(n log n) in the desc ---- */

/* The 30,000-state layer of the audit, with its states listed out of name
 * order: state k is named "s<m>", m = (7919·k mod 30000) + 1 (7919 is
 * prime to 30000, so every m from 1 to 30000 appears once), and its sync
 * group is "g<k mod 3>". Transition i goes from "s<i+1>" to "s<i+2>"
 * (the last back to "s1"). The old compile compared every state name with
 * every other and searched the states linearly for each transition end:
 * about 2.3e9 strcmp calls, minutes under AddressSanitizer. */
enum { BIG = 30000, BIG_STRIDE = 7919, BIG_INVERSE = 7679 /* 7919 · 7679 = 60,810,001 = 2027 · 30000 + 1 */ };

static char (*big_names)[8];
static char big_groups[3][4] = {"g0", "g1", "g2"};

static bw_graph_desc big_desc(bw_graph_layer_desc *layer, bw_graph_state_desc *states, bw_graph_transition_desc *ts)
{
    for (int k = 0; k < BIG; k++) {
        snprintf(big_names[k], sizeof big_names[k], "s%d", (int)((long long)BIG_STRIDE * k % BIG) + 1);
        states[k] = (bw_graph_state_desc){.name = big_names[k], .clip = IDLE, .sync = big_groups[k % 3]};
    }
    /* transition i names "s<i+1>": the state k with 7919·k ≡ i (mod 30000) */
    for (int i = 0; i < BIG; i++) {
        int from = (int)((long long)BIG_INVERSE * i % BIG), to = (int)((long long)BIG_INVERSE * ((i + 1) % BIG) % BIG);
        ts[i] = (bw_graph_transition_desc){.from = states[from].name, .to = states[to].name, .duration = 0.2f};
    }
    *layer = (bw_graph_layer_desc){.name = "big", .entry = "s1", .states = states, .state_count = BIG,
                                   .transitions = ts, .transition_count = BIG};
    return (bw_graph_desc){.layers = layer, .layer_count = 1, .clips = (const bw_clip *const *)clips, .clip_count = CLIPS};
}

static void a_30000_state_layer_should_compile_with_the_right_indices(void)
{
    big_names = calloc(BIG, sizeof *big_names);
    bw_graph_state_desc *states = calloc(BIG, sizeof *states);
    bw_graph_transition_desc *ts = calloc(BIG, sizeof *ts);
    bw_graph_layer_desc layer;
    bw_graph_desc d = big_desc(&layer, states, ts);
    bw_graph *g = compile(&d);
    CHECK_INT(g->layers[0].entry, 0); /* "s1" is state 0 (7919·0 + 1) */
    static const int want[3][3] = {
        {0, 0, 7679},         /* "s1" (state 0) -> "s2": 7919·k ≡ 1, k = 7679 */
        {1, 7679, 15358},     /* "s2" -> "s3": k = 2·7679 = 15358 */
        {29999, 22321, 0},    /* "s30000" -> "s1": 7919·k ≡ 29999 ≡ -1, k = 30000 - 7679 = 22321 */
    };
    for (int i = 0; i < 3; i++) {
        CHECK_INT(g->transitions[want[i][0]].from, want[i][1]);
        CHECK_INT(g->transitions[want[i][0]].to, want[i][2]);
    }
    /* by name: "s7920" is state 1 (7919·1 + 1) */
    CHECK_INT(bw_graph_find_state(g, 0, "s7920"), 1);
    /* sync groups: the first state naming the group, 0, 1, 2 */
    CHECK_INT(g->states[0].sync, 0);
    CHECK_INT(g->states[4].sync, 1);
    CHECK_INT(g->states[29999].sync, 2); /* 29999 mod 3 = 2 */
    bw_graph_destroy(g);

    /* a duplicate at the end is found, named at its own index */
    states[BIG - 1].name = "s7920";
    bw_error errs[4];
    bw_graph_errors list = {errs, 4, 0};
    g = NULL;
    CHECK(bw_graph_compile(&d, &g, &list) == BW_ERR_DUPLICATE);
    /* and the name it replaced, "s<7919·29999 mod 30000 + 1>" = "s<30000 - 7919 + 1>" = "s22082", is
     * gone: transitions 22080 (to it) and 22081 (from it) name an unknown state, in that order */
    static const char *const problems[3][2] = {{"layers[0].states[29999].name", "duplicate state 's7920'"},
                                               {"layers[0].transitions[22080].to", "unknown state 's22082'"},
                                               {"layers[0].transitions[22081].from", "unknown state 's22082'"}};
    CHECK_INT(list.count, 3);
    for (int i = 0; i < 3; i++) {
        CHECK_STR(errs[i].where, problems[i][0]);
        CHECK_STR(errs[i].message, problems[i][1]);
    }
    CHECK(g == NULL);
    free(ts);
    free(states);
    free(big_names);
}

/* 100,000 markers named a, b, c, d in turn at k / 100000 s of a 1 s
 * looping clip (all inside the clip: loop order is index order), then a
 * second clip with "c" and "z". The old compile interned each name by
 * comparing it with every earlier marker and counted occurrences over
 * all pairs of the clip: about 1.5e10 comparisons. */
static void a_clip_with_100000_markers_should_get_its_occurrence_counts(void)
{
    enum { M = 100000 };
    static const char *const names[4] = {"a", "b", "c", "d"};
    bw_marker_desc *markers = calloc(M, sizeof *markers);
    for (int k = 0; k < M; k++) markers[k] = (bw_marker_desc){names[k % 4], (float)k / M};
    const bw_marker_desc second[2] = {{"c", 0.25f}, {"z", 0.5f}};
    bw_clip *many = make_clip(ROOT, 1, 1.0f, true, 0.0f, 1.0f, markers, M);
    bw_clip *other = make_clip(ROOT, 1, 1.0f, true, 0.0f, 1.0f, second, 2);
    const bw_clip *cl[2] = {many, other};
    bw_graph_state_desc st[1] = {{.name = "one", .clip = 0}};
    bw_graph_layer_desc layer = {.name = "l", .entry = "one", .states = st, .state_count = 1};
    bw_graph_desc d = {.layers = &layer, .layer_count = 1, .clips = cl, .clip_count = 2};
    bw_graph *g = compile(&d);
    for (int pass = 0; pass < 2; pass++) { /* compiled, then refreshed with the same clips */
        CHECK_INT(g->marker_count, M + 2);
        /* marker k of the first clip: name id k mod 4 (the first of its name), occurrence k div 4, 25,000
         * of each name; the second clip: "c" shares id 2 but counts in its own clip, "z" is new (M + 1) */
        static const int want[6][4] = {/* marker, name_id, loop_occ, name_count */
                                       {0, 0, 0, 25000},         {1, 1, 0, 25000}, {7, 3, 1, 25000},
                                       {99998, 2, 24999, 25000}, {M, 2, 0, 1},     {M + 1, M + 1, 0, 1}};
        for (int i = 0; i < 6; i++) {
            const g_marker *mk = &g->markers[want[i][0]];
            CHECK_INT(mk->name_id, want[i][1]);
            CHECK_INT(mk->loop_occ, want[i][2]);
            CHECK_INT(mk->name_count, want[i][3]);
        }
        if (pass == 0) CHECK(bw_graph_refresh_clips(g, cl, 2, NULL) == BW_OK);
    }
    bw_graph_destroy(g);
    bw_clip_destroy(other);
    bw_clip_destroy(many);
    free(markers);
}

/* 4 additive layers of 60,000 states, request q = 60000·layer + state
 * referencing ADDC's own pose at (q mod 100000) / 1024 s (exact floats):
 * 100,000 distinct references, request q gets q mod 100000 (the order of
 * first appearance). The old compile compared each request with every
 * reference found before it: about 2e10 comparisons. */
static void a_quarter_million_additive_references_should_be_interned_in_order(void)
{
    enum { PER = 60000, LAYERS = 4, DISTINCT = 100000 };
    char (*names)[8] = calloc(PER, sizeof *names);
    bw_graph_state_desc *states = calloc((size_t)PER * LAYERS, sizeof *states);
    bw_graph_layer_desc layers[LAYERS];
    for (int l = 0; l < LAYERS; l++) {
        for (int k = 0; k < PER; k++) {
            int q = l * PER + k;
            snprintf(names[k], sizeof names[k], "s%d", k + 1);
            states[q] = (bw_graph_state_desc){.name = names[k], .clip = ADDC,
                                              .reference = {BW_GRAPH_REF_OWN, 0, (float)(q % DISTINCT) / 1024.0f}};
        }
        layers[l] = (bw_graph_layer_desc){.name = big_groups[l % 3], .entry = "s1", .states = states + l * PER,
                                          .state_count = PER, .mode = BW_GRAPH_ADDITIVE};
    }
    layers[3].name = "g3";
    bw_graph_desc d = {.layers = layers, .layer_count = LAYERS, .clips = (const bw_clip *const *)clips,
                       .clip_count = CLIPS};
    bw_graph *g = compile(&d);
    CHECK_INT(g->ref_count, DISTINCT);
    CHECK_INT(g->refmap[g->states[0].ref_first], 0);          /* q 0 */
    CHECK_INT(g->refmap[g->states[99999].ref_first], 99999);  /* layer 1, state 39999 */
    CHECK_INT(g->refmap[g->states[100000].ref_first], 0);     /* layer 1, state 40000: time 0 again */
    CHECK_INT(g->refmap[g->states[239999].ref_first], 39999); /* layer 3, state 59999 */
    CHECK_INT(g->refs[39999].clip, ADDC);
    CHECK_NEAR(g->refs[39999].time, 39999.0f / 1024.0f, 0.0f);
    bw_graph_destroy(g);
    free(states);
    free(names);
}

int main(void)
{
    make_world();
    RUN(compile_should_report_every_problem_at_once);
    RUN(a_non_finite_field_is_non_finite_and_a_negative_one_range);
    RUN(timeline_idle_to_move_should_follow_the_hand_derivation);
    RUN(exit_time_gates_should_follow_the_three_rules);
    RUN(triggers_should_be_consumed_only_by_the_transition_that_fires);
    RUN(expiring_trigger_should_unset_itself_at_the_end_of_the_update);
    RUN(expires_zero_should_unset_in_the_first_update_only_with_its_flag);
    RUN(any_state_into_the_current_state_should_need_to_self);
    RUN(non_interruptible_fade_should_ignore_conditions_until_it_ends);
    RUN(interruption_should_start_from_the_frozen_pose_on_screen);
    RUN(freeze_and_live_sources_should_differ_as_derived);
    RUN(travel_should_follow_the_first_shortest_route);
    RUN(events_should_come_markers_exit_enter_after_frame_zero_enters);
    RUN(fade_markers_should_switch_from_source_to_destination_at_the_midpoint);
    RUN(masks_should_propagate_and_own_entries_override);
    RUN(coverage_should_fade_a_joint_present_on_one_side_only);
    RUN(markers_should_follow_loops_and_reverse_playback);
    RUN(huge_rate_times_dt_should_end_without_markers);
    RUN(parameters_should_drive_speed_layer_weight_and_curves);
    RUN(going_back_mid_fade_should_not_jump);
    RUN(travel_should_use_any_state_edges);
    RUN(a_full_event_queue_should_drop_and_count);
    RUN(blend_states_should_advance_by_the_weighted_cycle);
    RUN(additive_layers_should_add_the_delta_from_the_reference);
    RUN(additive_references_should_be_baked_against_each_kind);
    RUN(equal_references_should_be_shared_and_others_kept_apart);
    RUN(quat_pow_fast_should_match_the_direct_rotation);
    RUN(additive_layer_should_use_each_joints_own_weight);
    RUN(additive_layer_blocks_should_match_the_joint_by_joint_form);
    RUN(references_should_be_checked_at_compile);
    RUN(a_blend_state_should_measure_each_leaf_against_its_reference);
    RUN(an_additive_fade_should_mix_references_only_while_it_runs);
    RUN(a_blend_tree_should_be_evaluated_once_per_update);
    RUN(the_cursor_leaves_are_the_last_evaluated_ones);
    RUN(refreshed_clips_should_keep_normalized_progress);
    RUN(root_motion_should_follow_the_plays_by_their_weights);
    RUN(sync_groups_should_map_phase_between_shared_markers);
    RUN(a_fade_at_sixty_hertz_should_end_on_the_update_that_reaches_its_duration);
    RUN(a_layer_weight_fade_at_sixty_hertz_should_end_on_time);
    RUN(a_joining_sync_follower_should_never_move_backwards);
    RUN(a_cross_layer_follower_should_fire_its_start_marker_once);
    RUN(a_backwards_follower_should_keep_its_feet_with_the_leader);
    RUN(a_joining_follower_should_open_its_exit_gate_on_the_phase_it_shows);
    RUN(random_driving_should_keep_every_invariant);
    RUN(a_shared_scratch_should_give_the_own_poses_results_bit_for_bit);
    RUN(carry_over_should_continue_without_a_pop);
    RUN(ten_thousand_frames_should_not_allocate);
    RUN(allocation_failures_should_be_reported_and_leak_nothing);
    RUN(cursor_create_should_check_its_bindings);
    RUN(a_30000_state_layer_should_compile_with_the_right_indices);
    RUN(a_clip_with_100000_markers_should_get_its_occurrence_counts);
    RUN(a_quarter_million_additive_references_should_be_interned_in_order);
    free_world();
    return check_summary();
}
