/* simd.h - runtime choice of the per-frame kernels (private).
 *
 * One kernel source, src/kernels.h, is compiled once per path in its own
 * translation unit (simd_portable.c, simd_sse2.c, simd_avx2.c,
 * simd_avx512.c; only the last two get wide-ISA flags, per file, so the
 * global flags stay portable). Each unit exports a table of the same
 * four kernel families; simd.c picks a table once from cpuid (or the
 * BW_SIMD environment variable) and callers ask it for one per path. */
#ifndef BW_SIMD_H
#define BW_SIMD_H

#include "blendwerk/pose.h"
#include "bw_math.h"

struct bw_grid_binding;

/* One live mixer contribution, flattened for the joint loops (mix.c). */
typedef struct bw_mix_entry {
    const bw_transform *joints;
    const float *coverage;
    const float *curves;
    const float *curve_coverage;
    float weight; /* sanitized: finite and > 0 */
    /* A grid clip sampled on the fly (bw_mix_run_clips): its two key rows,
     * the fraction between them and the slerp series for u and 1 − u. NULL
     * grid_a: the entry reads `joints` / `coverage`. */
    const float *grid_a, *grid_b;
    const unsigned char *grid_full; /* per grid block: coverage 1 throughout (bw_clip_grid.full) */
    float u;
    bool short_series; /* the grid's short_series (clip_internal.h): 4 series terms suffice */
    float ca[BW_SLERP_SERIES_TERMS], cb[BW_SLERP_SERIES_TERMS];
    /* The 4-lane SSE2 path only (else NULL): the grid numbers each
     * repeated 4 times (BW_MIX_SPLAT_COUNT rows, 16-byte aligned), where a
     * broadcast is two instructions and a load of a repeated vector folds
     * into the arithmetic. With splat set, ca and cb above are not filled
     * (the kernel reads the rows only). */
    float (*splat)[4];
} bw_mix_entry;
/* Rows of bw_mix_entry.splat: ca, then cb, then weight, u and 1 − u. */
enum {
    BW_MIX_SPLAT_CA = 0,
    BW_MIX_SPLAT_CB = BW_SLERP_SERIES_TERMS,
    BW_MIX_SPLAT_WEIGHT = 2 * BW_SLERP_SERIES_TERMS,
    BW_MIX_SPLAT_U,
    BW_MIX_SPLAT_V,
    BW_MIX_SPLAT_COUNT
};

/* The additive layer's exact form for one joint (graph_additive.c): the
 * block kernel hands it the joints it does not do itself, with their a. */
typedef void (*bw_add_slow_fn)(void *user, int joint, float a);

typedef struct bw_simd_kernels {
    bw_simd_path path;
    /* The slerp series terms (ca, cb) the kernels read on a short-series
     * grid: BW_GRID_SHORT_TERMS on the vector paths, all of them on the
     * portable reference; callers compute no more. */
    int short_series_terms;
    /* The mixer's joint pass (mix.c): entries sorted by rank, rank_end[r]
     * one past rank r's last entry; mixes over src / src_coverage (the
     * base; may be out itself; NULL: the empty pose, identity joints at
     * coverage 0, which is not read) into out / out_coverage, writing
     * every joint of out when src is not out. */
    void (*mix_joints)(const bw_mix_entry *entries, const int *rank_end, int rank_count, int joint_count,
                       const bw_transform *src, const float *src_coverage, bw_transform *out, float *out_coverage);
    /* Sample grid rows ra, rb at fraction u into the joints the binding's
     * lanes drive (sample.c); short_series: the grid's (clip_internal.h). */
    void (*sample_grid)(const struct bw_grid_binding *gb, const float *ra, const float *rb, float u, const float *ca,
                        const float *cb, bool short_series, bw_transform *joints, float *coverage, int joint_count);
    /* model[i] = model[parents[i]] · local(joints[i]) (pose.c). */
    void (*local_to_model)(const int *parents, const bw_transform *joints, int count, float (*model)[4][4]);
    /* The additive layer (graph_additive.c) over the whole blocks of W
     * joints in [0, joint_count): per joint a = weight × mask[j] (mask may
     * be NULL: 1) × clamp01(pose_coverage[j]); out's joint j gets pose ⊖
     * ref at a where a is in (0, 1], the delta under 92° and every result
     * finite; a ≤ 0 or not finite leaves it; the other joints go to `slow`
     * with their a (after their block is stored). Returns the joints
     * covered (a multiple of W; 0 on the portable path, which leaves every
     * joint to the caller). Writes joints only, never coverage. */
    int (*add_layer)(bw_transform *out, const bw_transform *pose, const float *pose_coverage, const bw_transform *ref,
                     const float *mask, float weight, int joint_count, bw_add_slow_fn slow, void *user);
} bw_simd_kernels;

/* The kernels for `path`: AUTO is bw_simd_active(); a path the CPU or the
 * build lacks gives the best supported one below it. Never NULL. */
const bw_simd_kernels *bw_simd_kernels_for(bw_simd_path path);
/* The path AUTO means here: BW_SIMD from the environment when set and
 * supported, else the best the CPU has. Decided on first use. */
bw_simd_path bw_simd_active(void);
/* Whether this build and CPU can run `path` (AUTO: always). */
bool bw_simd_supported(bw_simd_path path);
const char *bw_simd_path_name(bw_simd_path path);

/* The per-path tables, NULL where the build has no such unit. */
extern const bw_simd_kernels *const bw_simd_table_portable;
extern const bw_simd_kernels *const bw_simd_table_sse2;
extern const bw_simd_kernels *const bw_simd_table_avx2;
extern const bw_simd_kernels *const bw_simd_table_avx512;

#endif
