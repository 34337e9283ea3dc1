/* test_lua_sweep.h - the allocation-failure sweep the C-side Lua tests
 * share. `run` (a lua_CFunction) runs a script in a fresh state and leaves
 * one result; `check_result` (may be NULL) checks that result with CHECK*.
 *
 * First one run without limits, which must succeed (its result checked),
 * counting the state's growing allocations. Then two sweeps over every N
 * up to a quarter past that count: every allocation from the N-th on fails (the error
 * path itself runs short of memory), and only the N-th fails (Lua retries
 * its own allocations after an emergency collection, so this mostly hits
 * the core's allocations made through the state's allocator). Each run
 * must complete (result checked) or fail with a memory error: never crash,
 * leak (ASan) or report anything else. */
#ifndef BW_TEST_LUA_SWEEP_H
#define BW_TEST_LUA_SWEEP_H

#include <lauxlib.h>
#include <lua.h>
#include <string.h>

#include "check.h"
#include "test_alloc_counter.h"

static int lua_sweep_is_memory_error(int status, const char *msg)
{
    return status == LUA_ERRMEM || (msg && (strstr(msg, "not enough memory") || strstr(msg, "out of memory") ||
                                            strstr(msg, "out_of_memory")));
}

static inline void lua_allocation_failure_sweep(lua_CFunction run, void (*check_result)(lua_State *L))
{
    lua_limit l = {0, -1, false, false};
    lua_State *L = lua_newstate(lua_limit_fn, &l);
    CHECK(L != NULL);
    if (!L) return;
    lua_pushcfunction(L, run);
    int status = lua_pcall(L, 0, 1, 0);
    if (status != LUA_OK) fprintf(stderr, "script failed: %s\n", lua_tostring(L, -1));
    CHECK_INT(status, LUA_OK);
    if (status == LUA_OK && check_result) check_result(L);
    lua_close(L);
    const long total = l.count;
    CHECK(total > 100);
    /* Lua seeds its string hashes per state (address and time), so a run's
     * allocation count varies a little from state to state: sweep on past
     * the first run's count so that the last runs have room to complete. */
    const long last = total + total / 4 + 64;

    for (int once = 0; once < 2; once++) {
        int completed = 0, memory_errors = 0, other_errors = 0;
        for (long limit = 0; limit <= last; limit++) {
            lua_limit f = {0, limit, once != 0, false};
            L = lua_newstate(lua_limit_fn, &f);
            if (!L) continue; /* the state itself did not fit */
            lua_pushcfunction(L, run);
            status = lua_pcall(L, 0, 1, 0);
            const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
            if (status == LUA_OK) {
                completed++;
                if (check_result) check_result(L);
            } else if (lua_sweep_is_memory_error(status, msg)) {
                memory_errors++;
            } else {
                other_errors++;
                fprintf(stderr, "limit %ld%s: unexpected error: %s\n", limit, once ? " (once)" : "",
                        msg ? msg : luaL_typename(L, -1));
            }
            f.limit = -1; /* let the close run */
            lua_close(L);
        }
        printf("allocation failure sweep%s: %ld allocations, %d runs failed with a memory error, %d completed\n",
               once ? " (single failures)" : "", total, memory_errors, completed);
        CHECK_INT(other_errors, 0);
        CHECK(memory_errors > 0);
        CHECK(completed >= 1); /* at least the runs with room to spare */
    }
}

#endif
