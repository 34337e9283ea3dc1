/* loaders.h - private entry points of the format loaders, called by
 * asset.c's dispatch. Each validates fully before building, fills every
 * field of a zeroed bw_asset on success and leaves nothing allocated on
 * failure. `name` is the file name for messages. */
#ifndef BW_IO_LOADERS_H
#define BW_IO_LOADERS_H

#include "blendwerk/asset.h"

/* Where files a loaded file refers to (glTF external buffers) are looked
 * up: beneath the trusted folder `root` (root_len bytes, not
 * NUL-terminated; 0 bytes = the current folder), at `prefix` (the loaded
 * file's own folder below root, prefix_len bytes, "" or ending in '/'),
 * through bw_io_read_beneath. NULL origin: the data came from memory and
 * external references fail. */
typedef struct bw_io_origin {
    const char *root;
    size_t root_len;
    const char *prefix;
    size_t prefix_len;
} bw_io_origin;

bw_result bw_gltf_load(const void *data, size_t size, const char *name, const bw_io_origin *origin,
                       const bw_asset_options *options, bw_asset *asset, bw_error *err);
bw_result bw_bvh_load(const void *data, size_t size, const char *name, const bw_asset_options *options,
                      bw_asset *asset, bw_error *err);

#endif
