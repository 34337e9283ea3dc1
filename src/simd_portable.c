/* simd_portable.c - the kernels of src/kernels.h for the portable path:
 * plain scalar C (KERNEL_PORTABLE): the reference the tests compare every
 * other path with.
 */
#include "simd.h"

#define KERNEL_PORTABLE 1
#define KERNEL(name) bw_kernel_portable_##name
#define KERNEL_PATH BW_SIMD_PORTABLE
#include "kernels.h"
const bw_simd_kernels *const bw_simd_table_portable = &bw_kernel_portable_table;
