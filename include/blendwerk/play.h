/* blendwerk/play.h - playback tracks, markers and signals (SPEC §4).
 *
 * A track set belongs to one character and one rig. It holds up to
 * `capacity` playing tracks, each with a bound clip, time, speed (may be
 * negative), weight and weight fade, priority and loop flag, and a pose
 * buffer of its own. All storage is allocated at creation; nothing in
 * advance / compose / drain allocates.
 *
 * A frame is:  bw_track_set_advance(set, dt)   -- times, fades, signals queued
 *              bw_track_set_compose(set, ...)  -- sample every track, mix
 *              bw_track_set_drain(set, fn, u)  -- deliver signals, remove
 * so a signal callback sees the newly composed pose.
 *
 * Time rules:
 * - Looping tracks keep time in [0, length): the Euclidean remainder, also
 *   for negative speed. Non-looping tracks clamp to [0, length] and hold
 *   the end sample (ENDED is queued once when the end is reached; the track
 *   keeps contributing while its weight fades).
 * - Markers fire for the interval crossed: old time excluded, new time
 *   included, in time order forward and reverse order backward. For a
 *   looping clip a marker time is taken modulo the length (a marker at the
 *   length is the marker at 0). Loop crossings are followed; at most 4
 *   cycles of markers are visited per advance (the 4 cycles nearest the
 *   new time, so the most recent events survive a stall) and at most 16
 *   LOOP signals are queued per track per advance.
 * - dt and speed that are not finite are treated as 0; an advance of any
 *   size costs at most the bounded work above.
 * - Stopping sets the weight heading to 0 over a fade; removal happens in
 *   drain, once a stopped track's weight is inactive (<= 1e-4), which
 *   delivers STOPPED directly (it never waits in the queue). A weight fade
 *   toward 0 without stop never removes the track.
 * - Seeking (bw_track_set_seek) fires no markers.
 *
 * Decisions where SPEC §4 is silent (each is tested in tests/test_play.c):
 * - A freshly played track includes its start time in its first moving
 *   advance, so a marker at the start time (e.g. at 0) fires once when the
 *   clip starts, as in other engines. After a seek the seek time is the
 *   excluded old endpoint (seeking fires nothing, not even at the target).
 * - Order at a loop boundary follows the direction of travel. Forward:
 *   markers before the end, LOOP, then markers at 0 of the new pass.
 *   Reverse: markers at 0 of the current pass, LOOP, then markers below the
 *   length. Equal marker times fire in index order forward and reverse
 *   index order backward. On a non-looping track ENDED follows the markers
 *   at the end it reached.
 * - With more than 16 wraps the LOOP signals queued are the 16 nearest the
 *   new time (the 4 visited cycles get theirs, the rest precede them).
 * - Negative dt is treated as 0 (time never runs backwards; use a negative
 *   speed). Zero-length clips (length <= 0): time stays 0; looping ones
 *   queue nothing, non-looping ones queue their markers at 0 on the first
 *   moving advance and ENDED once.
 * - ENDED re-arms when the time leaves the end (seek, or playing away).
 * - A fade (bw_track_set_fade) on a stopping track cancels the stop.
 * - Handles are slot | generation << 10: a removed track's handle never
 *   names a later track until its slot has been reused 2^20 times.
 * - Non-finite speed, weight, time or durations passed to the setters are
 *   rejected (BW_ERR_NON_FINITE, nothing changes); advance additionally
 *   treats a non-finite dt or step as 0.
 * - Non-marker signals carry marker = -1, name = NULL, marker_time = 0.
 */
#ifndef BLENDWERK_PLAY_H
#define BLENDWERK_PLAY_H

#include "blendwerk/bind.h"
#include "blendwerk/mix.h"
#include "blendwerk/pose.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BW_WEIGHT_INACTIVE 1e-4f
#define BW_TRACK_SET_MAX_CAPACITY 1024
#define BW_TRACK_SET_MAX_SIGNALS (1 << 20)

typedef struct bw_track_set bw_track_set;

typedef enum bw_signal_kind {
    BW_SIGNAL_MARKER = 0, /* a named marker was crossed */
    BW_SIGNAL_LOOP,       /* a looping track wrapped (once per wrap, at most 16 per advance) */
    BW_SIGNAL_ENDED,      /* a non-looping track reached its end (or 0 in reverse) */
    BW_SIGNAL_STOPPED     /* a stopped track faded out and left the mix */
} bw_signal_kind;

typedef struct bw_signal {
    bw_signal_kind kind;
    int track;          /* track handle */
    int marker;         /* marker index in the clip (MARKER only, else -1) */
    const char *name;   /* marker name (MARKER only; owned by the clip), else NULL */
    float marker_time;  /* marker time in the clip, seconds (0 for other kinds) */
    void *user;         /* the track's user pointer */
} bw_signal;

typedef void (*bw_signal_fn)(void *user, const bw_signal *signal);

typedef struct bw_track_set_desc {
    const bw_rig *rig;            /* required; outlives the set */
    int capacity;                 /* max simultaneous tracks (default 16 when 0,
                                     at most BW_TRACK_SET_MAX_CAPACITY) */
    int signal_capacity;          /* queued signals per frame (default 256 when 0);
                                     signals beyond it are dropped and counted */
    const bw_allocator *allocator;
} bw_track_set_desc;

/* Allocates the track slots, one pose buffer per slot, the signal queue
 * and the mixer input list. BW_ERR_INVALID_ARGUMENT for a NULL desc, rig or
 * out_set or negative capacities, BW_ERR_LIMIT beyond the maximums above,
 * BW_ERR_OUT_OF_MEMORY (nothing leaks). */
bw_result bw_track_set_create(const bw_track_set_desc *desc, bw_track_set **out_set);
void bw_track_set_destroy(bw_track_set *set);

typedef struct bw_play_desc {
    const bw_binding *binding; /* required: clip + rig binding made for the set's rig
                                  (same layout and topology revision); borrowed,
                                  outlives the track */
    double time;     /* start time, clip seconds, finite (wrapped / clamped like playback) */
    float speed;     /* clip seconds per second, finite, any sign (bw_play_desc_defaults: 1) */
    float weight;    /* target weight, finite, >= 0 (default 1; the mixer clamps
                        each joint's share to 1) */
    float fade_in;   /* seconds to reach the weight from 0, finite, >= 0 (0 = at once) */
    int priority;    /* mixer rank (bw_contribution.priority) */
    int loop;        /* -1: the clip's flag, 0: no, 1: yes */
    void *user;      /* passed back in signals; not owned */
} bw_play_desc;

/* speed 1, weight 1, fade_in 0, priority 0, loop -1, time 0. */
bw_play_desc bw_play_desc_defaults(const bw_binding *binding);

/* Start a track; returns its handle (>= 0) or -1 when the set is full or
 * the desc is invalid (missing binding, a binding made for another layout
 * or topology revision, non-finite numbers, negative weight or fade_in, a
 * loop value outside -1..1). */
int bw_track_set_play(bw_track_set *set, const bw_play_desc *desc);
/* Stop: the weight heads to 0 over fade_out seconds (0 = at once); the
 * track is removed in the drain after its weight is inactive. */
bw_result bw_track_set_stop(bw_track_set *set, int track, float fade_out);
/* Fade the weight toward `target` over `duration` seconds. */
bw_result bw_track_set_fade(bw_track_set *set, int track, float target, float duration);
bw_result bw_track_set_set_speed(bw_track_set *set, int track, float speed);
bw_result bw_track_set_set_priority(bw_track_set *set, int track, int priority);
/* Jump to a time without firing markers. */
bw_result bw_track_set_seek(bw_track_set *set, int track, double time);

/* Queries; NaN / -1 / false for unknown handles. */
bool bw_track_set_alive(const bw_track_set *set, int track);
double bw_track_set_time(const bw_track_set *set, int track);
float bw_track_set_weight(const bw_track_set *set, int track);
float bw_track_set_speed(const bw_track_set *set, int track);
int bw_track_set_priority(const bw_track_set *set, int track); /* 0 for unknown handles */
bool bw_track_set_stopping(const bw_track_set *set, int track);
int bw_track_set_count(const bw_track_set *set); /* live tracks */
/* The pose the track's last compose sampled (NULL for unknown handles). */
const bw_pose *bw_track_set_track_pose(const bw_track_set *set, int track);
/* Signals dropped because the queue was full, since creation. */
int bw_track_set_dropped_signals(const bw_track_set *set);

/* Handles of the live tracks, in play order; returns how many were
 * written (at most max). */
int bw_track_set_live_handles(const bw_track_set *set, int *out_handles, int max);
/* The binding (and so clip) a track plays; NULL for unknown handles. */
const bw_binding *bw_track_set_binding(const bw_track_set *set, int track);
/* Whether a track loops (its resolved loop flag). */
bool bw_track_set_looping(const bw_track_set *set, int track);
/* The last advance of a track in unwrapped clip time: it started at clip
 * time *from (in [0, length]) and moved by *delta seconds of clip time
 * (speed × dt; for a non-looping track only the part before the end, so
 * from + delta stays in [0, length]). Root-motion extraction reads this.
 * Returns false for unknown handles. */
bool bw_track_set_last_step(const bw_track_set *set, int track, double *from, double *delta);

/* Advance every track by dt seconds (times, fades) and queue signals.
 * Fades run on dt; clip time moves by speed × dt. */
void bw_track_set_advance(bw_track_set *set, float dt);
/* Sample every live track and mix them with `mixer` over `base` (NULL:
 * the rig's current joint values) into `out`. Contributions enter in play
 * order with the track's current weight and priority. Fails with
 * BW_ERR_INVALID_ARGUMENT when `out` (or `base`) does not match the rig or
 * a track's binding no longer matches the rig's layout (rebind after a
 * topology change), BW_ERR_LIMIT when the mixer holds fewer contributions
 * than there are live tracks; `out` is untouched on failure. */
bw_result bw_track_set_compose(bw_track_set *set, bw_mixer *mixer, const bw_pose *base, bw_pose *out);
/* Deliver queued signals in order to fn (may be NULL to discard), then
 * remove stopped tracks whose weight is inactive (queuing nothing more:
 * their STOPPED signals are delivered in this same drain, directly, so a
 * full queue never loses one). Callbacks may play, stop, fade, seek and
 * even advance the set: signals their advance queues, and tracks they
 * play and stop at once, wait for the next drain, so one drain always
 * ends. A drain called from inside a callback does nothing. */
void bw_track_set_drain(bw_track_set *set, bw_signal_fn fn, void *user);

#ifdef __cplusplus
}
#endif
#endif
