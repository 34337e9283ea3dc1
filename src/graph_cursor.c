/* graph_cursor.c - one character's instance of a compiled graph: the
 * update of SPEC §12.2 (advance, select, fire), travel, events, and the
 * evaluation of layer poses through the fused sample-and-mix kernel.
 * Everything is allocated in bw_graph_cursor_create; nothing after it
 * allocates or compares a string. */
#include <stdio.h>

#include "blendwerk/mix.h"
#include "blendwerk/sample.h"
#include "common.h"
#include "graph_internal.h"
#include "mix_internal.h"
#include "pose_internal.h"

/* Leaf caches per layer: the current state, the live source, and the
 * state that fired away in this update (root motion still reads it). */
#define SLOT_CUR 0
#define SLOT_SRC 1
#define SLOT_GONE 2
#define SLOTS 3
/* A steady layer whose carried pose differs from the old one by more than
 * this (any channel) fades from the old pose at a hot reload. */
#define CARRY_TOLERANCE 1e-5f

/* One clip-state play: a state and its accumulated normalized progress. */
typedef struct play {
    int state;  /* layer-local, -1 = none (a frozen source) */
    double p;   /* accumulated progress; non-looping saturates at 1 */
    bool fresh; /* entered and not yet advanced: the first advance includes the start */
} play;

/* What one advance did (for the exit-time gate and markers). */
typedef struct step {
    double old_p, new_p;
    bool fresh;  /* the advance started at a freshly entered start */
    int clip;    /* the dominant leaf's clip (markers come from it), -1 none */
    double rate; /* its signed rate (state rate × leaf rate): < 0 plays backwards */
} step;

/* A play's last advance, for root motion. */
typedef struct moved {
    int state;
    double old_p, new_p;
    float weight;
} moved;

/* How a transition in flight fades: from its transition at fire, kept or
 * taken from the new graph by a reload, or a reload's own linear fade. */
typedef struct fade_shape {
    float duration;
    bw_ease_style curve;
    bw_ease_dir curve_dir;
    bw_graph_mode mode; /* as authored (freeze for a carry-over fade) */
    bool interruptible; /* selection runs while it fades */
} fade_shape;

static fade_shape shape_of(const g_transition *tr)
{
    return (fade_shape){tr->duration, tr->curve, tr->curve_dir, tr->mode, tr->interruptible};
}

typedef struct layer_rt {
    play cur;
    /* the transition in flight */
    bool fading;
    int tr;   /* layer-local transition index */
    int from; /* state current when it fired */
    /* seconds since it fired; double like p, so a fade of duration D at dt
       ends on the update whose advance reaches D (60 × 1/60.f >= 1) */
    double timer;
    fade_shape shape; /* duration, curve, mode, interruptibility */
    bool frozen;      /* source is `snapshot` */
    play src;         /* live source (state -1 when frozen) */
    float src_speed;
    /* travel */
    int *route; /* max_states transition indices */
    int route_len, route_pos;
    /* layer weight and its fade (its elapsed time in double, as the timer) */
    float weight, w_from, w_to, w_duration;
    double w_elapsed;
    /* poses. The layer's own pose as last evaluated (what a freeze takes,
       SPEC §12.2) is `last`: LAST_OWN, in `own`; LAST_SNAPSHOT, equal to
       `snapshot`; LAST_MIX, evaluated into a shared bw_graph_scratch and
       gone from there, so mixed again from `rec` (its plays exactly as that
       evaluation mixed them: bit for bit the same pose) when asked for. */
    bw_clip_contribution *rec; /* 2 × max_leaves: the last evaluation's plays */
    int rec_n;
    bool rec_frozen; /* the last evaluation mixed `snapshot` at 1 − rec_w */
    float rec_w;
    unsigned char last; /* LAST_* */
    /* the poses' records live in the cursor's cold part (carve_cursor): a
       steady frame touches none of them, only these pointers */
    bw_pose *own;                /* the layer's pose when it is evaluated in the cursor */
    bw_pose *evaluated;          /* `own` or a scratch's pose: this evaluation's, while it composes */
    bw_pose *snapshot;           /* frozen source */
    bw_pose *ref, *ref_snapshot; /* additive layers: the plays' references, mixed alike */
    int ref_view_id;           /* what the layer's delta is measured from (ref_view): one
                                  baked reference pose when every leaf shares it, its id;
                                  -1: `ref` */
    /* per slot (SLOT_*): the leaves of leaf_state at parameter generation
       leaf_gen, so a blend tree is evaluated once per play and update */
    bw_blend_leaf *leaves[SLOTS];
    int leaf_n[SLOTS], leaf_state[SLOTS];
    unsigned leaf_gen[SLOTS];
    moved moved[2]; /* the last update's advances (root motion) */
    int moved_count;
    step cur_step, src_step; /* this update's advances (states cur_state, src_state; -1 none) */
    int cur_state, src_state;
    float *mask;         /* joint_count weights, NULL = every joint at 1 */
    float *masked;       /* joint_count: pose coverage × mask, for composing */
    bw_pose masked_view; /* the evaluated pose's transforms and curves with `masked`
                            coverage (borrows both, set by each evaluation; never
                            initialised or freed as a pose) */
} layer_rt;

enum { LAST_OWN, LAST_SNAPSHOT, LAST_MIX };

struct bw_graph_cursor {
    const bw_graph *g;
    const bw_rig *rig;
    bw_allocator alloc;
    int joint_count, curve_count;
    const bw_binding **bindings;    /* clip_count */
    float *params;                  /* param_count */
    double *age;                    /* param_count: trigger age since fire */
    layer_rt *layers;               /* layer_count */
    int *routes;                    /* layer_count × max_states */
    int *bfs;                       /* 3 × max_states: queue, parent, edge */
    bw_contribution *contributions; /* layer_count */
    bw_blend_leaf *leaves;          /* max_leaves: one state's leaves */
    float *tree_scratch;            /* max_tree_scratch */
    bw_contribution *ref_buf;       /* 2 × max_leaves: their references (additive layers) */
    int *ref_ids;                   /* 2 × max_leaves: which baked reference each is */
    bw_root_play *root_buf;         /* 2 × max_leaves: the first layer's plays (root motion) */
    bw_pose *refs;                  /* ref_count: the graph's references, baked at creation */
    const bw_pose *ref_use;         /* what evaluation reads: `refs`, or the graph's shared set
                                       `share` when that is bitwise equal to them */
    g_ref_share *share;             /* held (one of its users), or NULL */
    bw_blend_leaf *leaf_store;      /* layer_count × 2 × max_leaves: SLOT_CUR, SLOT_SRC */
    bw_blend_leaf *gone_store;      /* layer_count × max_leaves: SLOT_GONE (written by a fire) */
    unsigned gen;                   /* parameter generation: bumped when a float / bool changes */
    int *sync_lead;                 /* state_count: a group's leading play this update, -1 */
    float *sync_w;                  /* state_count: its weight */
    int *sync_groups;               /* 2 × layer_count: the groups seen this update */
    bw_graph_cursor_counters counters;
    bw_mixer *mixer;
    bw_pose scratch; /* destination alone, for a frozen fade */
    bw_graph_event *events;
    int event_capacity, event_count, dropped;
    bool started;
    bool shared_last; /* the last evaluation used a bw_graph_scratch (own poses untouched) */
    void *block; /* the one allocation everything above lives in (but the mixer and a shared set) */
    size_t block_size;
    size_t hot_size;  /* bytes from c to the events: what every frame reads first */
};

/* ---- the one mixer the cursor makes ---- */
static bw_result make_mixer(const bw_rig *rig, int max_contributions, const bw_allocator *a, bw_mixer **out)
{
    bw_mixer_desc desc = {.rig = rig, .max_contributions = max_contributions};
    if (a) desc.allocator = *a;
    return bw_mixer_create(&desc, out);
}

/* ---- small helpers ---- */

static const g_layer *layer_of(const bw_graph_cursor *c, int l) { return &c->g->layers[l]; }

/* What layer R's delta is measured from: its baked reference ref_view_id
 * in the set the cursor reads now, or its own mixed `ref`. */
static const bw_pose *ref_view(const bw_graph_cursor *c, const layer_rt *R)
{
    return R->ref_view_id >= 0 ? &c->ref_use[R->ref_view_id] : R->ref;
}
static const g_state *state_of(const bw_graph_cursor *c, int l, int s)
{
    return &c->g->states[c->g->layers[l].state_first + s];
}
static const g_transition *transition_of(const bw_graph_cursor *c, int l, int t)
{
    return &c->g->transitions[c->g->layers[l].transition_first + t];
}

static double state_rate(const bw_graph_cursor *c, const g_state *s)
{
    double r = s->speed;
    if (s->speed_param >= 0) r *= c->params[s->speed_param];
    return isfinite(r) ? r : 0.0;
}

static void push_event(bw_graph_cursor *c, bw_graph_event e)
{
    if (c->event_count < c->event_capacity) c->events[c->event_count++] = e;
    else c->dropped++;
}

static void push_state_event(bw_graph_cursor *c, bw_graph_event_kind kind, int l, int s)
{
    push_event(c, (bw_graph_event){kind, l, s, -1, -1, state_of(c, l, s)->name, 0.0f});
}

static float fade_weight(const bw_graph_cursor *c, int l)
{
    const layer_rt *R = &c->layers[l];
    float u = R->shape.duration > 0.0f ? (float)(R->timer / R->shape.duration) : 1.0f;
    return bw_ease(R->shape.curve, R->shape.curve_dir, u);
}

static float layer_weight(const bw_graph_cursor *c, int l)
{
    int p = layer_of(c, l)->weight_param;
    if (p < 0) return c->layers[l].weight;
    float w = c->params[p];
    return w > 0.0f ? w : 0.0f; /* NaN fails the comparison */
}

/* The leaves a state plays now, into c->leaves (valid until the next
 * call): one for a clip state; a blend state's from its compiled tree at
 * the cursor's parameters (the cursor keeps the state's phase itself).
 * Returns the count (0 when the tree refuses, which its compilation rules
 * out). */
static int state_leaves(bw_graph_cursor *c, const g_state *s, bw_blend_leaf *out)
{
    if (!s->blend) {
        out[0] = (bw_blend_leaf){-1, s->clip, 1.0f, 1.0f, c->g->clips[s->clip].length};
        return 1;
    }
    int n = 0;
    c->counters.tree_evaluations++;
    if (bw_blend_tree_evaluate(s->tree, c->params, c->tree_scratch, c->g->max_tree_scratch, out, c->g->max_leaves,
                               &n) != BW_OK)
        return 0;
    return n;
}

/* The leaves of state `state` of layer l through the layer's cache slot:
 * evaluated only when the slot holds another state or a parameter changed
 * since (c->gen counts changes). */
static const bw_blend_leaf *play_leaves(bw_graph_cursor *c, int l, int slot, int state, int *n)
{
    layer_rt *R = &c->layers[l];
    if (R->leaf_state[slot] != state || R->leaf_gen[slot] != c->gen) {
        R->leaf_n[slot] = state_leaves(c, state_of(c, l, state), R->leaves[slot]);
        R->leaf_state[slot] = state;
        R->leaf_gen[slot] = c->gen;
    }
    *n = R->leaf_n[slot];
    return R->leaves[slot];
}

/* Copy cache slot `from` into `to` (a play changing roles in fire). */
static void move_leaves(bw_graph_cursor *c, int l, int from, int to)
{
    layer_rt *R = &c->layers[l];
    if (R->leaf_n[from] > 0) memcpy(R->leaves[to], R->leaves[from], (size_t)R->leaf_n[from] * sizeof *R->leaves[to]);
    R->leaf_n[to] = R->leaf_n[from];
    R->leaf_state[to] = R->leaf_state[from];
    R->leaf_gen[to] = R->leaf_gen[from];
}

/* Clip time of a leaf at the state's progress p: looping states wrap (a
 * negative signed rate plays the pass backwards), non-looping ones clamp. */
static float leaf_time(const g_state *s, const bw_blend_leaf *leaf, double p, double state_rate)
{
    double len = leaf->length;
    if (!(len > 0.0)) return 0.0f;
    double f = s->loop ? p - floor(p) : (p < 0.0 ? 0.0 : p > 1.0 ? 1.0 : p);
    if (state_rate * leaf->rate < 0.0) f = 1.0 - f;
    double t = f * len;
    if (s->loop && t >= len) t -= len;
    return (float)t;
}

/* ---- advance ---- */

/* Advance a play by dt against the state's cycle (SPEC §6: the weighted
 * mean of the leaves' length / |rate|, divided by |state rate|). */
static step advance_play(bw_graph_cursor *c, int l, int slot, play *pl, double dt)
{
    const g_state *s = state_of(c, l, pl->state);
    double rate = state_rate(c, s);
    step st = {pl->p, pl->p, pl->fresh, -1, rate};
    int n;
    const bw_blend_leaf *leaves = play_leaves(c, l, slot, pl->state, &n);
    int dominant = -1;
    for (int i = 0; i < n; i++)
        if (dominant < 0 || leaves[i].weight > leaves[dominant].weight) dominant = i;
    if (dominant >= 0) {
        st.clip = leaves[dominant].clip;
        st.rate = rate * leaves[dominant].rate;
    }
    float cycle = bw_blend_cycle_duration(leaves, n);
    if (dt > 0.0) {
        if (cycle > 0.0f) pl->p += dt * fabs(rate) / cycle;
        else if (!s->loop) pl->p = 1.0; /* a zero-length one-shot is over at once */
        if (!s->loop && pl->p > 1.0) pl->p = 1.0;
        pl->fresh = false;
    }
    st.new_p = pl->p;
    return st;
}

/* The walk's visitor: a crossed marker of one state's dominant clip as an
 * event (loop boundaries are not events). */
typedef struct marker_sink {
    bw_graph_cursor *c;
    int layer, state;
    const g_clip *clip;
} marker_sink;

static void push_crossed(void *user, int k)
{
    const marker_sink *sink = (const marker_sink *)user;
    if (k == BW_MARKER_WRAP) return;
    const bw_graph *g = sink->c->g;
    const g_marker *m = &g->markers[sink->clip->marker_first + k];
    push_event(sink->c, (bw_graph_event){BW_GRAPH_EVENT_MARKER, sink->layer, sink->state, (int)(sink->clip - g->clips),
                                         k, m->name, m->time});
}

/* Queue the markers one advance of state s crossed, in the order of travel
 * (marker_walk.h). Progress in "progress seconds" p × length grows for
 * either sign of the rate; a negative rate runs the clip backwards, from
 * clip time -p × length looping (the time of progress x is (−x) modulo the
 * length) and length − p × length not looping. */
static void emit_markers(bw_graph_cursor *c, int l, int s, step st)
{
    if (st.clip < 0) return;
    const g_clip *clip = &c->g->clips[st.clip];
    const int n = clip->marker_count, first = clip->marker_first;
    if (n == 0) return;
    const bool loop = state_of(c, l, s)->loop, rev = st.rate < 0.0;
    double len = clip->length;
    double from = st.old_p * len, to = st.new_p * len;
    if (rev) {
        from = loop ? -from : len - from;
        to = loop ? -to : len - to;
    }
    bw_marker_step ms = bw_marker_plan(len, loop, from, to, rev, st.fresh);
    const bw_marker_list list = {&c->g->marker_times[first], &c->g->marker_ring[first], &c->g->loop_order[first], n};
    marker_sink sink = {c, l, s, clip};
    bw_marker_walk(&list, &ms, push_crossed, &sink);
}

/* ---- select ---- */

static bool gate_open(const g_transition *tr, const g_state *s, step st)
{
    if (!tr->has_exit_time) return true;
    double e = tr->exit_time;
    if (!s->loop) return st.new_p >= e;
    if (e > 1.0) return st.old_p < e && e <= st.new_p;
    double n = floor(st.old_p - e) + 1.0; /* the first n with n + e > old p */
    if (n < 0.0) n = 0.0;
    return st.old_p < n + e && n + e <= st.new_p;
}

static bool conditions_hold(const bw_graph_cursor *c, const g_transition *tr)
{
    for (int i = 0; i < tr->cond_count; i++) {
        const g_condition *k = &c->g->conditions[tr->cond_first + i];
        bool ok;
        switch (k->kind) {
        case BW_GRAPH_COND_COMPARE: ok = bw_graph_compare(k->op, c->params[k->param], k->value); break;
        case BW_GRAPH_COND_TRUE: ok = c->params[k->param] != 0.0f; break;
        case BW_GRAPH_COND_NOT: ok = c->params[k->param] == 0.0f; break;
        default: ok = k->fn(k->user, c->params, c->g->param_count); break;
        }
        if (!ok) return false;
    }
    return true;
}

/* The transition to fire this update, or -1. */
static int select_transition(bw_graph_cursor *c, int l, step st)
{
    layer_rt *R = &c->layers[l];
    const g_layer *L = layer_of(c, l);
    const g_state *cs = state_of(c, l, R->cur.state);
    if (R->route_pos < R->route_len) {
        int t = R->route[R->route_pos];
        const g_transition *tr = transition_of(c, l, t);
        if ((tr->from < 0 || tr->from == R->cur.state) && gate_open(tr, cs, st)) {
            R->route_pos++;
            if (R->route_pos == R->route_len) R->route_len = R->route_pos = 0;
            return t;
        }
        return -1;
    }
    for (int pass = 0; pass < 2; pass++)
        for (int t = 0; t < L->transition_count; t++) {
            const g_transition *tr = transition_of(c, l, t);
            if (pass == 0 ? tr->from >= 0 || (tr->to == R->cur.state && !tr->to_self) : tr->from != R->cur.state)
                continue;
            if (gate_open(tr, cs, st) && conditions_hold(c, tr)) return t;
        }
    return -1;
}

/* ---- fire ---- */

static const bw_pose *last_pose(bw_graph_cursor *worker, const layer_rt *R, bw_pose *tmp);

static void fire(bw_graph_cursor *c, int l, int t)
{
    layer_rt *R = &c->layers[l];
    const g_transition *tr = transition_of(c, l, t);
    for (int i = 0; i < tr->cond_count; i++) {
        const g_condition *k = &c->g->conditions[tr->cond_first + i];
        if (k->param >= 0 && c->g->params[k->param].kind == BW_GRAPH_PARAM_TRIGGER && c->params[k->param] != 0.0f) {
            c->params[k->param] = 0.0f;
            c->gen++;
        }
    }
    int from = R->cur.state;
    move_leaves(c, l, SLOT_CUR, SLOT_GONE);
    if (tr->duration > 0.0f) {
        R->frozen = R->fading || tr->mode == BW_GRAPH_FREEZE;
        if (R->frozen) {
            const bw_pose *last = last_pose(c, R, R->own);
            if (last != R->snapshot) bw_pose_copy(R->snapshot, last);
            R->last = LAST_SNAPSHOT;
            if (layer_of(c, l)->additive) bw_pose_copy(R->ref_snapshot, ref_view(c, R));
            R->src = (play){-1, 0.0, false};
        } else {
            R->src = R->cur;
            R->src.fresh = false;
            R->src_speed = tr->source_speed;
            move_leaves(c, l, SLOT_CUR, SLOT_SRC);
        }
        R->fading = true;
        R->tr = t;
        R->from = from;
        R->timer = 0.0;
        R->shape = shape_of(tr);
    } else {
        R->fading = false;
    }
    R->cur = (play){tr->to, state_of(c, l, tr->to)->offset, true};
    push_state_event(c, BW_GRAPH_EVENT_EXIT, l, from);
    push_state_event(c, BW_GRAPH_EVENT_ENTER, l, tr->to);
}

/* ---- update ---- */

/* 1. Advance a layer's plays, transition timer and weight fade; the steps
 * wait in the layer for the sync pass and finish_layer. */
static void advance_layer(bw_graph_cursor *c, int l, double dt)
{
    layer_rt *R = &c->layers[l];
    R->cur_state = R->cur.state;
    R->cur_step = advance_play(c, l, SLOT_CUR, &R->cur, dt);
    R->src_state = R->fading ? R->src.state : -1;
    if (R->src_state >= 0) R->src_step = advance_play(c, l, SLOT_SRC, &R->src, dt * R->src_speed);
    if (R->fading) {
        R->timer += dt;
        if (R->timer >= R->shape.duration) {
            R->fading = false;
            R->src_state = -1;
        }
    }
    if (R->w_elapsed < R->w_duration) {
        R->w_elapsed += dt;
        double u = R->w_elapsed >= R->w_duration ? 1.0 : R->w_elapsed / R->w_duration;
        R->weight = (float)(R->w_from + ((double)R->w_to - R->w_from) * u);
    }
}

/* The advance's markers, then 2. select and 3. fire. */
static void finish_layer(bw_graph_cursor *c, int l, double dt)
{
    layer_rt *R = &c->layers[l];
    step cur = R->cur_step, src = R->src_step;
    int cur_state = R->cur_state, src_state = R->src_state;
    if (dt > 0.0) {
        if (!R->fading || R->timer >= 0.5 * R->shape.duration) emit_markers(c, l, cur_state, cur);
        else if (src_state >= 0) emit_markers(c, l, src_state, src);
    }
    int t = -1;
    if (!R->fading || R->shape.interruptible) t = select_transition(c, l, cur);
    if (t >= 0) fire(c, l, t);
    /* What moved, at the weights the pose shows (root motion): the state
     * that advanced and then fired away counts in full; during a fade the
     * live source and the destination by the fade weights. */
    R->moved_count = 0;
    if (t >= 0 || !R->fading) {
        R->moved[R->moved_count++] = (moved){cur_state, cur.old_p, cur.new_p, 1.0f};
    } else {
        float w = fade_weight(c, l);
        if (src_state >= 0) R->moved[R->moved_count++] = (moved){src_state, src.old_p, src.new_p, 1.0f - w};
        R->moved[R->moved_count++] = (moved){cur_state, cur.old_p, cur.new_p, w};
    }
}

/* ---- sync groups ---- */

/* Live play k of the cursor (layer k / 2; k even: the current state, odd:
 * the live source) after this update's advance, with its group and the
 * weight it is shown with. False when there is no such live play. */
static bool live_play(bw_graph_cursor *c, int k, play **pl, step **st, int *group, float *weight)
{
    int l = k / 2;
    layer_rt *R = &c->layers[l];
    bool source = k % 2 == 1;
    int s = source ? R->src_state : R->cur_state;
    if (s < 0 || (source && R->src_speed == 0.0f)) return false; /* a source a reload froze stands still */
    *group = state_of(c, l, s)->sync;
    if (*group < 0) return false;
    float w = R->fading ? fade_weight(c, l) : 1.0f;
    *weight = (source ? 1.0f - w : w) * layer_weight(c, l);
    *pl = source ? &R->src : &R->cur;
    *st = source ? &R->src_step : &R->cur_step;
    return true;
}

/* Position of marker order[i] of a clip as a phase in [0, 1), divided in
 * float as the clip length is (the ring position of a time in [0, length)
 * is that float time itself). */
static double marker_phase(const bw_graph *g, const g_clip *clip, int i)
{
    return (float)g->marker_ring[clip->marker_first + i] / clip->length;
}

/* In loop order, the marker of `follower` that corresponds to marker
 * order[i] of `leader`: the same name, the same occurrence of that name
 * (modulo how often the follower has it; both counted at compile). -1
 * when the follower lacks it. */
static int corresponding_marker(const bw_graph *g, const g_clip *leader, int i, const g_clip *follower)
{
    const g_marker *lm = &g->markers[leader->marker_first + g->loop_order[leader->marker_first + i]];
    const int *fo = &g->loop_order[follower->marker_first];
    int want = -1;
    for (int j = 0; j < follower->marker_count; j++) {
        const g_marker *fm = &g->markers[follower->marker_first + fo[j]];
        if (fm->name_id != lm->name_id) continue;
        if (want < 0) want = lm->loop_occ % fm->name_count;
        if (fm->loop_occ == want) return j;
    }
    return -1;
}

/* Marker i's phase along a play's progress: its clip phase, or for a
 * play that runs its clip backwards (p grows while clip time falls from
 * the end) 1 − that, in [0, 1). */
static double progress_phase(const bw_graph *g, const g_clip *clip, int i, bool backwards)
{
    double m = marker_phase(g, clip, i);
    return backwards && m > 0.0 ? 1.0 - m : m;
}

/* The follower's phase for the leader's phase phi (SPEC §7), both phases
 * of progress: between the markers the leader last passed and passes next
 * (in its playing direction) and the follower's markers of the same names,
 * progress maps linearly, so a play running its clip backwards (speed < 0)
 * keeps its feet with one running forwards; without shared markers, phi
 * itself. */
static double map_phase(const bw_graph *g, int leader_clip, bool leader_back, int follower_clip, bool follower_back,
                        double phi)
{
    if (leader_clip < 0 || follower_clip < 0) return phi;
    if (leader_clip == follower_clip && leader_back == follower_back) return phi;
    const g_clip *L = &g->clips[leader_clip], *F = &g->clips[follower_clip];
    int n = L->marker_count;
    if (n == 0 || F->marker_count == 0 || !(L->length > 0.0f) || !(F->length > 0.0f)) return phi;
    /* a: the leader's marker at or before phi along its progress (else the
     * last one, cyclically); b: the next one along it (else the first) */
    int a = -1, b = -1, first = 0, last = 0;
    double ma = 0.0, mb = 0.0, mfirst = 2.0, mlast = -1.0;
    for (int i = 0; i < n; i++) {
        double m = progress_phase(g, L, i, leader_back);
        if (m <= phi && m >= ma) a = i, ma = m;
        if (m < mfirst) first = i, mfirst = m;
        if (m >= mlast) last = i, mlast = m;
    }
    if (a < 0) a = last, ma = mlast;
    for (int i = 0; i < n; i++) {
        double m = progress_phase(g, L, i, leader_back);
        if (m > ma && (b < 0 || m < mb)) b = i, mb = m;
    }
    if (b < 0) b = first, mb = mfirst;
    int fa = corresponding_marker(g, L, a, F), fb = corresponding_marker(g, L, b, F);
    if (fa < 0 || fb < 0) return phi;
    double span = mb - ma, into = phi - ma;
    double fpa = progress_phase(g, F, fa, follower_back);
    double fspan = progress_phase(g, F, fb, follower_back) - fpa;
    if (span <= 0.0) span += 1.0;
    if (into < 0.0) into += 1.0;
    if (fspan <= 0.0) fspan += 1.0;
    double r = fpa + fspan * (into / span);
    return r - floor(r);
}

static double phase_of(const g_state *s, double p) { return s->loop ? p - floor(p) : (p < 1.0 ? p : 1.0); }

/* Where a follower whose advance ran from o to n lands on phase f of its
 * state (SPEC §7; docs/graphs.md "Sync groups"): looping, the pass of f
 * nearest to n but never before o (then the first one at or after o);
 * not looping, f but never before o. */
static double synced_position(const g_state *s, double o, double n, double f)
{
    double p = s->loop ? floor(n - f + 0.5) + f : f;
    if (p < o && s->loop) p = ceil(o - f) + f;
    return p < o ? o : p; /* (a rounding below o) */
}

/* Per group, the most heavily weighted live play leads (the first on a
 * tie); every other live play of the group adopts the leader's phase
 * (synced_position) and never moves backwards. Its step, which markers,
 * exit-time gates and root motion read, ends at the adopted position and
 * starts where the play was (contiguous with its last update: nothing is
 * crossed twice or skipped), but a fresh follower (its first advance, a
 * join) counts at most its own advance: the jump onto the group's phase is
 * not played, so the skipped span fires no marker, opens no gate and
 * carries no root travel, and the start counts only when the step still
 * reaches it. Adjusts the plays and their steps before markers, gates and
 * root motion read them. Two passes over the plays: leaders, followers. */
static void sync_plays(bw_graph_cursor *c)
{
    int plays = 2 * c->g->layer_count, groups = 0;
    play *pl;
    step *st;
    int group;
    float w;
    for (int k = 0; k < plays; k++) {
        if (!live_play(c, k, &pl, &st, &group, &w)) continue;
        if (c->sync_lead[group] < 0) c->sync_groups[groups++] = group;
        else if (!(w > c->sync_w[group])) continue;
        c->sync_lead[group] = k;
        c->sync_w[group] = w;
    }
    for (int k = 0; k < plays; k++) {
        if (!live_play(c, k, &pl, &st, &group, &w) || c->sync_lead[group] == k) continue;
        play *lead_pl;
        step *lead_st;
        int leader = c->sync_lead[group];
        live_play(c, leader, &lead_pl, &lead_st, &group, &w);
        double phi = phase_of(state_of(c, leader / 2, lead_pl->state), lead_pl->p);
        const g_state *fs = state_of(c, k / 2, pl->state);
        double f = map_phase(c->g, lead_st->clip, lead_st->rate < 0.0, st->clip, st->rate < 0.0, phi);
        double own = st->new_p - st->old_p;
        pl->p = st->new_p = synced_position(fs, st->old_p, st->new_p, f);
        if (st->fresh && st->new_p - own > st->old_p) {
            st->old_p = st->new_p - own;
            st->fresh = false;
        }
    }
    for (int i = 0; i < groups; i++) c->sync_lead[c->sync_groups[i]] = -1;
}

/* Ask the cache for a pose's transforms ahead of use (one hint per 64-byte
 * line; `write` when the pose is about to be overwritten). Only a hint: no
 * effect on any value. */
static void prefetch_pose(const bw_pose *p, bool write)
{
    bw_prefetch_lines(p->joints, (size_t)p->joint_count * sizeof *p->joints, write);
}

bw_graph_cursor_hint bw_graph_cursor_hint_of(const bw_graph_cursor *c)
{
    bw_graph_cursor_hint h = {0};
    if (!c) return h;
    /* a steady frame's runs: one state's leaves per layer, or the layers
       composed (a live fade's runs, twice the leaves, are rarer) */
    int steady = c->g->max_leaves > c->g->layer_count ? c->g->max_leaves : c->g->layer_count;
    h = (bw_graph_cursor_hint){c, c->mixer, c->hot_size, bw_mixer_hot_bytes_for(c->mixer, steady)};
    return h;
}

void bw_graph_cursor_prefetch(const bw_graph_cursor_hint *h)
{
    bw_prefetch_lines(h->cursor, h->cursor_bytes, true);
    bw_prefetch_lines(h->mixer, h->mixer_bytes, true);
}

void bw_graph_cursor_update(bw_graph_cursor *c, float dt)
{
    if (!c) return;
    double d = isfinite(dt) && dt > 0.0f ? (double)dt : 0.0;
    const bw_graph *g = c->g;
    /* With a crowd, a cursor's poses are cold by its next frame: the
     * state-machine work below hides the fetch of the baked references
     * (read by the additive layers) and of the layer poses the evaluation
     * clears and writes next. */
    for (int i = 0; i < g->ref_count; i++) prefetch_pose(&c->ref_use[i], false);
    if (!c->shared_last)
        for (int l = 0; l < g->layer_count; l++) prefetch_pose(c->layers[l].own, true);
    if (!c->started) {
        for (int l = 0; l < g->layer_count; l++) push_state_event(c, BW_GRAPH_EVENT_ENTER, l, c->layers[l].cur.state);
        c->started = true;
    }
    /* Advancing every layer first and finishing them in order afterwards is
     * the per-layer order of SPEC §12.2: selection reads only parameters
     * and the layer's own plays, which sync groups may span. */
    for (int l = 0; l < g->layer_count; l++) advance_layer(c, l, d);
    if (g->has_sync) sync_plays(c);
    for (int l = 0; l < g->layer_count; l++) finish_layer(c, l, d);
    for (int i = 0; i < g->param_count; i++) {
        if (!g->params[i].expiring || c->params[i] == 0.0f) /* expiring: a trigger (graph.c) */
            continue;
        c->age[i] += d;
        if (c->age[i] >= g->params[i].expires) {
            c->params[i] = 0.0f;
            c->gen++;
        }
    }
}

/* ---- evaluation ---- */

/* Append a play's leaves (cache slot `slot`), their weights scaled by
 * `weight`, to the layer's record R->rec[*n ...] and, for additive layers,
 * their baked references to c->ref_buf / c->ref_ids[*n ...]. */
static void add_play(bw_graph_cursor *c, int l, int slot, const play *pl, float weight, int *n)
{
    const g_state *s = state_of(c, l, pl->state);
    double rate = state_rate(c, s);
    int leaves;
    const bw_blend_leaf *leaf = play_leaves(c, l, slot, pl->state, &leaves);
    for (int i = 0; i < leaves; i++, leaf++) {
        if (s->ref_first >= 0) {
            int id = c->g->refmap[s->ref_first + (s->ref_per_node ? leaf->node : 0)];
            c->ref_ids[*n] = id;
            c->ref_buf[*n] = (bw_contribution){&c->ref_use[id], leaf->weight * weight, 0};
        }
        c->layers[l].rec[(*n)++] =
            (bw_clip_contribution){c->bindings[leaf->clip], leaf_time(s, leaf, pl->p, rate), leaf->weight * weight, 0};
    }
}

/* `frozen`: mix the n plays `clips` (or with them NULL the contributions
 * c->ref_buf) into c->scratch, then one weighted mean with the
 * snapshot into dst (the same rank rule as two clips); else straight into
 * dst, over an uncovered pose: the mixer's read-only empty view as the
 * base, so the target is written once instead of cleared first and then
 * mixed over (the same numbers bit for bit, tests/test_mix_clips.c); a
 * rig too large for the view clears the target. */
static bw_result mix_plays(bw_graph_cursor *c, const bw_clip_contribution *clips, int n, bool frozen, float w,
                           const bw_pose *snapshot, bw_pose *dst)
{
    bw_pose *target = frozen ? &c->scratch : dst;
    bw_pose empty;
    const bool viewed = bw_mix_empty_view(c->mixer, &empty);
    const bw_pose *base = viewed ? &empty : NULL;
    if (!viewed) bw_pose_clear(target);
    bw_result r = clips ? bw_mix_run_clips(c->mixer, c->rig, base, clips, n, target)
                        : bw_mix_run(c->mixer, base, c->ref_buf, n, target);
    if (r != BW_OK || !frozen) return r;
    bw_contribution both[2] = {{snapshot, 1.0f - w, 0}, {&c->scratch, w, 0}};
    if (!viewed) bw_pose_clear(dst);
    return bw_mix_run(c->mixer, base, both, 2, dst);
}

/* A layer's pose into dst (its own pose, or a shared scratch's): its plays
 * (the live source at 1 − w, the destination at w, or the destination
 * alone against a frozen snapshot), recorded in R->rec, sampled and mixed
 * once; an additive layer's reference from the same leaves, mixed only
 * when they do not all share one baked reference pose. */
static bw_result evaluate_layer(bw_graph_cursor *c, int l, bw_pose *dst)
{
    layer_rt *R = &c->layers[l];
    bool frozen = R->fading && R->frozen;
    float w = R->fading ? fade_weight(c, l) : 1.0f;
    int n = 0;
    if (R->fading && !R->frozen) add_play(c, l, SLOT_SRC, &R->src, 1.0f - w, &n);
    add_play(c, l, SLOT_CUR, &R->cur, frozen ? 1.0f : w, &n);
    R->rec_n = n;
    R->rec_frozen = frozen;
    R->rec_w = w;
    R->last = dst == R->own ? LAST_OWN : LAST_MIX;
    c->counters.layer_mixes++;
    bw_result r = mix_plays(c, R->rec, n, frozen, w, R->snapshot, dst);
    if (r != BW_OK || !layer_of(c, l)->additive) return r;
    bool shared = n > 0 && !frozen;
    for (int i = 1; i < n && shared; i++) shared = c->ref_ids[i] == c->ref_ids[0];
    if (shared) {
        R->ref_view_id = c->ref_ids[0];
        return BW_OK;
    }
    c->counters.reference_mixes++;
    R->ref_view_id = -1;
    return mix_plays(c, NULL, n, frozen, w, R->ref_snapshot, R->ref);
}

/* R's own pose as last evaluated (R a layer of `worker` or of another
 * cursor on the same rig layout, whose bindings still live): where it is
 * kept, or mixed again from R->rec by worker's mixer into tmp (not
 * R->snapshot). Not counted as a layer mix. */
static const bw_pose *last_pose(bw_graph_cursor *worker, const layer_rt *R, bw_pose *tmp)
{
    if (R->last == LAST_OWN) return R->own;
    if (R->last == LAST_SNAPSHOT) return R->snapshot;
    if (mix_plays(worker, R->rec, R->rec_n, R->rec_frozen, R->rec_w, R->snapshot, tmp) != BW_OK) bw_pose_clear(tmp);
    return tmp;
}

static bool pose_fits_rig(const bw_graph_cursor *c, const bw_pose *p)
{
    return p && p->joint_count == c->joint_count && p->curve_count == c->curve_count &&
           (c->joint_count == 0 || (p->joints && p->coverage)) &&
           (c->curve_count == 0 || (p->curves && p->curve_coverage));
}

/* Where layer l is evaluated: the scratch's pose l cut to the cursor's
 * counts, or the layer's own. */
static bw_pose *layer_target(bw_graph_cursor *c, bw_graph_scratch *scratch, int l)
{
    if (!scratch) return c->layers[l].own;
    bw_pose *v = &scratch->views[l];
    *v = scratch->poses[l];
    v->joint_count = c->joint_count;
    v->curve_count = c->curve_count;
    return v;
}

bw_result bw_graph_cursor_evaluate(bw_graph_cursor *c, const bw_pose *base, bw_pose *out)
{
    return bw_graph_cursor_evaluate_in(c, NULL, base, out);
}

bw_result bw_graph_cursor_evaluate_in(bw_graph_cursor *c, bw_graph_scratch *scratch, const bw_pose *base, bw_pose *out)
{
    if (!c || !pose_fits_rig(c, out) || (base && !pose_fits_rig(c, base))) return BW_ERR_INVALID_ARGUMENT;
    int n = c->g->layer_count;
    if (scratch && (scratch->layer_capacity < n || scratch->joint_capacity < c->joint_count ||
                    scratch->curve_capacity < c->curve_count))
        scratch = NULL; /* too small: the cursor's own poses */
    c->shared_last = scratch != NULL;
    for (int l = 0; l < n; l++) {
        layer_rt *R = &c->layers[l];
        R->evaluated = layer_target(c, scratch, l);
        bw_result r = evaluate_layer(c, l, R->evaluated);
        if (r != BW_OK) return r;
    }
    if (base) {
        if (base != out) bw_pose_copy(out, base);
    } else {
        bw_pose_set_rest(out, c->rig);
    }
    /* Runs of override layers compose in one mixer call (one rank each,
     * in order); an additive layer applies to what lies below it. */
    int pending = 0;
    for (int l = 0; l <= n; l++) {
        if (l < n && !layer_of(c, l)->additive) {
            layer_rt *R = &c->layers[l];
            if (R->mask) {
                for (int j = 0; j < c->joint_count; j++) R->masked[j] = R->evaluated->coverage[j] * R->mask[j];
                R->masked_view = *R->evaluated;
                R->masked_view.coverage = R->masked;
            }
            c->contributions[pending++] =
                (bw_contribution){R->mask ? &R->masked_view : R->evaluated, layer_weight(c, l), l};
            continue;
        }
        if (pending) {
            bw_result r = bw_mix_run(c->mixer, NULL, c->contributions, pending, out);
            if (r != BW_OK) return r;
            pending = 0;
        }
        if (l < n)
            bw_graph_add_layer(out, c->layers[l].evaluated, ref_view(c, &c->layers[l]), c->layers[l].mask, layer_weight(c, l));
    }
    return BW_OK;
}

bw_result bw_graph_cursor_root_motion(bw_graph_cursor *c, const bw_root_motion_config *cfg, bw_root_delta *out)
{
    if (!c || !cfg || !out) return BW_ERR_INVALID_ARGUMENT;
    const layer_rt *R = &c->layers[0];
    int n = 0;
    for (int m = 0; m < R->moved_count; m++) {
        const moved *mv = &R->moved[m];
        const g_state *s = state_of(c, 0, mv->state);
        double rate = state_rate(c, s);
        /* the update's own leaves: whichever slot holds the state (the one
           that fired away included); evaluated afresh only when none does */
        const bw_blend_leaf *cached = c->leaves;
        int leaves = -1;
        for (int k = 0; k < SLOTS && leaves < 0; k++)
            if (R->leaf_state[k] == mv->state && R->leaf_gen[k] == c->gen) {
                cached = R->leaves[k];
                leaves = R->leaf_n[k];
            }
        if (leaves < 0) leaves = state_leaves(c, s, c->leaves);
        for (int i = 0; i < leaves; i++) {
            const bw_blend_leaf *leaf = &cached[i];
            double sign = rate * leaf->rate < 0.0 ? -1.0 : 1.0;
            c->root_buf[n++] = (bw_root_play){c->bindings[leaf->clip],
                                              leaf_time(s, leaf, mv->old_p, rate),
                                              sign * (mv->new_p - mv->old_p) * leaf->length,
                                              s->loop,
                                              mv->weight * leaf->weight,
                                              0};
        }
    }
    return bw_root_motion_extract(c->rig, cfg, c->root_buf, n, out);
}

const bw_pose *bw_graph_cursor_layer_pose(bw_graph_cursor *c, int layer)
{
    if (!c || layer < 0 || layer >= c->g->layer_count) return NULL;
    layer_rt *R = &c->layers[layer];
    const bw_pose *p = last_pose(c, R, R->own);
    if (p == R->own) R->last = LAST_OWN;
    return p;
}

const bw_blend_leaf *bw_graph_cursor_leaves(const bw_graph_cursor *c, int layer, bool source, int *count)
{
    int none = 0, *n = count ? count : &none;
    *n = 0;
    if (!c || layer < 0 || layer >= c->g->layer_count) return NULL;
    const layer_rt *R = &c->layers[layer];
    int slot = source ? SLOT_SRC : SLOT_CUR;
    int state = source ? (R->fading && !R->frozen ? R->src.state : -1) : R->cur.state;
    /* the slot holds the state's leaves of the last evaluation that read it */
    if (state < 0 || R->leaf_state[slot] != state || R->leaf_n[slot] <= 0) return NULL;
    *n = R->leaf_n[slot];
    return R->leaves[slot];
}

/* ---- parameters, triggers, layer weights ---- */

static bool param_ok(const bw_graph_cursor *c, int param) { return c && param >= 0 && param < c->g->param_count; }

bw_result bw_graph_cursor_set_param(bw_graph_cursor *c, int param, float value)
{
    if (!param_ok(c, param)) return c ? BW_ERR_RANGE : BW_ERR_INVALID_ARGUMENT;
    bw_graph_param_kind kind = c->g->params[param].kind;
    if (kind == BW_GRAPH_PARAM_TRIGGER) return BW_ERR_INVALID_ARGUMENT;
    if (!isfinite(value)) return BW_ERR_NON_FINITE;
    float v = kind == BW_GRAPH_PARAM_BOOL ? (value != 0.0f ? 1.0f : 0.0f) : value;
    if (c->params[param] != v) c->gen++;
    c->params[param] = v;
    return BW_OK;
}

float bw_graph_cursor_param(const bw_graph_cursor *c, int param) { return param_ok(c, param) ? c->params[param] : NAN; }

static bw_result set_trigger(bw_graph_cursor *c, int trigger, float value)
{
    if (!param_ok(c, trigger)) return c ? BW_ERR_RANGE : BW_ERR_INVALID_ARGUMENT;
    if (c->g->params[trigger].kind != BW_GRAPH_PARAM_TRIGGER) return BW_ERR_INVALID_ARGUMENT;
    if (c->params[trigger] != value) c->gen++;
    c->params[trigger] = value;
    c->age[trigger] = 0.0;
    return BW_OK;
}

bw_result bw_graph_cursor_fire(bw_graph_cursor *c, int trigger) { return set_trigger(c, trigger, 1.0f); }
bw_result bw_graph_cursor_reset_trigger(bw_graph_cursor *c, int trigger) { return set_trigger(c, trigger, 0.0f); }

static bool layer_ok(const bw_graph_cursor *c, int layer) { return c && layer >= 0 && layer < c->g->layer_count; }

bw_result bw_graph_cursor_set_layer_weight(bw_graph_cursor *c, int layer, float weight, float fade)
{
    if (!layer_ok(c, layer)) return c ? BW_ERR_RANGE : BW_ERR_INVALID_ARGUMENT;
    if (layer_of(c, layer)->weight_param >= 0) return BW_ERR_INVALID_ARGUMENT;
    if (!isfinite(weight) || !isfinite(fade)) return BW_ERR_NON_FINITE;
    if (weight < 0.0f || fade < 0.0f) return BW_ERR_RANGE;
    layer_rt *R = &c->layers[layer];
    R->w_from = R->weight;
    R->w_to = weight;
    R->w_elapsed = 0.0;
    R->w_duration = fade;
    if (fade == 0.0f) R->weight = weight;
    return BW_OK;
}

/* ---- travel ---- */

/* Whether travel may take transition tr out of state s: its own edge, or
 * an any-state one to another state. */
static bool edge_leaves(const g_transition *tr, int s) { return tr->from == s || (tr->from < 0 && tr->to != s); }

bw_result bw_graph_cursor_travel(bw_graph_cursor *c, int layer, int state)
{
    if (!layer_ok(c, layer)) return c ? BW_ERR_RANGE : BW_ERR_INVALID_ARGUMENT;
    const g_layer *L = layer_of(c, layer);
    if (state < 0 || state >= L->state_count) return BW_ERR_RANGE;
    layer_rt *R = &c->layers[layer];
    int start = R->cur.state;
    if (state == start) {
        R->route_len = R->route_pos = 0;
        return BW_OK;
    }
    int n = c->g->max_states;
    int *queue = c->bfs, *parent = c->bfs + n, *edge = c->bfs + 2 * n;
    for (int s = 0; s < L->state_count; s++) parent[s] = -2; /* unvisited */
    parent[start] = -1;
    int head = 0, tail = 0;
    queue[tail++] = start;
    while (head < tail && parent[state] == -2) {
        int u = queue[head++];
        for (int t = 0; t < L->transition_count && parent[state] == -2; t++) {
            const g_transition *tr = transition_of(c, layer, t);
            if (!edge_leaves(tr, u) || parent[tr->to] != -2) continue;
            parent[tr->to] = u;
            edge[tr->to] = t;
            queue[tail++] = tr->to;
        }
    }
    if (parent[state] == -2) return BW_ERR_NOT_FOUND;
    int len = 0;
    for (int s = state; s != start; s = parent[s]) len++;
    int i = len;
    for (int s = state; s != start; s = parent[s]) R->route[--i] = edge[s];
    R->route_len = len;
    R->route_pos = 0;
    return BW_OK;
}

int bw_graph_cursor_travel_pending(const bw_graph_cursor *c, int layer)
{
    if (!layer_ok(c, layer)) return -1;
    return c->layers[layer].route_len - c->layers[layer].route_pos;
}

/* ---- queries ---- */

bw_result bw_graph_cursor_layer_status(const bw_graph_cursor *c, int layer, bw_graph_layer_status *out)
{
    if (!c || !out) return BW_ERR_INVALID_ARGUMENT;
    if (!layer_ok(c, layer)) return BW_ERR_RANGE;
    const layer_rt *R = &c->layers[layer];
    bw_graph_layer_status s = {0};
    s.state = R->cur.state;
    s.progress = R->cur.p;
    s.normalized = state_of(c, layer, R->cur.state)->loop ? (float)(R->cur.p - floor(R->cur.p))
                                                          : (float)(R->cur.p < 1.0 ? R->cur.p : 1.0);
    if (s.normalized >= 1.0f && state_of(c, layer, R->cur.state)->loop) s.normalized = 0.0f;
    s.weight = layer_weight(c, layer);
    bw_graph_transition_status *t = &s.transition;
    t->transition = t->from = t->to = t->source_state = -1;
    if (R->fading) {
        t->active = true;
        t->transition = R->tr;
        t->from = R->from;
        t->to = R->cur.state;
        /* the double rounded, but below the duration while the fade runs
           (a timer a rounding short of it would round up to it) */
        t->elapsed = (float)R->timer;
        if (t->elapsed >= R->shape.duration) t->elapsed = nextafterf(R->shape.duration, 0.0f);
        t->duration = R->shape.duration;
        t->weight = fade_weight(c, layer);
        t->mode = R->shape.mode;
        t->frozen = R->frozen;
        t->source_state = R->frozen ? -1 : R->src.state;
        t->source_progress = R->frozen ? 0.0 : R->src.p;
    }
    *out = s;
    return BW_OK;
}

/* ---- hot reload: carry a character over (graph.h) ---- */

/* State s (-1: none) of src's layer ol, by name in dst's layer l; -1 when
 * it is gone. */
static int carried_state(const bw_graph_cursor *dst, int l, const bw_graph_cursor *src, int ol, int s)
{
    if (s < 0) return -1;
    return bw_graph_find_state(dst->g, l, state_of(src, ol, s)->name);
}

/* dst's transition of layer l that matches src's transition t of layer
 * ol: the same `from` (any-state for any-state) and `to` by name; among
 * several such, the same occurrence in list order when the new list has
 * it, else the first. -1 when there is none. */
static int matching_transition(const bw_graph_cursor *dst, int l, const bw_graph_cursor *src, int ol, int t)
{
    const g_transition *old = transition_of(src, ol, t);
    int from = carried_state(dst, l, src, ol, old->from), to = carried_state(dst, l, src, ol, old->to);
    if (to < 0 || (old->from >= 0 && from < 0)) return -1;
    int occurrence = 0;
    for (int i = 0; i < t; i++) {
        const g_transition *o = transition_of(src, ol, i);
        occurrence += o->from == old->from && o->to == old->to;
    }
    int first = -1;
    for (int i = 0; i < layer_of(dst, l)->transition_count; i++) {
        const g_transition *n = transition_of(dst, l, i);
        if (n->from != from || n->to != to) continue;
        if (first < 0) first = i;
        if (occurrence-- == 0) return i;
    }
    return first;
}

/* Continue src's transition in flight on layer ol in dst's layer l (its
 * current state already carried): the frozen snapshot, or the live source
 * by name with its progress; the timer; duration, curve, mode and
 * interruptibility from the new graph's matching transition, else as they
 * were. False when the live source state is gone (nothing changed). */
static bool carry_transition(bw_graph_cursor *dst, int l, const bw_graph_cursor *src, int ol)
{
    layer_rt *R = &dst->layers[l];
    const layer_rt *O = &src->layers[ol];
    int source = O->frozen ? -1 : carried_state(dst, l, src, ol, O->src.state);
    if (!O->frozen && source < 0) return false;
    R->fading = true;
    R->tr = O->tr >= 0 ? matching_transition(dst, l, src, ol, O->tr) : -1;
    R->from = carried_state(dst, l, src, ol, O->from);
    R->timer = O->timer;
    R->frozen = O->frozen;
    R->shape = O->shape;
    R->src_speed = O->src_speed;
    if (R->tr >= 0) {
        const g_transition *tr = transition_of(dst, l, R->tr);
        R->shape = shape_of(tr);
        R->src_speed = tr->mode == BW_GRAPH_FREEZE ? 0.0f : tr->source_speed; /* a live source stands still */
    }
    R->src = (play){-1, 0.0, false};
    if (R->frozen) {
        bw_pose_copy(R->snapshot, O->snapshot);
        if (layer_of(dst, l)->additive)
            bw_pose_copy(R->ref_snapshot, layer_of(src, ol)->additive ? O->ref_snapshot : O->snapshot);
    } else {
        R->src = (play){source, O->src.p, false};
    }
    if (R->timer >= R->shape.duration) { /* the new duration is over: the destination alone */
        R->fading = false;
        R->src.state = -1;
    }
    return true;
}

/* Whether two layer poses differ by more than `tol` in any channel. */
static bool poses_differ(const bw_pose *a, const bw_pose *b, float tol)
{
    for (int j = 0; j < a->joint_count; j++) {
        const bw_transform *x = &a->joints[j], *y = &b->joints[j];
        if (fabsf(a->coverage[j] - b->coverage[j]) > tol) return true;
        for (int k = 0; k < 3; k++)
            if (fabsf(x->t[k] - y->t[k]) > tol || fabsf(x->s[k] - y->s[k]) > tol) return true;
        float dot = 0.0f;
        for (int k = 0; k < 4; k++) dot += x->r[k] * y->r[k];
        if (1.0f - fabsf(dot) > tol) return true; /* q and -q are one rotation */
    }
    for (int k = 0; k < a->curve_count; k++)
        if (fabsf(a->curves[k] - b->curves[k]) > tol || fabsf(a->curve_coverage[k] - b->curve_coverage[k]) > tol)
            return true;
    return false;
}

/* Replace whatever layer l does with a linear fade over `fade` seconds from
 * a frozen snapshot of src's last evaluated pose of layer ol (0: none). */
static void fade_from_old_pose(bw_graph_cursor *dst, int l, const bw_graph_cursor *src, int ol, float fade)
{
    layer_rt *R = &dst->layers[l];
    const layer_rt *O = &src->layers[ol];
    R->fading = fade > 0.0f;
    R->tr = R->from = -1;
    R->timer = 0.0;
    R->shape = (fade_shape){fade, BW_EASE_LINEAR, BW_EASE_IN, BW_GRAPH_FREEZE, true};
    R->frozen = true;
    R->src = (play){-1, 0.0, false};
    if (!R->fading) return;
    const bw_pose *old = last_pose(dst, O, R->snapshot);
    if (old != R->snapshot) bw_pose_copy(R->snapshot, old);
    if (layer_of(dst, l)->additive) /* no delta from a former override layer */
        bw_pose_copy(R->ref_snapshot, layer_of(src, ol)->additive ? ref_view(src, O) : R->snapshot);
}

/* Carry src's layer ol into dst's layer l (see graph.h). */
static void carry_layer(bw_graph_cursor *dst, int l, const bw_graph_cursor *src, int ol, float fade)
{
    layer_rt *R = &dst->layers[l];
    const layer_rt *O = &src->layers[ol];
    const g_layer *L = layer_of(dst, l);
    if (L->weight_param < 0 && layer_of(src, ol)->weight_param < 0) {
        R->weight = O->weight;
        R->w_from = O->w_from;
        R->w_to = O->w_to;
        R->w_elapsed = O->w_elapsed;
        R->w_duration = O->w_duration;
    }
    R->route_len = R->route_pos = 0;
    R->moved_count = 0;
    int s = carried_state(dst, l, src, ol, O->cur.state);
    if (s < 0) { /* the current state (a destination included) is gone: the entry */
        R->cur = (play){L->entry, state_of(dst, l, L->entry)->offset, true};
        fade_from_old_pose(dst, l, src, ol, fade);
        return;
    }
    R->cur = (play){s, O->cur.p, O->cur.fresh};
    if (O->fading) {
        if (!carry_transition(dst, l, src, ol)) fade_from_old_pose(dst, l, src, ol, fade); /* the source is gone */
        return;
    }
    /* A steady layer fades only if its state now shows something else
     * (another clip, tree or reference under the same name). */
    R->fading = false;
    if (evaluate_layer(dst, l, R->own) != BW_OK) return;
    bool differs = poses_differ(R->own, last_pose(dst, O, R->snapshot), CARRY_TOLERANCE);
    if (!differs && L->additive && layer_of(src, ol)->additive)
        differs = poses_differ(ref_view(dst, R), ref_view(src, O), CARRY_TOLERANCE);
    if (differs) fade_from_old_pose(dst, l, src, ol, fade);
}

/* Queued travel of src's layer ol onto dst's layer l (after carry_layer
 * placed its current state): the remaining edges matched by name
 * (matching_transition) when they all still chain from the carried
 * current state, so an unchanged graph travels exactly as before; else a
 * new shortest route to the same destination by name; dropped when the
 * destination is gone or cannot be reached. */
static void carry_route(bw_graph_cursor *dst, int l, const bw_graph_cursor *src, int ol)
{
    const layer_rt *O = &src->layers[ol];
    if (O->route_pos >= O->route_len) return;
    layer_rt *R = &dst->layers[l];
    int at = R->cur.state, n = 0;
    for (int i = O->route_pos; i < O->route_len; i++) {
        int t = matching_transition(dst, l, src, ol, O->route[i]);
        const g_transition *tr = t >= 0 ? transition_of(dst, l, t) : NULL;
        if (!tr || n >= dst->g->max_states || !edge_leaves(tr, at)) {
            n = -1;
            break;
        }
        R->route[n++] = t;
        at = tr->to;
    }
    if (n > 0) {
        R->route_len = n;
        R->route_pos = 0;
        return;
    }
    int goal = carried_state(dst, l, src, ol, transition_of(src, ol, O->route[O->route_len - 1])->to);
    if (goal >= 0) (void)bw_graph_cursor_travel(dst, l, goal); /* unreachable: stays empty */
}

bw_result bw_graph_cursor_carry_over(bw_graph_cursor *dst, const bw_graph_cursor *src, float fade)
{
    if (!dst || !src || dst == src || !isfinite(fade) || fade < 0.0f) return BW_ERR_INVALID_ARGUMENT;
    if (dst->rig != src->rig && (bw_rig_layout_signature(dst->rig) != bw_rig_layout_signature(src->rig) ||
                                 dst->joint_count != src->joint_count || dst->curve_count != src->curve_count))
        return BW_ERR_INVALID_ARGUMENT;
    const bw_graph *g = dst->g, *old = src->g;
    for (int i = 0; i < g->param_count; i++) {
        int j = bw_graph_find_param(old, g->params[i].name);
        if (j < 0 || old->params[j].kind != g->params[i].kind) continue;
        dst->params[i] = src->params[j];
        dst->age[i] = src->age[j];
    }
    dst->gen++; /* the parameters changed: no cached leaves stand */
    for (int l = 0; l < g->layer_count; l++) {
        int ol = bw_graph_find_layer(old, g->layers[l].name);
        if (ol < 0) continue;
        carry_layer(dst, l, src, ol, fade);
        carry_route(dst, l, src, ol);
    }
    /* Every layer's pose as carried: what a freeze snapshot takes if a
     * transition fires before the next evaluation. */
    for (int l = 0; l < g->layer_count; l++) (void)evaluate_layer(dst, l, dst->layers[l].own);
    dst->shared_last = false;
    dst->started = src->started;
    return BW_OK;
}

const bw_graph *bw_graph_cursor_graph(const bw_graph_cursor *c) { return c ? c->g : NULL; }

/* ---- events ---- */

void bw_graph_cursor_drain(bw_graph_cursor *c, bw_graph_event_fn fn, void *user)
{
    if (!c) return;
    int n = c->event_count;
    c->event_count = 0; /* callbacks cannot queue events (they must not update) */
    if (fn)
        for (int i = 0; i < n; i++) fn(user, &c->events[i]);
}

int bw_graph_cursor_event_count(const bw_graph_cursor *c) { return c ? c->event_count : 0; }
int bw_graph_cursor_dropped_events(const bw_graph_cursor *c) { return c ? c->dropped : 0; }

/* ---- creation ---- */

/* Resolve mask `m` on the rig into weights[joint_count] (SPEC §7):
 * an entry sets its joint and, if it propagates, the descendants without
 * an entry of their own; everything else is 0. `inherit` (what a joint
 * passes to its children) is joint_count scratch floats, `has`
 * joint_count flags (0 no entry, 1 propagating entry, 2 own only). */
static void resolve_mask(const bw_graph_cursor *c, const g_mask *m, const int *joints, float *weights, float *inherit,
                         unsigned char *has)
{
    const int *parents = bw_rig_parents(c->rig);
    memset(has, 0, (size_t)c->joint_count);
    for (int e = 0; e < m->entry_count; e++) {
        int j = joints[e];
        const g_mask_entry *en = &c->g->mask_entries[m->entry_first + e];
        weights[j] = en->weight;
        has[j] = en->propagate ? 1 : 2;
    }
    for (int j = 0; j < c->joint_count; j++) {
        float up = parents[j] >= 0 ? inherit[parents[j]] : 0.0f;
        if (!has[j]) weights[j] = up;
        inherit[j] = has[j] == 1 ? weights[j] : up;
    }
}

/* ---- shared reference sets (graph_internal.h, g_ref_share) ---- */

static bool same_floats(const float *a, const float *b, int n)
{
    return n == 0 || memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

/* Bitwise equal sets: reading either gives the same numbers. */
static bool refs_equal(const bw_graph *g, const bw_pose *a, const bw_pose *b)
{
    for (int i = 0; i < g->ref_count; i++) {
        if (a[i].joint_count != b[i].joint_count || a[i].curve_count != b[i].curve_count) return false;
        int nj = a[i].joint_count, nc = a[i].curve_count;
        if ((nj > 0 && memcmp(a[i].joints, b[i].joints, (size_t)nj * sizeof *a[i].joints) != 0) ||
            !same_floats(a[i].coverage, b[i].coverage, nj) || !same_floats(a[i].curves, b[i].curves, nc) ||
            !same_floats(a[i].curve_coverage, b[i].curve_coverage, nc))
            return false;
    }
    return true;
}

static size_t share_size(const bw_graph *g) { return sizeof(g_ref_share) + (size_t)g->ref_count * sizeof(bw_pose); }

static void share_free(bw_graph *g, g_ref_share *sh)
{
    for (int i = 0; i < g->ref_count; i++) bw_pose_deinit(&sh->poses[i]);
    bw_free(&g->alloc, sh, share_size(g));
}

void bw_graph_free_shares(bw_graph *g)
{
    while (g->shares) {
        g_ref_share *next = g->shares->next;
        share_free(g, g->shares);
        g->shares = next;
    }
}

/* A new set holding copies of `refs` (graph allocator), or NULL. */
static g_ref_share *share_new(bw_graph *g, const bw_pose *refs)
{
    g_ref_share *sh = (g_ref_share *)bw_alloc_zeroed(&g->alloc, share_size(g));
    if (!sh) return NULL;
    for (int i = 0; i < g->ref_count; i++) {
        if (bw_pose_init_counts(&sh->poses[i], refs[i].joint_count, refs[i].curve_count, &g->alloc) != BW_OK) {
            share_free(g, sh);
            return NULL;
        }
        bw_pose_copy(&sh->poses[i], &refs[i]);
    }
    return sh;
}

/* Read the graph's set equal to c->refs, publishing a copy when there is
 * none and `may_allocate`; else (or out of memory) read c->refs. */
static void share_attach(bw_graph_cursor *c, bool may_allocate)
{
    bw_graph *g = (bw_graph *)c->g; /* the cache beside the immutable graph */
    c->ref_use = c->refs;
    if (g->ref_count == 0) return;
    pthread_mutex_lock(&g->share_lock);
    g_ref_share *sh = g->shares;
    while (sh && !refs_equal(g, sh->poses, c->refs)) sh = sh->next;
    if (!sh && may_allocate && (sh = share_new(g, c->refs)) != NULL) {
        sh->next = g->shares;
        g->shares = sh;
    }
    if (sh) {
        sh->users++;
        c->share = sh;
        c->ref_use = sh->poses;
    }
    pthread_mutex_unlock(&g->share_lock);
}

static void share_detach(bw_graph_cursor *c)
{
    c->ref_use = c->refs;
    if (!c->share) return;
    bw_graph *g = (bw_graph *)c->g;
    pthread_mutex_lock(&g->share_lock);
    if (--c->share->users == 0) {
        g_ref_share **at = &g->shares;
        while (*at != c->share) at = &(*at)->next;
        *at = c->share->next;
        share_free(g, c->share);
    }
    pthread_mutex_unlock(&g->share_lock);
    c->share = NULL;
}

static void cursor_free(bw_graph_cursor *c)
{
    share_detach(c);
    bw_mixer_destroy(c->mixer);
    bw_allocator copy = c->alloc; /* c lives in the block it frees */
    bw_free(&copy, c->block, c->block_size);
}

void bw_graph_cursor_destroy(bw_graph_cursor *c)
{
    if (c) cursor_free(c);
}

/* Whether state s plays `clip` (as its clip or as a blend-tree leaf). */
static bool state_plays(const g_state *s, int clip)
{
    if (!s->blend) return s->clip == clip;
    for (int i = 0; i < bw_blend_tree_node_count(s->tree); i++) {
        const bw_blend_node *n = bw_blend_tree_node(s->tree, i);
        if (n->kind == BW_BLEND_NODE_CLIP && n->clip == clip) return true;
    }
    return false;
}

/* Whether any state plays `clip` or measures against it (a reference). */
static bool clip_played(const bw_graph *g, int clip)
{
    for (int i = 0; i < g->state_count; i++)
        if (state_plays(&g->states[i], clip)) return true;
    for (int i = 0; i < g->ref_count; i++)
        if (g->refs[i].clip == clip) return true;
    return false;
}

/* Report every problem of the bindings of `d` against the graph. */
static void check_bindings(const bw_graph *g, const bw_graph_cursor_desc *d, bw_graph_report *r)
{
    char where[256];
    if (d->binding_count != g->clip_count || (d->binding_count > 0 && !d->bindings)) {
        bw_graph_problem(r, BW_ERR_INVALID_ARGUMENT, "bindings", "%d bindings for a graph of %d clips",
                         d->bindings ? d->binding_count : 0, g->clip_count);
    } else {
        uint64_t sig = bw_rig_layout_signature(d->rig);
        uint32_t rev = bw_rig_topology_revision(d->rig);
        for (int clip = 0; clip < g->clip_count; clip++) {
            if (!clip_played(g, clip)) continue;
            const bw_binding *b = d->bindings[clip];
            snprintf(where, sizeof where, "bindings[%d]", clip);
            if (!b)
                bw_graph_problem(r, BW_ERR_INVALID_ARGUMENT, where, "no binding for clip %d, which a state plays",
                                 clip);
            else if (bw_binding_layout_signature(b) != sig || bw_binding_topology_revision(b) != rev)
                bw_graph_problem(r, BW_ERR_INVALID_ARGUMENT, where,
                                 "binding of clip %d was made for another rig layout", clip);
        }
    }
}

/* Report every problem of `d` against the graph: bindings, and mask
 * joints (resolved into mask_joints[mask_entry_count]). */
static void check_cursor_desc(const bw_graph *g, const bw_graph_cursor_desc *d, int *mask_joints, bw_graph_report *r)
{
    char where[256];
    if (d->event_capacity < 0)
        bw_graph_problem(r, BW_ERR_INVALID_ARGUMENT, "event_capacity", "negative event capacity %d", d->event_capacity);
    check_bindings(g, d, r);
    for (int m = 0; m < g->mask_count; m++)
        for (int e = 0; e < g->masks[m].entry_count; e++) {
            int k = g->masks[m].entry_first + e;
            const char *name = g->mask_entries[k].joint;
            int j = bw_graph_find_mask_joint(d->rig, name);
            mask_joints[k] = j;
            snprintf(where, sizeof where, "masks[%d].entries[%d].joint", m, e);
            if (j == BW_RIG_AMBIGUOUS)
                bw_graph_problem(r, BW_ERR_DUPLICATE, where,
                                 "joint name '%s' is ambiguous in the rig (mask '%s'; "
                                 "write 'parent/%s')",
                                 name, g->masks[m].name, name);
            else if (j < 0)
                bw_graph_problem(r, BW_ERR_NOT_FOUND, where, "no joint '%s' in the rig (mask '%s')", name,
                                 g->masks[m].name);
        }
}

/* ---- the cursor's one block ----
 * The cursor, its arrays and its poses are carved from one allocation in
 * the order a frame touches them: the struct and the small arrays every
 * update reads, packed (the hot part, which the crowd hint asks for);
 * the event queue; then what only fades, fires, travel, expiring triggers
 * and unshared references touch, and the layer poses of an evaluation in
 * the cursor (a crowd's evaluates in a shared bw_graph_scratch), each pose
 * on its own cache lines. A crowd's frame is bound by first touches of cold
 * memory: one block puts the hot part of a character on few lines and
 * pages. The poses borrow the block (no allocator of their own: never
 * deinitialised, freed with the block). */
#define CURSOR_LINE 64

#define CARVE(k, n, ptr) bw_carve((k), (size_t)(n) * sizeof *(ptr), BW_MAX_ALIGN)

/* A pose of the rig's counts on lines of its own, cleared as bw_pose_init
 * leaves it. */
static void carve_pose(bw_carver *k, const bw_graph_cursor *c, bw_pose *p)
{
    void *at = bw_carve(k, bw_pose_block_bytes(c->joint_count, c->curve_count), CURSOR_LINE);
    k->used = bw_align_up(k->used, CURSOR_LINE);
    if (at) bw_pose_init_in(p, c->joint_count, c->curve_count, at); /* borrowed: never deinit */
}

/* Lay the cursor out in k (every pointer of c set when k->base is set;
 * with it NULL only k->used, the size, is computed and c is only read). */
static void carve_cursor(bw_carver *k, bw_graph_cursor *c)
{
    const bw_graph *g = c->g;
    size_t nl = (size_t)g->layer_count, nj = (size_t)c->joint_count, ns = (size_t)g->max_states;
    size_t nleaf = (size_t)g->max_leaves;
    bw_pose no_pose[5];                       /* what `measuring` points at */
    layer_rt measuring = {.own = &no_pose[0], /* stands in for the layers while only measuring */
                          .snapshot = &no_pose[1],
                          .ref = &no_pose[2],
                          .ref_snapshot = &no_pose[3]};
#define LAYER(l) (k->base ? &c->layers[l] : &measuring)
    c->layers = (layer_rt *)CARVE(k, nl, c->layers);
    c->params = (float *)CARVE(k, g->param_count, c->params);
    c->bindings = (const bw_binding **)CARVE(k, g->clip_count, c->bindings);
    c->contributions = (bw_contribution *)CARVE(k, nl, c->contributions);
    c->leaf_store = (bw_blend_leaf *)CARVE(k, nl * SLOT_GONE * nleaf, c->leaf_store);
    c->leaves = (bw_blend_leaf *)CARVE(k, nleaf, c->leaves);
    c->tree_scratch = (float *)CARVE(k, g->max_tree_scratch, c->tree_scratch);
    for (size_t l = 0; l < nl; l++) LAYER(l)->rec = (bw_clip_contribution *)CARVE(k, 2 * nleaf, LAYER(l)->rec);
    c->ref_buf = (bw_contribution *)CARVE(k, 2 * nleaf, c->ref_buf);
    c->ref_ids = (int *)CARVE(k, 2 * nleaf, c->ref_ids);
    c->root_buf = (bw_root_play *)CARVE(k, 2 * nleaf, c->root_buf);
    c->sync_lead = (int *)CARVE(k, g->state_count, c->sync_lead);
    c->sync_w = (float *)CARVE(k, g->state_count, c->sync_w);
    c->sync_groups = (int *)CARVE(k, 2 * nl, c->sync_groups);
    for (size_t l = 0; l < nl; l++)
        if (g->layers[l].mask >= 0) {
            LAYER(l)->mask = (float *)CARVE(k, nj, LAYER(l)->mask);
            LAYER(l)->masked = (float *)CARVE(k, nj, LAYER(l)->masked);
        }
    c->hot_size = k->used; /* c is carved first, at the block's start */
    c->events = (bw_graph_event *)CARVE(k, c->event_capacity, c->events); /* a few are touched per frame */
    /* cold: the pose records, fades, travel, expiring triggers, references
       mixed per frame or not shared, the layer poses of an evaluation in
       the cursor (each frame without a shared scratch: then the update
       asks for them ahead) */
    bw_pose *store = (bw_pose *)CARVE(k, 4 * nl, store);
    if (k->base)
        for (size_t l = 0; l < nl; l++) {
            layer_rt *R = &c->layers[l];
            R->own = &store[4 * l];
            R->snapshot = &store[4 * l + 1];
            R->ref = &store[4 * l + 2];
            R->ref_snapshot = &store[4 * l + 3];
        }
    c->refs = (bw_pose *)CARVE(k, g->ref_count, c->refs);
    c->gone_store = (bw_blend_leaf *)CARVE(k, nl * nleaf, c->gone_store);
    c->age = (double *)CARVE(k, g->param_count, c->age);
    c->routes = (int *)CARVE(k, nl * ns, c->routes);
    c->bfs = (int *)CARVE(k, 3 * ns, c->bfs);
    for (size_t l = 0; l < nl; l++) carve_pose(k, c, LAYER(l)->own);
    for (size_t l = 0; l < nl; l++)
        if (g->layers[l].additive) carve_pose(k, c, LAYER(l)->ref);
    for (size_t l = 0; l < nl; l++) {
        carve_pose(k, c, LAYER(l)->snapshot);
        if (g->layers[l].additive) carve_pose(k, c, LAYER(l)->ref_snapshot);
    }
    carve_pose(k, c, &c->scratch);
    for (int i = 0; i < g->ref_count; i++) carve_pose(k, c, k->base ? &c->refs[i] : &no_pose[4]);
#undef LAYER
}

/* The cursor's block (c is in it) and its mixer, or NULL (out of memory). */
static bw_graph_cursor *allocate_cursor(const bw_graph *g, const bw_rig *rig, const bw_allocator *alloc,
                                        int event_capacity)
{
    bw_graph_cursor shape = {.g = g, .rig = rig, .event_capacity = event_capacity};
    shape.joint_count = bw_rig_joint_count(rig);
    shape.curve_count = bw_rig_curve_count(rig);
    bw_carver k = {NULL, 0};
    bw_carve(&k, sizeof shape, CURSOR_LINE);
    carve_cursor(&k, &shape);
    size_t size = k.used + CURSOR_LINE - 1; /* room to start on a line */
    char *block = (char *)bw_alloc_zeroed(alloc, size);
    if (!block) return NULL;
    k = (bw_carver){bw_align_ptr(block, CURSOR_LINE), 0};
    bw_graph_cursor *c = (bw_graph_cursor *)bw_carve(&k, sizeof *c, CURSOR_LINE);
    *c = shape;
    c->alloc = *alloc;
    c->block = block;
    c->block_size = size;
    carve_cursor(&k, c);
    for (int i = 0; i < g->state_count; i++) c->sync_lead[i] = -1;
    c->ref_use = c->refs;
    int max_contributions = g->layer_count > 2 * g->max_leaves ? g->layer_count : 2 * g->max_leaves;
    if (make_mixer(rig, max_contributions, alloc, &c->mixer) != BW_OK) {
        cursor_free(c);
        return NULL;
    }
    return c;
}

/* Masks resolved on the rig, through scratch that lives only here. */
static bw_result resolve_masks(bw_graph_cursor *c, const int *mask_joints)
{
    size_t nj = (size_t)c->joint_count;
    size_t bytes = nj * sizeof(float) + nj;
    float *inherit = (float *)bw_alloc(&c->alloc, bytes);
    if (!inherit) return BW_ERR_OUT_OF_MEMORY;
    unsigned char *has = (unsigned char *)(inherit + nj);
    for (int l = 0; l < c->g->layer_count; l++) {
        int m = c->g->layers[l].mask;
        if (m >= 0)
            resolve_mask(c, &c->g->masks[m], mask_joints + c->g->masks[m].entry_first, c->layers[l].mask, inherit, has);
    }
    bw_free(&c->alloc, inherit, bytes);
    return BW_OK;
}

/* The additive references, baked: a clip's pose at a time, or the rest pose. */
static void bake_references(bw_graph_cursor *c)
{
    for (int i = 0; i < c->g->ref_count; i++) {
        const g_ref *ref = &c->g->refs[i];
        if (ref->clip < 0) bw_pose_set_rest(&c->refs[i], c->rig);
        else bw_sample_clip(c->bindings[ref->clip], c->rig, ref->time, &c->refs[i]);
    }
}

bw_result bw_graph_cursor_rebind(bw_graph_cursor *c, const bw_binding *const *bindings, int binding_count,
                                 bw_graph_errors *errors)
{
    bw_graph_report r;
    bw_graph_report_begin(&r, errors);
    if (!c) {
        bw_graph_problem(&r, BW_ERR_INVALID_ARGUMENT, "", "NULL cursor");
        return r.first;
    }
    bw_graph_cursor_desc d = {.rig = c->rig, .bindings = bindings, .binding_count = binding_count};
    check_bindings(c->g, &d, &r);
    if (r.count) return r.first;
    /* the last evaluated poses kept while the clips they were mixed from live */
    for (int l = 0; l < c->g->layer_count; l++) {
        layer_rt *R = &c->layers[l];
        if (R->last == LAST_MIX) {
            (void)last_pose(c, R, R->own);
            R->last = LAST_OWN;
        }
    }
    for (int i = 0; i < c->g->clip_count; i++) c->bindings[i] = bindings[i];
    bake_references(c);
    /* still the shared set's numbers, or another existing set's, or its own
       (rebind never allocates) */
    if (!c->share || !refs_equal(c->g, c->share->poses, c->refs)) {
        /* a layer measuring from one baked reference reads it by id
           (ref_view), so it reads the same one in the new set */
        share_detach(c);
        share_attach(c, false);
    }
    c->gen++; /* leaf lengths may have changed with a refresh */
    return BW_OK;
}

static void reset_state(bw_graph_cursor *c, const bw_graph_cursor_desc *d)
{
    const bw_graph *g = c->g;
    for (int i = 0; i < g->clip_count; i++) c->bindings[i] = d->bindings[i];
    for (int i = 0; i < g->param_count; i++) c->params[i] = g->params[i].value;
    for (int l = 0; l < g->layer_count; l++) {
        layer_rt *R = &c->layers[l];
        const g_layer *L = &g->layers[l];
        R->cur = (play){L->entry, state_of(c, l, L->entry)->offset, true};
        R->src = (play){-1, 0.0, false};
        R->tr = R->from = -1;
        R->route = c->routes + (size_t)l * (size_t)g->max_states;
        R->ref_view_id = -1;
        for (int k = 0; k < SLOTS; k++) {
            R->leaves[k] = k == SLOT_GONE ? c->gone_store + (size_t)l * (size_t)g->max_leaves
                                          : c->leaf_store + ((size_t)l * SLOT_GONE + (size_t)k) * (size_t)g->max_leaves;
            R->leaf_state[k] = -1;
            R->leaf_n[k] = 0;
        }
        R->weight = R->w_from = R->w_to = L->weight;
    }
}

bw_result bw_graph_cursor_create(const bw_graph *graph, const bw_graph_cursor_desc *desc, bw_graph_cursor **out_cursor,
                                 bw_graph_errors *errors)
{
    bw_graph_report r;
    bw_graph_report_begin(&r, errors);
    if (!graph || !desc || !desc->rig || !out_cursor) {
        bw_graph_problem(&r, BW_ERR_INVALID_ARGUMENT, "", "NULL %s",
                         !graph       ? "graph"
                         : !desc      ? "desc"
                         : !desc->rig ? "rig"
                                      : "out_cursor");
        return r.first;
    }
    bw_allocator alloc = desc->allocator;
    size_t mj_bytes = (size_t)graph->mask_entry_count * sizeof(int);
    int *mask_joints = (int *)bw_alloc(&alloc, mj_bytes);
    if (!mask_joints) {
        bw_graph_problem(&r, BW_ERR_OUT_OF_MEMORY, "", "out of memory");
        return r.first;
    }
    check_cursor_desc(graph, desc, mask_joints, &r);
    bw_graph_cursor *c = NULL;
    /* none dropped, room for a few updates per drain, a bounded reservation */
    int events = desc->event_capacity ? desc->event_capacity : bw_graph_default_events(graph);
    if (r.count == 0) c = allocate_cursor(graph, desc->rig, &alloc, events);
    if (r.count == 0 && !c) bw_graph_problem(&r, BW_ERR_OUT_OF_MEMORY, "", "out of memory");
    if (c) {
        bw_result res = resolve_masks(c, mask_joints);
        if (res == BW_OK) {
            reset_state(c, desc);
            bake_references(c);
            share_attach(c, true);
            /* The entry poses: the freeze snapshot source before the first evaluation. */
            for (int l = 0; l < graph->layer_count && res == BW_OK; l++) res = evaluate_layer(c, l, c->layers[l].own);
        }
        if (res != BW_OK) {
            bw_graph_problem(&r, res, "", "%s", res == BW_ERR_OUT_OF_MEMORY ? "out of memory" : "entry pose failed");
            cursor_free(c);
            c = NULL;
        }
    }
    bw_free(&alloc, mask_joints, mj_bytes);
    if (!c) return r.first;
    *out_cursor = c;
    return BW_OK;
}

bw_graph_cursor_counters bw_graph_cursor_counters_of(const bw_graph_cursor *c)
{
    bw_graph_cursor_counters none = {0, 0, 0};
    return c ? c->counters : none;
}
