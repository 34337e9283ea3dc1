/* blendwerk/asset.h - loading characters and motion from files: glTF 2.0
 * (.gltf with external or data-URI buffers, .glb) and BVH.
 *
 * A loaded asset owns one rig and its clips; the objects are the same ones
 * Lua tables build, so nothing downstream knows where a clip came from.
 * Loading validates everything before building anything: on failure
 * nothing is returned and `err` names the file, and the JSON path (glTF,
 * in err->where) or line (BVH, in err->line) of the problem.
 *
 * Loaders never trust their input: every index, count, offset and stride is
 * checked, sizes are bounded (bw_asset_options.max_bytes), and work is
 * linear in the input size.
 *
 * Files are opened the same way everywhere (the file named, and the files
 * it refers to, such as glTF external buffers):
 * - a symbolic link as the last component is refused, never followed;
 * - only regular files are read: a FIFO, device, socket or directory is
 *   refused at once (the open never blocks), named in the message;
 * - the size is checked against max_bytes (and a glTF buffer's
 *   byteLength) before a byte is read;
 * - a glTF external buffer URI is resolved beneath the .gltf's folder: no
 *   absolute path, no URI scheme, no ".." component, no symbolic link in
 *   any component, no NUL (%00);
 * - bw_asset_load_beneath applies those beneath-a-folder rules to the file
 *   itself, for hosts that let scripts name files inside one folder.
 * Refused paths fail with BW_ERR_UNSUPPORTED, unreadable or non-regular
 * files with BW_ERR_IO, sizes over the limit with BW_ERR_LIMIT, and a
 * buffer file shorter than its byteLength with BW_ERR_RANGE.
 */
#ifndef BLENDWERK_ASSET_H
#define BLENDWERK_ASSET_H

#include "blendwerk/clip.h"
#include "blendwerk/rig.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bw_asset_kind {
    BW_ASSET_GLTF = 0,
    BW_ASSET_BVH = 1,
    BW_ASSET_LUA = 2 /* a rig and clips a host built from a Lua character file
                        (bindings/character.h): no glTF nodes, no frames; the
                        core's loaders neither produce nor read it */
} bw_asset_kind;

typedef struct bw_asset {
    bw_asset_kind kind;
    bw_rig *rig;          /* owned */
    bw_clip **clips;      /* owned, clip_count entries; unnamed clips have name "" */
    int clip_count;
    int *joint_node;      /* per rig joint: glTF node index (-1 for BVH) */
    float frame_time;     /* BVH: seconds per frame; glTF: 0 */
    int frame_count;      /* BVH: frames read; glTF: 0 */
    bw_allocator allocator; /* what loaded it, copied (fn NULL = malloc) */
} bw_asset;

typedef struct bw_asset_options {
    bw_allocator allocator;        /* copied; fn NULL = malloc */
    size_t max_bytes;              /* largest file / decoded buffer accepted; 0 = 512 MiB */
    bw_logger logger;              /* warnings (e.g. a BVH frame count mismatch); optional */
} bw_asset_options;

/* Load by file name: ".gltf", ".glb" (or glTF binary magic) and ".bvh".
 * `path` is trusted up to its last component (folders on the way may be
 * links); external buffers resolve beneath its folder. */
BW_API bw_result bw_asset_load_file(const char *path, const bw_asset_options *options, bw_asset **out_asset,
                             bw_error *err);
/* Load `path` resolved beneath the folder `dir` (NULL or "" = the current
 * folder; `dir` itself is trusted): `path` must be relative, without ".."
 * components, and no component may be a symbolic link, so the file, and
 * every external buffer it names, stays inside `dir` whatever is on disk
 * (the walk opens each component relative to the previous one, so a link
 * swapped in meanwhile is refused too). Messages name `path`. */
BW_API bw_result bw_asset_load_beneath(const char *dir, const char *path, const bw_asset_options *options,
                                bw_asset **out_asset, bw_error *err);
/* Load from memory. `name` is used in error messages and, for .gltf, as the
 * base for external buffer URIs (resolved beneath name's folder as above;
 * may be NULL: external URIs then fail without touching any file). */
BW_API bw_result bw_asset_load_memory(bw_asset_kind kind, const void *data, size_t size, const char *name,
                               const bw_asset_options *options, bw_asset **out_asset, bw_error *err);
BW_API void bw_asset_destroy(bw_asset *asset); /* NULL is a no-op */

/* Clip by name, or "#N" for the N-th clip (0-based, in file order; N in
 * decimal digits without sign, space or leading zero). Returns the index
 * or -1. A clip named "#1" is found by its name first. */
BW_API int bw_asset_find_clip(const bw_asset *asset, const char *name_or_index);

#ifdef __cplusplus
}
#endif
#endif
