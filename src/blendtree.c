/* blendtree.c - compiled blend trees and their per-instance state (SPEC §6;
 * contract in include/blendwerk/blendtree.h).
 *
 * The compiler checks every node on its own first (so a broken node is
 * reported even where the walk would not reach it, and the walk can trust
 * kinds, counts and indices), then walks from the root for what depends on
 * the shape: depth, visits, leaf entries and scratch. Only then is the one
 * block allocated and filled, so a failure leaves nothing behind.
 *
 * Both the tree and a state are single blocks: a header followed by
 * sections aligned to max_align_t, whose pointers are set once.
 */
#include "blendwerk/blendtree.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "blendspace_internal.h"
#include "common.h"

struct bw_blend_tree {
    bw_allocator allocator;
    size_t size;
    int node_count, root, param_count;
    int leaf_count;    /* leaf nodes */
    int max_leaves;    /* leaf entries of one walk */
    int scratch_count; /* floats one walk needs */
    bw_blend_node *nodes;
    const char **param_names; /* param_count, or NULL */
};

struct bw_blend_tree_state {
    const bw_blend_tree *tree;
    bw_allocator allocator; /* for _create */
    size_t size;
    bool owned; /* made by _create */
    float progress, cycle;
    int leaf_count;
    float *params;
    float *scratch;
    bw_blend_leaf *eval;        /* max_leaves: what the walk writes */
    bw_blend_step_leaf *leaves; /* max_leaves: the last update */
};

/* ---- compile: checks ---- */

typedef struct compiler {
    const bw_blend_tree_desc *desc;
    bw_error *err;
    int visits, leaves, scratch_peak;
    size_t child_total, position_total, name_bytes;
} compiler;

static const char *node_name(const compiler *c, int index, char buf[32])
{
    const char *const *labels = c->desc->node_labels;
    if (labels && index >= 0 && index < c->desc->node_count && labels[index]) return labels[index];
    snprintf(buf, 32, "node %d", index);
    return buf;
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static bw_result node_fail(const compiler *c, bw_result code, int index, const char *fmt, ...)
{
    char why[256], buf[32];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return bw_fail(c->err, code, "blend tree: %s: %s", node_name(c, index, buf), why);
}

static const char *not_finite(float v) { return isnan(v) ? "NaN" : "infinite"; }

static bool param_ok(const bw_blend_tree_desc *d, int p) { return p >= 0 && p < d->param_count; }

/* Floats of member positions a blend node reads. */
static int position_count(const bw_blend_node *n)
{
    switch (n->kind) {
    case BW_BLEND_NODE_1D: return n->child_count;
    case BW_BLEND_NODE_2D:
    case BW_BLEND_NODE_DIRECTIONAL: return 2 * n->child_count;
    case BW_BLEND_NODE_GRID: return n->grid_nx + n->grid_ny;
    default: return 0;
    }
}

/* What one node must satisfy by itself, the member limits included
 * (blendspace.h: BW_BLEND_MAX_MEMBERS for the O(n²) 2D kinds,
 * BW_BLEND_MAX_CHILDREN for the others), so that no evaluation of a
 * compiled tree can cost more than its nodes' limits allow. */
static bw_result check_node(compiler *c, int index)
{
    const bw_blend_tree_desc *d = c->desc;
    const bw_blend_node *n = &d->nodes[index];
    if ((int)n->kind < 0 || n->kind >= BW_BLEND_NODE_KIND_COUNT)
        return node_fail(c, BW_ERR_INVALID_ARGUMENT, index, "unknown kind %d", (int)n->kind);
    if (!isfinite(n->speed)) return node_fail(c, BW_ERR_NON_FINITE, index, "speed is %s", not_finite(n->speed));
    if (n->kind == BW_BLEND_NODE_CLIP) {
        if (!isfinite(n->length))
            return node_fail(c, BW_ERR_NON_FINITE, index, "length is %s", not_finite(n->length));
        if (n->length < 0.0f)
            return node_fail(c, BW_ERR_INVALID_ARGUMENT, index, "length %g is negative", (double)n->length);
        return BW_OK;
    }
    if (n->child_count < 1) return node_fail(c, BW_ERR_EMPTY, index, "children is empty");
    if (!n->children || !n->positions)
        return node_fail(c, BW_ERR_INVALID_ARGUMENT, index, "children or positions are missing (NULL)");
    bool band = n->kind == BW_BLEND_NODE_2D || n->kind == BW_BLEND_NODE_DIRECTIONAL;
    if (band && n->child_count > BW_BLEND_MAX_MEMBERS)
        return node_fail(c, BW_ERR_LIMIT, index,
                         "%d children, more than the %d a 2D node takes (BW_BLEND_MAX_MEMBERS: its weights "
                         "cost O(n^2) per evaluation)",
                         n->child_count, BW_BLEND_MAX_MEMBERS);
    if (n->child_count > BW_BLEND_MAX_CHILDREN)
        return node_fail(c, BW_ERR_LIMIT, index,
                         "%d children, more than the %d a blend node takes (BW_BLEND_MAX_CHILDREN)", n->child_count,
                         BW_BLEND_MAX_CHILDREN);
    if (!param_ok(d, n->param_x) || (n->kind != BW_BLEND_NODE_1D && !param_ok(d, n->param_y)))
        return node_fail(c, BW_ERR_RANGE, index, "reads a parameter outside [0, %d)", d->param_count);
    if (n->kind == BW_BLEND_NODE_GRID &&
        (n->grid_nx < 1 || n->grid_ny < 1 || n->grid_nx > INT_MAX / n->grid_ny ||
         n->grid_nx * n->grid_ny != n->child_count))
        return node_fail(c, BW_ERR_INVALID_ARGUMENT, index, "a %d x %d grid needs %lld children, not %d",
                         n->grid_nx, n->grid_ny, (long long)n->grid_nx * n->grid_ny, n->child_count);
    for (int k = 0; k < n->child_count; k++)
        if (n->children[k] < 0 || n->children[k] >= d->node_count)
            return node_fail(c, BW_ERR_RANGE, index, "child %d is node %d, outside [0, %d)", k, n->children[k],
                             d->node_count);
    const float *p = n->positions;
    if (n->kind == BW_BLEND_NODE_GRID) {
        for (int k = 0; k < n->grid_nx + n->grid_ny; k++)
            if (!isfinite(p[k]))
                return node_fail(c, BW_ERR_NON_FINITE, index, "grid %s value %d is %s", k < n->grid_nx ? "x" : "y",
                                 k < n->grid_nx ? k : k - n->grid_nx, not_finite(p[k]));
    } else {
        /* A member's position is where its child sits: name the child. */
        int per = n->kind == BW_BLEND_NODE_1D ? 1 : 2;
        for (int k = 0; k < per * n->child_count; k++)
            if (!isfinite(p[k])) {
                char buf[32];
                return node_fail(c, BW_ERR_NON_FINITE, n->children[k / per], "position in %s is %s",
                                 node_name(c, index, buf), not_finite(p[k]));
            }
    }
    c->child_total += (size_t)n->child_count;
    c->position_total += (size_t)position_count(n);
    return BW_OK;
}

/* What depends on the shape: depth, visits, leaf entries, scratch. */
static bw_result walk(compiler *c, int index, int depth, int scratch_used)
{
    const bw_blend_node *n = &c->desc->nodes[index];
    if (depth > BW_BLEND_MAX_DEPTH)
        return node_fail(c, BW_ERR_LIMIT, index, "nested deeper than %d levels (cyclic?)", BW_BLEND_MAX_DEPTH);
    if (++c->visits > c->desc->node_count)
        return node_fail(c, BW_ERR_LIMIT, index, "more node visits than nodes (shared too often or cyclic)");
    if (n->kind == BW_BLEND_NODE_CLIP) {
        c->leaves++;
        return BW_OK;
    }
    /* Each level keeps its children's weights and rates while descending. */
    int used = scratch_used + 2 * n->child_count;
    if (used < scratch_used) return node_fail(c, BW_ERR_LIMIT, index, "scratch size overflows");
    if (used > c->scratch_peak) c->scratch_peak = used;
    for (int k = 0; k < n->child_count; k++) {
        bw_result r = walk(c, n->children[k], depth + 1, used);
        if (r != BW_OK) return r;
    }
    return BW_OK;
}

static bw_result check_names(compiler *c)
{
    const bw_blend_tree_desc *d = c->desc;
    if (!d->param_names) return BW_OK;
    for (int i = 0; i < d->param_count; i++) {
        const char *s = d->param_names[i];
        if (!s || !*s) return bw_fail(c->err, BW_ERR_INVALID_ARGUMENT, "blend tree: parameter %d has no name", i);
        for (int k = 0; k < i; k++)
            if (strcmp(d->param_names[k], s) == 0)
                return bw_fail(c->err, BW_ERR_DUPLICATE, "blend tree: parameters %d and %d are both named '%s'", k,
                               i, s);
        c->name_bytes += strlen(s) + 1;
    }
    return BW_OK;
}

/* ---- compile: the block ---- */

typedef struct tree_layout {
    size_t nodes, children, positions, names, chars, size;
} tree_layout;

static bool layout_tree(const compiler *c, tree_layout *l)
{
    const bw_blend_tree_desc *d = c->desc;
    const size_t A = BW_MAX_ALIGN, big = SIZE_MAX / 8;
    if (c->child_total > big / sizeof(int) || c->position_total > big / sizeof(float) || c->name_bytes > big)
        return false;
    l->nodes = bw_align_up(sizeof(bw_blend_tree), A);
    l->children = bw_align_up(l->nodes + sizeof(bw_blend_node) * (size_t)d->node_count, A);
    l->positions = bw_align_up(l->children + sizeof(int) * c->child_total, A);
    l->names = bw_align_up(l->positions + sizeof(float) * c->position_total, A);
    l->chars = l->names + (d->param_names ? sizeof(char *) * (size_t)d->param_count : 0);
    l->size = bw_align_up(l->chars + c->name_bytes, A);
    return true;
}

bw_result bw_blend_tree_compile(const bw_blend_tree_desc *desc, bw_blend_tree **out, bw_error *err)
{
    if (!desc || !out) return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "blend tree: NULL desc or out");
    if (!desc->nodes || desc->node_count < 1 || desc->param_count < 0)
        return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "blend tree: no nodes or negative param_count");
    if (desc->node_count > INT_MAX / 4) return bw_fail(err, BW_ERR_LIMIT, "blend tree: too many nodes");
    if (desc->root < 0 || desc->root >= desc->node_count)
        return bw_fail(err, BW_ERR_RANGE, "blend tree: root %d out of range [0, %d)", desc->root, desc->node_count);
    compiler c;
    memset(&c, 0, sizeof c);
    c.desc = desc;
    c.err = err;
    bw_result r = check_names(&c);
    for (int i = 0; r == BW_OK && i < desc->node_count; i++) r = check_node(&c, i);
    if (r == BW_OK) r = walk(&c, desc->root, 1, 0);
    if (r != BW_OK) return r;
    tree_layout l;
    if (!layout_tree(&c, &l)) return bw_fail(err, BW_ERR_LIMIT, "blend tree: too large");

    const bw_allocator *a = desc->allocator.fn ? &desc->allocator : NULL;
    unsigned char *block = (unsigned char *)bw_alloc_zeroed(a, l.size);
    if (!block) return bw_fail(err, BW_ERR_OUT_OF_MEMORY, "blend tree: out of memory (%zu bytes)", l.size);
    bw_blend_tree *t = (bw_blend_tree *)block;
    t->allocator = desc->allocator;
    t->size = l.size;
    t->node_count = desc->node_count;
    t->root = desc->root;
    t->param_count = desc->param_count;
    t->max_leaves = c.leaves;
    t->scratch_count = c.scratch_peak;
    t->nodes = (bw_blend_node *)(block + l.nodes);
    int *children = (int *)(block + l.children);
    float *positions = (float *)(block + l.positions);
    for (int i = 0; i < desc->node_count; i++) {
        const bw_blend_node *src = &desc->nodes[i];
        bw_blend_node *n = &t->nodes[i];
        *n = *src;
        if (n->speed == 0.0f) n->speed = 1.0f; /* all-zero means the default */
        if (n->kind == BW_BLEND_NODE_CLIP) {
            t->leaf_count++;
            n->children = NULL;
            n->positions = NULL;
            n->child_count = 0;
            continue;
        }
        int pc = position_count(src);
        memcpy(children, src->children, sizeof(int) * (size_t)src->child_count);
        memcpy(positions, src->positions, sizeof(float) * (size_t)pc);
        n->children = children;
        n->positions = positions;
        n->rate_scale = src->rate_scale && n->kind == BW_BLEND_NODE_1D;
        children += src->child_count;
        positions += pc;
    }
    if (desc->param_names) {
        t->param_names = (const char **)(block + l.names);
        char *chars = (char *)(block + l.chars);
        for (int i = 0; i < desc->param_count; i++) {
            size_t len = strlen(desc->param_names[i]) + 1;
            memcpy(chars, desc->param_names[i], len);
            t->param_names[i] = chars;
            chars += len;
        }
    }
    *out = t;
    return BW_OK;
}

void bw_blend_tree_destroy(bw_blend_tree *tree)
{
    if (!tree) return;
    bw_allocator a = tree->allocator;
    bw_free(a.fn ? &a : NULL, tree, tree->size);
}

int bw_blend_tree_node_count(const bw_blend_tree *t) { return t ? t->node_count : 0; }
int bw_blend_tree_leaf_count(const bw_blend_tree *t) { return t ? t->leaf_count : 0; }
int bw_blend_tree_max_leaves(const bw_blend_tree *t) { return t ? t->max_leaves : 0; }
int bw_blend_tree_param_count(const bw_blend_tree *t) { return t ? t->param_count : 0; }
int bw_blend_tree_scratch_count(const bw_blend_tree *t) { return t ? t->scratch_count : 0; }
int bw_blend_tree_root(const bw_blend_tree *t) { return t ? t->root : -1; }

const bw_blend_node *bw_blend_tree_node(const bw_blend_tree *t, int index)
{
    return t && index >= 0 && index < t->node_count ? &t->nodes[index] : NULL;
}

const char *bw_blend_tree_param_name(const bw_blend_tree *t, int index)
{
    return t && t->param_names && index >= 0 && index < t->param_count ? t->param_names[index] : NULL;
}

int bw_blend_tree_find_param(const bw_blend_tree *t, const char *name)
{
    if (!t || !t->param_names || !name) return -1;
    for (int i = 0; i < t->param_count; i++)
        if (strcmp(t->param_names[i], name) == 0) return i;
    return -1;
}

/* ---- evaluation ---- */

typedef struct eval {
    const bw_blend_tree *tree;
    const float *params;
    bw_blend_leaf *out;
    int count;
} eval;

/* Depth-first: the children's weights and rates live in `scratch` while
 * the children are visited, and deeper levels use what follows. The tree
 * was compiled, so the weight functions run without their checks (they
 * still count a non-finite parameter as 0). */
static void eval_node(eval *e, int index, double weight, double rate, float *scratch)
{
    const bw_blend_node *n = &e->tree->nodes[index];
    rate *= n->speed;
    if (n->kind == BW_BLEND_NODE_CLIP) {
        bw_blend_leaf *leaf = &e->out[e->count++];
        leaf->node = index;
        leaf->clip = n->clip;
        leaf->weight = (float)weight;
        leaf->rate = (float)rate;
        leaf->length = n->length;
        return;
    }
    int cc = n->child_count;
    float *w = scratch, *r = scratch + cc;
    for (int k = 0; k < cc; k++) r[k] = 1.0f;
    switch (n->kind) {
    case BW_BLEND_NODE_1D:
        bw_blend1d_weights_checked(n->positions, cc, e->params[n->param_x], w, n->rate_scale ? r : NULL);
        break;
    case BW_BLEND_NODE_2D:
    case BW_BLEND_NODE_DIRECTIONAL:
        bw_blend2d_weights_checked(n->positions, cc, e->params[n->param_x], e->params[n->param_y],
                           n->kind == BW_BLEND_NODE_2D ? BW_BLEND2D_CARTESIAN : BW_BLEND2D_DIRECTIONAL, w);
        break;
    case BW_BLEND_NODE_GRID:
        bw_blend_grid_weights_checked(n->positions, n->grid_nx, n->positions + n->grid_nx, n->grid_ny,
                                      e->params[n->param_x], e->params[n->param_y], w);
        break;
    default: return;
    }
    for (int k = 0; k < cc; k++)
        if (w[k] > 0.0f) eval_node(e, n->children[k], weight * w[k], rate * r[k], scratch + 2 * cc);
}

static int run_eval(const bw_blend_tree *tree, const float *params, float *scratch, bw_blend_leaf *out)
{
    eval e = {tree, params, out, 0};
    eval_node(&e, tree->root, 1.0, 1.0, scratch);
    return e.count;
}

bw_result bw_blend_tree_evaluate(const bw_blend_tree *tree, const float *params, float *scratch,
                                 int scratch_count, bw_blend_leaf *out_leaves, int leaf_capacity,
                                 int *out_leaf_count)
{
    if (!tree || !out_leaves || !out_leaf_count || (tree->param_count > 0 && !params)) return BW_ERR_INVALID_ARGUMENT;
    if (leaf_capacity < tree->max_leaves || scratch_count < tree->scratch_count) return BW_ERR_LIMIT;
    if (tree->scratch_count > 0 && !scratch) return BW_ERR_INVALID_ARGUMENT;
    *out_leaf_count = run_eval(tree, params, scratch, out_leaves);
    return BW_OK;
}

/* ---- per-instance state ---- */

typedef struct state_layout {
    size_t leaves, eval, params, scratch, size;
} state_layout;

static state_layout layout_state(const bw_blend_tree *t)
{
    const size_t A = BW_MAX_ALIGN;
    state_layout l;
    l.leaves = bw_align_up(sizeof(bw_blend_tree_state), A);
    l.eval = bw_align_up(l.leaves + sizeof(bw_blend_step_leaf) * (size_t)t->max_leaves, A);
    l.params = bw_align_up(l.eval + sizeof(bw_blend_leaf) * (size_t)t->max_leaves, A);
    l.scratch = bw_align_up(l.params + sizeof(float) * (size_t)t->param_count, A);
    l.size = bw_align_up(l.scratch + sizeof(float) * (size_t)t->scratch_count, A);
    return l;
}

size_t bw_blend_tree_state_size(const bw_blend_tree *tree) { return tree ? layout_state(tree).size : 0; }

bw_result bw_blend_tree_state_init(const bw_blend_tree *tree, void *memory, size_t size,
                                   bw_blend_tree_state **out_state)
{
    if (!tree || !memory || !out_state || (uintptr_t)memory % BW_MAX_ALIGN != 0) return BW_ERR_INVALID_ARGUMENT;
    state_layout l = layout_state(tree);
    if (size < l.size) return BW_ERR_LIMIT;
    unsigned char *block = (unsigned char *)memory;
    memset(block, 0, l.size);
    bw_blend_tree_state *s = (bw_blend_tree_state *)block;
    s->tree = tree;
    s->size = l.size;
    s->leaves = (bw_blend_step_leaf *)(block + l.leaves);
    s->eval = (bw_blend_leaf *)(block + l.eval);
    s->params = (float *)(block + l.params);
    s->scratch = (float *)(block + l.scratch);
    *out_state = s;
    return BW_OK;
}

bw_result bw_blend_tree_state_create(const bw_blend_tree *tree, const bw_allocator *allocator,
                                     bw_blend_tree_state **out_state)
{
    if (!tree || !out_state) return BW_ERR_INVALID_ARGUMENT;
    size_t size = bw_blend_tree_state_size(tree);
    void *memory = bw_alloc(allocator, size);
    if (!memory) return BW_ERR_OUT_OF_MEMORY;
    bw_blend_tree_state *s = NULL;
    bw_blend_tree_state_init(tree, memory, size, &s); /* cannot fail: sized and aligned above */
    s->owned = true;
    if (allocator) s->allocator = *allocator;
    *out_state = s;
    return BW_OK;
}

void bw_blend_tree_state_destroy(bw_blend_tree_state *state)
{
    if (!state || !state->owned) return;
    bw_allocator a = state->allocator;
    bw_free(a.fn ? &a : NULL, state, state->size);
}

const bw_blend_tree *bw_blend_tree_state_tree(const bw_blend_tree_state *s) { return s ? s->tree : NULL; }

bw_result bw_blend_tree_state_set_param(bw_blend_tree_state *s, int index, float value)
{
    if (!s) return BW_ERR_INVALID_ARGUMENT;
    if (index < 0 || index >= s->tree->param_count) return BW_ERR_RANGE;
    s->params[index] = isfinite(value) ? value : 0.0f;
    return BW_OK;
}

float bw_blend_tree_state_param(const bw_blend_tree_state *s, int index)
{
    return s && index >= 0 && index < s->tree->param_count ? s->params[index] : 0.0f;
}

float bw_blend_tree_state_phase(const bw_blend_tree_state *s) { return s ? s->progress : 0.0f; }

void bw_blend_tree_state_set_phase(bw_blend_tree_state *s, float progress)
{
    if (s) s->progress = bw_blend_phase_advance(progress, 0.0f, 0.0f); /* wraps; NaN -> 0 */
}

bw_result bw_blend_tree_state_update(bw_blend_tree_state *s, float dt)
{
    return bw_blend_tree_state_update_scaled(s, dt, 1.0f);
}

bw_result bw_blend_tree_state_update_scaled(bw_blend_tree_state *s, float dt, float rate)
{
    if (!s) return BW_ERR_INVALID_ARGUMENT;
    int n = run_eval(s->tree, s->params, s->scratch, s->eval);
    if (rate != 1.0f) {
        float r = isfinite(rate) ? rate : 0.0f;
        for (int i = 0; i < n; i++) s->eval[i].rate *= r;
    }
    float cycle = bw_blend_cycle_duration(s->eval, n);
    double advance = bw_blend_phase_delta(dt, cycle);
    float before = s->progress, after = bw_blend_phase_advance(before, dt, cycle);
    for (int i = 0; i < n; i++) {
        const bw_blend_leaf *leaf = &s->eval[i];
        bw_blend_step_leaf *out = &s->leaves[i];
        bool moving = isfinite(leaf->length) && leaf->length > 0.0f; /* else it stays at 0 (leaf_time) */
        out->leaf = *leaf;
        out->time = bw_blend_leaf_time(leaf, after);
        out->from = bw_blend_leaf_time(leaf, before);
        out->delta = moving ? advance * (double)leaf->length * (leaf->rate < 0.0f ? -1.0 : 1.0) : 0.0;
    }
    s->leaf_count = n;
    s->cycle = cycle;
    s->progress = after;
    return BW_OK;
}

const bw_blend_step_leaf *bw_blend_tree_state_leaves(const bw_blend_tree_state *s, int *out_count)
{
    if (out_count) *out_count = s ? s->leaf_count : 0;
    return s ? s->leaves : NULL;
}

float bw_blend_tree_state_cycle(const bw_blend_tree_state *s) { return s ? s->cycle : 0.0f; }

/* ---- emitting contributions and root plays ---- */

static float emitted_weight(float layer_weight, const bw_blend_step_leaf *leaf)
{
    float w = layer_weight * leaf->leaf.weight;
    return isfinite(w) && w > 0.0f ? w : 0.0f;
}

/* The checks both emitters share: every reported leaf has a binding, and
 * the leaves to write fit. Returns how many will be written in *out_n. */
static bw_result check_emit(const bw_blend_tree_state *s, const bw_binding *const *bindings, int binding_count,
                            float layer_weight, const void *out, int capacity, const int *out_count, int *out_n)
{
    if (!s || !bindings || !out || !out_count || binding_count < 0) return BW_ERR_INVALID_ARGUMENT;
    int n = 0;
    for (int i = 0; i < s->leaf_count; i++) {
        int clip = s->leaves[i].leaf.clip;
        if (clip < 0 || clip >= binding_count) return BW_ERR_RANGE;
        if (!bindings[clip]) return BW_ERR_INVALID_ARGUMENT;
        if (emitted_weight(layer_weight, &s->leaves[i]) > 0.0f) n++;
    }
    if (n > capacity) return BW_ERR_LIMIT;
    *out_n = n;
    return BW_OK;
}

/* Write one emitted leaf as entry k of `out`. */
typedef void (*emit_fn)(void *out, int k, const bw_binding *binding, const bw_blend_step_leaf *leaf, float weight,
                        int priority);

static void write_contribution(void *out, int k, const bw_binding *binding, const bw_blend_step_leaf *leaf,
                               float weight, int priority)
{
    ((bw_clip_contribution *)out)[k] = (bw_clip_contribution){binding, leaf->time, weight, priority};
}

static void write_root_play(void *out, int k, const bw_binding *binding, const bw_blend_step_leaf *leaf,
                            float weight, int priority)
{
    /* blend leaves loop (SPEC §12.1: blends loop) */
    ((bw_root_play *)out)[k] = (bw_root_play){binding, leaf->from, leaf->delta, true, weight, priority};
}

static bw_result emit(const bw_blend_tree_state *s, const bw_binding *const *bindings, int binding_count,
                      float layer_weight, int priority, void *out, int capacity, int *out_count, emit_fn write)
{
    int n = 0;
    bw_result r = check_emit(s, bindings, binding_count, layer_weight, out, capacity, out_count, &n);
    if (r != BW_OK) return r;
    int k = 0;
    for (int i = 0; i < s->leaf_count; i++) {
        const bw_blend_step_leaf *leaf = &s->leaves[i];
        float w = emitted_weight(layer_weight, leaf);
        if (w > 0.0f) write(out, k++, bindings[leaf->leaf.clip], leaf, w, priority);
    }
    *out_count = k;
    return BW_OK;
}

bw_result bw_blend_tree_state_emit(const bw_blend_tree_state *state, const bw_binding *const *bindings,
                                   int binding_count, float layer_weight, int priority,
                                   bw_clip_contribution *out, int capacity, int *out_count)
{
    return emit(state, bindings, binding_count, layer_weight, priority, out, capacity, out_count,
                write_contribution);
}

bw_result bw_blend_tree_state_emit_root_plays(const bw_blend_tree_state *state, const bw_binding *const *bindings,
                                              int binding_count, float layer_weight, int priority,
                                              bw_root_play *out, int capacity, int *out_count)
{
    return emit(state, bindings, binding_count, layer_weight, priority, out, capacity, out_count, write_root_play);
}
