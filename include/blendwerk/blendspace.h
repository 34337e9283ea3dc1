/* blendwerk/blendspace.h - blend-space weights and synchronized phase
 * (SPEC §6). Blend trees, which nest these spaces, are compiled in
 * blendwerk/blendtree.h.
 *
 * Pure functions: every weight function reads the caller's arrays and
 * writes one weight per member into the caller's output array. Nothing here
 * allocates, compares strings or keeps state, so all of it is safe on the
 * per-frame path and from any thread.
 *
 * Contract shared by every weight function:
 * - On success the weights are finite, >= 0 and sum to 1 (to float
 *   rounding). On failure the outputs are untouched.
 * - 0 members is BW_ERR_EMPTY; NULL arrays BW_ERR_INVALID_ARGUMENT; a
 *   non-finite member position (threshold, point, grid value)
 *   BW_ERR_NON_FINITE. One member always gets weight 1.
 * - A non-finite query coordinate (NaN, ±inf) is treated as 0, so a bad
 *   parameter never turns into NaN weights.
 * - Members at identical positions split what one member there would get
 *   evenly ("duplicates share").
 *
 * Modes:
 * - 1D: linear between the neighbouring thresholds around x, clamped to the
 *   end thresholds outside the range. Thresholds may come in any order;
 *   weights are reported in member order.
 *   Rate scaling (locomotion): outside the range, the members at the end
 *   threshold t play at rate x / t, so a 4 m/s run asked for 6 m/s plays at
 *   1.5× and the feet do not skate. The rate is 1 when |t| <= 1e-6 (an
 *   idle at 0 has no speed to scale), 0 when x and t have opposite signs
 *   or x is 0 (standing still: the clip holds rather than runs backwards),
 *   and at most BW_BLEND_MAX_RATE. Inside the range every rate is 1.
 * - 2D cartesian: gradient band interpolation (Johansen 2009), no
 *   triangulation. For member i and every j != i at a different position:
 *     h_ij = 1 − (p − p_i)·(p_j − p_i) / |p_j − p_i|²
 *     w_i  = 0 if any h_ij < 0, else min(1, min_j h_ij); then normalize.
 * - 2D directional: the polar gradient band. For each pair i, j with
 *   a = (|p_i| + |p_j|)/2:  v_ij = (α·θ_ij, (|p_j| − |p_i|)/a),
 *   v_ip = (α·θ_ip, (|p| − |p_i|)/a),  h_ij = 1 − v_ij·v_ip / |v_ij|²,
 *   then as above. Both samples away from the origin: α = 2, θ_ij the
 *   unsigned angle between them, θ_ip the angle from p_i to p, positive
 *   toward p_j (unsigned when θ_ij >= 0.99π; θ_ip = θ_ij when p is the
 *   origin). p_i at the origin: α = 1, θ_ij = angle(p, p_j), θ_ip = 0.
 *   p_j at the origin: α = 1, θ_ij = θ_ip = angle(p, p_i). An angle with
 *   the zero vector is 0. "At the origin" means |p| <= 1e-6 × the largest
 *   sample magnitude.
 *   In both 2D modes an input exactly on a sample selects it, and if every
 *   influence is 0 the nearest sample (Euclidean) wins, ties sharing.
 * - Grid: members on a lattice x_values × y_values, bilinear inside the
 *   cell holding the input, clamped to the edges; member (ix, iy) is
 *   weights[iy × nx + ix]. Each axis follows the 1D rules (any order,
 *   duplicates share).
 *
 * Cost: 1D and grid O(n); the 2D modes O(n²) in the member count (every
 * member's band is bounded by every other member), which is why they take
 * at most BW_BLEND_MAX_MEMBERS members (see below).
 */
#ifndef BLENDWERK_BLENDSPACE_H
#define BLENDWERK_BLENDSPACE_H

#include "blendwerk/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Upper bound of a 1D rate-scaling factor (a guard against a threshold
 * barely above zero turning a modest speed into an absurd rate). */
#define BW_BLEND_MAX_RATE 100.0f
/* Leaves at or below this weight or |rate| do not count toward a cycle. */
#define BW_BLEND_NEGLIGIBLE 1e-4f

/* Member limits: what one evaluation may cost, whoever wrote the data.
 * - BW_BLEND_MAX_MEMBERS: members of a 2D space, cartesian or directional
 *   (bw_blend2d_weights, and the children of a compiled 2D or directional
 *   node). Gradient bands cost O(n²) per evaluation: 64 members are at
 *   most 64 × 63 band tests, while a hostile 4000 were 16 million (about
 *   a second per update). Real 2D spaces hold 5 to 30 samples (idle and
 *   8 directions at 3 speeds are 25), so 64 is twice a large one.
 * - BW_BLEND_MAX_CHILDREN: children of any other compiled blend node (1D,
 *   grid cells). Those cost O(n) per evaluation (a few passes over the
 *   thresholds or the cells), so the limit only keeps one node's scratch
 *   and reading small; the 1D and grid weight functions themselves take
 *   any count. */
#define BW_BLEND_MAX_MEMBERS 64
#define BW_BLEND_MAX_CHILDREN 4096

/* ---- weight functions ---- */

/* 1D weights of `count` members at `thresholds` for input x.
 * `out_rates` may be NULL; otherwise it receives each member's playback
 * rate multiplier under locomotion rate scaling (see above). */
BW_API bw_result bw_blend1d_weights(const float *thresholds, int count, float x, float *out_weights,
                             float *out_rates);

typedef enum bw_blend2d_mode {
    BW_BLEND2D_CARTESIAN = 0, /* gradient band */
    BW_BLEND2D_DIRECTIONAL    /* polar gradient band */
} bw_blend2d_mode;

/* 2D weights of `count` members at `points_xy` (interleaved x0, y0, x1,
 * y1, ...: 2 × count floats) for input (x, y). A mode outside the enum is
 * BW_ERR_INVALID_ARGUMENT; more than BW_BLEND_MAX_MEMBERS members is
 * BW_ERR_LIMIT (the O(n²) cost). */
BW_API bw_result bw_blend2d_weights(const float *points_xy, int count, float x, float y, bw_blend2d_mode mode,
                             float *out_weights);

/* Grid weights of nx × ny members (row-major, x fastest) for input (x, y). */
BW_API bw_result bw_blend_grid_weights(const float *x_values, int nx, const float *y_values, int ny, float x,
                                float y, float *out_weights);

/* ---- synchronized phase ----
 *
 * A leaf of a blend, as a compiled blend tree reports it (blendtree.h) or
 * as a caller assembles it. */
typedef struct bw_blend_leaf {
    int node;     /* index of the leaf node (blend trees; else the caller's) */
    int clip;     /* its clip id */
    float weight; /* total influence, (0, 1]; all leaves sum to 1 */
    float rate;   /* total playback rate (speeds and rate scaling multiplied) */
    float length; /* clip length, seconds */
} bw_blend_leaf;

/* Cycle duration of a blend: Σ w_i × (length_i / |rate_i|) / Σ w_i over
 * leaves whose weight and |rate| exceed BW_BLEND_NEGLIGIBLE and whose
 * length is > 0. 0 when no leaf qualifies (the phase then stands still). */
BW_API float bw_blend_cycle_duration(const bw_blend_leaf *leaves, int count);

/* Advance a normalized progress in [0, 1) by dt seconds against a cycle of
 * `cycle_duration` seconds, wrapped into [0, 1) (Euclidean, so negative dt
 * runs backwards). A non-finite progress counts as 0; a non-finite dt or a
 * cycle duration that is not finite and > 0 leaves the progress as is. */
BW_API float bw_blend_phase_advance(float progress, float dt, float cycle_duration);
/* The unwrapped progress advance bw_blend_phase_advance adds: dt /
 * cycle_duration, or 0 when it adds nothing (non-finite dt, cycle not
 * finite and > 0). Whole cycles count; root motion scales it by a leaf's
 * length. */
BW_API double bw_blend_phase_delta(float dt, float cycle_duration);

/* Sample time of a leaf at normalized progress: progress × length, or
 * (1 − progress) × length for a leaf with negative rate (it plays in
 * reverse). Every leaf thus completes its cycle together with the others. */
BW_API float bw_blend_leaf_time(const bw_blend_leaf *leaf, float progress);

#ifdef __cplusplus
}
#endif
#endif
