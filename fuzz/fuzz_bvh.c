/* fuzz_bvh.c - libFuzzer target for the BVH loader: any byte string must
 * load or fail with an error, never crash, leak, read out of bounds or put
 * NaN into a sampled pose (fuzz_common.h). Warnings (frame count mismatch,
 * cut-off line, renamed joints) go to a logger that reads them.
 * Seeds: fuzz/seeds/bvh/ (small files that load) and, when present,
 * ../shared/assets (cmu_01_01.bvh, cut to -max_len by libFuzzer). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_load_and_sample(BW_ASSET_BVH, data, size, "fuzz.bvh", (size_t)1 << 20);
    return 0;
}
