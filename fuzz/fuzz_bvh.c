/* fuzz_bvh.c - libFuzzer target for the BVH loader: any byte string must
 * load or fail with an error, never crash, leak or read out of bounds. A
 * loaded asset's clip is sampled at its first frame, mid-way, at its last
 * frame and past both ends, so values the parser let through reach the
 * core; a NaN anywhere in a sampled pose (translation, rotation, scale or
 * coverage) traps. Warnings go to a logger that only reads them, so the
 * warning paths (frame count mismatch, cut-off line, renamed joints) run.
 * Seeds: fuzz/seeds/bvh/ (small files that load) and, when present,
 * ../shared/assets (cmu_01_01.bvh, cut to -max_len by libFuzzer). */
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
    options.max_bytes = 1 << 20;
    options.logger.fn = read_message;
    options.logger.user = &logged;
    if (bw_asset_load_memory(BW_ASSET_BVH, data, size, "fuzz.bvh", &options, &asset, &err) != BW_OK) return 0;
    bw_binding *binding = NULL;
    bw_pose pose = {0};
    if (bw_binding_create(asset->clips[0], asset->rig, 0, NULL, &binding, NULL) == BW_OK &&
        bw_pose_init(&pose, asset->rig, NULL) == BW_OK) {
        float len = bw_clip_length(asset->clips[0]);
        const float times[] = {0.0f, len * 0.5f, len, len + 1.0f, -1.0f};
        for (int i = 0; i < 5; i++) {
            bw_sample_clip(binding, asset->rig, times[i], &pose);
            check_pose(&pose);
        }
    }
    bw_pose_deinit(&pose);
    bw_binding_destroy(binding);
    bw_asset_destroy(asset);
    return 0;
}
