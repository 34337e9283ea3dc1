/* bench_common.h - what the benchmark programs share: the counting
 * allocator that proves a frame loop allocates nothing, the workload's rig
 * and its clips as Blendwerk objects (keys from workload.h's recipe), and
 * the timing helpers (thread CPU / wall clocks, median of a series).
 * Header-only; each program includes it once. */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "blendwerk/blendwerk.h"
#include "workload.h"

/* ---- counting allocator ---- */
typedef struct alloc_stats {
    long long calls; /* allocations and reallocations (frees are not counted) */
    long long bytes; /* bytes live through this allocator */
} alloc_stats;

/* bw_allocator's shape (also lua_Alloc's): nsize 0 frees. */
static inline void *counting_alloc(void *user, void *ptr, size_t osize, size_t nsize)
{
    alloc_stats *st = (alloc_stats *)user;
    if (nsize == 0) {
        if (ptr) __atomic_sub_fetch(&st->bytes, (long long)osize, __ATOMIC_RELAXED);
        free(ptr);
        return NULL;
    }
    __atomic_add_fetch(&st->calls, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&st->bytes, (long long)nsize - (long long)(ptr ? osize : 0), __ATOMIC_RELAXED);
    return realloc(ptr, nsize);
}

static inline void bench_die(const char *prog, const char *what, bw_result r)
{
    fprintf(stderr, "%s: %s failed: %s\n", prog, what, bw_result_name(r));
    exit(1);
}

/* The skeleton as a rig, joints named j000, j001, ... */
static inline bw_rig *bench_make_rig(const wl_skeleton *sk, bw_allocator alloc)
{
    bw_rig_joint_desc *joints = calloc((size_t)sk->count, sizeof *joints);
    char(*names)[16] = calloc((size_t)sk->count, sizeof *names);
    for (int i = 0; i < sk->count; i++) {
        snprintf(names[i], sizeof names[i], "j%03d", i);
        joints[i].name = names[i];
        joints[i].parent = sk->parent[i];
        joints[i].rest = bw_transform_identity;
        memcpy(joints[i].rest.t, sk->rest_t[i], sizeof joints[i].rest.t);
    }
    bw_rig_desc desc = {.joints = joints, .joint_count = sk->count, .allocator = alloc};
    bw_rig *rig = NULL;
    bw_result r = bw_rig_create(&desc, &rig, NULL);
    if (r != BW_OK) bench_die("bench", "bw_rig_create", r);
    free(joints);
    free(names);
    return rig;
}

/* Extras a clip of the full-character bench has beyond the recipe. */
typedef struct bench_clip_extra {
    const char *name;             /* NULL: "bench" */
    float drift[3];               /* root (joint 0) translation added per second: root motion */
    const bw_marker_desc *markers; /* marker times in seconds */
    int marker_count;
} bench_clip_extra;

/* A looping clip of `intervals` key intervals at 30 keys/s on every
 * joint's translation, rotation and scale, from the curves `cv` (the
 * recipe: hemisphere-continuous rotations). */
static inline bw_clip *bench_make_clip(const wl_skeleton *sk, const wl_curves *cv, const bw_rig *rig, int intervals,
                                const bench_clip_extra *extra, bw_allocator alloc)
{
    const int keys = intervals + 1, nj = sk->count;
    float *times = malloc(sizeof(float) * (size_t)keys);
    float *values = malloc(sizeof(float) * (size_t)keys * 10 * (size_t)nj);
    bw_track_desc *tracks = calloc(3 * (size_t)nj, sizeof *tracks);
    for (int k = 0; k < keys; k++) times[k] = wl_key_time(intervals, k);
    for (int j = 0; j < nj; j++) {
        float *tv = values + (size_t)j * 10 * (size_t)keys, *rv = tv + 3 * keys, *sv = rv + 4 * keys;
        float prev[4] = {0, 0, 0, 1};
        for (int k = 0; k < keys; k++) {
            float *q = rv + 4 * k;
            wl_key(sk, cv, j, times[k], tv + 3 * k, q, sv + 3 * k);
            if (k && q[0] * prev[0] + q[1] * prev[1] + q[2] * prev[2] + q[3] * prev[3] < 0.0f)
                for (int d = 0; d < 4; d++) q[d] = -q[d]; /* hemisphere continuity, as the recipe */
            memcpy(prev, q, sizeof prev);
            if (j == 0 && extra)
                for (int d = 0; d < 3; d++) tv[3 * k + d] += extra->drift[d] * times[k];
        }
        const char *name = bw_rig_joint_name(rig, j);
        int p = bw_rig_joint_parent(rig, j);
        const bw_channel ch[3] = {BW_CHANNEL_TRANSLATION, BW_CHANNEL_ROTATION, BW_CHANNEL_SCALE};
        const float *vals[3] = {tv, rv, sv};
        for (int i = 0; i < 3; i++) {
            bw_track_desc *t = &tracks[3 * j + i];
            t->parent = p < 0 ? "" : bw_rig_joint_name(rig, p);
            t->joint = name;
            t->channel = ch[i];
            t->interp = BW_INTERP_EASED;
            t->key_count = keys;
            t->times = times;
            t->values = vals[i];
        }
    }
    bw_clip_desc desc = {0};
    desc.name = extra && extra->name ? extra->name : "bench";
    desc.tracks = tracks;
    desc.track_count = 3 * nj;
    desc.markers = extra ? extra->markers : NULL;
    desc.marker_count = extra ? extra->marker_count : 0;
    desc.length = (float)intervals / WL_FPS;
    desc.loop = true;
    desc.allocator = alloc;
    bw_clip *clip = NULL;
    bw_error err;
    bw_result r = bw_clip_create(&desc, &clip, &err);
    if (r != BW_OK) {
        fprintf(stderr, "%s\n", err.message);
        bench_die("bench", "bw_clip_create", r);
    }
    free(times);
    free(values);
    free(tracks);
    return clip;
}

/* ---- the options both programs take ---- */
typedef struct bench_options {
    int json, count, reps, quick_reps, frames, threads;
} bench_options;

/* Read argv[*i] if it is one of --quick, --json, --characters N, --reps R,
 * --frames F, --threads N (advancing *i past a value); false otherwise. */
static inline bool bench_common_option(int argc, char **argv, int *i, bench_options *o)
{
    const char *a = argv[*i];
    const bool has_value = *i + 1 < argc;
    int *value = !strcmp(a, "--characters") ? &o->count
                 : !strcmp(a, "--reps")     ? &o->reps
                 : !strcmp(a, "--frames")   ? &o->frames
                 : !strcmp(a, "--threads")  ? &o->threads
                                            : NULL;
    if (!strcmp(a, "--quick")) o->reps = o->quick_reps;
    else if (!strcmp(a, "--json")) o->json = 1;
    else if (value && has_value) *value = atoi(argv[++*i]);
    else return false;
    return true;
}

/* ---- timing ---- */
static inline double bench_now_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* A cheap fine-grained clock for timing short regions inside a measured
 * loop: the time-stamp counter where there is one (x86: ordered by lfence,
 * so the region's loads do not move across it), else CLOCK_MONOTONIC in ns.
 * Its unit is found by timing a whole block against bench_now_ns. */
#if defined(__x86_64__) || defined(__i386__)
static inline unsigned long long bench_ticks(void)
{
    _mm_lfence();
    unsigned long long t = __rdtsc();
    _mm_lfence();
    return t;
}
#else
static inline unsigned long long bench_ticks(void) { return (unsigned long long)bench_now_ns(CLOCK_MONOTONIC); }
#endif

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median and p10 (nearest rank) of v[0..n), sorted in place. */
static inline void bench_median_p10(double *v, int n, double *median, double *p10)
{
    qsort(v, (size_t)n, sizeof(double), bench_cmp_double);
    *median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    *p10 = v[(size_t)(0.1 * (n - 1) + 0.5)];
}

#endif
