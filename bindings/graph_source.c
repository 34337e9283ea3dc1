/* graph_source.c - line numbers for plain Lua tables (graph files and
 * timelines): see lua_graph.h.
 *
 * A Lua table carries no line numbers, and a sandboxed chunk may not be
 * given a line hook (the sandbox owns the hook). So before the chunk is
 * loaded, a small tokenizer pass rewrites its source: every table
 * constructor `{ ... }` becomes `__bw_t(LINE, { ... }, "KEYS")`, where
 * LINE is the line of the `{` and KEYS lists the line of each item
 * ("name:LINE" for `name = value`, "#i:LINE" for the i-th positional
 * item, separated by spaces). A constructor used as a call argument
 * (`f{...}`) becomes `f(__bw_t(...))`. The rewrite inserts no newline, so
 * every line keeps its number and every error message of the chunk stays
 * right. `__bw_t` is a C function recording the table in two weak tables
 * and returning it: tables built anywhere in the file (by helper
 * functions, loops, shared locals) carry the line where they were
 * written.
 *
 * Files a graph file requires (bw_lua_run_source_file; a chunk run from
 * text, such as a timeline, keeps the ordinary require and its modules'
 * tables carry no lines): the chunk's `require` is a local wrapper that
 * runs a Lua module through the same rewrite, once per run of the outer
 * chunk: in a sandbox a mod's module (the sandbox's file rules, "a.b"
 * meaning a/b.lua in the mod's folder), in a trusted state a file that
 * package.searchpath finds on package.path; "blendwerk" and anything else
 * go through the global require. A module's tables carry
 * "locations": line + id × BW_LUA_LINE_FILE_STRIDE, where id names the
 * module's file (shown as the outer file's folder + its path), so the
 * readers' line arithmetic-free plumbing carries the file along;
 * bw_lua_line_file splits a location for printing.
 *
 * The chunk is wrapped as
 *   local __bw_t,require=...;return(function(...) SOURCE
 *   end)(select(3,...))
 * so its own `...` is unchanged. When the tokenizer cannot make sense of
 * the source (an unterminated string, unbalanced braces) or the rewritten
 * chunk does not load, the original source is loaded instead: its syntax
 * error is then Lua's own, with Lua's own line.
 */
#include <lauxlib.h>
#include <lua.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua_graph.h"
#include "sandbox.h"
#include "sandbox_internal.h"

#define MAX_SOURCE ((size_t)4 << 20)
#define MAX_NESTING 200 /* Lua's own limit on nested constructors is about this */

static const char lines_key[] = "blendwerk.graph.lines"; /* registry: { lines, keys, parsed } (weak) */
static const char files_key[] = "blendwerk.graph.files"; /* registry: id -> file name, name -> id */
static const char self_key = 0;                          /* a require wrapper's cache: the wrapper */

/* ---- a growable byte buffer in a userdata (collected on any error) ---- */

typedef struct gbuf {
    lua_State *L;
    int slot; /* stack index of the userdata */
    char *p;
    size_t n, cap;
} gbuf;

static void gbuf_init(gbuf *b, lua_State *L, size_t cap)
{
    b->L = L;
    b->p = (char *)lua_newuserdatauv(L, cap, 0);
    b->slot = lua_gettop(L);
    b->n = 0;
    b->cap = cap;
}

static void gbuf_add(gbuf *b, const char *s, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap * 2;
        while (cap < b->n + n) cap *= 2;
        char *p = (char *)lua_newuserdatauv(b->L, cap, 0);
        memcpy(p, b->p, b->n);
        lua_replace(b->L, b->slot);
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

static void gbuf_str(gbuf *b, const char *s) { gbuf_add(b, s, strlen(s)); }

/* ---- the tokenizer ---- */

typedef enum { T_EOF, T_NAME, T_KEYWORD, T_STRING, T_NUMBER, T_PUNCT, T_ERROR } tkind;

typedef struct token {
    tkind kind;
    size_t start, end;
    int line; /* line of the token's first character */
    char c;   /* T_PUNCT: the character; '=' + 1 for "==" is written as 'E' */
    int block; /* T_KEYWORD: +1 opens a block (function if do repeat), -1 closes one (end until) */
} token;

typedef struct lexer {
    const char *s;
    size_t n, i;
    int line;
} lexer;

static bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

static void newline(lexer *x)
{
    /* \n, \r, \r\n and \n\r each count as one line, as in Lua */
    char c = x->s[x->i++];
    if (x->i < x->n && (x->s[x->i] == '\n' || x->s[x->i] == '\r') && x->s[x->i] != c) x->i++;
    x->line++;
}

/* At x->i: '[' followed by '='* and '['? Returns the level (>= 0) or -1. */
static int long_open(const lexer *x)
{
    size_t j = x->i + 1;
    int level = 0;
    while (j < x->n && x->s[j] == '=') j++, level++;
    return j < x->n && x->s[j] == '[' ? level : -1;
}

/* Skip a long bracket of `level` starting at x->i. False when unterminated. */
static bool skip_long(lexer *x, int level)
{
    x->i += (size_t)level + 2;
    while (x->i < x->n) {
        char c = x->s[x->i];
        if (c == '\n' || c == '\r') {
            newline(x);
        } else if (c == ']') {
            size_t j = x->i + 1;
            int l = 0;
            while (j < x->n && x->s[j] == '=') j++, l++;
            if (l == level && j < x->n && x->s[j] == ']') {
                x->i = j + 1;
                return true;
            }
            x->i++;
        } else {
            x->i++;
        }
    }
    return false;
}

static int keyword_block(const char *s, size_t n)
{
    static const char *const kw[] = {"and",   "break", "do",     "else", "elseif", "end",   "false",
                                     "for",   "function", "goto", "if",   "in",     "local", "nil",
                                     "not",   "or",    "repeat", "return", "then",  "true",  "until",
                                     "while", NULL};
    for (int k = 0; kw[k]; k++) {
        if (strlen(kw[k]) == n && memcmp(kw[k], s, n) == 0) {
            if (!strcmp(kw[k], "function") || !strcmp(kw[k], "if") || !strcmp(kw[k], "do") || !strcmp(kw[k], "repeat"))
                return 1;
            if (!strcmp(kw[k], "end") || !strcmp(kw[k], "until")) return -1;
            return 0;
        }
    }
    return 2; /* not a keyword */
}

static token next_token(lexer *x)
{
    token t;
    memset(&t, 0, sizeof t);
    for (;;) {
        if (x->i >= x->n) {
            t.kind = T_EOF;
            t.start = t.end = x->n;
            t.line = x->line;
            return t;
        }
        char c = x->s[x->i];
        if (c == '\n' || c == '\r') {
            newline(x);
        } else if (c == ' ' || c == '\t' || c == '\f' || c == '\v') {
            x->i++;
        } else if (c == '-' && x->i + 1 < x->n && x->s[x->i + 1] == '-') {
            x->i += 2;
            int level = x->i < x->n && x->s[x->i] == '[' ? long_open(x) : -1;
            if (level >= 0) {
                if (!skip_long(x, level)) break;
            } else {
                while (x->i < x->n && x->s[x->i] != '\n' && x->s[x->i] != '\r') x->i++;
            }
        } else {
            break;
        }
    }
    t.start = x->i;
    t.line = x->line;
    if (x->i >= x->n) { /* an unterminated long comment */
        t.kind = T_ERROR;
        return t;
    }
    char c = x->s[x->i];
    if (is_name_start(c)) {
        while (x->i < x->n && is_name_char(x->s[x->i])) x->i++;
        int b = keyword_block(x->s + t.start, x->i - t.start);
        t.kind = b == 2 ? T_NAME : T_KEYWORD;
        t.block = b == 2 ? 0 : b;
    } else if ((c >= '0' && c <= '9') || (c == '.' && x->i + 1 < x->n && x->s[x->i + 1] >= '0' && x->s[x->i + 1] <= '9')) {
        t.kind = T_NUMBER;
        while (x->i < x->n) {
            char d = x->s[x->i];
            if ((d == '+' || d == '-') && strchr("eEpP", x->s[x->i - 1])) x->i++;
            else if (is_name_char(d) || d == '.') x->i++;
            else break;
        }
    } else if (c == '"' || c == '\'') {
        t.kind = T_STRING;
        x->i++;
        for (;;) {
            if (x->i >= x->n || x->s[x->i] == '\n' || x->s[x->i] == '\r') {
                t.kind = T_ERROR;
                return t;
            }
            char d = x->s[x->i];
            if (d == c) {
                x->i++;
                break;
            }
            if (d == '\\' && x->i + 1 < x->n) {
                x->i++;
                if (x->s[x->i] == '\n' || x->s[x->i] == '\r') newline(x);
                else x->i++;
            } else {
                x->i++;
            }
        }
    } else if (c == '[' && long_open(x) >= 0) {
        t.kind = T_STRING;
        if (!skip_long(x, long_open(x))) t.kind = T_ERROR;
    } else if (c == '=' && x->i + 1 < x->n && x->s[x->i + 1] == '=') {
        t.kind = T_PUNCT;
        t.c = 'E';
        x->i += 2;
    } else {
        t.kind = T_PUNCT;
        t.c = c;
        x->i++;
    }
    t.end = x->i;
    return t;
}

/* ---- the rewrite ---- */

typedef struct level {
    bool call;       /* f{...}: close with an extra ')' */
    bool item_start; /* the next token starts an item */
    int depth;       /* ( [ and blocks open inside the current item */
    int positional;  /* positional items so far */
    size_t keys_at;  /* where this level's keys start in the keys buffer */
} level;

/* Push the rewritten chunk text, or nothing and return false. */
bool bw_lua_instrument_source(lua_State *L, const char *src, size_t n)
{
    static const char prefix[] = "local __bw_t,require=...;return(function(...) ";
    static const char suffix[] = "\nend)(select(3,...))";
    const int top = lua_gettop(L);
    lexer x = {src, n, 0, 1};
    gbuf out, keys;
    gbuf_init(&out, L, n + n / 2 + 256);
    gbuf_init(&keys, L, 256);
    level *stack = (level *)lua_newuserdatauv(L, sizeof(level) * MAX_NESTING, 0);
    int sp = 0;
    gbuf_add(&out, prefix, sizeof prefix - 1);
    if (n > 0 && src[0] == '#') gbuf_str(&out, "--"); /* a "#!" first line */
    size_t copied = 0;
    token prev = {T_EOF, 0, 0, 0, 0, 0};
    token t = next_token(&x);
    bool ok = true;
    while (ok && t.kind != T_EOF) {
        if (t.kind == T_ERROR) {
            ok = false;
            break;
        }
        token after = next_token(&x);
        gbuf_add(&out, src + copied, t.start - copied);
        copied = t.end;
        char tmp[64];
        level *top_level = sp > 0 ? &stack[sp - 1] : NULL;
        bool closing = t.kind == T_PUNCT && (t.c == '}' || ((t.c == ',' || t.c == ';') && top_level && top_level->depth == 0));
        if (top_level && top_level->item_start && top_level->depth == 0 && !closing) {
            top_level->item_start = false;
            if (t.kind == T_NAME && after.kind == T_PUNCT && after.c == '=') {
                gbuf_add(&keys, src + t.start, t.end - t.start);
                snprintf(tmp, sizeof tmp, ":%d ", t.line);
                gbuf_str(&keys, tmp);
            } else if (!(t.kind == T_PUNCT && t.c == '[')) {
                snprintf(tmp, sizeof tmp, "#%d:%d ", ++top_level->positional, t.line);
                gbuf_str(&keys, tmp);
            }
        }
        if (t.kind == T_PUNCT && t.c == '{') {
            if (sp >= MAX_NESTING) {
                ok = false;
                break;
            }
            bool call = prev.kind == T_NAME || prev.kind == T_STRING ||
                        (prev.kind == T_PUNCT && (prev.c == ')' || prev.c == ']' || prev.c == '}'));
            snprintf(tmp, sizeof tmp, "%s__bw_t(%d,{", call ? "(" : "", t.line);
            gbuf_str(&out, tmp);
            level *lv = &stack[sp++];
            lv->call = call;
            lv->item_start = true;
            lv->depth = 0;
            lv->positional = 0;
            lv->keys_at = keys.n;
        } else if (t.kind == T_PUNCT && t.c == '}') {
            if (sp == 0) {
                ok = false;
                break;
            }
            level *lv = &stack[--sp];
            gbuf_str(&out, "},\"");
            gbuf_add(&out, keys.p + lv->keys_at, keys.n - lv->keys_at);
            gbuf_str(&out, lv->call ? "\"))" : "\")");
            keys.n = lv->keys_at;
        } else {
            gbuf_add(&out, src + t.start, t.end - t.start);
            if (top_level) {
                if (t.kind == T_PUNCT && (t.c == '(' || t.c == '[')) top_level->depth++;
                else if (t.kind == T_PUNCT && (t.c == ')' || t.c == ']')) top_level->depth--;
                else if (t.kind == T_KEYWORD) top_level->depth += t.block;
                else if (closing) top_level->item_start = true;
            }
        }
        prev = t;
        t = after;
    }
    if (ok && sp != 0) ok = false;
    if (!ok) {
        lua_settop(L, top);
        return false;
    }
    gbuf_add(&out, src + copied, n - copied);
    gbuf_add(&out, suffix, sizeof suffix - 1);
    lua_pushlstring(L, out.p, out.n);
    lua_replace(L, top + 1);
    lua_settop(L, top + 1);
    return true;
}

/* __bw_t(line, t, keys) -> t; upvalue 1: the lines table, 2: the keys
 * table, 3: the file's location base (0 for the outer chunk), 4: whether
 * the file's run is still going. Only the tables built while the file runs
 * are recorded: the readers look lines up right after, and a function of
 * the file called later (a control's update, a predicate, every frame)
 * must not grow the line tables with a table per call. */
static int record_table(lua_State *L)
{
    if (lua_type(L, 2) == LUA_TTABLE && lua_toboolean(L, lua_upvalueindex(4))) {
        lua_pushvalue(L, 2);
        lua_pushinteger(L, lua_tointeger(L, 1) + lua_tointeger(L, lua_upvalueindex(3)));
        lua_rawset(L, lua_upvalueindex(1));
        if (lua_type(L, 3) == LUA_TSTRING && lua_rawlen(L, 3) > 0) {
            lua_pushvalue(L, 2);
            lua_pushvalue(L, 3);
            lua_rawset(L, lua_upvalueindex(2));
        }
    }
    lua_settop(L, 2);
    return 1;
}

static void push_weak_table(lua_State *L)
{
    lua_newtable(L);
    lua_newtable(L);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
}

/* The registry's { lines = weak, keys = weak, parsed = weak (push_parsed_keys) },
 * made on first use. */
static void push_line_tables(lua_State *L)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, lines_key) == LUA_TTABLE) return;
    lua_pop(L, 1);
    lua_createtable(L, 0, 2);
    push_weak_table(L);
    lua_setfield(L, -2, "lines");
    push_weak_table(L);
    lua_setfield(L, -2, "keys");
    push_weak_table(L);
    lua_setfield(L, -2, "parsed");
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, lines_key);
}

/* Read a file of a trusted state (no sandbox): the whole file, at most
 * MAX_SOURCE bytes. Pushes the text or raises ("WHAT: cannot open
 * DISPLAY" for a file that does not open; display NULL: path). */
static void push_plain_file_text(lua_State *L, const char *what, const char *path, const char *display)
{
    FILE *f = fopen(path, "rb");
    if (!f) luaL_error(L, "%s: cannot open %s", what, display ? display : path);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    size_t total = 0;
    char chunk[4096];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        total += got;
        if (total > MAX_SOURCE) {
            fclose(f);
            luaL_error(L, "%s: %s is larger than %d bytes", what, path, (int)MAX_SOURCE);
        }
        luaL_addlstring(&b, chunk, got);
    }
    fclose(f);
    luaL_pushresult(&b);
}

/* The id of a module's file name (1, 2, ...: the registry keeps each). */
static lua_Integer file_id(lua_State *L, const char *name)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, files_key) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, files_key);
    }
    lua_Integer id;
    if (lua_getfield(L, -1, name) == LUA_TNUMBER) {
        id = lua_tointeger(L, -1);
    } else {
        id = (lua_Integer)lua_rawlen(L, -2) + 1;
        if (id >= BW_LUA_LINE_FILE_MAX) id = 0; /* out of ids: the outer file's lines */
        else {
            lua_pushstring(L, name);
            lua_rawseti(L, -3, id);
            lua_pushinteger(L, id);
            lua_setfield(L, -3, name);
        }
    }
    lua_pop(L, 2);
    return id;
}

int bw_lua_line_file(lua_State *L, int location, const char **file)
{
    *file = NULL;
    if (location < BW_LUA_LINE_FILE_STRIDE) return location;
    if (lua_getfield(L, LUA_REGISTRYINDEX, files_key) == LUA_TTABLE &&
        lua_rawgeti(L, -1, location / BW_LUA_LINE_FILE_STRIDE) == LUA_TSTRING)
        *file = lua_tostring(L, -1); /* the registry keeps it */
    lua_settop(L, lua_gettop(L) - (lua_istable(L, -1) ? 1 : 2));
    return location % BW_LUA_LINE_FILE_STRIDE;
}

static void run_source(lua_State *L, const char *text, size_t size, const char *display, lua_Integer base, int require);

/* The chunk's require (upvalue 1: the global require, 2: this run's
 * cache, 3: the outer file's folder for names shown). */
static int graph_require(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    lua_settop(L, 1);
    bool sandboxed = bw_sandbox_from_state(L) != NULL;
    const char *found = NULL; /* trusted: a Lua file on package.path */
    if (!sandboxed && strcmp(name, "blendwerk") != 0 && lua_getglobal(L, "package") == LUA_TTABLE &&
        lua_getfield(L, -1, "searchpath") == LUA_TFUNCTION && lua_getfield(L, -2, "path") == LUA_TSTRING) {
        lua_pushvalue(L, 1);
        lua_insert(L, -2);
        lua_call(L, 2, 1);
        found = lua_tostring(L, -1);
    }
    if (found) lua_replace(L, 2);
    lua_settop(L, found ? 2 : 1);
    if ((!sandboxed && !found) || strcmp(name, "blendwerk") == 0) {
        lua_settop(L, 1);
        lua_pushvalue(L, lua_upvalueindex(1));
        lua_insert(L, 1);
        lua_call(L, 1, 1);
        return 1;
    }
    lua_pushvalue(L, 1);
    if (lua_rawget(L, lua_upvalueindex(2)) != LUA_TNIL) {
        if (lua_type(L, -1) == LUA_TLIGHTUSERDATA) return luaL_error(L, "require '%s': a require loop", name);
        return 1;
    }
    lua_pop(L, 1);
    char file[256];
    if (!found) bw_sandbox_module_file(L, name, file, sizeof file);
    lua_pushvalue(L, 1);
    lua_pushlightuserdata(L, (void *)graph_require); /* loading */
    lua_rawset(L, lua_upvalueindex(2));
    if (found) push_plain_file_text(L, "require", found, NULL);
    else bw_sandbox_push_file_text(L, "require", file, NULL);
    const int text = lua_gettop(L);
    const char *shown = found ? lua_pushstring(L, found) : lua_pushfstring(L, "%s%s", lua_tostring(L, lua_upvalueindex(3)), file);
    lua_rawgetp(L, lua_upvalueindex(2), &self_key);
    size_t size = 0;
    const char *src = lua_tolstring(L, text, &size);
    run_source(L, src, size, shown, file_id(L, shown) * BW_LUA_LINE_FILE_STRIDE, lua_gettop(L));
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
    }
    lua_pushvalue(L, 1);
    lua_pushvalue(L, -2);
    lua_rawset(L, lua_upvalueindex(2));
    return 1;
}

void bw_lua_run_source(lua_State *L, const char *text, size_t size, const char *display)
{
    luaL_checkstack(L, 4, "source");
    lua_getglobal(L, "require"); /* the ordinary require: tables of other files carry no lines */
    const int req = lua_gettop(L);
    run_source(L, text, size, display, 0, req);
    lua_remove(L, req);
}

/* bw_lua_run_source with a fresh require wrapper (modules run once per
 * outer run, their tables carrying their files' locations). */
static void run_source_requiring(lua_State *L, const char *text, size_t size, const char *display)
{
    luaL_checkstack(L, 8, "graph source");
    lua_getglobal(L, "require");
    lua_newtable(L);
    const char *slash = strrchr(display, '/');
    lua_pushlstring(L, display, slash ? (size_t)(slash - display + 1) : 0);
    lua_pushcclosure(L, graph_require, 3);
    lua_getupvalue(L, -1, 2);
    lua_pushvalue(L, -2);
    lua_rawsetp(L, -2, &self_key);
    lua_pop(L, 1);
    const int req = lua_gettop(L);
    run_source(L, text, size, display, 0, req);
    lua_remove(L, req);
}

/* Run text as chunk `display`, its tables' locations offset by base, with
 * the require wrapper at stack index `require`; pushes the result. */
static void run_source(lua_State *L, const char *text, size_t size, const char *display, lua_Integer base, int require)
{
    const int top = lua_gettop(L);
    /* Lua refuses a binary chunk (mode "t") without naming it */
    if (size > 0 && text[0] == LUA_SIGNATURE[0]) {
        lua_pushfstring(L, "%s: a binary chunk is refused (the file must be Lua source text)", display);
        lua_error(L);
    }
    const char *chunkname = lua_pushfstring(L, "@%s", display);
    bool loaded = false;
    if (size <= MAX_SOURCE && bw_lua_instrument_source(L, text, size)) {
        size_t n = 0;
        const char *rewritten = lua_tolstring(L, -1, &n);
        loaded = luaL_loadbufferx(L, rewritten, n, chunkname, "t") == LUA_OK;
        lua_remove(L, -2); /* the rewritten text, or the error message */
        if (!loaded) lua_pop(L, 1);
        else bw_sandbox_isolate(L, -1); /* in a sandbox: globals of its own (sandbox.h) */
    }
    if (!loaded) {
        /* plain load: Lua's own message and line for a syntax error; a
         * parser stop that is not one (nesting that overflows the C stack:
         * "C stack overflow") names no file, so it gets the file's name */
        int status = luaL_loadbufferx(L, text, size, chunkname, "t");
        if (status != LUA_OK && status != LUA_ERRSYNTAX && status != LUA_ERRMEM && lua_type(L, -1) == LUA_TSTRING)
            lua_pushfstring(L, "%s: %s", display, lua_tostring(L, -1));
        if (status != LUA_OK) lua_error(L);
        bw_sandbox_isolate(L, -1);
        lua_call(L, 0, 1);
    } else {
        push_line_tables(L);
        lua_getfield(L, -1, "lines");
        lua_getfield(L, -2, "keys");
        lua_pushinteger(L, base);
        lua_pushboolean(L, 1);
        lua_pushcclosure(L, record_table, 4);
        lua_remove(L, -2); /* the line tables */
        lua_pushvalue(L, -1);
        lua_insert(L, top + 1); /* kept below: switched off after the run */
        lua_pushvalue(L, require);
        lua_call(L, 2, 1);
        lua_pushboolean(L, 0);
        lua_setupvalue(L, top + 1, 4);
    }
    lua_replace(L, top + 1); /* over the chunk name */
    lua_settop(L, top + 1);
}

/* Push the file's text or raise: the sandbox's rules in a sandbox state,
 * else the plain reader. A file that does not open is named `display`
 * (the caller's spelling, e.g. "/some/dir/x.lua", not the mod's file name
 * "x.lua" inside the folder it was split into). */
static void push_file_text(lua_State *L, const char *what, const char *name, const char *display)
{
    if (bw_sandbox_from_state(L)) bw_sandbox_push_file_text(L, what, name, display);
    else push_plain_file_text(L, what, name, display);
}

void bw_lua_run_source_file(lua_State *L, const char *what, const char *name, const char *display)
{
    push_file_text(L, what, name, display);
    size_t size = 0;
    const char *text = lua_tolstring(L, -1, &size);
    run_source_requiring(L, text, size, display ? display : name);
    lua_remove(L, -2); /* the text */
}

int bw_lua_table_line(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TTABLE) return 0;
    push_line_tables(L);
    lua_getfield(L, -1, "lines");
    lua_pushvalue(L, idx);
    lua_rawget(L, -2);
    int line = lua_isinteger(L, -1) ? (int)lua_tointeger(L, -1) : 0;
    lua_pop(L, 3);
    return line;
}

/* The KEYS string of the table at idx pushed (or nil). */
static void push_keys(lua_State *L, int idx)
{
    push_line_tables(L);
    lua_getfield(L, -1, "keys");
    lua_pushvalue(L, idx);
    lua_rawget(L, -2);
    lua_replace(L, -3);
    lua_pop(L, 1);
}

/* The KEYS string of the table at idx parsed, pushed (or nil): a table
 * name -> line (relative to the file's base; the last of a name wins, as
 * in the table), and at [1], [2], [3] the first name (not a positional
 * "#i") written twice, the line of its first and of its second entry.
 * Made once per table and cached beside the string, so looking up every
 * key of a constructor of n keys is O(n), not n scans of the string. */
static void push_parsed_keys(lua_State *L, int idx)
{
    push_line_tables(L);
    lua_getfield(L, -1, "parsed");
    lua_replace(L, -2); /* the cache */
    lua_pushvalue(L, idx);
    if (lua_rawget(L, -2) == LUA_TTABLE) {
        lua_replace(L, -2);
        return;
    }
    lua_pop(L, 1);
    push_keys(L, idx);
    const char *s = lua_tostring(L, -1);
    if (!s) {
        lua_replace(L, -2); /* nil */
        return;
    }
    lua_newtable(L); /* parsed */
    lua_newtable(L); /* name -> position of its first entry (scratch) */
    const int parsed = lua_gettop(L) - 1, firsts = parsed + 1;
    lua_Integer best = -1; /* the position of the earliest name with a repeat */
    for (lua_Integer pos = 0; *s; pos++) {
        const char *colon = strchr(s, ':');
        if (!colon) break;
        int line = atoi(colon + 1);
        lua_pushlstring(L, s, (size_t)(colon - s));
        lua_pushvalue(L, -1);
        lua_pushinteger(L, line);
        lua_rawset(L, parsed);
        lua_pushvalue(L, -1);
        if (lua_rawget(L, firsts) == LUA_TNIL) {
            lua_pop(L, 1);
            lua_pushinteger(L, pos);
            lua_rawset(L, firsts);
            lua_pushinteger(L, line); /* the line of position pos, for a later repeat */
            lua_rawseti(L, firsts, -1 - pos);
        } else {
            /* a repeat: the earliest name repeated wins, with its first repeat */
            lua_Integer first = lua_tointeger(L, -1);
            lua_pop(L, 1);
            if (*s != '#' && (best < 0 || first < best)) {
                best = first;
                lua_rawseti(L, parsed, 1); /* the name */
                lua_rawgeti(L, firsts, -1 - first);
                lua_rawseti(L, parsed, 2);
                lua_pushinteger(L, line);
                lua_rawseti(L, parsed, 3);
            } else {
                lua_pop(L, 1);
            }
        }
        const char *space = strchr(colon, ' ');
        if (!space) break;
        s = space + 1;
    }
    lua_pop(L, 1);        /* firsts */
    lua_replace(L, -2);   /* over the string */
    lua_pushvalue(L, idx);
    lua_pushvalue(L, -2);
    lua_rawset(L, -4);    /* cached */
    lua_replace(L, -2);   /* over the cache */
}

/* The parsed keys of the table at idx pushed (true), with *base the
 * location base its lines are relative to; false, nothing pushed, for a
 * value that is not a table or a table with no key list. */
static bool push_parsed_of(lua_State *L, int idx, int *base)
{
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TTABLE) return false;
    *base = bw_lua_table_line(L, idx) / BW_LUA_LINE_FILE_STRIDE * BW_LUA_LINE_FILE_STRIDE;
    push_parsed_keys(L, idx);
    if (lua_istable(L, -1)) return true;
    lua_pop(L, 1);
    return false;
}

int bw_lua_key_line(lua_State *L, int idx, const char *key)
{
    int base = 0, line = 0;
    if (push_parsed_of(L, idx, &base)) {
        lua_pushstring(L, key);
        if (lua_rawget(L, -2) == LUA_TNUMBER) line = (int)lua_tointeger(L, -1);
        lua_pop(L, 2);
    }
    return line ? base + line : bw_lua_table_line(L, idx);
}

int bw_lua_item_line(lua_State *L, int idx, int item)
{
    char key[24];
    snprintf(key, sizeof key, "#%d", item);
    return bw_lua_key_line(L, idx, key);
}

int bw_lua_first_duplicate_key(lua_State *L, int idx, char *name, size_t name_size, int *first_line, int *line)
{
    int base = 0, found = 0;
    if (!push_parsed_of(L, idx, &base)) return 0;
    if (lua_rawgeti(L, -1, 1) == LUA_TSTRING) {
        snprintf(name, name_size, "%s", lua_tostring(L, -1));
        lua_rawgeti(L, -2, 2);
        lua_rawgeti(L, -3, 3);
        *first_line = base + (int)lua_tointeger(L, -2);
        *line = base + (int)lua_tointeger(L, -1);
        lua_pop(L, 2);
        found = 1;
    }
    lua_pop(L, 2);
    return found;
}
