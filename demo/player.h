/* player.h - playing a demo character: one track set on the character's
 * rig, the scene's controls (crossfade the base clip, fire the gesture),
 * a log of marker events, and hot swapping to a new version of the
 * character while keeping what plays.
 *
 * The player owns its character and every core object it plays. A frame
 * (demo_player_step) is advance, compose, drain and local-to-model; it
 * never allocates and never compares strings (names are resolved when a
 * track starts or a character is swapped in).
 *
 * Swap contract (demo_player_swap): every live track keeps playing with
 * the same time, speed, weight, fade, priority and loop flag, matched to
 * the new version by clip name. A track whose clip the new version no
 * longer has keeps its old clip (bound to the new rig) and fades out over
 * the new scene's crossfade time; the old clip is freed once its last
 * track is gone. The scene's `play` list is not replayed: what plays stays
 * what the user made play (demo_player_restart replays it). Markers
 * already delivered do not fire again: a swapped track resumes from its
 * time without re-crossing it. The player's track set is kept: it moves
 * to the new rig and each track is rebound in place (handles stay the
 * same). If the new version cannot be set up (out of memory, or more than
 * DEMO_MAX_RETIRED removed clips still playing) nothing changes and the
 * caller keeps ownership of it.
 */
#ifndef BW_DEMO_PLAYER_H
#define BW_DEMO_PLAYER_H

#include "blendwerk/bind.h"
#include "blendwerk/mix.h"
#include "blendwerk/play.h"
#include "blendwerk/pose.h"
#include "script.h"

#define DEMO_TRACK_CAPACITY 32
#define DEMO_MAX_RETIRED 16
#define DEMO_EVENT_LOG 128

typedef enum demo_role {
    DEMO_ROLE_BASE = 0, /* replaced by the crossfade keys */
    DEMO_ROLE_LAYER,    /* started by the scene above the base */
    DEMO_ROLE_GESTURE   /* a one-shot fired by the gesture key */
} demo_role;

/* The host's record of one playing track. */
typedef struct demo_track {
    bool used;
    int handle;            /* in the player's current track set */
    const bw_clip *clip;   /* owned by the character or a retired slot */
    char name[DEMO_NAME_MAX];
    demo_role role;
    int priority;
    bool one_shot;         /* stopped with the gesture fade-out when it ends */
    bool removed;          /* its clip left the character in a reload */
    float target;          /* the weight it is heading to */
    double fade_end;       /* simulated time at which that fade completes */
    bool fresh;            /* not advanced yet (informational: the track set itself keeps
                              whether the start's markers are due, across swaps too) */
} demo_track;

typedef enum demo_event_kind { DEMO_EVENT_MARKER = 0, DEMO_EVENT_ENDED, DEMO_EVENT_STOPPED } demo_event_kind;

typedef struct demo_event {
    demo_event_kind kind;
    double time;       /* simulated time of the event (markers: when the playhead crossed it) */
    float clip_time;   /* the marker's time in its clip */
    char clip[DEMO_NAME_MAX];
    char name[DEMO_NAME_MAX]; /* marker name; "" for ended / stopped */
} demo_event;

/* A clip that a reload removed while a track still plays it. */
typedef struct demo_retired {
    bw_clip *clip;
    bw_binding *binding; /* to the current rig */
} demo_retired;

typedef struct demo_player {
    demo_character *character; /* owned */
    bw_track_set *set;
    bw_mixer *mixer;
    bw_pose pose;              /* composed pose of the last step */
    float (*model)[4][4];      /* model-space matrices of the last step, one per joint */
    bw_binding *bindings[DEMO_MAX_CLIPS];
    demo_retired retired[DEMO_MAX_RETIRED];
    demo_track tracks[DEMO_TRACK_CAPACITY];
    double time;               /* simulated seconds since the start */
    float last_dt;
    long frame;
    bool reap;                 /* a track left: check the retired clips */
    demo_event log[DEMO_EVENT_LOG]; /* ring: event n is log[n % DEMO_EVENT_LOG] */
    long log_total;            /* events logged since the start */
} demo_player;

/* Set up playback of `character` and start its scene. Takes ownership of
 * the character on success; on failure (message in err) nothing is kept. */
bool demo_player_init(demo_player *player, demo_character *character, char *err, size_t err_size);
void demo_player_deinit(demo_player *player);

/* One frame of dt seconds (non-finite or negative: 0). */
void demo_player_step(demo_player *player, float dt);

/* Crossfade the base to clip `clip` (an index into the character's clips)
 * over the scene's crossfade time. False for a bad index or a full set. */
bool demo_player_crossfade(demo_player *player, int clip);
/* Fire the scene's gesture once: tracks of that clip fade out, a one-shot
 * fades in and fades out when it ends. False when the scene has none. */
bool demo_player_fire_gesture(demo_player *player);
/* Drop every track at once and start the scene's play list again. */
void demo_player_restart(demo_player *player);

/* Swap in a new version of the character (see the contract above). On
 * success the player owns `character` and the old version is freed. */
bool demo_player_swap(demo_player *player, demo_character *character, char *err, size_t err_size);

/* Records of the live tracks in play order; returns how many (<= max). */
int demo_player_tracks(const demo_player *player, const demo_track **out, int max);
/* The record playing clip `name` with the highest weight, or NULL. */
const demo_track *demo_player_find_track(const demo_player *player, const char *name);
/* Event number `n` (0-based since the start), or NULL if it has left the log. */
const demo_event *demo_player_event(const demo_player *player, long n);

#endif
