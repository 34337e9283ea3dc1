/* lua_controls.c - blendwerk.controls: the control runner (controls.h)
 * from a trusted Lua host (`blendwerk run`, an embedding's own state).
 *
 * A blendwerk.Controls owns a sandbox of its own on the given folder (the
 * control scripts run there, never in the caller's state) and a runner
 * over the caller's Rig, which it keeps alive (uservalue and use count).
 * Poses passed to run are the caller's blendwerk.Pose of that rig. A
 * script that is itself sandboxed cannot make one: a sandbox of its own
 * would escape its caller's memory cap and budget. docs/lua-api.md. */
#include <math.h>
#include <string.h>

#include "controls.h"
#include "lua_support.h"

#define BW_LUA_CONTROLS "blendwerk.Controls"

typedef struct lua_controls {
    bw_lua_object hdr; /* deps: rig */
    bw_sandbox *sb;
    bw_controls *controls;
    bw_lua_rig *rig;
    int characters;
} lua_controls;

static void destroy_controls(bw_lua_object *o)
{
    lua_controls *c = (lua_controls *)o;
    bw_controls_destroy(c->controls); /* before the sandbox it lives in */
    bw_sandbox_destroy(c->sb);
    c->controls = NULL;
    c->sb = NULL;
}

static lua_controls *check_controls(lua_State *L, int arg)
{
    return (lua_controls *)bw_lua_check_object(L, arg, BW_LUA_CONTROLS);
}

static int fail(lua_State *L, const char *message)
{
    lua_pushnil(L);
    lua_pushstring(L, message);
    return 2;
}

/* blendwerk.controls{ rig = Rig, dir = "scripts" [, characters = 1] [, watch = false] }
 * -> Controls | nil, message */
static int l_controls(lua_State *L)
{
    if (bw_sandbox_from_state(L))
        return luaL_error(L, "blendwerk.controls: not available inside the sandbox (a sandboxed script "
                             "cannot start a sandbox of its own)");
    luaL_checktype(L, 1, LUA_TTABLE);
    static const char *const fields[] = {"rig", "dir", "characters", "watch", NULL};
    char why[256];
    if (!bw_lua_check_fields_hint(L, 1, fields, why, sizeof why)) return luaL_argerror(L, 1, lua_pushstring(L, why));
    lua_settop(L, 1);
    bw_lua_raw_field(L, 1, "rig"); /* 2 */
    bw_lua_rig *rig = (bw_lua_rig *)bw_lua_test_object(L, 2, BW_LUA_RIG);
    if (!rig) return luaL_argerror(L, 1, "rig: a blendwerk.Rig expected");
    if (bw_lua_raw_field(L, 1, "dir") != LUA_TSTRING) return luaL_argerror(L, 1, "dir: the scripts' folder expected"); /* 3 */
    const char *dir = lua_tostring(L, 3);
    lua_Integer characters = 1;
    if (bw_lua_raw_field(L, 1, "characters") != LUA_TNIL) { /* 4 */
        int isint = 0;
        characters = lua_tointegerx(L, 4, &isint);
        if (!isint || characters < 1 || characters > 65536)
            return luaL_argerror(L, 1, "characters must be an integer in [1, 65536]");
    }
    bw_lua_raw_field(L, 1, "watch"); /* 5 */
    bool watch = lua_toboolean(L, 5);

    lua_controls *c = (lua_controls *)bw_lua_new_object(L, sizeof *c, 1, BW_LUA_CONTROLS, destroy_controls); /* 6 */
    c->rig = rig;
    c->characters = (int)characters;
    bw_lua_object_use(&c->hdr, &rig->hdr);
    lua_pushvalue(L, 2);
    lua_setiuservalue(L, 6, 1);
    bw_sandbox_desc sd = {0};
    sd.dir = dir;
    char err[512] = "";
    c->sb = bw_sandbox_create(&sd, err, sizeof err);
    if (!c->sb) return fail(L, err);
    bw_controls_desc d = {.sandbox = c->sb, .rig = rig->rig, .character_count = (int)characters, .dir = dir,
                          .watch = watch, .allocator = bw_lua_allocator_value(L)};
    c->controls = bw_controls_create(&d, err, sizeof err);
    if (!c->controls) return fail(L, err);
    return 1;
}

/* c:load(file [, options]) -> index (1-based) | nil, "file:line: message"
 * options: Lua table constructor text, e.g. "{ yaw_limit = 1 }" */
static int l_load(lua_State *L)
{
    lua_controls *c = check_controls(L, 1);
    const char *name = luaL_checkstring(L, 2);
    const char *options = luaL_optstring(L, 3, NULL);
    char err[BW_CONTROLS_ERROR_MAX];
    int k = bw_controls_load(c->controls, name, options, err, sizeof err);
    if (k < 0) return fail(L, err);
    lua_pushinteger(L, k + 1);
    return 1;
}

static int check_character(lua_State *L, int arg, const lua_controls *c)
{
    lua_Integer i = luaL_checkinteger(L, arg);
    if (i < 1 || i > c->characters)
        return luaL_argerror(L, arg, lua_pushfstring(L, "character %I is not in [1, %d]", (LUAI_UACINT)i, c->characters));
    return (int)i - 1;
}

/* input.name as {x, y, z} into v; false when absent */
static bool input_vec(lua_State *L, int input, const char *name, float *v)
{
    int type = bw_lua_raw_field(L, input, name);
    if (type == LUA_TNIL) {
        lua_pop(L, 1);
        return false;
    }
    if (type != LUA_TTABLE) luaL_error(L, "input.%s: {x, y, z} expected", name);
    for (int i = 0; i < 3; i++) {
        int isnum = 0;
        lua_rawgeti(L, -1, i + 1);
        double d = (double)lua_tonumberx(L, -1, &isnum);
        lua_pop(L, 1);
        const char *why = isnum ? bw_lua_to_float(d, &v[i]) : "is not a number";
        if (why) luaL_error(L, "input.%s[%d] %s", name, i + 1, why);
    }
    lua_pop(L, 1);
    return true;
}

/* c:run(character, pose [, input [, dt]]) -> failures
 * input: { position = {x, y, z}, yaw = radians, target = {x, y, z} | nil } */
static int l_run(lua_State *L)
{
    lua_controls *c = check_controls(L, 1);
    int ch = check_character(L, 2, c);
    bw_lua_pose *p = bw_lua_check_pose(L, 3);
    if (p->rig->rig != c->rig->rig) return luaL_argerror(L, 3, "the pose belongs to another rig");
    bw_control_input in;
    memset(&in, 0, sizeof in);
    if (!lua_isnoneornil(L, 4)) {
        luaL_checktype(L, 4, LUA_TTABLE);
        static const char *const fields[] = {"position", "yaw", "target", NULL};
        char why[256];
        if (!bw_lua_check_fields_hint(L, 4, fields, why, sizeof why)) return luaL_argerror(L, 4, lua_pushstring(L, why));
        input_vec(L, 4, "position", in.position);
        in.has_target = input_vec(L, 4, "target", in.target);
        if (bw_lua_raw_field(L, 4, "yaw") != LUA_TNIL) {
            int isnum = 0;
            double d = (double)lua_tonumberx(L, -1, &isnum);
            const char *why2 = isnum ? bw_lua_to_float(d, &in.yaw) : "is not a number";
            if (why2) return luaL_error(L, "input.yaw %s", why2);
        }
        lua_pop(L, 1);
    }
    float dt = bw_lua_opt_float(L, 5, 0.0f);
    lua_pushinteger(L, bw_controls_run(c->controls, ch, &p->pose, &in, dt));
    return 1;
}

/* c:read(character, field) -> { numbers } (ctx[field] of that character) */
static int l_read(lua_State *L)
{
    lua_controls *c = check_controls(L, 1);
    int ch = check_character(L, 2, c);
    const char *field = luaL_checkstring(L, 3);
    int n = bw_controls_read(c->controls, ch, field, NULL, 0);
    float *v = (float *)lua_newuserdatauv(L, sizeof(float) * (size_t)(n > 0 ? n : 1), 0);
    bw_controls_read(c->controls, ch, field, v, n);
    bw_lua_push_floats(L, v, n);
    return 1;
}

/* c:overrides(character, pose) -> { { joint = index, r = {x, y, z, w} }, ... } */
static int l_overrides(lua_State *L)
{
    lua_controls *c = check_controls(L, 1);
    int ch = check_character(L, 2, c);
    bw_lua_pose *p = bw_lua_check_pose(L, 3);
    int n = bw_controls_overrides(c->controls, ch, &p->pose, NULL, 0);
    bw_joint_override *o =
        (bw_joint_override *)lua_newuserdatauv(L, sizeof *o * (size_t)(n > 0 ? n : 1), 0);
    bw_controls_overrides(c->controls, ch, &p->pose, o, n);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_createtable(L, 0, 2);
        lua_pushinteger(L, o[i].joint + 1);
        lua_setfield(L, -2, "joint");
        bw_lua_push_floats(L, o[i].r, 4);
        lua_setfield(L, -2, "r");
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int push_reload(lua_State *L, const lua_controls *c, bw_controls_reload_result r)
{
    static const char *const names[] = {"none", "done", "rejected"};
    lua_pushstring(L, names[r]);
    if (r != BW_CONTROLS_RELOAD_REJECTED) return 1;
    lua_pushstring(L, bw_controls_error(c->controls));
    return 2;
}

/* c:reload(file) -> "none" | "done" | "rejected", message (file: a control's or a module's) */
static int l_reload(lua_State *L)
{
    lua_controls *c = check_controls(L, 1);
    return push_reload(L, c, bw_controls_reload(c->controls, luaL_checkstring(L, 2)));
}

/* c:poll(now) -> the same (with watch = true) */
static int l_poll(lua_State *L)
{
    lua_controls *c = check_controls(L, 1);
    return push_reload(L, c, bw_controls_poll(c->controls, (double)luaL_checknumber(L, 2)));
}

/* c:count() -> controls loaded */
static int l_count(lua_State *L)
{
    lua_pushinteger(L, bw_controls_count(check_controls(L, 1)->controls));
    return 1;
}

static const luaL_Reg controls_methods[] = {
    {"load", l_load},     {"run", l_run},   {"read", l_read},   {"overrides", l_overrides},
    {"reload", l_reload}, {"poll", l_poll}, {"count", l_count}, {NULL, NULL},
};

/* close(), __gc and __close from bw_lua_register_object_type; no __tostring */
static const bw_lua_lifetime controls_lifetime = {.type_name = BW_LUA_CONTROLS};

void bw_lua_open_controls(lua_State *L)
{
    bw_lua_register_object_type(L, &controls_lifetime, controls_methods, NULL);
    lua_pushcfunction(L, l_controls);
    lua_setfield(L, -2, "controls");
}
