/* mix.c - the per-joint priority mixer (SPEC §5, contract in mix.h).
 *
 * Shape of a run, chosen for speed:
 * 1. validate everything, so a failure leaves `out` untouched;
 * 2. copy `base` into `out`;
 * 3. stable insertion sort of the live contributions by priority into
 *    scratch sized at creation (lists are short; no allocation), giving a
 *    flat list of entries and the end index of each rank;
 * 4. one pass over the joints, four at a time. A block of four joints is
 *    transposed into structure-of-arrays registers (one 4-lane vector per
 *    component: tx ty tz qx qy qz qw sx sy sz), so every formula below is
 *    plain vertical arithmetic on four joints at once, and per-joint
 *    decisions (covered or not, hemisphere sign, bad data) are lane masks,
 *    not branches. Per block the running result stays in registers while
 *    each rank is accumulated and overlaid in turn; it is read from `out`
 *    once and written back once. The loops walk precomputed rank
 *    boundaries and never compare priorities.
 * Curves are few and take a plain scalar pass with the same rule.
 * The overlay uses the same weighted-mean rule as the rank mean, with
 * weights (c_r(1 − c_k), c_k) normalized by the new coverage.
 */
#include "blendwerk/mix.h"

#include <stddef.h>
#include <stdint.h>

#include "blendwerk/sample.h"
#include "common.h"
#include "grid_sample.h"

#if defined(__SSE__) || defined(_M_X64)
#include <xmmintrin.h>
#define MIX_SSE 1
#endif

/* One live contribution, flattened for the joint loops. */
typedef struct entry {
    const bw_transform *joints;
    const float *coverage;
    const float *curves;
    const float *curve_coverage;
    float weight; /* sanitized: finite and > 0 */
    /* A grid clip sampled on the fly (bw_mix_run_clips): its two key rows,
     * the fraction between them and the slerp series for u and 1 − u. NULL
     * grid_a: the entry reads `joints` / `coverage`. */
    const float *grid_a, *grid_b;
    float u;
    float ca[BW_SLERP_SERIES_TERMS], cb[BW_SLERP_SERIES_TERMS];
} entry;

struct bw_mixer {
    bw_allocator alloc; /* by value (fn NULL: malloc) */
    bool portable;      /* scalar grid kernels (bw_mixer_desc.portable) */
    int joint_count;
    int curve_count;
    int max_contributions;
    int *order;                 /* max_contributions: contribution indices sorted by priority */
    entry *entries;             /* max_contributions: the same, flattened */
    int *rank_end;              /* max_contributions: one past each rank's last entry */
    unsigned char *curve_angle; /* curve_count: 1 for BW_CURVE_ANGLE */
    bw_pose *scratch;           /* max_contributions poses for bw_mix_run_clips' other clips */
    bw_contribution *sampled;   /* max_contributions: contributions built by bw_mix_run_clips */
};

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
#if defined(__GNUC__) && !defined(BW_NO_VECTOR_EXT)
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
#if defined(MIX_SSE)
    return _mm_movemask_ps((__m128)m) != 0;
#else
    return (m[0] | m[1] | m[2] | m[3]) != 0;
#endif
}
HOT_INLINE int v4i_all(v4i m)
{
#if defined(MIX_SSE)
    return _mm_movemask_ps((__m128)m) == 0xf;
#else
    return (m[0] & m[1] & m[2] & m[3]) != 0;
#endif
}
HOT_INLINE v4 v4_sqrt(v4 a)
{
#if defined(MIX_SSE)
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
HOT_INLINE void mix_block(const entry *entries, const int *rank_end, int rank_count, int j, int lanes, bool portable,
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
                bw_grid_block(entries[e].grid_a + at, entries[e].grid_b + at, entries[e].u, entries[e].ca,
                              entries[e].cb, portable, res);
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

static inline float sanitize_weight(float w) { return (isfinite(w) && w > 0.0f) ? w : 0.0f; }

/* ---- creation ---- */

static void mixer_free(bw_mixer *m)
{
    const bw_allocator *a = &m->alloc;
    size_t nc = (size_t)m->curve_count, nm = (size_t)m->max_contributions;
    bw_free(a, m->order, nm * sizeof *m->order);
    bw_free(a, m->entries, nm * sizeof *m->entries);
    bw_free(a, m->rank_end, nm * sizeof *m->rank_end);
    bw_free(a, m->curve_angle, nc * sizeof *m->curve_angle);
    if (m->scratch)
        for (size_t i = 0; i < nm; i++) bw_pose_deinit(&m->scratch[i]);
    bw_free(a, m->scratch, nm * sizeof *m->scratch);
    bw_free(a, m->sampled, nm * sizeof *m->sampled);
    bw_allocator copy = m->alloc; /* m is freed through its own copy */
    bw_free(&copy, m, sizeof *m);
}

bw_result bw_mixer_create(const bw_mixer_desc *desc, bw_mixer **out_mixer)
{
    if (!desc || !desc->rig || !out_mixer || desc->max_contributions < 0) return BW_ERR_INVALID_ARGUMENT;
    const int joint_count = bw_rig_joint_count(desc->rig), curve_count = bw_rig_curve_count(desc->rig);
    const int max_contributions = desc->max_contributions ? desc->max_contributions : BW_MIXER_DEFAULT_CONTRIBUTIONS;
    if (joint_count > (1 << 26) || curve_count > (1 << 26) || max_contributions > (1 << 20)) return BW_ERR_LIMIT;
    bw_mixer *m = (bw_mixer *)bw_alloc_zeroed(&desc->allocator, sizeof *m);
    if (!m) return BW_ERR_OUT_OF_MEMORY;
    m->alloc = desc->allocator;
    m->portable = desc->portable;
    m->joint_count = joint_count;
    m->curve_count = curve_count;
    m->max_contributions = max_contributions;
    const bw_allocator *a = &m->alloc;
    size_t nc = (size_t)curve_count, nm = (size_t)max_contributions;
    m->order = (int *)bw_alloc(a, nm * sizeof *m->order);
    m->entries = (entry *)bw_alloc(a, nm * sizeof *m->entries);
    m->rank_end = (int *)bw_alloc(a, nm * sizeof *m->rank_end);
    m->curve_angle = (unsigned char *)bw_alloc_zeroed(a, nc * sizeof *m->curve_angle);
    m->scratch = (bw_pose *)bw_alloc_zeroed(a, nm * sizeof *m->scratch);
    m->sampled = (bw_contribution *)bw_alloc(a, nm * sizeof *m->sampled);
    if (!m->order || !m->entries || !m->rank_end || !m->curve_angle || !m->scratch || !m->sampled) {
        mixer_free(m);
        return BW_ERR_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < nm; i++)
        if (bw_pose_init_counts(&m->scratch[i], joint_count, curve_count, a) != BW_OK) {
            mixer_free(m);
            return BW_ERR_OUT_OF_MEMORY;
        }
    for (int i = 0; i < curve_count; i++) m->curve_angle[i] = bw_rig_curve_kind(desc->rig, i) == BW_CURVE_ANGLE;
    *out_mixer = m;
    return BW_OK;
}

void bw_mixer_destroy(bw_mixer *mixer)
{
    if (mixer) mixer_free(mixer);
}

/* ---- running ---- */

static int pose_fits(const bw_mixer *m, const bw_pose *p)
{
    if (!p || p->joint_count != m->joint_count || p->curve_count != m->curve_count) return 0;
    if (p->joint_count > 0 && (!p->joints || !p->coverage)) return 0;
    if (p->curve_count > 0 && (!p->curves || !p->curve_coverage)) return 0;
    return 1;
}

static void mix_joints(const entry *entries, const int *rank_end, int rank_count, int joint_count, bool portable,
                       bw_transform *out, float *out_coverage)
{
    int j = 0;
    for (; j + 4 <= joint_count; j += 4)
        mix_block(entries, rank_end, rank_count, j, 4, portable, out + j, out_coverage + j);
    if (j < joint_count)
        mix_block(entries, rank_end, rank_count, j, joint_count - j, portable, out + j, out_coverage + j);
}

static void mix_curves(const entry *entries, const int *rank_end, int rank_count, int curve_count,
                       const unsigned char *angle, float *out, float *out_coverage)
{
    for (int i = 0; i < curve_count; i++) {
        float v = out[i], cr = out_coverage[i];
        int changed = 0;
        for (int r = 0, e = 0; r < rank_count; r++) {
            /* Angles are unwrapped to within π of one reference per rank:
             * the running value when it is covered (so the overlay also
             * takes the short way), else the rank's first value. */
            float ref = v;
            int has_ref = bw_clamp01(cr) > 0.0f;
            float share = 0.0f, sum = 0.0f;
            for (int end = rank_end[r]; e < end; e++) {
                if (!entries[e].curves) continue; /* a grid clip drives no curves */
                float sh = bw_clamp01(entries[e].weight * entries[e].curve_coverage[i]);
                if (!(sh > 0.0f)) continue;
                float val = entries[e].curves[i];
                if (angle[i]) {
                    if (!has_ref) {
                        ref = val;
                        has_ref = 1;
                    }
                    val = ref + bw_wrap_angle(val - ref);
                }
                sum += sh * val;
                share += sh;
            }
            if (!(share > 0.0f)) continue;
            float ck = share < 1.0f ? share : 1.0f;
            float wa = bw_clamp01(cr) * (1.0f - ck);
            float total = wa + ck;
            float nv = (wa * v + ck * (sum / share)) / total;
            if (!isfinite(nv)) continue; /* bad data: keep what lay below */
            v = nv;
            cr = total < 1.0f ? total : 1.0f;
            changed = 1;
        }
        if (changed) {
            out[i] = v;
            out_coverage[i] = cr;
        }
    }
}

/* Sort the live contributions by priority into entries and mix. A
 * contribution with a NULL pose is clip `clips[i]` sampled from its grid
 * on the fly (bw_mix_run_clips). Inputs are already validated. */
static void run_mix(bw_mixer *mixer, const bw_contribution *contributions, const bw_clip_contribution *clips,
                    int count, bw_pose *out)
{
    /* Stable insertion sort of the live contributions by priority. */
    int n = 0;
    int *order = mixer->order;
    for (int i = 0; i < count; i++) {
        if (!(sanitize_weight(contributions[i].weight) > 0.0f)) continue;
        int p = contributions[i].priority, k = n;
        while (k > 0 && contributions[order[k - 1]].priority > p) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = i;
        n++;
    }
    int ranks = 0;
    for (int k = 0; k < n; k++) {
        const bw_contribution *c = &contributions[order[k]];
        entry *en = &mixer->entries[k];
        if (c->pose) {
            *en = (entry){c->pose->joints, c->pose->coverage, c->pose->curves, c->pose->curve_coverage,
                          sanitize_weight(c->weight), NULL, NULL, 0.0f, {0}, {0}};
        } else {
            const bw_clip_contribution *cc = &clips[order[k]];
            const bw_clip_grid *g = cc->binding->clip->grid;
            int row;
            float u, time = isnan(cc->time) ? 0.0f : cc->time; /* as bw_sample_clip */
            bw_grid_segment(g, time, &row, &u);
            *en = (entry){NULL, NULL, NULL, NULL, sanitize_weight(c->weight), g->rows + (size_t)row * (size_t)g->row_floats,
                          g->rows + (size_t)(row + 1) * (size_t)g->row_floats, u, {0}, {0}};
            bw_slerp_series(1.0f - u, en->ca);
            bw_slerp_series(u, en->cb);
        }
        if (k + 1 == n || contributions[order[k + 1]].priority != c->priority) mixer->rank_end[ranks++] = k + 1;
    }
    if (ranks == 0) return;
    mix_joints(mixer->entries, mixer->rank_end, ranks, mixer->joint_count, mixer->portable, out->joints,
               out->coverage);
    mix_curves(mixer->entries, mixer->rank_end, ranks, mixer->curve_count, mixer->curve_angle, out->curves,
               out->curve_coverage);
}

bw_result bw_mix_run(bw_mixer *mixer, const bw_pose *base, const bw_contribution *contributions, int count,
                     bw_pose *out)
{
    if (!mixer || !out || count < 0 || (count > 0 && !contributions)) return BW_ERR_INVALID_ARGUMENT;
    if (count > mixer->max_contributions) return BW_ERR_LIMIT;
    if (!pose_fits(mixer, out) || (base && !pose_fits(mixer, base))) return BW_ERR_INVALID_ARGUMENT;
    for (int i = 0; i < count; i++)
        if (!pose_fits(mixer, contributions[i].pose)) return BW_ERR_INVALID_ARGUMENT;
    if (base && base != out) bw_pose_copy(out, base);
    run_mix(mixer, contributions, NULL, count, out);
    return BW_OK;
}

bw_result bw_mix_run_clips(bw_mixer *mixer, const bw_rig *rig, const bw_pose *base,
                           const bw_clip_contribution *clips, int count, bw_pose *out)
{
    if (!mixer || !rig || !out || count < 0 || (count > 0 && !clips)) return BW_ERR_INVALID_ARGUMENT;
    if (count > mixer->max_contributions) return BW_ERR_LIMIT;
    if (!pose_fits(mixer, out) || (base && !pose_fits(mixer, base))) return BW_ERR_INVALID_ARGUMENT;
    const uint64_t signature = bw_rig_layout_signature(rig);
    for (int i = 0; i < count; i++) {
        const bw_binding *b = clips[i].binding;
        if (!b || !b->clip || b->layout_signature != signature || b->joint_count != mixer->joint_count)
            return BW_ERR_INVALID_ARGUMENT;
    }
    if (base && base != out) bw_pose_copy(out, base);
    for (int i = 0; i < count; i++) {
        const bw_binding *b = clips[i].binding;
        bw_contribution *c = &mixer->sampled[i];
        c->weight = clips[i].weight;
        c->priority = clips[i].priority;
        if (b->grid && b->grid->dense) {
            c->pose = NULL; /* sampled block by block inside the mix */
        } else {
            const bw_sample_options so = {mixer->portable};
            bw_sample_clip_with(b, rig, clips[i].time, &so, &mixer->scratch[i]);
            c->pose = &mixer->scratch[i];
        }
    }
    run_mix(mixer, mixer->sampled, clips, count, out);
    return BW_OK;
}
