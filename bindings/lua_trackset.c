/* lua_trackset.c - blendwerk.TrackSet: playing clips on one rig with
 * weights, fades, priorities and Lua callbacks for markers, loops, ends and
 * stops (bw_track_set + a mixer + an output Pose).
 *
 *   local set = blendwerk.track_set(rig [, {capacity=, signal_capacity=}])
 *   local h = set:play(clip_or_binding, {speed=, weight=, fade_in=, loop=,
 *                      priority=, time=, on_marker=fn, on_loop=fn, ...})
 *   local pose = set:update(dt)   -- advance, compose, drain
 *
 * Callbacks are held with luaL_ref in a table owned by the set (so a
 * callback that captures the set does not keep it alive forever) and run
 * only in the drain step, after the pose was composed: the core's drain
 * hands its signals to a C function that just copies them into a queue,
 * and the queue is delivered once the core has returned, so a callback may
 * play, stop or fade tracks, and a Lua error in a callback never unwinds
 * through core code. A callback error stops the delivery of that frame's
 * remaining signals and is raised from drain()/update().
 *
 * Track slots: each played track gets a slot holding its Binding (a
 * counted use, so the clip stays alive while the track plays) and its
 * callbacks; a slot is freed after the drain in which the core removed
 * the track (removal happens only in the core's drain, and the slots of
 * removed tracks are marked before any callback runs, so a handle reused
 * by a track played from a callback can never be confused with it). */
#include <stdint.h>
#include <string.h>

#include "lua_support.h"

enum { UV_RIG = 1, UV_REFS = 2, UV_POSE = 3 };
enum { SIGNAL_KINDS = 4 }; /* marker, loop, ended, stopped: the bw_signal_kind values */

static const char *const kind_names[SIGNAL_KINDS + 1] = {"marker", "loop", "ended", "stopped", NULL};
static const char *const callback_fields[SIGNAL_KINDS] = {"on_marker", "on_loop", "on_ended", "on_stopped"};

typedef struct slot {
    int handle;
    bool in_use;
    bool dead;                 /* removed by the core; freed after delivery */
    bw_lua_binding *binding;   /* counted use */
    int binding_ref;           /* keeps the Binding handle alive */
    int callbacks[SIGNAL_KINDS];
} slot;

typedef struct queued {
    bw_signal_kind kind;
    int track;
    int marker;
    float marker_time;
    int slot;
} queued;

typedef struct track_set {
    bw_lua_object hdr; /* deps: rig, output pose */
    bw_track_set *set;
    bw_mixer *mixer;
    bw_lua_rig *rig;
    bw_lua_pose *out;
    int capacity;
    int signal_capacity;
    int slot_count;
    slot *slots;     /* slot_count, inside this userdata block */
    queued *queue;   /* signal_capacity, inside this userdata block */
    int queued;
    int lost;        /* signals beyond our queue (cannot happen: same size as the core's) */
    int callbacks[SIGNAL_KINDS]; /* set-wide */
    bool delivering;
} track_set;

const bw_track_set *bw_lua_check_track_set(lua_State *L, int arg, const bw_rig **out_rig)
{
    track_set *ts = (track_set *)bw_lua_check_object(L, arg, BW_LUA_TRACK_SET);
    if (out_rig) *out_rig = ts->rig->rig;
    return ts->set;
}

static void destroy_track_set(bw_lua_object *o)
{
    track_set *ts = (track_set *)o;
    bw_track_set_destroy(ts->set);
    ts->set = NULL;
    bw_mixer_destroy(ts->mixer);
    ts->mixer = NULL;
    for (int i = 0; i < ts->slot_count; i++) {
        slot *s = &ts->slots[i];
        if (s->in_use && s->binding) bw_lua_object_unuse(&s->binding->hdr);
        s->in_use = false;
        s->binding = NULL;
    }
}

static track_set *check_set(lua_State *L, int arg)
{
    return (track_set *)bw_lua_check_object(L, arg, BW_LUA_TRACK_SET);
}

static int check_handle(lua_State *L, int arg)
{
    lua_Integer h = luaL_checkinteger(L, arg);
    if (h < 0 || h > INT32_MAX) return luaL_argerror(L, arg, "not a track handle");
    return (int)h;
}

static slot *find_slot(track_set *ts, int handle)
{
    for (int i = 0; i < ts->slot_count; i++)
        if (ts->slots[i].in_use && !ts->slots[i].dead && ts->slots[i].handle == handle) return &ts->slots[i];
    return NULL;
}

static void free_slot(lua_State *L, int refs, slot *s)
{
    if (!s->in_use) return;
    if (refs) {
        luaL_unref(L, refs, s->binding_ref);
        for (int k = 0; k < SIGNAL_KINDS; k++) luaL_unref(L, refs, s->callbacks[k]);
    }
    if (s->binding) bw_lua_object_unuse(&s->binding->hdr);
    memset(s, 0, sizeof *s);
}

/* ---- construction ---- */

static int opt_count(lua_State *L, int opts, const char *field, int def, int max)
{
    if (!opts) return def;
    int type = bw_lua_raw_field(L, opts, field);
    lua_Integer v = def;
    if (type != LUA_TNIL) {
        int isint = 0;
        v = lua_tointegerx(L, -1, &isint);
        if (!isint || v < 0 || v > max)
            return luaL_argerror(L, 2, lua_pushfstring(L, "%s must be an integer in 0..%d", field, max));
        if (v == 0) v = def;
    }
    lua_pop(L, 1);
    return (int)v;
}

static const char *const set_fields[] = {"capacity", "signal_capacity", NULL};

/* blendwerk.track_set(rig [, {capacity=16, signal_capacity=256}]) */
static int l_track_set_new(lua_State *L)
{
    bw_lua_rig *r = bw_lua_check_rig(L, 1);
    int opts = 0;
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        opts = 2;
        char why[128];
        if (!bw_lua_check_fields(L, 2, set_fields, why, sizeof why)) return luaL_argerror(L, 2, lua_pushstring(L, why));
    }
    int capacity = opt_count(L, opts, "capacity", 16, BW_TRACK_SET_MAX_CAPACITY);
    int signal_capacity = opt_count(L, opts, "signal_capacity", 256, BW_TRACK_SET_MAX_SIGNALS);
    lua_settop(L, 2);

    /* Twice the capacity in slots: the tracks removed by a drain keep their
     * slots until their signals are delivered, while callbacks may already
     * fill the set again. */
    int slot_count = 2 * capacity;
    size_t off_slots = (sizeof(track_set) + 15u) & ~(size_t)15u;
    size_t off_queue = (off_slots + sizeof(slot) * (size_t)slot_count + 15u) & ~(size_t)15u;
    size_t size = off_queue + sizeof(queued) * (size_t)signal_capacity;
    track_set *ts = (track_set *)bw_lua_new_object(L, size, 3, BW_LUA_TRACK_SET, destroy_track_set); /* 3 */
    unsigned char *block = (unsigned char *)ts;
    ts->slots = (slot *)(block + off_slots);
    ts->queue = (queued *)(block + off_queue);
    ts->slot_count = slot_count;
    ts->capacity = capacity;
    ts->signal_capacity = signal_capacity;
    for (int k = 0; k < SIGNAL_KINDS; k++) ts->callbacks[k] = LUA_NOREF;
    ts->rig = r;
    bw_lua_object_use(&ts->hdr, &r->hdr);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, 3, UV_RIG);
    lua_newtable(L);
    lua_setiuservalue(L, 3, UV_REFS);
    ts->out = bw_lua_push_pose(L, 1);
    bw_pose_set_rest(&ts->out->pose, r->rig);
    bw_lua_object_use(&ts->hdr, &ts->out->hdr);
    lua_setiuservalue(L, 3, UV_POSE);

    bw_track_set_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.rig = r->rig;
    desc.capacity = capacity;
    desc.signal_capacity = signal_capacity;
    desc.allocator = bw_lua_allocator_value(L);
    bw_result res = bw_track_set_create(&desc, &ts->set);
    if (res == BW_OK) {
        /* made for the rig: angle curves mix along the shortest arc */
        bw_mixer_desc md = {r->rig, capacity, desc.allocator, false};
        res = bw_mixer_create(&md, &ts->mixer);
    }
    if (res != BW_OK) {
        bw_lua_object_close(&ts->hdr);
        lua_pushnil(L);
        lua_pushfstring(L, "track_set: %s", bw_result_name(res));
        return 2;
    }
    return 1;
}

/* ---- playing ---- */

static const char *const play_fields[] = {"time",      "speed",   "weight",   "fade_in",    "priority", "loop",
                                          "on_marker", "on_loop", "on_ended", "on_stopped", NULL};

/* A finite float field of the options table (arg 3), or def. */
static float opt_field_float(lua_State *L, const char *field, float def)
{
    int type = bw_lua_raw_field(L, 3, field);
    float v = def;
    if (type != LUA_TNIL) {
        const char *bad = type == LUA_TNUMBER ? bw_lua_to_float((double)lua_tonumber(L, -1), &v) : "must be a number";
        if (bad) return (float)luaL_argerror(L, 3, lua_pushfstring(L, "%s %s", field, bad));
    }
    lua_pop(L, 1);
    return v;
}

/* nil, why the core refused a play. The options were checked above, so
 * what remains is a full set or a binding that no longer fits the rig. */
static int play_refused(lua_State *L, const track_set *ts, bw_result res)
{
    lua_pushnil(L);
    if (res == BW_ERR_LIMIT) lua_pushfstring(L, "track set is full (capacity %d)", ts->capacity);
    else lua_pushfstring(L, "play refused: %s", bw_result_name(res));
    return 2;
}

/* set:play(clip_or_binding [, options]) -> handle | nil, message */
static int l_play(lua_State *L)
{
    track_set *ts = check_set(L, 1);
    bw_lua_binding *b = (bw_lua_binding *)bw_lua_test_object(L, 2, BW_LUA_BINDING);
    if (!b && !bw_lua_test_object(L, 2, BW_LUA_CLIP))
        return luaL_typeerror(L, 2, "blendwerk.Clip or blendwerk.Binding");
    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        char why[128];
        if (!bw_lua_check_fields(L, 3, play_fields, why, sizeof why))
            return luaL_argerror(L, 3, lua_pushstring(L, why));
    } else {
        lua_settop(L, 2);
        lua_newtable(L);
    }
    lua_settop(L, 3);

    if (b) {
        if (b->rig->rig != ts->rig->rig) return luaL_argerror(L, 2, "binding is for another rig");
        lua_pushvalue(L, 2); /* 4 */
    } else {
        lua_getiuservalue(L, 1, UV_RIG);
        b = bw_lua_push_cached_binding(L, 2, -1);
        if (!b) return 2; /* nil, message */
        lua_remove(L, -2); /* the rig; the binding is now at 4 */
    }

    bw_play_desc desc = bw_play_desc_defaults(b->binding);
    double time = (double)opt_field_float(L, "time", 0.0f);
    desc.time = time;
    desc.speed = opt_field_float(L, "speed", desc.speed);
    desc.weight = opt_field_float(L, "weight", desc.weight);
    desc.fade_in = opt_field_float(L, "fade_in", desc.fade_in);
    if (desc.weight < 0) return luaL_argerror(L, 3, "weight must be >= 0");
    if (desc.fade_in < 0) return luaL_argerror(L, 3, "fade_in must be >= 0");
    /* In Lua an explicit 0 means 0 (in the C desc 0 selects the default) */
    desc.held = desc.speed == 0.0f;
    desc.silent = desc.weight == 0.0f;
    int type = bw_lua_raw_field(L, 3, "priority");
    if (type != LUA_TNIL) {
        int isint = 0;
        lua_Integer p = lua_tointegerx(L, -1, &isint);
        if (!isint || p < -(1 << 30) || p > (1 << 30)) return luaL_argerror(L, 3, "priority must be an integer");
        desc.priority = (int)p;
    }
    lua_pop(L, 1);
    type = bw_lua_raw_field(L, 3, "loop");
    if (type != LUA_TNIL && type != LUA_TBOOLEAN) return luaL_argerror(L, 3, "loop must be a boolean or nil");
    desc.loop = type == LUA_TNIL ? BW_LOOP_CLIP : lua_toboolean(L, -1) ? BW_LOOP_ON : BW_LOOP_OFF;
    lua_pop(L, 1);
    for (int k = 0; k < SIGNAL_KINDS; k++) {
        type = bw_lua_raw_field(L, 3, callback_fields[k]);
        lua_pop(L, 1);
        if (type != LUA_TNIL && type != LUA_TFUNCTION)
            return luaL_argerror(L, 3, lua_pushfstring(L, "%s must be a function", callback_fields[k]));
    }

    slot *s = NULL;
    for (int i = 0; i < ts->slot_count && !s; i++)
        if (!ts->slots[i].in_use) s = &ts->slots[i];
    if (!s) return play_refused(L, ts, BW_ERR_LIMIT);
    /* Take the references first: luaL_ref can raise (out of memory), and
     * nothing may be playing yet when it does. */
    s->binding_ref = LUA_NOREF;
    for (int k = 0; k < SIGNAL_KINDS; k++) s->callbacks[k] = LUA_NOREF;
    lua_getiuservalue(L, 1, UV_REFS); /* 5 */
    lua_pushvalue(L, 4);
    s->binding_ref = luaL_ref(L, 5);
    for (int k = 0; k < SIGNAL_KINDS; k++) {
        if (bw_lua_raw_field(L, 3, callback_fields[k]) == LUA_TFUNCTION) s->callbacks[k] = luaL_ref(L, 5);
        else lua_pop(L, 1);
    }
    desc.user = (void *)(intptr_t)(s - ts->slots + 1);
    int handle = -1;
    bw_result res = bw_track_set_play(ts->set, &desc, &handle);
    if (res != BW_OK) {
        luaL_unref(L, 5, s->binding_ref);
        for (int k = 0; k < SIGNAL_KINDS; k++) luaL_unref(L, 5, s->callbacks[k]);
        memset(s, 0, sizeof *s);
        return play_refused(L, ts, res);
    }
    s->in_use = true;
    s->dead = false;
    s->handle = handle;
    s->binding = b;
    b->hdr.users++; /* released by free_slot */
    lua_pushinteger(L, handle);
    return 1;
}

/* Turn a core result of a per-track call into true | nil, message. */
static int track_result(lua_State *L, bw_result res, int handle)
{
    if (res == BW_OK) {
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_pushnil(L);
    lua_pushfstring(L, "track %d: %s", handle, bw_result_name(res));
    return 2;
}

static int l_stop(lua_State *L)
{
    track_set *ts = check_set(L, 1);
    int h = check_handle(L, 2);
    float fade = bw_lua_opt_float(L, 3, 0.0f);
    if (fade < 0) return luaL_argerror(L, 3, "fade_out must be >= 0");
    return track_result(L, bw_track_set_stop(ts->set, h, fade), h);
}

static int l_fade(lua_State *L)
{
    track_set *ts = check_set(L, 1);
    int h = check_handle(L, 2);
    float target = bw_lua_check_float(L, 3);
    float duration = bw_lua_opt_float(L, 4, 0.0f);
    if (duration < 0) return luaL_argerror(L, 4, "duration must be >= 0");
    return track_result(L, bw_track_set_fade(ts->set, h, target, duration), h);
}

static int l_set_speed(lua_State *L)
{
    track_set *ts = check_set(L, 1);
    int h = check_handle(L, 2);
    return track_result(L, bw_track_set_set_speed(ts->set, h, bw_lua_check_float(L, 3)), h);
}

static int l_set_priority(lua_State *L)
{
    track_set *ts = check_set(L, 1);
    int h = check_handle(L, 2);
    lua_Integer p = luaL_checkinteger(L, 3);
    if (p < -(1 << 30) || p > (1 << 30)) return luaL_argerror(L, 3, "priority out of range");
    return track_result(L, bw_track_set_set_priority(ts->set, h, (int)p), h);
}

static int l_seek(lua_State *L)
{
    track_set *ts = check_set(L, 1);
    int h = check_handle(L, 2);
    return track_result(L, bw_track_set_seek(ts->set, h, (double)bw_lua_check_float(L, 3)), h);
}

/* ---- queries ---- */

static int l_alive(lua_State *L)
{
    track_set *ts = check_set(L, 1);
    lua_pushboolean(L, bw_track_set_alive(ts->set, check_handle(L, 2)));
    return 1;
}

/* time / weight / speed: number, or nil for an unknown handle */
static int l_time(lua_State *L)
{
    track_set *ts = check_set(L, 1);
    int h = check_handle(L, 2);
    if (!bw_track_set_alive(ts->set, h)) lua_pushnil(L);
    else lua_pushnumber(L, (lua_Number)bw_track_set_time(ts->set, h));
    return 1;
}

static int l_weight(lua_State *L)
{
    track_set *ts = check_set(L, 1);
    int h = check_handle(L, 2);
    if (!bw_track_set_alive(ts->set, h)) lua_pushnil(L);
    else lua_pushnumber(L, (lua_Number)bw_track_set_weight(ts->set, h));
    return 1;
}

static int l_speed(lua_State *L)
{
    track_set *ts = check_set(L, 1);
    int h = check_handle(L, 2);
    if (!bw_track_set_alive(ts->set, h)) lua_pushnil(L);
    else lua_pushnumber(L, (lua_Number)bw_track_set_speed(ts->set, h));
    return 1;
}

static int l_stopping(lua_State *L)
{
    track_set *ts = check_set(L, 1);
    lua_pushboolean(L, bw_track_set_stopping(ts->set, check_handle(L, 2)));
    return 1;
}

static int l_looping(lua_State *L)
{
    track_set *ts = check_set(L, 1);
    lua_pushboolean(L, bw_track_set_looping(ts->set, check_handle(L, 2)));
    return 1;
}

static int l_count(lua_State *L)
{
    lua_pushinteger(L, bw_track_set_count(check_set(L, 1)->set));
    return 1;
}

static int l_handles(lua_State *L)
{
    track_set *ts = check_set(L, 1);
    int handles[BW_TRACK_SET_MAX_CAPACITY];
    int n = bw_track_set_live_handles(ts->set, handles, BW_TRACK_SET_MAX_CAPACITY);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushinteger(L, handles[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* set:clip(h) -> the Clip the track plays (borrowed), or nil */
static int l_clip(lua_State *L)
{
    track_set *ts = check_set(L, 1);
    slot *s = find_slot(ts, check_handle(L, 2));
    if (!s) {
        lua_pushnil(L);
        return 1;
    }
    lua_getiuservalue(L, 1, UV_REFS);
    lua_rawgeti(L, -1, s->binding_ref);
    lua_getiuservalue(L, -1, BW_LUA_UV_BINDING_CLIP);
    bw_lua_push_shared(L, -1); /* borrowed: closing it leaves it open */
    return 1;
}

/* set:track_pose(h) -> a new Pose: the track sampled alone at its current
 * time (what it contributes to the next compose), or nil */
static int l_track_pose(lua_State *L)
{
    track_set *ts = check_set(L, 1);
    int h = check_handle(L, 2);
    if (!bw_track_set_alive(ts->set, h)) {
        lua_pushnil(L);
        return 1;
    }
    lua_getiuservalue(L, 1, UV_RIG);
    bw_lua_pose *p = bw_lua_push_pose(L, -1);
    if (bw_track_set_sample_track(ts->set, h, &p->pose) != BW_OK) lua_pushnil(L);
    return 1;
}

static int l_dropped_signals(lua_State *L)
{
    track_set *ts = check_set(L, 1);
    lua_pushinteger(L, (lua_Integer)bw_track_set_dropped_signals(ts->set) + ts->lost);
    return 1;
}

/* The set's output Pose: the same handle every frame, so it is borrowed
 * (close() and <close> leave it open for the set and every holder). */
static int push_output(lua_State *L)
{
    lua_getiuservalue(L, 1, UV_POSE);
    ((bw_lua_object *)lua_touserdata(L, -1))->borrowed = true;
    return 1;
}

static int l_pose(lua_State *L)
{
    check_set(L, 1);
    return push_output(L);
}

/* ---- the frame ---- */

static int l_advance(lua_State *L)
{
    track_set *ts = check_set(L, 1);
    bw_track_set_advance(ts->set, bw_lua_check_time(L, 2)); /* the core treats non-finite dt as 0 */
    return 0;
}

static void compose(lua_State *L, track_set *ts, int base_arg)
{
    bw_lua_pose *base = NULL;
    if (!lua_isnoneornil(L, base_arg)) {
        base = bw_lua_check_pose(L, base_arg);
        if (base->rig->rig != ts->rig->rig) luaL_argerror(L, base_arg, "pose belongs to another rig");
    }
    bw_result res = bw_track_set_compose(ts->set, ts->mixer, base ? &base->pose : NULL, &ts->out->pose);
    if (res != BW_OK) luaL_error(L, "compose: %s", bw_result_name(res));
}

/* set:compose([base]) -> the set's output Pose (the same object every frame) */
static int l_compose(lua_State *L)
{
    track_set *ts = check_set(L, 1);
    compose(L, ts, 2);
    return push_output(L);
}

static void collect(void *user, const bw_signal *sig)
{
    track_set *ts = (track_set *)user;
    if (ts->queued >= ts->signal_capacity) {
        ts->lost++;
        return;
    }
    queued *q = &ts->queue[ts->queued++];
    q->kind = sig->kind;
    q->track = sig->track;
    q->marker = sig->marker;
    q->marker_time = sig->marker_time;
    q->slot = (int)(intptr_t)sig->user - 1;
}

/* Runs one callback in protected mode (so that pushing its arguments,
 * which may allocate, cannot raise outside the pcall):
 * stack: function, queued *, slot * (or NULL). Marker callbacks get
 * (name, time, handle); the others (handle). */
static int call_callback(lua_State *L)
{
    const queued *q = (const queued *)lua_touserdata(L, 2);
    const slot *s = (const slot *)lua_touserdata(L, 3);
    lua_settop(L, 1);
    int nargs = 1;
    if (q->kind == BW_SIGNAL_MARKER) {
        const char *name = s && s->binding ? bw_clip_marker_name(s->binding->clip->clip, q->marker) : NULL;
        if (name) lua_pushstring(L, name);
        else lua_pushnil(L);
        lua_pushnumber(L, (lua_Number)q->marker_time);
        nargs = 3;
    }
    lua_pushinteger(L, q->track);
    lua_call(L, nargs, 0);
    return 0;
}

/* Deliver the queued signals; returns how many were delivered. A callback
 * error is raised after the set is consistent again. */
static int drain(lua_State *L, track_set *ts)
{
    if (ts->delivering) return luaL_error(L, "drain/update called from a track set callback");
    BW_LUA_STACK_BEGIN(L);
    lua_getiuservalue(L, 1, UV_REFS);
    const int refs = lua_gettop(L);
    luaL_checkstack(L, 8, "track set drain");
    /* Nothing below raises until the delivery is over. */
    ts->queued = 0;
    bw_track_set_drain(ts->set, collect, ts);
    /* Mark removed tracks now, before any callback can play a new one. */
    for (int i = 0; i < ts->slot_count; i++) {
        slot *s = &ts->slots[i];
        if (s->in_use && !s->dead && !bw_track_set_alive(ts->set, s->handle)) s->dead = true;
    }
    ts->delivering = true;
    int status = LUA_OK, delivered = 0;
    for (int i = 0; i < ts->queued && status == LUA_OK && !ts->hdr.closed; i++) {
        queued q = ts->queue[i];
        slot *s = q.slot >= 0 && q.slot < ts->slot_count && ts->slots[q.slot].in_use ? &ts->slots[q.slot] : NULL;
        int kind = (int)q.kind;
        if (kind < 0 || kind >= SIGNAL_KINDS) continue;
        int chosen[2] = {s ? s->callbacks[kind] : LUA_NOREF, ts->callbacks[kind]};
        for (int c = 0; c < 2 && status == LUA_OK && !ts->hdr.closed; c++) {
            if (chosen[c] < 0) continue; /* LUA_NOREF / LUA_REFNIL */
            lua_pushcfunction(L, call_callback);
            lua_rawgeti(L, refs, chosen[c]);
            lua_pushlightuserdata(L, &q);
            lua_pushlightuserdata(L, s);
            status = lua_pcall(L, 3, 0, 0);
        }
        if (status == LUA_OK) delivered++;
    }
    ts->delivering = false;
    if (!ts->hdr.closed)
        for (int i = 0; i < ts->slot_count; i++)
            if (ts->slots[i].in_use && ts->slots[i].dead) free_slot(L, refs, &ts->slots[i]);
    ts->queued = 0;
    if (status != LUA_OK) return lua_error(L); /* the callback's error is on top */
    lua_settop(L, refs - 1);
    BW_LUA_STACK_END(L, 0);
    return delivered;
}

/* set:drain() -> number of signals delivered */
static int l_drain(lua_State *L)
{
    track_set *ts = check_set(L, 1);
    lua_pushinteger(L, drain(L, ts));
    return 1;
}

/* set:update(dt [, base]) -> Pose: advance, compose, drain */
static int l_update(lua_State *L)
{
    track_set *ts = check_set(L, 1);
    float dt = bw_lua_check_time(L, 2);
    if (ts->delivering) return luaL_error(L, "drain/update called from a track set callback");
    bw_track_set_advance(ts->set, dt);
    compose(L, ts, 3);
    drain(L, ts);
    return push_output(L);
}

/* set:on(kind, fn | nil): a set-wide callback, run after the track's own */
static int l_on(lua_State *L)
{
    track_set *ts = check_set(L, 1);
    int kind = luaL_checkoption(L, 2, NULL, kind_names);
    if (!lua_isnil(L, 3)) luaL_checktype(L, 3, LUA_TFUNCTION);
    lua_settop(L, 3);
    lua_getiuservalue(L, 1, UV_REFS);
    luaL_unref(L, 4, ts->callbacks[kind]);
    ts->callbacks[kind] = LUA_NOREF;
    if (!lua_isnil(L, 3)) {
        lua_pushvalue(L, 3);
        ts->callbacks[kind] = luaL_ref(L, 4);
    }
    return 0;
}

/* ---- lifetime ---- */

/* __tostring of a live TrackSet; close(), __gc and __close are the shared
 * ones, and drop the callbacks and bindings (UV_REFS) at close rather
 * than at collection */
static int describe_set(lua_State *L)
{
    const track_set *ts = (const track_set *)lua_touserdata(L, 1);
    if (!ts->set) return 0;
    lua_pushfstring(L, "%s (%d of %d tracks)", BW_LUA_TRACK_SET, bw_track_set_count(ts->set), ts->capacity);
    return 1;
}

static const bw_lua_lifetime set_lifetime = {
    .type_name = BW_LUA_TRACK_SET, .describe = describe_set, .clear_uservalue = UV_REFS};

static const luaL_Reg set_methods[] = {
    {"play", l_play},
    {"stop", l_stop},
    {"fade", l_fade},
    {"set_speed", l_set_speed},
    {"set_priority", l_set_priority},
    {"seek", l_seek},
    {"alive", l_alive},
    {"time", l_time},
    {"weight", l_weight},
    {"speed", l_speed},
    {"stopping", l_stopping},
    {"looping", l_looping},
    {"count", l_count},
    {"handles", l_handles},
    {"clip", l_clip},
    {"track_pose", l_track_pose},
    {"dropped_signals", l_dropped_signals},
    {"pose", l_pose},
    {"advance", l_advance},
    {"compose", l_compose},
    {"drain", l_drain},
    {"update", l_update},
    {"on", l_on},
    {NULL, NULL},
};

static const luaL_Reg set_functions[] = {
    {"track_set", l_track_set_new},
    {NULL, NULL},
};

void bw_lua_open_track_set(lua_State *L)
{
    bw_lua_register_object_type(L, &set_lifetime, set_methods, NULL);
    luaL_setfuncs(L, set_functions, 0);
}
