/* sandbox.h - one hardened Lua 5.4 state for untrusted scripts (mods).
 *
 * Everything that runs a script nobody reviewed (the demo's character
 * scripts and their hot reload, `blendwerk plot-blend` specs,
 * `blendwerk run --sandbox`, graph files and their per-frame predicates,
 * procedural controls and envelopes) goes through this one sandbox. The
 * contract is SPEC section 10; docs/sandbox.md is the user's view.
 *
 * What a script sees (an allowlist; nothing else is reachable):
 * - base: assert, error, getmetatable, ipairs, next, pairs, pcall, print
 *   (stderr, prefixed, capped), rawequal, rawget, rawlen, rawset (refused
 *   on the libraries), select, setmetatable (refuses __gc), tonumber,
 *   tostring, type, xpcall, _G, _VERSION, load (text chunks only),
 *   collectgarbage("count") and require;
 * - string (no dump; pattern functions with a cost guard; rep and format
 *   with size limits), table (move, concat, sort, unpack charged against
 *   the budget), math, utf8, coroutine (nesting capped), os.clock,
 *   os.time, os.date, and the `blendwerk` module whose `load` opens only
 *   the mod's own files and files the host granted;
 * - require("blendwerk"), and require("name") / the host's file loads for
 *   the mod's own files: a relative name inside the mod's folder, plain
 *   characters, no "..", no symbolic link anywhere on the way.
 * The libraries are read-only proxies and every metatable a script can
 * reach (strings, the module's types, the proxies) has __metatable set.
 *
 * Each chunk's globals are its own: every chunk the sandbox loads (the
 * host's files and strings, require's modules, include's files, graph
 * files through bw_sandbox_isolate) runs in an environment of its own, a
 * table whose guarded metatable reads through to the state's global
 * table, the base (the allowlist above and what the host set with
 * lua_setglobal). `_G` is the chunk's own environment; assigning a global
 * (`math = nil`, `blendwerk = nil`, `x = 1`) changes that table only, so
 * a chunk that fails after changing its globals leaves every other chunk,
 * and the next version of itself, as they were; the base is out of a
 * script's reach and the libraries in it are read-only. A chunk made by
 * load without an env argument shares the globals of the function
 * calling load (its _ENV), as in plain Lua it would share the global
 * table; a caller without an _ENV (a function reading no global) gives
 * the chunk an environment of its own. pairs(_G) lists the chunk's own
 * globals only. Functions keep the environment of the chunk that made
 * them.
 *
 * print's prefix is the file of the innermost function on the stack
 * that one of the sandbox's file loads made (the control, module or
 * included file calling it; load gives a name starting with '@' as '='),
 * else desc.name.
 *
 * Limits, per call (bw_sandbox_call, bw_sandbox_callback_call):
 * - an instruction budget (a C count hook that every coroutine inherits);
 *   once a stop happened (budget, time or memory) it stays: every further
 *   instruction and every pcall, xpcall, coroutine.resume / wrap / close
 *   and load that returns re-raises it, and the host sees the stop when
 *   the call returns even if the script caught the error;
 * - a wall-clock limit checked in the same hook, its clock started at the
 *   call's first check (a short callback never reads the clock; what ran
 *   before is at most one hook step or one charged C call);
 * - a memory cap on the whole state through its allocator (the module's
 *   core objects use it too): a memory bomb ends in "not enough memory";
 * - C functions the hook cannot interrupt are bounded: string.rep,
 *   string.format, table.concat results at most `max_string` bytes;
 *   string.rep, table.move, table.concat, table.unpack, table.sort,
 *   table.insert / remove with a position, os.date, load, pcall, xpcall,
 *   coroutine switches and allocations of 4 KiB or more charge their work
 *   against the budget (and check the clock); a pattern call whose
 *   worst-case cost exceeds a bound is refused;
 * - nested coroutine.resume / wrap / close (and the C stack they use) are
 *   capped, which keeps Lua 5.4.4's unbounded recursion in
 *   coroutine.close out of reach;
 * - no Lua finalizer can exist (setmetatable refuses __gc, the module's
 *   userdata have C finalizers and guarded metatables), so lua_close in
 *   bw_sandbox_destroy only runs C code.
 * Errors carry "file:line:" wherever a line is known (syntax, runtime,
 * budget and time stops, and memory stops at the allocation that failed).
 *
 * Per-frame callbacks (graph predicates, procedural controls, envelopes)
 * are held in a bw_sandbox_callback and called with the small callback
 * budget; a failure makes the call count as false / skipped for that
 * frame, is reported once through the desc's report function, and leaves
 * the sandbox usable for the next call.
 *
 * One sandbox is one lua_State: sandboxes share nothing, and one thread
 * uses a sandbox at a time. */
#ifndef BW_SANDBOX_H
#define BW_SANDBOX_H

#include <lua.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BW_SANDBOX_ERROR_MAX 1024
#define BW_SANDBOX_PATH_MAX 1024

#define BW_SANDBOX_DEFAULT_INSTRUCTIONS 50000000LL
#define BW_SANDBOX_DEFAULT_SECONDS 2.0
#define BW_SANDBOX_DEFAULT_MEMORY ((size_t)64 << 20)
#define BW_SANDBOX_DEFAULT_CALLBACK_INSTRUCTIONS 100000LL
#define BW_SANDBOX_DEFAULT_CALLBACK_SECONDS 0.005
#define BW_SANDBOX_DEFAULT_MAX_STRING ((size_t)16 << 20)
#define BW_SANDBOX_DEFAULT_COROUTINE_DEPTH 64
#define BW_SANDBOX_MAX_MODULES 64      /* modules the sandbox tracks for reload (below, "Modules") */
#define BW_SANDBOX_MAX_TABLE_DEPTH 200 /* nesting of a table made read-only (bw_sandbox_protect_globals) */
#define BW_SANDBOX_MODULE_NAME_MAX 204 /* a module name's bytes with the terminator */

/* Zero fields take the defaults (bw_sandbox_limits_resolve). */
typedef struct bw_sandbox_limits {
    long long instructions;          /* VM instructions per bw_sandbox_call (default 50 million) */
    double seconds;                  /* wall-clock seconds per bw_sandbox_call (default 2) */
    size_t memory;                   /* bytes the whole state may hold (default 64 MiB) */
    long long callback_instructions; /* per bw_sandbox_callback_call (default 100000) */
    double callback_seconds;         /* per bw_sandbox_callback_call (default 0.005) */
    size_t max_string;               /* bytes of one string.rep / format / table.concat result (default 16 MiB) */
    int max_coroutine_depth;         /* nested resume / wrap / close (default 64) */
} bw_sandbox_limits;

/* How a call ended. */
typedef enum bw_sandbox_status {
    BW_SANDBOX_OK = 0,
    BW_SANDBOX_ERROR,  /* syntax or runtime error, refused operation */
    BW_SANDBOX_BUDGET, /* instruction budget spent */
    BW_SANDBOX_TIME,   /* wall-clock limit reached */
    BW_SANDBOX_MEMORY  /* memory cap reached */
} bw_sandbox_status;

/* Called with the full path of every file the script opens (its own files
 * through require or the host's loads, and blendwerk.load), before it is
 * opened; return false with a reason in `why` to refuse it. */
typedef bool (*bw_sandbox_open_fn)(void *user, const char *path, char *why, size_t why_size);
/* Receives the first failure of each callback (bw_sandbox_callback_call). */
typedef void (*bw_sandbox_report_fn)(void *user, const char *message);

typedef struct bw_sandbox_desc {
    bw_sandbox_limits limits;
    const char *dir;            /* the mod's folder; NULL: the script may open no files */
    const char *name;           /* prefix of print's lines, e.g. the script's file name (may be NULL) */
    bw_sandbox_open_fn on_open; /* may be NULL */
    bw_sandbox_report_fn report; /* may be NULL: failures go to stderr */
    void *user;                 /* passed to on_open and report */
} bw_sandbox_desc;

typedef struct bw_sandbox bw_sandbox;

/* A Lua function held for per-frame calls. */
typedef struct bw_sandbox_callback {
    int ref;                           /* registry reference; LUA_NOREF when empty */
    int failures;                      /* calls that failed */
    bool reported;                     /* the first failure was reported */
    char error[BW_SANDBOX_ERROR_MAX];  /* the first failure, "file:line: message" */
    const char *failed_means;          /* static text: what a failure means, said in a report on
                                          stderr (a trusted state's, or a sandbox's default
                                          report); NULL: "the call counts as failed" */
} bw_sandbox_callback;

/* Fill zero (or invalid) fields with the defaults. */
bw_sandbox_limits bw_sandbox_limits_resolve(const bw_sandbox_limits *limits);

/* Create a sandbox (desc may be NULL: defaults, no files). Returns NULL
 * with a message in err when the state cannot be built within the cap. */
bw_sandbox *bw_sandbox_create(const bw_sandbox_desc *desc, char *err, size_t err_size);
void bw_sandbox_destroy(bw_sandbox *sb); /* NULL is a no-op */

/* The state, for the host to push values and read results. Do not open
 * libraries in it or change its hook or allocator. */
lua_State *bw_sandbox_state(bw_sandbox *sb);

/* The memory cap at run time, for tests that make memory run out at each
 * step of an operation in turn, and for a host that tightens a mod's cap:
 * bw_sandbox_memory_used is what the cap counts, the bytes the state holds
 * now (what the collector has not freed yet included);
 * bw_sandbox_set_memory_cap replaces desc.limits.memory (0: the default)
 * between calls (not from inside one): from then on an allocation that
 * would take the state past `bytes` fails as BW_SANDBOX_MEMORY (a cap at
 * or below the bytes in use refuses every growth; shrinking still
 * succeeds), and it returns the cap it replaced. */
size_t bw_sandbox_memory_used(const bw_sandbox *sb); /* NULL: 0 */
size_t bw_sandbox_set_memory_cap(bw_sandbox *sb, size_t bytes);
/* How many of the mod's modules are loading now (a require in progress):
 * 0 between calls, also after a call that failed inside a require. */
int bw_sandbox_modules_loading(const bw_sandbox *sb);

/* Point the failure reports (desc.report, desc.user) at `fn` / `user`
 * (fn NULL: bw_sandbox_report_stderr) between calls or around them, e.g.
 * a host that knows which of its scripts is running for the length of its
 * run; the pair it replaced is stored in *old (may be NULL) to put back
 * (its fn is never NULL). on_open keeps desc.user. */
typedef struct bw_sandbox_reporter {
    bw_sandbox_report_fn fn;
    void *user;
} bw_sandbox_reporter;
void bw_sandbox_set_reporter(bw_sandbox *sb, bw_sandbox_reporter reporter, bw_sandbox_reporter *old);
/* The report of a sandbox whose desc.report is NULL: the message (its
 * control bytes as \xNN, line breaks kept: blendwerk/text.h) and
 * "(reported once; the call counts as failed)" on stderr. A callback's
 * failure reported this way says the callback's own failed_means instead
 * (a graph predicate's "the condition counts as false"), as in a trusted
 * state. */
void bw_sandbox_report_stderr(void *user, const char *message);

/* Let blendwerk.load open `path` exactly as given (a host-chosen asset
 * outside the mod's folder). Returns false when no room is left (16). */
bool bw_sandbox_allow_file(bw_sandbox *sb, const char *path);

/* Load the mod's file `name` (a file name inside desc->dir, any
 * characters but '/'; its chunk name) or a text chunk as a function and
 * push it. On failure nothing is pushed, the error is kept
 * for bw_sandbox_error and the status returned. Binary chunks are refused.
 * A file that does not open or is too large is named `display` in the
 * error ("cannot open display: why"; NULL: name), e.g. the script's path
 * as the user gave it; messages with a line name the chunk. */
bw_sandbox_status bw_sandbox_load_file(bw_sandbox *sb, const char *name, const char *display);
/* (bw_sandbox_load_file: the function pushed for a file "x.lua" runs the
 * chunk through bw_sandbox_call_as_file, below.) */
/* For C functions run inside a sandbox call that run a host's file
 * themselves (the control runner reads its files' table lines): call the
 * function below nargs arguments with the host's file `file` ("x.lua")
 * as module "x" loading when no module "x" is cached, so require("x")
 * from the file itself, or from a module it required, is "require 'x': a
 * require loop" rather than a second run of the file; the mark goes
 * however the call ends, and an error is raised on as it was, with the
 * host call's message handler (an error value that is not a string gets
 * the script's line), a stop as the stop. Messages without a line name
 * `file`. */
void bw_sandbox_call_as_file(lua_State *L, const char *file, int nargs, int nresults);
bw_sandbox_status bw_sandbox_load_string(bw_sandbox *sb, const char *text, size_t size, const char *chunkname);

/* Call the function below `nargs` arguments on the stack with the full
 * per-call limits, like lua_pcall(L, nargs, nresults, 0). On failure the
 * function and arguments are popped, nothing is pushed and the error is
 * kept for bw_sandbox_error. */
bw_sandbox_status bw_sandbox_call(bw_sandbox *sb, int nargs, int nresults);

/* The last failure's message ("" after a success): "file:line: message"
 * wherever a line is known. */
const char *bw_sandbox_error(const bw_sandbox *sb);

/* Split a script's path into its folder (the mod's folder: "." when there
 * is no slash) and its file name, which is returned (a pointer into
 * path); NULL when the folder does not fit dir_size. */
const char *bw_sandbox_split_path(const char *path, char *dir, size_t dir_size);

/* For C functions the host adds to the sandbox: load the mod's file
 * `name` (the rules of a mod's file names) and push it, or raise a Lua
 * error: "WHAT 'name': the name ..." for a refused name, "cannot open
 * name: why" for a missing file or a symbolic link, or the syntax error.
 * `what` names the caller, e.g. "include". */
void bw_sandbox_push_file(lua_State *L, const char *what, const char *name);

/* The same rules, but push the file's text (a string) instead of the
 * loaded chunk: for hosts that read a mod's file themselves (the graph
 * reader maps table constructors to their lines before loading). A file
 * that does not open or is too large is named `display` in the error
 * ("cannot open display: why"; NULL: name), e.g. the path as the user
 * gave it. */
void bw_sandbox_push_file_text(lua_State *L, const char *what, const char *name, const char *display);

/* The sandbox whose state L (or a thread of it) is, or NULL when L is not
 * a sandbox's state. */
bw_sandbox *bw_sandbox_from_state(lua_State *L);

/* For hosts that load a chunk themselves in a sandbox's state (the graph
 * reader rewrites a file's text before loading it): give the Lua chunk
 * at idx an environment of its own (above, "Each chunk's globals are its
 * own"). A no-op in a state that is no sandbox's. Allocates: call it
 * where a memory error may be raised. */
void bw_sandbox_isolate(lua_State *L, int idx);

/* For hosts that add globals to a sandbox's base (the character loader
 * after options->setup): every table among the base's fields that is a
 * plain table (no metatable), and every plain table its fields reach, is
 * replaced by a read-only proxy, as the libraries are: reading it, pairs
 * and ipairs work, while an assignment, or rawset, into it raises "the
 * library 'NAME' is read-only" ("rawset: the sandbox's libraries are
 * read-only") at the script's line, NAME the global's name; # gives the
 * table's length. Each file's globals are its own, so a script cannot
 * replace the global either. The proxies are made as the libraries' are:
 * a field holding a plain table, in the host's table too, then holds that
 * table's proxy (lua_getfield / lua_geti read through it; a raw read gets
 * the proxy), while a host that keeps a reference to one of its tables
 * still reads and writes that table. Functions, strings, numbers,
 * userdata and tables with a metatable stay as they are: a host that
 * hands out a table with a metatable guards it itself (its __newindex,
 * __metatable), as the module's types do. A table nested more than
 * BW_SANDBOX_MAX_TABLE_DEPTH (200) tables deep raises "the table 'NAME'
 * nests more than 200 tables deep ..." (the walk is one C frame per
 * level). A no-op in a state that is no sandbox's. Allocates and may
 * raise: call it where an error may be raised (the character loader runs
 * it inside the sandbox's protected load). */
void bw_sandbox_protect_globals(lua_State *L);

/* For C functions the host adds that run a script's code and must clean
 * up whatever happens (include's list of files in flight):
 * bw_sandbox_pcall calls the function below nargs arguments like
 * lua_pcall, with require's message handler (a message gets the position
 * where it was raised, any other error value passes unchanged); after the
 * cleanup bw_sandbox_reraise(L, status) raises the error on top again
 * (a budget, time or memory stop as the stop) or, for LUA_OK, returns. */
int bw_sandbox_pcall(lua_State *L, int nargs, int nresults);
void bw_sandbox_reraise(lua_State *L, int status);

/* ---- Modules ----
 *
 * require("name") of one of the mod's modules runs its file and caches
 * the result: later requires get the cached value (one table lookup, no
 * string compared: fit for per-frame code) until a host drops the module
 * (bw_sandbox_modules_drop, a hot reload), which makes the next require
 * run the file anew. For a host that reloads scripts when a file changes
 * (bindings/controls.h), the sandbox keeps, per module whose file it
 * opened - the first BW_SANDBOX_MAX_MODULES (64) such modules; a refused
 * name takes no place, nor does a missing one except while the host
 * records (then as "missing", so that a change reports the file made),
 * later modules work but are not tracked -, its file, the file's modification time and size as read
 * (also when its chunk then failed), and the modules it required while it
 * loaded (its direct dependencies). Module sets are bit masks: bit i is
 * module i (0 <= i < bw_sandbox_module_count), an index stays the same
 * module for the sandbox's life. A module whose load failed is not
 * cached: the next require runs its file again. */

/* Record the mod's modules the host's next calls require (directly, not
 * from inside a module): bw_sandbox_requires_begin starts a new record,
 * bw_sandbox_requires_end closes it (requires after it are not recorded)
 * and returns it with everything those modules required, transitively (a
 * require served from the cache counts). */
void bw_sandbox_requires_begin(bw_sandbox *sb);
uint64_t bw_sandbox_requires_end(bw_sandbox *sb);

int bw_sandbox_module_count(const bw_sandbox *sb);
/* The index of the module whose file is `file` (relative to the folder:
 * "lib/util.lua" is module "lib.util"), or -1. */
int bw_sandbox_module_find(const bw_sandbox *sb, const char *file);
/* Module i's file: "DIR/lib/util.lua" for "lib.util" (DIR: desc.dir) into
 * path; false for a bad index or when it does not fit. */
bool bw_sandbox_module_path(const bw_sandbox *sb, int i, char *path, size_t size);
/* The modules whose file's modification time or size differs from the
 * version last read or reported (a missing file counts as a change), and
 * remember the new ones: one change is reported once, so a rejected edit
 * is not tried again until the file changes again (the stamps are the
 * sandbox's: one host of a sandbox asks). */
uint64_t bw_sandbox_modules_changed(bw_sandbox *sb);
/* `mask` and every module that required one of them, transitively: the
 * modules whose cached value holds an old version once `mask` changed. */
uint64_t bw_sandbox_module_dependents(const bw_sandbox *sb, uint64_t mask);

/* An all-or-nothing reload of modules: bw_sandbox_modules_drop takes the
 * modules in `mask` out of require's cache (the next require runs their
 * files anew) and keeps them in *saved; then either
 * bw_sandbox_modules_restore (the reload was rejected: the dropped values
 * and dependencies are back, whatever the new files left in the cache,
 * and a tracked module the attempt loaded for the first time is out of
 * it again) or
 * bw_sandbox_modules_commit (accepted: the old values are let go). False
 * (nothing dropped, *saved empty) when memory runs out. */
typedef struct bw_sandbox_modules_saved {
    int ref;         /* registry reference of the dropped values by name (LUA_NOREF: none) */
    uint64_t mask;   /* the modules dropped */
    uint64_t cached; /* the other tracked modules in the cache at the drop: restore takes out any
                        other one the rejected attempt loaded (it may hold a rejected version) */
    uint64_t deps[BW_SANDBOX_MAX_MODULES];
} bw_sandbox_modules_saved;
bool bw_sandbox_modules_drop(bw_sandbox *sb, uint64_t mask, bw_sandbox_modules_saved *saved);
void bw_sandbox_modules_restore(bw_sandbox *sb, bw_sandbox_modules_saved *saved);
void bw_sandbox_modules_commit(bw_sandbox *sb, bw_sandbox_modules_saved *saved);

/* ---- per-frame callbacks ---- */

/* Take the function on top of the stack (popped) into `cb`. Returns false
 * (and pops) when it is not a function. */
bool bw_sandbox_callback_init(bw_sandbox *sb, bw_sandbox_callback *cb);
void bw_sandbox_callback_deinit(bw_sandbox *sb, bw_sandbox_callback *cb); /* empty cb is a no-op */
/* Call cb's function with the `nargs` values on top of the stack with the
 * callback limits. On success `nresults` results replace the arguments;
 * on failure the arguments are popped, nothing is pushed, the failure is
 * counted and (the first time only) reported. */
bw_sandbox_status bw_sandbox_callback_call(bw_sandbox *sb, bw_sandbox_callback *cb, int nargs, int nresults);
/* The same in two steps for a caller that calls every frame and can push
 * the arguments after the function (no stack rotation):
 * bw_sandbox_callback_push pushes what the call needs (false, nothing
 * pushed, when cb holds no function: count that as a failed call), the
 * caller pushes its nargs arguments, bw_sandbox_callback_pushed calls -
 * with the limits, results, failure counting and report of
 * bw_sandbox_callback_call. */
bool bw_sandbox_callback_push(bw_sandbox *sb, const bw_sandbox_callback *cb);
bw_sandbox_status bw_sandbox_callback_pushed(bw_sandbox *sb, bw_sandbox_callback *cb, int nargs, int nresults);
/* A predicate: true only if the call succeeded and returned a true value
 * (a failure counts as false for this call). Pops the arguments. */
bool bw_sandbox_predicate(bw_sandbox *sb, bw_sandbox_callback *cb, int nargs);
/* The same from any state a module function runs in (graph predicates,
 * animator maps and envelopes): in a sandbox's own state it is
 * bw_sandbox_callback_call; in a trusted state, or a coroutine of a
 * sandbox (whose call's limits apply through the inherited hook), cb's
 * function runs protected with the sandbox's message handler (an error
 * object that is not a string gets the script's line too), a failure
 * counted in cb and reported once: in a coroutine of a sandbox as the
 * sandbox reports, in a trusted state on stderr as the message and
 * "(reported once; FAILED_MEANS)", cb->failed_means or "the call counts
 * as failed". Returns whether the call succeeded (results on the stack then;
 * on failure the arguments are popped and nothing is pushed). */
bool bw_sandbox_callback_call_from(lua_State *L, bw_sandbox_callback *cb, int nargs, int nresults);

#endif
