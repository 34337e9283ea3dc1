/* lua_rig.c - blendwerk.Rig: skeletons built from Lua tables (or borrowed
 * from a loaded Asset), name and parent queries, rest transforms.
 *
 *   blendwerk.rig{ joints = { {name=, parent=, t=, r=, s=}, ... },
 *                  curves = { {name=, angle=, rest=}, ... } }
 *     -> Rig | nil, message
 *
 * rig:warnings() lists what the core warned of while making it (a rest
 * rotation that was not unit length, stored normalized), each message
 * after the "file:line: " of the blendwerk.rig call.
 *
 * Joints are listed parent-first; `parent` is the name of an earlier joint
 * (or its 1-based index), nil / false for a root. Bad descriptions are an
 * expected failure (nil, "rig: joint 3 'arm': parent 'hips' not found");
 * a non-table argument is misuse and raises. */
#include <stdio.h>
#include <string.h>

#include "lua_support.h"

static void destroy_rig(bw_lua_object *o)
{
    bw_lua_rig *r = (bw_lua_rig *)o;
    if (r->owned) bw_rig_destroy(r->rig);
    r->rig = NULL;
}

bw_lua_rig *bw_lua_push_rig(lua_State *L, bw_rig *rig, int owner_idx)
{
    if (owner_idx) owner_idx = lua_absindex(L, owner_idx);
    bw_lua_rig *r = (bw_lua_rig *)bw_lua_new_object(L, sizeof *r, 3, BW_LUA_RIG, destroy_rig);
    r->rig = rig;
    if (owner_idx) {
        r->hdr.borrowed = true;
        bw_lua_object_use(&r->hdr, (bw_lua_object *)lua_touserdata(L, owner_idx));
        lua_pushvalue(L, owner_idx);
        lua_setiuservalue(L, -2, BW_LUA_UV_RIG_ASSET);
    } else {
        r->owned = true;
    }
    return r;
}

bw_lua_rig *bw_lua_check_rig(lua_State *L, int arg) { return (bw_lua_rig *)bw_lua_check_object(L, arg, BW_LUA_RIG); }

/* ---- construction from a table ---- */

typedef struct rig_parse {
    char why[384];
} rig_parse;

static const char *const rig_fields[] = {"joints", "curves", NULL};
static const char *const joint_fields[] = {"name", "parent", "t", "r", "s", NULL};
static const char *const curve_fields[] = {"name", "angle", "rest", NULL};

/* Fail with "rig: <context>: <why>" pushed as nil, message. */
static int parse_fail(lua_State *L, const char *context, const char *why)
{
    lua_pushnil(L);
    if (context && context[0]) lua_pushfstring(L, "rig: %s: %s", context, why);
    else lua_pushfstring(L, "rig: %s", why);
    return 2;
}

/* Resolve joint i's parent (the value on top of the stack) to an index
 * among the joints before it. `names` (stack index) maps each name seen
 * so far to its index, or to false when several earlier joints share it;
 * the description table (arg 1) is searched for names listed later only
 * to give a better message. */
static bool resolve_parent(lua_State *L, int names, int joints, int i, int *out, char *why, size_t why_size)
{
    int type = lua_type(L, -1);
    if (type == LUA_TNIL || (type == LUA_TBOOLEAN && !lua_toboolean(L, -1))) {
        *out = -1;
        return true;
    }
    if (type == LUA_TNUMBER) {
        if (!lua_isinteger(L, -1)) {
            snprintf(why, why_size, "parent index must be an integer");
            return false;
        }
        lua_Integer p = lua_tointeger(L, -1);
        if (p < 1 || p > i) { /* i is this joint's 0-based index: earlier joints are 1..i */
            if (i == 0) snprintf(why, why_size, "parent index %lld: the first joint can only be a root", (long long)p);
            else snprintf(why, why_size, "parent index %lld is not an earlier joint (1..%d)", (long long)p, i);
            return false;
        }
        *out = (int)p - 1;
        return true;
    }
    if (type != LUA_TSTRING) {
        snprintf(why, why_size, "parent must be a joint name or index, not a %s", luaL_typename(L, -1));
        return false;
    }
    const char *pname = lua_tostring(L, -1);
    lua_pushvalue(L, -1);
    int found = lua_rawget(L, names);
    if (found == LUA_TNUMBER) {
        *out = (int)lua_tointeger(L, -1);
        lua_pop(L, 1);
        return true;
    }
    lua_pop(L, 1);
    if (found == LUA_TBOOLEAN) {
        snprintf(why, why_size, "parent name '%s' is ambiguous; give the parent's index", pname);
        return false;
    }
    /* Listed later? That is an order error, not a missing name. */
    lua_Integer n = (lua_Integer)lua_rawlen(L, joints);
    for (lua_Integer k = i + 2; k <= n; k++) {
        bool later = false;
        if (lua_rawgeti(L, joints, k) == LUA_TTABLE) {
            if (bw_lua_raw_field(L, -1, "name") == LUA_TSTRING) later = strcmp(lua_tostring(L, -1), pname) == 0;
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
        if (later) {
            snprintf(why, why_size, "parent '%s' is listed after it (joint %lld); parents come first", pname,
                     (long long)k);
            return false;
        }
    }
    snprintf(why, why_size, "parent '%s' not found", pname);
    return false;
}

static int l_rig_new(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    rig_parse p;
    if (!bw_lua_check_fields_hint(L, 1, rig_fields, p.why, sizeof p.why)) return parse_fail(L, NULL, p.why);

    int jt = bw_lua_raw_field(L, 1, "joints"); /* index 2 */
    if (jt != LUA_TTABLE && jt != LUA_TNIL) return parse_fail(L, NULL, "joints must be a list of tables");
    int ct = bw_lua_raw_field(L, 1, "curves"); /* index 3 */
    if (ct != LUA_TTABLE && ct != LUA_TNIL) return parse_fail(L, NULL, "curves must be a list of tables");
    for (int list = 2; list <= 3; list++) {
        char why[300];
        if (lua_istable(L, list) && !bw_lua_check_list(L, list, why, sizeof why)) {
            snprintf(p.why, sizeof p.why, "%s: %s", list == 2 ? "joints" : "curves", why);
            return parse_fail(L, NULL, p.why);
        }
    }
    lua_Integer joint_count = jt == LUA_TTABLE ? (lua_Integer)lua_rawlen(L, 2) : 0;
    lua_Integer curve_count = ct == LUA_TTABLE ? (lua_Integer)lua_rawlen(L, 3) : 0;
    if (joint_count > BW_RIG_MAX_JOINTS) return parse_fail(L, NULL, "too many joints");
    if (curve_count > BW_RIG_MAX_CURVES) return parse_fail(L, NULL, "too many curves");

    /* Scratch lives in userdata so a Lua error at any point frees it. */
    bw_rig_joint_desc *joints =
        (bw_rig_joint_desc *)lua_newuserdatauv(L, sizeof *joints * (size_t)(joint_count ? joint_count : 1), 0); /* 4 */
    bw_rig_curve_desc *curves =
        (bw_rig_curve_desc *)lua_newuserdatauv(L, sizeof *curves * (size_t)(curve_count ? curve_count : 1), 0); /* 5 */
    lua_newtable(L); /* 6: name -> index, or false when repeated */
    const int names = 6;
    lua_newtable(L); /* 7: "parent index/name" -> true: a (parent, name) pair is one joint */
    const int pairs = 7;

    char context[160];
    for (lua_Integer i = 0; i < joint_count; i++) {
        snprintf(context, sizeof context, "joint %lld", (long long)(i + 1));
        if (lua_rawgeti(L, 2, i + 1) != LUA_TTABLE) return parse_fail(L, context, "must be a table");
        const int e = lua_gettop(L);
        if (bw_lua_raw_field(L, e, "name") != LUA_TSTRING || !bw_lua_is_name(L, -1))
            return parse_fail(L, context, "name must be a non-empty string without NUL bytes");
        /* The name string stays anchored by the description table. */
        const char *name = lua_tostring(L, -1);
        snprintf(context, sizeof context, "joint %lld '%s'", (long long)(i + 1), name);
        if (!bw_lua_check_fields_hint(L, e, joint_fields, p.why, sizeof p.why)) return parse_fail(L, context, p.why);
        bw_rig_joint_desc *d = &joints[i];
        d->name = name;
        d->rest = bw_transform_identity;
        bw_lua_raw_field(L, e, "parent");
        if (!resolve_parent(L, names, 2, (int)i, &d->parent, p.why, sizeof p.why))
            return parse_fail(L, context, p.why);
        lua_pop(L, 1);
        if (!bw_lua_read_transform(L, e, &d->rest, p.why, sizeof p.why)) return parse_fail(L, context, p.why);
        /* the rig refuses a repeated (parent, name) pair: said here in the
         * script's own numbering */
        lua_pushfstring(L, "%d/%s", d->parent, name);
        if (lua_rawget(L, pairs) != LUA_TNIL) {
            if (d->parent < 0) snprintf(p.why, sizeof p.why, "a root named '%s' is listed twice", name);
            else snprintf(p.why, sizeof p.why, "joint '%s' appears twice under parent '%s' (a (parent, name) pair must be unique)",
                          name, joints[d->parent].name);
            return parse_fail(L, context, p.why);
        }
        lua_pop(L, 1);
        lua_pushfstring(L, "%d/%s", d->parent, name);
        lua_pushboolean(L, 1);
        lua_rawset(L, pairs);
        /* names[name] = index, or false once the name repeats */
        lua_pushvalue(L, -1);
        if (lua_rawget(L, names) == LUA_TNIL) {
            lua_pop(L, 1);
            lua_pushvalue(L, -1);
            lua_pushinteger(L, (lua_Integer)i);
        } else {
            lua_pop(L, 1);
            lua_pushvalue(L, -1);
            lua_pushboolean(L, 0);
        }
        lua_rawset(L, names);
        lua_settop(L, pairs);
    }
    for (lua_Integer i = 0; i < curve_count; i++) {
        snprintf(context, sizeof context, "curve %lld", (long long)(i + 1));
        if (lua_rawgeti(L, 3, i + 1) != LUA_TTABLE) return parse_fail(L, context, "must be a table");
        const int e = lua_gettop(L);
        if (bw_lua_raw_field(L, e, "name") != LUA_TSTRING || !bw_lua_is_name(L, -1))
            return parse_fail(L, context, "name must be a non-empty string without NUL bytes");
        bw_rig_curve_desc *d = &curves[i];
        d->name = lua_tostring(L, -1);
        snprintf(context, sizeof context, "curve %lld '%s'", (long long)(i + 1), d->name);
        if (!bw_lua_check_fields_hint(L, e, curve_fields, p.why, sizeof p.why)) return parse_fail(L, context, p.why);
        lua_pop(L, 1);
        int at = bw_lua_raw_field(L, e, "angle");
        if (at != LUA_TNIL && at != LUA_TBOOLEAN) return parse_fail(L, context, "angle must be a boolean");
        d->kind = lua_toboolean(L, -1) ? BW_CURVE_ANGLE : BW_CURVE_FLOAT;
        lua_pop(L, 1);
        int rt = bw_lua_raw_field(L, e, "rest");
        d->rest = 0.0f;
        if (rt == LUA_TNUMBER) {
            const char *bad = bw_lua_to_float((double)lua_tonumber(L, -1), &d->rest);
            if (bad) {
                snprintf(p.why, sizeof p.why, "rest %s", bad);
                return parse_fail(L, context, p.why);
            }
        } else if (rt != LUA_TNIL) {
            return parse_fail(L, context, "rest must be a number");
        }
        lua_settop(L, pairs);
    }

    bw_rig_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.joints = joints;
    desc.joint_count = (int)joint_count;
    desc.curves = curves;
    desc.curve_count = (int)curve_count;
    desc.allocator = bw_lua_allocator_value(L);
    bw_lua_rig *r = bw_lua_push_rig(L, NULL, 0); /* empty handle first, then the rig it owns */
    const int handle = lua_gettop(L);
    bw_lua_begin_made_warnings(L, &desc.logger);
    bw_error err;
    memset(&err, 0, sizeof err);
    bw_result res = bw_rig_create(&desc, &r->rig, &err);
    if (res != BW_OK) {
        r->rig = NULL;
        lua_pushnil(L);
        bw_lua_push_error(L, "rig", res, &err);
        return 2;
    }
    bw_lua_keep_made_warnings(L, handle, BW_LUA_UV_RIG_WARNINGS);
    return 1;
}

/* ---- methods ---- */

static int l_joint_count(lua_State *L)
{
    lua_pushinteger(L, bw_rig_joint_count(bw_lua_check_rig(L, 1)->rig));
    return 1;
}

static int l_curve_count(lua_State *L)
{
    lua_pushinteger(L, bw_rig_curve_count(bw_lua_check_rig(L, 1)->rig));
    return 1;
}

static int l_joint_name(lua_State *L)
{
    const bw_rig *rig = bw_lua_check_rig(L, 1)->rig;
    lua_pushstring(L, bw_rig_joint_name(rig, bw_lua_check_joint(L, 2, rig)));
    return 1;
}

static int l_joint_parent(lua_State *L)
{
    const bw_rig *rig = bw_lua_check_rig(L, 1)->rig;
    int parent = bw_rig_joint_parent(rig, bw_lua_check_joint(L, 2, rig));
    if (parent < 0) lua_pushnil(L);
    else lua_pushinteger(L, parent + 1);
    return 1;
}

/* rig:find(name [, parent_name]) -> index | nil, reason */
static int l_find(lua_State *L)
{
    const bw_rig *rig = bw_lua_check_rig(L, 1)->rig;
    const char *name = luaL_checkstring(L, 2);
    const char *parent = luaL_optstring(L, 3, NULL);
    int j = bw_rig_find(rig, parent, name);
    if (j >= 0) {
        lua_pushinteger(L, j + 1);
        return 1;
    }
    lua_pushnil(L);
    lua_pushstring(L, j == BW_RIG_AMBIGUOUS ? "ambiguous" : "not found");
    return 2;
}

static int l_find_curve(lua_State *L)
{
    const bw_rig *rig = bw_lua_check_rig(L, 1)->rig;
    int c = bw_rig_find_curve(rig, luaL_checkstring(L, 2));
    if (c < 0) lua_pushnil(L);
    else lua_pushinteger(L, c + 1);
    return 1;
}

static int l_curve_name(lua_State *L)
{
    const bw_rig *rig = bw_lua_check_rig(L, 1)->rig;
    lua_pushstring(L, bw_rig_curve_name(rig, bw_lua_check_curve(L, 2, rig)));
    return 1;
}

static int l_curve_kind(lua_State *L)
{
    const bw_rig *rig = bw_lua_check_rig(L, 1)->rig;
    lua_pushstring(L, bw_rig_curve_kind(rig, bw_lua_check_curve(L, 2, rig)) == BW_CURVE_ANGLE ? "angle" : "float");
    return 1;
}

static int l_rest(lua_State *L)
{
    const bw_rig *rig = bw_lua_check_rig(L, 1)->rig;
    int j = bw_lua_check_joint(L, 2, rig);
    bw_lua_push_transform(L, &bw_rig_rest_pose(rig)[j]);
    return 1;
}

/* rig:set_rest(joint, {t=, r=, s=}): absent fields keep their values. */
static int l_set_rest(lua_State *L)
{
    bw_lua_rig *r = bw_lua_check_rig(L, 1);
    int j = bw_lua_check_joint(L, 2, r->rig);
    luaL_checktype(L, 3, LUA_TTABLE);
    bw_transform x = bw_rig_rest_pose(r->rig)[j];
    char why[256];
    if (!bw_lua_check_fields_hint(L, 3, bw_lua_transform_fields, why, sizeof why) ||
        !bw_lua_read_transform(L, 3, &x, why, sizeof why))
        return luaL_argerror(L, 3, lua_pushstring(L, why));
    bw_result res = bw_rig_set_rest(r->rig, j, &x);
    if (res != BW_OK) return luaL_error(L, "set_rest failed: %s", bw_result_name(res));
    return 0;
}

static int l_topology_revision(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)bw_rig_topology_revision(bw_lua_check_rig(L, 1)->rig));
    return 1;
}

static int l_layout_signature(lua_State *L)
{
    /* A 64-bit hash: the bits as a Lua integer (may be negative). */
    lua_pushinteger(L, (lua_Integer)bw_rig_layout_signature(bw_lua_check_rig(L, 1)->rig));
    return 1;
}

/* rig:warnings() -> { message, ... }: what blendwerk.rig warned of (a new
 * list each call, possibly empty; see bw_lua_push_made_warnings) */
static int l_warnings(lua_State *L)
{
    bw_lua_check_rig(L, 1);
    bw_lua_push_made_warnings(L, 1);
    bw_lua_push_list_copy(L, -1);
    return 1;
}

/* rig:pose() -> empty Pose (identity, coverage 0) */
static int l_pose(lua_State *L)
{
    bw_lua_check_rig(L, 1);
    bw_lua_push_pose(L, 1);
    return 1;
}

/* rig:rest_pose() -> Pose holding the rig's current joint values, coverage 1 */
static int l_rest_pose(lua_State *L)
{
    bw_lua_rig *r = bw_lua_check_rig(L, 1);
    bw_lua_pose *p = bw_lua_push_pose(L, 1);
    bw_pose_set_rest(&p->pose, r->rig);
    return 1;
}

/* __tostring of a live Rig; close(), __gc and __close are the shared ones
 * (closing is a no-op on a borrowed Rig) */
static int describe_rig(lua_State *L)
{
    const bw_lua_rig *r = (const bw_lua_rig *)lua_touserdata(L, 1);
    lua_pushfstring(L, "%s (%s%d joints, %d curves)", BW_LUA_RIG, r->hdr.borrowed ? "borrowed, " : "",
                    bw_rig_joint_count(r->rig), bw_rig_curve_count(r->rig));
    return 1;
}

static const bw_lua_lifetime rig_lifetime = {.type_name = BW_LUA_RIG, .describe = describe_rig};

static const luaL_Reg rig_methods[] = {
    {"joint_count", l_joint_count},
    {"curve_count", l_curve_count},
    {"joint_name", l_joint_name},
    {"joint_parent", l_joint_parent},
    {"find", l_find},
    {"find_curve", l_find_curve},
    {"curve_name", l_curve_name},
    {"curve_kind", l_curve_kind},
    {"rest", l_rest},
    {"set_rest", l_set_rest},
    {"topology_revision", l_topology_revision},
    {"layout_signature", l_layout_signature},
    {"pose", l_pose},
    {"rest_pose", l_rest_pose},
    {"warnings", l_warnings},
    {NULL, NULL},
};

static const luaL_Reg rig_meta[] = {
    {"__eq", bw_lua_shared_eq},
    {NULL, NULL},
};

static const luaL_Reg rig_functions[] = {
    {"rig", l_rig_new},
    {NULL, NULL},
};

void bw_lua_open_rig(lua_State *L)
{
    bw_lua_register_object_type(L, &rig_lifetime, rig_methods, rig_meta);
    luaL_setfuncs(L, rig_functions, 0);
}
