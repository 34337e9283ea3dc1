/* test_carry_over.c - hot reload of a graph (bw_graph_cursor_carry_over,
 * graph.h; issue 11): a character carried into a cursor of a new graph
 * keeps its states, clocks, parameters, layer weights and the transition
 * in flight.
 *
 * Two kinds of test:
 * - Against an independent run: a reference cursor that never reloads and
 *   a cursor that is carried over, mid-transition, into a cursor of a
 *   second compile of the same desc. Both get the same script; every
 *   frame's pose (every channel), layer status, events and root motion
 *   must agree (poses within 1e-6) through the end of the transitions.
 * - Against numbers worked out by hand, for edits: a removed destination
 *   or source, a new duration, freeze mode or no matching transition, a
 *   state that now plays another clip.
 *
 * Clips key the translation of one joint linearly in clip time τ:
 * x = slope × τ, y = a constant that names the clip, so a pose tells which
 * clips were mixed at which times and weights. Every dt is 0.125, so
 * timers and progress are exact in binary. */
#include "blendwerk/blendwerk.h"
#include "check.h"
#include "fixtures.h"
#include "graph_fixtures.h"
#include "test_alloc_counter.h"

enum { ROOT, ARM, JOINTS };
static const char *const joint_names[JOINTS] = {"root", "arm"};
static const int joint_parents[JOINTS] = {-1, ROOT};

/* Clips:  joint  length loop  y    x      markers */
enum {
    IDLE, /* root  1      yes   0    τ      -                       */
    MOVE, /* root  2      yes   10   τ      foot_l 0.5, foot_r 1.5  */
    JUMP, /* root  1      no    20   τ      land 0.75               */
    RUN,  /* root  1      yes   30   2τ     -                       */
    ARMA, /* arm   1      yes   1    τ      -                       */
    ARMB, /* arm   1      yes   2    3τ     -                       */
    CLIPS
};

static bw_rig *rig;
static bw_clip *clips[CLIPS];
static bw_binding *bindings[CLIPS];
static const float tol = 1e-5f;
static const float DT = 0.125f;

static bw_clip *make_clip(int joint, float length, bool loop, float y, float slope, const bw_marker_desc *markers,
                          int marker_count)
{
    static float values[CLIPS][6];
    static float times[CLIPS][2];
    static int n;
    float *v = values[n], *t = times[n];
    n++;
    const float v0[6] = {0, y, 0, slope * length, y, 0};
    memcpy(v, v0, sizeof v0);
    t[0] = 0;
    t[1] = length;
    bw_track_desc track = {joint == ROOT ? "" : joint_names[joint_parents[joint]],
                           joint_names[joint],
                           BW_CHANNEL_TRANSLATION,
                           BW_INTERP_EASED,
                           2,
                           t,
                           v,
                           NULL,
                           NULL};
    bw_clip_desc d = {0};
    d.tracks = &track;
    d.track_count = 1;
    d.markers = markers;
    d.marker_count = marker_count;
    d.length = length;
    d.loop = loop;
    return fixture_clip_desc(&d);
}

static void make_world(void)
{
    rig = fixture_rig(joint_names, joint_parents, JOINTS);
    const bw_marker_desc move_markers[2] = {{"foot_l", 0.5f}, {"foot_r", 1.5f}};
    const bw_marker_desc jump_markers[1] = {{"land", 0.75f}};
    clips[IDLE] = make_clip(ROOT, 1.0f, true, 0.0f, 1.0f, NULL, 0);
    clips[MOVE] = make_clip(ROOT, 2.0f, true, 10.0f, 1.0f, move_markers, 2);
    clips[JUMP] = make_clip(ROOT, 1.0f, false, 20.0f, 1.0f, jump_markers, 1);
    clips[RUN] = make_clip(ROOT, 1.0f, true, 30.0f, 2.0f, NULL, 0);
    clips[ARMA] = make_clip(ARM, 1.0f, true, 1.0f, 1.0f, NULL, 0);
    clips[ARMB] = make_clip(ARM, 1.0f, true, 2.0f, 3.0f, NULL, 0);
    for (int i = 0; i < CLIPS; i++) bindings[i] = fixture_binding(clips[i], rig);
}

static void free_world(void) { graph_fixture_free(clips, bindings, CLIPS, rig); }

/* ---- graphs ---- */

/* Every graph here has the same parameters: go (bool), hop and wave (triggers). */
enum { GO, HOP, WAVE };
static const bw_graph_param_desc params[3] = {
    {"go", BW_GRAPH_PARAM_BOOL, 0, 0, false}, {"hop", BW_GRAPH_PARAM_TRIGGER, 0, 0, false}, {"wave", BW_GRAPH_PARAM_TRIGGER, 0, 0, false}};
static const bw_graph_condition_desc when_go = {BW_GRAPH_COND_TRUE, "go", BW_GRAPH_LT, 0, NULL, NULL};
static const bw_graph_condition_desc when_hop = {BW_GRAPH_COND_TRUE, "hop", BW_GRAPH_LT, 0, NULL, NULL};
static const bw_graph_condition_desc when_wave = {BW_GRAPH_COND_TRUE, "wave", BW_GRAPH_LT, 0, NULL, NULL};

static bw_graph *compile_layers(const bw_graph_layer_desc *layers, int layer_count)
{
    bw_graph_desc d = {0};
    d.layers = layers;
    d.layer_count = layer_count;
    d.params = params;
    d.param_count = 3;
    d.clips = (const bw_clip *const *)clips;
    d.clip_count = CLIPS;
    return graph_fixture_compile(&d);
}

#define layer(...) graph_fixture_layer(__VA_ARGS__)

/* The full graph of the frame-by-frame tests.
 * Layer "base" (override): idle, move, jump;
 *   0 idle -> move when go, 0.5 s live, source at 1.5×
 *   1 *    -> jump when hop, 0.5 s freeze (interrupts a running fade)
 *   2 jump -> idle at exit time 1, 0.5 s live, quad in
 * Layer "wave" (additive, on the arm): a, b;
 *   0 a -> b when wave, 0.5 s freeze, sine in-out
 *   1 b -> a at exit time 1, 0.375 s live */
static const bw_graph_state_desc base_states[3] = {
    {.name = "idle", .clip = IDLE}, {.name = "move", .clip = MOVE}, {.name = "jump", .clip = JUMP}};
static const bw_graph_transition_desc base_transitions[3] = {
    {.from = "idle", .to = "move", .conditions = &when_go, .condition_count = 1, .duration = 0.5f, .source_speed = 1.5f},
    {.from = "*", .to = "jump", .conditions = &when_hop, .condition_count = 1, .duration = 0.5f, .mode = BW_GRAPH_FREEZE},
    {.from = "jump", .to = "idle", .has_exit_time = true, .exit_time = 1.0f, .duration = 0.5f, .curve = BW_EASE_QUAD}};

static bw_graph *full_graph(void)
{
    const bw_graph_state_desc wave[2] = {{.name = "a", .clip = ARMA}, {.name = "b", .clip = ARMB}};
    const bw_graph_transition_desc wave_tr[2] = {
        {.from = "a",
         .to = "b",
         .conditions = &when_wave,
         .condition_count = 1,
         .duration = 0.5f,
         .mode = BW_GRAPH_FREEZE,
         .curve = BW_EASE_SINE,
         .curve_dir = BW_EASE_IN_OUT},
        {.from = "b", .to = "a", .has_exit_time = true, .exit_time = 1.0f, .duration = 0.375f}};
    bw_graph_layer_desc layers[2] = {layer("base", "idle", base_states, 3, base_transitions, 3),
                                     layer("wave", "a", wave, 2, wave_tr, 2)};
    layers[1].mode = BW_GRAPH_ADDITIVE;
    return compile_layers(layers, 2);
}

static bw_graph_cursor *cursor_for(const bw_graph *g, const bw_allocator *a)
{
    return graph_fixture_cursor(g, rig, bindings, CLIPS, a);
}

static bw_graph_layer_status status(const bw_graph_cursor *c, int layer) { return graph_fixture_status(c, layer); }

static bw_pose new_pose(void) { return graph_fixture_pose(rig); }

/* A cursor and then its graph. */
static void drop(bw_graph_cursor *c, bw_graph *g)
{
    bw_graph_cursor_destroy(c);
    bw_graph_destroy(g);
}

/* ---- frame by frame against a run without reload ---- */

typedef struct recorded {
    int count;
    bw_graph_event e[64];
} recorded;

static void record(void *user, const bw_graph_event *e)
{
    recorded *r = (recorded *)user;
    if (r->count < 64) r->e[r->count++] = *e;
}

/* What the script does before frame f's update (the same to both cursors). */
typedef void (*script_fn)(bw_graph_cursor *c, int frame);

/* Largest difference of two poses over every channel. */
static double pose_diff(const bw_pose *a, const bw_pose *b)
{
    double d = 0;
    for (int j = 0; j < JOINTS; j++) {
        for (int k = 0; k < 3; k++) {
            d = fmax(d, fabs((double)a->joints[j].t[k] - b->joints[j].t[k]));
            d = fmax(d, fabs((double)a->joints[j].s[k] - b->joints[j].s[k]));
        }
        for (int k = 0; k < 4; k++) d = fmax(d, fabs((double)a->joints[j].r[k] - b->joints[j].r[k]));
        d = fmax(d, fabs((double)a->coverage[j] - b->coverage[j]));
    }
    return d;
}

/* Run `frames` frames of dt DT on a reference cursor and on one that is
 * carried over (fade 0.25 s) into a cursor of a fresh compile of the same
 * graph after each frame listed in reload_after (frame numbers, -1
 * terminated). Every frame compares pose, status, events and root
 * motion and queued travel. *at_reload is layer `watch`'s status right after the first
 * carry-over. Returns the largest pose difference seen. */
static double run_against_reference(script_fn script, const int *reload_after, int frames, int watch,
                                    bw_graph_layer_status *at_reload)
{
    bw_graph *ga = full_graph();
    bw_graph *gb = full_graph();
    bw_graph_cursor *a = cursor_for(ga, NULL), *b = cursor_for(gb, NULL);
    bw_pose pa = new_pose(), pb = new_pose();
    bw_root_motion_config cfg;
    CHECK_INT(bw_root_motion_config_init(&cfg, rig, "root", BW_ROOT_X | BW_ROOT_Z, NULL), BW_OK);
    double worst = 0;
    int mismatches = 0, reloads = 0;
    bool reported = false;
    for (int f = 0; f < frames; f++) {
        script(a, f);
        script(b, f);
        bw_graph_cursor_update(a, DT);
        bw_graph_cursor_update(b, DT);
        CHECK_INT(bw_graph_cursor_evaluate(a, NULL, &pa), BW_OK);
        CHECK_INT(bw_graph_cursor_evaluate(b, NULL, &pb), BW_OK);
        worst = fmax(worst, pose_diff(&pa, &pb));
        bw_root_delta ra, rb;
        CHECK_INT(bw_graph_cursor_root_motion(a, &cfg, &ra), BW_OK);
        CHECK_INT(bw_graph_cursor_root_motion(b, &cfg, &rb), BW_OK);
        mismatches += fabs(ra.t[0] - rb.t[0]) > 1e-6 || fabs(ra.t[2] - rb.t[2]) > 1e-6;
        recorded ea = {0}, eb = {0};
        bw_graph_cursor_drain(a, record, &ea);
        bw_graph_cursor_drain(b, record, &eb);
        mismatches += ea.count != eb.count;
        for (int i = 0; i < ea.count && i < eb.count; i++)
            mismatches += ea.e[i].kind != eb.e[i].kind || ea.e[i].layer != eb.e[i].layer ||
                          ea.e[i].state != eb.e[i].state || ea.e[i].marker != eb.e[i].marker;
        for (int l = 0; l < 2; l++) {
            bw_graph_layer_status sa = status(a, l), sb = status(b, l);
            mismatches += sa.state != sb.state || fabs(sa.progress - sb.progress) > 1e-9 ||
                          sa.transition.active != sb.transition.active ||
                          fabsf(sa.transition.elapsed - sb.transition.elapsed) > 1e-7f ||
                          fabsf(sa.transition.weight - sb.transition.weight) > 1e-6f ||
                          sa.transition.transition != sb.transition.transition ||
                          sa.transition.from != sb.transition.from ||
                          sa.transition.source_state != sb.transition.source_state ||
                          fabs(sa.transition.source_progress - sb.transition.source_progress) > 1e-9 ||
                          bw_graph_cursor_travel_pending(a, l) != bw_graph_cursor_travel_pending(b, l);
        }
        if (mismatches && !reported) {
            fprintf(stderr, "  first mismatch at frame %d\n", f);
            reported = true;
        }
        if (f == reload_after[reloads]) {
            bw_graph *gn = full_graph();
            bw_graph_cursor *bn = cursor_for(gn, NULL);
            CHECK_INT(bw_graph_cursor_carry_over(bn, b, 0.25f), BW_OK);
            if (reloads == 0) *at_reload = status(bn, watch);
            /* right after the swap the carried cursor shows what the old one showed */
            CHECK_INT(bw_graph_cursor_evaluate(bn, NULL, &pb), BW_OK);
            worst = fmax(worst, pose_diff(&pa, &pb));
            bw_graph_cursor_destroy(b);
            bw_graph_destroy(gb);
            b = bn;
            gb = gn;
            reloads++;
        }
    }
    CHECK_INT(mismatches, 0);
    CHECK(reload_after[reloads] < 0); /* every reload happened */
    bw_pose_deinit(&pa);
    bw_pose_deinit(&pb);
    bw_graph_cursor_destroy(a);
    drop(b, ga);
    bw_graph_destroy(gb);
    return worst;
}

static void go_and_wave(bw_graph_cursor *c, int f)
{
    if (f == 0) {
        bw_graph_cursor_set_param(c, GO, 1);
        bw_graph_cursor_fire(c, WAVE);
    }
}

/* Frame 0 fires idle -> move (live) and a -> b (freeze, sine); after frame
 * 1 both are 0.125 s into their 0.5 s: move at p 0.0625, the live source
 * idle at p 0.125 + 0.125 × 1.5 = 0.3125. */
static void reload_mid_live_transition_should_match_no_reload(void)
{
    const int reload[] = {1, -1};
    bw_graph_layer_status s;
    double worst = run_against_reference(go_and_wave, reload, 8, 0, &s);
    CHECK(worst <= 1e-6);
    CHECK(s.transition.active && !s.transition.frozen);
    CHECK_INT(s.transition.transition, 0);
    CHECK_INT(s.transition.from, 0);
    CHECK_INT(s.transition.source_state, 0);
    CHECK_NEAR(s.transition.source_progress, 0.3125, 1e-9);
    CHECK_NEAR(s.progress, 0.0625, 1e-9);
    CHECK_NEAR(s.transition.elapsed, 0.125f, 0);
    CHECK_NEAR(s.transition.duration, 0.5f, 0);
    CHECK_NEAR(s.transition.weight, 0.25f, tol);
    CHECK_INT(s.transition.mode, BW_GRAPH_LIVE);
}

/* The additive layer's freeze fade (sine in-out) carries its snapshot and
 * its reference snapshot: at 0.125 of 0.5 s the weight is
 * (1 - cos(π/4)) / 2 = 0.146447. */
static void reload_mid_freeze_transition_on_an_additive_layer_should_match_no_reload(void)
{
    const int reload[] = {1, -1};
    bw_graph_layer_status s;
    double worst = run_against_reference(go_and_wave, reload, 8, 1, &s);
    CHECK(worst <= 1e-6);
    CHECK(s.transition.active && s.transition.frozen);
    CHECK_INT(s.transition.transition, 0);
    CHECK_INT(s.transition.mode, BW_GRAPH_FREEZE);
    CHECK_NEAR(s.transition.weight, (1.0 - cos(M_PI / 4)) / 2, tol);
}

/* Reloading every frame through both fades changes nothing either. */
static void reload_every_frame_should_match_no_reload(void)
{
    const int reload[] = {0, 1, 2, 3, 4, 5, -1};
    bw_graph_layer_status s;
    double worst = run_against_reference(go_and_wave, reload, 8, 0, &s);
    CHECK(worst <= 1e-6);
    CHECK_INT(s.state, 1);
    CHECK_NEAR(s.transition.elapsed, 0.0f, 0); /* fired in frame 0's update */
}

/* Frame 0: go (idle -> move); frame 2: hop, so * -> jump interrupts the
 * fade at 0.125 s: its source is the frozen pose on screen. */
static void go_then_hop(bw_graph_cursor *c, int f)
{
    if (f == 0) bw_graph_cursor_set_param(c, GO, 1);
    if (f == 2) {
        bw_graph_cursor_set_param(c, GO, 0);
        bw_graph_cursor_fire(c, HOP);
    }
}

/* Reload after frame 3, 0.125 s into the interruption; then the frame run
 * goes on through jump (1 s, non-looping: the land marker at 0.75) and
 * jump -> idle (exit time 1, quad in, live), which the run crosses too. */
static void reload_mid_interruption_should_match_no_reload(void)
{
    const int reload[] = {3, 12, -1};
    bw_graph_layer_status s;
    double worst = run_against_reference(go_then_hop, reload, 20, 0, &s);
    CHECK(worst <= 1e-6);
    CHECK_INT(s.state, 2);
    CHECK(s.transition.active && s.transition.frozen);
    CHECK_INT(s.transition.transition, 1);
    CHECK_INT(s.transition.from, 1); /* move was current when the interruption fired */
    CHECK_NEAR(s.transition.elapsed, 0.125f, 0);
}

/* jump fires in frame 2's update (p 0); p reaches 1 in frame 10, where
 * jump -> idle fires; reload after frame 11 with the quad fade live. */
static void reload_mid_curved_live_transition_should_match_no_reload(void)
{
    const int reload[] = {11, -1};
    bw_graph_layer_status s;
    double worst = run_against_reference(go_then_hop, reload, 18, 0, &s);
    CHECK(worst <= 1e-6);
    CHECK_INT(s.state, 0);
    CHECK(s.transition.active && !s.transition.frozen);
    CHECK_INT(s.transition.transition, 2);
    CHECK_INT(s.transition.source_state, 2);
    CHECK_NEAR(s.transition.elapsed, 0.125f, 0);
    CHECK_NEAR(s.transition.weight, 0.0625f, tol); /* (0.125 / 0.5)² */
}

/* Frame 0: travel to jump (* -> jump fires in frame 0's update, p 0);
 * frame 1: travel to move, a route of two edges from jump: jump -> idle
 * (exit time 1: p reaches 1 in frame 8) then idle -> move (frame 9).
 * Reloads after frame 3 (both edges queued) and 8 (one). */
static void travel_to_jump_then_move(bw_graph_cursor *c, int f)
{
    if (f == 0) CHECK_INT(bw_graph_cursor_travel(c, 0, 2), BW_OK);
    if (f == 1) CHECK_INT(bw_graph_cursor_travel(c, 0, 1), BW_OK);
    if (f == 4) CHECK_INT(bw_graph_cursor_travel_pending(c, 0), 2);
    if (f == 9) CHECK_INT(bw_graph_cursor_travel_pending(c, 0), 1);
    if (f == 10) CHECK_INT(bw_graph_cursor_travel_pending(c, 0), 0);
}

static void reload_with_travel_queued_should_match_no_reload(void)
{
    const int reload[] = {3, 8, -1};
    bw_graph_layer_status s;
    double worst = run_against_reference(travel_to_jump_then_move, reload, 16, 0, &s);
    CHECK(worst <= 1e-6);
    CHECK_INT(s.state, 2); /* jump, 0.375 s into its freeze fade-in */
}

/* ---- edits, by hand ---- */

/* The old graph: idle -> move when go, 0.5 s, live, `curve`. Two updates
 * of 0.125 with go: u1 idle p 0.125, fires; u2 idle τ 0.25 (source), move
 * p 0.0625 (τ 0.125), timer 0.125. Linear: w 0.25, on screen
 * x = 0.75·0.25 + 0.25·0.125 = 0.21875, y = 0.25·10 = 2.5. */
static bw_graph_cursor *old_mid_transition(bw_graph **g, bw_ease_style curve, bw_pose *out)
{
    const bw_graph_state_desc st[2] = {{.name = "idle", .clip = IDLE}, {.name = "move", .clip = MOVE}};
    const bw_graph_transition_desc tr = {
        .from = "idle", .to = "move", .conditions = &when_go, .condition_count = 1, .duration = 0.5f, .curve = curve};
    bw_graph_layer_desc l = layer("base", "idle", st, 2, &tr, 1);
    *g = compile_layers(&l, 1);
    bw_graph_cursor *c = cursor_for(*g, NULL);
    bw_graph_cursor_set_param(c, GO, 1);
    bw_graph_cursor_update(c, DT);
    bw_graph_cursor_update(c, DT);
    CHECK_INT(bw_graph_cursor_evaluate(c, NULL, out), BW_OK);
    bw_graph_cursor_drain(c, NULL, NULL);
    return c;
}

/* Carry `old` into a cursor of a graph of one layer "base". */
static bw_graph_cursor *carried(const bw_graph_cursor *old, bw_graph **g, const bw_graph_state_desc *st, int ns,
                                const char *entry, const bw_graph_transition_desc *tr, int nt, float fade)
{
    bw_graph_layer_desc l = layer("base", entry, st, ns, tr, nt);
    *g = compile_layers(&l, 1);
    bw_graph_cursor *c = cursor_for(*g, NULL);
    CHECK_INT(bw_graph_cursor_carry_over(c, old, fade), BW_OK);
    return c;
}

static void check_root(bw_graph_cursor *c, bw_pose *out, float dt, float x, float y, int line)
{
    if (dt > 0) bw_graph_cursor_update(c, dt);
    bw_result r = bw_graph_cursor_evaluate(c, NULL, out);
    if (r != BW_OK || !(fabsf(out->joints[ROOT].t[0] - x) <= tol) || !(fabsf(out->joints[ROOT].t[1] - y) <= tol)) {
        fprintf(stderr, "%s:%d: root (%g, %g), expected (%g, %g)\n", __FILE__, line, out->joints[ROOT].t[0],
                out->joints[ROOT].t[1], x, y);
        check_failures_in_test++;
    }
}
#define CHECK_ROOT(c, out, dt, x, y) check_root((c), (out), (dt), (x), (y), __LINE__)

/* The matching transition of the new graph sets the rest: 1 s instead of
 * 0.5 (the weight becomes 0.125 / 1 at once, the elapsed time kept):
 * x = 0.875·0.25 + 0.125·0.125 = 0.234375, y = 1.25; next update timer
 * 0.25, w 0.25, idle τ 0.375, move τ 0.25: x = 0.75·0.375 + 0.25·0.25 =
 * 0.34375, y = 2.5. */
static void new_duration_should_apply_to_the_running_transition(void)
{
    bw_graph *go, *gn;
    bw_pose out = new_pose();
    bw_graph_cursor *old = old_mid_transition(&go, BW_EASE_LINEAR, &out);
    CHECK_NEAR(out.joints[ROOT].t[0], 0.21875f, tol);
    CHECK_NEAR(out.joints[ROOT].t[1], 2.5f, tol);
    /* the new graph lists the states the other way round: matched by name */
    const bw_graph_state_desc st[2] = {{.name = "move", .clip = MOVE}, {.name = "idle", .clip = IDLE}};
    const bw_graph_transition_desc tr = {
        .from = "idle", .to = "move", .conditions = &when_go, .condition_count = 1, .duration = 1.0f};
    bw_graph_cursor *c = carried(old, &gn, st, 2, "idle", &tr, 1, 0.0f);
    bw_graph_layer_status s = status(c, 0);
    CHECK_INT(s.state, 0);
    CHECK_INT(s.transition.from, 1);
    CHECK_INT(s.transition.source_state, 1);
    CHECK_INT(s.transition.transition, 0);
    CHECK_NEAR(s.transition.duration, 1.0f, 0);
    CHECK_ROOT(c, &out, 0, 0.234375f, 1.25f);
    CHECK_ROOT(c, &out, DT, 0.34375f, 2.5f);
    drop(c, gn);

    /* a new duration already over: the destination alone (move τ 0.125) */
    const bw_graph_transition_desc short_tr = {
        .from = "idle", .to = "move", .conditions = &when_go, .condition_count = 1, .duration = 0.125f};
    c = carried(old, &gn, st, 2, "idle", &short_tr, 1, 0.0f);
    CHECK(!status(c, 0).transition.active);
    CHECK_ROOT(c, &out, 0, 0.125f, 10.0f);
    drop(c, gn);
    drop(old, go);
    bw_pose_deinit(&out);
}

/* Carried mid-fade at 60 Hz, the fade still ends on the update whose
 * advance reaches its duration: idle -> move (1 s) fires in u0 at dt =
 * 1/60.f, the layer weight fades 1 -> 0.5 over 1 s from u1 on; carried
 * over after 30 updates into a second compile. After u59 the timer is
 * 59·dt = 0.98333338461816 (weight 0.5 + 0.5·(1 − 59·dt) =
 * 0.50833330769); u60 reaches 60·dt = 1.0000000521540642 >= 1: no
 * transition, weight exactly 0.5 (a float timer, 0.99999970, would run one
 * update longer). */
static void a_carried_fade_at_sixty_hertz_should_end_on_time(void)
{
    const float dt = 1.0f / 60.0f;
    const bw_graph_state_desc st[2] = {{.name = "idle", .clip = IDLE}, {.name = "move", .clip = MOVE}};
    const bw_graph_transition_desc tr = {
        .from = "idle", .to = "move", .conditions = &when_go, .condition_count = 1, .duration = 1.0f};
    bw_graph_layer_desc l = layer("base", "idle", st, 2, &tr, 1);
    bw_graph *go = compile_layers(&l, 1), *gn = compile_layers(&l, 1);
    bw_graph_cursor *old = cursor_for(go, NULL), *c = cursor_for(gn, NULL);
    bw_graph_cursor_set_param(old, GO, 1);
    bw_graph_cursor_update(old, dt); /* u0 */
    CHECK_INT(bw_graph_cursor_set_layer_weight(old, 0, 0.5f, 1.0f), BW_OK);
    for (int u = 1; u <= 30; u++) bw_graph_cursor_update(old, dt);
    CHECK_INT(bw_graph_cursor_carry_over(c, old, 0.0f), BW_OK);
    for (int u = 31; u <= 59; u++) bw_graph_cursor_update(c, dt);
    bw_graph_layer_status s = status(c, 0);
    CHECK(s.transition.active);
    CHECK_NEAR(s.transition.elapsed, 0.98333338461816311, 1e-7);
    CHECK_NEAR(s.weight, 0.50833330769091845, 1e-7);
    bw_graph_cursor_update(c, dt);
    s = status(c, 0);
    CHECK_INT(s.state, 1);
    CHECK(!s.transition.active);
    CHECK_NEAR(s.weight, 0.5, 0);
    drop(old, go);
    drop(c, gn);
}

/* The new transition freezes its source: the live idle stands at τ 0.25
 * from now on. Next update: move τ 0.25, w 0.5: x = 0.5·0.25 + 0.5·0.25 =
 * 0.25, y = 5; then w 0.75: x = 0.25·0.25 + 0.75·0.375 = 0.34375, y 7.5. */
static void new_freeze_mode_should_stop_the_live_source(void)
{
    bw_graph *go, *gn;
    bw_pose out = new_pose();
    bw_graph_cursor *old = old_mid_transition(&go, BW_EASE_LINEAR, &out);
    const bw_graph_state_desc st[2] = {{.name = "idle", .clip = IDLE}, {.name = "move", .clip = MOVE}};
    const bw_graph_transition_desc tr = {.from = "idle",
                                         .to = "move",
                                         .conditions = &when_go,
                                         .condition_count = 1,
                                         .duration = 0.5f,
                                         .mode = BW_GRAPH_FREEZE};
    bw_graph_cursor *c = carried(old, &gn, st, 2, "idle", &tr, 1, 0.0f);
    bw_graph_layer_status s = status(c, 0);
    CHECK_INT(s.transition.mode, BW_GRAPH_FREEZE);
    CHECK(!s.transition.frozen);
    CHECK_INT(s.transition.source_state, 0);
    CHECK_ROOT(c, &out, 0, 0.21875f, 2.5f);
    CHECK_ROOT(c, &out, DT, 0.25f, 5.0f);
    CHECK_NEAR(status(c, 0).transition.source_progress, 0.25, 1e-9);
    CHECK_ROOT(c, &out, DT, 0.34375f, 7.5f);
    drop(c, gn);
    drop(old, go);
    bw_pose_deinit(&out);
}

/* Old curve quad in: at 0.125 of 0.5 s w = 0.0625 (x = 0.9375·0.25 +
 * 0.0625·0.125 = 0.2421875, y 0.625). The new graph has no idle -> move:
 * the fade goes on with the old duration and curve, transition -1, from
 * idle. Next update u 0.5, w 0.25: x = 0.75·0.375 + 0.25·0.25 = 0.34375,
 * y 2.5; then u 0.75, w 0.5625: x = 0.4375·0.5 + 0.5625·0.375 =
 * 0.4296875, y 5.625; then the fade is over: move τ 0.5. */
static void transition_gone_should_keep_the_old_duration_and_curve(void)
{
    bw_graph *go, *gn;
    bw_pose out = new_pose();
    bw_graph_cursor *old = old_mid_transition(&go, BW_EASE_QUAD, &out);
    CHECK_NEAR(out.joints[ROOT].t[0], 0.2421875f, tol);
    const bw_graph_state_desc st[2] = {{.name = "idle", .clip = IDLE}, {.name = "move", .clip = MOVE}};
    const bw_graph_transition_desc back = {.from = "move", .to = "idle", .has_exit_time = true, .exit_time = 5.0f};
    bw_graph_cursor *c = carried(old, &gn, st, 2, "idle", &back, 1, 0.25f);
    bw_graph_layer_status s = status(c, 0);
    CHECK(s.transition.active && !s.transition.frozen);
    CHECK_INT(s.transition.transition, -1);
    CHECK_INT(s.transition.from, 0);
    CHECK_NEAR(s.transition.duration, 0.5f, 0);
    CHECK_ROOT(c, &out, 0, 0.2421875f, 0.625f);
    CHECK_ROOT(c, &out, DT, 0.34375f, 2.5f);
    CHECK_ROOT(c, &out, DT, 0.4296875f, 5.625f);
    CHECK_ROOT(c, &out, DT, 0.5f, 10.0f);
    CHECK(!status(c, 0).transition.active);
    drop(c, gn);
    drop(old, go);
    bw_pose_deinit(&out);
}

/* The destination "move" is gone: the layer goes to its entry, "rest"
 * (RUN: y 30, x 2τ) at p 0, crossfading linearly over the 0.25 s fade
 * from the pose on screen (0.21875, 2.5). Next update: rest τ 0.125
 * (x 0.25), w 0.5: x = 0.5·0.21875 + 0.5·0.25 = 0.234375, y = 16.25; then
 * over: rest τ 0.25, x 0.5, y 30. */
static void destination_gone_should_crossfade_to_the_entry(void)
{
    bw_graph *go, *gn;
    bw_pose out = new_pose();
    bw_graph_cursor *old = old_mid_transition(&go, BW_EASE_LINEAR, &out);
    const bw_graph_state_desc st[2] = {{.name = "rest", .clip = RUN}, {.name = "idle", .clip = IDLE}};
    bw_graph_cursor *c = carried(old, &gn, st, 2, "rest", NULL, 0, 0.25f);
    bw_graph_layer_status s = status(c, 0);
    CHECK_INT(s.state, 0);
    CHECK_NEAR(s.progress, 0.0, 0);
    CHECK(s.transition.active && s.transition.frozen);
    CHECK_INT(s.transition.transition, -1);
    CHECK_INT(s.transition.from, -1);
    CHECK_NEAR(s.transition.duration, 0.25f, 0);
    CHECK_ROOT(c, &out, 0, 0.21875f, 2.5f);
    CHECK_ROOT(c, &out, DT, 0.234375f, 16.25f);
    CHECK_ROOT(c, &out, DT, 0.5f, 30.0f);
    CHECK(!status(c, 0).transition.active);
    drop(c, gn);

    /* fade 0: the entry at once */
    c = carried(old, &gn, st, 2, "rest", NULL, 0, 0.0f);
    CHECK(!status(c, 0).transition.active);
    CHECK_ROOT(c, &out, 0, 0.0f, 30.0f);
    drop(c, gn);
    drop(old, go);
    bw_pose_deinit(&out);
}

/* The live source "idle" is gone: the destination goes on (move p 0.0625)
 * and the layer fades from the pose on screen over 0.25 s. Next update:
 * move τ 0.25, w 0.5: x = 0.5·0.21875 + 0.5·0.25 = 0.234375, y = 6.25;
 * then move alone at τ 0.375. */
static void source_gone_should_let_the_destination_continue(void)
{
    bw_graph *go, *gn;
    bw_pose out = new_pose();
    bw_graph_cursor *old = old_mid_transition(&go, BW_EASE_LINEAR, &out);
    const bw_graph_state_desc st[1] = {{.name = "move", .clip = MOVE}};
    bw_graph_cursor *c = carried(old, &gn, st, 1, "move", NULL, 0, 0.25f);
    bw_graph_layer_status s = status(c, 0);
    CHECK_INT(s.state, 0);
    CHECK_NEAR(s.progress, 0.0625, 1e-9);
    CHECK(s.transition.active && s.transition.frozen);
    CHECK_INT(s.transition.source_state, -1);
    CHECK_ROOT(c, &out, 0, 0.21875f, 2.5f);
    CHECK_ROOT(c, &out, DT, 0.234375f, 6.25f);
    CHECK_ROOT(c, &out, DT, 0.375f, 10.0f);
    drop(c, gn);
    drop(old, go);
    bw_pose_deinit(&out);
}

/* A steady layer: idle at τ 0.25 (x 0.25, y 0). Unchanged: no fade. The
 * same state name now plays RUN (y 30, x 2τ at the carried p 0.25): the
 * layer fades from the old pose over 0.25 s: x 0.25 at once; next update
 * RUN τ 0.375 (x 0.75), w 0.5: x = 0.5·0.25 + 0.5·0.75 = 0.5, y = 15. */
static void steady_layer_should_fade_only_when_its_state_changed(void)
{
    const bw_graph_state_desc st[2] = {{.name = "idle", .clip = IDLE}, {.name = "move", .clip = MOVE}};
    bw_graph_layer_desc l = layer("base", "idle", st, 2, NULL, 0);
    bw_graph *go = compile_layers(&l, 1), *gn;
    bw_graph_cursor *old = cursor_for(go, NULL);
    bw_pose out = new_pose();
    CHECK_ROOT(old, &out, DT, 0.125f, 0.0f);
    CHECK_ROOT(old, &out, DT, 0.25f, 0.0f);
    bw_graph_cursor *c = carried(old, &gn, st, 2, "idle", NULL, 0, 0.25f);
    CHECK(!status(c, 0).transition.active);
    CHECK_NEAR(status(c, 0).progress, 0.25, 1e-9);
    CHECK_ROOT(c, &out, DT, 0.375f, 0.0f);
    drop(c, gn);

    const bw_graph_state_desc changed[2] = {{.name = "idle", .clip = RUN}, {.name = "move", .clip = MOVE}};
    c = carried(old, &gn, changed, 2, "idle", NULL, 0, 0.25f);
    bw_graph_layer_status s = status(c, 0);
    CHECK(s.transition.active && s.transition.frozen);
    CHECK_INT(s.transition.transition, -1);
    CHECK_ROOT(c, &out, 0, 0.25f, 0.0f);
    CHECK_ROOT(c, &out, DT, 0.5f, 15.0f);
    drop(c, gn);

    /* fade 0: the new clip at once */
    c = carried(old, &gn, changed, 2, "idle", NULL, 0, 0.0f);
    CHECK(!status(c, 0).transition.active);
    CHECK_ROOT(c, &out, 0, 0.5f, 30.0f);
    drop(c, gn);
    drop(old, go);
    bw_pose_deinit(&out);
}

/* An additive layer whose state keeps its clip but now measures against
 * the rest pose instead of its clip at 0 (arm (0, 1, 0)): the plays are
 * the same, the delta is not, so the layer fades. Old, after 0.25 s: a at
 * τ 0.25, arm (0.25, 1, 0) minus (0, 1, 0): the arm shows (0.25, 0, 0)
 * over its rest (0). Carried with a 0.25 s fade: that at once; next update
 * (τ 0.375, w 0.5) the plays (0.3125, 1, 0) against the references mixed
 * alike, 0.5·(0, 1, 0) + 0.5·(0, 0, 0): the arm shows (0.3125, 0.5, 0);
 * then the new delta alone at τ 0.5: (0.5, 1, 0). */
static void steady_additive_layer_should_fade_when_its_reference_changed(void)
{
    const bw_graph_state_desc base[1] = {{.name = "idle", .clip = IDLE}};
    bw_graph_state_desc add[1] = {{.name = "a", .clip = ARMA}};
    bw_graph_layer_desc layers[2] = {layer("base", "idle", base, 1, NULL, 0), layer("wave", "a", add, 1, NULL, 0)};
    layers[1].mode = BW_GRAPH_ADDITIVE;
    bw_graph *go = compile_layers(layers, 2);
    add[0].reference.kind = BW_GRAPH_REF_REST;
    bw_graph *gn = compile_layers(layers, 2);
    bw_graph_cursor *old = cursor_for(go, NULL), *c = cursor_for(gn, NULL);
    bw_pose out = new_pose();
    bw_graph_cursor_update(old, 0.25f);
    CHECK_INT(bw_graph_cursor_evaluate(old, NULL, &out), BW_OK);
    CHECK_NEAR(out.joints[ARM].t[0], 0.25f, tol);
    CHECK_NEAR(out.joints[ARM].t[1], 0.0f, tol);
    CHECK_INT(bw_graph_cursor_carry_over(c, old, 0.25f), BW_OK);
    CHECK(!status(c, 0).transition.active); /* the base layer shows the same */
    CHECK(status(c, 1).transition.active && status(c, 1).transition.frozen);
    const float want[3][2] = {{0.25f, 0.0f}, {0.3125f, 0.5f}, {0.5f, 1.0f}};
    for (int f = 0; f < 3; f++) {
        if (f) bw_graph_cursor_update(c, DT);
        CHECK_INT(bw_graph_cursor_evaluate(c, NULL, &out), BW_OK);
        CHECK_NEAR(out.joints[ARM].t[0], want[f][0], tol);
        CHECK_NEAR(out.joints[ARM].t[1], want[f][1], tol);
    }
    drop(c, gn);
    drop(old, go);
    bw_pose_deinit(&out);
}

/* A freeze fade of the old graph whose source state is gone still carries
 * (its source is the snapshot, not a state): "*" -> jump on hop from idle
 * at τ 0.125 (x 0.125, y 0). u2: jump τ 0.125, w 0.25: x = 0.75·0.125 +
 * 0.25·0.125 = 0.125, y = 5. The new graph has only jump: the fade goes on
 * (transition -1, the old 0.5 s). u3: jump τ 0.25, w 0.5: x = 0.5·0.125 +
 * 0.5·0.25 = 0.1875, y = 10. */
static void frozen_fade_should_carry_without_its_source_state(void)
{
    const bw_graph_state_desc st[2] = {{.name = "idle", .clip = IDLE}, {.name = "jump", .clip = JUMP}};
    const bw_graph_transition_desc tr = {.from = "*",
                                         .to = "jump",
                                         .conditions = &when_hop,
                                         .condition_count = 1,
                                         .duration = 0.5f,
                                         .mode = BW_GRAPH_FREEZE};
    bw_graph_layer_desc l = layer("base", "idle", st, 2, &tr, 1);
    bw_graph *go = compile_layers(&l, 1), *gn;
    bw_graph_cursor *old = cursor_for(go, NULL);
    bw_pose out = new_pose();
    CHECK_ROOT(old, &out, DT, 0.125f, 0.0f);
    bw_graph_cursor_fire(old, HOP);
    CHECK_ROOT(old, &out, DT, 0.125f, 0.0f); /* fired: w 0, the snapshot */
    CHECK_ROOT(old, &out, DT, 0.125f, 5.0f);
    const bw_graph_state_desc only[1] = {{.name = "jump", .clip = JUMP}};
    bw_graph_cursor *c = carried(old, &gn, only, 1, "jump", NULL, 0, 0.0f);
    bw_graph_layer_status s = status(c, 0);
    CHECK(s.transition.active && s.transition.frozen);
    CHECK_INT(s.transition.transition, -1);
    CHECK_INT(s.transition.from, -1);
    CHECK_NEAR(s.transition.elapsed, 0.125f, 0);
    CHECK_NEAR(s.transition.duration, 0.5f, 0);
    CHECK_ROOT(c, &out, 0, 0.125f, 5.0f);
    CHECK_ROOT(c, &out, DT, 0.1875f, 10.0f);
    drop(c, gn);
    drop(old, go);
    bw_pose_deinit(&out);
}

/* The base layer alone, after travel to jump (fired in update 1, p 0)
 * and then to move (jump -> idle -> move, both queued), and update 2:
 * jump at p 0.125; its exit gate opens in update 9. */
static bw_graph_cursor *old_travelling(bw_graph **g, bw_pose *out)
{
    bw_graph_layer_desc l = layer("base", "idle", base_states, 3, base_transitions, 3);
    *g = compile_layers(&l, 1);
    bw_graph_cursor *c = cursor_for(*g, NULL);
    CHECK_INT(bw_graph_cursor_travel(c, 0, 2), BW_OK);
    bw_graph_cursor_update(c, DT);
    CHECK_INT(bw_graph_cursor_travel(c, 0, 1), BW_OK);
    bw_graph_cursor_update(c, DT);
    CHECK_INT(bw_graph_cursor_travel_pending(c, 0), 2);
    CHECK_INT(bw_graph_cursor_evaluate(c, NULL, out), BW_OK);
    return c;
}

/* Update `c` n times; then its base layer's current state's name. */
static const char *state_after(bw_graph_cursor *c, int n)
{
    for (int i = 0; i < n; i++) bw_graph_cursor_update(c, DT);
    const bw_graph *g = bw_graph_cursor_graph(c);
    return bw_graph_state_name(g, 0, status(c, 0).state);
}

static void queued_travel_should_reach_its_destination_in_the_edited_graph(void)
{
    bw_graph *go, *gn;
    bw_pose out = new_pose();
    bw_graph_cursor *old = old_travelling(&go, &out);

    /* reordered states and transitions, one more state: the same two
     * edges by name (jump -> idle in update 9, idle -> move in 10) */
    const bw_graph_state_desc st1[4] = {{.name = "run", .clip = RUN},
                                        {.name = "jump", .clip = JUMP},
                                        {.name = "move", .clip = MOVE},
                                        {.name = "idle", .clip = IDLE}};
    const bw_graph_transition_desc tr1[4] = {base_transitions[2], base_transitions[1],
                                             {.from = "run", .to = "idle", .duration = 0.25f}, base_transitions[0]};
    bw_graph_cursor *c = carried(old, &gn, st1, 4, "idle", tr1, 4, 0.25f);
    CHECK_INT(bw_graph_cursor_travel_pending(c, 0), 2);
    CHECK_STR(state_after(c, 6), "jump");
    CHECK_STR(state_after(c, 1), "idle");
    CHECK_INT(bw_graph_cursor_travel_pending(c, 0), 1);
    CHECK_STR(state_after(c, 1), "move");
    CHECK_INT(bw_graph_cursor_travel_pending(c, 0), 0);
    drop(c, gn);

    /* the old edges still chain although a direct jump -> move (exit time
     * 1) would now be shorter: the queued edges are kept (idle in update
     * 9, move in 10), not replaced by the new shortest route */
    const bw_graph_transition_desc tr_short[4] = {
        base_transitions[0], base_transitions[1], base_transitions[2],
        {.from = "jump", .to = "move", .has_exit_time = true, .exit_time = 1.0f, .duration = 0.5f}};
    c = carried(old, &gn, base_states, 3, "idle", tr_short, 4, 0.25f);
    CHECK_INT(bw_graph_cursor_travel_pending(c, 0), 2);
    CHECK_STR(state_after(c, 7), "idle");
    CHECK_STR(state_after(c, 1), "move");
    drop(c, gn);

    /* jump -> idle is gone, jump -> move (exit time 1) is new: a new
     * route of one edge, firing when jump's gate opens in update 9 */
    const bw_graph_transition_desc tr2[2] = {
        base_transitions[0],
        {.from = "jump", .to = "move", .has_exit_time = true, .exit_time = 1.0f, .duration = 0.5f}};
    c = carried(old, &gn, base_states, 3, "idle", tr2, 2, 0.25f);
    CHECK_INT(bw_graph_cursor_travel_pending(c, 0), 1);
    CHECK_STR(state_after(c, 6), "jump");
    CHECK_STR(state_after(c, 1), "move");
    CHECK_INT(bw_graph_cursor_travel_pending(c, 0), 0);
    drop(c, gn);

    /* move is gone: nothing to travel to */
    const bw_graph_state_desc st3[2] = {{.name = "idle", .clip = IDLE}, {.name = "jump", .clip = JUMP}};
    c = carried(old, &gn, st3, 2, "idle", base_transitions + 1, 2, 0.25f);
    CHECK_INT(bw_graph_cursor_travel_pending(c, 0), 0);
    CHECK_STR(state_after(c, 7), "idle"); /* jump -> idle by its own exit time */
    drop(c, gn);

    /* jump (the current state) is gone: the layer restarts at its entry
     * and travels from there (idle -> move fires in the next update) */
    c = carried(old, &gn, base_states, 2, "idle", base_transitions, 1, 0.25f);
    CHECK_STR(state_after(c, 0), "idle");
    CHECK_INT(bw_graph_cursor_travel_pending(c, 0), 1);
    CHECK_STR(state_after(c, 1), "move");
    CHECK_INT(bw_graph_cursor_travel_pending(c, 0), 0);
    drop(c, gn);

    /* move is there but cannot be reached (no edge into it) */
    c = carried(old, &gn, base_states, 3, "idle", base_transitions + 1, 2, 0.25f);
    CHECK_INT(bw_graph_cursor_travel_pending(c, 0), 0);
    drop(c, gn);
    drop(old, go);
    bw_pose_deinit(&out);
}

/* The carry-over allocates nothing, and neither do the frames after it;
 * nor does carrying queued travel, as it is or on a new route. */
static void carry_over_and_the_frames_after_should_not_allocate(void)
{
    alloc_counter count = ALLOC_COUNTER(-1);
    bw_allocator a = {alloc_counter_fn, &count};
    bw_graph *ga = full_graph(), *gb = full_graph();
    bw_graph_cursor *old = cursor_for(ga, &a), *c = cursor_for(gb, &a);
    bw_pose out = new_pose();
    for (int f = 0; f < 2; f++) {
        go_and_wave(old, f);
        bw_graph_cursor_update(old, DT);
        bw_graph_cursor_evaluate(old, NULL, &out);
    }
    long before = count.allocations;
    CHECK_INT(bw_graph_cursor_carry_over(c, old, 0.25f), BW_OK);
    for (int f = 0; f < 30; f++) {
        if (f == 5) bw_graph_cursor_fire(c, HOP);
        bw_graph_cursor_update(c, DT);
        bw_graph_cursor_evaluate(c, NULL, &out);
        bw_graph_cursor_drain(c, NULL, NULL);
    }
    CHECK_INT(count.allocations, before);
    bw_graph_cursor_destroy(old);
    bw_graph_cursor_destroy(c);
    CHECK_INT(count.live_blocks, 0);
    bw_graph_destroy(ga);
    bw_graph_destroy(gb);

    /* queued travel: carried edge by edge into the same graph, and on a
     * new route into one without jump -> idle */
    bw_graph *go;
    old = old_travelling(&go, &out);
    bw_graph_layer_desc same = layer("base", "idle", base_states, 3, base_transitions, 3);
    const bw_graph_transition_desc direct[2] = {
        base_transitions[0],
        {.from = "jump", .to = "move", .has_exit_time = true, .exit_time = 1.0f, .duration = 0.5f}};
    bw_graph_layer_desc rerouted = layer("base", "idle", base_states, 3, direct, 2);
    const bw_graph_layer_desc *targets[2] = {&same, &rerouted};
    for (int k = 0; k < 2; k++) {
        bw_graph *gn = compile_layers(targets[k], 1);
        c = cursor_for(gn, &a);
        before = count.allocations;
        CHECK_INT(bw_graph_cursor_carry_over(c, old, 0.25f), BW_OK);
        CHECK_INT(bw_graph_cursor_travel_pending(c, 0), k == 0 ? 2 : 1);
        for (int f = 0; f < 10; f++) bw_graph_cursor_update(c, DT);
        CHECK_INT(count.allocations, before);
        CHECK_STR(bw_graph_state_name(gn, 0, status(c, 0).state), "move");
        drop(c, gn);
    }
    drop(old, go);
    bw_pose_deinit(&out);
}

static void bad_arguments_should_change_nothing(void)
{
    bw_graph *g = full_graph();
    bw_graph_cursor *a = cursor_for(g, NULL), *b = cursor_for(g, NULL);
    bw_graph_cursor_set_param(a, GO, 1);
    CHECK_INT(bw_graph_cursor_carry_over(b, a, NAN), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_graph_cursor_carry_over(b, a, INFINITY), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_graph_cursor_carry_over(b, a, -0.5f), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_graph_cursor_carry_over(b, NULL, 0), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_graph_cursor_carry_over(a, a, 0), BW_ERR_INVALID_ARGUMENT);
    CHECK_NEAR(bw_graph_cursor_param(b, GO), 0.0f, 0);
    bw_graph_cursor_destroy(a);
    drop(b, g);
}

int main(void)
{
    make_world();
    RUN(reload_mid_live_transition_should_match_no_reload);
    RUN(reload_mid_freeze_transition_on_an_additive_layer_should_match_no_reload);
    RUN(reload_every_frame_should_match_no_reload);
    RUN(reload_mid_interruption_should_match_no_reload);
    RUN(reload_mid_curved_live_transition_should_match_no_reload);
    RUN(reload_with_travel_queued_should_match_no_reload);
    RUN(new_duration_should_apply_to_the_running_transition);
    RUN(a_carried_fade_at_sixty_hertz_should_end_on_time);
    RUN(new_freeze_mode_should_stop_the_live_source);
    RUN(transition_gone_should_keep_the_old_duration_and_curve);
    RUN(destination_gone_should_crossfade_to_the_entry);
    RUN(source_gone_should_let_the_destination_continue);
    RUN(steady_layer_should_fade_only_when_its_state_changed);
    RUN(steady_additive_layer_should_fade_when_its_reference_changed);
    RUN(frozen_fade_should_carry_without_its_source_state);
    RUN(queued_travel_should_reach_its_destination_in_the_edited_graph);
    RUN(carry_over_and_the_frames_after_should_not_allocate);
    RUN(bad_arguments_should_change_nothing);
    free_world();
    return check_summary();
}
