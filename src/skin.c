/* skin.c - a loaded mesh's data and CPU linear blend skinning (mesh.h). */
#include <math.h>
#include <string.h>

#include "common.h"
#include "mesh_internal.h"

void bw_mesh_destroy(bw_mesh *mesh)
{
    if (!mesh) return;
    bw_allocator a_copy = mesh->allocator; /* the block holding it goes too */
    const bw_allocator *a = &a_copy;
    size_t n = (size_t)mesh->vertex_count, b = (size_t)mesh->bind_count;
    bw_free(a, mesh->positions, n * 3 * sizeof(float));
    bw_free(a, mesh->normals, n * 3 * sizeof(float));
    bw_free(a, mesh->joints, n * 4 * sizeof(int32_t));
    bw_free(a, mesh->weights, n * 4 * sizeof(float));
    bw_free(a, mesh->indices, (size_t)mesh->index_count * sizeof(uint32_t));
    bw_free(a, mesh->bind_joint, b * sizeof(int));
    bw_free(a, mesh->inverse_bind, b * sizeof *mesh->inverse_bind);
    for (int k = 0; k < mesh->morph_count; k++) {
        size_t size = (size_t)mesh->morphs[k].targets * (size_t)mesh->morphs[k].n * 3 * sizeof(float);
        bw_free(a, mesh->morphs[k].deltas, size);
        bw_free(a, mesh->morphs[k].normal_deltas, size);
    }
    bw_free(a, mesh->morphs, (size_t)mesh->morph_count * sizeof *mesh->morphs);
    bw_free(a, mesh, sizeof *mesh);
}

int bw_mesh_vertex_count(const bw_mesh *mesh)
{
    return mesh ? mesh->vertex_count : 0;
}

int bw_mesh_index_count(const bw_mesh *mesh)
{
    return mesh ? mesh->index_count : 0;
}

const uint32_t *bw_mesh_indices(const bw_mesh *mesh)
{
    return mesh ? mesh->indices : NULL;
}

const float *bw_mesh_bind_positions(const bw_mesh *mesh)
{
    return mesh ? mesh->positions : NULL;
}

const float *bw_mesh_bind_normals(const bw_mesh *mesh)
{
    return mesh ? mesh->normals : NULL;
}

int bw_mesh_palette_size(const bw_mesh *mesh)
{
    return mesh ? mesh->bind_count : 0;
}

void bw_mesh_scene(const bw_mesh *mesh, float out[4][4])
{
    if (!out) return;
    if (mesh) memcpy(out, mesh->scene, sizeof mesh->scene);
    else bw_affine_identity(out);
}

static bool matrix_finite(const float m[4][4])
{
    for (int c = 0; c < 4; c++)
        if (!bw_isfinite4(m[c])) return false;
    return true;
}

/* `base` plus the weighted offsets of every morph (`normals`: their
 * normal offsets) into `out`. */
static void add_offsets(const bw_mesh *mesh, const float *curves, const float *base, bool normals, float *out)
{
    memcpy(out, base, (size_t)mesh->vertex_count * 3 * sizeof(float));
    for (int k = 0; k < mesh->morph_count; k++) {
        const bw_mesh_morph *m = &mesh->morphs[k];
        const float *deltas = normals ? m->normal_deltas : m->deltas;
        if (!deltas) continue;
        float *o = out + (size_t)m->v0 * 3;
        for (int t = 0; t < m->targets; t++) {
            float w = curves[m->curve_first + t];
            if (w == 0.0f) continue;
            const float *d = deltas + (size_t)t * (size_t)m->n * 3;
            for (size_t i = 0; i < (size_t)m->n * 3; i++) o[i] += w * d[i];
        }
    }
}

/* Morphed bind positions into `out` (and normals into `out_normals` when
 * not NULL and some target moves normals); false when no weight is
 * non-zero (the bind data is then used as it is). */
static bool morph(const bw_mesh *mesh, const float *curves, float *out, float *out_normals)
{
    bool any = false;
    for (int k = 0; k < mesh->morph_count && !any; k++)
        for (int t = 0; t < mesh->morphs[k].targets; t++) any |= curves[mesh->morphs[k].curve_first + t] != 0.0f;
    if (!any) return false;
    add_offsets(mesh, curves, mesh->positions, false, out);
    if (out_normals && mesh->normal_morphs) add_offsets(mesh, curves, mesh->normals, true, out_normals);
    return true;
}

bw_result bw_mesh_skin(const bw_mesh *mesh, const bw_rig *rig, const float (*model)[4][4], const float *curves,
                       float (*palette)[4][4], float *out_positions, float *out_normals)
{
    if (!mesh || !rig || !model || !palette || !out_positions) return BW_ERR_INVALID_ARGUMENT;
    if (bw_rig_joint_count(rig) != mesh->rig_joint_count || bw_rig_layout_signature(rig) != mesh->rig_layout ||
        (curves && bw_rig_curve_count(rig) != mesh->rig_curve_count))
        return BW_ERR_INVALID_ARGUMENT;
    /* the palette and the weights first, checked whole before any output is written */
    for (int b = 0; b < mesh->bind_count; b++) {
        int j = mesh->bind_joint[b];
        if (j < 0) {
            memcpy(palette[b], mesh->inverse_bind[b], sizeof palette[b]);
            continue;
        }
        if (!matrix_finite(model[j])) return BW_ERR_NON_FINITE;
        float t[4][4];
        bw_affine_mul(mesh->scene, model[j], t);
        bw_affine_mul(t, mesh->inverse_bind[b], palette[b]);
        if (!matrix_finite(palette[b])) return BW_ERR_NON_FINITE;
    }
    for (int k = 0; curves && k < mesh->morph_count; k++)
        for (int t = 0; t < mesh->morphs[k].targets; t++)
            if (!isfinite(curves[mesh->morphs[k].curve_first + t])) return BW_ERR_NON_FINITE;
    /* morphing writes the shaped bind positions (and normals) into the
     * outputs, which the skinning then reads and overwrites vertex by vertex */
    const bool morphed = curves && morph(mesh, curves, out_positions, out_normals);
    const float *src = morphed ? out_positions : mesh->positions;
    const float *src_normals = morphed && mesh->normal_morphs ? out_normals : mesh->normals;
    const float(*pal)[4][4] = (const float(*)[4][4])palette;
    for (int v = 0; v < mesh->vertex_count; v++) {
        const int32_t *jv = mesh->joints + (size_t)v * 4;
        const float *wv = mesh->weights + (size_t)v * 4;
        /* the blended matrix, 3 rows x 4 columns */
        float m[4][3] = {{0}};
        for (int k = 0; k < 4; k++) {
            float w = wv[k];
            if (w == 0.0f) continue;
            const float(*p)[4] = pal[jv[k]];
            for (int c = 0; c < 4; c++) {
                m[c][0] += w * p[c][0];
                m[c][1] += w * p[c][1];
                m[c][2] += w * p[c][2];
            }
        }
        const float *p = src + (size_t)v * 3;
        float px = p[0], py = p[1], pz = p[2];
        float *o = out_positions + (size_t)v * 3;
        for (int r = 0; r < 3; r++) o[r] = m[0][r] * px + m[1][r] * py + m[2][r] * pz + m[3][r];
        if (out_normals) { /* by the blended 3x3's cofactors (mesh_internal.h) */
            const float *n = src_normals + (size_t)v * 3;
            float *on = out_normals + (size_t)v * 3;
            float nc[3][3];
            bw_normal_columns(m[0], m[1], m[2], nc);
            float x = nc[0][0] * n[0] + nc[1][0] * n[1] + nc[2][0] * n[2];
            float y = nc[0][1] * n[0] + nc[1][1] * n[1] + nc[2][1] * n[2];
            float z = nc[0][2] * n[0] + nc[1][2] * n[1] + nc[2][2] * n[2];
            float l = sqrtf(x * x + y * y + z * z);
            float k = l > 1e-20f ? 1.0f / l : 0.0f;
            on[0] = x * k;
            on[1] = y * k;
            on[2] = z * k;
        }
    }
    return BW_OK;
}
