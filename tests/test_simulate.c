/* test_simulate.c - `blendwerk simulate` (SPEC §12.3) run as a user would
 * (popen on the built binary) on a glTF character written here, with the
 * JSON trace read back by cJSON (an independent parser) and compared with
 * numbers derived by hand below; plus the graph reader's FILE:LINE errors,
 * a looping predicate and a travel with no route, as the CLI reports them.
 *
 * The character (glTF, 2 joints): clips "idle" (1 s, looping), "walk"
 * (0.5 s), "jump" (1 s) — glTF clips loop unless a state says otherwise.
 * The graph is SPEC §12.1's shape: idle -> move at speed > 0.1 over 0.25 s,
 * move -> idle at speed <= 0.1, any -> jump on the trigger "jump" while
 * grounded (0.1 s, freeze), jump -> idle at exit time 0.85 with the
 * default duration 0.2, and a state "sit" no transition reaches. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "test_files.h"

#define BIN BW_BINARY_DIR "/blendwerk"
#define TOL 1e-6

static char out[1 << 20];
static char dir[256];

static const char character_gltf[] = "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"name\":\"hips\",\"children\":[1]},{\"name\":\"spine\",\"translation\":[0,1,0]}],\"buffers\":[{\"byteLength\":40,\"uri\":\"data:application/octet-stream;base64,AAAAAAAAgD8AAAAAAAAAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAA==\"}],\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":8,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":16,\"byteLength\":24}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[0.5]},{\"bufferView\":2,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],\"animations\":[{\"name\":\"idle\",\"samplers\":[{\"input\":0,\"output\":2}],\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}]},{\"name\":\"walk\",\"samplers\":[{\"input\":1,\"output\":2}],\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}]},{\"name\":\"jump\",\"samplers\":[{\"input\":0,\"output\":2}],\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}]}]}";

static const char graph_lua[] =
    "-- a graph file: { on this comment line must not confuse the line map\n" /* 1 */
    "return {\n"                                                                  /* 2 */
    "  params = { speed = 0, jump = \"trigger\", grounded = true },\n"           /* 3 */
    "  layers = {\n"                                                              /* 4 */
    "    { name = \"base\", entry = \"idle\",\n"                                  /* 5 */
    "      states = {\n"                                                          /* 6 */
    "        idle = { clip = \"idle\" },\n"                                       /* 7 */
    "        move = { clip = \"walk\" },\n"                                       /* 8 */
    "        jump = { clip = \"jump\", loop = false },\n"                         /* 9 */
    "        sit = { clip = \"idle\" },\n"                                        /* 10 */
    "      },\n"                                                                  /* 11 */
    "      transitions = {\n"                                                     /* 12 */
    "        { from = \"idle\", to = \"move\", when = { \"speed > 0.1\" }, duration = 0.25 },\n"  /* 13 */
    "        { from = \"move\", to = \"idle\", when = { \"speed <= 0.1\" }, duration = 0.25 },\n" /* 14 */
    "        { from = \"*\", to = \"jump\", when = { \"jump\", \"grounded\" }, duration = 0.1, mode = \"freeze\" },\n"
    "        { from = \"jump\", to = \"idle\", exit_time = 0.85 },\n" /* 16 */
    "      },\n"
    "    },\n"
    "  },\n"
    "}\n";

static const char timeline_lua[] = "return {\n"                                 /* 1 */
                                   "  dt = 0.1,\n"                               /* 2 */
                                   "  duration = 1.6,\n"                         /* 3 */
                                   "  { at = 0, travel = \"sit\" },\n"           /* 4: no route */
                                   "  { at = 0.1, set = { speed = 2 } },\n"      /* 5 */
                                   "  { at = 0.5, fire = \"jump\" },\n"          /* 6 */
                                   "  { at = 1.5, set = { speed = 0 } },\n"      /* 7 */
                                   "  { at = 1.5, travel = \"move\", layer = \"base\" },\n" /* 8 */
                                   "  { at = 1.0, layer_weight = { base = 0 }, fade = 0.4 },\n" /* 9 */
                                   "}\n";

static bool write_file(const char *name, const char *text) { return write_text_file(path_in(dir, name), text); }

/* Run `blendwerk simulate GRAPH --asset c.gltf --timeline TL ARGS` in dir;
 * stdout into out (merge 1: stderr too; 0: stderr dropped; 2: ARGS
 * redirect it); returns the exit status. */
static int simulate(const char *graph, const char *tl, const char *args, int merge)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' simulate %s --asset c.gltf --timeline %s %s %s", dir, BIN, graph, tl, args,
             merge == 1 ? "2>&1" : merge == 0 ? "2>/dev/null" : "");
    return capture_command(cmd, out, sizeof out);
}

/* Line k (0-based) of out, parsed; NULL when absent or not JSON. */
static cJSON *frame(int k)
{
    const char *s = out;
    for (int i = 0; i < k && s; i++) {
        s = strchr(s, '\n');
        if (s) s++;
    }
    if (!s || !*s) return NULL;
    const char *e = strchr(s, '\n');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    char *line = (char *)malloc(n + 1);
    memcpy(line, s, n);
    line[n] = '\0';
    cJSON *j = cJSON_Parse(line);
    free(line);
    return j;
}

static cJSON *get(cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }
static double num(cJSON *o, const char *k) { return cJSON_IsNumber(get(o, k)) ? get(o, k)->valuedouble : NAN; }
static const char *str(cJSON *o, const char *k) { return cJSON_IsString(get(o, k)) ? get(o, k)->valuestring : "(none)"; }
static cJSON *layer0(cJSON *f) { return cJSON_GetArrayItem(get(f, "layers"), 0); }

/* Exactly these keys, in this order. */
static void keys_are(cJSON *o, const char *const *keys, int line)
{
    int i = 0;
    cJSON *c;
    cJSON_ArrayForEach(c, o)
    {
        if (!keys[i] || strcmp(c->string, keys[i]) != 0) {
            fprintf(stderr, "%s:%d: key %d is '%s', expected '%s'\n", __FILE__, line, i, c->string, keys[i] ? keys[i] : "(end)");
            check_failures_in_test++;
            return;
        }
        i++;
    }
    if (keys[i]) {
        fprintf(stderr, "%s:%d: key '%s' missing\n", __FILE__, line, keys[i]);
        check_failures_in_test++;
    }
}

static void transition_is(cJSON *f, const char *from, const char *to, double elapsed, double duration, double weight,
                          const char *mode, int frozen)
{
    cJSON *t = get(layer0(f), "transition");
    CHECK(cJSON_IsObject(t));
    if (!cJSON_IsObject(t)) return;
    static const char *const keys[] = {"from", "to", "elapsed", "duration", "weight", "mode", "frozen", NULL};
    keys_are(t, keys, __LINE__);
    CHECK_STR(str(t, "from"), from);
    CHECK_STR(str(t, "to"), to);
    CHECK_NEAR(num(t, "elapsed"), elapsed, TOL);
    CHECK_NEAR(num(t, "duration"), duration, TOL);
    CHECK_NEAR(num(t, "weight"), weight, TOL);
    CHECK_STR(str(t, "mode"), mode);
    CHECK(cJSON_IsBool(get(t, "frozen")) && cJSON_IsTrue(get(t, "frozen")) == frozen);
}

static void event_is(cJSON *f, int i, const char *kind, const char *state)
{
    cJSON *e = cJSON_GetArrayItem(get(f, "events"), i);
    CHECK(e != NULL);
    if (!e) return;
    static const char *const keys[] = {"kind", "layer", "state", NULL};
    keys_are(e, keys, __LINE__);
    CHECK_STR(str(e, "kind"), kind);
    CHECK_STR(str(e, "layer"), "base");
    CHECK_STR(str(e, "state"), state);
}

/* The trace, frame by frame (dt 0.1; idle's cycle 1 s, walk's 0.5 s, jump's 1 s):
 *  0: travel to sit fails (stderr, timeline line 4), idle advances to p 0.1;
 *     events: enter idle.
 *  1: speed = 2 applied first; idle advances to 0.2, then idle -> move
 *     fires: elapsed 0, weight 0, move at p 0; events exit idle, enter move.
 *  2: move p 0.1/0.5 = 0.2, timer 0.1: weight 0.1/0.25 = 0.4.
 *  3: p 0.4, weight 0.8.  4: timer 0.3 >= 0.25: over (null), p 0.6.
 *  5: the trigger fired before the update: move p 0.8, then any -> jump
 *     fires (freeze: frozen), jump consumed (0 in params), jump at p 0.
 *  6: jump p 0.1, timer 0.1 = duration: over.  ... 13: p 0.8 < 0.85.
 * 14: p 0.9 >= 0.85: jump -> idle, default duration 0.2, live.
 * 15: speed 0, travel to move: the queued edge idle -> move fires at once
 *     (no exit time, conditions ignored) during idle's fade: an
 *     interruption, so frozen although its mode is live.
 * Layer weight: from frame 10 on it fades 1 -> 0 over 0.4 s: 0.75 after
 * frame 10's update, 0.5 after frame 11, 0 from frame 13 on.
 * duration 1.6 at dt 0.1: ceil(16.000000000000004 - 1e-9) = 16 frames. */
static void trace_matches_the_hand_derived_numbers(void)
{
    int rc = simulate("g.lua", "tl.lua", "--json", 0);
    CHECK_INT(rc, 1); /* the failed travel */
    int lines = 0;
    for (const char *s = out; *s; s++) lines += *s == '\n';
    CHECK_INT(lines, 16);
    cJSON *f0 = frame(0);
    CHECK(f0 != NULL);
    if (!f0) return;
    static const char *const top[] = {"frame", "t", "layers", "events", "params", NULL};
    static const char *const lkeys[] = {"name", "state", "progress", "normalized", "weight", "transition", NULL};
    keys_are(f0, top, __LINE__);
    keys_are(layer0(f0), lkeys, __LINE__);
    CHECK_NEAR(num(f0, "frame"), 0, 0);
    CHECK_NEAR(num(f0, "t"), 0.1, TOL);
    CHECK_STR(str(layer0(f0), "state"), "idle");
    CHECK_NEAR(num(layer0(f0), "progress"), 0.1, TOL);
    CHECK_NEAR(num(layer0(f0), "weight"), 1, 0);
    CHECK(cJSON_IsNull(get(layer0(f0), "transition")));
    CHECK_INT(cJSON_GetArraySize(get(f0, "events")), 1);
    event_is(f0, 0, "enter", "idle");
    static const char *const pkeys[] = {"grounded", "jump", "speed", NULL}; /* one line: by name */
    keys_are(get(f0, "params"), pkeys, __LINE__);
    CHECK_NEAR(num(get(f0, "params"), "grounded"), 1, 0);
    cJSON_Delete(f0);

    cJSON *f1 = frame(1);
    CHECK_NEAR(num(get(f1, "params"), "speed"), 2, 0);
    CHECK_STR(str(layer0(f1), "state"), "move");
    CHECK_NEAR(num(layer0(f1), "progress"), 0, TOL);
    transition_is(f1, "idle", "move", 0, 0.25, 0, "live", 0);
    CHECK_INT(cJSON_GetArraySize(get(f1, "events")), 2);
    event_is(f1, 0, "exit", "idle");
    event_is(f1, 1, "enter", "move");
    cJSON_Delete(f1);

    const double weights[] = {0.4, 0.8};
    for (int k = 2; k <= 3; k++) {
        cJSON *f = frame(k);
        CHECK_NEAR(num(layer0(f), "progress"), 0.2 * (k - 1), TOL);
        transition_is(f, "idle", "move", 0.1 * (k - 1), 0.25, weights[k - 2], "live", 0);
        CHECK_INT(cJSON_GetArraySize(get(f, "events")), 0);
        cJSON_Delete(f);
    }
    cJSON *f4 = frame(4);
    CHECK(cJSON_IsNull(get(layer0(f4), "transition")));
    CHECK_NEAR(num(layer0(f4), "progress"), 0.6, TOL);
    cJSON_Delete(f4);

    cJSON *f5 = frame(5);
    CHECK_STR(str(layer0(f5), "state"), "jump");
    transition_is(f5, "move", "jump", 0, 0.1, 0, "freeze", 1);
    CHECK_NEAR(num(get(f5, "params"), "jump"), 0, 0); /* consumed */
    event_is(f5, 0, "exit", "move");
    event_is(f5, 1, "enter", "jump");
    cJSON_Delete(f5);
    cJSON *f6 = frame(6);
    CHECK(cJSON_IsNull(get(layer0(f6), "transition")));
    CHECK_NEAR(num(layer0(f6), "progress"), 0.1, TOL);
    cJSON_Delete(f6);
    cJSON *f13 = frame(13);
    CHECK_STR(str(layer0(f13), "state"), "jump");
    CHECK_NEAR(num(layer0(f13), "normalized"), 0.8, TOL);
    cJSON_Delete(f13);
    const double layer_weights[] = {1, 0.75, 0.5, 0.25, 0, 0};
    for (int k = 9; k <= 14; k++) {
        cJSON *f = frame(k);
        CHECK_NEAR(num(layer0(f), "weight"), layer_weights[k - 9], TOL);
        cJSON_Delete(f);
    }
    cJSON *f14 = frame(14);
    CHECK_STR(str(layer0(f14), "state"), "idle");
    transition_is(f14, "jump", "idle", 0, 0.2, 0, "live", 0);
    cJSON_Delete(f14);
    cJSON *f15 = frame(15);
    CHECK_NEAR(num(f15, "t"), 1.6, TOL);
    CHECK_STR(str(layer0(f15), "state"), "move");
    transition_is(f15, "idle", "move", 0, 0.25, 0, "live", 1);
    CHECK_NEAR(num(get(f15, "params"), "speed"), 0, 0);
    cJSON_Delete(f15);
    CHECK(frame(16) == NULL);
}

static void travel_without_a_route_names_the_timeline_line(void)
{
    simulate("g.lua", "tl.lua", "--json 2>&1 >/dev/null", 2);
    CHECK_CONTAINS(out, "tl.lua:4: travel to 'sit' in layer 'base': no route from 'idle'");
    /* only once (the layer stayed where it was: frame 0 above is idle) */
    const char *first = strstr(out, "tl.lua:4:");
    CHECK(first && !strstr(first + 1, "tl.lua:4:"));
}

static void joints_add_the_sampled_pose(void)
{
    int rc = simulate("g.lua", "tl.lua", "--json --joints", 0);
    CHECK_INT(rc, 1);
    cJSON *f0 = frame(0);
    cJSON *joints = get(f0, "joints");
    CHECK_INT(cJSON_GetArraySize(joints), 2);
    /* idle at 0.1 s: hips translation lerps (0,0,0) -> (1,0,0) over 1 s */
    cJSON *hips = cJSON_GetArrayItem(joints, 0);
    CHECK_STR(str(hips, "name"), "hips");
    CHECK_NEAR(cJSON_GetArrayItem(get(hips, "t"), 0)->valuedouble, 0.1, 1e-5);
    CHECK(cJSON_IsNull(get(hips, "parent")));
    cJSON_Delete(f0);
}

static void the_readable_table_has_a_block_per_frame(void)
{
    int rc = simulate("g.lua", "tl.lua", "", 0);
    CHECK_INT(rc, 1);
    CHECK_CONTAINS(out, "frame 0 t=0.1\n");
    CHECK_CONTAINS(out, "frame 15 t=1.6\n");
    CHECK_CONTAINS(out, "idle -> move 0/0.25 w=0 live frozen");
}

/* A graph's names reach the readable table and check's lines with their
 * control bytes as \xNN (they were printed raw: a layer named "ba\nse"
 * broke its row in two, an ESC sequence reached the terminal). dt 0.5,
 * one frame of idle (1 s, looping): progress 0.5. */
static void names_with_control_bytes_print_escaped(void)
{
    CHECK(write_file("esc.lua", "return { params = { ['sp\\27[2Jeed'] = 0 },\n"
                                "  layers = { { name = 'ba\\nse', entry = 'i\\7', states = { ['i\\7'] = { clip = 'idle' } } } } }\n"));
    CHECK(write_file("esc_tl.lua", "return { dt = 0.5, frames = 1 }\n"));
    CHECK_INT(simulate("esc.lua", "esc_tl.lua", "", 0), 0);
    CHECK_STR(out, "frame 0 t=0.5\n"
                   "  ba\\x0ase     i\\x07" "           " /* padded to 12 and 16 */ " p=0.5000     n=0.5000   w=1     \n"
                   "  enter ba\\x0ase i\\x07\n"
                   "  params sp\\x1b[2Jeed=0\n");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' check esc.lua", dir, BIN);
    CHECK_INT(capture_command(cmd, out, sizeof out), 0);
    CHECK_STR(out, "esc.lua:1: warning: params.sp\\x1b[2Jeed: parameter 'sp\\x1b[2Jeed' is never read: no condition, "
                   "state speed, layer weight or blend node uses it\n");
    /* a predicate's own error text, reported once on stderr */
    CHECK(write_file("esc_pred.lua", "return { layers = { { name = 'base', entry = 'idle',\n"
                                     "  states = { idle = { clip = 'idle' }, move = { clip = 'walk' } },\n"
                                     "  transitions = { { from = 'idle', to = 'move', when = { function(p)\n"
                                     "    error('no\\27[2J', 0) end } } } } } }\n"));
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' simulate esc_pred.lua --asset c.gltf --timeline esc_tl.lua 2>&1 >/dev/null", dir,
             BIN);
    CHECK_INT(capture_command(cmd, out, sizeof out), 0);
    CHECK_STR(out, "esc_pred.lua:4: no\\x1b[2J (reported once; the condition counts as false)\n");
    /* and a file that raises its own text */
    CHECK(write_file("raise.lua", "\nerror('no\\27[2J')\n"));
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' check raise.lua", dir, BIN);
    CHECK_INT(capture_command(cmd, out, sizeof out), 1);
    CHECK_STR(out, "raise.lua:2: error: no\\x1b[2J\n");
    /* a timeline's problems quoting its own names: one escaped line each
     * on stderr (they went raw), nothing run */
    CHECK(write_file("esc_tl2.lua", "return { dt = 0.5, frames = 1,\n"
                                    "  { at = 0, set = { ['x\\27[2J'] = 1 } },\n"
                                    "  { at = 0, travel = 'i\\7', layer = 'l\\nx' },\n"
                                    "}\n"));
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' simulate esc.lua --asset c.gltf --timeline esc_tl2.lua 2>&1", dir, BIN);
    CHECK_INT(capture_command(cmd, out, sizeof out), 1);
    CHECK_STR(out, "esc_tl2.lua:2: set: unknown parameter 'x\\x1b[2J'\n"
                   "esc_tl2.lua:3: unknown layer 'l\\x0ax'\n");
}

/* Several mistakes at once, each with its line (see bad_lua's comments). */
static const char bad_lua[] = "return {\n"                                             /* 1 */
                              "  params = { speed = 0 },\n"                            /* 2 */
                              "  layers = { { name = \"base\", entry = \"idle\",\n"    /* 3 */
                              "    states = {\n"                                       /* 4 */
                              "      idle = { clip = \"idle\" },\n"                    /* 5 */
                              "      move = { clip = \"wlak\" },\n"                    /* 6: missing clip */
                              "    },\n"                                               /* 7 */
                              "    transitions = {\n"                                  /* 8 */
                              "      { from = \"idle\", to = \"move\", duraton = 1 },\n" /* 9: typo */
                              "      { from = \"idle\",\n"                             /* 10 */
                              "        to = \"jmup\" },\n"                             /* 11: unknown state */
                              "      { from = \"*\", to = \"idle\", when = { \"sped > 1\" } },\n" /* 12: unknown param */
                              "    } } },\n"
                              "}\n";

static void graph_problems_are_all_reported_with_lines(void)
{
    int rc = simulate("bad.lua", "tl.lua", "", 1);
    CHECK_INT(rc, 1);
    CHECK_CONTAINS(out, "bad.lua:6: layers[1].states.move: state 'move': unknown clip 'wlak'");
    CHECK_CONTAINS(out, "bad.lua:9: layers[1].transitions[1]: unknown field 'duraton'");
    CHECK_CONTAINS(out, "bad.lua:11: layers[1].transitions[2].to: unknown state 'jmup'");
    CHECK_CONTAINS(out, "bad.lua:12: layers[1].transitions[3].when[1].param: unknown parameter 'sped'");
    CHECK(strstr(out, "frame 0") == NULL);
}

/* A predicate that loops: stopped by the callback budget every frame,
 * counted as false (idle -> move never fires although speed is 2 from
 * frame 1), reported once with its file:line; the other predicate holds. */
static const char pred_lua[] = "return {\n"
                               "  params = { speed = 0 },\n"
                               "  layers = { { name = \"base\", entry = \"idle\",\n"
                               "    states = { idle = { clip = \"idle\" }, move = { clip = \"walk\" }, jump = { clip = \"jump\" } },\n"
                               "    transitions = {\n"
                               "      { from = \"idle\", to = \"move\", when = { function(p)\n" /* 6 */
                               "          while true do end\n"                                   /* 7 */
                               "        end } },\n"
                               "      { from = \"move\", to = \"jump\", when = { function(p) return p.speed > 1 end } },\n"
                               "    } } },\n"
                               "}\n";
static const char travel_tl[] = "return { dt = 0.1, frames = 4, { at = 0.1, set = { speed = 2 } },\n"
                                "  { at = 0.2, travel = \"move\" } }\n";

static void a_looping_predicate_counts_as_false_and_is_reported_once(void)
{
    int rc = simulate("pred.lua", "tl2.lua", "--json 2>err.txt", 2);
    CHECK_INT(rc, 0);
    /* frames 0, 1: idle (the looping predicate is false); frame 2: the
     * travel fires idle -> move ignoring it; frame 3: speed 2 > 1: the
     * second predicate takes move -> jump */
    cJSON *f1 = frame(1), *f2 = frame(2), *f3 = frame(3);
    CHECK_STR(str(layer0(f1), "state"), "idle");
    CHECK_STR(str(layer0(f2), "state"), "move");
    CHECK_STR(str(layer0(f3), "state"), "jump");
    cJSON_Delete(f1);
    cJSON_Delete(f2);
    cJSON_Delete(f3);
    char *err_text = slurp(path_in(dir, "err.txt"));
    snprintf(out, sizeof out, "%s", err_text ? err_text : "");
    free(err_text);
    CHECK_CONTAINS(out, "pred.lua:7:");
    /* the callback's budget stops the loop; on a loaded machine its time
     * limit can come first (it did once, at a load of about 17): either
     * is the sandbox stopping it */
    CHECK(strstr(out, "instruction budget of") || strstr(out, "time limit of"));
    CHECK_CONTAINS(out, "exceeded: script stopped");
    CHECK(strstr(out, "pred.lua:7:") && !strstr(strstr(out, "pred.lua:7:") + 1, "pred.lua:7:"));
}

/* blendwerk.graph from a sandboxed script: the file is one of the mod's
 * files (one outside its folder is refused), and a looping predicate run
 * by the script's cursor:update is stopped by the callback's budget
 * (100000 instructions; on a loaded machine its 5 ms time limit can come
 * first: either is the sandbox stopping it), counted as false, while the
 * script goes on. */
static const char sandboxed_lua[] =
    "local bw = require('blendwerk')\n"
    "local rig = assert(bw.rig{ joints = { { name = 'hips' } } })\n"
    "local function clip(n, l) return assert(bw.clip{ name = n, length = l, loop = true, joints = {\n"
    "  { joint = 'hips', keys = { { time = 0, t = {0,0,0} }, { time = l, t = {1,0,0} } } } } }) end\n"
    "local g = assert(bw.graph('pred.lua', { rig = rig, clips = { clip('idle', 1), clip('walk', 0.5), clip('jump', 1) } }))\n"
    "local c = g:cursor()\n"
    "for i = 1, 3 do c:update(0.1) end\n"
    "print('state ' .. c:state())\n"
    "local none, errs = bw.graph('../x.lua', { clips = {} })\n"
    "print('outside ' .. tostring(none) .. ' ' .. errs[1])\n";

static void a_sandboxed_script_keeps_running_past_a_stopped_predicate(void)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' run --sandbox sandboxed.lua 2>&1", dir, BIN);
    CHECK_INT(capture_command(cmd, out, sizeof out), 0);
    CHECK(strstr(out, "pred.lua:7: instruction budget of 100000 exceeded") ||
          strstr(out, "pred.lua:7: time limit of 0.005 s exceeded"));
    CHECK_CONTAINS(out, "exceeded: script stopped (reported once; the condition counts as false)");
    CHECK_CONTAINS(out, "state idle"); /* idle -> move never held */
    CHECK_CONTAINS(out, "outside nil blendwerk.graph '../x.lua'");
}

/* Timelines are checked before anything runs, each problem with its line;
 * a timeline that loops is stopped by the sandbox's budget. */
static const char bad_tl[] = "return { dt = 0.1, frames = 1,\n"
                             "  { at = 0, sett = { speed = 1 } },\n" /* 2 */
                             "  { at = 0,\n"
                             "    fire = \"speed\" },\n"               /* 4 */
                             "  { at = 0, travel = \"nowhere\" } }\n"; /* 5 */
static const char loop_tl[] = "local x = 1\nwhile true do end\n";

static void timeline_problems_carry_their_lines(void)
{
    int rc = simulate("g.lua", "badtl.lua", "", 1);
    CHECK_INT(rc, 1);
    CHECK_CONTAINS(out, "badtl.lua:2: entry 1: unknown field 'sett'");
    CHECK_CONTAINS(out, "badtl.lua:4: fire: 'speed' is not a trigger");
    CHECK_CONTAINS(out, "badtl.lua:5: travel: unknown state 'nowhere' in layer 'base'");
    CHECK(strstr(out, "frame 0") == NULL);
    rc = simulate("g.lua", "looptl.lua", "", 1);
    CHECK_INT(rc, 1);
    CHECK_CONTAINS(out, "looptl.lua:2: instruction budget of 50000000 exceeded");
}

/* A layer_weight on a layer whose weight follows a parameter ran silently
 * (exit 0, the weight still the parameter's 1): it is a timeline problem
 * at its line, said before any frame, exit 1. */
static void a_layer_weight_on_a_parameter_weighted_layer_is_a_timeline_problem(void)
{
    write_file("wg.lua", "return { params = { w = 1 }, layers = {\n"
                         "  { name = \"up\", entry = \"i\", weight = \"w\", states = { i = { clip = \"idle\" } } } } }\n");
    write_file("wtl.lua", "return { frames = 2,\n"
                          "  { at = 0, layer_weight = { up = 0 }, fade = 1 },\n"
                          "}\n");
    CHECK_INT(simulate("wg.lua", "wtl.lua", "--json 2>&1", 2), 1);
    CHECK_STR(out, "wtl.lua:2: layer_weight: the weight of layer 'up' follows the parameter 'w': set it instead\n");
}

/* An entry whose `at` no frame reaches was dropped without a word. 10
 * frames of 0.1 s: frame 9 applies entries up to at = 9 x 0.1 = 0.9, so
 * at = 0.9 applies (speed 2 in frame 9's params) and 0.95 and 3 are named
 * on stderr, one warning each with its line; the exit code stays 0. */
static void entries_past_the_end_are_named(void)
{
    write_file("pasttl.lua", "return {\n"
                             "  dt = 0.1, duration = 1,\n"
                             "  { at = 0.9, set = { speed = 2 } },\n"
                             "  { at = 0.95, set = { speed = 3 } },\n"
                             "  { at = 3, fire = \"jump\" },\n"
                             "}\n");
    CHECK_INT(simulate("g.lua", "pasttl.lua", "--json 2>&1 >/dev/null", 2), 0);
    CHECK_STR(out, "warning: pasttl.lua:4: at = 0.95 is past the run's end (10 frames of 0.1 s apply entries up to "
                   "at = 0.9): never applied\n"
                   "warning: pasttl.lua:5: at = 3 is past the run's end (10 frames of 0.1 s apply entries up to "
                   "at = 0.9): never applied\n");
    CHECK_INT(simulate("g.lua", "pasttl.lua", "--json", 0), 0);
    cJSON *f9 = frame(9), *f10 = frame(10);
    CHECK(f9 != NULL && f10 == NULL);
    if (f9) CHECK_NEAR(num(get(f9, "params"), "speed"), 2.0, TOL);
    cJSON_Delete(f9);
}

static void bad_arguments_are_usage_errors(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "'%s' simulate g.lua >/dev/null 2>&1", BIN);
    int status = system(cmd);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 2);
}


/* A marker crossed from the CLI (SPEC §12.3's marker event line). The
 * character is a .lua file: one joint, clip "step" (1 s, looping) with
 * foot_l at 0.25 s and foot_r at 0.75 s; the graph plays it in one state.
 * dt 0.1, 13 frames: frame k's update advances p from 0.1 k to 0.1 (k+1)
 * (frame 0 includes the start), so foot_l is crossed in frames 2 (0.2 ->
 * 0.3) and 12 (1.2 -> 1.3, the second pass), foot_r in frame 7 (0.7 ->
 * 0.8), and no other frame has a marker. */
static const char marker_char_lua[] =
    "local rig = assert(blendwerk.rig { joints = { { name = 'hips' } } })\n"
    "local step = assert(blendwerk.clip { name = 'step', length = 1, loop = true,\n"
    "  joints = { { joint = 'hips', keys = { { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 1, 0, 0 } } } } },\n"
    "  markers = { { name = 'foot_r', time = 0.75 }, { name = 'foot_l', time = 0.25 } } })\n"
    "return { rig = rig, clips = { step } }\n";
static const char marker_graph_lua[] =
    "return { layers = { { name = 'base', entry = 'walk', states = { walk = { clip = 'step' } } } } }\n";
static const char marker_tl[] = "return { dt = 0.1, frames = 13 }\n";

/* Line k (0-based) of out, copied into buf ("" when absent). */
static const char *out_line(int k, char *buf, size_t size)
{
    const char *s = out;
    for (int i = 0; i < k && s; i++) {
        s = strchr(s, '\n');
        if (s) s++;
    }
    buf[0] = '\0';
    if (!s) return buf;
    const char *e = strchr(s, '\n');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    if (n >= size) n = size - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return buf;
}

static void a_crossed_marker_prints_its_event_line(void)
{
    char cmd[2048], line[4096];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' simulate mg.lua --asset mc.lua --timeline mtl.lua --json 2>&1", dir, BIN);
    CHECK_INT(capture_command(cmd, out, sizeof out), 0);
    static const char foot_l[] = "\"events\":[{\"kind\":\"marker\",\"layer\":\"base\",\"clip\":\"step\",\"name\":\"foot_l\","
                                 "\"time\":0.25}],";
    static const char foot_r[] = "\"events\":[{\"kind\":\"marker\",\"layer\":\"base\",\"clip\":\"step\",\"name\":\"foot_r\","
                                 "\"time\":0.75}],";
    for (int k = 0; k < 13; k++) {
        out_line(k, line, sizeof line);
        if (k == 2 || k == 12) CHECK_CONTAINS(line, foot_l);
        else if (k == 7) CHECK_CONTAINS(line, foot_r);
        else if (k == 0) CHECK_CONTAINS(line, "\"events\":[{\"kind\":\"enter\",\"layer\":\"base\",\"state\":\"walk\"}],");
        else CHECK_CONTAINS(line, "\"events\":[],");
    }
    CHECK_STR(out_line(13, line, sizeof line), "");
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' simulate mg.lua --asset mc.lua --timeline mtl.lua 2>&1", dir, BIN);
    CHECK_INT(capture_command(cmd, out, sizeof out), 0);
    CHECK_CONTAINS(out, "frame 2 t=0.3\n");
    CHECK_CONTAINS(out, "  marker base step foot_l 0.25\n");
    CHECK_CONTAINS(out, "  marker base step foot_r 0.75\n");
}

/* A long step lists every marker of its window (SPEC §4, §12.3): one
 * looping 1 s clip "M" with 20 markers m0..m19 at k/20 s, one state, dt
 * 3.99 (2 frames). Frame 0 advances 0 -> 3.99 s including the start (a
 * fresh state): 3.99 lengths < the 4-cycle window, so every marker of
 * passes 0..3 (n + k/20 <= 3.95 < 3.99, n = 0..3) fires: 4 x 20 = 80 markers
 * after the entry's enter, 81 events, in time order m0..m19 four times.
 * Frame 1 advances (3.99, 7.98]: m0 at 4.0 up to m19 at 7.95, 80 events.
 * The old queue of 64 printed 63 and 64 of them, silently. */
static const char many_char_lua[] =
    "local rig = assert(blendwerk.rig { joints = { { name = 'root' } } })\n"
    "local m = {}\n"
    "for i = 0, 19 do m[#m + 1] = { name = 'm' .. i, time = i / 20 } end\n"
    "return { rig = rig, clips = { assert(blendwerk.clip { name = 'M', length = 1, loop = true,\n"
    "  joints = { { joint = 'root', keys = { { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 1, 0, 0 } } } } },\n"
    "  markers = m }) } }\n";
static const char many_graph_lua[] =
    "return { layers = { { name = 'base', entry = 'a', states = { a = { clip = 'M' } } } } }\n";
static const char many_tl[] = "return { dt = 3.99, frames = 2 }\n";

static void a_long_step_lists_every_marker_of_its_window(void)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' simulate manyg.lua --asset manyc.lua --timeline manytl.lua --json 2>&1",
             dir, BIN);
    CHECK_INT(capture_command(cmd, out, sizeof out), 0);
    CHECK(strstr(out, "dropped") == NULL); /* stderr is merged: nothing said */
    for (int k = 0; k < 2; k++) {
        cJSON *f = frame(k);
        CHECK(f != NULL);
        if (!f) return;
        cJSON *ev = get(f, "events");
        int first = k == 0 ? 1 : 0; /* frame 0 starts with the entry's enter */
        CHECK_INT(cJSON_GetArraySize(ev), 80 + first);
        if (k == 0) {
            CHECK_STR(str(cJSON_GetArrayItem(ev, 0), "kind"), "enter");
            CHECK_STR(str(cJSON_GetArrayItem(ev, 0), "state"), "a");
        }
        for (int i = 0; i < 80 && i + first < cJSON_GetArraySize(ev); i++) {
            cJSON *e = cJSON_GetArrayItem(ev, i + first);
            char name[8];
            snprintf(name, sizeof name, "m%d", i % 20);
            CHECK_STR(str(e, "kind"), "marker");
            CHECK_STR(str(e, "name"), name);
            CHECK_NEAR(num(e, "time"), (i % 20) / 20.0, 1e-6);
        }
        cJSON_Delete(f);
    }
    CHECK(frame(2) == NULL);
}

/* A graph whose states come from a file it requires (the sandbox's mod
 * folder: parts.lua beside it): that file's mistakes carry its name and
 * lines, the graph file's its own; `check` prints the same locations. */
static const char req_parts_lua[] = "return {\n"                                /* 1 */
                                    "  idle = { clip = 'idle' },\n"             /* 2 */
                                    "  move = { clip = 'wlak' },\n"             /* 3 */
                                    "}\n";
static const char req_graph_lua[] = "local states = require('parts')\n"        /* 1 */
                                    "return { layers = { { name = 'base', entry = 'idle', states = states,\n" /* 2 */
                                    "  transitions = { { from = 'idle', to = 'mvoe' } } } } }\n";           /* 3 */

static void a_required_file_names_its_own_lines(void)
{
    CHECK_INT(simulate("req.lua", "tl.lua", "--json", 1), 1);
    CHECK_CONTAINS(out, "parts.lua:3: layers[1].states.move: state 'move': unknown clip 'wlak'\n");
    CHECK_CONTAINS(out, "req.lua:3: layers[1].transitions[1].to: unknown state 'mvoe'\n");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' check req.lua --asset c.gltf 2>&1", dir, BIN);
    CHECK_INT(capture_command(cmd, out, sizeof out), 1);
    CHECK_CONTAINS(out, "parts.lua:3: error: layers[1].states.move: state 'move': unknown clip 'wlak'\n");
    CHECK_CONTAINS(out, "req.lua:3: error: layers[1].transitions[1].to: unknown state 'mvoe'\n");
}

/* simulate's queue holds at most 2^20 = 1048576 events. 64 layers each
 * playing one looping 1 s clip of 4100 markers: the bound is per layer
 * 4 x 4100 + 3 = 16403, 64 x 16403 = 1049792 in all, past the cap: warned
 * of before the trace. dt 10: each layer's first advance crosses its
 * 4-cycle window, 16400 markers, after its entry's enter: 64 x 16401 =
 * 1049664 events, 1049664 - 1048576 = 1088 dropped (exit 1); it used to
 * say only "1088 events dropped", the docs calling a drop impossible.
 * dt 0.5 crosses 2050 markers a layer: the warning alone, exit 0. */
static const char cap_char_lua[] =
    "local rig = assert(blendwerk.rig { joints = { { name = 'root' } } })\n"
    "local m = {}\n"
    "for i = 0, 4099 do m[#m + 1] = { name = 'm', time = i / 4100 } end\n"
    "return { rig = rig, clips = { assert(blendwerk.clip { name = 'M', length = 1, loop = true,\n"
    "  joints = { { joint = 'root', keys = { { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 1, 0, 0 } } } } },\n"
    "  markers = m }) } }\n";
static const char cap_graph_lua[] = "local layers = {}\n"
                                    "for i = 1, 64 do layers[i] = { name = 'l' .. i, entry = 'a', states = { a = { clip = 'M' } } } end\n"
                                    "return { layers = layers }\n";

static void events_past_the_queues_cap_are_warned_of_and_said_why(void)
{
    static const char warning[] = "warning: capg.lua: one update can queue up to 1049792 events, more than simulate's "
                                  "event queue holds (1048576): a frame that queues more drops the rest (exit 1); a "
                                  "smaller dt crosses fewer markers a frame\n";
    write_file("capc.lua", cap_char_lua);
    write_file("capg.lua", cap_graph_lua);
    write_file("captl.lua", "return { dt = 10, frames = 1 }\n");
    write_file("captl2.lua", "return { dt = 0.5, frames = 1 }\n");
    char cmd[2048], want[1024];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' simulate capg.lua --asset capc.lua --timeline captl.lua 2>&1 >/dev/null", dir, BIN);
    CHECK_INT(capture_command(cmd, out, sizeof out), 1);
    snprintf(want, sizeof want,
             "%sblendwerk simulate: frame 0: 1088 events dropped: the event queue holds at most 1048576 (simulate's "
             "cap) and one update of this graph can queue up to 1049792; a smaller dt crosses fewer markers a frame\n",
             warning);
    CHECK_STR(out, want);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' simulate capg.lua --asset capc.lua --timeline captl2.lua 2>&1 >/dev/null", dir, BIN);
    CHECK_INT(capture_command(cmd, out, sizeof out), 0);
    CHECK_STR(out, warning);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/bw_simulate_%d", (int)getpid());
    char cmd[400];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    if (system(cmd) != 0) return 1;
    if (!write_file("c.gltf", character_gltf) || !write_file("g.lua", graph_lua) || !write_file("tl.lua", timeline_lua) ||
        !write_file("bad.lua", bad_lua) || !write_file("pred.lua", pred_lua) || !write_file("tl2.lua", travel_tl) ||
        !write_file("sandboxed.lua", sandboxed_lua) ||
        !write_file("badtl.lua", bad_tl) || !write_file("looptl.lua", loop_tl) ||
        !write_file("mc.lua", marker_char_lua) || !write_file("mg.lua", marker_graph_lua) ||
        !write_file("mtl.lua", marker_tl) || !write_file("parts.lua", req_parts_lua) ||
        !write_file("req.lua", req_graph_lua) || !write_file("manyc.lua", many_char_lua) ||
        !write_file("manyg.lua", many_graph_lua) || !write_file("manytl.lua", many_tl))
        return 1;
    RUN(trace_matches_the_hand_derived_numbers);
    RUN(travel_without_a_route_names_the_timeline_line);
    RUN(joints_add_the_sampled_pose);
    RUN(the_readable_table_has_a_block_per_frame);
    RUN(names_with_control_bytes_print_escaped);
    RUN(graph_problems_are_all_reported_with_lines);
    RUN(a_looping_predicate_counts_as_false_and_is_reported_once);
    RUN(a_sandboxed_script_keeps_running_past_a_stopped_predicate);
    RUN(timeline_problems_carry_their_lines);
    RUN(entries_past_the_end_are_named);
    RUN(a_layer_weight_on_a_parameter_weighted_layer_is_a_timeline_problem);
    RUN(bad_arguments_are_usage_errors);
    RUN(a_crossed_marker_prints_its_event_line);
    RUN(a_required_file_names_its_own_lines);
    RUN(a_long_step_lists_every_marker_of_its_window);
    RUN(events_past_the_queues_cap_are_warned_of_and_said_why);
    if (!remove_tree(dir)) return 1;
    return check_summary();
}
