/* fuzz_mesh.c - libFuzzer target for the glTF mesh reader and CPU skinning
 * (mesh.h): any byte string that loads as an asset must then load as a
 * mesh or fail with an error, never crash, leak or read out of bounds;
 * a loaded mesh is skinned (and morphed) in its rest pose and every index it gives must
 * be below its vertex count. `name` is NULL, so external buffer URIs fail
 * instead of touching files.
 * Seeds: fuzz/seeds/mesh/ (./dev.sh fuzz runs each target on
 * fuzz/seeds/<target>: small skinned files with data-URI buffers). */
#include <stdlib.h>

#include "blendwerk/asset.h"
#include "blendwerk/mesh.h"
#include "blendwerk/pose.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bw_asset_options opt = {.max_bytes = (size_t)4 << 20};
    bw_asset *asset = NULL;
    bw_error err;
    if (bw_asset_load_memory(BW_ASSET_GLTF, data, size, NULL, &opt, &asset, &err) != BW_OK) return 0;
    bw_mesh *mesh = NULL;
    if (bw_mesh_load_memory(data, size, NULL, asset, &opt, &mesh, &err) == BW_OK) {
        int n = bw_mesh_vertex_count(mesh), joints = bw_rig_joint_count(asset->rig);
        const uint32_t *idx = bw_mesh_indices(mesh);
        for (int k = 0; k < bw_mesh_index_count(mesh); k++)
            if (idx[k] >= (uint32_t)n) __builtin_trap();
        bw_pose pose;
        float(*model)[4][4] = malloc(sizeof *model * (size_t)(joints > 0 ? joints : 1));
        float(*palette)[4][4] = malloc(sizeof *palette * (size_t)(bw_mesh_palette_size(mesh) + 1));
        float *pos = malloc(sizeof(float) * 3 * (size_t)n), *nrm = malloc(sizeof(float) * 3 * (size_t)n);
        if (model && palette && pos && nrm && bw_pose_init(&pose, asset->rig, NULL) == BW_OK) {
            bw_pose_set_rest(&pose, asset->rig);
            bw_pose_local_to_model(asset->rig, &pose, model);
            bw_mesh_skin(mesh, asset->rig, (const float(*)[4][4])model, pose.curves, palette, pos, nrm);
            bw_pose_deinit(&pose);
        }
        free(model);
        free(palette);
        free(pos);
        free(nrm);
        bw_mesh_destroy(mesh);
    }
    bw_asset_destroy(asset);
    return 0;
}
