/* gltf.c - placeholder until the loader lands. */
#include "common.h"
#include "loaders.h"

bw_result bw_gltf_load(const void *data, size_t size, const char *name, const bw_asset_options *options,
                       bw_asset *asset, bw_error *err)
{
    (void)data; (void)size; (void)options; (void)asset;
    return bw_fail_at(err, BW_ERR_UNSUPPORTED, name, 0, NULL, "the gltf loader is not written yet");
}
