/* test_bind.c - binding clip tracks to rig joints and curves: exact
 * (parent, joint) matches, the unambiguous name-only fallback, curves, the
 * report, and the binding cache's invalidation rules. */
#include "blendwerk/bind.h"
#include "check.h"
#include "fixtures.h"
#include "test_alloc_counter.h"
#include "clip_internal.h"

/* Rig:  0 mixamorig:Hips (root)
 *       1 Spine           <- 0
 *       2 LeftArm         <- 1
 *       3 Hand            <- 2     (two joints named Hand,
 *       4 RightArm        <- 1      under different parents)
 *       5 Hand            <- 4
 *       6 Bip01.L.Foot    <- 0
 *       7 Neck            <- 1
 * curves: blink (float), jaw_yaw (angle) */
enum { HIPS, SPINE, LEFT_ARM, LEFT_HAND, RIGHT_ARM, RIGHT_HAND, FOOT, NECK, JOINTS };

static bw_rig *make_rig(void)
{
    static const char *names[JOINTS] = {"mixamorig:Hips", "Spine", "LeftArm", "Hand",
                                        "RightArm",       "Hand",  "Bip01.L.Foot", "Neck"};
    static const int parents[JOINTS] = {-1, HIPS, SPINE, LEFT_ARM, SPINE, RIGHT_ARM, HIPS, SPINE};
    bw_rig_joint_desc joints[JOINTS];
    for (int i = 0; i < JOINTS; i++) {
        joints[i].name = names[i];
        joints[i].parent = parents[i];
        joints[i].rest = bw_transform_identity;
    }
    bw_rig_curve_desc curves[2] = {{"blink", BW_CURVE_FLOAT, 0.0f}, {"jaw_yaw", BW_CURVE_ANGLE, 0.0f}};
    bw_rig_desc desc = {.joints = joints, .joint_count = JOINTS, .curves = curves, .curve_count = 2};
    return fixture_rig_desc(&desc);
}

static const float T1[1] = {0.0f};
static const float V4[4] = {0, 0, 0, 1};

static bw_track_desc track(const char *parent, const char *joint, bw_channel channel)
{
    bw_track_desc t = {parent, joint, channel, BW_INTERP_EASED, 1, T1, V4, NULL, NULL};
    return t;
}

static bw_clip *make_clip(const bw_track_desc *tracks, int count) { return fixture_clip(tracks, count); }

static void exact_matches_should_bind_duplicate_names_by_parent(void)
{
    bw_rig *rig = make_rig();
    bw_track_desc tracks[4] = {
        track("LeftArm", "Hand", BW_CHANNEL_ROTATION),
        track("RightArm", "Hand", BW_CHANNEL_ROTATION),
        track("", "mixamorig:Hips", BW_CHANNEL_TRANSLATION), /* "" = root */
        track("mixamorig:Hips", "Bip01.L.Foot", BW_CHANNEL_ROTATION),
    };
    bw_clip *clip = make_clip(tracks, 4);
    bw_binding *b = NULL;
    CHECK_INT(bw_binding_create(&(bw_binding_desc){.clip = clip, .rig = rig}, &b, NULL), BW_OK);
    CHECK_INT(bw_binding_track_status(b, 0), BW_BIND_EXACT);
    CHECK_INT(bw_binding_track_target(b, 0), LEFT_HAND);
    CHECK_INT(bw_binding_track_status(b, 1), BW_BIND_EXACT);
    CHECK_INT(bw_binding_track_target(b, 1), RIGHT_HAND);
    CHECK_INT(bw_binding_track_target(b, 2), HIPS);
    CHECK_INT(bw_binding_track_target(b, 3), FOOT);
    bw_bind_report r = bw_binding_report(b);
    CHECK_INT(r.bound, 4);
    CHECK_INT(r.by_name, 0);
    CHECK_INT(r.ambiguous, 0);
    CHECK_INT(r.unbound, 0);
    CHECK(bw_binding_clip(b) == clip);
    CHECK(bw_binding_layout_signature(b) == bw_rig_layout_signature(rig));
    CHECK_INT(bw_binding_topology_revision(b), bw_rig_topology_revision(rig));
    CHECK_INT(bw_binding_retarget_id(b), 0);
    /* the driven-joint table the sampler walks: ascending joints, a track per channel */
    CHECK_INT(b->driven_joint_count, 4);
    CHECK_INT(b->driven_joints[0].joint, HIPS);
    CHECK_INT(b->driven_joints[0].track[BW_SLOT_T], 2);
    CHECK_INT(b->driven_joints[0].track[BW_SLOT_R], -1);
    CHECK_INT(b->driven_joints[1].joint, LEFT_HAND);
    CHECK_INT(b->driven_joints[1].track[BW_SLOT_R], 0);
    bw_binding_destroy(b);
    bw_clip_destroy(clip);
    bw_rig_destroy(rig);
}

static void name_only_fallback_should_require_unambiguity(void)
{
    bw_rig *rig = make_rig();
    bw_track_desc tracks[7] = {
        track(NULL, "Spine", BW_CHANNEL_ROTATION),           /* parent unknown, unique: BY_NAME */
        track("Pelvis", "mixamorig:Hips", BW_CHANNEL_SCALE), /* wrong parent, unique: BY_NAME */
        track(NULL, "Hand", BW_CHANNEL_TRANSLATION),         /* two Hands in the rig: AMBIGUOUS */
        track("Wrist", "Hand", BW_CHANNEL_SCALE),            /* wrong parent, two Hands: AMBIGUOUS */
        track("root", "Tail", BW_CHANNEL_ROTATION),          /* no such joint: UNBOUND */
        track("A", "Neck", BW_CHANNEL_TRANSLATION),          /* the clip names two different Necks */
        track("B", "Neck", BW_CHANNEL_TRANSLATION),          /*   on one channel: both AMBIGUOUS */
    };
    bw_clip *clip = make_clip(tracks, 7);
    bw_binding *b = NULL;
    CHECK_INT(bw_binding_create(&(bw_binding_desc){.clip = clip, .rig = rig}, &b, NULL), BW_OK);
    CHECK_INT(bw_binding_track_status(b, 0), BW_BIND_BY_NAME);
    CHECK_INT(bw_binding_track_target(b, 0), SPINE);
    CHECK_INT(bw_binding_track_status(b, 1), BW_BIND_BY_NAME);
    CHECK_INT(bw_binding_track_target(b, 1), HIPS);
    CHECK_INT(bw_binding_track_status(b, 2), BW_BIND_AMBIGUOUS);
    CHECK_INT(bw_binding_track_target(b, 2), -1);
    CHECK_INT(bw_binding_track_status(b, 3), BW_BIND_AMBIGUOUS);
    CHECK_INT(bw_binding_track_status(b, 4), BW_BIND_UNBOUND);
    CHECK_INT(bw_binding_track_target(b, 4), -1);
    CHECK_INT(bw_binding_track_status(b, 5), BW_BIND_AMBIGUOUS);
    CHECK_INT(bw_binding_track_status(b, 6), BW_BIND_AMBIGUOUS);
    bw_bind_report r = bw_binding_report(b);
    CHECK_INT(r.bound, 2);
    CHECK_INT(r.by_name, 2);
    CHECK_INT(r.ambiguous, 4);
    CHECK_INT(r.unbound, 1);
    CHECK_INT(b->driven_joint_count, 2); /* Hips (scale) and Spine (rotation) */
    /* out-of-range queries */
    CHECK_INT(bw_binding_track_status(b, 7), BW_BIND_UNBOUND);
    CHECK_INT(bw_binding_track_target(b, -1), -1);
    bw_binding_destroy(b);
    bw_clip_destroy(clip);
    bw_rig_destroy(rig);
}

typedef struct log_lines {
    int count;
    char text[16][512];
} log_lines;

static void keep_line(void *user, bw_log_level level, const char *message)
{
    log_lines *l = (log_lines *)user;
    CHECK_INT(level, BW_LOG_WARNING);
    if (l->count < 16) snprintf(l->text[l->count], sizeof l->text[0], "%s", message);
    l->count++;
}

/* The same tracks as above through a desc with a logger: one warning per
 * ambiguous track (tracks 2, 3, 5, 6), in track order, saying which kind
 * of ambiguity refused it; nothing for the by-name and unbound ones. */
static void ambiguous_tracks_should_be_logged_one_by_one(void)
{
    bw_rig *rig = make_rig();
    bw_track_desc tracks[7] = {
        track(NULL, "Spine", BW_CHANNEL_ROTATION),   track("Pelvis", "mixamorig:Hips", BW_CHANNEL_SCALE),
        track(NULL, "Hand", BW_CHANNEL_TRANSLATION), track("Wrist", "Hand", BW_CHANNEL_SCALE),
        track("root", "Tail", BW_CHANNEL_ROTATION),  track("A", "Neck", BW_CHANNEL_TRANSLATION),
        track("B", "Neck", BW_CHANNEL_TRANSLATION),
    };
    bw_clip *clip = make_clip(tracks, 7);
    log_lines lines = {0};
    bw_binding_desc desc = {.clip = clip, .rig = rig, .logger = {keep_line, &lines}};
    bw_binding *b = NULL;
    CHECK_INT(bw_binding_create(&desc, &b, NULL), BW_OK);
    CHECK_INT(lines.count, 4);
    CHECK_STR(lines.text[0], "clip '': track 2 (joint 'Hand') matches several joints of the rig by name alone; "
                             "it stays unbound");
    CHECK_STR(lines.text[1], "clip '': track 3 (joint 'Hand' under 'Wrist') matches several joints of the rig by "
                             "name alone; it stays unbound");
    CHECK_STR(lines.text[2], "clip '': track 5 (joint 'Neck' under 'A') matches a joint other tracks of the clip also "
                             "name by name alone; it stays unbound");
    CHECK(strstr(lines.text[3], "track 6 (joint 'Neck' under 'B')") != NULL);
    bw_binding_destroy(b);
    /* a NULL desc is refused like a missing clip */
    b = NULL;
    CHECK_INT(bw_binding_create(NULL, &b, NULL), BW_ERR_INVALID_ARGUMENT);
    CHECK(b == NULL);
    bw_clip_destroy(clip);
    bw_rig_destroy(rig);
}

static void clip_ambiguity_should_be_per_channel_and_spare_exact_matches(void)
{
    bw_rig *rig = make_rig();
    bw_track_desc tracks[4] = {
        track("Spine", "Neck", BW_CHANNEL_TRANSLATION), /* exact */
        track("X", "Neck", BW_CHANNEL_TRANSLATION),     /* collides with the exact track's name: AMBIGUOUS */
        track("A", "Neck", BW_CHANNEL_ROTATION),        /* alone on its channel: BY_NAME */
        track("B", "Neck", BW_CHANNEL_SCALE),           /* alone on its channel: BY_NAME */
    };
    bw_clip *clip = make_clip(tracks, 4);
    bw_binding *b = NULL;
    CHECK_INT(bw_binding_create(&(bw_binding_desc){.clip = clip, .rig = rig}, &b, NULL), BW_OK);
    CHECK_INT(bw_binding_track_status(b, 0), BW_BIND_EXACT);
    CHECK_INT(bw_binding_track_status(b, 1), BW_BIND_AMBIGUOUS);
    CHECK_INT(bw_binding_track_status(b, 2), BW_BIND_BY_NAME);
    CHECK_INT(bw_binding_track_status(b, 3), BW_BIND_BY_NAME);
    CHECK_INT(b->driven_joint_count, 1);
    CHECK_INT(b->driven_joints[0].joint, NECK);
    CHECK_INT(b->driven_joints[0].track[BW_SLOT_T], 0);
    CHECK_INT(b->driven_joints[0].track[BW_SLOT_R], 2);
    CHECK_INT(b->driven_joints[0].track[BW_SLOT_S], 3);
    bw_binding_destroy(b);
    bw_clip_destroy(clip);
    bw_rig_destroy(rig);
}

static void curves_should_bind_by_name(void)
{
    bw_rig *rig = make_rig();
    bw_track_desc tracks[3] = {
        track(NULL, "jaw_yaw", BW_CHANNEL_ANGLE),
        track("ignored", "blink", BW_CHANNEL_FLOAT), /* parent is ignored for curves */
        track(NULL, "smile", BW_CHANNEL_FLOAT),      /* not in the rig */
    };
    bw_clip *clip = make_clip(tracks, 3);
    bw_binding *b = NULL;
    CHECK_INT(bw_binding_create(&(bw_binding_desc){.clip = clip, .rig = rig}, &b, NULL), BW_OK);
    CHECK_INT(bw_binding_track_status(b, 0), BW_BIND_EXACT);
    CHECK_INT(bw_binding_track_target(b, 0), bw_rig_find_curve(rig, "jaw_yaw"));
    CHECK_INT(bw_binding_track_target(b, 1), bw_rig_find_curve(rig, "blink"));
    CHECK_INT(bw_binding_track_status(b, 2), BW_BIND_UNBOUND);
    CHECK_INT(b->driven_joint_count, 0);
    CHECK_INT(b->driven_curve_count, 2);
    bw_bind_report r = bw_binding_report(b);
    CHECK_INT(r.bound, 2);
    CHECK_INT(r.unbound, 1);
    bw_binding_destroy(b);
    bw_clip_destroy(clip);
    bw_rig_destroy(rig);
}

static void bad_arguments_should_fail_cleanly(void)
{
    bw_rig *rig = make_rig();
    bw_clip *clip = make_clip(NULL, 0);
    bw_binding *b = (bw_binding *)rig, *sentinel = b;
    bw_error err;
    CHECK_INT(bw_binding_create(&(bw_binding_desc){.rig = rig}, &b, &err), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_binding_create(&(bw_binding_desc){.clip = clip}, &b, &err), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_binding_create(&(bw_binding_desc){.clip = clip, .rig = rig}, NULL, &err), BW_ERR_INVALID_ARGUMENT);
    CHECK(b == sentinel);
    /* an empty clip binds nothing, successfully */
    CHECK_INT(bw_binding_create(&(bw_binding_desc){.clip = clip, .rig = rig}, &b, &err), BW_OK);
    CHECK_INT(bw_binding_report(b).bound, 0);
    bw_binding_destroy(b);
    bw_binding_destroy(NULL);
    bw_bind_report none = bw_binding_report(NULL);
    CHECK_INT(none.bound + none.unbound + none.ambiguous, 0);
    CHECK(bw_binding_clip(NULL) == NULL);
    CHECK_INT(bw_binding_track_target(NULL, 0), -1);
    bw_clip_destroy(clip);
    bw_rig_destroy(rig);
}

static void cache_should_invalidate_on_topology_but_not_rest_changes(void)
{
    bw_rig *rig = make_rig();
    bw_track_desc tracks[2] = {track("Spine", "Neck", BW_CHANNEL_ROTATION), track("Neck", "Head", BW_CHANNEL_ROTATION)};
    bw_clip *clip = make_clip(tracks, 2);
    bw_binding_cache *cache = NULL;
    CHECK_INT(bw_binding_cache_create(NULL, &cache), BW_OK);
    const bw_binding *b1 = NULL, *b2 = NULL, *b3 = NULL, *b4 = NULL;
    CHECK_INT(bw_binding_cache_get(cache, clip, rig, 0, &b1, NULL), BW_OK);
    CHECK_INT(bw_binding_cache_create_count(cache), 1);
    CHECK_INT(bw_binding_track_status(b1, 1), BW_BIND_UNBOUND); /* no Head yet */
    CHECK_INT(bw_binding_cache_get(cache, clip, rig, 0, &b2, NULL), BW_OK);
    CHECK(b2 == b1);
    CHECK_INT(bw_binding_cache_create_count(cache), 1);

    /* a rest-value change keeps the binding */
    bw_transform moved = bw_transform_identity;
    moved.t[1] = 1.5f;
    CHECK_INT(bw_rig_set_rest(rig, NECK, &moved), BW_OK);
    CHECK_INT(bw_binding_cache_get(cache, clip, rig, 0, &b2, NULL), BW_OK);
    CHECK(b2 == b1);
    CHECK_INT(bw_binding_cache_create_count(cache), 1);

    /* another retarget id is another binding */
    CHECK_INT(bw_binding_cache_get(cache, clip, rig, 9, &b3, NULL), BW_OK);
    CHECK(b3 != b1);
    CHECK_INT(bw_binding_retarget_id(b3), 9);
    CHECK_INT(bw_binding_cache_create_count(cache), 2);

    /* a second rig with the same layout shares the binding */
    bw_rig *twin = make_rig();
    CHECK_INT(bw_binding_cache_get(cache, clip, twin, 0, &b4, NULL), BW_OK);
    CHECK(b4 == b1);
    CHECK_INT(bw_binding_cache_create_count(cache), 2);

    /* adding a joint bumps the revision: rebinding finds the new joint */
    uint32_t old_revision = bw_rig_topology_revision(rig);
    bw_rig_joint_desc head = {"Head", NECK, bw_transform_identity};
    CHECK_INT(bw_rig_add_joint(rig, &head, NULL), BW_OK);
    CHECK(bw_rig_topology_revision(rig) != old_revision);
    CHECK_INT(bw_binding_cache_get(cache, clip, rig, 0, &b2, NULL), BW_OK);
    CHECK_INT(bw_binding_cache_create_count(cache), 3);
    CHECK_INT(bw_binding_topology_revision(b2), bw_rig_topology_revision(rig));
    CHECK_INT(bw_binding_track_status(b2, 1), BW_BIND_EXACT);
    CHECK_INT(bw_binding_track_target(b2, 1), JOINTS); /* appended */
    CHECK_INT(bw_binding_cache_get(cache, clip, rig, 0, &b3, NULL), BW_OK);
    CHECK(b3 == b2);
    CHECK_INT(bw_binding_cache_create_count(cache), 3);
    /* the twin was handed the old binding, so the rig's topology change
     * kept it (ASan: b4 is still readable) and the twin still gets it */
    CHECK_INT(bw_binding_track_status(b4, 1), BW_BIND_UNBOUND);
    const bw_binding *b5 = NULL;
    CHECK_INT(bw_binding_cache_get(cache, clip, twin, 0, &b5, NULL), BW_OK);
    CHECK(b5 == b4);
    CHECK_INT(bw_binding_cache_create_count(cache), 3);

    /* removing a clip's entries forces a rebuild */
    bw_binding_cache_remove_clip(cache, clip);
    CHECK_INT(bw_binding_cache_get(cache, clip, rig, 0, &b3, NULL), BW_OK);
    CHECK_INT(bw_binding_cache_create_count(cache), 4);

    CHECK_INT(bw_binding_cache_get(cache, NULL, rig, 0, &b3, NULL), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_binding_cache_get(NULL, clip, rig, 0, &b3, NULL), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_binding_cache_create(NULL, NULL), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_binding_cache_create_count(NULL), 0);
    bw_binding_cache_destroy(cache);
    bw_binding_cache_destroy(NULL);
    bw_clip_destroy(clip);
    bw_rig_destroy(twin);
    bw_rig_destroy(rig);
}

static void allocation_failure_should_leave_nothing_behind(void)
{
    bw_rig *rig = make_rig();
    bw_track_desc tracks[2] = {track("LeftArm", "Hand", BW_CHANNEL_ROTATION), track(NULL, "blink", BW_CHANNEL_FLOAT)};
    bw_clip *clip = make_clip(tracks, 2);
    alloc_counter ta = ALLOC_COUNTER(-1); /* budget set per attempt */
    bw_allocator alloc = {alloc_counter_fn, &ta};
    bool ok = false;
    for (int fail_after = 0; fail_after < 10 && !ok; fail_after++) {
        ta.budget = fail_after;
        bw_binding *b = NULL;
        bw_result r = bw_binding_create(&(bw_binding_desc){.clip = clip, .rig = rig, .allocator = alloc}, &b, NULL);
        if (r == BW_OK) {
            ok = true;
            CHECK_INT(bw_binding_report(b).bound, 2);
            bw_binding_destroy(b);
        } else {
            CHECK_INT(r, BW_ERR_OUT_OF_MEMORY);
            CHECK(b == NULL);
        }
        CHECK_INT(ta.live_bytes, 0);
    }
    CHECK(ok);
    /* the cache: a failed create keeps the count and the cache usable */
    ta.budget = -1;
    bw_binding_cache *cache = NULL;
    CHECK_INT(bw_binding_cache_create(&alloc, &cache), BW_OK);
    ta.budget = 1; /* entry array succeeds, the binding's scratch fails */
    const bw_binding *b = NULL;
    CHECK_INT(bw_binding_cache_get(cache, clip, rig, 0, &b, NULL), BW_ERR_OUT_OF_MEMORY);
    CHECK(b == NULL);
    CHECK_INT(bw_binding_cache_create_count(cache), 0);
    ta.budget = -1;
    CHECK_INT(bw_binding_cache_get(cache, clip, rig, 0, &b, NULL), BW_OK);
    CHECK_INT(bw_binding_cache_create_count(cache), 1);
    bw_binding_cache_destroy(cache);
    CHECK_INT(ta.live_bytes, 0);
    bw_clip_destroy(clip);
    bw_rig_destroy(rig);
}

static void cache_should_tell_rigs_with_other_curves_apart(void)
{
    /* the same joints (so the same layout signature), curves swapped */
    static const char *names[2] = {"root", "head"};
    static const int parents[2] = {-1, 0};
    bw_rig_joint_desc joints[2] = {{names[0], parents[0], bw_transform_identity},
                                   {names[1], parents[1], bw_transform_identity}};
    bw_rig_curve_desc ab[2] = {{"blink", BW_CURVE_FLOAT, 0.0f}, {"jaw_yaw", BW_CURVE_ANGLE, 0.0f}};
    bw_rig_curve_desc ba[2] = {{"jaw_yaw", BW_CURVE_ANGLE, 0.0f}, {"blink", BW_CURVE_FLOAT, 0.0f}};
    bw_rig_desc da = {.joints = joints, .joint_count = 2, .curves = ab, .curve_count = 2}, db = {.joints = joints, .joint_count = 2, .curves = ba, .curve_count = 2};
    bw_rig *rig_a = fixture_rig_desc(&da), *rig_b = fixture_rig_desc(&db);
    CHECK(bw_rig_layout_signature(rig_a) == bw_rig_layout_signature(rig_b));
    CHECK(bw_rig_curve_signature(rig_a) != bw_rig_curve_signature(rig_b));
    bw_track_desc tracks[1] = {track(NULL, "blink", BW_CHANNEL_FLOAT)};
    bw_clip *clip = make_clip(tracks, 1);
    bw_binding_cache *cache = NULL;
    CHECK_INT(bw_binding_cache_create(NULL, &cache), BW_OK);
    const bw_binding *ba_ = NULL, *bb_ = NULL;
    CHECK_INT(bw_binding_cache_get(cache, clip, rig_a, 0, &ba_, NULL), BW_OK);
    CHECK_INT(bw_binding_cache_get(cache, clip, rig_b, 0, &bb_, NULL), BW_OK);
    CHECK(ba_ != bb_);
    CHECK_INT(bw_binding_track_target(ba_, 0), 0); /* blink is curve 0 of rig a */
    CHECK_INT(bw_binding_track_target(bb_, 0), 1); /* and curve 1 of rig b */
    CHECK_INT(bw_binding_cache_create_count(cache), 2);

    /* a clone has the source's signatures, so it shares the binding */
    bw_rig *twin = NULL;
    CHECK_INT(bw_rig_clone(rig_a, NULL, &twin, NULL), BW_OK);
    const bw_binding *bt = NULL;
    CHECK_INT(bw_binding_cache_get(cache, clip, twin, 0, &bt, NULL), BW_OK);
    CHECK(bt == ba_);
    CHECK_INT(bw_binding_cache_create_count(cache), 2);
    bw_binding_cache_destroy(cache);
    bw_clip_destroy(clip);
    bw_rig_destroy(twin);
    bw_rig_destroy(rig_a);
    bw_rig_destroy(rig_b);
}

int main(void)
{
    RUN(exact_matches_should_bind_duplicate_names_by_parent);
    RUN(name_only_fallback_should_require_unambiguity);
    RUN(ambiguous_tracks_should_be_logged_one_by_one);
    RUN(clip_ambiguity_should_be_per_channel_and_spare_exact_matches);
    RUN(curves_should_bind_by_name);
    RUN(bad_arguments_should_fail_cleanly);
    RUN(cache_should_invalidate_on_topology_but_not_rest_changes);
    RUN(cache_should_tell_rigs_with_other_curves_apart);
    RUN(allocation_failure_should_leave_nothing_behind);
    return check_summary();
}
