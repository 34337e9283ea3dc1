/* input.h - keyboard, gamepad and mouse -> the demo's character input and
 * commands (docs/demo.md lists every key).
 *
 * Held keys and sticks make the wanted velocity (in the character's
 * frame: W / Up forward, S / Down back, A its left, D its right; 1.5 m/s,
 * 4 m/s with Shift, a shoulder or the right trigger; a diagonal is not
 * faster) and the turn rate (Q / Left toward its left, E / Right toward
 * its right, or the right stick: 1.5 rad/s); the mouse sets the look-at
 * target: the point under the mouse pixel's centre on the plane through
 * the head facing the camera (demo_camera_project maps it back to that
 * pixel centre). Presses are commands the host carries out
 * (demo_command). Nothing here allocates. */
#ifndef BW_DEMO_INPUT_H
#define BW_DEMO_INPUT_H

#include <SDL.h>
#include <stdbool.h>

#include "app.h"
#include "render3d.h"

#define DEMO_WALK_SPEED 1.5f
#define DEMO_RUN_SPEED 4.0f
#define DEMO_TURN_RATE 1.5f

typedef enum demo_command {
    DEMO_CMD_NONE = 0,
    DEMO_CMD_QUIT,
    DEMO_CMD_JUMP,       /* fire "jump" */
    DEMO_CMD_WAVE,       /* gesture wave */
    DEMO_CMD_NOD,        /* gesture nod */
    DEMO_CMD_WAVE_LAYER, /* fire "wave" and fade the "upper" layer in */
    DEMO_CMD_FACE,       /* next face clip */
    DEMO_CMD_TRAVEL,     /* travel the first layer to its next state */
    DEMO_CMD_PAUSE,
    DEMO_CMD_STEP,       /* one frame while paused */
    DEMO_CMD_SLOWER,     /* slow motion: speed / 2 down to 0.1 */
    DEMO_CMD_FASTER,     /* speed x 2 up to 1 */
    DEMO_CMD_OVERLAYS,   /* cycle the overlays */
    DEMO_CMD_RELOAD,     /* reload the graph and character now */
    DEMO_CMD_LOOK_OFF,   /* forget the look-at target */
    DEMO_CMD_HELP
} demo_command;

typedef struct demo_controls {
    bool fwd, back, left, right, turn_left, turn_right, run;
    float stick[2];   /* left stick x (right +), y (down +), dead zone applied */
    float turn_stick; /* right stick x */
    bool pad_run;
    bool has_mouse;
    int mouse[2];
    bool look_off;
} demo_controls;

/* A key went down or up: held state, and the command of a press (repeats
 * are ignored by the caller). */
demo_command demo_controls_key(demo_controls *c, SDL_Keycode key, bool down);
/* A gamepad button press or an axis motion (SDL_GameController events). */
demo_command demo_controls_button(demo_controls *c, Uint8 button, bool down);
void demo_controls_axis(demo_controls *c, Uint8 axis, Sint16 value);
/* The mouse moved to pixel (x, y). */
void demo_controls_mouse(demo_controls *c, int x, int y);
/* The character input now: velocity and turn from the held controls, the
 * look-at target from the mouse through `camera` at the depth of `head`
 * (a world point). */
void demo_controls_input(const demo_controls *c, const demo_camera *camera, const float head[3], demo_input *out);

/* Whether `key` is held to move the character (W A S D, the arrows, Q E,
 * Shift): what demo_controls_input turns into velocity and turn. */
bool demo_key_moves(SDL_Keycode key);

/* The key of a name as --keys writes it ("space", "1", "w", "left", ...),
 * SDLK_UNKNOWN for an unknown name. */
SDL_Keycode demo_key_from_name(const char *name);

#endif
