/* common.h - private helpers shared by the core's modules: allocation
 * through the caller's bw_allocator, error reporting and small utilities.
 * Not part of the public API. */
#ifndef BW_COMMON_H
#define BW_COMMON_H

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef M_PI /* strict C11 headers do not define it */
#define M_PI 3.14159265358979323846
#endif

#include "blendwerk/types.h"

/* Allocate / resize / free through `a` (NULL = C library). bw_alloc and
 * bw_realloc return NULL on failure; bw_alloc_zeroed clears the block. */
void *bw_alloc(const bw_allocator *a, size_t size);
void *bw_alloc_zeroed(const bw_allocator *a, size_t size);
void *bw_realloc(const bw_allocator *a, void *ptr, size_t old_size, size_t new_size);
void bw_free(const bw_allocator *a, void *ptr, size_t size);
/* A copy of `s` (NULL stays NULL), allocated through `a`; free it with
 * bw_free_string. */
char *bw_strdup(const bw_allocator *a, const char *s);
void bw_free_string(const bw_allocator *a, char *s);

/* Fill `err` (may be NULL) with code and a printf-style message; returns
 * `code` so a failing call can `return bw_fail(err, BW_ERR_X, "...")`. */
bw_result bw_fail(bw_error *err, bw_result code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Same, with file, line and where (each may be NULL / 0). */
bw_result bw_fail_at(bw_error *err, bw_result code, const char *file, int line, const char *where,
                     const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* Send a printf-style line to `logger` (NULL, or no fn: nothing is
 * formatted). Messages are cut at 512 bytes. */
void bw_log(const bw_logger *logger, bw_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* How far from 1 a quaternion's length may be before normalizing it is
 * worth a warning: float rounding of authored unit quaternions stays
 * orders of magnitude below, a hand-typed {0, 0, 0, 2} does not. */
#define BW_QUAT_WARN_TOLERANCE 1e-3

/* x clamped to [0, 1]; NaN fails both comparisons and becomes 0. */
static inline float bw_clamp01(float x) { return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; }
/* A sampled joint's coverage (SPEC §3): clamp(pose_weight × (1 − mask_weight),
 * 0, 1), NaN → 0. The one definition sampling, the grid kernels and root
 * motion share (the SIMD grid kernel computes the same per lane). */
static inline float bw_coverage(float pose_weight, float mask_weight)
{
    return bw_clamp01(pose_weight * (1.0f - mask_weight));
}
static inline int bw_isfinite3(const float *v) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }
static inline int bw_isfinite4(const float *v) { return bw_isfinite3(v) && isfinite(v[3]); }

/* 64-bit FNV-1a, used for layout signatures and cache keys. */
static inline uint64_t bw_hash_bytes(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = (const unsigned char *)data;
    for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 1099511628211ull; }
    return h;
}
#define BW_HASH_SEED 14695981039346656037ull
/* Fold a string with its terminator, so consecutive strings cannot run
 * into each other ("ab","c" and "a","bc" differ). */
static inline uint64_t bw_hash_string(uint64_t h, const char *s) { return bw_hash_bytes(h, s, strlen(s) + 1); }

/* n rounded up to a multiple of `align` (> 0): section offsets inside the
 * single-block objects (clips, bindings, grids). */
static inline size_t bw_align_up(size_t n, size_t align) { return (n + align - 1) / align * align; }
#define BW_MAX_ALIGN ((size_t)_Alignof(max_align_t))

/* p rounded up to a multiple of `align` (> 0): where an over-allocated
 * block's aligned part starts. */
static inline void *bw_align_ptr(void *p, size_t align)
{
    return (char *)p + (align - (uintptr_t)p % align) % align;
}

/* Ask the cache for [p, p + bytes), one hint per 64-byte line (`write`
 * when the lines are about to be written). Only a hint: no effect on any
 * value. */
static inline void bw_prefetch_lines(const void *p, size_t bytes, bool write)
{
#if defined(__GNUC__)
    if (!p) return; /* a zeroed hint */
    /* addresses as integers: a hint may reach past the end of a small
     * object (bw_track_set_prefetch), which a pointer may not */
    for (uintptr_t at = (uintptr_t)p, end = at + bytes; at < end; at += 64) {
        if (write) __builtin_prefetch((const void *)at, 1, 3);
        else __builtin_prefetch((const void *)at, 0, 3);
    }
#else
    (void)p;
    (void)bytes;
    (void)write;
#endif
}

/* Carves aligned sections out of one block, in order: with base NULL it
 * only measures (used ends as the block's size), else each section's
 * start in the block. */
typedef struct bw_carver {
    char *base;
    size_t used;
} bw_carver;

static inline void *bw_carve(bw_carver *k, size_t bytes, size_t align)
{
    size_t at = bw_align_up(k->used, align);
    k->used = at + bytes;
    return k->base ? k->base + at : NULL;
}

#endif
