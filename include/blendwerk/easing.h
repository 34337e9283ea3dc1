/* blendwerk/easing.h - easing curves applied to the normalized time between
 * two keys (SPEC §3). The destination key's style and direction apply.
 *
 * in(u) is the style's base curve with in(0) = 0, in(1) = 1;
 * out(u) = 1 - in(1 - u); in_out(u) = in(2u)/2 for u < 1/2, else
 * 1 - in(2 - 2u)/2. Back and elastic overshoot [0, 1] by design. CONSTANT
 * is a step: 0 for u < 1, 1 at u = 1 (the value holds until the next key).
 *
 * The base curves (Robert Penner's, as popularised by easings.net), for
 * u in (0, 1); every style and direction returns exactly 0 at u = 0 and
 * exactly 1 at u = 1:
 *   LINEAR       in(u) = u                       (all directions identical)
 *   CONSTANT     in(u) = 0                       (step at u = 1; the
 *                                                 direction is ignored, so a
 *                                                 step never jumps early)
 *   QUAD         in(u) = u^2
 *   CUBIC        in(u) = u^3
 *   QUART        in(u) = u^4
 *   QUINT        in(u) = u^5
 *   SINE         in(u) = 1 - cos(u * pi/2)
 *   EXPONENTIAL  in(u) = 2^(10u - 10)            (Penner's form: in(0) is
 *                                                 defined as 0, not 2^-10)
 *   CIRCULAR     in(u) = 1 - sqrt(1 - u^2)
 *   BACK         in(u) = c3 u^3 - c1 u^2,  c1 = 1.70158, c3 = c1 + 1
 *                (dips to about -0.1 before rising)
 *   ELASTIC      in(u) = -2^(10u - 10) * sin((10u - 10.75) * c4),
 *                c4 = 2 pi / 3
 *   BOUNCE       in(u) = 1 - bounce_out(1 - u), where with n = 7.5625,
 *                d = 2.75:
 *                  bounce_out(x) = n x^2                        x < 1/d
 *                                = n (x - 1.5/d)^2   + 0.75     x < 2/d
 *                                = n (x - 2.25/d)^2  + 0.9375   x < 2.5/d
 *                                = n (x - 2.625/d)^2 + 0.984375 otherwise
 * IN_OUT always uses the generic mirror above, also for back and elastic
 * (Penner's separate in-out constants for those two are not used), so
 * every in_out curve passes through 1/2 at u = 1/2.
 */
#ifndef BLENDWERK_EASING_H
#define BLENDWERK_EASING_H

#include "blendwerk/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bw_ease_style {
    BW_EASE_LINEAR = 0,
    BW_EASE_CONSTANT,
    BW_EASE_QUAD,
    BW_EASE_CUBIC,
    BW_EASE_QUART,
    BW_EASE_QUINT,
    BW_EASE_SINE,
    BW_EASE_EXPONENTIAL,
    BW_EASE_CIRCULAR,
    BW_EASE_BACK,
    BW_EASE_ELASTIC,
    BW_EASE_BOUNCE,
    BW_EASE_STYLE_COUNT
} bw_ease_style;

typedef enum bw_ease_dir { BW_EASE_IN = 0, BW_EASE_OUT, BW_EASE_IN_OUT, BW_EASE_DIR_COUNT } bw_ease_dir;

/* Eased value of u (clamped to [0, 1] first; NaN counts as 0). An unknown
 * style or direction (out of the enum's range) behaves as LINEAR. Never
 * returns NaN. */
BW_API float bw_ease(bw_ease_style style, bw_ease_dir dir, float u);

/* Names as used by the Lua API: "linear", "constant", "quad", "cubic",
 * "quart", "quint", "sine", "exponential", "circular", "back", "elastic",
 * "bounce"; directions "in", "out", "in_out". Lookups return -1 if unknown
 * (or NULL); the name functions return "unknown" for out-of-range values. */
BW_API const char *bw_ease_style_name(bw_ease_style style);
BW_API const char *bw_ease_dir_name(bw_ease_dir dir);
BW_API int bw_ease_style_find(const char *name);
BW_API int bw_ease_dir_find(const char *name);

#ifdef __cplusplus
}
#endif
#endif
