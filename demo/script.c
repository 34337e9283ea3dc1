/* script.c - running character scripts in a sandboxed Lua state and
 * copying what they return into host-owned core objects (script.h). */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "lua_blendwerk.h"
#include "lua_support.h"
#include "script.h"

/* The count hook runs every HOOK_STEP instructions: often enough that a
 * runaway loop overshoots its budget by a negligible amount, rarely enough
 * to cost nothing measurable. */
#define HOOK_STEP 1000
#define MAX_SCRIPT_BYTES ((size_t)4 << 20)
#define MAX_PRINT_LINES 100
/* A pattern match is one VM instruction, so the count hook cannot stop it:
 * calls whose worst case exceeds this many steps are refused instead. */
#define PATTERN_COST_LIMIT 5e8

/* Everything one script run shares; the state's allocator user data, so
 * the hook and every sandbox function reach it through lua_getallocf. */
typedef struct sandbox {
    size_t used, cap;
    bool cap_hit;
    long long budget, spent;
    bool budget_hit;
    double deadline, seconds;
    bool time_hit;
    char dir[DEMO_PATH_MAX];      /* folder of the script: includes and assets resolve here */
    char chunk[DEMO_NAME_MAX];    /* the script's file name, used as its chunk name */
    const char *path;             /* the script as given */
    const char *asset;            /* the host's --asset path, or NULL */
    demo_watch *watch;
    int printed;
    bool extracting;              /* the script returned; its value is being read */
    demo_character *character;    /* filled by extract() */
} sandbox;

static sandbox *sandbox_of(lua_State *L)
{
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return (sandbox *)ud;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

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

/* The memory cap: growth beyond `cap` is refused (Lua then raises a memory
 * error); shrinking always succeeds, as Lua requires. The core objects the
 * module creates use this same allocator, so they count too. */
static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    sandbox *sb = (sandbox *)ud;
    size_t old = ptr ? osize : 0; /* for a new block osize is a type tag */
    if (nsize == 0) {
        free(ptr);
        sb->used = old <= sb->used ? sb->used - old : 0;
        return NULL;
    }
    if (nsize > old && nsize - old > sb->cap - sb->used) {
        sb->cap_hit = true;
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (!p) return NULL;
    sb->used = sb->used - (old <= sb->used ? old : sb->used) + nsize;
    return p;
}

/* The instruction budget and the wall-clock limit. Once either is spent
 * the hook fires on every instruction, so a script that catches the error
 * with pcall cannot run a single further instruction. */
static void budget_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    sandbox *sb = sandbox_of(L);
    sb->spent += HOOK_STEP;
    if (!sb->budget_hit && !sb->time_hit) {
        if (sb->spent > sb->budget)
            sb->budget_hit = true;
        else if (now_seconds() > sb->deadline)
            sb->time_hit = true;
        else
            return;
    }
    lua_sethook(L, budget_hook, LUA_MASKCOUNT, 1);
    lua_Debug where;
    char place[128] = "";
    if (lua_getstack(L, 0, &where) && lua_getinfo(L, "Sl", &where) && where.currentline > 0)
        snprintf(place, sizeof place, "%s:%d: ", where.short_src, where.currentline);
    if (sb->budget_hit)
        lua_pushfstring(L, "%sinstruction budget of %I exceeded: script stopped", place, (LUAI_UACINT)sb->budget);
    else
        lua_pushfstring(L, "%stime limit of %f s exceeded: script stopped", place, (lua_Number)sb->seconds);
    lua_error(L);
}

/* "name:digits:" at the start: the message already says where. */
static bool has_position(const char *msg)
{
    const char *colon = strchr(msg, ':');
    if (!colon || colon == msg || !isdigit((unsigned char)colon[1])) return false;
    const char *d = colon + 1;
    while (isdigit((unsigned char)*d)) d++;
    return *d == ':';
}

/* Message handler of the protected run: errors raised without a position
 * (assert(blendwerk.clip{...}), error(msg, 0), a table as error object)
 * get the innermost script line that was running. */
static int message_handler(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg) msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    if (has_position(msg)) return 1;
    lua_Debug ar;
    for (int level = 1; lua_getstack(L, level, &ar); level++) {
        if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
            lua_pushfstring(L, "%s:%d: %s", ar.short_src, ar.currentline, msg);
            return 1;
        }
    }
    lua_pushstring(L, msg);
    return 1;
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

static void watch_add(sandbox *sb, const char *path)
{
    demo_watch *w = sb->watch;
    for (int i = 0; i < w->count; i++)
        if (strcmp(w->files[i].path, path) == 0) return;
    if (w->count < DEMO_MAX_FILES) file_stamp_take(&w->files[w->count++], path);
}

/* Whether `path` is watched already or can still be: the files a script
 * reads are bounded, so the host can always watch all of them. */
static bool watch_has_room(const sandbox *sb, const char *path)
{
    for (int i = 0; i < sb->watch->count; i++)
        if (strcmp(sb->watch->files[i].path, path) == 0) return true;
    return sb->watch->count < DEMO_MAX_FILES;
}

/* Scripts may name files beside them only: relative, no "..", plain
 * characters. Returns why a path is refused, or NULL. */
static const char *refuse_path(const char *path)
{
    size_t n = strlen(path);
    if (n == 0) return "is empty";
    if (n > 200) return "is too long";
    if (path[0] == '/') return "is absolute (scripts may open files beside them only)";
    const char *seg = path;
    for (size_t i = 0; i <= n; i++) {
        char c = path[i];
        if (c == '/' || c == '\0') {
            size_t len = (size_t)(path + i - seg);
            if (len == 0) return "has an empty component";
            if (len == 2 && seg[0] == '.' && seg[1] == '.') return "leaves the script's folder";
            seg = path + i + 1;
        } else if (!isalnum((unsigned char)c) && c != '_' && c != '-' && c != '.') {
            return "has characters other than letters, digits, '_', '-', '.' and '/'";
        }
    }
    return NULL;
}

/* Push the text chunk in `path` (chunk name `name`), or raise. The bytes
 * go into a userdata, so the memory cap covers them and nothing leaks
 * when an error unwinds. */
static void push_file_chunk(lua_State *L, const char *path, const char *name)
{
    struct stat st;
    if (stat(path, &st) != 0) luaL_error(L, "cannot open %s: %s", name, strerror(errno));
    if (!S_ISREG(st.st_mode)) luaL_error(L, "cannot open %s: not a regular file", name);
    if ((size_t)st.st_size > MAX_SCRIPT_BYTES)
        luaL_error(L, "%s is larger than %d bytes", name, (int)MAX_SCRIPT_BYTES);
    size_t size = (size_t)st.st_size;
    char *buf = (char *)lua_newuserdatauv(L, size ? size : 1, 0);
    FILE *f = fopen(path, "rb");
    if (!f) luaL_error(L, "cannot open %s: %s", name, strerror(errno));
    size_t got = fread(buf, 1, size, f);
    fclose(f);
    const char *chunkname = lua_pushfstring(L, "@%s", name);
    int status = luaL_loadbufferx(L, buf, got, chunkname, "t");
    if (status != LUA_OK) lua_error(L);
    lua_replace(L, -3); /* chunk over the buffer, drop the name */
    lua_pop(L, 1);
}

/* ---- the sandbox's functions ---- */

static int sandbox_print(lua_State *L)
{
    sandbox *sb = sandbox_of(L);
    int n = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 1; i <= n; i++) {
        if (i > 1) luaL_addchar(&b, '\t');
        luaL_tolstring(L, i, NULL);
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    if (sb->printed < MAX_PRINT_LINES)
        fprintf(stderr, "[%s] %s\n", sb->chunk, lua_tostring(L, -1));
    else if (sb->printed == MAX_PRINT_LINES)
        fprintf(stderr, "[%s] (further output suppressed)\n", sb->chunk);
    sb->printed++;
    return 0;
}

/* load(chunk [, chunkname [, mode [, env]]]) with the mode forced to "t". */
static int sandbox_load(lua_State *L)
{
    int n = lua_gettop(L);
    if (n < 3) {
        lua_settop(L, 3);
        n = 3;
    }
    lua_pushliteral(L, "t");
    lua_replace(L, 3);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

/* setmetatable refusing __gc: Lua runs finalizers with hooks disabled, so
 * a finalizer would escape the instruction budget. An object is marked for
 * finalization only if its metatable has __gc when it is set, so checking
 * here is enough. */
static int sandbox_setmetatable(lua_State *L)
{
    if (lua_type(L, 2) == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL)
            return luaL_error(L, "setmetatable: __gc metamethods are not allowed in demo scripts "
                                 "(finalizers would run outside the instruction budget)");
        lua_pop(L, 1);
    }
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

static int sandbox_require(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    if (strcmp(name, "blendwerk") != 0)
        return luaL_error(L, "require '%s': only \"blendwerk\" is available to demo scripts "
                             "(use include(path) for files beside the script)", name);
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_getfield(L, -1, "blendwerk");
    return 1;
}

/* include(path): run another script beside this one, return its results. */
static int sandbox_include(lua_State *L)
{
    sandbox *sb = sandbox_of(L);
    const char *rel = luaL_checkstring(L, 1);
    const char *why = refuse_path(rel);
    if (why) return luaL_error(L, "include '%s': the path %s", rel, why);
    char full[DEMO_PATH_MAX];
    if (snprintf(full, sizeof full, "%s/%s", sb->dir, rel) >= (int)sizeof full)
        return luaL_error(L, "include '%s': the path is too long", rel);
    if (!watch_has_room(sb, full))
        return luaL_error(L, "include '%s': a character may use at most %d files", rel, DEMO_MAX_FILES);
    watch_add(sb, full);
    lua_settop(L, 1);
    push_file_chunk(L, full, rel);
    lua_call(L, 0, LUA_MULTRET);
    return lua_gettop(L) - 1;
}

/* blendwerk.load(path [, options]) limited to the host's --asset file and
 * files beside the script. */
static int sandbox_asset_load(lua_State *L)
{
    sandbox *sb = sandbox_of(L);
    const char *path = luaL_checkstring(L, 1);
    char full[DEMO_PATH_MAX];
    if (sb->asset && strcmp(path, sb->asset) == 0) {
        snprintf(full, sizeof full, "%s", path);
    } else {
        const char *why = refuse_path(path);
        if (why) return luaL_error(L, "blendwerk.load '%s': the path %s", path, why);
        if (snprintf(full, sizeof full, "%s/%s", sb->dir, path) >= (int)sizeof full)
            return luaL_error(L, "blendwerk.load '%s': the path is too long", path);
    }
    if (!watch_has_room(sb, full))
        return luaL_error(L, "blendwerk.load '%s': a character may use at most %d files", path, DEMO_MAX_FILES);
    watch_add(sb, full);
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushstring(L, full);
    for (int i = 2; i <= n; i++) lua_pushvalue(L, i);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L) - n;
}

/* Rough worst-case step count of a pattern call: each repetition item
 * (*, +, -, %b) can rescan the subject from every position it is tried at,
 * so the cost grows like m * n^(q+1). Overestimates are harmless: only
 * calls far beyond what a character script needs are refused. */
static int count_repetitions(const char *p, size_t m)
{
    int q = 0;
    bool in_set = false;
    for (size_t i = 0; i < m; i++) {
        char c = p[i];
        if (c == '%') {
            if (i + 1 < m && p[i + 1] == 'b' && !in_set) {
                q++;
                i += 3;
            } else {
                i++;
            }
        } else if (in_set) {
            if (c == ']') in_set = false;
        } else if (c == '[') {
            in_set = true;
            if (i + 1 < m && p[i + 1] == '^') i++;
            if (i + 1 < m && p[i + 1] == ']') i++; /* a leading ']' is literal */
        } else if ((c == '*' || c == '+' || c == '-') && i > 0) {
            q++;
        }
    }
    return q;
}

static const char *const pattern_names[] = {"find", "match", "gmatch", "gsub"};

static int guarded_pattern(lua_State *L)
{
    int kind = (int)lua_tointeger(L, lua_upvalueindex(2));
    int t1 = lua_type(L, 1), t2 = lua_type(L, 2);
    if ((t1 == LUA_TSTRING || t1 == LUA_TNUMBER) && (t2 == LUA_TSTRING || t2 == LUA_TNUMBER)) {
        size_t n = 0, m = 0;
        lua_tolstring(L, 1, &n);
        const char *p = lua_tolstring(L, 2, &m);
        bool plain = kind == 0 && lua_toboolean(L, 4);
        if (!plain) plain = strpbrk(p, "^$*+?.([%-") == NULL && strlen(p) == m;
        double cost = plain ? (double)n * (double)(m ? m : 1)
                            : (double)(m ? m : 1) * pow((double)n + 1.0, (double)count_repetitions(p, m) + 1.0);
        if (cost > PATTERN_COST_LIMIT)
            return luaL_error(L, "string.%s: refused: a %d-byte subject with this %d-byte pattern could run "
                                 "longer than the sandbox allows", pattern_names[kind], (int)n, (int)m);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* Open the allowed libraries and replace what must not be reachable. */
static void open_sandbox(lua_State *L, sandbox *sb)
{
    static const luaL_Reg libs[] = {
        {LUA_GNAME, luaopen_base},        {LUA_STRLIBNAME, luaopen_string}, {LUA_TABLIBNAME, luaopen_table},
        {LUA_MATHLIBNAME, luaopen_math},  {LUA_UTF8LIBNAME, luaopen_utf8},  {LUA_COLIBNAME, luaopen_coroutine},
        {NULL, NULL},
    };
    for (const luaL_Reg *lib = libs; lib->func; lib++) {
        luaL_requiref(L, lib->name, lib->func, 1);
        lua_pop(L, 1);
    }
    luaL_requiref(L, "blendwerk", luaopen_blendwerk, 1);
    lua_getfield(L, -1, "load");
    lua_pushcclosure(L, sandbox_asset_load, 1);
    lua_setfield(L, -2, "load");
    lua_pop(L, 1);

    lua_pushglobaltable(L);
    lua_pushnil(L);
    lua_setfield(L, -2, "dofile");
    lua_pushnil(L);
    lua_setfield(L, -2, "loadfile");
    lua_getfield(L, -1, "load");
    lua_pushcclosure(L, sandbox_load, 1);
    lua_setfield(L, -2, "load");
    lua_pushcfunction(L, sandbox_print);
    lua_setfield(L, -2, "print");
    lua_getfield(L, -1, "setmetatable");
    lua_pushcclosure(L, sandbox_setmetatable, 1);
    lua_setfield(L, -2, "setmetatable");
    lua_pushcfunction(L, sandbox_require);
    lua_setfield(L, -2, "require");
    lua_pushcfunction(L, sandbox_include);
    lua_setfield(L, -2, "include");

    lua_createtable(L, 0, 2);
    if (sb->asset) {
        lua_pushstring(L, sb->asset);
        lua_setfield(L, -2, "asset");
    }
    lua_pushstring(L, sb->chunk);
    lua_setfield(L, -2, "script");
    lua_setfield(L, -2, "demo");

    lua_getfield(L, -1, LUA_STRLIBNAME);
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");
    for (int k = 0; k < 4; k++) {
        lua_getfield(L, -1, pattern_names[k]);
        lua_pushinteger(L, k);
        lua_pushcclosure(L, guarded_pattern, 2);
        lua_setfield(L, -2, pattern_names[k]);
    }
    lua_pop(L, 2);
}

/* ---- copying the script's objects ----
 *
 * The script's rig and clips live in its Lua state's capped allocator and
 * die with the state, so the character keeps clones made with malloc
 * (bw_rig_clone / bw_clip_clone: exact copies, independent of the state). */

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

/* ---- reading the returned table (raw access: plain data, no metamethods) ---- */

static void check_fields(lua_State *L, int t, const char *path, const char *const *allowed)
{
    t = lua_absindex(L, t);
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        bool ok = false;
        if (lua_type(L, -1) == LUA_TSTRING) {
            const char *key = lua_tostring(L, -1);
            for (int i = 0; allowed[i]; i++) ok = ok || strcmp(key, allowed[i]) == 0;
            if (!ok) luaL_error(L, "%s: unknown field '%s'", path, key);
        } else {
            luaL_error(L, "%s: unexpected %s key", path, luaL_typename(L, -1));
        }
    }
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
static int clip_ref(lua_State *L, const demo_character *c, const char *path)
{
    if (lua_type(L, -1) == LUA_TSTRING) {
        int i = demo_character_find_clip(c, lua_tostring(L, -1));
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

static int field_clip_ref(lua_State *L, int t, const demo_character *c, const char *path)
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

static void read_scene(lua_State *L, int t, demo_character *c)
{
    static const char *const scene_fields[] = {"play", "gesture", "crossfade", "view", "ground_speed", NULL};
    static const char *const play_fields[] = {"clip", "priority", "weight", "speed", "time", "fade_in", "loop", "base", NULL};
    static const char *const gesture_fields[] = {"clip", "priority", "weight", "fade_in", "fade_out", NULL};
    static const char *const view_fields[] = {"yaw", "pitch", NULL};
    demo_scene *s = &c->scene;
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

/* extract(result): validate the script's returned table and copy it. The
 * messages name the field; the caller prefixes the file name. */
static void extract(lua_State *L, int t, demo_character *c)
{
    static const char *const top_fields[] = {"rig", "clips", "scene", NULL};
    char why[DEMO_ERROR_MAX];
    if (!lua_istable(L, t))
        luaL_error(L, "the script must return a table {rig = ..., clips = {...}, scene = {...}}, not a %s",
                   luaL_typename(L, t));
    check_fields(L, t, "returned table", top_fields);

    lua_pushliteral(L, "rig");
    lua_rawget(L, t);
    bw_lua_rig *r = (bw_lua_rig *)luaL_testudata(L, -1, BW_LUA_RIG);
    if (!r) luaL_error(L, "rig: expected a blendwerk.Rig, got a %s", luaL_typename(L, -1));
    if (r->hdr.closed || r->hdr.destroyed || !r->rig) luaL_error(L, "rig: the Rig is closed");
    if (!rig_is_drawable(r->rig, why, sizeof why)) luaL_error(L, "rig: %s", why);
    bw_error err = {0};
    if (bw_rig_clone(r->rig, NULL, &c->rig, &err) != BW_OK) luaL_error(L, "rig: copying the rig: %s", err.message);
    lua_pop(L, 1);

    lua_pushliteral(L, "clips");
    if (lua_rawget(L, t) != LUA_TTABLE) luaL_error(L, "clips: expected a list of blendwerk.Clip");
    int list = lua_gettop(L);
    lua_Unsigned n = lua_rawlen(L, list);
    if (n == 0) luaL_error(L, "clips: the list is empty");
    if (n > DEMO_MAX_CLIPS) luaL_error(L, "clips: %d clips; the demo takes at most %d", (int)n, DEMO_MAX_CLIPS);
    for (int i = 1; i <= (int)n; i++) {
        lua_rawgeti(L, list, i);
        bw_lua_clip *lc = (bw_lua_clip *)luaL_testudata(L, -1, BW_LUA_CLIP);
        if (!lc) luaL_error(L, "clips[%d]: expected a blendwerk.Clip, got a %s", i, luaL_typename(L, -1));
        if (lc->hdr.closed || lc->hdr.destroyed || !lc->clip) luaL_error(L, "clips[%d]: the Clip is closed", i);
        demo_clip *dc = &c->clips[c->clip_count];
        const char *name = bw_clip_name(lc->clip);
        if (!name[0]) {
            snprintf(dc->name, sizeof dc->name, "#%d", i);
        } else if (strlen(name) >= sizeof dc->name) {
            luaL_error(L, "clips[%d]: the name '%s' is longer than %d bytes", i, name, DEMO_NAME_MAX - 1);
        } else {
            snprintf(dc->name, sizeof dc->name, "%s", name);
        }
        int dup = demo_character_find_clip(c, dc->name);
        if (dup >= 0) luaL_error(L, "clips[%d]: the name '%s' repeats clips[%d]'s", i, dc->name, dup + 1);
        if (bw_clip_clone(lc->clip, NULL, &dc->clip, &err) != BW_OK)
            luaL_error(L, "clips[%d]: copying clip '%s': %s", i, name, err.message);
        c->clip_count++;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);

    default_scene(&c->scene);
    lua_pushliteral(L, "scene");
    int ty = lua_rawget(L, t);
    if (ty == LUA_TTABLE)
        read_scene(L, lua_gettop(L), c);
    else if (ty != LUA_TNIL)
        luaL_error(L, "scene: expected a table, got a %s", lua_typename(L, ty));
    lua_pop(L, 1);
}

/* The whole run, in protected mode: open the sandbox, run the script,
 * extract what it returned. Errors from extract carry no position; they
 * are prefixed with the file name (and "returned value") by the caller. */
static int run_script(lua_State *L)
{
    sandbox *sb = (sandbox *)lua_touserdata(L, 1);
    open_sandbox(L, sb);
    push_file_chunk(L, sb->path, sb->chunk);
    lua_call(L, 0, 1);
    sb->extracting = true; /* errors from here on concern the returned table */
    extract(L, lua_gettop(L), sb->character);
    return 0;
}

static void split_path(const char *path, char *dir, size_t dir_size, char *base, size_t base_size)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(dir, dir_size, ".");
        snprintf(base, base_size, "%s", path);
    } else if (slash == path) {
        snprintf(dir, dir_size, "/");
        snprintf(base, base_size, "%s", slash + 1);
    } else {
        snprintf(dir, dir_size, "%.*s", (int)(slash - path), path);
        snprintf(base, base_size, "%s", slash + 1);
    }
}

bool demo_character_load(const char *script_path, const char *asset_path, const demo_limits *limits,
                         demo_character **out, demo_watch *watch, char *err, size_t err_size)
{
    demo_watch local_watch;
    demo_watch *w = watch ? watch : &local_watch;
    w->count = 0;
    if (!out || !err || err_size == 0) {
        if (err && err_size) snprintf(err, err_size, "demo_character_load: missing output argument");
        return false;
    }
    if (!script_path || !script_path[0]) {
        snprintf(err, err_size, "no script path given");
        return false;
    }
    if (strlen(script_path) >= DEMO_PATH_MAX - DEMO_NAME_MAX) {
        snprintf(err, err_size, "script path is too long");
        return false;
    }
    demo_limits lim = demo_limits_resolve(limits);
    sandbox sb;
    memset(&sb, 0, sizeof sb);
    sb.cap = lim.memory;
    sb.budget = lim.instructions;
    sb.seconds = lim.seconds;
    sb.path = script_path;
    sb.asset = asset_path && asset_path[0] ? asset_path : NULL;
    sb.watch = w;
    split_path(script_path, sb.dir, sizeof sb.dir, sb.chunk, sizeof sb.chunk);
    watch_add(&sb, script_path);

    demo_character *c = (demo_character *)calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, err_size, "%s: out of memory", sb.chunk);
        return false;
    }
    snprintf(c->script, sizeof c->script, "%s", script_path);
    sb.character = c;

    lua_State *L = lua_newstate(capped_alloc, &sb);
    if (!L) {
        snprintf(err, err_size, "%s: cannot create a Lua state within the memory cap of %zu bytes", sb.chunk, sb.cap);
        free(c);
        return false;
    }
    lua_sethook(L, budget_hook, LUA_MASKCOUNT, HOOK_STEP);
    sb.deadline = now_seconds() + sb.seconds;
    lua_pushcfunction(L, message_handler);
    lua_pushcfunction(L, run_script);
    /* nothing before the protected call may allocate: the cap may be tiny */
    lua_pushlightuserdata(L, &sb);
    int status = lua_pcall(L, 1, 0, 1);

    bool ok = status == LUA_OK && !sb.cap_hit && !sb.budget_hit && !sb.time_hit;
    if (!ok) {
        /* nothing here may allocate in the state: it may be at its cap */
        const char *msg = status != LUA_OK && lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        if (sb.cap_hit) {
            int n = snprintf(err, err_size, "%s: memory cap of %zu KiB exceeded: script stopped", sb.chunk,
                             sb.cap >> 10);
            if (msg && status != LUA_ERRMEM && strcmp(msg, "not enough memory") != 0 && n > 0 && (size_t)n < err_size)
                snprintf(err + n, err_size - (size_t)n, " (then: %s)", msg);
        } else if (!msg) {
            snprintf(err, err_size, "%s: script stopped", sb.chunk);
        } else if (sb.extracting) {
            snprintf(err, err_size, "%s: returned value: %s", sb.chunk, msg);
        } else {
            snprintf(err, err_size, "%s", msg);
        }
    }
    lua_close(L);
    if (!ok) {
        demo_character_destroy(c);
        return false;
    }
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
