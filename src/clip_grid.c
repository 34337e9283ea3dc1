/* clip_grid.c - building the structure-of-arrays grid copy of a clip and
 * its per-binding lane map (layout in clip_internal.h). Runs once at clip /
 * binding creation, never per frame. */
#include "bw_math.h"
#include "clip_internal.h"
#include "common.h"

/* Same grid: key count, start and spacing within a few float ulps of the
 * times involved (the tolerance detect_uniform uses). */
static bool same_grid(const bw_track_data *a, const bw_track_data *b)
{
    if (a->key_count != b->key_count) return false;
    float end = fabsf(a->times[a->key_count - 1]) + fabsf(a->times[0]);
    float tol = 1e-6f * (end > 1.0f ? end : 1.0f);
    return fabsf(a->times[0] - b->times[0]) <= tol && fabsf(a->spacing - b->spacing) <= tol;
}

static bool same_target(const bw_track_data *a, const bw_track_data *b)
{
    if (strcmp(a->joint, b->joint) != 0) return false;
    if (!a->parent || !b->parent) return a->parent == b->parent;
    return strcmp(a->parent, b->parent) == 0;
}

static uint64_t target_hash(const bw_track_data *t)
{
    /* parent NULL folds nothing, parent "" one terminator: they differ */
    uint64_t h = bw_hash_string(BW_HASH_SEED, t->joint);
    return t->parent ? bw_hash_string(h, t->parent) : h;
}

/* First component of each channel in a block, and its width. */
static int component_of(bw_channel c)
{
    switch (c) {
    case BW_CHANNEL_TRANSLATION: return 0;
    case BW_CHANNEL_ROTATION: return 3;
    case BW_CHANNEL_SCALE: return 7;
    case BW_CHANNEL_POSE_WEIGHT: return 10;
    default: return 11; /* mask weight */
    }
}

/* Identity / weight defaults for lanes and channels nobody keys. */
static const float component_default[BW_GRID_COMPONENTS] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0};

/* How much the terms BW_GRID_SHORT_TERMS.. of the slerp series can add,
 * at most, over every pair of adjacent rows and lane of the grid. The
 * series is Σ c_i(u) x^i with x = min(|cos|, 1) − 1 (cos: the rows'
 * quaternion dot) and c_0 = u, c_i = c_{i−1} (u² − i²) / (i (2i + 1))
 * (bw_slerp_series); for u in [0, 1], |u² − i²| <= i², so
 * |c_i| <= B_i = Π_{k=1..i} k / (2k + 1), and the dropped terms add at most
 * Σ_{i>=SHORT} B_i |x|^i for the largest |x| found. */
static double series_tail(const bw_clip_grid *g, int blocks)
{
    const size_t row_floats = (size_t)g->row_floats;
    double worst = 0.0;
    for (size_t k = 0; k + 1 < (size_t)g->key_count; k++)
        for (int b = 0; b < blocks; b++) {
            const float *qa = g->rows + k * row_floats + (size_t)b * BW_GRID_BLOCK_FLOATS + 3 * BW_GRID_LANES;
            const float *qb = qa + row_floats;
            for (int l = 0; l < BW_GRID_LANES; l++) {
                double d = 0.0;
                for (int c = 0; c < 4; c++) d += (double)qa[c * BW_GRID_LANES + l] * (double)qb[c * BW_GRID_LANES + l];
                d = fabs(d);
                double x = 1.0 - (d < 1.0 ? d : 1.0);
                if (x > worst) worst = x;
            }
        }
    double tail = 0.0, bound = 1.0, power = 1.0;
    for (int i = 1; i < BW_SLERP_SERIES_TERMS; i++) {
        bound *= (double)i / (double)(2 * i + 1);
        power *= worst;
        if (i >= BW_GRID_SHORT_TERMS) tail += bound * power;
    }
    return tail;
}

bw_result bw_clip_grid_build(bw_clip *clip)
{
    clip->grid = NULL;
    const bw_track_data *ref = NULL;
    for (int i = 0; i < clip->track_count; i++) {
        const bw_track_data *t = &clip->tracks[i];
        if (bw_channel_is_curve(t->channel) || t->key_count == 1) continue; /* single keys are constants */
        if (t->interp != BW_INTERP_EASED || t->styles || !t->uniform || !(t->spacing > 0.0f)) return BW_OK;
        if (!ref) ref = t;
        else if (!same_grid(ref, t)) return BW_OK;
    }
    if (!ref) return BW_OK;

    /* scratch: each track's grid joint, found by (parent, joint) through
     * an open-addressed table of first tracks, so building stays linear in
     * the number of tracks */
    const bw_allocator *a = &clip->allocator;
    size_t slots = 16;
    while (slots < 2 * (size_t)clip->track_count) slots *= 2;
    size_t scratch_size = sizeof(int) * ((size_t)clip->track_count + slots);
    int *track_joint = bw_alloc(a, scratch_size);
    if (!track_joint) return BW_ERR_OUT_OF_MEMORY;
    int *table = track_joint + clip->track_count; /* first track of each target, -1 empty */
    for (size_t i = 0; i < slots; i++) table[i] = -1;
    int joints = 0;
    for (int i = 0; i < clip->track_count; i++) {
        track_joint[i] = -1;
        const bw_track_data *t = &clip->tracks[i];
        if (bw_channel_is_curve(t->channel)) continue;
        size_t at = (size_t)target_hash(t) & (slots - 1);
        while (table[at] >= 0 && !same_target(&clip->tracks[table[at]], t)) at = (at + 1) & (slots - 1);
        if (table[at] < 0) {
            table[at] = i;
            track_joint[i] = joints++;
        } else {
            track_joint[i] = track_joint[table[at]];
        }
    }
    const size_t rows = (size_t)ref->key_count;
    const int blocks = (joints + BW_GRID_LANES - 1) / BW_GRID_LANES;
    const size_t row_floats = (size_t)blocks * BW_GRID_BLOCK_FLOATS;
    if (rows > SIZE_MAX / 8 / sizeof(float) / row_floats) {
        bw_free(a, track_joint, scratch_size);
        return BW_OK;
    }
    /* header, then (64-byte aligned, one AVX-512 vector: the allocator
     * only promises max_align_t) the rows, then the int arrays, then the flags */
    size_t row_bytes = sizeof(float) * rows * row_floats;
    size_t int_bytes = sizeof(int) * ((size_t)joints + (size_t)clip->track_count);
    size_t total = sizeof(bw_clip_grid) + 63 + row_bytes + int_bytes + (size_t)joints + (size_t)blocks;
    unsigned char *raw = bw_alloc(a, total);
    if (!raw) {
        bw_free(a, track_joint, scratch_size);
        return BW_ERR_OUT_OF_MEMORY;
    }
    bw_clip_grid *g = (bw_clip_grid *)raw;
    unsigned char *rows_at = raw + sizeof(bw_clip_grid);
    rows_at = bw_align_ptr(rows_at, 64);
    g->key_count = (int)rows;
    g->start = ref->times[0];
    g->spacing = ref->spacing;
    g->inv_spacing = 1.0f / ref->spacing;
    g->times = ref->times;
    g->joint_count = joints;
    g->block_count = blocks;
    g->row_floats = (int)row_floats;
    g->rows = (float *)rows_at;
    g->joint_track = (int *)(rows_at + row_bytes);
    g->track_joint = g->joint_track + joints;
    g->missing = (unsigned char *)(g->track_joint + clip->track_count);
    g->full = g->missing + joints;
    g->alloc_size = total;
    memcpy(g->track_joint, track_joint, sizeof(int) * (size_t)clip->track_count);
    bw_free(a, track_joint, scratch_size);

    /* defaults everywhere, then every track's values into its lanes */
    for (size_t k = 0; k < rows; k++)
        for (int b = 0; b < blocks; b++)
            for (int c = 0; c < BW_GRID_COMPONENTS; c++)
                for (int l = 0; l < BW_GRID_LANES; l++)
                    g->rows[k * row_floats + (size_t)b * BW_GRID_BLOCK_FLOATS + (size_t)c * BW_GRID_LANES + (size_t)l] =
                        component_default[c];
    for (int j = 0; j < joints; j++) g->missing[j] = BW_GRID_MISSING_T | BW_GRID_MISSING_R | BW_GRID_MISSING_S;
    for (int i = 0; i < clip->track_count; i++) {
        const int j = g->track_joint[i];
        if (j < 0) continue;
        const bw_track_data *t = &clip->tracks[i];
        g->joint_track[j] = i;
        if (t->channel == BW_CHANNEL_TRANSLATION) g->missing[j] &= (unsigned char)~BW_GRID_MISSING_T;
        if (t->channel == BW_CHANNEL_ROTATION) g->missing[j] &= (unsigned char)~BW_GRID_MISSING_R;
        if (t->channel == BW_CHANNEL_SCALE) g->missing[j] &= (unsigned char)~BW_GRID_MISSING_S;
        const int first = component_of(t->channel);
        float *lane = g->rows + (size_t)(j / BW_GRID_LANES) * BW_GRID_BLOCK_FLOATS + (size_t)(j % BW_GRID_LANES);
        for (size_t k = 0; k < rows; k++) {
            const float *v = t->values + (t->key_count == 1 ? 0 : k * (size_t)t->stride);
            for (int c = 0; c < t->width; c++) lane[k * row_floats + (size_t)(first + c) * BW_GRID_LANES] = v[c];
        }
    }
    for (int b = 0; b < blocks; b++) {
        bool full = true;
        for (size_t k = 0; k < rows && full; k++) {
            const float *w = g->rows + k * row_floats + (size_t)b * BW_GRID_BLOCK_FLOATS + 10 * BW_GRID_LANES;
            for (int l = 0; l < BW_GRID_LANES; l++) full = full && w[l] == 1.0f && w[BW_GRID_LANES + l] == 0.0f;
        }
        g->full[b] = full;
    }
    g->short_series = series_tail(g, blocks) <= BW_GRID_SHORT_TAIL;
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
    /* every track of a grid joint must have bound to the same rig joint
     * (or all be unbound); otherwise this binding takes the per-track path */
    for (int i = 0; i < b->track_count; i++) {
        int j = cg->track_joint[i];
        if (j >= 0 && b->targets[i] != b->targets[cg->joint_track[j]]) return BW_OK;
    }
    int fixups = 0;
    for (int j = 0; j < cg->joint_count; j++) fixups += cg->missing[j] && b->targets[cg->joint_track[j]] >= 0;
    size_t lanes = (size_t)cg->block_count * BW_GRID_LANES;
    size_t off_lanes = bw_align_up(sizeof(bw_grid_binding), 16);
    size_t off_fixups = off_lanes + bw_align_up(sizeof(int) * lanes, 16);
    size_t total = off_fixups + sizeof(bw_grid_fixup) * (size_t)fixups;
    unsigned char *block = bw_alloc(&b->allocator, total);
    if (!block) return BW_ERR_OUT_OF_MEMORY;
    bw_grid_binding *g = (bw_grid_binding *)block;
    g->block_count = cg->block_count;
    g->lane_joint = (int *)(block + off_lanes);
    g->fixup_count = fixups;
    g->fixups = (bw_grid_fixup *)(block + off_fixups);
    g->alloc_size = total;
    int f = 0;
    for (size_t l = 0; l < lanes; l++) {
        int j = (int)l < cg->joint_count ? b->targets[cg->joint_track[l]] : -1;
        g->lane_joint[l] = j;
        if (j >= 0 && cg->missing[l]) {
            g->fixups[f].joint = j;
            g->fixups[f].missing = cg->missing[l];
            f++;
        }
    }
    g->dense = fixups == 0 && b->driven_curve_count == 0 && cg->joint_count == b->joint_count;
    for (int l = 0; g->dense && l < cg->joint_count; l++) g->dense = g->lane_joint[l] == l;
    b->grid = g;
    return BW_OK;
}

void bw_binding_grid_free(bw_binding *b)
{
    if (b && b->grid) bw_free(&b->allocator, b->grid, b->grid->alloc_size);
    if (b) b->grid = NULL;
}
