/* test_pose.c - pose buffers and local-to-model transforms (pose.h). */
#include <cglm/cglm.h>
#include <math.h>
#include <string.h>

#include "blendwerk/pose.h"
#include "check.h"
#include "simd.h"

static const bw_transform ID = {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};

static void init_fills_identity_with_zero_coverage(void)
{
    bw_pose p;
    CHECK_INT(bw_pose_init_counts(&p, 3, 2, NULL), BW_OK);
    CHECK_INT(p.joint_count, 3);
    CHECK_INT(p.curve_count, 2);
    for (int j = 0; j < 3; j++) {
        CHECK(memcmp(&p.joints[j], &ID, sizeof ID) == 0);
        CHECK(p.coverage[j] == 0.0f);
    }
    for (int i = 0; i < 2; i++) CHECK(p.curves[i] == 0.0f && p.curve_coverage[i] == 0.0f);
    bw_pose_deinit(&p);
    CHECK(p.joints == NULL && p.joint_count == 0 && p.curves == NULL);
    bw_pose_deinit(&p); /* safe on a zeroed pose */
    bw_pose_deinit(NULL);

    /* empty pose */
    CHECK_INT(bw_pose_init_counts(&p, 0, 0, NULL), BW_OK);
    CHECK_INT(p.joint_count, 0);
    bw_pose_deinit(&p);
    /* curves only */
    CHECK_INT(bw_pose_init_counts(&p, 0, 4, NULL), BW_OK);
    p.curves[3] = 1.0f;
    bw_pose_deinit(&p);

    /* bad arguments leave the pose untouched */
    memset(&p, 0x5a, sizeof p);
    bw_pose before = p;
    CHECK_INT(bw_pose_init_counts(&p, -1, 0, NULL), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_pose_init_counts(&p, 0, -1, NULL), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_pose_init_counts(NULL, 1, 1, NULL), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_pose_init(&p, NULL, NULL), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_pose_init_counts(&p, 1 << 30, 0, NULL), BW_ERR_LIMIT);
    CHECK(memcmp(&p, &before, sizeof p) == 0);
}

static void *failing_alloc(void *user, void *ptr, size_t osize, size_t nsize)
{
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    return NULL;
}

static void init_reports_out_of_memory(void)
{
    bw_allocator a = {failing_alloc, NULL};
    bw_pose p;
    memset(&p, 0x5a, sizeof p);
    bw_pose before = p;
    CHECK_INT(bw_pose_init_counts(&p, 4, 1, &a), BW_ERR_OUT_OF_MEMORY);
    CHECK(memcmp(&p, &before, sizeof p) == 0);
}

static void set_rest_copy_and_clear(void)
{
    bw_rig_joint_desc j[2] = {{"root", -1, {{1, 2, 3}, {0, 0, 0, 1}, {1, 1, 1}}},
                              {"tip", 0, {{0, 5, 0}, {0, 1, 0, 0}, {2, 2, 2}}}};
    bw_rig_curve_desc c[1] = {{"jaw", BW_CURVE_FLOAT, 0.4f}};
    bw_rig_desc d = {.joints = j, .joint_count = 2, .curves = c, .curve_count = 1};
    bw_rig *rig = NULL;
    CHECK_INT(bw_rig_create(&d, &rig, NULL), BW_OK);
    bw_pose p, q, small;
    CHECK_INT(bw_pose_init(&p, rig, NULL), BW_OK);
    CHECK_INT(bw_pose_init(&q, rig, NULL), BW_OK);
    CHECK_INT(bw_pose_init_counts(&small, 1, 1, NULL), BW_OK);
    CHECK_INT(p.joint_count, 2);
    CHECK_INT(p.curve_count, 1);
    bw_pose_set_rest(&p, rig);
    CHECK_NEAR(p.joints[0].t[2], 3.0, 0);
    CHECK_NEAR(p.joints[1].r[1], 1.0, 0);
    CHECK_NEAR(p.joints[1].s[0], 2.0, 0);
    CHECK_NEAR(p.coverage[0], 1.0, 0);
    CHECK_NEAR(p.coverage[1], 1.0, 0);
    CHECK_NEAR(p.curves[0], 0.4, 1e-7);
    CHECK_NEAR(p.curve_coverage[0], 1.0, 0);

    bw_pose_copy(&q, &p);
    CHECK(memcmp(q.joints, p.joints, 2 * sizeof *p.joints) == 0);
    CHECK(q.coverage[1] == 1.0f && q.curves[0] == p.curves[0] && q.curve_coverage[0] == 1.0f);
    bw_pose_copy(&q, &q); /* self-copy is a no-op */
    CHECK(q.coverage[1] == 1.0f);

    /* mismatched counts: nothing happens */
    bw_pose_set_rest(&small, rig);
    CHECK(small.coverage[0] == 0.0f);
    bw_pose_copy(&small, &p);
    CHECK(small.coverage[0] == 0.0f);

    bw_pose_clear(&q);
    CHECK(memcmp(&q.joints[1], &ID, sizeof ID) == 0);
    CHECK(q.coverage[1] == 0.0f && q.curves[0] == 0.0f && q.curve_coverage[0] == 0.0f);
    bw_pose_deinit(&p);
    bw_pose_deinit(&q);
    bw_pose_deinit(&small);
    bw_rig_destroy(rig);
}

static void transform_to_matrix_is_trs_column_major(void)
{
    /* t = (1,2,3), r = 90° about Z, s = (2,3,4). R_z(90°) maps x -> y and
     * y -> -x, so the columns are R·(2,0,0) = (0,2,0), R·(0,3,0) = (-3,0,0),
     * R·(0,0,4) = (0,0,4), and the translation column (1,2,3,1). */
    float h = sqrtf(0.5f);
    bw_transform x = {{1, 2, 3}, {0, 0, h, h}, {2, 3, 4}};
    float m[4][4];
    bw_transform_to_matrix(&x, m);
    const float want[4][4] = {{0, 2, 0, 0}, {-3, 0, 0, 0}, {0, 0, 4, 0}, {1, 2, 3, 1}};
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) CHECK_NEAR(m[c][r], want[c][r], 1e-6);

    /* An arbitrary rotation against cglm's own quaternion-to-matrix (an
     * independent implementation), with unit scale and zero translation. */
    versor q = {0.1f, -0.7f, 0.3f, 0.2f};
    glm_quat_normalize(q);
    bw_transform y = {{0, 0, 0}, {q[0], q[1], q[2], q[3]}, {1, 1, 1}};
    mat4 ref;
    glm_quat_mat4(q, ref);
    bw_transform_to_matrix(&y, m);
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) CHECK_NEAR(m[c][r], ref[c][r], 1e-6);
    /* A denormalized quaternion (2·q) gives the same rotation, not a
     * scaled one; a zero quaternion gives identity, not zeros. */
    bw_transform y2 = y;
    for (int k = 0; k < 4; k++) y2.r[k] *= 2.0f;
    bw_transform_to_matrix(&y2, m);
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) CHECK_NEAR(m[c][r], ref[c][r], 1e-6);
    bw_transform z = {{0, 0, 0}, {0, 0, 0, 0}, {1, 1, 1}};
    bw_transform_to_matrix(&z, m);
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) CHECK_NEAR(m[c][r], c == r ? 1.0 : 0.0, 0);
}

static void local_to_model_of_a_three_joint_chain(void)
{
    /* root: t = (1,0,0), 90° about Y, uniform scale 2.
     * R_y(90°): x' = z, z' = -x (so +Z -> +X and +X -> -Z).
     * child: t = (0,0,2), identity: model = (1,0,0) + 2·R_y(0,0,2)
     *        = (1,0,0) + 2·(2,0,0) = (5,0,0).
     * tip: t = (1,0,0), identity, under child: model = (5,0,0) +
     *        2·R_y(1,0,0) = (5,0,0) + 2·(0,0,-1) = (5,0,-2).
     * A sibling of child at t = (0,3,0) under root: (1,0,0) + 2·(0,3,0) = (1,6,0).
     * The tip's x axis (column 0) is R_y·2·(1,0,0) = (0,0,-2). */
    float s = sqrtf(0.5f);
    bw_rig_joint_desc j[4] = {{"root", -1, {{1, 0, 0}, {0, s, 0, s}, {2, 2, 2}}},
                              {"child", 0, {{0, 0, 2}, {0, 0, 0, 1}, {1, 1, 1}}},
                              {"side", 0, {{0, 3, 0}, {0, 0, 0, 1}, {1, 1, 1}}},
                              {"tip", 1, {{1, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}}}};
    bw_rig_desc d = {.joints = j, .joint_count = 4};
    bw_rig *rig = NULL;
    CHECK_INT(bw_rig_create(&d, &rig, NULL), BW_OK);
    bw_pose p;
    CHECK_INT(bw_pose_init(&p, rig, NULL), BW_OK);
    bw_pose_set_rest(&p, rig);
    float model[4][4][4];
    bw_pose_local_to_model(rig, &p, model);
    const float pos[4][3] = {{1, 0, 0}, {5, 0, 0}, {1, 6, 0}, {5, 0, -2}};
    for (int i = 0; i < 4; i++) {
        for (int k = 0; k < 3; k++) CHECK_NEAR(model[i][3][k], pos[i][k], 1e-5);
        CHECK_NEAR(model[i][3][3], 1.0, 0);
        for (int c = 0; c < 3; c++) CHECK_NEAR(model[i][c][3], 0.0, 0);
    }
    CHECK_NEAR(model[3][0][0], 0.0, 1e-6);
    CHECK_NEAR(model[3][0][1], 0.0, 1e-6);
    CHECK_NEAR(model[3][0][2], -2.0, 1e-6);

    /* Turn the child 90° about Y as well: the tip's offset (1,0,0) now goes
     * through two quarter turns (180°): (−1,0,0), times the root's scale 2:
     * tip = (5,0,0) + (−2,0,0) = (3,0,0). */
    p.joints[1].r[1] = s;
    p.joints[1].r[3] = s;
    bw_pose_local_to_model(rig, &p, model);
    CHECK_NEAR(model[3][3][0], 3.0, 1e-5);
    CHECK_NEAR(model[3][3][1], 0.0, 1e-5);
    CHECK_NEAR(model[3][3][2], 0.0, 1e-5);

    /* a pose of the wrong size: nothing written */
    bw_pose small;
    CHECK_INT(bw_pose_init_counts(&small, 2, 0, NULL), BW_OK);
    memset(model, 0, sizeof model);
    bw_pose_local_to_model(rig, &small, model);
    CHECK_NEAR(model[0][3][3], 0.0, 0);
    bw_pose_local_to_model(NULL, &p, model);
    bw_pose_local_to_model(rig, NULL, model);
    bw_pose_local_to_model(rig, &p, NULL);
    CHECK_NEAR(model[0][3][3], 0.0, 0);
    bw_pose_deinit(&small);
    bw_pose_deinit(&p);
    bw_rig_destroy(rig);
}

/* Every kernel path against the portable one on a 67-joint tree of
 * chains and branches, non-uniform scales and arbitrary rotations. */
static void local_to_model_agrees_on_every_path(void)
{
    enum { N = 67 }; /* not a multiple of 4 or 8 or 16 */
    bw_rig_joint_desc j[N];
    char names[N][8];
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "j%d", i);
        float a = 0.37f * (float)i, h = sinf(0.5f * a), n = sqrtf(0.36f + 0.64f + 0.0f);
        /* chains (parent i − 1) with a branch back to i / 2 every fifth joint */
        j[i] = (bw_rig_joint_desc){names[i], i == 0 ? -1 : i % 5 == 0 ? i / 2 : i - 1,
                                   {{0.1f * sinf(a), 0.2f, 0.05f * cosf(a)},
                                    {0.6f / n * h, 0.8f / n * h, 0.0f, cosf(0.5f * a)},
                                    {1.0f + 0.1f * sinf(a), 0.9f, 1.05f}}};
    }
    bw_rig_desc d = {.joints = j, .joint_count = N};
    bw_rig *rig = NULL;
    CHECK_INT(bw_rig_create(&d, &rig, NULL), BW_OK);
    bw_pose p;
    CHECK_INT(bw_pose_init(&p, rig, NULL), BW_OK);
    bw_pose_set_rest(&p, rig);
    static float ref[N][4][4], got[N][4][4];
    bw_pose_local_to_model_with(rig, &p, BW_SIMD_PORTABLE, ref);
    for (int path = BW_SIMD_PORTABLE; path < BW_SIMD_PATH_COUNT; path++) {
        if (!bw_simd_supported((bw_simd_path)path)) continue;
        CHECK_INT(bw_simd_kernels_for((bw_simd_path)path)->path, path); /* really that unit's kernels */
        memset(got, 0, sizeof got);
        bw_pose_local_to_model_with(rig, &p, (bw_simd_path)path, got);
        double worst = 0;
        for (int i = 0; i < N; i++)
            for (int c = 0; c < 4; c++)
                for (int r = 0; r < 4; r++) worst = fmax(worst, fabs(got[i][c][r] - ref[i][c][r]));
        printf("l2m %s vs portable: worst difference %.3g\n", bw_simd_path_name((bw_simd_path)path), worst);
        /* FMA contraction only; model values stay below ~10 here */
        CHECK(worst < 1e-5);
    }
    bw_pose_deinit(&p);
    bw_rig_destroy(rig);
}

int main(void)
{
    RUN(init_fills_identity_with_zero_coverage);
    RUN(init_reports_out_of_memory);
    RUN(set_rest_copy_and_clear);
    RUN(transform_to_matrix_is_trs_column_major);
    RUN(local_to_model_of_a_three_joint_chain);
    RUN(local_to_model_agrees_on_every_path);
    return check_summary();
}
