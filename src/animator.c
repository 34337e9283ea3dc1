/* animator.c - the character animator (include/blendwerk/animator.h).
 *
 * Everything is sized and allocated in bw_animator_create; update only
 * reads and writes those buffers. The four layers run in order: body base
 * (graph, explicit clips or the locomotion blend tree), gesture (additive
 * against a reference baked at creation), face (ARKit channels of the face
 * clips, blink, map), procedural head aim. */
#include "blendwerk/animator.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "blendwerk/blendtree.h"
#include "blendwerk/mix.h"
#include "blendwerk/play.h"
#include "blendwerk/procedural.h"
#include "blendwerk/sample.h"
#include "bw_math.h"
#include "clip_internal.h"
#include "common.h"
#include "graph_internal.h"
#include "mix_internal.h"

static const char *const arkit52_names[BW_ARKIT52_COUNT] = {
    "eyeBlinkLeft", "eyeLookDownLeft", "eyeLookInLeft", "eyeLookOutLeft", "eyeLookUpLeft", "eyeSquintLeft",
    "eyeWideLeft", "eyeBlinkRight", "eyeLookDownRight", "eyeLookInRight", "eyeLookOutRight", "eyeLookUpRight",
    "eyeSquintRight", "eyeWideRight", "jawForward", "jawLeft", "jawRight", "jawOpen", "mouthClose",
    "mouthFunnel", "mouthPucker", "mouthLeft", "mouthRight", "mouthSmileLeft", "mouthSmileRight",
    "mouthFrownLeft", "mouthFrownRight", "mouthDimpleLeft", "mouthDimpleRight", "mouthStretchLeft",
    "mouthStretchRight", "mouthRollLower", "mouthRollUpper", "mouthShrugLower", "mouthShrugUpper",
    "mouthPressLeft", "mouthPressRight", "mouthLowerDownLeft", "mouthLowerDownRight", "mouthUpperUpLeft",
    "mouthUpperUpRight", "browDownLeft", "browDownRight", "browInnerUp", "browOuterUpLeft", "browOuterUpRight",
    "cheekPuff", "cheekSquintLeft", "cheekSquintRight", "noseSneerLeft", "noseSneerRight", "tongueOut",
};

const char *bw_arkit52_name(int index)
{
    return index >= 0 && index < BW_ARKIT52_COUNT ? arkit52_names[index] : NULL;
}

int bw_arkit52_find(const char *name)
{
    if (!name) return -1;
    for (int i = 0; i < BW_ARKIT52_COUNT; i++)
        if (strcmp(arkit52_names[i], name) == 0) return i;
    return -1;
}

/* One ARKit channel of a face clip. */
typedef struct face_track {
    int arkit;
    int track;         /* the FLOAT track's index in its clip (bw_sample_track) */
    float first, last; /* its first and last key times */
    float first_value, last_value; /* the track sampled at them (the loop gap's ends) */
} face_track;

typedef struct gesture_slot {
    bool active;
    int slot;          /* index into the gesture clip list */
    /* seconds since start, in double (as the graph's fade timers), so a
       gesture of duration D at dt ends on the update that reaches D
       (60 × 1/60.f >= 1, where a float sum stays below) */
    double t;
    float weight;      /* envelope weight of the last update */
    float ramp;        /* outgoing slot: seconds over which its share goes 1 -> 0 */
    double ramped;     /* outgoing slot: seconds of the ramp gone (outgoing_share) */
    bw_gesture_desc desc;
} gesture_slot;

struct bw_animator {
    bw_allocator alloc;
    const bw_rig *rig;
    int joint_count;
    int clip_count;
    const bw_clip **clips;
    const char **names; /* copies of desc.clip_names (NULL entries allowed) */
    bw_binding **bindings;
    bool shared_bindings; /* from desc.binding_cache: not the animator's to destroy */
    bw_binding_cache *binding_cache; /* desc.binding_cache (borrowed): bw_animator_refresh_clips binds there too */
    bw_mixer *mixer;
    bw_pose pose, sample;
    /* body */
    bw_blend_tree *loco_tree;
    bw_blend_tree_state *loco_state;
    bw_track_set *clip_set; /* explicit clip weights: one playback track per clip (play.h) */
    int *clip_track;        /* clip_count: the clip's track handle, -1 until it first has weight */
    bw_clip_contribution *contribs;
    bw_root_play *root_plays;
    bw_animator_play *plays;
    int play_count, contrib_capacity;
    bw_root_motion_config rm_cfg;
    bw_root_delta root;
    bw_graph_cursor *cursor;
    bw_graph_cursor_hint hint; /* where the cursor's per-frame state lies (prefetched first) */
    const bw_graph *graph;
    bw_binding **graph_bindings; /* graph_binding_count, one per graph clip (the animator's
                                    bindings, remapped), then the map itself (graph_map);
                                    NULL: the graph uses a->bindings */
    int graph_binding_count;
    /* gesture */
    int gesture_count;
    int *gesture_clip;
    bw_pose *gesture_ref;
    gesture_slot cur, old;
    /* face */
    int face_count;
    int *face_clip;
    int *face_first; /* face_count + 1 offsets into tracks */
    face_track *tracks;
    int track_count;
    double *face_time;
    /* expression */
    bw_expression_space space;
    int dim;
    float arkit[BW_ARKIT52_COUNT];
    float *expr;
    /* the last good state (copied) */
    float velocity[3], position[3], yaw;
    bool use_clips, use_face, has_look_at, has_expr;
    float *clip_w, *face_w, *state_expr;
    int state_expr_count;
    float look_at[3];
    int problem_count; /* of the last update's state (the list lies at the end) */
    /* head */
    int chain[BW_ANIMATOR_MAX_CHAIN];
    float chain_w[BW_ANIMATOR_MAX_CHAIN];
    int chain_count;
    float yaw_limit, pitch_limit, eye_yaw_limit, eye_pitch_limit;
    float head_yaw, head_pitch, prev_yaw;
    float gaze[4];
    bw_joint_override overrides[BW_ANIMATOR_MAX_CHAIN];
    /* blink */
    bool blink_on;
    uint32_t rng;
    float blink_min, blink_max, blink_dur;
    double clock, next_blink, blink_start;
    bool blinking;
    float blink_w;
    /* events */
    bw_animator_event *events;
    int event_count, event_capacity;
    bool event_default; /* desc.event_capacity 0: sized by default_events */
    /* Everything above is the per-frame part bw_animator_prefetch asks
       for; below, what a good frame never touches. */
    bw_state_problem problems[BW_ANIMATOR_MAX_PROBLEMS]; /* 2.5 KB */
};

/* The default event capacity: its cursor's default queue
 * (bw_graph_default_events) and room for a gesture end and a blink, so a
 * default animator drops no event of any reasonable graph and reserves a
 * bounded queue for a hostile one; 64 without a graph. */
static int default_events(const bw_graph *graph) { return graph ? bw_graph_default_events(graph) + 2 : 64; }

/* ---- create-time problems: the graph compiler's report (one error list type) ---- */

#define REPORT(rep, code, ...) (bw_graph_problem((rep), (code), __VA_ARGS__), (code))

static bool clip_index_ok(int clip, int count) { return clip >= 0 && clip < count; }

/* The head chain's joints and their parent-local rotations in the pose
 * (bw_animator_joint_overrides). */
static void publish_overrides(bw_animator *a)
{
    for (int i = 0; i < a->chain_count; i++) {
        a->overrides[i].joint = a->chain[i];
        memcpy(a->overrides[i].r, a->pose.joints[a->chain[i]].r, sizeof a->overrides[i].r);
    }
}

/* Resolve the head chain into a (joints, weights, limits). */
static void resolve_head(bw_animator *a, const bw_head_desc *h, const bw_logger *logger, bw_graph_report *rep)
{
    const bw_aim_limits d = BW_ANIMATOR_HEAD_LIMITS;
    const bool given = h->has_limits; /* 0 is a limit, not "the default" */
    a->yaw_limit = given || h->yaw_limit > 0.0f ? h->yaw_limit : d.yaw;
    a->pitch_limit = given || h->pitch_limit > 0.0f ? h->pitch_limit : d.pitch;
    a->eye_yaw_limit = given || h->eye_yaw_limit > 0.0f ? h->eye_yaw_limit : d.eye_yaw;
    a->eye_pitch_limit = given || h->eye_pitch_limit > 0.0f ? h->eye_pitch_limit : d.eye_pitch;
    float limits[4] = {h->yaw_limit, h->pitch_limit, h->eye_yaw_limit, h->eye_pitch_limit};
    for (int i = 0; i < 4; i++)
        if (!isfinite(limits[i]) || limits[i] < 0.0f)
            bw_graph_problem(rep, bw_nonneg_problem_code(limits[i]), "desc.head", "limits must be finite and >= 0");
    if (h->disabled) return;
    if (h->chain_count < 0 || h->chain_count > BW_ANIMATOR_MAX_CHAIN || (h->chain_count > 0 && !h->chain)) {
        bw_graph_problem(rep, BW_ERR_INVALID_ARGUMENT, "desc.head.chain", "chain_count %d is not in [0, %d]",
               h->chain_count, BW_ANIMATOR_MAX_CHAIN);
        return;
    }
    if (h->chain_count > 0) {
        char where[64];
        for (int i = 0; i < h->chain_count; i++) {
            snprintf(where, sizeof where, "desc.head.chain[%d]", i);
            /* a name, or "parent/name" where the name alone is ambiguous, as
             * mask entries */
            int j = h->chain[i] ? bw_graph_find_mask_joint(a->rig, h->chain[i]) : -1;
            if (j == BW_RIG_AMBIGUOUS) {
                bw_graph_problem(rep, BW_ERR_NOT_FOUND, where,
                                 "'%s' names several joints of the rig: write it as 'parent/%s'", h->chain[i],
                                 h->chain[i]);
                continue;
            }
            if (j < 0) {
                bw_graph_problem(rep, BW_ERR_NOT_FOUND, where, "no joint '%s' in the rig",
                       h->chain[i] ? h->chain[i] : "(null)");
                continue;
            }
            float w = h->weights ? h->weights[i] : 1.0f / (float)h->chain_count;
            if (!isfinite(w) || w < 0.0f) {
                snprintf(where, sizeof where, "desc.head.weights[%d]", i);
                bw_graph_problem(rep, bw_nonneg_problem_code(w), where, "weight must be finite and >= 0");
            }
            a->chain[a->chain_count] = j;
            a->chain_w[a->chain_count++] = w;
        }
        return;
    }
    static const char *const three[] = {"neck_01", "neck_02", "head"};
    static const float three_w[] = {0.25f, 0.25f, 0.5f};
    static const char *const two[] = {"neck", "head"};
    static const float two_w[] = {0.4f, 0.6f};
    static const char *const one[] = {"head"};
    static const float one_w[] = {1.0f};
    const char *const *sets[] = {three, two, one};
    const float *ws[] = {three_w, two_w, one_w};
    const int ns[] = {3, 2, 1};
    bool warned_head = false;
    for (int s = 0; s < 3; s++) {
        int found = 0;
        for (int i = 0; i < ns[s]; i++) {
            int j = bw_rig_find_by_name(a->rig, sets[s][i]);
            /* "head" is in all three sets: its warning once */
            bool head = strcmp(sets[s][i], "head") == 0;
            if (j == BW_RIG_AMBIGUOUS && !(head && warned_head)) {
                bw_log(logger, BW_LOG_WARNING,
                       "head: the default head chain passes over '%s': the rig has several joints of that "
                       "name (name the chain: head.chain = { ..., 'parent/%s' })",
                       sets[s][i], sets[s][i]);
                warned_head |= head;
            }
            if (j < 0) break;
            a->chain[i] = j;
            a->chain_w[i] = ws[s][i];
            found++;
        }
        if (found == ns[s]) {
            a->chain_count = found;
            return;
        }
    }
    a->chain_count = 0;
}

/* ARKit FLOAT tracks of the face clips. */
static bw_result collect_face_tracks(bw_animator *a, bool store)
{
    int n = 0;
    for (int f = 0; f < a->face_count; f++) {
        if (store) a->face_first[f] = n;
        const bw_clip *clip = a->clips[a->face_clip[f]];
        int tc = bw_clip_track_count(clip);
        for (int t = 0; t < tc; t++) {
            bw_track_desc d;
            if (bw_clip_track(clip, t, &d) != BW_OK || d.channel != BW_CHANNEL_FLOAT || d.key_count < 1) continue;
            int k = bw_arkit52_find(d.joint);
            if (k < 0) continue;
            if (store) {
                face_track *ft = &a->tracks[n];
                *ft = (face_track){k, t, d.times[0], d.times[d.key_count - 1], 0.0f, 0.0f};
                bw_sample_track(clip, t, ft->first, &ft->first_value);
                bw_sample_track(clip, t, ft->last, &ft->last_value);
            }
            n++;
        }
    }
    if (store) a->face_first[a->face_count] = n;
    a->track_count = n;
    return BW_OK;
}

static int cmp_loco(const void *x, const void *y)
{
    const bw_locomotion_entry *a = (const bw_locomotion_entry *)x, *b = (const bw_locomotion_entry *)y;
    return (a->speed > b->speed) - (a->speed < b->speed);
}

static bw_result build_locomotion(bw_animator *a, const bw_animator_desc *desc, bw_graph_report *rep)
{
    int n = desc->locomotion_count;
    if (n == 0) return BW_OK;
    if (n < 0 || n > 256 || !desc->locomotion)
        return REPORT(rep, BW_ERR_INVALID_ARGUMENT, "desc.locomotion", "locomotion_count %d is not in [0, 256]",
                      n);
    bool ok = true;
    char where[64];
    for (int i = 0; i < n; i++) {
        const bw_locomotion_entry *e = &desc->locomotion[i];
        if (!clip_index_ok(e->clip, desc->clip_count)) {
            snprintf(where, sizeof where, "desc.locomotion[%d].clip", i);
            bw_graph_problem(rep, BW_ERR_RANGE, where, "clip %d is not in [0, %d)", e->clip, desc->clip_count);
            ok = false;
        }
        if (!isfinite(e->speed) || e->speed < 0.0f) {
            snprintf(where, sizeof where, "desc.locomotion[%d].speed", i);
            bw_graph_problem(rep, bw_nonneg_problem_code(e->speed), where,
                   "speed must be finite and >= 0");
            ok = false;
        }
    }
    if (!ok) return rep->first;
    bw_locomotion_entry sorted[256];
    memcpy(sorted, desc->locomotion, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_loco);
    bw_blend_node nodes[257];
    int children[256];
    float thresholds[256];
    for (int i = 0; i < n; i++) {
        nodes[i] = bw_blend_clip_node(sorted[i].clip, bw_clip_length(desc->clips[sorted[i].clip]));
        children[i] = i;
        thresholds[i] = sorted[i].speed;
    }
    nodes[n] = bw_blend_1d_node(children, thresholds, n, 0, true);
    bw_blend_tree_desc td = {0};
    td.nodes = nodes;
    td.node_count = n + 1;
    td.root = n;
    td.param_count = 1;
    td.allocator = a->alloc;
    bw_error err = {0};
    bw_result r = bw_blend_tree_compile(&td, &a->loco_tree, &err);
    if (r != BW_OK) return REPORT(rep, r, "desc.locomotion", "%s", err.message);
    r = bw_blend_tree_state_create(a->loco_tree, &a->alloc, &a->loco_state);
    if (r != BW_OK) return REPORT(rep, r, "desc.locomotion", "out of memory");
    return BW_OK;
}

/* The animator's arrays, listed once for allocation and release. */
#define SIZED_AT_START(X)                                                  \
    X(a->clips, a->clip_count) X(a->names, a->clip_count)                  \
    X(a->bindings, a->clip_count) X(a->clip_track, a->clip_count)         \
    X(a->clip_w, a->clip_count) X(a->face_clip, a->face_count)             \
    X(a->face_first, a->face_count + 1) X(a->face_time, a->face_count)     \
    X(a->face_w, a->face_count) X(a->gesture_clip, a->gesture_count)       \
    X(a->gesture_ref, a->gesture_count) X(a->expr, a->dim)                 \
    X(a->state_expr, a->dim > BW_ARKIT52_COUNT ? a->dim : BW_ARKIT52_COUNT) \
    X(a->events, a->event_capacity)
#define SIZED_BY_PLAYS(X) \
    X(a->contribs, a->contrib_capacity) X(a->root_plays, a->contrib_capacity) X(a->plays, a->contrib_capacity)

#define ALLOC_N(ptr, n)                                                                    \
    do {                                                                                   \
        if ((n) > 0 && !((ptr) = bw_alloc_zeroed(&a->alloc, (size_t)(n) * sizeof *(ptr)))) \
            goto oom;                                                                      \
    } while (0);

/* The mixer and the explicit clips' playback of the body layer without a
 * graph (explicit clips or the locomotion tree), made when the animator
 * first runs without a graph: with one, its cursor plays and mixes (about
 * 45 KB a character on the 64-joint rig, never touched, not made). */
static bw_result make_body_layer(bw_animator *a)
{
    if (a->clip_count > 0 && !a->clip_set) { /* the explicit clips' playback */
        bw_track_set_desc sd = {0};
        sd.rig = a->rig;
        sd.capacity = a->clip_count < BW_TRACK_SET_MAX_CAPACITY ? a->clip_count : BW_TRACK_SET_MAX_CAPACITY;
        sd.signal_capacity = 256 + 32 * sd.capacity;
        sd.allocator = a->alloc;
        bw_result r = bw_track_set_create(&sd, &a->clip_set);
        if (r != BW_OK) return r;
    }
    if (a->mixer) return BW_OK;
    bw_mixer_desc md = {0};
    md.rig = a->rig;
    md.max_contributions = a->contrib_capacity;
    md.allocator = a->alloc;
    return bw_mixer_create(&md, &a->mixer);
}

/* A binding of `clip` to the animator's rig: from its binding cache (only
 * ever read, not the animator's to destroy) or its own. `logger` (may be
 * NULL) hears of a track whose name alone matches several joints. */
static bw_result bind_clip(bw_animator *a, const bw_clip *clip, const bw_logger *logger, bw_binding **out,
                           bw_error *err)
{
    if (a->binding_cache) {
        const bw_binding *shared = NULL;
        bw_result r = bw_binding_cache_get(a->binding_cache, clip, a->rig, 0, &shared, err);
        *out = (bw_binding *)shared;
        return r;
    }
    bw_binding_desc bd = {0};
    bd.clip = clip;
    bd.rig = a->rig;
    bd.allocator = a->alloc;
    if (logger) bd.logger = *logger;
    return bw_binding_create(&bd, out, err);
}

/* The graph's clip list against the animator's: `map` NULL means the same
 * list; else one index into the animator's clips per graph clip. */
static void check_graph_clips(const bw_graph *graph, const int *map, int clip_count, const char *prefix,
                              bw_graph_report *rep)
{
    int n = bw_graph_clip_count(graph);
    char where[64];
    if (!map) {
        if (n != clip_count) {
            snprintf(where, sizeof where, "%sgraph", prefix);
            bw_graph_problem(rep, BW_ERR_INVALID_ARGUMENT, where,
                             "the graph has %d clips, the animator %d (give graph_clips, or the graph's clip "
                             "list must be the animator's clips)",
                             n, clip_count);
        }
        return;
    }
    for (int i = 0; i < n; i++)
        if (!clip_index_ok(map[i], clip_count)) {
            snprintf(where, sizeof where, "%sgraph_clips[%d]", prefix, i);
            bw_graph_problem(rep, BW_ERR_RANGE, where, "clip %d is not in [0, %d)", map[i], clip_count);
        }
}

/* The remapped bindings' block of n graph clips: n bindings, then the n
 * animator clip indices they came from (so a refresh knows which clip of
 * the animator each graph clip plays). */
static size_t graph_block_size(int n) { return (size_t)n * (sizeof(bw_binding *) + sizeof(int)); }
static int *graph_map(bw_binding **block, int n) { return (int *)(void *)(block + n); }
static void free_graph_block(bw_animator *a, bw_binding **block, int n) { bw_free(&a->alloc, block, graph_block_size(n)); }

/* A cursor of `graph` over the animator's bindings (remapped through `map`
 * into a new block *out_bindings, graph_block_size; NULL when map is NULL).
 * Checks the clip lists first; on failure nothing is kept and the problem
 * is reported. */
static bw_result make_graph_cursor(bw_animator *a, const bw_graph *graph, const int *map, const char *where,
                                   bw_graph_report *rep, bw_graph_cursor **out_cursor, bw_binding ***out_bindings)
{
    *out_cursor = NULL;
    *out_bindings = NULL;
    int before = rep->count;
    check_graph_clips(graph, map, a->clip_count, "", rep);
    if (rep->count != before) return rep->first;
    bw_result r;
    int n = bw_graph_clip_count(graph);
    bw_binding **bindings = a->bindings;
    if (map) {
        bindings = n > 0 ? bw_alloc_zeroed(&a->alloc, graph_block_size(n)) : NULL;
        if (n > 0 && !bindings) return REPORT(rep, BW_ERR_OUT_OF_MEMORY, where, "out of memory");
        for (int i = 0; i < n; i++) bindings[i] = a->bindings[map[i]];
        if (n > 0) memcpy(graph_map(bindings, n), map, (size_t)n * sizeof *map);
    }
    bw_graph_cursor_desc cd = {0};
    cd.rig = a->rig;
    cd.bindings = (const bw_binding *const *)bindings;
    cd.binding_count = n;
    cd.allocator = a->alloc;
    bw_error gerr[1];
    bw_graph_errors ge = {gerr, 1, 0};
    r = bw_graph_cursor_create(graph, &cd, out_cursor, &ge);
    if (r != BW_OK) {
        if (map) free_graph_block(a, bindings, n);
        *out_cursor = NULL;
        return REPORT(rep, r, where, "%s", ge.count ? gerr[0].message : bw_result_name(r));
    }
    if (map) *out_bindings = bindings;
    return BW_OK;
}

bw_result bw_animator_create(const bw_animator_desc *desc, bw_animator **out, bw_animator_errors *errors)
{
    bw_graph_report rep;
    bw_graph_report_begin(&rep, errors);
    if (!desc || !out || !desc->rig)
        return REPORT(&rep, BW_ERR_INVALID_ARGUMENT, "desc", "desc, desc.rig and out are required");
    if (desc->clip_count < 0 || desc->clip_count > 65536 || (desc->clip_count > 0 && !desc->clips))
        return REPORT(&rep, BW_ERR_INVALID_ARGUMENT, "desc.clips", "clip_count %d is not in [0, 65536]",
                      desc->clip_count);
    char where[64];
    for (int i = 0; i < desc->clip_count; i++)
        if (!desc->clips[i]) {
            snprintf(where, sizeof where, "desc.clips[%d]", i);
            bw_graph_problem(&rep, BW_ERR_INVALID_ARGUMENT, where, "clip is NULL");
        }
    const bw_expression_space *sp = &desc->expression_space;
    if (sp->kind == BW_EXPRESSION_CUSTOM) {
        if (!sp->map)
            bw_graph_problem(&rep, BW_ERR_INVALID_ARGUMENT, "desc.expression_space.map",
                   "a custom expression space needs a map function");
        if (sp->dim < 1 || sp->dim > BW_ANIMATOR_MAX_DIM)
            bw_graph_problem(&rep, BW_ERR_INVALID_ARGUMENT, "desc.expression_space.dim", "dim %d is not in [1, %d]",
                   sp->dim, BW_ANIMATOR_MAX_DIM);
    } else if (sp->kind != BW_EXPRESSION_ARKIT52) {
        bw_graph_problem(&rep, BW_ERR_INVALID_ARGUMENT, "desc.expression_space.kind", "unknown kind %d",
               (int)sp->kind);
    } else if (sp->dim != 0 && sp->dim != BW_ARKIT52_COUNT) {
        bw_graph_problem(&rep, BW_ERR_INVALID_ARGUMENT, "desc.expression_space.dim",
               "the ARKit-52 space has dim 52, not %d", sp->dim);
    }
    const int *lists[2] = {desc->face_clips, desc->gesture_clips};
    const int counts[2] = {desc->face_clip_count, desc->gesture_clip_count};
    const char *lnames[2] = {"face_clips", "gesture_clips"};
    for (int l = 0; l < 2; l++) {
        if (counts[l] < 0 || counts[l] > desc->clip_count || (counts[l] > 0 && !lists[l])) {
            snprintf(where, sizeof where, "desc.%s", lnames[l]);
            bw_graph_problem(&rep, BW_ERR_INVALID_ARGUMENT, where, "count %d is not in [0, clip_count]", counts[l]);
            continue;
        }
        for (int i = 0; i < counts[l]; i++)
            if (!clip_index_ok(lists[l][i], desc->clip_count)) {
                snprintf(where, sizeof where, "desc.%s[%d]", lnames[l], i);
                bw_graph_problem(&rep, BW_ERR_RANGE, where, "clip %d is not in [0, %d)", lists[l][i],
                       desc->clip_count);
            }
    }
    if (desc->graph) check_graph_clips(desc->graph, desc->graph_clips, desc->clip_count, "desc.", &rep);
    const bw_blink_desc *bl = &desc->blink;
    float bmin = bl->interval_min > 0.0f ? bl->interval_min : 2.0f;
    float bmax = bl->interval_max > 0.0f ? bl->interval_max : (bl->interval_min > 6.0f ? bl->interval_min : 6.0f);
    float bdur = bl->duration > 0.0f ? bl->duration : 0.15f;
    if (!isfinite(bl->interval_min) || !isfinite(bl->interval_max) || !isfinite(bl->duration))
        bw_graph_problem(&rep, BW_ERR_NON_FINITE, "desc.blink", "intervals and duration must be finite");
    else if (bl->interval_min < 0.0f || bl->interval_max < 0.0f || bl->duration < 0.0f || bmin > bmax)
        bw_graph_problem(&rep, BW_ERR_INVALID_ARGUMENT, "desc.blink", "intervals and duration must be >= 0, min <= max");
    if (desc->event_capacity < 0 || desc->event_capacity > (1 << 16))
        bw_graph_problem(&rep, desc->event_capacity < 0 ? BW_ERR_INVALID_ARGUMENT : BW_ERR_LIMIT,
                         "desc.event_capacity", "%d is not in [0, 65536]", desc->event_capacity);
    if (rep.first != BW_OK) return rep.first;

    bw_allocator alloc = desc->allocator;
    bw_animator *a = bw_alloc_zeroed(&alloc, sizeof *a);
    if (!a) return REPORT(&rep, BW_ERR_OUT_OF_MEMORY, "desc", "out of memory");
    a->alloc = alloc;
    a->rig = desc->rig;
    a->joint_count = bw_rig_joint_count(desc->rig);
    a->clip_count = desc->clip_count;
    a->binding_cache = desc->binding_cache;
    a->shared_bindings = desc->binding_cache != NULL;
    a->graph = desc->graph;
    a->space = *sp;
    a->dim = sp->kind == BW_EXPRESSION_CUSTOM ? sp->dim : BW_ARKIT52_COUNT;
    a->face_count = desc->face_clip_count;
    a->gesture_count = desc->gesture_clip_count;
    a->event_default = desc->event_capacity == 0;
    a->event_capacity = a->event_default ? default_events(desc->graph) : desc->event_capacity;
    a->blink_on = !bl->disabled;
    a->rng = bl->seed ? bl->seed : 1u;
    a->blink_min = bmin;
    a->blink_max = bmax;
    a->blink_dur = bdur;

    SIZED_AT_START(ALLOC_N)
    for (int i = 0; i < a->clip_count; i++) {
        a->clips[i] = desc->clips[i];
        if (desc->clip_names && desc->clip_names[i]) {
            a->names[i] = bw_strdup(&a->alloc, desc->clip_names[i]);
            if (!a->names[i]) goto oom;
        }
        bw_error err = {0};
        bw_result r = bind_clip(a, desc->clips[i], &desc->logger, &a->bindings[i], &err);
        if (r != BW_OK) {
            snprintf(where, sizeof where, "desc.clips[%d]", i);
            bw_graph_problem(&rep, r, where, "%s", err.message);
            goto fail;
        }
    }
    for (int i = 0; i < a->clip_count; i++) a->clip_track[i] = -1;
    if (a->face_count) memcpy(a->face_clip, desc->face_clips, (size_t)a->face_count * sizeof(int));
    if (a->gesture_count) memcpy(a->gesture_clip, desc->gesture_clips, (size_t)a->gesture_count * sizeof(int));
    collect_face_tracks(a, false);
    ALLOC_N(a->tracks, a->track_count);
    collect_face_tracks(a, true);

    if (bw_pose_init(&a->pose, a->rig, &a->alloc) != BW_OK ||
        (a->gesture_count > 0 && bw_pose_init(&a->sample, a->rig, &a->alloc) != BW_OK)) /* gestures' only */
        goto oom;
    bw_pose_set_rest(&a->pose, a->rig);
    for (int g = 0; g < a->gesture_count; g++) {
        if (bw_pose_init(&a->gesture_ref[g], a->rig, &a->alloc) != BW_OK) goto oom;
        if (desc->gesture_reference_rest) bw_pose_set_rest(&a->gesture_ref[g], a->rig);
        else bw_sample_clip(a->bindings[a->gesture_clip[g]], a->rig, 0.0f, &a->gesture_ref[g]);
    }
    resolve_head(a, &desc->head, &desc->logger, &rep);
    if (rep.first != BW_OK) goto fail;
    publish_overrides(a); /* before the first update: the chain at the rest pose */
    if (bw_rig_joint_count(a->rig) > 0) {
        bw_error err = {0};
        bw_result r = bw_root_motion_config_init(&a->rm_cfg, a->rig, desc->root_joint, 0, &err);
        if (r != BW_OK) {
            bw_graph_problem(&rep, r, "desc.root_joint", "%s", err.message);
            goto fail;
        }
    }
    if (build_locomotion(a, desc, &rep) != BW_OK) goto fail;
    int leaves = a->loco_tree ? bw_blend_tree_max_leaves(a->loco_tree) : 0;
    a->contrib_capacity = (a->clip_count > leaves ? a->clip_count : leaves) + 1;
    SIZED_BY_PLAYS(ALLOC_N)
    if (!desc->graph) { /* a graph's cursor plays and mixes: the body's wait for bw_animator_set_graph(NULL) */
        bw_result r = make_body_layer(a);
        if (r == BW_ERR_OUT_OF_MEMORY) goto oom;
        if (r != BW_OK) {
            bw_graph_problem(&rep, r, "desc.clips", "playback and mixing: %s", bw_result_name(r));
            goto fail;
        }
    }
    if (desc->graph) {
        if (make_graph_cursor(a, desc->graph, desc->graph_clips, "desc.graph", &rep, &a->cursor, &a->graph_bindings) !=
            BW_OK)
            goto fail;
        a->graph = desc->graph;
        a->hint = bw_graph_cursor_hint_of(a->cursor);
        a->graph_binding_count = desc->graph_clips ? bw_graph_clip_count(desc->graph) : 0;
    }
    a->next_blink = bw_animator_blink_interval(&a->rng, a->blink_min, a->blink_max);
    *out = a;
    return BW_OK;
oom:
    bw_graph_problem(&rep, BW_ERR_OUT_OF_MEMORY, "desc", "out of memory");
fail:
    bw_animator_destroy(a);
    return rep.first;
}

#define FREE_N(ptr, n) bw_free(&a->alloc, (ptr), (size_t)(n) * sizeof *(ptr));

void bw_animator_destroy(bw_animator *a)
{
    if (!a) return;
    bw_graph_cursor_destroy(a->cursor);
    free_graph_block(a, a->graph_bindings, a->graph_binding_count);
    bw_mixer_destroy(a->mixer);
    bw_track_set_destroy(a->clip_set);
    bw_blend_tree_state_destroy(a->loco_state);
    bw_blend_tree_destroy(a->loco_tree);
    for (int i = 0; a->bindings && !a->shared_bindings && i < a->clip_count; i++) bw_binding_destroy(a->bindings[i]);
    for (int i = 0; a->names && i < a->clip_count; i++) bw_free_string(&a->alloc, (char *)a->names[i]);
    for (int g = 0; a->gesture_ref && g < a->gesture_count; g++) bw_pose_deinit(&a->gesture_ref[g]);
    bw_pose_deinit(&a->pose);
    bw_pose_deinit(&a->sample);
    SIZED_AT_START(FREE_N)
    FREE_N(a->tracks, a->track_count);
    SIZED_BY_PLAYS(FREE_N)
    bw_allocator alloc = a->alloc;
    bw_free(&alloc, a, sizeof *a);
}

int bw_animator_find_clip(const bw_animator *a, const char *name)
{
    if (!a || !name) return -1;
    for (int i = 0; i < a->clip_count; i++)
        if (a->names[i] && strcmp(a->names[i], name) == 0) return i;
    return -1;
}
int bw_animator_clip_count(const bw_animator *a) { return a ? a->clip_count : 0; }
int bw_animator_expression_dim(const bw_animator *a) { return a ? a->dim : 0; }
const bw_graph_cursor *bw_animator_cursor(const bw_animator *a) { return a ? a->cursor : NULL; }
const bw_graph *bw_animator_graph(const bw_animator *a) { return a ? a->graph : NULL; }

bw_result bw_animator_set_graph(bw_animator *a, const bw_graph *graph, const int *graph_clips, float fade,
                                bw_animator_errors *errors)
{
    bw_graph_report rep;
    bw_graph_report_begin(&rep, errors);
    if (!a) return REPORT(&rep, BW_ERR_INVALID_ARGUMENT, "animator", "is NULL");
    if (!isfinite(fade) || fade < 0.0f)
        return REPORT(&rep, isfinite(fade) ? BW_ERR_INVALID_ARGUMENT : BW_ERR_NON_FINITE, "fade",
                      "must be finite and >= 0");
    bw_graph_cursor *cursor = NULL;
    bw_binding **bindings = NULL;
    if (!graph) {
        bw_result r = make_body_layer(a);
        if (r != BW_OK) return REPORT(&rep, r, "graph", "playback and mixing: %s", bw_result_name(r));
    }
    if (graph) {
        bw_result r = make_graph_cursor(a, graph, graph_clips, "graph", &rep, &cursor, &bindings);
        if (r != BW_OK) return r;
        if (a->cursor) {
            r = bw_graph_cursor_carry_over(cursor, a->cursor, fade);
            if (r != BW_OK) {
                bw_graph_cursor_destroy(cursor);
                free_graph_block(a, bindings, graph_clips ? bw_graph_clip_count(graph) : 0);
                return REPORT(&rep, r, "graph", "the character cannot be carried over (%s)", bw_result_name(r));
            }
        }
    }
    /* a default queue grows to the new graph's bound (here, never per frame) */
    int events = a->event_default ? default_events(graph) : a->event_capacity;
    if (events > a->event_capacity) {
        bw_animator_event *grown = bw_alloc_zeroed(&a->alloc, (size_t)events * sizeof *grown);
        if (!grown) {
            bw_graph_cursor_destroy(cursor);
            free_graph_block(a, bindings, graph_clips ? bw_graph_clip_count(graph) : 0);
            return REPORT(&rep, BW_ERR_OUT_OF_MEMORY, "graph", "out of memory");
        }
        bw_free(&a->alloc, a->events, (size_t)a->event_capacity * sizeof *a->events);
        a->events = grown;
        a->event_capacity = events;
    }
    bw_graph_cursor_destroy(a->cursor);
    free_graph_block(a, a->graph_bindings, a->graph_binding_count);
    a->cursor = cursor;
    a->hint = bw_graph_cursor_hint_of(cursor);
    a->graph = graph;
    a->graph_bindings = bindings;
    a->graph_binding_count = graph && graph_clips ? bw_graph_clip_count(graph) : 0;
    /* the last update's graph events name strings of the old graph */
    a->event_count = 0;
    return BW_OK;
}

/* ---- hot reload of the graph's clips ---- */

/* The animator clip graph clip i plays. */
static int graph_slot(const bw_animator *a, int i)
{
    return a->graph_bindings ? graph_map(a->graph_bindings, a->graph_binding_count)[i] : i;
}

/* What else of the animator baked clip k at creation ("locomotion",
 * "face", "gesture"), or NULL. */
static const char *baked_use(const bw_animator *a, int k)
{
    for (int i = 0; a->loco_tree && i < bw_blend_tree_node_count(a->loco_tree); i++) {
        const bw_blend_node *n = bw_blend_tree_node(a->loco_tree, i);
        if (n->kind == BW_BLEND_NODE_CLIP && n->clip == k) return "locomotion";
    }
    for (int f = 0; f < a->face_count; f++)
        if (a->face_clip[f] == k) return "face";
    for (int g = 0; g < a->gesture_count; g++)
        if (a->gesture_clip[g] == k) return "gesture";
    return NULL;
}

bw_result bw_animator_refresh_clips_validate(const bw_animator *a, const bw_clip *const *clips, int count,
                                             bw_animator_errors *errors)
{
    bw_graph_report rep;
    bw_graph_report_begin(&rep, errors);
    if (!a || !a->graph) return REPORT(&rep, BW_ERR_INVALID_ARGUMENT, "animator", "is NULL or has no graph");
    int n = bw_graph_clip_count(a->graph);
    if (count != n || (n > 0 && !clips))
        return REPORT(&rep, BW_ERR_INVALID_ARGUMENT, "clips", "%d clips for a graph of %d", count, n);
    char where[64];
    for (int i = 0; i < n; i++) {
        snprintf(where, sizeof where, "clips[%d]", i);
        int k = graph_slot(a, i);
        const char *baked = clips[i] && clips[i] != a->clips[k] ? baked_use(a, k) : NULL;
        if (!clips[i]) bw_graph_problem(&rep, BW_ERR_INVALID_ARGUMENT, where, "clip is NULL");
        else if (baked)
            bw_graph_problem(&rep, BW_ERR_INVALID_ARGUMENT, where,
                             "the animator's clip '%s' is also its %s clip, baked at creation (make a new "
                             "animator with the new clips)",
                             bw_clip_name(a->clips[k]), baked);
        for (int j = 0; clips[i] && a->graph_bindings && j < i; j++)
            if (graph_slot(a, j) == k && clips[j] != clips[i]) {
                bw_graph_problem(&rep, BW_ERR_INVALID_ARGUMENT, where,
                                 "plays the animator's clip '%s', as an earlier graph clip does, but is another clip",
                                 bw_clip_name(a->clips[k]));
                break;
            }
    }
    return rep.first;
}

bw_result bw_animator_refresh_clips(bw_animator *a, const bw_clip *const *clips, int count, bw_animator_errors *errors)
{
    bw_result r = bw_animator_refresh_clips_validate(a, clips, count, errors);
    if (r != BW_OK) return r;
    bw_graph_report rep;
    bw_graph_report_begin(&rep, errors);
    /* fresh[k]: the new binding of animator clip k (NULL: k keeps its
       clip); after the swap, the old one, to let go */
    bw_binding **fresh = a->clip_count > 0 ? bw_alloc_zeroed(&a->alloc, (size_t)a->clip_count * sizeof *fresh) : NULL;
    if (a->clip_count > 0 && !fresh) return REPORT(&rep, BW_ERR_OUT_OF_MEMORY, "clips", "out of memory");
    for (int i = 0; i < count && r == BW_OK; i++) {
        int k = graph_slot(a, i);
        if (clips[i] == a->clips[k] || fresh[k]) continue;
        bw_error err = {0};
        r = bind_clip(a, clips[i], NULL, &fresh[k], &err);
        if (r != BW_OK) {
            char where[64];
            snprintf(where, sizeof where, "clips[%d]", i);
            bw_graph_problem(&rep, r, where, "%s", err.message);
        }
    }
    /* the swap: clips, bindings, an explicit playback track, the cursor */
    for (int k = 0; r == BW_OK && k < a->clip_count; k++) {
        if (!fresh[k]) continue;
        bw_binding *old = a->bindings[k];
        a->bindings[k] = fresh[k];
        fresh[k] = old;
        a->clips[k] = bw_binding_clip(a->bindings[k]);
        if (a->clip_set && a->clip_track[k] >= 0 && bw_track_set_alive(a->clip_set, a->clip_track[k]))
            (void)bw_track_set_rebind(a->clip_set, a->clip_track[k], a->bindings[k]); /* made for the set's rig */
    }
    if (r == BW_OK) {
        for (int i = 0; a->graph_bindings && i < count; i++) a->graph_bindings[i] = a->bindings[graph_slot(a, i)];
        const bw_binding *const *cb = (const bw_binding *const *)(a->graph_bindings ? a->graph_bindings : a->bindings);
        (void)bw_graph_cursor_rebind(a->cursor, cb, count, NULL); /* made for the cursor's rig: cannot fail */
    }
    for (int k = 0; !a->shared_bindings && k < a->clip_count; k++) bw_binding_destroy(fresh[k]);
    bw_free(&a->alloc, fresh, (size_t)a->clip_count * sizeof *fresh);
    return r;
}

/* ---- validation ---- */

typedef struct problems {
    bw_state_problem *list;
    int capacity, count;
    bw_result first;
} problems;

static void problem(problems *p, bw_result code, const char *msg, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void problem(problems *p, bw_result code, const char *msg, const char *fmt, ...)
{
    if (p->first == BW_OK) p->first = code;
    if (p->list && p->count < p->capacity) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->list[p->count].path, sizeof p->list[p->count].path, fmt, ap);
        va_end(ap);
        snprintf(p->list[p->count].message, sizeof p->list[p->count].message, "%s", msg);
    }
    p->count++;
}

static const char *nan_or_inf(float v) { return isnan(v) ? "is NaN" : "is infinite"; }

static void check_finite(problems *p, const float *v, int n, const char *field)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i])) problem(p, BW_ERR_NON_FINITE, nan_or_inf(v[i]), "state.%s[%d]", field, i);
}

/* An optional weight array: NULL, or `expected` (< 0: any) finite weights >= 0. */
static void check_weights(problems *p, const float *w, int n, int expected, const char *field, const char *what)
{
    if (!w) return;
    if (n < 0 || (expected >= 0 && n != expected)) {
        char msg[96];
        snprintf(msg, sizeof msg, "has %d weights, the animator has %d %s", n, expected, what);
        problem(p, BW_ERR_INVALID_ARGUMENT, msg, "state.%s", field);
        return;
    }
    for (int i = 0; i < n; i++) {
        if (!isfinite(w[i])) problem(p, BW_ERR_NON_FINITE, nan_or_inf(w[i]), "state.%s[%d]", field, i);
        else if (w[i] < 0.0f) problem(p, BW_ERR_RANGE, "is negative", "state.%s[%d]", field, i);
    }
}

bw_result bw_character_state_validate(const bw_character_state *s, const bw_animator *a, bw_state_problem *list,
                                      int capacity, int *out_count)
{
    problems p = {list, list ? capacity : 0, 0, BW_OK};
    if (!s) {
        problem(&p, BW_ERR_INVALID_ARGUMENT, "is NULL", "state");
    } else {
        check_finite(&p, s->velocity, 3, "velocity");
        check_finite(&p, s->position, 3, "position");
        if (!isfinite(s->yaw)) problem(&p, BW_ERR_NON_FINITE, nan_or_inf(s->yaw), "state.yaw");
        check_weights(&p, s->clip_weights, s->clip_weight_count, a ? a->clip_count : -1, "clip_weights", "clips");
        check_weights(&p, s->face_weights, s->face_weight_count, a ? a->face_count : -1, "face_weights",
                      "face clips");
        if (s->has_look_at) check_finite(&p, s->look_at, 3, "look_at");
        if (s->expression) {
            bool count_ok = s->expression_count == BW_ARKIT52_COUNT ||
                            (a ? s->expression_count == a->dim : s->expression_count > 0);
            if (!count_ok) {
                char msg[96];
                snprintf(msg, sizeof msg, "has %d numbers, expected 52 or %d", s->expression_count,
                         a ? a->dim : BW_ARKIT52_COUNT);
                problem(&p, BW_ERR_INVALID_ARGUMENT, msg, "state.expression");
            } else {
                check_finite(&p, s->expression, s->expression_count, "expression");
            }
        }
        int pc = a && a->graph ? bw_graph_param_count(a->graph) : (a ? 0 : -1);
        if (s->param_count < 0 || (s->param_count > 0 && !s->params))
            problem(&p, BW_ERR_INVALID_ARGUMENT, "count without an array", "state.params");
        else
            for (int i = 0; i < s->param_count; i++) {
                const bw_character_param *q = &s->params[i];
                if (q->index < 0 || (pc >= 0 && q->index >= pc)) {
                    problem(&p, BW_ERR_RANGE, a && !a->graph ? "the animator has no graph" : "no such parameter",
                            "state.params[%d].index", i);
                } else if (a && bw_graph_param_kind_of(a->graph, q->index) == BW_GRAPH_PARAM_TRIGGER) {
                    problem(&p, BW_ERR_INVALID_ARGUMENT, "is a trigger: fire it", "state.params[%d].index", i);
                } else if (!isfinite(q->value)) {
                    problem(&p, BW_ERR_NON_FINITE, nan_or_inf(q->value), "state.params[%d].value", i);
                }
            }
        if (s->fire_count < 0 || (s->fire_count > 0 && !s->fire))
            problem(&p, BW_ERR_INVALID_ARGUMENT, "count without an array", "state.fire");
        else
            for (int i = 0; i < s->fire_count; i++) {
                int t = s->fire[i];
                if (t < 0 || (pc >= 0 && t >= pc))
                    problem(&p, BW_ERR_RANGE, a && !a->graph ? "the animator has no graph" : "no such trigger",
                            "state.fire[%d]", i);
                else if (a && bw_graph_param_kind_of(a->graph, t) != BW_GRAPH_PARAM_TRIGGER)
                    problem(&p, BW_ERR_INVALID_ARGUMENT, "is not a trigger", "state.fire[%d]", i);
            }
    }
    if (out_count) *out_count = p.count;
    return p.first;
}

/* ---- gesture ---- */

float bw_gesture_envelope(const bw_gesture_desc *g, float t)
{
    if (!g || !(t >= 0.0f) || !(t <= g->duration)) return 0.0f;
    float u = 1.0f;
    if (g->fade_in > 0.0f && t / g->fade_in < u) u = t / g->fade_in;
    if (g->fade_out > 0.0f && (g->duration - t) / g->fade_out < u) u = (g->duration - t) / g->fade_out;
    return bw_ease(g->curve, BW_EASE_IN_OUT, u);
}

static float envelope_at(const gesture_slot *s)
{
    float t = (float)s->t;
    float w = s->desc.envelope ? s->desc.envelope(s->desc.user, t, s->desc.duration) : bw_gesture_envelope(&s->desc, t);
    return bw_clamp01(w);
}

bw_result bw_animator_gesture(bw_animator *a, int clip, const bw_gesture_desc *gesture)
{
    if (!a) return BW_ERR_INVALID_ARGUMENT;
    int slot = -1;
    for (int g = 0; g < a->gesture_count; g++)
        if (a->gesture_clip[g] == clip) slot = g;
    if (slot < 0) return BW_ERR_RANGE;
    bw_gesture_desc d = gesture ? *gesture : (bw_gesture_desc){0};
    if (!isfinite(d.duration) || !isfinite(d.fade_in) || !isfinite(d.fade_out)) return BW_ERR_NON_FINITE;
    if (d.duration < 0.0f || d.fade_in < 0.0f || d.fade_out < 0.0f || (int)d.curve < 0 ||
        d.curve >= BW_EASE_STYLE_COUNT)
        return BW_ERR_INVALID_ARGUMENT;
    if (d.duration == 0.0f) d.duration = bw_clip_length(a->clips[clip]);
    if (a->cur.active) {
        a->old = a->cur;
        a->old.ramp = d.fade_in;
        a->old.ramped = 0.0;
        if (d.fade_in <= 0.0f) a->old.active = false;
    }
    a->cur = (gesture_slot){0};
    a->cur.active = true;
    a->cur.slot = slot;
    a->cur.desc = d;
    return BW_OK;
}

/* The outgoing slot's remaining share of its frozen weight: 1 − ramped /
 * ramp (0 without a ramp). */
static float outgoing_share(const gesture_slot *s)
{
    return s->ramp > 0.0f ? (float)(1.0 - s->ramped / s->ramp) : 0.0f;
}

float bw_animator_gesture_weight(const bw_animator *a) { return a && a->cur.active ? a->cur.weight : 0.0f; }
float bw_animator_gesture_outgoing_weight(const bw_animator *a)
{
    return a && a->old.active ? a->old.weight * outgoing_share(&a->old) : 0.0f;
}

static void push_event(bw_animator *a, bw_animator_event_kind kind, int clip, const bw_graph_event *ge)
{
    if (a->event_count >= a->event_capacity) return;
    bw_animator_event *e = &a->events[a->event_count++];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->clip = clip;
    if (ge) e->graph_event = *ge;
}

/* Apply one gesture slot's delta at weight w over a->pose. */
static void apply_gesture(bw_animator *a, const gesture_slot *s, float w)
{
    if (!(w > 0.0f)) return;
    int clip = a->gesture_clip[s->slot];
    const bw_clip *c = a->clips[clip];
    float len = bw_clip_length(c);
    double t = s->t;
    if (len > 0.0f) t = bw_clip_loop(c) ? fmod(t, (double)len) : (t < len ? t : len);
    bw_sample_clip(a->bindings[clip], a->rig, (float)t, &a->sample);
    /* the additive pass graphs' additive layers use: delta to the
     * reference, weighted by w × coverage, finite results only */
    bw_graph_add_layer(&a->pose, &a->sample, &a->gesture_ref[s->slot], NULL, w);
}

static void gesture_layer(bw_animator *a, float dt)
{
    if (a->old.active) {
        a->old.t += dt;
        a->old.ramped += dt;
        float share = outgoing_share(&a->old);
        if (share <= 0.0f || a->old.t >= a->old.desc.duration) a->old.active = false;
        else apply_gesture(a, &a->old, a->old.weight * share);
    }
    if (a->cur.active) {
        a->cur.t += dt;
        if (a->cur.t >= a->cur.desc.duration) {
            a->cur.active = false;
            a->cur.weight = 0.0f;
            push_event(a, BW_ANIMATOR_EVENT_GESTURE_END, a->gesture_clip[a->cur.slot], NULL);
            return;
        }
        a->cur.weight = envelope_at(&a->cur);
        apply_gesture(a, &a->cur, a->cur.weight);
    }
}

/* ---- body ---- */

static void push_marker(bw_animator *a, int clip, int marker)
{
    if (a->event_count >= a->event_capacity) return;
    push_event(a, BW_ANIMATOR_EVENT_MARKER, clip, NULL);
    bw_animator_event *e = &a->events[a->event_count - 1];
    e->name = bw_clip_marker_name(a->clips[clip], marker);
    e->time = bw_clip_marker_time(a->clips[clip], marker);
}

/* The walk's visitor: a crossed marker of the dominant play's clip. */
typedef struct marker_sink {
    bw_animator *a;
    int clip;
} marker_sink;

static void push_crossed(void *user, int marker)
{
    const marker_sink *sink = (const marker_sink *)user;
    if (marker != BW_MARKER_WRAP) push_marker(sink->a, sink->clip, marker);
}

/* Markers of `clip` crossed by the step from `from` by `delta`
 * (marker_walk.h): the old endpoint excluded, the new one included, in
 * reverse order for a negative delta, at most 4 cycles. */
static void cross_markers(bw_animator *a, int clip, double from, double delta, bool loop)
{
    const bw_clip *c = a->clips[clip];
    if (c->marker_count == 0 || !(delta != 0.0)) return;
    bw_marker_step ms = bw_marker_plan((double)c->length, loop, from, from + delta, delta < 0.0, false);
    marker_sink sink = {a, clip};
    bw_marker_walk(&c->marker_list, &ms, push_crossed, &sink);
}

/* Markers of the heaviest of the first n root plays (plays[] gives the clip). */
static void dominant_markers(bw_animator *a, int n)
{
    int best = -1;
    for (int i = 0; i < n; i++)
        if (best < 0 || a->root_plays[i].weight > a->root_plays[best].weight) best = i;
    if (best >= 0)
        cross_markers(a, a->plays[best].clip, a->root_plays[best].from, a->root_plays[best].delta,
                      a->root_plays[best].loop);
}

typedef struct marker_filter {
    bw_animator *a;
    int clip; /* the dominant play's clip */
} marker_filter;

static void explicit_marker(void *user, const bw_signal *sig)
{
    marker_filter *f = (marker_filter *)user;
    if (sig->kind == BW_SIGNAL_MARKER && (int)(intptr_t)sig->user == f->clip) push_marker(f->a, f->clip, sig->marker);
}

/* Explicit clip weights: each clip with weight > 0 plays at rate 1 on its
 * own playback track (play.h: its time rules, markers and last step), a
 * clip without weight holds its time (speed 0). Fills the contributions,
 * root plays and plays; the dominant play's markers become events.
 * Returns the number of plays. */
static int explicit_clips(bw_animator *a, float dt)
{
    for (int i = 0; i < a->clip_count; i++) {
        bool on = a->clip_w[i] > 0.0f;
        if (on && a->clip_track[i] < 0) {
            bw_play_desc pd = bw_play_desc_defaults(a->bindings[i]);
            pd.user = (void *)(intptr_t)i;
            if (bw_track_set_play(a->clip_set, &pd, &a->clip_track[i]) != BW_OK) a->clip_track[i] = -1; /* full */
        } else if (a->clip_track[i] >= 0) {
            bw_track_set_set_speed(a->clip_set, a->clip_track[i], on ? 1.0f : 0.0f);
        }
    }
    bw_track_set_advance(a->clip_set, dt);
    int n = 0, best = -1;
    for (int i = 0; i < a->clip_count && n < a->contrib_capacity; i++) {
        int h = a->clip_track[i];
        if (!(a->clip_w[i] > 0.0f) || h < 0) continue;
        float w = a->clip_w[i], t = (float)bw_track_set_time(a->clip_set, h);
        double from = 0.0, delta = 0.0;
        bw_track_set_last_step(a->clip_set, h, &from, &delta);
        a->contribs[n] = (bw_clip_contribution){a->bindings[i], t, w, 0};
        a->root_plays[n] = (bw_root_play){a->bindings[i], from, delta, bw_track_set_looping(a->clip_set, h), w, 0};
        a->plays[n] = (bw_animator_play){i, w, 1.0f, t};
        if (best < 0 || w > a->plays[best].weight) best = n;
        n++;
    }
    if (a->joint_count > 0) bw_root_motion_extract(a->rig, &a->rm_cfg, a->root_plays, n, &a->root);
    marker_filter f = {a, best >= 0 ? a->plays[best].clip : -1};
    bw_track_set_drain(a->clip_set, explicit_marker, &f);
    return n;
}

static void graph_event(void *user, const bw_graph_event *e)
{
    push_event((bw_animator *)user, BW_ANIMATOR_EVENT_GRAPH, -1, e);
}

static void body_layer(bw_animator *a, bw_graph_scratch *scratch, float dt, const bw_character_state *fresh)
{
    bw_root_delta zero = {0};
    a->root = zero;
    a->play_count = 0;
    if (a->cursor) { /* evaluates over the rig's current values: the whole pose */
        if (fresh) {
            for (int i = 0; i < fresh->param_count; i++)
                bw_graph_cursor_set_param(a->cursor, fresh->params[i].index, fresh->params[i].value);
            for (int i = 0; i < fresh->fire_count; i++) bw_graph_cursor_fire(a->cursor, fresh->fire[i]);
        }
        bw_graph_cursor_update(a->cursor, dt);
        bw_graph_cursor_evaluate_in(a->cursor, scratch, NULL, &a->pose);
        if (a->joint_count > 0) bw_graph_cursor_root_motion(a->cursor, &a->rm_cfg, &a->root);
        bw_graph_cursor_drain(a->cursor, graph_event, a);
    } else {
        int n = 0;
        if (a->use_clips) {
            n = explicit_clips(a, dt);
        } else if (a->loco_state) {
            float speed = sqrtf(a->velocity[0] * a->velocity[0] + a->velocity[2] * a->velocity[2]);
            bw_blend_tree_state_set_param(a->loco_state, 0, speed);
            bw_blend_tree_state_update(a->loco_state, dt);
            bw_blend_tree_state_emit(a->loco_state, (const bw_binding *const *)a->bindings, a->clip_count, 1.0f, 0,
                                     a->contribs, a->contrib_capacity, &n);
            int rn = 0;
            bw_blend_tree_state_emit_root_plays(a->loco_state, (const bw_binding *const *)a->bindings,
                                                a->clip_count, 1.0f, 0, a->root_plays, a->contrib_capacity, &rn);
            if (a->joint_count > 0) bw_root_motion_extract(a->rig, &a->rm_cfg, a->root_plays, rn, &a->root);
            int ln = 0;
            const bw_blend_step_leaf *leaves = bw_blend_tree_state_leaves(a->loco_state, &ln);
            for (int i = 0; i < ln && i < a->contrib_capacity; i++)
                a->plays[i] = (bw_animator_play){leaves[i].leaf.clip, leaves[i].leaf.weight, leaves[i].leaf.rate,
                                                 leaves[i].time};
            a->play_count = ln;
            if (rn == ln) dominant_markers(a, rn); /* root plays and leaves share their order */
        }
        if (a->use_clips) a->play_count = n;
        /* over the rig's values read in place (the clips cover only some
         * joints; with none the pose is the rest pose) */
        bw_pose rest;
        if (bw_mix_rest_view(a->mixer, a->rig, &rest))
            bw_mix_run_clips(a->mixer, a->rig, &rest, a->contribs, n, &a->pose);
    }
    if (a->root.used > 0) bw_root_motion_remove(a->rig, &a->rm_cfg, &a->pose.joints[a->rm_cfg.root_joint]);
}

/* ---- face ---- */

/* Value of a face track at time tau in [0, len]: the core sampler
 * (sample.h) between its first and last keys (and past them on a clip that
 * does not loop); on a looping clip, from the last key's value linearly
 * round to the first key's across the loop boundary. */
static float face_value(const bw_clip *clip, const face_track *ft, float tau, float len, bool loop)
{
    float v = 0.0f, gap = ft->first + len - ft->last; /* from the last key round to the first */
    if (!loop || !(gap > 1e-6f) || (tau >= ft->first && tau <= ft->last)) {
        bw_sample_track(clip, ft->track, tau, &v);
        return v;
    }
    float from = ft->last_value, to = ft->first_value; /* sampled once, in collect_face_tracks */
    float since = tau > ft->last ? tau - ft->last : tau + len - ft->last;
    return from + since / gap * (to - from);
}

static void face_layer(bw_animator *a, float dt)
{
    if (a->has_expr && a->state_expr_count == BW_ARKIT52_COUNT) {
        memcpy(a->arkit, a->state_expr, sizeof a->arkit);
    } else {
        memset(a->arkit, 0, sizeof a->arkit);
        for (int f = 0; f < a->face_count; f++) {
            const bw_clip *c = a->clips[a->face_clip[f]];
            float len = bw_clip_length(c);
            bool loop = bw_clip_loop(c);
            double tau = a->face_time[f] + dt;
            if (len > 0.0f) tau = loop ? fmod(tau, (double)len) : (tau < len ? tau : len);
            a->face_time[f] = tau;
            float w = a->use_face ? a->face_w[f] : 0.0f;
            if (!(w > 0.0f)) continue;
            for (int k = a->face_first[f]; k < a->face_first[f + 1]; k++)
                a->arkit[a->tracks[k].arkit] += w * face_value(c, &a->tracks[k], (float)tau, len, loop);
        }
        for (int i = 0; i < BW_ARKIT52_COUNT; i++) a->arkit[i] = bw_clamp01(a->arkit[i]);
    }
    float *bl = &a->arkit[BW_ARKIT52_EYE_BLINK_LEFT], *br = &a->arkit[BW_ARKIT52_EYE_BLINK_RIGHT];
    if (a->blink_w > *bl) *bl = a->blink_w;
    if (a->blink_w > *br) *br = a->blink_w;
    if (a->space.kind != BW_EXPRESSION_CUSTOM) {
        memcpy(a->expr, a->arkit, sizeof a->arkit);
        return;
    }
    if (a->has_expr && a->state_expr_count == a->dim && a->dim != BW_ARKIT52_COUNT)
        memcpy(a->expr, a->state_expr, (size_t)a->dim * sizeof(float));
    else
        a->space.map(a->space.user, a->arkit, a->expr, a->dim);
    for (int i = 0; i < a->dim; i++)
        if (!isfinite(a->expr[i])) a->expr[i] = 0.0f;
}

/* ---- blink ---- */

float bw_animator_blink_interval(uint32_t *rng, float min, float max)
{
    uint32_t x = rng && *rng ? *rng : 1u; /* 0 (xorshift's fixed point) and NULL: seed 1 */
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    if (rng) *rng = x;
    return min + (max - min) * (float)((double)(x >> 8) / 16777216.0);
}

static void blink_step(bw_animator *a, float dt)
{
    a->clock += dt;
    a->blink_w = 0.0f;
    if (!a->blink_on) return;
    for (int guard = 0; guard < 16 && a->clock >= a->next_blink; guard++) {
        a->blinking = true;
        a->blink_start = a->next_blink;
        a->next_blink += bw_animator_blink_interval(&a->rng, a->blink_min, a->blink_max);
        push_event(a, BW_ANIMATOR_EVENT_BLINK, -1, NULL);
    }
    if (a->blinking) {
        double u = (a->clock - a->blink_start) / a->blink_dur;
        if (u >= 1.0) a->blinking = false;
        else a->blink_w = (float)sin(M_PI * u);
    }
}
float bw_animator_blink(const bw_animator *a) { return a ? a->blink_w : 0.0f; }

/* ---- head aim ---- */

/* The math is procedural.h's, shared with the Lua controls
 * (scripts/head_aim.lua), so both give the same numbers. */
static void head_layer(bw_animator *a, const float *camera)
{
    a->head_yaw = a->head_pitch = 0.0f;
    memset(a->gaze, 0, sizeof a->gaze);
    if (a->chain_count == 0) return;
    const float *target = a->has_look_at ? a->look_at : camera;
    if (target) {
        const bw_aim_limits limits = {a->yaw_limit, a->pitch_limit, a->eye_yaw_limit, a->eye_pitch_limit,
                                      BW_ANIMATOR_BEHIND_HYSTERESIS};
        float aim[4];
        bw_aim_head(a->rig, &a->pose, a->chain, a->chain_w, a->chain_count, a->position, a->yaw, target, a->prev_yaw,
                    &limits, aim);
        a->head_yaw = aim[0];
        a->head_pitch = aim[1];
        a->gaze[0] = a->gaze[2] = aim[3];
        a->gaze[1] = a->gaze[3] = aim[2];
    } else { /* no target: the chain relaxes (its rotations normalized, as with an aim) */
        bw_aim_chain(a->rig, &a->pose, a->chain, a->chain_w, a->chain_count, 0.0f, 0.0f, NULL);
    }
    a->prev_yaw = a->head_yaw;
    publish_overrides(a);
}

/* ---- the frame ---- */

static void take_state(bw_animator *a, const bw_character_state *s)
{
    memcpy(a->velocity, s->velocity, sizeof a->velocity);
    memcpy(a->position, s->position, sizeof a->position);
    a->yaw = s->yaw;
    a->use_clips = s->clip_weights != NULL;
    if (a->use_clips && a->clip_count)
        memcpy(a->clip_w, s->clip_weights, (size_t)a->clip_count * sizeof(float));
    a->use_face = s->face_weights != NULL;
    if (a->use_face && a->face_count) memcpy(a->face_w, s->face_weights, (size_t)a->face_count * sizeof(float));
    a->has_look_at = s->has_look_at;
    memcpy(a->look_at, s->look_at, sizeof a->look_at);
    a->has_expr = s->expression != NULL;
    a->state_expr_count = a->has_expr ? s->expression_count : 0;
    if (a->has_expr) memcpy(a->state_expr, s->expression, (size_t)s->expression_count * sizeof(float));
}

void bw_animator_prefetch(const bw_animator *a)
{
    if (!a) return;
    bw_graph_cursor_prefetch(&a->hint);
    bw_prefetch_lines(a, offsetof(bw_animator, problems), true); /* its own per-frame fields */
    const size_t joints = (size_t)a->pose.joint_count;
    bw_prefetch_lines(a->pose.joints, joints * sizeof *a->pose.joints, true);
    bw_prefetch_lines(a->pose.coverage, joints * sizeof *a->pose.coverage, true);
    bw_track_set_prefetch(a->clip_set);
}

bw_result bw_animator_update(bw_animator *a, float dt, const bw_character_state *state, const float *camera)
{
    return bw_animator_update_in(a, NULL, dt, state, camera);
}

bw_result bw_animator_update_in(bw_animator *a, bw_graph_scratch *scratch, float dt, const bw_character_state *state,
                                const float *camera)
{
    if (!a || !state) return BW_ERR_INVALID_ARGUMENT;
    /* the cursor's state arrives while the character state is checked */
    bw_graph_cursor_prefetch(&a->hint);
    if (!isfinite(dt) || dt < 0.0f) dt = 0.0f;
    if (camera && !bw_isfinite3(camera)) camera = NULL;
    bw_result r = bw_character_state_validate(state, a, a->problems, BW_ANIMATOR_MAX_PROBLEMS, &a->problem_count);
    if (r == BW_OK) take_state(a, state);
    a->event_count = 0;
    body_layer(a, scratch, dt, r == BW_OK ? state : NULL);
    gesture_layer(a, dt);
    blink_step(a, dt);
    face_layer(a, dt);
    head_layer(a, camera);
    return r;
}

const bw_state_problem *bw_animator_problems(const bw_animator *a, int *out_count)
{
    if (out_count) *out_count = a ? (a->problem_count < BW_ANIMATOR_MAX_PROBLEMS ? a->problem_count
                                                                                 : BW_ANIMATOR_MAX_PROBLEMS)
                                  : 0;
    return a ? a->problems : NULL;
}

const bw_pose *bw_animator_pose(const bw_animator *a) { return a ? &a->pose : NULL; }
bw_pose *bw_animator_pose_mutable(bw_animator *a) { return a ? &a->pose : NULL; }
const bw_joint_override *bw_animator_joint_overrides(const bw_animator *a, int *out_count)
{
    if (out_count) *out_count = a ? a->chain_count : 0;
    return a ? a->overrides : NULL;
}
const float *bw_animator_expression(const bw_animator *a, int *out_dim)
{
    if (out_dim) *out_dim = a ? a->dim : 0;
    return a ? a->expr : NULL;
}
const float *bw_animator_arkit(const bw_animator *a) { return a ? a->arkit : NULL; }
const float *bw_animator_gaze(const bw_animator *a) { return a ? a->gaze : NULL; }
const bw_root_delta *bw_animator_root_motion(const bw_animator *a) { return a ? &a->root : NULL; }
const bw_animator_event *bw_animator_events(const bw_animator *a, int *out_count)
{
    if (out_count) *out_count = a ? a->event_count : 0;
    return a ? a->events : NULL;
}
void bw_animator_head_aim(const bw_animator *a, float *out_yaw, float *out_pitch)
{
    if (out_yaw) *out_yaw = a ? a->head_yaw : 0.0f;
    if (out_pitch) *out_pitch = a ? a->head_pitch : 0.0f;
}
const bw_animator_play *bw_animator_plays(const bw_animator *a, int *out_count)
{
    if (out_count) *out_count = a ? a->play_count : 0;
    return a ? a->plays : NULL;
}
int bw_animator_head_limits(const bw_animator *a, float out[4])
{
    const float l[4] = {a ? a->yaw_limit : 0.0f, a ? a->pitch_limit : 0.0f, a ? a->eye_yaw_limit : 0.0f,
                        a ? a->eye_pitch_limit : 0.0f};
    memcpy(out, l, sizeof l);
    return a ? a->chain_count : 0;
}
bw_graph_cursor *bw_animator_cursor_mut(bw_animator *a) { return a ? a->cursor : NULL; }
