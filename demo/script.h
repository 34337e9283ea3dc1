/* script.h - character scripts for the demo host, run in a sandbox.
 *
 * A character script (demo/character.lua is the default) is a Lua 5.4 chunk
 * that builds a rig and clips with the `blendwerk` module and returns
 *
 *     { rig = Rig, clips = { Clip, ... }, scene = { ... } }
 *
 * (docs/demo.md describes the format). demo_character_load hands the file
 * to the shared character loader (bindings/character.h, the one the
 * command line uses too): it runs the script in a fresh sandbox, checks
 * the rig and clips, clones them into core objects the host owns
 * (bw_rig_clone / bw_clip_clone, with malloc) and closes the state again.
 * Nothing of the script stays alive, so the running character never
 * depends on a Lua state, and a reload builds the next version beside the
 * current one without touching it.
 *
 * Scripts are untrusted: they run in the shared sandbox (bindings/sandbox.h,
 * docs/sandbox.md) whose folder is the script's, with the limits below per
 * run, plus the loader's `include(path)` (another script beside this one;
 * its results are returned). On top of that the demo adds, through the
 * loader's hooks, the `demo` table, grants the host's --asset file to
 * blendwerk.load, watches every file the script opens, requires a
 * drawable rig (1..DEMO_MAX_JOINTS joints), at most DEMO_MAX_CLIPS clips,
 * and reads `scene`. Every failure gives a message, "file:line: message"
 * wherever a line is known (syntax and runtime errors, failed asserts,
 * bad clip data at the offending blendwerk.clip call, budget, time and
 * memory stops); problems in the returned table name the file and the
 * field instead.
 */
#ifndef BW_DEMO_SCRIPT_H
#define BW_DEMO_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>

#include "blendwerk/clip.h"
#include "blendwerk/rig.h"

#define DEMO_MAX_CLIPS 32   /* clips one character may return */
#define DEMO_MAX_PLAYS 8    /* entries of scene.play */
#define DEMO_MAX_FILES 16   /* the script plus the files it names */
#define DEMO_MAX_JOINTS 1024 /* what the host is willing to draw */
#define DEMO_NAME_MAX 64
#define DEMO_PATH_MAX 1024
#define DEMO_ERROR_MAX 1024

/* Resource limits for one script run. Zero fields take the defaults. */
typedef struct demo_limits {
    long long instructions; /* VM instructions (default 50 million) */
    size_t memory;          /* bytes the state may hold (default 64 MiB) */
    double seconds;         /* wall-clock limit, checked by the count hook (default 2) */
} demo_limits;

#define DEMO_DEFAULT_INSTRUCTIONS 50000000LL
#define DEMO_DEFAULT_MEMORY ((size_t)64 << 20)
#define DEMO_DEFAULT_SECONDS 2.0

/* A file a script run read (the script, includes, assets), with what stat
 * said when it was read, so the host can tell when it changes. */
typedef struct demo_file_stamp {
    char path[DEMO_PATH_MAX];
    long long mtime_ns; /* -1 when the file did not exist */
    long long size;
} demo_file_stamp;

typedef struct demo_watch {
    demo_file_stamp files[DEMO_MAX_FILES];
    int count;
} demo_watch;

/* One clip of a character; names are unique within the character
 * (an unnamed clip is called "#N", N its 1-based position). */
typedef struct demo_clip {
    bw_clip *clip; /* owned; NULL once handed over to a player (see player.h) */
    char name[DEMO_NAME_MAX];
} demo_clip;

/* A track the scene starts with. */
typedef struct demo_play {
    int clip;       /* index into demo_character.clips */
    int priority;   /* mixer rank */
    float weight;   /* target weight in [0, 1] */
    float speed;    /* playback rate, finite */
    float time;     /* start time, seconds */
    float fade_in;  /* seconds */
    int loop;       /* -1: the clip's flag, 0: once, 1: loop */
    bool base;      /* keys 1..9 crossfade the base tracks (default: priority 0) */
} demo_play;

typedef struct demo_scene {
    demo_play plays[DEMO_MAX_PLAYS];
    int play_count;
    int gesture_clip;      /* clip fired by the space key, -1 for none */
    int gesture_priority;
    float gesture_weight;
    float gesture_fade_in, gesture_fade_out; /* seconds */
    float crossfade;       /* seconds, keys 1..9 and removed clips on reload */
    float view_yaw, view_pitch; /* degrees: initial camera */
    /* m/s the ground scrolls under the figure per clip at full weight
     * (display only: the host scrolls by the weighted sum over tracks) */
    float ground_speed[DEMO_MAX_CLIPS];
} demo_scene;

typedef struct demo_character {
    bw_rig *rig; /* owned */
    demo_clip clips[DEMO_MAX_CLIPS];
    int clip_count;
    demo_scene scene;
    char script[DEMO_PATH_MAX]; /* path it was loaded from */
} demo_character;

/* Fill zero fields with the defaults. */
demo_limits demo_limits_resolve(const demo_limits *limits);

/* Run the script at `script_path` in a sandbox and build a character.
 * `asset_path` (may be NULL) is the file the script may load through
 * demo.asset / blendwerk.load. On success *out receives the character
 * (destroy it with demo_character_destroy) and true is returned. On failure
 * *out is untouched, `err` holds the message and false is returned.
 * `watch` (may be NULL) receives the files read, in both cases, so a
 * failed load can be retried when one of them changes. */
bool demo_character_load(const char *script_path, const char *asset_path, const demo_limits *limits,
                         demo_character **out, demo_watch *watch, char *err, size_t err_size);
void demo_character_destroy(demo_character *character); /* NULL is a no-op */

/* Index of the clip named `name`, or -1. */
int demo_character_find_clip(const demo_character *character, const char *name);

/* Whether any watched file differs from its stamp. */
bool demo_watch_changed(const demo_watch *watch);

#endif
