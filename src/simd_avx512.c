/* simd_avx512.c - the kernels of src/kernels.h for the avx512 path: compiled
 * with -mavx512f -mavx512vl -mavx512dq -mavx512bw -mavx2 -mfma (this file
 * only); chosen at run time only when cpuid reports them.
 */
#include "simd.h"

#if defined(__AVX512F__) && defined(__AVX512VL__) && defined(__AVX512DQ__) && defined(__AVX512BW__)
#define KERNEL(name) bw_kernel_avx512_##name
#define KERNEL_PATH BW_SIMD_AVX512
#define KERNEL_W 16
#include "kernels.h"
const bw_simd_kernels *const bw_simd_table_avx512 = &bw_kernel_avx512_table;
#else
const bw_simd_kernels *const bw_simd_table_avx512 = NULL; /* built without the flags (not x86) */
#endif
