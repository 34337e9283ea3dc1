/* kernels.h - the one source of the per-frame kernels: the mixer's joint
 * pass, uniform-grid sampling and local-to-model. Each path's unit
 * (simd_<path>.c) defines KERNEL(name) to suffix the names, defines
 * KERNEL_PORTABLE for plain scalar C, then includes this file once; the
 * wide units are the same code compiled with AVX2+FMA or AVX-512 flags
 * (per file, never globally), which turns every 4-lane operation below
 * into its VEX/EVEX form with fused multiply-adds. Private. */
#include <stddef.h>
#include <stdint.h>

#include "affine.h"
#include "clip_internal.h"
#include "grid_sample.h"
#include "simd.h"

#if !defined(KERNEL_PORTABLE) && (defined(__SSE__) || defined(_M_X64))
#include <xmmintrin.h>
#define KERNEL_SSE 1
#endif

#if defined(BW_GRID_SSE) && !defined(KERNEL_PORTABLE)
#define GRID_BLOCK bw_grid_block_sse
#else
#define GRID_BLOCK bw_grid_block_portable
#endif

/* ======== the mixer (SPEC §5; the rule is described in mix.c) ======== */

/* The vector helpers must inline into the block loop; a call per
 * operation would cost more than the operation. */
#if defined(__GNUC__)
#define HOT_INLINE static inline __attribute__((always_inline))
#else
#define HOT_INLINE static inline
#endif

/* ---- 4-lane vectors ----
 * With GCC/Clang these are vector-extension types (SSE on x86, NEON on
 * ARM); elsewhere plain arrays running the same operations lane by lane
 * (define BW_NO_VECTOR_EXT to build that path with GCC/Clang too, e.g. to
 * test it). Masks are int lanes of all ones (true) or zero. */
#if defined(__GNUC__) && !defined(KERNEL_PORTABLE)
typedef float v4 __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));
HOT_INLINE v4 v4_set1(float x) { return (v4){x, x, x, x}; }
HOT_INLINE v4 v4_add(v4 a, v4 b) { return a + b; }
HOT_INLINE v4 v4_sub(v4 a, v4 b) { return a - b; }
HOT_INLINE v4 v4_mul(v4 a, v4 b) { return a * b; }
HOT_INLINE v4 v4_div(v4 a, v4 b) { return a / b; }
HOT_INLINE v4i v4_gt(v4 a, v4 b) { return (v4i)(a > b); }
HOT_INLINE v4i v4_lt(v4 a, v4 b) { return (v4i)(a < b); }
HOT_INLINE v4i v4_eq(v4 a, v4 b) { return (v4i)(a == b); }
HOT_INLINE v4i v4i_and(v4i a, v4i b) { return a & b; }
HOT_INLINE v4i v4i_or(v4i a, v4i b) { return a | b; }
HOT_INLINE v4 v4_select(v4i m, v4 a, v4 b) { return (v4)(((v4i)a & m) | ((v4i)b & ~m)); }
HOT_INLINE v4 v4_mask(v4i m, v4 a) { return (v4)((v4i)a & m); } /* a where m, else +0 */
HOT_INLINE int v4i_any(v4i m)
{
#if defined(KERNEL_SSE)
    return _mm_movemask_ps((__m128)m) != 0;
#else
    return (m[0] | m[1] | m[2] | m[3]) != 0;
#endif
}
HOT_INLINE int v4i_all(v4i m)
{
#if defined(KERNEL_SSE)
    return _mm_movemask_ps((__m128)m) == 0xf;
#else
    return (m[0] & m[1] & m[2] & m[3]) != 0;
#endif
}
HOT_INLINE v4 v4_sqrt(v4 a)
{
#if defined(KERNEL_SSE)
    return (v4)_mm_sqrt_ps((__m128)a);
#else
    v4 r;
    for (int i = 0; i < 4; i++) r[i] = sqrtf(a[i]);
    return r;
#endif
}
#if defined(__clang__)
#define V4_SHUFFLE(a, b, i0, i1, i2, i3) __builtin_shufflevector((a), (b), i0, i1, i2, i3)
#else
#define V4_SHUFFLE(a, b, i0, i1, i2, i3) __builtin_shuffle((a), (b), (v4i){i0, i1, i2, i3})
#endif
#else /* portable fallback */
typedef struct v4 {
    float f[4];
} v4;
typedef struct v4i {
    int32_t i[4];
} v4i;
#define V4_LANES(expr)                                                                                                 \
    for (int k = 0; k < 4; k++) expr;                                                                                  \
    return r
HOT_INLINE v4 v4_set1(float x) { v4 r; V4_LANES(r.f[k] = x); }
HOT_INLINE v4 v4_add(v4 a, v4 b) { v4 r; V4_LANES(r.f[k] = a.f[k] + b.f[k]); }
HOT_INLINE v4 v4_sub(v4 a, v4 b) { v4 r; V4_LANES(r.f[k] = a.f[k] - b.f[k]); }
HOT_INLINE v4 v4_mul(v4 a, v4 b) { v4 r; V4_LANES(r.f[k] = a.f[k] * b.f[k]); }
HOT_INLINE v4 v4_div(v4 a, v4 b) { v4 r; V4_LANES(r.f[k] = a.f[k] / b.f[k]); }
HOT_INLINE v4i v4_gt(v4 a, v4 b) { v4i r; V4_LANES(r.i[k] = a.f[k] > b.f[k] ? -1 : 0); }
HOT_INLINE v4i v4_lt(v4 a, v4 b) { v4i r; V4_LANES(r.i[k] = a.f[k] < b.f[k] ? -1 : 0); }
HOT_INLINE v4i v4_eq(v4 a, v4 b) { v4i r; V4_LANES(r.i[k] = a.f[k] == b.f[k] ? -1 : 0); }
HOT_INLINE v4i v4i_and(v4i a, v4i b) { v4i r; V4_LANES(r.i[k] = a.i[k] & b.i[k]); }
HOT_INLINE v4i v4i_or(v4i a, v4i b) { v4i r; V4_LANES(r.i[k] = a.i[k] | b.i[k]); }
HOT_INLINE v4 v4_select(v4i m, v4 a, v4 b) { v4 r; V4_LANES(r.f[k] = m.i[k] ? a.f[k] : b.f[k]); }
HOT_INLINE v4 v4_mask(v4i m, v4 a) { v4 r; V4_LANES(r.f[k] = m.i[k] ? a.f[k] : 0.0f); }
HOT_INLINE int v4i_any(v4i m) { return (m.i[0] | m.i[1] | m.i[2] | m.i[3]) != 0; }
HOT_INLINE int v4i_all(v4i m) { return (m.i[0] & m.i[1] & m.i[2] & m.i[3]) != 0; }
HOT_INLINE v4 v4_sqrt(v4 a) { v4 r; V4_LANES(r.f[k] = sqrtf(a.f[k])); }
static inline v4 v4_shuffle(v4 a, v4 b, int i0, int i1, int i2, int i3)
{
    const float *ab[2] = {a.f, b.f};
    v4 r = {{ab[i0 >> 2][i0 & 3], ab[i1 >> 2][i1 & 3], ab[i2 >> 2][i2 & 3], ab[i3 >> 2][i3 & 3]}};
    return r;
}
#define V4_SHUFFLE(a, b, i0, i1, i2, i3) v4_shuffle((a), (b), i0, i1, i2, i3)
#endif

/* Unaligned loads and stores through memcpy: defined behaviour, one
 * unaligned vector move when compiled. */
HOT_INLINE v4 v4_load(const void *p)
{
    v4 v;
    memcpy(&v, p, sizeof v);
    return v;
}
HOT_INLINE void v4_store(void *p, v4 v) { memcpy(p, &v, sizeof v); }
HOT_INLINE v4 v4_madd(v4 a, v4 ka, v4 b, v4 kb) { return v4_add(v4_mul(a, ka), v4_mul(b, kb)); }
HOT_INLINE v4 v4_min1(v4 a) { return v4_select(v4_lt(a, v4_set1(1.0f)), a, v4_set1(1.0f)); }
/* clamp to [0, 1]; NaN fails the comparison and becomes 0 */
HOT_INLINE v4 v4_clamp01(v4 a) { return v4_min1(v4_select(v4_gt(a, v4_set1(0.0f)), a, v4_set1(0.0f))); }

/* ---- transposing four joints ----
 * A bw_transform is 10 packed floats: t0 t1 t2 r0 | r1 r2 r3 s0 | s1 s2.
 * Per joint we move three 16-byte windows that stay inside the struct
 * (floats 0-3, 4-7 and 6-9) and transpose each 4x4 group, so lanes are
 * joints and vectors are components. */
_Static_assert(sizeof(bw_transform) == 10 * sizeof(float), "bw_transform must be 10 packed floats");
_Static_assert(offsetof(bw_transform, r) == 3 * sizeof(float), "bw_transform layout");
_Static_assert(offsetof(bw_transform, s) == 7 * sizeof(float), "bw_transform layout");

enum { TX, TY, TZ, QX, QY, QZ, QW, SX, SY, SZ, NCOMP };

typedef struct block {
    v4 c[NCOMP];
} block;

/* Component loops are spelled out by these macros rather than written as
 * `for (c...)`: with constant indices the compiler keeps every component
 * in a register instead of in memory. */
#define FOR_TS(M) M(TX) M(TY) M(TZ) M(SX) M(SY) M(SZ)
#define FOR_Q(M) M(QX) M(QY) M(QZ) M(QW)
#define FOR_ALL(M) FOR_TS(M) FOR_Q(M)

/* In-register 4x4 transpose of rows a..d into columns. */
#define TRANSPOSE4(a, b, c, d, o0, o1, o2, o3)                                                                         \
    do {                                                                                                               \
        v4 lo_ab = V4_SHUFFLE(a, b, 0, 4, 1, 5), lo_cd = V4_SHUFFLE(c, d, 0, 4, 1, 5);                                 \
        v4 hi_ab = V4_SHUFFLE(a, b, 2, 6, 3, 7), hi_cd = V4_SHUFFLE(c, d, 2, 6, 3, 7);                                 \
        o0 = V4_SHUFFLE(lo_ab, lo_cd, 0, 1, 4, 5);                                                                     \
        o1 = V4_SHUFFLE(lo_ab, lo_cd, 2, 3, 6, 7);                                                                     \
        o2 = V4_SHUFFLE(hi_ab, hi_cd, 0, 1, 4, 5);                                                                     \
        o3 = V4_SHUFFLE(hi_ab, hi_cd, 2, 3, 6, 7);                                                                     \
    } while (0)

HOT_INLINE void block_load4(const bw_transform *x, block *o)
{
    const unsigned char *p[4] = {(const unsigned char *)&x[0], (const unsigned char *)&x[1],
                                 (const unsigned char *)&x[2], (const unsigned char *)&x[3]};
    v4 a0 = v4_load(p[0]), a1 = v4_load(p[1]), a2 = v4_load(p[2]), a3 = v4_load(p[3]);
    TRANSPOSE4(a0, a1, a2, a3, o->c[TX], o->c[TY], o->c[TZ], o->c[QX]);
    v4 b0 = v4_load(p[0] + 16), b1 = v4_load(p[1] + 16), b2 = v4_load(p[2] + 16), b3 = v4_load(p[3] + 16);
    TRANSPOSE4(b0, b1, b2, b3, o->c[QY], o->c[QZ], o->c[QW], o->c[SX]);
    v4 c0 = v4_load(p[0] + 24), c1 = v4_load(p[1] + 24), c2 = v4_load(p[2] + 24), c3 = v4_load(p[3] + 24);
    v4 hi01 = V4_SHUFFLE(c0, c1, 2, 6, 3, 7), hi23 = V4_SHUFFLE(c2, c3, 2, 6, 3, 7);
    o->c[SY] = V4_SHUFFLE(hi01, hi23, 0, 1, 4, 5);
    o->c[SZ] = V4_SHUFFLE(hi01, hi23, 2, 3, 6, 7);
}

HOT_INLINE void block_store4(const block *b, bw_transform *x)
{
    unsigned char *p[4] = {(unsigned char *)&x[0], (unsigned char *)&x[1], (unsigned char *)&x[2],
                           (unsigned char *)&x[3]};
    /* The windows overlap in floats 6-7 (r3, s0); both writes carry the
     * same values. */
    v4 r0, r1, r2, r3;
    TRANSPOSE4(b->c[TX], b->c[TY], b->c[TZ], b->c[QX], r0, r1, r2, r3);
    v4_store(p[0], r0); v4_store(p[1], r1); v4_store(p[2], r2); v4_store(p[3], r3);
    TRANSPOSE4(b->c[QW], b->c[SX], b->c[SY], b->c[SZ], r0, r1, r2, r3);
    v4_store(p[0] + 24, r0); v4_store(p[1] + 24, r1); v4_store(p[2] + 24, r2); v4_store(p[3] + 24, r3);
    TRANSPOSE4(b->c[QY], b->c[QZ], b->c[QW], b->c[SX], r0, r1, r2, r3);
    v4_store(p[0] + 16, r0); v4_store(p[1] + 16, r1); v4_store(p[2] + 16, r2); v4_store(p[3] + 16, r3);
}

/* A final block of fewer than four joints goes through a padded copy:
 * missing lanes are identity with coverage 0, so they never change. */
static void block_load_tail(const bw_transform *x, int lanes, block *o)
{
    bw_transform tmp[4];
    for (int k = 0; k < 4; k++) tmp[k] = k < lanes ? x[k] : bw_transform_identity;
    block_load4(tmp, o);
}

static void block_store_tail(const block *b, bw_transform *x, int lanes)
{
    bw_transform tmp[4];
    block_store4(b, tmp);
    for (int k = 0; k < lanes; k++) x[k] = tmp[k];
}

HOT_INLINE v4 cov_load(const float *c, int lanes)
{
    if (lanes == 4) return v4_load(c);
    float tmp[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k = 0; k < lanes; k++) tmp[k] = c[k];
    return v4_load(tmp);
}

HOT_INLINE void cov_store(float *c, v4 v, int lanes)
{
    if (lanes == 4) {
        v4_store(c, v);
        return;
    }
    float tmp[4];
    v4_store(tmp, v);
    for (int k = 0; k < lanes; k++) c[k] = tmp[k];
}

HOT_INLINE v4 dot_q(const block *a, const block *b)
{
    return v4_add(v4_add(v4_mul(a->c[QX], b->c[QX]), v4_mul(a->c[QY], b->c[QY])),
                  v4_add(v4_mul(a->c[QZ], b->c[QZ]), v4_mul(a->c[QW], b->c[QW])));
}

/* Mix one block of `lanes` (1-4) joints starting at out[0]. */
HOT_INLINE void mix_block(const bw_mix_entry *entries, const int *rank_end, int rank_count, int j, int lanes,
                          bw_transform *out, float *out_coverage)
{
    const v4 zero = v4_set1(0.0f), one = v4_set1(1.0f);
    block x;
    if (lanes == 4) block_load4(out, &x);
    else block_load_tail(out, lanes, &x);
    const v4 cov_raw = cov_load(out_coverage, lanes);
    v4 cr = v4_clamp01(cov_raw);
    v4i changed = v4_gt(zero, one); /* all false */
    for (int r = 0, e = 0; r < rank_count; r++) {
        block sum;
#define ZERO_SUM(i_) sum.c[i_] = zero;
        FOR_ALL(ZERO_SUM)
        v4 share = zero;
        for (int end = rank_end[r]; e < end; e++) {
            block y;
            v4 sh;
            if (entries[e].grid_a) {
                /* sample this block of the clip's grid in place */
                _Alignas(16) float res[BW_GRID_COMPONENTS][4];
                const size_t at = (size_t)(j / 4) * BW_GRID_BLOCK_FLOATS;
                GRID_BLOCK(entries[e].grid_a + at, entries[e].grid_b + at, entries[e].u, entries[e].ca,
                           entries[e].cb, res);
                sh = v4_clamp01(v4_mul(v4_set1(entries[e].weight), cov_load(res[10], lanes)));
                if (!v4i_any(v4_gt(sh, zero))) continue;
#define LOAD_RES(i_) y.c[i_] = v4_load(res[i_]);
                FOR_ALL(LOAD_RES)
            } else {
                sh = v4_clamp01(v4_mul(v4_set1(entries[e].weight), cov_load(entries[e].coverage + j, lanes)));
                if (!v4i_any(v4_gt(sh, zero))) continue; /* nothing covered here: skip the loads */
                if (lanes == 4) block_load4(entries[e].joints + j, &y);
                else block_load_tail(entries[e].joints + j, lanes, &y);
            }
            v4i live = v4_gt(sh, zero);
            /* Align each quaternion to the running sum's hemisphere (q and
             * −q must never cancel); the first one meets a zero sum and
             * keeps its sign. */
            v4 sr = v4_select(v4_lt(dot_q(&sum, &y), zero), v4_sub(zero, sh), sh);
            /* Dead lanes add an exact 0 (one AND each), even over NaN
             * storage: an uncovered joint's storage is never read as data. */
#define ADD_TS(i_) sum.c[i_] = v4_add(sum.c[i_], v4_mask(live, v4_mul(y.c[i_], sh)));
#define ADD_Q(i_) sum.c[i_] = v4_add(sum.c[i_], v4_mask(live, v4_mul(y.c[i_], sr)));
            FOR_TS(ADD_TS)
            FOR_Q(ADD_Q)
            share = v4_add(share, sh);
        }
        v4i has = v4_gt(share, zero);
        if (!v4i_any(has)) continue;
        /* Rank coverage c_k and overlay weights (c_r(1 − c_k), c_k) / total. */
        v4 safe_share = v4_select(has, share, one);
        v4 ck = v4_min1(safe_share);
        v4 wa = v4_mul(cr, v4_sub(one, ck));
        v4 total = v4_add(wa, ck); /* ≥ ck > 0 */
        /* One division serves all three weights: a = wa / total, b = ck /
         * total, and bm = b / share, which turns the share-weighted sum
         * straight into b × mean. */
        v4 inv_ts = v4_div(one, v4_mul(total, safe_share));
        v4 bm = v4_mul(ck, inv_ts);
        v4 a = v4_mul(v4_mul(wa, safe_share), inv_ts), b = v4_mul(bm, safe_share);
        block n;
#define BLEND_TS(i_) n.c[i_] = v4_madd(x.c[i_], a, sum.c[i_], bm);
        FOR_TS(BLEND_TS)
        /* Rotation: nlerp with weights (a, b) of the running rotation and the
         * rank's normalized mean, after hemisphere alignment. Where a == 0
         * (full rank coverage, or nothing below) the mean's length does not
         * matter because the result is normalized anyway. */
        v4i need_unit = v4_gt(a, zero);
        v4 kq = one;
        if (v4i_any(need_unit)) {
            v4 len = v4_sqrt(v4_select(need_unit, dot_q(&sum, &sum), one));
            kq = v4_select(need_unit, v4_div(b, len), one);
        }
        kq = v4_select(v4_lt(dot_q(&x, &sum), zero), v4_sub(zero, kq), kq);
#define BLEND_Q(i_) n.c[i_] = v4_madd(x.c[i_], a, sum.c[i_], kq);
        FOR_Q(BLEND_Q)
        v4 n2 = dot_q(&n, &n);
        /* One finiteness test per joint: a NaN or inf anywhere makes the sum
         * NaN or inf, and then sum − sum is not 0. */
        v4 probe = v4_add(v4_add(v4_add(n.c[TX], n.c[TY]), v4_add(n.c[TZ], n.c[SX])),
                          v4_add(v4_add(n.c[SY], n.c[SZ]), n2));
        v4i ok = v4i_and(v4i_and(has, v4_gt(n2, v4_set1(1e-30f))), v4_eq(v4_sub(probe, probe), zero));
        v4 kn = v4_div(one, v4_sqrt(v4_select(ok, n2, one)));
#define NORMALIZE_Q(i_) n.c[i_] = v4_mul(n.c[i_], kn);
        FOR_Q(NORMALIZE_Q)
        /* Lanes that failed keep what lay below, coverage included. */
        if (v4i_all(ok)) {
#define TAKE_ALL(i_) x.c[i_] = n.c[i_];
            FOR_ALL(TAKE_ALL)
            cr = v4_min1(total);
        } else {
#define TAKE(i_) x.c[i_] = v4_select(ok, n.c[i_], x.c[i_]);
            FOR_ALL(TAKE)
            cr = v4_select(ok, v4_min1(total), cr);
        }
        changed = v4i_or(changed, ok);
    }
    if (!v4i_any(changed)) return; /* a block nobody changed is not rewritten */
    /* Unchanged lanes still hold their loaded bits; their coverage is
     * restored raw (not clamped), so they pass through exactly. */
    if (lanes == 4) block_store4(&x, out);
    else block_store_tail(&x, out, lanes);
    cov_store(out_coverage, v4_select(changed, cr, cov_raw), lanes);
}


static void KERNEL(mix_joints)(const bw_mix_entry *entries, const int *rank_end, int rank_count, int joint_count,
                       bw_transform *out, float *out_coverage)
{
    int j = 0;
    for (; j + 4 <= joint_count; j += 4)
        mix_block(entries, rank_end, rank_count, j, 4, out + j, out_coverage + j);
    if (j < joint_count)
        mix_block(entries, rank_end, rank_count, j, joint_count - j, out + j, out_coverage + j);
}


/* ======== uniform-grid sampling (sample.c) ======== */

/* Write lane l of a computed block (res: component-major, 4 lanes each:
 * t xyz, r xyzw, s xyz, coverage) into the pose. */
HOT_INLINE void store_lane(const float (*res)[4], int l, bw_transform *x, float *coverage)
{
    x->t[0] = res[0][l]; x->t[1] = res[1][l]; x->t[2] = res[2][l];
    x->r[0] = res[3][l]; x->r[1] = res[4][l]; x->r[2] = res[5][l]; x->r[3] = res[6][l];
    x->s[0] = res[7][l]; x->s[1] = res[8][l]; x->s[2] = res[9][l];
    *coverage = res[10][l];
}

static void KERNEL(sample_grid)(const bw_grid_binding *gb, const float *ra, const float *rb, float u, const float *ca,
                                const float *cb, bw_transform *joints, float *coverage, int joint_count)
{
    _Alignas(16) float res[BW_GRID_COMPONENTS][4];
    /* A dense binding (lane l drives joint l) writes whole blocks with the
     * mixer's in-register transposes instead of lane by lane. */
    const int full = gb->dense ? (joint_count < gb->block_count * 4 ? joint_count : gb->block_count * 4) / 4 : 0;
    for (int blk = 0; blk < full; blk++) {
        const size_t at = (size_t)blk * BW_GRID_BLOCK_FLOATS;
        GRID_BLOCK(ra + at, rb + at, u, ca, cb, res);
        block x;
#define LOAD_ALL(i_) x.c[i_] = v4_load(res[i_]);
        FOR_ALL(LOAD_ALL)
#undef LOAD_ALL
        block_store4(&x, joints + 4 * blk);
        v4_store(coverage + 4 * blk, v4_load(res[10]));
    }
    for (int blk = full; blk < gb->block_count; blk++) {
        const float *a = ra + (size_t)blk * BW_GRID_BLOCK_FLOATS, *b = rb + (size_t)blk * BW_GRID_BLOCK_FLOATS;
        GRID_BLOCK(a, b, u, ca, cb, res);
        const int *lanes = gb->lane_joint + (size_t)blk * 4;
        for (int l = 0; l < 4; l++) {
            const int j = lanes[l];
            if (j >= 0 && j < joint_count) store_lane((const float(*)[4])res, l, &joints[j], &coverage[j]);
        }
    }
}

/* ======== local-to-model (pose.c) ======== */

#if defined(__GNUC__) && !defined(KERNEL_PORTABLE)
/* One matrix column as a 4-lane vector (SSE/NEON with GCC and Clang). */
typedef float column __attribute__((vector_size(16)));

static inline column column_load(const float *p)
{
    column v;
    memcpy(&v, p, sizeof v); /* model arrays need not be 16-byte aligned */
    return v;
}

/* m = pm · [c | t] for affine matrices, column by column. */
static inline void combine(const float pm[4][4], const float c[3][3], const float *t, float m[4][4])
{
    column p0 = column_load(pm[0]), p1 = column_load(pm[1]), p2 = column_load(pm[2]), p3 = column_load(pm[3]);
    column m0 = p0 * c[0][0] + p1 * c[0][1] + p2 * c[0][2];
    column m1 = p0 * c[1][0] + p1 * c[1][1] + p2 * c[1][2];
    column m2 = p0 * c[2][0] + p1 * c[2][1] + p2 * c[2][2];
    column m3 = p0 * t[0] + p1 * t[1] + p2 * t[2] + p3;
    memcpy(m[0], &m0, sizeof m0);
    memcpy(m[1], &m1, sizeof m1);
    memcpy(m[2], &m2, sizeof m2);
    memcpy(m[3], &m3, sizeof m3);
}
#else
static void combine(const float pm[4][4], const float c[3][3], const float *t, float m[4][4])
{
    for (int r = 0; r < 4; r++) {
        float p0 = pm[0][r], p1 = pm[1][r], p2 = pm[2][r], p3 = pm[3][r];
        float m0 = p0 * c[0][0] + p1 * c[0][1] + p2 * c[0][2];
        float m1 = p0 * c[1][0] + p1 * c[1][1] + p2 * c[1][2];
        float m2 = p0 * c[2][0] + p1 * c[2][1] + p2 * c[2][2];
        float m3 = p0 * t[0] + p1 * t[1] + p2 * t[2] + p3;
        m[0][r] = m0;
        m[1][r] = m1;
        m[2][r] = m2;
        m[3][r] = m3;
    }
}
#endif

static void KERNEL(local_to_model)(const int *parents, const bw_transform *joints, int count, float (*model)[4][4])
{
    for (int i = 0; i < count; i++) {
        const bw_transform *x = &joints[i];
        float c[3][3];
        rotation_scale_columns(x, c);
        float(*m)[4] = model[i];
        int p = parents[i];
        if (p < 0) {
            store_affine(c, x->t, m);
            continue;
        }
        /* model = parent · local. Both are affine (last row 0 0 0 1), so
         * column k of the product is P0·c[k][0] + P1·c[k][1] + P2·c[k][2]
         * (+ P3 for the translation column), and the last row comes out
         * as 0 0 0 1 by itself. The rig guarantees p < i: the parent is
         * final and never aliases model[i]. */
        combine(model[p], c, x->t, m);
    }
}

static const bw_simd_kernels KERNEL(table) = {KERNEL_PATH, KERNEL(mix_joints), KERNEL(sample_grid), KERNEL(local_to_model)};
