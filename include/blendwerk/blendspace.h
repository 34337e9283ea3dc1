/* blendwerk/blendspace.h - blend-space weights, blend trees and
 * synchronized phase (SPEC §6).
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
 * Cost: 1D and grid O(n); the 2D modes O(n²) in the member count.
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
/* Deepest blend tree evaluated (root = depth 1). */
#define BW_BLEND_MAX_DEPTH 16

/* ---- weight functions ---- */

/* 1D weights of `count` members at `thresholds` for input x.
 * `out_rates` may be NULL; otherwise it receives each member's playback
 * rate multiplier under locomotion rate scaling (see above). */
bw_result bw_blend1d_weights(const float *thresholds, int count, float x, float *out_weights,
                             float *out_rates);

typedef enum bw_blend2d_mode {
    BW_BLEND2D_CARTESIAN = 0, /* gradient band */
    BW_BLEND2D_DIRECTIONAL    /* polar gradient band */
} bw_blend2d_mode;

/* 2D weights of `count` members at `points_xy` (interleaved x0, y0, x1,
 * y1, ...: 2 × count floats) for input (x, y). A mode outside the enum is
 * BW_ERR_INVALID_ARGUMENT. */
bw_result bw_blend2d_weights(const float *points_xy, int count, float x, float y, bw_blend2d_mode mode,
                             float *out_weights);

/* Grid weights of nx × ny members (row-major, x fastest) for input (x, y). */
bw_result bw_blend_grid_weights(const float *x_values, int nx, const float *y_values, int ny, float x,
                                float y, float *out_weights);

/* ---- blend trees ----
 *
 * A blend tree is a caller-owned array of node descriptors. A leaf names a
 * clip (by the caller's id) with its length; a blend node lists child node
 * indices, their positions in its space and the parameter indices it
 * reads. Evaluation walks from the root and reports every leaf reached
 * with a weight > 0:
 *   weight = product of the influences along the path (sums to 1),
 *   rate   = product of every node's `speed` along the path (root and leaf
 *            included) and of 1D rate-scaling factors.
 * A child of weight 0 is not descended into. A node may be the child of
 * more than one parent (each path gives its own leaf entry) as long as one
 * walk visits at most node_count nodes, which bounds the work and rejects
 * cycles; the depth is limited to BW_BLEND_MAX_DEPTH.
 */
typedef enum bw_blend_node_kind {
    BW_BLEND_NODE_CLIP = 0,    /* leaf */
    BW_BLEND_NODE_1D,          /* positions: child_count thresholds; reads param_x */
    BW_BLEND_NODE_2D,          /* positions: child_count (x, y) pairs; cartesian gradient band */
    BW_BLEND_NODE_DIRECTIONAL, /* positions: child_count (x, y) pairs; polar gradient band */
    BW_BLEND_NODE_GRID,        /* positions: grid_nx x values then grid_ny y values;
                                  child_count = grid_nx × grid_ny, row-major */
    BW_BLEND_NODE_KIND_COUNT
} bw_blend_node_kind;

typedef struct bw_blend_node {
    bw_blend_node_kind kind;
    float speed;            /* playback rate multiplier of this node; finite; 1 = as authored
                               (the helpers below set it). Negative plays in reverse. */
    /* leaf */
    int clip;               /* the caller's clip id, reported back untouched */
    float length;           /* clip length in seconds (>= 0, finite) */
    /* blend nodes */
    const int *children;    /* child_count node indices (borrowed) */
    int child_count;        /* >= 1 */
    const float *positions; /* member positions as described per kind (borrowed) */
    int grid_nx, grid_ny;   /* GRID only */
    int param_x, param_y;   /* parameter indices (param_y: 2D, directional, grid) */
    bool rate_scale;        /* 1D only: locomotion rate scaling outside the range */
} bw_blend_node;

/* Convenience constructors (speed 1). */
static inline bw_blend_node bw_blend_clip_node(int clip, float length)
{
    bw_blend_node n = {BW_BLEND_NODE_CLIP, 1.0f, clip, length, NULL, 0, NULL, 0, 0, -1, -1, false};
    return n;
}
static inline bw_blend_node bw_blend_1d_node(const int *children, const float *thresholds, int count,
                                             int param_x, bool rate_scale)
{
    bw_blend_node n = {BW_BLEND_NODE_1D, 1.0f, -1, 0.0f, children, count, thresholds, 0, 0, param_x, -1,
                       rate_scale};
    return n;
}
static inline bw_blend_node bw_blend_2d_node(bw_blend_node_kind kind, const int *children,
                                             const float *points_xy, int count, int param_x, int param_y)
{
    bw_blend_node n = {kind, 1.0f, -1, 0.0f, children, count, points_xy, 0, 0, param_x, param_y, false};
    return n;
}
static inline bw_blend_node bw_blend_grid_node(const int *children, const float *x_then_y_values, int nx,
                                               int ny, int param_x, int param_y)
{
    bw_blend_node n = {BW_BLEND_NODE_GRID, 1.0f, -1, 0.0f, children, nx * ny, x_then_y_values, nx, ny,
                       param_x, param_y, false};
    return n;
}

typedef struct bw_blend_tree {
    const bw_blend_node *nodes; /* borrowed */
    int node_count;
    int root;                   /* index of the root node */
    int param_count;            /* every param index must be in [0, param_count) */
} bw_blend_tree;

/* What one evaluation needs, from bw_blend_tree_validate. */
typedef struct bw_blend_tree_sizes {
    int max_leaves;    /* leaf entries one evaluation can produce */
    int scratch_count; /* floats of scratch one evaluation needs */
} bw_blend_tree_sizes;

typedef struct bw_blend_leaf {
    int node;     /* index of the leaf node */
    int clip;     /* its clip id */
    float weight; /* total influence, (0, 1]; all leaves sum to 1 */
    float rate;   /* total playback rate (speeds and rate scaling multiplied) */
    float length; /* clip length, seconds */
} bw_blend_leaf;

/* Check a tree (indices, kinds, counts, parameter indices, finite
 * positions / speeds / lengths, depth, visits) and report the sizes one
 * evaluation needs. `out_sizes` and `err` may be NULL. Never allocates. */
bw_result bw_blend_tree_validate(const bw_blend_tree *tree, bw_blend_tree_sizes *out_sizes, bw_error *err);

/* Evaluate for parameter values `params` (tree->param_count floats;
 * non-finite values count as 0). Writes the leaves with weight > 0 into
 * out_leaves (in depth-first order) and their number into
 * *out_leaf_count. Validates first: BW_ERR_LIMIT when leaf_capacity or
 * scratch_count is below what validate reports, and the validation errors
 * above; on failure nothing is written. */
bw_result bw_blend_tree_evaluate(const bw_blend_tree *tree, const float *params, float *scratch,
                                 int scratch_count, bw_blend_leaf *out_leaves, int leaf_capacity,
                                 int *out_leaf_count);

/* ---- synchronized phase ---- */

/* Cycle duration of a blend: Σ w_i × (length_i / |rate_i|) / Σ w_i over
 * leaves whose weight and |rate| exceed BW_BLEND_NEGLIGIBLE and whose
 * length is > 0. 0 when no leaf qualifies (the phase then stands still). */
float bw_blend_cycle_duration(const bw_blend_leaf *leaves, int count);

/* Advance a normalized progress in [0, 1) by dt seconds against a cycle of
 * `cycle_duration` seconds, wrapped into [0, 1) (Euclidean, so negative dt
 * runs backwards). A non-finite progress counts as 0; a non-finite dt or a
 * cycle duration that is not finite and > 0 leaves the progress as is. */
float bw_blend_phase_advance(float progress, float dt, float cycle_duration);

/* Sample time of a leaf at normalized progress: progress × length, or
 * (1 − progress) × length for a leaf with negative rate (it plays in
 * reverse). Every leaf thus completes its cycle together with the others. */
float bw_blend_leaf_time(const bw_blend_leaf *leaf, float progress);

#ifdef __cplusplus
}
#endif
#endif
