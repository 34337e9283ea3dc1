/* play.c - playback tracks, markers and signals (SPEC §4, play.h).
 *
 * Each track keeps its clip time as a double in [0, length) (looping) or
 * [0, length] (not looping), re-wrapped after every advance, so thousands of
 * loops never accumulate an unbounded time whose float image loses the
 * fraction. The markers an advance crosses come from the one marker walk
 * (marker_walk.h): on a looping clip the last 4 lengths of travel are
 * visited, each loop boundary inside them a LOOP between the markers, and
 * the boundaries before them contribute only their (capped) LOOP signals,
 * queued first, so a stall of any length costs a bounded amount of work.
 *
 * Signals go to a queue allocated at creation; drain delivers them after
 * the frame's compose, then removes stopped, silent tracks and reports each
 * removal directly (a full queue can drop markers, never a STOPPED).
 */
#include "blendwerk/play.h"

#include <limits.h>

#include "blendwerk/sample.h"
#include "clip_internal.h"
#include "common.h"
#include "marker_walk.h"
#include "mix_internal.h"

#define SLOT_BITS 10
#define SLOT_MASK ((1 << SLOT_BITS) - 1)
#define MAX_GENERATION (1 << 20)
#define MAX_LOOPS 16    /* LOOP signals per track per advance (SPEC §4) */
#define DEFAULT_CAPACITY 16 /* tracks of a set created with capacity 0 */

/* Which end a non-looping track last reported ENDED at. */
enum { ENDED_NONE = 0, ENDED_AT_END, ENDED_AT_START };

typedef struct track {
    bool used;
    int generation; /* 1..MAX_GENERATION; bumped by every play into the slot */
    const bw_binding *binding;
    const bw_clip_marker *markers; /* the clip's, sorted by time; read directly on the hot path */
    const bw_marker_list *marker_list; /* the clip's walking order (marker_walk.h) */
    int marker_count;
    double length; /* clip length in seconds; 0 for zero-length clips */
    double time;   /* [0, length) looping, [0, length] otherwise */
    float speed;
    float weight;
    float fade_from, fade_to;
    double fade_duration, fade_elapsed; /* double: long fades reach their end exactly */
    bool fading;
    bool stopping;
    bool loop;             /* resolved from loop_mode */
    bw_loop_mode loop_mode; /* as played: BW_LOOP_CLIP re-reads the clip on rebind */
    bool fresh; /* the next moving advance includes the start time */
    int ended;  /* ENDED_* */
    int priority;
    void *user;
    double last_from, last_delta;
} track;

/* The set and its arrays are one line-aligned block, in the order a frame
 * touches them: the struct, the play order, the tracks and the mixer's
 * input list (advance and compose), then the signal queue (only when a
 * signal is queued). */
struct bw_track_set {
    const bw_rig *rig;
    bw_allocator allocator; /* by value (fn NULL: malloc) */
    void *block;            /* the allocation the set and its arrays live in */
    size_t block_size;
    int capacity;
    int joint_count, curve_count; /* the rig's counts at create / set_rig: compose refuses a rig grown since */
    int *order; /* live slots in play order */
    int live;
    track *tracks;
    bw_clip_contribution *clips; /* capacity: the fused mixer's input list */
    bw_signal *queue;
    int queue_capacity;
    int queue_count;
    int dropped;
    bool draining; /* a callback calling drain again must not re-deliver */
};

/* ---- handles ---- */

static int make_handle(int slot, int generation) { return (generation << SLOT_BITS) | slot; }

/* The live track a handle names, or NULL. */
static track *find_track(const bw_track_set *set, int handle)
{
    if (!set || handle < 0) return NULL;
    int slot = handle & SLOT_MASK;
    int generation = handle >> SLOT_BITS;
    if (slot >= set->capacity) return NULL;
    track *tr = &set->tracks[slot];
    if (!tr->used || tr->generation != generation) return NULL;
    return tr;
}

static int handle_of(const bw_track_set *set, const track *tr)
{
    return make_handle((int)(tr - set->tracks), tr->generation);
}

/* ---- creation ---- */

#define SET_LINE 64

/* Lay the set's block out in k from its (aligned) start, in the order of
 * the struct's comment. With k->base set, the arrays of `set` (the struct
 * at the block's start) are set; with it NULL k only measures. With
 * `first_tracks` >= 0 the layout stops after that many track slots (what
 * bw_track_set_prefetch asks for). */
static void carve_set(bw_carver *k, bw_track_set *set, int first_tracks)
{
    const size_t n = (size_t)set->capacity;
    bw_carve(k, sizeof *set, BW_MAX_ALIGN);
    set->order = (int *)bw_carve(k, n * sizeof *set->order, BW_MAX_ALIGN);
    set->tracks = (track *)bw_carve(k, (first_tracks >= 0 ? (size_t)first_tracks : n) * sizeof *set->tracks,
                                    BW_MAX_ALIGN);
    if (first_tracks >= 0) return;
    set->clips = (bw_clip_contribution *)bw_carve(k, n * sizeof *set->clips, BW_MAX_ALIGN);
    set->queue = (bw_signal *)bw_carve(k, (size_t)set->queue_capacity * sizeof *set->queue, BW_MAX_ALIGN);
}

bw_result bw_track_set_create(const bw_track_set_desc *desc, bw_track_set **out_set)
{
    if (!desc || !desc->rig || !out_set || desc->capacity < 0 || desc->signal_capacity < 0)
        return BW_ERR_INVALID_ARGUMENT;
    int capacity = desc->capacity ? desc->capacity : DEFAULT_CAPACITY;
    int signal_capacity = desc->signal_capacity ? desc->signal_capacity : 256;
    if (capacity > BW_TRACK_SET_MAX_CAPACITY || signal_capacity > BW_TRACK_SET_MAX_SIGNALS) return BW_ERR_LIMIT;

    bw_track_set shape = {.capacity = capacity, .queue_capacity = signal_capacity};
    bw_carver k = {NULL, 0};
    carve_set(&k, &shape, -1);
    const size_t size = k.used + SET_LINE - 1; /* room to start on a line */
    char *block = (char *)bw_alloc_zeroed(&desc->allocator, size);
    if (!block) return BW_ERR_OUT_OF_MEMORY;
    k = (bw_carver){bw_align_ptr(block, SET_LINE), 0};
    bw_track_set *set = (bw_track_set *)k.base;
    *set = shape;
    carve_set(&k, set, -1);
    set->allocator = desc->allocator;
    set->block = block;
    set->block_size = size;
    set->rig = desc->rig;
    set->joint_count = bw_rig_joint_count(desc->rig);
    set->curve_count = bw_rig_curve_count(desc->rig);
    *out_set = set;
    return BW_OK;
}

void bw_track_set_destroy(bw_track_set *set)
{
    if (!set) return;
    bw_allocator copy = set->allocator; /* the set lives in the block it frees */
    bw_free(&copy, set->block, set->block_size);
}

/* ---- time helpers ---- */

/* Start / seek time as playback would leave it. */
static double place_time(const track *tr, double time)
{
    if (tr->length <= 0.0) return 0.0;
    if (tr->loop) return bw_wrap_time(time, tr->length);
    return time < 0.0 ? 0.0 : (time > tr->length ? tr->length : time);
}

/* The weight along the fade, in double so that the end is met exactly:
 * once elapsed reaches the duration the value is the target itself. */
static float fade_value(const track *tr)
{
    if (!(tr->fade_duration > 0.0) || tr->fade_elapsed >= tr->fade_duration) return tr->fade_to;
    double u = tr->fade_elapsed / tr->fade_duration;
    return (float)((double)tr->fade_from + ((double)tr->fade_to - (double)tr->fade_from) * u);
}

static void start_fade(track *tr, float target, float duration)
{
    tr->fade_from = tr->weight;
    tr->fade_to = target;
    tr->fade_duration = (double)duration;
    tr->fade_elapsed = 0.0;
    tr->fading = duration > 0.0f;
    tr->weight = fade_value(tr);
}

/* ---- signals ---- */

static void push_signal(bw_track_set *set, const track *tr, bw_signal_kind kind, int marker)
{
    if (set->queue_count >= set->queue_capacity) {
        if (set->dropped < INT_MAX) set->dropped++;
        return;
    }
    bw_signal *s = &set->queue[set->queue_count++];
    s->kind = kind;
    s->track = handle_of(set, tr);
    s->marker = kind == BW_SIGNAL_MARKER ? marker : -1;
    s->name = kind == BW_SIGNAL_MARKER ? tr->markers[marker].name : NULL;
    s->marker_time = kind == BW_SIGNAL_MARKER ? tr->markers[marker].time : 0.0f;
    s->user = tr->user;
}

/* The walk's visitor: a crossed marker or a loop boundary, queued. */
typedef struct signal_sink {
    bw_track_set *set;
    const track *tr;
} signal_sink;

static void queue_crossed(void *user, int marker)
{
    signal_sink *sink = (signal_sink *)user;
    push_signal(sink->set, sink->tr, marker == BW_MARKER_WRAP ? BW_SIGNAL_LOOP : BW_SIGNAL_MARKER, marker);
}

/* ---- advancing ---- */

/* Queue the step's markers (none without markers: no call) and move the
 * time. Looping: the LOOPs before the walk's window first (the 16 nearest
 * the new time in all), then the walk's markers and in-window LOOPs. */
static void advance_looping(bw_track_set *set, track *tr, double step)
{
    double t = tr->time;
    bw_marker_step ms = bw_marker_plan(tr->length, true, t, t + step, step < 0.0, tr->fresh);
    int loops = ms.wraps < MAX_LOOPS ? (int)ms.wraps : MAX_LOOPS; /* >= walked_wraps */
    for (int i = ms.walked_wraps; i < loops; i++) push_signal(set, tr, BW_SIGNAL_LOOP, -1);
    if (tr->marker_count > 0) {
        signal_sink sink = {set, tr};
        bw_marker_walk(tr->marker_list, &ms, queue_crossed, &sink);
    } else {
        for (int i = 0; i < ms.walked_wraps; i++) push_signal(set, tr, BW_SIGNAL_LOOP, -1);
    }
    tr->last_from = t;
    tr->last_delta = step;
    tr->time = ms.to;
}

static void advance_once(bw_track_set *set, track *tr, double step)
{
    double t = tr->time;
    bool forward = step > 0.0;
    bw_marker_step ms = bw_marker_plan(tr->length, false, t, t + step, !forward, tr->fresh);
    double len = ms.length, u = ms.to;
    /* A track held at an end has an empty span (the old endpoint is
     * excluded), so its end markers fire once. */
    if (tr->marker_count > 0) {
        signal_sink sink = {set, tr};
        bw_marker_walk(tr->marker_list, &ms, queue_crossed, &sink);
    }
    if (u > 0.0 && u < len) tr->ended = ENDED_NONE; /* left the end: ENDED re-arms */
    if (forward && u >= len && tr->ended != ENDED_AT_END) {
        push_signal(set, tr, BW_SIGNAL_ENDED, -1);
        tr->ended = ENDED_AT_END;
    } else if (!forward && u <= 0.0 && tr->ended != ENDED_AT_START) {
        push_signal(set, tr, BW_SIGNAL_ENDED, -1);
        tr->ended = ENDED_AT_START;
    }
    tr->last_from = t;
    tr->last_delta = u - t;
    tr->time = u;
}

static void advance_track(bw_track_set *set, track *tr, float dt)
{
    if (tr->fading) {
        tr->fade_elapsed += (double)dt;
        if (!(tr->fade_elapsed < tr->fade_duration)) tr->fading = false;
        tr->weight = fade_value(tr);
    }
    double step = (double)tr->speed * (double)dt;
    if (!isfinite(step)) step = 0.0;
    tr->last_from = tr->time;
    tr->last_delta = 0.0;
    if (step == 0.0) return;
    if (tr->length <= 0.0) {
        /* Zero-length: time stays 0. A looping one has nothing to report; a
         * one-shot reaches its end at once. */
        if (!tr->loop) advance_once(set, tr, step);
    } else if (tr->loop) {
        advance_looping(set, tr, step);
    } else {
        advance_once(set, tr, step);
    }
    tr->fresh = false;
}

/* The bytes bw_track_set_prefetch asks for: a set of the default
 * capacity laid out up to its first BW_TRACK_SET_PREFETCH_TRACKS tracks
 * (a larger set's tracks start later: fewer of them are covered); a
 * constant the compiler folds. */
static size_t prefetch_bytes(void)
{
    bw_track_set shape = {.capacity = DEFAULT_CAPACITY};
    bw_carver k = {NULL, 0};
    carve_set(&k, &shape, BW_TRACK_SET_PREFETCH_TRACKS);
    return k.used;
}

void bw_track_set_prefetch(const bw_track_set *set)
{
    /* the set starts its line-aligned block (bw_track_set_create) */
    bw_prefetch_lines(set, prefetch_bytes(), true);
}

void bw_track_set_advance(bw_track_set *set, float dt)
{
    if (!set) return;
    if (!isfinite(dt) || dt < 0.0f) dt = 0.0f;
    for (int i = 0; i < set->live; i++) advance_track(set, &set->tracks[set->order[i]], dt);
}

/* ---- playing and controlling ---- */

bw_play_desc bw_play_desc_defaults(const bw_binding *binding)
{
    bw_play_desc d;
    memset(&d, 0, sizeof d);
    d.binding = binding;
    d.speed = 1.0f;
    d.weight = 1.0f;
    d.loop = BW_LOOP_CLIP;
    return d;
}

/* A binding made for the rig's current layout and topology (the fields
 * read directly: compose runs this per track per frame). */
static bool binding_matches(const bw_binding *binding, uint64_t signature, uint32_t revision)
{
    return binding && binding->clip && binding->layout_signature == signature &&
           binding->topology_revision == revision;
}

static bool binding_matches_rig(const bw_binding *binding, const bw_rig *rig)
{
    return binding_matches(binding, bw_rig_layout_signature(rig), bw_rig_topology_revision(rig));
}

/* Point a track at a binding's clip: markers, length and loop flag. */
static void attach_clip(track *tr, const bw_binding *binding)
{
    const bw_clip *clip = bw_binding_clip(binding);
    tr->binding = binding;
    tr->markers = clip->markers;
    tr->marker_list = &clip->marker_list;
    tr->marker_count = clip->markers ? clip->marker_count : 0;
    float len = bw_clip_length(clip);
    tr->length = isfinite(len) && len > 0.0f ? (double)len : 0.0;
    tr->loop = tr->loop_mode == BW_LOOP_CLIP ? bw_clip_loop(clip) : tr->loop_mode == BW_LOOP_ON;
}

static bw_result check_play_desc(const bw_track_set *set, const bw_play_desc *desc)
{
    if (!set || !desc || !binding_matches_rig(desc->binding, set->rig)) return BW_ERR_INVALID_ARGUMENT;
    if (!isfinite(desc->time) || !isfinite(desc->speed) || !isfinite(desc->weight) || !isfinite(desc->fade_in))
        return BW_ERR_NON_FINITE;
    if (desc->weight < 0.0f || desc->fade_in < 0.0f) return BW_ERR_INVALID_ARGUMENT;
    if ((unsigned)desc->loop > (unsigned)BW_LOOP_ON) return BW_ERR_INVALID_ARGUMENT;
    if ((desc->held && desc->speed != 0.0f) || (desc->silent && desc->weight != 0.0f)) return BW_ERR_INVALID_ARGUMENT;
    return BW_OK;
}

bw_result bw_track_set_play(bw_track_set *set, const bw_play_desc *desc, int *out_track)
{
    bw_result r = check_play_desc(set, desc);
    if (r != BW_OK) return r;
    int slot = -1;
    for (int i = 0; i < set->capacity && set->live < set->capacity; i++) {
        if (!set->tracks[i].used) {
            slot = i;
            break;
        }
    }
    if (slot < 0) return BW_ERR_LIMIT;

    track *tr = &set->tracks[slot];
    int generation = tr->generation >= MAX_GENERATION ? 1 : tr->generation + 1;
    memset(tr, 0, sizeof *tr);
    tr->generation = generation;
    tr->used = true;
    tr->loop_mode = desc->loop;
    attach_clip(tr, desc->binding);
    tr->time = place_time(tr, desc->time);
    tr->speed = desc->held ? 0.0f : desc->speed != 0.0f ? desc->speed : 1.0f;
    const float weight = desc->silent ? 0.0f : desc->weight != 0.0f ? desc->weight : 1.0f;
    tr->priority = desc->priority;
    tr->user = desc->user;
    tr->fresh = true;
    tr->weight = desc->fade_in > 0.0f ? 0.0f : weight;
    start_fade(tr, weight, desc->fade_in);
    tr->last_from = tr->time;
    set->order[set->live++] = slot;
    if (out_track) *out_track = make_handle(slot, generation);
    return BW_OK;
}

bw_result bw_track_set_rebind(bw_track_set *set, int handle, const bw_binding *binding)
{
    track *tr = find_track(set, handle);
    if (!tr || !binding_matches_rig(binding, set->rig)) return BW_ERR_INVALID_ARGUMENT;
    attach_clip(tr, binding);
    tr->time = place_time(tr, tr->time);
    /* ENDED stays reported only while the time still sits at that end */
    if ((tr->ended == ENDED_AT_END && !(tr->time >= tr->length)) ||
        (tr->ended == ENDED_AT_START && tr->time > 0.0))
        tr->ended = ENDED_NONE;
    tr->last_from = tr->time;
    tr->last_delta = 0.0;
    return BW_OK;
}

bw_result bw_track_set_set_rig(bw_track_set *set, const bw_rig *rig)
{
    if (!set || !rig) return BW_ERR_INVALID_ARGUMENT;
    set->rig = rig;
    set->joint_count = bw_rig_joint_count(rig);
    set->curve_count = bw_rig_curve_count(rig);
    return BW_OK;
}

const bw_rig *bw_track_set_rig(const bw_track_set *set) { return set ? set->rig : NULL; }

bool bw_track_set_fade_state(const bw_track_set *set, int handle, bw_track_fade *out)
{
    const track *tr = find_track(set, handle);
    if (!tr || !out) return false;
    if (tr->fading) {
        *out = (bw_track_fade){tr->fade_from, tr->fade_to, tr->fade_duration, tr->fade_elapsed, true, tr->stopping};
    } else {
        *out = (bw_track_fade){tr->weight, tr->weight, 0.0, 0.0, false, tr->stopping};
    }
    return true;
}

bw_result bw_track_set_stop(bw_track_set *set, int handle, float fade_out)
{
    track *tr = find_track(set, handle);
    if (!tr) return BW_ERR_INVALID_ARGUMENT;
    if (!isfinite(fade_out)) return BW_ERR_NON_FINITE;
    if (fade_out < 0.0f) return BW_ERR_INVALID_ARGUMENT;
    start_fade(tr, 0.0f, fade_out);
    tr->stopping = true;
    return BW_OK;
}

bw_result bw_track_set_fade(bw_track_set *set, int handle, float target, float duration)
{
    track *tr = find_track(set, handle);
    if (!tr) return BW_ERR_INVALID_ARGUMENT;
    if (!isfinite(target) || !isfinite(duration)) return BW_ERR_NON_FINITE;
    if (target < 0.0f || duration < 0.0f) return BW_ERR_INVALID_ARGUMENT;
    start_fade(tr, target, duration);
    tr->stopping = false;
    return BW_OK;
}

bw_result bw_track_set_set_speed(bw_track_set *set, int handle, float speed)
{
    track *tr = find_track(set, handle);
    if (!tr) return BW_ERR_INVALID_ARGUMENT;
    if (!isfinite(speed)) return BW_ERR_NON_FINITE;
    tr->speed = speed;
    return BW_OK;
}

bw_result bw_track_set_set_priority(bw_track_set *set, int handle, int priority)
{
    track *tr = find_track(set, handle);
    if (!tr) return BW_ERR_INVALID_ARGUMENT;
    tr->priority = priority;
    return BW_OK;
}

bw_result bw_track_set_seek(bw_track_set *set, int handle, double time)
{
    track *tr = find_track(set, handle);
    if (!tr) return BW_ERR_INVALID_ARGUMENT;
    if (!isfinite(time)) return BW_ERR_NON_FINITE;
    tr->time = place_time(tr, time);
    tr->fresh = false; /* the seek target is the excluded old endpoint */
    tr->ended = ENDED_NONE;
    tr->last_from = tr->time;
    tr->last_delta = 0.0;
    return BW_OK;
}

/* ---- queries ---- */

bool bw_track_set_alive(const bw_track_set *set, int handle) { return find_track(set, handle) != NULL; }

double bw_track_set_time(const bw_track_set *set, int handle)
{
    const track *tr = find_track(set, handle);
    return tr ? tr->time : NAN;
}

float bw_track_set_weight(const bw_track_set *set, int handle)
{
    const track *tr = find_track(set, handle);
    return tr ? tr->weight : NAN;
}

float bw_track_set_speed(const bw_track_set *set, int handle)
{
    const track *tr = find_track(set, handle);
    return tr ? tr->speed : NAN;
}

int bw_track_set_priority(const bw_track_set *set, int handle)
{
    const track *tr = find_track(set, handle);
    return tr ? tr->priority : 0;
}

bool bw_track_set_stopping(const bw_track_set *set, int handle)
{
    const track *tr = find_track(set, handle);
    return tr ? tr->stopping : false;
}

int bw_track_set_count(const bw_track_set *set) { return set ? set->live : 0; }

int bw_track_set_dropped_signals(const bw_track_set *set) { return set ? set->dropped : 0; }

int bw_track_set_live_handles(const bw_track_set *set, int *out_handles, int max)
{
    if (!set || !out_handles || max <= 0) return 0;
    int n = set->live < max ? set->live : max;
    for (int i = 0; i < n; i++) out_handles[i] = handle_of(set, &set->tracks[set->order[i]]);
    return n;
}

const bw_binding *bw_track_set_binding(const bw_track_set *set, int handle)
{
    const track *tr = find_track(set, handle);
    return tr ? tr->binding : NULL;
}

bool bw_track_set_looping(const bw_track_set *set, int handle)
{
    const track *tr = find_track(set, handle);
    return tr ? tr->loop : false;
}

bool bw_track_set_last_step(const bw_track_set *set, int handle, double *from, double *delta)
{
    const track *tr = find_track(set, handle);
    if (!tr) return false;
    if (from) *from = tr->last_from;
    if (delta) *delta = tr->last_delta;
    return true;
}

/* ---- compose and drain ---- */

static bool pose_fits(const bw_pose *pose, int joints, int curves)
{
    return pose->joint_count == joints && pose->curve_count == curves;
}

bw_result bw_track_set_sample_track(const bw_track_set *set, int handle, bw_pose *out)
{
    const track *tr = find_track(set, handle);
    if (!tr || !out || !binding_matches_rig(tr->binding, set->rig)) return BW_ERR_INVALID_ARGUMENT;
    if (!pose_fits(out, bw_rig_joint_count(set->rig), bw_rig_curve_count(set->rig))) return BW_ERR_INVALID_ARGUMENT;
    bw_sample_clip(tr->binding, set->rig, (float)tr->time, out);
    return BW_OK;
}

bw_result bw_track_set_compose(bw_track_set *set, bw_mixer *mixer, const bw_pose *base, bw_pose *out)
{
    if (!set || !mixer || !out) return BW_ERR_INVALID_ARGUMENT;
    int joints = bw_rig_joint_count(set->rig), curves = bw_rig_curve_count(set->rig);
    /* A rig that has grown since create / set_rig cannot be composed
     * until set_rig is called. */
    if (joints != set->joint_count || curves != set->curve_count || !pose_fits(out, joints, curves))
        return BW_ERR_INVALID_ARGUMENT;
    if (base && !pose_fits(base, joints, curves)) return BW_ERR_INVALID_ARGUMENT;
    const uint64_t signature = bw_rig_layout_signature(set->rig);
    const uint32_t revision = bw_rig_topology_revision(set->rig);
    for (int i = 0; i < set->live; i++) {
        const track *tr = &set->tracks[set->order[i]];
        if (!binding_matches(tr->binding, signature, revision)) return BW_ERR_INVALID_ARGUMENT;
        set->clips[i] = (bw_clip_contribution){tr->binding, (float)tr->time, tr->weight, tr->priority};
    }
    /* The fused sample-and-mix pass: the benchmarked path is this one.
     * With no base, the mixer reads the rig's current values in place as
     * the base (its rest view: nothing is copied). The bindings were
     * checked just above: the mixer does not check them again. */
    bw_pose rest;
    if (!base && !bw_mix_rest_view(mixer, set->rig, &rest)) return BW_ERR_INVALID_ARGUMENT;
    return bw_mix_run_clips_checked(mixer, set->rig, base ? base : &rest, set->clips, set->live, out);
}

void bw_track_set_drain(bw_track_set *set, bw_signal_fn fn, void *user)
{
    if (!set || set->draining) return;
    set->draining = true;
    /* Deliver what was queued when the drain began. A callback that
     * advances the set queues more; those wait for the next drain (moved to
     * the front), so a callback can never keep one drain going forever. */
    int pending = set->queue_count;
    for (int i = 0; i < pending; i++) {
        bw_signal s = set->queue[i]; /* a copy: the callback may touch the set */
        if (fn) fn(user, &s);
    }
    int later = set->queue_count - pending;
    if (later > 0) memmove(set->queue, set->queue + pending, sizeof *set->queue * (size_t)later);
    set->queue_count = later;

    /* Removal. Only the tracks live when the scan began are examined: a
     * STOPPED callback may play into the freed slot (appended to the play
     * order, behind them) and even stop that track at once, and it must not
     * be removed and replayed again within this drain. The order is
     * compacted before each callback so the callback sees a consistent set. */
    int i = 0, unscanned = set->live;
    while (unscanned > 0 && i < set->live) {
        unscanned--;
        track *tr = &set->tracks[set->order[i]];
        if (tr->stopping && tr->weight <= BW_WEIGHT_INACTIVE) {
            bw_signal s = {BW_SIGNAL_STOPPED, handle_of(set, tr), -1, NULL, 0.0f, tr->user};
            tr->used = false;
            tr->binding = NULL;
            tr->markers = NULL;
            memmove(&set->order[i], &set->order[i + 1], sizeof *set->order * (size_t)(set->live - i - 1));
            set->live--;
            if (fn) fn(user, &s);
        } else {
            i++;
        }
    }
    set->draining = false;
}
