/* cli_graph.c - a graph file for a command-line subcommand (cli_graph.h). */
#include "cli_graph.h"

#include <ctype.h>
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendwerk/clip.h"
#include "blendwerk/text.h"
#include "cli_json.h"
#include "cli_load.h"
#include "lua_graph.h"
#include "lua_support.h"
#include "sandbox.h"

#define MAX_DEPTH 64

static void leaves(lua_State *L, int idx, int depth, void (*fn)(lua_State *L, void *user), void *user)
{
    if (depth > MAX_DEPTH || !lua_istable(L, idx)) return;
    idx = lua_absindex(L, idx);
    luaL_checkstack(L, 4, "blend tree");
    if (bw_lua_raw_field(L, idx, "clip") != LUA_TNIL) {
        lua_pop(L, 1);
        lua_pushvalue(L, idx);
        fn(L, user);
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    if (bw_lua_raw_field(L, idx, "children") == LUA_TTABLE) {
        const int ch = lua_gettop(L);
        for (int i = 1; i <= (int)lua_rawlen(L, ch); i++) {
            lua_rawgeti(L, ch, i);
            leaves(L, -1, depth + 1, fn, user);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
}

void bw_cli_blend_leaves(lua_State *L, int idx, void (*fn)(lua_State *L, void *user), void *user)
{
    leaves(L, idx, 1, fn, user);
}

/* ---- placeholder clips: one per distinct name the graph uses ---- */

typedef struct names {
    int set, list; /* stack: name -> true, names in first-use order */
} names;

static void add_name(lua_State *L, const names *n, int idx)
{
    if (lua_type(L, idx) != LUA_TSTRING) return;
    idx = lua_absindex(L, idx);
    lua_pushvalue(L, idx);
    if (lua_rawget(L, n->set) == LUA_TNIL) {
        lua_pushvalue(L, idx);
        lua_pushboolean(L, 1);
        lua_rawset(L, n->set);
        lua_pushvalue(L, idx);
        lua_rawseti(L, n->list, (lua_Integer)lua_rawlen(L, n->list) + 1);
    }
    lua_pop(L, 1);
}

static void add_leaf_name(lua_State *L, void *user)
{
    bw_lua_raw_field(L, -1, "clip");
    add_name(L, (const names *)user, -1);
    lua_pop(L, 1);
}

/* The clip names of the graph table at idx, pushed as a list. */
static void push_clip_names(lua_State *L, int idx)
{
    lua_newtable(L);
    lua_newtable(L);
    names n = {lua_gettop(L) - 1, lua_gettop(L)};
    if (lua_istable(L, idx) && bw_lua_raw_field(L, idx, "layers") == LUA_TTABLE) {
        const int layers = lua_gettop(L);
        for (int i = 1; i <= (int)lua_rawlen(L, layers); i++) {
            if (lua_rawgeti(L, layers, i) == LUA_TTABLE && bw_lua_raw_field(L, -1, "states") == LUA_TTABLE) {
                const int states = lua_gettop(L);
                lua_pushnil(L);
                while (lua_next(L, states)) {
                    if (lua_istable(L, -1)) {
                        bw_lua_raw_field(L, -1, "clip");
                        add_name(L, &n, -1);
                        lua_pop(L, 1);
                        bw_lua_raw_field(L, -1, "blend");
                        bw_cli_blend_leaves(L, -1, add_leaf_name, &n);
                        lua_pop(L, 1);
                        if (bw_lua_raw_field(L, -1, "reference") == LUA_TTABLE) add_leaf_name(L, &n);
                        lua_pop(L, 1);
                    }
                    lua_pop(L, 1);
                }
            }
            lua_settop(L, layers);
        }
    }
    lua_settop(L, n.list);
    lua_remove(L, n.set);
}

void bw_cli_print_list(lua_State *L, int idx, FILE *to, const char *prefix)
{
    idx = lua_absindex(L, idx);
    for (int i = 1; i <= (int)lua_rawlen(L, idx); i++) {
        lua_rawgeti(L, idx, i);
        fputs(prefix, to);
        const char *line = lua_tostring(L, -1);
        bw_text_print(to, line ? line : "(a message that is not a string)"); /* quoted names: control bytes as \xNN */
        fputc('\n', to);
        lua_pop(L, 1);
    }
}

static void make_placeholders(lua_State *L, bw_cli_graph *g)
{
    push_clip_names(L, 1);
    const int list = lua_gettop(L);
    int n = (int)lua_rawlen(L, list);
    g->placeholders = (bw_clip **)calloc((size_t)n + 1, sizeof *g->placeholders);
    if (!g->placeholders) luaL_error(L, "%s: out of memory", g->path);
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, list, i + 1);
        bw_clip_desc cd;
        memset(&cd, 0, sizeof cd);
        cd.name = lua_tostring(L, -1);
        cd.length = BW_CLI_PLACEHOLDER_LENGTH;
        cd.loop = true;
        if (bw_clip_create(&cd, &g->placeholders[g->placeholder_count], NULL) != BW_OK)
            luaL_error(L, "%s: cannot make a placeholder clip '%s'", g->path, cd.name);
        g->placeholder_count++;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    g->clips = (const bw_clip *const *)g->placeholders;
    g->clip_count = g->placeholder_count;
}

/* ---- running ---- */

typedef struct call {
    bw_cli_graph *g;
    int (*fn)(lua_State *L, bw_cli_graph *g);
} call;

/* In the sandbox: (file name, call) */
static int run_protected(lua_State *L)
{
    call *c = (call *)lua_touserdata(L, 2);
    if (c->g->compile && c->g->asset) {
        int n = bw_lua_graph_load_file(L, c->g->cmd, lua_tostring(L, 1), c->g->path, c->g->clips, c->g->clip_count);
        lua_rotate(L, 1, n); /* the results first */
        lua_settop(L, n);
    } else {
        bw_lua_run_source_file(L, c->g->cmd, lua_tostring(L, 1), c->g->path);
        lua_replace(L, 1);
        lua_settop(L, 1);
    }
    if (!c->g->asset) make_placeholders(L, c->g);
    c->g->status = c->fn(L, c->g);
    if (c->g->results <= 0) return 0;
    luaL_checkstack(L, c->g->results, "results");
    if (lua_gettop(L) < c->g->results) lua_settop(L, c->g->results);
    return c->g->results;
}

/* "FILE:LINE: message" as "FILE:LINE: error: message" (else "FILE: error:
 * message"); the message as the text outputs print names (a script's
 * error("...") text is the file's too). */
static void print_tagged(const char *path, const char *msg)
{
    size_t n = strlen(path);
    if (!strncmp(msg, path, n) && msg[n] == ':') {
        const char *p = msg + n + 1;
        while (isdigit((unsigned char)*p)) p++;
        if (p > msg + n + 1 && p[0] == ':' && p[1] == ' ') {
            printf("%.*s: error: ", (int)(p - msg), msg);
            bw_text_print(stdout, p + 2);
            putchar('\n');
            return;
        }
        if (msg[n + 1] == ' ') msg += n + 2;
    }
    printf("%s: error: ", path);
    bw_text_print(stdout, msg);
    putchar('\n');
}

int bw_cli_graph_run(bw_cli_graph *g, int (*fn)(lua_State *L, bw_cli_graph *g))
{
    g->status = 1;
    if (g->asset_path) {
        g->asset = bw_cli_load_asset(g->cmd, g->asset_path);
        if (!g->asset) return 1;
        g->rig = g->asset->rig;
        g->clips = (const bw_clip *const *)g->asset->clips;
        g->clip_count = g->asset->clip_count;
    }
    char dir[BW_SANDBOX_PATH_MAX], err[BW_SANDBOX_ERROR_MAX];
    const char *name = bw_sandbox_split_path(g->path, dir, sizeof dir);
    bw_sandbox *sb = NULL;
    if (!name) {
        fprintf(stderr, "blendwerk %s: %s: the path is too long\n", g->cmd, g->path);
    } else {
        bw_sandbox_desc sd;
        memset(&sd, 0, sizeof sd);
        sd.dir = dir;
        sd.name = name;
        sd.report = g->report;
        sd.user = g->user;
        sb = bw_sandbox_create(&sd, err, sizeof err);
        if (!sb) fprintf(stderr, "blendwerk %s: %s: %s\n", g->cmd, g->path, err);
    }
    if (sb) {
        lua_State *L = bw_sandbox_state(sb);
        call c = {g, fn};
        lua_pushcfunction(L, run_protected);
        lua_pushstring(L, name);
        lua_pushlightuserdata(L, &c);
        int results = g->results > 0 ? g->results : 0;
        if (bw_sandbox_call(sb, 2, results) != BW_SANDBOX_OK) {
            g->status = 1;
            if (g->tag_errors) print_tagged(g->path, bw_sandbox_error(sb));
            else bw_cli_error_line(g->cmd, bw_sandbox_error(sb));
        } else if (g->after && g->status == 0) {
            g->status = g->after(L, g);
        }
        lua_settop(L, 0);
        bw_sandbox_destroy(sb);
    }
    for (int i = 0; i < g->placeholder_count; i++) bw_clip_destroy(g->placeholders[i]);
    free(g->placeholders);
    g->placeholders = NULL;
    g->placeholder_count = 0;
    bw_asset_destroy(g->asset);
    g->asset = NULL;
    return g->status;
}
