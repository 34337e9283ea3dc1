/* pose_internal.h - a pose's one-block layout (pose.c) for owners that
 * lay poses out in a block of their own (the graph cursor). Private. */
#ifndef BW_POSE_INTERNAL_H
#define BW_POSE_INTERNAL_H

#include <stddef.h>

#include "blendwerk/pose.h"

/* Bytes of a pose's block: joint_count transforms, then joint_count
 * coverages, curve_count values and curve_count coverages. */
size_t bw_pose_block_bytes(int joint_count, int curve_count);

/* Point `pose` at `storage` (bw_pose_block_bytes of it, float-aligned)
 * and clear it (bw_pose_clear). A pose made so borrows its storage: its
 * owner frees the block, and it is never passed to bw_pose_deinit. */
void bw_pose_init_in(bw_pose *pose, int joint_count, int curve_count, void *storage);

#endif
