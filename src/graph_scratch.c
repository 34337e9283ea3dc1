/* graph_scratch.c - layer poses shared by the graph cursors one thread
 * evaluates in turn (graph.h: bw_graph_scratch). One block: the struct,
 * the pose and view records, then each pose on cache lines of its own. */

#include "common.h"
#include "graph_internal.h"
#include "pose_internal.h"

#define SCRATCH_LINE 64

static void carve_scratch(bw_carver *k, bw_graph_scratch *s)
{
    size_t n = (size_t)s->layer_capacity;
    s->poses = (bw_pose *)bw_carve(k, n * sizeof *s->poses, BW_MAX_ALIGN);
    s->views = (bw_pose *)bw_carve(k, n * sizeof *s->views, BW_MAX_ALIGN);
    for (size_t l = 0; l < n; l++) {
        void *at = bw_carve(k, bw_pose_block_bytes(s->joint_capacity, s->curve_capacity), SCRATCH_LINE);
        k->used = bw_align_up(k->used, SCRATCH_LINE);
        if (at) bw_pose_init_in(&s->poses[l], s->joint_capacity, s->curve_capacity, at); /* borrowed: never deinit */
    }
}

bw_result bw_graph_scratch_create(const bw_graph_scratch_desc *desc, bw_graph_scratch **out)
{
    if (!desc || !out || desc->joint_capacity < 0 || desc->curve_capacity < 0 || desc->layer_capacity < 0 ||
        desc->joint_capacity > BW_RIG_MAX_JOINTS || desc->curve_capacity > BW_RIG_MAX_CURVES ||
        desc->layer_capacity > 1024)
        return BW_ERR_INVALID_ARGUMENT;
    bw_graph_scratch shape = {.alloc = desc->allocator,
                              .joint_capacity = desc->joint_capacity,
                              .curve_capacity = desc->curve_capacity,
                              .layer_capacity = desc->layer_capacity};
    bw_carver k = {NULL, 0};
    bw_carve(&k, sizeof shape, SCRATCH_LINE);
    carve_scratch(&k, &shape);
    size_t size = k.used + SCRATCH_LINE - 1; /* room to start on a line */
    char *block = (char *)bw_alloc_zeroed(&shape.alloc, size);
    if (!block) return BW_ERR_OUT_OF_MEMORY;
    k = (bw_carver){bw_align_ptr(block, SCRATCH_LINE), 0};
    bw_graph_scratch *s = (bw_graph_scratch *)bw_carve(&k, sizeof *s, SCRATCH_LINE);
    *s = shape;
    s->block = block;
    s->block_size = size;
    carve_scratch(&k, s);
    *out = s;
    return BW_OK;
}

void bw_graph_scratch_destroy(bw_graph_scratch *s)
{
    if (!s) return;
    bw_allocator copy = s->alloc; /* s lives in the block it frees */
    bw_free(&copy, s->block, s->block_size);
}

bool bw_graph_scratch_fits(const bw_graph_scratch *s, const bw_graph *graph, const bw_rig *rig)
{
    return s && graph && rig && bw_graph_layer_count(graph) <= s->layer_capacity &&
           bw_rig_joint_count(rig) <= s->joint_capacity && bw_rig_curve_count(rig) <= s->curve_capacity;
}
