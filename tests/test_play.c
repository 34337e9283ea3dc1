/* test_play.c - playback tracks: time wrapping, markers, loop and end
 * signals, fades, stop vs removal, seeking, bad input (SPEC §4, play.h).
 *
 * Signals are recorded as a space-separated string per drain: a marker by
 * its name, "L" for LOOP, "E" for ENDED, "S" for STOPPED. Every expected
 * string below is derived by hand from the rules in play.h; the derivation
 * is written beside it. Steps are powers of two (0.25, 0.5) wherever
 * possible so times are exact in binary and boundaries are hit exactly.
 */
#include <float.h>

#include "blendwerk/bind.h"
#include "blendwerk/clip.h"
#include "blendwerk/mix.h"
#include "blendwerk/play.h"
#include "blendwerk/rig.h"
#include "check.h"
#include "fixtures.h"

/* ---- fixtures ---- */

static bw_rig *rig;
static bw_mixer *mixer;

/* Two joints: root and bone, both at rest identity. */
static void make_rig(void)
{
    bw_rig_joint_desc joints[2] = {
        {"root", -1, {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}}},
        {"bone", 0, {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}}},
    };
    bw_rig_desc desc = {.joints = joints, .joint_count = 2};
    rig = fixture_rig_desc(&desc);
    bw_mixer_desc md = {.rig = rig}; /* the default 16 contributions */
    if (bw_mixer_create(&md, &mixer) != BW_OK) {
        fprintf(stderr, "cannot create the mixer\n");
        exit(1);
    }
}

typedef struct clip_and_binding {
    bw_clip *clip;
    bw_binding *binding;
} clip_and_binding;

/* A clip of `length` seconds whose bone translation x runs linearly from x0
 * at 0 to x1 at `length` (no track when length is 0), with markers. */
static clip_and_binding make_clip(float length, bool loop, float x0, float x1, const bw_marker_desc *markers,
                              int marker_count)
{
    clip_and_binding fc = {NULL, NULL};
    float times[2] = {0.0f, length};
    float values[6] = {x0, 0, 0, x1, 0, 0};
    bw_track_desc track = {"root", "bone", BW_CHANNEL_TRANSLATION, BW_INTERP_EASED, 2, times, values, NULL, NULL};
    bw_clip_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.tracks = &track;
    desc.track_count = length > 0.0f ? 1 : 0;
    desc.markers = markers;
    desc.marker_count = marker_count;
    desc.length = length;
    desc.loop = loop;
    fc.clip = fixture_clip_desc(&desc);
    fc.binding = fixture_binding(fc.clip, rig);
    return fc;
}

static void free_clip(clip_and_binding *fc)
{
    bw_binding_destroy(fc->binding);
    bw_clip_destroy(fc->clip);
}

/* The standard clip: 1 s, looping, markers a at 0.25 and b at 0.75. */
static clip_and_binding make_ab_clip(bool loop)
{
    static const bw_marker_desc ab[2] = {{"a", 0.25f}, {"b", 0.75f}};
    return make_clip(1.0f, loop, 0.0f, 1.0f, ab, 2);
}

static bw_track_set *make_set(int capacity, int signal_capacity)
{
    bw_track_set_desc desc = {.rig = rig, .capacity = capacity, .signal_capacity = signal_capacity};
    bw_track_set *set = NULL;
    if (bw_track_set_create(&desc, &set) != BW_OK) {
        fprintf(stderr, "cannot create a track set\n");
        exit(1);
    }
    return set;
}

/* bw_track_set_play as a handle, or -1 when refused. */
static int play(bw_track_set *set, const bw_play_desc *d)
{
    int h = -1;
    return bw_track_set_play(set, d, &h) == BW_OK ? h : -1;
}

/* loop: -1 the clip's flag, 0 off, 1 on. */
static int play_at(bw_track_set *set, const clip_and_binding *fc, double time, float speed, int loop)
{
    bw_play_desc d = bw_play_desc_defaults(fc->binding);
    d.time = time;
    d.speed = speed;
    d.loop = loop < 0 ? BW_LOOP_CLIP : loop ? BW_LOOP_ON : BW_LOOP_OFF;
    return play(set, &d);
}

/* ---- signal recording ---- */

typedef struct recorder {
    char text[8192];
    int count;
    int loops, markers, ended, stopped;
    int last_track;
    /* for the compose-before-drain test */
    const bw_pose *watch;
    float seen_x;
} recorder;

static void record(void *user, const bw_signal *s)
{
    recorder *r = user;
    const char *token = "?";
    switch (s->kind) {
    case BW_SIGNAL_MARKER: token = s->name; r->markers++; break;
    case BW_SIGNAL_LOOP: token = "L"; r->loops++; break;
    case BW_SIGNAL_ENDED: token = "E"; r->ended++; break;
    case BW_SIGNAL_STOPPED: token = "S"; r->stopped++; break;
    }
    size_t len = strlen(r->text);
    if (len + strlen(token) + 2 < sizeof r->text)
        snprintf(r->text + len, sizeof r->text - len, "%s%s", len ? " " : "", token);
    r->count++;
    r->last_track = s->track;
    if (r->watch) r->seen_x = r->watch->joints[1].t[0];
}

static void reset(recorder *r) { memset(r, 0, sizeof *r); }

/* One frame: advance, drain; returns what the drain delivered. */
static const char *frame(bw_track_set *set, float dt, recorder *r)
{
    r->text[0] = '\0';
    bw_track_set_advance(set, dt);
    bw_track_set_drain(set, record, r);
    return r->text;
}

/* ---- tests ---- */

/* Forward steps of 0.25 from 0 over two passes: each step covers
 * (old, new], so a marker at 0.25 fires on the step that lands on it and
 * not again on the step that leaves it. 0.75 -> 1.0 lands exactly on the
 * wrap: LOOP, time 0 (no marker at 0 here). */
static void forward_steps_fire_each_marker_once(void)
{
    clip_and_binding fc = make_ab_clip(true);
    bw_track_set *set = make_set(0, 0);
    recorder r;
    reset(&r);
    int h = play_at(set, &fc, 0.0, 1.0f, -1);
    CHECK(h >= 0);
    static const char *expected[8] = {"a", "", "b", "L", "a", "", "b", "L"};
    static const double times[8] = {0.25, 0.5, 0.75, 0.0, 0.25, 0.5, 0.75, 0.0};
    for (int i = 0; i < 8; i++) {
        CHECK_STR(frame(set, 0.25f, &r), expected[i]);
        CHECK_NEAR(bw_track_set_time(set, h), times[i], 1e-12);
    }
    CHECK_INT(r.markers, 4);
    CHECK_INT(r.loops, 2);
    CHECK_INT(r.last_track, h);
    bw_track_set_destroy(set);
    free_clip(&fc);
}

/* Speed -1 from 0 (fresh). Reverse covers [new, old): 0 -> -0.25 wraps to
 * 0.75: nothing at 0, LOOP, then [0.75, 1) holds b. 0.75 -> 0.5 covers
 * [0.5, 0.75): nothing (b was the landing point). 0.5 -> 0.25 covers
 * [0.25, 0.5): a. 0.25 -> 0: nothing; 0 -> 0.75 again: L b. */
static void reverse_playback_visits_markers_backwards(void)
{
    clip_and_binding fc = make_ab_clip(true);
    bw_track_set *set = make_set(0, 0);
    recorder r;
    reset(&r);
    int h = play_at(set, &fc, 0.0, -1.0f, -1);
    static const char *expected[5] = {"L b", "", "a", "", "L b"};
    static const double times[5] = {0.75, 0.5, 0.25, 0.0, 0.75};
    for (int i = 0; i < 5; i++) {
        CHECK_STR(frame(set, 0.25f, &r), expected[i]);
        CHECK_NEAR(bw_track_set_time(set, h), times[i], 1e-12);
    }
    /* One reverse step over both markers: 0.875 -> 0.125 covers
     * [0.125, 0.875): b first, then a. */
    CHECK_INT(bw_track_set_seek(set, h, 0.875), BW_OK);
    CHECK_STR(frame(set, 0.75f, &r), "b a");
    CHECK_NEAR(bw_track_set_time(set, h), 0.125, 1e-12);
    /* Reverse across the loop with markers on both sides: 0.375 -> -0.375
     * (= 0.625): [0, 0.375) gives a, LOOP, [0.625, 1) gives b. */
    CHECK_INT(bw_track_set_seek(set, h, 0.375), BW_OK);
    CHECK_STR(frame(set, 0.75f, &r), "a L b");
    CHECK_NEAR(bw_track_set_time(set, h), 0.625, 1e-12);
    bw_track_set_destroy(set);
    free_clip(&fc);
}

/* 0.9 -> 1.3: (0.9, 1) holds nothing, LOOP, [0, 0.3] holds a: "L a".
 * 0.7 -> 1.3: b lies before the wrap, so "b L a" (markers in travel order,
 * LOOP at the boundary between them). */
static void step_across_loop_orders_markers_and_loop(void)
{
    clip_and_binding fc = make_ab_clip(true);
    bw_track_set *set = make_set(0, 0);
    recorder r;
    reset(&r);
    int h = play_at(set, &fc, 0.9, 1.0f, -1);
    CHECK_STR(frame(set, 0.4f, &r), "L a");
    /* 0.9 + (double)0.4f = 1.3000000059604645, minus the wrap */
    CHECK_NEAR(bw_track_set_time(set, h), 0.3000000059604645, 1e-9);
    double from = -1, delta = -1;
    CHECK(bw_track_set_last_step(set, h, &from, &delta));
    CHECK_NEAR(from, 0.9, 1e-12);
    CHECK_NEAR(delta, 0.4000000059604645, 1e-12); /* unwrapped: no backwards jump */
    CHECK_INT(bw_track_set_seek(set, h, 0.7), BW_OK);
    CHECK_STR(frame(set, 0.6f, &r), "b L a");
    bw_track_set_destroy(set);
    free_clip(&fc);
}

/* dt = 1e9 s at speed 1 from 0.9 crosses n = 1e9 boundaries. LOOPs are
 * capped at the 16 nearest the landing time; markers come only from the 4
 * last passes (n-3 .. n), each entered by its LOOP and holding a and b
 * (the last pass ends at ~0.9 > 0.75). So 12 bare LOOPs, then 4 × "L a b".
 * (float)1e9 is exactly 1e9; 1e9 + 0.9 wraps to 0.9 within double
 * rounding at 1e9 (ulp 1.2e-7). */
static void huge_step_is_capped(void)
{
    clip_and_binding fc = make_ab_clip(true);
    bw_track_set *set = make_set(0, 0);
    recorder r;
    reset(&r);
    int h = play_at(set, &fc, 0.9, 1.0f, -1);
    const char *expected = "L L L L L L L L L L L L L a b L a b L a b L a b";
    CHECK_STR(frame(set, 1e9f, &r), expected);
    CHECK_INT(r.loops, 16);
    CHECK_INT(r.markers, 8);
    CHECK_NEAR(bw_track_set_time(set, h), 0.9, 1e-6);
    CHECK_INT(bw_track_set_dropped_signals(set), 0);

    /* The same stall in reverse from 0.1: each visited pass holds b then a. */
    reset(&r);
    CHECK_INT(bw_track_set_seek(set, h, 0.1), BW_OK);
    CHECK_INT(bw_track_set_set_speed(set, h, -1.0f), BW_OK);
    CHECK_STR(frame(set, 1e9f, &r), "L L L L L L L L L L L L L b a L b a L b a L b a");
    CHECK_NEAR(bw_track_set_time(set, h), 0.1, 1e-6);

    /* The largest finite step (FLT_MAX × 1e9 ≈ 3.4e47 s of clip time): the
     * same caps, and the time stays a valid clip time. */
    reset(&r);
    CHECK_INT(bw_track_set_set_speed(set, h, FLT_MAX), BW_OK);
    frame(set, 1e9f, &r);
    CHECK_INT(r.loops, 16);
    CHECK(r.markers <= 8);
    double t = bw_track_set_time(set, h);
    CHECK(t >= 0.0 && t < 1.0);
    bw_track_set_destroy(set);
    free_clip(&fc);
}

/* The window's precision limit (play.h): from 0, an advance of 1e16f s
 * (10000000272564224, an integer: the track lands on a wrap, time 0) keeps
 * its window (1e16f - 4, 1e16f], where doubles are 2 apart: 12 LOOPs before
 * it, then 4 passes of "a b" each ending on its LOOP. At 1e17f (spacing 16)
 * and 1e30 (spacing ~1.4e14) to - 4 rounds to to: the window is lost, no
 * marker fires, the 16 LOOPs still arrive. */
static void the_window_needs_the_time_to_resolve_a_pass(void)
{
    clip_and_binding fc = make_ab_clip(true);
    bw_track_set *set = make_set(0, 0);
    recorder r;
    reset(&r);
    int h = play_at(set, &fc, 0.0, 1.0f, -1);
    CHECK_STR(frame(set, 1e16f, &r), "L L L L L L L L L L L L a b L a b L a b L a b L");
    CHECK_INT(r.markers, 8);
    CHECK_INT(r.loops, 16);
    CHECK_NEAR(bw_track_set_time(set, h), 0.0, 0);
    float steps[2] = {1e17f, 1e30f};
    for (int i = 0; i < 2; i++) {
        CHECK_INT(bw_track_set_seek(set, h, 0.0), BW_OK);
        reset(&r);
        CHECK_STR(frame(set, steps[i], &r), "L L L L L L L L L L L L L L L L");
        CHECK_INT(r.markers, 0);
        CHECK_INT(r.loops, 16);
        double t = bw_track_set_time(set, h);
        CHECK(t >= 0.0 && t < 1.0);
    }
    bw_track_set_destroy(set);
    free_clip(&fc);
}

/* Five wraps (0.875 -> 5.875): passes 0..5; LOOP count 5 (below the cap);
 * markers only in the window of the last 4 lengths of travel, (1.875, 5.875],
 * so pass 1's a and b are skipped: "L" (entering pass 1) then 4 × "L a b".
 * Reverse from 0.125 by 5 s mirrors it with "b a". */
static void five_wraps_visit_the_last_four_cycles(void)
{
    clip_and_binding fc = make_ab_clip(true);
    bw_track_set *set = make_set(0, 0);
    recorder r;
    reset(&r);
    int h = play_at(set, &fc, 0.875, 1.0f, -1);
    CHECK_STR(frame(set, 5.0f, &r), "L L a b L a b L a b L a b");
    CHECK_NEAR(bw_track_set_time(set, h), 0.875, 1e-12);
    CHECK_INT(bw_track_set_seek(set, h, 0.125), BW_OK);
    CHECK_INT(bw_track_set_set_speed(set, h, -1.0f), BW_OK);
    CHECK_STR(frame(set, 5.0f, &r), "L L b a L b a L b a L b a");
    CHECK_NEAR(bw_track_set_time(set, h), 0.125, 1e-12);
    bw_track_set_destroy(set);
    free_clip(&fc);
}

/* Markers s at 0 and e at 1.0 (the length). Looping: e is taken modulo the
 * length, so both sit at 0 and fire in index order (s, e). The fresh track
 * includes its start: [0, 0.5] fires "s e". 0.5 -> 1.0 lands on the wrap:
 * "L s e". Non-looping: [0, 0.5] fires s; (0.5, 1] fires e, then ENDED;
 * held at the end nothing more fires. */
static void events_at_zero_and_at_the_end(void)
{
    static const bw_marker_desc se[2] = {{"s", 0.0f}, {"e", 1.0f}};
    clip_and_binding fc = make_clip(1.0f, true, 0.0f, 1.0f, se, 2);
    bw_track_set *set = make_set(0, 0);
    recorder r;
    reset(&r);
    int h = play_at(set, &fc, 0.0, 1.0f, -1);
    CHECK_STR(frame(set, 0.5f, &r), "s e");
    CHECK_STR(frame(set, 0.5f, &r), "L s e");
    CHECK_STR(frame(set, 0.5f, &r), "");
    CHECK_STR(frame(set, 0.5f, &r), "L s e");
    CHECK_NEAR(bw_track_set_time(set, h), 0.0, 1e-12);
    CHECK_INT(bw_track_set_stop(set, h, 0.0f), BW_OK);
    CHECK_STR(frame(set, 0.0f, &r), "S");

    int o = play_at(set, &fc, 0.0, 1.0f, 0);
    CHECK(o >= 0);
    CHECK(!bw_track_set_looping(set, o));
    CHECK_STR(frame(set, 0.5f, &r), "s");
    CHECK_STR(frame(set, 0.5f, &r), "e E");
    CHECK_STR(frame(set, 0.5f, &r), "");
    CHECK_NEAR(bw_track_set_time(set, o), 1.0, 1e-12);
    /* Leaving the end re-arms ENDED: back to 0.5 ([0.5, 1) excludes e),
     * then forward again: (0.5, 1] gives e and a second ENDED. */
    CHECK_INT(bw_track_set_set_speed(set, o, -1.0f), BW_OK);
    CHECK_STR(frame(set, 0.5f, &r), "");
    CHECK_INT(bw_track_set_set_speed(set, o, 1.0f), BW_OK);
    CHECK_STR(frame(set, 0.5f, &r), "e E");
    /* Reverse from the end: [0.5, 1) excludes e; [0, 0.5) reaches 0, which
     * holds s (new endpoint included), then ENDED at the start. */
    CHECK_INT(bw_track_set_set_speed(set, o, -1.0f), BW_OK);
    CHECK_STR(frame(set, 0.5f, &r), "");
    CHECK_STR(frame(set, 0.5f, &r), "s E");
    CHECK_STR(frame(set, 0.5f, &r), "");
    bw_track_set_destroy(set);
    free_clip(&fc);
}

/* Markers a at 0.25, b at 0.75 again: one step of 2.5 s from 0 (looping)
 * crosses passes 0, 1, 2: "a b L a b L a", landing at 0.5. Non-looping it
 * clamps at the end: "a b E", time 1, and the step reported is 1 s. */
static void count_marker(void *user, const bw_signal *s)
{
    if (s->kind == BW_SIGNAL_MARKER) (*(int *)user)++;
}

static void dt_larger_than_the_clip(void)
{
    clip_and_binding fc = make_ab_clip(true);
    bw_track_set *set = make_set(0, 0);
    recorder r;
    reset(&r);
    int h = play_at(set, &fc, 0.0, 1.0f, -1);
    CHECK_STR(frame(set, 2.5f, &r), "a b L a b L a");
    CHECK_NEAR(bw_track_set_time(set, h), 0.5, 1e-12);
    CHECK_INT(bw_track_set_stop(set, h, 0.0f), BW_OK);
    frame(set, 0.0f, &r);

    int o = play_at(set, &fc, 0.0, 1.0f, 0);
    CHECK_STR(frame(set, 2.5f, &r), "a b E");
    CHECK_NEAR(bw_track_set_time(set, o), 1.0, 1e-12);
    double from = -1, delta = -1;
    CHECK(bw_track_set_last_step(set, o, &from, &delta));
    CHECK_NEAR(from, 0.0, 1e-12);
    CHECK_NEAR(delta, 1.0, 1e-12);
    CHECK_INT(bw_track_set_stop(set, o, 0.0f), BW_OK);
    frame(set, 0.0f, &r);

    /* a one-shot given a 1e9 s step: its markers once, ENDED, held at the end */
    int big = play_at(set, &fc, 0.0, 1.0f, 0);
    CHECK_STR(frame(set, 1e9f, &r), "a b E");
    CHECK_NEAR(bw_track_set_time(set, big), 1.0, 1e-12);
    CHECK(bw_track_set_last_step(set, big, &from, &delta));
    CHECK_NEAR(from + delta, 1.0, 1e-12);
    bw_track_set_destroy(set);
    free_clip(&fc);
}

/* A rig with no joints: binding, playing, a 1e9 s advance, compose and
 * drain all work and produce the (empty) pose; markers still fire. */
static void empty_rig_plays_and_composes(void)
{
    bw_rig_desc rd = {0};
    bw_rig *empty = NULL;
    CHECK_INT(bw_rig_create(&rd, &empty, NULL), BW_OK);
    bw_marker_desc m = {"tick", 0.5f};
    bw_clip_desc cd = {0};
    cd.markers = &m;
    cd.marker_count = 1;
    cd.length = 1.0f;
    cd.loop = true;
    bw_clip *clip = NULL;
    CHECK_INT(bw_clip_create(&cd, &clip, NULL), BW_OK);
    bw_binding *b = NULL;
    CHECK_INT(bw_binding_create(&(bw_binding_desc){.clip = clip, .rig = empty}, &b, NULL), BW_OK);
    bw_track_set_desc sd = {.rig = empty, .capacity = 2};
    bw_track_set *set = NULL;
    CHECK_INT(bw_track_set_create(&sd, &set), BW_OK);
    bw_mixer *mx = NULL;
    bw_mixer_desc md = {.rig = empty, .max_contributions = 2};
    CHECK_INT(bw_mixer_create(&md, &mx), BW_OK);
    bw_pose out;
    CHECK_INT(bw_pose_init(&out, empty, NULL), BW_OK);
    bw_play_desc pd = bw_play_desc_defaults(b);
    int h = play(set, &pd);
    CHECK(h >= 0);
    int ticks = 0;
    bw_track_set_advance(set, 0.75f);
    CHECK_INT(bw_track_set_compose(set, mx, NULL, &out), BW_OK);
    bw_track_set_drain(set, count_marker, &ticks);
    CHECK_INT(ticks, 1);
    bw_track_set_advance(set, 1e9f);
    CHECK_INT(bw_track_set_compose(set, mx, NULL, &out), BW_OK);
    bw_track_set_drain(set, count_marker, &ticks);
    CHECK_INT(ticks, 5); /* plus the 4 cycles of markers a step may visit */
    CHECK_INT(out.joint_count, 0);
    bw_pose_deinit(&out);
    bw_mixer_destroy(mx);
    bw_track_set_destroy(set);
    bw_binding_destroy(b);
    bw_clip_destroy(clip);
    bw_rig_destroy(empty);
}

/* A non-looping clip (bone x: 0 -> 1 over 1 s) reaches its end, queues
 * ENDED once and keeps contributing its end sample while it fades out:
 * stop(0.5) at weight 1, then 0.25 s later weight 0.5 and the composed x is
 * lerp(rest 0, 1, 0.5) = 0.5; another 0.25 s: weight 0, x = 0, and the
 * drain removes it with STOPPED. */
static void non_looping_holds_end_while_fading(void)
{
    clip_and_binding fc = make_ab_clip(false);
    bw_track_set *set = make_set(0, 0);
    bw_pose out;
    CHECK_INT(bw_pose_init(&out, rig, NULL), BW_OK);
    recorder r;
    reset(&r);
    int h = play_at(set, &fc, 0.5, 1.0f, -1); /* the clip's flag: not looping */
    CHECK(!bw_track_set_looping(set, h));
    CHECK_STR(frame(set, 0.375f, &r), "b"); /* [0.5, 0.875] */
    CHECK_STR(frame(set, 0.375f, &r), "E"); /* (0.875, 1] */
    CHECK_NEAR(bw_track_set_time(set, h), 1.0, 1e-12);
    CHECK_INT(bw_track_set_compose(set, mixer, NULL, &out), BW_OK);
    CHECK_NEAR(out.joints[1].t[0], 1.0, 1e-6);
    CHECK_INT(bw_track_set_stop(set, h, 0.5f), BW_OK);
    CHECK(bw_track_set_stopping(set, h));
    CHECK_STR(frame(set, 0.25f, &r), "");
    CHECK_NEAR(bw_track_set_weight(set, h), 0.5, 1e-6);
    CHECK_NEAR(bw_track_set_time(set, h), 1.0, 1e-12);
    CHECK_INT(bw_track_set_compose(set, mixer, NULL, &out), BW_OK);
    CHECK_NEAR(out.joints[1].t[0], 0.5, 1e-6);
    bw_track_set_advance(set, 0.25f);
    CHECK_NEAR(bw_track_set_weight(set, h), 0.0, 1e-6);
    CHECK(bw_track_set_alive(set, h)); /* removal waits for the drain */
    CHECK_INT(bw_track_set_compose(set, mixer, NULL, &out), BW_OK);
    CHECK_NEAR(out.joints[1].t[0], 0.0, 1e-6);
    r.text[0] = '\0';
    bw_track_set_drain(set, record, &r);
    CHECK_STR(r.text, "S");
    CHECK_INT(r.ended, 1);
    CHECK(!bw_track_set_alive(set, h));
    CHECK_INT(bw_track_set_count(set), 0);
    bw_pose_deinit(&out);
    bw_track_set_destroy(set);
    free_clip(&fc);
}

/* stop(0.4) from weight 1: linear, w(t) = 1 - t / 0.4, so after 0.1 s
 * steps 0.75, 0.5, 0.25, 0. Only the drain after weight reaches 0 removes
 * the track and delivers STOPPED; the handle then names nothing and the
 * slot's next track gets a different handle. */
static void stop_fades_then_drain_removes(void)
{
    clip_and_binding fc = make_ab_clip(true);
    bw_track_set *set = make_set(1, 0);
    recorder r;
    reset(&r);
    bw_play_desc d = bw_play_desc_defaults(fc.binding);
    d.speed = 0.0f;
    d.held = true; /* speed 0 (markers are not the subject here) */
    int user_tag = 42;
    d.user = &user_tag;
    int h = play(set, &d);
    CHECK(h >= 0);
    CHECK_NEAR(bw_track_set_weight(set, h), 1.0, 0);
    CHECK_INT(bw_track_set_stop(set, h, 0.4f), BW_OK);
    static const double w[4] = {0.75, 0.5, 0.25, 0.0};
    for (int i = 0; i < 3; i++) {
        CHECK_STR(frame(set, 0.1f, &r), "");
        CHECK_NEAR(bw_track_set_weight(set, h), w[i], 1e-6);
        CHECK(bw_track_set_alive(set, h));
    }
    int refused = 77;
    CHECK_INT(bw_track_set_play(set, &d, &refused), BW_ERR_LIMIT); /* capacity 1: full */
    CHECK_INT(refused, 77);                                       /* untouched */
    bw_track_set_advance(set, 0.1f);
    CHECK_NEAR(bw_track_set_weight(set, h), w[3], 1e-6);
    CHECK(bw_track_set_alive(set, h));
    CHECK_INT(bw_track_set_count(set), 1);
    CHECK_STR(frame(set, 0.0f, &r), "S");
    CHECK_INT(r.last_track, h);
    CHECK(!bw_track_set_alive(set, h));
    CHECK(isnan(bw_track_set_weight(set, h)));
    CHECK(isnan(bw_track_set_time(set, h)));
    bw_pose probe;
    CHECK_INT(bw_pose_init(&probe, rig, NULL), BW_OK);
    CHECK_INT(bw_track_set_sample_track(set, h, &probe), BW_ERR_INVALID_ARGUMENT);
    bw_pose_deinit(&probe);
    CHECK_INT(bw_track_set_stop(set, h, 0.0f), BW_ERR_INVALID_ARGUMENT);

    int h2 = play(set, &d);
    CHECK(h2 >= 0);
    CHECK(h2 != h);
    CHECK(!bw_track_set_alive(set, h));
    CHECK(bw_track_set_alive(set, h2));

    /* Fade-in: 0 -> 0.8 over 0.5 s is 0.4 at 0.25 s and holds 0.8 after. */
    bw_track_set_stop(set, h2, 0.0f);
    frame(set, 0.0f, &r);
    d.weight = 0.8f;
    d.fade_in = 0.5f;
    int h3 = play(set, &d);
    CHECK_NEAR(bw_track_set_weight(set, h3), 0.0, 0);
    frame(set, 0.25f, &r);
    CHECK_NEAR(bw_track_set_weight(set, h3), 0.4, 1e-6);
    frame(set, 0.5f, &r);
    CHECK_NEAR(bw_track_set_weight(set, h3), 0.8, 1e-6);

    /* A fade to 0 without stop never removes the track. */
    CHECK_INT(bw_track_set_fade(set, h3, 0.0f, 0.2f), BW_OK);
    for (int i = 0; i < 4; i++) frame(set, 0.1f, &r);
    CHECK_NEAR(bw_track_set_weight(set, h3), 0.0, 1e-6);
    CHECK(bw_track_set_alive(set, h3));
    /* A fade cancels a pending stop: 0 -> 1 over 0.5 s. */
    CHECK_INT(bw_track_set_stop(set, h3, 1.0f), BW_OK);
    CHECK_INT(bw_track_set_fade(set, h3, 1.0f, 0.5f), BW_OK);
    CHECK(!bw_track_set_stopping(set, h3));
    frame(set, 0.25f, &r);
    CHECK_NEAR(bw_track_set_weight(set, h3), 0.5, 1e-6);
    CHECK(bw_track_set_alive(set, h3));
    /* STOPPED carries the track's user pointer. */
    bw_track_set_stop(set, h3, 0.0f);
    bw_track_set_advance(set, 0.0f);
    bw_track_set_drain(set, record, &r);
    CHECK_INT(r.stopped, 3);
    bw_track_set_destroy(set);
    free_clip(&fc);
}

static void *seen_user;
static void keep_user(void *user, const bw_signal *s)
{
    (void)user;
    seen_user = s->user;
}

/* A signal's user pointer is the track's. */
static void signals_carry_the_track_user(void)
{
    clip_and_binding fc = make_ab_clip(true);
    bw_track_set *set = make_set(0, 0);
    int tag = 7;
    bw_play_desc d = bw_play_desc_defaults(fc.binding);
    d.user = &tag;
    int h = play(set, &d);
    bw_track_set_stop(set, h, 0.0f);
    bw_track_set_drain(set, keep_user, NULL);
    CHECK(seen_user == &tag);
    bw_track_set_destroy(set);
    free_clip(&fc);
}

/* Seeking fires nothing, not even a marker exactly at the target on the
 * next advance: seek 0.75 then (0.75, 0.875] is empty. Seek to 0.125 then
 * (0.125, 0.25] holds a. A seek wraps like playback (-0.25 -> 0.75,
 * 2.25 -> 0.25) and rejects NaN. */
static void seek_fires_nothing(void)
{
    clip_and_binding fc = make_ab_clip(true);
    bw_track_set *set = make_set(0, 0);
    recorder r;
    reset(&r);
    int h = play_at(set, &fc, 0.0, 1.0f, -1);
    CHECK_INT(bw_track_set_seek(set, h, 0.75), BW_OK);
    CHECK_STR(frame(set, 0.0f, &r), "");
    CHECK_STR(frame(set, 0.125f, &r), "");
    CHECK_INT(bw_track_set_seek(set, h, 0.125), BW_OK);
    CHECK_STR(frame(set, 0.125f, &r), "a");
    /* A seek across markers and the loop queues nothing. */
    CHECK_INT(bw_track_set_seek(set, h, 5.5), BW_OK);
    CHECK_STR(frame(set, 0.0f, &r), "");
    CHECK_NEAR(bw_track_set_time(set, h), 0.5, 1e-12);
    CHECK_INT(bw_track_set_seek(set, h, -0.25), BW_OK);
    CHECK_NEAR(bw_track_set_time(set, h), 0.75, 1e-12);
    CHECK_INT(bw_track_set_seek(set, h, 2.25), BW_OK);
    CHECK_NEAR(bw_track_set_time(set, h), 0.25, 1e-12);
    CHECK_INT(bw_track_set_seek(set, h, NAN), BW_ERR_NON_FINITE);
    CHECK_INT(bw_track_set_seek(set, h, INFINITY), BW_ERR_NON_FINITE);
    CHECK_NEAR(bw_track_set_time(set, h), 0.25, 1e-12);
    CHECK_INT(bw_track_set_seek(set, h + 1, 0.0), BW_ERR_INVALID_ARGUMENT);
    /* Non-looping: clamped to [0, length]. */
    int o = play_at(set, &fc, 3.0, 1.0f, 0);
    CHECK_NEAR(bw_track_set_time(set, o), 1.0, 0);
    CHECK_INT(bw_track_set_seek(set, o, -2.0), BW_OK);
    CHECK_NEAR(bw_track_set_time(set, o), 0.0, 0);
    bw_track_set_destroy(set);
    free_clip(&fc);
}

/* Non-finite and negative dt are 0: time, fades and signals unchanged. A
 * non-finite speed or start is refused. */
static void nan_dt_and_speed(void)
{
    clip_and_binding fc = make_ab_clip(true);
    bw_track_set *set = make_set(0, 0);
    recorder r;
    reset(&r);
    int h = play_at(set, &fc, 0.125, 1.0f, -1);
    CHECK_INT(bw_track_set_fade(set, h, 0.0f, 1.0f), BW_OK);
    float bad[4] = {NAN, INFINITY, -INFINITY, -0.5f};
    for (int i = 0; i < 4; i++) {
        CHECK_STR(frame(set, bad[i], &r), "");
        CHECK_NEAR(bw_track_set_time(set, h), 0.125, 0);
        CHECK_NEAR(bw_track_set_weight(set, h), 1.0, 0);
    }
    CHECK_INT(bw_track_set_set_speed(set, h, NAN), BW_ERR_NON_FINITE);
    CHECK_INT(bw_track_set_set_speed(set, h, INFINITY), BW_ERR_NON_FINITE);
    CHECK_NEAR(bw_track_set_speed(set, h), 1.0, 0);
    /* The track is still fresh (nothing moved): its start is included on
     * the first advance that moves; 0.125 -> 0.375 holds a. */
    CHECK_STR(frame(set, 0.25f, &r), "a");
    CHECK_NEAR(bw_track_set_weight(set, h), 0.75, 1e-6);
    CHECK_INT(bw_track_set_fade(set, h, NAN, 1.0f), BW_ERR_NON_FINITE);
    CHECK_INT(bw_track_set_fade(set, h, 1.0f, INFINITY), BW_ERR_NON_FINITE);
    CHECK_INT(bw_track_set_fade(set, h, -1.0f, 1.0f), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_track_set_stop(set, h, NAN), BW_ERR_NON_FINITE);
    CHECK_INT(bw_track_set_stop(set, h, -1.0f), BW_ERR_INVALID_ARGUMENT);
    CHECK(!bw_track_set_stopping(set, h));

    /* refusals say why: non-finite numbers, bad values, a full set */
    bw_play_desc d = bw_play_desc_defaults(fc.binding);
    d.speed = NAN;
    CHECK_INT(bw_track_set_play(set, &d, NULL), BW_ERR_NON_FINITE);
    d = bw_play_desc_defaults(fc.binding);
    d.time = INFINITY;
    CHECK_INT(bw_track_set_play(set, &d, NULL), BW_ERR_NON_FINITE);
    d = bw_play_desc_defaults(fc.binding);
    d.weight = NAN;
    CHECK_INT(bw_track_set_play(set, &d, NULL), BW_ERR_NON_FINITE);
    d = bw_play_desc_defaults(fc.binding);
    d.fade_in = -1.0f;
    CHECK_INT(bw_track_set_play(set, &d, NULL), BW_ERR_INVALID_ARGUMENT);
    d = bw_play_desc_defaults(fc.binding);
    d.weight = -1.0f;
    CHECK_INT(bw_track_set_play(set, &d, NULL), BW_ERR_INVALID_ARGUMENT);
    d = bw_play_desc_defaults(fc.binding);
    d.loop = (bw_loop_mode)3;
    CHECK_INT(bw_track_set_play(set, &d, NULL), BW_ERR_INVALID_ARGUMENT);
    d = bw_play_desc_defaults(fc.binding); /* held with a speed, silent with a weight: contradictions */
    d.held = true;
    CHECK_INT(bw_track_set_play(set, &d, NULL), BW_ERR_INVALID_ARGUMENT);
    d = bw_play_desc_defaults(fc.binding);
    d.silent = true;
    CHECK_INT(bw_track_set_play(set, &d, NULL), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_track_set_play(set, NULL, NULL), BW_ERR_INVALID_ARGUMENT);
    d = bw_play_desc_defaults(NULL);
    CHECK_INT(bw_track_set_play(set, &d, NULL), BW_ERR_INVALID_ARGUMENT);
    d = bw_play_desc_defaults(fc.binding);
    CHECK_INT(bw_track_set_play(NULL, &d, NULL), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_track_set_count(set), 1);
    bw_track_set_destroy(set);
    free_clip(&fc);
}

/* The callback runs in drain, after compose: bone x runs 0 -> 1 over 1 s
 * with a marker m at 0.5; advancing 0.5 queues m, compose evaluates
 * x = 0.5, and the callback reading the composed pose sees 0.5 (the
 * previous frame's pose said 0). */
static void signals_delivered_after_compose(void)
{
    static const bw_marker_desc m[1] = {{"m", 0.5f}};
    clip_and_binding fc = make_clip(1.0f, true, 0.0f, 1.0f, m, 1);
    bw_track_set *set = make_set(0, 0);
    bw_pose out;
    CHECK_INT(bw_pose_init(&out, rig, NULL), BW_OK);
    recorder r;
    reset(&r);
    r.watch = &out;
    r.seen_x = -1.0f;
    play_at(set, &fc, 0.0, 1.0f, -1);
    CHECK_INT(bw_track_set_compose(set, mixer, NULL, &out), BW_OK);
    CHECK_NEAR(out.joints[1].t[0], 0.0, 1e-6);
    bw_track_set_advance(set, 0.5f);
    CHECK_INT(r.count, 0); /* nothing delivered by advance */
    CHECK_INT(bw_track_set_compose(set, mixer, NULL, &out), BW_OK);
    CHECK_INT(r.count, 0); /* nor by compose */
    bw_track_set_drain(set, record, &r);
    CHECK_STR(r.text, "m");
    CHECK_NEAR(r.seen_x, 0.5, 1e-6);
    bw_pose_deinit(&out);
    bw_track_set_destroy(set);
    free_clip(&fc);
}

/* Zero-length clips: the time stays 0. Looping: no LOOP, no markers, ever.
 * Non-looping: the first moving advance includes 0 (marker z) and ENDED;
 * nothing after. */
static void zero_length_clips(void)
{
    static const bw_marker_desc z[1] = {{"z", 0.0f}};
    clip_and_binding fc = make_clip(0.0f, true, 0.0f, 0.0f, z, 1);
    CHECK_NEAR(bw_clip_length(fc.clip), 0.0, 0);
    bw_track_set *set = make_set(0, 0);
    recorder r;
    reset(&r);
    int h = play_at(set, &fc, 0.0, 1.0f, -1);
    for (int i = 0; i < 10; i++) CHECK_STR(frame(set, 0.25f, &r), "");
    CHECK_STR(frame(set, 1e9f, &r), "");
    CHECK_NEAR(bw_track_set_time(set, h), 0.0, 0);
    bw_track_set_stop(set, h, 0.0f);
    frame(set, 0.0f, &r);

    int o = play_at(set, &fc, 0.0, 1.0f, 0);
    CHECK_STR(frame(set, 0.25f, &r), "z E");
    CHECK_STR(frame(set, 0.25f, &r), "");
    CHECK_NEAR(bw_track_set_time(set, o), 0.0, 0);
    bw_pose out;
    CHECK_INT(bw_pose_init(&out, rig, NULL), BW_OK);
    CHECK_INT(bw_track_set_compose(set, mixer, NULL, &out), BW_OK);
    CHECK(isfinite(out.joints[1].t[0]));
    bw_pose_deinit(&out);
    bw_track_set_destroy(set);
    free_clip(&fc);
}

/* 10,000 loops keep full precision because the time is re-wrapped every
 * advance. dt = 0.25 (exact): 40,000 steps end exactly at 0 with exactly
 * 10,000 LOOPs and 10,000 of each marker. dt = 0.1f (= 0.100000001490116
 * exactly): 100,000 steps travel 10000.000149011612 s, i.e. 10,000 wraps
 * and a final time of 0.000149011612 (computed by hand from the float's
 * exact value). */
static void ten_thousand_loops_keep_precision(void)
{
    clip_and_binding fc = make_ab_clip(true);
    bw_track_set *set = make_set(0, 0);
    recorder r;
    reset(&r);
    int h = play_at(set, &fc, 0.0, 1.0f, -1);
    for (int i = 0; i < 40000; i++) frame(set, 0.25f, &r);
    CHECK_NEAR(bw_track_set_time(set, h), 0.0, 0);
    CHECK_INT(r.loops, 10000);
    CHECK_INT(r.markers, 20000);
    CHECK_INT(bw_track_set_seek(set, h, 0.0), BW_OK);
    reset(&r);
    for (int i = 0; i < 100000; i++) frame(set, 0.1f, &r);
    CHECK_NEAR(bw_track_set_time(set, h), 0.000149011612, 1e-9);
    CHECK_INT(r.loops, 10000);
    CHECK_INT(r.markers, 20000);
    bw_track_set_destroy(set);
    free_clip(&fc);
}

/* Marker times modulo the length: y at -0.75 (= 0.25), a at 0.5, x at 1.0
 * (= 0). Sorted by raw time the clip stores y, a, x; forward from 0.875 by
 * 0.75 the new pass [0, 0.625] must fire by position: x, y, a. Reverse from
 * 0.625 by 0.75 (to 0.875): a, y, x, LOOP. */
static void marker_times_taken_modulo_length(void)
{
    static const bw_marker_desc mk[3] = {{"a", 0.5f}, {"x", 1.0f}, {"y", -0.75f}};
    clip_and_binding fc = make_clip(1.0f, true, 0.0f, 1.0f, mk, 3);
    bw_track_set *set = make_set(0, 0);
    recorder r;
    reset(&r);
    int h = play_at(set, &fc, 0.875, 1.0f, -1);
    CHECK_STR(frame(set, 0.75f, &r), "L x y a");
    CHECK_NEAR(bw_track_set_time(set, h), 0.625, 1e-12);
    CHECK_INT(bw_track_set_set_speed(set, h, -1.0f), BW_OK);
    CHECK_STR(frame(set, 0.75f, &r), "a y x L");
    CHECK_NEAR(bw_track_set_time(set, h), 0.875, 1e-12);
    bw_track_set_destroy(set);
    free_clip(&fc);
}

/* A full queue drops and counts: capacity 4, one 1e9 s step queues 24
 * signals (16 LOOPs + 8 markers), so 4 are delivered (the first four,
 * bare LOOPs) and 20 dropped; a later STOPPED is never dropped. */
static void full_queue_drops_and_counts(void)
{
    clip_and_binding fc = make_ab_clip(true);
    bw_track_set *set = make_set(0, 4);
    recorder r;
    reset(&r);
    int h = play_at(set, &fc, 0.875, 1.0f, -1);
    CHECK_STR(frame(set, 1e9f, &r), "L L L L");
    CHECK_INT(bw_track_set_dropped_signals(set), 20);
    CHECK_INT(bw_track_set_stop(set, h, 0.0f), BW_OK);
    frame(set, 1e9f, &r);
    CHECK_INT(r.stopped, 1);
    CHECK_INT(bw_track_set_dropped_signals(set), 40);
    bw_track_set_destroy(set);
    free_clip(&fc);
}

/* bw_track_set_prefetch is only a cache hint: a set prefetched before
 * every advance (of a capacity below the prefetch window, and NULL too)
 * runs exactly as one that is not, and both as the clip says: bone x is
 * the clip time, 0.125 s per frame (exact in binary), wrapping at 1 s. */
static void prefetch_is_only_a_hint(void)
{
    clip_and_binding fc = make_ab_clip(true);
    bw_track_set *plain = make_set(1, 0), *hinted = make_set(1, 0);
    bw_pose a, b;
    CHECK_INT(bw_pose_init(&a, rig, NULL), BW_OK);
    CHECK_INT(bw_pose_init(&b, rig, NULL), BW_OK);
    int ha = play_at(plain, &fc, 0.0, 1.0f, -1), hb = play_at(hinted, &fc, 0.0, 1.0f, -1);
    CHECK(ha >= 0 && hb >= 0);
    bw_track_set_prefetch(NULL);
    for (int k = 1; k <= 25; k++) {
        bw_track_set_advance(plain, 0.125f);
        bw_track_set_prefetch(hinted);
        bw_track_set_advance(hinted, 0.125f);
        CHECK_INT(bw_track_set_compose(plain, mixer, NULL, &a), BW_OK);
        bw_track_set_prefetch(hinted);
        CHECK_INT(bw_track_set_compose(hinted, mixer, NULL, &b), BW_OK);
        const double expected = 0.125 * (k % 8);
        CHECK_NEAR(bw_track_set_time(hinted, hb), expected, 0);
        CHECK_NEAR(b.joints[1].t[0], expected, 1e-5);
        CHECK(bw_track_set_time(plain, ha) == bw_track_set_time(hinted, hb));
        CHECK(memcmp(a.joints, b.joints, 2 * sizeof *a.joints) == 0);
        CHECK(memcmp(a.coverage, b.coverage, 2 * sizeof *a.coverage) == 0);
    }
    bw_pose_deinit(&a);
    bw_pose_deinit(&b);
    bw_track_set_destroy(plain);
    bw_track_set_destroy(hinted);
    free_clip(&fc);
}

/* Compose hands the mixer each track's weight and priority: track A (bone
 * x = 1 everywhere, priority 0, weight 1) under track B (x = 3, priority 1,
 * weight 0.25) gives lerp(1, 3, 0.25) = 1.5; raising A's priority above B
 * gives lerp(3, 1, 1) = 1. Live handles list in play order. */
static void compose_uses_weight_and_priority(void)
{
    clip_and_binding ca = make_clip(1.0f, true, 1.0f, 1.0f, NULL, 0);
    clip_and_binding cb = make_clip(1.0f, true, 3.0f, 3.0f, NULL, 0);
    bw_track_set *set = make_set(0, 0);
    bw_pose out;
    CHECK_INT(bw_pose_init(&out, rig, NULL), BW_OK);
    bw_play_desc d = bw_play_desc_defaults(ca.binding);
    int a = play(set, &d);
    d = bw_play_desc_defaults(cb.binding);
    d.weight = 0.25f;
    d.priority = 1;
    int b = play(set, &d);
    int handles[4] = {-1, -1, -1, -1};
    CHECK_INT(bw_track_set_live_handles(set, handles, 4), 2);
    CHECK_INT(handles[0], a);
    CHECK_INT(handles[1], b);
    CHECK_INT(bw_track_set_live_handles(set, handles, 1), 1);
    CHECK(bw_track_set_binding(set, b) == cb.binding);
    CHECK_INT(bw_track_set_compose(set, mixer, NULL, &out), BW_OK);
    CHECK_NEAR(out.joints[1].t[0], 1.5, 1e-5);
    CHECK_NEAR(out.joints[0].t[0], 0.0, 1e-6); /* root: nobody covers it, rest passes */
    bw_pose pb; /* track b alone, sampled on request */
    CHECK_INT(bw_pose_init(&pb, rig, NULL), BW_OK);
    CHECK_INT(bw_track_set_sample_track(set, b, &pb), BW_OK);
    CHECK_NEAR(pb.joints[1].t[0], 3.0, 1e-6);
    CHECK_NEAR(pb.coverage[1], 1.0, 0);
    CHECK_INT(bw_track_set_sample_track(set, b, NULL), BW_ERR_INVALID_ARGUMENT);
    bw_pose_deinit(&pb);
    CHECK_INT(bw_track_set_set_priority(set, a, 2), BW_OK);
    CHECK_INT(bw_track_set_priority(set, a), 2);
    CHECK_INT(bw_track_set_compose(set, mixer, NULL, &out), BW_OK);
    CHECK_NEAR(out.joints[1].t[0], 1.0, 1e-5);

    /* An explicit base: root x = 5 in the base passes through. */
    bw_pose base;
    CHECK_INT(bw_pose_init(&base, rig, NULL), BW_OK);
    bw_pose_set_rest(&base, rig);
    base.joints[0].t[0] = 5.0f;
    CHECK_INT(bw_track_set_compose(set, mixer, &base, &out), BW_OK);
    CHECK_NEAR(out.joints[0].t[0], 5.0, 1e-6);

    /* A mismatched output is refused and left untouched. */
    bw_pose wrong;
    CHECK_INT(bw_pose_init_counts(&wrong, 3, 0, NULL), BW_OK);
    wrong.joints[2].t[0] = 9.0f;
    CHECK_INT(bw_track_set_compose(set, mixer, NULL, &wrong), BW_ERR_INVALID_ARGUMENT);
    CHECK_NEAR(wrong.joints[2].t[0], 9.0, 0);
    CHECK_INT(bw_track_set_compose(set, mixer, &wrong, &out), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_track_set_compose(set, NULL, NULL, &out), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_track_set_compose(set, mixer, NULL, NULL), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_track_set_compose(NULL, mixer, NULL, &out), BW_ERR_INVALID_ARGUMENT);
    /* A mixer too small for the live tracks. */
    bw_mixer *small = NULL;
    bw_mixer_desc one = {.rig = rig, .max_contributions = 1};
    CHECK_INT(bw_mixer_create(&one, &small), BW_OK);
    out.joints[1].t[0] = 7.0f;
    CHECK_INT(bw_track_set_compose(set, small, NULL, &out), BW_ERR_LIMIT);
    CHECK_NEAR(out.joints[1].t[0], 7.0, 0);
    bw_mixer_destroy(small);
    bw_pose_deinit(&wrong);
    bw_pose_deinit(&base);
    bw_pose_deinit(&out);
    bw_track_set_destroy(set);
    free_clip(&ca);
    free_clip(&cb);
}

/* A STOPPED callback may play into the slot just freed. */
static bw_track_set *replay_set;
static const bw_binding *replay_binding;
static int replayed = -1;
static void replay_on_stop(void *user, const bw_signal *s)
{
    (void)user;
    if (s->kind == BW_SIGNAL_STOPPED) {
        bw_play_desc d = bw_play_desc_defaults(replay_binding);
        replayed = play(replay_set, &d);
    }
}

static void stopped_callback_may_play(void)
{
    clip_and_binding fc = make_ab_clip(true);
    bw_track_set *set = make_set(1, 0);
    replay_set = set;
    replay_binding = fc.binding;
    int h = play_at(set, &fc, 0.0, 1.0f, -1);
    bw_track_set_stop(set, h, 0.0f);
    bw_track_set_drain(set, replay_on_stop, NULL);
    CHECK(replayed >= 0);
    CHECK(replayed != h);
    CHECK(bw_track_set_alive(set, replayed));
    CHECK(!bw_track_set_stopping(set, replayed));
    CHECK_INT(bw_track_set_count(set), 1);
    bw_track_set_destroy(set);
    free_clip(&fc);
}

/* A STOPPED callback that plays and stops at once must not spin one drain
 * forever: the new track is removed by the next drain. A marker callback
 * that advances the set defers what that advance queued to the next drain;
 * a drain called from a callback does nothing. */
static int replay_stops;
static void replay_and_stop(void *user, const bw_signal *s)
{
    (void)user;
    if (s->kind == BW_SIGNAL_STOPPED) {
        replay_stops++;
        bw_play_desc d = bw_play_desc_defaults(replay_binding);
        int h = play(replay_set, &d);
        bw_track_set_stop(replay_set, h, 0.0f);
    }
}

static recorder nested;
static void advance_inside(void *user, const bw_signal *s)
{
    record(user, s);
    if (s->kind == BW_SIGNAL_MARKER) {
        bw_track_set_advance(replay_set, 0.5f);
        bw_track_set_drain(replay_set, record, &nested); /* ignored */
    }
}

static void callbacks_cannot_spin_a_drain(void)
{
    clip_and_binding fc = make_ab_clip(true);
    bw_track_set *set = make_set(1, 0);
    replay_set = set;
    replay_binding = fc.binding;
    int h = play_at(set, &fc, 0.0, 1.0f, -1);
    bw_track_set_stop(set, h, 0.0f);
    replay_stops = 0;
    bw_track_set_drain(set, replay_and_stop, NULL);
    CHECK_INT(replay_stops, 1);
    CHECK_INT(bw_track_set_count(set), 1);
    bw_track_set_drain(set, replay_and_stop, NULL);
    CHECK_INT(replay_stops, 2);
    bw_track_set_drain(set, NULL, NULL); /* discard: removes the last one */
    CHECK_INT(bw_track_set_count(set), 0);

    /* From 0.125: advance 0.25 queues a (0.25); the callback advances 0.5
     * more (0.375 -> 0.875: b), which the next drain delivers. */
    recorder r;
    reset(&r);
    reset(&nested);
    h = play_at(set, &fc, 0.125, 1.0f, -1);
    bw_track_set_advance(set, 0.25f);
    bw_track_set_drain(set, advance_inside, &r);
    CHECK_STR(r.text, "a");
    CHECK_INT(nested.count, 0);
    CHECK_NEAR(bw_track_set_time(set, h), 0.875, 1e-12);
    r.text[0] = '\0';
    bw_track_set_drain(set, record, &r);
    CHECK_STR(r.text, "b");
    bw_track_set_destroy(set);
    free_clip(&fc);
}

/* Bad arguments: clear errors or defined results, never a crash. */
static void bad_arguments_should_fail_cleanly(void)
{
    bw_track_set *set = NULL;
    bw_track_set_desc desc = {.rig = rig};
    CHECK_INT(bw_track_set_create(NULL, &set), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_track_set_create(&desc, NULL), BW_ERR_INVALID_ARGUMENT);
    desc.rig = NULL;
    CHECK_INT(bw_track_set_create(&desc, &set), BW_ERR_INVALID_ARGUMENT);
    desc.rig = rig;
    desc.capacity = -1;
    CHECK_INT(bw_track_set_create(&desc, &set), BW_ERR_INVALID_ARGUMENT);
    desc.capacity = BW_TRACK_SET_MAX_CAPACITY + 1;
    CHECK_INT(bw_track_set_create(&desc, &set), BW_ERR_LIMIT);
    desc.capacity = 0;
    desc.signal_capacity = -3;
    CHECK_INT(bw_track_set_create(&desc, &set), BW_ERR_INVALID_ARGUMENT);
    CHECK(set == NULL);
    bw_track_set_destroy(NULL);
    bw_track_set_advance(NULL, 1.0f);
    bw_track_set_drain(NULL, record, NULL);
    CHECK(!bw_track_set_alive(NULL, 0));
    CHECK_INT(bw_track_set_count(NULL), 0);
    CHECK_INT(bw_track_set_dropped_signals(NULL), 0);

    set = make_set(2, 0);
    int unknown[5] = {-1, 0, 1 << 10, 123456, 0x7fffffff};
    for (int i = 0; i < 5; i++) {
        int h = unknown[i];
        CHECK(!bw_track_set_alive(set, h));
        CHECK(isnan(bw_track_set_time(set, h)));
        CHECK(isnan(bw_track_set_weight(set, h)));
        CHECK(isnan(bw_track_set_speed(set, h)));
        CHECK(!bw_track_set_stopping(set, h));
        CHECK(!bw_track_set_looping(set, h));
        CHECK(bw_track_set_binding(set, h) == NULL);
        bw_track_fade fade = {0.5f, 0.5f, 1.0, 1.0, true, true};
        CHECK(!bw_track_set_fade_state(set, h, &fade));
        CHECK_NEAR(fade.start_weight, 0.5, 0); /* untouched */
        CHECK_INT(bw_track_set_rebind(set, h, NULL), BW_ERR_INVALID_ARGUMENT);
        double from = 3, delta = 4;
        CHECK(!bw_track_set_last_step(set, h, &from, &delta));
        CHECK_NEAR(from, 3, 0);
        CHECK_INT(bw_track_set_stop(set, h, 0.0f), BW_ERR_INVALID_ARGUMENT);
        CHECK_INT(bw_track_set_fade(set, h, 1.0f, 0.0f), BW_ERR_INVALID_ARGUMENT);
        CHECK_INT(bw_track_set_set_speed(set, h, 1.0f), BW_ERR_INVALID_ARGUMENT);
        CHECK_INT(bw_track_set_set_priority(set, h, 1), BW_ERR_INVALID_ARGUMENT);
        CHECK_INT(bw_track_set_seek(set, h, 0.0), BW_ERR_INVALID_ARGUMENT);
    }
    int handles[2];
    CHECK_INT(bw_track_set_live_handles(set, NULL, 2), 0);
    CHECK_INT(bw_track_set_live_handles(set, handles, 0), 0);
    bw_track_set_drain(set, NULL, NULL); /* discarding is allowed */
    bw_track_set_destroy(set);
}

/* A binding made for another rig layout is refused by play. */
static void foreign_binding_refused(void)
{
    bw_rig_joint_desc joints[1] = {{"other", -1, {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}}}};
    bw_rig_desc rd = {.joints = joints, .joint_count = 1};
    bw_rig *other = NULL;
    CHECK_INT(bw_rig_create(&rd, &other, NULL), BW_OK);
    clip_and_binding fc = make_ab_clip(true);
    bw_binding *foreign = NULL;
    CHECK_INT(bw_binding_create(&(bw_binding_desc){.clip = fc.clip, .rig = other}, &foreign, NULL), BW_OK);
    bw_track_set *set = make_set(0, 0);
    bw_play_desc d = bw_play_desc_defaults(foreign);
    CHECK_INT(bw_track_set_play(set, &d, NULL), BW_ERR_INVALID_ARGUMENT);
    bw_track_set_destroy(set);
    bw_binding_destroy(foreign);
    free_clip(&fc);
    bw_rig_destroy(other);
}

/* After bw_rig_add_joint the set's buffers and the track's binding no
 * longer match the rig: compose refuses (out untouched) instead of
 * sampling with stale indices. */
static void topology_change_refused_by_compose(void)
{
    bw_rig_joint_desc joints[2] = {
        {"root", -1, {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}}},
        {"bone", 0, {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}}},
    };
    bw_rig_desc rd = {.joints = joints, .joint_count = 2};
    bw_rig *local = NULL;
    CHECK_INT(bw_rig_create(&rd, &local, NULL), BW_OK);
    if (!local) return;
    bw_rig *saved = rig;
    rig = local; /* the fixtures build against `rig` */
    clip_and_binding fc = make_ab_clip(true);
    bw_track_set *set = make_set(0, 0);
    bw_pose out;
    CHECK_INT(bw_pose_init(&out, local, NULL), BW_OK);
    CHECK(play_at(set, &fc, 0.5, 1.0f, -1) >= 0);
    CHECK_INT(bw_track_set_compose(set, mixer, NULL, &out), BW_OK);
    CHECK_NEAR(out.joints[1].t[0], 0.5, 1e-6);
    bw_rig_joint_desc extra = {"tip", 1, {{0, 1, 0}, {0, 0, 0, 1}, {1, 1, 1}}};
    CHECK_INT(bw_rig_add_joint(local, &extra, NULL), BW_OK);
    bw_pose out3;
    CHECK_INT(bw_pose_init(&out3, local, NULL), BW_OK);
    out3.joints[1].t[0] = 4.0f;
    CHECK_INT(bw_track_set_compose(set, mixer, NULL, &out3), BW_ERR_INVALID_ARGUMENT);
    CHECK_NEAR(out3.joints[1].t[0], 4.0, 0);
    CHECK_INT(bw_track_set_compose(set, mixer, NULL, &out), BW_ERR_INVALID_ARGUMENT);
    /* the reload path for the same rig grown in place: set_rig re-sizes the
     * set, the track is rebound to a new binding, and a mixer for the grown
     * rig composes: bone x = 0.5 as before, the new tip at its rest y = 1 */
    bw_binding *grown = NULL;
    CHECK_INT(bw_binding_create(&(bw_binding_desc){.clip = fc.clip, .rig = local}, &grown, NULL), BW_OK);
    bw_mixer_desc md = {.rig = local};
    bw_mixer *mx3 = NULL;
    CHECK_INT(bw_mixer_create(&md, &mx3), BW_OK);
    CHECK_INT(bw_track_set_set_rig(set, local), BW_OK);
    int handles[1];
    CHECK_INT(bw_track_set_live_handles(set, handles, 1), 1);
    CHECK_INT(bw_track_set_rebind(set, handles[0], grown), BW_OK);
    CHECK_INT(bw_track_set_compose(set, mx3, NULL, &out3), BW_OK);
    CHECK_NEAR(out3.joints[1].t[0], 0.5, 1e-6);
    CHECK_NEAR(out3.joints[2].t[1], 1.0, 0);
    bw_mixer_destroy(mx3);
    bw_track_set_destroy(set);
    set = NULL;
    bw_binding_destroy(grown);
    bw_pose_deinit(&out3);
    bw_pose_deinit(&out);
    bw_track_set_destroy(set);
    free_clip(&fc);
    rig = saved;
    bw_rig_destroy(local);
}

/* ---- the desc defaults, play refusals, long fades, reload primitives ---- */

/* All-zero except the binding means: time 0, speed 1, weight 1, no fade,
 * priority 0, the clip's loop flag. Held / silent ask for speed 0 /
 * weight 0 explicitly. */
static void zero_desc_means_defaults(void)
{
    clip_and_binding loops = make_ab_clip(true), once = make_ab_clip(false);
    bw_track_set *set = make_set(0, 0);
    bw_play_desc d = {.binding = loops.binding};
    int h = -1;
    CHECK_INT(bw_track_set_play(set, &d, &h), BW_OK);
    CHECK_NEAR(bw_track_set_speed(set, h), 1.0, 0);
    CHECK_NEAR(bw_track_set_weight(set, h), 1.0, 0);
    CHECK_NEAR(bw_track_set_time(set, h), 0.0, 0);
    CHECK_INT(bw_track_set_priority(set, h), 0);
    CHECK(bw_track_set_looping(set, h)); /* BW_LOOP_CLIP: the clip loops */
    bw_play_desc e = {.binding = once.binding};
    CHECK_INT(bw_track_set_play(set, &e, &h), BW_OK);
    CHECK(!bw_track_set_looping(set, h));
    e.loop = BW_LOOP_ON;
    CHECK_INT(bw_track_set_play(set, &e, &h), BW_OK);
    CHECK(bw_track_set_looping(set, h));
    /* the spelled-out defaults are the zero desc */
    bw_play_desc spelled = bw_play_desc_defaults(loops.binding);
    CHECK_INT(bw_track_set_play(set, &spelled, &h), BW_OK);
    CHECK_NEAR(bw_track_set_speed(set, h), 1.0, 0);
    CHECK_NEAR(bw_track_set_weight(set, h), 1.0, 0);
    /* held: speed 0, the time stays at 0.5 through a 0.25 s advance;
     * silent: target weight 0 */
    bw_play_desc held = {.binding = loops.binding, .time = 0.5, .held = true, .silent = true};
    CHECK_INT(bw_track_set_play(set, &held, &h), BW_OK);
    CHECK_NEAR(bw_track_set_speed(set, h), 0.0, 0);
    CHECK_NEAR(bw_track_set_weight(set, h), 0.0, 0);
    bw_track_set_advance(set, 0.25f);
    CHECK_NEAR(bw_track_set_time(set, h), 0.5, 0);
    CHECK_NEAR(bw_track_set_weight(set, h), 0.0, 0);
    bw_track_set_destroy(set);
    free_clip(&loops);
    free_clip(&once);
}

/* A full set (BW_ERR_LIMIT) and a bad desc are told apart; the handle is
 * written only on success. */
static void play_refusals_are_distinguished(void)
{
    clip_and_binding fc = make_ab_clip(true);
    bw_track_set *set = make_set(1, 0);
    bw_play_desc good = {.binding = fc.binding};
    bw_play_desc negative = {.binding = fc.binding, .weight = -1.0f};
    bw_play_desc infinite = {.binding = fc.binding, .fade_in = INFINITY};
    int h = -5;
    CHECK_INT(bw_track_set_play(set, &negative, &h), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_track_set_play(set, &infinite, &h), BW_ERR_NON_FINITE);
    CHECK_INT(h, -5);
    CHECK_INT(bw_track_set_play(set, &good, &h), BW_OK);
    CHECK(h >= 0);
    int again = -5;
    CHECK_INT(bw_track_set_play(set, &good, &again), BW_ERR_LIMIT);
    /* a bad desc on a full set is still a bad desc */
    CHECK_INT(bw_track_set_play(set, &negative, &again), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(again, -5);
    CHECK_INT(bw_track_set_count(set), 1);
    bw_track_set_destroy(set);
    free_clip(&fc);
}

/* A 16,667 s fade-in fed 60 Hz frames (dt = 1/60 as a float,
 * 0.0166666675 s): the elapsed time passes 16,667 s on frame
 * ceil(16667 / 0.0166666675) = 1,000,020 (1,000,019 frames make
 * 16666.98 s). The weight is then exactly the target, 1, as the fade's
 * clock is a double; one frame earlier it is 16666.98 / 16667 < 1. (With
 * the former float clock each addition rounded to the ulp of ~16,000 s,
 * 2^-10 s, and the weight was 0.9976 after the duration.) */
static void long_fade_reaches_its_target(void)
{
    clip_and_binding fc = make_clip(1.0f, true, 0.0f, 1.0f, NULL, 0);
    bw_track_set *set = make_set(0, 0);
    bw_play_desc d = {.binding = fc.binding, .held = true, .fade_in = 16667.0f};
    int h = -1;
    CHECK_INT(bw_track_set_play(set, &d, &h), BW_OK);
    bw_track_fade f;
    CHECK(bw_track_set_fade_state(set, h, &f));
    CHECK_NEAR(f.start_weight, 0.0, 0);
    CHECK_NEAR(f.target_weight, 1.0, 0);
    CHECK_NEAR(f.duration, 16667.0, 0);
    CHECK_NEAR(f.elapsed, 0.0, 0);
    CHECK(f.active && !f.stopping);
    const float dt = 1.0f / 60.0f;
    for (long i = 0; i < 1000019; i++) bw_track_set_advance(set, dt);
    CHECK(bw_track_set_weight(set, h) < 1.0f);
    CHECK_NEAR(bw_track_set_weight(set, h), 1000019.0 * (double)dt / 16667.0, 1e-6);
    bw_track_set_advance(set, dt);
    CHECK(bw_track_set_weight(set, h) == 1.0f);
    CHECK(bw_track_set_fade_state(set, h, &f));
    CHECK(!f.active);
    CHECK_NEAR(f.start_weight, 1.0, 0);
    CHECK_NEAR(f.target_weight, 1.0, 0);
    bw_track_set_destroy(set);
    free_clip(&fc);
}

/* Fade state while a fade runs and after a stop: fade 1 -> 0.25 over 2 s;
 * after 0.5 s the weight is 1 + (0.25 − 1) × 0.25 = 0.8125; a stop over
 * 1 s then starts from there. */
static void fade_state_reports_the_fade(void)
{
    clip_and_binding fc = make_ab_clip(true);
    bw_track_set *set = make_set(0, 0);
    int h = play_at(set, &fc, 0.0, 1.0f, -1);
    bw_track_fade f;
    CHECK(bw_track_set_fade_state(set, h, &f)); /* no fade: start = target = weight */
    CHECK(!f.active && !f.stopping);
    CHECK_NEAR(f.start_weight, 1.0, 0);
    CHECK_NEAR(f.target_weight, 1.0, 0);
    CHECK_NEAR(f.duration, 0.0, 0);
    CHECK_INT(bw_track_set_fade(set, h, 0.25f, 2.0f), BW_OK);
    bw_track_set_advance(set, 0.5f);
    CHECK(bw_track_set_fade_state(set, h, &f));
    CHECK(f.active && !f.stopping);
    CHECK_NEAR(f.start_weight, 1.0, 0);
    CHECK_NEAR(f.target_weight, 0.25, 0);
    CHECK_NEAR(f.duration, 2.0, 0);
    CHECK_NEAR(f.elapsed, 0.5, 0);
    CHECK_NEAR(bw_track_set_weight(set, h), 0.8125, 1e-7);
    CHECK_INT(bw_track_set_stop(set, h, 1.0f), BW_OK);
    CHECK(bw_track_set_fade_state(set, h, &f));
    CHECK(f.active && f.stopping);
    CHECK_NEAR(f.start_weight, 0.8125, 1e-7);
    CHECK_NEAR(f.target_weight, 0.0, 0);
    CHECK_NEAR(f.duration, 1.0, 0);
    CHECK_NEAR(f.elapsed, 0.0, 0);
    CHECK(!bw_track_set_fade_state(set, h, NULL));
    bw_track_set_destroy(set);
    free_clip(&fc);
}

/* Rebinding keeps the track's state and takes the new clip's length.
 * Old clip A: 1 s, bone x = t. New clip B: 0.75 s, bone x = 4t (0 -> 3).
 * A looping track at 0.9 s, speed 0.5, mid-fade (1 -> 0.5 over 1 s, 0.25 s
 * in: weight 0.875), priority 3: after the rebind its time is 0.9 mod 0.75
 * = 0.15 and it samples x = 4 × 0.15 = 0.6; speed, weight, fade, priority,
 * loop and user are as they were. A one-shot at 0.9 clamps to B's end,
 * 0.75 (x = 3). A track on BW_LOOP_CLIP takes the new clip's flag. */
static void rebind_keeps_state_and_wraps_time(void)
{
    clip_and_binding a = make_clip(1.0f, true, 0.0f, 1.0f, NULL, 0);
    clip_and_binding b = make_clip(0.75f, true, 0.0f, 3.0f, NULL, 0);
    clip_and_binding b_once = make_clip(0.75f, false, 0.0f, 3.0f, NULL, 0);
    bw_track_set *set = make_set(0, 0);
    int tag = 9;
    bw_play_desc d = {.binding = a.binding, .time = 0.65, .speed = 0.5f, .priority = 3, .user = &tag};
    int h = -1;
    CHECK_INT(bw_track_set_play(set, &d, &h), BW_OK);
    CHECK_INT(bw_track_set_fade(set, h, 0.5f, 1.0f), BW_OK);
    bw_track_set_advance(set, 0.25f); /* 0.65 + 0.125 = 0.775; weight 0.875 */
    CHECK_INT(bw_track_set_seek(set, h, 0.9), BW_OK);
    CHECK_INT(bw_track_set_rebind(set, h, b.binding), BW_OK);
    CHECK_NEAR(bw_track_set_time(set, h), 0.15, 1e-12);
    CHECK_NEAR(bw_track_set_speed(set, h), 0.5, 0);
    CHECK_NEAR(bw_track_set_weight(set, h), 0.875, 1e-7);
    CHECK_INT(bw_track_set_priority(set, h), 3);
    CHECK(bw_track_set_looping(set, h));
    CHECK(bw_track_set_binding(set, h) == b.binding);
    bw_track_fade f;
    CHECK(bw_track_set_fade_state(set, h, &f));
    CHECK(f.active);
    CHECK_NEAR(f.elapsed, 0.25, 0);
    CHECK_NEAR(f.target_weight, 0.5, 0);
    double from = -1, delta = -1;
    CHECK(bw_track_set_last_step(set, h, &from, &delta));
    CHECK_NEAR(from, 0.15, 1e-12);
    CHECK_NEAR(delta, 0.0, 0);
    bw_pose p;
    CHECK_INT(bw_pose_init(&p, rig, NULL), BW_OK);
    CHECK_INT(bw_track_set_sample_track(set, h, &p), BW_OK);
    CHECK_NEAR(p.joints[1].t[0], 0.6, 1e-6);
    /* the fade goes on: 0.75 s later it has reached 0.5; time 0.15 + 0.375 */
    bw_track_set_advance(set, 0.75f);
    CHECK_NEAR(bw_track_set_weight(set, h), 0.5, 0);
    CHECK_NEAR(bw_track_set_time(set, h), 0.525, 1e-7);
    /* the user pointer survives: the STOPPED signal carries it */
    bw_track_set_stop(set, h, 0.0f);
    seen_user = NULL;
    bw_track_set_drain(set, keep_user, NULL);
    CHECK(seen_user == &tag);

    /* a one-shot clamps to the new, shorter length */
    int o = play_at(set, &a, 0.9, 1.0f, 0);
    CHECK_INT(bw_track_set_rebind(set, o, b_once.binding), BW_OK);
    CHECK_NEAR(bw_track_set_time(set, o), 0.75, 0);
    CHECK(!bw_track_set_looping(set, o));
    CHECK_INT(bw_track_set_sample_track(set, o, &p), BW_OK);
    CHECK_NEAR(p.joints[1].t[0], 3.0, 1e-6);
    /* BW_LOOP_CLIP follows the new clip: A loops, B_once does not */
    int c = play_at(set, &a, 0.5, 1.0f, -1);
    CHECK(bw_track_set_looping(set, c));
    CHECK_INT(bw_track_set_rebind(set, c, b_once.binding), BW_OK);
    CHECK(!bw_track_set_looping(set, c));
    CHECK_NEAR(bw_track_set_time(set, c), 0.5, 0);
    /* an unknown handle or a NULL binding */
    CHECK_INT(bw_track_set_rebind(set, h, b.binding), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_track_set_rebind(set, c, NULL), BW_ERR_INVALID_ARGUMENT);
    bw_pose_deinit(&p);
    bw_track_set_destroy(set);
    free_clip(&a);
    free_clip(&b);
    free_clip(&b_once);
}

/* A rebuilt rig (a tip joint added under the bone, rest t = (0,1,0)):
 * set_rig moves the set over; the old binding is then refused by compose
 * until the track is rebound to a binding for the new rig, and a binding
 * for the old rig is refused by rebind. After the rebind the bone plays on
 * at its time (x = 0.25) and the tip, which no track drives, rests. */
static void set_rig_then_rebind(void)
{
    clip_and_binding fc = make_clip(1.0f, true, 0.0f, 1.0f, NULL, 0);
    bw_track_set *set = make_set(0, 0);
    int h = play_at(set, &fc, 0.25, 1.0f, -1);
    bw_rig_joint_desc joints[3] = {
        {"root", -1, {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}}},
        {"bone", 0, {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}}},
        {"tip", 1, {{0, 1, 0}, {0, 0, 0, 1}, {1, 1, 1}}},
    };
    bw_rig_desc rd = {.joints = joints, .joint_count = 3};
    bw_rig *rebuilt = NULL;
    CHECK_INT(bw_rig_create(&rd, &rebuilt, NULL), BW_OK);
    bw_binding *nb = NULL;
    CHECK_INT(bw_binding_create(&(bw_binding_desc){.clip = fc.clip, .rig = rebuilt}, &nb, NULL), BW_OK);
    bw_mixer_desc md = {.rig = rebuilt};
    bw_mixer *mx = NULL;
    CHECK_INT(bw_mixer_create(&md, &mx), BW_OK);
    bw_pose out;
    CHECK_INT(bw_pose_init(&out, rebuilt, NULL), BW_OK);

    CHECK_INT(bw_track_set_set_rig(set, NULL), BW_ERR_INVALID_ARGUMENT);
    CHECK(bw_track_set_rig(set) == rig);
    CHECK_INT(bw_track_set_set_rig(set, rebuilt), BW_OK);
    CHECK(bw_track_set_rig(set) == rebuilt);
    CHECK_INT(bw_track_set_compose(set, mx, NULL, &out), BW_ERR_INVALID_ARGUMENT); /* not rebound yet */
    CHECK_INT(bw_track_set_rebind(set, h, fc.binding), BW_ERR_INVALID_ARGUMENT);   /* the old rig's */
    CHECK_INT(bw_track_set_rebind(set, h, nb), BW_OK);
    CHECK_INT(bw_track_set_compose(set, mx, NULL, &out), BW_OK);
    CHECK_NEAR(out.joints[1].t[0], 0.25, 1e-6);
    CHECK_NEAR(out.joints[2].t[1], 1.0, 0);
    CHECK_NEAR(bw_track_set_time(set, h), 0.25, 0);
    /* a fresh play needs a binding for the new rig too */
    bw_play_desc old = {.binding = fc.binding};
    CHECK_INT(bw_track_set_play(set, &old, NULL), BW_ERR_INVALID_ARGUMENT);
    bw_pose_deinit(&out);
    bw_mixer_destroy(mx);
    bw_track_set_destroy(set);
    bw_binding_destroy(nb);
    free_clip(&fc);
    bw_rig_destroy(rebuilt);
}

/* Angle curves compose along the shortest arc through the track set: two
 * tracks holding 350° and 10° (as radians) at weight 0.5 each in one rank,
 * over the rig's default 0. The mixer unwraps each to within π of the
 * covered running value 0: 350° → −10°, 10° → 10°; mean 0 rad (not 2π,
 * and not the 180° a float mix of 6.1087 and 0.1745 would give). */
static void angle_curves_compose_the_short_way(void)
{
    bw_rig_joint_desc joints[1] = {{"root", -1, {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}}}};
    bw_rig_curve_desc curve = {"yaw", BW_CURVE_ANGLE, 0.0f};
    bw_rig_desc rd = {.joints = joints, .joint_count = 1, .curves = &curve, .curve_count = 1};
    bw_rig *arig = NULL;
    CHECK_INT(bw_rig_create(&rd, &arig, NULL), BW_OK);
    static const float t0[1] = {0.0f};
    const float deg = 3.14159265358979f / 180.0f;
    const float v350[1] = {350.0f * deg}, v10[1] = {10.0f * deg};
    bw_clip *clips[2];
    bw_binding *bindings[2];
    for (int i = 0; i < 2; i++) {
        bw_track_desc td = {NULL, "yaw", BW_CHANNEL_ANGLE, BW_INTERP_EASED, 1, t0, i ? v10 : v350, NULL, NULL};
        bw_clip_desc cd = {0};
        cd.tracks = &td;
        cd.track_count = 1;
        cd.length = 1.0f;
        cd.loop = true;
        clips[i] = NULL;
        CHECK_INT(bw_clip_create(&cd, &clips[i], NULL), BW_OK);
        CHECK_INT(bw_binding_create(&(bw_binding_desc){.clip = clips[i], .rig = arig}, &bindings[i], NULL), BW_OK);
    }
    bw_track_set_desc sd = {.rig = arig};
    bw_track_set *set = NULL;
    CHECK_INT(bw_track_set_create(&sd, &set), BW_OK);
    bw_mixer_desc md = {.rig = arig};
    bw_mixer *mx = NULL;
    CHECK_INT(bw_mixer_create(&md, &mx), BW_OK);
    for (int i = 0; i < 2; i++) {
        bw_play_desc pd = {.binding = bindings[i], .weight = 0.5f};
        CHECK_INT(bw_track_set_play(set, &pd, NULL), BW_OK);
    }
    bw_pose out;
    CHECK_INT(bw_pose_init(&out, arig, NULL), BW_OK);
    bw_track_set_advance(set, 0.25f);
    CHECK_INT(bw_track_set_compose(set, mx, NULL, &out), BW_OK);
    CHECK_NEAR(out.curves[0], 0.0, 1e-6);
    CHECK_NEAR(out.curve_coverage[0], 1.0, 0);
    bw_pose_deinit(&out);
    bw_mixer_destroy(mx);
    bw_track_set_destroy(set);
    for (int i = 0; i < 2; i++) {
        bw_binding_destroy(bindings[i]);
        bw_clip_destroy(clips[i]);
    }
    bw_rig_destroy(arig);
}

int main(void)
{
    make_rig();
    RUN(forward_steps_fire_each_marker_once);
    RUN(reverse_playback_visits_markers_backwards);
    RUN(step_across_loop_orders_markers_and_loop);
    RUN(huge_step_is_capped);
    RUN(the_window_needs_the_time_to_resolve_a_pass);
    RUN(five_wraps_visit_the_last_four_cycles);
    RUN(events_at_zero_and_at_the_end);
    RUN(dt_larger_than_the_clip);
    RUN(empty_rig_plays_and_composes);
    RUN(non_looping_holds_end_while_fading);
    RUN(stop_fades_then_drain_removes);
    RUN(signals_carry_the_track_user);
    RUN(seek_fires_nothing);
    RUN(nan_dt_and_speed);
    RUN(signals_delivered_after_compose);
    RUN(zero_length_clips);
    RUN(ten_thousand_loops_keep_precision);
    RUN(marker_times_taken_modulo_length);
    RUN(prefetch_is_only_a_hint);
    RUN(full_queue_drops_and_counts);
    RUN(compose_uses_weight_and_priority);
    RUN(stopped_callback_may_play);
    RUN(callbacks_cannot_spin_a_drain);
    RUN(bad_arguments_should_fail_cleanly);
    RUN(foreign_binding_refused);
    RUN(topology_change_refused_by_compose);
    RUN(zero_desc_means_defaults);
    RUN(play_refusals_are_distinguished);
    RUN(long_fade_reaches_its_target);
    RUN(fade_state_reports_the_fade);
    RUN(rebind_keeps_state_and_wraps_time);
    RUN(set_rig_then_rebind);
    RUN(angle_curves_compose_the_short_way);
    bw_mixer_destroy(mixer);
    bw_rig_destroy(rig);
    return check_summary();
}
