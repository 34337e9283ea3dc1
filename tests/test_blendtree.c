/* test_blendtree.c - compiled blend trees and their per-instance states
 * (SPEC §6 nesting and synchronized phase; include/blendwerk/blendtree.h).
 *
 * The first four tests are the blend-tree tests that lived in
 * test_blendspace.c, ported to the compiler with their numbers unchanged.
 * Every expected number is worked out by hand in the comment above it.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "blendwerk/blendtree.h"
#include "blendwerk/mix.h"
#include "blendwerk/pose.h"
#include "blendwerk/rootmotion.h"
#include "blendwerk/sample.h"
#include "check.h"
#include "fixtures.h"
#include "test_alloc_counter.h"

#define TOL 1e-5

/* A compiled tree from nodes, or NULL (the test then fails on CHECKs). */
static bw_blend_tree *compile(const bw_blend_node *nodes, int count, int root, int params)
{
    bw_blend_tree_desc desc = {0};
    desc.nodes = nodes;
    desc.node_count = count;
    desc.root = root;
    desc.param_count = params;
    bw_blend_tree *t = NULL;
    bw_error err = {0};
    bw_result r = bw_blend_tree_compile(&desc, &t, &err);
    if (r != BW_OK) fprintf(stderr, "compile: %s\n", err.message);
    CHECK_INT(r, BW_OK);
    return t;
}

/* The mixer is made here only, so a change of its constructor is one line. */
static bw_mixer *make_mixer(const bw_rig *rig, int max_contributions)
{
    bw_mixer *m = NULL;
    bw_mixer_desc desc = {.rig = rig, .max_contributions = max_contributions};
    CHECK_INT(bw_mixer_create(&desc, &m), BW_OK);
    return m;
}

/* The 2-leaf 1D tree most tests below use: node 0 reads param 0 with
 * thresholds 0 and 1 over node 1 (clip 0, len_a seconds) and node 2
 * (clip 1, len_b seconds). */
static void two_leaf_nodes(bw_blend_node nodes[3], float len_a, float len_b)
{
    static const int kids[2] = {1, 2};
    static const float th[2] = {0, 1};
    nodes[0] = bw_blend_1d_node(kids, th, 2, 0, false);
    nodes[1] = bw_blend_clip_node(0, len_a);
    nodes[2] = bw_blend_clip_node(1, len_b);
}

/* ---------------------------------------------- ported from test_blendspace */

/* Node layout:
 *   0: 1D on param 0, thresholds {0, 1}, children {1, 2}
 *   1: clip 10 "idle", 2 s
 *   2: directional on params (1, 2), speed 2, children {3, 4} at F (0,1), R (1,0)
 *   3: clip 11 "walk_f", 1 s
 *   4: clip 12 "walk_r", 1.2 s, speed 0.5
 * params {0.25, 0.5, √3/2}:
 *   root: u = 0.25 -> idle 3/4, node 2 1/4
 *   node 2 at 30° from F: F 2/3, R 1/3 (worked out in test_blendspace.c)
 *   leaves: idle w 3/4 rate 1; walk_f w 1/4·2/3 = 1/6 rate 2;
 *           walk_r w 1/4·1/3 = 1/12 rate 2·0.5 = 1. */
static void tree_multiplies_influence_and_speed_along_the_path(void)
{
    const int root_children[2] = {1, 2}, dir_children[2] = {3, 4};
    const float thresholds[2] = {0, 1}, dirs[4] = {0, 1, 1, 0};
    bw_blend_node nodes[5];
    nodes[0] = bw_blend_1d_node(root_children, thresholds, 2, 0, false);
    nodes[1] = bw_blend_clip_node(10, 2.0f);
    nodes[2] = bw_blend_2d_node(BW_BLEND_NODE_DIRECTIONAL, dir_children, dirs, 2, 1, 2);
    nodes[2].speed = 2.0f;
    nodes[3] = bw_blend_clip_node(11, 1.0f);
    nodes[4] = bw_blend_clip_node(12, 1.2f);
    nodes[4].speed = 0.5f;
    bw_blend_tree *tree = compile(nodes, 5, 0, 3);
    if (!tree) return;

    CHECK_INT(bw_blend_tree_max_leaves(tree), 3);
    CHECK_INT(bw_blend_tree_scratch_count(tree), 8); /* 2 floats per child on the deepest path: 2·2 + 2·2 */
    CHECK_INT(bw_blend_tree_leaf_count(tree), 3);
    CHECK_INT(bw_blend_tree_node_count(tree), 5);
    CHECK_INT(bw_blend_tree_param_count(tree), 3);

    const float params[3] = {0.25f, 0.5f, (float)(sqrt(3.0) / 2)};
    float scratch[8];
    bw_blend_leaf leaves[3];
    int n = -1;
    CHECK_INT(bw_blend_tree_evaluate(tree, params, scratch, 8, leaves, 3, &n), BW_OK);
    CHECK_INT(n, 3);
    if (n == 3) {
        CHECK_INT(leaves[0].clip, 10);
        CHECK_NEAR(leaves[0].weight, 0.75, TOL);
        CHECK_NEAR(leaves[0].rate, 1.0, TOL);
        CHECK_NEAR(leaves[0].length, 2.0, 0);
        CHECK_INT(leaves[1].clip, 11);
        CHECK_INT(leaves[1].node, 3);
        CHECK_NEAR(leaves[1].weight, 1.0 / 6.0, TOL);
        CHECK_NEAR(leaves[1].rate, 2.0, TOL);
        CHECK_INT(leaves[2].clip, 12);
        CHECK_NEAR(leaves[2].weight, 1.0 / 12.0, TOL);
        CHECK_NEAR(leaves[2].rate, 1.0, TOL);
        /* cycle = (3/4·2/1 + 1/6·1/2 + 1/12·1.2/1) / 1 = 1.5 + 1/12 + 0.1 */
        CHECK_NEAR(bw_blend_cycle_duration(leaves, 3), 1.5 + 1.0 / 12.0 + 0.1, TOL);
    }

    /* Param 0 = 0: node 2 has weight 0 and is not descended into. */
    const float idle_params[3] = {0.0f, 0.5f, 0.5f};
    CHECK_INT(bw_blend_tree_evaluate(tree, idle_params, scratch, 8, leaves, 3, &n), BW_OK);
    CHECK_INT(n, 1);
    CHECK_INT(leaves[0].clip, 10);
    CHECK_NEAR(leaves[0].weight, 1.0, 0);

    /* NaN parameters count as 0: the same single idle leaf. */
    const float nan_params[3] = {NAN, NAN, NAN};
    CHECK_INT(bw_blend_tree_evaluate(tree, nan_params, scratch, 8, leaves, 3, &n), BW_OK);
    CHECK_INT(n, 1);
    CHECK_NEAR(leaves[0].weight, 1.0, 0);
    bw_blend_tree_destroy(tree);
}

static void tree_applies_1d_rate_scaling_under_a_parent_speed(void)
{
    /* 0: grid 1×1 (a pass-through parent) with speed 2 -> child 1
     * 1: 1D with rate scaling over walk (1.5) and run (4) -> 2, 3
     * At 6 m/s run takes all at 6/4 = 1.5×, times the parent's 2 = 3. */
    const int c0[1] = {1}, c1[2] = {2, 3};
    const float axes[2] = {0, 0}, th[2] = {1.5f, 4.0f};
    bw_blend_node nodes[4];
    nodes[0] = bw_blend_grid_node(c0, axes, 1, 1, 1, 1);
    nodes[0].speed = 2.0f;
    nodes[1] = bw_blend_1d_node(c1, th, 2, 0, true);
    nodes[2] = bw_blend_clip_node(0, 0.71f);
    nodes[3] = bw_blend_clip_node(1, 1.16f);
    bw_blend_tree *tree = compile(nodes, 4, 0, 2);
    const float params[2] = {6.0f, 0.0f};
    float scratch[16];
    bw_blend_leaf leaves[2];
    int n = 0;
    CHECK_INT(bw_blend_tree_evaluate(tree, params, scratch, 16, leaves, 2, &n), BW_OK);
    CHECK_INT(n, 1);
    CHECK_INT(leaves[0].clip, 1);
    CHECK_NEAR(leaves[0].rate, 3.0, TOL);
    bw_blend_tree_destroy(tree);
    /* Without the flag the rate is the parent's 2 only. The compiled tree
     * copied the description, so the change needs a new compile. */
    nodes[1].rate_scale = false;
    tree = compile(nodes, 4, 0, 2);
    CHECK_INT(bw_blend_tree_evaluate(tree, params, scratch, 16, leaves, 2, &n), BW_OK);
    CHECK_NEAR(leaves[0].rate, 2.0, TOL);
    bw_blend_tree_destroy(tree);
}

/* Compile `nodes` expecting `code`; the error names `where` and `what`, and
 * *out is untouched. */
static void refuses(const bw_blend_node *nodes, int count, int root, int params, bw_result code,
                    const char *what)
{
    bw_blend_tree_desc desc = {0};
    desc.nodes = nodes;
    desc.node_count = count;
    desc.root = root;
    desc.param_count = params;
    bw_blend_tree *sentinel = (bw_blend_tree *)&desc, *t = sentinel;
    bw_error err = {0};
    CHECK_INT(bw_blend_tree_compile(&desc, &t, &err), code);
    CHECK(t == sentinel);
    CHECK_INT(err.code, code);
    CHECK_CONTAINS(err.message, what);
}

static void tree_rejects_bad_structure_and_leaves_outputs_alone(void)
{
    const int self[1] = {0}, bad_child[2] = {1, 9}, ok_children[2] = {1, 2};
    const float th[2] = {0, 1}, nan_th[2] = {0, NAN};
    bw_blend_node nodes[3];
    nodes[1] = bw_blend_clip_node(0, 1.0f);
    nodes[2] = bw_blend_clip_node(1, 1.0f);
    bw_blend_leaf leaves[4];
    float scratch[64];
    const float params[1] = {0.5f};
    int n = -5;

    nodes[0] = bw_blend_1d_node(bad_child, th, 2, 0, false);
    refuses(nodes, 3, 0, 1, BW_ERR_RANGE, "blend tree: node 0: child 1 is node 9, outside [0, 3)");

    nodes[0] = bw_blend_1d_node(self, th, 1, 0, false); /* a cycle */
    refuses(nodes, 3, 0, 1, BW_ERR_LIMIT, "more node visits than nodes");

    nodes[0] = bw_blend_1d_node(ok_children, th, 2, 3, false); /* param 3 of 1 */
    refuses(nodes, 3, 0, 1, BW_ERR_RANGE, "node 0: reads a parameter outside [0, 1)");

    /* A bad position is named by the child sitting there. */
    nodes[0] = bw_blend_1d_node(ok_children, nan_th, 2, 0, false);
    refuses(nodes, 3, 0, 1, BW_ERR_NON_FINITE, "blend tree: node 2: position in node 0 is NaN");

    nodes[0] = bw_blend_grid_node(ok_children, th, 2, 2, 0, 0);
    nodes[0].child_count = 2; /* 2 × 2 cells but 2 children */
    refuses(nodes, 3, 0, 1, BW_ERR_INVALID_ARGUMENT, "node 0: a 2 x 2 grid needs 4 children, not 2");

    nodes[0] = bw_blend_1d_node(ok_children, th, 2, 0, false);
    nodes[0].kind = (bw_blend_node_kind)42;
    refuses(nodes, 3, 0, 1, BW_ERR_INVALID_ARGUMENT, "node 0: unknown kind 42");

    nodes[0] = bw_blend_1d_node(ok_children, th, 2, 0, false);
    nodes[2].length = NAN;
    refuses(nodes, 3, 0, 1, BW_ERR_NON_FINITE, "node 2: length is NaN");
    nodes[2].length = 1.0f;
    nodes[2].speed = INFINITY;
    refuses(nodes, 3, 0, 1, BW_ERR_NON_FINITE, "node 2: speed is infinite");
    nodes[2].speed = 1.0f;

    /* Sharing that multiplies the work: nodes 0..3 each list the next node
     * twice, so a walk would visit 1 + 2 + 4 + 8 + 16 = 31 nodes of 5. */
    {
        const int twice[4][2] = {{1, 1}, {2, 2}, {3, 3}, {4, 4}};
        const float th2[2] = {0, 1};
        bw_blend_node chain[5];
        for (int k = 0; k < 4; k++) chain[k] = bw_blend_1d_node(twice[k], th2, 2, 0, false);
        chain[4] = bw_blend_clip_node(0, 1.0f);
        refuses(chain, 5, 0, 1, BW_ERR_LIMIT, "more node visits than nodes");
    }

    /* Valid now; too little room is BW_ERR_LIMIT and writes nothing. */
    bw_blend_tree *tree = compile(nodes, 3, 0, 1);
    leaves[0].clip = -99;
    CHECK_INT(bw_blend_tree_evaluate(tree, params, scratch, 64, leaves, 1, &n), BW_ERR_LIMIT);
    CHECK_INT(bw_blend_tree_evaluate(tree, params, scratch, 3, leaves, 4, &n), BW_ERR_LIMIT);
    CHECK_INT(bw_blend_tree_evaluate(NULL, params, scratch, 64, leaves, 4, &n), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_blend_tree_evaluate(tree, NULL, scratch, 64, leaves, 4, &n), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(n, -5);
    CHECK_INT(leaves[0].clip, -99);
    bw_blend_tree_destroy(tree);
    refuses(nodes, 3, 7, 1, BW_ERR_RANGE, "root 7 out of range [0, 3)");
}

/* A 0.71 s walk and a 1.16 s run, blended 50/50 by a 1D node at 2.75 m/s
 * (midway between thresholds 1.5 and 4). Cycle duration
 *   = (0.5·0.71 + 0.5·1.16) / 1 = 0.935 s.
 * After 0.4675 s the progress is 0.4675 / 0.935 = 1/2: walk at 0.355 s,
 * run at 0.58 s (half their own lengths). After 0.935 s both wrap to 0. */
static void walk_and_run_complete_their_cycles_together(void)
{
    const int children[2] = {1, 2};
    const float th[2] = {1.5f, 4.0f};
    bw_blend_node nodes[3];
    nodes[0] = bw_blend_1d_node(children, th, 2, 0, true);
    nodes[1] = bw_blend_clip_node(0, 0.71f);
    nodes[2] = bw_blend_clip_node(1, 1.16f);
    bw_blend_tree *tree = compile(nodes, 3, 0, 1);
    const float params[1] = {2.75f};
    float scratch[4];
    bw_blend_leaf leaves[2];
    int n = 0;
    CHECK_INT(bw_blend_tree_evaluate(tree, params, scratch, 4, leaves, 2, &n), BW_OK);
    CHECK_INT(n, 2);
    if (n != 2) return;
    CHECK_NEAR(leaves[0].weight, 0.5, TOL);
    CHECK_NEAR(leaves[1].weight, 0.5, TOL);
    float cycle = bw_blend_cycle_duration(leaves, 2);
    CHECK_NEAR(cycle, 0.935, 1e-6);

    float half = bw_blend_phase_advance(0.0f, 0.4675f, cycle);
    CHECK_NEAR(half, 0.5, 1e-6);
    CHECK_NEAR(bw_blend_leaf_time(&leaves[0], half), 0.355, 1e-5);
    CHECK_NEAR(bw_blend_leaf_time(&leaves[1], half), 0.58, 1e-5);

    /* One whole cycle in 10 frames of 0.0935 s: back at phase 0 (within
     * float rounding on either side of the wrap). */
    float p = 0.0f;
    for (int i = 0; i < 10; i++) p = bw_blend_phase_advance(p, 0.0935f, cycle);
    double off = fmin(p, 1.0 - p);
    CHECK_NEAR(off, 0.0, 1e-5);
    for (int k = 0; k < 2; k++) {
        double t = bw_blend_leaf_time(&leaves[k], p), len = leaves[k].length;
        CHECK_NEAR(fmin(t, len - t), 0.0, 1e-5);
    }
    /* The same in one step. */
    p = bw_blend_phase_advance(0.0f, 0.935f, cycle);
    CHECK_NEAR(fmin(p, 1.0 - p), 0.0, 1e-6);
    bw_blend_tree_destroy(tree);

    /* A faster run leaf (speed 2) counts with half its length:
     * (0.5·0.71 + 0.5·0.58) = 0.645 s. */
    nodes[2].speed = 2.0f;
    tree = compile(nodes, 3, 0, 1);
    CHECK_INT(bw_blend_tree_evaluate(tree, params, scratch, 4, leaves, 2, &n), BW_OK);
    CHECK_NEAR(bw_blend_cycle_duration(leaves, 2), 0.645, 1e-6);
    bw_blend_tree_destroy(tree);
}

/* ------------------------------------------------------------- compiler */

static void compile_errors_name_the_node_and_the_problem(void)
{
    const int kids[2] = {1, 2};
    const float th[2] = {0, 1};
    bw_blend_node nodes[3];
    two_leaf_nodes(nodes, 1.0f, -1.0f);
    refuses(nodes, 3, 0, 1, BW_ERR_INVALID_ARGUMENT, "blend tree: node 2: length -1 is negative");
    nodes[2].length = 1.0f;

    /* A blend node without children. */
    nodes[0].child_count = 0;
    refuses(nodes, 3, 0, 1, BW_ERR_EMPTY, "blend tree: node 0: children is empty");
    nodes[0].child_count = 2;

    /* A broken node the root never reaches is still reported. */
    nodes[0] = bw_blend_1d_node(kids, th, 1, 0, false); /* reaches node 1 only */
    nodes[2].length = INFINITY;
    refuses(nodes, 3, 0, 1, BW_ERR_NON_FINITE, "blend tree: node 2: length is infinite");
    nodes[2].length = 1.0f;

    /* Depth: a chain of 17 1D nodes over one leaf. */
    {
        bw_blend_node chain[18];
        int next[17];
        const float zero[1] = {0};
        for (int k = 0; k < 17; k++) {
            next[k] = k + 1;
            chain[k] = bw_blend_1d_node(&next[k], zero, 1, 0, false);
        }
        chain[17] = bw_blend_clip_node(0, 1.0f);
        refuses(chain, 18, 0, 1, BW_ERR_LIMIT, "blend tree: node 16: nested deeper than 16 levels");
        /* 16 levels (root at node 2) compile. */
        bw_blend_tree *t = compile(chain, 18, 2, 1);
        CHECK_INT(bw_blend_tree_max_leaves(t), 1);
        bw_blend_tree_destroy(t);
    }

    /* Labels replace "node i" in messages; names are checked and copied. */
    const char *labels[3] = {"root", "root.children[1]", NULL};
    const char *names[1] = {"speed"};
    bw_blend_tree_desc desc = {0};
    desc.nodes = nodes;
    desc.node_count = 3;
    desc.param_count = 1;
    desc.node_labels = labels;
    desc.param_names = names;
    bw_blend_tree *t = NULL;
    bw_error err = {0};
    nodes[0] = bw_blend_1d_node(kids, th, 2, 0, false);
    nodes[1].speed = NAN;
    CHECK_INT(bw_blend_tree_compile(&desc, &t, &err), BW_ERR_NON_FINITE);
    CHECK_CONTAINS(err.message, "blend tree: root.children[1]: speed is NaN");
    nodes[1].speed = 0.0f;
    nodes[2].length = -2.0f; /* a NULL label falls back to the index */
    CHECK_INT(bw_blend_tree_compile(&desc, &t, &err), BW_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "blend tree: node 2: length -2 is negative");
    nodes[2].length = 1.0f;
    const char *twice[2] = {"x", "x"};
    desc.param_count = 2;
    desc.param_names = twice;
    CHECK_INT(bw_blend_tree_compile(&desc, &t, &err), BW_ERR_DUPLICATE);
    CHECK_CONTAINS(err.message, "parameters 0 and 1 are both named 'x'");
    desc.param_count = 1;
    desc.param_names = names;
    CHECK_INT(bw_blend_tree_compile(&desc, &t, &err), BW_OK);
    CHECK_INT(bw_blend_tree_find_param(t, "speed"), 0);
    CHECK_INT(bw_blend_tree_find_param(t, "sped"), -1);
    CHECK_STR(bw_blend_tree_param_name(t, 0), "speed");
    CHECK(bw_blend_tree_param_name(t, 1) == NULL);
    bw_blend_tree_destroy(t);

    /* NULL arguments. */
    CHECK_INT(bw_blend_tree_compile(NULL, &t, &err), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_blend_tree_compile(&desc, NULL, &err), BW_ERR_INVALID_ARGUMENT);
    desc.node_count = 0;
    CHECK_INT(bw_blend_tree_compile(&desc, &t, NULL), BW_ERR_INVALID_ARGUMENT);
    bw_blend_tree_destroy(NULL);
    bw_blend_tree_state_destroy(NULL);
}

/* Member limits (blendspace.h). A ring of `count` leaves on the unit
 * circle, child k at angle 2πk/count, under a `kind` root (node 0; leaf
 * k is node k + 1, clip k). */
enum { RING_MAX = BW_BLEND_MAX_MEMBERS + 1 };
typedef struct ring {
    bw_blend_node nodes[RING_MAX + 1];
    int children[RING_MAX];
    float points[2 * RING_MAX];
} ring;

static void ring_nodes(ring *r, bw_blend_node_kind kind, int count)
{
    for (int k = 0; k < count; k++) {
        double a = 2.0 * M_PI * k / count;
        r->points[2 * k] = (float)cos(a);
        r->points[2 * k + 1] = (float)sin(a);
        r->children[k] = k + 1;
        r->nodes[k + 1] = bw_blend_clip_node(k, 1.0f);
    }
    r->nodes[0] = bw_blend_2d_node(kind, r->children, r->points, count, 0, 1);
}

/* A 2D or directional node takes at most BW_BLEND_MAX_MEMBERS (64)
 * children: its weights cost O(n²) per evaluation (a hostile 4000 took a
 * second per update); 65 are refused (the old compiler took any count).
 * At 64 the tree compiles, and between the ring's samples 0 and 1 the
 * weights are 1/2 each, all others 0 (δ = 2π/64):
 * - directional at angle δ/2, radius 1: for i = 0, j = 1 the band vectors
 *   are v_ij = (2δ, 0), v_ip = (2·δ/2, 0): h = 1 − 2δ²/(4δ²) = 1/2; a
 *   sample m steps further counter-clockwise gives 1 − 1/(2m) >= 3/4, one
 *   clockwise 1 + 1/(2m), the opposite one 1 − (δ/2)/π = 63/64; so
 *   w_0 = 1/2, and w_1 = 1/2 by symmetry. Sample 2 against sample 1 (its
 *   clockwise neighbour, p 1.5δ beyond it): h = 1 − 2δ·2(1.5δ)/(4δ²) =
 *   −1/2, so w_2 = 0, and likewise every other sample is cut off by a
 *   neighbour nearer p.
 * - cartesian at the chord's midpoint (p_0 + p_1)/2: for i = 0, j = 1,
 *   h = 1 − 1/2; toward p_2 (inscribed angle δ/2 between the chords, |p_0
 *   p_2| = 2 sin δ, |p_0 p_1| = 2 sin(δ/2)): h = 1 − 1/4; clockwise
 *   neighbours give h > 1: w_0 = w_1 = 1/2; p lies beyond p_1 seen from
 *   p_2, so w_2 = 0 (and so on around the ring).
 * Either way the two leaves sum to 1. */
static void two_d_nodes_take_at_most_max_members_children(void)
{
    static ring r; /* some KB: off the stack */
    const bw_blend_node_kind kinds[2] = {BW_BLEND_NODE_DIRECTIONAL, BW_BLEND_NODE_2D};
    CHECK_INT(BW_BLEND_MAX_MEMBERS, 64);
    for (int m = 0; m < 2; m++) {
        ring_nodes(&r, kinds[m], BW_BLEND_MAX_MEMBERS + 1);
        bw_blend_tree_desc desc = {.nodes = r.nodes, .node_count = BW_BLEND_MAX_MEMBERS + 2, .param_count = 2};
        bw_blend_tree *sentinel = (bw_blend_tree *)&desc, *t = sentinel;
        bw_error err = {0};
        CHECK_INT(bw_blend_tree_compile(&desc, &t, &err), BW_ERR_LIMIT);
        CHECK(t == sentinel);
        CHECK_STR(err.message, "blend tree: node 0: 65 children, more than the 64 a 2D node takes "
                               "(BW_BLEND_MAX_MEMBERS: its weights cost O(n^2) per evaluation)");

        ring_nodes(&r, kinds[m], BW_BLEND_MAX_MEMBERS);
        bw_blend_tree *tree = compile(r.nodes, BW_BLEND_MAX_MEMBERS + 1, 0, 2);
        if (!tree) continue;
        const double half = M_PI / BW_BLEND_MAX_MEMBERS; /* δ/2 */
        float params[2] = {(float)cos(half), (float)sin(half)};
        if (kinds[m] == BW_BLEND_NODE_2D) {
            params[0] = 0.5f * (r.points[0] + r.points[2]);
            params[1] = 0.5f * (r.points[1] + r.points[3]);
        }
        float scratch[2 * BW_BLEND_MAX_MEMBERS];
        bw_blend_leaf leaves[BW_BLEND_MAX_MEMBERS];
        int n = 0;
        CHECK_INT(bw_blend_tree_scratch_count(tree), 2 * BW_BLEND_MAX_MEMBERS);
        CHECK_INT(
            bw_blend_tree_evaluate(tree, params, scratch, 2 * BW_BLEND_MAX_MEMBERS, leaves, BW_BLEND_MAX_MEMBERS, &n),
            BW_OK);
        CHECK_INT(n, 2);
        double sum = 0.0;
        for (int k = 0; k < n; k++) sum += leaves[k].weight;
        CHECK_NEAR(sum, 1.0, TOL);
        if (n == 2) {
            CHECK_INT(leaves[0].clip, 0);
            CHECK_INT(leaves[1].clip, 1);
            CHECK_NEAR(leaves[0].weight, 0.5, TOL);
            CHECK_NEAR(leaves[1].weight, 0.5, TOL);
        }
        bw_blend_tree_destroy(tree);
    }
}

/* Any other blend node takes at most BW_BLEND_MAX_CHILDREN (4096): 1D and
 * grid weights cost O(n), so this only bounds a node's scratch (the old
 * compiler took any count). 4096 thresholds 0..4095 compile, and x = 10.25
 * lies a quarter of the way from 10 to 11: leaves 10 (3/4) and 11 (1/4). */
static void other_nodes_take_at_most_max_children(void)
{
    enum { N = BW_BLEND_MAX_CHILDREN + 1 };
    static bw_blend_node nodes[N + 1];
    static int children[N];
    static float th[N];
    CHECK_INT(BW_BLEND_MAX_CHILDREN, 4096);
    for (int k = 0; k < N; k++) {
        children[k] = k + 1;
        th[k] = (float)k;
        nodes[k + 1] = bw_blend_clip_node(k, 1.0f);
    }
    nodes[0] = bw_blend_1d_node(children, th, N, 0, false);
    bw_blend_tree_desc desc = {.nodes = nodes, .node_count = N + 1, .param_count = 1};
    bw_blend_tree *t = NULL;
    bw_error err = {0};
    CHECK_INT(bw_blend_tree_compile(&desc, &t, &err), BW_ERR_LIMIT);
    CHECK(t == NULL);
    CHECK_STR(err.message, "blend tree: node 0: 4097 children, more than the 4096 a blend node takes "
                           "(BW_BLEND_MAX_CHILDREN)");
    /* A grid of 4097 cells (17 × 241) is refused alike. */
    nodes[0] = bw_blend_grid_node(children, th, 17, 241, 0, 0);
    CHECK_INT(bw_blend_tree_compile(&desc, &t, &err), BW_ERR_LIMIT);
    CHECK_STR(err.message, "blend tree: node 0: 4097 children, more than the 4096 a blend node takes "
                           "(BW_BLEND_MAX_CHILDREN)");

    nodes[0] = bw_blend_1d_node(children, th, N - 1, 0, false);
    bw_blend_tree *tree = compile(nodes, N, 0, 1);
    if (!tree) return;
    static float scratch[2 * BW_BLEND_MAX_CHILDREN];
    static bw_blend_leaf leaves[BW_BLEND_MAX_CHILDREN];
    const float x[1] = {10.25f};
    int n = 0;
    CHECK_INT(bw_blend_tree_evaluate(tree, x, scratch, 2 * BW_BLEND_MAX_CHILDREN, leaves, BW_BLEND_MAX_CHILDREN, &n),
              BW_OK);
    CHECK_INT(n, 2);
    if (n == 2) {
        CHECK_INT(leaves[0].clip, 10);
        CHECK_NEAR(leaves[0].weight, 0.75, TOL);
        CHECK_INT(leaves[1].clip, 11);
        CHECK_NEAR(leaves[1].weight, 0.25, TOL);
    }
    bw_blend_tree_destroy(tree);
}

/* speed 0 is the default 1 (all-zero means defaults); a negative speed
 * still plays in reverse. Root 1D over a leaf of speed 0 and one of −2, at
 * u = 0.25: rates 1 (0 -> 1) and −2; the compiled copy shows speed 1. */
static void speed_zero_means_the_default_one(void)
{
    bw_blend_node nodes[3];
    two_leaf_nodes(nodes, 1.0f, 1.0f);
    CHECK_NEAR(nodes[0].speed, 0.0, 0); /* the constructors leave the default */
    CHECK_NEAR(nodes[1].speed, 0.0, 0);
    nodes[2].speed = -2.0f;
    bw_blend_tree *t = compile(nodes, 3, 0, 1);
    if (!t) return;
    CHECK_NEAR(bw_blend_tree_node(t, 0)->speed, 1.0, 0);
    CHECK_NEAR(bw_blend_tree_node(t, 1)->speed, 1.0, 0);
    CHECK_NEAR(bw_blend_tree_node(t, 2)->speed, -2.0, 0);
    CHECK(bw_blend_tree_node(t, 3) == NULL);
    const float params[1] = {0.25f};
    float scratch[4];
    bw_blend_leaf leaves[2];
    int n = 0;
    CHECK_INT(bw_blend_tree_evaluate(t, params, scratch, 4, leaves, 2, &n), BW_OK);
    CHECK_INT(n, 2);
    CHECK_NEAR(leaves[0].weight, 0.75, TOL);
    CHECK_NEAR(leaves[0].rate, 1.0, 0);
    CHECK_NEAR(leaves[1].weight, 0.25, TOL);
    CHECK_NEAR(leaves[1].rate, -2.0, 0);
    bw_blend_tree_destroy(t);
}

/* --------------------------------------------------------------- states */

/* The 2-leaf 1D tree of the phase tests: A (clip 0, 1 s) at threshold 0,
 * B (clip 1, 2 s) at threshold 1, param 0. */
static bw_blend_tree *two_leaf_tree(float speed_b)
{
    bw_blend_node nodes[3];
    two_leaf_nodes(nodes, 1.0f, 2.0f);
    nodes[2].speed = speed_b;
    return compile(nodes, 3, 0, 1);
}

/* At x = 0.5 the leaves weigh 1/2 each: cycle = 0.5·1 + 0.5·2 = 1.5 s.
 * dt 0.3 -> progress 0.3 / 1.5 = 0.2:
 *   A: from 0, delta 0.2·1 = 0.2, time 0.2;  B: from 0, delta 0.4, time 0.4.
 * Another 0.3: A from 0.2 to 0.4; B from 0.4 to 0.8.
 * Then 1.5 s (a whole cycle): progress 0.4 -> 0.4, A delta 1, B delta 2.
 * With B reversed (speed −1) the cycle is the same (|rate|); from 0:
 *   B from (1 − 0)·2 = 2, delta −0.4, time (1 − 0.2)·2 = 1.6. */
static void update_steps_the_phase_and_gives_from_and_delta(void)
{
    bw_blend_tree *t = two_leaf_tree(0.0f);
    bw_blend_tree_state *s = NULL;
    CHECK_INT(bw_blend_tree_state_create(t, NULL, &s), BW_OK);
    if (!s) return;
    int n = -1;
    bw_blend_tree_state_leaves(s, &n);
    CHECK_INT(n, 0); /* nothing before the first update */
    CHECK_INT(bw_blend_tree_state_set_param(s, 0, 0.5f), BW_OK);
    CHECK_INT(bw_blend_tree_state_update(s, 0.3f), BW_OK);
    const bw_blend_step_leaf *l = bw_blend_tree_state_leaves(s, &n);
    CHECK_INT(n, 2);
    CHECK_NEAR(bw_blend_tree_state_cycle(s), 1.5, 1e-6);
    CHECK_NEAR(bw_blend_tree_state_phase(s), 0.2, 1e-6);
    CHECK_INT(l[0].leaf.clip, 0);
    CHECK_NEAR(l[0].leaf.weight, 0.5, 1e-6);
    CHECK_NEAR(l[0].from, 0.0, 1e-6);
    CHECK_NEAR(l[0].delta, 0.2, 1e-6);
    CHECK_NEAR(l[0].time, 0.2, 1e-6);
    CHECK_INT(l[1].leaf.clip, 1);
    CHECK_NEAR(l[1].from, 0.0, 1e-6);
    CHECK_NEAR(l[1].delta, 0.4, 1e-6);
    CHECK_NEAR(l[1].time, 0.4, 1e-6);

    CHECK_INT(bw_blend_tree_state_update(s, 0.3f), BW_OK);
    l = bw_blend_tree_state_leaves(s, &n);
    CHECK_NEAR(bw_blend_tree_state_phase(s), 0.4, 1e-6);
    CHECK_NEAR(l[0].from, 0.2, 1e-6);
    CHECK_NEAR(l[0].time, 0.4, 1e-6);
    CHECK_NEAR(l[1].from, 0.4, 1e-6);
    CHECK_NEAR(l[1].delta, 0.4, 1e-6);
    CHECK_NEAR(l[1].time, 0.8, 1e-6);

    CHECK_INT(bw_blend_tree_state_update(s, 1.5f), BW_OK); /* whole cycles count in delta */
    l = bw_blend_tree_state_leaves(s, &n);
    CHECK_NEAR(bw_blend_tree_state_phase(s), 0.4, 1e-6);
    CHECK_NEAR(l[0].delta, 1.0, 1e-6);
    CHECK_NEAR(l[1].delta, 2.0, 1e-6);
    CHECK_NEAR(l[1].from, 0.8, 1e-6);

    /* update(0) re-evaluates in place; a NaN dt does not move. */
    CHECK_INT(bw_blend_tree_state_update(s, 0.0f), BW_OK);
    l = bw_blend_tree_state_leaves(s, &n);
    CHECK_NEAR(l[1].delta, 0.0, 0);
    CHECK_NEAR(l[1].time, 0.8, 1e-6);
    CHECK_INT(bw_blend_tree_state_update(s, NAN), BW_OK);
    CHECK_NEAR(bw_blend_tree_state_phase(s), 0.4, 1e-6);

    /* Parameters: non-finite stores 0 (A alone: 1 leaf, cycle 1 s), out of
     * range is refused; set_phase wraps. */
    CHECK_INT(bw_blend_tree_state_set_param(s, 0, NAN), BW_OK);
    CHECK_NEAR(bw_blend_tree_state_param(s, 0), 0.0, 0);
    CHECK_INT(bw_blend_tree_state_set_param(s, 1, 1.0f), BW_ERR_RANGE);
    CHECK_INT(bw_blend_tree_state_set_param(NULL, 0, 1.0f), BW_ERR_INVALID_ARGUMENT);
    bw_blend_tree_state_set_phase(s, -0.25f);
    CHECK_NEAR(bw_blend_tree_state_phase(s), 0.75, 1e-6);
    bw_blend_tree_state_set_phase(s, NAN);
    CHECK_NEAR(bw_blend_tree_state_phase(s), 0.0, 0);
    CHECK_INT(bw_blend_tree_state_update(s, 0.5f), BW_OK);
    l = bw_blend_tree_state_leaves(s, &n);
    CHECK_INT(n, 1);
    CHECK_NEAR(bw_blend_tree_state_cycle(s), 1.0, 1e-6);
    CHECK_NEAR(l[0].time, 0.5, 1e-6);
    CHECK_INT(bw_blend_tree_state_update(NULL, 0.1f), BW_ERR_INVALID_ARGUMENT);
    bw_blend_tree_state_destroy(s);
    bw_blend_tree_destroy(t);

    /* B reversed. */
    t = two_leaf_tree(-1.0f);
    CHECK_INT(bw_blend_tree_state_create(t, NULL, &s), BW_OK);
    bw_blend_tree_state_set_param(s, 0, 0.5f);
    bw_blend_tree_state_update(s, 0.3f);
    l = bw_blend_tree_state_leaves(s, &n);
    CHECK_NEAR(bw_blend_tree_state_cycle(s), 1.5, 1e-6);
    CHECK_NEAR(l[1].leaf.rate, -1.0, 0);
    CHECK_NEAR(l[1].from, 2.0, 1e-6);
    CHECK_NEAR(l[1].delta, -0.4, 1e-6);
    CHECK_NEAR(l[1].time, 1.6, 1e-6);
    CHECK_NEAR(l[0].delta, 0.2, 1e-6);
    bw_blend_tree_state_destroy(s);
    bw_blend_tree_destroy(t);
}

/* A state speed multiplies every leaf's rate (SPEC §12.2). Same tree at
 * x = 0.5: rate 2 -> leaf rates 2, cycle (0.5·1 + 0.5·2) / 2 = 0.75 s; dt
 * 0.3 -> phase 0.4: A delta 0.4, B delta 0.8. Rate −1 from phase 0: cycle
 * 1.5 s, phase 0.2, every leaf reversed: A from (1 − 0)·1 = 1 by −0.2 to
 * (1 − 0.2)·1 = 0.8; B from 2 by −0.4 to 1.6. Rate 0: cycle 0, the phase
 * stays and nothing moves. */
static void a_state_speed_scales_every_leaf(void)
{
    bw_blend_tree *t = two_leaf_tree(0.0f);
    bw_blend_tree_state *s = NULL;
    CHECK_INT(bw_blend_tree_state_create(t, NULL, &s), BW_OK);
    if (!s) return;
    bw_blend_tree_state_set_param(s, 0, 0.5f);
    int n = 0;
    CHECK_INT(bw_blend_tree_state_update_scaled(s, 0.3f, 2.0f), BW_OK);
    const bw_blend_step_leaf *l = bw_blend_tree_state_leaves(s, &n);
    CHECK_NEAR(bw_blend_tree_state_cycle(s), 0.75, 1e-6);
    CHECK_NEAR(bw_blend_tree_state_phase(s), 0.4, 1e-6);
    CHECK_NEAR(l[0].leaf.rate, 2.0, 0);
    CHECK_NEAR(l[0].delta, 0.4, 1e-6);
    CHECK_NEAR(l[1].delta, 0.8, 1e-6);
    bw_blend_tree_state_set_phase(s, 0.0f);
    CHECK_INT(bw_blend_tree_state_update_scaled(s, 0.3f, -1.0f), BW_OK);
    l = bw_blend_tree_state_leaves(s, &n);
    CHECK_NEAR(bw_blend_tree_state_cycle(s), 1.5, 1e-6);
    CHECK_NEAR(bw_blend_tree_state_phase(s), 0.2, 1e-6);
    CHECK_NEAR(l[0].from, 1.0, 1e-6);
    CHECK_NEAR(l[0].delta, -0.2, 1e-6);
    CHECK_NEAR(l[0].time, 0.8, 1e-6);
    CHECK_NEAR(l[1].from, 2.0, 1e-6);
    CHECK_NEAR(l[1].delta, -0.4, 1e-6);
    CHECK_NEAR(l[1].time, 1.6, 1e-6);
    CHECK_INT(bw_blend_tree_state_update_scaled(s, 0.3f, 0.0f), BW_OK);
    l = bw_blend_tree_state_leaves(s, &n);
    CHECK_NEAR(bw_blend_tree_state_cycle(s), 0.0, 0);
    CHECK_NEAR(bw_blend_tree_state_phase(s), 0.2, 1e-6);
    CHECK_NEAR(l[1].delta, 0.0, 0);
    CHECK_INT(bw_blend_tree_state_update_scaled(s, 0.3f, NAN), BW_OK); /* counts as 0 */
    CHECK_NEAR(bw_blend_tree_state_phase(s), 0.2, 1e-6);
    bw_blend_tree_state_destroy(s);
    bw_blend_tree_destroy(t);
}

/* One compiled tree, two characters: the states keep their own parameters
 * and phases. State 1 at x = 0.5 steps 0.3 s (cycle 1.5, phase 0.2); state
 * 2 at x = 1 (B alone, cycle 2 s) steps 0.5 s (phase 0.25, B time 0.5).
 * Stepping state 2 again leaves state 1's leaves as they were. */
static void two_states_of_one_tree_are_independent(void)
{
    bw_blend_tree *t = two_leaf_tree(0.0f);
    bw_blend_tree_state *a = NULL, *b = NULL;
    CHECK_INT(bw_blend_tree_state_create(t, NULL, &a), BW_OK);
    /* the second in caller memory */
    static max_align_t memory[64];
    CHECK(bw_blend_tree_state_size(t) <= sizeof memory);
    CHECK_INT(bw_blend_tree_state_init(t, memory, 16, &b), BW_ERR_LIMIT);
    CHECK_INT(bw_blend_tree_state_init(t, (char *)memory + 1, sizeof memory - 1, &b), BW_ERR_INVALID_ARGUMENT);
    CHECK(b == NULL);
    CHECK_INT(bw_blend_tree_state_init(t, memory, sizeof memory, &b), BW_OK);
    if (!a || !b) return;
    CHECK(bw_blend_tree_state_tree(a) == t && bw_blend_tree_state_tree(b) == t);
    bw_blend_tree_state_set_param(a, 0, 0.5f);
    bw_blend_tree_state_set_param(b, 0, 1.0f);
    bw_blend_tree_state_update(a, 0.3f);
    bw_blend_tree_state_update(b, 0.5f);
    int na = 0, nb = 0;
    const bw_blend_step_leaf *la = bw_blend_tree_state_leaves(a, &na);
    const bw_blend_step_leaf *lb = bw_blend_tree_state_leaves(b, &nb);
    CHECK_INT(na, 2);
    CHECK_INT(nb, 1);
    CHECK_NEAR(bw_blend_tree_state_phase(a), 0.2, 1e-6);
    CHECK_NEAR(bw_blend_tree_state_phase(b), 0.25, 1e-6);
    CHECK_NEAR(bw_blend_tree_state_cycle(b), 2.0, 1e-6);
    CHECK_INT(lb[0].leaf.clip, 1);
    CHECK_NEAR(lb[0].time, 0.5, 1e-6);
    bw_blend_tree_state_update(b, 0.5f);
    CHECK_NEAR(bw_blend_tree_state_phase(b), 0.5, 1e-6);
    CHECK_NEAR(bw_blend_tree_state_phase(a), 0.2, 1e-6);
    CHECK_NEAR(la[1].time, 0.4, 1e-6);
    CHECK_NEAR(bw_blend_tree_state_param(a, 0), 0.5, 0);
    bw_blend_tree_state_destroy(b); /* caller memory: a no-op */
    bw_blend_tree_state_destroy(a);
    bw_blend_tree_destroy(t);
}

/* ------------------------------------------------------------ allocation */

static bw_blend_tree *compile_with(const bw_blend_node *nodes, int count, alloc_counter *c, bw_result *r)
{
    const char *names[1] = {"x"};
    bw_blend_tree_desc desc = {0};
    desc.nodes = nodes;
    desc.node_count = count;
    desc.param_count = 1;
    desc.param_names = names;
    desc.allocator = (bw_allocator){alloc_counter_fn, c};
    bw_blend_tree *t = NULL;
    *r = bw_blend_tree_compile(&desc, &t, NULL);
    return t;
}

static void tree_is_one_block_and_the_frame_path_allocates_nothing(void)
{
    bw_blend_node nodes[3];
    two_leaf_nodes(nodes, 1.0f, 2.0f);
    alloc_counter c = ALLOC_COUNTER(-1);
    bw_result r;
    bw_blend_tree *t = compile_with(nodes, 3, &c, &r);
    CHECK_INT(r, BW_OK);
    CHECK_INT(c.blocks, 1);
    CHECK_INT(c.live_blocks, 1);
    /* The description can go: the tree holds its own copy. */
    nodes[1].length = 99.0f;
    bw_allocator a = {alloc_counter_fn, &c};
    bw_blend_tree_state *s = NULL;
    CHECK_INT(bw_blend_tree_state_create(t, &a, &s), BW_OK);
    CHECK_INT(c.blocks, 2);
    const bw_binding *bindings[2] = {(const bw_binding *)&c, (const bw_binding *)&a}; /* never read */
    bw_clip_contribution out[2];
    bw_root_play plays[2];
    long before = c.allocations;
    int n = 0;
    for (int frame = 0; frame < 100; frame++) {
        bw_blend_tree_state_set_param(s, 0, (float)frame / 100.0f);
        bw_blend_tree_state_update(s, 1.0f / 60.0f);
        CHECK_INT(bw_blend_tree_state_emit(s, bindings, 2, 1.0f, 0, out, 2, &n), BW_OK);
        CHECK_INT(bw_blend_tree_state_emit_root_plays(s, bindings, 2, 1.0f, 0, plays, 2, &n), BW_OK);
    }
    CHECK_INT(c.allocations, before);
    /* frame 99: x = 0.99 -> A 0.01, B 0.99; A's length is still 1 s. */
    const bw_blend_step_leaf *l = bw_blend_tree_state_leaves(s, &n);
    CHECK_INT(n, 2);
    CHECK_NEAR(l[0].leaf.length, 1.0, 0);
    bw_blend_tree_state_destroy(s);
    bw_blend_tree_destroy(t);
    CHECK_INT(c.live_blocks, 0);
    CHECK(c.live_bytes == 0);
}

/* Every allocation refused in turn: compile and state creation fail with
 * BW_ERR_OUT_OF_MEMORY, leave their outputs alone and nothing behind; the
 * budget that suffices succeeds. */
static void allocation_failure_leaves_nothing_behind(void)
{
    bw_blend_node nodes[3];
    two_leaf_nodes(nodes, 1.0f, 2.0f);
    int failures = 0, successes = 0;
    for (long budget = 0; budget < 4; budget++) {
        alloc_counter c = ALLOC_COUNTER(budget);
        bw_result r;
        bw_blend_tree *t = compile_with(nodes, 3, &c, &r);
        if (r != BW_OK) {
            CHECK_INT(r, BW_ERR_OUT_OF_MEMORY);
            CHECK(t == NULL);
            CHECK_INT(c.live_blocks, 0);
            failures++;
            continue;
        }
        bw_allocator a = {alloc_counter_fn, &c};
        bw_blend_tree_state *s = NULL;
        r = bw_blend_tree_state_create(t, &a, &s);
        if (r != BW_OK) {
            CHECK_INT(r, BW_ERR_OUT_OF_MEMORY);
            CHECK(s == NULL);
            CHECK_INT(c.live_blocks, 1); /* only the tree */
            failures++;
        } else {
            successes++;
        }
        bw_blend_tree_state_destroy(s);
        bw_blend_tree_destroy(t);
        CHECK_INT(c.live_blocks, 0);
    }
    CHECK_INT(failures, 2); /* budget 0: the tree; budget 1: the state */
    CHECK_INT(successes, 2);
}

/* ---------------------------------------------------- mixer, root motion */

/* Rig: root, arm (child of root). Clip A (1 s): root z 0 -> 1, arm rotates
 * 0 -> 90° about X. Clip B (2 s): root z 0 -> 4, arm rotates 0 -> 90°
 * about Y. */
typedef struct scene {
    bw_rig *rig;
    bw_clip *clips[2];
    bw_binding *bindings[2];
} scene;

static scene make_scene(void)
{
    static const char *const names[2] = {"root", "arm"};
    static const int parents[2] = {-1, 0};
    static const float ta[2] = {0, 1}, tb[2] = {0, 2};
    static const float za[6] = {0, 0, 0, 0, 0, 1}, zb[6] = {0, 0, 0, 0, 0, 4};
    static const float s2 = 0.70710678f;
    static const float rx[8] = {0, 0, 0, 1, s2, 0, 0, s2}, ry[8] = {0, 0, 0, 1, 0, s2, 0, s2};
    scene sc;
    sc.rig = fixture_rig(names, parents, 2);
    bw_track_desc a[2] = {{"", "root", BW_CHANNEL_TRANSLATION, BW_INTERP_EASED, 2, ta, za, NULL, NULL},
                          {"root", "arm", BW_CHANNEL_ROTATION, BW_INTERP_EASED, 2, ta, rx, NULL, NULL}};
    bw_track_desc b[2] = {{"", "root", BW_CHANNEL_TRANSLATION, BW_INTERP_EASED, 2, tb, zb, NULL, NULL},
                          {"root", "arm", BW_CHANNEL_ROTATION, BW_INTERP_EASED, 2, tb, ry, NULL, NULL}};
    bw_clip_desc da = {0}, db = {0};
    da.tracks = a;
    da.track_count = 2;
    da.loop = true;
    db.tracks = b;
    db.track_count = 2;
    db.loop = true;
    sc.clips[0] = fixture_clip_desc(&da);
    sc.clips[1] = fixture_clip_desc(&db);
    for (int i = 0; i < 2; i++) sc.bindings[i] = fixture_binding(sc.clips[i], sc.rig);
    return sc;
}

static void free_scene(scene *sc)
{
    for (int i = 0; i < 2; i++) {
        bw_binding_destroy(sc->bindings[i]);
        bw_clip_destroy(sc->clips[i]);
    }
    bw_rig_destroy(sc->rig);
}

/* The emitted contributions mixed in one pass equal sampling each clip at
 * its leaf time and mixing the poses (an independent path through
 * bw_sample_clip and bw_mix_run). x = 0.25: A 3/4, B 1/4; cycle 0.75·1 +
 * 0.25·2 = 1.25 s; dt 0.5 -> phase 0.4: A at 0.4 s, B at 0.8 s. Layer
 * weight 0.8: contribution weights 0.6 and 0.2, the root's z mean =
 * (0.6·0.4 + 0.2·1.6) / 0.8 = 0.7, overlaid on the rest (z 0) by min(0.8,
 * 1): 0.56. */
static void contributions_mix_like_sampled_leaves(void)
{
    scene sc = make_scene();
    bw_blend_tree *t = two_leaf_tree(0.0f);
    bw_blend_tree_state *s = NULL;
    CHECK_INT(bw_blend_tree_state_create(t, NULL, &s), BW_OK);
    bw_mixer *mixer = make_mixer(sc.rig, 4);
    if (!s || !mixer) return;
    bw_blend_tree_state_set_param(s, 0, 0.25f);
    bw_blend_tree_state_update(s, 0.5f);
    CHECK_NEAR(bw_blend_tree_state_phase(s), 0.4, 1e-6);

    const bw_binding *table[2] = {sc.bindings[0], sc.bindings[1]};
    bw_clip_contribution cc[4];
    int n = 0;
    CHECK_INT(bw_blend_tree_state_emit(s, table, 2, 0.8f, 3, cc, 4, &n), BW_OK);
    CHECK_INT(n, 2);
    CHECK(cc[0].binding == sc.bindings[0] && cc[1].binding == sc.bindings[1]);
    CHECK_NEAR(cc[0].time, 0.4, 1e-6);
    CHECK_NEAR(cc[1].time, 0.8, 1e-6);
    CHECK_NEAR(cc[0].weight, 0.6, 1e-6);
    CHECK_NEAR(cc[1].weight, 0.2, 1e-6);
    CHECK_INT(cc[0].priority, 3);

    bw_pose fused = {0}, ref = {0}, sampled[2] = {{0}, {0}};
    bw_pose_init(&fused, sc.rig, NULL);
    bw_pose_init(&ref, sc.rig, NULL);
    bw_pose_set_rest(&fused, sc.rig);
    bw_pose_set_rest(&ref, sc.rig);
    CHECK_INT(bw_mix_run_clips(mixer, sc.rig, NULL, cc, n, &fused), BW_OK);
    bw_contribution plain[2];
    int leaf_count = 0;
    const bw_blend_step_leaf *l = bw_blend_tree_state_leaves(s, &leaf_count);
    for (int i = 0; i < 2; i++) {
        bw_pose_init(&sampled[i], sc.rig, NULL);
        bw_sample_clip(sc.bindings[l[i].leaf.clip], sc.rig, l[i].time, &sampled[i]);
        plain[i] = (bw_contribution){&sampled[i], 0.8f * l[i].leaf.weight, 3};
    }
    CHECK_INT(bw_mix_run(mixer, NULL, plain, 2, &ref), BW_OK);
    double worst = 0;
    for (int j = 0; j < 2; j++) {
        for (int k = 0; k < 3; k++) worst = fmax(worst, fabs(fused.joints[j].t[k] - ref.joints[j].t[k]));
        for (int k = 0; k < 4; k++) worst = fmax(worst, fabs(fused.joints[j].r[k] - ref.joints[j].r[k]));
        worst = fmax(worst, fabs(fused.coverage[j] - ref.coverage[j]));
    }
    CHECK_NEAR(worst, 0.0, 1e-5);
    CHECK_NEAR(fused.joints[0].t[2], 0.56, 1e-5);

    /* Errors write nothing: a clip id outside the table, a NULL binding,
     * too small an output. Layer weight 0 emits nothing. */
    cc[0].time = -7.0f;
    CHECK_INT(bw_blend_tree_state_emit(s, table, 1, 1.0f, 0, cc, 4, &n), BW_ERR_RANGE);
    const bw_binding *holes[2] = {sc.bindings[0], NULL};
    CHECK_INT(bw_blend_tree_state_emit(s, holes, 2, 1.0f, 0, cc, 4, &n), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_blend_tree_state_emit(s, table, 2, 1.0f, 0, cc, 1, &n), BW_ERR_LIMIT);
    CHECK_NEAR(cc[0].time, -7.0, 0);
    CHECK_INT(n, 2);
    CHECK_INT(bw_blend_tree_state_emit(s, table, 2, 0.0f, 0, cc, 0, &n), BW_OK);
    CHECK_INT(n, 0);

    for (int i = 0; i < 2; i++) bw_pose_deinit(&sampled[i]);
    bw_pose_deinit(&fused);
    bw_pose_deinit(&ref);
    bw_mixer_destroy(mixer);
    bw_blend_tree_state_destroy(s);
    bw_blend_tree_destroy(t);
    free_scene(&sc);
}

/* Root plays from the tree drive root-motion extraction. x = 0.5, dt 0.3:
 * A from 0 by 0.2 s (root z 1 m/s: 0.2 m), B from 0 by 0.4 s (2 m/s:
 * 0.8 m); one rank of shares 1/2 + 1/2: travel (0.2 + 0.8) / 2 = 0.5 m.
 * 10 such steps are 3 s = 2 cycles: (0.5·1 + 0.5·4)·2 = 5 m, no jump back
 * at either loop. */
static void root_plays_drive_root_motion(void)
{
    scene sc = make_scene();
    bw_blend_tree *t = two_leaf_tree(0.0f);
    bw_blend_tree_state *s = NULL;
    CHECK_INT(bw_blend_tree_state_create(t, NULL, &s), BW_OK);
    if (!s) return;
    bw_root_motion_config cfg = {0};
    const bw_binding *table[2] = {sc.bindings[0], sc.bindings[1]};
    bw_root_play plays[2];
    bw_blend_tree_state_set_param(s, 0, 0.5f);
    double z = 0;
    int backwards = 0;
    for (int step = 0; step < 10; step++) {
        int n = 0;
        bw_blend_tree_state_update(s, 0.3f);
        CHECK_INT(bw_blend_tree_state_emit_root_plays(s, table, 2, 1.0f, 0, plays, 2, &n), BW_OK);
        CHECK_INT(n, 2);
        CHECK(plays[0].loop && plays[1].loop);
        bw_root_delta d;
        CHECK_INT(bw_root_motion_extract(sc.rig, &cfg, plays, n, &d), BW_OK);
        if (step == 0) {
            CHECK_NEAR(plays[1].from, 0.0, 1e-6);
            CHECK_NEAR(plays[1].delta, 0.4, 1e-6);
            CHECK_NEAR(d.t[2], 0.5, 1e-5);
            CHECK_INT(d.used, 2);
        }
        if (d.t[2] <= 0) backwards++;
        z += d.t[2];
    }
    CHECK_NEAR(z, 5.0, 1e-4);
    CHECK_INT(backwards, 0);
    bw_blend_tree_state_destroy(s);
    bw_blend_tree_destroy(t);
    free_scene(&sc);
}

int main(void)
{
    RUN(tree_multiplies_influence_and_speed_along_the_path);
    RUN(tree_applies_1d_rate_scaling_under_a_parent_speed);
    RUN(tree_rejects_bad_structure_and_leaves_outputs_alone);
    RUN(walk_and_run_complete_their_cycles_together);
    RUN(compile_errors_name_the_node_and_the_problem);
    RUN(two_d_nodes_take_at_most_max_members_children);
    RUN(other_nodes_take_at_most_max_children);
    RUN(speed_zero_means_the_default_one);
    RUN(update_steps_the_phase_and_gives_from_and_delta);
    RUN(a_state_speed_scales_every_leaf);
    RUN(two_states_of_one_tree_are_independent);
    RUN(tree_is_one_block_and_the_frame_path_allocates_nothing);
    RUN(allocation_failure_leaves_nothing_behind);
    RUN(contributions_mix_like_sampled_leaves);
    RUN(root_plays_drive_root_motion);
    return check_summary();
}
