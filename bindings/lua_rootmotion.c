/* lua_rootmotion.c - root-motion extraction and removal for Lua (SPEC §8):
 * blendwerk.root_motion and the blendwerk.RootMotion type.
 *
 *   local rm = blendwerk.root_motion(rig [, {root = "hips" | 1,
 *                                           axes = {"x", "z", "yaw"}}])
 *       -> RootMotion | nil, message
 *   rm:extract({ {binding = b | clip = c, from =, delta =, loop =, weight =,
 *                 priority =}, ... } [, out])
 *       -> {x =, y =, z =, yaw =, coverage =, used =, skipped =} | nil, message
 *   rm:extract_tracks(track_set [, out])   -> the same, from the set's last advance
 *   rm:remove(pose | {t =, r =, s =})      -> the pose (changed in place) |
 *                                             a new transform table | nil, message
 *   rm:root() -> index, name;  rm:axes() -> {"x", ...};  rm:rig();  rm:close()
 *
 * A RootMotion is the core's bw_root_motion_config bound to one Rig: the
 * root joint's name is resolved once, when it is made, so the per-frame
 * calls never look a name up. It keeps its Rig alive (uservalue plus a
 * counted use) and owns no C memory of its own.
 *
 * Errors follow docs/lua-api.md: misuse (wrong argument types, closed
 * objects, a pose or track set of another rig) raises naming the
 * argument; a table that does not describe a config, a play or a transform
 * returns nil plus a message naming the entry ("root motion: plays[2]:
 * delta is missing"). Non-finite from / delta / weight inside a play are
 * not errors: the core skips such a play and counts it in `skipped`, so
 * one broken play does not stop the character. */
#include <limits.h>
#include <stdarg.h>
#include <string.h>

#include "blendwerk/rootmotion.h"
#include "lua_blendwerk.h"
#include "lua_support.h"

#define BW_LUA_ROOT_MOTION "blendwerk.RootMotion"
/* Plays one extract call takes: the core's own bound for a track set, and
 * what fits the C stack comfortably (the per-frame path allocates nothing
 * in C). */
#define MAX_PLAYS BW_ROOT_MOTION_MAX_TRACKS

enum { UV_RIG = 1, UV_PLAY_FIELDS, UV_COUNT = UV_PLAY_FIELDS };

typedef struct root_motion {
    bw_lua_object hdr; /* deps: rig */
    bw_root_motion_config cfg;
    bw_lua_rig *rig;
} root_motion;

static const char *const axis_names[4] = {"x", "y", "z", "yaw"};
static const unsigned axis_bits[4] = {BW_ROOT_X, BW_ROOT_Y, BW_ROOT_Z, BW_ROOT_YAW};

static root_motion *check_rm(lua_State *L, int arg)
{
    return (root_motion *)bw_lua_check_object(L, arg, BW_LUA_ROOT_MOTION);
}

/* nil, "root motion: <message>" for the caller to return. */
static int fail(lua_State *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lua_pushnil(L);
    lua_pushliteral(L, "root motion: ");
    lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    lua_concat(L, 2);
    return 2;
}

/* Why a core call on this config failed, in the script's terms. */
static const char *result_reason(bw_result res)
{
    switch (res) {
    case BW_ERR_RANGE: return "the root joint is outside the rig (make a new RootMotion after changing the rig)";
    case BW_ERR_NON_FINITE: return "the transform is not finite";
    case BW_ERR_INVALID_ARGUMENT: return "the root's ancestors have a scale that cannot be inverted";
    default: return bw_result_name(res);
    }
}


/* ---- the config ---- */

static const char *const config_fields[] = {"root", "axes", NULL};

/* the fields of a play table (rm:extract) */
static const char *const play_fields[] = {"binding", "clip", "from", "delta", "loop", "weight", "priority", NULL};

/* blendwerk.root_motion(rig [, {root =, axes =}]) -> RootMotion | nil, message */
static int l_root_motion(lua_State *L)
{
    bw_lua_rig *r = bw_lua_check_rig(L, 1);
    if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    unsigned axes = 0; /* the core's default: X, Z and yaw */
    int root = -1;
    const char *root_name = NULL;
    if (lua_istable(L, 2)) {
        char why[256];
        if (!bw_lua_check_fields_hint(L, 2, config_fields, why, sizeof why)) return fail(L, "%s", why);
        int type = bw_lua_raw_field(L, 2, "axes"); /* 3 */
        if (type == LUA_TTABLE) {
            if (!bw_lua_check_list(L, 3, why, sizeof why)) return fail(L, "axes: %s", why);
            lua_Unsigned n = lua_rawlen(L, 3);
            if (n == 0) return fail(L, "axes is empty (use a list such as {\"x\", \"z\", \"yaw\"})");
            if (n > 16) return fail(L, "axes has more than 16 entries");
            for (int i = 1; i <= (int)n; i++) {
                if (lua_rawgeti(L, 3, i) != LUA_TSTRING) return fail(L, "axes[%d] must be a string", i);
                const char *name = lua_tostring(L, -1);
                int a = 0;
                while (a < 4 && strcmp(name, axis_names[a]) != 0) a++;
                if (a == 4) return fail(L, "axes[%d]: unknown axis '%s' (x, y, z or yaw)", i, name);
                axes |= axis_bits[a];
                lua_pop(L, 1);
            }
        } else if (type != LUA_TNIL) {
            return fail(L, "axes must be a list such as {\"x\", \"z\", \"yaw\"}, not a %s", luaL_typename(L, 3));
        }
        type = bw_lua_raw_field(L, 2, "root"); /* 4: stays, so root_name stays anchored */
        if (type == LUA_TSTRING) {
            root_name = lua_tostring(L, 4);
        } else if (type == LUA_TNUMBER) {
            int isint = 0;
            lua_Integer i = lua_tointegerx(L, 4, &isint);
            int count = bw_rig_joint_count(r->rig);
            if (!isint) return fail(L, "root must be a joint index (an integer) or a joint name");
            if (i < 1 || i > count)
                return fail(L, "root joint index %I out of range 1..%d", (LUAI_UACINT)i, count);
            root = (int)(i - 1);
        } else if (type != LUA_TNIL) {
            return fail(L, "root must be a joint index or name, not a %s", luaL_typename(L, 4));
        }
    }
    bw_root_motion_config cfg;
    bw_error err;
    memset(&err, 0, sizeof err);
    /* config_init finds the name (and refuses an ambiguous one); an index
     * was range-checked above and replaces joint 0 afterwards. */
    bw_result res = bw_root_motion_config_init(&cfg, r->rig, root_name, axes, &err);
    if (res != BW_OK) {
        lua_pushnil(L);
        bw_lua_push_error(L, NULL, res, &err); /* "root motion: no joint named 'x'" */
        return 2;
    }
    if (root >= 0) cfg.root_joint = root;

    root_motion *rm = (root_motion *)bw_lua_new_object(L, sizeof *rm, UV_COUNT, BW_LUA_ROOT_MOTION, NULL);
    rm->cfg = cfg;
    rm->rig = r;
    bw_lua_object_use(&rm->hdr, &r->hdr);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, UV_RIG);
    bw_lua_push_keys(L, play_fields, true); /* a play's keys are checked against it, per frame */
    lua_setiuservalue(L, -2, UV_PLAY_FIELDS);
    return 1;
}

/* ---- extraction ---- */

/* Write the delta into the table at out_arg (if it is one) or a new one,
 * left on the stack. Raw sets: an out table's metatable never runs. */
static void push_delta(lua_State *L, const bw_root_delta *d, int out_arg)
{
    if (lua_istable(L, out_arg)) lua_pushvalue(L, out_arg);
    else lua_createtable(L, 0, 7);
    const int t = lua_gettop(L);
    const struct {
        const char *key;
        lua_Number value;
    } numbers[] = {{"x", d->t[0]}, {"y", d->t[1]}, {"z", d->t[2]}, {"yaw", d->yaw}, {"coverage", d->coverage}};
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
        lua_pushstring(L, numbers[i].key);
        lua_pushnumber(L, numbers[i].value);
        lua_rawset(L, t);
    }
    lua_pushliteral(L, "used");
    lua_pushinteger(L, d->used);
    lua_rawset(L, t);
    lua_pushliteral(L, "skipped");
    lua_pushinteger(L, d->skipped);
    lua_rawset(L, t);
}

/* A number field of the play table at e: *out gets it (NaN and infinities
 * included); returns 1 if present, 0 if absent, -1 if not a number. */
static int play_number(lua_State *L, int e, const char *field, double *out)
{
    int type = bw_lua_raw_field(L, e, field);
    int result = type == LUA_TNIL ? 0 : type == LUA_TNUMBER ? 1 : -1;
    if (result == 1) *out = (double)lua_tonumber(L, -1);
    lua_pop(L, 1);
    return result;
}

/* rm:extract(plays [, out]) -> delta | nil, message */
static int l_extract(lua_State *L)
{
    root_motion *rm = check_rm(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    if (!lua_isnoneornil(L, 3)) bw_lua_check_out_table(L, 3);
    lua_settop(L, 3);
    lua_Unsigned count = lua_rawlen(L, 2);
    if (count > MAX_PLAYS) return fail(L, "plays has more than %d entries", MAX_PLAYS);
    const int n = (int)count;
    /* Each play's Binding is kept on the stack until the core is done:
     * a binding made here for a clip is anchored nowhere else. */
    luaL_checkstack(L, n + 9, "root motion plays");
    lua_getiuservalue(L, 1, UV_RIG); /* 4 */
    const int rig_idx = 4;
    lua_getiuservalue(L, 1, UV_PLAY_FIELDS); /* 5: play_fields as a set */
    const int play_set = 5;

    bw_root_play plays[MAX_PLAYS];
    for (int i = 1; i <= n; i++) {
        const int e = lua_gettop(L) + 1;
        if (lua_rawgeti(L, 2, i) != LUA_TTABLE)
            return fail(L, "plays[%d] must be a table {binding = .., from = .., delta = ..}, not a %s", i,
                        luaL_typename(L, e));
        if (!bw_lua_fields_in_set(L, e, play_set)) {
            char why[256];
            bw_lua_check_fields_hint(L, e, play_fields, why, sizeof why);
            return fail(L, "plays[%d]: %s", i, why);
        }

        bool has_binding = bw_lua_raw_field(L, e, "binding") != LUA_TNIL; /* e + 1 */
        bool has_clip = bw_lua_raw_field(L, e, "clip") != LUA_TNIL;       /* e + 2 */
        bw_lua_binding *b = NULL;
        if (has_binding && has_clip) return fail(L, "plays[%d]: give binding= or clip=, not both", i);
        if (has_binding) {
            b = (bw_lua_binding *)luaL_testudata(L, e + 1, BW_LUA_BINDING);
            if (!b)
                return fail(L, "plays[%d].binding must be a blendwerk.Binding, not a %s", i, luaL_typename(L, e + 1));
            if (b->hdr.closed)
                return luaL_argerror(L, 2, lua_pushfstring(L, "plays[%d].binding is a closed blendwerk.Binding", i));
        } else if (has_clip) {
            bw_lua_clip *c = (bw_lua_clip *)luaL_testudata(L, e + 2, BW_LUA_CLIP);
            if (!c) return fail(L, "plays[%d].clip must be a blendwerk.Clip, not a %s", i, luaL_typename(L, e + 2));
            if (c->hdr.closed)
                return luaL_argerror(L, 2, lua_pushfstring(L, "plays[%d].clip is a closed blendwerk.Clip", i));
            /* The clip's binding to this rig, made once and cached on the clip. */
            b = bw_lua_push_cached_binding(L, e + 2, rig_idx);
            if (!b) return fail(L, "plays[%d]: %s", i, lua_tostring(L, -1));
            lua_copy(L, -1, e + 1);
        } else {
            return fail(L, "plays[%d]: needs binding= (a blendwerk.Binding) or clip= (a blendwerk.Clip)", i);
        }
        lua_settop(L, e + 1); /* entry, binding */

        bw_root_play *p = &plays[i - 1];
        memset(p, 0, sizeof *p);
        p->binding = b->binding;
        double v = 0.0;
        int got = play_number(L, e, "from", &v);
        if (got < 0) return fail(L, "plays[%d].from must be a number", i);
        p->from = got ? v : 0.0;
        got = play_number(L, e, "delta", &v);
        if (got <= 0) return fail(L, "plays[%d].delta %s", i, got ? "must be a number" : "is missing");
        p->delta = v;
        got = play_number(L, e, "weight", &v);
        if (got < 0) return fail(L, "plays[%d].weight must be a number", i);
        p->weight = got ? bw_lua_clamp_float(v) : 1.0f;
        int type = bw_lua_raw_field(L, e, "loop");
        if (type != LUA_TNIL && type != LUA_TBOOLEAN) return fail(L, "plays[%d].loop must be a boolean", i);
        p->loop = type == LUA_TNIL ? bw_clip_loop(b->clip->clip) : lua_toboolean(L, -1);
        lua_pop(L, 1);
        type = bw_lua_raw_field(L, e, "priority");
        if (type != LUA_TNIL) {
            int isint = 0;
            lua_Integer prio = lua_tointegerx(L, -1, &isint);
            if (type != LUA_TNUMBER || !isint || prio < INT_MIN || prio > INT_MAX)
                return fail(L, "plays[%d].priority must be an integer", i);
            p->priority = (int)prio;
        }
        lua_pop(L, 1);

        lua_copy(L, e + 1, e); /* the binding takes the entry's slot */
        lua_settop(L, e);
    }

    bw_root_delta d;
    bw_result res = bw_root_motion_extract(rm->rig->rig, &rm->cfg, plays, n, &d);
    if (res != BW_OK) return fail(L, "%s", result_reason(res));
    push_delta(L, &d, 3);
    return 1;
}

/* rm:extract_tracks(set [, out]) -> delta | nil, message
 * Call it after set:advance(dt) (or set:update(dt)): it reads each live
 * track's last advance. */
static int l_extract_tracks(lua_State *L)
{
    root_motion *rm = check_rm(L, 1);
    const bw_rig *set_rig = NULL;
    const bw_track_set *set = bw_lua_check_track_set(L, 2, &set_rig);
    if (set_rig != rm->rig->rig) return luaL_argerror(L, 2, "the track set plays on another rig");
    if (!lua_isnoneornil(L, 3)) bw_lua_check_out_table(L, 3);
    bw_root_delta d;
    bw_result res = bw_root_motion_extract_tracks(set, rm->rig->rig, &rm->cfg, &d);
    if (res != BW_OK) return fail(L, "%s", result_reason(res));
    push_delta(L, &d, 3);
    return 1;
}

/* ---- removal ---- */

/* rm:remove(pose) -> pose | nil, message: the pose's root joint in place.
 * rm:remove({t =, r =, s =}) -> {t =, r =, s =} | nil, message: a new
 * table (absent fields are the identity's). */
static int l_remove(lua_State *L)
{
    root_motion *rm = check_rm(L, 1);
    bw_lua_pose *p = (bw_lua_pose *)bw_lua_test_object(L, 2, BW_LUA_POSE);
    if (p) {
        if (p->rig->rig != rm->rig->rig) return luaL_argerror(L, 2, "pose belongs to another rig");
        if (rm->cfg.root_joint >= p->pose.joint_count) return fail(L, "%s", result_reason(BW_ERR_RANGE));
        bw_result res = bw_root_motion_remove(rm->rig->rig, &rm->cfg, &p->pose.joints[rm->cfg.root_joint]);
        if (res != BW_OK) return fail(L, "%s", result_reason(res));
        lua_settop(L, 2);
        return 1;
    }
    if (lua_type(L, 2) != LUA_TTABLE) return luaL_typeerror(L, 2, "blendwerk.Pose or transform table");
    bw_transform x = bw_transform_identity;
    char why[256];
    /* coverage is accepted (and ignored) so that rm:remove(pose:get(j)) works */
    if (!bw_lua_check_fields_hint(L, 2, bw_lua_joint_fields, why, sizeof why) ||
        !bw_lua_read_transform(L, 2, &x, why, sizeof why))
        return fail(L, "transform: %s", why);
    bw_result res = bw_root_motion_remove(rm->rig->rig, &rm->cfg, &x);
    if (res != BW_OK) return fail(L, "%s", result_reason(res));
    bw_lua_push_transform(L, &x);
    return 1;
}

/* ---- queries and lifetime ---- */

/* rm:root() -> 1-based joint index, joint name */
static int l_root(lua_State *L)
{
    root_motion *rm = check_rm(L, 1);
    lua_pushinteger(L, rm->cfg.root_joint + 1);
    const char *name = bw_rig_joint_name(rm->rig->rig, rm->cfg.root_joint);
    if (name) lua_pushstring(L, name);
    else lua_pushnil(L);
    return 2;
}

static unsigned axes_of(const root_motion *rm) { return rm->cfg.axes ? rm->cfg.axes : BW_ROOT_AXES_DEFAULT; }

/* rm:axes() -> {"x", "z", "yaw"} (the enabled axes, in that order) */
static int l_axes(lua_State *L)
{
    root_motion *rm = check_rm(L, 1);
    unsigned axes = axes_of(rm);
    lua_createtable(L, 4, 0);
    int n = 0;
    for (int a = 0; a < 4; a++) {
        if (!(axes & axis_bits[a])) continue;
        lua_pushstring(L, axis_names[a]);
        lua_rawseti(L, -2, ++n);
    }
    return 1;
}

/* rm:rig() -> the Rig, borrowed (closing it leaves it open) */
static int l_rig(lua_State *L)
{
    check_rm(L, 1);
    lua_getiuservalue(L, 1, UV_RIG);
    bw_lua_push_shared(L, -1);
    return 1;
}

/* __tostring of a live RootMotion; close(), __gc and __close are the
 * shared ones (the handle becomes unusable and drops its use of the rig
 * once nothing else needs it) */
static int describe_rm(lua_State *L)
{
    const root_motion *rm = (const root_motion *)lua_touserdata(L, 1);
    if (!rm->rig) return 0;
    const char *name = bw_rig_joint_name(rm->rig->rig, rm->cfg.root_joint);
    unsigned axes = axes_of(rm);
    lua_pushfstring(L, "%s (root %d '%s', axes%s%s%s%s)", BW_LUA_ROOT_MOTION, rm->cfg.root_joint + 1,
                    name ? name : "?", (axes & BW_ROOT_X) ? " x" : "", (axes & BW_ROOT_Y) ? " y" : "",
                    (axes & BW_ROOT_Z) ? " z" : "", (axes & BW_ROOT_YAW) ? " yaw" : "");
    return 1;
}

static const bw_lua_lifetime rm_lifetime = {.type_name = BW_LUA_ROOT_MOTION, .describe = describe_rm};

static const luaL_Reg rm_methods[] = {
    {"extract", l_extract},
    {"extract_tracks", l_extract_tracks},
    {"remove", l_remove},
    {"root", l_root},
    {"axes", l_axes},
    {"rig", l_rig},
    {NULL, NULL},
};

static const luaL_Reg rm_functions[] = {
    {"root_motion", l_root_motion},
    {NULL, NULL},
};

void bw_lua_open_rootmotion(lua_State *L)
{
    luaL_checktype(L, -1, LUA_TTABLE);
    bw_lua_register_object_type(L, &rm_lifetime, rm_methods, NULL);
    luaL_setfuncs(L, rm_functions, 0);
}
