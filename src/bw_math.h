/* bw_math.h - private quaternion and transform helpers for the core
 * (over cglm where it has the operation). Quaternions are float[4] x,y,z,w.
 * Every function tolerates aliasing of input and output unless noted. */
#ifndef BW_MATH_H
#define BW_MATH_H

#include <cglm/cglm.h>
#include <math.h>

#include "blendwerk/types.h"
#include "common.h"

static inline float bw_quat_dot(const float *a, const float *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}

/* Divide v[0..n) by its largest absolute component, so that the largest
 * becomes ±1 and a squared length lies in [1, n]: a vector of any finite
 * length (1e-45 to 3e38) keeps its direction where squaring it would
 * underflow to 0 or overflow to inf. False (v untouched) when every
 * component is 0 or one is not finite. Off the hot path: callers take it
 * only when the plain squared length is out of range (bw_rescale_if_needed
 * below, bw_quat_normalize). */
static inline bool bw_scale_by_largest(float *v, int n)
{
    float m = 0.0f;
    for (int i = 0; i < n; i++) {
        if (!isfinite(v[i])) return false;
        float a = fabsf(v[i]);
        if (a > m) m = a;
    }
    if (!(m > 0.0f)) return false;
    for (int i = 0; i < n; i++) v[i] /= m; /* a division: 1 / m overflows for a subnormal m */
    return true;
}

/* v[0..n) as it is when its squared length is a normal float (the common
 * case: nothing done), else scaled by bw_scale_by_largest; false when v
 * is zero or not finite (then untouched). For callers on a per-frame path
 * that must also take any length. */
static inline bool bw_rescale_if_needed(float *v, int n)
{
    float s = 0.0f;
    for (int i = 0; i < n; i++) s += v[i] * v[i];
    return (s > 1e-30f && s < 1e30f) || bw_scale_by_largest(v, n);
}

/* Normalize q in place to q / |q|, for any finite non-zero q (a squared
 * length out of float range is rescaled first); a zero or non-finite
 * quaternion becomes identity. */
static inline void bw_quat_normalize(float *q)
{
    float n2 = bw_quat_dot(q, q);
    if (!(n2 > 1e-30f) || !isfinite(n2)) {
        if (!bw_scale_by_largest(q, 4)) {
            q[0] = q[1] = q[2] = 0.0f;
            q[3] = 1.0f;
            return;
        }
        n2 = bw_quat_dot(q, q);
    }
    float inv = 1.0f / sqrtf(n2);
    q[0] *= inv; q[1] *= inv; q[2] *= inv; q[3] *= inv;
}

/* out = a * b (apply b, then a). */
static inline void bw_quat_mul(const float *a, const float *b, float *out)
{
    float x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    float y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    float z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    float w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    out[0] = x; out[1] = y; out[2] = z; out[3] = w;
}

static inline void bw_quat_conjugate(const float *q, float *out)
{
    out[0] = -q[0]; out[1] = -q[1]; out[2] = -q[2]; out[3] = q[3];
}

/* Rotate vector v by unit quaternion q. */
static inline void bw_quat_rotate(const float *q, const float *v, float *out)
{
    /* t = 2 * cross(q.xyz, v); out = v + w * t + cross(q.xyz, t) */
    float tx = 2.0f * (q[1] * v[2] - q[2] * v[1]);
    float ty = 2.0f * (q[2] * v[0] - q[0] * v[2]);
    float tz = 2.0f * (q[0] * v[1] - q[1] * v[0]);
    float ox = v[0] + q[3] * tx + (q[1] * tz - q[2] * ty);
    float oy = v[1] + q[3] * ty + (q[2] * tx - q[0] * tz);
    float oz = v[2] + q[3] * tz + (q[0] * ty - q[1] * tx);
    out[0] = ox; out[1] = oy; out[2] = oz;
}

/* sin(u θ) / sin θ for x = cos θ in [0.69, 1], without trigonometry: the
 * series Σ a_i (x − 1)^i with a_0 = u, a_i = a_{i−1} (u² − i²) / (i (2i + 1)),
 * cut after 8 terms. For θ < 0.8 rad (key rotations less than 92° apart)
 * its error is below 4e-8, under float precision; larger angles use the
 * trigonometric form. Shared by every slerp so fast and plain paths agree. */
#define BW_SLERP_SERIES_TERMS 8
/* The series' coefficients a_0..a_7 for one u (shared by every joint of a
 * sample, since u is the same for all rows of a uniform grid). */
/* The first `terms` (1..BW_SLERP_SERIES_TERMS) coefficients only: the
 * same numbers, for a caller whose kernel reads no more (a short series,
 * clip_internal.h); each term waits on the one before. */
static inline void bw_slerp_series_terms(float u, float *c, int terms)
{
    /* 1 / (i (2i + 1)) as constants: the per-sample setup then has no
     * division (it runs once per sampled or mixed clip per frame) */
    static const float inv[BW_SLERP_SERIES_TERMS] = {0.0f,         1.0f / 3.0f,  1.0f / 10.0f, 1.0f / 21.0f,
                                                     1.0f / 36.0f, 1.0f / 55.0f, 1.0f / 78.0f, 1.0f / 105.0f};
    float u2 = u * u, a = u;
    c[0] = u;
    for (int i = 1; i < terms; i++) {
        a *= (u2 - (float)(i * i)) * inv[i];
        c[i] = a;
    }
}
static inline void bw_slerp_series(float u, float *c) { bw_slerp_series_terms(u, c, BW_SLERP_SERIES_TERMS); }
/* Σ c_i (x − 1)^i by Horner's rule. */
static inline float bw_slerp_series_eval(const float *c, float x)
{
    float d = x - 1.0f, sum = c[BW_SLERP_SERIES_TERMS - 1];
    for (int i = BW_SLERP_SERIES_TERMS - 2; i >= 0; i--) sum = sum * d + c[i];
    return sum;
}
/* The same sum by Estrin's scheme (pairs, then d², d⁴): a chain of 4
 * dependent steps instead of Horner's 8; same terms, the rounding differs
 * from bw_slerp_series_eval by a few float ulps. */
_Static_assert(BW_SLERP_SERIES_TERMS == 8, "bw_slerp_series_eval_estrin sums exactly 8 terms");
static inline float bw_slerp_series_eval_estrin(const float *c, float x)
{
    float d = x - 1.0f, d2 = d * d, d4 = d2 * d2;
    float p01 = c[0] + c[1] * d, p23 = c[2] + c[3] * d, p45 = c[4] + c[5] * d, p67 = c[6] + c[7] * d;
    return (p01 + d2 * p23) + d4 * (p45 + d2 * p67);
}
static inline float bw_slerp_coefficient(float u, float x)
{
    float c[BW_SLERP_SERIES_TERMS];
    bw_slerp_series(u, c);
    return bw_slerp_series_eval(c, x);
}
#define BW_SLERP_SERIES_MIN_COS 0.69f

/* Shortest-arc spherical interpolation of unit quaternions, normalized. */
static inline void bw_quat_slerp(const float *a, const float *b, float u, float *out)
{
    float d = bw_quat_dot(a, b);
    float sign = 1.0f;
    if (d < 0.0f) { d = -d; sign = -1.0f; }
    if (d > 1.0f) d = 1.0f;
    float ka, kb;
    if (d >= BW_SLERP_SERIES_MIN_COS) {
        ka = bw_slerp_coefficient(1.0f - u, d);
        kb = bw_slerp_coefficient(u, d);
    } else {
        float theta = acosf(d);
        float s = sinf(theta);
        ka = sinf((1.0f - u) * theta) / s;
        kb = sinf(u * theta) / s;
    }
    kb *= sign;
    float r[4] = {ka * a[0] + kb * b[0], ka * a[1] + kb * b[1], ka * a[2] + kb * b[2], ka * a[3] + kb * b[3]};
    bw_quat_normalize(r);
    out[0] = r[0]; out[1] = r[1]; out[2] = r[2]; out[3] = r[3];
}

/* Rotation of `angle` radians about the unit axis (ax, ay, az). */
static inline void bw_quat_from_axis_angle(float ax, float ay, float az, float angle, float *out)
{
    float s = sinf(angle * 0.5f);
    out[0] = ax * s; out[1] = ay * s; out[2] = az * s; out[3] = cosf(angle * 0.5f);
}

/* Every field finite. */
static inline int bw_transform_isfinite(const bw_transform *x)
{
    return bw_isfinite3(x->t) && bw_isfinite4(x->r) && bw_isfinite3(x->s);
}

/* An angle difference d (radians) reduced to [−π, π], the shortest arc, for
 * angle curves (sampling and mixing share it). fmodf is exact and so is the
 * one correction (Sterbenz), so the result is d − 2πk exactly; a half turn
 * (|result| = π) keeps the sign of d, so it turns the way d points.
 * NaN for a non-finite d. */
static inline float bw_wrap_angle(float d)
{
    const float pi = (float)M_PI, two_pi = (float)(2.0 * M_PI);
    d = fmodf(d, two_pi); /* (−2π, 2π), sign of d */
    if (d > pi) d -= two_pi;
    else if (d < -pi) d += two_pi;
    return d;
}

#endif
