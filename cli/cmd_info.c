/* cmd_info.c - `blendwerk info FILE`: what a glTF, BVH or Lua character
 * file holds, as the runtime sees it (cli_load.h reads every kind). Prints
 * the joint tree (indented by depth, with the glTF node index of each
 * joint), the rig's curves, and every clip with its index, name, length,
 * track count and the interpolation kinds its tracks use. Uses only the
 * public asset API, so it shows exactly what a game would get. Loader
 * warnings (a BVH frame count that disagrees with its data, skipped glTF
 * channels, renamed joints) go to stderr as "warning: FILE: message".
 * Exit codes: 0 done, 1 the file could not be loaded (the message names the
 * file and the line or JSON path; for a .lua file "NAME:LINE: message"),
 * 2 bad arguments. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendwerk/asset.h"
#include "blendwerk/text.h"
#include "cli_json.h"
#include "cli_load.h"
#include "commands.h"

static void usage(FILE *to)
{
    fprintf(to, "usage: blendwerk info FILE\n"
                "  FILE  a .gltf, .glb or .bvh file, or a .lua character file (run in the sandbox)\n"
                "prints the joint tree and every clip (index, name, length, channels, interpolation)\n");
}

/* Interpolation kinds a clip's tracks use, as bits. A track's first key
 * has no incoming segment, so its easing only counts for one-key tracks. */
enum { KIND_STEP = 1, KIND_LINEAR = 2, KIND_CUBIC = 4, KIND_EASED = 8 };

static unsigned interp_kinds(const bw_clip *clip)
{
    unsigned kinds = 0;
    int tracks = bw_clip_track_count(clip);
    for (int i = 0; i < tracks; i++) {
        bw_track_desc td;
        if (bw_clip_track(clip, i, &td) != BW_OK) continue;
        if (td.interp == BW_INTERP_CUBICSPLINE) {
            kinds |= KIND_CUBIC;
            continue;
        }
        if (!td.styles) {
            kinds |= KIND_LINEAR;
            continue;
        }
        for (int k = td.key_count > 1 ? 1 : 0; k < td.key_count; k++) {
            if (td.styles[k] == BW_EASE_LINEAR) kinds |= KIND_LINEAR;
            else if (td.styles[k] == BW_EASE_CONSTANT) kinds |= KIND_STEP;
            else kinds |= KIND_EASED;
        }
    }
    return kinds;
}

static void print_kinds(unsigned kinds)
{
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {{KIND_STEP, "STEP"}, {KIND_LINEAR, "LINEAR"}, {KIND_CUBIC, "CUBICSPLINE"}, {KIND_EASED, "eased"}};
    int first = 1;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!(kinds & names[i].bit)) continue;
        printf("%s%s", first ? "" : " ", names[i].name);
        first = 0;
    }
    if (first) printf("-");
}

static int print_joints(const bw_asset *asset)
{
    const bw_rig *rig = asset->rig;
    int n = bw_rig_joint_count(rig);
    /* parents come first, so one forward pass gives every depth */
    int *depth = (int *)malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!depth) return 0;
    printf("joints (%d):\n", n);
    for (int j = 0; j < n; j++) {
        int p = bw_rig_joint_parent(rig, j);
        depth[j] = p >= 0 && p < j ? depth[p] + 1 : 0;
        int shown = depth[j] < 64 ? depth[j] : 64; /* deep chains stay readable */
        printf("  %*s%d ", 2 * shown, "", j);
        bw_text_print(stdout, bw_rig_joint_name(rig, j));
        if (asset->kind == BW_ASSET_GLTF && asset->joint_node && asset->joint_node[j] >= 0)
            printf(" (node %d)", asset->joint_node[j]);
        printf("\n");
    }
    free(depth);
    return 1;
}

int bw_cmd_info(int argc, char **argv)
{
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
        if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "blendwerk info: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
        if (path) {
            fprintf(stderr, "blendwerk info: one FILE only ('%s' and '%s')\n", path, argv[i]);
            usage(stderr);
            return 2;
        }
        path = argv[i];
    }
    if (!path) {
        usage(stderr);
        return 2;
    }

    bw_asset *asset = bw_cli_load_asset("info", path);
    if (!asset) return 1;

    int joints = bw_rig_joint_count(asset->rig);
    const char *kind = asset->kind == BW_ASSET_LUA ? "Lua character" : asset->kind == BW_ASSET_BVH ? "BVH" : "glTF";
    printf("%s: %s, %d joint%s, %d clip%s\n", path, kind, joints,
           joints == 1 ? "" : "s", asset->clip_count, asset->clip_count == 1 ? "" : "s");
    if (asset->kind == BW_ASSET_BVH && asset->frame_time > 0)
        printf("frames: %d, frame time %.7g s (%.6g fps)\n", asset->frame_count, (double)asset->frame_time,
               1.0 / (double)asset->frame_time);
    if (!print_joints(asset)) {
        fprintf(stderr, "blendwerk info: out of memory\n");
        bw_asset_destroy(asset);
        return 1;
    }
    int curves = bw_rig_curve_count(asset->rig);
    if (curves > 0) {
        printf("curves (%d):\n", curves);
        for (int c = 0; c < curves; c++)
        {
            printf("  %d ", c);
            bw_text_print(stdout, bw_rig_curve_name(asset->rig, c));
            printf("%s\n", bw_rig_curve_kind(asset->rig, c) == BW_CURVE_ANGLE ? " (angle)" : "");
        }
    }
    printf("clips (%d):\n", asset->clip_count);
    for (int i = 0; i < asset->clip_count; i++) {
        const bw_clip *clip = asset->clips[i];
        int tracks = bw_clip_track_count(clip);
        printf("  #%d \"", i);
        bw_text_print(stdout, bw_clip_name(clip));
        printf("\"  length %.6g s  %d channel%s  ", (double)bw_clip_length(clip), tracks, tracks == 1 ? "" : "s");
        print_kinds(interp_kinds(clip));
        int markers = bw_clip_marker_count(clip);
        if (markers > 0) printf("  %d marker%s", markers, markers == 1 ? "" : "s");
        printf("\n");
    }
    bw_asset_destroy(asset);
    return 0;
}
