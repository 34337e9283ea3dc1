/* kernels.h - the one source of the per-frame kernels: the mixer's joint
 * pass, uniform-grid sampling and local-to-model. Each path's unit
 * (simd_<path>.c) defines KERNEL(name) to suffix the names and KERNEL_W,
 * the lanes per vector (4, 8 or 16), then includes this file once;
 * KERNEL_PORTABLE selects plain scalar C (4 lanes, lane by lane). The
 * wide units are this code compiled with AVX2+FMA or AVX-512 flags (per
 * file, never globally): W joints per instruction, with fused
 * multiply-adds. Private. */
#include <stddef.h>
#include <stdint.h>

#include "affine.h"
#include "clip_internal.h"
#include "grid_sample.h"
#include "simd.h"

#ifndef KERNEL_W
#define KERNEL_W 4
#endif
#if !defined(KERNEL_PORTABLE) && (defined(__SSE__) || defined(_M_X64))
#include <immintrin.h>
#define KERNEL_SSE 1
#endif
#if KERNEL_W != 4 && (defined(KERNEL_PORTABLE) || !defined(KERNEL_SSE))
#error "wide kernels need x86 vector extensions"
#endif

/* The vector helpers must inline into the block loop; a call per
 * operation would cost more than the operation. */
#if defined(__GNUC__)
#define HOT_INLINE static inline __attribute__((always_inline))
#else
#define HOT_INLINE static inline
#endif

/* ---- 4-lane vectors (the transposes, and every operation when W = 4) ----
 * With GCC/Clang these are vector-extension types (SSE on x86, NEON on
 * ARM); in the portable unit (KERNEL_PORTABLE) plain arrays running the
 * same operations lane by lane. Masks are int lanes of all ones (true) or
 * zero. */
#if defined(__GNUC__) && !defined(KERNEL_PORTABLE)
typedef float v4 __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));
HOT_INLINE v4 v4_set1(float x) { return (v4){x, x, x, x}; }
/* The element-wise operations of a vector-extension type F with mask type
 * M (the W-lane types below get the same set). v_mask: a where m, else +0. */
#define DEFINE_VECTOR_OPS(F, M)                                                                                        \
    HOT_INLINE F F##_add(F a, F b) { return a + b; }                                                                   \
    HOT_INLINE F F##_sub(F a, F b) { return a - b; }                                                                   \
    HOT_INLINE F F##_mul(F a, F b) { return a * b; }                                                                   \
    HOT_INLINE F F##_div(F a, F b) { return a / b; }                                                                   \
    HOT_INLINE M F##_gt(F a, F b) { return (M)(a > b); }                                                               \
    HOT_INLINE M F##_lt(F a, F b) { return (M)(a < b); }                                                               \
    HOT_INLINE M F##_eq(F a, F b) { return (M)(a == b); }                                                              \
    HOT_INLINE M M##_and(M a, M b) { return a & b; }                                                                   \
    HOT_INLINE M M##_or(M a, M b) { return a | b; }                                                                    \
    HOT_INLINE F F##_select(M m, F a, F b) { return (F)(((M)a & m) | ((M)b & ~m)); }                                   \
    HOT_INLINE F F##_mask(M m, F a) { return (F)((M)a & m); }
DEFINE_VECTOR_OPS(v4, v4i)
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
#define DEFINE_LOAD_STORE(type)                                                                                        \
    HOT_INLINE type type##_load(const void *p)                                                                         \
    {                                                                                                                  \
        type v;                                                                                                        \
        memcpy(&v, p, sizeof v);                                                                                       \
        return v;                                                                                                      \
    }                                                                                                                  \
    HOT_INLINE void type##_store(void *p, type v) { memcpy(p, &v, sizeof v); }
DEFINE_LOAD_STORE(v4)

/* ---- W-lane vectors: every formula below runs on W joints at once ---- */
#define GROUPS (KERNEL_W / 4) /* 4-joint groups per vector */
#if KERNEL_W == 4
typedef v4 vf;
typedef v4i vi;
#define vf_set1 v4_set1
#define vf_add v4_add
#define vf_sub v4_sub
#define vf_mul v4_mul
#define vf_div v4_div
#define vf_gt v4_gt
#define vf_lt v4_lt
#define vf_eq v4_eq
#define vi_and v4i_and
#define vi_or v4i_or
#define vf_select v4_select
#define vf_mask v4_mask
#define vi_any v4i_any
#define vi_all v4i_all
#define vf_sqrt v4_sqrt
HOT_INLINE vf vf_join(const v4 *p) { return p[0]; }
HOT_INLINE void vf_split(vf v, v4 *p) { p[0] = v; }
#else
typedef float vf __attribute__((vector_size(4 * KERNEL_W)));
typedef int32_t vi __attribute__((vector_size(4 * KERNEL_W)));
DEFINE_VECTOR_OPS(vf, vi)
#if KERNEL_W == 8
HOT_INLINE vf vf_set1(float x) { return (vf)_mm256_set1_ps(x); }
HOT_INLINE int vi_any(vi m) { return _mm256_movemask_ps((__m256)m) != 0; }
HOT_INLINE int vi_all(vi m) { return _mm256_movemask_ps((__m256)m) == 0xff; }
HOT_INLINE vf vf_sqrt(vf a) { return (vf)_mm256_sqrt_ps((__m256)a); }
HOT_INLINE vf vf_join(const v4 *p) { return (vf)_mm256_set_m128((__m128)p[1], (__m128)p[0]); }
HOT_INLINE void vf_split(vf v, v4 *p)
{
    p[0] = (v4)_mm256_castps256_ps128((__m256)v);
    p[1] = (v4)_mm256_extractf128_ps((__m256)v, 1);
}
#elif KERNEL_W == 16
HOT_INLINE vf vf_set1(float x) { return (vf)_mm512_set1_ps(x); }
HOT_INLINE int vi_any(vi m) { return _mm512_movepi32_mask((__m512i)m) != 0; }
HOT_INLINE int vi_all(vi m) { return _mm512_movepi32_mask((__m512i)m) == 0xffff; }
HOT_INLINE vf vf_sqrt(vf a) { return (vf)_mm512_sqrt_ps((__m512)a); }
HOT_INLINE vf vf_join(const v4 *p)
{
    __m256 lo = _mm256_set_m128((__m128)p[1], (__m128)p[0]), hi = _mm256_set_m128((__m128)p[3], (__m128)p[2]);
    return (vf)_mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);
}
HOT_INLINE void vf_split(vf v, v4 *p)
{
    p[0] = (v4)_mm512_extractf32x4_ps((__m512)v, 0);
    p[1] = (v4)_mm512_extractf32x4_ps((__m512)v, 1);
    p[2] = (v4)_mm512_extractf32x4_ps((__m512)v, 2);
    p[3] = (v4)_mm512_extractf32x4_ps((__m512)v, 3);
}
#else
#error "KERNEL_W must be 4, 8 or 16"
#endif
#endif

#if KERNEL_W == 4
#define vf_load v4_load
#define vf_store v4_store
#else
DEFINE_LOAD_STORE(vf)
#endif
HOT_INLINE vf vf_madd(vf a, vf ka, vf b, vf kb) { return vf_add(vf_mul(a, ka), vf_mul(b, kb)); }
/* min(a, 1) and clamp to [0, 1]; a NaN gives 1 and 0 respectively (the x86
 * min / max instructions return their second operand for NaN, the same
 * as the comparisons of the plain form) */
#if defined(KERNEL_SSE) && KERNEL_W == 4
HOT_INLINE vf vf_min1(vf a) { return (vf)_mm_min_ps((__m128)a, _mm_set1_ps(1.0f)); }
HOT_INLINE vf vf_max0(vf a) { return (vf)_mm_max_ps((__m128)a, _mm_setzero_ps()); }
#elif KERNEL_W == 8
HOT_INLINE vf vf_min1(vf a) { return (vf)_mm256_min_ps((__m256)a, _mm256_set1_ps(1.0f)); }
HOT_INLINE vf vf_max0(vf a) { return (vf)_mm256_max_ps((__m256)a, _mm256_setzero_ps()); }
#elif KERNEL_W == 16
HOT_INLINE vf vf_min1(vf a) { return (vf)_mm512_min_ps((__m512)a, _mm512_set1_ps(1.0f)); }
HOT_INLINE vf vf_max0(vf a) { return (vf)_mm512_max_ps((__m512)a, _mm512_setzero_ps()); }
#else
HOT_INLINE vf vf_min1(vf a) { return vf_select(vf_lt(a, vf_set1(1.0f)), a, vf_set1(1.0f)); }
HOT_INLINE vf vf_max0(vf a) { return vf_select(vf_gt(a, vf_set1(0.0f)), a, vf_set1(0.0f)); }
#endif
HOT_INLINE vf vf_clamp01(vf a) { return vf_min1(vf_max0(a)); }
/* finite lanes: x − x is 0 (NaN for NaN and ±inf) */
HOT_INLINE vi vf_finite(vf x) { return vf_eq(vf_sub(x, x), vf_set1(0.0f)); }
#if defined(KERNEL_PORTABLE)
/* the sign bit of `from` applied to a (flip where from < 0 or is −0) */
HOT_INLINE vf vf_flip_sign(vf a, vf from)
{
    vf r;
    for (int k = 0; k < 4; k++) r.f[k] = signbit(from.f[k]) ? -a.f[k] : a.f[k];
    return r;
}
/* −a where m, else a (m: a lane mask) */
HOT_INLINE vf vf_neg_where(vi m, vf a)
{
    vf r;
    for (int k = 0; k < 4; k++) r.f[k] = m.i[k] ? -a.f[k] : a.f[k];
    return r;
}
#else
HOT_INLINE vf vf_flip_sign(vf a, vf from) { return (vf)((vi)a ^ ((vi)from & (vi)vf_set1(-0.0f))); }
/* −a where m, else a: one AND and one XOR of the sign bit (a select of
 * 0 − a is three more operations on SSE2) */
HOT_INLINE vf vf_neg_where(vi m, vf a) { return (vf)((vi)a ^ (m & (vi)vf_set1(-0.0f))); }
#endif
/* lanes as floats, for the rare per-lane fix-ups */
HOT_INLINE void vf_lanes(vf v, float *out) { memcpy(out, &v, sizeof v); }
HOT_INLINE vf vf_from_lanes(const float *in) { return vf_load(in); }

/* ---- transposing joints ----
 * A bw_transform is 10 packed floats: t0 t1 t2 r0 | r1 r2 r3 s0 | s1 s2.
 * Per joint we move three 16-byte windows that stay inside the struct
 * (floats 0-3, 4-7 and 6-9) and transpose each 4x4 group, so lanes are
 * joints and vectors are components; a W-lane block is W / 4 such groups. */
_Static_assert(sizeof(bw_transform) == 10 * sizeof(float), "bw_transform must be 10 packed floats");
_Static_assert(offsetof(bw_transform, r) == 3 * sizeof(float), "bw_transform layout");
_Static_assert(offsetof(bw_transform, s) == 7 * sizeof(float), "bw_transform layout");

enum { TX, TY, TZ, QX, QY, QZ, QW, SX, SY, SZ, NCOMP };

typedef struct block {
    vf c[NCOMP];
} block;

/* Component loops are spelled out by these macros rather than written as
 * `for (c...)`: with constant indices the compiler keeps every component
 * in a register instead of in memory. */
#define FOR_TS(M) M(TX) M(TY) M(TZ) M(SX) M(SY) M(SZ)
#define FOR_Q(M) M(QX) M(QY) M(QZ) M(QW)
#define FOR_ALL(M) FOR_TS(M) FOR_Q(M)

/* In-register 4x4 transposes of rows a..d into columns, on W-lane
 * vectors: the shuffles stay inside each 128-bit lane, so one W-lane
 * transpose is W / 4 independent 4x4 ones (4-joint group g in lane g). */
#if KERNEL_W == 4
#define VF_SHUFFLE V4_SHUFFLE
#else
#define VF_LANE_INDEX(g, i) ((i) < 4 ? 4 * (g) + (i) : KERNEL_W + 4 * (g) + (i)-4)
#if KERNEL_W == 8
#define VF_SHUFFLE_INDICES(i0, i1, i2, i3)                                                                             \
    VF_LANE_INDEX(0, i0), VF_LANE_INDEX(0, i1), VF_LANE_INDEX(0, i2), VF_LANE_INDEX(0, i3), VF_LANE_INDEX(1, i0),      \
        VF_LANE_INDEX(1, i1), VF_LANE_INDEX(1, i2), VF_LANE_INDEX(1, i3)
#else
#define VF_SHUFFLE_GROUP(g, i0, i1, i2, i3)                                                                            \
    VF_LANE_INDEX(g, i0), VF_LANE_INDEX(g, i1), VF_LANE_INDEX(g, i2), VF_LANE_INDEX(g, i3)
#define VF_SHUFFLE_INDICES(i0, i1, i2, i3)                                                                             \
    VF_SHUFFLE_GROUP(0, i0, i1, i2, i3), VF_SHUFFLE_GROUP(1, i0, i1, i2, i3), VF_SHUFFLE_GROUP(2, i0, i1, i2, i3),     \
        VF_SHUFFLE_GROUP(3, i0, i1, i2, i3)
#endif
#if defined(__clang__)
#define VF_SHUFFLE(a, b, i0, i1, i2, i3) __builtin_shufflevector((a), (b), VF_SHUFFLE_INDICES(i0, i1, i2, i3))
#else
#define VF_SHUFFLE(a, b, i0, i1, i2, i3) __builtin_shuffle((a), (b), (vi){VF_SHUFFLE_INDICES(i0, i1, i2, i3)})
#endif
#endif

#define TRANSPOSE_W(a, b, c, d, o0, o1, o2, o3)                                                                        \
    do {                                                                                                               \
        vf lo_ab = VF_SHUFFLE(a, b, 0, 4, 1, 5), lo_cd = VF_SHUFFLE(c, d, 0, 4, 1, 5);                                 \
        vf hi_ab = VF_SHUFFLE(a, b, 2, 6, 3, 7), hi_cd = VF_SHUFFLE(c, d, 2, 6, 3, 7);                                 \
        o0 = VF_SHUFFLE(lo_ab, lo_cd, 0, 1, 4, 5);                                                                     \
        o1 = VF_SHUFFLE(lo_ab, lo_cd, 2, 3, 6, 7);                                                                     \
        o2 = VF_SHUFFLE(hi_ab, hi_cd, 0, 1, 4, 5);                                                                     \
        o3 = VF_SHUFFLE(hi_ab, hi_cd, 2, 3, 6, 7);                                                                     \
    } while (0)

/* Row k of group g: the 16-byte window at byte `offset` of joint 4g + k. */
HOT_INLINE void windows_load(const bw_transform *x, size_t offset, vf *rows)
{
    const unsigned char *p = (const unsigned char *)x + offset;
    for (int k = 0; k < 4; k++) {
        v4 parts[GROUPS];
        for (int g = 0; g < GROUPS; g++) parts[g] = v4_load(p + (size_t)(4 * g + k) * sizeof(bw_transform));
        rows[k] = vf_join(parts);
    }
}

HOT_INLINE void windows_store(const vf *rows, size_t offset, bw_transform *x)
{
    unsigned char *p = (unsigned char *)x + offset;
    for (int k = 0; k < 4; k++) {
        v4 parts[GROUPS];
        vf_split(rows[k], parts);
        for (int g = 0; g < GROUPS; g++) v4_store(p + (size_t)(4 * g + k) * sizeof(bw_transform), parts[g]);
    }
}

HOT_INLINE void block_load(const bw_transform *x, block *o)
{
    vf r[4], unused;
    windows_load(x, 0, r); /* t0 t1 t2 r0 */
    TRANSPOSE_W(r[0], r[1], r[2], r[3], o->c[TX], o->c[TY], o->c[TZ], o->c[QX]);
    windows_load(x, 16, r); /* r1 r2 r3 s0 */
    TRANSPOSE_W(r[0], r[1], r[2], r[3], o->c[QY], o->c[QZ], o->c[QW], o->c[SX]);
    windows_load(x, 24, r); /* r3 s0 s1 s2 */
    TRANSPOSE_W(r[0], r[1], r[2], r[3], unused, unused, o->c[SY], o->c[SZ]);
    (void)unused;
}

#if KERNEL_W >= 8
/* Wide paths: joint 4g + k's floats 0-3 (lane g of r0) and 4-7 (lane g
 * of r1) paired by a cross-lane permute into one 32-byte store. */
HOT_INLINE void pairs_store(vf r0, vf r1, bw_transform *x)
{
#if KERNEL_W == 8
    _mm256_storeu_ps(x[0].t, _mm256_permute2f128_ps((__m256)r0, (__m256)r1, 0x20));
    _mm256_storeu_ps(x[4].t, _mm256_permute2f128_ps((__m256)r0, (__m256)r1, 0x31));
#else
    const __m512i first = _mm512_set_epi32(23, 22, 21, 20, 7, 6, 5, 4, 19, 18, 17, 16, 3, 2, 1, 0);
    const __m512i second = _mm512_set_epi32(31, 30, 29, 28, 15, 14, 13, 12, 27, 26, 25, 24, 11, 10, 9, 8);
    __m512 p = _mm512_permutex2var_ps((__m512)r0, first, (__m512)r1);
    __m512 q = _mm512_permutex2var_ps((__m512)r0, second, (__m512)r1);
    _mm256_storeu_ps(x[0].t, _mm512_castps512_ps256(p));
    _mm256_storeu_ps(x[4].t, _mm512_extractf32x8_ps(p, 1));
    _mm256_storeu_ps(x[8].t, _mm512_castps512_ps256(q));
    _mm256_storeu_ps(x[12].t, _mm512_extractf32x8_ps(q, 1));
#endif
}
#endif

HOT_INLINE void block_store(const block *b, bw_transform *x)
{
    /* The windows overlap in floats 6-7 (r3, s0); both writes carry the
     * same values. */
    vf r0[4], r1[4], r2[4];
    TRANSPOSE_W(b->c[TX], b->c[TY], b->c[TZ], b->c[QX], r0[0], r0[1], r0[2], r0[3]);
    TRANSPOSE_W(b->c[QY], b->c[QZ], b->c[QW], b->c[SX], r1[0], r1[1], r1[2], r1[3]);
    TRANSPOSE_W(b->c[QW], b->c[SX], b->c[SY], b->c[SZ], r2[0], r2[1], r2[2], r2[3]);
#if KERNEL_W >= 8
    for (int k = 0; k < 4; k++) pairs_store(r0[k], r1[k], x + k); /* two stores per joint */
#else
    windows_store(r0, 0, x);
    windows_store(r1, 16, x);
#endif
    windows_store(r2, 24, x);
}

/* A final block of fewer than W joints goes through a padded copy:
 * missing lanes are identity with coverage 0, so they never change. */
static void block_load_tail(const bw_transform *x, int lanes, block *o)
{
    bw_transform tmp[KERNEL_W];
    for (int k = 0; k < KERNEL_W; k++) tmp[k] = k < lanes ? x[k] : bw_transform_identity;
    block_load(tmp, o);
}

static void block_store_tail(const block *b, bw_transform *x, int lanes)
{
    bw_transform tmp[KERNEL_W];
    block_store(b, tmp);
    for (int k = 0; k < lanes; k++) x[k] = tmp[k];
}

HOT_INLINE vf cov_load(const float *c, int lanes)
{
    if (lanes == KERNEL_W) return vf_load(c);
    float tmp[KERNEL_W] = {0.0f};
    for (int k = 0; k < lanes; k++) tmp[k] = c[k];
    return vf_load(tmp);
}

HOT_INLINE void cov_store(float *c, vf v, int lanes)
{
    if (lanes == KERNEL_W) {
        vf_store(c, v);
        return;
    }
    float tmp[KERNEL_W];
    vf_store(tmp, v);
    for (int k = 0; k < lanes; k++) c[k] = tmp[k];
}

HOT_INLINE vf dot_q(const block *a, const block *b)
{
    return vf_add(vf_add(vf_mul(a->c[QX], b->c[QX]), vf_mul(a->c[QY], b->c[QY])),
                  vf_add(vf_mul(a->c[QZ], b->c[QZ]), vf_mul(a->c[QW], b->c[QW])));
}

/* ---- sampling W grid joints (layout in clip_internal.h) ----
 * a and b point at the first of W consecutive lanes of one grid block in
 * rows a and b (W divides BW_GRID_LANES, so the lanes never cross a block
 * and every load is one whole vector). Result: the block of transforms
 * and the coverages. The portable unit runs the scalar reference kernel
 * (grid_sample.h) instead. */
_Static_assert(BW_GRID_LANES % KERNEL_W == 0, "grid blocks hold whole vectors");

HOT_INLINE vf grid_component(const float *lanes, int c) { return vf_load(lanes + c * BW_GRID_LANES); }

HOT_INLINE size_t grid_offset(int lane)
{
    return (size_t)(lane / BW_GRID_LANES) * BW_GRID_BLOCK_FLOATS + (size_t)(lane % BW_GRID_LANES);
}

/* The slerp series Σ c_i x^i (bw_math.h, 8 terms) by Estrin's scheme:
 * three dependent multiply-adds instead of Horner's seven, so the four
 * blocks of a sample do not wait on one chain; the same value to float
 * rounding. */
_Static_assert(BW_SLERP_SERIES_TERMS == 8, "series_estrin is written for 8 terms");
/* The coefficients come as floats (c) or, on the 4-lane path, as
 * repeated vectors (splat: bw_mix_entry.splat rows; NULL: use c). */
#if KERNEL_W == 4 && !defined(KERNEL_PORTABLE)
#define SERIES_COEF(c, splat, i) ((splat) ? v4_load((splat)[i]) : vf_set1((c)[i]))
#else
#define SERIES_COEF(c, splat, i) ((void)(splat), vf_set1((c)[i]))
#endif
/* The first BW_GRID_SHORT_TERMS (4) terms only, for grids whose steps are
 * small enough that the rest is below BW_GRID_SHORT_TAIL (clip_grid.c). */
_Static_assert(BW_GRID_SHORT_TERMS == 4, "series_estrin4 is written for 4 terms");
HOT_INLINE vf series_estrin4(const float *c, const float (*splat)[4], vf x)
{
    vf x2 = vf_mul(x, x);
    vf p01 = vf_add(SERIES_COEF(c, splat, 0), vf_mul(SERIES_COEF(c, splat, 1), x));
    vf p23 = vf_add(SERIES_COEF(c, splat, 2), vf_mul(SERIES_COEF(c, splat, 3), x));
    return vf_add(p01, vf_mul(p23, x2));
}
/* Σ c_i x^i with a vector of coefficients per term (each lane its own;
 * the additive layer's per-joint weights), by Estrin's scheme. */
HOT_INLINE vf series_estrin_lanes(const vf c[BW_SLERP_SERIES_TERMS], vf x)
{
    vf x2 = vf_mul(x, x), x4 = vf_mul(x2, x2);
    vf p01 = vf_add(c[0], vf_mul(c[1], x)), p23 = vf_add(c[2], vf_mul(c[3], x));
    vf p45 = vf_add(c[4], vf_mul(c[5], x)), p67 = vf_add(c[6], vf_mul(c[7], x));
    return vf_add(vf_add(p01, vf_mul(p23, x2)), vf_mul(vf_add(p45, vf_mul(p67, x2)), x4));
}
/* The same with one coefficient set for every lane. */
HOT_INLINE vf series_estrin(const float *c, const float (*splat)[4], vf x)
{
    const vf k[BW_SLERP_SERIES_TERMS] = {SERIES_COEF(c, splat, 0), SERIES_COEF(c, splat, 1), SERIES_COEF(c, splat, 2),
                                         SERIES_COEF(c, splat, 3), SERIES_COEF(c, splat, 4), SERIES_COEF(c, splat, 5),
                                         SERIES_COEF(c, splat, 6), SERIES_COEF(c, splat, 7)};
    return series_estrin_lanes(k, x);
}

#if defined(KERNEL_PORTABLE)
HOT_INLINE void grid_sample_block(const float *a, const float *b, float u, const float *ca, const float *cb,
                                  bool short_series, block *o, vf *cov)
{
    (void)short_series; /* the reference always runs the whole series */
    _Alignas(16) float res[BW_GRID_COMPONENTS][4];
    bw_grid_block_portable(a, b, u, ca, cb, res);
#define LOAD_RES(i_) o->c[i_] = v4_load(res[i_]);
    FOR_ALL(LOAD_RES)
#undef LOAD_RES
    *cov = v4_load(res[10]);
}
#else
/* Slerp of the W lanes' rotations by the series in bw_math.h
 * (coefficients ca, cb for 1 − u and u) with hemisphere alignment, exactly
 * the scalar kernel's formulas; with `renormalize` one Newton step makes
 * the result unit (the series leaves it unit to about 1e-7: the mixer,
 * which normalizes its sums anyway, skips the step). Lanes whose keys are
 * more than 92° apart (outside the series' range) are redone by the
 * scalar slerp. */
/* Lanes whose keys are more than 92° apart, by the scalar slerp: rare,
 * and out of line so the vectors of the hot path stay in registers. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static void grid_slerp_slow_lanes(const float *a, const float *b, float u, vi slow, vf *q)
{
    float m[KERNEL_W], lq[4][KERNEL_W];
    vf_lanes((vf)slow, m);
    for (int c = 0; c < 4; c++) vf_lanes(q[c], lq[c]);
    for (int l = 0; l < KERNEL_W; l++) {
        int32_t bits;
        memcpy(&bits, &m[l], sizeof bits);
        if (!bits) continue;
        float qa[4], qb[4], r[4];
        for (int c = 0; c < 4; c++) qa[c] = a[(3 + c) * BW_GRID_LANES + l], qb[c] = b[(3 + c) * BW_GRID_LANES + l];
        bw_quat_slerp(qa, qb, u, r);
        for (int c = 0; c < 4; c++) lq[c][l] = r[c];
    }
    for (int c = 0; c < 4; c++) q[c] = vf_from_lanes(lq[c]);
}

HOT_INLINE void grid_slerp_block(const float *a, const float *b, float u, const float *ca, const float *cb,
                                 const float (*splat)[4], bool short_series, int renormalize, vf *q)
{
    const vf one = vf_set1(1.0f);
    vf ax = grid_component(a, 3), ay = grid_component(a, 4), az = grid_component(a, 5),
       aw = grid_component(a, 6);
    vf bx = grid_component(b, 3), by = grid_component(b, 4), bz = grid_component(b, 5),
       bw = grid_component(b, 6);
    vf d = vf_add(vf_add(vf_mul(ax, bx), vf_mul(ay, by)), vf_add(vf_mul(az, bz), vf_mul(aw, bw)));
    /* hemisphere: flip b where the dot is negative (or −0, which lands in
     * the slow lanes below anyway) */
    const vf dot = d;
    d = vf_flip_sign(d, dot);
    vi slow = vf_lt(d, vf_set1(BW_SLERP_SERIES_MIN_COS));
    vf x = vf_sub(vf_min1(d), one);
    const float(*sa)[4] = splat ? splat + BW_MIX_SPLAT_CA : NULL, (*sb)[4] = splat ? splat + BW_MIX_SPLAT_CB : NULL;
    vf ka, kb;
    if (short_series) {
        ka = series_estrin4(ca, sa, x);
        kb = series_estrin4(cb, sb, x);
    } else {
        ka = series_estrin(ca, sa, x);
        kb = series_estrin(cb, sb, x);
    }
    kb = vf_flip_sign(kb, dot);
    vf rx = vf_madd(ka, ax, kb, bx), ry = vf_madd(ka, ay, kb, by), rz = vf_madd(ka, az, kb, bz),
       rw = vf_madd(ka, aw, kb, bw);
    if (renormalize) {
        vf n2 = vf_add(vf_add(vf_mul(rx, rx), vf_mul(ry, ry)), vf_add(vf_mul(rz, rz), vf_mul(rw, rw)));
        vf n = vf_sub(vf_set1(1.5f), vf_mul(vf_set1(0.5f), n2));
        rx = vf_mul(rx, n), ry = vf_mul(ry, n), rz = vf_mul(rz, n), rw = vf_mul(rw, n);
    }
    q[0] = rx, q[1] = ry, q[2] = rz, q[3] = rw;
    /* a short-series grid has no lane past the series' range: its cosines
     * are all >= 0.97 (clip_grid.c) */
    if (!short_series && vi_any(slow)) grid_slerp_slow_lanes(a, b, u, slow, q);
}

/* A grid lane's coverage, bw_coverage of the lerped pose and mask
 * weights (a NaN becomes 0). */
HOT_INLINE vf grid_coverage(const float *a, const float *b, vf vv, vf vu)
{
    vf pw = vf_madd(grid_component(a, 10), vv, grid_component(b, 10), vu);
    vf mw = vf_madd(grid_component(a, 11), vv, grid_component(b, 11), vu);
    return vf_clamp01(vf_mul(pw, vf_sub(vf_set1(1.0f), mw)));
}

/* Lerp for translation, scale and weights, slerp for the rotation. */
HOT_INLINE void grid_sample_block(const float *a, const float *b, float u, const float *ca, const float *cb,
                                  bool short_series, block *o, vf *cov)
{
    const vf vu = vf_set1(u), vv = vf_set1(1.0f - u);
#define GLERP(c_) vf_madd(grid_component(a, c_), vv, grid_component(b, c_), vu)
    o->c[TX] = GLERP(0);
    o->c[TY] = GLERP(1);
    o->c[TZ] = GLERP(2);
    o->c[SX] = GLERP(7);
    o->c[SY] = GLERP(8);
    o->c[SZ] = GLERP(9);
#undef GLERP
    grid_slerp_block(a, b, u, ca, cb, NULL, short_series, 1, &o->c[QX]);
    *cov = grid_coverage(a, b, vv, vu);
}
#endif

/* ======== the mixer (SPEC §5; the rule is described in mix.c) ======== */

/* Mix one block of `lanes` (1..W) joints (joint j) over src into out. */
HOT_INLINE void mix_block(const bw_mix_entry *entries, const int *rank_end, int rank_count, int j, int lanes,
                          const bw_transform *src, const float *src_coverage, bw_transform *out, float *out_coverage)
{
    const vf zero = vf_set1(0.0f), one = vf_set1(1.0f);
    /* What lies below (x, its coverage) is read only when a rank has
     * summed something, after its entries: the registers stay free for
     * the sums while the entries run (16 on SSE2). */
    block x;
    vf cov_raw = zero, cr = zero;
    int have_x = 0;
#define LOAD_BELOW()                                                                                                   \
    do {                                                                                                               \
        if (!have_x) {                                                                                                 \
            if (!src) {                                                                                                \
                /* the empty pose: identity at coverage 0, nothing to load */                                          \
                FOR_TS(SET_EMPTY)                                                                                      \
                x.c[QX] = x.c[QY] = x.c[QZ] = zero;                                                                    \
                x.c[QW] = one;                                                                                         \
            } else if (lanes == KERNEL_W) {                                                                            \
                block_load(src, &x);                                                                                   \
            } else {                                                                                                   \
                block_load_tail(src, lanes, &x);                                                                       \
            }                                                                                                          \
            cov_raw = src ? cov_load(src_coverage, lanes) : zero;                                                      \
            cr = vf_clamp01(cov_raw);                                                                                  \
            have_x = 1;                                                                                                \
        }                                                                                                              \
    } while (0)
#define SET_EMPTY(i_) x.c[i_] = (i_) >= SX ? one : zero;
    vi changed = vf_gt(zero, one); /* all false */
    for (int r = 0, e = 0; r < rank_count; r++) {
        block sum;
#define ZERO_SUM(i_) sum.c[i_] = zero;
        FOR_ALL(ZERO_SUM)
        vf share = zero;
        int fresh = 1; /* no entry of this rank summed yet (sum and share are 0) */
        (void)fresh;   /* the portable unit does not use it */
        for (int end = rank_end[r]; e < end; e++) {
            block y;
            vf sh;
            if (entries[e].grid_a) {
                /* sample these joints of the clip's grid in place */
                const size_t at = grid_offset(j);
#if !defined(KERNEL_PORTABLE)
                /* Straight into the sums: grid keys are finite (checked at
                 * clip creation, unkeyed lanes hold identity), so a dead
                 * lane adds an exact 0 without a mask; translation and
                 * scale fold the weight into the lerp factors (sum +=
                 * a·(1 − u)·sh + b·u·sh), the rotation skips the sampler's
                 * renormalization (the rank mean is normalized below). */
                const float *ga = entries[e].grid_a + at, *gb = entries[e].grid_b + at;
                const float gu = entries[e].u;
#if KERNEL_W == 4
                const float(*splat)[4] = (const float(*)[4])entries[e].splat;
#if defined(__GNUC__)
                if (!splat) __builtin_unreachable(); /* an SSE2 mixer always has the rows (mix.c) */
#endif
                const vf vu = v4_load(splat[BW_MIX_SPLAT_U]), vv = v4_load(splat[BW_MIX_SPLAT_V]);
                const vf vw = v4_load(splat[BW_MIX_SPLAT_WEIGHT]);
#else
                const float(*splat)[4] = NULL;
                const vf vu = vf_set1(gu), vv = vf_set1(1.0f - gu), vw = vf_set1(entries[e].weight);
#endif
                if (entries[e].grid_full[j / BW_GRID_LANES]) {
                    sh = vf_min1(vw); /* coverage 1; the weight is > 0 */
                } else {
                    sh = vf_clamp01(vf_mul(vw, grid_coverage(ga, gb, vv, vu)));
                    if (!vi_any(vf_gt(sh, zero))) continue;
                }
                const vf sa = vf_mul(sh, vv), sb = vf_mul(sh, vu);
#define GRID_TS(g_) vf_madd(grid_component(ga, g_), sa, grid_component(gb, g_), sb)
                vf q[4];
                grid_slerp_block(ga, gb, gu, entries[e].ca, entries[e].cb, splat, entries[e].short_series, 0, q);
                if (fresh) {
                    /* nothing summed yet in this rank: the sums are this
                     * entry's terms, and its rotation meets no sign test */
                    sum.c[TX] = GRID_TS(0), sum.c[TY] = GRID_TS(1), sum.c[TZ] = GRID_TS(2);
                    sum.c[SX] = GRID_TS(7), sum.c[SY] = GRID_TS(8), sum.c[SZ] = GRID_TS(9);
                    sum.c[QX] = vf_mul(q[0], sh), sum.c[QY] = vf_mul(q[1], sh);
                    sum.c[QZ] = vf_mul(q[2], sh), sum.c[QW] = vf_mul(q[3], sh);
                    share = sh;
                    fresh = 0;
                    continue;
                }
#define GRID_ADD_TS(i_, g_) sum.c[i_] = vf_add(sum.c[i_], GRID_TS(g_));
                GRID_ADD_TS(TX, 0)
                GRID_ADD_TS(TY, 1)
                GRID_ADD_TS(TZ, 2)
                GRID_ADD_TS(SX, 7)
                GRID_ADD_TS(SY, 8)
                GRID_ADD_TS(SZ, 9)
#undef GRID_ADD_TS
#undef GRID_TS
                vf dq = vf_add(vf_add(vf_mul(sum.c[QX], q[0]), vf_mul(sum.c[QY], q[1])),
                               vf_add(vf_mul(sum.c[QZ], q[2]), vf_mul(sum.c[QW], q[3])));
                vf sr = vf_neg_where(vf_lt(dq, zero), sh);
                sum.c[QX] = vf_add(sum.c[QX], vf_mul(q[0], sr));
                sum.c[QY] = vf_add(sum.c[QY], vf_mul(q[1], sr));
                sum.c[QZ] = vf_add(sum.c[QZ], vf_mul(q[2], sr));
                sum.c[QW] = vf_add(sum.c[QW], vf_mul(q[3], sr));
                share = vf_add(share, sh);
                continue;
#endif
                vf cov;
                grid_sample_block(entries[e].grid_a + at, entries[e].grid_b + at, entries[e].u, entries[e].ca,
                                  entries[e].cb, entries[e].short_series, &y, &cov);
                sh = vf_clamp01(vf_mul(vf_set1(entries[e].weight), cov));
                if (!vi_any(vf_gt(sh, zero))) continue;
            } else {
                sh = vf_clamp01(vf_mul(vf_set1(entries[e].weight), cov_load(entries[e].coverage + j, lanes)));
                if (!vi_any(vf_gt(sh, zero))) continue; /* nothing covered here: skip the loads */
                if (lanes == KERNEL_W) block_load(entries[e].joints + j, &y);
                else block_load_tail(entries[e].joints + j, lanes, &y);
            }
            vi live = vf_gt(sh, zero);
            /* Align each quaternion to the running sum's hemisphere (q and
             * −q must never cancel); the first one meets a zero sum and
             * keeps its sign. */
            vf sr = vf_neg_where(vf_lt(dot_q(&sum, &y), zero), sh);
            /* Dead lanes add an exact 0 (one AND each), even over NaN
             * storage: an uncovered joint's storage is never read as data. */
#define ADD_TS(i_) sum.c[i_] = vf_add(sum.c[i_], vf_mask(live, vf_mul(y.c[i_], sh)));
#define ADD_Q(i_) sum.c[i_] = vf_add(sum.c[i_], vf_mask(live, vf_mul(y.c[i_], sr)));
            FOR_TS(ADD_TS)
            FOR_Q(ADD_Q)
            share = vf_add(share, sh);
            fresh = 0;
        }
        vi has = vf_gt(share, zero);
        if (!vi_any(has)) continue;
        LOAD_BELOW();
        /* Rank coverage c_k and overlay weights (c_r(1 − c_k), c_k) / total. */
        vf safe_share = vf_select(has, share, one);
        vf ck = vf_min1(safe_share);
        vf wa = vf_mul(cr, vf_sub(one, ck));
        vf total = vf_add(wa, ck); /* ≥ ck > 0 */
        /* One division serves all three weights: a = wa / total, b = ck /
         * total, and bm = b / share, which turns the share-weighted sum
         * straight into b × mean. */
        vf inv_ts = vf_div(one, vf_mul(total, safe_share));
        vf bm = vf_mul(ck, inv_ts);
        vf a = vf_mul(vf_mul(wa, safe_share), inv_ts), b = vf_mul(bm, safe_share);
        block n;
#define BLEND_TS(i_) n.c[i_] = vf_madd(x.c[i_], a, sum.c[i_], bm);
        FOR_TS(BLEND_TS)
        /* Rotation: nlerp with weights (a, b) of the running rotation and the
         * rank's normalized mean, after hemisphere alignment. Where a == 0
         * (full rank coverage, or nothing below) the mean's length does not
         * matter because the result is normalized anyway. */
        vi need_unit = vf_gt(a, zero);
        vf kq = one;
        if (vi_any(need_unit)) {
            vf len = vf_sqrt(vf_select(need_unit, dot_q(&sum, &sum), one));
            kq = vf_select(need_unit, vf_div(b, len), one);
        }
        kq = vf_neg_where(vf_lt(dot_q(&x, &sum), zero), kq);
#define BLEND_Q(i_) n.c[i_] = vf_madd(x.c[i_], a, sum.c[i_], kq);
        FOR_Q(BLEND_Q)
        vf n2 = dot_q(&n, &n);
        /* One finiteness test per joint: a NaN or inf anywhere makes the sum
         * NaN or inf, and then sum − sum is not 0. Large finite values can
         * make it inf too (three translations of 3e38): when a lane fails,
         * which is rare, the lanes are judged again with each value times
         * 0 (0, or NaN for a NaN or inf), which cannot overflow. */
        vf probe = vf_add(vf_add(vf_add(n.c[TX], n.c[TY]), vf_add(n.c[TZ], n.c[SX])),
                          vf_add(vf_add(n.c[SY], n.c[SZ]), n2));
        vi ok = vi_and(has, vf_gt(n2, vf_set1(1e-30f)));
        vi finite = vf_finite(probe);
        if (!vi_all(finite)) {
#define ZEROED(i_) vf_mul(n.c[i_], zero)
            probe = vf_add(vf_add(vf_add(ZEROED(TX), ZEROED(TY)), vf_add(ZEROED(TZ), ZEROED(SX))),
                           vf_add(vf_add(ZEROED(SY), ZEROED(SZ)), vf_mul(n2, zero)));
#undef ZEROED
            finite = vf_finite(probe);
        }
        ok = vi_and(ok, finite);
        vf kn = vf_div(one, vf_sqrt(vf_select(ok, n2, one)));
#define NORMALIZE_Q(i_) n.c[i_] = vf_mul(n.c[i_], kn);
        FOR_Q(NORMALIZE_Q)
        /* Lanes that failed keep what lay below, coverage included. */
        if (vi_all(ok)) {
#define TAKE_ALL(i_) x.c[i_] = n.c[i_];
            FOR_ALL(TAKE_ALL)
            cr = vf_min1(total);
        } else {
#define TAKE(i_) x.c[i_] = vf_select(ok, n.c[i_], x.c[i_]);
            FOR_ALL(TAKE)
            cr = vf_select(ok, vf_min1(total), cr);
        }
        changed = vi_or(changed, ok);
    }
    /* a block nobody changed is not rewritten in place; from another base
     * it is copied through (loads and stores only move bits) */
    if (!vi_any(changed) && src == out) return;
    LOAD_BELOW();
#undef LOAD_BELOW
#undef SET_EMPTY
    /* Unchanged lanes still hold their loaded bits; their coverage is
     * restored raw (not clamped), so they pass through exactly. */
    if (lanes == KERNEL_W) block_store(&x, out);
    else block_store_tail(&x, out, lanes);
    cov_store(out_coverage, vf_select(changed, cr, cov_raw), lanes);
}

static void KERNEL(mix_joints)(const bw_mix_entry *entries, const int *rank_end, int rank_count, int joint_count,
                               const bw_transform *src, const float *src_coverage, bw_transform *out,
                               float *out_coverage)
{
    int j = 0;
    for (; j + KERNEL_W <= joint_count; j += KERNEL_W)
        mix_block(entries, rank_end, rank_count, j, KERNEL_W, src ? src + j : NULL, src ? src_coverage + j : NULL,
                  out + j, out_coverage + j);
    if (j < joint_count)
        mix_block(entries, rank_end, rank_count, j, joint_count - j, src ? src + j : NULL,
                  src ? src_coverage + j : NULL, out + j, out_coverage + j);
}

/* ======== uniform-grid sampling (sample.c) ======== */

static void KERNEL(sample_grid)(const bw_grid_binding *gb, const float *ra, const float *rb, float u, const float *ca,
                                const float *cb, bool short_series, bw_transform *joints, float *coverage,
                                int joint_count)
{
    const int lane_count = gb->block_count * BW_GRID_LANES;
    int first = 0;
    if (gb->dense) {
        /* lane l drives joint l: whole blocks go through the in-register
         * transposes straight into the pose */
        /* two blocks per step: independent work for the scheduler while
         * one block's slerp chain runs */
        for (; first + 2 * KERNEL_W <= joint_count; first += 2 * KERNEL_W) {
            const size_t at0 = grid_offset(first), at1 = grid_offset(first + KERNEL_W);
            block x0, x1;
            vf cov0, cov1;
            grid_sample_block(ra + at0, rb + at0, u, ca, cb, short_series, &x0, &cov0);
            grid_sample_block(ra + at1, rb + at1, u, ca, cb, short_series, &x1, &cov1);
            block_store(&x0, joints + first);
            vf_store(coverage + first, cov0);
            block_store(&x1, joints + first + KERNEL_W);
            vf_store(coverage + first + KERNEL_W, cov1);
        }
        for (; first + KERNEL_W <= joint_count; first += KERNEL_W) {
            const size_t at = grid_offset(first);
            block x;
            vf cov;
            grid_sample_block(ra + at, rb + at, u, ca, cb, short_series, &x, &cov);
            block_store(&x, joints + first);
            vf_store(coverage + first, cov);
        }
    }
    for (; first < lane_count; first += KERNEL_W) {
        const size_t at = grid_offset(first);
        block x;
        vf cov;
        grid_sample_block(ra + at, rb + at, u, ca, cb, short_series, &x, &cov);
        /* other lanes (and a dense binding's tail) through a copy */
        bw_transform tmp[KERNEL_W];
        float tcov[KERNEL_W];
        block_store(&x, tmp);
        vf_store(tcov, cov);
        const int *lanes = gb->lane_joint + first;
        for (int l = 0; l < KERNEL_W; l++) {
            const int j = lanes[l];
            if (j >= 0 && j < joint_count) {
                joints[j] = tmp[l];
                coverage[j] = tcov[l];
            }
        }
    }
}

/* ======== the additive layer (graph_additive.c) ======== */

#if defined(KERNEL_PORTABLE)
/* The portable path has no block form: graph_additive.c's joint-by-joint
 * code is the reference and does every joint. */
static int KERNEL(add_layer)(bw_transform *out, const bw_transform *pose, const float *pose_coverage,
                             const bw_transform *ref, const float *mask, float weight, int joint_count,
                             bw_add_slow_fn slow, void *user)
{
    (void)out, (void)pose, (void)pose_coverage, (void)ref, (void)mask, (void)weight, (void)joint_count;
    (void)slow, (void)user;
    return 0;
}
#else
/* The slerp series coefficients (bw_slerp_series) of u, lane by lane:
 * c_0 = u, c_i = c_{i−1} (u² − i²) / (i (2i + 1)). */
HOT_INLINE void series_of_lanes(vf u, vf c[BW_SLERP_SERIES_TERMS])
{
    const vf u2 = vf_mul(u, u);
    c[0] = u;
#define SERIES_STEP(i_, inv_) c[i_] = vf_mul(c[(i_)-1], vf_mul(vf_sub(u2, vf_set1((float)((i_) * (i_)))), vf_set1(inv_)));
    SERIES_STEP(1, 1.0f / 3.0f)
    SERIES_STEP(2, 1.0f / 10.0f)
    SERIES_STEP(3, 1.0f / 21.0f)
    SERIES_STEP(4, 1.0f / 36.0f)
    SERIES_STEP(5, 1.0f / 55.0f)
    SERIES_STEP(6, 1.0f / 78.0f)
    SERIES_STEP(7, 1.0f / 105.0f)
#undef SERIES_STEP
}

/* W joints from j: the formulas of graph_additive.c's add_joint with
 * each lane's own a = weight × mask × clamp01(coverage), Δr^a by the
 * slerp series of a. Lanes with a ≤ 0 or not finite stay as they are;
 * lanes with a > 1, a delta of 92° or more or a degenerate norm go to
 * `slow` (the exact form) after the block is stored; a lane whose result
 * is not finite keeps its value. */
HOT_INLINE void add_layer_block(bw_transform *out, const bw_transform *pose, const float *pose_coverage,
                                const bw_transform *ref, const float *mask, float weight, const vf *ca_weight,
                                const vf *cb_weight, int j, bw_add_slow_fn slow, void *user)
{
    const vf zero = vf_set1(0.0f), one = vf_set1(1.0f);
    vf a = vf_mul(vf_set1(weight), vf_clamp01(vf_load(pose_coverage + j)));
    if (mask) a = vf_mul(a, vf_load(mask + j));
    const vi live = vf_gt(a, zero) & vf_finite(a);
    if (!vi_any(live)) return;
    block p, r, x;
    block_load(pose + j, &p);
    block_load(ref + j, &r);
    /* delta = conj(r) · p (bw_quat_mul's terms in its order) */
    const vf ix = vf_sub(zero, r.c[QX]), iy = vf_sub(zero, r.c[QY]), iz = vf_sub(zero, r.c[QZ]), iw = r.c[QW];
    vf dx = vf_sub(vf_add(vf_add(vf_mul(iw, p.c[QX]), vf_mul(ix, p.c[QW])), vf_mul(iy, p.c[QZ])), vf_mul(iz, p.c[QY]));
    vf dy = vf_add(vf_add(vf_sub(vf_mul(iw, p.c[QY]), vf_mul(ix, p.c[QZ])), vf_mul(iy, p.c[QW])), vf_mul(iz, p.c[QX]));
    vf dz = vf_add(vf_sub(vf_add(vf_mul(iw, p.c[QZ]), vf_mul(ix, p.c[QY])), vf_mul(iy, p.c[QX])), vf_mul(iz, p.c[QW]));
    vf dw = vf_sub(vf_sub(vf_sub(vf_mul(iw, p.c[QW]), vf_mul(ix, p.c[QX])), vf_mul(iy, p.c[QY])), vf_mul(iz, p.c[QZ]));
    /* Δr^a = k_a·1 + k_b·delta in delta's hemisphere (cos θ = |dw|) */
    const vi negative = vf_lt(dw, zero);
    vf w = vf_neg_where(negative, dw);
    /* a ≤ 1 and w ≥ the series' least cosine, each false for NaN as in
     * the scalar test */
    const vf min_cos = vf_set1(BW_SLERP_SERIES_MIN_COS);
    vi fast = live & (vf_lt(a, one) | vf_eq(a, one)) & (vf_lt(min_cos, w) | vf_eq(min_cos, w));
    const vf d = vf_sub(vf_min1(w), one);
    /* the series of each lane's a; where every live lane's a is the
     * layer weight (no mask, full coverage: the usual block), the
     * caller's, computed once by the same operations (the same bits) */
    vf ka, kb;
    if (vi_all(~live | vf_eq(a, vf_set1(weight)))) {
        ka = series_estrin_lanes(ca_weight, d);
        kb = series_estrin_lanes(cb_weight, d);
    } else {
        vf ca[BW_SLERP_SERIES_TERMS], cb[BW_SLERP_SERIES_TERMS];
        const vf safe_a = vf_select(fast, a, zero); /* lanes outside [0, 1] never reach the series */
        series_of_lanes(vf_sub(one, safe_a), ca);
        series_of_lanes(safe_a, cb);
        ka = series_estrin_lanes(ca, d);
        kb = series_estrin_lanes(cb, d);
    }
    kb = vf_neg_where(negative, kb);
    const vf sx = vf_mul(kb, dx), sy = vf_mul(kb, dy), sz = vf_mul(kb, dz), sw = vf_add(ka, vf_mul(kb, dw));
    block_load(out + j, &x);
    /* x.r · step, then normalized */
    vf ox = vf_sub(vf_add(vf_add(vf_mul(x.c[QW], sx), vf_mul(x.c[QX], sw)), vf_mul(x.c[QY], sz)), vf_mul(x.c[QZ], sy));
    vf oy = vf_add(vf_add(vf_sub(vf_mul(x.c[QW], sy), vf_mul(x.c[QX], sz)), vf_mul(x.c[QY], sw)), vf_mul(x.c[QZ], sx));
    vf oz = vf_add(vf_sub(vf_add(vf_mul(x.c[QW], sz), vf_mul(x.c[QX], sy)), vf_mul(x.c[QY], sx)), vf_mul(x.c[QZ], sw));
    vf ow = vf_sub(vf_sub(vf_sub(vf_mul(x.c[QW], sw), vf_mul(x.c[QX], sx)), vf_mul(x.c[QY], sy)), vf_mul(x.c[QZ], sz));
    const vf n2 = vf_add(vf_add(vf_add(vf_mul(ox, ox), vf_mul(oy, oy)), vf_mul(oz, oz)), vf_mul(ow, ow));
    fast &= vf_gt(n2, vf_set1(1e-30f)) & vf_finite(n2);
    const vf inv = vf_div(one, vf_sqrt(vf_select(fast, n2, one)));
    block y;
    y.c[QX] = vf_mul(ox, inv), y.c[QY] = vf_mul(oy, inv), y.c[QZ] = vf_mul(oz, inv), y.c[QW] = vf_mul(ow, inv);
    /* t += a·Δt, s *= 1 + a·(Δs − 1) with Δs = s / s_ref (1 where s_ref is 0) */
#define ADD_T(i_) y.c[i_] = vf_add(x.c[i_], vf_mul(a, vf_sub(p.c[i_], r.c[i_])));
#define ADD_S(i_)                                                                                                      \
    {                                                                                                                  \
        const vi unkeyed = vf_eq(r.c[i_], zero); /* s_ref == 0 (a NaN s_ref divides, as in the scalar form) */       \
        const vf ratio = vf_select(unkeyed, one, vf_div(p.c[i_], vf_select(unkeyed, one, r.c[i_])));                  \
        y.c[i_] = vf_mul(x.c[i_], vf_add(one, vf_mul(a, vf_sub(ratio, one))));                                         \
    }
    ADD_T(TX) ADD_T(TY) ADD_T(TZ)
    ADD_S(SX) ADD_S(SY) ADD_S(SZ)
#undef ADD_T
#undef ADD_S
    vi ok = fast;
#define FINITE(i_) ok = vi_and(ok, vf_finite(y.c[i_]));
    FOR_ALL(FINITE)
#undef FINITE
    if (vi_any(ok)) {
#define TAKE_OK(i_) x.c[i_] = vf_select(ok, y.c[i_], x.c[i_]);
        FOR_ALL(TAKE_OK)
#undef TAKE_OK
        block_store(&x, out + j);
    }
    const vi rest = live & ~fast;
    if (vi_any(rest)) {
        float m[KERNEL_W], al[KERNEL_W];
        vf_lanes((vf)rest, m);
        vf_lanes(a, al);
        for (int l = 0; l < KERNEL_W; l++) {
            int32_t bits;
            memcpy(&bits, &m[l], sizeof bits);
            if (bits) slow(user, j + l, al[l]);
        }
    }
}

static int KERNEL(add_layer)(bw_transform *out, const bw_transform *pose, const float *pose_coverage,
                             const bw_transform *ref, const float *mask, float weight, int joint_count,
                             bw_add_slow_fn slow, void *user)
{
    vf ca[BW_SLERP_SERIES_TERMS], cb[BW_SLERP_SERIES_TERMS];
    const vf w = vf_set1(isfinite(weight) && weight > 0.0f && weight <= 1.0f ? weight : 0.0f);
    series_of_lanes(vf_sub(vf_set1(1.0f), w), ca);
    series_of_lanes(w, cb);
    int j = 0;
    for (; j + KERNEL_W <= joint_count; j += KERNEL_W)
        add_layer_block(out, pose, pose_coverage, ref, mask, weight, ca, cb, j, slow, user);
    return j;
}
#endif

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
    /* two halves summed last: a chain of joints waits on this column
     * (every child reads it), and the halves overlap (with FMA: fma ‖
     * mul-fma, then one add, instead of mul-fma-fma-add) */
    column m3 = (p0 * t[0] + p3) + (p1 * t[1] + p2 * t[2]);
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

#if defined(KERNEL_PORTABLE)
/* The scalar reference: affine.h's columns, joint by joint. */
HOT_INLINE void local_columns(const bw_transform *x, int lanes, float (*cs)[KERNEL_W])
{
    for (int l = 0; l < lanes; l++) {
        float c[3][3];
        rotation_scale_columns(&x[l], c);
        for (int k = 0; k < 9; k++) cs[k][l] = c[k / 3][k % 3];
        for (int k = 0; k < 3; k++) cs[9 + k][l] = x[l].t[k];
    }
}
#else
/* affine.h's rotation_scale_columns on W joints at once (same formulas,
 * same treatment of zero and non-finite rotations), into columns-major
 * scratch: cs[3k + r][lane] = c[k][r], cs[9 + r][lane] = t[r]. */
HOT_INLINE void local_columns(const bw_transform *x, int lanes, float (*cs)[KERNEL_W])
{
    block b;
    if (lanes == KERNEL_W) block_load(x, &b);
    else block_load_tail(x, lanes, &b);
    const vf one = vf_set1(1.0f), zero = vf_set1(0.0f);
    vf qx = b.c[QX], qy = b.c[QY], qz = b.c[QZ], qw = b.c[QW];
    vf n2 = vf_add(vf_add(vf_mul(qx, qx), vf_mul(qy, qy)), vf_add(vf_mul(qz, qz), vf_mul(qw, qw)));
    vi ok = vi_and(vf_gt(n2, vf_set1(1e-30f)), vf_lt(n2, vf_set1(INFINITY))); /* NaN fails both */
    vf k = vf_select(ok, vf_div(vf_set1(2.0f), vf_select(ok, n2, one)), zero);
    qx = vf_mask(ok, qx), qy = vf_mask(ok, qy), qz = vf_mask(ok, qz), qw = vf_mask(ok, qw);
    vf xx = vf_mul(vf_mul(qx, qx), k), yy = vf_mul(vf_mul(qy, qy), k), zz = vf_mul(vf_mul(qz, qz), k);
    vf xy = vf_mul(vf_mul(qx, qy), k), xz = vf_mul(vf_mul(qx, qz), k), yz = vf_mul(vf_mul(qy, qz), k);
    vf wx = vf_mul(vf_mul(qw, qx), k), wy = vf_mul(vf_mul(qw, qy), k), wz = vf_mul(vf_mul(qw, qz), k);
    vf_store(cs[0], vf_mul(vf_sub(vf_sub(one, yy), zz), b.c[SX]));
    vf_store(cs[1], vf_mul(vf_add(xy, wz), b.c[SX]));
    vf_store(cs[2], vf_mul(vf_sub(xz, wy), b.c[SX]));
    vf_store(cs[3], vf_mul(vf_sub(xy, wz), b.c[SY]));
    vf_store(cs[4], vf_mul(vf_sub(vf_sub(one, xx), zz), b.c[SY]));
    vf_store(cs[5], vf_mul(vf_add(yz, wx), b.c[SY]));
    vf_store(cs[6], vf_mul(vf_add(xz, wy), b.c[SZ]));
    vf_store(cs[7], vf_mul(vf_sub(yz, wx), b.c[SZ]));
    vf_store(cs[8], vf_mul(vf_sub(vf_sub(one, xx), yy), b.c[SZ]));
    vf_store(cs[9], b.c[TX]);
    vf_store(cs[10], b.c[TY]);
    vf_store(cs[11], b.c[TZ]);
}
#endif

#if KERNEL_W == 16
/* AVX-512: a model matrix is one 16-float vector, so model = parent ·
 * local is three multiply-adds of whole matrices: column k of the product
 * is Σ_r P_r · L[k][r] (+ P_3 for the translation column), i.e. the
 * parent's column r repeated four times times A_r = (L[0][r] ×4, L[1][r]
 * ×4, L[2][r] ×4, t_r ×4). The scratch is transposed once per 16 joints
 * so each joint's A_r is one 16-byte load and one permute. */
HOT_INLINE void affine_rows(const float (*cs)[KERNEL_W], float (*rows)[12])
{
    for (int r = 0; r < 3; r++) {
        vf o[4];
        TRANSPOSE_W(vf_load(cs[r]), vf_load(cs[3 + r]), vf_load(cs[6 + r]), vf_load(cs[9 + r]), o[0], o[1], o[2], o[3]);
        for (int k = 0; k < 4; k++) {
            v4 parts[GROUPS];
            vf_split(o[k], parts);
            for (int g = 0; g < GROUPS; g++) v4_store(&rows[4 * g + k][4 * r], parts[g]);
        }
    }
}

HOT_INLINE __m512 combine_rows(__m512 p, const float *row, float m[4][4])
{
    const __m512i spread = _mm512_set_epi32(3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0);
    const __m512 a0 = _mm512_permutexvar_ps(spread, _mm512_castps128_ps512(_mm_loadu_ps(row)));
    const __m512 a1 = _mm512_permutexvar_ps(spread, _mm512_castps128_ps512(_mm_loadu_ps(row + 4)));
    const __m512 a2 = _mm512_permutexvar_ps(spread, _mm512_castps128_ps512(_mm_loadu_ps(row + 8)));
    /* two halves summed last, so they overlap: the next joint of a chain
     * waits on r (mul-fma ‖ mul-add, then one add, instead of
     * mul-fma-fma-add) */
    __m512 h0 = _mm512_mul_ps(_mm512_shuffle_f32x4(p, p, 0x00), a0);
    h0 = _mm512_fmadd_ps(_mm512_shuffle_f32x4(p, p, 0x55), a1, h0);
    __m512 h1 = _mm512_mul_ps(_mm512_shuffle_f32x4(p, p, 0xaa), a2);
    h1 = _mm512_mask_add_ps(h1, 0xf000, h1, p); /* + P_3 in the translation column */
    __m512 r = _mm512_add_ps(h0, h1);
    _mm512_storeu_ps(&m[0][0], r);
    return r;
}
#endif

/* Local columns for W joints at a time (vectorised across joints), then
 * the parent products joint by joint in rig order. */
static void KERNEL(local_to_model)(const int *parents, const bw_transform *joints, int count, float (*model)[4][4])
{
    _Alignas(64) float cs[12][KERNEL_W];
#if KERNEL_W == 16
    _Alignas(64) float rows[KERNEL_W][12];
    __m512 last = _mm512_setzero_ps(); /* model[i − 1], kept in a register for chains */
#endif
    for (int g = 0; g < count; g += KERNEL_W) {
        const int lanes = count - g < KERNEL_W ? count - g : KERNEL_W;
        local_columns(joints + g, lanes, cs);
#if KERNEL_W == 16
        affine_rows((const float(*)[KERNEL_W])cs, rows);
#endif
        for (int l = 0; l < lanes; l++) {
            const int i = g + l;
            float(*m)[4] = model[i];
            const int p = parents[i];
#if KERNEL_W == 16
            if (p >= 0) {
                last = combine_rows(p == i - 1 ? last : _mm512_loadu_ps(&model[p][0][0]), rows[l], m);
                continue;
            }
#endif
            const float c[3][3] = {{cs[0][l], cs[1][l], cs[2][l]}, {cs[3][l], cs[4][l], cs[5][l]},
                                   {cs[6][l], cs[7][l], cs[8][l]}};
            const float t[3] = {cs[9][l], cs[10][l], cs[11][l]};
            if (p < 0) {
                store_affine(c, t, m);
#if KERNEL_W == 16
                last = _mm512_loadu_ps(&m[0][0]);
#endif
                continue;
            }
            /* model = parent · local. Both are affine (last row 0 0 0 1),
             * so column k of the product is P0·c[k][0] + P1·c[k][1] +
             * P2·c[k][2] (+ P3 for the translation column), and the last
             * row comes out as 0 0 0 1 by itself. The rig guarantees p <
             * i: the parent is final and never aliases model[i]. */
            combine(model[p], c, t, m);
        }
    }
}

#if defined(KERNEL_PORTABLE)
#define KERNEL_SHORT_SERIES_TERMS BW_SLERP_SERIES_TERMS /* the reference always runs the whole series */
#else
#define KERNEL_SHORT_SERIES_TERMS BW_GRID_SHORT_TERMS /* series_estrin4 */
#endif
static const bw_simd_kernels KERNEL(table) = {KERNEL_PATH,          KERNEL_SHORT_SERIES_TERMS, KERNEL(mix_joints),
                                              KERNEL(sample_grid),  KERNEL(local_to_model),    KERNEL(add_layer)};
