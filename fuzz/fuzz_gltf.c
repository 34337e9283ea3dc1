/* fuzz_gltf.c - libFuzzer target for the glTF loader (.gltf JSON and .glb
 * containers): any byte string must load or fail with an error, never
 * crash, leak or read out of bounds. `name` is NULL, so external buffer
 * URIs fail instead of touching files. A loaded asset's clips are bound
 * and sampled at the start, middle and end and past both ends, so values
 * the loader let through reach the core; a NaN anywhere in a pose
 * (translation, rotation, scale, coverage, curves) traps. max_bytes is
 * kept small so a tiny input cannot legitimately ask for gigabytes.
 * Seeds: fuzz/seeds/gltf/ only: small .gltf files with data-URI buffers
 * and a .glb, all of which load from memory. (The shared assets are not
 * seeds: most exceed -max_len and one needs an external .bin file.) */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "blendwerk/asset.h"
#include "blendwerk/bind.h"
#include "blendwerk/sample.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_pose(const bw_pose *pose)
{
    for (int j = 0; j < pose->joint_count; j++) {
        const bw_transform *x = &pose->joints[j];
        for (int k = 0; k < 4; k++)
            if (x->r[k] != x->r[k]) __builtin_trap(); /* NaN reached a pose */
        for (int k = 0; k < 3; k++)
            if (x->t[k] != x->t[k] || x->s[k] != x->s[k]) __builtin_trap();
        if (pose->coverage[j] != pose->coverage[j]) __builtin_trap();
    }
    for (int k = 0; k < pose->curve_count; k++)
        if (pose->curves[k] != pose->curves[k] || pose->curve_coverage[k] != pose->curve_coverage[k])
            __builtin_trap();
}

/* Reads the whole message, so a message built past its end shows in ASan. */
static void read_message(void *user, bw_log_level level, const char *message)
{
    (void)level;
    *(size_t *)user += strlen(message);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bw_asset *asset = NULL;
    bw_error err;
    size_t logged = 0;
    bw_asset_options options = {0};
    options.max_bytes = 4 << 20;
    options.logger.fn = read_message;
    options.logger.user = &logged;
    if (bw_asset_load_memory(BW_ASSET_GLTF, data, size, NULL, &options, &asset, &err) != BW_OK) return 0;
    bw_pose pose = {0};
    if (bw_pose_init(&pose, asset->rig, NULL) == BW_OK) {
        for (int i = 0; i < asset->clip_count && i < 8; i++) {
            bw_binding *binding = NULL;
            if (bw_binding_create(asset->clips[i], asset->rig, 0, NULL, &binding, NULL) != BW_OK) continue;
            float len = bw_clip_length(asset->clips[i]);
            const float times[] = {0.0f, len * 0.37f, len, len + 1.0f, -1.0f};
            for (int k = 0; k < 5; k++) {
                bw_sample_clip(binding, asset->rig, times[k], &pose);
                check_pose(&pose);
            }
            bw_binding_destroy(binding);
        }
    }
    bw_pose_deinit(&pose);
    bw_asset_destroy(asset);
    return 0;
}
