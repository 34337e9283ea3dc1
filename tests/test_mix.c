/* test_mix.c - the per-joint priority mixer (SPEC §5, mix.h).
 *
 * Poses are built by hand (no clip sampling). Every expected number is
 * derived in a comment from the rule in SPEC §5:
 *   share = clamp(weight × coverage, 0, 1); rank mean = Σ share·x / Σ share
 *   (rotations hemisphere-aligned, normalized); c_k = min(Σ share, 1);
 *   overlay weights (c_r(1 − c_k), c_k), new coverage c_r + (1 − c_r)c_k.
 */
#include <math.h>
#include <string.h>

#include "blendwerk/mix.h"
#include "blendwerk/rig.h"
#include "check.h"
#include "fixtures.h"
#include "test_alloc_counter.h"

#define PI_F 3.14159265358979f
#define PI_D 3.14159265358979323846
#define DEG(d) ((float)(d) * PI_F / 180.0f)

/* Rotation of `deg` degrees about +Y: (0, sin(θ/2), 0, cos(θ/2)). */
static void quat_y(float deg, float *q)
{
    q[0] = 0.0f;
    q[1] = sinf(DEG(deg) * 0.5f);
    q[2] = 0.0f;
    q[3] = cosf(DEG(deg) * 0.5f);
}

static void set_joint(bw_pose *p, int j, float tx, float ty, float tz, float yaw_deg, float scale, float coverage)
{
    bw_transform *x = &p->joints[j];
    x->t[0] = tx;
    x->t[1] = ty;
    x->t[2] = tz;
    quat_y(yaw_deg, x->r);
    x->s[0] = x->s[1] = x->s[2] = scale;
    p->coverage[j] = coverage;
}

/* A pose of n joints and c curves, every joint identity with coverage `cov`. */
static bw_pose make_pose(int n, int c, float cov)
{
    bw_pose p;
    memset(&p, 0, sizeof p);
    CHECK_INT(bw_pose_init_counts(&p, n, c, NULL), BW_OK);
    for (int j = 0; j < n; j++) p.coverage[j] = cov;
    for (int i = 0; i < c; i++) p.curve_coverage[i] = cov;
    return p;
}

static int pose_has_nan(const bw_pose *p)
{
    for (int j = 0; j < p->joint_count; j++) {
        const bw_transform *x = &p->joints[j];
        for (int k = 0; k < 3; k++)
            if (!isfinite(x->t[k]) || !isfinite(x->s[k])) return 1;
        for (int k = 0; k < 4; k++)
            if (!isfinite(x->r[k])) return 1;
        if (!isfinite(p->coverage[j])) return 1;
    }
    for (int i = 0; i < p->curve_count; i++)
        if (!isfinite(p->curves[i]) || !isfinite(p->curve_coverage[i])) return 1;
    return 0;
}

static int pose_equal_bits(const bw_pose *a, const bw_pose *b)
{
    if (a->joint_count != b->joint_count || a->curve_count != b->curve_count) return 0;
    size_t nj = (size_t)a->joint_count, nc = (size_t)a->curve_count;
    return memcmp(a->joints, b->joints, nj * sizeof *a->joints) == 0 &&
           memcmp(a->coverage, b->coverage, nj * sizeof(float)) == 0 &&
           memcmp(a->curves, b->curves, nc * sizeof(float)) == 0 &&
           memcmp(a->curve_coverage, b->curve_coverage, nc * sizeof(float)) == 0;
}

/* A rig of `joints` joints at identity rest and `curves` float curves
 * (default 0), for the tests whose poses are built by hand. */
static bw_rig *counts_rig(int joints, int curves)
{
    static char names[32][8], curve_names[8][8];
    bw_rig_joint_desc jd[32];
    bw_rig_curve_desc cd[8];
    for (int j = 0; j < joints && j < 32; j++) {
        snprintf(names[j], sizeof names[j], "j%d", j);
        jd[j] = (bw_rig_joint_desc){names[j], j - 1, bw_transform_identity};
    }
    for (int i = 0; i < curves && i < 8; i++) {
        snprintf(curve_names[i], sizeof curve_names[i], "c%d", i);
        cd[i] = (bw_rig_curve_desc){curve_names[i], BW_CURVE_FLOAT, 0.0f};
    }
    bw_rig_desc rd = {.joints = jd, .joint_count = joints, .curves = cd, .curve_count = curves};
    return fixture_rig_desc(&rd);
}

/* bw_mixer_create for such a rig; the mixer copies what it needs, so the
 * rig goes at once. */
static bw_result counts_mixer(int joints, int curves, int max, const bw_allocator *allocator, bw_mixer **out)
{
    bw_rig *rig = counts_rig(joints, curves);
    bw_mixer_desc md = {rig, max, {NULL, NULL}, false};
    if (allocator) md.allocator = *allocator;
    bw_result r = bw_mixer_create(&md, out);
    bw_rig_destroy(rig);
    return r;
}

static void check_rot(const float *q, float x, float y, float z, float w, float tol)
{
    CHECK_NEAR(q[0], x, tol);
    CHECK_NEAR(q[1], y, tol);
    CHECK_NEAR(q[2], z, tol);
    CHECK_NEAR(q[3], w, tol);
}

static void equal_priority_full_coverage_forms_one_mean(void)
{
    /* Translations (0,0,0) and (2,0,0), weights 1 and 1, coverage 1:
     * shares 1, 1; mean = (0 + 2)/2 = 1; c_k = min(2, 1) = 1, so the rank
     * replaces the base entirely. Scales 1 and 3 -> 2. Rotations 0° and 90°
     * about Y: the normalized sum of two unit quaternions is their bisector,
     * 45°: (0, sin 22.5°, 0, cos 22.5°) = (0, 0.38268343, 0, 0.92387953). */
    bw_mixer *m = NULL;
    CHECK_INT(counts_mixer(1, 0, 4, NULL, &m), BW_OK);
    bw_pose base = make_pose(1, 0, 1.0f), a = make_pose(1, 0, 1.0f);
    bw_pose b = make_pose(1, 0, 1.0f), out = make_pose(1, 0, 0.0f);
    set_joint(&base, 0, 9, 9, 9, 30, 5, 1);
    set_joint(&a, 0, 0, 0, 0, 0, 1, 1);
    set_joint(&b, 0, 2, 0, 0, 90, 3, 1);
    bw_contribution c[2] = {{&a, 1.0f, 0}, {&b, 1.0f, 0}};
    CHECK_INT(bw_mix_run(m, &base, c, 2, &out), BW_OK);
    CHECK_NEAR(out.joints[0].t[0], 1.0, 1e-6);
    CHECK_NEAR(out.joints[0].t[1], 0.0, 1e-6);
    CHECK_NEAR(out.joints[0].s[0], 2.0, 1e-6);
    CHECK_NEAR(out.coverage[0], 1.0, 1e-6);
    check_rot(out.joints[0].r, 0, 0.38268343f, 0, 0.92387953f, 1e-6f);
    bw_pose_deinit(&base);
    bw_pose_deinit(&a);
    bw_pose_deinit(&b);
    bw_pose_deinit(&out);
    bw_mixer_destroy(m);
}

static void quarter_coverage_overlay_leaves_three_quarters(void)
{
    /* Base translation 0 (coverage 1); a priority-1 rank with share 0.25
     * and translation 4: result = 0.75·0 + 0.25·4 = 1.0, coverage 1.
     * Share 0.25 reached two ways: weight 1 × coverage 0.25, and weight
     * 0.5 × coverage 0.5.
     * Rotation 90° about Y over 0° at 0.25: normalize(0.75·(0,0,0,1) +
     * 0.25·(0, sin45°, 0, cos45°)) = normalize(0, 0.1767767, 0, 0.9267767)
     * = (0, 0.18736555, 0, 0.98229026), i.e. 21.598°, not 22.5° (nlerp). */
    bw_mixer *m = NULL;
    CHECK_INT(counts_mixer(2, 0, 4, NULL, &m), BW_OK);
    bw_pose base = make_pose(2, 0, 1.0f), top = make_pose(2, 0, 0.0f), out = make_pose(2, 0, 0.0f);
    set_joint(&top, 0, 4, 0, 0, 90, 1, 0.25f);
    set_joint(&top, 1, 4, 0, 0, 90, 1, 0.5f);
    /* Same pose, weight 1 then weight 0.5: joint 0 share 0.25 at weight 1,
     * joint 1 share 0.25 at weight 0.5. */
    bw_contribution c1 = {&top, 1.0f, 1};
    CHECK_INT(bw_mix_run(m, &base, &c1, 1, &out), BW_OK);
    CHECK_NEAR(out.joints[0].t[0], 1.0, 1e-6);
    CHECK_NEAR(out.coverage[0], 1.0, 1e-6);
    check_rot(out.joints[0].r, 0, 0.18736555f, 0, 0.98229026f, 1e-6f);
    bw_contribution c2 = {&top, 0.5f, 1};
    CHECK_INT(bw_mix_run(m, &base, &c2, 1, &out), BW_OK);
    CHECK_NEAR(out.joints[1].t[0], 1.0, 1e-6);
    check_rot(out.joints[1].r, 0, 0.18736555f, 0, 0.98229026f, 1e-6f);
    /* Below the overlay: a full-coverage priority-0 rank at translation 2.
     * result = 0.75·2 + 0.25·4 = 2.5 (the 0.25 overlay keeps 75% of what
     * the lower rank produced, not of the base). */
    bw_pose low = make_pose(2, 0, 1.0f);
    set_joint(&low, 0, 2, 0, 0, 0, 1, 1);
    bw_contribution both[2] = {{&top, 1.0f, 1}, {&low, 1.0f, 0}};
    CHECK_INT(bw_mix_run(m, &base, both, 2, &out), BW_OK);
    CHECK_NEAR(out.joints[0].t[0], 2.5, 1e-6);
    bw_pose_deinit(&low);
    bw_pose_deinit(&base);
    bw_pose_deinit(&top);
    bw_pose_deinit(&out);
    bw_mixer_destroy(m);
}

static void q_and_minus_q_never_cancel(void)
{
    /* q = 60° about Y = (0, 0.5, 0, 0.8660254). Blending q with −q (the
     * same rotation) must give q for every weight split: −q is flipped into
     * q's hemisphere before it is added, so the sum is (w1 + w2)·q. Naive
     * addition would give (w1 − w2)·q: zero at equal weights. */
    bw_mixer *m = NULL;
    CHECK_INT(counts_mixer(1, 0, 4, NULL, &m), BW_OK);
    bw_pose base = make_pose(1, 0, 1.0f), a = make_pose(1, 0, 1.0f);
    bw_pose b = make_pose(1, 0, 1.0f), out = make_pose(1, 0, 0.0f);
    set_joint(&a, 0, 0, 0, 0, 60, 1, 1);
    set_joint(&b, 0, 0, 0, 0, 60, 1, 1);
    for (int k = 0; k < 4; k++) b.joints[0].r[k] = -b.joints[0].r[k];
    const float splits[][2] = {{1, 1}, {0.3f, 0.7f}, {0.7f, 0.3f}, {1, 0.01f}, {0.01f, 1}, {5, 5}};
    for (size_t i = 0; i < sizeof splits / sizeof splits[0]; i++) {
        /* both orders: the first-listed sign seeds the running sum */
        for (int order = 0; order < 2; order++) {
            bw_contribution c[2] = {{order ? &b : &a, splits[i][0], 0}, {order ? &a : &b, splits[i][1], 0}};
            CHECK_INT(bw_mix_run(m, &base, c, 2, &out), BW_OK);
            /* shares sum to ≥ 1 (full coverage): result is q itself, in the
             * base's (identity's) hemisphere, i.e. w > 0. */
            check_rot(out.joints[0].r, 0, 0.5f, 0, 0.8660254f, 1e-6f);
        }
    }
    /* Partial: shares 0.25 + 0.25 of q and −q: rank mean q, c_k 0.5, over
     * identity: bisector of 0° and 60° = 30° = (0, sin15°, 0, cos15°) =
     * (0, 0.25881904, 0, 0.96592583). */
    bw_contribution half[2] = {{&a, 0.25f, 0}, {&b, 0.25f, 0}};
    CHECK_INT(bw_mix_run(m, &base, half, 2, &out), BW_OK);
    check_rot(out.joints[0].r, 0, 0.25881904f, 0, 0.96592583f, 1e-6f);
    /* Across ranks: q full at priority 0, −q at 50% at priority 1: the
     * overlay aligns too, result stays q. */
    bw_contribution ranks[2] = {{&a, 1.0f, 0}, {&b, 0.5f, 1}};
    CHECK_INT(bw_mix_run(m, &base, ranks, 2, &out), BW_OK);
    check_rot(out.joints[0].r, 0, 0.5f, 0, 0.8660254f, 1e-6f);
    bw_pose_deinit(&base);
    bw_pose_deinit(&a);
    bw_pose_deinit(&b);
    bw_pose_deinit(&out);
    bw_mixer_destroy(m);
}

static void thin_weights_fill_from_rest(void)
{
    /* A rig whose rest is t = (0,1,0), 0°. One contribution of weight 0.5
     * (coverage 1) at t = (0,3,0), 90°: the missing half comes from rest:
     * t = 0.5·1 + 0.5·3 = 2; rotation = bisector(0°, 90°) = 45°. */
    bw_rig_joint_desc jd = {"hips", -1, {{0, 1, 0}, {0, 0, 0, 1}, {1, 1, 1}}};
    bw_rig_desc rd = {.joints = &jd, .joint_count = 1};
    bw_rig *rig = NULL;
    CHECK_INT(bw_rig_create(&rd, &rig, NULL), BW_OK);
    bw_mixer *m = NULL;
    bw_mixer_desc md = {.rig = rig, .max_contributions = 4};
    CHECK_INT(bw_mixer_create(&md, &m), BW_OK);
    bw_pose base, a, b, out;
    CHECK_INT(bw_pose_init(&base, rig, NULL), BW_OK);
    CHECK_INT(bw_pose_init(&a, rig, NULL), BW_OK);
    CHECK_INT(bw_pose_init(&b, rig, NULL), BW_OK);
    CHECK_INT(bw_pose_init(&out, rig, NULL), BW_OK);
    bw_pose_set_rest(&base, rig);
    set_joint(&a, 0, 0, 3, 0, 90, 1, 1);
    bw_contribution c = {&a, 0.5f, 0};
    CHECK_INT(bw_mix_run(m, &base, &c, 1, &out), BW_OK);
    CHECK_NEAR(out.joints[0].t[1], 2.0, 1e-6);
    CHECK_NEAR(out.coverage[0], 1.0, 1e-6);
    check_rot(out.joints[0].r, 0, 0.38268343f, 0, 0.92387953f, 1e-6f);
    /* Two contributions of weight 0.25 each in one rank, t = 2 and t = 6:
     * Σ share 0.5, mean 4, c_k 0.5: t = 0.5·1 + 0.5·4 = 2.5. */
    set_joint(&a, 0, 0, 2, 0, 0, 1, 1);
    set_joint(&b, 0, 0, 6, 0, 0, 1, 1);
    bw_contribution two[2] = {{&a, 0.25f, 3}, {&b, 0.25f, 3}};
    CHECK_INT(bw_mix_run(m, &base, two, 2, &out), BW_OK);
    CHECK_NEAR(out.joints[0].t[1], 2.5, 1e-6);
    bw_pose_deinit(&base);
    bw_pose_deinit(&a);
    bw_pose_deinit(&b);
    bw_pose_deinit(&out);
    bw_mixer_destroy(m);
    bw_rig_destroy(rig);
}

static void uncovered_joints_pass_through_unchanged(void)
{
    /* Three joints; the host set joint 2 of the base to odd values. The
     * contribution covers joints 0 and 1 only (coverage 0 at joint 2, where
     * its storage default is identity and, worse, NaN), so joint 2 must
     * come out bit for bit as the base had it. */
    bw_mixer *m = NULL;
    CHECK_INT(counts_mixer(3, 1, 4, NULL, &m), BW_OK);
    bw_pose base = make_pose(3, 1, 1.0f), a = make_pose(3, 1, 1.0f);
    bw_pose b = make_pose(3, 1, 1.0f), out = make_pose(3, 1, 0.0f);
    set_joint(&base, 2, 7, 8, 9, 33, 2, 1);
    base.joints[2].s[1] = 0.5f;
    base.curves[0] = 0.75f;
    set_joint(&a, 0, 1, 0, 0, 10, 1, 1);
    set_joint(&a, 1, 1, 0, 0, 10, 1, 1);
    a.coverage[2] = 0.0f;
    a.joints[2].t[0] = NAN;
    a.curve_coverage[0] = 0.0f;
    b.coverage[2] = 0.0f;
    b.curve_coverage[0] = 0.0f;
    bw_contribution c[3] = {{&a, 1.0f, 0}, {&b, 1.0f, 0}, {&a, 0.5f, 2}};
    for (int n = 1; n <= 3; n++) {
        CHECK_INT(bw_mix_run(m, &base, c, n, &out), BW_OK);
        CHECK(memcmp(&out.joints[2], &base.joints[2], sizeof base.joints[2]) == 0);
        CHECK(out.coverage[2] == 1.0f);
        CHECK(out.curves[0] == 0.75f);
        CHECK(out.curve_coverage[0] == 1.0f);
    }
    /* base NULL: out's own contents are the base; base == out likewise. */
    bw_pose_copy(&out, &base);
    CHECK_INT(bw_mix_run(m, NULL, c, 1, &out), BW_OK);
    CHECK(memcmp(&out.joints[2], &base.joints[2], sizeof base.joints[2]) == 0);
    CHECK_NEAR(out.joints[0].t[0], 1.0, 1e-6);
    bw_pose_copy(&out, &base);
    CHECK_INT(bw_mix_run(m, &out, c, 1, &out), BW_OK);
    CHECK(memcmp(&out.joints[2], &base.joints[2], sizeof base.joints[2]) == 0);
    /* No contributions at all: out = base exactly. */
    CHECK_INT(bw_mix_run(m, &base, NULL, 0, &out), BW_OK);
    CHECK(pose_equal_bits(&out, &base));
    bw_pose_deinit(&base);
    bw_pose_deinit(&a);
    bw_pose_deinit(&b);
    bw_pose_deinit(&out);
    bw_mixer_destroy(m);
}

static void permutations_within_a_rank_agree(void)
{
    /* Three contributions in one rank, coverage 0.5, 0.25, 0.25 (weight 1):
     * Σ share = 1, so the result is the rank mean.
     * t: 0.5·(1,0,0) + 0.25·(3,0,0) + 0.25·(5,2,0) = (2.5, 0.5, 0).
     * r: 0°, 60° (stored as −q), 90° about Y: normalize(0.5·(0,0,0,1) +
     * 0.25·(0,.5,0,.8660254) + 0.25·(0,.70710678,0,.70710678)) =
     * normalize(0, 0.30177670, 0, 0.89328305) = (0, 0.32005824, 0,
     * 0.94739787) (37.33°; computed independently in double precision). */
    bw_mixer *m = NULL;
    CHECK_INT(counts_mixer(1, 1, 8, NULL, &m), BW_OK);
    bw_pose base = make_pose(1, 1, 1.0f), out = make_pose(1, 1, 0.0f);
    bw_pose p[3] = {make_pose(1, 1, 1.0f), make_pose(1, 1, 1.0f), make_pose(1, 1, 1.0f)};
    set_joint(&p[0], 0, 1, 0, 0, 0, 1, 0.5f);
    set_joint(&p[1], 0, 3, 0, 0, 60, 1, 0.25f);
    for (int k = 0; k < 4; k++) p[1].joints[0].r[k] = -p[1].joints[0].r[k];
    set_joint(&p[2], 0, 5, 2, 0, 90, 1, 0.25f);
    /* curves: 0.5·2 + 0.25·4 + 0.25·8 = 4 */
    const float cv[3] = {2, 4, 8}, cc[3] = {0.5f, 0.25f, 0.25f};
    for (int i = 0; i < 3; i++) {
        p[i].curves[0] = cv[i];
        p[i].curve_coverage[0] = cc[i];
    }
    const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int k = 0; k < 6; k++) {
        bw_contribution c[3];
        for (int i = 0; i < 3; i++) {
            c[i].pose = &p[perms[k][i]];
            c[i].weight = 1.0f;
            c[i].priority = 5;
        }
        CHECK_INT(bw_mix_run(m, &base, c, 3, &out), BW_OK);
        CHECK_NEAR(out.joints[0].t[0], 2.5, 1e-6);
        CHECK_NEAR(out.joints[0].t[1], 0.5, 1e-6);
        check_rot(out.joints[0].r, 0, 0.32005824f, 0, 0.94739787f, 1e-6f);
        CHECK_NEAR(out.curves[0], 4.0, 1e-6);
        CHECK_NEAR(out.coverage[0], 1.0, 1e-6);
    }
    for (int i = 0; i < 3; i++) bw_pose_deinit(&p[i]);
    bw_pose_deinit(&base);
    bw_pose_deinit(&out);
    bw_mixer_destroy(m);
}

static void priority_order_independent_of_list_order(void)
{
    /* Priority 1: t = 4, full coverage; priority 2: t = 10, coverage 0.5;
     * base 0. Lowest first: 4, then lerp(4, 10, 0.5) = 7. Taking the list
     * order instead would give lerp(0,10,.5) = 5 then 4: wrong either way.
     * A priority −3 rank at t = 100 (full) lies under both and is
     * overwritten by priority 1. */
    bw_mixer *m = NULL;
    CHECK_INT(counts_mixer(1, 0, 4, NULL, &m), BW_OK);
    bw_pose base = make_pose(1, 0, 1.0f), lo = make_pose(1, 0, 1.0f), hi = make_pose(1, 0, 1.0f),
            neg = make_pose(1, 0, 1.0f), out = make_pose(1, 0, 0.0f);
    set_joint(&lo, 0, 4, 0, 0, 0, 1, 1);
    set_joint(&hi, 0, 10, 0, 0, 0, 1, 0.5f);
    set_joint(&neg, 0, 100, 0, 0, 0, 1, 1);
    bw_contribution a[3] = {{&hi, 1, 2}, {&lo, 1, 1}, {&neg, 1, -3}};
    bw_contribution b[3] = {{&neg, 1, -3}, {&lo, 1, 1}, {&hi, 1, 2}};
    bw_contribution c[3] = {{&lo, 1, 1}, {&hi, 1, 2}, {&neg, 1, -3}};
    CHECK_INT(bw_mix_run(m, &base, a, 3, &out), BW_OK);
    CHECK_NEAR(out.joints[0].t[0], 7.0, 1e-6);
    CHECK_INT(bw_mix_run(m, &base, b, 3, &out), BW_OK);
    CHECK_NEAR(out.joints[0].t[0], 7.0, 1e-6);
    CHECK_INT(bw_mix_run(m, &base, c, 3, &out), BW_OK);
    CHECK_NEAR(out.joints[0].t[0], 7.0, 1e-6);
    bw_pose_deinit(&base);
    bw_pose_deinit(&lo);
    bw_pose_deinit(&hi);
    bw_pose_deinit(&neg);
    bw_pose_deinit(&out);
    bw_mixer_destroy(m);
}

static void zero_coverage_base_takes_the_rank(void)
{
    /* Composing partial poses: out cleared (coverage 0, identity). A rank
     * of share 0.25 at t = 4 gives t = 4 exactly (weights (0·0.75, 0.25)
     * normalized) with coverage 0.25. A second rank, share 0.5 at t = 8:
     * weights (0.25·0.5, 0.5) = (0.125, 0.5), t = (0.125·4 + 0.5·8)/0.625
     * = 7.2, coverage 0.25 + 0.75·0.5 = 0.625. */
    bw_mixer *m = NULL;
    CHECK_INT(counts_mixer(1, 0, 4, NULL, &m), BW_OK);
    bw_pose a = make_pose(1, 0, 1.0f), b = make_pose(1, 0, 1.0f), out = make_pose(1, 0, 0.0f);
    set_joint(&a, 0, 4, 0, 0, 0, 1, 0.25f);
    set_joint(&b, 0, 8, 0, 0, 0, 1, 0.5f);
    bw_contribution c[2] = {{&a, 1, 0}, {&b, 1, 1}};
    CHECK_INT(bw_mix_run(m, NULL, c, 1, &out), BW_OK);
    CHECK_NEAR(out.joints[0].t[0], 4.0, 1e-6);
    CHECK_NEAR(out.coverage[0], 0.25, 1e-6);
    bw_pose_clear(&out);
    CHECK_INT(bw_mix_run(m, NULL, c, 2, &out), BW_OK);
    CHECK_NEAR(out.joints[0].t[0], 7.2, 1e-5);
    CHECK_NEAR(out.coverage[0], 0.625, 1e-6);
    bw_pose_deinit(&a);
    bw_pose_deinit(&b);
    bw_pose_deinit(&out);
    bw_mixer_destroy(m);
}

static void weights_above_one_and_bad_weights(void)
{
    /* Weight 2 × coverage 0.5 = share 1 (clamped per joint by share).
     * NaN, +inf, −inf and negative weights count as 0, so those entries
     * change nothing; a huge finite weight × coverage 0.5 clamps to 1. A
     * NaN coverage counts as 0. Base t = 0, contribution t = 6. */
    bw_mixer *m = NULL;
    CHECK_INT(counts_mixer(2, 0, 8, NULL, &m), BW_OK);
    bw_pose base = make_pose(2, 0, 1.0f), a = make_pose(2, 0, 1.0f), out = make_pose(2, 0, 0.0f);
    set_joint(&a, 0, 6, 0, 0, 0, 1, 0.5f);
    set_joint(&a, 1, 6, 0, 0, 0, 1, NAN);
    bw_contribution c = {&a, 2.0f, 0};
    CHECK_INT(bw_mix_run(m, &base, &c, 1, &out), BW_OK);
    CHECK_NEAR(out.joints[0].t[0], 6.0, 1e-6);
    CHECK_NEAR(out.joints[1].t[0], 0.0, 0); /* NaN coverage: untouched */
    CHECK(!pose_has_nan(&out));

    const float bad[] = {NAN, INFINITY, -INFINITY, -1.0f, 0.0f};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        /* the bad entry alone: nothing changes */
        bw_contribution one = {&a, bad[i], 0};
        CHECK_INT(bw_mix_run(m, &base, &one, 1, &out), BW_OK);
        CHECK(pose_equal_bits(&out, &base));
        /* beside a good weight-1 entry at the same priority: that entry's
         * share 0.5 alone decides: mean 6, c_k 0.5 -> 3 */
        bw_contribution two[2] = {{&a, bad[i], 0}, {&a, 1.0f, 0}};
        CHECK_INT(bw_mix_run(m, &base, two, 2, &out), BW_OK);
        CHECK_NEAR(out.joints[0].t[0], 3.0, 1e-6);
        CHECK(!pose_has_nan(&out));
    }
    bw_contribution huge = {&a, 1e30f, 0};
    CHECK_INT(bw_mix_run(m, &base, &huge, 1, &out), BW_OK);
    CHECK_NEAR(out.joints[0].t[0], 6.0, 1e-6);
    bw_pose_deinit(&base);
    bw_pose_deinit(&a);
    bw_pose_deinit(&out);
    bw_mixer_destroy(m);
}

static void non_finite_contribution_values_keep_what_lay_below(void)
{
    /* A covered joint with a NaN or infinite value: the rank cannot form a
     * finite mean there, so the joint keeps what lay below (base t = 1);
     * other joints mix normally (t = 5). Huge finite values stay finite:
     * 0.5·1 + 0.5·3e38 = 1.5e38. */
    bw_mixer *m = NULL;
    CHECK_INT(counts_mixer(4, 1, 4, NULL, &m), BW_OK);
    bw_pose base = make_pose(4, 1, 1.0f), a = make_pose(4, 1, 1.0f), b = make_pose(4, 1, 1.0f),
            out = make_pose(4, 1, 0.0f);
    for (int j = 0; j < 4; j++) set_joint(&base, j, 1, 0, 0, 0, 1, 1);
    for (int j = 0; j < 4; j++) set_joint(&a, j, 5, 0, 0, 0, 1, 1);
    for (int j = 0; j < 4; j++) set_joint(&b, j, 5, 0, 0, 0, 1, 1);
    a.joints[1].t[2] = NAN;
    a.joints[2].r[0] = INFINITY;
    a.joints[3].t[0] = 3e38f;
    a.coverage[3] = 0.5f;
    a.curves[0] = NAN;
    for (int n = 1; n <= 2; n++) { /* single-contribution rank, then a two-way rank */
        bw_contribution c[2] = {{&a, 1, 0}, {&b, 1, 0}};
        CHECK_INT(bw_mix_run(m, &base, c, n, &out), BW_OK);
        CHECK(!pose_has_nan(&out));
        CHECK_NEAR(out.joints[0].t[0], 5.0, 1e-6);
        CHECK_NEAR(out.joints[1].t[0], 1.0, 0);
        CHECK_NEAR(out.joints[2].t[0], 1.0, 0);
        CHECK_NEAR(out.curves[0], 0.0, 0);
    }
    bw_contribution one = {&a, 1, 0};
    CHECK_INT(bw_mix_run(m, &base, &one, 1, &out), BW_OK);
    CHECK_NEAR(out.joints[3].t[0], 1.5e38, 1e32);
    /* three huge finite translations at full coverage are taken as they
     * are (their sum, 9e38, is past the float range: no finiteness test
     * may add them up) */
    for (int k = 0; k < 3; k++) a.joints[3].t[k] = 3e38f;
    a.coverage[3] = 1.0f;
    CHECK_INT(bw_mix_run(m, &base, &one, 1, &out), BW_OK);
    for (int k = 0; k < 3; k++) CHECK_NEAR(out.joints[3].t[k], 3e38, 1e32);
    bw_pose_deinit(&base);
    bw_pose_deinit(&a);
    bw_pose_deinit(&b);
    bw_pose_deinit(&out);
    bw_mixer_destroy(m);
}

static void curves_mix_like_translations_and_angles_take_the_short_way(void)
{
    /* Rig with a float curve "smile" (rest 0.2) and an angle curve "yaw"
     * (rest 350°).
     * Single rank, share 0.5: smile = 0.5·0.2 + 0.5·1.0 = 0.6; yaw from
     * 350° toward 10° by half along the short arc = 360° (≡ 0°), never
     * 180°.
     * Two angle contributions 170° and −170° at equal weight over an
     * uncovered base: unwrapped to 170° and 190°, mean 180° (mod 360°);
     * a float curve with the same numbers gives 0. */
    bw_rig_curve_desc cd[2] = {{"smile", BW_CURVE_FLOAT, 0.2f}, {"yaw", BW_CURVE_ANGLE, DEG(350)}};
    bw_rig_desc rd = {.curves = cd, .curve_count = 2};
    bw_rig *rig = NULL;
    CHECK_INT(bw_rig_create(&rd, &rig, NULL), BW_OK);
    bw_mixer *m = NULL;
    bw_mixer_desc md = {.rig = rig, .max_contributions = 4};
    CHECK_INT(bw_mixer_create(&md, &m), BW_OK);
    bw_pose base, a, b, out;
    CHECK_INT(bw_pose_init(&base, rig, NULL), BW_OK);
    CHECK_INT(bw_pose_init(&a, rig, NULL), BW_OK);
    CHECK_INT(bw_pose_init(&b, rig, NULL), BW_OK);
    CHECK_INT(bw_pose_init(&out, rig, NULL), BW_OK);
    bw_pose_set_rest(&base, rig);
    a.curves[0] = 1.0f;
    a.curves[1] = DEG(10);
    a.curve_coverage[0] = a.curve_coverage[1] = 1.0f;
    bw_contribution c = {&a, 0.5f, 0};
    CHECK_INT(bw_mix_run(m, &base, &c, 1, &out), BW_OK);
    CHECK_NEAR(out.curves[0], 0.6, 1e-6);
    CHECK_NEAR(remainder(out.curves[1], 2 * PI_D), 0.0, 1e-5);
    CHECK_NEAR(out.curve_coverage[1], 1.0, 1e-6);
    /* the same through a two-way rank (a twice at 0.25 each) */
    bw_contribution cc[2] = {{&a, 0.25f, 0}, {&a, 0.25f, 0}};
    CHECK_INT(bw_mix_run(m, &base, cc, 2, &out), BW_OK);
    CHECK_NEAR(out.curves[0], 0.6, 1e-6);
    CHECK_NEAR(remainder(out.curves[1], 2 * PI_D), 0.0, 1e-5);

    a.curves[0] = DEG(170);
    a.curves[1] = DEG(170);
    b.curves[0] = DEG(-170);
    b.curves[1] = DEG(-170);
    b.curve_coverage[0] = b.curve_coverage[1] = 1.0f;
    bw_pose_clear(&out);
    bw_contribution ab[2] = {{&a, 1, 0}, {&b, 1, 0}};
    CHECK_INT(bw_mix_run(m, NULL, ab, 2, &out), BW_OK);
    CHECK_NEAR(out.curves[0], 0.0, 1e-5);
    CHECK_NEAR(fabs(remainder(out.curves[1], 2 * PI_D)), PI_D, 1e-5);
    /* Crossing ±180° with a covered base at 170°: a 25% overlay toward
     * −170° (= 190°) moves +5°, to 175°, not −115°. */
    base.curves[1] = DEG(170);
    bw_contribution q = {&b, 0.25f, 0};
    CHECK_INT(bw_mix_run(m, &base, &q, 1, &out), BW_OK);
    CHECK_NEAR(out.curves[1], DEG(175), 1e-5);
    bw_pose_deinit(&base);
    bw_pose_deinit(&a);
    bw_pose_deinit(&b);
    bw_pose_deinit(&out);
    bw_mixer_destroy(m);
    bw_rig_destroy(rig);
}

/* pose.h's stated ranges: bw_pose_init_counts refuses more than 2^26
 * joints or curves with BW_ERR_LIMIT (pose untouched); the per-frame
 * local-to-model kernels use a rotation as q / |q| while 1e-30 < |q|² <
 * FLT_MAX and as the identity outside, on every path: (0, k, 0, k) is
 * Ry(90°) (+X to −Z) for k = 1e-15 and 1e18, the identity for k = 1e-16
 * (|q|² = 2e-32) and 1e20 (|q|² overflows). */
static void pose_ranges_are_as_stated(void)
{
    bw_pose p = {.joint_count = 7};
    CHECK_INT(bw_pose_init_counts(&p, (1 << 26) + 1, 0, NULL), BW_ERR_LIMIT);
    CHECK_INT(bw_pose_init_counts(&p, 0, (1 << 26) + 1, NULL), BW_ERR_LIMIT);
    CHECK_INT(p.joint_count, 7);
    bw_rig *one = counts_rig(1, 0);
    bw_pose pose = make_pose(1, 0, 1.0f);
    const float k[4] = {1e-15f, 1e18f, 1e-16f, 1e20f};
    for (int path = BW_SIMD_PORTABLE; path < BW_SIMD_PATH_COUNT; path++) {
        for (int i = 0; i < 4; i++) {
            pose.joints[0] = (bw_transform){{0, 0, 0}, {0, k[i], 0, k[i]}, {1, 1, 1}};
            float model[1][4][4];
            bw_pose_local_to_model_with(one, &pose, (bw_simd_path)path, model);
            const bool turned = i < 2;
            CHECK_NEAR(model[0][0][0], turned ? 0.0 : 1.0, 1e-6);
            CHECK_NEAR(model[0][0][2], turned ? -1.0 : 0.0, 1e-6);
            CHECK_NEAR(model[0][2][0], turned ? 1.0 : 0.0, 1e-6);
        }
    }
    bw_pose_deinit(&pose);
    bw_rig_destroy(one);
}

static void failures_leave_out_untouched(void)
{
    bw_mixer *m = NULL;
    CHECK_INT(counts_mixer(2, 1, 2, NULL, &m), BW_OK);
    bw_pose base = make_pose(2, 1, 1.0f), a = make_pose(2, 1, 1.0f), out = make_pose(2, 1, 0.0f),
            ref = make_pose(2, 1, 0.0f), small = make_pose(1, 1, 1.0f), nocurve = make_pose(2, 0, 1.0f);
    set_joint(&a, 0, 3, 0, 0, 45, 2, 1);
    set_joint(&out, 1, 7, 7, 7, 0, 1, 0.3f);
    bw_pose_copy(&ref, &out);
    bw_contribution c[3] = {{&a, 1, 0}, {&a, 1, 1}, {&a, 1, 2}};
    /* count above capacity (2) */
    CHECK_INT(bw_mix_run(m, &base, c, 3, &out), BW_ERR_LIMIT);
    CHECK(pose_equal_bits(&out, &ref));
    /* mismatched counts: base, out, a contribution */
    CHECK_INT(bw_mix_run(m, &small, c, 1, &out), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_mix_run(m, &base, c, 1, &small), BW_ERR_INVALID_ARGUMENT);
    bw_contribution wrong[2] = {{&a, 1, 0}, {&nocurve, 1, 0}};
    CHECK_INT(bw_mix_run(m, &base, wrong, 2, &out), BW_ERR_INVALID_ARGUMENT);
    CHECK(pose_equal_bits(&out, &ref));
    /* NULLs and negative counts */
    bw_contribution nullpose = {NULL, 1, 0};
    CHECK_INT(bw_mix_run(m, &base, &nullpose, 1, &out), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_mix_run(m, &base, NULL, 1, &out), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_mix_run(m, &base, c, -1, &out), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_mix_run(NULL, &base, c, 1, &out), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_mix_run(m, &base, c, 1, NULL), BW_ERR_INVALID_ARGUMENT);
    bw_pose zeroed;
    memset(&zeroed, 0, sizeof zeroed);
    zeroed.joint_count = 2;
    zeroed.curve_count = 1; /* counts without buffers */
    CHECK_INT(bw_mix_run(m, &zeroed, c, 1, &out), BW_ERR_INVALID_ARGUMENT);
    CHECK(pose_equal_bits(&out, &ref));
    /* creation errors */
    bw_mixer *bad = (bw_mixer *)&m; /* sentinel: must stay as is */
    bw_rig *one = counts_rig(1, 0);
    bw_mixer_desc negative = {one, -1, {NULL, NULL}, false}, no_rig = {NULL, 1, {NULL, NULL}, false};
    bw_mixer_desc fine = {one, 1, {NULL, NULL}, false};
    CHECK_INT(bw_mixer_create(NULL, &bad), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_mixer_create(&no_rig, &bad), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_mixer_create(&negative, &bad), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_mixer_create(&fine, NULL), BW_ERR_INVALID_ARGUMENT);
    /* a simd value outside the enum is refused, not run as some path */
    bw_mixer_desc odd = fine;
    odd.simd = BW_SIMD_PATH_COUNT;
    CHECK_INT(bw_mixer_create(&odd, &bad), BW_ERR_INVALID_ARGUMENT);
    odd.simd = (bw_simd_path)-1;
    CHECK_INT(bw_mixer_create(&odd, &bad), BW_ERR_INVALID_ARGUMENT);
    odd.simd = (bw_simd_path)1000;
    CHECK_INT(bw_mixer_create(&odd, &bad), BW_ERR_INVALID_ARGUMENT);
    CHECK(bad == (bw_mixer *)&m);
    for (int path = 0; path < BW_SIMD_PATH_COUNT; path++) { /* every named path is accepted */
        bw_mixer *ok = NULL;
        odd.simd = (bw_simd_path)path;
        CHECK_INT(bw_mixer_create(&odd, &ok), BW_OK);
        bw_mixer_destroy(ok);
    }
    bw_rig_destroy(one);
    bw_mixer_destroy(NULL);
    bw_pose_deinit(&base);
    bw_pose_deinit(&a);
    bw_pose_deinit(&out);
    bw_pose_deinit(&ref);
    bw_pose_deinit(&small);
    bw_pose_deinit(&nocurve);
    bw_mixer_destroy(m);
}

static void empty_poses_and_zero_capacity(void)
{
    bw_mixer *m = NULL;
    /* max_contributions 0 is the default, 16: the 17th is over the limit */
    CHECK_INT(counts_mixer(0, 0, 0, NULL, &m), BW_OK);
    bw_pose e = make_pose(0, 0, 0.0f), out = make_pose(0, 0, 0.0f);
    CHECK_INT(bw_mix_run(m, &e, NULL, 0, &out), BW_OK);
    bw_contribution c17[BW_MIXER_DEFAULT_CONTRIBUTIONS + 1];
    for (int i = 0; i <= BW_MIXER_DEFAULT_CONTRIBUTIONS; i++) c17[i] = (bw_contribution){&e, 1, 0};
    CHECK_INT(BW_MIXER_DEFAULT_CONTRIBUTIONS, 16);
    CHECK_INT(bw_mix_run(m, &e, c17, 16, &out), BW_OK);
    CHECK_INT(bw_mix_run(m, &e, c17, 17, &out), BW_ERR_LIMIT);
    bw_mixer_destroy(m);
    CHECK_INT(counts_mixer(0, 0, 3, NULL, &m), BW_OK);
    bw_contribution cc[3] = {{&e, 1, 0}, {&e, 1, 0}, {&e, 1, 1}};
    CHECK_INT(bw_mix_run(m, &e, cc, 3, &out), BW_OK);
    bw_pose_deinit(&e);
    bw_pose_deinit(&out);
    bw_mixer_destroy(m);
}

static void blocks_and_tails_mix_each_joint_on_its_own(void)
{
    /* 11 joints: two full blocks of four and a tail of three. Base joint j:
     * t = (j,0,0), identity, coverage 1. Two contributions in one rank:
     *   A: t = (j+10,0,0), yaw 10°·j, coverage 1, 0.5, 0 for j % 3 = 0, 1, 2;
     *   B: covers only j % 3 == 0 with t = (j+20,0,0) and the NEGATED yaw
     *      quaternion; elsewhere coverage 0 with NaN storage (which shares
     *      a block with covered joints, so it is loaded but must not count).
     * j % 3 == 0: shares 1 + 1, mean t = j + 15, rotation q (−q aligned),
     *             (0, sin 5j°, 0, cos 5j°).
     * j % 3 == 1: share 0.5 of A alone over the base: t = j + 5, rotation
     *             the bisector of 0° and 10j°: (0, sin 2.5j°, 0, cos 2.5j°).
     * j % 3 == 2: nobody covers it: bit for bit the base. */
    enum { N = 11 };
    bw_mixer *m = NULL;
    CHECK_INT(counts_mixer(N, 0, 2, NULL, &m), BW_OK);
    bw_pose base = make_pose(N, 0, 1.0f), a = make_pose(N, 0, 0.0f);
    bw_pose b = make_pose(N, 0, 0.0f), out = make_pose(N, 0, 0.0f);
    const float cov_a[3] = {1.0f, 0.5f, 0.0f};
    for (int j = 0; j < N; j++) {
        set_joint(&base, j, (float)j, 0, 0, 0, 1, 1);
        set_joint(&a, j, (float)j + 10, 0, 0, 10.0f * j, 1, cov_a[j % 3]);
        if (j % 3 == 0) {
            set_joint(&b, j, (float)j + 20, 0, 0, 10.0f * j, 1, 1);
            for (int k = 0; k < 4; k++) b.joints[j].r[k] = -b.joints[j].r[k];
        } else {
            b.joints[j].t[0] = NAN;
            b.coverage[j] = 0.0f;
        }
    }
    /* odd host coverages on two uncovered joints pass through as they are */
    base.coverage[2] = 1.5f;
    base.coverage[5] = -0.5f;
    bw_contribution c[2] = {{&a, 1, 4}, {&b, 1, 4}};
    for (int order = 0; order < 2; order++) {
        if (order) { /* and listed the other way round */
            c[0].pose = &b;
            c[1].pose = &a;
        }
        CHECK_INT(bw_mix_run(m, &base, c, 2, &out), BW_OK);
        CHECK(!pose_has_nan(&out));
        for (int j = 0; j < N; j++) {
            const bw_transform *x = &out.joints[j];
            if (j % 3 == 0) {
                CHECK_NEAR(x->t[0], j + 15.0, 1e-5);
                check_rot(x->r, 0, sinf(DEG(5.0f * j)), 0, cosf(DEG(5.0f * j)), 1e-6f);
            } else if (j % 3 == 1) {
                CHECK_NEAR(x->t[0], j + 5.0, 1e-5);
                check_rot(x->r, 0, sinf(DEG(2.5f * j)), 0, cosf(DEG(2.5f * j)), 1e-6f);
            } else {
                CHECK(memcmp(x, &base.joints[j], sizeof *x) == 0);
            }
            CHECK_NEAR(x->s[1], 1.0, 1e-6);
            CHECK_NEAR(out.coverage[j], base.coverage[j], 0);
        }
    }
    bw_pose_deinit(&base);
    bw_pose_deinit(&a);
    bw_pose_deinit(&b);
    bw_pose_deinit(&out);
    bw_mixer_destroy(m);
}

static void allocation_failure_is_reported_and_clean(void)
{
    int succeeded = 0;
    for (int budget = 0; budget < 20 && !succeeded; budget++) {
        alloc_counter ctr = ALLOC_COUNTER(budget);
        bw_allocator a = {alloc_counter_fn, &ctr};
        bw_mixer *m = NULL;
        bw_result r = counts_mixer(3, 2, 4, &a, &m);
        if (r == BW_OK) {
            succeeded = 1;
            bw_mixer_destroy(m);
        } else {
            CHECK_INT(r, BW_ERR_OUT_OF_MEMORY);
            CHECK(m == NULL);
        }
        CHECK_INT(ctr.live_bytes, 0);
    }
    CHECK(succeeded);
}

int main(void)
{
    RUN(equal_priority_full_coverage_forms_one_mean);
    RUN(quarter_coverage_overlay_leaves_three_quarters);
    RUN(q_and_minus_q_never_cancel);
    RUN(thin_weights_fill_from_rest);
    RUN(uncovered_joints_pass_through_unchanged);
    RUN(permutations_within_a_rank_agree);
    RUN(priority_order_independent_of_list_order);
    RUN(zero_coverage_base_takes_the_rank);
    RUN(weights_above_one_and_bad_weights);
    RUN(non_finite_contribution_values_keep_what_lay_below);
    RUN(curves_mix_like_translations_and_angles_take_the_short_way);
    RUN(failures_leave_out_untouched);
    RUN(pose_ranges_are_as_stated);
    RUN(empty_poses_and_zero_capacity);
    RUN(blocks_and_tails_mix_each_joint_on_its_own);
    RUN(allocation_failure_is_reported_and_clean);
    return check_summary();
}
