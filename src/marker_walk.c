/* marker_walk.c - the marker walk of marker_walk.h (SPEC §4). */
#include "marker_walk.h"

#include <stddef.h>

/* One clip pass: the sorted positions in [lo, hi] (each end open or
 * closed), ascending or descending; stops at the first beyond the far end. */
static void walk_pass(const double *pos, const int *index, int count, double lo, bool lo_closed, double hi,
                      bool hi_closed, bool backward, void (*visit)(void *, int), void *user)
{
    if (!backward) {
        for (int i = 0; i < count; i++) {
            double p = pos[i];
            if (p < lo || (p == lo && !lo_closed)) continue;
            if (p > hi || (p == hi && !hi_closed)) return;
            visit(user, index ? index[i] : i);
        }
        return;
    }
    for (int i = count - 1; i >= 0; i--) {
        double p = pos[i];
        if (p > hi || (p == hi && !hi_closed)) continue;
        if (p < lo || (p == lo && !lo_closed)) return;
        visit(user, index ? index[i] : i);
    }
}

void bw_marker_walk(const bw_marker_list *list, const bw_marker_step *step, void (*visit)(void *user, int marker),
                    void *user)
{
    if (step->empty) return;
    if (!step->loop) {
        bool b = step->backward;
        double lo = b ? step->to : step->first, hi = b ? step->first : step->to;
        walk_pass(list->times, NULL, list->count, lo, b ? true : step->first_closed, hi, b ? step->first_closed : true,
                  b, visit, user);
        return;
    }
    /* passes j = 0 .. walked_wraps: counted (an int up to BW_MARKER_CYCLES) */
    const int last = step->walked_wraps;
    const double len = step->length;
    for (int j = 0; j <= last; j++) {
        if (j > 0) visit(user, BW_MARKER_WRAP);
        /* the near end (where the pass is entered) and the far end */
        double near = j == 0 ? step->first : step->backward ? len : 0.0;
        bool near_closed = j == 0 ? step->first_closed : !step->backward;
        double far = j == last ? step->to : step->backward ? 0.0 : len;
        bool far_closed = j == last || step->backward;
        if (step->backward)
            walk_pass(list->ring, list->ring_index, list->count, far, far_closed, near, near_closed, true, visit, user);
        else
            walk_pass(list->ring, list->ring_index, list->count, near, near_closed, far, far_closed, false, visit, user);
    }
}

/* Ring order: by position, equal positions by marker index. */
static bool ring_before(const double *ring, const int *index, int a, int b)
{
    return ring[a] < ring[b] || (ring[a] == ring[b] && index[a] < index[b]);
}

static void ring_swap(double *ring, int *index, int a, int b)
{
    double w = ring[a];
    ring[a] = ring[b];
    ring[b] = w;
    int k = index[a];
    index[a] = index[b];
    index[b] = k;
}

static void ring_sift(double *ring, int *index, int root, int end)
{
    for (;;) {
        int child = 2 * root + 1;
        if (child >= end) return;
        if (child + 1 < end && ring_before(ring, index, child, child + 1)) child++;
        if (!ring_before(ring, index, root, child)) return;
        ring_swap(ring, index, root, child);
        root = child;
    }
}

/* Heap sort of the two parallel arrays: in place, O(n log n) whatever
 * the order; the key includes the index, so the result is the stable one. */
static void ring_sort(double *ring, int *index, int n)
{
    for (int i = n / 2 - 1; i >= 0; i--) ring_sift(ring, index, i, n);
    for (int end = n - 1; end > 0; end--) {
        ring_swap(ring, index, 0, end);
        ring_sift(ring, index, 0, end);
    }
}

void bw_marker_list_build(double length, const double *times, int count, double *ring, int *ring_index)
{
    bool sorted = true;
    for (int k = 0; k < count; k++) {
        double w = 0.0;
        if (length > 0.0) {
            double pass;
            w = bw_marker_pass_of(times[k], length, &pass);
        }
        ring[k] = w;
        ring_index[k] = k;
        if (k > 0 && ring[k - 1] > w) sorted = false;
    }
    if (!sorted) ring_sort(ring, ring_index, count);
}
