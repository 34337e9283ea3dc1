/* fuzz_timeline.c - libFuzzer target for timelines (SPEC §12.3): any byte
 * string as a timeline file's Lua source must read into actions that are
 * safe to apply, or be refused, never crash, leak, hang, read out of
 * bounds or put NaN or infinity into a pose or the character inputs.
 *
 * The graph is fixed: graphs/demo.lua (every kind of action has a target
 * there: float and trigger parameters, three layers, one of them weighted
 * by the host, travel routes) compiled once against the humanoid
 * (scripts/humanoid.lua) in a sandbox kept for the run. Each input is
 * written into a private folder and loaded the way `blendwerk simulate`,
 * `watch` and the demo load a timeline: bw_timeline_load (its own
 * sandbox, the sandbox's file reader), then bw_timeline_read_clips with
 * the humanoid's clips for gesture names. Whether or not the read found
 * problems (watch and the demo keep the actions that resolved), a fresh
 * cursor runs up to 60 frames: the due actions applied
 * (bw_timeline_apply_input), the cursor updated by the timeline's dt, the
 * frame checked (fuzz_graph_common.h), and the character inputs checked
 * finite as the demo would use them. Seeds: graphs/ (the example
 * timelines, read in place) and fuzz/seeds/timeline/ (small hand-written
 * ones). */
#include "fuzz_graph_common.h" /* first: it sets _POSIX_C_SOURCE */

#include <lauxlib.h>
#include <lua.h>

#include "lua_graph.h"
#include "timeline.h"

#define FILE_NAME "fuzz.timeline.lua"
#define FRAMES 60

static bw_sandbox *graph_sb; /* keeps the compiled graph (index 1) for the run */
static const bw_graph *graph;

static int load_protected(lua_State *L)
{
    int n = bw_lua_graph_load_file(L, "fuzz", "demo.lua", NULL, fuzz_w.clips, fuzz_w.clip_count);
    if (n < 1 || lua_isnil(L, -n)) return luaL_error(L, "graphs/demo.lua does not compile");
    lua_settop(L, lua_gettop(L) - n + 1);
    return 1;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_world_init();
    bw_sandbox_desc sd;
    memset(&sd, 0, sizeof sd);
    sd.dir = BW_SOURCE_DIR "/graphs";
    sd.name = "demo.lua";
    char err[BW_SANDBOX_ERROR_MAX];
    graph_sb = bw_sandbox_create(&sd, err, sizeof err);
    if (!graph_sb) fuzz_fail("graphs/demo.lua", err);
    lua_State *L = bw_sandbox_state(graph_sb);
    lua_pushcfunction(L, load_protected);
    if (bw_sandbox_call(graph_sb, 0, 1) != BW_SANDBOX_OK) fuzz_fail("graphs/demo.lua", bw_sandbox_error(graph_sb));
    graph = bw_lua_graph_check(L, 1);
    return 0;
}

static void check_input(const bw_timeline_input *in)
{
    for (int k = 0; k < 3; k++)
        if (!isfinite(in->velocity[k]) || !isfinite(in->look_at[k])) __builtin_trap();
    if (!isfinite(in->turn) || !isfinite(in->yaw)) __builtin_trap();
    if (in->gesture < -1 || in->gesture >= fuzz_w.clip_count) __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[1024], err[BW_SANDBOX_ERROR_MAX];
    fuzz_write_file(FILE_NAME, data, size, path, sizeof path);
    bw_sandbox *sb = bw_timeline_load(path, err, sizeof err);
    if (!sb) {
        fuzz_check_message(err, FILE_NAME);
        return 0;
    }
    bw_timeline t;
    memset(&t, 0, sizeof t);
    bool ok = bw_timeline_read_clips(&t, bw_sandbox_state(sb), graph, fuzz_w.clips, fuzz_w.clip_count, path, -1);
    if (!ok && t.errors < 1) __builtin_trap(); /* refused without a printed problem */
    if (t.dt > 0 && !isfinite((float)t.dt) && ok) __builtin_trap(); /* a dt no float holds, accepted */
    bw_graph_cursor *cursor = fuzz_cursor(graph);
    if (!cursor) __builtin_trap(); /* the demo graph runs on the humanoid */
    bw_pose pose;
    memset(&pose, 0, sizeof pose);
    if (bw_pose_init(&pose, fuzz_w.character->rig, NULL) != BW_OK) __builtin_trap();
    bw_timeline_input in;
    bw_timeline_input_init(&in);
    for (long k = 0; k < t.frames && k < FRAMES; k++) {
        bw_timeline_apply_input(&t, cursor, &in, (double)k * t.dt, k);
        check_input(&in);
        in.has_yaw = false;
        in.gesture = -1;
        bw_graph_cursor_update(cursor, (float)t.dt);
        fuzz_check_frame(cursor, graph, &pose);
    }
    bw_pose_deinit(&pose);
    bw_graph_cursor_destroy(cursor);
    bw_timeline_free(&t);
    bw_sandbox_destroy(sb);
    return 0;
}
