/* clip_grid.c - building the uniform-grid copy of a clip and its per-binding
 * offsets (see clip_internal.h). Runs once at clip / binding creation. */
#include "clip_internal.h"
#include "common.h"

static bool is_joint_channel(bw_channel c) { return c <= BW_CHANNEL_MASK_WEIGHT; }

/* Same grid: key count, start and spacing within a few float ulps of the
 * times involved (the tolerance detect_uniform uses). */
static bool same_grid(const bw_track_data *a, const bw_track_data *b)
{
    if (a->key_count != b->key_count) return false;
    float end = fabsf(a->times[a->key_count - 1]) + fabsf(a->times[0]);
    float tol = 1e-6f * (end > 1.0f ? end : 1.0f);
    return fabsf(a->times[0] - b->times[0]) <= tol && fabsf(a->spacing - b->spacing) <= tol;
}

bw_result bw_clip_grid_build(bw_clip *clip)
{
    clip->grid = NULL;
    const bw_track_data *ref = NULL;
    int row_width = 0;
    for (int i = 0; i < clip->track_count; i++) {
        const bw_track_data *t = &clip->tracks[i];
        if (!is_joint_channel(t->channel)) continue;
        if (t->key_count == 1) { /* a constant: copied into every row */
            row_width += t->width;
            continue;
        }
        if (t->interp != BW_INTERP_EASED || t->styles || !t->uniform || !(t->spacing > 0.0f)) return BW_OK;
        if (!ref) ref = t;
        else if (!same_grid(ref, t)) return BW_OK;
        row_width += t->width;
    }
    if (!ref || row_width == 0) return BW_OK;
    const size_t rows = (size_t)ref->key_count;
    if (rows > SIZE_MAX / sizeof(float) / (size_t)row_width / 2) return BW_OK;

    size_t off_offsets = (sizeof(bw_clip_grid) + 15) & ~(size_t)15;
    size_t off_rows = off_offsets + ((sizeof(int) * (size_t)clip->track_count + 15) & ~(size_t)15);
    size_t total = off_rows + sizeof(float) * rows * (size_t)row_width;
    unsigned char *block = bw_alloc(&clip->allocator, total);
    if (!block) return BW_ERR_OUT_OF_MEMORY;
    bw_clip_grid *g = (bw_clip_grid *)block;
    g->key_count = (int)rows;
    g->start = ref->times[0];
    g->spacing = ref->spacing;
    g->inv_spacing = 1.0f / ref->spacing;
    g->times = ref->times;
    g->row_width = row_width;
    g->track_offset = (int *)(block + off_offsets);
    g->rows = (float *)(block + off_rows);
    g->alloc_size = total;
    int offset = 0;
    for (int i = 0; i < clip->track_count; i++) {
        const bw_track_data *t = &clip->tracks[i];
        if (!is_joint_channel(t->channel)) {
            g->track_offset[i] = -1;
            continue;
        }
        g->track_offset[i] = offset;
        for (size_t k = 0; k < rows; k++) {
            const float *v = t->values + (t->key_count == 1 ? 0 : k * (size_t)t->stride);
            memcpy(g->rows + k * (size_t)row_width + (size_t)offset, v, sizeof(float) * (size_t)t->width);
        }
        offset += t->width;
    }
    clip->grid = g;
    return BW_OK;
}

void bw_clip_grid_free(bw_clip *clip)
{
    if (clip && clip->grid) bw_free(&clip->allocator, clip->grid, clip->grid->alloc_size);
    if (clip) clip->grid = NULL;
}

bw_result bw_binding_grid_build(bw_binding *b)
{
    b->grid = NULL;
    const bw_clip_grid *cg = b->clip ? b->clip->grid : NULL;
    if (!cg) return BW_OK;
    size_t off_joints = (sizeof(bw_grid_binding) + 15) & ~(size_t)15;
    size_t total = off_joints + sizeof(bw_grid_joint) * (size_t)b->driven_joint_count;
    unsigned char *block = bw_alloc(&b->allocator, total);
    if (!block) return BW_ERR_OUT_OF_MEMORY;
    bw_grid_binding *g = (bw_grid_binding *)block;
    g->joint_count = b->driven_joint_count;
    g->joints = (bw_grid_joint *)(block + off_joints);
    g->alloc_size = total;
    for (int d = 0; d < b->driven_joint_count; d++) {
        const bw_joint_binding *jb = &b->driven_joints[d];
        g->joints[d].joint = jb->joint;
        for (int s = 0; s < BW_SLOT_COUNT; s++)
            g->joints[d].offset[s] = jb->track[s] >= 0 ? cg->track_offset[jb->track[s]] : -1;
    }
    b->grid = g;
    return BW_OK;
}

void bw_binding_grid_free(bw_binding *b)
{
    if (b && b->grid) bw_free(&b->allocator, b->grid, b->grid->alloc_size);
    if (b) b->grid = NULL;
}
