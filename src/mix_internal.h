/* mix_internal.h - the mixer's entry points for other runtime units
 * (private; the public contract is include/blendwerk/mix.h). */
#ifndef BW_MIX_INTERNAL_H
#define BW_MIX_INTERNAL_H

#include <stdbool.h>

#include "blendwerk/mix.h"

/* bw_mix_run_clips for a caller that has already checked that every
 * binding is made for `rig`'s current layout and topology (play.c's
 * compose): the per-binding check is skipped. */
bw_result bw_mix_run_clips_checked(bw_mixer *mixer, const bw_rig *rig, const bw_pose *base,
                                   const bw_clip_contribution *clips, int count, bw_pose *out);

/* The bytes at the start of the mixer's one block that every run touches
 * first (its struct and per-contribution arrays; kept at creation; 0 for
 * NULL): a caller that prefetches them (bw_prefetch_lines, the graph
 * cursor's hint) reads this once and keeps it, so the prefetch reads
 * nothing of the (cold) mixer itself. */
size_t bw_mixer_hot_bytes(const bw_mixer *mixer);
/* The same for runs of at most `contributions` contributions (the
 * flattened entries come last in the hot part, so a caller whose steady
 * runs use fewer than the mixer's maximum asks for fewer lines). */
size_t bw_mixer_hot_bytes_for(const bw_mixer *mixer, int contributions);

/* Read-only bases. A run reads its base in the same pass that writes
 * every block of `out`, so a caller that would fill `out` first and mix
 * over it passes one of these views as the base instead: `out` is written
 * once. Both views are the mixer's counts; never write through them.
 *
 * bw_mix_rest_view: the rig's current joint and curve values at coverage
 * 1, read in place from the rig (never copied). False, `view` untouched,
 * when the rig has fewer joints or curves than the mixer was made for.
 *
 * bw_mix_empty_view: the values bw_pose_clear writes (identity joints,
 * zero curves, coverage 0), from storage shared by every mixer (it stays
 * in cache across a crowd). False, `view` untouched, for a rig of more
 * than BW_MIX_EMPTY_MAX joints or curves (clear `out` instead). */
bool bw_mix_rest_view(const bw_mixer *mixer, const bw_rig *rig, bw_pose *view);
#define BW_MIX_EMPTY_MAX 256
bool bw_mix_empty_view(const bw_mixer *mixer, bw_pose *view);

#endif
