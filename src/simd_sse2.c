/* simd_sse2.c - the kernels of src/kernels.h for the sse2 path: the default
 * build's flags (SSE2 on x86-64; GCC vector extensions elsewhere).
 */
#include "simd.h"

#define KERNEL(name) bw_kernel_sse2_##name
#define KERNEL_PATH BW_SIMD_SSE2
#include "kernels.h"
const bw_simd_kernels *const bw_simd_table_sse2 = &bw_kernel_sse2_table;
