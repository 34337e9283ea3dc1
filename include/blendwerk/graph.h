/* blendwerk/graph.h - state-machine graphs: the C core (SPEC §7, §12.2).
 *
 * Three kinds of object, three lifetimes:
 * - A *desc* (bw_graph_desc and the structs below) is plain data the caller
 *   owns: names are strings, clips are indices into the caller's clip list,
 *   all-zero fields mean the documented defaults. It is read only during
 *   bw_graph_compile.
 * - A *graph* (bw_graph) is what bw_graph_compile makes of a desc: every
 *   problem of the desc reported at once, every name resolved to an index,
 *   everything copied into one block (state, layer, parameter and marker
 *   names included). Immutable and shareable across characters and
 *   threads; it keeps no pointer into the desc or the clips (clip lengths,
 *   loop flags and markers are copied). Predicate `user` pointers are kept
 *   as given and must outlive the graph.
 * - A *cursor* (bw_graph_cursor) is one character's instance: parameters,
 *   triggers, per-layer state, progress and transition, travel routes,
 *   layer weights, the event queue, the mixer and the pose buffers
 *   (per-layer poses and freeze snapshots), in one block. Everything it needs is
 *   allocated by bw_graph_cursor_create; nothing a cursor does per frame
 *   (set / fire / travel / update / evaluate / drain and the queries)
 *   allocates, compares strings or resolves names. A cursor is not
 *   thread-safe; different cursors of one graph may run in parallel.
 *
 * A frame is:  bw_graph_cursor_update(cursor, dt)       advance, select, fire
 *              bw_graph_cursor_evaluate(cursor, ...)    layer poses, compose
 *              bw_graph_cursor_drain(cursor, fn, user)  deliver events
 * so an event callback sees the newly evaluated pose.
 *
 * One update, per layer in definition order (SPEC §12.2):
 * 1. Advance: the current state's normalized progress p by dt / cycle
 *    (cycle = clip length / |speed|; a negative speed plays the clip
 *    backwards as p grows), a live transition source by
 *    dt × source_speed / its cycle (a frozen source does not move), the
 *    transition timer by dt (reaching the duration ends the transition and
 *    drops the source), the layer weight fade.
 * 2. Select, unless a non-interruptible transition is still running: a
 *    queued travel edge fires once its exit-time gate is open (conditions
 *    ignored; automatic selection is suspended until the route completes);
 *    otherwise any-state transitions, then the current state's, in list
 *    order, first match wins. At most one transition per layer per update.
 * 3. Fire: triggers named in the fired transition's conditions are unset
 *    (no other trigger changes); the source becomes a frozen snapshot of
 *    the layer's last evaluated pose for an interruption (a transition was
 *    in flight) or freeze mode, else the live previous state; the
 *    destination becomes current at p = offset; events exit then enter.
 * Exit-time gate (p accumulates across loops): looping state, e <= 1: open
 * when the advance crossed n + e for some whole n >= 0 (old p < n + e <=
 * new p); looping, e > 1: old p < e <= new p; non-looping: p >= e (p
 * saturates at 1). Fade weight of the destination: curve(timer /
 * duration); duration 0 completes in the update it fires in. Expiring
 * triggers unset at the end of the update in which their age since fire
 * reaches `expires` (0 with has_expires: the first update after fire).
 *
 * Events: markers come from the dominant leaf (largest weight; the clip
 * of a clip state) of one play per layer: the current state, or
 * during a fade the live source while the timer (after this update's
 * advance) is below half the duration and the destination from then on (a
 * frozen source emits none). A state's first advance after it is entered
 * includes its start time. Order within a layer's update: markers, exit,
 * enter; layers in order; the first update starts with every layer's
 * entry `enter`. Marker traversal follows play.h: old endpoint excluded,
 * new included, loop crossings followed, at most 4 cycles per advance.
 *
 * Evaluation (SPEC §5, §7): a clip state's play is (clip, time, weight);
 * a blend state's plays are its blend tree's leaves, every leaf at the
 * state's phase (SPEC §6: the state advances against the weight-averaged
 * cycle duration, its speed multiplied into every leaf's rate). A layer's
 * pose is the fused sample-and-mix (bw_mix_run_clips) of its plays over an
 * uncovered pose, so during a fade source (1 − w) and
 * destination (w) form one weighted mean whose coverage blends too: a
 * joint only one side keys fades in or out with its weight. A frozen
 * source enters the same mean as a pose. Layers then apply in order over
 * `base`: an override layer overlays each joint by layer_weight ×
 * mask_weight × coverage (one mixer rank per layer); an additive layer
 * adds the delta of its plays from their references (each state's
 * bw_graph_reference_desc, default the clip's own pose at time 0; baked at
 * cursor creation; one baked pose when every weighted leaf shares it,
 * else the references mixed with the plays' weights): translation added, the rotation delta post-multiplied in the
 * joint's local frame (r · Δr^a), scale multiplied, curves added, each by
 * a = layer_weight × mask_weight × coverage (not clamped above 1). An
 * additive layer reads only this frame's composition below it and
 * changes no coverage.
 *
 * Sync groups (SPEC §7): after every layer has advanced, per group the
 * most heavily weighted live play (fade weight × layer weight; the first
 * on a tie) leads and every other live play of the group, in any layer,
 * adopts its phase: where the leader's and the follower's dominant clips
 * share marker names (repeated names matched by occurrence), progress maps
 * linearly between the corresponding markers around the leader's phase;
 * otherwise the normalized phase is copied (markers placed along each
 * play's own direction: a play with a negative rate meets them in reverse
 * order). A follower keeps its own whole passes but never moves
 * backwards; its markers, gates and root travel run from where it was to
 * the adopted position (a joining follower's at most its own advance). Markers, gates and root motion then read the synced
 * progress; layers finish (markers, select, fire) in order as above.
 *
 * Errors: bw_graph_compile and bw_graph_cursor_create report every problem
 * they find into a caller-supplied bw_graph_errors (may be NULL), each with
 * a result code, `where` holding the desc path ("layers[0].transitions[3]
 * .to") and a message ("unknown state 'jmup'"); they return the first
 * problem's code and leave *out untouched. Per-frame setters return
 * BW_ERR_RANGE for a bad index, BW_ERR_INVALID_ARGUMENT for the wrong kind
 * of parameter, BW_ERR_NON_FINITE for NaN / infinity, and change nothing
 * on failure.
 */
#ifndef BLENDWERK_GRAPH_H
#define BLENDWERK_GRAPH_H

#include "blendwerk/bind.h"
#include "blendwerk/blendspace.h"
#include "blendwerk/blendtree.h"
#include "blendwerk/easing.h"
#include "blendwerk/pose.h"
#include "blendwerk/rootmotion.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Documented limit (BW_ERR_LIMIT beyond it): at most this many params,
 * masks, layers, states per layer, transitions per layer, conditions per
 * transition and entries per mask. */
#define BW_GRAPH_MAX_ITEMS (1 << 16)
/* Transition `from` meaning any state. */
#define BW_GRAPH_NAME_ANY "*"

/* ---- the description ---- */

typedef enum bw_graph_param_kind {
    BW_GRAPH_PARAM_FLOAT = 0, /* a named float */
    BW_GRAPH_PARAM_BOOL,      /* stored as 0 / 1 */
    BW_GRAPH_PARAM_TRIGGER,   /* a flag (0 / 1), starts unset, consumed by the transition that fires on it */
    BW_GRAPH_PARAM_KIND_COUNT
} bw_graph_param_kind;

typedef struct bw_graph_param_desc {
    const char *name; /* required, unique among parameters */
    bw_graph_param_kind kind;
    float value;   /* default, finite (FLOAT; BOOL: non-zero = true; TRIGGER: ignored) */
    float expires; /* TRIGGER only: seconds after fire it unsets itself, finite, >= 0;
                      0 = never (waits until consumed or reset) unless has_expires */
    bool has_expires; /* TRIGGER only: true: expires as given, 0 included (unset at the
                         end of the first update after fire) */
} bw_graph_param_desc;

typedef enum bw_graph_op {
    BW_GRAPH_LT = 0,
    BW_GRAPH_LE,
    BW_GRAPH_GT,
    BW_GRAPH_GE,
    BW_GRAPH_EQ,
    BW_GRAPH_NE,
    BW_GRAPH_OP_COUNT
} bw_graph_op;

typedef enum bw_graph_cond_kind {
    BW_GRAPH_COND_COMPARE = 0, /* param OP value */
    BW_GRAPH_COND_TRUE,        /* param != 0: a bool is true, a trigger is set */
    BW_GRAPH_COND_NOT,         /* param == 0 */
    BW_GRAPH_COND_PREDICATE,   /* fn(user, params, param_count) */
    BW_GRAPH_COND_KIND_COUNT
} bw_graph_cond_kind;

/* A predicate sees every parameter value by index (triggers as 0 / 1),
 * read-only. It must not call back into the cursor. A predicate that
 * fails (a script error) returns false: the condition does not hold. */
typedef bool (*bw_graph_predicate_fn)(void *user, const float *params, int param_count);

typedef struct bw_graph_condition_desc {
    bw_graph_cond_kind kind;
    const char *param;        /* COMPARE, TRUE, NOT: a parameter name */
    bw_graph_op op;           /* COMPARE */
    float value;              /* COMPARE: finite constant */
    bw_graph_predicate_fn fn; /* PREDICATE: required */
    void *user;               /* PREDICATE: passed back; not owned; outlives the graph */
} bw_graph_condition_desc;

typedef enum bw_graph_mode {
    BW_GRAPH_LIVE = 0, /* the source keeps playing at source_speed × its rate */
    BW_GRAPH_FREEZE,   /* the source is a snapshot of the layer's last evaluated pose */
    BW_GRAPH_MODE_COUNT
} bw_graph_mode;

typedef struct bw_graph_transition_desc {
    const char *from;                          /* a state of the layer, or "*" (any state) */
    const char *to;                            /* a state of the layer */
    const bw_graph_condition_desc *conditions; /* all must hold; none = true */
    int condition_count;
    bool has_exit_time; /* false: no exit-time gate */
    float exit_time;    /* normalized, finite, >= 0 (see the gate above) */
    float duration;     /* fade seconds, finite, >= 0; 0 = instant. (The graph
                           file's default 0.2 belongs to its reader.) */
    bw_graph_mode mode;
    float source_speed;     /* live mode: finite, >= 0; 0 = default 1 unless
                               has_source_speed */
    bool non_interruptible; /* true: no selection in this layer while it runs */
    bw_ease_style curve;    /* fade weight curve, default linear */
    bw_ease_dir curve_dir;  /* default in */
    bool to_self;           /* any-state only: may fire while `to` is current */
    bool has_source_speed;  /* true: source_speed as given, 0 included (a live
                               source that does not advance; unlike freeze mode
                               its pose is still sampled at its progress) */
} bw_graph_transition_desc;

typedef enum bw_graph_loop {
    BW_GRAPH_LOOP_CLIP = 0, /* the clip's own flag */
    BW_GRAPH_LOOP_YES,
    BW_GRAPH_LOOP_NO,
    BW_GRAPH_LOOP_COUNT
} bw_graph_loop;

/* What an additive state's plays are measured against (SPEC §7). The
 * reference poses are sampled once, when a cursor is created, so nothing
 * of a reference is sampled per frame; cursors of a graph whose baked
 * references come out bitwise equal (one rig, the same clips) read one
 * set kept with the graph (made and released as cursors are created and
 * destroyed, under a lock: creation stays safe on several threads), so a
 * crowd reads one set. A frame index k of a clip made at f
 * frames per second is the time k / f. */
typedef enum bw_graph_reference_kind {
    BW_GRAPH_REF_OWN = 0, /* each played clip's own pose at `time` (default: time 0) */
    BW_GRAPH_REF_CLIP,    /* the pose of another clip, `clip`, at `time` (for every leaf) */
    BW_GRAPH_REF_REST,    /* the rig's rest pose (for every leaf) */
    BW_GRAPH_REF_KIND_COUNT
} bw_graph_reference_kind;

typedef struct bw_graph_reference_desc {
    bw_graph_reference_kind kind;
    int clip;   /* CLIP: index into bw_graph_desc.clips */
    float time; /* OWN, CLIP: seconds, finite, >= 0 (clamped to the clip as sampling does) */
} bw_graph_reference_desc;

typedef struct bw_graph_state_desc {
    const char *name;           /* required, unique in the layer, not "*" */
    int clip;                   /* clip state: index into bw_graph_desc.clips */
    const bw_blend_tree *blend; /* blend state instead (clip ignored): a compiled tree
                                   (blendtree.h) whose leaf clip ids index
                                   bw_graph_desc.clips and whose parameter indices index
                                   bw_graph_desc.params (param count <= the graph's).
                                   The graph compiles its own copy with the leaf lengths
                                   of those clips, so the tree may be destroyed after
                                   bw_graph_compile. */
    float speed;                /* rate multiplier, finite; 0 = default 1 unless has_speed;
                                   multiplies every leaf's rate */
    const char *speed_param;    /* optional float parameter multiplied into the rate each update */
    bw_graph_loop loop;         /* blend states: BW_GRAPH_LOOP_CLIP means looping */
    float offset;               /* normalized start time in [0, 1] */
    const char *sync;           /* optional sync group name (any layer's states may share
                                   one); NULL = none, "" is an error */
    bw_graph_reference_desc reference; /* additive layers only (all zero: own clip at time 0;
                                          anything else on an override layer's state is an error) */
    bool has_speed;             /* true: speed as given, 0 included (the state does not
                                   advance: p stays at its offset unless a sync group moves
                                   it; its start marker fires once on its first advance; its
                                   exit-time gates see no advance: looping never open,
                                   non-looping open only when offset >= exit_time) */
} bw_graph_state_desc;

typedef enum bw_graph_layer_mode {
    BW_GRAPH_OVERRIDE = 0,
    BW_GRAPH_ADDITIVE, /* adds its plays' delta from their references (see the top) */
    BW_GRAPH_LAYER_MODE_COUNT
} bw_graph_layer_mode;

typedef struct bw_graph_layer_desc {
    const char *name;  /* required, unique */
    const char *entry; /* required: the state the layer starts in */
    bw_graph_layer_mode mode;
    float weight;                      /* initial layer weight, finite, >= 0; 0 = default 1 unless
                                          has_weight */
    const char *weight_param;          /* optional float / bool parameter: the layer weight follows it
                                          (clamped to >= 0) instead of `weight` and fades */
    const char *mask;                  /* optional mask name; NULL = every joint at weight 1 */
    const bw_graph_state_desc *states; /* >= 1 */
    int state_count;
    const bw_graph_transition_desc *transitions;
    int transition_count;
    bool has_weight;                   /* true: weight as given, 0 included (the layer starts
                                          silent until bw_graph_cursor_set_layer_weight fades it in) */
} bw_graph_layer_desc;

/* One mask entry: a joint named by its name, or "parent/child" when the
 * name alone is ambiguous in the rig (resolved per cursor, see below). */
typedef struct bw_graph_mask_entry_desc {
    const char *joint;
    float weight;        /* finite */
    bool no_descendants; /* false (default): descendants inherit the weight */
} bw_graph_mask_entry_desc;

typedef struct bw_graph_mask_desc {
    const char *name;                        /* required, unique */
    const bw_graph_mask_entry_desc *entries; /* applied in order; a later entry for the same
                                                joint replaces an earlier one */
    int entry_count;
} bw_graph_mask_desc;

typedef struct bw_graph_desc {
    const bw_graph_param_desc *params;
    int param_count;
    const bw_graph_mask_desc *masks;
    int mask_count;
    const bw_graph_layer_desc *layers; /* >= 1, composed in order */
    int layer_count;
    const bw_clip *const *clips; /* the caller's clip list (states index it); read
                                    during compile only: length, loop flag and markers
                                    are copied */
    int clip_count;
    bw_allocator allocator; /* copied; fn NULL = malloc (what it points to outlives the graph) */
} bw_graph_desc;

/* Where compile and cursor creation put their problems. `errors` is the
 * caller's array of `capacity` entries (NULL with capacity 0 is fine: only
 * the count is kept). `count` is set to how many problems were found,
 * which may exceed capacity (only the first `capacity` are stored). */
typedef struct bw_graph_errors {
    bw_error *errors;
    int capacity;
    int count;
} bw_graph_errors;

typedef struct bw_graph bw_graph;

/* Validate the whole desc (every problem reported), resolve names, copy
 * into one immutable block. BW_ERR_INVALID_ARGUMENT for NULL desc or
 * out_graph; otherwise the first problem's code (BW_ERR_INVALID_ARGUMENT,
 * BW_ERR_NOT_FOUND, BW_ERR_DUPLICATE, BW_ERR_EMPTY, BW_ERR_NON_FINITE,
 * BW_ERR_RANGE, BW_ERR_LIMIT, BW_ERR_OUT_OF_MEMORY). O(n log n) in the
 * desc's size (names are looked up in sorted indices, built through the
 * desc's allocator while it runs and freed before it returns), so the
 * limits of BW_GRAPH_MAX_ITEMS compile in well under a second. */
BW_API bw_result bw_graph_compile(const bw_graph_desc *desc, bw_graph **out_graph, bw_graph_errors *errors);
BW_API void bw_graph_destroy(bw_graph *graph); /* NULL is a no-op; no cursor may outlive it */

/* Hot reload of clips (SPEC §7: the one change a compiled graph accepts):
 * take the lengths and marker times of `clips` (index = clip index, the
 * same count as at compile) in place, rebuilding the blend trees' leaf
 * lengths, without recompiling. Running cursors keep each play's
 * normalized progress p (so a state half way through its clip stays half
 * way through the new one, its clip time scaled by new / old length);
 * transition timers and fades, in seconds, are unchanged. A clip whose
 * loop flag, marker count or marker names (in time order) changed cannot
 * be refreshed: BW_ERR_INVALID_ARGUMENT, every such clip reported, and
 * nothing changes (recompile and carry the cursors over). Allocates (the
 * tree copies): call it at reload, never while a cursor of the graph
 * updates or evaluates; then give each cursor the new clips' bindings
 * with bw_graph_cursor_rebind, and each animator running the graph the
 * new clips with bw_animator_refresh_clips (animator.h). */
BW_API bw_result bw_graph_refresh_clips(bw_graph *graph, const bw_clip *const *clips, int clip_count,
                                        bw_graph_errors *errors);

/* Setup-time lookups (string compares; not for per-frame code): -1 if
 * missing. States are numbered per layer. */
BW_API int bw_graph_find_param(const bw_graph *graph, const char *name);
BW_API int bw_graph_find_layer(const bw_graph *graph, const char *name);
BW_API int bw_graph_find_state(const bw_graph *graph, int layer, const char *name);
BW_API int bw_graph_param_count(const bw_graph *graph);
BW_API int bw_graph_layer_count(const bw_graph *graph);
BW_API int bw_graph_state_count(const bw_graph *graph, int layer); /* 0 for a bad layer */
BW_API int bw_graph_clip_count(const bw_graph *graph);
/* Names owned by the graph; NULL for bad indices. */
BW_API const char *bw_graph_param_name(const bw_graph *graph, int param);
BW_API const char *bw_graph_layer_name(const bw_graph *graph, int layer);
BW_API const char *bw_graph_state_name(const bw_graph *graph, int layer, int state);
BW_API bw_graph_param_kind bw_graph_param_kind_of(const bw_graph *graph, int param); /* FLOAT for bad indices */
/* The parameter a layer's weight follows (its desc's weight_param; such a
 * weight is not faded by bw_graph_cursor_set_layer_weight), -1 for none or
 * a bad index. */
BW_API int bw_graph_layer_weight_param(const bw_graph *graph, int layer);
/* The most events one update of a cursor of `graph` can queue (0 for
 * NULL): per layer, the most markers one advance of any of its states can
 * cross (the largest marker count of a clip the state plays, 4 times for a
 * looping state: marker_walk.h's window of 4 cycles; once for a
 * non-looping one), plus an exit, an enter and the first update's entry
 * enter. Markers come from one play per layer and update, so a queue this
 * large, drained after every update, never drops an event. A cursor's
 * default event capacity is this, at least 64 and at most
 * BW_GRAPH_DEFAULT_EVENTS_MAX (bw_graph_cursor_desc). Counts saturate at
 * INT_MAX. */
BW_API int bw_graph_event_bound(const bw_graph *graph);
/* The most events a default queue holds (40 KiB of bw_graph_event): a
 * clip with a million markers from an untrusted file must not make every
 * character's cursor reserve 160 MB; a host (or `blendwerk simulate`)
 * that wants every event of such a graph asks for the bound itself. */
#define BW_GRAPH_DEFAULT_EVENTS_MAX 1024
/* What a state plays, for tools that draw a graph (the demo's overlays):
 * the clip index of a clip state (-1 for a blend state or bad indices),
 * and the compiled blend tree of a blend state (NULL for a clip state or
 * bad indices; owned by the graph; its leaf clip ids are graph clip
 * indices and its parameter indices the graph's parameter indices). */
BW_API int bw_graph_state_clip(const bw_graph *graph, int layer, int state);
BW_API const bw_blend_tree *bw_graph_state_blend(const bw_graph *graph, int layer, int state);

/* ---- cursors ---- */

typedef struct bw_graph_cursor bw_graph_cursor;

typedef struct bw_graph_cursor_desc {
    const bw_rig *rig;                 /* required; outlives the cursor; its topology must not
                                          change while the cursor lives (recreate it) */
    const bw_binding *const *bindings; /* binding_count entries, index = clip index, made for
                                          `rig`; NULL allowed for clips no state plays;
                                          borrowed, outlive the cursor */
    int binding_count;                 /* = bw_graph_clip_count(graph) */
    int event_capacity;                /* events the queue holds between drains; 0 = the
                                          default, bw_graph_event_bound(graph) clamped to
                                          [64, BW_GRAPH_DEFAULT_EVENTS_MAX] (no update of a
                                          graph with up to about 250 markers per clip and
                                          layer overflows it); more are dropped and counted */
    bw_allocator allocator;            /* copied; fn NULL = malloc (outlives the cursor) */
} bw_graph_cursor_desc;

/* Allocate everything the cursor needs, resolve the graph's masks on the
 * rig (an entry's weight applies to its joint and, unless no_descendants,
 * to descendants that have no entry of their own; joints with no
 * applicable entry get 0; names are matched by the rig's lookups, never by
 * substring), and evaluate every layer's entry state at its offset, which
 * is the freeze snapshot source before the first evaluation. Parameters
 * take their defaults, every layer its entry state at p = offset and its
 * initial weight. Problems (every one reported): BW_ERR_INVALID_ARGUMENT
 * (NULL graph, desc, rig or out; a binding count that is not the graph's
 * clip count; a missing binding for a played clip or one made for another
 * rig layout; a negative event capacity), BW_ERR_NOT_FOUND (a mask joint
 * missing from the rig), BW_ERR_DUPLICATE (an ambiguous mask joint name),
 * BW_ERR_OUT_OF_MEMORY. */
BW_API bw_result bw_graph_cursor_create(const bw_graph *graph, const bw_graph_cursor_desc *desc, bw_graph_cursor **out_cursor,
                                 bw_graph_errors *errors);
BW_API void bw_graph_cursor_destroy(bw_graph_cursor *cursor); /* NULL is a no-op */
/* Replace the cursor's bindings (checked as bw_graph_cursor_create checks
 * them; nothing changes on failure) and bake its additive references
 * again from them: after bw_graph_refresh_clips, or whenever the bound
 * clips were replaced. Keeps every play's progress. Never allocates. */
BW_API bw_result bw_graph_cursor_rebind(bw_graph_cursor *cursor, const bw_binding *const *bindings, int binding_count,
                                        bw_graph_errors *errors);

/* Parameters by index. set_param: FLOAT and BOOL only (a BOOL stores
 * value != 0 as 1); triggers go through fire / reset. */
BW_API bw_result bw_graph_cursor_set_param(bw_graph_cursor *cursor, int param, float value);
BW_API float bw_graph_cursor_param(const bw_graph_cursor *cursor, int param); /* NaN for bad indices */
/* Set a trigger (again: its expiry age restarts at 0) / unset it. */
BW_API bw_result bw_graph_cursor_fire(bw_graph_cursor *cursor, int trigger);
BW_API bw_result bw_graph_cursor_reset_trigger(bw_graph_cursor *cursor, int trigger);

/* Find a route from the layer's current state to `state` over transition
 * edges by breadth-first search (edges from the state or "*", an any-state
 * edge into the state itself excluded, in list order; among shortest
 * routes the first found wins) and queue it: each edge then fires as soon
 * as its exit-time gate is open, ignoring its conditions, and automatic
 * selection waits until the route completes. Travel to the current state
 * queues nothing and clears a queued route; a new travel replaces a queued
 * route. BW_ERR_NOT_FOUND when no route exists (nothing changes, a queued
 * route included), BW_ERR_RANGE for bad indices. */
BW_API bw_result bw_graph_cursor_travel(bw_graph_cursor *cursor, int layer, int state);
/* Remaining queued travel edges of a layer (0 when none; -1 for a bad layer). */
BW_API int bw_graph_cursor_travel_pending(const bw_graph_cursor *cursor, int layer);

/* Fade a layer's weight linearly from its current value to `weight`
 * (finite, >= 0) over `fade` seconds (finite, >= 0; 0 = at once), advanced
 * by update. BW_ERR_INVALID_ARGUMENT for a layer whose weight follows a
 * parameter. */
BW_API bw_result bw_graph_cursor_set_layer_weight(bw_graph_cursor *cursor, int layer, float weight, float fade);

/* One update (see the top of this file). A dt that is negative or not
 * finite counts as 0. */
BW_API void bw_graph_cursor_update(bw_graph_cursor *cursor, float dt);

/* Evaluate every layer's pose and compose the layers in order over `base`
 * into `out` (both made for the cursor's rig). base NULL: the rig's
 * current joint values (full coverage); pass a cleared pose (bw_pose_clear)
 * to get a partial pose whose coverage says what the graph drives, e.g. to
 * feed a character's mixer. `base` may be `out`. BW_ERR_INVALID_ARGUMENT
 * for NULL cursor or out or poses not matching the rig (out untouched). */
BW_API bw_result bw_graph_cursor_evaluate(bw_graph_cursor *cursor, const bw_pose *base, bw_pose *out);

/* Layer poses that many cursors share: a crowd evaluates its characters
 * one after another, and each layer pose lives only while its cursor
 * composes, so one set per thread serves every cursor that thread
 * evaluates, and stays in cache, instead of each cursor writing its own
 * set cold every frame (bench/README.md: the full character). One scratch
 * must not be used by two evaluations at once; give each worker its own
 * (bw_job_fn's `worker`). The results are the same bit for bit as
 * evaluating in the cursor: what a later freeze, a reload carry or
 * bw_graph_cursor_layer_pose needs of an evaluation made here is mixed
 * again from the plays it recorded. */
typedef struct bw_graph_scratch bw_graph_scratch;
typedef struct bw_graph_scratch_desc {
    int joint_capacity; /* the most joints of a rig it serves, [0, BW_RIG_MAX_JOINTS] */
    int curve_capacity; /* the most curves, [0, BW_RIG_MAX_CURVES] */
    int layer_capacity; /* the most layers of a graph it serves, [0, 1024] */
    bw_allocator allocator; /* copied; fn NULL = malloc */
} bw_graph_scratch_desc;
/* BW_ERR_INVALID_ARGUMENT for NULL arguments or a capacity out of range,
 * BW_ERR_OUT_OF_MEMORY. *out is set only on success. */
BW_API bw_result bw_graph_scratch_create(const bw_graph_scratch_desc *desc, bw_graph_scratch **out);
BW_API void bw_graph_scratch_destroy(bw_graph_scratch *scratch); /* NULL is a no-op */
/* Whether the scratch holds the layer poses of `graph` on `rig`. */
BW_API bool bw_graph_scratch_fits(const bw_graph_scratch *scratch, const bw_graph *graph, const bw_rig *rig);
/* bw_graph_cursor_evaluate with the layer poses in `scratch`; a scratch
 * that is NULL or does not fit the cursor (bw_graph_scratch_fits) means
 * the cursor's own poses. Same results and errors; never allocates. */
BW_API bw_result bw_graph_cursor_evaluate_in(bw_graph_cursor *cursor, bw_graph_scratch *scratch, const bw_pose *base,
                                             bw_pose *out);
/* Root motion of the last update (SPEC §8), from the first layer's plays:
 * each leaf's clip-time step (from, signed delta) at the weight the pose
 * shows it with: a state that advanced and then fired away counts in
 * full; during a fade the live source at 1 − w and the destination at w
 * (a frozen source does not travel). Extraction as
 * bw_root_motion_extract (cfg from bw_root_motion_config_init on the
 * cursor's rig). Call after update; never allocates. Errors as
 * bw_root_motion_extract, and BW_ERR_INVALID_ARGUMENT for NULL
 * arguments. Before the first update the delta is zero. */
BW_API bw_result bw_graph_cursor_root_motion(bw_graph_cursor *cursor, const bw_root_motion_config *cfg, bw_root_delta *out);
/* A layer's own pose (before layer weight and mask) as last evaluated (a
 * freeze's snapshot, SPEC §12.2); NULL for a bad layer. Owned by the
 * cursor, valid until its next update, evaluation or rebind. When that
 * evaluation was made in a bw_graph_scratch, the pose is mixed again (the
 * same numbers) into the cursor's own pose: the cost of a layer mix. */
BW_API const bw_pose *bw_graph_cursor_layer_pose(bw_graph_cursor *cursor, int layer);

/* Work counters since creation (for tests and profiling): each blend tree
 * is evaluated once per play and update (and once for a destination
 * entered in that update), however often evaluation and root motion read
 * its leaves; an additive layer mixes its references only when its leaves
 * have more than one reference pose or a frozen source is fading. */
typedef struct bw_graph_cursor_counters {
    long long tree_evaluations; /* bw_blend_tree_evaluate calls */
    long long layer_mixes;      /* layer poses sampled and mixed (one per layer per evaluation) */
    long long reference_mixes;  /* additive reference poses mixed (not a single baked pose) */
} bw_graph_cursor_counters;
/* Zeros for a NULL cursor. */
BW_API bw_graph_cursor_counters bw_graph_cursor_counters_of(const bw_graph_cursor *cursor);

/* ---- queries ---- */

typedef struct bw_graph_transition_status {
    bool active;            /* false: no transition in flight (other fields 0 / -1) */
    int transition;         /* index in the layer's transition list (-1: a carry-over fade, or
                               carried by a reload with no matching transition) */
    int from;               /* the state current when it fired (never "*"; -1: a carry-over
                               fade, or that state is gone after a reload) */
    int to;                 /* the destination (= the layer's current state) */
    float elapsed;          /* seconds since it fired (counted in double, reported rounded,
                               below `duration` while active) */
    float duration;         /* seconds */
    float weight;           /* destination weight, curve(elapsed / duration) */
    bw_graph_mode mode;     /* as authored (freeze for a carry-over fade) */
    bool frozen;            /* the source is a snapshot (freeze mode, or an interruption) */
    int source_state;       /* the live source's state, -1 when frozen */
    double source_progress; /* the live source's accumulated progress (0 when frozen) */
} bw_graph_transition_status;

typedef struct bw_graph_layer_status {
    int state;        /* current state (the destination during a fade) */
    double progress;  /* accumulated normalized progress p (grows across loops) */
    float normalized; /* in [0, 1]: looping the fraction of the current pass
                         (in [0, 1)), non-looping min(p, 1) */
    float weight;     /* current layer weight */
    bw_graph_transition_status transition;
} bw_graph_layer_status;

/* BW_ERR_INVALID_ARGUMENT for NULL arguments, BW_ERR_RANGE for a bad
 * layer; *out untouched on failure. */
BW_API bw_result bw_graph_cursor_layer_status(const bw_graph_cursor *cursor, int layer, bw_graph_layer_status *out);
/* The leaves layer `layer` plays its current state with (`source` false)
 * or, during a transition with a live source, the source state
 * (`source` true; see bw_graph_layer_status.transition), as the cursor
 * last evaluated them: at creation, in bw_graph_cursor_update and in
 * bw_graph_cursor_evaluate, a blend state's tree at the parameters of
 * then; a clip state is one leaf (node -1) of weight 1. The weights are
 * the state's own (they sum to 1), before the transition's and the
 * layer's weights; rate and length as the cursor plays them. Returns the
 * leaves with their number in *count, or NULL with *count = 0 for a NULL
 * cursor, a bad layer, no live source (none in flight, or a frozen one),
 * or when the state changed since it was last evaluated (a fire or travel
 * between an update and the next evaluation; a restart of the same state
 * keeps its leaves). The leaves may predate a parameter change or a
 * rebind's new clip lengths made since that evaluation. Evaluates nothing and never
 * allocates: the array is the cursor's own cache, valid and unchanged
 * until the next call that updates, evaluates, fires, travels, sets a
 * state, rebinds, carries over or destroys the cursor. count may be NULL. */
BW_API const bw_blend_leaf *bw_graph_cursor_leaves(const bw_graph_cursor *cursor, int layer, bool source, int *count);
BW_API const bw_graph *bw_graph_cursor_graph(const bw_graph_cursor *cursor);

/* Hot reload (SPEC §10, §11): carry a character over from `src`, a cursor
 * of the graph being replaced, into `dst`, a fresh cursor of the new graph
 * on the same rig layout, so that the pose after the reload is the one the
 * old graph would have produced wherever the new graph plays the same
 * clips (an unchanged graph file: the same poses, events and root motion
 * frame by frame). Names are matched, never indices:
 * - Parameters by name where the kind is the same (trigger ages too).
 * - Layers by name; new layers start as created. The layer weight and its
 *   fade carry unless either layer's weight follows a parameter.
 *   Frame-0 entry events are not repeated.
 * - Queued travel (bw_graph_cursor_travel) goes on to the same destination
 *   by name: its remaining edges, matched like transitions below, when
 *   they still chain from the carried current state; else a new shortest
 *   route from there; dropped when the destination is gone or cannot be
 *   reached.
 * - The current state by name with its progress (and whether it has
 *   advanced since it was entered).
 * - A transition in flight, when its destination (the current state)
 *   exists: the elapsed time, and a frozen source's snapshot (freeze mode,
 *   an interruption, or an earlier reload's fade) or a live source by
 *   name with its progress. Duration, curve, mode and interruptibility
 *   come from the new graph's transition with the same from (any-state
 *   for any-state) and to by name (the same occurrence among several, else
 *   the first), which the status then reports; with none they stay as
 *   they were (status transition -1). A new freeze mode stands a live
 *   source still (status frozen stays false; like a snapshot it leaves
 *   its sync group); a frozen source stays a snapshot under a new live
 *   mode. A new duration the elapsed time has reached ends the
 *   transition: the destination alone.
 * `fade` (seconds, linear; 0 = none) covers only what cannot carry: a
 * layer whose current state is gone restarts at its entry (at its
 * offset), a layer whose live source is gone keeps its destination, and a
 * steady layer whose carried pose differs from src's last evaluated one
 * by more than 1e-5 in any channel (its state now plays another clip,
 * tree or reference under the same name); each fades from
 * a frozen snapshot of src's last evaluated layer pose, reported as a
 * transition with index and from -1, mode freeze, frozen. Every layer of
 * dst is then evaluated (what a freeze snapshot takes before the next
 * evaluation). Call between frames, after src's evaluate: a src updated
 * since shows a stale pose. Compares names: call it at reload, not per
 * frame; never allocates. BW_ERR_INVALID_ARGUMENT for NULL or equal
 * cursors, a negative or non-finite fade, or cursors of different rig
 * layouts (dst untouched). */
BW_API bw_result bw_graph_cursor_carry_over(bw_graph_cursor *dst, const bw_graph_cursor *src, float fade);

/* ---- events ---- */

typedef enum bw_graph_event_kind {
    BW_GRAPH_EVENT_ENTER = 0, /* a state became current */
    BW_GRAPH_EVENT_EXIT,      /* a state stopped being current */
    BW_GRAPH_EVENT_MARKER     /* a clip marker was crossed by the layer's dominant play */
} bw_graph_event_kind;

typedef struct bw_graph_event {
    bw_graph_event_kind kind;
    int layer;
    int state;        /* the state entered / left / playing the marker */
    int clip;         /* MARKER: clip index; else -1 */
    int marker;       /* MARKER: marker index in the clip (time order); else -1 */
    const char *name; /* MARKER: marker name; ENTER / EXIT: state name (owned by the graph) */
    float time;       /* MARKER: marker time in the clip, seconds; else 0 */
} bw_graph_event;

typedef void (*bw_graph_event_fn)(void *user, const bw_graph_event *event);

/* Deliver the events queued since the last drain, in order, to fn (NULL
 * discards), then empty the queue. Callbacks may set parameters, fire
 * triggers and travel; they must not update, evaluate or drain. */
BW_API void bw_graph_cursor_drain(bw_graph_cursor *cursor, bw_graph_event_fn fn, void *user);
BW_API int bw_graph_cursor_event_count(const bw_graph_cursor *cursor);    /* queued now */
BW_API int bw_graph_cursor_dropped_events(const bw_graph_cursor *cursor); /* since creation */

#ifdef __cplusplus
}
#endif
#endif
