/* graph_reload.c - a graph file that reloads while characters run on it
 * (graph_reload.h). */
#include <lauxlib.h>
#include <lua.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendwerk/bind.h"
#include "graph_reload.h"
#include "lua_graph.h"
#include "lua_support.h"

typedef struct version {
    bw_sandbox *sb;
    const bw_graph *graph; /* owned by the Graph userdata anchored at ref in sb's state */
    int ref;
    int users; /* cursors on it, the host's holds, plus one while it is the current version */
    struct version *next; /* the reloader's list of live versions */
} version;

struct bw_graph_reload {
    char path[BW_SANDBOX_PATH_MAX];
    char dir[BW_SANDBOX_PATH_MAX];
    const char *name; /* into path: the file's name in dir */
    const bw_rig *rig;
    const bw_clip *const *clips;
    int clip_count;
    bw_binding **bindings;
    float fade;
    bw_sandbox_limits limits;
    bw_watch *watch;
    version *current;
    bw_graph_cursor **cursors;
    version **cursor_version;
    int cursor_count;
    bool host;     /* desc.host_cursors: no cursors of our own */
    version *live; /* every version alive */
    char error[BW_GRAPH_RELOAD_TEXT_MAX];
    char summary[BW_GRAPH_RELOAD_TEXT_MAX];
    double last_ms;
    int loads, rejections, versions;
};

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void append(char *buf, size_t size, const char *fmt, ...)
{
    size_t n = strlen(buf);
    if (n + 1 >= size) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, size - n, fmt, ap);
    va_end(ap);
}

static void free_version(bw_graph_reload *r, version *v)
{
    for (version **p = &r->live; *p; p = &(*p)->next)
        if (*p == v) {
            *p = v->next;
            break;
        }
    bw_sandbox_destroy(v->sb); /* collects the graph */
    free(v);
    r->versions--;
}

static void release(bw_graph_reload *r, version *v)
{
    if (v && --v->users <= 0) free_version(r, v);
}

/* Every file a version's load opens is watched too (its requires). */
static bool on_open(void *user, const char *path, char *why, size_t why_size)
{
    (void)why;
    (void)why_size;
    bw_watch_add(((bw_graph_reload *)user)->watch, path);
    return true;
}

/* In the sandbox: (file name, display, reloader) -> Graph | nil, errors */
static int load_protected(lua_State *L)
{
    const bw_graph_reload *r = (const bw_graph_reload *)lua_touserdata(L, 3);
    return bw_lua_graph_load_file(L, "watch", lua_tostring(L, 1), lua_tostring(L, 2), r->clips, r->clip_count);
}

/* A new version, or NULL with the problems in r->error. */
static version *build(bw_graph_reload *r)
{
    r->error[0] = '\0';
    version *v = (version *)calloc(1, sizeof *v);
    if (!v) {
        append(r->error, sizeof r->error, "%s: out of memory", r->path);
        return NULL;
    }
    bw_sandbox_desc sd;
    memset(&sd, 0, sizeof sd);
    sd.limits = r->limits;
    sd.dir = r->dir;
    sd.name = r->name;
    sd.on_open = on_open;
    sd.user = r;
    char err[256];
    v->sb = bw_sandbox_create(&sd, err, sizeof err);
    if (!v->sb) {
        append(r->error, sizeof r->error, "%s: %s", r->path, err);
        free(v);
        return NULL;
    }
    lua_State *L = bw_sandbox_state(v->sb);
    lua_pushcfunction(L, load_protected);
    lua_pushstring(L, r->name);
    lua_pushstring(L, r->path);
    lua_pushlightuserdata(L, r);
    if (bw_sandbox_call(v->sb, 3, 2) != BW_SANDBOX_OK) {
        append(r->error, sizeof r->error, "%s", bw_sandbox_error(v->sb));
    } else if (lua_isnil(L, -2)) {
        for (int i = 1; lua_istable(L, -1) && i <= (int)lua_rawlen(L, -1); i++) {
            lua_rawgeti(L, -1, i);
            append(r->error, sizeof r->error, "%s%s", i > 1 ? "\n" : "", lua_tostring(L, -1));
            lua_pop(L, 1);
        }
        if (!r->error[0]) append(r->error, sizeof r->error, "%s: the graph was refused", r->path);
    } else {
        lua_pushvalue(L, -2);
        v->ref = bw_lua_ref_protected(L); /* the state may be at its cap */
        if (v->ref != LUA_NOREF) v->graph = bw_lua_graph_check(L, -2);
        else append(r->error, sizeof r->error, "%s: out of memory", r->path);
    }
    lua_settop(L, 0);
    if (!v->graph) {
        bw_sandbox_destroy(v->sb);
        free(v);
        return NULL;
    }
    v->users = 1;
    v->next = r->live;
    r->live = v;
    r->versions++;
    return v;
}

static bw_graph_cursor *make_cursor(bw_graph_reload *r, const bw_graph *g)
{
    bw_graph_cursor_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.rig = r->rig;
    cd.bindings = (const bw_binding *const *)r->bindings;
    cd.binding_count = r->clip_count;
    bw_error errs[8];
    bw_graph_errors list = {errs, 8, 0};
    bw_graph_cursor *c = NULL;
    if (bw_graph_cursor_create(g, &cd, &c, &list) != BW_OK) {
        for (int i = 0; i < list.count && i < 8; i++)
            append(r->error, sizeof r->error, "%s%s: %s: %s", r->error[0] ? "\n" : "", r->path, errs[i].where,
                   errs[i].message);
        if (!r->error[0]) append(r->error, sizeof r->error, "%s: cannot make a cursor", r->path);
        return NULL;
    }
    return c;
}

/* What the swap does to cursor 0, layer by layer (before the old cursor goes). */
static void summarize(bw_graph_reload *r, const bw_graph_cursor *fresh, const bw_graph_cursor *old)
{
    r->summary[0] = '\0';
    const bw_graph *ng = bw_graph_cursor_graph(fresh);
    const bw_graph *og = bw_graph_cursor_graph(old);
    for (int l = 0; l < bw_graph_layer_count(ng); l++) {
        const char *lname = bw_graph_layer_name(ng, l);
        int ol = bw_graph_find_layer(og, lname);
        bw_graph_layer_status st;
        if (ol < 0 || bw_graph_cursor_layer_status(old, ol, &st) != BW_OK) {
            append(r->summary, sizeof r->summary, "%s%s: new", l ? "; " : "", lname);
            continue;
        }
        const char *sname = bw_graph_state_name(og, ol, st.state);
        if (bw_graph_find_state(ng, l, sname) >= 0)
            append(r->summary, sizeof r->summary, "%s%s: %s kept", l ? "; " : "", lname, sname);
        else if (bw_graph_cursor_layer_status(fresh, l, &st) == BW_OK)
            append(r->summary, sizeof r->summary, "%s%s: %s gone, restarted at %s", l ? "; " : "", lname, sname,
                   bw_graph_state_name(ng, l, st.state));
    }
}

/* Build, make every cursor, carry every character over; all or nothing. */
static bw_graph_reload_result attempt(bw_graph_reload *r)
{
    double t0 = bw_watch_now();
    version *v = build(r);
    /* host mode: one probe cursor proves the version can run on the rig */
    int n = r->host ? 1 : r->cursor_count;
    bw_graph_cursor **fresh = v ? (bw_graph_cursor **)calloc((size_t)n, sizeof *fresh) : NULL;
    bool ok = fresh != NULL;
    if (v && !fresh) append(r->error, sizeof r->error, "%s: out of memory", r->path);
    for (int i = 0; ok && i < n; i++) {
        fresh[i] = make_cursor(r, v->graph);
        ok = fresh[i] != NULL;
        if (ok && !r->host && r->cursors[i] &&
            bw_graph_cursor_carry_over(fresh[i], r->cursors[i], r->fade) != BW_OK) {
            append(r->error, sizeof r->error, "%s: the characters cannot be carried over (another rig layout?)",
                   r->path);
            ok = false;
        }
    }
    if (!ok || r->host) {
        for (int i = 0; fresh && i < n; i++) bw_graph_cursor_destroy(fresh[i]);
        free(fresh);
    }
    if (!ok) {
        if (v) release(r, v);
        r->rejections++;
        r->last_ms = (bw_watch_now() - t0) * 1e3;
        return BW_GRAPH_RELOAD_REJECTED;
    }
    r->summary[0] = '\0';
    version *old = r->current;
    if (r->host) { /* the host moves its characters over */
        r->current = v;
        release(r, old);
        r->loads++;
        r->last_ms = (bw_watch_now() - t0) * 1e3;
        return BW_GRAPH_RELOAD_DONE;
    }
    if (r->cursors[0]) summarize(r, fresh[0], r->cursors[0]);
    r->current = v; /* its one user so far: being current */
    for (int i = 0; i < r->cursor_count; i++) {
        bw_graph_cursor_destroy(r->cursors[i]);
        release(r, r->cursor_version[i]);
        r->cursors[i] = fresh[i];
        r->cursor_version[i] = v;
        v->users++;
    }
    free(fresh);
    release(r, old);
    r->loads++;
    r->last_ms = (bw_watch_now() - t0) * 1e3;
    return BW_GRAPH_RELOAD_DONE;
}

bw_graph_reload *bw_graph_reload_create(const bw_graph_reload_desc *desc, char *err, size_t err_size)
{
    if (err && err_size) err[0] = '\0';
    if (!desc || !desc->path || !desc->rig || (desc->clip_count > 0 && !desc->clips) || desc->clip_count < 0 ||
        desc->cursor_count < 0 || !(desc->fade >= 0)) {
        if (err) snprintf(err, err_size, "bw_graph_reload_create: bad arguments");
        return NULL;
    }
    bw_graph_reload *r = (bw_graph_reload *)calloc(1, sizeof *r);
    if (!r) {
        if (err) snprintf(err, err_size, "out of memory");
        return NULL;
    }
    snprintf(r->path, sizeof r->path, "%s", desc->path);
    r->name = strlen(desc->path) < sizeof r->path ? bw_sandbox_split_path(r->path, r->dir, sizeof r->dir) : NULL;
    r->rig = desc->rig;
    r->clips = desc->clips;
    r->clip_count = desc->clip_count;
    r->fade = desc->fade;
    r->limits = desc->limits;
    r->host = desc->host_cursors;
    r->cursor_count = r->host ? 0 : desc->cursor_count > 0 ? desc->cursor_count : 1;
    r->watch = bw_watch_create(desc->watch);
    r->bindings = (bw_binding **)calloc((size_t)r->clip_count + 1, sizeof *r->bindings);
    r->cursors = (bw_graph_cursor **)calloc((size_t)r->cursor_count + 1, sizeof *r->cursors);
    r->cursor_version = (version **)calloc((size_t)r->cursor_count + 1, sizeof *r->cursor_version);
    bool ok = r->name && r->watch && r->bindings && r->cursors && r->cursor_version;
    if (!ok) snprintf(r->error, sizeof r->error, r->name ? "out of memory" : "%s: the path is too long", desc->path);
    for (int i = 0; ok && i < r->clip_count; i++) {
        bw_binding_desc bd;
        memset(&bd, 0, sizeof bd);
        bd.clip = r->clips[i];
        bd.rig = r->rig;
        bw_error e;
        memset(&e, 0, sizeof e);
        if (bw_binding_create(&bd, &r->bindings[i], &e) != BW_OK) {
            snprintf(r->error, sizeof r->error, "binding clip '%s': %s", bw_clip_name(bd.clip), e.message);
            ok = false;
        }
    }
    if (ok) bw_watch_add(r->watch, r->path);
    if (ok && attempt(r) != BW_GRAPH_RELOAD_DONE) ok = false;
    if (!ok) {
        if (err) snprintf(err, err_size, "%s", r->error);
        bw_graph_reload_destroy(r);
        return NULL;
    }
    r->rejections = 0;
    return r;
}

void bw_graph_reload_destroy(bw_graph_reload *r)
{
    if (!r) return;
    for (int i = 0; r->cursors && i < r->cursor_count; i++) {
        bw_graph_cursor_destroy(r->cursors[i]);
        release(r, r->cursor_version[i]);
    }
    release(r, r->current);
    while (r->live) free_version(r, r->live); /* versions the host still held */
    for (int i = 0; r->bindings && i < r->clip_count; i++) bw_binding_destroy(r->bindings[i]);
    free(r->bindings);
    free(r->cursors);
    free(r->cursor_version);
    bw_watch_destroy(r->watch);
    free(r);
}

bw_graph_reload_result bw_graph_reload_poll(bw_graph_reload *r, double now)
{
    if (!r || !bw_watch_poll(r->watch, now)) return BW_GRAPH_RELOAD_NONE;
    return attempt(r);
}

bw_graph_reload_result bw_graph_reload_now(bw_graph_reload *r) { return r ? attempt(r) : BW_GRAPH_RELOAD_NONE; }

int bw_graph_reload_cursor_count(const bw_graph_reload *r) { return r ? r->cursor_count : 0; }

bw_graph_cursor *bw_graph_reload_cursor(bw_graph_reload *r, int i)
{
    return r && i >= 0 && i < r->cursor_count ? r->cursors[i] : NULL;
}

const bw_graph *bw_graph_reload_graph(const bw_graph_reload *r) { return r && r->current ? r->current->graph : NULL; }

const bw_graph *bw_graph_reload_acquire(bw_graph_reload *r)
{
    if (!r || !r->current) return NULL;
    r->current->users++;
    return r->current->graph;
}

bool bw_graph_reload_release(bw_graph_reload *r, const bw_graph *graph)
{
    if (!r || !graph) return false;
    for (version *v = r->live; v; v = v->next)
        if (v->graph == graph) {
            release(r, v);
            return true;
        }
    return false;
}
const char *bw_graph_reload_error(const bw_graph_reload *r) { return r ? r->error : ""; }
const char *bw_graph_reload_summary(const bw_graph_reload *r) { return r ? r->summary : ""; }
double bw_graph_reload_last_ms(const bw_graph_reload *r) { return r ? r->last_ms : 0; }
int bw_graph_reload_loads(const bw_graph_reload *r) { return r ? r->loads : 0; }
int bw_graph_reload_rejections(const bw_graph_reload *r) { return r ? r->rejections : 0; }
int bw_graph_reload_versions(const bw_graph_reload *r) { return r ? r->versions : 0; }
bw_watch *bw_graph_reload_watcher(bw_graph_reload *r) { return r ? r->watch : NULL; }
