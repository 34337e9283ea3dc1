/* test_logger.c - the optional loggers of the creation calls that can
 * warn: bw_clip_desc.logger and bw_sequence_desc.logger (rotation keys
 * that were not unit length, one line per track), bw_rig_desc.logger (rest
 * rotations that were not unit length; bw_binding_desc.logger is tested in
 * test_bind.c). Each warns exactly once
 * with the message below and says nothing for unit input (float rounding
 * included); without a logger the same clip is made silently. */
#include <string.h>

#include "blendwerk/clip.h"
#include "blendwerk/rig.h"
#include "blendwerk/sample.h"
#include "check.h"
#include "fixtures.h"

typedef struct log_record {
    int count;
    bw_log_level level;
    char last[512];
} log_record;

static void record(void *user, bw_log_level level, const char *message)
{
    log_record *r = (log_record *)user;
    r->count++;
    r->level = level;
    snprintf(r->last, sizeof r->last, "%s", message);
}

static void clip_warns_once_per_track_about_non_unit_keys(void)
{
    log_record log = {0};
    const float times[3] = {0, 1, 2};
    const float rot[12] = {0, 0, 0, 1, 0, 0, 0, 0.5f, 0, 0, 3, 0}; /* keys 1 and 2 are off */
    bw_track_desc track = {"hips", "arm", BW_CHANNEL_ROTATION, BW_INTERP_EASED, 3, times, rot, NULL, NULL};
    bw_clip_desc desc = {0};
    desc.name = "wave";
    desc.tracks = &track;
    desc.track_count = 1;
    desc.logger.fn = record;
    desc.logger.user = &log;
    bw_clip *clip = fixture_clip_desc(&desc);
    CHECK_INT(log.count, 1);
    CHECK_STR(log.last, "clip \"wave\": track 0 (joint \"arm\" rotation): 2 of 3 keys were not unit length "
                        "(first: key 1, length 0.5); normalized");
    float v[4];
    bw_sample_track(clip, 0, 2.0f, v);
    CHECK_NEAR(v[2], 1.0, 1e-6); /* (0, 0, 3, 0) normalized */
    bw_clip_destroy(clip);
    /* unit keys: nothing */
    const float unit[12] = {0, 0, 0, 1, 0, 0, 0.70710678f, 0.70710678f, 0, 0, 1, 0};
    track.values = unit;
    clip = fixture_clip_desc(&desc);
    CHECK_INT(log.count, 1);
    bw_clip_destroy(clip);
}

static void sequence_passes_its_logger_on(void)
{
    log_record log = {0};
    bw_joint_key keys[2];
    memset(keys, 0, sizeof keys);
    keys[0].time = 0.0f;
    keys[0].flags = BW_KEY_R;
    keys[0].r[3] = 1.0f;
    keys[1].time = 1.0f;
    keys[1].flags = BW_KEY_R;
    keys[1].r[1] = 4.0f;
    bw_joint_keys jk = {0};
    jk.joint = "hips";
    jk.keys = keys;
    jk.key_count = 2;
    bw_sequence_desc desc = {0};
    desc.name = "turn";
    desc.joints = &jk;
    desc.joint_count = 1;
    desc.logger.fn = record;
    desc.logger.user = &log;
    bw_clip *clip = NULL;
    bw_error err = {0};
    CHECK_INT(bw_clip_compile_sequence(&desc, &clip, &err), BW_OK);
    CHECK_INT(log.count, 1);
    CHECK_CONTAINS(log.last, "clip \"turn\": track 0 (joint \"hips\" rotation): 1 of 2 keys were not unit length "
                             "(first: key 1, length 4); normalized");
    bw_clip_destroy(clip);
}

/* A rest rotation of length 2 (0, 0, 0, 2) is stored as identity and
 * warned about once; a unit one, (0, 0.6, 0, 0.8), says nothing. */
static void rig_warns_about_non_unit_rest_rotations(void)
{
    log_record log = {0};
    bw_rig_joint_desc joints[2] = {{"root", -1, bw_transform_identity}, {"arm", 0, bw_transform_identity}};
    joints[0].rest.r[1] = 0.6f;
    joints[0].rest.r[3] = 0.8f;
    joints[1].rest.r[3] = 2.0f;
    bw_rig_desc desc = {.joints = joints, .joint_count = 2, .logger = {record, &log}};
    bw_rig *rig = fixture_rig_desc(&desc);
    CHECK_INT(log.count, 1);
    CHECK_INT(log.level, BW_LOG_WARNING);
    CHECK_STR(log.last, "rig: joint 'arm' (index 1): rest rotation had length 2; normalized");
    CHECK_NEAR(bw_rig_rest_pose(rig)[1].r[3], 1.0, 0.0);
    bw_rig_destroy(rig);
}

int main(void)
{
    RUN(clip_warns_once_per_track_about_non_unit_keys);
    RUN(sequence_passes_its_logger_on);
    RUN(rig_warns_about_non_unit_rest_rotations);
    return check_summary();
}
