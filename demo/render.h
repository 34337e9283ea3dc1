/* render.h - drawing the demo with an SDL_Renderer (no OpenGL needed):
 * the skeleton of the player's last pose in an orthographic view (bones as
 * thick lines between model-space joint positions, joints as squares,
 * left/right limbs coloured apart), a ground grid that scrolls with the
 * clips' ground speed, and the text overlay (clips, track weights, marker
 * events, the reload error, the keys) in the built-in font.
 *
 * The view fits itself to the character's rest pose when the character
 * changes; after a reload it keeps its scale unless the figure's size
 * changed a lot, so small edits do not make the figure jump. Drawing never
 * allocates; refitting (once per character version) does.
 */
#ifndef BW_DEMO_RENDER_H
#define BW_DEMO_RENDER_H

#include <SDL.h>

#include "player.h"
#include "reload.h"

typedef struct demo_view {
    float yaw, pitch;             /* degrees; yaw 0 looks at the figure's front */
    float zoom;                   /* 1 = the figure fills about 60% of the height */
    float center[3];              /* model point drawn at the figure's place */
    float extent;                 /* rest-pose height (model units) the fit used */
    float ground_y;               /* model height of the ground grid */
    double ground_offset;         /* metres the ground has scrolled */
    const demo_character *fitted; /* character version the fit belongs to */
    signed char side[DEMO_MAX_JOINTS]; /* +1 left, -1 right, 0 centre (from joint names) */
    bool head_tip[DEMO_MAX_JOINTS];    /* leaf under a "head" joint: drawn as the head's circle */
    float head_length[DEMO_MAX_JOINTS];/* its rest bone length (model units) */
} demo_view;

/* What the overlay shows besides the player. */
typedef struct demo_hud {
    const char *script_name;      /* shown in the title line */
    const demo_reloader *reloader;/* its error, if any, is shown in red */
    float dt;                     /* simulation step */
    const char *flash;            /* a short notice ("reloaded"), or NULL */
    float flash_alpha;            /* 0..1 */
} demo_hud;

void demo_view_init(demo_view *view, float yaw, float pitch);
/* Per frame: refit if the player's character changed, scroll the ground. */
void demo_view_update(demo_view *view, const demo_player *player, float dt);
/* Draw one frame. `player` may be NULL (no good version yet: only the
 * overlay and the error are drawn). */
void demo_render(SDL_Renderer *renderer, int width, int height, const demo_view *view, const demo_player *player,
                 const demo_hud *hud);

#endif
