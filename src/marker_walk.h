/* marker_walk.h - the one walk over the markers a step of clip time crosses
 * (SPEC §4), shared by playback tracks (play.c), graph states
 * (graph_cursor.c) and the animator's locomotion tree (animator.c).
 * Internal, not part of the public API.
 *
 * Data. A clip's markers are put in walking order once, when the clip or
 * graph is built (bw_marker_list_build), never per frame:
 * - times[i]: marker i's authored time, in index order, which is ascending
 *   time (clips sort their markers by time, stably); the non-looping walk
 *   reads these as they are;
 * - ring[j], ring_index[j]: the looping order, each time taken modulo the
 *   length into [0, length) (a marker at the length is the marker at 0;
 *   negative and past-the-length times wrap too), ascending by position,
 *   equal positions by ascending marker index. With length <= 0 every
 *   position is 0.
 *
 * A step (bw_marker_plan) runs from clip time `from` to `to` on an unwrapped
 * line, in the direction `backward` says (a `to` on the wrong side of
 * `from` is `from`); `include_start` includes `from` itself (a freshly
 * started play), else the old endpoint is excluded. The new endpoint is
 * always included. Looping: any finite from / to, each taken modulo the
 * length; the pass it lies in is floor(x / length) and a step crosses the
 * loop boundaries between the two passes (`wraps`, integral, any size).
 * Not looping: from and to are clamped to [0, length] (so markers before 0
 * or past the length never fire) and nothing wraps. A non-finite from or
 * to, or a looping clip of length <= 0, is an empty step: no marker, no
 * wrap, `to` is from as placed (0 when not finite).
 *
 * The window (SPEC §4: at most 4 cycles per step): a looping step of more
 * than BW_MARKER_CYCLES lengths of travel (or exactly that many with its
 * start included) visits only the half-open window (to - 4·length, to],
 * so every marker fires at most 4 times and the most recent ones survive
 * a stall; the start is then excluded whatever include_start says. The
 * decision compares pass-relative positions only (exact: fmod is exact),
 * so a step of 4 lengths is told from one a rounding longer, and a step
 * of 1e30 lengths does no more work than one of 5: the walk counts its
 * passes with an int up to BW_MARKER_CYCLES + 1, never steps a double
 * pass number, which past 2^53 would stall at k + 1 == k. A clipped step whose `to` is
 * so large that to - 4·length rounds to `to` (|to| around 2^55 lengths
 * and beyond, where the caller's time no longer resolves a pass) visits
 * nothing and reports all its wraps as before the window.
 *
 * The walk (bw_marker_walk) visits, in the order of travel, each crossed
 * marker's index and, between passes, BW_MARKER_WRAP for each loop
 * boundary inside the window (step->walked_wraps of them; the step's
 * other wraps - before the window - are the caller's to report first).
 * Forward: ascending position within a pass, equal positions in ascending
 * index; the markers before the length, the wrap, then the new pass from 0.
 * Backward: the exact reverse (descending position, equal positions in
 * descending index): the markers down to 0 of the current pass, the wrap,
 * then the previous pass from below the length. The walk does one pass
 * over the sorted list per visited clip pass, stops each at the first
 * marker beyond the window and allocates nothing. A caller with no
 * markers should not call it at all (the plan alone gives `to` and the
 * wraps); with count 0 it visits only the wraps.
 */
#ifndef BW_MARKER_WALK_H
#define BW_MARKER_WALK_H

#include <math.h>
#include <stdbool.h>

#define BW_MARKER_CYCLES 4 /* lengths of travel visited per step (SPEC §4) */
#define BW_MARKER_WRAP (-1) /* the marker index the walk gives for a loop boundary */

typedef struct bw_marker_list {
    const double *times;    /* count authored times, index order (ascending) */
    const double *ring;     /* count looping positions in [0, length), ascending */
    const int *ring_index;  /* the marker index of each ring position */
    int count;
} bw_marker_list;

typedef struct bw_marker_step {
    double to;        /* where the step lands: [0, length) looping, [0, length] otherwise */
    double wraps;     /* loop boundaries crossed, integral (may exceed 2^53) */
    int walked_wraps; /* those inside the window, reported by the walk (<= BW_MARKER_CYCLES) */
    /* for the walk */
    double length;
    double first;      /* where the window starts, in its first pass */
    bool first_closed; /* ... and whether that point is included */
    bool loop, backward, empty;
} bw_marker_step;

/* Euclidean remainder of x by len > 0, in [0, len) (a remainder that
 * rounds up to len becomes the largest double below it). */
static inline double bw_wrap_time(double x, double len)
{
    double r = fmod(x, len);
    if (r < 0.0) r += len;
    if (r >= len) r = nextafter(len, 0.0);
    return r;
}

/* Place x in its pass: the wrapped time, and the pass number. */
static inline double bw_marker_pass_of(double x, double len, double *pass)
{
    if (x >= 0.0 && x < len) { /* the usual case: no fmod */
        *pass = 0.0;
        return x;
    }
    double r = bw_wrap_time(x, len);
    /* rounding the exact difference avoids floor() disagreeing with fmod() at a boundary */
    *pass = nearbyint((x - r) / len);
    return r;
}

/* The step from `from` to `to` (see the top of this file). Cheap and
 * inline: callers with no markers still need `to` and `wraps`. */
static inline bw_marker_step bw_marker_plan(double length, bool loop, double from, double to, bool backward,
                                            bool include_start)
{
    bw_marker_step s = {0.0, 0.0, 0, length, 0.0, false, loop, backward, false};
    if (backward ? to > from : to < from) to = from;
    if (!loop) {
        double len = length > 0.0 ? length : 0.0;
        s.length = len;
        if (!isfinite(from) || !isfinite(to)) {
            s.empty = true;
            s.to = isfinite(from) ? (from < 0.0 ? 0.0 : from > len ? len : from) : 0.0;
            return s;
        }
        s.first = from < 0.0 ? 0.0 : from > len ? len : from;
        s.to = to < 0.0 ? 0.0 : to > len ? len : to;
        s.first_closed = include_start;
        return s;
    }
    if (!(length > 0.0) || !isfinite(from) || !isfinite(to)) {
        s.empty = true;
        s.to = length > 0.0 && isfinite(from) ? bw_wrap_time(from, length) : 0.0;
        return s;
    }
    double k0, k1;
    double t0 = bw_marker_pass_of(from, length, &k0);
    double t1 = bw_marker_pass_of(to, length, &k1);
    double n = backward ? k0 - k1 : k1 - k0;
    if (!(n >= 0.0)) n = 0.0;
    s.to = t1;
    s.wraps = n;
    /* the travel n·len + (t1 - t0) forward, n·len + (t0 - t1) backward
     * (|t1 - t0| < len) against 4·len: longer, or exactly 4 lengths with
     * the start included (its start and end would repeat one phase) */
    bool beyond_end = backward ? t1 < t0 : t1 > t0;
    if (n > BW_MARKER_CYCLES || (n == BW_MARKER_CYCLES && (beyond_end || (t1 == t0 && include_start)))) {
        /* `to` so large that its window start rounds to it: no position
         * within a pass is known there, so nothing is visited */
        double start = backward ? to + BW_MARKER_CYCLES * length : to - BW_MARKER_CYCLES * length;
        s.empty = start == to;
        s.walked_wraps = s.empty ? 0 : BW_MARKER_CYCLES;
        s.first = t1;
        s.first_closed = false;
    } else {
        s.walked_wraps = (int)n;
        s.first = t0;
        s.first_closed = include_start;
    }
    return s;
}

/* Visit the markers (and the window's wraps) of a planned step in the
 * order of travel; visit(user, index) or visit(user, BW_MARKER_WRAP). */
void bw_marker_walk(const bw_marker_list *list, const bw_marker_step *step, void (*visit)(void *user, int marker),
                    void *user);

/* Fill list->ring and list->ring_index (caller-owned, count entries each)
 * from list->times, which the caller has filled (ascending): linear when
 * the positions come out in order (every time in [0, length), as usual),
 * else an in-place heap sort, O(n log n) (times past the length or below
 * 0). Allocates nothing. */
void bw_marker_list_build(double length, const double *times, int count, double *ring, int *ring_index);

#endif
