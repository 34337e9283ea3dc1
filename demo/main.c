/* main.c - blendwerk-demo, the SDL2 host of the demo character.
 *
 *   blendwerk-demo [--script PATH] [--asset PATH] [--dt SECONDS] [--size WxH]
 *                  [--headless] [--frames N] [--screenshot OUT.bmp]
 *                  [--keys FRAME:KEY,...] [--budget N] [--memory-mb N] [--time-limit S]
 *
 * Loads the character script (default demo/character.lua) in a sandbox,
 * plays its scene with a fixed step per displayed frame, draws the
 * skeleton and an overlay, and reloads the script when it (or a file it
 * read) changes. With --headless no window is created: the frames render
 * into a software renderer's surface, one summary line per second of
 * simulated time goes to stdout, and --screenshot saves the last frame.
 * docs/demo.md describes the keys, the reload behaviour and the script
 * format.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

#include "player.h"
#include "reload.h"
#include "render.h"
#include "script.h"

#ifndef BW_SOURCE_DIR
#define BW_SOURCE_DIR "."
#endif

#define MAX_KEYS 64
#define POLL_SECONDS 0.25

typedef struct key_at {
    long frame;        /* applied before this frame's step (1-based) */
    SDL_Keycode key;
} key_at;

typedef struct options {
    const char *script;
    const char *asset;
    bool headless;
    long frames;       /* -1: until quit */
    const char *screenshot;
    float dt;
    int width, height;
    key_at keys[MAX_KEYS];
    int key_count;
    demo_limits limits;
} options;

typedef struct app {
    options opt;
    demo_reloader reloader;
    demo_player player;
    bool has_player;
    demo_view view;
    bool quit;
    long summary_events;  /* first event not yet summarised */
    long summary_second;  /* last whole second summarised */
    long summary_frame;   /* frame of the last summary */
    const char *script_name;
    double flash_until;   /* simulated time the "reloaded" notice lasts until */
} app;

/* ---- arguments ---- */

static void usage(FILE *f)
{
    fputs("usage: blendwerk-demo [options]\n"
          "  --script PATH        character script (default demo/character.lua)\n"
          "  --asset PATH         a glTF/BVH file the script may show (demo.asset)\n"
          "  --dt SECONDS         simulation step per frame (default 1/60)\n"
          "  --size WxH           window / image size (default 960x600)\n"
          "  --headless           no window: software rendering, summaries on stdout\n"
          "  --frames N           stop after N frames (headless default 120)\n"
          "  --screenshot FILE    save the last frame as a BMP\n"
          "  --keys FRAME:KEY,..  press keys before given frames (1..9, 0, space, r,\n"
          "                       left, right, up, down, plus, minus, escape)\n"
          "  --budget N           script instruction budget (default 50000000)\n"
          "  --memory-mb N        script memory cap in MiB (default 64)\n"
          "  --time-limit S       script wall-clock limit in seconds (default 2)\n",
          f);
}

static SDL_Keycode key_from_name(const char *name)
{
    static const struct {
        const char *name;
        SDL_Keycode key;
    } names[] = {
        {"space", SDLK_SPACE}, {"r", SDLK_r},         {"left", SDLK_LEFT},   {"right", SDLK_RIGHT},
        {"up", SDLK_UP},       {"down", SDLK_DOWN},   {"plus", SDLK_PLUS},   {"minus", SDLK_MINUS},
        {"escape", SDLK_ESCAPE}, {"esc", SDLK_ESCAPE},
    };
    if (name[0] >= '0' && name[0] <= '9' && name[1] == '\0') return SDLK_0 + (name[0] - '0');
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i].name) == 0) return names[i].key;
    return SDLK_UNKNOWN;
}

static bool parse_keys(options *o, const char *spec)
{
    char buf[1024];
    if (strlen(spec) >= sizeof buf) return false;
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *item = strtok(buf, ","); item; item = strtok(NULL, ",")) {
        char *colon = strchr(item, ':');
        if (!colon || o->key_count >= MAX_KEYS) return false;
        *colon = '\0';
        char *end = NULL;
        long frame = strtol(item, &end, 10);
        SDL_Keycode key = key_from_name(colon + 1);
        if (!end || *end || frame < 1 || key == SDLK_UNKNOWN) return false;
        o->keys[o->key_count++] = (key_at){frame, key};
    }
    return true;
}

static bool parse_number(const char *s, double lo, double hi, double *out)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (!end || *end || !isfinite(v) || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static int parse_args(options *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    o->frames = -1;
    o->dt = 1.0f / 60.0f;
    o->width = 960;
    o->height = 600;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        double num = 0.0;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            exit(0);
        } else if (strcmp(a, "--headless") == 0) {
            o->headless = true;
            continue;
        }
        if (!v) {
            fprintf(stderr, "blendwerk-demo: %s needs a value\n", a);
            return 2;
        }
        i++;
        bool ok = true;
        if (strcmp(a, "--script") == 0) {
            o->script = v;
        } else if (strcmp(a, "--asset") == 0) {
            o->asset = v;
        } else if (strcmp(a, "--screenshot") == 0) {
            o->screenshot = v;
        } else if (strcmp(a, "--frames") == 0) {
            ok = parse_number(v, 0, 1e9, &num) && num == floor(num);
            o->frames = (long)num;
        } else if (strcmp(a, "--dt") == 0) {
            ok = parse_number(v, 1e-4, 1.0, &num);
            o->dt = (float)num;
        } else if (strcmp(a, "--size") == 0) {
            ok = sscanf(v, "%dx%d", &o->width, &o->height) == 2 && o->width >= 64 && o->height >= 64 &&
                 o->width <= 8192 && o->height <= 8192;
        } else if (strcmp(a, "--keys") == 0) {
            ok = parse_keys(o, v);
        } else if (strcmp(a, "--budget") == 0) {
            ok = parse_number(v, 1000, 1e13, &num);
            o->limits.instructions = (long long)num;
        } else if (strcmp(a, "--memory-mb") == 0) {
            ok = parse_number(v, 1, 65536, &num);
            o->limits.memory = (size_t)num << 20;
        } else if (strcmp(a, "--time-limit") == 0) {
            ok = parse_number(v, 0.01, 3600, &num);
            o->limits.seconds = num;
        } else {
            fprintf(stderr, "blendwerk-demo: unknown option %s\n", a);
            usage(stderr);
            return 2;
        }
        if (!ok) {
            fprintf(stderr, "blendwerk-demo: bad value for %s: '%s'\n", a, v);
            return 2;
        }
    }
    if (o->headless && o->frames < 0) o->frames = 120;
    return 0;
}

/* demo/character.lua from the working directory (./dev.sh runs from the
 * repository root), else from the source tree the binary was built from. */
static const char *default_script(void)
{
    static const char local[] = "demo/character.lua";
    FILE *f = fopen(local, "r");
    if (f) {
        fclose(f);
        return local;
    }
    return BW_SOURCE_DIR "/demo/character.lua";
}

/* ---- loading and reloading ---- */

static void adopt_first(app *a, demo_character *c)
{
    char err[DEMO_ERROR_MAX];
    if (!demo_player_init(&a->player, c, err, sizeof err)) {
        snprintf(a->reloader.error, sizeof a->reloader.error, "%s", err);
        demo_character_destroy(c);
        return;
    }
    a->has_player = true;
    a->view.yaw = c->scene.view_yaw;
    a->view.pitch = c->scene.view_pitch;
}

static void try_reload(app *a)
{
    if (!a->has_player) {
        demo_character *c = demo_reloader_load(&a->reloader);
        if (c) adopt_first(a, c);
    } else if (demo_reloader_apply(&a->reloader, &a->player)) {
        a->flash_until = a->player.time + 2.0;
    }
    if (a->reloader.error[0] || !a->has_player)
        printf("reload: failed: %s\n", a->reloader.error);
    else
        printf("reload: ok (%s, %d clips)\n", a->script_name, a->player.character->clip_count);
    fflush(stdout);
}

static void handle_key(app *a, SDL_Keycode key)
{
    switch (key) {
    case SDLK_ESCAPE: a->quit = true; break;
    case SDLK_r: try_reload(a); break;
    case SDLK_SPACE:
        if (a->has_player) demo_player_fire_gesture(&a->player);
        break;
    case SDLK_0:
        if (a->has_player) demo_player_restart(&a->player);
        break;
    case SDLK_LEFT: a->view.yaw = fmodf(a->view.yaw - 15.0f, 360.0f); break;
    case SDLK_RIGHT: a->view.yaw = fmodf(a->view.yaw + 15.0f, 360.0f); break;
    case SDLK_UP: a->view.pitch = fminf(a->view.pitch + 10.0f, 80.0f); break;
    case SDLK_DOWN: a->view.pitch = fmaxf(a->view.pitch - 10.0f, -80.0f); break;
    case SDLK_PLUS:
    case SDLK_EQUALS:
    case SDLK_KP_PLUS: a->view.zoom = fminf(a->view.zoom * 1.2f, 8.0f); break;
    case SDLK_MINUS:
    case SDLK_KP_MINUS: a->view.zoom = fmaxf(a->view.zoom / 1.2f, 0.125f); break;
    default:
        if (key >= SDLK_1 && key <= SDLK_9 && a->has_player) demo_player_crossfade(&a->player, (int)(key - SDLK_1));
        break;
    }
}

/* ---- per-frame work shared by both modes ---- */

static void print_summary(app *a, bool final)
{
    const demo_player *p = &a->player;
    char line[4096];
    size_t n = 0;
#define APPEND(...)                                                                   \
    do {                                                                              \
        if (n < sizeof line) {                                                        \
            int k_ = snprintf(line + n, sizeof line - n, __VA_ARGS__);                \
            if (k_ > 0) n += (size_t)k_;                                              \
        }                                                                             \
    } while (0)
    APPEND("t=%.3f frame=%ld%s tracks:", p->time, p->frame, final ? " (end)" : "");
    const demo_track *recs[DEMO_TRACK_CAPACITY];
    int count = demo_player_tracks(p, recs, DEMO_TRACK_CAPACITY);
    for (int i = 0; i < count; i++)
        APPEND(" %s(p%d w=%.2f t=%.3f%s)", recs[i]->name, recs[i]->priority,
               (double)bw_track_set_weight(p->set, recs[i]->handle), bw_track_set_time(p->set, recs[i]->handle),
               bw_track_set_stopping(p->set, recs[i]->handle) ? " out" : "");
    APPEND(" events:");
    if (a->summary_events < p->log_total - DEMO_EVENT_LOG) {
        APPEND(" (%ld lost)", p->log_total - DEMO_EVENT_LOG - a->summary_events);
        a->summary_events = p->log_total - DEMO_EVENT_LOG;
    }
    for (long k = a->summary_events; k < p->log_total; k++) {
        const demo_event *ev = demo_player_event(p, k);
        if (!ev) continue;
        if (ev->kind == DEMO_EVENT_MARKER)
            APPEND(" %s:%s@%.3f", ev->clip, ev->name, ev->time);
        else
            APPEND(" %s:<%s>@%.3f", ev->clip, ev->kind == DEMO_EVENT_ENDED ? "ended" : "stopped", ev->time);
    }
#undef APPEND
    a->summary_events = p->log_total;
    a->summary_frame = p->frame;
    puts(line);
    fflush(stdout);
}

static void step(app *a)
{
    if (!a->has_player) return;
    demo_player_step(&a->player, a->opt.dt);
    demo_view_update(&a->view, &a->player, a->opt.dt);
    long second = (long)floor(a->player.time + 1e-9);
    if (second > a->summary_second) {
        a->summary_second = second;
        if (a->opt.headless) print_summary(a, false);
    }
}

static void draw(app *a, SDL_Renderer *r, int w, int h)
{
    if (a->has_player) demo_view_update(&a->view, &a->player, 0.0f);
    demo_hud hud = {0};
    hud.script_name = a->script_name;
    hud.reloader = &a->reloader;
    hud.dt = a->opt.dt;
    if (a->has_player && a->player.time < a->flash_until) {
        hud.flash = "reloaded";
        hud.flash_alpha = (float)((a->flash_until - a->player.time) / 2.0);
    }
    demo_render(r, w, h, &a->view, a->has_player ? &a->player : NULL, &hud);
}

static bool save_bmp(SDL_Renderer *r, int w, int h, const char *path)
{
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888);
    bool ok = s && SDL_RenderReadPixels(r, NULL, SDL_PIXELFORMAT_ARGB8888, s->pixels, s->pitch) == 0 &&
              SDL_SaveBMP(s, path) == 0;
    if (!ok) fprintf(stderr, "blendwerk-demo: cannot write %s: %s\n", path, SDL_GetError());
    SDL_FreeSurface(s);
    return ok;
}

static void apply_keys_for(app *a, long frame)
{
    for (int i = 0; i < a->opt.key_count; i++)
        if (a->opt.keys[i].frame == frame) handle_key(a, a->opt.keys[i].key);
}

/* ---- the two modes ---- */

static int run_headless(app *a)
{
    if (!a->has_player) return 1; /* main printed why */
    SDL_setenv("SDL_VIDEODRIVER", "dummy", 1);
    if (SDL_Init(0) != 0) {
        fprintf(stderr, "blendwerk-demo: SDL_Init: %s\n", SDL_GetError());
        return 1;
    }
    int w = a->opt.width, h = a->opt.height;
    SDL_Surface *target = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *r = target ? SDL_CreateSoftwareRenderer(target) : NULL;
    if (!r) {
        fprintf(stderr, "blendwerk-demo: software renderer: %s\n", SDL_GetError());
        SDL_FreeSurface(target);
        SDL_Quit();
        return 1;
    }
    int status = 0;
    for (long f = 1; f <= a->opt.frames && !a->quit; f++) {
        apply_keys_for(a, f);
        if (a->quit) break;
        /* the files are polled every quarter second of simulated time */
        if (f % (long)fmax(1.0, floor(POLL_SECONDS / a->opt.dt)) == 0 && demo_reloader_changed(&a->reloader))
            try_reload(a);
        step(a);
    }
    if (a->player.frame > a->summary_frame) print_summary(a, true);
    draw(a, r, w, h);
    if (a->opt.screenshot && !save_bmp(r, w, h, a->opt.screenshot)) status = 1;
    SDL_DestroyRenderer(r);
    SDL_FreeSurface(target);
    SDL_Quit();
    return status;
}

static void update_title(app *a, SDL_Window *win)
{
    char title[512];
    size_t n = (size_t)snprintf(title, sizeof title, "blendwerk-demo - %s -", a->script_name);
    if (a->has_player) {
        const demo_track *recs[DEMO_TRACK_CAPACITY];
        int count = demo_player_tracks(&a->player, recs, DEMO_TRACK_CAPACITY);
        for (int i = 0; i < count && n < sizeof title; i++)
            n += (size_t)snprintf(title + n, sizeof title - n, " %s %.2f", recs[i]->name,
                                  (double)bw_track_set_weight(a->player.set, recs[i]->handle));
    }
    if (a->reloader.error[0] && n < sizeof title) snprintf(title + n, sizeof title - n, " [script error]");
    SDL_SetWindowTitle(win, title);
}

static int run_window(app *a)
{
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "blendwerk-demo: cannot open a window: %s (try --headless)\n", SDL_GetError());
        return 1;
    }
    SDL_Window *win = SDL_CreateWindow("blendwerk-demo", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED,
                                       a->opt.width, a->opt.height, SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    SDL_Renderer *r = win ? SDL_CreateRenderer(win, -1, SDL_RENDERER_ACCELERATED | SDL_RENDERER_PRESENTVSYNC) : NULL;
    if (win && !r) r = SDL_CreateRenderer(win, -1, SDL_RENDERER_SOFTWARE);
    if (!r) {
        fprintf(stderr, "blendwerk-demo: cannot create a renderer: %s\n", SDL_GetError());
        if (win) SDL_DestroyWindow(win);
        SDL_Quit();
        return 1;
    }
    Uint64 freq = SDL_GetPerformanceFrequency();
    Uint64 next_poll = 0, next_title = 0;
    long frame = 0;
    int status = 0;
    while (!a->quit) {
        Uint64 start = SDL_GetPerformanceCounter();
        SDL_Event ev;
        while (SDL_PollEvent(&ev)) {
            if (ev.type == SDL_QUIT) a->quit = true;
            if (ev.type == SDL_KEYDOWN) handle_key(a, ev.key.keysym.sym);
        }
        frame++;
        apply_keys_for(a, frame);
        if (a->quit) break;
        Uint64 ms = SDL_GetTicks64();
        if (ms >= next_poll) {
            next_poll = ms + (Uint64)(POLL_SECONDS * 1000.0);
            if (demo_reloader_changed(&a->reloader)) try_reload(a);
        }
        step(a);
        int w = 0, h = 0;
        SDL_GetRendererOutputSize(r, &w, &h);
        draw(a, r, w, h);
        bool last = a->opt.frames >= 0 && frame >= a->opt.frames;
        if (last && a->opt.screenshot && !save_bmp(r, w, h, a->opt.screenshot)) status = 1;
        SDL_RenderPresent(r);
        if (ms >= next_title) {
            next_title = ms + 500;
            update_title(a, win);
        }
        if (last) break;
        /* hold the display rate near 1/dt when vsync does not */
        double spent = (double)(SDL_GetPerformanceCounter() - start) / (double)freq;
        if (spent < (double)a->opt.dt) SDL_Delay((Uint32)(((double)a->opt.dt - spent) * 1000.0));
    }
    SDL_DestroyRenderer(r);
    SDL_DestroyWindow(win);
    SDL_Quit();
    return status;
}

int main(int argc, char **argv)
{
    app a;
    memset(&a, 0, sizeof a);
    int rc = parse_args(&a.opt, argc, argv);
    if (rc) return rc;
    if (!a.opt.script) a.opt.script = default_script();
    const char *slash = strrchr(a.opt.script, '/');
    a.script_name = slash ? slash + 1 : a.opt.script;
    demo_view_init(&a.view, 35.0f, 8.0f);
    demo_reloader_init(&a.reloader, a.opt.script, a.opt.asset, &a.opt.limits);
    demo_character *c = demo_reloader_load(&a.reloader);
    if (c) adopt_first(&a, c);
    if (!a.has_player) fprintf(stderr, "blendwerk-demo: %s\n", a.reloader.error);
    int status = a.opt.headless ? run_headless(&a) : run_window(&a);
    if (a.has_player) demo_player_deinit(&a.player);
    return status;
}
