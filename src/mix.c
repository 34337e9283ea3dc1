/* mix.c - the per-joint priority mixer (SPEC §5, contract in mix.h).
 *
 * Shape of a run, chosen for speed:
 * 1. validate everything, so a failure leaves `out` untouched;
 * 2. (the base is not copied: the joint pass reads it and writes out);
 * 3. stable insertion sort of the live contributions by priority into
 *    scratch sized at creation (lists are short; no allocation), giving a
 *    flat list of entries and the end index of each rank;
 * 4. one pass over the joints, W at a time (4, 8 or 16: the SIMD path,
 *    src/simd.h; the joint pass itself is in src/kernels.h). A block of W
 *    joints is transposed into structure-of-arrays registers (one W-lane
 *    vector per component: tx ty tz qx qy qz qw sx sy sz), so every
 *    formula is plain vertical arithmetic on W joints at once, and per-joint
 *    decisions (covered or not, hemisphere sign, bad data) are lane masks,
 *    not branches. Per block the running result stays in registers while
 *    each rank is accumulated and overlaid in turn; it is read from the
 *    base once and written to `out` once. The loops walk precomputed rank
 *    boundaries and never compare priorities.
 * Curves are few and take a plain scalar pass with the same rule.
 * The overlay uses the same weighted-mean rule as the rank mean, with
 * weights (c_r(1 − c_k), c_k) normalized by the new coverage.
 */
#include "blendwerk/mix.h"

#include <stddef.h>
#include <stdint.h>

#include "blendwerk/sample.h"
#include "common.h"
#include "mix_internal.h"
#include "grid_sample.h"
#include "simd.h"


struct bw_mixer {
    bw_allocator alloc; /* by value (fn NULL: malloc) */
    void *block;        /* the allocation the mixer and its arrays live in */
    size_t block_size;
    const bw_simd_kernels *kernels; /* the path chosen at creation (bw_mixer_desc.simd) */
    int joint_count;
    int curve_count;
    int max_contributions;
    int *order;                 /* max_contributions: contribution indices sorted by priority */
    bw_mix_entry *entries;             /* max_contributions: the same, flattened */
    int *rank_end;              /* max_contributions: one past each rank's last entry */
    unsigned char *curve_angle; /* curve_count: 1 for BW_CURVE_ANGLE */
    bw_pose *scratch;           /* max_contributions poses for bw_mix_run_clips' other clips */
    bw_contribution *sampled;   /* max_contributions: contributions built by bw_mix_run_clips */
    float (*splat)[4];          /* SSE2 path only: max_contributions × BW_MIX_SPLAT_COUNT rows */
    float *ones;                /* max(joint_count, curve_count) coverages of 1: the rig's values
                                   as a base without copying them (bw_mix_rest_view) */
    size_t hot_bytes;           /* the layout's hot part: the struct and per-contribution arrays */
};

static inline float sanitize_weight(float w) { return (isfinite(w) && w > 0.0f) ? w : 0.0f; }

/* x repeated 4 times: one broadcast and one 16-byte store where the
 * compiler has vectors (it does not vectorize the plain loop) */
static inline void splat_row(float *out, float x)
{
#if defined(__GNUC__)
    typedef float f4 __attribute__((vector_size(16)));
    const f4 v = {x, x, x, x};
    memcpy(out, &v, sizeof v);
#else
    for (int l = 0; l < 4; l++) out[l] = x;
#endif
}

/* ---- creation ----
 * The mixer and its arrays are one block, in the order a run touches
 * them: the struct and the per-contribution arrays every run writes
 * first (bw_mixer_hot_bytes), then the rest. The scratch
 * poses, used only for clips without a dense grid, are allocated apart. */

#define MIXER_LINE 64

/* The `ones` row's length: one 1 per joint or curve, whichever are more. */
static int ones_count(const bw_mixer *m) { return m->joint_count > m->curve_count ? m->joint_count : m->curve_count; }

/* Lay a mixer's block out in k from its (aligned) start: the struct, the
 * hot arrays, then the rest. With k->base set, m is the struct at the
 * block's start and its arrays are set; with it NULL k only measures and m
 * (a stand-in with the counts) gets NULL arrays. Returns the hot part's
 * size. */
static size_t carve_mixer(bw_carver *k, bw_mixer *m, bool splat)
{
    size_t nm = (size_t)m->max_contributions, nc = (size_t)m->curve_count, n_ones = (size_t)ones_count(m);
    bw_carve(k, sizeof *m, BW_MAX_ALIGN);
    m->order = (int *)bw_carve(k, nm * sizeof *m->order, BW_MAX_ALIGN);
    m->rank_end = (int *)bw_carve(k, nm * sizeof *m->rank_end, BW_MAX_ALIGN);
    m->sampled = (bw_contribution *)bw_carve(k, nm * sizeof *m->sampled, BW_MAX_ALIGN);
    m->entries = (bw_mix_entry *)bw_carve(k, nm * sizeof *m->entries, BW_MAX_ALIGN); /* last: see hot_bytes_for */
    const size_t hot = k->used;
    m->curve_angle = (unsigned char *)bw_carve(k, nc, BW_MAX_ALIGN);
    m->scratch = (bw_pose *)bw_carve(k, nm * sizeof *m->scratch, BW_MAX_ALIGN);
    m->splat = NULL;
    if (splat) m->splat = (float(*)[4])bw_carve(k, nm * BW_MIX_SPLAT_COUNT * sizeof *m->splat, BW_MAX_ALIGN);
    m->ones = (float *)bw_carve(k, n_ones * sizeof *m->ones, BW_MAX_ALIGN);
    return hot;
}

static void mixer_free(bw_mixer *m)
{
    for (int i = 0; i < m->max_contributions; i++) bw_pose_deinit(&m->scratch[i]);
    bw_allocator copy = m->alloc; /* m lives in the block it frees */
    bw_free(&copy, m->block, m->block_size);
}

bw_result bw_mixer_create(const bw_mixer_desc *desc, bw_mixer **out_mixer)
{
    if (!desc || !desc->rig || !out_mixer || desc->max_contributions < 0) return BW_ERR_INVALID_ARGUMENT;
    if ((unsigned)desc->simd >= (unsigned)BW_SIMD_PATH_COUNT) return BW_ERR_INVALID_ARGUMENT; /* not a path */
    const int joint_count = bw_rig_joint_count(desc->rig), curve_count = bw_rig_curve_count(desc->rig);
    const int max_contributions = desc->max_contributions ? desc->max_contributions : BW_MIXER_DEFAULT_CONTRIBUTIONS;
    if (joint_count > (1 << 26) || curve_count > (1 << 26) || max_contributions > (1 << 20)) return BW_ERR_LIMIT;
    const bw_simd_kernels *kernels = bw_simd_kernels_for(desc->simd);
    const bool splat = kernels->path == BW_SIMD_SSE2; /* the SSE2 path only: 16-byte rows */
    bw_mixer shape = {.joint_count = joint_count, .curve_count = curve_count, .max_contributions = max_contributions};
    bw_carver k = {NULL, 0};
    carve_mixer(&k, &shape, splat);
    const size_t size = k.used + MIXER_LINE - 1; /* room to start on a line */
    char *block = (char *)bw_alloc_zeroed(&desc->allocator, size);
    if (!block) return BW_ERR_OUT_OF_MEMORY;
    k = (bw_carver){bw_align_ptr(block, MIXER_LINE), 0};
    bw_mixer *m = (bw_mixer *)k.base;
    *m = shape;
    m->alloc = desc->allocator;
    m->block = block;
    m->block_size = size;
    m->kernels = kernels;
    m->hot_bytes = carve_mixer(&k, m, splat);
    for (int i = 0; i < max_contributions; i++)
        if (bw_pose_init_counts(&m->scratch[i], joint_count, curve_count, &m->alloc) != BW_OK) {
            mixer_free(m);
            return BW_ERR_OUT_OF_MEMORY;
        }
    for (int i = 0; i < curve_count; i++) m->curve_angle[i] = bw_rig_curve_kind(desc->rig, i) == BW_CURVE_ANGLE;
    for (int i = 0; i < ones_count(m); i++) m->ones[i] = 1.0f;
    *out_mixer = m;
    return BW_OK;
}

size_t bw_mixer_hot_bytes(const bw_mixer *mixer) { return mixer ? mixer->hot_bytes : 0; }

size_t bw_mixer_hot_bytes_for(const bw_mixer *m, int contributions)
{
    if (!m) return 0;
    if (contributions < 0) contributions = 0;
    if (contributions > m->max_contributions) contributions = m->max_contributions;
    return (size_t)((const char *)(m->entries + contributions) - (const char *)m);
}

void bw_mixer_destroy(bw_mixer *mixer)
{
    if (mixer) mixer_free(mixer);
}

/* ---- running ---- */

static int pose_fits(const bw_mixer *m, const bw_pose *p)
{
    if (!p || p->joint_count != m->joint_count || p->curve_count != m->curve_count) return 0;
    if (p->joint_count > 0 && (!p->joints || !p->coverage)) return 0;
    if (p->curve_count > 0 && (!p->curves || !p->curve_coverage)) return 0;
    return 1;
}

static void mix_curves(const bw_mix_entry *entries, const int *rank_end, int rank_count, int curve_count,
                       const unsigned char *angle, float *out, float *out_coverage)
{
    for (int i = 0; i < curve_count; i++) {
        float v = out[i], cr = out_coverage[i];
        int changed = 0;
        for (int r = 0, e = 0; r < rank_count; r++) {
            /* Angles are unwrapped to within π of one reference per rank:
             * the running value when it is covered (so the overlay also
             * takes the short way), else the rank's first value. */
            float ref = v;
            int has_ref = bw_clamp01(cr) > 0.0f;
            float share = 0.0f, sum = 0.0f;
            for (int end = rank_end[r]; e < end; e++) {
                if (!entries[e].curves) continue; /* a grid clip drives no curves */
                float sh = bw_clamp01(entries[e].weight * entries[e].curve_coverage[i]);
                if (!(sh > 0.0f)) continue;
                float val = entries[e].curves[i];
                if (angle[i]) {
                    if (!has_ref) {
                        ref = val;
                        has_ref = 1;
                    }
                    val = ref + bw_wrap_angle(val - ref);
                }
                sum += sh * val;
                share += sh;
            }
            if (!(share > 0.0f)) continue;
            float ck = share < 1.0f ? share : 1.0f;
            float wa = bw_clamp01(cr) * (1.0f - ck);
            float total = wa + ck;
            float nv = (wa * v + ck * (sum / share)) / total;
            if (!isfinite(nv)) continue; /* bad data: keep what lay below */
            v = nv;
            cr = total < 1.0f ? total : 1.0f;
            changed = 1;
        }
        if (changed) {
            out[i] = v;
            out_coverage[i] = cr;
        }
    }
}

/* ---- a read-only empty base (mix_internal.h) ---- */

#define ID1 {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}}
#define ID4 ID1, ID1, ID1, ID1
#define ID16 ID4, ID4, ID4, ID4
#define ID64 ID16, ID16, ID16, ID16
/* What bw_pose_clear writes, for up to BW_MIX_EMPTY_MAX joints and curves,
 * shared read-only by every mixer (it stays in cache across a crowd). */
static const bw_transform empty_joints[BW_MIX_EMPTY_MAX] = {ID64, ID64, ID64, ID64};
static const float empty_zeros[BW_MIX_EMPTY_MAX];
#undef ID64
#undef ID16
#undef ID4
#undef ID1

/* Sort the live contributions by priority into entries and mix over
 * `base` (NULL: out's contents) into `out`. A contribution with a NULL
 * pose is clip `clips[i]` sampled from its grid on the fly
 * (bw_mix_run_clips). Inputs are already validated. The joint pass reads
 * the base itself and writes every block of `out`, so the base is not
 * copied first (one pass over the joints instead of two), unless a
 * contribution reads `out` itself. */
static void run_mix(bw_mixer *mixer, const bw_contribution *contributions, const bw_clip_contribution *clips,
                    int count, const bw_pose *base, bw_pose *out)
{
    if (base == out) base = NULL;
    for (int i = 0; base && i < count; i++)
        if (contributions[i].pose == out) {
            bw_pose_copy(out, base);
            base = NULL;
        }
    if (base && out->curve_count > 0) {
        memmove(out->curves, base->curves, (size_t)out->curve_count * sizeof *out->curves);
        memmove(out->curve_coverage, base->curve_coverage, (size_t)out->curve_count * sizeof *out->curve_coverage);
    }
    /* Stable insertion sort of the live contributions by priority. */
    int n = 0;
    int *order = mixer->order;
    for (int i = 0; i < count; i++) {
        if (!(sanitize_weight(contributions[i].weight) > 0.0f)) continue;
        int p = contributions[i].priority, k = n;
        while (k > 0 && contributions[order[k - 1]].priority > p) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = i;
        n++;
    }
    int ranks = 0;
    for (int k = 0; k < n; k++) {
        const bw_contribution *c = &contributions[order[k]];
        bw_mix_entry *en = &mixer->entries[k];
        en->weight = sanitize_weight(c->weight);
        if (c->pose) {
            en->joints = c->pose->joints;
            en->coverage = c->pose->coverage;
            en->curves = c->pose->curves;
            en->curve_coverage = c->pose->curve_coverage;
            en->grid_a = en->grid_b = NULL;
            en->grid_full = NULL;
            en->short_series = false;
            en->splat = NULL;
            en->u = 0.0f;
        } else {
            const bw_clip_contribution *cc = &clips[order[k]];
            const bw_clip_grid *g = cc->binding->clip->grid;
            int row;
            float u, time = isnan(cc->time) ? 0.0f : cc->time; /* as bw_sample_clip */
            bw_grid_segment(g, time, &row, &u);
            en->joints = NULL;
            en->coverage = en->curves = en->curve_coverage = NULL;
            en->grid_a = g->rows + (size_t)row * (size_t)g->row_floats;
            en->grid_b = en->grid_a + g->row_floats;
            en->grid_full = g->full;
            en->short_series = g->short_series;
            en->u = u;
            en->splat = mixer->splat ? mixer->splat + (size_t)k * BW_MIX_SPLAT_COUNT : NULL;
            const int terms = g->short_series ? mixer->kernels->short_series_terms : BW_SLERP_SERIES_TERMS;
            if (en->splat) {
                /* the SSE2 kernel reads only the rows: ca/cb are left as
                 * they are and the coefficients go straight to the rows
                 * (the series' rows it reads) */
                float numbers[BW_MIX_SPLAT_COUNT];
                bw_slerp_series_terms(1.0f - u, numbers + BW_MIX_SPLAT_CA, terms);
                bw_slerp_series_terms(u, numbers + BW_MIX_SPLAT_CB, terms);
                numbers[BW_MIX_SPLAT_WEIGHT] = en->weight;
                numbers[BW_MIX_SPLAT_U] = u;
                numbers[BW_MIX_SPLAT_V] = 1.0f - u;
                for (int i = 0; i < BW_MIX_SPLAT_COUNT; i++)
                    if (i >= BW_MIX_SPLAT_WEIGHT || i % BW_SLERP_SERIES_TERMS < terms) splat_row(en->splat[i], numbers[i]);
            } else {
                bw_slerp_series_terms(1.0f - u, en->ca, terms);
                bw_slerp_series_terms(u, en->cb, terms);
            }
        }
        if (k + 1 == n || contributions[order[k + 1]].priority != c->priority) mixer->rank_end[ranks++] = k + 1;
    }
    if (ranks == 0) {
        if (base) bw_pose_copy(out, base);
        return;
    }
    /* the empty view's joints are known without reading them (NULL) */
    const bool empty = base && base->joints == empty_joints;
    const bw_transform *src = empty ? NULL : base ? base->joints : out->joints;
    const float *src_coverage = empty ? NULL : base ? base->coverage : out->coverage;
    mixer->kernels->mix_joints(mixer->entries, mixer->rank_end, ranks, mixer->joint_count, src, src_coverage,
                               out->joints, out->coverage);
    mix_curves(mixer->entries, mixer->rank_end, ranks, mixer->curve_count, mixer->curve_angle, out->curves,
               out->curve_coverage);
}

bw_result bw_mix_run(bw_mixer *mixer, const bw_pose *base, const bw_contribution *contributions, int count,
                     bw_pose *out)
{
    if (!mixer || !out || count < 0 || (count > 0 && !contributions)) return BW_ERR_INVALID_ARGUMENT;
    if (count > mixer->max_contributions) return BW_ERR_LIMIT;
    if (!pose_fits(mixer, out) || (base && !pose_fits(mixer, base))) return BW_ERR_INVALID_ARGUMENT;
    for (int i = 0; i < count; i++)
        if (!pose_fits(mixer, contributions[i].pose)) return BW_ERR_INVALID_ARGUMENT;
    run_mix(mixer, contributions, NULL, count, base, out);
    return BW_OK;
}

bool bw_mix_empty_view(const bw_mixer *mixer, bw_pose *view)
{
    if (mixer->joint_count > BW_MIX_EMPTY_MAX || mixer->curve_count > BW_MIX_EMPTY_MAX) return false;
    *view = (bw_pose){(bw_transform *)empty_joints, (float *)empty_zeros, (float *)empty_zeros, (float *)empty_zeros,
                      mixer->joint_count, mixer->curve_count, {NULL, NULL}};
    return true;
}

bool bw_mix_rest_view(const bw_mixer *mixer, const bw_rig *rig, bw_pose *view)
{
    if (bw_rig_joint_count(rig) < mixer->joint_count || bw_rig_curve_count(rig) < mixer->curve_count) return false;
    *view = (bw_pose){(bw_transform *)bw_rig_rest_pose(rig), mixer->ones, (float *)bw_rig_curve_rest(rig), mixer->ones,
                      mixer->joint_count, mixer->curve_count, {NULL, NULL}};
    return true;
}

static bw_result run_clips(bw_mixer *mixer, const bw_rig *rig, const bw_pose *base, bool bindings_checked,
                           const bw_clip_contribution *clips, int count, bw_pose *out)
{
    if (!mixer || !rig || !out || count < 0 || (count > 0 && !clips)) return BW_ERR_INVALID_ARGUMENT;
    if (count > mixer->max_contributions) return BW_ERR_LIMIT;
    if (!pose_fits(mixer, out) || (base && !pose_fits(mixer, base))) return BW_ERR_INVALID_ARGUMENT;
    const uint64_t signature = bindings_checked ? 0 : bw_rig_layout_signature(rig);
    for (int i = 0; i < count && !bindings_checked; i++) {
        const bw_binding *b = clips[i].binding;
        if (!b || !b->clip || b->layout_signature != signature || b->joint_count != mixer->joint_count)
            return BW_ERR_INVALID_ARGUMENT;
    }
    for (int i = 0; i < count; i++) {
        const bw_binding *b = clips[i].binding;
        bw_contribution *c = &mixer->sampled[i];
        c->weight = clips[i].weight;
        c->priority = clips[i].priority;
        if ((b->grid && b->grid->dense) || !(sanitize_weight(c->weight) > 0.0f)) {
            c->pose = NULL; /* sampled block by block inside the mix, or skipped there (weight 0) */
        } else {
            const bw_sample_options so = {.simd = mixer->kernels->path};
            bw_sample_clip_with(b, rig, clips[i].time, &so, &mixer->scratch[i]);
            c->pose = &mixer->scratch[i];
        }
    }
    run_mix(mixer, mixer->sampled, clips, count, base, out);
    return BW_OK;
}

bw_result bw_mix_run_clips(bw_mixer *mixer, const bw_rig *rig, const bw_pose *base,
                           const bw_clip_contribution *clips, int count, bw_pose *out)
{
    return run_clips(mixer, rig, base, false, clips, count, out);
}

bw_result bw_mix_run_clips_checked(bw_mixer *mixer, const bw_rig *rig, const bw_pose *base,
                                   const bw_clip_contribution *clips, int count, bw_pose *out)
{
    return run_clips(mixer, rig, base, true, clips, count, out);
}
