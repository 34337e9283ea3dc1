/* graph_fixtures.h - what the graph tests (test_graph.c, test_carry_over.c)
 * share: building layers, compiling (a refusal prints every problem and
 * exits), cursors over a test's rig and bindings, status reads, poses and
 * the teardown of a test's clips. Include after check.h. */
#ifndef BW_TEST_GRAPH_FIXTURES_H
#define BW_TEST_GRAPH_FIXTURES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendwerk/blendwerk.h"
#include "check.h"

static inline bw_graph_layer_desc graph_fixture_layer(const char *name, const char *entry,
                                                      const bw_graph_state_desc *states, int ns,
                                                      const bw_graph_transition_desc *trs, int nt)
{
    bw_graph_layer_desc l = {0};
    l.name = name;
    l.entry = entry;
    l.states = states;
    l.state_count = ns;
    l.transitions = trs;
    l.transition_count = nt;
    return l;
}

static inline bw_graph *graph_fixture_compile(const bw_graph_desc *d)
{
    bw_error errs[8];
    bw_graph_errors list = {errs, 8, 0};
    bw_graph *g = NULL;
    if (bw_graph_compile(d, &g, &list) != BW_OK) {
        for (int i = 0; i < list.count && i < 8; i++) fprintf(stderr, "  %s: %s\n", errs[i].where, errs[i].message);
        fprintf(stderr, "compile refused\n");
        exit(1);
    }
    return g;
}

/* A cursor of g on `rig` with `count` bindings (allocator a, or NULL). */
static inline bw_graph_cursor *graph_fixture_cursor(const bw_graph *g, const bw_rig *rig, bw_binding *const *bindings,
                                                    int count, const bw_allocator *a)
{
    bw_graph_cursor_desc cd = {0};
    cd.rig = rig;
    cd.bindings = (const bw_binding *const *)bindings;
    cd.binding_count = count;
    if (a) cd.allocator = *a;
    bw_graph_cursor *c = NULL;
    bw_error errs[4];
    bw_graph_errors list = {errs, 4, 0};
    if (bw_graph_cursor_create(g, &cd, &c, &list) != BW_OK) {
        fprintf(stderr, "cursor refused: %s: %s\n", errs[0].where, errs[0].message);
        exit(1);
    }
    return c;
}

/* A layer's status; a failing read is a failed check (fields all ones). */
static inline bw_graph_layer_status graph_fixture_status(const bw_graph_cursor *c, int layer)
{
    bw_graph_layer_status s;
    memset(&s, 0xff, sizeof s);
    CHECK_INT(bw_graph_cursor_layer_status(c, layer, &s), BW_OK);
    return s;
}

static inline bw_pose graph_fixture_pose(const bw_rig *rig)
{
    bw_pose p;
    if (bw_pose_init(&p, rig, NULL) != BW_OK) exit(1);
    return p;
}

/* Destroy `count` clips and their bindings, then the rig. */
static inline void graph_fixture_free(bw_clip **clips, bw_binding **bindings, int count, bw_rig *rig)
{
    for (int i = 0; i < count; i++) {
        bw_binding_destroy(bindings[i]);
        bw_clip_destroy(clips[i]);
    }
    bw_rig_destroy(rig);
}

#endif
