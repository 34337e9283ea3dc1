/* blendwerk/sample.h - sampling a bound clip into a pose (SPEC §3).
 *
 * For time τ each track finds the first key with time ≥ τ; before the first
 * key or after the last it holds that endpoint. Between keys a and b,
 * u = (τ − ta)/(tb − ta) is eased by b's style and direction; translation,
 * scale, pose weight, mask weight and float curves interpolate linearly
 * with the eased u, rotation by shortest-arc slerp, angle curves along the
 * shortest arc. CUBICSPLINE tracks use glTF's Hermite form.
 *
 * Output: for every joint some track of the binding drives, the keyed
 * channels are sampled and the joint's unkeyed channels take the rig's
 * current joint value; its coverage is clamp(pose_weight × (1 −
 * mask_weight), 0, 1). Joints no track drives get the identity transform
 * and coverage 0. Curves likewise (coverage 1 when keyed, else 0).
 * A NaN τ samples at 0; +inf and −inf hold the last and first keys, like
 * any time past the ends. Never allocates, never compares strings.
 *
 * Details:
 * - A key's value is reached exactly at its time (u = 1), so a CONSTANT
 *   (glTF STEP) track switches at the key, not after it.
 * - Angle channels a half turn apart (|b − a| = π) turn the way b − a
 *   points. CUBICSPLINE angle tracks interpolate the raw values (no wrap).
 * - Never NaN or infinity: extreme but finite keys whose interpolation
 *   overflows (overshooting easings, huge spline tangents) hold the nearer
 *   key instead; a degenerate rotation spline falls back to slerp.
 */
#ifndef BLENDWERK_SAMPLE_H
#define BLENDWERK_SAMPLE_H

#include "blendwerk/bind.h"
#include "blendwerk/pose.h"

#ifdef __cplusplus
extern "C" {
#endif

/* `binding` must have been made for `rig`'s current layout; `out` must be
 * initialised for `rig`. τ is clip time in seconds (not wrapped here).
 * `out` is always fully written: with a NULL binding, or one whose layout
 * signature differs from the rig's, every coverage is 0. A NULL rig means
 * identity for unkeyed channels. */
BW_API void bw_sample_clip(const bw_binding *binding, const bw_rig *rig, float time, bw_pose *out);

/* Per-call sampling options; all-zero (or a NULL pointer) means the
 * defaults, which is what bw_sample_clip uses. */
typedef struct bw_sample_options {
    bw_simd_path simd; /* uniform-grid sampling kernels (pose.h); results agree on every
                          path to float rounding. This was `bool portable`: 0 / false is
                          BW_SIMD_AUTO, 1 / true BW_SIMD_PORTABLE (the scalar kernel tests
                          compare with). The choice travels with each call. */
} bw_sample_options;

/* bw_sample_clip with options (NULL: defaults). */
BW_API void bw_sample_clip_with(const bw_binding *binding, const bw_rig *rig, float time, const bw_sample_options *options,
                         bw_pose *out);

/* Sample one track at time τ into `out` (width floats; rotations are
 * normalized), with the same rules as bw_sample_clip (a NaN τ samples at
 * 0, ±inf hold the ends). For tools, root motion and tests; writes nothing
 * for a NULL clip or out or a bad track index. */
BW_API void bw_sample_track(const bw_clip *clip, int track, float time, float *out);

/* Angle interpolation along the shortest arc, radians:
 * bw_lerp_angle(350°, 10°, 0.5) = 0 (mod 2π); the result is a + wrapped
 * difference × u, not reduced to a canonical range. */
BW_API float bw_lerp_angle(float a, float b, float u);

#ifdef __cplusplus
}
#endif
#endif
