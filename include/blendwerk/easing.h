/* blendwerk/easing.h - easing curves applied to the normalized time between
 * two keys (SPEC §3). The destination key's style and direction apply.
 *
 * in(u) is the style's base curve with in(0) = 0, in(1) = 1;
 * out(u) = 1 - in(1 - u); in_out(u) = in(2u)/2 for u < 1/2, else
 * 1 - in(2 - 2u)/2. Back and elastic overshoot [0, 1] by design. CONSTANT
 * is a step: 0 for u < 1, 1 at u = 1 (the value holds until the next key).
 */
#ifndef BLENDWERK_EASING_H
#define BLENDWERK_EASING_H

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

/* Eased value of u (clamped to [0, 1] first; NaN counts as 0). */
float bw_ease(bw_ease_style style, bw_ease_dir dir, float u);

/* Names as used by the Lua API: "linear", "constant", "quad", "cubic",
 * "quart", "quint", "sine", "exponential", "circular", "back", "elastic",
 * "bounce"; directions "in", "out", "in_out". Lookups return -1 if unknown. */
const char *bw_ease_style_name(bw_ease_style style);
const char *bw_ease_dir_name(bw_ease_dir dir);
int bw_ease_style_find(const char *name);
int bw_ease_dir_find(const char *name);

#ifdef __cplusplus
}
#endif
#endif
