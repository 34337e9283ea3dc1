/* fuzz_graph.c - libFuzzer target for graph files (SPEC §12.1): a modder's
 * graph file is untrusted, so any byte string must compile into a graph
 * that runs, or be refused with messages that name the file; never crash,
 * leak, hang, read out of bounds or put NaN or infinity into a pose.
 *
 * Input: the bytes before the first NUL are the graph file's Lua source,
 * the bytes after it drive the cursor (none: 20 updates of 1/60 s and
 * nothing set). The file is written into a private folder and loaded the
 * way `blendwerk simulate` loads it (cli/cli_graph.c): a sandbox whose
 * folder is the file's, bw_lua_graph_load_file against the humanoid's
 * clips (scripts/humanoid.lua, loaded once). A graph that compiles gets a
 * cursor on the humanoid and 20 updates, each after up to three actions
 * from the bytes - set a parameter, fire or reset a trigger, set a layer
 * weight with a fade, request a travel - with values and dt that include
 * 0, NaN, ±infinity, ±FLT_MAX, huge, tiny and negative ones; every frame
 * is evaluated and checked (fuzz_graph_common.h). Predicates run with the
 * sandbox's callback limits, outside the loading call, as in simulate.
 * The same file is also read as `blendwerk check` reads it (cli/cmd_check.c:
 * bw_lua_graph_lint with the humanoid's rig, in a sandbox of its own),
 * every finding naming the file, and the two must agree: what compile
 * refuses is a lint error, and a graph that compiles has lint errors
 * exactly when the rig refuses it a cursor (graph_lint.h).
 * Seeds: graphs/ (the example graphs, read in place) and fuzz/seeds/graph/
 * (small hand-written ones, some with cursor bytes). */
#include "fuzz_graph_common.h" /* first: it sets _POSIX_C_SOURCE */

#include <float.h>
#include <lauxlib.h>
#include <lua.h>

#include "lua_graph.h"

#define FILE_NAME "graph.lua"
#define UPDATES 20

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_world_init();
    return 0;
}

/* The cursor bytes: 0 once they run out. */
typedef struct bytes {
    const uint8_t *p;
    size_t n;
} bytes;

static uint8_t next_byte(bytes *b)
{
    if (!b->n) return 0;
    b->n--;
    return *b->p++;
}

static float next_value(bytes *b)
{
    static const float special[] = {0.0f,     1.0f,      -1.0f,   0.5f,    NAN,     INFINITY,    -INFINITY,
                                    1e30f,    -1e30f,    FLT_MAX, -FLT_MAX, 1e-40f, -0.0f,       2.75f,
                                    4.0f,     1.5f,      1e9f,    -1e9f,   1.0f / 60.0f, 100.0f};
    const int n_special = (int)(sizeof special / sizeof special[0]);
    int k = next_byte(b);
    if (k < n_special) return special[k];
    if (k < n_special + 20) {
        uint8_t raw[4] = {next_byte(b), next_byte(b), next_byte(b), next_byte(b)};
        float v;
        memcpy(&v, raw, sizeof v);
        return v;
    }
    return (float)(k - 148) / 8.0f;
}

/* dt: 1/60 for a 0 byte (the default once the bytes run out), else a value. */
static float next_dt(bytes *b)
{
    if (b->n && *b->p == 0) {
        next_byte(b);
        return 1.0f / 60.0f;
    }
    return b->n ? next_value(b) : 1.0f / 60.0f;
}

static void act(bw_graph_cursor *cursor, const bw_graph *graph, bytes *b)
{
    int op = next_byte(b), what = op >> 6, idx = op & 63;
    int params = bw_graph_param_count(graph), layers = bw_graph_layer_count(graph);
    if ((what == 0 || what == 3) && params > 0) {
        int p = idx % params;
        float v = next_value(b);
        bw_result r;
        if (bw_graph_param_kind_of(graph, p) == BW_GRAPH_PARAM_TRIGGER)
            r = v >= 0.0f ? bw_graph_cursor_fire(cursor, p) : bw_graph_cursor_reset_trigger(cursor, p);
        else
            r = bw_graph_cursor_set_param(cursor, p, v);
        if (r == BW_OK && !isfinite(bw_graph_cursor_param(cursor, p))) __builtin_trap(); /* a setter took NaN */
    } else if (what == 1 && layers > 0) {
        float w = next_value(b), fade = next_value(b);
        bw_result r = bw_graph_cursor_set_layer_weight(cursor, idx % layers, w, fade);
        if (r == BW_OK && !(isfinite(w) && isfinite(fade) && w >= 0.0f && fade >= 0.0f)) __builtin_trap();
    } else if (what == 2 && layers > 0) {
        int l = idx % layers, states = bw_graph_state_count(graph, l);
        int s = states > 0 ? next_byte(b) % states : 0;
        bw_graph_cursor_travel(cursor, l, s);
        bw_graph_cursor_travel_pending(cursor, l);
    }
}

/* lint: the lint pass's error count (-1: it stopped) */
static void run_cursor(const bw_graph *graph, bytes *b, int lint)
{
    bw_graph_cursor *cursor = fuzz_cursor(graph);
    if (cursor && lint > 0) __builtin_trap();   /* `check` says errors, yet it runs */
    if (!cursor && lint == 0) __builtin_trap(); /* `check` says clean, yet no cursor */
    if (!cursor) return;
    bw_pose pose;
    memset(&pose, 0, sizeof pose);
    if (bw_pose_init(&pose, fuzz_w.character->rig, NULL) != BW_OK) __builtin_trap();
    for (int u = 0; u < UPDATES; u++) {
        int n = next_byte(b) & 3;
        for (int i = 0; i < n; i++) act(cursor, graph, b);
        bw_graph_cursor_update(cursor, next_dt(b));
        fuzz_check_frame(cursor, graph, &pose);
    }
    bw_pose_deinit(&pose);
    bw_graph_cursor_destroy(cursor);
}

/* In the sandbox: (file name, path) -> Graph, nil | nil, problems */
static int load_protected(lua_State *L)
{
    int n = bw_lua_graph_load_file(L, "fuzz", lua_tostring(L, 1), lua_tostring(L, 2), fuzz_w.clips, fuzz_w.clip_count);
    lua_settop(L, lua_gettop(L) - n + 2); /* exactly two results */
    return 2;
}

/* In the sandbox: (file name, path) -> findings, error count: `blendwerk
 * check`'s reading (cli/cmd_check.c) with the humanoid's rig */
static int lint_protected(lua_State *L)
{
    bw_lua_run_source_file(L, "fuzz", lua_tostring(L, 1), lua_tostring(L, 2));
    int errors = bw_lua_graph_lint(L, -1, lua_tostring(L, 2), 0, fuzz_w.clips, fuzz_w.clip_count, fuzz_w.character->rig);
    lua_pushinteger(L, errors);
    return 2;
}

static bw_sandbox *new_sandbox(size_t *reported)
{
    bw_sandbox_desc sd;
    memset(&sd, 0, sizeof sd);
    sd.limits = fuzz_limits();
    sd.dir = fuzz_w.dir;
    sd.name = FILE_NAME;
    sd.report = fuzz_read_report;
    sd.user = reported;
    char err[BW_SANDBOX_ERROR_MAX];
    bw_sandbox *sb = bw_sandbox_create(&sd, err, sizeof err);
    if (!sb) __builtin_trap(); /* an empty sandbox fits the cap */
    return sb;
}

/* Every string of the list at idx names the file; returns how many there are. */
static int check_list(lua_State *L, int idx, const char *what, bool verbose)
{
    if (!lua_istable(L, idx)) __builtin_trap();
    int n = (int)lua_rawlen(L, idx);
    for (int i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, i);
        if (verbose) fprintf(stderr, "fuzz_graph: %s: %s\n", what, lua_tostring(L, -1));
        fuzz_check_message(lua_tostring(L, -1), FILE_NAME);
        lua_pop(L, 1);
    }
    return n;
}

/* fn(file name, path) in the sandbox with two results; false (the stop's
 * message checked) when the file stopped. */
static bool call_on_file(bw_sandbox *sb, lua_CFunction fn, const char *path, const char *what, bool verbose)
{
    lua_State *L = bw_sandbox_state(sb);
    lua_pushcfunction(L, fn);
    lua_pushstring(L, FILE_NAME);
    lua_pushstring(L, path);
    if (bw_sandbox_call(sb, 2, 2) == BW_SANDBOX_OK) return true;
    if (verbose) fprintf(stderr, "fuzz_graph: %s stopped: %s\n", what, bw_sandbox_error(sb));
    fuzz_check_message(bw_sandbox_error(sb), FILE_NAME);
    return false;
}

/* The lint pass over the same file in a sandbox of its own (a script
 * keeps no state from the compile run): -1 when the file stopped, else
 * the number of errors among its findings. */
static int lint_errors(const char *path, bool verbose)
{
    size_t reported = 0;
    bw_sandbox *sb = new_sandbox(&reported);
    lua_State *L = bw_sandbox_state(sb);
    int errors = -1;
    if (call_on_file(sb, lint_protected, path, "lint", verbose)) {
        errors = (int)lua_tointeger(L, 2);
        if (errors < 0 || errors > check_list(L, 1, "lint", verbose)) __builtin_trap();
    }
    lua_settop(L, 0);
    bw_sandbox_destroy(sb);
    return errors;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = (const uint8_t *)memchr(data, 0, size);
    size_t source = nul ? (size_t)(nul - data) : size;
    bytes b = {nul ? nul + 1 : data + size, nul ? size - source - 1 : 0};
    char path[1024];
    fuzz_write_file(FILE_NAME, data, source, path, sizeof path);
    const bool verbose = getenv("BW_FUZZ_VERBOSE") != NULL; /* say what became of each input */
    const int lint = lint_errors(path, verbose);

    size_t reported = 0;
    bw_sandbox *sb = new_sandbox(&reported);
    lua_State *L = bw_sandbox_state(sb);
    if (!call_on_file(sb, load_protected, path, "compile", verbose)) {
        /* stopped: the message was checked */
    } else if (lua_isnil(L, 1)) {
        /* refused: at least one "FILE:LINE: message", and `check` reports
         * what compile refuses as errors (graph_lint.h) */
        if (check_list(L, 2, "refused", verbose) < 1) __builtin_trap();
        if (lint == 0) __builtin_trap();
    } else {
        if (verbose) fprintf(stderr, "fuzz_graph: compiled, %zu cursor bytes\n", b.n);
        /* a graph that compiles has lint errors only for the rig, which
         * then refuses a cursor (checked in run_cursor) */
        run_cursor(bw_lua_graph_check(L, 1), &b, lint);
    }
    lua_settop(L, 0);
    bw_sandbox_destroy(sb);
    return 0;
}
