/* reload.h - hot reload of a character script.
 *
 * The reloader remembers the script, the optional --asset path, the
 * sandbox limits, the files the last load attempt read (with their
 * modification times and sizes) and the message of the last failure.
 *
 * - demo_reloader_changed: has any of those files changed since the last
 *   attempt? (The host polls this a few times a second.) The files are
 *   watched by the one watcher of the bindings (bindings/watch.h: inotify
 *   on their folders, so rename-over saves and re-created files count;
 *   mtime / size polling where inotify is unusable), with no debounce of
 *   its own: the host's poll interval is the debounce. A change seen stays
 *   "changed" until the next attempt. Files a later version stops using
 *   stay watched (a change to one only costs a reload).
 * - demo_reloader_apply: load the script again into a NEW sandboxed state.
 *   On success the new version is swapped into the player keeping what
 *   plays (player.h) and the error is cleared; on failure the player keeps
 *   the last good version untouched and `error` holds the message (with
 *   file and line where known) until the next successful load.
 * Attempts are made on change only, so a broken file is tried once per
 * save, not once per poll.
 */
#ifndef BW_DEMO_RELOAD_H
#define BW_DEMO_RELOAD_H

#include "player.h"
#include "script.h"

struct demo_reload_watch; /* reload.c */

typedef struct demo_reloader {
    char script[DEMO_PATH_MAX];
    char asset[DEMO_PATH_MAX];  /* "" when none */
    demo_limits limits;
    demo_watch watch;           /* files of the last attempt */
    char error[DEMO_ERROR_MAX]; /* "" when the last attempt succeeded */
    int loads;                  /* successful loads, the first included */
    int failures;               /* failed attempts */
    struct demo_reload_watch *watcher; /* NULL: compare `watch`'s stamps */
} demo_reloader;

/* `asset` and `limits` may be NULL. Paths longer than DEMO_PATH_MAX - 1
 * are refused by the first load. */
void demo_reloader_init(demo_reloader *r, const char *script, const char *asset, const demo_limits *limits);
/* Release the watcher (optional: what is not released is at exit). */
void demo_reloader_deinit(demo_reloader *r);
/* The first load: the character, or NULL with the message in r->error. */
demo_character *demo_reloader_load(demo_reloader *r);
/* Whether a file of the last attempt changed (or appeared, or vanished). */
bool demo_reloader_changed(const demo_reloader *r);
/* Reload into `player` (see above). Returns true when a new version was
 * swapped in. */
bool demo_reloader_apply(demo_reloader *r, demo_player *player);

#endif
