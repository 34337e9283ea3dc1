/* test_timeline.c - the timeline reader (bindings/timeline.h) on its own:
 * a file read against a compiled graph gives the actions worked out by
 * hand, and a read that runs out of the sandbox's memory is a printed
 * problem, not a Lua panic (the hosts call it outside a protected call).
 * Problems go to the timeline's report callback, raw, or by default to
 * stderr with the file's names escaped. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blendwerk/blendwerk.h"
#include "check.h"
#include "fixtures.h"
#include "graph_fixtures.h"
#include "sandbox.h"
#include "test_files.h"
#include "timeline.h"

static char dir[256], path[512];

/* One layer "base" with the clip state "idle" (and, when `second` is not
 * NULL, a second state of that name with no transition to it), one float
 * parameter "speed". */
static bw_graph *graph_with_states(bw_clip **clip_out, const char *second)
{
    static const float times[2] = {0, 1}, values[6] = {0, 0, 0, 1, 0, 0};
    bw_track_desc track = {"", "root", BW_CHANNEL_TRANSLATION, BW_INTERP_EASED, 2, times, values, NULL, NULL};
    bw_clip *clip = fixture_clip(&track, 1);
    bw_graph_param_desc params[1] = {{"speed", BW_GRAPH_PARAM_FLOAT, 0, 0, false}};
    bw_graph_state_desc states[2] = {{.name = "idle", .clip = 0}, {.name = second, .clip = 0}};
    bw_graph_layer_desc layer = graph_fixture_layer("base", "idle", states, second ? 2 : 1, NULL, 0);
    bw_graph_desc d = {0};
    d.params = params;
    d.param_count = 1;
    d.layers = &layer;
    d.layer_count = 1;
    d.clips = (const bw_clip *const *)&clip;
    d.clip_count = 1;
    *clip_out = clip;
    return graph_fixture_compile(&d);
}

static bw_graph *tiny_graph(bw_clip **clip_out) { return graph_with_states(clip_out, NULL); }

/* stderr into dir/name between capture_begin and capture_end, which
 * returns what was written (malloc'ed; NULL recorded as a failure). */
typedef struct capture {
    char log[600];
    int saved;
    FILE *to;
} capture;

static void capture_begin(capture *c, const char *name)
{
    snprintf(c->log, sizeof c->log, "%s/%s", dir, name);
    fflush(stderr);
    c->saved = dup(2);
    c->to = fopen(c->log, "w");
    CHECK(c->saved >= 0 && c->to != NULL);
    if (c->to) dup2(fileno(c->to), 2);
}

static char *capture_end(capture *c)
{
    fflush(stderr);
    if (c->saved >= 0) dup2(c->saved, 2);
    if (c->saved >= 0) close(c->saved);
    if (c->to) fclose(c->to);
    char *text = slurp(c->log);
    CHECK(text != NULL);
    return text;
}

/* Write `text` as dir/name (its path in file) and load it as a timeline
 * in its own sandbox; NULL (recorded) when that fails. */
static bw_sandbox *load_text(const char *name, const char *text, char *file, size_t file_size)
{
    snprintf(file, file_size, "%s/%s", dir, name);
    CHECK(write_text_file(file, text));
    char err[1024];
    bw_sandbox *sb = bw_timeline_load(file, err, sizeof err);
    CHECK(sb != NULL);
    if (!sb) fprintf(stderr, "%s\n", err);
    return sb;
}

/* dt 0.5 and 4 frames; two entries, each setting speed: two actions, the
 * first at 0 (applied when reading from 0.25 on), the second at 1.5. */
static void a_timeline_reads_into_its_actions(void)
{
    bw_clip *clip = NULL;
    bw_graph *g = tiny_graph(&clip);
    char err[1024];
    bw_sandbox *sb = bw_timeline_load(path, err, sizeof err);
    CHECK(sb != NULL);
    if (!sb) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    lua_State *L = bw_sandbox_state(sb);
    bw_timeline tl;
    memset(&tl, 0, sizeof tl);
    CHECK(bw_timeline_read(&tl, L, g, path, 0.25));
    CHECK_NEAR(tl.dt, 0.5, 0.0);
    CHECK_INT((int)tl.frames, 4);
    CHECK_INT(tl.entry_count, 2);
    CHECK_INT(tl.act_count, 2);
    CHECK_INT(tl.line[0], 2);
    CHECK_INT(tl.line[1], 3);
    CHECK(tl.acts[0].done && !tl.acts[1].done);

    /* at the memory cap (every growth refused) the read fails with a
     * printed problem and returns; the process goes on */
    lua_gc(L, LUA_GCCOLLECT); /* no garbage left for an emergency collection to free */
    size_t old = bw_sandbox_set_memory_cap(sb, bw_sandbox_memory_used(sb));
    CHECK(!bw_timeline_read(&tl, L, g, path, -1));
    CHECK(tl.errors >= 1);
    bw_sandbox_set_memory_cap(sb, old);
    CHECK(bw_timeline_read(&tl, L, g, path, -1));
    CHECK_INT(tl.act_count, 2);
    CHECK(!tl.acts[0].done && !tl.acts[1].done);
    CHECK_INT(lua_gettop(L), 1); /* the table is left where it was */
    bw_timeline_free(&tl);
    bw_sandbox_destroy(sb);
    bw_graph_destroy(g);
    bw_clip_destroy(clip);
}

/* More than BW_TIMELINE_MAX_ENTRIES entries: one printed problem, no
 * actions reserved. */
static void a_timeline_of_too_many_entries_is_refused(void)
{
    char big[600], text[256];
    snprintf(text, sizeof text,
             "local t = { dt = 0.5, frames = 2 }\nfor i = 1, %d do t[i] = { at = 0 } end\nreturn t\n",
             BW_TIMELINE_MAX_ENTRIES + 1);
    bw_clip *clip = NULL;
    bw_graph *g = tiny_graph(&clip);
    bw_sandbox *sb = load_text("big.timeline.lua", text, big, sizeof big);
    if (sb) {
        bw_timeline tl;
        memset(&tl, 0, sizeof tl);
        CHECK(!bw_timeline_read(&tl, bw_sandbox_state(sb), g, big, -1));
        CHECK_INT(tl.errors, 1);
        CHECK(tl.acts == NULL && tl.act_count == 0);
        bw_timeline_free(&tl);
        bw_sandbox_destroy(sb);
    }
    bw_graph_destroy(g);
    bw_clip_destroy(clip);
}

/* 5,000 entries, each setting speed to its index: 5,000 actions in
 * order (the list grows from 64 by doubling; it used to be reserved as
 * entries × (params + layers + 7) in an int, which a large graph could
 * overflow). */
static void a_long_timeline_keeps_every_action(void)
{
    char long_path[600];
    bw_clip *clip = NULL;
    bw_graph *g = tiny_graph(&clip);
    bw_sandbox *sb = load_text("long.timeline.lua",
                               "local t = { dt = 0.5, frames = 2 }\n"
                               "for i = 1, 5000 do t[i] = { at = i * 0.001, set = { speed = i } } end\n"
                               "return t\n",
                               long_path, sizeof long_path);
    if (sb) {
        bw_timeline tl;
        memset(&tl, 0, sizeof tl);
        CHECK(bw_timeline_read(&tl, bw_sandbox_state(sb), g, long_path, -1));
        CHECK_INT(tl.entry_count, 5000);
        CHECK_INT(tl.act_count, 5000);
        int wrong = 0;
        for (int a = 0; a < tl.act_count; a++)
            wrong += tl.acts[a].kind != BW_TL_ACT_SET || tl.acts[a].entry != a || tl.acts[a].value != (float)(a + 1);
        CHECK_INT(wrong, 0);
        CHECK(tl.act_capacity >= 5000 && tl.act_capacity < 10000);
        bw_timeline_free(&tl);
        bw_sandbox_destroy(sb);
    }
    bw_graph_destroy(g);
    bw_clip_destroy(clip);
}

/* Numbers a float cannot hold (found by fuzz/fuzz_timeline.c): the
 * actions and the cursor take floats, so 1e300 arrived as infinity - a
 * turn of -1e39 made the demo's yaw NaN, a dt of 1e300 an update the
 * cursor ignores - and each is now a printed problem at its line. Line 5's
 * 3.4e38 is below FLT_MAX (3.4028235e38): kept, the one action. The bad dt
 * leaves the default 1/60. */
static void numbers_beyond_a_float_are_refused_at_their_line(void)
{
    char file[600];
    bw_clip *clip = NULL;
    bw_graph *g = tiny_graph(&clip);
    bw_sandbox *sb = load_text("huge.timeline.lua",
                               "return { dt = 1e300, frames = 2,\n"
                               "  { at = 0, set = { speed = 1e39 } },\n"
                               "  { at = 0, yaw = 1e300, turn = -1e39 },\n"
                               "  { at = 0, layer_weight = { base = 1e39 }, fade = 1e300 },\n"
                               "  { at = 0, yaw = 3.4e38 },\n"
                               "}\n",
                               file, sizeof file);
    if (sb) {
        bw_timeline tl;
        memset(&tl, 0, sizeof tl);
        capture c;
        capture_begin(&c, "huge.log");
        bool ok = bw_timeline_read(&tl, bw_sandbox_state(sb), g, file, -1);
        char *text = capture_end(&c);
        CHECK(!ok);
        CHECK_INT(tl.errors, 6);
        CHECK_NEAR(tl.dt, 1.0 / 60.0, 0.0);
        CHECK_INT(tl.act_count, 1);
        CHECK(tl.act_count == 1 && tl.acts[0].kind == BW_TL_ACT_YAW && tl.acts[0].value == 3.4e38f);
        if (text) {
            char want[800];
            const char *lines[6] = {":1: dt must be a finite number within +-3.4e38\n",
                                    ":2: set: a value must be a finite number within +-3.4e38 or a boolean\n",
                                    ":3: yaw must be a finite number within +-3.4e38\n",
                                    ":3: turn must be a finite number within +-3.4e38\n",
                                    ":4: fade must be a finite number within +-3.4e38\n",
                                    ":4: layer_weight: a weight must be a finite number >= 0 (at most 3.4e38)\n"};
            for (int i = 0; i < 6; i++) {
                snprintf(want, sizeof want, "%s%s", file, lines[i]);
                CHECK_CONTAINS(text, want);
            }
            free(text);
        }
        bw_timeline_free(&tl);
        bw_sandbox_destroy(sb);
    }
    bw_graph_destroy(g);
    bw_clip_destroy(clip);
}

/* A frame count out of range is a printed problem and no count (found by
 * fuzz/fuzz_timeline.c: dt 1/5.6e64 with duration 7 is 3.9e64 frames,
 * which no long holds): frames = 1e15 used to be kept as 1e15 frames
 * beside its problem, and the 3.9e64 one converted out of a long's range
 * (undefined behaviour). Each file: one problem, 0 frames. */
/* A name holding a NUL byte is refused where it is written: C would read
 * "speed\0x" as "speed" (it set that parameter; "fire\0x" was taken as the
 * field fire, then read as nothing: the entry did nothing, silently). An
 * `at` beyond a float is one problem, not also "at is missing". */
static void names_with_a_nul_byte_and_a_huge_at_are_refused_once(void)
{
    char file[600];
    bw_clip *clip = NULL;
    bw_graph *g = tiny_graph(&clip);
    bw_sandbox *sb = load_text("nul.timeline.lua",
                               "return { dt = 1/60, frames = 2,\n"
                               "  { at = 0, [\"fire\\0x\"] = 'jump' },\n"
                               "  { at = 0, set = { [\"speed\\0x\"] = 1 } },\n"
                               "  { at = 0, layer_weight = { [\"base\\0x\"] = 1 } },\n"
                               "  { at = 1e300 },\n"
                               "  { at = 0, layer = \"base\\0x\", travel = 'idle' },\n"
                               "}\n",
                               file, sizeof file);
    if (sb) {
        bw_timeline tl;
        memset(&tl, 0, sizeof tl);
        capture c;
        capture_begin(&c, "nul.log");
        bool ok = bw_timeline_read(&tl, bw_sandbox_state(sb), g, file, -1);
        char *text = capture_end(&c);
        CHECK(!ok);
        CHECK_INT(tl.errors, 5);
        CHECK_INT(tl.act_count, 0);
        if (text) {
            char want[800];
            const char *lines[5] = {
                ":2: entry 1: the name 'fire' is followed by a NUL byte (names cannot hold one)\n",
                ":3: set: the name 'speed' is followed by a NUL byte (names cannot hold one)\n",
                ":4: layer_weight: the name 'base' is followed by a NUL byte (names cannot hold one)\n",
                ":5: at must be a finite number within +-3.4e38\n",
                ":6: layer: the name 'base' is followed by a NUL byte (names cannot hold one)\n"};
            for (int i = 0; i < 5; i++) {
                snprintf(want, sizeof want, "%s%s", file, lines[i]);
                CHECK_CONTAINS(text, want);
            }
            CHECK(strstr(text, "missing") == NULL);
            free(text);
        }
        bw_timeline_free(&tl);
        bw_sandbox_destroy(sb);
    }
    bw_graph_destroy(g);
    bw_clip_destroy(clip);
}

static void a_frame_count_out_of_range_counts_no_frames(void)
{
    static const char *const texts[2] = {"return { dt = 1, frames = 1e15 }\n",
                                         "return { dt = 1 / 5.6e64, duration = 7 }\n"};
    bw_clip *clip = NULL;
    bw_graph *g = tiny_graph(&clip);
    char file[600];
    for (int i = 0; i < 2; i++) {
        bw_sandbox *sb = load_text("count.timeline.lua", texts[i], file, sizeof file);
        if (!sb) continue;
        bw_timeline tl;
        memset(&tl, 0, sizeof tl);
        CHECK(!bw_timeline_read(&tl, bw_sandbox_state(sb), g, file, -1));
        CHECK_INT(tl.errors, 1);
        CHECK_NEAR((double)tl.frames, 0.0, 0.0);
        bw_timeline_free(&tl);
        bw_sandbox_destroy(sb);
    }
    bw_graph_destroy(g);
    bw_clip_destroy(clip);
}

/* Names with control bytes, quoted by the reader's messages: an ESC
 * sequence as a parameter name (line 2: the key's line) and a line break
 * in a layer name (line 3: the entry's). */
static const char *const hostile_text = "return { dt = 0.5, frames = 2,\n"
                                        "  { at = 0, set = { [\"\\27[2J\"] = 1 } },\n"
                                        "  { at = 0, layer_weight = { [\"a\\nb\"] = 1 } },\n"
                                        "}\n";

/* hostile_text read `reads` times against tiny_graph, with the report
 * `fn` / `user` set before the first read: what reached stderr meanwhile
 * (free it; "" recorded as a failure when the file did not load), the
 * last read's error count in *errors, each read recorded as failing. */
static char *read_hostile(const char *name, bw_timeline_report_fn fn, void *user, int reads, int *errors)
{
    char file[600];
    bw_clip *clip = NULL;
    bw_graph *g = tiny_graph(&clip);
    bw_sandbox *sb = load_text(name, hostile_text, file, sizeof file);
    char *text = NULL;
    *errors = -1;
    if (sb) {
        bw_timeline tl;
        memset(&tl, 0, sizeof tl);
        tl.report = fn;
        tl.report_user = user;
        capture c;
        capture_begin(&c, "hostile.log");
        for (int i = 0; i < reads; i++) CHECK(!bw_timeline_read(&tl, bw_sandbox_state(sb), g, file, -1));
        text = capture_end(&c);
        *errors = tl.errors;
        CHECK(tl.report == fn && tl.report_user == user); /* kept by the reads */
        bw_timeline_free(&tl);
        CHECK(tl.report == NULL);
        bw_sandbox_destroy(sb);
    }
    bw_graph_destroy(g);
    bw_clip_destroy(clip);
    return text;
}

/* With no report set, each problem is one line on stderr, "FILE:LINE: "
 * and the message, every control byte of the path and the message as
 * \xNN: exactly these two lines and nothing else. */
static void control_bytes_in_names_print_escaped_by_default(void)
{
    int errors = 0;
    char *text = read_hostile("hostile.timeline.lua", NULL, NULL, 1, &errors);
    CHECK_INT(errors, 2);
    char want[1600];
    const char *file = path_in(dir, "hostile.timeline.lua");
    snprintf(want, sizeof want, "%s:2: set: unknown parameter '\\x1b[2J'\n%s:3: unknown layer 'a\\x0ab'\n", file, file);
    CHECK_STR(text ? text : "", want);
    free(text);
    /* the default printer on its own: the path escaped too, no line -> "PATH: " */
    capture c;
    capture_begin(&c, "direct.log");
    bw_timeline_report_stderr(NULL, "t\a.lua", 0, "bad\r\x7f");
    bw_timeline_report_stderr(NULL, "t.lua", 12, "fine 'walk'");
    text = capture_end(&c);
    CHECK_STR(text ? text : "", "t\\x07.lua: bad\\x0d\\x7f\nt.lua:12: fine 'walk'\n");
    free(text);
}

typedef struct reported {
    int count;
    const void *user;
    char path[600];
    int line[8];
    char message[8][200];
} reported;

static void record(void *user, const char *file, int line, const char *message)
{
    reported *r = (reported *)user;
    r->user = user;
    if (r->count < 8) {
        snprintf(r->path, sizeof r->path, "%s", file);
        r->line[r->count] = line;
        snprintf(r->message[r->count], sizeof r->message[0], "%s", message);
    }
    r->count++;
}

/* A report callback receives each problem's path, line and message,
 * the message raw (the names as written, no prefix, no newline), and
 * nothing reaches stderr; a second read keeps the callback. A travel with
 * no route (to the state "mo<ESC>ve", which no transition reaches) is
 * reported from the apply on its entry's line, through the callback and,
 * without one, escaped on stderr. */
static void a_report_callback_receives_the_raw_problems(void)
{
    reported r;
    memset(&r, 0, sizeof r);
    int errors = 0;
    char *text = read_hostile("hostile2.timeline.lua", record, &r, 2, &errors);
    CHECK_STR(text ? text : "", "");
    free(text);
    CHECK_INT(errors, 2);
    CHECK_INT(r.count, 4);
    CHECK(r.user == &r);
    CHECK_STR(r.path, path_in(dir, "hostile2.timeline.lua"));
    for (int i = 0; i < 4; i += 2) {
        CHECK_INT(r.line[i], 2);
        CHECK_STR(r.message[i], "set: unknown parameter '\x1b[2J'");
        CHECK_INT(r.line[i + 1], 3);
        CHECK_STR(r.message[i + 1], "unknown layer 'a\nb'");
    }

    char file[600];
    bw_clip *clip = NULL;
    bw_graph *two = graph_with_states(&clip, "mo\x1bve");
    const char *names[1] = {"root"};
    const int parents[1] = {-1};
    bw_rig *rig = fixture_rig(names, parents, 1);
    bw_binding *binding = fixture_binding(clip, rig);
    bw_graph_cursor *cursor = graph_fixture_cursor(two, rig, &binding, 1, NULL);
    bw_sandbox *sb = load_text("travel.timeline.lua", "return { dt = 0.5, frames = 2,\n\n  { at = 0, travel = \"mo\\27ve\" },\n}\n",
                               file, sizeof file);
    if (sb) {
        memset(&r, 0, sizeof r);
        bw_timeline tl;
        memset(&tl, 0, sizeof tl);
        tl.report = record;
        tl.report_user = &r;
        CHECK(bw_timeline_read(&tl, bw_sandbox_state(sb), two, file, -1));
        CHECK_INT(r.count, 0);
        CHECK(!bw_timeline_apply(&tl, cursor, 0.0, 7));
        CHECK_INT(r.count, 1);
        CHECK_INT(r.line[0], 3);
        CHECK_STR(r.message[0], "travel to 'mo\x1bve' in layer 'base': no route from 'idle' (frame 7)");
        /* the same without a callback: escaped on stderr */
        tl.report = NULL;
        CHECK(bw_timeline_read(&tl, bw_sandbox_state(sb), two, file, -1));
        capture c;
        capture_begin(&c, "travel.log");
        CHECK(!bw_timeline_apply(&tl, cursor, 0.0, 7));
        text = capture_end(&c);
        char want[1200];
        snprintf(want, sizeof want, "%s:3: travel to 'mo\\x1bve' in layer 'base': no route from 'idle' (frame 7)\n", file);
        CHECK_STR(text ? text : "", want);
        free(text);
        bw_timeline_free(&tl);
        bw_sandbox_destroy(sb);
    }
    bw_graph_cursor_destroy(cursor);
    bw_binding_destroy(binding);
    bw_rig_destroy(rig);
    bw_graph_destroy(two);
    bw_clip_destroy(clip);
}

/* A layer whose weight follows a parameter ("up", weight "w") is not
 * faded by the cursor (bw_graph_cursor_set_layer_weight refuses it), so a
 * layer_weight naming it is a problem of the read at the entry's line, said
 * before anything runs; it used to read into an action whose apply did
 * nothing. The entry's other layer, "base" (a numeric weight), still reads:
 * one action, 0.5 over 1 s. */
static void a_layer_weight_on_a_parameter_weighted_layer_is_refused(void)
{
    static const float times[2] = {0, 1}, values[6] = {0, 0, 0, 1, 0, 0};
    bw_track_desc track = {"", "root", BW_CHANNEL_TRANSLATION, BW_INTERP_EASED, 2, times, values, NULL, NULL};
    bw_clip *clip = fixture_clip(&track, 1);
    bw_graph_param_desc params[1] = {{"w", BW_GRAPH_PARAM_FLOAT, 1, 0, false}};
    bw_graph_state_desc states[1] = {{.name = "idle", .clip = 0}};
    bw_graph_layer_desc layers[2] = {graph_fixture_layer("base", "idle", states, 1, NULL, 0),
                                     graph_fixture_layer("up", "idle", states, 1, NULL, 0)};
    layers[1].weight_param = "w";
    bw_graph_desc d = {0};
    d.params = params;
    d.param_count = 1;
    d.layers = layers;
    d.layer_count = 2;
    d.clips = (const bw_clip *const *)&clip;
    d.clip_count = 1;
    bw_graph *g = graph_fixture_compile(&d);
    CHECK_INT(bw_graph_layer_weight_param(g, 0), -1);
    CHECK_INT(bw_graph_layer_weight_param(g, 1), 0);
    CHECK_INT(bw_graph_layer_weight_param(g, 2), -1);
    char file[600];
    bw_sandbox *sb = load_text("weight.timeline.lua",
                               "return { dt = 0.5, frames = 2,\n"
                               "  { at = 0, layer_weight = { up = 0 }, fade = 1 },\n"
                               "  { at = 0.5, layer_weight = { base = 0.5 }, fade = 1 },\n"
                               "}\n",
                               file, sizeof file);
    if (sb && g) {
        reported r;
        memset(&r, 0, sizeof r);
        bw_timeline tl;
        memset(&tl, 0, sizeof tl);
        tl.report = record;
        tl.report_user = &r;
        CHECK(!bw_timeline_read(&tl, bw_sandbox_state(sb), g, file, -1));
        CHECK_INT(tl.errors, 1);
        CHECK_INT(r.count, 1);
        CHECK_INT(r.line[0], 2);
        CHECK_STR(r.message[0], "layer_weight: the weight of layer 'up' follows the parameter 'w': set it instead");
        CHECK_INT(tl.act_count, 1);
        if (tl.act_count == 1) {
            CHECK_INT(tl.acts[0].kind, BW_TL_ACT_WEIGHT);
            CHECK_INT(tl.acts[0].index, 0);
            CHECK_NEAR(tl.acts[0].value, 0.5f, 0);
            CHECK_NEAR(tl.acts[0].fade, 1.0f, 0);
        }
        bw_timeline_free(&tl);
    }
    bw_sandbox_destroy(sb);
    bw_graph_destroy(g);
    bw_clip_destroy(clip);
}

/* `text` read against tiny_graph with the report recording into *r
 * (cleared first); each read recorded as failing. */
static void read_recorded(const char *name, const char *text, reported *r)
{
    char file[600];
    memset(r, 0, sizeof *r);
    bw_clip *clip = NULL;
    bw_graph *g = tiny_graph(&clip);
    bw_sandbox *sb = load_text(name, text, file, sizeof file);
    if (sb) {
        bw_timeline tl;
        memset(&tl, 0, sizeof tl);
        tl.report = record;
        tl.report_user = r;
        CHECK(!bw_timeline_read(&tl, bw_sandbox_state(sb), g, file, -1));
        CHECK_INT(tl.errors, r->count);
        bw_timeline_free(&tl);
        bw_sandbox_destroy(sb);
    }
    bw_graph_destroy(g);
    bw_clip_destroy(clip);
}

/* A key that is not a string is named, not its type ("unknown field
 * 'number'" said nothing of which): [3] past a list of 1 (its own line,
 * 3), [1.5], an entry's list item "x"; and a duration a float cannot hold
 * is that one problem, no longer also "give one of duration (seconds) or
 * frames". */
static void keys_that_are_not_strings_are_named(void)
{
    reported r;
    read_recorded("gap.timeline.lua", "return { frames = 1,\n  [1] = { at = 0 },\n  [3] = { at = 0 },\n}\n", &r);
    CHECK_INT(r.count, 1);
    CHECK_INT(r.line[0], 3);
    CHECK_STR(r.message[0], "entry [3]: the entries are a list 1..N with no gaps");
    read_recorded("half.timeline.lua", "return { frames = 1,\n  [1.5] = { at = 0 } }\n", &r);
    CHECK_INT(r.count, 1);
    CHECK_INT(r.line[0], 2);
    CHECK_STR(r.message[0], "unexpected number key 1.5 (a timeline has dt, duration or frames, and entries)");
    read_recorded("dur.timeline.lua", "return { dt = 0.1, duration = 1e300,\n  { at = 0, \"x\" } }\n", &r);
    CHECK_INT(r.count, 2);
    CHECK_INT(r.line[0], 1);
    CHECK_STR(r.message[0], "duration must be a finite number within +-3.4e38");
    CHECK_INT(r.line[1], 2);
    CHECK_STR(r.message[1], "entry 1: unexpected list entry [1] (accepted fields: at, set, fire, travel, layer, "
                            "layer_weight, fade, velocity, yaw, turn, look_at, gesture)");
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/bw_test_timeline_XXXXXX");
    if (!mkdtemp(dir)) return 1;
    snprintf(path, sizeof path, "%s/t.timeline.lua", dir);
    if (!write_text_file(path, "return { dt = 0.5, frames = 4,\n"
                               "  { at = 0, set = { speed = 1 } },\n"
                               "  { at = 1.5, set = { speed = 2 } },\n"
                               "}\n"))
        return 1;
    RUN(a_timeline_reads_into_its_actions);
    RUN(a_layer_weight_on_a_parameter_weighted_layer_is_refused);
    RUN(keys_that_are_not_strings_are_named);
    RUN(a_timeline_of_too_many_entries_is_refused);
    RUN(a_long_timeline_keeps_every_action);
    RUN(numbers_beyond_a_float_are_refused_at_their_line);
    RUN(a_frame_count_out_of_range_counts_no_frames);
    RUN(names_with_a_nul_byte_and_a_huge_at_are_refused_once);
    RUN(control_bytes_in_names_print_escaped_by_default);
    RUN(a_report_callback_receives_the_raw_problems);
    remove_tree(dir);
    return check_summary();
}
