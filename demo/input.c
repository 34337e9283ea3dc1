/* input.c - keyboard, gamepad and mouse (input.h). */
#include "input.h"

#include <math.h>
#include <string.h>

static bool *held(demo_controls *c, SDL_Keycode key)
{
    switch (key) {
    case SDLK_w:
    case SDLK_UP: return &c->fwd;
    case SDLK_s:
    case SDLK_DOWN: return &c->back;
    case SDLK_a: return &c->left;
    case SDLK_d: return &c->right;
    case SDLK_q:
    case SDLK_LEFT: return &c->turn_left;
    case SDLK_e:
    case SDLK_RIGHT: return &c->turn_right;
    case SDLK_LSHIFT:
    case SDLK_RSHIFT: return &c->run;
    default: return NULL;
    }
}

bool demo_key_moves(SDL_Keycode key)
{
    demo_controls none;
    memset(&none, 0, sizeof none);
    return held(&none, key) != NULL;
}

demo_command demo_controls_key(demo_controls *c, SDL_Keycode key, bool down)
{
    bool *h = held(c, key);
    if (h) {
        *h = down;
        return DEMO_CMD_NONE;
    }
    if (!down) return DEMO_CMD_NONE;
    switch (key) {
    case SDLK_ESCAPE: return DEMO_CMD_QUIT;
    case SDLK_SPACE: return DEMO_CMD_JUMP;
    case SDLK_1: return DEMO_CMD_WAVE;
    case SDLK_2: return DEMO_CMD_NOD;
    case SDLK_3: return DEMO_CMD_WAVE_LAYER;
    case SDLK_f: return DEMO_CMD_FACE;
    case SDLK_t: return DEMO_CMD_TRAVEL;
    case SDLK_p: return DEMO_CMD_PAUSE;
    case SDLK_n:
    case SDLK_PERIOD: return DEMO_CMD_STEP;
    case SDLK_LEFTBRACKET:
    case SDLK_MINUS: return DEMO_CMD_SLOWER;
    case SDLK_RIGHTBRACKET:
    case SDLK_EQUALS: return DEMO_CMD_FASTER;
    case SDLK_o:
    case SDLK_TAB: return DEMO_CMD_OVERLAYS;
    case SDLK_r: return DEMO_CMD_RELOAD;
    case SDLK_l: c->look_off = true; return DEMO_CMD_LOOK_OFF;
    case SDLK_h:
    case SDLK_F1: return DEMO_CMD_HELP;
    default: return DEMO_CMD_NONE;
    }
}

demo_command demo_controls_button(demo_controls *c, Uint8 button, bool down)
{
    if (button == SDL_CONTROLLER_BUTTON_LEFTSHOULDER || button == SDL_CONTROLLER_BUTTON_RIGHTSHOULDER) c->pad_run = down;
    if (!down) return DEMO_CMD_NONE;
    switch (button) {
    case SDL_CONTROLLER_BUTTON_A: return DEMO_CMD_JUMP;
    case SDL_CONTROLLER_BUTTON_X: return DEMO_CMD_WAVE;
    case SDL_CONTROLLER_BUTTON_Y: return DEMO_CMD_NOD;
    case SDL_CONTROLLER_BUTTON_B: return DEMO_CMD_WAVE_LAYER;
    case SDL_CONTROLLER_BUTTON_START: return DEMO_CMD_PAUSE;
    case SDL_CONTROLLER_BUTTON_BACK: return DEMO_CMD_OVERLAYS;
    case SDL_CONTROLLER_BUTTON_DPAD_UP: return DEMO_CMD_TRAVEL;
    case SDL_CONTROLLER_BUTTON_DPAD_RIGHT: return DEMO_CMD_FACE;
    default: return DEMO_CMD_NONE;
    }
}

static float dead_zone(Sint16 v)
{
    float x = (float)v / 32767.0f;
    if (fabsf(x) < 0.2f) return 0.0f;
    x = (fabsf(x) - 0.2f) / 0.8f * (x < 0 ? -1.0f : 1.0f);
    return x < -1.0f ? -1.0f : x > 1.0f ? 1.0f : x;
}

void demo_controls_axis(demo_controls *c, Uint8 axis, Sint16 value)
{
    if (axis == SDL_CONTROLLER_AXIS_LEFTX) c->stick[0] = dead_zone(value);
    else if (axis == SDL_CONTROLLER_AXIS_LEFTY) c->stick[1] = dead_zone(value);
    else if (axis == SDL_CONTROLLER_AXIS_RIGHTX) c->turn_stick = dead_zone(value);
    else if (axis == SDL_CONTROLLER_AXIS_TRIGGERRIGHT) c->pad_run = value > 16000;
}

void demo_controls_mouse(demo_controls *c, int x, int y)
{
    c->has_mouse = true;
    c->look_off = false;
    c->mouse[0] = x;
    c->mouse[1] = y;
}

/* The world ray through pixel (x, y)'s centre (demo_camera_ray) hit with
 * the plane through `point` facing the camera. False for a degenerate
 * camera or a point not in front of it. */
static bool mouse_point(const demo_camera *cam, int x, int y, const float point[3], float out[3])
{
    float dir[3], fwd[3];
    if (!demo_camera_ray(cam, (float)x + 0.5f, (float)y + 0.5f, dir, fwd)) return false;
    float depth = (point[0] - cam->eye[0]) * fwd[0] + (point[1] - cam->eye[1]) * fwd[1] + (point[2] - cam->eye[2]) * fwd[2];
    if (depth <= 0.05f) return false;
    for (int k = 0; k < 3; k++) out[k] = cam->eye[k] + dir[k] * depth; /* dot(dir, fwd) = 1 */
    return true;
}

void demo_controls_input(const demo_controls *c, const demo_camera *camera, const float head[3], demo_input *out)
{
    memset(out, 0, sizeof *out);
    float speed = c->run || c->pad_run ? DEMO_RUN_SPEED : DEMO_WALK_SPEED;
    float z = (float)c->fwd - (float)c->back - c->stick[1];
    float x = (float)c->left - (float)c->right - c->stick[0];
    float n = sqrtf(x * x + z * z);
    if (n > 1.0f) {
        x /= n;
        z /= n;
    }
    out->velocity[0] = x * speed;
    out->velocity[2] = z * speed;
    /* + turns toward +X, the character's left */
    out->turn = ((float)c->turn_left - (float)c->turn_right - c->turn_stick) * DEMO_TURN_RATE;
    if (c->has_mouse && !c->look_off && camera && head)
        out->has_look_at = mouse_point(camera, c->mouse[0], c->mouse[1], head, out->look_at);
}

SDL_Keycode demo_key_from_name(const char *name)
{
    static const struct {
        const char *name;
        SDL_Keycode key;
    } names[] = {{"space", SDLK_SPACE}, {"escape", SDLK_ESCAPE}, {"tab", SDLK_TAB},     {"left", SDLK_LEFT},
                 {"right", SDLK_RIGHT}, {"up", SDLK_UP},         {"down", SDLK_DOWN},   {"shift", SDLK_LSHIFT},
                 {"minus", SDLK_MINUS}, {"plus", SDLK_EQUALS},   {"period", SDLK_PERIOD}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i].name) == 0) return names[i].key;
    if (name[0] && !name[1] && ((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= '0' && name[0] <= '9')))
        return (SDL_Keycode)name[0];
    return SDLK_UNKNOWN;
}
