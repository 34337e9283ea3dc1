/* screenshot.c - PNG screenshots through stb_image_write (screenshot.h). */
#include "screenshot.h"

#include <stdio.h>
#include <stdlib.h>

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBIW_ASSERT(x) ((void)0)
#include <stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

bool demo_screenshot_png(SDL_Renderer *renderer, int width, int height, const char *path, char *err, size_t err_size)
{
    if (width <= 0 || height <= 0) {
        snprintf(err, err_size, "cannot write %s: empty image", path);
        return false;
    }
    unsigned char *rgb = (unsigned char *)malloc((size_t)width * (size_t)height * 3);
    if (!rgb) {
        snprintf(err, err_size, "cannot write %s: out of memory", path);
        return false;
    }
    bool ok = SDL_RenderReadPixels(renderer, NULL, SDL_PIXELFORMAT_RGB24, rgb, width * 3) == 0;
    if (!ok) snprintf(err, err_size, "cannot read the frame for %s: %s", path, SDL_GetError());
    if (ok && !stbi_write_png(path, width, height, 3, rgb, width * 3)) {
        snprintf(err, err_size, "cannot write %s", path);
        ok = false;
    }
    free(rgb);
    return ok;
}
