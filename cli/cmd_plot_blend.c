/* cmd_plot_blend.c - `blendwerk plot-blend SPEC.lua --out FILE.svg [--res N]`
 * and `blendwerk plot-blend GRAPH.lua --state NAME [--asset FILE] --out
 * FILE.svg [--res N]`
 *
 * Draws a 2D blend space so a designer can see its bands. SPEC.lua returns
 *   { mode = "cartesian" | "directional" | "grid",      -- default cartesian
 *     samples = { {name = "idle", x = 0, y = 0}, ... },
 *     range = {xmin, xmax, ymin, ymax} }                 -- optional
 * In grid mode the samples must cover every point of the lattice formed by
 * their distinct x and y values exactly once.
 *
 * The spec is untrusted: it runs in the sandbox every mod script gets
 * (bindings/sandbox.h, docs/sandbox.md) with a 20 million instruction
 * budget and a 64 MiB cap, its folder as the mod's folder, so a spec file
 * cannot touch the machine or hang the tool. The table is read with raw
 * accesses inside the sandbox: no metamethod runs and a Lua error cannot
 * escape.
 *
 * The SVG holds one panel for the combined picture (each cell coloured by
 * its dominant sample, paler where that sample's weight is lower) and one
 * small-multiple panel per sample (white = 0 to dark blue = 1), each with
 * the samples as dots. Heat-map cells are evaluated at their centres;
 * neighbouring cells of identical colour in a row merge into one rect.
 *
 * With --state the file is a graph file (SPEC §12.1), loaded as `check`
 * loads it (cli_graph.h: the asset's clips, or placeholders without
 * --asset) and read by the graph reader, whose problems are printed as
 * FILE:LINE. The first layer with a state NAME gives it; its `blend` is
 * read by blendwerk.blend_tree (the one blend-tree format) and its root
 * node drawn: a "2d" node as cartesian, "directional" as directional, a
 * "grid" node on its lattice; each sample is a child, named by its clip
 * (a nested node is named by its kind and position and drawn as one
 * sample). A 1D root is refused (nothing 2D to draw), as is a state
 * without a blend (the message names the state).
 *
 * Exit codes: 0 written; 1 bad spec, Lua error or write failure (the
 * message names the file, and the line for Lua errors); 2 usage.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "blendwerk/blendspace.h"
#include "blendwerk/blendtree.h"
#include "blendwerk/graph.h"
#include "cli_args.h"
#include "cli_graph.h"
#include "cli_json.h"
#include "commands.h"
#include "io/atomic_file.h"
#include "lua_graph.h"
#include "lua_support.h"
#include "sandbox.h"

/* A 2D node's own limit (the O(n²) bound, blendspace.h); a grid, which may
 * hold more cells, is drawn up to the same count (one panel per sample). */
#define MAX_SAMPLES BW_BLEND_MAX_MEMBERS
#define NAME_SIZE 64
#define MEMORY_CAP (64u << 20)
#define INSTRUCTION_BUDGET 20000000
#define PANEL 220  /* plot area, px */
#define TITLE 22   /* title band above a panel, px */
#define GAP 18
#define COLUMNS 4
#define HEADER 40

typedef enum plot_mode { MODE_CARTESIAN, MODE_DIRECTIONAL, MODE_GRID } plot_mode;

typedef struct sample {
    char name[NAME_SIZE];
    double x, y;
} sample;

typedef struct spec {
    const char *path;
    const char *state; /* --state: the graph state drawn */
    int line;          /* --state: the state's line, for messages */
    plot_mode mode;
    int count;
    sample samples[MAX_SAMPLES];
    bool has_range;
    double range[4]; /* xmin, xmax, ymin, ymax */
    /* grid mode: lattice axes and the sample at each lattice point */
    int nx, ny;
    float gx[MAX_SAMPLES], gy[MAX_SAMPLES];
    int cell_sample[MAX_SAMPLES];
} spec;

/* ---- the spec runs in the sandbox (bindings/sandbox.h) ---- */

/* Raised from inside the protected reader: "FILE: what" with no Lua
 * position (it would point at C, not at the user's file). */
static int spec_error(lua_State *L, const spec *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int spec_error(lua_State *L, const spec *s, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (s->line > 0) lua_pushfstring(L, "%s:%d: %s", s->path, s->line, msg);
    else lua_pushfstring(L, "%s: %s", s->path, msg);
    return lua_error(L);
}

static double finite_number(lua_State *L, spec *s, int i, const char *key)
{
    int isnum = 0;
    double v = lua_type(L, -1) == LUA_TNUMBER ? (double)lua_tonumberx(L, -1, &isnum) : 0.0;
    float f = 0.0f;
    if (!isnum || bw_lua_to_float(v, &f))
        spec_error(L, s, "samples[%d].%s must be a finite number (got %s)", i, key,
                   isnum ? "a non-finite or huge number" : luaL_typename(L, -1));
    return v;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static int distinct_sorted(float *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_float);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (k == 0 || v[i] != v[k - 1]) v[k++] = v[i];
    return k;
}

static int index_of(const float *v, int n, float x)
{
    for (int i = 0; i < n; i++)
        if (v[i] == x) return i;
    return -1;
}

static void build_lattice(lua_State *L, spec *s)
{
    for (int i = 0; i < s->count; i++) {
        s->gx[i] = (float)s->samples[i].x;
        s->gy[i] = (float)s->samples[i].y;
    }
    s->nx = distinct_sorted(s->gx, s->count);
    s->ny = distinct_sorted(s->gy, s->count);
    if (s->nx * s->ny != s->count)
        spec_error(L, s, "grid mode needs exactly one sample on every point of the lattice of their distinct "
                      "x and y values (%d x values, %d y values, %d samples)", s->nx, s->ny, s->count);
    for (int c = 0; c < s->count; c++) s->cell_sample[c] = -1;
    for (int i = 0; i < s->count; i++) {
        int c = index_of(s->gy, s->ny, (float)s->samples[i].y) * s->nx + index_of(s->gx, s->nx, (float)s->samples[i].x);
        if (s->cell_sample[c] >= 0)
            spec_error(L, s, "grid mode: samples[%d] sits on a lattice point already taken", i + 1);
        s->cell_sample[c] = i;
    }
}

/* Runs in the sandbox: the chunk's result is at 1, the spec at 2. */
static int read_spec(lua_State *L)
{
    spec *s = (spec *)lua_touserdata(L, 2);
    if (lua_type(L, 1) != LUA_TTABLE)
        return spec_error(L, s, "the file must return a table (got %s)", luaL_typename(L, 1));

    int t = bw_lua_raw_field(L, 1, "mode");
    if (t == LUA_TNIL) {
        s->mode = MODE_CARTESIAN;
    } else {
        const char *m = t == LUA_TSTRING ? lua_tostring(L, -1) : "";
        if (!strcmp(m, "cartesian")) s->mode = MODE_CARTESIAN;
        else if (!strcmp(m, "directional")) s->mode = MODE_DIRECTIONAL;
        else if (!strcmp(m, "grid")) s->mode = MODE_GRID;
        else
            return spec_error(L, s, "mode must be \"cartesian\", \"directional\" or \"grid\" (got %s)",
                              t == LUA_TSTRING ? m : luaL_typename(L, -1));
    }
    lua_pop(L, 1);

    if (bw_lua_raw_field(L, 1, "samples") != LUA_TTABLE)
        return spec_error(L, s, "samples must be an array of {name=, x=, y=} tables (got %s)",
                          luaL_typename(L, -1));
    int list = lua_gettop(L);
    lua_Unsigned n = lua_rawlen(L, list);
    if (n == 0) return spec_error(L, s, "samples is empty");
    if (n > MAX_SAMPLES) return spec_error(L, s, "more than %d samples", MAX_SAMPLES);
    s->count = (int)n;
    for (int i = 1; i <= (int)n; i++) {
        sample *smp = &s->samples[i - 1];
        if (lua_rawgeti(L, list, i) != LUA_TTABLE)
            return spec_error(L, s, "samples[%d] must be a table (got %s)", i, luaL_typename(L, -1));
        int e = lua_gettop(L);
        int nt = bw_lua_raw_field(L, e, "name");
        if (nt == LUA_TSTRING) {
            size_t len = 0;
            const char *name = lua_tolstring(L, -1, &len);
            if (len >= NAME_SIZE) return spec_error(L, s, "samples[%d].name is longer than %d bytes", i, NAME_SIZE - 1);
            memcpy(smp->name, name, len + 1);
        } else if (nt == LUA_TNIL) {
            snprintf(smp->name, sizeof smp->name, "sample %d", i);
        } else {
            return spec_error(L, s, "samples[%d].name must be a string (got %s)", i, luaL_typename(L, -1));
        }
        lua_pop(L, 1);
        bw_lua_raw_field(L, e, "x");
        smp->x = finite_number(L, s, i, "x");
        lua_pop(L, 1);
        bw_lua_raw_field(L, e, "y");
        smp->y = finite_number(L, s, i, "y");
        lua_pop(L, 2);
    }
    lua_pop(L, 1);

    t = bw_lua_raw_field(L, 1, "range");
    if (t != LUA_TNIL) {
        int r = lua_gettop(L);
        bool ok = t == LUA_TTABLE;
        for (int k = 0; ok && k < 4; k++) {
            int isnum = 0;
            float f = 0.0f;
            lua_rawgeti(L, r, k + 1);
            s->range[k] = lua_type(L, -1) == LUA_TNUMBER ? (double)lua_tonumberx(L, -1, &isnum) : 0.0;
            ok = isnum && !bw_lua_to_float(s->range[k], &f);
            lua_pop(L, 1);
        }
        if (!ok || !(s->range[0] < s->range[1]) || !(s->range[2] < s->range[3]))
            return spec_error(L, s, "range must be {xmin, xmax, ymin, ymax} with xmin < xmax and ymin < ymax");
        s->has_range = true;
    }
    lua_pop(L, 1);
    if (s->mode == MODE_GRID) build_lattice(L, s);
    return 0;
}

/* Fills `s` or prints "file[:line]: message" and returns false. The spec
 * runs as untrusted code in a sandbox whose folder is the spec's. */
static bool load_spec(spec *s)
{
    char dir[BW_SANDBOX_PATH_MAX], err[BW_SANDBOX_ERROR_MAX];
    const char *name = bw_sandbox_split_path(s->path, dir, sizeof dir);
    if (!name) {
        fprintf(stderr, "blendwerk plot-blend: %s: the path is too long\n", s->path);
        return false;
    }
    bw_sandbox_desc desc = {.limits = {.instructions = INSTRUCTION_BUDGET, .memory = MEMORY_CAP}, .dir = dir, .name = name};
    bw_sandbox *sb = bw_sandbox_create(&desc, err, sizeof err);
    if (!sb) {
        fprintf(stderr, "blendwerk plot-blend: %s: %s\n", s->path, err);
        return false;
    }
    lua_State *L = bw_sandbox_state(sb);
    bool ok = bw_sandbox_load_file(sb, name, s->path) == BW_SANDBOX_OK && bw_sandbox_call(sb, 0, 1) == BW_SANDBOX_OK;
    if (ok) {
        /* the table is read with raw accesses under the same limits;
         * pushing a light C function and a pointer allocates nothing */
        lua_pushcfunction(L, read_spec);
        lua_insert(L, -2);
        lua_pushlightuserdata(L, s);
        ok = bw_sandbox_call(sb, 2, 0) == BW_SANDBOX_OK;
    }
    if (!ok) {
        const char *msg = bw_sandbox_error(sb);
        /* script messages start with "name:line:", the reader's with the path */
        if (!strncmp(msg, name, strlen(name)) || strstr(msg, s->path)) {
            bw_cli_error_line("plot-blend", msg);
        } else {
            fprintf(stderr, "blendwerk plot-blend: %s: ", s->path);
            bw_cli_error_line(NULL, msg);
        }
    }
    bw_sandbox_destroy(sb);
    return ok;
}

/* ---- a graph state's blend (--state) ---- */

static void default_length(lua_State *L, void *user)
{
    (void)user;
    /* the leaf at -1; the weights do not depend on its length */
    if (bw_lua_raw_field(L, -1, "length") == LUA_TNIL) {
        lua_pushnumber(L, BW_CLI_PLACEHOLDER_LENGTH);
        lua_setfield(L, -3, "length");
    }
    lua_pop(L, 1);
}

static const char *kind_name(bw_blend_node_kind k)
{
    static const char *const names[] = {"clip", "1d", "2d", "directional", "grid"};
    return (unsigned)k < BW_BLEND_NODE_KIND_COUNT ? names[k] : "?";
}

/* The compiled tree's root children as samples (leaf_clips: the stack
 * index of its leaves' clip values, the clip names). */
static void samples_of_tree(lua_State *L, spec *s, const bw_blend_tree *tree, int leaf_clips)
{
    const bw_blend_node *root = bw_blend_tree_node(tree, bw_blend_tree_root(tree));
    if (root->kind == BW_BLEND_NODE_CLIP || root->kind == BW_BLEND_NODE_1D)
        spec_error(L, s, "state '%s': its blend is a %s node; plot-blend draws 2d, directional and grid nodes",
                   s->state, kind_name(root->kind));
    if (root->child_count > MAX_SAMPLES) spec_error(L, s, "state '%s': more than %d samples", s->state, MAX_SAMPLES);
    s->mode = root->kind == BW_BLEND_NODE_GRID          ? MODE_GRID
              : root->kind == BW_BLEND_NODE_DIRECTIONAL ? MODE_DIRECTIONAL
                                                        : MODE_CARTESIAN;
    s->count = root->child_count;
    for (int i = 0; i < s->count; i++) {
        sample *smp = &s->samples[i];
        if (root->kind == BW_BLEND_NODE_GRID) {
            smp->x = root->positions[i % root->grid_nx];
            smp->y = root->positions[root->grid_nx + i / root->grid_nx];
        } else {
            smp->x = root->positions[2 * i];
            smp->y = root->positions[2 * i + 1];
        }
        const bw_blend_node *child = bw_blend_tree_node(tree, root->children[i]);
        lua_rawgeti(L, leaf_clips, child->kind == BW_BLEND_NODE_CLIP ? child->clip + 1 : 0);
        if (child->kind == BW_BLEND_NODE_CLIP && lua_type(L, -1) == LUA_TSTRING)
            snprintf(smp->name, sizeof smp->name, "%s", lua_tostring(L, -1));
        else snprintf(smp->name, sizeof smp->name, "%s node %d", kind_name(child->kind), i + 1);
        lua_pop(L, 1);
    }
    if (s->mode == MODE_GRID) build_lattice(L, s);
}

/* In the sandbox (cli_graph.h): the graph table at 1. */
static int read_state(lua_State *L, bw_cli_graph *g)
{
    spec *s = (spec *)g->user;
    if (bw_lua_graph_build(L, 1, g->path, 0, g->clips, g->clip_count) != 1) {
        bw_cli_print_list(L, -1, stderr, "blendwerk plot-blend: ");
        return 1;
    }
    const bw_graph *graph = bw_lua_graph_check(L, -1);
    /* the state's table: the reader accepted the file, so the shape is right */
    bw_lua_raw_field(L, 1, "layers");
    const int layers = lua_gettop(L);
    int st = 0;
    for (int i = 1; i <= (int)lua_rawlen(L, layers) && !st; i++) {
        lua_rawgeti(L, layers, i);
        bw_lua_raw_field(L, -1, "states");
        if (bw_lua_raw_field(L, -1, s->state) == LUA_TTABLE) st = lua_gettop(L);
        else lua_pop(L, 3);
    }
    if (!st) spec_error(L, s, "no state '%s' in any layer", s->state);
    s->line = bw_lua_key_line(L, st - 1, s->state);
    if (bw_lua_raw_field(L, st, "blend") != LUA_TTABLE)
        spec_error(L, s, "state '%s' has no blend (it plays one clip): plot-blend --state draws a blend state",
                   s->state);
    const int blend = lua_gettop(L);
    bw_cli_blend_leaves(L, blend, default_length, NULL);
    lua_pushcfunction(L, bw_lua_blend_tree);
    lua_pushvalue(L, blend);
    lua_createtable(L, 0, 1);
    lua_createtable(L, bw_graph_param_count(graph), 0);
    for (int p = 0; p < bw_graph_param_count(graph); p++) {
        lua_pushstring(L, bw_graph_param_name(graph, p));
        lua_rawseti(L, -2, p + 1);
    }
    lua_setfield(L, -2, "params");
    lua_call(L, 2, 2);
    if (lua_isnil(L, -2)) spec_error(L, s, "state '%s': %s", s->state, lua_tostring(L, -1));
    lua_pop(L, 1);
    const bw_blend_tree *tree = bw_lua_check_blend_tree(L, -1);
    samples_of_tree(L, s, tree, lua_gettop(L));
    return 0;
}

/* ---- drawing ---- */

static const unsigned palette[12] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd, 0x8c564b,
                                     0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf, 0x393b79, 0x637939};

static unsigned mix_rgb(unsigned a, unsigned b, double t) /* a at 0, b at 1 */
{
    unsigned out = 0;
    for (int sh = 16; sh >= 0; sh -= 8) {
        double ca = (a >> sh) & 255, cb = (b >> sh) & 255;
        unsigned c = (unsigned)lround(ca + (cb - ca) * t);
        out |= (c > 255 ? 255 : c) << sh;
    }
    return out;
}

/* White to dark blue through a mid blue, so weak weights stay visible. */
static unsigned ramp(double w)
{
    if (!(w > 0.0)) return 0xffffff;
    if (w >= 1.0) return 0x08306b;
    return w < 0.5 ? mix_rgb(0xffffff, 0x6baed6, w / 0.5) : mix_rgb(0x6baed6, 0x08306b, (w - 0.5) / 0.5);
}

static void put_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            /* control characters are not allowed in XML 1.0 text */
            fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
        }
    }
}

typedef struct plot {
    const spec *s;
    FILE *f;
    int res;
    double xmin, xmax, ymin, ymax;
    float *weights; /* res × res cells × count, row 0 at the top */
} plot;

static double px(const plot *p, double x) { return (x - p->xmin) / (p->xmax - p->xmin) * PANEL; }
static double py(const plot *p, double y) { return (p->ymax - y) / (p->ymax - p->ymin) * PANEL; }

/* Weights of every sample at every cell centre. */
static bool compute(plot *p)
{
    const spec *s = p->s;
    float pts[2 * MAX_SAMPLES], w[MAX_SAMPLES];
    for (int i = 0; i < s->count; i++) {
        pts[2 * i] = (float)s->samples[i].x;
        pts[2 * i + 1] = (float)s->samples[i].y;
    }
    for (int r = 0; r < p->res; r++)
        for (int c = 0; c < p->res; c++) {
            double x = p->xmin + (c + 0.5) / p->res * (p->xmax - p->xmin);
            double y = p->ymax - (r + 0.5) / p->res * (p->ymax - p->ymin);
            float *out = p->weights + ((size_t)r * p->res + c) * s->count;
            bw_result res;
            if (s->mode == MODE_GRID) {
                res = bw_blend_grid_weights(s->gx, s->nx, s->gy, s->ny, (float)x, (float)y, w);
                for (int k = 0; k < s->count && res == BW_OK; k++) out[s->cell_sample[k]] = w[k];
            } else {
                res = bw_blend2d_weights(pts, s->count, (float)x, (float)y,
                                         s->mode == MODE_DIRECTIONAL ? BW_BLEND2D_DIRECTIONAL : BW_BLEND2D_CARTESIAN, out);
            }
            if (res != BW_OK) return false;
        }
    return true;
}

/* Colour of a cell in panel `which` (-1 = combined). */
static unsigned cell_colour(const plot *p, int r, int c, int which)
{
    const float *w = p->weights + ((size_t)r * p->res + c) * p->s->count;
    if (which >= 0) return ramp(w[which]);
    int best = 0;
    for (int i = 1; i < p->s->count; i++)
        if (w[i] > w[best]) best = i;
    /* pale where the dominant sample shares the cell, full where it owns it */
    return mix_rgb(0xffffff, palette[best % 12], 0.15 + 0.85 * w[best]);
}

static void draw_panel(plot *p, int which, double ox, double oy)
{
    FILE *f = p->f;
    const spec *s = p->s;
    fprintf(f, "<g transform=\"translate(%.1f,%.1f)\">\n", ox, oy);
    fprintf(f, "<text x=\"0\" y=\"-7\" font-size=\"13\" font-weight=\"bold\">");
    if (which < 0) fputs("combined (dominant sample)", f);
    else put_escaped(f, s->samples[which].name);
    fputs("</text>\n<g shape-rendering=\"crispEdges\">\n", f);
    double cw = (double)PANEL / p->res;
    for (int r = 0; r < p->res; r++) {
        for (int c = 0; c < p->res;) {
            unsigned col = cell_colour(p, r, c, which);
            int end = c + 1;
            while (end < p->res && cell_colour(p, r, end, which) == col) end++;
            fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"#%06x\"/>\n", c * cw, r * cw,
                    (end - c) * cw, cw, col);
            c = end;
        }
    }
    fputs("</g>\n", f);
    /* the axes through the origin, when it is in view */
    if (p->xmin < 0 && p->xmax > 0)
        fprintf(f, "<line x1=\"%.2f\" y1=\"0\" x2=\"%.2f\" y2=\"%d\" stroke=\"#999\" stroke-width=\"0.5\"/>\n", px(p, 0),
                px(p, 0), PANEL);
    if (p->ymin < 0 && p->ymax > 0)
        fprintf(f, "<line x1=\"0\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\" stroke=\"#999\" stroke-width=\"0.5\"/>\n", py(p, 0),
                PANEL, py(p, 0));
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>\n", PANEL, PANEL);
    for (int i = 0; i < s->count; i++) {
        double x = px(p, s->samples[i].x), y = py(p, s->samples[i].y);
        if (x < -4 || x > PANEL + 4 || y < -4 || y > PANEL + 4) continue; /* outside the plotted range */
        bool own = i == which;
        fprintf(f, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%d\" fill=\"%s\" stroke=\"%s\" stroke-width=\"1\"/>\n", x, y,
                own ? 5 : 3, own ? "#ffdd00" : "#222", own ? "#c00" : "#fff");
        if (which < 0 || own) {
            fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"9\" fill=\"#000\" stroke=\"#fff\" stroke-width=\"2\" "
                       "paint-order=\"stroke\">", x + 5, y - 4);
            put_escaped(f, s->samples[i].name);
            fputs("</text>\n", f);
        }
    }
    fputs("</g>\n", f);
}

static const char *mode_name(plot_mode m)
{
    return m == MODE_DIRECTIONAL ? "directional" : m == MODE_GRID ? "grid" : "cartesian";
}

static bool write_svg(plot *p, const char *out_path)
{
    const spec *s = p->s;
    bw_atomic_file out;
    char err[1200];
    FILE *f = bw_atomic_file_open(&out, out_path, err, sizeof err);
    if (!f) {
        bw_cli_error_line("plot-blend", err);
        return false;
    }
    p->f = f;
    int panels = s->count + 1;
    int cols = panels < COLUMNS ? panels : COLUMNS;
    int rows = (panels + COLUMNS - 1) / COLUMNS;
    int width = GAP + cols * (PANEL + GAP);
    int height = HEADER + rows * (TITLE + PANEL + GAP) + GAP;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "font-family=\"sans-serif\">\n", width, height, width, height);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", width, height);
    fprintf(f, "<text x=\"%d\" y=\"24\" font-size=\"15\">", GAP);
    put_escaped(f, s->path);
    if (s->state) {
        fputs(" state ", f);
        put_escaped(f, s->state);
    }
    fprintf(f, " \xe2\x80\x94 %s blend space, %d samples, x [%g, %g], y [%g, %g]</text>\n", mode_name(s->mode), s->count,
            p->xmin, p->xmax, p->ymin, p->ymax);
    for (int k = 0; k < panels; k++) {
        double ox = GAP + (k % COLUMNS) * (PANEL + GAP);
        double oy = HEADER + (k / COLUMNS) * (TITLE + PANEL + GAP) + TITLE;
        draw_panel(p, k - 1, ox, oy);
    }
    fputs("</svg>\n", f);
    bool ok = bw_atomic_file_commit(&out, err, sizeof err);
    if (!ok) bw_cli_error_line("plot-blend", err);
    return ok;
}

static void default_range(const spec *s, double r[4])
{
    double lo[2] = {s->samples[0].x, s->samples[0].y}, hi[2] = {lo[0], lo[1]};
    for (int i = 1; i < s->count; i++) {
        double v[2] = {s->samples[i].x, s->samples[i].y};
        for (int a = 0; a < 2; a++) {
            if (v[a] < lo[a]) lo[a] = v[a];
            if (v[a] > hi[a]) hi[a] = v[a];
        }
    }
    for (int a = 0; a < 2; a++) {
        double span = hi[a] - lo[a];
        double pad = span > 0 ? 0.25 * span : 1.0;
        /* within a float's range: the cells are evaluated at float points
         * (samples near +-FLT_MAX padded past it made cell centres that
         * overflow the conversion, which C leaves undefined) */
        r[2 * a] = fmax(lo[a] - pad, -(double)FLT_MAX);
        r[2 * a + 1] = fmin(hi[a] + pad, (double)FLT_MAX);
    }
}

static void print_usage(FILE *to)
{
    fprintf(to, "usage: blendwerk plot-blend SPEC.lua --out FILE.svg [--res N]\n"
                "       blendwerk plot-blend GRAPH.lua --state NAME [--asset FILE] --out FILE.svg [--res N]\n"
                "  --state NAME  draw the blend of graph state NAME (2d, directional or grid root)\n"
                "  --asset FILE  the character whose clips the graph names (default: placeholder clips)\n"
                "  SPEC.lua returns { mode = \"cartesian\"|\"directional\"|\"grid\",\n"
                "                     samples = { {name=, x=, y=}, ... }, range = {xmin, xmax, ymin, ymax} }\n"
                "  --res N   heat-map cells per axis (4..200, default 40)\n");
}

/* The usage on stderr: exit code 2. */
static int usage(void)
{
    print_usage(stderr);
    return 2;
}

/* A bad argument: what is wrong, then the usage; exit code 2. */
static int bad_argument(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static int bad_argument(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "blendwerk plot-blend: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return usage();
}

int bw_cmd_plot_blend(int argc, char **argv)
{
    static const char *const valued[] = {"--out", "--state", "--asset", "--res"};
    const char *spec_path = NULL, *out_path = NULL, *state = NULL, *asset = NULL;
    const char *res_arg = NULL;
    const char **slot[] = {&out_path, &state, &asset, &res_arg};
    int res = 40;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int opt = -1;
        for (int k = 0; k < 4; k++)
            if (!strcmp(a, valued[k])) opt = k;
        if (opt >= 0 && i + 1 >= argc) return bad_argument("%s needs a value", a);
        if (opt >= 0 && !bw_cli_option_once("plot-blend", a, slot[opt], argv[i + 1])) return usage();
        if (opt == 3) {
            char *end = NULL;
            const char *v = argv[++i];
            long n = strtol(v, &end, 10);
            if (!v[0] || *end || n < 4 || n > 200)
                return bad_argument("--res wants a whole number from 4 to 200, not '%s'", v);
            res = (int)n;
        } else if (opt >= 0) {
            i++;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            print_usage(stdout); /* as every subcommand's --help: the usage, exit 0 */
            return 0;
        } else if (a[0] == '-' && a[1]) {
            return bad_argument("unknown option '%s'", a);
        } else if (!spec_path) {
            spec_path = a;
        } else {
            return bad_argument("one SPEC.lua or GRAPH.lua only ('%s' and '%s')", spec_path, a);
        }
    }
    if (!spec_path) return bad_argument("SPEC.lua or GRAPH.lua is missing");
    if (!out_path) return bad_argument("--out FILE.svg is missing");
    if (asset && !state) return bad_argument("--asset goes with --state (a blend-space spec names no clips)");
    /* a slip of the shell's completion must not replace the source */
    if (bw_io_same_file(out_path, spec_path)) return bad_argument("--out '%s' is the input '%s' itself", out_path, spec_path);
    if (bw_io_same_file(out_path, asset)) return bad_argument("--out '%s' is the asset '%s' itself", out_path, asset);

    spec *s = (spec *)calloc(1, sizeof *s);
    if (!s) return 1;
    s->path = spec_path;
    s->state = state;
    bw_cli_graph g = {.cmd = "plot-blend", .path = spec_path, .asset_path = asset, .user = s};
    if (state ? bw_cli_graph_run(&g, read_state) != 0 : !load_spec(s)) {
        free(s);
        return 1;
    }
    plot p = {s, NULL, res, 0, 0, 0, 0, NULL};
    double r[4];
    if (s->has_range) memcpy(r, s->range, sizeof r);
    else default_range(s, r);
    p.xmin = r[0];
    p.xmax = r[1];
    p.ymin = r[2];
    p.ymax = r[3];
    p.weights = (float *)malloc((size_t)res * res * s->count * sizeof(float));
    bool ok = p.weights && compute(&p);
    if (!ok) fprintf(stderr, "blendwerk plot-blend: %s: could not evaluate the blend space\n", spec_path);
    if (ok) ok = write_svg(&p, out_path);
    free(p.weights);
    free(s);
    return ok ? 0 : 1;
}
