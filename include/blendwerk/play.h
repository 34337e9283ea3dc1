/* blendwerk/play.h - playback tracks, markers and signals (SPEC §4).
 *
 * A track set belongs to one character and one rig. It holds up to
 * `capacity` playing tracks, each with a bound clip, time, speed (may be
 * negative), weight and weight fade, priority and loop choice. Tracks own
 * no pose buffers: compose samples and mixes them in one pass through the
 * mixer (bw_mix_run_clips), and bw_track_set_sample_track samples one
 * track into a caller's pose on request. All storage is allocated at
 * creation; nothing in set_rig / advance / compose / drain allocates.
 *
 * A frame is:  bw_track_set_advance(set, dt)   -- times, fades, signals queued
 *              bw_track_set_compose(set, ...)  -- sample and mix every track
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
 *   cycles of markers are visited per advance (the last 4 lengths of
 *   travel, (new − 4·length, new], so every marker fires at most 4 times
 *   and the most recent events survive a stall) and at most 16
 *   LOOP signals are queued per track per advance. The window needs the
 *   track's unwrapped new time (old time + step, a double) to resolve its
 *   position within a pass: once 4 lengths no longer change it (an advance
 *   of about 2^55 lengths and more: 3.6e16 s on a 1 s clip, where the
 *   double's spacing exceeds 8 lengths) the advance queues no marker, only
 *   its LOOP signals (16), and the time lands on the wrapped rounded sum.
 *   An advance of 1e16 s on a 1 s clip still gets its 4 cycles of markers;
 *   1e17 s gets none.
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
 * - Clock arithmetic is double: clip time, and a fade's elapsed time and
 *   duration, so a fade of 16,667 s fed 60 Hz frames reaches exactly its
 *   target once its duration has passed (a float sum would stall short).
 *
 * Reloading (a new clip revision, a rebuilt rig) without replaying:
 *   bw_track_set_set_rig(set, new_rig);            -- if the rig was rebuilt
 *   for each live track h: bw_track_set_rebind(set, h, binding_for_new_rig);
 * Every live track must be rebound to a binding for the set's current rig
 * before the next compose (compose refuses stale bindings); the mixer must
 * be one made for the new rig. Rebinding keeps time (wrapped or clamped to
 * the new length), speed, weight, fade, stop, priority, loop choice and
 * user, and fires nothing.
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
    const bw_rig *rig;            /* required; outlives the set (or until bw_track_set_set_rig) */
    int capacity;                 /* max simultaneous tracks (default 16 when 0,
                                     at most BW_TRACK_SET_MAX_CAPACITY) */
    int signal_capacity;          /* queued signals per frame (default 256 when 0);
                                     signals beyond it are dropped and counted */
    bw_allocator allocator;       /* by value, kept in the set; fn NULL: malloc / free */
} bw_track_set_desc;

/* Allocates the track slots, the signal queue and the mixer input list,
 * in one block. BW_ERR_INVALID_ARGUMENT for a NULL desc, rig or out_set
 * or negative capacities, BW_ERR_LIMIT beyond the maximums above,
 * BW_ERR_OUT_OF_MEMORY (nothing leaks). */
BW_API bw_result bw_track_set_create(const bw_track_set_desc *desc, bw_track_set **out_set);
BW_API void bw_track_set_destroy(bw_track_set *set);

/* Loop choice of a track. Zero means "as the clip says". */
typedef enum bw_loop_mode {
    BW_LOOP_CLIP = 0, /* the clip's own loop flag (re-read on rebind) */
    BW_LOOP_OFF,      /* play once and hold the end */
    BW_LOOP_ON        /* loop */
} bw_loop_mode;

/* How to start a track. All-zero except `binding` means the defaults:
 * time 0, speed 1, weight 1, no fade-in, priority 0, the clip's loop flag.
 * Because 0 selects the default for speed and weight, starting held
 * (speed 0) or silent (target weight 0) is asked for with `held` /
 * `silent`; the track can later be sped up with bw_track_set_set_speed or
 * faded in with bw_track_set_fade. */
typedef struct bw_play_desc {
    const bw_binding *binding; /* required: clip + rig binding made for the set's rig
                                  (same layout and topology revision); borrowed,
                                  outlives the track */
    double time;       /* start time, clip seconds, finite (wrapped / clamped like playback) */
    float speed;       /* clip seconds per second, finite, any sign; 0: 1 (see `held`) */
    float weight;      /* target weight, finite, >= 0; 0: 1 (see `silent`). The mixer
                          clamps each joint's share to 1 */
    float fade_in;     /* seconds to reach the weight from 0, finite, >= 0 (0 = at once) */
    int priority;      /* mixer rank (bw_contribution.priority) */
    bw_loop_mode loop; /* BW_LOOP_CLIP (0), BW_LOOP_OFF or BW_LOOP_ON */
    bool held;         /* start with speed 0 (`speed` must then be 0) */
    bool silent;       /* start with target weight 0 (`weight` must then be 0) */
    void *user;        /* passed back in signals; not owned */
} bw_play_desc;

/* The defaults spelled out: the same as (bw_play_desc){.binding = binding}. */
BW_API bw_play_desc bw_play_desc_defaults(const bw_binding *binding);

/* Start a track; *out_track receives its handle (>= 0; out_track may be
 * NULL). Results, nothing changing on failure:
 * BW_ERR_INVALID_ARGUMENT for a NULL set or desc, a missing binding, a
 *   binding made for another layout or topology revision, a negative
 *   weight or fade_in, a loop value outside bw_loop_mode, `held` with a
 *   non-zero speed or `silent` with a non-zero weight;
 * BW_ERR_NON_FINITE for a non-finite time, speed, weight or fade_in;
 * BW_ERR_LIMIT when the set already holds `capacity` tracks. */
BW_API bw_result bw_track_set_play(bw_track_set *set, const bw_play_desc *desc, int *out_track);
/* Stop: the weight heads to 0 over fade_out seconds (0 = at once); the
 * track is removed in the drain after its weight is inactive. */
BW_API bw_result bw_track_set_stop(bw_track_set *set, int track, float fade_out);
/* Fade the weight toward `target` over `duration` seconds. */
BW_API bw_result bw_track_set_fade(bw_track_set *set, int track, float target, float duration);
BW_API bw_result bw_track_set_set_speed(bw_track_set *set, int track, float speed);
BW_API bw_result bw_track_set_set_priority(bw_track_set *set, int track, int priority);
/* Jump to a time without firing markers. */
BW_API bw_result bw_track_set_seek(bw_track_set *set, int track, double time);

/* Play a different binding on a live track (a new revision of its clip,
 * or the binding of its clip for a rebuilt rig), firing nothing. Kept:
 * time (wrapped to the new length when looping, clamped to [0, length]
 * otherwise), speed, weight, fade in progress, stop, priority, loop
 * choice (BW_LOOP_CLIP re-reads the new clip's flag), user, and whether
 * the start time is still due to fire its markers. The new clip's
 * markers apply from the next advance; the last step (for root motion)
 * restarts at the kept time with delta 0; ENDED re-arms unless the time
 * still sits at the end it reported. BW_ERR_INVALID_ARGUMENT for an
 * unknown handle or a NULL binding or one not made for the set's current
 * rig (layout and topology revision). */
BW_API bw_result bw_track_set_rebind(bw_track_set *set, int track, const bw_binding *binding);
/* Switch the set to `rig` (a rebuilt version of its rig, possibly with
 * other joint or curve counts, or the same rig after bw_rig_add_joint);
 * allocates nothing. BW_ERR_INVALID_ARGUMENT for a NULL set or rig. Tracks keep playing their old bindings, which
 * compose then refuses: rebinding every live track (bw_track_set_rebind)
 * before the next compose is the caller's duty, and so is a mixer made
 * for the new rig. `rig` must outlive the set or the next set_rig. */
BW_API bw_result bw_track_set_set_rig(bw_track_set *set, const bw_rig *rig);
/* The rig the set currently serves. */
BW_API const bw_rig *bw_track_set_rig(const bw_track_set *set);

/* A track's weight fade. With no fade running, start = target = the
 * current weight, duration = elapsed = 0. */
typedef struct bw_track_fade {
    float start_weight;  /* weight when the fade began */
    float target_weight; /* weight it heads to */
    double duration;     /* seconds, >= 0 */
    double elapsed;      /* seconds since it began, in [0, duration] */
    bool active;         /* still moving (elapsed < duration) */
    bool stopping;       /* a stop: the track is removed once its weight is inactive */
} bw_track_fade;
/* Fill *out with the track's fade; false (out untouched) for unknown
 * handles or a NULL out. */
BW_API bool bw_track_set_fade_state(const bw_track_set *set, int track, bw_track_fade *out);

/* Queries; NaN / -1 / false for unknown handles. */
BW_API bool bw_track_set_alive(const bw_track_set *set, int track);
BW_API double bw_track_set_time(const bw_track_set *set, int track);
BW_API float bw_track_set_weight(const bw_track_set *set, int track);
BW_API float bw_track_set_speed(const bw_track_set *set, int track);
BW_API int bw_track_set_priority(const bw_track_set *set, int track); /* 0 for unknown handles */
BW_API bool bw_track_set_stopping(const bw_track_set *set, int track);
BW_API int bw_track_set_count(const bw_track_set *set); /* live tracks */
/* Sample one track alone, at its current time, into `out` (a pose
 * initialised for the set's rig), as bw_sample_clip does: what that track
 * contributes to the next compose before its weight is applied. Replaces
 * the per-track pose buffers of earlier versions. BW_ERR_INVALID_ARGUMENT
 * for an unknown handle, a NULL out, a pose not sized for the rig or a
 * track whose binding no longer matches the rig (out untouched). */
BW_API bw_result bw_track_set_sample_track(const bw_track_set *set, int track, bw_pose *out);
/* Signals dropped because the queue was full, since creation. */
BW_API int bw_track_set_dropped_signals(const bw_track_set *set);

/* Handles of the live tracks, in play order; returns how many were
 * written (at most max). */
BW_API int bw_track_set_live_handles(const bw_track_set *set, int *out_handles, int max);
/* The binding (and so clip) a track plays; NULL for unknown handles. */
BW_API const bw_binding *bw_track_set_binding(const bw_track_set *set, int track);
/* Whether a track loops (its resolved loop flag). */
BW_API bool bw_track_set_looping(const bw_track_set *set, int track);
/* The last advance of a track in unwrapped clip time: it started at clip
 * time *from (in [0, length]) and moved by *delta seconds of clip time
 * (speed × dt; for a non-looping track only the part before the end, so
 * from + delta stays in [0, length]). Root-motion extraction reads this.
 * Returns false for unknown handles. */
BW_API bool bw_track_set_last_step(const bw_track_set *set, int track, double *from, double *delta);

/* A hint for crowd loops: ask the cache for the part of `set` the next
 * advance and compose read first (the set itself, its play order and its
 * first BW_TRACK_SET_PREFETCH_TRACKS track slots, for a set of the default
 * capacity or less), so that a loop calling it for character i + 1 while
 * it works on character i finds that set in cache instead of waiting on
 * memory at its first access. It reads nothing of the set (it cannot stall
 * on it) and changes no value; NULL does nothing. */
#define BW_TRACK_SET_PREFETCH_TRACKS 8
BW_API void bw_track_set_prefetch(const bw_track_set *set);
/* Advance every track by dt seconds (times, fades) and queue signals.
 * Fades run on dt; clip time moves by speed × dt. */
BW_API void bw_track_set_advance(bw_track_set *set, float dt);
/* Sample every live track and mix them with `mixer` over `base` (NULL:
 * the rig's current joint values) into `out`, in one pass: this is
 * bw_mix_run_clips (dense grid clips straight into the mixer, the others
 * through its scratch poses), equal to sampling each track with
 * bw_track_set_sample_track and mixing with bw_mix_run to float rounding.
 * Contributions enter in play order with the track's current weight and
 * priority. Fails with BW_ERR_INVALID_ARGUMENT when the mixer, `out` (or
 * `base`) does not match the rig or a track's binding no longer matches
 * the rig's layout and topology (rebind after a change), BW_ERR_LIMIT
 * when the mixer holds fewer contributions than there are live tracks;
 * `out` is untouched on failure. */
BW_API bw_result bw_track_set_compose(bw_track_set *set, bw_mixer *mixer, const bw_pose *base, bw_pose *out);
/* Deliver queued signals in order to fn (may be NULL to discard), then
 * remove stopped tracks whose weight is inactive (queuing nothing more:
 * their STOPPED signals are delivered in this same drain, directly, so a
 * full queue never loses one). Callbacks may play, stop, fade, seek and
 * even advance the set: signals their advance queues, and tracks they
 * play and stop at once, wait for the next drain, so one drain always
 * ends. A drain called from inside a callback does nothing. */
BW_API void bw_track_set_drain(bw_track_set *set, bw_signal_fn fn, void *user);

#ifdef __cplusplus
}
#endif
#endif
