/* test_watch.c - the file watcher (bindings/watch.h), graph hot reload
 * (bindings/graph_reload.h) and `blendwerk watch` (cli/cmd_watch.c).
 *
 * Everything happens in a fresh temporary folder. The watcher takes the
 * caller's clock, so the debounce is driven with made-up times (no
 * sleeping, nothing timing-sensitive); inotify queues an event during the
 * write itself, so a poll right after a write sees it.
 *
 * The character (2 joints): clips "idle" (1 s), "walk" (1 s), "jump"
 * (1 s), all looping. The graph: idle -> walk at speed > 0.1 over 1 s. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__SANITIZE_ADDRESS__)
size_t __sanitizer_get_current_allocated_bytes(void); /* the sanitizer runtime's; no header on this toolchain */
#elif defined(__GLIBC__)
#include <malloc.h>
#endif

#include "blendwerk/clip.h"
#include "blendwerk/graph.h"
#include "blendwerk/pose.h"
#include "blendwerk/rig.h"
#include "check.h"
#include "fixtures.h"
#include "graph_reload.h"
#include "test_files.h"
#include "watch.h"

static char dir[256];

static const char *tmp(const char *name) { return path_in(dir, name); }

static void append_text_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "ab");
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* ---- the watcher ---- */

static void two_write_save_should_report_once_after_the_quiet_time(void)
{
    for (int polling = 0; polling < 2; polling++) {
        bw_watch_desc wd = {0.05, polling == 1};
        bw_watch *w = bw_watch_create(&wd);
        CHECK(w != NULL);
        write_text_file(tmp("two.lua"), "return 1\n");
        CHECK(bw_watch_add(w, tmp("two.lua")));
        CHECK_INT(bw_watch_count(w), 1);
        CHECK(!bw_watch_poll(w, 0.0));
        write_text_file(tmp("two.lua"), "-- first half\n"); /* the save's first write */
        CHECK(!bw_watch_poll(w, 1.00));
        append_text_file(tmp("two.lua"), "return 2\n"); /* its second write, 20 ms later */
        CHECK(!bw_watch_poll(w, 1.02));
        CHECK(!bw_watch_poll(w, 1.06)); /* 40 ms quiet: not yet */
        CHECK(bw_watch_poll(w, 1.08));  /* 60 ms quiet: once */
        CHECK(!bw_watch_poll(w, 1.09));
        CHECK(!bw_watch_poll(w, 5.0));
        CHECK(bw_watch_polling(w) == (polling == 1));
        bw_watch_destroy(w);
    }
}

static void rename_over_save_should_be_seen(void)
{
    for (int polling = 0; polling < 2; polling++) {
        bw_watch_desc wd = {0, polling == 1};
        bw_watch *w = bw_watch_create(&wd);
        write_text_file(tmp("ren.lua"), "return 1\n");
        CHECK(bw_watch_add(w, tmp("ren.lua")));
        CHECK(!bw_watch_poll(w, 0));
        write_text_file(tmp("ren.lua.tmp"), "return 22\n");
        CHECK(rename(tmp("ren.lua.tmp"), tmp("ren.lua")) == 0);
        CHECK(bw_watch_poll(w, 0.1));
        CHECK(!bw_watch_poll(w, 0.2));
        bw_watch_destroy(w);
    }
}

static void deleted_then_recreated_file_should_be_seen_both_times(void)
{
    for (int polling = 0; polling < 2; polling++) {
        bw_watch_desc wd = {0, polling == 1};
        bw_watch *w = bw_watch_create(&wd);
        write_text_file(tmp("del.lua"), "return 1\n");
        CHECK(bw_watch_add(w, tmp("del.lua")));
        CHECK(!bw_watch_poll(w, 0));
        CHECK(unlink(tmp("del.lua")) == 0);
        CHECK(bw_watch_poll(w, 0.1));
        CHECK(!bw_watch_poll(w, 0.2));
        write_text_file(tmp("del.lua"), "return 333\n");
        CHECK(bw_watch_poll(w, 0.3));
        CHECK(!bw_watch_poll(w, 0.4));
        bw_watch_destroy(w);
    }
}

static void other_files_of_the_folder_should_not_count(void)
{
    bw_watch *w = bw_watch_create(NULL);
    write_text_file(tmp("mine.lua"), "return 1\n");
    CHECK(bw_watch_add(w, tmp("mine.lua")));
    CHECK(bw_watch_add(w, tmp("mine.lua"))); /* twice: one file */
    CHECK_INT(bw_watch_count(w), 1);
    write_text_file(tmp("other.lua"), "return 2\n");
    CHECK(!bw_watch_poll(w, 0));
    CHECK(!bw_watch_poll(w, 1));
    bw_watch_clear(w);
    CHECK_INT(bw_watch_count(w), 0);
    bw_watch_destroy(w);
}

/* The stamp the watcher and the hot-reload hosts compare: -1, -1 for a
 * missing file; the size in bytes; by path and by descriptor the same. */
static void file_stamp_should_be_missing_or_time_and_size(void)
{
    bw_file_stamp none = bw_file_stamp_path(tmp("stamped-not-there.lua"));
    CHECK(none.mtime_ns == -1 && none.size == -1);
    CHECK(bw_file_stamp_fd(-1).size == -1);
    write_text_file(tmp("stamped.lua"), "return 12345\n"); /* 13 bytes */
    bw_file_stamp a = bw_file_stamp_path(tmp("stamped.lua"));
    CHECK(a.size == 13);
    struct stat st;
    CHECK(stat(tmp("stamped.lua"), &st) == 0);
    CHECK(a.mtime_ns == (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec);
    FILE *f = fopen(tmp("stamped.lua"), "rb");
    CHECK(f != NULL);
    if (f) {
        CHECK(bw_file_stamp_same(bw_file_stamp_fd(fileno(f)), a));
        fclose(f);
    }
    CHECK(!bw_file_stamp_same(a, none));
    write_text_file(tmp("stamped.lua"), "return 1\n");
    CHECK(bw_file_stamp_path(tmp("stamped.lua")).size == 9);
    remove(tmp("stamped.lua"));
}

static void missing_folder_should_fall_back_to_polling(void)
{
    bw_watch_desc wd = {0, false};
    bw_watch *w = bw_watch_create(&wd);
    CHECK(bw_watch_add(w, tmp("later/x.lua"))); /* the folder does not exist: no inotify watch */
    CHECK(bw_watch_polling(w));
    CHECK(!bw_watch_poll(w, 0));
    CHECK(mkdir(tmp("later"), 0700) == 0);
    write_text_file(tmp("later/x.lua"), "return 1\n");
    CHECK(bw_watch_poll(w, 0.1)); /* appeared */
    CHECK(!bw_watch_poll(w, 0.2));
    bw_watch_destroy(w);
}

/* ---- graph reload ---- */

static bw_rig *rig;
static bw_clip *clips[3];

static bw_clip *named_clip(const char *name, float y)
{
    static float values[3][6];
    static const float times[2] = {0, 1};
    static int n;
    float *v = values[n++];
    const float v0[6] = {0, y, 0, 1, y, 0};
    memcpy(v, v0, sizeof v0);
    bw_track_desc t = {"", "hips", BW_CHANNEL_TRANSLATION, BW_INTERP_EASED, 2, times, v, NULL, NULL};
    bw_clip_desc d = {0};
    d.name = name;
    d.tracks = &t;
    d.track_count = 1;
    d.length = 1;
    d.loop = true;
    return fixture_clip_desc(&d);
}

static void make_character(void)
{
    static const char *const names[2] = {"hips", "spine"};
    static const int parents[2] = {-1, 0};
    rig = fixture_rig(names, parents, 2);
    clips[0] = named_clip("idle", 0);
    clips[1] = named_clip("walk", 10);
    clips[2] = named_clip("jump", 20);
}

/* {STATE} is the walk state's name, {DUR} the transition's duration. */
static char *graph_text(const char *walk, const char *to, double duration)
{
    static char buf[4][2048];
    static int next;
    char *b = buf[next++ % 4];
    snprintf(b, sizeof buf[0],
             "return {\n"                                                          /* 1 */
             "  params = { speed = 0, jump = \"trigger\" },\n"                     /* 2 */
             "  layers = {\n"                                                      /* 3 */
             "    { name = \"base\", entry = \"idle\",\n"                          /* 4 */
             "      states = {\n"                                                  /* 5 */
             "        idle = { clip = \"idle\" },\n"                               /* 6 */
             "        %s = { clip = \"walk\" },\n"                                 /* 7 */
             "      },\n"                                                          /* 8 */
             "      transitions = {\n"                                             /* 9 */
             "        { from = \"idle\", to = \"%s\", when = { \"speed > 0.1\" }, duration = %g },\n" /* 10 */
             "      },\n"
             "    },\n"
             "  },\n"
             "}\n",
             walk, to, duration);
    return b;
}

static bw_graph_reload *start(const char *name, const char *text, int cursors, float fade)
{
    write_text_file(tmp(name), text);
    bw_graph_reload_desc d;
    memset(&d, 0, sizeof d);
    d.path = tmp(name);
    d.rig = rig;
    d.clips = (const bw_clip *const *)clips;
    d.clip_count = 3;
    d.cursor_count = cursors;
    d.fade = fade;
    bw_watch_desc wd = {0, false};
    d.watch = &wd;
    char err[1024];
    bw_graph_reload *r = bw_graph_reload_create(&d, err, sizeof err);
    if (!r) fprintf(stderr, "start: %s\n", err);
    return r;
}

static void frames(bw_graph_reload *r, int n, float dt, bw_pose *pose)
{
    for (int f = 0; f < n; f++)
        for (int i = 0; i < bw_graph_reload_cursor_count(r); i++) {
            bw_graph_cursor *c = bw_graph_reload_cursor(r, i);
            bw_graph_cursor_update(c, dt);
            bw_graph_cursor_evaluate(c, NULL, pose);
            bw_graph_cursor_drain(c, NULL, NULL);
        }
}

static void reload_should_keep_the_state_mid_transition_and_the_params(void)
{
    bw_graph_reload *r = start("keep.lua", graph_text("walk", "walk", 1.0), 2, 0.25f);
    CHECK(r != NULL);
    if (!r) return;
    bw_pose pose;
    bw_pose_init(&pose, rig, NULL);
    CHECK_INT(bw_graph_reload_loads(r), 1);
    bw_graph_cursor *c0 = bw_graph_reload_cursor(r, 0);
    const bw_graph *g0 = bw_graph_reload_graph(r);
    int speed = bw_graph_find_param(g0, "speed");
    CHECK(bw_graph_cursor_set_param(c0, speed, 2.0f) == BW_OK);
    frames(r, 3, 0.1f, &pose); /* cursor 0: 0.3 s into the 1 s idle -> walk; cursor 1 idle */
    bw_graph_layer_status st;
    CHECK(bw_graph_cursor_layer_status(c0, 0, &st) == BW_OK);
    CHECK_STR(bw_graph_state_name(g0, 0, st.state), "walk");
    CHECK(st.transition.active);
    double progress = st.progress;
    /* an edit: the fade becomes 2 s; through the watcher */
    write_text_file(tmp("keep.lua"), graph_text("walk", "walk", 2.0));
    CHECK_INT(bw_graph_reload_poll(r, 1.0), BW_GRAPH_RELOAD_DONE);
    CHECK_INT(bw_graph_reload_poll(r, 1.1), BW_GRAPH_RELOAD_NONE);
    CHECK_STR(bw_graph_reload_error(r), "");
    CHECK_STR(bw_graph_reload_summary(r), "base: walk kept");
    CHECK_INT(bw_graph_reload_versions(r), 1); /* the old one is gone: no cursor used it */
    const bw_graph *g1 = bw_graph_reload_graph(r);
    CHECK(g1 != g0);
    bw_graph_cursor *c1 = bw_graph_reload_cursor(r, 0);
    CHECK(bw_graph_cursor_graph(c1) == g1);
    CHECK_NEAR(bw_graph_cursor_param(c1, bw_graph_find_param(g1, "speed")), 2.0, 0);
    CHECK(bw_graph_cursor_layer_status(c1, 0, &st) == BW_OK);
    CHECK_STR(bw_graph_state_name(g1, 0, st.state), "walk");
    CHECK_NEAR(st.progress, progress, 1e-9);
    /* the crossfade goes on (0.2 s in: it fired in the first update) under the edited 2 s */
    CHECK(st.transition.active);
    CHECK(!st.transition.frozen);
    CHECK_INT(st.transition.transition, 0);
    CHECK_NEAR(st.transition.elapsed, 0.2, 1e-6);
    CHECK_NEAR(st.transition.duration, 2.0, 1e-6);
    /* cursor 1 stayed idle */
    CHECK(bw_graph_cursor_layer_status(bw_graph_reload_cursor(r, 1), 0, &st) == BW_OK);
    CHECK_STR(bw_graph_state_name(g1, 0, st.state), "idle");
    frames(r, 2, 0.1f, &pose);
    CHECK(bw_graph_cursor_layer_status(c1, 0, &st) == BW_OK);
    CHECK_NEAR(st.progress, progress + 0.2, 1e-5);
    bw_pose_deinit(&pose);
    bw_graph_reload_destroy(r);
}

static void renamed_state_should_fall_back_to_the_entry(void)
{
    bw_graph_reload *r = start("rename.lua", graph_text("walk", "walk", 0.2), 1, 0.1f);
    CHECK(r != NULL);
    if (!r) return;
    bw_pose pose;
    bw_pose_init(&pose, rig, NULL);
    bw_graph_cursor_set_param(bw_graph_reload_cursor(r, 0), bw_graph_find_param(bw_graph_reload_graph(r), "speed"), 2.0f);
    frames(r, 5, 0.1f, &pose);
    write_text_file(tmp("rename.lua"), graph_text("stroll", "stroll", 0.2));
    CHECK_INT(bw_graph_reload_now(r), BW_GRAPH_RELOAD_DONE);
    CHECK_STR(bw_graph_reload_summary(r), "base: walk gone, restarted at idle");
    bw_graph_layer_status st;
    CHECK(bw_graph_cursor_layer_status(bw_graph_reload_cursor(r, 0), 0, &st) == BW_OK);
    CHECK_STR(bw_graph_state_name(bw_graph_reload_graph(r), 0, st.state), "idle");
    CHECK(st.transition.active); /* crossfading from the walk on screen */
    /* speed is still 2: the next update takes idle -> stroll */
    frames(r, 1, 0.1f, &pose);
    CHECK(bw_graph_cursor_layer_status(bw_graph_reload_cursor(r, 0), 0, &st) == BW_OK);
    CHECK_STR(bw_graph_state_name(bw_graph_reload_graph(r), 0, st.state), "stroll");
    bw_pose_deinit(&pose);
    bw_graph_reload_destroy(r);
}

static void bad_edits_should_be_rejected_with_file_and_line(void)
{
    bw_graph_reload *r = start("bad.lua", graph_text("walk", "walk", 0.5), 1, 0.1f);
    CHECK(r != NULL);
    if (!r) return;
    bw_pose pose;
    bw_pose_init(&pose, rig, NULL);
    const bw_graph *g = bw_graph_reload_graph(r);
    bw_graph_cursor *c = bw_graph_reload_cursor(r, 0);
    CHECK(bw_graph_cursor_set_param(c, bw_graph_find_param(g, "speed"), 2.0f) == BW_OK);
    frames(r, 2, 0.1f, &pose);
    static const struct {
        const char *text, *expect;
    } bad[] = {
        {NULL, "bad.lua:10: "}, /* unknown state: filled in below */
        {"return {\n  params = { speed = 0 \n", "bad.lua:3: "},            /* syntax error */
        {"local x = nil\nreturn x.y\n", "bad.lua:2: "},                   /* runtime error */
        {"return {\n  params = { speed = 0 },\n  layers = { { name = \"base\", entry = \"idle\",\n"
         "    states = { idle = { clip = \"jmup\" } } } },\n}\n",
         "bad.lua:4: "}, /* unknown clip */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *text = bad[i].text ? bad[i].text : graph_text("walk", "jmup", 0.5);
        write_text_file(tmp("bad.lua"), text);
        bw_graph_layer_status before, after;
        bw_graph_cursor_layer_status(c, 0, &before);
        CHECK_INT(bw_graph_reload_now(r), BW_GRAPH_RELOAD_REJECTED);
        CHECK_CONTAINS(bw_graph_reload_error(r), bad[i].expect);
        if (i == 0) CHECK_CONTAINS(bw_graph_reload_error(r), "unknown state 'jmup'");
        if (i == 3) CHECK_CONTAINS(bw_graph_reload_error(r), "jmup");
        /* the last good version keeps running */
        CHECK(bw_graph_reload_graph(r) == g);
        CHECK(bw_graph_reload_cursor(r, 0) == c);
        CHECK_INT(bw_graph_reload_versions(r), 1);
        frames(r, 1, 0.1f, &pose);
        bw_graph_cursor_layer_status(c, 0, &after);
        CHECK_NEAR(after.progress, before.progress + 0.1, 1e-5);
    }
    CHECK_INT(bw_graph_reload_rejections(r), 4);
    /* fixed: accepted, the error is cleared */
    write_text_file(tmp("bad.lua"), graph_text("walk", "walk", 0.5));
    CHECK_INT(bw_graph_reload_now(r), BW_GRAPH_RELOAD_DONE);
    CHECK_STR(bw_graph_reload_error(r), "");
    bw_pose_deinit(&pose);
    bw_graph_reload_destroy(r);
}

static void bad_first_load_should_fail_with_file_and_line(void)
{
    write_text_file(tmp("first.lua"), "return {\n  oops = 1,\n}\n");
    bw_graph_reload_desc d;
    memset(&d, 0, sizeof d);
    d.path = tmp("first.lua");
    d.rig = rig;
    d.clips = (const bw_clip *const *)clips;
    d.clip_count = 3;
    char err[1024];
    CHECK(bw_graph_reload_create(&d, err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "first.lua:");
}


static void a_required_file_should_be_watched_too(void)
{
    write_text_file(tmp("req_parts.lua"), "return { walk_name = 'walk' }\n");
    char text[4096];
    snprintf(text, sizeof text, "local parts = require('req_parts')\n%s", graph_text("walk", "walk", 0.5));
    bw_graph_reload *r = start("req.lua", text, 1, 0.1f);
    CHECK(r != NULL);
    if (!r) return;
    CHECK(bw_watch_count(bw_graph_reload_watcher(r)) >= 2);
    CHECK_INT(bw_graph_reload_poll(r, 0), BW_GRAPH_RELOAD_NONE);
    write_text_file(tmp("req_parts.lua"), "error('parts are broken')\n");
    CHECK_INT(bw_graph_reload_poll(r, 1), BW_GRAPH_RELOAD_REJECTED);
    CHECK_CONTAINS(bw_graph_reload_error(r), "req_parts.lua:1: parts are broken");
    write_text_file(tmp("req_parts.lua"), "return {}\n");
    CHECK_INT(bw_graph_reload_poll(r, 2), BW_GRAPH_RELOAD_DONE);
    CHECK_STR(bw_graph_reload_error(r), "");
    bw_graph_reload_destroy(r);
}

/* A module of a module (graph -> g_parts -> g_deep): saving the innermost
 * one reloads the graph with both read anew, the characters' state
 * carried over; a broken save names that module's file and line and the
 * last good graph runs on. */
static void a_module_required_through_another_should_reload_the_graph(void)
{
    write_text_file(tmp("g_deep.lua"), "return { duration = 1 }\n");
    write_text_file(tmp("g_parts.lua"), "local deep = require('g_deep')\nreturn { duration = deep.duration }\n");
    char *body = replaced(graph_text("walk", "walk", 1.0), "duration = 1 }", "duration = parts.duration }");
    CHECK(body != NULL);
    if (!body) return;
    char text[4096];
    snprintf(text, sizeof text, "local parts = require('g_parts')\n%s", body);
    free(body);
    bw_graph_reload *r = start("g_nested.lua", text, 1, 0.0f);
    CHECK(r != NULL);
    if (!r) return;
    CHECK_INT(bw_watch_count(bw_graph_reload_watcher(r)), 3); /* the graph and both modules */
    bw_pose pose;
    bw_pose_init(&pose, rig, NULL);
    bw_graph_cursor *c = bw_graph_reload_cursor(r, 0);
    CHECK(bw_graph_cursor_set_param(c, bw_graph_find_param(bw_graph_reload_graph(r), "speed"), 2.0f) == BW_OK);
    frames(r, 3, 0.1f, &pose); /* the 1 s idle -> walk fired in the first update: 0.2 s in */
    bw_graph_layer_status st;
    CHECK(bw_graph_cursor_layer_status(c, 0, &st) == BW_OK);
    CHECK(st.transition.active);
    CHECK_NEAR(st.transition.duration, 1.0, 1e-6);
    CHECK_INT(bw_graph_reload_poll(r, 0), BW_GRAPH_RELOAD_NONE);
    write_text_file(tmp("g_deep.lua"), "return { duration = 4 }\n");
    CHECK_INT(bw_graph_reload_poll(r, 1), BW_GRAPH_RELOAD_DONE);
    c = bw_graph_reload_cursor(r, 0);
    CHECK(bw_graph_cursor_layer_status(c, 0, &st) == BW_OK);
    CHECK_STR(bw_graph_state_name(bw_graph_reload_graph(r), 0, st.state), "walk");
    CHECK(st.transition.active);
    CHECK_NEAR(st.transition.elapsed, 0.2, 1e-6);  /* carried over */
    CHECK_NEAR(st.transition.duration, 4.0, 1e-6); /* the module's new number */
    CHECK_NEAR(bw_graph_cursor_param(c, bw_graph_find_param(bw_graph_reload_graph(r), "speed")), 2.0, 0);
    write_text_file(tmp("g_deep.lua"), "return {\n  duration = = 3 }\n");
    CHECK_INT(bw_graph_reload_poll(r, 2), BW_GRAPH_RELOAD_REJECTED);
    CHECK_CONTAINS(bw_graph_reload_error(r), "g_deep.lua:2: unexpected symbol near '='");
    CHECK(bw_graph_reload_cursor(r, 0) == c); /* the last good version runs on */
    frames(r, 1, 0.1f, &pose);
    CHECK(bw_graph_cursor_layer_status(c, 0, &st) == BW_OK);
    CHECK_NEAR(st.transition.elapsed, 0.3, 1e-6);
    CHECK_NEAR(st.transition.duration, 4.0, 1e-6);
    bw_pose_deinit(&pose);
    bw_graph_reload_destroy(r);
}

static long long live_bytes(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return (long long)__sanitizer_get_current_allocated_bytes();
#elif defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    return (long long)mallinfo2().uordblks;
#else
    return -1;
#endif
}

static void thousand_saves_should_leave_memory_flat(void)
{
    bw_graph_reload *r = start("many.lua", graph_text("walk", "walk", 0.5), 2, 0.1f);
    CHECK(r != NULL);
    if (!r) return;
    bw_pose pose;
    bw_pose_init(&pose, rig, NULL);
    long long base = 0;
    for (int i = 0; i < 1100; i++) {
        if (i == 100) base = live_bytes();
        /* alternate a good edit, a rename and a bad edit */
        const char *text = i % 3 == 0   ? graph_text("walk", "walk", 0.5)
                           : i % 3 == 1 ? graph_text("stroll", "stroll", 0.5)
                                        : graph_text("walk", "nope", 0.5);
        write_text_file(tmp("many.lua"), text);
        bw_graph_reload_result res = bw_graph_reload_poll(r, (double)i);
        CHECK_INT(res, i % 3 == 2 ? BW_GRAPH_RELOAD_REJECTED : BW_GRAPH_RELOAD_DONE);
        frames(r, 1, 0.01f, &pose);
    }
    long long grown = live_bytes() - base;
    printf("1000 saves: live bytes grew by %lld\n", grown);
    if (base >= 0) CHECK(grown < 64 * 1024);
    CHECK_INT(bw_graph_reload_versions(r), 1);
    CHECK_INT(bw_graph_reload_loads(r), 1 + 734);
    bw_pose_deinit(&pose);
    bw_graph_reload_destroy(r);
}


/* ---- blendwerk watch ---- */

#define BIN BW_BINARY_DIR "/blendwerk"

/* Save the way editors do: write a temporary file, rename it over. */
static void save_renaming(const char *path, const char *text)
{
    char t[1100];
    snprintf(t, sizeof t, "%s.tmp", path);
    write_text_file(t, text);
    if (rename(t, path) != 0) perror("rename");
}

/* Read lines from the child until one contains `what` (or output ends);
 * every line read is appended to log. */
static bool wait_for_line(FILE *from, const char *what, char *log, size_t log_size)
{
    char line[2048];
    while (fgets(line, sizeof line, from)) {
        size_t n = strlen(log);
        snprintf(log + n, log_size - n, "%s", line);
        if (strstr(line, what)) return true;
    }
    return false;
}

static void watch_command_should_print_reload_and_rejection_lines(void)
{
    char src[1200];
    snprintf(src, sizeof src, "%s/graphs/locomotion.lua", BW_SOURCE_DIR);
    char *original = slurp(src);
    CHECK(original != NULL);
    if (!original) return;
    const char *graph = tmp("locomotion.lua");
    write_text_file(graph, original);
    /* the line of the first transition, which the bad edit breaks */
    const char *tr = strstr(original, "{ from = \"idle\", to = \"walk\"");
    CHECK(tr != NULL);
    if (!tr) {
        free(original);
        return;
    }
    int line = 1;
    for (const char *p = original; p < tr; p++) line += *p == '\n';
    char asset[1200];
    snprintf(asset, sizeof asset, "%s/scripts/humanoid.lua", BW_SOURCE_DIR);
    int in[2], out[2];
    CHECK(pipe(in) == 0 && pipe(out) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[1]);
        close(out[0]);
        /* no --seconds: the test ends it by closing stdin */
        execl(BIN, BIN, "watch", graph, "--asset", asset, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    FILE *from = fdopen(out[0], "r");
    static char log[1 << 14];
    log[0] = '\0';
    CHECK(wait_for_line(from, "watching ", log, sizeof log));
    char *edit = replaced(original, "duration = 0.25", "duration = 0.3");
    CHECK(edit != NULL);
    save_renaming(graph, edit ? edit : original);
    free(edit);
    CHECK(wait_for_line(from, "reloaded ", log, sizeof log));
    char expect[1400];
    snprintf(expect, sizeof expect, "reloaded %s in ", graph);
    CHECK_CONTAINS(log, expect);
    CHECK_CONTAINS(log, " ms; base: idle kept\n");
    edit = replaced(original, "to = \"walk\"", "to = \"wlak\"");
    CHECK(edit != NULL);
    write_text_file(graph, edit ? edit : original);
    free(edit);
    CHECK(wait_for_line(from, "still running", log, sizeof log));
    snprintf(expect, sizeof expect, "%s:%d: layers[1].transitions[1].to: unknown state 'wlak' (still running the previous version)\n",
             graph, line);
    CHECK_CONTAINS(log, expect);
    close(in[1]); /* end of input: the command ends */
    int status = -1;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    fclose(from);
    /* --seconds ends it without input (stdin is ignored then) */
    write_text_file(graph, original);
    free(original);
    char cmd[4000];
    snprintf(cmd, sizeof cmd, "'%s' watch '%s' --asset '%s' --seconds 0.2 --poll > '%s' 2>&1 < /dev/null", BIN, graph, asset,
             tmp("seconds.txt"));
    CHECK(system(cmd) == 0);
    char *printed = slurp(tmp("seconds.txt"));
    CHECK(printed && strstr(printed, "(polling)"));
    free(printed);
    /* with the example's timeline: its entries apply (no problem printed) */
    snprintf(cmd, sizeof cmd, "'%s' watch '%s' --asset '%s' --timeline '%s/graphs/locomotion.timeline.lua' --seconds 0.3 > '%s' 2>&1 < /dev/null",
             BIN, graph, asset, BW_SOURCE_DIR, tmp("timeline.txt"));
    CHECK(system(cmd) == 0);
    printed = slurp(tmp("timeline.txt"));
    CHECK(printed && strstr(printed, "watching ") && !strstr(printed, ".lua:"));
    free(printed);
    /* a graph that does not load: exit 1 with its line */
    write_text_file(tmp("broken.lua"), "return {\n  params = { speed = },\n}\n");
    snprintf(cmd, sizeof cmd, "'%s' watch '%s' --asset '%s' --seconds 0.2 > '%s' 2>&1 < /dev/null", BIN, tmp("broken.lua"),
             asset, tmp("broken.txt"));
    int rc = system(cmd);
    CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 1);
    printed = slurp(tmp("broken.txt"));
    CHECK(printed && strstr(printed, "broken.lua:2:"));
    free(printed);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/bw_test_watch_XXXXXX");
    if (!mkdtemp(dir)) SKIP_ALL("no temporary folder");
    make_character();
    RUN(two_write_save_should_report_once_after_the_quiet_time);
    RUN(rename_over_save_should_be_seen);
    RUN(deleted_then_recreated_file_should_be_seen_both_times);
    RUN(other_files_of_the_folder_should_not_count);
    RUN(file_stamp_should_be_missing_or_time_and_size);
    RUN(missing_folder_should_fall_back_to_polling);
    RUN(reload_should_keep_the_state_mid_transition_and_the_params);
    RUN(renamed_state_should_fall_back_to_the_entry);
    RUN(bad_edits_should_be_rejected_with_file_and_line);
    RUN(bad_first_load_should_fail_with_file_and_line);
    RUN(a_required_file_should_be_watched_too);
    RUN(a_module_required_through_another_should_reload_the_graph);
    RUN(thousand_saves_should_leave_memory_flat);
    RUN(watch_command_should_print_reload_and_rejection_lines);
    for (int i = 0; i < 3; i++) bw_clip_destroy(clips[i]);
    bw_rig_destroy(rig);
    remove_tree(dir);
    return check_summary();
}
