/* test_humanoid.c - scripts/humanoid.lua, the built-in humanoid character.
 *
 * The script runs in the sandbox (bindings/sandbox.h) with its folder as
 * the mod's folder, exactly as every host runs a character file; the test
 * then reads the rig and clips behind the returned handles and checks the
 * numbers the script states in its comments:
 * - 26 joints in a fixed parent-first order, 18 clips with unique names
 *   (15 body clips, 3 ARKit-52 face clips);
 * - the foot-down markers of every locomotion clip: foot_l at 0, foot_r at
 *   half the cycle (walk cycle 1.0 s, run cycle 0.7 s);
 * - every locomotion cycle returns to its start pose (every joint's
 *   sampled transform at the cycle's end equals the one at 0 within 1e-4),
 *   except the root's ground travel, which equals speed × length;
 * - the root moves at the stated ground speed (linear keys): walk 1.5 m/s,
 *   run 4 m/s, in the clip's direction (fwd +Z, back -Z, left +X, right
 *   -X), checked mid-segment where an eased key would show;
 * - "tens of keys per clip": no clip has more than 100 keys in all;
 * - the face clips hold only ARKit-named float curves, and the animator's
 *   face layer reads them: face_talk at 0.15 s gives jawOpen 0.45 (its
 *   key there) and mouthFunnel 0.2 (linear from 0 at 0 s to 0.4 at 0.3 s:
 *   0.4 * 0.15 / 0.3); face_smile, whose clock also ran 0.15 s, gives
 *   mouthSmileLeft 0.8 + 0.1 * 0.15 / 1.5 = 0.81.
 */
#include <math.h>
#include <string.h>

#include "blendwerk/animator.h"
#include "blendwerk/bind.h"
#include "blendwerk/clip.h"
#include "blendwerk/pose.h"
#include "blendwerk/rig.h"
#include "blendwerk/sample.h"
#include "check.h"
#include "lua_support.h"
#include "sandbox.h"

#include <lauxlib.h>

static bw_sandbox *sb;
static const bw_rig *rig;
static const bw_clip *clips[32];
static int clip_count;

static const char *const JOINTS[] = {
    "root",    "hips",       "spine_01",   "spine_02",   "spine_03", "neck_01",    "neck_02",    "head",       "eye_l",
    "eye_r",   "clavicle_l", "upperarm_l", "lowerarm_l", "hand_l",   "clavicle_r", "upperarm_r", "lowerarm_r", "hand_r",
    "thigh_l", "calf_l",     "foot_l",     "toe_l",      "thigh_r",  "calf_r",     "foot_r",     "toe_r",
};
static const int PARENTS[] = {-1, 0, 1,  2,  3,  4, 5,  6,  7,  7, 4,  10, 11,
                              12, 4, 14, 15, 16, 1, 18, 19, 20, 1, 22, 23, 24};
static const char *const CLIPS[] = {
    "idle",      "walk_fwd",   "walk_back", "walk_left", "walk_right", "run_fwd", "run_back",  "run_left",
    "run_right", "jump_start", "jump_air",  "jump_land", "wave",       "nod",     "breathing", "face_idle",
    "face_talk", "face_smile",
};
#define BODY_CLIP_COUNT 15 /* the face clips come last */
#define JOINT_COUNT ((int)(sizeof JOINTS / sizeof JOINTS[0]))
#define CLIP_COUNT ((int)(sizeof CLIPS / sizeof CLIPS[0]))

/* Run the script; the returned table stays on the sandbox's stack, so the
 * handles (and the C objects behind them) live until the sandbox goes. */
static bool load_humanoid(void)
{
    char err[BW_SANDBOX_ERROR_MAX];
    bw_sandbox_desc desc = {.dir = BW_SOURCE_DIR "/scripts", .name = "humanoid.lua"};
    sb = bw_sandbox_create(&desc, err, sizeof err);
    if (!sb) {
        fprintf(stderr, "bw_sandbox_create: %s\n", err);
        return false;
    }
    if (bw_sandbox_load_file(sb, "humanoid.lua", NULL) != BW_SANDBOX_OK || bw_sandbox_call(sb, 0, 1) != BW_SANDBOX_OK) {
        fprintf(stderr, "humanoid.lua: %s\n", bw_sandbox_error(sb));
        return false;
    }
    lua_State *L = bw_sandbox_state(sb);
    if (!lua_istable(L, -1)) return false;
    lua_getfield(L, -1, "rig");
    bw_lua_rig *r = bw_lua_test_object(L, -1, "blendwerk.Rig");
    lua_pop(L, 1);
    if (!r) return false;
    rig = r->rig;
    lua_getfield(L, -1, "clips");
    int n = (int)luaL_len(L, -1);
    for (int i = 1; i <= n && clip_count < 32; i++) {
        lua_geti(L, -1, i);
        bw_lua_clip *c = bw_lua_test_object(L, -1, "blendwerk.Clip");
        lua_pop(L, 1);
        if (!c) return false;
        clips[clip_count++] = c->clip;
    }
    lua_pop(L, 1);
    return true;
}

static const bw_clip *clip_named(const char *name)
{
    for (int i = 0; i < clip_count; i++)
        if (strcmp(bw_clip_name(clips[i]), name) == 0) return clips[i];
    return NULL;
}

static void rig_has_the_conventional_joints_parents_first(void)
{
    CHECK_INT(bw_rig_joint_count(rig), JOINT_COUNT);
    for (int j = 0; j < JOINT_COUNT && j < bw_rig_joint_count(rig); j++) {
        CHECK_STR(bw_rig_joint_name(rig, j), JOINTS[j]);
        CHECK_INT(bw_rig_joint_parent(rig, j), PARENTS[j]);
    }
    /* Proportions: the hips 0.96 m up; the toes' model-space height is
     * 0.96 - 0.05 - 0.42 - 0.42 - 0.06 = 0.01 m, and they point +Z
     * (forward). The head ends up at 0.96 + 0.10 + 0.12 + 0.12 + 0.15 +
     * 0.05 + 0.05 = 1.55 m. */
    bw_pose rest;
    CHECK(bw_pose_init(&rest, rig, NULL) == BW_OK);
    bw_pose_set_rest(&rest, rig);
    float model[32][4][4];
    bw_pose_local_to_model(rig, &rest, model);
    int toe = bw_rig_find_by_name(rig, "toe_l"), head = bw_rig_find_by_name(rig, "head");
    CHECK_NEAR(model[toe][3][1], 0.01, 1e-5);
    CHECK_NEAR(model[toe][3][2], 0.13, 1e-5);
    CHECK_NEAR(model[toe][3][0], 0.09, 1e-5); /* the left side is +X */
    CHECK_NEAR(model[head][3][1], 1.55, 1e-5);
    bw_pose_deinit(&rest);
}

static void clips_are_the_listed_eighteen_with_unique_names(void)
{
    CHECK_INT(clip_count, CLIP_COUNT);
    for (int i = 0; i < CLIP_COUNT && i < clip_count; i++) CHECK_STR(bw_clip_name(clips[i]), CLIPS[i]);
    for (int i = 0; i < clip_count; i++)
        for (int k = i + 1; k < clip_count; k++) CHECK(strcmp(bw_clip_name(clips[i]), bw_clip_name(clips[k])) != 0);
    /* looping: idle, the eight locomotion clips, jump_air, breathing, the
     * three face clips */
    int loops = 0;
    for (int i = 0; i < clip_count; i++) loops += bw_clip_loop(clips[i]);
    CHECK_INT(loops, 14);
    CHECK(!bw_clip_loop(clip_named("jump_start")) && !bw_clip_loop(clip_named("jump_land")));
    CHECK(bw_clip_loop(clip_named("jump_air")));
}

static void every_clip_is_small_and_binds_exactly(void)
{
    for (int i = 0; i < clip_count; i++) {
        int keys = 0;
        for (int t = 0; t < bw_clip_track_count(clips[i]); t++) {
            bw_track_desc td;
            CHECK(bw_clip_track(clips[i], t, &td) == BW_OK);
            keys += td.key_count;
        }
        if (keys > 100) fprintf(stderr, "%s: %d keys\n", bw_clip_name(clips[i]), keys);
        CHECK(keys > 0 && keys <= 100);
        bw_binding *b = NULL;
        bw_binding_desc bd = {.clip = clips[i], .rig = rig};
        CHECK(bw_binding_create(&bd, &b, NULL) == BW_OK);
        bw_bind_report rep = bw_binding_report(b);
        /* every body track by (parent, name); the face curves have no rig
         * curve to bind to (the animator reads them from the clip) */
        CHECK_INT(rep.bound, i < BODY_CLIP_COUNT ? bw_clip_track_count(clips[i]) : 0);
        CHECK_INT(rep.by_name, 0);
        bw_binding_destroy(b);
    }
}

typedef struct gait {
    const char *name;
    float length, speed, dx, dz;
} gait;

static const gait GAITS[] = {
    {"walk_fwd", 1.0f, 1.5f, 0, 1},    {"walk_back", 1.0f, 1.5f, 0, -1}, {"walk_left", 1.0f, 1.5f, 1, 0},
    {"walk_right", 1.0f, 1.5f, -1, 0}, {"run_fwd", 0.7f, 4.0f, 0, 1},    {"run_back", 0.7f, 4.0f, 0, -1},
    {"run_left", 0.7f, 4.0f, 1, 0},    {"run_right", 0.7f, 4.0f, -1, 0},
};

static void locomotion_clips_mark_the_foot_contacts(void)
{
    for (size_t g = 0; g < sizeof GAITS / sizeof GAITS[0]; g++) {
        const bw_clip *c = clip_named(GAITS[g].name);
        CHECK(c != NULL);
        if (!c) continue;
        CHECK(bw_clip_loop(c));
        CHECK_NEAR(bw_clip_length(c), GAITS[g].length, 1e-6);
        CHECK_INT(bw_clip_marker_count(c), 2);
        CHECK_STR(bw_clip_marker_name(c, 0), "foot_l");
        CHECK_NEAR(bw_clip_marker_time(c, 0), 0.0, 1e-6);
        CHECK_STR(bw_clip_marker_name(c, 1), "foot_r");
        CHECK_NEAR(bw_clip_marker_time(c, 1), GAITS[g].length / 2, 1e-6);
    }
}

static void sample(const bw_clip *c, float time, bw_pose *out)
{
    bw_binding *b = NULL;
    bw_binding_desc bd = {.clip = c, .rig = rig};
    CHECK(bw_binding_create(&bd, &b, NULL) == BW_OK);
    bw_sample_clip(b, rig, time, out);
    bw_binding_destroy(b);
}

static void locomotion_cycles_return_to_their_start_pose(void)
{
    bw_pose a, b;
    CHECK(bw_pose_init(&a, rig, NULL) == BW_OK && bw_pose_init(&b, rig, NULL) == BW_OK);
    for (size_t g = 0; g < sizeof GAITS / sizeof GAITS[0]; g++) {
        const bw_clip *c = clip_named(GAITS[g].name);
        if (!c) continue;
        sample(c, 0, &a);
        sample(c, bw_clip_length(c), &b);
        for (int j = 0; j < a.joint_count; j++) {
            const bw_transform *x = &a.joints[j], *y = &b.joints[j];
            float dot = x->r[0] * y->r[0] + x->r[1] * y->r[1] + x->r[2] * y->r[2] + x->r[3] * y->r[3];
            CHECK(fabsf(dot) >= 1 - 1e-4f);
            CHECK_NEAR(a.coverage[j], b.coverage[j], 0);
            if (j == 0) continue; /* the root travels: below */
            for (int k = 0; k < 3; k++) CHECK_NEAR(y->t[k] - x->t[k], 0, 1e-4);
        }
        /* root: travel over one cycle = speed × length along the direction,
         * no vertical motion */
        float travel = GAITS[g].speed * GAITS[g].length;
        CHECK_NEAR(b.joints[0].t[0] - a.joints[0].t[0], GAITS[g].dx * travel, 1e-4);
        CHECK_NEAR(b.joints[0].t[1] - a.joints[0].t[1], 0, 1e-6);
        CHECK_NEAR(b.joints[0].t[2] - a.joints[0].t[2], GAITS[g].dz * travel, 1e-4);
    }
    bw_pose_deinit(&a);
    bw_pose_deinit(&b);
}

static void the_root_moves_at_the_stated_ground_speed(void)
{
    bw_pose p;
    CHECK(bw_pose_init(&p, rig, NULL) == BW_OK);
    for (size_t g = 0; g < sizeof GAITS / sizeof GAITS[0]; g++) {
        const bw_clip *c = clip_named(GAITS[g].name);
        if (!c) continue;
        /* 0.3 of the cycle lies inside the second key segment (0.25..0.5):
         * linear keys give speed × 0.3 × length there (walk_fwd: z =
         * 1.5 × 0.3 = 0.45 m; run_fwd: z = 4 × 0.21 = 0.84 m). */
        float time = 0.3f * GAITS[g].length;
        sample(c, time, &p);
        CHECK_NEAR(p.joints[0].t[0], GAITS[g].dx * GAITS[g].speed * time, 1e-5);
        CHECK_NEAR(p.joints[0].t[2], GAITS[g].dz * GAITS[g].speed * time, 1e-5);
        CHECK_NEAR(p.joints[0].t[1], 0, 1e-6);
    }
    sample(clip_named("walk_fwd"), 0.3f, &p);
    CHECK_NEAR(p.joints[0].t[2], 0.45, 1e-5);
    sample(clip_named("run_fwd"), 0.21f, &p);
    CHECK_NEAR(p.joints[0].t[2], 0.84, 1e-5);
    /* the other clips keep the root at the origin */
    static const char *const still[] = {"idle", "jump_start", "jump_air", "jump_land"};
    for (int i = 0; i < 4; i++) {
        sample(clip_named(still[i]), 0.25f, &p);
        CHECK_NEAR(fabsf(p.joints[0].t[0]) + fabsf(p.joints[0].t[2]), 0, 1e-6);
    }
    bw_pose_deinit(&p);
}

static void the_jump_crouches_keep_the_feet_on_the_ground(void)
{
    /* At a crouch key the thighs lean forward by knee/2 and the shins back
     * by knee/2, so the leg is 0.84 cos(knee/2) tall and the hips sink by
     * 0.84 (1 - cos(knee/2)): jump_start at 0.2 s (knee 60°): hips y =
     * 0.96 - 0.84 × (1 - cos 30°) = 0.96 - 0.112539 = 0.847461, and the
     * ankles stay at their rest height 0.96 - 0.05 - 0.84 = 0.07 (as at
     * jump_land 0.12 s, knee 70°: hips 0.96 - 0.84 × (1 - cos 35°) =
     * 0.808083). */
    static const struct {
        const char *clip;
        float time, hips_y;
    } keys[] = {{"jump_start", 0.2f, 0.847461f}, {"jump_land", 0.12f, 0.808083f}};
    bw_pose p;
    CHECK(bw_pose_init(&p, rig, NULL) == BW_OK);
    float model[32][4][4];
    int hips = bw_rig_find_by_name(rig, "hips"), foot_l = bw_rig_find_by_name(rig, "foot_l"),
        foot_r = bw_rig_find_by_name(rig, "foot_r");
    for (int i = 0; i < 2; i++) {
        bw_pose_set_rest(&p, rig);
        sample(clip_named(keys[i].clip), keys[i].time, &p);
        bw_pose_local_to_model(rig, &p, model);
        CHECK_NEAR(model[hips][3][1], keys[i].hips_y, 1e-5);
        CHECK_NEAR(model[foot_l][3][1], 0.07, 1e-5);
        CHECK_NEAR(model[foot_r][3][1], 0.07, 1e-5);
    }
    bw_pose_deinit(&p);
}

static void breathing_starts_at_the_rest_pose(void)
{
    /* An additive layer subtracts the clip's pose at time 0: for breathing
     * that is the rest pose, so the keyed joints' t = 0 values equal the
     * rig's rest transforms. */
    bw_pose p;
    CHECK(bw_pose_init(&p, rig, NULL) == BW_OK);
    sample(clip_named("breathing"), 0, &p);
    const bw_transform *rest = bw_rig_rest_pose(rig);
    int keyed = 0;
    for (int j = 0; j < p.joint_count; j++) {
        if (p.coverage[j] == 0) continue;
        keyed++;
        for (int k = 0; k < 3; k++) CHECK_NEAR(p.joints[j].t[k], rest[j].t[k], 1e-6);
        for (int k = 0; k < 4; k++) CHECK_NEAR(p.joints[j].r[k], rest[j].r[k], 1e-6);
    }
    CHECK_INT(keyed, 4); /* spine_02, spine_03, clavicle_l, clavicle_r */
    bw_pose_deinit(&p);
}

static void face_clips_drive_the_animator_face(void)
{
    for (int i = BODY_CLIP_COUNT; i < clip_count; i++) {
        CHECK(bw_clip_track_count(clips[i]) > 0);
        for (int t = 0; t < bw_clip_track_count(clips[i]); t++) {
            bw_track_desc td;
            CHECK(bw_clip_track(clips[i], t, &td) == BW_OK);
            CHECK(td.channel == BW_CHANNEL_FLOAT);
            if (bw_arkit52_find(td.joint) < 0) fprintf(stderr, "%s: '%s' is not an ARKit name\n", bw_clip_name(clips[i]), td.joint);
            CHECK(bw_arkit52_find(td.joint) >= 0);
        }
    }
    int talk = -1, smile = -1;
    for (int i = 0; i < clip_count; i++) {
        if (strcmp(bw_clip_name(clips[i]), "face_talk") == 0) talk = i;
        if (strcmp(bw_clip_name(clips[i]), "face_smile") == 0) smile = i;
    }
    CHECK(talk >= 0 && smile >= 0);
    if (talk < 0 || smile < 0) return;
    const int face[2] = {talk, smile};
    bw_animator_desc d;
    memset(&d, 0, sizeof d);
    d.rig = rig;
    d.clips = (const bw_clip *const *)clips;
    d.clip_count = clip_count;
    d.face_clips = face;
    d.face_clip_count = 2;
    d.blink.disabled = true;
    d.head.disabled = true;
    bw_animator *a = NULL;
    CHECK(bw_animator_create(&d, &a, NULL) == BW_OK);
    if (!a) return;
    const float only_talk[2] = {1, 0}, only_smile[2] = {0, 1};
    bw_character_state st;
    memset(&st, 0, sizeof st);
    st.face_weights = only_talk;
    st.face_weight_count = 2;
    CHECK(bw_animator_update(a, 0.15f, &st, NULL) == BW_OK);
    const float *k = bw_animator_arkit(a);
    CHECK_NEAR(k[bw_arkit52_find("jawOpen")], 0.45, 1e-5);
    CHECK_NEAR(k[bw_arkit52_find("mouthFunnel")], 0.2, 1e-5);
    CHECK_NEAR(k[bw_arkit52_find("mouthSmileLeft")], 0.0, 1e-6);
    st.face_weights = only_smile;
    CHECK(bw_animator_update(a, 0.0f, &st, NULL) == BW_OK);
    k = bw_animator_arkit(a);
    CHECK_NEAR(k[bw_arkit52_find("mouthSmileLeft")], 0.81, 1e-5);
    CHECK_NEAR(k[bw_arkit52_find("jawOpen")], 0.05, 1e-5);
    bw_animator_destroy(a);
}

int main(void)
{
    if (!load_humanoid()) {
        fprintf(stderr, "humanoid.lua did not load\n");
        bw_sandbox_destroy(sb);
        return 1;
    }
    RUN(rig_has_the_conventional_joints_parents_first);
    RUN(clips_are_the_listed_eighteen_with_unique_names);
    RUN(every_clip_is_small_and_binds_exactly);
    RUN(locomotion_clips_mark_the_foot_contacts);
    RUN(locomotion_cycles_return_to_their_start_pose);
    RUN(the_root_moves_at_the_stated_ground_speed);
    RUN(the_jump_crouches_keep_the_feet_on_the_ground);
    RUN(breathing_starts_at_the_rest_pose);
    RUN(face_clips_drive_the_animator_face);
    bw_sandbox_destroy(sb);
    return check_summary();
}
