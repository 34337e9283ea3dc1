/* blendwerk/procedural.h - the math of procedural controls: swing-twist,
 * look rotation, model-space reads of one joint, and head aim (angles of a
 * target relative to the body's facing, the clamp with its overflow to the
 * eyes, and the split over a joint chain).
 *
 * One implementation: the character animator's head aim (animator.h) and
 * the Lua controls (bindings/lua_control.c, scripts/head_aim.lua) call
 * these functions, so C and Lua give the same numbers.
 *
 * Conventions (the animator's): quaternions are float[4] x, y, z, w;
 * Y is up, the character faces +Z at yaw 0 and a positive yaw turns it
 * toward +X; a positive pitch looks up. Angles in radians.
 *
 * Every function is pure (no allocation, no state), writes its outputs
 * only, and tolerates aliasing of a quaternion input and output. Inputs
 * must be finite (the Lua glue checks and names the argument); a
 * degenerate input (a zero axis or direction) has a defined result below.
 */
#ifndef BLENDWERK_PROCEDURAL_H
#define BLENDWERK_PROCEDURAL_H

#include "blendwerk/pose.h"
#include "blendwerk/rig.h"
#include "blendwerk/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Split q into q = swing * twist, where twist rotates about `axis` (any
 * finite length but 0, 1e-40 to 1e38 alike) and swing about an axis
 * perpendicular to it. Both are unit quaternions; q is used as q / |q| at
 * any finite non-zero size (zero: the identity). When q has no rotation
 * about the axis component (its vector part and w project to zero: a 180°
 * swing), twist is the identity and swing = q normalized. A zero axis
 * gives twist = identity. */
BW_API void bw_swing_twist(const float q[4], const float axis[3], float out_swing[4], float out_twist[4]);

/* The rotation that turns +Z onto `forward` and +Y as close to `up` as
 * it can (an orthonormal frame from forward and up). Only the directions
 * count: forward and up of any finite length (1e-40 to 1e38 alike). forward
 * zero (every component 0): identity. up zero or parallel to forward: +Y
 * is used, or +X when forward is vertical too. */
BW_API void bw_look_rotation(const float forward[3], const float up[3], float out[4]);

/* Model-space position of `joint` in `pose` (parents' T * R * S composed,
 * the same as bw_pose_local_to_model's translation column, without the
 * matrices): walks the joint's ancestors only. Out-of-range joint: 0. */
BW_API void bw_model_position(const bw_rig *rig, const bw_pose *pose, int joint, float out[3]);
/* Model-space rotation of `joint` (the ancestors' rotations composed,
 * scale ignored as aim directions are). joint -1 (a root's parent) or out
 * of range: the identity. */
BW_API void bw_model_rotation(const bw_rig *rig, const bw_pose *pose, int joint, float out[4]);

/* Yaw and pitch of `target` (world) seen from the model-space point
 * `model_origin` of a body at `body_position` (world) facing `body_yaw`:
 * the origin goes to world as body_position + Ry(body_yaw) model_origin;
 * yaw = atan2(dx, dz) - body_yaw wrapped to (-pi, pi] (0 when the target
 * is straight above or below, |(dx, dz)| <= 1e-6), pitch = atan2(dy,
 * |(dx, dz)|). So the yaw is relative to the BODY's forward, not world +Z. */
BW_API void bw_aim_angles(const float body_position[3], float body_yaw, const float model_origin[3],
                          const float target[3], float *out_yaw, float *out_pitch);

/* Head-aim limits (radians, finite, >= 0). `behind`: the band around
 * straight behind (|yaw| > pi - behind) in which the side turned to last
 * frame is kept (the animator uses BW_ANIMATOR_BEHIND_HYSTERESIS). */
typedef struct bw_aim_limits {
    float yaw, pitch;         /* what the chain may take */
    float eye_yaw, eye_pitch; /* what the eyes may take of the rest */
    float behind;
} bw_aim_limits;

/* The clamp with its overflow. `last_yaw` is the yaw the chain took last
 * frame (0 at first). When |yaw| > pi - behind and last_yaw has the other
 * sign, yaw moves by 2 pi to last_yaw's side (the head does not flip when
 * the target crosses straight behind). Then
 *   out[0] = head yaw   = clamp(yaw, +-limits.yaw)
 *   out[1] = head pitch = clamp(pitch, +-limits.pitch)
 *   out[2] = eye yaw    = clamp(yaw - out[0], +-limits.eye_yaw)
 *   out[3] = eye pitch  = clamp(pitch - out[1], +-limits.eye_pitch). */
BW_API void bw_aim_clamp(float yaw, float pitch, float last_yaw, const bw_aim_limits *limits, float out[4]);

/* The model-space rotation of an aim: Ry(yaw) * Rx(-pitch) (turn toward
 * +X by yaw about up, then look up by pitch about the right axis). */
BW_API void bw_aim_rotation(float yaw, float pitch, float out[4]);

/* A rotation toward a direction, clamped relative to a body frame: `dir`
 * is expressed in the body frame `body` (unit quaternion) to get its yaw
 * and pitch there (as bw_aim_angles, but from a direction), they are
 * clamped to +-yaw_limit and +-pitch_limit, and out = body *
 * bw_aim_rotation(yaw, pitch): the frame turned as far toward dir as the
 * limits allow. A zero dir: out = body. */
BW_API void bw_rotate_toward(const float body[4], const float dir[3], float yaw_limit, float pitch_limit,
                             float out[4]);

/* Split an aim over a chain of `count` joints (root-most first, each a
 * descendant of the one before or not, as the rig has them): in order,
 * joint chain[i] turns by bw_aim_rotation(w_i yaw, w_i pitch), a model-
 * space delta conjugated into the joint's parent frame as the pose has it
 * at that point (so the earlier joints' turns count): r_i = (P^-1 D P) r_i
 * with P the parent's model rotation, then normalized. The new parent-local
 * rotations are written into the pose and, when out_local is not NULL,
 * into out_local[4 i .. 4 i + 3]. Joints out of range are skipped. */
BW_API void bw_aim_chain(const bw_rig *rig, bw_pose *pose, const int *chain, const float *weights, int count,
                         float yaw, float pitch, float *out_local);

/* The head-aim step in one call, as the animator runs it (animator.h,
 * step 4) and blendwerk.aim does: the target's yaw and pitch from the
 * chain's last joint (bw_model_position, bw_aim_angles), clamped
 * (bw_aim_clamp with last_yaw and limits; out gets its four values), and
 * the clamped yaw and pitch split over the chain (bw_aim_chain, into the
 * pose): those four calls in that order, so both give the same numbers.
 * A pose that does not fit the rig, or an empty chain: the pose is
 * untouched and out is the clamp of the aim from the model origin. */
BW_API void bw_aim_head(const bw_rig *rig, bw_pose *pose, const int *chain, const float *weights, int count,
                        const float body_position[3], float body_yaw, const float target[3], float last_yaw,
                        const bw_aim_limits *limits, float out[4]);

#ifdef __cplusplus
}
#endif
#endif
