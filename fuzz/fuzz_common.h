/* fuzz_common.h - what every loader fuzz target does with an asset that
 * loaded: bind and sample its clips at the start, middle and end and past
 * both ends, so values the loader let through reach the core, and trap on
 * a NaN anywhere in a sampled pose (translation, rotation, scale, coverage,
 * curves). Also a logger that reads every message it gets, so warning
 * paths run and a message built past its end shows in ASan. */
#ifndef BW_FUZZ_COMMON_H
#define BW_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "blendwerk/asset.h"
#include "blendwerk/bind.h"
#include "blendwerk/sample.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_check_pose(const bw_pose *pose)
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

static void fuzz_read_message(void *user, bw_log_level level, const char *message)
{
    (void)level;
    *(size_t *)user += strlen(message);
}

/* Load `data` as `kind`; on success sample up to 8 clips and destroy. */
static void fuzz_load_and_sample(bw_asset_kind kind, const uint8_t *data, size_t size, const char *name,
                                 size_t max_bytes)
{
    bw_asset *asset = NULL;
    bw_error err;
    size_t logged = 0;
    bw_asset_options options = {0};
    options.max_bytes = max_bytes; /* small, so a tiny input cannot legitimately ask for gigabytes */
    options.logger.fn = fuzz_read_message;
    options.logger.user = &logged;
    if (bw_asset_load_memory(kind, data, size, name, &options, &asset, &err) != BW_OK) return;
    bw_pose pose = {0};
    if (bw_pose_init(&pose, asset->rig, NULL) == BW_OK) {
        for (int i = 0; i < asset->clip_count && i < 8; i++) {
            bw_binding *binding = NULL;
            if (bw_binding_create(&(bw_binding_desc){.clip = asset->clips[i], .rig = asset->rig}, &binding, NULL) != BW_OK) continue;
            float len = bw_clip_length(asset->clips[i]);
            const float times[] = {0.0f, len * 0.37f, len, len + 1.0f, -1.0f};
            for (int k = 0; k < 5; k++) {
                bw_sample_clip(binding, asset->rig, times[k], &pose);
                fuzz_check_pose(&pose);
            }
            bw_binding_destroy(binding);
        }
    }
    bw_pose_deinit(&pose);
    bw_asset_destroy(asset);
}

#endif
