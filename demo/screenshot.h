/* screenshot.h - the demo's PNG screenshots (stb_image_write from Debian's
 * libstb-dev; no hand-written encoder). */
#ifndef BW_DEMO_SCREENSHOT_H
#define BW_DEMO_SCREENSHOT_H

#include <SDL.h>
#include <stdbool.h>
#include <stddef.h>

/* Read the renderer's current target (width x height pixels) and write it
 * to `path` as an 8-bit RGB PNG. False with the reason in err (SDL's
 * message, or "cannot write PATH: why", why being the system's word for a
 * failed open, write or close: "No such file or directory", "No space
 * left on device"). Allocates one pixel buffer per call (not the frame
 * path). */
bool demo_screenshot_png(SDL_Renderer *renderer, int width, int height, const char *path, char *err, size_t err_size);

#endif
