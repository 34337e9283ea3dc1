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

/* One block of four joints, lane by lane: the portable path. */
static inline void bw_grid_block_portable(const float *a, const float *b, float u, const float *ca, const float *cb,
                              float (*res)[4])
{
    const float v = 1.0f - u;
    for (int l = 0; l < 4; l++) {
        for (int c = 0; c < 3; c++) {
            res[c][l] = a[c * 4 + l] * v + b[c * 4 + l] * u;
            res[7 + c][l] = a[(7 + c) * 4 + l] * v + b[(7 + c) * 4 + l] * u;
        }
        float qa[4], qb[4], q[4];
        for (int c = 0; c < 4; c++) {
            qa[c] = a[(3 + c) * 4 + l];
            qb[c] = b[(3 + c) * 4 + l];
        }
        bw_grid_slerp(qa, qb, ca, cb, u, q);
        for (int c = 0; c < 4; c++) res[3 + c][l] = q[c];
        float pw = a[40 + l] * v + b[40 + l] * u, mw = a[44 + l] * v + b[44 + l] * u;
        res[10][l] = bw_coverage(pw, mw);
    }
}

#if defined(__SSE2__) && !defined(BW_NO_SIMD)
#include <emmintrin.h>
#define BW_GRID_SSE 1
/* The same block with SSE: four joints per instruction. Lanes whose key
 * rotations are more than 92° apart (outside the series' range) are
 * redone by the scalar slerp. */
static inline __attribute__((always_inline)) void bw_grid_block_sse(const float *a, const float *b, float u,
                                                                    const float *ca, const float *cb,
                           float (*res)[4])
{
    const __m128 vu = _mm_set1_ps(u), vv = _mm_set1_ps(1.0f - u);
#define LERP(c) _mm_add_ps(_mm_mul_ps(_mm_load_ps(a + (c) * 4), vv), _mm_mul_ps(_mm_load_ps(b + (c) * 4), vu))
    for (int c = 0; c < 3; c++) {
        _mm_store_ps(res[c], LERP(c));
        _mm_store_ps(res[7 + c], LERP(7 + c));
    }
    __m128 ax = _mm_load_ps(a + 12), ay = _mm_load_ps(a + 16), az = _mm_load_ps(a + 20), aw = _mm_load_ps(a + 24);
    __m128 bx = _mm_load_ps(b + 12), by = _mm_load_ps(b + 16), bz = _mm_load_ps(b + 20), bw = _mm_load_ps(b + 24);
    __m128 d = _mm_add_ps(_mm_add_ps(_mm_mul_ps(ax, bx), _mm_mul_ps(ay, by)),
                          _mm_add_ps(_mm_mul_ps(az, bz), _mm_mul_ps(aw, bw)));
    const __m128 sign_bit = _mm_set1_ps(-0.0f);
    __m128 sgn = _mm_and_ps(d, sign_bit); /* hemisphere: flip b where the dot is negative */
    d = _mm_xor_ps(d, sgn);
    int slow = _mm_movemask_ps(_mm_cmplt_ps(d, _mm_set1_ps(BW_SLERP_SERIES_MIN_COS)));
    __m128 x = _mm_sub_ps(_mm_min_ps(d, _mm_set1_ps(1.0f)), _mm_set1_ps(1.0f));
    __m128 ka = _mm_set1_ps(ca[BW_SLERP_SERIES_TERMS - 1]), kb = _mm_set1_ps(cb[BW_SLERP_SERIES_TERMS - 1]);
    for (int i = BW_SLERP_SERIES_TERMS - 2; i >= 0; i--) {
        ka = _mm_add_ps(_mm_mul_ps(ka, x), _mm_set1_ps(ca[i]));
        kb = _mm_add_ps(_mm_mul_ps(kb, x), _mm_set1_ps(cb[i]));
    }
    kb = _mm_xor_ps(kb, sgn);
    __m128 rx = _mm_add_ps(_mm_mul_ps(ka, ax), _mm_mul_ps(kb, bx));
    __m128 ry = _mm_add_ps(_mm_mul_ps(ka, ay), _mm_mul_ps(kb, by));
    __m128 rz = _mm_add_ps(_mm_mul_ps(ka, az), _mm_mul_ps(kb, bz));
    __m128 rw = _mm_add_ps(_mm_mul_ps(ka, aw), _mm_mul_ps(kb, bw));
    __m128 n2 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(rx, rx), _mm_mul_ps(ry, ry)),
                           _mm_add_ps(_mm_mul_ps(rz, rz), _mm_mul_ps(rw, rw)));
    __m128 n = _mm_sub_ps(_mm_set1_ps(1.5f), _mm_mul_ps(_mm_set1_ps(0.5f), n2));
    _mm_store_ps(res[3], _mm_mul_ps(rx, n));
    _mm_store_ps(res[4], _mm_mul_ps(ry, n));
    _mm_store_ps(res[5], _mm_mul_ps(rz, n));
    _mm_store_ps(res[6], _mm_mul_ps(rw, n));
    __m128 cov = _mm_mul_ps(LERP(10), _mm_sub_ps(_mm_set1_ps(1.0f), LERP(11)));
    /* max(NaN, 0) is 0: a NaN coverage becomes 0 */
    _mm_store_ps(res[10], _mm_min_ps(_mm_max_ps(cov, _mm_setzero_ps()), _mm_set1_ps(1.0f)));
#undef LERP
    for (int l = 0; slow && l < 4; l++, slow >>= 1) {
        if (!(slow & 1)) continue;
        float qa[4] = {a[12 + l], a[16 + l], a[20 + l], a[24 + l]}, qb[4] = {b[12 + l], b[16 + l], b[20 + l], b[24 + l]};
        float q[4];
        bw_quat_slerp(qa, qb, u, q);
        for (int c = 0; c < 4; c++) res[3 + c][l] = q[c];
    }
}
#endif

#endif
