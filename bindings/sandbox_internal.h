/* sandbox_internal.h - what sandbox.c and sandbox_lib.c share: the
 * sandbox's state (the allocator's user data, so every hook and wrapped
 * function reaches it through lua_getallocf) and the stop machinery. */
#ifndef BW_SANDBOX_INTERNAL_H
#define BW_SANDBOX_INTERNAL_H

#include <lua.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sandbox.h"
#include "watch.h"

/* The count hook runs every HOOK_STEP instructions (fewer for small
 * budgets): a runaway loop overshoots by a negligible amount and the hook
 * costs nothing measurable. */
#define BW_SANDBOX_HOOK_STEP 1000
#define BW_SANDBOX_MAX_SCRIPT ((size_t)4 << 20) /* bytes of one chunk */
#define BW_SANDBOX_MAX_ALLOWED 16
#define BW_SANDBOX_MAX_PRINT_LINES 100
/* C stack the nested resume / wrap / close calls of one host call may
 * use: each nested thread gets Lua's own 200-level C budget anew, so this
 * bound (with the depth cap) keeps the total well inside a thread's stack,
 * also under AddressSanitizer. */
#define BW_SANDBOX_C_STACK ((size_t)1 << 20)

struct bw_sandbox {
    lua_State *L;
    bw_sandbox_limits lim;
    size_t used;               /* bytes the state holds */
    int mem_refused;           /* allocations refused by the cap */
    char mem_where[256];       /* "file:line" of the last refused allocation */
    /* the host call in progress */
    bool running;
    long long budget, spent;
    double seconds, deadline;
    bool deadline_pending;     /* the call's clock starts at its first check (past_deadline) */
    bw_sandbox_status stop;    /* BW_SANDBOX_OK while the call may run */
    char stop_msg[512];
    int depth;                 /* nested resume / wrap / close */
    lua_State *current;        /* the thread running now */
    char *stack_base;          /* C stack at the start of the call */
    /* files */
    char dir[BW_SANDBOX_PATH_MAX];
    char allowed[BW_SANDBOX_MAX_ALLOWED][BW_SANDBOX_PATH_MAX];
    int allowed_count;
    char name[64];             /* print's prefix */
    char chunk[256];           /* the last chunk loaded, for messages without a line */
    bw_sandbox_open_fn on_open;
    bw_sandbox_report_fn report;
    void *report_user;         /* report's (desc.user, or bw_sandbox_set_reporter's) */
    void *user;                /* desc.user, for on_open */
    int printed;
    char error[BW_SANDBOX_ERROR_MAX];
    /* the mod's modules whose file require opened (sandbox.h "Modules"): never
     * removed, so an index names one module for the sandbox's life */
    struct bw_sandbox_module {
        char name[BW_SANDBOX_MODULE_NAME_MAX];
        uint64_t deps;       /* modules it required while it loaded (bits: indices) */
        bw_file_stamp stamp; /* its file as last read or reported changed */
    } modules[BW_SANDBOX_MAX_MODULES];
    int module_count;
    int loading[BW_SANDBOX_MAX_MODULES]; /* the modules loading now, innermost last (-1: untracked) */
    int loading_depth;
    uint64_t required;    /* top-level requires since bw_sandbox_requires_begin */
    bool recording;       /* between bw_sandbox_requires_begin and _end */
    bool require_missing; /* the last require refused no name but found no file (set as it raises) */
    bw_file_stamp opened; /* the file bw_sandbox_push_file_text read last */
};

bw_sandbox *bw_sandbox_of(lua_State *L);
/* Push a new environment for a chunk: its own globals over the base
 * (sandbox.c "each chunk's own globals"; sandbox.h bw_sandbox_isolate). */
void bw_sandbox_push_env(lua_State *L);
double bw_sandbox_now(void);
/* "file:line" of the innermost script line running in L, or "". */
void bw_sandbox_where(lua_State *L, char *buf, size_t size);

/* Record a stop (the first one wins) and its message. */
void bw_sandbox_set_stop(bw_sandbox *sb, lua_State *L, bw_sandbox_status why);
/* Stop the call for an abuse no limit names (coroutine nesting): like a
 * budget stop, it stays, and the call ends with BW_SANDBOX_ERROR. */
void bw_sandbox_stop_refused(lua_State *L, const char *what);
/* Raise the recorded stop in L; every thread then raises on its next instruction. */
void bw_sandbox_raise_stop(bw_sandbox *sb, lua_State *L);
/* Raise if a stop was recorded. */
void bw_sandbox_check_stop(lua_State *L);
/* After a protected call inside the script returned `status`: a memory
 * error becomes a stop; a recorded stop is raised again. */
void bw_sandbox_after_protected(lua_State *L, int status);
/* Charge `work` instructions for a C function's loop; stops when it does
 * not fit the remaining budget. */
void bw_sandbox_charge(lua_State *L, double work);
double bw_sandbox_remaining(lua_State *L);

/* The file of the mod's module `name` for require (graph sources' and the
 * sandbox's): "lib.util" -> "lib/util.lua" into file (size bytes, 206 do
 * for any name); raises "require 'name': only \"blendwerk\" and the mod's
 * own modules ... can be required" for an empty name, one over 200 bytes
 * or one with a '/'. */
void bw_sandbox_module_file(lua_State *L, const char *name, char *file, size_t size);

const char *bw_sandbox_refuse_name(const char *path);
bool bw_sandbox_is_readonly(lua_State *L, int idx);

/* Replace t[name] by the C closure fn holding the original as upvalue 1. */
void bw_sandbox_install(lua_State *L, int t, const char *name, lua_CFunction fn);

/* sandbox_lib.c: install the wrapped functions into the library table at
 * index `t` (the global table for base). */
void bw_sandbox_open_base(lua_State *L, int t);
void bw_sandbox_open_string(lua_State *L, int t);
void bw_sandbox_open_table(lua_State *L, int t);
void bw_sandbox_open_coroutine(lua_State *L, int t);
void bw_sandbox_open_os(lua_State *L, int t); /* t: the table of clock, time, date */

#endif
