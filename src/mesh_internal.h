/* mesh_internal.h - the layout of a bw_mesh (mesh.h), shared by its
 * loader (io/gltf_mesh.c) and skinning (skin.c). Private. */
#ifndef BW_MESH_INTERNAL_H
#define BW_MESH_INTERNAL_H

#include "blendwerk/mesh.h"

/* The morph targets of one primitive: vertices [v0, v0 + n) move by
 * sum_t curve[curve_first + t] * deltas[t][v - v0] before skinning, and
 * their normals by the same sum of normal_deltas (normalized after
 * skinning). */
typedef struct bw_mesh_morph {
    int v0, n;
    int curve_first; /* rig curve of its first target */
    int targets;
    float *deltas;        /* targets x n x 3 position offsets */
    float *normal_deltas; /* targets x n x 3 normal offsets, scaled like the bind normals; NULL: none */
} bw_mesh_morph;

struct bw_mesh {
    bw_allocator allocator; /* what loaded it, copied */
    int vertex_count;
    int index_count;
    int bind_count;
    float *positions;  /* vertex_count x 3, bind pose */
    float *normals;    /* vertex_count x 3, unit (or zero where a face had no area) */
    int32_t *joints;   /* vertex_count x 4: bind (palette) indices */
    float *weights;    /* vertex_count x 4, summing to 1 */
    uint32_t *indices; /* index_count */
    int *bind_joint;   /* bind_count: rig joint, or -1 (fixed in the scene) */
    float (*inverse_bind)[4][4]; /* bind_count */
    bw_mesh_morph *morphs; /* morph_count, by v0 */
    int morph_count;
    bool normal_morphs;    /* some morph has normal_deltas */
    float scene[4][4]; /* the nodes above the rig's first root, composed */
    int rig_joint_count;
    int rig_curve_count;
    uint64_t rig_layout;
};

/* out = a * b for column-major affine 4x4 matrices (m[c][r]; the last row
 * is taken as 0 0 0 1). `out` may alias neither input. */
static inline void bw_affine_mul(const float a[4][4], const float b[4][4], float out[4][4])
{
    for (int c = 0; c < 4; c++) {
        for (int r = 0; r < 3; r++)
            out[c][r] = a[0][r] * b[c][0] + a[1][r] * b[c][1] + a[2][r] * b[c][2] + (c == 3 ? a[3][r] : 0.0f);
        out[c][3] = c == 3 ? 1.0f : 0.0f;
    }
}

/* The matrix that turns normals as the 3x3 with columns a, b, c turns
 * positions: its inverse transpose up to a positive factor (callers
 * normalize), i.e. its cofactors. Columns b x c, c x a, a x b, negated
 * when the determinant is negative (a mirror), so a normal keeps pointing
 * out. A non-uniform scale tilts normals the other way from the surface
 * it stretches; the plain 3x3 would tilt them with it. For a rotation
 * times a uniform scale it is that rotation times a positive factor. */
static inline void bw_normal_columns(const float *a, const float *b, const float *c, float out[3][3])
{
    out[0][0] = b[1] * c[2] - b[2] * c[1];
    out[0][1] = b[2] * c[0] - b[0] * c[2];
    out[0][2] = b[0] * c[1] - b[1] * c[0];
    out[1][0] = c[1] * a[2] - c[2] * a[1];
    out[1][1] = c[2] * a[0] - c[0] * a[2];
    out[1][2] = c[0] * a[1] - c[1] * a[0];
    out[2][0] = a[1] * b[2] - a[2] * b[1];
    out[2][1] = a[2] * b[0] - a[0] * b[2];
    out[2][2] = a[0] * b[1] - a[1] * b[0];
    if (a[0] * out[0][0] + a[1] * out[0][1] + a[2] * out[0][2] < 0.0f)
        for (int k = 0; k < 3; k++)
            for (int r = 0; r < 3; r++) out[k][r] = -out[k][r];
}

static inline void bw_affine_identity(float m[4][4])
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) m[c][r] = c == r ? 1.0f : 0.0f;
}

#endif
