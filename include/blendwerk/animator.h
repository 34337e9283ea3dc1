/* blendwerk/animator.h - the character animator (SPEC §9): one object per
 * character; give it the character's state, call update(dt), read its
 * outputs.
 *
 * Lifetimes. A bw_animator_desc is caller data read only by
 * bw_animator_create, which validates it (every problem reported), makes
 * the bindings, compiles the locomotion blend tree, bakes the gesture
 * references, sizes every buffer and scratch, and allocates everything
 * through the desc's allocator. After that, bw_animator_update and the
 * output queries allocate nothing, compare no strings and resolve no
 * names. The rig, the clips and the graph are borrowed and must outlive
 * the animator (a graph: until bw_animator_set_graph replaces it; a clip:
 * until bw_animator_refresh_clips replaces it; the rig's topology must
 * not change under it). One animator belongs to one
 * thread at a time.
 *
 * One update, bw_animator_update(a, dt, state, camera):
 * 0. The state is validated (bw_character_state_validate). A bad state is
 *    reported (bw_animator_problems) and the previous good state is used
 *    again; params and triggers of a bad state are not applied.
 * 1. Body base, the first that applies:
 *    - a graph (desc.graph): state params and triggers are applied, the
 *      cursor updates by dt and evaluates over the rig's current values;
 *    - else explicit clip weights (state.clip_weights, one per clip): each
 *      clip with weight > 0 plays at rate 1 on its own playback track
 *      (play.h's time rules: looping clips wrap, others hold their end; a
 *      clip without weight holds its time; at most
 *      BW_TRACK_SET_MAX_CAPACITY clips ever get a track, later ones are
 *      ignored), mixed per SPEC §5 over the rest pose;
 *    - else the locomotion blend: the planar speed |(vx, vz)| (vy ignored)
 *      drives a compiled 1D blend tree with rate scaling (blendtree.h): the
 *      two entries bracketing the speed crossfade linearly at one
 *      synchronized phase (SPEC §6), outside the authored range the nearest
 *      plays alone at rate speed / authored speed (rate 1 for an entry
 *      authored at speed 0).
 *    Root motion (SPEC §8) of the base is extracted with the root-motion
 *    extractor and removed from the root joint of the pose.
 * 2. Gesture: one additive slot (bw_animator_gesture). The clip's delta
 *    from its baked reference (its pose at time 0, or the rest pose) is
 *    applied over the base at the envelope's weight a: translation added
 *    (a × Δt), rotation post-multiplied by slerp(1, Δr, a), scale
 *    multiplied by 1 + a × (Δs − 1), curves added (a × Δc). A gesture
 *    started while another runs replaces it smoothly: the old one keeps the
 *    envelope weight it had, scaled down linearly to 0 over the new one's
 *    fade_in (at once when fade_in is 0).
 * 3. Face: the ARKit-52 vector (bw_arkit52_names order) is
 *    state.expression when it holds 52 numbers, else the face clips'
 *    ARKit channels sampled on their own looping clocks (linear between
 *    keys and from the last key back to the first across the loop
 *    boundary), summed by drive weight (state.face_weights) and clamped to
 *    [0, 1]. Blink then sets eyeBlinkLeft / Right to max(value, blink).
 *    The expression space's map turns the ARKit vector into the
 *    character's `dim` numbers (the identity for ARKit-52). A state
 *    expression of exactly `dim` numbers in a custom space is copied to the
 *    output as is (no blink, no map), except in a custom space of 52
 *    numbers, where 52 numbers cannot be told from ARKit input: there
 *    they are ARKit-52 values, blinked and mapped like the clips' own.
 * 4. Procedural head aim: the target is state.look_at, else the camera
 *    position, else none (the aim relaxes to 0). From the head joint's
 *    world position (state.position + the body yaw applied to its model
 *    position) the target's yaw relative to the BODY's facing (state.yaw)
 *    is wrapped to (−π, π] and its pitch (up positive) taken; when the
 *    target is within BW_ANIMATOR_BEHIND_HYSTERESIS of straight behind,
 *    the side the head turned to last frame is kept, so the head does not
 *    flip. The head takes clamp(yaw, ±yaw_limit), clamp(pitch,
 *    ±pitch_limit), split across the chain by the weights (joint i turns
 *    w_i × yaw about the character's up axis and w_i × pitch about its
 *    right axis, each delta conjugated into the joint's parent frame); the
 *    remainder goes to both eyes, clamped by the eye limits. Blink is a
 *    periodic blink whose intervals come from a seeded xorshift32 stream
 *    (bw_animator_blink_interval).
 * Outputs (owned by the animator, refreshed in place, valid until the next
 * update or destroy): the pose (base + gesture + aim), the joint overrides
 * (parent-local rotations of the chain joints), the expression (dim
 * floats), the gaze {pitch_l, yaw_l, pitch_r, yaw_r} (radians; positive
 * yaw turns toward the character's +X, positive pitch up), the root-motion
 * delta and the frame's events.
 *
 * Errors: bw_animator_create returns the first problem's code and writes
 * the problems into `errors` (may be NULL), each with `where` naming the
 * desc field ("desc.locomotion[1].clip") and a message. Checks run in
 * stages, each reporting all it finds: the desc's counts, clip lists,
 * expression space and blink; then the head chain; then the locomotion
 * entries; a stage runs only when the ones before it passed.
 */
#ifndef BLENDWERK_ANIMATOR_H
#define BLENDWERK_ANIMATOR_H

#include "blendwerk/bind.h"
#include "blendwerk/clip.h"
#include "blendwerk/easing.h"
#include "blendwerk/graph.h"
#include "blendwerk/pose.h"
#include "blendwerk/rig.h"
#include "blendwerk/rootmotion.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- ARKit-52 ---- */

#define BW_ARKIT52_COUNT 52
#define BW_ARKIT52_EYE_BLINK_LEFT 0
#define BW_ARKIT52_EYE_BLINK_RIGHT 7
/* Name of ARKit slot `index` in [0, 52) (NULL out of range): the 52 ARKit
 * blendshape names in the usual order (eyeBlinkLeft first, tongueOut last,
 * the table in src/animator.c and docs/animator.md); the index of a name is
 * its slot in expression vectors. */
BW_API const char *bw_arkit52_name(int index);
/* Index of an ARKit name, -1 if it is not one. */
BW_API int bw_arkit52_find(const char *name);

/* ---- the description ---- */

typedef enum bw_expression_kind {
    BW_EXPRESSION_ARKIT52 = 0, /* default: the output is the ARKit vector itself */
    BW_EXPRESSION_CUSTOM       /* dim numbers produced by `map` (required) */
} bw_expression_kind;

/* Map an ARKit-52 vector into the character's space: write `dim` floats to
 * `out`. Called once per update; must not call back into the animator.
 * Non-finite outputs are stored as 0. */
typedef void (*bw_expression_map_fn)(void *user, const float *arkit52, float *out, int dim);

typedef struct bw_expression_space {
    bw_expression_kind kind;
    int dim;                  /* CUSTOM: [1, BW_ANIMATOR_MAX_DIM]; ARKIT52: 0 or 52 */
    bw_expression_map_fn map; /* CUSTOM: required */
    void *user;               /* passed back to map; not owned */
} bw_expression_space;
#define BW_ANIMATOR_MAX_DIM 4096

/* A locomotion clip tagged with the ground speed it was authored at. */
typedef struct bw_locomotion_entry {
    int clip;    /* index into desc.clips */
    float speed; /* m/s, finite, >= 0; entries may come in any order */
} bw_locomotion_entry;

#define BW_ANIMATOR_MAX_CHAIN 8
/* Head aim. All-zero means: when the rig has joints "neck_01", "neck_02"
 * and "head", that chain with weights 0.25, 0.25, 0.5; else when it has
 * "neck" and "head", weights 0.4, 0.6; else when it has "head", weight 1;
 * else no head aim. Limits of 0 mean the defaults yaw 1.2, pitch 0.6, eye
 * yaw 0.6, eye pitch 0.4 (radians; BW_ANIMATOR_HEAD_LIMITS, below),
 * unless has_limits: then all four are as given, 0 included (that part
 * does not turn; e.g. yaw_limit 0 leaves the yaw to the eyes). */
typedef struct bw_head_desc {
    const char *const *chain; /* chain_count joint names, root-most first (the last is the head);
                                 "parent/name" where the rig has the name twice */
    int chain_count;          /* [0, BW_ANIMATOR_MAX_CHAIN]; 0 = the default chain above */
    const float *weights;     /* chain_count finite weights >= 0 (NULL: equal split); not normalized */
    float yaw_limit, pitch_limit, eye_yaw_limit, eye_pitch_limit; /* radians, finite, >= 0 */
    bool disabled;            /* true: no head aim, zero gaze */
    bool has_limits;          /* true: the four limits as given, 0 included (the Lua
                                 reader sets it and fills absent ones with the defaults) */
} bw_head_desc;

/* Blink. All-zero means seed 1, intervals in [2, 6] s, a 0.15 s blink. */
typedef struct bw_blink_desc {
    uint32_t seed;                    /* 0 = 1 */
    float interval_min, interval_max; /* seconds between blink starts; 0 = defaults; finite,
                                         0 < min <= max */
    float duration;                   /* seconds, 0 = 0.15; blink weight sin(π u), u = t / duration */
    bool disabled;
} bw_blink_desc;

typedef struct bw_animator_desc {
    const bw_rig *rig;             /* required; borrowed */
    const bw_clip *const *clips;   /* clip_count clips (borrowed); indices below refer to this list */
    const char *const *clip_names; /* optional: clip_count names for bw_animator_find_clip */
    int clip_count;                /* [0, 65536] */
    bw_expression_space expression_space;
    const bw_locomotion_entry *locomotion; /* optional; none: no locomotion blend */
    int locomotion_count;
    bw_head_desc head;
    bw_blink_desc blink;
    const int *face_clips;    /* optional: clip indices of ARKit face clips (their FLOAT
                                 tracks named by ARKit names drive the face) */
    int face_clip_count;
    const int *gesture_clips; /* clip indices that may play as gestures (baked here) */
    int gesture_clip_count;
    bool gesture_reference_rest; /* false (default): bake against each clip's pose at time 0;
                                    true: against the rig's rest pose */
    const bw_graph *graph;    /* optional (borrowed); which clip each graph clip plays: */
    const int *graph_clips;   /* NULL: the graph's clip list is `clips` (same count and
                                 order); else bw_graph_clip_count(graph) indices into
                                 `clips`: graph clip i plays clips[graph_clips[i]] (e.g. a
                                 graph built from names, resolved by the caller) */
    const char *root_joint;   /* root-motion joint by name; NULL = joint 0 */
    int event_capacity;       /* events kept per update; 0 = its graph's bw_graph_event_bound
                                 (at most BW_GRAPH_DEFAULT_EVENTS_MAX) + 2, at least 64 */
    bw_allocator allocator;   /* by value; fn NULL = malloc */
    bw_logger logger;         /* optional; creation only: a warning when the default head
                                 chain (head.chain_count 0) passes over a name the rig has
                                 several joints of (that set is skipped, as if it lacked the
                                 name; an explicit chain can say 'parent/head'), and the
                                 clips' bindings' warnings (bind.h: a track whose name alone
                                 matches several joints stays unbound; not with a
                                 binding_cache, whose bindings are made by the cache) */
    bw_binding_cache *binding_cache; /* optional (borrowed; must outlive the animator): the clips'
                                        bindings come from it (bind.h), shared with every animator
                                        on the same cache and an equal rig layout, instead of
                                        clip_count bindings of the animator's own; same numbers
                                        either way. For crowds: one set of bindings in cache. */
} bw_animator_desc;

typedef struct bw_animator bw_animator;

/* The desc compilers' one error list (graph.h): `errors` holds `capacity`
 * caller-owned entries, `count` the problems found (may exceed capacity). */
typedef bw_graph_errors bw_animator_errors;

/* Validate the desc and build the animator. BW_ERR_INVALID_ARGUMENT (NULL
 * desc / rig / out, a custom space without map or with a bad dim, bad or
 * negative counts, event_capacity < 0 among them, negative blink
 * intervals or min > max), BW_ERR_RANGE (a clip index out of range, a
 * negative locomotion speed, head weight or head limit), BW_ERR_NOT_FOUND
 * (a chain joint or the root joint missing), BW_ERR_NON_FINITE (NaN or
 * infinity in a speed, weight, limit or blink interval), BW_ERR_LIMIT
 * (event_capacity above 65536 among others), BW_ERR_OUT_OF_MEMORY (nothing
 * leaks), or the binding / blend-tree / cursor error. *out is set only on
 * success. */
BW_API bw_result bw_animator_create(const bw_animator_desc *desc, bw_animator **out, bw_animator_errors *errors);
BW_API void bw_animator_destroy(bw_animator *animator); /* NULL is a no-op */

/* Index of a named clip (desc.clip_names), -1 if missing. Not for the frame path. */
BW_API int bw_animator_find_clip(const bw_animator *animator, const char *name);
BW_API int bw_animator_clip_count(const bw_animator *animator);
BW_API int bw_animator_expression_dim(const bw_animator *animator);
BW_API const bw_graph_cursor *bw_animator_cursor(const bw_animator *animator); /* NULL without a graph */
BW_API const bw_graph *bw_animator_graph(const bw_animator *animator);        /* NULL without a graph */

/* Hot reload (SPEC §10, §11): replace the animator's graph between two
 * updates, keeping the character's state. A new cursor is made on `graph`
 * (graph_clips as in the desc: NULL, or bw_graph_clip_count(graph) clip
 * indices) over the animator's own bindings, and takes over the old cursor
 * with bw_graph_cursor_carry_over(new, old, fade): parameters by name and
 * kind, per layer the current state by name with its progress (a removed
 * or renamed state restarts its layer at the entry), layer weights, a
 * transition in flight; what cannot carry (graph.h) fades over `fade`
 * seconds from the old pose. Without
 * a previous graph the new one starts fresh at its entries (the body base
 * switches to the graph); graph NULL removes the graph (the base goes back
 * to explicit clips or locomotion). The old graph is no longer used once
 * this returns: the caller may destroy it. Allocates (the new cursor; with
 * graph NULL, the first time, the body layer's clip playback and mixer,
 * which an animator created with a graph does not make): call it at reload, not per frame;
 * the updates after it allocate nothing.
 * Problems go to `errors` (may be NULL) with `where` "graph" or
 * "graph_clips[i]": BW_ERR_INVALID_ARGUMENT (NULL animator, a negative
 * fade, a graph whose clip count is not the animator's and no
 * graph_clips), BW_ERR_NON_FINITE (a NaN or infinite fade), BW_ERR_RANGE (a graph_clips index out of range), or the
 * cursor's error (a missing binding, BW_ERR_OUT_OF_MEMORY). On any error
 * the animator is unchanged (the old graph keeps running). */
BW_API bw_result bw_animator_set_graph(bw_animator *animator, const bw_graph *graph, const int *graph_clips,
                                       float fade, bw_animator_errors *errors);

/* Hot reload of clips (graph.h bw_graph_refresh_clips): once the
 * animator's graph took new clips, give the animator the same list
 * (`clips`: bw_graph_clip_count(graph) clips in the graph's order, the
 * ones given to bw_graph_refresh_clips). Each graph clip's animator clip
 * (desc.graph_clips, or the same index) becomes the new clip: a new
 * binding is made (from desc.binding_cache when the animator has one),
 * an explicit playback track of that clip is rebound (play.h
 * bw_track_set_rebind: its time kept), and the graph cursor is rebound
 * (bw_graph_cursor_rebind: every play keeps its normalized progress, so
 * the cursor and the animator follow the new lengths and sample the new
 * clips). Clips already the animator's are left as they are. Afterwards
 * the old clips are no longer used. Between two updates, at reload:
 * allocates the bindings; the updates after it allocate nothing.
 * bw_animator_refresh_clips_validate makes the same checks and changes
 * nothing (a host refreshing a graph and several animators checks them
 * all first, then refreshes). Problems go to `errors` (may be NULL): every
 * one the checks find, else the first binding that fails (the bindings
 * are made only once the checks pass, and their making stops there), `where`
 * "animator", "clips" or "clips[i]": BW_ERR_INVALID_ARGUMENT
 * (NULL animator, no graph, a count that is not the graph's, a NULL clip;
 * a new clip for an animator clip that is also a locomotion, face or
 * gesture clip, which creation baked: make a new animator; two graph
 * clips that play one animator clip given different clips), or the
 * binding's error (BW_ERR_OUT_OF_MEMORY among them). On any error the
 * animator is unchanged. */
BW_API bw_result bw_animator_refresh_clips_validate(const bw_animator *animator, const bw_clip *const *clips,
                                                   int count, bw_animator_errors *errors);
BW_API bw_result bw_animator_refresh_clips(bw_animator *animator, const bw_clip *const *clips, int count,
                                           bw_animator_errors *errors);

/* ---- the character state ---- */

typedef struct bw_character_param {
    int index;   /* graph parameter index */
    float value; /* finite */
} bw_character_param;

/* One frame's input. All-zero is a character standing still at the origin,
 * facing +Z, on locomotion, neutral face, no look target. Arrays are
 * borrowed for the call only. */
typedef struct bw_character_state {
    float velocity[3];  /* world m/s */
    float position[3];  /* world metres */
    float yaw;          /* body facing about +Y, radians; 0 faces +Z, positive turns toward +X */
    const float *clip_weights; /* NULL, or clip_weight_count = clip_count weights >= 0 */
    int clip_weight_count;
    const float *face_weights; /* NULL, or face_weight_count = face_clip_count weights >= 0 */
    int face_weight_count;
    bool has_look_at;
    float look_at[3];          /* world point */
    const float *expression;   /* NULL, or 52 numbers (ARKit) or dim numbers (custom space) */
    int expression_count;
    const bw_character_param *params; /* graph parameters to set (FLOAT / BOOL kinds) */
    int param_count;
    const int *fire;           /* graph trigger indices to fire */
    int fire_count;
} bw_character_state;

/* One problem of a state: the field path ("state.velocity[1]", C indices
 * from 0) and what is wrong ("is NaN"). */
typedef struct bw_state_problem {
    char path[64];
    char message[96];
} bw_state_problem;

#define BW_ANIMATOR_MAX_PROBLEMS 16
/* Check `state` (against `animator`'s clip, face, expression and graph
 * counts when it is not NULL). Writes up to `capacity` problems and the
 * number found to *out_count (both may be NULL / 0). Returns BW_OK, or the
 * first problem's code: BW_ERR_NON_FINITE (NaN or infinity), BW_ERR_RANGE
 * (negative weight, index out of range), BW_ERR_INVALID_ARGUMENT (NULL
 * state, a count that does not match, a trigger set as a value or a value
 * fired). Never allocates. */
BW_API bw_result bw_character_state_validate(const bw_character_state *state, const bw_animator *animator,
                                             bw_state_problem *problems, int capacity, int *out_count);

/* ---- the frame ---- */

/* Markers (SPEC §4 rules): the dominant play of a locomotion or explicit-
 * clip base (largest weight, the first on a tie) reports the markers its
 * step crossed, old endpoint excluded and new included, following loop
 * wraps (at most 4 cycles per update), in reverse order for reverse play.
 * An explicit clip's markers are its playback track's (play.h), so its
 * first moving update includes its start time.
 *
 * One update (see the top of this file). dt < 0 or non-finite counts as 0.
 * A huge finite dt is not clamped (SPEC §10 asks only that it be handled):
 * every clock advances by it at the bounded cost play.h and rootmotion.h
 * state: the markers of at most the last 4 cycles, and a root-motion delta
 * that counts at most BW_ROOT_MOTION_MAX_CYCLES (2^20) whole cycles of a
 * looping play, so dt = 1e30 on a 1 s walk of 1.5 m a cycle reports
 * about (2^20 + 1) × 1.5 m (the rest of the current cycle, 2^20 whole
 * ones, and where the rounded end time falls in its cycle). A host that does not want a stall (a breakpoint, a
 * suspended app) to move the character that far clamps dt itself.
 * camera: NULL or a world position (3 floats), the look target when the
 * state has none. Returns BW_OK, or the validation code for a bad state (the
 * update still runs on the previous state). BW_ERR_INVALID_ARGUMENT for a
 * NULL animator or state (nothing changes). Never allocates. */
BW_API bw_result bw_animator_update(bw_animator *animator, float dt, const bw_character_state *state,
                                    const float *camera);
/* bw_animator_update with the graph's layer poses in `scratch` (graph.h:
 * bw_graph_scratch; NULL or one that does not fit: the cursor's own), for
 * a crowd: one scratch per thread serves every animator that thread
 * updates, so the layer poses stay in cache (docs/animator.md "A crowd").
 * The same results bit for bit. */
BW_API bw_result bw_animator_update_in(bw_animator *animator, bw_graph_scratch *scratch, float dt,
                                       const bw_character_state *state, const float *camera);
/* A hint for crowd loops: ask the cache for what the animator's next
 * update reads and writes first (its own per-frame fields, its graph
 * cursor's and mixer's per-frame state, its pose, its clip tracks), so
 * that a loop calling it for character i + 1 while it works on character i (best
 * after i's update, before what the host does with i's pose:
 * docs/animator.md "A crowd") finds that character in cache instead of
 * waiting on memory access after access (bench/character_bench.c: the
 * full character). It reads a few fields of the animator (one wait at
 * most when it is cold) and changes no value; NULL does nothing. */
BW_API void bw_animator_prefetch(const bw_animator *animator);
/* Problems of the last update's state (count in *out_count; 0 if it was good). */
BW_API const bw_state_problem *bw_animator_problems(const bw_animator *animator, int *out_count);

/* ---- gesture ---- */

/* Envelope weight of a gesture `t` seconds after it started, for a gesture
 * of `duration` seconds. Return values are clamped to [0, 1]; the gesture
 * ends once t >= duration. */
typedef float (*bw_envelope_fn)(void *user, float t, float duration);

/* All-zero: duration = the clip's length, no fades, linear curve. */
typedef struct bw_gesture_desc {
    float duration;         /* seconds, finite, >= 0; 0 = the clip's length */
    float fade_in;          /* seconds, finite, >= 0 */
    float fade_out;         /* seconds, finite, >= 0 */
    bw_ease_style curve;    /* shapes both fades, in-out (default linear) */
    bw_envelope_fn envelope; /* optional: replaces the default envelope */
    void *user;
} bw_gesture_desc;

/* The default envelope (no user function): with u_in = t / fade_in and
 * u_out = (duration − t) / fade_out, weight = ease(curve, in_out,
 * min(u_in, u_out, 1)) (a fade of 0 counts as u = 1), 0 outside
 * [0, duration]. */
BW_API float bw_gesture_envelope(const bw_gesture_desc *gesture, float t);

/* Start gesture clip `clip` (an index into desc.clips that is listed in
 * desc.gesture_clips); gesture NULL = defaults. The clip time starts at 0
 * and advances with update (looping clips wrap, others hold their end).
 * BW_ERR_RANGE (not a gesture clip), BW_ERR_NON_FINITE /
 * BW_ERR_INVALID_ARGUMENT (bad numbers); nothing changes on failure. */
BW_API bw_result bw_animator_gesture(bw_animator *animator, int clip, const bw_gesture_desc *gesture);
/* Weight the running gesture had in the last update (0 when none), and
 * the fading-out one's. */
BW_API float bw_animator_gesture_weight(const bw_animator *animator);
BW_API float bw_animator_gesture_outgoing_weight(const bw_animator *animator);

/* ---- blink ---- */

/* The blink stream: advance *rng (xorshift32: x ^= x << 13; x ^= x >> 17;
 * x ^= x << 5) and return min + (max − min) × (x >> 8) / 2^24. A *rng of
 * 0 (xorshift's fixed point, where the stream would stay) is taken as seed
 * 1; a NULL rng gives seed 1's first interval and stores nothing. The
 * animator's first blink starts one interval after creation, each next one
 * an interval after the previous start. */
BW_API float bw_animator_blink_interval(uint32_t *rng, float min, float max);
/* The blink weight of the last update, in [0, 1]. */
BW_API float bw_animator_blink(const bw_animator *animator);

/* ---- outputs ---- */

typedef struct bw_joint_override {
    int joint;   /* rig joint index */
    float r[4];  /* parent-local rotation (x, y, z, w) with the aim applied */
} bw_joint_override;

#define BW_ANIMATOR_BEHIND_HYSTERESIS 0.2f
/* The head aim's default limits, the one definition of them: an
 * initializer of a bw_aim_limits (blendwerk/procedural.h) in its order:
 * yaw 1.2, pitch 0.6, eye yaw 0.6, eye pitch 0.4 (radians) and behind
 * BW_ANIMATOR_BEHIND_HYSTERESIS. A bw_head_desc limit of 0 takes its
 * value here; the Lua aim helpers' defaults are these too
 * (blendwerk.aim_defaults(), docs/lua-api.md). */
#define BW_ANIMATOR_HEAD_LIMITS {1.2f, 0.6f, 0.6f, 0.4f, BW_ANIMATOR_BEHIND_HYSTERESIS}

typedef enum bw_animator_event_kind {
    BW_ANIMATOR_EVENT_GRAPH = 0,   /* a graph event (graph_event is valid) */
    BW_ANIMATOR_EVENT_GESTURE_END, /* the running gesture reached its duration (clip valid) */
    BW_ANIMATOR_EVENT_BLINK,       /* a blink started */
    BW_ANIMATOR_EVENT_MARKER       /* a marker of the base's dominant play (locomotion or
                                      explicit clips; a graph reports its own) was crossed:
                                      clip, name, time valid */
} bw_animator_event_kind;

typedef struct bw_animator_event {
    bw_animator_event_kind kind;
    int clip;                   /* GESTURE_END, MARKER: the clip index; else -1 */
    const char *name;           /* MARKER: the marker's name (owned by the clip); else NULL */
    float time;                 /* MARKER: the marker's time in the clip, seconds */
    bw_graph_event graph_event; /* GRAPH only */
} bw_animator_event;

BW_API const bw_pose *bw_animator_pose(const bw_animator *animator);
/* The same pose, writable, for a host that runs its own controls on it
 * between bw_animator_update and its read (bindings/controls.h): no copy.
 * Every update rebuilds the pose from scratch (the base over the rest pose,
 * then gestures and head aim); nothing in the animator reads what a host
 * wrote, so the next update's result is the same with or without the
 * host's edits (tests/test_animator.c). The joint overrides and head
 * angles stay the animator's own. NULL for a NULL animator. */
BW_API bw_pose *bw_animator_pose_mutable(bw_animator *animator);
BW_API const bw_joint_override *bw_animator_joint_overrides(const bw_animator *animator, int *out_count);
BW_API const float *bw_animator_expression(const bw_animator *animator, int *out_dim);
/* The ARKit-52 vector the expression was mapped from (after blink). */
BW_API const float *bw_animator_arkit(const bw_animator *animator);
BW_API const float *bw_animator_gaze(const bw_animator *animator); /* 4 floats */
BW_API const bw_root_delta *bw_animator_root_motion(const bw_animator *animator);
BW_API const bw_animator_event *bw_animator_events(const bw_animator *animator, int *out_count);
/* The head aim of the last update before the split: yaw and pitch the
 * chain took (radians). */
BW_API void bw_animator_head_aim(const bw_animator *animator, float *out_yaw, float *out_pitch);
/* The body plays of the last update (locomotion leaves or explicit clips;
 * none with a graph) as clip index, weight and rate. */
typedef struct bw_animator_play {
    int clip;
    float weight;
    float rate;
    float time; /* sample time, seconds */
} bw_animator_play;
BW_API const bw_animator_play *bw_animator_plays(const bw_animator *animator, int *out_count);
/* The head-aim limits the animator resolved at create (radians; the
 * defaults filled in): out[0] head yaw, out[1] head pitch, out[2] eye yaw,
 * out[3] eye pitch. Returns the chain's joint count (0: no head aim, the
 * limits are still written). NULL animator: zeros. */
BW_API int bw_animator_head_limits(const bw_animator *animator, float out[4]);
/* The graph cursor for the host to drive between updates (travel, layer
 * weights, parameters, a carry-over): the same object as
 * bw_animator_cursor. Not during an update; NULL without a graph. */
BW_API bw_graph_cursor *bw_animator_cursor_mut(bw_animator *animator);

#ifdef __cplusplus
}
#endif
#endif
