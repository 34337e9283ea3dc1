/* pose.c - pose buffers (one allocation each) and local-to-model
 * transforms.
 *
 * Block layout: joint_count bw_transform, then joint_count coverages,
 * curve_count values, curve_count coverages. Everything is float-aligned,
 * so one block serves all four arrays and pose->joints is its start.
 */
#include "blendwerk/pose.h"

#include <stdint.h>

#include "affine.h"
#include "bw_math.h"
#include "common.h"
#include "pose_internal.h"
#include "simd.h"

size_t bw_pose_block_bytes(int joint_count, int curve_count)
{
    return (size_t)joint_count * sizeof(bw_transform) + ((size_t)joint_count + 2 * (size_t)curve_count) * sizeof(float);
}

void bw_pose_init_in(bw_pose *pose, int joint_count, int curve_count, void *storage)
{
    unsigned char *block = (unsigned char *)storage;
    *pose = (bw_pose){0};
    pose->joint_count = joint_count;
    pose->curve_count = curve_count;
    pose->joints = (bw_transform *)block;
    pose->coverage = (float *)(block + (size_t)joint_count * sizeof(bw_transform));
    pose->curves = pose->coverage + joint_count;
    pose->curve_coverage = pose->curves + curve_count;
    bw_pose_clear(pose);
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
    size_t size = bw_pose_block_bytes(joint_count, curve_count);
    if (size > 0) {
        void *block = bw_alloc(allocator, size);
        if (!block) return BW_ERR_OUT_OF_MEMORY;
        bw_pose_init_in(&p, joint_count, curve_count, block);
    }
    if (allocator) p.allocator = *allocator;
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
    if (pose->joints) bw_free(&pose->allocator, pose->joints, bw_pose_block_bytes(pose->joint_count, pose->curve_count));
    memset(pose, 0, sizeof *pose);
}

void bw_pose_clear(bw_pose *pose)
{
    if (!pose) return;
    /* Runs per layer per frame in graphs: the identity is written once and
     * then copied in doubling runs (a few large copies instead of a store
     * per float); 0.0f is all-zero bits, so the rest is memset. */
    const size_t n = (size_t)pose->joint_count;
    if (n > 0) {
        pose->joints[0] = bw_transform_identity;
        for (size_t done = 1; done < n;) {
            size_t run = done < n - done ? done : n - done;
            memcpy(pose->joints + done, pose->joints, run * sizeof *pose->joints);
            done += run;
        }
        memset(pose->coverage, 0, n * sizeof *pose->coverage);
    }
    if (pose->curve_count > 0) {
        memset(pose->curves, 0, (size_t)pose->curve_count * sizeof *pose->curves);
        memset(pose->curve_coverage, 0, (size_t)pose->curve_count * sizeof *pose->curve_coverage);
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

void bw_transform_to_matrix(const bw_transform *x, float m[4][4])
{
    if (!x || !m) return;
    bw_transform y = *x; /* a rotation whose |q|² leaves float range, rescaled (not per frame) */
    bw_rescale_if_needed(y.r, 4);
    float c[3][3];
    rotation_scale_columns(&y, c);
    store_affine(c, y.t, m);
}

void bw_pose_local_to_model(const bw_rig *rig, const bw_pose *pose, float (*model)[4][4])
{
    bw_pose_local_to_model_with(rig, pose, BW_SIMD_AUTO, model);
}

void bw_pose_local_to_model_with(const bw_rig *rig, const bw_pose *pose, bw_simd_path path, float (*model)[4][4])
{
    if (!rig || !pose || !model || pose->joint_count != bw_rig_joint_count(rig)) return;
    bw_simd_kernels_for(path)->local_to_model(bw_rig_parents(rig), pose->joints, pose->joint_count, model);
}
