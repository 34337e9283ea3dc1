/* graph_additive.c - applying an additive graph layer (SPEC §7).
 *
 * An additive layer's plays are mixed twice with the same weights: their
 * poses at their clip times (`pose`) and their references, each clip's
 * own pose at time 0 (`ref`). Per joint the delta is pose ⊖ ref:
 *     Δt = t − t_ref,   Δr = r_ref⁻¹ · r (in the joint's local frame),
 *     Δs = s / s_ref (component-wise; 1 where s_ref is 0),
 * and with a = weight × mask × coverage (not clamped above: a layer
 * weight above 1 exaggerates):
 *     t += a·Δt,   r = r · Δr^a,   s *= 1 + a·(Δs − 1).
 * Curves add a × (c − c_ref). Only the current composition is read, never
 * last frame's output, so constant input cannot grow. A joint whose result
 * would not be finite keeps its value. Coverage is not changed: an
 * additive layer modifies what lies below, it covers nothing itself. */
#include <stdbool.h>

#include "bw_math.h"
#include "graph_internal.h"
#include "simd.h"

/* q^a for a unit quaternion: the rotation about the same axis by a times
 * the (shortest-arc) angle. The exact form (atan2, sin, cos) is the
 * reference; bw_graph_quat_pow_fast below is the per-frame path. */
void bw_graph_quat_pow_exact(const float *q, float a, float *out)
{
    float sign = q[3] < 0.0f ? -1.0f : 1.0f;
    float v[3] = {sign * q[0], sign * q[1], sign * q[2]}, w = sign * q[3];
    float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(len > 1e-7f)) { /* (nearly) identity: the first-order form */
        out[0] = a * v[0];
        out[1] = a * v[1];
        out[2] = a * v[2];
        out[3] = 1.0f;
        bw_quat_normalize(out);
        return;
    }
    float half = atan2f(len, w) * a, s = sinf(half) / len;
    out[0] = v[0] * s;
    out[1] = v[1] * s;
    out[2] = v[2] * s;
    out[3] = cosf(half);
}

/* q^a is slerp(identity, q, a): with θ the half angle (cos θ = w ≥ 0 once
 * the hemisphere is chosen), q^a = k_a·1 + k_b·q, k_a = sin((1 − a)θ) / sin θ,
 * k_b = sin(aθ) / sin θ. Both come from the slerp series of bw_math.h
 * (coefficients `ca` for 1 − a, `cb` for a, computed by the caller once per
 * a), valid for a in [0, 1] and w ≥ BW_SLERP_SERIES_MIN_COS (a joint's
 * delta under 92°); anything else takes the exact form. Inlined into the
 * joint loop; the exported name is for the tests. */
static inline void quat_pow_fast(const float *q, float a, const float *ca, const float *cb, float *out)
{
    float sign = q[3] < 0.0f ? -1.0f : 1.0f, w = sign * q[3];
    if (!(a <= 1.0f) || !(w >= BW_SLERP_SERIES_MIN_COS)) {
        bw_graph_quat_pow_exact(q, a, out);
        return;
    }
    if (w > 1.0f) w = 1.0f;
    float ka = bw_slerp_series_eval_estrin(ca, w), kb = sign * bw_slerp_series_eval_estrin(cb, w);
    out[0] = kb * q[0];
    out[1] = kb * q[1];
    out[2] = kb * q[2];
    out[3] = ka + kb * q[3];
}

void bw_graph_quat_pow_fast(const float *q, float a, const float *ca, const float *cb, float *out)
{
    quat_pow_fast(q, a, ca, cb, out);
}

/* t += a·Δt, s *= 1 + a·(Δs − 1), per component. */
static inline void add_translation_scale(bw_transform *x, const bw_transform *p, const bw_transform *r, float a)
{
    for (int k = 0; k < 3; k++) {
        x->t[k] += a * (p->t[k] - r->t[k]);
        float ratio = r->s[k] != 0.0f ? p->s[k] / r->s[k] : 1.0f;
        x->s[k] *= 1.0f + a * (ratio - 1.0f);
    }
}

/* One joint, the straightforward way (a in (0, ∞), finite; ca, cb the
 * series of a when a ≤ 1). */
static inline void add_joint(bw_pose *out, const bw_pose *pose, const bw_pose *ref, int j, float a, const float *ca,
                             const float *cb)
{
    const bw_transform *p = &pose->joints[j], *r = &ref->joints[j];
    bw_transform x = out->joints[j];
    float inv[4], delta[4], step[4];
    bw_quat_conjugate(r->r, inv);
    bw_quat_mul(inv, p->r, delta);
    /* delta is unit to float rounding (both inputs are); the result is normalized below */
    quat_pow_fast(delta, a, ca, cb, step);
    bw_quat_mul(x.r, step, x.r);
    bw_quat_normalize(x.r);
    add_translation_scale(&x, p, r, a);
    if (bw_transform_isfinite(&x)) out->joints[j] = x;
}

static inline float joint_weight(const bw_pose *pose, const float *mask, float weight, int j)
{
    return weight * (mask ? mask[j] : 1.0f) * bw_clamp01(pose->coverage[j]);
}

/* The series of a, recomputed only when a changed (usually once per layer). */
static inline void series_for(float a, float *a_series, float *ca, float *cb)
{
    if (a != *a_series && a <= 1.0f) {
        bw_slerp_series(1.0f - a, ca);
        bw_slerp_series(a, cb);
        *a_series = a;
    }
}

static void add_curves(bw_pose *out, const bw_pose *pose, const bw_pose *ref, float weight)
{
    for (int c = 0; c < out->curve_count; c++) {
        float a = weight * bw_clamp01(pose->curve_coverage[c]);
        if (!(a > 0.0f) || !isfinite(a)) continue;
        float v = out->curves[c] + a * (pose->curves[c] - ref->curves[c]);
        if (isfinite(v)) out->curves[c] = v;
    }
}

/* Joints [j, out->joint_count) one by one, then the curves: the whole of
 * the scalar form, and the tail after the block kernel's joints. */
static void add_joints_from(bw_pose *out, const bw_pose *pose, const bw_pose *ref, const float *mask, float weight,
                            int j, float *a_series, float *ca, float *cb)
{
    for (; j < out->joint_count; j++) {
        float a = joint_weight(pose, mask, weight, j);
        if (!(a > 0.0f) || !isfinite(a)) continue;
        series_for(a, a_series, ca, cb);
        add_joint(out, pose, ref, j, a, ca, cb);
    }
    add_curves(out, pose, ref, weight);
}

void bw_graph_add_layer_scalar(bw_pose *out, const bw_pose *pose, const bw_pose *ref, const float *mask, float weight)
{
    float ca[BW_SLERP_SERIES_TERMS] = {0}, cb[BW_SLERP_SERIES_TERMS] = {0}, a_series = -1.0f; /* the a of ca, cb */
    add_joints_from(out, pose, ref, mask, weight, 0, &a_series, ca, cb);
}

/* The block kernel's exact form for one joint (bw_add_slow_fn). */
typedef struct slow_joints {
    bw_pose *out;
    const bw_pose *pose, *ref;
    float *a_series, *ca, *cb;
} slow_joints;

static void slow_joint(void *user, int j, float a)
{
    slow_joints *s = (slow_joints *)user;
    series_for(a, s->a_series, s->ca, s->cb);
    add_joint(s->out, s->pose, s->ref, j, a, s->ca, s->cb);
}

void bw_graph_add_layer_on(bw_simd_path path, bw_pose *out, const bw_pose *pose, const bw_pose *ref, const float *mask,
                           float weight)
{
    float ca[BW_SLERP_SERIES_TERMS] = {0}, cb[BW_SLERP_SERIES_TERMS] = {0}, a_series = -1.0f; /* the a of ca, cb */
    slow_joints s = {out, pose, ref, &a_series, ca, cb};
    int j = bw_simd_kernels_for(path)->add_layer(out->joints, pose->joints, pose->coverage, ref->joints, mask, weight,
                                                 out->joint_count, slow_joint, &s);
    add_joints_from(out, pose, ref, mask, weight, j, &a_series, ca, cb);
}

void bw_graph_add_layer(bw_pose *out, const bw_pose *pose, const bw_pose *ref, const float *mask, float weight)
{
    bw_graph_add_layer_on(BW_SIMD_AUTO, out, pose, ref, mask, weight);
}
