/* font.h - a tiny built-in bitmap font for the demo's on-screen text.
 *
 * 5 x 7 pixel glyphs for printable ASCII (32..126), drawn as filled
 * rectangles of `scale` x `scale` pixels, one pixel column of spacing per
 * glyph (so a character advances 6 * scale pixels, a line is 9 * scale).
 * Other bytes draw as '?'. Drawing never allocates.
 */
#ifndef BW_DEMO_FONT_H
#define BW_DEMO_FONT_H

#include <SDL.h>

#define DEMO_FONT_ADVANCE 6 /* pixels per character at scale 1 */
#define DEMO_FONT_LINE 9    /* pixels per line at scale 1 */

/* Draw `text` (up to the first '\n' or its end) with its top-left corner at
 * (x, y) in the renderer's current draw color. Returns the width drawn. */
int demo_font_draw(SDL_Renderer *renderer, int x, int y, int scale, const char *text);
/* Same for at most `len` bytes of `text`. */
int demo_font_draw_n(SDL_Renderer *renderer, int x, int y, int scale, const char *text, size_t len);

#endif
