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

void bw_marker_list_build(double length, const double *times, int count, double *ring, int *ring_index)
{
    for (int k = 0; k < count; k++) {
        double w = 0.0;
        if (length > 0.0) {
            double pass;
            w = bw_marker_pass_of(times[k], length, &pass);
        }
        /* stable insertion: equal positions keep ascending index */
        int j = k;
        while (j > 0 && ring[j - 1] > w) {
            ring[j] = ring[j - 1];
            ring_index[j] = ring_index[j - 1];
            j--;
        }
        ring[j] = w;
        ring_index[j] = k;
    }
}
