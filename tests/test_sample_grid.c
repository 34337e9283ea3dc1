/* test_sample_grid.c - the uniform-grid fast path (clip_grid.c and
 * sample.c's sample_grid) against the straightforward per-track path
 * (bw_sample_track: key search, per-key easing, slerp), which serves as
 * the independent reference here. */
#include "blendwerk/blendwerk.h"
#include "check.h"
#include "clip_internal.h"
#include "simd.h"

#define JOINTS 6
#define KEYS 31

static bw_rig *make_rig(void)
{
    static const char *names[JOINTS] = {"hips", "spine", "neck", "head", "arm", "hand"};
    static const int parents[JOINTS] = {-1, 0, 1, 2, 1, 4};
    bw_rig_joint_desc j[JOINTS];
    for (int i = 0; i < JOINTS; i++) {
        j[i].name = names[i];
        j[i].parent = parents[i];
        j[i].rest = bw_transform_identity;
        j[i].rest.t[1] = 0.5f * (float)i; /* distinct rest values for unkeyed channels */
        j[i].rest.s[0] = 1.0f + 0.1f * (float)i;
    }
    bw_rig_desc d = {.joints = j, .joint_count = JOINTS};
    bw_rig *rig = NULL;
    CHECK_INT(bw_rig_create(&d, &rig, NULL), BW_OK);
    return rig;
}

/* Keys at start + k × spacing; big rotations (up to 170° between keys) so
 * the series and the trigonometric slerp branches are both exercised.
 * `uneven` moves one key off the grid; `eased` gives the tracks easing;
 * joint 3 (head) has only a rotation track, joint 5 (hand) a single
 * constant translation key. */
static bw_clip *make_clip(const bw_rig *rig, float start, float spacing, bool uneven, bool eased)
{
    static float times[KEYS], values[JOINTS][3][KEYS * 4], one_key_time = 0.0f, one_key_value[3] = {1, 2, 3};
    static unsigned char styles[KEYS];
    bw_track_desc tracks[JOINTS * 3];
    int n = 0;
    for (int k = 0; k < KEYS; k++) {
        times[k] = start + spacing * (float)k;
        styles[k] = BW_EASE_CUBIC;
    }
    if (uneven) times[10] += 0.3f * spacing;
    for (int j = 0; j < JOINTS; j++) {
        for (int k = 0; k < KEYS; k++) {
            float a = 0.7f * (float)k + (float)j, ang = (k % 5 == 4) ? 2.97f * (float)k : 0.3f * sinf(a) * (float)k;
            values[j][0][3 * k + 0] = sinf(a);
            values[j][0][3 * k + 1] = cosf(a);
            values[j][0][3 * k + 2] = 0.1f * (float)k;
            float ax = 0.48f, ay = 0.6f, az = 0.64f;
            values[j][1][4 * k + 0] = ax * sinf(ang / 2);
            values[j][1][4 * k + 1] = ay * sinf(ang / 2);
            values[j][1][4 * k + 2] = az * sinf(ang / 2);
            values[j][1][4 * k + 3] = cosf(ang / 2);
            values[j][2][3 * k + 0] = values[j][2][3 * k + 1] = values[j][2][3 * k + 2] = 1.0f + 0.2f * sinf(a);
        }
        const char *name = bw_rig_joint_name(rig, j);
        int p = bw_rig_joint_parent(rig, j);
        const char *parent = p < 0 ? "" : bw_rig_joint_name(rig, p);
        bw_channel ch[3] = {BW_CHANNEL_TRANSLATION, BW_CHANNEL_ROTATION, BW_CHANNEL_SCALE};
        for (int c = 0; c < 3; c++) {
            if (j == 3 && c != 1) continue;
            if (j == 5 && c != 0) continue;
            bw_track_desc *t = &tracks[n++];
            memset(t, 0, sizeof *t);
            t->parent = parent;
            t->joint = name;
            t->channel = ch[c];
            t->key_count = j == 5 ? 1 : KEYS;
            t->times = j == 5 ? &one_key_time : times;
            t->values = j == 5 ? one_key_value : values[j][c];
            t->styles = eased ? styles : NULL;
        }
    }
    bw_clip_desc desc = {0};
    desc.tracks = tracks;
    desc.track_count = n;
    bw_clip *clip = NULL;
    CHECK_INT(bw_clip_create(&desc, &clip, NULL), BW_OK);
    return clip;
}

/* The reference pose of a joint: each track by the per-track path,
 * unkeyed channels from the rig. */
static void reference_joint(const bw_clip *clip, const bw_rig *rig, int joint, float time, bw_transform *x)
{
    *x = bw_rig_rest_pose(rig)[joint];
    for (int i = 0; i < bw_clip_track_count(clip); i++) {
        bw_track_desc t;
        bw_clip_track(clip, i, &t);
        if (strcmp(t.joint, bw_rig_joint_name(rig, joint)) != 0) continue;
        float *dst = t.channel == BW_CHANNEL_TRANSLATION ? x->t : t.channel == BW_CHANNEL_ROTATION ? x->r : x->s;
        bw_sample_track(clip, i, time, dst);
    }
}

static void uniform_linear_clips_take_the_grid_and_match_the_reference(void)
{
    bw_rig *rig = make_rig();
    const float starts[] = {0.0f, 0.0417f};
    /* every kernel path this build and CPU run (simd.h; portable first),
     * each against the per-track reference at both grid starts */
    for (int s = 2 * BW_SIMD_PORTABLE; s < 2 * BW_SIMD_PATH_COUNT; s++) {
        const bw_sample_options so = {(bw_simd_path)(s / 2)}; /* per call: no global switch */
        if (!bw_simd_supported(so.simd)) continue;
        bw_clip *clip = make_clip(rig, starts[s % 2], 1.0f / 30.0f, false, false);
        CHECK(clip->grid != NULL);
        bw_binding *b = NULL;
        CHECK_INT(bw_binding_create(&(bw_binding_desc){.clip = clip, .rig = rig}, &b, NULL), BW_OK);
        CHECK(b->grid != NULL);
        bw_pose pose;
        CHECK_INT(bw_pose_init(&pose, rig, NULL), BW_OK);
        double worst = 0;
        /* before the first key, every in-between, exactly on keys, after */
        for (int i = -20; i <= 1100; i++) {
            float time = starts[s % 2] + (float)i * (1.0f / 1000.0f);
            bw_sample_clip_with(b, rig, time, &so, &pose);
            for (int j = 0; j < JOINTS; j++) {
                bw_transform ref;
                reference_joint(clip, rig, j, time, &ref);
                const bw_transform *got = &pose.joints[j];
                /* q and -q are the same rotation */
                float sign = (ref.r[0] * got->r[0] + ref.r[1] * got->r[1] + ref.r[2] * got->r[2] + ref.r[3] * got->r[3]) < 0 ? -1.0f : 1.0f;
                for (int c = 0; c < 3; c++) {
                    worst = fmax(worst, fabs(got->t[c] - ref.t[c]));
                    worst = fmax(worst, fabs(got->s[c] - ref.s[c]));
                }
                for (int c = 0; c < 4; c++) worst = fmax(worst, fabs(sign * got->r[c] - ref.r[c]));
                CHECK_NEAR(pose.coverage[j], 1.0, 0);
            }
        }
        printf("grid (%s) vs per-track, start %.4f: worst difference %.3g\n",
               bw_simd_path_name(so.simd), starts[s % 2], worst);
        CHECK(worst < 1e-6);
        /* the hand joint's single key holds everywhere; its rotation and
         * scale come from the rig */
        bw_sample_clip_with(b, rig, 0.5f, &so, &pose);
        CHECK_NEAR(pose.joints[5].t[0], 1, 0);
        CHECK_NEAR(pose.joints[5].t[2], 3, 0);
        CHECK_NEAR(pose.joints[5].s[0], 1.5, 1e-6);
        CHECK_NEAR(pose.joints[3].t[1], 1.5, 1e-6); /* head: rotation only, rest translation */
        bw_pose_deinit(&pose);
        bw_binding_destroy(b);
        bw_clip_destroy(clip);
    }
    bw_rig_destroy(rig);
}

static void eased_or_uneven_clips_keep_the_per_track_path(void)
{
    bw_rig *rig = make_rig();
    bw_clip *uneven = make_clip(rig, 0.0f, 1.0f / 30.0f, true, false);
    bw_clip *eased = make_clip(rig, 0.0f, 1.0f / 30.0f, false, true);
    CHECK(uneven->grid == NULL);
    CHECK(eased->grid == NULL);
    bw_clip_destroy(uneven);
    bw_clip_destroy(eased);
    bw_rig_destroy(rig);
}

/* 3,000 keys at 120 per second: key times far from 0 are rounded floats,
 * and sampling exactly at a key must still give that key (what the
 * per-track search gives), e.g. for BVH frames. */
static void sampling_exactly_on_a_key_gives_that_key_far_from_zero(void)
{
    bw_rig *rig = make_rig();
    enum { N = 3000 };
    static float times[N], values[N * 3];
    for (int k = 0; k < N; k++) {
        times[k] = (float)((double)k / 120.0);
        values[3 * k] = (float)k; /* a ramp: a wrong segment is off by whole units */
        values[3 * k + 1] = (float)(k % 7);
        values[3 * k + 2] = -(float)k;
    }
    bw_track_desc t = {"", "hips", BW_CHANNEL_TRANSLATION, BW_INTERP_EASED, N, times, values, NULL, NULL};
    bw_clip_desc desc = {0};
    desc.tracks = &t;
    desc.track_count = 1;
    bw_clip *clip = NULL;
    CHECK_INT(bw_clip_create(&desc, &clip, NULL), BW_OK);
    CHECK(clip->grid != NULL);
    bw_binding *b = NULL;
    CHECK_INT(bw_binding_create(&(bw_binding_desc){.clip = clip, .rig = rig}, &b, NULL), BW_OK);
    bw_pose pose;
    CHECK_INT(bw_pose_init(&pose, rig, NULL), BW_OK);
    int wrong = 0;
    for (int k = 0; k < N; k++) {
        bw_sample_clip(b, rig, times[k], &pose);
        wrong += pose.joints[0].t[0] != (float)k || pose.joints[0].t[1] != (float)(k % 7);
    }
    CHECK_INT(wrong, 0);
    bw_pose_deinit(&pose);
    bw_binding_destroy(b);
    bw_clip_destroy(clip);
    bw_rig_destroy(rig);
}

/* 5,000 joints keyed by name only (parent unknown): the grid groups the
 * 10,000 tracks into 5,000 joints in rig order (a dense binding), every
 * name-only match is unambiguous, and samples hold hand-computed values.
 * Building both is linear in the track count (hash tables, no pairwise
 * name comparisons), which keeps this test quick even under sanitizers. */
static void thousands_of_joints_group_and_bind_by_name(void)
{
    enum { N = 5000 };
    static char names[N][12];
    static bw_rig_joint_desc joints[N];
    static bw_track_desc tracks[2 * N];
    static float times[2] = {0.0f, 1.0f}, t_values[N][6], r_values[N][8];
    for (int j = 0; j < N; j++) {
        snprintf(names[j], sizeof names[j], "b%d", j);
        joints[j] = (bw_rig_joint_desc){names[j], j - 1, bw_transform_identity};
        float x = (float)j;
        float t[6] = {x, 0, 0, x + 1, 2, 0};
        memcpy(t_values[j], t, sizeof t);
        float r[8] = {0, 0, 0, 1, 0, 1, 0, 0}; /* identity to 180° about Y */
        memcpy(r_values[j], r, sizeof r);
        tracks[2 * j] = (bw_track_desc){NULL, names[j], BW_CHANNEL_TRANSLATION, BW_INTERP_EASED, 2, times, t_values[j],
                                        NULL, NULL};
        tracks[2 * j + 1] = (bw_track_desc){NULL, names[j], BW_CHANNEL_ROTATION, BW_INTERP_EASED, 2, times,
                                            r_values[j], NULL, NULL};
    }
    bw_rig_desc rd = {.joints = joints, .joint_count = N};
    bw_rig *rig = NULL;
    CHECK_INT(bw_rig_create(&rd, &rig, NULL), BW_OK);
    bw_clip_desc cd = {0};
    cd.tracks = tracks;
    cd.track_count = 2 * N;
    bw_clip *clip = NULL;
    CHECK_INT(bw_clip_create(&cd, &clip, NULL), BW_OK);
    if (!rig || !clip) return;
    CHECK(clip->grid != NULL);
    if (clip->grid) CHECK_INT(clip->grid->joint_count, N);
    bw_binding *b = NULL;
    CHECK_INT(bw_binding_create(&(bw_binding_desc){.clip = clip, .rig = rig}, &b, NULL), BW_OK);
    bw_bind_report rep = bw_binding_report(b);
    CHECK_INT(rep.bound, 2 * N);
    CHECK_INT(rep.by_name, 2 * N);
    CHECK_INT(rep.ambiguous, 0);
    /* no scale tracks: every joint takes its scale from the rig, so the
     * binding is not dense (the fused mixer samples it into scratch) */
    CHECK(b->grid != NULL && !b->grid->dense);
    if (b->grid) CHECK_INT(b->grid->fixup_count, N);
    bw_pose pose;
    CHECK_INT(bw_pose_init(&pose, rig, NULL), BW_OK);
    bw_sample_clip(b, rig, 0.5f, &pose);
    /* halfway: x = j + 0.5, y = 1; rotation 90° about Y = (0, sin 45°, 0, cos 45°) */
    const int probe[4] = {0, 1234, 4001, N - 1};
    for (int i = 0; i < 4; i++) {
        const bw_transform *x = &pose.joints[probe[i]];
        CHECK_NEAR(x->t[0], probe[i] + 0.5, 1e-3);
        CHECK_NEAR(x->t[1], 1.0, 1e-6);
        CHECK_NEAR(x->r[1], sqrt(0.5), 1e-6);
        CHECK_NEAR(x->r[3], sqrt(0.5), 1e-6);
    }
    bw_pose_deinit(&pose);
    bw_binding_destroy(b);
    bw_clip_destroy(clip);
    bw_rig_destroy(rig);
}

int main(void)
{
    RUN(thousands_of_joints_group_and_bind_by_name);
    RUN(sampling_exactly_on_a_key_gives_that_key_far_from_zero);
    RUN(uniform_linear_clips_take_the_grid_and_match_the_reference);
    RUN(eased_or_uneven_clips_keep_the_per_track_path);
    return check_summary();
}
