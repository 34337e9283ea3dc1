/* blendwerk/jobs.h - a small parallel-for over independent items.
 *
 * Characters are independent (rigs and clips are shared read-only), so a
 * crowd update is a parallel loop over characters. A job pool owns
 * `thread_count - 1` worker threads; the calling thread works too. Each
 * bw_jobs_run splits [0, count) into contiguous ranges handed out from an
 * atomic counter and returns when every item is done. Nothing allocates
 * after creation; the pool must not be used from two threads at once.
 */
#ifndef BLENDWERK_JOBS_H
#define BLENDWERK_JOBS_H

#include "blendwerk/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bw_jobs bw_jobs;

/* Process items [begin, end); `worker` is 0 for the caller, 1.. for pool
 * threads (to pick per-thread scratch). */
typedef void (*bw_job_fn)(void *user, int begin, int end, int worker);

/* All-zero means the defaults. */
typedef struct bw_jobs_desc {
    int thread_count;       /* threads including the caller, in [1, 256]; 0 = 1 (run
                               everything on the calling thread) */
    bw_allocator allocator; /* copied; fn NULL = malloc. What it points to must
                               outlive the pool */
} bw_jobs_desc;

/* BW_ERR_INVALID_ARGUMENT for a NULL desc or out_jobs or a thread count
 * outside [0, 256]; BW_ERR_OUT_OF_MEMORY; BW_ERR_LIMIT when the system
 * refuses a thread (nothing is left running). *out_jobs is set only on
 * success. */
BW_API bw_result bw_jobs_create(const bw_jobs_desc *desc, bw_jobs **out_jobs);
BW_API void bw_jobs_destroy(bw_jobs *jobs);
BW_API int bw_jobs_thread_count(const bw_jobs *jobs);
/* Run fn over [0, count) in ranges of at most `grain` items (grain <= 0:
 * count / (4 × threads), at least 1; a grain above count is count). The
 * ranges tile [0, count) exactly: every item once, 0 <= begin < end <=
 * count, for any count and grain up to INT_MAX. A one-thread pool calls
 * fn on the calling thread for each range in order. Blocks until all
 * items are done. count <= 0 does nothing. */
BW_API void bw_jobs_run(bw_jobs *jobs, int count, int grain, bw_job_fn fn, void *user);

#ifdef __cplusplus
}
#endif
#endif
