/* blendwerk/rootmotion.h - root-motion extraction and removal (SPEC §8).
 *
 * The runtime never moves a character: it reports how far the root joint
 * travelled during a frame (horizontal X and Z, optionally Y, and yaw about
 * +Y) and removes that travel from the evaluated root, so the root stays in
 * place while the game's movement code applies the reported delta. This
 * module does not care where the plays come from: extraction is a pure
 * function over a list of {binding, clip time before the step, signed
 * clip-time advance, loop flag, weight, priority};
 * bw_root_motion_extract_tracks fills that list from a bw_track_set.
 *
 * Frames. Positions and rotations of the root are taken in model space:
 * the root's sampled local transform is carried through its ancestors at
 * the rig's current joint values (ancestors are not expected to be animated;
 * their scale converts the units, e.g. a glTF armature's 0.01). The root's
 * *heading* ψ(τ) at clip time τ is the twist angle about +Y of its model
 * rotation (swing–twist split; right-handed, so a positive yaw turns +Z
 * toward +X). The *character frame* at clip time τ is the model frame
 * turned by ψ(τ): it is what the character looks like after removal (root
 * yaw gone), so the game's heading stands for the root's heading.
 *
 * One play's travel from clip time a to b (both within one cycle), in the
 * character frame at the start of the step:
 *     t   = rotY(−ψ(a)) · (p(b) − p(a))     p = the root's model position
 *     yaw = ψ(b) − ψ(a), accumulated key by key along the rotation track,
 *           so a turn of more than 180° within one step counts in full.
 * With yaw extraction off, ψ is taken as 0 throughout: t is the plain
 * model-space displacement and cycles are never rotated.
 * The game applies it with its own heading h (radians about +Y):
 *     position += rotY(h) · t;   h += yaw;
 * which moves the character along a path congruent to the root's path in
 * the clip (the congruence starts wherever the game placed the character).
 *
 * Loops. Travels compose like rigid motions in the plane: "A then B" is
 * (tA + rotY(yawA) · tB, yawA + yawB), B measured in the frame A ends in.
 * A forward step that wraps is: travel from `from` to the clip's end, then
 * each whole cycle C = travel(0 → length), then travel from the next
 * cycle's start (0) to where the step ends. Travel "from the start of cycle
 * k" is therefore measured in cycle k's own character frame, which the
 * composition rotates by the yaw accumulated over everything before it: a
 * clip that turns 90° per loop while walking forward walks a square, and
 * there is never a backwards jump at the wrap. A reverse step is the exact
 * inverse of the forward step that covers the same clip times, so playing
 * forward and then back returns the character to where it started. A
 * non-looping play travels only inside [0, length]. Whole cycles counted in
 * one step are capped at BW_ROOT_MOTION_MAX_CYCLES.
 *
 * Weights: the mixer's rule (SPEC §5, mix.h) applied to the root joint,
 * so the reported travel is the travel of the root the mixer shows. Each
 * play's share is clamp(weight × coverage, 0, 1), where coverage is its
 * clip's coverage of the root joint at the end of the step, as sampling
 * computes it: pose weight × (1 − mask weight), and 0 when no track of the
 * clip drives the root (an arm-only wave moves no root and reports no
 * travel). Plays are grouped by priority, lowest rank first; per rank
 *     mean = Σ share_i × travel_i / Σ share_i,   c = min(Σ share_i, 1),
 *     result = result × (1 − c) + mean × c,
 * starting from zero travel (the rest pose does not travel). Translation
 * and yaw blend alike, each play's in its own character frame at the start
 * of the step. So a crossfade (weights 1 − f and f, one rank) blends the
 * travels by the fade weights; a lone walk fading out at weight 0.5 reports
 * half its travel, as its pose moves half as far; a root-keyed "stand" on a
 * higher rank at weight 1 reports none.
 *
 * Removal (bw_root_motion_remove) takes the evaluated root, un-yaws its
 * model rotation by its twist about +Y (q' = twist⁻¹ · q: the swing, e.g. a
 * forward lean, stays exactly as authored relative to the character) and
 * moves its model position into the character frame, then sets the enabled
 * horizontal axes to 0 (the root stands over the character's origin) and,
 * if Y extraction is on, Y to the root's rest height; vertical motion is
 * otherwise kept.
 *
 * Per-frame calls never allocate and never compare strings. Non-uniform
 * scale on the root's ancestors is not supported (rotation is taken as the
 * product of the ancestors' rotations).
 */
#ifndef BLENDWERK_ROOTMOTION_H
#define BLENDWERK_ROOTMOTION_H

#include "blendwerk/bind.h"
#include "blendwerk/play.h"
#include "blendwerk/rig.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which parts of the root's motion are extracted (bits of config.axes). */
enum {
    BW_ROOT_X = 1u << 0,   /* translation along the character's X */
    BW_ROOT_Y = 1u << 1,   /* vertical translation (off by default) */
    BW_ROOT_Z = 1u << 2,   /* translation along the character's Z (forward) */
    BW_ROOT_YAW = 1u << 3  /* rotation about +Y */
};
#define BW_ROOT_AXES_DEFAULT (BW_ROOT_X | BW_ROOT_Z | BW_ROOT_YAW)
#define BW_ROOT_AXES_ALL (BW_ROOT_X | BW_ROOT_Y | BW_ROOT_Z | BW_ROOT_YAW)

/* Whole cycles one play may cross in one step; beyond it the count is
 * clamped (a stall of a million loops has no meaningful travel anyway, and
 * the cap keeps the result finite). */
#define BW_ROOT_MOTION_MAX_CYCLES (1 << 20)

/* Plays bw_root_motion_extract_tracks reads from one track set (the rest
 * are counted in bw_root_delta.skipped). */
#define BW_ROOT_MOTION_MAX_TRACKS 64

/* All-zero is the default: joint 0 is the root, axes X, Z and yaw. */
typedef struct bw_root_motion_config {
    int root_joint; /* rig joint index whose travel is extracted */
    unsigned axes;  /* BW_ROOT_* bits; 0 = BW_ROOT_AXES_DEFAULT */
} bw_root_motion_config;

/* Fill `cfg` for `rig`: root_name names the root joint (found once here by
 * bw_rig_find_by_name, never per frame), NULL means joint 0. axes as in the
 * config. BW_ERR_INVALID_ARGUMENT (NULL cfg or rig, unknown axis bits),
 * BW_ERR_EMPTY (rig without joints), BW_ERR_NOT_FOUND (no such joint),
 * BW_ERR_DUPLICATE (several joints carry the name; the caller must pick
 * the index). `cfg` is untouched on failure. */
BW_API bw_result bw_root_motion_config_init(bw_root_motion_config *cfg, const bw_rig *rig, const char *root_name,
                                     unsigned axes, bw_error *err);

/* One play over one step. */
typedef struct bw_root_play {
    const bw_binding *binding; /* clip + rig; made for the rig passed to extract */
    double from;               /* clip time before the step, seconds (looping: any
                                  value, taken modulo the length; else clamped to
                                  [0, length] first and the step taken from
                                  there, its end clamped too: from −5 by 0.5
                                  travels [0, 0.5]) */
    double delta;              /* clip-time advance of the step (speed × dt), signed */
    bool loop;                 /* the play's resolved loop flag */
    float weight;              /* playback weight, >= 0 (negative = 0); share as above */
    int priority;              /* mixer rank (bw_contribution.priority); 0 by default */
} bw_root_play;

/* The frame's travel, in the character frame at the start of the step.
 * Double, so that a game summing a frame's delta for hours (10^6 frames
 * and more) loses nothing to the output's rounding. */
typedef struct bw_root_delta {
    double t[3];     /* translation in rig units (model space); disabled axes are 0 */
    double yaw;      /* radians about +Y, positive turns +Z toward +X; 0 when disabled */
    double coverage; /* [0, 1]: how much of the shown root the plays make up,
                        1 − Π over ranks (1 − c); the rest is the rest pose */
    int used;        /* plays that contributed (share > 0); 0 when the blended
                        travel overflowed (those plays move to skipped) */
    int skipped;     /* plays ignored: NULL binding, binding made for another
                        rig layout, non-finite from / delta / weight, or a
                        non-finite travel (clip values near the float range) */
} bw_root_delta;

/* Blend the travels of `plays`. With no usable play, or no play with a
 * share > 0, the delta is zero (used = 0). BW_ERR_INVALID_ARGUMENT for NULL
 * rig, cfg or out, NULL plays with count > 0, negative count or unknown axis
 * bits; BW_ERR_RANGE for a root joint outside the rig. `out` is untouched
 * on failure. Bad plays are skipped, not errors: one broken play must not
 * freeze the character's movement. Never allocates. */
BW_API bw_result bw_root_motion_extract(const bw_rig *rig, const bw_root_motion_config *cfg, const bw_root_play *plays,
                                 int play_count, bw_root_delta *out);

/* Same over the live tracks of `set` (up to BW_ROOT_MOTION_MAX_TRACKS, in
 * play order), using each track's last advance (bw_track_set_last_step),
 * binding, loop flag, current weight and priority, so the ranks are those
 * bw_track_set_compose mixes. Call it after bw_track_set_advance. `rig` is
 * the set's rig. Errors as above (NULL set too); live tracks beyond the
 * limit are counted in `skipped`. */
BW_API bw_result bw_root_motion_extract_tracks(const bw_track_set *set, const bw_rig *rig, const bw_root_motion_config *cfg,
                                        bw_root_delta *out);

/* Remove the extracted parts from an evaluated root local transform (e.g.
 * &pose.joints[cfg.root_joint] after composing), as described above; scale
 * is kept. BW_ERR_INVALID_ARGUMENT (NULL arguments, unknown axis bits, or
 * ancestors whose scale cannot be inverted), BW_ERR_RANGE (root joint
 * outside the rig), BW_ERR_NON_FINITE (non-finite transform); `root_local`
 * is untouched on failure. A non-unit rotation is normalized. */
BW_API bw_result bw_root_motion_remove(const bw_rig *rig, const bw_root_motion_config *cfg, bw_transform *root_local);

#ifdef __cplusplus
}
#endif
#endif
