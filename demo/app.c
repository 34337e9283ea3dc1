/* app.c - the demo's session without SDL (app.h). */
#define _POSIX_C_SOURCE 200809L
#include "app.h"

#include <errno.h>
#include <lua.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "blendwerk/blendtree.h"
#include "blendwerk/pose.h"
#include "blendwerk/text.h"
#include "character.h"
#include "controls.h"
#include "graph_reload.h"
#include "timeline.h"
#include "watch.h"

#define DEFAULT_FADE 0.2f
#define TRAIL_STEP 0.05 /* seconds between trail points */
#define MAX_FACES 8
#define MAX_GESTURES 8

/* One running version: the graph file's load and the animator on it. */
typedef struct version {
    bw_graph_reload *graph; /* NULL without a graph file; host mode (graph_reload.h) */
    const bw_graph *held;   /* the version the animator runs (acquired) */
    bw_animator *animator;
    int p_vx, p_vz, p_speed; /* graph parameters the input drives, -1 = none */
    int gestures[MAX_GESTURES], gesture_count;
    int faces[MAX_FACES], face_count;
    int face_idle; /* index in faces of the resting face "face_idle", -1 without one */
    bw_locomotion_entry loco[3];
    int loco_count;
    float *clip_weights; /* clip_count: the fallback base (first clip looping), or NULL */
} version;

/* The procedural controls (bindings/controls.h): one sandbox over the
 * controls' folder and the runner on it, for the one character. */
typedef struct controls_set {
    bw_sandbox *sb;
    bw_controls *run;
    int index[BW_CONTROLS_MAX]; /* the runner's index of each control file given (bw_controls_load) */
    bool owns_aim; /* a control lists joints in ctx.overrides: the animator's C head aim is off */
} controls_set;

/* The character: owned (a file) or borrowed (a model). */
typedef struct character_ref {
    bw_character *owned;
    const bw_rig *rig;
    const bw_clip **clips;
    const char **names;
    char (*unnamed)[16]; /* "#i" for a borrowed clip without a name */
    int clip_count;
} character_ref;

struct demo_app {
    char *character_path, *graph_path, *timeline_path, *label;
    float fade;
    bool force_polling;
    bw_sandbox_limits limits;
    bw_allocator allocator;
    character_ref ch;
    bw_watch *char_watch; /* the character file and what it included */
    version v;
    /* controls */
    char **control_paths;      /* control_count, as given */
    const char **control_names; /* their file names (into control_paths) */
    int control_count;
    char control_dir[1024];    /* their one folder: the controls' sandbox folder */
    controls_set ctl;
    float gaze[4], arkit[BW_ARKIT52_COUNT]; /* what the face shows */
    bool root_motion;     /* the rig has a joint named "root" */
    int joints[DEMO_JOINT_COUNT]; /* demo_app_joint, found once per rig (find_joints) */
    float (*model)[4][4];
    int model_joints;
    /* the world */
    float position[3], yaw, world_velocity[3];
    demo_input input;
    float face_weights[MAX_FACES];
    int face; /* the face clip driven, -1 = none */
    int fire[DEMO_APP_MAX_FIRE], fire_count;
    int auto_fade_layer; /* a layer faded in by demo_app_layer_weight, faded out when its state ends; -1 */
    /* timeline */
    bw_sandbox *tl_sb;
    bw_timeline tl;
    bw_timeline_input tl_in;
    char tl_report[DEMO_APP_ERROR_MAX]; /* the problems the timeline reported since cleared (timeline_report) */
    /* outputs */
    float trail[DEMO_APP_TRAIL][2];
    int trail_count; /* oldest first */
    double trail_time;
    char events[DEMO_APP_EVENTS][DEMO_APP_EVENT_TEXT];
    long event_count;
    double time;
    long frames;
    double anim_ms;
    /* the problems, one slot per source (see "the error slots" below) */
    char (*slots)[DEMO_APP_ERROR_MAX];
    int slot_count;
    char error[DEMO_APP_ERROR_MAX];    /* the non-empty slots joined, in slot order */
    char rejected[DEMO_APP_ERROR_MAX]; /* the lines the last rejecting demo_app_reload call rejected */
    bool rejecting;                    /* this demo_app_reload call rejected something (reject) */
    bool went_in;                      /* this demo_app_reload call put a new version in (counted once) */
    bool char_pending; /* a character edit was rejected for another file's problem: retried when that loads */
    int pending_slot;  /* with char_pending: the slot that problem went to */
    char note[512];
    int reloads, rejections;
};

/* ---- the error slots ----
 *
 * One slot per source of problems, in the order they are shown: the
 * character file, the graph file, per control file its rejected edit and
 * its failing update, the timeline, and the session's own refusals
 * (commands, input, dt). A slot holds its source's "FILE:LINE: message"
 * lines until that source next loads fine; demo_app_error joins them. They
 * are allocated with the session; setting or clearing one allocates
 * nothing. */
enum { SLOT_CHARACTER = 0, SLOT_GRAPH = 1 };
static int slot_control(int control, bool failing) { return 2 + 2 * control + (failing ? 1 : 0); }
static int slot_timeline(const demo_app *a) { return 2 + 2 * a->control_count; }
static int slot_session(const demo_app *a) { return 3 + 2 * a->control_count; }

/* Lines of one source in the joined text: a long report (a graph with
 * many problems) leaves room for the other sources' lines. */
#define SOURCE_LINES_MAX 6

static void join_errors(demo_app *a)
{
    size_t used = 0;
    a->error[0] = '\0';
    for (int i = 0; i < a->slot_count && used + 1 < sizeof a->error; i++) {
        if (!a->slots[i][0]) continue;
        bool repeat = false; /* one module's error stands under each control that requires it: shown once */
        for (int k = 0; k < i && !repeat; k++) repeat = strcmp(a->slots[k], a->slots[i]) == 0;
        if (repeat) continue;
        /* end: the newline after the source's last shown line (slots hold
         * no trailing newline, so each newline from there starts a line) */
        const char *text = a->slots[i], *end = text;
        int newlines = 0, more = 0;
        for (; *end; end++)
            if (*end == '\n' && ++newlines == SOURCE_LINES_MAX) break;
        for (const char *p = end; *p; p++) more += *p == '\n';
        int n = more ? snprintf(a->error + used, sizeof a->error - used, "%s%.*s\n(%d more line%s)", used ? "\n" : "",
                                (int)(end - text), text, more, more == 1 ? "" : "s")
                     : snprintf(a->error + used, sizeof a->error - used, "%s%s", used ? "\n" : "", text);
        if (n < 0) break;
        used += (size_t)n < sizeof a->error - used ? (size_t)n : sizeof a->error - used - 1;
    }
}

/* Slot `slot` holds `text` (trailing newlines dropped); "" clears it. */
static void slot_set(demo_app *a, int slot, const char *text)
{
    if (!a->slots || slot < 0 || slot >= a->slot_count) return;
    char *s = a->slots[slot];
    snprintf(s, DEMO_APP_ERROR_MAX, "%s", text);
    for (size_t n = strlen(s); n > 0 && s[n - 1] == '\n'; n--) s[n - 1] = '\0';
    join_errors(a);
}

static void slot_clear(demo_app *a, int slot)
{
    if (a->slots && slot >= 0 && slot < a->slot_count && a->slots[slot][0]) slot_set(a, slot, "");
}

/* Control i loaded fine: it has neither a rejected edit nor a failing
 * update. (A file listed twice is two controls, reloaded together, and
 * each is cleared on its own.) */
static void clear_control_at(demo_app *a, int i)
{
    slot_clear(a, slot_control(i, false));
    slot_clear(a, slot_control(i, true));
}

/* A refused command, input or frame (the session's slot). */
static void set_error(demo_app *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void set_error(demo_app *a, const char *fmt, ...)
{
    char text[DEMO_APP_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    slot_set(a, slot_session(a), text);
}

static char *dup_or_null(const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = (char *)malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static double ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The animator's graph cursor, which the session drives between updates
 * only: the timeline's travel, layer weights and parameters and the
 * carry-over at a reload. */
static bw_graph_cursor *cursor_of(const version *v) { return bw_animator_cursor_mut(v->animator); }

static const bw_graph *graph_of(const version *v) { return v->held; }

/* ---- the character ---- */

static void character_free(character_ref *c)
{
    bw_character_destroy(c->owned);
    free(c->clips);
    free(c->names);
    free(c->unnamed);
    memset(c, 0, sizeof *c);
}

static bool character_lists(character_ref *c, int n)
{
    c->clips = (const bw_clip **)calloc((size_t)n + 1, sizeof *c->clips);
    c->names = (const char **)calloc((size_t)n + 1, sizeof *c->names);
    c->unnamed = (char(*)[16])calloc((size_t)n + 1, sizeof *c->unnamed);
    c->clip_count = n;
    return c->clips && c->names && c->unnamed;
}

static bool watch_included(void *user, const char *path, char *why, size_t why_size)
{
    (void)why;
    (void)why_size;
    if (user) bw_watch_add((bw_watch *)user, path);
    return true;
}

/* The character's warnings (its rig's and clips' creation warnings, from
 * the loader) and the animator's (a default head chain that passes over a
 * name the rig has twice), one stderr line each: "blendwerk-demo:
 * warning: CHARACTER: message", the character's name and the message
 * escaped. Each load of the character and each build of a version (the
 * first load, each reload) says them again. */
static void print_warning(void *user, bw_log_level level, const char *message)
{
    (void)level;
    fputs("blendwerk-demo: warning: ", stderr);
    bw_text_print(stderr, demo_app_label((const demo_app *)user));
    fputs(": ", stderr);
    bw_text_print(stderr, message);
    fputc('\n', stderr);
}

static bool character_load(demo_app *a, character_ref *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    bw_character_options opt;
    memset(&opt, 0, sizeof opt);
    opt.limits = a->limits;
    opt.on_open = watch_included;
    opt.user = a->char_watch;
    opt.logger = (bw_logger){print_warning, a};
    if (!bw_character_load(a->character_path, &opt, &out->owned, err, err_size)) return false;
    bw_character *ch = out->owned;
    if (!character_lists(out, ch->clip_count)) {
        snprintf(err, err_size, "%s: out of memory", a->character_path);
        character_free(out);
        return false;
    }
    out->rig = ch->rig;
    for (int i = 0; i < ch->clip_count; i++) {
        out->clips[i] = ch->clips[i].clip;
        out->names[i] = ch->clips[i].name;
    }
    return true;
}

static int find_clip(const character_ref *c, const char *name)
{
    for (int i = 0; i < c->clip_count; i++)
        if (c->names[i] && strcmp(c->names[i], name) == 0) return i;
    return -1;
}

/* The first clip whose name contains one of `words` (case-insensitive). */
static int find_clip_like(const character_ref *c, const char *const *words)
{
    for (int w = 0; words[w]; w++)
        for (int i = 0; i < c->clip_count; i++) {
            const char *n = c->names[i];
            size_t len = strlen(words[w]);
            for (size_t k = 0; n && n[k]; k++) {
                size_t m = 0;
                while (m < len && n[k + m] && (n[k + m] | 0x20) == words[w][m]) m++;
                if (m == len) return i;
            }
        }
    return -1;
}

/* ---- a version ---- */

static void version_free(version *v)
{
    bw_animator_destroy(v->animator);
    if (v->held) bw_graph_reload_release(v->graph, v->held);
    bw_graph_reload_destroy(v->graph);
    free(v->clip_weights);
    memset(v, 0, sizeof *v);
}

static void animator_errors(char *err, size_t err_size, const bw_error *errs, int count, int cap)
{
    size_t used = strlen(err);
    for (int i = 0; i < count && i < cap && used + 1 < err_size; i++) {
        int n = snprintf(err + used, err_size - used, "%sanimator: %s: %s", used ? "\n" : "", errs[i].where,
                         errs[i].message);
        if (n < 0) break;
        used += (size_t)n < err_size - used ? (size_t)n : err_size - used - 1;
    }
}

/* The graph parameters the input drives. */
static void find_params(version *v)
{
    v->p_vx = bw_graph_find_param(v->held, "vx");
    v->p_vz = bw_graph_find_param(v->held, "vz");
    v->p_speed = bw_graph_find_param(v->held, "speed");
}

/* aim_off: a control aims the head (controls_set.owns_aim). On failure
 * *graph_failed (may be NULL) says whether the graph file did not load
 * (else the animator refused the character and graph, or memory ran out). */
static bool version_build(demo_app *a, const character_ref *c, version *v, bool aim_off, char *err, size_t err_size,
                          bool *graph_failed)
{
    memset(v, 0, sizeof *v);
    err[0] = '\0';
    if (graph_failed) *graph_failed = false;
    if (a->graph_path) {
        bw_watch_desc wd = {BW_WATCH_DEFAULT_DEBOUNCE, a->force_polling};
        bw_graph_reload_desc gd;
        memset(&gd, 0, sizeof gd);
        gd.path = a->graph_path;
        gd.rig = c->rig;
        gd.clips = c->clips;
        gd.clip_count = c->clip_count;
        gd.host_cursors = true; /* the animator's cursor is the character's */
        gd.limits = a->limits;
        gd.watch = &wd;
        v->graph = bw_graph_reload_create(&gd, err, err_size);
        if (!v->graph) {
            if (graph_failed) *graph_failed = true;
            return false;
        }
        v->held = bw_graph_reload_acquire(v->graph);
    }
    const bw_graph *g = graph_of(v);
    find_params(v);
    static const char *const gestures[] = {"wave", "nod", NULL};
    for (int k = 0; gestures[k]; k++) {
        int i = find_clip(c, gestures[k]);
        if (i >= 0) v->gestures[v->gesture_count++] = i;
    }
    v->face_idle = -1;
    for (int i = 0; i < c->clip_count && v->face_count < MAX_FACES; i++) {
        if (strncmp(c->names[i], "face_", 5) != 0) continue;
        if (strcmp(c->names[i], "face_idle") == 0) v->face_idle = v->face_count;
        v->faces[v->face_count++] = i;
    }
    bw_animator_desc d;
    memset(&d, 0, sizeof d);
    d.rig = c->rig;
    d.clips = c->clips;
    d.clip_names = c->names;
    d.clip_count = c->clip_count;
    d.graph = g;
    d.face_clips = v->faces;
    d.face_clip_count = v->face_count;
    d.gesture_clips = v->gestures;
    d.gesture_clip_count = v->gesture_count;
    d.root_joint = bw_rig_find_by_name(c->rig, "root") >= 0 ? "root" : NULL;
    d.head.disabled = aim_off;
    d.allocator = a->allocator;
    d.logger = (bw_logger){print_warning, a};
    if (!g) {
        /* no graph: a locomotion blend from the clips' names, else the first
         * body clip looping */
        static const char *const idle[] = {"idle", "survey", NULL}, *const walk[] = {"walk", NULL},
                                 *const run[] = {"run", NULL};
        const char *const *kinds[3] = {idle, walk, run};
        const float speeds[3] = {0.0f, 1.5f, 4.0f};
        for (int k = 0; k < 3; k++) {
            int i = find_clip_like(c, kinds[k]);
            if (i >= 0) v->loco[v->loco_count++] = (bw_locomotion_entry){i, speeds[k]};
        }
        if (v->loco_count >= 2) {
            d.locomotion = v->loco;
            d.locomotion_count = v->loco_count;
        } else {
            v->loco_count = 0;
            v->clip_weights = (float *)calloc((size_t)c->clip_count + 1, sizeof(float));
            if (!v->clip_weights) {
                snprintf(err, err_size, "out of memory");
                version_free(v);
                return false;
            }
            int first = 0;
            while (first < c->clip_count - 1 && strncmp(c->names[first], "face_", 5) == 0) first++;
            v->clip_weights[first] = 1.0f;
        }
    }
    bw_error errs[8];
    bw_animator_errors list = {errs, 8, 0};
    if (bw_animator_create(&d, &v->animator, &list) != BW_OK) {
        animator_errors(err, err_size, errs, list.count, 8);
        version_free(v);
        return false;
    }
    return true;
}

/* The joints found by name, once per rig (at creation, after a swap). */
static void find_joints(demo_app *a)
{
    static const char *const names[DEMO_JOINT_COUNT] = {"head", "eye_l", "eye_r"};
    a->root_motion = bw_rig_find_by_name(a->ch.rig, "root") >= 0;
    for (int i = 0; i < DEMO_JOINT_COUNT; i++) a->joints[i] = bw_rig_find_by_name(a->ch.rig, names[i]);
}

/* Size the model matrices for the rig (allocates only when it grows). */
static bool size_model(demo_app *a, const bw_rig *rig)
{
    int n = bw_rig_joint_count(rig);
    if (n <= a->model_joints && a->model) return true;
    float(*m)[4][4] = (float(*)[4][4])calloc((size_t)n + 1, sizeof *m);
    if (!m) return false;
    free(a->model);
    a->model = m;
    a->model_joints = n;
    return true;
}

/* ---- the controls ---- */

/* A control's update failed (the runner reports each version's first
 * failure once, with the control's index): on screen like a rejected
 * edit, in the slot of each demo control that is that runner control. No
 * allocation. */
static void control_failed(void *user, int control, const char *message)
{
    demo_app *a = (demo_app *)user;
    bool shown = false;
    for (int i = 0; i < a->control_count; i++) {
        if (a->ctl.index[i] != control) continue;
        slot_set(a, slot_control(i, true), message);
        shown = true;
    }
    if (!shown) slot_set(a, slot_session(a), message);
}

/* Any other callback of the controls' sandbox that failed (a control's
 * own update goes to control_failed): the session's slot. */
static void control_sandbox_report(void *user, const char *message)
{
    slot_set((demo_app *)user, slot_session((demo_app *)user), message);
}

static void controls_free(controls_set *s)
{
    bw_controls_destroy(s->run);
    bw_sandbox_destroy(s->sb);
    memset(s, 0, sizeof *s);
}

bool demo_app_control_folder(const char *const *paths, int count, char *dir, size_t dir_size, char *err, size_t err_size)
{
    if (dir_size) dir[0] = '\0';
    if (count < 0 || count > BW_CONTROLS_MAX || (count > 0 && !paths)) {
        snprintf(err, err_size, "%d control files (at most %d)", count, BW_CONTROLS_MAX);
        return false;
    }
    for (int i = 0; i < count; i++) {
        char here[1024];
        if (!paths[i]) {
            snprintf(err, err_size, "--control: no path given");
            return false;
        }
        if (!bw_sandbox_split_path(paths[i], here, sizeof here) || strlen(here) >= dir_size) {
            snprintf(err, err_size, "--control %s: the folder name is too long", paths[i]);
            return false;
        }
        if (i == 0) snprintf(dir, dir_size, "%s", here);
        else if (strcmp(here, dir) != 0) {
            snprintf(err, err_size, "--control %s: the control files share one folder (the controls' sandbox), "
                     "not %s and %s", paths[i], dir, here);
            return false;
        }
    }
    return true;
}

/* The control files' names and their one folder (the sandbox's). */
static bool controls_paths(demo_app *a, const char *const *paths, int count, char *err, size_t err_size)
{
    char problem[512];
    if (!demo_app_control_folder(paths, count, a->control_dir, sizeof a->control_dir, problem, sizeof problem)) {
        snprintf(err, err_size, "demo: %s", problem);
        return false;
    }
    a->control_paths = (char **)calloc((size_t)count + 1, sizeof *a->control_paths);
    a->control_names = (const char **)calloc((size_t)count + 1, sizeof *a->control_names);
    if (!a->control_paths || !a->control_names) {
        snprintf(err, err_size, "demo: out of memory");
        return false;
    }
    for (int i = 0; i < count; i++) {
        char dir[sizeof a->control_dir];
        /* a look, not an open: opening a FIFO to read blocks until a writer
         * comes (the sandbox's own reader, which loads it, never blocks) */
        struct stat st;
        const char *why = stat(paths[i], &st) != 0 ? strerror(errno) : !S_ISREG(st.st_mode) ? "not a regular file" : NULL;
        if (why) {
            snprintf(err, err_size, "demo: --control %s: cannot open the file: %s", paths[i], why);
            return false;
        }
        a->control_paths[i] = dup_or_null(paths[i]);
        a->control_count = i + 1;
        const char *name = a->control_paths[i] ? bw_sandbox_split_path(a->control_paths[i], dir, sizeof dir) : NULL;
        if (!name) {
            snprintf(err, err_size, "demo: --control %s: out of memory", paths[i]);
            return false;
        }
        a->control_names[i] = name;
    }
    return true;
}

/* A runner on `rig` with every control file loaded (none: an empty set).
 * On failure *failed (when not NULL) is the control that did not load,
 * -1 when the runner itself could not be made. */
static bool controls_build(demo_app *a, const bw_rig *rig, controls_set *out, int *failed, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    if (failed) *failed = -1;
    if (!a->control_count) return true;
    bw_sandbox_desc sd;
    memset(&sd, 0, sizeof sd);
    sd.limits = a->limits;
    sd.dir = a->control_dir;
    sd.name = "control";
    sd.report = control_sandbox_report;
    sd.user = a;
    out->sb = bw_sandbox_create(&sd, err, err_size);
    if (!out->sb) return false;
    bw_controls_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.sandbox = out->sb;
    cd.rig = rig;
    cd.character_count = 1;
    cd.dir = a->control_dir;
    cd.watch = true; /* the control files and the modules they require (bw_controls_poll) */
    cd.allocator = a->allocator;
    cd.report = control_failed;
    cd.user = a;
    out->run = bw_controls_create(&cd, err, err_size);
    bool ok = out->run != NULL;
    for (int i = 0; ok && i < a->control_count; i++) {
        out->index[i] = bw_controls_load(out->run, a->control_names[i], NULL, err, err_size);
        ok = out->index[i] >= 0;
        if (!ok && failed) *failed = i;
    }
    if (!ok) {
        controls_free(out);
        return false;
    }
    float none[1];
    out->owns_aim = bw_controls_read(out->run, 0, "overrides", none, 0) > 0;
    return true;
}

/* The face's gaze and ARKit vector: the animator's, with the controls'
 * on top (gaze: theirs when a control aims the head; ARKit: per channel
 * the larger of the two, clamped to [0, 1]). No allocation. */
static void refresh_face(demo_app *a)
{
    const bw_animator *an = a->v.animator;
    memcpy(a->gaze, bw_animator_gaze(an), sizeof a->gaze);
    memcpy(a->arkit, bw_animator_arkit(an), sizeof a->arkit);
    if (!a->ctl.run) return;
    float mine[BW_ARKIT52_COUNT];
    int n = bw_controls_read(a->ctl.run, 0, "arkit", mine, BW_ARKIT52_COUNT);
    for (int i = 0; i < n && i < BW_ARKIT52_COUNT; i++) {
        float x = mine[i] < 0.0f ? 0.0f : mine[i] > 1.0f ? 1.0f : mine[i];
        if (x > a->arkit[i]) a->arkit[i] = x;
    }
    if (a->ctl.owns_aim) {
        float g[4] = {0, 0, 0, 0};
        if (bw_controls_read(a->ctl.run, 0, "gaze", g, 4) >= 4) memcpy(a->gaze, g, sizeof g);
    }
}

/* The controls over the animator's pose, in place (bw_animator_pose_mutable:
 * the next update rebuilds it). */
static void run_controls(demo_app *a, float dt)
{
    bw_control_input in;
    memset(&in, 0, sizeof in);
    memcpy(in.position, a->position, sizeof in.position);
    in.yaw = a->yaw;
    in.has_target = a->input.has_look_at;
    memcpy(in.target, a->input.look_at, sizeof in.target);
    bw_controls_run(a->ctl.run, 0, bw_animator_pose_mutable(a->v.animator), &in, dt);
}

static const bw_pose *shown_pose(const demo_app *a)
{
    return bw_animator_pose(a->v.animator);
}

/* ---- the timeline ---- */

/* `text` (escaped when `escape`) at the end of a->tl_report, cut at its end. */
static void report_append(demo_app *a, const char *text, bool escape)
{
    size_t used = strlen(a->tl_report), room = sizeof a->tl_report - used;
    if (escape) bw_text_escape(a->tl_report + used, room, text);
    else snprintf(a->tl_report + used, room, "%s", text);
}

/* The timeline's report (bw_timeline_report_fn): each problem as a
 * "TIMELINE:LINE: message" line of a->tl_report, the way the other
 * sources' problems are lines of their slots. The path and the message
 * are stored escaped (blendwerk/text.h): the message quotes the file's
 * names, and a line break in one would split the problem in two lines of
 * the error band and of the headless "error:" text. Allocates nothing (a
 * travel with no route reports from the frame). */
static void timeline_report(void *user, const char *path, int line, const char *message)
{
    demo_app *a = (demo_app *)user;
    char at_line[32];
    if (line > 0) snprintf(at_line, sizeof at_line, ":%d: ", line);
    else snprintf(at_line, sizeof at_line, ": ");
    if (a->tl_report[0]) report_append(a, "\n", false);
    report_append(a, path, true);
    report_append(a, at_line, false);
    report_append(a, message, true);
}

/* Read the timeline against the running version; its problems into err,
 * one "TIMELINE:LINE: message" a line (the way a rejected graph's are). */
static bool timeline_read(demo_app *a, double applied_until, char *err, size_t err_size)
{
    if (!a->tl_sb) return true;
    lua_State *L = bw_sandbox_state(a->tl_sb);
    lua_settop(L, 1);
    a->tl_report[0] = '\0';
    a->tl.report = timeline_report;
    a->tl.report_user = a;
    if (!bw_timeline_read_clips(&a->tl, L, graph_of(&a->v), a->ch.clips, a->ch.clip_count, a->timeline_path,
                                applied_until)) {
        if (a->tl_report[0]) snprintf(err, err_size, "%s", a->tl_report);
        else snprintf(err, err_size, "%s: the timeline does not read", a->timeline_path); /* every read failure reports */
        return false;
    }
    return true;
}

/* ---- creation ---- */

/* Whether the demo sets layer l's weight: not when the graph's own
 * parameter drives it (layer weight_param): the graph's author owns it. */
static bool demo_sets_weight(const demo_app *a, int l)
{
    return l >= 0 && bw_graph_layer_weight_param(graph_of(&a->v), l) < 0;
}

static void silence_upper(demo_app *a)
{
    bw_graph_cursor *c = cursor_of(&a->v);
    int l = bw_graph_find_layer(graph_of(&a->v), "upper");
    if (c && demo_sets_weight(a, l)) (void)bw_graph_cursor_set_layer_weight(c, l, 0.0f, 0.0f); /* valid: cannot fail */
}

/* The face and the model matrices of what the animator shows now (at
 * creation and after a character swap, before the next frame). */
static void show_current(demo_app *a)
{
    refresh_face(a);
    bw_pose_local_to_model(a->ch.rig, shown_pose(a), a->model);
}

demo_app *demo_app_create(const demo_app_desc *desc, char *err, size_t err_size)
{
    if (!desc || (!desc->character && (!desc->rig || !desc->clips || desc->clip_count < 1))) {
        snprintf(err, err_size, "demo: give a character file or a rig with clips");
        return NULL;
    }
    if (!(desc->reload_fade >= 0) || !isfinite(desc->reload_fade)) {
        snprintf(err, err_size, "demo: the reload fade must be a finite number >= 0");
        return NULL;
    }
    demo_app *a = (demo_app *)calloc(1, sizeof *a);
    if (!a) {
        snprintf(err, err_size, "demo: out of memory");
        return NULL;
    }
    a->character_path = dup_or_null(desc->character);
    a->graph_path = dup_or_null(desc->graph);
    a->timeline_path = dup_or_null(desc->timeline);
    a->label = dup_or_null(desc->label);
    a->fade = desc->reload_fade > 0 ? desc->reload_fade : DEFAULT_FADE;
    a->force_polling = desc->force_polling;
    a->limits = desc->limits;
    a->allocator = desc->allocator;
    a->face = -1;
    a->auto_fade_layer = -1;
    bw_timeline_input_init(&a->tl_in);
    bool ok = (!desc->character || a->character_path) && (!desc->graph || a->graph_path) &&
              (!desc->timeline || a->timeline_path);
    if (!ok) snprintf(err, err_size, "demo: out of memory");
    if (ok && a->character_path) {
        bw_watch_desc wd = {BW_WATCH_DEFAULT_DEBOUNCE, a->force_polling};
        a->char_watch = bw_watch_create(&wd);
        ok = a->char_watch && bw_watch_add(a->char_watch, a->character_path);
        if (!ok) snprintf(err, err_size, "demo: cannot watch %s", a->character_path);
        ok = ok && character_load(a, &a->ch, err, err_size);
    } else if (ok) {
        ok = character_lists(&a->ch, desc->clip_count);
        if (!ok) snprintf(err, err_size, "demo: out of memory");
        a->ch.rig = desc->rig;
        for (int i = 0; ok && i < desc->clip_count; i++) {
            a->ch.clips[i] = desc->clips[i];
            a->ch.names[i] = desc->clips[i] ? bw_clip_name(desc->clips[i]) : NULL;
            if (!a->ch.names[i]) {
                snprintf(err, err_size, "demo: clip %d is missing or has no name", i);
                ok = false;
            } else if (!a->ch.names[i][0]) { /* glTF allows an unnamed animation (CesiumMan's) */
                snprintf(a->ch.unnamed[i], sizeof a->ch.unnamed[i], "#%d", i);
                a->ch.names[i] = a->ch.unnamed[i];
            }
        }
    }
    ok = ok && controls_paths(a, desc->controls, desc->control_count, err, err_size);
    if (ok) {
        a->slot_count = slot_session(a) + 1;
        a->slots = (char(*)[DEMO_APP_ERROR_MAX])calloc((size_t)a->slot_count, sizeof *a->slots);
        ok = a->slots != NULL;
        if (!ok) snprintf(err, err_size, "demo: out of memory");
    }
    ok = ok && controls_build(a, a->ch.rig, &a->ctl, NULL, err, err_size);
    ok = ok && version_build(a, &a->ch, &a->v, a->ctl.owns_aim, err, err_size, NULL);
    if (ok && !size_model(a, a->ch.rig)) {
        snprintf(err, err_size, "demo: out of memory");
        ok = false;
    }
    if (ok && a->timeline_path) {
        a->tl_sb = bw_timeline_load(a->timeline_path, err, err_size);
        ok = a->tl_sb && timeline_read(a, -1, err, err_size);
    }
    if (!ok) {
        demo_app_destroy(a);
        return NULL;
    }
    find_joints(a);
    silence_upper(a);
    show_current(a);
    return a;
}

void demo_app_destroy(demo_app *a)
{
    if (!a) return;
    version_free(&a->v);
    controls_free(&a->ctl);
    for (int i = 0; a->control_paths && i < a->control_count; i++) free(a->control_paths[i]);
    free(a->control_paths);
    free(a->control_names);
    free(a->slots);
    character_free(&a->ch);
    bw_watch_destroy(a->char_watch);
    bw_timeline_free(&a->tl);
    bw_sandbox_destroy(a->tl_sb);
    free(a->model);
    free(a->character_path);
    free(a->graph_path);
    free(a->timeline_path);
    free(a->label);
    free(a);
}

/* ---- reload ---- */

/* After a swap: what refers to the old version goes. */
static void after_swap(demo_app *a)
{
    find_joints(a);
    a->auto_fade_layer = -1;
    a->fire_count = 0;
    if (a->face >= a->v.face_count) a->face = -1;
    a->went_in = true;
    slot_clear(a, slot_session(a));
    /* the timeline's names against the new version; what was applied stays applied */
    char err[DEMO_APP_ERROR_MAX];
    slot_set(a, slot_timeline(a), timeline_read(a, a->time - 1e-9, err, sizeof err) ? "" : err);
}

/* Whether `text` stands in `list` as whole lines: starting at the start
 * or after a newline and ending at the end or before one (a mere substring
 * is another text: "step.lua:1: x" inside "lib/step.lua:1: x"). */
static bool has_lines(const char *list, const char *text)
{
    size_t n = strlen(text);
    if (n == 0) return true; /* nothing to add */
    for (const char *at = list; (at = strstr(at, text)) != NULL; at++)
        if ((at == list || at[-1] == '\n') && (at[n] == '\0' || at[n] == '\n')) return true;
    return false;
}

/* An edit rejected for the problem `err` of the source of `slot`. The
 * rejections of one demo_app_reload call collect in a->rejected, each
 * text once (one module's error rejects every control that requires it:
 * one rejection). */
static int reject(demo_app *a, int slot, const char *err)
{
    slot_set(a, slot, err);
    if (!a->rejecting) {
        a->rejected[0] = '\0';
        a->rejecting = true;
    }
    const char *text = a->slots && slot >= 0 && slot < a->slot_count ? a->slots[slot] : err; /* without trailing newlines */
    if (!has_lines(a->rejected, text)) {
        size_t used = strlen(a->rejected);
        snprintf(a->rejected + used, sizeof a->rejected - used, "%s%s", used ? "\n" : "", text);
        a->rejections++;
    }
    snprintf(a->note, sizeof a->note, "reload rejected; still running the previous version");
    return -1;
}

/* The character file changed: a new character, graph load and animator
 * beside the running ones; the new animator's cursor takes over the old
 * one's state. A character that loads fine clears its slot even when the
 * graph or a control then fails on it (that file's slot gets the
 * problem, and the character is tried again once that file loads fine:
 * char_pending). */
static int reload_character(demo_app *a)
{
    char err[DEMO_APP_ERROR_MAX];
    err[0] = '\0';
    character_ref fresh;
    version next;
    controls_set ctl;
    memset(&next, 0, sizeof next);
    memset(&ctl, 0, sizeof ctl);
    const bool was_pending = a->char_pending;
    a->char_pending = false;
    if (!character_load(a, &fresh, err, sizeof err)) {
        /* a waiting edit replaced by a broken one: what the waiting edit
         * could not load is no longer anyone's problem */
        if (was_pending) slot_clear(a, a->pending_slot);
        return reject(a, SLOT_CHARACTER, err);
    }
    slot_clear(a, SLOT_CHARACTER);
    /* the controls run on the new rig: loaded again, their state starts over */
    int bad_control = -1, slot = -1;
    bool graph_failed = false;
    if (!controls_build(a, fresh.rig, &ctl, &bad_control, err, sizeof err))
        slot = bad_control >= 0 ? slot_control(bad_control, false) : SLOT_CHARACTER;
    else if (!version_build(a, &fresh, &next, ctl.owns_aim, err, sizeof err, &graph_failed))
        slot = graph_failed ? SLOT_GRAPH : SLOT_CHARACTER;
    else if (!size_model(a, fresh.rig))
        slot = SLOT_CHARACTER;
    if (slot >= 0) {
        if (!err[0]) snprintf(err, sizeof err, "demo: out of memory");
        version_free(&next);
        controls_free(&ctl);
        character_free(&fresh);
        a->char_pending = slot != SLOT_CHARACTER;
        a->pending_slot = slot;
        return reject(a, slot, err);
    }
    bw_graph_cursor *dst = cursor_of(&next);
    const bw_graph_cursor *src = cursor_of(&a->v);
    bool carried = dst && src && bw_graph_cursor_carry_over(dst, src, a->fade) == BW_OK;
    snprintf(a->note, sizeof a->note, "reloaded %s; %s", a->character_path,
             carried ? "state carried over" : (dst ? "graph restarted (another rig layout)" : "no graph"));
    version_free(&a->v);
    controls_free(&a->ctl);
    character_free(&a->ch);
    a->v = next;
    a->ch = fresh;
    a->ctl = ctl;
    /* everything was loaded again, and loaded fine */
    slot_clear(a, SLOT_GRAPH);
    for (int i = 0; i < a->control_count; i++) clear_control_at(a, i);
    if (!carried) silence_upper(a);
    after_swap(a);
    show_current(a); /* the new rig's matrices before its first frame (a paused demo draws now) */
    return 1;
}

/* The graph file changed: the reloader built a new version in its own
 * sandbox; the animator takes it with bw_animator_set_graph, which carries
 * the state over. */
static int reload_graph(demo_app *a, bool force, double now)
{
    version *v = &a->v;
    bw_graph_reload_result res = force ? bw_graph_reload_now(v->graph) : bw_graph_reload_poll(v->graph, now);
    if (res == BW_GRAPH_RELOAD_NONE) return 0;
    if (res == BW_GRAPH_RELOAD_REJECTED) return reject(a, SLOT_GRAPH, bw_graph_reload_error(v->graph));
    const bw_graph *fresh = bw_graph_reload_acquire(v->graph);
    bw_error errs[4];
    bw_animator_errors list = {errs, 4, 0};
    if (bw_animator_set_graph(v->animator, fresh, NULL, a->fade, &list) != BW_OK) {
        bw_graph_reload_release(v->graph, fresh);
        char err[DEMO_APP_ERROR_MAX] = "";
        animator_errors(err, sizeof err, errs, list.count, 4);
        return reject(a, SLOT_GRAPH, err);
    }
    bw_graph_reload_release(v->graph, v->held);
    v->held = fresh;
    find_params(v);
    snprintf(a->note, sizeof a->note, "reloaded %s in %.1f ms; state carried over", a->graph_path,
             bw_graph_reload_last_ms(v->graph));
    slot_clear(a, SLOT_GRAPH);
    after_swap(a);
    return 1;
}

/* A control file or a module one requires changed (the runner's poll;
 * `force`: every file): the runner reloads what depends on it in place
 * (state kept as the control says, a bad edit rejected whole), and each
 * control's slots follow what the runner says of it: a version that went
 * in clears them, a new rejection fills its edit slot. */
static int reload_controls(demo_app *a, bool force, double now)
{
    if (!a->ctl.run) return 0;
    bw_control_reloads before[BW_CONTROLS_MAX];
    for (int i = 0; i < a->control_count; i++) before[i] = bw_controls_reload_status(a->ctl.run, a->ctl.index[i]);
    bw_controls_reload_result r = BW_CONTROLS_RELOAD_NONE;
    if (force) {
        for (int i = 0; i < a->control_count; i++) {
            bool repeat = false; /* a file listed twice reloads once */
            for (int k = 0; k < i; k++) repeat = repeat || strcmp(a->control_names[k], a->control_names[i]) == 0;
            bw_controls_reload_result one = repeat ? BW_CONTROLS_RELOAD_NONE : bw_controls_reload(a->ctl.run, a->control_names[i]);
            if (one == BW_CONTROLS_RELOAD_REJECTED || (one == BW_CONTROLS_RELOAD_DONE && r == BW_CONTROLS_RELOAD_NONE))
                r = one;
        }
    } else {
        r = bw_controls_poll(a->ctl.run, now);
    }
    if (r == BW_CONTROLS_RELOAD_NONE) return 0;
    int done = 0, rejected = 0;
    for (int i = 0; i < a->control_count; i++) {
        bw_control_reloads now_at = bw_controls_reload_status(a->ctl.run, a->ctl.index[i]);
        if (now_at.done != before[i].done) {
            clear_control_at(a, i);
            done++;
        } else if (now_at.rejected != before[i].rejected) {
            reject(a, slot_control(i, false), now_at.error);
            rejected++;
        }
    }
    if (done) {
        a->went_in = true;
        slot_clear(a, slot_session(a));
        if (!rejected)
            snprintf(a->note, sizeof a->note, "reloaded the controls (%d reload%s so far); state kept where they keep it",
                     bw_controls_reloads(a->ctl.run), bw_controls_reloads(a->ctl.run) == 1 ? "" : "s");
    }
    return rejected || r == BW_CONTROLS_RELOAD_REJECTED ? -1 : done ? 1 : 0;
}

/* The files that changed (all with `force`), each source reloaded: the
 * character alone when it changed; else the graph and the controls, and
 * then a character edit that waited for one of them. */
static int reload_files(demo_app *a, double now, bool force)
{
    bool char_changed = a->char_watch && bw_watch_poll(a->char_watch, now);
    if (char_changed || (force && a->character_path)) return reload_character(a);
    const int rejections = a->rejections;
    int g = a->v.graph ? reload_graph(a, force, now) : 0;
    int c = reload_controls(a, force, now);
    /* a character edit that waited for another file: that file changed,
     * so try the character again (the file was judged against the old
     * character above; an edit made for the new one, such as a renamed
     * clip, only loads with it). When it goes in, every file went in with
     * it: what was rejected above against the old character is no
     * rejection. */
    if (a->char_pending && (g != 0 || c != 0)) {
        const int before = a->rejections;
        int r = reload_character(a);
        if (r > 0) a->rejections = rejections + (a->rejections - before);
        return r;
    }
    return g < 0 || c < 0 ? -1 : g > 0 || c > 0 ? 1 : 0;
}

int demo_app_reload(demo_app *a, double now, bool force)
{
    if (!a) return 0;
    a->rejecting = false;
    a->went_in = false;
    int r = reload_files(a, now, force);
    if (a->went_in) a->reloads++; /* one reload however many versions went in (docs/demo.md) */
    return r;
}

/* ---- input and commands ---- */

static bool finite3(const float v[3]) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

bool demo_app_set_input(demo_app *a, const demo_input *in)
{
    if (!a || !in) return false;
    if (!finite3(in->velocity) || !isfinite(in->turn) || (in->has_look_at && !finite3(in->look_at))) {
        set_error(a, "demo: input refused: a number is not finite (the previous input stays)");
        return false;
    }
    a->input = *in;
    return true;
}

const demo_input *demo_app_input(const demo_app *a) { return &a->input; }

bool demo_app_fire(demo_app *a, const char *trigger)
{
    const bw_graph *g = graph_of(&a->v);
    int p = bw_graph_find_param(g, trigger);
    if (p < 0 || bw_graph_param_kind_of(g, p) != BW_GRAPH_PARAM_TRIGGER) {
        set_error(a, "demo: the graph has no trigger '%s'", trigger);
        return false;
    }
    if (a->fire_count < DEMO_APP_MAX_FIRE) a->fire[a->fire_count++] = p;
    return true;
}

static bool start_gesture(demo_app *a, int clip)
{
    bw_gesture_desc gd;
    memset(&gd, 0, sizeof gd);
    gd.fade_in = 0.2f;
    gd.fade_out = 0.3f;
    gd.curve = BW_EASE_SINE;
    return bw_animator_gesture(a->v.animator, clip, &gd) == BW_OK;
}

bool demo_app_gesture(demo_app *a, const char *clip)
{
    int i = find_clip(&a->ch, clip);
    if (i < 0 || !start_gesture(a, i)) {
        set_error(a, "demo: '%s' is not a gesture clip of this character", clip);
        return false;
    }
    return true;
}

bool demo_app_travel(demo_app *a, const char *layer, const char *state)
{
    const bw_graph *g = graph_of(&a->v);
    int l = bw_graph_find_layer(g, layer), s = bw_graph_find_state(g, l, state);
    if (l < 0 || s < 0) {
        set_error(a, "demo: no state '%s' in layer '%s'", state, layer);
        return false;
    }
    if (bw_graph_cursor_travel(cursor_of(&a->v), l, s) != BW_OK) {
        set_error(a, "demo: no route to '%s' in layer '%s'", state, layer);
        return false;
    }
    return true;
}

bool demo_app_layer_weight(demo_app *a, const char *layer, float weight, float fade)
{
    int l = bw_graph_find_layer(graph_of(&a->v), layer);
    if (l >= 0 && !demo_sets_weight(a, l)) return true; /* the graph's parameter drives it */
    if (l < 0 || bw_graph_cursor_set_layer_weight(cursor_of(&a->v), l, weight, fade) != BW_OK) {
        set_error(a, "demo: cannot fade layer '%s'", layer);
        return false;
    }
    a->auto_fade_layer = weight > 0 ? l : -1;
    return true;
}

void demo_app_next_face(demo_app *a)
{
    a->face = a->face + 1 < a->v.face_count ? a->face + 1 : -1;
}

/* ---- the frame ---- */

static void log_event(demo_app *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void log_event(demo_app *a, const char *fmt, ...)
{
    char *line = a->events[a->event_count % DEMO_APP_EVENTS];
    int n = snprintf(line, DEMO_APP_EVENT_TEXT, "%.3f ", a->time);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && n < DEMO_APP_EVENT_TEXT) vsnprintf(line + n, (size_t)(DEMO_APP_EVENT_TEXT - n), fmt, ap);
    va_end(ap);
    a->event_count++;
}

static void collect_events(demo_app *a)
{
    const bw_graph *g = graph_of(&a->v);
    int n = 0;
    const bw_animator_event *ev = bw_animator_events(a->v.animator, &n);
    for (int i = 0; i < n; i++) {
        const bw_animator_event *e = &ev[i];
        switch (e->kind) {
        case BW_ANIMATOR_EVENT_GRAPH: {
            const bw_graph_event *ge = &e->graph_event;
            const char *layer = bw_graph_layer_name(g, ge->layer);
            if (ge->kind == BW_GRAPH_EVENT_MARKER)
                log_event(a, "marker %s %s %s", layer, a->ch.names[ge->clip], ge->name ? ge->name : "?");
            else
                log_event(a, "%s %s %s", ge->kind == BW_GRAPH_EVENT_ENTER ? "enter" : "exit", layer,
                          bw_graph_state_name(g, ge->layer, ge->state));
            break;
        }
        case BW_ANIMATOR_EVENT_GESTURE_END: log_event(a, "gesture_end %s", a->ch.names[e->clip]); break;
        case BW_ANIMATOR_EVENT_MARKER: log_event(a, "marker base %s %s", a->ch.names[e->clip], e->name); break;
        case BW_ANIMATOR_EVENT_BLINK: break; /* every few seconds: not worth a line */
        }
    }
}

static void push_trail(demo_app *a)
{
    if (a->time < a->trail_time) return;
    a->trail_time = a->time + TRAIL_STEP;
    if (a->trail_count == DEMO_APP_TRAIL) {
        memmove(a->trail[0], a->trail[1], sizeof a->trail - sizeof a->trail[0]);
        a->trail_count--;
    }
    a->trail[a->trail_count][0] = a->position[0];
    a->trail[a->trail_count][1] = a->position[2];
    a->trail_count++;
}

static void rotate_y(float yaw, const float in[3], float out[3])
{
    float c = cosf(yaw), s = sinf(yaw);
    float x = in[0] * c + in[2] * s, z = -in[0] * s + in[2] * c;
    out[0] = x;
    out[1] = in[1];
    out[2] = z;
}

static void auto_fade(demo_app *a)
{
    bw_graph_cursor *c = cursor_of(&a->v);
    bw_graph_layer_status st;
    if (a->auto_fade_layer < 0 || !c || bw_graph_cursor_layer_status(c, a->auto_fade_layer, &st) != BW_OK) return;
    if (st.normalized >= 1.0f && !st.transition.active) {
        bw_graph_cursor_set_layer_weight(c, a->auto_fade_layer, 0.0f, 0.4f);
        a->auto_fade_layer = -1;
    }
}

bool demo_app_frame(demo_app *a, float dt, double now)
{
    if (!a) return false;
    if (!isfinite(dt) || dt < 0 || dt > DEMO_APP_MAX_DT) {
        set_error(a, "demo: frame refused: dt %g s is not in [0, %g] (nothing moved)", (double)dt,
                  (double)DEMO_APP_MAX_DT);
        return false;
    }
    demo_app_reload(a, now, false);
    version *v = &a->v;
    bw_graph_cursor *cursor = cursor_of(v);
    /* the timeline's due entries */
    if (a->tl_sb && a->frames < a->tl.frames) {
        a->tl_report[0] = '\0';
        /* a travel with no route: its "TIMELINE:LINE: travel ..." line in the session's slot */
        if (!bw_timeline_apply_input(&a->tl, cursor, &a->tl_in, a->time, a->frames) && a->tl_report[0])
            set_error(a, "%s", a->tl_report);
        memcpy(a->input.velocity, a->tl_in.velocity, sizeof a->input.velocity);
        a->input.turn = a->tl_in.turn;
        a->input.has_look_at = a->tl_in.has_look_at;
        memcpy(a->input.look_at, a->tl_in.look_at, sizeof a->input.look_at);
        if (a->tl_in.has_yaw) a->yaw = a->tl_in.yaw;
        a->tl_in.has_yaw = false;
        if (a->tl_in.gesture >= 0 && !start_gesture(a, a->tl_in.gesture))
            set_error(a, "demo: %s: '%s' is not a gesture clip of this character (wave, nod)", a->timeline_path,
                      a->ch.names[a->tl_in.gesture]);
        a->tl_in.gesture = -1;
    }
    auto_fade(a);
    /* the input as the character state */
    a->yaw += a->input.turn * dt;
    a->yaw = remainderf(a->yaw, 6.28318531f);
    const float local[3] = {a->input.velocity[0], 0.0f, a->input.velocity[2]};
    rotate_y(a->yaw, local, a->world_velocity);
    bw_character_param params[3];
    int pc = 0;
    if (v->p_vx >= 0) params[pc++] = (bw_character_param){v->p_vx, local[0]};
    if (v->p_vz >= 0) params[pc++] = (bw_character_param){v->p_vz, local[2]};
    if (v->p_speed >= 0) params[pc++] = (bw_character_param){v->p_speed, sqrtf(local[0] * local[0] + local[2] * local[2])};
    for (int i = 0; i < v->face_count; i++) a->face_weights[i] = 0.0f;
    int face = a->face >= 0 ? a->face : v->face_idle; /* the resting face when the character has one */
    if (face >= 0 && face < v->face_count) a->face_weights[face] = 1.0f;
    bw_character_state st;
    memset(&st, 0, sizeof st);
    memcpy(st.velocity, a->world_velocity, sizeof st.velocity);
    memcpy(st.position, a->position, sizeof st.position);
    st.yaw = a->yaw;
    st.params = params;
    st.param_count = pc;
    st.fire = a->fire;
    st.fire_count = a->fire_count;
    st.face_weights = v->face_count ? a->face_weights : NULL;
    st.face_weight_count = v->face_count;
    st.clip_weights = v->clip_weights;
    st.clip_weight_count = v->clip_weights ? a->ch.clip_count : 0;
    st.has_look_at = a->input.has_look_at;
    memcpy(st.look_at, a->input.look_at, sizeof st.look_at);
    double t0 = ms_now();
    bw_result r = bw_animator_update(v->animator, dt, &st, NULL);
    a->anim_ms = ms_now() - t0;
    a->fire_count = 0;
    bool ok = r == BW_OK;
    if (!ok) {
        int n = 0;
        const bw_state_problem *p = bw_animator_problems(v->animator, &n);
        set_error(a, "demo: state refused: %s %s", n ? p[0].path : "state", n ? p[0].message : "is bad");
    }
    /* move */
    const bw_root_delta *rd = bw_animator_root_motion(v->animator);
    if (a->root_motion && rd) {
        const float t[3] = {(float)rd->t[0], (float)rd->t[1], (float)rd->t[2]};
        float w[3];
        rotate_y(a->yaw, t, w);
        a->position[0] += w[0];
        a->position[2] += w[2];
        a->yaw += (float)rd->yaw;
    } else {
        a->position[0] += a->world_velocity[0] * dt;
        a->position[2] += a->world_velocity[2] * dt;
    }
    if (a->ctl.run) run_controls(a, dt);
    refresh_face(a);
    collect_events(a);
    bw_pose_local_to_model(a->ch.rig, shown_pose(a), a->model);
    a->time += dt;
    a->frames++;
    push_trail(a);
    return ok;
}

/* ---- queries ---- */

const bw_rig *demo_app_rig(const demo_app *a) { return a->ch.rig; }
const bw_clip *demo_app_clip(const demo_app *a, int i)
{
    return i >= 0 && i < a->ch.clip_count ? a->ch.clips[i] : NULL;
}
const char *demo_app_clip_name(const demo_app *a, int i)
{
    return i >= 0 && i < a->ch.clip_count ? a->ch.names[i] : NULL;
}
const bw_graph *demo_app_graph(const demo_app *a) { return graph_of(&a->v); }
const bw_graph_cursor *demo_app_cursor(const demo_app *a) { return cursor_of(&a->v); }
const bw_animator *demo_app_animator(const demo_app *a) { return a->v.animator; }
const bw_pose *demo_app_pose(const demo_app *a) { return shown_pose(a); }
const float *demo_app_gaze(const demo_app *a) { return a->gaze; }
const float *demo_app_arkit(const demo_app *a) { return a->arkit; }

int demo_app_control_count(const demo_app *a) { return a->control_count; }
const char *demo_app_control_name(const demo_app *a, int i)
{
    return i >= 0 && i < a->control_count ? a->control_names[i] : NULL;
}
int demo_app_control_reloads(const demo_app *a) { return a->ctl.run ? bw_controls_reloads(a->ctl.run) : 0; }
int demo_app_control_failures(const demo_app *a)
{
    int n = 0;
    for (int i = 0; a->ctl.run && i < bw_controls_count(a->ctl.run); i++) n += bw_controls_failures(a->ctl.run, i);
    return n;
}
bool demo_app_control_aims(const demo_app *a) { return a->ctl.owns_aim; }
bw_sandbox *demo_app_control_sandbox(demo_app *a) { return a->ctl.sb; }

int demo_app_head_limits(const demo_app *a, float out[4])
{
    int joints = bw_animator_head_limits(a->v.animator, out);
    if (!a->ctl.owns_aim) return joints > 0 ? DEMO_AIM_ANIMATOR : DEMO_AIM_NONE;
    float l[4];
    if (bw_controls_read(a->ctl.run, 0, "aim_limits", l, 4) < 4) return DEMO_AIM_CONTROL_UNKNOWN;
    memcpy(out, l, sizeof l);
    return DEMO_AIM_CONTROL;
}
const char *demo_app_graph_path(const demo_app *a) { return a->graph_path; }
const char *demo_app_label(const demo_app *a)
{
    return a->character_path ? a->character_path : a->label ? a->label : "(model)";
}
const float (*demo_app_model(const demo_app *a))[4][4] { return (const float(*)[4][4])a->model; }
int demo_app_joint(const demo_app *a, demo_joint which)
{
    return a && (int)which >= 0 && which < DEMO_JOINT_COUNT ? a->joints[which] : -1;
}

void demo_app_place(const demo_app *a, float position[3], float *yaw)
{
    memcpy(position, a->position, sizeof a->position);
    *yaw = a->yaw;
}

void demo_app_velocity(const demo_app *a, float velocity[3]) { memcpy(velocity, a->world_velocity, sizeof a->world_velocity); }

const float *demo_app_trail(const demo_app *a, int *out_count)
{
    *out_count = a->trail_count;
    return &a->trail[0][0];
}

long demo_app_event_count(const demo_app *a) { return a->event_count; }
const char *demo_app_event(const demo_app *a, long i)
{
    if (i < 0 || i >= a->event_count || i < a->event_count - DEMO_APP_EVENTS) return NULL;
    return a->events[i % DEMO_APP_EVENTS];
}
double demo_app_time(const demo_app *a) { return a->time; }
long demo_app_frames(const demo_app *a) { return a->frames; }
double demo_app_anim_ms(const demo_app *a) { return a->anim_ms; }
const char *demo_app_error(const demo_app *a) { return a->error; }
const char *demo_app_rejected(const demo_app *a) { return a->rejected; }
void demo_app_clear_error(demo_app *a) { slot_clear(a, slot_session(a)); }
int demo_app_reloads(const demo_app *a) { return a->reloads; }
int demo_app_rejections(const demo_app *a) { return a->rejections; }
const char *demo_app_reload_note(const demo_app *a) { return a->note; }
bool demo_app_timeline_done(const demo_app *a) { return a->tl_sb && a->frames >= a->tl.frames; }
long demo_app_timeline_frames(const demo_app *a) { return a->tl_sb ? a->tl.frames : 0; }
double demo_app_timeline_dt(const demo_app *a) { return a->tl_sb ? a->tl.dt : 0.0; }

int demo_app_tree_params(const demo_app *a, const bw_blend_tree *tree, float *out, int cap)
{
    /* a graph's blend trees index the graph's parameters (graph.h) */
    const bw_graph_cursor *c = cursor_of(&a->v);
    int n = bw_blend_tree_param_count(tree);
    for (int i = 0; i < n && i < cap; i++) {
        float x = bw_graph_cursor_param(c, i);
        out[i] = isfinite(x) ? x : 0.0f;
    }
    return n;
}

/* A state's clips at weight w into out[*n] (cap entries): a clip state's
 * clip, a blend state's leaves as the cursor last evaluated them (`source`:
 * the layer's live transition source; none when the cursor holds none). */
static void state_clips(const demo_app *a, int layer, int state, bool source, float w, demo_clip_weight *out, int cap,
                        int *n)
{
    int clip = bw_graph_state_clip(graph_of(&a->v), layer, state);
    if (clip >= 0) {
        if (*n < cap) out[*n] = (demo_clip_weight){layer, clip, w};
        (*n)++;
        return;
    }
    int count = 0;
    const bw_blend_leaf *leaves = bw_graph_cursor_leaves(cursor_of(&a->v), layer, source, &count);
    for (int i = 0; i < count; i++) {
        if (*n < cap) out[*n] = (demo_clip_weight){layer, leaves[i].clip, w * leaves[i].weight};
        (*n)++;
    }
}

int demo_app_clip_weights(const demo_app *a, demo_clip_weight *out, int cap)
{
    return demo_app_clip_weights_leaves(a, out, cap, NULL, 0, NULL);
}

int demo_app_clip_weights_leaves(const demo_app *a, demo_clip_weight *out, int cap, bw_blend_leaf *leaves_out, int leaf_cap,
                                 int *leaf_count)
{
    const bw_graph *g = graph_of(&a->v);
    int n = 0;
    if (leaf_count) *leaf_count = -1;
    if (!g) {
        int count = 0;
        const bw_animator_play *p = bw_animator_plays(a->v.animator, &count);
        for (int i = 0; i < count; i++, n++)
            if (n < cap) out[n] = (demo_clip_weight){-1, p[i].clip, p[i].weight};
        return n;
    }
    const bw_graph_cursor *c = cursor_of(&a->v);
    /* layer 0's current leaves, when asked for (a blend state's alone) */
    bw_graph_layer_status st0;
    if (leaf_count && bw_graph_cursor_layer_status(c, 0, &st0) == BW_OK && bw_graph_state_blend(g, 0, st0.state)) {
        int count = 0;
        const bw_blend_leaf *first = bw_graph_cursor_leaves(c, 0, false, &count);
        if (first) *leaf_count = count;
        for (int i = 0; i < count && i < leaf_cap && leaves_out; i++) leaves_out[i] = first[i];
    }
    for (int l = 0; l < bw_graph_layer_count(g); l++) {
        bw_graph_layer_status st;
        if (bw_graph_cursor_layer_status(c, l, &st) != BW_OK || st.weight <= 0) continue;
        const bw_graph_transition_status *tr = &st.transition;
        float w = tr->active ? tr->weight : 1.0f;
        state_clips(a, l, st.state, false, st.weight * w, out, cap, &n);
        if (tr->active && !tr->frozen && tr->source_state >= 0)
            state_clips(a, l, tr->source_state, true, st.weight * (1.0f - w), out, cap, &n);
    }
    return n;
}
