/* simd.c - picking the kernel path once (see simd.h). */
#include "simd.h"

#include <stdlib.h>
#include <string.h>

static const char *const path_names[BW_SIMD_PATH_COUNT] = {"auto", "portable", "sse2", "avx2", "avx512"};

const char *bw_simd_path_name(bw_simd_path path)
{
    return (unsigned)path < BW_SIMD_PATH_COUNT ? path_names[path] : "unknown";
}

static const bw_simd_kernels *table(bw_simd_path path)
{
    switch (path) {
    case BW_SIMD_PORTABLE: return bw_simd_table_portable;
    case BW_SIMD_SSE2: return bw_simd_table_sse2;
    case BW_SIMD_AVX2: return bw_simd_table_avx2;
    case BW_SIMD_AVX512: return bw_simd_table_avx512;
    default: return NULL;
    }
}

static bool cpu_has(bw_simd_path path)
{
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
    __builtin_cpu_init();
    switch (path) {
    case BW_SIMD_SSE2: return __builtin_cpu_supports("sse2");
    case BW_SIMD_AVX2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case BW_SIMD_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    default: return true;
    }
#else
    return path == BW_SIMD_PORTABLE || (path == BW_SIMD_SSE2 && bw_simd_table_sse2 != NULL);
#endif
}

bool bw_simd_supported(bw_simd_path path)
{
    if (path == BW_SIMD_AUTO) return true;
    return (unsigned)path < BW_SIMD_PATH_COUNT && table(path) != NULL && cpu_has(path);
}

static bw_simd_path best_at_most(bw_simd_path path)
{
    for (int p = (int)path; p > BW_SIMD_PORTABLE; p--)
        if (bw_simd_supported((bw_simd_path)p)) return (bw_simd_path)p;
    return BW_SIMD_PORTABLE;
}

/* The path each request resolves to (index: bw_simd_path), decided once
 * on first use, so the per-call cost is one load; 0 = not decided yet.
 * The decision is idempotent, so two threads racing to make it store the
 * same values. */
static int resolved[BW_SIMD_PATH_COUNT];

static void resolve(void)
{
    bw_simd_path choice = best_at_most(BW_SIMD_AVX512);
    const char *env = getenv("BW_SIMD");
    if (env && *env)
        for (int i = BW_SIMD_PORTABLE; i < BW_SIMD_PATH_COUNT; i++)
            if (strcmp(env, path_names[i]) == 0) choice = best_at_most((bw_simd_path)i);
    for (int i = BW_SIMD_PORTABLE; i < BW_SIMD_PATH_COUNT; i++)
        __atomic_store_n(&resolved[i], (int)best_at_most((bw_simd_path)i), __ATOMIC_RELAXED);
    __atomic_store_n(&resolved[BW_SIMD_AUTO], (int)choice, __ATOMIC_RELAXED);
}

static bw_simd_path resolved_path(bw_simd_path path)
{
    if ((unsigned)path >= BW_SIMD_PATH_COUNT) path = BW_SIMD_AUTO;
    int p = __atomic_load_n(&resolved[path], __ATOMIC_RELAXED);
    if (!p) {
        resolve();
        p = __atomic_load_n(&resolved[path], __ATOMIC_RELAXED);
    }
    return (bw_simd_path)p;
}

bw_simd_path bw_simd_active(void) { return resolved_path(BW_SIMD_AUTO); }

const bw_simd_kernels *bw_simd_kernels_for(bw_simd_path path) { return table(resolved_path(path)); }
