/* test_lua_graph.c - the line map of graph files (bindings/graph_source.c):
 * the source rewrite that makes table constructors record their lines.
 * Checked three ways: recorded lines of tables and items in a chunk full
 * of traps (braces in comments, strings and long brackets, f{...} and
 * method-call syntax, functions with commas inside constructors, a "#!"
 * line, CRLF line ends); the rewrite keeps every chunk of the source tree
 * loadable and keeps the line of a syntax error; a chunk the tokenizer
 * cannot follow is refused (the reader then loads it as written).
 * Also the one builder of read-only views (bindings/lua_view.c) in each
 * of its three uses, inside a sandbox: the libraries, a predicate's
 * parameter view and the view getmetatable gives of a handle. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "lua_graph.h"
#include "sandbox.h"

static lua_State *fresh(void)
{
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    return L;
}

/* Run `src` through bw_lua_run_source (protected); leaves its result on top. */
static int run_protected(lua_State *L)
{
    size_t n = 0;
    const char *src = lua_tolstring(L, 1, &n);
    bw_lua_run_source(L, src, n, "trap.lua");
    return 1;
}

static bool run(lua_State *L, const char *src)
{
    lua_pushcfunction(L, run_protected);
    lua_pushstring(L, src);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        fprintf(stderr, "run: %s\n", lua_tostring(L, -1));
        return false;
    }
    return true;
}

/* Push t.a.b... (string keys, or integer keys written as "#3"). */
static void dig(lua_State *L, int idx, const char *const *path)
{
    lua_pushvalue(L, idx);
    for (int i = 0; path[i]; i++) {
        if (path[i][0] == '#') lua_rawgeti(L, -1, atoi(path[i] + 1));
        else lua_getfield(L, -1, path[i]);
        lua_remove(L, -2);
    }
}

static const char trap[] =
    "#!/usr/bin/env lua\n"                                        /* 1 */
    "-- { a brace in a comment\n"                                 /* 2 */
    "local S = function(t) return t end\n"                        /* 3 */
    "local o = { m = function(self, t) return t end }\n"          /* 4 */
    "local s = \"{ \\\" {\" .. '{' .. [==[ { ]] } ]==]\n"         /* 5 */
    "--[[ { multi\n"                                              /* 6 */
    "   line } ]]\n"                                              /* 7 */
    "return {\n"                                                  /* 8 */
    "  a = S{ x = 1 },\n"                                         /* 9 */
    "  b = o:m{\n"                                                /* 10 */
    "    y = 2 },\n"                                              /* 11 */
    "  f = function(p) return p, { 1, 2 } end,\n"                 /* 12 */
    "  list = { { 1 },\r\n"                                       /* 13 (CRLF) */
    "           { 2 }, 'str',\r\n"                                /* 14 */
    "           [5] = { 3 } },\n"                                 /* 15 */
    "  z = {\n"                                                   /* 16 */
    "  },\n"                                                      /* 17 */
    "}\n";

static void tables_and_items_record_their_lines(void)
{
    lua_State *L = fresh();
    CHECK(run(L, trap));
    if (lua_gettop(L) < 1) return;
    const int t = lua_gettop(L);
    CHECK_INT(bw_lua_table_line(L, t), 8);
    CHECK_INT(bw_lua_key_line(L, t, "a"), 9);
    CHECK_INT(bw_lua_key_line(L, t, "b"), 10);
    CHECK_INT(bw_lua_key_line(L, t, "list"), 13);
    CHECK_INT(bw_lua_key_line(L, t, "z"), 16);
    CHECK_INT(bw_lua_key_line(L, t, "missing"), 8); /* falls back to the table's line */
    dig(L, t, (const char *const[]){"a", NULL});
    CHECK_INT(bw_lua_table_line(L, -1), 9);
    lua_pop(L, 1);
    dig(L, t, (const char *const[]){"b", NULL});
    CHECK_INT(bw_lua_table_line(L, -1), 10);
    CHECK_INT(bw_lua_key_line(L, -1, "y"), 11);
    lua_pop(L, 1);
    dig(L, t, (const char *const[]){"list", NULL});
    CHECK_INT(bw_lua_item_line(L, -1, 1), 13);
    CHECK_INT(bw_lua_item_line(L, -1, 2), 14);
    CHECK_INT(bw_lua_item_line(L, -1, 3), 14); /* 'str' */
    lua_pop(L, 1);
    dig(L, t, (const char *const[]){"list", "#5", NULL});
    CHECK_INT(bw_lua_table_line(L, -1), 15); /* [5] = {...}: a computed key, its own table's line */
    lua_pop(L, 1);
    /* the function's commas did not start items of the outer table */
    dig(L, t, (const char *const[]){"f", NULL});
    CHECK(lua_isfunction(L, -1));
    lua_pop(L, 1);
    /* a table the file's function builds after the run records nothing (a
     * control's update builds its tables every frame: each was a new entry
     * of the line tables, which grew until a collection) */
    lua_getfield(L, LUA_REGISTRYINDEX, "blendwerk.graph.lines");
    lua_getfield(L, -1, "lines");
    const int lines = lua_gettop(L);
    lua_gc(L, LUA_GCSTOP); /* weak entries stay put while counting */
    int before = 0;
    for (lua_pushnil(L); lua_next(L, lines); lua_pop(L, 1)) before++;
    for (int i = 0; i < 100; i++) {
        dig(L, t, (const char *const[]){"f", NULL});
        lua_pushinteger(L, 1);
        lua_call(L, 1, 2);
        CHECK(lua_istable(L, -1));
        if (i == 0) CHECK_INT(bw_lua_table_line(L, -1), 0);
        lua_pop(L, 2);
    }
    int after = 0;
    for (lua_pushnil(L); lua_next(L, lines); lua_pop(L, 1)) after++;
    CHECK_INT(after, before);
    CHECK(before >= 8); /* the file's own tables are still there */
    lua_gc(L, LUA_GCRESTART);
    lua_close(L);
}

static void a_key_written_twice_is_found(void)
{
    lua_State *L = fresh();
    CHECK(run(L, "return {\n  idle = 1,\n  move = 2,\n  idle = 3,\n}\n"));
    char name[64];
    int first = 0, second = 0;
    CHECK_INT(bw_lua_first_duplicate_key(L, -1, name, sizeof name, &first, &second), 1);
    CHECK_STR(name, "idle");
    CHECK_INT(first, 2);
    CHECK_INT(second, 4);
    CHECK(run(L, "return { a = 1, b = { a = 2 } }"));
    CHECK_INT(bw_lua_first_duplicate_key(L, -1, name, sizeof name, &first, &second), 0);
    lua_close(L);
}

static void a_source_the_tokenizer_cannot_follow_is_refused(void)
{
    lua_State *L = fresh();
    const char *bad[] = {"return { 'unterminated }", "return { } }", "return {{", "--[[ never closed", "x = [==[ { "};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int top = lua_gettop(L);
        CHECK(!bw_lua_instrument_source(L, bad[i], strlen(bad[i])));
        CHECK_INT(lua_gettop(L), top);
    }
    /* ... and then the chunk loads as written: Lua's own error and line */
    lua_pushcfunction(L, run_protected);
    lua_pushstring(L, "return {\n  a = 1,\n  b = 'x\n}\n");
    CHECK(lua_pcall(L, 1, 1, 0) != LUA_OK);
    CHECK_CONTAINS(lua_tostring(L, -1), "trap.lua:3:");
    lua_close(L);
}

/* A chunk whose first byte is Lua's binary signature (ESC) is refused
 * naming the file: Lua's own refusal of a binary chunk in text mode names
 * nothing (found by fuzz/fuzz_graph.c with "\0332urn {"). Both the fuzzer's
 * input and a real string.dump are refused with the same message, and a
 * text chunk that merely contains ESC later still loads. */
static void a_binary_chunk_is_refused_naming_the_file(void)
{
    lua_State *L = fresh();
    CHECK_INT(luaL_dostring(L, "return string.dump(function() return {} end)"), LUA_OK);
    const int dumped = lua_gettop(L);
    lua_pushstring(L, "\0332urn {");
    for (int i = 0; i < 2; i++) {
        lua_pushcfunction(L, run_protected);
        lua_pushvalue(L, i ? dumped : dumped + 1);
        CHECK_INT(lua_pcall(L, 1, 1, 0), LUA_ERRRUN);
        CHECK_STR(lua_tostring(L, -1), "trap.lua: a binary chunk is refused (the file must be Lua source text)");
        lua_pop(L, 1);
    }
    lua_pushcfunction(L, run_protected);
    lua_pushstring(L, "return { s = '\033' }");
    CHECK_INT(lua_pcall(L, 1, 1, 0), LUA_OK);
    CHECK_INT(lua_getfield(L, -1, "s"), LUA_TSTRING);
    CHECK_STR(lua_tostring(L, -1), "\033");
    lua_close(L);
}

/* Nesting deeper than Lua's parser takes (LUAI_MAXCCALLS, 200 C levels)
 * stops the load with "C stack overflow", which Lua raises without the
 * chunk's name (found by fuzz/fuzz_timeline.c: 200 '(' in a row): the
 * file is named. Parentheses and table constructors (which the rewrite
 * turns into calls) alike; 150 levels still load. */
static void nesting_too_deep_is_refused_naming_the_file(void)
{
    lua_State *L = fresh();
    static const char *const open_close[2][2] = {{"(", ")"}, {"{", "}"}};
    for (int kind = 0; kind < 2; kind++)
        for (int depth = 150; depth <= 300; depth += 150) {
            luaL_Buffer b;
            luaL_buffinit(L, &b);
            luaL_addstring(&b, "return ");
            for (int i = 0; i < depth; i++) luaL_addstring(&b, open_close[kind][0]);
            luaL_addstring(&b, "1");
            for (int i = 0; i < depth; i++) luaL_addstring(&b, open_close[kind][1]);
            luaL_pushresult(&b);
            const int src = lua_gettop(L);
            lua_pushcfunction(L, run_protected);
            lua_pushvalue(L, src);
            int status = lua_pcall(L, 1, 1, 0);
            if (depth == 150) {
                CHECK_INT(status, LUA_OK);
            } else {
                CHECK_INT(status, LUA_ERRRUN);
                CHECK_STR(lua_tostring(L, -1), "trap.lua: C stack overflow");
            }
            lua_settop(L, src - 1);
        }
    lua_close(L);
}

/* Every .lua file below `dir`: if it loads as written, it loads rewritten;
 * if it does not, the rewritten chunk's error names the same line. */
static int files, refused;

static void check_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return;
    static char buf[1 << 22];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    lua_State *L = fresh();
    int orig = luaL_loadbufferx(L, buf, n, "=f", "t");
    char orig_msg[512];
    snprintf(orig_msg, sizeof orig_msg, "%s", orig == LUA_OK ? "" : lua_tostring(L, -1));
    lua_settop(L, 0);
    files++;
    if (!bw_lua_instrument_source(L, buf, n)) {
        refused++;
        if (orig == LUA_OK) {
            fprintf(stderr, "%s: loads, but the rewrite refused it\n", path);
            check_failures_in_test++;
        }
        lua_close(L);
        return;
    }
    size_t m = 0;
    const char *text = lua_tolstring(L, -1, &m);
    int now = luaL_loadbufferx(L, text, m, "=f", "t");
    if (orig == LUA_OK && now != LUA_OK) {
        fprintf(stderr, "%s: the rewrite does not load: %s\n", path, lua_tostring(L, -1));
        check_failures_in_test++;
    }
    if (orig != LUA_OK && now != LUA_OK) {
        /* "f:LINE:" must agree */
        const char *a = strchr(orig_msg, ':'), *b = strchr(lua_tostring(L, -1), ':');
        if (a && b && atoi(a + 1) != atoi(b + 1)) {
            fprintf(stderr, "%s: line moved: %s / %s\n", path, orig_msg, lua_tostring(L, -1));
            check_failures_in_test++;
        }
    }
    lua_close(L);
}

static void walk(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d || depth > 6) {
        if (d) closedir(d);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "build")) continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            /* a build tree (any name: build-asan, build-clang, ...) holds the
             * files other tests write while this one runs */
            char cache[2100];
            snprintf(cache, sizeof cache, "%s/CMakeCache.txt", path);
            if (access(cache, F_OK) != 0) walk(path, depth + 1);
        } else if (S_ISREG(st.st_mode) && strlen(e->d_name) > 4 && !strcmp(e->d_name + strlen(e->d_name) - 4, ".lua"))
            check_file(path);
    }
    closedir(d);
}

static void every_chunk_of_the_tree_survives_the_rewrite(void)
{
    walk(BW_SOURCE_DIR, 0);
    CHECK(files >= 10); /* tests/lua, scripts, graphs, types, demo ... */
    CHECK_INT(refused, 0);
}

/* Each view reads through, iterates with pairs (exactly the viewed keys),
 * refuses writes with its own message (rawset too, where the view is a
 * userdata or a guarded library) and hides its metatable. The predicate
 * sees speed 2 and grounded true: a graph of one layer a -> b when the
 * predicate holds. Results come back as one string per check. */
static const char views_chunk[] =
    "local bw = blendwerk\n"
    "local out = {}\n"
    "local function add(s) out[#out + 1] = s end\n"
    "local function err(f) local ok, e = pcall(f) return ok and 'no error' or tostring(e) end\n"
    "local n, pi = 0, nil\n"
    "for k, v in pairs(math) do n = n + 1 if k == 'pi' then pi = v end end\n"
    "add(string.format('math %s %s', tostring(n >= 25), tostring(pi == math.pi)))\n"
    "add('math write: ' .. err(function() math.tau = 6 end))\n"
    "add('math rawset: ' .. err(function() rawset(math, 'tau', 6) end))\n"
    "add('math meta: ' .. tostring(getmetatable(math)))\n"
    "local rig = assert(bw.rig { joints = { { name = 'hips' } } })\n"
    "local function clip(name) return assert(bw.clip { name = name, length = 1, loop = true, joints = {\n"
    "  { joint = 'hips', keys = { { time = 0, t = { 0, 0, 0 } }, { time = 1, t = { 1, 0, 0 } } } } } }) end\n"
    "local seen\n"
    "local g = assert(bw.graph({ params = { speed = 2, grounded = true },\n"
    "  layers = { { name = 'base', entry = 'a', states = { a = { clip = 'a' }, b = { clip = 'b' } },\n"
    "    transitions = { { from = 'a', to = 'b', when = { function(p)\n"
    "      local keys = {}\n"
    "      for k, v in pairs(p) do keys[#keys + 1] = k .. '=' .. tostring(v) end\n"
    "      table.sort(keys)\n"
    "      seen = table.concat(keys, ' ') .. ' | ' .. err(function() p.speed = 3 end)\n"
    "        .. ' | ' .. err(function() rawset(p, 'speed', 3) end) .. ' | ' .. tostring(getmetatable(p))\n"
    "      return p.speed == 2 end } } } } } },\n"
    "  { rig = rig, clips = { clip('a'), clip('b') } }))\n"
    "local c = assert(g:cursor())\n"
    "c:update(0.1)\n"
    "add('predicate: ' .. tostring(seen))\n"
    "add('state: ' .. c:state())\n"
    "local mt = getmetatable(g)\n"
    "local keys = {}\n"
    "for k, v in pairs(mt) do keys[#keys + 1] = k .. ':' .. type(v) end\n"
    "table.sort(keys)\n"
    "add('handle meta: ' .. type(mt) .. ' ' .. mt.__name .. ' ' .. table.concat(keys, ' '))\n"
    "add('handle meta write: ' .. err(function() mt.__index = {} end))\n"
    "add('handle meta meta: ' .. tostring(getmetatable(mt)))\n"
    "return table.concat(out, '\\n')\n";

static void read_only_views_should_iterate_and_refuse_writes(void)
{
    char err[BW_SANDBOX_ERROR_MAX];
    bw_sandbox_desc desc = {.name = "views"};
    bw_sandbox *sb = bw_sandbox_create(&desc, err, sizeof err);
    CHECK(sb != NULL);
    if (!sb) return;
    lua_State *L = bw_sandbox_state(sb);
    bw_sandbox_status st = bw_sandbox_load_string(sb, views_chunk, strlen(views_chunk), "=views");
    if (st == BW_SANDBOX_OK) st = bw_sandbox_call(sb, 0, 1);
    CHECK_INT(st, BW_SANDBOX_OK);
    if (st != BW_SANDBOX_OK) {
        fprintf(stderr, "views: %s\n", bw_sandbox_error(sb));
        bw_sandbox_destroy(sb);
        return;
    }
    const char *got = lua_tostring(L, -1);
    const char *want = "math true true\n"
                       "math write: views:8: the library 'math' is read-only\n"
                       "math rawset: views:9: rawset: the sandbox's libraries are read-only\n"
                       "math meta: false\n"
                       "predicate: grounded=true speed=2.0 | views:21: graph parameters are read-only in a predicate | "
                       "views:22: bad argument #1 to 'rawset' (table expected, got userdata) | false\n"
                       "state: b\n"
                       "handle meta: userdata blendwerk.Graph __close:function __gc:function __name:string\n"
                       "handle meta write: views:34: the metatable of blendwerk.Graph is protected\n"
                       "handle meta meta: false";
    CHECK_STR(got, want);
    lua_pop(L, 1);
    bw_sandbox_destroy(sb);
}

int main(void)
{
    RUN(tables_and_items_record_their_lines);
    RUN(a_key_written_twice_is_found);
    RUN(a_source_the_tokenizer_cannot_follow_is_refused);
    RUN(a_binary_chunk_is_refused_naming_the_file);
    RUN(nesting_too_deep_is_refused_naming_the_file);
    RUN(every_chunk_of_the_tree_survives_the_rewrite);
    RUN(read_only_views_should_iterate_and_refuse_writes);
    return check_summary();
}
