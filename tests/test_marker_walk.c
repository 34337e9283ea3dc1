/* test_marker_walk.c - the one marker walk (src/marker_walk.h, SPEC §4)
 * that playback tracks, graph states and the animator's locomotion share,
 * and the behaviour it fixed in its callers.
 *
 * A walk is recorded as a space-separated string: a marker by its name
 * (one letter), "L" for each loop boundary inside the window. Every
 * expected string is derived by hand beside it. Clip length 1 and times
 * in quarters wherever possible, so positions are exact in binary. */
#include <float.h>
#include <stdint.h>

#include "blendwerk/animator.h"
#include "blendwerk/bind.h"
#include "blendwerk/play.h"
#include "check.h"
#include "fixtures.h"
#include "graph_fixtures.h"
#include "marker_walk.h"

#define MAX_MARKERS 8

/* A clip's markers as the walk sees them: names are one letter each. */
typedef struct markers {
    const char *names; /* names[i] is marker i's name */
    double times[MAX_MARKERS], ring[MAX_MARKERS];
    int ring_index[MAX_MARKERS];
    int count;
    double length;
} markers;

/* times ascending, as clips sort them */
static markers make_markers(double length, const char *names, const double *times, int count)
{
    markers m;
    memset(&m, 0, sizeof m);
    m.names = names;
    m.length = length;
    for (int i = 0; i < count; i++) m.times[i] = times[i];
    bw_marker_list_build(length, m.times, count, m.ring, m.ring_index);
    m.count = count;
    return m;
}

typedef struct recording {
    const markers *m;
    char text[512];
    int visits;
} recording;

static void record(void *user, int marker)
{
    recording *r = (recording *)user;
    r->visits++;
    size_t len = strlen(r->text);
    if (len + 3 >= sizeof r->text) return;
    char token = marker == BW_MARKER_WRAP ? 'L' : marker >= 0 && marker < r->m->count ? r->m->names[marker] : '?';
    snprintf(r->text + len, sizeof r->text - len, "%s%c", len ? " " : "", token);
}

static recording last; /* the last walk's record, for visit counts */

/* Plan and walk one step; the visited string. */
static const char *walk(const markers *m, bool loop, double from, double to, bool backward, bool include_start,
                        bw_marker_step *out_step)
{
    memset(&last, 0, sizeof last);
    last.m = m;
    bw_marker_step s = bw_marker_plan(m->length, loop, from, to, backward, include_start);
    const bw_marker_list list = {m->times, m->ring, m->ring_index, m->count};
    bw_marker_walk(&list, &s, record, &last);
    if (out_step) *out_step = s;
    return last.text;
}

/* The standard clip: length 1, a at 0.25, b at 0.75. */
static markers ab(void)
{
    static const double t[2] = {0.25, 0.75};
    return make_markers(1.0, "ab", t, 2);
}

/* ---- the walk ---- */

static void the_ring_is_sorted_by_position_modulo_the_length(void)
{
    /* times (sorted) n -0.25, s 0, m 0.5, e 1.0, p 1.5 on length 1:
     * positions 0.75, 0, 0.5, 0, 0.5 -> ring s 0, e 0, m 0.5, p 0.5, n 0.75
     * (equal positions in index order: s(1) before e(3), m(2) before p(4)) */
    static const double t[5] = {-0.25, 0.0, 0.5, 1.0, 1.5};
    markers m = make_markers(1.0, "nsmep", t, 5);
    static const double ring[5] = {0.0, 0.0, 0.5, 0.5, 0.75};
    static const int index[5] = {1, 3, 2, 4, 0};
    for (int j = 0; j < 5; j++) {
        CHECK_NEAR(m.ring[j], ring[j], 0.0);
        CHECK_INT(m.ring_index[j], index[j]);
    }
    /* length 0: every position 0, index order */
    markers z = make_markers(0.0, "nsmep", t, 5);
    for (int j = 0; j < 5; j++) {
        CHECK_NEAR(z.ring[j], 0.0, 0.0);
        CHECK_INT(z.ring_index[j], j);
    }
}

/* 262,144 times k / 65536 over four lengths of 1 (exact binary
 * fractions, so the four passes' positions coincide): the ring is each
 * position j / 65536 four times, by index: j, j + 65536, j + 131072,
 * j + 196608. The old insertion moved each wrapped time past every later
 * position already placed: about 1.3e10 moves, minutes under
 * AddressSanitizer; the heap sort takes n log n steps. */
static void wrapped_times_are_put_in_ring_order_in_n_log_n(void)
{
    enum { PASS = 65536, N = 4 * PASS };
    double *times = malloc(sizeof(double) * N), *ring = malloc(sizeof(double) * N);
    int *index = malloc(sizeof(int) * N);
    for (int k = 0; k < N; k++) times[k] = (double)k / PASS;
    bw_marker_list_build(1.0, times, N, ring, index);
    CHECK_NEAR(ring[0], 0.0, 0.0);
    CHECK_NEAR(ring[3], 0.0, 0.0);
    CHECK_INT(index[0], 0);
    CHECK_INT(index[1], 65536);
    CHECK_INT(index[2], 131072);
    CHECK_INT(index[3], 196608);
    CHECK_NEAR(ring[4 * 100 + 2], 100.0 / PASS, 0.0); /* position 100 / 65536, the third pass's */
    CHECK_INT(index[4 * 100 + 2], 100 + 131072);
    CHECK_INT(index[N - 1], N - 1);
    CHECK_NEAR(ring[N - 1], 65535.0 / PASS, 0.0);
    bool ascending = true;
    for (int j = 1; j < N; j++)
        ascending &= ring[j - 1] < ring[j] || (ring[j - 1] == ring[j] && index[j - 1] < index[j]);
    CHECK(ascending);
    free(index);
    free(ring);
    free(times);
}

static void forward_within_a_pass_excludes_the_old_endpoint(void)
{
    markers m = ab();
    bw_marker_step s;
    /* (0.1, 0.5] holds a */
    CHECK_STR(walk(&m, true, 0.1, 0.5, false, false, &s), "a");
    CHECK_NEAR(s.to, 0.5, 0.0);
    CHECK_NEAR(s.wraps, 0.0, 0.0);
    CHECK_INT(s.walked_wraps, 0);
    /* (0.25, 0.75]: a is the old endpoint (out), b the new one (in) */
    CHECK_STR(walk(&m, true, 0.25, 0.75, false, false, NULL), "b");
    /* [0.25, 0.75] with the start included (a fresh play): a b */
    CHECK_STR(walk(&m, true, 0.25, 0.75, false, true, NULL), "a b");
    /* the same as a non-looping clip */
    CHECK_STR(walk(&m, false, 0.25, 0.75, false, false, NULL), "b");
    CHECK_STR(walk(&m, false, 0.25, 0.75, false, true, NULL), "a b");
    /* a zero step: [0.25, 0.25] holds a only when the start is included */
    CHECK_STR(walk(&m, true, 0.25, 0.25, false, true, NULL), "a");
    CHECK_STR(walk(&m, true, 0.25, 0.25, false, false, NULL), "");
}

static void forward_across_one_and_several_loops(void)
{
    markers m = ab();
    bw_marker_step s;
    /* 0.5 -> 1.3: (0.5, 1) b, the wrap, [0, 0.3] a */
    CHECK_STR(walk(&m, true, 0.5, 1.3, false, false, &s), "b L a");
    CHECK_NEAR(s.to, 0.3, 1e-12);
    CHECK_NEAR(s.wraps, 1.0, 0.0);
    CHECK_INT(s.walked_wraps, 1);
    /* 0.5 -> 3.25: b | a b | a b | a (pass 3 ends at 0.25, a included) */
    CHECK_STR(walk(&m, true, 0.5, 3.25, false, false, &s), "b L a b L a b L a");
    CHECK_NEAR(s.to, 0.25, 0.0);
    CHECK_NEAR(s.wraps, 3.0, 0.0);
    /* from any pass: 7.5 -> 8.3 is 0.5 -> 1.3 seven passes on */
    CHECK_STR(walk(&m, true, 7.5, 8.3, false, false, &s), "b L a");
    CHECK_NEAR(s.wraps, 1.0, 0.0);
}

static void reverse_visits_in_reverse_across_loops(void)
{
    markers m = ab();
    bw_marker_step s;
    /* 0.5 -> -1.75 backward: [0, 0.5) a, wrap, [0, 1) b a, wrap, the pass
     * landed in from below 1 down to 0.25 (-1.75 mod 1), included: b a */
    CHECK_STR(walk(&m, true, 0.5, -1.75, true, false, &s), "a L b a L b a");
    CHECK_NEAR(s.to, 0.25, 0.0);
    CHECK_NEAR(s.wraps, 2.0, 0.0);
    CHECK_INT(s.walked_wraps, 2);
    /* the old endpoint is excluded backward too: 0.75 -> 0.25 gives a only */
    CHECK_STR(walk(&m, true, 0.75, 0.25, true, false, NULL), "a");
    CHECK_STR(walk(&m, true, 0.75, 0.25, true, true, NULL), "b a");
    /* a `to` on the wrong side of `from` is `from`: nothing moves */
    CHECK_STR(walk(&m, true, 0.5, 0.9, true, false, &s), "");
    CHECK_NEAR(s.to, 0.5, 0.0);
}

static void a_step_of_exactly_one_length(void)
{
    markers m = ab();
    bw_marker_step s;
    /* 0.25 -> 1.25: (0.25, 1) b, wrap, [0, 0.25] a: each marker once */
    CHECK_STR(walk(&m, true, 0.25, 1.25, false, false, &s), "b L a");
    CHECK_NEAR(s.to, 0.25, 0.0);
    CHECK_NEAR(s.wraps, 1.0, 0.0);
    /* with the start included, [0.25, 1.25] holds a at both ends */
    CHECK_STR(walk(&m, true, 0.25, 1.25, false, true, NULL), "a b L a");
    /* backward 0.25 -> -0.75: [0, 0.25) nothing, wrap, [0.25, 1) b a */
    CHECK_STR(walk(&m, true, 0.25, -0.75, true, false, &s), "L b a");
    CHECK_NEAR(s.to, 0.25, 0.0);
}

static void markers_at_zero_and_at_the_length(void)
{
    /* s at 0 and e at 1 = the length: looping, e is the marker at 0, after
     * s (index order) */
    static const double t[2] = {0.0, 1.0};
    markers m = make_markers(1.0, "se", t, 2);
    bw_marker_step st;
    /* a fresh start at 0: [0, 0.5] s e */
    CHECK_STR(walk(&m, true, 0.0, 0.5, false, true, NULL), "s e");
    /* 0.5 -> 1.0 lands on the wrap: (0.5, 1) nothing, wrap, [0, 0] s e */
    CHECK_STR(walk(&m, true, 0.5, 1.0, false, false, &st), "L s e");
    CHECK_NEAR(st.to, 0.0, 0.0);
    CHECK_NEAR(st.wraps, 1.0, 0.0);
    /* backward 0.5 -> -0.25: [0, 0.5) holds both at 0, in reverse index
     * order, then the wrap, then [0.75, 1): nothing */
    CHECK_STR(walk(&m, true, 0.5, -0.25, true, false, &st), "e s L");
    CHECK_NEAR(st.to, 0.75, 0.0);
    /* starting exactly on them backward, excluded: 0 -> -0.5 crosses the
     * boundary at 0 (the old endpoint) into [0.5, 1): nothing */
    CHECK_STR(walk(&m, true, 0.0, -0.5, true, false, NULL), "L");
    /* not looping: s at 0, e at the end; [0, 0.5] s; (0.5, 1] e; held at
     * the end (1 -> 1.5 clamps to (1, 1]) nothing */
    CHECK_STR(walk(&m, false, 0.0, 0.5, false, true, NULL), "s");
    CHECK_STR(walk(&m, false, 0.5, 1.0, false, false, NULL), "e");
    CHECK_STR(walk(&m, false, 1.0, 1.5, false, false, &st), "");
    CHECK_NEAR(st.to, 1.0, 0.0);
    /* a fresh play started at the end fires its end marker once: [1, 1] */
    CHECK_STR(walk(&m, false, 1.0, 1.5, false, true, NULL), "e");
}

static void markers_at_the_same_time_keep_index_order(void)
{
    /* x and y both at 0.5: forward x y, backward y x */
    static const double t[2] = {0.5, 0.5};
    markers m = make_markers(1.0, "xy", t, 2);
    CHECK_STR(walk(&m, true, 0.4, 0.6, false, false, NULL), "x y");
    CHECK_STR(walk(&m, true, 0.6, 0.4, true, false, NULL), "y x");
    CHECK_STR(walk(&m, false, 0.4, 0.6, false, false, NULL), "x y");
    CHECK_STR(walk(&m, false, 0.6, 0.4, true, false, NULL), "y x");
    /* landing exactly on them includes both, leaving them excludes both */
    CHECK_STR(walk(&m, true, 0.25, 0.5, false, false, NULL), "x y");
    CHECK_STR(walk(&m, true, 0.5, 0.75, false, false, NULL), "");
}

static void a_non_looping_clip_is_clamped_at_both_ends(void)
{
    /* n -0.5, s 0, m 0.5, e 1, p 1.5 on a 1 s one-shot: n and p lie
     * outside [0, 1] and never fire */
    static const double t[5] = {-0.5, 0.0, 0.5, 1.0, 1.5};
    markers mk = make_markers(1.0, "nsmep", t, 5);
    bw_marker_step s;
    /* fresh 0 -> 5 clamps to [0, 1]: s m e */
    CHECK_STR(walk(&mk, false, 0.0, 5.0, false, true, &s), "s m e");
    CHECK_NEAR(s.to, 1.0, 0.0);
    CHECK_NEAR(s.wraps, 0.0, 0.0);
    /* fresh 1 -> -3 backward clamps to [0, 1]: e m s */
    CHECK_STR(walk(&mk, false, 1.0, -3.0, true, true, &s), "e m s");
    CHECK_NEAR(s.to, 0.0, 0.0);
    /* a start outside the clip is clamped too: -2 -> 0.5 is [0, 0.5] */
    CHECK_STR(walk(&mk, false, -2.0, 0.5, false, true, NULL), "s m");
    /* a zero-length one-shot: everything is at 0, a fresh step fires s */
    markers z = make_markers(0.0, "nsmep", t, 5);
    CHECK_STR(walk(&z, false, 0.0, 0.25, false, true, &s), "s");
    CHECK_NEAR(s.to, 0.0, 0.0);
    /* a zero-length looping clip fires nothing */
    CHECK_STR(walk(&z, true, 0.0, 0.25, false, true, &s), "");
    CHECK_NEAR(s.wraps, 0.0, 0.0);
}

static void at_most_four_lengths_of_travel_are_visited(void)
{
    markers m = ab();
    bw_marker_step s;
    /* 0.25 -> 4.25, exactly 4 lengths, start excluded: nothing is cut:
     * (0.25, 1) b, then a b three times, then [0, 0.25] a: each marker 4 times */
    CHECK_STR(walk(&m, true, 0.25, 4.25, false, false, &s), "b L a b L a b L a b L a");
    CHECK_NEAR(s.wraps, 4.0, 0.0);
    CHECK_INT(s.walked_wraps, 4);
    /* included, [0.25, 4.25] would hold a five times: the window
     * (0.25, 4.25] keeps 4 */
    CHECK_STR(walk(&m, true, 0.25, 4.25, false, true, NULL), "b L a b L a b L a b L a");
    /* 0.9 -> 4.1 crosses 4 boundaries in 3.2 lengths: all visited, c at
     * 0.95 in the first pass too (c, then a b c three times, then [0, 0.1]) */
    static const double t3[3] = {0.25, 0.75, 0.95};
    markers abc = make_markers(1.0, "abc", t3, 3);
    CHECK_STR(walk(&abc, true, 0.9, 4.1, false, false, &s), "c L a b c L a b c L a b c L");
    CHECK_NEAR(s.wraps, 4.0, 0.0);
    CHECK_INT(s.walked_wraps, 4);
    /* 0.9 -> 5.0 is 4.1 lengths: the window (1, 5]: pass 1 from 0
     * (excluded) a b c, three more passes, then [0, 0] of pass 5: nothing;
     * the boundary at 1 lies before the window (the caller's) */
    CHECK_STR(walk(&abc, true, 0.9, 5.0, false, false, &s), "a b c L a b c L a b c L a b c L");
    CHECK_NEAR(s.wraps, 5.0, 0.0);
    CHECK_INT(s.walked_wraps, 4);
    /* backward 0.1 -> -4.2 (4.3 lengths, 5 boundaries): the window
     * [-4.2, -0.2): pass -1 from 0.8 (excluded) down: b a, then c b a in
     * passes -2, -3 and -4, then pass -5 from below 1 down to 0.8: c */
    CHECK_STR(walk(&abc, true, 0.1, -4.2, true, false, &s), "b a L c b a L c b a L c b a L c");
    CHECK_NEAR(s.wraps, 5.0, 0.0);
    CHECK_NEAR(s.to, 0.8, 1e-12);
}

static void a_huge_step_returns_at_once_with_at_most_four_cycles(void)
{
    markers m = ab();
    bw_marker_step s;
    /* 1e9 lengths from 0.9 (1e9 + 0.9 is exact to 1.2e-7): the window
     * (1e9 - 3.1, 1e9 + 0.9]: (0.9, 1) nothing, then a b in 4 passes */
    CHECK_STR(walk(&m, true, 0.9, 0.9 + 1e9, false, true, &s), "L a b L a b L a b L a b");
    CHECK_NEAR(s.wraps, 1e9, 0.0);
    CHECK_INT(s.walked_wraps, 4);
    CHECK_NEAR(s.to, 0.9, 1e-6);
    /* 1e30 lengths: past 2^53 passes (k + 1 == k) and past the point where
     * to - 4 rounds to `to`: no position within a pass is known, nothing
     * is visited, the wraps are all the caller's */
    CHECK_STR(walk(&m, true, 0.9, 1e30, false, true, &s), "");
    CHECK(s.wraps > 9e29 && s.wraps < 1.1e30);
    CHECK_INT(s.walked_wraps, 0);
    CHECK(s.to >= 0.0 && s.to < 1.0);
    CHECK_STR(walk(&m, true, 0.1, -1e30, true, false, &s), "");
    CHECK_INT(s.walked_wraps, 0);
    /* every huge step, any sign and magnitude up to DBL_MAX: at most 4
     * cycles (8 markers + 4 wraps) */
    for (int e = 10; e <= 308; e += 7) {
        double big = pow(10.0, e);
        walk(&m, true, 0.3, 0.3 + big, false, true, &s);
        CHECK(last.visits <= 12);
        walk(&m, true, 0.3, 0.3 - big, true, true, &s);
        CHECK(last.visits <= 12);
        walk(&m, false, 0.3, big, false, true, &s);
        CHECK(last.visits <= 1); /* b only */
    }
    walk(&m, true, 0.0, DBL_MAX, false, true, &s);
    CHECK(last.visits <= 12);
}

static void nan_and_infinite_inputs_visit_nothing(void)
{
    markers m = ab();
    bw_marker_step s;
    const double bad[3] = {NAN, INFINITY, -INFINITY};
    for (int i = 0; i < 3; i++)
        for (int loop = 0; loop < 2; loop++) {
            CHECK_STR(walk(&m, loop, 0.5, bad[i], false, true, &s), "");
            CHECK(isfinite(s.to));
            CHECK_NEAR(s.wraps, 0.0, 0.0);
            CHECK_STR(walk(&m, loop, 0.5, bad[i], true, true, &s), "");
            CHECK_STR(walk(&m, loop, bad[i], 0.5, false, true, &s), "");
            CHECK(isfinite(s.to));
            CHECK_STR(walk(&m, loop, bad[i], bad[i], false, true, &s), "");
        }
    /* a NaN length: a looping clip visits nothing */
    markers n = ab();
    n.length = NAN;
    CHECK_STR(walk(&n, true, 0.0, 0.5, false, true, &s), "");
    /* no markers: only the wraps */
    markers none = make_markers(1.0, "", NULL, 0);
    CHECK_STR(walk(&none, true, 0.5, 2.25, false, true, &s), "L L");
    CHECK_NEAR(s.to, 0.25, 0.0);
}

/* ---- the callers ---- */

static bw_rig *rig;

static bw_clip *clip_with(const bw_marker_desc *marks, int count, float length)
{
    float times[2] = {0.0f, 1.0f}, values[6] = {0, 0, 0, 1, 0, 0};
    bw_track_desc t = {"root", "spine", BW_CHANNEL_TRANSLATION, BW_INTERP_EASED, 2, times, values, NULL, NULL};
    bw_clip_desc cd = {0};
    cd.tracks = &t;
    cd.track_count = 1;
    cd.markers = marks;
    cd.marker_count = count;
    cd.length = length;
    cd.loop = true;
    return fixture_clip_desc(&cd);
}

static void queue_names(void *user, const bw_signal *sig)
{
    char *text = (char *)user;
    size_t len = strlen(text);
    const char *token = sig->kind == BW_SIGNAL_MARKER ? sig->name : sig->kind == BW_SIGNAL_LOOP ? "L" : "?";
    snprintf(text + len, 256 - len, "%s%s", len ? " " : "", token);
}

/* A fix: a playback track whose step crossed 4 loop boundaries skipped
 * the pass it left, even in less than 4 lengths of travel. From 0.9, a
 * step of 3.2 (a 0.25, b 0.75, c 0.95): c in (0.9, 1), then a b c in
 * each of 3 passes with its LOOP, then the LOOP into [0, 0.1]: nothing.
 * Each marker fires 4 times; before, the first c was lost. */
static void a_track_visits_every_marker_of_a_step_within_four_lengths(void)
{
    static const bw_marker_desc abc[3] = {{"a", 0.25f}, {"b", 0.75f}, {"c", 0.95f}};
    bw_clip *clip = clip_with(abc, 3, 1.0f);
    bw_binding *binding = fixture_binding(clip, rig);
    bw_track_set_desc sd = {.rig = rig};
    bw_track_set *set = NULL;
    CHECK_INT(bw_track_set_create(&sd, &set), BW_OK);
    bw_play_desc pd = bw_play_desc_defaults(binding);
    pd.time = 0.875f;
    int h = -1;
    CHECK_INT(bw_track_set_play(set, &pd, &h), BW_OK);
    char text[256] = "";
    /* 0.875 + 3.25 = 4.125: c L a b c L a b c L a b c L (0.875 < 0.95) */
    bw_track_set_advance(set, 3.25f);
    bw_track_set_drain(set, queue_names, text);
    CHECK_STR(text, "c L a b c L a b c L a b c L");
    CHECK_NEAR(bw_track_set_time(set, h), 0.125, 0.0);
    /* 0.125 + 4.875 = 5.0 (4.875 lengths, 5 boundaries): the window
     * (1, 5]; the boundary at 1 lies before it: its LOOP first, then pass 1
     * from 0 (excluded) a b c, and a b c after each of the LOOPs into
     * passes 2, 3 and 4, then the LOOP into pass 5 at [0, 0]: nothing */
    text[0] = '\0';
    bw_track_set_advance(set, 4.875f);
    bw_track_set_drain(set, queue_names, text);
    CHECK_STR(text, "L a b c L a b c L a b c L a b c L");
    CHECK_NEAR(bw_track_set_time(set, h), 0.0, 0.0);
    /* A step whose landing time does not resolve a pass (1e30 s at speed
     * 1: to - 4 rounds to `to`): the 16 LOOPs nearest the new time, no
     * marker (before, 4 cycles of markers at an arbitrary phase). */
    CHECK_INT(bw_track_set_set_speed(set, h, 1e30f), BW_OK);
    text[0] = '\0';
    bw_track_set_advance(set, 1.0f);
    bw_track_set_drain(set, queue_names, text);
    CHECK_STR(text, "L L L L L L L L L L L L L L L L");
    double t = bw_track_set_time(set, h);
    CHECK(t >= 0.0 && t < 1.0);
    bw_track_set_destroy(set);
    bw_binding_destroy(binding);
    bw_clip_destroy(clip);
}

/* A fix: the animator's locomotion walked markers at their authored times,
 * so on a looping clip a marker before 0 was missed in the pass it lies in
 * and one at the length fired before the marker at 0. Clip of length 1
 * with n at -0.25 (= 0.75), s at 0 and e at 1 (= 0, after s); played at
 * rate 1 (1.5 m/s authored and played) in steps of 0.25 from 0 (the
 * locomotion's start is excluded): (0, 0.25] and (0.25, 0.5] nothing,
 * (0.5, 0.75] n, (0.75, 1] s e (after the wrap), and again. */
static void the_animator_takes_looping_marker_times_modulo_the_length(void)
{
    static const bw_marker_desc nse[3] = {{"n", -0.25f}, {"s", 0.0f}, {"e", 1.0f}};
    bw_clip *clip = clip_with(nse, 3, 1.0f);
    static const bw_clip *list[1];
    static const bw_locomotion_entry loco[1] = {{0, 1.5f}};
    list[0] = clip;
    bw_animator_desc d = {0};
    d.rig = rig;
    d.clips = list;
    d.clip_count = 1;
    d.locomotion = loco;
    d.locomotion_count = 1;
    d.blink.disabled = true;
    bw_animator *a = NULL;
    CHECK_INT(bw_animator_create(&d, &a, NULL), BW_OK);
    bw_character_state s = {.velocity = {1.5f, 0.0f, 0.0f}};
    static const char *const expect[8] = {"", "", "n", "s e", "", "", "n", "s e"};
    for (int k = 0; k < 8 && a; k++) {
        bw_animator_update(a, 0.25f, &s, NULL);
        int n = 0;
        const bw_animator_event *ev = bw_animator_events(a, &n);
        char text[64] = "";
        for (int i = 0; i < n; i++)
            if (ev[i].kind == BW_ANIMATOR_EVENT_MARKER) {
                size_t len = strlen(text);
                snprintf(text + len, sizeof text - len, "%s%s", len ? " " : "", ev[i].name);
            }
        CHECK_STR(text, expect[k]);
    }
    bw_animator_destroy(a);
    bw_clip_destroy(clip);
}

static void count_markers(void *user, const bw_graph_event *e)
{
    if (e->kind == BW_GRAPH_EVENT_MARKER) (*(int *)user)++;
}

/* A fix: a graph state's fresh first advance of exactly 4 cycles included
 * its start, so a marker there fired 5 times ([0, 4] holds 0, 1, 2, 3, 4);
 * the window (0, 4] holds it 4 times. A 1 s looping clip with s at 0:
 * update(4) from the entry gives 4 markers; then 4 more seconds, not
 * fresh, (4, 8]: 4 again; a fresh start advanced 3 s, [0, 3]: 4 (0, 1, 2, 3). */
static void a_fresh_graph_state_fires_at_most_four_cycles(void)
{
    static const bw_marker_desc s0[1] = {{"s", 0.0f}};
    bw_clip *clip = clip_with(s0, 1, 1.0f);
    bw_binding *binding = fixture_binding(clip, rig);
    const bw_clip *clip_list[1] = {clip};
    for (int k = 0; k < 2; k++) {
        bw_graph_state_desc states[1] = {{.name = "loop", .clip = 0}};
        bw_graph_layer_desc layers[1] = {graph_fixture_layer("base", "loop", states, 1, NULL, 0)};
        bw_graph_desc d = {0};
        d.layers = layers;
        d.layer_count = 1;
        d.clips = clip_list;
        d.clip_count = 1;
        bw_graph *g = graph_fixture_compile(&d);
        bw_graph_cursor *c = graph_fixture_cursor(g, rig, &binding, 1, NULL);
        int n = 0;
        bw_graph_cursor_update(c, k == 0 ? 4.0f : 3.0f);
        bw_graph_cursor_drain(c, count_markers, &n);
        CHECK_INT(n, 4);
        if (k == 0) {
            n = 0;
            bw_graph_cursor_update(c, 4.0f);
            bw_graph_cursor_drain(c, count_markers, &n);
            CHECK_INT(n, 4);
        }
        bw_graph_cursor_destroy(c);
        bw_graph_destroy(g);
    }
    bw_binding_destroy(binding);
    bw_clip_destroy(clip);
}

int main(void)
{
    static const char *const names[2] = {"root", "spine"};
    static const int parents[2] = {-1, 0};
    rig = fixture_rig(names, parents, 2);
    RUN(the_ring_is_sorted_by_position_modulo_the_length);
    RUN(forward_within_a_pass_excludes_the_old_endpoint);
    RUN(forward_across_one_and_several_loops);
    RUN(reverse_visits_in_reverse_across_loops);
    RUN(a_step_of_exactly_one_length);
    RUN(markers_at_zero_and_at_the_length);
    RUN(markers_at_the_same_time_keep_index_order);
    RUN(a_non_looping_clip_is_clamped_at_both_ends);
    RUN(at_most_four_lengths_of_travel_are_visited);
    RUN(a_huge_step_returns_at_once_with_at_most_four_cycles);
    RUN(nan_and_infinite_inputs_visit_nothing);
    RUN(a_track_visits_every_marker_of_a_step_within_four_lengths);
    RUN(the_animator_takes_looping_marker_times_modulo_the_length);
    RUN(a_fresh_graph_state_fires_at_most_four_cycles);
    RUN(wrapped_times_are_put_in_ring_order_in_n_log_n);
    bw_rig_destroy(rig);
    return check_summary();
}
