/* lua_blendtree.c - blend trees for Lua (SPEC §6): the reader from a nested
 * table to a bw_blend_tree_desc, compiled by the core.
 *
 *   blendwerk.blend_tree(root [, {params = {names}}]) -> BlendTree | nil, message
 *   tree:evaluate(values [, out])              -> leaves, cycle_duration
 *   tree:step(progress, dt, values [, out])    -> progress', leaves (with .time,
 *                                                 .from, .delta), cycle
 *   tree:params(), tree:param_index(name), tree:clips(), tree:leaf_count(),
 *   tree:node_count(), tree:close()
 *
 * The description (docs/lua-rootmotion-blendtree.md) is read twice with raw
 * accesses: once to count the nodes, children and positions, once to fill a
 * desc in scratch userdata, with each node's path ("root.children[2]") as
 * its label. The reader only refuses what it cannot turn into a desc: a
 * wrong type, a missing or unknown field (named with its path), a name it
 * cannot resolve, a table that contains itself, a number beyond float
 * range. Everything else (negative lengths, NaN, empty children, grid
 * shapes, depth) is the core compiler's word, reported with the path.
 * The reader reads on past a problem: blendwerk.blend_tree returns the
 * first, a graph file's tree (bw_lua_tree_reading, lua_graph.h: paths
 * and lines as the file writes them, leaves naming the graph's clips)
 * reports each to its host.
 *
 * A BlendTree owns the compiled bw_blend_tree (shared, immutable) and one
 * bw_blend_tree_state it uses as its evaluation buffers: the Lua API is
 * stateless (the caller keeps `progress`), so every call sets the state's
 * parameters and phase first. Both are made through the Lua state's
 * allocator and freed by __gc / close.
 */
#include <float.h>
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "blendwerk/blendtree.h"
#include "lua_blendwerk.h"
#include "lua_graph.h"
#include "lua_support.h"

#define BW_LUA_BLEND_TREE "blendwerk.BlendTree"
/* Reading limits (what one description may make the reader do; the core's
 * own limits, such as BW_BLEND_MAX_DEPTH and a 2D node's
 * BW_BLEND_MAX_MEMBERS, are checked by the compiler). A Lua table used in
 * several places becomes one node per place, so the node limit also bounds
 * the work a description with heavy sharing can cause; the nesting limit
 * bounds the reader's recursion. A list longer than any node may have
 * (BW_BLEND_MAX_CHILDREN, the core's) is not read at all. */
#define MAX_TREE_NODES 4096
#define MAX_MEMBERS BW_BLEND_MAX_CHILDREN
#define MAX_PARAMS 256
#define MAX_READ_DEPTH 64

enum { TREE_UV_CLIPS = 1, TREE_UV_NAMES = 2 };

typedef struct tree_obj {
    bw_lua_object hdr;
    bw_blend_tree *tree;
    bw_blend_tree_state *state;
} tree_obj;

static void tree_destroy(bw_lua_object *self)
{
    tree_obj *t = (tree_obj *)self;
    bw_blend_tree_state_destroy(t->state);
    bw_blend_tree_destroy(t->tree);
    t->state = NULL;
    t->tree = NULL;
}

typedef struct build {
    lua_State *L;
    const bw_lua_tree_reading *how; /* a graph file's tree (NULL: blendwerk.blend_tree) */
    bool fill;          /* second pass: write the desc */
    bool fixed_params;  /* options.params given: nodes may not add names */
    bool stop;          /* a reading limit was reached: read no further */
    int names;          /* stack index: parameter names in index order */
    int index;          /* stack index: name -> 1-based index */
    int on_path;        /* stack index: set of the tables being descended */
    int clips;          /* stack index: leaf clip values (second pass) */
    int labels;         /* stack index: node paths (second pass) */
    int param_count;
    int nodes, children, positions, leaves; /* counts (first pass) or cursors */
    int node_cap, child_cap, position_cap;  /* second pass bounds */
    bw_blend_node *node_buf;
    int *child_buf;
    float *position_buf;
    const char **label_buf;
    int *line_buf;      /* with how, second pass: each node's line */
    int problems;       /* found so far */
    int line;           /* with how: the line of the node being read (else 0) */
    char path[640];     /* "root.children[2].children[1]" (with how: how->path...) */
    char why[1100];     /* without how: the first problem, "path: message" */
} build;

/* A problem of the node being read (b->path): in its field `field` (a
 * path step such as "params[2]"; NULL: the node itself) at `line` (0: the
 * node's). Reading goes on, so every problem is found: each goes to the
 * host's problem function; without a host the first one is kept in
 * b->why. Returns -1 so that callers can `return fail(...)`; `>= 0` on
 * it gives false for the bool-returning readers. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int fail(build *b, int line, const char *field, const char *fmt, ...)
{
    char msg[420];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (++b->problems == 1 && !b->how) snprintf(b->why, sizeof b->why, "%s: %s", b->path, msg);
    if (b->how) {
        char path[sizeof b->path + 80];
        snprintf(path, sizeof path, "%s%s%s", b->path, field ? "." : "", field ? field : "");
        b->how->problem(b->how->user, line > 0 ? line : b->line, path, msg);
    }
    return -1;
}

/* Lines (only a host reports them): the item `key` of the table at idx,
 * or its positional item `item`; the table's own line when the item has
 * none, else the node's. */
static int key_line(const build *b, int idx, const char *key)
{
    int line = b->how ? bw_lua_key_line(b->L, idx, key) : 0;
    return line > 0 ? line : b->line;
}

static int item_line(const build *b, int idx, int item)
{
    int line = b->how ? bw_lua_item_line(b->L, idx, item) : 0;
    return line > 0 ? line : b->line;
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

/* A Lua number as a desc float: NaN and ±inf pass (the compiler judges
 * them); a finite number beyond float range cannot be represented. */
static const char *desc_float(lua_State *L, int idx, float *out)
{
    double v = (double)lua_tonumber(L, idx);
    if (isfinite(v) && fabs(v) > (double)FLT_MAX) return "is too large for a float";
    *out = (float)v;
    return NULL;
}

/* The fields of the node at idx (`what`: "a leaf", "a 2d node"): a host
 * reports every unknown or twice-written one, the module the first. */
static bool node_fields(build *b, int idx, const char *const *allowed, const char *what)
{
    if (b->how) {
        if (b->how->fields(b->how->user, b->L, idx, allowed, b->line, b->path)) return true;
        b->problems++; /* the host reported each */
        return false;
    }
    char why[160];
    if (bw_lua_check_fields(b->L, idx, allowed, why, sizeof why)) return true;
    return fail(b, 0, NULL, "%s of %s", why, what) >= 0;
}

/* An optional number field of the table at idx (absent: *out unchanged). */
static bool node_number(build *b, int idx, const char *field, float *out)
{
    lua_State *L = b->L;
    int type = bw_lua_raw_field(L, idx, field);
    bool ok = true;
    if (type == LUA_TNUMBER) {
        const char *bad = desc_float(L, -1, out);
        if (bad) ok = fail(b, key_line(b, idx, field), field, "%s %s", field, bad) >= 0;
    } else if (type != LUA_TNIL) {
        ok = fail(b, key_line(b, idx, field), field, "%s must be a number, not a %s", field, luaL_typename(L, -1)) >= 0;
    }
    lua_pop(L, 1);
    return ok;
}

/* The list of numbers in field `field` of the table at idx: returns its
 * length (0..MAX_MEMBERS) or -1 (each bad entry reported); writes it to
 * dst if not NULL (at most cap entries). */
static int node_numbers(build *b, int idx, const char *field, float *dst, int cap)
{
    lua_State *L = b->L;
    if (bw_lua_raw_field(L, idx, field) != LUA_TTABLE) {
        fail(b, key_line(b, idx, field), field, "%s must be a list of numbers, not a %s", field, luaL_typename(L, -1));
        lua_pop(L, 1);
        return -1;
    }
    const int list = lua_gettop(L);
    lua_Unsigned n = lua_rawlen(L, list);
    int result = (int)n;
    if (n > MAX_MEMBERS) result = fail(b, key_line(b, idx, field), field, "%s has more than %d entries", field, MAX_MEMBERS);
    for (int i = 1; n <= MAX_MEMBERS && i <= (int)n; i++) {
        float v = 0.0f;
        const char *bad = lua_rawgeti(L, list, i) == LUA_TNUMBER ? desc_float(L, -1, &v) : "is not a number";
        lua_pop(L, 1);
        if (bad) {
            char entry[48];
            snprintf(entry, sizeof entry, "%s[%d]", field, i);
            result = fail(b, item_line(b, list, i), entry, "%s %s", entry, bad);
        } else if (dst && i <= cap) {
            dst[i - 1] = v;
        }
    }
    lua_pop(L, 1);
    return result;
}

/* The index of the parameter named by the value on top of the stack (which
 * is popped), written in `field` at `line`. New names are numbered in
 * order of first use, unless the options (or the graph) fixed the list.
 * Returns -1 on failure. */
static int param_of(build *b, const char *field, int line)
{
    lua_State *L = b->L;
    int result = -1;
    if (lua_type(L, -1) != LUA_TSTRING || lua_rawlen(L, -1) == 0) {
        fail(b, line, field, "%s must be a parameter name (a non-empty string), not a %s", field, luaL_typename(L, -1));
    } else {
        lua_pushvalue(L, -1);
        int found = lua_rawget(L, b->index) == LUA_TNUMBER ? (int)lua_tointeger(L, -1) : 0;
        lua_pop(L, 1);
        if (found > 0) {
            result = found - 1;
        } else if (b->fixed_params && b->how) {
            fail(b, line, field, "unknown parameter '%s'", lua_tostring(L, -1)); /* the graph's params */
        } else if (b->fixed_params) {
            fail(b, line, field, "%s '%s' is not in options.params", field, lua_tostring(L, -1));
        } else if (b->param_count >= MAX_PARAMS) {
            fail(b, line, field, "more than %d parameters", MAX_PARAMS);
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
    bool ok = true;
    for (int c = 0; c < 2; c++) {
        int type = array ? lua_rawgeti(L, idx, c + 1) : bw_lua_raw_field(L, idx, keys[c]);
        const char *bad = type == LUA_TNUMBER ? desc_float(L, -1, &out[c])
                          : type == LUA_TNIL  ? "is missing"
                                              : "must be a number";
        lua_pop(L, 1);
        int line = array ? item_line(b, idx, c + 1) : key_line(b, idx, keys[c]);
        if (bad) ok = fail(b, line, "at", "at.%s %s", keys[c], bad) >= 0 && ok;
    }
    return ok;
}

static int build_node(build *b, int idx, int depth);

static int build_leaf(build *b, int idx, int self)
{
    lua_State *L = b->L;
    const int top = lua_gettop(L);
    bool ok = node_fields(b, idx, leaf_fields, "a leaf");
    float length = 0.0f, speed = 0.0f;
    bw_lua_raw_field(L, idx, "clip"); /* at top + 1: the leaf's clip value */
    bool has_length = bw_lua_raw_field(L, idx, "length") != LUA_TNIL;
    lua_pop(L, 1);
    if (b->how) {
        /* a graph's leaf names one of its clips, which gives the length */
        if (has_length)
            ok = fail(b, key_line(b, idx, "length"), "length",
                      "a blend leaf in a graph takes its length from its clip; remove length") >= 0 && ok;
        char path[sizeof b->path + 8];
        snprintf(path, sizeof path, "%s.clip", b->path);
        if (!b->how->clip(b->how->user, L, idx, path, key_line(b, idx, "clip"), &length)) {
            b->problems++; /* the host reported it */
            ok = false;
        }
    } else if (!has_length) {
        /* A Clip knows its length; any other clip value needs length=. */
        const bw_lua_clip *c = (const bw_lua_clip *)luaL_testudata(L, -1, BW_LUA_CLIP);
        bool closed = c && (c->hdr.closed || !c->clip);
        if (c && !closed) length = bw_clip_length(c->clip);
        if (!c) ok = fail(b, 0, NULL, "length is missing (needed unless clip is a blendwerk.Clip)") >= 0 && ok;
        else if (closed) ok = fail(b, key_line(b, idx, "clip"), "clip", "clip is a closed blendwerk.Clip") >= 0 && ok;
    } else if (!node_number(b, idx, "length", &length)) {
        ok = false;
    }
    if (!node_number(b, idx, "speed", &speed)) ok = false;
    if (!ok) {
        lua_settop(L, top);
        return -1;
    }
    int leaf = b->leaves++;
    if (b->fill) {
        bw_blend_node *n = &b->node_buf[self];
        *n = bw_blend_clip_node(leaf, length);
        n->speed = speed;
        lua_pushvalue(L, top + 1);
        lua_rawseti(L, b->clips, leaf + 1);
    }
    lua_settop(L, top);
    return 0;
}

/* The place of the child at child_idx in a node of kind k, into p. */
static bool read_at(build *b, int child_idx, bw_blend_node_kind k, const char *kind_name, float p[2])
{
    lua_State *L = b->L;
    int at = bw_lua_raw_field(L, child_idx, "at");
    const int at_idx = lua_gettop(L);
    const int line = key_line(b, child_idx, "at"); /* the child's own line when it has no at */
    bool ok = true;
    if (k == BW_BLEND_NODE_GRID) {
        if (at != LUA_TNIL)
            ok = fail(b, line, "at", "a grid child takes its place from x_values and y_values; remove at") >= 0;
    } else if (at == LUA_TNIL) {
        ok = fail(b, line, NULL, "at is missing (its place in the %s node's space)", kind_name) >= 0;
    } else if (k == BW_BLEND_NODE_1D) {
        const char *bad = at == LUA_TNUMBER ? desc_float(L, at_idx, &p[0]) : "must be a number (a 1d threshold)";
        if (bad) ok = fail(b, line, "at", "at %s", bad) >= 0;
    } else if (at != LUA_TTABLE) {
        ok = fail(b, line, "at", "at must be a position {x, y}, not a %s", luaL_typename(L, at_idx)) >= 0;
    } else {
        ok = read_pair(b, at_idx, p);
    }
    lua_pop(L, 1);
    return ok;
}

/* The parameter indices a node of kind k reads, into *px / *py (both
 * names are read, so both are reported when neither exists). */
static bool read_params(build *b, int idx, bw_blend_node_kind k, int *px, int *py)
{
    lua_State *L = b->L;
    if (k == BW_BLEND_NODE_1D) {
        if (bw_lua_raw_field(L, idx, "param") == LUA_TNIL) {
            lua_pop(L, 1);
            return fail(b, 0, NULL, "param is missing (the name of the parameter a 1d node reads)") >= 0;
        }
        return (*px = param_of(b, "param", key_line(b, idx, "param"))) >= 0;
    }
    const int line = key_line(b, idx, "params");
    if (bw_lua_raw_field(L, idx, "params") != LUA_TTABLE || lua_rawlen(L, -1) != 2) {
        lua_pop(L, 1);
        return fail(b, line, "params", "params must be a list of two parameter names {x, y}") >= 0;
    }
    const int list = lua_gettop(L);
    lua_rawgeti(L, list, 1);
    *px = param_of(b, "params[1]", item_line(b, list, 1));
    lua_rawgeti(L, list, 2);
    *py = param_of(b, "params[2]", item_line(b, list, 2));
    lua_pop(L, 1);
    return *px >= 0 && *py >= 0;
}

static int build_blend(build *b, int idx, int self, int depth)
{
    lua_State *L = b->L;
    int kind = -1;
    if (bw_lua_raw_field(L, idx, "kind") == LUA_TSTRING) {
        const char *name = lua_tostring(L, -1);
        for (int i = 0; i < (int)(sizeof node_kinds / sizeof node_kinds[0]) && kind < 0; i++)
            if (strcmp(name, node_kinds[i].name) == 0) kind = i;
        if (kind < 0) fail(b, key_line(b, idx, "kind"), "kind", "unknown kind '%s' (1d, 2d, directional or grid)", name);
    } else {
        fail(b, key_line(b, idx, "kind"), "kind", "kind must be a string (1d, 2d, directional or grid), not a %s",
             luaL_typename(L, -1));
    }
    lua_pop(L, 1);
    if (kind < 0) return -1; /* its fields depend on its kind */
    const bw_blend_node_kind k = node_kinds[kind].kind;
    char what[32];
    snprintf(what, sizeof what, "a %s node", node_kinds[kind].name);
    bool ok = node_fields(b, idx, node_kinds[kind].fields, what);

    float speed = 0.0f;
    if (!node_number(b, idx, "speed", &speed)) ok = false;
    int type = bw_lua_raw_field(L, idx, "rate_scale");
    bool rate_scale = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (type != LUA_TNIL && type != LUA_TBOOLEAN)
        ok = fail(b, key_line(b, idx, "rate_scale"), "rate_scale", "rate_scale must be a boolean") >= 0;
    int px = -1, py = -1;
    if (!read_params(b, idx, k, &px, &py)) ok = false;

    int nx = 0, ny = 0;
    if (k == BW_BLEND_NODE_GRID) {
        if ((nx = node_numbers(b, idx, "x_values", NULL, 0)) < 0) ok = false;
        if ((ny = node_numbers(b, idx, "y_values", NULL, 0)) < 0) ok = false;
    }
    if (bw_lua_raw_field(L, idx, "children") != LUA_TTABLE)
        return fail(b, key_line(b, idx, "children"), "children", "children must be a list of nodes");
    const int children = lua_gettop(L);
    lua_Unsigned count = lua_rawlen(L, children);
    if (count > MAX_MEMBERS)
        return fail(b, key_line(b, idx, "children"), "children", "more than %d children", MAX_MEMBERS);
    const int cc = (int)count;
    if (nx < 0 || ny < 0) nx = ny = 0;

    const int position_count = k == BW_BLEND_NODE_GRID ? nx + ny : k == BW_BLEND_NODE_1D ? cc : 2 * cc;
    const int first_child = b->children, first_position = b->positions;
    b->children += cc;
    b->positions += position_count;
    float *pos = NULL;
    if (b->fill) {
        /* The first pass counted exactly this; a description that changed
         * in between (a finalizer editing it) must not write past the
         * block. */
        if (b->children > b->child_cap || b->positions > b->position_cap)
            return fail(b, 0, NULL, "the description changed while it was read");
        pos = b->position_buf + first_position;
        if (k == BW_BLEND_NODE_GRID &&
            (node_numbers(b, idx, "x_values", pos, nx) != nx || node_numbers(b, idx, "y_values", pos + nx, ny) != ny))
            return fail(b, 0, NULL, "the description changed while it was read");
    }

    const size_t path_len = strlen(b->path);
    for (int i = 0; i < cc && !b->stop; i++) {
        snprintf(b->path + path_len, sizeof b->path - path_len, ".children[%d]", i + 1);
        lua_rawgeti(L, children, i + 1);
        const int child_idx = lua_gettop(L);
        int child = -1;
        if (lua_type(L, child_idx) != LUA_TTABLE) {
            fail(b, item_line(b, children, i + 1), NULL, "a node must be a table, not a %s", luaL_typename(L, child_idx));
        } else {
            float p[2] = {0.0f, 0.0f};
            if (!read_at(b, child_idx, k, node_kinds[kind].name, p)) ok = false;
            if (pos && k == BW_BLEND_NODE_1D) pos[i] = p[0];
            if (pos && k != BW_BLEND_NODE_1D && k != BW_BLEND_NODE_GRID) {
                pos[2 * i] = p[0];
                pos[2 * i + 1] = p[1];
            }
            child = build_node(b, child_idx, depth + 1);
        }
        if (child < 0) ok = false;
        else if (b->fill) b->child_buf[first_child + i] = child;
        lua_pop(L, 1); /* the child */
        b->path[path_len] = '\0';
    }
    lua_pop(L, 1); /* children */
    if (!ok) return -1;

    if (b->fill) {
        bw_blend_node *n = &b->node_buf[self];
        memset(n, 0, sizeof *n);
        n->kind = k;
        n->speed = speed;
        n->clip = -1;
        n->children = b->child_buf + first_child;
        n->child_count = cc;
        n->positions = pos;
        n->grid_nx = nx;
        n->grid_ny = ny;
        n->param_x = px;
        n->param_y = py;
        n->rate_scale = rate_scale;
    }
    return 0;
}

/* The node described by the table at idx, at b->path; b->line is its line. */
static int read_node(build *b, int idx, int depth)
{
    lua_State *L = b->L;
    if (depth > MAX_READ_DEPTH) return fail(b, 0, NULL, "nested deeper than %d levels", MAX_READ_DEPTH);
    luaL_checkstack(L, 12, "blend tree description");
    lua_pushvalue(L, idx);
    bool cycle = lua_rawget(L, b->on_path) != LUA_TNIL;
    lua_pop(L, 1);
    if (cycle) return fail(b, 0, NULL, "contains itself (a cycle)");
    if (b->nodes >= MAX_TREE_NODES || (b->fill && b->nodes >= b->node_cap)) {
        b->stop = true; /* one report, not one per further node */
        if (b->fill) return fail(b, 0, NULL, "the description changed while it was read");
        return fail(b, 0, NULL, "more than %d nodes", MAX_TREE_NODES);
    }
    const int self = b->nodes++;
    if (b->fill) {
        lua_pushstring(L, b->path);
        b->label_buf[self] = lua_tostring(L, -1); /* kept alive by the labels table */
        lua_rawseti(L, b->labels, self + 1);
        if (b->line_buf) b->line_buf[self] = b->line;
    }

    bool leaf = bw_lua_raw_field(L, idx, "clip") != LUA_TNIL;
    bool blend = bw_lua_raw_field(L, idx, "kind") != LUA_TNIL;
    lua_pop(L, 2);
    if (leaf && blend) return fail(b, 0, NULL, "a node has clip= (a leaf) or kind= (a blend node), not both");
    if (!leaf && !blend)
        return fail(b, 0, NULL, "a node needs clip= (a leaf) or kind= (\"1d\", \"2d\", \"directional\", \"grid\")");

    const int top = lua_gettop(L);
    lua_pushvalue(L, idx);
    lua_pushboolean(L, 1);
    lua_rawset(L, b->on_path);
    int r = leaf ? build_leaf(b, idx, self) : build_blend(b, idx, self, depth);
    lua_settop(L, top); /* what a failed read left */
    lua_pushvalue(L, idx);
    lua_pushnil(L);
    lua_rawset(L, b->on_path);
    return r < 0 ? -1 : self;
}

/* Read the node described by the table at idx; returns its index (nodes
 * are numbered depth-first, parents before children) or -1. The stack is
 * left as it was either way, so that the reading goes on past a bad node. */
static int build_node(build *b, int idx, int depth)
{
    lua_State *L = b->L;
    if (lua_type(L, idx) != LUA_TTABLE) return fail(b, 0, NULL, "a node must be a table, not a %s", luaL_typename(L, idx));
    const int parent_line = b->line;
    const int line = b->how ? bw_lua_table_line(L, idx) : 0;
    if (line > 0) b->line = line;
    int r = read_node(b, idx, depth);
    b->line = parent_line;
    return r;
}

static const char *const tree_option_fields[] = {"params", NULL};

/* Parameter name i (1-based) of a fixed list: the value on top (popped). */
static void fix_param(lua_State *L, build *b, int i)
{
    lua_pushvalue(L, -1);
    lua_rawseti(L, b->names, i);
    lua_pushinteger(L, i);
    lua_rawset(L, b->index);
}

/* options.params (options at opts): the fixed parameter list, numbered in order. */
static void read_options(lua_State *L, build *b, int opts)
{
    int type = bw_lua_raw_field(L, opts, "params");
    if (type != LUA_TNIL && type != LUA_TTABLE) luaL_argerror(L, 2, "params must be a list of parameter names");
    lua_Unsigned n = type == LUA_TTABLE ? lua_rawlen(L, -1) : 0;
    if (n > MAX_PARAMS) luaL_argerror(L, 2, lua_pushfstring(L, "more than %d params", MAX_PARAMS));
    for (int i = 1; i <= (int)n; i++) {
        if (lua_rawgeti(L, -1, i) != LUA_TSTRING || lua_rawlen(L, -1) == 0)
            luaL_argerror(L, 2, lua_pushfstring(L, "params[%d] must be a non-empty string", i));
        lua_pushvalue(L, -1);
        if (lua_rawget(L, b->index) != LUA_TNIL)
            luaL_argerror(L, 2, lua_pushfstring(L, "params[%d] '%s' repeats", i, lua_tostring(L, -2)));
        lua_pop(L, 1);
        fix_param(L, b, i);
    }
    lua_pop(L, 1);
    b->param_count = (int)n;
    b->fixed_params = type == LUA_TTABLE;
}

/* A host's parameter list (the graph's names, distinct by construction:
 * the keys of its params table). */
static void host_params(lua_State *L, build *b, int list)
{
    const int n = (int)lua_rawlen(L, list);
    for (int i = 1; i <= n; i++) {
        lua_rawgeti(L, list, i);
        fix_param(L, b, i);
    }
    b->param_count = n;
    b->fixed_params = true;
}

/* A compile problem for the host: the core names the node by its label
 * ("blend tree: LABEL: why"), which is the node's path as the file writes
 * it; report it there, at the node's line. */
static void report_compile(const build *b, const bw_error *err, int nodes)
{
    static const char prefix[] = "blend tree: ";
    const char *msg = err->message[0] ? err->message : bw_result_name(err->code);
    const char *rest = strncmp(msg, prefix, sizeof prefix - 1) == 0 ? msg + sizeof prefix - 1 : NULL;
    int best = -1;
    size_t best_len = 0;
    for (int i = 0; rest && i < nodes; i++) {
        size_t n = strlen(b->label_buf[i]);
        if (n >= best_len && strncmp(rest, b->label_buf[i], n) == 0 && rest[n] == ':' && rest[n + 1] == ' ') {
            best = i;
            best_len = n;
        }
    }
    if (best >= 0) b->how->problem(b->how->user, b->line_buf[best], b->label_buf[best], rest + best_len + 2);
    else b->how->problem(b->how->user, b->how->line, b->how->path, msg);
}

static int push_build_failure(lua_State *L, const build *b, int base)
{
    lua_settop(L, base);
    lua_pushnil(L);
    if (b->how) lua_pushliteral(L, "blend tree: see the problems reported");
    else lua_pushfstring(L, "blend tree: %s", b->why);
    return 2;
}

/* The reader: the description at root_idx, the options at opts_idx (0:
 * none) or the host's `how`. Pushes a BlendTree, or nil and the (first)
 * problem; returns the count pushed. */
static int make_tree(lua_State *L, int root_idx, int opts_idx, const bw_lua_tree_reading *how)
{
    build b;
    memset(&b, 0, sizeof b);
    b.L = L;
    b.how = how;
    lua_newtable(L);
    b.names = lua_gettop(L);
    lua_newtable(L);
    b.index = lua_gettop(L);
    lua_newtable(L);
    b.on_path = lua_gettop(L);
    const int base = b.on_path;
    if (how) host_params(L, &b, how->params);
    else if (opts_idx) read_options(L, &b, opts_idx);
    const char *const start = how ? how->path : "root";

    /* First pass: count (and find every problem). */
    snprintf(b.path, sizeof b.path, "%s", start);
    b.line = how ? how->line : 0;
    if (bw_lua_raw_field(L, root_idx, "at") != LUA_TNIL)
        fail(&b, key_line(&b, root_idx, "at"), "at", "the root has no parent to place it in; remove at");
    lua_pop(L, 1);
    int root = build_node(&b, root_idx, 1);
    if (b.problems) return push_build_failure(L, &b, base);

    /* Second pass: fill a desc in scratch userdata (Lua memory, collected
     * with the stack, so nothing leaks on any error). */
    const int nodes = b.nodes, leaves = b.leaves, params = b.param_count;
    bw_blend_node *node_buf = (bw_blend_node *)lua_newuserdatauv(L, sizeof(bw_blend_node) * (size_t)nodes, 0);
    int *child_buf = (int *)lua_newuserdatauv(L, sizeof(int) * (size_t)(b.children ? b.children : 1), 0);
    float *position_buf = (float *)lua_newuserdatauv(L, sizeof(float) * (size_t)(b.positions ? b.positions : 1), 0);
    const char **label_buf = (const char **)lua_newuserdatauv(L, sizeof(char *) * (size_t)nodes, 0);
    const char **name_buf = (const char **)lua_newuserdatauv(L, sizeof(char *) * (size_t)(params ? params : 1), 0);
    if (how) b.line_buf = (int *)lua_newuserdatauv(L, sizeof(int) * (size_t)nodes, 0);
    lua_createtable(L, leaves, 0);
    b.clips = lua_gettop(L);
    lua_createtable(L, nodes, 0);
    b.labels = lua_gettop(L);
    b.fill = true;
    b.node_buf = node_buf;
    b.child_buf = child_buf;
    b.position_buf = position_buf;
    b.label_buf = label_buf;
    b.node_cap = nodes;
    b.child_cap = b.children;
    b.position_cap = b.positions;
    b.nodes = b.children = b.positions = b.leaves = 0;
    snprintf(b.path, sizeof b.path, "%s", start);
    root = build_node(&b, root_idx, 1);
    if (root >= 0 && (b.nodes != nodes || b.leaves != leaves || b.param_count != params))
        root = fail(&b, 0, NULL, "the description changed while it was read");
    if (b.problems) return push_build_failure(L, &b, base);
    for (int i = 0; i < params; i++) {
        lua_rawgeti(L, b.names, i + 1);
        name_buf[i] = lua_tostring(L, -1); /* the names table keeps it */
        lua_pop(L, 1);
    }

    /* The object exists (empty) before the C objects it will own. */
    tree_obj *t = (tree_obj *)bw_lua_new_object(L, sizeof(tree_obj), 2, BW_LUA_BLEND_TREE, tree_destroy);
    const int obj = lua_gettop(L);
    const bw_allocator *allocator = bw_lua_allocator(L); /* the Lua state's (NULL: malloc) */
    bw_blend_tree_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.nodes = node_buf;
    desc.node_count = nodes;
    desc.root = root;
    desc.param_count = params;
    desc.param_names = params ? name_buf : NULL;
    desc.node_labels = label_buf;
    if (allocator) desc.allocator = *allocator;
    bw_error err;
    memset(&err, 0, sizeof err);
    bw_result res = bw_blend_tree_compile(&desc, &t->tree, &err);
    if (res == BW_OK) res = bw_blend_tree_state_create(t->tree, allocator, &t->state);
    if (res == BW_ERR_OUT_OF_MEMORY) return luaL_error(L, "blend_tree: not enough memory");
    if (res != BW_OK) {
        if (how) report_compile(&b, &err, nodes);
        lua_settop(L, base); /* the empty object is collected */
        lua_pushnil(L);
        if (how) lua_pushliteral(L, "blend tree: see the problems reported");
        else bw_lua_push_error(L, NULL, res, &err);
        return 2;
    }
    lua_pushvalue(L, b.clips);
    lua_setiuservalue(L, obj, TREE_UV_CLIPS);
    lua_pushvalue(L, b.names);
    lua_setiuservalue(L, obj, TREE_UV_NAMES);
    lua_pushvalue(L, obj);
    return 1;
}

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
    return make_tree(L, 1, lua_istable(L, 2) ? 2 : 0, NULL);
}

bool bw_lua_blend_tree_read(lua_State *L, int idx, const bw_lua_tree_reading *how)
{
    idx = lua_absindex(L, idx);
    const int top = lua_gettop(L);
    int n = make_tree(L, idx, 0, how);
    bool ok = n == 1;
    lua_copy(L, -n, top + 1); /* the BlendTree or nil, over the reader's work tables */
    lua_settop(L, top + 1);
    return ok;
}

static tree_obj *check_tree(lua_State *L, int arg)
{
    return (tree_obj *)bw_lua_check_object(L, arg, BW_LUA_BLEND_TREE);
}

int bw_lua_blend_tree(lua_State *L) { return l_blend_tree(L); }

const bw_blend_tree *bw_lua_check_blend_tree(lua_State *L, int arg)
{
    tree_obj *t = check_tree(L, arg);
    lua_getiuservalue(L, arg, TREE_UV_CLIPS);
    return t->tree;
}

/* Set the state's parameters from the table at `arg`: entry i by index
 * ([i]) or by name; each must be a number. */
static void read_values(lua_State *L, tree_obj *t, int arg)
{
    const int count = bw_blend_tree_param_count(t->tree);
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
        bw_blend_tree_state_set_param(t->state, i, bw_lua_clamp_float(lua_tonumber(L, -1)));
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

static void set_number(lua_State *L, int table, const char *key, lua_Number v)
{
    lua_pushstring(L, key);
    lua_pushnumber(L, v);
    lua_rawset(L, table);
}

/* Push the list of the state's leaves, into the table at out_arg when it
 * is one (its leaf tables are reused and entries past the count cleared),
 * else into a new table. With `timed`, each leaf also gets its sample time
 * and its from / delta for root motion; without, those fields are cleared.
 * Raw sets only: an out table's metatable never runs. */
static void push_leaves(lua_State *L, tree_obj *t, int out_arg, bool timed)
{
    int n = 0;
    const bw_blend_step_leaf *leaves = bw_blend_tree_state_leaves(t->state, &n);
    luaL_checkstack(L, 6, "blend tree leaves");
    if (lua_istable(L, out_arg)) lua_pushvalue(L, out_arg);
    else lua_createtable(L, n, 0);
    const int out = lua_gettop(L);
    lua_getiuservalue(L, 1, TREE_UV_CLIPS);
    const int clips = lua_gettop(L);
    for (int i = 0; i < n; i++) {
        const bw_blend_step_leaf *s = &leaves[i];
        if (lua_rawgeti(L, out, i + 1) != LUA_TTABLE) {
            lua_pop(L, 1);
            lua_createtable(L, 0, 8);
            lua_pushvalue(L, -1);
            lua_rawseti(L, out, i + 1);
        }
        const int e = lua_gettop(L);
        lua_pushliteral(L, "clip");
        lua_rawgeti(L, clips, s->leaf.clip + 1);
        lua_rawset(L, e);
        set_number(L, e, "weight", (lua_Number)s->leaf.weight);
        set_number(L, e, "rate", (lua_Number)s->leaf.rate);
        set_number(L, e, "length", (lua_Number)s->leaf.length);
        lua_pushliteral(L, "leaf");
        lua_pushinteger(L, s->leaf.clip + 1);
        lua_rawset(L, e);
        static const char *const keys[3] = {"time", "from", "delta"};
        const lua_Number values[3] = {(lua_Number)s->time, (lua_Number)s->from, (lua_Number)s->delta};
        for (int k = 0; k < 3; k++) {
            lua_pushstring(L, keys[k]);
            if (timed) lua_pushnumber(L, values[k]);
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
    if (!lua_isnoneornil(L, 3)) bw_lua_check_out_table(L, 3);
    read_values(L, t, 2);
    bw_blend_tree_state_update(t->state, 0.0f); /* evaluate in place: the phase does not matter */
    push_leaves(L, t, 3, false);
    lua_pushnumber(L, (lua_Number)bw_blend_tree_state_cycle(t->state));
    return 2;
}

/* tree:step(progress, dt, values [, out]) -> progress', leaves, cycle_duration */
static int l_tree_step(lua_State *L)
{
    tree_obj *t = check_tree(L, 1);
    float progress = bw_lua_clamp_float(luaL_checknumber(L, 2));
    float dt = bw_lua_clamp_float(luaL_checknumber(L, 3));
    if (!lua_isnoneornil(L, 5)) bw_lua_check_out_table(L, 5);
    read_values(L, t, 4);
    bw_blend_tree_state_set_phase(t->state, progress);
    bw_blend_tree_state_update(t->state, dt);
    lua_pushnumber(L, (lua_Number)bw_blend_tree_state_phase(t->state));
    push_leaves(L, t, 5, true);
    lua_pushnumber(L, (lua_Number)bw_blend_tree_state_cycle(t->state));
    return 3;
}

/* A copy of the list in uservalue `uv`, `count` entries. */
static int push_uservalue_list(lua_State *L, int uv, int count)
{
    lua_getiuservalue(L, 1, uv);
    lua_createtable(L, count, 0);
    for (int i = 1; i <= count; i++) {
        lua_rawgeti(L, -2, i);
        lua_rawseti(L, -2, i);
    }
    return 1;
}

static int l_tree_params(lua_State *L)
{
    tree_obj *t = check_tree(L, 1);
    return push_uservalue_list(L, TREE_UV_NAMES, bw_blend_tree_param_count(t->tree));
}

/* tree:param_index(name) -> 1-based index | nil (look it up once, then
 * pass values by index) */
static int l_tree_param_index(lua_State *L)
{
    tree_obj *t = check_tree(L, 1);
    int i = bw_blend_tree_find_param(t->tree, luaL_checkstring(L, 2));
    if (i >= 0) lua_pushinteger(L, i + 1);
    else lua_pushnil(L);
    return 1;
}

/* tree:clips() -> the leaves' clip values in leaf order */
static int l_tree_clips(lua_State *L)
{
    tree_obj *t = check_tree(L, 1);
    return push_uservalue_list(L, TREE_UV_CLIPS, bw_blend_tree_leaf_count(t->tree));
}

static int l_tree_leaf_count(lua_State *L)
{
    lua_pushinteger(L, bw_blend_tree_leaf_count(check_tree(L, 1)->tree));
    return 1;
}

static int l_tree_node_count(lua_State *L)
{
    lua_pushinteger(L, bw_blend_tree_node_count(check_tree(L, 1)->tree));
    return 1;
}

/* __tostring of a live BlendTree; close(), __gc and __close are the
 * shared ones (the handle becomes unusable and the C objects go) */
static int describe_tree(lua_State *L)
{
    const tree_obj *t = (const tree_obj *)lua_touserdata(L, 1);
    if (!t->tree) return 0;
    lua_pushfstring(L, "%s (%d nodes, %d leaves, %d params)", BW_LUA_BLEND_TREE, bw_blend_tree_node_count(t->tree),
                    bw_blend_tree_leaf_count(t->tree), bw_blend_tree_param_count(t->tree));
    return 1;
}

static const bw_lua_lifetime tree_lifetime = {.type_name = BW_LUA_BLEND_TREE, .describe = describe_tree};

static const luaL_Reg tree_methods[] = {
    {"evaluate", l_tree_evaluate},
    {"step", l_tree_step},
    {"params", l_tree_params},
    {"param_index", l_tree_param_index},
    {"clips", l_tree_clips},
    {"leaf_count", l_tree_leaf_count},
    {"node_count", l_tree_node_count},
    {NULL, NULL},
};

static const luaL_Reg functions[] = {
    {"blend_tree", l_blend_tree},
    {NULL, NULL},
};

void bw_lua_open_blendtree(lua_State *L)
{
    luaL_checktype(L, -1, LUA_TTABLE);
    bw_lua_register_object_type(L, &tree_lifetime, tree_methods, NULL);
    luaL_setfuncs(L, functions, 0);
}
