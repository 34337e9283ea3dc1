/* graph_internal.h - the compiled graph's layout, shared by graph.c (the
 * compiler and lookups) and graph_cursor.c (the per-character runtime).
 * Not part of the public API. Every array lives in the graph's one block;
 * indices are layer-local for states and transitions. */
#ifndef BW_GRAPH_INTERNAL_H
#define BW_GRAPH_INTERNAL_H

#include <pthread.h>

#include "blendwerk/graph.h"
#include "marker_walk.h"

typedef struct g_param {
    const char *name;
    bw_graph_param_kind kind;
    float value;   /* default (BOOL 0 / 1, TRIGGER 0) */
    float expires; /* TRIGGER with `expiring`: seconds, >= 0 (0: the first update) */
    bool expiring; /* TRIGGER: unsets itself `expires` seconds after fire (false: never) */
} g_param;

typedef struct g_clip {
    float length; /* seconds, >= 0 */
    bool loop;
    int marker_first, marker_count; /* into bw_graph.markers */
} g_clip;

typedef struct g_marker {
    const char *name;
    float time;     /* as authored, seconds (the clip's time order) */
    int name_id;    /* equal for equal names across the graph's clips */
    int loop_occ;   /* how many markers of its clip with the same name come before it in loop order */
    int name_count; /* how many markers of its clip have its name */
} g_marker;

typedef struct g_mask_entry {
    const char *joint; /* "name" or "parent/child" */
    float weight;
    bool propagate;
} g_mask_entry;

typedef struct g_mask {
    const char *name;
    int entry_first, entry_count;
} g_mask;

typedef struct g_condition {
    bw_graph_cond_kind kind;
    int param;
    bw_graph_op op;
    float value;
    bw_graph_predicate_fn fn;
    void *user;
} g_condition;

typedef struct g_transition {
    int from; /* layer-local state, -1 = any */
    int to;
    int cond_first, cond_count; /* into bw_graph.conditions */
    bool has_exit_time;
    float exit_time;
    float duration;
    bw_graph_mode mode;
    float source_speed;
    bool interruptible;
    bw_ease_style curve;
    bw_ease_dir curve_dir;
    bool to_self;
} g_transition;

typedef struct g_state {
    const char *name;
    int clip; /* clip state; -1 for a blend state */
    bool blend;
    bw_blend_tree *tree; /* blend state: the graph's own compiled copy (leaf lengths
                            from the graph's clips); freed with the graph */
    float speed;
    int speed_param; /* -1 = none */
    bool loop;
    float offset;
    int sync; /* sync group (the graph-wide index of its first state), -1 = none */
    /* additive layers: the reference of a leaf is refs[refmap[ref_first + (ref_per_node ?
       leaf node : 0)]]; ref_first -1 on override layers */
    int ref_first;
    bool ref_per_node;
} g_state;

/* A reference pose an additive state measures against: `clip` at `time`,
 * or the rig's rest pose (clip -1). Distinct pairs only. */
typedef struct g_ref {
    int clip;
    float time;
} g_ref;

typedef struct g_layer {
    const char *name;
    int entry; /* layer-local state */
    int mask;  /* -1 = none */
    bool additive;
    float weight;
    int weight_param;                       /* -1 = none */
    int state_first, state_count;           /* into bw_graph.states */
    int transition_first, transition_count; /* into bw_graph.transitions */
} g_layer;

/* One set of baked additive reference poses (bw_graph.ref_count poses)
 * that every cursor whose own baked set is bitwise equal reads instead of
 * its own copy: a crowd on one rig and one set of bindings reads one set,
 * which stays in cache, instead of one per character. Allocated through
 * the graph's allocator; `users` cursors hold it; freed by the last. */
typedef struct g_ref_share {
    struct g_ref_share *next;
    int users;
    bw_pose poses[]; /* ref_count; read-only once published */
} g_ref_share;

struct bw_graph {
    bw_allocator alloc; /* copied from the desc (fn NULL = malloc) */
    /* The shared reference sets of the graph's cursors (graph_cursor.c):
     * a cache beside the immutable graph, so guarded by its lock (cursors
     * of one graph may be created and destroyed on different threads). */
    pthread_mutex_t share_lock;
    g_ref_share *shares;
    size_t size;        /* of the one block */
    int param_count, clip_count, marker_count, mask_count, mask_entry_count, layer_count, state_count, transition_count,
        condition_count;
    int max_states;       /* largest state_count of a layer */
    bool has_sync;        /* some state is in a sync group */
    int max_leaves;       /* most leaves one state plays (>= 1) */
    int max_tree_scratch; /* floats of scratch the largest tree evaluation needs */
    g_param *params;
    g_clip *clips;
    g_marker *markers; /* per clip, in the clip's (time) order */
    /* Per clip (from its marker_first), the walking order of marker_walk.h:
     * marker_times[k] = markers[k].time; loop_order[j] the marker indices
     * (relative to the clip's first) sorted by time modulo the length,
     * stable: the order of one forward loop pass; marker_ring[j] = that
     * position, in [0, length). */
    double *marker_times;
    double *marker_ring;
    int *loop_order;
    g_mask *masks;
    g_mask_entry *mask_entries;
    g_layer *layers;
    g_state *states;
    g_transition *transitions;
    g_condition *conditions;
    g_ref *refs; /* ref_count distinct references */
    int *refmap; /* per additive state: 1 entry, or one per blend node (-1 for inner nodes) */
    int ref_count, refmap_count;
};

/* Add an additive layer (its plays' mixed `pose` against their mixed
 * references `ref`, per joint mask weights or NULL, the layer weight) onto
 * `out` (graph_additive.c). Same counts everywhere. Whole blocks of W
 * joints go through the SIMD path's add_layer kernel (simd.h: W = 4, 8
 * or 16; bw_graph_add_layer takes the active path, _on a chosen one),
 * each joint with its own weight; bw_graph_add_layer_scalar is the same
 * joint by joint, the reference the tests hold every path to (within
 * 1e-6 per component). */
void bw_graph_add_layer(bw_pose *out, const bw_pose *pose, const bw_pose *ref, const float *mask, float weight);
void bw_graph_add_layer_on(bw_simd_path path, bw_pose *out, const bw_pose *pose, const bw_pose *ref, const float *mask,
                           float weight);
void bw_graph_add_layer_scalar(bw_pose *out, const bw_pose *pose, const bw_pose *ref, const float *mask, float weight);
/* q^a of a unit quaternion (graph_additive.c): the exact form (atan2, sin,
 * cos) and the per-frame one (the slerp series, `ca` / `cb` from
 * bw_slerp_series(1 − a) / bw_slerp_series(a); the exact form for a > 1 or
 * rotations of 92° or more). They agree within 1e-6 per component
 * (tests/test_graph.c). */
void bw_graph_quat_pow_exact(const float *q, float a, float *out);
void bw_graph_quat_pow_fast(const float *q, float a, const float *ca, const float *cb, float *out);

/* Free every shared reference set still listed (graph.c calls it from
 * bw_graph_destroy; with every cursor destroyed first there is none). */
void bw_graph_free_shares(bw_graph *g);

/* Where a cursor's per-frame state starts (graph_cursor.c): the part of
 * its one block every update and evaluation touches first (the struct,
 * parameters, layer state, the small per-frame arrays) and its mixer's
 * hot part. An owner keeps the hint (bw_graph_cursor_hint_of, once per
 * cursor) and calls bw_graph_cursor_prefetch with other work before the
 * update (the animator checks the character state): the fetch of a cold
 * cursor is hidden behind it, and the hint itself reads nothing of the
 * cursor. Only a hint: no effect on any value; a zeroed hint does
 * nothing. */
typedef struct bw_graph_cursor_hint {
    const void *cursor, *mixer; /* the two regions, prefetched for writing */
    size_t cursor_bytes, mixer_bytes;
} bw_graph_cursor_hint;
bw_graph_cursor_hint bw_graph_cursor_hint_of(const bw_graph_cursor *c);
void bw_graph_cursor_prefetch(const bw_graph_cursor_hint *hint);

/* Collects every problem of a compile or cursor creation (graph.c). */
typedef struct bw_graph_report {
    bw_graph_errors *list; /* may be NULL */
    bw_result first;       /* code of the first problem */
    int count;
} bw_graph_report;

void bw_graph_report_begin(bw_graph_report *r, bw_graph_errors *list);

/* `a OP b` for a condition's comparison (false for an op outside the enum). */
bool bw_graph_compare(bw_graph_op op, double a, double b);
/* A mask joint by "name", or "parent/child" when the name alone is
 * ambiguous (the whole string is tried as a name first, so names that
 * contain '/' still resolve). -1 missing, BW_RIG_AMBIGUOUS ambiguous. The
 * cursor resolves masks with it, the lint pass checks them with it, and
 * the animator resolves a head chain's names with it. */
int bw_graph_find_mask_joint(const bw_rig *rig, const char *name);
/* A default event queue's size for `graph`: bw_graph_event_bound clamped
 * to [64, BW_GRAPH_DEFAULT_EVENTS_MAX] (the cursor's default; the
 * animator's adds room for its own events). */
int bw_graph_default_events(const bw_graph *graph);
/* Record a problem at desc path `where` with a printf-style message. */
void bw_graph_problem(bw_graph_report *r, bw_result code, const char *where, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* The code for a value that must be finite and >= 0 and is not (types.h):
 * BW_ERR_NON_FINITE for NaN or infinity, BW_ERR_RANGE for a negative. */
static inline bw_result bw_nonneg_problem_code(float x) { return isfinite(x) ? BW_ERR_RANGE : BW_ERR_NON_FINITE; }

/* Layer poses shared by the cursors one thread evaluates in turn (graph.h):
 * `poses` are layer_capacity poses of the capacities; `views` the same
 * storage cut to the counts of the cursor evaluating now. */
struct bw_graph_scratch {
    bw_allocator alloc;
    int joint_capacity, curve_capacity, layer_capacity;
    bw_pose *poses, *views;
    void *block;
    size_t block_size;
};

#endif
