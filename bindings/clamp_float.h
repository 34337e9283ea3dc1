/* clamp_float.h - one rule for turning a double a user typed (a Lua number,
 * a command-line field) into the float the core takes: NaN and infinities
 * pass through (the core defines them: a non-finite weight counts as 0, a
 * non-finite time samples at 0), finite values beyond float range clamp to
 * +-FLT_MAX, so "huge" stays "far past the end" or "full weight" instead of
 * overflowing to infinity and then meaning nothing. Shared by the Lua
 * module (bw_lua_clamp_float, blendwerk.mix) and `blendwerk sample`. */
#ifndef BW_CLAMP_FLOAT_H
#define BW_CLAMP_FLOAT_H

#include <float.h>
#include <math.h>

static inline float bw_clamp_to_float(double v)
{
    if (isnan(v)) return NAN;
    if (v > (double)FLT_MAX) return isinf(v) ? INFINITY : FLT_MAX;
    if (v < -(double)FLT_MAX) return isinf(v) ? -INFINITY : -FLT_MAX;
    return (float)v;
}

#endif
