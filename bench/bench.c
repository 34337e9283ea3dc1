/* bench.c - the Blendwerk benchmark program (never a timed test).
 *
 * The reference workload (the same shape ozz-animation was measured on):
 * a 64-joint humanoid rig; 4 clips of 1.0, 1.33, 1.67 and 2.0 s with keys
 * at 30 per second on translation, rotation and scale of every joint
 * (smooth periodic curves); 1,000 characters, each with its own playback
 * state and output buffers and a random phase; forward playback at 1/60 s
 * per frame. `pipe4` is the product path: each character's bw_track_set
 * playing the four clips, advanced, composed (bw_track_set_compose, the
 * fused bw_mix_run_clips pass) and drained, then local-to-model; the
 * kernels measured alone keep their own names (`fused4` is
 * bw_mix_run_clips called directly).
 *
 * A timed block is one frame of the whole crowd. Each measurement runs at
 * least 31 blocks after a warm-up, drops blocks in which the thread was
 * descheduled (its context-switch count changed), and reports the median
 * and 10th percentile in nanoseconds per joint (block time / (characters ×
 * joints)).
 *
 *   blendwerk-bench [--quick] [--json] [--characters N] [--threads N]
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "blendwerk/blendwerk.h"
#include "blendwerk/jobs.h"

#define JOINTS 64
#define CLIPS 4
#define KEY_RATE 30.0
#define FRAME_DT (1.0f / 60.0f)

static const float clip_lengths[CLIPS] = {1.0f, 1.33f, 1.67f, 2.0f};

/* ---- counting allocator: proves the frame loop allocates nothing ---- */
typedef struct alloc_stats {
    long long calls;
    long long bytes;
} alloc_stats;

static void *counting_alloc(void *user, void *ptr, size_t osize, size_t nsize)
{
    alloc_stats *st = (alloc_stats *)user;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    __atomic_add_fetch(&st->calls, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&st->bytes, (long long)nsize - (long long)(ptr ? osize : 0), __ATOMIC_RELAXED);
    return realloc(ptr, nsize);
}

static alloc_stats stats;
static bw_allocator counting = {counting_alloc, &stats};

/* ---- the workload ---- */
typedef struct character {
    double time[CLIPS];
    unsigned rng; /* per-character random stream for sample1_rand */
    bw_pose sampled[CLIPS];
    bw_pose mixed;
    float (*model)[4][4];
    bw_track_set *set; /* four looping tracks (pipe4: the product path) */
} character;

typedef struct workload {
    bw_rig *rig;
    bw_clip *clips[CLIPS];
    bw_binding *bindings[CLIPS];
    int count;
    character *chars;
    bw_mixer **mixers; /* one per thread */
    int threads;
} workload;

static float rng_next(unsigned *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (float)(*state >> 8) / 16777216.0f;
}
static unsigned rng_state = 12345u;
static float rng01(void) { return rng_next(&rng_state); }

static void die(const char *what, bw_result r)
{
    fprintf(stderr, "blendwerk-bench: %s failed: %s\n", what, bw_result_name(r));
    exit(1);
}

/* A humanoid-shaped tree of 64 joints: a spine chain with a head and four
 * limbs, fingers on both hands. */
static bw_rig *make_rig(void)
{
    bw_rig_joint_desc joints[JOINTS];
    static char names[JOINTS][16];
    int parents[JOINTS];
    int n = 0;
    parents[n++] = -1;                        /* 0 hips */
    for (int i = 0; i < 4; i++) parents[n] = n - 1, n++; /* 1-4 spine, neck */
    parents[n] = n - 1, n++;                  /* 5 head */
    int limb_roots[4] = {3, 3, 0, 0};         /* arms from chest, legs from hips */
    for (int l = 0; l < 4; l++) {
        parents[n] = limb_roots[l], n++;
        for (int i = 0; i < 4; i++) parents[n] = n - 1, n++;
    }
    /* 26 so far; fingers: 2 hands x 5 fingers x 3 joints = 30 -> 56; extra
     * twist/face joints to 64 */
    int hands[2] = {10, 15};
    for (int h = 0; h < 2; h++)
        for (int f = 0; f < 5; f++) {
            parents[n] = hands[h], n++;
            parents[n] = n - 1, n++;
            parents[n] = n - 1, n++;
        }
    while (n < JOINTS) parents[n] = 5, n++;
    for (int i = 0; i < JOINTS; i++) {
        snprintf(names[i], sizeof names[i], "j%02d", i);
        joints[i].name = names[i];
        joints[i].parent = parents[i];
        joints[i].rest = bw_transform_identity;
        joints[i].rest.t[1] = 0.1f;
    }
    bw_rig_desc desc = {.joints = joints, .joint_count = JOINTS, .allocator = counting};
    bw_rig *rig = NULL;
    bw_result r = bw_rig_create(&desc, &rig, NULL);
    if (r != BW_OK) die("bw_rig_create", r);
    return rig;
}

static bw_clip *make_clip(const bw_rig *rig, int c)
{
    float length = clip_lengths[c];
    int keys = (int)lround(length * KEY_RATE) + 1;
    float *times = malloc(sizeof(float) * (size_t)keys);
    float *values = malloc(sizeof(float) * (size_t)keys * 10 * JOINTS);
    bw_track_desc *tracks = malloc(sizeof(bw_track_desc) * 3 * JOINTS);
    for (int k = 0; k < keys; k++) times[k] = length * (float)k / (float)(keys - 1);
    for (int j = 0; j < JOINTS; j++) {
        float *tv = values + (size_t)j * 10 * (size_t)keys;
        float *rv = tv + 3 * keys, *sv = rv + 4 * keys;
        float ph = 0.37f * (float)j + (float)c;
        for (int k = 0; k < keys; k++) {
            float a = 6.2831853f * times[k] / length + ph; /* periodic over the clip */
            tv[3 * k + 0] = 0.1f * sinf(a);
            tv[3 * k + 1] = 0.1f + 0.05f * cosf(a);
            tv[3 * k + 2] = 0.02f * sinf(2 * a);
            float ang = 0.6f * sinf(a), ax = 0.6f, ay = 0.64f, az = 0.48f; /* unit axis */
            rv[4 * k + 0] = ax * sinf(ang / 2);
            rv[4 * k + 1] = ay * sinf(ang / 2);
            rv[4 * k + 2] = az * sinf(ang / 2);
            rv[4 * k + 3] = cosf(ang / 2);
            sv[3 * k + 0] = sv[3 * k + 1] = sv[3 * k + 2] = 1.0f + 0.05f * sinf(a);
        }
        const char *name = bw_rig_joint_name(rig, j);
        int p = bw_rig_joint_parent(rig, j);
        const char *parent = p < 0 ? "" : bw_rig_joint_name(rig, p);
        bw_channel ch[3] = {BW_CHANNEL_TRANSLATION, BW_CHANNEL_ROTATION, BW_CHANNEL_SCALE};
        const float *vals[3] = {tv, rv, sv};
        for (int i = 0; i < 3; i++) {
            bw_track_desc *t = &tracks[3 * j + i];
            memset(t, 0, sizeof *t);
            t->parent = parent;
            t->joint = name;
            t->channel = ch[i];
            t->interp = BW_INTERP_EASED;
            t->key_count = keys;
            t->times = times;
            t->values = vals[i];
        }
    }
    bw_clip_desc desc = {0};
    desc.name = "bench";
    desc.tracks = tracks;
    desc.track_count = 3 * JOINTS;
    desc.length = length;
    desc.loop = true;
    desc.allocator = counting;
    bw_clip *clip = NULL;
    bw_error err;
    bw_result r = bw_clip_create(&desc, &clip, &err);
    if (r != BW_OK) {
        fprintf(stderr, "%s\n", err.message);
        die("bw_clip_create", r);
    }
    free(times);
    free(values);
    free(tracks);
    return clip;
}

static void workload_init(workload *w, int count, int threads)
{
    memset(w, 0, sizeof *w);
    w->rig = make_rig();
    for (int c = 0; c < CLIPS; c++) {
        w->clips[c] = make_clip(w->rig, c);
        bw_result r = bw_binding_create(&(bw_binding_desc){.clip = w->clips[c], .rig = w->rig, .allocator = counting}, &w->bindings[c], NULL);
        if (r != BW_OK) die("bw_binding_create", r);
    }
    w->count = count;
    w->threads = threads;
    w->mixers = calloc((size_t)threads, sizeof(bw_mixer *));
    for (int t = 0; t < threads; t++) {
        bw_mixer_desc md = {w->rig, CLIPS, counting, false};
        bw_result r = bw_mixer_create(&md, &w->mixers[t]);
        if (r != BW_OK) die("bw_mixer_create", r);
    }
    w->chars = calloc((size_t)count, sizeof(character));
}

/* Bytes one character's buffers take, measured through the allocator. */
static long long character_init(const workload *w, character *ch)
{
    long long before = stats.bytes;
    for (int c = 0; c < CLIPS; c++) {
        ch->time[c] = rng01() * clip_lengths[c];
        ch->rng = (unsigned)(rng01() * 4294967040.0f) | 1u;
        if (bw_pose_init(&ch->sampled[c], w->rig, &counting) != BW_OK) die("bw_pose_init", BW_ERR_OUT_OF_MEMORY);
    }
    if (bw_pose_init(&ch->mixed, w->rig, &counting) != BW_OK) die("bw_pose_init", BW_ERR_OUT_OF_MEMORY);
    ch->model = counting_alloc(&stats, NULL, 0, sizeof(float[4][4]) * JOINTS);
    /* the same four clips as playing tracks, at the same phases and a
     * quarter weight each */
    bw_track_set_desc sd = {w->rig, CLIPS, 0, counting};
    bw_result r = bw_track_set_create(&sd, &ch->set);
    if (r != BW_OK) die("bw_track_set_create", r);
    for (int c = 0; c < CLIPS; c++) {
        bw_play_desc pd = {.binding = w->bindings[c], .time = ch->time[c], .weight = 0.25f};
        r = bw_track_set_play(ch->set, &pd, NULL);
        if (r != BW_OK) die("bw_track_set_play", r);
    }
    return stats.bytes - before + (long long)sizeof(character);
}

static void workload_deinit(workload *w)
{
    for (int i = 0; i < w->count; i++) {
        for (int c = 0; c < CLIPS; c++) bw_pose_deinit(&w->chars[i].sampled[c]);
        bw_pose_deinit(&w->chars[i].mixed);
        free(w->chars[i].model);
        bw_track_set_destroy(w->chars[i].set);
    }
    free(w->chars);
    for (int t = 0; t < w->threads; t++) bw_mixer_destroy(w->mixers[t]);
    free(w->mixers);
    for (int c = 0; c < CLIPS; c++) {
        bw_binding_destroy(w->bindings[c]);
        bw_clip_destroy(w->clips[c]);
    }
    bw_rig_destroy(w->rig);
}

/* ---- per-character steps ---- */
static inline float advance(character *ch, int c)
{
    double t = ch->time[c] + FRAME_DT;
    double len = clip_lengths[c];
    if (t >= len) t -= len;
    ch->time[c] = t;
    return (float)t;
}

typedef enum kind {
    SAMPLE1_FWD,
    SAMPLE1_RAND,
    SAMPLE4_FWD,
    BLEND4_ONLY,
    L2M,
    PIPE1,
    FUSED4,
    PIPE4,
    KIND_COUNT
} kind;
static const char *const kind_names[KIND_COUNT] = {"sample1_fwd", "sample1_rand", "sample4_fwd", "blend4_only",
                                                   "l2m",         "pipe1",        "fused4",      "pipe4"};

typedef struct frame_job {
    workload *w;
    kind k;
} frame_job;

static void run_range(void *user, int begin, int end, int worker)
{
    frame_job *job = (frame_job *)user;
    workload *w = job->w;
    bw_mixer *mixer = w->mixers[worker];
    for (int i = begin; i < end; i++) {
        character *ch = &w->chars[i];
        switch (job->k) {
        case SAMPLE1_FWD:
            bw_sample_clip(w->bindings[0], w->rig, advance(ch, 0), &ch->sampled[0]);
            break;
        case SAMPLE1_RAND:
            bw_sample_clip(w->bindings[0], w->rig, rng_next(&ch->rng) * clip_lengths[0], &ch->sampled[0]);
            break;
        case SAMPLE4_FWD:
            for (int c = 0; c < CLIPS; c++) bw_sample_clip(w->bindings[c], w->rig, advance(ch, c), &ch->sampled[c]);
            break;
        case BLEND4_ONLY: {
            bw_contribution contrib[CLIPS];
            for (int c = 0; c < CLIPS; c++) contrib[c] = (bw_contribution){&ch->sampled[c], 0.25f, 0};
            bw_pose_set_rest(&ch->mixed, w->rig);
            bw_mix_run(mixer, NULL, contrib, CLIPS, &ch->mixed);
            break;
        }
        case PIPE4:
            /* the product path: a track set playing the four clips (clock,
             * signals, then the fused compose) and local-to-model */
            bw_track_set_advance(ch->set, FRAME_DT);
            bw_track_set_compose(ch->set, mixer, NULL, &ch->mixed);
            bw_track_set_drain(ch->set, NULL, NULL);
            bw_pose_local_to_model(w->rig, &ch->mixed, ch->model);
            break;
        case FUSED4: {
            /* the kernel alone: sample the four clips and mix them in one
             * pass over the joints (bw_mix_run_clips), then local-to-model */
            bw_clip_contribution clips[CLIPS];
            for (int c = 0; c < CLIPS; c++) clips[c] = (bw_clip_contribution){w->bindings[c], advance(ch, c), 0.25f, 0};
            bw_pose_set_rest(&ch->mixed, w->rig);
            bw_mix_run_clips(mixer, w->rig, NULL, clips, CLIPS, &ch->mixed);
            bw_pose_local_to_model(w->rig, &ch->mixed, ch->model);
            break;
        }
        case L2M:
            bw_pose_local_to_model(w->rig, &ch->mixed, ch->model);
            break;
        case PIPE1:
            bw_sample_clip(w->bindings[0], w->rig, advance(ch, 0), &ch->sampled[0]);
            bw_pose_local_to_model(w->rig, &ch->sampled[0], ch->model);
            break;
        default:
            break;
        }
    }
}

/* ---- timing ---- */
static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static long involuntary_switches(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return ru.ru_nivcsw;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct result {
    const char *name;
    double median, p10; /* ns per joint */
    int blocks, dropped;
} result;

/* One measurement. Single-threaded (jobs == NULL): each frame walks the
 * whole crowd in short blocks of BLOCK_CHARACTERS, each timed on its own,
 * and a block during which the thread was involuntarily descheduled is
 * dropped. Threaded: each block is one whole frame on the pool. */
#define BLOCK_CHARACTERS 25
static result measure(workload *w, bw_jobs *jobs, kind k, int blocks, const char *name)
{
    frame_job job = {w, k};
    int per_frame = jobs ? 1 : (w->count + BLOCK_CHARACTERS - 1) / BLOCK_CHARACTERS;
    for (int i = 0; i < 3; i++) run_range(&job, 0, w->count, 0); /* warm-up */
    int cap = blocks + per_frame;
    double *samples = malloc(sizeof(double) * (size_t)cap);
    int kept = 0, dropped = 0;
    for (int attempt = 0; kept < blocks && attempt < blocks * 8; attempt++) {
        if (jobs) {
            double t0 = now_ns();
            bw_jobs_run(jobs, w->count, 0, run_range, &job);
            samples[kept++] = (now_ns() - t0) / ((double)w->count * JOINTS);
            continue;
        }
        for (int b = 0; b < w->count && kept < cap; b += BLOCK_CHARACTERS) {
            int e = b + BLOCK_CHARACTERS < w->count ? b + BLOCK_CHARACTERS : w->count;
            long s0 = involuntary_switches();
            double t0 = now_ns();
            run_range(&job, b, e, 0);
            double t1 = now_ns();
            if (involuntary_switches() != s0) {
                dropped++;
                continue;
            }
            samples[kept++] = (t1 - t0) / ((double)(e - b) * JOINTS);
        }
    }
    qsort(samples, (size_t)kept, sizeof(double), cmp_double);
    result r = {name, kept ? samples[kept / 2] : NAN, kept ? samples[kept / 10] : NAN, kept, dropped};
    free(samples);
    return r;
}

int main(int argc, char **argv)
{
    int quick = 0, json = 0, count = 1000;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = ncpu > 0 ? (int)ncpu : 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--json")) json = 1;
        else if (!strcmp(argv[i], "--characters") && i + 1 < argc) count = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: blendwerk-bench [--quick] [--json] [--characters N] [--threads N]\n");
            return 2;
        }
    }
    if (count < 1 || threads < 1) {
        fprintf(stderr, "blendwerk-bench: --characters and --threads must be >= 1\n");
        return 2;
    }
    int blocks = quick ? 401 : 4001; /* timed blocks of 25 characters each */

    workload w;
    workload_init(&w, count, threads);
    long long bytes_per_character = 0;
    for (int i = 0; i < count; i++) bytes_per_character = character_init(&w, &w.chars[i]);

    bw_jobs *single = NULL, *pool = NULL;
    bw_jobs_desc single_desc = {.thread_count = 1}, pool_desc = {.thread_count = threads};
    if (bw_jobs_create(&single_desc, &single) != BW_OK || bw_jobs_create(&pool_desc, &pool) != BW_OK) {
        fprintf(stderr, "blendwerk-bench: cannot start threads\n");
        return 1;
    }

    /* mixed poses must hold something for l2m: run pipe4 once */
    frame_job prime = {&w, PIPE4};
    bw_jobs_run(single, count, 0, run_range, &prime);

    result results[KIND_COUNT + 1];
    for (int k = 0; k < KIND_COUNT; k++) results[k] = measure(&w, NULL, (kind)k, blocks, kind_names[k]);

    /* allocations per frame after warm-up, over every kind of frame */
    long long calls_before = stats.calls;
    int frames = quick ? 20 : 100;
    for (int f = 0; f < frames; f++)
        for (int k = 0; k < KIND_COUNT; k++) {
            frame_job job = {&w, (kind)k};
            bw_jobs_run(pool, count, 0, run_range, &job);
        }
    double allocs_per_frame = (double)(stats.calls - calls_before) / frames;

    /* scaling: whole frames on one thread vs on the pool, same timing */
    result one_thread = measure(&w, single, PIPE4, quick ? 61 : 301, "pipe4_1thread");
    result threaded = measure(&w, pool, PIPE4, quick ? 61 : 301, "pipe4_threads");
    double speedup = threaded.median > 0 ? one_thread.median / threaded.median : 0;
    results[KIND_COUNT] = threaded;

    if (json) {
        printf("{\"characters\":%d,\"joints\":%d,\"threads\":%d,\"measurements\":[", count, JOINTS, threads);
        for (int k = 0; k <= KIND_COUNT; k++)
            printf("%s{\"name\":\"%s\",\"median_ns_per_joint\":%.3f,\"p10_ns_per_joint\":%.3f,\"blocks\":%d,"
                   "\"dropped\":%d}",
                   k ? "," : "", results[k].name, results[k].median, results[k].p10, results[k].blocks,
                   results[k].dropped);
        printf("],\"scaling\":{\"threads\":%d,\"speedup\":%.3f},\"allocations_per_frame\":%.3f,"
               "\"bytes_per_character\":%lld}\n",
               threads, speedup, allocs_per_frame, bytes_per_character);
    } else {
        printf("blendwerk-bench: %d characters x %d joints, %d blocks per measurement%s\n", count, JOINTS, blocks,
               quick ? " (quick)" : "");
        printf("%-16s %12s %12s %8s\n", "measurement", "median ns/j", "p10 ns/j", "dropped");
        for (int k = 0; k <= KIND_COUNT; k++)
            printf("%-16s %12.2f %12.2f %8d\n", results[k].name, results[k].median, results[k].p10,
                   results[k].dropped);
        printf("pipe4 on %d threads: %.2fx one thread\n", threads, speedup);
        printf("allocations per frame after warm-up: %.3f\n", allocs_per_frame);
        printf("bytes per character instance: %lld\n", bytes_per_character);
    }
    bw_jobs_destroy(pool);
    bw_jobs_destroy(single);
    workload_deinit(&w);
    return allocs_per_frame == 0 ? 0 : 1;
}
