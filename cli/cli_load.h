/* cli_load.h - loading an asset for a command-line subcommand.
 *
 * FILE is a glTF (.gltf, .glb) or BVH (.bvh) file, loaded with
 * bw_asset_load_file, or a Lua character file (.lua): a chunk returning
 * { rig = Rig, clips = { Clip, ... } } (or clips = { name = Clip, ... }),
 * the shape the demo's character scripts return, loaded with the shared
 * loader (bindings/character.h) as untrusted mod code in the sandbox with
 * its default limits: the script may open files beside it (blendwerk.load,
 * require, include) and nothing else. Either way the caller gets the same
 * bw_asset: one rig and its clips.
 *
 * For a .lua file the asset's clips are the character's, in its order and
 * under its names (bw_clip_name is the character's name: an unnamed list
 * entry is "#N", N its 1-based position); `kind` is BW_ASSET_LUA with no
 * nodes (every joint_node is -1) and no frames (frame_time and
 * frame_count 0). Use bw_cli_is_character to tell it apart.
 *
 * Loader warnings go to stderr as "warning: FILE: message" (for a .lua
 * file the character's warnings, bindings/character.h: what making its
 * rig and clips warned of, the message starting "NAME:LINE: " at the
 * blendwerk.rig / blendwerk.clip call), and a failure
 * is reported as "blendwerk CMD: FILE[:LINE]: message (at JSON path)"; for a
 * .lua file "blendwerk CMD: NAME:LINE: message" (NAME the file's name, as
 * the sandbox names chunks) or "blendwerk CMD: NAME: returned value: FIELD:
 * message" for a bad returned table. */
#ifndef BW_CLI_LOAD_H
#define BW_CLI_LOAD_H

#include <stdbool.h>

#include "blendwerk/asset.h"

/* Room for a loader's or a reader's one-line message that names a file:
 * the sandbox's message (1024 bytes) and a path as long as Linux takes
 * (4096 bytes), so a long path never crowds out the reason. */
#define BW_CLI_ERROR_MAX (1024 + 4096)

/* The loaded asset (free it with bw_asset_destroy), or NULL after printing
 * why. */
bw_asset *bw_cli_load_asset(const char *cmd, const char *path);

/* Whether `path` is loaded as a Lua character file (its name ends in ".lua"). */
bool bw_cli_is_character(const char *path);

#endif
