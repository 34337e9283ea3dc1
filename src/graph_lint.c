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
#include <stdlib.h>
#include <string.h>

#include "blendwerk/clip.h"
#include "blendwerk/rig.h"
#include "common.h"
#include "graph_internal.h"
#include "name_index.h"

typedef struct lint {
    const bw_graph_desc *d;
    const bw_rig *rig;
    bw_graph_lint_fn fn;
    void *user;
    bw_result first; /* the first error's result */
    bool oom;
    bw_name_index params, masks; /* the walkable ones' names */
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

/* The first walkable parameter named `name`, or -1. */
static int find_param(const lint *l, const char *name) { return bw_name_index_find(&l->params, name); }

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

/* Scratch for satisfiable(): room for every condition of a layer. */
typedef struct sat_scratch {
    const bw_graph_condition_desc **conds;
    double *values;   /* 3 * capacity + 3 */
    bool *checked;    /* per parameter, all false between calls */
    int capacity;
} sat_scratch;

/* What every condition on one parameter asks of its value v, folded so
 * that a candidate is judged in O(log n) instead of against each
 * condition in turn, with the same answer: TRUE is v != 0, NOT v == 0, a
 * comparison bw_graph_compare(op, v, constant); other kinds, and unknown
 * operators (compile reports them), assume nothing. */
typedef struct param_rule {
    bool never; /* a comparison with NaN (or two different equalities): nothing holds */
    bool has_gt, has_ge, has_lt, has_le, has_eq, nonzero, zero;
    double gt, ge, lt, le, eq; /* the strictest bound of each kind */
    const double *ne;          /* the constants of != (NaN left out: it always holds), ascending */
    int ne_count;
} param_rule;

static int double_cmp(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* The first of sorted[0..n) strictly greater than v (n when none). */
static int first_above(const double *sorted, int n, double v)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (sorted[mid] > v) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

static void fold(param_rule *r, const bw_graph_condition_desc *c, double *ne)
{
    if (c->kind == BW_GRAPH_COND_TRUE) r->nonzero = true;
    else if (c->kind == BW_GRAPH_COND_NOT) r->zero = true;
    if (c->kind != BW_GRAPH_COND_COMPARE || (int)c->op < 0 || c->op >= BW_GRAPH_OP_COUNT) return;
    double k = c->value;
    if (k != k) {
        r->never |= c->op != BW_GRAPH_NE;
        return;
    }
    switch (c->op) {
    case BW_GRAPH_GT: r->gt = r->has_gt && r->gt > k ? r->gt : k, r->has_gt = true; break;
    case BW_GRAPH_GE: r->ge = r->has_ge && r->ge > k ? r->ge : k, r->has_ge = true; break;
    case BW_GRAPH_LT: r->lt = r->has_lt && r->lt < k ? r->lt : k, r->has_lt = true; break;
    case BW_GRAPH_LE: r->le = r->has_le && r->le < k ? r->le : k, r->has_le = true; break;
    case BW_GRAPH_EQ:
        r->never |= r->has_eq && r->eq != k;
        r->eq = k, r->has_eq = true;
        break;
    default: ne[r->ne_count++] = k; break;
    }
}

static bool rule_holds(const param_rule *r, double v)
{
    if (r->never || (r->has_gt && !(v > r->gt)) || (r->has_ge && !(v >= r->ge)) || (r->has_lt && !(v < r->lt)) ||
        (r->has_le && !(v <= r->le)) || (r->has_eq && !(v == r->eq)) || (r->nonzero && !(v != 0)) ||
        (r->zero && !(v == 0)))
        return false;
    int lo = 0, hi = r->ne_count; /* the first != constant >= v */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (r->ne[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return !(lo < r->ne_count && r->ne[lo] == v);
}

/* Whether some value of parameter p makes every condition on p in
 * conds[0..n) hold. Their truth only changes at the constants they name
 * (and at 0), so a constant, a midpoint between neighbouring constants or
 * a value beyond either end decides; a bool or trigger is 0 or 1. The
 * constants are sorted once, so this is O(n log n). values: 3n + 3. */
static bool param_satisfiable(const lint *l, int p, const bw_graph_condition_desc *const *conds, int n,
                              double *values)
{
    double *sorted = values + n + 1, *ne = sorted + n + 1;
    param_rule rule = {0};
    rule.ne = ne;
    int m = 0;
    values[m++] = 0;
    for (int i = 0; i < n; i++) {
        if (find_param(l, conds[i]->param) != p) continue;
        fold(&rule, conds[i], ne);
        if (conds[i]->kind == BW_GRAPH_COND_COMPARE) values[m++] = conds[i]->value;
    }
    qsort(ne, (size_t)rule.ne_count, sizeof *ne, double_cmp);
    if (l->d->params[p].kind != BW_GRAPH_PARAM_FLOAT) return rule_holds(&rule, 0) || rule_holds(&rule, 1);
    int k = 0; /* the constants but NaN, ascending: sorted[0] is the lowest, sorted[k - 1] the highest */
    for (int i = 0; i < m; i++)
        if (values[i] == values[i]) sorted[k++] = values[i];
    qsort(sorted, (size_t)k, sizeof *sorted, double_cmp);
    double lo = sorted[0], hi = sorted[k - 1];
    /* a parameter is a float: the candidates are floats, the next one
     * beyond either end (hi + 2 was hi itself beyond 2^53, and "x > 1e20"
     * seemed never to hold) and a float between neighbouring constants
     * (the midpoint rounded: strictly between unless they are adjacent
     * floats, and then nothing is); an infinite neighbour counts as none */
    const double above = hi < FLT_MAX ? nextafterf((float)hi, INFINITY) : hi;
    for (int i = 0; i < m; i++) {
        if (rule_holds(&rule, values[i])) return true;
        int j = values[i] == values[i] ? first_above(sorted, k, values[i]) : k;
        double next = j < k ? sorted[j] : INFINITY;
        if (rule_holds(&rule, next == INFINITY ? above : (double)(float)((values[i] + next) / 2))) return true;
    }
    return rule_holds(&rule, lo > -FLT_MAX ? nextafterf((float)lo, -INFINITY) : lo);
}

/* The first parameter that no value satisfies, or -1 when every one can
 * be (predicates and unknown names count as satisfiable). Each parameter
 * is judged once (s->checked marks it meanwhile). */
static int unsatisfiable_param(const lint *l, const sat_scratch *s, int n)
{
    int found = -1;
    for (int i = 0; i < n && found < 0; i++) {
        int p = s->conds[i]->kind == BW_GRAPH_COND_PREDICATE ? -1 : find_param(l, s->conds[i]->param);
        if (p < 0 || s->checked[p]) continue;
        s->checked[p] = true;
        if (!param_satisfiable(l, p, s->conds, n, s->values)) found = p;
    }
    for (int i = 0; i < n; i++) {
        int p = s->conds[i]->kind == BW_GRAPH_COND_PREDICATE ? -1 : find_param(l, s->conds[i]->param);
        if (p >= 0) s->checked[p] = false;
    }
    return found;
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
    bw_name_index names; /* the layer's state names */
    int *from, *to;      /* per transition: state index, -1 unknown; from -2 = any */
    /* the edges (transitions with a known destination) by source: own[own_first[s] ..
       own_first[s + 1]) leave state s, ascending; any[0 .. any_count) are the any-state ones, ascending */
    int *own_first, *own, *any;
    int any_count;
    int *queue, *prev; /* per state: BFS queue, the edge that reached it (-1 none) */
    int *up;           /* per state: the state that edge left */
    int *route;        /* per state: a cycle's states, for its message */
    /* for shadowing(): per state, the first always-firing edge it leaves by
       (-1 none) and the first always-firing any-state edge into it */
    int *own_fires, *any_fires_to;
    int any_fires, any_fires_self, any_fires_other; /* see shadowing() */
    bool *seen;    /* per state, all false between searches */
    bool *instant; /* per transition: duration 0, no exit time, no trigger, satisfiable */
    long long work; /* search steps of the instant-cycle check so far */
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

/* Edge lists by source (counting sort: each list stays ascending). */
static void index_edges(layer_scan *ls)
{
    for (int s = 0; s <= ls->states; s++) ls->own_first[s] = 0;
    ls->any_count = 0;
    for (int k = 0; k < ls->transitions; k++)
        if (ls->to[k] >= 0 && ls->from[k] >= 0) ls->own_first[ls->from[k] + 1]++;
    for (int s = 0; s < ls->states; s++) ls->own_first[s + 1] += ls->own_first[s];
    for (int s = 0; s < ls->states; s++) ls->queue[s] = ls->own_first[s]; /* next free slot */
    for (int k = 0; k < ls->transitions; k++) {
        if (ls->to[k] < 0) continue;
        if (ls->from[k] >= 0) ls->own[ls->queue[ls->from[k]]++] = k;
        else if (ls->from[k] == FROM_ANY) ls->any[ls->any_count++] = k;
    }
}

/* Breadth-first from `start` over the edges k (k > after) accepted by
 * `use` (NULL: all); seen[] (until unsee()), prev[] and up[] say what was
 * reached and how; stops once it reaches a state `until` accepts (NULL:
 * none). Returns the states reached (queue[0 .. return)). An any-state
 * edge leaves every state but its destination, so it has done all it can
 * from the first state (that one is its destination, and so seen, or its
 * destination is reached): it is followed from there only. */
static int bfs(layer_scan *ls, int start, int after, const bool *use, bool (*until)(const layer_scan *, int, int),
               int arg)
{
    int head = 0, tail = 0;
    ls->seen[start] = true;
    ls->prev[start] = -1;
    ls->up[start] = -1;
    ls->queue[tail++] = start;
    if (until && until(ls, arg, start)) return tail;
    while (head < tail) {
        int s = ls->queue[head++];
        const int *own = ls->own + ls->own_first[s];
        int n_own = ls->own_first[s + 1] - ls->own_first[s], n_any = head == 1 ? ls->any_count : 0;
        ls->work += 1 + n_own + n_any;
        for (int i = 0, j = 0; i < n_own || j < n_any;) {
            /* both lists ascending: merged, the edges in index order */
            int k = j >= n_any || (i < n_own && own[i] < ls->any[j]) ? own[i++] : ls->any[j++];
            if (k <= after || (use && !use[k]) || !leaves(ls, k, s) || ls->seen[ls->to[k]]) continue;
            int t = ls->to[k];
            ls->seen[t] = true;
            ls->prev[t] = k;
            ls->up[t] = s;
            ls->queue[tail++] = t;
            if (until && until(ls, arg, t)) return tail;
        }
    }
    return tail;
}

static void unsee(layer_scan *ls, int reached)
{
    for (int q = 0; q < reached; q++) ls->seen[ls->queue[q]] = false;
}

static void lint_reachable(lint *l, layer_scan *ls)
{
    int entry = bw_name_index_find(&ls->names, ls->L->entry);
    if (entry < 0) return;
    int reached = bfs(ls, entry, -1, NULL, NULL, 0);
    char where[64];
    for (int s = 0; s < ls->states; s++) {
        if (ls->seen[s] || !ls->L->states[s].name) continue;
        snprintf(where, sizeof where, "layers[%d].states[%d]", ls->index, s);
        WARN(l, BW_GRAPH_LINT_UNREACHABLE_STATE, where, "state '%s' is unreachable from the entry '%s'",
             ls->L->states[s].name, ls->L->entry);
    }
    unsee(ls, reached);
}

/* What shadowing() reads, from one pass over the edges. */
static void index_firing(layer_scan *ls)
{
    const bw_graph_transition_desc *ts = ls->L->transitions;
    for (int s = 0; s < ls->states; s++) ls->own_fires[s] = ls->any_fires_to[s] = -1;
    ls->any_fires = ls->any_fires_self = ls->any_fires_other = -1;
    for (int j = ls->transitions - 1; j >= 0; j--) { /* backwards: each ends as the first */
        if (ls->to[j] < 0 || !always_fires(&ts[j])) continue;
        if (ls->from[j] >= 0) ls->own_fires[ls->from[j]] = j;
        if (ls->from[j] != FROM_ANY) continue;
        ls->any_fires = j;
        ls->any_fires_to[ls->to[j]] = j;
        if (ts[j].to_self) ls->any_fires_self = j;
    }
    /* the first always-firing any-state edge that re-enters or leads
     * elsewhere than the first one does: it shadows the source the first
     * one leads to */
    for (int j = ls->any_fires; j >= 0 && j < ls->transitions && ls->any_fires_other < 0; j++)
        if (ls->to[j] >= 0 && ls->from[j] == FROM_ANY && always_fires(&ts[j]) &&
            (ts[j].to_self || ls->to[j] != ls->to[ls->any_fires]))
            ls->any_fires_other = j;
}

static int earliest(int a, int b) { return a < 0 ? b : b < 0 ? a : a < b ? a : b; }

/* The always-true, gate-less transition that wins before k whenever k's
 * source is current, or -1: any-state transitions are checked before a
 * state's own; of two any-state ones, j is checked first only if earlier,
 * and fires wherever k could when it may re-enter or shares k's target. */
static int shadowing(const layer_scan *ls, int k)
{
    const bw_graph_transition_desc *ts = ls->L->transitions;
    if (ls->from[k] == FROM_ANY) {
        int j = earliest(ls->any_fires_self, ls->any_fires_to[ls->to[k]]);
        return j >= 0 && j < k ? j : -1;
    }
    if (ls->from[k] < 0) return -1;
    int a = ls->any_fires;
    if (a >= 0 && (ts[a].to_self || ls->to[a] != ls->from[k])) return a;
    if (a >= 0 && ls->any_fires_other >= 0) return ls->any_fires_other; /* a leads to k's source */
    int j = ls->own_fires[ls->from[k]];
    return j >= 0 && j < k ? j : -1;
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
        int p = unsatisfiable_param(l, &ls->sat, n);
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
            int q = t->conditions[c].kind == BW_GRAPH_COND_PREDICATE ? -1 : find_param(l, t->conditions[c].param);
            trigger |= q >= 0 && d->params[q].kind == BW_GRAPH_PARAM_TRIGGER;
        }
        /* a trigger is consumed when it fires, so such an edge cannot repeat by itself */
        ls->instant[k] = t->duration == 0 && !t->has_exit_time && !trigger && p < 0;
    }
}

/* bfs() stops at a state the instant edge e leaves: the cycle closes. */
static bool closes(const layer_scan *ls, int e, int s) { return leaves(ls, e, s); }

/* Cycles of instant transitions whose conditions can all hold together,
 * each reported once, at its lowest-numbered transition e: a route of
 * later instant transitions from e's destination back to a state e leaves
 * (the first the breadth-first search reaches). One search per instant
 * transition; past BW_GRAPH_LINT_CYCLE_STEPS steps in a layer the check
 * stops, and says where. */
static void lint_instant_cycles(lint *l, layer_scan *ls)
{
    const bw_graph_transition_desc *ts = ls->L->transitions;
    char where[64], route[256];
    ls->work = 0;
    for (int e = 0; e < ls->transitions; e++) {
        if (!ls->instant[e]) continue;
        if (ls->work > BW_GRAPH_LINT_CYCLE_STEPS) {
            snprintf(where, sizeof where, "layers[%d].transitions[%d]", ls->index, e);
            WARN(l, BW_GRAPH_LINT_INSTANT_CYCLE, where,
                 "zero-duration cycles not checked from here on: the layer's search passed %d steps", BW_GRAPH_LINT_CYCLE_STEPS);
            return;
        }
        int v = ls->to[e];
        int reached = bfs(ls, v, e, ls->instant, closes, e);
        int close = leaves(ls, e, ls->queue[reached - 1]) ? ls->queue[reached - 1] : -1;
        int n = 0, depth = 0;
        if (close >= 0) { /* the route back, close .. v */
            gather(&ls->sat, &ts[e], &n);
            for (int s = close; depth < ls->states; s = ls->up[s]) {
                ls->route[depth++] = s;
                if (s == v) break;
                gather(&ls->sat, &ts[ls->prev[s]], &n);
            }
        }
        unsee(ls, reached);
        if (close < 0 || unsatisfiable_param(l, &ls->sat, n) >= 0) continue;
        /* from e's source: close -> v -> ... -> close */
        int len = snprintf(route, sizeof route, "'%s'", state_name(ls, close));
        for (int i = depth - 1; i >= 0 && len > 0 && len < (int)sizeof route; i--)
            len += snprintf(route + len, sizeof route - (size_t)len, " -> '%s'", state_name(ls, ls->route[i]));
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
    layer_scan ls;
    memset(&ls, 0, sizeof ls);
    ls.L = L;
    ls.index = index;
    ls.states = walkable(L->states, L->state_count);
    ls.transitions = walkable(L->transitions, L->transition_count);
    if (ls.states == 0) return;
    int conds = 0;
    for (int k = 0; k < ls.transitions; k++)
        conds += walkable(L->transitions[k].conditions, L->transitions[k].condition_count);
    size_t T = (size_t)ls.transitions, S = (size_t)ls.states, C = (size_t)conds, P = (size_t)l->params.count;
    size_t ints = 4 * T + 7 * S + 1;
    size_t size = sizeof(double) * (3 * C + 3) + sizeof(void *) * C + sizeof(int) * ints + sizeof(bool) * (S + T + P);
    char *block = bw_alloc(&d->allocator, size);
    if (!block || bw_name_index_of(&ls.names, L->states, ls.states, sizeof *L->states, 0, &d->allocator) != BW_OK) {
        bw_free(&d->allocator, block, size);
        l->oom = true;
        return;
    }
    double *values = (double *)(void *)block; /* first: the strictest alignment */
    const bw_graph_condition_desc **cl = (const bw_graph_condition_desc **)(void *)(values + 3 * C + 3);
    int *next = (int *)(void *)(cl + C);
    int **lists[] = {&ls.from, &ls.to, &ls.own, &ls.any};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++, next += T) *lists[i] = next;
    int **per_state[] = {&ls.queue, &ls.prev, &ls.up, &ls.route, &ls.own_fires, &ls.any_fires_to};
    for (size_t i = 0; i < sizeof per_state / sizeof per_state[0]; i++, next += S) *per_state[i] = next;
    ls.own_first = next; /* S + 1 */
    ls.seen = (bool *)(next + S + 1);
    ls.instant = ls.seen + S;
    memset(ls.seen, 0, sizeof(bool) * (S + T + P));
    ls.sat = (sat_scratch){cl, values, ls.instant + T, conds};
    for (int k = 0; k < ls.transitions; k++) {
        const bw_graph_transition_desc *t = &L->transitions[k];
        ls.from[k] = is_any(t->from) ? FROM_ANY : bw_name_index_find(&ls.names, t->from);
        ls.to[k] = bw_name_index_find(&ls.names, t->to);
    }
    index_edges(&ls);
    index_firing(&ls);
    lint_reachable(l, &ls);
    lint_transitions(l, &ls);
    lint_instant_cycles(l, &ls);
    bw_name_index_deinit(&ls.names);
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
        int p = find_param(l, L->weight_param);
        if (p >= 0) read[p] = true;
        int m = bw_name_index_find(&l->masks, L->mask); /* marks every mask of that name: see below */
        if (m >= 0) used_mask[m] = true;
        for (int s = 0; s < walkable(L->states, L->state_count); s++) {
            const bw_graph_state_desc *st = &L->states[s];
            p = find_param(l, st->speed_param);
            if (p >= 0) read[p] = true;
            if (st->blend) scan_tree(st->blend, read, P, NULL, 0);
        }
        for (int k = 0; k < walkable(L->transitions, L->transition_count); k++) {
            const bw_graph_transition_desc *t = &L->transitions[k];
            for (int c = 0; c < walkable(t->conditions, t->condition_count); c++) {
                const bw_graph_condition_desc *cd = &t->conditions[c];
                if (cd->kind == BW_GRAPH_COND_PREDICATE) predicate = true;
                else if ((p = find_param(l, cd->param)) >= 0) read[p] = true;
            }
        }
    }
    char where[32];
    for (int p = 0; p < P; p++) {
        const bw_graph_param_desc *pd = &d->params[p];
        if (read[p] || !pd->name || bw_name_index_first(&l->params, p) != p) continue; /* duplicates: compile's */
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
        if (!d->masks[m].name || used_mask[bw_name_index_first(&l->masks, m)]) continue;
        snprintf(where, sizeof where, "masks[%d]", m);
        WARN(l, BW_GRAPH_LINT_UNUSED_MASK, where, "mask '%s' is not used by any layer", d->masks[m].name);
    }
    bw_free(&d->allocator, read, size);
}

/* ---- entry points ---- */

bw_result bw_graph_lint(const bw_graph_desc *desc, const bw_rig *rig, bw_graph_lint_fn fn, void *user)
{
    if (!desc) return BW_ERR_INVALID_ARGUMENT;
    lint l = {.d = desc, .rig = rig, .fn = fn, .user = user, .first = BW_OK};
    l.oom = bw_name_index_of(&l.params, desc->params, walkable(desc->params, desc->param_count), sizeof *desc->params, 0,
                             &desc->allocator) != BW_OK ||
            bw_name_index_of(&l.masks, desc->masks, walkable(desc->masks, desc->mask_count), sizeof *desc->masks, 0,
                             &desc->allocator) != BW_OK;
    if (!l.oom) lint_compile(&l);
    if (rig && !l.oom) lint_mask_joints(&l);
    if (rig && !l.oom) lint_clip_bindings(&l);
    for (int i = 0; i < walkable(desc->layers, desc->layer_count) && !l.oom; i++) lint_layer(&l, i);
    if (!l.oom) lint_unused(&l);
    bw_name_index_deinit(&l.params);
    bw_name_index_deinit(&l.masks);
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
