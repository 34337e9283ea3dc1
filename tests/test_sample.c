/* test_sample.c - sampling tracks and bound clips. Every expected number is
 * derived by hand in the comment beside it. */
#include <math.h>

#include "blendwerk/sample.h"
#include "check.h"
#include "fixtures.h"

#define PI 3.14159265358979323846
#define DEG (PI / 180.0)

static const float S45 = 0.70710678f; /* sin 45° = cos 45° */

/* One track in a clip of its own. */
static bw_clip *one_track(bw_channel channel, bw_interp interp, int n, const float *times, const float *values,
                          const unsigned char *styles, const unsigned char *dirs)
{
    bw_track_desc t = {"", "root", channel, interp, n, times, values, styles, dirs};
    if (channel == BW_CHANNEL_FLOAT || channel == BW_CHANNEL_ANGLE) t.joint = "curve";
    bw_clip_desc desc = {.tracks = &t, .track_count = 1};
    bw_clip *clip = NULL;
    bw_error err;
    if (bw_clip_create(&desc, &clip, &err) != BW_OK) fprintf(stderr, "clip: %s\n", err.message);
    return clip;
}

static float sample1(const bw_clip *clip, float time)
{
    float v = -12345.0f;
    bw_sample_track(clip, 0, time, &v);
    return v;
}

static void linear_midpoints_and_endpoint_holds(void)
{
    /* keys (0,0,0) at 0 s and (2,4,6) at 1 s: at 0.25 s, 0.25 of the way */
    float times[2] = {0.0f, 1.0f}, values[6] = {0, 0, 0, 2, 4, 6};
    bw_clip *clip = one_track(BW_CHANNEL_TRANSLATION, BW_INTERP_EASED, 2, times, values, NULL, NULL);
    float v[3];
    bw_sample_track(clip, 0, 0.25f, v);
    CHECK_NEAR(v[0], 0.5, 1e-6);
    CHECK_NEAR(v[1], 1.0, 1e-6);
    CHECK_NEAR(v[2], 1.5, 1e-6);
    bw_sample_track(clip, 0, 7.0f, v); /* after the last key: hold it */
    CHECK_NEAR(v[2], 6.0, 0);
    bw_sample_track(clip, 0, -1.0f, v); /* before the first: hold it */
    CHECK_NEAR(v[1], 0.0, 0);
    bw_clip_destroy(clip);
}

static void before_first_key_should_hold_it(void)
{
    /* glTF rigged_simple starts at 0.0417 s: times 0.0417 and 0.5, values 1 and 3 */
    float times[2] = {0.0417f, 0.5f}, values[2] = {1.0f, 3.0f};
    bw_clip *clip = one_track(BW_CHANNEL_FLOAT, BW_INTERP_EASED, 2, times, values, NULL, NULL);
    CHECK_NEAR(sample1(clip, 0.0f), 1.0, 0);
    CHECK_NEAR(sample1(clip, 0.02f), 1.0, 0);
    CHECK_NEAR(sample1(clip, -100.0f), 1.0, 0);
    CHECK_NEAR(sample1(clip, 0.0417f), 1.0, 0);
    /* halfway in time, (0.0417 + 0.5)/2 = 0.27085: value 2 */
    CHECK_NEAR(sample1(clip, 0.27085f), 2.0, 1e-5);
    CHECK_NEAR(bw_clip_length(clip), 0.5, 0);
    bw_clip_destroy(clip);
}

static void destination_key_easing_should_apply(void)
{
    /* keys 0 → 10 over [0, 1]. quad-in on the destination key: u = 0.5
     * eases to 0.25, value 2.5; quad-out: 1 - 0.25 = 0.75, value 7.5 */
    float times[2] = {0.0f, 1.0f}, values[2] = {0.0f, 10.0f};
    unsigned char styles[2] = {BW_EASE_LINEAR, BW_EASE_QUAD}, dirs[2] = {BW_EASE_IN, BW_EASE_IN};
    bw_clip *clip = one_track(BW_CHANNEL_FLOAT, BW_INTERP_EASED, 2, times, values, styles, dirs);
    CHECK_NEAR(sample1(clip, 0.5f), 2.5, 1e-5);
    bw_clip_destroy(clip);
    dirs[1] = BW_EASE_OUT;
    clip = one_track(BW_CHANNEL_FLOAT, BW_INTERP_EASED, 2, times, values, styles, dirs);
    CHECK_NEAR(sample1(clip, 0.5f), 7.5, 1e-5);
    bw_clip_destroy(clip);
    /* the source key's easing does not apply: cubic on key 0, linear on key 1 */
    styles[0] = BW_EASE_CUBIC;
    styles[1] = BW_EASE_LINEAR;
    clip = one_track(BW_CHANNEL_FLOAT, BW_INTERP_EASED, 2, times, values, styles, dirs);
    CHECK_NEAR(sample1(clip, 0.5f), 5.0, 1e-5);
    bw_clip_destroy(clip);
    /* in_out cubic at u = 0.25: in(0.5)/2 = 0.0625, value 0.625 */
    styles[1] = BW_EASE_CUBIC;
    dirs[1] = BW_EASE_IN_OUT;
    clip = one_track(BW_CHANNEL_FLOAT, BW_INTERP_EASED, 2, times, values, styles, dirs);
    CHECK_NEAR(sample1(clip, 0.25f), 0.625, 1e-5);
    bw_clip_destroy(clip);
}

static void constant_should_step_exactly_at_the_key(void)
{
    /* glTF STEP: keys 1, 2, 3 at 0, 1, 2; the value changes at the key time */
    float times[3] = {0, 1, 2}, values[3] = {1, 2, 3};
    unsigned char styles[3] = {BW_EASE_CONSTANT, BW_EASE_CONSTANT, BW_EASE_CONSTANT};
    bw_clip *clip = one_track(BW_CHANNEL_FLOAT, BW_INTERP_EASED, 3, times, values, styles, NULL);
    CHECK_NEAR(sample1(clip, 0.5f), 1.0, 0);
    CHECK_NEAR(sample1(clip, 0.9999f), 1.0, 0);
    CHECK_NEAR(sample1(clip, 1.0f), 2.0, 0);
    CHECK_NEAR(sample1(clip, 1.5f), 2.0, 0);
    CHECK_NEAR(sample1(clip, 2.0f), 3.0, 0);
    bw_clip_destroy(clip);
}

/* |dot| of two quaternions: 1 when they are the same rotation */
static double quat_same(const float *a, double x, double y, double z, double w)
{
    return fabs(a[0] * x + a[1] * y + a[2] * z + a[3] * w);
}

static void slerp_should_take_the_short_arc(void)
{
    /* identity → 90° about Y, (0, sin45°, 0, cos45°). At u = 0.5: 45°,
     * (0, sin 22.5°, 0, cos 22.5°) = (0, 0.38268343, 0, 0.92387953). */
    float times[2] = {0.0f, 1.0f};
    float q[8] = {0, 0, 0, 1, 0, S45, 0, S45};
    bw_clip *clip = one_track(BW_CHANNEL_ROTATION, BW_INTERP_EASED, 2, times, q, NULL, NULL);
    float r[4];
    bw_sample_track(clip, 0, 0.5f, r);
    CHECK_NEAR(r[0], 0.0, 1e-6);
    CHECK_NEAR(r[1], 0.38268343, 1e-6);
    CHECK_NEAR(r[2], 0.0, 1e-6);
    CHECK_NEAR(r[3], 0.92387953, 1e-6);
    /* at u = 0.25: 22.5°, (0, sin 11.25°, 0, cos 11.25°) = (0, 0.19509032, 0, 0.98078528);
     * slerp (not nlerp) gives equal angles for equal time steps */
    bw_sample_track(clip, 0, 0.25f, r);
    CHECK_NEAR(r[1], 0.19509032, 1e-6);
    CHECK_NEAR(r[3], 0.98078528, 1e-6);
    bw_clip_destroy(clip);

    /* the second key stored as −q: the same rotation; the short arc still
     * gives the 45° midpoint (up to sign), not a 135° detour */
    float nq[8] = {0, 0, 0, 1, 0, -S45, 0, -S45};
    clip = one_track(BW_CHANNEL_ROTATION, BW_INTERP_EASED, 2, times, nq, NULL, NULL);
    bw_sample_track(clip, 0, 0.5f, r);
    CHECK_NEAR(quat_same(r, 0, 0.38268343, 0, 0.92387953), 1.0, 1e-6);
    bw_clip_destroy(clip);

    /* identity → 270° about Y, (0, sin 135°, 0, cos 135°) = (0, .7071, 0, −.7071):
     * the short way is −90°, so the midpoint is −45°: (0, −sin 22.5°, 0, cos 22.5°) */
    float lq[8] = {0, 0, 0, 1, 0, S45, 0, -S45};
    clip = one_track(BW_CHANNEL_ROTATION, BW_INTERP_EASED, 2, times, lq, NULL, NULL);
    bw_sample_track(clip, 0, 0.5f, r);
    CHECK_NEAR(quat_same(r, 0, -0.38268343, 0, 0.92387953), 1.0, 1e-6);
    CHECK_NEAR(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3], 1.0, 1e-6);
    bw_clip_destroy(clip);
}

static void cubic_spline_should_follow_the_hermite_basis(void)
{
    /* keys at 0 s and 2 s (dt = 2); key 0: in 0, value 1, out 0.5;
     * key 1: in −1, value 3, out 0. p = h00 v0 + h10 dt out0 + h01 v1 + h11 dt in1.
     * s = 0.5 (τ = 1): h00 = 0.5, h10 = 0.125, h01 = 0.5, h11 = −0.125
     *   p = 0.5 + 0.125·2·0.5 + 1.5 + (−0.125)·2·(−1) = 2.375
     * s = 0.25 (τ = 0.5): h00 = 0.84375, h10 = 0.140625, h01 = 0.15625, h11 = −0.046875
     *   p = 0.84375 + 0.140625 + 0.46875 + 0.09375 = 1.546875 */
    float times[2] = {0.0f, 2.0f};
    float values[6] = {0.0f, 1.0f, 0.5f, -1.0f, 3.0f, 0.0f};
    unsigned char styles[2] = {BW_EASE_BOUNCE, BW_EASE_BOUNCE}; /* ignored for splines */
    bw_clip *clip = one_track(BW_CHANNEL_FLOAT, BW_INTERP_CUBICSPLINE, 2, times, values, styles, NULL);
    CHECK_NEAR(sample1(clip, 1.0f), 2.375, 1e-6);
    CHECK_NEAR(sample1(clip, 0.5f), 1.546875, 1e-6);
    CHECK_NEAR(sample1(clip, 0.0f), 1.0, 0); /* the value, not a tangent */
    CHECK_NEAR(sample1(clip, -1.0f), 1.0, 0);
    CHECK_NEAR(sample1(clip, 5.0f), 3.0, 0);
    bw_clip_destroy(clip);

    /* a rotation spline with zero tangents: p = h00 q0 + h01 q1, normalized;
     * at s = 0.5 that is the normalized average of identity and 90° about Y,
     * (0, 0.35355, 0, 0.85355)/0.92388 = (0, 0.38268343, 0, 0.92387953) */
    float rq[24] = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, S45, 0, S45, 0, 0, 0, 0};
    float rt[2] = {0.0f, 1.0f};
    clip = one_track(BW_CHANNEL_ROTATION, BW_INTERP_CUBICSPLINE, 2, rt, rq, NULL, NULL);
    float r[4];
    bw_sample_track(clip, 0, 0.5f, r);
    CHECK_NEAR(r[1], 0.38268343, 1e-6);
    CHECK_NEAR(r[3], 0.92387953, 1e-6);
    bw_clip_destroy(clip);
}

static void lerp_angle_should_take_the_short_way(void)
{
    /* 350° → 10°: 20° apart through 0, midpoint 0 (mod 2π) */
    float a = bw_lerp_angle((float)(350 * DEG), (float)(10 * DEG), 0.5f);
    CHECK_NEAR(remainder(a, 2 * PI), 0.0, 1e-5);
    a = bw_lerp_angle((float)(10 * DEG), (float)(350 * DEG), 0.5f);
    CHECK_NEAR(remainder(a, 2 * PI), 0.0, 1e-5);
    /* 170° → −170° crosses ±180°: a quarter of the way is 175°, three
     * quarters 185° (= −175°), never through 0 */
    a = bw_lerp_angle((float)(170 * DEG), (float)(-170 * DEG), 0.25f);
    CHECK_NEAR(remainder(a - 175 * DEG, 2 * PI), 0.0, 1e-5);
    a = bw_lerp_angle((float)(170 * DEG), (float)(-170 * DEG), 0.75f);
    CHECK_NEAR(remainder(a + 175 * DEG, 2 * PI), 0.0, 1e-5);
    a = bw_lerp_angle((float)(-170 * DEG), (float)(170 * DEG), 0.5f);
    CHECK_NEAR(cos(a), -1.0, 1e-6);
    /* no wrap needed: plain lerp, 30° → 90° at 0.5 = 60° */
    CHECK_NEAR(bw_lerp_angle((float)(30 * DEG), (float)(90 * DEG), 0.5f), 60 * DEG, 1e-6);
    /* several turns apart reduces the difference first: 0 → 4π + 0.2 is 0.2 */
    CHECK_NEAR(bw_lerp_angle(0.0f, (float)(4 * PI + 0.2), 0.5f), 0.1, 1e-5);
    /* bad input: NaN u counts as 0, a non-finite a yields b, never NaN */
    CHECK_NEAR(bw_lerp_angle(1.0f, 2.0f, NAN), 1.0, 0);
    CHECK_NEAR(bw_lerp_angle(NAN, 2.0f, 0.5f), 2.0, 0);
    CHECK_NEAR(bw_lerp_angle(INFINITY, NAN, 0.5f), 0.0, 0);
    CHECK(isfinite(bw_lerp_angle(-3e38f, 3e38f, 0.5f)));

    /* an angle track keyed 170° → −170° over 1 s: at 0.5 s, 180° */
    float times[2] = {0.0f, 1.0f}, values[2] = {(float)(170 * DEG), (float)(-170 * DEG)};
    bw_clip *clip = one_track(BW_CHANNEL_ANGLE, BW_INTERP_EASED, 2, times, values, NULL, NULL);
    CHECK_NEAR(cos(sample1(clip, 0.5f)), -1.0, 1e-6);
    bw_clip_destroy(clip);
}

static void loop_with_repeated_first_key_should_not_pop(void)
{
    /* 0 → 1 → 0 over [0, 1]: the last key repeats the first, so the end of
     * one pass equals the start of the next and both sides of the wrap move
     * by the same 0.002 per ms */
    float times[3] = {0.0f, 0.5f, 1.0f}, values[3] = {0.0f, 1.0f, 0.0f};
    bw_clip *clip = one_track(BW_CHANNEL_FLOAT, BW_INTERP_EASED, 3, times, values, NULL, NULL);
    CHECK_NEAR(sample1(clip, 1.0f), sample1(clip, 0.0f), 0);
    CHECK_NEAR(sample1(clip, 0.999f), 0.002, 1e-5);
    CHECK_NEAR(sample1(clip, 0.001f), 0.002, 1e-5);
    bw_clip_destroy(clip);
}

/* NaN samples at 0; ±inf are times past the ends and hold them. */
static void nan_time_samples_at_zero_and_infinities_hold_the_ends(void)
{
    float times[2] = {0.0f, 1.0f}, values[2] = {4.0f, 8.0f};
    bw_clip *clip = one_track(BW_CHANNEL_FLOAT, BW_INTERP_EASED, 2, times, values, NULL, NULL);
    CHECK_NEAR(sample1(clip, NAN), 4.0, 0);
    CHECK_NEAR(sample1(clip, INFINITY), 8.0, 0);
    CHECK_NEAR(sample1(clip, -INFINITY), 4.0, 0);
    CHECK_NEAR(sample1(clip, 3e38f), 8.0, 0); /* huge but finite: the end */
    /* invalid track index or NULL clip writes nothing */
    float v = -1.0f;
    bw_sample_track(clip, 1, 0.5f, &v);
    bw_sample_track(NULL, 0, 0.5f, &v);
    bw_sample_track(clip, -1, 0.5f, &v);
    CHECK_NEAR(v, -1.0, 0);
    bw_sample_track(clip, 0, 0.5f, NULL); /* no crash */
    bw_clip_destroy(clip);
}

static void extreme_values_should_never_produce_nan(void)
{
    /* back and elastic overshoot past the keys; with keys near ±FLT_MAX that
     * overflows, and the sampler must still return finite numbers */
    float times[2] = {0.0f, 1.0f}, values[2] = {-3.3e38f, 3.3e38f};
    unsigned char styles[2] = {0, BW_EASE_BACK}, dirs[2] = {0, BW_EASE_IN_OUT};
    bw_clip *clip = one_track(BW_CHANNEL_FLOAT, BW_INTERP_EASED, 2, times, values, styles, dirs);
    for (int i = 0; i <= 100; i++) CHECK(isfinite(sample1(clip, (float)i / 100.0f)));
    bw_clip_destroy(clip);
    styles[1] = BW_EASE_ELASTIC;
    clip = one_track(BW_CHANNEL_FLOAT, BW_INTERP_EASED, 2, times, values, styles, dirs);
    for (int i = 0; i <= 100; i++) CHECK(isfinite(sample1(clip, (float)i / 100.0f)));
    bw_clip_destroy(clip);
    /* key times spanning ±3e38: the time differences overflow */
    float wide[2] = {-3e38f, 3e38f}, v2[2] = {1.0f, 2.0f};
    clip = one_track(BW_CHANNEL_FLOAT, BW_INTERP_EASED, 2, wide, v2, NULL, NULL);
    for (int i = -2; i <= 2; i++) CHECK(isfinite(sample1(clip, (float)i * 1e38f)));
    bw_clip_destroy(clip);
    /* a spline whose huge tangents, scaled by a 100 s interval, overflow */
    float st[2] = {0.0f, 100.0f}, sv[6] = {0, 0, 3e38f, 3e38f, 1, 0};
    clip = one_track(BW_CHANNEL_FLOAT, BW_INTERP_CUBICSPLINE, 2, st, sv, NULL, NULL);
    for (int i = 0; i <= 10; i++) CHECK(isfinite(sample1(clip, (float)i * 10.0f)));
    bw_clip_destroy(clip);
}

/* ---- whole clips into poses ---- */

/* rig: 0 root, 1 spine <- 0, 2 head <- 1; curves "blink", "jaw" (angle).
 * Spine's rest: t = (0, 5, 0), r = 90° about X, s = (2, 2, 2). */
static bw_rig *make_rig(void)
{
    bw_rig_joint_desc joints[3] = {{"root", -1, bw_transform_identity},
                                   {"spine", 0, bw_transform_identity},
                                   {"head", 1, bw_transform_identity}};
    bw_transform spine = {{0, 5, 0}, {S45, 0, 0, S45}, {2, 2, 2}};
    joints[1].rest = spine;
    joints[2].rest.t[1] = 7.0f;
    bw_rig_curve_desc curves[2] = {{"blink", BW_CURVE_FLOAT, 0.3f}, {"jaw", BW_CURVE_ANGLE, 0.0f}};
    bw_rig_desc desc = {.joints = joints, .joint_count = 3, .curves = curves, .curve_count = 2};
    return fixture_rig_desc(&desc);
}

static void pose_should_fill_unkeyed_channels_from_the_rig(void)
{
    bw_rig *rig = make_rig();
    /* spine: rotation keyed (identity → 90° about Y), pose weight 0.5, mask 0.25 */
    float times[2] = {0.0f, 1.0f};
    float q[8] = {0, 0, 0, 1, 0, S45, 0, S45};
    float pw = 0.5f, mw = 0.25f, blink[2] = {0.0f, 1.0f};
    bw_track_desc tracks[4] = {
        {"root", "spine", BW_CHANNEL_ROTATION, BW_INTERP_EASED, 2, times, q, NULL, NULL},
        {"root", "spine", BW_CHANNEL_POSE_WEIGHT, BW_INTERP_EASED, 1, times, &pw, NULL, NULL},
        {"root", "spine", BW_CHANNEL_MASK_WEIGHT, BW_INTERP_EASED, 1, times, &mw, NULL, NULL},
        {NULL, "blink", BW_CHANNEL_FLOAT, BW_INTERP_EASED, 2, times, blink, NULL, NULL},
    };
    bw_clip_desc desc = {.tracks = tracks, .track_count = 4};
    bw_clip *clip = NULL;
    bw_binding *b = NULL;
    bw_pose pose;
    memset(&pose, 0, sizeof pose);
    CHECK_INT(bw_clip_create(&desc, &clip, NULL), BW_OK);
    CHECK_INT(bw_binding_create(&(bw_binding_desc){.clip = clip, .rig = rig}, &b, NULL), BW_OK);
    CHECK_INT(bw_pose_init(&pose, rig, NULL), BW_OK);
    if (!clip || !b || !pose.joints) return;

    bw_sample_clip(b, rig, 0.5f, &pose);
    /* keyed: rotation at the 45° midpoint */
    CHECK_NEAR(pose.joints[1].r[1], 0.38268343, 1e-6);
    CHECK_NEAR(pose.joints[1].r[3], 0.92387953, 1e-6);
    /* unkeyed channels of the keyed joint: the rig's values */
    CHECK_NEAR(pose.joints[1].t[1], 5.0, 0);
    CHECK_NEAR(pose.joints[1].s[0], 2.0, 0);
    /* coverage = 0.5 × (1 − 0.25) = 0.375 */
    CHECK_NEAR(pose.coverage[1], 0.375, 1e-7);
    /* joints no track drives: identity, coverage 0, whatever the rig says */
    CHECK_NEAR(pose.coverage[0], 0.0, 0);
    CHECK_NEAR(pose.coverage[2], 0.0, 0);
    CHECK_NEAR(pose.joints[2].t[1], 0.0, 0);
    CHECK_NEAR(pose.joints[2].r[3], 1.0, 0);
    /* curves: blink keyed 0 → 1, at 0.5 s 0.5 with coverage 1; jaw unkeyed */
    int blink_i = bw_rig_find_curve(rig, "blink"), jaw_i = bw_rig_find_curve(rig, "jaw");
    CHECK_NEAR(pose.curves[blink_i], 0.5, 1e-6);
    CHECK_NEAR(pose.curve_coverage[blink_i], 1.0, 0);
    CHECK_NEAR(pose.curve_coverage[jaw_i], 0.0, 0);
    CHECK_NEAR(pose.curves[jaw_i], 0.0, 0);

    /* the rig's *current* values: a host change shows up in the next sample */
    bw_transform moved = {{1, 2, 3}, {0, 0, 0, 1}, {4, 4, 4}};
    CHECK_INT(bw_rig_set_rest(rig, 1, &moved), BW_OK);
    bw_sample_clip(b, rig, 0.5f, &pose);
    CHECK_NEAR(pose.joints[1].t[2], 3.0, 0);
    CHECK_NEAR(pose.joints[1].s[1], 4.0, 0);
    CHECK_NEAR(pose.joints[1].r[1], 0.38268343, 1e-6);

    /* non-finite time samples at 0: identity rotation */
    bw_sample_clip(b, rig, NAN, &pose);
    CHECK_NEAR(pose.joints[1].r[3], 1.0, 1e-7);
    CHECK_NEAR(pose.curves[blink_i], 0.0, 0);

    bw_pose_deinit(&pose);
    bw_binding_destroy(b);
    bw_clip_destroy(clip);
    bw_rig_destroy(rig);
}

static void coverage_should_clamp_pose_and_mask_weights(void)
{
    bw_rig *rig = make_rig();
    /* pose weight keyed 0 → 2 over [0, 1], mask weight 0 → 1.5:
     * τ = 0.25: pw 0.5, mw 0.375: 0.5 × 0.625 = 0.3125
     * τ = 0.5:  pw 1,   mw 0.75:  1 × 0.25 = 0.25
     * τ = 1:    pw 2,   mw 1.5:   2 × (−0.5) = −1 → clamped to 0 */
    float times[2] = {0.0f, 1.0f}, pw[2] = {0.0f, 2.0f}, mw[2] = {0.0f, 1.5f};
    /* head: pose weight 3, no mask: 3 → clamped to 1 */
    float big = 3.0f;
    bw_track_desc tracks[3] = {
        {"root", "spine", BW_CHANNEL_POSE_WEIGHT, BW_INTERP_EASED, 2, times, pw, NULL, NULL},
        {"root", "spine", BW_CHANNEL_MASK_WEIGHT, BW_INTERP_EASED, 2, times, mw, NULL, NULL},
        {"spine", "head", BW_CHANNEL_POSE_WEIGHT, BW_INTERP_EASED, 1, times, &big, NULL, NULL},
    };
    bw_clip_desc desc = {.tracks = tracks, .track_count = 3};
    bw_clip *clip = NULL;
    bw_binding *b = NULL;
    bw_pose pose;
    memset(&pose, 0, sizeof pose);
    bw_clip_create(&desc, &clip, NULL);
    bw_binding_create(&(bw_binding_desc){.clip = clip, .rig = rig}, &b, NULL);
    bw_pose_init(&pose, rig, NULL);
    if (!clip || !b || !pose.joints) return;
    bw_sample_clip(b, rig, 0.25f, &pose);
    CHECK_NEAR(pose.coverage[1], 0.3125, 1e-6);
    CHECK_NEAR(pose.coverage[2], 1.0, 0);
    /* only weights keyed: every transform channel is the rig's value */
    CHECK_NEAR(pose.joints[1].r[0], S45, 1e-6);
    CHECK_NEAR(pose.joints[2].t[1], 7.0, 0);
    bw_sample_clip(b, rig, 0.5f, &pose);
    CHECK_NEAR(pose.coverage[1], 0.25, 1e-6);
    bw_sample_clip(b, rig, 1.0f, &pose);
    CHECK_NEAR(pose.coverage[1], 0.0, 0);
    bw_pose_deinit(&pose);
    bw_binding_destroy(b);
    bw_clip_destroy(clip);
    bw_rig_destroy(rig);
}

static void mismatched_or_missing_binding_should_cover_nothing(void)
{
    bw_rig *rig = make_rig();
    float times[1] = {0.0f}, t[3] = {1, 1, 1};
    bw_track_desc track = {"", "root", BW_CHANNEL_TRANSLATION, BW_INTERP_EASED, 1, times, t, NULL, NULL};
    bw_clip_desc desc = {.tracks = &track, .track_count = 1};
    bw_clip *clip = NULL;
    bw_binding *b = NULL;
    bw_pose pose;
    memset(&pose, 0, sizeof pose);
    bw_clip_create(&desc, &clip, NULL);
    bw_binding_create(&(bw_binding_desc){.clip = clip, .rig = rig}, &b, NULL);
    bw_pose_init(&pose, rig, NULL);
    if (!clip || !b || !pose.joints) return;
    bw_sample_clip(b, rig, 0.0f, &pose);
    CHECK_NEAR(pose.coverage[0], 1.0, 0);
    CHECK_NEAR(pose.joints[0].t[0], 1.0, 0);

    /* the binding is for the old layout once a joint is added */
    bw_rig_joint_desc extra = {"tail", 0, bw_transform_identity};
    CHECK_INT(bw_rig_add_joint(rig, &extra, NULL), BW_OK);
    bw_pose bigger;
    memset(&bigger, 0, sizeof bigger);
    bw_pose_init(&bigger, rig, NULL);
    bw_sample_clip(b, rig, 0.0f, &bigger);
    for (int j = 0; j < bigger.joint_count; j++) CHECK_NEAR(bigger.coverage[j], 0.0, 0);

    /* NULL binding: a cleared pose; NULL pose: no crash */
    bw_sample_clip(NULL, rig, 0.0f, &pose);
    CHECK_NEAR(pose.coverage[0], 0.0, 0);
    CHECK_NEAR(pose.joints[0].t[0], 0.0, 0);
    bw_sample_clip(b, rig, 0.0f, NULL);
    bw_pose_deinit(&bigger);
    bw_pose_deinit(&pose);
    bw_binding_destroy(b);
    bw_clip_destroy(clip);
    bw_rig_destroy(rig);
}

int main(void)
{
    RUN(linear_midpoints_and_endpoint_holds);
    RUN(before_first_key_should_hold_it);
    RUN(destination_key_easing_should_apply);
    RUN(constant_should_step_exactly_at_the_key);
    RUN(slerp_should_take_the_short_arc);
    RUN(cubic_spline_should_follow_the_hermite_basis);
    RUN(lerp_angle_should_take_the_short_way);
    RUN(loop_with_repeated_first_key_should_not_pop);
    RUN(nan_time_samples_at_zero_and_infinities_hold_the_ends);
    RUN(extreme_values_should_never_produce_nan);
    RUN(pose_should_fill_unkeyed_channels_from_the_rig);
    RUN(coverage_should_clamp_pose_and_mask_weights);
    RUN(mismatched_or_missing_binding_should_cover_nothing);
    return check_summary();
}
