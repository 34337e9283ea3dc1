/* test_animator.c - the character animator (SPEC §9; include/blendwerk/animator.h).
 *
 * Rig: root -> spine -> neck_01 -> neck_02 -> head, every rest the identity
 * (so the default chain 0.25 / 0.25 / 0.5 applies and the head sits at the
 * origin of the character frame).
 * Clips (spine translation x, linear from x0 at 0 to x1 at the length):
 *   IDLE  2.0 s loop  x 0 -> 0      WALK 1.0 s loop  x 0 -> 1
 *   RUN   0.6 s loop  x 0 -> 2      WAVE 1.0 s once  head y 0 -> 2 (gesture)
 *   NOD   1.0 s once  head x 0 -> 1 (gesture)
 *   FACE  2.0 s loop  float jawOpen: 0.2 at 0, 0.6 at 1 (an ARKit face clip)
 * Every expected number is worked out in the comment above its check. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "blendwerk/blendwerk.h"
#include "check.h"
#include "fixtures.h"
#include "test_alloc_counter.h"

#define TOL 1e-5

enum { ROOT, SPINE, NECK1, NECK2, HEAD, JOINTS };
static const char *const joint_names[JOINTS] = {"root", "spine", "neck_01", "neck_02", "head"};
static const int joint_parents[JOINTS] = {-1, ROOT, SPINE, NECK1, NECK2};

enum { IDLE, WALK, RUN, WAVE, NOD, FACE, CLIPS };
static const char *const clip_names[CLIPS] = {"idle", "walk", "run", "wave", "nod", "face"};

static bw_rig *rig;
static bw_clip *clips[CLIPS];

static bw_clip *translation_clip(int joint, int axis, float length, bool loop, float v1)
{
    float times[2] = {0.0f, length};
    float values[6] = {0};
    values[3 + axis] = v1;
    bw_track_desc t = {joint_parents[joint] < 0 ? "" : joint_names[joint_parents[joint]], joint_names[joint],
                       BW_CHANNEL_TRANSLATION,
                       BW_INTERP_EASED, 2, times, values, NULL, NULL};
    bw_clip_desc d = {0};
    d.tracks = &t;
    d.track_count = 1;
    d.length = length;
    d.loop = loop;
    return fixture_clip_desc(&d);
}

static void setup(void)
{
    rig = fixture_rig(joint_names, joint_parents, JOINTS);
    clips[IDLE] = translation_clip(SPINE, 0, 2.0f, true, 0.0f);
    clips[WALK] = translation_clip(SPINE, 0, 1.0f, true, 1.0f);
    clips[RUN] = translation_clip(SPINE, 0, 0.6f, true, 2.0f);
    clips[WAVE] = translation_clip(HEAD, 1, 1.0f, false, 2.0f);
    clips[NOD] = translation_clip(HEAD, 0, 1.0f, false, 1.0f);
    float times[2] = {0.0f, 1.0f}, values[2] = {0.2f, 0.6f};
    bw_track_desc t = {NULL, "jawOpen", BW_CHANNEL_FLOAT, BW_INTERP_EASED, 2, times, values, NULL, NULL};
    bw_clip_desc d = {0};
    d.tracks = &t;
    d.track_count = 1;
    d.length = 2.0f;
    d.loop = true;
    clips[FACE] = fixture_clip_desc(&d);
}

static void teardown(void)
{
    for (int i = 0; i < CLIPS; i++) bw_clip_destroy(clips[i]);
    bw_rig_destroy(rig);
}

static const bw_locomotion_entry loco3[] = {{IDLE, 0.0f}, {WALK, 1.5f}, {RUN, 4.0f}};
static const int gestures[] = {WAVE, NOD};
static const int faces[] = {FACE};

static bw_animator_desc base_desc(void)
{
    bw_animator_desc d = {0};
    d.rig = rig;
    d.clips = (const bw_clip *const *)clips;
    d.clip_names = clip_names;
    d.clip_count = CLIPS;
    d.locomotion = loco3;
    d.locomotion_count = 3;
    d.gesture_clips = gestures;
    d.gesture_clip_count = 2;
    d.face_clips = faces;
    d.face_clip_count = 1;
    d.blink.disabled = true;
    return d;
}

static bw_animator *make(const bw_animator_desc *d)
{
    bw_animator *a = NULL;
    bw_error e[4];
    bw_animator_errors errs = {e, 4, 0};
    bw_result r = bw_animator_create(d, &a, &errs);
    if (r != BW_OK) fprintf(stderr, "animator: %s: %s\n", e[0].where, e[0].message);
    CHECK_INT(r, BW_OK);
    return a;
}

/* The play of `clip` in the last update, or NULL. */
static const bw_animator_play *play_of(const bw_animator *a, int clip)
{
    int n = 0;
    const bw_animator_play *p = bw_animator_plays(a, &n);
    for (int i = 0; i < n; i++)
        if (p[i].clip == clip) return &p[i];
    return NULL;
}

static void locomotion_blends_by_planar_speed_with_exact_weights_and_rates(void)
{
    bw_animator_desc d = base_desc();
    bw_animator *a = make(&d);
    CHECK_INT(bw_animator_find_clip(a, "walk"), WALK);
    CHECK_INT(bw_animator_find_clip(a, "wlak"), -1);
    /* Between: |(1.65, 2.2)| = sqrt(2.7225 + 4.84) = 2.75 (vy = 3 ignored):
     * walk (4 − 2.75) / 2.5 = 0.5, run 0.5, both rate 1. Cycle (SPEC §6)
     * = 0.5 × 1.0 + 0.5 × 0.6 = 0.8 s, so dt 0.2 gives phase 0.25: walk at
     * 0.25 s (x 0.25), run at 0.15 s (x 2 × 0.15 / 0.6 = 0.5); spine x =
     * 0.5 × 0.25 + 0.5 × 0.5 = 0.375. */
    bw_character_state s = {.velocity = {1.65f, 3.0f, 2.2f}};
    CHECK_INT(bw_animator_update(a, 0.2f, &s, NULL), BW_OK);
    int n = 0;
    bw_animator_plays(a, &n);
    CHECK_INT(n, 2);
    const bw_animator_play *w = play_of(a, WALK), *r = play_of(a, RUN);
    CHECK(w && r);
    if (w && r) {
        CHECK_NEAR(w->weight, 0.5, TOL);
        CHECK_NEAR(r->weight, 0.5, TOL);
        CHECK_NEAR(w->rate, 1.0, TOL);
        CHECK_NEAR(r->rate, 1.0, TOL);
        CHECK_NEAR(w->time, 0.25, TOL);
        CHECK_NEAR(r->time, 0.15, TOL);
    }
    CHECK_NEAR(bw_animator_pose(a)->joints[SPINE].t[0], 0.375, TOL);
    bw_animator_destroy(a);

    /* Above: 6 m/s on a 4 m/s run: run alone at rate 6 / 4 = 1.5; cycle
     * 0.6 / 1.5 = 0.4 s, dt 0.2 -> phase 0.5 -> 0.3 s, spine x = 1.0. */
    a = make(&d);
    s = (bw_character_state){.velocity = {0.0f, 0.0f, -6.0f}};
    bw_animator_update(a, 0.2f, &s, NULL);
    bw_animator_plays(a, &n);
    CHECK_INT(n, 1);
    r = play_of(a, RUN);
    CHECK(r != NULL);
    if (r) {
        CHECK_NEAR(r->weight, 1.0, TOL);
        CHECK_NEAR(r->rate, 1.5, TOL);
        CHECK_NEAR(r->time, 0.3, TOL);
    }
    CHECK_NEAR(bw_animator_pose(a)->joints[SPINE].t[0], 1.0, TOL);
    bw_animator_destroy(a);

    /* Below: locomotion {walk 1.5, run 4} at 0.75 m/s: walk alone at
     * 0.75 / 1.5 = 0.5×; cycle 2 s, dt 0.2 -> phase 0.1 -> 0.1 s. */
    const bw_locomotion_entry loco2[] = {{RUN, 4.0f}, {WALK, 1.5f}}; /* any order */
    d.locomotion = loco2;
    d.locomotion_count = 2;
    a = make(&d);
    s = (bw_character_state){.velocity = {0.75f, 0.0f, 0.0f}};
    bw_animator_update(a, 0.2f, &s, NULL);
    w = play_of(a, WALK);
    CHECK(w != NULL);
    if (w) {
        CHECK_NEAR(w->weight, 1.0, TOL);
        CHECK_NEAR(w->rate, 0.5, TOL);
        CHECK_NEAR(w->time, 0.1, TOL);
    }
    CHECK(play_of(a, RUN) == NULL);
    bw_animator_destroy(a);
}

/* An animator over one clip, its only locomotion entry, authored at 1.5 m/s. */
static bw_animator *one_clip_animator(const bw_clip *clip)
{
    static const bw_clip *list[1];
    static const bw_locomotion_entry loco[1] = {{0, 1.5f}};
    list[0] = clip;
    bw_animator_desc d = {0};
    d.rig = rig;
    d.clips = list;
    d.clip_count = 1;
    d.locomotion = loco;
    d.locomotion_count = 1;
    d.blink.disabled = true;
    return make(&d);
}

static void root_motion_comes_through_the_extractor_and_leaves_the_pose(void)
{
    /* One locomotion clip, authored at 1.5 m/s: root z 0 -> 1.5 over 1 s.
     * At 1.5 m/s, dt 0.25: the root travels 1.5 × 0.25 = 0.375 in z, the
     * delta reports it and the pose's root keeps no horizontal travel. */
    bw_clip *walk = translation_clip(ROOT, 2, 1.0f, true, 1.5f);
    bw_animator *a = one_clip_animator(walk);
    bw_character_state s = {.velocity = {0.0f, 0.0f, 1.5f}};
    bw_animator_update(a, 0.25f, &s, NULL);
    const bw_root_delta *rm = bw_animator_root_motion(a);
    CHECK_NEAR(rm->t[2], 0.375, TOL);
    CHECK_NEAR(rm->t[0], 0.0, TOL);
    CHECK_NEAR(rm->yaw, 0.0, TOL);
    CHECK_NEAR(bw_animator_pose(a)->joints[ROOT].t[2], 0.0, TOL);
    /* dt 0.5 twice: t 0.25 -> 0.75 -> 1.25 (across the loop): 0.75 forward
     * each, never a jump back at the wrap */
    bw_animator_update(a, 0.5f, &s, NULL);
    bw_animator_update(a, 0.5f, &s, NULL);
    CHECK_NEAR(bw_animator_root_motion(a)->t[2], 0.75, TOL);
    /* A huge dt is not clamped (animator.h): from 0.25 s into the cycle,
     * dt 1e30 at rate 1 runs to the end (0.75 × 1.5 = 1.125 m), then whole
     * cycles, capped at 2^20 (2^20 × 1.5 m), then the rest of its last
     * cycle: none, as 0.25 + 1e30f rounds (in double) to 1e30f, an integer
     * number of cycles. Total 1.125 + 1572864 = 1572865.125 m. */
    bw_animator_update(a, 1e30f, &s, NULL);
    CHECK_NEAR(bw_animator_root_motion(a)->t[2], 1572865.125, 1e-3);
    CHECK_NEAR(bw_animator_root_motion(a)->t[0], 0.0, TOL);
    bw_animator_destroy(a);
    bw_clip_destroy(walk);
}

static void the_base_reports_the_markers_its_dominant_play_crosses(void)
{
    /* A 1 s looping step clip with marker "foot" at 0.5 s, authored at
     * 1.5 m/s and played at 1.5 m/s (rate 1). Steps of 0.25 s cross 0.5 in
     * updates 2 ((0.25, 0.5]) and 6 ((1.25, 1.5], after the wrap); no other. */
    float times[2] = {0.0f, 1.0f}, values[6] = {0, 0, 0, 1, 0, 0};
    bw_track_desc t = {"root", "spine", BW_CHANNEL_TRANSLATION, BW_INTERP_EASED, 2, times, values, NULL, NULL};
    bw_marker_desc marker = {"foot", 0.5f};
    bw_clip_desc cd = {0};
    cd.tracks = &t;
    cd.track_count = 1;
    cd.markers = &marker;
    cd.marker_count = 1;
    cd.length = 1.0f;
    cd.loop = true;
    bw_clip *step = fixture_clip_desc(&cd);
    bw_animator *a = one_clip_animator(step);
    bw_character_state s = {.velocity = {1.5f, 0.0f, 0.0f}};
    int fired[8] = {0};
    for (int k = 0; k < 8; k++) {
        bw_animator_update(a, 0.25f, &s, NULL);
        int n = 0;
        const bw_animator_event *ev = bw_animator_events(a, &n);
        for (int i = 0; i < n; i++)
            if (ev[i].kind == BW_ANIMATOR_EVENT_MARKER) {
                fired[k]++;
                CHECK_STR(ev[i].name, "foot");
                CHECK_NEAR(ev[i].time, 0.5, TOL);
                CHECK_INT(ev[i].clip, 0);
            }
    }
    const int expect[8] = {0, 1, 0, 0, 0, 1, 0, 0};
    for (int k = 0; k < 8; k++) CHECK_INT(fired[k], expect[k]);
    /* A finite but huge step (1e30 s: past 2^53 cycles, where k + 1 == k)
     * returns, with at most the 4 cycles' markers the walk reports (it
     * hung before its passes were counted). */
    bw_animator_update(a, 1e30f, &s, NULL);
    int huge = 0;
    bw_animator_events(a, &huge);
    CHECK(huge <= 5);
    /* Explicit weights: the clip on its own clock, one 2.6 s step from 0
     * crosses 0.5, 1.5 and 2.5: three events. */
    float w[1] = {1.0f};
    s.clip_weights = w;
    s.clip_weight_count = 1;
    bw_animator_update(a, 2.6f, &s, NULL);
    int n = 0;
    bw_animator_events(a, &n);
    CHECK_INT(n, 3);
    bw_animator_destroy(a);
    bw_clip_destroy(step);
}

static void vertical_velocity_leaves_the_character_idle(void)
{
    bw_animator_desc d = base_desc();
    bw_animator *a = make(&d);
    /* velocity (0, 5, 0): planar speed 0 -> idle alone at rate 1 (an entry
     * authored at 0 m/s is never rate-scaled). */
    bw_character_state s = {.velocity = {0.0f, 5.0f, 0.0f}};
    bw_animator_update(a, 0.5f, &s, NULL);
    int n = 0;
    bw_animator_plays(a, &n);
    CHECK_INT(n, 1);
    const bw_animator_play *p = play_of(a, IDLE);
    CHECK(p != NULL);
    if (p) {
        CHECK_NEAR(p->weight, 1.0, TOL);
        CHECK_NEAR(p->rate, 1.0, TOL);
        CHECK_NEAR(p->time, 0.5, TOL);
    }
    bw_animator_destroy(a);
}

static void explicit_clip_weights_override_locomotion(void)
{
    bw_animator_desc d = base_desc();
    bw_animator *a = make(&d);
    /* clips {walk 0.25, run 0.75} at 3 m/s: the weights decide, each clip
     * at rate 1 on its own clock: after 0.3 s walk x 0.3, run x 2 × 0.3 /
     * 0.6 = 1.0; spine x = 0.25 × 0.3 + 0.75 × 1.0 = 0.825. */
    float w[CLIPS] = {0, 0.25f, 0.75f, 0, 0, 0};
    bw_character_state s = {.velocity = {3.0f, 0.0f, 0.0f}};
    s.clip_weights = w;
    s.clip_weight_count = CLIPS;
    bw_animator_update(a, 0.3f, &s, NULL);
    CHECK_NEAR(bw_animator_pose(a)->joints[SPINE].t[0], 0.825, TOL);
    const bw_animator_play *p = play_of(a, RUN);
    CHECK(p && fabsf(p->weight - 0.75f) < 1e-6f && fabsf(p->time - 0.3f) < 1e-6f);
    bw_animator_destroy(a);
}

static void gesture_envelope_follows_each_curve(void)
{
    /* duration 1, fade_in 0.25, fade_out 0.5: u = min(t / 0.25, (1 − t) / 0.5, 1),
     * weight = ease(curve, in_out, u). */
    bw_gesture_desc g = {1.0f, 0.25f, 0.5f, BW_EASE_LINEAR, NULL, NULL};
    /* linear: t 0.125 -> 0.5; 0.5 -> 1; 0.75 -> 0.5; 0.875 -> 0.25; outside -> 0 */
    CHECK_NEAR(bw_gesture_envelope(&g, 0.125f), 0.5, TOL);
    CHECK_NEAR(bw_gesture_envelope(&g, 0.5f), 1.0, TOL);
    CHECK_NEAR(bw_gesture_envelope(&g, 0.75f), 0.5, TOL);
    CHECK_NEAR(bw_gesture_envelope(&g, 0.875f), 0.25, TOL);
    CHECK_NEAR(bw_gesture_envelope(&g, 1.5f), 0.0, TOL);
    CHECK_NEAR(bw_gesture_envelope(&g, -0.1f), 0.0, TOL);
    /* t 0.0625 -> u 0.25: sine in_out (1 − cos(π/4)) / 2 = 0.1464466; quad
     * in_out 2u² = 0.125; cubic 4u³ = 0.0625; constant 0 (a step at u = 1);
     * every curve reaches 1 in the hold. */
    const bw_ease_style styles[] = {BW_EASE_SINE, BW_EASE_QUAD, BW_EASE_CUBIC, BW_EASE_CONSTANT};
    const double at_quarter[] = {0.14644661, 0.125, 0.0625, 0.0};
    for (int i = 0; i < 4; i++) {
        g.curve = styles[i];
        CHECK_NEAR(bw_gesture_envelope(&g, 0.0625f), at_quarter[i], TOL);
        CHECK_NEAR(bw_gesture_envelope(&g, 0.5f), 1.0, TOL);
        /* fade-out u = (1 − 0.875) / 0.5 = 0.25: the same value mirrored */
        CHECK_NEAR(bw_gesture_envelope(&g, 0.875f), at_quarter[i], TOL);
    }

    /* Through the animator (no locomotion speed -> idle, which keys only the
     * spine): WAVE's head y = 2t against its reference 0 at t = 0, so
     * head y = w(t) × 2t. dt 0.125: t 0.125 -> 0.5 × 0.25 = 0.125; t 0.5 ->
     * 1 × 1 = 1; t 0.75 -> 0.5 × 1.5 = 0.75; t 1.0 ends: 0, one GESTURE_END
     * (in that last update's events). */
    bw_animator_desc d = base_desc();
    bw_animator *a = make(&d);
    g.curve = BW_EASE_LINEAR;
    CHECK_INT(bw_animator_gesture(a, WAVE, &g), BW_OK);
    CHECK_INT(bw_animator_gesture(a, WALK, &g), BW_ERR_RANGE); /* not a gesture clip */
    bw_character_state s = {.velocity = {0}};
    /* t = 0.125 k: weights 0.5, 1, 1, 1, 0.75, 0.5, 0.25 (t 0.875), then ended */
    const double weight[8] = {0.5, 1.0, 1.0, 1.0, 0.75, 0.5, 0.25, 0.0};
    for (int k = 0; k < 8; k++) {
        bw_animator_update(a, 0.125f, &s, NULL);
        double t = 0.125 * (k + 1);
        CHECK_NEAR(bw_animator_gesture_weight(a), weight[k], TOL);
        CHECK_NEAR(bw_animator_pose(a)->joints[HEAD].t[1], k < 7 ? weight[k] * 2.0 * t : 0.0, TOL);
    }
    int n = 0;
    const bw_animator_event *ev = bw_animator_events(a, &n);
    CHECK_INT(n, 1);
    if (n == 1) {
        CHECK_INT(ev[0].kind, BW_ANIMATOR_EVENT_GESTURE_END);
        CHECK_INT(ev[0].clip, WAVE);
    }
    bw_animator_destroy(a);
}

static void a_new_gesture_replaces_the_old_one_smoothly(void)
{
    bw_animator_desc d = base_desc();
    bw_animator *a = make(&d);
    bw_character_state s = {.velocity = {0}};
    /* WAVE, duration 2, no fades: weight 1 throughout. Two updates: t 0.25. */
    bw_gesture_desc wave = {2.0f, 0.0f, 0.0f, BW_EASE_LINEAR, NULL, NULL};
    bw_animator_gesture(a, WAVE, &wave);
    bw_animator_update(a, 0.125f, &s, NULL);
    bw_animator_update(a, 0.125f, &s, NULL);
    CHECK_NEAR(bw_animator_pose(a)->joints[HEAD].t[1], 0.5, TOL);
    /* NOD replaces it with fade_in 0.5: WAVE keeps its weight 1, scaled by
     * 1 − elapsed / 0.5, and still plays (clip time t). Update k = 1..4:
     *   WAVE t = 0.25 + 0.125 k, scale 1 − 0.25 k: head y = 2t × scale
     *        k 1: 0.75 × 0.75 = 0.5625; k 2: 1.0 × 0.5 = 0.5; k 3: 1.25 × 0.25
     *        = 0.3125; k 4: 0 (scale 0, gone)
     *   NOD t = 0.125 k, weight t / 0.5 (linear fade-in), head x = w × t:
     *        k 1: 0.25 × 0.125 = 0.03125; k 2: 0.5 × 0.25 = 0.125;
     *        k 3: 0.75 × 0.375 = 0.28125; k 4: 1 × 0.5 = 0.5 */
    bw_gesture_desc nod = {1.0f, 0.5f, 0.0f, BW_EASE_LINEAR, NULL, NULL};
    CHECK_INT(bw_animator_gesture(a, NOD, &nod), BW_OK);
    const double y[4] = {0.5625, 0.5, 0.3125, 0.0}, x[4] = {0.03125, 0.125, 0.28125, 0.5};
    const double out_w[4] = {0.75, 0.5, 0.25, 0.0};
    for (int k = 0; k < 4; k++) {
        bw_animator_update(a, 0.125f, &s, NULL);
        CHECK_NEAR(bw_animator_pose(a)->joints[HEAD].t[1], y[k], TOL);
        CHECK_NEAR(bw_animator_pose(a)->joints[HEAD].t[0], x[k], TOL);
        CHECK_NEAR(bw_animator_gesture_outgoing_weight(a), out_w[k], TOL);
    }
    bw_animator_destroy(a);
}

/* A 1 s gesture at 60 Hz ends on update 60: 60 × (1/60 as a float) is
 * 1.00000005 summed exactly, but a float running sum stays at 0.9999997
 * and the gesture ran one update longer. The same for the outgoing
 * slot's 1 s ramp after a replacement (of a gesture at weight 1): scale
 * 1 − 59 × 0.016666668 = 0.0166666 after 59 updates, gone after 60. */
static void a_gesture_at_sixty_hertz_ends_on_the_update_that_reaches_its_duration(void)
{
    bw_animator_desc d = base_desc();
    bw_animator *a = make(&d);
    bw_character_state s = {.velocity = {0}};
    const float dt = 1.0f / 60.0f;
    bw_gesture_desc wave = {1.0f, 0.0f, 0.0f, BW_EASE_LINEAR, NULL, NULL};
    CHECK_INT(bw_animator_gesture(a, WAVE, &wave), BW_OK);
    for (int k = 0; k < 59; k++) bw_animator_update(a, dt, &s, NULL);
    CHECK_NEAR(bw_animator_gesture_weight(a), 1.0, TOL);
    int n = 0;
    bw_animator_events(a, &n);
    CHECK_INT(n, 0);
    bw_animator_update(a, dt, &s, NULL); /* t = 1.00000005 */
    CHECK_NEAR(bw_animator_gesture_weight(a), 0.0, TOL);
    const bw_animator_event *ev = bw_animator_events(a, &n);
    CHECK_INT(n, 1);
    if (n == 1) CHECK_INT(ev[0].kind, BW_ANIMATOR_EVENT_GESTURE_END);
    /* WAVE for 2 s, replaced at once by NOD with a 1 s fade-in */
    wave.duration = 2.0f;
    CHECK_INT(bw_animator_gesture(a, WAVE, &wave), BW_OK);
    bw_animator_update(a, dt, &s, NULL); /* its weight 1, which the ramp scales */
    bw_gesture_desc nod = {2.0f, 1.0f, 0.0f, BW_EASE_LINEAR, NULL, NULL};
    CHECK_INT(bw_animator_gesture(a, NOD, &nod), BW_OK);
    for (int k = 0; k < 59; k++) bw_animator_update(a, dt, &s, NULL);
    CHECK_NEAR(bw_animator_gesture_outgoing_weight(a), 1.0 - 59.0 * (double)dt, 1e-6);
    bw_animator_update(a, dt, &s, NULL);
    CHECK_NEAR(bw_animator_gesture_outgoing_weight(a), 0.0, 0.0);
    bw_animator_destroy(a);
}

/* 68 dims: the 52 ARKit values, then jawOpen × 1 .. × 16. */
static void map68(void *user, const float *arkit, float *out, int dim)
{
    (*(int *)user)++;
    for (int i = 0; i < 52; i++) out[i] = arkit[i];
    for (int k = 0; k < dim - 52; k++) out[52 + k] = arkit[17] * (float)(k + 1);
}
/* 383 dims: out[i] = arkit[i mod 52] / 2. */
static void map383(void *user, const float *arkit, float *out, int dim)
{
    for (int i = 0; i < dim; i++) out[i] = 0.5f * arkit[i % 52];
}

static void face_maps_into_custom_spaces_and_needs_a_map(void)
{
    CHECK_INT(BW_ARKIT52_COUNT, 52);
    CHECK_STR(bw_arkit52_name(0), "eyeBlinkLeft");
    CHECK(bw_arkit52_name(52) == NULL);
    CHECK_STR(bw_arkit52_name(51), "tongueOut");
    CHECK_INT(bw_arkit52_find("jawOpen"), 17);
    CHECK_INT(bw_arkit52_find("eyeBlinkRight"), BW_ARKIT52_EYE_BLINK_RIGHT);
    CHECK_INT(bw_arkit52_find("jaw_open"), -1);

    int calls = 0;
    bw_animator_desc d = base_desc();
    d.expression_space = (bw_expression_space){BW_EXPRESSION_CUSTOM, 68, map68, &calls};
    bw_animator *a = make(&d);
    CHECK_INT(bw_animator_expression_dim(a), 68);
    float fw[1] = {1.0f};
    bw_character_state s = {.velocity = {0}};
    s.face_weights = fw;
    s.face_weight_count = 1;
    /* FACE jawOpen: 0.2 at 0, 0.6 at 1, loop length 2: from 1 to 2 it runs
     * back to the first key's 0.2 (no pop at the wrap).
     * τ 0.5: 0.2 + 0.5 × 0.4 = 0.4 -> out[17] 0.4, out[52] 0.4, out[67] 6.4 */
    bw_animator_update(a, 0.5f, &s, NULL);
    int dim = 0;
    const float *e = bw_animator_expression(a, &dim);
    CHECK_INT(dim, 68);
    CHECK_NEAR(e[17], 0.4, TOL);
    CHECK_NEAR(e[52], 0.4, TOL);
    CHECK_NEAR(e[67], 6.4, 1e-4);
    CHECK_NEAR(e[0], 0.0, TOL);
    /* τ 1.75 (across the boundary): 0.6 + 0.75 × (0.2 − 0.6) = 0.3; then
     * τ 2.25 ≡ 0.25: 0.2 + 0.25 × 0.4 = 0.3 (continuous through the loop) */
    bw_animator_update(a, 1.25f, &s, NULL);
    CHECK_NEAR(bw_animator_expression(a, NULL)[17], 0.3, TOL);
    bw_animator_update(a, 0.5f, &s, NULL);
    CHECK_NEAR(bw_animator_expression(a, NULL)[17], 0.3, TOL);
    CHECK_INT(calls, 3);
    /* A state expression of 52 numbers replaces the face clips and is mapped. */
    float arkit[52] = {0};
    arkit[17] = 0.5f;
    s.expression = arkit;
    s.expression_count = 52;
    bw_animator_update(a, 0.1f, &s, NULL);
    CHECK_NEAR(bw_animator_expression(a, NULL)[53], 1.0, TOL); /* 0.5 × 2 */
    bw_animator_destroy(a);

    d.expression_space = (bw_expression_space){BW_EXPRESSION_CUSTOM, 383, map383, NULL};
    a = make(&d);
    s.expression = NULL;
    s.expression_count = 0;
    /* τ 0.5: jawOpen 0.4; out[17 + 52 × 7 = 381] = 0.2, out[382] = arkit[18] / 2 = 0 */
    bw_animator_update(a, 0.5f, &s, NULL);
    e = bw_animator_expression(a, &dim);
    CHECK_INT(dim, 383);
    CHECK_NEAR(e[381], 0.2, TOL);
    CHECK_NEAR(e[17], 0.2, TOL);
    CHECK_NEAR(e[382], 0.0, TOL);
    bw_animator_destroy(a);

    /* No map: an error at creation naming the field. */
    d.expression_space = (bw_expression_space){BW_EXPRESSION_CUSTOM, 68, NULL, NULL};
    bw_animator *none = NULL;
    bw_error err[2];
    bw_animator_errors errs = {err, 2, 0};
    CHECK_INT(bw_animator_create(&d, &none, &errs), BW_ERR_INVALID_ARGUMENT);
    CHECK(none == NULL);
    CHECK_INT(errs.count, 1);
    CHECK_STR(err[0].where, "desc.expression_space.map");
}

static void blink_is_seeded_and_periodic(void)
{
    /* xorshift32 from seed 1: 1 ^ 1 << 13 = 8193; ^ >> 17 = 8193; ^ << 5:
     * 8193 ^ 262176 = 270369. (270369 >> 8) = 1056, interval = 2 + 4 ×
     * 1056 / 2^24 = 2.00025177. */
    uint32_t rng = 1;
    CHECK_NEAR(bw_animator_blink_interval(&rng, 2.0f, 6.0f), 2.0 + 4.0 * 1056.0 / 16777216.0, 1e-6);
    CHECK_INT((int)rng, 270369);
    /* 0 is seed 1 (xorshift would stay at 0); NULL gives seed 1's first
     * interval and stores nothing */
    uint32_t zero = 0;
    CHECK_NEAR(bw_animator_blink_interval(&zero, 2.0f, 6.0f), 2.0 + 4.0 * 1056.0 / 16777216.0, 1e-6);
    CHECK_INT((int)zero, 270369);
    CHECK_NEAR(bw_animator_blink_interval(NULL, 2.0f, 6.0f), 2.0 + 4.0 * 1056.0 / 16777216.0, 1e-6);
    bw_animator_desc d = base_desc();
    d.blink.disabled = false;
    bw_animator *a = make(&d);
    bw_character_state s = {.velocity = {0}};
    /* The first blink starts at 2.00025177 s and lasts 0.15 s with weight
     * sin(π u): at 2.075 s, u = (2.075 − 2.00025177) / 0.15 = 0.4983215,
     * weight 0.9999861; both blink channels carry it. */
    bw_animator_update(a, 2.0f, &s, NULL);
    CHECK_NEAR(bw_animator_blink(a), 0.0, TOL);
    bw_animator_update(a, 0.075f, &s, NULL);
    CHECK_NEAR(bw_animator_blink(a), sin(M_PI * (2.075 - 2.00025177) / 0.15), 1e-4);
    CHECK_NEAR(bw_animator_arkit(a)[BW_ARKIT52_EYE_BLINK_LEFT], bw_animator_blink(a), TOL);
    CHECK_NEAR(bw_animator_expression(a, NULL)[BW_ARKIT52_EYE_BLINK_RIGHT], bw_animator_blink(a), TOL);
    bw_animator_update(a, 0.2f, &s, NULL);
    CHECK_NEAR(bw_animator_blink(a), 0.0, TOL);
    bw_animator_destroy(a);
}

/* Expected head yaw for relative target yaw `rel` given last frame's head yaw
 * (the documented rule, rewritten here). */
static double expected_rel(double rel, double last)
{
    if (fabs(rel) > M_PI - BW_ANIMATOR_BEHIND_HYSTERESIS && last * rel < 0.0) rel += last > 0 ? 2 * M_PI : -2 * M_PI;
    return rel;
}
static double clampd(double x, double l) { return x > l ? l : (x < -l ? -l : x); }

static void head_aim_clamps_relative_to_the_body_through_a_full_turn(void)
{
    bw_animator_desc d = base_desc();
    d.locomotion_count = 0; /* rest pose body: the head stays at the character origin */
    bw_animator *a = make(&d);
    /* before the first update: the chain's own joints at their rest
     * rotations (identity in this rig), not joint 0 with a zero quaternion */
    int n0 = 0;
    const bw_joint_override *o0 = bw_animator_joint_overrides(a, &n0);
    CHECK_INT(n0, 3);
    CHECK_INT(o0[2].joint, HEAD);
    CHECK(o0[0].joint != 0 && o0[1].joint != 0);
    CHECK_NEAR(o0[2].r[3], 1.0, 0);
    bw_character_state s = {.velocity = {0}};
    s.has_look_at = true;
    s.look_at[2] = 10.0f; /* world +Z, level with the head */
    double last = 0.0;
    bool left_side_behind = false;
    for (int k = 0; k <= 126; k++) {
        double yaw = 0.05 * k; /* 0 .. 6.3 rad: a full turn */
        s.yaw = (float)yaw;
        bw_animator_update(a, 1.0f / 60.0f, &s, NULL);
        /* target yaw 0 in the world: relative = wrap(−yaw); head = clamp(±1.2),
         * eyes = clamp(remainder, ±0.6) */
        double rel = -yaw;
        while (rel <= -M_PI) rel += 2 * M_PI;
        rel = expected_rel(rel, last);
        double head = clampd(rel, 1.2), eye = clampd(rel - head, 0.6);
        float hy = 0, hp = 0;
        bw_animator_head_aim(a, &hy, &hp);
        CHECK_NEAR(hy, head, 1e-4);
        CHECK_NEAR(hp, 0.0, 1e-5);
        const float *g = bw_animator_gaze(a);
        CHECK_NEAR(g[1], eye, 1e-4);
        CHECK_NEAR(g[3], eye, 1e-4);
        CHECK_NEAR(g[0], 0.0, 1e-5);
        /* the chain: head local = yaw 0.5 × head about Y (parents take 0.25 + 0.25) */
        int n = 0;
        const bw_joint_override *o = bw_animator_joint_overrides(a, &n);
        CHECK_INT(n, 3);
        CHECK_INT(o[2].joint, HEAD);
        CHECK_NEAR(o[2].r[1], sin(0.25 * head), 1e-4);
        CHECK_NEAR(o[2].r[3], cos(0.25 * head), 1e-4);
        CHECK_NEAR(o[0].r[1], sin(0.125 * head), 1e-4);
        if (k == 64) { /* yaw 3.2 > π: straight behind; the head stays on the side it had */
            CHECK_NEAR(hy, -1.2, 1e-4);
            left_side_behind = true;
        }
        last = head;
    }
    CHECK(left_side_behind);
    /* Spot values, body yaw 1.0 / 1.5 / 2.0: head −1.0 / −1.2 / −1.2, gaze
     * 0 / −0.3 / −0.6 (the remainder 0.8 clamped). */
    const float yaws[3] = {1.0f, 1.5f, 2.0f};
    const double heads[3] = {-1.0, -1.2, -1.2}, eyes[3] = {0.0, -0.3, -0.6};
    for (int i = 0; i < 3; i++) {
        s.yaw = yaws[i];
        bw_animator_update(a, 0.0f, &s, NULL);
        float hy = 0;
        bw_animator_head_aim(a, &hy, NULL);
        CHECK_NEAR(hy, heads[i], 1e-5);
        CHECK_NEAR(bw_animator_gaze(a)[1], eyes[i], 1e-5);
    }
    /* Pitch: target (0, 10, 10) at yaw 0: π/4 = 0.7853982 -> head 0.6, eyes 0.1853982 */
    s.yaw = 0.0f;
    s.look_at[1] = 10.0f;
    bw_animator_update(a, 0.0f, &s, NULL);
    float hp = 0;
    bw_animator_head_aim(a, NULL, &hp);
    CHECK_NEAR(hp, 0.6, 1e-5);
    CHECK_NEAR(bw_animator_gaze(a)[0], M_PI / 4 - 0.6, 1e-5);
    /* No look_at: the camera is the target. Camera at (10, 0, 0) with body yaw
     * 0: +X is yaw π/2 -> head 1.2, eyes 0.3707963 (π/2 − 1.2). */
    s.has_look_at = false;
    const float cam[3] = {10.0f, 0.0f, 0.0f};
    bw_animator_update(a, 0.0f, &s, cam);
    float hy = 0;
    bw_animator_head_aim(a, &hy, NULL);
    CHECK_NEAR(hy, 1.2, 1e-5);
    CHECK_NEAR(bw_animator_gaze(a)[1], M_PI / 2 - 1.2, 1e-5);
    bw_animator_destroy(a);
}

/* Graph: params speed (float), jump (trigger); states idle (IDLE), move
 * (WALK), jump (RUN); idle -> move when speed > 0.1, * -> jump on jump,
 * both instant. */
/* idle -> move when speed > 0.1, any -> jump on the trigger; with fade > 0
 * both transitions fade that long (the jump a freeze, so an interruption
 * or a jump takes the last evaluated pose) and jump -> idle ends a jump at
 * its exit time 0.5. */
static bw_graph *speed_jump_graph_fading(float fade)
{
    bw_graph_param_desc params[2] = {{"speed", BW_GRAPH_PARAM_FLOAT, 0, 0, false}, {"jump", BW_GRAPH_PARAM_TRIGGER, 0, 0, false}};
    bw_graph_state_desc states[3] = {{.name = "idle", .clip = IDLE}, {.name = "move", .clip = WALK},
                                     {.name = "jump", .clip = RUN}};
    bw_graph_condition_desc fast = {.kind = BW_GRAPH_COND_COMPARE, .param = "speed", .op = BW_GRAPH_GT, .value = 0.1f};
    bw_graph_condition_desc jump = {.kind = BW_GRAPH_COND_TRUE, .param = "jump"};
    bw_graph_transition_desc tr[3] = {{.from = "idle", .to = "move", .conditions = &fast, .condition_count = 1},
                                      {.from = "*", .to = "jump", .conditions = &jump, .condition_count = 1},
                                      {.from = "jump", .to = "idle", .has_exit_time = true, .exit_time = 0.5f}};
    if (fade > 0.0f) {
        tr[0].duration = tr[1].duration = tr[2].duration = fade;
        tr[1].mode = BW_GRAPH_FREEZE;
    }
    bw_graph_layer_desc layer = {.name = "base", .entry = "idle", .states = states, .state_count = 3,
                                 .transitions = tr, .transition_count = fade > 0.0f ? 3 : 2};
    bw_graph_desc gd = {0};
    gd.params = params;
    gd.param_count = 2;
    gd.layers = &layer;
    gd.layer_count = 1;
    gd.clips = (const bw_clip *const *)clips;
    gd.clip_count = CLIPS;
    bw_graph *graph = NULL;
    CHECK_INT(bw_graph_compile(&gd, &graph, NULL), BW_OK);
    return graph;
}

static bw_graph *speed_jump_graph(void) { return speed_jump_graph_fading(0.0f); }

static void the_animator_runs_a_graph_with_params_and_triggers(void)
{
    bw_graph *graph = speed_jump_graph();
    bw_animator_desc d = base_desc();
    d.graph = graph;
    bw_animator *a = make(&d);
    int speed = bw_graph_find_param(graph, "speed"), trig = bw_graph_find_param(graph, "jump");
    bw_character_param p = {speed, 1.0f};
    bw_character_state s = {.velocity = {0}};
    s.params = &p;
    s.param_count = 1;
    /* Update 1: idle advances, speed 1 > 0.1 fires idle -> move (duration 0
     * is complete at once; move at p = 0). Events: enter idle (frame 0),
     * exit idle, enter move. */
    bw_animator_update(a, 0.25f, &s, NULL);
    bw_graph_layer_status st;
    bw_graph_cursor_layer_status(bw_animator_cursor(a), 0, &st);
    CHECK_INT(st.state, bw_graph_find_state(graph, 0, "move"));
    int n = 0;
    const bw_animator_event *ev = bw_animator_events(a, &n);
    CHECK_INT(n, 3);
    if (n == 3) {
        CHECK_INT(ev[2].kind, BW_ANIMATOR_EVENT_GRAPH);
        CHECK_INT(ev[2].graph_event.kind, BW_GRAPH_EVENT_ENTER);
        CHECK_STR(ev[2].graph_event.name, "move");
    }
    /* Update 2: move (WALK, 1 s) advances 0.25 s: spine x 0.25. The graph
     * decides even though the state's velocity would pick locomotion. */
    s.velocity[0] = 4.0f;
    bw_animator_update(a, 0.25f, &s, NULL);
    CHECK_NEAR(bw_animator_pose(a)->joints[SPINE].t[0], 0.25, TOL);
    /* Update 3: fire jump -> jump (RUN) at p 0; the trigger is consumed. */
    s.fire = &trig;
    s.fire_count = 1;
    bw_animator_update(a, 0.25f, &s, NULL);
    bw_graph_cursor_layer_status(bw_animator_cursor(a), 0, &st);
    CHECK_INT(st.state, bw_graph_find_state(graph, 0, "jump"));
    CHECK_NEAR(bw_graph_cursor_param(bw_animator_cursor(a), trig), 0.0, 0.0);
    bw_animator_destroy(a);
    bw_graph_destroy(graph);
}

static void update_allocates_nothing_over_ten_thousand_frames(void)
{
    alloc_counter c = ALLOC_COUNTER(-1);
    int calls = 0;
    bw_animator_desc d = base_desc();
    d.allocator = (bw_allocator){alloc_counter_fn, &c};
    d.blink.disabled = false;
    d.expression_space = (bw_expression_space){BW_EXPRESSION_CUSTOM, 68, map68, &calls};
    bw_animator *a = make(&d);
    long before = c.allocations;
    float fw[1] = {0.7f};
    bw_character_state s = {.velocity = {0}};
    s.face_weights = fw;
    s.face_weight_count = 1;
    s.has_look_at = true;
    s.look_at[0] = 3.0f;
    s.look_at[2] = 2.0f;
    float cw[CLIPS] = {0.0f, 0.5f, 0.5f, 0.0f, 0.0f, 0.0f}; /* explicit clips for 300 of every 1000 */
    for (int k = 0; k < 10000; k++) {
        s.velocity[0] = 5.0f * (float)(k % 100) / 100.0f;
        s.yaw = 0.01f * (float)k;
        s.clip_weights = k % 1000 < 300 ? cw : NULL;
        s.clip_weight_count = CLIPS;
        if (k % 700 == 0) bw_animator_gesture(a, k % 1400 ? WAVE : NOD, NULL);
        bw_animator_prefetch(a); /* a crowd loop's cache hint (animator.h) */
        bw_animator_update(a, 1.0f / 60.0f, &s, NULL);
    }
    CHECK_INT((int)(c.allocations - before), 0);
    CHECK_INT(calls, 10000);
    bw_animator_destroy(a);
    CHECK_INT((int)c.live_blocks, 0);
    CHECK_INT((int)c.live_bytes, 0);

    /* Every allocation failure during create is reported and leaks nothing. */
    for (long budget = 0; budget < before; budget++) {
        alloc_counter f = ALLOC_COUNTER(budget);
        d.allocator = (bw_allocator){alloc_counter_fn, &f};
        bw_animator *x = NULL;
        CHECK_INT(bw_animator_create(&d, &x, NULL), BW_ERR_OUT_OF_MEMORY);
        CHECK(x == NULL);
        CHECK_INT((int)f.live_blocks, 0);
    }
}

typedef struct bad_case {
    const char *path;
    const char *message;
    bw_result code;
} bad_case;

static void validation_names_the_field_of_fifteen_malformed_states(void)
{
    bw_graph *graph = speed_jump_graph(); /* speed is parameter 0, jump 1 */
    bw_animator_desc d = base_desc();
    d.graph = graph;
    bw_animator *a = make(&d);

    static const bad_case cases[16] = {
        {"state.velocity[1]", "is NaN", BW_ERR_NON_FINITE},
        {"state.velocity[0]", "is infinite", BW_ERR_NON_FINITE},
        {"state.position[2]", "is NaN", BW_ERR_NON_FINITE},
        {"state.yaw", "is NaN", BW_ERR_NON_FINITE},
        {"state.clip_weights", "has 2 weights, the animator has 6 clips", BW_ERR_INVALID_ARGUMENT},
        {"state.clip_weights[1]", "is negative", BW_ERR_RANGE},
        {"state.clip_weights[3]", "is NaN", BW_ERR_NON_FINITE},
        {"state.face_weights[0]", "is infinite", BW_ERR_NON_FINITE},
        {"state.look_at[0]", "is NaN", BW_ERR_NON_FINITE},
        {"state.expression", "has 10 numbers, expected 52 or 52", BW_ERR_INVALID_ARGUMENT},
        {"state.expression[5]", "is NaN", BW_ERR_NON_FINITE},
        {"state.params[0].index", "no such parameter", BW_ERR_RANGE},
        {"state.params[0].value", "is NaN", BW_ERR_NON_FINITE},
        {"state.params[0].index", "is a trigger: fire it", BW_ERR_INVALID_ARGUMENT},
        {"state.fire[0]", "is not a trigger", BW_ERR_INVALID_ARGUMENT},
        {"state.fire[0]", "no such trigger", BW_ERR_RANGE},
    };
    const float nan = NAN, inf = INFINITY;
    for (int i = 0; i < 16; i++) {
        float w[CLIPS] = {0, 0, 0, 0, 0, 0};
        float fw[1] = {0};
        float ex[52] = {0};
        bw_character_param p = {0, 1.0f};
        int fire = 1;
        bw_character_state s = {.velocity = {0}};
        switch (i) {
        case 0: s.velocity[1] = nan; break;
        case 1: s.velocity[0] = inf; break;
        case 2: s.position[2] = nan; break;
        case 3: s.yaw = nan; break;
        case 4: s.clip_weights = w; s.clip_weight_count = 2; break;
        case 5: w[1] = -1.0f; s.clip_weights = w; s.clip_weight_count = CLIPS; break;
        case 6: w[3] = nan; s.clip_weights = w; s.clip_weight_count = CLIPS; break;
        case 7: fw[0] = -inf; s.face_weights = fw; s.face_weight_count = 1; break;
        case 8: s.has_look_at = true; s.look_at[0] = nan; break;
        case 9: s.expression = ex; s.expression_count = 10; break;
        case 10: ex[5] = nan; s.expression = ex; s.expression_count = 52; break;
        case 11: p.index = 99; s.params = &p; s.param_count = 1; break;
        case 12: p.value = nan; s.params = &p; s.param_count = 1; break;
        case 13: p.index = 1; s.params = &p; s.param_count = 1; break;
        case 14: fire = 0; s.fire = &fire; s.fire_count = 1; break;
        case 15: fire = -1; s.fire = &fire; s.fire_count = 1; break;
        }
        bw_state_problem probs[4];
        int n = -1;
        CHECK_INT(bw_character_state_validate(&s, a, probs, 4, &n), cases[i].code);
        CHECK_INT(n, 1);
        if (n == 1) {
            CHECK_STR(probs[0].path, cases[i].path);
            CHECK_STR(probs[0].message, cases[i].message);
        }
    }
    /* A good state passes; a NULL state is one problem. */
    bw_character_state good = {.velocity = {1, 0, 0}};
    int n = -1;
    CHECK_INT(bw_character_state_validate(&good, a, NULL, 0, &n), BW_OK);
    CHECK_INT(n, 0);
    CHECK_INT(bw_character_state_validate(NULL, NULL, NULL, 0, &n), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(n, 1);
    bw_animator_destroy(a);
    bw_graph_destroy(graph);

    /* update on a bad state reports and keeps the previous one. Update 1:
     * 1.5 m/s is walk's authored speed, so walk plays alone at rate 1, 0.1 s
     * in: spine x 0.1. Update 2 (NaN vz) runs on the previous state: walk
     * 0.2 s in, spine x 0.2, and the whole pose is the one a twin animator
     * given the good state twice shows (every joint, bit for bit). */
    d = base_desc();
    a = make(&d);
    bw_animator *twin = make(&d);
    bw_character_state s = {.velocity = {1.5f, 0, 0}};
    CHECK_INT(bw_animator_update(a, 0.1f, &s, NULL), BW_OK);
    CHECK_NEAR(bw_animator_pose(a)->joints[SPINE].t[0], 0.1, TOL);
    CHECK_INT(bw_animator_update(twin, 0.1f, &s, NULL), BW_OK);
    CHECK_INT(bw_animator_update(twin, 0.1f, &s, NULL), BW_OK);
    s.velocity[2] = NAN;
    CHECK_INT(bw_animator_update(a, 0.1f, &s, NULL), BW_ERR_NON_FINITE);
    int pc = 0;
    const bw_state_problem *pr = bw_animator_problems(a, &pc);
    CHECK_INT(pc, 1);
    CHECK_STR(pr[0].path, "state.velocity[2]");
    const bw_animator_play *w = play_of(a, WALK);
    CHECK(w && fabsf(w->weight - 1.0f) < 1e-6f);
    CHECK(w && fabsf(w->time - 0.2f) < 1e-6f);
    CHECK_NEAR(bw_animator_pose(a)->joints[SPINE].t[0], 0.2, TOL);
    const bw_pose *got = bw_animator_pose(a), *want = bw_animator_pose(twin);
    for (int j = 0; j < JOINTS; j++) {
        CHECK(memcmp(got->joints[j].t, want->joints[j].t, sizeof got->joints[j].t) == 0);
        CHECK(memcmp(got->joints[j].r, want->joints[j].r, sizeof got->joints[j].r) == 0);
        CHECK(memcmp(got->joints[j].s, want->joints[j].s, sizeof got->joints[j].s) == 0);
    }
    bw_animator_destroy(twin);
    bw_animator_destroy(a);
}

/* A head chain names a joint the rig has twice as "parent/name" (as mask
 * entries do); the bare name is refused as ambiguous, not as missing
 * ("no joint 'head' in the rig" was wrong for a rig with two). Rig: root,
 * neck (root), head (neck), arm (root), head (arm). */
static void a_chain_name_the_rig_has_twice_takes_its_parent(void)
{
    static const char *const names[5] = {"root", "neck", "head", "arm", "head"};
    static const int parents[5] = {-1, 0, 1, 0, 3};
    bw_rig *twins = fixture_rig(names, parents, 5);
    bw_animator_desc d = {0};
    d.rig = twins;
    d.blink.disabled = true;
    const char *bare[1] = {"head"};
    d.head.chain = bare;
    d.head.chain_count = 1;
    bw_error e[2];
    bw_animator_errors errs = {e, 2, 0};
    bw_animator *a = NULL;
    CHECK_INT(bw_animator_create(&d, &a, &errs), BW_ERR_NOT_FOUND);
    CHECK_INT(errs.count, 1);
    CHECK_STR(e[0].where, "desc.head.chain[0]");
    CHECK_STR(e[0].message, "'head' names several joints of the rig: write it as 'parent/head'");
    for (int k = 0; k < 2; k++) {
        const char *path[1] = {k ? "arm/head" : "neck/head"};
        d.head.chain = path;
        a = NULL;
        CHECK_INT(bw_animator_create(&d, &a, NULL), BW_OK);
        if (!a) continue;
        bw_character_state s = {.velocity = {0}, .has_look_at = true, .look_at = {10, 0, 10}};
        bw_animator_update(a, 0.1f, &s, NULL);
        int n = 0;
        const bw_joint_override *o = bw_animator_joint_overrides(a, &n);
        CHECK_INT(n, 1);
        if (n == 1) CHECK_INT(o[0].joint, k ? 4 : 2);
        bw_animator_destroy(a);
    }
    bw_rig_destroy(twins);
}

/* The default chain (chain_count 0) passes over a name the rig has twice
 * as if it were missing, and says so through the desc's logger, once per
 * name ("head" is in all three default sets). Rig: root, neck (root), head
 * (neck), arm (root), head (arm): the neck/head set and the head set both
 * skip, so there is no head aim, and one warning names 'head'. With a
 * second "neck" as well (root, neck, head, neck), 'neck' is the one that
 * warns and the lone 'head' set aims. */
typedef struct warnings_seen {
    int count;
    char last[512];
    bw_log_level level;
} warnings_seen;

static void keep_warning(void *user, bw_log_level level, const char *message)
{
    warnings_seen *w = (warnings_seen *)user;
    w->count++;
    w->level = level;
    snprintf(w->last, sizeof w->last, "%s", message);
}

static void the_default_chain_warns_of_a_name_the_rig_has_twice(void)
{
    static const char *const names[5] = {"root", "neck", "head", "arm", "head"};
    static const int parents[5] = {-1, 0, 1, 0, 3};
    static const char *const necks[4] = {"root", "neck", "head", "neck"};
    static const int neck_parents[4] = {-1, 0, 1, 2};
    for (int k = 0; k < 2; k++) {
        bw_rig *twins = k ? fixture_rig(necks, neck_parents, 4) : fixture_rig(names, parents, 5);
        warnings_seen seen = {0};
        bw_animator_desc d = {0};
        d.rig = twins;
        d.blink.disabled = true;
        d.logger = (bw_logger){keep_warning, &seen};
        bw_animator *a = NULL;
        CHECK_INT(bw_animator_create(&d, &a, NULL), BW_OK);
        CHECK_INT(seen.count, 1);
        CHECK_INT(seen.level, BW_LOG_WARNING);
        CHECK_STR(seen.last, k ? "head: the default head chain passes over 'neck': the rig has several joints "
                                 "of that name (name the chain: head.chain = { ..., 'parent/neck' })"
                               : "head: the default head chain passes over 'head': the rig has several joints "
                                 "of that name (name the chain: head.chain = { ..., 'parent/head' })");
        int n = -1;
        const bw_joint_override *o = bw_animator_joint_overrides(a, &n);
        CHECK_INT(n, k ? 1 : 0);
        if (k && n == 1) CHECK_INT(o[0].joint, 2);
        bw_animator_destroy(a);
        /* no logger: the same animator, silently */
        a = NULL;
        d.logger = (bw_logger){0};
        CHECK_INT(bw_animator_create(&d, &a, NULL), BW_OK);
        bw_animator_destroy(a);
        bw_rig_destroy(twins);
    }
}

/* The desc's logger also gets the clips' binding warnings: a track
 * naming 'head' alone (parent NULL: unknown) on a rig with two heads
 * stays unbound and says so (bind.h), which the demo prints. */
static void a_track_a_twice_named_joint_leaves_unbound_is_a_warning(void)
{
    static const char *const names[5] = {"root", "neck", "head", "arm", "head"};
    static const int parents[5] = {-1, 0, 1, 0, 3};
    bw_rig *twins = fixture_rig(names, parents, 5);
    static const float times[2] = {0, 1}, values[6] = {0, 0, 0, 0, 1, 0};
    bw_track_desc track = {NULL, "head", BW_CHANNEL_TRANSLATION, BW_INTERP_EASED, 2, times, values, NULL, NULL};
    bw_clip_desc cd = {0};
    cd.name = "nod";
    cd.tracks = &track;
    cd.track_count = 1;
    bw_clip *clip = fixture_clip_desc(&cd);
    warnings_seen seen = {0};
    bw_animator_desc d = {0};
    d.rig = twins;
    d.clips = (const bw_clip *const *)&clip;
    d.clip_count = 1;
    d.blink.disabled = true;
    d.head.disabled = true; /* no head-chain warning: the binding's alone */
    d.logger = (bw_logger){keep_warning, &seen};
    bw_animator *a = NULL;
    CHECK_INT(bw_animator_create(&d, &a, NULL), BW_OK);
    CHECK_INT(seen.count, 1);
    CHECK_STR(seen.last, "clip 'nod': track 0 (joint 'head') matches several joints of the rig by name alone; it stays "
                         "unbound");
    bw_animator_destroy(a);
    bw_clip_destroy(clip);
    bw_rig_destroy(twins);
}

static void create_reports_every_problem_of_the_desc(void)
{
    bw_animator_desc d = base_desc();
    const bw_locomotion_entry bad[2] = {{7, 1.0f}, {WALK, -1.0f}};
    d.locomotion = bad;
    d.locomotion_count = 2;
    const char *chain[1] = {"nekc"};
    d.head.chain = chain;
    d.head.chain_count = 1;
    bw_error e[4];
    bw_animator_errors errs = {e, 4, 0};
    bw_animator *a = NULL;
    /* the chain is resolved after the first pass; the locomotion errors come first */
    CHECK(bw_animator_create(&d, &a, &errs) != BW_OK);
    CHECK(a == NULL);
    CHECK(errs.count >= 1);
    CHECK_STR(e[0].where, "desc.head.chain[0]");
    d.head.chain_count = 0;
    errs.count = 0;
    CHECK_INT(bw_animator_create(&d, &a, &errs), BW_ERR_RANGE);
    CHECK_INT(errs.count, 2);
    CHECK_STR(e[0].where, "desc.locomotion[0].clip");
    CHECK_STR(e[1].where, "desc.locomotion[1].speed");
    CHECK_INT(bw_animator_create(NULL, &a, NULL), BW_ERR_INVALID_ARGUMENT);
    bw_animator_destroy(NULL);
}

/* The codes types.h gives (one broken field per create): a negative count
 * is BW_ERR_INVALID_ARGUMENT (event_capacity -1 was LIMIT), one above the
 * documented 65536 BW_ERR_LIMIT; NaN or infinity in a speed, weight, limit
 * or blink interval BW_ERR_NON_FINITE; a finite negative speed, head
 * weight or head limit BW_ERR_RANGE (a negative head limit was NON_FINITE). */
static void create_codes_follow_types_h(void)
{
    enum { CASES = 12 };
    static const struct {
        const char *where;
        bw_result code;
    } want[CASES] = {
        {"desc.event_capacity", BW_ERR_INVALID_ARGUMENT}, {"desc.event_capacity", BW_ERR_LIMIT},
        {"desc.locomotion[1].speed", BW_ERR_RANGE},       {"desc.locomotion[1].speed", BW_ERR_NON_FINITE},
        {"desc.head", BW_ERR_RANGE},                      {"desc.head", BW_ERR_NON_FINITE},
        {"desc.head.weights[0]", BW_ERR_RANGE},           {"desc.head.weights[0]", BW_ERR_NON_FINITE},
        {"desc.blink", BW_ERR_NON_FINITE},                {"desc.blink", BW_ERR_NON_FINITE},
        {"desc.blink", BW_ERR_INVALID_ARGUMENT},          {"desc.blink", BW_ERR_INVALID_ARGUMENT},
    };
    for (int i = 0; i < CASES; i++) {
        bw_animator_desc d = base_desc();
        bw_locomotion_entry loco[3];
        memcpy(loco, loco3, sizeof loco);
        const char *chain[1] = {"head"};
        float weights[1] = {1.0f};
        switch (i) {
        case 0: d.event_capacity = -1; break;
        case 1: d.event_capacity = 65537; break;
        case 2: loco[1].speed = -1.0f; break;
        case 3: loco[1].speed = NAN; break;
        case 4: d.head.yaw_limit = -0.5f; break;
        case 5: d.head.pitch_limit = INFINITY; break;
        case 6: weights[0] = -1.0f; break;
        case 7: weights[0] = NAN; break;
        case 8: d.blink.disabled = false; d.blink.interval_min = NAN; break;
        case 9: d.blink.disabled = false; d.blink.duration = INFINITY; break;
        case 10: d.blink.disabled = false; d.blink.interval_max = -1.0f; break;
        case 11: d.blink.disabled = false; d.blink.interval_min = 5.0f; d.blink.interval_max = 3.0f; break;
        }
        d.locomotion = loco;
        if (i == 6 || i == 7) {
            d.head.chain = chain;
            d.head.chain_count = 1;
            d.head.weights = weights;
        }
        bw_error e[4];
        bw_animator_errors errs = {e, 4, 0};
        bw_animator *a = NULL;
        CHECK_INT(bw_animator_create(&d, &a, &errs), want[i].code);
        CHECK(a == NULL);
        CHECK_INT(errs.count, 1);
        CHECK_STR(e[0].where, want[i].where);
        CHECK_INT(e[0].code, want[i].code);
    }
    /* a NaN fade for set_graph is non-finite, a negative one invalid */
    bw_animator_desc d = base_desc();
    bw_animator *a = make(&d);
    bw_error e[2];
    bw_animator_errors errs = {e, 2, 0};
    CHECK_INT(bw_animator_set_graph(a, NULL, NULL, NAN, &errs), BW_ERR_NON_FINITE);
    CHECK_STR(e[0].where, "fade");
    CHECK_INT(bw_animator_set_graph(a, NULL, NULL, -1.0f, &errs), BW_ERR_INVALID_ARGUMENT);
    bw_animator_destroy(a);
}

/* RobotExpressive: rig curves Angry, Surprised, Sad (its morph targets)
 * as a custom 3-dimension expression space. */
static void robot_map(void *user, const float *arkit, float *out, int dim)
{
    const int *curve = (const int *)user; /* rig curve index of Angry, Surprised, Sad */
    float angry = arkit[41] > arkit[42] ? arkit[41] : arkit[42]; /* browDownLeft / Right */
    out[curve[0]] = angry;
    out[curve[1]] = arkit[43]; /* browInnerUp */
    out[curve[2]] = arkit[25]; /* mouthFrownLeft */
}

static void robot_expressive_runs_through_the_animator(void)
{
    bw_asset *asset = NULL;
    bw_error err = {0};
    FILE *probe = fopen(BW_ASSET_DIR "/RobotExpressive.glb", "rb");
    if (!probe) {
        printf("skip robot_expressive_runs_through_the_animator: no %s\n", BW_ASSET_DIR "/RobotExpressive.glb");
        return;
    }
    fclose(probe);
    CHECK_INT(bw_asset_load_file(BW_ASSET_DIR "/RobotExpressive.glb", NULL, &asset, &err), BW_OK);
    if (!asset) return;
    int curve[3] = {bw_rig_find_curve(asset->rig, "Angry"), bw_rig_find_curve(asset->rig, "Surprised"),
                    bw_rig_find_curve(asset->rig, "Sad")};
    CHECK(curve[0] >= 0 && curve[1] >= 0 && curve[2] >= 0);
    CHECK_INT(bw_rig_curve_count(asset->rig), 3);
    int idle = bw_asset_find_clip(asset, "Idle"), walk = bw_asset_find_clip(asset, "Walking"),
        run = bw_asset_find_clip(asset, "Running"), wave = bw_asset_find_clip(asset, "Wave");
    CHECK(idle >= 0 && walk >= 0 && run >= 0 && wave >= 0);
    const bw_locomotion_entry loco[3] = {{idle, 0.0f}, {walk, 1.5f}, {run, 4.0f}};
    const char *chain[2] = {"Neck", "Head"};
    const float weights[2] = {0.4f, 0.6f};
    bw_animator_desc d = {0};
    d.rig = asset->rig;
    d.clips = (const bw_clip *const *)asset->clips;
    d.clip_count = asset->clip_count;
    d.locomotion = loco;
    d.locomotion_count = 3;
    d.gesture_clips = &wave;
    d.gesture_clip_count = 1;
    d.head.chain = chain;
    d.head.chain_count = 2;
    d.head.weights = weights;
    d.expression_space = (bw_expression_space){BW_EXPRESSION_CUSTOM, 3, robot_map, curve};
    d.blink.disabled = true;
    bw_animator *a = make(&d);
    if (!a) {
        bw_asset_destroy(asset);
        return;
    }
    /* ARKit browDownLeft 0.3, browInnerUp 0.8, mouthFrownLeft 0.5 ->
     * Angry 0.3, Surprised 0.8, Sad 0.5 */
    float arkit[52] = {0};
    arkit[41] = 0.3f;
    arkit[43] = 0.8f;
    arkit[25] = 0.5f;
    bw_character_state s = {.velocity = {0.0f, 0.0f, 2.75f}};
    s.expression = arkit;
    s.expression_count = 52;
    s.has_look_at = true;
    s.look_at[0] = 1000.0f; /* far to the side: relative yaw ~ π/2 -> head 1.2, eyes ~ 0.37 */
    bw_animator_gesture(a, wave, &(bw_gesture_desc){0.0f, 0.3f, 0.3f, BW_EASE_SINE, NULL, NULL});
    for (int k = 0; k < 60; k++) bw_animator_update(a, 1.0f / 60.0f, &s, NULL);
    const float *e = bw_animator_expression(a, NULL);
    CHECK_NEAR(e[curve[0]], 0.3, TOL);
    CHECK_NEAR(e[curve[1]], 0.8, TOL);
    CHECK_NEAR(e[curve[2]], 0.5, TOL);
    /* 2.75 m/s: Walking and Running 0.5 each (both 0.958 s long, so the
     * phase is the clip time: 1 s -> 1.0 mod 0.9583 for both) */
    const bw_animator_play *w = play_of(a, walk), *r = play_of(a, run);
    CHECK(w && r);
    if (w && r) {
        CHECK_NEAR(w->weight, 0.5, TOL);
        CHECK_NEAR(r->weight, 0.5, TOL);
        CHECK_NEAR(w->time, r->time, 1e-4);
    }
    float hy = 0;
    bw_animator_head_aim(a, &hy, NULL);
    CHECK_NEAR(hy, 1.2, 1e-5);
    CHECK(bw_animator_gaze(a)[1] > 0.3f && bw_animator_gaze(a)[1] < 0.45f);
    CHECK(bw_animator_gesture_weight(a) > 0.99f); /* Wave 1.833 s, in its hold at 1 s */
    const bw_pose *pose = bw_animator_pose(a);
    bool finite = true;
    for (int j = 0; j < pose->joint_count; j++)
        for (int c = 0; c < 4; c++) finite = finite && isfinite(pose->joints[j].r[c]);
    CHECK(finite);
    bw_animator_destroy(a);
    bw_asset_destroy(asset);
}

/* desc.binding_cache: three animators on one cache share one binding per
 * clip (the cache made CLIPS, not 3 × CLIPS) and give, frame by frame, the
 * very pose of an animator with bindings of its own (the same binding
 * numbers either way: equal to the bit). Destroying the animators leaves
 * the cache's bindings alive (an animator that destroyed them would be a
 * use after free under ASan when the last one runs). */
static void animators_on_one_binding_cache_share_bindings_and_numbers(void)
{
    bw_binding_cache *cache = NULL;
    CHECK_INT(bw_binding_cache_create(NULL, &cache), BW_OK);
    bw_graph *graph = speed_jump_graph();
    bw_animator_desc d = base_desc();
    d.graph = graph;
    bw_animator *own = make(&d);
    d.binding_cache = cache;
    bw_animator *shared[3];
    for (int i = 0; i < 3; i++) shared[i] = make(&d);
    CHECK_INT(bw_binding_cache_create_count(cache), CLIPS);
    bw_animator_destroy(shared[0]);
    int speed = bw_graph_find_param(graph, "speed");
    bw_character_param p = {speed, 0.0f};
    bw_character_state s = {.velocity = {0}};
    s.params = &p;
    s.param_count = 1;
    int differ = 0;
    for (int f = 0; f < 40; f++) {
        p.value = f < 20 ? 0.05f * (float)f : 0.0f; /* idle, then move once speed > 0.1, and back */
        bw_animator_update(own, 1.0f / 30.0f, &s, NULL);
        for (int i = 1; i < 3; i++) {
            bw_animator_update(shared[i], 1.0f / 30.0f, &s, NULL);
            const bw_pose *a = bw_animator_pose(own), *b = bw_animator_pose(shared[i]);
            if (memcmp(a->joints, b->joints, (size_t)a->joint_count * sizeof *a->joints) != 0) differ++;
        }
    }
    CHECK_INT(differ, 0);
    /* and the pose did move (spine x follows the playing clip) */
    CHECK(bw_animator_pose(shared[2])->joints[SPINE].t[0] != 0.0f || bw_animator_pose(shared[2])->joints[SPINE].t[1] != 0.0f);
    bw_animator_destroy(shared[1]);
    bw_animator_destroy(shared[2]);
    bw_animator_destroy(own);
    CHECK_INT(bw_binding_cache_create_count(cache), CLIPS);
    bw_binding_cache_destroy(cache);
    bw_graph_destroy(graph);
}

/* A crowd as docs/animator.md "A crowd" runs it: six animators updated by a
 * two-thread pool, each worker with its own bw_graph_scratch, against six
 * updated one by one in their own poses (the independent method): bit for
 * bit the same poses every frame, through fades and freezing jumps. */
#define CROWD 6
typedef struct crowd_job {
    bw_animator **animators;
    const bw_character_state *states;
    bw_graph_scratch **scratch; /* one per worker */
} crowd_job;

static void crowd_part(void *user, int begin, int end, int worker)
{
    crowd_job *job = (crowd_job *)user;
    for (int i = begin; i < end; i++)
        bw_animator_update_in(job->animators[i], job->scratch[worker], 1.0f / 30.0f, &job->states[i], NULL);
}

static void a_crowd_on_worker_scratches_matches_one_by_one(void)
{
    bw_graph *graph = speed_jump_graph_fading(0.2f);
    bw_animator_desc d = base_desc();
    d.graph = graph;
    bw_animator *own[CROWD], *pooled[CROWD];
    for (int i = 0; i < CROWD; i++) {
        own[i] = make(&d);
        pooled[i] = make(&d);
    }
    bw_jobs *jobs = NULL;
    bw_jobs_desc jd = {.thread_count = 2};
    CHECK_INT(bw_jobs_create(&jd, &jobs), BW_OK);
    bw_graph_scratch *scratch[2] = {NULL, NULL};
    bw_graph_scratch_desc sd = {bw_rig_joint_count(rig), bw_rig_curve_count(rig), 1, {0}};
    for (int t = 0; t < 2; t++) CHECK_INT(bw_graph_scratch_create(&sd, &scratch[t]), BW_OK);
    CHECK(bw_graph_scratch_fits(scratch[0], graph, rig));
    int speed = bw_graph_find_param(graph, "speed"), trig = bw_graph_find_param(graph, "jump");
    bw_character_param p[CROWD];
    bw_character_state s[CROWD];
    int differ = 0, frozen = 0;
    for (int f = 0; f < 300; f++) {
        for (int i = 0; i < CROWD; i++) {
            p[i] = (bw_character_param){speed, ((f / (7 + i)) % 2) ? 1.0f : 0.0f};
            s[i] = (bw_character_state){.params = &p[i], .param_count = 1};
            if ((f + 3 * i) % 11 == 0) { /* a jump, often during a fade */
                s[i].fire = &trig;
                s[i].fire_count = 1;
            }
            bw_animator_update(own[i], 1.0f / 30.0f, &s[i], NULL);
        }
        crowd_job job = {pooled, s, scratch};
        bw_jobs_run(jobs, CROWD, 1, crowd_part, &job);
        for (int i = 0; i < CROWD; i++) {
            const bw_pose *a = bw_animator_pose(own[i]), *b = bw_animator_pose(pooled[i]);
            if (memcmp(a->joints, b->joints, (size_t)a->joint_count * sizeof *a->joints) != 0) differ++;
            bw_graph_layer_status st;
            bw_graph_cursor_layer_status(bw_animator_cursor(pooled[i]), 0, &st);
            frozen += st.transition.active && st.transition.frozen;
        }
    }
    CHECK_INT(differ, 0);
    CHECK(frozen > 100); /* freezing fades ran */
    for (int t = 0; t < 2; t++) bw_graph_scratch_destroy(scratch[t]);
    bw_jobs_destroy(jobs);
    for (int i = 0; i < CROWD; i++) {
        bw_animator_destroy(own[i]);
        bw_animator_destroy(pooled[i]);
    }
    bw_graph_destroy(graph);
}

/* bw_animator_pose_mutable: the pose bw_animator_pose returns, writable;
 * a host's edits between updates (here NaN over every field, as a broken
 * control might leave it) never reach the next update: two animators fed the
 * same states, one of them scribbled over after each frame, give bit-equal
 * poses and head angles frame after frame (graph base, head aim on). */
static void host_edits_of_the_mutable_pose_do_not_reach_the_next_update(void)
{
    bw_graph *graph = speed_jump_graph();
    bw_animator_desc d = base_desc();
    d.graph = graph;
    bw_animator *clean = make(&d), *edited = make(&d);
    CHECK(bw_animator_pose_mutable(edited) == bw_animator_pose(edited));
    CHECK(bw_animator_pose_mutable(NULL) == NULL);
    int speed = bw_graph_find_param(graph, "speed");
    bw_character_param p = {speed, 0.0f};
    bw_character_state s = {.velocity = {0}};
    s.params = &p;
    s.param_count = 1;
    s.has_look_at = true;
    int differ = 0, turned = 0;
    for (int f = 0; f < 30; f++) {
        p.value = f < 15 ? 0.07f * (float)f : 0.0f;
        s.look_at[0] = 2.0f * sinf(0.3f * (float)f);
        s.look_at[1] = 1.5f;
        s.look_at[2] = 2.0f;
        bw_animator_update(clean, 1.0f / 30.0f, &s, NULL);
        bw_animator_update(edited, 1.0f / 30.0f, &s, NULL);
        const bw_pose *a = bw_animator_pose(clean), *b = bw_animator_pose(edited);
        if (memcmp(a->joints, b->joints, (size_t)a->joint_count * sizeof *a->joints) != 0) differ++;
        float ya, pa, yb, pb;
        bw_animator_head_aim(clean, &ya, &pa);
        bw_animator_head_aim(edited, &yb, &pb);
        if (ya != yb || pa != pb) differ++;
        turned += ya != 0.0f;
        bw_pose *w = bw_animator_pose_mutable(edited);
        for (int j = 0; j < w->joint_count; j++) {
            float *x = w->joints[j].t; /* t, r, s: 10 floats */
            for (int k = 0; k < 10; k++) x[k] = NAN;
        }
        CHECK(isnan(bw_animator_pose(edited)->joints[0].r[3])); /* the edit is the animator's pose itself */
    }
    CHECK_INT(differ, 0);
    CHECK(turned > 20); /* the head aim ran (the look target sweeps sideways) */
    bw_animator_destroy(clean);
    bw_animator_destroy(edited);
    bw_graph_destroy(graph);
}

int main(void)
{
    setup();
    RUN(locomotion_blends_by_planar_speed_with_exact_weights_and_rates);
    RUN(root_motion_comes_through_the_extractor_and_leaves_the_pose);
    RUN(the_base_reports_the_markers_its_dominant_play_crosses);
    RUN(vertical_velocity_leaves_the_character_idle);
    RUN(explicit_clip_weights_override_locomotion);
    RUN(gesture_envelope_follows_each_curve);
    RUN(a_new_gesture_replaces_the_old_one_smoothly);
    RUN(a_gesture_at_sixty_hertz_ends_on_the_update_that_reaches_its_duration);
    RUN(face_maps_into_custom_spaces_and_needs_a_map);
    RUN(blink_is_seeded_and_periodic);
    RUN(head_aim_clamps_relative_to_the_body_through_a_full_turn);
    RUN(the_animator_runs_a_graph_with_params_and_triggers);
    RUN(animators_on_one_binding_cache_share_bindings_and_numbers);
    RUN(a_crowd_on_worker_scratches_matches_one_by_one);
    RUN(host_edits_of_the_mutable_pose_do_not_reach_the_next_update);
    RUN(update_allocates_nothing_over_ten_thousand_frames);
    RUN(validation_names_the_field_of_fifteen_malformed_states);
    RUN(create_reports_every_problem_of_the_desc);
    RUN(create_codes_follow_types_h);
    RUN(a_chain_name_the_rig_has_twice_takes_its_parent);
    RUN(the_default_chain_warns_of_a_name_the_rig_has_twice);
    RUN(a_track_a_twice_named_joint_leaves_unbound_is_a_warning);
    RUN(robot_expressive_runs_through_the_animator);
    teardown();
    return check_summary();
}
