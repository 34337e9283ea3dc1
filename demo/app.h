/* app.h - the demo's session, without SDL: the character, its graph, the
 * animator, the input, one frame, hot reload. main.c draws it, tests
 * drive it directly (tests/test_demo.c).
 *
 * A session holds
 * - the character: a character file loaded with bindings/character.h (the
 *   built-in humanoid by default), or a rig and clips borrowed from the
 *   host (a --model glTF file, demo/model.h);
 * - optionally a graph file, loaded with bindings/graph_reload.h (its own
 *   sandbox, FILE:LINE problems, a watcher on it and on every file it
 *   opened);
 * - the animator (include/blendwerk/animator.h) on those: the body base is
 *   the graph, else the locomotion blend over the first clips whose names
 *   contain "idle" (or "survey") at 0 m/s, "walk" at 1.5 and "run" at 4
 *   (case-insensitive; at least two of them), else the first body clip
 *   looping; gestures are the clips named wave and nod; the face the clips
 *   named face_* (face_idle when no other is chosen); head aim on the
 *   rig's default chain with the default limits;
 * - the character's place in the world (position, yaw), its input and an
 *   optional timeline (bindings/timeline.h) scripting that input by time.
 *
 * One frame (demo_app_frame): reload what changed (see below), apply the
 * timeline's due entries, turn the input into the character state (the
 * wanted velocity in the character's frame becomes the graph parameters
 * vx, vz and speed = |(vx, vz)| where the graph has them, and the world
 * velocity), update the animator, move the character by its root motion
 * (rotated by its yaw; a base without root motion moves by the world
 * velocity instead), turn by the input's turn rate, and refresh the
 * outputs the overlays read: model-space joint matrices, the trail, the
 * recent events, the frame's animation time. After the first frame the
 * frame path allocates nothing - neither through the animator's allocator
 * (the desc's) nor through malloc - reload polls included, as long as
 * nothing is reloaded (tests/test_demo.c counts both).
 *
 * Hot reload (between frames, at the start of demo_app_frame): when the
 * graph file (or a file it required) or the character file (or a file it
 * included) changes, a new version is built beside the running one: the
 * character with bw_character_load, the graph with bw_graph_reload_create,
 * then a new animator, whose graph cursor takes over the running one with
 * bw_graph_cursor_carry_over (parameters, each layer's state by name with
 * its progress, layer weights; a removed state restarts its layer; a short
 * fade from the old pose). Only when all of that succeeded is it swapped
 * in; position, yaw, trail, input and timeline carry on. A bad edit
 * changes nothing: the last good version keeps running and the edit's
 * "FILE:LINE: message" lines stay in demo_app_error until that file next
 * loads fine.
 *
 * Errors: every source keeps its own problem, so that two broken files
 * show at once and fixing one leaves the other's on screen. The sources,
 * in the order demo_app_error lists them (one "\n" between two):
 * - the character file: a rejected edit, until the character file loads
 *   fine again;
 * - the graph file: a rejected edit (also when a character edit brought
 *   it down: the graph does not load on the new character), until the
 *   graph next loads fine (a graph reload, or a character reload, which
 *   loads it again);
 * - each control file, in the order given: a rejected edit, then its
 *   update's first failure, both until that file next loads fine (its
 *   reload, or a character reload);
 * - the timeline: its problems (the reader's report, "TIMELINE:LINE:
 *   message" lines, the file's names in them escaped as blendwerk/text.h
 *   does), e.g. names not found in a reloaded graph or character, until
 *   the next reload finds them;
 * - the session's own refusals (below): the last one, until
 *   demo_app_clear_error or the next good reload; a timeline's travel
 *   with no route is one ("TIMELINE:LINE: travel to ...").
 * The texts are the files' own (names, a script's error): a printer
 * escapes them (main.c prints them through blendwerk/text.h).
 * A character edit that loads fine but is rejected because the graph or
 * a control does not load on it clears the character's problem, files
 * the other file's, and is tried again whenever that file changes.
 * Setting or clearing a problem allocates nothing.
 *
 * Refused input, each with a message in demo_app_error and nothing
 * changed: a dt that is negative, not finite or above DEMO_APP_MAX_DT, an
 * input with a non-finite number, an unknown trigger, gesture, layer or
 * state name. One session belongs to one thread.
 */
#ifndef BW_DEMO_APP_H
#define BW_DEMO_APP_H

#include <stdbool.h>
#include <stddef.h>

#include "blendwerk/animator.h"
#include "blendwerk/blendtree.h"
#include "blendwerk/graph.h"
#include "blendwerk/rig.h"
#include "sandbox.h"

#define DEMO_APP_MAX_DT 0.25f      /* seconds: a longer step is refused */
#define DEMO_APP_TRAIL 240         /* trail points kept (one every 0.05 s: 12 s) */
#define DEMO_APP_EVENTS 64         /* event lines kept */
#define DEMO_APP_EVENT_TEXT 80     /* bytes of one event line */
#define DEMO_APP_ERROR_MAX 4096    /* bytes of the error text (and of each source's part) */
#define DEMO_APP_MAX_FIRE 8        /* triggers queued for one frame */

typedef struct demo_app_desc {
    const char *character; /* character file (Lua); NULL: the borrowed rig and clips below */
    const bw_rig *rig;     /* borrowed (character NULL): outlives the session */
    const bw_clip *const *clips;
    int clip_count;
    const char *label;     /* the borrowed character's name for the overlays (e.g. the model file) */
    const char *graph;     /* graph file; NULL: no graph */
    const char *timeline;  /* timeline file (bindings/timeline.h); NULL: none */
    const char *const *controls; /* control_count control files (bindings/controls.h), one folder */
    int control_count;     /* [0, BW_CONTROLS_MAX] */
    float reload_fade;     /* seconds of carry-over fade at a reload; 0: 0.2 */
    bool force_polling;    /* the watchers compare file times (tests) */
    bw_sandbox_limits limits; /* of the character's, the graph's and the controls' sandboxes (zero fields: defaults) */
    bw_allocator allocator; /* the animator's (the frame path's); fn NULL = malloc */
} demo_app_desc;

/* The player's input. All zero: standing still, no look target. */
typedef struct demo_input {
    float velocity[3]; /* wanted velocity in the character's frame, m/s: +z forward, +x its left; y ignored */
    float turn;        /* radians per second, + turns toward +X */
    bool has_look_at;
    float look_at[3];  /* world point */
} demo_input;

typedef struct demo_app demo_app;

/* The one folder of `count` control files (a path without a slash is in
 * "."), compared as the paths spell it (the controls' sandbox is made over
 * that folder): true with it in dir; false with the message in err
 * ("--control B: the control files share one folder ..., not A_DIR and
 * B_DIR", a NULL path, a folder name longer than dir_size - 1, a count out
 * of [0, BW_CONTROLS_MAX]). Looks at no file: main.c refuses such
 * arguments with exit 2 before loading anything, demo_app_create with its
 * error. */
bool demo_app_control_folder(const char *const *paths, int count, char *dir, size_t dir_size, char *err, size_t err_size);

/* Control files (desc.controls): one sandbox over their folder (they must
 * share one) and the runner of bindings/controls.h for the character,
 * loaded in the order given (they run by priority). Each frame, after the
 * animator's update, they run on the animator's pose in place (the
 * input: the character's position, yaw and look-at target) and that pose
 * is what the session shows (demo_app_pose, the model matrices). A
 * control that lists joints in ctx.overrides (scripts/head_aim.lua) owns
 * the head: the animator is built with its C head aim off and the face's
 * gaze is the controls' ctx.gaze. The face's ARKit vector is, per channel,
 * the larger of the animator's and the controls' ctx.arkit. Their files
 * and the modules they require are watched by the runner
 * (bw_controls_poll); a change reloads what depends on it between frames
 * (their state kept
 * as each control says: keep_state / reload); a bad edit is rejected like
 * a graph edit (its "file:line: message" in demo_app_error, the previous
 * version running). A character reload loads them again on the new rig
 * (their state starts over). A control whose update fails is skipped for
 * the frame; its first failure shows in demo_app_error (under that
 * control) until its file loads fine again. A missing control file fails
 * demo_app_create with "demo: --control FILE: cannot open the file".
 *
 * The first load. NULL with the problem(s) in err ("FILE:LINE: message"
 * lines where there is a line; a timeline's, one per problem, as the
 * reader reported them). */
demo_app *demo_app_create(const demo_app_desc *desc, char *err, size_t err_size);
void demo_app_destroy(demo_app *app); /* NULL is a no-op */

/* Set the input (used from the next frame; a timeline, when loaded, sets
 * the fields its entries name on top). False (nothing changes) for a
 * non-finite number. */
bool demo_app_set_input(demo_app *app, const demo_input *input);
const demo_input *demo_app_input(const demo_app *app);
/* One frame of dt seconds at host time `now` (seconds, non-decreasing:
 * the reload watchers' clock). False when dt is refused (see the top) or
 * the animator reported a problem: the message is in demo_app_error. */
bool demo_app_frame(demo_app *app, float dt, double now);

/* Commands for keys, applied at the next frame. Not for the frame path
 * (they resolve names). False with a message for an unknown name. */
bool demo_app_fire(demo_app *app, const char *trigger);
bool demo_app_gesture(demo_app *app, const char *clip);
bool demo_app_travel(demo_app *app, const char *layer, const char *state);
/* Fade a graph layer's weight (the demo's wave key fades "upper"). A
 * layer whose weight follows a graph parameter (weight_param) is left to
 * it: true, nothing changed. */
bool demo_app_layer_weight(demo_app *app, const char *layer, float weight, float fade);
/* Cycle the face drive to the next face clip (none -> face_* in order). */
void demo_app_next_face(demo_app *app);
/* Reload now what changed on disk, as a frame would (tests, the reload
 * key). Returns 1 when a new version is running, -1 when an edit was
 * rejected, 0 when nothing changed. `force`: rebuild even if no file
 * changed. */
int demo_app_reload(demo_app *app, double now, bool force);

/* ---- what the overlays and the summary read ---- */

const bw_rig *demo_app_rig(const demo_app *app);
const bw_clip *demo_app_clip(const demo_app *app, int index);
/* Clip `index`'s name as the session uses it (gestures, events, the
 * summary): its own, or "#index" for a borrowed clip without one (a glTF
 * animation may have none); NULL out of range. */
const char *demo_app_clip_name(const demo_app *app, int index);
const bw_graph *demo_app_graph(const demo_app *app);          /* NULL without a graph */
const bw_graph_cursor *demo_app_cursor(const demo_app *app);  /* NULL without a graph */
const bw_animator *demo_app_animator(const demo_app *app);
/* The pose shown: the animator's with the controls applied. */
const bw_pose *demo_app_pose(const demo_app *app);
/* What the face shows (see the controls above): 4 floats {pitch_l, yaw_l,
 * pitch_r, yaw_r}, and the 52 ARKit numbers. */
const float *demo_app_gaze(const demo_app *app);
const float *demo_app_arkit(const demo_app *app);
/* The controls: their count, file names, the runner's successful reloads,
 * the failed updates of their current versions, whether one aims the
 * head, the sandbox they run in (tests measure its Lua heap). */
int demo_app_control_count(const demo_app *app);
const char *demo_app_control_name(const demo_app *app, int index);
int demo_app_control_reloads(const demo_app *app);
int demo_app_control_failures(const demo_app *app);
bool demo_app_control_aims(const demo_app *app);
bw_sandbox *demo_app_control_sandbox(demo_app *app);
/* The head-aim limits in force, radians {head yaw, head pitch, eye yaw,
 * eye pitch}, and whose they are: the animator's (bw_animator_head_limits),
 * a control's (its ctx.aim_limits, as scripts/head_aim.lua publishes), a
 * control that does not publish them (out: the animator's, unused), or no
 * head aim at all. */
enum { DEMO_AIM_NONE = 0, DEMO_AIM_ANIMATOR, DEMO_AIM_CONTROL, DEMO_AIM_CONTROL_UNKNOWN };
int demo_app_head_limits(const demo_app *app, float out[4]);
const char *demo_app_graph_path(const demo_app *app);         /* NULL without a graph */
const char *demo_app_label(const demo_app *app); /* the character path, else desc.label, else "(model)" */
/* Model-space joint matrices of the last frame (joint_count). */
const float (*demo_app_model(const demo_app *app))[4][4];
/* The joints the drawing and the overlays follow, found by name ("head",
 * "eye_l", "eye_r") once per rig: at creation and at each character
 * reload. Their index in demo_app_rig, -1 when the rig has no such joint
 * (or `which` is out of range). */
typedef enum demo_joint { DEMO_JOINT_HEAD = 0, DEMO_JOINT_EYE_L, DEMO_JOINT_EYE_R, DEMO_JOINT_COUNT } demo_joint;
int demo_app_joint(const demo_app *app, demo_joint which);
void demo_app_place(const demo_app *app, float position[3], float *yaw);
/* The world velocity of the last frame (m/s). */
void demo_app_velocity(const demo_app *app, float velocity[3]);
/* Trail: count (x, z) pairs, oldest first, in a buffer owned by the app. */
const float *demo_app_trail(const demo_app *app, int *out_count);
/* Event lines ("1.250 enter base walk"), numbered from 0 since creation:
 * the last min(count, DEMO_APP_EVENTS) are kept; line(i) is NULL when i
 * is no longer (or not yet) kept. */
long demo_app_event_count(const demo_app *app);
const char *demo_app_event(const demo_app *app, long i);
double demo_app_time(const demo_app *app); /* simulated seconds */
long demo_app_frames(const demo_app *app);
double demo_app_anim_ms(const demo_app *app); /* the last frame's animator update, ms */
/* "" when all is well; else every current problem, one source after the
 * other (see "Errors" at the top): rejected reloads' and failing
 * controls' FILE:LINE lines, the last refused command or input. */
const char *demo_app_error(const demo_app *app);
/* The lines of the last rejected reload alone ("" before the first): what
 * a headless run prints under "reload rejected:". */
const char *demo_app_rejected(const demo_app *app);
/* Forget the last refused command or input (the files' problems stay
 * until their files load fine). */
void demo_app_clear_error(demo_app *app);
/* Successful reloads and rejected ones since creation; the last reload's
 * note ("demo.lua: base: walk kept"). A reload is one demo_app_reload
 * call that put at least one new version in (a graph save that lets a
 * waiting character edit in counts once); a rejection, each distinct
 * rejected text of one call (docs/demo.md "Hot reload"). */
int demo_app_reloads(const demo_app *app);
int demo_app_rejections(const demo_app *app);
const char *demo_app_reload_note(const demo_app *app);
/* The clips the last frame showed, with their weights: per graph layer
 * the current state's clips (a blend state's leaves as the graph cursor
 * last evaluated them, bw_graph_cursor_leaves) at the transition's weight
 * and the fading source's at 1 - weight, times the layer weight; without
 * a graph the animator's plays (layer -1). Writes up to `cap` entries,
 * returns how many there are. Evaluates nothing and allocates nothing (a
 * blend state whose leaves the cursor does not hold, as right after a
 * fire between frames, lists none until the next frame). */
typedef struct demo_clip_weight {
    int layer; /* graph layer, -1 without a graph */
    int clip;
    float weight;
} demo_clip_weight;
int demo_app_clip_weights(const demo_app *app, demo_clip_weight *out, int cap);
/* The same, and the leaves of layer 0's current state from the same read
 * (its blend tree's own weights, before the transition and layer weights;
 * what the overlay's blend-space view draws): up to `leaf_cap` into
 * `leaves`, *leaf_count = their number (which may exceed leaf_cap), or -1
 * when there is no graph, the state is a clip state or the cursor holds
 * no leaves for it. */
int demo_app_clip_weights_leaves(const demo_app *app, demo_clip_weight *out, int cap, bw_blend_leaf *leaves, int leaf_cap,
                                 int *leaf_count);
/* The parameter values a graph's blend tree reads (its parameter i is the
 * graph's parameter i; at most `cap`), from the cursor; returns the tree's
 * parameter count. */
int demo_app_tree_params(const demo_app *app, const bw_blend_tree *tree, float *out, int cap);

/* Whether the timeline has run out (always false without one). */
bool demo_app_timeline_done(const demo_app *app);
long demo_app_timeline_frames(const demo_app *app); /* its frame count, 0 without one */
double demo_app_timeline_dt(const demo_app *app);    /* its dt (seconds), 0 without one */

#endif
