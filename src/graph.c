/* graph.c - compiling a graph desc into one immutable block (validation
 * that reports every problem, name resolution, copying) and the setup-time
 * lookups. The per-character runtime is graph_cursor.c. */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "blendwerk/clip.h"
#include "common.h"
#include "graph_internal.h"
#include "marker_walk.h"
#include "name_index.h"

/* ---- problem reports ---- */

void bw_graph_problem(bw_graph_report *r, bw_result code, const char *where, const char *fmt, ...)
{
    if (r->count == 0) r->first = code;
    if (r->list && r->list->errors && r->count < r->list->capacity) {
        bw_error *e = &r->list->errors[r->count];
        memset(e, 0, sizeof *e);
        e->code = code;
        snprintf(e->where, sizeof e->where, "%s", where);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->message, sizeof e->message, fmt, ap);
        va_end(ap);
    }
    r->count++;
    if (r->list) r->list->count = r->count;
}

void bw_graph_report_begin(bw_graph_report *r, bw_graph_errors *list)
{
    r->list = list;
    r->first = BW_OK;
    r->count = 0;
    if (list) list->count = 0;
}

/* A path such as "layers[0].transitions[3].to" in a caller's buffer. */
static const char *path(char *buf, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static const char *path(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    return buf;
}
#define WHERE(...) path(where, sizeof where, __VA_ARGS__)

static bool has_name(const char *s) { return s && s[0]; }
static const char *shown(const char *s) { return s ? s : "(null)"; }

/* ---- desc lookups (compile time only) ---- */

/* The name indices validation and copying look names up in (the first
 * match, as a search from index 0 would find): the desc's params, masks
 * and layers, and the states of the layer being walked. */
typedef struct names {
    const bw_allocator *alloc;
    bw_name_index params, masks, layers, states;
} names;

static int desc_param(const names *n, const char *name) { return bw_name_index_find(&n->params, name); }
static int desc_mask(const names *n, const char *name) { return bw_name_index_find(&n->masks, name); }
static int desc_state(const names *n, const char *name) { return bw_name_index_find(&n->states, name); }

/* Index the names of layer L's states into n->states (replacing the
 * previous layer's). */
static bw_result index_states(names *n, const bw_graph_layer_desc *L)
{
    bw_name_index_deinit(&n->states);
    return bw_name_index_of(&n->states, L->states, L->state_count, sizeof *L->states, 0, n->alloc);
}

static bw_result names_init(names *n, const bw_graph_desc *d)
{
    memset(n, 0, sizeof *n);
    n->alloc = &d->allocator;
    if (bw_name_index_of(&n->params, d->params, d->param_count, sizeof *d->params, 0, n->alloc) != BW_OK ||
        bw_name_index_of(&n->masks, d->masks, d->mask_count, sizeof *d->masks, 0, n->alloc) != BW_OK ||
        bw_name_index_of(&n->layers, d->layers, d->layer_count, sizeof *d->layers, 0, n->alloc) != BW_OK)
        return BW_ERR_OUT_OF_MEMORY;
    return BW_OK;
}

static void names_deinit(names *n)
{
    bw_name_index_deinit(&n->params);
    bw_name_index_deinit(&n->masks);
    bw_name_index_deinit(&n->layers);
    bw_name_index_deinit(&n->states);
}

/* A list of `count` items at `items` must be present when count > 0 and
 * stay within the documented limit. Returns whether it can be walked. */
static bool check_list(bw_graph_report *r, const void *items, int count, const char *where, bool need_one)
{
    if (count < 0 || (count > 0 && !items)) {
        bw_graph_problem(r, BW_ERR_INVALID_ARGUMENT, where, "%d entries at %s", count, items ? "an array" : "NULL");
        return false;
    }
    if (count > BW_GRAPH_MAX_ITEMS) {
        bw_graph_problem(r, BW_ERR_LIMIT, where, "%d entries, at most %d", count, BW_GRAPH_MAX_ITEMS);
        return false;
    }
    if (need_one && count == 0) bw_graph_problem(r, BW_ERR_EMPTY, where, "needs at least one entry");
    return true;
}

/* Item i of an indexed list: it needs a name, and one no earlier item has. */
static void check_name(bw_graph_report *r, const bw_name_index *ix, const char *name, int i, const char *where,
                       const char *what)
{
    if (!has_name(name)) bw_graph_problem(r, BW_ERR_INVALID_ARGUMENT, where, "%s needs a name", what);
    else if (bw_name_index_first(ix, i) != i)
        bw_graph_problem(r, BW_ERR_DUPLICATE, where, "duplicate %s '%s'", what, name);
}

/* A parameter reference: must name a parameter (kinds allowed as a mask
 * of 1 << kind). Returns its index or -1. */
static int check_param_ref(bw_graph_report *r, const bw_graph_desc *d, const names *n, const char *name,
                           unsigned kinds, const char *where)
{
    int p = desc_param(n, name);
    if (p < 0) {
        bw_graph_problem(r, BW_ERR_NOT_FOUND, where, "unknown parameter '%s'", shown(name));
        return -1;
    }
    if (!((kinds >> d->params[p].kind) & 1u)) {
        bw_graph_problem(r, BW_ERR_INVALID_ARGUMENT, where, "parameter '%s' is a trigger, not a number", name);
        return -1;
    }
    return p;
}

#define KINDS_NUMERIC ((1u << BW_GRAPH_PARAM_FLOAT) | (1u << BW_GRAPH_PARAM_BOOL))
#define KINDS_ANY (KINDS_NUMERIC | (1u << BW_GRAPH_PARAM_TRIGGER))

static void validate_params(bw_graph_report *r, const bw_graph_desc *d, const names *n)
{
    char where[256];
    if (!check_list(r, d->params, d->param_count, "params", false)) return;
    for (int i = 0; i < d->param_count; i++) {
        const bw_graph_param_desc *p = &d->params[i];
        check_name(r, &n->params, p->name, i, WHERE("params[%d].name", i), "parameter");
        if ((unsigned)p->kind >= BW_GRAPH_PARAM_KIND_COUNT)
            bw_graph_problem(r, BW_ERR_INVALID_ARGUMENT, WHERE("params[%d].kind", i), "unknown parameter kind %d",
                             (int)p->kind);
        if (!isfinite(p->value))
            bw_graph_problem(r, BW_ERR_NON_FINITE, WHERE("params[%d].value", i), "default of '%s' is not finite",
                             shown(p->name));
        if (!isfinite(p->expires) || p->expires < 0.0f)
            bw_graph_problem(r, bw_nonneg_problem_code(p->expires), WHERE("params[%d].expires", i),
                             "expires must be finite and >= 0");
        else if ((p->expires > 0.0f || p->has_expires) && p->kind != BW_GRAPH_PARAM_TRIGGER)
            bw_graph_problem(r, BW_ERR_INVALID_ARGUMENT, WHERE("params[%d].expires", i), "only a trigger expires");
    }
}

static void validate_masks(bw_graph_report *r, const bw_graph_desc *d, const names *n)
{
    char where[256];
    if (!check_list(r, d->masks, d->mask_count, "masks", false)) return;
    for (int i = 0; i < d->mask_count; i++) {
        const bw_graph_mask_desc *m = &d->masks[i];
        check_name(r, &n->masks, m->name, i, WHERE("masks[%d].name", i), "mask");
        if (!check_list(r, m->entries, m->entry_count, WHERE("masks[%d].entries", i), false)) continue;
        for (int e = 0; e < m->entry_count; e++) {
            if (!has_name(m->entries[e].joint))
                bw_graph_problem(r, BW_ERR_INVALID_ARGUMENT, WHERE("masks[%d].entries[%d].joint", i, e),
                                 "needs a joint name");
            if (!isfinite(m->entries[e].weight))
                bw_graph_problem(r, BW_ERR_NON_FINITE, WHERE("masks[%d].entries[%d].weight", i, e),
                                 "weight is not finite");
        }
    }
}

/* A compiled tree is valid in itself; what is left is how it fits the
 * graph: its parameters and its leaves' clips. */
static void validate_blend(bw_graph_report *r, const bw_graph_desc *d, const bw_blend_tree *tree, int l, int s)
{
    char where[256];
    if (bw_blend_tree_param_count(tree) > d->param_count)
        bw_graph_problem(r, BW_ERR_RANGE, WHERE("layers[%d].states[%d].blend.param_count", l, s),
                         "the blend tree reads %d parameters, the graph has %d", bw_blend_tree_param_count(tree),
                         d->param_count);
    for (int i = 0; i < bw_blend_tree_node_count(tree); i++) {
        const bw_blend_node *n = bw_blend_tree_node(tree, i);
        if (n->kind == BW_BLEND_NODE_CLIP && (n->clip < 0 || n->clip >= d->clip_count))
            bw_graph_problem(r, BW_ERR_RANGE, WHERE("layers[%d].states[%d].blend.nodes[%d].clip", l, s, i),
                             "clip index %d outside [0, %d)", n->clip, d->clip_count);
    }
}

static void validate_state(bw_graph_report *r, const bw_graph_desc *d, const names *n, int l, int s)
{
    char where[256];
    const bw_graph_state_desc *st = &d->layers[l].states[s];
    check_name(r, &n->states, st->name, s, WHERE("layers[%d].states[%d].name", l, s), "state");
    if (st->name && strcmp(st->name, BW_GRAPH_NAME_ANY) == 0)
        bw_graph_problem(r, BW_ERR_INVALID_ARGUMENT, WHERE("layers[%d].states[%d].name", l, s),
                         "'*' is reserved for any-state");
    if (st->blend) validate_blend(r, d, st->blend, l, s);
    else if (st->clip < 0 || st->clip >= d->clip_count)
        bw_graph_problem(r, BW_ERR_RANGE, WHERE("layers[%d].states[%d].clip", l, s), "clip index %d outside [0, %d)",
                         st->clip, d->clip_count);
    if (st->sync && !st->sync[0])
        bw_graph_problem(r, BW_ERR_INVALID_ARGUMENT, WHERE("layers[%d].states[%d].sync", l, s),
                         "an empty sync group name");
    if (!isfinite(st->speed))
        bw_graph_problem(r, BW_ERR_NON_FINITE, WHERE("layers[%d].states[%d].speed", l, s), "speed is not finite");
    if (st->speed_param)
        check_param_ref(r, d, n, st->speed_param, KINDS_NUMERIC, WHERE("layers[%d].states[%d].speed_param", l, s));
    if ((unsigned)st->loop >= BW_GRAPH_LOOP_COUNT)
        bw_graph_problem(r, BW_ERR_INVALID_ARGUMENT, WHERE("layers[%d].states[%d].loop", l, s), "unknown loop value %d",
                         (int)st->loop);
    if (!(st->offset >= 0.0f && st->offset <= 1.0f))
        bw_graph_problem(r, BW_ERR_RANGE, WHERE("layers[%d].states[%d].offset", l, s), "offset must be in [0, 1]");
    const bw_graph_reference_desc *ref = &st->reference;
    bool additive = d->layers[l].mode == BW_GRAPH_ADDITIVE;
    if ((unsigned)ref->kind >= BW_GRAPH_REF_KIND_COUNT)
        bw_graph_problem(r, BW_ERR_INVALID_ARGUMENT, WHERE("layers[%d].states[%d].reference.kind", l, s),
                         "unknown reference kind %d", (int)ref->kind);
    else if (!additive && (ref->kind != BW_GRAPH_REF_OWN || ref->time != 0.0f))
        bw_graph_problem(r, BW_ERR_INVALID_ARGUMENT, WHERE("layers[%d].states[%d].reference", l, s),
                         "state '%s': a reference is for additive layers only", shown(st->name));
    if (ref->kind == BW_GRAPH_REF_CLIP && (ref->clip < 0 || ref->clip >= d->clip_count))
        bw_graph_problem(r, BW_ERR_RANGE, WHERE("layers[%d].states[%d].reference.clip", l, s),
                         "clip index %d outside [0, %d)", ref->clip, d->clip_count);
    if (!isfinite(ref->time))
        bw_graph_problem(r, BW_ERR_NON_FINITE, WHERE("layers[%d].states[%d].reference.time", l, s),
                         "reference time is not finite");
    else if (ref->time < 0.0f)
        bw_graph_problem(r, BW_ERR_RANGE, WHERE("layers[%d].states[%d].reference.time", l, s),
                         "reference time must be >= 0");
}

static void validate_condition(bw_graph_report *r, const bw_graph_desc *d, const names *n,
                               const bw_graph_condition_desc *c, const char *base)
{
    char where[320];
    switch (c->kind) {
    case BW_GRAPH_COND_COMPARE:
        check_param_ref(r, d, n, c->param, KINDS_ANY, WHERE("%s.param", base));
        if ((unsigned)c->op >= BW_GRAPH_OP_COUNT)
            bw_graph_problem(r, BW_ERR_INVALID_ARGUMENT, WHERE("%s.op", base), "unknown operator %d", (int)c->op);
        if (!isfinite(c->value))
            bw_graph_problem(r, BW_ERR_NON_FINITE, WHERE("%s.value", base), "constant is not finite");
        break;
    case BW_GRAPH_COND_TRUE:
    case BW_GRAPH_COND_NOT: check_param_ref(r, d, n, c->param, KINDS_ANY, WHERE("%s.param", base)); break;
    case BW_GRAPH_COND_PREDICATE:
        if (!c->fn) bw_graph_problem(r, BW_ERR_INVALID_ARGUMENT, WHERE("%s.fn", base), "predicate without a function");
        break;
    default:
        bw_graph_problem(r, BW_ERR_INVALID_ARGUMENT, WHERE("%s.kind", base), "unknown condition kind %d", (int)c->kind);
    }
}

static void validate_transition(bw_graph_report *r, const bw_graph_desc *d, const names *n, int l, int t)
{
    char where[256], base[256];
    const bw_graph_layer_desc *L = &d->layers[l];
    const bw_graph_transition_desc *tr = &L->transitions[t];
    bool any = tr->from && strcmp(tr->from, BW_GRAPH_NAME_ANY) == 0;
    if (!any && desc_state(n, tr->from) < 0)
        bw_graph_problem(r, BW_ERR_NOT_FOUND, WHERE("layers[%d].transitions[%d].from", l, t), "unknown state '%s'",
                         shown(tr->from));
    if (desc_state(n, tr->to) < 0)
        bw_graph_problem(r, BW_ERR_NOT_FOUND, WHERE("layers[%d].transitions[%d].to", l, t), "unknown state '%s'",
                         shown(tr->to));
    if (!isfinite(tr->duration) || tr->duration < 0.0f)
        bw_graph_problem(r, bw_nonneg_problem_code(tr->duration), WHERE("layers[%d].transitions[%d].duration", l, t),
                         "duration must be finite and >= 0");
    if (tr->has_exit_time && (!isfinite(tr->exit_time) || tr->exit_time < 0.0f))
        bw_graph_problem(r, bw_nonneg_problem_code(tr->exit_time), WHERE("layers[%d].transitions[%d].exit_time", l, t),
                         "exit time must be finite and >= 0");
    if ((unsigned)tr->mode >= BW_GRAPH_MODE_COUNT)
        bw_graph_problem(r, BW_ERR_INVALID_ARGUMENT, WHERE("layers[%d].transitions[%d].mode", l, t), "unknown mode %d",
                         (int)tr->mode);
    if (!isfinite(tr->source_speed) || tr->source_speed < 0.0f)
        bw_graph_problem(r, bw_nonneg_problem_code(tr->source_speed), WHERE("layers[%d].transitions[%d].source_speed", l, t),
                         "source speed must be finite and >= 0");
    if ((unsigned)tr->curve >= BW_EASE_STYLE_COUNT || (unsigned)tr->curve_dir >= BW_EASE_DIR_COUNT)
        bw_graph_problem(r, BW_ERR_INVALID_ARGUMENT, WHERE("layers[%d].transitions[%d].curve", l, t),
                         "unknown easing curve");
    if (tr->to_self && !any)
        bw_graph_problem(r, BW_ERR_INVALID_ARGUMENT, WHERE("layers[%d].transitions[%d].to_self", l, t),
                         "to_self applies to any-state transitions only");
    path(base, sizeof base, "layers[%d].transitions[%d].conditions", l, t);
    if (!check_list(r, tr->conditions, tr->condition_count, base, false)) return;
    for (int c = 0; c < tr->condition_count; c++) {
        char cbase[300];
        snprintf(cbase, sizeof cbase, "%s[%d]", base, c);
        validate_condition(r, d, n, &tr->conditions[c], cbase);
    }
}

static void validate_layers(bw_graph_report *r, const bw_graph_desc *d, names *n)
{
    char where[256];
    if (!check_list(r, d->layers, d->layer_count, "layers", true)) return;
    for (int l = 0; l < d->layer_count; l++) {
        const bw_graph_layer_desc *L = &d->layers[l];
        check_name(r, &n->layers, L->name, l, WHERE("layers[%d].name", l), "layer");
        if ((unsigned)L->mode >= BW_GRAPH_LAYER_MODE_COUNT)
            bw_graph_problem(r, BW_ERR_INVALID_ARGUMENT, WHERE("layers[%d].mode", l), "unknown layer mode %d",
                             (int)L->mode);
        if (!isfinite(L->weight) || L->weight < 0.0f)
            bw_graph_problem(r, bw_nonneg_problem_code(L->weight), WHERE("layers[%d].weight", l),
                             "weight must be finite and >= 0");
        if (L->weight_param) check_param_ref(r, d, n, L->weight_param, KINDS_NUMERIC, WHERE("layers[%d].weight_param", l));
        if (L->mask && desc_mask(n, L->mask) < 0)
            bw_graph_problem(r, BW_ERR_NOT_FOUND, WHERE("layers[%d].mask", l), "unknown mask '%s'", L->mask);
        bool states_ok = check_list(r, L->states, L->state_count, WHERE("layers[%d].states", l), true);
        if (states_ok && index_states(n, L) != BW_OK) {
            bw_graph_problem(r, BW_ERR_OUT_OF_MEMORY, "", "out of memory (names)");
            return;
        }
        if (states_ok)
            for (int s = 0; s < L->state_count; s++) validate_state(r, d, n, l, s);
        if (!has_name(L->entry))
            bw_graph_problem(r, BW_ERR_INVALID_ARGUMENT, WHERE("layers[%d].entry", l), "needs an entry state");
        else if (states_ok && desc_state(n, L->entry) < 0)
            bw_graph_problem(r, BW_ERR_NOT_FOUND, WHERE("layers[%d].entry", l), "unknown state '%s'", L->entry);
        if (!states_ok) continue;
        if (!check_list(r, L->transitions, L->transition_count, WHERE("layers[%d].transitions", l), false)) continue;
        for (int t = 0; t < L->transition_count; t++) validate_transition(r, d, n, l, t);
    }
}

static void validate_clips(bw_graph_report *r, const bw_graph_desc *d)
{
    char where[256];
    if (!check_list(r, d->clips, d->clip_count, "clips", false)) return;
    for (int i = 0; i < d->clip_count; i++)
        if (!d->clips[i]) bw_graph_problem(r, BW_ERR_INVALID_ARGUMENT, WHERE("clips[%d]", i), "clip is NULL");
}

/* ---- building the block ---- */

typedef struct sizes {
    int params, clips, markers, masks, mask_entries, layers, states, transitions, conditions, refmap;
    size_t strings;
} sizes;

static size_t string_size(const char *s) { return s ? strlen(s) + 1 : 0; }

static sizes count_desc(const bw_graph_desc *d)
{
    sizes n = {0};
    n.params = d->param_count;
    n.clips = d->clip_count;
    n.masks = d->mask_count;
    n.layers = d->layer_count;
    for (int i = 0; i < d->param_count; i++) n.strings += string_size(d->params[i].name);
    for (int i = 0; i < d->clip_count; i++) {
        int m = bw_clip_marker_count(d->clips[i]);
        n.markers += m;
        for (int k = 0; k < m; k++) n.strings += string_size(bw_clip_marker_name(d->clips[i], k));
    }
    for (int i = 0; i < d->mask_count; i++) {
        n.strings += string_size(d->masks[i].name);
        n.mask_entries += d->masks[i].entry_count;
        for (int e = 0; e < d->masks[i].entry_count; e++) n.strings += string_size(d->masks[i].entries[e].joint);
    }
    for (int l = 0; l < d->layer_count; l++) {
        const bw_graph_layer_desc *L = &d->layers[l];
        n.strings += string_size(L->name);
        n.states += L->state_count;
        n.transitions += L->transition_count;
        for (int s = 0; s < L->state_count; s++) {
            n.strings += string_size(L->states[s].name);
            if (L->mode == BW_GRAPH_ADDITIVE)
                n.refmap += L->states[s].blend ? bw_blend_tree_node_count(L->states[s].blend) : 1;
        }
        for (int t = 0; t < L->transition_count; t++) n.conditions += L->transitions[t].condition_count;
    }
    return n;
}

/* One section of the graph's block (bw_carve at BW_MAX_ALIGN). */
static void *carve(bw_carver *c, size_t bytes) { return bw_carve(c, bytes, BW_MAX_ALIGN); }

static void layout(bw_graph *g, bw_carver *c, const sizes *n)
{
    carve(c, sizeof *g);
    g->params = (g_param *)carve(c, (size_t)n->params * sizeof *g->params);
    g->clips = (g_clip *)carve(c, (size_t)n->clips * sizeof *g->clips);
    g->markers = (g_marker *)carve(c, (size_t)n->markers * sizeof *g->markers);
    g->marker_times = (double *)carve(c, (size_t)n->markers * sizeof *g->marker_times);
    g->marker_ring = (double *)carve(c, (size_t)n->markers * sizeof *g->marker_ring);
    g->loop_order = (int *)carve(c, (size_t)n->markers * sizeof *g->loop_order);
    g->masks = (g_mask *)carve(c, (size_t)n->masks * sizeof *g->masks);
    g->mask_entries = (g_mask_entry *)carve(c, (size_t)n->mask_entries * sizeof *g->mask_entries);
    g->layers = (g_layer *)carve(c, (size_t)n->layers * sizeof *g->layers);
    g->states = (g_state *)carve(c, (size_t)n->states * sizeof *g->states);
    g->transitions = (g_transition *)carve(c, (size_t)n->transitions * sizeof *g->transitions);
    g->conditions = (g_condition *)carve(c, (size_t)n->conditions * sizeof *g->conditions);
    g->refs = (g_ref *)carve(c, (size_t)n->refmap * sizeof *g->refs);
    g->refmap = (int *)carve(c, (size_t)n->refmap * sizeof *g->refmap);
}

typedef struct pool {
    char *next;
} pool;

static const char *pool_copy(pool *p, const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = p->next;
    memcpy(d, s, n);
    p->next += n;
    return d;
}

/* Scratch for time_markers: one zeroed count per marker of the graph
 * (a name_id is a marker index); NULL when out of memory. */
static size_t tally_bytes(const bw_graph *g) { return (size_t)(g->marker_count > 0 ? g->marker_count : 1) * sizeof(int); }
static int *marker_tally(const bw_graph *g) { return (int *)bw_alloc_zeroed(&g->alloc, tally_bytes(g)); }
static void marker_tally_free(const bw_graph *g, int *tally) { bw_free(&g->alloc, tally, tally_bytes(g)); }

/* Sync group of each state (graph-wide index s_flat): the graph-wide
 * index of the first state (in any layer) naming the same group, -1 for
 * none. */
static bw_result sync_groups(bw_graph *g, const bw_graph_desc *d)
{
    bw_name_index ix;
    if (bw_name_index_init(&ix, g->state_count, &g->alloc) != BW_OK) return BW_ERR_OUT_OF_MEMORY;
    int index = 0;
    for (int l = 0; l < d->layer_count; l++)
        for (int s = 0; s < d->layers[l].state_count; s++) bw_name_index_put(&ix, index++, d->layers[l].states[s].sync);
    bw_name_index_build(&ix);
    for (int i = 0; i < g->state_count; i++) {
        g->states[i].sync = bw_name_index_first(&ix, i);
        if (g->states[i].sync >= 0) g->has_sync = true;
    }
    bw_name_index_deinit(&ix);
    return BW_OK;
}

static void time_markers(bw_graph *g, g_clip *gc, const bw_clip *clip, int *tally);

/* Clip lengths, loop flags and markers. A marker's name_id is the index
 * of the first marker (of any clip) with its name, so names compare as
 * ints per frame. Fails only when its scratch cannot be allocated. */
static bw_result copy_clips(bw_graph *g, const bw_graph_desc *d, pool *strings)
{
    int m = 0;
    for (int i = 0; i < d->clip_count; i++) {
        const bw_clip *clip = d->clips[i];
        g_clip *gc = &g->clips[i];
        float len = bw_clip_length(clip);
        gc->length = isfinite(len) && len > 0.0f ? len : 0.0f;
        gc->loop = bw_clip_loop(clip);
        gc->marker_first = m;
        gc->marker_count = bw_clip_marker_count(clip);
        for (int k = 0; k < gc->marker_count; k++)
            g->markers[m + k].name = pool_copy(strings, bw_clip_marker_name(clip, k));
        m += gc->marker_count;
    }
    bw_name_index ix;
    if (bw_name_index_of(&ix, g->markers, g->marker_count, sizeof *g->markers, offsetof(g_marker, name), &g->alloc) !=
        BW_OK)
        return BW_ERR_OUT_OF_MEMORY;
    for (int k = 0; k < g->marker_count; k++) g->markers[k].name_id = bw_name_index_first(&ix, k);
    bw_name_index_deinit(&ix);
    int *tally = marker_tally(g);
    if (!tally) return BW_ERR_OUT_OF_MEMORY;
    for (int i = 0; i < d->clip_count; i++) time_markers(g, &g->clips[i], d->clips[i], tally);
    marker_tally_free(g, tally);
    return BW_OK;
}

/* A clip's marker times, their loop order and the occurrence counts that
 * depend on it (compile and refresh). tally: marker_tally(g), all zero,
 * and left so: a count per name_id, so the counting is linear. */
static void time_markers(bw_graph *g, g_clip *gc, const bw_clip *clip, int *tally)
{
    int m = gc->marker_first;
    for (int k = 0; k < gc->marker_count; k++) {
        g->markers[m + k].time = bw_clip_marker_time(clip, k);
        g->marker_times[m + k] = (double)g->markers[m + k].time;
    }
    bw_marker_list_build((double)gc->length, &g->marker_times[m], gc->marker_count, &g->marker_ring[m],
                         &g->loop_order[m]);
    /* per marker: its occurrence among equal names in loop order, and their count */
    for (int a = 0; a < gc->marker_count; a++) {
        g_marker *mk = &g->markers[m + g->loop_order[m + a]];
        mk->loop_occ = tally[mk->name_id]++;
    }
    for (int k = 0; k < gc->marker_count; k++) g->markers[m + k].name_count = tally[g->markers[m + k].name_id];
    for (int k = 0; k < gc->marker_count; k++) tally[g->markers[m + k].name_id] = 0;
}

static void copy_transitions(bw_graph *g, const names *n, const bw_graph_layer_desc *L, int *t_next, int *c_next)
{
    for (int t = 0; t < L->transition_count; t++) {
        const bw_graph_transition_desc *td = &L->transitions[t];
        g_transition *gt = &g->transitions[(*t_next)++];
        gt->from = strcmp(td->from, BW_GRAPH_NAME_ANY) == 0 ? -1 : desc_state(n, td->from);
        gt->to = desc_state(n, td->to);
        gt->cond_first = *c_next;
        gt->cond_count = td->condition_count;
        gt->has_exit_time = td->has_exit_time;
        gt->exit_time = td->exit_time;
        gt->duration = td->duration;
        gt->mode = td->mode;
        gt->source_speed = td->has_source_speed || td->source_speed > 0.0f ? td->source_speed : 1.0f;
        gt->interruptible = !td->non_interruptible;
        gt->curve = td->curve;
        gt->curve_dir = td->curve_dir;
        gt->to_self = td->to_self;
        for (int c = 0; c < td->condition_count; c++) {
            const bw_graph_condition_desc *cd = &td->conditions[c];
            g_condition *gc = &g->conditions[(*c_next)++];
            gc->kind = cd->kind;
            gc->param = cd->kind == BW_GRAPH_COND_PREDICATE ? -1 : desc_param(n, cd->param);
            gc->op = cd->op;
            gc->value = cd->value;
            gc->fn = cd->fn;
            gc->user = cd->user;
        }
    }
}

/* Reference (clip, time) as refmap entry k asks for it: noted in refs[k]
 * (refs has a place per refmap entry) and interned afterwards
 * (intern_refs). */
static int note_ref(bw_graph *g, int clip, float time)
{
    g->refs[g->refmap_count] = (g_ref){clip, time};
    return g->refmap_count;
}

/* An additive state's references (graph_internal.h: refmap), noted. */
static void copy_reference(bw_graph *g, const bw_graph_state_desc *sd, g_state *gs)
{
    const bw_graph_reference_desc *ref = &sd->reference;
    gs->ref_first = g->refmap_count;
    gs->ref_per_node = gs->blend && ref->kind == BW_GRAPH_REF_OWN;
    if (!gs->ref_per_node) {
        int clip = ref->kind == BW_GRAPH_REF_REST ? -1 : ref->kind == BW_GRAPH_REF_CLIP ? ref->clip : sd->clip;
        g->refmap[g->refmap_count] = note_ref(g, clip, clip < 0 ? 0.0f : ref->time);
        g->refmap_count++;
        return;
    }
    for (int i = 0; i < bw_blend_tree_node_count(sd->blend); i++) {
        const bw_blend_node *node = bw_blend_tree_node(sd->blend, i);
        g->refmap[g->refmap_count] = node->kind == BW_BLEND_NODE_CLIP ? note_ref(g, node->clip, ref->time) : -1;
        g->refmap_count++;
    }
}

typedef struct ref_key {
    int clip;
    float time;
    int at; /* its refmap entry */
} ref_key;

/* By clip, then time (== as floats), then entry: a run of equal
 * references starts with its first entry. */
static int ref_key_cmp(const void *pa, const void *pb)
{
    const ref_key *a = (const ref_key *)pa, *b = (const ref_key *)pb;
    if (a->clip != b->clip) return a->clip < b->clip ? -1 : 1;
    if (a->time < b->time) return -1;
    if (a->time > b->time) return 1;
    return (a->at > b->at) - (a->at < b->at);
}

/* The noted references made distinct: refs[0, ref_count) each (clip, time)
 * once, numbered in the order of their first entry, and every refmap
 * entry turned into its reference's number. One sort (the references are
 * finite, checked with the desc), so a graph of many additive states
 * compiles in n log n. Fails only when out of memory. */
static bw_result intern_refs(bw_graph *g)
{
    const int n = g->refmap_count;
    if (n == 0) return BW_OK;
    size_t bytes = (size_t)n * (sizeof(ref_key) + sizeof(int));
    ref_key *keys = (ref_key *)bw_alloc(&g->alloc, bytes);
    if (!keys) return BW_ERR_OUT_OF_MEMORY;
    int *lead = (int *)(void *)(keys + n); /* per entry: the first entry of its reference */
    int count = 0;
    for (int k = 0; k < n; k++)
        if (g->refmap[k] >= 0) keys[count++] = (ref_key){g->refs[k].clip, g->refs[k].time, k};
    qsort(keys, (size_t)count, sizeof *keys, ref_key_cmp);
    for (int i = 0; i < count; i++) {
        bool repeat = i > 0 && keys[i - 1].clip == keys[i].clip && keys[i - 1].time == keys[i].time;
        lead[keys[i].at] = repeat ? lead[keys[i - 1].at] : keys[i].at;
    }
    /* in entry order: a first entry takes the next number (never above its
     * own entry, so refs[k] is read before anything is written there) */
    g->ref_count = 0;
    for (int k = 0; k < n; k++) {
        if (g->refmap[k] < 0) continue;
        if (lead[k] == k) {
            g->refs[g->ref_count] = g->refs[k];
            g->refmap[k] = g->ref_count++;
        } else {
            g->refmap[k] = g->refmap[lead[k]];
        }
    }
    bw_free(&g->alloc, keys, bytes);
    return BW_OK;
}

/* A blend state's own compiled tree: the given tree's nodes with the leaf
 * lengths of the graph's clips (the given one was compiled and validated,
 * so only memory can fail here). */
static bw_result copy_tree(bw_graph *g, const bw_blend_tree *src, bw_blend_tree **out)
{
    int count = bw_blend_tree_node_count(src);
    bw_blend_node *nodes = (bw_blend_node *)bw_alloc(&g->alloc, (size_t)count * sizeof *nodes);
    if (!nodes) return BW_ERR_OUT_OF_MEMORY;
    for (int i = 0; i < count; i++) {
        nodes[i] = *bw_blend_tree_node(src, i);
        if (nodes[i].kind == BW_BLEND_NODE_CLIP) nodes[i].length = g->clips[nodes[i].clip].length;
    }
    bw_blend_tree_desc td = {.nodes = nodes,
                             .node_count = count,
                             .root = bw_blend_tree_root(src),
                             .param_count = bw_blend_tree_param_count(src),
                             .allocator = g->alloc};
    bw_result r = bw_blend_tree_compile(&td, out, NULL);
    bw_free(&g->alloc, nodes, (size_t)count * sizeof *nodes);
    if (r != BW_OK) return r;
    if (bw_blend_tree_max_leaves(*out) > g->max_leaves) g->max_leaves = bw_blend_tree_max_leaves(*out);
    if (bw_blend_tree_scratch_count(*out) > g->max_tree_scratch)
        g->max_tree_scratch = bw_blend_tree_scratch_count(*out);
    return BW_OK;
}

/* Fills the block; fails only when out of memory (a blend tree copy or
 * the scratch of the name lookups). */
static bw_result copy_desc(bw_graph *g, const bw_graph_desc *d, names *n, pool *strings)
{
    g->max_leaves = 1;
    for (int i = 0; i < d->param_count; i++) {
        const bw_graph_param_desc *p = &d->params[i];
        g->params[i].name = pool_copy(strings, p->name);
        g->params[i].kind = p->kind;
        g->params[i].value = p->kind == BW_GRAPH_PARAM_FLOAT  ? p->value
                             : p->kind == BW_GRAPH_PARAM_BOOL ? (p->value != 0.0f ? 1.0f : 0.0f)
                                                              : 0.0f;
        g->params[i].expiring = p->kind == BW_GRAPH_PARAM_TRIGGER && (p->has_expires || p->expires > 0.0f);
        g->params[i].expires = g->params[i].expiring ? p->expires : 0.0f;
    }
    if (copy_clips(g, d, strings) != BW_OK) return BW_ERR_OUT_OF_MEMORY;
    int e_next = 0;
    for (int i = 0; i < d->mask_count; i++) {
        g->masks[i].name = pool_copy(strings, d->masks[i].name);
        g->masks[i].entry_first = e_next;
        g->masks[i].entry_count = d->masks[i].entry_count;
        for (int e = 0; e < d->masks[i].entry_count; e++) {
            const bw_graph_mask_entry_desc *ed = &d->masks[i].entries[e];
            g->mask_entries[e_next++] = (g_mask_entry){pool_copy(strings, ed->joint), ed->weight, !ed->no_descendants};
        }
    }
    int s_next = 0, t_next = 0, c_next = 0;
    for (int l = 0; l < d->layer_count; l++) {
        const bw_graph_layer_desc *L = &d->layers[l];
        g_layer *gl = &g->layers[l];
        gl->name = pool_copy(strings, L->name);
        if (index_states(n, L) != BW_OK) return BW_ERR_OUT_OF_MEMORY;
        gl->entry = desc_state(n, L->entry);
        gl->mask = L->mask ? desc_mask(n, L->mask) : -1;
        gl->additive = L->mode == BW_GRAPH_ADDITIVE;
        gl->weight = L->has_weight || L->weight > 0.0f ? L->weight : 1.0f;
        gl->weight_param = L->weight_param ? desc_param(n, L->weight_param) : -1;
        gl->state_first = s_next;
        gl->state_count = L->state_count;
        gl->transition_first = t_next;
        gl->transition_count = L->transition_count;
        if (L->state_count > g->max_states) g->max_states = L->state_count;
        for (int s = 0; s < L->state_count; s++) {
            const bw_graph_state_desc *sd = &L->states[s];
            g_state *gs = &g->states[s_next++];
            gs->name = pool_copy(strings, sd->name);
            gs->blend = sd->blend != NULL;
            gs->clip = gs->blend ? -1 : sd->clip;
            if (gs->blend && copy_tree(g, sd->blend, &gs->tree) != BW_OK) return BW_ERR_OUT_OF_MEMORY;
            gs->speed = sd->has_speed || sd->speed != 0.0f ? sd->speed : 1.0f;
            gs->speed_param = sd->speed_param ? desc_param(n, sd->speed_param) : -1;
            bool own_loop = gs->blend || g->clips[sd->clip].loop; /* blends loop */
            gs->loop = sd->loop == BW_GRAPH_LOOP_CLIP ? own_loop : sd->loop == BW_GRAPH_LOOP_YES;
            gs->offset = sd->offset;
            gs->ref_first = -1;
            if (gl->additive) copy_reference(g, sd, gs);
        }
        copy_transitions(g, n, L, &t_next, &c_next);
    }
    if (intern_refs(g) != BW_OK) return BW_ERR_OUT_OF_MEMORY;
    return sync_groups(g, d);
}

/* Compile a desc whose name indices n holds (bw_graph_compile). */
static bw_result compile_named(const bw_graph_desc *desc, bw_graph **out_graph, bw_graph_report *r, names *nm)
{
    validate_params(r, desc, nm);
    validate_masks(r, desc, nm);
    validate_clips(r, desc);
    validate_layers(r, desc, nm);
    if (r->count) return r->first;

    sizes n = count_desc(desc);
    bw_graph shape = {0};
    bw_carver c = {NULL, 0};
    layout(&shape, &c, &n);
    size_t strings_at = bw_align_up(c.used, BW_MAX_ALIGN);
    size_t total = strings_at + n.strings;
    bw_allocator alloc = desc->allocator;
    char *block = (char *)bw_alloc_zeroed(&alloc, total);
    if (!block) {
        bw_graph_problem(r, BW_ERR_OUT_OF_MEMORY, "", "out of memory (%zu bytes)", total);
        return r->first;
    }
    bw_graph *g = (bw_graph *)block;
    c = (bw_carver){block, 0};
    layout(g, &c, &n);
    g->alloc = alloc;
    g->size = total;
    g->param_count = n.params;
    g->clip_count = n.clips;
    g->marker_count = n.markers;
    g->mask_count = n.masks;
    g->mask_entry_count = n.mask_entries;
    g->layer_count = n.layers;
    g->state_count = n.states;
    g->transition_count = n.transitions;
    g->condition_count = n.conditions;
    if (pthread_mutex_init(&g->share_lock, NULL) != 0) {
        bw_free(&alloc, block, total);
        bw_graph_problem(r, BW_ERR_OUT_OF_MEMORY, "", "out of memory (lock)");
        return r->first;
    }
    pool strings = {block + strings_at};
    if (copy_desc(g, desc, nm, &strings) != BW_OK) {
        bw_graph_destroy(g);
        bw_graph_problem(r, BW_ERR_OUT_OF_MEMORY, "", "out of memory (copying)");
        return r->first;
    }
    *out_graph = g;
    return BW_OK;
}

bw_result bw_graph_compile(const bw_graph_desc *desc, bw_graph **out_graph, bw_graph_errors *errors)
{
    bw_graph_report r;
    bw_graph_report_begin(&r, errors);
    if (!desc || !out_graph) {
        bw_graph_problem(&r, BW_ERR_INVALID_ARGUMENT, "", "NULL %s", desc ? "out_graph" : "desc");
        return r.first;
    }
    names nm;
    bw_result res = names_init(&nm, desc);
    if (res != BW_OK) bw_graph_problem(&r, res, "", "out of memory (names)");
    else res = compile_named(desc, out_graph, &r, &nm);
    names_deinit(&nm);
    return res;
}

bw_result bw_graph_refresh_clips(bw_graph *g, const bw_clip *const *clips, int clip_count, bw_graph_errors *errors)
{
    bw_graph_report r;
    bw_graph_report_begin(&r, errors);
    char where[256];
    if (!g || (!clips && clip_count > 0)) {
        bw_graph_problem(&r, BW_ERR_INVALID_ARGUMENT, "", "NULL %s", g ? "clips" : "graph");
        return r.first;
    }
    if (clip_count != g->clip_count) {
        bw_graph_problem(&r, BW_ERR_INVALID_ARGUMENT, "clips", "%d clips for a graph of %d (recompile it)", clip_count,
                         g->clip_count);
        return r.first;
    }
    for (int i = 0; i < clip_count; i++) {
        const bw_clip *clip = clips[i];
        const g_clip *gc = &g->clips[i];
        if (!clip) {
            bw_graph_problem(&r, BW_ERR_INVALID_ARGUMENT, WHERE("clips[%d]", i), "clip is NULL");
            continue;
        }
        if (bw_clip_loop(clip) != gc->loop)
            bw_graph_problem(&r, BW_ERR_INVALID_ARGUMENT, WHERE("clips[%d]", i),
                             "clip '%s' changed its loop flag (recompile the graph)", bw_clip_name(clip));
        bool same = bw_clip_marker_count(clip) == gc->marker_count;
        for (int k = 0; same && k < gc->marker_count; k++)
            same = strcmp(bw_clip_marker_name(clip, k), g->markers[gc->marker_first + k].name) == 0;
        if (!same)
            bw_graph_problem(&r, BW_ERR_INVALID_ARGUMENT, WHERE("clips[%d]", i),
                             "clip '%s' changed its markers' names or order (recompile the graph)", bw_clip_name(clip));
    }
    if (r.count) return r.first;
    /* The new lengths, then every blend tree rebuilt with them; nothing
     * changes unless every tree could be rebuilt. */
    float *old = (float *)bw_alloc(&g->alloc, (size_t)(clip_count > 0 ? clip_count : 1) * sizeof *old);
    bw_blend_tree **trees =
        (bw_blend_tree **)bw_alloc_zeroed(&g->alloc, (size_t)(g->state_count > 0 ? g->state_count : 1) * sizeof *trees);
    int *tally = marker_tally(g);
    bool ok = old && trees && tally;
    int max_leaves = g->max_leaves, max_scratch = g->max_tree_scratch;
    for (int i = 0; ok && i < clip_count; i++) {
        old[i] = g->clips[i].length;
        float len = bw_clip_length(clips[i]);
        g->clips[i].length = isfinite(len) && len > 0.0f ? len : 0.0f;
    }
    for (int i = 0; ok && i < g->state_count; i++)
        if (g->states[i].blend) ok = copy_tree(g, g->states[i].tree, &trees[i]) == BW_OK;
    if (!ok) {
        for (int i = 0; old && i < clip_count; i++) g->clips[i].length = old[i];
        for (int i = 0; trees && i < g->state_count; i++) bw_blend_tree_destroy(trees[i]);
        g->max_leaves = max_leaves; /* copies of trees that fit cannot need more */
        g->max_tree_scratch = max_scratch;
        bw_graph_problem(&r, BW_ERR_OUT_OF_MEMORY, "", "out of memory (refreshing)");
    } else {
        for (int i = 0; i < g->state_count; i++)
            if (g->states[i].blend) {
                bw_blend_tree_destroy(g->states[i].tree);
                g->states[i].tree = trees[i];
            }
        for (int i = 0; i < clip_count; i++) time_markers(g, &g->clips[i], clips[i], tally);
    }
    bw_free(&g->alloc, old, (size_t)(clip_count > 0 ? clip_count : 1) * sizeof *old);
    bw_free(&g->alloc, trees, (size_t)(g->state_count > 0 ? g->state_count : 1) * sizeof *trees);
    if (tally) marker_tally_free(g, tally);
    return r.count ? r.first : BW_OK;
}

void bw_graph_destroy(bw_graph *graph)
{
    if (!graph) return;
    for (int i = 0; i < graph->state_count; i++) bw_blend_tree_destroy(graph->states[i].tree);
    bw_graph_free_shares(graph);
    pthread_mutex_destroy(&graph->share_lock);
    bw_allocator a = graph->alloc;
    bw_free(&a, graph, graph->size);
}

/* ---- helpers the cursor and the lint pass share (graph_internal.h) ---- */

bool bw_graph_compare(bw_graph_op op, double a, double b)
{
    switch (op) {
    case BW_GRAPH_LT: return a < b;
    case BW_GRAPH_LE: return a <= b;
    case BW_GRAPH_GT: return a > b;
    case BW_GRAPH_GE: return a >= b;
    case BW_GRAPH_EQ: return a == b;
    case BW_GRAPH_NE: return a != b;
    default: return false;
    }
}

int bw_graph_find_mask_joint(const bw_rig *rig, const char *name)
{
    int j = bw_rig_find_by_name(rig, name);
    const char *slash = strrchr(name, '/');
    if (j != -1 || !slash) return j;
    char parent[256];
    size_t n = (size_t)(slash - name);
    if (n >= sizeof parent) return -1;
    memcpy(parent, name, n);
    parent[n] = '\0';
    return bw_rig_find(rig, parent, slash + 1);
}

/* ---- lookups ---- */

int bw_graph_find_param(const bw_graph *g, const char *name)
{
    if (!g || !name) return -1;
    for (int i = 0; i < g->param_count; i++)
        if (strcmp(g->params[i].name, name) == 0) return i;
    return -1;
}

int bw_graph_find_layer(const bw_graph *g, const char *name)
{
    if (!g || !name) return -1;
    for (int i = 0; i < g->layer_count; i++)
        if (strcmp(g->layers[i].name, name) == 0) return i;
    return -1;
}

int bw_graph_find_state(const bw_graph *g, int layer, const char *name)
{
    if (!g || !name || layer < 0 || layer >= g->layer_count) return -1;
    const g_layer *L = &g->layers[layer];
    for (int i = 0; i < L->state_count; i++)
        if (strcmp(g->states[L->state_first + i].name, name) == 0) return i;
    return -1;
}

int bw_graph_param_count(const bw_graph *g) { return g ? g->param_count : 0; }
int bw_graph_layer_count(const bw_graph *g) { return g ? g->layer_count : 0; }
int bw_graph_clip_count(const bw_graph *g) { return g ? g->clip_count : 0; }

int bw_graph_state_count(const bw_graph *g, int layer)
{
    return g && layer >= 0 && layer < g->layer_count ? g->layers[layer].state_count : 0;
}

static const g_state *state_at(const bw_graph *g, int layer, int state)
{
    if (!g || layer < 0 || layer >= g->layer_count || state < 0 || state >= g->layers[layer].state_count) return NULL;
    return &g->states[g->layers[layer].state_first + state];
}

int bw_graph_state_clip(const bw_graph *g, int layer, int state)
{
    const g_state *s = state_at(g, layer, state);
    return s && !s->blend ? s->clip : -1;
}

const bw_blend_tree *bw_graph_state_blend(const bw_graph *g, int layer, int state)
{
    const g_state *s = state_at(g, layer, state);
    return s && s->blend ? s->tree : NULL;
}

/* The most markers one advance of state s crosses: one clip's (its
 * dominant leaf's) at most BW_MARKER_CYCLES times looping, once not. */
static long long state_marker_bound(const bw_graph *g, const g_state *s)
{
    int most = 0;
    if (!s->blend) {
        most = g->clips[s->clip].marker_count;
    } else {
        for (int i = 0; i < bw_blend_tree_node_count(s->tree); i++) {
            const bw_blend_node *n = bw_blend_tree_node(s->tree, i);
            if (n->kind == BW_BLEND_NODE_CLIP && n->clip >= 0 && n->clip < g->clip_count &&
                g->clips[n->clip].marker_count > most)
                most = g->clips[n->clip].marker_count;
        }
    }
    return (long long)most * (s->loop ? BW_MARKER_CYCLES : 1);
}

int bw_graph_event_bound(const bw_graph *g)
{
    if (!g) return 0;
    long long total = 0;
    for (int l = 0; l < g->layer_count; l++) {
        const g_layer *L = &g->layers[l];
        long long most = 0;
        for (int s = 0; s < L->state_count; s++) {
            long long m = state_marker_bound(g, &g->states[L->state_first + s]);
            if (m > most) most = m;
        }
        total += most + 3; /* exit, enter, the first update's entry enter */
        if (total > INT_MAX) return INT_MAX;
    }
    return (int)total;
}

int bw_graph_default_events(const bw_graph *g)
{
    int bound = bw_graph_event_bound(g);
    return bound < 64 ? 64 : bound > BW_GRAPH_DEFAULT_EVENTS_MAX ? BW_GRAPH_DEFAULT_EVENTS_MAX : bound;
}

const char *bw_graph_param_name(const bw_graph *g, int param)
{
    return g && param >= 0 && param < g->param_count ? g->params[param].name : NULL;
}

const char *bw_graph_layer_name(const bw_graph *g, int layer)
{
    return g && layer >= 0 && layer < g->layer_count ? g->layers[layer].name : NULL;
}

int bw_graph_layer_weight_param(const bw_graph *g, int layer)
{
    return g && layer >= 0 && layer < g->layer_count ? g->layers[layer].weight_param : -1;
}

const char *bw_graph_state_name(const bw_graph *g, int layer, int state)
{
    if (!g || layer < 0 || layer >= g->layer_count || state < 0 || state >= g->layers[layer].state_count) return NULL;
    return g->states[g->layers[layer].state_first + state].name;
}

bw_graph_param_kind bw_graph_param_kind_of(const bw_graph *g, int param)
{
    return g && param >= 0 && param < g->param_count ? g->params[param].kind : BW_GRAPH_PARAM_FLOAT;
}
