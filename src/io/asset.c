/* asset.c - format dispatch, file reading (through safe_file.h only) and
 * the asset's lifetime. */
#include <stdlib.h>
#include <string.h>

#include "blendwerk/asset.h"
#include "common.h"
#include "loaders.h"
#include "safe_file.h"

#define DEFAULT_MAX_BYTES ((size_t)512 << 20)

static size_t max_bytes_of(const bw_asset_options *options)
{
    return options && options->max_bytes ? options->max_bytes : DEFAULT_MAX_BYTES;
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    if (n < m) return 0;
    for (size_t i = 0; i < m; i++) {
        char a = s[n - m + i], b = suffix[i];
        if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
        if (a != b) return 0;
    }
    return 1;
}

static bw_result load_memory(bw_asset_kind kind, const void *data, size_t size, const char *name,
                             const bw_io_origin *origin, const bw_asset_options *options, bw_asset **out_asset,
                             bw_error *err)
{
    const bw_allocator *allocator = options ? &options->allocator : NULL;
    if (size > max_bytes_of(options))
        return bw_fail_at(err, BW_ERR_LIMIT, name, 0, NULL, "%s: larger than the %zu-byte limit",
                          name ? name : "(memory)", max_bytes_of(options));
    bw_asset *asset = (bw_asset *)bw_alloc_zeroed(allocator, sizeof *asset);
    if (!asset) return bw_fail(err, BW_ERR_OUT_OF_MEMORY, "out of memory");
    if (allocator) asset->allocator = *allocator;
    asset->kind = kind;
    bw_result r;
    if (kind == BW_ASSET_GLTF) r = bw_gltf_load(data, size, name, origin, options, asset, err);
    else if (kind == BW_ASSET_BVH) r = bw_bvh_load(data, size, name, options, asset, err);
    else r = bw_fail(err, BW_ERR_INVALID_ARGUMENT, "unknown asset kind %d", (int)kind);
    if (r != BW_OK) {
        bw_free(allocator, asset, sizeof *asset);
        return r;
    }
    *out_asset = asset;
    return BW_OK;
}

bw_result bw_asset_load_memory(bw_asset_kind kind, const void *data, size_t size, const char *name,
                               const bw_asset_options *options, bw_asset **out_asset, bw_error *err)
{
    if (!data || !out_asset) return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "bw_asset_load_memory: NULL argument");
    /* the name's folder is where external buffers are looked up */
    bw_io_origin origin = {name, name ? bw_io_dir_length(name) : 0, "", 0};
    return load_memory(kind, data, size, name, name ? &origin : NULL, options, out_asset, err);
}

/* Read the file (already opened safely), pick the format, load. */
static bw_result load_read(const char *path, const void *data, size_t size, const bw_io_origin *origin,
                           const bw_asset_options *options, bw_asset **out_asset, bw_error *err)
{
    bw_asset_kind kind;
    if (has_suffix(path, ".bvh")) kind = BW_ASSET_BVH;
    else if (has_suffix(path, ".gltf") || has_suffix(path, ".glb") || (size >= 4 && !memcmp(data, "glTF", 4)))
        kind = BW_ASSET_GLTF;
    else
        return bw_fail_at(err, BW_ERR_UNSUPPORTED, path, 0, NULL,
                          "%s: unknown file type (expected .gltf, .glb or .bvh)", path);
    return load_memory(kind, data, size, path, origin, options, out_asset, err);
}

bw_result bw_asset_load_file(const char *path, const bw_asset_options *options, bw_asset **out_asset,
                             bw_error *err)
{
    if (!path || !out_asset) return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "bw_asset_load_file: NULL argument");
    bw_io_read req = {NULL, options ? &options->allocator : NULL, max_bytes_of(options), 0};
    void *data = NULL;
    size_t size = 0;
    bw_result r = bw_io_read_path(path, strlen(path), &req, &data, &size, err);
    if (r != BW_OK) return r;
    bw_io_origin origin = {path, bw_io_dir_length(path), "", 0};
    r = load_read(path, data, size, &origin, options, out_asset, err);
    bw_io_free(req.allocator, data, size);
    return r;
}

bw_result bw_asset_load_beneath(const char *dir, const char *path, const bw_asset_options *options,
                                bw_asset **out_asset, bw_error *err)
{
    if (!path || !out_asset) return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "bw_asset_load_beneath: NULL argument");
    bw_io_read req = {NULL, options ? &options->allocator : NULL, max_bytes_of(options), 0};
    void *data = NULL;
    size_t size = 0;
    bw_result r = bw_io_read_beneath(dir, path, strlen(path), &req, &data, &size, err);
    if (r != BW_OK) return r;
    /* the file's buffers resolve beneath the same folder, next to the file */
    bw_io_origin origin = {dir ? dir : "", dir ? strlen(dir) : 0, path, bw_io_dir_length(path)};
    r = load_read(path, data, size, &origin, options, out_asset, err);
    bw_io_free(req.allocator, data, size);
    return r;
}

void bw_asset_destroy(bw_asset *asset)
{
    if (!asset) return;
    bw_allocator a_copy = asset->allocator; /* the asset block holding it is freed too */
    const bw_allocator *a = &a_copy;
    for (int i = 0; i < asset->clip_count; i++) bw_clip_destroy(asset->clips[i]);
    bw_free(a, asset->clips, sizeof(bw_clip *) * (size_t)asset->clip_count);
    int joints = asset->rig ? bw_rig_joint_count(asset->rig) : 0;
    bw_free(a, asset->joint_node, sizeof(int) * (size_t)joints);
    bw_rig_destroy(asset->rig);
    bw_free(a, asset, sizeof *asset);
}

int bw_asset_find_clip(const bw_asset *asset, const char *name_or_index)
{
    if (!asset || !name_or_index) return -1;
    for (int i = 0; i < asset->clip_count; i++)
        if (!strcmp(bw_clip_name(asset->clips[i]), name_or_index)) return i;
    /* "#N": decimal digits only, no sign, space or leading zero ("#0" is
     * clip 0; "#00", "#+1", "# 1" and "#-0" are no index) */
    const char *d = name_or_index + 1;
    if (name_or_index[0] != '#' || !*d || (d[0] == '0' && d[1])) return -1;
    long n = 0;
    for (; *d; d++) {
        if (*d < '0' || *d > '9') return -1;
        n = n * 10 + (*d - '0');
        if (n >= asset->clip_count) return -1; /* also bounds n: no overflow */
    }
    return (int)n;
}
