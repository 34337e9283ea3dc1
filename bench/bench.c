/* bench.c - the Blendwerk benchmark program (never a timed test).
 *
 * It runs the standard workload of ../shared/bench-ref (README.md there,
 * rebuilt from its recipe in workload.h): a 64-joint humanoid, four clips
 * of 1.0, 1.333, 1.667 and 2.0 s keyed at 30/s on every joint's
 * translation, rotation and scale, 1,000 characters with their own heap
 * buffers, random phases and random normalised layer weights, dt 1/60 s,
 * clip = character index % 4 for the one-clip cases. Before timing it
 * checks that its samples match a plain evaluation of the same keys.
 *
 * Measurements carry the yardstick's names and time the same work, so
 * their ratios to ref_bench are like for like; `pipe4` is what a user
 * calls (each character's bw_track_set of four playing tracks: advance,
 * compose, drain, then local-to-model) and `fused4` is the
 * bw_mix_run_clips kernel alone. The timing method is the yardstick's:
 * measurements run round-robin; per repetition each runs one untimed
 * frame of the whole crowd and then F timed frames; a block is clean when
 * thread CPU time / wall time >= 0.97; median and p10 (nearest rank) over
 * the clean blocks (all blocks if fewer than 3 are clean), in ns per joint
 * (per joint × clip for sample4_fwd).
 *
 *   blendwerk-bench [--quick] [--json] [--characters N] [--joints N]
 *                   [--reps R] [--frames F] [--threads N] [--only NAME]
 *
 * BW_SIMD=portable|sse2|avx2|avx512 forces a kernel path (see simd.h).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blendwerk/blendwerk.h"
#include "blendwerk/jobs.h"
#include "bench_common.h"
#include "simd.h"

#define CLIPS WL_CLIPS
#define FRAME_DT (1.0f / 60.0f)
static const int clip_intervals[CLIPS] = {30, 40, 50, 60};

static alloc_stats stats;
static bw_allocator counting = {counting_alloc, &stats};

/* ---- the workload ---- */
typedef struct character {
    float phase[CLIPS];
    float weight[CLIPS]; /* normalised to sum 1 */
    bw_pose sampled[CLIPS];
    bw_pose mixed;
    float (*model)[4][4];
    bw_track_set *set; /* the four clips as playing tracks (pipe4) */
} character;

typedef struct workload {
    int joints;
    wl_skeleton sk;
    wl_curves curves[CLIPS][WL_BASE_JOINTS];
    float duration[CLIPS];
    bw_rig *rig;
    bw_clip *clips[CLIPS];
    bw_binding *bindings[CLIPS];
    bw_pose rest;
    int count;
    character *chars;
    bw_mixer **mixers; /* one per thread */
    int threads;
    uint32_t rand_state; /* sample1_rand: one stream, as the yardstick */
    int full;            /* every buffer (not only pipe4's) */
} workload;

static void die(const char *what, bw_result r) { bench_die("blendwerk-bench", what, r); }

/* Bytes one character's buffers take, measured through the allocator. */
static long long character_init(workload *w, character *ch, uint32_t *rng)
{
    float sum = 0.0f;
    for (int c = 0; c < CLIPS; c++) {
        ch->phase[c] = wl_rand01(rng) * 10.0f;
        ch->weight[c] = 0.1f + wl_rand01(rng);
        sum += ch->weight[c];
    }
    for (int c = 0; c < CLIPS; c++) ch->weight[c] /= sum;
    for (int c = 0; c < CLIPS && w->full; c++)
        if (bw_pose_init(&ch->sampled[c], w->rig, &counting) != BW_OK) die("bw_pose_init", BW_ERR_OUT_OF_MEMORY);
    long long before = stats.bytes; /* from here: what the pipeline (pipe4) needs */
    if (bw_pose_init(&ch->mixed, w->rig, &counting) != BW_OK) die("bw_pose_init", BW_ERR_OUT_OF_MEMORY);
    bw_pose_set_rest(&ch->mixed, w->rig);
    ch->model = counting_alloc(&stats, NULL, 0, sizeof(float[4][4]) * (size_t)w->joints);
    bw_track_set_desc sd = {.rig = w->rig, .capacity = CLIPS, .allocator = counting};
    bw_result r = bw_track_set_create(&sd, &ch->set);
    if (r != BW_OK) die("bw_track_set_create", r);
    for (int c = 0; c < CLIPS; c++) {
        bw_play_desc pd = {.binding = w->bindings[c], .time = ch->phase[c], .weight = ch->weight[c]};
        r = bw_track_set_play(ch->set, &pd, NULL);
        if (r != BW_OK) die("bw_track_set_play", r);
    }
    return stats.bytes - before;
}

static long long workload_init(workload *w, int joints, int count, int threads, int full)
{
    memset(w, 0, sizeof *w);
    w->joints = joints;
    w->full = full;
    wl_skeleton_build(&w->sk, joints);
    uint32_t rng = 12345u;
    for (int c = 0; c < CLIPS; c++) {
        wl_curves_draw(clip_intervals[c], &rng, w->curves[c]);
        w->duration[c] = (float)clip_intervals[c] / WL_FPS;
    }
    w->rig = bench_make_rig(&w->sk, counting);
    for (int c = 0; c < CLIPS; c++) {
        w->clips[c] = bench_make_clip(&w->sk, w->curves[c], w->rig, clip_intervals[c], NULL, counting);
        bw_binding_desc bd = {.clip = w->clips[c], .rig = w->rig, .allocator = counting};
        bw_result r = bw_binding_create(&bd, &w->bindings[c], NULL);
        if (r != BW_OK) die("bw_binding_create", r);
    }
    if (bw_pose_init(&w->rest, w->rig, &counting) != BW_OK) die("bw_pose_init", BW_ERR_OUT_OF_MEMORY);
    bw_pose_set_rest(&w->rest, w->rig);
    w->count = count;
    w->threads = threads;
    w->rand_state = 0x9e3779b9u;
    w->mixers = calloc((size_t)threads, sizeof(bw_mixer *));
    for (int t = 0; t < threads; t++) {
        bw_mixer_desc md = {.rig = w->rig, .max_contributions = CLIPS, .allocator = counting};
        bw_result r = bw_mixer_create(&md, &w->mixers[t]);
        if (r != BW_OK) die("bw_mixer_create", r);
    }
    w->chars = calloc((size_t)count, sizeof(character));
    long long bytes = 0;
    for (int i = 0; i < count; i++) bytes = character_init(w, &w->chars[i], &rng);
    return bytes + (long long)sizeof(character);
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
    bw_pose_deinit(&w->rest);
    for (int c = 0; c < CLIPS; c++) {
        bw_binding_destroy(w->bindings[c]);
        bw_clip_destroy(w->clips[c]);
    }
    bw_rig_destroy(w->rig);
}

/* ---- the check: samples against a plain evaluation of the same keys ---- */

/* Index i of the key pair [i, i + 1] around t by binary search. */
static int plain_pair(const float *times, int n, float t)
{
    if (t <= times[0]) return 0;
    if (t >= times[n - 1]) return n - 2;
    int lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (times[mid] <= t) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* Worst differences of bw_sample_clip (on the chosen SIMD path) from the
 * plain lerp / nlerp of the keys: translation and scale in their units,
 * rotation as an angle in radians. */
static int check_samples(const workload *w, FILE *log)
{
    bw_pose p;
    if (bw_pose_init(&p, w->rig, NULL) != BW_OK) die("bw_pose_init", BW_ERR_OUT_OF_MEMORY);
    float worst_t = 0, worst_r = 0, worst_s = 0;
    uint32_t rng = 0x2545f491u;
    for (int c = 0; c < CLIPS; c++) {
        bw_track_desc td;
        bw_clip_track(w->clips[c], 0, &td);
        for (int k = 0; k < 50; k++) {
            float t = k == 0 ? 0.0f : k == 1 ? w->duration[c] : wl_rand01(&rng) * w->duration[c];
            bw_sample_clip(w->bindings[c], w->rig, t, &p);
            int i = plain_pair(td.times, td.key_count, t);
            float a = (t - td.times[i]) / (td.times[i + 1] - td.times[i]);
            a = a < 0 ? 0 : a > 1 ? 1 : a;
            for (int j = 0; j < w->joints; j++) {
                bw_track_desc tt, tr, ts;
                bw_clip_track(w->clips[c], 3 * j, &tt);
                bw_clip_track(w->clips[c], 3 * j + 1, &tr);
                bw_clip_track(w->clips[c], 3 * j + 2, &ts);
                const bw_transform *x = &p.joints[j];
                for (int d = 0; d < 3; d++) {
                    float et = tt.values[3 * i + d] + (tt.values[3 * i + 3 + d] - tt.values[3 * i + d]) * a;
                    float es = ts.values[3 * i + d] + (ts.values[3 * i + 3 + d] - ts.values[3 * i + d]) * a;
                    worst_t = fmaxf(worst_t, fabsf(x->t[d] - et));
                    worst_s = fmaxf(worst_s, fabsf(x->s[d] - es));
                }
                const float *q0 = tr.values + 4 * i, *q1 = q0 + 4;
                float sign = q0[0] * q1[0] + q0[1] * q1[1] + q0[2] * q1[2] + q0[3] * q1[3] < 0 ? -1.0f : 1.0f;
                double q[4], n = 0, dot = 0, gap = 0;
                for (int d = 0; d < 4; d++) q[d] = q0[d] + (sign * q1[d] - q0[d]) * a, n += q[d] * q[d];
                for (int d = 0; d < 4; d++) dot += x->r[d] * q[d];
                /* the angle between the rotations as 4 asin(|x − ±q| / 2), in
                 * double: 2 acos(dot) of float numbers cannot resolve less
                 * than about 7e-4 rad */
                for (int d = 0; d < 4; d++) {
                    double e = x->r[d] - (dot < 0 ? -1.0 : 1.0) * q[d] / sqrt(n);
                    gap += e * e;
                }
                worst_r = fmaxf(worst_r, (float)(4.0 * asin(fmin(sqrt(gap) / 2.0, 1.0))));
            }
        }
    }
    bw_pose_deinit(&p);
    fprintf(log, "check (%s path): samples vs plain lerp/nlerp of the same keys: translation %.2e, rotation %.2e rad "
           "(slerp vs nlerp), scale %.2e\n",
           bw_simd_path_name(bw_simd_active()), worst_t, worst_r, worst_s);
    /* Translation and scale are the same lerp (float rounding). Rotation:
     * we slerp where the yardstick nlerps; the two differ by 1.9e-4 rad at
     * most here (midway between the keys furthest apart), measured in
     * double; a wrong key pair or a broken kernel is 1e-2 or more. */
    return worst_t > 2e-6f || worst_s > 2e-6f || worst_r > 1e-3f;
}

/* ---- per-character steps ---- */
typedef enum kind {
    SAMPLE1_FWD,
    SAMPLE1_RAND,
    SAMPLE4_FWD,
    BLEND4_ONLY,
    SAMPLE4_BLEND4,
    L2M,
    PIPE1,
    PIPE4,
    FUSED4,
    KIND_COUNT
} kind;
static const char *const kind_names[KIND_COUNT] = {"sample1_fwd", "sample1_rand", "sample4_fwd", "blend4_only",
                                                   "sample4_blend4", "l2m", "pipe1", "pipe4", "fused4"};
static const int kind_forward[KIND_COUNT] = {1, 0, 1, 0, 1, 0, 1, 1, 1};
static const int kind_full[KIND_COUNT] = {1, 1, 1, 1, 1, 0, 0, 0, 0}; /* needs the sampled poses */

typedef struct frame_job {
    workload *w;
    kind k;
    int frame;
} frame_job;

static inline float clip_time(const workload *w, const character *ch, int c, int frame)
{
    return fmodf(ch->phase[c] + (float)frame * FRAME_DT, w->duration[c]);
}

static void blend4(workload *w, bw_mixer *mixer, character *ch)
{
    bw_contribution contrib[CLIPS];
    for (int c = 0; c < CLIPS; c++) contrib[c] = (bw_contribution){&ch->sampled[c], ch->weight[c], 0};
    bw_mix_run(mixer, &w->rest, contrib, CLIPS, &ch->mixed);
}

static void run_range(void *user, int begin, int end, int worker)
{
    frame_job *job = (frame_job *)user;
    workload *w = job->w;
    const int frame = job->frame;
    bw_mixer *mixer = w->mixers[worker];
    for (int i = begin; i < end; i++) {
        character *ch = &w->chars[i];
        const int l = i & 3;
        switch (job->k) {
        case SAMPLE1_FWD:
            bw_sample_clip(w->bindings[l], w->rig, clip_time(w, ch, l, frame), &ch->sampled[l]);
            break;
        case SAMPLE1_RAND: /* one shared stream: run single-threaded only */
            bw_sample_clip(w->bindings[l], w->rig, wl_rand01(&w->rand_state) * w->duration[l], &ch->sampled[l]);
            break;
        case SAMPLE4_FWD:
            for (int c = 0; c < CLIPS; c++)
                bw_sample_clip(w->bindings[c], w->rig, clip_time(w, ch, c, frame), &ch->sampled[c]);
            break;
        case BLEND4_ONLY: blend4(w, mixer, ch); break;
        case SAMPLE4_BLEND4:
            for (int c = 0; c < CLIPS; c++)
                bw_sample_clip(w->bindings[c], w->rig, clip_time(w, ch, c, frame), &ch->sampled[c]);
            blend4(w, mixer, ch);
            break;
        case L2M: bw_pose_local_to_model(w->rig, &ch->mixed, ch->model); break;
        case PIPE1:
            bw_sample_clip(w->bindings[l], w->rig, clip_time(w, ch, l, frame), &ch->mixed);
            bw_pose_local_to_model(w->rig, &ch->mixed, ch->model);
            break;
        case PIPE4:
            /* the product path: four playing tracks (clock, fades,
             * signals), composed by the fused mixer, then local-to-model */
            /* a crowd loop's cache hint: the next character's set is
             * fetched while this one's frame runs (play.h) */
            if (i + 1 < end) bw_track_set_prefetch(w->chars[i + 1].set);
            bw_track_set_advance(ch->set, FRAME_DT);
            bw_track_set_compose(ch->set, mixer, NULL, &ch->mixed);
            bw_track_set_drain(ch->set, NULL, NULL);
            bw_pose_local_to_model(w->rig, &ch->mixed, ch->model);
            break;
        case FUSED4: {
            bw_clip_contribution clips[CLIPS];
            for (int c = 0; c < CLIPS; c++)
                clips[c] = (bw_clip_contribution){w->bindings[c], clip_time(w, ch, c, frame), ch->weight[c], 0};
            bw_mix_run_clips(mixer, w->rig, &w->rest, clips, CLIPS, &ch->mixed);
            bw_pose_local_to_model(w->rig, &ch->mixed, ch->model);
            break;
        }
        default: break;
        }
    }
}

/* ---- timing ---- */
typedef struct series {
    double *all, *clean;
    int num_all, num_clean;
} series;

typedef struct result {
    const char *name;
    const char *unit;
    double median, p10, per_char; /* ns per unit; ns per character */
    int clean, blocks;
} result;

/* One block: an untimed re-warm frame, then `frames` timed frames of the
 * whole crowd (on the pool when jobs is not NULL). */
static void run_block(workload *w, bw_jobs *jobs, kind k, int *frame, int frames, series *s, int record)
{
    frame_job job = {w, k, (*frame)++};
    if (jobs) bw_jobs_run(jobs, w->count, 0, run_range, &job);
    else run_range(&job, 0, w->count, 0);
    double c0 = bench_now_ns(CLOCK_THREAD_CPUTIME_ID), t0 = bench_now_ns(CLOCK_MONOTONIC);
    for (int f = 0; f < frames; f++) {
        job.frame = (*frame)++;
        if (jobs) bw_jobs_run(jobs, w->count, 0, run_range, &job);
        else run_range(&job, 0, w->count, 0);
    }
    double t1 = bench_now_ns(CLOCK_MONOTONIC), c1 = bench_now_ns(CLOCK_THREAD_CPUTIME_ID);
    if (!record) return;
    double v = (t1 - t0) / ((double)frames * w->count);
    s->all[s->num_all++] = v;
    /* on the pool the calling thread waits part of the time: every block counts */
    if (jobs || (c1 - c0) / (t1 - t0) >= 0.97) s->clean[s->num_clean++] = v;
}

static result summarise(const series *s, const char *name, int per_clip, int joints)
{
    int use_clean = s->num_clean >= 3;
    int n = use_clean ? s->num_clean : s->num_all;
    double *v = malloc(sizeof(double) * (size_t)n);
    memcpy(v, use_clean ? s->clean : s->all, sizeof(double) * (size_t)n);
    double med, p10;
    bench_median_p10(v, n, &med, &p10);
    double per = (double)joints * (per_clip ? CLIPS : 1);
    result r = {name, per_clip ? "joint_clip" : "joint", med / per, p10 / per, med, s->num_clean, s->num_all};
    free(v);
    return r;
}

static int usage(void)
{
    fprintf(stderr, "usage: blendwerk-bench [--quick] [--json] [--characters N] [--joints N] [--reps R] "
                    "[--frames F] [--threads N] [--only NAME]\n");
    return 2;
}

int main(int argc, char **argv)
{
    int joints = WL_BASE_JOINTS, only = -1;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    bench_options o = {.count = 1000, .reps = 31, .quick_reps = 11, .frames = 4, .threads = ncpu > 0 ? (int)ncpu : 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (bench_common_option(argc, argv, &i, &o)) continue;
        if (!strcmp(a, "--joints") && next) joints = atoi(argv[++i]);
        else if (!strcmp(a, "--only") && next) {
            const char *name = argv[++i];
            for (int k = 0; k < KIND_COUNT; k++)
                if (!strcmp(name, kind_names[k])) only = k;
            if (only < 0) return usage();
        } else return usage();
    }
    const int json = o.json, count = o.count, reps = o.reps, frames = o.frames;
    int threads = o.threads;
    if (count < 1 || threads < 1 || reps < 1 || frames < 1 || joints < 1 || joints > WL_MAX_JOINTS) return usage();

    workload w;
    const int full = only < 0 || kind_full[only];
    long long bytes_per_character = workload_init(&w, joints, count, threads, full);
    if (check_samples(&w, json ? stderr : stdout)) { /* --json: stdout holds only the JSON */
        fprintf(stderr, "blendwerk-bench: samples do not match the plain evaluation of the keys\n");
        return 1;
    }
    bw_jobs *pool = NULL;
    bw_jobs_desc pool_desc = {.thread_count = threads};
    if (only < 0 && bw_jobs_create(&pool_desc, &pool) != BW_OK) {
        fprintf(stderr, "blendwerk-bench: cannot start threads\n");
        return 1;
    }

    /* mixed poses hold a blend for l2m, sampled poses something to blend */
    for (int k = 0; k < KIND_COUNT; k++) {
        if (!full && kind_full[k]) continue;
        frame_job prime = {&w, (kind)k, 0};
        run_range(&prime, 0, count, 0);
    }

    series s[KIND_COUNT + 1];
    for (int k = 0; k <= KIND_COUNT; k++) {
        s[k].all = malloc(sizeof(double) * (size_t)reps);
        s[k].clean = malloc(sizeof(double) * (size_t)reps);
        s[k].num_all = s[k].num_clean = 0;
    }
    /* one forward clock for the forward-playback measurements, one for the
     * others (as the yardstick) */
    int fwd_frame = 0, other_frame = 0;
    for (int r = 0; r < 1 + reps; r++)
        for (int k = 0; k < KIND_COUNT; k++) {
            if (only >= 0 && k != only) continue;
            run_block(&w, NULL, (kind)k, kind_forward[k] ? &fwd_frame : &other_frame, frames, &s[k], r >= 1);
        }
    result results[KIND_COUNT + 1];
    int nres = 0;
    for (int k = 0; k < KIND_COUNT; k++)
        if (only < 0 || k == only) results[nres++] = summarise(&s[k], kind_names[k], k == SAMPLE4_FWD, joints);

    double allocs_per_frame = 0, speedup = 0;
    if (pool) {
        /* allocations per frame after warm-up, over every kind of frame */
        long long calls_before = stats.calls;
        const int alloc_frames = 20;
        for (int f = 0; f < alloc_frames; f++)
            for (int k = 0; k < KIND_COUNT; k++) {
                frame_job job = {&w, (kind)k, f};
                if (k == SAMPLE1_RAND) run_range(&job, 0, count, 0);
                else bw_jobs_run(pool, count, 0, run_range, &job);
            }
        allocs_per_frame = (double)(stats.calls - calls_before) / alloc_frames;
        /* pipe4 on the whole pool, whole frames */
        for (int r = 0; r < 1 + reps; r++) run_block(&w, pool, PIPE4, &fwd_frame, frames, &s[KIND_COUNT], r >= 1);
        results[nres] = summarise(&s[KIND_COUNT], "pipe4_threads", 0, joints);
        for (int k = 0; k < nres; k++)
            if (!strcmp(results[k].name, "pipe4")) speedup = results[k].median / results[nres].median;
        nres++;
    }

    const char *path = bw_simd_path_name(bw_simd_active());
    if (json) {
        printf("{\"characters\":%d,\"joints\":%d,\"threads\":%d,\"simd\":\"%s\",\"measurements\":[", count, joints,
               threads, path);
        for (int k = 0; k < nres; k++)
            printf("%s{\"name\":\"%s\",\"unit\":\"%s\",\"median_ns\":%.3f,\"p10_ns\":%.3f,\"median_ns_per_char\":%.1f,"
                   "\"clean\":%d,\"blocks\":%d}",
                   k ? "," : "", results[k].name, results[k].unit, results[k].median, results[k].p10,
                   results[k].per_char, results[k].clean, results[k].blocks);
        printf("],\"speedup\":%.3f,\"allocations_per_frame\":%.3f,\"bytes_per_character\":%lld}\n", speedup,
               allocs_per_frame, bytes_per_character);
    } else {
        printf("blendwerk-bench: %d characters x %d joints, simd path %s, %d reps x %d frames\n", count, joints, path,
               reps, frames);
        for (int k = 0; k < nres; k++)
            printf("%s median_ns=%.3f p10_ns=%.3f unit=%s median_ns_per_char=%.1f clean=%d/%d\n", results[k].name,
                   results[k].median, results[k].p10, results[k].unit, results[k].per_char, results[k].clean,
                   results[k].blocks);
        if (pool) {
            printf("pipe4 on %d threads: %.2fx one thread\n", threads, speedup);
            printf("allocations per frame after warm-up: %.3f\n", allocs_per_frame);
        }
        printf("bytes per character instance (pipe4: mixed pose, model matrices, track set): %lld\n",
               bytes_per_character);
    }
    for (int k = 0; k <= KIND_COUNT; k++) {
        free(s[k].all);
        free(s[k].clean);
    }
    bw_jobs_destroy(pool);
    workload_deinit(&w);
    return allocs_per_frame == 0 ? 0 : 1;
}
