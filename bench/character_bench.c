/* character_bench.c - the full character (issue #15): 1,000 characters on
 * the 64-joint rig of workload.h, each a bw_animator (animator.h) driven
 * by the graph file bench/character.lua, read by the graph reader
 * (bindings/lua_graph.c) as users read theirs: a 2D directional blend
 * space of 5 synced clips (idle + 4 directions with foot markers), a
 * masked upper-body override layer, an additive layer; the animator adds
 * head aim (state.look_at, a target moving around each character) and
 * root motion (the clips' root drifts, extracted and removed from the
 * pose). Every frame each character's parameters change (a random walk of
 * the planar velocity, a bool toggled now and then) and the crowd spends
 * about a fifth of its character-frames with a transition in flight
 * (measured and printed, not assumed). A character-frame is
 * bw_animator_update + bw_pose_local_to_model of its pose.
 *
 * Variants, run round-robin per repetition (all alive at once, so load on
 * the machine hits them alike):
 *   compiled  the graph's conditions as strings (compiled comparisons)
 *   lua       the same conditions as Lua functions (graph predicates), in a
 *             trusted Lua state (lua_newstate with the counting allocator)
 *   lua_head_aim  compiled conditions, the animator's head aim off and the
 *             Lua head-aim control (scripts/head_aim.lua through the control
 *             runner, bindings/controls.h, in a sandbox) run on the
 *             animator's pose in place (bw_animator_pose_mutable) instead
 *   no_head_aim   compiled conditions, no head aim at all: the baseline the
 *             Lua control's own cost is read against (lua_head_aim minus it:
 *             the control alone, with what it costs the rest of the frame)
 * The crowd loop gives both crowd hints for the next character after this
 * one's update and control, before its local-to-model: the animator's
 * (bw_animator_prefetch) and, with the Lua control, the runner's
 * (bw_controls_prefetch).
 *
 * Lua states are not thread-safe, so the crowd is split into P partitions
 * (P = the thread count, at least 1), each with its own Lua state and graph
 * copy; a job is a partition (bw_jobs_run over P items), so one thread runs
 * one partition at a time. The single-thread figure runs the P partitions
 * one after the other on the calling thread.
 *
 * Reports per variant: ns per character-frame (median of the clean blocks,
 * as bench.c), characters per 16.6 ms, the same on `--threads` threads
 * through the job API and the scaling ratio, allocations per frame after
 * warm-up (the exit status is 1 unless 0) and bytes per character instance.
 * Allocations are counted twice: through the bw_allocator of every object
 * and the Lua states (counting_alloc), and, in a glibc build without
 * AddressSanitizer, by this program's own malloc / calloc / realloc, which
 * see every allocation of the process (the sandbox's included, whose
 * allocator may not be replaced).
 * The Lua control is also timed in place: the time-stamp counter read
 * around each bw_controls_run (bench_ticks, whose own cost, measured with
 * nothing between, is taken off each call), converted by each one-thread
 * block's own tick rate; the median over the blocks, chosen as for the
 * frame times (the clean ones when there are three or more). That is the
 * control's own time; the variant difference above adds what the control
 * costs the rest of the frame (the lines it evicts) and the noise of two
 * medians.
 *
 *   blendwerk-character-bench [--quick] [--json] [--characters N] [--reps R]
 *                             [--frames F] [--threads N] [--graph FILE]
 *                             [--no-lua-aim]
 */
#define _GNU_SOURCE
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_common.h"
#include "blendwerk/animator.h"
#include "blendwerk/graph.h"
#include "blendwerk/jobs.h"
#include "controls.h"
#include "lua_blendwerk.h"
#include "lua_graph.h"
#include "sandbox.h"
#include "simd.h"

/* ---- every allocation of the process (glibc, no sanitizer) ---- */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BENCH_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define BENCH_ASAN 1
#endif
#if defined(__GLIBC__) && !defined(BENCH_ASAN)
#define BENCH_COUNTS_MALLOC 1
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void __libc_free(void *ptr);
static long long process_allocations;
void *malloc(size_t size)
{
    __atomic_add_fetch(&process_allocations, 1, __ATOMIC_RELAXED);
    return __libc_malloc(size);
}
void *calloc(size_t count, size_t size)
{
    __atomic_add_fetch(&process_allocations, 1, __ATOMIC_RELAXED);
    return __libc_calloc(count, size);
}
void *realloc(void *ptr, size_t size)
{
    __atomic_add_fetch(&process_allocations, 1, __ATOMIC_RELAXED);
    return __libc_realloc(ptr, size);
}
void free(void *ptr) { __libc_free(ptr); }
static long long malloc_calls(void) { return __atomic_load_n(&process_allocations, __ATOMIC_RELAXED); }
#else
#define BENCH_COUNTS_MALLOC 0
static long long malloc_calls(void) { return 0; }
#endif

#ifndef BENCH_SOURCE_DIR
#define BENCH_SOURCE_DIR "bench"
#endif

#define PROG "blendwerk-character-bench"
#define FRAME_DT (1.0f / 60.0f)
#define MAX_PARTS 16
#define SCRATCH_LAYERS 8 /* the most layers of a graph the bench runs (checked) */
#define WARMUP_FRAMES 120
#define BUDGET_NS 16.6e6

static alloc_stats stats;
static bw_allocator counting = {counting_alloc, &stats};

/* ---- the clips: the workload's recipe, with foot markers and root drift ---- */
enum { CLIP_IDLE, CLIP_FWD, CLIP_BACK, CLIP_LEFT, CLIP_RIGHT, CLIP_WAVE, CLIP_CARRY, CLIP_BREATHE, CLIP_COUNT };
static const char *const clip_names[CLIP_COUNT] = {"idle", "fwd", "back", "left", "right", "wave", "carry", "breathe"};
static const int clip_intervals[CLIP_COUNT] = {60, 30, 36, 40, 40, 50, 45, 60};
/* root drift in m/s (x, z): what root motion extracts */
static const float clip_drift[CLIP_COUNT][2] = {{0, 0}, {0, 1.5f}, {0, -1.2f}, {-1.2f, 0}, {1.2f, 0}, {0, 0}, {0, 0}, {0, 0}};
#define LOCOMOTION_CLIPS 5 /* the first five carry foot markers (sync group "feet") */

typedef struct world {
    wl_skeleton sk;
    bw_rig *rig;
    bw_clip *clips[CLIP_COUNT];
    bw_binding_cache *bindings; /* one binding per clip, shared by every animator */
    bw_graph_scratch *scratch[MAX_PARTS]; /* the layer poses of each worker (bw_job_fn's `worker`) */
} world;

static void world_init(world *w)
{
    wl_skeleton_build(&w->sk, WL_BASE_JOINTS);
    w->rig = bench_make_rig(&w->sk, counting);
    uint32_t rng = 12345u;
    static wl_curves curves[WL_BASE_JOINTS];
    for (int c = 0; c < CLIP_COUNT; c++) {
        wl_curves_draw(clip_intervals[c], &rng, curves);
        const float length = (float)clip_intervals[c] / WL_FPS;
        bw_marker_desc markers[2] = {{"foot_l", 0.25f * length}, {"foot_r", 0.75f * length}};
        bench_clip_extra extra = {clip_names[c], {clip_drift[c][0], 0.0f, clip_drift[c][1]}, markers,
                                  c < LOCOMOTION_CLIPS ? 2 : 0};
        w->clips[c] = bench_make_clip(&w->sk, curves, w->rig, clip_intervals[c], &extra, counting);
    }
    bw_result r = bw_binding_cache_create(&counting, &w->bindings);
    if (r != BW_OK) bench_die(PROG, "bw_binding_cache_create", r);
    bw_graph_scratch_desc sd = {WL_BASE_JOINTS, bw_rig_curve_count(w->rig), SCRATCH_LAYERS, counting};
    for (int t = 0; t < MAX_PARTS; t++) {
        r = bw_graph_scratch_create(&sd, &w->scratch[t]);
        if (r != BW_OK) bench_die(PROG, "bw_graph_scratch_create", r);
    }
}

static void world_deinit(world *w)
{
    bw_binding_cache_destroy(w->bindings);
    for (int t = 0; t < MAX_PARTS; t++) bw_graph_scratch_destroy(w->scratch[t]);
    for (int c = 0; c < CLIP_COUNT; c++) bw_clip_destroy(w->clips[c]);
    bw_rig_destroy(w->rig);
}

/* ---- the graph, from the graph file, in a Lua state of its own ---- */
typedef struct lua_graph {
    lua_State *L;
    const bw_graph *graph;
} lua_graph;

/* (path, clips lightuserdata, clip count) -> Graph | nil, errors */
static int load_graph_protected(lua_State *L)
{
    const char *path = lua_tostring(L, 1);
    const bw_clip *const *clips = (const bw_clip *const *)lua_touserdata(L, 2);
    int count = (int)lua_tointeger(L, 3);
    return bw_lua_graph_load_file(L, "character bench", path, NULL, clips, count);
}

static void lua_graph_load(lua_graph *g, const world *w, const char *path, bool predicates)
{
    g->L = lua_newstate(counting_alloc, &stats);
    if (!g->L) bench_die(PROG, "lua_newstate", BW_ERR_OUT_OF_MEMORY);
    luaL_openlibs(g->L);
    luaL_requiref(g->L, "blendwerk", luaopen_blendwerk, 1);
    lua_pop(g->L, 1);
    lua_pushboolean(g->L, predicates);
    lua_setglobal(g->L, "BENCH_PREDICATES");
    lua_pushcfunction(g->L, load_graph_protected);
    lua_pushstring(g->L, path);
    lua_pushlightuserdata(g->L, (void *)w->clips);
    lua_pushinteger(g->L, CLIP_COUNT);
    if (lua_pcall(g->L, 3, 2, 0) != LUA_OK) {
        fprintf(stderr, "%s: %s\n", PROG, lua_tostring(g->L, -1));
        exit(1);
    }
    if (lua_isnil(g->L, -2)) {
        for (int i = 1; i <= (int)lua_rawlen(g->L, -1); i++) {
            lua_rawgeti(g->L, -1, i);
            fprintf(stderr, "%s\n", lua_tostring(g->L, -1));
            lua_pop(g->L, 1);
        }
        exit(1);
    }
    lua_pop(g->L, 1);
    g->graph = bw_lua_graph_check(g->L, -1); /* the Graph stays on the stack: alive */
}

/* ---- the Lua head-aim control: one sandbox and runner per partition ---- */
typedef struct lua_aim {
    bw_sandbox *sandbox;
    bw_controls *controls;
} lua_aim;

static void lua_aim_load(lua_aim *la, const world *w, int characters)
{
    char err[512];
    bw_sandbox_desc sd = {0};
    sd.dir = BENCH_SOURCE_DIR "/../scripts";
    sd.name = "head_aim.lua";
    la->sandbox = bw_sandbox_create(&sd, err, sizeof err);
    if (!la->sandbox) {
        fprintf(stderr, "%s: sandbox: %s\n", PROG, err);
        exit(1);
    }
    bw_controls_desc cd = {.sandbox = la->sandbox, .rig = w->rig, .character_count = characters, .dir = sd.dir,
                           .allocator = counting};
    la->controls = bw_controls_create(&cd, err, sizeof err);
    /* the animator's chain (neck, head) and weights */
    if (!la->controls ||
        bw_controls_load(la->controls, "head_aim.lua", "{ chain = { 'j004', 'j005' }, weights = { 0.4, 0.6 } }", err,
                         sizeof err) < 0) {
        fprintf(stderr, "%s: head_aim.lua: %s\n", PROG, err);
        exit(1);
    }
}

static void lua_aim_unload(lua_aim *la)
{
    bw_controls_destroy(la->controls);
    bw_sandbox_destroy(la->sandbox);
}

/* ---- one character ---- */
/* Time-stamp ticks spent in the Lua control of one partition (one thread
 * at a time runs a partition), on a line of its own. */
typedef struct control_clock {
    _Alignas(64) unsigned long long ticks;
    unsigned long long calls;
} control_clock;

typedef struct character {
    bw_animator *animator;
    bw_controls *controls;
    int control_index;           /* the character's index in its partition's runner */
    control_clock *control_clock; /* its partition's */
    float (*model)[4][4];
    uint32_t rng;
    float v[2], goal[2]; /* planar velocity and where its random walk heads */
    float yaw, look_phase;
    float position[3];
    bool carry;
    bw_character_param params[4];
} character;

typedef struct variant {
    const char *name;
    bool available;
    const char *why; /* when not available */
    bool predicates, head_aim, lua_aim;
    int parts;
    lua_graph graphs[MAX_PARTS];
    lua_aim aims[MAX_PARTS];
    int param_vx, param_vz, param_speed, param_carry;
    character *chars;
    int count;
    control_clock clocks[MAX_PARTS]; /* lua_aim: the control timed in place */
    long long bytes_per_character;
    int transition_frames, measured_frames; /* character-frames with a transition in flight */
} variant;

/* Partition p is characters [part_first(v, p), part_first(v, p + 1)): the
 * one rule the setup, the runners and the frame jobs all use. */
static int part_first(const variant *v, int p) { return (int)((long long)p * v->count / v->parts); }

static long long character_init(variant *v, const world *w, character *ch, int index, int part)
{
    const bw_graph *graph = v->graphs[part].graph;
    long long before = stats.bytes;
    static const char *const chain[2] = {"j004", "j005"}; /* neck, head */
    static const float chain_weights[2] = {0.4f, 0.6f};
    bw_animator_desc ad = {0};
    ad.rig = w->rig;
    ad.clips = (const bw_clip *const *)w->clips;
    ad.clip_names = clip_names;
    ad.clip_count = CLIP_COUNT;
    ad.head.chain = chain;
    ad.head.chain_count = 2;
    ad.head.weights = chain_weights;
    ad.head.disabled = !v->head_aim;
    ad.blink.seed = (uint32_t)index + 1u;
    ad.graph = graph;
    ad.root_joint = "j000";
    ad.allocator = counting;
    ad.binding_cache = w->bindings;
    bw_error errs[8];
    bw_animator_errors list = {errs, 8, 0};
    bw_result r = bw_animator_create(&ad, &ch->animator, &list);
    if (r != BW_OK) {
        for (int i = 0; i < list.count && i < 8; i++) fprintf(stderr, "%s: %s\n", errs[i].where, errs[i].message);
        bench_die(PROG, "bw_animator_create", r);
    }
    if (!bw_graph_scratch_fits(w->scratch[0], graph, w->rig)) bench_die(PROG, "bw_graph_scratch_fits", BW_ERR_LIMIT);
    ch->model = counting_alloc(&stats, NULL, 0, sizeof(float[4][4]) * WL_BASE_JOINTS);
    if (v->lua_aim) {
        ch->controls = v->aims[part].controls;
        ch->control_index = index - part_first(v, part);
        ch->control_clock = &v->clocks[part];
    }
    ch->rng = 0x9e3779b9u ^ (uint32_t)(index * 2654435761u);
    if (!ch->rng) ch->rng = 1;
    ch->yaw = 6.2831853f * wl_rand01(&ch->rng);
    ch->look_phase = 6.2831853f * wl_rand01(&ch->rng);
    ch->position[0] = (float)(index % 40) * 2.0f;
    ch->position[2] = (float)(index / 40) * 2.0f;
    ch->params[0].index = v->param_vx;
    ch->params[1].index = v->param_vz;
    ch->params[2].index = v->param_speed;
    ch->params[3].index = v->param_carry;
    return stats.bytes - before + (long long)sizeof(character);
}

/* The character's input for this frame: the velocity walks toward a goal
 * redrawn with probability 1/120 per frame (standing still a third of the
 * time, so idle <-> move fades happen); `carry` flips with probability
 * 1/120 per frame. The look target circles the character's head. */
static void character_step(character *ch)
{
    if (wl_next(&ch->rng) % 120u == 0) {
        if (wl_next(&ch->rng) % 3u == 0) {
            ch->goal[0] = ch->goal[1] = 0.0f;
        } else {
            ch->goal[0] = (wl_rand01(&ch->rng) * 2.0f - 1.0f) * 1.2f;
            ch->goal[1] = (wl_rand01(&ch->rng) * 2.7f - 1.2f);
        }
    }
    if (wl_next(&ch->rng) % 120u == 0) ch->carry = !ch->carry;
    for (int d = 0; d < 2; d++) ch->v[d] += (ch->goal[d] - ch->v[d]) * 0.05f;
    ch->look_phase += 0.9f * FRAME_DT;
}

static void character_frame(const world *w, int worker, character *ch, const bw_animator *next)
{
    character_step(ch);
    ch->params[0].value = ch->v[0];
    ch->params[1].value = ch->v[1];
    ch->params[2].value = sqrtf(ch->v[0] * ch->v[0] + ch->v[1] * ch->v[1]);
    ch->params[3].value = ch->carry ? 1.0f : 0.0f;
    bw_character_state st = {0};
    memcpy(st.position, ch->position, sizeof st.position);
    st.yaw = ch->yaw;
    st.has_look_at = true;
    st.look_at[0] = ch->position[0] + 3.0f * sinf(ch->look_phase);
    st.look_at[1] = 1.6f + 0.5f * sinf(0.7f * ch->look_phase);
    st.look_at[2] = ch->position[2] + 3.0f * cosf(ch->look_phase);
    st.params = ch->params;
    st.param_count = 4;
    bw_result r = bw_animator_update_in(ch->animator, w->scratch[worker], FRAME_DT, &st, NULL);
    if (r != BW_OK) bench_die(PROG, "bw_animator_update", r);
    if (ch->controls) {
        /* the control aims the animator's pose in place (bw_animator_pose_mutable: no copy) */
        bw_control_input in = {{st.position[0], st.position[1], st.position[2]}, st.yaw, true,
                               {st.look_at[0], st.look_at[1], st.look_at[2]}};
        unsigned long long t0 = bench_ticks();
        int failed = bw_controls_run(ch->controls, ch->control_index, bw_animator_pose_mutable(ch->animator), &in,
                                     FRAME_DT);
        ch->control_clock->ticks += bench_ticks() - t0;
        ch->control_clock->calls++;
        if (failed) {
            fprintf(stderr, "%s: head_aim.lua failed: %s\n", PROG, bw_controls_error(ch->controls));
            exit(1);
        }
    }
    /* a crowd loop's cache hint (animator.h): the next character is fetched
     * while this one's local-to-model runs, after its update has taken its
     * own first touches (bench/README.md: 0.94-0.95 x the time of the hint
     * before the update) */
    if (next) {
        bw_animator_prefetch(next);
        if (ch->controls) bw_controls_prefetch(ch->controls, ch->control_index + 1); /* next is in this partition */
    }
    bw_pose_local_to_model(w->rig, bw_animator_pose(ch->animator), ch->model);
}

static bool in_transition(const character *ch)
{
    const bw_graph_cursor *c = bw_animator_cursor(ch->animator);
    for (int l = 0; l < bw_graph_layer_count(bw_graph_cursor_graph(c)); l++) {
        bw_graph_layer_status s;
        if (bw_graph_cursor_layer_status(c, l, &s) == BW_OK && s.transition.active) return true;
    }
    return false;
}

static int find_param(const bw_graph *g, const char *name)
{
    int i = bw_graph_find_param(g, name);
    if (i < 0) {
        fprintf(stderr, "%s: the graph has no parameter '%s'\n", PROG, name);
        exit(1);
    }
    return i;
}

static void variant_init(variant *v, const world *w, const char *graph_path, int count, int parts)
{
    v->parts = parts;
    v->count = count;
    for (int p = 0; p < parts; p++) {
        lua_graph_load(&v->graphs[p], w, graph_path, v->predicates);
        if (v->lua_aim) lua_aim_load(&v->aims[p], w, part_first(v, p + 1) - part_first(v, p));
    }
    const bw_graph *g = v->graphs[0].graph;
    v->param_vx = find_param(g, "vx");
    v->param_vz = find_param(g, "vz");
    v->param_speed = find_param(g, "speed");
    v->param_carry = find_param(g, "carry");
    v->chars = calloc((size_t)count, sizeof(character));
    for (int p = 0; p < parts; p++)
        for (int i = part_first(v, p); i < part_first(v, p + 1); i++)
            v->bytes_per_character = character_init(v, w, &v->chars[i], i, p);
}

static void variant_deinit(variant *v)
{
    for (int i = 0; i < v->count; i++) {
        bw_animator_destroy(v->chars[i].animator);
        counting_alloc(&stats, v->chars[i].model, sizeof(float[4][4]) * WL_BASE_JOINTS, 0);
    }
    free(v->chars);
    for (int p = 0; p < v->parts; p++) {
        if (v->lua_aim) lua_aim_unload(&v->aims[p]);
        lua_close(v->graphs[p].L);
    }
}

/* ---- frames ---- */
typedef struct frame_job {
    const world *w;
    variant *v;
    bool count_transitions;
} frame_job;

/* Items are partitions: partition p is characters [p·n/P, (p+1)·n/P). */
static void run_parts(void *user, int begin, int end, int worker)
{
    frame_job *job = (frame_job *)user;
    variant *v = job->v;
    for (int p = begin; p < end; p++) {
        int lo = part_first(v, p), hi = part_first(v, p + 1);
        for (int i = lo; i < hi; i++)
            character_frame(job->w, worker, &v->chars[i], i + 1 < hi ? v->chars[i + 1].animator : NULL);
        if (job->count_transitions)
            for (int i = lo; i < hi; i++) v->transition_frames += in_transition(&v->chars[i]);
    }
}

static void run_frame(const world *w, variant *v, bw_jobs *jobs, bool count_transitions)
{
    frame_job job = {w, v, count_transitions};
    if (jobs) bw_jobs_run(jobs, v->parts, 1, run_parts, &job);
    else run_parts(&job, 0, v->parts, 0);
    if (count_transitions) v->measured_frames += v->count;
}

typedef struct series {
    double *all, *clean;
    int num_all, num_clean;
} series;

static void series_add(series *s, double v, bool clean)
{
    s->all[s->num_all++] = v;
    if (clean) s->clean[s->num_clean++] = v;
}

/* What one bench_ticks() pair costs with nothing between, in ticks: the
 * median of 101 runs of 1,000 pairs. It is taken off every timed call. */
static double tick_pair_cost(void)
{
    double v[101], med, p10;
    for (int r = 0; r < 101; r++) {
        unsigned long long sum = 0;
        for (int i = 0; i < 1000; i++) {
            unsigned long long t0 = bench_ticks();
            sum += bench_ticks() - t0;
        }
        v[r] = (double)sum / 1000.0;
    }
    bench_median_p10(v, 101, &med, &p10);
    return med;
}

static double tick_cost;   /* tick_pair_cost(), once at start */
static double ns_per_tick; /* the last one-thread block's tick rate (to print tick_cost in ns) */

/* The ticks and calls of the control clocks of v's partitions, summed. */
static void control_totals(const variant *v, unsigned long long *ticks, unsigned long long *calls)
{
    *ticks = *calls = 0;
    for (int p = 0; p < v->parts; p++) {
        *ticks += v->clocks[p].ticks;
        *calls += v->clocks[p].calls;
    }
}

/* One block: an untimed frame, then `frames` timed ones; ns per
 * character-frame into s, and with the Lua control on one thread its own
 * time per character-frame into ctl, the ticks converted by the block's
 * own tick rate. */
static void run_block(const world *w, variant *v, bw_jobs *jobs, int frames, series *s, series *ctl, bool record)
{
    run_frame(w, v, jobs, false);
    unsigned long long ticks0, calls0, ticks1, calls1;
    control_totals(v, &ticks0, &calls0);
    double c0 = bench_now_ns(CLOCK_THREAD_CPUTIME_ID), t0 = bench_now_ns(CLOCK_MONOTONIC);
    unsigned long long k0 = bench_ticks();
    for (int f = 0; f < frames; f++) run_frame(w, v, jobs, false);
    unsigned long long k1 = bench_ticks();
    double t1 = bench_now_ns(CLOCK_MONOTONIC), c1 = bench_now_ns(CLOCK_THREAD_CPUTIME_ID);
    if (!record) return;
    double ns = (t1 - t0) / ((double)frames * v->count);
    bool clean = jobs || (c1 - c0) / (t1 - t0) >= 0.97;
    series_add(s, ns, clean);
    if (!v->lua_aim || jobs || k1 <= k0) return;
    control_totals(v, &ticks1, &calls1);
    ns_per_tick = (t1 - t0) / (double)(k1 - k0);
    double spent = (double)(ticks1 - ticks0) - tick_cost * (double)(calls1 - calls0);
    series_add(ctl, spent * ns_per_tick / ((double)frames * v->count), clean);
}

static double series_median(series *s, int *used)
{
    bool clean = s->num_clean >= 3;
    *used = clean ? s->num_clean : s->num_all;
    double med, p10;
    bench_median_p10(clean ? s->clean : s->all, *used, &med, &p10);
    return med;
}

static int usage(void)
{
    fprintf(stderr, "usage: " PROG " [--quick] [--json] [--characters N] [--reps R] [--frames F] [--threads N] "
                    "[--graph FILE] [--no-lua-aim]\n");
    return 2;
}

enum { V_COMPILED, V_LUA, V_LUA_AIM, V_NO_AIM, V_COUNT };

int main(int argc, char **argv)
{
    bool lua_aim_wanted = true;
    const char *graph_path = BENCH_SOURCE_DIR "/character.lua";
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    bench_options o = {.count = 1000, .reps = 21, .quick_reps = 9, .frames = 4, .threads = ncpu > 1 ? 2 : 1};
    for (int i = 1; i < argc; i++) {
        if (bench_common_option(argc, argv, &i, &o)) continue;
        if (!strcmp(argv[i], "--graph") && i + 1 < argc) graph_path = argv[++i];
        else if (!strcmp(argv[i], "--no-lua-aim")) lua_aim_wanted = false;
        else return usage();
    }
    const int json = o.json, count = o.count, reps = o.reps, frames = o.frames, threads = o.threads;
    if (count < 1 || reps < 1 || frames < 1 || threads < 1 || threads > MAX_PARTS || count < threads) return usage();

    static world w;
    world_init(&w);
    static variant vs[V_COUNT];
    vs[V_COMPILED] = (variant){.name = "compiled", .head_aim = true};
    vs[V_LUA] = (variant){.name = "lua_predicates", .predicates = true, .head_aim = true};
    vs[V_LUA_AIM] = (variant){.name = "lua_head_aim", .lua_aim = true};
    vs[V_NO_AIM] = (variant){.name = "no_head_aim"};
    if (!lua_aim_wanted) vs[V_LUA_AIM].why = "left out (--no-lua-aim)";
    for (int k = 0; k < V_COUNT; k++) {
        if (vs[k].why) continue;
        vs[k].available = true;
        variant_init(&vs[k], &w, graph_path, count, threads);
    }
    bw_jobs *pool = NULL;
    bw_jobs_desc pd = {.thread_count = threads, .allocator = counting};
    if (threads > 1 && bw_jobs_create(&pd, &pool) != BW_OK) {
        fprintf(stderr, "%s: cannot start threads\n", PROG);
        return 1;
    }

    /* warm-up: transitions, blinks and Lua's first calls have happened */
    for (int k = 0; k < V_COUNT; k++)
        for (int f = 0; f < WARMUP_FRAMES && vs[k].available; f++) run_frame(&w, &vs[k], NULL, false);
    /* how much of the time a transition is in flight (not timed) */
    for (int k = 0; k < V_COUNT; k++)
        for (int f = 0; f < WARMUP_FRAMES && vs[k].available; f++) run_frame(&w, &vs[k], NULL, true);

    series one[V_COUNT], many[V_COUNT];
    series control = {calloc((size_t)reps, sizeof(double)), calloc((size_t)reps, sizeof(double)), 0, 0};
    for (int k = 0; k < V_COUNT; k++) {
        one[k] = (series){calloc((size_t)reps, sizeof(double)), calloc((size_t)reps, sizeof(double)), 0, 0};
        many[k] = (series){calloc((size_t)reps, sizeof(double)), calloc((size_t)reps, sizeof(double)), 0, 0};
    }
    tick_cost = tick_pair_cost();
    long long calls_before = stats.calls, malloc_before = malloc_calls();
    long long timed_frames = 0;
    for (int r = 0; r < 1 + reps; r++)
        for (int k = 0; k < V_COUNT; k++) {
            if (!vs[k].available) continue;
            run_block(&w, &vs[k], NULL, frames, &one[k], &control, r >= 1);
            if (pool) run_block(&w, &vs[k], pool, frames, &many[k], NULL, r >= 1);
            timed_frames += (1 + frames) * (pool ? 2 : 1);
        }
    long long allocations = stats.calls - calls_before, mallocs = malloc_calls() - malloc_before;
    double per_frame = timed_frames ? (double)allocations / (double)timed_frames : 0.0;

    if (json) printf("{\"characters\":%d,\"joints\":%d,\"threads\":%d,\"simd\":\"%s\",\"variants\":[", count,
                     WL_BASE_JOINTS, threads, bw_simd_path_name(bw_simd_active()));
    else
        printf(PROG ": %d characters x %d joints, simd path %s, %d reps x %d frames, %d thread(s), graph %s\n", count,
               WL_BASE_JOINTS, bw_simd_path_name(bw_simd_active()), reps, frames, threads, graph_path);
    double compiled_ns = 0, med[V_COUNT] = {0};
    for (int k = 0; k < V_COUNT; k++) {
        variant *v = &vs[k];
        if (!v->available) {
            if (json) printf("%s{\"name\":\"%s\",\"available\":false}", k ? "," : "", v->name);
            else printf("%s: not available: %s\n", v->name, v->why);
            continue;
        }
        int n1 = 0, n2 = 0;
        double ns1 = series_median(&one[k], &n1), ns2 = pool ? series_median(&many[k], &n2) : ns1;
        if (k == V_COMPILED) compiled_ns = ns1;
        med[k] = ns1;
        double in_flight = v->measured_frames ? (double)v->transition_frames / v->measured_frames : 0.0;
        double vs_compiled = compiled_ns > 0 ? ns1 / compiled_ns : 0.0;
        if (json)
            printf("%s{\"name\":\"%s\",\"available\":true,\"ns_per_character_frame\":%.1f,\"characters_per_16_6ms\":%.0f,"
                   "\"threads_ns_per_character_frame\":%.1f,\"threads_characters_per_16_6ms\":%.0f,\"scaling\":%.3f,"
                   "\"vs_compiled\":%.3f,\"transition_fraction\":%.3f,\"bytes_per_character\":%lld,\"clean\":%d}",
                   k ? "," : "", v->name, ns1, BUDGET_NS / ns1, ns2, BUDGET_NS / ns2, ns1 / ns2, vs_compiled, in_flight,
                   v->bytes_per_character, n1);
        else
            printf("%s: %.1f ns per character-frame (%.0f characters per 16.6 ms, clean %d/%d); %d threads: %.1f ns "
                   "(%.0f per 16.6 ms), %.2fx one thread; %.3fx compiled; transitions in flight %.1f%% of "
                   "character-frames; %lld bytes per character\n",
                   v->name, ns1, BUDGET_NS / ns1, one[k].num_clean, one[k].num_all, threads, ns2, BUDGET_NS / ns2,
                   ns1 / ns2, vs_compiled, 100.0 * in_flight, v->bytes_per_character);
    }
    /* head aim alone: each variant minus the one without head aim */
    double c_aim = med[V_COMPILED] - med[V_NO_AIM], l_aim = vs[V_LUA_AIM].available ? med[V_LUA_AIM] - med[V_NO_AIM] : 0;
    /* the Lua control timed in place, around each bw_controls_run call */
    int n_timed = 0;
    double l_timed = control.num_all ? series_median(&control, &n_timed) : 0.0;
    double tick_ns = tick_cost * ns_per_tick; /* the pair's cost in ns, for the report */
    double mallocs_per_frame = timed_frames ? (double)mallocs / (double)timed_frames : 0.0;
    if (json)
        printf("],\"c_head_aim_ns\":%.1f,\"lua_head_aim_ns\":%.1f,\"lua_head_aim_timed_ns\":%.1f,"
               "\"allocations_per_frame\":%.3f,\"mallocs_per_frame\":%.3f,\"mallocs_counted\":%s}\n",
               c_aim, l_aim, l_timed, per_frame, mallocs_per_frame, BENCH_COUNTS_MALLOC ? "true" : "false");
    else {
        printf("head aim per character-frame (variant minus no_head_aim): C (animator) %.1f ns", c_aim);
        if (vs[V_LUA_AIM].available) printf(", Lua control (in place, no pose copy) %.1f ns", l_aim);
        if (control.num_all)
            printf("\nLua control timed in place: %.1f ns per character-frame, %.3f of the compiled variant's (median "
                   "of %d %sblocks; the clock's own %.1f ns a call taken off)",
                   l_timed, compiled_ns > 0 ? l_timed / compiled_ns : 0.0, n_timed,
                   n_timed == control.num_clean ? "clean " : "", tick_ns);
        printf("\nallocations per frame after warm-up: %.3f through the allocators (%lld over %lld crowd frames)", per_frame,
               allocations, timed_frames);
        if (BENCH_COUNTS_MALLOC) printf(", %.3f malloc/calloc/realloc calls of the whole process", mallocs_per_frame);
        else printf(" (process-wide malloc count not available in this build)");
        printf("\n");
    }

    for (int k = 0; k < V_COUNT; k++) {
        free(one[k].all), free(one[k].clean), free(many[k].all), free(many[k].clean);
        if (vs[k].available) variant_deinit(&vs[k]);
    }
    free(control.all), free(control.clean);
    bw_jobs_destroy(pool);
    world_deinit(&w);
    return allocations == 0 && mallocs == 0 ? 0 : 1;
}
