/* blendspace_internal.h - the weight functions without their argument
 * checks, for callers that checked once already (compiled blend trees:
 * the per-frame walk must not re-validate what the compiler accepted).
 * Preconditions: non-NULL arrays, count / nx / ny >= 1, finite positions,
 * a valid mode (the 2D ones run for any count, at O(n²): the limit,
 * BW_BLEND_MAX_MEMBERS, is the callers' check); the query coordinates
 * may be anything (non-finite counts as 0, as in the public functions).
 * Not part of the public API. */
#ifndef BW_BLENDSPACE_INTERNAL_H
#define BW_BLENDSPACE_INTERNAL_H

#include "blendwerk/blendspace.h"

void bw_blend1d_weights_checked(const float *thresholds, int count, float x, float *out_weights, float *out_rates);
void bw_blend2d_weights_checked(const float *points_xy, int count, float x, float y, bw_blend2d_mode mode,
                                float *out_weights);
/* The same as bw_blend2d_weights_checked without the per-call cache of
 * the directional mode (each magnitude and angle computed where it is
 * used): the straightforward form the cached one is tested against
 * (identical weights, tests/test_blendspace.c). */
void bw_blend2d_weights_uncached(const float *points_xy, int count, float x, float y, bw_blend2d_mode mode,
                                 float *out_weights);
void bw_blend_grid_weights_checked(const float *x_values, int nx, const float *y_values, int ny, float x, float y,
                                   float *out_weights);

#endif
