/* character.c - running a character file in the sandbox and copying what it
 * returns into host-owned core objects (character.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "character.h"
#include "lua_support.h"

#define HOST_FIELDS_MAX 16 /* extra top-level fields a host may declare */

/* What one run shares with the sandbox's callbacks and the protected calls. */
typedef struct load_run {
    const bw_character_options *options;
    char chunk[256];                          /* the script's file name, its chunk name */
    char full[BW_CHARACTER_PATH_MAX + 258];   /* folder + "/" + chunk, as the sandbox names it */
    bw_character *character;                  /* filled by extract() */
} load_run;

/* ---- the sandbox's callbacks and globals ---- */

/* The script itself is the host's own load; every other file goes to the
 * host's on_open. */
static bool run_opened(void *user, const char *path, char *why, size_t why_size)
{
    const load_run *run = (const load_run *)user;
    if (strcmp(path, run->full) == 0 || !run->options->on_open) return true;
    return run->options->on_open(run->options->user, path, why, why_size);
}

/* The registry key of the list of files being run, the script first and
 * then each include in flight (a name already there is an include loop). */
#define INCLUDING "blendwerk.character.including"

/* (name) -> the results of the mod's file `name` run. */
static int run_include(lua_State *L)
{
    bw_sandbox_push_file(L, "include", lua_tostring(L, 1));
    lua_call(L, 0, LUA_MULTRET);
    return lua_gettop(L) - 1;
}

/* include(name): run another file beside this one, return its results. */
static int l_include(lua_State *L)
{
    size_t len = 0;
    const char *name = luaL_checklstring(L, 1, &len);
    /* "a\0b" would open "a": the file names a C function sees end there */
    if (strlen(name) != len) return luaL_error(L, "include '%s': the name holds a NUL byte", name);
    lua_settop(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, INCLUDING); /* 2: the files in flight */
    lua_Integer depth = luaL_len(L, 2);
    for (lua_Integer i = 1; i <= depth; i++) {
        lua_rawgeti(L, 2, i);
        bool loop = lua_rawequal(L, 1, -1);
        lua_pop(L, 1);
        if (!loop) continue;
        /* "include 'a.lua': an include loop (a.lua -> b.lua -> a.lua)" */
        luaL_Buffer b;
        luaL_buffinit(L, &b);
        for (lua_Integer k = i; k <= depth; k++) {
            lua_rawgeti(L, 2, k);
            luaL_addvalue(&b);
            luaL_addstring(&b, " -> ");
        }
        luaL_addstring(&b, name);
        luaL_pushresult(&b);
        return luaL_error(L, "include '%s': an include loop (%s)", name, lua_tostring(L, -1));
    }
    /* depth counts the script: depth − 1 includes are in flight */
    if (depth > BW_CHARACTER_MAX_INCLUDE_DEPTH) {
        lua_rawgeti(L, 2, 1);
        lua_rawgeti(L, 2, depth);
        return luaL_error(L, "include '%s': includes nest more than %d files deep (%s -> ... -> %s -> %s)", name,
                          BW_CHARACTER_MAX_INCLUDE_DEPTH, lua_tostring(L, -2), lua_tostring(L, -1), name);
    }
    lua_pushvalue(L, 1);
    lua_rawseti(L, 2, depth + 1);
    /* the file opened and run protected: however it ends (a refused or
     * missing file, an error a script's pcall catches), it leaves the
     * list, and its error goes on as it was raised */
    lua_pushcfunction(L, run_include);
    lua_pushvalue(L, 1);
    int status = bw_sandbox_pcall(L, 1, LUA_MULTRET);
    lua_pushnil(L);
    lua_rawseti(L, 2, depth + 1); /* done: out of the list (the slot exists: no allocation) */
    bw_sandbox_reraise(L, status);
    return lua_gettop(L) - 2;
}

/* Runs in the sandbox: the loader's globals, then the host's (setup),
 * whose tables become read-only (bw_sandbox_protect_globals): each file
 * has globals of its own, but the base's tables are one for all files of
 * the load, so a file writing into them would reach the others. */
static int add_globals(lua_State *L)
{
    const load_run *run = (const load_run *)lua_touserdata(L, 1);
    lua_createtable(L, 4, 0);
    lua_pushstring(L, run->chunk);
    lua_rawseti(L, -2, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, INCLUDING);
    lua_pushcfunction(L, l_include);
    lua_setglobal(L, "include");
    if (run->options->setup) {
        lua_pushcfunction(L, run->options->setup);
        lua_pushlightuserdata(L, run->options->user);
        lua_call(L, 1, 0);
        bw_sandbox_protect_globals(L);
    }
    return 0;
}

/* A malloc copy of `src` named `name`: the exact clone when the names
 * agree, else the same tracks, markers, length and loop flag rebuilt
 * under the new name (the core keeps no other way to rename a clip; the
 * grid fast path is derived from the tracks, so it comes out the same). */
static bw_result clone_named(const bw_clip *src, const char *name, bw_clip **out, bw_error *err)
{
    if (strcmp(bw_clip_name(src), name) == 0) return bw_clip_clone(src, NULL, out, err);
    int tracks = bw_clip_track_count(src), markers = bw_clip_marker_count(src);
    bw_track_desc *td = (bw_track_desc *)calloc((size_t)(tracks > 0 ? tracks : 1), sizeof *td);
    bw_marker_desc *md = (bw_marker_desc *)calloc((size_t)(markers > 0 ? markers : 1), sizeof *md);
    bw_result r = td && md ? BW_OK : BW_ERR_OUT_OF_MEMORY;
    for (int i = 0; r == BW_OK && i < tracks; i++) r = bw_clip_track(src, i, &td[i]);
    for (int i = 0; i < markers; i++) md[i] = (bw_marker_desc){bw_clip_marker_name(src, i), bw_clip_marker_time(src, i)};
    if (r == BW_OK) {
        bw_clip_desc desc = {.name = name, .tracks = td, .track_count = tracks, .markers = md,
                             .marker_count = markers, .length = bw_clip_length(src), .loop = bw_clip_loop(src)};
        r = bw_clip_create(&desc, out, err);
    } else if (err) {
        snprintf(err->message, sizeof err->message, "out of memory");
    }
    free(td);
    free(md);
    return r;
}

/* ---- warnings ---- */

/* Append to the list at `out` the creation warnings of the Rig or Clip at
 * `obj` (bw_lua_push_made_warnings), unless the same list was appended
 * already (`seen`: list -> true): an asset's rig and clips share its one
 * list, told once. */
static void gather_warnings(lua_State *L, int obj, int out, int seen)
{
    bw_lua_push_made_warnings(L, obj);
    const int list = lua_gettop(L);
    if (lua_istable(L, list)) {
        lua_pushvalue(L, list);
        if (lua_rawget(L, seen) == LUA_TNIL) {
            lua_pushvalue(L, list);
            lua_pushboolean(L, 1);
            lua_rawset(L, seen);
            lua_Integer n = (lua_Integer)lua_rawlen(L, list), at = (lua_Integer)lua_rawlen(L, out);
            for (lua_Integer i = 1; i <= n; i++) {
                lua_rawgeti(L, list, i);
                lua_rawseti(L, out, ++at);
            }
        }
    }
    lua_settop(L, list - 1);
}

/* Tell the host's logger each message of the list on top (what extract
 * returned). Strings and raw reads only: nothing here allocates, so it
 * may run outside a protected call. */
static void tell_warnings(lua_State *L, const bw_logger *logger)
{
    if (!logger->fn || !lua_istable(L, -1)) return;
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, i);
        const char *message = lua_tostring(L, -1);
        if (message) logger->fn(logger->user, BW_LOG_WARNING, message);
        lua_pop(L, 1);
    }
}

/* ---- copying clips ---- */

/* The Clip at the top of the stack, copied into the next entry under
 * `name`. `what` names the entry for messages ("clips[2]", "clips.walk");
 * sources[i] is the Clip entry i was copied from; handles[name] = the
 * Clip (its warnings are gathered in the character's order). */
static void add_clip(lua_State *L, bw_character *c, const bw_clip **sources, int handles, const char *what,
                     const char *name)
{
    bw_lua_clip *lc = (bw_lua_clip *)luaL_testudata(L, -1, BW_LUA_CLIP);
    if (!lc) luaL_error(L, "%s: expected a blendwerk.Clip, got a %s", what, luaL_typename(L, -1));
    if (lc->hdr.closed || lc->hdr.destroyed || !lc->clip) luaL_error(L, "%s: the Clip is closed", what);
    bw_character_clip *cc = &c->clips[c->clip_count];
    if (strlen(name) >= sizeof cc->name)
        luaL_error(L, "%s: the name '%s' is longer than %d bytes", what, name, BW_CHARACTER_NAME_MAX - 1);
    int dup = bw_character_find_clip(c, name);
    if (dup >= 0) luaL_error(L, "%s: the name '%s' repeats clips[%d]'s", what, name, dup + 1);
    /* one copy per Clip: the copies then weigh at most what the clips
     * weigh in the capped state, however often a script lists one */
    for (int i = 0; i < c->clip_count; i++)
        if (sources[i] == lc->clip)
            luaL_error(L, "%s: the same Clip as clip '%s'; give each entry a Clip of its own", what, c->clips[i].name);
    sources[c->clip_count] = lc->clip;
    bw_error err;
    memset(&err, 0, sizeof err);
    if (clone_named(lc->clip, name, &cc->clip, &err) != BW_OK)
        luaL_error(L, "%s: copying clip '%s': %s", what, name, err.message);
    snprintf(cc->name, sizeof cc->name, "%s", name);
    c->clip_count++;
    lua_pushvalue(L, -1);
    lua_setfield(L, handles, name);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const bw_character_clip *)a)->name, ((const bw_character_clip *)b)->name);
}

/* clips: a list of Clips, or name = Clip; handles[name] = each Clip. */
static void read_clips(lua_State *L, int t, bw_character *c, int max_clips, int handles)
{
    char why[256];
    if (bw_lua_raw_field(L, t, "clips") != LUA_TTABLE)
        luaL_error(L, "clips: expected a list of blendwerk.Clip (or a table of name = Clip), got a %s",
                   luaL_typename(L, -1));
    int list = lua_gettop(L);
    lua_Integer n = (lua_Integer)lua_rawlen(L, list);
    bool named = n == 0;
    if (named) { /* count the entries: all keys must be names */
        lua_pushnil(L);
        while (lua_next(L, list)) {
            lua_pop(L, 1);
            if (lua_type(L, -1) != LUA_TSTRING)
                luaL_error(L, "clips: unexpected %s key; give a list of Clips or a table of name = Clip",
                           luaL_typename(L, -1));
            n++;
        }
    } else if (!bw_lua_check_list(L, list, why, sizeof why)) {
        luaL_error(L, "clips: %s; give a list of Clips or a table of name = Clip, not both", why);
    }
    if (n == 0) luaL_error(L, "clips: the list is empty");
    if (max_clips <= 0) max_clips = BW_CHARACTER_DEFAULT_MAX_CLIPS;
    if (n > max_clips) luaL_error(L, "clips: %d clips; this host takes at most %d", (int)n, max_clips);
    c->clips = (bw_character_clip *)calloc((size_t)n, sizeof *c->clips);
    if (!c->clips) luaL_error(L, "clips: out of memory");
    /* scratch in the state (freed with it, also when an error unwinds) */
    const bw_clip **sources = (const bw_clip **)lua_newuserdatauv(L, sizeof *sources * (size_t)n, 0);
    if (!named) {
        for (lua_Integer i = 1; i <= n; i++) {
            char what[32], unnamed[32];
            snprintf(what, sizeof what, "clips[%d]", (int)i);
            snprintf(unnamed, sizeof unnamed, "#%d", (int)i);
            lua_rawgeti(L, list, i);
            bw_lua_clip *lc = (bw_lua_clip *)luaL_testudata(L, -1, BW_LUA_CLIP);
            const char *own = lc && lc->clip && !lc->hdr.destroyed ? bw_clip_name(lc->clip) : "";
            add_clip(L, c, sources, handles, what, own[0] ? own : unnamed);
            lua_pop(L, 1);
        }
    } else {
        lua_pushnil(L);
        while (lua_next(L, list)) {
            size_t len = 0;
            const char *key = lua_tolstring(L, -2, &len); /* a string: lua_next is safe */
            char what[BW_CHARACTER_NAME_MAX + 16];
            snprintf(what, sizeof what, "clips.%s", key);
            if (!key[0]) luaL_error(L, "clips: an empty name");
            /* "x\0y" would be filed as "x": refused, as a rig refuses such joint names */
            if (strlen(key) != len) luaL_error(L, "%s: the name must be a string without NUL bytes", what);
            add_clip(L, c, sources, handles, what, key);
            lua_pop(L, 1);
        }
        qsort(c->clips, (size_t)c->clip_count, sizeof *c->clips, by_name);
    }
    lua_pop(L, 2); /* sources, the clips table */
}

/* extract(result, run) -> warnings: validate the returned table and copy
 * it; return the creation warnings of the rig and clips it returned, a
 * list (the rig's, then the clips' in the character's order). The
 * messages name the field; the caller prefixes the file name. */
static int extract(lua_State *L)
{
    load_run *run = (load_run *)lua_touserdata(L, 2);
    const bw_character_options *o = run->options;
    bw_character *c = run->character;
    const int t = 1;
    char why[256];
    if (!lua_istable(L, t))
        luaL_error(L, "the script must return a table {rig = Rig, clips = {Clip, ...}}, not a %s", luaL_typename(L, t));

    const char *allowed[HOST_FIELDS_MAX + 3] = {"rig", "clips"};
    int na = 2;
    for (int i = 0; o->fields && o->fields[i] && na < HOST_FIELDS_MAX + 2; i++) allowed[na++] = o->fields[i];
    allowed[na] = NULL;
    if (!bw_lua_check_fields(L, t, allowed, why, sizeof why)) luaL_error(L, "returned table: %s", why);

    bw_lua_raw_field(L, t, "rig");
    bw_lua_rig *r = (bw_lua_rig *)luaL_testudata(L, -1, BW_LUA_RIG);
    if (!r) luaL_error(L, "rig: expected a blendwerk.Rig, got a %s", luaL_typename(L, -1));
    if (r->hdr.closed || r->hdr.destroyed || !r->rig) luaL_error(L, "rig: the Rig is closed");
    bw_error err;
    memset(&err, 0, sizeof err);
    if (bw_rig_clone(r->rig, NULL, &c->rig, &err) != BW_OK) luaL_error(L, "rig: copying the rig: %s", err.message);
    const int rig = lua_gettop(L);
    lua_newtable(L); /* the clips by name */
    const int handles = lua_gettop(L);
    read_clips(L, t, c, o->max_clips, handles);
    if (o->read) o->read(o->user, L, t, c);

    lua_newtable(L); /* the warnings */
    const int out = lua_gettop(L);
    lua_newtable(L); /* the lists gathered */
    const int seen = lua_gettop(L);
    gather_warnings(L, rig, out, seen);
    for (int i = 0; i < c->clip_count; i++) {
        lua_getfield(L, handles, c->clips[i].name);
        gather_warnings(L, lua_gettop(L), out, seen);
        lua_pop(L, 1);
    }
    lua_settop(L, out);
    return 1;
}

/* ---- the loader ---- */

bool bw_character_load(const char *path, const bw_character_options *options, bw_character **out, char *err,
                       size_t err_size)
{
    static const bw_character_options defaults;
    if (!out || !err || err_size == 0) {
        if (err && err_size) snprintf(err, err_size, "bw_character_load: missing output argument");
        return false;
    }
    if (!path || !path[0]) {
        snprintf(err, err_size, "no script path given");
        return false;
    }
    if (strlen(path) >= BW_CHARACTER_PATH_MAX) {
        snprintf(err, err_size, "%s: the path is too long (at most %d bytes)", path, BW_CHARACTER_PATH_MAX - 1);
        return false;
    }
    load_run run;
    memset(&run, 0, sizeof run);
    run.options = options ? options : &defaults;
    char dir[BW_CHARACTER_PATH_MAX];
    const char *name = bw_sandbox_split_path(path, dir, sizeof dir);
    snprintf(run.chunk, sizeof run.chunk, "%s", name ? name : path);
    snprintf(run.full, sizeof run.full, "%s/%s", dir, run.chunk);

    bw_character *c = (bw_character *)calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, err_size, "%s: out of memory", run.chunk);
        return false;
    }
    snprintf(c->path, sizeof c->path, "%s", path);
    run.character = c;

    bw_sandbox_desc desc = {
        .limits = run.options->limits,
        .dir = dir,
        .name = run.chunk,
        .on_open = run_opened,
        .user = &run,
    };
    char why[BW_SANDBOX_ERROR_MAX];
    bw_sandbox *sb = bw_sandbox_create(&desc, why, sizeof why);
    if (!sb) {
        snprintf(err, err_size, "%s: %s", run.chunk, why);
        free(c);
        return false;
    }
    const char *asset = run.options->asset;
    if (asset && asset[0]) bw_sandbox_allow_file(sb, asset);
    lua_State *L = bw_sandbox_state(sb);
    /* light C functions and pointers: pushing them allocates nothing, so
     * nothing here can fail outside the sandbox's protected calls */
    lua_pushcfunction(L, add_globals);
    lua_pushlightuserdata(L, &run);
    bool ok = bw_sandbox_call(sb, 1, 0) == BW_SANDBOX_OK && bw_sandbox_load_file(sb, run.chunk, path) == BW_SANDBOX_OK &&
              bw_sandbox_call(sb, 0, 1) == BW_SANDBOX_OK;
    if (!ok) {
        snprintf(err, err_size, "%s", bw_sandbox_error(sb));
    } else {
        lua_pushcfunction(L, extract);
        lua_insert(L, -2);
        lua_pushlightuserdata(L, &run);
        bw_sandbox_status st = bw_sandbox_call(sb, 2, 1);
        ok = st == BW_SANDBOX_OK;
        if (ok) tell_warnings(L, &run.options->logger);
        /* errors about the table name the field, not a line; stops
         * (budget, time, memory) keep the sandbox's "file:line:" */
        if (st == BW_SANDBOX_ERROR)
            snprintf(err, err_size, "%s: returned value: %s", run.chunk, bw_sandbox_error(sb));
        else if (!ok)
            snprintf(err, err_size, "%s", bw_sandbox_error(sb));
    }
    bw_sandbox_destroy(sb);
    if (!ok) {
        bw_character_destroy(c);
        return false;
    }
    *out = c;
    return true;
}

void bw_character_destroy(bw_character *character)
{
    if (!character) return;
    for (int i = 0; i < character->clip_count; i++) bw_clip_destroy(character->clips[i].clip);
    free(character->clips);
    bw_rig_destroy(character->rig);
    free(character);
}

int bw_character_find_clip(const bw_character *character, const char *name)
{
    if (!character || !name) return -1;
    for (int i = 0; i < character->clip_count; i++)
        if (strcmp(character->clips[i].name, name) == 0) return i;
    return -1;
}
