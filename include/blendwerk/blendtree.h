/* blendwerk/blendtree.h - compiled blend trees and their per-instance
 * state (SPEC §6 nesting and synchronized phase).
 *
 * The pattern (the one the state-machine graphs follow):
 * - A *description* (bw_blend_tree_desc: an array of bw_blend_node) is
 *   caller-owned and only read by the compiler.
 * - bw_blend_tree_compile validates it once (every problem reported with
 *   the node it is in) and copies it into ONE allocation, a bw_blend_tree.
 *   A compiled tree is immutable: share it across characters and threads,
 *   destroy it after the last state that uses it.
 * - A bw_blend_tree_state is one character's use of a tree: parameter
 *   values, the normalized phase, scratch and the leaves of the last
 *   update. It is sized from the compiled tree when it is created (or
 *   placed in caller memory of bw_blend_tree_state_size bytes), and never
 *   allocates afterwards. One state belongs to one thread at a time.
 * - Per frame: set parameters by index, bw_blend_tree_state_update(dt),
 *   then emit mixer contributions (bw_blend_tree_state_emit) and root-motion
 *   plays (bw_blend_tree_state_emit_root_plays). Nothing on that path
 *   allocates, validates, compares strings or takes a lock.
 *
 * Evaluation. From the root, every leaf reached with a weight > 0 is
 * reported (depth-first, children in order):
 *   weight = product of the influences along the path (the leaves sum to 1),
 *   rate   = product of every node's speed along the path (root and leaf
 *            included) and of 1D rate-scaling factors.
 * A child of weight 0 is not descended into, so a tree costs only the
 * branches in use. A node may be the child of more than one parent (each
 * path gives its own leaf entry) as long as one walk visits at most
 * node_count nodes, which bounds the work and rejects cycles; the depth is
 * at most BW_BLEND_MAX_DEPTH. Parameter values that are not finite count
 * as 0 (they are stored as 0).
 *
 * Synchronized phase (SPEC §6). The state's progress p in [0, 1) advances
 * by dt / cycle, cycle = bw_blend_cycle_duration of this update's leaves
 * (0: the phase stands still), wrapped as bw_blend_phase_advance does.
 * Every leaf then samples at bw_blend_leaf_time(leaf, p): p × length, or
 * (1 − p) × length for a negative rate. For root motion each leaf also
 * carries its step in unwrapped clip time, as bw_track_set_last_step gives
 * for tracks: from = its time at the progress before the update, delta =
 * (dt / cycle) × length, negative for a negative rate (whole cycles count,
 * so from + delta ≡ time modulo length). Blend leaves loop.
 *
 * Cost: compile O(nodes + children + positions) plus the weight functions'
 * checks; an update costs the weight functions of the visited nodes (1D and
 * grid O(n), 2D O(n²) in a node's child count) plus O(leaves). The
 * compiler bounds each node's share: a 2D or directional node takes at
 * most BW_BLEND_MAX_MEMBERS children (64: O(n²)), any other blend node
 * BW_BLEND_MAX_CHILDREN (4096: O(n)); blendspace.h gives the reasons.
 *
 * Errors: fallible calls return a bw_result and leave their outputs
 * untouched on failure. Compile messages read
 * "blend tree: node 3: length -1 is negative" (with desc.node_labels,
 * "blend tree: root.children[2]: ..."), naming the node and what is wrong.
 */
#ifndef BLENDWERK_BLENDTREE_H
#define BLENDWERK_BLENDTREE_H

#include "blendwerk/blendspace.h"
#include "blendwerk/mix.h"
#include "blendwerk/rootmotion.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Deepest blend tree accepted (root = depth 1). */
#define BW_BLEND_MAX_DEPTH 16

typedef enum bw_blend_node_kind {
    BW_BLEND_NODE_CLIP = 0,    /* leaf */
    BW_BLEND_NODE_1D,          /* positions: child_count thresholds; reads param_x */
    BW_BLEND_NODE_2D,          /* positions: child_count (x, y) pairs; cartesian gradient band */
    BW_BLEND_NODE_DIRECTIONAL, /* positions: child_count (x, y) pairs; polar gradient band */
    BW_BLEND_NODE_GRID,        /* positions: grid_nx x values then grid_ny y values;
                                  child_count = grid_nx × grid_ny, row-major */
    BW_BLEND_NODE_KIND_COUNT
} bw_blend_node_kind;

/* One node of a description. All-zero fields mean defaults where a default
 * exists (speed). Arrays are borrowed: the compiler copies them. */
typedef struct bw_blend_node {
    bw_blend_node_kind kind;
    float speed;            /* playback rate multiplier of this node; finite; 0 means the
                               default 1; negative plays in reverse */
    /* leaf */
    int clip;               /* the caller's clip id (e.g. an index into its binding table),
                               reported back untouched */
    float length;           /* clip length in seconds (>= 0, finite) */
    /* blend nodes */
    const int *children;    /* child_count node indices */
    int child_count;        /* >= 1; at most BW_BLEND_MAX_MEMBERS (2D, directional)
                               or BW_BLEND_MAX_CHILDREN (1D, grid) */
    const float *positions; /* member positions as described per kind */
    int grid_nx, grid_ny;   /* GRID only */
    int param_x, param_y;   /* parameter indices (param_y: 2D, directional, grid) */
    bool rate_scale;        /* 1D only: locomotion rate scaling outside the range */
} bw_blend_node;

/* Convenience constructors (speed 0, i.e. the default 1). */
static inline bw_blend_node bw_blend_clip_node(int clip, float length)
{
    bw_blend_node n = {BW_BLEND_NODE_CLIP, 0.0f, clip, length, NULL, 0, NULL, 0, 0, -1, -1, false};
    return n;
}
static inline bw_blend_node bw_blend_1d_node(const int *children, const float *thresholds, int count,
                                             int param_x, bool rate_scale)
{
    bw_blend_node n = {BW_BLEND_NODE_1D, 0.0f, -1, 0.0f, children, count, thresholds, 0, 0, param_x, -1,
                       rate_scale};
    return n;
}
static inline bw_blend_node bw_blend_2d_node(bw_blend_node_kind kind, const int *children,
                                             const float *points_xy, int count, int param_x, int param_y)
{
    bw_blend_node n = {kind, 0.0f, -1, 0.0f, children, count, points_xy, 0, 0, param_x, param_y, false};
    return n;
}
static inline bw_blend_node bw_blend_grid_node(const int *children, const float *x_then_y_values, int nx,
                                               int ny, int param_x, int param_y)
{
    bw_blend_node n = {BW_BLEND_NODE_GRID, 0.0f, -1, 0.0f, children, nx * ny, x_then_y_values, nx, ny,
                       param_x, param_y, false};
    return n;
}

/* What the compiler reads. Every node in the array is checked, reachable
 * from the root or not; node indices stay as given (leaves report them). */
typedef struct bw_blend_tree_desc {
    const bw_blend_node *nodes; /* node_count nodes (borrowed) */
    int node_count;             /* >= 1 */
    int root;                   /* index of the root node */
    int param_count;            /* >= 0; every param index must be in [0, param_count) */
    const char *const *param_names; /* optional (NULL): param_count distinct non-empty names,
                                       copied, for bw_blend_tree_find_param / _param_name */
    const char *const *node_labels; /* optional (NULL): node_count names used in compile
                                       messages instead of "node i" (e.g. a Lua path); only
                                       read during compile; a NULL entry falls back */
    bw_allocator allocator;     /* fn NULL = the C library's malloc; kept by the tree */
} bw_blend_tree_desc;

/* The compiled, immutable tree (opaque). */
typedef struct bw_blend_tree bw_blend_tree;

/* Validate `desc` and copy it into one allocation. Checks: node_count >= 1,
 * param_count >= 0, the root and every child index in range, kinds, child
 * counts (>= 1; at most BW_BLEND_MAX_MEMBERS for 2D and directional nodes,
 * BW_BLEND_MAX_CHILDREN for 1D and grid ones; grid nx × ny = child_count),
 * parameter indices, finite positions, speeds and lengths (length >= 0),
 * parameter names (present, non-empty, distinct) when given, depth <=
 * BW_BLEND_MAX_DEPTH and at most node_count visits per walk. Results:
 * BW_ERR_INVALID_ARGUMENT (NULL desc or out, bad counts, unknown kind,
 * missing arrays, grid shape), BW_ERR_RANGE (an index out of range),
 * BW_ERR_EMPTY (a blend node without children), BW_ERR_NON_FINITE,
 * BW_ERR_DUPLICATE (repeated parameter name), BW_ERR_LIMIT (member limits,
 * depth, visits, sizes; e.g. "blend tree: node 0: 65 children, more than
 * the 64 a 2D node takes (BW_BLEND_MAX_MEMBERS: its weights cost O(n^2)
 * per evaluation)"), BW_ERR_OUT_OF_MEMORY. `err` (may be NULL) names the
 * node. *out is set only on success. */
BW_API bw_result bw_blend_tree_compile(const bw_blend_tree_desc *desc, bw_blend_tree **out, bw_error *err);
/* Free a compiled tree (NULL is a no-op). Destroy its states first. */
BW_API void bw_blend_tree_destroy(bw_blend_tree *tree);

/* Queries (0 or -1 for a NULL tree). */
BW_API int bw_blend_tree_node_count(const bw_blend_tree *tree);
BW_API int bw_blend_tree_leaf_count(const bw_blend_tree *tree);    /* leaf nodes in the description */
BW_API int bw_blend_tree_max_leaves(const bw_blend_tree *tree);    /* leaf entries one evaluation can report */
BW_API int bw_blend_tree_param_count(const bw_blend_tree *tree);
BW_API int bw_blend_tree_scratch_count(const bw_blend_tree *tree); /* floats of scratch one evaluation needs */
BW_API int bw_blend_tree_root(const bw_blend_tree *tree);
/* The compiled copy of node `index` (speed already resolved: never 0), or
 * NULL out of range. Its arrays point into the tree. */
BW_API const bw_blend_node *bw_blend_tree_node(const bw_blend_tree *tree, int index);
/* Parameter names, if the desc gave them: name of index i (NULL if none or
 * out of range); index of a name (-1 if missing). Not for the frame path. */
BW_API const char *bw_blend_tree_param_name(const bw_blend_tree *tree, int index);
BW_API int bw_blend_tree_find_param(const bw_blend_tree *tree, const char *name);

/* Stateless evaluation for parameter values `params` (param_count floats;
 * non-finite count as 0) with caller buffers: writes the leaves with
 * weight > 0 (depth-first) and their number. BW_ERR_INVALID_ARGUMENT for
 * NULL tree / outputs, NULL params with param_count > 0, NULL scratch when
 * scratch is needed; BW_ERR_LIMIT when leaf_capacity < max_leaves or
 * scratch_count < the tree's scratch count. Nothing is written on failure.
 * Never allocates and never re-validates. */
BW_API bw_result bw_blend_tree_evaluate(const bw_blend_tree *tree, const float *params, float *scratch,
                                 int scratch_count, bw_blend_leaf *out_leaves, int leaf_capacity,
                                 int *out_leaf_count);

/* ---- per-instance state ---- */

/* One reported leaf after an update: the evaluation, its sample time and
 * its step in clip time (see the synchronized phase above). */
typedef struct bw_blend_step_leaf {
    bw_blend_leaf leaf; /* node, clip id, weight, rate, length */
    float time;         /* sample time after the update, seconds in [0, length] */
    double from;        /* clip time before the update, seconds in [0, length] */
    double delta;       /* signed clip-time advance of the update, unwrapped, seconds */
} bw_blend_step_leaf;

typedef struct bw_blend_tree_state bw_blend_tree_state;

/* Bytes of a state for `tree` (0 for NULL), a multiple of max_align_t. */
BW_API size_t bw_blend_tree_state_size(const bw_blend_tree *tree);
/* Place a state for `tree` in caller memory (`size` >= the size above,
 * aligned for max_align_t; the memory must outlive the state and nothing
 * needs freeing). Parameters 0, phase 0, no leaves. BW_ERR_INVALID_ARGUMENT
 * (NULL arguments, misaligned memory), BW_ERR_LIMIT (size too small).
 * The tree must outlive the state. */
BW_API bw_result bw_blend_tree_state_init(const bw_blend_tree *tree, void *memory, size_t size,
                                   bw_blend_tree_state **out_state);
/* The same in one allocation through `allocator` (NULL = malloc). */
BW_API bw_result bw_blend_tree_state_create(const bw_blend_tree *tree, const bw_allocator *allocator,
                                     bw_blend_tree_state **out_state);
BW_API void bw_blend_tree_state_destroy(bw_blend_tree_state *state); /* NULL is a no-op; only for _create */

BW_API const bw_blend_tree *bw_blend_tree_state_tree(const bw_blend_tree_state *state);
/* Set parameter `index` (non-finite stores 0). BW_ERR_RANGE out of range. */
BW_API bw_result bw_blend_tree_state_set_param(bw_blend_tree_state *state, int index, float value);
BW_API float bw_blend_tree_state_param(const bw_blend_tree_state *state, int index); /* 0 out of range */
/* Normalized phase in [0, 1); setting wraps (Euclidean), non-finite is 0.
 * Setting it does not move the leaves until the next update. */
BW_API float bw_blend_tree_state_phase(const bw_blend_tree_state *state);
BW_API void bw_blend_tree_state_set_phase(bw_blend_tree_state *state, float progress);

/* Evaluate the tree for the state's parameters, advance the phase by dt
 * seconds (negative runs backwards; non-finite dt does not move it) and
 * give every leaf its time, from and delta. update(0) re-evaluates in
 * place (delta 0). BW_ERR_INVALID_ARGUMENT for NULL. Never allocates. */
BW_API bw_result bw_blend_tree_state_update(bw_blend_tree_state *state, float dt);
/* The same with every leaf's rate multiplied by `rate` (a graph state's
 * speed, SPEC §12.2; non-finite counts as 0). The cycle shrinks by |rate|,
 * a negative rate plays every leaf backwards, and 0 stands still (no
 * leaf moves, so the cycle is 0). update(dt) is update_scaled(dt, 1). */
BW_API bw_result bw_blend_tree_state_update_scaled(bw_blend_tree_state *state, float dt, float rate);
/* The leaves of the last update (count in *out_count; 0 before the first
 * update), valid until the next update; and that update's cycle duration
 * in seconds (0: no moving leaf). */
BW_API const bw_blend_step_leaf *bw_blend_tree_state_leaves(const bw_blend_tree_state *state, int *out_count);
BW_API float bw_blend_tree_state_cycle(const bw_blend_tree_state *state);

/* Mixer contributions of the last update's leaves for bw_mix_run_clips:
 * binding = bindings[leaf clip id], time = the leaf's time, weight =
 * layer_weight × leaf weight, priority. Leaves whose weight comes out <= 0
 * (or non-finite) are left out. Writes at most `capacity` entries and the
 * count to *out_count. BW_ERR_INVALID_ARGUMENT (NULL state, bindings or
 * outputs, a NULL binding for a reported leaf), BW_ERR_RANGE (a leaf's
 * clip id outside [0, binding_count)), BW_ERR_LIMIT (capacity below the
 * leaves to write); nothing is written on failure. Never allocates. */
BW_API bw_result bw_blend_tree_state_emit(const bw_blend_tree_state *state, const bw_binding *const *bindings,
                                   int binding_count, float layer_weight, int priority,
                                   bw_clip_contribution *out, int capacity, int *out_count);
/* The same leaves as root-motion plays for bw_root_motion_extract: from,
 * delta, loop = true (blends loop), weight and priority as above. */
BW_API bw_result bw_blend_tree_state_emit_root_plays(const bw_blend_tree_state *state, const bw_binding *const *bindings,
                                              int binding_count, float layer_weight, int priority,
                                              bw_root_play *out, int capacity, int *out_count);

#ifdef __cplusplus
}
#endif
#endif
