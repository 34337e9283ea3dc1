/* lua_graph.c - graphs for Lua (SPEC §7, §12): the reader from a graph
 * file's table to a bw_graph_desc, compiled by the core, and the Lua
 * types over the compiled graph and its cursors.
 *
 *   blendwerk.graph(desc_or_path [, {rig = Rig, clips = {Clip, ...}}])
 *       -> Graph | nil, errors          errors: { "FILE:LINE: message", ... }
 *   graph:cursor() -> Cursor; graph:param_index(name), graph:params(),
 *   graph:layers(), graph:states(layer), graph:refresh_clips(clips)
 *       -> true | nil, errors, graph:close()
 *   cursor:set(param, value), :get(param), :fire(param), :reset(param),
 *   :travel(state [, layer]) -> true | nil, message,
 *   :layer_weight(layer, weight [, fade]), :update(dt) -> Pose,
 *   :pose(), :state(layer) -> name, :status(layer) -> table,
 *   :events() -> list, :param_index(name), :graph(), :close()
 *
 * The reader only turns the table into a desc: it refuses wrong types and
 * unknown (or twice-written) fields, resolves clip names (a missing clip
 * names its state), parses condition strings and applies the defaults of
 * §12.1 that differ from the core's zeros (transition duration 0.2). Every
 * other check (unknown states and parameters in transitions, duplicate
 * names, ranges) is the core compiler's (bw_graph_compile); its `where`
 * paths are mapped back to the entries they name, so every problem, the
 * reader's and the compiler's, comes out as "FILE:LINE: path: message"
 * with LINE the line of the offending entry (graph_source.c records the
 * lines). Entries the reader already refused are not reported again by the
 * compiler.
 *
 * States are numbered in the order they are written (their `name = {`
 * lines; by name when no lines are known), parameters likewise.
 *
 * Predicates (`when = { function(p) ... end }`) are the only per-frame
 * Lua: each is held as a bw_sandbox_callback and called with a read-only
 * view of the parameters by name (numbers; bools and triggers as
 * booleans). In a sandbox state the call has the sandbox's callback
 * limits (bw_sandbox_predicate); a runtime error or stop counts as false
 * for that frame and is reported once with file:line. */
#include <ctype.h>
#include <float.h>
#include <lauxlib.h>
#include <limits.h>
#include <lua.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendwerk/text.h"
#include "blendwerk/blendtree.h"
#include "blendwerk/easing.h"
#include "blendwerk/graph.h"
#include "blendwerk/graph_lint.h"
#include "lua_blendwerk.h"
#include "lua_graph.h"
#include "lua_graph_fields.h"
#include "lua_support.h"
#include "sandbox.h"
#include "sandbox_internal.h"

#define DEFAULT_DURATION 0.2f /* SPEC §12.1: a transition's fade when none is written */
#define MAX_ERRORS 256        /* compile problems kept (more are counted) */
#define TMP_TREE "blendwerk.graph.tree" /* a remapped blend tree owned by the reader */

/* ---- the Graph object ---- */

typedef struct graph_obj graph_obj;

typedef struct graph_pred {
    graph_obj *g;
    bw_sandbox_callback cb;
    struct graph_pred *next;
} graph_pred;

/* The slots of a graph's tables (graph_obj.tables_ref): the predicates'
 * values (name -> value), the parameter names, the read-only view of the
 * values predicates get, name -> 0-based index (cursor:set(name)), and
 * the `last` block (graph_obj.last). */
enum { TABLE_VALUES = 1, TABLE_NAMES, TABLE_VIEW, TABLE_INDEX, TABLE_LAST };

struct graph_obj {
    bw_lua_object hdr; /* deps: the Rig (when bound) */
    bw_graph *graph;
    lua_State *main;    /* the state's main thread */
    lua_State *thread;  /* the thread predicates run in now (NULL: main) */
    bw_sandbox *sb;     /* the sandbox of the state, or NULL */
    graph_pred *preds;  /* linked; each a userdata kept in GRAPH_UV_ANCHOR */
    int tables_ref;     /* registry: the graph's tables, at the TABLE_* slots below */
    float *last;        /* param_count: what `values` holds (a predicate refills only changes) */
    bool filled;        /* `values` holds `last` */
    /* bound by blendwerk.graph's options */
    const bw_rig *rig;
    const bw_binding **bindings; /* clip_count, userdata in GRAPH_UV_BINDINGS */
    bw_lua_clip **clip_objs;     /* clip_count, each counted as a use */
    int clip_count;
};

/* CURSORS: a weak-keyed table of the graph's Lua cursors (refresh_clips rebinds them). */
enum {
    GRAPH_UV_ANCHOR = 1,
    GRAPH_UV_RIG = 2,
    GRAPH_UV_BINDINGS = 3,
    GRAPH_UV_CLIPS = 4,
    GRAPH_UV_CURSORS = 5,
    GRAPH_UV_COUNT = 5
};

static void graph_destroy(bw_lua_object *self)
{
    graph_obj *g = (graph_obj *)self;
    bw_graph_destroy(g->graph);
    g->graph = NULL;
    for (graph_pred *p = g->preds; p; p = p->next)
        if (p->cb.ref != LUA_NOREF && p->cb.ref != LUA_REFNIL) luaL_unref(g->main, LUA_REGISTRYINDEX, p->cb.ref);
    g->preds = NULL;
    if (g->tables_ref != LUA_NOREF) luaL_unref(g->main, LUA_REGISTRYINDEX, g->tables_ref);
    g->tables_ref = LUA_NOREF;
    for (int i = 0; i < g->clip_count; i++)
        if (g->clip_objs && g->clip_objs[i]) bw_lua_object_unuse(&g->clip_objs[i]->hdr);
    g->clip_count = 0;
    g->clip_objs = NULL;
    g->bindings = NULL;
}

static graph_obj *check_graph(lua_State *L, int arg) { return (graph_obj *)bw_lua_check_object(L, arg, BW_LUA_GRAPH); }

const bw_graph *bw_lua_graph_check(lua_State *L, int idx) { return check_graph(L, idx)->graph; }

void bw_lua_graph_push_clips(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    check_graph(L, idx);
    if (lua_getiuservalue(L, idx, GRAPH_UV_CLIPS) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
    }
}

lua_State *bw_lua_graph_use_thread(bw_lua_object *graph, lua_State *L)
{
    graph_obj *g = (graph_obj *)graph;
    lua_State *previous = g->thread;
    g->thread = L == g->main ? NULL : L;
    return previous;
}

void bw_lua_graph_push_param_indices(lua_State *L, int idx)
{
    graph_obj *g = check_graph(L, idx);
    if (g->tables_ref == LUA_NOREF) {
        lua_newtable(L);
        return;
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, g->tables_ref);
    lua_rawgeti(L, -1, TABLE_INDEX);
    lua_remove(L, -2);
}

void bw_lua_push_param_value(lua_State *L, const bw_graph *graph, int param, float value)
{
    if (bw_graph_param_kind_of(graph, param) == BW_GRAPH_PARAM_FLOAT) lua_pushnumber(L, (lua_Number)value);
    else lua_pushboolean(L, value != 0.0f);
}

/* ---- predicates ---- */

static bool run_predicate(void *user, const float *params, int count)
{
    graph_pred *p = (graph_pred *)user;
    graph_obj *g = p->g;
    lua_State *L = g->thread ? g->thread : g->main;
    if (!lua_checkstack(L, 8)) return false;
    lua_rawgeti(L, LUA_REGISTRYINDEX, g->tables_ref);
    lua_rawgeti(L, -1, TABLE_VALUES);
    lua_rawgeti(L, -2, TABLE_NAMES);
    for (int i = 0; i < count; i++) {
        /* only what changed since the last fill (any cursor's: `last` is what the table holds) */
        if (g->filled && (params[i] == g->last[i] || (params[i] != params[i] && g->last[i] != g->last[i]))) continue;
        g->last[i] = params[i];
        lua_rawgeti(L, -1, i + 1);
        bw_lua_push_param_value(L, g->graph, i, params[i]);
        lua_rawset(L, -4); /* the keys exist: no allocation per frame */
    }
    g->filled = true;
    lua_pop(L, 2);
    lua_rawgeti(L, -1, TABLE_VIEW);
    lua_remove(L, -2);
    /* a failed call counts as false */
    if (!bw_sandbox_callback_call_from(L, &p->cb, 1, 1)) return false;
    bool v = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return v;
}

/* ---- the reader ---- */

typedef struct reader {
    lua_State *L;
    const char *file;
    int default_line;
    int errors;   /* stack: list of messages */
    int where;    /* stack: C where prefix -> { lua path, line } */
    int bad;      /* stack: set of C where prefixes the reader refused */
    int anchor;   /* stack: list of values that must live until compile ends */
    int names;    /* stack: parameter names in index order */
    int clip_names; /* stack: clip name -> index (of the first clip with that name) */
    int error_count;
    graph_obj *g;
    const bw_clip *const *clips;
    int clip_count;
    const char *severity; /* lint mode: "error" or "warning", put before the path */
    int lint_errors;      /* lint mode: messages tagged "error" */
    int read_problems;    /* lint mode: the reader's own problems, before the lint ran */
} reader;

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void rd_error(reader *r, int line, const char *path, const char *fmt, ...)
{
    lua_State *L = r->L;
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line <= 0) line = r->default_line;
    const char *file = NULL;
    line = bw_lua_line_file(L, line, &file); /* an entry of a required file names that file */
    if (!file) file = r->file;
    const char *tag = r->severity ? r->severity : "", *sep = r->severity ? ": " : "";
    if (r->severity && strcmp(r->severity, "error") == 0) r->lint_errors++;
    /* one problem, one line: the names it quotes (the file's own, which
     * may hold a line break or a terminal escape) with their control
     * bytes as \xNN (blendwerk/text.h), so a list of problems joined by
     * line breaks splits only between problems */
    char efile[512], epath[768], emsg[1024];
    bw_text_escape(efile, sizeof efile, file);
    bw_text_escape(epath, sizeof epath, path);
    bw_text_escape(emsg, sizeof emsg, msg);
    if (line > 0) lua_pushfstring(L, "%s:%d: %s%s%s: %s", efile, line, tag, sep, epath, emsg);
    else lua_pushfstring(L, "%s: %s%s%s: %s", efile, tag, sep, epath, emsg);
    lua_rawseti(L, r->errors, ++r->error_count);
}

/* Register the C path of an entry with its Lua path and line. */
static void rd_where(reader *r, const char *cwhere, const char *path, int line, int table)
{
    lua_State *L = r->L;
    table = table ? lua_absindex(L, table) : 0;
    lua_createtable(L, 0, 3);
    if (table && lua_istable(L, table)) {
        lua_pushvalue(L, table);
        lua_setfield(L, -2, "table");
    }
    lua_pushstring(L, path);
    lua_setfield(L, -2, "path");
    lua_pushinteger(L, line);
    lua_setfield(L, -2, "line");
    lua_setfield(L, r->where, cwhere);
}

static void rd_bad(reader *r, const char *cwhere)
{
    lua_pushboolean(r->L, 1);
    lua_setfield(r->L, r->bad, cwhere);
}

/* The first entry that plays clip ci stands for "clips[ci]" (the lint's
 * path for a clip). */
static void rd_where_clip(reader *r, int ci, const char *path, int line)
{
    char cwhere[32];
    snprintf(cwhere, sizeof cwhere, "clips[%d]", ci);
    if (lua_getfield(r->L, r->where, cwhere) == LUA_TNIL) rd_where(r, cwhere, path, line, 0);
    lua_pop(r->L, 1);
}

static const char *rd_keep_string(reader *r, const char *s, size_t n)
{
    lua_State *L = r->L;
    const char *kept = lua_pushlstring(L, s, n);
    lua_rawseti(L, r->anchor, (lua_Integer)lua_rawlen(L, r->anchor) + 1);
    return kept;
}

/* Zeroed scratch memory kept until the compile ends. */
static void *rd_alloc(reader *r, size_t size)
{
    lua_State *L = r->L;
    void *p = lua_newuserdatauv(L, size ? size : 1, 0);
    memset(p, 0, size ? size : 1);
    lua_rawseti(L, r->anchor, (lua_Integer)lua_rawlen(L, r->anchor) + 1);
    return p;
}

static int line_or(lua_State *L, int idx, int parent)
{
    int line = bw_lua_table_line(L, idx);
    return line ? line : parent;
}

/* Unknown and twice-written fields of the table at idx (every one). */
static bool rd_fields(reader *r, int idx, const char *const *allowed, int line, const char *path)
{
    lua_State *L = r->L;
    idx = lua_absindex(L, idx);
    bool ok = true;
    char accepted[256] = "";
    for (int i = 0; allowed[i]; i++) {
        size_t len = strlen(accepted);
        snprintf(accepted + len, sizeof accepted - len, "%s%s", i ? ", " : "", allowed[i]);
    }
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) {
            if (lua_isinteger(L, -1))
                rd_error(r, bw_lua_item_line(L, idx, (int)lua_tointeger(L, -1)), path, "unexpected list entry [%d]",
                         (int)lua_tointeger(L, -1));
            else rd_error(r, line, path, "unexpected key of type %s", luaL_typename(L, -1));
            ok = false;
            continue;
        }
        const char *key = lua_tostring(L, -1);
        bool known = false;
        for (int i = 0; allowed[i] && !known; i++) known = strcmp(allowed[i], key) == 0;
        if (!known) {
            rd_error(r, bw_lua_key_line(L, idx, key), path, "unknown field '%s' (accepted fields: %s)", key, accepted);
            ok = false;
        }
    }
    char name[128];
    int first = 0, second = 0;
    if (bw_lua_first_duplicate_key(L, idx, name, sizeof name, &first, &second)) {
        const char *ignored;
        rd_error(r, second, path, "%s is written twice (first at line %d; Lua keeps only the last)", name,
                 bw_lua_line_file(r->L, first, &ignored));
        ok = false;
    }
    return ok;
}

/* Every string of the file's tables, keys and values, that holds a NUL
 * byte: C would read "speed\0evil" as "speed" (a name the file may also
 * write for real, a condition cut short), so the read stops at them. They
 * are found walking the tables (each once: `seen` holds the tables met;
 * at most 64 deep) in no set order, kept, then said in the order of their
 * lines: one problem each, at its item's line. */
#define NUL_FINDS_MAX 32
typedef struct nul_find {
    int line;
    char path[256];
    char text[128];
    bool key; /* a key holds it (else the value) */
} nul_find;

typedef struct nul_walk {
    nul_find *finds;
    int count; /* all found; the first NUL_FINDS_MAX kept */
    int seen;  /* stack index of the tables met */
} nul_walk;

static void nul_found(nul_walk *w, int line, const char *path, const char *text, bool key)
{
    if (w->count < NUL_FINDS_MAX) {
        nul_find *f = &w->finds[w->count];
        f->line = line;
        f->key = key;
        snprintf(f->path, sizeof f->path, "%s", path[0] ? path : "graph");
        snprintf(f->text, sizeof f->text, "%s", text);
    }
    w->count++;
}

static void nul_scan(reader *r, nul_walk *w, int idx, const char *path, int depth)
{
    lua_State *L = r->L;
    luaL_checkstack(L, 6, "graph"); /* each level keeps a key and a value (64 levels: past a C function's 20 slots) */
    idx = lua_absindex(L, idx);
    lua_pushvalue(L, idx);
    lua_pushboolean(L, 1);
    lua_rawset(L, w->seen);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        /* the item's path and line, as the readers name them */
        char item[256];
        int line;
        if (lua_type(L, -2) == LUA_TSTRING) {
            const char *k = lua_tostring(L, -2); /* a string key: no conversion */
            snprintf(item, sizeof item, "%s%s%s", path, path[0] ? "." : "", k);
            line = bw_lua_key_line(L, idx, k);
            if (bw_lua_holds_nul(L, -2)) nul_found(w, line, path, k, true);
        } else if (lua_isinteger(L, -2)) {
            lua_Integer i = lua_tointeger(L, -2);
            snprintf(item, sizeof item, "%s[%lld]", path, (long long)i);
            line = i >= 1 && i <= INT_MAX ? bw_lua_item_line(L, idx, (int)i) : bw_lua_table_line(L, idx);
        } else {
            snprintf(item, sizeof item, "%s[?]", path);
            line = bw_lua_table_line(L, idx);
        }
        if (bw_lua_holds_nul(L, -1)) {
            nul_found(w, line, item, lua_tostring(L, -1), false);
        } else if (lua_type(L, -1) == LUA_TTABLE && depth < 64) {
            lua_pushvalue(L, -1);
            bool met = lua_rawget(L, w->seen) != LUA_TNIL;
            lua_pop(L, 1);
            if (!met) nul_scan(r, w, -1, item, depth + 1);
        }
        lua_pop(L, 1);
    }
}

static int nul_cmp(const void *a, const void *b)
{
    const nul_find *x = (const nul_find *)a, *y = (const nul_find *)b;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    return strcmp(x->path, y->path);
}

/* True when no string of the graph table at idx holds a NUL byte; else
 * each is a problem and false. */
static bool rd_no_nul(reader *r, int idx)
{
    lua_State *L = r->L;
    idx = lua_absindex(L, idx);
    nul_walk w = {(nul_find *)rd_alloc(r, sizeof(nul_find) * NUL_FINDS_MAX), 0, 0};
    lua_newtable(L);
    w.seen = lua_gettop(L);
    nul_scan(r, &w, idx, "", 0);
    lua_pop(L, 1);
    int kept = w.count < NUL_FINDS_MAX ? w.count : NUL_FINDS_MAX;
    qsort(w.finds, (size_t)kept, sizeof *w.finds, nul_cmp);
    for (int i = 0; i < kept; i++)
        rd_error(r, w.finds[i].line, w.finds[i].path,
                 w.finds[i].key ? BW_LUA_NUL_NAME : "'%s' is followed by a NUL byte (names and conditions cannot hold one)",
                 w.finds[i].text);
    if (w.count > kept) rd_error(r, 0, "graph", "and %d more strings holding a NUL byte", w.count - kept);
    return w.count == 0;
}

/* The table at idx is a plain list (keys 1..#t); every other key is an error. */
static bool rd_list(reader *r, int idx, int line, const char *path)
{
    lua_State *L = r->L;
    idx = lua_absindex(L, idx);
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    bool ok = true;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 1 && lua_tointeger(L, -1) <= n) continue;
        if (lua_type(L, -1) == LUA_TSTRING)
            rd_error(r, bw_lua_key_line(L, idx, lua_tostring(L, -1)), path, "unknown field '%s' (a list is expected)",
                     lua_tostring(L, -1));
        else rd_error(r, line, path, "a list has keys 1..n only, not a %s key", luaL_typename(L, -1));
        ok = false;
    }
    return ok;
}

/* The string keys of the map at idx, sorted by the line they are written
 * on, then by name: pushes the list. Non-string keys are errors. */
typedef struct key_entry {
    const char *name;
    int line;
} key_entry;

static int key_cmp(const void *a, const void *b)
{
    const key_entry *x = (const key_entry *)a, *y = (const key_entry *)b;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int rd_sorted_keys(reader *r, int idx, const char *path, key_entry **out)
{
    lua_State *L = r->L;
    idx = lua_absindex(L, idx);
    int n = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        n++;
    }
    key_entry *keys = (key_entry *)rd_alloc(r, sizeof(key_entry) * (size_t)n);
    int k = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) {
            rd_error(r, bw_lua_table_line(L, idx), path, "keys must be names (strings), not a %s", luaL_typename(L, -1));
            continue;
        }
        keys[k].name = lua_tostring(L, -1); /* a key of the table: lives as long as it */
        keys[k].line = bw_lua_key_line(L, idx, keys[k].name);
        k++;
    }
    qsort(keys, (size_t)k, sizeof *keys, key_cmp);
    char name[128];
    int first = 0, second = 0;
    if (bw_lua_first_duplicate_key(L, idx, name, sizeof name, &first, &second)) {
        const char *ignored;
        rd_error(r, second, path, "'%s' is defined twice (first at line %d)", name, bw_lua_line_file(r->L, first, &ignored));
    }
    *out = keys;
    return k;
}

/* A finite number that fits a float, or an error. */
static bool rd_number(reader *r, int idx, int line, const char *path, const char *field, float *out)
{
    lua_State *L = r->L;
    if (lua_type(L, idx) != LUA_TNUMBER) {
        rd_error(r, line, path, "%s must be a number, not a %s", field, luaL_typename(L, idx));
        return false;
    }
    const char *bad = bw_lua_to_float(lua_tonumber(L, idx), out);
    if (bad) {
        rd_error(r, line, path, "%s %s", field, bad);
        return false;
    }
    return true;
}

static bool rd_type(reader *r, int idx, int type, int line, const char *path, const char *field, const char *what)
{
    if (lua_type(r->L, idx) == type) return true;
    rd_error(r, line, path, "%s must be %s, not a %s", field, what, luaL_typename(r->L, idx));
    return false;
}

/* A map section of the graph (params, masks): pushes it at *t with its
 * line and sorted keys and returns the key count, or -1 (nothing pushed)
 * when it is absent or not a table. */
static int rd_map_section(reader *r, int desc, const char *field, const char *shape, int *t, int *line, key_entry **keys)
{
    lua_State *L = r->L;
    if (bw_lua_raw_field(L, desc, field) == LUA_TNIL) {
        lua_pop(L, 1);
        return -1;
    }
    *t = lua_gettop(L);
    *line = line_or(L, *t, bw_lua_key_line(L, desc, field));
    if (!rd_type(r, *t, LUA_TTABLE, *line, field, field, shape)) {
        lua_pop(L, 1);
        return -1;
    }
    return rd_sorted_keys(r, *t, field, keys);
}

/* ---- params ---- */

static const char *const trigger_fields[] = {"trigger", "expires", NULL};

static bw_graph_param_desc *read_params(reader *r, int desc, int *out_count)
{
    lua_State *L = r->L;
    *out_count = 0;
    int t = 0, line = 0;
    key_entry *keys = NULL;
    int n = rd_map_section(r, desc, "params", "a table { name = default }", &t, &line, &keys);
    if (n < 0) return NULL;
    bw_graph_param_desc *p = (bw_graph_param_desc *)rd_alloc(r, sizeof *p * (size_t)n);
    for (int i = 0; i < n; i++) {
        char path[160], cwhere[64];
        snprintf(path, sizeof path, "params.%s", keys[i].name);
        snprintf(cwhere, sizeof cwhere, "params[%d]", i);
        int kl = keys[i].line ? keys[i].line : line;
        rd_where(r, cwhere, path, kl, 0);
        p[i].name = keys[i].name;
        lua_pushstring(L, keys[i].name);
        lua_rawseti(L, r->names, i + 1);
        lua_getfield(L, t, keys[i].name);
        int v = lua_gettop(L);
        bool ok = true;
        if (lua_type(L, v) == LUA_TNUMBER) {
            p[i].kind = BW_GRAPH_PARAM_FLOAT;
            ok = rd_number(r, v, kl, path, "the default", &p[i].value);
        } else if (lua_type(L, v) == LUA_TBOOLEAN) {
            p[i].kind = BW_GRAPH_PARAM_BOOL;
            p[i].value = lua_toboolean(L, v) ? 1.0f : 0.0f;
        } else if (lua_type(L, v) == LUA_TSTRING && strcmp(lua_tostring(L, v), "trigger") == 0) {
            p[i].kind = BW_GRAPH_PARAM_TRIGGER;
        } else if (lua_type(L, v) == LUA_TTABLE) {
            p[i].kind = BW_GRAPH_PARAM_TRIGGER;
            int tl = line_or(L, v, kl);
            ok = rd_fields(r, v, trigger_fields, tl, path);
            if (bw_lua_raw_field(L, v, "trigger") != LUA_TBOOLEAN || !lua_toboolean(L, -1)) {
                rd_error(r, tl, path, "a table parameter is a trigger: { trigger = true [, expires = seconds] }");
                ok = false;
            }
            lua_pop(L, 1);
            if (bw_lua_raw_field(L, v, "expires") != LUA_TNIL) {
                /* an explicit 0 (or a number a float rounds to 0) expires in
                 * the first update, as SPEC §12.2 reads; absent is never */
                p[i].has_expires = true;
                ok = rd_number(r, lua_gettop(L), bw_lua_key_line(L, v, "expires"), path, "expires", &p[i].expires) && ok;
            }
            lua_pop(L, 1);
        } else {
            rd_error(r, kl, path,
                     "a parameter's default is a number, a boolean, \"trigger\" or { trigger = true, expires = s }, "
                     "not %s",
                     lua_type(L, v) == LUA_TSTRING ? lua_pushfstring(L, "\"%s\"", lua_tostring(L, v))
                                                   : luaL_typename(L, v));
            ok = false;
        }
        if (!ok) rd_bad(r, cwhere);
        lua_settop(L, t);
    }
    lua_pop(L, 1);
    *out_count = n;
    return p;
}

/* ---- masks ---- */

static bw_graph_mask_desc *read_masks(reader *r, int desc, int *out_count)
{
    lua_State *L = r->L;
    *out_count = 0;
    int t = 0, line = 0;
    key_entry *keys = NULL;
    int n = rd_map_section(r, desc, "masks", "a table { name = { entries } }", &t, &line, &keys);
    if (n < 0) return NULL;
    bw_graph_mask_desc *m = (bw_graph_mask_desc *)rd_alloc(r, sizeof *m * (size_t)n);
    for (int i = 0; i < n; i++) {
        char path[200], cwhere[64];
        snprintf(path, sizeof path, "masks.%s", keys[i].name);
        snprintf(cwhere, sizeof cwhere, "masks[%d]", i);
        lua_getfield(L, t, keys[i].name);
        const int mt = lua_gettop(L);
        int ml = line_or(L, mt, keys[i].line ? keys[i].line : line);
        rd_where(r, cwhere, path, ml, mt);
        m[i].name = keys[i].name;
        if (!rd_type(r, mt, LUA_TTABLE, ml, path, "a mask", "a list of { joint, weight [, descendants = false] }")) {
            rd_bad(r, cwhere);
            lua_settop(L, t);
            continue;
        }
        int count = (int)lua_rawlen(L, mt);
        bw_graph_mask_entry_desc *e = (bw_graph_mask_entry_desc *)rd_alloc(r, sizeof *e * (size_t)count);
        m[i].entries = e;
        m[i].entry_count = count;
        rd_list(r, mt, ml, path);
        for (int k = 0; k < count; k++) {
            char epath[240], ewhere[96];
            snprintf(epath, sizeof epath, "%s[%d]", path, k + 1);
            snprintf(ewhere, sizeof ewhere, "masks[%d].entries[%d]", i, k);
            lua_rawgeti(L, mt, k + 1);
            const int et = lua_gettop(L);
            int el = line_or(L, et, bw_lua_item_line(L, mt, k + 1));
            rd_where(r, ewhere, epath, el, et);
            bool eok = rd_type(r, et, LUA_TTABLE, el, epath, "a mask entry", "a table { joint, weight }");
            if (eok) {
                /* { "joint", weight, descendants = bool }: positional 1 and 2 */
                lua_pushnil(L);
                while (lua_next(L, et)) {
                    lua_pop(L, 1);
                    bool known = lua_isinteger(L, -1) && (lua_tointeger(L, -1) == 1 || lua_tointeger(L, -1) == 2);
                    known = known || (lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "descendants") == 0);
                    if (!known) {
                        rd_error(r, el, epath, "unknown field '%s' (a mask entry is { joint, weight, descendants = false })",
                                 lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1));
                        eok = false;
                    }
                }
                if (lua_rawgeti(L, et, 1) == LUA_TSTRING) e[k].joint = lua_tostring(L, -1);
                else eok = rd_type(r, -1, LUA_TSTRING, el, epath, "[1]", "a joint name") && eok;
                lua_pop(L, 1);
                e[k].weight = 1.0f;
                if (lua_rawgeti(L, et, 2) != LUA_TNIL) eok = rd_number(r, -1, el, epath, "[2] (the weight)", &e[k].weight) && eok;
                lua_pop(L, 1);
                int dt = bw_lua_raw_field(L, et, "descendants");
                if (dt == LUA_TBOOLEAN) e[k].no_descendants = !lua_toboolean(L, -1);
                else if (dt != LUA_TNIL) eok = rd_type(r, -1, LUA_TBOOLEAN, el, epath, "descendants", "a boolean") && eok;
                lua_pop(L, 1);
            }
            if (!eok) rd_bad(r, ewhere);
            lua_settop(L, et - 1);
        }
        lua_settop(L, t);
    }
    lua_pop(L, 1);
    *out_count = n;
    return m;
}

/* ---- conditions ---- */

static bool op_of(const char *s, size_t *len, bw_graph_op *op)
{
    static const struct {
        const char *text;
        bw_graph_op op;
    } ops[] = {{"<=", BW_GRAPH_LE}, {">=", BW_GRAPH_GE}, {"==", BW_GRAPH_EQ}, {"~=", BW_GRAPH_NE},
               {"<", BW_GRAPH_LT},  {">", BW_GRAPH_GT}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        size_t n = strlen(ops[i].text);
        if (strncmp(s, ops[i].text, n) == 0) {
            *len = n;
            *op = ops[i].op;
            return true;
        }
    }
    return false;
}

static bool is_op_char(char c) { return c != '\0' && strchr("<>=~!", c) != NULL; }

/* "param OP number", "param", "not param". */
static bool parse_condition(reader *r, const char *text, int line, const char *path, bw_graph_condition_desc *c)
{
    const char *s = text;
    while (isspace((unsigned char)*s)) s++;
    bool negate = false;
    if (strncmp(s, "not", 3) == 0 && isspace((unsigned char)s[3])) {
        negate = true;
        s += 3;
        while (isspace((unsigned char)*s)) s++;
    }
    const char *name = s;
    while (*s && !isspace((unsigned char)*s) && !is_op_char(*s)) s++;
    size_t name_len = (size_t)(s - name);
    while (isspace((unsigned char)*s)) s++;
    if (name_len == 0) {
        rd_error(r, line, path, "'%s' names no parameter (\"param OP number\", \"param\" or \"not param\")", text);
        return false;
    }
    c->param = rd_keep_string(r, name, name_len);
    if (*s == '\0') {
        c->kind = negate ? BW_GRAPH_COND_NOT : BW_GRAPH_COND_TRUE;
        return true;
    }
    if (negate) {
        rd_error(r, line, path, "'%s': \"not\" takes a parameter name only", text);
        return false;
    }
    size_t op_len = 0;
    if (!op_of(s, &op_len, &c->op) || is_op_char(s[op_len])) {
        size_t n = 0;
        while (is_op_char(s[n])) n++;
        rd_error(r, line, path, "bad operator '%.*s' in '%s' (one of < <= > >= == ~=)", (int)(n ? n : 1), s, text);
        return false;
    }
    s += op_len;
    char *end = NULL;
    double v = strtod(s, &end);
    const char *rest = end;
    while (rest && isspace((unsigned char)*rest)) rest++;
    if (end == s || !rest || *rest != '\0') {
        rd_error(r, line, path, "'%s': expected a number after the operator", text);
        return false;
    }
    const char *bad = bw_lua_to_float(v, &c->value);
    if (bad) {
        rd_error(r, line, path, "'%s': the number %s", text, bad);
        return false;
    }
    c->kind = BW_GRAPH_COND_COMPARE;
    return true;
}

/* A function value on top of the stack becomes a predicate (popped). */
static bool make_predicate(reader *r, bw_graph_condition_desc *c)
{
    lua_State *L = r->L;
    graph_pred *p = (graph_pred *)lua_newuserdatauv(L, sizeof *p, 0);
    memset(p, 0, sizeof *p);
    lua_rawseti(L, r->anchor, (lua_Integer)lua_rawlen(L, r->anchor) + 1); /* the graph keeps it */
    p->cb.ref = luaL_ref(L, LUA_REGISTRYINDEX);                          /* pops the function */
    p->cb.failed_means = "the condition counts as false";               /* as docs/graphs.md says */
    p->g = r->g;
    p->next = r->g->preds;
    r->g->preds = p;
    c->kind = BW_GRAPH_COND_PREDICATE;
    c->fn = run_predicate;
    c->user = p;
    return true;
}

/* ---- states ---- */

static const char *const state_fields[] = {"clip", "blend", "speed", "loop", "sync", "offset", "reference", NULL};
static const char *const reference_fields[] = {"clip", "time", "frame", "fps", NULL};

/* The first clip named `name`, or -1: a table lookup, so reading a graph
 * stays linear in its states and clips. */
static int find_clip(reader *r, const char *name)
{
    lua_State *L = r->L;
    lua_pushstring(L, name);
    int ci = lua_rawget(L, r->clip_names) == LUA_TNUMBER ? (int)lua_tointeger(L, -1) : -1;
    lua_pop(L, 1);
    return ci;
}

static void tmp_tree_gc_push(lua_State *L, bw_blend_tree *tree)
{
    bw_blend_tree **box = (bw_blend_tree **)lua_newuserdatauv(L, sizeof *box, 0);
    *box = tree;
    luaL_setmetatable(L, TMP_TREE);
}

static int tmp_tree_gc(lua_State *L)
{
    bw_blend_tree **box = (bw_blend_tree **)luaL_checkudata(L, 1, TMP_TREE);
    bw_blend_tree_destroy(*box);
    *box = NULL;
    return 0;
}

/* A state's blend tree, read by the blend-tree reader with the graph's
 * words (bw_lua_tree_reading): its leaves name the graph's clips. */
typedef struct graph_tree {
    bw_lua_tree_reading how;
    reader *r;
} graph_tree;

static void tree_problem(void *user, int line, const char *path, const char *message)
{
    rd_error(((graph_tree *)user)->r, line, path, "%s", message);
}

static bool tree_fields(void *user, lua_State *L, int idx, const char *const *allowed, int line, const char *path)
{
    (void)L;
    return rd_fields(((graph_tree *)user)->r, idx, allowed, line, path);
}

/* A leaf's clip name (on top) becomes the graph clip's index + 1. */
static bool tree_clip(void *user, lua_State *L, int leaf_idx, const char *path, int line, float *length)
{
    graph_tree *gt = (graph_tree *)user;
    reader *r = gt->r;
    if (lua_type(L, -1) != LUA_TSTRING) {
        rd_error(r, line, path, "a blend leaf's clip must be a clip name, not a %s", luaL_typename(L, -1));
        return false;
    }
    int ci = find_clip(r, lua_tostring(L, -1));
    if (ci < 0) {
        rd_error(r, line, path, "unknown clip '%s'", lua_tostring(L, -1));
        return false;
    }
    rd_where_clip(r, ci, gt->how.path, line_or(L, leaf_idx, gt->how.line));
    *length = bw_clip_length(r->clips[ci]);
    lua_pushinteger(L, ci + 1);
    lua_replace(L, -2);
    return true;
}

/* A blend state's tree: the module's reader over the node, then its
 * leaves renumbered to the graph's clip indices. */
static const bw_blend_tree *read_blend(reader *r, int idx, int line, const char *path)
{
    lua_State *L = r->L;
    const int top = lua_gettop(L);
    if (!rd_type(r, idx, LUA_TTABLE, line, path, "blend", "a blend-tree node (blendwerk.blend_tree)")) return NULL;
    char tpath[320];
    snprintf(tpath, sizeof tpath, "%s.blend", path);
    graph_tree gt;
    memset(&gt, 0, sizeof gt);
    gt.r = r;
    gt.how.path = tpath;
    gt.how.line = line;
    gt.how.params = r->names;
    gt.how.clip = tree_clip;
    gt.how.fields = tree_fields;
    gt.how.problem = tree_problem;
    gt.how.user = &gt;
    if (!bw_lua_blend_tree_read(L, idx, &gt.how)) {
        lua_settop(L, top);
        return NULL;
    }
    const bw_blend_tree *src = bw_lua_check_blend_tree(L, -1); /* pushes the leaf clip values */
    const int leaf_clips = lua_gettop(L);
    int count = bw_blend_tree_node_count(src);
    bw_blend_node *nodes = (bw_blend_node *)rd_alloc(r, sizeof *nodes * (size_t)count);
    for (int i = 0; i < count; i++) {
        nodes[i] = *bw_blend_tree_node(src, i);
        if (nodes[i].kind == BW_BLEND_NODE_CLIP) {
            lua_rawgeti(L, leaf_clips, nodes[i].clip + 1);
            nodes[i].clip = (int)lua_tointeger(L, -1) - 1;
            lua_pop(L, 1);
        }
    }
    const char **names = (const char **)rd_alloc(r, sizeof *names * (size_t)(bw_blend_tree_param_count(src) + 1));
    for (int i = 0; i < bw_blend_tree_param_count(src); i++) names[i] = bw_blend_tree_param_name(src, i);
    bw_blend_tree_desc td;
    memset(&td, 0, sizeof td);
    td.nodes = nodes;
    td.node_count = count;
    td.root = bw_blend_tree_root(src);
    td.param_count = bw_blend_tree_param_count(src);
    td.param_names = td.param_count ? names : NULL;
    bw_blend_tree *tree = NULL;
    bw_error err;
    memset(&err, 0, sizeof err);
    if (bw_blend_tree_compile(&td, &tree, &err) != BW_OK) {
        rd_error(r, line, path, "%s", err.message[0] ? err.message : bw_result_name(err.code));
        lua_settop(L, top);
        return NULL;
    }
    tmp_tree_gc_push(L, tree);
    lua_rawseti(L, r->anchor, (lua_Integer)lua_rawlen(L, r->anchor) + 1);
    lua_settop(L, top);
    return tree;
}

/* An additive state's `reference` at idx (docs/graphs.md): "rest", a time
 * of its own clip, { time = s }, { frame = k, fps = f } (time k / f), or
 * { clip = name [, time = s | frame = k, fps = f] }. Whether the layer is
 * additive is the compiler's check. */
static bool read_reference(reader *r, int idx, int line, const char *spath, const char *cwhere,
                           bw_graph_reference_desc *out)
{
    lua_State *L = r->L;
    idx = lua_absindex(L, idx);
    char path[340], cref[96];
    snprintf(path, sizeof path, "%s.reference", spath);
    if (lua_type(L, idx) == LUA_TSTRING) {
        if (strcmp(lua_tostring(L, idx), "rest") == 0) {
            out->kind = BW_GRAPH_REF_REST;
            return true;
        }
        rd_error(r, line, spath,
                 "reference '%s' is not \"rest\", a time, { time = s }, { frame = k, fps = f } or { clip = name, ... }",
                 lua_tostring(L, idx));
        return false;
    }
    if (lua_type(L, idx) == LUA_TNUMBER) return rd_number(r, idx, line, spath, "reference", &out->time);
    if (!rd_type(r, idx, LUA_TTABLE, line, spath, "reference", "\"rest\", a time (seconds) or a table")) return false;
    int tl = line_or(L, idx, line);
    snprintf(cref, sizeof cref, "%s.reference", cwhere);
    rd_where(r, cref, path, tl, idx);
    bool ok = rd_fields(r, idx, reference_fields, tl, path);
    if (bw_lua_raw_field(L, idx, "clip") != LUA_TNIL) {
        int kl = bw_lua_key_line(L, idx, "clip");
        if (rd_type(r, -1, LUA_TSTRING, kl, path, "clip", "a clip name")) {
            int ci = find_clip(r, lua_tostring(L, -1));
            if (ci < 0) {
                rd_error(r, kl, path, "unknown clip '%s'", lua_tostring(L, -1));
                ok = false;
            } else {
                out->kind = BW_GRAPH_REF_CLIP;
                out->clip = ci;
            }
        } else {
            ok = false;
        }
    }
    lua_settop(L, idx);
    bool has_time = bw_lua_raw_field(L, idx, "time") != LUA_TNIL;
    if (has_time) ok = rd_number(r, -1, bw_lua_key_line(L, idx, "time"), path, "time", &out->time) && ok;
    lua_settop(L, idx);
    bool has_frame = bw_lua_raw_field(L, idx, "frame") != LUA_TNIL;
    bool has_fps = bw_lua_raw_field(L, idx, "fps") != LUA_TNIL;
    if (has_frame || has_fps) {
        float frame = 0.0f, fps = 0.0f;
        int fl = bw_lua_key_line(L, idx, has_frame ? "frame" : "fps");
        if (has_time) {
            rd_error(r, fl, path, "a reference has time or frame, not both");
            ok = false;
        } else if (!has_frame || !has_fps) {
            rd_error(r, fl, path, "frame and fps (frames per second) go together");
            ok = false;
        } else if (rd_number(r, -2, fl, path, "frame", &frame) && rd_number(r, -1, fl, path, "fps", &fps)) {
            if (fps > 0.0f) {
                out->time = frame / fps;
            } else {
                rd_error(r, bw_lua_key_line(L, idx, "fps"), path, "fps must be > 0");
                ok = false;
            }
        } else {
            ok = false;
        }
    }
    lua_settop(L, idx);
    return ok;
}

static bw_graph_state_desc *read_states(reader *r, int layer, int l, const char *lpath, int lline, int *out_count)
{
    lua_State *L = r->L;
    *out_count = 0;
    char path[200];
    snprintf(path, sizeof path, "%s.states", lpath);
    bw_lua_raw_field(L, layer, "states");
    const int t = lua_gettop(L);
    int line = line_or(L, t, bw_lua_key_line(L, layer, "states"));
    if (lua_isnil(L, t)) {
        rd_error(r, lline, lpath, "states is missing (a table { name = { clip = ... } })");
        return NULL;
    }
    if (!rd_type(r, t, LUA_TTABLE, line, path, "states", "a table { name = state }")) return NULL;
    key_entry *keys = NULL;
    int n = rd_sorted_keys(r, t, path, &keys);
    bw_graph_state_desc *s = (bw_graph_state_desc *)rd_alloc(r, sizeof *s * (size_t)n);
    for (int i = 0; i < n; i++) {
        char spath[300], cwhere[64];
        snprintf(spath, sizeof spath, "%s.%s", path, keys[i].name);
        snprintf(cwhere, sizeof cwhere, "layers[%d].states[%d]", l, i);
        lua_getfield(L, t, keys[i].name);
        const int st = lua_gettop(L);
        int sl = keys[i].line ? keys[i].line : line_or(L, st, line);
        rd_where(r, cwhere, spath, sl, st);
        s[i].name = keys[i].name;
        s[i].clip = 0;
        bool ok = rd_type(r, st, LUA_TTABLE, sl, spath, "a state", "a table { clip = name } or { blend = node }");
        if (!ok) rd_bad(r, cwhere);
        if (ok) {
            ok = rd_fields(r, st, state_fields, sl, spath);
            int ct = bw_lua_raw_field(L, st, "clip");
            int bt = bw_lua_raw_field(L, st, "blend");
            if (ct != LUA_TNIL && bt != LUA_TNIL) {
                rd_error(r, sl, spath, "a state has clip or blend, not both");
                ok = false;
            } else if (ct == LUA_TNIL && bt == LUA_TNIL) {
                rd_error(r, sl, spath, "a state needs clip (a clip name) or blend (a blend-tree node)");
                ok = false;
            } else if (ct != LUA_TNIL) {
                if (rd_type(r, -2, LUA_TSTRING, sl, spath, "clip", "a clip name")) {
                    int ci = find_clip(r, lua_tostring(L, -2));
                    if (ci < 0) {
                        rd_error(r, bw_lua_key_line(L, st, "clip"), spath, "state '%s': unknown clip '%s'", keys[i].name,
                                 lua_tostring(L, -2));
                        ok = false;
                    } else {
                        char cpath[320];
                        snprintf(cpath, sizeof cpath, "%s.clip", spath);
                        rd_where_clip(r, ci, cpath, bw_lua_key_line(L, st, "clip"));
                        s[i].clip = ci;
                    }
                } else {
                    ok = false;
                }
            } else {
                s[i].blend = read_blend(r, lua_gettop(L), line_or(L, -1, bw_lua_key_line(L, st, "blend")), spath);
                if (!s[i].blend) ok = false;
            }
            lua_settop(L, st);
            int sp = bw_lua_raw_field(L, st, "speed");
            int kl = bw_lua_key_line(L, st, "speed");
            if (sp == LUA_TSTRING) {
                s[i].speed_param = lua_tostring(L, -1);
            } else if (sp != LUA_TNIL) {
                if (rd_number(r, -1, kl, spath, "speed", &s[i].speed)) s[i].has_speed = true; /* 0: holds still */
                else ok = false;
            }
            lua_settop(L, st);
            int lt = bw_lua_raw_field(L, st, "loop");
            if (lt == LUA_TBOOLEAN) s[i].loop = lua_toboolean(L, -1) ? BW_GRAPH_LOOP_YES : BW_GRAPH_LOOP_NO;
            else if (lt != LUA_TNIL) ok = rd_type(r, -1, LUA_TBOOLEAN, bw_lua_key_line(L, st, "loop"), spath, "loop", "a boolean") && ok;
            lua_settop(L, st);
            int yt = bw_lua_raw_field(L, st, "sync");
            if (yt == LUA_TSTRING) s[i].sync = lua_tostring(L, -1);
            else if (yt != LUA_TNIL) ok = rd_type(r, -1, LUA_TSTRING, bw_lua_key_line(L, st, "sync"), spath, "sync", "a group name") && ok;
            lua_settop(L, st);
            if (bw_lua_raw_field(L, st, "offset") != LUA_TNIL)
                ok = rd_number(r, -1, bw_lua_key_line(L, st, "offset"), spath, "offset", &s[i].offset) && ok;
            lua_settop(L, st);
            if (bw_lua_raw_field(L, st, "reference") != LUA_TNIL &&
                !read_reference(r, -1, bw_lua_key_line(L, st, "reference"), spath, cwhere, &s[i].reference)) {
                char rwhere[96]; /* the compiler's word on it would repeat the reader's */
                snprintf(rwhere, sizeof rwhere, "%s.reference", cwhere);
                rd_bad(r, rwhere);
                ok = false;
            }
        }
        if (!ok) { /* the compiler's word on the clip would repeat the reader's */
            char fwhere[96];
            snprintf(fwhere, sizeof fwhere, "%s.clip", cwhere);
            rd_bad(r, fwhere);
            snprintf(fwhere, sizeof fwhere, "%s.blend", cwhere);
            rd_bad(r, fwhere);
        }
        lua_settop(L, t);
    }
    *out_count = n;
    return s;
}

/* ---- transitions ---- */

static const char *const transition_fields[] = {"from", "to", "when", "exit_time", "duration", "mode", "source_speed",
                                                "interruptible", "curve", "to_self", NULL};

/* "linear", "cubic" (in), "cubic_out", "sine_in_out", ... */
static bool read_curve(const char *name, bw_ease_style *style, bw_ease_dir *dir)
{
    static const char *const dirs[] = {"_in_out", "_out", "_in"};
    static const bw_ease_dir dir_of[] = {BW_EASE_IN_OUT, BW_EASE_OUT, BW_EASE_IN};
    char base[64];
    snprintf(base, sizeof base, "%s", name);
    *dir = BW_EASE_IN;
    size_t n = strlen(base);
    for (int i = 0; i < 3; i++) {
        size_t k = strlen(dirs[i]);
        if (n > k && strcmp(base + n - k, dirs[i]) == 0) {
            base[n - k] = '\0';
            *dir = dir_of[i];
            break;
        }
    }
    int s = bw_ease_style_find(base);
    if (s < 0) return false;
    *style = (bw_ease_style)s;
    return true;
}

static bool read_when(reader *r, int tt, const char *tpath, int tline, const char *twhere, bw_graph_transition_desc *d)
{
    lua_State *L = r->L;
    int wt = bw_lua_raw_field(L, tt, "when");
    if (wt == LUA_TNIL) {
        lua_pop(L, 1);
        return true;
    }
    const int w = lua_gettop(L);
    int wl = line_or(L, w, bw_lua_key_line(L, tt, "when"));
    if (wt != LUA_TTABLE) {
        rd_error(r, wl, tpath, "when must be a list of conditions, not a %s", luaL_typename(L, w));
        lua_pop(L, 1);
        return false;
    }
    char wpath[300];
    snprintf(wpath, sizeof wpath, "%s.when", tpath);
    bool ok = rd_list(r, w, wl, wpath);
    int n = (int)lua_rawlen(L, w);
    bw_graph_condition_desc *c = (bw_graph_condition_desc *)rd_alloc(r, sizeof *c * (size_t)n);
    for (int k = 0; k < n; k++) {
        char cpath[320], cwhere[128];
        snprintf(cpath, sizeof cpath, "%s[%d]", wpath, k + 1);
        snprintf(cwhere, sizeof cwhere, "%s.conditions[%d]", twhere, k);
        int cl = bw_lua_item_line(L, w, k + 1);
        if (!cl) cl = wl ? wl : tline;
        rd_where(r, cwhere, cpath, cl, 0);
        int type = lua_rawgeti(L, w, k + 1);
        bool cok = true;
        if (type == LUA_TSTRING) cok = parse_condition(r, lua_tostring(L, -1), cl, cpath, &c[k]);
        else if (type == LUA_TFUNCTION) cok = make_predicate(r, &c[k]);
        else {
            rd_error(r, cl, cpath, "a condition is a string (\"speed > 0.1\", \"jump\", \"not grounded\") or a function, not a %s",
                     luaL_typename(L, -1));
            cok = false;
        }
        if (type != LUA_TFUNCTION) lua_pop(L, 1);
        if (!cok) {
            rd_bad(r, cwhere);
            ok = false;
        }
    }
    d->conditions = c;
    d->condition_count = n;
    lua_pop(L, 1);
    return ok;
}

static bw_graph_transition_desc *read_transitions(reader *r, int layer, int l, const char *lpath, int *out_count)
{
    lua_State *L = r->L;
    *out_count = 0;
    char path[200];
    snprintf(path, sizeof path, "%s.transitions", lpath);
    int type = bw_lua_raw_field(L, layer, "transitions");
    const int t = lua_gettop(L);
    int line = line_or(L, t, bw_lua_key_line(L, layer, "transitions"));
    if (type == LUA_TNIL) {
        lua_pop(L, 1);
        return NULL;
    }
    if (!rd_type(r, t, LUA_TTABLE, line, path, "transitions", "a list of transitions")) {
        lua_pop(L, 1);
        return NULL;
    }
    rd_list(r, t, line, path);
    int n = (int)lua_rawlen(L, t);
    bw_graph_transition_desc *d = (bw_graph_transition_desc *)rd_alloc(r, sizeof *d * (size_t)n);
    for (int i = 0; i < n; i++) {
        char tpath[260], cwhere[64];
        snprintf(tpath, sizeof tpath, "%s[%d]", path, i + 1);
        snprintf(cwhere, sizeof cwhere, "layers[%d].transitions[%d]", l, i);
        lua_rawgeti(L, t, i + 1);
        const int tt = lua_gettop(L);
        int tl = line_or(L, tt, bw_lua_item_line(L, t, i + 1));
        rd_where(r, cwhere, tpath, tl, tt);
        d[i].duration = DEFAULT_DURATION;
        bool ok = rd_type(r, tt, LUA_TTABLE, tl, tpath, "a transition", "a table { from =, to =, ... }");
        if (ok) {
            ok = rd_fields(r, tt, transition_fields, tl, tpath);
            /* field problems refuse the field; the compiler still checks the rest */
            char fwhere[96];
            if (bw_lua_raw_field(L, tt, "from") == LUA_TSTRING) d[i].from = lua_tostring(L, -1);
            else if (!rd_type(r, -1, LUA_TSTRING, tl, tpath, "from", "a state name or \"*\""))
                snprintf(fwhere, sizeof fwhere, "%s.from", cwhere), rd_bad(r, fwhere);
            if (bw_lua_raw_field(L, tt, "to") == LUA_TSTRING) d[i].to = lua_tostring(L, -1);
            else if (!rd_type(r, -1, LUA_TSTRING, tl, tpath, "to", "a state name"))
                snprintf(fwhere, sizeof fwhere, "%s.to", cwhere), rd_bad(r, fwhere);
            lua_settop(L, tt);
            read_when(r, tt, tpath, tl, cwhere, &d[i]);
            if (bw_lua_raw_field(L, tt, "exit_time") != LUA_TNIL) {
                d[i].has_exit_time = true;
                ok = rd_number(r, -1, bw_lua_key_line(L, tt, "exit_time"), tpath, "exit_time", &d[i].exit_time) && ok;
            }
            lua_settop(L, tt);
            if (bw_lua_raw_field(L, tt, "duration") != LUA_TNIL)
                ok = rd_number(r, -1, bw_lua_key_line(L, tt, "duration"), tpath, "duration", &d[i].duration) && ok;
            lua_settop(L, tt);
            int mt = bw_lua_raw_field(L, tt, "mode");
            if (mt != LUA_TNIL) {
                const char *m = lua_tostring(L, -1);
                if (mt == LUA_TSTRING && strcmp(m, "live") == 0) d[i].mode = BW_GRAPH_LIVE;
                else if (mt == LUA_TSTRING && strcmp(m, "freeze") == 0) d[i].mode = BW_GRAPH_FREEZE;
                else {
                    rd_error(r, bw_lua_key_line(L, tt, "mode"), tpath, "mode must be \"live\" or \"freeze\"");
                    ok = false;
                }
            }
            lua_settop(L, tt);
            if (bw_lua_raw_field(L, tt, "source_speed") != LUA_TNIL) {
                int kl = bw_lua_key_line(L, tt, "source_speed");
                if (rd_number(r, -1, kl, tpath, "source_speed", &d[i].source_speed)) d[i].has_source_speed = true;
                else ok = false;
            }
            lua_settop(L, tt);
            int it = bw_lua_raw_field(L, tt, "interruptible");
            if (it == LUA_TBOOLEAN) d[i].non_interruptible = !lua_toboolean(L, -1);
            else if (it != LUA_TNIL) ok = rd_type(r, -1, LUA_TBOOLEAN, bw_lua_key_line(L, tt, "interruptible"), tpath, "interruptible", "a boolean") && ok;
            lua_settop(L, tt);
            int ts = bw_lua_raw_field(L, tt, "to_self");
            if (ts == LUA_TBOOLEAN) d[i].to_self = lua_toboolean(L, -1);
            else if (ts != LUA_TNIL) ok = rd_type(r, -1, LUA_TBOOLEAN, bw_lua_key_line(L, tt, "to_self"), tpath, "to_self", "a boolean") && ok;
            lua_settop(L, tt);
            int cv = bw_lua_raw_field(L, tt, "curve");
            if (cv != LUA_TNIL) {
                if (cv != LUA_TSTRING || !read_curve(lua_tostring(L, -1), &d[i].curve, &d[i].curve_dir)) {
                    rd_error(r, bw_lua_key_line(L, tt, "curve"), tpath,
                             "curve must be an easing name (\"linear\", \"cubic\", \"sine_in_out\", ...), not %s",
                             cv == LUA_TSTRING ? lua_pushfstring(L, "'%s'", lua_tostring(L, -1)) : luaL_typename(L, -1));
                    ok = false;
                }
            }
        } else {
            rd_bad(r, cwhere);
        }
        (void)ok; /* each refused field was reported (and marked) on its own */
        lua_settop(L, t);
    }
    lua_pop(L, 1);
    *out_count = n;
    return d;
}

/* ---- layers ---- */

static const char *const layer_fields[] = {"name", "entry", "mode", "weight", "mask", "states", "transitions", NULL};
static const char *const graph_fields[] = {"params", "masks", "layers", NULL};

static bw_graph_layer_desc *read_layers(reader *r, int desc, int *out_count)
{
    lua_State *L = r->L;
    *out_count = 0;
    int type = bw_lua_raw_field(L, desc, "layers");
    const int t = lua_gettop(L);
    int line = line_or(L, t, bw_lua_key_line(L, desc, "layers"));
    if (type != LUA_TTABLE) {
        rd_error(r, line, "layers", "layers must be a list of layers, not a %s", luaL_typename(L, t));
        lua_pop(L, 1);
        return NULL;
    }
    rd_list(r, t, line, "layers");
    int n = (int)lua_rawlen(L, t);
    bw_graph_layer_desc *d = (bw_graph_layer_desc *)rd_alloc(r, sizeof *d * (size_t)n);
    for (int l = 0; l < n; l++) {
        char lpath[64], cwhere[64];
        snprintf(lpath, sizeof lpath, "layers[%d]", l + 1);
        snprintf(cwhere, sizeof cwhere, "layers[%d]", l);
        lua_rawgeti(L, t, l + 1);
        const int lt = lua_gettop(L);
        int ll = line_or(L, lt, bw_lua_item_line(L, t, l + 1));
        rd_where(r, cwhere, lpath, ll, lt);
        if (!rd_type(r, lt, LUA_TTABLE, ll, lpath, "a layer", "a table { name =, entry =, states = ... }")) {
            rd_bad(r, cwhere);
            lua_settop(L, t);
            continue;
        }
        /* only a layer without a usable name or entry is refused whole; a
         * bad field keeps its default, so the compiler still reports every
         * problem inside the layer (SPEC §12.1: all at once) */
        rd_fields(r, lt, layer_fields, ll, lpath);
        bool ok = true;
        if (bw_lua_raw_field(L, lt, "name") == LUA_TSTRING) d[l].name = lua_tostring(L, -1);
        else ok = rd_type(r, -1, LUA_TSTRING, ll, lpath, "name", "a string (required)") && false;
        if (bw_lua_raw_field(L, lt, "entry") == LUA_TSTRING) d[l].entry = lua_tostring(L, -1);
        else ok = rd_type(r, -1, LUA_TSTRING, ll, lpath, "entry", "a state name (required)") && false;
        lua_settop(L, lt);
        int mt = bw_lua_raw_field(L, lt, "mode");
        bool bad_mode = false;
        if (mt != LUA_TNIL) {
            if (mt == LUA_TSTRING && strcmp(lua_tostring(L, -1), "override") == 0) d[l].mode = BW_GRAPH_OVERRIDE;
            else if (mt == LUA_TSTRING && strcmp(lua_tostring(L, -1), "additive") == 0) d[l].mode = BW_GRAPH_ADDITIVE;
            else {
                rd_error(r, bw_lua_key_line(L, lt, "mode"), lpath, "mode must be \"override\" or \"additive\"");
                bad_mode = true;
            }
        }
        lua_settop(L, lt);
        int wt = bw_lua_raw_field(L, lt, "weight");
        int wl = bw_lua_key_line(L, lt, "weight");
        if (wt == LUA_TSTRING) {
            d[l].weight_param = lua_tostring(L, -1);
        } else if (wt != LUA_TNIL && rd_number(r, -1, wl, lpath, "weight", &d[l].weight)) {
            d[l].has_weight = true; /* 0 included: the layer starts silent */
        }
        lua_settop(L, lt);
        int kt = bw_lua_raw_field(L, lt, "mask");
        if (kt == LUA_TSTRING) d[l].mask = lua_tostring(L, -1);
        else if (kt != LUA_TNIL) rd_type(r, -1, LUA_TSTRING, bw_lua_key_line(L, lt, "mask"), lpath, "mask", "a mask name");
        lua_settop(L, lt);
        d[l].states = read_states(r, lt, l, lpath, ll, &d[l].state_count);
        lua_settop(L, lt);
        d[l].transitions = read_transitions(r, lt, l, lpath, &d[l].transition_count);
        for (int i = 0; bad_mode && i < d[l].state_count; i++) {
            /* compiled as override: "a reference is for additive layers only"
             * would follow from the mode the reader refused */
            char rwhere[96];
            snprintf(rwhere, sizeof rwhere, "%s.states[%d].reference", cwhere, i);
            rd_bad(r, rwhere);
        }
        if (!ok) rd_bad(r, cwhere);
        lua_settop(L, t);
    }
    lua_pop(L, 1);
    *out_count = n;
    return d;
}

/* A compile problem: its C where mapped to the entry's Lua path and line.
 * Dropped when a refused entry (or one of its parents) is what it names. */
static void rd_compile_error(reader *r, const char *where, const char *message)
{
    lua_State *L = r->L;
    char prefix[sizeof((bw_error *)0)->where];
    snprintf(prefix, sizeof prefix, "%s", where);
    for (;;) {
        if (lua_getfield(L, r->bad, prefix) != LUA_TNIL) {
            lua_pop(L, 1);
            return;
        }
        lua_pop(L, 1);
        char *cut = strrchr(prefix, '.');
        char *br = strrchr(prefix, '[');
        if (br && (!cut || br > cut)) cut = br;
        if (!cut) break;
        *cut = '\0';
    }
    snprintf(prefix, sizeof prefix, "%s", where);
    for (;;) {
        if (lua_getfield(L, r->where, prefix) == LUA_TTABLE) {
            lua_getfield(L, -1, "path");
            lua_getfield(L, -2, "line");
            const char *rest = where + strlen(prefix);
            int line = (int)lua_tointeger(L, -1);
            /* a field of the entry ("...transitions[1].to"): its own line */
            char field[64] = "";
            if (rest[0] == '.' && strlen(rest + 1) < sizeof field && !strpbrk(rest + 1, ".[")) {
                static const struct {
                    const char *c, *lua;
                } renamed[] = {{"speed_param", "speed"}, {"weight_param", "weight"}, {"non_interruptible", "interruptible"}};
                snprintf(field, sizeof field, "%s", rest + 1);
                for (size_t k = 0; k < sizeof renamed / sizeof renamed[0]; k++)
                    if (strcmp(field, renamed[k].c) == 0) snprintf(field, sizeof field, "%s", renamed[k].lua);
                if (lua_getfield(L, -3, "table") == LUA_TTABLE) {
                    int kl = bw_lua_key_line(L, -1, field);
                    if (kl) line = kl;
                }
                lua_pop(L, 1);
            }
            char path[600];
            if (field[0]) snprintf(path, sizeof path, "%s.%s", lua_tostring(L, -2), field); /* the Lua name */
            else snprintf(path, sizeof path, "%s%s", lua_tostring(L, -2), rest);
            rd_error(r, line, path, "%s", message);
            lua_pop(L, 3);
            return;
        }
        lua_pop(L, 1);
        char *cut = strrchr(prefix, '.');
        char *br = strrchr(prefix, '[');
        if (br && (!cut || br > cut)) cut = br;
        if (!cut) break;
        *cut = '\0';
    }
    rd_error(r, 0, where[0] ? where : "graph", "%s", message);
}

/* A message naming another transition by its C index, "transitions[0]",
 * with the Lua one (1-based) that the paths use. */
static void lua_indices(const char *message, char *out, size_t size)
{
    static const char key[] = "transitions[";
    size_t n = 0;
    const char *p = message;
    while (*p && n + 1 < size) {
        char *end = NULL;
        if (strncmp(p, key, sizeof key - 1) == 0 && isdigit((unsigned char)p[sizeof key - 1])) {
            long k = strtol(p + sizeof key - 1, &end, 10);
            if (*end == ']') {
                int w = snprintf(out + n, size - n, "%s%ld]", key, k + 1);
                n = w > 0 && (size_t)w < size - n ? n + (size_t)w : size - 1;
                p = end + 1;
                continue;
            }
        }
        out[n++] = *p++;
    }
    out[n] = '\0';
}

static void rd_lint_item(void *user, const bw_graph_lint_item *it)
{
    reader *r = (reader *)user;
    /* What nothing reads, in a file the reader refused parts of, may be
     * read by a refused part (a blend node with a bad field drops out with
     * the parameter it names): those findings wait for a file that reads
     * whole, and the reader's problems come first. */
    const bool unused = it->code == BW_GRAPH_LINT_UNUSED_PARAM || it->code == BW_GRAPH_LINT_UNUSED_TRIGGER ||
                        it->code == BW_GRAPH_LINT_UNUSED_MASK;
    if (unused && r->read_problems > 0) return;
    r->severity = it->severity == BW_GRAPH_LINT_ERROR ? "error" : "warning";
    char message[768];
    lua_indices(it->message && it->message[0] ? it->message : bw_result_name(it->result), message, sizeof message);
    rd_compile_error(r, it->where ? it->where : "", message);
}

/* A graph that will not be kept lets go of its predicates. */
static void drop_preds(lua_State *L, graph_obj *g)
{
    graph_pred *p = g->preds;
    g->preds = NULL;
    for (; p; p = p->next) luaL_unref(L, LUA_REGISTRYINDEX, p->cb.ref), p->cb.ref = LUA_NOREF;
}

/* The reader; lint: bw_graph_lint (with `rig`) in place of compile, and
 * the list of findings pushed (returns the error count). */
static int build(lua_State *L, int desc_idx, const char *file, int default_line, const bw_clip *const *clips,
                 int clip_count, bool lint, const bw_rig *rig)
{
    desc_idx = lua_absindex(L, desc_idx);
    const int base = lua_gettop(L);
    luaL_checkstack(L, 40, "graph");
    reader r;
    memset(&r, 0, sizeof r);
    r.L = L;
    r.file = file;
    r.default_line = default_line;
    r.clips = clips;
    r.clip_count = clip_count;
    r.severity = lint ? "error" : NULL;
    /* the object exists (empty) before what it will own */
    graph_obj *g = (graph_obj *)bw_lua_new_object(L, sizeof *g, GRAPH_UV_COUNT, BW_LUA_GRAPH, graph_destroy);
    const int obj = lua_gettop(L);
    g->tables_ref = LUA_NOREF;
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
    g->main = lua_tothread(L, -1);
    lua_pop(L, 1);
    g->sb = bw_sandbox_from_state(L);
    r.g = g;
    lua_newtable(L);
    r.errors = lua_gettop(L);
    lua_newtable(L);
    r.where = lua_gettop(L);
    lua_newtable(L);
    r.bad = lua_gettop(L);
    lua_newtable(L);
    r.anchor = lua_gettop(L);
    lua_pushvalue(L, r.anchor);
    lua_setiuservalue(L, obj, GRAPH_UV_ANCHOR); /* predicates and strings live with the graph */
    lua_newtable(L);
    r.names = lua_gettop(L);
    lua_createtable(L, 0, clip_count);
    r.clip_names = lua_gettop(L);
    for (int i = clip_count - 1; i >= 0; i--) { /* the first of equal names written last */
        lua_pushinteger(L, i);
        lua_setfield(L, r.clip_names, bw_clip_name(clips[i]));
    }

    bw_graph_desc desc;
    memset(&desc, 0, sizeof desc);
    int line = line_or(L, desc_idx, default_line);
    bool nul = false;
    if (lua_type(L, desc_idx) != LUA_TTABLE) {
        rd_error(&r, line, "graph", "a graph is a table { params =, masks =, layers = }, not a %s", luaL_typename(L, desc_idx));
    } else if (!rd_no_nul(&r, desc_idx)) {
        nul = true; /* those problems alone: what C would read is not what the file wrote */
    } else {
        rd_fields(&r, desc_idx, graph_fields, line, "graph");
        desc.params = read_params(&r, desc_idx, &desc.param_count);
        desc.masks = read_masks(&r, desc_idx, &desc.mask_count);
        desc.layers = read_layers(&r, desc_idx, &desc.layer_count);
    }
    desc.clips = clips;
    desc.clip_count = clip_count;
    desc.allocator = bw_lua_allocator_value(L);
    if (lint) {
        r.read_problems = r.error_count;
        bw_result lr = nul ? BW_OK : bw_graph_lint(&desc, rig, rd_lint_item, &r);
        if (lr == BW_ERR_OUT_OF_MEMORY) return luaL_error(L, "graph: not enough memory");
        drop_preds(L, g);
        lua_pushvalue(L, r.errors);
        lua_replace(L, base + 1);
        lua_settop(L, base + 1);
        return r.lint_errors;
    }
    bw_error *errs = (bw_error *)rd_alloc(&r, sizeof(bw_error) * MAX_ERRORS);
    bw_graph_errors list = {errs, MAX_ERRORS, 0};
    bw_graph *graph = NULL;
    bw_result res = nul ? BW_ERR_INVALID_ARGUMENT : bw_graph_compile(&desc, &graph, &list);
    if (res == BW_ERR_OUT_OF_MEMORY) return luaL_error(L, "graph: not enough memory");
    for (int i = 0; i < list.count && i < MAX_ERRORS; i++)
        rd_compile_error(&r, errs[i].where, errs[i].message[0] ? errs[i].message : bw_result_name(errs[i].code));
    if (list.count > MAX_ERRORS) rd_error(&r, 0, "graph", "and %d more problems", list.count - MAX_ERRORS);
    if (res == BW_OK && r.error_count > 0) {
        bw_graph_destroy(graph);
        graph = NULL;
        res = BW_ERR_INVALID_ARGUMENT;
    }
    if (res != BW_OK) {
        if (r.error_count == 0) rd_error(&r, line, "graph", "%s", bw_result_name(res));
        drop_preds(L, g);
        lua_pushnil(L);
        lua_pushvalue(L, r.errors);
        lua_replace(L, base + 2);
        lua_replace(L, base + 1);
        lua_settop(L, base + 2);
        return 2;
    }
    g->graph = graph;
    /* predicate tables: values (name -> value), names, the read-only view */
    lua_createtable(L, TABLE_LAST, 0);
    lua_createtable(L, 0, desc.param_count);
    for (int i = 0; i < desc.param_count; i++) {
        lua_rawgeti(L, r.names, i + 1);
        lua_pushnumber(L, 0);
        lua_rawset(L, -3);
    }
    /* the view: a userdata, so rawset cannot write into it */
    bw_lua_push_readonly_view(L, -1, true, "graph parameters are read-only in a predicate");
    lua_rawseti(L, -3, TABLE_VIEW);
    lua_rawseti(L, -2, TABLE_VALUES);
    lua_pushvalue(L, r.names);
    lua_rawseti(L, -2, TABLE_NAMES);
    lua_createtable(L, 0, desc.param_count); /* name -> 0-based index, for cursor:set(name) */
    for (int i = 0; i < desc.param_count; i++) {
        lua_rawgeti(L, r.names, i + 1);
        lua_pushinteger(L, i);
        lua_rawset(L, -3);
    }
    lua_rawseti(L, -2, TABLE_INDEX);
    g->last = (float *)lua_newuserdatauv(L, sizeof(float) * (size_t)(desc.param_count > 0 ? desc.param_count : 1), 0);
    g->filled = false;
    lua_rawseti(L, -2, TABLE_LAST);
    g->tables_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushvalue(L, obj);
    lua_replace(L, base + 1);
    lua_settop(L, base + 1);
    return 1;
}

int bw_lua_graph_build(lua_State *L, int desc_idx, const char *file, int default_line, const bw_clip *const *clips,
                       int clip_count)
{
    return build(L, desc_idx, file, default_line, clips, clip_count, false, NULL);
}

int bw_lua_graph_load_file(lua_State *L, const char *what, const char *name, const char *display,
                           const bw_clip *const *clips, int clip_count)
{
    bw_lua_run_source_file(L, what, name, display);
    int n = bw_lua_graph_build(L, -1, display ? display : name, 0, clips, clip_count);
    lua_remove(L, -1 - n); /* the table */
    return n;
}

int bw_lua_graph_lint(lua_State *L, int desc_idx, const char *file, int default_line, const bw_clip *const *clips,
                      int clip_count, const bw_rig *rig)
{
    return build(L, desc_idx, file, default_line, clips, clip_count, true, rig);
}

/* ---- blendwerk.graph ---- */

static const char *const graph_option_fields[] = {"rig", "clips", NULL};

/* Run the graph file at `path` protected: pushes its result, or returns
 * false with the message pushed. A sandbox stop stays a stop. */
static int run_file_protected(lua_State *L)
{
    bw_lua_run_source_file(L, "blendwerk.graph", lua_tostring(L, 1), NULL);
    return 1;
}

/* blendwerk.graph(desc_or_path [, {rig = Rig, clips = {Clip, ...}}]) -> Graph | nil, errors */
static int l_graph(lua_State *L)
{
    int t1 = lua_type(L, 1);
    if (t1 != LUA_TTABLE && t1 != LUA_TSTRING) luaL_typeerror(L, 1, "graph table or file name");
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        char why[256];
        if (!bw_lua_check_fields_hint(L, 2, graph_option_fields, why, sizeof why))
            return luaL_argerror(L, 2, lua_pushstring(L, why));
    }
    lua_settop(L, 2);
    /* the clips: a list of Clip handles, each counted as a use by the graph */
    int clip_count = 0;
    if (lua_istable(L, 2) && bw_lua_raw_field(L, 2, "clips") != LUA_TNIL) {
        if (!lua_istable(L, -1)) luaL_argerror(L, 2, "clips must be a list of blendwerk.Clip");
        clip_count = (int)lua_rawlen(L, -1);
    } else {
        lua_pop(L, 1);
        lua_newtable(L);
    }
    const int clips_idx = 3;
    const bw_rig *rig = NULL;
    if (lua_istable(L, 2) && bw_lua_raw_field(L, 2, "rig") != LUA_TNIL) rig = bw_lua_check_rig(L, 4)->rig;
    else if (lua_istable(L, 2)) lua_pop(L, 1), lua_pushnil(L);
    else lua_pushnil(L);
    const int rig_idx = 4;
    const bw_clip **clips = (const bw_clip **)lua_newuserdatauv(L, sizeof *clips * (size_t)(clip_count + 1), 0);
    bw_lua_clip **clip_objs = (bw_lua_clip **)lua_newuserdatauv(L, sizeof *clip_objs * (size_t)(clip_count + 1), 0);
    const int clip_objs_idx = lua_gettop(L);
    for (int i = 0; i < clip_count; i++) {
        lua_rawgeti(L, clips_idx, i + 1);
        bw_lua_clip *c = (bw_lua_clip *)bw_lua_test_object(L, -1, BW_LUA_CLIP);
        if (!c) luaL_argerror(L, 2, lua_pushfstring(L, "clips[%d] is not a blendwerk.Clip", i + 1));
        clips[i] = c->clip;
        clip_objs[i] = c;
        lua_pop(L, 1);
    }
    /* the description */
    char file[256];
    int default_line = 0;
    if (t1 == LUA_TSTRING) {
        snprintf(file, sizeof file, "%s", lua_tostring(L, 1));
        lua_pushcfunction(L, run_file_protected);
        lua_pushvalue(L, 1);
        int status = lua_pcall(L, 1, 1, 0);
        bw_sandbox *sb = bw_sandbox_from_state(L);
        if (sb) bw_sandbox_after_protected(L, status);
        if (status == LUA_ERRMEM) return lua_error(L);
        if (status != LUA_OK) {
            lua_pushnil(L);
            lua_createtable(L, 1, 0);
            lua_pushvalue(L, -3);
            lua_rawseti(L, -2, 1);
            return 2;
        }
    } else {
        lua_Debug ar;
        snprintf(file, sizeof file, "?");
        if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "Sl", &ar)) {
            snprintf(file, sizeof file, "%s", ar.short_src);
            default_line = ar.currentline;
        }
        lua_pushvalue(L, 1);
    }
    const int desc_idx = lua_gettop(L);
    if (bw_lua_graph_build(L, desc_idx, file, default_line, clips, clip_count) != 1) return 2;
    graph_obj *g = (graph_obj *)lua_touserdata(L, -1);
    const int obj = lua_gettop(L);
    /* keep the clips (and the rig) for as long as the graph lives */
    lua_pushvalue(L, clips_idx);
    lua_setiuservalue(L, obj, GRAPH_UV_CLIPS);
    lua_pushvalue(L, clip_objs_idx);
    lua_setiuservalue(L, obj, GRAPH_UV_BINDINGS); /* the clip list; the bindings replace it when bound */
    for (int i = 0; i < clip_count; i++) clip_objs[i]->hdr.users++;
    g->clip_objs = clip_objs;
    g->clip_count = clip_count;
    if (rig) {
        const bw_binding **bindings = (const bw_binding **)lua_newuserdatauv(L, sizeof *bindings * (size_t)(clip_count + 1), 1);
        lua_pushvalue(L, clip_objs_idx);
        lua_setiuservalue(L, -2, 1);
        for (int i = 0; i < clip_count; i++) {
            lua_rawgeti(L, clips_idx, i + 1);
            bindings[i] = bw_lua_cached_binding(L, lua_gettop(L), rig_idx);
            if (!bindings[i]) {
                /* nil, message: the graph is dropped (collected) */
                lua_pushnil(L);
                lua_createtable(L, 1, 0);
                lua_pushvalue(L, -3);
                lua_rawseti(L, -2, 1);
                return 2;
            }
            lua_pop(L, 1);
        }
        lua_setiuservalue(L, obj, GRAPH_UV_BINDINGS);
        lua_pushvalue(L, rig_idx);
        lua_setiuservalue(L, obj, GRAPH_UV_RIG);
        bw_lua_object_use(&g->hdr, &((bw_lua_rig *)lua_touserdata(L, rig_idx))->hdr);
        g->rig = rig;
        lua_getiuservalue(L, obj, GRAPH_UV_BINDINGS);
        g->bindings = (const bw_binding **)lua_touserdata(L, -1);
        lua_pop(L, 1);
    }
    lua_pushvalue(L, obj);
    return 1;
}

/* A parameter argument: a 1-based index or a name. Returns the 0-based index. */
static int check_param(lua_State *L, const bw_graph *graph, int arg)
{
    if (lua_type(L, arg) == LUA_TNUMBER) {
        lua_Integer i = luaL_checkinteger(L, arg);
        if (i < 1 || i > bw_graph_param_count(graph))
            luaL_argerror(L, arg, lua_pushfstring(L, "parameter index %I out of range 1..%d", (LUAI_UACINT)i, bw_graph_param_count(graph)));
        return (int)i - 1;
    }
    const char *name = luaL_checkstring(L, arg);
    int p = bw_graph_find_param(graph, name);
    if (p < 0) luaL_argerror(L, arg, lua_pushfstring(L, "unknown parameter '%s'", name));
    return p;
}

/* check_param for a cursor: a name is found through the graph's name ->
 * index table (a hash lookup, no string compares per call). */
static int check_cursor_param(lua_State *L, const graph_obj *g, int arg)
{
    if (lua_type(L, arg) != LUA_TSTRING || g->tables_ref == LUA_NOREF) return check_param(L, g->graph, arg);
    lua_rawgeti(L, LUA_REGISTRYINDEX, g->tables_ref);
    lua_rawgeti(L, -1, TABLE_INDEX);
    lua_pushvalue(L, arg);
    int found = lua_rawget(L, -2) == LUA_TNUMBER;
    int p = found ? (int)lua_tointeger(L, -1) : -1;
    lua_pop(L, 3);
    return found ? p : check_param(L, g->graph, arg);
}

int bw_lua_check_layer(lua_State *L, const bw_graph *graph, int arg)
{
    if (lua_isnoneornil(L, arg)) return 0;
    if (lua_type(L, arg) == LUA_TNUMBER) {
        lua_Integer i = luaL_checkinteger(L, arg);
        if (i < 1 || i > bw_graph_layer_count(graph))
            luaL_argerror(L, arg, lua_pushfstring(L, "layer index %I out of range 1..%d", (LUAI_UACINT)i, bw_graph_layer_count(graph)));
        return (int)i - 1;
    }
    const char *name = luaL_checkstring(L, arg);
    int l = bw_graph_find_layer(graph, name);
    if (l < 0) luaL_argerror(L, arg, lua_pushfstring(L, "unknown layer '%s'", name));
    return l;
}

static int check_state(lua_State *L, const bw_graph *graph, int layer, int arg)
{
    if (lua_type(L, arg) == LUA_TNUMBER) {
        lua_Integer i = luaL_checkinteger(L, arg);
        if (i < 1 || i > bw_graph_state_count(graph, layer))
            luaL_argerror(L, arg, lua_pushfstring(L, "state index %I out of range", (LUAI_UACINT)i));
        return (int)i - 1;
    }
    const char *name = luaL_checkstring(L, arg);
    int s = bw_graph_find_state(graph, layer, name);
    if (s < 0)
        luaL_argerror(L, arg, lua_pushfstring(L, "unknown state '%s' in layer '%s'", name, bw_graph_layer_name(graph, layer)));
    return s;
}

/* The 1-based index of the parameter named at arg, or nil. */
static int push_param_index(lua_State *L, const bw_graph *graph, int arg)
{
    int p = bw_graph_find_param(graph, luaL_checkstring(L, arg));
    if (p < 0) lua_pushnil(L);
    else lua_pushinteger(L, p + 1);
    return 1;
}

static int l_graph_param_index(lua_State *L) { return push_param_index(L, check_graph(L, 1)->graph, 2); }

/* The names of the graph's params, layers, or a layer's states (layer >= 0), in index order. */
static int push_names(lua_State *L, const bw_graph *graph, int what, int layer)
{
    int n = what == 0 ? bw_graph_param_count(graph) : what == 1 ? bw_graph_layer_count(graph) : bw_graph_state_count(graph, layer);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushstring(L, what == 0   ? bw_graph_param_name(graph, i)
                          : what == 1 ? bw_graph_layer_name(graph, i)
                                      : bw_graph_state_name(graph, layer, i));
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int l_graph_params(lua_State *L) { return push_names(L, check_graph(L, 1)->graph, 0, 0); }
static int l_graph_layers(lua_State *L) { return push_names(L, check_graph(L, 1)->graph, 1, 0); }

static int l_graph_states(lua_State *L)
{
    graph_obj *g = check_graph(L, 1);
    return push_names(L, g->graph, 2, bw_lua_check_layer(L, g->graph, 2));
}

/* __tostring of a live Graph; close() (quiet on a closed Graph), __gc and
 * __close are the shared ones */
static int describe_graph(lua_State *L)
{
    const graph_obj *g = (const graph_obj *)lua_touserdata(L, 1);
    if (!g->graph) return 0;
    lua_pushfstring(L, "%s (%d layers, %d params)", BW_LUA_GRAPH, bw_graph_layer_count(g->graph),
                    bw_graph_param_count(g->graph));
    return 1;
}

static const bw_lua_lifetime graph_lifetime = {
    .type_name = BW_LUA_GRAPH, .describe = describe_graph, .close_closed_quietly = true, .no_address = true};

/* ---- cursors ---- */

/* Event callbacks a cursor can hold (cursor:on). */
enum { ON_ENTER, ON_EXIT, ON_MARKER, ON_EVENT, ON_COUNT };
static const char *const on_kinds[] = {"enter", "exit", "marker", "event", NULL};

typedef struct cursor_obj {
    bw_lua_object hdr; /* deps: the Graph */
    bw_graph_cursor *cursor;
    graph_obj *g;
    lua_State *main;                  /* the state's main thread (releases the callbacks) */
    bw_sandbox_callback on[ON_COUNT]; /* ref LUA_NOREF when none */
    bool updating;                    /* inside update: its predicates, then its event delivery */
    bool delivering;                  /* inside update's event delivery (the callbacks of on) */
} cursor_obj;

/* EVENTS: the last update's list; POOL: event tables reused by later
 * updates; NAMES: graph-owned name pointer (light userdata) -> string, so
 * a name becomes a Lua string once. */
enum { CURSOR_UV_GRAPH = 1, CURSOR_UV_POSE = 2, CURSOR_UV_EVENTS = 3, CURSOR_UV_POOL = 4, CURSOR_UV_NAMES = 5, CURSOR_UV_COUNT = 5 };

static void cursor_destroy(bw_lua_object *self)
{
    cursor_obj *c = (cursor_obj *)self;
    bw_graph_cursor_destroy(c->cursor);
    c->cursor = NULL;
    for (int k = 0; k < ON_COUNT; k++) {
        if (c->on[k].ref != LUA_NOREF && c->on[k].ref != LUA_REFNIL && c->main)
            luaL_unref(c->main, LUA_REGISTRYINDEX, c->on[k].ref);
        c->on[k].ref = LUA_NOREF;
    }
}

static cursor_obj *check_cursor(lua_State *L, int arg) { return (cursor_obj *)bw_lua_check_object(L, arg, BW_LUA_CURSOR); }

/* The graph's users, weak: graph:refresh_clips checks and rebinds whoever
 * is still open. A cursor's value is true, another host's its
 * bw_lua_graph_user (a light userdata). Pops that value (on top) and keys
 * the object at uidx by it in the Graph at gidx's list. */
static void add_user(lua_State *L, int gidx, int uidx)
{
    if (lua_getiuservalue(L, gidx, GRAPH_UV_CURSORS) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_createtable(L, 0, 1);
        lua_pushliteral(L, "k");
        lua_setfield(L, -2, "__mode");
        lua_setmetatable(L, -2);
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, gidx, GRAPH_UV_CURSORS);
    }
    lua_pushvalue(L, uidx);
    lua_pushvalue(L, -3);
    lua_rawset(L, -3);
    lua_pop(L, 2);
}

/* graph:cursor() -> Cursor */
static int l_graph_cursor(lua_State *L)
{
    graph_obj *g = check_graph(L, 1);
    if (!g->rig) return luaL_error(L, "graph:cursor(): the graph has no rig (blendwerk.graph(desc, {rig = ..., clips = ...}))");
    cursor_obj *c = (cursor_obj *)bw_lua_new_object(L, sizeof *c, CURSOR_UV_COUNT, BW_LUA_CURSOR, cursor_destroy);
    const int obj = lua_gettop(L);
    c->g = g;
    c->main = g->main;
    for (int k = 0; k < ON_COUNT; k++) c->on[k].ref = LUA_NOREF;
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, obj, CURSOR_UV_GRAPH);
    bw_lua_object_use(&c->hdr, &g->hdr);
    bw_graph_cursor_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.rig = g->rig;
    desc.bindings = g->bindings;
    desc.binding_count = g->clip_count;
    desc.allocator = bw_lua_allocator_value(L);
    bw_error errs[8];
    bw_graph_errors list = {errs, 8, 0};
    bw_result res = bw_graph_cursor_create(g->graph, &desc, &c->cursor, &list);
    if (res == BW_ERR_OUT_OF_MEMORY) return luaL_error(L, "graph:cursor(): not enough memory");
    if (res != BW_OK) {
        lua_pushnil(L);
        bw_lua_push_error(L, "graph:cursor()", res, list.count > 0 ? &errs[0] : NULL);
        return 2;
    }
    lua_getiuservalue(L, 1, GRAPH_UV_RIG);
    bw_lua_push_pose(L, lua_gettop(L));
    lua_setiuservalue(L, obj, CURSOR_UV_POSE);
    lua_pop(L, 1);
    lua_newtable(L);
    lua_setiuservalue(L, obj, CURSOR_UV_EVENTS);
    lua_newtable(L);
    lua_setiuservalue(L, obj, CURSOR_UV_POOL);
    lua_newtable(L);
    lua_setiuservalue(L, obj, CURSOR_UV_NAMES);
    lua_pushboolean(L, 1);
    add_user(L, 1, obj);
    lua_pushvalue(L, obj);
    return 1;
}

void bw_lua_graph_add_user(lua_State *L, int gidx, int uidx, const bw_lua_graph_user *user)
{
    gidx = lua_absindex(L, gidx);
    uidx = lua_absindex(L, uidx);
    (void)bw_lua_graph_check(L, gidx);
    lua_pushlightuserdata(L, (void *)user);
    add_user(L, gidx, uidx);
}

/* nil, { "clips[i]: message", ... } (1-based clip indices) from a core report. */
static int push_refresh_errors(lua_State *L, const bw_error *errs, int count, int stored)
{
    lua_pushnil(L);
    lua_createtable(L, stored, 0);
    for (int i = 0; i < stored; i++) {
        int k = -1;
        if (sscanf(errs[i].where, "clips[%d]", &k) == 1) lua_pushfstring(L, "clips[%d]: %s", k + 1, errs[i].message);
        else if (errs[i].where[0]) lua_pushfstring(L, "%s: %s", errs[i].where, errs[i].message);
        else lua_pushstring(L, errs[i].message);
        lua_rawseti(L, -2, i + 1);
    }
    if (count > stored) {
        lua_pushfstring(L, "(%d more problems)", count - stored);
        lua_rawseti(L, -2, stored + 1);
    }
    return 2;
}

/* The other hosts among the graph's users at `list` (animators):
 * bw_lua_graph_user.refresh each with `apply`. A check stops at the first
 * that refuses (its code, its problems in errs: each refresh starts the
 * list afresh); taking goes on past a failure (out of memory) so the
 * others still get the clips, and returns the first failure's code. */
static bw_result refresh_users(lua_State *L, int list, const graph_obj *g, const bw_clip *const *clips,
                               bw_lua_clip *const *objs, int clip_list, bool apply, bw_graph_errors *errs)
{
    bw_result first = BW_OK;
    lua_pushnil(L);
    while (lua_next(L, list)) {
        const bw_lua_graph_user *u = lua_islightuserdata(L, -1) ? (const bw_lua_graph_user *)lua_touserdata(L, -1) : NULL;
        lua_pop(L, 1);
        bw_result r =
            u ? u->refresh(L, lua_gettop(L), g->graph, clips, objs, clip_list, g->clip_count, apply, errs) : BW_OK;
        if (first == BW_OK) first = r;
        if (r != BW_OK && !apply) {
            lua_pop(L, 1);
            break;
        }
    }
    return first;
}

/* graph:refresh_clips(clips) -> true | nil, errors (graph.h
 * bw_graph_refresh_clips): the same number of clips, each keeping its
 * loop flag and marker names; new lengths and marker times. All or
 * nothing: the new bindings (a bound graph) are made first, every animator
 * of the graph checked (bw_animator_refresh_clips_validate), then the
 * graph refreshed, then every animator given the new clips and every open
 * cursor of the graph rebound at once, so nothing plays a clip the graph
 * no longer holds; the old clips are let go last. Raises from inside an
 * update of one of the graph's cursors or animators. */
static int l_graph_refresh_clips(lua_State *L)
{
    graph_obj *g = check_graph(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    if (lua_getiuservalue(L, 1, GRAPH_UV_CURSORS) == LUA_TTABLE) {
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            lua_pop(L, 1);
            cursor_obj *c = (cursor_obj *)luaL_testudata(L, -1, BW_LUA_CURSOR);
            if (c && c->updating)
                return luaL_error(L, "graph:refresh_clips: called while a cursor of the graph updates");
            lua_pushvalue(L, -1);
            lua_rawget(L, -3);
            const bw_lua_graph_user *u = lua_islightuserdata(L, -1) ? (const bw_lua_graph_user *)lua_touserdata(L, -1) : NULL;
            lua_pop(L, 1);
            if (u && u->busy(L, lua_gettop(L), g->graph))
                return luaL_error(L, "graph:refresh_clips: called while an animator of the graph updates");
        }
    }
    lua_settop(L, 2);
    int n = (int)lua_rawlen(L, 2);
    if (n != g->clip_count)
        return luaL_argerror(L, 2, lua_pushfstring(L, "%d clips for a graph of %d (make a new graph)", n, g->clip_count));
    const bw_clip **clips = (const bw_clip **)lua_newuserdatauv(L, sizeof *clips * (size_t)(n + 1), 0); /* 3 */
    bw_lua_clip **objs = (bw_lua_clip **)lua_newuserdatauv(L, sizeof *objs * (size_t)(n + 1), 0);       /* 4 */
    lua_createtable(L, n, 0); /* 5: the graph's own copy of the list */
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, 2, i + 1);
        bw_lua_clip *c = (bw_lua_clip *)bw_lua_test_object(L, -1, BW_LUA_CLIP);
        if (!c) return luaL_argerror(L, 2, lua_pushfstring(L, "clips[%d] is not a blendwerk.Clip", i + 1));
        clips[i] = c->clip;
        objs[i] = c;
        lua_rawseti(L, 5, i + 1);
    }
    const bw_binding **bindings = NULL;
    if (g->rig) {
        bindings = (const bw_binding **)lua_newuserdatauv(L, sizeof *bindings * (size_t)(n + 1), 1); /* 6 */
        lua_pushvalue(L, 4);
        lua_setiuservalue(L, 6, 1);
        lua_getiuservalue(L, 1, GRAPH_UV_RIG); /* 7 */
        for (int i = 0; i < n; i++) {
            lua_rawgeti(L, 5, i + 1);
            bindings[i] = bw_lua_cached_binding(L, lua_gettop(L), 7);
            if (!bindings[i]) { /* nil, message */
                lua_createtable(L, 1, 0);
                lua_insert(L, -2);
                lua_rawseti(L, -2, 1);
                return 2;
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    bw_error errs[16];
    bw_graph_errors list = {errs, 16, 0};
    const int users = lua_getiuservalue(L, 1, GRAPH_UV_CURSORS) == LUA_TTABLE ? lua_gettop(L) : 0;
    if (users && refresh_users(L, users, g, clips, objs, 5, false, &list) != BW_OK)
        return push_refresh_errors(L, errs, list.count, list.count < 16 ? list.count : 16);
    bw_result res = bw_graph_refresh_clips(g->graph, clips, n, &list);
    if (res == BW_ERR_OUT_OF_MEMORY) return luaL_error(L, "graph:refresh_clips(): not enough memory");
    if (res != BW_OK) return push_refresh_errors(L, errs, list.count, list.count < 16 ? list.count : 16);
    /* the swap: the new clips used and kept, bindings in place, cursors rebound */
    for (int i = 0; i < n; i++) objs[i]->hdr.users++;
    bw_lua_clip **old = g->clip_objs;
    lua_getiuservalue(L, 1, GRAPH_UV_CLIPS);
    lua_getiuservalue(L, 1, GRAPH_UV_BINDINGS); /* the old lists stay on the stack until the end */
    lua_pushvalue(L, 5);
    lua_setiuservalue(L, 1, GRAPH_UV_CLIPS);
    lua_pushvalue(L, bindings ? 6 : 4);
    lua_setiuservalue(L, 1, GRAPH_UV_BINDINGS);
    g->clip_objs = objs;
    if (bindings) g->bindings = bindings;
    bw_result taken = BW_OK;
    if (users) {
        list.count = 0;
        taken = refresh_users(L, users, g, clips, objs, 5, true, &list); /* checked: only memory can fail */
        lua_pushnil(L);
        while (lua_next(L, users)) {
            lua_pop(L, 1);
            cursor_obj *c = (cursor_obj *)luaL_testudata(L, -1, BW_LUA_CURSOR);
            if (c && c->cursor && !c->hdr.destroyed)
                (void)bw_graph_cursor_rebind(c->cursor, g->bindings, g->clip_count, NULL); /* made for the rig: cannot fail */
        }
    }
    for (int i = 0; i < n; i++)
        if (old && old[i]) bw_lua_object_unuse(&old[i]->hdr);
    if (taken != BW_OK) return luaL_error(L, "graph:refresh_clips(): an animator of the graph: %s", bw_result_name(taken));
    lua_pushboolean(L, 1);
    return 1;
}

static const bw_graph *cursor_graph(cursor_obj *c) { return c->g->graph; }

static int l_cursor_set(lua_State *L)
{
    cursor_obj *c = check_cursor(L, 1);
    int p = check_cursor_param(L, c->g, 2);
    float v;
    if (lua_type(L, 3) == LUA_TBOOLEAN) v = lua_toboolean(L, 3) ? 1.0f : 0.0f;
    else v = bw_lua_check_float(L, 3);
    bw_result r = bw_graph_cursor_set_param(c->cursor, p, v);
    if (r == BW_ERR_INVALID_ARGUMENT)
        return luaL_argerror(L, 2, lua_pushfstring(L, "'%s' is a trigger: use fire / reset", bw_graph_param_name(cursor_graph(c), p)));
    return 0;
}

static int l_cursor_get(lua_State *L)
{
    cursor_obj *c = check_cursor(L, 1);
    int p = check_cursor_param(L, c->g, 2);
    bw_lua_push_param_value(L, cursor_graph(c), p, bw_graph_cursor_param(c->cursor, p));
    return 1;
}

static int trigger_call(lua_State *L, bool fire)
{
    cursor_obj *c = check_cursor(L, 1);
    int p = check_cursor_param(L, c->g, 2);
    bw_result r = fire ? bw_graph_cursor_fire(c->cursor, p) : bw_graph_cursor_reset_trigger(c->cursor, p);
    if (r != BW_OK)
        return luaL_argerror(L, 2, lua_pushfstring(L, "'%s' is not a trigger", bw_graph_param_name(cursor_graph(c), p)));
    return 0;
}

static int l_cursor_fire(lua_State *L) { return trigger_call(L, true); }
static int l_cursor_reset(lua_State *L) { return trigger_call(L, false); }

int bw_lua_graph_travel(lua_State *L, const bw_graph *graph, bw_graph_cursor *cursor, int state_arg)
{
    int layer = bw_lua_check_layer(L, graph, state_arg + 1);
    int state = check_state(L, graph, layer, state_arg);
    if (bw_graph_cursor_travel(cursor, layer, state) != BW_OK) {
        bw_graph_layer_status st;
        bw_graph_cursor_layer_status(cursor, layer, &st);
        lua_pushnil(L);
        lua_pushfstring(L, "no route from '%s' to '%s' in layer '%s'", bw_graph_state_name(graph, layer, st.state),
                        bw_graph_state_name(graph, layer, state), bw_graph_layer_name(graph, layer));
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

/* cursor:travel(state [, layer]) -> true | nil, message */
static int l_cursor_travel(lua_State *L)
{
    cursor_obj *c = check_cursor(L, 1);
    return bw_lua_graph_travel(L, cursor_graph(c), c->cursor, 2);
}

static int l_cursor_layer_weight(lua_State *L)
{
    cursor_obj *c = check_cursor(L, 1);
    int layer = bw_lua_check_layer(L, cursor_graph(c), 2);
    float w = bw_lua_check_float(L, 3), fade = bw_lua_opt_float(L, 4, 0.0f);
    if (w < 0) luaL_argerror(L, 3, "the weight must be >= 0");
    if (fade < 0) luaL_argerror(L, 4, "the fade must be >= 0");
    if (bw_graph_cursor_set_layer_weight(c->cursor, layer, w, fade) != BW_OK)
        return luaL_argerror(L, 2, "this layer's weight follows a parameter");
    return 0;
}

typedef struct drain_ctx {
    lua_State *L;
    cursor_obj *c;
    int list, pool, names; /* stack indices */
    int n;
    float dt;
} drain_ctx;

void bw_lua_graph_event_fields(const bw_graph *graph, const bw_graph_event *e, bw_lua_graph_event *out)
{
    static const char *const kinds[] = {"enter", "exit", "marker"};
    out->kind = kinds[e->kind];
    out->name = e->name;
    out->layer = bw_graph_layer_name(graph, e->layer);
    out->state = bw_graph_state_name(graph, e->layer, e->state);
    out->marker = e->kind == BW_GRAPH_EVENT_MARKER;
    out->clip = out->marker && e->clip >= 0 && e->clip < bw_graph_clip_count(graph) ? e->clip : -1;
    out->time = out->marker ? (double)e->time : 0.0;
}

/* Push the graph-owned string `s` as a Lua string made once per cursor. */
static void push_name(drain_ctx *d, const char *s)
{
    lua_State *L = d->L;
    if (lua_rawgetp(L, d->names, s) == LUA_TSTRING) return;
    lua_pop(L, 1);
    lua_pushstring(L, s);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, d->names, s);
}

/* Call cursor callback k with the n values on top (popped); a failure is
 * reported once (file:line) by the sandbox's runner and counted, and
 * delivery goes on. */
static void call_on(drain_ctx *d, int k, int n) { (void)bw_sandbox_callback_call_from(d->L, &d->c->on[k], n, 0); }

/* One event: into the list (a pooled table per slot, its fields
 * overwritten, so a warm cursor allocates nothing), then the callbacks. */
static void deliver_event(void *user, const bw_graph_event *e)
{
    drain_ctx *d = (drain_ctx *)user;
    lua_State *L = d->L;
    bw_lua_graph_event f;
    bw_lua_graph_event_fields(cursor_graph(d->c), e, &f);
    d->n++;
    if (lua_rawgeti(L, d->pool, d->n) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 0, 6);
        lua_pushvalue(L, -1);
        lua_rawseti(L, d->pool, d->n);
    }
    /* written raw: the table is the script's too (cursor:events()) and may
     * have been given a metatable; no script code runs mid-delivery */
    const int ev = lua_gettop(L);
    lua_pushliteral(L, "kind");
    push_name(d, f.kind);
    lua_rawset(L, ev);
    lua_pushliteral(L, "layer");
    push_name(d, f.layer);
    lua_rawset(L, ev);
    lua_pushliteral(L, "state");
    push_name(d, f.state);
    lua_rawset(L, ev);
    bool marker = f.marker;
    lua_pushliteral(L, "name");
    if (marker) push_name(d, f.name);
    else lua_pushnil(L);
    lua_rawset(L, ev);
    lua_pushliteral(L, "time");
    if (marker) lua_pushnumber(L, (lua_Number)f.time);
    else lua_pushnil(L);
    lua_rawset(L, ev);
    lua_pushliteral(L, "clip");
    if (f.clip >= 0) lua_pushinteger(L, f.clip + 1); /* a marker's clip, checked */
    else lua_pushnil(L);
    lua_rawset(L, ev);
    lua_rawseti(L, d->list, d->n);
    cursor_obj *c = d->c;
    if (c->hdr.closed) return; /* a callback closed the cursor: no more calls */
    int k = e->kind == BW_GRAPH_EVENT_ENTER ? ON_ENTER : e->kind == BW_GRAPH_EVENT_EXIT ? ON_EXIT : ON_MARKER;
    if (c->on[k].ref != LUA_NOREF) {
        /* enter / exit: (state, layer); marker: (name, time, state, layer) */
        if (marker) {
            push_name(d, f.name);
            lua_pushnumber(L, (lua_Number)f.time);
        }
        push_name(d, f.state);
        push_name(d, f.layer);
        call_on(d, k, marker ? 4 : 2);
    }
    if (c->on[ON_EVENT].ref != LUA_NOREF) {
        lua_rawgeti(L, d->list, d->n); /* the event's table: valid until the next update */
        call_on(d, ON_EVENT, 1);
    }
}

/* Update, evaluate and deliver, protected so that a raised error (memory)
 * cannot leave the cursor marked as updating: (cursor, pose, list,
 * pool, names, drain_ctx light userdata). */
static int update_protected(lua_State *L)
{
    drain_ctx *d = (drain_ctx *)lua_touserdata(L, 6);
    cursor_obj *c = d->c;
    bw_lua_pose *pose = (bw_lua_pose *)lua_touserdata(L, 2);
    d->L = L;
    d->list = 3;
    d->pool = 4;
    d->names = 5;
    bw_graph_cursor_update(c->cursor, d->dt);
    bw_graph_cursor_evaluate(c->cursor, NULL, &pose->pose);
    int before = (int)lua_rawlen(L, d->list);
    c->delivering = true; /* cleared by l_cursor_update, an error included */
    bw_graph_cursor_drain(c->cursor, deliver_event, d);
    for (int i = before; i > d->n; i--) { /* the list holds this update's events only */
        lua_pushnil(L);
        lua_rawseti(L, d->list, i);
    }
    return 0;
}

/* cursor:update(dt) -> Pose (the cursor's own; the same handle every call) */
static int l_cursor_update(lua_State *L)
{
    cursor_obj *c = check_cursor(L, 1);
    float dt = (float)luaL_checknumber(L, 2);
    if (c->updating)
        return luaL_error(L, c->delivering ? "cursor:update: called from the cursor's own event callback"
                                           : "cursor:update: called from a graph predicate during the cursor's own update");
    luaL_checkstack(L, 24, "cursor:update");
    lua_getiuservalue(L, 1, CURSOR_UV_POSE);
    bw_lua_pose *pose = (bw_lua_pose *)bw_lua_test_object(L, -1, BW_LUA_POSE);
    if (!pose) return luaL_error(L, "cursor:update: the cursor's pose was closed");
    const int pose_idx = lua_gettop(L);
    lua_State *saved = bw_lua_graph_use_thread(&c->g->hdr, L);
    drain_ctx d = {L, c, 0, 0, 0, 0, dt};
    lua_pushcfunction(L, update_protected);
    lua_pushvalue(L, 1);
    lua_pushlightuserdata(L, pose);
    lua_getiuservalue(L, 1, CURSOR_UV_EVENTS);
    lua_getiuservalue(L, 1, CURSOR_UV_POOL);
    lua_getiuservalue(L, 1, CURSOR_UV_NAMES);
    lua_pushlightuserdata(L, &d);
    c->updating = true;
    /* a use of its own for the update: a callback that closes the cursor
     * (cursor:close() in a predicate) frees it only once the update is over */
    c->hdr.users++;
    int status = lua_pcall(L, 6, 0, 0);
    c->updating = c->delivering = false;
    bw_lua_graph_use_thread(&c->g->hdr, saved);
    bw_lua_object_unuse(&c->hdr);
    if (status != LUA_OK) return lua_error(L);
    lua_settop(L, pose_idx);
    return 1;
}

/* cursor:on(kind, fn | nil): kind "enter" | "exit" (fn(state, layer)),
 * "marker" (fn(name, time, state, layer)) or "event" (fn(event), the
 * table cursor:events() lists). Called during update, after evaluation,
 * in event order; at most one function per kind (nil removes it). In a
 * sandbox each call has the callback limits; a failing call is reported
 * once (FILE:LINE: message) and counted, and the update goes on. */
static int l_cursor_on(lua_State *L)
{
    cursor_obj *c = check_cursor(L, 1);
    int k = luaL_checkoption(L, 2, NULL, on_kinds);
    if (!lua_isnil(L, 3)) luaL_checktype(L, 3, LUA_TFUNCTION);
    if (c->on[k].ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, c->on[k].ref);
    memset(&c->on[k], 0, sizeof c->on[k]);
    c->on[k].ref = LUA_NOREF;
    if (lua_isnil(L, 3)) return 0;
    lua_pushvalue(L, 3);
    c->on[k].ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

/* cursor:callback_errors(kind) -> failures, first message | nil */
static int l_cursor_callback_errors(lua_State *L)
{
    cursor_obj *c = check_cursor(L, 1);
    int k = luaL_checkoption(L, 2, NULL, on_kinds);
    lua_pushinteger(L, c->on[k].failures);
    if (c->on[k].failures > 0 && c->on[k].error[0]) lua_pushstring(L, c->on[k].error);
    else lua_pushnil(L);
    return 2;
}

static int l_cursor_pose(lua_State *L)
{
    check_cursor(L, 1);
    lua_getiuservalue(L, 1, CURSOR_UV_POSE);
    return 1;
}

static int l_cursor_events(lua_State *L)
{
    check_cursor(L, 1);
    lua_getiuservalue(L, 1, CURSOR_UV_EVENTS);
    return 1;
}

static int l_cursor_state(lua_State *L)
{
    cursor_obj *c = check_cursor(L, 1);
    int layer = bw_lua_check_layer(L, cursor_graph(c), 2);
    bw_graph_layer_status st;
    bw_graph_cursor_layer_status(c->cursor, layer, &st);
    lua_pushstring(L, bw_graph_state_name(cursor_graph(c), layer, st.state));
    return 1;
}


void bw_lua_push_layer_status(lua_State *L, const bw_graph *graph, const bw_graph_cursor *cursor, int layer)
{
    bw_graph_layer_status st;
    bw_graph_cursor_layer_status(cursor, layer, &st);
    lua_createtable(L, 0, 6);
    lua_pushstring(L, bw_graph_state_name(graph, layer, st.state));
    lua_setfield(L, -2, "state");
    bw_lua_set_number(L, "progress", st.progress);
    bw_lua_set_number(L, "normalized", st.normalized);
    bw_lua_set_number(L, "weight", st.weight);
    lua_pushinteger(L, bw_graph_cursor_travel_pending(cursor, layer));
    lua_setfield(L, -2, "travel_pending");
    if (st.transition.active) {
        const bw_graph_transition_status *t = &st.transition;
        lua_createtable(L, 0, 8);
        if (t->from >= 0) lua_pushstring(L, bw_graph_state_name(graph, layer, t->from));
        else lua_pushnil(L);
        lua_setfield(L, -2, "from");
        lua_pushstring(L, bw_graph_state_name(graph, layer, t->to));
        lua_setfield(L, -2, "to");
        bw_lua_set_number(L, "elapsed", t->elapsed);
        bw_lua_set_number(L, "duration", t->duration);
        bw_lua_set_number(L, "weight", t->weight);
        lua_pushstring(L, t->mode == BW_GRAPH_FREEZE ? "freeze" : "live");
        lua_setfield(L, -2, "mode");
        lua_pushboolean(L, t->frozen);
        lua_setfield(L, -2, "frozen");
        lua_pushinteger(L, t->transition + 1);
        lua_setfield(L, -2, "index");
        lua_setfield(L, -2, "transition");
    }
}

/* cursor:status(layer) -> { state, progress, normalized, weight, travel_pending, transition = {...} | nil } */
static int l_cursor_status(lua_State *L)
{
    cursor_obj *c = check_cursor(L, 1);
    const bw_graph *graph = cursor_graph(c);
    bw_lua_push_layer_status(L, graph, c->cursor, bw_lua_check_layer(L, graph, 2));
    return 1;
}

static int l_cursor_param_index(lua_State *L) { return push_param_index(L, cursor_graph(check_cursor(L, 1)), 2); }

static int l_cursor_graph(lua_State *L)
{
    check_cursor(L, 1);
    lua_getiuservalue(L, 1, CURSOR_UV_GRAPH);
    return 1;
}

/* __tostring of a live Cursor; close() (quiet on a closed Cursor), __gc
 * and __close are the shared ones */
static int describe_cursor(lua_State *L)
{
    const cursor_obj *c = (const cursor_obj *)lua_touserdata(L, 1);
    if (!c->cursor) return 0;
    lua_pushstring(L, BW_LUA_CURSOR);
    return 1;
}

static const bw_lua_lifetime cursor_lifetime = {
    .type_name = BW_LUA_CURSOR, .describe = describe_cursor, .close_closed_quietly = true, .no_address = true};

static const luaL_Reg graph_methods[] = {
    {"cursor", l_graph_cursor}, {"param_index", l_graph_param_index}, {"params", l_graph_params},
    {"layers", l_graph_layers}, {"states", l_graph_states},
    {"refresh_clips", l_graph_refresh_clips},
    {NULL, NULL}};

static const luaL_Reg cursor_methods[] = {
    {"set", l_cursor_set},       {"get", l_cursor_get},         {"fire", l_cursor_fire},
    {"reset", l_cursor_reset},   {"travel", l_cursor_travel},   {"layer_weight", l_cursor_layer_weight},
    {"update", l_cursor_update}, {"pose", l_cursor_pose},       {"events", l_cursor_events},
    {"state", l_cursor_state},   {"status", l_cursor_status},   {"param_index", l_cursor_param_index},
    {"graph", l_cursor_graph},   {"on", l_cursor_on},
    {"callback_errors", l_cursor_callback_errors},                {NULL, NULL}};

void bw_lua_open_graph(lua_State *L)
{
    bw_lua_register_object_type(L, &graph_lifetime, graph_methods, NULL);
    bw_lua_register_object_type(L, &cursor_lifetime, cursor_methods, NULL);
    if (luaL_newmetatable(L, TMP_TREE)) {
        lua_pushcfunction(L, tmp_tree_gc);
        lua_setfield(L, -2, "__gc");
        lua_pushboolean(L, 0);
        lua_setfield(L, -2, "__metatable");
    }
    lua_pop(L, 1);
    lua_pushcfunction(L, l_graph);
    lua_setfield(L, -2, "graph");
}
