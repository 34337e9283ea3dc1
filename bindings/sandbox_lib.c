/* sandbox_lib.c - the sandbox's versions of library functions (sandbox.h).
 *
 * Three kinds:
 * - functions that catch errors (pcall, xpcall, coroutine.resume / wrap /
 *   close, load with a reader) re-raise a stop when they return, so a
 *   spent budget stays spent;
 * - C loops the count hook cannot interrupt (string.rep, table.move,
 *   table.concat, table.unpack, table.sort, pattern matching) are sized
 *   or charged against the budget before they run;
 * - escapes are closed: setmetatable refuses __gc, rawset refuses the
 *   read-only libraries, load takes text only, collectgarbage only counts.
 * Each wrapper that defers to Lua's own function holds it as upvalue 1. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "blendwerk/text.h"

#include "sandbox_internal.h"

/* Call upvalue 1 with all arguments and return all results. */
static int call_original(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

void bw_sandbox_install(lua_State *L, int t, const char *name, lua_CFunction fn)
{
    lua_getfield(L, t, name);
    lua_pushcclosure(L, fn, 1);
    lua_setfield(L, t, name);
}

/* ---- base ---- */

/* A protected call or a coroutine switch costs far more than one VM
 * instruction (a setjmp, an error object, a C frame), so each is charged
 * as this many: a loop of pcall(error) spends its budget in about the
 * time a plain loop does. */
#define SWITCH_COST 30.0
/* Raising and catching an error (its message, the long jump, the
 * unwinding) costs about this many instructions on top. */
#define CATCH_COST 300.0

static int finish_pcall(lua_State *L, int status, lua_KContext extra)
{
    if (status != LUA_OK && status != LUA_YIELD) {
        bw_sandbox_after_protected(L, status);
        bw_sandbox_charge(L, CATCH_COST);
        lua_pushboolean(L, 0);
        lua_pushvalue(L, -2);
        return 2;
    }
    bw_sandbox_check_stop(L);
    return lua_gettop(L) - (int)extra;
}

static int sb_pcall(lua_State *L)
{
    luaL_checkany(L, 1);
    bw_sandbox_charge(L, SWITCH_COST);
    lua_pushboolean(L, 1);
    lua_insert(L, 1);
    int status = lua_pcallk(L, lua_gettop(L) - 2, LUA_MULTRET, 0, 0, finish_pcall);
    return finish_pcall(L, status, 0);
}

/* Lua raises an error thrown from a hook with hooks still disabled until
 * the protected call that catches it, so a message handler would run
 * unbudgeted after a stop: after a stop the script's handler is skipped. */
static int xpcall_handler(lua_State *L)
{
    if (bw_sandbox_of(L)->stop != BW_SANDBOX_OK) return 1;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static int sb_xpcall(lua_State *L)
{
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    bw_sandbox_charge(L, SWITCH_COST);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, xpcall_handler, 1);
    lua_replace(L, 2);
    lua_pushboolean(L, 1);
    lua_pushvalue(L, 1);
    lua_rotate(L, 3, 2); /* f, handler, true, f, args... */
    int status = lua_pcallk(L, n - 2, LUA_MULTRET, 2, 2, finish_pcall);
    return finish_pcall(L, status, 2);
}

/* The environment of the innermost Lua function on the stack (the
 * script calling load: its _ENV upvalue), pushed; a new environment when
 * it has none (a function that reads no global). */
static void push_caller_env(lua_State *L)
{
    lua_Debug ar;
    for (int level = 1; lua_getstack(L, level, &ar); level++) {
        lua_getinfo(L, "Sf", &ar); /* pushes the function */
        if (ar.what[0] == 'C') {
            lua_pop(L, 1);
            continue;
        }
        for (int i = 1;; i++) {
            const char *name = lua_getupvalue(L, -1, i);
            if (!name) break;
            if (strcmp(name, "_ENV") == 0) {
                lua_remove(L, -2);
                return;
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
        break;
    }
    bw_sandbox_push_env(L);
}

/* load(chunk [, name [, mode [, env]]]) with the mode forced to "t"; a
 * string chunk is sized and charged (parsing is one C call), a reader
 * function runs under the hook, and the errors load catches cannot hide
 * a stop. Without env the chunk gets the caller's globals (its
 * environment, not the base: sandbox.c "each chunk's own globals"). A
 * name starting with '@' (a file's, which print and messages show as the
 * file) is given as '=' (the same text in messages): '@' names are the
 * sandbox's own loads. */
static int sb_load(lua_State *L)
{
    bw_sandbox *sb = bw_sandbox_of(L);
    bool own_env = lua_isnone(L, 4);
    size_t len = 0;
    if (lua_type(L, 1) == LUA_TSTRING) {
        lua_tolstring(L, 1, &len);
        if (len > BW_SANDBOX_MAX_SCRIPT)
            return luaL_error(L, "load: a %d-byte chunk; the sandbox takes at most %d", (int)len,
                              (int)BW_SANDBOX_MAX_SCRIPT);
        bw_sandbox_charge(L, (double)len / 4.0);
    }
    int n = lua_gettop(L) < 3 ? 3 : lua_gettop(L);
    lua_settop(L, n);
    lua_pushliteral(L, "t");
    lua_replace(L, 3);
    if (lua_type(L, 2) == LUA_TSTRING && lua_tostring(L, 2)[0] == '@') {
        lua_pushfstring(L, "=%s", lua_tostring(L, 2) + 1);
        lua_replace(L, 2);
    }
    int refused = sb->mem_refused;
    int results = call_original(L);
    if (lua_isnil(L, 1) && sb->mem_refused != refused) bw_sandbox_after_protected(L, LUA_ERRMEM);
    bw_sandbox_check_stop(L);
    if (own_env && lua_isfunction(L, 1)) {
        push_caller_env(L);
        if (!lua_setupvalue(L, 1, 1)) lua_pop(L, 1);
    }
    return results;
}

/* Lua runs finalizers with hooks off, so a finalizer would escape every
 * limit. An object is marked for finalization only if its metatable has
 * __gc when it is set (a raw field), so checking here is enough. */
static int sb_setmetatable(lua_State *L)
{
    if (lua_type(L, 2) == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL)
            return luaL_error(L, "setmetatable: __gc metamethods are not allowed in the sandbox "
                                 "(finalizers would run outside its limits)");
        lua_pop(L, 1);
    }
    return call_original(L);
}

static int sb_rawset(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    if (bw_sandbox_is_readonly(L, 1)) return luaL_error(L, "rawset: the sandbox's libraries are read-only");
    return call_original(L);
}

static int sb_collectgarbage(lua_State *L)
{
    const char *opt = luaL_optstring(L, 1, "collect");
    if (strcmp(opt, "count") != 0)
        return luaL_error(L, "collectgarbage('%s'): only collectgarbage(\"count\") is available in the sandbox", opt);
    lua_pushnumber(L, (lua_Number)lua_gc(L, LUA_GCCOUNT, 0) + (lua_Number)lua_gc(L, LUA_GCCOUNTB, 0) / 1024);
    return 1;
}

/* What one print line shows at most: 100 lines of 16 MiB are not a log. */
#define PRINT_MAX_BYTES 1000

/* print(...): "[NAME] " and the arguments as tostring makes them,
 * separated by tabs, on one line of stderr; the script's text and the
 * name through bw_text_print (control bytes, line breaks included, as
 * \xNN: a mod cannot forge a line or send the terminal an escape
 * sequence). All arguments are converted before anything is printed (a
 * failing __tostring prints nothing). */
/* The file of the innermost function on the stack that one of the
 * sandbox's file loads made (chunk name "@file": the control, module or
 * included file calling print, sb_load gives no other chunk such a name),
 * else the desc's name. */
static const char *printing_chunk(lua_State *L, const bw_sandbox *sb)
{
    lua_Debug ar;
    for (int level = 1; lua_getstack(L, level, &ar); level++)
        if (lua_getinfo(L, "S", &ar) && ar.source && ar.source[0] == '@') return ar.source + 1;
    return sb->name;
}

static int sb_print(lua_State *L)
{
    bw_sandbox *sb = bw_sandbox_of(L);
    const char *name = printing_chunk(L, sb);
    int n = lua_gettop(L);
    luaL_checkstack(L, n, "print: too many arguments");
    for (int i = 1; i <= n; i++) luaL_tolstring(L, i, NULL);
    if (sb->printed < BW_SANDBOX_MAX_PRINT_LINES) {
        fputc('[', stderr);
        bw_text_print(stderr, name);
        fputs("] ", stderr);
        size_t room = PRINT_MAX_BYTES; /* the text's bytes, the tabs counted */
        for (int i = 1; i <= n && room > 0; i++) {
            size_t len = 0;
            const char *text = lua_tolstring(L, n + i, &len);
            if (i > 1) {
                fputc('\t', stderr);
                room--;
            }
            size_t shown = len < room ? len : room;
            bw_text_print_n(stderr, text, shown);
            room -= shown;
            if (room == 0 && (shown < len || i < n)) fputs(" ...", stderr);
        }
        fputc('\n', stderr);
    } else if (sb->printed == BW_SANDBOX_MAX_PRINT_LINES) {
        fputc('[', stderr);
        bw_text_print(stderr, name);
        fputs("] (further output suppressed)\n", stderr);
    }
    sb->printed++;
    return 0;
}

/* Set the functions of `regs` into the table at t. */
static void set_functions(lua_State *L, int t, const luaL_Reg *regs)
{
    lua_pushvalue(L, t);
    luaL_setfuncs(L, regs, 0);
    lua_pop(L, 1);
}

void bw_sandbox_open_base(lua_State *L, int t)
{
    static const luaL_Reg replaced[] = {
        {"pcall", sb_pcall}, {"xpcall", sb_xpcall}, {"collectgarbage", sb_collectgarbage}, {"print", sb_print}, {NULL, NULL},
    };
    set_functions(L, t, replaced);
    bw_sandbox_install(L, t, "load", sb_load);
    bw_sandbox_install(L, t, "setmetatable", sb_setmetatable);
    bw_sandbox_install(L, t, "rawset", sb_rawset);
}

/* ---- string ---- */

/* A pattern match is one C call the hook cannot stop, so calls whose
 * worst case is too costly are refused: more than PATTERN_COST_LIMIT
 * steps, or more than PATTERN_STEPS steps per instruction left in the
 * budget (a per-frame callback with a small budget gets a small bound). */
#define PATTERN_COST_LIMIT 5e8
#define PATTERN_STEPS 4.0

/* Rough worst-case step count of a pattern call: each repetition item
 * (*, +, -, %b) can rescan the subject from every position it is tried at,
 * so the cost grows like m * n^(q+1). Overestimates are harmless: only
 * calls far beyond what a script needs are refused. */
static int count_repetitions(const char *p, size_t m)
{
    int q = 0;
    bool in_set = false;
    for (size_t i = 0; i < m; i++) {
        char c = p[i];
        if (c == '%') {
            if (i + 1 < m && p[i + 1] == 'b' && !in_set) {
                q++;
                i += 3;
            } else {
                i++;
            }
        } else if (in_set) {
            if (c == ']') in_set = false;
        } else if (c == '[') {
            in_set = true;
            if (i + 1 < m && p[i + 1] == '^') i++;
            if (i + 1 < m && p[i + 1] == ']') i++; /* a leading ']' is literal */
        } else if ((c == '*' || c == '+' || c == '-') && i > 0) {
            q++;
        }
    }
    return q;
}

static const char *const pattern_names[] = {"find", "match", "gmatch", "gsub"};

static int sb_pattern(lua_State *L)
{
    int kind = (int)lua_tointeger(L, lua_upvalueindex(2));
    int t1 = lua_type(L, 1), t2 = lua_type(L, 2);
    if ((t1 == LUA_TSTRING || t1 == LUA_TNUMBER) && (t2 == LUA_TSTRING || t2 == LUA_TNUMBER)) {
        size_t n = 0, m = 0;
        lua_tolstring(L, 1, &n);
        const char *p = lua_tolstring(L, 2, &m);
        bool plain = kind == 0 && lua_toboolean(L, 4);
        if (!plain) plain = strpbrk(p, "^$*+?.([%-") == NULL && strlen(p) == m;
        double cost = plain ? (double)n * (double)(m ? m : 1)
                            : (double)(m ? m : 1) * pow((double)n + 1.0, (double)count_repetitions(p, m) + 1.0);
        double limit = bw_sandbox_remaining(L) * PATTERN_STEPS;
        if (limit > PATTERN_COST_LIMIT) limit = PATTERN_COST_LIMIT;
        if (cost > limit && cost > 1e4)
            return luaL_error(L, "string.%s: refused: a %d-byte subject with this %d-byte pattern could run "
                                 "longer than the sandbox allows", pattern_names[kind], (int)n, (int)m);
        /* the subject is scanned about once in the usual case */
        bw_sandbox_charge(L, (double)(n + m) / 4.0);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* A result of `bytes`: beyond what the cap has left it is a memory stop
 * (the allocation would fail anyway, after a long copy), beyond
 * max_string a refusal. */
static void check_result_size(lua_State *L, const char *what, double bytes)
{
    bw_sandbox *sb = bw_sandbox_of(L);
    double left = sb->used < sb->lim.memory ? (double)(sb->lim.memory - sb->used) : 0.0;
    if (bytes > left) {
        bw_sandbox_where(L, sb->mem_where, sizeof sb->mem_where);
        bw_sandbox_set_stop(sb, L, BW_SANDBOX_MEMORY);
        bw_sandbox_raise_stop(sb, L);
    }
    if (bytes > (double)sb->lim.max_string) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s: a result of %.0f bytes; the sandbox allows at most %zu", what, bytes,
                 sb->lim.max_string);
        luaL_error(L, "%s", msg);
    }
}

/* string.rep loops `n` times even when the pieces are empty. */
static int sb_rep(lua_State *L)
{
    size_t l = 0, lsep = 0;
    luaL_checklstring(L, 1, &l);
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_optlstring(L, 3, "", &lsep);
    if (n > 0) {
        check_result_size(L, "string.rep", (double)l * (double)n + (double)lsep * (double)(n - 1));
        bw_sandbox_charge(L, (double)n);
    }
    return call_original(L);
}

/* string.format: at most about 4 bytes per byte of a string argument (%q)
 * and a few hundred per other conversion. */
static int sb_format(lua_State *L)
{
    size_t flen = 0;
    luaL_checklstring(L, 1, &flen);
    double bytes = (double)flen;
    for (int i = 2; i <= lua_gettop(L); i++) {
        size_t len = 0;
        if (lua_type(L, i) == LUA_TSTRING) {
            lua_tolstring(L, i, &len);
            bytes += 4.0 * (double)len + 2.0;
        } else {
            bytes += 512.0;
        }
    }
    check_result_size(L, "string.format", bytes);
    return call_original(L);
}

void bw_sandbox_open_string(lua_State *L, int t)
{
    for (int k = 0; k < 4; k++) {
        lua_getfield(L, t, pattern_names[k]);
        lua_pushinteger(L, k);
        lua_pushcclosure(L, sb_pattern, 2);
        lua_setfield(L, t, pattern_names[k]);
    }
    bw_sandbox_install(L, t, "rep", sb_rep);
    bw_sandbox_install(L, t, "format", sb_format);
}

/* ---- table ---- */

/* How many elements i..j covers, as a double (no overflow). */
static double span(lua_Integer i, lua_Integer j) { return j >= i ? (double)j - (double)i + 1.0 : 0.0; }

static int sb_move(lua_State *L)
{
    lua_Integer f = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3);
    bw_sandbox_charge(L, span(f, e));
    return call_original(L);
}

static int sb_unpack(lua_State *L)
{
    lua_Integer i = luaL_optinteger(L, 2, 1);
    lua_Integer j = lua_isnoneornil(L, 3) ? luaL_len(L, 1) : luaL_checkinteger(L, 3);
    bw_sandbox_charge(L, span(i, j));
    return call_original(L);
}

/* table.concat: charged per element; for a plain table the result's size
 * is known before it is built. */
static int sb_concat(lua_State *L)
{
    size_t lsep = 0;
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_optlstring(L, 2, "", &lsep);
    lua_Integer i = luaL_optinteger(L, 3, 1);
    lua_Integer j = lua_isnoneornil(L, 4) ? luaL_len(L, 1) : luaL_checkinteger(L, 4);
    double count = span(i, j);
    bw_sandbox_charge(L, count);
    if (count > 0 && !lua_getmetatable(L, 1)) {
        double bytes = (double)lsep * (count - 1.0);
        for (lua_Integer k = i; k <= j; k++) {
            size_t len = 0;
            lua_rawgeti(L, 1, k);
            if (lua_isstring(L, -1)) lua_tolstring(L, -1, &len);
            lua_pop(L, 1);
            bytes += (double)len;
            if (k == j) break; /* j may be math.maxinteger */
        }
        check_result_size(L, "table.concat", bytes);
    } else if (count > 0) {
        lua_pop(L, 1);
    }
    return call_original(L);
}

/* table.insert(t, pos, v) and table.remove(t, pos) shift the elements
 * above pos: charged by the table's length. */
static int sb_shift(lua_State *L)
{
    if (lua_gettop(L) >= 3 || (lua_gettop(L) == 2 && lua_tointeger(L, lua_upvalueindex(2)) == 1))
        bw_sandbox_charge(L, (double)luaL_len(L, 1));
    return call_original(L);
}

static int sb_sort(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    double n = (double)luaL_len(L, 1);
    if (n > 1) bw_sandbox_charge(L, n * ceil(log2(n)));
    return call_original(L);
}

void bw_sandbox_open_table(lua_State *L, int t)
{
    bw_sandbox_install(L, t, "move", sb_move);
    bw_sandbox_install(L, t, "unpack", sb_unpack);
    bw_sandbox_install(L, t, "concat", sb_concat);
    bw_sandbox_install(L, t, "sort", sb_sort);
    static const char *const shifting[] = {"insert", "remove"};
    for (int k = 0; k < 2; k++) {
        lua_getfield(L, t, shifting[k]);
        lua_pushinteger(L, k); /* remove shifts with two arguments, insert with three */
        lua_pushcclosure(L, sb_shift, 2);
        lua_setfield(L, t, shifting[k]);
    }
}

/* ---- os ---- */

/* os.date runs strftime once per conversion of its format in one C call:
 * the format is charged per byte. */
static int sb_date(lua_State *L)
{
    size_t len = 0;
    if (lua_type(L, 1) == LUA_TSTRING) lua_tolstring(L, 1, &len);
    bw_sandbox_charge(L, (double)len * 4.0);
    return call_original(L);
}

void bw_sandbox_open_os(lua_State *L, int t) { bw_sandbox_install(L, t, "date", sb_date); }

/* ---- coroutine ---- */

/* Lua 5.4.4 runs coroutine.close's __close handlers with a fresh C-call
 * count, so close inside close inside close ... recurses until the C stack
 * is gone. Every nested resume, wrapped call and close goes through here:
 * the nesting depth and the C stack it uses are capped. */
static void enter_coroutine(lua_State *L, lua_State *co)
{
    bw_sandbox *sb = bw_sandbox_of(L);
    bw_sandbox_charge(L, SWITCH_COST);
    if (sb->depth >= sb->lim.max_coroutine_depth) {
        char what[96];
        snprintf(what, sizeof what, "coroutines nested deeper than %d", sb->lim.max_coroutine_depth);
        bw_sandbox_stop_refused(L, what);
    }
    char *here = (char *)__builtin_frame_address(0);
    if (sb->stack_base) {
        size_t used = (size_t)(sb->stack_base > here ? sb->stack_base - here : here - sb->stack_base);
        if (used > BW_SANDBOX_C_STACK) bw_sandbox_stop_refused(L, "coroutines nested too deeply for the C stack");
    }
    sb->depth++;
    sb->current = co;
}

/* A coroutine a stop killed keeps hooks disabled (Lua restores them only
 * at a protected call inside it), so its to-be-closed variables must never
 * run: such threads are remembered and never closed. */
static const char stopped_key[] = "blendwerk.sandbox.stopped";

static void mark_stopped(lua_State *L, lua_State *co)
{
    if (luaL_getsubtable(L, LUA_REGISTRYINDEX, stopped_key) == 0) {
        lua_createtable(L, 0, 1);
        lua_pushliteral(L, "k");
        lua_setfield(L, -2, "__mode");
        lua_setmetatable(L, -2);
    }
    lua_pushthread(co);
    lua_xmove(co, L, 1);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

static bool was_stopped(lua_State *L, lua_State *co)
{
    lua_getfield(L, LUA_REGISTRYINDEX, stopped_key);
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        return false;
    }
    lua_pushthread(co);
    lua_xmove(co, L, 1);
    bool stopped = lua_rawget(L, -2) != LUA_TNIL;
    lua_pop(L, 2);
    return stopped;
}

static void leave_coroutine(lua_State *L, lua_State *prev)
{
    bw_sandbox *sb = bw_sandbox_of(L);
    sb->depth--;
    sb->current = prev;
}

/* Resume co with the top nargs values of L. Returns the number of results
 * moved to L, or -1 with the error on top of L and the status in *st. */
static int resume(lua_State *L, lua_State *co, int nargs, int *st)
{
    lua_Debug ar;
    int status = lua_status(co);
    const char *bad = NULL;
    if (co == L) bad = "cannot resume non-suspended coroutine";
    else if (status == LUA_OK && lua_getstack(co, 0, &ar)) bad = "cannot resume non-suspended coroutine";
    else if (status == LUA_OK && lua_gettop(co) == 0) bad = "cannot resume dead coroutine";
    else if (status != LUA_OK && status != LUA_YIELD) bad = "cannot resume dead coroutine";
    if (!bad && !lua_checkstack(co, nargs)) bad = "too many arguments to resume";
    *st = LUA_ERRRUN;
    if (bad) {
        lua_pushstring(L, bad);
        return -1;
    }
    bw_sandbox *sb = bw_sandbox_of(L);
    lua_State *prev = sb->current;
    enter_coroutine(L, co);
    lua_xmove(L, co, nargs);
    int nres = 0;
    status = lua_resume(co, L, nargs, &nres);
    leave_coroutine(L, prev);
    *st = status;
    if (status == LUA_OK || status == LUA_YIELD) {
        if (!lua_checkstack(L, nres + 1)) {
            lua_pop(co, nres);
            lua_pushliteral(L, "too many results to resume");
            *st = LUA_ERRRUN;
            return -1;
        }
        lua_xmove(co, L, nres);
        return nres;
    }
    lua_xmove(co, L, 1);
    if (bw_sandbox_of(L)->stop != BW_SANDBOX_OK) mark_stopped(L, co);
    return -1;
}

static int sb_resume(lua_State *L)
{
    lua_State *co = lua_tothread(L, 1);
    luaL_argexpected(L, co, 1, "coroutine");
    int st = LUA_OK;
    int r = resume(L, co, lua_gettop(L) - 1, &st);
    bw_sandbox_after_protected(L, r < 0 ? st : LUA_OK);
    if (r < 0) {
        bw_sandbox_charge(L, CATCH_COST);
        lua_pushboolean(L, 0);
        lua_insert(L, -2);
        return 2;
    }
    lua_pushboolean(L, 1);
    lua_insert(L, -(r + 1));
    return r + 1;
}

static int close_thread(lua_State *L, lua_State *co)
{
#if LUA_VERSION_RELEASE_NUM >= 50406
    return lua_closethread(co, L);
#else
    (void)L;
    return lua_resetthread(co);
#endif
}

static int wrapped_call(lua_State *L)
{
    lua_State *co = lua_tothread(L, lua_upvalueindex(1));
    int st = LUA_OK;
    int r = resume(L, co, lua_gettop(L), &st);
    if (r >= 0) {
        bw_sandbox_check_stop(L);
        return r;
    }
    int cs = lua_status(co);
    if (cs != LUA_OK && cs != LUA_YIELD && !was_stopped(L, co)) { /* an error in the body: close its variables */
        bw_sandbox *sb = bw_sandbox_of(L);
        lua_State *prev = sb->current;
        enter_coroutine(L, co);
        cs = close_thread(L, co);
        leave_coroutine(L, prev);
        lua_xmove(co, L, 1);
        if (cs == LUA_ERRMEM) st = LUA_ERRMEM;
    }
    bw_sandbox_after_protected(L, st);
    if (st != LUA_ERRMEM && lua_type(L, -1) == LUA_TSTRING) {
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

static int sb_wrap(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_State *co = lua_newthread(L);
    lua_pushvalue(L, 1);
    lua_xmove(L, co, 1);
    lua_pushcclosure(L, wrapped_call, 1);
    return 1;
}

static int sb_close(lua_State *L)
{
    lua_State *co = lua_tothread(L, 1);
    luaL_argexpected(L, co, 1, "coroutine");
    lua_Debug ar;
    int status = lua_status(co);
    bool closable = co != L && (status == LUA_YIELD || (status == LUA_OK && !lua_getstack(co, 0, &ar)) ||
                                (status != LUA_OK && status != LUA_YIELD));
    if (!closable) return luaL_error(L, "cannot close a %s coroutine", co == L ? "running" : "normal");
    if (was_stopped(L, co)) {
        lua_pushboolean(L, 0);
        lua_pushliteral(L, "the sandbox stopped this coroutine: its to-be-closed variables are not run");
        return 2;
    }
    bw_sandbox *sb = bw_sandbox_of(L);
    lua_State *prev = sb->current;
    enter_coroutine(L, co);
    status = close_thread(L, co);
    leave_coroutine(L, prev);
    bw_sandbox_after_protected(L, status);
    if (status == LUA_OK) {
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_pushboolean(L, 0);
    lua_xmove(co, L, 1);
    return 2;
}

void bw_sandbox_open_coroutine(lua_State *L, int t)
{
    static const luaL_Reg replaced[] = {{"resume", sb_resume}, {"wrap", sb_wrap}, {"close", sb_close}, {NULL, NULL}};
    set_functions(L, t, replaced);
}
