/* lua_pose.c - blendwerk.Pose: one local transform and coverage per rig
 * joint (plus curve values), read and written as Lua tables by joint index
 * or name, and in batches by index into tables the caller reuses (the
 * procedural controls' per-frame path, bindings/controls.h);
 * local-to-model; and blendwerk.mix, the per-joint priority mixer.
 *
 * A Pose belongs to one Rig (kept alive through a uservalue) and is sized
 * for it once; reading and writing never reallocate. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blendwerk/procedural.h"
#include "lua_support.h"

static void destroy_pose(bw_lua_object *o)
{
    bw_lua_pose *p = (bw_lua_pose *)o;
    bw_pose_deinit(&p->pose);
}

bw_lua_pose *bw_lua_check_pose(lua_State *L, int arg)
{
    return (bw_lua_pose *)bw_lua_check_object(L, arg, BW_LUA_POSE);
}

bw_lua_pose *bw_lua_push_pose(lua_State *L, int rig_idx)
{
    rig_idx = lua_absindex(L, rig_idx);
    bw_lua_rig *r = (bw_lua_rig *)lua_touserdata(L, rig_idx);
    bw_lua_pose *p = (bw_lua_pose *)bw_lua_new_object(L, sizeof *p, 1, BW_LUA_POSE, destroy_pose);
    p->rig = r;
    bw_lua_object_use(&p->hdr, &r->hdr);
    lua_pushvalue(L, rig_idx);
    lua_setiuservalue(L, -2, BW_LUA_UV_POSE_RIG);
    bw_result res = bw_pose_init(&p->pose, r->rig, bw_lua_allocator(L));
    if (res != BW_OK) {
        luaL_error(L, "pose: %s", bw_result_name(res));
        return NULL;
    }
    return p;
}

static const bw_rig *pose_rig(const bw_lua_pose *p) { return p->rig->rig; }

/* ---- reading ---- */

static int l_joint_count(lua_State *L)
{
    lua_pushinteger(L, bw_lua_check_pose(L, 1)->pose.joint_count);
    return 1;
}

static int l_curve_count(lua_State *L)
{
    lua_pushinteger(L, bw_lua_check_pose(L, 1)->pose.curve_count);
    return 1;
}

/* pose:get(joint) -> {t={x,y,z}, r={x,y,z,w}, s={x,y,z}, coverage=c} */
static int l_get(lua_State *L)
{
    bw_lua_pose *p = bw_lua_check_pose(L, 1);
    int j = bw_lua_check_joint(L, 2, pose_rig(p));
    bw_lua_push_transform(L, &p->pose.joints[j]);
    lua_pushnumber(L, (lua_Number)p->pose.coverage[j]);
    lua_setfield(L, -2, "coverage");
    return 1;
}

/* pose:t(j) -> x, y, z; pose:r(j) -> x, y, z, w; pose:s(j) -> x, y, z
 * (multiple returns: no table per call). */
static int push_numbers(lua_State *L, const float *v, int n)
{
    for (int i = 0; i < n; i++) lua_pushnumber(L, (lua_Number)v[i]);
    return n;
}

static int l_t(lua_State *L)
{
    bw_lua_pose *p = bw_lua_check_pose(L, 1);
    return push_numbers(L, p->pose.joints[bw_lua_check_joint(L, 2, pose_rig(p))].t, 3);
}

static int l_r(lua_State *L)
{
    bw_lua_pose *p = bw_lua_check_pose(L, 1);
    return push_numbers(L, p->pose.joints[bw_lua_check_joint(L, 2, pose_rig(p))].r, 4);
}

static int l_s(lua_State *L)
{
    bw_lua_pose *p = bw_lua_check_pose(L, 1);
    return push_numbers(L, p->pose.joints[bw_lua_check_joint(L, 2, pose_rig(p))].s, 3);
}

static int l_coverage(lua_State *L)
{
    bw_lua_pose *p = bw_lua_check_pose(L, 1);
    lua_pushnumber(L, (lua_Number)p->pose.coverage[bw_lua_check_joint(L, 2, pose_rig(p))]);
    return 1;
}

/* pose:curve(c) -> value, coverage */
static int l_curve(lua_State *L)
{
    bw_lua_pose *p = bw_lua_check_pose(L, 1);
    int c = bw_lua_check_curve(L, 2, pose_rig(p));
    lua_pushnumber(L, (lua_Number)p->pose.curves[c]);
    lua_pushnumber(L, (lua_Number)p->pose.curve_coverage[c]);
    return 2;
}

/* ---- writing ---- */

static float check_coverage(lua_State *L, int arg, float v)
{
    if (!(v >= 0.0f && v <= 1.0f)) luaL_argerror(L, arg, "coverage must be in [0, 1]");
    return v;
}

/* pose:set(joint, {t=, r=, s=, coverage=}): absent fields keep their
 * values; the rotation is normalized; any other field is refused. */
static int l_set(lua_State *L)
{
    bw_lua_pose *p = bw_lua_check_pose(L, 1);
    int j = bw_lua_check_joint(L, 2, pose_rig(p));
    luaL_checktype(L, 3, LUA_TTABLE);
    bw_transform x = p->pose.joints[j];
    char why[256];
    if (!bw_lua_check_fields_hint(L, 3, bw_lua_joint_fields, why, sizeof why) ||
        !bw_lua_read_transform(L, 3, &x, why, sizeof why))
        return luaL_argerror(L, 3, lua_pushstring(L, why));
    float coverage = p->pose.coverage[j];
    int type = bw_lua_raw_field(L, 3, "coverage");
    if (type != LUA_TNIL) {
        if (type != LUA_TNUMBER) return luaL_argerror(L, 3, "coverage must be a number");
        double c = (double)lua_tonumber(L, -1);
        if (!(c >= 0.0 && c <= 1.0)) return luaL_argerror(L, 3, "coverage must be in [0, 1]");
        coverage = (float)c;
    }
    lua_pop(L, 1);
    double n2 = 0;
    for (int i = 0; i < 4; i++) n2 += (double)x.r[i] * x.r[i];
    float inv = (float)(1.0 / sqrt(n2)); /* read_transform rejected a zero rotation */
    for (int i = 0; i < 4; i++) x.r[i] *= inv;
    p->pose.joints[j] = x;
    p->pose.coverage[j] = coverage;
    return 0;
}

/* pose:set_curve(c, value [, coverage = 1]) */
static int l_set_curve(lua_State *L)
{
    bw_lua_pose *p = bw_lua_check_pose(L, 1);
    int c = bw_lua_check_curve(L, 2, pose_rig(p));
    float v = bw_lua_check_float(L, 3);
    float cov = check_coverage(L, 4, bw_lua_opt_float(L, 4, 1.0f));
    p->pose.curves[c] = v;
    p->pose.curve_coverage[c] = cov;
    return 0;
}

static int l_clear(lua_State *L)
{
    bw_pose_clear(&bw_lua_check_pose(L, 1)->pose);
    return 0;
}

static int l_set_rest(lua_State *L)
{
    bw_lua_pose *p = bw_lua_check_pose(L, 1);
    bw_pose_set_rest(&p->pose, pose_rig(p));
    return 0;
}

/* pose:copy() -> a new Pose with the same contents */
static int l_copy(lua_State *L)
{
    bw_lua_pose *p = bw_lua_check_pose(L, 1);
    lua_getiuservalue(L, 1, BW_LUA_UV_POSE_RIG);
    bw_lua_pose *q = bw_lua_push_pose(L, -1);
    bw_pose_copy(&q->pose, &p->pose);
    return 1;
}

/* pose:rig() -> the Rig, borrowed (closing it leaves it open) */
static int l_rig(lua_State *L)
{
    bw_lua_check_pose(L, 1);
    lua_getiuservalue(L, 1, BW_LUA_UV_POSE_RIG);
    bw_lua_push_shared(L, -1);
    return 1;
}

/* ---- local to model ---- */

/* Model matrices into a userdata scratch block (collected with the call). */
static float (*model_matrices(lua_State *L, bw_lua_pose *p))[4][4]
{
    size_t n = (size_t)(p->pose.joint_count ? p->pose.joint_count : 1);
    float(*m)[4][4] = (float(*)[4][4])lua_newuserdatauv(L, n * sizeof *m, 0);
    bw_pose_local_to_model(pose_rig(p), &p->pose, m);
    return m;
}

/* pose:local_to_model() -> { {16 numbers, column-major}, ... } per joint */
static int l_local_to_model(lua_State *L)
{
    bw_lua_pose *p = bw_lua_check_pose(L, 1);
    float(*m)[4][4] = model_matrices(L, p);
    lua_createtable(L, p->pose.joint_count, 0);
    for (int j = 0; j < p->pose.joint_count; j++) {
        lua_createtable(L, 16, 0);
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++) {
                lua_pushnumber(L, (lua_Number)m[j][c][r]);
                lua_rawseti(L, -2, c * 4 + r + 1);
            }
        lua_rawseti(L, -2, j + 1);
    }
    return 1;
}

/* pose:model_position(joint) -> x, y, z of the joint in model space
 * (its ancestors only, no scratch: procedural.h) */
static int l_model_position(lua_State *L)
{
    bw_lua_pose *p = bw_lua_check_pose(L, 1);
    int j = bw_lua_check_joint(L, 2, pose_rig(p));
    float v[3];
    bw_model_position(pose_rig(p), &p->pose, j, v);
    return push_numbers(L, v, 3);
}

/* ---- batches by index (the controls' fast path) ----
 *
 * pose:rotations(joints [, out]) -> out, pose:translations(joints [, out])
 * -> out, pose:model_positions(joints [, out]) -> out: `joints` is a list
 * of 1-based joint indices; out (a table the caller reuses, a new one when
 * absent) gets 4 (x, y, z, w) or 3 (x, y, z) numbers per joint, flat:
 * out[4 (i - 1) + 1 ..]. pose:set_rotations(joints, values) and
 * pose:set_translations(joints, values) write them back (rotations
 * normalized); every value is checked before anything is written, so a
 * bad one (NaN, a zero rotation, a missing number) raises naming the
 * entry and changes nothing. Raw table access only: with `out` reused, a
 * call allocates nothing. */
enum { BATCH_T = 0, BATCH_R, BATCH_MODEL };

static int batch_joint(lua_State *L, int list, lua_Integer i, int joint_count)
{
    lua_rawgeti(L, list, i);
    int isint = 0;
    lua_Integer j = lua_tointegerx(L, -1, &isint);
    lua_pop(L, 1);
    if (!isint || j < 1 || j > joint_count)
        return luaL_argerror(L, list,
                             lua_pushfstring(L, "joints[%I] is not a joint index in [1, %d]", (LUAI_UACINT)i, joint_count));
    return (int)(j - 1);
}

static lua_Integer batch_count(lua_State *L, int list)
{
    luaL_checktype(L, list, LUA_TTABLE);
    lua_Integer n = (lua_Integer)lua_rawlen(L, list);
    if (n > 1 << 24) luaL_argerror(L, list, "too many joints");
    return n;
}

static int read_batch(lua_State *L, int what)
{
    bw_lua_pose *p = bw_lua_check_pose(L, 1);
    lua_Integer n = batch_count(L, 2);
    if (lua_isnoneornil(L, 3)) {
        lua_settop(L, 2);
        lua_createtable(L, (int)(n * (what == BATCH_R ? 4 : 3)), 0);
    } else {
        bw_lua_check_out_table(L, 3);
        lua_settop(L, 3);
    }
    const int width = what == BATCH_R ? 4 : 3;
    for (lua_Integer i = 1; i <= n; i++) {
        int j = batch_joint(L, 2, i, p->pose.joint_count);
        float v[4];
        const float *src = v;
        if (what == BATCH_T) src = p->pose.joints[j].t;
        else if (what == BATCH_R) src = p->pose.joints[j].r;
        else bw_model_position(pose_rig(p), &p->pose, j, v);
        for (int k = 0; k < width; k++) {
            lua_pushnumber(L, (lua_Number)src[k]);
            lua_rawseti(L, 3, (i - 1) * width + k + 1);
        }
    }
    return 1;
}

/* values[index] as a finite float, or raise naming the entry */
static float batch_value(lua_State *L, int values, lua_Integer index)
{
    int isnum = 0;
    lua_rawgeti(L, values, index);
    double d = (double)lua_tonumberx(L, -1, &isnum);
    lua_pop(L, 1);
    float f = 0.0f;
    const char *why = isnum ? bw_lua_to_float(d, &f) : "is not a number";
    if (why) return (float)luaL_argerror(L, values, lua_pushfstring(L, "values[%I] %s", (LUAI_UACINT)index, why));
    return f;
}

static int write_batch(lua_State *L, int what)
{
    bw_lua_pose *p = bw_lua_check_pose(L, 1);
    lua_Integer n = batch_count(L, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    const int width = what == BATCH_R ? 4 : 3;
    for (int pass = 0; pass < 2; pass++) { /* check everything, then write */
        for (lua_Integer i = 1; i <= n; i++) {
            int j = batch_joint(L, 2, i, p->pose.joint_count);
            float v[4];
            double n2 = 0.0;
            for (int k = 0; k < width; k++) {
                v[k] = batch_value(L, 3, (i - 1) * width + k + 1);
                n2 += (double)v[k] * v[k];
            }
            if (what == BATCH_R && !(n2 > 1e-30))
                return luaL_argerror(L, 3, lua_pushfstring(L, "values[%I..%I] is a zero rotation",
                                                           (LUAI_UACINT)((i - 1) * 4 + 1), (LUAI_UACINT)(i * 4)));
            if (pass == 0) continue;
            if (what == BATCH_R) {
                float inv = (float)(1.0 / sqrt(n2));
                for (int k = 0; k < 4; k++) p->pose.joints[j].r[k] = v[k] * inv;
            } else {
                for (int k = 0; k < 3; k++) p->pose.joints[j].t[k] = v[k];
            }
        }
    }
    return 0;
}

static int l_rotations(lua_State *L) { return read_batch(L, BATCH_R); }
static int l_translations(lua_State *L) { return read_batch(L, BATCH_T); }
static int l_model_positions(lua_State *L) { return read_batch(L, BATCH_MODEL); }
static int l_set_rotations(lua_State *L) { return write_batch(L, BATCH_R); }
static int l_set_translations(lua_State *L) { return write_batch(L, BATCH_T); }

/* ---- blendwerk.mix ---- */

/* blendwerk.mix(contributions [, base [, out]]) -> Pose
 * contributions: { entry, ... }, entry = Pose | {pose, weight, priority}
 * | {pose=, weight=, priority=} (weight 1, priority 0 by default). */
static int l_mix(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    bw_lua_pose *base = lua_isnoneornil(L, 2) ? NULL : bw_lua_check_pose(L, 2);
    bw_lua_pose *out = lua_isnoneornil(L, 3) ? NULL : bw_lua_check_pose(L, 3);
    lua_settop(L, 3);
    lua_Integer n = (lua_Integer)lua_rawlen(L, 1);
    if (n > 1 << 20) return luaL_argerror(L, 1, "too many contributions");
    bw_contribution *list =
        (bw_contribution *)lua_newuserdatauv(L, sizeof *list * (size_t)(n ? n : 1), 0); /* 4: scratch */
    lua_newtable(L); /* 5: anchors the pose handles while the list points at them */
    const bw_rig *rig = base ? pose_rig(base) : NULL;
    int rig_from = base ? 2 : 0; /* stack index of a Pose whose rig to use */

    for (lua_Integer i = 1; i <= n; i++) {
        int type = lua_rawgeti(L, 1, i);
        bw_lua_pose *p = NULL;
        float weight = 1.0f;
        lua_Integer priority = 0;
        if (type == LUA_TUSERDATA) {
            p = (bw_lua_pose *)luaL_testudata(L, -1, BW_LUA_POSE);
        } else if (type == LUA_TTABLE) {
            const int e = lua_gettop(L);
            if (lua_rawgeti(L, e, 1) == LUA_TNIL) { /* {pose, weight, priority} or named fields */
                lua_pop(L, 1);
                bw_lua_raw_field(L, e, "pose");
            }
            p = (bw_lua_pose *)luaL_testudata(L, -1, BW_LUA_POSE);
            if (lua_rawgeti(L, e, 2) == LUA_TNIL) {
                lua_pop(L, 1);
                bw_lua_raw_field(L, e, "weight");
            }
            /* beyond float range: full weight, as `blendwerk sample` reads it */
            if (lua_type(L, -1) == LUA_TNUMBER) weight = bw_lua_clamp_float((double)lua_tonumber(L, -1));
            else if (!lua_isnil(L, -1))
                return luaL_argerror(L, 1, lua_pushfstring(L, "entry %I: weight must be a number", (LUAI_UACINT)i));
            lua_pop(L, 1);
            if (lua_rawgeti(L, e, 3) == LUA_TNIL) {
                lua_pop(L, 1);
                bw_lua_raw_field(L, e, "priority");
            }
            if (!lua_isnil(L, -1)) {
                int isint = 0;
                priority = lua_tointegerx(L, -1, &isint);
                if (!isint || priority < -(1 << 30) || priority > (1 << 30))
                    return luaL_argerror(L, 1,
                                         lua_pushfstring(L, "entry %I: priority must be an integer", (LUAI_UACINT)i));
            }
            lua_pop(L, 1);
            lua_replace(L, e); /* the pose takes the entry's place on the stack */
        }
        if (!p) return luaL_argerror(L, 1, lua_pushfstring(L, "entry %I: Pose expected", (LUAI_UACINT)i));
        if (p->hdr.closed)
            return luaL_argerror(L, 1, lua_pushfstring(L, "entry %I: %s is closed", (LUAI_UACINT)i, BW_LUA_POSE));
        if (!rig) {
            rig = pose_rig(p);
            lua_pushvalue(L, -1);
            lua_rawseti(L, 5, 0); /* the first pose gives the rig */
            rig_from = -1;
        } else if (pose_rig(p) != rig) {
            return luaL_argerror(L, 1, lua_pushfstring(L, "entry %I: pose belongs to another rig", (LUAI_UACINT)i));
        }
        if (out && p == out) return luaL_argerror(L, 3, "the output pose is also a contribution");
        lua_rawseti(L, 5, i); /* anchor the pose */
        list[i - 1].pose = &p->pose;
        list[i - 1].weight = weight;
        list[i - 1].priority = (int)priority;
    }
    if (!rig) return luaL_argerror(L, 1, "no contributions and no base pose");
    if (out && pose_rig(out) != rig) return luaL_argerror(L, 3, "pose belongs to another rig");

    if (out) {
        lua_pushvalue(L, 3);
    } else {
        if (rig_from == 2) lua_getiuservalue(L, 2, BW_LUA_UV_POSE_RIG);
        else {
            lua_rawgeti(L, 5, 0);
            lua_getiuservalue(L, -1, BW_LUA_UV_POSE_RIG);
            lua_remove(L, -2);
        }
        out = bw_lua_push_pose(L, -1);
        lua_remove(L, -2);
    }

    /* a mixer for the rig, so its angle curves mix along the shortest arc */
    bw_mixer_desc md = {rig, (int)(n ? n : 1), bw_lua_allocator_value(L), false};
    bw_mixer *mixer = NULL;
    bw_result res = bw_mixer_create(&md, &mixer);
    if (res != BW_OK) return luaL_error(L, "mix: %s", bw_result_name(res));
    if (base) {
        res = bw_mix_run(mixer, &base->pose, list, (int)n, &out->pose);
    } else {
        /* Composition starts from the rig's current joint values (SPEC §5). */
        bw_pose_set_rest(&out->pose, rig);
        res = bw_mix_run(mixer, NULL, list, (int)n, &out->pose);
    }
    bw_mixer_destroy(mixer);
    if (res != BW_OK) return luaL_error(L, "mix: %s", bw_result_name(res));
    return 1;
}

/* ---- lifetime ---- */

/* __tostring of a live Pose; close(), __gc and __close are the shared
 * ones (closing is a no-op on a borrowed Pose: a track set's output) */
static int describe_pose(lua_State *L)
{
    const bw_lua_pose *p = (const bw_lua_pose *)lua_touserdata(L, 1);
    lua_pushfstring(L, "%s (%s%d joints)", BW_LUA_POSE, p->hdr.borrowed ? "borrowed, " : "", p->pose.joint_count);
    return 1;
}

static const bw_lua_lifetime pose_lifetime = {.type_name = BW_LUA_POSE, .describe = describe_pose};

/* blendwerk.pose(rig) -> empty Pose */
static int l_pose_new(lua_State *L)
{
    bw_lua_check_rig(L, 1);
    bw_lua_push_pose(L, 1);
    return 1;
}

static const luaL_Reg pose_methods[] = {
    {"joint_count", l_joint_count},
    {"curve_count", l_curve_count},
    {"get", l_get},
    {"t", l_t},
    {"r", l_r},
    {"s", l_s},
    {"coverage", l_coverage},
    {"curve", l_curve},
    {"set", l_set},
    {"set_curve", l_set_curve},
    {"clear", l_clear},
    {"set_rest", l_set_rest},
    {"copy", l_copy},
    {"rig", l_rig},
    {"local_to_model", l_local_to_model},
    {"model_position", l_model_position},
    {"rotations", l_rotations},
    {"translations", l_translations},
    {"model_positions", l_model_positions},
    {"set_rotations", l_set_rotations},
    {"set_translations", l_set_translations},
    {NULL, NULL},
};

static const luaL_Reg pose_functions[] = {
    {"pose", l_pose_new},
    {"mix", l_mix},
    {NULL, NULL},
};

void bw_lua_open_pose(lua_State *L)
{
    bw_lua_register_object_type(L, &pose_lifetime, pose_methods, NULL);
    luaL_setfuncs(L, pose_functions, 0);
}
