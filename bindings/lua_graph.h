/* lua_graph.h - graph files (SPEC §12.1) for Lua and for the command line:
 * the reader from a table to a bw_graph_desc (bindings/lua_graph.c), and
 * line numbers for plain tables (bindings/graph_source.c). Internal to the
 * bindings and the `blendwerk` tool; the Lua API is in docs/lua-api.md. */
#ifndef BW_LUA_GRAPH_H
#define BW_LUA_GRAPH_H

#include <lua.h>
#include <stdbool.h>
#include <stddef.h>

#include "blendwerk/clip.h"
#include "blendwerk/graph.h"
#include "blendwerk/rig.h"

#define BW_LUA_GRAPH "blendwerk.Graph"
#define BW_LUA_CURSOR "blendwerk.Cursor"

/* ---- line numbers (graph_source.c) ---- */

/* Run the Lua source `text` (chunk name "@display") with every table
 * constructor recording its line and its items' lines (see the top of
 * graph_source.c) and push its first result. Raises on a syntax or
 * runtime error ("display:LINE: message"), on a binary chunk ("display:
 * a binary chunk is refused ...") and on nesting too deep for the parser
 * ("display: C stack overflow"). Runs under whatever limits the
 * calling code has (inside a sandbox call: the sandbox's). */
void bw_lua_run_source(lua_State *L, const char *text, size_t size, const char *display);
/* The same for a file: in a sandbox state `name` is one of the mod's
 * files (bw_sandbox_push_file_text's rules), otherwise a path. `what`
 * names the caller in messages; `display` (NULL: name) is the chunk name.
 * Lua modules the file requires run through the same rewrite, their
 * tables carrying their own file's locations (below). */
void bw_lua_run_source_file(lua_State *L, const char *what, const char *name, const char *display);
/* The rewrite itself (for tests): push the rewritten text of `src`, or
 * push nothing and return false when the tokenizer cannot follow it. */
bool bw_lua_instrument_source(lua_State *L, const char *src, size_t n);
/* Locations: the line functions below return a line of the chunk run,
 * or for a table of a module it required (in a sandbox: see the top of
 * graph_source.c) line + id × BW_LUA_LINE_FILE_STRIDE, the id naming the
 * module's file; bw_lua_line_file splits one into the plain line
 * (returned) and the file (*file: NULL for the chunk itself, else a name
 * the state keeps). */
#define BW_LUA_LINE_FILE_STRIDE (1 << 22) /* above any line of a source (at most 4 MiB) */
#define BW_LUA_LINE_FILE_MAX 500          /* module files a state names (more: the chunk's lines) */
int bw_lua_line_file(lua_State *L, int location, const char **file);
/* The line where the table at idx was constructed (0: unknown, e.g. a
 * table built by C). */
int bw_lua_table_line(lua_State *L, int idx);
/* The line of the item `key = ...` of the table at idx, else the table's
 * line. bw_lua_item_line: the i-th positional item (1-based). */
int bw_lua_key_line(lua_State *L, int idx, const char *key);
int bw_lua_item_line(lua_State *L, int idx, int item);
/* A key written twice in the constructor of the table at idx (Lua keeps
 * the last one silently): returns 1 with its name and both lines. */
int bw_lua_first_duplicate_key(lua_State *L, int idx, char *name, size_t name_size, int *first_line, int *line);

/* ---- a graph file's blend trees (lua_blendtree.c) ---- */

/* How the graph reader reads a state's blend tree through the one reader
 * of blendwerk.blend_tree (the same fields, kinds and checks), with every
 * problem reported rather than the first: each through `problem`, with
 * its path as the file writes it (`path`, then ".children[2]",
 * ".params[2]", ".at", ...) and its line (the entry's, else the nearest
 * enclosing table's, else `line`). Compile problems of the core
 * (negative lengths, NaN, grid shapes) come the same way, at the node
 * they name. Parameters are the fixed list `params` (a name not in it
 * is "unknown parameter 'x'"); each leaf's clip value is resolved by
 * `clip` and a leaf may not have `length`. */
typedef struct bw_lua_tree_reading {
    const char *path; /* the tree itself: "layers[1].states.move.blend" */
    int line;         /* the line of the tree's entry */
    int params;       /* absolute stack index: the list of parameter names */
    /* The leaf at leaf_idx: its clip value is on top of the stack. Replace
     * it by the value the tree keeps for the leaf and set *length; or
     * report (path is the leaf's ".clip") and return false. */
    bool (*clip)(void *user, lua_State *L, int leaf_idx, const char *path, int line, float *length);
    /* The fields of the node at idx: report each unknown or repeated one
     * (path and line are the node's) and return whether there was none. */
    bool (*fields)(void *user, lua_State *L, int idx, const char *const *allowed, int line, const char *path);
    void (*problem)(void *user, int line, const char *path, const char *message);
    void *user;
} bw_lua_tree_reading;

/* Read the blend-tree node at idx as `how` says: pushes a
 * blendwerk.BlendTree (its clips() are the values `clip` gave) and returns
 * true, or pushes nil and returns false after reporting every problem.
 * Raises only when out of memory. */
bool bw_lua_blend_tree_read(lua_State *L, int idx, const bw_lua_tree_reading *how);

/* ---- the reader (lua_graph.c) ---- */

/* Read the graph description at desc_idx (SPEC §12.1), resolve its clip
 * names among clips[0..clip_count) (bw_clip_name), compile it. `file` is
 * the name errors carry, `default_line` the line for tables without one
 * (the caller's line for a table built in code; 0 for none). Pushes a
 * blendwerk.Graph (not yet bound to a rig: it makes no cursor) or nil and
 * a list of "FILE:LINE: message" strings, every problem found. The clips
 * must outlive the graph. Predicates run in this state: through the
 * sandbox's callback limits when it is a sandbox's. */
int bw_lua_graph_build(lua_State *L, int desc_idx, const char *file, int default_line, const bw_clip *const *clips,
                       int clip_count);
/* The one graph-file loader: run the file `name` as
 * bw_lua_run_source_file does (display NULL: name; `what` names the
 * caller in messages), then bw_lua_graph_build with `display` as the
 * FILE of its problems. Pushes what bw_lua_graph_build pushes and
 * returns the count; raises on a syntax or runtime error of the file
 * (call it protected). cli/cli_graph.c uses it (simulate), and so can any
 * host that reloads a graph file. */
int bw_lua_graph_load_file(lua_State *L, const char *what, const char *name, const char *display,
                           const bw_clip *const *clips, int clip_count);
/* The same reading, then the lint pass (bw_graph_lint, graph_lint.h; `rig`
 * may be NULL: no rig checks) in place of compile: pushes the list of
 * every finding, "FILE:LINE: error: PATH: message" or "FILE:LINE: warning:
 * PATH: message" (the reader's own problems are errors; PATH and LINE are
 * the Lua entry's, mapped as compile errors are; a clip's entry is the
 * first state that plays it; a message's "transitions[N]" is made 1-based
 * like the paths; while the reader has problems, the lint's "nothing
 * uses" findings are held back: a refused part may use it), and returns
 * how many are errors. */
int bw_lua_graph_lint(lua_State *L, int desc_idx, const char *file, int default_line, const bw_clip *const *clips,
                      int clip_count, const bw_rig *rig);
/* The compiled graph of the blendwerk.Graph at idx (raises otherwise). */
const bw_graph *bw_lua_graph_check(lua_State *L, int idx);
/* Push the list of Clips the Graph at idx was built with (blendwerk.graph's
 * `clips` option: graph clip i is item i + 1; an empty table when it has
 * none). For hosts that bind the graph to clips of their own by name (the
 * Lua animator). Raises when idx is not a Graph. */
void bw_lua_graph_push_clips(lua_State *L, int idx);
/* Make the predicates of the Graph whose handle header is `graph` run in
 * thread L (the state's main thread or a coroutine; NULL: the main thread)
 * and return the thread they ran in before: a host that updates a cursor
 * of the graph (not a Lua method; the Lua animator) sets its thread before
 * and restores the returned one after, as cursor:update does, so the graph
 * never keeps a coroutine that may be collected. */
struct bw_lua_object;
lua_State *bw_lua_graph_use_thread(struct bw_lua_object *graph, lua_State *L);

/* A host of a cursor of the graph that is not a blendwerk.Cursor (the Lua
 * animator), as graph:refresh_clips sees it. `busy`: whether the object at
 * idx, playing `graph`, is inside its own update (the refresh then
 * raises). `refresh`: the graph now plays `clips` (graph order, n of them,
 * made for the graph; `objs` their Clip handles, the list at stack index
 * `list` the Clip userdata, 1-based): with apply false only check
 * (bw_animator_refresh_clips_validate), with apply true take them (the
 * object counts a use of each Clip it takes and anchors its userdata, so
 * it stays alive as long as the object uses it, whatever becomes of the
 * graph); problems into errors, `where` "clips[i]" 0-based. Neither
 * raises or allocates on the Lua state. An object that plays another
 * graph by now (or is closed) returns false / BW_OK and does nothing. */
struct bw_lua_clip;
typedef struct bw_lua_graph_user {
    bool (*busy)(lua_State *L, int idx, const bw_graph *graph);
    bw_result (*refresh)(lua_State *L, int idx, const bw_graph *graph, const bw_clip *const *clips,
                         struct bw_lua_clip *const *objs, int list, int n, bool apply, bw_graph_errors *errors);
} bw_lua_graph_user;
/* Register the object at uidx (kept weakly) as a user of the Graph at gidx:
 * graph:refresh_clips checks it and hands it the new clips. */
void bw_lua_graph_add_user(lua_State *L, int gidx, int uidx, const bw_lua_graph_user *user);

#endif
