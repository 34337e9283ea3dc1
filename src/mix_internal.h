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

/* The bytes at the start of the mixer's one block that every run touches
 * first (its struct and per-contribution arrays; kept at creation; 0 for
 * NULL): a caller that prefetches them (bw_prefetch_lines, the graph
 * cursor's hint) reads this once and keeps it, so the prefetch reads
 * nothing of the (cold) mixer itself. */
size_t bw_mixer_hot_bytes(const bw_mixer *mixer);

/* A read-only view to pass as a run's `base` instead of clearing `out`
 * first (the joint pass reads the base and writes every block of `out`,
 * so `out` is written once): the values bw_pose_clear writes (identity
 * joints, zero curves, coverage 0) for the mixer's counts, from storage
 * shared by every mixer. Never write through it. False, `view` untouched,
 * for a rig of more than BW_MIX_EMPTY_MAX joints or curves (clear `out`
 * instead). */
#define BW_MIX_EMPTY_MAX 256
bool bw_mix_empty_view(const bw_mixer *mixer, bw_pose *view);

#endif
