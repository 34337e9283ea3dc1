/* workload.h - the standard benchmark workload, rebuilt from the recipe in
 * ../shared/bench-ref/README.md (the yardstick's data, not its code): the
 * 64-joint humanoid of ozz_bench, four clips of 30, 40, 50 and 60 key
 * intervals at 30 keys/s whose translation, rotation (Euler angles → q =
 * qz·qy·qx, hemisphere-continuous) and scale curves are sums of two
 * seeded sinusoids periodic over the clip, and per-character phases in
 * [0, 10) s and layer weights 0.1 + U[0, 1) normalised, all drawn from one
 * xorshift32 stream in that order. bench.c checks its samples against a
 * plain evaluation of the same keys (binary search, lerp, nlerp).
 *
 * Growth runs use other joint counts: fewer joints are the first ones of
 * the humanoid (parent-first, so any prefix is a tree); more joints repeat
 * it, joint j ≥ 64 hanging under joint j − 64 with the rest offset and
 * curves recipe of joint j mod 64. */
#ifndef BENCH_WORKLOAD_H
#define BENCH_WORKLOAD_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define WL_BASE_JOINTS 64
#define WL_MAX_JOINTS 1024
#define WL_CLIPS 4
#define WL_FPS 30.0f

typedef struct wl_wave {
    float a[2], f[2], p[2];
} wl_wave;

/* per joint: rx ry rz tx ty tz sx sy sz */
typedef struct wl_curves {
    wl_wave w[9];
} wl_curves;

typedef struct wl_skeleton {
    int count;
    int parent[WL_MAX_JOINTS];
    float rest_t[WL_MAX_JOINTS][3];
} wl_skeleton;

static inline uint32_t wl_next(uint32_t *s)
{
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

static inline float wl_rand01(uint32_t *s) { return (float)(wl_next(s) >> 8) * (1.0f / 16777216.0f); }

static inline float wl_wave_at(const wl_wave *w, float t)
{
    return w->a[0] * sinf(w->f[0] * t + w->p[0]) + w->a[1] * sinf(w->f[1] * t + w->p[1]);
}

static inline wl_wave wl_wave_make(float amp, float omega, uint32_t *s)
{
    wl_wave w;
    for (int k = 0; k < 2; k++) {
        w.a[k] = amp * (0.3f + 0.7f * wl_rand01(s)) * (k ? 0.35f : 1.0f);
        w.f[k] = omega * (float)(1 + k + (int)(wl_rand01(s) * 2.0f));
        w.p[k] = 6.2831853f * wl_rand01(s);
    }
    return w;
}

static inline int wl_joint(wl_skeleton *sk, int parent, float x, float y, float z)
{
    int j = sk->count++;
    sk->parent[j] = parent;
    sk->rest_t[j][0] = x;
    sk->rest_t[j][1] = y;
    sk->rest_t[j][2] = z;
    return j;
}

/* side: +1 left, −1 right */
static inline void wl_arm(wl_skeleton *sk, int from, float side)
{
    int clavicle = wl_joint(sk, from, side * 0.03f, 0.1f, 0.0f);
    int upper = wl_joint(sk, clavicle, side * 0.15f, 0.0f, 0.0f);
    wl_joint(sk, upper, side * 0.14f, 0.0f, 0.0f);
    int fore = wl_joint(sk, upper, side * 0.28f, 0.0f, 0.0f);
    wl_joint(sk, fore, side * 0.13f, 0.0f, 0.0f);
    int hand = wl_joint(sk, fore, side * 0.26f, 0.0f, 0.0f);
    for (int f = 0; f < 5; f++) {
        int a = wl_joint(sk, hand, side * 0.09f, 0.0f, -0.04f + 0.02f * (float)f);
        int b = wl_joint(sk, a, side * 0.03f, 0.0f, 0.0f);
        wl_joint(sk, b, side * 0.025f, 0.0f, 0.0f);
    }
}

static inline void wl_leg(wl_skeleton *sk, int from, float side)
{
    int thigh = wl_joint(sk, from, side * 0.1f, -0.05f, 0.0f);
    wl_joint(sk, thigh, 0.0f, -0.2f, 0.0f);
    int calf = wl_joint(sk, thigh, 0.0f, -0.42f, 0.0f);
    int foot = wl_joint(sk, calf, 0.0f, -0.42f, 0.0f);
    int toe = wl_joint(sk, foot, 0.0f, -0.05f, 0.12f);
    wl_joint(sk, toe, 0.0f, 0.0f, 0.05f);
}

/* The humanoid, cut or repeated to `count` joints (1..WL_MAX_JOINTS). */
static inline void wl_skeleton_build(wl_skeleton *sk, int count)
{
    memset(sk, 0, sizeof *sk);
    int pelvis = wl_joint(sk, -1, 0.0f, 1.0f, 0.0f);
    int spine1 = wl_joint(sk, pelvis, 0.0f, 0.1f, 0.0f);
    int spine2 = wl_joint(sk, spine1, 0.0f, 0.12f, 0.0f);
    int chest = wl_joint(sk, spine2, 0.0f, 0.12f, 0.0f);
    int neck = wl_joint(sk, chest, 0.0f, 0.12f, 0.0f);
    int head = wl_joint(sk, neck, 0.0f, 0.1f, 0.0f);
    wl_joint(sk, head, 0.0f, 0.18f, 0.0f);
    wl_joint(sk, head, 0.0f, -0.02f, 0.08f);
    wl_joint(sk, head, 0.03f, 0.07f, 0.08f);
    wl_joint(sk, head, -0.03f, 0.07f, 0.08f);
    wl_arm(sk, chest, 1.0f);
    wl_arm(sk, chest, -1.0f);
    wl_leg(sk, pelvis, 1.0f);
    wl_leg(sk, pelvis, -1.0f);
    for (int j = WL_BASE_JOINTS; j < count; j++) {
        sk->parent[j] = j - WL_BASE_JOINTS;
        memcpy(sk->rest_t[j], sk->rest_t[j % WL_BASE_JOINTS], sizeof sk->rest_t[j]);
    }
    sk->count = count;
}

static inline void wl_quat_mul(const float *a, const float *b, float *o)
{
    float x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    float y = a[3] * b[1] + a[1] * b[3] + a[2] * b[0] - a[0] * b[2];
    float z = a[3] * b[2] + a[2] * b[3] + a[0] * b[1] - a[1] * b[0];
    float w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    o[0] = x, o[1] = y, o[2] = z, o[3] = w;
}

/* q = qz · qy · qx */
static inline void wl_euler(float x, float y, float z, float *q)
{
    const float qx[4] = {sinf(x * 0.5f), 0.0f, 0.0f, cosf(x * 0.5f)};
    const float qy[4] = {0.0f, sinf(y * 0.5f), 0.0f, cosf(y * 0.5f)};
    const float qz[4] = {0.0f, 0.0f, sinf(z * 0.5f), cosf(z * 0.5f)};
    float zy[4];
    wl_quat_mul(qz, qy, zy);
    wl_quat_mul(zy, qx, q);
}

/* Draw the curves of clip `c` (intervals 30, 40, 50, 60) for the 64 base
 * joints from the stream, in the recipe's order. */
static inline void wl_curves_draw(int intervals, uint32_t *s, wl_curves *out)
{
    const float omega = 2.0f * 3.14159265f / ((float)intervals / WL_FPS);
    static const float amp[9] = {0.6f, 0.4f, 0.5f, 0, 0, 0, 0.03f, 0.03f, 0.03f};
    for (int j = 0; j < WL_BASE_JOINTS; j++)
        for (int i = 0; i < 9; i++) {
            float a = i >= 3 && i < 6 ? (j == 0 ? 0.08f : 0.015f) : amp[i];
            out[j].w[i] = wl_wave_make(a, omega, s);
        }
}

/* Key k of a clip with `intervals` intervals: its time, and joint j's
 * translation, rotation (before the hemisphere fix) and scale. */
static inline float wl_key_time(int intervals, int k)
{
    return k == intervals ? (float)intervals / WL_FPS : (float)k / WL_FPS;
}

static inline void wl_key(const wl_skeleton *sk, const wl_curves *cv, int j, float t, float *tr, float *q, float *sc)
{
    const wl_wave *w = cv[j % WL_BASE_JOINTS].w;
    for (int d = 0; d < 3; d++) {
        tr[d] = sk->rest_t[j][d] + wl_wave_at(&w[3 + d], t);
        sc[d] = 1.0f + wl_wave_at(&w[6 + d], t);
    }
    wl_euler(wl_wave_at(&w[0], t), wl_wave_at(&w[1], t), wl_wave_at(&w[2], t), q);
}

#endif
