/* graph_reload.h - a graph file that reloads while characters run on it
 * (issue 11; docs/scripting.md "Hot reload").
 *
 * A bw_graph_reload holds the graph file's path, the character's rig and
 * clips (borrowed), one binding per clip (shared by every version), the
 * current compiled graph and `cursor_count` cursors on it, and a watcher
 * (bindings/watch.h) on the graph file and every file its load opened.
 *
 * Each version is built from scratch: a NEW sandbox (bindings/sandbox.h)
 * whose folder is the graph file's, the file run with line-recording table
 * constructors and read by bw_lua_graph_build, then one new cursor per
 * character. Only when all of that succeeds is it swapped in, between
 * frames: each new cursor takes over its old cursor with
 * bw_graph_cursor_carry_over(new, old, fade) - parameters by name, per
 * layer the current state by name with its progress, the layer weight
 * and its fade; a state that no longer exists restarts its layer at the
 * entry; every layer then fades over `fade` seconds from the old pose -
 * and the old cursor is destroyed. A version (sandbox and graph) is
 * destroyed when no cursor uses it any more.
 *
 * A bad edit - syntax error, runtime error while loading, a graph the
 * reader or compiler refuses (unknown state or clip, ...), or a sandbox
 * limit - is rejected whole: nothing changes, the last good version keeps
 * running, and bw_graph_reload_error holds every problem as "FILE:LINE:
 * message" lines until the next successful load.
 *
 * Cursor pointers stay valid until a poll (or bw_graph_reload_now)
 * returns BW_GRAPH_RELOAD_DONE: fetch them again after that.
 *
 * Host mode (desc.host_cursors): the reloader makes and keeps no cursors
 * of its own (one probe cursor per version proves it runs on the rig, and
 * is destroyed at once); the characters are the host's, e.g. animators
 * (include/blendwerk/animator.h). After a poll returns DONE the host takes
 * the new version with bw_graph_reload_acquire and moves each character
 * over itself (bw_animator_set_graph(a, graph, NULL, fade, errors), which
 * carries the state over), then gives back the version it left with
 * bw_graph_reload_release. A version lives while it is current or held:
 *
 *     const bw_graph *held = bw_graph_reload_acquire(r); // at start: desc.graph = held
 *     ...once a frame, between updates:
 *     if (bw_graph_reload_poll(r, now) == BW_GRAPH_RELOAD_DONE) {
 *         const bw_graph *fresh = bw_graph_reload_acquire(r);
 *         if (bw_animator_set_graph(a, fresh, NULL, 0.2f, NULL) == BW_OK) {
 *             bw_graph_reload_release(r, held);
 *             held = fresh;
 *         } else bw_graph_reload_release(r, fresh); // a keeps the old one
 *     }
 *
 * The graph's clip list is desc.clips in order, so an animator made with
 * the same clips takes it with graph_clips NULL. In host mode the summary
 * is "" (the host's cursors are not the reloader's).
 */
#ifndef BW_GRAPH_RELOAD_H
#define BW_GRAPH_RELOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "blendwerk/clip.h"
#include "blendwerk/graph.h"
#include "blendwerk/rig.h"
#include "sandbox.h"
#include "watch.h"

#define BW_GRAPH_RELOAD_TEXT_MAX 2048

typedef struct bw_graph_reload_desc {
    const char *path;             /* the graph file (SPEC §12.1) */
    const bw_rig *rig;            /* borrowed: outlives the reloader */
    const bw_clip *const *clips;  /* clip_count clips the graph names; borrowed */
    int clip_count;
    int cursor_count;             /* characters on the graph (0: 1; ignored in host mode) */
    bool host_cursors;            /* true: host mode (above): no cursors of the reloader's */
    float fade;                   /* seconds of carry-over fade at each swap (0: none) */
    bw_sandbox_limits limits;     /* of each version's sandbox (zero fields: defaults) */
    const bw_watch_desc *watch;   /* NULL: bw_watch_create's defaults */
} bw_graph_reload_desc;

typedef enum bw_graph_reload_result {
    BW_GRAPH_RELOAD_NONE = 0, /* nothing changed */
    BW_GRAPH_RELOAD_DONE,     /* a new version is running */
    BW_GRAPH_RELOAD_REJECTED  /* the edit was refused; see bw_graph_reload_error */
} bw_graph_reload_result;

typedef struct bw_graph_reload bw_graph_reload;

/* The first load. NULL with every problem (FILE:LINE lines) in err when
 * it fails. */
bw_graph_reload *bw_graph_reload_create(const bw_graph_reload_desc *desc, char *err, size_t err_size);
void bw_graph_reload_destroy(bw_graph_reload *r); /* NULL is a no-op */

/* Call once a frame, between frames: when the watcher reports a settled
 * change (bw_watch_poll(now)), reload. */
bw_graph_reload_result bw_graph_reload_poll(bw_graph_reload *r, double now);
/* Reload now, without the watcher (tests, benchmarks, a host's key). */
bw_graph_reload_result bw_graph_reload_now(bw_graph_reload *r);

int bw_graph_reload_cursor_count(const bw_graph_reload *r);
bw_graph_cursor *bw_graph_reload_cursor(bw_graph_reload *r, int i);
const bw_graph *bw_graph_reload_graph(const bw_graph_reload *r);
/* Host mode (any mode, in fact): hold the current version and return its
 * graph (NULL for a NULL reloader); it stays alive, sandbox and all, until
 * as many releases of it as acquires. Release returns false for a graph
 * that is not a live version of this reloader (nothing changes). Destroying
 * the reloader frees every version, held or not: stop using them first. */
const bw_graph *bw_graph_reload_acquire(bw_graph_reload *r);
bool bw_graph_reload_release(bw_graph_reload *r, const bw_graph *graph);

/* The last rejection's problems, one "FILE:LINE: message" a line; "" after
 * a successful load. */
const char *bw_graph_reload_error(const bw_graph_reload *r);
/* What the last swap did to cursor 0, per layer: "base: walk kept" or
 * "base: jump gone, restarted at idle", joined by "; ". */
const char *bw_graph_reload_summary(const bw_graph_reload *r);
/* Milliseconds the last attempt took (build, cursors, carry-over). */
double bw_graph_reload_last_ms(const bw_graph_reload *r);
/* Successful loads (the first included), rejections, versions alive. */
int bw_graph_reload_loads(const bw_graph_reload *r);
int bw_graph_reload_rejections(const bw_graph_reload *r);
int bw_graph_reload_versions(const bw_graph_reload *r);
bw_watch *bw_graph_reload_watcher(bw_graph_reload *r);

#endif
