/* fixtures.h - the core objects C tests build over and over, made one way.
 *
 * Each helper creates the object from a desc the test writes out (so every
 * test keeps its own hand-derived numbers beside its fixture) and exits the
 * test program with a message naming the caller's file and line when the
 * core refuses it: a fixture that cannot be built is a broken test, not a
 * result to check. Destroy what they return with the usual bw_*_destroy.
 *
 *   fixture_rig(names, parents, count)   joints at identity rest, no curves
 *   fixture_rig_desc(&desc)              any rig desc
 *   fixture_clip(tracks, count)          a clip of those tracks, defaults otherwise
 *   fixture_clip_desc(&desc)             any clip desc
 *   fixture_binding(clip, rig)           binding without retargeting
 */
#ifndef BW_TEST_FIXTURES_H
#define BW_TEST_FIXTURES_H

#include <stdio.h>
#include <stdlib.h>

#include "blendwerk/bind.h"
#include "blendwerk/clip.h"
#include "blendwerk/rig.h"

static inline void fixture_fail_(const char *file, int line, const char *what, const bw_error *err)
{
    fprintf(stderr, "%s:%d: fixture %s refused: %s\n", file, line, what, err ? err->message : "");
    exit(1);
}

static inline bw_rig *fixture_rig_desc_at_(const bw_rig_desc *desc, const char *file, int line)
{
    bw_rig *rig = NULL;
    bw_error err = {0};
    if (bw_rig_create(desc, &rig, &err) != BW_OK) fixture_fail_(file, line, "rig", &err);
    return rig;
}

static inline bw_rig *fixture_rig_at_(const char *const *names, const int *parents, int count, const char *file,
                                      int line)
{
    bw_rig_joint_desc joints[256];
    if (count > 256) fixture_fail_(file, line, "rig (more than 256 joints)", NULL);
    for (int i = 0; i < count; i++) {
        joints[i].name = names[i];
        joints[i].parent = parents[i];
        joints[i].rest = bw_transform_identity;
    }
    bw_rig_desc desc = {0};
    desc.joints = joints;
    desc.joint_count = count;
    return fixture_rig_desc_at_(&desc, file, line);
}

static inline bw_clip *fixture_clip_desc_at_(const bw_clip_desc *desc, const char *file, int line)
{
    bw_clip *clip = NULL;
    bw_error err = {0};
    if (bw_clip_create(desc, &clip, &err) != BW_OK) fixture_fail_(file, line, "clip", &err);
    return clip;
}

static inline bw_clip *fixture_clip_at_(const bw_track_desc *tracks, int count, const char *file, int line)
{
    bw_clip_desc desc = {0};
    desc.tracks = tracks;
    desc.track_count = count;
    return fixture_clip_desc_at_(&desc, file, line);
}

static inline bw_binding *fixture_binding_at_(const bw_clip *clip, const bw_rig *rig, const char *file, int line)
{
    bw_binding *binding = NULL;
    bw_error err = {0};
    if (bw_binding_create(&(bw_binding_desc){.clip = clip, .rig = rig}, &binding, &err) != BW_OK) fixture_fail_(file, line, "binding", &err);
    return binding;
}

#define fixture_rig(names, parents, count) fixture_rig_at_((names), (parents), (count), __FILE__, __LINE__)
#define fixture_rig_desc(desc) fixture_rig_desc_at_((desc), __FILE__, __LINE__)
#define fixture_clip(tracks, count) fixture_clip_at_((tracks), (count), __FILE__, __LINE__)
#define fixture_clip_desc(desc) fixture_clip_desc_at_((desc), __FILE__, __LINE__)
#define fixture_binding(clip, rig) fixture_binding_at_((clip), (rig), __FILE__, __LINE__)

#endif
