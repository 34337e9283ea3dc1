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
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bw_math.h"
#include "graph_internal.h"

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
 * the scalar form, and the tail of the four-joint one. */
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

#if defined(__GNUC__)
/* ---- four joints at once (GCC/Clang vector extensions: SSE on x86) ----
 * add_joint for four joints sharing one a in (0, 1], a joint whose delta
 * is outside the series' range (or whose norm degenerates) taking
 * add_joint itself (the exact form): the same operations in the
 * same order lane by lane (no fused multiply-adds in this unit), so the
 * numbers equal add_joint's (tests/test_graph.c checks within 1e-6).
 * Translation, scale and the finiteness check run on the four lanes too;
 * each joint is stored only when all its fields are finite. */
#if defined(__SSE__)
#include <immintrin.h>
#endif
typedef float quad __attribute__((vector_size(16)));
typedef int32_t quad_mask __attribute__((vector_size(16)));
#if defined(__clang__)
#define QUAD_SHUFFLE(a, b, i0, i1, i2, i3) __builtin_shufflevector((a), (b), i0, i1, i2, i3)
#else
#define QUAD_SHUFFLE(a, b, i0, i1, i2, i3) __builtin_shuffle((a), (b), (quad_mask){i0, i1, i2, i3})
#endif

/* v[0..3] = 4 quaternions (rows) <-> x, y, z, w of the four (columns) */
static inline void transpose4(quad v[4])
{
    quad t0 = QUAD_SHUFFLE(v[0], v[1], 0, 4, 1, 5), t1 = QUAD_SHUFFLE(v[2], v[3], 0, 4, 1, 5);
    quad t2 = QUAD_SHUFFLE(v[0], v[1], 2, 6, 3, 7), t3 = QUAD_SHUFFLE(v[2], v[3], 2, 6, 3, 7);
    v[0] = QUAD_SHUFFLE(t0, t1, 0, 1, 4, 5);
    v[1] = QUAD_SHUFFLE(t0, t1, 2, 3, 6, 7);
    v[2] = QUAD_SHUFFLE(t2, t3, 0, 1, 4, 5);
    v[3] = QUAD_SHUFFLE(t2, t3, 2, 3, 6, 7);
}

static inline void load_rotations(const bw_pose *p, int j, quad v[4])
{
    for (int k = 0; k < 4; k++) memcpy(&v[k], p->joints[j + k].r, sizeof v[k]);
    transpose4(v);
}

static inline quad quad_set1(float x) { return (quad){x, x, x, x}; }

static inline quad quad_select(quad_mask m, quad a, quad b)
{
    return (quad)(((quad_mask)a & m) | ((quad_mask)b & ~m));
}

/* bw_slerp_series_eval_estrin on 4 lanes (the series' 8 terms for each) */
BW_DEFINE_SLERP_ESTRIN8(series_estrin_quad, quad)

/* The rotations of joints j..j+3 as x, y, z, w lanes in rot[0..3],
 * normalized; the lanes whose delta is outside the series' range or whose
 * norm is degenerate come out false in the mask (their numbers are not to
 * be used: the caller takes add_joint for them). */
static inline quad_mask rotations4(const bw_pose *out, const bw_pose *pose, const bw_pose *ref, int j, const float *ca,
                              const float *cb, quad rot[4])
{
    quad p[4], r[4], x[4];
    load_rotations(pose, j, p);
    load_rotations(ref, j, r);
    load_rotations(out, j, x);
    /* delta = conj(r) · p, bw_quat_mul's terms in its order */
    quad ix = -r[0], iy = -r[1], iz = -r[2], iw = r[3];
    quad dx = iw * p[0] + ix * p[3] + iy * p[2] - iz * p[1];
    quad dy = iw * p[1] - ix * p[2] + iy * p[3] + iz * p[0];
    quad dz = iw * p[2] + ix * p[1] - iy * p[0] + iz * p[3];
    quad dw = iw * p[3] - ix * p[0] - iy * p[1] - iz * p[2];
    quad sign = quad_select(dw < 0.0f, quad_set1(-1.0f), quad_set1(1.0f)), w = sign * dw;
    quad_mask good = w >= BW_SLERP_SERIES_MIN_COS;
    w = quad_select(w > 1.0f, quad_set1(1.0f), w);
    quad ka = series_estrin_quad(ca, w), kb = sign * series_estrin_quad(cb, w);
    quad sx = kb * dx, sy = kb * dy, sz = kb * dz, sw = ka + kb * dw;
    /* x.r · step */
    quad ox = x[3] * sx + x[0] * sw + x[1] * sz - x[2] * sy;
    quad oy = x[3] * sy - x[0] * sz + x[1] * sw + x[2] * sx;
    quad oz = x[3] * sz + x[0] * sy - x[1] * sx + x[2] * sw;
    quad ow = x[3] * sw - x[0] * sx - x[1] * sy - x[2] * sz;
    /* bw_quat_normalize: the dot in its order; every norm must be usable */
    quad n2 = ox * ox + oy * oy + oz * oz + ow * ow;
    good &= (n2 > 1e-30f) & (n2 < INFINITY);
#if defined(__SSE__)
    quad root = (quad)_mm_sqrt_ps((__m128)n2);
#else
    quad root;
    for (int k = 0; k < 4; k++) root[k] = sqrtf(n2[k]);
#endif
    quad inv = 1.0f / root;
    rot[0] = ox * inv;
    rot[1] = oy * inv;
    rot[2] = oz * inv;
    rot[3] = ow * inv;
    return good;
}

/* The translation and scale of joints j..j+3 as lanes: t[0..2] = x, y, z
 * of t, sc[0..2] = x, y, z of s. Four floats per joint from its start (t,
 * then r's x) and from r's w (then s), transposed: whole-vector loads in
 * the joint's bounds instead of a scalar load per lane; the same values. */
_Static_assert(offsetof(bw_transform, r) == 3 * sizeof(float) && offsetof(bw_transform, s) == 7 * sizeof(float) &&
                   sizeof(bw_transform) == 10 * sizeof(float),
               "load_t_s reads a transform as 10 packed floats");
static inline void load_t_s(const bw_pose *p, int j, quad t[3], quad sc[3])
{
    quad a[4], b[4];
    for (int k = 0; k < 4; k++) {
        const char *x = (const char *)&p->joints[j + k]; /* floats 0..3 and 6..9 of the transform */
        memcpy(&a[k], x, sizeof a[k]);
        memcpy(&b[k], x + 6 * sizeof(float), sizeof b[k]);
    }
    transpose4(a);
    transpose4(b);
    for (int k = 0; k < 3; k++) {
        t[k] = a[k];
        sc[k] = b[k + 1];
    }
}

/* finite ⇔ x − x == 0 (∞ − ∞ and NaN − NaN are NaN) */
static inline quad_mask quad_finite(quad x) { return (quad_mask)((x - x) == 0.0f); }

/* add_joint for joints j..j+3 sharing a in (0, 1] (ca, cb its series);
 * the lanes rotations4 declines go through add_joint itself. */
static inline void add_block(bw_pose *out, const bw_pose *pose, const bw_pose *ref, int j, float a, const float *ca,
                             const float *cb)
{
    quad rot[4];
    quad_mask good = rotations4(out, pose, ref, j, ca, cb, rot);
    quad t[3], sc[3], pt[3], ps[3], rt[3], rsc[3];
    load_t_s(out, j, t, sc);
    load_t_s(pose, j, pt, ps);
    load_t_s(ref, j, rt, rsc);
    quad_mask ok = quad_finite(rot[0]) & quad_finite(rot[1]) & quad_finite(rot[2]) & quad_finite(rot[3]);
    for (int k = 0; k < 3; k++) {
        /* add_translation_scale, lane by lane */
        t[k] = t[k] + a * (pt[k] - rt[k]);
        quad ratio = quad_select(rsc[k] != 0.0f, ps[k] / rsc[k], quad_set1(1.0f));
        sc[k] = sc[k] * (1.0f + a * (ratio - 1.0f));
        ok &= quad_finite(t[k]) & quad_finite(sc[k]);
    }
    for (int l = 0; l < 4; l++) {
        if (!good[l]) {
            add_joint(out, pose, ref, j + l, a, ca, cb);
            continue;
        }
        if (!ok[l]) continue;
        bw_transform *x = &out->joints[j + l];
        for (int k = 0; k < 3; k++) {
            x->t[k] = t[k][l];
            x->s[k] = sc[k][l];
        }
        for (int k = 0; k < 4; k++) x->r[k] = rot[k][l];
    }
}
#endif

void bw_graph_add_layer(bw_pose *out, const bw_pose *pose, const bw_pose *ref, const float *mask, float weight)
{
    float ca[BW_SLERP_SERIES_TERMS] = {0}, cb[BW_SLERP_SERIES_TERMS] = {0}, a_series = -1.0f; /* the a of ca, cb */
    int j = 0;
#if defined(__GNUC__)
    for (const int n = out->joint_count; j + 4 <= n; j += 4) {
        float a[4];
        for (int k = 0; k < 4; k++) a[k] = joint_weight(pose, mask, weight, j + k);
        if (a[0] > 0.0f && a[0] <= 1.0f && a[1] == a[0] && a[2] == a[0] && a[3] == a[0]) {
            series_for(a[0], &a_series, ca, cb);
            add_block(out, pose, ref, j, a[0], ca, cb);
            continue;
        }
        for (int k = 0; k < 4; k++) {
            if (!(a[k] > 0.0f) || !isfinite(a[k])) continue;
            series_for(a[k], &a_series, ca, cb);
            add_joint(out, pose, ref, j + k, a[k], ca, cb);
        }
    }
#endif
    add_joints_from(out, pose, ref, mask, weight, j, &a_series, ca, cb);
}
