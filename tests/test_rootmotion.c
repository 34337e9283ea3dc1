/* test_rootmotion.c - root-motion extraction and removal (SPEC §8, §11).
 *
 * Every expected number is derived by hand from the synthetic clips' keys
 * (see the comment at each check) or, for the CMU BVH, read straight from
 * the file's text. Quaternions here are built with the test's own helpers,
 * not the library's, so a convention slip in the library shows up.
 *
 * Game-side integration used throughout (the contract in rootmotion.h):
 *     position += rotY(heading) · delta.t;   heading += delta.yaw
 * with rotY(a)·(x, y, z) = (x cos a + z sin a, y, −x sin a + z cos a).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "blendwerk/asset.h"
#include "blendwerk/bind.h"
#include "blendwerk/clip.h"
#include "blendwerk/play.h"
#include "blendwerk/rig.h"
#include "blendwerk/rootmotion.h"
#include "check.h"
#include "fixtures.h"

#define PI 3.14159265358979323846
#define DEG (PI / 180.0)

/* ---- small independent math ---- */

static void q_axis(double ax, double ay, double az, double deg, float *q)
{
    double h = deg * DEG * 0.5, n = sqrt(ax * ax + ay * ay + az * az);
    q[0] = (float)(ax / n * sin(h));
    q[1] = (float)(ay / n * sin(h));
    q[2] = (float)(az / n * sin(h));
    q[3] = (float)cos(h);
}

static void q_mul(const float *a, const float *b, float *o)
{
    double x = (double)a[3] * b[0] + (double)a[0] * b[3] + (double)a[1] * b[2] - (double)a[2] * b[1];
    double y = (double)a[3] * b[1] - (double)a[0] * b[2] + (double)a[1] * b[3] + (double)a[2] * b[0];
    double z = (double)a[3] * b[2] + (double)a[0] * b[1] - (double)a[1] * b[0] + (double)a[2] * b[3];
    double w = (double)a[3] * b[3] - (double)a[0] * b[0] - (double)a[1] * b[1] - (double)a[2] * b[2];
    o[0] = (float)x; o[1] = (float)y; o[2] = (float)z; o[3] = (float)w;
}

/* |dot| close to 1: the same rotation (q and −q). */
static double q_same(const float *a, const float *b)
{
    return fabs((double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3]);
}

static void rot_y(double a, const double *v, double *o)
{
    double x = v[0] * cos(a) + v[2] * sin(a), z = -v[0] * sin(a) + v[2] * cos(a);
    o[0] = x; o[1] = v[1]; o[2] = z;
}

static double wrap_pi(double x)
{
    return x - 2.0 * PI * floor((x + PI) / (2.0 * PI));
}

/* The game: integrates deltas into a position and heading. */
typedef struct mover {
    double pos[3];
    double heading;
} mover;

static void mover_apply(mover *m, const bw_root_delta *d)
{
    double t[3] = {d->t[0], d->t[1], d->t[2]}, w[3];
    rot_y(m->heading, t, w);
    for (int i = 0; i < 3; i++) m->pos[i] += w[i];
    m->heading += d->yaw;
}

/* ---- fixtures ---- */

static bw_rig *make_rig1(void)
{
    bw_rig_joint_desc j[2] = {{"root", -1, bw_transform_identity}, {"child", 0, bw_transform_identity}};
    j[1].rest.t[1] = 0.5f;
    bw_rig_desc d = {0};
    d.joints = j;
    d.joint_count = 2;
    return fixture_rig_desc(&d);
}

/* A clip on joint (parent, joint) with optional translation (n × 3) and
 * rotation (n × 4) keys at `times`. */
/* One track of n keys on `joint` under `parent`. */
static bw_track_desc track_of(const char *parent, const char *joint, bw_channel channel, const float *times, int n,
                              const float *values)
{
    bw_track_desc t;
    memset(&t, 0, sizeof t);
    t.parent = parent;
    t.joint = joint;
    t.channel = channel;
    t.key_count = n;
    t.times = times;
    t.values = values;
    return t;
}

/* A clip of the given tracks (a refused one stops the test). */
static bw_clip *clip_of(const bw_track_desc *tracks, int count, float length, bool loop)
{
    bw_clip_desc d = {0};
    d.tracks = tracks;
    d.track_count = count;
    d.length = length;
    d.loop = loop;
    return fixture_clip_desc(&d);
}

static bw_clip *make_clip_on(const char *parent, const char *joint, const float *times, int n, const float *t,
                             const float *r, float length, bool loop)
{
    bw_track_desc tr[2];
    int count = 0;
    if (t) tr[count++] = track_of(parent, joint, BW_CHANNEL_TRANSLATION, times, n, t);
    if (r) tr[count++] = track_of(parent, joint, BW_CHANNEL_ROTATION, times, n, r);
    return clip_of(tr, count, length, loop);
}

static bw_clip *make_clip(const float *times, int n, const float *t, const float *r, float length, bool loop)
{
    return make_clip_on("", "root", times, n, t, r, length, loop);
}

static bw_binding *bind(const bw_clip *clip, const bw_rig *rig) { return fixture_binding(clip, rig); }

/* Straight walk: (0,0,0) → (0,0,2) over 1 s, linear: 2 m/s. */
static bw_clip *make_walk(void)
{
    static const float times[2] = {0.0f, 1.0f};
    static const float t[6] = {0, 0, 0, 0, 0, 2};
    return make_clip(times, 2, t, NULL, 1.0f, true);
}

static bw_root_delta extract1(const bw_rig *rig, const bw_root_motion_config *cfg, const bw_binding *b, double from,
                              double delta, bool loop, float weight)
{
    bw_root_play p = {b, from, delta, loop, weight, 0};
    bw_root_delta d;
    memset(&d, 0, sizeof d);
    CHECK(bw_root_motion_extract(rig, cfg, &p, 1, &d) == BW_OK);
    return d;
}

/* Play-time bookkeeping as play.h does it: Euclidean wrap into [0, L). */
static double wrap_time(double t, double len, int *wraps)
{
    while (t >= len) { t -= len; (*wraps)++; }
    while (t < 0.0) { t += len; (*wraps)++; }
    return t;
}

/* ---- (a) straight walk, 10,000 loop crossings ---- */

static void walk_loop_should_accumulate_exactly(double speed)
{
    bw_rig *rig = make_rig1();
    bw_clip *clip = make_walk();
    bw_binding *b = bind(clip, rig);
    bw_root_motion_config cfg = {0};
    const double dt = 1.0 / 60.0;
    /* 10,000 crossings of a 1 s clip take 10,000 / |speed| s of play. */
    long frames = (long)ceil(10000.0 / fabs(speed) / dt) + 1;
    double time = 0.0, sum[3] = {0, 0, 0}, sum_yaw = 0.0;
    int wraps = 0, backwards = 0, off = 0;
    double per_frame = 2.0 * speed * dt; /* 2 m/s of clip time × speed × dt */
    for (long i = 0; i < frames; i++) {
        bw_root_delta d = extract1(rig, &cfg, b, time, speed * dt, true, 1.0f);
        for (int k = 0; k < 3; k++) sum[k] += d.t[k];
        sum_yaw += d.yaw;
        if (d.t[2] * speed <= 0.0) backwards++;
        /* every frame, wrap frames included, travels 2·speed·dt (float
         * samples of values ≤ 2: a few 1e-7) */
        if (fabs(d.t[2] - per_frame) > 2e-6 || d.t[0] != 0.0f || d.t[1] != 0.0f) off++;
        time = wrap_time(time + speed * dt, 1.0, &wraps);
    }
    double expected = 2.0 * speed * (double)frames * dt;
    CHECK(wraps >= 10000);
    CHECK_INT(backwards, 0);
    CHECK_INT(off, 0);
    CHECK_NEAR(sum[2], expected, 1e-4 * fabs(expected));
    /* tighter than the brief's 1e-4: the per-frame travel telescopes, so
     * only float rounding of ~6e5 outputs (each ≤ 4e-9) remains */
    CHECK_NEAR(sum[2], expected, 1e-6 * fabs(expected));
    CHECK_NEAR(sum[0], 0.0, 1e-9);
    CHECK_NEAR(sum_yaw, 0.0, 1e-9);
    bw_binding_destroy(b);
    bw_clip_destroy(clip);
    bw_rig_destroy(rig);
}

static void walk_forward_should_never_step_back(void) { walk_loop_should_accumulate_exactly(1.0); }
static void walk_reverse_should_never_step_forward(void) { walk_loop_should_accumulate_exactly(-1.0); }
static void walk_odd_speed_should_accumulate_exactly(void) { walk_loop_should_accumulate_exactly(0.7312); }

static void several_cycles_in_one_step_should_count_each(void)
{
    bw_rig *rig = make_rig1();
    bw_clip *clip = make_walk();
    bw_binding *b = bind(clip, rig);
    bw_root_motion_config cfg = {0};
    /* from 0.25 by 3.5 s: 0.75 s to the end, 2 whole cycles, 0.75 s more:
     * 3.5 s × 2 m/s = 7 m */
    bw_root_delta d = extract1(rig, &cfg, b, 0.25, 3.5, true, 1.0f);
    CHECK_NEAR(d.t[2], 7.0, 1e-5);
    /* backwards from 0.25 by 3.5 s: −7 m */
    d = extract1(rig, &cfg, b, 0.25, -3.5, true, 1.0f);
    CHECK_NEAR(d.t[2], -7.0, 1e-5);
    /* from = length (play.h allows [0, length]) is the end of the pass */
    d = extract1(rig, &cfg, b, 1.0, 0.5, true, 1.0f);
    CHECK_NEAR(d.t[2], 1.0, 1e-6);
    d = extract1(rig, &cfg, b, 1.0, -0.5, true, 1.0f);
    CHECK_NEAR(d.t[2], -1.0, 1e-6);
    /* a from outside [0, L) is taken modulo L: 7.25 ≡ 0.25 */
    d = extract1(rig, &cfg, b, 7.25, 1.0, true, 1.0f);
    CHECK_NEAR(d.t[2], 2.0, 1e-5);
    /* non-looping: only inside [0, 1]: from 0.25 by 3.5 → to 1: 1.5 m */
    d = extract1(rig, &cfg, b, 0.25, 3.5, false, 1.0f);
    CHECK_NEAR(d.t[2], 1.5, 1e-6);
    d = extract1(rig, &cfg, b, 0.25, -3.5, false, 1.0f);
    CHECK_NEAR(d.t[2], -0.5, 1e-6);
    /* at the end of a non-looping clip there is nothing left */
    d = extract1(rig, &cfg, b, 1.0, 0.1, false, 1.0f);
    CHECK_NEAR(d.t[2], 0.0, 0.0);
    /* a from outside [0, 1] is clamped first, then stepped: from −5 by 0.5
     * travels [0, 0.5] = 1 m; from 3 by −0.25 travels back over [0.75, 1]
     * = −0.5 m; from −5 by −1 stays at 0 */
    d = extract1(rig, &cfg, b, -5.0, 0.5, false, 1.0f);
    CHECK_NEAR(d.t[2], 1.0, 1e-6);
    d = extract1(rig, &cfg, b, 3.0, -0.25, false, 1.0f);
    CHECK_NEAR(d.t[2], -0.5, 1e-6);
    d = extract1(rig, &cfg, b, -5.0, -1.0, false, 1.0f);
    CHECK_NEAR(d.t[2], 0.0, 0.0);
    d = extract1(rig, &cfg, b, 1e300, -1e300, false, 1.0f); /* from 1 all the way back: −2 m */
    CHECK_NEAR(d.t[2], -2.0, 1e-6);
    bw_binding_destroy(b);
    bw_clip_destroy(clip);
    bw_rig_destroy(rig);
}

/* ---- (b) turning walk ---- */

/* Root yaws 90° per 1 s loop while walking forward along its own heading:
 * with heading θ = 90°·u, velocity ∝ (sin θ, 0, cos θ), so the path is the
 * arc x = 1 − cos θ, z = sin θ (radius 1), keyed at u = k/8. Rotation keys
 * Y(0°), Y(45°), Y(90°) at 0, 0.5, 1. One cycle's travel in the frame at
 * its start: t = (1, 0, 1), yaw = 90°. */
static bw_clip *make_turning_walk(void)
{
    static float tt[9], tv[27], rt[3] = {0.0f, 0.5f, 1.0f}, rv[12];
    for (int k = 0; k <= 8; k++) {
        double th = 90.0 * DEG * k / 8.0;
        tt[k] = (float)k / 8.0f;
        tv[3 * k + 0] = (float)(1.0 - cos(th));
        tv[3 * k + 1] = 0.0f;
        tv[3 * k + 2] = (float)sin(th);
    }
    for (int k = 0; k < 3; k++) q_axis(0, 1, 0, 45.0 * k, &rv[4 * k]);
    bw_track_desc tr[2] = {track_of("", "root", BW_CHANNEL_TRANSLATION, tt, 9, tv),
                           track_of("", "root", BW_CHANNEL_ROTATION, rt, 3, rv)};
    return clip_of(tr, 2, 1.0f, true);
}

static void turning_walk_should_walk_a_square(void)
{
    bw_rig *rig = make_rig1();
    bw_clip *clip = make_turning_walk();
    bw_binding *b = bind(clip, rig);
    bw_root_motion_config cfg = {0};
    /* corners by hand: each cycle adds rotY(90°·k)·(1,0,1):
     * (1,0,1), (1,0,−1), (−1,0,−1), (−1,0,1) → (1,1), (2,0), (1,−1), (0,0) */
    static const double corner[4][2] = {{1, 1}, {2, 0}, {1, -1}, {0, 0}};
    const double dt = 1.0 / 60.0;
    mover m = {{0, 0, 0}, 0};
    double time = 0.0, yaw_sum = 0.0;
    int wraps = 0;
    for (int loop = 0; loop < 4; loop++) {
        for (int f = 0; f < 60; f++) {
            bw_root_delta d = extract1(rig, &cfg, b, time, dt, true, 1.0f);
            mover_apply(&m, &d);
            yaw_sum += d.yaw;
            time = wrap_time(time + dt, 1.0, &wraps);
        }
        CHECK_NEAR(m.pos[0], corner[loop][0], 1e-4);
        CHECK_NEAR(m.pos[2], corner[loop][1], 1e-4);
        CHECK_NEAR(m.pos[1], 0.0, 1e-9);
        CHECK_NEAR(yaw_sum, 90.0 * DEG * (loop + 1), 1e-5);
    }
    /* the same four loops in one step: identity translation, 360° */
    bw_root_delta d = extract1(rig, &cfg, b, 0.0, 4.0, true, 1.0f);
    CHECK_NEAR(d.t[0], 0.0, 1e-5);
    CHECK_NEAR(d.t[2], 0.0, 1e-5);
    CHECK_NEAR(d.yaw, 2.0 * PI, 1e-5);
    /* 2.5 loops in one step: (2,0,0) after two, heading 180°, then half a
     * cycle (key 4: x = 1 − cos 45°, z = sin 45°) turned by 180°:
     * (2 − 0.292893, 0, −0.707107); yaw 225° */
    d = extract1(rig, &cfg, b, 0.0, 2.5, true, 1.0f);
    CHECK_NEAR(d.t[0], 2.0 - (1.0 - sqrt(0.5)), 1e-5);
    CHECK_NEAR(d.t[2], -sqrt(0.5), 1e-5);
    CHECK_NEAR(d.yaw, 225.0 * DEG, 1e-5);
    /* reverse, one loop back from 0: the inverse of a cycle,
     * −rotY(−90°)(1,0,1) = (1, 0, −1), yaw −90°: the previous corner */
    d = extract1(rig, &cfg, b, 0.0, -1.0, true, 1.0f);
    CHECK_NEAR(d.t[0], 1.0, 1e-5);
    CHECK_NEAR(d.t[2], -1.0, 1e-5);
    CHECK_NEAR(d.yaw, -90.0 * DEG, 1e-5);
    /* reverse at 60 Hz for 4 loops: back at the start, −360° */
    m = (mover){{0, 0, 0}, 0};
    time = 0.0;
    yaw_sum = 0.0;
    for (int f = 0; f < 240; f++) {
        d = extract1(rig, &cfg, b, time, -dt, true, 1.0f);
        mover_apply(&m, &d);
        yaw_sum += d.yaw;
        time = wrap_time(time - dt, 1.0, &wraps);
        if (f == 59) {
            CHECK_NEAR(m.pos[0], 1.0, 1e-4);
            CHECK_NEAR(m.pos[2], -1.0, 1e-4);
        }
    }
    CHECK_NEAR(m.pos[0], 0.0, 1e-4);
    CHECK_NEAR(m.pos[2], 0.0, 1e-4);
    CHECK_NEAR(yaw_sum, -2.0 * PI, 1e-5);
    bw_binding_destroy(b);
    bw_clip_destroy(clip);
    bw_rig_destroy(rig);
}

/* A turn of more than 180° inside one step is counted in full, not
 * wrapped to the short way round: keys every 90° over 1 s (270° total). */
static void large_turn_in_one_step_should_not_wrap(void)
{
    bw_rig *rig = make_rig1();
    static const float times[4] = {0.0f, 1.0f / 3.0f, 2.0f / 3.0f, 1.0f};
    float r[16];
    for (int k = 0; k < 4; k++) q_axis(0, 1, 0, 90.0 * k, &r[4 * k]);
    bw_clip *clip = make_clip(times, 4, NULL, r, 1.0f, false);
    bw_binding *b = bind(clip, rig);
    bw_root_motion_config cfg = {0};
    bw_root_delta d = extract1(rig, &cfg, b, 0.0, 1.0, false, 1.0f);
    CHECK_NEAR(d.yaw, 270.0 * DEG, 1e-5);
    d = extract1(rig, &cfg, b, 1.0, -1.0, false, 1.0f);
    CHECK_NEAR(d.yaw, -270.0 * DEG, 1e-5);
    bw_binding_destroy(b);
    bw_clip_destroy(clip);
    bw_rig_destroy(rig);
}

/* ---- (c) yaw-only extraction at 90° turns leaks no pitch or roll ---- */

static void yaw_removal_should_keep_swing_exactly(void)
{
    bw_rig *rig = make_rig1();
    bw_root_motion_config yaw_only = {0, BW_ROOT_YAW};
    bw_root_motion_config dflt = {0};
    /* swing S: 25° about the horizontal axis (cos 30°, 0, sin 30°); S has
     * no Y component, so twist(Y(a)·S) = Y(a) exactly and the removal
     * must leave S: x = sin 12.5° cos 30°, y = 0, z = sin 12.5° sin 30°,
     * w = cos 12.5°. */
    float s[4];
    q_axis(cos(30 * DEG), 0, sin(30 * DEG), 25.0, s);
    CHECK_NEAR(s[0], sin(12.5 * DEG) * cos(30 * DEG), 1e-7);
    for (int k = 0; k < 8; k++) {
        double yaw = 90.0 * k + (k >= 4 ? 37.0 : 0.0); /* 90° steps, then off-grid ones */
        float y[4];
        q_axis(0, 1, 0, yaw, y);
        bw_transform x = bw_transform_identity;
        q_mul(y, s, x.r);
        x.t[0] = 0.3f; x.t[1] = 0.9f; x.t[2] = 0.4f;
        bw_transform yo = x, df = x;
        CHECK(bw_root_motion_remove(rig, &yaw_only, &yo) == BW_OK);
        CHECK(q_same(yo.r, s) > 1.0 - 1e-6);
        CHECK_NEAR(yo.r[1], 0.0, 1e-6); /* no twist left */
        /* yaw-only keeps the position, seen from the character frame:
         * rotY(−yaw)·(0.3, 0.9, 0.4) */
        double p[3] = {0.3, 0.9, 0.4}, e[3];
        rot_y(-yaw * DEG, p, e);
        CHECK_NEAR(yo.t[0], e[0], 1e-5);
        CHECK_NEAR(yo.t[1], 0.9, 1e-6);
        CHECK_NEAR(yo.t[2], e[2], 1e-5);
        CHECK(yo.s[0] == 1.0f && yo.s[1] == 1.0f && yo.s[2] == 1.0f);
        /* default axes: horizontal gone, height kept */
        CHECK(bw_root_motion_remove(rig, &dflt, &df) == BW_OK);
        CHECK(q_same(df.r, s) > 1.0 - 1e-6);
        CHECK_NEAR(df.t[0], 0.0, 1e-6);
        CHECK_NEAR(df.t[1], 0.9, 1e-6);
        CHECK_NEAR(df.t[2], 0.0, 1e-6);
    }
    /* yaw 90° then pitch 20° about the character's own X becomes pitch
     * 20° about X, not a roll */
    float y90[4], x20[4], q[4];
    q_axis(0, 1, 0, 90, y90);
    q_axis(1, 0, 0, 20, x20);
    q_mul(y90, x20, q);
    bw_transform x = bw_transform_identity;
    memcpy(x.r, q, sizeof q);
    CHECK(bw_root_motion_remove(rig, &yaw_only, &x) == BW_OK);
    CHECK(q_same(x.r, x20) > 1.0 - 1e-6);
    /* translation axes only: rotation untouched */
    bw_root_motion_config xz = {0, BW_ROOT_X | BW_ROOT_Z};
    x = bw_transform_identity;
    memcpy(x.r, q, sizeof q);
    x.t[0] = 1.0f; x.t[1] = 0.8f; x.t[2] = -2.0f;
    CHECK(bw_root_motion_remove(rig, &xz, &x) == BW_OK);
    CHECK(q_same(x.r, q) > 1.0 - 1e-6);
    CHECK_NEAR(x.t[0], 0.0, 1e-7);
    CHECK_NEAR(x.t[1], 0.8, 1e-7);
    CHECK_NEAR(x.t[2], 0.0, 1e-7);
    bw_rig_destroy(rig);
}

static void yaw_extraction_with_swing_should_report_only_yaw(void)
{
    bw_rig *rig = make_rig1();
    /* keys Y(90°·k)·S at k = 0..4 s, a 90° turn per second under a fixed
     * lean S, plus a drift of the root so yaw-only must drop it */
    float times[5], r[20], t[15], s[4];
    q_axis(1, 0, 1, 30.0, s);
    for (int k = 0; k < 5; k++) {
        float y[4];
        times[k] = (float)k;
        q_axis(0, 1, 0, 90.0 * k, y);
        q_mul(y, s, &r[4 * k]);
        t[3 * k + 0] = 0.1f * (float)k;
        t[3 * k + 1] = 0.9f;
        t[3 * k + 2] = 0.5f * (float)k;
    }
    bw_clip *clip = make_clip(times, 5, t, r, 4.0f, false);
    bw_binding *b = bind(clip, rig);
    bw_root_motion_config yaw_only = {0, BW_ROOT_YAW};
    const double dt = 1.0 / 60.0;
    double time = 0.0, yaw_sum = 0.0;
    for (int f = 1; f <= 240; f++) {
        bw_root_delta d = extract1(rig, &yaw_only, b, time, dt, false, 1.0f);
        CHECK(d.t[0] == 0.0f && d.t[1] == 0.0f && d.t[2] == 0.0f);
        yaw_sum += d.yaw;
        time = f * dt;
        if (f % 60 == 0) CHECK_NEAR(yaw_sum, 90.0 * DEG * (f / 60), 1e-5); /* at every key */
    }
    bw_binding_destroy(b);
    bw_clip_destroy(clip);
    bw_rig_destroy(rig);
}

/* ---- (d) crossfade ---- */

/* Clip B: +X 3 m over 1 s while turning Y(0°) → Y(60°), linear yaw. */
static bw_clip *make_strafe_turn(void)
{
    static const float times[2] = {0.0f, 1.0f};
    static const float t[6] = {0, 0, 0, 3, 0, 0};
    static float r[8];
    q_axis(0, 1, 0, 0, &r[0]);
    q_axis(0, 1, 0, 60, &r[4]);
    return make_clip(times, 2, t, r, 1.0f, true);
}

static void crossfade_should_blend_by_fade_weights(void)
{
    bw_rig *rig = make_rig1();
    bw_clip *ca = make_walk(), *cb = make_strafe_turn();
    bw_binding *ba = bind(ca, rig), *bb = bind(cb, rig);
    bw_root_motion_config cfg = {0};
    /* A over [0.2, 0.3]: (0, 0, 0.2), yaw 0. B over [0.2, 0.3]: heading
     * 12° at 0.2, model displacement (0.3, 0, 0), in the character frame
     * rotY(−12°)·(0.3,0,0) = (0.3 cos 12°, 0, 0.3 sin 12°), yaw 6°. Both
     * clips key the root (coverage 1), one rank: shares 0.25 and 0.75, Σ 1,
     * so the rank mean is the plain fade blend and covers the root fully. */
    double bx = 0.3 * cos(12 * DEG), bz = 0.3 * sin(12 * DEG);
    bw_root_play plays[2] = {{ba, 0.2, 0.1, true, 0.25f, 0}, {bb, 0.2, 0.1, true, 0.75f, 0}};
    bw_root_delta d;
    CHECK(bw_root_motion_extract(rig, &cfg, plays, 2, &d) == BW_OK);
    CHECK_NEAR(d.t[0], 0.75 * bx, 1e-6);
    CHECK_NEAR(d.t[2], 0.25 * 0.2 + 0.75 * bz, 1e-6);
    CHECK_NEAR(d.yaw, 0.75 * 6 * DEG, 1e-6);
    CHECK_INT(d.used, 2);
    CHECK_NEAR(d.coverage, 1.0, 1e-12);
    /* weights 1 and 3: each share clamps to 1 (as in the mixer), so the
     * two form an equal mean: t = ((0 + bx)/2, 0, (0.2 + bz)/2), yaw 3° */
    plays[0].weight = 1.0f;
    plays[1].weight = 3.0f;
    CHECK(bw_root_motion_extract(rig, &cfg, plays, 2, &d) == BW_OK);
    CHECK_NEAR(d.t[0], 0.5 * bx, 1e-6);
    CHECK_NEAR(d.t[2], 0.5 * (0.2 + bz), 1e-6);
    CHECK_NEAR(d.yaw, 3 * DEG, 1e-6);
    CHECK_NEAR(d.coverage, 1.0, 1e-12);
    /* a lone play fading in at weight 0.3 shows 30% of its pose over the
     * rest pose: 0.3 × 0.2 m */
    d = extract1(rig, &cfg, ba, 0.2, 0.1, true, 0.3f);
    CHECK_NEAR(d.t[2], 0.3 * 0.2, 1e-7);
    CHECK_NEAR(d.coverage, 0.3, 1e-7);
    /* weight 0 and negative weights say nothing */
    plays[0].weight = 0.0f;
    plays[1].weight = -1.0f;
    CHECK(bw_root_motion_extract(rig, &cfg, plays, 2, &d) == BW_OK);
    CHECK_INT(d.used, 0);
    CHECK_INT(d.skipped, 0);
    CHECK(d.t[0] == 0.0 && d.t[2] == 0.0 && d.yaw == 0.0 && d.coverage == 0.0);
    /* no plays at all */
    CHECK(bw_root_motion_extract(rig, &cfg, NULL, 0, &d) == BW_OK);
    CHECK_INT(d.used, 0);
    bw_binding_destroy(ba);
    bw_binding_destroy(bb);
    bw_clip_destroy(ca);
    bw_clip_destroy(cb);
    bw_rig_destroy(rig);
}

/* ---- weighting as the mixer composes the root (SPEC §5) ---- */

/* A clip with one track of `channel` on (parent, joint), keys `values`
 * (width per key) at `times`. */
static bw_clip *make_track_clip(const char *parent, const char *joint, bw_channel channel, const float *times, int n,
                                const float *values, float length)
{
    bw_track_desc tr = track_of(parent, joint, channel, times, n, values);
    return clip_of(&tr, 1, length, true);
}

/* The 2 m/s walk plus a second track on the root: pose or mask weight. */
static bw_clip *make_walk_with(bw_channel channel, const float *times, int n, const float *values)
{
    static const float wt[2] = {0.0f, 1.0f};
    static const float wv[6] = {0, 0, 0, 0, 0, 2};
    bw_track_desc tr[2] = {track_of("", "root", BW_CHANNEL_TRANSLATION, wt, 2, wv),
                           track_of("", "root", channel, times, n, values)};
    return clip_of(tr, 2, 1.0f, true);
}

static void weighting_should_follow_the_mixer(void)
{
    /* rig: root, child, and a curve "blink" (curve index 0, the root's
     * joint index too) */
    bw_rig_joint_desc j[2] = {{"root", -1, bw_transform_identity}, {"child", 0, bw_transform_identity}};
    bw_rig_curve_desc cv = {"blink", BW_CURVE_FLOAT, 0.0f};
    bw_rig_desc rd = {0};
    rd.joints = j;
    rd.joint_count = 2;
    rd.curves = &cv;
    rd.curve_count = 1;
    bw_rig *rig = NULL;
    CHECK(bw_rig_create(&rd, &rig, NULL) == BW_OK);
    if (!rig) return;
    static const float t01[2] = {0.0f, 1.0f};
    float rv[8];
    q_axis(1, 0, 0, 0, &rv[0]);
    q_axis(1, 0, 0, 60, &rv[4]);
    static const float still[6] = {0, 0, 0, 0, 0, 0};
    static const float blink[2] = {0.0f, 1.0f};
    static const float pw[2] = {0.0f, 1.0f};  /* pose weight 0 → 1 over the loop */
    static const float mw[2] = {0.75f, 0.75f}; /* mask weight 0.75 throughout */
    bw_clip *walk = make_walk();
    bw_clip *wave = make_track_clip("root", "child", BW_CHANNEL_ROTATION, t01, 2, rv, 1.0f); /* arm only */
    bw_clip *stand = make_track_clip("", "root", BW_CHANNEL_TRANSLATION, t01, 2, still, 1.0f);
    bw_clip *curve = make_track_clip(NULL, "blink", BW_CHANNEL_FLOAT, t01, 2, blink, 1.0f);
    bw_clip *faded = make_walk_with(BW_CHANNEL_POSE_WEIGHT, t01, 2, pw);
    bw_clip *masked = make_walk_with(BW_CHANNEL_MASK_WEIGHT, t01, 2, mw);
    bw_clip *turn = make_strafe_turn();
    bw_binding *bw = bind(walk, rig), *bv = bind(wave, rig), *bs = bind(stand, rig), *bc = bind(curve, rig);
    bw_binding *bf = bind(faded, rig), *bm = bind(masked, rig), *bt = bind(turn, rig);
    CHECK_INT(bw_binding_track_target(bc, 0), 0); /* the curve's index equals the root's */
    bw_root_motion_config cfg = {0};
    bw_root_delta d;

    /* Every step below is 0.2 → 0.3 s, where the walk moves 0.1 s × 2 m/s
     * = 0.2 m along +Z. */

    /* (1) walk (rank 0) + arm-only wave at priority 5: the wave covers no
     * root joint (share 0), rank 5 has coverage 0 and leaves rank 0's
     * travel: 0.2 m (the old normalized average said 0.1). */
    bw_root_play p2[2] = {{bw, 0.2, 0.1, true, 1.0f, 0}, {bv, 0.2, 0.1, true, 1.0f, 5}};
    CHECK(bw_root_motion_extract(rig, &cfg, p2, 2, &d) == BW_OK);
    CHECK_NEAR(d.t[2], 0.2, 1e-7);
    CHECK_NEAR(d.t[0], 0.0, 1e-12);
    CHECK_INT(d.used, 1);
    CHECK_NEAR(d.coverage, 1.0, 1e-12);
    /* the same wave at the walk's own rank changes nothing either */
    p2[1].priority = 0;
    CHECK(bw_root_motion_extract(rig, &cfg, p2, 2, &d) == BW_OK);
    CHECK_NEAR(d.t[2], 0.2, 1e-7);
    /* nor does a curve-only clip, whose track targets curve 0 */
    p2[1] = (bw_root_play){bc, 0.2, 0.1, true, 1.0f, 0};
    CHECK(bw_root_motion_extract(rig, &cfg, p2, 2, &d) == BW_OK);
    CHECK_NEAR(d.t[2], 0.2, 1e-7);
    CHECK_INT(d.used, 1);

    /* (2) walk + root-keyed "stand" at priority 1, weight 1: rank 1 covers
     * the root fully with zero travel: result = 0.2 × (1 − 1) + 0 = 0 m. */
    p2[1] = (bw_root_play){bs, 0.2, 0.1, true, 1.0f, 1};
    CHECK(bw_root_motion_extract(rig, &cfg, p2, 2, &d) == BW_OK);
    CHECK_NEAR(d.t[2], 0.0, 1e-12);
    CHECK_INT(d.used, 2);
    CHECK_NEAR(d.coverage, 1.0, 1e-12);
    /* stand at weight 0.25: 0.2 × 0.75 + 0 × 0.25 = 0.15 m */
    p2[1].weight = 0.25f;
    CHECK(bw_root_motion_extract(rig, &cfg, p2, 2, &d) == BW_OK);
    CHECK_NEAR(d.t[2], 0.15, 1e-7);
    /* the list order does not matter, only the ranks */
    bw_root_play swapped[2] = {p2[1], p2[0]};
    CHECK(bw_root_motion_extract(rig, &cfg, swapped, 2, &d) == BW_OK);
    CHECK_NEAR(d.t[2], 0.15, 1e-7);
    /* stand below the walk (rank −3): the walk overlays it completely */
    p2[1].priority = -3;
    p2[1].weight = 1.0f;
    CHECK(bw_root_motion_extract(rig, &cfg, p2, 2, &d) == BW_OK);
    CHECK_NEAR(d.t[2], 0.2, 1e-7);
    /* the extreme ranks order like any others: walk at INT_MIN, stand at
     * INT_MAX with weight 0.25: 0.15 m again */
    bw_root_play extreme[2] = {{bw, 0.2, 0.1, true, 1.0f, INT_MIN}, {bs, 0.2, 0.1, true, 0.25f, INT_MAX}};
    CHECK(bw_root_motion_extract(rig, &cfg, extreme, 2, &d) == BW_OK);
    CHECK_NEAR(d.t[2], 0.15, 1e-7);
    CHECK_INT(d.used, 2);
    /* same rank, weights 3 and 1: shares clamp to 1 and 1, mean 0.1 m */
    p2[0].weight = 3.0f;
    p2[1].priority = 0;
    CHECK(bw_root_motion_extract(rig, &cfg, p2, 2, &d) == BW_OK);
    CHECK_NEAR(d.t[2], 0.1, 1e-7);

    /* (3) the walk fading out, weight 0.5 alone: its pose moves half way
     * over the rest pose, so 0.5 × 0.2 = 0.1 m */
    d = extract1(rig, &cfg, bw, 0.2, 0.1, true, 0.5f);
    CHECK_NEAR(d.t[2], 0.1, 1e-7);
    CHECK_NEAR(d.coverage, 0.5, 1e-7);

    /* coverage from the clip: pose weight keyed 0 → 1 over the loop is 0.3
     * at the step's end (0.3 s): 0.3 × 0.2 = 0.06 m; mask weight 0.75 gives
     * coverage 0.25: 0.25 × 0.2 = 0.05 m */
    d = extract1(rig, &cfg, bf, 0.2, 0.1, true, 1.0f);
    CHECK_NEAR(d.t[2], 0.06, 1e-7);
    CHECK_NEAR(d.coverage, 0.3, 1e-7);
    d = extract1(rig, &cfg, bm, 0.2, 0.1, true, 1.0f);
    CHECK_NEAR(d.t[2], 0.05, 1e-7);
    /* at the end of a wrapping step the pose weight is read at the wrapped
     * time: 0.9 → 1.2 ends at 0.2, coverage 0.2, travel 0.3 × 2 m × 0.2 */
    d = extract1(rig, &cfg, bf, 0.9, 0.3, true, 1.0f);
    CHECK_NEAR(d.t[2], 0.2 * 0.6, 1e-6);
    /* at time 0 the pose weight is 0: no share, nothing used */
    d = extract1(rig, &cfg, bf, 0.9, 0.1, true, 1.0f);
    CHECK_NEAR(d.t[2], 0.0, 1e-12);
    CHECK_INT(d.used, 0);

    /* yaw and translation both: the strafe-turn at rank 1, weight 0.5, over
     * the walk: t = 0.5 × (0, 0, 0.2) + 0.5 × (0.3 cos 12°, 0, 0.3 sin 12°),
     * yaw = 0.5 × 0 + 0.5 × 6° (clip B's numbers: the crossfade test) */
    bw_root_play p3[3] = {{bw, 0.2, 0.1, true, 1.0f, 0}, {bt, 0.2, 0.1, true, 0.5f, 1},
                          {bv, 0.2, 0.1, true, 1.0f, 2}};
    CHECK(bw_root_motion_extract(rig, &cfg, p3, 3, &d) == BW_OK);
    CHECK_NEAR(d.t[0], 0.5 * 0.3 * cos(12 * DEG), 1e-6);
    CHECK_NEAR(d.t[2], 0.5 * 0.2 + 0.5 * 0.3 * sin(12 * DEG), 1e-6);
    CHECK_NEAR(d.yaw, 3 * DEG, 1e-6);
    CHECK_INT(d.used, 2);
    /* two partial ranks over the rest pose: walk 0.5 (rank 0), turn 0.5
     * (rank 1): ((0.2 × 0.5) × 0.5 + B × 0.5); coverage 1 − 0.5 × 0.5 */
    p3[0].weight = 0.5f;
    CHECK(bw_root_motion_extract(rig, &cfg, p3, 3, &d) == BW_OK);
    CHECK_NEAR(d.t[0], 0.5 * 0.3 * cos(12 * DEG), 1e-6);
    CHECK_NEAR(d.t[2], 0.25 * 0.2 + 0.5 * 0.3 * sin(12 * DEG), 1e-6);
    CHECK_NEAR(d.yaw, 3 * DEG, 1e-6);
    CHECK_NEAR(d.coverage, 0.75, 1e-7);

    /* through a track set (extract_tracks): the fading walk and the wave */
    bw_track_set_desc sd = {0};
    sd.rig = rig;
    bw_track_set *set = NULL;
    CHECK(bw_track_set_create(&sd, &set) == BW_OK);
    if (set) {
        bw_play_desc pd = bw_play_desc_defaults(bw);
        pd.time = 0.2;
        int hw = -1;
        CHECK(bw_track_set_play(set, &pd, &hw) == BW_OK);
        bw_play_desc pv = bw_play_desc_defaults(bv);
        pv.priority = 5;
        CHECK(bw_track_set_play(set, &pv, NULL) == BW_OK);
        /* 0.1 s (as a float: 0.100000001 s) at 2 m/s */
        bw_track_set_advance(set, 0.1f);
        CHECK(bw_root_motion_extract_tracks(set, rig, &cfg, &d) == BW_OK);
        CHECK_NEAR(d.t[2], 0.2, 1e-6);
        CHECK_INT(d.used, 1);
        CHECK(bw_track_set_fade(set, hw, 0.5f, 0.0f) == BW_OK);
        bw_track_set_advance(set, 0.1f);
        CHECK(bw_root_motion_extract_tracks(set, rig, &cfg, &d) == BW_OK);
        CHECK_NEAR(d.t[2], 0.1, 1e-6);
        CHECK_NEAR(d.coverage, 0.5, 1e-7);
        /* a root-keyed "stand" at priority 1 over the walk: the track set's
         * priorities reach the extraction, and the walk's travel is hidden
         * (0 m), as the composed root shows */
        bw_play_desc ps = bw_play_desc_defaults(bs);
        ps.priority = 1;
        CHECK(bw_track_set_play(set, &ps, NULL) == BW_OK);
        bw_track_set_advance(set, 0.1f);
        CHECK(bw_root_motion_extract_tracks(set, rig, &cfg, &d) == BW_OK);
        CHECK_NEAR(d.t[2], 0.0, 1e-7);
        CHECK_NEAR(d.coverage, 1.0, 1e-7);
        bw_track_set_destroy(set);
    }
    bw_binding_destroy(bw);
    bw_binding_destroy(bv);
    bw_binding_destroy(bs);
    bw_binding_destroy(bc);
    bw_binding_destroy(bf);
    bw_binding_destroy(bm);
    bw_binding_destroy(bt);
    bw_clip_destroy(walk);
    bw_clip_destroy(wave);
    bw_clip_destroy(stand);
    bw_clip_destroy(curve);
    bw_clip_destroy(faded);
    bw_clip_destroy(masked);
    bw_clip_destroy(turn);
    bw_rig_destroy(rig);
}

/* ---- (e) per-axis flags ---- */

static void axis_flags_should_select_components(void)
{
    bw_rig *rig = make_rig1();
    static const float times[2] = {0.0f, 1.0f};
    static const float t[6] = {0, 0, 0, 1, 0.5f, 2};
    bw_clip *clip = make_clip(times, 2, t, NULL, 1.0f, true);
    bw_clip *turn = make_strafe_turn();
    bw_binding *b = bind(clip, rig), *bt = bind(turn, rig);
    /* over [0.1, 0.2] the root moves (0.1, 0.05, 0.2) */
    struct { unsigned axes; double x, y, z; } cases[] = {
        {BW_ROOT_X, 0.1, 0, 0},
        {BW_ROOT_Y, 0, 0.05, 0},
        {BW_ROOT_Z, 0, 0, 0.2},
        {0, 0.1, 0, 0.2}, /* default: X, Z, yaw */
        {BW_ROOT_AXES_ALL, 0.1, 0.05, 0.2},
        {BW_ROOT_YAW, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bw_root_motion_config cfg = {0, cases[i].axes};
        bw_root_delta d = extract1(rig, &cfg, b, 0.1, 0.1, true, 1.0f);
        CHECK_NEAR(d.t[0], cases[i].x, 1e-6);
        CHECK_NEAR(d.t[1], cases[i].y, 1e-6);
        CHECK_NEAR(d.t[2], cases[i].z, 1e-6);
        CHECK(d.yaw == 0.0f);
    }
    /* yaw off: the turning strafe reports its model-space displacement,
     * unrotated, (0.3, 0, 0) over [0.2, 0.3], and no yaw; also across a
     * wrap, where cycles are not rotated either: [0.9, 1] + [0, 0.1] */
    bw_root_motion_config xz = {0, BW_ROOT_X | BW_ROOT_Z};
    bw_root_delta d = extract1(rig, &xz, bt, 0.2, 0.1, true, 1.0f);
    CHECK_NEAR(d.t[0], 0.3, 1e-6);
    CHECK_NEAR(d.t[2], 0.0, 1e-6);
    CHECK(d.yaw == 0.0f);
    d = extract1(rig, &xz, bt, 0.9, 1.2, true, 1.0f); /* 1.2 s: 3.6 m */
    CHECK_NEAR(d.t[0], 3.6, 1e-5);
    CHECK_NEAR(d.t[2], 0.0, 1e-6);
    /* yaw on: the same step across the wrap: [0.9, 1] at heading 54°,
     * then a whole cycle after turning 6°, then [0, 0.1] after 66° in
     * total. Composition by hand, each piece rotY(−start heading)·model
     * displacement then turned by the yaw before it:
     *   piece 1: rotY(−54°)(0.3,0,0), turned 0
     *   piece 2: rotY(0°)(3,0,0) (heading at cycle start 0), turned 6°
     *   piece 3: rotY(0°)(0.3,0,0), turned 66° */
    bw_root_motion_config all = {0};
    d = extract1(rig, &all, bt, 0.9, 1.2, true, 1.0f);
    double acc[3] = {0, 0, 0}, v[3], w[3];
    double p1[3] = {0.3, 0, 0}, p2[3] = {3, 0, 0};
    rot_y(-54 * DEG, p1, v);
    for (int k = 0; k < 3; k++) acc[k] += v[k];
    rot_y(6 * DEG, p2, w);
    for (int k = 0; k < 3; k++) acc[k] += w[k];
    rot_y(66 * DEG, p1, w);
    for (int k = 0; k < 3; k++) acc[k] += w[k];
    CHECK_NEAR(d.t[0], acc[0], 1e-5);
    CHECK_NEAR(d.t[2], acc[2], 1e-5);
    CHECK_NEAR(d.yaw, 72 * DEG, 1e-5);
    /* removal with Y on puts the root at its rest height (0 here) */
    bw_root_motion_config y_on = {0, BW_ROOT_Y};
    bw_transform x = bw_transform_identity;
    x.t[0] = 0.5f; x.t[1] = 0.7f; x.t[2] = 0.25f;
    CHECK(bw_root_motion_remove(rig, &y_on, &x) == BW_OK);
    CHECK_NEAR(x.t[0], 0.5, 1e-7);
    CHECK_NEAR(x.t[1], 0.0, 1e-7);
    CHECK_NEAR(x.t[2], 0.25, 1e-7);
    bw_binding_destroy(b);
    bw_binding_destroy(bt);
    bw_clip_destroy(clip);
    bw_clip_destroy(turn);
    bw_rig_destroy(rig);
}

/* ---- (f) one loop = the clip's travel; reverse and ping-pong ---- */

static void one_loop_should_sum_to_clip_travel(void)
{
    bw_rig *rig = make_rig1();
    /* uneven keys: (0,0,0) at 0, (0.3, 0.2, 0.5) at 0.4, (0.1, 0, 1.7) at 1:
     * a cycle travels p(1) − p(0) = (0.1, 0, 1.7) with Y on */
    static const float times[3] = {0.0f, 0.4f, 1.0f};
    static const float t[9] = {0, 0, 0, 0.3f, 0.2f, 0.5f, 0.1f, 0, 1.7f};
    bw_clip *clip = make_clip(times, 3, t, NULL, 1.0f, true);
    bw_binding *b = bind(clip, rig);
    bw_root_motion_config cfg = {0, BW_ROOT_AXES_ALL};
    const double speeds[3] = {1.0, -1.0, 0.7312};
    for (int s = 0; s < 3; s++) {
        /* exactly one cycle of clip time in steps of speed/60 (the last
         * one shortened), starting at an odd phase */
        double sign = speeds[s] > 0 ? 1.0 : -1.0;
        double time = 0.37, left = 1.0, sum[3] = {0, 0, 0};
        int wraps = 0;
        while (left > 1e-12) {
            double step = fabs(speeds[s]) / 60.0 < left ? fabs(speeds[s]) / 60.0 : left;
            bw_root_delta d = extract1(rig, &cfg, b, time, sign * step, true, 1.0f);
            for (int k = 0; k < 3; k++) sum[k] += d.t[k];
            time = wrap_time(time + sign * step, 1.0, &wraps);
            left -= step;
        }
        CHECK_INT(wraps, 1);
        CHECK_NEAR(sum[0], sign * 0.1, 1e-5);
        CHECK_NEAR(sum[1], 0.0, 1e-5);
        CHECK_NEAR(sum[2], sign * 1.7, 1e-5);
        /* the same in one step, from another phase */
        bw_root_delta d = extract1(rig, &cfg, b, 0.37 * speeds[s], sign, true, 1.0f);
        CHECK_NEAR(d.t[0], sign * 0.1, 1e-5);
        CHECK_NEAR(d.t[1], 0.0, 1e-5);
        CHECK_NEAR(d.t[2], sign * 1.7, 1e-5);
    }
    /* ping-pong on the turning walk: 100 frames forward, 100 back, at
     * 60 Hz, crossing the wrap both ways: home again, heading 0 */
    bw_clip *turn = make_turning_walk();
    bw_binding *bt = bind(turn, rig);
    bw_root_motion_config dflt = {0};
    mover m = {{0, 0, 0}, 0};
    double time = 0.6;
    int wraps = 0;
    for (int f = 0; f < 200; f++) {
        double step = f < 100 ? 1.0 / 60.0 : -1.0 / 60.0;
        bw_root_delta d = extract1(rig, &dflt, bt, time, step, true, 1.0f);
        mover_apply(&m, &d);
        time = wrap_time(time + step, 1.0, &wraps);
        if (f == 99) CHECK(hypot(m.pos[0], m.pos[2]) > 1.0); /* it did go somewhere */
    }
    CHECK_NEAR(m.pos[0], 0.0, 1e-5);
    CHECK_NEAR(m.pos[2], 0.0, 1e-5);
    CHECK_NEAR(m.heading, 0.0, 1e-5);
    bw_binding_destroy(bt);
    bw_clip_destroy(turn);
    bw_binding_destroy(b);
    bw_clip_destroy(clip);
    bw_rig_destroy(rig);
}

/* ---- the root's parent frame ---- */

/* A glTF-style armature: joint 0 rotated +90° about X with scale 0.01
 * (Z-up centimetres), the hips below it. Local +Y maps to model +Z
 * (X90·(0,1,0) = (0,0,1)) and a local rotation about +Z is a model
 * rotation about −Y (X90·Z(θ) = Y(−θ)·X90). */
static void parent_frame_should_convert_units_and_axes(void)
{
    bw_rig_joint_desc j[2] = {{"armature", -1, bw_transform_identity}, {"hips", 0, bw_transform_identity}};
    q_axis(1, 0, 0, 90, j[0].rest.r);
    j[0].rest.s[0] = j[0].rest.s[1] = j[0].rest.s[2] = 0.01f;
    j[0].rest.t[0] = 5.0f; /* the armature's own offset cancels */
    bw_rig_desc rd = {0};
    rd.joints = j;
    rd.joint_count = 2;
    bw_rig *rig = NULL;
    CHECK(bw_rig_create(&rd, &rig, NULL) == BW_OK);
    /* hips: local (0, 200u, 0) and Z(30°·u) over 1 s */
    static const float times[2] = {0.0f, 1.0f};
    static const float t[6] = {0, 0, 0, 0, 200, 0};
    float r[8];
    q_axis(0, 0, 1, 0, &r[0]);
    q_axis(0, 0, 1, 30, &r[4]);
    bw_clip *clip = make_clip_on("armature", "hips", times, 2, t, r, 1.0f, false);
    bw_binding *b = bind(clip, rig);
    bw_root_motion_config cfg = {0};
    bw_error err;
    CHECK(bw_root_motion_config_init(&cfg, rig, "hips", 0, &err) == BW_OK);
    CHECK_INT(cfg.root_joint, 1);
    /* [0, 0.5]: model (0, 0, 1), heading 0 → t = (0, 0, 1), yaw −15° */
    bw_root_delta d = extract1(rig, &cfg, b, 0.0, 0.5, false, 1.0f);
    CHECK_NEAR(d.t[0], 0.0, 1e-6);
    CHECK_NEAR(d.t[2], 1.0, 1e-6);
    CHECK_NEAR(d.yaw, -15 * DEG, 1e-6);
    /* [0.5, 1]: heading −15°, so t = rotY(15°)·(0,0,1) = (sin 15°, 0, cos 15°) */
    d = extract1(rig, &cfg, b, 0.5, 0.5, false, 1.0f);
    CHECK_NEAR(d.t[0], sin(15 * DEG), 1e-6);
    CHECK_NEAR(d.t[2], cos(15 * DEG), 1e-6);
    CHECK_NEAR(d.yaw, -15 * DEG, 1e-6);
    /* removal: hips local t = (0, 150, −90), r = Z(30°). Model position
     * 0.01·X90·t + (5,0,0) = (5, 0.9, 1.5); model rotation Y(−30°)·X90.
     * After removal the model position is (0, 0.9, 0) and the rotation
     * X90, i.e. local r = identity and local t = 100·X(−90°)·((0,0.9,0) −
     * (5,0,0)) = 100·X(−90°)·(−5, 0.9, 0) = (−500, 0, −90). */
    bw_transform x = bw_transform_identity;
    x.t[1] = 150.0f;
    x.t[2] = -90.0f;
    q_axis(0, 0, 1, 30, x.r);
    CHECK(bw_root_motion_remove(rig, &cfg, &x) == BW_OK);
    CHECK_NEAR(x.t[0], -500.0, 1e-3);
    CHECK_NEAR(x.t[1], 0.0, 1e-3);
    CHECK_NEAR(x.t[2], -90.0, 1e-3);
    static const float ident[4] = {0, 0, 0, 1};
    CHECK(q_same(x.r, ident) > 1.0 - 1e-6);
    bw_binding_destroy(b);
    bw_clip_destroy(clip);
    bw_rig_destroy(rig);
}

/* ---- playback through a track set ---- */

static void track_set_extraction_should_follow_live_tracks(void)
{
    bw_rig *rig = make_rig1();
    bw_clip *ca = make_walk(), *cb = make_strafe_turn();
    bw_binding *ba = bind(ca, rig), *bb = bind(cb, rig);
    bw_track_set_desc sd = {0};
    sd.rig = rig;
    bw_track_set *set = NULL;
    CHECK(bw_track_set_create(&sd, &set) == BW_OK);
    if (!set) goto done;
    bw_root_motion_config cfg = {0};
    bw_root_delta d;
    /* nothing playing: zero */
    CHECK(bw_root_motion_extract_tracks(set, rig, &cfg, &d) == BW_OK);
    CHECK_INT(d.used, 0);
    bw_play_desc pa = bw_play_desc_defaults(ba);
    pa.time = 0.2;
    int ha = -1;
    CHECK(bw_track_set_play(set, &pa, &ha) == BW_OK);
    CHECK(ha >= 0);
    /* 1.5 s in 90 frames at speed 1: 3 m, across one wrap */
    double sum = 0.0;
    for (int f = 0; f < 90; f++) {
        bw_track_set_advance(set, 1.0f / 60.0f);
        CHECK(bw_root_motion_extract_tracks(set, rig, &cfg, &d) == BW_OK);
        CHECK(d.t[2] > 0.0f);
        sum += d.t[2];
    }
    CHECK_NEAR(sum, 3.0, 1e-4);
    /* crossfade: A at weight 0.25, B joins at weight 0.75 from time 0.2;
     * A seeks to 0.2 too, so one 0.1 s step is the blend computed in the
     * crossfade test: t = (0.75·0.3 cos 12°, 0, 0.25·0.2 + 0.75·0.3 sin 12°) */
    CHECK(bw_track_set_fade(set, ha, 0.25f, 0.0f) == BW_OK);
    CHECK(bw_track_set_seek(set, ha, 0.2) == BW_OK);
    bw_play_desc pb = bw_play_desc_defaults(bb);
    pb.time = 0.2;
    pb.weight = 0.75f;
    int hb = -1;
    CHECK(bw_track_set_play(set, &pb, &hb) == BW_OK);
    CHECK(hb >= 0);
    bw_track_set_advance(set, 0.1f);
    CHECK(bw_root_motion_extract_tracks(set, rig, &cfg, &d) == BW_OK);
    CHECK_INT(d.used, 2);
    CHECK_NEAR(d.t[0], 0.75 * 0.3 * cos(12 * DEG), 1e-5);
    CHECK_NEAR(d.t[2], 0.25 * 0.2 + 0.75 * 0.3 * sin(12 * DEG), 1e-5);
    CHECK_NEAR(d.yaw, 0.75 * 6 * DEG, 1e-5);
    /* reverse speed on A alone: backwards travel, −2 × 0.25 s of clip ×
     * 2 m/s = −1 m, of which A (still at weight 0.25 over the rest pose)
     * shows a quarter: −0.25 m; back at weight 1, the full −1 m */
    CHECK(bw_track_set_stop(set, hb, 0.0f) == BW_OK);
    bw_track_set_drain(set, NULL, NULL);
    CHECK(bw_track_set_set_speed(set, ha, -2.0f) == BW_OK);
    bw_track_set_advance(set, 0.25f);
    CHECK(bw_root_motion_extract_tracks(set, rig, &cfg, &d) == BW_OK);
    CHECK_INT(d.used, 1);
    CHECK_NEAR(d.t[2], -0.25, 1e-5);
    CHECK(bw_track_set_fade(set, ha, 1.0f, 0.0f) == BW_OK);
    bw_track_set_advance(set, 0.25f);
    CHECK(bw_root_motion_extract_tracks(set, rig, &cfg, &d) == BW_OK);
    CHECK_NEAR(d.t[2], -1.0, 1e-5);
    CHECK(bw_root_motion_extract_tracks(NULL, rig, &cfg, &d) == BW_ERR_INVALID_ARGUMENT);
    bw_track_set_destroy(set);
done:
    bw_binding_destroy(ba);
    bw_binding_destroy(bb);
    bw_clip_destroy(ca);
    bw_clip_destroy(cb);
    bw_rig_destroy(rig);
}

/* ---- a turning loop through a real track set, 10,000+ crossings ---- */

/* A 0.75 s loop that turns 70° about +Y while walking forward along its
 * own heading: heading θ(u) = 70°·u and path p(u) = ρ(1 − cos θ, 0, sin θ)
 * (radius ρ = 1.5 m), keyed at u = k/8 for translation and rotation
 * (Y(8.75°·k)). Key times k × 0.09375 s are exact in binary. */
#define TURN_LEN 0.75
#define TURN_KEYS 9
typedef struct turn_keys {
    float times[TURN_KEYS];
    float t[3 * TURN_KEYS];
    float r[4 * TURN_KEYS];
} turn_keys;

static void make_turn_keys(turn_keys *k)
{
    for (int i = 0; i < TURN_KEYS; i++) {
        double th = 70.0 * DEG * i / 8.0;
        k->times[i] = (float)(TURN_LEN * i / 8.0);
        k->t[3 * i + 0] = (float)(1.5 * (1.0 - cos(th)));
        k->t[3 * i + 1] = 0.0f;
        k->t[3 * i + 2] = (float)(1.5 * sin(th));
        q_axis(0, 1, 0, 70.0 * i / 8.0, &k->r[4 * i]);
    }
}

/* Heading of key i, from the float key itself (2·atan2(y, w)): the clip
 * turns by exactly this much per loop, not by 70° (float keys). */
static double key_heading(const turn_keys *k, int i)
{
    return 2.0 * atan2((double)k->r[4 * i + 1], (double)k->r[4 * i + 3]);
}

/* Position and heading of the root at clip time τ in [0, L]: linear
 * translation between keys, and a slerp between two Y rotations is a
 * linear heading. */
static void turn_at(const turn_keys *k, double tau, double *p, double *psi)
{
    int i = (int)floor(tau / (TURN_LEN / 8.0));
    if (i < 0) i = 0;
    if (i > TURN_KEYS - 2) i = TURN_KEYS - 2;
    double u = (tau - k->times[i]) / ((double)k->times[i + 1] - k->times[i]);
    for (int c = 0; c < 3; c++) p[c] = k->t[3 * i + c] + u * ((double)k->t[3 * (i + 1) + c] - k->t[3 * i + c]);
    *psi = key_heading(k, i) + u * (key_heading(k, i + 1) - key_heading(k, i));
}

/* Where the game is after the clip has advanced by `total` seconds of clip
 * time from time 0, composing per-cycle rigid motions. One cycle C moves
 * by D = p(L) − p(0) = the last key (the first is 0, heading 0) and turns
 * by θ = the last key's heading. After n whole cycles (n = floor(total/L),
 * negative when playing backwards) the heading is nθ and the position is
 * Σ_{c=0}^{n−1} rotY(cθ)·D (for n < 0: −Σ_{c=n}^{−1} rotY(cθ)·D, the
 * inverse cycles), then the partial cycle from 0 to r = total − nL adds
 * rotY(nθ)·p(r) and ψ(r). */
static void turn_expected(const turn_keys *k, double total, double *pos, double *heading)
{
    double n = floor(total / TURN_LEN), r = total - n * TURN_LEN;
    double d[3] = {k->t[3 * 8 + 0], k->t[3 * 8 + 1], k->t[3 * 8 + 2]}, w[3];
    double theta = key_heading(k, 8);
    pos[0] = pos[1] = pos[2] = 0.0;
    if (n >= 0) {
        for (long c = 0; c < (long)n; c++) {
            rot_y((double)c * theta, d, w);
            for (int i = 0; i < 3; i++) pos[i] += w[i];
        }
    } else {
        for (long c = (long)n; c < 0; c++) {
            rot_y((double)c * theta, d, w);
            for (int i = 0; i < 3; i++) pos[i] -= w[i];
        }
    }
    double pr[3], psr;
    turn_at(k, r, pr, &psr);
    rot_y(n * theta, pr, w);
    for (int i = 0; i < 3; i++) pos[i] += w[i];
    *heading = n * theta + psr;
}

static void turning_loop_through_track_set(float speed)
{
    bw_rig *rig = make_rig1();
    turn_keys k;
    make_turn_keys(&k);
    bw_track_desc tr[2];
    memset(tr, 0, sizeof tr);
    tr[0].parent = tr[1].parent = "";
    tr[0].joint = tr[1].joint = "root";
    tr[0].channel = BW_CHANNEL_TRANSLATION;
    tr[0].key_count = TURN_KEYS;
    tr[0].times = k.times;
    tr[0].values = k.t;
    tr[1].channel = BW_CHANNEL_ROTATION;
    tr[1].key_count = TURN_KEYS;
    tr[1].times = k.times;
    tr[1].values = k.r;
    bw_clip_desc cd = {0};
    cd.tracks = tr;
    cd.track_count = 2;
    cd.length = (float)TURN_LEN;
    cd.loop = true;
    bw_clip *clip = NULL;
    CHECK(bw_clip_create(&cd, &clip, NULL) == BW_OK);
    if (!clip) return;
    /* the expectation reads the keys as given; the clip must hold them
     * unchanged (its normalization leaves these unit quaternions alone) */
    bw_track_desc stored;
    CHECK(bw_clip_track(clip, 1, &stored) == BW_OK);
    CHECK(memcmp(stored.values, k.r, sizeof k.r) == 0);
    CHECK_NEAR(key_heading(&k, 8), 70.0 * DEG, 1e-6);
    bw_binding *b = bind(clip, rig);
    bw_track_set_desc sd = {0};
    sd.rig = rig;
    bw_track_set *set = NULL;
    CHECK(bw_track_set_create(&sd, &set) == BW_OK);
    bw_play_desc pd = bw_play_desc_defaults(b);
    pd.speed = speed;
    int h = -1;
    if (set) CHECK(bw_track_set_play(set, &pd, &h) == BW_OK);
    CHECK(h >= 0);
    if (h < 0) goto done;

    const float dt = 1.0f / 60.0f;
    /* play.h advances clip time by (double)speed × (double)dt per frame;
     * run until 10,000.4 loops' worth, so the end phase is well inside a
     * cycle */
    const double step = (double)speed * (double)dt;
    const long frames = (long)ceil(10000.4 * TURN_LEN / fabs(step));
    bw_root_motion_config cfg = {0};
    mover m = {{0, 0, 0}, 0};
    int bad = 0;
    for (long f = 0; f < frames; f++) {
        bw_track_set_advance(set, dt);
        bw_root_delta d;
        if (bw_root_motion_extract_tracks(set, rig, &cfg, &d) != BW_OK || d.used != 1) bad++;
        mover_apply(&m, &d);
    }
    CHECK_INT(bad, 0);
    double total = (double)frames * step, pos[3], heading;
    double cycles = floor(total / TURN_LEN);
    CHECK(fabs(cycles) >= 10000.0);
    /* the set's own clock agrees with the bookkeeping here */
    CHECK_NEAR(bw_track_set_time(set, h), total - cycles * TURN_LEN, 1e-6);
    turn_expected(&k, total, pos, &heading);
    /* the orbit's scale: one cycle's displacement |D| ≈ 2ρ sin 35° */
    double dlen = hypot(k.t[3 * 8], k.t[3 * 8 + 2]);
    double scale = fmax(hypot(pos[0], pos[2]), dlen);
    double err = hypot(m.pos[0] - pos[0], m.pos[2] - pos[2]);
    printf("speed %g: %ld frames, %.0f cycles, position (%.6f, %.6f) expected (%.6f, %.6f), error %.3g; "
           "heading error %.3g rad\n",
           speed, frames, cycles, m.pos[0], m.pos[2], pos[0], pos[2], err, m.heading - heading);
    CHECK(err <= 1e-4 * scale);
    CHECK_NEAR(m.pos[1], 0.0, 1e-9);
    CHECK_NEAR(m.heading, heading, 1e-4 * fabs(heading));
    /* tighter than 1e-4 relative, which would allow a whole radian of
     * ~12,000: per-frame yaws telescope, so only double rounding remains */
    CHECK_NEAR(m.heading, heading, 1e-6);
done:
    bw_track_set_destroy(set);
    bw_binding_destroy(b);
    bw_clip_destroy(clip);
    bw_rig_destroy(rig);
}

static void turning_loop_forward_through_track_set(void) { turning_loop_through_track_set(1.0f); }
static void turning_loop_reverse_through_track_set(void) { turning_loop_through_track_set(-1.0f); }
static void turning_loop_odd_speed_through_track_set(void) { turning_loop_through_track_set(0.7312f); }
static void turning_loop_fast_reverse_through_track_set(void) { turning_loop_through_track_set(-1.37f); }

/* ---- bad input ---- */

static void bad_input_should_fail_cleanly(void)
{
    bw_rig *rig = make_rig1();
    bw_clip *clip = make_walk();
    bw_binding *b = bind(clip, rig);
    bw_root_motion_config cfg = {0};
    bw_root_play ok = {b, 0.2, 0.1, true, 1.0f, 0};
    bw_root_delta d, sentinel;
    memset(&sentinel, 0x5a, sizeof sentinel);
    d = sentinel;
    CHECK(bw_root_motion_extract(NULL, &cfg, &ok, 1, &d) == BW_ERR_INVALID_ARGUMENT);
    CHECK(bw_root_motion_extract(rig, NULL, &ok, 1, &d) == BW_ERR_INVALID_ARGUMENT);
    CHECK(bw_root_motion_extract(rig, &cfg, &ok, 1, NULL) == BW_ERR_INVALID_ARGUMENT);
    CHECK(bw_root_motion_extract(rig, &cfg, NULL, 1, &d) == BW_ERR_INVALID_ARGUMENT);
    CHECK(bw_root_motion_extract(rig, &cfg, &ok, -1, &d) == BW_ERR_INVALID_ARGUMENT);
    bw_root_motion_config bad = {2, 0};
    CHECK(bw_root_motion_extract(rig, &bad, &ok, 1, &d) == BW_ERR_RANGE);
    bad.root_joint = -1;
    CHECK(bw_root_motion_extract(rig, &bad, &ok, 1, &d) == BW_ERR_RANGE);
    bad.root_joint = 0;
    bad.axes = 0x100;
    CHECK(bw_root_motion_extract(rig, &bad, &ok, 1, &d) == BW_ERR_INVALID_ARGUMENT);
    CHECK(memcmp(&d, &sentinel, sizeof d) == 0);

    /* broken plays are skipped; the good one still moves the character */
    bw_rig *other = NULL;
    bw_rig_joint_desc oj = {"something_else", -1, bw_transform_identity};
    bw_rig_desc od = {0};
    od.joints = &oj;
    od.joint_count = 1;
    CHECK(bw_rig_create(&od, &other, NULL) == BW_OK);
    bw_binding *bo = other ? bind(clip, other) : NULL;
    bw_root_play plays[6] = {
        {b, NAN, 0.1, true, 1.0f, 0},
        {b, 0.2, INFINITY, true, 1.0f, 0},
        {b, 0.2, 0.1, true, NAN, 0},
        {NULL, 0.2, 0.1, true, 1.0f, 0},
        {bo, 0.2, 0.1, true, 1.0f, 0}, /* made for another rig's layout */
        ok,
    };
    CHECK(bw_root_motion_extract(rig, &cfg, plays, 6, &d) == BW_OK);
    CHECK_INT(d.used, 1);
    CHECK_INT(d.skipped, 5);
    CHECK_NEAR(d.t[2], 0.2, 1e-6);

    /* huge steps: capped cycles, finite; non-looping clamps to the clip */
    d = extract1(rig, &cfg, b, 0.2, 1e30, true, 1.0f);
    CHECK(isfinite(d.t[2]) && d.t[2] > 0.0f);
    CHECK(d.t[2] <= 2.0f * ((float)BW_ROOT_MOTION_MAX_CYCLES + 2.0f));
    d = extract1(rig, &cfg, b, 0.2, -1e30, true, 1.0f);
    CHECK(isfinite(d.t[2]) && d.t[2] < 0.0f);
    d = extract1(rig, &cfg, b, -1e30, 2e30, false, 1.0f);
    CHECK_NEAR(d.t[2], 2.0, 1e-6); /* clamped to [0, 1]: the whole clip */
    d = extract1(rig, &cfg, b, 1e300, 0.5, true, 1.0f);
    CHECK(isfinite(d.t[2]) && d.t[2] >= 0.0f);

    /* a zero-length clip (every key at 0) travels nothing */
    static const float t0[1] = {0.0f};
    static const float v0[3] = {1, 2, 3};
    bw_clip *zero = make_clip(t0, 1, v0, NULL, 0.0f, true);
    bw_binding *bz = bind(zero, rig);
    d = extract1(rig, &cfg, bz, 0.0, 5.0, true, 1.0f);
    CHECK(d.t[0] == 0.0f && d.t[2] == 0.0f && d.yaw == 0.0f);
    CHECK_INT(d.used, 1);
    d = extract1(rig, &cfg, bz, 0.0, 5.0, false, 1.0f);
    CHECK(d.t[2] == 0.0f);

    /* removal */
    bw_transform x = bw_transform_identity, keep;
    x.t[0] = NAN;
    keep = x;
    CHECK(bw_root_motion_remove(rig, &cfg, &x) == BW_ERR_NON_FINITE);
    CHECK(memcmp(&x, &keep, sizeof x) == 0);
    x = bw_transform_identity;
    x.r[3] = INFINITY;
    CHECK(bw_root_motion_remove(rig, &cfg, &x) == BW_ERR_NON_FINITE);
    CHECK(bw_root_motion_remove(rig, &cfg, NULL) == BW_ERR_INVALID_ARGUMENT);
    CHECK(bw_root_motion_remove(NULL, &cfg, &x) == BW_ERR_INVALID_ARGUMENT);
    bad.axes = 0;
    bad.root_joint = 9;
    CHECK(bw_root_motion_remove(rig, &bad, &x) == BW_ERR_RANGE);
    /* a non-unit rotation is normalized: (0, 0, 0, 2) is identity */
    x = bw_transform_identity;
    x.r[3] = 2.0f;
    x.t[1] = 1.0f;
    CHECK(bw_root_motion_remove(rig, &cfg, &x) == BW_OK);
    CHECK_NEAR(x.r[3], 1.0, 1e-7);
    CHECK_NEAR(x.t[1], 1.0, 1e-7);

    /* config_init */
    bw_error err;
    bw_root_motion_config c = {7, 7};
    CHECK(bw_root_motion_config_init(&c, rig, "nope", 0, &err) == BW_ERR_NOT_FOUND);
    CHECK_CONTAINS(err.message, "nope");
    CHECK(c.root_joint == 7 && c.axes == 7);
    CHECK(bw_root_motion_config_init(&c, rig, "root", 0x40, &err) == BW_ERR_INVALID_ARGUMENT);
    CHECK(bw_root_motion_config_init(NULL, rig, "root", 0, &err) == BW_ERR_INVALID_ARGUMENT);
    CHECK(bw_root_motion_config_init(&c, NULL, "root", 0, NULL) == BW_ERR_INVALID_ARGUMENT);
    CHECK(bw_root_motion_config_init(&c, rig, "child", BW_ROOT_YAW, &err) == BW_OK);
    CHECK_INT(c.root_joint, 1);
    CHECK_INT(c.axes, BW_ROOT_YAW);
    CHECK(bw_root_motion_config_init(&c, rig, NULL, 0, &err) == BW_OK);
    CHECK_INT(c.root_joint, 0);
    /* ambiguous: two "hand" joints under different parents */
    bw_rig_joint_desc all5[5] = {{"root", -1, bw_transform_identity},
                                 {"l", 0, bw_transform_identity},
                                 {"r", 0, bw_transform_identity},
                                 {"hand", 1, bw_transform_identity},
                                 {"hand", 2, bw_transform_identity}};
    bw_rig_desc ad = {0};
    ad.joints = all5;
    ad.joint_count = 5;
    bw_rig *amb = NULL;
    CHECK(bw_rig_create(&ad, &amb, NULL) == BW_OK);
    if (amb) CHECK(bw_root_motion_config_init(&c, amb, "hand", 0, &err) == BW_ERR_DUPLICATE);
    /* an empty rig has no root */
    bw_rig_desc ed = {0};
    bw_rig *empty = NULL;
    CHECK(bw_rig_create(&ed, &empty, NULL) == BW_OK);
    if (empty) {
        CHECK(bw_root_motion_config_init(&c, empty, NULL, 0, &err) == BW_ERR_EMPTY);
        bw_root_motion_config zc = {0};
        CHECK(bw_root_motion_extract(empty, &zc, NULL, 0, &d) == BW_ERR_RANGE);
    }

    bw_rig_destroy(empty);
    bw_rig_destroy(amb);
    bw_binding_destroy(bz);
    bw_clip_destroy(zero);
    bw_binding_destroy(bo);
    bw_rig_destroy(other);
    bw_binding_destroy(b);
    bw_clip_destroy(clip);
    bw_rig_destroy(rig);
}

/* ---- (g) the CMU BVH ---- */

/* The first six numbers of a MOTION line: Hips X/Y/Z position and Z, Y, X
 * rotation in degrees (the file's CHANNELS order, checked below). */
typedef struct hips_frame {
    double pos[3], zrot, yrot, xrot;
} hips_frame;

static bool read_hips_frames(const char *path, hips_frame *first, hips_frame *last, int *frames)
{
    FILE *f = fopen(path, "r");
    if (!f) return false;
    static char line[65536];
    bool motion = false, channels_ok = false, have_first = false;
    int count = 0;
    while (fgets(line, sizeof line, f)) {
        if (!motion) {
            if (strstr(line, "CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation"))
                channels_ok = true;
            if (strncmp(line, "MOTION", 6) == 0) motion = true;
            continue;
        }
        if (strncmp(line, "Frames:", 7) == 0 || strncmp(line, "Frame Time:", 11) == 0) continue;
        hips_frame h;
        if (sscanf(line, "%lf %lf %lf %lf %lf %lf", &h.pos[0], &h.pos[1], &h.pos[2], &h.zrot, &h.yrot, &h.xrot) != 6)
            continue;
        if (!have_first) { *first = h; have_first = true; }
        *last = h;
        count++;
    }
    fclose(f);
    *frames = count;
    return channels_ok && have_first;
}

/* Heading of R = Rz·Ry·Rx (BVH intrinsic order as listed): the twist about
 * Y of the product quaternion, 2·atan2(y, w). */
static double bvh_heading(const hips_frame *h)
{
    float qz[4], qy[4], qx[4], t[4], q[4];
    q_axis(0, 0, 1, h->zrot, qz);
    q_axis(0, 1, 0, h->yrot, qy);
    q_axis(1, 0, 0, h->xrot, qx);
    q_mul(qz, qy, t);
    q_mul(t, qx, q);
    return wrap_pi(2.0 * atan2(q[1], q[3]));
}

static void bvh_travel_should_match_hips_displacement(void)
{
    const char *path = check_asset("cmu_01_01.bvh");
    if (!path) {
        printf("skipped: bvh_travel_should_match_hips_displacement (cmu_01_01.bvh absent)\n");
        return;
    }
    hips_frame first, last;
    int frames = 0;
    CHECK(read_hips_frames(path, &first, &last, &frames));
    CHECK_INT(frames, 2752);
    bw_asset *asset = NULL;
    bw_error err;
    memset(&err, 0, sizeof err);
    bw_result res = bw_asset_load_file(path, NULL, &asset, &err);
    CHECK(res == BW_OK);
    if (res != BW_OK) {
        fprintf(stderr, "bvh load: %s\n", err.message);
        return;
    }
    CHECK(asset->clip_count >= 1);
    bw_root_motion_config cfg = {0};
    CHECK(bw_root_motion_config_init(&cfg, asset->rig, "Hips", 0, &err) == BW_OK);
    const bw_clip *clip = asset->clips[0];
    bw_binding *b = bind(clip, asset->rig);
    double len = bw_clip_length(clip);
    /* keys at i × frame time: the length is 2751 × 0.0083333 s */
    CHECK_NEAR(len, 2751 * 0.0083333, 1e-3);

    /* expected: the hips' horizontal displacement, last minus first line */
    double ex = last.pos[0] - first.pos[0], ez = last.pos[2] - first.pos[2];
    CHECK(hypot(ex, ez) > 50.0); /* the subject walks ~56 units: a real check */

    /* (1) yaw off: deltas are model-space displacements; a plain sum */
    bw_root_motion_config xz = cfg;
    xz.axes = BW_ROOT_X | BW_ROOT_Z;
    /* (2) default axes: integrate like a game that starts with the
     * character frame = the root's heading in the first frame */
    mover m = {{0, 0, 0}, bvh_heading(&first)};
    double sum[2] = {0, 0}, yaw_sum = 0.0;
    const double dt = 1.0 / 120.0;
    int steps = 0;
    for (double time = 0.0; time < len && steps < 100000; steps++) {
        bw_root_delta d = extract1(asset->rig, &xz, b, time, dt, false, 1.0f);
        sum[0] += d.t[0];
        sum[1] += d.t[2];
        CHECK(d.t[1] == 0.0f && d.yaw == 0.0f);
        d = extract1(asset->rig, &cfg, b, time, dt, false, 1.0f);
        mover_apply(&m, &d);
        yaw_sum += d.yaw;
        time = time + dt < len ? time + dt : len;
    }
    /* float samples of values ≤ 60 (ulp ~4e-6), telescoping: 1e-4 */
    CHECK_NEAR(sum[0], ex, 1e-4);
    CHECK_NEAR(sum[1], ez, 1e-4);
    /* with yaw: float heading rounding over ~2,750 steps (each yaw a few
     * 1e-3 rad, rounded to ~1e-9) rotates a 56-unit path by < 1e-5 rad */
    CHECK_NEAR(m.pos[0], ex, 1e-3);
    CHECK_NEAR(m.pos[2], ez, 1e-3);
    /* total yaw ≡ heading(last) − heading(first) (mod 2π) */
    CHECK_NEAR(wrap_pi(yaw_sum - (bvh_heading(&last) - bvh_heading(&first))), 0.0, 1e-4);
    bw_binding_destroy(b);
    bw_asset_destroy(asset);
}

int main(void)
{
    RUN(walk_forward_should_never_step_back);
    RUN(walk_reverse_should_never_step_forward);
    RUN(walk_odd_speed_should_accumulate_exactly);
    RUN(several_cycles_in_one_step_should_count_each);
    RUN(turning_walk_should_walk_a_square);
    RUN(large_turn_in_one_step_should_not_wrap);
    RUN(yaw_removal_should_keep_swing_exactly);
    RUN(yaw_extraction_with_swing_should_report_only_yaw);
    RUN(crossfade_should_blend_by_fade_weights);
    RUN(weighting_should_follow_the_mixer);
    RUN(axis_flags_should_select_components);
    RUN(one_loop_should_sum_to_clip_travel);
    RUN(parent_frame_should_convert_units_and_axes);
    RUN(track_set_extraction_should_follow_live_tracks);
    RUN(turning_loop_forward_through_track_set);
    RUN(turning_loop_reverse_through_track_set);
    RUN(turning_loop_odd_speed_through_track_set);
    RUN(turning_loop_fast_reverse_through_track_set);
    RUN(bad_input_should_fail_cleanly);
    RUN(bvh_travel_should_match_hips_displacement);
    return check_summary();
}
