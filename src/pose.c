/* pose.c - pose buffers (one allocation each) and local-to-model
 * transforms.
 *
 * Block layout: joint_count bw_transform, then joint_count coverages,
 * curve_count values, curve_count coverages. Everything is float-aligned,
 * so one block serves all four arrays and pose->joints is its start.
 */
#include "blendwerk/pose.h"

#include <stdint.h>

#include "common.h"

static size_t block_size(int joint_count, int curve_count)
{
    return (size_t)joint_count * sizeof(bw_transform) + ((size_t)joint_count + 2 * (size_t)curve_count) * sizeof(float);
}

bw_result bw_pose_init_counts(bw_pose *pose, int joint_count, int curve_count, const bw_allocator *allocator)
{
    if (!pose || joint_count < 0 || curve_count < 0) return BW_ERR_INVALID_ARGUMENT;
    /* 2^26 joints is 2.8 GB of transforms: far beyond any skeleton, and it
     * keeps the size arithmetic below from overflowing on 32-bit hosts. */
    if (joint_count > (1 << 26) || curve_count > (1 << 26)) return BW_ERR_LIMIT;
    bw_pose p = {0};
    p.joint_count = joint_count;
    p.curve_count = curve_count;
    if (allocator) p.allocator = *allocator;
    size_t size = block_size(joint_count, curve_count);
    if (size > 0) {
        unsigned char *block = (unsigned char *)bw_alloc(allocator, size);
        if (!block) return BW_ERR_OUT_OF_MEMORY;
        p.joints = (bw_transform *)block;
        p.coverage = (float *)(block + (size_t)joint_count * sizeof(bw_transform));
        p.curves = p.coverage + joint_count;
        p.curve_coverage = p.curves + curve_count;
    }
    bw_pose_clear(&p);
    *pose = p;
    return BW_OK;
}

bw_result bw_pose_init(bw_pose *pose, const bw_rig *rig, const bw_allocator *allocator)
{
    if (!rig) return BW_ERR_INVALID_ARGUMENT;
    return bw_pose_init_counts(pose, bw_rig_joint_count(rig), bw_rig_curve_count(rig), allocator);
}

void bw_pose_deinit(bw_pose *pose)
{
    if (!pose) return;
    if (pose->joints) bw_free(&pose->allocator, pose->joints, block_size(pose->joint_count, pose->curve_count));
    memset(pose, 0, sizeof *pose);
}

void bw_pose_clear(bw_pose *pose)
{
    if (!pose) return;
    for (int i = 0; i < pose->joint_count; i++) {
        pose->joints[i] = bw_transform_identity;
        pose->coverage[i] = 0.0f;
    }
    for (int i = 0; i < pose->curve_count; i++) {
        pose->curves[i] = 0.0f;
        pose->curve_coverage[i] = 0.0f;
    }
}

void bw_pose_set_rest(bw_pose *pose, const bw_rig *rig)
{
    if (!pose || !rig || pose->joint_count != bw_rig_joint_count(rig) || pose->curve_count != bw_rig_curve_count(rig))
        return;
    const bw_transform *rest = bw_rig_rest_pose(rig);
    const float *curve_rest = bw_rig_curve_rest(rig);
    if (pose->joint_count > 0) memcpy(pose->joints, rest, (size_t)pose->joint_count * sizeof *rest);
    for (int i = 0; i < pose->joint_count; i++) pose->coverage[i] = 1.0f;
    if (pose->curve_count > 0) memcpy(pose->curves, curve_rest, (size_t)pose->curve_count * sizeof *curve_rest);
    for (int i = 0; i < pose->curve_count; i++) pose->curve_coverage[i] = 1.0f;
}

void bw_pose_copy(bw_pose *dst, const bw_pose *src)
{
    if (!dst || !src || dst == src || dst->joint_count != src->joint_count || dst->curve_count != src->curve_count)
        return;
    size_t nj = (size_t)src->joint_count, nc = (size_t)src->curve_count;
    if (nj) {
        memmove(dst->joints, src->joints, nj * sizeof *src->joints);
        memmove(dst->coverage, src->coverage, nj * sizeof *src->coverage);
    }
    if (nc) {
        memmove(dst->curves, src->curves, nc * sizeof *src->curves);
        memmove(dst->curve_coverage, src->curve_coverage, nc * sizeof *src->curve_coverage);
    }
}

/* Columns of R(q)·S: the 3x3 part of T·R·S. The rotation is taken as
 * q / |q| (2/|q|² instead of 2 below), so a slightly denormalized q does not
 * shear the matrix; a zero or non-finite q counts as identity. */
static inline void rotation_scale_columns(const bw_transform *x, float c[3][3])
{
    float qx = x->r[0], qy = x->r[1], qz = x->r[2], qw = x->r[3];
    float n2 = qx * qx + qy * qy + qz * qz + qw * qw;
    float k = 0.0f;
    if (n2 > 1e-30f && n2 < INFINITY) k = 2.0f / n2; /* NaN fails both tests */
    else qx = qy = qz = qw = 0.0f;
    float xx = qx * qx * k, yy = qy * qy * k, zz = qz * qz * k;
    float xy = qx * qy * k, xz = qx * qz * k, yz = qy * qz * k;
    float wx = qw * qx * k, wy = qw * qy * k, wz = qw * qz * k;
    float sx = x->s[0], sy = x->s[1], sz = x->s[2];
    c[0][0] = (1.0f - yy - zz) * sx;
    c[0][1] = (xy + wz) * sx;
    c[0][2] = (xz - wy) * sx;
    c[1][0] = (xy - wz) * sy;
    c[1][1] = (1.0f - xx - zz) * sy;
    c[1][2] = (yz + wx) * sy;
    c[2][0] = (xz + wy) * sz;
    c[2][1] = (yz - wx) * sz;
    c[2][2] = (1.0f - xx - yy) * sz;
}

/* The affine matrix [c | t] (last row 0 0 0 1). */
static inline void store_affine(const float c[3][3], const float *t, float m[4][4])
{
    for (int k = 0; k < 3; k++) {
        m[k][0] = c[k][0];
        m[k][1] = c[k][1];
        m[k][2] = c[k][2];
        m[k][3] = 0.0f;
    }
    m[3][0] = t[0];
    m[3][1] = t[1];
    m[3][2] = t[2];
    m[3][3] = 1.0f;
}

void bw_transform_to_matrix(const bw_transform *x, float m[4][4])
{
    if (!x || !m) return;
    float c[3][3];
    rotation_scale_columns(x, c);
    store_affine(c, x->t, m);
}

#if defined(__GNUC__) && !defined(BW_NO_VECTOR_EXT)
/* One matrix column as a 4-lane vector (SSE/NEON with GCC and Clang). */
typedef float column __attribute__((vector_size(16)));

static inline column column_load(const float *p)
{
    column v;
    memcpy(&v, p, sizeof v); /* model arrays need not be 16-byte aligned */
    return v;
}

/* m = pm · [c | t] for affine matrices, column by column. */
static inline void combine(const float pm[4][4], const float c[3][3], const float *t, float m[4][4])
{
    column p0 = column_load(pm[0]), p1 = column_load(pm[1]), p2 = column_load(pm[2]), p3 = column_load(pm[3]);
    column m0 = p0 * c[0][0] + p1 * c[0][1] + p2 * c[0][2];
    column m1 = p0 * c[1][0] + p1 * c[1][1] + p2 * c[1][2];
    column m2 = p0 * c[2][0] + p1 * c[2][1] + p2 * c[2][2];
    column m3 = p0 * t[0] + p1 * t[1] + p2 * t[2] + p3;
    memcpy(m[0], &m0, sizeof m0);
    memcpy(m[1], &m1, sizeof m1);
    memcpy(m[2], &m2, sizeof m2);
    memcpy(m[3], &m3, sizeof m3);
}
#else
static void combine(const float pm[4][4], const float c[3][3], const float *t, float m[4][4])
{
    for (int r = 0; r < 4; r++) {
        float p0 = pm[0][r], p1 = pm[1][r], p2 = pm[2][r], p3 = pm[3][r];
        float m0 = p0 * c[0][0] + p1 * c[0][1] + p2 * c[0][2];
        float m1 = p0 * c[1][0] + p1 * c[1][1] + p2 * c[1][2];
        float m2 = p0 * c[2][0] + p1 * c[2][1] + p2 * c[2][2];
        float m3 = p0 * t[0] + p1 * t[1] + p2 * t[2] + p3;
        m[0][r] = m0;
        m[1][r] = m1;
        m[2][r] = m2;
        m[3][r] = m3;
    }
}
#endif

void bw_pose_local_to_model(const bw_rig *rig, const bw_pose *pose, float (*model)[4][4])
{
    if (!rig || !pose || !model || pose->joint_count != bw_rig_joint_count(rig)) return;
    const int *parents = bw_rig_parents(rig);
    for (int i = 0; i < pose->joint_count; i++) {
        const bw_transform *x = &pose->joints[i];
        float c[3][3];
        rotation_scale_columns(x, c);
        float(*m)[4] = model[i];
        int p = parents[i];
        if (p < 0) {
            store_affine(c, x->t, m);
            continue;
        }
        /* model = parent · local. Both are affine (last row 0 0 0 1), so
         * column k of the product is P0·c[k][0] + P1·c[k][1] + P2·c[k][2]
         * (+ P3 for the translation column), and the last row comes out
         * as 0 0 0 1 by itself. The rig guarantees p < i: the parent is
         * final and never aliases model[i]. */
        combine(model[p], c, x->t, m);
    }
}
