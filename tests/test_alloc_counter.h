/* test_alloc_counter.h - the counting allocators the C tests share.
 *
 * alloc_counter_fn has the signature of bw_allocator.fn (and of lua_Alloc).
 * It counts every call, balances live blocks and bytes through the osize
 * the caller hands back on a free or resize (so a wrong size, a leak or a
 * double free shows up as a non-zero balance), keeps the peak, and, given
 * a budget, refuses every allocation once that many have succeeded: the
 * tool for "every allocation failure is reported and leaves nothing
 * behind" loops. ALLOC_COUNTER(budget) is a fresh counter; budget -1 never
 * fails.
 *
 * lua_limit_fn is the Lua-state variant: Lua assumes a shrinking realloc
 * cannot fail, so only growth counts and may be refused, and it can refuse
 * one chosen allocation and then succeed again.
 */
#ifndef BW_TEST_ALLOC_COUNTER_H
#define BW_TEST_ALLOC_COUNTER_H

#include <stdbool.h>
#include <stdlib.h>

typedef struct alloc_counter {
    long budget;          /* allocations that may still succeed; < 0: unlimited */
    long allocations;     /* successful calls with nsize > 0 (new blocks and resizes) */
    long blocks;          /* successful new blocks (ptr == NULL) */
    long frees;           /* calls with nsize == 0 */
    long live_blocks;     /* blocks allocated and not yet freed */
    long long live_bytes; /* their sizes, as the caller reports them */
    long long peak_bytes; /* the highest live_bytes seen */
    long refused;         /* allocations refused because the budget was spent */
} alloc_counter;

#define ALLOC_COUNTER(budget_) ((alloc_counter){.budget = (budget_)})

static inline void *alloc_counter_fn(void *user, void *ptr, size_t osize, size_t nsize)
{
    alloc_counter *c = (alloc_counter *)user;
    if (nsize == 0) {
        c->frees++;
        if (ptr) {
            c->live_blocks--;
            c->live_bytes -= (long long)osize;
        }
        free(ptr);
        return NULL;
    }
    if (c->budget == 0) {
        c->refused++;
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (!p) return NULL;
    if (c->budget > 0) c->budget--;
    c->allocations++;
    if (!ptr) {
        c->blocks++;
        c->live_blocks++;
    }
    c->live_bytes += (long long)nsize - (ptr ? (long long)osize : 0);
    if (c->live_bytes > c->peak_bytes) c->peak_bytes = c->live_bytes;
    return p;
}

typedef struct lua_limit {
    long count;  /* growing allocations so far */
    long limit;  /* refuse every growing allocation from number `limit` on (counted from 0); -1: never */
    bool once;   /* refuse only allocation number `limit`, then succeed again */
    bool failed; /* an allocation was refused */
} lua_limit;

static inline void *lua_limit_fn(void *ud, void *ptr, size_t osize, size_t nsize)
{
    lua_limit *l = (lua_limit *)ud;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    /* For a new block Lua passes the object type in osize, so only a
     * resize of an existing block can be a shrink. */
    if (!ptr || nsize > osize) {
        long n = l->count++;
        if (l->limit >= 0 && (l->once ? n == l->limit : n >= l->limit)) {
            l->failed = true;
            return NULL;
        }
    }
    return realloc(ptr, nsize);
}

#endif
