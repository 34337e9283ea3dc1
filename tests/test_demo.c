/* test_demo.c - the demo host: sandboxed character scripts, hot reload,
 * playback of the default character, and the blendwerk-demo binary run
 * headless.
 *
 * The reload logic has no SDL in it: demo/script.c, demo/player.c and
 * demo/reload.c form the blendwerk_demo_logic library (demo/CMakeLists.txt),
 * which this test links and reaches through the demo's headers only, so
 * it runs even where SDL2 is missing. The binary tests run BW_BINARY_DIR/demo/blendwerk-demo through popen; when it was
 * not built (no SDL2, or BW_BUILD_DEMO=OFF) they are skipped and, if
 * everything else passed, the whole test reports a skip (exit 77).
 *
 * Expected numbers are derived by hand in the comments. The step is the
 * demo's default dt, float(1/60) = 0.01666666753590107, slightly MORE than
 * 1/60, and track time accumulates it in double: after k frames the clip
 * time is k * 0.0166666675 >= k/60, so a marker at m seconds (m a multiple
 * of 1/60) is crossed exactly at frame k = 60 m, never one frame late.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "test_files.h"
#include "player.h"
#include "reload.h"
#include "script.h"

#define DEMO_BINARY BW_BINARY_DIR "/demo/blendwerk-demo"
#define DEFAULT_SCRIPT BW_SOURCE_DIR "/demo/character.lua"
#define DT (1.0f / 60.0f)

static char temp_dir[256];
static bool binary_skipped;

/* ---- helpers ---- */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) n = 0;
    if (buf) buf[n] = '\0';
    fclose(f);
    return buf;
}

static const char *temp_path(const char *name) { return path_in(temp_dir, name); }

/* `text` with the first `old` replaced by `new_text` (NULL if absent). */
static char *replaced(const char *text, const char *old, const char *new_text)
{
    const char *at = strstr(text, old);
    if (!at) {
        fprintf(stderr, "replaced: '%s' not found\n", old);
        return NULL;
    }
    size_t pre = (size_t)(at - text), ol = strlen(old), nl = strlen(new_text), rest = strlen(at + ol);
    char *out = malloc(pre + nl + rest + 1);
    memcpy(out, text, pre);
    memcpy(out + pre, new_text, nl);
    memcpy(out + pre + nl, at + ol, rest + 1);
    return out;
}

/* 1-based line number of the first occurrence of `needle` in `text`. */
static int line_of(const char *text, const char *needle)
{
    const char *at = strstr(text, needle);
    if (!at) return -1;
    int line = 1;
    for (const char *p = text; p < at; p++) line += *p == '\n';
    return line;
}

/* Write `text` to `path` so that its stamp surely differs from the last
 * one (file systems with coarse timestamps get a different size too). */
static void rewrite(const char *path, const char *text)
{
    write_text_file(path, text);
}

static demo_character *load_text(const char *name, const char *text, const demo_limits *limits, char *err,
                                  size_t err_size)
{
    write_text_file(temp_path(name), text);
    demo_character *c = NULL;
    if (!demo_character_load(temp_path(name), NULL, limits, &c, NULL, err, err_size)) return NULL;
    return c;
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Quaternion of `deg` degrees about X, as the script's rx() builds it. */
static void quat_x(double deg, double q[4])
{
    double h = deg * M_PI / 360.0;
    q[0] = sin(h);
    q[1] = 0;
    q[2] = 0;
    q[3] = cos(h);
}

/* A minimal valid character: two joints, clips a (1 s loop, marker "tick"
 * at 0.25) and b (2 s loop), both playing. */
static const char *two_clip_script =
    "local bw = blendwerk\n"
    "local rig = assert(bw.rig { joints = { { name = 'root', t = { 0, 1, 0 } }, { name = 'tip', parent = 'root', t = { 0, 1, 0 } } } })\n"
    "local a = assert(bw.clip { name = 'a', length = 1, loop = true, joints = { { joint = 'root', keys = {\n"
    "  { time = 0, t = { 0, 1, 0 } }, { time = 1, t = { 1, 1, 0 } } } } }, markers = { { name = 'tick', time = 0.25 } } })\n"
    "local b = assert(bw.clip { name = 'b', length = 2, loop = true, joints = { { joint = 'tip', keys = {\n"
    "  { time = 0, t = { 0, 1, 0 } }, { time = 2, t = { 0, 3, 0 } } } } } })\n"
    "return { rig = rig, clips = { a, b }, scene = { play = { 'a', { clip = 'b', priority = 1 } }, crossfade = 0.5 } }\n";

/* ---- the default character ---- */

static void default_script_builds_the_stick_figure(void)
{
    char err[DEMO_ERROR_MAX] = "";
    demo_character *c = NULL;
    demo_watch watch;
    CHECK(demo_character_load(DEFAULT_SCRIPT, NULL, NULL, &c, &watch, err, sizeof err));
    if (!c) {
        fprintf(stderr, "load: %s\n", err);
        return;
    }
    CHECK_INT(watch.count, 1);
    CHECK_INT(bw_rig_joint_count(c->rig), 20);
    CHECK_INT(c->clip_count, 3);
    CHECK_STR(c->clips[0].name, "idle");
    CHECK_STR(c->clips[1].name, "walk");
    CHECK_STR(c->clips[2].name, "wave");
    const bw_clip *walk = c->clips[1].clip;
    CHECK_NEAR(bw_clip_length(walk), 1.0, 1e-6);
    CHECK(bw_clip_loop(walk));
    CHECK_INT(bw_clip_marker_count(walk), 2);
    CHECK_STR(bw_clip_marker_name(walk, 0), "foot_down_l");
    CHECK_NEAR(bw_clip_marker_time(walk, 0), 0.0, 1e-6);
    CHECK_STR(bw_clip_marker_name(walk, 1), "foot_down_r");
    CHECK_NEAR(bw_clip_marker_time(walk, 1), 0.5, 1e-6);
    /* the scene: walk as the base, wave layered at priority 1, looping */
    CHECK_INT(c->scene.play_count, 2);
    CHECK_INT(c->scene.plays[0].clip, 1);
    CHECK(c->scene.plays[0].base);
    CHECK_INT(c->scene.plays[1].clip, 2);
    CHECK_INT(c->scene.plays[1].priority, 1);
    CHECK_INT(c->scene.plays[1].loop, 1);
    CHECK(!c->scene.plays[1].base);
    CHECK_INT(c->scene.gesture_clip, 2);
    CHECK_NEAR(c->scene.ground_speed[1], 1.16, 1e-6);
    /* Rest pose in model space from the rig's offsets: head_end at
     * 0.95 + 0.12 + 0.20 + 0.20 + 0.08 + 0.21 = 1.76 m, z 0.01; toe_l at
     * x 0.10, y 0.95 - 0.04 - 0.43 - 0.42 - 0.06 = 0, z 0.15. */
    bw_pose pose = {0};
    CHECK(bw_pose_init(&pose, c->rig, NULL) == BW_OK);
    float model[20][4][4];
    bw_pose_set_rest(&pose, c->rig);
    bw_pose_local_to_model(c->rig, &pose, model);
    int head_end = bw_rig_find_by_name(c->rig, "head_end"), toe_l = bw_rig_find_by_name(c->rig, "toe_l");
    CHECK(head_end >= 0 && toe_l >= 0);
    if (head_end >= 0 && toe_l >= 0) {
        CHECK_NEAR(model[head_end][3][1], 1.76, 1e-5);
        CHECK_NEAR(model[head_end][3][2], 0.01, 1e-5);
        CHECK_NEAR(model[toe_l][3][0], 0.10, 1e-5);
        CHECK_NEAR(model[toe_l][3][1], 0.0, 1e-5);
        CHECK_NEAR(model[toe_l][3][2], 0.15, 1e-5);
    }
    bw_pose_deinit(&pose);
    demo_character_destroy(c);
}

/* Collect the walk's marker events as (name, time) pairs. */
static int walk_markers(const demo_player *p, long from, char names[][DEMO_NAME_MAX], double *times, int max)
{
    int n = 0;
    for (long k = from; k < p->log_total && n < max; k++) {
        const demo_event *ev = demo_player_event(p, k);
        if (!ev || ev->kind != DEMO_EVENT_MARKER || strcmp(ev->clip, "walk") != 0) continue;
        memcpy(names[n], ev->name, DEMO_NAME_MAX);
        times[n++] = ev->time;
    }
    return n;
}

static void walk_markers_fire_on_the_expected_frames(void)
{
    char err[DEMO_ERROR_MAX] = "";
    demo_character *c = NULL;
    if (!demo_character_load(DEFAULT_SCRIPT, NULL, NULL, &c, NULL, err, sizeof err)) {
        CHECK(!"load");
        return;
    }
    demo_player p;
    CHECK(demo_player_init(&p, c, err, sizeof err));
    /* foot_down_l at clip time 0 fires on the first frame (a fresh track
     * includes its start), then at every wrap: 1.0 (frame 60), 2.0 (frame
     * 120); foot_down_r at 0.5 (frame 30) and 1.5 (frame 90). The event
     * time is when the playhead crossed the marker, so exactly those. */
    for (int f = 1; f <= 120; f++) {
        demo_player_step(&p, DT);
        if (f == 30) { /* the marker at 0.5 is delivered on frame 30 */
            char names[8][DEMO_NAME_MAX];
            double times[8];
            CHECK_INT(walk_markers(&p, 0, names, times, 8), 2);
        }
    }
    char names[16][DEMO_NAME_MAX];
    double times[16];
    int n = walk_markers(&p, 0, names, times, 16);
    CHECK_INT(n, 5);
    static const char *want_names[] = {"foot_down_l", "foot_down_r", "foot_down_l", "foot_down_r", "foot_down_l"};
    static const double want_times[] = {0.0, 0.5, 1.0, 1.5, 2.0};
    for (int i = 0; i < n && i < 5; i++) {
        CHECK_STR(names[i], want_names[i]);
        CHECK_NEAR(times[i], want_times[i], 1e-4);
    }
    /* the wave layer (2.4 s, looping) crosses "hello" at 0.45 and "lower"
     * at 1.95 within the two seconds */
    int hello = 0, lower = 0;
    for (long k = 0; k < p.log_total; k++) {
        const demo_event *ev = demo_player_event(&p, k);
        if (ev && ev->kind == DEMO_EVENT_MARKER && strcmp(ev->name, "hello") == 0) {
            hello++;
            CHECK_NEAR(ev->time, 0.45, 1e-4);
        }
        if (ev && ev->kind == DEMO_EVENT_MARKER && strcmp(ev->name, "lower") == 0) {
            lower++;
            CHECK_NEAR(ev->time, 1.95, 1e-4);
        }
    }
    CHECK_INT(hello, 1);
    CHECK_INT(lower, 1);
    /* the walk's spine key is rx(5) and nothing else covers the spine */
    int spine = bw_rig_find_by_name(p.character->rig, "spine");
    double q[4];
    quat_x(5, q);
    for (int k = 0; k < 4; k++) CHECK_NEAR(p.pose.joints[spine].r[k], q[k], 1e-5);
    demo_player_deinit(&p);
}

static void bad_step_input_is_harmless(void)
{
    char err[DEMO_ERROR_MAX] = "";
    demo_character *c = NULL;
    if (!demo_character_load(DEFAULT_SCRIPT, NULL, NULL, &c, NULL, err, sizeof err)) {
        CHECK(!"load");
        return;
    }
    demo_player p;
    CHECK(demo_player_init(&p, c, err, sizeof err));
    demo_player_step(&p, DT);
    double t = p.time;
    demo_player_step(&p, NAN);
    demo_player_step(&p, INFINITY);
    demo_player_step(&p, -1.0f);
    CHECK_NEAR(p.time, t, 0.0); /* non-finite and negative steps count as 0 */
    for (int j = 0; j < p.pose.joint_count; j++)
        for (int k = 0; k < 4; k++) CHECK(isfinite(p.pose.joints[j].r[k]));
    CHECK(!demo_player_crossfade(&p, -1));
    CHECK(!demo_player_crossfade(&p, 3));
    CHECK(!demo_player_crossfade(NULL, 0));
    CHECK(!demo_player_swap(&p, NULL, err, sizeof err));
    CHECK(!demo_player_fire_gesture(NULL));
    CHECK(!demo_player_init(&p, NULL, err, sizeof err) || !"init(NULL) must fail");
    demo_player_step(NULL, DT);
    CHECK(demo_player_find_track(&p, "walk") != NULL);
    CHECK(demo_player_find_track(&p, "nope") == NULL);
    CHECK(demo_player_event(&p, -1) == NULL);
    CHECK(demo_player_event(&p, p.log_total) == NULL);
    demo_player_deinit(&p);
    demo_player_deinit(NULL);
    demo_character_destroy(NULL);
}

/* Space: the looping wave layer fades out, a one-shot wave fades in, plays
 * its 2.4 s once, ends and fades out over the gesture's 0.3 s. */
static void gesture_plays_once_and_leaves(void)
{
    char err[DEMO_ERROR_MAX] = "";
    demo_character *c = NULL;
    if (!demo_character_load(DEFAULT_SCRIPT, NULL, NULL, &c, NULL, err, sizeof err)) {
        CHECK(!"load");
        return;
    }
    demo_player p;
    CHECK(demo_player_init(&p, c, err, sizeof err));
    for (int f = 0; f < 10; f++) demo_player_step(&p, DT);
    CHECK(demo_player_fire_gesture(&p));
    int waves = 0, gestures = 0;
    const demo_track *recs[DEMO_TRACK_CAPACITY];
    int n = demo_player_tracks(&p, recs, DEMO_TRACK_CAPACITY);
    for (int i = 0; i < n; i++) {
        if (strcmp(recs[i]->name, "wave") != 0) continue;
        waves++;
        if (recs[i]->role == DEMO_ROLE_GESTURE) {
            gestures++;
            CHECK(recs[i]->one_shot);
        } else {
            CHECK(bw_track_set_stopping(p.set, recs[i]->handle));
        }
    }
    CHECK_INT(waves, 2);
    CHECK_INT(gestures, 1);
    /* 2.4 s of clip (144 frames) + 0.3 s fade (18 frames) + the drain that
     * removes it: gone after 164 frames, while the walk plays on */
    for (int f = 0; f < 164; f++) demo_player_step(&p, DT);
    n = demo_player_tracks(&p, recs, DEMO_TRACK_CAPACITY);
    CHECK_INT(n, 1);
    if (n == 1) CHECK_STR(recs[0]->name, "walk");
    int ended = 0, stopped = 0;
    for (long k = 0; k < p.log_total; k++) {
        const demo_event *ev = demo_player_event(&p, k);
        if (!ev || strcmp(ev->clip, "wave") != 0) continue;
        if (ev->kind == DEMO_EVENT_ENDED) {
            ended++;
            /* fired at frame 10 (t = 10/60), the one-shot ends 2.4 s later */
            CHECK_NEAR(ev->time, 10.0 / 60.0 + 2.4, 2.0 / 60.0);
        }
        stopped += ev->kind == DEMO_EVENT_STOPPED;
    }
    CHECK_INT(ended, 1);
    CHECK_INT(stopped, 2);
    demo_player_deinit(&p);
}

/* Keys 1..9 while a crossfade runs: going back to the clip that is fading
 * out brings that same track back instead of starting another. */
static void crossfade_back_revives_the_fading_track(void)
{
    char err[DEMO_ERROR_MAX] = "";
    demo_character *c = NULL;
    if (!demo_character_load(DEFAULT_SCRIPT, NULL, NULL, &c, NULL, err, sizeof err)) {
        CHECK(!"load");
        return;
    }
    demo_player p;
    CHECK(demo_player_init(&p, c, err, sizeof err));
    for (int f = 0; f < 10; f++) demo_player_step(&p, DT);
    const demo_track *walk = demo_player_find_track(&p, "walk");
    int walk_handle = walk ? walk->handle : -1;
    CHECK(demo_player_crossfade(&p, 0)); /* idle */
    /* 0.35 s crossfade, linear: 6 frames = 0.1 s in, walk is at 1 - 0.1/0.35 */
    for (int f = 0; f < 6; f++) demo_player_step(&p, DT);
    CHECK_NEAR(bw_track_set_weight(p.set, walk_handle), 1.0 - 0.1 / 0.35, 1e-4);
    CHECK(demo_player_crossfade(&p, 1)); /* back to walk */
    CHECK(bw_track_set_alive(p.set, walk_handle));
    CHECK(!bw_track_set_stopping(p.set, walk_handle));
    for (int f = 0; f < 30; f++) demo_player_step(&p, DT);
    walk = demo_player_find_track(&p, "walk");
    CHECK(walk && walk->handle == walk_handle);
    CHECK_NEAR(bw_track_set_weight(p.set, walk_handle), 1.0, 1e-6);
    CHECK(demo_player_find_track(&p, "idle") == NULL); /* faded out and removed */
    /* the same key again changes nothing */
    CHECK(demo_player_crossfade(&p, 1));
    CHECK_INT(bw_track_set_count(p.set), 2);
    /* 0 restarts the scene: walk and wave from time 0 */
    demo_player_restart(&p);
    demo_player_step(&p, DT);
    const demo_track *recs[DEMO_TRACK_CAPACITY];
    int n = demo_player_tracks(&p, recs, DEMO_TRACK_CAPACITY);
    CHECK_INT(n, 2);
    for (int i = 0; i < n; i++) CHECK_NEAR(bw_track_set_time(p.set, recs[i]->handle), DT, 1e-7);
    demo_player_deinit(&p);
}

/* ---- hot reload ---- */

static demo_player reload_player;

static bool start_from_copy(demo_reloader *r, const char *name, const char *text)
{
    write_text_file(temp_path(name), text);
    demo_limits lim = {0};
    demo_reloader_init(r, temp_path(name), NULL, &lim);
    demo_character *c = demo_reloader_load(r);
    if (!c) {
        fprintf(stderr, "first load: %s\n", r->error);
        return false;
    }
    char err[DEMO_ERROR_MAX];
    return demo_player_init(&reload_player, c, err, sizeof err);
}

static void good_edit_swaps_in_keeping_times(void)
{
    char *orig = slurp(DEFAULT_SCRIPT);
    CHECK(orig != NULL);
    if (!orig) return;
    demo_reloader r;
    if (!start_from_copy(&r, "character.lua", orig)) {
        CHECK(!"start");
        free(orig);
        return;
    }
    demo_player *p = &reload_player;
    for (int f = 0; f < 45; f++) demo_player_step(p, DT);
    CHECK(!demo_reloader_changed(&r));
    const demo_character *before = p->character;
    /* change the walk's spine lean from 5 to 25 degrees */
    char *edited = replaced(orig, "{ joint = \"spine\", parent = \"hips\", keys = { { time = 0, r = rx(5) } } }",
                            "{ joint = \"spine\", parent = \"hips\", keys = { { time = 0, r = rx(25) } } }");
    CHECK(edited != NULL);
    rewrite(temp_path("character.lua"), edited);
    CHECK(demo_reloader_changed(&r));
    CHECK(demo_reloader_apply(&r, p));
    CHECK_STR(r.error, "");
    CHECK_INT(r.loads, 2);
    CHECK(p->character != before);
    CHECK(!demo_reloader_changed(&r));
    /* still walk + wave, at the times they had: 45 frames = 0.75 s */
    const demo_track *walk = demo_player_find_track(p, "walk");
    const demo_track *wave = demo_player_find_track(p, "wave");
    CHECK(walk && wave);
    if (walk && wave) {
        CHECK_NEAR(bw_track_set_time(p->set, walk->handle), 45.0 / 60.0, 1e-5);
        CHECK_NEAR(bw_track_set_time(p->set, wave->handle), 45.0 / 60.0, 1e-5);
        CHECK_NEAR(bw_track_set_weight(p->set, walk->handle), 1.0, 1e-6);
        /* the wave faded in over 0.3 s, long done */
        CHECK_NEAR(bw_track_set_weight(p->set, wave->handle), 1.0, 1e-6);
        CHECK_INT(wave->priority, 1);
    }
    CHECK_INT(bw_track_set_count(p->set), 2);
    long events_before = p->log_total;
    /* 15 more frames: t = 1.0, the new lean is in the pose, and the walk
     * crosses only foot_down_l at 1.0 (foot_down_r at 0.5 is behind it and
     * must not fire again) */
    for (int f = 0; f < 15; f++) demo_player_step(p, DT);
    int spine = bw_rig_find_by_name(p->character->rig, "spine");
    double q[4];
    quat_x(25, q);
    for (int k = 0; k < 4; k++) CHECK_NEAR(p->pose.joints[spine].r[k], q[k], 1e-5);
    char names[8][DEMO_NAME_MAX];
    double times[8];
    int n = walk_markers(p, events_before, names, times, 8);
    CHECK_INT(n, 1);
    if (n >= 1) {
        CHECK_STR(names[0], "foot_down_l");
        CHECK_NEAR(times[0], 1.0, 1e-4);
    }
    demo_player_deinit(p);
    free(edited);
    free(orig);
}

static void broken_edits_keep_the_old_version_and_say_where(void)
{
    char *orig = slurp(DEFAULT_SCRIPT);
    if (!orig) {
        CHECK(!"read");
        return;
    }
    demo_reloader r;
    if (!start_from_copy(&r, "character.lua", orig)) {
        CHECK(!"start");
        free(orig);
        return;
    }
    demo_player *p = &reload_player;
    for (int f = 0; f < 20; f++) demo_player_step(p, DT);
    const demo_character *good = p->character;
    char want[64];

    /* a syntax error: reported at its line */
    char *broken = replaced(orig, "local STEP = { 0, 0.25, 0.5, 0.75, 1.0 }", "local STEP = { 0, 0.25,, 0.5 }");
    snprintf(want, sizeof want, "character.lua:%d:", line_of(orig, "local STEP = {"));
    rewrite(temp_path("character.lua"), broken);
    CHECK(demo_reloader_changed(&r));
    CHECK(!demo_reloader_apply(&r, p));
    CHECK_CONTAINS(r.error, want);
    CHECK(p->character == good);
    CHECK(!demo_reloader_changed(&r)); /* tried once per save, not per poll */
    free(broken);

    /* a runtime error */
    broken = replaced(orig, "local ARM_SPREAD = 8", "local ARM_SPREAD = 8 + nil");
    snprintf(want, sizeof want, "character.lua:%d:", line_of(orig, "local ARM_SPREAD = 8"));
    rewrite(temp_path("character.lua"), broken);
    CHECK(!demo_reloader_apply(&r, p));
    CHECK_CONTAINS(r.error, want);
    CHECK_CONTAINS(r.error, "arithmetic");
    free(broken);

    /* bad clip data: blendwerk.clip returns nil, message and the script's
     * assert raises it; the line is the walk's blendwerk.clip call */
    broken = replaced(orig, "{ time = 0.25, t = { 0, 0.955, 0 }, r = ry(0),", "{ time = 0/0, t = { 0, 0.955, 0 }, r = ry(0),");
    snprintf(want, sizeof want, "character.lua:%d:", line_of(orig, "local walk = assert(bw.clip {"));
    rewrite(temp_path("character.lua"), broken);
    CHECK(!demo_reloader_apply(&r, p));
    CHECK_CONTAINS(r.error, want);
    CHECK_CONTAINS(r.error, "clip 'walk'");
    CHECK_CONTAINS(r.error, "NaN");
    free(broken);

    /* a bad returned table names the field */
    broken = replaced(orig, "gesture = { clip = \"wave\",", "gesture = { clip = \"wav\",");
    rewrite(temp_path("character.lua"), broken);
    CHECK(!demo_reloader_apply(&r, p));
    CHECK_CONTAINS(r.error, "character.lua: returned value: scene.gesture.clip: no clip named 'wav'");
    free(broken);

    /* the old version ran on all along: 20 + 40 frames = 1.0 s of walk */
    CHECK(p->character == good);
    CHECK_INT(r.failures, 4);
    for (int f = 0; f < 40; f++) demo_player_step(p, DT);
    const demo_track *walk = demo_player_find_track(p, "walk");
    CHECK(walk != NULL);
    if (walk) CHECK_NEAR(bw_track_set_time(p->set, walk->handle), 0.0, 1e-5); /* wrapped at 1.0 */

    /* the fix is picked up and clears the error */
    rewrite(temp_path("character.lua"), orig);
    CHECK(demo_reloader_changed(&r));
    CHECK(demo_reloader_apply(&r, p));
    CHECK_STR(r.error, "");
    CHECK(p->character != good);
    demo_player_deinit(p);
    free(orig);
}

static void removed_clip_fades_out(void)
{
    demo_reloader r;
    if (!start_from_copy(&r, "two.lua", two_clip_script)) {
        CHECK(!"start");
        return;
    }
    demo_player *p = &reload_player;
    for (int f = 0; f < 30; f++) demo_player_step(p, DT);
    /* version 2 drops clip b and adds a joint (a new rig layout) */
    char *v2a = replaced(two_clip_script, "clips = { a, b }, scene = { play = { 'a', { clip = 'b', priority = 1 } }",
                         "clips = { a }, scene = { play = { 'a' }");
    char *v2 = replaced(v2a, "{ name = 'tip', parent = 'root', t = { 0, 1, 0 } } } }",
                        "{ name = 'tip', parent = 'root', t = { 0, 1, 0 } }, { name = 'extra', parent = 'tip' } } }");
    free(v2a);
    rewrite(temp_path("two.lua"), v2);
    CHECK(demo_reloader_apply(&r, p));
    CHECK_STR(r.error, "");
    CHECK_INT(bw_rig_joint_count(p->character->rig), 3);
    const demo_track *b = demo_player_find_track(p, "b");
    CHECK(b != NULL);
    if (b) {
        CHECK(b->removed);
        CHECK(bw_track_set_stopping(p->set, b->handle));
        /* still at its time: 30 frames = 0.5 s */
        CHECK_NEAR(bw_track_set_time(p->set, b->handle), 0.5, 1e-5);
    }
    /* the crossfade is 0.5 s and the fade is linear: 15 frames = 0.25 s
     * in, the weight is 1 - 0.25 / 0.5 = 0.5 */
    for (int f = 0; f < 15; f++) demo_player_step(p, DT);
    b = demo_player_find_track(p, "b");
    CHECK(b != NULL);
    if (b) CHECK_NEAR(bw_track_set_weight(p->set, b->handle), 0.5, 1e-4);
    /* and 'tip' (only b covers it) is halfway between its rest (y 1) and
     * b's sample at 0.75 s: 1 + 2 * 0.75 / 2 = 1.75, so 1.375 */
    int tip = bw_rig_find_by_name(p->character->rig, "tip");
    CHECK_NEAR(p->pose.joints[tip].t[1], 1.375, 1e-3);
    /* a reload while it fades keeps it fading (not revived by name) */
    rewrite(temp_path("two.lua"), v2);
    CHECK(demo_reloader_apply(&r, p));
    for (int f = 0; f < 16; f++) demo_player_step(p, DT);
    CHECK(demo_player_find_track(p, "b") == NULL);
    CHECK_INT(bw_track_set_count(p->set), 1);
    for (int i = 0; i < DEMO_MAX_RETIRED; i++) CHECK(p->retired[i].clip == NULL); /* its clip was freed */
    CHECK_NEAR(p->pose.joints[tip].t[1], 1.0, 1e-6);
    demo_player_deinit(p);
    free(v2);
}

static void include_files_are_watched_and_reported(void)
{
    write_text_file(temp_path("parts.lua"), "local bw = blendwerk\n"
                                 "local rig = assert(bw.rig { joints = { { name = 'root' } } })\n"
                                 "local c = assert(bw.clip { name = 'c', joints = { { joint = 'root', keys = { { time = 0, t = { 0, 1, 0 } } } } } })\n"
                                 "return rig, c\n");
    demo_reloader r;
    if (!start_from_copy(&r, "main.lua", "local rig, c = include('parts.lua')\nreturn { rig = rig, clips = { c } }\n")) {
        CHECK(!"start");
        return;
    }
    CHECK_INT(r.watch.count, 2);
    CHECK(!demo_reloader_changed(&r));
    write_text_file(temp_path("parts.lua"), "local bw = blendwerk\n"
                                 "local rig = assert(bw.rig { joints = { { name = 'root' } } })\n"
                                 "error('parts are broken')\n");
    CHECK(demo_reloader_changed(&r));
    CHECK(!demo_reloader_apply(&r, &reload_player));
    CHECK_CONTAINS(r.error, "parts.lua:3: parts are broken");
    CHECK_INT(r.watch.count, 2);
    demo_player_deinit(&reload_player);
}

/* ---- the sandbox ---- */

static void runaway_loops_are_stopped_by_the_budget(void)
{
    char err[DEMO_ERROR_MAX] = "";
    demo_limits lim = {.instructions = 2000000};
    double t0 = seconds_now();
    demo_character *c = load_text("loop.lua", "local x = 0\nwhile true do x = x + 1 end\n", &lim, err, sizeof err);
    CHECK(c == NULL);
    CHECK_CONTAINS(err, "loop.lua:2: instruction budget of 2000000 exceeded");
    /* catching the error does not help: once spent, every instruction stops */
    c = load_text("loop2.lua", "while true do\n  pcall(function() while true do end end)\nend\n", &lim, err, sizeof err);
    CHECK(c == NULL);
    CHECK_CONTAINS(err, "instruction budget");
    /* nor does a coroutine */
    c = load_text("loop3.lua", "local co = coroutine.wrap(function() while true do end end)\nco()\n", &lim, err, sizeof err);
    CHECK(c == NULL);
    CHECK_CONTAINS(err, "instruction budget");
    /* a huge budget still meets the wall-clock limit */
    demo_limits slow = {.instructions = 1000000000000LL, .seconds = 0.2};
    c = load_text("loop4.lua", "while true do end\n", &slow, err, sizeof err);
    CHECK(c == NULL);
    CHECK_CONTAINS(err, "loop4.lua:1: time limit");
    /* pattern matching runs in C where the hook cannot stop it: refused */
    c = load_text("pat.lua", "local s = string.rep('a', 100000)\nreturn s:find('.-.-.-.-b')\n", NULL, err, sizeof err);
    CHECK(c == NULL);
    CHECK_CONTAINS(err, "pat.lua:2: string.find: refused");
    /* finalizers run with hooks off, so __gc is refused */
    c = load_text("gc.lua", "setmetatable({}, { __gc = function() while true do end end })\n", NULL, err, sizeof err);
    CHECK(c == NULL);
    CHECK_CONTAINS(err, "gc.lua:1: setmetatable: __gc");
    CHECK(seconds_now() - t0 < 10.0);
}

static void memory_bombs_are_stopped_by_the_cap(void)
{
    char err[DEMO_ERROR_MAX] = "";
    demo_limits lim = {.memory = (size_t)8 << 20};
    demo_character *c = load_text("bomb.lua", "local t = {}\nfor i = 1, 1e9 do t[i] = string.rep('x', 1000) .. i end\n",
                                  &lim, err, sizeof err);
    CHECK(c == NULL);
    /* the shared sandbox (bindings/sandbox.h) also names the line */
    CHECK_CONTAINS(err, "bomb.lua:2: memory cap of 8192 KiB exceeded");
    c = load_text("bomb2.lua", "local s = string.rep('x', 1 << 30)\n", &lim, err, sizeof err);
    CHECK(c == NULL);
    CHECK_CONTAINS(err, "memory cap");
    /* a script that catches the memory error and returns is still refused */
    c = load_text("bomb3.lua", "pcall(string.rep, 'x', 1 << 30)\nreturn 42\n", &lim, err, sizeof err);
    CHECK(c == NULL);
    CHECK_CONTAINS(err, "memory cap");
    /* core objects count too: a rig description of 100000 joints */
    c = load_text("bomb4.lua",
                  "local j = {}\nfor i = 1, 100000 do j[i] = { name = 'j' .. i, parent = i > 1 and i - 1 or nil } end\n"
                  "return { rig = blendwerk.rig { joints = j }, clips = {} }\n",
                  &lim, err, sizeof err);
    CHECK(c == NULL);
    CHECK_CONTAINS(err, "memory cap");
}

static void sandbox_has_no_way_out(void)
{
    char err[DEMO_ERROR_MAX] = "";
    /* every assert must hold for the load to succeed */
    const char *script =
        "assert(io == nil and debug == nil and package == nil)\n"
        "assert(os.execute == nil and os.getenv == nil and os.exit == nil and os.remove == nil and os.clock)\n"
        "assert(dofile == nil and loadfile == nil and string.dump == nil)\n"
        "local f, e = load('\\27Lua\\84\\0\\25\\147', 'x', 'b')\n"
        "assert(f == nil and e:find('binary'), e)\n"
        "assert(load('return 1 + 1')() == 2)\n"
        "assert(not pcall(require, 'io'))\n"
        "assert(require('blendwerk') == blendwerk)\n"
        "local ok, e2 = pcall(include, '../escape.lua')\n"
        "assert(not ok and e2:find('leaves'), e2)\n"
        "local ok3, e3 = pcall(blendwerk.load, '/etc/passwd')\n"
        "assert(not ok3 and e3:find('absolute'), e3)\n"
        "assert(('arm_l'):gsub('_l$', '_r') == 'arm_r')\n"
        "assert(('a.b'):find('.', 1, true) == 2)\n"
        "assert(demo.script == 'box.lua' and demo.asset == nil)\n"
        "print('hello from the sandbox')\n"
        "local rig = blendwerk.rig { joints = { { name = 'root' } } }\n"
        "local c = blendwerk.clip { name = 'c', joints = { { joint = 'root', keys = { { time = 0, t = { 0, 1, 0 } } } } } }\n"
        "return { rig = rig, clips = { c } }\n";
    demo_character *c = load_text("box.lua", script, NULL, err, sizeof err);
    CHECK(c != NULL);
    if (!c) fprintf(stderr, "sandbox script: %s\n", err);
    demo_character_destroy(c);
    /* a failed assert says where */
    c = load_text("assert.lua", "local x = 1\nassert(x == 2, 'x is not 2')\n", NULL, err, sizeof err);
    CHECK(c == NULL);
    CHECK_STR(err, "assert.lua:2: x is not 2");
    /* an error object that is not a string */
    c = load_text("table.lua", "error({})\n", NULL, err, sizeof err);
    CHECK(c == NULL);
    CHECK_STR(err, "table.lua:1: (error object is a table value)");
}

static void bad_returned_values_are_named(void)
{
    char err[DEMO_ERROR_MAX] = "";
    static const struct {
        const char *tail;
        const char *want;
    } cases[] = {
        {"return 42", "ret.lua: returned value: the script must return a table"},
        {"return { rig = rig, clips = {} }", "ret.lua: returned value: clips: the list is empty"},
        {"return { rig = c, clips = { c } }", "ret.lua: returned value: rig: expected a blendwerk.Rig"},
        {"return { rig = rig, clips = { c, c } }", "ret.lua: returned value: clips[2]: the name 'c' repeats clips[1]'s"},
        {"return { rig = rig, clips = { c }, colour = 1 }", "returned table: unknown field 'colour'"},
        {"return { rig = rig, clips = { c }, scene = { play = { { clip = 'c', prio = 1 } } } }",
         "scene.play[1]: unknown field 'prio'"},
        {"return { rig = rig, clips = { c }, scene = { play = { 'd' } } }", "scene.play[1]: no clip named 'd'"},
        {"return { rig = rig, clips = { c }, scene = { play = { { clip = 2 } } } }",
         "scene.play[1].clip: clip index 2 out of range 1..1"},
        {"return { rig = rig, clips = { c }, scene = { play = { { clip = 'c', weight = 0/0 } } } }",
         "scene.play[1].weight: "},
        {"return { rig = rig, clips = { c }, scene = { crossfade = -1 } }", "scene.crossfade: "},
        {"return { rig = rig, clips = { c }, scene = { ground_speed = { c = 1/0 } } }", "scene.ground_speed['c']"},
        {"rig:close() return { rig = rig, clips = { c } }", "rig: the Rig is closed"},
        {"return { rig = blendwerk.rig {}, clips = { c } }", "rig: the rig has no joints"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char script[1024];
        snprintf(script, sizeof script,
                 "local rig = blendwerk.rig { joints = { { name = 'root' } } }\n"
                 "local c = blendwerk.clip { name = 'c', joints = { { joint = 'root', keys = { { time = 0, t = { 0, 1, 0 } } } } } }\n"
                 "%s\n",
                 cases[i].tail);
        demo_character *c = load_text("ret.lua", script, NULL, err, sizeof err);
        CHECK(c == NULL);
        CHECK_CONTAINS(err, cases[i].want);
        demo_character_destroy(c);
    }
}

static void bad_arguments_get_messages(void)
{
    char err[DEMO_ERROR_MAX] = "";
    demo_character *c = NULL;
    CHECK(!demo_character_load(NULL, NULL, NULL, &c, NULL, err, sizeof err));
    CHECK_STR(err, "no script path given");
    CHECK(!demo_character_load("", NULL, NULL, &c, NULL, err, sizeof err));
    CHECK(!demo_character_load(DEFAULT_SCRIPT, NULL, NULL, NULL, NULL, err, sizeof err));
    CHECK(!demo_character_load(temp_path("missing.lua"), NULL, NULL, &c, NULL, err, sizeof err));
    CHECK_CONTAINS(err, "cannot open missing.lua");
    CHECK(c == NULL);
    /* a directory is not a script */
    CHECK(!demo_character_load(temp_dir, NULL, NULL, &c, NULL, err, sizeof err));
    CHECK_CONTAINS(err, "not a regular file");
    /* a binary chunk as the script itself is refused (text mode only) */
    write_text_file(temp_path("bin.lua"), "\x1bLua\x54");
    CHECK(!demo_character_load(temp_path("bin.lua"), NULL, NULL, &c, NULL, err, sizeof err));
    CHECK_CONTAINS(err, "binary");
    /* a memory cap too small for even the libraries */
    demo_limits tiny = {.memory = 1024};
    CHECK(!demo_character_load(DEFAULT_SCRIPT, NULL, &tiny, &c, NULL, err, sizeof err));
    CHECK(c == NULL);
    demo_limits d = demo_limits_resolve(NULL);
    CHECK_INT(d.instructions, DEMO_DEFAULT_INSTRUCTIONS);
    CHECK_INT((long long)d.memory, (long long)DEMO_DEFAULT_MEMORY);
    demo_limits nan_limits = {.seconds = NAN};
    CHECK_NEAR(demo_limits_resolve(&nan_limits).seconds, DEMO_DEFAULT_SECONDS, 0.0);
    CHECK(!demo_watch_changed(NULL));
}

static void asset_option_shows_the_fox(void)
{
    const char *fox = check_asset("Fox.glb");
    if (!fox) {
        printf("(Fox.glb not found: skipping the --asset case)\n");
        return;
    }
    char err[DEMO_ERROR_MAX] = "";
    demo_character *c = NULL;
    demo_watch watch;
    CHECK(demo_character_load(DEFAULT_SCRIPT, fox, NULL, &c, &watch, err, sizeof err));
    if (!c) {
        fprintf(stderr, "fox: %s\n", err);
        return;
    }
    /* CREDITS.md: 24 joints; clips Survey 3.42 s, Walk 0.71 s, Run 1.16 s */
    CHECK_INT(bw_rig_joint_count(c->rig), 24);
    CHECK_INT(c->clip_count, 3);
    CHECK_STR(c->clips[0].name, "Survey");
    CHECK_STR(c->clips[1].name, "Walk");
    CHECK_STR(c->clips[2].name, "Run");
    CHECK_NEAR(bw_clip_length(c->clips[1].clip), 0.7083333, 1e-4);
    CHECK_INT(watch.count, 2); /* the script and the asset */
    demo_player p;
    CHECK(demo_player_init(&p, c, err, sizeof err));
    for (int f = 0; f < 30; f++) demo_player_step(&p, DT);
    CHECK(demo_player_crossfade(&p, 2));
    for (int f = 0; f < 30; f++) demo_player_step(&p, DT);
    const demo_track *run = demo_player_find_track(&p, "Run");
    CHECK(run != NULL);
    if (run) CHECK_NEAR(bw_track_set_weight(p.set, run->handle), 1.0, 1e-5);
    for (int j = 0; j < p.pose.joint_count; j++)
        for (int k = 0; k < 3; k++) CHECK(isfinite(p.model[j][3][k]));
    demo_player_deinit(&p);
}

/* ---- the binary ---- */

static bool have_binary(void)
{
    if (access(DEMO_BINARY, X_OK) == 0) return true;
    binary_skipped = true;
    return false;
}

/* Run the demo with `args`; stdout (and stderr when `merge`) into out. */
static int run_demo(const char *args, bool merge, char *out, size_t out_size)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' %s%s", DEMO_BINARY, args, merge ? " 2>&1" : "");
    FILE *f = popen(cmd, "r");
    if (!f) return -1;
    size_t n = fread(out, 1, out_size - 1, f);
    out[n] = '\0';
    int status = pclose(f);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Times of `clip:marker@T` tokens in the output, in order. */
static int marker_times(const char *out, const char *token, double *times, int max)
{
    int n = 0;
    size_t len = strlen(token);
    for (const char *p = strstr(out, token); p && n < max; p = strstr(p + len, token))
        if (p[len] == '@') times[n++] = strtod(p + len + 1, NULL);
    return n;
}

static void headless_run_reports_the_foot_markers(void)
{
    if (!have_binary()) return;
    static char out[65536];
    int rc = run_demo("--headless --frames 120 --script '" DEFAULT_SCRIPT "'", false, out, sizeof out);
    CHECK_INT(rc, 0);
    /* one summary line per simulated second: frames 60 and 120 */
    const char *first = "t=1.000 frame=60 tracks: walk(p0 w=1.00 t=0.000) wave(p1 w=1.00 t=1.000) events:";
    CHECK(strncmp(out, first, strlen(first)) == 0);
    CHECK_CONTAINS(out, "\nt=2.000 frame=120 tracks: walk(p0 w=1.00 t=0.000) wave(p1 w=1.00 t=2.000) events:");
    int lines = 0;
    for (const char *p = out; *p; p++) lines += *p == '\n';
    CHECK_INT(lines, 2);
    double l[8], r[8];
    int nl = marker_times(out, "walk:foot_down_l", l, 8), nr = marker_times(out, "walk:foot_down_r", r, 8);
    CHECK_INT(nl, 3);
    CHECK_INT(nr, 2);
    if (nl == 3) {
        CHECK_NEAR(l[0], 0.0, 1e-3);
        CHECK_NEAR(l[1], 1.0, 1e-3);
        CHECK_NEAR(l[2], 2.0, 1e-3);
    }
    if (nr == 2) {
        CHECK_NEAR(r[0], 0.5, 1e-3);
        CHECK_NEAR(r[1], 1.5, 1e-3);
    }
    /* the 1 s line holds the first three, the 2 s line the other two */
    const char *second = strstr(out, "\nt=2.000");
    CHECK(second != NULL);
    if (second) {
        CHECK(strstr(out, "walk:foot_down_l@1.000") < second);
        CHECK(strstr(second, "walk:foot_down_r@1.500") != NULL);
    }
}

static void headless_keys_crossfade_and_fire_the_gesture(void)
{
    if (!have_binary()) return;
    static char out[65536];
    /* key 1 before frame 30: walk -> idle over 0.35 s; space before frame
     * 60: the looping wave fades out over 0.2 s, a one-shot wave starts */
    int rc = run_demo("--headless --frames 120 --keys 30:1,60:space --script '" DEFAULT_SCRIPT "'", false, out, sizeof out);
    CHECK_INT(rc, 0);
    const char *second = strstr(out, "\nt=2.000 frame=120 tracks:");
    CHECK(second != NULL);
    if (!second) return;
    /* at 2 s: idle (started at 29/60 s, so t = 2 - 29/60 = 1.517) and the
     * one-shot wave (started at 59/60 s: t = 1.017); walk and the looping
     * wave are gone */
    CHECK_CONTAINS(second, "idle(p0 w=1.00 t=1.517)");
    CHECK_CONTAINS(second, "wave(p1 w=1.00 t=1.017)");
    CHECK(strstr(second, "walk(") == NULL);
    /* The fades accumulate float steps: summing float(1/60) in float
     * (done by hand with float32 rounding) passes 0.35 after 21 steps
     * (0.35000008) and 0.2 after 12 (0.20000000). The walk's fade starts
     * on frame 30, so its weight is 0 on frame 50 and that frame's drain
     * removes it: t = 50/60; the looping wave's on frame 71: t = 71/60. */
    double stopped[2];
    CHECK_INT(marker_times(out, "walk:<stopped>", stopped, 2), 1);
    CHECK_NEAR(stopped[0], 50.0 / 60.0, 1e-3);
    double wave_stopped[2];
    CHECK_INT(marker_times(out, "wave:<stopped>", wave_stopped, 2), 1);
    CHECK_NEAR(wave_stopped[0], 71.0 / 60.0, 1e-3);
}

static void headless_screenshot_shows_the_figure(void)
{
    if (!have_binary()) return;
    static char out[65536];
    char args[1024];
    snprintf(args, sizeof args, "--headless --frames 30 --size 640x480 --screenshot '%s' --script '%s'",
             temp_path("shot.bmp"), DEFAULT_SCRIPT);
    CHECK_INT(run_demo(args, false, out, sizeof out), 0);
    FILE *f = fopen(temp_path("shot.bmp"), "rb");
    CHECK(f != NULL);
    if (!f) return;
    static unsigned char bmp[640 * 480 * 4 + 4096];
    size_t n = fread(bmp, 1, sizeof bmp, f);
    fclose(f);
    CHECK(n > 54 && bmp[0] == 'B' && bmp[1] == 'M');
    if (n <= 54) return;
    unsigned off = bmp[10] | bmp[11] << 8 | bmp[12] << 16 | (unsigned)bmp[13] << 24;
    int w = bmp[18] | bmp[19] << 8, h = (int)(bmp[22] | bmp[23] << 8 | bmp[24] << 16 | (unsigned)bmp[25] << 24);
    int bpp = bmp[28];
    CHECK_INT(w, 640);
    CHECK_INT(abs(h), 480);
    CHECK_INT(bpp, 32);
    if (w != 640 || abs(h) != 480 || bpp != 32 || off + 640u * 480u * 4u > n) return;
    /* Below 900 px the text is drawn at scale 1, so its 36-character
     * column ends at 12 + 36 * 6 = 228 px; right of it only the figure
     * and the grey ground are drawn (the grey key help along the bottom
     * aside): the figure's left limbs blue
     * (96,164,255) and right limbs orange (255,150,72), shaded by depth to
     * 55..100%; the background is (20,22,28). */
    int blue = 0, orange = 0, background = 0;
    for (int y = 0; y < 480; y++) {
        for (int x = 240; x < 640; x++) {
            const unsigned char *px = bmp + off + ((size_t)y * 640 + (size_t)x) * 4; /* B, G, R, A */
            int b = px[0], g = px[1], r = px[2];
            blue += b > 120 && r < 110 && b > r + 60;
            orange += r > 120 && b < 80 && g > 70 && g < 160;
            background += r == 20 && g == 22 && b == 28;
        }
    }
    CHECK(blue > 100);
    CHECK(orange > 100);
    CHECK(background > 400 * 480 / 2);
}

static void headless_broken_script_fails_with_its_line(void)
{
    if (!have_binary()) return;
    static char out[65536];
    write_text_file(temp_path("broken.lua"), "local bw = blendwerk\nlocal x = {\nreturn x\n");
    char args[1024];
    snprintf(args, sizeof args, "--headless --frames 10 --script '%s'", temp_path("broken.lua"));
    CHECK_INT(run_demo(args, true, out, sizeof out), 1);
    CHECK_CONTAINS(out, "broken.lua:3:");
    CHECK_INT(run_demo("--frames nope", true, out, sizeof out), 2);
    CHECK_INT(run_demo("--keys 0:space --headless", true, out, sizeof out), 2);
}

int main(void)
{
    snprintf(temp_dir, sizeof temp_dir, "/tmp/bw_test_demo_XXXXXX");
    if (!mkdtemp(temp_dir)) {
        fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    RUN(default_script_builds_the_stick_figure);
    RUN(walk_markers_fire_on_the_expected_frames);
    RUN(bad_step_input_is_harmless);
    RUN(gesture_plays_once_and_leaves);
    RUN(crossfade_back_revives_the_fading_track);
    RUN(good_edit_swaps_in_keeping_times);
    RUN(broken_edits_keep_the_old_version_and_say_where);
    RUN(removed_clip_fades_out);
    RUN(include_files_are_watched_and_reported);
    RUN(runaway_loops_are_stopped_by_the_budget);
    RUN(memory_bombs_are_stopped_by_the_cap);
    RUN(sandbox_has_no_way_out);
    RUN(bad_returned_values_are_named);
    RUN(bad_arguments_get_messages);
    RUN(asset_option_shows_the_fox);
    RUN(headless_run_reports_the_foot_markers);
    RUN(headless_keys_crossfade_and_fire_the_gesture);
    RUN(headless_screenshot_shows_the_figure);
    RUN(headless_broken_script_fails_with_its_line);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", temp_dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", temp_dir);
    int rc = check_summary();
    if (rc == 0 && binary_skipped) SKIP_ALL("blendwerk-demo was not built (no SDL2 or BW_BUILD_DEMO=OFF)");
    return rc;
}
