/* test_clip.c - clip creation, validation, keyframe sequences, queries and
 * the compile cache. */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "blendwerk/clip.h"
#include "blendwerk/sample.h"
#include "check.h"
#include "fixtures.h"
#include "test_alloc_counter.h"
#include "clip_internal.h"

/* ---- fixtures ---- */
static const float T3[3] = {0.0f, 0.5f, 1.0f};
static const float POS3[9] = {0, 0, 0, 1, 2, 3, 2, 4, 6};

static bw_track_desc translation_track(const char *parent, const char *joint)
{
    bw_track_desc t = {parent, joint, BW_CHANNEL_TRANSLATION, BW_INTERP_EASED, 3, T3, POS3, NULL, NULL};
    return t;
}

static void create_should_copy_tracks_and_answer_queries(void)
{
    bw_track_desc tracks[2] = {translation_track("root", "Hips"), translation_track("Hips", "Spine")};
    float rot_times[2] = {0.25f, 0.75f};
    float rot_values[8] = {0, 0, 0, 1, 0, 1, 0, 0};
    tracks[1].channel = BW_CHANNEL_ROTATION;
    tracks[1].key_count = 2;
    tracks[1].times = rot_times;
    tracks[1].values = rot_values;
    bw_marker_desc markers[3] = {{"b", 0.5f}, {"a", 0.25f}, {"c", 0.5f}};
    bw_clip_desc desc = {.name = "walk", .tracks = tracks, .track_count = 2, .markers = markers,
                         .marker_count = 3, .loop = true};
    bw_clip *clip = NULL;
    bw_error err;
    CHECK_INT(bw_clip_create(&desc, &clip, &err), BW_OK);
    if (!clip) return;
    CHECK_STR(bw_clip_name(clip), "walk");
    CHECK(bw_clip_loop(clip));
    CHECK_NEAR(bw_clip_length(clip), 1.0, 0); /* last key time */
    CHECK_INT(bw_clip_track_count(clip), 2);
    CHECK_INT(bw_clip_sequence_id(clip), 0);
    CHECK_INT(bw_clip_revision(clip), 0);
    CHECK(bw_clip_serial(clip) != 0);

    bw_track_desc out;
    CHECK_INT(bw_clip_track(clip, 1, &out), BW_OK);
    CHECK_STR(out.joint, "Spine");
    CHECK_STR(out.parent, "Hips");
    CHECK(out.joint != tracks[1].joint); /* copied, not borrowed */
    CHECK(out.values != rot_values);
    CHECK_INT(out.channel, BW_CHANNEL_ROTATION);
    CHECK_INT(out.key_count, 2);
    CHECK_NEAR(out.times[1], 0.75, 0);
    CHECK_NEAR(out.values[5], 1.0, 0);
    CHECK(out.styles == NULL); /* all-linear tracks store no easing */
    CHECK_INT(bw_clip_track(clip, 2, &out), BW_ERR_RANGE);
    CHECK_INT(bw_clip_track(clip, -1, &out), BW_ERR_RANGE);
    CHECK_INT(bw_clip_track(NULL, 0, &out), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_clip_track(clip, 0, NULL), BW_ERR_INVALID_ARGUMENT);

    /* markers sorted by time, stable for equal times: a(0.25), b(0.5), c(0.5) */
    CHECK_INT(bw_clip_marker_count(clip), 3);
    CHECK_STR(bw_clip_marker_name(clip, 0), "a");
    CHECK_STR(bw_clip_marker_name(clip, 1), "b");
    CHECK_STR(bw_clip_marker_name(clip, 2), "c");
    CHECK_NEAR(bw_clip_marker_time(clip, 0), 0.25, 0);
    CHECK(bw_clip_marker_name(clip, 3) == NULL);
    CHECK(isnan(bw_clip_marker_time(clip, -1)));
    bw_clip_destroy(clip);
    bw_clip_destroy(NULL); /* no-op */
}

static void null_queries_should_return_defaults(void)
{
    CHECK_STR(bw_clip_name(NULL), "");
    CHECK_NEAR(bw_clip_length(NULL), 0, 0);
    CHECK(!bw_clip_loop(NULL));
    CHECK_INT(bw_clip_track_count(NULL), 0);
    CHECK_INT(bw_clip_marker_count(NULL), 0);
    CHECK_INT(bw_clip_serial(NULL), 0);
    CHECK_INT(bw_channel_width(BW_CHANNEL_ROTATION), 4);
    CHECK_INT(bw_channel_width(BW_CHANNEL_ANGLE), 1);
    CHECK_INT(bw_channel_width((bw_channel)42), 0);
}

static void length_should_follow_the_rules(void)
{
    bw_clip *clip = NULL;
    /* explicit length wins over the last key */
    bw_track_desc t = translation_track("", "root");
    bw_clip_desc desc = {.tracks = &t, .track_count = 1, .length = 2.5f};
    CHECK_INT(bw_clip_create(&desc, &clip, NULL), BW_OK);
    CHECK_NEAR(bw_clip_length(clip), 2.5, 0);
    CHECK_STR(bw_clip_name(clip), ""); /* unnamed */
    bw_clip_destroy(clip);
    /* a marker after the last key extends the length */
    bw_marker_desc m = {"end", 1.5f};
    desc.length = 0.0f;
    desc.markers = &m;
    desc.marker_count = 1;
    CHECK_INT(bw_clip_create(&desc, &clip, NULL), BW_OK);
    CHECK_NEAR(bw_clip_length(clip), 1.5, 0);
    bw_clip_destroy(clip);
    /* keys all at 0: length 0 */
    float zero_time = 0.0f, v[3] = {1, 2, 3};
    bw_track_desc z = {"", "root", BW_CHANNEL_SCALE, BW_INTERP_EASED, 1, &zero_time, v, NULL, NULL};
    bw_clip_desc zd = {.tracks = &z, .track_count = 1, .length = -1.0f};
    CHECK_INT(bw_clip_create(&zd, &clip, NULL), BW_OK);
    CHECK_NEAR(bw_clip_length(clip), 0, 0);
    bw_clip_destroy(clip);
    /* no tracks and no markers is valid and covers nothing */
    bw_clip_desc empty = {.name = "nothing"};
    CHECK_INT(bw_clip_create(&empty, &clip, NULL), BW_OK);
    CHECK_NEAR(bw_clip_length(clip), 0, 0);
    CHECK_INT(bw_clip_track_count(clip), 0);
    bw_clip_destroy(clip);
    /* keys only at negative times: length clamps to 0 */
    float neg_time = -1.0f;
    z.times = &neg_time;
    CHECK_INT(bw_clip_create(&zd, &clip, NULL), BW_OK);
    CHECK_NEAR(bw_clip_length(clip), 0, 0);
    bw_clip_destroy(clip);
}

/* Create a one-track clip expecting failure `code`; the output must stay
 * untouched and the message must contain each of the given fragments. */
static void expect_track_failure(const bw_track_desc *t, bw_result code, const char *frag1, const char *frag2)
{
    bw_clip_desc desc = {.tracks = t, .track_count = 1};
    bw_clip *sentinel = (bw_clip *)&desc, *clip = sentinel;
    bw_error err;
    memset(&err, 0, sizeof err);
    CHECK_INT(bw_clip_create(&desc, &clip, &err), code);
    CHECK(clip == sentinel);
    CHECK_INT(err.code, code);
    if (frag1) CHECK_CONTAINS(err.message, frag1);
    if (frag2) CHECK_CONTAINS(err.message, frag2);
    if (clip != sentinel) bw_clip_destroy(clip);
}

static void bad_keys_should_fail_with_clear_messages(void)
{
    float times[3] = {0.0f, NAN, 1.0f};
    float values[12] = {0};
    bw_track_desc t = {"Spine", "mixamorig:Hips", BW_CHANNEL_TRANSLATION, BW_INTERP_EASED, 3, times, values,
                       NULL, NULL};
    expect_track_failure(&t, BW_ERR_NON_FINITE, "mixamorig:Hips", "key 1");
    times[1] = INFINITY;
    expect_track_failure(&t, BW_ERR_NON_FINITE, "translation", "key 1");
    /* unsorted and duplicate times */
    times[1] = -0.5f;
    expect_track_failure(&t, BW_ERR_UNSORTED, "key 1", "Spine");
    {
        bw_clip_desc one = {.tracks = &t, .track_count = 1};
        bw_clip *c = NULL;
        bw_error e;
        CHECK_INT(bw_clip_create(&one, &c, &e), BW_ERR_UNSORTED);
        CHECK_STR(e.where, "tracks[0].times[1]");
        CHECK_CONTAINS(e.message, "track 0, joint \"mixamorig:Hips\" (parent \"Spine\") translation");
    }
    times[1] = 0.0f;
    expect_track_failure(&t, BW_ERR_DUPLICATE, "keys 0 and 1", NULL);
    times[1] = 0.5f;
    /* non-finite value */
    values[7] = NAN;
    expect_track_failure(&t, BW_ERR_NON_FINITE, "key 2 value", NULL);
    values[7] = -INFINITY;
    expect_track_failure(&t, BW_ERR_NON_FINITE, "key 2 value", NULL);
    values[7] = 0.0f;
    /* empty track, negative count, NULL arrays */
    t.key_count = 0;
    expect_track_failure(&t, BW_ERR_EMPTY, "mixamorig:Hips", "no keys");
    t.key_count = -2;
    expect_track_failure(&t, BW_ERR_INVALID_ARGUMENT, "negative", NULL);
    t.key_count = 3;
    t.times = NULL;
    expect_track_failure(&t, BW_ERR_INVALID_ARGUMENT, "NULL", NULL);
    t.times = times;
    /* zero quaternion */
    float q[12] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1};
    t.channel = BW_CHANNEL_ROTATION;
    t.values = q;
    expect_track_failure(&t, BW_ERR_NON_FINITE, "zero quaternion", "key 1");
    /* unknown channel, interpolation and easing */
    t.values = values;
    t.channel = (bw_channel)17;
    expect_track_failure(&t, BW_ERR_INVALID_ARGUMENT, "channel", NULL);
    t.channel = BW_CHANNEL_TRANSLATION;
    t.interp = (bw_interp)5;
    expect_track_failure(&t, BW_ERR_INVALID_ARGUMENT, "interpolation", NULL);
    t.interp = BW_INTERP_EASED;
    unsigned char styles[3] = {0, BW_EASE_STYLE_COUNT, 0}, dirs[3] = {0, 0, 3};
    t.styles = styles;
    expect_track_failure(&t, BW_ERR_INVALID_ARGUMENT, "easing style", "key 1");
    styles[1] = BW_EASE_QUAD;
    t.dirs = dirs;
    expect_track_failure(&t, BW_ERR_INVALID_ARGUMENT, "easing direction", "key 2");
    t.styles = NULL;
    t.dirs = NULL;
    /* missing joint name */
    t.joint = NULL;
    expect_track_failure(&t, BW_ERR_INVALID_ARGUMENT, "name", NULL);
    t.joint = "";
    expect_track_failure(&t, BW_ERR_INVALID_ARGUMENT, "name", NULL);
}

static void bad_clip_desc_should_fail(void)
{
    bw_clip *clip = NULL;
    bw_error err;
    CHECK_INT(bw_clip_create(NULL, &clip, &err), BW_ERR_INVALID_ARGUMENT);
    bw_clip_desc desc = {.track_count = 1}; /* tracks NULL */
    CHECK_INT(bw_clip_create(&desc, &clip, &err), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_clip_create(&desc, NULL, &err), BW_ERR_INVALID_ARGUMENT);
    bw_clip_desc neg = {.marker_count = -1};
    CHECK_INT(bw_clip_create(&neg, &clip, &err), BW_ERR_INVALID_ARGUMENT);
    bw_clip_desc nan_len = {.length = NAN};
    CHECK_INT(bw_clip_create(&nan_len, &clip, &err), BW_ERR_NON_FINITE);
    bw_marker_desc m = {"step", INFINITY};
    bw_clip_desc bad_marker = {.markers = &m, .marker_count = 1};
    CHECK_INT(bw_clip_create(&bad_marker, &clip, &err), BW_ERR_NON_FINITE);
    CHECK_CONTAINS(err.message, "step");
    m.name = NULL;
    m.time = 0.0f;
    CHECK_INT(bw_clip_create(&bad_marker, &clip, NULL), BW_ERR_INVALID_ARGUMENT); /* NULL err is fine */
    CHECK(clip == NULL);
}

static void duplicate_targets_should_be_rejected(void)
{
    bw_track_desc tracks[4] = {translation_track("root", "Hips"), translation_track("root", "Hips"),
                               translation_track(NULL, "Hips"), translation_track("other", "Hips")};
    bw_clip_desc desc = {.tracks = tracks, .track_count = 2};
    bw_clip *clip = NULL;
    bw_error err;
    CHECK_INT(bw_clip_create(&desc, &clip, &err), BW_ERR_DUPLICATE);
    CHECK_CONTAINS(err.message, "tracks 0 and 1");
    CHECK_CONTAINS(err.message, "Hips");
    /* same joint name under other parents (or unknown parent) is not a duplicate */
    desc.tracks = tracks + 1;
    desc.track_count = 3;
    CHECK_INT(bw_clip_create(&desc, &clip, &err), BW_OK);
    bw_clip_destroy(clip);
    /* a float and an angle track of the same curve both drive the curve */
    float tv[1] = {0}, vv[1] = {0};
    bw_track_desc curves[2] = {{NULL, "blink", BW_CHANNEL_FLOAT, BW_INTERP_EASED, 1, tv, vv, NULL, NULL},
                               {"ignored", "blink", BW_CHANNEL_ANGLE, BW_INTERP_EASED, 1, tv, vv, NULL, NULL}};
    bw_clip_desc cd = {.tracks = curves, .track_count = 2};
    CHECK_INT(bw_clip_create(&cd, &clip, &err), BW_ERR_DUPLICATE);
}

static void rotations_should_be_normalized_on_creation(void)
{
    /* (0, 3, 0, 4) has norm 5: stored as (0, 0.6, 0, 0.8); (0,0,0,2) as identity */
    float times[2] = {0, 1};
    float q[8] = {0, 3, 0, 4, 0, 0, 0, 2};
    bw_track_desc t = {"", "root", BW_CHANNEL_ROTATION, BW_INTERP_EASED, 2, times, q, NULL, NULL};
    bw_clip_desc desc = {.tracks = &t, .track_count = 1};
    bw_clip *clip = NULL;
    CHECK_INT(bw_clip_create(&desc, &clip, NULL), BW_OK);
    bw_track_desc out;
    bw_clip_track(clip, 0, &out);
    CHECK_NEAR(out.values[1], 0.6, 1e-7);
    CHECK_NEAR(out.values[3], 0.8, 1e-7);
    CHECK_NEAR(out.values[7], 1.0, 0);
    CHECK_NEAR(q[1], 3.0, 0); /* the caller's array is not modified */
    bw_clip_destroy(clip);

    /* CUBICSPLINE: value (0,0,0,2) with in-tangent (0,0,2,0) and out-tangent
     * (4,0,0,0): all three scale by 1/2 -> (0,0,1,0), (0,0,0,1), (2,0,0,0) */
    float cq[12] = {0, 0, 2, 0, 0, 0, 0, 2, 4, 0, 0, 0};
    bw_track_desc c = {"", "root", BW_CHANNEL_ROTATION, BW_INTERP_CUBICSPLINE, 1, times, cq, NULL, NULL};
    desc.tracks = &c;
    CHECK_INT(bw_clip_create(&desc, &clip, NULL), BW_OK);
    bw_clip_track(clip, 0, &out);
    CHECK_NEAR(out.values[2], 1.0, 0);
    CHECK_NEAR(out.values[7], 1.0, 0);
    CHECK_NEAR(out.values[8], 2.0, 0);
    bw_clip_destroy(clip);
    /* a tiny value with a huge tangent would overflow when normalized */
    float big[12] = {3e38f, 0, 0, 0, 0, 0, 0, 1e-3f, 0, 0, 0, 0};
    c.values = big;
    CHECK_INT(bw_clip_create(&desc, &clip, NULL), BW_ERR_NON_FINITE);
}

static void uniform_flag_should_detect_even_spacing(void)
{
    /* 31 keys at i/30 s (float-rounded): uniform, spacing 1/30 */
    float times[31], values[31];
    for (int i = 0; i < 31; i++) {
        times[i] = (float)i / 30.0f;
        values[i] = (float)i;
    }
    float uneven[4] = {0.0f, 0.1f, 0.3f, 0.4f};
    float single = 0.5f;
    bw_track_desc tracks[3] = {
        {NULL, "a", BW_CHANNEL_FLOAT, BW_INTERP_EASED, 31, times, values, NULL, NULL},
        {NULL, "b", BW_CHANNEL_FLOAT, BW_INTERP_EASED, 4, uneven, values, NULL, NULL},
        {NULL, "c", BW_CHANNEL_FLOAT, BW_INTERP_EASED, 1, &single, values, NULL, NULL},
    };
    bw_clip_desc desc = {.tracks = tracks, .track_count = 3};
    bw_clip *clip = NULL;
    CHECK_INT(bw_clip_create(&desc, &clip, NULL), BW_OK);
    if (!clip) return;
    CHECK(clip->tracks[0].uniform);
    CHECK_NEAR(clip->tracks[0].spacing, 1.0 / 30.0, 1e-8);
    CHECK(!clip->tracks[1].uniform);
    CHECK(!clip->tracks[2].uniform);
    CHECK_NEAR(clip->tracks[2].spacing, 0, 0);
    /* the documented layout: one track's times then its values, contiguous */
    CHECK(clip->tracks[0].values == clip->tracks[0].times + 31);
    CHECK(clip->tracks[1].times == clip->tracks[0].values + 31);
    CHECK_INT(clip->tracks[0].stride, 1);
    bw_clip_destroy(clip);
}

/* The first key at or after t, by a plain scan: what bw_track_find_key
 * returns, by binary search or (uniform tracks) from the grid's guess. */
static int first_key_not_before(const bw_track_data *t, float time)
{
    int i = 0;
    while (i < t->key_count && t->times[i] < time) i++;
    return i;
}

/* Uniform tracks near 0 and far from it (keys at 5000 + i/30 s round to
 * ulps of 4.9e-4, so the grid guess is off by one at some keys): on every
 * key, midway, a float step either side of each key, past both ends, ±inf
 * and NaN, the guess walks to the scan's index. */
static void uniform_key_search_should_match_a_scan(void)
{
    const double starts[] = {0.0, -2.5, 5000.0};
    for (int s = 0; s < 3; s++) {
        float times[61], values[61];
        for (int i = 0; i < 61; i++) {
            times[i] = (float)(starts[s] + (double)i / 30.0);
            values[i] = (float)i;
        }
        bw_track_desc td = {NULL, "a", BW_CHANNEL_FLOAT, BW_INTERP_EASED, 61, times, values, NULL, NULL};
        bw_clip_desc desc = {.tracks = &td, .track_count = 1};
        bw_clip *clip = NULL;
        CHECK_INT(bw_clip_create(&desc, &clip, NULL), BW_OK);
        if (!clip) return;
        const bw_track_data *t = &clip->tracks[0];
        CHECK(t->uniform);
        int wrong = 0, probes = 0;
        for (int i = 0; i < 61; i++) {
            const float at[] = {times[i], nextafterf(times[i], -INFINITY), nextafterf(times[i], INFINITY),
                                i < 60 ? 0.5f * (times[i] + times[i + 1]) : times[i] + 1.0f, times[i] - 100.0f};
            for (int k = 0; k < 5; k++, probes++) wrong += bw_track_find_key(t, at[k]) != first_key_not_before(t, at[k]);
        }
        CHECK_INT(wrong, 0);
        CHECK_INT(probes, 305);
        CHECK_INT(bw_track_find_key(t, INFINITY), 61);
        CHECK_INT(bw_track_find_key(t, -INFINITY), 0);
        CHECK_INT(bw_track_find_key(t, NAN), 0);
        CHECK_INT(bw_track_find_key(t, times[17]), 17); /* on a key: that key */
        bw_clip_destroy(clip);
    }
}

static void easing_should_be_stored_only_when_needed(void)
{
    float times[2] = {0, 1}, values[2] = {0, 1};
    unsigned char linear[2] = {BW_EASE_LINEAR, BW_EASE_LINEAR}, eased[2] = {BW_EASE_LINEAR, BW_EASE_QUAD};
    bw_track_desc tracks[2] = {{NULL, "a", BW_CHANNEL_FLOAT, BW_INTERP_EASED, 2, times, values, linear, NULL},
                               {NULL, "b", BW_CHANNEL_FLOAT, BW_INTERP_EASED, 2, times, values, eased, NULL}};
    bw_clip_desc desc = {.tracks = tracks, .track_count = 2};
    bw_clip *clip = NULL;
    CHECK_INT(bw_clip_create(&desc, &clip, NULL), BW_OK);
    bw_track_desc out;
    bw_clip_track(clip, 0, &out);
    CHECK(out.styles == NULL && out.dirs == NULL);
    bw_clip_track(clip, 1, &out);
    CHECK(out.styles != NULL && out.dirs != NULL);
    if (out.styles) {
        CHECK_INT(out.styles[1], BW_EASE_QUAD);
        CHECK_INT(out.dirs[1], BW_EASE_IN); /* dirs NULL means "in" */
    }
    bw_clip_destroy(clip);
}

/* ---- sequences ---- */

static bw_joint_key jkey(float time, unsigned flags)
{
    bw_joint_key k;
    memset(&k, 0, sizeof k);
    k.time = time;
    k.flags = flags;
    k.r[3] = 1.0f;
    k.s[0] = k.s[1] = k.s[2] = 1.0f;
    k.pose_weight = 1.0f;
    return k;
}

static void sequence_should_split_into_channel_tracks(void)
{
    bw_joint_key keys[3] = {jkey(0.0f, BW_KEY_T | BW_KEY_R), jkey(0.5f, BW_KEY_R | BW_KEY_MASK_WEIGHT),
                            jkey(1.0f, BW_KEY_T | BW_KEY_R)};
    keys[0].t[0] = 1.0f;
    keys[2].t[0] = 3.0f;
    keys[2].style = BW_EASE_CUBIC;
    keys[2].dir = BW_EASE_OUT;
    keys[1].mask_weight = 0.25f;
    keys[1].r[1] = 2.0f; /* (0,2,0,1) -> normalized (0, 2/sqrt5, 0, 1/sqrt5) */
    bw_joint_keys joints[1] = {{"Hips", "Spine", keys, 3}};
    float ct[2] = {0.0f, 1.0f}, cv[2] = {0.1f, 0.9f};
    bw_curve_keys curves[1] = {{"jawOpen", true, ct, cv, NULL, NULL, 2}};
    bw_marker_desc markers[2] = {{"foot_r", 0.75f}, {"foot_l", 0.25f}};
    bw_sequence_desc desc = {.sequence_id = 77, .revision = 3, .name = "seq", .joints = joints, .joint_count = 1,
                             .curves = curves, .curve_count = 1, .markers = markers, .marker_count = 2,
                             .loop = true};
    bw_clip *clip = NULL;
    bw_error err;
    CHECK_INT(bw_clip_compile_sequence(&desc, &clip, &err), BW_OK);
    if (!clip) return;
    CHECK_INT(bw_clip_sequence_id(clip), 77);
    CHECK_INT(bw_clip_revision(clip), 3);
    CHECK_STR(bw_clip_name(clip), "seq");
    CHECK(bw_clip_loop(clip));
    CHECK_NEAR(bw_clip_length(clip), 1.0, 0);
    /* tracks in order T, R, MW for the joint, then the curve */
    CHECK_INT(bw_clip_track_count(clip), 4);
    bw_track_desc t;
    bw_clip_track(clip, 0, &t);
    CHECK_INT(t.channel, BW_CHANNEL_TRANSLATION);
    CHECK_INT(t.key_count, 2);
    CHECK_STR(t.parent, "Hips");
    CHECK_STR(t.joint, "Spine");
    CHECK_NEAR(t.times[1], 1.0, 0);
    CHECK_NEAR(t.values[3], 3.0, 0);
    CHECK(t.styles != NULL);
    if (t.styles) {
        CHECK_INT(t.styles[1], BW_EASE_CUBIC);
        CHECK_INT(t.dirs[1], BW_EASE_OUT);
    }
    bw_clip_track(clip, 1, &t);
    CHECK_INT(t.channel, BW_CHANNEL_ROTATION);
    CHECK_INT(t.key_count, 3);
    CHECK_NEAR(t.values[5], 2.0 / sqrt(5.0), 1e-6);
    CHECK_NEAR(t.values[7], 1.0 / sqrt(5.0), 1e-6);
    bw_clip_track(clip, 2, &t);
    CHECK_INT(t.channel, BW_CHANNEL_MASK_WEIGHT);
    CHECK_INT(t.key_count, 1);
    CHECK_NEAR(t.times[0], 0.5, 0);
    CHECK_NEAR(t.values[0], 0.25, 0);
    bw_clip_track(clip, 3, &t);
    CHECK_INT(t.channel, BW_CHANNEL_ANGLE);
    CHECK_STR(t.joint, "jawOpen");
    CHECK(t.parent == NULL);
    CHECK_STR(bw_clip_marker_name(clip, 0), "foot_l");
    bw_clip_destroy(clip);
}

static void bad_sequences_should_name_joint_and_key(void)
{
    bw_joint_key keys[3] = {jkey(0.0f, BW_KEY_T), jkey(0.5f, BW_KEY_T), jkey(1.0f, BW_KEY_R)};
    bw_joint_keys joints[2] = {{"", "root", keys, 1}, {"root", "mixamorig:LeftArm", keys, 3}};
    bw_sequence_desc desc = {.joints = joints, .joint_count = 2};
    bw_clip *sentinel = (bw_clip *)&desc, *clip = sentinel;
    bw_error err;

    keys[1].t[2] = NAN;
    CHECK_INT(bw_clip_compile_sequence(&desc, &clip, &err), BW_ERR_NON_FINITE);
    CHECK_CONTAINS(err.message, "mixamorig:LeftArm");
    CHECK_CONTAINS(err.message, "key 1");
    CHECK_CONTAINS(err.message, "translation");
    CHECK_STR(err.where, "joints[1].keys[1]");
    keys[1].t[2] = 0.0f;

    keys[2].r[3] = 0.0f; /* zero quaternion */
    CHECK_INT(bw_clip_compile_sequence(&desc, &clip, &err), BW_ERR_NON_FINITE);
    CHECK_CONTAINS(err.message, "key 2 rotation is the zero quaternion");
    keys[2].r[3] = 1.0f;

    keys[2].time = 0.5f;
    CHECK_INT(bw_clip_compile_sequence(&desc, &clip, &err), BW_ERR_DUPLICATE);
    keys[2].time = 0.25f;
    CHECK_INT(bw_clip_compile_sequence(&desc, &clip, &err), BW_ERR_UNSORTED);
    keys[2].time = NAN;
    CHECK_INT(bw_clip_compile_sequence(&desc, &clip, &err), BW_ERR_NON_FINITE);
    keys[2].time = 1.0f;

    keys[0].flags = 1u << 9;
    CHECK_INT(bw_clip_compile_sequence(&desc, &clip, &err), BW_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "flag");
    keys[0].flags = BW_KEY_T;
    keys[0].style = (bw_ease_style)40;
    CHECK_INT(bw_clip_compile_sequence(&desc, &clip, &err), BW_ERR_INVALID_ARGUMENT);
    keys[0].style = BW_EASE_LINEAR;

    joints[0].key_count = 0;
    CHECK_INT(bw_clip_compile_sequence(&desc, &clip, &err), BW_ERR_EMPTY);
    CHECK_CONTAINS(err.message, "root");
    joints[0].key_count = 1;

    /* the same (parent, joint) twice */
    joints[0].parent = "root";
    joints[0].joint = "mixamorig:LeftArm";
    CHECK_INT(bw_clip_compile_sequence(&desc, &clip, &err), BW_ERR_DUPLICATE);
    joints[0].parent = "";
    joints[0].joint = "root";

    /* curves are validated too */
    float ct[2] = {0.0f, 0.0f}, cv[2] = {0, 1};
    bw_curve_keys curve = {"brow", false, ct, cv, NULL, NULL, 2};
    desc.curves = &curve;
    desc.curve_count = 1;
    CHECK_INT(bw_clip_compile_sequence(&desc, &clip, &err), BW_ERR_DUPLICATE);
    CHECK_CONTAINS(err.message, "sequence curve 0");
    CHECK_CONTAINS(err.message, "brow");
    CHECK_STR(err.where, "curves[0].times[1]");

    CHECK(clip == sentinel);
    CHECK_INT(bw_clip_compile_sequence(NULL, &clip, &err), BW_ERR_INVALID_ARGUMENT);
    desc.joint_count = -1;
    CHECK_INT(bw_clip_compile_sequence(&desc, &clip, &err), BW_ERR_INVALID_ARGUMENT);
    CHECK(clip == sentinel);
}

static void serials_should_be_unique(void)
{
    bw_clip_desc desc = {0};
    bw_clip *a = NULL, *b = NULL;
    CHECK_INT(bw_clip_create(&desc, &a, NULL), BW_OK);
    CHECK_INT(bw_clip_create(&desc, &b, NULL), BW_OK);
    CHECK(bw_clip_serial(a) != bw_clip_serial(b));
    bw_clip_destroy(a);
    bw_clip_destroy(b);
}

/* ---- the cache ---- */

static void cache_should_compile_once_per_revision(void)
{
    bw_clip_cache *cache = NULL;
    CHECK_INT(bw_clip_cache_create(NULL, &cache), BW_OK);
    if (!cache) return;
    bw_joint_key keys[2] = {jkey(0.0f, BW_KEY_T), jkey(1.0f, BW_KEY_T)};
    bw_joint_keys joints[1] = {{"", "root", keys, 2}};
    bw_sequence_desc desc = {.sequence_id = 5, .revision = 1, .joints = joints, .joint_count = 1};
    const bw_clip *c1 = NULL, *c2 = NULL, *c3 = NULL, *other = NULL;
    CHECK_INT(bw_clip_cache_get(cache, &desc, &c1, NULL), BW_OK);
    CHECK_INT(bw_clip_cache_compile_count(cache), 1);
    CHECK_INT(bw_clip_cache_get(cache, &desc, &c2, NULL), BW_OK);
    CHECK(c1 == c2);
    CHECK_INT(bw_clip_cache_compile_count(cache), 1);

    /* another sequence id is another entry */
    desc.sequence_id = 6;
    CHECK_INT(bw_clip_cache_get(cache, &desc, &other, NULL), BW_OK);
    CHECK(other != c1);
    CHECK_INT(bw_clip_cache_compile_count(cache), 2);

    /* a failing new revision leaves the cached one live */
    desc.sequence_id = 5;
    desc.revision = 2;
    keys[1].time = 0.0f;
    bw_error err;
    const bw_clip *failed = NULL;
    CHECK_INT(bw_clip_cache_get(cache, &desc, &failed, &err), BW_ERR_DUPLICATE);
    CHECK(failed == NULL);
    CHECK_INT(bw_clip_cache_compile_count(cache), 2);
    desc.revision = 1;
    CHECK_INT(bw_clip_cache_get(cache, &desc, &c2, NULL), BW_OK);
    CHECK(c2 == c1);
    CHECK_INT(bw_clip_cache_compile_count(cache), 2);

    /* a new revision recompiles and replaces */
    keys[1].time = 2.0f;
    desc.revision = 2;
    CHECK_INT(bw_clip_cache_get(cache, &desc, &c3, NULL), BW_OK);
    CHECK_INT(bw_clip_cache_compile_count(cache), 3);
    CHECK_INT(bw_clip_revision(c3), 2);
    CHECK_NEAR(bw_clip_length(c3), 2.0, 0);

    CHECK_INT(bw_clip_cache_get(NULL, &desc, &c3, NULL), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_clip_cache_get(cache, NULL, &c3, NULL), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_clip_cache_compile_count(NULL), 0);
    CHECK_INT(bw_clip_cache_create(NULL, NULL), BW_ERR_INVALID_ARGUMENT);
    bw_clip_cache_destroy(cache);
    bw_clip_cache_destroy(NULL);
}


/* ---- cloning ---- */

/* Times the clone comparisons sample at: before, on and between keys,
 * past the end, and NaN (sampled as 0). */
#define SAMPLE_TIMES 9
static const float sample_times[SAMPLE_TIMES] = {-0.5f, 0.0f, 0.1f, 0.25f, 0.5f, 0.6f, 1.0f, 1.5f, NAN};

/* Every track of `clip` at every sample time, 4 floats per sample. */
static void sample_all_tracks(const bw_clip *clip, float *out)
{
    for (int t = 0; t < bw_clip_track_count(clip); t++)
        for (int k = 0; k < SAMPLE_TIMES; k++) {
            float *v = out + ((size_t)t * SAMPLE_TIMES + (size_t)k) * 4;
            memset(v, 0, 4 * sizeof *v);
            bw_sample_track(clip, t, sample_times[k], v);
        }
}

static void clone_should_sample_bit_identically_after_the_source_is_gone(void)
{
    /* every kind of track: eased translation with per-key easing, a
     * cubic-spline rotation, a float and an angle curve; and markers */
    static const float t_times[3] = {0.0f, 0.5f, 1.0f};
    static const float t_values[9] = {0, 0, 0, 1, 2, 3, -1, 0.5f, 7};
    static const unsigned char styles[3] = {BW_EASE_LINEAR, BW_EASE_QUAD, BW_EASE_SINE};
    static const unsigned char dirs[3] = {BW_EASE_IN, BW_EASE_OUT, BW_EASE_IN_OUT};
    static const float r_times[2] = {0.0f, 1.0f};
    static const float r_values[24] = {0, 0, 0, 0, 0, 0, 0, 1, 0.1f, 0, 0, 0,
                                       0, 0.2f, 0, 0, 0, 0.6f, 0, 0.8f, 0, 0, 0, 0};
    static const float c_values[2] = {0.0f, 1.0f}, a_values[2] = {3.0f, -3.0f};
    bw_track_desc tracks[4] = {
        {"", "root", BW_CHANNEL_TRANSLATION, BW_INTERP_EASED, 3, t_times, t_values, styles, dirs},
        {"root", "spine", BW_CHANNEL_ROTATION, BW_INTERP_CUBICSPLINE, 2, r_times, r_values, NULL, NULL},
        {NULL, "blink", BW_CHANNEL_FLOAT, BW_INTERP_EASED, 2, r_times, c_values, NULL, NULL},
        {NULL, "yaw", BW_CHANNEL_ANGLE, BW_INTERP_EASED, 2, r_times, a_values, NULL, NULL},
    };
    bw_marker_desc markers[2] = {{"late", 0.75f}, {"early", 0.25f}};
    bw_clip_desc desc = {.name = "mix", .tracks = tracks, .track_count = 4, .markers = markers,
                         .marker_count = 2, .loop = true};
    bw_clip *src = fixture_clip_desc(&desc);
    float before[4 * SAMPLE_TIMES * 4], after[4 * SAMPLE_TIMES * 4];
    sample_all_tracks(src, before);
    const uint64_t serial = bw_clip_serial(src);

    bw_clip *clone = NULL;
    bw_error err = {0};
    CHECK_INT(bw_clip_clone(src, NULL, &clone, &err), BW_OK);
    if (!clone) return;
    bw_clip_destroy(src); /* ASan: the clone must not read it */

    sample_all_tracks(clone, after);
    CHECK(memcmp(before, after, sizeof before) == 0);
    /* one sample by hand: 0.25 s is halfway to key 1, which eases quad-out:
     * 1 - (1 - 0.5)^2 = 0.75 of the way to (1, 2, 3), so (0.75, 1.5, 2.25) */
    CHECK_NEAR(after[(0 * SAMPLE_TIMES + 3) * 4 + 0], 0.75, 1e-6);
    CHECK_NEAR(after[(0 * SAMPLE_TIMES + 3) * 4 + 2], 2.25, 1e-6);
    CHECK_STR(bw_clip_name(clone), "mix");
    CHECK(bw_clip_loop(clone));
    CHECK(bw_clip_length(clone) == 1.0f);
    CHECK_INT(bw_clip_track_count(clone), 4);
    static const bw_channel channels[4] = {BW_CHANNEL_TRANSLATION, BW_CHANNEL_ROTATION, BW_CHANNEL_FLOAT,
                                           BW_CHANNEL_ANGLE};
    for (int i = 0; i < 4; i++) {
        bw_track_desc d;
        CHECK_INT(bw_clip_track(clone, i, &d), BW_OK);
        CHECK_INT(d.channel, channels[i]);
        CHECK_INT(d.interp, i == 1 ? BW_INTERP_CUBICSPLINE : BW_INTERP_EASED);
        CHECK_INT(d.key_count, tracks[i].key_count);
        CHECK(memcmp(d.times, tracks[i].times, sizeof(float) * (size_t)d.key_count) == 0);
        CHECK_STR(d.joint, tracks[i].joint);
    }
    bw_track_desc d0;
    CHECK_INT(bw_clip_track(clone, 0, &d0), BW_OK);
    CHECK_STR(d0.parent, "");
    CHECK(memcmp(d0.values, t_values, sizeof t_values) == 0);
    CHECK(d0.styles && memcmp(d0.styles, styles, 3) == 0);
    CHECK(d0.dirs && memcmp(d0.dirs, dirs, 3) == 0);
    CHECK_INT(bw_clip_marker_count(clone), 2);
    CHECK_STR(bw_clip_marker_name(clone, 0), "early");
    CHECK(bw_clip_marker_time(clone, 1) == 0.75f);
    CHECK(bw_clip_serial(clone) != serial);
    CHECK_INT(bw_clip_sequence_id(clone), 0);
    bw_clip_destroy(clone);

    /* a compiled sequence keeps its identity (id, revision) in the clone */
    bw_joint_key keys[2] = {jkey(0.0f, BW_KEY_T), jkey(1.0f, BW_KEY_T)};
    bw_joint_keys joints[1] = {{"", "root", keys, 2}};
    bw_sequence_desc seq = {.sequence_id = 42, .revision = 7, .joints = joints, .joint_count = 1};
    bw_clip *compiled = NULL, *copy = NULL;
    CHECK_INT(bw_clip_compile_sequence(&seq, &compiled, NULL), BW_OK);
    CHECK_INT(bw_clip_clone(compiled, NULL, &copy, NULL), BW_OK);
    CHECK_INT(bw_clip_sequence_id(copy), 42);
    CHECK_INT(bw_clip_revision(copy), 7);
    bw_clip_destroy(compiled);
    bw_clip_destroy(copy);

    bw_clip *untouched = (bw_clip *)&err;
    CHECK_INT(bw_clip_clone(NULL, NULL, &untouched, &err), BW_ERR_INVALID_ARGUMENT);
    CHECK(untouched == (bw_clip *)&err);
}

/* Two joints on one uniform 3-key grid: eligible for the grid fast path. */
static bw_clip *grid_clip(const bw_allocator *allocator)
{
    static const float times[3] = {0.0f, 0.5f, 1.0f};
    static const float pos[9] = {0, 0, 0, 1, 0, 0, 2, 1, 0};
    static const float rot[12] = {0, 0, 0, 1, 0, 0.6f, 0, 0.8f, 0.6f, 0, 0, 0.8f};
    bw_track_desc tracks[3] = {
        {"", "root", BW_CHANNEL_TRANSLATION, BW_INTERP_EASED, 3, times, pos, NULL, NULL},
        {"", "root", BW_CHANNEL_ROTATION, BW_INTERP_EASED, 3, times, rot, NULL, NULL},
        {"root", "spine", BW_CHANNEL_TRANSLATION, BW_INTERP_EASED, 3, times, pos, NULL, NULL},
    };
    bw_clip_desc desc = {.tracks = tracks, .track_count = 3};
    if (allocator) desc.allocator = *allocator;
    return fixture_clip_desc(&desc);
}

static void clone_should_keep_the_grid_fast_path(void)
{
    static const char *const names[2] = {"root", "spine"};
    static const int parents[2] = {-1, 0};
    bw_rig *rig = fixture_rig(names, parents, 2);
    bw_clip *src = grid_clip(NULL);
    CHECK(src->grid != NULL);
    if (!src->grid) return;
    const bw_clip_grid g = *src->grid;
    const size_t row_bytes = sizeof(float) * (size_t)g.key_count * (size_t)g.row_floats;
    float *rows = malloc(row_bytes);
    memcpy(rows, g.rows, row_bytes);
    bw_pose before = {0}, after = {0};
    CHECK_INT(bw_pose_init(&before, rig, NULL), BW_OK);
    CHECK_INT(bw_pose_init(&after, rig, NULL), BW_OK);
    bw_binding *b = fixture_binding(src, rig);
    CHECK(b->grid != NULL); /* the sampler takes the grid path */
    bw_sample_clip(b, rig, 0.3f, &before);
    bw_binding_destroy(b);

    bw_clip *clone = NULL;
    CHECK_INT(bw_clip_clone(src, NULL, &clone, NULL), BW_OK);
    bw_clip_destroy(src);
    CHECK(clone->grid != NULL);
    if (clone->grid) {
        CHECK_INT(clone->grid->key_count, 3);
        CHECK_INT(clone->grid->joint_count, 2);
        CHECK(clone->grid->start == g.start && clone->grid->spacing == g.spacing);
        CHECK(memcmp(clone->grid->rows, rows, row_bytes) == 0);
        CHECK((uintptr_t)clone->grid->rows % 16 == 0);
        CHECK(clone->grid->times == clone->tracks[0].times); /* points into the clone */
    }
    b = fixture_binding(clone, rig);
    CHECK(b->grid != NULL);
    bw_sample_clip(b, rig, 0.3f, &after);
    CHECK(memcmp(before.joints, after.joints, sizeof *before.joints * 2) == 0);
    CHECK(memcmp(before.coverage, after.coverage, sizeof *before.coverage * 2) == 0);
    /* by hand: 0.3 s is 0.6 of the way from key 0 to key 1: x = 0.6 */
    CHECK_NEAR(after.joints[1].t[0], 0.6, 1e-6);
    bw_binding_destroy(b);
    bw_clip_destroy(clone);
    bw_pose_deinit(&before);
    bw_pose_deinit(&after);
    bw_rig_destroy(rig);
    free(rows);
}

static void clone_allocation_failure_should_leave_nothing_behind(void)
{
    bw_clip *src = grid_clip(NULL);
    /* three allocations: the block, the grid builder's scratch, the grid */
    int attempts = 0;
    bool cloned = false;
    for (long budget = 0; budget < 10 && !cloned; budget++, attempts++) {
        alloc_counter ctr = ALLOC_COUNTER(budget);
        bw_allocator a = {alloc_counter_fn, &ctr};
        bw_clip *clone = NULL;
        bw_error err = {0};
        bw_result r = bw_clip_clone(src, &a, &clone, &err);
        if (r == BW_OK) {
            cloned = true;
            CHECK_INT(ctr.live_blocks, 2);
            bw_clip_destroy(clone);
        } else {
            CHECK_INT(r, BW_ERR_OUT_OF_MEMORY);
            CHECK(clone == NULL);
            CHECK_CONTAINS(err.message, "out of memory");
        }
        CHECK_INT(ctr.live_blocks, 0);
        CHECK_INT(ctr.live_bytes, 0);
    }
    CHECK(cloned);
    CHECK_INT(attempts, 4);
    bw_clip_destroy(src);
}

/* ---- reference counts ---- */

static void retained_revision_should_outlive_its_recompile(void)
{
    alloc_counter ctr = ALLOC_COUNTER(-1);
    bw_allocator alloc = {alloc_counter_fn, &ctr};
    bw_clip_cache *cache = NULL;
    CHECK_INT(bw_clip_cache_create(&alloc, &cache), BW_OK);
    if (!cache) return;
    bw_joint_key keys[2] = {jkey(0.0f, BW_KEY_T), jkey(1.0f, BW_KEY_T)};
    keys[1].t[0] = 2.0f;
    bw_joint_keys joints[1] = {{"", "root", keys, 2}};
    bw_sequence_desc desc = {.sequence_id = 9, .revision = 1, .joints = joints, .joint_count = 1,
                             .allocator = alloc};
    const bw_clip *rev1 = NULL, *rev2 = NULL, *rev3 = NULL;
    CHECK_INT(bw_clip_cache_get(cache, &desc, &rev1, NULL), BW_OK);
    if (!rev1) return;
    /* 2 linear keys on a grid: each clip is 2 blocks (clip, grid) */
    const long blocks_with_rev1 = ctr.live_blocks;
    bw_clip_retain(rev1); /* a running character keeps it */

    keys[1].t[0] = 4.0f;
    desc.revision = 2;
    CHECK_INT(bw_clip_cache_get(cache, &desc, &rev2, NULL), BW_OK);
    CHECK(rev2 != rev1);
    CHECK_INT(ctr.live_blocks, blocks_with_rev1 + 2); /* rev 1 was released, not freed */
    float v[3] = {0, 0, 0};
    bw_sample_track(rev1, 0, 0.5f, v); /* rev 1: halfway to x = 2 */
    CHECK_NEAR(v[0], 1.0, 1e-6);
    CHECK_INT(bw_clip_revision(rev1), 1);
    bw_sample_track(rev2, 0, 0.5f, v); /* rev 2: halfway to x = 4 */
    CHECK_NEAR(v[0], 2.0, 1e-6);

    const long frees = ctr.frees;
    bw_clip_release(rev1); /* the last reference: freed now */
    CHECK_INT(ctr.frees - frees, 2);
    CHECK_INT(ctr.live_blocks, blocks_with_rev1);

    /* nobody retained rev 2: recompiling frees it at once */
    desc.revision = 3;
    CHECK_INT(bw_clip_cache_get(cache, &desc, &rev3, NULL), BW_OK);
    CHECK_INT(ctr.live_blocks, blocks_with_rev1);

    /* a retain outlives the cache itself */
    bw_clip_retain(rev3);
    bw_clip_cache_destroy(cache);
    CHECK_INT(ctr.live_blocks, 2);
    bw_sample_track(rev3, 0, 1.0f, v);
    CHECK_NEAR(v[0], 4.0, 0);
    bw_clip_release(rev3);
    CHECK_INT(ctr.live_blocks, 0);
    CHECK_INT(ctr.live_bytes, 0);
    bw_clip_retain(NULL);
    bw_clip_release(NULL);
}

/* The cache keeps the last revision requested, whichever way it went: an
 * older revision replaces a newer one too, so a borrowed clip ends when any
 * other revision of its sequence compiles, and only a retain keeps it. */
static void an_older_revision_replaces_the_cached_one(void)
{
    alloc_counter ctr = ALLOC_COUNTER(-1);
    bw_allocator alloc = {alloc_counter_fn, &ctr};
    bw_clip_cache *cache = NULL;
    CHECK_INT(bw_clip_cache_create(&alloc, &cache), BW_OK);
    if (!cache) return;
    bw_joint_key keys[2] = {jkey(0.0f, BW_KEY_T), jkey(1.0f, BW_KEY_T)};
    keys[1].t[0] = 3.0f; /* revision n ends at x = n */
    bw_joint_keys joints[1] = {{"", "root", keys, 2}};
    bw_sequence_desc desc = {.sequence_id = 5, .revision = 3, .joints = joints, .joint_count = 1,
                             .allocator = alloc};
    const bw_clip *a = NULL, *b = NULL, *c = NULL;
    CHECK_INT(bw_clip_cache_get(cache, &desc, &a, NULL), BW_OK);
    if (!a) return;
    const long blocks_with_a = ctr.live_blocks;
    bw_clip_retain(a);
    keys[1].t[0] = 2.0f;
    desc.revision = 2;
    CHECK_INT(bw_clip_cache_get(cache, &desc, &b, NULL), BW_OK);
    CHECK(b != a);
    CHECK_INT(bw_clip_cache_compile_count(cache), 2);
    CHECK_INT(bw_clip_revision(b), 2);
    float v[3] = {0, 0, 0};
    bw_sample_track(b, 0, 1.0f, v);
    CHECK_NEAR(v[0], 2.0, 0);
    /* the retain keeps revision 3 readable (ASan would catch a free) */
    CHECK_INT(bw_clip_revision(a), 3);
    bw_sample_track(a, 0, 1.0f, v);
    CHECK_NEAR(v[0], 3.0, 0);
    CHECK_INT(ctr.live_blocks, blocks_with_a + 2); /* a clip is 2 blocks (clip, grid) */
    bw_clip_release(a);
    CHECK_INT(ctr.live_blocks, blocks_with_a); /* a is gone, b is cached */
    /* back to revision 3: compiled again, b released and freed */
    keys[1].t[0] = 3.0f;
    desc.revision = 3;
    CHECK_INT(bw_clip_cache_get(cache, &desc, &c, NULL), BW_OK);
    CHECK_INT(bw_clip_cache_compile_count(cache), 3);
    CHECK_INT(bw_clip_revision(c), 3);
    CHECK_INT(ctr.live_blocks, blocks_with_a);
    /* asking again for the cached revision compiles nothing */
    const bw_clip *again = NULL;
    CHECK_INT(bw_clip_cache_get(cache, &desc, &again, NULL), BW_OK);
    CHECK(again == c);
    CHECK_INT(bw_clip_cache_compile_count(cache), 3);
    bw_clip_cache_destroy(cache);
    CHECK_INT(ctr.live_blocks, 0);
    CHECK_INT(ctr.live_bytes, 0);
}

#define RETAIN_THREADS 4
#define RETAINS_PER_THREAD 20000

static void *retain_and_release(void *clip)
{
    /* all retains first, so the count climbs high while the other threads
     * do the same; then the releases */
    for (int i = 0; i < RETAINS_PER_THREAD; i++) bw_clip_retain(clip);
    for (int i = 0; i < RETAINS_PER_THREAD; i++) {
        float v[3];
        bw_sample_track(clip, 0, 0.25f, v);
        bw_clip_release(clip);
    }
    return NULL;
}

static void retain_and_release_should_be_thread_safe(void)
{
    alloc_counter ctr = ALLOC_COUNTER(-1);
    bw_allocator alloc = {alloc_counter_fn, &ctr};
    bw_clip *clip = grid_clip(&alloc);
    const long frees = ctr.frees; /* creation's scratch */
    pthread_t threads[RETAIN_THREADS];
    for (int i = 0; i < RETAIN_THREADS; i++) CHECK_INT(pthread_create(&threads[i], NULL, retain_and_release, clip), 0);
    for (int i = 0; i < RETAIN_THREADS; i++) pthread_join(threads[i], NULL);
    /* lost updates would have freed it early (ASan) or left extra counts */
    CHECK_INT(ctr.frees - frees, 0);
    CHECK_INT(ctr.live_blocks, 2);
    bw_clip_destroy(clip); /* the creator's reference was the last */
    CHECK_INT(ctr.live_blocks, 0);
    CHECK_INT(ctr.frees - frees, 2);
}

/* ---- allocation failure ---- */

static void allocation_failure_should_leave_nothing_behind(void)
{
    bw_joint_key keys[2] = {jkey(0.0f, BW_KEY_T | BW_KEY_R), jkey(1.0f, BW_KEY_T)};
    bw_joint_keys joints[2] = {{"", "root", keys, 2}, {"root", "b", keys, 2}};
    bw_marker_desc markers[2] = {{"x", 0.5f}, {"y", 0.1f}};
    alloc_counter ta = ALLOC_COUNTER(-1); /* budget set per attempt */
    bw_allocator alloc = {alloc_counter_fn, &ta};
    bw_sequence_desc desc = {.sequence_id = 1, .revision = 1, .joints = joints, .joint_count = 2,
                             .markers = markers, .marker_count = 2, .allocator = alloc};
    bool succeeded = false;
    for (int fail_after = 0; fail_after < 20 && !succeeded; fail_after++) {
        ta.budget = fail_after;
        bw_clip *clip = NULL;
        bw_result r = bw_clip_compile_sequence(&desc, &clip, NULL);
        if (r == BW_OK) {
            succeeded = true;
            CHECK_INT(bw_clip_track_count(clip), 4);
            bw_clip_destroy(clip);
        } else {
            CHECK_INT(r, BW_ERR_OUT_OF_MEMORY);
            CHECK(clip == NULL);
        }
        CHECK_INT(ta.live_bytes, 0);
    }
    CHECK(succeeded);

    /* the cache: creation and growth failures */
    ta.budget = 0;
    bw_clip_cache *cache = NULL;
    CHECK_INT(bw_clip_cache_create(&alloc, &cache), BW_ERR_OUT_OF_MEMORY);
    ta.budget = 1; /* the cache struct, then its entry array fails */
    CHECK_INT(bw_clip_cache_create(&alloc, &cache), BW_OK);
    const bw_clip *c = NULL;
    CHECK_INT(bw_clip_cache_get(cache, &desc, &c, NULL), BW_ERR_OUT_OF_MEMORY);
    CHECK_INT(bw_clip_cache_compile_count(cache), 0);
    ta.budget = -1;
    CHECK_INT(bw_clip_cache_get(cache, &desc, &c, NULL), BW_OK);
    bw_clip_cache_destroy(cache);
    CHECK_INT(ta.live_bytes, 0);
}

int main(void)
{
    RUN(create_should_copy_tracks_and_answer_queries);
    RUN(null_queries_should_return_defaults);
    RUN(length_should_follow_the_rules);
    RUN(bad_keys_should_fail_with_clear_messages);
    RUN(bad_clip_desc_should_fail);
    RUN(duplicate_targets_should_be_rejected);
    RUN(rotations_should_be_normalized_on_creation);
    RUN(uniform_flag_should_detect_even_spacing);
    RUN(uniform_key_search_should_match_a_scan);
    RUN(easing_should_be_stored_only_when_needed);
    RUN(sequence_should_split_into_channel_tracks);
    RUN(bad_sequences_should_name_joint_and_key);
    RUN(serials_should_be_unique);
    RUN(cache_should_compile_once_per_revision);
    RUN(allocation_failure_should_leave_nothing_behind);
    RUN(clone_should_sample_bit_identically_after_the_source_is_gone);
    RUN(clone_should_keep_the_grid_fast_path);
    RUN(clone_allocation_failure_should_leave_nothing_behind);
    RUN(retained_revision_should_outlive_its_recompile);
    RUN(an_older_revision_replaces_the_cached_one);
    RUN(retain_and_release_should_be_thread_safe);
    return check_summary();
}
