/* test_math.c - the private quaternion helpers in src/bw_math.h, checked
 * against double-precision formulas written out here independently. */
#include <string.h>

#include "blendwerk/pose.h"
#include "blendwerk/procedural.h"
#include "bw_math.h"
#include "check.h"
#include "fixtures.h"

/* Exact slerp in double: shortest arc, sin-weighted. */
static void slerp_reference(const double *a, const double *b, double u, double *out)
{
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    double bs[4] = {b[0], b[1], b[2], b[3]};
    if (d < 0) {
        d = -d;
        for (int i = 0; i < 4; i++) bs[i] = -bs[i];
    }
    double th = acos(d > 1 ? 1 : d);
    double ka = 1 - u, kb = u;
    if (th > 1e-9) {
        ka = sin((1 - u) * th) / sin(th);
        kb = sin(u * th) / sin(th);
    }
    double n = 0;
    for (int i = 0; i < 4; i++) {
        out[i] = ka * a[i] + kb * bs[i];
        n += out[i] * out[i];
    }
    for (int i = 0; i < 4; i++) out[i] /= sqrt(n);
}

static void slerp_matches_the_exact_formula_at_every_angle(void)
{
    /* a: identity; b: rotation by angle phi about a tilted unit axis, phi
     * from 0 to 359 degrees (so both hemispheres), u over [0, 1]. */
    double axis[3] = {0.48, 0.6, 0.64};
    double worst = 0;
    for (int deg = 0; deg < 360; deg++) {
        double phi = deg * M_PI / 180.0;
        double ad[4] = {0, 0, 0, 1};
        double bd[4] = {axis[0] * sin(phi / 2), axis[1] * sin(phi / 2), axis[2] * sin(phi / 2), cos(phi / 2)};
        float af[4] = {0, 0, 0, 1};
        float bf[4] = {(float)bd[0], (float)bd[1], (float)bd[2], (float)bd[3]};
        for (int k = 0; k <= 20; k++) {
            double u = k / 20.0;
            double ref[4];
            float got[4];
            slerp_reference(ad, bd, u, ref);
            bw_quat_slerp(af, bf, (float)u, got);
            for (int i = 0; i < 4; i++) {
                double e = fabs(got[i] - ref[i]);
                if (e > worst) worst = e;
            }
        }
    }
    CHECK(worst < 1e-6);
    printf("slerp: worst component error %.3g\n", worst);
}

static void slerp_of_90_degrees_at_half_is_45_degrees(void)
{
    /* 0 and 90 degrees about Y; halfway is 45: (0, sin 22.5, 0, cos 22.5) */
    float a[4] = {0, 0, 0, 1};
    float b[4] = {0, (float)sin(M_PI / 4), 0, (float)cos(M_PI / 4)};
    float q[4];
    bw_quat_slerp(a, b, 0.5f, q);
    CHECK_NEAR(q[0], 0, 1e-7);
    CHECK_NEAR(q[1], sin(M_PI / 8), 1e-7);
    CHECK_NEAR(q[2], 0, 1e-7);
    CHECK_NEAR(q[3], cos(M_PI / 8), 1e-7);
    /* with b negated (the same rotation), the short arc gives the same */
    float nb[4] = {-b[0], -b[1], -b[2], -b[3]};
    bw_quat_slerp(a, nb, 0.5f, q);
    CHECK_NEAR(fabs(q[1]), sin(M_PI / 8), 1e-7);
    CHECK_NEAR(fabs(q[3]), cos(M_PI / 8), 1e-7);
    CHECK(q[1] * q[3] > 0); /* same rotation, not the long way round */
}

static void rotate_and_multiply_agree_with_hand_values(void)
{
    /* 90 degrees about Y takes +Z to +X */
    float q[4];
    bw_quat_from_axis_angle(0, 1, 0, (float)(M_PI / 2), q);
    float v[3] = {0, 0, 1}, r[3];
    bw_quat_rotate(q, v, r);
    CHECK_NEAR(r[0], 1, 1e-6);
    CHECK_NEAR(r[1], 0, 1e-6);
    CHECK_NEAR(r[2], 0, 1e-6);
    /* two 90-degree turns make 180: +Z -> -Z */
    float qq[4];
    bw_quat_mul(q, q, qq);
    bw_quat_rotate(qq, v, r);
    CHECK_NEAR(r[2], -1, 1e-6);
    /* normalizing a zero or NaN quaternion gives identity */
    float z[4] = {0, 0, 0, 0};
    bw_quat_normalize(z);
    CHECK_NEAR(z[3], 1, 0);
    float n[4] = {NAN, 0, 0, 1};
    bw_quat_normalize(n);
    CHECK_NEAR(n[3], 1, 0);
    CHECK_NEAR(n[0], 0, 0);
}

/* Powers of ten across the float range, 1e-40 (subnormal) to 1e38. */
static const float decades[] = {1e-40f, 1e-30f, 1e-20f, 1e-12f, 1e-6f, 1.0f, 1e6f, 1e12f, 1e20f, 1e30f, 1e38f};
#define DECADES (int)(sizeof decades / sizeof decades[0])

/* 90° about Y as (0, s, 0, s): any size s normalizes to (0, √½, 0, √½)
 * within a float ulp; squaring 1e20 overflowed and 1e-20 underflowed to
 * the identity before. */
static void normalize_keeps_the_direction_at_any_size(void)
{
    const float h = 1.0f / sqrtf(2.0f);
    for (int i = 0; i < DECADES; i++) {
        float q[4] = {0, decades[i], 0, decades[i]};
        bw_quat_normalize(q);
        CHECK_NEAR(q[0], 0, 0);
        CHECK_NEAR(q[1], h, 1.2e-7);
        CHECK_NEAR(q[2], 0, 0);
        CHECK_NEAR(q[3], h, 1.2e-7);
        /* the matrix of the same rotation: Ry(90°) takes +X to −Z, +Z to +X */
        bw_transform x = {{1, 2, 3}, {0, decades[i], 0, decades[i]}, {1, 1, 1}};
        float m[4][4];
        bw_transform_to_matrix(&x, m);
        CHECK_NEAR(m[0][0], 0, 1e-6);
        CHECK_NEAR(m[0][2], -1, 1e-6);
        CHECK_NEAR(m[2][0], 1, 1e-6);
        CHECK_NEAR(m[2][2], 0, 1e-6);
        CHECK_NEAR(m[1][1], 1, 1e-6);
        CHECK_NEAR(m[3][0], 1, 0);
        CHECK_NEAR(m[3][2], 3, 0);
    }
    /* zero and non-finite stay the identity */
    bw_transform zero = {{0, 0, 0}, {0, 0, 0, 0}, {1, 1, 1}}, inf = {{0, 0, 0}, {INFINITY, 0, 0, 1}, {1, 1, 1}};
    float m[4][4];
    bw_transform_to_matrix(&zero, m);
    CHECK_NEAR(m[0][0], 1, 0);
    CHECK_NEAR(m[2][2], 1, 0);
    bw_transform_to_matrix(&inf, m);
    CHECK_NEAR(m[0][0], 1, 0);
    CHECK_NEAR(m[1][1], 1, 0);
    float q[4] = {INFINITY, 1, 0, 0};
    bw_quat_normalize(q);
    CHECK_NEAR(q[3], 1, 0);
    CHECK_NEAR(q[0], 0, 0);
}

/* q = Rz(0.4) Ry(0.7) (written out here: Rz(a) Ry(b) = (−sa sb, ca sb,
 * sa cb, ca cb) with half angles) split about ±Y of any length: twist
 * Ry(0.7) = (0, sin 0.35, 0, cos 0.35), swing Rz(0.4) = (0, 0, sin 0.2,
 * cos 0.2); q itself scaled by any size changes nothing (normal sizes:
 * a subnormal q's own components carry only a few digits). */
static void swing_twist_takes_any_axis_and_quaternion_size(void)
{
    const double sa = sin(0.2), ca = cos(0.2), sb = sin(0.35), cb = cos(0.35);
    for (int i = 0; i < DECADES; i++) {
        for (int j = 1; j < DECADES; j += 3) {
            float k = decades[j];
            float q[4] = {(float)(-sa * sb) * k, (float)(ca * sb) * k, (float)(sa * cb) * k, (float)(ca * cb) * k};
            float axis[3] = {0, -decades[i], 0}, swing[4], twist[4];
            bw_swing_twist(q, axis, swing, twist);
            /* the twist about −Y is the same rotation as about +Y */
            CHECK_NEAR(twist[0], 0, 1e-6);
            CHECK_NEAR(twist[1], sb, 2e-6);
            CHECK_NEAR(twist[2], 0, 1e-6);
            CHECK_NEAR(twist[3], cb, 2e-6);
            CHECK_NEAR(swing[0], 0, 2e-6);
            CHECK_NEAR(swing[1], 0, 2e-6);
            CHECK_NEAR(swing[2], sa, 2e-6);
            CHECK_NEAR(swing[3], ca, 2e-6);
        }
    }
}

/* forward +X (any length) with up +Y (any length): Ry(90°) =
 * (0, √½, 0, √½); forward (0, 1, 1)·k with up +Y: Rx(−45°) =
 * (−sin 22.5°, 0, 0, cos 22.5°). A zero forward is the identity. */
static void look_rotation_takes_any_length(void)
{
    const double h = sqrt(0.5), s8 = sin(M_PI / 8), c8 = cos(M_PI / 8);
    for (int i = 0; i < DECADES; i++) {
        for (int j = 0; j < DECADES; j += 2) {
            float q[4];
            bw_look_rotation((const float[]){decades[i], 0, 0}, (const float[]){0, decades[j], 0}, q);
            CHECK_NEAR(q[0], 0, 1e-6);
            CHECK_NEAR(q[1], h, 1e-6);
            CHECK_NEAR(q[2], 0, 1e-6);
            CHECK_NEAR(q[3], h, 1e-6);
            bw_look_rotation((const float[]){0, decades[i], decades[i]}, (const float[]){0, decades[j], 0}, q);
            CHECK_NEAR(q[0], -s8, 1e-6);
            CHECK_NEAR(q[1], 0, 1e-6);
            CHECK_NEAR(q[2], 0, 1e-6);
            CHECK_NEAR(q[3], c8, 1e-6);
        }
    }
    float q[4];
    bw_look_rotation((const float[]){0, 0, 0}, (const float[]){0, 1, 0}, q);
    CHECK_NEAR(q[3], 1, 0);
    CHECK_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2], 0, 0);
}

/* bw_aim_angles' yaw is in (−π, π]: a body at yaw π (float) looking at a
 * target on world +Z, i.e. straight behind it, is +π, not −π (atan2 0
 * minus π). At body yaw −π the difference is +π already. */
static void aim_yaw_straight_behind_is_plus_pi(void)
{
    const float pi = (float)M_PI;
    const float origin[3] = {0, 1.6f, 0}, target[3] = {0, 1.6f, 5}, body[3] = {0, 0, 0};
    float yaw = 0, pitch = 1;
    bw_aim_angles(body, pi, origin, target, &yaw, &pitch);
    CHECK_NEAR(yaw, pi, 0);
    CHECK_NEAR(pitch, 0, 0);
    bw_aim_angles(body, -pi, origin, target, &yaw, &pitch);
    CHECK_NEAR(yaw, pi, 0);
    /* 3π as a float (9.42477798) is not π_f + 2π_f: the wrap (fmodf is
     * exact) leaves −(3π_f − 2π_f) = −3.1415925, just inside −π_f */
    const float three_pi = 3.0f * pi, two_pi = (float)(2.0 * M_PI);
    bw_aim_angles(body, three_pi, origin, target, &yaw, &pitch);
    CHECK(yaw > -pi && yaw <= pi);
    CHECK_NEAR(yaw, -(three_pi - two_pi), 0);
    /* a quarter turn stays as it was: body yaw π/2, target on +Z is −π/2 */
    bw_aim_angles(body, pi / 2, origin, target, &yaw, &pitch);
    CHECK_NEAR(yaw, -pi / 2, 1e-7);
}

/* ---- bw_aim_chain against procedural.h's formula in double ---- */
#define AIM_JOINTS 8
static const char *const aim_names[AIM_JOINTS] = {"root", "spine", "chest", "neck", "head", "jaw", "eye", "arm"};
static const int aim_parents[AIM_JOINTS] = {-1, 0, 1, 2, 3, 4, 4, 2};

/* Unit rotations, each off unit length by up to 5e-4 (as a mixed pose). */
static void random_rotations(bw_pose *pose, uint32_t *seed)
{
    for (int j = 0; j < pose->joint_count; j++) {
        float *q = pose->joints[j].r;
        double n = 0;
        for (int c = 0; c < 4; c++) {
            *seed = *seed * 1664525u + 1013904223u;
            q[c] = (float)((*seed >> 8) * (1.0 / 16777216.0) * 2.0 - 1.0);
            n += (double)q[c] * q[c];
        }
        *seed = *seed * 1664525u + 1013904223u;
        double len = 1.0 + 1e-3 * ((*seed >> 8) * (1.0 / 16777216.0) - 0.5);
        for (int c = 0; c < 4; c++) q[c] = (float)(q[c] / sqrt(n) * len);
    }
}

static void dquat_mul(const double *a, const double *b, double *o)
{
    double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    o[0] = x, o[1] = y, o[2] = z, o[3] = w;
}

static void dquat_unit(double *q)
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++) q[i] /= n;
}

/* r_i = (P^-1 D P) r_i, normalized, in order along the chain: P the
 * parent's model rotation (the unit rotations of its ancestors composed,
 * as the pose has them at that point), D = Ry(w yaw) Rx(-w pitch). */
static void aim_chain_reference(const int *parents, double (*r)[4], const int *chain, const float *w, int count,
                                double yaw, double pitch)
{
    for (int i = 0; i < count; i++) {
        int j = chain[i];
        double p[4] = {0, 0, 0, 1};
        for (int k = parents[j]; k >= 0; k = parents[k]) {
            double u[4] = {r[k][0], r[k][1], r[k][2], r[k][3]};
            dquat_unit(u);
            dquat_mul(u, p, p);
        }
        double hy = 0.5 * w[i] * yaw, hp = -0.5 * w[i] * pitch;
        double qy[4] = {0, sin(hy), 0, cos(hy)}, qp[4] = {sin(hp), 0, 0, cos(hp)}, d[4], pinv[4] = {-p[0], -p[1], -p[2], p[3]};
        dquat_mul(qy, qp, d);
        double t[4];
        dquat_mul(pinv, d, t);
        dquat_mul(t, p, t);
        dquat_mul(t, r[j], r[j]);
        dquat_unit(r[j]);
    }
}

/* Chains of direct children (the fast product carried down), a chain
 * with a gap (the parent's rotation read again), rotations off unit
 * length by up to 5e-4 and large angles: the same rotations as the
 * formula to 1e-6 per component, and out_local is what the pose got. */
static void aim_chain_matches_the_formula_in_double(void)
{
    bw_rig *rig = fixture_rig(aim_names, aim_parents, AIM_JOINTS);
    const int *parents = aim_parents;
    bw_pose pose;
    CHECK(bw_pose_init(&pose, rig, NULL) == BW_OK);
    static const int chains[3][3] = {{2, 3, 4}, {3, 4, 5}, {1, 3, 6}};
    static const float weights[3] = {0.25f, 0.35f, 0.4f};
    uint32_t seed = 12345u;
    float worst = 0.0f;
    for (int trial = 0; trial < 300; trial++) {
        double r[AIM_JOINTS][4];
        random_rotations(&pose, &seed);
        for (int j = 0; j < AIM_JOINTS; j++)
            for (int c = 0; c < 4; c++) r[j][c] = pose.joints[j].r[c];
        const int *chain = chains[trial % 3];
        float yaw = (float)(((trial * 37) % 100) / 100.0 * 4.0 - 2.0), pitch = (float)(((trial * 53) % 100) / 100.0 * 2.0 - 1.0);
        float local[12];
        bw_aim_chain(rig, &pose, chain, weights, 3, yaw, pitch, local);
        aim_chain_reference(parents, r, chain, weights, 3, yaw, pitch);
        for (int i = 0; i < 3; i++) {
            const float *got = pose.joints[chain[i]].r;
            double sign = got[0] * r[chain[i]][0] + got[1] * r[chain[i]][1] + got[2] * r[chain[i]][2] +
                                  got[3] * r[chain[i]][3] < 0 ? -1.0 : 1.0;
            for (int c = 0; c < 4; c++) {
                float e = (float)fabs(got[c] - sign * r[chain[i]][c]);
                if (e > worst) worst = e;
                CHECK_NEAR(local[4 * i + c], got[c], 0);
            }
        }
    }
    printf("aim chain: worst component error %.2g\n", worst);
    CHECK_NEAR(worst, 0, 1e-6);
    bw_pose_deinit(&pose);
    bw_rig_destroy(rig);
}

/* bw_aim_head is the four calls in order, bit for bit (the animator and
 * blendwerk.aim both run it): chains of direct children, through the
 * root, across branches, and a pose that does not fit the rig. */
static void aim_head_is_the_four_calls(void)
{
    bw_rig *rig = fixture_rig(aim_names, aim_parents, AIM_JOINTS);
    bw_pose a, b;
    CHECK(bw_pose_init(&a, rig, NULL) == BW_OK);
    CHECK(bw_pose_init(&b, rig, NULL) == BW_OK);
    static const int chains[5][3] = {{2, 3, 4}, {3, 4, 6}, {0, 4, 5}, {4, 7, 7}, {7, 3, 4}};
    static const int counts[5] = {3, 3, 3, 2, 3};
    static const float weights[3] = {0.3f, 0.3f, 0.4f};
    const bw_aim_limits limits = {1.2f, 0.6f, 0.6f, 0.4f, 0.2f};
    uint32_t seed = 777u;
    for (int trial = 0; trial < 200; trial++) {
        random_rotations(&a, &seed);
        for (int j = 0; j < AIM_JOINTS; j++) a.joints[j].t[1] = 0.1f * (float)j, a.joints[j].s[0] = 1.0f + 0.01f * (float)j;
        bw_pose_copy(&b, &a);
        const int *chain = chains[trial % 5], n = counts[trial % 5];
        const float body[3] = {1.0f, 0.0f, -2.0f}, target[3] = {(float)(trial % 7) - 3.0f, 1.5f, (float)(trial % 5) - 2.0f};
        float body_yaw = 0.05f * (float)trial, last = trial % 2 ? 0.5f : -0.5f;
        float got[4], origin[3], yaw, pitch, want[4];
        bw_aim_head(rig, &a, chain, weights, n, body, body_yaw, target, last, &limits, got);
        bw_model_position(rig, &b, chain[n - 1], origin);
        bw_aim_angles(body, body_yaw, origin, target, &yaw, &pitch);
        bw_aim_clamp(yaw, pitch, last, &limits, want);
        bw_aim_chain(rig, &b, chain, weights, n, want[0], want[1], NULL);
        CHECK(memcmp(got, want, sizeof got) == 0);
        CHECK(memcmp(a.joints, b.joints, sizeof(bw_transform) * AIM_JOINTS) == 0);
    }
    /* a pose of another rig: untouched, the aim seen from the model origin */
    bw_pose small;
    CHECK(bw_pose_init_counts(&small, 3, 0, NULL) == BW_OK);
    bw_transform before[3];
    memcpy(before, small.joints, sizeof before);
    float got[4], yaw, pitch, want[4];
    const float zero[3] = {0, 0, 0}, target[3] = {1, 0, 1};
    bw_aim_head(rig, &small, chains[0], weights, 3, zero, 0.0f, target, 0.0f, &limits, got);
    bw_aim_angles(zero, 0.0f, zero, target, &yaw, &pitch);
    bw_aim_clamp(yaw, pitch, 0.0f, &limits, want);
    CHECK(memcmp(got, want, sizeof got) == 0);
    CHECK_NEAR(got[0], 0.785398163, 1e-6); /* atan2(1, 1) */
    CHECK(memcmp(before, small.joints, sizeof before) == 0);
    bw_pose_deinit(&small);
    bw_pose_deinit(&a);
    bw_pose_deinit(&b);
    bw_rig_destroy(rig);
}

int main(void)
{
    RUN(slerp_matches_the_exact_formula_at_every_angle);
    RUN(slerp_of_90_degrees_at_half_is_45_degrees);
    RUN(rotate_and_multiply_agree_with_hand_values);
    RUN(normalize_keeps_the_direction_at_any_size);
    RUN(swing_twist_takes_any_axis_and_quaternion_size);
    RUN(look_rotation_takes_any_length);
    RUN(aim_yaw_straight_behind_is_plus_pi);
    RUN(aim_chain_matches_the_formula_in_double);
    RUN(aim_head_is_the_four_calls);
    return check_summary();
}
