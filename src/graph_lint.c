/* graph_lint.c - the lint pass over graph descs (graph_lint.h).
 *
 * Every check reads the desc defensively: a missing name, a NULL list or
 * an index out of range is compile's to report (step 1), so the checks
 * after it skip such entries instead of failing on them. */
#include "blendwerk/graph_lint.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "blendwerk/clip.h"
#include "blendwerk/rig.h"
#include "common.h"
#include "graph_internal.h"

typedef struct lint {
    const bw_graph_desc *d;
    const bw_rig *rig;
    bw_graph_lint_fn fn;
    void *user;
    bw_result first; /* the first error's result */
    bool oom;
} lint;

#if defined(__GNUC__)
__attribute__((format(printf, 6, 7)))
#endif
static void
report(lint *l, bw_graph_lint_severity severity, bw_graph_lint_code code, bw_result result, const char *where,
       const char *fmt, ...)
{
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    if (severity == BW_GRAPH_LINT_ERROR && l->first == BW_OK) l->first = result;
    if (!l->fn) return;
    bw_graph_lint_item item = {severity, code, result, where, message};
    l->fn(l->user, &item);
}

#define WARN(l, code, where, ...) report(l, BW_GRAPH_LINT_WARNING, code, BW_OK, where, __VA_ARGS__)

/* ---- defensive desc access ---- */

/* How many entries of a list can be walked (compile reports the rest). */
static int walkable(const void *items, int count)
{
    return items && count > 0 && count <= BW_GRAPH_MAX_ITEMS ? count : 0;
}

static bool same(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }
static bool is_any(const char *s) { return same(s, BW_GRAPH_NAME_ANY); }
static const char *shown(const char *s) { return s ? s : "(null)"; }

static int find_param(const bw_graph_desc *d, const char *name)
{
    for (int i = 0; i < walkable(d->params, d->param_count); i++)
        if (same(d->params[i].name, name)) return i;
    return -1;
}

static int find_state(const bw_graph_layer_desc *L, const char *name)
{
    for (int i = 0; i < walkable(L->states, L->state_count); i++)
        if (same(L->states[i].name, name)) return i;
    return -1;
}

static const bw_clip *desc_clip(const bw_graph_desc *d, int clip)
{
    return d->clips && clip >= 0 && clip < d->clip_count ? d->clips[clip] : NULL;
}

/* 1: the state loops, 0: it does not, -1: unknown (no clips given). */
static int state_loops(const bw_graph_desc *d, const bw_graph_state_desc *st)
{
    if (st->loop == BW_GRAPH_LOOP_YES) return 1;
    if (st->loop == BW_GRAPH_LOOP_NO) return 0;
    if (st->loop != BW_GRAPH_LOOP_CLIP) return -1;
    if (st->blend) return 1;
    const bw_clip *c = desc_clip(d, st->clip);
    return c ? bw_clip_loop(c) : -1;
}

/* Why a looping state never advances (NULL when it may): a clip of
 * length 0 (docs/decisions.md: a zero-length looping clip stands still)
 * or a constant speed 0 (no speed parameter). Blend states are left out. */
static const char *stands_still(const bw_graph_desc *d, const bw_graph_state_desc *st)
{
    if (st->has_speed && st->speed == 0.0f && !st->speed_param) return "has speed 0";
    if (st->blend) return NULL;
    const bw_clip *c = desc_clip(d, st->clip);
    return c && !(bw_clip_length(c) > 0.0f) ? "loops a clip of length 0" : NULL;
}

/* The blend parameters a tree's nodes read (param_x, and param_y for the
 * 2D kinds) are marked in read[0..param_count); its leaves' clips in
 * played[0..clip_count) (either may be NULL). */
static void scan_tree(const bw_blend_tree *tree, bool *read, int param_count, bool *played, int clip_count)
{
    for (int i = 0; i < bw_blend_tree_node_count(tree); i++) {
        const bw_blend_node *n = bw_blend_tree_node(tree, i);
        if (!n) continue;
        if (n->kind == BW_BLEND_NODE_CLIP) {
            if (played && n->clip >= 0 && n->clip < clip_count) played[n->clip] = true;
            continue;
        }
        int ps[2] = {n->param_x, n->kind == BW_BLEND_NODE_1D ? -1 : n->param_y};
        for (int k = 0; k < 2; k++)
            if (read && ps[k] >= 0 && ps[k] < param_count) read[ps[k]] = true;
    }
}

/* ---- 1. what compile refuses ---- */

static void lint_compile(lint *l)
{
    bw_graph_errors probe = {NULL, 0, 0};
    bw_graph *g = NULL;
    if (bw_graph_compile(l->d, &g, &probe) == BW_OK) {
        bw_graph_destroy(g);
        return;
    }
    if (probe.count <= 0) return;
    bw_error *errs = bw_alloc(&l->d->allocator, sizeof *errs * (size_t)probe.count);
    if (!errs) {
        l->oom = true;
        return;
    }
    bw_graph_errors list = {errs, probe.count, 0};
    if (bw_graph_compile(l->d, &g, &list) == BW_OK) bw_graph_destroy(g); /* cannot happen: same desc */
    int n = list.count < list.capacity ? list.count : list.capacity;
    for (int i = 0; i < n; i++)
        report(l, BW_GRAPH_LINT_ERROR, BW_GRAPH_LINT_COMPILE, errs[i].code, errs[i].where, "%s", errs[i].message);
    bw_free(&l->d->allocator, errs, sizeof *errs * (size_t)probe.count);
}

/* ---- 2. against the rig ---- */


static void lint_mask_joints(lint *l)
{
    const bw_graph_desc *d = l->d;
    char where[96];
    for (int m = 0; m < walkable(d->masks, d->mask_count); m++) {
        const bw_graph_mask_desc *mask = &d->masks[m];
        for (int e = 0; e < walkable(mask->entries, mask->entry_count); e++) {
            const char *name = mask->entries[e].joint;
            if (!name) continue;
            int j = bw_graph_find_mask_joint(l->rig, name);
            snprintf(where, sizeof where, "masks[%d].entries[%d].joint", m, e);
            if (j == BW_RIG_AMBIGUOUS)
                report(l, BW_GRAPH_LINT_ERROR, BW_GRAPH_LINT_MASK_JOINT, BW_ERR_DUPLICATE, where,
                       "joint name '%s' is ambiguous in the rig (mask '%s'; write 'parent/%s')", name,
                       shown(mask->name), name);
            else if (j < 0)
                report(l, BW_GRAPH_LINT_ERROR, BW_GRAPH_LINT_MASK_JOINT, BW_ERR_NOT_FOUND, where,
                       "no joint '%s' in the rig (mask '%s')", name, shown(mask->name));
        }
    }
}

static void lint_clip_bindings(lint *l)
{
    const bw_graph_desc *d = l->d;
    int n = walkable(d->clips, d->clip_count);
    if (n == 0) return;
    bool *played = bw_alloc_zeroed(&d->allocator, sizeof *played * (size_t)n);
    if (!played) {
        l->oom = true;
        return;
    }
    for (int i = 0; i < walkable(d->layers, d->layer_count); i++) {
        const bw_graph_layer_desc *L = &d->layers[i];
        for (int s = 0; s < walkable(L->states, L->state_count); s++) {
            const bw_graph_state_desc *st = &L->states[s];
            if (st->blend) scan_tree(st->blend, NULL, 0, played, n);
            else if (st->clip >= 0 && st->clip < n) played[st->clip] = true;
            const bw_graph_reference_desc *ref = &st->reference; /* a reference clip is sampled too */
            if (ref->kind == BW_GRAPH_REF_CLIP && ref->clip >= 0 && ref->clip < n) played[ref->clip] = true;
        }
    }
    char where[32];
    for (int c = 0; c < n && !l->oom; c++) {
        const bw_clip *clip = d->clips[c];
        int tracks = clip ? bw_clip_track_count(clip) : 0;
        if (!played[c] || tracks == 0) continue;
        bw_binding *b = NULL;
        bw_binding_desc bd = {.clip = clip, .rig = l->rig, .allocator = d->allocator};
        bw_result r = bw_binding_create(&bd, &b, NULL);
        if (r != BW_OK) {
            l->oom = r == BW_ERR_OUT_OF_MEMORY;
            continue;
        }
        bw_bind_report rep = bw_binding_report(b);
        bw_binding_destroy(b);
        snprintf(where, sizeof where, "clips[%d]", c);
        if (rep.bound == 0)
            WARN(l, BW_GRAPH_LINT_CLIP_UNBOUND, where,
                 "clip '%s' drives no joint of the rig (none of its %d tracks binds)", bw_clip_name(clip), tracks);
    }
    bw_free(&d->allocator, played, sizeof *played * (size_t)n);
}

/* ---- conditions that can hold together ---- */

static bool holds(const bw_graph_condition_desc *c, double v)
{
    switch (c->kind) {
    case BW_GRAPH_COND_TRUE: return v != 0;
    case BW_GRAPH_COND_NOT: return v == 0;
    case BW_GRAPH_COND_COMPARE: break;
    default: return true;
    }
    if ((int)c->op < 0 || c->op >= BW_GRAPH_OP_COUNT) return true; /* compile reports it; assume nothing */
    return bw_graph_compare(c->op, v, c->value);
}

/* Scratch for satisfiable(): room for every condition of a layer. */
typedef struct sat_scratch {
    const bw_graph_condition_desc **conds;
    double *values;
    int capacity;
} sat_scratch;

/* Whether some value of parameter p makes every condition on p in
 * conds[0..n) hold. Their truth only changes at the constants they name
 * (and at 0), so a constant, a midpoint between neighbouring constants or
 * a value beyond either end decides; a bool or trigger is 0 or 1. */
static bool param_satisfiable(const bw_graph_desc *d, int p, const bw_graph_condition_desc *const *conds, int n,
                              double *values)
{
    int m = 0;
    values[m++] = 0;
    for (int i = 0; i < n; i++)
        if (conds[i]->kind == BW_GRAPH_COND_COMPARE && find_param(d, conds[i]->param) == p)
            values[m++] = conds[i]->value;
    bool binary = d->params[p].kind != BW_GRAPH_PARAM_FLOAT;
    int constants = m;
    double lo = values[0], hi = values[0];
    for (int i = 1; i < constants; i++) {
        lo = values[i] < lo ? values[i] : lo;
        hi = values[i] > hi ? values[i] : hi;
    }
    if (binary) {
        values[0] = 0;
        values[1] = 1;
        m = 2;
    } else {
        /* a parameter is a float: the candidates are floats, the next one
         * beyond either end (hi + 2 was hi itself beyond 2^53, and "x > 1e20"
         * seemed never to hold) and a float between neighbouring constants
         * (the midpoint rounded: strictly between unless they are adjacent
         * floats, and then nothing is) */
        const double above = hi < FLT_MAX ? nextafterf((float)hi, INFINITY) : hi;
        for (int i = 0; i < constants; i++) {
            double next = INFINITY;
            for (int k = 0; k < constants; k++)
                if (values[k] > values[i] && values[k] < next) next = values[k];
            values[m++] = next == INFINITY ? above : (double)(float)((values[i] + next) / 2);
        }
        values[m++] = lo > -FLT_MAX ? nextafterf((float)lo, -INFINITY) : lo;
    }
    for (int v = 0; v < m; v++) {
        bool all = true;
        for (int i = 0; i < n && all; i++)
            if (find_param(d, conds[i]->param) == p) all = holds(conds[i], values[v]);
        if (all) return true;
    }
    return false;
}

/* The first parameter that no value satisfies, or -1 when every one can
 * be (predicates and unknown names count as satisfiable). */
static int unsatisfiable_param(const bw_graph_desc *d, const bw_graph_condition_desc *const *conds, int n,
                               double *values)
{
    for (int i = 0; i < n; i++) {
        int p = conds[i]->kind == BW_GRAPH_COND_PREDICATE ? -1 : find_param(d, conds[i]->param);
        if (p >= 0 && !param_satisfiable(d, p, conds, n, values)) return p;
    }
    return -1;
}

/* Append transition t's conditions to the scratch list at *n. */
static void gather(sat_scratch *s, const bw_graph_transition_desc *t, int *n)
{
    for (int i = 0; i < walkable(t->conditions, t->condition_count) && *n < s->capacity; i++)
        s->conds[(*n)++] = &t->conditions[i];
}

/* ---- 3. per layer ---- */

typedef struct layer_scan {
    const bw_graph_layer_desc *L;
    int index; /* layer index */
    int states, transitions;
    int *from, *to;    /* per transition: state index, -1 unknown; from -2 = any */
    int *queue, *prev; /* per state: BFS queue, the edge that reached it (-1 none) */
    int *up;           /* per state: the state that edge left */
    bool *seen;        /* per state */
    bool *instant;     /* per transition: duration 0, no exit time, no trigger, satisfiable */
    sat_scratch sat;
} layer_scan;

#define FROM_ANY (-2)

static bool always_fires(const bw_graph_transition_desc *t) { return t->condition_count == 0 && !t->has_exit_time; }

/* Whether edge k leaves state s (an any-state edge leaves every state but
 * its destination, unless to_self). */
static bool leaves(const layer_scan *ls, int k, int s)
{
    if (ls->to[k] < 0) return false;
    if (ls->from[k] == FROM_ANY) return ls->to[k] != s || ls->L->transitions[k].to_self;
    return ls->from[k] == s;
}

/* Breadth-first from `start` over the edges k (k > after) accepted by
 * `use` (NULL: all); seen[] and prev[] say what was reached and how.
 * Returns the states reached. */
static int bfs(layer_scan *ls, int start, int after, const bool *use)
{
    for (int s = 0; s < ls->states; s++) {
        ls->seen[s] = false;
        ls->prev[s] = -1;
        ls->up[s] = -1;
    }
    int head = 0, tail = 0;
    ls->seen[start] = true;
    ls->queue[tail++] = start;
    while (head < tail) {
        int s = ls->queue[head++];
        for (int k = after + 1; k < ls->transitions; k++) {
            if ((use && !use[k]) || !leaves(ls, k, s) || ls->seen[ls->to[k]]) continue;
            ls->seen[ls->to[k]] = true;
            ls->prev[ls->to[k]] = k;
            ls->up[ls->to[k]] = s;
            ls->queue[tail++] = ls->to[k];
        }
    }
    return tail;
}

static void lint_reachable(lint *l, layer_scan *ls)
{
    int entry = find_state(ls->L, ls->L->entry);
    if (entry < 0) return;
    bfs(ls, entry, -1, NULL);
    char where[64];
    for (int s = 0; s < ls->states; s++) {
        if (ls->seen[s] || !ls->L->states[s].name) continue;
        snprintf(where, sizeof where, "layers[%d].states[%d]", ls->index, s);
        WARN(l, BW_GRAPH_LINT_UNREACHABLE_STATE, where, "state '%s' is unreachable from the entry '%s'",
             ls->L->states[s].name, ls->L->entry);
    }
}

/* The always-true, gate-less transition that wins before k whenever k's
 * source is current, or -1. */
static int shadowing(const layer_scan *ls, int k)
{
    const bw_graph_transition_desc *ts = ls->L->transitions;
    for (int j = 0; j < ls->transitions; j++) {
        if (j == k || ls->to[j] < 0 || ls->from[j] != FROM_ANY || !always_fires(&ts[j])) continue;
        if (ls->from[k] == FROM_ANY) {
            /* both any-state: j is checked first only if earlier; it fires
             * wherever k could when it may re-enter or shares k's target */
            if (j < k && (ts[j].to_self || ls->to[j] == ls->to[k])) return j;
        } else if (ls->from[k] >= 0 && (ts[j].to_self || ls->to[j] != ls->from[k])) {
            return j; /* any-state transitions are checked before a state's own */
        }
    }
    if (ls->from[k] < 0) return -1;
    for (int j = 0; j < k; j++)
        if (ls->from[j] == ls->from[k] && ls->to[j] >= 0 && always_fires(&ts[j])) return j;
    return -1;
}

static const char *state_name(const layer_scan *ls, int s) { return s >= 0 ? ls->L->states[s].name : "*"; }

static void lint_transitions(lint *l, layer_scan *ls)
{
    const bw_graph_desc *d = l->d;
    const bw_graph_transition_desc *ts = ls->L->transitions;
    char where[96];
    for (int k = 0; k < ls->transitions; k++) {
        const bw_graph_transition_desc *t = &ts[k];
        ls->instant[k] = false;
        if (ls->to[k] < 0 || ls->from[k] == -1) continue; /* compile reports the names */
        snprintf(where, sizeof where, "layers[%d].transitions[%d]", ls->index, k);
        int j = shadowing(ls, k);
        if (j >= 0)
            WARN(l, BW_GRAPH_LINT_SHADOWED_TRANSITION, where,
                 "never fires on its own: transitions[%d] ('%s' -> '%s') has no conditions and no exit time and "
                 "is checked first (travel may still take this one)",
                 j, shown(ts[j].from), state_name(ls, ls->to[j]));
        int n = 0;
        gather(&ls->sat, t, &n);
        int p = unsatisfiable_param(d, ls->sat.conds, n, ls->sat.values);
        if (p >= 0)
            WARN(l, BW_GRAPH_LINT_CONTRADICTION, where, "never fires: its conditions on '%s' cannot all hold at once",
                 d->params[p].name);
        if (t->has_exit_time && t->exit_time > 1 && ls->from[k] >= 0 &&
            state_loops(d, &ls->L->states[ls->from[k]]) == 0) {
            snprintf(where, sizeof where, "layers[%d].transitions[%d].exit_time", ls->index, k);
            WARN(l, BW_GRAPH_LINT_EXIT_TIME_NEVER, where,
                 "exit time %g never opens: state '%s' does not loop, so its normalized time stops at 1",
                 (double)t->exit_time, state_name(ls, ls->from[k]));
        }
        const char *still = NULL;
        if (t->has_exit_time && ls->from[k] >= 0 && state_loops(d, &ls->L->states[ls->from[k]]) == 1)
            still = stands_still(d, &ls->L->states[ls->from[k]]);
        if (still) {
            snprintf(where, sizeof where, "layers[%d].transitions[%d].exit_time", ls->index, k);
            WARN(l, BW_GRAPH_LINT_EXIT_TIME_NEVER, where,
                 "exit time %g never opens: state '%s' %s, so its normalized time stands still", (double)t->exit_time,
                 state_name(ls, ls->from[k]), still);
        }
        bool trigger = false;
        for (int c = 0; c < walkable(t->conditions, t->condition_count); c++) {
            int q = t->conditions[c].kind == BW_GRAPH_COND_PREDICATE ? -1 : find_param(d, t->conditions[c].param);
            trigger |= q >= 0 && d->params[q].kind == BW_GRAPH_PARAM_TRIGGER;
        }
        /* a trigger is consumed when it fires, so such an edge cannot repeat by itself */
        ls->instant[k] = t->duration == 0 && !t->has_exit_time && !trigger && p < 0;
    }
}

/* Cycles of instant transitions whose conditions can all hold together,
 * each reported once, at its lowest-numbered transition e: a route of
 * later instant transitions from e's destination back to a state e leaves. */
static void lint_instant_cycles(lint *l, layer_scan *ls)
{
    const bw_graph_transition_desc *ts = ls->L->transitions;
    char where[64], route[256];
    for (int e = 0; e < ls->transitions; e++) {
        if (!ls->instant[e]) continue;
        int v = ls->to[e];
        int reached = bfs(ls, v, e, ls->instant);
        int close = -1;
        for (int q = 0; q < reached && close < 0; q++)
            if (leaves(ls, e, ls->queue[q])) close = ls->queue[q];
        if (close < 0) continue;
        /* the route back, close .. v, into queue (no longer needed) */
        int n = 0, depth = 0;
        gather(&ls->sat, &ts[e], &n);
        for (int s = close; depth < ls->states; s = ls->up[s]) {
            ls->queue[depth++] = s;
            if (s == v) break;
            gather(&ls->sat, &ts[ls->prev[s]], &n);
        }
        if (unsatisfiable_param(l->d, ls->sat.conds, n, ls->sat.values) >= 0) continue;
        /* from e's source: close -> v -> ... -> close */
        int len = snprintf(route, sizeof route, "'%s'", state_name(ls, close));
        for (int i = depth - 1; i >= 0 && len > 0 && len < (int)sizeof route; i--)
            len += snprintf(route + len, sizeof route - (size_t)len, " -> '%s'", state_name(ls, ls->queue[i]));
        snprintf(where, sizeof where, "layers[%d].transitions[%d]", ls->index, e);
        WARN(l, BW_GRAPH_LINT_INSTANT_CYCLE, where,
             "zero-duration cycle %s with no exit time: while its conditions hold the layer changes state every "
             "update and never shows a fade",
             route);
    }
}

static void lint_layer(lint *l, int index)
{
    const bw_graph_desc *d = l->d;
    const bw_graph_layer_desc *L = &d->layers[index];
    layer_scan ls = {L,
                     index,
                     walkable(L->states, L->state_count),
                     walkable(L->transitions, L->transition_count),
                     NULL,
                     NULL,
                     NULL,
                     NULL,
                     NULL,
                     NULL,
                     NULL,
                     {NULL, NULL, 0}};
    if (ls.states == 0) return;
    int conds = 0;
    for (int k = 0; k < ls.transitions; k++)
        conds += walkable(L->transitions[k].conditions, L->transitions[k].condition_count);
    size_t T = (size_t)ls.transitions, S = (size_t)ls.states, C = (size_t)conds;
    size_t size =
        sizeof(int) * (2 * T + 3 * S) + sizeof(bool) * (S + T) + sizeof(void *) * C + sizeof(double) * (3 * C + 3) + 16;
    char *block = bw_alloc(&d->allocator, size);
    if (!block) {
        l->oom = true;
        return;
    }
    double *values = (double *)(void *)block; /* first: the strictest alignment */
    const bw_graph_condition_desc **cl = (const bw_graph_condition_desc **)(void *)(values + 3 * C + 3);
    int *ints = (int *)(void *)(cl + C);
    ls.from = ints;
    ls.to = ints + T;
    ls.queue = ints + 2 * T;
    ls.prev = ints + 2 * T + S;
    ls.up = ints + 2 * T + 2 * S;
    ls.seen = (bool *)(ints + 2 * T + 3 * S);
    ls.instant = ls.seen + S;
    ls.sat = (sat_scratch){cl, values, conds};
    for (int k = 0; k < ls.transitions; k++) {
        const bw_graph_transition_desc *t = &L->transitions[k];
        ls.from[k] = is_any(t->from) ? FROM_ANY : find_state(L, t->from);
        ls.to[k] = find_state(L, t->to);
    }
    lint_reachable(l, &ls);
    lint_transitions(l, &ls);
    lint_instant_cycles(l, &ls);
    bw_free(&d->allocator, block, size);
}

/* ---- 4. what nothing reads ---- */

static void lint_unused(lint *l)
{
    const bw_graph_desc *d = l->d;
    int P = walkable(d->params, d->param_count), M = walkable(d->masks, d->mask_count);
    size_t size = sizeof(bool) * (size_t)(P + M);
    bool *read = bw_alloc_zeroed(&d->allocator, size);
    if (!read) {
        l->oom = true;
        return;
    }
    bool *used_mask = read + P;
    bool predicate = false;
    for (int i = 0; i < walkable(d->layers, d->layer_count); i++) {
        const bw_graph_layer_desc *L = &d->layers[i];
        int p = find_param(d, L->weight_param);
        if (p >= 0) read[p] = true;
        for (int m = 0; m < M; m++) used_mask[m] |= same(d->masks[m].name, L->mask);
        for (int s = 0; s < walkable(L->states, L->state_count); s++) {
            const bw_graph_state_desc *st = &L->states[s];
            p = find_param(d, st->speed_param);
            if (p >= 0) read[p] = true;
            if (st->blend) scan_tree(st->blend, read, P, NULL, 0);
        }
        for (int k = 0; k < walkable(L->transitions, L->transition_count); k++) {
            const bw_graph_transition_desc *t = &L->transitions[k];
            for (int c = 0; c < walkable(t->conditions, t->condition_count); c++) {
                const bw_graph_condition_desc *cd = &t->conditions[c];
                if (cd->kind == BW_GRAPH_COND_PREDICATE) predicate = true;
                else if ((p = find_param(d, cd->param)) >= 0) read[p] = true;
            }
        }
    }
    char where[32];
    for (int p = 0; p < P; p++) {
        const bw_graph_param_desc *pd = &d->params[p];
        if (read[p] || !pd->name || find_param(d, pd->name) != p) continue; /* duplicates: compile's */
        snprintf(where, sizeof where, "params[%d]", p);
        if (pd->kind == BW_GRAPH_PARAM_TRIGGER)
            WARN(l, BW_GRAPH_LINT_UNUSED_TRIGGER, where,
                 "trigger '%s' is never consumed: no transition's conditions name it", pd->name);
        else if (!predicate)
            WARN(l, BW_GRAPH_LINT_UNUSED_PARAM, where,
                 "parameter '%s' is never read: no condition, state speed, layer weight or blend node uses it",
                 pd->name);
    }
    for (int m = 0; m < M; m++) {
        if (used_mask[m] || !d->masks[m].name) continue;
        snprintf(where, sizeof where, "masks[%d]", m);
        WARN(l, BW_GRAPH_LINT_UNUSED_MASK, where, "mask '%s' is not used by any layer", d->masks[m].name);
    }
    bw_free(&d->allocator, read, size);
}

/* ---- entry points ---- */

bw_result bw_graph_lint(const bw_graph_desc *desc, const bw_rig *rig, bw_graph_lint_fn fn, void *user)
{
    if (!desc) return BW_ERR_INVALID_ARGUMENT;
    lint l = {desc, rig, fn, user, BW_OK, false};
    lint_compile(&l);
    if (rig && !l.oom) lint_mask_joints(&l);
    if (rig && !l.oom) lint_clip_bindings(&l);
    for (int i = 0; i < walkable(desc->layers, desc->layer_count) && !l.oom; i++) lint_layer(&l, i);
    if (!l.oom) lint_unused(&l);
    return l.oom ? BW_ERR_OUT_OF_MEMORY : l.first;
}

const char *bw_graph_lint_code_name(bw_graph_lint_code code)
{
    static const char *const names[BW_GRAPH_LINT_CODE_COUNT] = {
        "compile",         "mask-joint",    "clip-unbound", "unreachable-state", "shadowed-transition", "contradiction",
        "exit-time-never", "instant-cycle", "unused-param", "unused-trigger",    "unused-mask",
    };
    return (unsigned)code < BW_GRAPH_LINT_CODE_COUNT ? names[code] : "unknown";
}
