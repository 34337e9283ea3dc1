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

/* The slerp series Σ c_i (x − 1)^i by Estrin's scheme (pairs, then d², d⁴):
 * a chain of 4 dependent steps instead of Horner's 8; same terms, the
 * rounding differs by a few float ulps. */
_Static_assert(BW_SLERP_SERIES_TERMS == 8, "series_estrin sums exactly 8 terms");
static inline float series_estrin(const float *c, float x)
{
    float d = x - 1.0f, d2 = d * d, d4 = d2 * d2;
    float p01 = c[0] + c[1] * d, p23 = c[2] + c[3] * d, p45 = c[4] + c[5] * d, p67 = c[6] + c[7] * d;
    return (p01 + d2 * p23) + d4 * (p45 + d2 * p67);
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
    float ka = series_estrin(ca, w), kb = sign * series_estrin(cb, w);
    out[0] = kb * q[0];
    out[1] = kb * q[1];
    out[2] = kb * q[2];
    out[3] = ka + kb * q[3];
}

void bw_graph_quat_pow_fast(const float *q, float a, const float *ca, const float *cb, float *out)
{
    quat_pow_fast(q, a, ca, cb, out);
}

void bw_graph_add_layer(bw_pose *out, const bw_pose *pose, const bw_pose *ref, const float *mask, float weight)
{
    float ca[BW_SLERP_SERIES_TERMS] = {0}, cb[BW_SLERP_SERIES_TERMS] = {0}, a_series = -1.0f; /* the a of ca, cb */
    for (int j = 0; j < out->joint_count; j++) {
        float a = weight * (mask ? mask[j] : 1.0f) * bw_clamp01(pose->coverage[j]);
        if (!(a > 0.0f) || !isfinite(a)) continue;
        if (a != a_series && a <= 1.0f) { /* once per distinct a in a row: usually once per layer */
            bw_slerp_series(1.0f - a, ca);
            bw_slerp_series(a, cb);
            a_series = a;
        }
        const bw_transform *p = &pose->joints[j], *r = &ref->joints[j];
        bw_transform x = out->joints[j];
        float inv[4], delta[4], step[4];
        bw_quat_conjugate(r->r, inv);
        bw_quat_mul(inv, p->r, delta);
        /* delta is unit to float rounding (both inputs are); the result is normalized below */
        quat_pow_fast(delta, a, ca, cb, step);
        bw_quat_mul(x.r, step, x.r);
        bw_quat_normalize(x.r);
        for (int k = 0; k < 3; k++) {
            x.t[k] += a * (p->t[k] - r->t[k]);
            float ratio = r->s[k] != 0.0f ? p->s[k] / r->s[k] : 1.0f;
            x.s[k] *= 1.0f + a * (ratio - 1.0f);
        }
        if (bw_transform_isfinite(&x)) out->joints[j] = x;
    }
    for (int c = 0; c < out->curve_count; c++) {
        float a = weight * bw_clamp01(pose->curve_coverage[c]);
        if (!(a > 0.0f) || !isfinite(a)) continue;
        float v = out->curves[c] + a * (pose->curves[c] - ref->curves[c]);
        if (isfinite(v)) out->curves[c] = v;
    }
}
