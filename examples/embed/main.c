/* main.c - Blendwerk embedded in a C program: load a glTF (or BVH) file,
 * crossfade from its first clip to its second over 100 frames at 30 fps,
 * and print the root joint of every frame.
 *
 *   embed [FILE]    FILE defaults to stick.gltf beside this source
 *
 * A file with a single clip is mixed with itself half a cycle apart. */
#include <math.h>
#include <stdio.h>

#include <blendwerk/blendwerk.h>
#include <blendwerk/version.h>

#ifndef EMBED_DEFAULT_ASSET
#define EMBED_DEFAULT_ASSET "stick.gltf"
#endif

static int fail(const char *what, const bw_error *err)
{
    fprintf(stderr, "embed: %s: %s%s%s\n", what, err->file, err->file[0] ? ": " : "", err->message);
    return 1;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : EMBED_DEFAULT_ASSET;
    bw_error err = {0};
    bw_asset *asset = NULL;
    if (bw_asset_load_file(path, NULL, &asset, &err) != BW_OK) return fail("cannot load", &err);
    if (asset->clip_count < 1) {
        fprintf(stderr, "embed: %s has no animation\n", path);
        bw_asset_destroy(asset);
        return 1;
    }
    const bw_rig *rig = asset->rig;
    const bw_clip *clips[2] = {asset->clips[0], asset->clips[asset->clip_count > 1 ? 1 : 0]};
    float offset[2] = {0, asset->clip_count > 1 ? 0 : 0.5f * bw_clip_length(clips[0])};

    int status = 1;
    bw_binding *bindings[2] = {NULL, NULL};
    bw_mixer *mixer = NULL;
    bw_pose pose = {0};
    for (int i = 0; i < 2; i++)
        if (bw_binding_create(&(bw_binding_desc){.clip = clips[i], .rig = rig}, &bindings[i], &err) != BW_OK) {
            fail("cannot bind", &err);
            goto done;
        }
    if (bw_mixer_create(&(bw_mixer_desc){.rig = rig, .max_contributions = 2}, &mixer) != BW_OK ||
        bw_pose_init(&pose, rig, NULL) != BW_OK) {
        fprintf(stderr, "embed: out of memory\n");
        goto done;
    }

    int root = 0; /* joints are parent-first: joint 0 is a root */
    printf("blendwerk %s: %s, %d joints, root '%s', clips '%s' -> '%s'\n", BW_VERSION_STRING, path,
           bw_rig_joint_count(rig), bw_rig_joint_name(rig, root), bw_clip_name(clips[0]), bw_clip_name(clips[1]));
    for (int frame = 0; frame < 100; frame++) {
        float now = (float)frame / 30.0f;
        float u = (float)frame / 99.0f; /* the second clip's share, 0 -> 1 */
        bw_clip_contribution mix[2];
        for (int i = 0; i < 2; i++) {
            float length = bw_clip_length(clips[i]);
            mix[i].binding = bindings[i];
            mix[i].time = length > 0 ? fmodf(now + offset[i], length) : 0;
            mix[i].weight = i == 0 ? 1 - u : u;
            mix[i].priority = 0;
        }
        if (bw_mix_run_clips(mixer, rig, NULL, mix, 2, &pose) != BW_OK) {
            fprintf(stderr, "embed: mixing failed\n");
            goto done;
        }
        const bw_transform *x = &pose.joints[root];
        printf("frame %2d t %.3f  %s t %.4f %.4f %.4f  r %.4f %.4f %.4f %.4f\n", frame, now,
               bw_rig_joint_name(rig, root), x->t[0], x->t[1], x->t[2], x->r[0], x->r[1], x->r[2], x->r[3]);
    }
    status = 0;
done:
    bw_pose_deinit(&pose);
    bw_mixer_destroy(mixer);
    for (int i = 0; i < 2; i++) bw_binding_destroy(bindings[i]);
    bw_asset_destroy(asset);
    return status;
}
