/* screenshot.c - PNG screenshots through stb_image_write (screenshot.h). */
#include "screenshot.h"

#include "io/atomic_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* stb's writer callback: the bytes into the file, the first failure noted
 * for the commit (stb's own file writer checks neither fwrite nor fclose,
 * so a full disk gave a cut-off PNG and success). */
static void write_bytes(void *context, void *data, int size)
{
    bw_atomic_file *out = (bw_atomic_file *)context;
    if (out->error || size <= 0) return;
    errno = 0;
    if (fwrite(data, 1, (size_t)size, out->f) != (size_t)size) bw_atomic_file_fail(out, errno);
}

/* The PNG into `path`, all at once (atomic_file.h: an existing file is
 * replaced only by a whole PNG); false with the reason in err. */
static bool write_png(const char *path, int width, int height, const unsigned char *rgb, char *err, size_t err_size)
{
    bw_atomic_file out;
    if (!bw_atomic_file_open(&out, path, err, err_size)) return false;
    if (!stbi_write_png_to_func(write_bytes, &out, width, height, 3, rgb, width * 3)) {
        bw_atomic_file_abort(&out);
        snprintf(err, err_size, "cannot write %s: the PNG could not be encoded (out of memory)", path);
        return false;
    }
    return bw_atomic_file_commit(&out, err, err_size);
}

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
    if (ok) ok = write_png(path, width, height, rgb, err, err_size);
    free(rgb);
    return ok;
}
