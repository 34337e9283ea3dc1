/* test_blendspace.c - blend-space weights, synchronized phase helpers and
 * the plot-blend command (SPEC §6). Blend trees: test_blendtree.c.
 *
 * Every expected number below is worked out by hand in the comment above
 * it, from the formulas in SPEC §6, not taken from the code's output.
 */
#define _POSIX_C_SOURCE 200809L

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "blendwerk/blendspace.h"
#include "blendspace_internal.h"
#include "check.h"

#define PI 3.14159265358979323846
#define TOL 1e-5

static float sum_of(const float *w, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += w[i];
    return (float)s;
}

/* ---------------------------------------------------------------- 1D */

static void one_d_interpolates_between_neighbours_in_member_order(void)
{
    /* Members in authoring order run, idle, walk; sorted thresholds are
     * 0 (idle) < 1.5 (walk) < 4 (run). */
    const float t[3] = {4.0f, 0.0f, 1.5f};
    float w[3], r[3];

    /* x = 2.75 lies between walk (1.5) and run (4): u = 1.25 / 2.5 = 0.5. */
    CHECK_INT(bw_blend1d_weights(t, 3, 2.75f, w, r), BW_OK);
    CHECK_NEAR(w[0], 0.5, TOL);
    CHECK_NEAR(w[1], 0.0, TOL);
    CHECK_NEAR(w[2], 0.5, TOL);
    for (int i = 0; i < 3; i++) CHECK_NEAR(r[i], 1.0, 0); /* inside the range: no scaling */

    /* x = 1: between idle (0) and walk (1.5), u = 1 / 1.5 = 2/3. */
    CHECK_INT(bw_blend1d_weights(t, 3, 1.0f, w, NULL), BW_OK);
    CHECK_NEAR(w[0], 0.0, TOL);
    CHECK_NEAR(w[1], 1.0 / 3.0, TOL);
    CHECK_NEAR(w[2], 2.0 / 3.0, TOL);

    /* x = 3.5: u = (3.5 − 1.5) / 2.5 = 0.8 toward run. */
    CHECK_INT(bw_blend1d_weights(t, 3, 3.5f, w, NULL), BW_OK);
    CHECK_NEAR(w[0], 0.8, TOL);
    CHECK_NEAR(w[2], 0.2, TOL);

    /* Exactly on walk's threshold: walk alone. */
    CHECK_INT(bw_blend1d_weights(t, 3, 1.5f, w, NULL), BW_OK);
    CHECK_NEAR(w[2], 1.0, 0);
    CHECK_NEAR(w[0] + w[1], 0.0, 0);
}

static void one_d_clamps_and_scales_the_end_rate(void)
{
    const float t[3] = {4.0f, 0.0f, 1.5f};
    float w[3], r[3];

    /* 6 m/s against a 4 m/s run: run takes all, playing at 6 / 4 = 1.5×. */
    CHECK_INT(bw_blend1d_weights(t, 3, 6.0f, w, r), BW_OK);
    CHECK_NEAR(w[0], 1.0, 0);
    CHECK_NEAR(r[0], 1.5, TOL);
    CHECK_NEAR(r[1], 1.0, 0);
    CHECK_NEAR(r[2], 1.0, 0);

    /* Below an idle at threshold 0: idle takes all; a zero threshold has no
     * speed to scale, so its rate stays 1. */
    CHECK_INT(bw_blend1d_weights(t, 3, -1.0f, w, r), BW_OK);
    CHECK_NEAR(w[1], 1.0, 0);
    CHECK_NEAR(r[1], 1.0, 0);

    /* No idle: walk (1.5) is the low end. 0.75 m/s plays walk at
     * 0.75 / 1.5 = 0.5×; standing (0) and backward input (−2, opposite
     * sign) hold it at rate 0 instead of running it backwards. */
    const float wr[2] = {1.5f, 4.0f};
    CHECK_INT(bw_blend1d_weights(wr, 2, 0.75f, w, r), BW_OK);
    CHECK_NEAR(w[0], 1.0, 0);
    CHECK_NEAR(r[0], 0.5, TOL);
    CHECK_NEAR(r[1], 1.0, 0);
    CHECK_INT(bw_blend1d_weights(wr, 2, 0.0f, w, r), BW_OK);
    CHECK_NEAR(r[0], 0.0, 0);
    CHECK_INT(bw_blend1d_weights(wr, 2, -2.0f, w, r), BW_OK);
    CHECK_NEAR(w[0], 1.0, 0);
    CHECK_NEAR(r[0], 0.0, 0);

    /* A backward axis: −6 against a −3 m/s back-run is 2× (same signs). */
    const float axis[5] = {-3.0f, -1.5f, 0.0f, 1.5f, 4.0f};
    float w5[5], r5[5];
    CHECK_INT(bw_blend1d_weights(axis, 5, -6.0f, w5, r5), BW_OK);
    CHECK_NEAR(w5[0], 1.0, 0);
    CHECK_NEAR(r5[0], 2.0, TOL);

    /* A threshold within 1e-6 of 0 counts as 0 (rate 1); a tiny positive
     * one would give 10 / 0.001 = 10000×, capped at BW_BLEND_MAX_RATE. */
    const float tiny[1] = {5e-7f};
    CHECK_INT(bw_blend1d_weights(tiny, 1, 10.0f, w, r), BW_OK);
    CHECK_NEAR(r[0], 1.0, 0);
    const float small[1] = {0.001f};
    CHECK_INT(bw_blend1d_weights(small, 1, 10.0f, w, r), BW_OK);
    CHECK_NEAR(w[0], 1.0, 0);
    CHECK_NEAR(r[0], BW_BLEND_MAX_RATE, 0);
}

static void one_d_duplicates_share_their_threshold(void)
{
    const float t[4] = {0.0f, 1.0f, 1.0f, 2.0f};
    float w[4], r[4];
    /* x = 0.5: u = 0.5; threshold 1's half is split between its 2 members. */
    CHECK_INT(bw_blend1d_weights(t, 4, 0.5f, w, NULL), BW_OK);
    CHECK_NEAR(w[0], 0.5, TOL);
    CHECK_NEAR(w[1], 0.25, TOL);
    CHECK_NEAR(w[2], 0.25, TOL);
    CHECK_NEAR(w[3], 0.0, 0);
    /* On the shared threshold: 0.5 each. */
    CHECK_INT(bw_blend1d_weights(t, 4, 1.0f, w, NULL), BW_OK);
    CHECK_NEAR(w[1], 0.5, TOL);
    CHECK_NEAR(w[2], 0.5, TOL);
    CHECK_NEAR(w[0] + w[3], 0.0, 0);
    /* x = 1.5: 0.5 to threshold 2, 0.5 split over the pair. */
    CHECK_INT(bw_blend1d_weights(t, 4, 1.5f, w, NULL), BW_OK);
    CHECK_NEAR(w[1], 0.25, TOL);
    CHECK_NEAR(w[2], 0.25, TOL);
    CHECK_NEAR(w[3], 0.5, TOL);
    /* Two members at the top end share the clamp and both rate-scale:
     * 5 / 2 = 2.5×. */
    const float top[2] = {2.0f, 2.0f};
    CHECK_INT(bw_blend1d_weights(top, 2, 5.0f, w, r), BW_OK);
    CHECK_NEAR(w[0], 0.5, TOL);
    CHECK_NEAR(w[1], 0.5, TOL);
    CHECK_NEAR(r[0], 2.5, TOL);
    CHECK_NEAR(r[1], 2.5, TOL);
}

static void one_d_bad_input_is_an_error_or_a_defined_result(void)
{
    const float t[3] = {4.0f, 0.0f, 1.5f};
    float w[3] = {-7, -7, -7}, r[3] = {-7, -7, -7};
    CHECK_INT(bw_blend1d_weights(NULL, 3, 1.0f, w, r), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_blend1d_weights(t, 3, 1.0f, NULL, r), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_blend1d_weights(t, -1, 1.0f, w, r), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_blend1d_weights(t, 0, 1.0f, w, r), BW_ERR_EMPTY);
    const float bad[3] = {0.0f, NAN, 2.0f};
    CHECK_INT(bw_blend1d_weights(bad, 3, 1.0f, w, r), BW_ERR_NON_FINITE);
    const float badinf[2] = {0.0f, INFINITY};
    CHECK_INT(bw_blend1d_weights(badinf, 2, 1.0f, w, r), BW_ERR_NON_FINITE);
    /* outputs untouched by every failure above */
    for (int i = 0; i < 3; i++) {
        CHECK_NEAR(w[i], -7, 0);
        CHECK_NEAR(r[i], -7, 0);
    }
    /* NaN and ±inf x count as 0: idle (threshold 0) alone, rate 1. */
    const float xs[3] = {NAN, INFINITY, -INFINITY};
    for (int k = 0; k < 3; k++) {
        CHECK_INT(bw_blend1d_weights(t, 3, xs[k], w, r), BW_OK);
        CHECK_NEAR(w[1], 1.0, 0);
        CHECK_NEAR(w[0] + w[2], 0.0, 0);
        CHECK_NEAR(r[1], 1.0, 0);
    }
    /* Huge finite x: run alone, rate at the cap (3e38 / 4 is far above). */
    CHECK_INT(bw_blend1d_weights(t, 3, 3e38f, w, r), BW_OK);
    CHECK_NEAR(w[0], 1.0, 0);
    CHECK_NEAR(r[0], BW_BLEND_MAX_RATE, 0);
    /* Extreme thresholds: hi − lo overflows float but not the double math;
     * x = 0 is midway between −3e38 and 3e38. */
    const float ext[2] = {-3e38f, 3e38f};
    CHECK_INT(bw_blend1d_weights(ext, 2, 0.0f, w, NULL), BW_OK);
    CHECK_NEAR(w[0], 0.5, TOL);
    CHECK_NEAR(w[1], 0.5, TOL);
    /* One member: weight 1 anywhere. */
    const float one[1] = {3.0f};
    CHECK_INT(bw_blend1d_weights(one, 1, -50.0f, w, NULL), BW_OK);
    CHECK_NEAR(w[0], 1.0, 0);
}

/* ---------------------------------------------------------- 2D cartesian */

/* Triangle A(0,0), B(2,0), C(0,2). With e_ij = p_j − p_i:
 *   h_ij = 1 − (p − p_i)·e_ij / |e_ij|²   (|AB|² = |AC|² = 4, |BC|² = 8)
 *
 * Centroid G = (2/3, 2/3):
 *   A: h_AB = 1 − (2/3·2)/4 = 2/3;  h_AC = 2/3             -> w_A = 2/3
 *   B: G − B = (−4/3, 2/3)
 *      h_BA = 1 − (−4/3·−2)/4 = 1 − 2/3 = 1/3
 *      h_BC = 1 − (−4/3·−2 + 2/3·2)/8 = 1 − 4/8 = 1/2     -> w_B = 1/3
 *   C: by symmetry                                          -> w_C = 1/3
 *   sum 4/3 -> A 1/2, B 1/4, C 1/4 (gradient bands are not barycentric).
 *
 * Midpoint of edge BC, M = (1,1):
 *   A: h_AB = 1 − 2/4 = 1/2, h_AC = 1/2                    -> 1/2
 *   B: M − B = (−1,1); h_BA = 1 − 2/4 = 1/2; h_BC = 1 − 4/8 = 1/2 -> 1/2
 *   C: symmetric                                            -> 1/2
 *   -> 1/3 each.
 *
 * Midpoint of edge AB, N = (1,0):
 *   A: h_AB = 1 − 2/4 = 1/2, h_AC = 1 − 0 = 1              -> 1/2
 *   B: N − B = (−1,0); h_BA = 1 − 2/4 = 1/2; h_BC = 1 − 2/8 = 3/4 -> 1/2
 *   C: N − C = (1,−2); h_CA = 1 − (1·0 + −2·−2)/4 = 0      -> 0
 *   -> A 1/2, B 1/2, C 0.
 *
 * Outside, Q = (3,0):
 *   A: h_AB = 1 − 6/4 < 0                                   -> 0
 *   B: Q − B = (1,0); h_BA = 1 + 2/4; h_BC = 1 + 2/8        -> min(1, ·) = 1
 *   C: Q − C = (3,−2); h_CA = 1 − 4/4 = 0                   -> 0
 *   -> B alone.
 */
static void cartesian_gradient_band_matches_hand_worked_triangle(void)
{
    const float tri[6] = {0, 0, 2, 0, 0, 2};
    float w[3];
    CHECK_INT(bw_blend2d_weights(tri, 3, 2.0f / 3.0f, 2.0f / 3.0f, BW_BLEND2D_CARTESIAN, w), BW_OK);
    CHECK_NEAR(w[0], 0.5, TOL);
    CHECK_NEAR(w[1], 0.25, TOL);
    CHECK_NEAR(w[2], 0.25, TOL);

    CHECK_INT(bw_blend2d_weights(tri, 3, 1.0f, 1.0f, BW_BLEND2D_CARTESIAN, w), BW_OK);
    for (int i = 0; i < 3; i++) CHECK_NEAR(w[i], 1.0 / 3.0, TOL);

    CHECK_INT(bw_blend2d_weights(tri, 3, 1.0f, 0.0f, BW_BLEND2D_CARTESIAN, w), BW_OK);
    CHECK_NEAR(w[0], 0.5, TOL);
    CHECK_NEAR(w[1], 0.5, TOL);
    CHECK_NEAR(w[2], 0.0, TOL);

    CHECK_INT(bw_blend2d_weights(tri, 3, 3.0f, 0.0f, BW_BLEND2D_CARTESIAN, w), BW_OK);
    CHECK_NEAR(w[0], 0.0, TOL);
    CHECK_NEAR(w[1], 1.0, TOL);
    CHECK_NEAR(w[2], 0.0, TOL);

    /* On a sample: that sample alone. */
    CHECK_INT(bw_blend2d_weights(tri, 3, 0.0f, 2.0f, BW_BLEND2D_CARTESIAN, w), BW_OK);
    CHECK_NEAR(w[2], 1.0, 0);
    CHECK_NEAR(w[0] + w[1], 0.0, 0);

    /* Far outside (1e30, 1e30): A's h_AB is hugely negative -> 0. For B,
     * (Q − B)·(C − B) = −2(1e30 − 2) + 2e30 = 4 -> h_BC = 1/2 while h_BA > 1;
     * C is B's mirror image -> B and C 1/2 each. */
    CHECK_INT(bw_blend2d_weights(tri, 3, 1e30f, 1e30f, BW_BLEND2D_CARTESIAN, w), BW_OK);
    CHECK_NEAR(w[0], 0.0, TOL);
    CHECK_NEAR(w[1], 0.5, TOL);
    CHECK_NEAR(w[2], 0.5, TOL);
}

static void cartesian_degenerate_layouts_are_defined(void)
{
    float w[4];
    /* One sample: 1 anywhere. */
    const float one[2] = {5, 5};
    CHECK_INT(bw_blend2d_weights(one, 1, -3.0f, 9.0f, BW_BLEND2D_CARTESIAN, w), BW_OK);
    CHECK_NEAR(w[0], 1.0, 0);

    /* Two samples (0,0), (4,0); query (1,3): t = (1,3)·(4,0)/16 = 1/4, so
     * h_01 = 3/4 and h_10 = 1 − (−3,3)·(−4,0)/16 = 1/4 -> 0.75 / 0.25.
     * Past the second one, (6,0): h_01 = 1 − 24/16 < 0 -> second alone. */
    const float two[4] = {0, 0, 4, 0};
    CHECK_INT(bw_blend2d_weights(two, 2, 1.0f, 3.0f, BW_BLEND2D_CARTESIAN, w), BW_OK);
    CHECK_NEAR(w[0], 0.75, TOL);
    CHECK_NEAR(w[1], 0.25, TOL);
    CHECK_INT(bw_blend2d_weights(two, 2, 6.0f, 0.0f, BW_BLEND2D_CARTESIAN, w), BW_OK);
    CHECK_NEAR(w[1], 1.0, TOL);

    /* Collinear (0,0), (1,0), (2,0); query (0.5, 1):
     *   0: h_01 = 1 − 0.5 = 0.5, h_02 = 1 − 1/4 = 0.75        -> 0.5
     *   1: h_10 = 1 − (−0.5,1)·(−1,0) = 0.5, h_12 = 1 + 0.5   -> 0.5
     *   2: h_21 = 1 − (−1.5,1)·(−1,0) = −0.5                  -> 0  */
    const float line[6] = {0, 0, 1, 0, 2, 0};
    CHECK_INT(bw_blend2d_weights(line, 3, 0.5f, 1.0f, BW_BLEND2D_CARTESIAN, w), BW_OK);
    CHECK_NEAR(w[0], 0.5, TOL);
    CHECK_NEAR(w[1], 0.5, TOL);
    CHECK_NEAR(w[2], 0.0, TOL);

    /* Duplicates (0,0), (1,0), (1,0); query (0.5, 0): without the copy,
     * sample 0 and sample 1 would get h = 1/2 each (-> 1/2, 1/2); the copy
     * splits sample 1's share: 1/2, 1/4, 1/4. On the pair: 0, 1/2, 1/2. */
    const float dup[6] = {0, 0, 1, 0, 1, 0};
    CHECK_INT(bw_blend2d_weights(dup, 3, 0.5f, 0.0f, BW_BLEND2D_CARTESIAN, w), BW_OK);
    CHECK_NEAR(w[0], 0.5, TOL);
    CHECK_NEAR(w[1], 0.25, TOL);
    CHECK_NEAR(w[2], 0.25, TOL);
    CHECK_INT(bw_blend2d_weights(dup, 3, 1.0f, 0.0f, BW_BLEND2D_CARTESIAN, w), BW_OK);
    CHECK_NEAR(w[0], 0.0, 0);
    CHECK_NEAR(w[1], 0.5, 0);
    CHECK_NEAR(w[2], 0.5, 0);

    /* All samples at one place: they share equally wherever the input is. */
    const float same[4] = {1, 1, 1, 1};
    CHECK_INT(bw_blend2d_weights(same, 2, -4.0f, 0.0f, BW_BLEND2D_CARTESIAN, w), BW_OK);
    CHECK_NEAR(w[0], 0.5, TOL);
    CHECK_NEAR(w[1], 0.5, TOL);
}

static void two_d_bad_input_is_an_error_or_a_defined_result(void)
{
    const float tri[6] = {0, 0, 2, 0, 0, 2};
    float w[3] = {-7, -7, -7};
    CHECK_INT(bw_blend2d_weights(NULL, 3, 0, 0, BW_BLEND2D_CARTESIAN, w), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_blend2d_weights(tri, 3, 0, 0, BW_BLEND2D_CARTESIAN, NULL), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_blend2d_weights(tri, 3, 0, 0, (bw_blend2d_mode)7, w), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_blend2d_weights(tri, -2, 0, 0, BW_BLEND2D_CARTESIAN, w), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_blend2d_weights(tri, 0, 0, 0, BW_BLEND2D_DIRECTIONAL, w), BW_ERR_EMPTY);
    const float bad[6] = {0, 0, 2, NAN, 0, 2};
    CHECK_INT(bw_blend2d_weights(bad, 3, 0, 0, BW_BLEND2D_CARTESIAN, w), BW_ERR_NON_FINITE);
    CHECK_INT(bw_blend2d_weights(bad, 3, 0, 0, BW_BLEND2D_DIRECTIONAL, w), BW_ERR_NON_FINITE);
    for (int i = 0; i < 3; i++) CHECK_NEAR(w[i], -7, 0);

    /* A NaN / inf coordinate counts as 0: (NaN, 0) and (inf, −inf) are the
     * origin, which is sample A: A alone in both modes. */
    for (int m = 0; m < 2; m++) {
        CHECK_INT(bw_blend2d_weights(tri, 3, NAN, 0.0f, (bw_blend2d_mode)m, w), BW_OK);
        CHECK_NEAR(w[0], 1.0, 0);
        CHECK_INT(bw_blend2d_weights(tri, 3, INFINITY, -INFINITY, (bw_blend2d_mode)m, w), BW_OK);
        CHECK_NEAR(w[0], 1.0, 0);
    }
    /* Huge sample coordinates: finite weights summing to 1. */
    const float huge[6] = {-3e38f, 0, 3e38f, 0, 0, 3e38f};
    for (int m = 0; m < 2; m++) {
        CHECK_INT(bw_blend2d_weights(huge, 3, 1e37f, -2e38f, (bw_blend2d_mode)m, w), BW_OK);
        for (int i = 0; i < 3; i++) CHECK(isfinite(w[i]) && w[i] >= 0.0f);
        CHECK_NEAR(sum_of(w, 3), 1.0, TOL);
    }
}

/* bw_blend2d_weights takes at most BW_BLEND_MAX_MEMBERS (64) points, the
 * bound on its O(n²) cost: 65 are BW_ERR_LIMIT with the outputs untouched
 * (the old limit was INT_MAX / 2). 64 points on the unit circle (point k
 * at angle 2πk/64) queried at the midpoint of the chord from point 0 to
 * point 1: 1/2 each in both modes, all others 0 (worked out in
 * tests/test_blendtree.c, two_d_nodes_take_at_most_max_members_children;
 * the directional query there is on the circle, here on the chord, which
 * changes only the radial term, (|p| − 1)/1 = cos(π/64) − 1 ≈ −0.0012, in
 * v_ip: for i = 0, j = 1 it is orthogonal to v_ij = (2δ, 0), so h stays
 * 1/2, and no other band of points 0 and 1 comes near it). */
static void two_d_weights_take_at_most_max_members_points(void)
{
    enum { N = BW_BLEND_MAX_MEMBERS + 1 };
    float pts[2 * N], w[N];
    for (int k = 0; k < N; k++) {
        double a = 2.0 * M_PI * k / BW_BLEND_MAX_MEMBERS;
        pts[2 * k] = (float)cos(a);
        pts[2 * k + 1] = (float)sin(a);
        w[k] = -7.0f;
    }
    const float x = 0.5f * (pts[0] + pts[2]), y = 0.5f * (pts[1] + pts[3]);
    for (int m = 0; m < 2; m++) {
        CHECK_INT(bw_blend2d_weights(pts, N, x, y, (bw_blend2d_mode)m, w), BW_ERR_LIMIT);
        int touched = 0;
        for (int k = 0; k < N; k++) touched += w[k] != -7.0f;
        CHECK_INT(touched, 0);
    }
    for (int m = 0; m < 2; m++) {
        CHECK_INT(bw_blend2d_weights(pts, N - 1, x, y, (bw_blend2d_mode)m, w), BW_OK);
        CHECK_NEAR(w[0], 0.5, TOL);
        CHECK_NEAR(w[1], 0.5, TOL);
        for (int k = 2; k < N - 1; k++) CHECK_NEAR(w[k], 0.0, 0);
        CHECK_NEAR(sum_of(w, N - 1), 1.0, TOL);
    }
}

/* -------------------------------------------------------- 2D directional */

/* Idle I = (0,0), forward F = (0,1), right R = (1,0).
 *
 * Query P = (0, 0.5), |P| = 0.5:
 *   I (at origin), α = 1, θ_ip = 0, a = (0 + 1)/2 = 1/2:
 *     j = F: θ_ij = angle(P, F) = 0; v_ij = (0, 1/(1/2)) = (0, 2),
 *            v_ip = (0, 0.5/(1/2)) = (0, 1); h = 1 − 2/4 = 1/2
 *     j = R: θ_ij = angle(P, R) = π/2; v_ij = (π/2, 2), v_ip = (0, 1);
 *            h = 1 − 2/(π²/4 + 4) ≈ 0.691                  -> w_I = 1/2
 *   F, a = 1 for F-R and 1/2 for F-I:
 *     j = I (origin): α = 1, θ_ij = θ_ip = angle(P, F) = 0;
 *            v_ij = (0, −1/(1/2)) = (0, −2), v_ip = (0, (0.5 − 1)/(1/2)) = (0, −1);
 *            h = 1 − 2/4 = 1/2
 *     j = R: α = 2, θ_ij = π/2, θ_ip = angle F->P = 0; v_ij = (π, 0),
 *            v_ip = (0, −0.5); h = 1 − 0 = 1                -> w_F = 1/2
 *   R:
 *     j = F: α = 2, θ_ij = π/2; P is π/2 from R on F's side: θ_ip = +π/2;
 *            v_ij = (π, 0), v_ip = (π, −0.5); h = 1 − π²/π² = 0 -> w_R = 0
 *   -> I 1/2, F 1/2, R 0.
 *
 * Query at 45°, speed 1: P = (√½, √½):
 *   I: j = F: θ_ij = π/4, v_ij = (π/4, 2), v_ip = (0, 2);
 *      h = 1 − 4/(π²/16 + 4) = π²/(64 + π²) =: r ≈ 0.1336 (j = R the same)
 *   F: j = I: v_ij = (π/4, −2), v_ip = (π/4, 0); h = 1 − (π²/16)/(π²/16 + 4) ≈ 0.866
 *      j = R: θ_ij = π/2, θ_ip = π/4 toward R: v_ij = (π, 0), v_ip = (π/2, 0);
 *      h = 1 − (π²/2)/π² = 1/2                              -> w_F = 1/2
 *   R: the mirror image of F                                -> w_R = 1/2
 *   sum 1 + r -> F = R = 1/(2(1 + r)) ≈ 0.4411, I = r/(1 + r) ≈ 0.1179.
 *   (The raw influences of F and R are exactly 1/2 each; SPEC §6's idle
 *   rule — θ_ip = 0, θ_ij = angle(P, F) — leaves idle a small share
 *   between two authored directions, as Johansen's formulation does.)
 *
 * Query at 45°, speed 0.5: P = ½(√½, √½):
 *   I: h = 1 − 4·0.5/(π²/16 + 4) = (32 + π²)/(64 + π²)
 *   F: j = I: v_ip = (π/4, (0.5 − 1)/(1/2)) = (π/4, −1);
 *      h = 1 − (π²/16 + 2)/(π²/16 + 4) = 32/(64 + π²) ≈ 0.433 (< 1/2 from R)
 *   R: the same as F
 *   sum (96 + π²)/(64 + π²) -> I = (32 + π²)/(96 + π²), F = R = 32/(96 + π²).
 */
static void directional_matches_hand_worked_idle_forward_right(void)
{
    const float pts[6] = {0, 0, 0, 1, 1, 0}; /* idle, forward, right */
    float w[3];
    CHECK_INT(bw_blend2d_weights(pts, 3, 0.0f, 0.5f, BW_BLEND2D_DIRECTIONAL, w), BW_OK);
    CHECK_NEAR(w[0], 0.5, TOL);
    CHECK_NEAR(w[1], 0.5, TOL);
    CHECK_NEAR(w[2], 0.0, TOL);

    const float s = (float)sqrt(0.5);
    double r = PI * PI / (64.0 + PI * PI);
    CHECK_INT(bw_blend2d_weights(pts, 3, s, s, BW_BLEND2D_DIRECTIONAL, w), BW_OK);
    CHECK_NEAR(w[0], r / (1.0 + r), TOL);
    CHECK_NEAR(w[1], 0.5 / (1.0 + r), TOL);
    CHECK_NEAR(w[2], 0.5 / (1.0 + r), TOL);
    CHECK_NEAR(w[1], w[2], 1e-6);

    CHECK_INT(bw_blend2d_weights(pts, 3, 0.5f * s, 0.5f * s, BW_BLEND2D_DIRECTIONAL, w), BW_OK);
    CHECK_NEAR(w[0], (32.0 + PI * PI) / (96.0 + PI * PI), TOL);
    CHECK_NEAR(w[1], 32.0 / (96.0 + PI * PI), TOL);
    CHECK_NEAR(w[2], 32.0 / (96.0 + PI * PI), TOL);

    /* Far outside along forward, P = (0, 3):
     *   I: j = F: v_ij = (0, 2), v_ip = (0, 6): h = 1 − 12/4 < 0       -> 0
     *   F: j = I: v_ij = (0, −2), v_ip = (0, 4): h = 3; j = R: v_ip = (0, 2),
     *      v_ij = (π, 0): h = 1                                        -> 1
     *   R: j = F: θ_ip = +π/2: v_ip = (π, 2): h = 1 − π²/π² = 0        -> 0 */
    CHECK_INT(bw_blend2d_weights(pts, 3, 0.0f, 3.0f, BW_BLEND2D_DIRECTIONAL, w), BW_OK);
    CHECK_NEAR(w[1], 1.0, TOL);

    /* On a sample / at the origin: that sample alone. */
    CHECK_INT(bw_blend2d_weights(pts, 3, 1.0f, 0.0f, BW_BLEND2D_DIRECTIONAL, w), BW_OK);
    CHECK_NEAR(w[2], 1.0, 0);
    CHECK_INT(bw_blend2d_weights(pts, 3, 0.0f, 0.0f, BW_BLEND2D_DIRECTIONAL, w), BW_OK);
    CHECK_NEAR(w[0], 1.0, 0);
}

static void directional_blends_by_angle_not_distance(void)
{
    float w[4];
    /* Forward F = (0,1), right R = (1,0), no idle; P at 30° from F toward
     * R, speed 1: P = (sin 30°, cos 30°).
     *   F: θ_ij = π/2, θ_ip = π/6; v_ij = (π, 0), v_ip = (π/3, 0): h = 2/3
     *   R: θ_ip = π/3 toward F; v_ip = (2π/3, 0): h = 1/3
     *   -> 2/3 and 1/3, linear in angle. */
    const float fr[4] = {0, 1, 1, 0};
    CHECK_INT(bw_blend2d_weights(fr, 2, 0.5f, (float)(sqrt(3.0) / 2), BW_BLEND2D_DIRECTIONAL, w), BW_OK);
    CHECK_NEAR(w[0], 2.0 / 3.0, TOL);
    CHECK_NEAR(w[1], 1.0 / 3.0, TOL);
    /* The cartesian result differs: F: (P − F)·(R − F) = 0.5 + (1 − √3/2)
     * = 1.5 − √3/2, h_FR = 1 − that/2 = 0.25 + √3/4 ≈ 0.683; R gets 1 − h_FR. */
    CHECK_INT(bw_blend2d_weights(fr, 2, 0.5f, (float)(sqrt(3.0) / 2), BW_BLEND2D_CARTESIAN, w), BW_OK);
    CHECK_NEAR(w[0], 0.25 + sqrt(3.0) / 4, TOL);

    /* Same direction, two speeds: walk (0,1.5), run (0,4); P = (0, 2.75).
     * θ = 0, a = 2.75: v_ij = (0, 2.5/2.75), v_ip = (0, 1.25/2.75):
     * h = 1 − 1.25/2.5 = 1/2 both ways -> 1/2 each. */
    const float wr[4] = {0, 1.5f, 0, 4};
    CHECK_INT(bw_blend2d_weights(wr, 2, 0.0f, 2.75f, BW_BLEND2D_DIRECTIONAL, w), BW_OK);
    CHECK_NEAR(w[0], 0.5, TOL);
    CHECK_NEAR(w[1], 0.5, TOL);

    /* Nearly opposite samples use the unsigned angle: F = (0,1), B = (0,−1),
     * query right (1,0): θ_ij = π, θ_ip = π/2; v_ij = (2π, 0), v_ip = (π, 0):
     * h = 1/2 both ways -> 1/2 each; left (−1,0) likewise. */
    const float fb[4] = {0, 1, 0, -1};
    CHECK_INT(bw_blend2d_weights(fb, 2, 1.0f, 0.0f, BW_BLEND2D_DIRECTIONAL, w), BW_OK);
    CHECK_NEAR(w[0], 0.5, TOL);
    CHECK_NEAR(w[1], 0.5, TOL);
    CHECK_INT(bw_blend2d_weights(fb, 2, -1.0f, 0.0f, BW_BLEND2D_DIRECTIONAL, w), BW_OK);
    CHECK_NEAR(w[0], 0.5, TOL);
    CHECK_NEAR(w[1], 0.5, TOL);
}

static void directional_weighs_angle_twice_and_signs_it(void)
{
    float w[3];
    const double pi2 = PI * PI;
    /* Different speeds, so α matters: F = (0,1), R2 = (2,0); P at 45°,
     * speed 1.2. a = (1 + 2)/2 = 1.5, θ_ij = π/2, θ_ip = π/4 either way.
     *   F:  v_ij = (2·π/2, (2 − 1)/1.5) = (π, 2/3)
     *       v_ip = (2·π/4, (1.2 − 1)/1.5) = (π/2, 2/15)
     *       h = 1 − (π²/2 + 4/45)/(π² + 4/9)
     *   R2: v_ij = (π, −2/3), v_ip = (π/2, (1.2 − 2)/1.5) = (π/2, −8/15)
     *       h = 1 − (π²/2 + 16/45)/(π² + 4/9)
     *   The two sum to 2 − (π² + 20/45)/(π² + 4/9) = 1: already normalized. */
    const float fr2[4] = {0, 1, 2, 0};
    const float d = (float)(1.2 * sqrt(0.5));
    CHECK_INT(bw_blend2d_weights(fr2, 2, d, d, BW_BLEND2D_DIRECTIONAL, w), BW_OK);
    CHECK_NEAR(w[0], 1.0 - (pi2 / 2 + 4.0 / 45) / (pi2 + 4.0 / 9), TOL);
    CHECK_NEAR(w[1], 1.0 - (pi2 / 2 + 16.0 / 45) / (pi2 + 4.0 / 9), TOL);

    /* The same pair with P at the origin (no idle): θ_ip = θ_ij = π/2.
     *   F:  v_ip = (π, (0 − 1)/1.5) = (π, −2/3)
     *       h = 1 − (π² − 4/9)/(π² + 4/9) = (8/9)/(π² + 4/9) > 0
     *   R2: v_ip = (π, −4/3): h = 1 − (π² + 8/9)/(π² + 4/9) < 0 -> 0
     *   -> the slower sample F alone. */
    CHECK_INT(bw_blend2d_weights(fr2, 2, 0.0f, 0.0f, BW_BLEND2D_DIRECTIONAL, w), BW_OK);
    CHECK_NEAR(w[0], 1.0, TOL);
    CHECK_NEAR(w[1], 0.0, TOL);

    /* θ_ip is signed toward p_j: F = (0,1), R = (1,0), BL = (−√½, −√½);
     * P at 30° left of F, speed 1: P = (−1/2, √3/2). All speeds 1, so only
     * angles count: h = 1 − θ_ip/θ_ij.
     *   F:  j = R:  P is on the far side from R: θ_ip = −π/6, h = 4/3
     *       j = BL: θ_ij = 3π/4, P is toward BL: θ_ip = π/6, h = 7/9 -> 7/9
     *   BL: j = F:  θ_ij = 3π/4, P is 105° = 7π/12 from BL toward F: h = 2/9
     *       j = R:  θ_ij = 3π/4, P on the far side: h = 1 + 7/9         -> 2/9
     *   R:  j = F:  θ_ip = 2π/3 toward F: h = 1 − (2π/3)/(π/2) < 0      -> 0
     *   sum 1 -> F 7/9, BL 2/9, R 0. (An unsigned θ_ip would bound F by
     *   R's band at 2/3 and give F 3/4.) */
    const float s = (float)sqrt(0.5);
    const float frb[6] = {0, 1, 1, 0, -s, -s};
    CHECK_INT(bw_blend2d_weights(frb, 3, -0.5f, (float)(sqrt(3.0) / 2), BW_BLEND2D_DIRECTIONAL, w), BW_OK);
    CHECK_NEAR(w[0], 7.0 / 9.0, TOL);
    CHECK_NEAR(w[1], 0.0, TOL);
    CHECK_NEAR(w[2], 2.0 / 9.0, TOL);
}

static void directional_degenerate_layouts_are_defined(void)
{
    float w[4];
    /* No centre sample: F, R, B, L at speed 1, query at the origin. For F
     * and R: θ_ij = π/2, θ_ip = θ_ij (p is the origin), v_ij = (π, 0),
     * v_ip = (π, −1): h = 0; the same for every pair, so every influence is
     * 0 and the nearest sample wins — all four at distance 1 share. */
    const float ring[8] = {0, 1, 1, 0, 0, -1, -1, 0};
    CHECK_INT(bw_blend2d_weights(ring, 4, 0.0f, 0.0f, BW_BLEND2D_DIRECTIONAL, w), BW_OK);
    for (int i = 0; i < 4; i++) CHECK_NEAR(w[i], 0.25, TOL);

    /* The same ring with forward authored twice: still all influences 0,
     * four places at distance 1 share 1/4 each, and the two forwards split
     * theirs: 1/8, 1/8, 1/4, 1/4, 1/4. */
    const float ring2[10] = {0, 1, 0, 1, 1, 0, 0, -1, -1, 0};
    float w5[5];
    CHECK_INT(bw_blend2d_weights(ring2, 5, 0.0f, 0.0f, BW_BLEND2D_DIRECTIONAL, w5), BW_OK);
    CHECK_NEAR(w5[0], 0.125, TOL);
    CHECK_NEAR(w5[1], 0.125, TOL);
    for (int i = 2; i < 5; i++) CHECK_NEAR(w5[i], 0.25, TOL);

    /* Near-duplicates (forward at 1 and at 1.0000001, closer than the band
     * resolution, so they share as copies) with right: an input exactly on
     * the first still selects it alone. */
    const float near_dup[6] = {0, 1, 0, 1.0000001f, 1, 0};
    CHECK(near_dup[3] != near_dup[1]);
    CHECK_INT(bw_blend2d_weights(near_dup, 3, 0.0f, 1.0f, BW_BLEND2D_DIRECTIONAL, w), BW_OK);
    CHECK_NEAR(w[0], 1.0, 0);
    CHECK_NEAR(w[1], 0.0, 0);

    /* Two idles and forward; query (0, 0.5): one idle would get 1/2 (see
     * the hand-worked case above), so the two split it: 1/4, 1/4, F 1/2. */
    const float dup[6] = {0, 0, 0, 0, 0, 1};
    CHECK_INT(bw_blend2d_weights(dup, 3, 0.0f, 0.5f, BW_BLEND2D_DIRECTIONAL, w), BW_OK);
    CHECK_NEAR(w[0], 0.25, TOL);
    CHECK_NEAR(w[1], 0.25, TOL);
    CHECK_NEAR(w[2], 0.5, TOL);

    /* A single sample and two identical samples. */
    const float one[2] = {0, 2};
    CHECK_INT(bw_blend2d_weights(one, 1, 5.0f, -1.0f, BW_BLEND2D_DIRECTIONAL, w), BW_OK);
    CHECK_NEAR(w[0], 1.0, 0);
    const float twin[4] = {0, 2, 0, 2};
    CHECK_INT(bw_blend2d_weights(twin, 2, 5.0f, -1.0f, BW_BLEND2D_DIRECTIONAL, w), BW_OK);
    CHECK_NEAR(w[0], 0.5, TOL);
    CHECK_NEAR(w[1], 0.5, TOL);
}

/* ------------------------------------------------------------------ grid */

static void grid_is_bilinear_clamped_and_row_major(void)
{
    /* x {0, 1, 2}, y {0, 10}; input (0.5, 2.5): x weights 1/2 at x=0 and
     * x=1, y weights 3/4 at y=0 and 1/4 at y=10; member (ix, iy) is
     * [iy·3 + ix]:  [0] = 3/8, [1] = 3/8, [3] = 1/8, [4] = 1/8, others 0. */
    const float xs[3] = {0, 1, 2}, ys[2] = {0, 10};
    float w[6];
    CHECK_INT(bw_blend_grid_weights(xs, 3, ys, 2, 0.5f, 2.5f, w), BW_OK);
    const double expect[6] = {0.375, 0.375, 0, 0.125, 0.125, 0};
    for (int i = 0; i < 6; i++) CHECK_NEAR(w[i], expect[i], TOL);
    /* Clamped: (5, −3) -> corner (2, 0) = [2]; (−1, 20) -> (0, 10) = [3]. */
    CHECK_INT(bw_blend_grid_weights(xs, 3, ys, 2, 5.0f, -3.0f, w), BW_OK);
    CHECK_NEAR(w[2], 1.0, 0);
    CHECK_INT(bw_blend_grid_weights(xs, 3, ys, 2, -1.0f, 20.0f, w), BW_OK);
    CHECK_NEAR(w[3], 1.0, 0);
    /* Clamped on one axis only: (1.5, −5) -> 1/2 at [1], 1/2 at [2]. */
    CHECK_INT(bw_blend_grid_weights(xs, 3, ys, 2, 1.5f, -5.0f, w), BW_OK);
    CHECK_NEAR(w[1], 0.5, TOL);
    CHECK_NEAR(w[2], 0.5, TOL);
    /* Axis values in any order: x {2, 0, 1}, input (0.5, 0): the members at
     * x = 0 (ix 1) and x = 1 (ix 2) of row 0 get 1/2 each. */
    const float xu[3] = {2, 0, 1};
    CHECK_INT(bw_blend_grid_weights(xu, 3, ys, 2, 0.5f, 0.0f, w), BW_OK);
    CHECK_NEAR(w[1], 0.5, TOL);
    CHECK_NEAR(w[2], 0.5, TOL);
    CHECK_NEAR(w[0] + w[3] + w[4] + w[5], 0.0, 0);
    /* NaN input counts as 0: (NaN, NaN) -> (0, 0) = [0] alone. */
    CHECK_INT(bw_blend_grid_weights(xs, 3, ys, 2, NAN, NAN, w), BW_OK);
    CHECK_NEAR(w[0], 1.0, 0);
    /* 1 × 1 grid. */
    CHECK_INT(bw_blend_grid_weights(xs, 1, ys, 1, 7.0f, 7.0f, w), BW_OK);
    CHECK_NEAR(w[0], 1.0, 0);
    /* Errors leave the output alone. */
    float keep[6] = {-7, -7, -7, -7, -7, -7};
    const float ybad[2] = {0, NAN};
    CHECK_INT(bw_blend_grid_weights(xs, 3, ybad, 2, 0, 0, keep), BW_ERR_NON_FINITE);
    CHECK_INT(bw_blend_grid_weights(xs, 0, ys, 2, 0, 0, keep), BW_ERR_EMPTY);
    CHECK_INT(bw_blend_grid_weights(NULL, 3, ys, 2, 0, 0, keep), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_blend_grid_weights(xs, 3, ys, -2, 0, 0, keep), BW_ERR_INVALID_ARGUMENT);
    for (int i = 0; i < 6; i++) CHECK_NEAR(keep[i], -7, 0);
}

/* Blend trees (compiled trees, states, the walk/run phase example) are in
 * test_blendtree.c. */

/* ------------------------------------------------------ synchronized phase */

static void phase_helpers_handle_edge_cases(void)
{
    /* Negative dt runs backwards and wraps: 0.1 − 0.2 = −0.1 -> 0.9. */
    CHECK_NEAR(bw_blend_phase_advance(0.1f, -0.2f, 1.0f), 0.9, 1e-6);
    /* 2.5 cycles ahead of 0.25 -> 0.75. */
    CHECK_NEAR(bw_blend_phase_advance(0.25f, 5.0f, 2.0f), 0.75, 1e-6);
    /* Bad dt or cycle: the progress stands; bad progress counts as 0. */
    CHECK_NEAR(bw_blend_phase_advance(0.3f, NAN, 1.0f), 0.3, 1e-7);
    CHECK_NEAR(bw_blend_phase_advance(0.3f, INFINITY, 1.0f), 0.3, 1e-7);
    CHECK_NEAR(bw_blend_phase_advance(0.3f, 0.5f, 0.0f), 0.3, 1e-7);
    CHECK_NEAR(bw_blend_phase_advance(0.3f, 0.5f, -1.0f), 0.3, 1e-7);
    CHECK_NEAR(bw_blend_phase_advance(0.3f, 0.5f, NAN), 0.3, 1e-7);
    CHECK_NEAR(bw_blend_phase_advance(NAN, 0.25f, 1.0f), 0.25, 1e-7);
    float p = bw_blend_phase_advance(0.5f, 1e30f, 0.001f);
    CHECK(p >= 0.0f && p < 1.0f);
    /* 0.99999994 (the float below 1) + 4e-8 is 0.99999998 in double, which
     * rounds to 1.0f: the result must still wrap to [0, 1). */
    p = bw_blend_phase_advance(0.99999994f, 4e-8f, 1.0f);
    CHECK(p >= 0.0f && p < 1.0f);

    /* A reversed leaf samples from its end: progress 0.25 of 2 s -> 1.5 s. */
    bw_blend_leaf rev = {0, 0, 1.0f, -1.0f, 2.0f};
    CHECK_NEAR(bw_blend_leaf_time(&rev, 0.25f), 1.5, 1e-6);
    rev.rate = 1.0f;
    CHECK_NEAR(bw_blend_leaf_time(&rev, 0.25f), 0.5, 1e-6);
    CHECK_NEAR(bw_blend_leaf_time(&rev, NAN), 0.0, 0);
    CHECK_NEAR(bw_blend_leaf_time(NULL, 0.5f), 0.0, 0);

    /* Negligible weight or speed and zero length do not count:
     * only the 1 s leaf at rate 0.5 qualifies -> 2 s. */
    bw_blend_leaf mix[5] = {
        {0, 0, 0.5f, 0.5f, 1.0f},
        {1, 1, 0.00001f, 1.0f, 50.0f},
        {2, 2, 0.3f, 0.0f, 50.0f},
        {3, 3, 0.2f, 1.0f, 0.0f},
        {4, 4, 0.3f, 0.00001f, 1.0f}, /* would count as a 100000 s cycle */
    };
    CHECK_NEAR(bw_blend_cycle_duration(mix, 5), 2.0, 1e-6);
    CHECK_NEAR(bw_blend_cycle_duration(mix + 2, 3), 0.0, 0);
    CHECK_NEAR(bw_blend_cycle_duration(NULL, 3), 0.0, 0);
    /* Negative rates count by magnitude: 1 s at −2 -> 0.5 s. */
    bw_blend_leaf back = {0, 0, 1.0f, -2.0f, 1.0f};
    CHECK_NEAR(bw_blend_cycle_duration(&back, 1), 0.5, 1e-6);
}

/* ------------------------------------------------- randomized properties */

static uint32_t rng_state = 12345u;
static double rnd(void) /* uniform [0, 1) from a fixed-seed LCG */
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return (rng_state >> 8) / 16777216.0;
}
static float rnd_in(double lo, double hi) { return (float)(lo + (hi - lo) * rnd()); }

static bool weights_ok(const float *w, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(w[i]) || w[i] < 0.0f) return false;
        s += w[i];
    }
    return fabs(s - 1.0) <= 1e-5;
}

enum { MAXN = 16 };

static void random_layouts_give_valid_weights_and_exact_selection(void)
{
    float pts[2 * MAXN] = {0}, w[MAXN];
    int bad = 0, bad_exact = 0;
    for (int trial = 0; trial < 3000; trial++) {
        int n = 1 + (int)(rnd() * MAXN);
        for (int i = 0; i < n; i++) {
            double kind = rnd();
            if (kind < 0.1 && i > 0) { /* a duplicate of an earlier sample */
                int k = (int)(rnd() * i);
                pts[2 * i] = pts[2 * k];
                pts[2 * i + 1] = pts[2 * k + 1];
            } else if (kind < 0.15) { /* at the origin */
                pts[2 * i] = pts[2 * i + 1] = 0.0f;
            } else {
                pts[2 * i] = rnd_in(-3, 3);
                pts[2 * i + 1] = rnd_in(-3, 3);
            }
        }
        for (int m = 0; m < 2; m++) {
            float x = rnd_in(-8, 8), y = rnd_in(-8, 8);
            if (bw_blend2d_weights(pts, n, x, y, (bw_blend2d_mode)m, w) != BW_OK || !weights_ok(w, n)) bad++;
            /* An exact sample selects itself: the members at that position
             * hold all the weight. */
            int k = (int)(rnd() * n);
            if (bw_blend2d_weights(pts, n, pts[2 * k], pts[2 * k + 1], (bw_blend2d_mode)m, w) != BW_OK) {
                bad++;
                continue;
            }
            double at = 0;
            for (int i = 0; i < n; i++)
                if (pts[2 * i] == pts[2 * k] && pts[2 * i + 1] == pts[2 * k + 1]) at += w[i];
            if (fabs(at - 1.0) > 1e-6 || w[k] <= 0.0f) bad_exact++;
        }
        /* 1D and grid over the same random numbers. */
        float x = rnd_in(-8, 8);
        float r[MAXN];
        if (bw_blend1d_weights(pts, n, x, w, r) != BW_OK || !weights_ok(w, n)) bad++;
        for (int i = 0; i < n; i++)
            if (!isfinite(r[i]) || r[i] < 0.0f || r[i] > BW_BLEND_MAX_RATE) bad++;
        int nx = 1 + n / 4, ny = 1 + (n % 4);
        float gw[MAXN * 4];
        if (bw_blend_grid_weights(pts, nx, pts + nx, ny, x, rnd_in(-8, 8), gw) != BW_OK || !weights_ok(gw, nx * ny))
            bad++;
    }
    CHECK_INT(bad, 0);
    CHECK_INT(bad_exact, 0);
}

/* Continuity: moving the input by 1e-5 changes no weight by more than
 * 1e-2 (a jump anywhere would exceed it; the largest smooth slope in these
 * layouts is far below 1e3 per unit). Cartesian layouts keep samples at
 * least 0.25 apart; the directional layout is a full locomotion ring (idle,
 * 8 directions at 1.5 and at 4 m/s), sampled away from its origin. */
static double max_change(const float *pts, int n, bw_blend2d_mode m, float x, float y, float dx, float dy)
{
    float a[MAXN + 1], b[MAXN + 1];
    if (bw_blend2d_weights(pts, n, x, y, m, a) != BW_OK) return 1e9;
    if (bw_blend2d_weights(pts, n, x + dx, y + dy, m, b) != BW_OK) return 1e9;
    double worst = 0;
    for (int i = 0; i < n; i++) worst = fmax(worst, fabs((double)a[i] - b[i]));
    return worst;
}

static void small_input_moves_give_small_weight_changes(void)
{
    float pts[2 * (MAXN + 1)];
    int jumps = 0, trials = 0;
    for (int layout = 0; layout < 200; layout++) {
        int n = 2 + (int)(rnd() * (MAXN - 1));
        for (int i = 0; i < n; i++) {
            bool far;
            int tries = 0;
            do {
                pts[2 * i] = rnd_in(-3, 3);
                pts[2 * i + 1] = rnd_in(-3, 3);
                far = true;
                for (int k = 0; k < i; k++)
                    if (hypot(pts[2 * i] - pts[2 * k], pts[2 * i + 1] - pts[2 * k + 1]) < 0.25) far = false;
            } while (!far && ++tries < 100);
        }
        for (int q = 0; q < 20; q++, trials++) {
            float x = rnd_in(-6, 6), y = rnd_in(-6, 6);
            double ang = rnd() * 2 * PI;
            if (max_change(pts, n, BW_BLEND2D_CARTESIAN, x, y, (float)(1e-5 * cos(ang)), (float)(1e-5 * sin(ang))) >
                1e-2)
                jumps++;
        }
    }
    /* The directional ring. */
    int m = 0;
    pts[m++] = 0;
    pts[m++] = 0;
    for (int ring = 0; ring < 2; ring++)
        for (int d = 0; d < 8; d++) {
            double a = d * PI / 4, speed = ring ? 4.0 : 1.5;
            pts[m++] = (float)(speed * sin(a));
            pts[m++] = (float)(speed * cos(a));
        }
    int dir_jumps = 0;
    for (int q = 0; q < 4000; q++, trials++) {
        double a = rnd() * 2 * PI, speed = 0.05 + 6.0 * rnd(), step = rnd() * 2 * PI;
        float x = (float)(speed * sin(a)), y = (float)(speed * cos(a));
        if (max_change(pts, 17, BW_BLEND2D_DIRECTIONAL, x, y, (float)(1e-5 * cos(step)), (float)(1e-5 * sin(step))) >
            1e-2)
            dir_jumps++;
    }
    CHECK_INT(jumps, 0);
    CHECK_INT(dir_jumps, 0);
    CHECK(trials == 200 * 20 + 4000);
}

/* ------------------------------------------------------------ plot-blend */

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s) s[n] = '\0';
    fclose(f);
    return s;
}

static int count_of(const char *s, const char *needle)
{
    int k = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle)) k++;
    return k;
}

/* Every opening "<tag" has its own "/>" or "</tag>" before the next '<'
 * that is not part of it. */
static bool tags_balanced(const char *s, const char *tag)
{
    char open[32], close[32];
    snprintf(open, sizeof open, "<%s", tag);
    snprintf(close, sizeof close, "</%s>", tag);
    size_t ol = strlen(open);
    for (const char *p = strstr(s, open); p; p = strstr(p + 1, open)) {
        if (p[ol] != ' ' && p[ol] != '>' && p[ol] != '/') continue; /* a longer tag name */
        const char *end = strchr(p, '>');
        if (!end) return false;
        if (end[-1] == '/') continue;
        const char *c = strstr(end, close);
        const char *next = strstr(end, open);
        if (!c || (next && next < c)) return false;
    }
    return true;
}

static int run_command(const char *cmd)
{
    int status = system(cmd);
    if (status == -1 || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
}

static void plot_blend_writes_a_valid_svg(void)
{
    const char *out = BW_BINARY_DIR "/test_blendspace_plot.svg";
    remove(out);
    int rc = run_command("\"" BW_BINARY_DIR "/blendwerk\" plot-blend \"" BW_SOURCE_DIR
                         "/examples/locomotion_blend.lua\" --out \"" BW_BINARY_DIR "/test_blendspace_plot.svg\"");
    CHECK_INT(rc, 0);
    char *svg = read_all(out);
    CHECK(svg != NULL);
    if (!svg) return;
    CHECK(strncmp(svg, "<svg", 4) == 0 || strncmp(svg, "<?xml", 5) == 0);
    size_t n = strlen(svg);
    while (n && (svg[n - 1] == '\n' || svg[n - 1] == ' ')) n--;
    CHECK(n >= 6 && strncmp(svg + n - 6, "</svg>", 6) == 0);
    CHECK(tags_balanced(svg, "rect"));
    CHECK(tags_balanced(svg, "circle"));
    CHECK(tags_balanced(svg, "text"));
    CHECK_INT(count_of(svg, "<text"), count_of(svg, "</text>"));
    CHECK(count_of(svg, "<rect") > 100); /* heat-map cells */
    CHECK(count_of(svg, "<circle") >= 9);
    /* the example's sample names */
    const char *names[] = {"idle", "walk_f", "walk_b", "walk_l", "walk_r", "run_f", "run_b", "run_l", "run_r"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) CHECK_CONTAINS(svg, names[i]);
    free(svg);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* <g> elements nest: scanning in order, every "</g>" closes an open "<g"
 * and none is left open. */
static bool groups_nest(const char *s)
{
    int depth = 0;
    for (const char *p = strchr(s, '<'); p; p = strchr(p + 1, '<')) {
        if (strncmp(p, "<g ", 3) == 0 || strncmp(p, "<g>", 3) == 0) depth++;
        else if (strncmp(p, "</g>", 4) == 0 && --depth < 0) return false;
    }
    return depth == 0;
}

/* Every '&' starts one of XML's predefined entities (or a character
 * reference), so the text parses. */
static bool entities_ok(const char *s)
{
    static const char *const ents[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#"};
    for (const char *p = strchr(s, '&'); p; p = strchr(p + 1, '&')) {
        bool known = false;
        for (size_t i = 0; i < sizeof ents / sizeof ents[0] && !known; i++)
            known = strncmp(p, ents[i], strlen(ents[i])) == 0;
        if (!known) return false;
    }
    return true;
}

/* Write `spec_text` to a spec file, plot it at 8 × 8 cells and check the
 * SVG's structure: `count` samples give count + 1 panels (the combined one
 * and one per sample); every panel draws a dot per sample (all inside the
 * range), so (count + 1) × count circles; each name is written three times
 * (its label in the combined panel, its panel's title and its own label).
 * Returns the SVG (caller frees) or NULL. */
static char *plot_spec(const char *tag, const char *spec_text, int count, const char *mode, const char *const *names)
{
    char spec[512], out[512], cmd[1600];
    snprintf(spec, sizeof spec, "%s/test_blendspace_%s.lua", BW_BINARY_DIR, tag);
    snprintf(out, sizeof out, "%s/test_blendspace_%s.svg", BW_BINARY_DIR, tag);
    write_text(spec, spec_text);
    remove(out);
    snprintf(cmd, sizeof cmd, "\"%s/blendwerk\" plot-blend \"%s\" --out \"%s\" --res 8", BW_BINARY_DIR, spec, out);
    CHECK_INT(run_command(cmd), 0);
    char *svg = read_all(out);
    CHECK(svg != NULL);
    if (!svg) return NULL;
    CHECK(strncmp(svg, "<svg", 4) == 0);
    size_t n = strlen(svg);
    while (n && (svg[n - 1] == '\n' || svg[n - 1] == ' ')) n--;
    CHECK(n >= 6 && strncmp(svg + n - 6, "</svg>", 6) == 0);
    CHECK_INT(count_of(svg, "<svg"), 1);
    CHECK(tags_balanced(svg, "rect"));
    CHECK(tags_balanced(svg, "circle"));
    CHECK(tags_balanced(svg, "text"));
    CHECK(groups_nest(svg));
    CHECK_INT(count_of(svg, "<text"), count_of(svg, "</text>"));
    CHECK_INT(count_of(svg, "<g"), count_of(svg, "</g>"));
    CHECK(entities_ok(svg));
    CHECK_INT(count_of(svg, "<g transform="), count + 1);
    CHECK_INT(count_of(svg, "<circle"), (count + 1) * count);
    char title[64];
    snprintf(title, sizeof title, "%s blend space, %d samples", mode, count);
    CHECK_CONTAINS(svg, title);
    for (int i = 0; i < count; i++) {
        char label[96];
        snprintf(label, sizeof label, ">%s</text>", names[i]);
        CHECK_INT(count_of(svg, label), 3);
    }
    remove(spec);
    return svg;
}

static void plot_blend_draws_cartesian_and_grid_modes(void)
{
    /* cartesian: a triangle, one name full of XML's special characters */
    static const char *const tri_names[] = {"idle", "a&amp;b&lt;c&gt;d&quot;e&apos;f", "strafe"};
    char *svg = plot_spec("cartesian",
                          "return { mode = 'cartesian', range = {-1, 3, -1, 3}, samples = {\n"
                          "  {name = 'idle', x = 0, y = 0},\n"
                          "  {name = [[a&b<c>d\"e'f]], x = 2, y = 0},\n"
                          "  {name = 'strafe', x = 0, y = 2} } }\n",
                          3, "cartesian", tri_names);
    if (svg) {
        /* the raw name never reaches the file */
        CHECK(strstr(svg, "a&b") == NULL);
        CHECK(strstr(svg, "<c>") == NULL);
        CHECK(strstr(svg, "d\"e") == NULL);
        free(svg);
    }

    /* grid: a 2 × 2 lattice given out of order (x {-1, 1} × y {0, 2}) */
    static const char *const grid_names[] = {"ru", "ld", "lu", "rd"};
    svg = plot_spec("grid",
                    "return { mode = 'grid', range = {-2, 2, -1, 3}, samples = {\n"
                    "  {name = 'ru', x = 1, y = 2}, {name = 'ld', x = -1, y = 0},\n"
                    "  {name = 'lu', x = -1, y = 2}, {name = 'rd', x = 1, y = 0} } }\n",
                    4, "grid", grid_names);
    if (svg) {
        /* each sample's own panel is dark somewhere (weight 1 at its corner,
         * #08306b) and white somewhere (weight 0 at the opposite one) */
        CHECK(count_of(svg, "fill=\"#08306b\"") >= 4);
        free(svg);
    }

    /* grid mode refuses a lattice with a hole */
    char spec[512], cmd[1600];
    snprintf(spec, sizeof spec, "%s/test_blendspace_hole.lua", BW_BINARY_DIR);
    write_text(spec, "return { mode = 'grid', samples = {\n"
                     "  {name = 'a', x = 0, y = 0}, {name = 'b', x = 1, y = 0}, {name = 'c', x = 0, y = 1} } }\n");
    snprintf(cmd, sizeof cmd, "\"%s/blendwerk\" plot-blend \"%s\" --out \"%s/test_blendspace_hole.svg\" 2>/dev/null",
             BW_BINARY_DIR, spec, BW_BINARY_DIR);
    CHECK_INT(run_command(cmd), 1);
    remove(spec);
}

static void plot_blend_reports_bad_specs_with_file_and_line(void)
{
    const char *spec = BW_BINARY_DIR "/test_blendspace_bad.lua";
    const char *log = BW_BINARY_DIR "/test_blendspace_bad.log";
    const char *cmd = "\"" BW_BINARY_DIR "/blendwerk\" plot-blend \"" BW_BINARY_DIR
                      "/test_blendspace_bad.lua\" --out \"" BW_BINARY_DIR "/test_blendspace_bad.svg\" 2>\"" BW_BINARY_DIR
                      "/test_blendspace_bad.log\"";

    /* A syntax error on line 3. */
    write_text(spec, "return {\n  mode = 'cartesian',\n  samples = { {name = 'a' x = 0, y = 0} },\n}\n");
    CHECK_INT(run_command(cmd), 1);
    char *msg = read_all(log);
    CHECK_CONTAINS(msg, "test_blendspace_bad.lua:3:");
    free(msg);

    /* A runtime error on line 2. */
    write_text(spec, "local t = {}\nreturn t.missing.field\n");
    CHECK_INT(run_command(cmd), 1);
    msg = read_all(log);
    CHECK_CONTAINS(msg, "test_blendspace_bad.lua:2:");
    free(msg);

    /* A well-formed file with a bad table: a sample without y. */
    write_text(spec, "return { samples = { {name = 'a', x = 0, y = 0}, {name = 'b', x = 1} } }\n");
    CHECK_INT(run_command(cmd), 1);
    msg = read_all(log);
    CHECK_CONTAINS(msg, "test_blendspace_bad.lua");
    CHECK_CONTAINS(msg, "samples[2]");
    free(msg);

    /* No samples, an unknown mode, a sandboxed library, a runaway loop. */
    write_text(spec, "return { samples = {} }\n");
    CHECK_INT(run_command(cmd), 1);
    write_text(spec, "return { mode = 'polar', samples = { {name='a', x=0, y=0} } }\n");
    CHECK_INT(run_command(cmd), 1);
    msg = read_all(log);
    CHECK_CONTAINS(msg, "mode");
    free(msg);
    write_text(spec, "os.exit(0)\n");
    CHECK_INT(run_command(cmd), 1);
    write_text(spec, "while true do end\n");
    CHECK_INT(run_command(cmd), 1);

    /* A missing file. */
    remove(spec);
    CHECK_INT(run_command(cmd), 1);
    msg = read_all(log);
    CHECK_CONTAINS(msg, "test_blendspace_bad.lua");
    free(msg);

    /* Usage errors exit 2. */
    CHECK_INT(run_command("\"" BW_BINARY_DIR "/blendwerk\" plot-blend 2>/dev/null"), 2);
    remove(log);
}

/* The directional mode's per-call cache (magnitudes, angles to the query,
 * pair angles) holds the very doubles the straightforward path computes
 * where it uses them: the weights are identical to the bit, for random
 * layouts with duplicates and idles at the origin, queries anywhere
 * (origin, exact samples, far away), 1 to 16 samples (the cached sizes). */
static void directional_cache_gives_the_uncached_weights_exactly(void)
{
    float pts[32], a[16], b[16];
    int differ = 0, runs = 0;
    for (int trial = 0; trial < 4000; trial++) {
        int n = 1 + trial % 16;
        for (int i = 0; i < n; i++) {
            double kind = rnd();
            if (kind < 0.1 && i > 0) {
                int k = (int)(rnd() * i);
                pts[2 * i] = pts[2 * k];
                pts[2 * i + 1] = pts[2 * k + 1];
            } else if (kind < 0.2) {
                pts[2 * i] = pts[2 * i + 1] = 0.0f;
            } else {
                pts[2 * i] = rnd_in(-3, 3);
                pts[2 * i + 1] = rnd_in(-3, 3);
            }
        }
        float x = rnd_in(-5, 5), y = rnd_in(-5, 5);
        if (trial % 7 == 0) x = y = 0.0f;
        if (trial % 11 == 0) {
            int k = (int)(rnd() * n);
            x = pts[2 * k] * 0.5f;
            y = pts[2 * k + 1] * 0.5f;
        }
        bw_blend2d_weights_checked(pts, n, x, y, BW_BLEND2D_DIRECTIONAL, a);
        bw_blend2d_weights_uncached(pts, n, x, y, BW_BLEND2D_DIRECTIONAL, b);
        runs++;
        if (memcmp(a, b, (size_t)n * sizeof *a) != 0) differ++;
    }
    CHECK_INT(runs, 4000);
    CHECK_INT(differ, 0);
}

int main(void)
{
    RUN(one_d_interpolates_between_neighbours_in_member_order);
    RUN(one_d_clamps_and_scales_the_end_rate);
    RUN(one_d_duplicates_share_their_threshold);
    RUN(one_d_bad_input_is_an_error_or_a_defined_result);
    RUN(cartesian_gradient_band_matches_hand_worked_triangle);
    RUN(cartesian_degenerate_layouts_are_defined);
    RUN(two_d_bad_input_is_an_error_or_a_defined_result);
    RUN(two_d_weights_take_at_most_max_members_points);
    RUN(directional_matches_hand_worked_idle_forward_right);
    RUN(directional_blends_by_angle_not_distance);
    RUN(directional_weighs_angle_twice_and_signs_it);
    RUN(directional_degenerate_layouts_are_defined);
    RUN(grid_is_bilinear_clamped_and_row_major);
    RUN(phase_helpers_handle_edge_cases);
    RUN(random_layouts_give_valid_weights_and_exact_selection);
    RUN(directional_cache_gives_the_uncached_weights_exactly);
    RUN(small_input_moves_give_small_weight_changes);
    RUN(plot_blend_writes_a_valid_svg);
    RUN(plot_blend_draws_cartesian_and_grid_modes);
    RUN(plot_blend_reports_bad_specs_with_file_and_line);
    return check_summary();
}
