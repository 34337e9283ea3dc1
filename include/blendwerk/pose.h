/* blendwerk/pose.h - pose buffers and local-to-model transforms.
 *
 * A pose holds one local transform and one coverage in [0, 1] per rig
 * joint, plus one value and coverage per rig curve (float channel). The
 * caller owns the storage; bw_pose_init allocates it once so per-frame code
 * never allocates. Coverage 0 means "this contribution says nothing about
 * the joint": its transform is a storage default (identity), never a
 * command to reset the joint.
 *
 * The four arrays share one allocation. Functions taking two poses (or a
 * pose and a rig) whose counts differ do nothing: they have no error
 * channel and the mismatch is a programming error the caller must avoid.
 */
#ifndef BLENDWERK_POSE_H
#define BLENDWERK_POSE_H

#include "blendwerk/rig.h"
#include "blendwerk/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which kernels the per-frame paths run (sampling uniform-grid clips,
 * mixing, local-to-model). BW_SIMD_AUTO (0) is the best path this CPU
 * supports, chosen once at startup from cpuid, or the path named by the
 * environment variable BW_SIMD (portable, sse2, avx2, avx512) when set. A
 * path the CPU or the build lacks falls back to the best one below it.
 * Every path gives the same results to float rounding (the tests state
 * the tolerances); PORTABLE is plain scalar C, the reference. */
typedef enum bw_simd_path {
    BW_SIMD_AUTO = 0,
    BW_SIMD_PORTABLE = 1, /* 0 and 1 keep the meaning of the former `bool portable` */
    BW_SIMD_SSE2,   /* 4 lanes (the default build's baseline on x86-64) */
    BW_SIMD_AVX2,   /* AVX2 + FMA */
    BW_SIMD_AVX512, /* AVX-512 F/VL/DQ/BW */
    BW_SIMD_PATH_COUNT
} bw_simd_path;

typedef struct bw_pose {
    bw_transform *joints;  /* joint_count local transforms */
    float *coverage;       /* joint_count values in [0, 1] */
    float *curves;         /* curve_count values */
    float *curve_coverage; /* curve_count values in [0, 1] */
    int joint_count;
    int curve_count;
    bw_allocator allocator; /* what init used, copied (fn NULL = malloc); what it
                               points to must outlive the pose; deinit frees through it */
} bw_pose;

/* Allocate buffers for `rig`'s joints and curves and fill them with the
 * identity transform, value 0 and coverage 0. `pose` is written only on
 * success (BW_ERR_INVALID_ARGUMENT for NULL pose or rig or negative counts,
 * BW_ERR_LIMIT for more than 2^26 joints or 2^26 curves, BW_ERR_OUT_OF_MEMORY);
 * initialising a pose that still holds buffers leaks them. */
BW_API bw_result bw_pose_init(bw_pose *pose, const bw_rig *rig, const bw_allocator *allocator);
/* Same for explicit counts (rig-less tools and tests). */
BW_API bw_result bw_pose_init_counts(bw_pose *pose, int joint_count, int curve_count, const bw_allocator *allocator);
BW_API void bw_pose_deinit(bw_pose *pose); /* zeroes the struct; safe on a zeroed pose */

/* Set every joint and curve to identity / 0 with coverage 0. */
BW_API void bw_pose_clear(bw_pose *pose);
/* Copy the rig's current joint values (rest transforms) and curve rest
 * values, with full coverage. Counts must match the rig. */
BW_API void bw_pose_set_rest(bw_pose *pose, const bw_rig *rig);
/* Copy `src` into `dst` (same counts). */
BW_API void bw_pose_copy(bw_pose *dst, const bw_pose *src);

/* Model-space matrices (column-major 4x4, cglm's mat4 layout: model[i][c]
 * is column c, model[i][3] holds the translation) for every joint:
 * model[i] = model[parent(i)] * local(i), local = T * R * S. `model` has
 * room for the rig's joint count; nothing is written when the pose's joint
 * count differs from the rig's. Never allocates. Each rotation is used as
 * q / |q| while |q|² stays inside float range, 1e-30 < |q|² < FLT_MAX
 * (|q| from about 1e-15 to 1.8e19; a sampled or mixed pose's are unit);
 * outside it, and for a zero or non-finite q, the joint's rotation is the
 * identity (the per-frame kernels square without rescaling;
 * bw_transform_to_matrix accepts any size). */
BW_API void bw_pose_local_to_model(const bw_rig *rig, const bw_pose *pose, float (*model)[4][4]);
/* The same on a chosen kernel path (BW_SIMD_AUTO: what
 * bw_pose_local_to_model runs); for tests and hosts that pin a path. */
BW_API void bw_pose_local_to_model_with(const bw_rig *rig, const bw_pose *pose, bw_simd_path path, float (*model)[4][4]);

/* Compose a local transform into a column-major matrix (T * R * S). The
 * rotation is used as q / |q| for any finite non-zero q (1e-40 or 1e30 in
 * size alike; a zero or non-finite quaternion counts as identity), so a
 * denormalized quaternion does not shear the matrix. */
BW_API void bw_transform_to_matrix(const bw_transform *x, float m[4][4]);

#ifdef __cplusplus
}
#endif
#endif
