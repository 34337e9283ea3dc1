/* mix_internal.h - the mixer's entry points for other runtime units
 * (private; the public contract is include/blendwerk/mix.h). */
#ifndef BW_MIX_INTERNAL_H
#define BW_MIX_INTERNAL_H

#include <stdbool.h>

#include "blendwerk/mix.h"

/* bw_mix_run_clips; with over_rest (base ignored) the base is the rig's
 * current joint and curve values at coverage 1, read in place (never
 * copied; nothing is written to `out` on failure). With
 * bindings_checked the caller has already checked that every binding is
 * made for `rig`'s current layout and topology (play.c's compose), and
 * the per-binding check is skipped. */
bw_result bw_mix_run_clips_over(bw_mixer *mixer, const bw_rig *rig, const bw_pose *base, bool over_rest,
                                bool bindings_checked, const bw_clip_contribution *clips, int count, bw_pose *out);

#endif
