/* grid_sample.h - the uniform-grid sampling kernels (layout in
 * clip_internal.h), shared by sample.c (grid → pose) and mix.c (grid →
 * mixer accumulators without an intermediate pose), through the
 * per-path kernels of kernels.h. Private. */
#ifndef BW_GRID_SAMPLE_H
#define BW_GRID_SAMPLE_H

#include "bw_math.h"
#include "clip_internal.h"

/* Slerp with the series coefficients of (1 − u) and u precomputed; the
 * same result as bw_quat_slerp to float precision (the renormalization is
 * one Newton step, exact enough since the series result is unit to 1e-7). */
static inline void bw_grid_slerp(const float *a, const float *b, const float *ca, const float *cb, float u,
                                float *out)
{
    float d = bw_quat_dot(a, b);
    float sign = d < 0.0f ? -1.0f : 1.0f;
    d *= sign;
    if (d < BW_SLERP_SERIES_MIN_COS) {
        bw_quat_slerp(a, b, u, out);
        return;
    }
    if (d > 1.0f) d = 1.0f;
    float ka = bw_slerp_series_eval(ca, d), kb = sign * bw_slerp_series_eval(cb, d);
    float r0 = ka * a[0] + kb * b[0], r1 = ka * a[1] + kb * b[1];
    float r2 = ka * a[2] + kb * b[2], r3 = ka * a[3] + kb * b[3];
    float n = 1.5f - 0.5f * (r0 * r0 + r1 * r1 + r2 * r2 + r3 * r3);
    out[0] = r0 * n; out[1] = r1 * n; out[2] = r2 * n; out[3] = r3 * n;
}

/* Segment of the grid for `time`: row k and the fraction u toward k + 1. */
static inline void bw_grid_segment(const bw_clip_grid *g, float time, int *out_k, float *out_u)
{
    const int last = g->key_count - 1;
    float f = (time - g->start) * g->inv_spacing, u;
    int k;
    if (!(f > 0.0f)) { /* before the first key (or NaN): hold row 0 */
        k = 0;
        u = 0.0f;
    } else if (f >= (float)last) { /* after the last: hold the last row */
        k = last - 1;
        u = 1.0f;
    } else {
        /* the grid guess, then corrected against the stored key times so a
         * time exactly on a key gives that key (as the per-track search
         * does) despite float rounding of times far from 0 */
        k = (int)f;
        if (k > last - 1) k = last - 1;
        if (time < g->times[k] && k > 0) k--;
        else if (time >= g->times[k + 1] && k + 1 < last) k++;
        u = (time - g->times[k]) / (g->times[k + 1] - g->times[k]);
        u = bw_clamp01(u);
    }
    *out_k = k;
    *out_u = u;
}

/* Four lanes of a grid block (a, b: the first lane of the four, component
 * stride BW_GRID_LANES), lane by lane: the portable path and the
 * reference for the vector kernel in kernels.h (grid_sample_block). */
static inline void bw_grid_block_portable(const float *a, const float *b, float u, const float *ca, const float *cb,
                              float (*res)[4])
{
    const float v = 1.0f - u;
    for (int l = 0; l < 4; l++) {
        for (int c = 0; c < 3; c++) {
            res[c][l] = a[c * BW_GRID_LANES + l] * v + b[c * BW_GRID_LANES + l] * u;
            res[7 + c][l] = a[(7 + c) * BW_GRID_LANES + l] * v + b[(7 + c) * BW_GRID_LANES + l] * u;
        }
        float qa[4], qb[4], q[4];
        for (int c = 0; c < 4; c++) {
            qa[c] = a[(3 + c) * BW_GRID_LANES + l];
            qb[c] = b[(3 + c) * BW_GRID_LANES + l];
        }
        bw_grid_slerp(qa, qb, ca, cb, u, q);
        for (int c = 0; c < 4; c++) res[3 + c][l] = q[c];
        float pw = a[10 * BW_GRID_LANES + l] * v + b[10 * BW_GRID_LANES + l] * u;
        float mw = a[11 * BW_GRID_LANES + l] * v + b[11 * BW_GRID_LANES + l] * u;
        res[10][l] = bw_coverage(pw, mw);
    }
}


#endif
