/* test_demo.c - the demo application (demo/app.h, demo/main.c;
 * docs/demo.md).
 *
 * The session (blendwerk_demo_logic, no SDL) is driven directly:
 * - root motion moves the character, rotated by its yaw: the humanoid on
 *   the animator's locomotion blend at exactly the walk entry's speed
 *   (1.5 m/s: walk_fwd alone at rate 1, whose root travels 1.5 m/s in a
 *   straight line) facing yaw = pi/2 (set by a timeline) ends 60 frames of
 *   1/60 s at (1.5, 0, 0);
 * - the overlays' view of the graph: what a state plays
 *   (bw_graph_state_clip / _blend) and the clip weights at a blend-space
 *   sample (that sample's clip alone, weight 1);
 * - the timeline's character inputs reach the session (velocity, yaw,
 *   gesture, look_at) and a graph trigger fires at its time;
 * - hot reload of the graph file keeps the state (the base layer's state
 *   by name, its progress, the parameters), a broken edit is rejected
 *   with FILE:LINE and the previous graph keeps running, and the next good
 *   edit loads again; a character edit reloads the same way;
 * - every broken source shows at once, each with its own exact lines (the
 *   graph, a control's rejected edit and failing update, the character, a
 *   refused command), each gone exactly when its file loads fine again;
 * - after warm-up a frame allocates nothing over 600 frames driven by a
 *   timeline with triggers, gestures and layer fades: nothing through the
 *   session's allocator (the animator, its graph cursor), and under
 *   AddressSanitizer no malloc of the whole process (its malloc hooks);
 * - hostile input is refused with a message and changes nothing: NaN,
 *   negative and huge dt, a NaN input, an unknown trigger, a missing file,
 *   a graph with a NaN number, a timeline with a bad demo field.
 * Where the binary is built (SDL2 and stb found), the input mapping
 * (demo/input.c): keys and sticks to velocity and turn by hand, and the
 * mouse's look-at point projected back (demo_camera_project) onto the
 * mouse pixel's centre at the head's depth; a rejected reload's
 * FILE:LINE line drawn in red by the overlays (demo/overlay.c) in the
 * bottom band only, and gone after the next good save; two broken files
 * on two rows. The binary runs headless:
 * - the PNG has the requested size and is not blank (read back with
 *   stb_image), and two runs of the same frames give the same image;
 * - the character moved between frames 30 and 90: from the summary (the
 *   distance walked at 1.5 m/s in 1 s on a turn of 0.5 rad/s: the chord
 *   2 * (1.5 / 0.5) * sin(0.25) = 1.484 m) and from the images;
 * - the demo timeline's jump shows the jump states in the summary;
 * - --model on each shared glTF asset renders without error (skipped
 *   without ../shared/assets);
 * - bad arguments and a broken graph exit non-zero with the message
 *   (control files in two folders: 2, an argument error);
 * - pause, single step and slow motion given by --keys set the headless
 *   time exactly as the one dt rule says (0:minus over 60 frames of 1/60:
 *   t = 0.5; 5:p: 5 / 60; steps while paused: one frame each);
 * - keys that do not move keep the headless default walk (its 1.484 m
 *   chord between frames 30 and 90), a held W replaces it (1.5 m straight);
 * - another character without --graph runs the locomotion blend, not the
 *   humanoid's graph (a 2-clip character exits 0 and walks 1.5 m in 1 s);
 * - the help and docs/demo.md's option table list the same options, and
 *   the parser takes them; the docs' example output is the timeline run's;
 * - the windowed mode runs under xvfb-run for a few frames and its
 *   screenshot has the window's size and is not blank (skipped without
 *   xvfb-run).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lua.h>

#include "app.h"
#include "character.h"
#include "check.h"
#ifdef BW_DEMO_BINARY
#include "font.h"
#include "input.h"
#include "overlay.h"
#endif
#include "test_alloc_counter.h"
#include "test_files.h"

#ifdef BW_DEMO_BINARY
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#endif
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb_image.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
#endif

/* Under AddressSanitizer every malloc of the process is seen through its
 * hooks: the frame path's whole-process count (the watchers, the timeline,
 * the event lines...) is checked too, not only the session's allocator. */
#if defined(__SANITIZE_ADDRESS__)
#define HAVE_MALLOC_HOOKS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_MALLOC_HOOKS 1
#endif
#endif
#ifdef HAVE_MALLOC_HOOKS
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));
static volatile long process_mallocs;
static volatile int count_mallocs;
static void on_malloc(const volatile void *p, size_t n)
{
    (void)p;
    (void)n;
    if (count_mallocs) process_mallocs++;
}
static void on_free(const volatile void *p) { (void)p; }
#endif

#define HUMANOID BW_SOURCE_DIR "/scripts/humanoid.lua"
#define DEMO_GRAPH BW_SOURCE_DIR "/graphs/demo.lua"
#define SCRIPTS BW_SOURCE_DIR "/scripts"
#define DT (1.0f / 60.0f)
#define PI 3.14159265358979f

static char temp_dir[256];

static const char *temp_path(const char *name) { return path_in(temp_dir, name); }

/* 1-based line of the first `needle` in `text`. */
static int line_of(const char *text, const char *needle)
{
    const char *at = strstr(text, needle);
    int line = 1;
    for (const char *p = text; at && p < at; p++) line += *p == '\n';
    return at ? line : -1;
}

/* A live copy of the shipped file `shipped` in the temp folder under
 * `name`, as a designer edits it while the demo runs: its text (free it),
 * or NULL (a failed check) when the shipped file cannot be read. */
static char *live_copy(const char *shipped, const char *name)
{
    char *text = slurp(shipped);
    CHECK(text != NULL);
    if (text) write_text_file(temp_path(name), text);
    return text;
}

static demo_app *open_app(const demo_app_desc *d)
{
    char err[DEMO_APP_ERROR_MAX];
    demo_app *a = demo_app_create(d, err, sizeof err);
    if (!a) fprintf(stderr, "demo_app_create: %s\n", err);
    return a;
}

/* The shipped graph's air state and the character's air clip, as written
 * in the files: the edits the hot-reload tests make to them. */
#define GRAPH_AIR_STATE "jump_air   = { clip = \"jump_air\" },"
#define CHAR_AIR_CLIP "name = \"jump_air\","

/* Live copies of the shipped graph and character (files graph_name and
 * char_name in the temporary folder, with the shipped texts kept) and an
 * app on them with `controls`; app NULL when something failed. */
typedef struct live_pair {
    char *graph, *character;
    demo_app *app;
} live_pair;

static live_pair open_live_pair(const char *graph_name, const char *char_name, const char *const *controls,
                                int control_count)
{
    live_pair p = {live_copy(DEMO_GRAPH, graph_name), live_copy(HUMANOID, char_name), NULL};
    demo_app_desc d = {.character = temp_path(char_name), .graph = temp_path(graph_name), .controls = controls,
                       .control_count = control_count, .force_polling = true};
    p.app = p.graph && p.character ? open_app(&d) : NULL;
    CHECK(p.app != NULL);
    return p;
}

static void close_live_pair(live_pair *p)
{
    free(p->graph);
    free(p->character);
    demo_app_destroy(p->app);
}

static void run_frames(demo_app *a, int n, double *now)
{
    for (int i = 0; i < n; i++) {
        CHECK(demo_app_frame(a, DT, *now));
        *now += DT;
    }
}

/* Let the watcher see a saved file: one poll notices it, the next (after
 * the debounce) reports it. Returns demo_app_reload's answer. */
static int settle(demo_app *a, double *now)
{
    int r = demo_app_reload(a, *now, false);
    *now += 0.2;
    if (r == 0) r = demo_app_reload(a, *now, false);
    *now += 0.2;
    return r;
}

static bw_graph_layer_status layer(const demo_app *a, int l)
{
    bw_graph_layer_status st;
    memset(&st, 0, sizeof st);
    CHECK(bw_graph_cursor_layer_status(demo_app_cursor(a), l, &st) == BW_OK);
    return st;
}

static const char *state_name(const demo_app *a, int l)
{
    return bw_graph_state_name(demo_app_graph(a), l, layer(a, l).state);
}

/* ---- the session ---- */

static void root_motion_moves_the_character_along_its_yaw(void)
{
    write_text_file(temp_path("east.timeline.lua"),
                    "return { dt = 1/60, frames = 60,\n"
                    "  { at = 0, yaw = math.pi / 2, velocity = { 0, 0, 1.5 } },\n"
                    "}\n");
    demo_app_desc d = {.character = HUMANOID, .timeline = temp_path("east.timeline.lua")};
    demo_app *a = open_app(&d);
    CHECK(a != NULL);
    if (!a) return;
    CHECK(demo_app_graph(a) == NULL); /* no graph: the locomotion blend */
    CHECK_INT(demo_app_timeline_frames(a), 60);
    double now = 0;
    run_frames(a, 60, &now);
    CHECK(demo_app_timeline_done(a));
    float pos[3], yaw;
    demo_app_place(a, pos, &yaw);
    CHECK_NEAR(yaw, PI / 2, 1e-5);
    CHECK_NEAR(pos[0], 1.5, 1e-3);
    CHECK_NEAR(pos[1], 0.0, 1e-6);
    CHECK_NEAR(pos[2], 0.0, 1e-3);
    float v[3];
    demo_app_velocity(a, v);
    CHECK_NEAR(v[0], 1.5, 1e-5);
    CHECK_NEAR(v[2], 0.0, 1e-5);
    /* the trail: a point after frame 1, then once 0.05 s (3 frames) have
     * passed: frames 1, 4, ..., 58 */
    int n = 0;
    const float *trail = demo_app_trail(a, &n);
    CHECK_INT(n, 20);
    CHECK_NEAR(trail[0], 1.5 / 60.0, 1e-4);
    CHECK_NEAR(trail[2 * (n - 1)], 1.5 * 58.0 / 60.0, 1e-4);
    demo_app_destroy(a);
}

static void timeline_inputs_reach_the_character(void)
{
    write_text_file(temp_path("inputs.timeline.lua"),
                    "return { dt = 1/60, duration = 2,\n"
                    "  { at = 0, velocity = { 0, 0, 1.5 }, look_at = { 1, 1.6, 3 } },\n"
                    "  { at = 0.5, gesture = 'wave', fire = 'jump' },\n"
                    "  { at = 1.0, look_at = false, turn = 1.0 },\n"
                    "}\n");
    demo_app_desc d = {.character = HUMANOID, .graph = DEMO_GRAPH, .timeline = temp_path("inputs.timeline.lua")};
    demo_app *a = open_app(&d);
    CHECK(a != NULL);
    if (!a) return;
    double now = 0;
    run_frames(a, 20, &now);
    CHECK(demo_app_input(a)->has_look_at);
    CHECK_NEAR(demo_app_input(a)->look_at[2], 3.0, 1e-6);
    CHECK_STR(state_name(a, 0), "walk");
    const bw_graph *g = demo_app_graph(a);
    CHECK_NEAR(bw_graph_cursor_param(demo_app_cursor(a), bw_graph_find_param(g, "vz")), 1.5, 1e-6);
    CHECK_NEAR(bw_graph_cursor_param(demo_app_cursor(a), bw_graph_find_param(g, "speed")), 1.5, 1e-6);
    run_frames(a, 12, &now); /* t = 32/60 > 0.5: the gesture and the jump started */
    CHECK(bw_animator_gesture_weight(demo_app_animator(a)) > 0);
    CHECK_STR(state_name(a, 0), "jump_start");
    run_frames(a, 40, &now); /* past 1.0: no target, turning */
    CHECK(!demo_app_input(a)->has_look_at);
    CHECK_NEAR(demo_app_input(a)->turn, 1.0, 1e-6);
    float pos[3], yaw0, yaw1;
    demo_app_place(a, pos, &yaw0);
    run_frames(a, 6, &now);
    demo_app_place(a, pos, &yaw1);
    CHECK_NEAR(yaw1 - yaw0, 0.1, 1e-4); /* 6 frames at 1 rad/s */
    /* the events name what happened */
    bool jump = false, wave_end = false;
    for (long i = 0; i < demo_app_event_count(a); i++) {
        const char *e = demo_app_event(a, i);
        if (e && strstr(e, "enter base jump_start")) jump = true;
    }
    run_frames(a, 120, &now); /* the wave gesture (2.4 s) ends */
    for (long i = 0; i < demo_app_event_count(a); i++) {
        const char *e = demo_app_event(a, i);
        if (e && strstr(e, "gesture_end wave")) wave_end = true;
    }
    CHECK(jump);
    CHECK(wave_end);
    demo_app_destroy(a);
}

/* The overlays' view of the graph: what each state plays
 * (bw_graph_state_clip / _blend) and the clip weights at a sample point of
 * the walk blend space, where that sample alone plays. */
static void clip_weights_follow_the_graph(void)
{
    demo_app_desc d = {.character = HUMANOID, .graph = DEMO_GRAPH};
    demo_app *a = open_app(&d);
    CHECK(a != NULL);
    if (!a) return;
    const bw_graph *g = demo_app_graph(a);
    int base = bw_graph_find_layer(g, "base");
    CHECK_INT(bw_graph_state_clip(g, base, bw_graph_find_state(g, base, "idle")), 0);
    CHECK_INT(bw_graph_state_clip(g, base, bw_graph_find_state(g, base, "jump_start")), 9);
    CHECK_INT(bw_graph_state_clip(g, base, bw_graph_find_state(g, base, "walk")), -1);
    CHECK(bw_graph_state_blend(g, base, bw_graph_find_state(g, base, "idle")) == NULL);
    const bw_blend_tree *walk = bw_graph_state_blend(g, base, bw_graph_find_state(g, base, "walk"));
    CHECK(walk != NULL);
    const bw_blend_node *root = walk ? bw_blend_tree_node(walk, bw_blend_tree_root(walk)) : NULL;
    CHECK(root && root->kind == BW_BLEND_NODE_DIRECTIONAL && root->child_count == 5);
    if (root) {
        CHECK_STR(bw_graph_param_name(g, root->param_x), "vx");
        CHECK_STR(bw_graph_param_name(g, root->param_y), "vz");
    }
    CHECK_INT(bw_graph_state_clip(g, base, 99), -1);
    CHECK(bw_graph_state_blend(g, 7, 0) == NULL);
    CHECK_INT(bw_graph_state_clip(NULL, 0, 0), -1);
    /* walking left at the sample's 1.5 m/s: walk_left alone, the breath at
     * its parameter's weight 1, the silent upper layer not listed */
    demo_input in = {.velocity = {1.5f, 0, 0}};
    CHECK(demo_app_set_input(a, &in));
    double now = 0;
    run_frames(a, 60, &now);
    CHECK_STR(state_name(a, 0), "walk");
    demo_clip_weight w[16];
    int n = demo_app_clip_weights(a, w, 16);
    CHECK_INT(n, 2);
    if (n == 2) {
        CHECK_INT(w[0].layer, base);
        CHECK_STR(bw_clip_name(demo_app_clip(a, w[0].clip)), "walk_left");
        CHECK_NEAR(w[0].weight, 1.0, 1e-6);
        CHECK_INT(w[1].layer, bw_graph_find_layer(g, "breath"));
        CHECK_STR(bw_clip_name(demo_app_clip(a, w[1].clip)), "breathing");
        CHECK_NEAR(w[1].weight, 1.0, 1e-6);
    }
    /* the same list with layer 0's leaves (the walk blend's own weights):
     * (vx, vz) = (1.5, 0) is walk_left's own point, so it alone has weight
     * 1 and, as bw_blend_tree_evaluate lists only leaves with weight > 0,
     * it is the one leaf; the breath layer as above (its parameter's 1,
     * no transition) */
    enum { LEAVES = 64 };
    bw_blend_leaf leaves[LEAVES];
    int leaf_count = -2;
    demo_clip_weight w2[16];
    CHECK_INT(demo_app_clip_weights_leaves(a, w2, 16, leaves, LEAVES, &leaf_count), 2);
    CHECK_INT(leaf_count, 1);
    if (leaf_count == 1) {
        CHECK_STR(bw_clip_name(demo_app_clip(a, leaves[0].clip)), "walk_left");
        CHECK_NEAR(leaves[0].weight, 1.0, 1e-6);
    }
    double total = 0, left = 0;
    for (int i = 0; i < leaf_count && i < LEAVES; i++) {
        total += leaves[i].weight;
        if (strcmp(bw_clip_name(demo_app_clip(a, leaves[i].clip)), "walk_left") == 0) left += leaves[i].weight;
    }
    CHECK_NEAR(total, 1.0, 1e-6);
    CHECK_NEAR(left, 1.0, 1e-6);
    CHECK_INT(w2[0].clip, w[0].clip);
    CHECK_NEAR(w2[0].weight, w[0].weight, 1e-7);
    CHECK_INT(w2[1].layer, bw_graph_find_layer(g, "breath"));
    CHECK_STR(bw_clip_name(demo_app_clip(a, w2[1].clip)), "breathing");
    CHECK_NEAR(w2[1].weight, 1.0, 1e-6);
    demo_app_destroy(a);
}

static void graph_reload_keeps_the_state_and_refuses_broken_edits(void)
{
    char *orig = live_copy(DEMO_GRAPH, "live_graph.lua");
    if (!orig) return;
    const char *live = temp_path("live_graph.lua");
    demo_app_desc d = {.character = HUMANOID, .graph = live, .force_polling = true};
    demo_app *a = open_app(&d);
    CHECK(a != NULL);
    if (!a) {
        free(orig);
        return;
    }
    demo_input in = {.velocity = {0, 0, 1.5f}};
    CHECK(demo_app_set_input(a, &in));
    double now = 0;
    run_frames(a, 90, &now);
    CHECK_STR(state_name(a, 0), "walk");
    double progress = layer(a, 0).progress;
    const bw_graph *before = demo_app_graph(a);
    /* a good edit: the run threshold moves (the file grows by a digit) */
    char *good = replaced(orig, "\"speed > 2.75\" },  duration = 0.3", "\"speed > 2.755\" }, duration = 0.3");
    CHECK(good != NULL);
    write_text_file(live, good);
    CHECK_INT(demo_app_reload(a, now, false), 0);  /* seen, not settled yet */
    CHECK_INT(demo_app_reload(a, now + 0.2, false), 1);
    CHECK(demo_app_graph(a) != before);
    CHECK_STR(demo_app_error(a), "");
    CHECK_INT(demo_app_reloads(a), 1);
    CHECK_STR(state_name(a, 0), "walk"); /* kept by name */
    CHECK_NEAR(layer(a, 0).progress, progress, 1e-9);
    const bw_graph *g = demo_app_graph(a);
    CHECK_NEAR(bw_graph_cursor_param(demo_app_cursor(a), bw_graph_find_param(g, "vz")), 1.5, 1e-6);
    CHECK_NEAR(layer(a, 1).weight, 0.0, 1e-6); /* the silent upper layer stays silent */
    now += 0.3;
    run_frames(a, 10, &now);
    CHECK_STR(state_name(a, 0), "walk");
    /* a broken edit: a syntax error on a known line */
    char *broken = replaced(good, GRAPH_AIR_STATE, "jump_air   = { clip = \"jump_air\" ,, },");
    CHECK(broken != NULL);
    int line = line_of(broken, ",, }");
    write_text_file(live, broken);
    const bw_graph *running = demo_app_graph(a);
    CHECK_INT(settle(a, &now), -1);
    char want[512];
    snprintf(want, sizeof want, "live_graph.lua:%d:", line);
    CHECK_CONTAINS(demo_app_error(a), want);
    CHECK(demo_app_graph(a) == running);
    CHECK_INT(demo_app_rejections(a), 1);
    run_frames(a, 10, &now); /* the previous graph keeps running */
    CHECK_STR(state_name(a, 0), "walk");
    /* an unknown clip: refused by the reader with its line */
    char *unknown = replaced(good, "idle = { clip = \"idle\" },", "idle = { clip = \"idle_x\" },");
    CHECK(unknown != NULL);
    write_text_file(live, unknown);
    CHECK_INT(settle(a, &now), -1);
    snprintf(want, sizeof want, "live_graph.lua:%d:", line_of(unknown, "\"idle_x\""));
    CHECK_CONTAINS(demo_app_error(a), want);
    CHECK_CONTAINS(demo_app_error(a), "idle_x");
    CHECK(demo_app_graph(a) == running);
    CHECK_INT(demo_app_rejections(a), 2);
    /* the walk state renamed: the base layer restarts at its entry */
    char *renamed = replaced(good, "walk = { sync", "stroll = { sync");
    char *r2 = renamed ? replaced(renamed, "to = \"walk\",       exit_time", "to = \"stroll\",     exit_time") : NULL;
    char *r3 = r2 ? replaced(r2, "{ from = \"idle\", to = \"walk\"", "{ from = \"idle\", to = \"stroll\"") : NULL;
    char *r4 = r3 ? replaced(r3, "{ from = \"walk\", to = \"idle\"", "{ from = \"stroll\", to = \"idle\"") : NULL;
    char *r5 = r4 ? replaced(r4, "{ from = \"walk\", to = \"run\"", "{ from = \"stroll\", to = \"run\"") : NULL;
    char *r6 = r5 ? replaced(r5, "{ from = \"run\",  to = \"walk\"", "{ from = \"run\",  to = \"stroll\"") : NULL;
    CHECK(r6 != NULL);
    if (r6) {
        write_text_file(live, r6);
        CHECK_INT(settle(a, &now), 1);
        CHECK_STR(demo_app_error(a), "");
        CHECK_STR(state_name(a, 0), "idle"); /* the entry */
        run_frames(a, 30, &now);             /* and on to the renamed walk */
        CHECK_STR(state_name(a, 0), "stroll");
    }
    free(renamed);
    free(r2);
    free(r3);
    free(r4);
    free(r5);
    free(r6);
    free(good);
    free(broken);
    free(unknown);
    free(orig);
    demo_app_destroy(a);
}

/* A graph whose `upper` layer follows a parameter (weight = "upper_w"):
 * the demo neither silences it at creation nor fades it on the wave key
 * (the graph's parameter drives it); the key's fade returns true with no
 * error (it read "demo: cannot fade layer 'upper'"). */
static void a_parameter_weighted_upper_layer_is_left_to_its_parameter(void)
{
    const char *path = temp_path("param_upper.lua");
    write_text_file(path, "return {\n"
                          "  params = { upper_w = 0.5, wave = 'trigger' },\n"
                          "  layers = {\n"
                          "    { name = 'base', entry = 'idle', states = { idle = { clip = 'idle' } } },\n"
                          "    { name = 'upper', entry = 'wave', weight = 'upper_w',\n"
                          "      states = { wave = { clip = 'wave', loop = false } },\n"
                          "      transitions = { { from = '*', to = 'wave', when = { 'wave' }, to_self = true } } },\n"
                          "  },\n"
                          "}\n");
    demo_app_desc d = {.character = HUMANOID, .graph = path};
    demo_app *a = open_app(&d);
    CHECK(a != NULL);
    if (!a) return;
    double now = 0;
    run_frames(a, 2, &now);
    CHECK_NEAR(layer(a, 1).weight, 0.5, 1e-6); /* its parameter's value, not silenced */
    CHECK(demo_app_fire(a, "wave"));
    CHECK(demo_app_layer_weight(a, "upper", 1.0f, 0.2f));
    CHECK_STR(demo_app_error(a), "");
    run_frames(a, 30, &now);
    CHECK_NEAR(layer(a, 1).weight, 0.5, 1e-6); /* still the parameter's */
    CHECK(!demo_app_layer_weight(a, "nope", 1.0f, 0.2f)); /* an unknown layer is still an error */
    demo_app_destroy(a);
}

static void character_reload_keeps_the_graph_state(void)
{
    char *orig = live_copy(HUMANOID, "humanoid.lua");
    if (!orig) return;
    const char *live = temp_path("humanoid.lua");
    demo_app_desc d = {.character = live, .graph = DEMO_GRAPH, .force_polling = true};
    demo_app *a = open_app(&d);
    CHECK(a != NULL);
    if (!a) {
        free(orig);
        return;
    }
    demo_input in = {.velocity = {0, 0, 4.0f}};
    CHECK(demo_app_set_input(a, &in));
    double now = 0;
    run_frames(a, 120, &now);
    CHECK_STR(state_name(a, 0), "run");
    const bw_rig *rig = demo_app_rig(a);
    float pos[3], yaw;
    demo_app_place(a, pos, &yaw);
    /* a good edit: the hips a centimetre lower */
    char *good = replaced(orig, "local HIPS_Y = 0.96", "local HIPS_Y = 0.95");
    write_text_file(live, good);
    CHECK_INT(demo_app_reload(a, now, true), 1);
    CHECK(demo_app_rig(a) != rig);
    CHECK_STR(state_name(a, 0), "run");
    /* the joints the drawing follows, found again in the new rig */
    static const char *const joint_names[DEMO_JOINT_COUNT] = {"head", "eye_l", "eye_r"};
    for (int j = 0; j < DEMO_JOINT_COUNT; j++) {
        CHECK(demo_app_joint(a, (demo_joint)j) >= 0);
        CHECK_STR(bw_rig_joint_name(demo_app_rig(a), demo_app_joint(a, (demo_joint)j)), joint_names[j]);
    }
    CHECK_INT(demo_app_joint(a, DEMO_JOINT_COUNT), -1);
    float pos2[3];
    demo_app_place(a, pos2, &yaw);
    CHECK_NEAR(pos2[2], pos[2], 1e-6); /* the place is the session's */
    run_frames(a, 5, &now);
    /* a runtime error on a known line: refused, the old character stays */
    char *bad = replaced(good, "local BR = { 0, 1.6, 4.0 }", "local BR = { 0, 1.6, 4.0 } .. nil");
    write_text_file(live, bad);
    rig = demo_app_rig(a);
    CHECK_INT(demo_app_reload(a, now, true), -1);
    char want[256];
    snprintf(want, sizeof want, "humanoid.lua:%d:", line_of(bad, ".. nil"));
    CHECK_CONTAINS(demo_app_error(a), want);
    CHECK(demo_app_rig(a) == rig);
    run_frames(a, 5, &now);
    CHECK_STR(state_name(a, 0), "run");
    free(good);
    free(bad);
    free(orig);
    demo_app_destroy(a);
}

static void a_frame_allocates_nothing_after_warm_up(void)
{
    write_text_file(temp_path("busy.timeline.lua"),
                    "return { dt = 1/60, frames = 700,\n"
                    "  { at = 0, velocity = { 0, 0, 1.5 }, look_at = { 1, 1.5, 3 } },\n"
                    "  { at = 2, turn = 0.5, fire = 'jump', gesture = 'wave' },\n"
                    "  { at = 4, velocity = { 1, 0, 3 }, layer_weight = { upper = 1 }, fade = 0.2, fire = 'wave' },\n"
                    "  { at = 6, look_at = false, set = { breath = 0.5 } },\n"
                    "}\n");
    alloc_counter counter = ALLOC_COUNTER(-1);
    demo_app_desc d = {.character = HUMANOID, .graph = DEMO_GRAPH, .timeline = temp_path("busy.timeline.lua"),
                       .force_polling = true};
    d.allocator.fn = alloc_counter_fn;
    d.allocator.user = &counter;
    demo_app *a = open_app(&d);
    CHECK(a != NULL);
    if (!a) return;
    CHECK(counter.allocations > 0); /* the animator and its cursor came through it */
    double now = 0;
    run_frames(a, 10, &now);
    long before = counter.allocations;
#ifdef HAVE_MALLOC_HOOKS
    process_mallocs = 0;
#endif
    for (int i = 0; i < 600; i++) {
        /* the timeline drives the input; keys on top */
        if (i % 150 == 0) CHECK(demo_app_fire(a, "jump"));
        if (i % 170 == 0) CHECK(demo_app_gesture(a, "nod"));
#ifdef HAVE_MALLOC_HOOKS
        count_mallocs = 1;
#endif
        bool ok = demo_app_frame(a, DT, now);
#ifdef HAVE_MALLOC_HOOKS
        count_mallocs = 0;
#endif
        CHECK(ok);
        now += DT;
    }
    CHECK_INT(counter.allocations - before, 0);
#ifdef HAVE_MALLOC_HOOKS
    CHECK_INT(process_mallocs, 0);
#endif
    long n = demo_app_event_count(a);
    CHECK(n > 20); /* markers, enters and exits were logged on the way */
    demo_app_destroy(a);
    CHECK_INT(counter.live_blocks, 0);
}


/* ---- procedural controls (--control) ---- */

/* A control counting its updates in its state and showing the count in
 * ctx.arkit[52] (tongueOut) as n / 1000 + `offset`: the face's ARKit
 * vector is the larger of the animator's and the controls' per channel. */
static void write_counter(const char *offset)
{
    char text[1024];
    snprintf(text, sizeof text,
             "-- counter.lua: counts its updates\n"
             "return {\n"
             "    keep_state = true,\n"
             "    init = function(ctx, options) return { n = 0 } end,\n"
             "    update = function(s, pose, ctx, dt)\n"
             "        s.n = s.n + 1\n"
             "        ctx.arkit[52] = s.n / 1000 + %s\n"
             "    end,\n"
             "}\n",
             offset);
    write_text_file(temp_path("counter.lua"), text);
}

/* The tongueOut the face shows after `frames` updates of the counter. */
static double tongue(const demo_app *a) { return demo_app_arkit(a)[51]; }

static void a_control_reload_keeps_its_state(void)
{
    write_counter("0");
    const char *controls[] = {temp_path("counter.lua")};
    demo_app_desc d = {.character = HUMANOID, .graph = DEMO_GRAPH, .controls = controls, .control_count = 1,
                       .force_polling = true};
    demo_app *a = open_app(&d);
    CHECK(a != NULL);
    if (!a) return;
    CHECK_INT(demo_app_control_count(a), 1);
    CHECK_STR(demo_app_control_name(a, 0), "counter.lua");
    CHECK(!demo_app_control_aims(a)); /* it lists no joints: the animator keeps its head aim */
    float lim[4];
    CHECK_INT(demo_app_head_limits(a, lim), DEMO_AIM_ANIMATOR);
    double now = 0;
    run_frames(a, 40, &now);
    CHECK_NEAR(bw_animator_arkit(demo_app_animator(a))[51], 0.0, 1e-9); /* the animator's face has no tongue */
    CHECK_NEAR(tongue(a), 0.040, 1e-6);
    /* a good edit: the new version runs on the old state (n = 40) */
    write_counter("0.25 -- edited");
    CHECK_INT(settle(a, &now), 1);
    CHECK_INT(demo_app_control_reloads(a), 1);
    CHECK_INT(demo_app_reloads(a), 1);
    CHECK_STR(demo_app_error(a), "");
    run_frames(a, 10, &now);
    CHECK_NEAR(tongue(a), 0.050 + 0.25, 1e-6); /* a restarted state would show 0.010 + 0.25 */
    /* a broken edit: rejected with its line, the previous version keeps
     * running with its state */
    write_text_file(temp_path("counter.lua"), "-- counter.lua, mid-edit\nreturn {\n    update = function(s, pose, ctx, dt)\n"
                                              "        s.n = s.n +\n    end,\n}\n");
    CHECK_INT(settle(a, &now), -1);
    CHECK_CONTAINS(demo_app_error(a), "counter.lua:5:"); /* "unexpected symbol near 'end'" */
    CHECK_INT(demo_app_rejections(a), 1);
    CHECK_INT(demo_app_control_reloads(a), 1);
    run_frames(a, 10, &now);
    CHECK_NEAR(tongue(a), 0.060 + 0.25, 1e-6);
    /* the next good save takes over the same state and clears the error */
    write_counter("0.5 -- fixed");
    CHECK_INT(settle(a, &now), 1);
    CHECK_STR(demo_app_error(a), "");
    run_frames(a, 1, &now);
    CHECK_NEAR(tongue(a), 0.061 + 0.5, 1e-6);
    CHECK_INT(demo_app_control_failures(a), 0);
    demo_app_destroy(a);
}

/* Each failing update's message stands in its own control's slot (the
 * runner names the control): early.lua (control 0) fails from the first
 * frame, late.lua (control 1, run first: priority -1) from its third
 * update, while control 0 has failures already. Fixing early.lua clears
 * its slot alone. */
static void a_failing_update_shows_in_its_controls_slot(void)
{
    write_text_file(temp_path("early.lua"), "return {\n    update = function(s, pose, ctx, dt) error('early') end,\n}\n");
    write_text_file(temp_path("late.lua"), "return {\n    priority = -1,\n    update = function(s, pose, ctx, dt)\n"
                                           "        s.n = (s.n or 0) + 1; if s.n >= 3 then error('late') end\n"
                                           "    end,\n}\n");
    const char *controls[] = {temp_path("early.lua"), temp_path("late.lua")};
    demo_app_desc d = {.character = HUMANOID, .graph = DEMO_GRAPH, .controls = controls, .control_count = 2,
                       .force_polling = true};
    demo_app *a = open_app(&d);
    CHECK(a != NULL);
    if (!a) return;
    double now = 0;
    run_frames(a, 2, &now);
    CHECK_STR(demo_app_error(a), "early.lua:2: early");
    CHECK_INT(demo_app_control_failures(a), 2);
    run_frames(a, 1, &now);
    CHECK_STR(demo_app_error(a), "early.lua:2: early\nlate.lua:4: late");
    CHECK_INT(demo_app_control_failures(a), 4);
    write_text_file(temp_path("early.lua"), "return {\n    update = function(s, pose, ctx, dt) end,\n}\n");
    CHECK_INT(settle(a, &now), 1);
    CHECK_STR(demo_app_error(a), "late.lua:4: late");
    run_frames(a, 2, &now);
    CHECK_STR(demo_app_error(a), "late.lua:4: late");
    CHECK_INT(demo_app_control_failures(a), 3);
    demo_app_destroy(a);
}

/* Two controls broken in one reload whose messages differ only by a
 * leading "x": step.lua's line is a substring of xstep.lua's, yet another
 * line, so both are listed and counted. The broken text is the one of
 * a_control_reload_keeps_its_state (line 5: "unexpected symbol near
 * 'end'"). */
static void rejections_differing_by_a_prefix_are_both_listed(void)
{
    const char *good = "return {\n    update = function(s, pose, ctx, dt) end,\n}\n";
    const char *broken = "-- mid-edit\nreturn {\n    update = function(s, pose, ctx, dt)\n"
                         "        s.n = s.n +\n    end,\n}\n";
    CHECK(write_text_file(temp_path("xstep.lua"), good));
    CHECK(write_text_file(temp_path("step.lua"), good));
    const char *controls[] = {temp_path("xstep.lua"), temp_path("step.lua")};
    demo_app_desc d = {.character = HUMANOID, .graph = DEMO_GRAPH, .controls = controls, .control_count = 2,
                       .force_polling = true};
    demo_app *a = open_app(&d);
    CHECK(a != NULL);
    if (!a) return;
    double now = 0;
    run_frames(a, 2, &now);
    CHECK(write_text_file(temp_path("xstep.lua"), broken));
    CHECK(write_text_file(temp_path("step.lua"), broken));
    CHECK_INT(settle(a, &now), -1);
    const char *want = "xstep.lua:5: unexpected symbol near 'end'\nstep.lua:5: unexpected symbol near 'end'";
    CHECK_STR(demo_app_rejected(a), want);
    CHECK_INT(demo_app_rejections(a), 2);
    CHECK_STR(demo_app_error(a), want);
    demo_app_destroy(a);
}

/* A control whose step comes from a module (offset.lua): saving the
 * module reloads the control with its state, a broken module shows in the
 * control's line until it is mended. */
static void a_saved_module_reloads_its_control(void)
{
    write_text_file(temp_path("offset.lua"), "return { value = 0 }\n");
    write_text_file(temp_path("counting.lua"), "-- counting.lua: counts its updates, offset by a module\n"
                                               "local offset = require('offset')\n"
                                               "return {\n"
                                               "    keep_state = true,\n"
                                               "    init = function(ctx, options) return { n = 0 } end,\n"
                                               "    update = function(s, pose, ctx, dt)\n"
                                               "        s.n = s.n + 1\n"
                                               "        ctx.arkit[52] = s.n / 1000 + offset.value\n"
                                               "    end,\n"
                                               "}\n");
    const char *controls[] = {temp_path("counting.lua")};
    demo_app_desc d = {.character = HUMANOID, .graph = DEMO_GRAPH, .controls = controls, .control_count = 1,
                       .force_polling = true};
    demo_app *a = open_app(&d);
    CHECK(a != NULL);
    if (!a) return;
    double now = 0;
    run_frames(a, 20, &now);
    CHECK_NEAR(tongue(a), 0.020, 1e-6);
    write_text_file(temp_path("offset.lua"), "return { value = 0.25 }\n");
    CHECK_INT(settle(a, &now), 1);
    CHECK_STR(demo_app_error(a), "");
    CHECK_INT(demo_app_control_reloads(a), 1);
    run_frames(a, 10, &now);
    CHECK_NEAR(tongue(a), 0.030 + 0.25, 1e-6); /* the state went on: n = 30 */
    write_text_file(temp_path("offset.lua"), "-- mid-edit\nreturn { value = }\n");
    CHECK_INT(settle(a, &now), -1);
    CHECK_STR(demo_app_error(a), "offset.lua:2: unexpected symbol near '}'");
    CHECK_STR(demo_app_rejected(a), "offset.lua:2: unexpected symbol near '}'");
    run_frames(a, 10, &now);
    CHECK_NEAR(tongue(a), 0.040 + 0.25, 1e-6); /* the last good module runs on */
    write_text_file(temp_path("offset.lua"), "return { value = 0.5 }\n");
    CHECK_INT(settle(a, &now), 1);
    CHECK_STR(demo_app_error(a), "");
    run_frames(a, 1, &now);
    CHECK_NEAR(tongue(a), 0.041 + 0.5, 1e-6);
    demo_app_destroy(a);
}

/* head_aim.lua with its default head yaw limit edited to 0.9: the
 * animator's C aim goes off, the control's limits and gaze are what the
 * session shows. */
static void a_head_aim_control_owns_the_head(void)
{
    /* without controls: the animator's limits (its defaults) */
    demo_app_desc plain = {.character = HUMANOID, .graph = DEMO_GRAPH};
    demo_app *a = open_app(&plain);
    CHECK(a != NULL);
    if (!a) return;
    float lim[4] = {0};
    CHECK_INT(bw_animator_head_limits(demo_app_animator(a), lim), 3); /* neck_01, neck_02, head */
    CHECK_INT(demo_app_head_limits(a, lim), DEMO_AIM_ANIMATOR);
    CHECK_NEAR(lim[0], 1.2, 1e-7);
    CHECK_NEAR(lim[1], 0.6, 1e-7);
    CHECK_NEAR(lim[2], 0.6, 1e-7);
    CHECK_NEAR(lim[3], 0.4, 1e-7);
    CHECK(bw_animator_cursor_mut((bw_animator *)demo_app_animator(a)) == bw_animator_cursor(demo_app_animator(a)));
    demo_app_destroy(a);

    char *orig = slurp(SCRIPTS "/head_aim.lua");
    CHECK(orig != NULL);
    if (!orig) return;
    char *edited = replaced(orig, "\"yaw_limit\", D.yaw", "\"yaw_limit\", 0.9");
    CHECK(edited != NULL);
    write_text_file(temp_path("head_aim.lua"), edited ? edited : orig);
    const char *controls[] = {temp_path("head_aim.lua")};
    demo_app_desc d = {.character = HUMANOID, .graph = DEMO_GRAPH, .controls = controls, .control_count = 1};
    a = open_app(&d);
    CHECK(a != NULL);
    if (a) {
        CHECK(demo_app_control_aims(a));
        CHECK_INT(bw_animator_head_limits(demo_app_animator(a), lim), 0); /* no C head aim */
        CHECK_INT(demo_app_head_limits(a, lim), DEMO_AIM_CONTROL);
        CHECK_NEAR(lim[0], 0.9, 1e-7);
        CHECK_NEAR(lim[1], 0.6, 1e-7);
        CHECK_NEAR(lim[2], 0.6, 1e-7);
        CHECK_NEAR(lim[3], 0.4, 1e-7);
        /* a target 100 m away, 1.2 rad to the character's +X side at the
         * eyes' height: the head stops at 0.9, the eyes take the rest,
         * 0.3 (the head's offset from the origin shifts it by < 0.002) */
        float head[3];
        const float(*m)[4][4] = demo_app_model(a);
        int hj = bw_rig_find_by_name(demo_app_rig(a), "head");
        CHECK(hj >= 0);
        memcpy(head, m[hj][3], sizeof head);
        demo_input in = {.has_look_at = true, .look_at = {100.0f * sinf(1.2f), head[1], 100.0f * cosf(1.2f)}};
        CHECK(demo_app_set_input(a, &in));
        double now = 0;
        run_frames(a, 5, &now);
        const float *gaze = demo_app_gaze(a);
        CHECK_NEAR(gaze[1], 0.3, 0.003);
        CHECK_NEAR(gaze[3], 0.3, 0.003);
        CHECK_NEAR(bw_animator_gaze(demo_app_animator(a))[1], 0.0, 1e-9); /* the animator's is off */
        /* and the head turned in the pose shown: its forward (+Z of its
         * model matrix) is 0.9 rad from the body's, less the idle's own
         * small sway */
        m = demo_app_model(a);
        double yaw = atan2(m[hj][2][0], m[hj][2][2]);
        CHECK_NEAR(yaw, 0.9, 0.05);
        demo_app_destroy(a);
    }
    free(edited);
    free(orig);
}


/* A character reload loads the controls again on the new rig: they keep
 * running, their state starts over. */
static void a_character_reload_restarts_the_controls(void)
{
    char *orig = live_copy(HUMANOID, "humanoid_ctl.lua");
    if (!orig) return;
    const char *live = temp_path("humanoid_ctl.lua");
    write_counter("0");
    const char *controls[] = {temp_path("counter.lua"), temp_path("head_aim.lua")};
    char *aim = live_copy(SCRIPTS "/head_aim.lua", "head_aim.lua");
    demo_app_desc d = {.character = live, .graph = DEMO_GRAPH, .controls = controls, .control_count = 2,
                       .force_polling = true};
    demo_app *a = open_app(&d);
    CHECK(a != NULL);
    if (a) {
        double now = 0;
        run_frames(a, 20, &now);
        CHECK_NEAR(tongue(a), 0.020, 1e-6);
        size_t n = strlen(orig);
        char *edited = (char *)malloc(n + 32);
        CHECK(edited != NULL);
        if (edited) {
            snprintf(edited, n + 32, "%s\n-- edited\n", orig);
            write_text_file(live, edited);
            CHECK_INT(settle(a, &now), 1);
            CHECK_STR(demo_app_error(a), "");
            CHECK(demo_app_control_aims(a)); /* head_aim loaded again: the new animator has no C aim */
            CHECK_INT(bw_animator_head_limits(demo_app_animator(a), (float[4]){0}), 0);
            run_frames(a, 5, &now);
            CHECK_NEAR(tongue(a), 0.005, 1e-6);
            free(edited);
        }
        demo_app_destroy(a);
    }
    free(aim);
    free(orig);
}

/* Every broken source shows at once, each until it loads fine again: the
 * graph, a control (a rejected edit, then a failing update) and the
 * character, with the exact lines Lua gives for each mistake, joined in
 * the session's order (character, graph, controls) one per line. */
static void each_broken_source_shows_until_it_loads(void)
{
    write_counter("0");
    const char *controls[] = {temp_path("counter.lua")};
    live_pair lp = open_live_pair("multi_graph.lua", "multi_char.lua", controls, 1);
    char *graph = lp.graph, *character = lp.character;
    demo_app *a = lp.app;
    char *broken_graph = graph ? replaced(graph, GRAPH_AIR_STATE, "jump_air   = { clip = \"jump_air\" ,, },") : NULL;
    char *broken_char = character ? replaced(character, "local BR = { 0, 1.6, 4.0 }", "local BR = { 0, 1.6, 4.0 } .. nil") : NULL;
    char *good_char = character ? replaced(character, "local HIPS_Y = 0.96", "local HIPS_Y = 0.95") : NULL;
    CHECK(broken_graph && broken_char && good_char);
    if (a && broken_graph && broken_char && good_char) {
        double now = 0;
        run_frames(a, 5, &now);
        CHECK_STR(demo_app_error(a), "");
        CHECK_STR(demo_app_rejected(a), "");
        /* the graph breaks: its line alone (the graph reader names the
         * file as given, the controls' and the character's runners by its
         * name in their folder) */
        char want_graph[1200], want[4096];
        snprintf(want_graph, sizeof want_graph, "%s:%d: unexpected symbol near ','", temp_path("multi_graph.lua"),
                 line_of(broken_graph, ",, }"));
        write_text_file(temp_path("multi_graph.lua"), broken_graph);
        CHECK_INT(settle(a, &now), -1);
        CHECK_STR(demo_app_error(a), want_graph);
        CHECK_STR(demo_app_rejected(a), want_graph);
        /* then the control breaks: both, the graph's first */
        const char *mid_edit = "-- counter.lua, mid-edit\nreturn {\n    update = function(s, pose, ctx, dt)\n"
                               "        s.n = s.n +\n    end,\n}\n";
        const char *want_control = "counter.lua:5: unexpected symbol near 'end'";
        write_text_file(temp_path("counter.lua"), mid_edit);
        CHECK_INT(settle(a, &now), -1);
        snprintf(want, sizeof want, "%s\n%s", want_graph, want_control);
        CHECK_STR(demo_app_error(a), want);
        CHECK_STR(demo_app_rejected(a), want_control); /* what a headless run prints under "reload rejected:" */
        CHECK_INT(demo_app_rejections(a), 2);
        run_frames(a, 5, &now); /* and a frame leaves both */
        CHECK_STR(demo_app_error(a), want);
        CHECK_NEAR(tongue(a), 0.010, 1e-6); /* the old counter runs on */
        /* the control fixed: the graph's line alone */
        write_counter("0.5 -- fixed");
        CHECK_INT(settle(a, &now), 1);
        CHECK_STR(demo_app_error(a), want_graph);
        /* a control that loads but whose update raises: its failure joins
         * the graph's and stays (reported once) until the file loads again */
        write_text_file(temp_path("counter.lua"), "return {\n    keep_state = true,\n"
                                                  "    update = function(s, pose, ctx, dt)\n"
                                                  "        error(\"no counting today\")\n    end,\n}\n");
        CHECK_INT(settle(a, &now), 1);
        CHECK_STR(demo_app_error(a), want_graph);
        run_frames(a, 3, &now);
        snprintf(want, sizeof want, "%s\n%s", want_graph, "counter.lua:4: no counting today");
        CHECK_STR(demo_app_error(a), want);
        CHECK_INT(demo_app_control_failures(a), 3);
        /* a refused command joins last and goes alone with demo_app_clear_error */
        CHECK(!demo_app_fire(a, "teleport"));
        char with_command[4200];
        snprintf(with_command, sizeof with_command, "%s\ndemo: the graph has no trigger 'teleport'", want);
        CHECK_STR(demo_app_error(a), with_command);
        demo_app_clear_error(a);
        CHECK_STR(demo_app_error(a), want);
        write_counter("0.25 -- fixed again");
        CHECK_INT(settle(a, &now), 1);
        CHECK_STR(demo_app_error(a), want_graph);
        /* the character breaks too: its line first, then the graph's */
        char want_char[256];
        snprintf(want_char, sizeof want_char, "multi_char.lua:%d: attempt to concatenate a table value",
                 line_of(broken_char, ".. nil"));
        const bw_rig *rig = demo_app_rig(a);
        write_text_file(temp_path("multi_char.lua"), broken_char);
        CHECK_INT(settle(a, &now), -1);
        snprintf(want, sizeof want, "%s\n%s", want_char, want_graph);
        CHECK_STR(demo_app_error(a), want);
        CHECK_STR(demo_app_rejected(a), want_char);
        CHECK(demo_app_rig(a) == rig);
        /* the character fixed (the hips a centimetre lower): it loads, so
         * its line goes, but the broken graph does not load on it: the
         * graph's line stays and the old character runs on */
        write_text_file(temp_path("multi_char.lua"), good_char);
        CHECK_INT(settle(a, &now), -1);
        CHECK_STR(demo_app_error(a), want_graph);
        CHECK_STR(demo_app_rejected(a), want_graph);
        CHECK(demo_app_rig(a) == rig);
        /* the graph fixed: nothing left, and the waiting character edit
         * goes in with it (its hips at 0.95) */
        write_text_file(temp_path("multi_graph.lua"), graph);
        CHECK_INT(settle(a, &now), 1);
        CHECK_STR(demo_app_error(a), "");
        CHECK(demo_app_rig(a) != rig);
        int hips = bw_rig_find_by_name(demo_app_rig(a), "hips");
        CHECK(hips >= 0);
        if (hips >= 0) CHECK_NEAR(bw_rig_rest_pose(demo_app_rig(a))[hips].t[1], 0.95, 1e-6);
        run_frames(a, 5, &now);
        CHECK_STR(demo_app_error(a), "");
        CHECK_INT(demo_app_rejections(a), 4); /* graph, control, character, character on the broken graph */
    }
    free(broken_graph);
    free(broken_char);
    free(good_char);
    close_live_pair(&lp);
}

/* A clip renamed in the character (jump_air -> jump_up): the graph still
 * names jump_air, so the edit waits; the graph then renamed too does not
 * load on the running character, but the character edit goes in with it. */
static void a_renamed_clip_goes_in_with_its_graph_edit(void)
{
    live_pair lp = open_live_pair("rename_graph.lua", "rename_char.lua", NULL, 0);
    demo_app *a = lp.app;
    char *new_char = lp.character ? replaced(lp.character, CHAR_AIR_CLIP, "name = \"jump_up\",") : NULL;
    char *new_graph = lp.graph ? replaced(lp.graph, GRAPH_AIR_STATE, "jump_air   = { clip = \"jump_up\" },") : NULL;
    CHECK(new_char && new_graph);
    if (a && new_char && new_graph) {
        double now = 0;
        run_frames(a, 3, &now);
        const bw_rig *rig = demo_app_rig(a);
        write_text_file(temp_path("rename_char.lua"), new_char);
        CHECK_INT(settle(a, &now), -1);
        CHECK_CONTAINS(demo_app_error(a), "jump_air"); /* the graph's line: no clip jump_air */
        CHECK(demo_app_rig(a) == rig);
        /* the waiting edit replaced by a broken character: only its line,
         * the graph's problem with the abandoned edit is gone */
        write_text_file(temp_path("rename_char.lua"), "return {\n  rig = = 1,\n}\n");
        CHECK_INT(settle(a, &now), -1);
        CHECK_STR(demo_app_error(a), "rename_char.lua:2: unexpected symbol near '='");
        /* the rename saved again: waiting for the graph again */
        write_text_file(temp_path("rename_char.lua"), new_char);
        CHECK_INT(settle(a, &now), -1);
        CHECK_CONTAINS(demo_app_error(a), "jump_air");
        CHECK(demo_app_rig(a) == rig);
        const int rejections = demo_app_rejections(a), reloads = demo_app_reloads(a);
        write_text_file(temp_path("rename_graph.lua"), new_graph);
        CHECK_INT(settle(a, &now), 1);
        CHECK_STR(demo_app_error(a), "");
        /* one reload, no rejection: the graph, judged against the old
         * character first, went in with the new one */
        CHECK_INT(demo_app_rejections(a), rejections);
        CHECK_INT(demo_app_reloads(a), reloads + 1);
        CHECK(demo_app_rig(a) != rig); /* the new character runs, with the new graph */
        run_frames(a, 3, &now);
        CHECK_STR(demo_app_error(a), "");
    }
    free(new_char);
    free(new_graph);
    close_live_pair(&lp);
}

/* One save, one reload: a graph save that goes in and lets the waiting
 * character edit in too (two versions swapped in one demo_app_reload)
 * counts once; the next graph save once more. */
static void a_save_that_lets_a_waiting_edit_in_counts_once(void)
{
    live_pair lp = open_live_pair("once_graph.lua", "once_char.lua", NULL, 0);
    demo_app *a = lp.app;
    char *new_char = lp.character ? replaced(lp.character, CHAR_AIR_CLIP, "name = \"jump_up\",") : NULL;
    /* a graph both characters load: the air state plays jump_start */
    char *new_graph = lp.graph ? replaced(lp.graph, GRAPH_AIR_STATE, "jump_air   = { clip = \"jump_start\" },") : NULL;
    char *newer_graph = new_graph ? replaced(new_graph, "duration = 0.15 }", "duration = 0.2 }") : NULL;
    CHECK(new_char && new_graph && newer_graph);
    if (a && new_char && new_graph && newer_graph) {
        double now = 0;
        run_frames(a, 3, &now);
        const bw_rig *rig = demo_app_rig(a);
        write_text_file(temp_path("once_char.lua"), new_char);
        CHECK_INT(settle(a, &now), -1); /* waits for the graph: no clip jump_air */
        CHECK_INT(demo_app_reloads(a), 0);
        CHECK_INT(demo_app_rejections(a), 1);
        write_text_file(temp_path("once_graph.lua"), new_graph);
        CHECK_INT(settle(a, &now), 1);
        CHECK_STR(demo_app_error(a), "");
        CHECK(demo_app_rig(a) != rig); /* the graph went in, then the character with it */
        CHECK_INT(demo_app_reloads(a), 1);
        CHECK_INT(demo_app_rejections(a), 1);
        run_frames(a, 3, &now);
        write_text_file(temp_path("once_graph.lua"), newer_graph);
        CHECK_INT(settle(a, &now), 1);
        CHECK_INT(demo_app_reloads(a), 2);
        CHECK_INT(demo_app_rejections(a), 1);
    }
    free(new_char);
    free(new_graph);
    free(newer_graph);
    close_live_pair(&lp);
}

/* A graph with eight problems (eight unknown clips) shows its first six
 * lines and how many more, so the control's line below still shows. */
static void a_long_report_leaves_room_for_the_others(void)
{
    char *graph = live_copy(DEMO_GRAPH, "long_graph.lua");
    write_counter("0");
    const char *controls[] = {temp_path("counter.lua")};
    demo_app_desc d = {.character = HUMANOID, .graph = temp_path("long_graph.lua"), .controls = controls,
                       .control_count = 1, .force_polling = true};
    demo_app *a = graph ? open_app(&d) : NULL;
    CHECK(a != NULL);
    if (a) {
        double now = 0;
        run_frames(a, 3, &now);
        char text[2048] = "return {\n  layers = {\n    { name = \"base\", entry = \"s1\",\n      states = {\n";
        for (int k = 1; k <= 8; k++)
            snprintf(text + strlen(text), sizeof text - strlen(text), "        s%d = { clip = \"missing%d\" },\n", k, k);
        snprintf(text + strlen(text), sizeof text - strlen(text), "      },\n    },\n  },\n}\n");
        write_text_file(temp_path("long_graph.lua"), text);
        CHECK_INT(settle(a, &now), -1);
        write_text_file(temp_path("counter.lua"), "return { update = 1 }\n");
        CHECK_INT(settle(a, &now), -1);
        const char *e = demo_app_error(a);
        int lines = 1;
        for (const char *p = e; *p; p++) lines += *p == '\n';
        CHECK_INT(lines, 8); /* six of the graph's, "(2 more lines)", the control's */
        CHECK_CONTAINS(e, "\n(2 more lines)\ncounter.lua:1: update must be a function (it is a number)");
        CHECK(strstr(e, "missing1") && !strstr(e, "missing8")); /* in its order: the first six */
    }
    free(graph);
    demo_app_destroy(a);
}

static size_t lua_bytes(lua_State *L)
{
    return (size_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024u + (size_t)lua_gc(L, LUA_GCCOUNTB, 0);
}

static void a_frame_with_controls_allocates_nothing(void)
{
    const char *controls[] = {SCRIPTS "/head_aim.lua", SCRIPTS "/blink.lua"};
    alloc_counter counter = ALLOC_COUNTER(-1);
    demo_app_desc d = {.character = HUMANOID, .graph = DEMO_GRAPH, .controls = controls, .control_count = 2,
                       .force_polling = true};
    d.allocator.fn = alloc_counter_fn;
    d.allocator.user = &counter;
    demo_app *a = open_app(&d);
    CHECK(a != NULL);
    if (!a) return;
    CHECK_INT(demo_app_control_count(a), 2);
    lua_State *L = bw_sandbox_state(demo_app_control_sandbox(a));
    double now = 0;
    demo_input in = {.velocity = {0, 0, 1.5f}, .has_look_at = true};
    /* a full collection shrinks the stacks, which the next calls grow
     * again: collect first, warm up, then stop the collector */
    lua_gc(L, LUA_GCCOLLECT, 0);
    run_frames(a, 30, &now);
    lua_gc(L, LUA_GCSTOP, 0);
    size_t lua_before = lua_bytes(L);
    long before = counter.allocations;
#ifdef HAVE_MALLOC_HOOKS
    process_mallocs = 0;
#endif
    float blink_max = 0;
    for (int i = 0; i < 600; i++) {
        double t = i / 60.0;
        in.look_at[0] = (float)(3 * sin(t));
        in.look_at[1] = 1.5f + (float)sin(3 * t);
        in.look_at[2] = (float)(3 * cos(0.7 * t));
        CHECK(demo_app_set_input(a, &in));
        if (i % 170 == 0) CHECK(demo_app_gesture(a, "nod"));
#ifdef HAVE_MALLOC_HOOKS
        count_mallocs = 1;
#endif
        bool ok = demo_app_frame(a, DT, now);
#ifdef HAVE_MALLOC_HOOKS
        count_mallocs = 0;
#endif
        CHECK(ok);
        now += DT;
        float b = demo_app_arkit(a)[BW_ARKIT52_EYE_BLINK_LEFT];
        if (b > blink_max) blink_max = b;
    }
    size_t lua_after = lua_bytes(L);
    lua_gc(L, LUA_GCRESTART, 0);
    CHECK_INT((long long)(lua_after - lua_before), 0); /* the controls' Lua side */
    CHECK_INT(counter.allocations - before, 0);         /* the session's allocator */
#ifdef HAVE_MALLOC_HOOKS
    CHECK_INT(process_mallocs, 0);                      /* and every malloc of the process */
#endif
    CHECK_INT(demo_app_control_failures(a), 0);
    CHECK(blink_max > 0.9f); /* 10 s: the blinks (every 2 to 6 s) reached the face */
    demo_app_destroy(a);
    CHECK_INT(counter.live_blocks, 0);
}

static void control_files_are_checked_at_create(void)
{
    char err[DEMO_APP_ERROR_MAX] = "";
    const char *missing[] = {temp_path("no_such_control.lua")};
    demo_app_desc d = {.character = HUMANOID, .controls = missing, .control_count = 1};
    CHECK(demo_app_create(&d, err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "--control ");
    CHECK_CONTAINS(err, "no_such_control.lua: cannot open the file: No such file or directory");
    /* a FIFO is refused at once: opening it to read (the old check) blocked
     * until a writer came, so the demo hung (alarm: a hang fails the test) */
    const char *fifo[] = {temp_path("pipe_control.lua")};
    CHECK(mkfifo(fifo[0], 0600) == 0);
    d.controls = fifo;
    alarm(30);
    CHECK(demo_app_create(&d, err, sizeof err) == NULL);
    alarm(0);
    char want[600];
    snprintf(want, sizeof want, "demo: --control %s: cannot open the file: not a regular file", fifo[0]);
    CHECK_STR(err, want);
    remove(fifo[0]);
    write_counter("0");
    const char *two_folders[] = {SCRIPTS "/blink.lua", temp_path("counter.lua")};
    d.controls = two_folders;
    d.control_count = 2;
    CHECK(demo_app_create(&d, err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "share one folder");
    write_text_file(temp_path("bad_control.lua"), "return {\n  priority = 1,\n  update = 3,\n}\n");
    const char *bad[] = {temp_path("bad_control.lua")};
    d.controls = bad;
    d.control_count = 1;
    CHECK(demo_app_create(&d, err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "bad_control.lua");
}

/* A borrowed clip without a name (a glTF animation may have none, as
 * CesiumMan's) is named "#index" in the session. */
static void an_unnamed_clip_shows_as_its_index(void)
{
    bw_character *ch = NULL;
    char err[1024];
    CHECK(bw_character_load(HUMANOID, NULL, &ch, err, sizeof err));
    if (!ch) return;
    bw_clip_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.name = "";
    cd.length = 1.0f;
    cd.loop = true;
    bw_clip *unnamed = NULL;
    bw_error e;
    CHECK(bw_clip_create(&cd, &unnamed, &e) == BW_OK);
    const bw_clip *clips[2] = {unnamed, ch->clips[0].clip};
    demo_app_desc d = {.rig = ch->rig, .clips = clips, .clip_count = 2, .label = "borrowed"};
    demo_app *a = unnamed ? open_app(&d) : NULL;
    CHECK(a != NULL);
    if (a) {
        CHECK_STR(demo_app_clip_name(a, 0), "#0");
        CHECK_STR(demo_app_clip_name(a, 1), ch->clips[0].name);
        CHECK(demo_app_clip_name(a, 2) == NULL);
        double now = 0;
        run_frames(a, 3, &now);
        demo_clip_weight w[4];
        CHECK_INT(demo_app_clip_weights(a, w, 4), 1); /* the first clip loops alone */
        int leaf_count = 0;
        CHECK_INT(demo_app_clip_weights_leaves(a, w, 4, NULL, 0, &leaf_count), 1);
        CHECK_INT(leaf_count, -1); /* no graph */
        CHECK_INT(w[0].clip, 0);
        demo_app_destroy(a);
    }
    bw_clip_destroy(unnamed);
    bw_character_destroy(ch);
}

static void hostile_input_is_refused(void)
{
    demo_app_desc d = {.character = HUMANOID, .graph = DEMO_GRAPH};
    demo_app *a = open_app(&d);
    CHECK(a != NULL);
    if (!a) return;
    double now = 0;
    run_frames(a, 3, &now);
    const float bad_dt[] = {NAN, -0.01f, INFINITY, 1e9f, 0.3f};
    for (size_t i = 0; i < sizeof bad_dt / sizeof bad_dt[0]; i++) {
        CHECK(!demo_app_frame(a, bad_dt[i], now));
        CHECK_CONTAINS(demo_app_error(a), "frame refused: dt");
        CHECK_NEAR(demo_app_time(a), 3.0 * DT, 1e-9);
        CHECK_INT(demo_app_frames(a), 3);
    }
    demo_input good = {.velocity = {0, 0, 1.5f}};
    CHECK(demo_app_set_input(a, &good));
    demo_input nan_input = {.velocity = {NAN, 0, 1}};
    CHECK(!demo_app_set_input(a, &nan_input));
    CHECK_CONTAINS(demo_app_error(a), "input refused");
    CHECK_NEAR(demo_app_input(a)->velocity[2], 1.5, 0);
    demo_input nan_look = {.has_look_at = true, .look_at = {0, INFINITY, 0}};
    CHECK(!demo_app_set_input(a, &nan_look));
    CHECK(!demo_app_fire(a, "teleport"));
    CHECK_CONTAINS(demo_app_error(a), "no trigger 'teleport'");
    CHECK(!demo_app_fire(a, "speed")); /* a float, not a trigger */
    CHECK(!demo_app_gesture(a, "walk_fwd"));
    CHECK_CONTAINS(demo_app_error(a), "'walk_fwd' is not a gesture clip");
    CHECK(!demo_app_travel(a, "base", "swim"));
    CHECK_CONTAINS(demo_app_error(a), "no state 'swim' in layer 'base'");
    CHECK(demo_app_frame(a, DT, now)); /* and it runs on */
    demo_app_destroy(a);

    char err[DEMO_APP_ERROR_MAX];
    demo_app_desc missing = {.character = HUMANOID, .graph = temp_path("no_such_graph.lua")};
    CHECK(demo_app_create(&missing, err, sizeof err) == NULL);
    /* named as given, with its folder (it once said "cannot open no_such_graph.lua") */
    char want_missing[1200];
    snprintf(want_missing, sizeof want_missing, "cannot open %s: ", temp_path("no_such_graph.lua"));
    CHECK_CONTAINS(err, want_missing);
    demo_app_desc no_char = {.character = temp_path("no_such_character.lua")};
    CHECK(demo_app_create(&no_char, err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "no_such_character.lua");
    /* a NaN in the graph file: refused where it is written */
    char *orig = slurp(DEMO_GRAPH);
    char *nan_graph = orig ? replaced(orig, "breath = 1,", "breath = 0/0,") : NULL;
    CHECK(nan_graph != NULL);
    if (nan_graph) {
        write_text_file(temp_path("nan_graph.lua"), nan_graph);
        demo_app_desc nan_desc = {.character = HUMANOID, .graph = temp_path("nan_graph.lua")};
        CHECK(demo_app_create(&nan_desc, err, sizeof err) == NULL);
        char want[64];
        snprintf(want, sizeof want, "nan_graph.lua:%d:", line_of(nan_graph, "0/0"));
        CHECK_CONTAINS(err, want);
    }
    free(nan_graph);
    free(orig);
    /* a timeline with a bad demo field */
    write_text_file(temp_path("bad.timeline.lua"), "return { dt = 1/60, frames = 10,\n  { at = 0, velocity = { 1, 2 } },\n}\n");
    demo_app_desc bad_tl = {.character = HUMANOID, .timeline = temp_path("bad.timeline.lua")};
    CHECK(demo_app_create(&bad_tl, err, sizeof err) == NULL);
    {
        /* the timeline's own problem line, as a rejected graph's are (was
         * "1 problem (printed above)", the line on stderr only) */
        char want[1200];
        snprintf(want, sizeof want, "%s:2: velocity must be { x, y, z } (3 finite numbers)", temp_path("bad.timeline.lua"));
        CHECK_STR(err, want);
    }
    /* a timeline is read by the sandbox's reader (a mod file of its folder):
     * a missing one is named as given, a symbolic link is not followed */
    demo_app_desc no_tl = {.character = HUMANOID, .timeline = temp_path("no_such.timeline.lua")};
    CHECK(demo_app_create(&no_tl, err, sizeof err) == NULL);
    char want_tl[1200];
    snprintf(want_tl, sizeof want_tl, "cannot open %s: ", temp_path("no_such.timeline.lua"));
    CHECK_CONTAINS(err, want_tl);
    write_text_file(temp_path("good.timeline.lua"), "return { dt = 1/60, frames = 10,\n  { at = 0, velocity = { 1, 0, 2 } },\n}\n");
    demo_app_desc good_tl = {.character = HUMANOID, .timeline = temp_path("good.timeline.lua")};
    demo_app *tl_app = demo_app_create(&good_tl, err, sizeof err);
    CHECK(tl_app != NULL);
    demo_app_destroy(tl_app);
    CHECK(symlink(temp_path("good.timeline.lua"), temp_path("link.timeline.lua")) == 0);
    demo_app_desc link_tl = {.character = HUMANOID, .timeline = temp_path("link.timeline.lua")};
    CHECK(demo_app_create(&link_tl, err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "symbolic link");
}

/* A character whose one clip, a graph whose layer and states and a
 * timeline whose travel carry control bytes in their names: the clip
 * "id<ESC>[31mle", the layer "ba<ESC>se", the entry state "st<LF>ate" and
 * the state "b<ESC>ad" no transition reaches, travelled to at 0 s from
 * the timeline's line 2. */
static void write_hostile_names(void)
{
    write_text_file(temp_path("esc_char.lua"),
                    "local bw = blendwerk\n"
                    "local rig = assert(bw.rig { joints = { { name = 'root' } } })\n"
                    "local clip = assert(bw.clip { name = 'id\\27[31mle', joints = { { joint = 'root', parent = '',\n"
                    "    keys = { { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 0, 0, 0 } } } } } })\n"
                    "return { rig = rig, clips = { clip } }\n");
    write_text_file(temp_path("esc_graph.lua"),
                    "return {\n"
                    "  params = { speed = 0 },\n"
                    "  layers = {\n"
                    "    { name = 'ba\\27se', entry = 'st\\nate',\n"
                    "      states = { ['st\\nate'] = { clip = 'id\\27[31mle' }, ['b\\27ad'] = { clip = 'id\\27[31mle' } } },\n"
                    "  },\n"
                    "}\n");
    write_text_file(temp_path("esc.timeline.lua"), "return { dt = 1/60, frames = 2,\n"
                                                   "  { at = 0, travel = 'b\\27ad', layer = 'ba\\27se' },\n"
                                                   "}\n");
}

/* The timeline's problems show in the session's error text the way the
 * other sources' do, one "TIMELINE:LINE: message" line each (not only on
 * stderr): the travel with no route of the first frame, its names escaped
 * so that the layer name's line break does not split the line. */
static void a_timelines_problem_shows_in_the_session_error(void)
{
    write_hostile_names();
    demo_app_desc d = {.character = temp_path("esc_char.lua"), .graph = temp_path("esc_graph.lua"),
                       .timeline = temp_path("esc.timeline.lua")};
    demo_app *a = open_app(&d);
    CHECK(a != NULL);
    if (!a) return;
    CHECK_STR(demo_app_error(a), "");
    double now = 0;
    run_frames(a, 1, &now);
    char want[1200];
    snprintf(want, sizeof want, "%s:2: travel to 'b\\x1bad' in layer 'ba\\x1bse': no route from 'st\\x0aate' (frame 0)",
             temp_path("esc.timeline.lua"));
    CHECK_STR(demo_app_error(a), want);
    demo_app_destroy(a);
}

/* ---- the binary ---- */

#ifdef BW_DEMO_BINARY
/* ---- the input mapping (demo/input.c) ---- */

static demo_input controls_after(SDL_Keycode *keys, int n)
{
    demo_controls c;
    memset(&c, 0, sizeof c);
    for (int i = 0; i < n; i++) CHECK(demo_controls_key(&c, keys[i], true) == DEMO_CMD_NONE);
    demo_input in;
    demo_controls_input(&c, NULL, NULL, &in);
    return in;
}

static void keys_make_velocity_and_turn(void)
{
    SDL_Keycode w[] = {SDLK_w}, run[] = {SDLK_w, SDLK_LSHIFT}, left[] = {SDLK_a}, diag[] = {SDLK_w, SDLK_d},
                q[] = {SDLK_q}, e[] = {SDLK_RIGHT};
    demo_input in = controls_after(w, 1);
    CHECK_NEAR(in.velocity[0], 0, 0);
    CHECK_NEAR(in.velocity[2], 1.5, 1e-6);
    in = controls_after(run, 2);
    CHECK_NEAR(in.velocity[2], 4.0, 1e-6);
    in = controls_after(left, 1); /* the character's left is +x */
    CHECK_NEAR(in.velocity[0], 1.5, 1e-6);
    in = controls_after(diag, 2); /* forward and right: 1.5 m/s along the diagonal */
    CHECK_NEAR(in.velocity[0], -1.5 / sqrt(2.0), 1e-6);
    CHECK_NEAR(in.velocity[2], 1.5 / sqrt(2.0), 1e-6);
    in = controls_after(q, 1);
    CHECK_NEAR(in.turn, 1.5, 1e-6); /* toward +X, the character's left */
    in = controls_after(e, 1);
    CHECK_NEAR(in.turn, -1.5, 1e-6);
    CHECK(!in.has_look_at);
    demo_controls c;
    memset(&c, 0, sizeof c);
    CHECK(demo_controls_key(&c, SDLK_SPACE, true) == DEMO_CMD_JUMP);
    CHECK(demo_controls_key(&c, SDLK_SPACE, false) == DEMO_CMD_NONE);
    CHECK(demo_controls_key(&c, SDLK_3, true) == DEMO_CMD_WAVE_LAYER);
    CHECK(demo_controls_button(&c, SDL_CONTROLLER_BUTTON_A, true) == DEMO_CMD_JUMP);
    /* a stick pushed halfway right: past the 0.2 dead zone, (0.5 - 0.2) / 0.8 */
    demo_controls_axis(&c, SDL_CONTROLLER_AXIS_LEFTX, 16384);
    demo_controls_input(&c, NULL, NULL, &in);
    CHECK_NEAR(in.velocity[0], -1.5 * (16384.0 / 32767.0 - 0.2) / 0.8, 1e-5);
    CHECK(demo_key_from_name("space") == SDLK_SPACE && demo_key_from_name("w") == SDLK_w &&
          demo_key_from_name("zz") == SDLK_UNKNOWN);
}

static void the_mouse_points_where_the_camera_projects(void)
{
    demo_camera cam = {.eye = {2.6f, 1.7f, 3.6f}, .target = {0, 1, 0}, .fov_y = 0.8f, .width = 640, .height = 360};
    const float head[3] = {0.1f, 1.6f, 0.2f};
    const int pixels[3][2] = {{320, 180}, {17, 300}, {600, 25}};
    for (int i = 0; i < 3; i++) {
        demo_controls c;
        memset(&c, 0, sizeof c);
        demo_controls_mouse(&c, pixels[i][0], pixels[i][1]);
        demo_input in;
        demo_controls_input(&c, &cam, head, &in);
        CHECK(in.has_look_at);
        float px[2], depth, head_px[2], head_depth;
        CHECK(demo_camera_project(&cam, in.look_at, px, &depth));
        CHECK(demo_camera_project(&cam, head, head_px, &head_depth));
        CHECK_NEAR(px[0], pixels[i][0] + 0.5, 1e-3); /* the pixel's centre */
        CHECK_NEAR(px[1], pixels[i][1] + 0.5, 1e-3);
        CHECK_NEAR(depth, head_depth, 1e-4); /* on the head's plane */
        CHECK(demo_controls_key(&c, SDLK_l, true) == DEMO_CMD_LOOK_OFF);
        demo_controls_input(&c, &cam, head, &in);
        CHECK(!in.has_look_at);
    }
}

/* demo_camera_ray, by hand. The screen centre's ray is the view direction
 * and meets the ground at the look point when that is on the ground. A
 * camera looking straight down from (0, 10, 0) (fov 90 degrees, 100 x 100
 * pixels: focal length 50 px) uses the world up (0, 0, 1) for its basis:
 * right = fwd x up = (0, -1, 0) x (0, 0, 1) = (-1, 0, 0), up = right x fwd
 * = (0, 0, 1); the right edge's middle (100, 50) is one focal length
 * right of centre: dir = (-1, -1, 0), on the ground at (-10, 0, 0); the
 * top edge's middle (50, 0): dir = (0, -1, 1), on the ground at (0, 0, 10).
 * The mouse picks through the same ray (it once had no straight-down case). */
static void camera_rays_should_invert_the_projection(void)
{
    demo_camera cam = {.eye = {2.6f, 1.7f, 3.6f}, .target = {0.4f, 0, -0.8f}, .width = 640, .height = 360};
    float dir[3], fwd[3];
    CHECK(demo_camera_ray(&cam, 320, 180, dir, fwd));
    const double len = sqrt(2.2 * 2.2 + 1.7 * 1.7 + 4.4 * 4.4);
    CHECK_NEAR(fwd[0], -2.2 / len, 1e-6);
    CHECK_NEAR(fwd[1], -1.7 / len, 1e-6);
    CHECK_NEAR(fwd[2], -4.4 / len, 1e-6);
    for (int k = 0; k < 3; k++) CHECK_NEAR(dir[k], fwd[k], 1e-6);
    float s = -cam.eye[1] / dir[1]; /* to y = 0 */
    CHECK_NEAR(cam.eye[0] + dir[0] * s, 0.4, 1e-5);
    CHECK_NEAR(cam.eye[2] + dir[2] * s, -0.8, 1e-5);

    demo_camera down = {.eye = {0, 10, 0}, .target = {0, 0, 0}, .fov_y = 1.57079633f, .width = 100, .height = 100};
    CHECK(demo_camera_ray(&down, 100, 50, dir, NULL));
    CHECK_NEAR(dir[0], -1.0, 1e-5);
    CHECK_NEAR(dir[1], -1.0, 1e-5);
    CHECK_NEAR(dir[2], 0.0, 1e-5);
    CHECK(demo_camera_ray(&down, 50, 0, dir, NULL));
    CHECK_NEAR(dir[0], 0.0, 1e-5);
    CHECK_NEAR(dir[1], -1.0, 1e-5);
    CHECK_NEAR(dir[2], 1.0, 1e-5);
    demo_controls c;
    memset(&c, 0, sizeof c);
    demo_controls_mouse(&c, 99, 49); /* pixel centre (99.5, 49.5) */
    demo_input in;
    const float ground[3] = {0, 0, 0};
    demo_controls_input(&c, &down, ground, &in);
    CHECK(in.has_look_at);
    CHECK_NEAR(in.look_at[0], -10.0 * 49.5 / 50.0, 1e-4);
    CHECK_NEAR(in.look_at[1], 0.0, 1e-4);
    CHECK_NEAR(in.look_at[2], 10.0 * 0.5 / 50.0, 1e-4);

    demo_camera flat = {.eye = {0, 1, 0}, .target = {0, 1, 0}, .width = 100, .height = 100};
    CHECK(!demo_camera_ray(&flat, 50, 50, dir, fwd)); /* eye = target */
    CHECK(!demo_camera_ray(&cam, NAN, 50, dir, fwd));
}

/* Pixels of the overlay's error red (255, 110, 100) in rows [y0, y1). */
static int red_pixels(SDL_Surface *s, int y0, int y1)
{
    int n = 0;
    for (int y = y0; y < y1; y++)
        for (int x = 0; x < s->w; x++) {
            Uint8 r, g, b;
            SDL_GetRGB(((Uint32 *)((Uint8 *)s->pixels + y * s->pitch))[x], s->format, &r, &g, &b);
            n += r == 255 && g == 110 && b == 100;
        }
    return n;
}

static void a_rejected_reload_shows_on_screen(void)
{
    char *orig = live_copy(DEMO_GRAPH, "screen_graph.lua");
    if (!orig) return;
    const char *live = temp_path("screen_graph.lua");
    demo_app_desc d = {.character = HUMANOID, .graph = live, .force_polling = true};
    demo_app *a = open_app(&d);
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, 640, 360, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *r = s ? SDL_CreateSoftwareRenderer(s) : NULL;
    CHECK(a && r);
    if (a && r) {
        double now = 0;
        run_frames(a, 5, &now);
        demo_overlay_info info = {.mode = DEMO_OVERLAY_ALL, .speed = 1};
        SDL_SetRenderDrawColor(r, 0, 0, 0, 255);
        SDL_RenderClear(r);
        demo_overlay_draw(r, a, 640, 360, &info);
        CHECK_INT(red_pixels(s, 0, 360), 0);
        char *broken = replaced(orig, "wave = \"trigger\",", "wave = \"trigger\" +,");
        CHECK(broken != NULL);
        write_text_file(live, broken);
        CHECK_INT(settle(a, &now), -1);
        CHECK_CONTAINS(demo_app_error(a), "screen_graph.lua:");
        SDL_SetRenderDrawColor(r, 0, 0, 0, 255);
        SDL_RenderClear(r);
        demo_overlay_draw(r, a, 640, 360, &info);
        /* one line of red text in the bottom band, nothing red above it */
        CHECK(red_pixels(s, 360 - 12 - DEMO_FONT_LINE, 360) > 100);
        CHECK_INT(red_pixels(s, 0, 360 - 12 - DEMO_FONT_LINE), 0);
        /* the next good save: the error goes */
        write_text_file(live, orig);
        CHECK_INT(settle(a, &now), 1);
        SDL_SetRenderDrawColor(r, 0, 0, 0, 255);
        SDL_RenderClear(r);
        demo_overlay_draw(r, a, 640, 360, &info);
        CHECK_INT(red_pixels(s, 0, 360), 0);
        free(broken);
    }
    SDL_DestroyRenderer(r);
    SDL_FreeSurface(s);
    demo_app_destroy(a);
    free(orig);
}


/* Red pixels of the overlay drawn over black. */
static int overlay_red(SDL_Renderer *r, SDL_Surface *s, const demo_app *a, int y0, int y1)
{
    demo_overlay_info info = {.mode = DEMO_OVERLAY_ALL, .speed = 1};
    SDL_SetRenderDrawColor(r, 0, 0, 0, 255);
    SDL_RenderClear(r);
    demo_overlay_draw(r, a, s->w, s->h, &info);
    return red_pixels(s, y0, y1);
}

static void a_broken_control_shows_on_screen(void)
{
    write_counter("0");
    const char *controls[] = {temp_path("counter.lua")};
    demo_app_desc d = {.character = HUMANOID, .graph = DEMO_GRAPH, .controls = controls, .control_count = 1};
    demo_app *a = open_app(&d);
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, 640, 360, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *r = s ? SDL_CreateSoftwareRenderer(s) : NULL;
    CHECK(a && r);
    if (a && r) {
        const int band = 360 - 12 - DEMO_FONT_LINE;
        double now = 0;
        run_frames(a, 5, &now);
        CHECK_INT(overlay_red(r, s, a, 0, 360), 0);
        /* a syntax error: the red band with its file:line, the old version on */
        write_text_file(temp_path("counter.lua"), "return {\n    update = function(s, pose, ctx, dt)\n        s.n = = 1\n"
                                                  "    end,\n}\n");
        CHECK_INT(settle(a, &now), -1);
        CHECK_CONTAINS(demo_app_error(a), "counter.lua:3:");
        CHECK(overlay_red(r, s, a, band, 360) > 100);
        CHECK_INT(overlay_red(r, s, a, 0, band), 0);
        run_frames(a, 5, &now);
        CHECK_NEAR(tongue(a), 0.010, 1e-6); /* still counting: 10 updates */
        /* an update that raises: loads, fails each frame, shows its line once */
        write_text_file(temp_path("counter.lua"), "return {\n    keep_state = true,\n"
                                                  "    update = function(s, pose, ctx, dt)\n"
                                                  "        error(\"no counting today\")\n    end,\n}\n");
        CHECK_INT(settle(a, &now), 1);
        CHECK_STR(demo_app_error(a), "");
        run_frames(a, 3, &now);
        CHECK_CONTAINS(demo_app_error(a), "counter.lua:4:");
        CHECK_CONTAINS(demo_app_error(a), "no counting today");
        CHECK_INT(demo_app_control_failures(a), 3);
        CHECK(overlay_red(r, s, a, band, 360) > 100);
        CHECK_NEAR(tongue(a), 0.010, 1e-6); /* what it wrote before stays */
    }
    SDL_DestroyRenderer(r);
    SDL_FreeSurface(s);
    demo_app_destroy(a);
}

/* Two broken sources at once: two red rows in the bottom band, the
 * graph's above the control's; fixing the control leaves the graph's row
 * alone at the bottom. */
static void two_broken_sources_show_on_two_rows(void)
{
    char *orig = live_copy(DEMO_GRAPH, "rows_graph.lua");
    write_counter("0");
    const char *controls[] = {temp_path("counter.lua")};
    demo_app_desc d = {.character = HUMANOID, .graph = temp_path("rows_graph.lua"), .controls = controls,
                       .control_count = 1, .force_polling = true};
    demo_app *a = orig ? open_app(&d) : NULL;
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, 640, 360, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *r = s ? SDL_CreateSoftwareRenderer(s) : NULL;
    char *broken = orig ? replaced(orig, "wave = \"trigger\",", "wave = \"trigger\" +,") : NULL;
    CHECK(a && r && broken);
    if (a && r && broken) {
        const int row2 = 360 - 12 - DEMO_FONT_LINE, row1 = row2 - DEMO_FONT_LINE;
        double now = 0;
        run_frames(a, 3, &now);
        write_text_file(temp_path("rows_graph.lua"), broken);
        CHECK_INT(settle(a, &now), -1);
        write_text_file(temp_path("counter.lua"), "return {\n    update = function(s, pose, ctx, dt)\n        s.n = = 1\n"
                                                  "    end,\n}\n");
        CHECK_INT(settle(a, &now), -1);
        char want[2048];
        snprintf(want, sizeof want, "%s:%d: unexpected symbol near ','\ncounter.lua:3: unexpected symbol near '='",
                 temp_path("rows_graph.lua"), line_of(broken, "+,"));
        CHECK_STR(demo_app_error(a), want);
        /* red glyphs on both rows (a line of text lights far more than 100
         * pixels; an empty row none) */
        CHECK(overlay_red(r, s, a, row1, row2) > 100); /* the graph's line */
        CHECK(overlay_red(r, s, a, row2, 360) > 100);  /* the control's */
        CHECK_INT(overlay_red(r, s, a, 0, row1), 0);
        write_counter("0.5 -- fixed");
        CHECK_INT(settle(a, &now), 1);
        CHECK(overlay_red(r, s, a, row2, 360) > 100); /* the graph's, now the only row */
        CHECK_INT(overlay_red(r, s, a, 0, row2), 0);
    }
    free(broken);
    free(orig);
    SDL_DestroyRenderer(r);
    SDL_FreeSurface(s);
    demo_app_destroy(a);
}

static int run_demo(const char *args, char *out, size_t size)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", BW_DEMO_BINARY, args);
    return capture_command(cmd, out, size);
}

/* Write `script` as the temporary character file `file` and run the demo
 * headless on it for 2 frames at 64x64 with `flags` (e.g. "--no-graph"). */
static int run_character_script(const char *file, const char *script, const char *flags, char *out, size_t size)
{
    write_text_file(temp_path(file), script);
    char args[2048];
    snprintf(args, sizeof args, "--headless --size 64x64 --frames 2 %s --character '%s'", flags, temp_path(file));
    return run_demo(args, out, size);
}

typedef struct image {
    unsigned char *px;
    int w, h;
} image;

static image load_png(const char *path)
{
    image im = {0};
    int n = 0;
    im.px = stbi_load(path, &im.w, &im.h, &n, 3);
    return im;
}

/* Pixels that differ from the corner's colour (the background). */
static double foreground_share(const image *im)
{
    long count = 0;
    const unsigned char *bg = im->px;
    for (long i = 0; i < (long)im->w * im->h; i++) {
        const unsigned char *p = im->px + 3 * i;
        count += abs(p[0] - bg[0]) + abs(p[1] - bg[1]) + abs(p[2] - bg[2]) > 24;
    }
    return (double)count / ((double)im->w * im->h);
}

static double difference_share(const image *a, const image *b)
{
    long count = 0;
    for (long i = 0; i < (long)a->w * a->h; i++) {
        const unsigned char *p = a->px + 3 * i, *q = b->px + 3 * i;
        count += abs(p[0] - q[0]) + abs(p[1] - q[1]) + abs(p[2] - q[2]) > 24;
    }
    return (double)count / ((double)a->w * a->h);
}

/* The position printed on the summary line of `frame`. */
static bool summary_pos(const char *out, long frame, float pos[3])
{
    char key[64];
    snprintf(key, sizeof key, "frame %ld t=", frame);
    const char *line = strstr(out, key);
    const char *p = line ? strstr(line, "pos=") : NULL;
    return p && sscanf(p, "pos=%f,%f,%f", &pos[0], &pos[1], &pos[2]) == 3;
}

static void headless_image_has_the_size_and_is_not_blank(void)
{
    static char out[65536];
    char args[1024];
    snprintf(args, sizeof args, "--headless --frames 30 --size 320x200 --screenshot '%s'", temp_path("a30.png"));
    CHECK_INT(run_demo(args, out, sizeof out), 0);
    CHECK_CONTAINS(out, "done frames=30 ");
    CHECK_CONTAINS(out, "dropped=0 ");
    image im = load_png(temp_path("a30.png"));
    CHECK(im.px != NULL);
    if (!im.px) return;
    CHECK_INT(im.w, 320);
    CHECK_INT(im.h, 200);
    double fg = foreground_share(&im);
    if (fg < 0.05) fprintf(stderr, "foreground %.3f\n", fg);
    CHECK(fg > 0.05); /* the figure, the grid, the overlays */
    /* the same frames again: the same image, pixel for pixel (headless, the
     * status line shows no measured time; it did, and the two differed in
     * up to 0.2 % of the pixels) */
    snprintf(args, sizeof args, "--headless --frames 30 --size 320x200 --screenshot '%s'", temp_path("b30.png"));
    CHECK_INT(run_demo(args, out, sizeof out), 0);
    image again = load_png(temp_path("b30.png"));
    CHECK(again.px && again.w == 320 && again.h == 200);
    if (again.px) CHECK_NEAR(difference_share(&im, &again), 0.0, 0.0);
    stbi_image_free(im.px);
    stbi_image_free(again.px);
}

static void the_character_moved_between_frames_30_and_90(void)
{
    static char out[65536];
    char args[1024];
    snprintf(args, sizeof args, "--headless --frames 90 --print-every 30 --size 320x200 --screenshot '%s'",
             temp_path("a90.png"));
    CHECK_INT(run_demo(args, out, sizeof out), 0);
    float p30[3] = {0}, p90[3] = {0};
    CHECK(summary_pos(out, 30, p30));
    CHECK(summary_pos(out, 90, p90));
    float dx = p90[0] - p30[0], dz = p90[2] - p30[2], dist = sqrtf(dx * dx + dz * dz);
    /* walking (the idle -> walk fade is over by 0.25 s) for 1 s at
     * 1.5 m/s on a 0.5 rad/s turn: the chord 2 * 3 * sin(0.25) = 1.484 m */
    CHECK_NEAR(dist, 2.0 * 3.0 * sin(0.25), 0.03);
    CHECK_CONTAINS(out, "layers=base:walk,");
    /* its own frame-30 image (not another test's) */
    snprintf(args, sizeof args, "--headless --frames 30 --size 320x200 --screenshot '%s'", temp_path("m30.png"));
    CHECK_INT(run_demo(args, out, sizeof out), 0);
    image a = load_png(temp_path("m30.png")), b = load_png(temp_path("a90.png"));
    CHECK(a.px && b.px && a.w == b.w && a.h == b.h);
    if (a.px && b.px) {
        double diff = difference_share(&a, &b);
        /* the grid scrolled under the figure, the figure turned: 0.0203 of
         * the pixels differ (1,296 of 64,000); two renders of one frame
         * are the same (above), so 0.01
         * tells them apart with room on both sides (0.02 failed now and
         * then, the margin being 16 pixels) */
        if (!(diff > 0.01)) fprintf(stderr, "frames 30 and 90 differ in %.4f of the pixels\n", diff);
        CHECK(diff > 0.01);
    }
    stbi_image_free(a.px);
    stbi_image_free(b.px);
}

static void a_jumping_timeline_shows_the_jump_states(void)
{
    static char out[1 << 17];
    CHECK_INT(run_demo("--headless --size 320x200 --print-every 6 --timeline '" BW_SOURCE_DIR "/graphs/demo.timeline.lua'",
                       out, sizeof out),
              0);
    CHECK_CONTAINS(out, "layers=base:jump_start,");
    CHECK_CONTAINS(out, "layers=base:jump_air,");
    CHECK_CONTAINS(out, "layers=base:jump_land,");
    CHECK_CONTAINS(out, "enter base jump_start");
    CHECK_CONTAINS(out, "marker base jump_start takeoff");
    CHECK_CONTAINS(out, "layers=base:run,");
    CHECK_CONTAINS(out, "done frames=480 t=8.000");
    /* the start comes before the air, the air before the land */
    const char *s = strstr(out, "base:jump_start"), *air = strstr(out, "base:jump_air"), *land = strstr(out, "base:jump_land");
    CHECK(s && air && land && s < air && air < land);
    /* docs/demo.md's example output is this run's (at the default size
     * and --print-every: the triangle count depends on the size, the
     * events listed on the rate): its frame-60 line up to the events, its
     * done line up to the triangles (it went stale) */
    char *doc = slurp(BW_SOURCE_DIR "/docs/demo.md");
    CHECK(doc != NULL);
    const char *example = doc ? strstr(doc, "\nframe 60 t=") : NULL, *done = example ? strstr(example, "\ndone ") : NULL;
    const char *tri = done ? strstr(done, " triangles=") : NULL, *events = example ? strstr(example, " events=") : NULL;
    CHECK(example && done && tri && events && events < done);
    if (example && done && tri && events) {
        char line[2048];
        snprintf(line, sizeof line, "%.*s ", (int)(events - example), example);
        CHECK_CONTAINS(out, line);
        snprintf(line, sizeof line, "%.*s ", (int)(tri - done), done);
        CHECK_CONTAINS(out, line);
    }
    free(doc);
}

static void model_runs_on_each_shared_asset(void)
{
    static const char *const assets[] = {"Fox.glb", "cesium_man.gltf", "RobotExpressive.glb"};
    for (size_t i = 0; i < sizeof assets / sizeof assets[0]; i++) {
        char path[1024], args[2048];
        snprintf(path, sizeof path, "%s/%s", BW_ASSET_DIR, assets[i]);
        if (access(path, R_OK) != 0) {
            fprintf(stderr, "skip: %s is absent\n", path);
            continue;
        }
        static char out[65536];
        snprintf(args, sizeof args, "--headless --frames 20 --print-every 10 --size 320x200 --model '%s' --screenshot '%s'", path,
                 temp_path("model.png"));
        int rc = run_demo(args, out, sizeof out);
        if (rc != 0) fprintf(stderr, "%s: %s\n", assets[i], out);
        CHECK_INT(rc, 0);
        CHECK_CONTAINS(out, "done frames=20 ");
        CHECK(strstr(out, "error:") == NULL);
        CHECK(strstr(out, "clips=:") == NULL && strstr(out, ",:") == NULL); /* no nameless entry */
        if (strcmp(assets[i], "cesium_man.gltf") == 0) CHECK_CONTAINS(out, "clips=#0:1.00"); /* its unnamed clip */
        image im = load_png(temp_path("model.png"));
        CHECK(im.px != NULL);
        if (im.px) CHECK(foreground_share(&im) > 0.02);
        stbi_image_free(im.px);
    }
}

/* The windowed mode, once, on a virtual X server (CI installs xvfb); the
 * system's X and D-Bus libraries keep a few blocks to the end, so the
 * leak check is off for this run only. Skipped without xvfb-run. */
static void windowed_mode_under_xvfb(void)
{
    static char out[65536];
    if (system("command -v xvfb-run >/dev/null 2>&1") != 0) {
        fprintf(stderr, "skip: xvfb-run is absent (apt-get install xvfb)\n");
        return;
    }
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "ASAN_OPTIONS=detect_leaks=0 SDL_AUDIODRIVER=dummy xvfb-run -a '%s' --frames 20 --size 400x300 "
             "--screenshot '%s' 2>&1",
             BW_DEMO_BINARY, temp_path("window.png"));
    int rc = capture_command(cmd, out, sizeof out);
    if (rc != 0) fprintf(stderr, "windowed run: %s\n", out);
    CHECK_INT(rc, 0);
    image im = load_png(temp_path("window.png"));
    CHECK(im.px != NULL);
    if (!im.px) return;
    CHECK_INT(im.w, 400);
    CHECK_INT(im.h, 300);
    CHECK(foreground_share(&im) > 0.05);
    stbi_image_free(im.px);
}

/* Names from the files reach the headless lines escaped: the summary's
 * layer, state, clip and event names and the "error:" line (the
 * timeline's travel with no route) print every control byte as \xNN, and
 * no ESC byte reaches the output; a graph's load error quoting a clip name
 * with an ESC byte, on stderr, too. */
static void headless_lines_escape_names_with_control_bytes(void)
{
    static char out[65536];
    write_hostile_names();
    char args[2048];
    snprintf(args, sizeof args, "--headless --size 64x64 --print-every 1 --character '%s' --graph '%s' --timeline '%s'",
             temp_path("esc_char.lua"), temp_path("esc_graph.lua"), temp_path("esc.timeline.lua"));
    CHECK_INT(run_demo(args, out, sizeof out), 0);
    /* frame 1 at t = 1/60 = 0.017 s; no velocity: the character stands at the origin */
    CHECK_CONTAINS(out, "frame 1 t=0.017 pos=0.000,0.000,0.000 yaw=0.000 layers=ba\\x1bse:st\\x0aate "
                        "clips=id\\x1b[31mle:1.00 events=[0.000 enter ba\\x1bse st\\x0aate]\n");
    CHECK_CONTAINS(out, "frame 2 t=0.033 pos=0.000,0.000,0.000 yaw=0.000 layers=ba\\x1bse:st\\x0aate "
                        "clips=id\\x1b[31mle:1.00 events=[]\n");
    char want[1200];
    snprintf(want, sizeof want,
             "\nerror: %s:2: travel to 'b\\x1bad' in layer 'ba\\x1bse': no route from 'st\\x0aate' (frame 0)\n",
             temp_path("esc.timeline.lua"));
    CHECK_CONTAINS(out, want);
    CHECK(strchr(out, '\x1b') == NULL);
    write_text_file(temp_path("esc_bad_graph.lua"), "return {\n"
                                                    "  layers = {\n"
                                                    "    { name = 'base', entry = 'a',\n"
                                                    "      states = { a = { clip = 'no\\27pe' } } },\n"
                                                    "  },\n"
                                                    "}\n");
    snprintf(args, sizeof args, "--headless --size 64x64 --character '%s' --graph '%s'", temp_path("esc_char.lua"),
             temp_path("esc_bad_graph.lua"));
    CHECK_INT(run_demo(args, out, sizeof out), 1);
    snprintf(want, sizeof want, "%s:4: layers[1].states.a: state 'a': unknown clip 'no\\x1bpe'\n",
             temp_path("esc_bad_graph.lua"));
    CHECK_STR(out, want);
}

/* A character whose rig has two joints named "head" (one under the neck,
 * one under an arm): the animator's default head chain passes over the
 * name, so the character has no head aim, and the demo says why on
 * stderr, once for the load, in the form docs/demo.md gives. */
static void a_rig_with_two_heads_gets_a_warning(void)
{
    static char out[65536];
    CHECK_INT(run_character_script("two_heads.lua",
                                   "local bw = blendwerk\n"
                                   "local rig = assert(bw.rig { joints = { { name = 'root' }, { name = 'neck', parent = 'root' },\n"
                                   "  { name = 'head', parent = 'neck' }, { name = 'arm', parent = 'root' },\n"
                                   "  { name = 'head', parent = 'arm' } } })\n"
                                   "local clip = assert(bw.clip { name = 'idle', joints = { { joint = 'root', parent = '',\n"
                                   "    keys = { { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 0, 0, 0 } } } } } })\n"
                                   "return { rig = rig, clips = { clip } }\n",
                                   "--no-graph", out, sizeof out),
              0);
    char want[1400];
    snprintf(want, sizeof want,
             "blendwerk-demo: warning: %s: head: the default head chain passes over 'head': the rig has several "
             "joints of that name (name the chain: head.chain = { ..., 'parent/head' })\n",
             temp_path("two_heads.lua"));
    CHECK_CONTAINS(out, want);
    const char *first = strstr(out, "blendwerk-demo: warning:");
    CHECK(first && !strstr(first + 1, "blendwerk-demo: warning:"));
    /* the shipped humanoid has one head: no warning */
    CHECK_INT(run_demo("--headless --size 64x64 --frames 2", out, sizeof out), 0);
    CHECK(strstr(out, "warning") == NULL);
}

/* Lines of `text` that start with `prefix`. */
static int lines_starting(const char *text, const char *prefix)
{
    int n = 0;
    size_t len = strlen(prefix);
    for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) n += strncmp(p, prefix, len) == 0;
    return n;
}

/* The --model loaders' warnings reach stderr, once each: SimpleSkin.gltf
 * with a second channel animating the weights of a node that has no morph
 * targets (the loader skips it and says so; the model still plays). */
static void a_models_loader_warnings_are_printed(void)
{
    char src[1024];
    snprintf(src, sizeof src, "%s/SimpleSkin.gltf", BW_ASSET_DIR);
    char *doc = slurp(src);
    if (!doc) {
        fprintf(stderr, "skip: %s is absent\n", src);
        return;
    }
    char *edited = replaced(doc, "\"channels\":[{\"sampler\":0,\"target\":{\"node\":2,\"path\":\"rotation\"}}]",
                            "\"channels\":[{\"sampler\":0,\"target\":{\"node\":2,\"path\":\"rotation\"}},"
                            "{\"sampler\":0,\"target\":{\"node\":2,\"path\":\"weights\"}}]");
    free(doc);
    CHECK(edited != NULL);
    if (!edited) return;
    const char *path = temp_path("skin_warn.gltf");
    CHECK(write_text_file(path, edited));
    free(edited);
    static char out[65536];
    char args[2048], want[2048];
    snprintf(args, sizeof args, "--headless --frames 2 --size 64x64 --model '%s'", path);
    CHECK_INT(run_demo(args, out, sizeof out), 0);
    snprintf(want, sizeof want,
             "blendwerk-demo: warning: %s: animations[0]: 1 of 2 channels skipped (node not in the rig, no morph "
             "targets, or unknown path)\n",
             path);
    CHECK_CONTAINS(out, want);
    CHECK_INT(lines_starting(out, "blendwerk-demo: warning: "), 1);
    CHECK_CONTAINS(out, "done frames=2 ");
}

/* The character's own warnings reach stderr like the animator's: a rig
 * whose spine rest rotation {0,0,0,2} has length 2 (line 2 of the file)
 * and a clip whose first rotation key {0,0,0,3} has length 3 (line 3),
 * each once, in that order, after the file:line of the call. */
static void a_characters_warnings_are_printed(void)
{
    static char out[65536];
    CHECK_INT(run_character_script("warned.lua",
                                   "local bw = blendwerk\n"
                                   "local rig = assert(bw.rig { joints = { { name = 'root' }, { name = 'spine', parent = 'root', r = { 0, 0, 0, 2 } } } })\n"
                                   "local clip = assert(bw.clip { name = 'idle', joints = { { joint = 'spine', parent = 'root',\n"
                                   "    keys = { { time = 0, r = { 0, 0, 0, 3 } }, { time = 1, r = { 0, 0, 0, 1 } } } } } })\n"
                                   "return { rig = rig, clips = { clip } }\n",
                                   "--no-graph", out, sizeof out),
              0);
    char want[1400];
    snprintf(want, sizeof want,
             "blendwerk-demo: warning: %s: warned.lua:2: rig: joint 'spine' (index 1): rest rotation had length 2; "
             "normalized\n"
             "blendwerk-demo: warning: %s: warned.lua:3: clip \"idle\": track 0 (joint \"spine\" rotation): 1 of 2 keys "
             "were not unit length (first: key 0, length 3); normalized\n",
             temp_path("warned.lua"), temp_path("warned.lua"));
    CHECK_CONTAINS(out, want);
    CHECK_INT(lines_starting(out, "blendwerk-demo: warning:"), 2);
}

/* A mod's error message with a line break cannot forge the headless
 * lines tools read: a control whose update raises "boom\ndone frames=1
 * ..." shows in the final "error:" block with every line after the first
 * indented, so the only line starting "done " is the demo's own. */
static void a_message_with_a_line_break_cannot_forge_a_done_line(void)
{
    static char out[65536];
    write_text_file(temp_path("forge.lua"), "return { update = function(s, pose, ctx, dt)\n"
                                            "  error('boom\\ndone frames=1 t=0.000 pos=0,0,0')\n"
                                            "end }\n");
    char args[2048];
    snprintf(args, sizeof args, "--headless --size 64x64 --frames 2 --control '%s'", temp_path("forge.lua"));
    CHECK_INT(run_demo(args, out, sizeof out), 0);
    CHECK_INT(lines_starting(out, "done "), 1);
    CHECK_CONTAINS(out, "\nerror: forge.lua:2: boom\n  done frames=1 t=0.000 pos=0,0,0\n");
}

/* A headless timeline run steps by the timeline's own dt unless --dt is
 * given: a timeline of dt 1/30 over 1 s is 30 frames that end at t = 1
 * (they stepped 1/60 and ended at 0.5), with a summary each simulated
 * second (frame 30); --dt 0.02 still wins (30 frames, t = 0.6). */
static void a_timeline_steps_by_its_own_dt(void)
{
    static char out[65536];
    write_text_file(temp_path("thirty.timeline.lua"), "return { dt = 1/30, duration = 1,\n"
                                                      "  { at = 0, velocity = { 0, 0, 1 } },\n"
                                                      "}\n");
    char args[2048];
    snprintf(args, sizeof args, "--headless --size 64x64 --timeline '%s'", temp_path("thirty.timeline.lua"));
    CHECK_INT(run_demo(args, out, sizeof out), 0);
    CHECK_CONTAINS(out, "frame 30 t=1.000 ");
    CHECK_CONTAINS(out, "done frames=30 t=1.000 ");
    snprintf(args, sizeof args, "--headless --size 64x64 --dt 0.02 --timeline '%s'", temp_path("thirty.timeline.lua"));
    CHECK_INT(run_demo(args, out, sizeof out), 0);
    CHECK_CONTAINS(out, "done frames=30 t=0.600 ");
}


/* The default --print-every is one simulated second of frames: --dt 0.25
 * over 8 frames prints frames 4 and 8. A tiny dt (1e-30: 1e30 frames a
 * second, which lroundf overflowed into a summary every frame) passes no
 * second in the run: only the "done" line; --print-every still applies. */
static void the_default_summary_rate_is_a_simulated_second(void)
{
    static char out[65536];
    CHECK_INT(run_demo("--headless --size 64x64 --frames 8 --dt 0.25", out, sizeof out), 0);
    CHECK_INT(lines_starting(out, "frame "), 2);
    CHECK_CONTAINS(out, "frame 4 t=1.000 ");
    CHECK_CONTAINS(out, "frame 8 t=2.000 ");
    static const char *const tiny[3] = {"1e-30", "1e-7", "1.4e-45"};
    for (int i = 0; i < 3; i++) {
        char args[256];
        snprintf(args, sizeof args, "--headless --size 64x64 --frames 5 --dt %s", tiny[i]);
        CHECK_INT(run_demo(args, out, sizeof out), 0);
        CHECK_INT(lines_starting(out, "frame "), 0);
        CHECK_CONTAINS(out, "done frames=5 ");
    }
    CHECK_INT(run_demo("--headless --size 64x64 --frames 4 --dt 1e-30 --print-every 2", out, sizeof out), 0);
    CHECK_INT(lines_starting(out, "frame "), 2);
    CHECK_CONTAINS(out, "frame 2 t=0.000 ");
    CHECK_CONTAINS(out, "frame 4 t=0.000 ");
}

/* The simulated time and the position of the "done" line. */
static bool done_line(const char *out, double *t, float pos[3])
{
    const char *d = strstr(out, "done frames=");
    const char *p = d ? strstr(d, " t=") : NULL;
    return p && sscanf(p, " t=%lf pos=%f,%f,%f", t, &pos[0], &pos[1], &pos[2]) == 4;
}

/* The simulated time at the end of a 64x64 run with these arguments. */
static double run_time(const char *args)
{
    static char out[65536];
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "--headless --size 64x64 %s", args);
    double t = -1.0;
    float pos[3];
    CHECK_INT(run_demo(cmd, out, sizeof out), 0);
    if (!done_line(out, &t, pos)) fprintf(stderr, "no done line for %s:\n%s\n", args, out);
    return t;
}

/* Pause, single step and slow motion obey one rule in both loops (main.c
 * paced_dt): a frame steps by dt times the speed, a paused frame not at
 * all, a single step (N, .) while paused by one dt times the speed. The
 * speed steps are command()'s: minus halves down to 0.1, plus doubles up
 * to 1. With dt = 1/60 over 60 frames (headless it stepped by --dt
 * whatever the keys said: t = 1.000 every time): */
static void pause_step_and_speed_keys_drive_the_headless_time(void)
{
    const double f = 1.0 / 60.0;
    CHECK_NEAR(run_time("--frames 60"), 60 * f, 5e-4);                         /* 1.000 */
    CHECK_NEAR(run_time("--frames 60 --keys 0:minus"), 60 * f * 0.5, 5e-4);     /* 0.500 */
    /* 1 -> 0.5 -> 0.25 -> 0.125 -> 0.1 (0.0625 is under the floor) */
    CHECK_NEAR(run_time("--frames 60 --keys 0:minus,0:minus,0:minus,0:minus"), 60 * f * 0.1, 5e-4); /* 0.100 */
    /* 30 frames at 0.5, then plus: 30 at 1 (and a second plus stays at 1) */
    CHECK_NEAR(run_time("--frames 60 --keys 0:minus,30:plus,31:plus"), 30 * f * 0.5 + 30 * f, 5e-4); /* 0.750 */
    CHECK_NEAR(run_time("--frames 60 --keys 0:minus,0:p"), 0.0, 5e-4);
    /* P before frame 5: frames 0-4 stepped, 5 / 60 = 0.083 */
    CHECK_NEAR(run_time("--frames 60 --keys 5:p"), 5 * f, 5e-4);
    /* and a later P resumes (keys count the run's frames, paused ones too):
     * frames 0-4, the steps N and . before frames 10 and 11, frames 40-59 */
    CHECK_NEAR(run_time("--frames 60 --keys 5:p,10:n,11:period,40:p"), (5 + 2 + 20) * f, 5e-4); /* 0.450 */
    /* a single step at half speed is half a frame: 0.5 / 60 = 0.0083 */
    CHECK_NEAR(run_time("--frames 60 --keys 0:minus,0:p,3:n --print-every 1000"), 0.5 * f, 5e-4);
    /* with --dt 0.1 over 10 frames at a quarter of the speed: 10 * 0.025 */
    CHECK_NEAR(run_time("--frames 10 --dt 0.1 --keys 0:minus,0:minus"), 0.25, 5e-4);
    /* the summary lines count the run's frames and print the session's time */
    static char out[65536];
    CHECK_INT(run_demo("--headless --size 64x64 --frames 60 --print-every 30 --keys 10:p", out, sizeof out), 0);
    CHECK_CONTAINS(out, "frame 30 t=0.167 ");
    CHECK_CONTAINS(out, "frame 60 t=0.167 ");
}

/* The headless default walk (1.5 m/s forward, turning 0.5 rad/s) stays
 * with keys that do not move the character (it went: --keys 60:space
 * ended at 0,0,0); a movement key of --keys replaces it. */
static void keys_keep_the_default_walk_unless_they_move(void)
{
    static char out[65536];
    float p30[3] = {0}, p90[3] = {0};
    /* O (overlays) and a space at the end: the walk's chord between frames
     * 30 and 90, 2 * (1.5 / 0.5) * sin(0.25) = 1.484 m, as with no keys */
    CHECK_INT(run_demo("--headless --size 64x64 --frames 90 --print-every 30 --keys 0:o,90:space", out, sizeof out), 0);
    CHECK(summary_pos(out, 30, p30) && summary_pos(out, 90, p90));
    float dx = p90[0] - p30[0], dz = p90[2] - p30[2];
    CHECK_NEAR(sqrtf(dx * dx + dz * dz), 2.0 * 3.0 * sin(0.25), 0.03);
    CHECK_CONTAINS(out, "frame 90 t=1.500 ");
    CHECK(strstr(out, "yaw=0.750") != NULL); /* 0.5 rad/s for 1.5 s */
    /* W held from frame 0: its own walk, straight ahead (yaw 0): 1.5 m
     * along +z between frames 30 and 90 (the fade from idle is over) */
    CHECK_INT(run_demo("--headless --size 64x64 --frames 90 --print-every 30 --keys 0:+w", out, sizeof out), 0);
    CHECK(summary_pos(out, 30, p30) && summary_pos(out, 90, p90));
    CHECK_NEAR(p90[2] - p30[2], 1.5, 0.03);
    CHECK_NEAR(p90[0] - p30[0], 0.0, 0.01);
    CHECK(strstr(out, "yaw=0.750") == NULL);
    CHECK_CONTAINS(out, "frame 90 t=1.500 pos=");
}

/* A character other than the built-in humanoid gets no default graph
 * (graphs/demo.lua names the humanoid's clips: such a run exited 1 with
 * "unknown clip 'idle'"): the animator's locomotion blend plays, as with
 * --no-graph. Two clips, "idle" (standing) and "walk" (the root 1.5 m
 * along +z in its 1 s loop): W at 1.5 m/s plays walk alone at rate 1, so
 * the character covers 1.5 m between frames 30 and 90. The shipped
 * humanoid named by path still gets graphs/demo.lua. */
static void another_character_runs_without_the_default_graph(void)
{
    static char out[65536];
    CHECK_INT(run_character_script("two_clips.lua",
                                   "local bw = blendwerk\n"
                                   "local rig = assert(bw.rig { joints = { { name = 'root' }, { name = 'hips', parent = 'root',\n"
                                   "  t = { 0, 1, 0 } } } })\n"
                                   "local function clip(name, z)\n"
                                   "  return assert(bw.clip { name = name, joints = { { joint = 'root', parent = '',\n"
                                   "    keys = { { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 0, 0, z } } } } } })\n"
                                   "end\n"
                                   "return { rig = rig, clips = { clip('idle', 0), clip('walk', 1.5) } }\n",
                                   "", out, sizeof out),
              0);
    CHECK_CONTAINS(out, "done frames=2 ");
    CHECK(strstr(out, "error") == NULL);
    char args[2048];
    snprintf(args, sizeof args, "--headless --size 64x64 --frames 90 --print-every 30 --keys 0:+w --character '%s'",
             temp_path("two_clips.lua"));
    CHECK_INT(run_demo(args, out, sizeof out), 0);
    CHECK_CONTAINS(out, "frame 90 t=1.500 ");
    CHECK_CONTAINS(out, " layers=- clips=walk:1.00 ");
    float p30[3] = {0}, p90[3] = {0};
    CHECK(summary_pos(out, 30, p30) && summary_pos(out, 90, p90));
    CHECK_NEAR(p90[2] - p30[2], 1.5, 0.01);
    CHECK_NEAR(p90[0] - p30[0], 0.0, 1e-3);
    /* the humanoid by its path: the demo graph */
    CHECK_INT(run_demo("--headless --size 64x64 --frames 60 --character '" HUMANOID "'", out, sizeof out), 0);
    CHECK_CONTAINS(out, " layers=base:");
}

/* The help lists the options docs/demo.md's table lists, no more, no
 * fewer (each "--name" of the help's option column against each of the
 * table's first column). */
static int option_names(const char *text, bool table, char names[][24], int cap)
{
    int n = 0;
    for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (table && strncmp(line, "| `-", 4) != 0) continue;
        if (!table && strncmp(line, "  -", 3) != 0) continue;
        /* the option column: the table's first cell, the help's text up to two spaces */
        const char *stop = table ? memchr(line + 1, '|', len - 1) : strstr(line + 2, "  ");
        if (!stop || stop > line + len) stop = line + len;
        for (const char *p = line; p < stop && n < cap; p++) {
            if (*p != '-' || (p > line && (p[-1] == '-' || p[-1] == '+'))) continue;
            size_t k = 0;
            while (p + k < stop && (p[k] == '-' || (p[k] >= 'a' && p[k] <= 'z')) && k < 23) k++;
            if (k < 2) continue;
            memcpy(names[n], p, k);
            names[n][k] = '\0';
            n++;
            p += k - 1;
        }
    }
    return n;
}

static void the_help_and_the_docs_list_the_same_options(void)
{
    static char out[65536];
    CHECK_INT(run_demo("--help", out, sizeof out), 0);
    char *doc = slurp(BW_SOURCE_DIR "/docs/demo.md");
    CHECK(doc != NULL);
    if (!doc) return;
    char *options = strstr(doc, "## Options"), *keys = options ? strstr(options, "## Keys") : NULL;
    CHECK(options && keys);
    if (keys) *keys = '\0';
    char in_help[64][24], in_doc[64][24];
    int nh = option_names(out, false, in_help, 64), nd = option_names(options ? options : "", true, in_doc, 64);
    CHECK_INT(nh, 18); /* 17 options and -h */
    CHECK_INT(nd, nh);
    for (int i = 0; i < nh; i++) {
        bool found = false;
        for (int j = 0; j < nd; j++) found = found || !strcmp(in_help[i], in_doc[j]);
        if (!found) fprintf(stderr, "%s is in the help, not in docs/demo.md\n", in_help[i]);
        CHECK(found);
    }
    for (int j = 0; j < nd; j++) {
        bool found = false;
        for (int i = 0; i < nh; i++) found = found || !strcmp(in_help[i], in_doc[j]);
        if (!found) fprintf(stderr, "%s is in docs/demo.md, not in the help\n", in_doc[j]);
        CHECK(found);
    }
    /* and the parser takes each of them but --model (a glTF file, in
     * model_runs_on_each_shared_asset) in one run, -h as --help */
    char args[2048];
    write_text_file(temp_path("turn.timeline.lua"), "return { dt = 1/60, frames = 10,\n  { at = 0, turn = 0.5 },\n}\n");
    snprintf(args, sizeof args,
             "--headless --size 64x64 --frames 2 --character '" HUMANOID "' --no-graph --timeline '%s' --control '" SCRIPTS
             "/blink.lua' --screenshot '%s' --dt 0.02 --keys 0:o --print-every 1 --budget 50000000 --memory-mb 64 "
             "--time-limit 2",
             temp_path("turn.timeline.lua"), temp_path("every_option.png"));
    CHECK_INT(run_demo(args, out, sizeof out), 0);
    CHECK_CONTAINS(out, "frame 2 t=0.040 pos=0.000,0.000,0.000 yaw=0.020 "); /* the timeline's 0.5 rad/s for 0.04 s */
    CHECK_CONTAINS(out, "done frames=2 t=0.040 ");
    snprintf(args, sizeof args, "--headless --size 64x64 --frames 1 --graph '" DEMO_GRAPH "'");
    CHECK_INT(run_demo(args, out, sizeof out), 0);
    static char help[65536];
    CHECK_INT(run_demo("--help", help, sizeof help), 0);
    CHECK_INT(run_demo("-h", out, sizeof out), 0);
    CHECK_STR(out, help);
    free(doc);
}

static void bad_arguments_and_files_exit_with_the_message(void)
{
    static char out[65536];
    CHECK_INT(run_demo("--headless --size 10x10", out, sizeof out), 2);
    CHECK_CONTAINS(out, "bad value for --size");
    /* the whole value or nothing: sscanf took the first, wrapped the second */
    CHECK_INT(run_demo("--headless --frames 1 --size 64x64junk", out, sizeof out), 2);
    CHECK_CONTAINS(out, "blendwerk-demo: bad value for --size: '64x64junk'");
    CHECK_INT(run_demo("--headless --frames 1 --size 64x4294967360", out, sizeof out), 2);
    CHECK_CONTAINS(out, "blendwerk-demo: bad value for --size: '64x4294967360'");
    /* --keys is read whole: 64 keys in 1151 bytes (a 1 KiB copy cut the
     * 61st item to "100000000:+esc", an unknown key: a valid list refused) */
    {
        char keys[1400] = "", args[1500];
        size_t used = 0;
        for (int k = 0; k < 64; k++)
            used += (size_t)snprintf(keys + used, sizeof keys - used, "%s100000000:+escape", k ? "," : "");
        CHECK_INT((long)used, 1151);
        snprintf(args, sizeof args, "--headless --frames 1 --size 64x64 --keys %s", keys);
        CHECK_INT(run_demo(args, out, sizeof out), 0);
        CHECK_CONTAINS(out, "done frames=1 ");
        snprintf(args, sizeof args, "--headless --frames 1 --size 64x64 --keys %s,0:w", keys); /* a 65th */
        CHECK_INT(run_demo(args, out, sizeof out), 2);
        CHECK_CONTAINS(out, "blendwerk-demo: bad value for --keys: '");
    }
    /* one value per option: a second --graph was taken silently */
    CHECK_INT(run_demo("--headless --frames 1 --graph a.lua --graph b.lua", out, sizeof out), 2);
    CHECK_CONTAINS(out, "blendwerk-demo: --graph is given twice ('a.lua' and 'b.lua')\n");
    CHECK_INT(run_demo("--headless --frames 1 --frames 2", out, sizeof out), 2);
    CHECK_CONTAINS(out, "blendwerk-demo: --frames is given twice ('1' and '2')\n");
    /* a summary that cannot be written fails the run (it exited 0) */
    if (access("/dev/full", W_OK) == 0) {
        CHECK_INT(capture_command("'" BW_DEMO_BINARY "' --headless --frames 1 --size 64x64 2>&1 >/dev/full", out, sizeof out), 1);
        CHECK_STR(out, "blendwerk-demo: cannot write the output: No space left on device\n");
    }
    CHECK_INT(run_demo("--headless --frobnicate", out, sizeof out), 2);
    CHECK_CONTAINS(out, "unknown or incomplete option '--frobnicate'");
    /* a screenshot that cannot be written says why and exits 1: a full
     * disk too (stb's own file writer checked no write, so a cut-off PNG
     * on a full disk was a success) */
    if (access("/dev/full", W_OK) == 0) {
        CHECK_INT(run_demo("--headless --frames 1 --size 64x64 --screenshot /dev/full", out, sizeof out), 1);
        CHECK_CONTAINS(out, "blendwerk-demo: cannot write /dev/full: No space left on device\n");
    }
    CHECK_INT(run_demo("--headless --frames 1 --size 64x64 --screenshot /nonexistent/folder/x.png", out, sizeof out), 1);
    CHECK_CONTAINS(out, "blendwerk-demo: cannot write /nonexistent/folder/x.png: No such file or directory\n");
    char args[1024];
    /* a screenshot onto a file the session reads is refused before the run
     * (it replaced the graph with a PNG, which the next reload rejected);
     * a control given as another spelling of the path too */
    {
        const char *g = temp_path("own_graph.lua");
        char *graph_text = slurp(BW_SOURCE_DIR "/graphs/demo.lua");
        CHECK(graph_text != NULL && write_text_file(g, graph_text));
        snprintf(args, sizeof args, "--headless --frames 1 --size 64x64 --graph '%s' --screenshot '%s'", g, g);
        CHECK_INT(run_demo(args, out, sizeof out), 2);
        char want[2400];
        snprintf(want, sizeof want, "blendwerk-demo: --screenshot '%s' is the input '%s' itself\n", g, g);
        CHECK_STR(out, want);
        char *after = slurp(g);
        CHECK(after != NULL && graph_text && !strcmp(after, graph_text));
        free(after);
        free(graph_text);
        const char *ctl = temp_path("own_control.lua");
        CHECK(write_text_file(ctl, "return { update = function(ctx) end }\n"));
        char spelled[1100];
        snprintf(spelled, sizeof spelled, "%s", ctl);
        char *slash = strrchr(spelled, '/');
        if (slash) snprintf(slash, sizeof spelled - (size_t)(slash - spelled), "/./own_control.lua");
        char both[2400];
        snprintf(both, sizeof both, "--headless --frames 1 --size 64x64 --control '%s' --screenshot '%s'", ctl, spelled);
        CHECK_INT(run_demo(both, out, sizeof out), 2);
        snprintf(want, sizeof want, "blendwerk-demo: --screenshot '%s' is the input '%s' itself\n", spelled, ctl);
        CHECK_STR(out, want);
        after = slurp(ctl);
        CHECK(after != NULL && !strcmp(after, "return { update = function(ctx) end }\n"));
        free(after);
        remove(ctl);
        remove(g);
    }
    /* a name cannot forge a problem line: the list is joined by line
     * breaks, so the graph reader writes a name's own as \x0a (it printed
     * "unknown state 'x" and then "fake.lua:1: forged'" as a line) */
    write_text_file(temp_path("forging.lua"),
                    "return {\n  layers = {\n    { name = \"base\", entry = \"idle\",\n"
                    "      states = { idle = { clip = \"idle\" } },\n"
                    "      transitions = { { from = \"idle\", to = \"x\\nfake.lua:1: forged\" } },\n    },\n  },\n}\n");
    snprintf(args, sizeof args, "--headless --frames 1 --size 64x64 --graph '%s'", temp_path("forging.lua"));
    CHECK_INT(run_demo(args, out, sizeof out), 1);
    {
        char want[1400];
        snprintf(want, sizeof want, "%s:5: layers[1].transitions[1].to: unknown state 'x\\x0afake.lua:1: forged'\n",
                 temp_path("forging.lua"));
        CHECK_STR(out, want);
    }
    write_text_file(temp_path("broken.lua"), "return {\n  params = { speed = 0 },\n  layers = { ,\n}\n");
    snprintf(args, sizeof args, "--headless --frames 5 --graph '%s'", temp_path("broken.lua"));
    CHECK_INT(run_demo(args, out, sizeof out), 1);
    CHECK_CONTAINS(out, "broken.lua:3:");
    write_text_file(temp_path("bad2.timeline.lua"), "return { dt = 1/60, frames = 10,\n  { at = 0, gesture = 'moonwalk' },\n}\n");
    snprintf(args, sizeof args, "--headless --timeline '%s'", temp_path("bad2.timeline.lua"));
    CHECK_INT(run_demo(args, out, sizeof out), 1);
    CHECK_CONTAINS(out, "bad2.timeline.lua:2: gesture: unknown clip 'moonwalk'");
    snprintf(args, sizeof args, "--headless --frames 5 --control '%s'", temp_path("missing_control.lua"));
    CHECK_INT(run_demo(args, out, sizeof out), 1);
    CHECK_CONTAINS(out, "missing_control.lua: cannot open the file");
    /* controls in two folders are an argument error (exit 2, before any
     * file is read: the second need not exist); it exited 1 */
    snprintf(args, sizeof args, "--headless --frames 5 --control '" SCRIPTS "/blink.lua' --control '%s'",
             temp_path("missing_control.lua"));
    CHECK_INT(run_demo(args, out, sizeof out), 2);
    {
        char want[1400];
        snprintf(want, sizeof want,
                 "blendwerk-demo: --control %s: the control files share one folder (the controls' sandbox), not %s and "
                 "%s\n",
                 temp_path("missing_control.lua"), SCRIPTS, temp_dir);
        CHECK_STR(out, want);
    }
    /* and the controls run in the binary */
    CHECK_INT(run_demo("--headless --frames 30 --size 160x120 --control '" SCRIPTS "/head_aim.lua' --control '" SCRIPTS
                       "/blink.lua'",
                       out, sizeof out),
              0);
    CHECK_CONTAINS(out, "done frames=30 ");
    CHECK_CONTAINS(out, " controls=2 control_reloads=0");
    CHECK(strstr(out, "error:") == NULL);
}
#endif

int main(void)
{
#ifdef HAVE_MALLOC_HOOKS
    __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
#endif
    snprintf(temp_dir, sizeof temp_dir, "/tmp/bw_test_demo_XXXXXX");
    if (!mkdtemp(temp_dir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(root_motion_moves_the_character_along_its_yaw);
    RUN(timeline_inputs_reach_the_character);
    RUN(clip_weights_follow_the_graph);
    RUN(graph_reload_keeps_the_state_and_refuses_broken_edits);
    RUN(a_parameter_weighted_upper_layer_is_left_to_its_parameter);
    RUN(character_reload_keeps_the_graph_state);
    RUN(a_frame_allocates_nothing_after_warm_up);
    RUN(hostile_input_is_refused);
    RUN(a_control_reload_keeps_its_state);
    RUN(rejections_differing_by_a_prefix_are_both_listed);
    RUN(a_failing_update_shows_in_its_controls_slot);
    RUN(a_saved_module_reloads_its_control);
    RUN(a_renamed_clip_goes_in_with_its_graph_edit);
    RUN(a_save_that_lets_a_waiting_edit_in_counts_once);
    RUN(a_long_report_leaves_room_for_the_others);
    RUN(a_head_aim_control_owns_the_head);
    RUN(a_frame_with_controls_allocates_nothing);
    RUN(a_character_reload_restarts_the_controls);
    RUN(each_broken_source_shows_until_it_loads);
    RUN(control_files_are_checked_at_create);
    RUN(an_unnamed_clip_shows_as_its_index);
    RUN(a_timelines_problem_shows_in_the_session_error);
#ifdef BW_DEMO_BINARY
    RUN(keys_make_velocity_and_turn);
    RUN(the_mouse_points_where_the_camera_projects);
    RUN(camera_rays_should_invert_the_projection);
    RUN(a_rejected_reload_shows_on_screen);
    RUN(a_broken_control_shows_on_screen);
    RUN(two_broken_sources_show_on_two_rows);
    RUN(headless_image_has_the_size_and_is_not_blank);
    RUN(the_character_moved_between_frames_30_and_90);
    RUN(a_jumping_timeline_shows_the_jump_states);
    RUN(model_runs_on_each_shared_asset);
    RUN(a_models_loader_warnings_are_printed);
    RUN(windowed_mode_under_xvfb);
    RUN(bad_arguments_and_files_exit_with_the_message);
    RUN(headless_lines_escape_names_with_control_bytes);
    RUN(a_rig_with_two_heads_gets_a_warning);
    RUN(a_characters_warnings_are_printed);
    RUN(a_message_with_a_line_break_cannot_forge_a_done_line);
    RUN(a_timeline_steps_by_its_own_dt);
    RUN(the_default_summary_rate_is_a_simulated_second);
    RUN(pause_step_and_speed_keys_drive_the_headless_time);
    RUN(keys_keep_the_default_walk_unless_they_move);
    RUN(another_character_runs_without_the_default_graph);
    RUN(the_help_and_the_docs_list_the_same_options);
#else
    fprintf(stderr, "note: blendwerk-demo is not built (SDL2 or libstb-dev missing): its tests are skipped\n");
#endif
    remove_tree(temp_dir);
    return check_summary();
}
