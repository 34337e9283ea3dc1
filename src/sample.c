/* sample.c - evaluating a bound clip at one time into a pose (SPEC §3).
 *
 * The per-frame path: a binary search per track for its segment, the
 * destination key's easing, then lerp / slerp / shortest-arc angle or a
 * Hermite spline. No allocation, no strings. Every output is checked for
 * finiteness last, because extreme (but finite, hence valid) keys combined
 * with overshooting easings could otherwise overflow. */
#include "blendwerk/sample.h"

#include "bw_math.h"
#include "clip_internal.h"
#include "common.h"
#include "grid_sample.h"
#include "simd.h"

float bw_lerp_angle(float a, float b, float u)
{
    if (!isfinite(a)) return isfinite(b) ? b : 0.0f;
    if (!isfinite(u)) u = 0.0f;
    float d = b - a;
    if (!isfinite(d)) return a;
    /* a half turn apart (|d| = π) keeps the direction b − a points */
    d = bw_wrap_angle(d);
    float r = a + d * u;
    return isfinite(r) ? r : a;
}

static inline float lerpf(float a, float b, float u)
{
    /* this form returns a at u = 0 and b at u = 1 exactly */
    return a * (1.0f - u) + b * u;
}

/* Sample a track into out[width]. */
static void sample_track(const bw_track_data *t, float time, float *out)
{
    const int width = t->width;
    const int value_offset = t->interp == BW_INTERP_CUBICSPLINE ? width : 0;
    const int n = t->key_count;
    int kb = bw_track_find_key(t, time);
    if (kb == 0 || kb >= n) { /* hold the endpoint */
        const float *v = t->values + (size_t)(kb == 0 ? 0 : n - 1) * (size_t)t->stride + value_offset;
        for (int i = 0; i < width; i++) out[i] = v[i];
        return;
    }
    const int ka = kb - 1;
    const float ta = t->times[ka], tb = t->times[kb];
    float u = (time - ta) / (tb - ta);
    if (!(u > 0.0f)) u = 0.0f; /* NaN from overflowing differences, too */
    else if (u > 1.0f) u = 1.0f;
    const float *va = t->values + (size_t)ka * (size_t)t->stride;
    const float *vb = t->values + (size_t)kb * (size_t)t->stride;

    if (t->interp == BW_INTERP_CUBICSPLINE) {
        /* glTF: p = h00 v_a + h10 dt out_a + h01 v_b + h11 dt in_b */
        const float dt = tb - ta, s = u, s2 = s * s, s3 = s2 * s;
        const float h00 = 2.0f * s3 - 3.0f * s2 + 1.0f, h10 = (s3 - 2.0f * s2 + s) * dt;
        const float h01 = -2.0f * s3 + 3.0f * s2, h11 = (s3 - s2) * dt;
        const float *pa = va + width, *oa = va + 2 * width, *ib = vb, *pb = vb + width;
        bool finite = true;
        for (int i = 0; i < width; i++) {
            out[i] = h00 * pa[i] + h10 * oa[i] + h01 * pb[i] + h11 * ib[i];
            finite = finite && isfinite(out[i]);
        }
        if (t->channel == BW_CHANNEL_ROTATION) {
            float n2 = bw_quat_dot(out, out);
            if (finite && n2 > 1e-12f && isfinite(n2)) bw_quat_normalize(out);
            else bw_quat_slerp(pa, pb, u, out); /* degenerate spline: fall back to the arc */
        } else if (!finite) {
            for (int i = 0; i < width; i++) out[i] = lerpf(pa[i], pb[i], u);
        }
        va = pa; /* for the final guard */
        vb = pb;
    } else {
        if (t->styles) u = bw_ease((bw_ease_style)t->styles[kb], (bw_ease_dir)t->dirs[kb], u);
        switch (t->channel) {
        case BW_CHANNEL_ROTATION: bw_quat_slerp(va, vb, u, out); return;
        case BW_CHANNEL_ANGLE: out[0] = bw_lerp_angle(va[0], vb[0], u); return;
        default:
            for (int i = 0; i < width; i++) out[i] = lerpf(va[i], vb[i], u);
            break;
        }
    }
    for (int i = 0; i < width; i++) /* overflow guard: hold the nearer key */
        if (!isfinite(out[i])) out[i] = u < 0.5f ? va[i] : vb[i];
}

void bw_sample_track(const bw_clip *clip, int track, float time, float *out)
{
    if (!clip || !out || track < 0 || track >= clip->track_count) return;
    if (isnan(time)) time = 0.0f; /* ±inf hold the last / first key like any time past the ends */
    sample_track(&clip->tracks[track], time, out);
}

/* The uniform-grid fast path: two adjacent rows, one u for every joint,
 * four joints per block (layout in clip_internal.h). */
static void sample_grid(const bw_binding *binding, const bw_transform *rest, int rest_count, float time,
                        const bw_simd_kernels *kernels, bw_pose *out)
{
    const bw_clip_grid *g = binding->clip->grid;
    const bw_grid_binding *gb = binding->grid;
    int k;
    float u;
    bw_grid_segment(g, time, &k, &u);
    const float *ra = g->rows + (size_t)k * (size_t)g->row_floats;
    const float *rb = ra + g->row_floats;
    float ca[BW_SLERP_SERIES_TERMS], cb[BW_SLERP_SERIES_TERMS];
    const int terms = g->short_series ? kernels->short_series_terms : BW_SLERP_SERIES_TERMS;
    bw_slerp_series_terms(1.0f - u, ca, terms);
    bw_slerp_series_terms(u, cb, terms);
    kernels->sample_grid(gb, ra, rb, u, ca, cb, g->short_series, out->joints, out->coverage, out->joint_count);
    /* channels the clip does not key take the rig's current value */
    for (int f = 0; f < gb->fixup_count; f++) {
        const int j = gb->fixups[f].joint;
        if (j >= out->joint_count) continue;
        const bw_transform *r = rest && j < rest_count ? &rest[j] : &bw_transform_identity;
        bw_transform *x = &out->joints[j];
        if (gb->fixups[f].missing & BW_GRID_MISSING_T) memcpy(x->t, r->t, sizeof x->t);
        if (gb->fixups[f].missing & BW_GRID_MISSING_R) memcpy(x->r, r->r, sizeof x->r);
        if (gb->fixups[f].missing & BW_GRID_MISSING_S) memcpy(x->s, r->s, sizeof x->s);
    }
}

/* The per-track path for joints: a key search per track. */
static void sample_joints(const bw_binding *binding, const bw_transform *rest, int rest_count, float time,
                          bw_pose *out)
{
    const bw_track_data *tracks = binding->clip->tracks;
    for (int d = 0; d < binding->driven_joint_count; d++) {
        const bw_joint_binding *jb = &binding->driven_joints[d];
        const int j = jb->joint;
        if (j >= out->joint_count) continue;
        /* unkeyed channels of a keyed joint keep the rig's current value */
        bw_transform x = rest && j < rest_count ? rest[j] : bw_transform_identity;
        if (jb->track[BW_SLOT_T] >= 0) sample_track(&tracks[jb->track[BW_SLOT_T]], time, x.t);
        if (jb->track[BW_SLOT_R] >= 0) sample_track(&tracks[jb->track[BW_SLOT_R]], time, x.r);
        if (jb->track[BW_SLOT_S] >= 0) sample_track(&tracks[jb->track[BW_SLOT_S]], time, x.s);
        float pose_weight = 1.0f, mask_weight = 0.0f;
        if (jb->track[BW_SLOT_POSE_WEIGHT] >= 0)
            sample_track(&tracks[jb->track[BW_SLOT_POSE_WEIGHT]], time, &pose_weight);
        if (jb->track[BW_SLOT_MASK_WEIGHT] >= 0)
            sample_track(&tracks[jb->track[BW_SLOT_MASK_WEIGHT]], time, &mask_weight);
        out->joints[j] = x;
        out->coverage[j] = bw_coverage(pose_weight, mask_weight);
    }
}

void bw_sample_clip(const bw_binding *binding, const bw_rig *rig, float time, bw_pose *out)
{
    bw_sample_clip_with(binding, rig, time, NULL, out);
}

void bw_sample_clip_with(const bw_binding *binding, const bw_rig *rig, float time, const bw_sample_options *options,
                         bw_pose *out)
{
    if (!out) return;
    const bw_simd_kernels *kernels =
        bw_simd_kernels_for(options ? options->simd : BW_SIMD_AUTO);
    /* A binding made for another layout would write to the wrong joints:
     * such a misuse samples nothing rather than scrambling the pose. */
    if (!binding || !binding->clip || (rig && bw_rig_layout_signature(rig) != binding->layout_signature)) {
        bw_pose_clear(out);
        return;
    }
    /* joints (and curves) the clip does not drive read as identity with
     * coverage 0; when it drives all of them every value is overwritten */
    if (binding->driven_joint_count < out->joint_count || binding->driven_curve_count < out->curve_count)
        bw_pose_clear(out);
    if (isnan(time)) time = 0.0f; /* ±inf hold the last / first key like any time past the ends */

    const bw_track_data *tracks = binding->clip->tracks;
    /* the rig's values only when some channel needs them (a dense grid
     * clip keys every channel: two calls fewer per sample) */
    const bool need_rest = !binding->grid || binding->grid->fixup_count > 0;
    const bw_transform *rest = rig && need_rest ? bw_rig_rest_pose(rig) : NULL;
    const int rest_count = rig && need_rest ? bw_rig_joint_count(rig) : 0;
    if (binding->grid) sample_grid(binding, rest, rest_count, time, kernels, out);
    else sample_joints(binding, rest, rest_count, time, out);
    /* curves always take the per-track path */
    for (int d = 0; d < binding->driven_curve_count; d++) {
        const bw_curve_binding *cb = &binding->driven_curves[d];
        if (cb->curve >= out->curve_count) continue;
        sample_track(&tracks[cb->track], time, &out->curves[cb->curve]);
        out->curve_coverage[cb->curve] = 1.0f;
    }
}
