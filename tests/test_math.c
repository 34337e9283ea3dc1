/* test_math.c - the private quaternion helpers in src/bw_math.h, checked
 * against double-precision formulas written out here independently. */
#include "blendwerk/pose.h"
#include "blendwerk/procedural.h"
#include "bw_math.h"
#include "check.h"

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

int main(void)
{
    RUN(slerp_matches_the_exact_formula_at_every_angle);
    RUN(slerp_of_90_degrees_at_half_is_45_degrees);
    RUN(rotate_and_multiply_agree_with_hand_values);
    RUN(normalize_keeps_the_direction_at_any_size);
    RUN(swing_twist_takes_any_axis_and_quaternion_size);
    RUN(look_rotation_takes_any_length);
    RUN(aim_yaw_straight_behind_is_plus_pi);
    return check_summary();
}
