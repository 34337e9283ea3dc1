/* watch.h - one file watcher for hot reload (the demo, `blendwerk watch`,
 * bindings/graph_reload.h).
 *
 * The watcher is given a set of files and watches their folders, so a
 * save that writes a temporary file and renames it over the watched one
 * is seen, and so is a file deleted and created again. On Linux it uses
 * inotify on each folder (IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM |
 * IN_CREATE | IN_DELETE, matched against the watched names); where
 * inotify is unavailable, runs out of watches, overflows its queue or
 * loses a folder, and when asked to (force_polling), it compares each
 * file's modification time and size at every poll instead.
 *
 * No threads: the host calls bw_watch_poll once a frame with its own
 * clock. A change is reported once, by the first poll at which no new
 * change has been seen for `debounce` seconds: a file saved in two writes
 * (or a burst of saves) reloads once. Times are the caller's (seconds, any
 * origin, non-decreasing), so tests drive the debounce without sleeping.
 */
#ifndef BW_WATCH_H
#define BW_WATCH_H

#include <stdbool.h>
#include <stddef.h>

#define BW_WATCH_DEFAULT_DEBOUNCE 0.05 /* seconds */

typedef struct bw_watch_desc {
    double debounce;    /* seconds of quiet before a change is reported; 0: at the first poll that sees it */
    bool force_polling; /* compare times and sizes even where inotify works */
} bw_watch_desc;

typedef struct bw_watch bw_watch;

/* desc NULL: BW_WATCH_DEFAULT_DEBOUNCE, inotify where available. NULL
 * when out of memory. */
bw_watch *bw_watch_create(const bw_watch_desc *desc);
void bw_watch_destroy(bw_watch *w); /* NULL is a no-op */

/* Watch `path` (it need not exist yet). Adding a path twice is a no-op.
 * False when the path is too long or memory runs out. */
bool bw_watch_add(bw_watch *w, const char *path);
/* Forget every file (and folder); a pending change is dropped. */
void bw_watch_clear(bw_watch *w);
int bw_watch_count(const bw_watch *w);

/* Non-blocking: read what happened since the last poll; true once per
 * settled change (see above). */
bool bw_watch_poll(bw_watch *w, double now);
/* Whether the watcher compares times and sizes (forced, or inotify is not
 * usable); for tests and for the host's log. */
bool bw_watch_polling(const bw_watch *w);

/* A monotonic clock in seconds, for hosts that have none at hand. */
double bw_watch_now(void);

/* A file's version as the watcher compares it: modification time in
 * nanoseconds and size in bytes; both -1 when the file is missing. The
 * hot-reload hosts (bindings/controls.c, the sandbox's modules) use the
 * same stamp. */
typedef struct bw_file_stamp {
    long long mtime_ns, size;
} bw_file_stamp;
bw_file_stamp bw_file_stamp_path(const char *path); /* stat */
bw_file_stamp bw_file_stamp_fd(int fd);             /* fstat of an open file */
bool bw_file_stamp_same(bw_file_stamp a, bw_file_stamp b);

#endif
