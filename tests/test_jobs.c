/* test_jobs.c - the parallel-for job pool: every item exactly once, any
 * thread count, any grain, repeated runs. */
#include <limits.h>
#include <pthread.h>

#include "blendwerk/jobs.h"
#include "check.h"
#include "test_alloc_counter.h"

#define ITEMS 10007 /* prime, so ranges never divide evenly */

static int hits[ITEMS];
static int max_worker_seen;

static void mark(void *user, int begin, int end, int worker)
{
    int add = *(int *)user;
    for (int i = begin; i < end; i++) __atomic_add_fetch(&hits[i], add, __ATOMIC_RELAXED);
    int seen = __atomic_load_n(&max_worker_seen, __ATOMIC_RELAXED);
    while (worker > seen && !__atomic_compare_exchange_n(&max_worker_seen, &seen, worker, 0, __ATOMIC_RELAXED,
                                                         __ATOMIC_RELAXED)) {
    }
}

static void each_item_runs_once_for_any_thread_count(void)
{
    int counts[] = {1, 2, 3, 8};
    int grains[] = {0, 1, 7, 100000};
    for (size_t t = 0; t < sizeof counts / sizeof counts[0]; t++) {
        bw_jobs *jobs = NULL;
        bw_jobs_desc desc = {.thread_count = counts[t]};
        CHECK_INT(bw_jobs_create(&desc, &jobs), BW_OK);
        CHECK_INT(bw_jobs_thread_count(jobs), counts[t]);
        for (size_t g = 0; g < sizeof grains / sizeof grains[0]; g++) {
            memset(hits, 0, sizeof hits);
            max_worker_seen = 0;
            int one = 1;
            /* 20 runs back to back: every item must end at exactly 20 */
            for (int run = 0; run < 20; run++) bw_jobs_run(jobs, ITEMS, grains[g], mark, &one);
            int wrong = 0;
            for (int i = 0; i < ITEMS; i++) wrong += hits[i] != 20;
            CHECK_INT(wrong, 0);
            CHECK(max_worker_seen < counts[t]);
        }
        bw_jobs_destroy(jobs);
    }
}

static void bad_arguments_are_refused(void)
{
    bw_jobs *jobs = NULL;
    bw_jobs_desc negative = {.thread_count = -1}, too_many = {.thread_count = 257}, single = {.thread_count = 1};
    CHECK_INT(bw_jobs_create(&negative, &jobs), BW_ERR_INVALID_ARGUMENT);
    CHECK(jobs == NULL);
    CHECK_INT(bw_jobs_create(&too_many, &jobs), BW_ERR_INVALID_ARGUMENT);
    CHECK(jobs == NULL);
    CHECK_INT(bw_jobs_create(NULL, &jobs), BW_ERR_INVALID_ARGUMENT);
    CHECK(jobs == NULL);
    CHECK_INT(bw_jobs_create(&single, NULL), BW_ERR_INVALID_ARGUMENT);
    bw_jobs_destroy(NULL); /* no-op */
    bw_jobs_desc two = {.thread_count = 2};
    CHECK_INT(bw_jobs_create(&two, &jobs), BW_OK);
    int one = 1;
    memset(hits, 0, sizeof hits);
    bw_jobs_run(jobs, 0, 0, mark, &one);  /* nothing to do */
    bw_jobs_run(jobs, -5, 0, mark, &one); /* negative count: nothing */
    int touched = 0;
    for (int i = 0; i < ITEMS; i++) touched += hits[i];
    CHECK_INT(touched, 0);
    bw_jobs_destroy(jobs);
}

/* All-zero desc: one thread (the caller), the C allocator. A counting
 * allocator in the desc is copied, so the desc may go out of scope, and
 * every block the pool takes goes back through it. */
static void zero_desc_means_one_thread_and_the_allocator_is_copied(void)
{
    bw_jobs *jobs = NULL;
    bw_jobs_desc zero = {0};
    CHECK_INT(bw_jobs_create(&zero, &jobs), BW_OK);
    CHECK_INT(bw_jobs_thread_count(jobs), 1);
    bw_jobs_destroy(jobs);

    alloc_counter counter = ALLOC_COUNTER(-1);
    jobs = NULL;
    {
        bw_jobs_desc desc = {.thread_count = 3, .allocator = {alloc_counter_fn, &counter}};
        CHECK_INT(bw_jobs_create(&desc, &jobs), BW_OK);
        memset(&desc, 0, sizeof desc); /* the pool must not read it again */
    }
    CHECK_INT(counter.blocks, 2); /* the pool and its thread block */
    int one = 1;
    memset(hits, 0, sizeof hits);
    bw_jobs_run(jobs, ITEMS, 0, mark, &one);
    int wrong = 0;
    for (int i = 0; i < ITEMS; i++) wrong += hits[i] != 1;
    CHECK_INT(wrong, 0);
    CHECK_INT(counter.allocations, 2); /* running allocates nothing */
    bw_jobs_destroy(jobs);
    CHECK_INT(counter.live_blocks, 0);
    CHECK_INT(counter.live_bytes, 0);
}

/* Range statistics gathered without per-item storage, so a count near
 * INT_MAX can be checked: with no empty, inverted or out-of-bounds range,
 * the lengths summing to count, and the begins summing to that of the
 * grain tiling 0, g, 2g, ..., the ranges are exactly that tiling. */
typedef struct range_stats {
    long long calls, items, begin_sum;
    long long min_begin, max_end;
    long long bad; /* begin < 0, end <= begin or end > count */
    int count;
    pthread_mutex_t lock;
} range_stats;

static void tally(void *user, int begin, int end, int worker)
{
    (void)worker;
    range_stats *s = (range_stats *)user;
    pthread_mutex_lock(&s->lock);
    s->calls++;
    s->items += (long long)end - begin;
    s->begin_sum += begin;
    if (begin < s->min_begin) s->min_begin = begin;
    if (end > s->max_end) s->max_end = end;
    s->bad += begin < 0 || end <= begin || end > s->count;
    pthread_mutex_unlock(&s->lock);
}

static range_stats run_stats(bw_jobs *jobs, int count, int grain)
{
    range_stats s = {.min_begin = LLONG_MAX, .max_end = LLONG_MIN, .count = count};
    pthread_mutex_init(&s.lock, NULL);
    bw_jobs_run(jobs, count, grain, tally, &s);
    pthread_mutex_destroy(&s.lock);
    return s;
}

/* A grain at or near INT_MAX: the shared counter used to be a 32-bit int
 * that every thread advanced by grain, so it wrapped and handed out
 * negative and repeated ranges (and overflowed signed arithmetic). */
static void a_huge_grain_gives_one_range_and_no_wrap(void)
{
    int counts[] = {2, 4, 8};
    for (size_t t = 0; t < sizeof counts / sizeof counts[0]; t++) {
        bw_jobs *jobs = NULL;
        bw_jobs_desc desc = {.thread_count = counts[t]};
        CHECK_INT(bw_jobs_create(&desc, &jobs), BW_OK);
        range_stats s = run_stats(jobs, 1000, INT_MAX / 2 + 1);
        CHECK_INT(s.calls, 1);
        CHECK_INT(s.min_begin, 0);
        CHECK_INT(s.max_end, 1000);
        CHECK_INT(s.bad, 0);
        s = run_stats(jobs, 1000, INT_MAX);
        CHECK_INT(s.calls, 1);
        CHECK_INT(s.items, 1000);
        CHECK_INT(s.bad, 0);
        s = run_stats(jobs, INT_MAX, INT_MAX);
        CHECK_INT(s.calls, 1);
        CHECK_INT(s.items, INT_MAX);
        CHECK_INT(s.max_end, INT_MAX);
        CHECK_INT(s.bad, 0);
        bw_jobs_destroy(jobs);
    }
    /* count INT_MAX - 1, grain INT_MAX / 3 = 715827882: ranges begin at
     * 0, g, 2g (3g = 2147483646 = count, so exactly 3 full ranges); the
     * begins sum to 3g. */
    bw_jobs *jobs = NULL;
    bw_jobs_desc four = {.thread_count = 4};
    CHECK_INT(bw_jobs_create(&four, &jobs), BW_OK);
    const long long g = INT_MAX / 3;
    range_stats s = run_stats(jobs, INT_MAX - 1, (int)g);
    CHECK_INT(s.calls, 3);
    CHECK_INT(s.items, INT_MAX - 1);
    CHECK_INT(s.begin_sum, 3 * g);
    CHECK_INT(s.min_begin, 0);
    CHECK_INT(s.max_end, INT_MAX - 1);
    CHECK_INT(s.bad, 0);
    /* grain INT_MAX / 3 + 1 over INT_MAX items: 715827883 × 2 and a last
     * range of 2147483647 - 1431655766 = 715827881 */
    s = run_stats(jobs, INT_MAX, (int)g + 1);
    CHECK_INT(s.calls, 3);
    CHECK_INT(s.items, INT_MAX);
    CHECK_INT(s.begin_sum, 0 + (g + 1) + 2 * (g + 1));
    CHECK_INT(s.max_end, INT_MAX);
    CHECK_INT(s.bad, 0);
    bw_jobs_destroy(jobs);
}

/* The order a one-thread pool calls fn in, recorded. */
typedef struct call_log {
    int calls;
    int begin[32], end[32], worker[32];
} call_log;

static void record(void *user, int begin, int end, int worker)
{
    call_log *log = (call_log *)user;
    if (log->calls < 32) {
        log->begin[log->calls] = begin;
        log->end[log->calls] = end;
        log->worker[log->calls] = worker;
    }
    log->calls++;
}

/* One thread honours grain too: the ranges of a pool, in order, on the
 * caller (it used to make one call over everything). */
static void a_single_thread_pool_steps_by_grain(void)
{
    int thread_counts[] = {0, 1};
    for (size_t t = 0; t < 2; t++) {
        alloc_counter counter = ALLOC_COUNTER(-1);
        bw_jobs *jobs = NULL;
        bw_jobs_desc desc = {.thread_count = thread_counts[t], .allocator = {alloc_counter_fn, &counter}};
        CHECK_INT(bw_jobs_create(&desc, &jobs), BW_OK);
        long before = counter.allocations;
        call_log log = {0};
        bw_jobs_run(jobs, 100, 10, record, &log);
        CHECK_INT(log.calls, 10);
        for (int i = 0; i < 10; i++) {
            CHECK_INT(log.begin[i], 10 * i);
            CHECK_INT(log.end[i], 10 * i + 10);
            CHECK_INT(log.worker[i], 0);
        }
        /* 25 by 7: 3 ranges of 7 and a last one of 4 */
        memset(&log, 0, sizeof log);
        bw_jobs_run(jobs, 25, 7, record, &log);
        CHECK_INT(log.calls, 4);
        CHECK_INT(log.begin[3], 21);
        CHECK_INT(log.end[3], 25);
        /* grain 0: count / 4 = 25 */
        memset(&log, 0, sizeof log);
        bw_jobs_run(jobs, 100, 0, record, &log);
        CHECK_INT(log.calls, 4);
        CHECK_INT(log.begin[2], 50);
        CHECK_INT(log.end[2], 75);
        /* a huge grain on one thread: one range, no overflow */
        memset(&log, 0, sizeof log);
        bw_jobs_run(jobs, INT_MAX, INT_MAX - 1, record, &log);
        CHECK_INT(log.calls, 2);
        CHECK_INT(log.end[0], INT_MAX - 1);
        CHECK_INT(log.begin[1], INT_MAX - 1);
        CHECK_INT(log.end[1], INT_MAX);
        CHECK_INT(counter.allocations, before); /* stepping allocates nothing */
        bw_jobs_destroy(jobs);
    }
}

int main(void)
{
    RUN(each_item_runs_once_for_any_thread_count);
    RUN(bad_arguments_are_refused);
    RUN(zero_desc_means_one_thread_and_the_allocator_is_copied);
    RUN(a_huge_grain_gives_one_range_and_no_wrap);
    RUN(a_single_thread_pool_steps_by_grain);
    return check_summary();
}
