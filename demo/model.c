/* model.c - a glTF character for the demo (model.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

#define METRES_LO 0.5f
#define METRES_HI 3.0f
#define STANDING_HEIGHT 1.8f

void demo_model_destroy(demo_model *m)
{
    if (!m) return;
    bw_mesh_destroy(m->mesh);
    bw_asset_destroy(m->asset);
    free(m->next);
    free(m->palette);
    free(m->positions);
    free(m->normals);
    free(m);
}

bw_result demo_model_load(const char *path, const bw_logger *logger, demo_model **out, bw_error *err)
{
    if (!path || !out) return BW_ERR_INVALID_ARGUMENT;
    demo_model *m = calloc(1, sizeof *m);
    if (!m) return BW_ERR_OUT_OF_MEMORY;
    bw_asset_options options;
    memset(&options, 0, sizeof options);
    if (logger) options.logger = *logger;
    bw_result r = bw_asset_load_file(path, &options, &m->asset, err);
    if (r == BW_OK) r = bw_mesh_load_file(path, m->asset, &options, &m->mesh, err);
    if (r != BW_OK) {
        demo_model_destroy(m);
        return r;
    }
    m->joint_count = bw_rig_joint_count(m->asset->rig);
    m->vertex_count = bw_mesh_vertex_count(m->mesh);
    m->index_count = bw_mesh_index_count(m->mesh);
    int palette = bw_mesh_palette_size(m->mesh);
    m->next = calloc((size_t)(m->joint_count > 0 ? m->joint_count : 1), sizeof *m->next);
    m->palette = calloc((size_t)(palette > 0 ? palette : 1), sizeof *m->palette);
    m->positions = calloc((size_t)m->vertex_count * 3, sizeof(float));
    m->normals = calloc((size_t)m->vertex_count * 3, sizeof(float));
    bw_pose rest;
    memset(&rest, 0, sizeof rest);
    if (!m->next || !m->palette || !m->positions || !m->normals || bw_pose_init(&rest, m->asset->rig, NULL) != BW_OK) {
        demo_model_destroy(m);
        return BW_ERR_OUT_OF_MEMORY;
    }
    bw_mesh_scene(m->mesh, m->scene);
    /* the rest pose: the first skinned frame, and the model's height */
    bw_pose_set_rest(&rest, m->asset->rig);
    r = demo_model_pose(m, &rest);
    bw_pose_deinit(&rest);
    if (r != BW_OK) {
        if (err) {
            memset(err, 0, sizeof *err);
            err->code = r;
            snprintf(err->file, sizeof err->file, "%s", path);
            snprintf(err->message, sizeof err->message, "%s: the rest pose does not skin (%s)", path, bw_result_name(r));
        }
        demo_model_destroy(m);
        return r;
    }
    float lo = INFINITY, hi = -INFINITY;
    for (int v = 0; v < m->vertex_count; v++) {
        lo = fminf(lo, m->positions[v * 3 + 1]);
        hi = fmaxf(hi, m->positions[v * 3 + 1]);
    }
    m->height = hi > lo ? hi - lo : 0.0f;
    m->scale = (m->height >= METRES_LO && m->height <= METRES_HI) || m->height <= 0.0f ? 1.0f : STANDING_HEIGHT / m->height;
    *out = m;
    return BW_OK;
}

bw_result demo_model_skin(demo_model *m, const bw_pose *pose, const float (*model)[4][4])
{
    if (!m || !pose || !model || pose->joint_count != m->joint_count) return BW_ERR_INVALID_ARGUMENT;
    /* morph weights when the pose carries the rig's curves, else none */
    const float *curves = pose->curve_count == bw_rig_curve_count(m->asset->rig) ? pose->curves : NULL;
    /* bw_mesh_skin checks the matrices it uses before writing anything */
    return bw_mesh_skin(m->mesh, m->asset->rig, model, curves, m->palette, m->positions, m->normals);
}

bw_result demo_model_pose(demo_model *m, const bw_pose *pose)
{
    if (!m || !pose || pose->joint_count != m->joint_count) return BW_ERR_INVALID_ARGUMENT;
    bw_pose_local_to_model(m->asset->rig, pose, m->next);
    return demo_model_skin(m, pose, (const float(*)[4][4])m->next);
}

void demo_model_draw(const demo_model *m, const float position[3], float yaw, demo_mesh_draw *out)
{
    memset(out, 0, sizeof *out);
    if (!m) return;
    out->positions = m->positions;
    out->normals = m->normals;
    out->vertex_count = m->vertex_count;
    out->indices = bw_mesh_indices(m->mesh);
    out->index_count = m->index_count;
    if (position) memcpy(out->position, position, sizeof out->position);
    out->yaw = yaw;
    out->scale = m->scale;
}

void demo_model_point(const demo_model *m, const float p[3], float out[3])
{
    for (int r = 0; r < 3; r++)
        out[r] = m->scale * (m->scene[0][r] * p[0] + m->scene[1][r] * p[1] + m->scene[2][r] * p[2] + m->scene[3][r]);
}
