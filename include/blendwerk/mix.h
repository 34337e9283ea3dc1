/* blendwerk/mix.h - the per-joint priority mixer (SPEC §5).
 *
 * Contributions (sampled track poses, finished graph poses) are grouped by
 * priority rank and processed lowest rank first (stable: equal ranks keep
 * list order, which does not change the result). Within a rank, per joint:
 *   share_i = clamp(weight_i × coverage_i, 0, 1);
 *   translation and scale accumulate share-weighted; each quaternion is
 *   sign-aligned to the running sum's hemisphere before it is added;
 *   rank mean = sum / Σ share (rotation normalized);
 *   rank coverage c_k = min(Σ share, 1).
 * The running result (coverage c_r) is then overlaid by the rank with the
 * same weighted-mean rule, weights (c_r × (1 − c_k), c_k):
 *   result = mean(result, rank_mean), coverage = c_r + (1 − c_r) × c_k.
 * With a fully covered base (the rig's current values, c_r = 1) that is
 * result = lerp(result, rank_mean, c_k): a rank of coverage 0.25 leaves 75%
 * of what lay below. A zero-coverage base simply takes the rank mean, so
 * the mixer also composes partial poses (graph layers). Joints nobody
 * covers pass through unchanged. Curves mix the same way (angle curves
 * along the shortest arc relative to the running value).
 *
 * Non-finite weights count as 0. Never allocates: the mixer's scratch is
 * sized at creation.
 *
 * Defined results for bad data: a NaN coverage counts as 0, and where a
 * contribution's share is 0 its transform is never read as data (NaN
 * storage there is harmless). If a rank's result for a joint or curve
 * would be non-finite (a NaN or infinite value in a covering contribution,
 * or sums overflowing float), that joint or curve keeps what lay below,
 * coverage included, so NaN never enters `out` from a contribution. Joints
 * and curves that no rank changes keep their values and coverage bit for
 * bit, even a coverage outside [0, 1] (which the arithmetic clamps). Angle curves are not reduced to a
 * canonical range: the result is the running value plus the weighted
 * shortest-arc offsets. Sums within a rank are formed in list order, so
 * permutations of one rank agree to float rounding, not bit for bit.
 *
 * Cost: one pass over the joints, 4, 8 or 16 at a time (the kernel path,
 * see bw_simd_path in pose.h), each read from every contribution and from
 * the base once and written once; a contribution that covers none of a
 * block's joints is skipped for them.
 */
#ifndef BLENDWERK_MIX_H
#define BLENDWERK_MIX_H

#include "blendwerk/pose.h"

struct bw_binding;

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bw_contribution {
    const bw_pose *pose; /* same joint and curve counts as the output; borrowed */
    float weight;        /* playback / layer weight, >= 0 (not finite or <= 0: skipped);
                            each joint's share clamps weight × coverage to [0, 1] */
    int priority;        /* rank; higher ranks overlay lower ones */
} bw_contribution;

typedef struct bw_mixer bw_mixer;

/* How to build a mixer. All-zero except `rig` means the defaults. */
typedef struct bw_mixer_desc {
    const bw_rig *rig;       /* required: the joint and curve counts and each curve's kind
                                (angle curves mix along the shortest arc) are copied, so the
                                rig may be destroyed afterwards; a rig rebuilt with other
                                counts needs a new mixer */
    int max_contributions;   /* contributions per run, >= 0 (0: BW_MIXER_DEFAULT_CONTRIBUTIONS) */
    bw_allocator allocator;  /* by value, kept in the mixer; fn NULL: malloc / free */
    bw_simd_path simd;       /* kernels for mixing and, in bw_mix_run_clips, sampling
                                (pose.h), chosen at creation; same results on every path to
                                float rounding. This was `bool portable`: 0 / false is
                                BW_SIMD_AUTO, 1 / true BW_SIMD_PORTABLE (the scalar kernels
                                tests compare with) */
} bw_mixer_desc;

#define BW_MIXER_DEFAULT_CONTRIBUTIONS 16

/* Scratch for poses of the rig's joints and curves and up to
 * max_contributions contributions per run. BW_ERR_INVALID_ARGUMENT for a
 * NULL desc, rig or out_mixer, a negative max_contributions or a simd
 * value outside bw_simd_path (negative, or BW_SIMD_PATH_COUNT and above);
 * BW_ERR_LIMIT beyond 2^26 joints or curves or 2^20 contributions;
 * BW_ERR_OUT_OF_MEMORY (nothing leaks). The scratch includes one pose per
 * contribution slot for bw_mix_run_clips' non-dense clips, so memory grows
 * with max_contributions × (joints + curves). *out_mixer is set only on
 * success. */
BW_API bw_result bw_mixer_create(const bw_mixer_desc *desc, bw_mixer **out_mixer);
BW_API void bw_mixer_destroy(bw_mixer *mixer); /* NULL is a no-op */

/* Mix `contributions` over `base` into `out`. `base` may be the same pose
 * as `out` (mix in place over the current values); if NULL, `out`'s current
 * contents are the base. Fails with BW_ERR_LIMIT when count exceeds the
 * mixer's capacity and BW_ERR_INVALID_ARGUMENT on mismatched counts (out,
 * base or any contribution pose differing from the mixer's counts), a NULL
 * mixer, out, contribution pose, or contributions array with count > 0, or
 * a negative count; `out` is untouched on failure. Contributions whose
 * weight is not > 0 after sanitising are skipped. Never allocates. */
BW_API bw_result bw_mix_run(bw_mixer *mixer, const bw_pose *base, const bw_contribution *contributions, int count,
                     bw_pose *out);

/* A clip to sample and mix in the same pass (bw_mix_run_clips). */
typedef struct bw_clip_contribution {
    const struct bw_binding *binding; /* made for the rig the mixer serves; borrowed */
    float time;                       /* clip time in seconds (wrap it first for looping
                                         playback; NaN samples at 0, as bw_sample_clip) */
    float weight;                     /* as bw_contribution.weight */
    int priority;                     /* as bw_contribution.priority */
} bw_clip_contribution;

/* Sample every clip at its time (as bw_sample_clip does, with the
 * mixer's `simd` choice of kernels) and mix the
 * samples over `base` into `out` (as bw_mix_run does), in one pass: the
 * result equals sampling into poses and mixing them, to float rounding.
 * A clip whose binding is "dense" (the clip is on a uniform grid, grid
 * lane l drives rig joint l for every joint, every joint keys translation,
 * rotation and scale, and no curve is driven: the usual exported clip)
 * goes straight from the clip's key rows into the mixer's accumulators,
 * a block of joints at a time, with no intermediate pose; other clips (sparse
 * grids, eased or spline keys, curves) are sampled into scratch poses the
 * mixer owns, so every binding made for `rig` is accepted. `rig` is the rig the bindings
 * were made for; its current joint values fill unkeyed channels.
 * Errors (`out` untouched): BW_ERR_INVALID_ARGUMENT for a NULL mixer, rig
 * or out, NULL clips with count > 0, a negative count, poses not matching
 * the mixer, or a NULL binding or one whose layout signature differs from
 * the rig's or whose joint count differs from the mixer's; BW_ERR_LIMIT
 * when count exceeds the mixer's capacity. Never allocates. */
BW_API bw_result bw_mix_run_clips(bw_mixer *mixer, const bw_rig *rig, const bw_pose *base,
                           const bw_clip_contribution *clips, int count, bw_pose *out);

#ifdef __cplusplus
}
#endif
#endif
