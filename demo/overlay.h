/* overlay.h - the demo's 2D overlays over the 3D view (docs/demo.md
 * "Overlays"): what the runtime is doing, drawn with SDL_Renderer
 * rectangles and lines and the built-in font (font.h).
 *
 * Panels, left to right, top to bottom:
 * - status: files, simulated time, frame time and animation time (the
 *   animator's update) per frame, speed and pause, the controls that run
 *   (their file names, the runner's reload count, FAILING while a
 *   control's update fails), the key help line;
 * - per graph layer, its state machine: states as boxes (the current one
 *   lit), the transition in flight as an arrow from its source to its
 *   destination that fills with the transition's weight, the layer weight;
 * - the graph parameters with their values;
 * - the active clips with their weights as bars (demo_app_clip_weights);
 * - the first layer's current 2D blend space (when it is one): every
 *   sample at its position with its weight (the leaves the graph cursor
 *   evaluated in the last update, bw_graph_cursor_leaves: nothing is
 *   evaluated again), the input point;
 * - the recent events;
 * - head aim and gaze against the limits in force (the animator's, or the
 *   aiming control's ctx.aim_limits: demo_app_head_limits), seen from above;
 * - the session's problems in red at the bottom (demo_app_error: every
 *   broken or failing source's "FILE:LINE: message" lines at once, up to
 *   12 rows, the last counting the lines left out), or the last reload's
 *   note for a few seconds.
 * DEMO_OVERLAY_MINIMAL draws only the status and the error; OFF nothing
 * but the error. Nothing here allocates or changes the session.
 */
#ifndef BW_DEMO_OVERLAY_H
#define BW_DEMO_OVERLAY_H

#include <SDL.h>
#include <stdbool.h>

#include "app.h"

typedef enum demo_overlay_mode {
    DEMO_OVERLAY_ALL = 0,
    DEMO_OVERLAY_MINIMAL,
    DEMO_OVERLAY_OFF,
    DEMO_OVERLAY_MODE_COUNT
} demo_overlay_mode;

typedef struct demo_overlay_info {
    demo_overlay_mode mode;
    double frame_ms;   /* the host's whole frame; < 0: not shown, nor the animation's time
                          (headless: its pictures are the same on every run) */
    float speed;       /* time scale, 0.1 .. 1 */
    bool paused;
    bool help;         /* draw the key list */
    double note_until; /* simulated time the reload note shows until */
} demo_overlay_info;

void demo_overlay_draw(SDL_Renderer *renderer, const demo_app *app, int width, int height, const demo_overlay_info *info);

#endif
