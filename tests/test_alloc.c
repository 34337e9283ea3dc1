/* test_alloc.c - the per-frame path never allocates.
 *
 * Every object is created through one counting allocator. After a short
 * warm-up the test runs 1,000 frames of advance + compose + drain with
 * markers firing, fades, stops, ENDED one-shots and new plays into freed
 * slots, and checks that the number of allocating calls did not change.
 */
#include <stdint.h>

#include "blendwerk/bind.h"
#include "blendwerk/clip.h"
#include "blendwerk/mix.h"
#include "blendwerk/play.h"
#include "blendwerk/pose.h"
#include "blendwerk/rig.h"
#include "check.h"
#include "clip_internal.h"
#include "test_alloc_counter.h"

#define JOINTS 20
#define CLIPS 4

typedef struct world {
    alloc_counter count;
    bw_allocator allocator;
    bw_rig *rig;
    bw_clip *clips[CLIPS];
    bw_binding *bindings[CLIPS];
    bw_track_set *set;
    bw_mixer *mixer;
    bw_pose out;
    bw_pose fused;                 /* bw_mix_run_clips' output */
    float (*model)[4][4];          /* local-to-model output */
    /* what the frames did, to show the loop exercised every path */
    int markers, loops, ended, stopped, plays, refused;
} world;

/* A 20-joint rig: a spine chain j0..j9 with two arms j10..j14 (on j5) and
 * j15..j19 (on j7). */
static bw_result build_rig(world *w)
{
    char names[JOINTS][16];
    bw_rig_joint_desc joints[JOINTS];
    for (int i = 0; i < JOINTS; i++) {
        snprintf(names[i], sizeof names[i], "j%d", i);
        int parent = i - 1;
        if (i == 10) parent = 5;
        if (i == 15) parent = 7;
        joints[i] = (bw_rig_joint_desc){names[i], parent, {{0, 0.1f * (float)i, 0}, {0, 0, 0, 1}, {1, 1, 1}}};
    }
    bw_rig_curve_desc curve = {"tail", BW_CURVE_ANGLE, 0.0f};
    bw_rig_desc desc = {.joints = joints, .joint_count = JOINTS, .curves = &curve, .curve_count = 1, .allocator = w->allocator};
    return bw_rig_create(&desc, &w->rig, NULL);
}

/* Clip c: a rotation track and a translation track on each of several
 * joints, markers every quarter of its length; clip 2 does not loop.
 * Clips 0 and 2 are linear on a uniform grid (the grid fast path); clip 1
 * has eased keys and an angle curve (the per-track path, key search,
 * easing, shortest-arc angles); clip 3 keys translation, rotation and
 * scale of every joint on the grid, so its binding is dense and compose
 * mixes it straight from the key rows. */
static bw_result build_clip(world *w, int c)
{
    static const float times[3] = {0.0f, 0.5f, 1.0f};
    float rot[12], pos[9];
    float s = 0.38268343f, co = 0.92387953f; /* sin, cos of 22.5° */
    float r0[4] = {0, 0, 0, 1}, r1[4] = {0, s, 0, co}, r2[4] = {s, 0, 0, co};
    memcpy(rot, r0, sizeof r0);
    memcpy(rot + 4, c == 1 ? r2 : r1, sizeof r1);
    memcpy(rot + 8, r0, sizeof r0);
    for (int k = 0; k < 3; k++) {
        pos[3 * k] = 0.1f * (float)(k + c);
        pos[3 * k + 1] = 0.5f;
        pos[3 * k + 2] = 0.0f;
    }
    static const unsigned char styles[3] = {BW_EASE_LINEAR, BW_EASE_CUBIC, BW_EASE_BOUNCE};
    static const unsigned char dirs[3] = {BW_EASE_IN, BW_EASE_IN_OUT, BW_EASE_OUT};
    static const float angles[3] = {3.0f, -3.0f, 3.0f}; /* crossing ±π */
    const unsigned char *st = c == 1 ? styles : NULL, *di = c == 1 ? dirs : NULL;
    static const float scale[9] = {1, 1, 1, 1.5f, 1.5f, 1.5f, 1, 1, 1};
    char names[JOINTS][16], parents[JOINTS][16];
    bw_track_desc tracks[3 * JOINTS + 1];
    int n = 0;
    for (int j = c == 3 ? 0 : c; j < JOINTS; j += c == 3 ? 1 : 2) {
        snprintf(names[j], sizeof names[j], "j%d", j);
        int parent = j == 0 ? -1 : (j == 10 ? 5 : (j == 15 ? 7 : j - 1));
        if (parent < 0) snprintf(parents[j], sizeof parents[j], "%s", "");
        else snprintf(parents[j], sizeof parents[j], "j%d", parent);
        tracks[n++] = (bw_track_desc){parents[j], names[j], BW_CHANNEL_ROTATION, BW_INTERP_EASED, 3, times, rot, st, di};
        tracks[n++] = (bw_track_desc){parents[j], names[j], BW_CHANNEL_TRANSLATION, BW_INTERP_EASED, 3, times, pos, st, di};
        if (c == 3)
            tracks[n++] =
                (bw_track_desc){parents[j], names[j], BW_CHANNEL_SCALE, BW_INTERP_EASED, 3, times, scale, NULL, NULL};
    }
    if (c == 1) tracks[n++] = (bw_track_desc){NULL, "tail", BW_CHANNEL_ANGLE, BW_INTERP_EASED, 3, times, angles, st, di};
    bw_marker_desc markers[4] = {{"q0", 0.0f}, {"q1", 0.25f}, {"q2", 0.5f}, {"q3", 0.75f}};
    bw_clip_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.name = c == 2 ? "oneshot" : "cycle";
    desc.tracks = tracks;
    desc.track_count = n;
    desc.markers = markers;
    desc.marker_count = 4;
    desc.length = 1.0f;
    desc.loop = c != 2;
    desc.allocator = w->allocator;
    bw_result res = bw_clip_create(&desc, &w->clips[c], NULL);
    if (res != BW_OK) return res;
    return bw_binding_create(&(bw_binding_desc){.clip = w->clips[c], .rig = w->rig, .allocator = w->allocator}, &w->bindings[c], NULL);
}

static int play(world *w, int c, float speed, float fade_in)
{
    bw_play_desc d = bw_play_desc_defaults(w->bindings[c]);
    d.speed = speed;
    d.fade_in = fade_in;
    d.priority = c == 2 ? 1 : 0;
    d.weight = c == 2 ? 0.6f : 1.0f;
    int h = -1;
    if (bw_track_set_play(w->set, &d, &h) == BW_OK) w->plays++;
    else w->refused++;
    return h;
}

/* Signals drive the scenario: a finished one-shot is stopped with a fade,
 * and every stopped track is replaced by a new play into its slot. */
static void on_signal(void *user, const bw_signal *s)
{
    world *w = user;
    switch (s->kind) {
    case BW_SIGNAL_MARKER: w->markers++; break;
    case BW_SIGNAL_LOOP: w->loops++; break;
    case BW_SIGNAL_ENDED:
        w->ended++;
        bw_track_set_stop(w->set, s->track, 0.2f);
        break;
    case BW_SIGNAL_STOPPED:
        w->stopped++;
        play(w, w->stopped % CLIPS, w->stopped % 2 ? 1.0f : -0.75f, 0.1f);
        break;
    }
}

static void run_frame(world *w, int i)
{
    const float dt = 1.0f / 60.0f;
    /* Every 97 frames stop the oldest looping track with a fade; every 131
     * frames start a one-shot (refused quietly when the set is full). */
    if (i % 97 == 0) {
        int handles[8];
        int n = bw_track_set_live_handles(w->set, handles, 8);
        for (int k = 0; k < n; k++) {
            if (bw_track_set_looping(w->set, handles[k]) && !bw_track_set_stopping(w->set, handles[k])) {
                bw_track_set_stop(w->set, handles[k], 0.3f);
                break;
            }
        }
    }
    if (i % 131 == 0) play(w, 2, 1.5f, 0.05f);
    if (i % 53 == 0) {
        int handles[8];
        int n = bw_track_set_live_handles(w->set, handles, 8);
        if (n > 0) bw_track_set_fade(w->set, handles[n - 1], 0.5f + 0.25f * (float)(i % 3), 0.2f);
    }
    bw_track_set_prefetch(w->set); /* a crowd loop's cache hint (play.h) */
    bw_track_set_advance(w->set, dt);
    /* the reload primitives and queries are allocation-free too */
    if (i % 7 == 0) {
        int handles[8];
        int n = bw_track_set_live_handles(w->set, handles, 8);
        bw_track_fade fade;
        for (int k = 0; k < n; k++) {
            CHECK_INT(bw_track_set_rebind(w->set, handles[k], bw_track_set_binding(w->set, handles[k])), BW_OK);
            CHECK(bw_track_set_fade_state(w->set, handles[k], &fade));
        }
        if (n > 0) CHECK_INT(bw_track_set_sample_track(w->set, handles[0], &w->fused), BW_OK);
    }
    bw_result res = bw_track_set_compose(w->set, w->mixer, NULL, &w->out);
    if (res != BW_OK) fprintf(stderr, "compose failed: %s\n", bw_result_name(res));
    CHECK_INT(res, BW_OK);
    bw_track_set_drain(w->set, on_signal, w);
    /* the fused sample + mix over both kinds of clip, and local-to-model */
    bw_clip_contribution clips[2] = {{w->bindings[0], 0.01f * (float)(i % 100), 0.5f, 0},
                                     {w->bindings[1], 0.013f * (float)(i % 77), 0.5f, 1}};
    bw_pose_set_rest(&w->fused, w->rig);
    CHECK_INT(bw_mix_run_clips(w->mixer, w->rig, NULL, clips, 2, &w->fused), BW_OK);
    bw_pose_local_to_model(w->rig, &w->out, w->model);
}

static void per_frame_path_does_not_allocate(void)
{
    static world w;
    memset(&w, 0, sizeof w);
    w.count = ALLOC_COUNTER(-1);
    w.allocator = (bw_allocator){alloc_counter_fn, &w.count};
    CHECK_INT(build_rig(&w), BW_OK);
    if (!w.rig) return;
    for (int c = 0; c < CLIPS; c++) CHECK_INT(build_clip(&w, c), BW_OK);
    bw_track_set_desc sd = {w.rig, 4, 64, w.allocator};
    CHECK_INT(bw_track_set_create(&sd, &w.set), BW_OK);
    bw_mixer_desc md = {w.rig, 4, w.allocator, false};
    CHECK_INT(bw_mixer_create(&md, &w.mixer), BW_OK);
    CHECK_INT(bw_pose_init(&w.out, w.rig, &w.allocator), BW_OK);
    CHECK_INT(bw_pose_init(&w.fused, w.rig, &w.allocator), BW_OK);
    w.model = alloc_counter_fn(&w.count, NULL, 0, sizeof(float[4][4]) * JOINTS);
    if (!w.set || !w.mixer || !w.bindings[CLIPS - 1] || !w.model) return;
    /* both sampling paths are in the counted loop */
    CHECK(w.clips[0]->grid != NULL);
    CHECK(w.clips[1]->grid == NULL);
    /* and compose's two kinds of input: dense (straight from the key rows)
     * and not (through the mixer's scratch poses) */
    CHECK(w.bindings[3]->grid && w.bindings[3]->grid->dense);
    CHECK(w.bindings[0]->grid && !w.bindings[0]->grid->dense);

    play(&w, 0, 1.0f, 0.0f);
    play(&w, 1, 1.25f, 0.2f);
    play(&w, 3, 0.8f, 0.0f);
    for (int i = 1; i <= 10; i++) run_frame(&w, i);
    long before = w.count.allocations;
    long frees_before = w.count.frees;
    int plays_before = w.plays;
    for (int i = 11; i <= 1010; i++) run_frame(&w, i);
    printf("allocations: %ld during setup and warm-up, %ld during 1000 frames "
           "(markers %d, loops %d, ended %d, stopped %d, plays %d, refused %d)\n",
           before, w.count.allocations - before, w.markers, w.loops, w.ended, w.stopped, w.plays, w.refused);
    CHECK_INT(w.count.allocations, before);
    CHECK_INT(w.count.frees, frees_before);
    /* the loop really did exercise every path */
    CHECK(w.markers > 100);
    CHECK(w.loops > 10);
    CHECK(w.ended > 0);
    CHECK(w.stopped > 3);
    CHECK(w.plays > plays_before + 3);
    CHECK_INT(bw_track_set_dropped_signals(w.set), 0);
    for (int j = 0; j < JOINTS; j++) {
        CHECK(isfinite(w.out.joints[j].t[0]) && isfinite(w.out.joints[j].r[3]));
    }

    CHECK(isfinite(w.fused.curves[0]) && w.fused.curve_coverage[0] > 0.0f); /* the angle curve was mixed */
    bw_pose_deinit(&w.out);
    bw_pose_deinit(&w.fused);
    alloc_counter_fn(&w.count, w.model, sizeof(float[4][4]) * JOINTS, 0);
    bw_mixer_destroy(w.mixer);
    bw_track_set_destroy(w.set);
    for (int c = 0; c < CLIPS; c++) {
        bw_binding_destroy(w.bindings[c]);
        bw_clip_destroy(w.clips[c]);
    }
    bw_rig_destroy(w.rig);
    CHECK_INT(w.count.frees, w.count.blocks); /* nothing leaked or freed twice */
    CHECK_INT(w.count.live_blocks, 0);
    CHECK_INT(w.count.live_bytes, 0); /* every free named the size it was given */
}

int main(void)
{
    RUN(per_frame_path_does_not_allocate);
    return check_summary();
}
