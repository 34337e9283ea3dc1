/* model.h - a glTF character for the demo (`--model FILE.glb|.gltf`): its
 * rig and clips (bw_asset) and its skinned mesh (bw_mesh), skinned on the
 * CPU into buffers the model owns and drawn with demo_r3d_mesh.
 *
 * Units: the demo's world is in metres. A model whose rest pose is
 * between 0.5 and 3 units tall is taken to be in metres (CesiumMan, 1.5);
 * any other is scaled to stand 1.8 m tall (Fox is about 79 units, the
 * robot 4.4), and `scale` says by how much. The mesh is in the file's
 * scene space (bw_mesh_scene: e.g. CesiumMan's Z-up skeleton stands up);
 * demo_model_point places a model-space point (a joint, from the pose's
 * model matrices) the same way, for overlays.
 *
 * Memory: demo_model_load allocates everything (scratch matrices, palette,
 * skinned positions and normals); demo_model_pose and demo_model_skin never
 * allocate.
 */
#ifndef BW_DEMO_MODEL_H
#define BW_DEMO_MODEL_H

#include "blendwerk/asset.h"
#include "blendwerk/mesh.h"
#include "blendwerk/pose.h"
#include "render3d.h"

typedef struct demo_model {
    bw_asset *asset;        /* owned: the rig and clips */
    bw_mesh *mesh;          /* owned */
    float scale;            /* model units to metres */
    float height;           /* rest-pose height in model units (the mesh's y extent) */
    float scene[4][4];      /* bw_mesh_scene */
    float (*next)[4][4];    /* scratch for the pose being skinned */
    float (*palette)[4][4]; /* bw_mesh_palette_size matrices (scratch) */
    float *positions;       /* vertex_count x 3, the last good skinned pose */
    float *normals;         /* vertex_count x 3 */
    int vertex_count, index_count, joint_count;
} demo_model;

/* Load `path` (asset and mesh). *out is set only on success; `err` names
 * the file and field on failure. The loaders' warnings (a renamed joint,
 * skipped channels or primitives, morph targets the rig has no curves
 * for) go to `logger` (may be NULL: not told). */
bw_result demo_model_load(const char *path, const bw_logger *logger, demo_model **out, bw_error *err);
void demo_model_destroy(demo_model *m); /* NULL is a no-op */

/* Skin the model by `pose` (of the model's rig): a complete pose, as a
 * mixer or animator gives (bw_sample_clip alone leaves the joints its clip
 * does not drive at identity, coverage 0: give those their rest first).
 * Its curves weight the morph targets when it has the rig's curve count
 * (otherwise the mesh is not morphed). A pose with other counts
 * or a non-finite joint is refused (BW_ERR_INVALID_ARGUMENT /
 * BW_ERR_NON_FINITE) and the last good skinned pose stays. */
bw_result demo_model_pose(demo_model *m, const bw_pose *pose);
/* The same from the pose's model matrices already computed (`model`:
 * joint_count matrices, bw_pose_local_to_model of `pose`, e.g.
 * demo_app_model): no second local-to-model per frame. Same checks and
 * results. */
bw_result demo_model_skin(demo_model *m, const bw_pose *pose, const float (*model)[4][4]);

/* A draw of the last skinned pose at `position` (metres), turned by `yaw`. */
void demo_model_draw(const demo_model *m, const float position[3], float yaw, demo_mesh_draw *out);

/* A model-space point (e.g. a joint's model matrix column 3) in the mesh's metres, before
 * the draw's position and yaw: scale * scene * point. */
void demo_model_point(const demo_model *m, const float model_point[3], float out[3]);

#endif
