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
 * the (shortest-arc) angle. */
static void quat_pow(const float *q, float a, float *out)
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

void bw_graph_add_layer(bw_pose *out, const bw_pose *pose, const bw_pose *ref, const float *mask, float weight)
{
    for (int j = 0; j < out->joint_count; j++) {
        float a = weight * (mask ? mask[j] : 1.0f) * bw_clamp01(pose->coverage[j]);
        if (!(a > 0.0f) || !isfinite(a)) continue;
        const bw_transform *p = &pose->joints[j], *r = &ref->joints[j];
        bw_transform x = out->joints[j];
        float inv[4], delta[4], step[4];
        bw_quat_conjugate(r->r, inv);
        bw_quat_mul(inv, p->r, delta);
        bw_quat_normalize(delta);
        quat_pow(delta, a, step);
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
