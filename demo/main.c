/* main.c - blendwerk-demo: a shaded 3D character driven by graphs through
 * the animator, with live overlays, hot reload and PNG screenshots
 * (docs/demo.md lists every option and key).
 *
 *   blendwerk-demo [--character FILE.lua | --model FILE.glb|.gltf] [--graph GRAPH.lua | --no-graph]
 *                  [--timeline TIMELINE.lua] [--control FILE.lua]... [--headless] [--frames N] [--size WxH]
 *                  [--screenshot FILE.png] [--dt S] [--keys FRAME:KEY,...] [--print-every N]
 *                  [--budget N] [--memory-mb N] [--time-limit S]
 *
 * The session (loading, the animator, one frame, hot reload) is app.c;
 * this file opens a window (or, with --headless, renders into a software
 * renderer's surface with no display), turns keys, gamepad and mouse into
 * the session's input (input.c), draws the character in 3D (render3d.c,
 * model.c for --model) and the overlays (overlay.c), and writes the last
 * frame as a PNG (screenshot.c). A headless run prints a summary line
 * every --print-every frames (default: a simulated second) and a final "done" line, which
 * tests read.
 *
 * Exit codes: 0 done, 1 a file failed to load or the screenshot could not
 * be written, 2 bad arguments. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

#include "app.h"
#include "blendwerk/text.h"
#include "controls.h"
#include "input.h"
#include "overlay.h"
#include "render3d.h"
#include "model.h"
#include "io/atomic_file.h"
#include "screenshot.h"

#ifndef BW_SOURCE_DIR
#define BW_SOURCE_DIR "."
#endif

#define MAX_KEYS 64
#define MAX_TRIANGLES 60000
#define MAX_FRAMES 10000000L /* the longest --frames, and the widest --print-every */
#define DEFAULT_W 1280
#define DEFAULT_H 720

typedef struct key_at {
    long frame; /* pressed before this frame of the run (0-based; a paused frame counts) */
    SDL_Keycode key;
    int hold; /* 0: press and release, 1: hold down, -1: release */
} key_at;

typedef struct options {
    const char *character, *graph, *model, *timeline, *screenshot;
    bool no_graph, headless;
    long frames; /* -1: until quit (windowed) / the default (headless) */
    int width, height;
    float dt;
    bool dt_given;          /* --dt given: else a timeline's own dt steps a headless run */
    long print_every;
    bool print_every_given;
    key_at keys[MAX_KEYS];
    int key_count;
    const char *controls[BW_CONTROLS_MAX];
    int control_count;
    bw_sandbox_limits limits; /* of the character's, the graph's and the controls' sandboxes */
} options;

typedef struct host {
    options opt;
    demo_app *app;
    demo_model *model;
    demo_r3d *r3d;
    demo_controls controls;
    demo_camera camera;
    demo_overlay_info overlay;
    bool default_walk; /* headless without a timeline or a movement key: walk and turn */
    bool quit;
    long printed_events;
    int seen_reloads; /* reloads + rejections when the note was last timed */
    int triangles;
} host;

static void usage(FILE *f)
{
    fputs("usage: blendwerk-demo [options]\n"
          "  --character FILE.lua  character file (default scripts/humanoid.lua)\n"
          "  --model FILE.glb      a glTF character (.glb/.gltf) drawn as its skinned mesh, with its clips\n"
          "  --graph GRAPH.lua     graph file (default graphs/demo.lua for the built-in humanoid; another\n"
          "                        character or a model: none, the animator's locomotion blend)\n"
          "  --no-graph            no graph: the animator's locomotion blend\n"
          "  --timeline T.lua      script the input by time (docs/demo.md \"Timelines\")\n"
          "  --control FILE.lua    a procedural control (bindings/controls.h) over the pose; repeatable,\n"
          "                        the files in one folder (e.g. scripts/head_aim.lua, scripts/blink.lua)\n"
          "  --headless            no window: software rendering, summaries on stdout; walks and turns\n"
          "                        unless a timeline or a movement key of --keys drives the character\n"
          "  --frames N            stop after N frames (headless: the timeline's, else 180)\n"
          "  --size WxH            window / image size (default 1280x720)\n"
          "  --screenshot FILE.png save the last frame as a PNG\n"
          "  --dt S                headless step per frame, before pause and speed (default 1/60)\n"
          "  --keys FRAME:KEY,...  press keys before frames (KEY, +KEY hold, -KEY release), e.g. 0:minus,30:p\n"
          "  --print-every N       headless: a summary line every N frames (default: 1 s of frames, at most 1e7)\n"
          "  --budget N            sandbox instruction budget per load (character, graph, controls)\n"
          "  --memory-mb N         sandbox memory cap per load, MiB (character, graph, controls)\n"
          "  --time-limit S        sandbox wall-clock limit per load, seconds (character, graph, controls)\n"
          "  -h, --help            this text\n",
          f);
}

static bool parse_long(const char *s, long lo, long hi, long *out)
{
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (!s[0] || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

/* "WxH", each a whole number in [64, 8192], nothing after (sscanf's "%dx%d"
 * took "64x64junk" and overflowed on "99999999999x64"). */
static bool parse_size(const char *s, int *w, int *h)
{
    char *end = NULL;
    long a = strtol(s, &end, 10);
    if (end == s || *end != 'x') return false;
    const char *rest = end + 1;
    long b = strtol(rest, &end, 10);
    if (end == rest || *end || a < 64 || b < 64 || a > 8192 || b > 8192) return false;
    *w = (int)a;
    *h = (int)b;
    return true;
}

/* FRAME:KEY,... into o->keys. The spec is read whole (a fixed 1 KiB copy
 * cut a valid list of 64 keys, refusing it or dropping its last keys). */
static bool parse_keys(options *o, const char *spec)
{
    size_t n = strlen(spec);
    char *buf = (char *)malloc(n + 1);
    if (!buf) return false;
    memcpy(buf, spec, n + 1);
    bool ok = true;
    for (char *item = strtok(buf, ","); ok && item; item = strtok(NULL, ",")) {
        char *colon = strchr(item, ':');
        ok = colon && o->key_count < MAX_KEYS;
        if (!ok) break;
        *colon = '\0';
        key_at *k = &o->keys[o->key_count];
        const char *name = colon + 1;
        k->hold = *name == '+' ? 1 : *name == '-' ? -1 : 0;
        if (k->hold) name++;
        k->key = demo_key_from_name(name);
        ok = parse_long(item, 0, 100000000L, &k->frame) && k->key != SDLK_UNKNOWN;
        if (ok) o->key_count++;
    }
    free(buf);
    return ok;
}

/* One simulated second of frames at dt, the default --print-every. */
static long frames_per_second(float dt)
{
    double per_second = floor(1.0 / (double)dt + 0.5);
    return per_second < 1 ? 1 : per_second > (double)MAX_FRAMES ? MAX_FRAMES : (long)per_second;
}

static int parse_args(options *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    o->frames = -1;
    o->width = DEFAULT_W;
    o->height = DEFAULT_H;
    o->dt = 1.0f / 60.0f;
    o->print_every = 0; /* one simulated second, from --dt */
    /* options that take one value (--control and --keys add up): given
     * twice is a bad argument, not "the last one wins"; except
     * --screenshot, whose later value wins (`./dev.sh demo` puts its
     * default before the user's arguments) */
    static const char *const single[] = {"--character", "--graph", "--model",     "--timeline",  "--frames",
                                         "--print-every", "--size", "--dt",       "--budget",    "--memory-mb",
                                         "--time-limit"};
    const char *seen[sizeof single / sizeof single[0]] = {NULL};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        for (size_t k = 0; v && k < sizeof single / sizeof single[0]; k++) {
            if (strcmp(a, single[k]) != 0) continue;
            if (seen[k]) {
                fprintf(stderr, "blendwerk-demo: %s is given twice ('%s' and '%s')\n", a, seen[k], v);
                return 2;
            }
            seen[k] = v;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--headless")) {
            o->headless = true;
        } else if (!strcmp(a, "--no-graph")) {
            o->no_graph = true;
        } else if (v && !strcmp(a, "--character")) {
            o->character = argv[++i];
        } else if (v && !strcmp(a, "--graph")) {
            o->graph = argv[++i];
        } else if (v && !strcmp(a, "--model")) {
            o->model = argv[++i];
        } else if (v && !strcmp(a, "--timeline")) {
            o->timeline = argv[++i];
        } else if (v && !strcmp(a, "--control")) {
            if (o->control_count >= BW_CONTROLS_MAX) goto bad;
            o->controls[o->control_count++] = argv[++i];
        } else if (v && !strcmp(a, "--screenshot")) {
            o->screenshot = argv[++i];
        } else if (v && !strcmp(a, "--frames")) {
            if (!parse_long(argv[++i], 0, MAX_FRAMES, &o->frames)) goto bad;
        } else if (v && !strcmp(a, "--print-every")) {
            if (!parse_long(argv[++i], 1, MAX_FRAMES, &o->print_every)) goto bad;
        } else if (v && !strcmp(a, "--size")) {
            if (!parse_size(argv[++i], &o->width, &o->height)) goto bad;
        } else if (v && !strcmp(a, "--dt")) {
            char *end = NULL;
            o->dt = strtof(argv[++i], &end);
            o->dt_given = true;
            if (*end || !(o->dt > 0) || o->dt > DEMO_APP_MAX_DT) goto bad;
        } else if (v && !strcmp(a, "--keys")) {
            if (!parse_keys(o, argv[++i])) goto bad;
        } else if (v && !strcmp(a, "--budget")) {
            long n = 0;
            if (!parse_long(argv[++i], 1000, 2000000000L, &n)) goto bad;
            o->limits.instructions = n;
        } else if (v && !strcmp(a, "--memory-mb")) {
            long n = 0;
            if (!parse_long(argv[++i], 1, 65536, &n)) goto bad;
            o->limits.memory = (size_t)n << 20;
        } else if (v && !strcmp(a, "--time-limit")) {
            char *end = NULL;
            o->limits.seconds = strtod(argv[++i], &end);
            if (*end || !(o->limits.seconds > 0) || o->limits.seconds > 3600) goto bad;
        } else {
            fprintf(stderr, "blendwerk-demo: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return 2;
        }
        continue;
    bad:
        fprintf(stderr, "blendwerk-demo: bad value for %s: '%s'\n", a, argv[i]);
        return 2;
    }
    if (o->model && o->character) {
        fprintf(stderr, "blendwerk-demo: give --character or --model, not both\n");
        return 2;
    }
    if (o->no_graph && o->graph) {
        fprintf(stderr, "blendwerk-demo: give --graph or --no-graph, not both\n");
        return 2;
    }
    /* one simulated second of frames, worked out in double (lroundf of
     * 1/1e-30 overflowed: a summary every frame), at most MAX_FRAMES (the
     * longest run): with a tiny dt no second passes, so the run prints
     * only its "done" line unless --print-every asks */
    o->print_every_given = o->print_every != 0;
    if (!o->print_every) o->print_every = frames_per_second(o->dt);
    /* the controls' one folder is a matter of the arguments (exit 2), not
     * of a file that failed to load */
    char folder[1024], why[DEMO_APP_ERROR_MAX];
    if (!demo_app_control_folder(o->controls, o->control_count, folder, sizeof folder, why, sizeof why)) {
        fprintf(stderr, "blendwerk-demo: %s\n", why);
        return 2;
    }
    /* the default graph is the built-in humanoid's (its clip names): any
     * other character without --graph runs the animator's locomotion
     * blend, as --model does */
    static const char humanoid[] = BW_SOURCE_DIR "/scripts/humanoid.lua";
    bool built_in = !o->model && (!o->character || bw_io_same_file(o->character, humanoid));
    if (!o->model && !o->character) o->character = humanoid;
    if (built_in && !o->graph && !o->no_graph) o->graph = BW_SOURCE_DIR "/graphs/demo.lua";
    /* the PNG must not replace a file the session reads (and hot-reloads) */
    const char *inputs[4 + BW_CONTROLS_MAX] = {o->character, o->graph, o->model, o->timeline};
    memcpy(inputs + 4, o->controls, sizeof(const char *) * (size_t)o->control_count);
    for (int k = 0; k < 4 + o->control_count; k++)
        if (bw_io_same_file(o->screenshot, inputs[k])) {
            fprintf(stderr, "blendwerk-demo: --screenshot '%s' is the input '%s' itself\n", o->screenshot, inputs[k]);
            return 2;
        }
    return 0;
}

/* ---- one frame ---- */

static void world_point(const demo_app *app, const float model_point[3], float out[3])
{
    float pos[3], yaw;
    demo_app_place(app, pos, &yaw);
    float c = cosf(yaw), s = sinf(yaw);
    out[0] = pos[0] + model_point[0] * c + model_point[2] * s;
    out[1] = pos[1] + model_point[1];
    out[2] = pos[2] - model_point[0] * s + model_point[2] * c;
}

/* A joint's world position (the mesh's metres for a model). */
static bool joint_world(const host *h, demo_joint which, float out[3])
{
    const demo_app *app = h->app;
    int j = demo_app_joint(app, which);
    if (j < 0) return false;
    const float(*m)[4][4] = demo_app_model(app);
    float p[3] = {m[j][3][0], m[j][3][1], m[j][3][2]};
    if (h->model) {
        const float q[3] = {p[0], p[1], p[2]};
        demo_model_point(h->model, q, p);
    }
    world_point(app, p, out);
    return true;
}

static void follow_camera(host *h, int w, int h_px)
{
    float pos[3], yaw;
    demo_app_place(h->app, pos, &yaw);
    h->camera.target[0] = pos[0];
    h->camera.target[1] = 1.0f;
    h->camera.target[2] = pos[2];
    h->camera.eye[0] = pos[0] + 2.6f;
    h->camera.eye[1] = 1.7f;
    h->camera.eye[2] = pos[2] + 3.6f;
    h->camera.fov_y = 0.8f;
    h->camera.width = w;
    h->camera.height = h_px;
}

static demo_colour rgba(uint8_t r, uint8_t g, uint8_t b, uint8_t a) { return (demo_colour){r, g, b, a}; }

/* Gaze rays from the eyes, the head-aim limits on the horizontal, the
 * look-at target. */
static void draw_gaze(host *h)
{
    const float *gaze = demo_app_gaze(h->app);
    float pos[3], yaw;
    demo_app_place(h->app, pos, &yaw);
    const demo_joint eyes[2] = {DEMO_JOINT_EYE_L, DEMO_JOINT_EYE_R};
    for (int e = 0; e < 2; e++) {
        float a[3];
        if (!joint_world(h, eyes[e], a)) continue;
        float gy = yaw + gaze[2 * e + 1], gp = gaze[2 * e];
        const float len = 0.6f;
        const float b[3] = {a[0] + sinf(gy) * cosf(gp) * len, a[1] + sinf(gp) * len, a[2] + cosf(gy) * cosf(gp) * len};
        demo_r3d_line(h->r3d, a, b, 1.5f, rgba(255, 200, 80, 255));
    }
    float head[3];
    float limits[4];
    int aim = demo_app_head_limits(h->app, limits);
    if ((aim == DEMO_AIM_ANIMATOR || aim == DEMO_AIM_CONTROL) && joint_world(h, DEMO_JOINT_HEAD, head) &&
        h->overlay.mode == DEMO_OVERLAY_ALL) {
        for (int s = -1; s <= 1; s += 2) {
            float ly = yaw + (float)s * limits[0]; /* the head yaw limit in force */
            const float b[3] = {head[0] + sinf(ly) * 0.5f, head[1], head[2] + cosf(ly) * 0.5f};
            demo_r3d_line(h->r3d, head, b, 1.0f, rgba(120, 130, 160, 200));
        }
    }
    const demo_input *in = demo_app_input(h->app);
    if (in->has_look_at) {
        const float *t = in->look_at;
        for (int k = 0; k < 3; k++) {
            float a[3] = {t[0], t[1], t[2]}, b[3] = {t[0], t[1], t[2]};
            a[k] -= 0.08f;
            b[k] += 0.08f;
            demo_r3d_line(h->r3d, a, b, 2.0f, rgba(255, 90, 80, 255));
        }
    }
}

static void draw(host *h, SDL_Renderer *r, int w, int hp)
{
    const demo_app *app = h->app;
    SDL_SetRenderDrawColor(r, 46, 52, 64, 255);
    SDL_RenderClear(r);
    follow_camera(h, w, hp);
    float pos[3], yaw;
    demo_app_place(app, pos, &yaw);
    demo_r3d_begin(h->r3d, &h->camera);
    int trail_count = 0;
    const float *trail = demo_app_trail(app, &trail_count);
    demo_r3d_ground(h->r3d, pos[0], pos[2], 16.0f, 1.0f, h->overlay.mode == DEMO_OVERLAY_OFF ? NULL : trail,
                    h->overlay.mode == DEMO_OVERLAY_OFF ? 0 : trail_count);
    demo_r3d_shadow(h->r3d, pos[0], pos[2], 0.45f);
    if (h->model) {
        demo_mesh_draw mesh;
        /* the app's model matrices are the pose's: skinned without a second local-to-model;
           a refused pose keeps the last */
        demo_model_skin(h->model, demo_app_pose(app), demo_app_model(app));
        demo_model_draw(h->model, pos, yaw, &mesh);
        demo_r3d_mesh(h->r3d, &mesh);
    } else
    {
        demo_figure fig;
        memset(&fig, 0, sizeof fig);
        fig.rig = demo_app_rig(app);
        fig.model = demo_app_model(app);
        memcpy(fig.position, pos, sizeof fig.position);
        fig.yaw = yaw;
        fig.face.arkit52 = demo_app_arkit(app);
        memcpy(fig.face.gaze, demo_app_gaze(app), sizeof fig.face.gaze);
        demo_r3d_figure(h->r3d, &fig);
    }
    if (h->overlay.mode != DEMO_OVERLAY_OFF) draw_gaze(h);
    h->triangles = demo_r3d_end(h->r3d, r);
    demo_overlay_draw(r, app, w, hp, &h->overlay);
}

static void command(host *h, demo_command c)
{
    demo_app *app = h->app;
    const bw_graph *g = demo_app_graph(app);
    switch (c) {
    case DEMO_CMD_QUIT: h->quit = true; break;
    case DEMO_CMD_JUMP: demo_app_fire(app, "jump"); break;
    case DEMO_CMD_WAVE: demo_app_gesture(app, "wave"); break;
    case DEMO_CMD_NOD: demo_app_gesture(app, "nod"); break;
    case DEMO_CMD_WAVE_LAYER:
        if (demo_app_fire(app, "wave")) demo_app_layer_weight(app, "upper", 1.0f, 0.2f);
        break;
    case DEMO_CMD_FACE: demo_app_next_face(app); break;
    case DEMO_CMD_TRAVEL:
        if (g && bw_graph_layer_count(g) > 0) {
            bw_graph_layer_status st;
            bw_graph_cursor_layer_status(demo_app_cursor(app), 0, &st);
            int n = bw_graph_state_count(g, 0);
            for (int k = 1; k < n; k++) /* the next state with a route */
                if (demo_app_travel(app, bw_graph_layer_name(g, 0), bw_graph_state_name(g, 0, (st.state + k) % n))) {
                    demo_app_clear_error(app);
                    break;
                }
        }
        break;
    case DEMO_CMD_PAUSE: h->overlay.paused = !h->overlay.paused; break;
    case DEMO_CMD_SLOWER: h->overlay.speed = fmaxf(0.1f, h->overlay.speed * 0.5f); break;
    case DEMO_CMD_FASTER: h->overlay.speed = fminf(1.0f, h->overlay.speed * 2.0f); break;
    case DEMO_CMD_OVERLAYS: h->overlay.mode = (demo_overlay_mode)((h->overlay.mode + 1) % DEMO_OVERLAY_MODE_COUNT); break;
    case DEMO_CMD_RELOAD: demo_app_reload(app, 0, true); break;
    case DEMO_CMD_HELP: h->overlay.help = !h->overlay.help; break;
    default: break;
    }
}

/* The keys of --keys due before frame `frame` of the run (paused frames
 * count, so a later key can resume): held state and commands; true when
 * one asked for a single step. */
static bool press_keys(host *h, long frame)
{
    bool step = false;
    for (int i = 0; i < h->opt.key_count; i++) {
        const key_at *k = &h->opt.keys[i];
        if (k->frame != frame) continue;
        if (k->hold >= 0) {
            demo_command c = demo_controls_key(&h->controls, k->key, true);
            if (c == DEMO_CMD_STEP) step = true;
            else command(h, c);
        }
        if (k->hold <= 0) demo_controls_key(&h->controls, k->key, false);
    }
    return step;
}

/* Whether any key of --keys moves the character (its own walk replaces the
 * headless default walk). */
static bool keys_move(const options *o)
{
    for (int i = 0; i < o->key_count; i++)
        if (demo_key_moves(o->keys[i].key)) return true;
    return false;
}

/* The one dt rule of both loops: a frame steps the simulation by `elapsed`
 * seconds (headless: --dt; windowed: the real time since the last frame)
 * times the speed (P pauses, [ / - halve it down to 0.1, ] / = double it up
 * to 1); while paused it does not step (false) unless a single step (N /
 * .) was asked: then one frame of `step_dt` (headless --dt, windowed 1/60)
 * times the speed. */
static bool paced_dt(const demo_overlay_info *o, bool step, float elapsed, float step_dt, float *dt)
{
    if (o->paused && !step) return false;
    *dt = (o->paused ? step_dt : elapsed) * o->speed;
    return true;
}

/* Input for the next frame: the controls (unless a timeline drives the
 * input), or the headless default walk. */
static void gather_input(host *h)
{
    if (h->opt.timeline) return;
    demo_input in;
    float head[3];
    bool has_head = joint_world(h, DEMO_JOINT_HEAD, head);
    demo_controls_input(&h->controls, &h->camera, has_head ? head : NULL, &in);
    if (h->default_walk) {
        in.velocity[2] = DEMO_WALK_SPEED;
        in.turn = 0.5f;
    }
    demo_app_set_input(h->app, &in);
}

static void print_summary(host *h, long frame)
{
    const demo_app *app = h->app;
    const bw_graph *g = demo_app_graph(app);
    float pos[3], yaw;
    demo_app_place(app, pos, &yaw);
    printf("frame %ld t=%.3f pos=%.3f,%.3f,%.3f yaw=%.3f layers=", frame, demo_app_time(app), (double)pos[0],
           (double)pos[1], (double)pos[2], (double)yaw);
    for (int l = 0; l < bw_graph_layer_count(g); l++) {
        bw_graph_layer_status st;
        bw_graph_cursor_layer_status(demo_app_cursor(app), l, &st);
        if (l) putchar(',');
        bw_text_print(stdout, bw_graph_layer_name(g, l));
        putchar(':');
        bw_text_print(stdout, bw_graph_state_name(g, l, st.state));
    }
    if (!g) printf("-");
    printf(" clips=");
    demo_clip_weight w[32];
    int n = demo_app_clip_weights(app, w, 32), shown = 0;
    for (int i = 0; i < n && i < 32; i++) {
        if (w[i].weight < 0.005f) continue;
        /* an unnamed clip (glTF allows it) shows as #index */
        if (shown++) putchar(',');
        bw_text_print(stdout, demo_app_clip_name(app, w[i].clip));
        printf(":%.2f", (double)w[i].weight);
    }
    printf(" events=[");
    long count = demo_app_event_count(app);
    for (long i = h->printed_events; i < count; i++) {
        const char *e = demo_app_event(app, i);
        if (!e) continue;
        if (i > h->printed_events) putchar('|');
        bw_text_print(stdout, e);
    }
    h->printed_events = count;
    printf("]\n");
}

/* Frame `k` of the run: the keys due, then, by the one dt rule
 * (paced_dt), a step, or while paused a reload poll and the input with no
 * step; then the drawing. `step`: a single step was asked already (a key
 * of the window). False when the step was refused. */
static bool frame(host *h, SDL_Renderer *r, int w, int hp, long k, bool step, float elapsed, float step_dt, double now)
{
    step = press_keys(h, k) || step;
    float dt = 0.0f;
    bool ok = true;
    gather_input(h);
    if (paced_dt(&h->overlay, step, elapsed, step_dt, &dt)) ok = demo_app_frame(h->app, dt, now);
    else demo_app_reload(h->app, now, false);
    int reloads = demo_app_reloads(h->app) + demo_app_rejections(h->app);
    if (reloads != h->seen_reloads) h->overlay.note_until = demo_app_time(h->app) + 3.0;
    h->seen_reloads = reloads;
    draw(h, r, w, hp);
    return ok;
}

/* ---- headless ---- */

/* A file's problem text on stdout, every line after the first indented
 * by two spaces: the lines are the files' own (a mod's error message may
 * hold line breaks), so none may start a line the way the summary's
 * "frame", "done" and "error:" lines do, which tools read. */
static void print_indented(const char *text)
{
    for (const char *nl; (nl = strchr(text, '\n')) != NULL; text = nl + 1) {
        bw_text_print_n(stdout, text, (size_t)(nl - text));
        fputs("\n  ", stdout);
    }
    bw_text_print(stdout, text);
}

static int run_headless(host *h)
{
    SDL_setenv("SDL_VIDEODRIVER", "dummy", 1);
    if (SDL_Init(0) != 0) {
        fprintf(stderr, "blendwerk-demo: SDL_Init: %s\n", SDL_GetError());
        return 1;
    }
    const int w = h->opt.width, hp = h->opt.height;
    SDL_Surface *target = SDL_CreateRGBSurfaceWithFormat(0, w, hp, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *r = target ? SDL_CreateSoftwareRenderer(target) : NULL;
    if (!r) {
        fprintf(stderr, "blendwerk-demo: software renderer: %s\n", SDL_GetError());
        SDL_FreeSurface(target);
        SDL_Quit();
        return 1;
    }
    /* a timeline's frames are of its own dt: without --dt they step by it
     * (within DEMO_APP_MAX_DT), so the run lasts what the timeline says */
    const double timeline_dt = h->opt.timeline ? demo_app_timeline_dt(h->app) : 0.0;
    if (!h->opt.dt_given && timeline_dt > 0.0) {
        h->opt.dt = timeline_dt < DEMO_APP_MAX_DT ? (float)timeline_dt : DEMO_APP_MAX_DT;
        if (!h->opt.print_every_given) h->opt.print_every = frames_per_second(h->opt.dt);
    }
    long frames = h->opt.frames >= 0 ? h->opt.frames : h->opt.timeline ? demo_app_timeline_frames(h->app) : 180;
    int rejections = 0;
    h->overlay.frame_ms = -1.0; /* no measured time in the picture: the same frames give the same image */
    for (long k = 0; k < frames; k++) {
        frame(h, r, w, hp, k, false, h->opt.dt, h->opt.dt, (double)k * h->opt.dt);
        if (demo_app_rejections(h->app) != rejections) {
            rejections = demo_app_rejections(h->app);
            printf("reload rejected:\n  ");
            print_indented(demo_app_rejected(h->app));
            putchar('\n');
        }
        if ((k + 1) % h->opt.print_every == 0) print_summary(h, k + 1);
    }
    int status = 0;
    char err[512];
    if (h->opt.screenshot && !demo_screenshot_png(r, w, hp, h->opt.screenshot, err, sizeof err)) {
        fprintf(stderr, "blendwerk-demo: %s\n", err);
        status = 1;
    }
    float pos[3], yaw;
    demo_app_place(h->app, pos, &yaw);
    printf("done frames=%ld t=%.3f pos=%.3f,%.3f,%.3f triangles=%d dropped=%d reloads=%d rejected=%d controls=%d "
           "control_reloads=%d\n",
           frames, demo_app_time(h->app), (double)pos[0], (double)pos[1], (double)pos[2], h->triangles,
           demo_r3d_dropped(h->r3d), demo_app_reloads(h->app), demo_app_rejections(h->app),
           demo_app_control_count(h->app), demo_app_control_reloads(h->app));
    if (demo_app_error(h->app)[0]) {
        printf("error: ");
        print_indented(demo_app_error(h->app));
        putchar('\n');
    }
    SDL_DestroyRenderer(r);
    SDL_FreeSurface(target);
    SDL_Quit();
    return status;
}

/* ---- windowed ---- */

static int run_window(host *h)
{
    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_GAMECONTROLLER) != 0) {
        fprintf(stderr, "blendwerk-demo: cannot open a window: %s (try --headless)\n", SDL_GetError());
        return 1;
    }
    SDL_Window *win = SDL_CreateWindow("blendwerk-demo", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, h->opt.width,
                                       h->opt.height, SDL_WINDOW_RESIZABLE);
    SDL_Renderer *r = win ? SDL_CreateRenderer(win, -1, SDL_RENDERER_ACCELERATED | SDL_RENDERER_PRESENTVSYNC) : NULL;
    if (win && !r) r = SDL_CreateRenderer(win, -1, SDL_RENDERER_SOFTWARE);
    if (!r) {
        fprintf(stderr, "blendwerk-demo: cannot create a renderer: %s (try --headless)\n", SDL_GetError());
        if (win) SDL_DestroyWindow(win);
        SDL_Quit();
        return 1;
    }
    SDL_GameController *pad = NULL;
    for (int i = 0; i < SDL_NumJoysticks() && !pad; i++)
        if (SDL_IsGameController(i)) pad = SDL_GameControllerOpen(i);
    Uint64 freq = SDL_GetPerformanceFrequency(), last = SDL_GetPerformanceCounter();
    int status = 0;
    long shown = 0;
    while (!h->quit) {
        Uint64 start = SDL_GetPerformanceCounter();
        SDL_Event ev;
        bool step = false;
        while (SDL_PollEvent(&ev)) {
            demo_command c = DEMO_CMD_NONE;
            if (ev.type == SDL_QUIT) h->quit = true;
            else if ((ev.type == SDL_KEYDOWN || ev.type == SDL_KEYUP) && !ev.key.repeat)
                c = demo_controls_key(&h->controls, ev.key.keysym.sym, ev.type == SDL_KEYDOWN);
            else if (ev.type == SDL_MOUSEMOTION) demo_controls_mouse(&h->controls, ev.motion.x, ev.motion.y);
            else if (ev.type == SDL_CONTROLLERBUTTONDOWN || ev.type == SDL_CONTROLLERBUTTONUP)
                c = demo_controls_button(&h->controls, ev.cbutton.button, ev.type == SDL_CONTROLLERBUTTONDOWN);
            else if (ev.type == SDL_CONTROLLERAXISMOTION) demo_controls_axis(&h->controls, ev.caxis.axis, ev.caxis.value);
            else if (ev.type == SDL_CONTROLLERDEVICEADDED && !pad) pad = SDL_GameControllerOpen(ev.cdevice.which);
            if (c == DEMO_CMD_STEP) step = true;
            else if (c != DEMO_CMD_NONE) command(h, c);
        }
        double real = (double)(start - last) / (double)freq;
        last = start;
        if (real > 0.1) real = 0.1; /* a stall (a breakpoint, a drag) is not a jump in time */
        int w = 0, hp = 0;
        SDL_GetRendererOutputSize(r, &w, &hp);
        double now = (double)SDL_GetTicks64() / 1000.0;
        frame(h, r, w, hp, shown, step, (float)real, 1.0f / 60.0f, now);
        shown++;
        bool last_frame = h->opt.frames >= 0 && shown >= h->opt.frames;
        char err[512];
        if (last_frame && h->opt.screenshot && !demo_screenshot_png(r, w, hp, h->opt.screenshot, err, sizeof err)) {
            fprintf(stderr, "blendwerk-demo: %s\n", err);
            status = 1;
        }
        SDL_RenderPresent(r);
        if (last_frame) h->quit = true;
        h->overlay.frame_ms = (double)(SDL_GetPerformanceCounter() - start) * 1000.0 / (double)freq;
        char title[160];
        snprintf(title, sizeof title, "blendwerk-demo  t=%.1f s  %.1f ms", demo_app_time(h->app), h->overlay.frame_ms);
        SDL_SetWindowTitle(win, title);
    }
    if (pad) SDL_GameControllerClose(pad);
    SDL_DestroyRenderer(r);
    SDL_DestroyWindow(win);
    SDL_Quit();
    return status;
}

/* The --model loaders' warnings, one stderr line each, "blendwerk-demo:
 * warning: MESSAGE" (the loader's message names the file and field),
 * escaped as the other warnings are. */
static void print_model_warning(void *user, bw_log_level level, const char *message)
{
    (void)user;
    (void)level;
    fputs("blendwerk-demo: warning: ", stderr);
    bw_text_print(stderr, message);
    fputc('\n', stderr);
}

int main(int argc, char **argv)
{
    host h;
    memset(&h, 0, sizeof h);
    int bad = parse_args(&h.opt, argc, argv);
    if (bad) return bad;
    demo_app_desc d;
    memset(&d, 0, sizeof d);
    d.character = h.opt.character;
    d.graph = h.opt.no_graph ? NULL : h.opt.graph;
    d.timeline = h.opt.timeline;
    d.controls = h.opt.controls;
    d.control_count = h.opt.control_count;
    d.label = h.opt.model;
    d.limits = h.opt.limits;
    char err[DEMO_APP_ERROR_MAX];
    if (h.opt.model) {
        bw_error e;
        memset(&e, 0, sizeof e);
        const bw_logger model_logger = {print_model_warning, NULL};
        if (demo_model_load(h.opt.model, &model_logger, &h.model, &e) != BW_OK) {
            /* the loaders' messages name the file already */
            bool named = strncmp(e.message, h.opt.model, strlen(h.opt.model)) == 0;
            fprintf(stderr, "blendwerk-demo: %s%s", named ? "" : h.opt.model, named ? "" : ": ");
            bw_text_print_lines(stderr, e.message);
            fputc('\n', stderr);
            return 1;
        }
        d.rig = h.model->asset->rig;
        d.clips = (const bw_clip *const *)h.model->asset->clips;
        d.clip_count = h.model->asset->clip_count;
    }
    h.app = demo_app_create(&d, err, sizeof err);
    if (!h.app) {
        bw_text_print_lines(stderr, err); /* the files' own names and error texts: control bytes as \xNN */
        fputc('\n', stderr);
        demo_model_destroy(h.model);
        return 1;
    }
    h.r3d = demo_r3d_create(MAX_TRIANGLES);
    if (!h.r3d) {
        fprintf(stderr, "blendwerk-demo: out of memory\n");
        demo_app_destroy(h.app);
        return 1;
    }
    h.overlay.speed = 1.0f;
    h.default_walk = h.opt.headless && !h.opt.timeline && !keys_move(&h.opt);
    int status = h.opt.headless ? run_headless(&h) : run_window(&h);
    /* the headless summary is the run's result: one that did not reach
     * stdout (a full disk, a closed pipe) fails the run */
    errno = 0;
    bool flushed = fflush(stdout) == 0;
    int why = errno;
    if (!flushed || ferror(stdout)) {
        fprintf(stderr, "blendwerk-demo: cannot write the output: %s\n", why ? strerror(why) : "a write failed");
        if (!status) status = 1;
    }
    demo_r3d_destroy(h.r3d);
    demo_app_destroy(h.app);
    demo_model_destroy(h.model);
    return status;
}
