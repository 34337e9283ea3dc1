/* controls.c - the procedural control runner (controls.h).
 *
 * Everything Lua-side lives in the sandbox's registry: per control its
 * script table (keeps the functions), options and a states table indexed
 * by character; per runner one ctx table per character and one Pose
 * userdata that is pointed at the host's bw_pose for each call. Loads and
 * reloads build the new version completely aside and swap it in only when
 * every step worked. */
#define _POSIX_C_SOURCE 200809L
#include "controls.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua_graph.h"
#include "lua_support.h"
#include "sandbox_internal.h"
#include "watch.h"

#define CONTROL_NAME_MAX 256

typedef struct control {
    char name[CONTROL_NAME_MAX];
    int table_ref, options_ref, states_ref;
    bw_sandbox_callback update;
    const void **state_at; /* per character: its state table's address (lua_topointer), a prefetch hint */
    int priority;
    int serial; /* load order, for ties */
    int version;  /* reloads of this control that went in */
    int rejected; /* reloads of this control that were rejected */
    bool keep_state;
    bw_file_stamp stamp; /* the file when it was loaded (for poll) */
    uint64_t modules;    /* the sandbox's modules it required while loading, transitively (sandbox.h) */
    uint64_t attempted;  /* those its last rejected reload required (0 after a success): watched,
                           and a change of one reloads it, so mending only a new module works */
} control;

/* The modules whose change reloads control k. */
static uint64_t control_modules(const control *k) { return k->modules | k->attempted; }

/* Prefetch hints per character (bw_controls_run): the addresses of the
 * tables every frame touches, taken once. Only ever prefetched, never
 * read through: a script that replaces ctx.gaze makes a hint stale, which
 * costs a wasted prefetch and nothing else. */
#define HOT_PER_CHARACTER 4
typedef struct slot {
    double time;                        /* ctx.time */
    const void *hot[HOT_PER_CHARACTER]; /* ctx, ctx.position, ctx.target, ctx.gaze (lua_topointer) */
    int refs[3];                        /* ctx, ctx.position and ctx.target (registry refs) */
} slot;

struct bw_controls {
    bw_allocator allocator;
    bw_sandbox *sb;
    lua_State *L;
    const bw_rig *rig;
    int characters;
    char dir[BW_SANDBOX_PATH_MAX];
    bw_watch *watch;
    control list[BW_CONTROLS_MAX];
    control staged[BW_CONTROLS_MAX]; /* the new versions of a reload, swapped in together */
    int count, serial;
    int order[BW_CONTROLS_MAX]; /* indices into list, run order */
    int ctxs_ref, pose_ref;
    struct slot *slot; /* per character: ctx.time, the prefetch hints and the refs (one block) */
    int inputs_ref;    /* write_inputs as a closure over the interned keys "time", "yaw", "has_target" */
    bw_lua_pose *pose;
    int reloads;
    uint64_t pending;   /* changed modules whose reload was rejected: still the old versions run */
    uint64_t attempted; /* the modules the last build that failed required (for control.attempted) */
    char error[BW_CONTROLS_ERROR_MAX];
    char rejected[BW_CONTROLS_MAX][BW_CONTROLS_ERROR_MAX]; /* per control: its last reload's failure, "" */
    bw_controls_report_fn report; /* desc.report */
    void *user;
    bw_sandbox_reporter host_reporter; /* the sandbox's own, put back after a run */
    int running; /* in bw_controls_run: the control (index into list) whose update runs, else -1 */
};

/* The desc's allocator (fn NULL: the C library), for the runner's own blocks. */
static void *mem_alloc(const bw_allocator *a, size_t size)
{
    void *p = a->fn ? a->fn(a->user, NULL, 0, size) : malloc(size);
    if (p) memset(p, 0, size);
    return p;
}

static void mem_free(const bw_allocator *a, void *p, size_t size)
{
    if (!p) return;
    if (a->fn) a->fn(a->user, p, size, 0);
    else free(p);
}

/* The load's error: kept for bw_controls_error and copied to err. */
static void set_error(bw_controls *c, char *err, size_t err_size, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void set_error(bw_controls *c, char *err, size_t err_size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->error, sizeof c->error, fmt, ap);
    va_end(ap);
    if (err && err_size) snprintf(err, err_size, "%s", c->error);
}

/* ---- the ctx tables and the pose handle (built once, protected) ---- */

static void new_zeros(lua_State *L, int n, const char *field)
{
    lua_createtable(L, n, 0);
    for (int i = 1; i <= n; i++) {
        lua_pushnumber(L, 0);
        lua_rawseti(L, -2, i);
    }
    lua_setfield(L, -2, field);
}

/* The scripts' Pose: over the host's pose during a run, else over a
 * scratch pose of the rig's size that the handle owns (in the state's
 * memory), so a script that kept the handle and uses it later - in a
 * reload, another control's init, after the runner is gone - works on
 * arrays that exist and that nobody reads. */
typedef struct controls_pose {
    bw_lua_pose handle; /* first: the object the scripts hold */
    bw_pose scratch;
} controls_pose;

/* The handle's destroy: only the scratch is its own (the host's arrays are the host's). */
static void destroy_scratch(bw_lua_object *o) { bw_pose_deinit(&((controls_pose *)o)->scratch); }

/* Between runs the handle shows the scratch pose. */
static void detach_pose(bw_controls *c) { c->pose->pose = ((controls_pose *)c->pose)->scratch; }

static int write_inputs(lua_State *L);

static int setup_protected(lua_State *L)
{
    bw_controls *c = (bw_controls *)lua_touserdata(L, 1);
    /* The scripts' Rig is a copy of the host's, owned by its handle (made
     * empty first, then filled): a script that changes it (rig:set_rest)
     * cannot touch the host's rig, which other characters and threads
     * share. Same joints, parents and curves, so indices agree. */
    bw_lua_rig *r = bw_lua_push_rig(L, NULL, 0);
    int rig = lua_gettop(L);
    bw_result res = bw_rig_clone(c->rig, bw_lua_allocator(L), &r->rig, NULL);
    if (res != BW_OK) return luaL_error(L, "cannot copy the rig: %s", bw_result_name(res));
    controls_pose *cp = (controls_pose *)bw_lua_new_object(L, sizeof *cp, 1, BW_LUA_POSE, destroy_scratch);
    bw_lua_pose *p = &cp->handle;
    p->rig = r;
    p->hdr.borrowed = true;
    bw_lua_object_use(&p->hdr, &r->hdr);
    lua_pushvalue(L, rig);
    lua_setiuservalue(L, -2, BW_LUA_UV_POSE_RIG);
    res = bw_pose_init(&cp->scratch, r->rig, bw_lua_allocator(L));
    if (res != BW_OK) return luaL_error(L, "cannot make the scripts' pose: %s", bw_result_name(res));
    bw_pose_set_rest(&cp->scratch, r->rig);
    p->pose = cp->scratch;
    c->pose_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    c->pose = p; /* only once the registry holds it: destroy writes to it */
    lua_createtable(L, c->characters, 0);
    for (int i = 1; i <= c->characters; i++) {
        lua_createtable(L, 0, 12);
        lua_pushinteger(L, i);
        lua_setfield(L, -2, "character");
        lua_pushvalue(L, rig);
        lua_setfield(L, -2, "rig");
        lua_pushnumber(L, 0);
        lua_setfield(L, -2, "time");
        lua_pushnumber(L, 0);
        lua_setfield(L, -2, "yaw");
        lua_pushboolean(L, 0);
        lua_setfield(L, -2, "has_target");
        new_zeros(L, 3, "position");
        new_zeros(L, 3, "target");
        new_zeros(L, 4, "gaze");
        new_zeros(L, BW_ARKIT52_COUNT, "arkit");
        lua_newtable(L);
        lua_setfield(L, -2, "overrides");
        int *refs = c->slot[i - 1].refs;
        const void **hot = c->slot[i - 1].hot;
        hot[0] = lua_topointer(L, -1);
        static const char *const hot_fields[HOT_PER_CHARACTER - 1] = {"position", "target", "gaze"};
        for (int f = 0; f < HOT_PER_CHARACTER - 1; f++) {
            lua_getfield(L, -1, hot_fields[f]);
            hot[f + 1] = lua_topointer(L, -1);
            lua_pop(L, 1);
        }
        lua_pushvalue(L, -1);
        refs[0] = luaL_ref(L, LUA_REGISTRYINDEX);
        lua_getfield(L, -1, "position");
        refs[1] = luaL_ref(L, LUA_REGISTRYINDEX);
        lua_getfield(L, -1, "target");
        refs[2] = luaL_ref(L, LUA_REGISTRYINDEX);
        lua_rawseti(L, -2, i);
    }
    c->ctxs_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    /* the keys as upvalues (KEY_*): no string lookups per frame, and one
       registry read pushes the writer with all three */
    lua_pushstring(L, "time");
    lua_pushstring(L, "yaw");
    lua_pushstring(L, "has_target");
    lua_pushcclosure(L, write_inputs, 3);
    c->inputs_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

bw_controls *bw_controls_create(const bw_controls_desc *desc, char *err, size_t err_size)
{
    const char *why = NULL;
    if (!desc || !desc->sandbox || !desc->rig) why = "desc, desc.sandbox and desc.rig are required";
    else if (desc->character_count < 1 || desc->character_count > 65536) why = "character_count is not in [1, 65536]";
    else if (desc->dir && strlen(desc->dir) >= BW_SANDBOX_PATH_MAX) why = "dir is too long";
    if (why) {
        if (err && err_size) snprintf(err, err_size, "controls: %s", why);
        return NULL;
    }
    const bw_allocator a = desc->allocator;
    bw_controls *c = (bw_controls *)mem_alloc(&a, sizeof *c);
    if (!c) {
        if (err && err_size) snprintf(err, err_size, "controls: out of memory");
        return NULL;
    }
    c->allocator = a;
    c->sb = desc->sandbox;
    c->L = bw_sandbox_state(desc->sandbox);
    c->rig = desc->rig;
    c->characters = desc->character_count;
    c->report = desc->report;
    c->user = desc->user;
    c->running = -1;
    c->ctxs_ref = c->pose_ref = LUA_NOREF;
    c->inputs_ref = LUA_NOREF;
    snprintf(c->dir, sizeof c->dir, "%s", desc->dir ? desc->dir : ".");
    c->slot = (slot *)mem_alloc(&a, sizeof *c->slot * (size_t)c->characters);
    for (int i = 0; c->slot && i < c->characters; i++)
        for (int r = 0; r < 3; r++) c->slot[i].refs[r] = LUA_NOREF;
    if (desc->watch) {
        bw_watch_desc wd = {desc->debounce > 0.0 ? desc->debounce : BW_WATCH_DEFAULT_DEBOUNCE, false};
        c->watch = bw_watch_create(&wd);
    }
    if (!c->slot || (desc->watch && !c->watch)) {
        if (err && err_size) snprintf(err, err_size, "controls: out of memory");
        bw_controls_destroy(c);
        return NULL;
    }
    lua_State *L = c->L;
    lua_pushcfunction(L, setup_protected);
    lua_pushlightuserdata(L, c);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
        if (err && err_size)
            snprintf(err, err_size, "controls: %s", lua_isstring(L, -1) ? lua_tostring(L, -1) : "setup failed");
        lua_pop(L, 1);
        bw_controls_destroy(c);
        return NULL;
    }
    return c;
}

static void unref(lua_State *L, int *ref)
{
    if (*ref != LUA_NOREF && *ref != LUA_REFNIL) luaL_unref(L, LUA_REGISTRYINDEX, *ref);
    *ref = LUA_NOREF;
}

static void control_release(bw_controls *c, control *k)
{
    bw_sandbox_callback_deinit(c->sb, &k->update);
    unref(c->L, &k->table_ref);
    unref(c->L, &k->options_ref);
    unref(c->L, &k->states_ref);
    mem_free(&c->allocator, (void *)k->state_at, sizeof *k->state_at * (size_t)c->characters);
    k->state_at = NULL;
}

void bw_controls_destroy(bw_controls *c)
{
    if (!c) return;
    for (int i = 0; i < c->count; i++) control_release(c, &c->list[i]);
    if (c->pose) detach_pose(c); /* the handle may outlive the runner in the sandbox */
    unref(c->L, &c->pose_ref);
    unref(c->L, &c->ctxs_ref);
    for (int i = 0; c->slot && i < c->characters; i++)
        for (int r = 0; r < 3; r++) unref(c->L, &c->slot[i].refs[r]);
    unref(c->L, &c->inputs_ref);
    const bw_allocator a = c->allocator;
    mem_free(&a, c->slot, sizeof *c->slot * (size_t)c->characters);
    bw_watch_destroy(c->watch);
    mem_free(&a, c, sizeof *c);
}

int bw_controls_count(const bw_controls *c) { return c ? c->count : 0; }
const char *bw_controls_error(const bw_controls *c) { return c ? c->error : ""; }
int bw_controls_reloads(const bw_controls *c) { return c ? c->reloads : 0; }
int bw_controls_failures(const bw_controls *c, int k)
{
    return c && k >= 0 && k < c->count ? c->list[k].update.failures : 0;
}
bw_control_reloads bw_controls_reload_status(const bw_controls *c, int k)
{
    bw_control_reloads s = {0, 0, ""};
    if (c && k >= 0 && k < c->count) s = (bw_control_reloads){c->list[k].version, c->list[k].rejected, c->rejected[k]};
    return s;
}

/* ---- loading one version ---- */

/* Control file `name`'s stamp now. */
static bw_file_stamp stamp(const bw_controls *c, const char *name)
{
    char path[BW_SANDBOX_PATH_MAX + CONTROL_NAME_MAX + 2];
    snprintf(path, sizeof path, "%s/%s", c->dir, name);
    return bw_file_stamp_path(path);
}

/* Outside the setup, anything that may allocate runs protected: the state
 * may be at the sandbox's memory cap, and an unprotected memory error
 * would end the process. */
static int newtable_protected(lua_State *L)
{
    lua_createtable(L, (int)lua_tointeger(L, 1), 0);
    return 1;
}

static bool push_table(lua_State *L, int narr)
{
    lua_pushcfunction(L, newtable_protected);
    lua_pushinteger(L, narr);
    if (lua_pcall(L, 1, 1, 0) == LUA_OK) return true;
    lua_pop(L, 1);
    return false;
}

/* (name as a light userdata) -> the control file's first result: its
 * text run with every table constructor recording its line (the graph
 * reader's bw_lua_run_source, lua_graph.h), as the file's module loading
 * (bw_sandbox_call_as_file: a require of itself is a loop) */
static int run_source_of(lua_State *L)
{
    const char *name = (const char *)lua_touserdata(L, 1);
    bw_sandbox_push_file_text(L, NULL, name, NULL);
    size_t size = 0;
    const char *text = lua_tolstring(L, -1, &size);
    bw_lua_run_source(L, text, size, name);
    return 1;
}

static int run_control_file(lua_State *L)
{
    const char *name = (const char *)lua_touserdata(L, 1);
    lua_pushcfunction(L, run_source_of);
    lua_insert(L, 1);
    bw_sandbox_call_as_file(L, name, 1, 1);
    return 1;
}

/* The line of field `key` of the control file's table at t (the table's
 * own line when the key has none), 0 when unknown (a table a module made
 * carries no line of the control's file). */
static int key_line_protected(lua_State *L)
{
    lua_pushinteger(L, bw_lua_key_line(L, 1, (const char *)lua_touserdata(L, 2)));
    return 1;
}

static int field_line(lua_State *L, int t, const char *key)
{
    lua_pushcfunction(L, key_line_protected); /* the line tables' lookups may allocate: the state may be at its cap */
    lua_pushvalue(L, t);
    lua_pushlightuserdata(L, (void *)key);
    int location = lua_pcall(L, 2, 1, 0) == LUA_OK ? (int)lua_tointeger(L, -1) : 0;
    lua_pop(L, 1);
    return location < BW_LUA_LINE_FILE_STRIDE ? location : 0;
}

/* The script's table on top of the stack: check its fields, copy the
 * settings into *k and take its update function. Pops the table. On a
 * bad field *line is its line (0: unknown). */
static bool take_table(bw_controls *c, control *k, int *line, char *why, size_t why_size)
{
    lua_State *L = c->L;
    if (!lua_istable(L, -1)) {
        snprintf(why, why_size, "the script must return a table (it returned a %s)", luaL_typename(L, -1));
        lua_pop(L, 1);
        return false;
    }
    /* other fields are the script's own (helpers a module exports); the
     * reads are protected, since a script may have filled the state to its
     * cap and a field name may need a new string */
    int t = lua_gettop(L);
    bool ok = true;
    int type = bw_lua_raw_field_protected(L, t, "priority");
    bool memory = type == LUA_TNONE;
    int isint = 0;
    lua_Integer pr = lua_tointegerx(L, -1, &isint);
    if (type != LUA_TNIL && (!isint || pr < -(1 << 30) || pr > (1 << 30))) {
        snprintf(why, why_size, "priority must be an integer in [-2^30, 2^30]");
        *line = field_line(L, t, "priority");
        ok = false;
    }
    k->priority = type == LUA_TNIL ? 0 : (int)pr;
    lua_pop(L, 1);
    type = bw_lua_raw_field_protected(L, t, "keep_state");
    memory = memory || type == LUA_TNONE;
    if (ok && type != LUA_TNIL && type != LUA_TBOOLEAN) {
        snprintf(why, why_size, "keep_state must be a boolean");
        *line = field_line(L, t, "keep_state");
        ok = false;
    }
    k->keep_state = lua_toboolean(L, -1);
    lua_pop(L, 1);
    type = bw_lua_raw_field_protected(L, t, "init");
    memory = memory || type == LUA_TNONE;
    if (ok && type != LUA_TNIL && type != LUA_TFUNCTION) {
        snprintf(why, why_size, "init must be a function");
        *line = field_line(L, t, "init");
        ok = false;
    }
    lua_pop(L, 1);
    type = bw_lua_raw_field_protected(L, t, "reload");
    memory = memory || type == LUA_TNONE;
    if (ok && type != LUA_TNIL && type != LUA_TFUNCTION) {
        snprintf(why, why_size, "reload must be a function");
        *line = field_line(L, t, "reload");
        ok = false;
    }
    lua_pop(L, 1);
    type = bw_lua_raw_field_protected(L, t, "update");
    memory = memory || type == LUA_TNONE;
    if (ok && type != LUA_TFUNCTION) {
        snprintf(why, why_size, "update must be a function (it is a %s)", lua_typename(L, type));
        *line = field_line(L, t, "update");
        ok = false;
    }
    if (memory) {
        snprintf(why, why_size, "out of memory");
        *line = 0;
    }
    if (!ok || memory) {
        lua_pop(L, 2);
        return false;
    }
    if (!bw_sandbox_callback_init(c->sb, &k->update)) { /* pops the function */
        snprintf(why, why_size, "out of memory");
        lua_pop(L, 1);
        return false;
    }
    k->table_ref = bw_lua_ref_protected(L); /* pops the table */
    if (k->table_ref == LUA_NOREF) snprintf(why, why_size, "out of memory");
    return k->table_ref != LUA_REFNIL && k->table_ref != LUA_NOREF;
}

/* Whether the value on top is a table with no entries. */
static bool empty_table_on_top(lua_State *L)
{
    if (!lua_istable(L, -1)) return false;
    lua_pushnil(L);
    if (!lua_next(L, -2)) return true; /* pushes nothing at the end */
    lua_pop(L, 2);
    return false;
}

/* ---- copies: the state a reload gets, ctx across a load or reload ----
 *
 * reload(state, ctx, options) may change the table it is given and then
 * fail; the running version keeps its state, so reload gets a copy: every
 * plain table (no metatable) reached from the state, keys included, is
 * copied once (a table reached twice, or a cycle, keeps its shape in the
 * copy); everything else is shared as it is: tables with a metatable,
 * userdata (Rigs, Poses, Clips ...), functions, coroutines, and the
 * host's tables (ctx, its tables such as ctx.gaze, the options). The
 * memo (copied table -> copy) lasts one reload, across the characters,
 * so a table the states share stays shared. Copying is C work: charged
 * against the call's budget, its tables against the memory cap.
 *
 * The same copy of every ctx (ctx_save, below) is what a rejected load or
 * reload puts back. */

/* The copy of the value at idx pushed (a plain table not copied yet:
 * made empty, noted in memo and queued on `work` with its source, to be
 * filled by fill_copies). */
static void push_copy(lua_State *L, int idx, int memo, int work)
{
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TTABLE || lua_getmetatable(L, idx)) {
        if (lua_type(L, idx) == LUA_TTABLE) lua_pop(L, 1); /* its metatable */
        lua_pushvalue(L, idx);
        return;
    }
    lua_pushvalue(L, idx);
    if (lua_rawget(L, memo) != LUA_TNIL) return;
    lua_pop(L, 1);
    lua_createtable(L, (int)lua_rawlen(L, idx), 0);
    lua_pushvalue(L, idx);
    lua_pushvalue(L, -2);
    lua_rawset(L, memo);
    lua_Integer n = (lua_Integer)lua_rawlen(L, work);
    lua_pushvalue(L, idx);
    lua_rawseti(L, work, n + 1);
    lua_pushvalue(L, -1);
    lua_rawseti(L, work, n + 2);
}

/* The (source, copy) pair of queue `work` at position *at pushed, and *at
 * moved on to the next; false (nothing pushed) past the end. */
static bool push_pair(lua_State *L, int work, lua_Integer *at)
{
    if (*at >= (lua_Integer)lua_rawlen(L, work)) return false;
    lua_rawgeti(L, work, *at);
    lua_rawgeti(L, work, *at + 1);
    *at += 2;
    return true;
}

/* Fill every copy queued on `work` (push_copy) from its source, the
 * tables those reach queued and filled in turn; the queue keeps every
 * (source, copy) pair. */
static void fill_copies(lua_State *L, int memo, int work)
{
    for (lua_Integer at = 1; push_pair(L, work, &at);) {
        const int src = lua_gettop(L) - 1, dst = src + 1;
        lua_pushnil(L);
        while (lua_next(L, src)) {
            bw_sandbox_charge(L, 4.0);
            push_copy(L, -2, memo, work);
            push_copy(L, -2, memo, work);
            lua_rawset(L, dst);
            lua_pop(L, 1); /* the value: the key stays for lua_next */
        }
        lua_pop(L, 2);
    }
}

/* (memo, ctx, options, reload, state) -> what reload(copy of state, ctx,
 * options) returns, nil: the copy (as reload left it); ctx, its tables
 * and the options are noted as themselves first */
static int reload_copy(lua_State *L)
{
    const int memo = 1;
    for (int i = 2; i <= 3; i++) {
        if (lua_type(L, i) != LUA_TTABLE) continue;
        lua_pushvalue(L, i);
        lua_pushvalue(L, i);
        lua_rawset(L, memo);
    }
    lua_pushnil(L);
    while (lua_type(L, 2) == LUA_TTABLE && lua_next(L, 2)) {
        if (lua_type(L, -1) == LUA_TTABLE) {
            lua_pushvalue(L, -1);
            lua_rawset(L, memo); /* ctx.gaze -> ctx.gaze (pops both, keeps the key) */
        } else {
            lua_pop(L, 1);
        }
    }
    lua_newtable(L); /* 6: the work queue, pairs of (source, copy) */
    const int work = 6;
    push_copy(L, 5, memo, work);
    lua_replace(L, 5);
    fill_copies(L, memo, work);
    lua_settop(L, 5);
    lua_pushvalue(L, 4);
    lua_pushvalue(L, 5);
    lua_pushvalue(L, 2);
    lua_pushvalue(L, 3);
    lua_call(L, 3, 1);
    if (lua_isnil(L, -1)) lua_pushvalue(L, 5); /* nil: the copy as reload left it */
    return 1;
}

/* ---- ctx across a load or reload ----
 *
 * A load or reload runs the control's chunk, init and reload against the
 * characters' ctx tables themselves (a state or a closure that keeps ctx,
 * or one of its tables, keeps the table the host refreshes and reads), so
 * a version that is then rejected may have changed them. Before anything
 * of it runs, ctx_save copies every ctx the way a reload's state is
 * copied (above: every plain table reached, once); a rejection puts each
 * saved table back in place (ctx_restore: keys the copy lacks removed,
 * entries that differ set again, a copied table standing for its source
 * again), so every table keeps its identity: the host's references and
 * prefetch hints, another control's state holding ctx.gaze. Tables with
 * a metatable, userdata (ctx.rig), functions and coroutines are shared,
 * as in a reload's copy: what a rejected version did inside those stays.
 * A version that goes in keeps what it did; its copy is let go. The work
 * is proportional to the size of the ctx tables, at each load and reload,
 * never per frame. */

/* (ctxs) -> {memo, work, back}: every plain table reached from the ctxs
 * table copied; memo maps each source to its copy, work lists the
 * (source, copy) pairs, back maps each copy to its source */
static int ctx_save_protected(lua_State *L)
{
    lua_settop(L, 1);
    lua_createtable(L, 3, 0); /* 2: what is returned */
    lua_newtable(L);          /* 3: memo */
    lua_newtable(L);          /* 4: work */
    push_copy(L, 1, 3, 4);
    lua_pop(L, 1);
    fill_copies(L, 3, 4);
    lua_createtable(L, 0, (int)(lua_rawlen(L, 4) / 2)); /* 5: back */
    for (lua_Integer at = 1; push_pair(L, 4, &at);) {
        lua_insert(L, -2); /* copy, source */
        lua_rawset(L, 5);
    }
    for (int i = 3; i >= 1; i--) lua_rawseti(L, 2, i);
    return 1;
}

/* map[value at idx] when the map has it, else the value itself, pushed */
static void push_mapped(lua_State *L, int idx, int map)
{
    idx = lua_absindex(L, idx);
    lua_pushvalue(L, idx);
    if (lua_rawget(L, map) != LUA_TNIL) return;
    lua_pop(L, 1);
    lua_pushvalue(L, idx);
}

/* ({memo, work, back}) -> nothing: every saved table as it was saved */
static int ctx_restore_protected(lua_State *L)
{
    for (int i = 1; i <= 3; i++) lua_rawgeti(L, 1, i);
    const int memo = 2, work = 3, back = 4;
    for (lua_Integer at = 1; push_pair(L, work, &at);) {
        const int src = lua_gettop(L) - 1, copy = src + 1;
        /* the keys the saved table lacks go (an existing field may be set
         * to nil during the traversal) */
        lua_pushnil(L);
        while (lua_next(L, src)) {
            lua_pop(L, 1);
            push_mapped(L, -1, memo);
            bool gone = lua_rawget(L, copy) == LUA_TNIL;
            lua_pop(L, 1);
            if (gone) {
                lua_pushvalue(L, -1);
                lua_pushnil(L);
                lua_rawset(L, src);
            }
        }
        /* its entries back where they differ (a copy stands for its source) */
        lua_pushnil(L);
        while (lua_next(L, copy)) {
            push_mapped(L, -2, back);
            push_mapped(L, -2, back);
            lua_pushvalue(L, -2);
            lua_rawget(L, src);
            bool same = lua_rawequal(L, -1, -2);
            lua_pop(L, 1);
            if (same) lua_pop(L, 2);
            else lua_rawset(L, src);
            lua_pop(L, 1); /* the value: the key stays for lua_next */
        }
        lua_pop(L, 2);
    }
    return 0;
}

/* Save every ctx (above) into *ref before a load or reload of `name`;
 * false (*ref LUA_NOREF) with c->error set when the sandbox cannot (the
 * copy is charged to a call's budget and memory cap of its own). */
static bool ctx_save(bw_controls *c, const char *name, int *ref)
{
    lua_State *L = c->L;
    *ref = LUA_NOREF;
    lua_pushcfunction(L, ctx_save_protected);
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->ctxs_ref);
    if (bw_sandbox_call(c->sb, 1, 1) != BW_SANDBOX_OK) {
        snprintf(c->error, sizeof c->error, "%s: saving ctx: %s", name, bw_sandbox_error(c->sb));
        return false;
    }
    *ref = bw_lua_ref_protected(L); /* pops the copy */
    if (*ref == LUA_NOREF) snprintf(c->error, sizeof c->error, "%s: out of memory", name);
    return *ref != LUA_NOREF;
}

/* A rejected load or reload: every ctx back as ctx_save saved it into
 * *ref, which is let go. Putting a removed key back may need room in its
 * table, and the rejected version may have left the state at its memory
 * cap (garbage not collected yet): the cap is lifted for the restore,
 * which grows no table past the entries it held when saved, under the
 * cap. */
static void ctx_restore(bw_controls *c, int *ref)
{
    lua_State *L = c->L;
    size_t cap = bw_sandbox_set_memory_cap(c->sb, SIZE_MAX);
    lua_pushcfunction(L, ctx_restore_protected);
    lua_rawgeti(L, LUA_REGISTRYINDEX, *ref);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) { /* the C library's memory ran out */
        lua_pop(L, 1);
        size_t n = strlen(c->error);
        snprintf(c->error + n, sizeof c->error - n, " (ctx could not be put back: out of memory)");
    }
    bw_sandbox_set_memory_cap(c->sb, cap);
    unref(L, ref);
}

/* "file:line: WHAT returned a TYPE; return the state table (or nil)",
 * the line where the function `fn` (a stack index) starts. */
static void wrong_state(bw_controls *c, const control *k, int fn, const char *what, int result)
{
    lua_Debug ar;
    lua_State *L = c->L;
    const char *type = luaL_typename(L, result);
    lua_pushvalue(L, fn);
    if (lua_getinfo(L, ">S", &ar) && ar.linedefined > 0)
        snprintf(c->error, sizeof c->error, "%s:%d: %s returned a %s; return the state table (or nil)", ar.short_src,
                 ar.linedefined, what, type);
    else
        snprintf(c->error, sizeof c->error, "%s: %s returned a %s; return the state table (or nil)", k->name, what, type);
}

/* The states of a new version, into a new states table: without `old`,
 * init(ctx, options) per character (nil or no init: {}); with `old` (a
 * keep_state version) the running version's state per character, or what
 * the new version's reload(state, ctx, options) returns for it (nil: the
 * state as it is). Without reload, an old state that is an empty table
 * carries nothing: init runs for that character instead (a version that
 * never made state, e.g. an edit without init, must not leave every later
 * keep_state version with {}). False with c->error set when a call fails. */
static bool make_states(bw_controls *c, control *k, const control *old)
{
    lua_State *L = c->L;
    k->state_at = (const void **)mem_alloc(&c->allocator, sizeof *k->state_at * (size_t)c->characters);
    if (!k->state_at || !push_table(L, c->characters)) {
        snprintf(c->error, sizeof c->error, "%s: out of memory", k->name);
        return false;
    }
    int states = lua_gettop(L);
    if (old) lua_rawgeti(L, LUA_REGISTRYINDEX, old->states_ref);
    else lua_pushnil(L);
    int olds = lua_gettop(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, k->table_ref);
    int init_type = bw_lua_raw_field_protected(L, -1, "init");
    int reload_type = old ? bw_lua_raw_field_protected(L, -2, "reload") : LUA_TNIL;
    if (!old) lua_pushnil(L);
    if (init_type == LUA_TNONE || reload_type == LUA_TNONE) {
        snprintf(c->error, sizeof c->error, "%s: out of memory", k->name);
        lua_settop(L, states - 1);
        return false;
    }
    lua_remove(L, -3);
    const int init_fn = lua_gettop(L) - 1, reload_fn = lua_gettop(L);
    const int memo = reload_fn + 1; /* reload's copies (above) */
    if (old && reload_type == LUA_TFUNCTION && !push_table(L, 0)) {
        snprintf(c->error, sizeof c->error, "%s: out of memory", k->name);
        lua_settop(L, states - 1);
        return false;
    }
    for (int i = 1; i <= c->characters; i++) {
        int fn = 0, nargs = 2;
        if (old && reload_type == LUA_TFUNCTION) {
            fn = reload_fn;
            nargs = 3;
        } else if (init_type == LUA_TFUNCTION) {
            bool fresh = !old;
            if (old) {
                lua_rawgeti(L, olds, i);
                fresh = empty_table_on_top(L);
                lua_pop(L, 1);
            }
            if (fresh) fn = init_fn;
        }
        if (fn) {
            if (nargs == 3) { /* reload_copy(memo, ctx, options, reload, state) */
                lua_pushcfunction(L, reload_copy);
                lua_pushvalue(L, memo);
                nargs = 5;
            } else {
                lua_pushvalue(L, fn);
            }
            lua_rawgeti(L, LUA_REGISTRYINDEX, c->slot[i - 1].refs[0]);
            lua_rawgeti(L, LUA_REGISTRYINDEX, k->options_ref);
            if (nargs == 5) {
                lua_pushvalue(L, fn);
                lua_rawgeti(L, olds, i);
            }
            if (bw_sandbox_call(c->sb, nargs, 1) != BW_SANDBOX_OK) {
                snprintf(c->error, sizeof c->error, "%s", bw_sandbox_error(c->sb));
                lua_settop(L, states - 1);
                return false;
            }
            if (!lua_isnil(L, -1) && !lua_istable(L, -1)) {
                wrong_state(c, k, fn, fn == init_fn ? "init" : "reload", lua_gettop(L));
                lua_settop(L, states - 1);
                return false;
            }
        } else {
            lua_pushnil(L);
        }
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            if (old && fn != init_fn) {
                lua_rawgeti(L, olds, i);
            } else if (!push_table(L, 0)) {
                snprintf(c->error, sizeof c->error, "%s: out of memory", k->name);
                lua_settop(L, states - 1);
                return false;
            }
        }
        k->state_at[i - 1] = lua_topointer(L, -1);
        lua_rawseti(L, states, i); /* the slot exists (pre-sized): no allocation */
    }
    lua_settop(L, states);
    k->states_ref = bw_lua_ref_protected(L);
    if (k->states_ref == LUA_NOREF) {
        snprintf(c->error, sizeof c->error, "%s: out of memory", k->name);
        return false;
    }
    return true;
}

/* Build a version of `name` into *k (all refs fresh). `options_ref` is
 * taken over. On failure everything built is released and c->error says
 * why. `old` (may be NULL): the running version whose states a
 * keep_state version takes. */
static bool build(bw_controls *c, control *k, const char *name, int options_ref, const control *old)
{
    memset(k, 0, sizeof *k);
    k->table_ref = k->states_ref = LUA_NOREF;
    k->update.ref = LUA_NOREF;
    k->options_ref = options_ref;
    snprintf(k->name, sizeof k->name, "%s", name);
    k->stamp = stamp(c, name);
    char why[512];
    bw_sandbox_requires_begin(c->sb);
    lua_pushcfunction(c->L, run_control_file);
    lua_pushlightuserdata(c->L, k->name);
    if (bw_sandbox_call(c->sb, 1, 1) != BW_SANDBOX_OK) {
        snprintf(c->error, sizeof c->error, "%s", bw_sandbox_error(c->sb));
        goto fail;
    }
    int line = 0;
    if (!take_table(c, k, &line, why, sizeof why)) {
        if (line > 0) snprintf(c->error, sizeof c->error, "%s:%d: %s", name, line, why);
        else snprintf(c->error, sizeof c->error, "%s: %s", name, why);
        goto fail;
    }
    if (!make_states(c, k, old && k->keep_state ? old : NULL)) goto fail;
    k->modules = bw_sandbox_requires_end(c->sb);
    c->error[0] = '\0';
    return true;
fail:
    c->attempted = bw_sandbox_requires_end(c->sb);
    control_release(c, k);
    return false;
}

static void sort_order(bw_controls *c)
{
    for (int i = 0; i < c->count; i++) c->order[i] = i;
    for (int i = 1; i < c->count; i++) { /* insertion sort: stable, tiny n */
        int v = c->order[i], j = i - 1;
        const control *kv = &c->list[v];
        while (j >= 0 && (c->list[c->order[j]].priority > kv->priority ||
                          (c->list[c->order[j]].priority == kv->priority && c->list[c->order[j]].serial > kv->serial))) {
            c->order[j + 1] = c->order[j];
            j--;
        }
        c->order[j + 1] = v;
    }
}

/* Watch control k's file and every module it required (with desc.watch). */
static void watch_files(bw_controls *c, const control *k)
{
    if (!c->watch) return;
    char path[BW_SANDBOX_PATH_MAX + CONTROL_NAME_MAX + 2];
    snprintf(path, sizeof path, "%s/%s", c->dir, k->name);
    bw_watch_add(c->watch, path);
    uint64_t mods = control_modules(k);
    for (int m = 0; m < bw_sandbox_module_count(c->sb); m++)
        if ((mods >> m & 1u) && bw_sandbox_module_path(c->sb, m, path, sizeof path)) bw_watch_add(c->watch, path);
}

/* bw_controls_load's work once the arguments are checked: the options,
 * then the control built and added. */
static int load_control(bw_controls *c, const char *name, const char *options, char *err, size_t err_size)
{
    lua_State *L = c->L;
    /* the options: a table constructor evaluated in the sandbox */
    if (options) {
        size_t n = strlen(options);
        char *text = (char *)mem_alloc(&c->allocator, n + 16);
        if (!text) {
            set_error(c, err, err_size, "%s: out of memory", name);
            return -1;
        }
        snprintf(text, n + 16, "return %s", options);
        char chunk[CONTROL_NAME_MAX + 16];
        snprintf(chunk, sizeof chunk, "=%s options", name);
        bw_sandbox_status st = bw_sandbox_load_string(c->sb, text, strlen(text), chunk);
        mem_free(&c->allocator, text, n + 16);
        if (st == BW_SANDBOX_OK) st = bw_sandbox_call(c->sb, 0, 1);
        if (st != BW_SANDBOX_OK) {
            set_error(c, err, err_size, "%s", bw_sandbox_error(c->sb));
            return -1;
        }
        if (!lua_istable(L, -1)) {
            lua_pop(L, 1);
            set_error(c, err, err_size, "%s options: not a table", name);
            return -1;
        }
    } else {
        if (!push_table(L, 0)) {
            set_error(c, err, err_size, "%s: out of memory", name);
            return -1;
        }
    }
    int options_ref = bw_lua_ref_protected(L);
    if (options_ref == LUA_NOREF) {
        set_error(c, err, err_size, "%s: out of memory", name);
        return -1;
    }
    control *k = &c->list[c->count];
    if (!build(c, k, name, options_ref, NULL)) {
        if (err && err_size) snprintf(err, err_size, "%s", c->error);
        return -1;
    }
    k->serial = c->serial++;
    watch_files(c, k);
    c->count++;
    sort_order(c);
    return c->count - 1;
}

int bw_controls_load(bw_controls *c, const char *name, const char *options, char *err, size_t err_size)
{
    if (!c || !name) return -1;
    if (c->count >= BW_CONTROLS_MAX) {
        set_error(c, err, err_size, "%s: more than %d controls", name, BW_CONTROLS_MAX);
        return -1;
    }
    if (strlen(name) >= CONTROL_NAME_MAX) {
        set_error(c, err, err_size, "the control file name is too long");
        return -1;
    }
    /* the options and the file may reach ctx (through a module a control
     * stored it in) before init does: ctx is saved before either runs */
    int saved;
    if (!ctx_save(c, name, &saved)) {
        if (err && err_size) snprintf(err, err_size, "%s", c->error);
        return -1;
    }
    int k = load_control(c, name, options, err, err_size);
    if (k >= 0) {
        unref(c->L, &saved);
        return k;
    }
    ctx_restore(c, &saved);
    if (err && err_size) snprintf(err, err_size, "%s", c->error);
    return -1;
}

/* The picked controls' reload was rejected with c->error. */
static bw_controls_reload_result reject_picked(bw_controls *c, const bool *pick)
{
    for (int i = 0; i < c->count; i++) {
        if (!pick[i]) continue;
        snprintf(c->rejected[i], sizeof c->rejected[i], "%s", c->error);
        c->list[i].rejected++;
    }
    return BW_CONTROLS_RELOAD_REJECTED;
}

/* Rebuild every control i with pick[i] aside, after taking the modules
 * `drop` out of the sandbox's cache (their files are read anew), and swap
 * them all in when every one built; otherwise none changes, the modules
 * dropped are back, every ctx is as it was (ctx_restore) and c->error
 * holds the first failure. Every caller
 * picks at least one control (reload_with: when one is picked; poll: the
 * changed control), so a success is a reload done. */
static bw_controls_reload_result reload_group(bw_controls *c, const bool *pick, uint64_t drop)
{
    int first = 0;
    while (!pick[first]) first++;
    int ctx_saved;
    if (!ctx_save(c, c->list[first].name, &ctx_saved)) return reject_picked(c, pick);
    bw_sandbox_modules_saved saved;
    if (!bw_sandbox_modules_drop(c->sb, drop, &saved)) {
        unref(c->L, &ctx_saved);
        snprintf(c->error, sizeof c->error, "controls: out of memory");
        return reject_picked(c, pick);
    }
    bool ok = true, made[BW_CONTROLS_MAX] = {false};
    for (int i = 0; ok && i < c->count; i++) {
        if (!pick[i]) continue;
        control *old = &c->list[i];
        lua_rawgeti(c->L, LUA_REGISTRYINDEX, old->options_ref); /* the new version gets its own ref */
        int options_ref = bw_lua_ref_protected(c->L);
        if (options_ref == LUA_NOREF) {
            snprintf(c->error, sizeof c->error, "%s: out of memory", old->name);
            ok = false;
        } else if ((ok = build(c, &c->staged[i], old->name, options_ref, old))) {
            c->staged[i].serial = old->serial;
            made[i] = true;
        } else { /* a module it newly required and failed on: watched, and its change reloads it */
            old->attempted = c->attempted;
            watch_files(c, old);
        }
    }
    if (!ok) {
        for (int i = 0; i < c->count; i++)
            if (made[i]) control_release(c, &c->staged[i]);
        bw_sandbox_modules_restore(c->sb, &saved);
        ctx_restore(c, &ctx_saved);
        return reject_picked(c, pick);
    }
    bw_sandbox_modules_commit(c->sb, &saved);
    unref(c->L, &ctx_saved);
    for (int i = 0; i < c->count; i++) {
        if (!pick[i]) continue;
        c->staged[i].version = c->list[i].version + 1;
        c->staged[i].rejected = c->list[i].rejected;
        control_release(c, &c->list[i]);
        c->list[i] = c->staged[i];
        c->rejected[i][0] = '\0';
        watch_files(c, &c->list[i]);
    }
    c->reloads++;
    sort_order(c);
    return BW_CONTROLS_RELOAD_DONE;
}

/* The controls that required a module of `mods` (directly or through
 * other modules) added to pick; whether there is one. */
static bool pick_dependents(const bw_controls *c, uint64_t mods, bool *pick)
{
    bool any = false;
    for (int i = 0; i < c->count; i++) {
        pick[i] = pick[i] || (control_modules(&c->list[i]) & mods) != 0;
        any = any || pick[i];
    }
    return any;
}

/* reload_group of pick and every control that required a module of
 * `mods`, those modules (and the modules that required them) read anew,
 * with the pending modules of every control taken in (and the controls
 * those require, until nothing more joins). A module whose reload is
 * rejected stays pending: it joins the next reload of a control that
 * required it, so a rejection caused by a control's file is mended by
 * saving that file. */
static bw_controls_reload_result reload_with(bw_controls *c, bool *pick, uint64_t mods)
{
    bool any = false;
    for (uint64_t before = ~mods; before != mods;) {
        before = mods;
        any = pick_dependents(c, mods, pick);
        for (int i = 0; i < c->count; i++)
            if (pick[i]) mods |= control_modules(&c->list[i]) & c->pending;
    }
    if (!any) {
        c->pending &= ~mods;
        return BW_CONTROLS_RELOAD_NONE;
    }
    bw_controls_reload_result r = reload_group(c, pick, bw_sandbox_module_dependents(c->sb, mods));
    if (r == BW_CONTROLS_RELOAD_REJECTED) c->pending |= mods;
    else c->pending &= ~mods;
    return r;
}

/* The controls from index `from` on loaded from file `name` set in pick
 * (the others left as they are); whether there is one. */
static bool pick_by_name(const bw_controls *c, const char *name, int from, bool *pick)
{
    bool any = false;
    for (int i = from; i < c->count; i++)
        if (strcmp(c->list[i].name, name) == 0) any = pick[i] = true;
    return any;
}

bw_controls_reload_result bw_controls_reload(bw_controls *c, const char *name)
{
    if (!c || !name) return BW_CONTROLS_RELOAD_NONE;
    bool pick[BW_CONTROLS_MAX] = {false};
    if (pick_by_name(c, name, 0, pick)) return reload_with(c, pick, 0);
    int m = bw_sandbox_module_find(c->sb, name);
    return m < 0 ? BW_CONTROLS_RELOAD_NONE : reload_with(c, pick, (uint64_t)1 << m);
}

/* Whether control i's file changed since it was loaded (or last seen);
 * its stamp now into *seen. */
static bool file_changed(const bw_controls *c, int i, bw_file_stamp *seen)
{
    *seen = stamp(c, c->list[i].name);
    return !bw_file_stamp_same(*seen, c->list[i].stamp);
}

bw_controls_reload_result bw_controls_poll(bw_controls *c, double now)
{
    if (!c || !c->watch || !bw_watch_poll(c->watch, now)) return BW_CONTROLS_RELOAD_NONE;
    bw_controls_reload_result res = BW_CONTROLS_RELOAD_NONE;
    char first[BW_CONTROLS_ERROR_MAX] = "";
    bool changed[BW_CONTROLS_MAX] = {false}, pick[BW_CONTROLS_MAX] = {false};
    bw_file_stamp seen[BW_CONTROLS_MAX]; /* after a rejection: a file as seen, not tried again until it changes */
    /* changed modules (and pending ones a changed control required) first:
     * every control that required one reloads with the modules read anew,
     * all together (also the ones whose own file changed too) */
    uint64_t mods = bw_sandbox_modules_changed(c->sb);
    for (int i = 0; i < c->count; i++)
        if ((changed[i] = file_changed(c, i, &seen[i]))) mods |= control_modules(&c->list[i]) & c->pending;
    if (mods) {
        res = reload_with(c, pick, mods);
        if (res == BW_CONTROLS_RELOAD_REJECTED) {
            snprintf(first, sizeof first, "%s", c->error);
            for (int i = 0; i < c->count; i++)
                if (pick[i]) c->list[i].stamp = seen[i];
        }
    }
    /* then each other changed control file on its own */
    for (int i = 0; i < c->count; i++) {
        if (!changed[i] || pick[i]) continue;
        bool group[BW_CONTROLS_MAX] = {false};
        pick_by_name(c, c->list[i].name, i, group);
        for (int k = i; k < c->count; k++) pick[k] = pick[k] || group[k]; /* a file loaded twice reloads once */
        bw_controls_reload_result r = reload_group(c, group, 0);
        if (r == BW_CONTROLS_RELOAD_REJECTED) {
            for (int k = i; k < c->count; k++)
                if (group[k]) c->list[k].stamp = seen[k];
            if (!first[0]) snprintf(first, sizeof first, "%s", c->error);
            res = BW_CONTROLS_RELOAD_REJECTED;
        } else if (r == BW_CONTROLS_RELOAD_DONE && res == BW_CONTROLS_RELOAD_NONE) {
            res = BW_CONTROLS_RELOAD_DONE;
        }
    }
    if (first[0]) snprintf(c->error, sizeof c->error, "%s", first);
    return res;
}

/* ---- the frame ---- */

static float finite_or_zero(float v) { return isfinite(v) ? v : 0.0f; }

static void set_vec(lua_State *L, int ref, const float *v)
{
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    for (int i = 0; i < 3; i++) {
        lua_pushnumber(L, (lua_Number)finite_or_zero(v[i]));
        lua_rawseti(L, -2, i + 1);
    }
    lua_pop(L, 1);
}

enum { KEY_TIME = 1, KEY_YAW, KEY_HAS_TARGET }; /* write_inputs' upvalues */

/* With a crowd, a character's Lua tables are out of the caches by the time
 * its turn comes (the animation of the others went through them): the
 * interpreter would then miss on each table in turn, one dependent load
 * after another. Ask for all of them at once instead, so the misses
 * overlap: ctx with its hash part (made right after it, see
 * setup_protected), position, target and gaze with their arrays, and each
 * control's state table. Hints only (a stale address costs nothing). */
#define PREFETCH_CTX_BYTES 512   /* the ctx header and its 16-node hash part */
#define PREFETCH_TABLE_BYTES 192 /* a small table's header and its array or hash part */

static void prefetch_span(const void *p, int bytes)
{
    for (int off = 0; off < bytes; off += 64) __builtin_prefetch((const char *)p + off, 0, 3);
}

void bw_controls_prefetch(const bw_controls *c, int character)
{
    if (!c || character < 0 || character >= c->characters) return;
    /* GCC 12 takes a static function of prefetches alone for one without
     * effects and drops its call: an empty volatile asm is an effect */
    __asm__ volatile("");
    const void *const *hot = c->slot[character].hot;
    prefetch_span(hot[0], PREFETCH_CTX_BYTES);
    for (int f = 1; f < HOT_PER_CHARACTER; f++) prefetch_span(hot[f], PREFETCH_TABLE_BYTES);
    for (int n = 0; n < c->count; n++) prefetch_span(c->list[n].state_at[character], PREFETCH_TABLE_BYTES);
}

/* The sandbox's report during a run with desc.report: the running
 * control's update failure (the sandbox reports each version's first
 * once, from the callback's own error text) goes to desc.report with the
 * control's index; any other callback failing meanwhile (one the
 * control's script made and called) goes on to the host's reporter. */
static void report_running(void *user, const char *message)
{
    bw_controls *c = (bw_controls *)user;
    if (c->running >= 0 && message == c->list[c->running].update.error) c->report(c->user, c->running, message);
    else c->host_reporter.fn(c->host_reporter.user, message);
}

/* Run f(args) protected on L (args a light userdata at 1); false when it
 * raised (the error dropped). The host's per-frame calls touch
 * tables a script owns: raw writes and reads there normally reuse what
 * exists, but a script that removed a key (ctx.time = nil) makes the
 * write insert it, and a field name may need a new string, either of
 * which needs memory the sandbox's cap may refuse; unprotected that
 * would be a panic. Allocates nothing itself. */
static bool protect(lua_State *L, lua_CFunction f, void *args)
{
    lua_pushcfunction(L, f);
    lua_pushlightuserdata(L, args);
    if (lua_pcall(L, 1, 0, 0) == LUA_OK) return true;
    lua_pop(L, 1);
    return false;
}

typedef struct inputs_args {
    bw_controls *c;
    int character;
    const bw_control_input *in;
} inputs_args;

/* The character's inputs into its ctx: (args, ctx), called protected
 * (the closure c->inputs_ref, over the keys). */
static int write_inputs(lua_State *L)
{
    const inputs_args *a = (const inputs_args *)lua_touserdata(L, 1);
    bw_controls *c = a->c;
    const bw_control_input *in = a->in;
    const int *refs = c->slot[a->character].refs;
    const int ctx = 2;
    /* raw writes through the interned keys: a script cannot make the
     * inputs run a metamethod, and nothing is looked up by C string */
    lua_pushvalue(L, lua_upvalueindex(KEY_TIME));
    lua_pushnumber(L, (lua_Number)c->slot[a->character].time);
    lua_rawset(L, ctx);
    lua_pushvalue(L, lua_upvalueindex(KEY_YAW));
    lua_pushnumber(L, (lua_Number)finite_or_zero(in->yaw));
    lua_rawset(L, ctx);
    bool target = in->has_target && isfinite(in->target[0]) && isfinite(in->target[1]) && isfinite(in->target[2]);
    lua_pushvalue(L, lua_upvalueindex(KEY_HAS_TARGET));
    lua_pushboolean(L, target);
    lua_rawset(L, ctx);
    set_vec(L, refs[1], in->position);
    set_vec(L, refs[2], in->target);
    return 0;
}

int bw_controls_run(bw_controls *c, int character, bw_pose *pose, const bw_control_input *in, float dt)
{
    if (!c || !pose || character < 0 || character >= c->characters ||
        pose->joint_count != bw_rig_joint_count(c->rig) || pose->curve_count != bw_rig_curve_count(c->rig))
        return -1;
    if (!isfinite(dt) || dt < 0.0f) dt = 0.0f;
    static const bw_control_input none = {{0.0f, 0.0f, 0.0f}, 0.0f, false, {0.0f, 0.0f, 0.0f}};
    if (!in) in = &none;
    lua_State *L = c->L;
    bw_controls_prefetch(c, character);
    int top = lua_gettop(L);
    const int *refs = c->slot[character].refs;
    c->slot[character].time += (double)dt;
    inputs_args inputs = {c, character, in};
    lua_rawgeti(L, LUA_REGISTRYINDEX, refs[0]);
    int ctx = lua_gettop(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->inputs_ref);
    lua_pushlightuserdata(L, &inputs);
    lua_pushvalue(L, ctx);
    if (lua_pcall(L, 2, 0, 0) != LUA_OK) { /* out of memory: no control runs this frame */
        lua_settop(L, top);
        return c->count;
    }

    c->pose->pose = *pose; /* the handle sees the host's arrays for this call */
    /* with desc.report the sandbox reports to the runner for the run, which
     * knows the control that is running */
    if (c->report) bw_sandbox_set_reporter(c->sb, (bw_sandbox_reporter){report_running, c}, &c->host_reporter);
    int failed = 0;
    for (int n = 0; n < c->count; n++) {
        c->running = c->order[n];
        control *k = &c->list[c->order[n]];
        /* the states table below the call (dropped after it): the call's
         * function and arguments pushed in order, nothing moved */
        lua_rawgeti(L, LUA_REGISTRYINDEX, k->states_ref);
        if (!bw_sandbox_callback_push(c->sb, &k->update)) {
            failed++;
            lua_settop(L, ctx);
            continue;
        }
        lua_rawgeti(L, ctx + 1, character + 1);
        lua_rawgeti(L, LUA_REGISTRYINDEX, c->pose_ref);
        lua_pushvalue(L, ctx);
        lua_pushnumber(L, (lua_Number)dt);
        if (bw_sandbox_callback_pushed(c->sb, &k->update, 4, 0) != BW_SANDBOX_OK) failed++;
        lua_settop(L, ctx);
    }
    c->running = -1;
    if (c->report) bw_sandbox_set_reporter(c->sb, c->host_reporter, NULL);
    detach_pose(c);
    lua_settop(L, top);
    return failed;
}

/* ctx[field] of `character` on top of the stack (the ctx below it);
 * `field` may need a new string: called protected (protect). */
static void push_field(bw_controls *c, int character, const char *field)
{
    lua_State *L = c->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->slot[character].refs[0]);
    bw_lua_raw_field(L, -1, field);
}

static bool field_ok(const bw_controls *c, int character, const char *field)
{
    return c && field && character >= 0 && character < c->characters;
}

typedef struct read_args {
    bw_controls *c;
    int character;
    const char *field;
    float *out;
    int capacity, n;
    const bw_pose *pose;           /* bw_controls_overrides' */
    bw_joint_override *overrides;
} read_args;

static float number_at(lua_State *L, int t, lua_Integer i)
{
    lua_rawgeti(L, t, i);
    float v = lua_type(L, -1) == LUA_TNUMBER ? (float)lua_tonumber(L, -1) : 0.0f;
    lua_pop(L, 1);
    return isfinite(v) ? v : 0.0f;
}

/* bw_controls_read's work (protect). */
static int read_protected(lua_State *L)
{
    read_args *a = (read_args *)lua_touserdata(L, 1);
    push_field(a->c, a->character, a->field);
    int n = lua_istable(L, -1) ? (int)lua_rawlen(L, -1) : 0;
    for (int i = 0; i < n && i < a->capacity; i++) a->out[i] = number_at(L, -1, i + 1);
    a->n = n;
    return 0;
}

int bw_controls_read(bw_controls *c, int character, const char *field, float *out, int capacity)
{
    if (!field_ok(c, character, field)) return 0;
    read_args a = {c, character, field, out, capacity, 0, NULL, NULL};
    return protect(c->L, read_protected, &a) ? a.n : 0;
}

/* bw_controls_overrides' work (protect). */
static int overrides_protected(lua_State *L)
{
    read_args *a = (read_args *)lua_touserdata(L, 1);
    const bw_pose *pose = a->pose;
    bw_joint_override *out = a->overrides;
    int capacity = a->capacity;
    push_field(a->c, a->character, "overrides");
    int n = lua_istable(L, -1) ? (int)lua_rawlen(L, -1) : 0, count = 0;
    for (int i = 0; i < n; i++) {
        /* an integer in [1, joint_count], read before any conversion: a
         * huge or fractional number is skipped, not cast */
        lua_rawgeti(L, -1, i + 1);
        int isint = 0;
        lua_Integer v = lua_type(L, -1) == LUA_TNUMBER ? lua_tointegerx(L, -1, &isint) : 0;
        lua_pop(L, 1);
        if (!isint || v < 1 || v > pose->joint_count) continue;
        int j = (int)v - 1;
        if (count < capacity) {
            out[count].joint = j;
            memcpy(out[count].r, pose->joints[j].r, sizeof out[count].r);
        }
        count++;
    }
    a->n = count;
    return 0;
}

int bw_controls_overrides(bw_controls *c, int character, const bw_pose *pose, bw_joint_override *out, int capacity)
{
    if (!pose || !field_ok(c, character, "overrides")) return 0;
    read_args a = {c, character, "overrides", NULL, capacity, 0, pose, out};
    return protect(c->L, overrides_protected, &a) ? a.n : 0;
}
