/* easing.c - Penner-style easing curves (formulas documented in easing.h).
 *
 * Everything is computed from the "in" base curve so the out and in-out
 * directions are exact mirrors by construction. The endpoints are returned
 * exactly (0 and 1) before any curve is evaluated: sine and exponential
 * would otherwise miss 1 by a rounding error, and a key's value must be
 * reached exactly when its time is. */
#include "blendwerk/easing.h"

#include "common.h"

#define PI_F ((float)M_PI)

static float bounce_out(float x)
{
    const float n = 7.5625f, d = 2.75f;
    if (x < 1.0f / d) return n * x * x;
    if (x < 2.0f / d) { x -= 1.5f / d; return n * x * x + 0.75f; }
    if (x < 2.5f / d) { x -= 2.25f / d; return n * x * x + 0.9375f; }
    x -= 2.625f / d;
    return n * x * x + 0.984375f;
}

/* The base curve, for u in [0, 1]. */
static float ease_in(bw_ease_style style, float u)
{
    switch (style) {
    case BW_EASE_CONSTANT: return u >= 1.0f ? 1.0f : 0.0f;
    case BW_EASE_QUAD: return u * u;
    case BW_EASE_CUBIC: return u * u * u;
    case BW_EASE_QUART: return (u * u) * (u * u);
    case BW_EASE_QUINT: return (u * u) * (u * u) * u;
    case BW_EASE_SINE: return 1.0f - cosf(u * (PI_F * 0.5f));
    case BW_EASE_EXPONENTIAL: return u <= 0.0f ? 0.0f : exp2f(10.0f * u - 10.0f);
    case BW_EASE_CIRCULAR: {
        float r = 1.0f - u * u;
        return 1.0f - sqrtf(r > 0.0f ? r : 0.0f);
    }
    case BW_EASE_BACK: {
        const float c1 = 1.70158f, c3 = c1 + 1.0f;
        return c3 * u * u * u - c1 * u * u;
    }
    case BW_EASE_ELASTIC: {
        const float c4 = 2.0f * PI_F / 3.0f;
        if (u <= 0.0f) return 0.0f;
        if (u >= 1.0f) return 1.0f;
        return -exp2f(10.0f * u - 10.0f) * sinf((10.0f * u - 10.75f) * c4);
    }
    case BW_EASE_BOUNCE: return 1.0f - bounce_out(1.0f - u);
    case BW_EASE_LINEAR:
    default: return u;
    }
}

float bw_ease(bw_ease_style style, bw_ease_dir dir, float u)
{
    if (!(u > 0.0f)) return 0.0f; /* also NaN */
    if (u >= 1.0f) return 1.0f;
    if ((unsigned)style >= BW_EASE_STYLE_COUNT || style == BW_EASE_LINEAR) return u;
    if (style == BW_EASE_CONSTANT) return 0.0f; /* direction ignored: hold until the key */
    switch (dir) {
    case BW_EASE_OUT: return 1.0f - ease_in(style, 1.0f - u);
    case BW_EASE_IN_OUT:
        if (u < 0.5f) return 0.5f * ease_in(style, 2.0f * u);
        return 1.0f - 0.5f * ease_in(style, 2.0f - 2.0f * u);
    case BW_EASE_IN: return ease_in(style, u);
    default: return u;
    }
}

static const char *const style_names[BW_EASE_STYLE_COUNT] = {
    "linear", "constant", "quad", "cubic", "quart", "quint",
    "sine", "exponential", "circular", "back", "elastic", "bounce",
};
static const char *const dir_names[BW_EASE_DIR_COUNT] = {"in", "out", "in_out"};

const char *bw_ease_style_name(bw_ease_style style)
{
    return (unsigned)style < BW_EASE_STYLE_COUNT ? style_names[style] : "unknown";
}

const char *bw_ease_dir_name(bw_ease_dir dir)
{
    return (unsigned)dir < BW_EASE_DIR_COUNT ? dir_names[dir] : "unknown";
}

int bw_ease_style_find(const char *name)
{
    if (!name) return -1;
    for (int i = 0; i < BW_EASE_STYLE_COUNT; i++)
        if (!strcmp(name, style_names[i])) return i;
    return -1;
}

int bw_ease_dir_find(const char *name)
{
    if (!name) return -1;
    for (int i = 0; i < BW_EASE_DIR_COUNT; i++)
        if (!strcmp(name, dir_names[i])) return i;
    return -1;
}
