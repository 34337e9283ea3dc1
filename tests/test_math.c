/* test_math.c - the private quaternion helpers in src/bw_math.h, checked
 * against double-precision formulas written out here independently. */
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

int main(void)
{
    RUN(slerp_matches_the_exact_formula_at_every_angle);
    RUN(slerp_of_90_degrees_at_half_is_45_degrees);
    RUN(rotate_and_multiply_agree_with_hand_values);
    return check_summary();
}
