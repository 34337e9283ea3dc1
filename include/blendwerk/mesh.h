/* blendwerk/mesh.h - triangle meshes read from glTF 2.0 files and skinned
 * on the CPU by a rig's pose.
 *
 * A mesh is loaded beside the asset (asset.h) of the same file: the asset
 * gives the rig, the mesh the triangles bound to its joints. Every node of
 * the file with a `mesh` contributes its primitives of mode TRIANGLES
 * (other modes are skipped with a warning), merged into one vertex and
 * index array in node order:
 * - skinned nodes (`skin`): POSITION (float VEC3), NORMAL (float VEC3,
 *   optional), JOINTS_0 (VEC4 of unsigned 8/16-bit integers, each below
 *   the skin's joint count), WEIGHTS_0 (VEC4 of floats or normalized
 *   unsigned 8/16-bit integers; finite, not negative, renormalized to sum
 *   1; an all-zero vertex is refused), indices (unsigned 8/16/32-bit, each
 *   below the primitive's vertex count) or none (then the vertex count
 *   must be a multiple of 3). The skin's joints are mapped to the rig's
 *   joints through asset->joint_node; its inverseBindMatrices (MAT4
 *   floats, at least one per joint) default to identity. As glTF says,
 *   the skinned node's own transform is ignored.
 * - nodes without a skin follow their node: the nearest rig joint at or
 *   above the node carries them (the transforms of the nodes in between
 *   are applied at load), or, with no rig joint above, they are fixed in
 *   the scene.
 * - morph targets: their POSITION and NORMAL offsets (float VEC3, one
 *   per vertex) are applied before skinning, weighted by the rig curves
 *   the asset loader made for them (one per target of every node with a
 *   mesh, in node order); NORMAL offsets where the primitive has NORMAL.
 *   When the rig's curves are not this file's targets (another count),
 *   morphs are left out with a warning.
 * - a primitive without NORMAL gets smooth normals from its triangles
 *   (area-weighted), computed at load.
 * Skinned positions are in the file's scene space: the transforms of the
 * nodes above the rig's first root (e.g. a Z-up to Y-up rotation, a unit
 * scale) are applied after the rig's model space, so the mesh stands as
 * the file's author placed it.
 *
 * Failures name the file and the JSON field in err->where (like the
 * asset loader, e.g. "meshes[0].primitives[1].indices"): an accessor out
 * of bounds or of the wrong type, an index >= the vertex count, a joint
 * index >= the skin's joint count, non-finite data, more than
 * BW_MESH_MAX_VERTICES vertices. Nothing is returned on failure.
 *
 * Skinning (bw_mesh_skin) is morphing, then linear blend skinning:
 *   p = bind + sum_t curve_t * offset_t,  n = bind_n + sum_t curve_t * normal_offset_t
 *   palette[b] = scene * model[joint(b)] * inverse_bind[b]
 *   M = sum_k w_k palette[j_k],  p' = M p,  n' = normalize(N(M) n)
 * with N(M) the inverse transpose of M's upper 3x3 (its cofactors, so a
 * joint's non-uniform scale tilts normals as it tilts the surface, and a
 * mirror keeps them pointing out; for rotation and uniform scale N(M) n
 * is the rotated normal). It writes
 * caller buffers, never allocates, and is safe to run on one mesh from
 * several threads with separate buffers (the mesh is read-only).
 */
#ifndef BLENDWERK_MESH_H
#define BLENDWERK_MESH_H

#include <stdint.h>

#include "blendwerk/asset.h"
#include "blendwerk/rig.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bw_mesh bw_mesh;

/* Documented size limit (BW_ERR_LIMIT beyond it): total vertices, below
 * 2^24 so every index is exact in a float during decoding. */
#define BW_MESH_MAX_VERTICES ((1 << 24) - 1)

/* Load the meshes of a .gltf / .glb file (opened as bw_asset_load_file
 * opens files: external buffers resolve beneath its folder). `asset` must
 * be that file's asset (its rig and joint_node map the skins' joints);
 * the mesh copies what it needs and does not keep `asset`. `options`
 * gives the allocator, the size limit (max_bytes) and a logger for
 * warnings; NULL = defaults. *out is set only on success. */
BW_API bw_result bw_mesh_load_file(const char *path, const bw_asset *asset, const bw_asset_options *options,
                                   bw_mesh **out, bw_error *err);
/* The same from memory; `name` is for messages and, for .gltf, the base
 * of external buffer URIs (NULL: external URIs fail). */
BW_API bw_result bw_mesh_load_memory(const void *data, size_t size, const char *name, const bw_asset *asset,
                                     const bw_asset_options *options, bw_mesh **out, bw_error *err);
BW_API void bw_mesh_destroy(bw_mesh *mesh); /* NULL is a no-op */

BW_API int bw_mesh_vertex_count(const bw_mesh *mesh);
BW_API int bw_mesh_index_count(const bw_mesh *mesh);       /* a multiple of 3 */
BW_API const uint32_t *bw_mesh_indices(const bw_mesh *mesh); /* index_count entries, each < vertex_count */
/* Bind-pose positions and normals (vertex_count x 3 floats), after the
 * load-time placement of unskinned nodes, before the scene transform. */
BW_API const float *bw_mesh_bind_positions(const bw_mesh *mesh);
BW_API const float *bw_mesh_bind_normals(const bw_mesh *mesh);
/* Number of skinning matrices (the palette bw_mesh_skin needs): one per
 * joint of every skin used, one per unskinned mesh node. */
BW_API int bw_mesh_palette_size(const bw_mesh *mesh);

/* The scene transform bw_mesh_skin applies after the rig's model space
 * (column-major, identity when the rig's first root is a scene root), so
 * hosts can place model-space points (joints) with the mesh. */
BW_API void bw_mesh_scene(const bw_mesh *mesh, float out[4][4]);

/* Skin the mesh by `model` (joint_count matrices of `rig`, from
 * bw_pose_local_to_model) and `curves` (the rig's curve values, e.g. a
 * pose's `curves`, weighting the morph targets; NULL = no morphing).
 * `palette` is caller scratch of bw_mesh_palette_size matrices;
 * out_positions (and out_normals, may be NULL) hold vertex_count x 3
 * floats. Fails, writing nothing, with BW_ERR_INVALID_ARGUMENT for a NULL
 * argument or a rig whose joint count, curve count (with curves) or
 * layout signature differs from the one the mesh was loaded with, and
 * BW_ERR_NON_FINITE when a matrix or morph weight it uses is not finite.
 * Never allocates. */
BW_API bw_result bw_mesh_skin(const bw_mesh *mesh, const bw_rig *rig, const float (*model)[4][4], const float *curves,
                              float (*palette)[4][4], float *out_positions, float *out_normals);

#ifdef __cplusplus
}
#endif
#endif
