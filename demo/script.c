/* script.c - the demo's character scripts (script.h): the shared loader
 * (bindings/character.h) runs them in the sandbox and copies the rig and
 * clips; this file adds the demo's part on top (the `demo` table, watched
 * files, a drawable rig, the `scene` field) through the loader's hooks. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <lauxlib.h>
#include <lua.h>

#include "character.h"
#include "lua_support.h"
#include "script.h"

_Static_assert(DEMO_NAME_MAX == BW_CHARACTER_NAME_MAX, "demo clip names are the loader's names");
_Static_assert(DEMO_PATH_MAX == BW_CHARACTER_PATH_MAX, "the loader refuses the paths the demo cannot hold");

/* What one load shares with the shared loader's hooks (character.h). */
typedef struct script_run {
    char chunk[256];           /* the script's file name: demo.script */
    const char *asset;         /* the host's --asset path, or NULL */
    demo_watch *watch;
    demo_scene scene;          /* filled by read_fields() */
} script_run;

/* ---- limits ---- */

demo_limits demo_limits_resolve(const demo_limits *limits)
{
    demo_limits out = {0};
    if (limits) out = *limits;
    if (out.instructions <= 0) out.instructions = DEMO_DEFAULT_INSTRUCTIONS;
    if (out.memory == 0) out.memory = DEMO_DEFAULT_MEMORY;
    if (!(out.seconds > 0.0) || !isfinite(out.seconds)) out.seconds = DEMO_DEFAULT_SECONDS;
    return out;
}

/* ---- files ---- */

/* Stamp a file as it is now (mtime -1 when it does not exist). */
static void file_stamp_take(demo_file_stamp *stamp, const char *path)
{
    snprintf(stamp->path, sizeof stamp->path, "%s", path);
    struct stat st;
    if (stat(path, &st) != 0) {
        stamp->mtime_ns = -1;
        stamp->size = -1;
        return;
    }
    stamp->mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + (long long)st.st_mtim.tv_nsec;
    stamp->size = (long long)st.st_size;
}

bool demo_watch_changed(const demo_watch *watch)
{
    if (!watch) return false;
    for (int i = 0; i < watch->count; i++) {
        demo_file_stamp now;
        file_stamp_take(&now, watch->files[i].path);
        if (now.mtime_ns != watch->files[i].mtime_ns || now.size != watch->files[i].size) return true;
    }
    return false;
}

static void watch_add(demo_watch *w, const char *path)
{
    for (int i = 0; i < w->count; i++)
        if (strcmp(w->files[i].path, path) == 0) return;
    if (w->count < DEMO_MAX_FILES) file_stamp_take(&w->files[w->count++], path);
}

/* The loader tells the host every file the script opens besides itself
 * (includes and assets): each is watched, and their number is bounded so
 * the host can always watch all of them. */
static bool watch_opened(void *user, const char *path, char *why, size_t why_size)
{
    demo_watch *w = ((script_run *)user)->watch;
    bool known = false;
    for (int i = 0; i < w->count && !known; i++) known = strcmp(w->files[i].path, path) == 0;
    if (!known && w->count >= DEMO_MAX_FILES) {
        snprintf(why, why_size, "a character may use at most %d files", DEMO_MAX_FILES);
        return false;
    }
    watch_add(w, path);
    return true;
}

/* ---- what the demo adds to the sandbox ---- */

/* Runs in the sandbox before the script (the loader's setup hook): the
 * `demo` table. The loader adds `include` itself. */
static int add_demo_globals(lua_State *L)
{
    const script_run *run = (const script_run *)lua_touserdata(L, 1);
    lua_createtable(L, 0, 2);
    if (run->asset) {
        lua_pushstring(L, run->asset);
        lua_setfield(L, -2, "asset");
    }
    lua_pushstring(L, run->chunk);
    lua_setfield(L, -2, "script");
    lua_setglobal(L, "demo");
    return 0;
}

/* ---- the demo's checks and fields of the returned table ----
 *
 * The shared loader (bindings/character.h) runs the script, checks the
 * rig and clips and copies them; the demo adds what it needs to draw and
 * reads `scene` through the loader's read hook (raw access: plain data,
 * no metamethods). */

static bool rig_is_drawable(const bw_rig *rig, char *why, size_t why_size)
{
    int jc = bw_rig_joint_count(rig);
    if (jc < 1) {
        snprintf(why, why_size, "the rig has no joints: nothing to draw");
        return false;
    }
    if (jc > DEMO_MAX_JOINTS) {
        snprintf(why, why_size, "the rig has %d joints; the demo draws at most %d", jc, DEMO_MAX_JOINTS);
        return false;
    }
    return true;
}

static void check_fields(lua_State *L, int t, const char *path, const char *const *allowed)
{
    char why[256];
    if (!bw_lua_check_fields(L, t, allowed, why, sizeof why)) luaL_error(L, "%s: %s", path, why);
}

/* Optional number field within [lo, hi]; returns whether it was present. */
static bool opt_number(lua_State *L, int t, const char *path, const char *key, double lo, double hi, double *out)
{
    lua_pushstring(L, key);
    int ty = lua_rawget(L, t);
    if (ty == LUA_TNIL) {
        lua_pop(L, 1);
        return false;
    }
    if (ty != LUA_TNUMBER) luaL_error(L, "%s.%s: expected a number, got a %s", path, key, lua_typename(L, ty));
    double v = (double)lua_tonumber(L, -1);
    if (!isfinite(v)) luaL_error(L, "%s.%s: %s is not a finite number", path, key, lua_tostring(L, -1));
    if (v < lo || v > hi) luaL_error(L, "%s.%s: %f is outside [%f, %f]", path, key, (lua_Number)v, (lua_Number)lo, (lua_Number)hi);
    *out = v;
    lua_pop(L, 1);
    return true;
}

static void opt_float(lua_State *L, int t, const char *path, const char *key, double lo, double hi, float *out)
{
    double v = 0.0;
    if (opt_number(L, t, path, key, lo, hi, &v)) *out = (float)v;
}

static void opt_int(lua_State *L, int t, const char *path, const char *key, int lo, int hi, int *out)
{
    double v = 0.0;
    if (!opt_number(L, t, path, key, lo, hi, &v)) return;
    if (v != floor(v)) luaL_error(L, "%s.%s: expected an integer, got %f", path, key, (lua_Number)v);
    *out = (int)v;
}

static int opt_bool(lua_State *L, int t, const char *path, const char *key)
{
    lua_pushstring(L, key);
    int ty = lua_rawget(L, t);
    int v = ty == LUA_TNIL ? -1 : lua_toboolean(L, -1);
    if (ty != LUA_TNIL && ty != LUA_TBOOLEAN)
        luaL_error(L, "%s.%s: expected a boolean, got a %s", path, key, lua_typename(L, ty));
    lua_pop(L, 1);
    return v;
}

/* A clip reference at the top of the stack: a name or a 1-based index. */
static int clip_ref(lua_State *L, const bw_character *c, const char *path)
{
    if (lua_type(L, -1) == LUA_TSTRING) {
        int i = bw_character_find_clip(c, lua_tostring(L, -1));
        if (i < 0) luaL_error(L, "%s: no clip named '%s'", path, lua_tostring(L, -1));
        return i;
    }
    if (lua_type(L, -1) == LUA_TNUMBER) {
        int isint = 0;
        lua_Integer i = lua_tointegerx(L, -1, &isint);
        if (!isint || i < 1 || i > c->clip_count)
            luaL_error(L, "%s: clip index %s out of range 1..%d", path, lua_tostring(L, -1), c->clip_count);
        return (int)i - 1;
    }
    return luaL_error(L, "%s: expected a clip name or index, got a %s", path, luaL_typename(L, -1));
}

static int field_clip_ref(lua_State *L, int t, const bw_character *c, const char *path)
{
    char sub[128];
    snprintf(sub, sizeof sub, "%s.clip", path);
    lua_pushliteral(L, "clip");
    if (lua_rawget(L, t) == LUA_TNIL) luaL_error(L, "%s: missing", sub);
    int i = clip_ref(L, c, sub);
    lua_pop(L, 1);
    return i;
}

static void default_scene(demo_scene *s)
{
    memset(s, 0, sizeof *s);
    s->play_count = 1;
    s->plays[0] = (demo_play){.clip = 0, .priority = 0, .weight = 1, .speed = 1, .loop = -1, .base = true};
    s->gesture_clip = -1;
    s->gesture_priority = 1;
    s->gesture_weight = 1;
    s->gesture_fade_in = 0.2f;
    s->gesture_fade_out = 0.3f;
    s->crossfade = 0.3f;
    s->view_yaw = 35;
    s->view_pitch = 10;
}

static void read_scene(lua_State *L, int t, const bw_character *c, demo_scene *s)
{
    static const char *const scene_fields[] = {"play", "gesture", "crossfade", "view", "ground_speed", NULL};
    static const char *const play_fields[] = {"clip", "priority", "weight", "speed", "time", "fade_in", "loop", "base", NULL};
    static const char *const gesture_fields[] = {"clip", "priority", "weight", "fade_in", "fade_out", NULL};
    static const char *const view_fields[] = {"yaw", "pitch", NULL};
    t = lua_absindex(L, t);
    check_fields(L, t, "scene", scene_fields);
    opt_float(L, t, "scene", "crossfade", 0, 10, &s->crossfade);

    lua_pushliteral(L, "ground_speed");
    int gty = lua_rawget(L, t);
    if (gty == LUA_TTABLE) {
        int g = lua_gettop(L);
        lua_pushnil(L);
        while (lua_next(L, g)) {
            char path[DEMO_NAME_MAX + 32];
            lua_pushvalue(L, -2); /* clip_ref reads the key at the top */
            int ci = clip_ref(L, c, "scene.ground_speed key");
            lua_pop(L, 1);
            snprintf(path, sizeof path, "scene.ground_speed['%s']", c->clips[ci].name);
            double v = lua_type(L, -1) == LUA_TNUMBER ? (double)lua_tonumber(L, -1) : NAN;
            if (!isfinite(v) || fabs(v) > 100) luaL_error(L, "%s: expected a number in [-100, 100] (m/s)", path);
            s->ground_speed[ci] = (float)v;
            lua_pop(L, 1);
        }
    } else if (gty != LUA_TNIL) {
        luaL_error(L, "scene.ground_speed: expected a table {clip name = m/s}, got a %s", lua_typename(L, gty));
    }
    lua_pop(L, 1);

    lua_pushliteral(L, "view");
    if (lua_rawget(L, t) != LUA_TNIL) {
        if (!lua_istable(L, -1)) luaL_error(L, "scene.view: expected a table");
        int v = lua_gettop(L);
        check_fields(L, v, "scene.view", view_fields);
        opt_float(L, v, "scene.view", "yaw", -360, 360, &s->view_yaw);
        opt_float(L, v, "scene.view", "pitch", -89, 89, &s->view_pitch);
    }
    lua_pop(L, 1);

    lua_pushliteral(L, "play");
    if (lua_rawget(L, t) != LUA_TNIL) {
        if (!lua_istable(L, -1)) luaL_error(L, "scene.play: expected a list of tables");
        int list = lua_gettop(L);
        lua_Unsigned n = lua_rawlen(L, list);
        if (n > DEMO_MAX_PLAYS) luaL_error(L, "scene.play: %d entries; at most %d", (int)n, DEMO_MAX_PLAYS);
        s->play_count = 0;
        for (int i = 1; i <= (int)n; i++) {
            char path[64];
            snprintf(path, sizeof path, "scene.play[%d]", i);
            lua_rawgeti(L, list, i);
            int e = lua_gettop(L);
            demo_play *p = &s->plays[s->play_count];
            *p = (demo_play){.clip = 0, .priority = 0, .weight = 1, .speed = 1, .loop = -1};
            if (lua_type(L, e) == LUA_TSTRING || lua_type(L, e) == LUA_TNUMBER) {
                p->clip = clip_ref(L, c, path);
            } else if (lua_istable(L, e)) {
                check_fields(L, e, path, play_fields);
                p->clip = field_clip_ref(L, e, c, path);
                opt_int(L, e, path, "priority", -1000, 1000, &p->priority);
                opt_float(L, e, path, "weight", 0, 1, &p->weight);
                opt_float(L, e, path, "speed", -100, 100, &p->speed);
                opt_float(L, e, path, "time", -1e6, 1e6, &p->time);
                opt_float(L, e, path, "fade_in", 0, 60, &p->fade_in);
                p->loop = opt_bool(L, e, path, "loop");
            } else {
                luaL_error(L, "%s: expected a table or a clip name, got a %s", path, luaL_typename(L, e));
            }
            int base = lua_istable(L, e) ? opt_bool(L, e, path, "base") : -1;
            p->base = base < 0 ? p->priority == 0 : base == 1;
            s->play_count++;
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);

    lua_pushliteral(L, "gesture");
    int ty = lua_rawget(L, t);
    if (ty == LUA_TSTRING || ty == LUA_TNUMBER) {
        s->gesture_clip = clip_ref(L, c, "scene.gesture");
    } else if (ty == LUA_TTABLE) {
        int g = lua_gettop(L);
        check_fields(L, g, "scene.gesture", gesture_fields);
        s->gesture_clip = field_clip_ref(L, g, c, "scene.gesture");
        opt_int(L, g, "scene.gesture", "priority", -1000, 1000, &s->gesture_priority);
        opt_float(L, g, "scene.gesture", "weight", 0, 1, &s->gesture_weight);
        opt_float(L, g, "scene.gesture", "fade_in", 0, 60, &s->gesture_fade_in);
        opt_float(L, g, "scene.gesture", "fade_out", 0, 60, &s->gesture_fade_out);
    } else if (ty != LUA_TNIL) {
        luaL_error(L, "scene.gesture: expected a clip name or a table, got a %s", lua_typename(L, ty));
    }
    lua_pop(L, 1);
}

/* The loader's read hook: what the demo needs of the rig, then `scene`. */
static void read_fields(void *user, lua_State *L, int t, const bw_character *c)
{
    script_run *run = (script_run *)user;
    char why[DEMO_ERROR_MAX];
    if (!rig_is_drawable(c->rig, why, sizeof why)) luaL_error(L, "rig: %s", why);
    default_scene(&run->scene);
    lua_pushliteral(L, "scene");
    int ty = lua_rawget(L, t);
    if (ty == LUA_TTABLE)
        read_scene(L, lua_gettop(L), c, &run->scene);
    else if (ty != LUA_TNIL)
        luaL_error(L, "scene: expected a table, got a %s", lua_typename(L, ty));
    lua_pop(L, 1);
}

bool demo_character_load(const char *script_path, const char *asset_path, const demo_limits *limits,
                         demo_character **out, demo_watch *watch, char *err, size_t err_size)
{
    static const char *const demo_fields[] = {"scene", NULL};
    demo_watch local_watch;
    demo_watch *w = watch ? watch : &local_watch;
    w->count = 0;
    if (!out) {
        if (err && err_size) snprintf(err, err_size, "demo_character_load: missing output argument");
        return false;
    }
    /* the loader refuses a missing, empty or too long path (and a missing
     * err) with its message; a usable one is watched even if it fails */
    demo_limits lim = demo_limits_resolve(limits);
    script_run run;
    memset(&run, 0, sizeof run);
    if (script_path && script_path[0] && strlen(script_path) < DEMO_PATH_MAX) {
        char dir[DEMO_PATH_MAX];
        const char *name = bw_sandbox_split_path(script_path, dir, sizeof dir);
        snprintf(run.chunk, sizeof run.chunk, "%s", name ? name : script_path);
        watch_add(w, script_path);
    }
    run.asset = asset_path && asset_path[0] ? asset_path : NULL;
    run.watch = w;

    bw_character_options options = {
        .limits = {.instructions = lim.instructions, .memory = lim.memory, .seconds = lim.seconds},
        .asset = run.asset,
        .fields = demo_fields,
        .read = read_fields,
        .setup = add_demo_globals,
        .on_open = watch_opened,
        .max_clips = DEMO_MAX_CLIPS,
        .user = &run,
    };
    bw_character *loaded = NULL;
    if (!bw_character_load(script_path, &options, &loaded, err, err_size)) return false;
    demo_character *c = (demo_character *)calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, err_size, "%s: out of memory", run.chunk);
        bw_character_destroy(loaded);
        return false;
    }
    /* take the copies over: the loader's character keeps nothing */
    c->rig = loaded->rig;
    loaded->rig = NULL;
    for (int i = 0; i < loaded->clip_count; i++) {
        c->clips[i].clip = loaded->clips[i].clip;
        loaded->clips[i].clip = NULL;
        snprintf(c->clips[i].name, sizeof c->clips[i].name, "%s", loaded->clips[i].name);
    }
    c->clip_count = loaded->clip_count;
    c->scene = run.scene;
    snprintf(c->script, sizeof c->script, "%s", script_path);
    bw_character_destroy(loaded);
    *out = c;
    return true;
}

void demo_character_destroy(demo_character *character)
{
    if (!character) return;
    for (int i = 0; i < character->clip_count; i++) bw_clip_destroy(character->clips[i].clip);
    bw_rig_destroy(character->rig);
    free(character);
}

int demo_character_find_clip(const demo_character *character, const char *name)
{
    if (!character || !name) return -1;
    for (int i = 0; i < character->clip_count; i++)
        if (strcmp(character->clips[i].name, name) == 0) return i;
    return -1;
}
