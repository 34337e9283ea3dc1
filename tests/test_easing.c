/* test_easing.c - easing curves: exact values from the formulas in
 * easing.h (derived by hand; each derivation is in a comment), endpoints,
 * the out/in_out mirrors, names, and bad input. */
#include <math.h>

#include "blendwerk/easing.h"
#include "check.h"

#define TOL 1e-6

static float in_(bw_ease_style s, float u) { return bw_ease(s, BW_EASE_IN, u); }
static float out_(bw_ease_style s, float u) { return bw_ease(s, BW_EASE_OUT, u); }
static float inout_(bw_ease_style s, float u) { return bw_ease(s, BW_EASE_IN_OUT, u); }

static void endpoints_should_be_exact_for_every_style_and_direction(void)
{
    for (int s = 0; s < BW_EASE_STYLE_COUNT; s++)
        for (int d = 0; d < BW_EASE_DIR_COUNT; d++) {
            /* exact equality on purpose: a key must be reached exactly */
            CHECK(bw_ease((bw_ease_style)s, (bw_ease_dir)d, 0.0f) == 0.0f);
            CHECK(bw_ease((bw_ease_style)s, (bw_ease_dir)d, 1.0f) == 1.0f);
        }
}

static void linear_and_polynomials_should_match_hand_values(void)
{
    /* linear: u in every direction */
    CHECK_NEAR(in_(BW_EASE_LINEAR, 0.3f), 0.3, TOL);
    CHECK_NEAR(out_(BW_EASE_LINEAR, 0.3f), 0.3, TOL);
    CHECK_NEAR(inout_(BW_EASE_LINEAR, 0.3f), 0.3, TOL);
    /* quad: in(0.5) = 0.25; out(0.5) = 1 - 0.5^2 = 0.75;
     * in_out(0.25) = in(0.5)/2 = 0.125; in_out(0.75) = 1 - in(0.5)/2 = 0.875 */
    CHECK_NEAR(in_(BW_EASE_QUAD, 0.5f), 0.25, TOL);
    CHECK_NEAR(out_(BW_EASE_QUAD, 0.5f), 0.75, TOL);
    CHECK_NEAR(inout_(BW_EASE_QUAD, 0.25f), 0.125, TOL);
    CHECK_NEAR(inout_(BW_EASE_QUAD, 0.75f), 0.875, TOL);
    /* cubic: in(0.5) = 0.125; out(0.5) = 1 - 0.125 = 0.875;
     * in_out(0.25) = in(0.5)/2 = 0.0625; out(0.2) = 1 - 0.8^3 = 0.488 */
    CHECK_NEAR(in_(BW_EASE_CUBIC, 0.5f), 0.125, TOL);
    CHECK_NEAR(out_(BW_EASE_CUBIC, 0.5f), 0.875, TOL);
    CHECK_NEAR(inout_(BW_EASE_CUBIC, 0.25f), 0.0625, TOL);
    CHECK_NEAR(out_(BW_EASE_CUBIC, 0.2f), 0.488, TOL);
    /* quart: in(0.5) = 0.0625; out(0.5) = 0.9375; in_out(0.75) = 1 - 0.0625/2 */
    CHECK_NEAR(in_(BW_EASE_QUART, 0.5f), 0.0625, TOL);
    CHECK_NEAR(out_(BW_EASE_QUART, 0.5f), 0.9375, TOL);
    CHECK_NEAR(inout_(BW_EASE_QUART, 0.75f), 0.96875, TOL);
    /* quint: in(0.5) = 0.03125; out(0.5) = 0.96875; in_out(0.25) = 0.015625 */
    CHECK_NEAR(in_(BW_EASE_QUINT, 0.5f), 0.03125, TOL);
    CHECK_NEAR(out_(BW_EASE_QUINT, 0.5f), 0.96875, TOL);
    CHECK_NEAR(inout_(BW_EASE_QUINT, 0.25f), 0.015625, TOL);
}

static void sine_exponential_circular_should_match_hand_values(void)
{
    /* sine: in(0.5) = 1 - cos(pi/4) = 1 - 0.70710678 = 0.29289322;
     * out(0.5) = 1 - in(0.5) = sin(pi/4) = 0.70710678;
     * in_out(0.25) = in(0.5)/2 = 0.14644661; in(1/3) = 1 - cos(pi/6) = 0.13397460 */
    CHECK_NEAR(in_(BW_EASE_SINE, 0.5f), 0.29289322, TOL);
    CHECK_NEAR(out_(BW_EASE_SINE, 0.5f), 0.70710678, TOL);
    CHECK_NEAR(inout_(BW_EASE_SINE, 0.25f), 0.14644661, TOL);
    CHECK_NEAR(in_(BW_EASE_SINE, 1.0f / 3.0f), 0.13397460, TOL);
    /* exponential: in(0.5) = 2^(5-10) = 0.03125; in(0.9) = 2^-1 = 0.5;
     * out(0.5) = 0.96875; in_out(0.25) = in(0.5)/2 = 0.015625 */
    CHECK_NEAR(in_(BW_EASE_EXPONENTIAL, 0.5f), 0.03125, TOL);
    CHECK_NEAR(in_(BW_EASE_EXPONENTIAL, 0.9f), 0.5, TOL);
    CHECK_NEAR(out_(BW_EASE_EXPONENTIAL, 0.5f), 0.96875, TOL);
    CHECK_NEAR(inout_(BW_EASE_EXPONENTIAL, 0.25f), 0.015625, TOL);
    /* circular: in(0.6) = 1 - sqrt(1 - 0.36) = 1 - 0.8 = 0.2;
     * out(0.4) = 1 - in(0.6) = 0.8; in_out(0.3) = in(0.6)/2 = 0.1 */
    CHECK_NEAR(in_(BW_EASE_CIRCULAR, 0.6f), 0.2, TOL);
    CHECK_NEAR(out_(BW_EASE_CIRCULAR, 0.4f), 0.8, TOL);
    CHECK_NEAR(inout_(BW_EASE_CIRCULAR, 0.3f), 0.1, TOL);
}

static void back_elastic_bounce_should_match_hand_values(void)
{
    /* back, c1 = 1.70158, c3 = 2.70158: in(0.5) = 2.70158/8 - 1.70158/4
     * = 0.3376975 - 0.425395 = -0.0876975; out(0.5) = 1.0876975;
     * in_out(0.25) = -0.04384875; in_out(0.75) = 1.04384875.
     * The dip: d/du = 0 at u = 2 c1 / (3 c3) = 0.41989749, value -0.10000407. */
    CHECK_NEAR(in_(BW_EASE_BACK, 0.5f), -0.0876975, TOL);
    CHECK_NEAR(out_(BW_EASE_BACK, 0.5f), 1.0876975, TOL);
    CHECK_NEAR(inout_(BW_EASE_BACK, 0.25f), -0.04384875, TOL);
    CHECK_NEAR(inout_(BW_EASE_BACK, 0.75f), 1.04384875, TOL);
    CHECK_NEAR(in_(BW_EASE_BACK, 0.41989749f), -0.10000407, TOL);
    /* elastic, c4 = 2 pi / 3: in(0.5) = -2^-5 sin(-5.75 * 2pi/3)
     * = -2^-5 sin(-23pi/6) = -2^-5 sin(pi/6) = -0.015625; out(0.5) = 1.015625.
     * in(0.9) = -2^-1 sin(-1.75 * 2pi/3) = -0.5 sin(-7pi/6) = -0.5 * 0.5 = -0.25;
     * out(0.1) = 1.25; in_out(0.45) = in(0.9)/2 = -0.125; in_out(0.55) = 1.125 */
    CHECK_NEAR(in_(BW_EASE_ELASTIC, 0.5f), -0.015625, TOL);
    CHECK_NEAR(out_(BW_EASE_ELASTIC, 0.5f), 1.015625, TOL);
    CHECK_NEAR(in_(BW_EASE_ELASTIC, 0.9f), -0.25, TOL);
    CHECK_NEAR(out_(BW_EASE_ELASTIC, 0.1f), 1.25, TOL);
    CHECK_NEAR(inout_(BW_EASE_ELASTIC, 0.45f), -0.125, TOL);
    CHECK_NEAR(inout_(BW_EASE_ELASTIC, 0.55f), 1.125, TOL);
    /* bounce, n = 7.5625, d = 2.75:
     * out(0.2): 0.2 < 1/d, 7.5625 * 0.04 = 0.3025; so in(0.8) = 0.6975 and
     *   in_out(0.4) = in(0.8)/2 = 0.34875;
     * out(0.5): second arc, x = 0.5 - 1.5/2.75 = -1/22, 7.5625/484 + 0.75
     *   = 0.015625 + 0.75 = 0.765625; in(0.5) = 0.234375;
     * out(0.9): third arc, x = 0.9 - 9/11 = 0.9/11, 7.5625 * 0.81/121 + 0.9375
     *   = 0.050625 + 0.9375 = 0.988125;
     * out(0.95): fourth arc, x = 0.95 - 2.625/2.75 = -0.05/11,
     *   7.5625 * 0.0025/121 + 0.984375 = 0.00015625 + 0.984375 = 0.98453125 */
    CHECK_NEAR(out_(BW_EASE_BOUNCE, 0.2f), 0.3025, TOL);
    CHECK_NEAR(in_(BW_EASE_BOUNCE, 0.8f), 0.6975, TOL);
    CHECK_NEAR(inout_(BW_EASE_BOUNCE, 0.4f), 0.34875, TOL);
    CHECK_NEAR(out_(BW_EASE_BOUNCE, 0.5f), 0.765625, TOL);
    CHECK_NEAR(in_(BW_EASE_BOUNCE, 0.5f), 0.234375, TOL);
    CHECK_NEAR(out_(BW_EASE_BOUNCE, 0.9f), 0.988125, TOL);
    CHECK_NEAR(out_(BW_EASE_BOUNCE, 0.95f), 0.98453125, TOL);
}

static void constant_should_step_at_the_key_in_every_direction(void)
{
    for (int d = 0; d < BW_EASE_DIR_COUNT; d++) {
        CHECK(bw_ease(BW_EASE_CONSTANT, (bw_ease_dir)d, 0.0001f) == 0.0f);
        CHECK(bw_ease(BW_EASE_CONSTANT, (bw_ease_dir)d, 0.5f) == 0.0f);
        CHECK(bw_ease(BW_EASE_CONSTANT, (bw_ease_dir)d, 0.9999f) == 0.0f);
        CHECK(bw_ease(BW_EASE_CONSTANT, (bw_ease_dir)d, 1.0f) == 1.0f);
    }
}

/* out(u) = 1 - in(1 - u) and in_out from in, checked over a sweep of u for
 * every style (CONSTANT excluded: it ignores the direction by contract). */
static void out_and_in_out_should_mirror_in(void)
{
    for (int s = 0; s < BW_EASE_STYLE_COUNT; s++) {
        if (s == BW_EASE_CONSTANT) continue;
        for (int i = 1; i < 100; i++) {
            float u = (float)i / 100.0f;
            bw_ease_style st = (bw_ease_style)s;
            CHECK_NEAR(out_(st, u), 1.0 - in_(st, 1.0f - u), 2e-6);
            double expect = u < 0.5f ? in_(st, 2.0f * u) / 2.0 : 1.0 - in_(st, 2.0f - 2.0f * u) / 2.0;
            CHECK_NEAR(inout_(st, u), expect, 2e-6);
        }
        CHECK_NEAR(inout_((bw_ease_style)s, 0.5f), 0.5, 1e-6);
    }
}

static void non_finite_and_out_of_range_input_should_clamp(void)
{
    for (int s = 0; s < BW_EASE_STYLE_COUNT; s++)
        for (int d = 0; d < BW_EASE_DIR_COUNT; d++) {
            bw_ease_style st = (bw_ease_style)s;
            bw_ease_dir dir = (bw_ease_dir)d;
            CHECK(bw_ease(st, dir, NAN) == 0.0f);
            CHECK(bw_ease(st, dir, -NAN) == 0.0f);
            CHECK(bw_ease(st, dir, INFINITY) == 1.0f);
            CHECK(bw_ease(st, dir, -INFINITY) == 0.0f);
            CHECK(bw_ease(st, dir, -3.0f) == 0.0f);
            CHECK(bw_ease(st, dir, 1e30f) == 1.0f);
        }
    /* unknown style or direction behaves as linear */
    CHECK_NEAR(bw_ease((bw_ease_style)99, BW_EASE_IN, 0.3f), 0.3, TOL);
    CHECK_NEAR(bw_ease((bw_ease_style)-1, BW_EASE_IN, 0.3f), 0.3, TOL);
    CHECK_NEAR(bw_ease(BW_EASE_QUAD, (bw_ease_dir)7, 0.3f), 0.3, TOL);
}

static void names_should_round_trip(void)
{
    CHECK_STR(bw_ease_style_name(BW_EASE_EXPONENTIAL), "exponential");
    CHECK_STR(bw_ease_dir_name(BW_EASE_IN_OUT), "in_out");
    for (int s = 0; s < BW_EASE_STYLE_COUNT; s++)
        CHECK_INT(bw_ease_style_find(bw_ease_style_name((bw_ease_style)s)), s);
    for (int d = 0; d < BW_EASE_DIR_COUNT; d++) CHECK_INT(bw_ease_dir_find(bw_ease_dir_name((bw_ease_dir)d)), d);
    CHECK_INT(bw_ease_style_find("Quad"), -1); /* case matters */
    CHECK_INT(bw_ease_style_find("nope"), -1);
    CHECK_INT(bw_ease_style_find(NULL), -1);
    CHECK_INT(bw_ease_dir_find("inout"), -1);
    CHECK_INT(bw_ease_dir_find(NULL), -1);
    CHECK_STR(bw_ease_style_name((bw_ease_style)BW_EASE_STYLE_COUNT), "unknown");
    CHECK_STR(bw_ease_dir_name((bw_ease_dir)-1), "unknown");
}

int main(void)
{
    RUN(endpoints_should_be_exact_for_every_style_and_direction);
    RUN(linear_and_polynomials_should_match_hand_values);
    RUN(sine_exponential_circular_should_match_hand_values);
    RUN(back_elastic_bounce_should_match_hand_values);
    RUN(constant_should_step_at_the_key_in_every_direction);
    RUN(out_and_in_out_should_mirror_in);
    RUN(non_finite_and_out_of_range_input_should_clamp);
    RUN(names_should_round_trip);
    return check_summary();
}
