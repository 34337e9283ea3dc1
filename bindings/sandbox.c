/* sandbox.c - the hardened Lua state for untrusted scripts (sandbox.h).
 *
 * The library wrappers (string, table, coroutine, base) are in
 * sandbox_lib.c; this file holds the state, its allocator and hook, the
 * environment, the mod's files and the host-facing calls. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "blendwerk/text.h"
#include "lua_blendwerk.h"
#include "lua_support.h"
#include "sandbox_internal.h"

static const char readonly_key[] = "blendwerk.sandbox.readonly";

bw_sandbox *bw_sandbox_of(lua_State *L)
{
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return (bw_sandbox *)ud;
}

double bw_sandbox_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Whether the running call is past its wall-clock limit. The call's clock
 * starts at its first check (its first count hook, charged operation or
 * charged allocation), not when it begins: a per-frame callback that ends
 * before any (most of them: under BW_SANDBOX_HOOK_STEP instructions) never
 * reads the clock, which on a virtual machine costs as much as a short
 * callback's own instructions. What runs before that first check is at
 * most one hook step of instructions or one charged operation, which the
 * check right after it counts. */
static void start_clock(bw_sandbox *sb, double now)
{
    if (!sb->deadline_pending) return;
    sb->deadline_pending = false;
    sb->deadline = now + sb->seconds;
}

static bool past_deadline(bw_sandbox *sb)
{
    double now = bw_sandbox_now();
    if (sb->deadline_pending) {
        start_clock(sb, now);
        return false;
    }
    return now > sb->deadline;
}

bw_sandbox_limits bw_sandbox_limits_resolve(const bw_sandbox_limits *limits)
{
    bw_sandbox_limits out = {0};
    if (limits) out = *limits;
    if (out.instructions <= 0) out.instructions = BW_SANDBOX_DEFAULT_INSTRUCTIONS;
    if (!(out.seconds > 0.0) || !isfinite(out.seconds)) out.seconds = BW_SANDBOX_DEFAULT_SECONDS;
    if (out.memory == 0) out.memory = BW_SANDBOX_DEFAULT_MEMORY;
    if (out.callback_instructions <= 0) out.callback_instructions = BW_SANDBOX_DEFAULT_CALLBACK_INSTRUCTIONS;
    if (!(out.callback_seconds > 0.0) || !isfinite(out.callback_seconds))
        out.callback_seconds = BW_SANDBOX_DEFAULT_CALLBACK_SECONDS;
    if (out.max_string == 0) out.max_string = BW_SANDBOX_DEFAULT_MAX_STRING;
    if (out.max_coroutine_depth <= 0) out.max_coroutine_depth = BW_SANDBOX_DEFAULT_COROUTINE_DEPTH;
    return out;
}

/* ---- where a script is ---- */

void bw_sandbox_where(lua_State *L, char *buf, size_t size)
{
    lua_Debug ar;
    buf[0] = '\0';
    for (int level = 0; lua_getstack(L, level, &ar); level++) {
        if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
            snprintf(buf, size, "%s:%d", ar.short_src, ar.currentline);
            return;
        }
    }
}

/* "name:digits:" at the start: the message already says where. */
static bool has_position(const char *msg)
{
    const char *colon = strchr(msg, ':');
    if (!colon || colon == msg || colon[1] < '0' || colon[1] > '9') return false;
    const char *d = colon + 1;
    while (*d >= '0' && *d <= '9') d++;
    return *d == ':';
}

/* Message handler of every host call: errors raised without a position
 * (error(msg, 0), a table as error object, a C function's refusal) get the
 * innermost script line that was running. */
static int message_handler(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg) msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    if (has_position(msg)) return 1;
    char where[256];
    bw_sandbox_where(L, where, sizeof where);
    if (where[0]) lua_pushfstring(L, "%s: %s", where, msg);
    return 1;
}

/* require's: a message gets its position where it happens (as above);
 * any other error value (a table, a boolean) passes through unchanged to
 * the script's own pcall, as with a plain call. */
static int require_message_handler(lua_State *L)
{
    int t = lua_type(L, 1);
    return t == LUA_TSTRING || t == LUA_TNUMBER ? message_handler(L) : 1;
}

/* ---- stops ---- */

void bw_sandbox_set_stop(bw_sandbox *sb, lua_State *L, bw_sandbox_status why)
{
    if (sb->stop != BW_SANDBOX_OK) return;
    sb->stop = why;
    char where[256] = "";
    if (why == BW_SANDBOX_MEMORY)
        snprintf(where, sizeof where, "%s", sb->mem_where);
    else
        bw_sandbox_where(L, where, sizeof where);
    const char *place = where[0] ? where : sb->chunk;
    switch (why) {
    case BW_SANDBOX_BUDGET:
        snprintf(sb->stop_msg, sizeof sb->stop_msg, "%s: instruction budget of %lld exceeded: script stopped", place,
                 sb->budget);
        break;
    case BW_SANDBOX_TIME:
        snprintf(sb->stop_msg, sizeof sb->stop_msg, "%s: time limit of %g s exceeded: script stopped", place,
                 sb->seconds);
        break;
    default:
        snprintf(sb->stop_msg, sizeof sb->stop_msg,
                 "%s: memory cap of %zu KiB exceeded: not enough memory, script stopped", place,
                 sb->lim.memory >> 10);
        break;
    }
}

void bw_sandbox_stop_refused(lua_State *L, const char *what)
{
    bw_sandbox *sb = bw_sandbox_of(L);
    if (sb->stop == BW_SANDBOX_OK) {
        char where[256];
        bw_sandbox_where(L, where, sizeof where);
        sb->stop = BW_SANDBOX_ERROR;
        snprintf(sb->stop_msg, sizeof sb->stop_msg, "%s: %s: script stopped", where[0] ? where : sb->chunk, what);
    }
    bw_sandbox_raise_stop(sb, L);
}

/* Every thread that runs after a stop raises on its next instruction. */
static void count_hook(lua_State *L, lua_Debug *ar);

void bw_sandbox_raise_stop(bw_sandbox *sb, lua_State *L)
{
    lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
    if (L != sb->L) lua_sethook(sb->L, count_hook, LUA_MASKCOUNT, 1);
    lua_pushstring(L, sb->stop_msg);
    lua_error(L);
}

void bw_sandbox_check_stop(lua_State *L)
{
    bw_sandbox *sb = bw_sandbox_of(L);
    if (sb->stop != BW_SANDBOX_OK) bw_sandbox_raise_stop(sb, L);
}

void bw_sandbox_after_protected(lua_State *L, int status)
{
    bw_sandbox *sb = bw_sandbox_of(L);
    if (status == LUA_ERRMEM) bw_sandbox_set_stop(sb, L, BW_SANDBOX_MEMORY);
    if (sb->stop != BW_SANDBOX_OK) bw_sandbox_raise_stop(sb, L);
}

void bw_sandbox_charge(lua_State *L, double work)
{
    bw_sandbox *sb = bw_sandbox_of(L);
    bw_sandbox_check_stop(L);
    if (!sb->running) return;
    if (work > (double)(sb->budget - sb->spent)) {
        sb->spent = sb->budget + 1;
        bw_sandbox_set_stop(sb, L, BW_SANDBOX_BUDGET);
        bw_sandbox_raise_stop(sb, L);
    }
    sb->spent += (long long)work;
    /* charged calls do C work between hook points: check the clock too */
    if (past_deadline(sb)) {
        bw_sandbox_set_stop(sb, L, BW_SANDBOX_TIME);
        bw_sandbox_raise_stop(sb, L);
    }
}

double bw_sandbox_remaining(lua_State *L)
{
    bw_sandbox *sb = bw_sandbox_of(L);
    return sb->running ? (double)(sb->budget - sb->spent) : (double)sb->lim.instructions;
}

/* The instruction budget and the wall-clock limit. */
static void count_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    bw_sandbox *sb = bw_sandbox_of(L);
    if (!sb->running) return;
    if (sb->stop == BW_SANDBOX_OK) {
        sb->spent += lua_gethookcount(L);
        if (sb->spent > sb->budget)
            bw_sandbox_set_stop(sb, L, BW_SANDBOX_BUDGET);
        else if (past_deadline(sb))
            bw_sandbox_set_stop(sb, L, BW_SANDBOX_TIME);
        else
            return;
    }
    bw_sandbox_raise_stop(sb, L);
}

/* ---- the allocator: the memory cap ---- */

/* Growth beyond the cap is refused, so Lua raises "not enough memory";
 * shrinking always succeeds, as Lua requires. The module's core objects use
 * this allocator too. The position of the refused allocation is kept for
 * the report (lua_getinfo reads the call stack and does not allocate).
 *
 * Big allocations are also where single instructions do a lot of C work
 * (`s .. s` on a long string, string.upper of 16 MiB, a table resize), so
 * during a call each one is charged against the budget (one instruction
 * per ALLOC_BYTES_PER_INSTRUCTION bytes) and checks the clock; a spent
 * budget or a passed deadline refuses the allocation and stops the call. */
#define ALLOC_CHARGE_MIN 4096
#define ALLOC_BYTES_PER_INSTRUCTION 16

static bool alloc_allowed(bw_sandbox *sb, size_t grow)
{
    if (sb->used > sb->lim.memory || grow > sb->lim.memory - sb->used) {
        sb->mem_refused++;
        if (sb->running && sb->current && sb->stop == BW_SANDBOX_OK)
            bw_sandbox_where(sb->current, sb->mem_where, sizeof sb->mem_where);
        return false;
    }
    if (!sb->running || grow < ALLOC_CHARGE_MIN || !sb->current) return true;
    if (sb->stop != BW_SANDBOX_OK) return false; /* stopped: unwind, do not build */
    sb->spent += (long long)(grow / ALLOC_BYTES_PER_INSTRUCTION);
    if (sb->spent > sb->budget)
        bw_sandbox_set_stop(sb, sb->current, BW_SANDBOX_BUDGET);
    else if (past_deadline(sb))
        bw_sandbox_set_stop(sb, sb->current, BW_SANDBOX_TIME);
    return sb->stop == BW_SANDBOX_OK;
}

static void *sandbox_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    bw_sandbox *sb = (bw_sandbox *)ud;
    size_t old = ptr ? osize : 0; /* for a new block osize is a type tag */
    if (nsize == 0) {
        free(ptr);
        sb->used = old <= sb->used ? sb->used - old : 0;
        return NULL;
    }
    if (nsize > old && !alloc_allowed(sb, nsize - old)) return NULL;
    void *p = realloc(ptr, nsize);
    if (!p) return NULL;
    sb->used = sb->used - (old <= sb->used ? old : sb->used) + nsize;
    return p;
}

/* ---- the mod's files ---- */

/* Mods name their files relative to their folder: plain characters, no
 * empty or ".." component, not absolute. Returns why a name is refused. */
const char *bw_sandbox_refuse_name(const char *path)
{
    size_t n = strlen(path);
    if (n == 0) return "is empty";
    if (n > 200) return "is too long";
    if (path[0] == '/') return "is absolute (a mod may open files inside its folder only)";
    const char *seg = path;
    for (size_t i = 0; i <= n; i++) {
        char c = path[i];
        if (c == '/' || c == '\0') {
            size_t len = (size_t)(path + i - seg);
            if (len == 0) return "has an empty component";
            if (len == 2 && seg[0] == '.' && seg[1] == '.') return "leaves the mod's folder";
            seg = path + i + 1;
        } else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                     c == '-' || c == '.')) {
            return "has characters other than letters, digits, '_', '-', '.' and '/'";
        }
    }
    return NULL;
}

/* Open `rel` inside the folder `dir` one component at a time with
 * O_NOFOLLOW, so no symbolic link (planted in the mod, or swapped in after
 * a check) leads out of it, and the file itself with O_NONBLOCK, so a
 * named pipe planted in the mod does not block the host (it is then
 * refused as not a regular file). Returns the descriptor of a regular file, or
 * minus the error number (-ENOENT: the file or a folder on its way is
 * missing) with the reason in why. */
static int open_inside(const char *dir, const char *rel, char *why, size_t why_size)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        snprintf(why, why_size, "cannot open the mod's folder: %s", strerror(e));
        return -e;
    }
    char part[256];
    const char *p = rel;
    for (;;) {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        snprintf(part, sizeof part, "%.*s", (int)len, p);
        int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (slash ? O_DIRECTORY : O_NONBLOCK | O_NOCTTY);
        int next = openat(fd, part, flags);
        int e = errno;
        close(fd);
        if (next < 0) {
            if (e == ELOOP || e == ENOTDIR)
                snprintf(why, why_size, "'%.100s' is a symbolic link or not a folder (links are not followed)", part);
            else
                snprintf(why, why_size, "%s", strerror(e));
            return -e;
        }
        fd = next;
        if (!slash) break;
        p = slash + 1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        snprintf(why, why_size, "not a regular file");
        return -EINVAL;
    }
    return fd;
}

/* Check a file name the script gives and tell the host: full path in
 * `full`, or a Lua error naming `what` (a refused name, no folder, the
 * host's refusal). Returns `what` as used (NULL: "load"). */
static const char *check_mod_file(lua_State *L, const char *what, const char *name, char *full, size_t full_size)
{
    bw_sandbox *sb = bw_sandbox_of(L);
    const char *bad = what ? bw_sandbox_refuse_name(name) : NULL;
    if (!what) { /* the host's own load: any file name, still inside the folder */
        what = "load";
        if (!name[0] || strchr(name, '/')) bad = "must be a file name inside the mod's folder";
    }
    if (bad) luaL_error(L, "%s '%s': the name %s", what, name, bad);
    if (!sb->dir[0]) luaL_error(L, "%s '%s': this sandbox has no files", what, name);
    if (snprintf(full, full_size, "%s/%s", sb->dir, name) >= (int)full_size)
        luaL_error(L, "%s '%s': the path is too long", what, name);
    char why[256];
    if (sb->on_open && !sb->on_open(sb->user, full, why, sizeof why)) luaL_error(L, "%s '%s': %s", what, name, why);
    return what;
}

/* check_mod_file, then open it: a file that does not open is a Lua error
 * naming it (`display`, NULL: name). Returns an open descriptor. */
static int open_mod_file(lua_State *L, const char *what, const char *name, const char *display, char *full,
                         size_t full_size)
{
    bw_sandbox *sb = bw_sandbox_of(L);
    what = check_mod_file(L, what, name, full, full_size);
    char why[256];
    int fd = open_inside(sb->dir, name, why, sizeof why);
    if (fd < 0 && strcmp(what, "require") == 0) {
        /* the name was accepted but there is no file: the require loading
         * now (its file not open yet) may track it (sandbox_require) */
        if (sb->loading_depth > 0 && sb->loading[sb->loading_depth - 1] < 0) sb->require_missing = fd == -ENOENT;
        luaL_error(L, "require: cannot open %s: %s (only \"blendwerk\" and the mod's own modules can be required)",
                   name, why);
    }
    if (fd < 0) luaL_error(L, "cannot open %s: %s", display ? display : name, why);
    return fd;
}

static int new_buffer(lua_State *L)
{
    size_t size = *(const size_t *)lua_touserdata(L, 1);
    lua_newuserdatauv(L, size ? size : 1, 0);
    return 1;
}

bw_sandbox *bw_sandbox_from_state(lua_State *L)
{
    void *ud = NULL;
    return lua_getallocf(L, &ud) == sandbox_alloc ? (bw_sandbox *)ud : NULL;
}

void bw_sandbox_push_file_text(lua_State *L, const char *what, const char *name, const char *display)
{
    char full[BW_SANDBOX_PATH_MAX];
    int fd = open_mod_file(L, what, name, display, full, sizeof full);
    bw_file_stamp st = bw_file_stamp_fd(fd);
    if (st.size < 0 || (unsigned long long)st.size > BW_SANDBOX_MAX_SCRIPT) {
        close(fd);
        luaL_error(L, "%s is larger than %d bytes", display ? display : name, (int)BW_SANDBOX_MAX_SCRIPT);
    }
    size_t size = (size_t)st.size;
    bw_sandbox_of(L)->opened = st;
    /* the bytes go into a userdata, so the cap covers them and an error
     * cannot leak them; allocated in protected mode so that a memory error
     * cannot leak the descriptor either */
    lua_pushcfunction(L, new_buffer);
    lua_pushlightuserdata(L, &size);
    int status = lua_pcall(L, 1, 1, 0);
    if (status != LUA_OK) {
        close(fd);
        lua_error(L);
    }
    char *buf = (char *)lua_touserdata(L, -1);
    size_t got = 0;
    while (got < size) {
        ssize_t r = read(fd, buf + got, size - got);
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fd);
    lua_pushlstring(L, buf, got);
    lua_replace(L, -2); /* the text over the buffer */
}

/* ---- each chunk's own globals ----
 *
 * Every chunk the sandbox loads (the host's files and strings, require's
 * modules, include's files, graph files, load's strings) gets an
 * environment of its own: a table whose metatable (one for all, guarded
 * by __metatable) reads through to the state's global table, the base.
 * A script's globals, `_G` included (its own environment), are its own;
 * the base is out of its reach, and the libraries in it are read-only
 * proxies. So a chunk that sets `math = nil` or `blendwerk = nil` and
 * then fails leaves every other chunk as it was. */

static const char env_mt_key = 0; /* its address: the environments' metatable in the registry */

void bw_sandbox_push_env(lua_State *L)
{
    lua_createtable(L, 0, 1);
    lua_pushvalue(L, -1);
    lua_setfield(L, -2, "_G");
    lua_rawgetp(L, LUA_REGISTRYINDEX, &env_mt_key);
    lua_setmetatable(L, -2);
}

void bw_sandbox_isolate(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    if (!bw_sandbox_from_state(L) || !lua_isfunction(L, idx) || lua_iscfunction(L, idx)) return;
    bw_sandbox_push_env(L);
    if (!lua_setupvalue(L, idx, 1)) lua_pop(L, 1); /* a chunk that has no _ENV (none: text chunks always do) */
}

/* Push text as a text chunk or raise the syntax error; a refusal without
 * a line (a binary chunk, or nesting past the parser's C levels: "C stack
 * overflow") still names the chunk as `shown`, and a memory error stays
 * one. */
static void load_or_raise(lua_State *L, const char *text, size_t size, const char *chunkname, const char *shown)
{
    int status = luaL_loadbufferx(L, text, size, chunkname, "t");
    if (status == LUA_OK) {
        bw_sandbox_isolate(L, -1);
        return;
    }
    const char *msg = status != LUA_ERRMEM ? lua_tostring(L, -1) : NULL;
    if (msg && status != LUA_ERRSYNTAX && has_position(msg)) {
        /* the parser's C-level stop carries the caller's position (a
         * require's line, which the require names anyway): the chunk's
         * name replaces it */
        msg = strchr(strchr(msg, ':') + 1, ':') + 1;
        while (*msg == ' ') msg++;
        lua_pushfstring(L, "%s: %s", shown, msg);
    } else if (msg && !has_position(msg)) {
        lua_pushfstring(L, "%s: %s", shown, msg);
    }
    lua_error(L);
}

/* The text on top (mod file `name`'s) replaced by its loaded chunk, or raise the syntax error. */
static void load_text(lua_State *L, const char *name)
{
    size_t size = 0;
    const char *text = lua_tolstring(L, -1, &size);
    load_or_raise(L, text, size, lua_pushfstring(L, "@%s", name), name);
    lua_replace(L, -3); /* the chunk over the text, drop the name */
    lua_pop(L, 1);
}

void bw_sandbox_push_file(lua_State *L, const char *what, const char *name)
{
    bw_sandbox_push_file_text(L, what, name, NULL);
    load_text(L, name);
}

/* blendwerk.load(path [, options]): a file the host granted (the module's
 * own loader, by that path), or one of the mod's files: checked and
 * reported to the host like every mod file, then loaded by the loader
 * that resolves it beneath the mod's folder itself (no link followed, no
 * component reopened by path), so a link swapped in after the check
 * cannot lead outside. */
static int sandbox_asset_load(lua_State *L)
{
    bw_sandbox *sb = bw_sandbox_of(L);
    size_t path_len = 0;
    const char *path = luaL_checklstring(L, 1, &path_len);
    if (strlen(path) != path_len) { /* C would see a shorter name: refuse, do not truncate (as outside) */
        lua_pushnil(L);
        lua_pushfstring(L, "%s: the path contains a NUL byte", path);
        return 2;
    }
    bool granted = false;
    for (int i = 0; i < sb->allowed_count && !granted; i++)
        if (strcmp(path, sb->allowed[i]) == 0) {
            char why[256];
            if (sb->on_open && !sb->on_open(sb->user, path, why, sizeof why))
                return luaL_error(L, "blendwerk.load '%s': %s", path, why);
            granted = true;
        }
    int n = lua_gettop(L);
    if (granted) {
        lua_pushvalue(L, lua_upvalueindex(1));
    } else {
        /* a refused name raises; a file of the mod's that does not open
         * (missing, a folder, a pipe, a link) is the loader's nil, message */
        char full[BW_SANDBOX_PATH_MAX], why[256];
        check_mod_file(L, "blendwerk.load", path, full, sizeof full);
        int fd = open_inside(sb->dir, path, why, sizeof why);
        if (fd < 0) {
            lua_pushnil(L);
            lua_pushfstring(L, "%s: cannot open: %s", path, why);
            return 2;
        }
        close(fd);
        bw_lua_push_loader_beneath(L, sb->dir);
    }
    for (int i = 1; i <= n; i++) lua_pushvalue(L, i);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L) - n;
}

/* Module `name`'s file ("lib.util" -> "lib/util.lua") into file; false
 * for a name no module has or when it does not fit. */
static bool module_file(const char *name, char *file, size_t size)
{
    size_t n = strlen(name);
    if (n == 0 || n > 200 || n + 5 > size || strchr(name, '/')) return false;
    for (size_t i = 0; i <= n; i++) file[i] = name[i] == '.' ? '/' : name[i];
    snprintf(file + n, size - n, ".lua");
    return true;
}

void bw_sandbox_module_file(lua_State *L, const char *name, char *file, size_t size)
{
    if (!module_file(name, file, size))
        luaL_error(L,
                   "require '%s': only \"blendwerk\" and the mod's own modules (\"name\" or "
                   "\"folder.name\" for name.lua inside the mod's folder) can be required",
                   name);
}

/* ---- the mod's modules (sandbox.h "Modules") ---- */

static const char required_key = 0; /* its address: require's cache (name -> value) in the registry */

/* Push require's cache (made with the environment, "blendwerk" in it); no
 * string is looked up. */
static void push_cache(lua_State *L) { lua_rawgetp(L, LUA_REGISTRYINDEX, &required_key); }

/* The index of module `name`, or -1. */
static int module_index(const bw_sandbox *sb, const char *name)
{
    for (int i = 0; i < sb->module_count; i++)
        if (strcmp(sb->modules[i].name, name) == 0) return i;
    return -1;
}

/* The index of module `name` (added when new), or -1 when the table is full. */
static int module_slot(bw_sandbox *sb, const char *name)
{
    int found = module_index(sb, name);
    if (found >= 0) return found;
    if (sb->module_count >= BW_SANDBOX_MAX_MODULES || strlen(name) >= BW_SANDBOX_MODULE_NAME_MAX) return -1;
    struct bw_sandbox_module *m = &sb->modules[sb->module_count];
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", name);
    m->stamp = (bw_file_stamp){-1, -1};
    return sb->module_count++;
}

static uint64_t module_bit(int i) { return (uint64_t)1 << i; }

/* Module m was required at nesting `level` (0: by the host's call, else
 * by the module loading at level - 1): a dependency of that module, or
 * one of the host call's requires while it records. */
static void note_required(bw_sandbox *sb, int level, int m)
{
    if (m < 0) return;
    if (level == 0) {
        if (sb->recording) sb->required |= module_bit(m);
    } else if (sb->loading[level - 1] >= 0) {
        sb->modules[sb->loading[level - 1]].deps |= module_bit(m);
    }
}

/* (file, name) -> the module's value: its file run with its name. The
 * module gets its slot once its file is open (a refused file takes none;
 * a missing one is sandbox_require's to track), and its stamp before the
 * chunk loads (a syntax error is not reported again). */
static int load_module(lua_State *L)
{
    bw_sandbox *sb = bw_sandbox_of(L);
    const char *file = lua_tostring(L, 1);
    int level = sb->loading_depth - 1;
    bw_sandbox_push_file_text(L, "require", file, NULL);
    int m = module_slot(sb, lua_tostring(L, 2));
    sb->loading[level] = m;
    if (m >= 0) {
        sb->modules[m].deps = 0;
        sb->modules[m].stamp = sb->opened;
    }
    note_required(sb, level, m);
    load_text(L, file);
    lua_pushvalue(L, 2);
    lua_call(L, 1, 1);
    return 1;
}

/* require("blendwerk") (cached from the start) or one of the mod's
 * files: require("lib.util") runs lib/util.lua once and keeps its result;
 * a load that fails leaves nothing cached (the next require tries the
 * file again). A cached module is served by one table lookup (the
 * per-frame path: no string is compared); only while the host records
 * (bw_sandbox_requires_begin) or a module loads is it looked up among the
 * modules, to be noted. */
static int sandbox_require(lua_State *L)
{
    size_t name_len = 0;
    const char *checked = luaL_checklstring(L, 1, &name_len);
    if (strlen(checked) != name_len) /* "util\0x" would load util.lua */
        return luaL_error(L, "require '%s': the module name contains a NUL byte", checked);
    lua_settop(L, 1);
    bw_sandbox *sb = bw_sandbox_of(L);
    push_cache(L);
    lua_pushvalue(L, 1);
    if (lua_rawget(L, 2) != LUA_TNIL) {
        if (lua_type(L, -1) == LUA_TLIGHTUSERDATA)
            return luaL_error(L, "require '%s': a require loop", lua_tostring(L, 1));
        if (sb->recording || sb->loading_depth > 0)
            note_required(sb, sb->loading_depth, module_index(sb, lua_tostring(L, 1)));
        return 1;
    }
    lua_pop(L, 1);
    const char *name = lua_tostring(L, 1);
    char file[256];
    bw_sandbox_module_file(L, name, file, sizeof file);
    if (sb->loading_depth >= BW_SANDBOX_MAX_MODULES)
        return luaL_error(L, "require '%s': modules nested deeper than %d", name, BW_SANDBOX_MAX_MODULES);
    /* everything that may allocate before the mark: a memory error then
     * leaves no mark and no depth behind */
    lua_pushcfunction(L, require_message_handler); /* messages get their position where they happen */
    lua_pushcfunction(L, load_module);
    lua_pushstring(L, file);
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 1);
    lua_pushlightuserdata(L, (void *)sandbox_require); /* loading */
    lua_rawset(L, 2);
    sb->loading[sb->loading_depth++] = -1; /* load_module sets it once the file is open */
    sb->require_missing = false;
    int status = lua_pcall(L, 2, 1, 3);
    sb->loading_depth--;
    bool missing = sb->require_missing; /* its own file (an inner require took its own flag) */
    sb->require_missing = false;
    /* the mark's key exists now: setting it (by the name's own string)
     * allocates nothing, whatever the name's length */
    lua_pushvalue(L, 1);
    if (status != LUA_OK) {
        lua_pushnil(L); /* not cached */
        lua_rawset(L, 2);
        /* a missing file takes a slot only while the host records, with
         * the stamp "missing", so the host sees the file appear: a control
         * rejected for it reloads then (a refused name takes none) */
        if (missing && sb->recording) note_required(sb, sb->loading_depth, module_slot(sb, name));
        bw_sandbox_after_protected(L, status); /* a stop stays a stop */
        return lua_error(L);
    }
    if (lua_isnil(L, -2)) { /* a module that returns nothing is true, cached and returned */
        lua_pushboolean(L, 1);
        lua_replace(L, -3);
    }
    lua_pushvalue(L, -2);
    lua_rawset(L, 2);
    return 1;
}

void bw_sandbox_requires_begin(bw_sandbox *sb)
{
    if (!sb) return;
    sb->required = 0;
    sb->recording = true;
}

/* mask grown until it holds, with each module in it, every module it
 * required (down: its dependencies) or every module that required it (up:
 * its dependents), transitively */
static uint64_t closure(const bw_sandbox *sb, uint64_t mask, bool up)
{
    for (uint64_t before = 0; before != mask;) {
        before = mask;
        for (int i = 0; i < sb->module_count; i++) {
            uint64_t deps = sb->modules[i].deps;
            if (up ? (deps & mask) != 0 : (mask & module_bit(i)) != 0) mask |= up ? module_bit(i) : deps;
        }
    }
    return mask;
}

uint64_t bw_sandbox_requires_end(bw_sandbox *sb)
{
    if (!sb) return 0;
    sb->recording = false;
    return closure(sb, sb->required, false);
}
int bw_sandbox_module_count(const bw_sandbox *sb) { return sb ? sb->module_count : 0; }

int bw_sandbox_module_find(const bw_sandbox *sb, const char *file)
{
    char mine[BW_SANDBOX_MODULE_NAME_MAX + 8];
    for (int i = 0; sb && file && i < sb->module_count; i++)
        if (module_file(sb->modules[i].name, mine, sizeof mine) && strcmp(mine, file) == 0) return i;
    return -1;
}

bool bw_sandbox_module_path(const bw_sandbox *sb, int i, char *path, size_t size)
{
    char file[BW_SANDBOX_MODULE_NAME_MAX + 8];
    if (!sb || i < 0 || i >= sb->module_count || !path || !size || !module_file(sb->modules[i].name, file, sizeof file))
        return false;
    int n = snprintf(path, size, "%s/%s", sb->dir, file);
    return n >= 0 && (size_t)n < size;
}

uint64_t bw_sandbox_modules_changed(bw_sandbox *sb)
{
    uint64_t changed = 0;
    for (int i = 0; sb && i < sb->module_count; i++) {
        char path[BW_SANDBOX_PATH_MAX + BW_SANDBOX_MODULE_NAME_MAX + 8];
        if (!bw_sandbox_module_path(sb, i, path, sizeof path)) continue;
        bw_file_stamp now = bw_file_stamp_path(path);
        if (bw_file_stamp_same(now, sb->modules[i].stamp)) continue;
        sb->modules[i].stamp = now;
        changed |= module_bit(i);
    }
    return changed;
}

uint64_t bw_sandbox_module_dependents(const bw_sandbox *sb, uint64_t mask) { return sb ? closure(sb, mask, true) : 0; }

/* (sandbox, saved) -> the dropped values by name; the cache entries
 * cleared only once the values are kept under their reference (an error
 * before leaves them all; the clearing itself allocates nothing). */
static int drop_protected(lua_State *L)
{
    const bw_sandbox *sb = (const bw_sandbox *)lua_touserdata(L, 1);
    bw_sandbox_modules_saved *saved = (bw_sandbox_modules_saved *)lua_touserdata(L, 2);
    push_cache(L);
    lua_newtable(L);
    for (int i = 0; i < sb->module_count; i++) {
        bool present = lua_getfield(L, 3, sb->modules[i].name) != LUA_TNIL;
        if (saved->mask & module_bit(i)) lua_setfield(L, 4, sb->modules[i].name);
        else lua_pop(L, 1);
        if (present && !(saved->mask & module_bit(i))) saved->cached |= module_bit(i);
    }
    lua_pushvalue(L, 4);
    lua_pushinteger(L, luaL_ref(L, LUA_REGISTRYINDEX));
    /* the kept names' keys (existing strings) set to nil: no allocation */
    lua_pushnil(L);
    while (lua_next(L, 4)) {
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_pushnil(L);
        lua_rawset(L, 3);
    }
    return 1;
}

bool bw_sandbox_modules_drop(bw_sandbox *sb, uint64_t mask, bw_sandbox_modules_saved *saved)
{
    if (!saved) return false;
    memset(saved, 0, sizeof *saved);
    saved->ref = LUA_NOREF;
    if (!sb) return false;
    saved->mask = mask;
    for (int i = 0; i < sb->module_count; i++) saved->deps[i] = sb->modules[i].deps;
    lua_State *L = sb->L;
    lua_pushcfunction(L, drop_protected);
    lua_pushlightuserdata(L, sb);
    lua_pushlightuserdata(L, saved);
    if (lua_pcall(L, 2, 1, 0) != LUA_OK) {
        lua_pop(L, 1);
        saved->mask = 0;
        return false;
    }
    saved->ref = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    return true;
}

/* (sandbox, saved): the kept values back into the cache, and out of it
 * every other tracked module the rejected attempt loaded */
static int restore_protected(lua_State *L)
{
    const bw_sandbox *sb = (const bw_sandbox *)lua_touserdata(L, 1);
    const bw_sandbox_modules_saved *saved = (const bw_sandbox_modules_saved *)lua_touserdata(L, 2);
    push_cache(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, saved->ref);
    for (int i = 0; i < sb->module_count; i++) {
        if (saved->mask & module_bit(i)) lua_getfield(L, 4, sb->modules[i].name);
        else if (!(saved->cached & module_bit(i))) lua_pushnil(L);
        else continue;
        lua_setfield(L, 3, sb->modules[i].name);
    }
    return 0;
}

void bw_sandbox_modules_restore(bw_sandbox *sb, bw_sandbox_modules_saved *saved)
{
    if (!sb || !saved || saved->ref == LUA_NOREF) return;
    for (int i = 0; i < sb->module_count; i++)
        if (saved->mask & module_bit(i)) sb->modules[i].deps = saved->deps[i];
    lua_State *L = sb->L;
    lua_pushcfunction(L, restore_protected);
    lua_pushlightuserdata(L, sb);
    lua_pushlightuserdata(L, saved);
    /* out of memory: the modules stay out of the cache, and the next
     * require reads them anew (the running scripts keep theirs) */
    if (lua_pcall(L, 2, 0, 0) != LUA_OK) lua_pop(L, 1);
    bw_sandbox_modules_commit(sb, saved);
}

void bw_sandbox_modules_commit(bw_sandbox *sb, bw_sandbox_modules_saved *saved)
{
    if (!sb || !saved) return;
    if (saved->ref != LUA_NOREF) luaL_unref(sb->L, LUA_REGISTRYINDEX, saved->ref);
    saved->ref = LUA_NOREF;
    saved->mask = 0;
}

/* ---- read-only libraries ---- */

bool bw_sandbox_is_readonly(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    lua_getfield(L, LUA_REGISTRYINDEX, readonly_key);
    lua_pushvalue(L, idx);
    bool ro = lua_rawget(L, -2) != LUA_TNIL;
    lua_pop(L, 2);
    return ro;
}

/* Replace the table on top with an empty proxy that reads through to it,
 * refuses writes and hides it (pairs iterates it without handing it out). */
static void make_readonly(lua_State *L, const char *name)
{
    int real = lua_gettop(L);
    lua_pushfstring(L, "the library '%s' is read-only", name);
    bw_lua_push_readonly_view(L, real, false, lua_tostring(L, -1));
    lua_remove(L, -2);
    lua_getfield(L, LUA_REGISTRYINDEX, readonly_key);
    lua_pushvalue(L, -2);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
    lua_replace(L, real);
}

/* The plain table on top of the stack, and every plain table (no
 * metatable) its fields reach, replaced by read-only proxies naming
 * `name` in the error (a library, or a table the host put in the base);
 * `seen` (a stack index) maps each table done to its proxy, so a table
 * reached twice, or a cycle, gets one proxy. Tables with a metatable are
 * left as they are (their owner guards them, as the module's types do). */
static void readonly_tree(lua_State *L, const char *name, int seen, int depth)
{
    /* one C frame per level: a host table nested deeper than any data
     * needs is refused before the C stack runs out */
    if (depth > BW_SANDBOX_MAX_TABLE_DEPTH)
        luaL_error(L, "the table '%s' nests more than %d tables deep: the sandbox makes it read-only level by level",
                   name, BW_SANDBOX_MAX_TABLE_DEPTH);
    luaL_checkstack(L, 8, "tables nested too deep");
    int t = lua_gettop(L);
    lua_pushvalue(L, t);
    if (lua_rawget(L, seen) != LUA_TNIL) { /* done: its proxy */
        lua_replace(L, t);
        return;
    }
    lua_pop(L, 1);
    lua_pushvalue(L, t);
    make_readonly(L, name); /* t+1: its proxy, reading through to t */
    lua_pushvalue(L, t);
    lua_pushvalue(L, t + 1);
    lua_rawset(L, seen);
    lua_pushnil(L);
    while (lua_next(L, t)) {
        if (lua_type(L, -1) != LUA_TTABLE) {
            lua_pop(L, 1);
        } else if (lua_getmetatable(L, -1)) {
            lua_pop(L, 2);
        } else {
            readonly_tree(L, name, seen, depth + 1);
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, t); /* an existing field: allowed while traversing */
        }
    }
    lua_replace(L, t);
}

void bw_sandbox_protect_globals(lua_State *L)
{
    if (!bw_sandbox_from_state(L)) return;
    lua_pushglobaltable(L);
    int g = lua_gettop(L);
    lua_newtable(L);
    int seen = g + 1;
    lua_pushnil(L);
    while (lua_next(L, g)) {
        bool plain = lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TTABLE && !lua_rawequal(L, -1, g);
        if (plain && lua_getmetatable(L, -1)) { /* a library's proxy, or a table that guards itself */
            lua_pop(L, 1);
            plain = false;
        }
        if (!plain) {
            lua_pop(L, 1);
            continue;
        }
        readonly_tree(L, lua_tostring(L, -2), seen, 1);
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, g); /* an existing field: allowed while traversing */
    }
    lua_pop(L, 2);
}

/* __metatable = false on a metatable, unless it guards itself already. */
static void guard_metatable(lua_State *L, int mt)
{
    mt = lua_absindex(L, mt);
    lua_pushliteral(L, "__metatable");
    if (lua_rawget(L, mt) == LUA_TNIL) {
        lua_pushliteral(L, "__metatable");
        lua_pushboolean(L, 0);
        lua_rawset(L, mt);
    }
    lua_pop(L, 1);
}

/* ---- building the environment ---- */

static int open_env(lua_State *L)
{
    static const luaL_Reg libs[] = {
        {LUA_GNAME, luaopen_base},        {LUA_STRLIBNAME, luaopen_string}, {LUA_TABLIBNAME, luaopen_table},
        {LUA_MATHLIBNAME, luaopen_math},  {LUA_UTF8LIBNAME, luaopen_utf8},  {LUA_COLIBNAME, luaopen_coroutine},
        {NULL, NULL},
    };
    lua_newtable(L);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, readonly_key);

    for (const luaL_Reg *lib = libs; lib->func; lib++) {
        luaL_requiref(L, lib->name, lib->func, 1);
        lua_pop(L, 1);
    }
    lua_pushglobaltable(L);
    int g = lua_gettop(L);
    /* the chunks' environments read through to the base (bw_sandbox_push_env) */
    lua_createtable(L, 0, 2);
    lua_pushvalue(L, g);
    lua_setfield(L, -2, "__index");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_rawsetp(L, LUA_REGISTRYINDEX, &env_mt_key);

    /* base */
    static const char *const removed[] = {"dofile", "loadfile", "warn", NULL};
    for (int i = 0; removed[i]; i++) {
        lua_pushnil(L);
        lua_setfield(L, g, removed[i]);
    }
    bw_sandbox_open_base(L, g);
    lua_pushcfunction(L, sandbox_require);
    lua_setfield(L, g, "require");

    /* os: clock, time and date only */
    luaL_requiref(L, LUA_OSLIBNAME, luaopen_os, 0);
    int os = lua_gettop(L);
    lua_createtable(L, 0, 3);
    static const char *const os_kept[] = {"clock", "time", "date", NULL};
    for (int i = 0; os_kept[i]; i++) {
        lua_getfield(L, os, os_kept[i]);
        lua_setfield(L, -2, os_kept[i]);
    }
    bw_sandbox_open_os(L, lua_gettop(L));
    lua_setfield(L, g, LUA_OSLIBNAME);
    lua_pop(L, 1);

    /* string, table, coroutine */
    lua_getfield(L, g, LUA_STRLIBNAME);
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");
    bw_sandbox_open_string(L, lua_gettop(L));
    lua_pop(L, 1);
    lua_getfield(L, g, LUA_TABLIBNAME);
    bw_sandbox_open_table(L, lua_gettop(L));
    lua_pop(L, 1);
    lua_getfield(L, g, LUA_COLIBNAME);
    bw_sandbox_open_coroutine(L, lua_gettop(L));
    lua_pop(L, 1);

    /* the module, its load limited to the mod's files */
    luaL_requiref(L, "blendwerk", luaopen_blendwerk, 0);
    bw_sandbox_install(L, lua_gettop(L), "load", sandbox_asset_load);
    lua_setfield(L, g, "blendwerk");

    /* every metatable a script can reach guards itself */
    lua_pushliteral(L, "");
    lua_getmetatable(L, -1);
    guard_metatable(L, -1);
    lua_pop(L, 2);
    lua_pushnil(L);
    while (lua_next(L, LUA_REGISTRYINDEX)) {
        if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TTABLE &&
            strncmp(lua_tostring(L, -2), "blendwerk.", 10) == 0) {
            lua_pushliteral(L, "__name");
            if (lua_rawget(L, -2) == LUA_TSTRING) guard_metatable(L, -2);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }

    /* the libraries become read-only proxies (the module's subtables too) */
    static const char *const shared[] = {LUA_STRLIBNAME, LUA_TABLIBNAME, LUA_MATHLIBNAME, LUA_UTF8LIBNAME,
                                         LUA_COLIBNAME,  LUA_OSLIBNAME,  "blendwerk",     NULL};
    lua_newtable(L);
    int seen = lua_gettop(L);
    for (int i = 0; shared[i]; i++) {
        lua_getfield(L, g, shared[i]);
        readonly_tree(L, shared[i], seen, 1);
        if (strcmp(shared[i], "blendwerk") == 0) { /* require's cache, require("blendwerk") in it */
            lua_createtable(L, 0, 1);
            lua_pushvalue(L, -2);
            lua_setfield(L, -2, "blendwerk");
            lua_rawsetp(L, LUA_REGISTRYINDEX, &required_key);
        }
        lua_setfield(L, g, shared[i]);
    }
    lua_pop(L, 2);
    return 0;
}

/* ---- creating and destroying ---- */

bw_sandbox *bw_sandbox_create(const bw_sandbox_desc *desc, char *err, size_t err_size)
{
    bw_sandbox_desc d = {0};
    if (desc) d = *desc;
    bw_sandbox *sb = (bw_sandbox *)calloc(1, sizeof *sb);
    if (!sb) {
        if (err && err_size) snprintf(err, err_size, "out of memory");
        return NULL;
    }
    sb->lim = bw_sandbox_limits_resolve(&d.limits);
    if (d.dir && strlen(d.dir) + 256 >= sizeof sb->dir) {
        if (err && err_size) snprintf(err, err_size, "the mod's folder path is too long");
        free(sb);
        return NULL;
    }
    if (d.dir) snprintf(sb->dir, sizeof sb->dir, "%s", d.dir[0] ? d.dir : ".");
    snprintf(sb->name, sizeof sb->name, "%s", d.name ? d.name : "script");
    snprintf(sb->chunk, sizeof sb->chunk, "%s", sb->name);
    sb->on_open = d.on_open;
    sb->report = d.report ? d.report : bw_sandbox_report_stderr;
    sb->report_user = d.user;
    sb->user = d.user;
    sb->L = lua_newstate(sandbox_alloc, sb);
    if (!sb->L) {
        if (err && err_size)
            snprintf(err, err_size, "cannot create a Lua state within the memory cap of %zu bytes", sb->lim.memory);
        free(sb);
        return NULL;
    }
    lua_State *L = sb->L;
    lua_pushcfunction(L, open_env);
    if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
        if (err && err_size)
            snprintf(err, err_size, "cannot open the sandbox's libraries within the memory cap of %zu bytes: %s",
                     sb->lim.memory, lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "error");
        bw_sandbox_destroy(sb);
        return NULL;
    }
    return sb;
}

void bw_sandbox_destroy(bw_sandbox *sb)
{
    if (!sb) return;
    /* No Lua finalizer can exist (setmetatable refuses __gc and the module's
     * metatables are guarded), so closing runs C code only. */
    if (sb->L) lua_close(sb->L);
    free(sb);
}

lua_State *bw_sandbox_state(bw_sandbox *sb) { return sb ? sb->L : NULL; }

size_t bw_sandbox_memory_used(const bw_sandbox *sb) { return sb ? sb->used : 0; }

size_t bw_sandbox_set_memory_cap(bw_sandbox *sb, size_t bytes)
{
    if (!sb) return 0;
    size_t old = sb->lim.memory;
    sb->lim.memory = bytes ? bytes : BW_SANDBOX_DEFAULT_MEMORY;
    return old;
}

int bw_sandbox_modules_loading(const bw_sandbox *sb) { return sb ? sb->loading_depth : 0; }

/* The stderr report of a failed callback: the script's own text (control
 * bytes as \xNN), then what the failure means. */
static void print_failure(const char *message, const char *failed_means)
{
    bw_text_print_lines(stderr, message);
    fprintf(stderr, " (reported once; %s)\n", failed_means ? failed_means : "the call counts as failed");
}

void bw_sandbox_report_stderr(void *user, const char *message)
{
    (void)user;
    print_failure(message, NULL);
}

/* A callback's first failure, reported: through the host's reporter when
 * it set one (its wording is its own), else on stderr with what the
 * callback said a failure means (a predicate: the condition counts as
 * false), as a trusted state's callback reports. */
static void report_failure(const bw_sandbox *sb, const bw_sandbox_callback *cb)
{
    if (sb && sb->report != bw_sandbox_report_stderr) sb->report(sb->report_user, cb->error);
    else print_failure(cb->error, cb->failed_means);
}

void bw_sandbox_set_reporter(bw_sandbox *sb, bw_sandbox_reporter reporter, bw_sandbox_reporter *old)
{
    if (!sb) return;
    if (old) *old = (bw_sandbox_reporter){sb->report, sb->report_user};
    sb->report = reporter.fn ? reporter.fn : bw_sandbox_report_stderr;
    sb->report_user = reporter.user;
}

bool bw_sandbox_allow_file(bw_sandbox *sb, const char *path)
{
    if (!sb || !path || sb->allowed_count >= BW_SANDBOX_MAX_ALLOWED || strlen(path) >= BW_SANDBOX_PATH_MAX) return false;
    snprintf(sb->allowed[sb->allowed_count++], BW_SANDBOX_PATH_MAX, "%s", path);
    return true;
}

const char *bw_sandbox_split_path(const char *path, char *dir, size_t dir_size)
{
    const char *slash = strrchr(path, '/');
    int n = 0;
    if (!slash) n = snprintf(dir, dir_size, ".");
    else if (slash == path) n = snprintf(dir, dir_size, "/");
    else n = snprintf(dir, dir_size, "%.*s", (int)(slash - path), path);
    if (n < 0 || (size_t)n >= dir_size) return NULL;
    return slash ? slash + 1 : path;
}

const char *bw_sandbox_error(const bw_sandbox *sb) { return sb ? sb->error : "no sandbox"; }

/* ---- calls ---- */

static void keep_error(bw_sandbox *sb, int status)
{
    lua_State *L = sb->L;
    if (sb->stop != BW_SANDBOX_OK) {
        snprintf(sb->error, sizeof sb->error, "%s", sb->stop_msg);
    } else if (status == LUA_ERRMEM) {
        bw_sandbox_set_stop(sb, L, BW_SANDBOX_MEMORY);
        snprintf(sb->error, sizeof sb->error, "%s", sb->stop_msg);
    } else if (lua_type(L, -1) == LUA_TSTRING) {
        snprintf(sb->error, sizeof sb->error, "%s", lua_tostring(L, -1));
    } else {
        snprintf(sb->error, sizeof sb->error, "%s: (error object is a %s value)", sb->chunk, luaL_typename(L, -1));
    }
}

static bw_sandbox_status status_of(const bw_sandbox *sb, int status)
{
    if (sb->stop != BW_SANDBOX_OK) return sb->stop;
    if (status == LUA_ERRMEM) return BW_SANDBOX_MEMORY;
    return status == LUA_OK ? BW_SANDBOX_OK : BW_SANDBOX_ERROR;
}

/* The message handler and the function below nargs arguments (the
 * caller pushed them so), with the given limits. The handler is popped. */
static bw_sandbox_status run_handled(bw_sandbox *sb, int nargs, int nresults, long long budget, double seconds)
{
    lua_State *L = sb->L;
    int base = lua_gettop(L) - nargs - 1; /* the handler */
    bool outer = !sb->running;
    if (outer) {
        sb->budget = budget;
        sb->seconds = seconds;
        sb->spent = 0;
        sb->stop = BW_SANDBOX_OK;
        sb->depth = 0;
        sb->mem_where[0] = '\0';
        sb->current = L;
        sb->stack_base = (char *)__builtin_frame_address(0);
        sb->deadline_pending = true; /* past_deadline starts the clock */
        int step = budget < 10 * BW_SANDBOX_HOOK_STEP ? (int)(budget / 10 > 0 ? budget / 10 : 1) : BW_SANDBOX_HOOK_STEP;
        lua_sethook(L, count_hook, LUA_MASKCOUNT, step);
        sb->running = true;
    }
    int status = lua_pcall(L, nargs, nresults, base);
    if (outer) sb->running = false;
    bw_sandbox_status result = status_of(sb, status);
    if (result != BW_SANDBOX_OK) {
        if (status == LUA_OK) { /* the script caught it: stopped all the same */
            snprintf(sb->error, sizeof sb->error, "%s", sb->stop_msg);
        } else {
            keep_error(sb, status);
        }
        lua_settop(L, base - 1);
    } else {
        sb->error[0] = '\0';
        /* the handler alone when there are no results: a settop, not the
         * stack rotation lua_remove makes (the per-frame callbacks) */
        if (nresults == 0) lua_settop(L, base - 1);
        else lua_remove(L, base);
    }
    if (outer) sb->stop = BW_SANDBOX_OK; /* a stop ends with its call; the report stays in error */
    return result;
}

/* The function below nargs arguments, with the given limits. */
static bw_sandbox_status run(bw_sandbox *sb, int nargs, int nresults, long long budget, double seconds)
{
    lua_State *L = sb->L;
    lua_pushcfunction(L, message_handler);
    lua_insert(L, -nargs - 2);
    return run_handled(sb, nargs, nresults, budget, seconds);
}

bw_sandbox_status bw_sandbox_call(bw_sandbox *sb, int nargs, int nresults)
{
    return run(sb, nargs, nresults, sb->lim.instructions, sb->lim.seconds);
}

/* ---- protected calls of host functions ---- */

/* The function below nargs arguments called like lua_pcall with
 * `handler`, which is popped again: results (or the error) where
 * lua_pcall leaves them. */
static int pcall_with(lua_State *L, lua_CFunction handler, int nargs, int nresults)
{
    int fn = lua_gettop(L) - nargs;
    lua_pushcfunction(L, handler); /* a light C function: pushing it allocates nothing */
    lua_insert(L, fn);
    int status = lua_pcall(L, nargs, nresults, fn);
    lua_remove(L, fn);
    return status;
}

int bw_sandbox_pcall(lua_State *L, int nargs, int nresults)
{
    return pcall_with(L, require_message_handler, nargs, nresults);
}

void bw_sandbox_reraise(lua_State *L, int status)
{
    if (status == LUA_OK) return;
    bw_sandbox_after_protected(L, status); /* a stop stays a stop */
    lua_error(L);
}

/* The module of the host's file `file` into buf ("x.lua" is module "x";
 * a name with a '/' or another '.' is no module's file); false when none. */
static bool host_module(const char *file, char *buf, size_t size)
{
    size_t n = strlen(file);
    if (n <= 4 || n - 4 >= size || strcmp(file + n - 4, ".lua") != 0 || memchr(file, '.', n - 4) ||
        memchr(file, '/', n))
        return false;
    memcpy(buf, file, n - 4);
    buf[n - 4] = '\0';
    return true;
}

void bw_sandbox_call_as_file(lua_State *L, const char *file, int nargs, int nresults)
{
    bw_sandbox *sb = bw_sandbox_of(L);
    char module[BW_SANDBOX_MODULE_NAME_MAX];
    const int base = lua_gettop(L) - nargs; /* the function */
    bool mark = host_module(file, module, sizeof module);
    snprintf(sb->chunk, sizeof sb->chunk, "%s", file); /* for messages without a line */
    push_cache(L);
    lua_insert(L, base); /* the cache and the module's name below the function */
    lua_pushstring(L, mark ? module : "");
    lua_insert(L, base + 1);
    if (mark) {
        lua_pushvalue(L, base + 1);
        mark = lua_rawget(L, base) == LUA_TNIL;
        lua_pop(L, 1);
    }
    if (mark) {
        lua_pushvalue(L, base + 1);
        lua_pushlightuserdata(L, (void *)sandbox_require); /* loading, as sandbox_require marks */
        lua_rawset(L, base);
    }
    /* the message handler is the host call's, so an error value that is
     * not a string still gets the script's line */
    int status = pcall_with(L, message_handler, nargs, nresults);
    if (mark) { /* the key exists: clearing it allocates nothing */
        lua_pushvalue(L, base + 1);
        lua_pushnil(L);
        lua_rawset(L, base);
    }
    lua_remove(L, base);
    lua_remove(L, base);
    bw_sandbox_reraise(L, status);
}

/* The host's file chunk (upvalue 1) of file `name` (upvalue 2) run with
 * bw_sandbox_call_as_file. */
static int run_marked(lua_State *L)
{
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    bw_sandbox_call_as_file(L, lua_tostring(L, lua_upvalueindex(2)), n, LUA_MULTRET);
    return lua_gettop(L);
}

/* The chunk on top of host file `name` wrapped by run_marked when the
 * file is a module's. */
static void mark_host_chunk(lua_State *L, const char *name)
{
    char module[BW_SANDBOX_MODULE_NAME_MAX];
    if (!host_module(name, module, sizeof module)) return;
    lua_pushstring(L, name);
    lua_pushcclosure(L, run_marked, 2);
}

typedef struct load_args {
    const char *name, *display, *text, *chunkname;
    size_t size;
} load_args;

static int load_protected(lua_State *L)
{
    const load_args *a = (const load_args *)lua_touserdata(L, 1);
    if (a->name) {
        bw_sandbox_push_file_text(L, NULL, a->name, a->display);
        load_text(L, a->name);
        mark_host_chunk(L, a->name);
        return 1;
    }
    const char *shown = bw_sandbox_of(L)->chunk; /* the chunk name without its '=' or '@' */
    if (a->size > BW_SANDBOX_MAX_SCRIPT) return luaL_error(L, "%s is larger than %d bytes", shown, (int)BW_SANDBOX_MAX_SCRIPT);
    load_or_raise(L, a->text, a->size, a->chunkname, shown);
    return 1;
}

static bw_sandbox_status load_chunk(bw_sandbox *sb, const load_args *a, const char *shown)
{
    if (!sb) return BW_SANDBOX_ERROR;
    snprintf(sb->chunk, sizeof sb->chunk, "%s", shown);
    lua_State *L = sb->L;
    lua_pushcfunction(L, load_protected);
    lua_pushlightuserdata(L, (void *)a);
    int status = lua_pcall(L, 1, 1, 0);
    if (status == LUA_OK) {
        sb->error[0] = '\0';
        return BW_SANDBOX_OK;
    }
    if (status == LUA_ERRMEM)
        snprintf(sb->error, sizeof sb->error, "%s: memory cap of %zu KiB exceeded: not enough memory", shown,
                 sb->lim.memory >> 10);
    else
        snprintf(sb->error, sizeof sb->error, "%s",
                 lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "cannot load the chunk");
    lua_pop(L, 1);
    return status == LUA_ERRMEM ? BW_SANDBOX_MEMORY : BW_SANDBOX_ERROR;
}

bw_sandbox_status bw_sandbox_load_file(bw_sandbox *sb, const char *name, const char *display)
{
    load_args a = {name ? name : "", display, NULL, NULL, 0};
    return load_chunk(sb, &a, a.name);
}

bw_sandbox_status bw_sandbox_load_string(bw_sandbox *sb, const char *text, size_t size, const char *chunkname)
{
    load_args a = {NULL, NULL, text ? text : "", chunkname ? chunkname : "=string", text ? size : 0};
    const char *shown = a.chunkname[0] == '@' || a.chunkname[0] == '=' ? a.chunkname + 1 : a.chunkname;
    return load_chunk(sb, &a, shown);
}

/* ---- per-frame callbacks ---- */

bool bw_sandbox_callback_init(bw_sandbox *sb, bw_sandbox_callback *cb)
{
    lua_State *L = sb->L;
    memset(cb, 0, sizeof *cb);
    cb->ref = LUA_NOREF;
    if (!lua_isfunction(L, -1)) {
        lua_pop(L, 1);
        return false;
    }
    /* luaL_ref may grow the registry: in protected mode, since the state
     * may be at its cap; a failure leaves the callback empty */
    cb->ref = bw_lua_ref_protected(L);
    return cb->ref != LUA_REFNIL && cb->ref != LUA_NOREF;
}

void bw_sandbox_callback_deinit(bw_sandbox *sb, bw_sandbox_callback *cb)
{
    if (!sb || !cb || cb->ref == LUA_NOREF || cb->ref == LUA_REFNIL) return;
    luaL_unref(sb->L, LUA_REGISTRYINDEX, cb->ref);
    cb->ref = LUA_NOREF;
}

static bool callback_set(const bw_sandbox_callback *cb) { return cb->ref != LUA_NOREF && cb->ref != LUA_REFNIL; }

bool bw_sandbox_callback_push(bw_sandbox *sb, const bw_sandbox_callback *cb)
{
    if (!callback_set(cb)) return false;
    lua_pushcfunction(sb->L, message_handler);
    lua_rawgeti(sb->L, LUA_REGISTRYINDEX, cb->ref);
    return true;
}

bw_sandbox_status bw_sandbox_callback_call(bw_sandbox *sb, bw_sandbox_callback *cb, int nargs, int nresults)
{
    lua_State *L = sb->L;
    if (!callback_set(cb)) {
        lua_pop(L, nargs);
        return BW_SANDBOX_ERROR;
    }
    bw_sandbox_callback_push(sb, cb);
    lua_rotate(L, -nargs - 2, 2); /* the handler and the function below the arguments */
    return bw_sandbox_callback_pushed(sb, cb, nargs, nresults);
}

bw_sandbox_status bw_sandbox_callback_pushed(bw_sandbox *sb, bw_sandbox_callback *cb, int nargs, int nresults)
{
    lua_State *L = sb->L;
    bw_sandbox_status st;
    if (sb->running && sb->stop == BW_SANDBOX_OK) {
        /* a callback inside a running call (a script's cursor:update runs
         * its graph's predicates): the callback limits apply to it alone,
         * its instructions are charged to the call around it, and a
         * budget, time or memory stop ends the callback, not the call: the
         * predicate counts as false and the character runs on. What a
         * memory bomb piled up is garbage once the callback is gone, so it
         * is collected before the call goes on (a call that itself holds
         * too much stops at its own next allocation). */
        long long budget = sb->budget, spent = sb->spent;
        double now = bw_sandbox_now();
        start_clock(sb, now); /* the call's clock starts here at the latest */
        double seconds = sb->seconds, deadline = sb->deadline;
        sb->budget = sb->lim.callback_instructions;
        sb->spent = 0;
        sb->seconds = sb->lim.callback_seconds;
        double own = now + sb->lim.callback_seconds;
        sb->deadline = own < deadline ? own : deadline;
        st = run_handled(sb, nargs, nresults, 0, 0);
        long long used = sb->spent;
        if (sb->stop == BW_SANDBOX_MEMORY) lua_gc(L, LUA_GCCOLLECT);
        sb->stop = BW_SANDBOX_OK;
        sb->budget = budget;
        sb->spent = spent + used;
        sb->seconds = seconds;
        sb->deadline = deadline;
    } else {
        st = run_handled(sb, nargs, nresults, sb->lim.callback_instructions, sb->lim.callback_seconds);
    }
    if (st != BW_SANDBOX_OK) {
        cb->failures++;
        if (!cb->reported) {
            cb->reported = true;
            snprintf(cb->error, sizeof cb->error, "%s", sb->error);
            report_failure(sb, cb);
        }
    }
    return st;
}

bool bw_sandbox_callback_call_from(lua_State *L, bw_sandbox_callback *cb, int nargs, int nresults)
{
    bw_sandbox *sb = bw_sandbox_from_state(L);
    if (sb && L == bw_sandbox_state(sb)) return bw_sandbox_callback_call(sb, cb, nargs, nresults) == BW_SANDBOX_OK;
    /* the message handler of the sandbox's own calls, so an error object
     * that is not a string (a table, nil) is still reported with the
     * script's line */
    lua_pushcfunction(L, message_handler);
    lua_rawgeti(L, LUA_REGISTRYINDEX, cb->ref);
    lua_rotate(L, -nargs - 2, 2);
    int base = lua_gettop(L) - nargs - 1;
    int status = lua_pcall(L, nargs, nresults, base);
    if (sb) bw_sandbox_after_protected(L, status); /* a stop is the call's: it goes on up */
    if (status == LUA_OK) {
        lua_remove(L, base);
    } else {
        cb->failures++;
        if (!cb->reported) {
            cb->reported = true;
            snprintf(cb->error, sizeof cb->error, "%s", lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "error");
            /* a coroutine of a sandbox reports where its state's calls do */
            report_failure(sb, cb);
        }
        lua_settop(L, base - 1);
    }
    return status == LUA_OK;
}

bool bw_sandbox_predicate(bw_sandbox *sb, bw_sandbox_callback *cb, int nargs)
{
    if (bw_sandbox_callback_call(sb, cb, nargs, 1) != BW_SANDBOX_OK) return false;
    bool v = lua_toboolean(sb->L, -1);
    lua_pop(sb->L, 1);
    return v;
}
