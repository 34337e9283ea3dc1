/* fuzz_gltf.c - libFuzzer target for the glTF loader (.gltf JSON and .glb
 * containers): any byte string must load or fail with an error, never
 * crash, leak, read out of bounds or put NaN into a sampled pose
 * (fuzz_common.h). `name` is NULL, so external buffer URIs fail instead of
 * touching files.
 * Seeds: fuzz/seeds/gltf/ only: small .gltf files with data-URI buffers
 * and a .glb, all of which load from memory. (The shared assets are not
 * seeds: most exceed -max_len and one needs an external .bin file.) */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_load_and_sample(BW_ASSET_GLTF, data, size, NULL, (size_t)4 << 20);
    return 0;
}
