/* jobs.c - a pthread pool for bw_jobs_run (see blendwerk/jobs.h).
 *
 * Workers sleep on a condition variable between runs. A run publishes the
 * work under the mutex with a new generation number; every participant
 * claims ranges with an atomic fetch-add until the counter passes `count`,
 * then reports done. The caller waits until every worker has reported. */
#include <pthread.h>
#include <stdatomic.h>

#include "blendwerk/jobs.h"
#include "common.h"

struct bw_jobs {
    bw_allocator allocator;
    int thread_count;      /* caller + workers started */
    int threads_allocated; /* worker slots in `threads` (its block's size) */
    pthread_t *threads;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_cond_t done;
    unsigned generation;
    int busy_workers;
    bool quit;
    /* the current run */
    bw_job_fn fn;
    void *user;
    int count;
    int grain; /* in [1, count] */
    /* 64-bit: every participant adds grain (<= count <= INT_MAX) once more
     * after the counter passes count, so it stays below
     * count + 256 × grain, far from wrapping. */
    atomic_llong next;
};

typedef struct worker_arg {
    bw_jobs *jobs;
    int index;
} worker_arg;

static void work(bw_jobs *jobs, int worker)
{
    for (;;) {
        long long begin = atomic_fetch_add(&jobs->next, (long long)jobs->grain);
        if (begin >= jobs->count) break;
        long long end = begin + jobs->grain;
        if (end > jobs->count) end = jobs->count;
        jobs->fn(jobs->user, (int)begin, (int)end, worker);
    }
}

static void *worker_main(void *p)
{
    bw_jobs *jobs = ((worker_arg *)p)->jobs;
    int index = ((worker_arg *)p)->index;
    unsigned seen = 0;
    pthread_mutex_lock(&jobs->lock);
    for (;;) {
        while (!jobs->quit && jobs->generation == seen) pthread_cond_wait(&jobs->wake, &jobs->lock);
        if (jobs->quit) break;
        seen = jobs->generation;
        pthread_mutex_unlock(&jobs->lock);
        work(jobs, index);
        pthread_mutex_lock(&jobs->lock);
        if (--jobs->busy_workers == 0) pthread_cond_signal(&jobs->done);
    }
    pthread_mutex_unlock(&jobs->lock);
    return NULL;
}

/* worker_arg storage lives right after the thread handles. */
static size_t threads_block_size(int workers)
{
    return (sizeof(pthread_t) + sizeof(worker_arg)) * (size_t)(workers > 0 ? workers : 1);
}

bw_result bw_jobs_create(const bw_jobs_desc *desc, bw_jobs **out_jobs)
{
    if (!desc || !out_jobs || desc->thread_count < 0 || desc->thread_count > 256) return BW_ERR_INVALID_ARGUMENT;
    const int thread_count = desc->thread_count ? desc->thread_count : 1;
    const bw_allocator *allocator = &desc->allocator;
    bw_jobs *jobs = (bw_jobs *)bw_alloc_zeroed(allocator, sizeof *jobs);
    if (!jobs) return BW_ERR_OUT_OF_MEMORY;
    jobs->allocator = desc->allocator;
    jobs->thread_count = thread_count;
    int workers = thread_count - 1;
    jobs->threads = (pthread_t *)bw_alloc_zeroed(allocator, threads_block_size(workers));
    if (!jobs->threads) {
        bw_free(allocator, jobs, sizeof *jobs);
        return BW_ERR_OUT_OF_MEMORY;
    }
    jobs->threads_allocated = workers;
    worker_arg *args = (worker_arg *)(jobs->threads + (workers > 0 ? workers : 1));
    pthread_mutex_init(&jobs->lock, NULL);
    pthread_cond_init(&jobs->wake, NULL);
    pthread_cond_init(&jobs->done, NULL);
    atomic_init(&jobs->next, 0);
    for (int i = 0; i < workers; i++) {
        args[i].jobs = jobs;
        args[i].index = i + 1;
        if (pthread_create(&jobs->threads[i], NULL, worker_main, &args[i]) != 0) {
            jobs->thread_count = i + 1; /* the ones started so far */
            bw_jobs_destroy(jobs);
            return BW_ERR_LIMIT;
        }
    }
    *out_jobs = jobs;
    return BW_OK;
}

void bw_jobs_destroy(bw_jobs *jobs)
{
    if (!jobs) return;
    pthread_mutex_lock(&jobs->lock);
    jobs->quit = true;
    pthread_cond_broadcast(&jobs->wake);
    pthread_mutex_unlock(&jobs->lock);
    int workers = jobs->thread_count - 1;
    for (int i = 0; i < workers; i++) pthread_join(jobs->threads[i], NULL);
    pthread_cond_destroy(&jobs->done);
    pthread_cond_destroy(&jobs->wake);
    pthread_mutex_destroy(&jobs->lock);
    bw_allocator allocator = jobs->allocator; /* the block holding it is freed last */
    bw_free(&allocator, jobs->threads, threads_block_size(jobs->threads_allocated));
    bw_free(&allocator, jobs, sizeof *jobs);
}

int bw_jobs_thread_count(const bw_jobs *jobs) { return jobs ? jobs->thread_count : 0; }

void bw_jobs_run(bw_jobs *jobs, int count, int grain, bw_job_fn fn, void *user)
{
    if (!jobs || !fn || count <= 0) return;
    if (grain <= 0) grain = count / (4 * jobs->thread_count);
    if (grain < 1) grain = 1;
    if (grain > count) grain = count;
    if (jobs->thread_count == 1) {
        /* the ranges a pool would hand out, in order (begin + grain is
         * formed only when it stays below count) */
        for (int begin = 0; begin < count;) {
            int end = count - begin > grain ? begin + grain : count;
            fn(user, begin, end, 0);
            begin = end;
        }
        return;
    }
    pthread_mutex_lock(&jobs->lock);
    jobs->fn = fn;
    jobs->user = user;
    jobs->count = count;
    jobs->grain = grain;
    atomic_store(&jobs->next, 0);
    jobs->busy_workers = jobs->thread_count - 1;
    jobs->generation++;
    pthread_cond_broadcast(&jobs->wake);
    pthread_mutex_unlock(&jobs->lock);
    work(jobs, 0);
    pthread_mutex_lock(&jobs->lock);
    while (jobs->busy_workers > 0) pthread_cond_wait(&jobs->done, &jobs->lock);
    pthread_mutex_unlock(&jobs->lock);
}
