/* test_controls.c - procedural controls (bindings/controls.h) and their
 * math (include/blendwerk/procedural.h): scripts/head_aim.lua against the C
 * animator and against angles worked out here in double precision while
 * the body turns through 720 degrees; the clamp relative to the body, the
 * exact overflow to the eyes, no flip with the target straight behind;
 * scripts/blink.lua's stream against bw_animator_blink_interval;
 * scripts/envelope.lua against bw_gesture_envelope and hand-derived easing
 * values; reload keeping state, bad edits rejected with file:line while the
 * old version runs and every ctx stays as it was; modules the controls require reloading every control
 * that required them (directly or through another module) with their
 * states, a broken module rejected whole with its file:line; the
 * sandbox's module bookkeeping; priority order; no allocation over 10,000
 * frames. */
#define _POSIX_C_SOURCE 200809L
#include <lauxlib.h>
#include <limits.h>
#include <lua.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blendwerk/animator.h"
#include "blendwerk/procedural.h"
#include "character.h"
#include "check.h"
#include "controls.h"
#include "sandbox.h"
#include "test_alloc_counter.h"
#include "test_files.h"

#define SCRIPTS BW_SOURCE_DIR "/scripts"
#define DEG (M_PI / 180.0)

static bw_character *humanoid(void)
{
    static bw_character *h;
    if (!h) {
        char err[512];
        if (!bw_character_load(SCRIPTS "/humanoid.lua", NULL, &h, err, sizeof err)) {
            fprintf(stderr, "humanoid: %s\n", err);
            exit(1);
        }
    }
    return h;
}

static char reported[1024];
static int report_count;
static void on_report(void *user, const char *message)
{
    (void)user;
    report_count++;
    snprintf(reported, sizeof reported, "%s", message);
}

static bw_sandbox *sandbox_in(const char *dir)
{
    bw_sandbox_desc sd = {0};
    sd.dir = dir;
    sd.report = on_report;
    char err[256];
    bw_sandbox *sb = bw_sandbox_create(&sd, err, sizeof err);
    if (!sb) fprintf(stderr, "sandbox: %s\n", err);
    return sb;
}

static bw_controls *runner(bw_sandbox *sb, const char *dir, int characters, bool watch)
{
    bw_controls_desc d = {0};
    d.sandbox = sb;
    d.rig = humanoid()->rig;
    d.character_count = characters;
    d.dir = dir;
    d.watch = watch;
    d.debounce = 0.01;
    char err[256];
    bw_controls *c = bw_controls_create(&d, err, sizeof err);
    if (!c) fprintf(stderr, "controls: %s\n", err);
    return c;
}

static double wrap(double a)
{
    while (a > M_PI) a -= 2 * M_PI;
    while (a <= -M_PI) a += 2 * M_PI;
    return a;
}
static double clampd(double x, double l) { return x > l ? l : (x < -l ? -l : x); }

/* ---- the math ---- */

static void quat_axis(double x, double y, double z, double angle, float *q)
{
    q[0] = (float)(x * sin(angle / 2));
    q[1] = (float)(y * sin(angle / 2));
    q[2] = (float)(z * sin(angle / 2));
    q[3] = (float)cos(angle / 2);
}

static void qmul(const float *a, const float *b, float *o)
{
    float r[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
                  a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                  a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
                  a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
    memcpy(o, r, sizeof r);
}

/* rotate v by q (q v q*) */
static void qrot(const float *q, const float *v, float *o)
{
    float p[4] = {v[0], v[1], v[2], 0}, c[4] = {-q[0], -q[1], -q[2], q[3]}, t[4];
    qmul(q, p, t);
    qmul(t, c, t);
    memcpy(o, t, 3 * sizeof(float));
}

static void check_quat(const float *got, const float *want, double tol)
{
    double d = 0;
    for (int i = 0; i < 4; i++) d += (double)got[i] * want[i];
    CHECK_NEAR(fabs(d), 1.0, tol); /* the same rotation (q and -q alike) */
}

static void swing_twist_splits_about_the_axis(void)
{
    /* q = Rz(0.4) Ry(0.7): about +Y the twist is Ry(0.7), the swing Rz(0.4) */
    float rz[4], ry[4], q[4], swing[4], twist[4];
    quat_axis(0, 0, 1, 0.4, rz);
    quat_axis(0, 1, 0, 0.7, ry);
    qmul(rz, ry, q);
    bw_swing_twist(q, (const float[]){0, 2, 0}, swing, twist); /* any axis length */
    check_quat(twist, ry, 1e-6);
    check_quat(swing, rz, 1e-6);
    /* a pure half-turn swing about X has no twist about Y */
    float rx[4];
    quat_axis(1, 0, 0, M_PI, rx);
    bw_swing_twist(rx, (const float[]){0, 1, 0}, swing, twist);
    check_quat(twist, (const float[]){0, 0, 0, 1}, 1e-6);
    check_quat(swing, rx, 1e-6);
}

static void look_rotation_turns_z_onto_forward(void)
{
    float q[4];
    bw_look_rotation((const float[]){3, 0, 0}, (const float[]){0, 1, 0}, q);
    check_quat(q, (const float[]){0, (float)sin(M_PI / 4), 0, (float)cos(M_PI / 4)}, 1e-6); /* Ry(90°) */
    /* forward (0, 1, 1)/sqrt2 with up +Y: +Z goes to it, +Y to (0, 1, -1)/sqrt2 (Rx(-45°)) */
    bw_look_rotation((const float[]){0, 1, 1}, (const float[]){0, 1, 0}, q);
    float rx[4];
    quat_axis(1, 0, 0, -M_PI / 4, rx);
    check_quat(q, rx, 1e-6);
    /* vertical forward with a parallel up: still +Z onto forward */
    bw_look_rotation((const float[]){0, 1, 0}, (const float[]){0, 1, 0}, q);
    float z[3];
    qrot(q, (const float[]){0, 0, 1}, z);
    CHECK_NEAR(z[0], 0, 1e-6);
    CHECK_NEAR(z[1], 1, 1e-6);
    CHECK_NEAR(z[2], 0, 1e-6);
    bw_look_rotation((const float[]){0, 0, 0}, (const float[]){0, 1, 0}, q);
    check_quat(q, (const float[]){0, 0, 0, 1}, 0);
}

static void rotate_toward_clamps_in_the_body_frame(void)
{
    /* body turned 90° (faces +X); a target direction at world +Z is 90° to
     * the body's right (yaw -90°): with a 0.5 limit the frame turns by
     * -0.5, i.e. to world yaw 90° - 0.5 rad */
    float body[4], q[4], f[3];
    quat_axis(0, 1, 0, M_PI / 2, body);
    bw_rotate_toward(body, (const float[]){0, 0, 1}, 0.5f, 0.3f, q);
    qrot(q, (const float[]){0, 0, 1}, f);
    CHECK_NEAR(atan2(f[0], f[2]), M_PI / 2 - 0.5, 1e-6);
    CHECK_NEAR(f[1], 0, 1e-6);
    /* straight up: pitch clamped to 0.3 */
    bw_rotate_toward(body, (const float[]){0, 1, 0}, 0.5f, 0.3f, q);
    qrot(q, (const float[]){0, 0, 1}, f);
    CHECK_NEAR(asin(f[1]), 0.3, 1e-6);
}

static void model_position_matches_local_to_model(void)
{
    const bw_rig *rig = humanoid()->rig;
    bw_pose pose = {0};
    CHECK(bw_pose_init(&pose, rig, NULL) == BW_OK);
    bw_pose_set_rest(&pose, rig);
    /* bend a few joints so the walk has rotations and scale to compose */
    quat_axis(0, 1, 0, 0.6, pose.joints[2].r);
    quat_axis(1, 0, 0, -0.3, pose.joints[5].r);
    pose.joints[3].s[0] = 1.5f;
    pose.joints[3].s[2] = 0.5f;
    int n = bw_rig_joint_count(rig);
    float(*m)[4][4] = calloc((size_t)n, sizeof *m);
    bw_pose_local_to_model(rig, &pose, m);
    for (int j = 0; j < n; j++) {
        float p[3];
        bw_model_position(rig, &pose, j, p);
        for (int k = 0; k < 3; k++) CHECK_NEAR(p[k], m[j][3][k], 1e-5);
    }
    free(m);
    bw_pose_deinit(&pose);
}

/* ---- head aim: Lua control vs C animator vs angles worked out here ---- */

typedef struct aim_rig {
    bw_sandbox *sb;
    bw_controls *c;
    bw_animator *a;
    bw_pose pose;
    int chain[3];
} aim_rig;

static bool aim_setup(aim_rig *r)
{
    memset(r, 0, sizeof *r);
    const bw_rig *rig = humanoid()->rig;
    r->sb = sandbox_in(SCRIPTS);
    r->c = r->sb ? runner(r->sb, SCRIPTS, 1, false) : NULL;
    char err[512] = "";
    if (!r->c || bw_controls_load(r->c, "head_aim.lua", NULL, err, sizeof err) != 0) {
        fprintf(stderr, "head_aim.lua: %s\n", err);
        CHECK(0);
        return false;
    }
    bw_animator_desc d = {0};
    d.rig = rig;
    d.blink.disabled = true;
    if (bw_animator_create(&d, &r->a, NULL) != BW_OK) {
        CHECK(0);
        return false;
    }
    bw_pose_init(&r->pose, rig, NULL);
    r->chain[0] = bw_rig_find_by_name(rig, "neck_01");
    r->chain[1] = bw_rig_find_by_name(rig, "neck_02");
    r->chain[2] = bw_rig_find_by_name(rig, "head");
    return true;
}

static void aim_teardown(aim_rig *r)
{
    bw_pose_deinit(&r->pose);
    bw_animator_destroy(r->a);
    bw_controls_destroy(r->c);
    bw_sandbox_destroy(r->sb);
}

/* One frame on both; returns the Lua control's head yaw (the yaw of the
 * head's forward in model space when the pitch is 0). */
static void aim_frame(aim_rig *r, float body_yaw, const float *target, float gaze_lua[4], float gaze_c[4])
{
    const bw_rig *rig = humanoid()->rig;
    bw_character_state st = {0};
    st.yaw = body_yaw;
    st.has_look_at = true;
    memcpy(st.look_at, target, sizeof st.look_at);
    CHECK(bw_animator_update(r->a, 1.0f / 60, &st, NULL) == BW_OK);
    bw_pose_set_rest(&r->pose, rig);
    bw_control_input in = {{0, 0, 0}, body_yaw, true, {target[0], target[1], target[2]}};
    CHECK_INT(bw_controls_run(r->c, 0, &r->pose, &in, 1.0f / 60), 0);
    CHECK_INT(bw_controls_read(r->c, 0, "gaze", gaze_lua, 4), 4);
    memcpy(gaze_c, bw_animator_gaze(r->a), 4 * sizeof(float));
    /* Lua == C: the pose, the overrides, the gaze */
    const bw_pose *cp = bw_animator_pose(r->a);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 4; k++) CHECK_NEAR(r->pose.joints[r->chain[i]].r[k], cp->joints[r->chain[i]].r[k], 1e-5);
    bw_joint_override lo[4];
    int nc = 0;
    const bw_joint_override *co = bw_animator_joint_overrides(r->a, &nc);
    CHECK_INT(bw_controls_overrides(r->c, 0, &r->pose, lo, 4), 3);
    CHECK_INT(nc, 3);
    for (int i = 0; i < 3 && i < nc; i++) {
        CHECK_INT(lo[i].joint, co[i].joint);
        for (int k = 0; k < 4; k++) CHECK_NEAR(lo[i].r[k], co[i].r[k], 1e-5);
    }
    for (int k = 0; k < 4; k++) CHECK_NEAR(gaze_lua[k], gaze_c[k], 1e-5);
}

/* The head's world facing minus the body's, from the pose itself. */
static double head_relative_yaw(aim_rig *r)
{
    float q[4], f[3];
    bw_model_rotation(humanoid()->rig, &r->pose, r->chain[2], q);
    qrot(q, (const float[]){0, 0, 1}, f);
    return atan2(f[0], f[2]);
}

static void head_aim_clamp_holds_relative_to_the_body_through_720_degrees(void)
{
    aim_rig r;
    if (!aim_setup(&r)) return;
    /* the rest head is at (0, 1.55, 0.01) in model space (humanoid.lua's
     * offsets: hips 0.96 + spine 0.10 + 0.12 + 0.12 + neck 0.15 + 0.05 +
     * head 0.05; z 0.005 + 0.005); a target at that height, 3 m along world
     * +Z, keeps the pitch at 0, so the head's facing is its yaw exactly */
    const float target[3] = {0.0f, 1.55f, 3.0f};
    double prev_head = 0;
    int flips = 0;
    for (int k = 0; k <= 720; k++) {
        double yaw = k * DEG;
        float gl[4], gc[4];
        /* reloading the script inside the behind band keeps the side: the
         * state (last yaw) carries over through head_aim.lua's reload */
        if (k == 185) CHECK(bw_controls_reload(r.c, "head_aim.lua") == BW_CONTROLS_RELOAD_DONE);
        aim_frame(&r, (float)yaw, target, gl, gc);
        /* angles by hand: head in world = Ry(yaw) (0, 1.55, 0.01) */
        double hx = 0.01 * sin(yaw), hz = 0.01 * cos(yaw);
        double rel = wrap(atan2(target[0] - hx, target[2] - hz) - yaw);
        double head = head_relative_yaw(&r);
        float hy, hp;
        bw_animator_head_aim(r.a, &hy, &hp);
        CHECK(fabs(head) <= 1.2 + 1e-5);   /* the clamp holds relative to the body */
        CHECK_NEAR(head, hy, 1e-5);         /* the pose turned by what was taken */
        CHECK_NEAR(hp, 0, 1e-5);
        bool behind = fabs(rel) > M_PI - 0.2;
        if (!behind) {
            CHECK_NEAR(hy, clampd(rel, 1.2), 1e-5);
            CHECK_NEAR(gl[1], clampd(rel - clampd(rel, 1.2), 0.6), 1e-5); /* the exact overflow */
        } else {
            /* the side turned to last frame is kept: rel taken on that side */
            double kept = (prev_head > 0) == (rel > 0) ? rel : rel + (prev_head > 0 ? 2 * M_PI : -2 * M_PI);
            CHECK_NEAR(hy, clampd(kept, 1.2), 1e-5);
            CHECK_NEAR(gl[1], clampd(kept - clampd(kept, 1.2), 0.6), 1e-5);
        }
        CHECK_NEAR(gl[3], gl[1], 0);
        CHECK_NEAR(gl[0], 0, 1e-5);
        if (k > 0 && (hy > 0) != (prev_head > 0) && fabs(hy) > 1e-3 && fabs(prev_head) > 1e-3) {
            flips++;
            CHECK(fabs(rel) <= M_PI - 0.2 + 1e-4); /* never inside the behind band */
        }
        prev_head = hy;
    }
    /* turning left 720°, the target passes behind twice: one side change
     * each time, 0.2 rad after straight behind */
    CHECK_INT(flips, 2);
    aim_teardown(&r);
}

static void head_aim_pitch_overflow_goes_to_the_eyes(void)
{
    aim_rig r;
    if (!aim_setup(&r)) return;
    /* 1 m in front and 1.2 m above the head: pitch atan2(1.2, 0.99) =
     * 0.88084 rad; the chain takes 0.6, the eyes 0.28084 (< 0.4) */
    const float target[3] = {0.0f, 2.75f, 1.0f};
    float gl[4], gc[4], hy, hp;
    aim_frame(&r, 0.0f, target, gl, gc);
    bw_animator_head_aim(r.a, &hy, &hp);
    double pitch = atan2(1.2, 0.99);
    CHECK_NEAR(hp, 0.6, 1e-6);
    CHECK_NEAR(gl[0], pitch - 0.6, 1e-5);
    CHECK_NEAR(gl[2], pitch - 0.6, 1e-5);
    CHECK_NEAR(gl[1], 0, 1e-6);
    /* far above: the eyes stop at their limit 0.4 */
    const float up[3] = {0.0f, 50.0f, 1.0f};
    aim_frame(&r, 0.0f, up, gl, gc);
    CHECK_NEAR(gl[0], 0.4, 1e-6);
    /* a body turned 30° left, target at world yaw 30° + 1.5 rad: the chain
     * takes 1.2 and the eyes the 0.3 rad left over (body-relative) */
    double by = 30 * DEG, tw = by + 1.5;
    const float side[3] = {(float)(4 * sin(tw)), 1.55f, (float)(4 * cos(tw))};
    aim_frame(&r, (float)by, side, gl, gc);
    bw_animator_head_aim(r.a, &hy, &hp);
    double hx = 0.01 * sin(by), hz = 0.01 * cos(by);
    double rel = wrap(atan2(side[0] - hx, side[2] - hz) - by);
    CHECK_NEAR(rel, 1.5, 3e-3); /* the head sits 1 cm in front of the body's origin */
    CHECK_NEAR(hy, 1.2, 1e-6);
    CHECK_NEAR(gl[1], rel - 1.2, 1e-5);
    aim_teardown(&r);
}

static void head_aim_target_straight_behind_does_not_flip(void)
{
    aim_rig r;
    if (!aim_setup(&r)) return;
    /* body faces +Z; the target sits behind and wobbles across the line
     * straight behind by +-0.05 rad every frame */
    float gl[4], gc[4], hy, hp;
    const float ahead_left[3] = {3.0f, 1.55f, -1.0f}; /* first turn left (yaw > 0) */
    aim_frame(&r, 0.0f, ahead_left, gl, gc);
    bw_animator_head_aim(r.a, &hy, &hp);
    CHECK(hy > 1.19f);
    for (int k = 0; k < 200; k++) {
        double a = M_PI + ((k & 1) ? 0.05 : -0.05); /* world yaw of the target */
        const float t[3] = {(float)(5 * sin(a)), 1.55f, (float)(5 * cos(a))};
        aim_frame(&r, 0.0f, t, gl, gc);
        bw_animator_head_aim(r.a, &hy, &hp);
        CHECK_NEAR(hy, 1.2, 1e-6); /* stays left, fully turned */
        CHECK_NEAR(gl[1], 0.6, 1e-6);
        CHECK(head_relative_yaw(&r) > 1.19);
    }
    aim_teardown(&r);
}

/* ---- blink ---- */

static int call_field(lua_State *L, int table, const char *name)
{
    lua_getfield(L, table, name);
    return lua_type(L, -1);
}

static void blink_stream_matches_the_animator(void)
{
    bw_sandbox *sb = sandbox_in(SCRIPTS);
    lua_State *L = bw_sandbox_state(sb);
    CHECK(bw_sandbox_load_file(sb, "blink.lua", NULL) == BW_SANDBOX_OK);
    CHECK(bw_sandbox_call(sb, 0, 1) == BW_SANDBOX_OK);
    int m = lua_gettop(L);
    /* by hand, seed 1: x = 1 ^ 1<<13 = 8193; ^ 8193>>17 = 8193; ^ 8193<<5
     * = 270369; x>>8 = 1056; 2 + 4 * 1056 / 2^24 = 2.000251770 */
    CHECK(call_field(L, m, "interval") == LUA_TFUNCTION);
    lua_pushinteger(L, 1);
    lua_pushnumber(L, 2);
    lua_pushnumber(L, 6);
    CHECK(bw_sandbox_call(sb, 3, 2) == BW_SANDBOX_OK);
    CHECK_NEAR(lua_tonumber(L, -2), 2.000251770, 1e-9);
    CHECK_INT(lua_tointeger(L, -1), 270369);
    lua_pop(L, 2);
    const uint32_t seeds[] = {1, 0, 12345, 0xffffffffu, 0x9e3779b9u};
    for (int s = 0; s < 5; s++) {
        uint32_t c_rng = seeds[s];
        lua_Integer l_rng = (lua_Integer)seeds[s];
        for (int i = 0; i < 200; i++) {
            float want = bw_animator_blink_interval(&c_rng, 1.5f, 4.5f);
            call_field(L, m, "interval");
            lua_pushinteger(L, l_rng);
            lua_pushnumber(L, 1.5);
            lua_pushnumber(L, 4.5);
            CHECK(bw_sandbox_call(sb, 3, 2) == BW_SANDBOX_OK);
            CHECK_NEAR(lua_tonumber(L, -2), want, 1e-6); /* float rounding of the C side */
            l_rng = lua_tointeger(L, -1);
            CHECK_INT(l_rng, c_rng); /* the stream itself: exact */
            lua_pop(L, 2);
        }
    }
    lua_settop(L, m - 1);

    /* as a control, frame by frame with the animator (same seed, limits) */
    bw_controls *c = runner(sb, SCRIPTS, 1, false);
    char err[512] = "";
    CHECK_INT(bw_controls_load(c, "blink.lua", "{ seed = 777, interval_min = 0.5, interval_max = 1.5, duration = 0.2 }",
                               err, sizeof err),
              0);
    bw_animator_desc d = {0};
    d.rig = humanoid()->rig;
    d.head.disabled = true;
    d.blink.seed = 777;
    d.blink.interval_min = 0.5f;
    d.blink.interval_max = 1.5f;
    d.blink.duration = 0.2f;
    bw_animator *a = NULL;
    CHECK(bw_animator_create(&d, &a, NULL) == BW_OK);
    bw_pose pose = {0};
    bw_pose_init(&pose, d.rig, NULL);
    bw_character_state st = {0};
    int blinks = 0, frames_on = 0;
    for (int f = 0; f < 3000 && a; f++) {
        bw_animator_update(a, 1.0f / 60, &st, NULL);
        int ne = 0;
        const bw_animator_event *ev = bw_animator_events(a, &ne);
        for (int e = 0; e < ne; e++) blinks += ev[e].kind == BW_ANIMATOR_EVENT_BLINK;
        bw_pose_set_rest(&pose, d.rig);
        CHECK_INT(bw_controls_run(c, 0, &pose, NULL, 1.0f / 60), 0);
        float arkit[52];
        CHECK_INT(bw_controls_read(c, 0, "arkit", arkit, 52), 52);
        CHECK_NEAR(arkit[BW_ARKIT52_EYE_BLINK_LEFT], bw_animator_blink(a), 1e-5);
        CHECK_NEAR(arkit[BW_ARKIT52_EYE_BLINK_RIGHT], bw_animator_blink(a), 1e-5);
        frames_on += arkit[0] > 0.0f;
    }
    /* 50 s at 0.5..1.5 s intervals (mean 1 s): about 50 blinks of 12 frames */
    CHECK(blinks > 35 && blinks < 70);
    CHECK(frames_on > 10 * blinks && frames_on <= 12 * blinks + 12);
    bw_pose_deinit(&pose);
    bw_animator_destroy(a);
    bw_controls_destroy(c);
    bw_sandbox_destroy(sb);
}

/* ---- envelope ---- */

static void envelope_weights_match_the_gesture_envelope(void)
{
    bw_sandbox *sb = sandbox_in(SCRIPTS);
    lua_State *L = bw_sandbox_state(sb);
    CHECK(bw_sandbox_load_file(sb, "envelope.lua", NULL) == BW_SANDBOX_OK);
    CHECK(bw_sandbox_call(sb, 0, 1) == BW_SANDBOX_OK);
    int m = lua_gettop(L);
    /* in_out(0.25) = in(0.5) / 2, by hand per curve (easing.h formulas) */
    static const struct {
        const char *name;
        double quarter;
    } curves[] = {
        {"linear", 0.25},
        {"constant", 0.0},
        {"quad", 0.125},
        {"cubic", 0.0625},
        {"quart", 0.03125},
        {"quint", 0.015625},
        {"sine", 0.14644660940672624},  /* (1 - cos(pi/4)) / 2 */
        {"exponential", 0.015625},      /* 2^-5 / 2 */
        {"circular", 0.0669872981077807}, /* (1 - sqrt(0.75)) / 2 */
        {"back", -0.04384875},          /* (2.70158 / 8 - 1.70158 / 4) / 2 */
        {"elastic", -0.0078125},        /* -2^-5 sin(-5.75 * 2pi/3) / 2 = -2^-5 * 0.5 / 2 */
        {"bounce", 0.1171875},          /* (1 - (7.5625 (0.5 - 1.5/2.75)^2 + 0.75)) / 2 */
    };
    for (int i = 0; i < 12; i++) {
        int style = bw_ease_style_find(curves[i].name);
        CHECK(style >= 0);
        bw_gesture_desc g = {2.0f, 0.5f, 1.0f, (bw_ease_style)style, NULL, NULL};
        /* duration 2, fade in 0.5, fade out 1: u = 0.25 at t = 0.125 (in) and
         * t = 1.75 (out); 0.5 at t = 0.25 and 1.5; 1 in the hold */
        const double times[] = {-0.1, 0.0, 0.125, 0.25, 0.4, 1.0, 1.5, 1.75, 1.9, 2.0, 2.5};
        for (int k = 0; k < 11; k++) {
            double t = times[k];
            call_field(L, m, "weight");
            lua_pushnumber(L, t);
            lua_pushnumber(L, 2.0);
            lua_pushnumber(L, 0.5);
            lua_pushnumber(L, 1.0);
            lua_pushstring(L, curves[i].name);
            CHECK(bw_sandbox_call(sb, 5, 1) == BW_SANDBOX_OK);
            double w = lua_tonumber(L, -1);
            lua_pop(L, 1);
            CHECK_NEAR(w, bw_gesture_envelope(&g, (float)t), 1e-6);
            if (t == 0.125 || t == 1.75) CHECK_NEAR(w, curves[i].quarter, 1e-6);
            if (t == 0.25 || t == 1.5) CHECK_NEAR(w, strcmp(curves[i].name, "constant") ? 0.5 : 0.0, 1e-6);
            if (t == 1.0) CHECK_NEAR(w, 1.0, 0);
            if (t < 0 || t > 2.0) CHECK_NEAR(w, 0.0, 0);
        }
    }
    /* new{} closures give the same weights; custom() clamps and guards */
    static const char code[] =
        "local e = ...\n"
        "local f = e.new { fade_in = 0.5, fade_out = 1, curve = 'quad' }\n"
        "local g = e.custom(function(t, d) if t > 1.5 then return 0/0 end return 2 * t - 0.5 end)\n"
        "local h = e.custom(function() return 'x' end)\n"
        "return f(0.125, 2), g(0.1, 2), g(0.5, 2), g(1, 2), g(1.6, 2), g(2.5, 2), h(1, 2),\n"
        "  select(2, pcall(function() local f = e.new { fade_in = -1 }; return f end)),\n"
        "  select(2, pcall(e.new, { curve = 'wobble' })),\n"
        "  select(2, pcall(function() local f = e.new { fade_in = 1, fadeout = 2 }; return f end))\n";
    CHECK(bw_sandbox_load_string(sb, code, sizeof code - 1, "=envtest") == BW_SANDBOX_OK);
    lua_pushvalue(L, m);
    CHECK(bw_sandbox_call(sb, 1, 10) == BW_SANDBOX_OK);
    /* a misspelt field, at the caller's line too */
    CHECK(strstr(lua_tostring(L, -1), "envtest:8: envelope.new: unknown field 'fadeout' (accepted fields: fade_in, "
                                      "fade_out, curve, duration)") != NULL);
    lua_pop(L, 1);
    CHECK_NEAR(lua_tonumber(L, -9), 0.125, 1e-7);
    CHECK_NEAR(lua_tonumber(L, -8), 0.0, 0); /* 2 * 0.1 - 0.5 < 0: clamped */
    CHECK_NEAR(lua_tonumber(L, -7), 0.5, 0);
    CHECK_NEAR(lua_tonumber(L, -6), 1.0, 0); /* 1.5: clamped */
    CHECK_NEAR(lua_tonumber(L, -5), 0.0, 0); /* NaN */
    CHECK_NEAR(lua_tonumber(L, -4), 0.0, 0); /* after the duration */
    CHECK_NEAR(lua_tonumber(L, -3), 0.0, 0); /* not a number */
    const char *msg = lua_tostring(L, -2);
    CHECK(msg && strstr(msg, "envtest:6: envelope.new: fade_in must be") != NULL); /* the caller's line */
    CHECK(strstr(lua_tostring(L, -1), "unknown curve 'wobble'") != NULL);
    lua_settop(L, 0);
    bw_sandbox_destroy(sb);
}

/* ---- the runner: order, reload, bad edits, failures ---- */

static char tmpdir[256];

/* Written beside, then renamed over: as editors save. */
static void write_file(const char *name, const char *text)
{
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", path_in(tmpdir, name));
    CHECK(write_text_file(tmp, text));
    CHECK(rename(tmp, path_in(tmpdir, name)) == 0);
}

static bool make_tmpdir(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/bw_test_controls_XXXXXX");
    return mkdtemp(tmpdir) != NULL;
}

static void remove_tmpdir(void) { CHECK(remove_tree(tmpdir)); }

static float gaze(bw_controls *c, int k)
{
    float g[4] = {0};
    bw_controls_read(c, 0, "gaze", g, 4);
    return g[k];
}

static bw_pose rest_pose(void)
{
    bw_pose p = {0};
    bw_pose_init(&p, humanoid()->rig, NULL);
    bw_pose_set_rest(&p, humanoid()->rig);
    return p;
}

static void controls_run_in_priority_order(void)
{
    CHECK(make_tmpdir());
    write_file("a.lua", "return { priority = 5, update = function(s, p, ctx) ctx.gaze[3] = ctx.gaze[3] * 10 + 1 end }");
    write_file("b.lua", "return { priority = -1, update = function(s, p, ctx) ctx.gaze[3] = ctx.gaze[3] * 10 + 2 end }");
    write_file("c.lua", "return { priority = 5, update = function(s, p, ctx) ctx.gaze[3] = ctx.gaze[3] * 10 + 3 end }");
    bw_sandbox *sb = sandbox_in(tmpdir);
    bw_controls *c = runner(sb, tmpdir, 1, false);
    char err[256];
    CHECK_INT(bw_controls_load(c, "a.lua", NULL, err, sizeof err), 0);
    CHECK_INT(bw_controls_load(c, "b.lua", NULL, err, sizeof err), 1);
    CHECK_INT(bw_controls_load(c, "c.lua", NULL, err, sizeof err), 2);
    bw_pose p = rest_pose();
    CHECK_INT(bw_controls_run(c, 0, &p, NULL, 0.1f), 0);
    CHECK_NEAR(gaze(c, 2), 213, 0); /* b (-1), then a and c (5) in load order */
    /* bad arguments run nothing */
    CHECK_INT(bw_controls_run(c, 1, &p, NULL, 0.1f), -1);
    CHECK_INT(bw_controls_run(c, -1, &p, NULL, 0.1f), -1);
    CHECK_INT(bw_controls_run(NULL, 0, &p, NULL, 0.1f), -1);
    bw_pose_deinit(&p);
    bw_controls_destroy(c);
    bw_sandbox_destroy(sb);
    remove_tmpdir();
}

/* desc.report names the control whose update failed. Control 0 fails
 * from the first frame; control 2 (priority -1: it runs first) from the
 * third: at its report control 0 has 3 failures, so "the first control
 * with failures" would be the wrong answer; the report says 2. */
static int ctl_reports[8], ctl_report_count;
static char ctl_messages[8][256];
static void on_control_report(void *user, int control, const char *message)
{
    CHECK(user == (void *)ctl_reports);
    if (ctl_report_count < 8) {
        ctl_reports[ctl_report_count] = control;
        snprintf(ctl_messages[ctl_report_count], sizeof ctl_messages[0], "%s", message);
    }
    ctl_report_count++;
}

/* A runner of one character over tmpdir whose desc.report is
 * on_control_report; NULL (sandbox and folder gone) when it cannot be made. */
static bw_controls *reporting_runner(bw_sandbox **sb_out)
{
    bw_sandbox *sb = sandbox_in(tmpdir);
    bw_controls_desc d = {0};
    d.sandbox = sb;
    d.rig = humanoid()->rig;
    d.character_count = 1;
    d.dir = tmpdir;
    d.report = on_control_report;
    d.user = ctl_reports;
    char err[256] = "";
    bw_controls *c = bw_controls_create(&d, err, sizeof err);
    CHECK(c != NULL);
    if (!c) {
        bw_sandbox_destroy(sb);
        remove_tmpdir();
        return NULL;
    }
    *sb_out = sb;
    return c;
}

static void a_failing_update_is_reported_with_its_control(void)
{
    CHECK(make_tmpdir());
    write_file("early.lua", "return { priority = 5, update = function(s, p, ctx)\n"
                            "  error('early') end }");
    write_file("fine.lua", "return { update = function(s, p, ctx) ctx.gaze[1] = ctx.gaze[1] + 1 end }");
    write_file("late.lua", "return { priority = -1,\n"
                           "  update = function(s, p, ctx)\n"
                           "    s.n = (s.n or 0) + 1\n"
                           "    if s.n >= 3 then error('late') end end }");
    bw_sandbox *sb = NULL;
    bw_controls *c = reporting_runner(&sb);
    if (!c) return;
    char err[256] = "";
    CHECK_INT(bw_controls_load(c, "early.lua", NULL, err, sizeof err), 0);
    CHECK_INT(bw_controls_load(c, "fine.lua", NULL, err, sizeof err), 1);
    CHECK_INT(bw_controls_load(c, "late.lua", NULL, err, sizeof err), 2);
    bw_pose p = rest_pose();
    report_count = 0;
    ctl_report_count = 0;
    CHECK_INT(bw_controls_run(c, 0, &p, NULL, 0.1f), 1);
    CHECK_INT(ctl_report_count, 1);
    CHECK_INT(ctl_reports[0], 0);
    CHECK(strstr(ctl_messages[0], "early.lua:2: early") != NULL);
    CHECK_INT(bw_controls_run(c, 0, &p, NULL, 0.1f), 1);
    CHECK_INT(ctl_report_count, 1); /* once per version */
    CHECK_INT(bw_controls_run(c, 0, &p, NULL, 0.1f), 2);
    CHECK_INT(bw_controls_failures(c, 0), 3);
    CHECK_INT(bw_controls_failures(c, 2), 1);
    CHECK_INT(ctl_report_count, 2);
    CHECK_INT(ctl_reports[1], 2);
    CHECK(strstr(ctl_messages[1], "late.lua:4: late") != NULL);
    CHECK_NEAR(gaze(c, 0), 3, 0); /* the fine one ran each frame */
    CHECK_INT(report_count, 0);   /* the sandbox's own report function heard none of them */
    /* after the run the sandbox reports to its own function again */
    lua_State *L = bw_sandbox_state(sb);
    bw_sandbox_callback cb;
    CHECK(luaL_loadstring(L, "error('outside')") == LUA_OK);
    CHECK(bw_sandbox_callback_init(sb, &cb));
    CHECK(bw_sandbox_callback_call(sb, &cb, 0, 0) != BW_SANDBOX_OK);
    CHECK_INT(report_count, 1);
    CHECK_INT(ctl_report_count, 2);
    bw_sandbox_callback_deinit(sb, &cb);
    bw_pose_deinit(&p);
    bw_controls_destroy(c);
    bw_sandbox_destroy(sb);
    remove_tmpdir();
}

/* With desc.report, a callback the control's own script made (here a
 * graph predicate its update drives) that fails while the control runs is
 * not the control's update failing: it goes to the sandbox's own report
 * function, and desc.report hears nothing. */
static void a_nested_callback_failure_is_not_the_controls(void)
{
    CHECK(make_tmpdir());
    write_file("nested.lua",
               "local bw = require('blendwerk')\n"
               "local rig = bw.rig { joints = { { name = 'hips' } } }\n"
               "local idle = bw.clip { name = 'idle', length = 1, loop = true, joints = {\n"
               "  { joint = 'hips', keys = { { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 1, 0, 0 } } } } } }\n"
               "local g = assert(bw.graph({ layers = { { name = 'base', entry = 'a',\n"
               "  states = { a = { clip = 'idle' }, b = { clip = 'idle' } },\n"
               "  transitions = { { from = 'a', to = 'b', when = { function(p) error('inner') end } } } } } },\n"
               "  { rig = rig, clips = { idle } }))\n"
               "local cursor = assert(g:cursor())\n"
               "return { update = function(s, p, ctx, dt) cursor:update(0.1) end }\n");
    bw_sandbox *sb = NULL;
    bw_controls *c = reporting_runner(&sb);
    if (!c) return;
    char err[256] = "";
    CHECK_INT(bw_controls_load(c, "nested.lua", NULL, err, sizeof err), 0);
    bw_pose p = rest_pose();
    report_count = 0;
    ctl_report_count = 0;
    CHECK_INT(bw_controls_run(c, 0, &p, NULL, 0.1f), 0); /* the update itself ran fine */
    CHECK_INT(bw_controls_run(c, 0, &p, NULL, 0.1f), 0);
    CHECK_INT(bw_controls_failures(c, 0), 0);
    CHECK_INT(ctl_report_count, 0);
    CHECK_INT(report_count, 1); /* the predicate's first failure, once */
    CHECK(strstr(reported, "nested.lua:7: inner") != NULL);
    bw_pose_deinit(&p);
    bw_controls_destroy(c);
    bw_sandbox_destroy(sb);
    remove_tmpdir();
}

static void a_control_cannot_change_the_hosts_rig(void)
{
    CHECK(make_tmpdir());
    write_file("a.lua", "return { update = function(s, pose, ctx)\n"
                        "  ctx.rig:set_rest(2, { t = { 9, 9, 9 } })\n"
                        "  pose:rig():set_rest(3, { t = { 7, 7, 7 } }) end }");
    bw_sandbox *sb = sandbox_in(tmpdir);
    bw_controls *c = runner(sb, tmpdir, 1, false);
    char err[256];
    CHECK_INT(bw_controls_load(c, "a.lua", NULL, err, sizeof err), 0);
    const bw_rig *rig = humanoid()->rig;
    bw_transform hips = bw_rig_rest_pose(rig)[1], spine = bw_rig_rest_pose(rig)[2];
    bw_pose p = rest_pose();
    CHECK_INT(bw_controls_run(c, 0, &p, NULL, 0.1f), 0);
    CHECK_NEAR(bw_rig_rest_pose(rig)[1].t[1], hips.t[1], 0); /* 0.96, not 9 */
    CHECK_NEAR(bw_rig_rest_pose(rig)[2].t[1], spine.t[1], 0);
    CHECK_NEAR(p.joints[1].t[1], 0.96f, 0); /* the host's pose was not touched either */
    bw_pose_deinit(&p);
    bw_controls_destroy(c);
    bw_sandbox_destroy(sb);
    remove_tmpdir();
}

static const char counter_v1[] = "-- counts frames\n"
                                 "return { keep_state = true,\n"
                                 "  init = function(ctx, o) return { n = o.start or 0 } end,\n"
                                 "  update = function(s, pose, ctx, dt) s.n = s.n + 1; ctx.gaze[1] = s.n end }\n";

/* A keep_state version takes the running version's states; an empty
 * state table carries nothing, so init makes that character's state
 * instead. Before, an edit without init (states {}) left every later
 * keep_state version with {}: restoring the original failed every frame
 * ("attempt to perform arithmetic on a nil value") until a restart. A
 * state the running version filled (here lazily, in update) still carries. */
static void an_empty_state_is_not_kept_init_makes_it(void)
{
    static const char keep[] = "return { keep_state = true,\n"
                               "  init = function() return { n = 5 } end,\n"
                               "  update = function(s, pose, ctx, dt) s.n = s.n + 1; ctx.gaze[1] = s.n end }\n";
    CHECK(make_tmpdir());
    write_file("keep.lua", keep);
    bw_sandbox *sb = sandbox_in(tmpdir);
    bw_controls *c = runner(sb, tmpdir, 2, false);
    char err[512] = "";
    CHECK_INT(bw_controls_load(c, "keep.lua", NULL, err, sizeof err), 0);
    bw_pose p = rest_pose();
    for (int i = 0; i < 2; i++) CHECK_INT(bw_controls_run(c, 0, &p, NULL, 0.1f), 0);
    CHECK_NEAR(gaze(c, 0), 7, 0);
    /* an edit that makes no state (no init, no keep_state): {} per character */
    write_file("keep.lua", "return { update = function(s, pose, ctx, dt) ctx.gaze[1] = -1 end }\n");
    CHECK(bw_controls_reload(c, "keep.lua") == BW_CONTROLS_RELOAD_DONE);
    CHECK_INT(bw_controls_run(c, 0, &p, NULL, 0.1f), 0);
    CHECK_NEAR(gaze(c, 0), -1, 0);
    /* the original back: init runs (n = 5), the first frame gives 6 */
    write_file("keep.lua", keep);
    CHECK(bw_controls_reload(c, "keep.lua") == BW_CONTROLS_RELOAD_DONE);
    CHECK_INT(bw_controls_run(c, 0, &p, NULL, 0.1f), 0);
    CHECK_NEAR(gaze(c, 0), 6, 0);
    CHECK_INT(bw_controls_failures(c, 0), 0);
    /* a keep_state version without init that fills its state lazily: the
     * running state { n = 6 } carries, gains m = 1, 2; a reload of the same
     * file carries { n = 6, m = 2 } on to 3 */
    static const char lazy[] = "return { keep_state = true,\n"
                               "  update = function(s, pose, ctx, dt) s.m = (s.m or 0) + 1; ctx.gaze[1] = s.m + s.n end }\n";
    write_file("keep.lua", lazy);
    CHECK(bw_controls_reload(c, "keep.lua") == BW_CONTROLS_RELOAD_DONE);
    CHECK_INT(bw_controls_run(c, 0, &p, NULL, 0.1f), 0);
    CHECK_INT(bw_controls_run(c, 0, &p, NULL, 0.1f), 0);
    CHECK_NEAR(gaze(c, 0), 8, 0);
    CHECK(bw_controls_reload(c, "keep.lua") == BW_CONTROLS_RELOAD_DONE);
    CHECK_INT(bw_controls_run(c, 0, &p, NULL, 0.1f), 0);
    CHECK_NEAR(gaze(c, 0), 9, 0);
    bw_pose_deinit(&p);
    bw_controls_destroy(c);
    bw_sandbox_destroy(sb);
    remove_tmpdir();
}

static void reload_keeps_state_and_rejects_bad_edits(void)
{
    CHECK(make_tmpdir());
    write_file("counter.lua", counter_v1);
    bw_sandbox *sb = sandbox_in(tmpdir);
    bw_controls *c = runner(sb, tmpdir, 1, false);
    char err[512] = "";
    CHECK_INT(bw_controls_load(c, "counter.lua", "{ start = 100 }", err, sizeof err), 0);
    bw_pose p = rest_pose();
    for (int i = 0; i < 3; i++) bw_controls_run(c, 0, &p, NULL, 0.1f);
    CHECK_NEAR(gaze(c, 0), 103, 0);

    /* a new version that keeps the state: counts on by 10 from 103 */
    write_file("counter.lua", "return { keep_state = true,\n"
                              "  update = function(s, pose, ctx, dt) s.n = s.n + 10; ctx.gaze[1] = s.n end }\n");
    CHECK(bw_controls_reload(c, "counter.lua") == BW_CONTROLS_RELOAD_DONE);
    CHECK_STR(bw_controls_error(c), "");
    bw_controls_run(c, 0, &p, NULL, 0.1f);
    CHECK_NEAR(gaze(c, 0), 113, 0);

    /* bad edits, each rejected whole with file:line; the +10 version runs on */
    static const struct {
        const char *text, *where;
    } bad[] = {
        {"return {\n  update = function(s)\n    s.n = = 1\n  end }\n", "counter.lua:3:"},         /* syntax */
        {"local t = nil\nlocal x = t.field\nreturn { update = function() end }\n", "counter.lua:2:"}, /* runtime */
        {"return { init = function()\n  error('no init today')\nend,\n update = function() end }\n",
         "counter.lua:2: no init today"},                                   /* init fails */
        {"return 42\n", "counter.lua: the script must return a table"},     /* no table */
        {"return { update = 1 }\n", "counter.lua:1: update must be a function"},
        {"return { priority = 1.5, update = function() end }\n", "counter.lua:1: priority must be an integer"},
        {"while true do end\n", "counter.lua:1:"},                           /* the budget stops it */
    };
    for (int i = 0; i < 7; i++) {
        write_file("counter.lua", bad[i].text);
        CHECK(bw_controls_reload(c, "counter.lua") == BW_CONTROLS_RELOAD_REJECTED);
        if (!strstr(bw_controls_error(c), bad[i].where))
            fprintf(stderr, "bad edit %d: error '%s' lacks '%s'\n", i, bw_controls_error(c), bad[i].where);
        CHECK(strstr(bw_controls_error(c), bad[i].where) != NULL);
        bw_controls_run(c, 0, &p, NULL, 0.1f);
        CHECK_NEAR(gaze(c, 0), 123 + 10 * i, 0); /* the previous version, its state */
    }
    CHECK_INT(bw_controls_reloads(c), 1);
    CHECK_NEAR(gaze(c, 0), 183, 0);
    bw_controls_run(c, 0, &p, NULL, 0.1f); /* 193 */

    /* keep_state with reload(state, ctx, options): the state it returns
     * (123 + 10 * 7 = 193 doubled); a reload that raises is rejected */
    write_file("counter.lua", "return { keep_state = true,\n"
                              "  reload = function(s, ctx, o) return { n = s.n * 2 } end,\n"
                              "  update = function(s, pose, ctx, dt) s.n = s.n + 1; ctx.gaze[1] = s.n end }\n");
    CHECK(bw_controls_reload(c, "counter.lua") == BW_CONTROLS_RELOAD_DONE);
    bw_controls_run(c, 0, &p, NULL, 0.1f);
    CHECK_NEAR(gaze(c, 0), 387, 0);
    write_file("counter.lua", "return { keep_state = true,\n"
                              "  reload = function(s) error('keep out') end,\n"
                              "  update = function(s, pose, ctx, dt) s.n = 0; ctx.gaze[1] = s.n end }\n");
    CHECK(bw_controls_reload(c, "counter.lua") == BW_CONTROLS_RELOAD_REJECTED);
    CHECK(strstr(bw_controls_error(c), "counter.lua:2: keep out") != NULL);
    bw_controls_run(c, 0, &p, NULL, 0.1f);
    CHECK_NEAR(gaze(c, 0), 388, 0);
    CHECK_INT(bw_controls_reloads(c), 2);

    /* keep_state false: init runs again (start = 100 from the load's options) */
    write_file("counter.lua", "return { init = function(ctx, o) return { n = o.start } end,\n"
                              "  update = function(s, pose, ctx, dt) s.n = s.n + 1000; ctx.gaze[1] = s.n end }\n");
    CHECK(bw_controls_reload(c, "counter.lua") == BW_CONTROLS_RELOAD_DONE);
    bw_controls_run(c, 0, &p, NULL, 0.1f);
    CHECK_NEAR(gaze(c, 0), 1100, 0);
    CHECK(bw_controls_reload(c, "other.lua") == BW_CONTROLS_RELOAD_NONE);

    /* a runtime error in update: skipped, counted, reported once with file:line */
    write_file("counter.lua", "return { keep_state = true,\n"
                              "  update = function(s, pose, ctx, dt)\n"
                              "    ctx.gaze[2] = ctx.gaze[2] + 1\n"
                              "    if s.n > 1100 then error('too far') end\n"
                              "    s.n = s.n + 1; ctx.gaze[1] = s.n end }\n");
    CHECK(bw_controls_reload(c, "counter.lua") == BW_CONTROLS_RELOAD_DONE);
    report_count = 0;
    CHECK_INT(bw_controls_run(c, 0, &p, NULL, 0.1f), 0);
    CHECK_INT(bw_controls_run(c, 0, &p, NULL, 0.1f), 1);
    CHECK_INT(bw_controls_run(c, 0, &p, NULL, 0.1f), 1);
    CHECK_NEAR(gaze(c, 0), 1101, 0);
    CHECK_NEAR(gaze(c, 1), 3, 0); /* what it wrote before failing stays */
    CHECK_INT(bw_controls_failures(c, 0), 2);
    CHECK_INT(report_count, 1);
    CHECK(strstr(reported, "counter.lua:4: too far") != NULL);

    /* a bad load adds nothing */
    write_file("bad.lua", "return {\n update = function() end,\n priority = 'high' }\n");
    CHECK_INT(bw_controls_load(c, "bad.lua", NULL, err, sizeof err), -1);
    CHECK(strstr(err, "bad.lua:3: priority must be an integer") != NULL); /* the field's line */
    CHECK_INT(bw_controls_load(c, "missing.lua", NULL, err, sizeof err), -1);
    CHECK(strstr(err, "missing.lua") != NULL);
    CHECK_INT(bw_controls_load(c, "counter.lua", "{ start = ", err, sizeof err), -1);
    CHECK(strstr(err, "counter.lua options:1:") != NULL);
    CHECK_INT(bw_controls_count(c), 1);
    bw_pose_deinit(&p);
    bw_controls_destroy(c);
    bw_sandbox_destroy(sb);
    remove_tmpdir();
}

static void poll_reloads_a_saved_file(void)
{
    CHECK(make_tmpdir());
    write_file("counter.lua", counter_v1);
    bw_sandbox *sb = sandbox_in(tmpdir);
    bw_controls *c = runner(sb, tmpdir, 2, true);
    char err[512] = "";
    CHECK_INT(bw_controls_load(c, "counter.lua", NULL, err, sizeof err), 0);
    bw_pose p = rest_pose();
    bw_controls_run(c, 0, &p, NULL, 0.1f);
    CHECK(bw_controls_poll(c, 1.0) == BW_CONTROLS_RELOAD_NONE);
    write_file("counter.lua", "return { keep_state = true,\n"
                              "  update = function(s, pose, ctx, dt) s.n = s.n + 5; ctx.gaze[1] = s.n end }\n");
    bw_controls_reload_result r = BW_CONTROLS_RELOAD_NONE;
    for (double now = 2.0; now < 3.0 && r == BW_CONTROLS_RELOAD_NONE; now += 0.02) r = bw_controls_poll(c, now);
    CHECK(r == BW_CONTROLS_RELOAD_DONE);
    bw_controls_run(c, 0, &p, NULL, 0.1f);
    CHECK_NEAR(gaze(c, 0), 6, 0);
    /* a broken save through the watcher: rejected once, not retried */
    write_file("counter.lua", "return { update = function( }\n");
    r = BW_CONTROLS_RELOAD_NONE;
    for (double now = 4.0; now < 5.0 && r == BW_CONTROLS_RELOAD_NONE; now += 0.02) r = bw_controls_poll(c, now);
    CHECK(r == BW_CONTROLS_RELOAD_REJECTED);
    CHECK(strstr(bw_controls_error(c), "counter.lua:1:") != NULL);
    CHECK(bw_controls_poll(c, 9.0) == BW_CONTROLS_RELOAD_NONE);
    bw_controls_run(c, 0, &p, NULL, 0.1f);
    CHECK_NEAR(gaze(c, 0), 11, 0);
    bw_pose_deinit(&p);
    bw_controls_destroy(c);
    bw_sandbox_destroy(sb);
    remove_tmpdir();
}

/* ---- modules the controls require ---- */

/* Poll past the debounce (0.01 s) from `from`, in 20 ms frames, until the
 * runner reports something (or one second passed). */
static bw_controls_reload_result poll_settled(bw_controls *c, double from)
{
    bw_controls_reload_result r = BW_CONTROLS_RELOAD_NONE;
    for (double now = from; now < from + 1.0 && r == BW_CONTROLS_RELOAD_NONE; now += 0.02) r = bw_controls_poll(c, now);
    return r;
}

/* up.lua counts ctx.gaze[1] up by step.size a frame, down.lua counts
 * ctx.gaze[2] down from 1000 by the same; both keep their state. */
static const char up_lua[] = "local step = require('step')\n"
                             "return { keep_state = true,\n"
                             "  init = function() return { n = 0 } end,\n"
                             "  update = function(s, pose, ctx) s.n = s.n + step.size; ctx.gaze[1] = s.n end }\n";
static const char down_lua[] = "local step = require('step')\n"
                               "return { keep_state = true,\n"
                               "  init = function() return { n = 1000 } end,\n"
                               "  update = function(s, pose, ctx) s.n = s.n - step.size; ctx.gaze[2] = s.n end }\n";

static void run_frames(bw_controls *c, bw_pose *p, int n)
{
    for (int i = 0; i < n; i++) CHECK_INT(bw_controls_run(c, 0, p, NULL, 0.1f), 0);
}

/* A sandbox in tmpdir and a runner (one character) with control files a
 * (index 0) and, unless NULL, b (index 1) loaded. */
static bw_controls *load_two(bw_sandbox **sb, bool watch, const char *a, const char *b)
{
    *sb = sandbox_in(tmpdir);
    bw_controls *c = runner(*sb, tmpdir, 1, watch);
    char err[512] = "";
    CHECK_INT(bw_controls_load(c, a, NULL, err, sizeof err), 0);
    if (b) CHECK_INT(bw_controls_load(c, b, NULL, err, sizeof err), 1);
    return c;
}

static void unload(bw_sandbox *sb, bw_controls *c, bw_pose *p)
{
    bw_pose_deinit(p);
    bw_controls_destroy(c);
    bw_sandbox_destroy(sb);
    remove_tmpdir();
}

/* The module tests' start: a fresh folder with step.lua (size 2) and
 * up.lua, and other.lua of `other` when given, loaded watched (up 0,
 * other 1); one frame run, in which up adds step's size to gaze x once. */
static bw_controls *start_up(bw_sandbox **sb, bw_pose *p, const char *other)
{
    CHECK(make_tmpdir());
    write_file("step.lua", "return { size = 2 }\n");
    write_file("up.lua", up_lua);
    if (other) write_file("other.lua", other);
    bw_controls *c = load_two(sb, true, "up.lua", other ? "other.lua" : NULL);
    *p = rest_pose();
    run_frames(c, p, 1);
    CHECK_NEAR(gaze(c, 0), 2, 0);
    return c;
}

/* `return <expr>` run in the sandbox as a number, or -1 */
static double eval_number(bw_sandbox *sb, const char *text)
{
    if (bw_sandbox_load_string(sb, text, strlen(text), "=eval") != BW_SANDBOX_OK ||
        bw_sandbox_call(sb, 0, 1) != BW_SANDBOX_OK) {
        fprintf(stderr, "eval: %s\n", bw_sandbox_error(sb));
        return -1;
    }
    double v = lua_tonumber(bw_sandbox_state(sb), -1);
    lua_pop(bw_sandbox_state(sb), 1);
    return v;
}

/* `return require('step').size` in the sandbox, or -1 */
static double step_size(bw_sandbox *sb) { return eval_number(sb, "return require('step').size"); }

/* The sandbox's module bookkeeping the runner builds on (sandbox.h "Modules"). */
static void the_sandbox_tracks_modules_and_what_they_required(void)
{
    CHECK(make_tmpdir());
    CHECK(mkdir(path_in(tmpdir, "lib"), 0700) == 0);
    write_file("lib/scale.lua", "return { k = 2 }\n");
    write_file("step.lua", "local scale = require('lib.scale')\nreturn { size = scale.k }\n");
    bw_sandbox *sb = sandbox_in(tmpdir);
    bw_sandbox_requires_begin(sb);
    CHECK_NEAR(step_size(sb), 2, 0);
    CHECK_INT((int)bw_sandbox_requires_end(sb), 3); /* step (0) and, through it, lib.scale (1) */
    CHECK_INT(bw_sandbox_module_count(sb), 2);
    bw_sandbox_requires_begin(sb);
    CHECK_NEAR(step_size(sb), 2, 0); /* from the cache: still both */
    CHECK_INT((int)bw_sandbox_requires_end(sb), 3);
    char path[600], want[600];
    CHECK(bw_sandbox_module_path(sb, 1, path, sizeof path));
    snprintf(want, sizeof want, "%s/lib/scale.lua", tmpdir);
    CHECK_STR(path, want);
    CHECK(!bw_sandbox_module_path(sb, 2, path, sizeof path));
    CHECK_INT(bw_sandbox_module_find(sb, "step.lua"), 0);
    CHECK_INT(bw_sandbox_module_find(sb, "lib/scale.lua"), 1);
    CHECK_INT(bw_sandbox_module_find(sb, "lib.scale.lua"), -1);
    CHECK_INT(bw_sandbox_module_find(sb, "nope.lua"), -1);
    CHECK_INT((int)bw_sandbox_module_dependents(sb, 2), 3); /* step required lib.scale */
    CHECK_INT((int)bw_sandbox_module_dependents(sb, 1), 1);
    CHECK_INT((int)bw_sandbox_modules_changed(sb), 0);
    write_file("lib/scale.lua", "return { k = 50 }\n");
    CHECK_INT((int)bw_sandbox_modules_changed(sb), 2);
    CHECK_INT((int)bw_sandbox_modules_changed(sb), 0); /* reported once */
    /* dropped: read anew; restored: the old values back */
    bw_sandbox_modules_saved saved;
    CHECK(bw_sandbox_modules_drop(sb, 3, &saved));
    CHECK_NEAR(step_size(sb), 50, 0);
    bw_sandbox_modules_restore(sb, &saved);
    CHECK_NEAR(step_size(sb), 2, 0);
    CHECK_INT((int)bw_sandbox_module_dependents(sb, 2), 3);
    /* dropped and committed: the new ones stay */
    CHECK(bw_sandbox_modules_drop(sb, 3, &saved));
    CHECK_NEAR(step_size(sb), 50, 0);
    bw_sandbox_modules_commit(sb, &saved);
    CHECK_NEAR(step_size(sb), 50, 0);
    /* only step dropped: it runs again over the cached lib.scale */
    write_file("lib/scale.lua", "return { k = 7 }\n");
    CHECK(bw_sandbox_modules_drop(sb, 1, &saved));
    CHECK_NEAR(step_size(sb), 50, 0);
    bw_sandbox_modules_commit(sb, &saved);
    bw_sandbox_destroy(sb);
    remove_tmpdir();
}

/* Controls 0 and 1's reloads that went in, that were rejected, and their
 * last reload errors. */
static void check_reloads_at(bw_controls *c, int d0, int d1, int r0, int r1, const char *e0, const char *e1, int line)
{
    bw_control_reloads a = bw_controls_reload_status(c, 0), b = bw_controls_reload_status(c, 1);
    if (a.done != d0 || b.done != d1 || a.rejected != r0 || b.rejected != r1 || strcmp(a.error, e0) ||
        strcmp(b.error, e1)) {
        fprintf(stderr,
                "%s:%d: done %d %d, rejected %d %d, errors \"%s\" \"%s\"; expected %d %d, %d %d, \"%s\" \"%s\"\n",
                __FILE__, line, a.done, b.done, a.rejected, b.rejected, a.error, b.error, d0, d1, r0, r1, e0, e1);
        check_failures_in_test++;
    }
}
#define check_reloads(c, d0, d1, r0, r1, e0, e1) check_reloads_at((c), (d0), (d1), (r0), (r1), (e0), (e1), __LINE__)

static void a_saved_module_reloads_every_control_that_required_it(void)
{
    CHECK(make_tmpdir());
    write_file("step.lua", "return { size = 2 }\n");
    write_file("up.lua", up_lua);
    write_file("down.lua", down_lua);
    bw_sandbox *sb;
    bw_controls *c = load_two(&sb, true, "up.lua", "down.lua");
    bw_pose p = rest_pose();
    run_frames(c, &p, 3);
    CHECK_NEAR(gaze(c, 0), 6, 0);   /* 3 x 2 */
    CHECK_NEAR(gaze(c, 1), 994, 0); /* 1000 - 3 x 2 */
    CHECK(bw_controls_poll(c, 1.0) == BW_CONTROLS_RELOAD_NONE);

    /* the module saved with a new step: both controls reload, in one
     * reload, with their states */
    write_file("step.lua", "return { size = 70 }\n"); /* a size of its own: seen whatever the mtime's grain */
    CHECK(poll_settled(c, 2.0) == BW_CONTROLS_RELOAD_DONE);
    CHECK_STR(bw_controls_error(c), "");
    CHECK_INT(bw_controls_reloads(c), 1);
    check_reloads(c, 1, 1, 0, 0, "", "");
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 76, 0);  /* 6 + 70 */
    CHECK_NEAR(gaze(c, 1), 924, 0); /* 994 - 70 */

    /* broken saves: rejected whole with the module's file:line, not tried
     * again until the file changes; the size-70 versions run on */
    static const struct {
        const char *text, *error;
    } bad[] = {
        {"-- step, version 3\nreturn { size = = 1 }\n", "step.lua:2: unexpected symbol near '='"},
        {"local t = {}\nlocal x = t.a.b\nreturn { size = 1 }\n",
         "step.lua:2: attempt to index a nil value (field 'a')"},
        {"while true do end\n", "step.lua:1: instruction budget of 50000000 exceeded: script stopped"},
        {"error('step is broken')\n", "step.lua:1: step is broken"},
    };
    double now = 3.0;
    for (int i = 0; i < 4; i++, now += 2.0) {
        write_file("step.lua", bad[i].text);
        CHECK(poll_settled(c, now) == BW_CONTROLS_RELOAD_REJECTED);
        CHECK_STR(bw_controls_error(c), bad[i].error);
        check_reloads(c, 1, 1, i + 1, i + 1, bad[i].error, bad[i].error); /* both controls were rejected */
        CHECK(bw_controls_poll(c, now + 1.5) == BW_CONTROLS_RELOAD_NONE);
        run_frames(c, &p, 1);
        CHECK_NEAR(gaze(c, 0), 76 + 70 * (i + 1), 0);
        CHECK_NEAR(gaze(c, 1), 924 - 70 * (i + 1), 0);
    }
    CHECK_INT(bw_controls_reloads(c), 1);
    /* the broken module is pending: reloading a control that requires it
     * reads it again and is rejected too; the size-70 versions run on */
    CHECK(bw_controls_reload(c, "up.lua") == BW_CONTROLS_RELOAD_REJECTED);
    CHECK_STR(bw_controls_error(c), "step.lua:1: step is broken");
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 426, 0); /* 356 + 70 */
    CHECK_NEAR(gaze(c, 1), 574, 0); /* 644 - 70 */

    /* mended: both step by 100 from where they were */
    write_file("step.lua", "return { size = 100 }\n");
    CHECK(poll_settled(c, 12.0) == BW_CONTROLS_RELOAD_DONE);
    CHECK_STR(bw_controls_error(c), "");
    check_reloads(c, 2, 2, 5, 5, "", ""); /* four bad saves, one pending reload of up.lua */
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 526, 0);
    CHECK_NEAR(gaze(c, 1), 474, 0);
    CHECK_INT(bw_controls_reloads(c), 2);

    /* a module edit and a broken edit of one of its controls in one save:
     * the reload is rejected whole - down.lua keeps the size-100 module too */
    write_file("step.lua", "return { size = 1 }\n");
    write_file("up.lua", "local step = require('step')\nreturn { update = 5 }\n");
    CHECK(poll_settled(c, 14.0) == BW_CONTROLS_RELOAD_REJECTED);
    CHECK_STR(bw_controls_error(c), "up.lua:2: update must be a function (it is a number)");
    check_reloads(c, 2, 2, 6, 6, "up.lua:2: update must be a function (it is a number)",
                  "up.lua:2: update must be a function (it is a number)");
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 626, 0);
    CHECK_NEAR(gaze(c, 1), 374, 0);
    /* the control mended: the module saved with it is not forgotten - both
     * controls take the size-1 module now */
    write_file("up.lua", up_lua);
    CHECK(poll_settled(c, 16.0) == BW_CONTROLS_RELOAD_DONE);
    CHECK_STR(bw_controls_error(c), "");
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 627, 0);
    CHECK_NEAR(gaze(c, 1), 373, 0);
    CHECK_INT(bw_controls_reloads(c), 3);
    check_reloads(c, 3, 3, 6, 6, "", "");
    /* down.lua alone: only its version moves; a bad edit of it is its own */
    write_file("down.lua", "-- edited\n");
    CHECK(poll_settled(c, 18.0) == BW_CONTROLS_RELOAD_REJECTED);
    CHECK_STR(bw_controls_error(c), "down.lua: the script must return a table (it returned a nil)");
    check_reloads(c, 3, 3, 6, 7, "", "down.lua: the script must return a table (it returned a nil)");
    write_file("down.lua", down_lua);
    CHECK(poll_settled(c, 20.0) == BW_CONTROLS_RELOAD_DONE);
    check_reloads(c, 3, 4, 6, 7, "", "");
    CHECK_INT(bw_controls_reload_status(c, 2).done, 0); /* a bad index */
    CHECK_STR(bw_controls_reload_status(c, -1).error, "");
    unload(sb, c, &p);
}

static void a_module_of_a_module_reloads_the_controls_above_it(void)
{
    CHECK(make_tmpdir());
    CHECK(mkdir(path_in(tmpdir, "lib"), 0700) == 0);
    write_file("lib/scale.lua", "return { k = 2 }\n");
    write_file("step.lua", "local scale = require('lib.scale')\nreturn { size = 3 * scale.k }\n");
    /* up.lua without keep_state: init runs again at a reload */
    write_file("up.lua", "local step = require('step')\n"
                         "return { init = function() return { n = 0 } end,\n"
                         "  update = function(s, pose, ctx) s.n = s.n + step.size; ctx.gaze[1] = s.n end }\n");
    /* other.lua requires nothing: a module edit leaves it (and its count) alone */
    write_file("other.lua", "return { init = function() return { n = 0 } end,\n"
                            "  update = function(s, pose, ctx) s.n = s.n + 1; ctx.gaze[3] = s.n end }\n");
    bw_sandbox *sb;
    bw_controls *c = load_two(&sb, true, "up.lua", "other.lua");
    bw_pose p = rest_pose();
    run_frames(c, &p, 2);
    CHECK_NEAR(gaze(c, 0), 12, 0); /* 2 x 3 x 2 */
    CHECK_NEAR(gaze(c, 2), 2, 0);
    write_file("lib/scale.lua", "return { k = 50 }\n"); /* a size of its own */
    CHECK(poll_settled(c, 1.0) == BW_CONTROLS_RELOAD_DONE);
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 150, 0); /* init again: 0 + 3 x 50 */
    CHECK_NEAR(gaze(c, 2), 3, 0);   /* not reloaded: counts on */
    /* the host names the module's file (no watcher needed) */
    write_file("lib/scale.lua", "return { k = 10 }\n");
    CHECK(bw_controls_reload(c, "lib/scale.lua") == BW_CONTROLS_RELOAD_DONE);
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 30, 0);
    CHECK_NEAR(gaze(c, 2), 4, 0);
    write_file("lib/scale.lua", "return { k = }\n");
    CHECK(bw_controls_reload(c, "lib/scale.lua") == BW_CONTROLS_RELOAD_REJECTED);
    CHECK_STR(bw_controls_error(c), "lib/scale.lua:1: unexpected symbol near '}'");
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 60, 0); /* the k = 10 version on */
    CHECK(bw_controls_reload(c, "nothing.lua") == BW_CONTROLS_RELOAD_NONE);
    CHECK_INT(bw_controls_reloads(c), 2);
    /* while lib/scale.lua is broken: a control that does not require it
     * reloads; one that does is rejected with the module's error */
    CHECK(bw_controls_reload(c, "other.lua") == BW_CONTROLS_RELOAD_DONE);
    CHECK(bw_controls_reload(c, "up.lua") == BW_CONTROLS_RELOAD_REJECTED);
    CHECK_STR(bw_controls_error(c), "lib/scale.lua:1: unexpected symbol near '}'");
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 90, 0); /* k = 10 still */
    CHECK_NEAR(gaze(c, 2), 1, 0);  /* other.lua started over */
    /* mended: reloading the control reads the pending module too */
    write_file("lib/scale.lua", "return { k = 1 }\n");
    CHECK(bw_controls_reload(c, "up.lua") == BW_CONTROLS_RELOAD_DONE);
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 3, 0); /* init again: 0 + 3 x 1 */
    CHECK_INT(bw_controls_reloads(c), 4);
    unload(sb, c, &p);
}

static void a_module_that_failed_to_load_loads_once_mended(void)
{
    CHECK(make_tmpdir());
    write_file("broken.lua", "local x = nil\nreturn x.y\n");
    write_file("up.lua", "local step = require('broken')\n"
                         "return { update = function(s, pose, ctx) ctx.gaze[1] = step.size end }\n");
    bw_sandbox *sb = sandbox_in(tmpdir);
    bw_controls *c = runner(sb, tmpdir, 1, false);
    char err[512] = "";
    CHECK_INT(bw_controls_load(c, "up.lua", NULL, err, sizeof err), -1);
    CHECK_STR(err, "broken.lua:2: attempt to index a nil value (local 'x')");
    /* not cached as loading: the next require runs the mended file */
    write_file("broken.lua", "return { size = 4 }\n");
    CHECK_INT(bw_controls_load(c, "up.lua", NULL, err, sizeof err), 0);
    bw_pose p = rest_pose();
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 4, 0);
    unload(sb, c, &p);
}

/* A module's syntax error, named by the host: the rejected version is
 * marked as read, so a later poll (another file saved) does not report the
 * same rejection again. */
static void a_module_syntax_error_is_rejected_once(void)
{
    bw_sandbox *sb;
    bw_pose p;
    bw_controls *c = start_up(&sb, &p, "return { update = function(s, pose, ctx) ctx.gaze[3] = 1 end }\n");
    write_file("step.lua", "return { size = = 3 }\n");
    CHECK(bw_controls_reload(c, "step.lua") == BW_CONTROLS_RELOAD_REJECTED);
    CHECK_STR(bw_controls_error(c), "step.lua:1: unexpected symbol near '='");
    write_file("other.lua", "return { update = function(s, pose, ctx) ctx.gaze[3] = 20 end }\n");
    CHECK(poll_settled(c, 1.0) == BW_CONTROLS_RELOAD_DONE); /* other.lua alone */
    CHECK_STR(bw_controls_error(c), "");
    check_reloads(c, 0, 1, 1, 0, "step.lua:1: unexpected symbol near '='", "");
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 4, 0); /* the size-2 module on */
    CHECK_NEAR(gaze(c, 2), 20, 0);
    unload(sb, c, &p);
}

/* A control edit that adds a require of a broken module is rejected;
 * mending only the module reloads the control (its new version). */
static void a_new_broken_module_mended_alone_reloads_its_control(void)
{
    bw_sandbox *sb;
    bw_pose p;
    bw_controls *c = start_up(&sb, &p, NULL);
    write_file("helper.lua", "return { times = }\n");
    write_file("up.lua",
               "local step = require('step')\n"
               "local helper = require('helper')\n"
               "return { keep_state = true,\n"
               "  init = function() return { n = 0 } end,\n"
               "  update = function(s, pose, ctx) s.n = s.n + step.size * helper.times; ctx.gaze[1] = s.n end }\n");
    CHECK(poll_settled(c, 1.0) == BW_CONTROLS_RELOAD_REJECTED);
    CHECK_STR(bw_controls_error(c), "helper.lua:1: unexpected symbol near '}'");
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 4, 0); /* the old version: 2 + 2 */
    write_file("helper.lua", "return { times = 10 }\n");
    CHECK(poll_settled(c, 3.0) == BW_CONTROLS_RELOAD_DONE);
    CHECK_STR(bw_controls_error(c), "");
    check_reloads(c, 1, 0, 1, 0, "", "");
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 24, 0); /* the new version, state kept: 4 + 2 x 10 */
    unload(sb, c, &p);
}

/* A rejected reload leaves no module it loaded for the first time in the
 * cache: wrap.lua (new) took the rejected step.lua (size 70) while it
 * loaded; after the rejection step is back at size 2, and a require of
 * wrap reads it anew against that. */
static void a_rejected_reload_leaves_no_new_module_cached(void)
{
    bw_sandbox *sb;
    bw_pose p;
    bw_controls *c = start_up(&sb, &p, NULL);
    write_file("wrap.lua", "local step = require('step')\nreturn { size = step.size }\n");
    write_file("step.lua", "return { size = 70 }\n");
    write_file("up.lua", "local wrap = require('wrap')\nreturn { update = 5 }\n"); /* broken */
    CHECK(poll_settled(c, 1.0) == BW_CONTROLS_RELOAD_REJECTED);
    CHECK_STR(bw_controls_error(c), "up.lua:2: update must be a function (it is a number)");
    CHECK_NEAR(eval_number(sb, "return require('step').size"), 2, 0);
    CHECK_NEAR(eval_number(sb, "return require('wrap').size"), 2, 0); /* read anew, against step 2 */
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 4, 0); /* the old up.lua and step run on */
    unload(sb, c, &p);
}

/* A reload that takes in a control with a pending module reads that
 * module anew too, also when the reload was asked for another file. */
static void a_reload_reads_the_pending_modules_of_every_control_in_it(void)
{
    CHECK(make_tmpdir());
    write_file("step.lua", "return { size = 2 }\n");
    write_file("helper.lua", "return { times = 1 }\n");
    write_file("up.lua", up_lua);
    write_file("down.lua",
               "local step = require('step')\n"
               "local helper = require('helper')\n"
               "return { keep_state = true,\n"
               "  init = function() return { n = 0 } end,\n"
               "  update = function(s, pose, ctx) s.n = s.n + step.size * helper.times; ctx.gaze[3] = s.n end }\n");
    bw_sandbox *sb;
    bw_controls *c = load_two(&sb, false, "up.lua", "down.lua");
    bw_pose p = rest_pose();
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 2, 0);
    CHECK_NEAR(gaze(c, 2), 2, 0);
    write_file("helper.lua", "return { times = }\n");
    CHECK(bw_controls_reload(c, "helper.lua") == BW_CONTROLS_RELOAD_REJECTED);
    CHECK_STR(bw_controls_error(c), "helper.lua:1: unexpected symbol near '}'");
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 2), 4, 0); /* 2 + 2 x 1 */
    /* helper mended but not named; step named: down.lua reloads for step
     * and takes the pending helper in with it */
    write_file("helper.lua", "return { times = 10 }\n");
    write_file("step.lua", "return { size = 70 }\n");
    CHECK(bw_controls_reload(c, "step.lua") == BW_CONTROLS_RELOAD_DONE);
    CHECK_STR(bw_controls_error(c), "");
    check_reloads(c, 1, 1, 0, 1, "", "");
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 74, 0);  /* 2 + 2 + 70 */
    CHECK_NEAR(gaze(c, 2), 704, 0); /* 4 + 70 x 10 */
    /* the same through a control's name: up.lua's reload takes in down.lua
     * (both require step, pending) and down.lua's pending helper */
    write_file("step.lua", "return { size = }\n");
    CHECK(bw_controls_reload(c, "step.lua") == BW_CONTROLS_RELOAD_REJECTED);
    write_file("helper.lua", "return { times = }\n");
    CHECK(bw_controls_reload(c, "helper.lua") == BW_CONTROLS_RELOAD_REJECTED); /* with the pending step: both */
    check_reloads(c, 1, 1, 2, 3, "step.lua:1: unexpected symbol near '}'", "step.lua:1: unexpected symbol near '}'");
    write_file("step.lua", "return { size = 3 }\n");
    write_file("helper.lua", "return { times = 100 }\n");
    CHECK(bw_controls_reload(c, "up.lua") == BW_CONTROLS_RELOAD_DONE);
    check_reloads(c, 2, 2, 2, 3, "", "");
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 77, 0);   /* 74 + 3 */
    CHECK_NEAR(gaze(c, 2), 1004, 0); /* 704 + 3 x 100 */
    unload(sb, c, &p);
}

/* bw_sandbox_modules_drop when memory runs out at each step in turn:
 * either nothing is dropped (false: the cached value stays) or the value
 * is saved (restore brings it back); never cleared but lost. The file
 * says 70 on disk, so a value read anew instead of the cached 2 shows. */
static void a_module_drop_out_of_memory_loses_nothing(void)
{
    CHECK(make_tmpdir());
    write_file("step.lua", "return { size = 2 }\n");
    bw_sandbox *sb = sandbox_in(tmpdir);
    lua_State *L = bw_sandbox_state(sb);
    CHECK_NEAR(step_size(sb), 2, 0);
    write_file("step.lua", "return { size = 70 }\n");
    int refused = 0, dropped = 0;
    bool lost = false;
    /* the registry one reference bigger each round, so some round's drop
     * has to grow it for its reference; each round the cap rises from
     * nothing spare until the drop fits */
    for (int round = 0; round < 160 && !lost; round++) {
        lua_pushboolean(L, 1);
        luaL_ref(L, LUA_REGISTRYINDEX);
        bool ok = false;
        for (size_t extra = 0; extra < 8192 && !ok && !lost; extra += 8) {
            lua_gc(L, LUA_GCCOLLECT);
            bw_sandbox_set_memory_cap(sb, bw_sandbox_memory_used(sb) + extra);
            bw_sandbox_modules_saved saved;
            ok = bw_sandbox_modules_drop(sb, 1, &saved);
            bw_sandbox_set_memory_cap(sb, 0);
            if (ok) {
                dropped++;
                bw_sandbox_modules_restore(sb, &saved);
            } else {
                refused++;
                CHECK_INT((int)saved.mask, 0);
            }
            double v = step_size(sb);
            if (v != 2) {
                fprintf(stderr, "round %d, %zu bytes spare: drop %s, step.size %g\n", round, extra,
                        ok ? "true" : "false", v);
                CHECK_NEAR(v, 2, 0);
                lost = true;
            }
        }
    }
    CHECK(refused > 0);
    CHECK(dropped > 0);
    bw_sandbox_destroy(sb);
    remove_tmpdir();
}

/* require of a module with a long name (over 40 bytes: Lua allocates
 * such a string each time it is made) when memory runs out at each step in
 * turn: afterwards no module is marked loading, none is left half-loaded,
 * and the next require loads it. */
#define LONG_MODULE "a_module_whose_name_is_longer_than_forty_bytes"
static void a_require_out_of_memory_leaves_no_loading_mark(void)
{
    CHECK(make_tmpdir());
    write_file(LONG_MODULE ".lua", "return { size = 9 }\n");
    bw_sandbox *sb = sandbox_in(tmpdir);
    lua_State *L = bw_sandbox_state(sb);
    static const char text[] = "return require('" LONG_MODULE "').size";
    bool loaded = false;
    int refused = 0;
    for (size_t extra = 0; extra < 65536 && !loaded; extra += 16) {
        CHECK(bw_sandbox_load_string(sb, text, sizeof text - 1, "=oom") == BW_SANDBOX_OK);
        lua_gc(L, LUA_GCCOLLECT);
        bw_sandbox_set_memory_cap(sb, bw_sandbox_memory_used(sb) + extra);
        bw_sandbox_status st = bw_sandbox_call(sb, 0, 1);
        bw_sandbox_set_memory_cap(sb, 0);
        CHECK_INT(bw_sandbox_modules_loading(sb), 0);
        if (st == BW_SANDBOX_OK) {
            CHECK_NEAR(lua_tonumber(L, -1), 9, 0);
            lua_pop(L, 1);
            loaded = true;
            break;
        }
        refused++;
        CHECK_INT((int)st, (int)BW_SANDBOX_MEMORY);
        /* with room again: loads (no "require loop") */
        CHECK(bw_sandbox_load_string(sb, text, sizeof text - 1, "=again") == BW_SANDBOX_OK);
        st = bw_sandbox_call(sb, 0, 1);
        if (st != BW_SANDBOX_OK) {
            fprintf(stderr, "%zu bytes spare, then: %s\n", extra, bw_sandbox_error(sb));
            CHECK_INT((int)st, (int)BW_SANDBOX_OK);
            break;
        }
        CHECK_NEAR(lua_tonumber(L, -1), 9, 0);
        lua_pop(L, 1);
        /* forget it for the next round: out of the cache */
        bw_sandbox_modules_saved saved;
        CHECK(bw_sandbox_modules_drop(sb, 1, &saved));
        bw_sandbox_modules_commit(sb, &saved);
    }
    CHECK(loaded);
    CHECK(refused > 0);
    bw_sandbox_destroy(sb);
    remove_tmpdir();
}

/* A control edit that requires a module not written yet is rejected;
 * writing the module (the control file untouched) reloads the control. */
static void a_control_waiting_for_a_new_module_reloads_when_it_is_made(void)
{
    bw_sandbox *sb;
    bw_pose p;
    bw_controls *c = start_up(&sb, &p, NULL);
    write_file("up.lua", "local helper = require('helper')\n"
                         "return { keep_state = true, init = function() return { n = 0 } end,\n"
                         "  update = function(s, pose, ctx) s.n = s.n + helper.size; ctx.gaze[1] = s.n end }\n");
    CHECK(poll_settled(c, 1.0) == BW_CONTROLS_RELOAD_REJECTED);
    /* the sandbox's require refusal (bindings/sandbox.c open_mod_file) at
     * up.lua's line 1, then the reason (strerror's words, left out) */
    const char *refusal = "up.lua:1: require: cannot open helper.lua: ";
    CHECK_CONTAINS(bw_controls_error(c), refusal);
    CHECK(strncmp(bw_controls_error(c), refusal, strlen(refusal)) == 0);
    CHECK_CONTAINS(bw_controls_error(c), "(only \"blendwerk\" and the mod's own modules can be required)");
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 4, 0); /* the old version on */
    write_file("helper.lua", "return { size = 30 }\n");
    CHECK(poll_settled(c, 3.0) == BW_CONTROLS_RELOAD_DONE);
    CHECK_STR(bw_controls_error(c), "");
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 34, 0); /* the new version, its state kept: 4 + 30 */
    unload(sb, c, &p);
}

/* A missing module takes a slot only while the host records (so the host
 * sees the file appear); outside a record a loop of optional requires
 * takes none, and requires after bw_sandbox_requires_end (a control's
 * update each frame) are not recorded. */
static void a_missing_module_takes_a_slot_only_while_recording(void)
{
    CHECK(make_tmpdir());
    CHECK(mkdir(path_in(tmpdir, "lib"), 0700) == 0);
    write_file("lib/scale.lua", "return { k = 2 }\n");
    write_file("step.lua", "local scale = require('lib.scale')\nreturn { size = scale.k }\n");
    write_file("other.lua", "return { n = 1 }\n");
    bw_sandbox *sb = sandbox_in(tmpdir);
    bw_sandbox_requires_begin(sb);
    CHECK_NEAR(step_size(sb), 2, 0);
    CHECK_NEAR(eval_number(sb, "return select('#', pcall(require, 'nope'))"), 2, 0); /* false, the message */
    /* a refused name takes no slot, even while recording: its file is never looked for */
    CHECK_NEAR(eval_number(sb, "local ok, e = pcall(require, 'a b')\n"
                               "return (not ok and e:find('a b.lua', 1, true)\n"
                               "  and e:find('the name has characters', 1, true)) and 1 or 0"),
               1, 0);
    CHECK_INT(bw_sandbox_module_count(sb), 3);
    CHECK_INT(bw_sandbox_module_find(sb, "a b.lua"), -1);
    CHECK_INT((int)bw_sandbox_requires_end(sb), 7); /* step, lib.scale and the missing nope */
    CHECK_INT(bw_sandbox_module_count(sb), 3);
    CHECK_INT(bw_sandbox_module_find(sb, "nope.lua"), 2);
    CHECK_INT((int)bw_sandbox_modules_changed(sb), 0); /* still missing: no change */
    /* outside a record: no slot for any missing name */
    CHECK_NEAR(eval_number(sb, "for i = 1, 100 do pcall(require, 'optional' .. i) end return 1"), 1, 0);
    CHECK_INT(bw_sandbox_module_count(sb), 3);
    CHECK_NEAR(eval_number(sb, "return require('other').n + require('step').size"), 3, 0);
    CHECK_INT(bw_sandbox_module_count(sb), 4);      /* other: loaded, so tracked */
    CHECK_INT((int)bw_sandbox_requires_end(sb), 7); /* the record was closed: other not in it */
    write_file("nope.lua", "return {}\n");
    CHECK_INT((int)bw_sandbox_modules_changed(sb), 4); /* the missing file made */
    bw_sandbox_destroy(sb);
    remove_tmpdir();
}

/* require("blendwerk") is the API from the start (cached with the
 * environment): no module takes a slot or a bit for it, and a drop and
 * restore of every tracked module leaves it in place. */
static void require_blendwerk_is_cached_and_untracked(void)
{
    CHECK(make_tmpdir());
    write_file("step.lua", "local bw = require('blendwerk')\nreturn { size = bw == blendwerk and 5 or 0 }\n");
    write_file("blendwerk.lua", "return { fake = true }\n"); /* never read: the name is the API's */
    bw_sandbox *sb = sandbox_in(tmpdir);
    bw_sandbox_requires_begin(sb);
    CHECK_NEAR(eval_number(sb, "local bw = require('blendwerk')\n"
                               "return (bw == blendwerk and bw.fake == nil) and 1 or 0"),
               1, 0);
    CHECK_NEAR(step_size(sb), 5, 0);
    CHECK_INT((int)bw_sandbox_requires_end(sb), 1); /* step only */
    CHECK_INT(bw_sandbox_module_count(sb), 1);
    CHECK_INT(bw_sandbox_module_find(sb, "blendwerk.lua"), -1);
    bw_sandbox_modules_saved saved;
    CHECK(bw_sandbox_modules_drop(sb, ~(uint64_t)0, &saved));
    CHECK_NEAR(eval_number(sb, "return require('blendwerk') == blendwerk and 1 or 0"), 1, 0);
    bw_sandbox_modules_restore(sb, &saved);
    CHECK_NEAR(eval_number(sb, "return require('blendwerk') == blendwerk and 1 or 0"), 1, 0);
    CHECK_NEAR(step_size(sb), 5, 0);
    /* a module that returns nothing: true, cached (its file runs once) */
    write_file("runs.lua", "return { n = 0 }\n");
    write_file("empty.lua", "local runs = require('runs')\nruns.n = runs.n + 1\n");
    CHECK_NEAR(eval_number(sb, "local a, b = require('empty'), require('empty')\n"
                               "return (a == true and b == true and require('runs').n == 1) and 1 or 0"),
               1, 0);
    bw_sandbox_destroy(sb);
    remove_tmpdir();
}

/* ---- the worked example of docs/scripting.md ---- */

/* sway.lua as docs/scripting.md shows it (keep the two the same) */
static const char sway_lua[] =
    "-- sway.lua: sway the spine from side to side, fading in over 2 s\n"
    "local envelope = require(\"envelope\")\n"
    "\n"
    "return {\n"
    "    priority = 5,          -- before head_aim (10): the head then aims from the swayed spine\n"
    "    keep_state = true,     -- an edit of update keeps the buffers and the fade\n"
    "    init = function(ctx, options)\n"
    "        local rig = ctx.rig\n"
    "        return {\n"
    "            joints = { rig:find(\"spine_01\"), rig:find(\"spine_02\"), rig:find(\"spine_03\") },\n"
    "            rot = {},                                  -- the batch buffer, reused every frame\n"
    "            amplitude = options.amplitude or 0.05,     -- radians per joint\n"
    "            fade = envelope.new { fade_in = 2, curve = \"sine\" },\n"
    "        }\n"
    "    end,\n"
    "    update = function(s, pose, ctx, dt)\n"
    "        local angle = s.fade(ctx.time, math.huge) * s.amplitude * math.sin(2 * ctx.time)\n"
    "        local c, sn = math.cos(angle / 2), math.sin(angle / 2)\n"
    "        local r = pose:rotations(s.joints, s.rot)      -- 4 numbers per joint, into s.rot\n"
    "        for i = 1, #s.joints do                        -- q = Rz(angle) * q\n"
    "            local k = 4 * (i - 1)\n"
    "            local x, y, z, w = r[k + 1], r[k + 2], r[k + 3], r[k + 4]\n"
    "            r[k + 1], r[k + 2] = c * x - sn * y, c * y + sn * x\n"
    "            r[k + 3], r[k + 4] = c * z + sn * w, c * w - sn * z\n"
    "        end\n"
    "        pose:set_rotations(s.joints, r)\n"
    "    end,\n"
    "}\n";

static void copy_script(const char *name)
{
    char *text = slurp(path_in(SCRIPTS, name));
    CHECK(text && text[0]);
    if (text) write_file(name, text);
    free(text);
}

static void the_documented_sway_example_runs(void)
{
    CHECK(make_tmpdir());
    write_file("a.lua", sway_lua);
    copy_script("envelope.lua");
    bw_sandbox *sb = sandbox_in(tmpdir);
    bw_controls *c = runner(sb, tmpdir, 1, false);
    char err[512] = "";
    CHECK_INT(bw_controls_load(c, "a.lua", NULL, err, sizeof err), 0);
    bw_pose p = rest_pose();
    for (int f = 0; f < 6; f++) {
        bw_pose_set_rest(&p, humanoid()->rig);
        CHECK_INT(bw_controls_run(c, 0, &p, NULL, 0.5f), 0);
    }
    /* t = 3 s: fade 1, angle 0.05 sin 6 about +Z on each spine joint */
    double angle = 0.05 * sin(6.0);
    CHECK_NEAR(angle, -0.013970775, 1e-8);
    for (int k = 0; k < 3; k++) {
        const float *r = p.joints[bw_rig_find_by_name(humanoid()->rig, k == 0 ? "spine_01" : k == 1 ? "spine_02" : "spine_03")].r;
        CHECK_NEAR(r[2], sin(angle / 2), 1e-6);
        CHECK_NEAR(r[3], cos(angle / 2), 1e-6);
        CHECK_NEAR(r[0], 0, 1e-7);
    }
    /* t = 0.5 s: in the fade, sine in-out of u = 0.25 = (1 - cos(pi/4)) / 2 */
    bw_controls_destroy(c);
    c = runner(sb, tmpdir, 1, false);
    CHECK_INT(bw_controls_load(c, "a.lua", "{ amplitude = 0.08 }", err, sizeof err), 0);
    bw_pose_set_rest(&p, humanoid()->rig);
    CHECK_INT(bw_controls_run(c, 0, &p, NULL, 0.5f), 0);
    angle = (1 - cos(M_PI / 4)) / 2 * 0.08 * sin(1.0);
    CHECK_NEAR(p.joints[bw_rig_find_by_name(humanoid()->rig, "spine_02")].r[2], sin(angle / 2), 1e-6);
    bw_pose_deinit(&p);
    bw_controls_destroy(c);
    bw_sandbox_destroy(sb);
    remove_tmpdir();
}

static void head_aim_options_are_checked_with_file_and_line(void)
{
    bw_sandbox *sb = sandbox_in(SCRIPTS);
    bw_controls *c = runner(sb, SCRIPTS, 1, false);
    char err[512] = "";
    CHECK_INT(bw_controls_load(c, "head_aim.lua", "{ yaw_limit = -1 }", err, sizeof err), -1);
    CHECK(strstr(err, "head_aim.lua:43: head_aim: options.yaw_limit must be a finite number >= 0") != NULL);
    CHECK_INT(bw_controls_load(c, "head_aim.lua", "{ chain = { 'neck_01', 'nose' } }", err, sizeof err), -1);
    CHECK(strstr(err, "options.chain[2]: no joint 'nose'") != NULL);
    CHECK_INT(bw_controls_load(c, "blink.lua", "{ seed = -3 }", err, sizeof err), -1);
    CHECK(strstr(err, "blink.lua:") && strstr(err, "options.seed must be an integer"));
    /* a misspelt option names itself and what is accepted, at the line that checks */
    CHECK_INT(bw_controls_load(c, "blink.lua", "{ seed = 3, interval_mn = 0.5 }", err, sizeof err), -1);
    CHECK(strstr(err, "blink.lua:50: blink: options: unknown field 'interval_mn' (accepted fields: seed, "
                      "interval_min, interval_max, duration)") != NULL);
    CHECK_INT(bw_controls_load(c, "head_aim.lua", "{ yaw_limt = 1 }", err, sizeof err), -1);
    CHECK(strstr(err, "head_aim.lua:95: head_aim: options: unknown field 'yaw_limt' (accepted fields: chain, "
                      "weights, yaw_limit, pitch_limit, eye_yaw_limit, eye_pitch_limit, behind)") != NULL);
    CHECK_INT(bw_controls_load(c, "head_aim.lua", "{ 'neck_01' }", err, sizeof err), -1);
    CHECK(strstr(err, "head_aim.lua:95: head_aim: options: unexpected list entry [1]") != NULL);
    CHECK_INT(bw_controls_count(c), 0);
    bw_controls_destroy(c);
    bw_sandbox_destroy(sb);
}

/* NaN and infinite inputs and a huge dt: the controls run on finite
 * numbers (a bad target counts as none) and their outputs stay finite */
static void bad_inputs_and_a_huge_dt_keep_the_outputs_finite(void)
{
    bw_sandbox *sb = sandbox_in(SCRIPTS);
    bw_controls *c = runner(sb, SCRIPTS, 1, false);
    char err[512] = "";
    CHECK_INT(bw_controls_load(c, "head_aim.lua", NULL, err, sizeof err), 0);
    CHECK_INT(bw_controls_load(c, "blink.lua", NULL, err, sizeof err), 1);
    bw_pose p = rest_pose();
    const float nan = NAN, inf = INFINITY;
    const bw_control_input bad[] = {
        {{nan, 0, 0}, 0, true, {0, 1.5f, 2}}, /* position NaN: read as 0 */
        {{0, 0, 0}, inf, true, {0, 1.5f, 2}}, /* yaw infinite: read as 0 */
        {{0, 0, 0}, 0, true, {nan, 1.5f, 2}}, /* target NaN: no target */
    };
    const float dts[] = {1e30f, NAN, -1.0f, INFINITY};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 4; k++) {
            bw_pose_set_rest(&p, humanoid()->rig);
            CHECK_INT(bw_controls_run(c, 0, &p, &bad[i], dts[k]), 0);
            float g[4], arkit[52];
            bw_controls_read(c, 0, "gaze", g, 4);
            bw_controls_read(c, 0, "arkit", arkit, 52);
            for (int n = 0; n < 4; n++) CHECK(isfinite(g[n]));
            CHECK(arkit[0] >= 0.0f && arkit[0] <= 1.0f);
            for (int j = 0; j < p.joint_count; j++)
                for (int q = 0; q < 4; q++) CHECK(isfinite(p.joints[j].r[q]));
        }
    /* the NaN target counted as none: the aim relaxed to 0 */
    float g[4];
    bw_controls_read(c, 0, "gaze", g, 4);
    CHECK_NEAR(g[1], 0, 0);
    bw_pose_deinit(&p);
    bw_controls_destroy(c);
    bw_sandbox_destroy(sb);
}

/* A fresh folder with control `name` (text `text`) loaded, unwatched, as
 * control 0, and a rest pose of the humanoid in *p. */
static bw_controls *one_control(bw_sandbox **sb, bw_pose *p, const char *name, const char *text)
{
    CHECK(make_tmpdir());
    write_file(name, text);
    bw_controls *c = load_two(sb, false, name, NULL);
    *p = rest_pose();
    return c;
}

/* ctx.overrides is the script's: every entry that is not an integer
 * joint index of the rig is skipped, read without a cast of a huge or
 * fractional number (UBSan caught (int)1e30 - 1 here) */
static void hostile_override_entries_are_skipped(void)
{
    bw_sandbox *sb = NULL;
    bw_pose p;
    bw_controls *c = one_control(&sb, &p, "ovr.lua",
                                 "return { init = function(ctx)\n"
                                 "  local o = ctx.overrides\n"
                                 "  o[1] = 1e30; o[2] = -1e30; o[3] = 3; o[4] = 2.5; o[5] = 0/0; o[6] = 2^31\n"
                                 "  o[7] = math.maxinteger; o[8] = math.mininteger; o[9] = '2'; o[10] = 0; o[11] = 2.0\n"
                                 "  return {} end, update = function() end }\n");
    CHECK_INT(bw_controls_run(c, 0, &p, NULL, 0.1f), 0);
    bw_joint_override o[4];
    /* only 3 and 2.0 are joints: 0-based 2 and 1 */
    CHECK_INT(bw_controls_overrides(c, 0, &p, o, 4), 2);
    CHECK_INT(o[0].joint, 2);
    CHECK_INT(o[1].joint, 1);
    CHECK_NEAR(o[0].r[3], p.joints[2].r[3], 0);
    unload(sb, c, &p);
}

/* The runner's per-frame writes and reads touch ctx, which is the
 * script's: a control that removes the input keys (ctx.time = nil) makes
 * the next frame insert them, and a field the host reads may need a new
 * string; at the memory cap either raised outside any protected call (a
 * Lua panic: the host aborted). Now such a frame runs no control and a
 * read gives 0; with room again everything runs. */
static void a_control_removing_its_inputs_at_the_memory_cap_cannot_abort_the_host(void)
{
    bw_sandbox *sb = NULL;
    bw_pose p;
    bw_controls *c = one_control(&sb, &p, "rehash.lua",
                                 "local n = 0\n"
                                 "return { update = function(s, pose, ctx, dt)\n"
                                 "  n = n + 1\n"
                                 "  ctx.time = nil; ctx.yaw = nil; ctx.has_target = nil\n"
                                 "  ctx['j' .. n] = n\n"
                                 "  ctx.gaze[1] = n\n"
                                 "end }\n");
    lua_State *L = bw_sandbox_state(sb);
    const bw_control_input in = {{1, 2, 3}, 0.5f, true, {0, 1, 2}};
    int ran = 0, skipped = 0;
    float g[4] = {0};
    for (int f = 0; f < 600; f++) {
        /* one frame with no room to grow (some need none), one with room */
        lua_gc(L, LUA_GCCOLLECT);
        bw_sandbox_set_memory_cap(sb, bw_sandbox_memory_used(sb) + 64);
        int failed = bw_controls_run(c, 0, &p, &in, 0.1f);
        CHECK(failed == 0 || failed == 1);
        ran += failed == 0;
        skipped += failed == 1;
        CHECK(bw_controls_read(c, 0, "a_field_no_script_has_named", g, 4) == 0);
        bw_sandbox_set_memory_cap(sb, 0);
        CHECK_INT(bw_controls_run(c, 0, &p, &in, 0.1f), 0);
    }
    CHECK(ran > 0);
    CHECK(skipped > 0); /* some frames did need to grow ctx */
    /* with room, the inputs and outputs are there again: each run's
     * update counts one more into gaze[1], and ctx.time is the 1201 dt so
     * far plus this one (a capped frame advances the clock too) */
    CHECK_INT(bw_controls_read(c, 0, "gaze", g, 4), 4);
    float before = g[0];
    write_file("rehash.lua", "local n = 0\n"
                             "return { update = function(s, pose, ctx, dt)\n"
                             "  ctx.gaze[2] = ctx.time\n"
                             "end }\n");
    CHECK_INT(bw_controls_reload(c, "rehash.lua"), BW_CONTROLS_RELOAD_DONE);
    CHECK_INT(bw_controls_run(c, 0, &p, &in, 0.1f), 0);
    CHECK_INT(bw_controls_read(c, 0, "gaze", g, 4), 4);
    CHECK_NEAR(g[0], before, 0);
    CHECK_NEAR(g[1], 1201 * 0.1, 1e-3);
    unload(sb, c, &p);
}

/* A control keeps its pose handle past its update (a global) and another
 * control's init - run at load, outside any run - uses it: it was a pose
 * of 0 joints with no arrays that the single-joint methods indexed by the
 * rig's joint count (a null dereference in the host). Outside a run the
 * handle is a scratch pose of the rig's size: every method works, and
 * what it writes reaches neither the host's pose nor the next run. */
static void a_pose_kept_past_its_update_cannot_reach_the_host(void)
{
    bw_sandbox *sb = NULL;
    bw_pose p;
    bw_controls *c = one_control(&sb, &p, "keeper.lua",
                                 "return { update = function(s, pose, ctx)\n"
                                 "  require('box').kept = pose; ctx.gaze[1] = pose:t(1) end }\n");
    write_file("box.lua", "return {}\n"); /* the controls' globals are their own: a module carries the handle */
    CHECK_INT(bw_controls_run(c, 0, &p, NULL, 0.1f), 0);
    write_file("user.lua", "return { init = function(ctx)\n"
                           "  local p = require('box').kept\n"
                           "  p:set(1, { t = { 7, 8, 9 } })\n"
                           "  local x = p:t(1)\n"
                           "  p:set_rest(); p:clear(); p:set_rotations({ 1 }, { 0, 0, 1, 1 })\n"
                           "  local n = #p:copy():local_to_model() + #p:model_positions({ 2 })\n"
                           "  blendwerk.mix({ p:copy() }, p, p)\n"
                           "  local mx = p:model_position(2)\n"
                           "  ctx.gaze[2] = x; ctx.gaze[3] = p:joint_count(); ctx.gaze[4] = n + mx * 0\n"
                           "  p:set(1, { t = { 5, 5, 5 } })\n"
                           "  return {} end, update = function() end }\n");
    char err[512] = "";
    CHECK_INT(bw_controls_load(c, "user.lua", NULL, err, sizeof err), 1);
    if (err[0]) fprintf(stderr, "user.lua: %s\n", err);
    const int joints = bw_rig_joint_count(humanoid()->rig);
    float g[4] = {0};
    bw_controls_read(c, 0, "gaze", g, 4);
    CHECK_NEAR(g[1], 7, 0);
    CHECK_NEAR(g[2], (float)joints, 0);
    CHECK_NEAR(g[3], (float)(joints + 3), 0); /* one matrix per joint, one position's 3 numbers */
    /* the host's pose has its rest root; the next run's handle is the host's again */
    bw_pose rest = rest_pose();
    CHECK_NEAR(p.joints[0].t[0], rest.joints[0].t[0], 0);
    CHECK_INT(bw_controls_run(c, 0, &p, NULL, 0.1f), 0);
    bw_controls_read(c, 0, "gaze", g, 4);
    CHECK_NEAR(g[0], rest.joints[0].t[0], 0);
    bw_pose_deinit(&rest);
    unload(sb, c, &p);
}

/* ---- a rejected edit changes nothing ---- */

/* The demo's controls share one sandbox. A control edit that changes
 * globals and then fails (mod.lua: `blendwerk = nil`, `math = nil`,
 * `_G`'s metatable) is rejected, and the other controls, their next
 * versions and the running version of the same file see the libraries
 * as they were. Before, the change stayed: a harmless edit of aim.lua
 * was refused with "aim.lua:1: attempt to index a nil value (local
 * 'bw')", and the running version of mod.lua stopped on math. */
static void a_rejected_edit_cannot_change_the_globals_of_others(void)
{
    static const char aim[] = "local bw = blendwerk\n"
                              "local q = bw.swing_twist\n"
                              "return { update = function(s, pose, ctx) ctx.gaze[1] = math.floor(math.pi * 100) end }\n";
    CHECK(make_tmpdir());
    write_file("aim.lua", aim);
    write_file("mod.lua", "count = 0\n"
                          "return { update = function(s, pose, ctx) count = count + 1; ctx.gaze[2] = count + math.floor(0.5) end }\n");
    bw_sandbox *sb = NULL;
    bw_controls *c = load_two(&sb, false, "aim.lua", "mod.lua");
    bw_pose p = rest_pose();
    run_frames(c, &p, 2);
    CHECK_NEAR(gaze(c, 0), 314, 0);
    CHECK_NEAR(gaze(c, 1), 2, 0);
    static const char *const hostile[] = {
        "blendwerk = nil\nmath = nil\ncount = -100\nerror('oops')\n",
        "setmetatable(_G, { __index = function() error('hijacked') end })\n",
        "rawset(_G, 'math', nil)\nload('blendwerk = nil; math = nil')()\nerror('oops')\n",
    };
    static const char *const why[] = {"mod.lua:4: oops", "mod.lua:1: cannot change a protected metatable",
                                      "mod.lua:3: oops"};
    for (int i = 0; i < 3; i++) {
        write_file("mod.lua", hostile[i]);
        CHECK(bw_controls_reload(c, "mod.lua") == BW_CONTROLS_RELOAD_REJECTED);
        CHECK_STR(bw_controls_error(c), why[i]);
        run_frames(c, &p, 1); /* both run: math and their globals as they were */
        CHECK_NEAR(gaze(c, 1), 3 + i, 0);
    }
    CHECK_NEAR(gaze(c, 0), 314, 0);
    write_file("aim.lua", aim); /* a harmless edit of the other control goes in */
    CHECK(bw_controls_reload(c, "aim.lua") == BW_CONTROLS_RELOAD_DONE);
    CHECK_STR(bw_controls_error(c), "");
    run_frames(c, &p, 1);
    CHECK_INT(bw_controls_failures(c, 0) + bw_controls_failures(c, 1), 0);
    unload(sb, c, &p);
}

/* reload(state) gets a deep copy of the running state: a reload that
 * changes it and then fails leaves the running version's state as it
 * was, nested tables included (before, v1 went on from -3000). A reload
 * that changes the copy in place and returns nil keeps its changes; the
 * copy has the shape of the state (a cycle, a table reached twice) and
 * shares the host's tables (ctx.gaze) and tables with a metatable. */
static void a_rejected_reload_leaves_the_running_state_untouched(void)
{
    static const char v1[] = "local shared = setmetatable({ tag = 7 }, {})\n"
                             "return { keep_state = true,\n"
                             "  init = function(ctx)\n"
                             "    local inner = { k = 1 }\n"
                             "    local s = { n = 0, sub = inner, again = inner, g = ctx.gaze, meta = shared }\n"
                             "    s.self = s\n"
                             "    return s end,\n"
                             "  update = function(s, pose, ctx)\n"
                             "    s.n = s.n + 1; ctx.gaze[1] = s.n; ctx.gaze[2] = s.sub.k\n"
                             "    ctx.gaze[3] = s.hijacked and 1 or 0 end }\n";
    CHECK(make_tmpdir());
    write_file("count.lua", v1);
    bw_sandbox *sb = NULL;
    bw_controls *c = load_two(&sb, false, "count.lua", NULL);
    bw_pose p = rest_pose();
    run_frames(c, &p, 3);
    CHECK_NEAR(gaze(c, 0), 3, 0);
    write_file("count.lua", "return { keep_state = true,\n"
                            "  reload = function(s)\n"
                            "    s.n = -3000; s.sub.k = 99; s.hijacked = true; s.meta.tag = 8\n"
                            "    error('half way') end,\n"
                            "  update = function(s, pose, ctx) end }\n");
    CHECK(bw_controls_reload(c, "count.lua") == BW_CONTROLS_RELOAD_REJECTED);
    CHECK_STR(bw_controls_error(c), "count.lua:4: half way");
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 4, 0); /* from 3, not from -3000 */
    CHECK_NEAR(gaze(c, 1), 1, 0); /* the nested table too */
    CHECK_NEAR(gaze(c, 2), 0, 0);
    /* in place, returning nil: the changed copy carries; its shape and the shared tables */
    write_file("count.lua", "return { keep_state = true,\n"
                            "  reload = function(s, ctx)\n"
                            "    s.n = s.n * 10; s.sub.k = s.sub.k + 1 end,\n"
                            "  update = function(s, pose, ctx)\n"
                            "    s.n = s.n + 1\n"
                            "    s.g[1] = s.n\n" /* s.g is ctx.gaze itself */
                            "    ctx.gaze[2] = s.again.k\n"
                            "    ctx.gaze[3] = (s.self == s and s.sub == s.again and s.meta.tag == 8) and 1 or 0 end }\n");
    CHECK(bw_controls_reload(c, "count.lua") == BW_CONTROLS_RELOAD_DONE);
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 41, 0); /* 4 * 10 + 1, written through s.g */
    CHECK_NEAR(gaze(c, 1), 2, 0);  /* sub and again are one table in the copy */
    CHECK_NEAR(gaze(c, 2), 1, 0);  /* the table with a metatable is shared: the rejected reload's tag = 8 stays */
    unload(sb, c, &p);
}

/* ---- ctx across a rejected load or reload ---- */

/* keeper.lua shares data through ctx in its init (ctx.shared, a joint in
 * ctx.overrides) and reads it back with the host's fields each frame:
 * gaze 1 = shared.n, gaze 2 = #shared.list, gaze 3 = character * 100 +
 * position x when ctx holds no `extra` and still its rig (else -1);
 * mod.lua counts its frames into gaze 4. */
static const char keeper_lua[] = "return {\n"
                                 "  init = function(ctx)\n"
                                 "    ctx.shared = { n = 5, list = { 1, 2 } }\n"
                                 "    ctx.overrides[#ctx.overrides + 1] = 3\n"
                                 "    return {} end,\n"
                                 "  update = function(s, pose, ctx)\n"
                                 "    ctx.gaze[1] = ctx.shared.n; ctx.gaze[2] = #ctx.shared.list\n"
                                 "    ctx.gaze[3] = (ctx.extra == nil and ctx.rig ~= nil) and\n"
                                 "      ctx.character * 100 + ctx.position[1] or -1 end }\n";
static const char counter_mod_lua[] = "return { priority = 1,\n"
                                      "  init = function(ctx) return { n = 0 } end,\n"
                                      "  update = function(s, pose, ctx) s.n = s.n + 1; ctx.gaze[4] = s.n end }\n";
/* What a hostile init or reload does to ctx before it fails: the host's
 * fields, its tables in place, and the data keeper stored. */
#define MANGLE_CTX                                                                                    \
    "    ctx.position = nil; ctx.overrides = {}; ctx.gaze = nil; ctx.rig = nil; ctx.character = 0\n" \
    "    ctx.arkit[1] = 5; ctx.shared.n = 99; ctx.shared.list[3] = 7; ctx.extra = {}\n"

/* One frame at position x; every control must run. */
static void frame_at(bw_controls *c, bw_pose *p, float x)
{
    const bw_control_input in = {{x, 0, 0}, 0, false, {0, 0, 0}};
    CHECK_INT(bw_controls_run(c, 0, p, &in, 0.1f), 0);
}

/* ctx as keeper made it and the host refreshed it at x, and mod's count. */
static void check_ctx(bw_controls *c, float x, float count, int line)
{
    float g[4] = {0}, v[52] = {0};
    int before = check_failures_in_test;
    CHECK_INT(bw_controls_read(c, 0, "gaze", g, 4), 4);
    CHECK_NEAR(g[0], 5, 0);
    CHECK_NEAR(g[1], 2, 0);
    CHECK_NEAR(g[2], 100 + x, 0);
    CHECK_NEAR(g[3], count, 0);
    CHECK_INT(bw_controls_read(c, 0, "position", v, 3), 3); /* the table the host writes */
    CHECK_NEAR(v[0], x, 0);
    CHECK_INT(bw_controls_read(c, 0, "overrides", v, 4), 1);
    CHECK_NEAR(v[0], 3, 0);
    CHECK_INT(bw_controls_read(c, 0, "arkit", v, 52), 52);
    CHECK_NEAR(v[0], 0, 0);
    CHECK_INT(bw_controls_read(c, 0, "extra", v, 4), 0);
    if (check_failures_in_test != before) fprintf(stderr, "  (checked from line %d)\n", line);
}

/* A rejected load or reload leaves every ctx as it was: before, an edit
 * whose init cleared ctx.position and ctx.gaze and then raised (or
 * returned 5, or a keep_state reload that did the same, or a new control
 * doing it as it loaded) was rejected, yet keeper's update failed on
 * every later frame, the host wrote its position into a table ctx no
 * longer held, ctx.overrides lost keeper's joint and ctx.shared.n read
 * 99. Now ctx's fields, its tables (the same tables: the host's writes
 * reach them) and what another control stored are back by value, and
 * the running version of mod.lua counts on. */
static void a_rejected_load_or_reload_leaves_ctx_as_it_was(void)
{
    CHECK(make_tmpdir());
    write_file("keeper.lua", keeper_lua);
    write_file("mod.lua", counter_mod_lua);
    bw_sandbox *sb = NULL;
    bw_controls *c = load_two(&sb, false, "keeper.lua", "mod.lua");
    bw_pose p = rest_pose();
    frame_at(c, &p, 1);
    check_ctx(c, 1, 1, __LINE__);
    static const struct {
        const char *text, *want;
    } edits[] = {
        {"return { priority = 1,\n  init = function(ctx)\n" MANGLE_CTX "    error('init broke') end,\n"
         "  update = function() end }\n",
         "mod.lua:5: init broke"},
        {"return { priority = 1,\n  init = function(ctx)\n" MANGLE_CTX "    return 5 end,\n"
         "  update = function() end }\n",
         "mod.lua:2: init returned a number; return the state table (or nil)"},
        {"return { priority = 1, keep_state = true,\n  reload = function(s, ctx)\n" MANGLE_CTX
         "    error('reload broke') end,\n  update = function() end }\n",
         "mod.lua:5: reload broke"},
    };
    float count = 1, x = 1;
    for (int i = 0; i < 3; i++) {
        write_file("mod.lua", edits[i].text);
        CHECK_INT(bw_controls_reload(c, "mod.lua"), BW_CONTROLS_RELOAD_REJECTED);
        CHECK_STR(bw_controls_error(c), edits[i].want);
        frame_at(c, &p, ++x);
        check_ctx(c, x, ++count, __LINE__);
    }
    /* a memory stop after the changes: the state at its cap while ctx is put back */
    write_file("mod.lua", "return { priority = 1,\n  init = function(ctx)\n" MANGLE_CTX
                          "    local t = {}; while true do t[#t + 1] = {} end end,\n  update = function() end }\n");
    lua_gc(bw_sandbox_state(sb), LUA_GCCOLLECT);
    size_t cap = bw_sandbox_memory_used(sb) + (256 << 10);
    bw_sandbox_set_memory_cap(sb, cap);
    CHECK_INT(bw_controls_reload(c, "mod.lua"), BW_CONTROLS_RELOAD_REJECTED);
    char want[256];
    snprintf(want, sizeof want, "mod.lua:5: memory cap of %zu KiB exceeded: not enough memory, script stopped",
             cap >> 10);
    CHECK_STR(bw_controls_error(c), want);
    bw_sandbox_set_memory_cap(sb, 0);
    frame_at(c, &p, ++x);
    check_ctx(c, x, ++count, __LINE__);
    /* a new control doing the same as it loads: not added, ctx as it was */
    write_file("bad.lua", "return {\n  init = function(ctx)\n" MANGLE_CTX "    error('load broke') end,\n"
                          "  update = function() end }\n");
    char err[512] = "";
    CHECK_INT(bw_controls_load(c, "bad.lua", NULL, err, sizeof err), -1);
    CHECK_STR(err, "bad.lua:5: load broke");
    CHECK_INT(bw_controls_count(c), 2);
    frame_at(c, &p, ++x);
    check_ctx(c, x, ++count, __LINE__);
    /* an edit that goes in keeps what its init stored into ctx */
    write_file("mod.lua", "return { priority = 1,\n"
                          "  init = function(ctx) ctx.shared.n = 6; ctx.note = { 8 }; return { n = 100 } end,\n"
                          "  update = function(s, pose, ctx) s.n = s.n + 1; ctx.gaze[4] = s.n end }\n");
    CHECK_INT(bw_controls_reload(c, "mod.lua"), BW_CONTROLS_RELOAD_DONE);
    frame_at(c, &p, ++x);
    float g[4] = {0};
    CHECK_INT(bw_controls_read(c, 0, "gaze", g, 4), 4);
    CHECK_NEAR(g[0], 6, 0);
    CHECK_NEAR(g[3], 101, 0);
    CHECK_INT(bw_controls_read(c, 0, "note", g, 4), 1);
    CHECK_NEAR(g[0], 8, 0);
    CHECK_INT(bw_controls_failures(c, 0) + bw_controls_failures(c, 1), 0);
    unload(sb, c, &p);
}

/* A module's reload is one: a.lua's init goes through (it counts its
 * inits into ctx.inits) before b.lua refuses the new module, and the
 * rejection takes a's change back with the rest (before, ctx.inits read
 * 2 after the rejected reload: a's init of a version that never ran). The
 * reload that goes in counts again. */
static void a_rejected_module_reload_takes_back_what_its_other_controls_did(void)
{
    CHECK(make_tmpdir());
    write_file("m.lua", "return { v = 1 }\n");
    write_file("a.lua", "local m = require('m')\n"
                        "return { init = function(ctx) ctx.inits = (ctx.inits or 0) + 1; return {} end,\n"
                        "  update = function(s, pose, ctx) ctx.gaze[1] = ctx.inits * 10 + m.v end }\n");
    write_file("b.lua", "local m = require('m')\n"
                        "return { priority = 1,\n"
                        "  init = function(ctx) if m.v == 2 then error('b refuses') end end,\n"
                        "  update = function(s, pose, ctx) ctx.gaze[2] = m.v end }\n");
    bw_sandbox *sb = NULL;
    bw_controls *c = load_two(&sb, false, "a.lua", "b.lua");
    bw_pose p = rest_pose();
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 11, 0);
    write_file("m.lua", "return { v = 2 }\n");
    CHECK_INT(bw_controls_reload(c, "m.lua"), BW_CONTROLS_RELOAD_REJECTED);
    CHECK_STR(bw_controls_error(c), "b.lua:3: b refuses");
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 11, 0); /* one init of a, the old module */
    CHECK_NEAR(gaze(c, 1), 1, 0);
    write_file("m.lua", "return { v = 3 }\n");
    CHECK_INT(bw_controls_reload(c, "m.lua"), BW_CONTROLS_RELOAD_DONE);
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 23, 0);
    CHECK_NEAR(gaze(c, 1), 3, 0);
    unload(sb, c, &p);
}

/* init and reload return the state table or nil; anything else is
 * refused with the function's file:line (before, init returning 5 loaded
 * and a reload returning 5 went in, then every frame failed). */
static void a_state_that_is_no_table_is_refused(void)
{
    CHECK(make_tmpdir());
    write_file("five.lua", "return {\n"
                           "  init = function() return 5 end,\n"
                           "  update = function(s) s.n = 1 end }\n");
    bw_sandbox *sb = sandbox_in(tmpdir);
    bw_controls *c = runner(sb, tmpdir, 1, false);
    char err[512] = "";
    CHECK_INT(bw_controls_load(c, "five.lua", NULL, err, sizeof err), -1);
    CHECK_STR(err, "five.lua:2: init returned a number; return the state table (or nil)");
    CHECK_INT(bw_controls_count(c), 0);
    write_file("count.lua", counter_v1);
    CHECK_INT(bw_controls_load(c, "count.lua", NULL, err, sizeof err), 0);
    bw_pose p = rest_pose();
    run_frames(c, &p, 2);
    write_file("count.lua", "return { keep_state = true,\n"
                            "  update = function(s, pose, ctx) s.n = s.n + 1; ctx.gaze[1] = s.n end,\n"
                            "  reload = function(s) return 'five' end }\n");
    CHECK(bw_controls_reload(c, "count.lua") == BW_CONTROLS_RELOAD_REJECTED);
    CHECK_STR(bw_controls_error(c), "count.lua:3: reload returned a string; return the state table (or nil)");
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 3, 0);
    CHECK_INT(bw_controls_failures(c, 0), 0);
    unload(sb, c, &p);
}

/* A bad field of the returned table is reported at its line (the reader
 * of graph files records every constructor's lines, lua_graph.h); a
 * field the table lacks (update) or one set after the constructor at the
 * table's own line; a table a module made carries no line of the
 * control's file: the file alone. Before: "c1.lua: priority must be an
 * integer in [-2^30, 2^30]" for all of them. */
static void a_bad_field_is_reported_at_its_line(void)
{
    CHECK(make_tmpdir());
    bw_sandbox *sb = sandbox_in(tmpdir);
    bw_controls *c = runner(sb, tmpdir, 1, false);
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"-- c1\nlocal helper = {}\nreturn {\n  update = function() end,\n\n  priority = 1.5,\n}\n",
         "c1.lua:6: priority must be an integer in [-2^30, 2^30]"},
        {"return {\n  keep_state = 'yes', update = function() end }\n", "c1.lua:2: keep_state must be a boolean"},
        {"local t = {\n  priority = 1,\n  init = 5 }\nt.update = function() end\nreturn t\n", "c1.lua:3: init must be a function"},
        {"\n\nreturn { reload = {},\n update = function() end }\n", "c1.lua:3: reload must be a function"},
        {"local t = { priority = 2 }\n\nreturn t\n", "c1.lua:1: update must be a function (it is a nil)"},
        {"return require('made')\n", "c1.lua: update must be a function (it is a number)"},
    };
    write_file("made.lua", "return { update = 3 }\n");
    char err[512] = "";
    for (int i = 0; i < 6; i++) {
        write_file("c1.lua", bad[i].text);
        CHECK_INT(bw_controls_load(c, "c1.lua", NULL, err, sizeof err), -1);
        CHECK_STR(err, bad[i].want);
    }
    /* the file still loads and runs as before once mended */
    write_file("c1.lua", "return {\n  priority = 3,\n  update = function(s, p, ctx) ctx.gaze[1] = 9 end }\n");
    CHECK_INT(bw_controls_load(c, "c1.lua", NULL, err, sizeof err), 0);
    bw_pose p = rest_pose();
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 9, 0);
    unload(sb, c, &p);
}

/* A control file requiring itself: a require loop, not a second run. */
static void a_control_requiring_itself_is_a_loop(void)
{
    CHECK(make_tmpdir());
    write_file("box.lua", "return { runs = 0 }\n");
    write_file("self.lua", "local box = require('box')\nbox.runs = box.runs + 1\n"
                           "local ok, e = pcall(require, 'self')\nbox.e = e\n"
                           "return { update = function(s, p, ctx) ctx.gaze[1] = box.runs end }\n");
    bw_sandbox *sb = NULL;
    bw_controls *c = load_two(&sb, false, "self.lua", NULL);
    bw_pose p = rest_pose();
    run_frames(c, &p, 1);
    CHECK_NEAR(gaze(c, 0), 1, 0);
    CHECK_NEAR(eval_number(sb, "return require('box').e == \"require 'self': a require loop\" and 1 or 0"), 1, 0);
    unload(sb, c, &p);
}

/* blendwerk.controls (the Lua face) is for trusted states: a sandboxed
 * script cannot start a sandbox of its own */
static void a_sandboxed_script_cannot_make_controls(void)
{
    bw_sandbox *sb = sandbox_in(SCRIPTS);
    static const char code[] = "local rig = blendwerk.rig { joints = { { name = 'root' } } }\n"
                               "return blendwerk.controls { rig = rig, dir = '.' }\n";
    CHECK(bw_sandbox_load_string(sb, code, sizeof code - 1, "=mod.lua") == BW_SANDBOX_OK);
    CHECK(bw_sandbox_call(sb, 0, 1) == BW_SANDBOX_ERROR);
    CHECK(strstr(bw_sandbox_error(sb), "mod.lua:2: blendwerk.controls: not available inside the sandbox") != NULL);
    bw_sandbox_destroy(sb);
}

/* After the script returns, the runner reads the table's fields
 * (priority, keep_state, init, reload, update) and takes references
 * between sandbox calls; a field name the state has not interned needs a
 * new string. Those reads are protected now (bw_lua_raw_field_protected).
 * Before, they were not, and only Lua's emergency collection made room:
 * by then the script's own chunk is garbage. So this sweep did not abort
 * the old code either; it guards the whole load at its memory edge. The
 * script ends by making 400 small tables, so its memory peaks at its
 * end, and it names none of those fields but `update`. Byte by byte
 * around the smallest cap that loads, every load either works (and the
 * control runs) or says "out of memory". */
static void a_script_that_ends_at_the_memory_cap_cannot_abort_the_load(void)
{
    CHECK(make_tmpdir());
    char text[4096];
    int n = snprintf(text, sizeof text, "local t = {");
    for (int i = 0; i < 400; i++) n += snprintf(text + n, sizeof text - (size_t)n, "0,");
    snprintf(text + n, sizeof text - (size_t)n,
             "}\nlocal M = { update = function(s, pose, ctx, dt) ctx.gaze[1] = 7 end, t = t }\n"
             "for i = 1, 400 do t[i] = {} end\nreturn M\n");
    write_file("fill.lua", text);
    char err[512] = "";
    /* the bytes a load adds, measured once without a cap */
    bw_sandbox *sb = sandbox_in(tmpdir);
    bw_controls *c = runner(sb, tmpdir, 1, false);
    lua_gc(bw_sandbox_state(sb), LUA_GCCOLLECT);
    size_t before = bw_sandbox_memory_used(sb);
    CHECK_INT(bw_controls_load(c, "fill.lua", NULL, err, sizeof err), 0);
    size_t grown = bw_sandbox_memory_used(sb) - before;
    bw_controls_destroy(c);
    bw_sandbox_destroy(sb);
    CHECK(grown > 400 * 56); /* at least the 400 tables */
    /* coarse steps up to the first cap that loads, then byte by byte
     * around it */
    size_t first = 0;
    int loaded = 0, failed = 0;
    for (size_t extra = grown / 4; extra < grown + 256; extra += first ? 1 : 64) {
        if (first && extra > first + 128) break;
        sb = sandbox_in(tmpdir);
        c = runner(sb, tmpdir, 1, false);
        lua_gc(bw_sandbox_state(sb), LUA_GCCOLLECT);
        bw_sandbox_set_memory_cap(sb, bw_sandbox_memory_used(sb) + extra);
        err[0] = '\0';
        int k = bw_controls_load(c, "fill.lua", NULL, err, sizeof err);
        bw_sandbox_set_memory_cap(sb, 0);
        if (k == 0 && !first) { /* back to just below it, one byte at a time from there */
            first = extra;
            extra -= 65;
        } else if (k == 0) {
            loaded++;
            bw_pose p = rest_pose();
            CHECK_INT(bw_controls_run(c, 0, &p, NULL, 0.1f), 0);
            CHECK_NEAR(gaze(c, 0), 7, 0);
            bw_pose_deinit(&p);
        } else {
            CHECK_INT(k, -1);
            CHECK(strstr(err, "out of memory") != NULL || strstr(err, "not enough memory") != NULL);
            failed++;
        }
        bw_controls_destroy(c);
        bw_sandbox_destroy(sb);
    }
    CHECK(first > 0);
    CHECK(loaded > 0);
    CHECK(failed > 0);
    remove_tmpdir();
}

/* ---- bad arguments and memory running out ---- */

static void bad_descs_and_a_small_memory_cap_fail_cleanly(void)
{
    char err[256] = "";
    CHECK(bw_controls_create(NULL, err, sizeof err) == NULL);
    CHECK(strstr(err, "desc, desc.sandbox and desc.rig are required") != NULL);
    bw_sandbox *sb = sandbox_in(SCRIPTS);
    bw_controls_desc d = {.sandbox = sb, .rig = humanoid()->rig, .character_count = 0, .dir = SCRIPTS};
    CHECK(bw_controls_create(&d, err, sizeof err) == NULL);
    CHECK(strstr(err, "character_count") != NULL);
    d.character_count = 1;
    bw_controls *c = bw_controls_create(&d, err, sizeof err);
    CHECK_INT(bw_controls_load(c, NULL, NULL, err, sizeof err), -1);
    CHECK_INT(bw_controls_read(c, 5, "gaze", NULL, 0), 0);
    CHECK_INT(bw_controls_overrides(c, -1, NULL, NULL, 0), 0);
    CHECK(bw_controls_reload(NULL, "x.lua") == BW_CONTROLS_RELOAD_NONE);
    CHECK(bw_controls_poll(c, 1.0) == BW_CONTROLS_RELOAD_NONE); /* not watching */
    bw_controls_destroy(c);
    bw_controls_destroy(NULL);
    /* the runner's own blocks through the desc's allocator: each of the
     * first allocations refused in turn fails cleanly, nothing leaks */
    int made = 0;
    for (long budget = 0; budget < 8 && !made; budget++) {
        alloc_counter counter = ALLOC_COUNTER(budget);
        d.allocator = (bw_allocator){alloc_counter_fn, &counter};
        c = bw_controls_create(&d, err, sizeof err);
        if (c) {
            made = 1;
            CHECK_INT(counter.blocks, 2); /* the runner and its per-character slots (refs and clocks) */
            bw_controls_destroy(c);
        } else {
            CHECK(strstr(err, "out of memory") != NULL);
        }
        CHECK_INT(counter.live_blocks, 0);
        CHECK_INT(counter.live_bytes, 0);
    }
    CHECK(made);
    bw_sandbox_destroy(sb);

    /* under a rising memory cap every step either works or fails with a
     * message: no crash, nothing leaks (AddressSanitizer), and once it
     * loads the control runs */
    int loaded = 0, failed = 0;
    for (size_t cap = 64 << 10; cap <= (size_t)(1536 << 10) && loaded < 3; cap += 8 << 10) {
        bw_sandbox_desc sd = {0};
        sd.dir = SCRIPTS;
        sd.report = on_report;
        sd.limits.memory = cap;
        bw_sandbox *s = bw_sandbox_create(&sd, err, sizeof err);
        if (!s) continue;
        bw_controls_desc cd = {.sandbox = s, .rig = humanoid()->rig, .character_count = 64, .dir = SCRIPTS};
        bw_controls *k = bw_controls_create(&cd, err, sizeof err);
        if (k && bw_controls_load(k, "head_aim.lua", NULL, err, sizeof err) == 0 &&
            bw_controls_load(k, "blink.lua", NULL, err, sizeof err) == 1) {
            bw_pose p = rest_pose();
            bw_control_input in = {{0, 0, 0}, 0, true, {1, 1.5f, 2}};
            CHECK_INT(bw_controls_run(k, 3, &p, &in, 0.1f), 0);
            bw_pose_deinit(&p);
            loaded++;
        } else {
            CHECK(err[0] != '\0');
            failed++;
        }
        bw_controls_destroy(k);
        bw_sandbox_destroy(s);
    }
    CHECK(loaded == 3);
    CHECK(failed > 0); /* the smallest caps did run out */
}

/* The crowd hint is a hint: two runners of the same controls, one told
 * about each next character (and given bad arguments, which ASan would
 * catch reading out of bounds), aim, blink and see their inputs alike bit
 * for bit. The controls: the shipped head aim and blink, and one that
 * copies every input into ctx.seen. */
static void the_crowd_hint_changes_nothing(void)
{
    enum { N = 3 };
    CHECK(make_tmpdir());
    write_file("seen.lua", "return { init = function(ctx) ctx.seen = { 0, 0, 0, 0, 0, 0, 0, 0 } end,\n"
                           "  update = function(s, pose, ctx, dt)\n"
                           "    local v, p, t = ctx.seen, ctx.position, ctx.target\n"
                           "    v[1], v[2], v[3], v[4] = ctx.time, ctx.yaw, ctx.has_target and 1 or 0, dt\n"
                           "    v[5], v[6], v[7], v[8] = p[1], p[3], t[1], t[2]\n"
                           "  end }\n");
    const char *dirs[2] = {SCRIPTS, tmpdir};
    bw_sandbox *sb[2][2];
    bw_controls *c[2][2]; /* [dir][hinted] */
    char err[512] = "";
    for (int d = 0; d < 2; d++)
        for (int k = 0; k < 2; k++) {
            sb[d][k] = sandbox_in(dirs[d]);
            c[d][k] = runner(sb[d][k], dirs[d], N, false);
            if (d == 0) {
                CHECK_INT(bw_controls_load(c[d][k], "head_aim.lua", NULL, err, sizeof err), 0);
                CHECK_INT(bw_controls_load(c[d][k], "blink.lua", "{ interval_min = 0.1, interval_max = 0.3 }", err,
                                           sizeof err),
                          1);
            } else {
                CHECK_INT(bw_controls_load(c[d][k], "seen.lua", NULL, err, sizeof err), 0);
            }
        }
    bw_pose p[2] = {rest_pose(), rest_pose()};
    int differ = 0, failed = 0, seen = 0;
    for (int f = 0; f < 120; f++)
        for (int ch = 0; ch < N; ch++) {
            double t = f / 60.0;
            bw_control_input in = {{(float)(0.02 * f), 0, (float)ch}, (float)(0.03 * f - ch), f % 7 != 0,
                                   {(float)(3 * sin(t + ch)), 1.5f + (float)sin(2 * t), (float)(3 * cos(t))}};
            float out[2][2][8];
            for (int d = 0; d < 2; d++) {
                for (int k = 0; k < 2; k++) {
                    bw_pose_set_rest(&p[k], humanoid()->rig);
                    failed += bw_controls_run(c[d][k], ch, &p[k], &in, 1.0f / 60);
                    if (k == 1) {
                        bw_controls_prefetch(c[d][k], ch + 1); /* past the last character at ch = N - 1 */
                        bw_controls_prefetch(c[d][k], -1);
                        bw_controls_prefetch(c[d][k], INT_MAX);
                        bw_controls_prefetch(NULL, 0);
                    }
                    int n = bw_controls_read(c[d][k], ch, d == 0 ? "gaze" : "seen", out[d][k], 8);
                    CHECK_INT(n, d == 0 ? 4 : 8);
                    if (d == 1 && k == 1 && out[d][k][0] > 0.0f) seen++; /* ctx.time went through */
                }
                differ += memcmp(out[d][0], out[d][1], sizeof(float) * (d == 0 ? 4 : 8)) != 0;
                if (d == 0) /* the aimed and blinking poses */
                    differ += memcmp(p[0].joints, p[1].joints, sizeof(bw_transform) * (size_t)p[0].joint_count) != 0 ||
                              memcmp(p[0].curves, p[1].curves, sizeof(float) * (size_t)p[0].curve_count) != 0;
            }
        }
    CHECK_INT(failed, 0);
    CHECK_INT(differ, 0);
    CHECK_INT(seen, 120 * N);
    for (int k = 0; k < 2; k++) {
        bw_pose_deinit(&p[k]);
        for (int d = 0; d < 2; d++) {
            bw_controls_destroy(c[d][k]);
            bw_sandbox_destroy(sb[d][k]);
        }
    }
    remove_tmpdir();
}

/* ---- no allocation per frame ---- */

static size_t lua_bytes(lua_State *L)
{
    return (size_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024u + (size_t)lua_gc(L, LUA_GCCOUNTB, 0);
}

/* Run `frames` frames for two characters, the GC stopped, and return the
 * bytes the Lua state grew by (any allocation grows it: nothing is freed
 * while the collector is stopped). */
static size_t frames_growth(bw_sandbox *sb, bw_controls *c, int frames)
{
    lua_State *L = bw_sandbox_state(sb);
    bw_pose p = rest_pose();
    int bad = 0;
    /* a full collection shrinks the stacks, which the next calls grow
     * again: collect first, warm up, then stop the collector */
    lua_gc(L, LUA_GCCOLLECT, 0);
    size_t before = 0;
    for (int f = -30; f < frames; f++) {
        if (f == 0) {
            lua_gc(L, LUA_GCSTOP, 0);
            before = lua_bytes(L);
        }
        for (int ch = 0; ch < 2; ch++) {
            double t = f / 60.0;
            bw_control_input in = {{(float)(0.01 * f), 0, 0}, (float)(0.02 * f + ch), true,
                                   {(float)(3 * sin(t)), 1.5f + (float)sin(3 * t), (float)(3 * cos(0.7 * t))}};
            bw_pose_set_rest(&p, humanoid()->rig);
            bad += bw_controls_run(c, ch, &p, &in, 1.0f / 60);
            bw_controls_prefetch(c, ch + 1); /* the crowd hint, as a crowd loop calls it */
        }
    }
    size_t after = lua_bytes(L);
    lua_gc(L, LUA_GCRESTART, 0);
    CHECK_INT(bad, 0);
    bw_pose_deinit(&p);
    return after - before;
}

static void ten_thousand_frames_allocate_nothing(void)
{
    bw_sandbox *sb = sandbox_in(SCRIPTS);
    alloc_counter counter = ALLOC_COUNTER(-1);
    bw_controls_desc d = {.sandbox = sb, .rig = humanoid()->rig, .character_count = 2, .dir = SCRIPTS,
                          .allocator = {alloc_counter_fn, &counter}};
    char cerr[256];
    bw_controls *c = bw_controls_create(&d, cerr, sizeof cerr);
    char err[512] = "";
    CHECK_INT(bw_controls_load(c, "head_aim.lua", "{ yaw_limit = 1.0, weights = { 0.2, 0.3, 0.5 } }", err, sizeof err),
              0);
    CHECK_INT(bw_controls_load(c, "blink.lua", "{ interval_min = 0.1, interval_max = 0.3 }", err, sizeof err), 1);
    long before = counter.allocations;
    CHECK_INT((long long)frames_growth(sb, c, 10000), 0); /* Lua side */
    CHECK_INT(counter.allocations - before, 0);            /* C side */
    bw_controls_destroy(c);
    CHECK_INT(counter.live_blocks, 0);
    bw_sandbox_destroy(sb);

    /* the measure sees a control that makes one table a frame */
    CHECK(make_tmpdir());
    write_file("alloc.lua", "return { update = function(s, pose, ctx) ctx.junk = {} end }");
    sb = sandbox_in(tmpdir);
    c = runner(sb, tmpdir, 2, false);
    CHECK_INT(bw_controls_load(c, "alloc.lua", NULL, err, sizeof err), 0);
    CHECK(frames_growth(sb, c, 100) >= 200 * 32); /* 200 tables of 56 bytes or so */
    bw_controls_destroy(c);
    bw_sandbox_destroy(sb);
    remove_tmpdir();
}

int main(void)
{
    RUN(swing_twist_splits_about_the_axis);
    RUN(look_rotation_turns_z_onto_forward);
    RUN(rotate_toward_clamps_in_the_body_frame);
    RUN(model_position_matches_local_to_model);
    RUN(head_aim_clamp_holds_relative_to_the_body_through_720_degrees);
    RUN(head_aim_pitch_overflow_goes_to_the_eyes);
    RUN(head_aim_target_straight_behind_does_not_flip);
    RUN(blink_stream_matches_the_animator);
    RUN(envelope_weights_match_the_gesture_envelope);
    RUN(controls_run_in_priority_order);
    RUN(a_failing_update_is_reported_with_its_control);
    RUN(a_nested_callback_failure_is_not_the_controls);
    RUN(a_control_cannot_change_the_hosts_rig);
    RUN(reload_keeps_state_and_rejects_bad_edits);
    RUN(an_empty_state_is_not_kept_init_makes_it);
    RUN(poll_reloads_a_saved_file);
    RUN(the_sandbox_tracks_modules_and_what_they_required);
    RUN(a_saved_module_reloads_every_control_that_required_it);
    RUN(a_module_of_a_module_reloads_the_controls_above_it);
    RUN(a_module_that_failed_to_load_loads_once_mended);
    RUN(a_module_syntax_error_is_rejected_once);
    RUN(a_new_broken_module_mended_alone_reloads_its_control);
    RUN(a_reload_reads_the_pending_modules_of_every_control_in_it);
    RUN(a_rejected_reload_leaves_no_new_module_cached);
    RUN(a_module_drop_out_of_memory_loses_nothing);
    RUN(a_require_out_of_memory_leaves_no_loading_mark);
    RUN(a_missing_module_takes_a_slot_only_while_recording);
    RUN(a_control_waiting_for_a_new_module_reloads_when_it_is_made);
    RUN(require_blendwerk_is_cached_and_untracked);
    RUN(the_documented_sway_example_runs);
    RUN(head_aim_options_are_checked_with_file_and_line);
    RUN(bad_inputs_and_a_huge_dt_keep_the_outputs_finite);
    RUN(hostile_override_entries_are_skipped);
    RUN(a_control_removing_its_inputs_at_the_memory_cap_cannot_abort_the_host);
    RUN(a_pose_kept_past_its_update_cannot_reach_the_host);
    RUN(a_sandboxed_script_cannot_make_controls);
    RUN(a_rejected_edit_cannot_change_the_globals_of_others);
    RUN(a_rejected_reload_leaves_the_running_state_untouched);
    RUN(a_state_that_is_no_table_is_refused);
    RUN(a_rejected_load_or_reload_leaves_ctx_as_it_was);
    RUN(a_rejected_module_reload_takes_back_what_its_other_controls_did);
    RUN(a_bad_field_is_reported_at_its_line);
    RUN(a_control_requiring_itself_is_a_loop);
    RUN(a_script_that_ends_at_the_memory_cap_cannot_abort_the_load);
    RUN(bad_descs_and_a_small_memory_cap_fail_cleanly);
    RUN(the_crowd_hint_changes_nothing);
    RUN(ten_thousand_frames_allocate_nothing);
    bw_character_destroy(humanoid());
    return check_summary();
}
