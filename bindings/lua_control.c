/* lua_control.c - the procedural helpers of include/blendwerk/procedural.h
 * for Lua controls: blendwerk.swing_twist, look_rotation, rotate_toward,
 * aim_angles, aim_clamp and aim_chain, and aim_setup (a chain, weights and
 * limits checked once, taken by the aim helpers), aim (the three aim
 * steps in one call) and aim_defaults (the limits they default to).
 *
 * Numbers in and out as multiple values (no table per call); aim_chain
 * writes into a table the caller reuses. Every number is checked: NaN,
 * infinity or a value beyond float range raises naming the argument
 * ("bad argument #3 to 'aim_angles' (pz is NaN)"). docs/lua-api.md. */
#include <math.h>
#include <string.h>

#include "blendwerk/procedural.h"
#include "controls.h"
#include "lua_support.h"

static float arg_float(lua_State *L, int arg, const char *name)
{
    int isnum = 0;
    double v = (double)lua_tonumberx(L, arg, &isnum);
    if (!isnum) return (float)luaL_argerror(L, arg, lua_pushfstring(L, "%s: number expected, got %s", name,
                                                                   luaL_typename(L, arg)));
    float f = 0.0f;
    const char *why = bw_lua_to_float(v, &f);
    if (why) return (float)luaL_argerror(L, arg, lua_pushfstring(L, "%s %s", name, why));
    return f;
}

static void arg_floats(lua_State *L, int arg, const char *const *names, int n, float *out)
{
    for (int i = 0; i < n; i++) out[i] = arg_float(L, arg + i, names[i]);
}

static int push_floats(lua_State *L, const float *v, int n)
{
    for (int i = 0; i < n; i++) lua_pushnumber(L, (lua_Number)v[i]);
    return n;
}

static const char *const quat_names[] = {"qx", "qy", "qz", "qw"};
static const char *const axis_names[] = {"ax", "ay", "az"};

/* swing_twist(qx, qy, qz, qw, ax, ay, az) -> sx, sy, sz, sw, tx, ty, tz, tw */
static int l_swing_twist(lua_State *L)
{
    float q[4], axis[3], out[8];
    arg_floats(L, 1, quat_names, 4, q);
    arg_floats(L, 5, axis_names, 3, axis);
    bw_swing_twist(q, axis, out, out + 4);
    return push_floats(L, out, 8);
}

/* look_rotation(fx, fy, fz [, ux, uy, uz = 0, 1, 0]) -> x, y, z, w */
static int l_look_rotation(lua_State *L)
{
    static const char *const names[] = {"fx", "fy", "fz", "ux", "uy", "uz"};
    float v[6] = {0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f}, q[4];
    arg_floats(L, 1, names, lua_isnoneornil(L, 4) ? 3 : 6, v);
    bw_look_rotation(v, v + 3, q);
    return push_floats(L, q, 4);
}

/* rotate_toward(bx, by, bz, bw, dx, dy, dz, yaw_limit, pitch_limit) -> x, y, z, w */
static int l_rotate_toward(lua_State *L)
{
    static const char *const names[] = {"bx", "by", "bz", "bw", "dx", "dy", "dz", "yaw_limit", "pitch_limit"};
    float v[9], q[4];
    arg_floats(L, 1, names, 9, v);
    if (v[7] < 0.0f || v[8] < 0.0f) return luaL_error(L, "rotate_toward: limits must be >= 0");
    bw_rotate_toward(v, v + 4, v[7], v[8], q);
    return push_floats(L, q, 4);
}

/* A {x, y, z} list of finite numbers at `arg` (raw reads), or raise naming it. */
static void arg_vec3(lua_State *L, int arg, const char *name, float *out)
{
    if (lua_type(L, arg) != LUA_TTABLE)
        luaL_argerror(L, arg, lua_pushfstring(L, "%s: {x, y, z} expected, got %s", name, luaL_typename(L, arg)));
    lua_rawgeti(L, arg, 1);
    lua_rawgeti(L, arg, 2);
    lua_rawgeti(L, arg, 3);
    for (int i = 0; i < 3; i++) {
        int isnum = 0;
        double v = (double)lua_tonumberx(L, i - 3, &isnum);
        const char *why = isnum ? bw_lua_to_float(v, &out[i]) : "is not a number";
        if (why) luaL_argerror(L, arg, lua_pushfstring(L, "%s[%d] %s", name, i + 1, why));
    }
    lua_pop(L, 3);
}

/* The full userdata at `arg` when its metatable is the one the running
 * closure holds as upvalue `uv` (no registry lookup by name), else NULL. */
static void *with_held_metatable(lua_State *L, int arg, int uv)
{
    if (lua_type(L, arg) != LUA_TUSERDATA || !lua_getmetatable(L, arg)) return NULL;
    bool same = lua_rawequal(L, -1, lua_upvalueindex(uv));
    lua_pop(L, 1);
    return same ? lua_touserdata(L, arg) : NULL;
}

/* The Pose at `arg`. The per-frame helpers compare the metatable with the
 * one they hold as upvalue 1; anything else goes through the full check,
 * which raises the usual message. */
static bw_lua_pose *hot_pose(lua_State *L, int arg)
{
    bw_lua_pose *p = (bw_lua_pose *)with_held_metatable(L, arg, 1);
    return p && !p->hdr.closed ? p : bw_lua_check_pose(L, arg);
}

static const char *const limit_names[5] = {"yaw", "pitch", "eye_yaw", "eye_pitch", "behind"};

/* The animator's head-aim defaults (BW_ANIMATOR_HEAD_LIMITS) as an array
 * in limit_names' order. */
static void default_limits(float v[5])
{
    const bw_aim_limits d = BW_ANIMATOR_HEAD_LIMITS;
    const float l[5] = {d.yaw, d.pitch, d.eye_yaw, d.eye_pitch, d.behind};
    memcpy(v, l, sizeof l);
}

/* The limits table at `t` read raw through the keys held as upvalues
 * 1..5 of the running closure (interned once: no string lookup per call);
 * absent fields take the animator's defaults (default_limits); each must
 * be a finite number >= 0, or this raises naming the field (argument
 * `arg`). */
static bw_aim_limits arg_limits(lua_State *L, int arg, int t)
{
    float v[5];
    default_limits(v);
    int top = lua_gettop(L);
    for (int k = 0; k < 5; k++) {
        lua_pushvalue(L, lua_upvalueindex(k + 1));
        lua_rawget(L, t);
    }
    for (int k = 0; k < 5; k++) {
        if (lua_isnil(L, top + 1 + k)) continue;
        int isnum = 0;
        double d = (double)lua_tonumberx(L, top + 1 + k, &isnum);
        const char *why = isnum ? bw_lua_to_float(d, &v[k]) : "is not a number";
        if (!why && v[k] < 0.0f) why = "must be >= 0";
        if (why) luaL_argerror(L, arg, lua_pushfstring(L, "limits.%s %s", limit_names[k], why));
    }
    lua_settop(L, top);
    return (bw_aim_limits){v[0], v[1], v[2], v[3], v[4]};
}

/* aim_defaults() -> { yaw, pitch, eye_yaw, eye_pitch, behind }: a new
 * table of the defaults aim_setup and aim_clamp take for absent limits
 * (the C animator's, BW_ANIMATOR_HEAD_LIMITS). */
static int l_aim_defaults(lua_State *L)
{
    float v[5];
    default_limits(v);
    lua_createtable(L, 0, 5);
    for (int k = 0; k < 5; k++) {
        lua_pushnumber(L, (lua_Number)v[k]);
        lua_setfield(L, -2, limit_names[k]);
    }
    return 1;
}

/* A chain resolved and checked once (blendwerk.aim_setup): what aim_angles,
 * aim_clamp and aim_chain otherwise read from tables and check on every
 * call. Plain data, immutable after creation (no resources, no close). */
#define AIM_CHAIN_MAX 16
typedef struct aim_setup {
    int n;          /* joints in the chain, >= 1; the last is the head */
    int max_joint;  /* the largest 0-based index in chain (checked against each pose) */
    int chain[AIM_CHAIN_MAX];
    float weights[AIM_CHAIN_MAX];
    bw_aim_limits limits;
} aim_setup;

#define BW_LUA_AIM_SETUP "blendwerk.AimSetup"

/* The AimSetup at `arg` when its metatable is the one held as upvalue
 * `uv`, else NULL. */
static const aim_setup *to_setup(lua_State *L, int arg, int uv)
{
    return (const aim_setup *)with_held_metatable(L, arg, uv);
}

/* A setup used with a pose: every joint of its chain must be in the pose. */
static void check_setup_fits(lua_State *L, int arg, const aim_setup *s, const bw_lua_pose *p)
{
    if (s->max_joint >= p->pose.joint_count)
        luaL_argerror(L, arg, lua_pushfstring(L, "the AimSetup's joint %d is not in [1, %d]", s->max_joint + 1,
                                              p->pose.joint_count));
}

/* joints (1-based indices in [1, joint_count]) at `jarg` and one weight
 * per joint at `warg` (finite numbers); raises naming the entry. Returns the count (<= AIM_CHAIN_MAX). */
static int arg_chain(lua_State *L, int jarg, int warg, int joint_count, int *chain, float *weights)
{
    luaL_checktype(L, jarg, LUA_TTABLE);
    luaL_checktype(L, warg, LUA_TTABLE);
    lua_Integer n = (lua_Integer)lua_rawlen(L, jarg);
    if (n > AIM_CHAIN_MAX) return luaL_argerror(L, jarg, "more than 16 joints");
    if ((lua_Integer)lua_rawlen(L, warg) != n) return luaL_argerror(L, warg, "one weight per joint expected");
    for (lua_Integer i = 1; i <= n; i++) {
        int isint = 0, isnum = 0;
        lua_rawgeti(L, jarg, i);
        lua_rawgeti(L, warg, i);
        lua_Integer j = lua_tointegerx(L, -2, &isint);
        double w = (double)lua_tonumberx(L, -1, &isnum);
        lua_pop(L, 2);
        if (!isint || j < 1 || j > joint_count)
            return luaL_argerror(L, jarg, lua_pushfstring(L, "joints[%I] is not a joint index in [1, %d]",
                                                          (LUAI_UACINT)i, joint_count));
        float wf = 0.0f;
        const char *why = isnum ? bw_lua_to_float(w, &wf) : "is not a number";
        if (why) return luaL_argerror(L, warg, lua_pushfstring(L, "weights[%I] %s", (LUAI_UACINT)i, why));
        chain[i - 1] = (int)(j - 1);
        weights[i - 1] = wf;
    }
    return (int)n;
}

/* aim_setup(rig, joints, weights [, limits]) -> AimSetup
 * joints: 1-based indices of `rig`, root-most first, the last the head (at
 * least one, at most 16); weights: one finite number per joint; limits as
 * aim_clamp's (absent: the animator's defaults). Upvalues 1..5: the limit
 * keys; 6: the AimSetup metatable. */
static int l_aim_setup(lua_State *L)
{
    const bw_lua_rig *r = bw_lua_check_rig(L, 1);
    aim_setup s;
    memset(&s, 0, sizeof s);
    s.n = arg_chain(L, 2, 3, bw_rig_joint_count(r->rig), s.chain, s.weights);
    if (s.n < 1) return luaL_argerror(L, 2, "at least one joint expected");
    if (lua_isnoneornil(L, 4)) {
        const bw_aim_limits d = BW_ANIMATOR_HEAD_LIMITS;
        s.limits = d;
    } else {
        luaL_checktype(L, 4, LUA_TTABLE);
        s.limits = arg_limits(L, 4, 4);
    }
    for (int i = 0; i < s.n; i++)
        if (s.chain[i] > s.max_joint) s.max_joint = s.chain[i];
    aim_setup *u = (aim_setup *)lua_newuserdatauv(L, sizeof *u, 0);
    *u = s;
    lua_pushvalue(L, lua_upvalueindex(6));
    lua_setmetatable(L, -2);
    return 1;
}

/* aim_angles(pose, joint | setup, position, body_yaw, target) -> yaw, pitch
 * the target (world {x, y, z}) seen from joint `joint` (1-based; with an
 * AimSetup: its head, the chain's last joint) of the pose, for a body at
 * `position` (world) facing body_yaw: yaw relative to the body's facing,
 * pitch up positive (bw_model_position + bw_aim_angles). Upvalues: 1 the
 * Pose metatable, 2 the AimSetup metatable. */
static int l_aim_angles(lua_State *L)
{
    bw_lua_pose *p = hot_pose(L, 1);
    int joint;
    const aim_setup *s = to_setup(L, 2, 2);
    if (s) {
        check_setup_fits(L, 2, s, p);
        joint = s->chain[s->n - 1];
    } else {
        lua_Integer j = luaL_checkinteger(L, 2);
        if (j < 1 || j > p->pose.joint_count)
            return luaL_argerror(L, 2, lua_pushfstring(L, "joint %I is not in [1, %d]", (LUAI_UACINT)j,
                                                       p->pose.joint_count));
        joint = (int)j - 1;
    }
    float position[3], target[3], origin[3], out[2];
    arg_vec3(L, 3, "position", position);
    float yaw = arg_float(L, 4, "body_yaw");
    arg_vec3(L, 5, "target", target);
    bw_model_position(p->rig->rig, &p->pose, joint, origin);
    bw_aim_angles(position, yaw, origin, target, &out[0], &out[1]);
    return push_floats(L, out, 2);
}

/* aim_clamp(yaw, pitch, last_yaw, limits | setup) -> head_yaw, head_pitch, eye_yaw, eye_pitch
 * limits: { yaw =, pitch =, eye_yaw =, eye_pitch =, behind = } (absent
 * fields take the animator's defaults, aim_defaults(); each must
 * be a finite number >= 0), or an AimSetup (its limits, checked when it
 * was made). Upvalues 1..5: the limit keys; 6: the AimSetup metatable. */
static int l_aim_clamp(lua_State *L)
{
    float yaw = arg_float(L, 1, "yaw"), pitch = arg_float(L, 2, "pitch"), last = arg_float(L, 3, "last_yaw");
    const aim_setup *s = to_setup(L, 4, 6);
    bw_aim_limits limits;
    if (s) {
        limits = s->limits;
    } else {
        luaL_checktype(L, 4, LUA_TTABLE);
        limits = arg_limits(L, 4, 4);
    }
    float out[4];
    bw_aim_clamp(yaw, pitch, last, &limits, out);
    return push_floats(L, out, 4);
}

/* aim_chain(pose, joints, weights, yaw, pitch [, out]) -> out | nothing
 * aim_chain(pose, setup, yaw, pitch [, out])           -> out | nothing
 * joints: 1-based indices, weights: one number per joint (or both from an
 * AimSetup); out (reused by the caller) gets 5 numbers per joint: joint,
 * x, y, z, w (the new parent-local rotation), the ctx.overrides layout.
 * Upvalues: 1 the Pose metatable, 2 the AimSetup metatable. */
static int l_aim_chain(lua_State *L)
{
    bw_lua_pose *p = hot_pose(L, 1);
    const aim_setup *s = to_setup(L, 2, 2);
    int first = s ? 3 : 4; /* yaw's argument */
    int chain_buf[AIM_CHAIN_MAX];
    float weight_buf[AIM_CHAIN_MAX], local[4 * AIM_CHAIN_MAX];
    const int *chain = chain_buf;
    const float *weights = weight_buf;
    int n;
    if (s) {
        check_setup_fits(L, 2, s, p);
        chain = s->chain;
        weights = s->weights;
        n = s->n;
    } else {
        n = arg_chain(L, 2, 3, p->pose.joint_count, chain_buf, weight_buf);
    }
    float yaw = arg_float(L, first, "yaw"), pitch = arg_float(L, first + 1, "pitch");
    int out = first + 2;
    bool has_out = !lua_isnoneornil(L, out);
    if (has_out) bw_lua_check_out_table(L, out);
    bw_aim_chain(p->rig->rig, &p->pose, chain, weights, n, yaw, pitch, local);
    if (!has_out) return 0;
    for (int i = 0; i < n; i++) {
        lua_pushinteger(L, chain[i] + 1);
        lua_rawseti(L, out, 5 * i + 1);
        for (int k = 0; k < 4; k++) {
            lua_pushnumber(L, (lua_Number)local[4 * i + k]);
            lua_rawseti(L, out, 5 * i + k + 2);
        }
    }
    lua_settop(L, out);
    return 1;
}

/* aim(pose, setup, position, body_yaw, target, last_yaw) -> yaw, pitch, eye_yaw, eye_pitch
 * the animator's head-aim step in one call: aim_angles from the setup's
 * head, aim_clamp with its limits, aim_chain over its chain with the
 * clamped yaw and pitch (written into the pose), by bw_aim_head; returns
 * what aim_clamp returns. The same numbers as the three calls. Upvalues: 1 the Pose
 * metatable, 2 the AimSetup metatable. */
static int l_aim(lua_State *L)
{
    bw_lua_pose *p = hot_pose(L, 1);
    const aim_setup *s = to_setup(L, 2, 2);
    if (!s) return luaL_typeerror(L, 2, BW_LUA_AIM_SETUP);
    check_setup_fits(L, 2, s, p);
    float position[3], target[3], out[4];
    arg_vec3(L, 3, "position", position);
    float body_yaw = arg_float(L, 4, "body_yaw");
    arg_vec3(L, 5, "target", target);
    float last = arg_float(L, 6, "last_yaw");
    bw_aim_head(p->rig->rig, &p->pose, s->chain, s->weights, s->n, position, body_yaw, target, last, &s->limits, out);
    return push_floats(L, out, 4);
}

static int l_setup_tostring(lua_State *L)
{
    const aim_setup *s = (const aim_setup *)luaL_checkudata(L, 1, BW_LUA_AIM_SETUP);
    lua_pushfstring(L, "%s (%d joints, head %d): %p", BW_LUA_AIM_SETUP, s->n, s->chain[s->n - 1] + 1, (void *)s);
    return 1;
}

static const luaL_Reg control_functions[] = {
    {"swing_twist", l_swing_twist}, {"look_rotation", l_look_rotation}, {"rotate_toward", l_rotate_toward},
    {"aim_defaults", l_aim_defaults}, {NULL, NULL},
};

/* Into the module table on top of the stack (the Pose type is registered). */
void bw_lua_open_control(lua_State *L)
{
    luaL_setfuncs(L, control_functions, 0);
    int module = lua_gettop(L);
    luaL_getmetatable(L, BW_LUA_POSE);
    int pose_mt = lua_gettop(L);
    luaL_newmetatable(L, BW_LUA_AIM_SETUP);
    int setup_mt = lua_gettop(L);
    lua_pushcfunction(L, l_setup_tostring);
    lua_setfield(L, setup_mt, "__tostring");
    lua_pushliteral(L, "an AimSetup is immutable");
    lua_setfield(L, setup_mt, "__metatable");
    lua_pushvalue(L, pose_mt);
    lua_pushvalue(L, setup_mt);
    lua_pushcclosure(L, l_aim_angles, 2);
    lua_setfield(L, module, "aim_angles");
    lua_pushvalue(L, pose_mt);
    lua_pushvalue(L, setup_mt);
    lua_pushcclosure(L, l_aim_chain, 2);
    lua_setfield(L, module, "aim_chain");
    lua_pushvalue(L, pose_mt);
    lua_pushvalue(L, setup_mt);
    lua_pushcclosure(L, l_aim, 2);
    lua_setfield(L, module, "aim");
    for (int k = 0; k < 5; k++) lua_pushstring(L, limit_names[k]);
    lua_pushvalue(L, setup_mt);
    lua_pushcclosure(L, l_aim_clamp, 6);
    lua_setfield(L, module, "aim_clamp");
    for (int k = 0; k < 5; k++) lua_pushstring(L, limit_names[k]);
    lua_pushvalue(L, setup_mt);
    lua_pushcclosure(L, l_aim_setup, 6);
    lua_setfield(L, module, "aim_setup");
    lua_settop(L, module);
}
