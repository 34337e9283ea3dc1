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

#define PI_F 3.14159265358979323846f
#define TWO_PI_F 6.28318530717958647692f

float bw_lerp_angle(float a, float b, float u)
{
    if (!isfinite(a)) return isfinite(b) ? b : 0.0f;
    if (!isfinite(u)) u = 0.0f;
    float d = b - a;
    if (!isfinite(d)) return a;
    d = fmodf(d, TWO_PI_F); /* (-2π, 2π), sign of b − a */
    if (d > PI_F) d -= TWO_PI_F;
    else if (d < -PI_F) d += TWO_PI_F;
    /* a half turn apart (|d| = π) keeps the direction b − a points */
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
    if (!isfinite(time)) time = 0.0f;
    sample_track(&clip->tracks[track], time, out);
}

static void clear_pose(bw_pose *out)
{
    for (int j = 0; j < out->joint_count; j++) {
        out->joints[j] = bw_transform_identity;
        out->coverage[j] = 0.0f;
    }
    for (int c = 0; c < out->curve_count; c++) {
        out->curves[c] = 0.0f;
        out->curve_coverage[c] = 0.0f;
    }
}

/* Slerp with the series coefficients of (1 − u) and u precomputed; the
 * same result as bw_quat_slerp to float precision (the renormalization is
 * one Newton step, exact enough since the series result is unit to 1e-7). */
static inline void slerp_series(const float *a, const float *b, const float *ca, const float *cb, float u,
                                float *out)
{
    float d = bw_quat_dot(a, b);
    float sign = d < 0.0f ? -1.0f : 1.0f;
    d *= sign;
    if (d < BW_SLERP_SERIES_MIN_COS) {
        bw_quat_slerp(a, b, u, out);
        return;
    }
    if (d > 1.0f) d = 1.0f;
    float ka = bw_slerp_series_eval(ca, d), kb = sign * bw_slerp_series_eval(cb, d);
    float r0 = ka * a[0] + kb * b[0], r1 = ka * a[1] + kb * b[1];
    float r2 = ka * a[2] + kb * b[2], r3 = ka * a[3] + kb * b[3];
    float n = 1.5f - 0.5f * (r0 * r0 + r1 * r1 + r2 * r2 + r3 * r3);
    out[0] = r0 * n; out[1] = r1 * n; out[2] = r2 * n; out[3] = r3 * n;
}

bool bw_sample_force_portable = false;

/* Segment of the grid for `time`: row k and the fraction u toward k + 1. */
static void grid_segment(const bw_clip_grid *g, float time, int *out_k, float *out_u)
{
    const int last = g->key_count - 1;
    float f = (time - g->start) * g->inv_spacing, u;
    int k;
    if (!(f > 0.0f)) { /* before the first key (or NaN): hold row 0 */
        k = 0;
        u = 0.0f;
    } else if (f >= (float)last) { /* after the last: hold the last row */
        k = last - 1;
        u = 1.0f;
    } else {
        /* the grid guess, then corrected against the stored key times so a
         * time exactly on a key gives that key (as the per-track search
         * does) despite float rounding of times far from 0 */
        k = (int)f;
        if (k > last - 1) k = last - 1;
        if (time < g->times[k] && k > 0) k--;
        else if (time >= g->times[k + 1] && k + 1 < last) k++;
        u = (time - g->times[k]) / (g->times[k + 1] - g->times[k]);
        u = u > 0.0f ? (u < 1.0f ? u : 1.0f) : 0.0f;
    }
    *out_k = k;
    *out_u = u;
}

/* Write lane l of a computed block (res: component-major, 4 lanes each:
 * t xyz, r xyzw, s xyz, coverage) into the pose. */
static inline void store_lane(const float (*res)[4], int l, bw_transform *x, float *coverage)
{
    x->t[0] = res[0][l]; x->t[1] = res[1][l]; x->t[2] = res[2][l];
    x->r[0] = res[3][l]; x->r[1] = res[4][l]; x->r[2] = res[5][l]; x->r[3] = res[6][l];
    x->s[0] = res[7][l]; x->s[1] = res[8][l]; x->s[2] = res[9][l];
    *coverage = res[10][l];
}

/* One block of four joints, lane by lane: the portable path. */
static void grid_block_scalar(const float *a, const float *b, float u, const float *ca, const float *cb,
                              float (*res)[4])
{
    const float v = 1.0f - u;
    for (int l = 0; l < 4; l++) {
        for (int c = 0; c < 3; c++) {
            res[c][l] = a[c * 4 + l] * v + b[c * 4 + l] * u;
            res[7 + c][l] = a[(7 + c) * 4 + l] * v + b[(7 + c) * 4 + l] * u;
        }
        float qa[4], qb[4], q[4];
        for (int c = 0; c < 4; c++) {
            qa[c] = a[(3 + c) * 4 + l];
            qb[c] = b[(3 + c) * 4 + l];
        }
        slerp_series(qa, qb, ca, cb, u, q);
        for (int c = 0; c < 4; c++) res[3 + c][l] = q[c];
        float pw = a[40 + l] * v + b[40 + l] * u, mw = a[44 + l] * v + b[44 + l] * u;
        float cov = pw * (1.0f - mw);
        res[10][l] = cov > 0.0f ? (cov < 1.0f ? cov : 1.0f) : 0.0f; /* NaN → 0 */
    }
}

#if defined(__SSE2__) && !defined(BW_NO_SIMD)
#include <emmintrin.h>
#define GRID_SSE 1
/* The same block with SSE: four joints per instruction. Lanes whose key
 * rotations are more than 92° apart (outside the series' range) are
 * redone by the scalar slerp. */
static void grid_block_sse(const float *a, const float *b, float u, const float *ca, const float *cb,
                           float (*res)[4])
{
    const __m128 vu = _mm_set1_ps(u), vv = _mm_set1_ps(1.0f - u);
#define LERP(c) _mm_add_ps(_mm_mul_ps(_mm_load_ps(a + (c) * 4), vv), _mm_mul_ps(_mm_load_ps(b + (c) * 4), vu))
    for (int c = 0; c < 3; c++) {
        _mm_store_ps(res[c], LERP(c));
        _mm_store_ps(res[7 + c], LERP(7 + c));
    }
    __m128 ax = _mm_load_ps(a + 12), ay = _mm_load_ps(a + 16), az = _mm_load_ps(a + 20), aw = _mm_load_ps(a + 24);
    __m128 bx = _mm_load_ps(b + 12), by = _mm_load_ps(b + 16), bz = _mm_load_ps(b + 20), bw = _mm_load_ps(b + 24);
    __m128 d = _mm_add_ps(_mm_add_ps(_mm_mul_ps(ax, bx), _mm_mul_ps(ay, by)),
                          _mm_add_ps(_mm_mul_ps(az, bz), _mm_mul_ps(aw, bw)));
    const __m128 sign_bit = _mm_set1_ps(-0.0f);
    __m128 sgn = _mm_and_ps(d, sign_bit); /* hemisphere: flip b where the dot is negative */
    d = _mm_xor_ps(d, sgn);
    int slow = _mm_movemask_ps(_mm_cmplt_ps(d, _mm_set1_ps(BW_SLERP_SERIES_MIN_COS)));
    __m128 x = _mm_sub_ps(_mm_min_ps(d, _mm_set1_ps(1.0f)), _mm_set1_ps(1.0f));
    __m128 ka = _mm_set1_ps(ca[BW_SLERP_SERIES_TERMS - 1]), kb = _mm_set1_ps(cb[BW_SLERP_SERIES_TERMS - 1]);
    for (int i = BW_SLERP_SERIES_TERMS - 2; i >= 0; i--) {
        ka = _mm_add_ps(_mm_mul_ps(ka, x), _mm_set1_ps(ca[i]));
        kb = _mm_add_ps(_mm_mul_ps(kb, x), _mm_set1_ps(cb[i]));
    }
    kb = _mm_xor_ps(kb, sgn);
    __m128 rx = _mm_add_ps(_mm_mul_ps(ka, ax), _mm_mul_ps(kb, bx));
    __m128 ry = _mm_add_ps(_mm_mul_ps(ka, ay), _mm_mul_ps(kb, by));
    __m128 rz = _mm_add_ps(_mm_mul_ps(ka, az), _mm_mul_ps(kb, bz));
    __m128 rw = _mm_add_ps(_mm_mul_ps(ka, aw), _mm_mul_ps(kb, bw));
    __m128 n2 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(rx, rx), _mm_mul_ps(ry, ry)),
                           _mm_add_ps(_mm_mul_ps(rz, rz), _mm_mul_ps(rw, rw)));
    __m128 n = _mm_sub_ps(_mm_set1_ps(1.5f), _mm_mul_ps(_mm_set1_ps(0.5f), n2));
    _mm_store_ps(res[3], _mm_mul_ps(rx, n));
    _mm_store_ps(res[4], _mm_mul_ps(ry, n));
    _mm_store_ps(res[5], _mm_mul_ps(rz, n));
    _mm_store_ps(res[6], _mm_mul_ps(rw, n));
    __m128 cov = _mm_mul_ps(LERP(10), _mm_sub_ps(_mm_set1_ps(1.0f), LERP(11)));
    /* max(NaN, 0) is 0: a NaN coverage becomes 0 */
    _mm_store_ps(res[10], _mm_min_ps(_mm_max_ps(cov, _mm_setzero_ps()), _mm_set1_ps(1.0f)));
#undef LERP
    for (int l = 0; slow && l < 4; l++, slow >>= 1) {
        if (!(slow & 1)) continue;
        float qa[4] = {a[12 + l], a[16 + l], a[20 + l], a[24 + l]}, qb[4] = {b[12 + l], b[16 + l], b[20 + l], b[24 + l]};
        float q[4];
        bw_quat_slerp(qa, qb, u, q);
        for (int c = 0; c < 4; c++) res[3 + c][l] = q[c];
    }
}
#endif

/* The uniform-grid fast path: two adjacent rows, one u for every joint,
 * four joints per block (layout in clip_internal.h). */
static void sample_grid(const bw_binding *binding, const bw_transform *rest, int rest_count, float time,
                        bw_pose *out)
{
    const bw_clip_grid *g = binding->clip->grid;
    const bw_grid_binding *gb = binding->grid;
    int k;
    float u;
    grid_segment(g, time, &k, &u);
    const float *ra = g->rows + (size_t)k * (size_t)g->row_floats;
    const float *rb = ra + g->row_floats;
    float ca[BW_SLERP_SERIES_TERMS], cb[BW_SLERP_SERIES_TERMS];
    bw_slerp_series(1.0f - u, ca);
    bw_slerp_series(u, cb);
    _Alignas(16) float res[BW_GRID_COMPONENTS][4];
    for (int blk = 0; blk < gb->block_count; blk++) {
        const float *a = ra + (size_t)blk * BW_GRID_BLOCK_FLOATS, *b = rb + (size_t)blk * BW_GRID_BLOCK_FLOATS;
#ifdef GRID_SSE
        if (!bw_sample_force_portable) grid_block_sse(a, b, u, ca, cb, res);
        else
#endif
            grid_block_scalar(a, b, u, ca, cb, res);
        const int *lanes = gb->lane_joint + (size_t)blk * 4;
        for (int l = 0; l < 4; l++) {
            const int j = lanes[l];
            if (j >= 0 && j < out->joint_count) store_lane((const float(*)[4])res, l, &out->joints[j], &out->coverage[j]);
        }
    }
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

void bw_sample_clip(const bw_binding *binding, const bw_rig *rig, float time, bw_pose *out)
{
    if (!out) return;
    /* A binding made for another layout would write to the wrong joints:
     * such a misuse samples nothing rather than scrambling the pose. */
    if (!binding || !binding->clip || (rig && bw_rig_layout_signature(rig) != binding->layout_signature)) {
        clear_pose(out);
        return;
    }
    /* joints (and curves) the clip does not drive read as identity with
     * coverage 0; when it drives all of them every value is overwritten */
    if (binding->driven_joint_count < out->joint_count || binding->driven_curve_count < out->curve_count)
        clear_pose(out);
    if (!isfinite(time)) time = 0.0f;

    const bw_track_data *tracks = binding->clip->tracks;
    const bw_transform *rest = rig ? bw_rig_rest_pose(rig) : NULL;
    const int rest_count = rig ? bw_rig_joint_count(rig) : 0;
    if (binding->grid) {
        sample_grid(binding, rest, rest_count, time, out);
        for (int d = 0; d < binding->driven_curve_count; d++) {
            const bw_curve_binding *cb = &binding->driven_curves[d];
            if (cb->curve >= out->curve_count) continue;
            sample_track(&tracks[cb->track], time, &out->curves[cb->curve]);
            out->curve_coverage[cb->curve] = 1.0f;
        }
        return;
    }
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
        float coverage = pose_weight * (1.0f - mask_weight);
        out->joints[j] = x;
        out->coverage[j] = coverage > 0.0f ? (coverage < 1.0f ? coverage : 1.0f) : 0.0f; /* NaN → 0 */
    }
    for (int d = 0; d < binding->driven_curve_count; d++) {
        const bw_curve_binding *cb = &binding->driven_curves[d];
        if (cb->curve >= out->curve_count) continue;
        sample_track(&tracks[cb->track], time, &out->curves[cb->curve]);
        out->curve_coverage[cb->curve] = 1.0f;
    }
}
