/* test_jobs.c - the parallel-for job pool: every item exactly once, any
 * thread count, any grain, repeated runs. */
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

int main(void)
{
    RUN(each_item_runs_once_for_any_thread_count);
    RUN(bad_arguments_are_refused);
    RUN(zero_desc_means_one_thread_and_the_allocator_is_copied);
    return check_summary();
}
