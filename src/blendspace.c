/* blendspace.c - blend-space weights and synchronized phase (SPEC §6;
 * contract in include/blendwerk/blendspace.h). Blend trees are in
 * blendtree.c.
 *
 * All arithmetic runs in double: squared distances of float positions up to
 * FLT_MAX stay finite there, so far-away or huge inputs still give finite
 * weights. Outputs are written only after every check has passed, which is
 * what lets the fallible calls leave their outputs untouched on failure.
 */
#include "blendwerk/blendspace.h"

#include <float.h>
#include <limits.h>
#include <math.h>

#include "blendspace_internal.h"
#include "common.h"

/* |p_j| below this fraction of the largest sample magnitude is "the
 * origin" in directional mode: idle samples authored as 1e-9 still count
 * as idle, and the test is independent of the space's units. */
#define ORIGIN_FRACTION 1e-6
/* Two directional samples whose band vector is shorter than this are the
 * same sample for banding purposes (duplicates share). */
#define BAND_EPS2 1e-12

/* A non-finite query coordinate counts as 0 (header contract). */
static double sanitize(float v) { return isfinite(v) ? (double)v : 0.0; }

static bool all_finite(const float *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i])) return false;
    return true;
}

/* ---- 1D ---- */

/* Where x falls among the thresholds: the threshold values on either side
 * (equal when x is on a threshold or clamped to an end), the fraction u
 * toward `hi`, how many members sit at each, and whether x lies outside
 * the range (-1 below, +1 above). Computed by scanning, so the thresholds
 * need no sorting and no scratch. */
typedef struct bracket {
    double lo, hi, u;
    int n_lo, n_hi;
    int outside;
} bracket;

static bracket find_bracket(const float *t, int count, double x)
{
    bracket b = {0, 0, 0, 0, 0, 0};
    double tmin = t[0], tmax = t[0];
    for (int i = 1; i < count; i++) {
        if (t[i] < tmin) tmin = t[i];
        if (t[i] > tmax) tmax = t[i];
    }
    if (x <= tmin) {
        b.lo = b.hi = tmin;
        b.outside = x < tmin ? -1 : 0;
    } else if (x >= tmax) {
        b.lo = b.hi = tmax;
        b.outside = x > tmax ? 1 : 0;
    } else {
        /* tmin < x < tmax, so both searches find a value. */
        double lo = tmin, hi = tmax;
        for (int i = 0; i < count; i++) {
            double v = t[i];
            if (v <= x && v > lo) lo = v;
            if (v > x && v < hi) hi = v;
        }
        b.lo = lo;
        if (lo == x) {
            b.hi = lo;
        } else {
            b.hi = hi;
            b.u = (x - lo) / (hi - lo);
        }
    }
    for (int i = 0; i < count; i++) {
        if ((double)t[i] == b.lo) b.n_lo++;
        if ((double)t[i] == b.hi) b.n_hi++;
    }
    return b;
}

static double bracket_weight(const bracket *b, double v)
{
    if (b->lo == b->hi) return v == b->lo ? 1.0 / b->n_lo : 0.0;
    double w = 0.0;
    if (v == b->lo) w += (1.0 - b->u) / b->n_lo;
    if (v == b->hi) w += b->u / b->n_hi;
    return w;
}

/* Locomotion rate of an end member at threshold t asked for speed x. */
static double rate_scale(double x, double t)
{
    if (fabs(t) <= 1e-6) return 1.0;
    double r = x / t;
    if (!(r > 0.0)) return 0.0;
    return r > BW_BLEND_MAX_RATE ? BW_BLEND_MAX_RATE : r;
}

bw_result bw_blend1d_weights(const float *thresholds, int count, float x, float *out_weights,
                             float *out_rates)
{
    if (!thresholds || !out_weights || count < 0) return BW_ERR_INVALID_ARGUMENT;
    if (count == 0) return BW_ERR_EMPTY;
    if (!all_finite(thresholds, count)) return BW_ERR_NON_FINITE;
    bw_blend1d_weights_checked(thresholds, count, x, out_weights, out_rates);
    return BW_OK;
}

void bw_blend1d_weights_checked(const float *thresholds, int count, float x, float *out_weights, float *out_rates)
{
    double xd = sanitize(x);
    bracket b = find_bracket(thresholds, count, xd);
    for (int i = 0; i < count; i++) {
        double v = thresholds[i];
        out_weights[i] = (float)bracket_weight(&b, v);
        if (out_rates) out_rates[i] = (float)(b.outside && v == b.lo ? rate_scale(xd, v) : 1.0);
    }
}

/* ---- 2D ---- */

/* An input exactly on one or more samples selects them (shared evenly).
 * Returns whether it did. */
static bool select_exact(const float *pts, int count, double x, double y, float *out)
{
    int k = 0;
    for (int i = 0; i < count; i++)
        if (pts[2 * i] == x && pts[2 * i + 1] == y) k++;
    if (!k) return false;
    for (int i = 0; i < count; i++)
        out[i] = (pts[2 * i] == x && pts[2 * i + 1] == y) ? 1.0f / (float)k : 0.0f;
    return true;
}

/* Every influence was 0: the nearest sample wins. Equally near samples at
 * different places share equally, and copies at one place split that
 * place's share (the same "duplicates share" rule as everywhere else). */
static double dist2(const float *pts, int i, double x, double y)
{
    double dx = pts[2 * i] - x, dy = pts[2 * i + 1] - y;
    return dx * dx + dy * dy;
}

static void select_nearest(const float *pts, int count, double x, double y, float *out)
{
    double best = INFINITY;
    for (int i = 0; i < count; i++)
        if (dist2(pts, i, x, y) < best) best = dist2(pts, i, x, y);
    int places = 0;
    for (int i = 0; i < count; i++) {
        out[i] = 0.0f;
        if (dist2(pts, i, x, y) != best) continue;
        bool first = true; /* the first member at its place counts the place */
        for (int k = 0; k < i && first; k++)
            if (pts[2 * k] == pts[2 * i] && pts[2 * k + 1] == pts[2 * i + 1]) first = false;
        places += first;
    }
    for (int i = 0; i < count; i++) {
        if (dist2(pts, i, x, y) != best) continue;
        int copies = 0;
        for (int k = 0; k < count; k++)
            if (pts[2 * k] == pts[2 * i] && pts[2 * k + 1] == pts[2 * i + 1]) copies++;
        out[i] = (float)(1.0 / ((double)places * copies));
    }
}

/* The raw influences (in [0, 1]), which the caller stored in `out`, are
 * normalized in place, or replaced by the nearest-sample fallback when
 * none is positive. */
static void normalize_or_nearest(const float *pts, int count, double x, double y, float *out)
{
    double sum = 0.0;
    for (int i = 0; i < count; i++) sum += out[i];
    if (!(sum > 0.0)) {
        select_nearest(pts, count, x, y, out);
        return;
    }
    for (int i = 0; i < count; i++) out[i] = (float)(out[i] / sum);
}

/* The influence min(1, min_j h_ij) with the "any h < 0 gives 0" rule. */
static double band_min(double w, double h) { return h < 0.0 ? -1.0 : (h < w ? h : w); }

/* Duplicates of a sample do not bound its band; instead the group splits
 * the influence one sample there would have (w / multiplicity), so adding
 * a copy of a sample changes nothing but how its weight is divided. */
static void cartesian_raw(const float *pts, int count, double x, double y, float *out)
{
    for (int i = 0; i < count; i++) {
        double xi = pts[2 * i], yi = pts[2 * i + 1];
        double w = 1.0;
        int copies = 1;
        for (int j = 0; j < count; j++) {
            if (j == i) continue;
            double ex = pts[2 * j] - xi, ey = pts[2 * j + 1] - yi;
            double d2 = ex * ex + ey * ey;
            if (d2 == 0.0) {
                copies++;
                continue;
            }
            if (w >= 0.0) w = band_min(w, 1.0 - ((x - xi) * ex + (y - yi) * ey) / d2);
        }
        out[i] = w < 0.0 ? 0.0f : (float)(w / copies);
    }
}

/* Unsigned angle between two vectors, 0 when either is (numerically) the
 * zero vector; atan2 of |cross| and dot stays accurate near 0 and π. */
static double unsigned_angle(double ax, double ay, double bx, double by)
{
    return atan2(fabs(ax * by - ay * bx), ax * bx + ay * by);
}

/* What directional_raw computes per sample and per pair of samples from
 * the samples alone or from the query once per sample, kept for one call
 * (sets of at most DIR_CACHE samples; larger ones compute each value where
 * it is used). Every cached number is the same double the uncached path
 * computes, so both give identical weights. */
enum { DIR_CACHE = 16 };
typedef struct dir_cache {
    double mag[DIR_CACHE];              /* |p_i| */
    double ang_p[DIR_CACHE];            /* unsigned angle p to p_i */
    double signed_p[DIR_CACHE];         /* signed angle from p_i to p, CCW positive */
    double pair[DIR_CACHE * DIR_CACHE]; /* unsigned angle p_i to p_j (symmetric) */
} dir_cache;

static double dir_mag(const dir_cache *c, const float *pts, int i)
{
    return c ? c->mag[i] : hypot(pts[2 * i], pts[2 * i + 1]);
}
static double dir_ang_p(const dir_cache *c, const float *pts, int i, double x, double y)
{
    return c ? c->ang_p[i] : unsigned_angle(x, y, pts[2 * i], pts[2 * i + 1]);
}
static double dir_signed_p(const dir_cache *c, const float *pts, int i, double x, double y)
{
    double xi = pts[2 * i], yi = pts[2 * i + 1];
    return c ? c->signed_p[i] : atan2(xi * y - yi * x, xi * x + yi * y);
}
static double dir_pair(const dir_cache *c, int count, const float *pts, int i, int j)
{
    return c ? c->pair[i * count + j] : unsigned_angle(pts[2 * i], pts[2 * i + 1], pts[2 * j], pts[2 * j + 1]);
}

static void dir_cache_fill(dir_cache *c, const float *pts, int count, double x, double y)
{
    for (int i = 0; i < count; i++) {
        c->mag[i] = dir_mag(NULL, pts, i);
        c->ang_p[i] = dir_ang_p(NULL, pts, i, x, y);
        c->signed_p[i] = dir_signed_p(NULL, pts, i, x, y);
        for (int j = 0; j < i; j++) /* unsigned_angle is symmetric to the bit (|cross|, dot commute) */
            c->pair[i * count + j] = c->pair[j * count + i] = dir_pair(NULL, count, pts, i, j);
    }
}

static void directional_raw(const float *pts, int count, double x, double y, bool use_cache, float *out)
{
    dir_cache store, *cache = NULL;
    if (use_cache && count <= DIR_CACHE) {
        dir_cache_fill(&store, pts, count, x, y);
        cache = &store;
    }
    double max_m = 0.0;
    for (int i = 0; i < count; i++) {
        double m = dir_mag(cache, pts, i);
        if (m > max_m) max_m = m;
    }
    const double eps = ORIGIN_FRACTION * max_m;
    const double mp = hypot(x, y);
    const bool p_origin = mp <= eps;

    for (int i = 0; i < count; i++) {
        double xi = pts[2 * i], yi = pts[2 * i + 1], mi = dir_mag(cache, pts, i);
        bool i_origin = mi <= eps;
        /* The angle between p and p_i (0 when p is at the origin) is used
         * by every pair whose other end is the origin. */
        double ang_p_i = p_origin || i_origin ? 0.0 : dir_ang_p(cache, pts, i, x, y);
        double w = 1.0;
        int copies = 1;
        for (int j = 0; j < count; j++) {
            if (j == i) continue;
            double xj = pts[2 * j], yj = pts[2 * j + 1], mj = dir_mag(cache, pts, j);
            bool j_origin = mj <= eps;
            if (i_origin && j_origin) { /* two idles: duplicates */
                copies++;
                continue;
            }
            double alpha, th_ij, th_ip;
            if (i_origin) {
                alpha = 1.0;
                th_ij = p_origin ? 0.0 : dir_ang_p(cache, pts, j, x, y);
                th_ip = 0.0;
            } else if (j_origin) {
                alpha = 1.0;
                th_ij = th_ip = ang_p_i;
            } else {
                alpha = 2.0;
                th_ij = dir_pair(cache, count, pts, i, j);
                if (p_origin) {
                    th_ip = th_ij;
                } else {
                    double s = dir_signed_p(cache, pts, i, x, y); /* from p_i to p, CCW positive */
                    if (th_ij >= 0.99 * M_PI) {
                        th_ip = fabs(s); /* p_j nearly opposite: no meaningful side */
                    } else {
                        double side = xi * yj - yi * xj; /* > 0 when p_j is CCW of p_i */
                        th_ip = side < 0.0 ? -s : s;
                    }
                }
            }
            double a = 0.5 * (mi + mj);
            double vij0 = alpha * th_ij, vij1 = (mj - mi) / a;
            double vip0 = alpha * th_ip, vip1 = (mp - mi) / a;
            double d2 = vij0 * vij0 + vij1 * vij1;
            if (d2 <= BAND_EPS2) { /* same direction and speed: duplicates */
                copies++;
                continue;
            }
            if (w >= 0.0) w = band_min(w, 1.0 - (vij0 * vip0 + vij1 * vip1) / d2);
        }
        out[i] = w < 0.0 ? 0.0f : (float)(w / copies);
    }
}

bw_result bw_blend2d_weights(const float *points_xy, int count, float x, float y, bw_blend2d_mode mode,
                             float *out_weights)
{
    if (!points_xy || !out_weights || count < 0) return BW_ERR_INVALID_ARGUMENT;
    if (mode != BW_BLEND2D_CARTESIAN && mode != BW_BLEND2D_DIRECTIONAL) return BW_ERR_INVALID_ARGUMENT;
    if (count == 0) return BW_ERR_EMPTY;
    if (count > BW_BLEND_MAX_MEMBERS) return BW_ERR_LIMIT; /* O(n²) per call (header) */
    if (!all_finite(points_xy, 2 * count)) return BW_ERR_NON_FINITE;
    bw_blend2d_weights_checked(points_xy, count, x, y, mode, out_weights);
    return BW_OK;
}

static void weights_2d(const float *points_xy, int count, float x, float y, bw_blend2d_mode mode, bool use_cache,
                       float *out_weights)
{
    double xd = sanitize(x), yd = sanitize(y);
    if (select_exact(points_xy, count, xd, yd, out_weights)) return;
    if (mode == BW_BLEND2D_CARTESIAN) cartesian_raw(points_xy, count, xd, yd, out_weights);
    else directional_raw(points_xy, count, xd, yd, use_cache, out_weights);
    normalize_or_nearest(points_xy, count, xd, yd, out_weights);
}

void bw_blend2d_weights_checked(const float *points_xy, int count, float x, float y, bw_blend2d_mode mode,
                                float *out_weights)
{
    weights_2d(points_xy, count, x, y, mode, true, out_weights);
}

void bw_blend2d_weights_uncached(const float *points_xy, int count, float x, float y, bw_blend2d_mode mode,
                                 float *out_weights)
{
    weights_2d(points_xy, count, x, y, mode, false, out_weights);
}

/* ---- grid ---- */

bw_result bw_blend_grid_weights(const float *x_values, int nx, const float *y_values, int ny, float x,
                                float y, float *out_weights)
{
    if (!x_values || !y_values || !out_weights || nx < 0 || ny < 0) return BW_ERR_INVALID_ARGUMENT;
    if (nx == 0 || ny == 0) return BW_ERR_EMPTY;
    if (nx > INT_MAX / ny) return BW_ERR_LIMIT;
    if (!all_finite(x_values, nx) || !all_finite(y_values, ny)) return BW_ERR_NON_FINITE;
    bw_blend_grid_weights_checked(x_values, nx, y_values, ny, x, y, out_weights);
    return BW_OK;
}

void bw_blend_grid_weights_checked(const float *x_values, int nx, const float *y_values, int ny, float x, float y,
                                   float *out_weights)
{
    /* Bilinear weights are the product of the two axes' 1D weights. */
    bracket bx = find_bracket(x_values, nx, sanitize(x));
    bracket by = find_bracket(y_values, ny, sanitize(y));
    for (int iy = 0; iy < ny; iy++) {
        double wy = bracket_weight(&by, y_values[iy]);
        for (int ix = 0; ix < nx; ix++) out_weights[iy * nx + ix] = (float)(wy * bracket_weight(&bx, x_values[ix]));
    }
}

/* ---- synchronized phase ---- */

float bw_blend_cycle_duration(const bw_blend_leaf *leaves, int count)
{
    if (!leaves || count <= 0) return 0.0f;
    double num = 0.0, den = 0.0;
    for (int i = 0; i < count; i++) {
        const bw_blend_leaf *l = &leaves[i];
        double w = l->weight, s = fabs((double)l->rate), len = l->length;
        if (!(w > BW_BLEND_NEGLIGIBLE) || !(s > BW_BLEND_NEGLIGIBLE) || !(len > 0.0)) continue;
        if (!isfinite(w) || !isfinite(s) || !isfinite(len)) continue;
        num += w * (len / s);
        den += w;
    }
    if (!(den > 0.0)) return 0.0f;
    double d = num / den;
    return isfinite(d) && d < (double)FLT_MAX ? (float)d : 0.0f;
}

/* Wrap into [0, 1); the float cast can round 0.99999999 up to 1. */
static float wrap01(double p)
{
    if (!isfinite(p)) return 0.0f;
    p -= floor(p);
    float f = (float)p;
    return f >= 1.0f || f < 0.0f ? 0.0f : f;
}

double bw_blend_phase_delta(float dt, float cycle_duration)
{
    if (isfinite(dt) && isfinite(cycle_duration) && cycle_duration > 0.0f) return (double)dt / cycle_duration;
    return 0.0;
}

float bw_blend_phase_advance(float progress, float dt, float cycle_duration)
{
    return wrap01(sanitize(progress) + bw_blend_phase_delta(dt, cycle_duration));
}

float bw_blend_leaf_time(const bw_blend_leaf *leaf, float progress)
{
    if (!leaf || !isfinite(leaf->length) || leaf->length <= 0.0f) return 0.0f;
    double p = wrap01(sanitize(progress));
    if (leaf->rate < 0.0f) p = 1.0 - p;
    return (float)(p * leaf->length);
}
