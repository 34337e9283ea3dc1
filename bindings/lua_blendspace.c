/* lua_blendspace.c - blend spaces and blend trees for Lua (SPEC §6).
 *
 * Pure weight functions:
 *   blendwerk.blend1d_weights(thresholds, x)           -> weights, rates
 *   blendwerk.blend2d_weights(points, x, y [, mode])   -> weights
 *   blendwerk.grid_weights(x_values, y_values, x, y)   -> weights
 *
 * thresholds / x_values / y_values are arrays of finite numbers; points is
 * an array of {x, y} pairs (or {x = .., y = ..} tables); mode is
 * "cartesian" (default) or "directional". Each returns an array of weights
 * in member order (row-major, x fastest, for the grid); blend1d_weights
 * also returns each member's locomotion rate multiplier (1 inside the
 * range; x / threshold for the end members outside it). The query numbers
 * follow the C rules: NaN or infinite counts as 0; a finite number beyond
 * float range clamps to ±FLT_MAX (1e39 is far past the end, not 0).
 *
 * Blend trees (blendwerk.BlendTree) and synchronized phase:
 *   blendwerk.blend_tree(root [, {params = {names}}]) -> BlendTree | nil, message
 *   tree:evaluate(values [, out])              -> leaves, cycle_duration
 *   tree:step(progress, dt, values [, out])    -> progress', leaves (with .time,
 *                                                 .from, .delta), cycle
 *   tree:params(), tree:param_index(name), tree:clips(), tree:leaf_count(),
 *   tree:node_count(), tree:close()
 *   blendwerk.phase_advance(progress, dt, cycle) -> progress'
 *   blendwerk.leaf_time(progress, length [, rate]) -> seconds
 *   blendwerk.cycle_duration(leaves)           -> seconds
 * The description is a nested table (see docs/lua-rootmotion-blendtree.md).
 * It is read twice with raw accesses: once to check it and count what the
 * tree needs, once to fill one userdata block holding the node array, the
 * children and positions, and the evaluation buffers. Parameter names are
 * numbered once at build time; evaluation never allocates in C and reads
 * each parameter from `values` by index or by its (interned) name.
 *
 * Misuse raises an error that names the argument ("bad argument #1 to
 * 'blend1d_weights' (thresholds[3] is not a number (got string))");
 * a description that does not validate returns nil plus a message naming
 * the node ("blend tree: root.children[2]: length is missing").
 * Scratch arrays are userdata, so an error mid-call leaks nothing.
 */
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "blendwerk/blendspace.h"
#include "lua_blendwerk.h"
#include "lua_support.h"

/* Largest member array accepted; the 2D modes are O(n²). */
#define MAX_MEMBERS 4096

static float *scratch(lua_State *L, size_t floats)
{
    return (float *)lua_newuserdatauv(L, floats * sizeof(float), 0);
}

static float number_at(lua_State *L, int arg, const char *what, int i)
{
    int isnum = 0;
    lua_Number v = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumberx(L, -1, &isnum) : 0;
    if (!isnum)
        luaL_argerror(L, arg, lua_pushfstring(L, "%s[%d] is not a number (got %s)", what, i, luaL_typename(L, -1)));
    float f = 0.0f;
    if (bw_lua_to_float((double)v, &f))
        luaL_argerror(L, arg, lua_pushfstring(L, "%s[%d] is not a finite float", what, i));
    return f;
}

/* An array of numbers at `arg`, copied into new userdata scratch (left on
 * the stack). */
static float *check_numbers(lua_State *L, int arg, const char *what, int *out_count)
{
    if (lua_type(L, arg) != LUA_TTABLE)
        luaL_argerror(L, arg, lua_pushfstring(L, "%s must be an array of numbers (got %s)", what, luaL_typename(L, arg)));
    lua_Unsigned n = lua_rawlen(L, arg);
    if (n == 0) luaL_argerror(L, arg, lua_pushfstring(L, "%s is empty", what));
    if (n > MAX_MEMBERS) luaL_argerror(L, arg, lua_pushfstring(L, "%s has more than %d entries", what, MAX_MEMBERS));
    float *v = scratch(L, (size_t)n);
    for (int i = 1; i <= (int)n; i++) {
        lua_rawgeti(L, arg, i);
        v[i - 1] = number_at(L, arg, what, i);
        lua_pop(L, 1);
    }
    *out_count = (int)n;
    return v;
}

/* A query coordinate: any number (NaN and ±inf are allowed and count as
 * 0 in the core; finite values beyond float range clamp to ±FLT_MAX, so a
 * huge query stays "far past the end" instead of becoming inf, which the
 * core would read as 0), anything else names the argument. */
static float check_coordinate(lua_State *L, int arg, const char *what)
{
    int isnum = 0;
    lua_Number v = lua_type(L, arg) == LUA_TNUMBER ? lua_tonumberx(L, arg, &isnum) : 0;
    if (!isnum) luaL_argerror(L, arg, lua_pushfstring(L, "%s must be a number (got %s)", what, luaL_typename(L, arg)));
    return bw_lua_clamp_float(v);
}

static int l_blend1d_weights(lua_State *L)
{
    int n = 0;
    float *t = check_numbers(L, 1, "thresholds", &n);
    float x = check_coordinate(L, 2, "x");
    float *w = scratch(L, 2 * (size_t)n), *r = w + n;
    if (bw_blend1d_weights(t, n, x, w, r) != BW_OK) return luaL_error(L, "blend1d_weights: %s", "failed");
    bw_lua_push_floats(L, w, n);
    bw_lua_push_floats(L, r, n);
    return 2;
}

/* One point: {x, y} or {x = .., y = ..}. */
static void point_at(lua_State *L, int arg, int i, float *out)
{
    int e = lua_gettop(L);
    if (lua_type(L, e) != LUA_TTABLE)
        luaL_argerror(L, arg, lua_pushfstring(L, "points[%d] must be a {x, y} table (got %s)", i, luaL_typename(L, e)));
    static const char *const keys[2] = {"x", "y"};
    for (int c = 0; c < 2; c++) {
        if (lua_rawgeti(L, e, c + 1) == LUA_TNIL) {
            lua_pop(L, 1);
            lua_pushstring(L, keys[c]);
            lua_rawget(L, e);
        }
        int isnum = 0;
        lua_Number v = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumberx(L, -1, &isnum) : 0;
        if (!isnum)
            luaL_argerror(L, arg, lua_pushfstring(L, "points[%d].%s is not a number (got %s)", i, keys[c],
                                                  luaL_typename(L, -1)));
        if (bw_lua_to_float((double)v, &out[c]))
            luaL_argerror(L, arg, lua_pushfstring(L, "points[%d].%s is not a finite float", i, keys[c]));
        lua_pop(L, 1);
    }
}

static int l_blend2d_weights(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TTABLE)
        luaL_argerror(L, 1, lua_pushfstring(L, "points must be an array of {x, y} (got %s)", luaL_typename(L, 1)));
    float x = check_coordinate(L, 2, "x");
    float y = check_coordinate(L, 3, "y");
    bw_blend2d_mode mode = BW_BLEND2D_CARTESIAN;
    if (!lua_isnoneornil(L, 4)) {
        const char *m = lua_type(L, 4) == LUA_TSTRING ? lua_tostring(L, 4) : NULL;
        if (m && !strcmp(m, "cartesian")) mode = BW_BLEND2D_CARTESIAN;
        else if (m && !strcmp(m, "directional")) mode = BW_BLEND2D_DIRECTIONAL;
        else luaL_argerror(L, 4, "mode must be \"cartesian\" or \"directional\"");
    }
    lua_Unsigned n = lua_rawlen(L, 1);
    if (n == 0) luaL_argerror(L, 1, "points is empty");
    if (n > MAX_MEMBERS) luaL_argerror(L, 1, lua_pushfstring(L, "points has more than %d entries", MAX_MEMBERS));
    float *p = scratch(L, 3 * (size_t)n), *w = p + 2 * n;
    for (int i = 1; i <= (int)n; i++) {
        lua_rawgeti(L, 1, i);
        point_at(L, 1, i, p + 2 * (i - 1));
        lua_pop(L, 1);
    }
    if (bw_blend2d_weights(p, (int)n, x, y, mode, w) != BW_OK) return luaL_error(L, "blend2d_weights: failed");
    bw_lua_push_floats(L, w, (int)n);
    return 1;
}

static int l_grid_weights(lua_State *L)
{
    int nx = 0, ny = 0;
    float *xs = check_numbers(L, 1, "x_values", &nx);
    float *ys = check_numbers(L, 2, "y_values", &ny);
    float x = check_coordinate(L, 3, "x");
    float y = check_coordinate(L, 4, "y");
    if (nx > MAX_MEMBERS / ny)
        luaL_argerror(L, 2, lua_pushfstring(L, "the grid has more than %d cells", MAX_MEMBERS));
    float *w = scratch(L, (size_t)nx * (size_t)ny);
    if (bw_blend_grid_weights(xs, nx, ys, ny, x, y, w) != BW_OK) return luaL_error(L, "grid_weights: failed");
    bw_lua_push_floats(L, w, nx * ny);
    return 1;
}


/* ---- blend trees ---- */

#define BW_LUA_BLEND_TREE "blendwerk.BlendTree"
/* Most nodes one description may produce. A Lua table used in several
 * places becomes one node per place, so this also bounds the work a
 * description with heavy sharing can cause. */
#define MAX_TREE_NODES 4096
#define MAX_PARAMS 256

enum { TREE_UV_CLIPS = 1, TREE_UV_NAMES = 2 };

/* Everything the tree needs lives in this one userdata block, so it owns
 * no C resources: collecting or closing it frees nothing but Lua memory,
 * and a failure half-way through a build cannot leak. */
typedef struct tree_obj {
    bw_lua_object hdr;
    bw_blend_tree tree; /* nodes, children and positions point into this block */
    int leaf_count;
    int child_count;
    int scratch_count;
    bw_blend_leaf *leaves; /* leaf_count: a tree built from tables shares no node */
    float *scratch;        /* 2 × child_count >= any path's need */
    float *params;         /* tree.param_count */
} tree_obj;

typedef struct build {
    lua_State *L;
    bool fill;          /* second pass: write the nodes */
    bool fixed_params;  /* options.params given: nodes may not add names */
    int names;          /* stack index: parameter names in index order */
    int index;          /* stack index: name -> 1-based index */
    int on_path;        /* stack index: set of the tables being descended */
    int clips;          /* stack index: leaf clip values (second pass) */
    int param_count;
    int nodes, children, positions, leaves; /* counts (first pass) or cursors */
    int node_cap, child_cap, position_cap;  /* second pass bounds */
    bw_blend_node *node_buf;
    int *child_buf;
    float *position_buf;
    char path[480]; /* "root.children[2].children[1]" */
    char why[320];
} build;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int build_fail(build *b, const char *fmt, ...)
{
    /* Returns -1 so that callers can `return build_fail(...)`; `>= 0` on
     * it gives false for the bool-returning readers. */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->why, sizeof b->why, fmt, ap);
    va_end(ap);
    return -1;
}

static const char *const leaf_fields[] = {"clip", "length", "speed", "at", NULL};
static const char *const fields_1d[] = {"kind", "param", "rate_scale", "speed", "children", "at", NULL};
static const char *const fields_2d[] = {"kind", "params", "speed", "children", "at", NULL};
static const char *const fields_grid[] = {"kind", "params", "x_values", "y_values", "speed", "children", "at", NULL};

static const struct {
    const char *name;
    bw_blend_node_kind kind;
    const char *const *fields;
} node_kinds[] = {
    {"1d", BW_BLEND_NODE_1D, fields_1d},
    {"2d", BW_BLEND_NODE_2D, fields_2d},
    {"cartesian", BW_BLEND_NODE_2D, fields_2d},
    {"directional", BW_BLEND_NODE_DIRECTIONAL, fields_2d},
    {"grid", BW_BLEND_NODE_GRID, fields_grid},
};

/* An optional finite number field of the table at idx. */
static bool node_number(build *b, int idx, const char *field, float *out, bool *present)
{
    lua_State *L = b->L;
    int type = bw_lua_raw_field(L, idx, field);
    bool ok = true;
    *present = type != LUA_TNIL;
    if (type == LUA_TNUMBER) {
        const char *bad = bw_lua_to_float((double)lua_tonumber(L, -1), out);
        if (bad) ok = build_fail(b, "%s %s", field, bad) >= 0;
    } else if (type != LUA_TNIL) {
        ok = build_fail(b, "%s must be a number, not a %s", field, luaL_typename(L, -1)) >= 0;
    }
    lua_pop(L, 1);
    return ok;
}

/* The array of finite numbers in field `field` of the table at idx:
 * returns its length (1..MAX_MEMBERS) or -1; writes it to dst if not NULL
 * (at most cap entries). */
static int node_numbers(build *b, int idx, const char *field, float *dst, int cap)
{
    lua_State *L = b->L;
    if (bw_lua_raw_field(L, idx, field) != LUA_TTABLE) {
        build_fail(b, "%s must be a list of numbers, not a %s", field, luaL_typename(L, -1));
        lua_pop(L, 1);
        return -1;
    }
    lua_Unsigned n = lua_rawlen(L, -1);
    int result = (int)n;
    if (n == 0) result = build_fail(b, "%s is empty", field);
    else if (n > MAX_MEMBERS) result = build_fail(b, "%s has more than %d entries", field, MAX_MEMBERS);
    for (int i = 1; result > 0 && i <= (int)n; i++) {
        float v = 0.0f;
        const char *bad = lua_rawgeti(L, -1, i) == LUA_TNUMBER ? bw_lua_to_float((double)lua_tonumber(L, -1), &v)
                                                               : "is not a number";
        lua_pop(L, 1);
        if (bad) result = build_fail(b, "%s[%d] %s", field, i, bad);
        else if (dst && i <= cap) dst[i - 1] = v;
    }
    lua_pop(L, 1);
    return result;
}

/* The index of the parameter named by the value on top of the stack (which
 * is popped). New names are numbered in order of first use, unless the
 * options fixed the list. Returns -1 on failure. */
static int param_of(build *b, const char *field)
{
    lua_State *L = b->L;
    int result = -1;
    if (lua_type(L, -1) != LUA_TSTRING || lua_rawlen(L, -1) == 0) {
        build_fail(b, "%s must be a parameter name (a non-empty string), not a %s", field, luaL_typename(L, -1));
    } else {
        lua_pushvalue(L, -1);
        int found = lua_rawget(L, b->index) == LUA_TNUMBER ? (int)lua_tointeger(L, -1) : 0;
        lua_pop(L, 1);
        if (found > 0) {
            result = found - 1;
        } else if (b->fixed_params) {
            build_fail(b, "%s '%s' is not in options.params", field, lua_tostring(L, -1));
        } else if (b->param_count >= MAX_PARAMS) {
            build_fail(b, "more than %d parameters", MAX_PARAMS);
        } else {
            result = b->param_count++;
            lua_pushvalue(L, -1);
            lua_rawseti(L, b->names, result + 1);
            lua_pushvalue(L, -1);
            lua_pushinteger(L, result + 1);
            lua_rawset(L, b->index);
        }
    }
    lua_pop(L, 1);
    return result;
}

/* A 2D position {x, y} or {x = .., y = ..} (the table at idx). */
static bool read_pair(build *b, int idx, float out[2])
{
    lua_State *L = b->L;
    static const char *const keys[2] = {"x", "y"};
    bool array = lua_rawgeti(L, idx, 1) != LUA_TNIL;
    lua_pop(L, 1);
    for (int c = 0; c < 2; c++) {
        int type = array ? lua_rawgeti(L, idx, c + 1) : bw_lua_raw_field(L, idx, keys[c]);
        const char *bad = type == LUA_TNUMBER ? bw_lua_to_float((double)lua_tonumber(L, -1), &out[c])
                          : type == LUA_TNIL  ? "is missing"
                                              : "must be a number";
        lua_pop(L, 1);
        if (bad) return build_fail(b, "at.%s %s", keys[c], bad) >= 0;
    }
    return true;
}

static int build_node(build *b, int idx, int depth);

static int build_leaf(build *b, int idx, int self)
{
    lua_State *L = b->L;
    char why[160];
    if (!bw_lua_check_fields(L, idx, leaf_fields, why, sizeof why)) return build_fail(b, "%s of a leaf", why);
    float length = 0.0f, speed = 1.0f;
    bool has_length = false, has_speed = false;
    if (!node_number(b, idx, "length", &length, &has_length)) return -1;
    if (!has_length) {
        /* A Clip knows its length; any other clip value needs length=. */
        bw_lua_raw_field(L, idx, "clip");
        const bw_lua_clip *c = (const bw_lua_clip *)luaL_testudata(L, -1, BW_LUA_CLIP);
        bool closed = c && (c->hdr.closed || !c->clip);
        if (c && !closed) length = bw_clip_length(c->clip);
        lua_pop(L, 1);
        if (!c) return build_fail(b, "length is missing (needed unless clip is a blendwerk.Clip)");
        if (closed) return build_fail(b, "clip is a closed blendwerk.Clip");
    }
    if (length < 0.0f) return build_fail(b, "length %g is negative", (double)length);
    if (!node_number(b, idx, "speed", &speed, &has_speed)) return -1;
    int leaf = b->leaves++;
    if (b->fill) {
        bw_blend_node *n = &b->node_buf[self];
        *n = bw_blend_clip_node(leaf, length);
        n->speed = speed;
        bw_lua_raw_field(L, idx, "clip");
        lua_rawseti(L, b->clips, leaf + 1);
    }
    return 0;
}

static int build_blend(build *b, int idx, int self, int depth)
{
    lua_State *L = b->L;
    int kind = -1;
    if (bw_lua_raw_field(L, idx, "kind") == LUA_TSTRING) {
        const char *name = lua_tostring(L, -1);
        for (int i = 0; i < (int)(sizeof node_kinds / sizeof node_kinds[0]) && kind < 0; i++)
            if (strcmp(name, node_kinds[i].name) == 0) kind = i;
        if (kind < 0) build_fail(b, "unknown kind '%s' (1d, 2d, directional or grid)", name);
    } else {
        build_fail(b, "kind must be a string (1d, 2d, directional or grid), not a %s", luaL_typename(L, -1));
    }
    lua_pop(L, 1);
    if (kind < 0) return -1;
    const bw_blend_node_kind k = node_kinds[kind].kind;
    char why[160];
    if (!bw_lua_check_fields(L, idx, node_kinds[kind].fields, why, sizeof why))
        return build_fail(b, "%s of a %s node", why, node_kinds[kind].name);

    float speed = 1.0f;
    bool has_speed = false;
    if (!node_number(b, idx, "speed", &speed, &has_speed)) return -1;
    bool rate_scale = false;
    int type = bw_lua_raw_field(L, idx, "rate_scale");
    rate_scale = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (type != LUA_TNIL && type != LUA_TBOOLEAN) return build_fail(b, "rate_scale must be a boolean");

    int px = -1, py = -1;
    if (k == BW_BLEND_NODE_1D) {
        if (bw_lua_raw_field(L, idx, "param") == LUA_TNIL) {
            lua_pop(L, 1);
            return build_fail(b, "param is missing (the name of the parameter a 1d node reads)");
        }
        if ((px = param_of(b, "param")) < 0) return -1;
    } else {
        if (bw_lua_raw_field(L, idx, "params") != LUA_TTABLE || lua_rawlen(L, -1) != 2) {
            lua_pop(L, 1);
            return build_fail(b, "params must be a list of two parameter names {x, y}");
        }
        lua_rawgeti(L, -1, 1);
        px = param_of(b, "params[1]");
        if (px >= 0) {
            lua_rawgeti(L, -1, 2);
            py = param_of(b, "params[2]");
        }
        lua_pop(L, 1);
        if (px < 0 || py < 0) return -1;
    }

    if (bw_lua_raw_field(L, idx, "children") != LUA_TTABLE) {
        lua_pop(L, 1);
        return build_fail(b, "children must be a list of nodes");
    }
    const int children = lua_gettop(L);
    lua_Unsigned count = lua_rawlen(L, children);
    if (count == 0) return build_fail(b, "children is empty");
    if (count > MAX_MEMBERS) return build_fail(b, "more than %d children", MAX_MEMBERS);
    const int cc = (int)count;

    int nx = 0, ny = 0, position_count = k == BW_BLEND_NODE_1D ? cc : 2 * cc;
    if (k == BW_BLEND_NODE_GRID) {
        if ((nx = node_numbers(b, idx, "x_values", NULL, 0)) < 0) return -1;
        if ((ny = node_numbers(b, idx, "y_values", NULL, 0)) < 0) return -1;
        if ((long)nx * ny != cc)
            return build_fail(b, "a %d x %d grid needs %ld children, not %d", nx, ny, (long)nx * ny, cc);
        position_count = nx + ny;
    }
    const int first_child = b->children, first_position = b->positions;
    b->children += cc;
    b->positions += position_count;
    float *pos = NULL;
    if (b->fill) {
        /* The first pass counted exactly this; a description that changed
         * in between (a finalizer editing it) must not write past the
         * block. */
        if (b->children > b->child_cap || b->positions > b->position_cap)
            return build_fail(b, "the description changed while it was read");
        pos = b->position_buf + first_position;
        if (k == BW_BLEND_NODE_GRID &&
            (node_numbers(b, idx, "x_values", pos, nx) != nx || node_numbers(b, idx, "y_values", pos + nx, ny) != ny))
            return build_fail(b, "the description changed while it was read");
    }

    const size_t path_len = strlen(b->path);
    for (int i = 0; i < cc; i++) {
        snprintf(b->path + path_len, sizeof b->path - path_len, ".children[%d]", i + 1);
        lua_rawgeti(L, children, i + 1);
        const int child_idx = lua_gettop(L);
        if (lua_type(L, child_idx) != LUA_TTABLE)
            return build_fail(b, "a node must be a table, not a %s", luaL_typename(L, child_idx));
        /* The child's place in this node's space. */
        int at = bw_lua_raw_field(L, child_idx, "at");
        const int at_idx = lua_gettop(L);
        float p[2] = {0.0f, 0.0f};
        if (k == BW_BLEND_NODE_GRID) {
            if (at != LUA_TNIL)
                return build_fail(b, "a grid child takes its place from x_values and y_values; remove at");
        } else if (at == LUA_TNIL) {
            return build_fail(b, "at is missing (its place in the %s node's space)", node_kinds[kind].name);
        } else if (k == BW_BLEND_NODE_1D) {
            const char *bad = at == LUA_TNUMBER ? bw_lua_to_float((double)lua_tonumber(L, at_idx), &p[0])
                                                : "must be a number (a 1d threshold)";
            if (bad) return build_fail(b, "at %s", bad);
        } else if (at != LUA_TTABLE) {
            return build_fail(b, "at must be a position {x, y}, not a %s", luaL_typename(L, at_idx));
        } else if (!read_pair(b, at_idx, p)) {
            return -1;
        }
        lua_pop(L, 1); /* at */
        if (pos && k == BW_BLEND_NODE_1D) pos[i] = p[0];
        if (pos && k != BW_BLEND_NODE_1D && k != BW_BLEND_NODE_GRID) {
            pos[2 * i] = p[0];
            pos[2 * i + 1] = p[1];
        }
        int child = build_node(b, child_idx, depth + 1);
        if (child < 0) return -1;
        if (b->fill) b->child_buf[first_child + i] = child;
        lua_pop(L, 1); /* the child */
        b->path[path_len] = '\0';
    }
    lua_pop(L, 1); /* children */

    if (b->fill) {
        bw_blend_node *n = &b->node_buf[self];
        memset(n, 0, sizeof *n);
        n->kind = k;
        n->speed = has_speed ? speed : 1.0f;
        n->clip = -1;
        n->children = b->child_buf + first_child;
        n->child_count = cc;
        n->positions = pos;
        n->grid_nx = nx;
        n->grid_ny = ny;
        n->param_x = px;
        n->param_y = py;
        n->rate_scale = rate_scale && k == BW_BLEND_NODE_1D;
    }
    return 0;
}

/* Build the node described by the table at idx; returns its index (nodes
 * are numbered depth-first, parents before children) or -1. */
static int build_node(build *b, int idx, int depth)
{
    lua_State *L = b->L;
    if (lua_type(L, idx) != LUA_TTABLE) return build_fail(b, "a node must be a table, not a %s", luaL_typename(L, idx));
    if (depth > BW_BLEND_MAX_DEPTH) return build_fail(b, "nested deeper than %d levels", BW_BLEND_MAX_DEPTH);
    luaL_checkstack(L, 12, "blend tree description");
    lua_pushvalue(L, idx);
    bool cycle = lua_rawget(L, b->on_path) != LUA_TNIL;
    lua_pop(L, 1);
    if (cycle) return build_fail(b, "contains itself (a cycle)");
    if (b->nodes >= MAX_TREE_NODES) return build_fail(b, "more than %d nodes", MAX_TREE_NODES);
    if (b->fill && b->nodes >= b->node_cap) return build_fail(b, "the description changed while it was read");
    const int self = b->nodes++;

    bool leaf = bw_lua_raw_field(L, idx, "clip") != LUA_TNIL;
    bool blend = bw_lua_raw_field(L, idx, "kind") != LUA_TNIL;
    lua_pop(L, 2);
    if (leaf && blend) return build_fail(b, "a node has clip= (a leaf) or kind= (a blend node), not both");
    if (!leaf && !blend)
        return build_fail(b, "a node needs clip= (a leaf) or kind= (\"1d\", \"2d\", \"directional\", \"grid\")");

    lua_pushvalue(L, idx);
    lua_pushboolean(L, 1);
    lua_rawset(L, b->on_path);
    int r = leaf ? build_leaf(b, idx, self) : build_blend(b, idx, self, depth);
    if (r < 0) return -1; /* the caller resets the stack and the work tables */
    lua_pushvalue(L, idx);
    lua_pushnil(L);
    lua_rawset(L, b->on_path);
    return self;
}

static size_t align16(size_t n) { return (n + 15u) & ~(size_t)15u; }

static const char *const tree_option_fields[] = {"params", NULL};

/* blendwerk.blend_tree(root [, {params = {names}}]) -> BlendTree | nil, message */
static int l_blend_tree(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        char why[128];
        if (!bw_lua_check_fields(L, 2, tree_option_fields, why, sizeof why))
            return luaL_argerror(L, 2, lua_pushstring(L, why));
    }
    lua_settop(L, 2);
    build b;
    memset(&b, 0, sizeof b);
    b.L = L;
    lua_newtable(L);
    b.names = lua_gettop(L);
    lua_newtable(L);
    b.index = lua_gettop(L);
    lua_newtable(L);
    b.on_path = lua_gettop(L);
    const int base = b.on_path;

    if (lua_istable(L, 2)) {
        int type = bw_lua_raw_field(L, 2, "params");
        if (type != LUA_TNIL && type != LUA_TTABLE)
            return luaL_argerror(L, 2, "params must be a list of parameter names");
        lua_Unsigned n = type == LUA_TTABLE ? lua_rawlen(L, -1) : 0;
        if (n > MAX_PARAMS) return luaL_argerror(L, 2, lua_pushfstring(L, "more than %d params", MAX_PARAMS));
        for (int i = 1; i <= (int)n; i++) {
            if (lua_rawgeti(L, -1, i) != LUA_TSTRING || lua_rawlen(L, -1) == 0)
                return luaL_argerror(L, 2, lua_pushfstring(L, "params[%d] must be a non-empty string", i));
            lua_pushvalue(L, -1);
            if (lua_rawget(L, b.index) != LUA_TNIL)
                return luaL_argerror(L, 2, lua_pushfstring(L, "params[%d] '%s' repeats", i, lua_tostring(L, -2)));
            lua_pop(L, 1);
            lua_pushvalue(L, -1);
            lua_rawseti(L, b.names, i);
            lua_pushinteger(L, i);
            lua_rawset(L, b.index);
        }
        lua_pop(L, 1);
        b.param_count = (int)n;
        b.fixed_params = type == LUA_TTABLE;
    }

    strcpy(b.path, "root");
    int at = bw_lua_raw_field(L, 1, "at");
    lua_pop(L, 1);
    int root = at != LUA_TNIL ? build_fail(&b, "the root has no parent to place it in; remove at")
                              : build_node(&b, 1, 1);
    if (root < 0) {
        lua_settop(L, base);
        lua_pushnil(L);
        lua_pushfstring(L, "blend tree: %s: %s", b.path, b.why);
        return 2;
    }

    /* One block: header, nodes, children, positions, leaves, scratch, params. */
    const int nodes = b.nodes, child_count = b.children, position_count = b.positions, leaves = b.leaves;
    const int params = b.param_count;
    size_t off_nodes = align16(sizeof(tree_obj));
    size_t off_children = align16(off_nodes + sizeof(bw_blend_node) * (size_t)nodes);
    size_t off_positions = align16(off_children + sizeof(int) * (size_t)child_count);
    size_t off_leaves = align16(off_positions + sizeof(float) * (size_t)position_count);
    size_t off_scratch = align16(off_leaves + sizeof(bw_blend_leaf) * (size_t)leaves);
    size_t off_params = align16(off_scratch + sizeof(float) * 2 * (size_t)child_count);
    size_t size = align16(off_params + sizeof(float) * (size_t)params);
    tree_obj *t = (tree_obj *)bw_lua_new_object(L, size, 2, BW_LUA_BLEND_TREE, NULL);
    const int obj = lua_gettop(L);
    unsigned char *block = (unsigned char *)t;
    lua_createtable(L, leaves, 0);
    b.clips = lua_gettop(L);

    b.fill = true;
    b.node_buf = (bw_blend_node *)(block + off_nodes);
    b.child_buf = (int *)(block + off_children);
    b.position_buf = (float *)(block + off_positions);
    b.node_cap = nodes;
    b.child_cap = child_count;
    b.position_cap = position_count;
    b.nodes = b.children = b.positions = b.leaves = 0;
    strcpy(b.path, "root");
    root = build_node(&b, 1, 1);
    if (root >= 0 && (b.nodes != nodes || b.leaves != leaves || b.param_count != params))
        root = build_fail(&b, "the description changed while it was read");
    if (root < 0) {
        lua_settop(L, base);
        lua_pushnil(L);
        lua_pushfstring(L, "blend tree: %s: %s", b.path, b.why);
        return 2;
    }

    t->tree.nodes = b.node_buf;
    t->tree.node_count = nodes;
    t->tree.root = root;
    t->tree.param_count = params;
    t->leaf_count = leaves;
    t->child_count = child_count;
    t->leaves = (bw_blend_leaf *)(block + off_leaves);
    t->scratch = (float *)(block + off_scratch);
    t->scratch_count = 2 * child_count;
    t->params = (float *)(block + off_params);
    bw_blend_tree_sizes sizes;
    bw_error err;
    memset(&err, 0, sizeof err);
    bw_result res = bw_blend_tree_validate(&t->tree, &sizes, &err);
    if (res != BW_OK) {
        /* Everything the core checks was checked above; keep the core's
         * word anyway rather than evaluate a tree it rejects. */
        t->tree.node_count = 0;
        lua_settop(L, base);
        lua_pushnil(L);
        bw_lua_push_error(L, NULL, res, &err);
        return 2;
    }
    if (sizes.max_leaves > t->leaf_count || sizes.scratch_count > t->scratch_count)
        return luaL_error(L, "blend_tree: buffers smaller than the core needs (%d leaves, %d scratch)",
                          sizes.max_leaves, sizes.scratch_count);
    lua_pushvalue(L, b.clips);
    lua_setiuservalue(L, obj, TREE_UV_CLIPS);
    lua_pushvalue(L, b.names);
    lua_setiuservalue(L, obj, TREE_UV_NAMES);
    lua_pushvalue(L, obj);
    return 1;
}

static tree_obj *check_tree(lua_State *L, int arg)
{
    return (tree_obj *)bw_lua_check_object(L, arg, BW_LUA_BLEND_TREE);
}

/* Read the parameter values from the table at `arg`: entry i by index
 * ([i]) or by name; each must be a number. */
static void read_values(lua_State *L, tree_obj *t, int arg)
{
    const int count = t->tree.param_count;
    if (count == 0 && lua_isnoneornil(L, arg)) return;
    if (lua_type(L, arg) != LUA_TTABLE) luaL_typeerror(L, arg, "table of parameter values");
    lua_getiuservalue(L, 1, TREE_UV_NAMES);
    const int names = lua_gettop(L);
    for (int i = 0; i < count; i++) {
        int type = lua_rawgeti(L, arg, i + 1);
        if (type == LUA_TNIL) {
            lua_pop(L, 1);
            lua_rawgeti(L, names, i + 1);
            type = lua_rawget(L, arg); /* names are interned: a hash lookup, no string compare */
        }
        if (type != LUA_TNUMBER) {
            lua_rawgeti(L, names, i + 1);
            const char *name = lua_tostring(L, -1);
            if (type == LUA_TNIL) luaL_argerror(L, arg, lua_pushfstring(L, "values.%s is missing", name));
            luaL_argerror(L, arg,
                          lua_pushfstring(L, "values.%s must be a number (got %s)", name, lua_typename(L, type)));
        }
        t->params[i] = bw_lua_clamp_float(lua_tonumber(L, -1));
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

static int evaluate(lua_State *L, tree_obj *t, int values_arg)
{
    read_values(L, t, values_arg);
    int n = 0;
    bw_result res = bw_blend_tree_evaluate(&t->tree, t->params, t->scratch, t->scratch_count, t->leaves,
                                           t->leaf_count, &n);
    if (res != BW_OK) return luaL_error(L, "blend tree evaluation failed: %s", bw_result_name(res));
    return n;
}

static void set_number(lua_State *L, int table, const char *key, lua_Number v)
{
    lua_pushstring(L, key);
    lua_pushnumber(L, v);
    lua_rawset(L, table);
}

/* What a step did to the phase: the progress before it and the signed
 * advance of the progress (unwrapped, so whole cycles count). */
typedef struct phase_step {
    float progress; /* before the step */
    float next;     /* after it, in [0, 1) */
    double advance; /* dt / cycle, as bw_blend_phase_advance adds it; 0 when it adds nothing */
} phase_step;

/* Push the list of the first n evaluated leaves, into the table at out_arg
 * when it is one (its leaf tables are reused and entries past n cleared),
 * else into a new table. With a step, each leaf also gets its sample time
 * after the step, and `from` / `delta` for root motion: its clip time
 * before the step and the signed clip-time advance (advance × length,
 * negative for a leaf that plays in reverse), so from + delta lands on
 * time modulo the length. Without a step those fields are cleared. Raw
 * sets only: an out table's metatable never runs. */
static void push_leaves(lua_State *L, tree_obj *t, int n, int out_arg, const phase_step *step)
{
    luaL_checkstack(L, 6, "blend tree leaves");
    if (lua_istable(L, out_arg)) lua_pushvalue(L, out_arg);
    else lua_createtable(L, n, 0);
    const int out = lua_gettop(L);
    lua_getiuservalue(L, 1, TREE_UV_CLIPS);
    const int clips = lua_gettop(L);
    for (int i = 0; i < n; i++) {
        const bw_blend_leaf *leaf = &t->leaves[i];
        if (lua_rawgeti(L, out, i + 1) != LUA_TTABLE) {
            lua_pop(L, 1);
            lua_createtable(L, 0, 8);
            lua_pushvalue(L, -1);
            lua_rawseti(L, out, i + 1);
        }
        const int e = lua_gettop(L);
        lua_pushliteral(L, "clip");
        lua_rawgeti(L, clips, leaf->clip + 1);
        lua_rawset(L, e);
        set_number(L, e, "weight", (lua_Number)leaf->weight);
        set_number(L, e, "rate", (lua_Number)leaf->rate);
        set_number(L, e, "length", (lua_Number)leaf->length);
        lua_pushliteral(L, "leaf");
        lua_pushinteger(L, leaf->clip + 1);
        lua_rawset(L, e);
        static const char *const timed[3] = {"time", "from", "delta"};
        lua_Number values[3] = {0, 0, 0};
        if (step) {
            /* a leaf without a usable length stays at time 0 (leaf_time) */
            bool moving = isfinite(leaf->length) && leaf->length > 0.0f;
            values[0] = (lua_Number)bw_blend_leaf_time(leaf, step->next);
            values[1] = (lua_Number)bw_blend_leaf_time(leaf, step->progress);
            values[2] = moving ? (lua_Number)(step->advance * (double)leaf->length * (leaf->rate < 0.0f ? -1.0 : 1.0))
                               : 0;
        }
        for (int k = 0; k < 3; k++) {
            lua_pushstring(L, timed[k]);
            if (step) lua_pushnumber(L, values[k]);
            else lua_pushnil(L);
            lua_rawset(L, e);
        }
        lua_pop(L, 1);
    }
    for (int i = n + 1; lua_rawgeti(L, out, i) != LUA_TNIL; i++) {
        lua_pop(L, 1);
        lua_pushnil(L);
        lua_rawseti(L, out, i);
    }
    lua_pop(L, 2); /* the nil that ended the loop, clips */
}

/* tree:evaluate(values [, out]) -> leaves, cycle_duration */
static int l_tree_evaluate(lua_State *L)
{
    tree_obj *t = check_tree(L, 1);
    if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
    int n = evaluate(L, t, 2);
    float cycle = bw_blend_cycle_duration(t->leaves, n);
    push_leaves(L, t, n, 3, NULL);
    lua_pushnumber(L, (lua_Number)cycle);
    return 2;
}

/* tree:step(progress, dt, values [, out]) -> progress', leaves, cycle_duration */
static int l_tree_step(lua_State *L)
{
    tree_obj *t = check_tree(L, 1);
    float progress = bw_lua_clamp_float(luaL_checknumber(L, 2));
    float dt = bw_lua_clamp_float(luaL_checknumber(L, 3));
    if (!lua_isnoneornil(L, 5)) luaL_checktype(L, 5, LUA_TTABLE);
    int n = evaluate(L, t, 4);
    float cycle = bw_blend_cycle_duration(t->leaves, n);
    phase_step step;
    step.progress = progress;
    step.next = bw_blend_phase_advance(progress, dt, cycle);
    /* the advance bw_blend_phase_advance applies, before its wrap */
    step.advance = isfinite(dt) && isfinite(cycle) && cycle > 0.0f ? (double)dt / (double)cycle : 0.0;
    lua_pushnumber(L, (lua_Number)step.next);
    push_leaves(L, t, n, 5, &step);
    lua_pushnumber(L, (lua_Number)cycle);
    return 3;
}

static int l_tree_params(lua_State *L)
{
    tree_obj *t = check_tree(L, 1);
    lua_getiuservalue(L, 1, TREE_UV_NAMES);
    lua_createtable(L, t->tree.param_count, 0);
    for (int i = 1; i <= t->tree.param_count; i++) {
        lua_rawgeti(L, -2, i);
        lua_rawseti(L, -2, i);
    }
    return 1;
}

/* tree:param_index(name) -> 1-based index | nil (look it up once, then
 * pass values by index) */
static int l_tree_param_index(lua_State *L)
{
    tree_obj *t = check_tree(L, 1);
    luaL_checkstring(L, 2);
    lua_getiuservalue(L, 1, TREE_UV_NAMES);
    for (int i = 1; i <= t->tree.param_count; i++) {
        lua_rawgeti(L, -1, i);
        if (lua_rawequal(L, -1, 2)) {
            lua_pushinteger(L, i);
            return 1;
        }
        lua_pop(L, 1);
    }
    lua_pushnil(L);
    return 1;
}

/* tree:clips() -> the leaves' clip values in leaf order */
static int l_tree_clips(lua_State *L)
{
    tree_obj *t = check_tree(L, 1);
    lua_getiuservalue(L, 1, TREE_UV_CLIPS);
    lua_createtable(L, t->leaf_count, 0);
    for (int i = 1; i <= t->leaf_count; i++) {
        lua_rawgeti(L, -2, i);
        lua_rawseti(L, -2, i);
    }
    return 1;
}

static int l_tree_leaf_count(lua_State *L)
{
    lua_pushinteger(L, check_tree(L, 1)->leaf_count);
    return 1;
}

static int l_tree_node_count(lua_State *L)
{
    lua_pushinteger(L, check_tree(L, 1)->tree.node_count);
    return 1;
}

/* __gc and __close: the handle becomes unusable; the block is Lua's. */
static int l_tree_gc(lua_State *L)
{
    bw_lua_object_close((bw_lua_object *)luaL_checkudata(L, 1, BW_LUA_BLEND_TREE));
    return 0;
}

static int l_tree_close(lua_State *L)
{
    check_tree(L, 1);
    return l_tree_gc(L);
}

static int l_tree_tostring(lua_State *L)
{
    tree_obj *t = (tree_obj *)luaL_checkudata(L, 1, BW_LUA_BLEND_TREE);
    if (t->hdr.closed) lua_pushfstring(L, "%s (closed): %p", BW_LUA_BLEND_TREE, (void *)t);
    else
        lua_pushfstring(L, "%s (%d nodes, %d leaves, %d params): %p", BW_LUA_BLEND_TREE, t->tree.node_count,
                        t->leaf_count, t->tree.param_count, (void *)t);
    return 1;
}

/* ---- synchronized phase without a tree ---- */

/* blendwerk.phase_advance(progress, dt, cycle) -> progress' in [0, 1) */
static int l_phase_advance(lua_State *L)
{
    float progress = bw_lua_clamp_float(luaL_checknumber(L, 1));
    float dt = bw_lua_clamp_float(luaL_checknumber(L, 2));
    float cycle = bw_lua_clamp_float(luaL_checknumber(L, 3));
    lua_pushnumber(L, (lua_Number)bw_blend_phase_advance(progress, dt, cycle));
    return 1;
}

/* blendwerk.leaf_time(progress, length [, rate = 1]) -> seconds */
static int l_leaf_time(lua_State *L)
{
    bw_blend_leaf leaf;
    memset(&leaf, 0, sizeof leaf);
    float progress = bw_lua_clamp_float(luaL_checknumber(L, 1));
    leaf.length = bw_lua_clamp_float(luaL_checknumber(L, 2));
    leaf.rate = bw_lua_clamp_float(luaL_optnumber(L, 3, 1.0));
    leaf.weight = 1.0f;
    lua_pushnumber(L, (lua_Number)bw_blend_leaf_time(&leaf, progress));
    return 1;
}

/* A number field of leaves[i] (the table on top of the stack). */
static float leaf_field(lua_State *L, int i, const char *field, bool required, float def)
{
    int type = bw_lua_raw_field(L, -1, field);
    float v = def;
    if (type == LUA_TNUMBER) v = bw_lua_clamp_float(lua_tonumber(L, -1));
    else if (type != LUA_TNIL || required)
        luaL_argerror(L, 1, lua_pushfstring(L, "leaves[%d].%s %s", i, field,
                                            type == LUA_TNIL ? "is missing" : "must be a number"));
    lua_pop(L, 1);
    return v;
}

/* blendwerk.cycle_duration(leaves) -> seconds, for a list of
 * {weight =, length = [, rate = 1]} (e.g. what tree:evaluate returns). */
static int l_cycle_duration(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Unsigned n = lua_rawlen(L, 1);
    if (n > MAX_MEMBERS) luaL_argerror(L, 1, lua_pushfstring(L, "leaves has more than %d entries", MAX_MEMBERS));
    bw_blend_leaf *leaves = (bw_blend_leaf *)lua_newuserdatauv(L, sizeof(bw_blend_leaf) * (n ? n : 1), 0);
    for (int i = 1; i <= (int)n; i++) {
        if (lua_rawgeti(L, 1, i) != LUA_TTABLE)
            luaL_argerror(L, 1, lua_pushfstring(L, "leaves[%d] must be a table {weight =, length =, rate =}", i));
        bw_blend_leaf *l = &leaves[i - 1];
        memset(l, 0, sizeof *l);
        l->weight = leaf_field(L, i, "weight", true, 0.0f);
        l->length = leaf_field(L, i, "length", true, 0.0f);
        l->rate = leaf_field(L, i, "rate", false, 1.0f);
        lua_pop(L, 1);
    }
    lua_pushnumber(L, (lua_Number)bw_blend_cycle_duration(leaves, (int)n));
    return 1;
}

static const luaL_Reg tree_methods[] = {
    {"evaluate", l_tree_evaluate},
    {"step", l_tree_step},
    {"params", l_tree_params},
    {"param_index", l_tree_param_index},
    {"clips", l_tree_clips},
    {"leaf_count", l_tree_leaf_count},
    {"node_count", l_tree_node_count},
    {"close", l_tree_close},
    {NULL, NULL},
};

static const luaL_Reg tree_meta[] = {
    {"__gc", l_tree_gc},
    {"__close", l_tree_gc},
    {"__tostring", l_tree_tostring},
    {NULL, NULL},
};

static const luaL_Reg functions[] = {
    {"blend1d_weights", l_blend1d_weights},
    {"blend2d_weights", l_blend2d_weights},
    {"grid_weights", l_grid_weights},
    {"blend_tree", l_blend_tree},
    {"phase_advance", l_phase_advance},
    {"leaf_time", l_leaf_time},
    {"cycle_duration", l_cycle_duration},
    {NULL, NULL},
};

void bw_lua_open_blendspace(lua_State *L)
{
    luaL_checktype(L, -1, LUA_TTABLE);
    bw_lua_register_type(L, BW_LUA_BLEND_TREE, tree_methods, tree_meta);
    luaL_setfuncs(L, functions, 0);
}
