/* simd_avx2.c - the kernels of src/kernels.h for the avx2 path: compiled
 * with -mavx2 -mfma (CMakeLists.txt sets them for this file only); chosen at
 * run time only when cpuid reports AVX2 and FMA.
 */
#include "simd.h"

#if defined(__AVX2__) && defined(__FMA__)
#define KERNEL(name) bw_kernel_avx2_##name
#define KERNEL_PATH BW_SIMD_AVX2
#define KERNEL_W 8
#include "kernels.h"
const bw_simd_kernels *const bw_simd_table_avx2 = &bw_kernel_avx2_table;
#else
const bw_simd_kernels *const bw_simd_table_avx2 = NULL; /* built without the flags (not x86) */
#endif
