/* loaders.h - private entry points of the format loaders, called by
 * asset.c's dispatch. Each validates fully before building, fills every
 * field of a zeroed bw_asset on success and leaves nothing allocated on
 * failure. `name` is the file name for messages (and glTF's URI base). */
#ifndef BW_IO_LOADERS_H
#define BW_IO_LOADERS_H

#include "blendwerk/asset.h"

bw_result bw_gltf_load(const void *data, size_t size, const char *name, const bw_asset_options *options,
                       bw_asset *asset, bw_error *err);
bw_result bw_bvh_load(const void *data, size_t size, const char *name, const bw_asset_options *options,
                      bw_asset *asset, bw_error *err);

/* Read a whole file through the allocator, refusing files above max_bytes. */
bw_result bw_read_file(const char *path, const bw_allocator *allocator, size_t max_bytes, void **out_data,
                       size_t *out_size, bw_error *err);

#endif
