/* cli_graph.h - a graph file (SPEC §12.1) for a command-line subcommand
 * (`check`, `plot-blend --state`): the file and the character it is read
 * against, loaded the same way for every command.
 *
 * The graph file is untrusted: it runs in a sandbox whose folder is the
 * file's (as `simulate` runs it), and `fn` runs there too, protected,
 * with the returned table at stack index 1. With an asset (--asset FILE,
 * anything cli_load.h loads) the graph's clips are the asset's and its rig
 * is there for the rig checks. Without one the clip names cannot be known
 * to exist: every distinct name the graph uses (a state's `clip`, a blend
 * leaf's `clip`) gets a placeholder clip of that name, 1 s long, looping
 * (a state still stops at 1 when it says loop = false), with no tracks
 * and no markers; clip-dependent checks need --asset. */
#ifndef BW_CLI_GRAPH_H
#define BW_CLI_GRAPH_H

#include <lua.h>
#include <stdbool.h>
#include <stdio.h>

#include "blendwerk/asset.h"
#include "sandbox.h"

#define BW_CLI_PLACEHOLDER_LENGTH 1.0f

typedef struct bw_cli_graph bw_cli_graph;
struct bw_cli_graph {
    const char *cmd;        /* the subcommand, for messages */
    const char *path;       /* the graph file as given: the FILE of its messages */
    const char *asset_path; /* NULL: placeholder clips, no rig */
    bool tag_errors;        /* a file that does not run prints "FILE:LINE: error: message" */
    bool compile;           /* fn gets the compiled graph (bw_lua_graph_load_file: Graph, or nil
                               and the error list) at 1 (and 2) instead of the table; needs
                               asset_path */
    void *user;
    bw_sandbox_report_fn report; /* optional: the sandbox's report function (user: `user`) */
    /* optional: called after fn returned 0, outside the protected call (so
     * that a long run is not under the loading limits), with the `results`
     * values fn left on top of the stack; its return is the exit status */
    int (*after)(lua_State *L, bw_cli_graph *g);
    int results;
    /* filled by bw_cli_graph_run for fn */
    const bw_rig *rig;
    const bw_clip *const *clips;
    int clip_count;
    /* owned by bw_cli_graph_run */
    bw_asset *asset;
    bw_clip **placeholders;
    int placeholder_count;
    int status;
};

/* The leaves (tables with a `clip` field) of the blend node at idx,
 * depth first through `children`, each passed to fn with the leaf at the
 * top of the stack. Nodes nested deeper than 64 levels are not visited
 * (the graph reader reports them). */
void bw_cli_blend_leaves(lua_State *L, int idx, void (*fn)(lua_State *L, void *user), void *user);

/* Print each string of the list at idx (the reader's or the lint pass's
 * messages, lua_graph.h) on its own line to `to`, after `prefix` ("" for
 * none). The one loop the subcommands print an error list with. */
void bw_cli_print_list(lua_State *L, int idx, FILE *to, const char *prefix);

/* Load g->asset_path (if set) and g->path, then call fn(L, g) in the
 * sandbox; its return is the exit status (then g->after, if set and fn
 * returned 0, whose return is). Returns that status, or 1 after
 * printing why the asset or the file did not load (the file's own errors
 * as "FILE:LINE: message", with "error: " before the message when
 * g->tag_errors). */
int bw_cli_graph_run(bw_cli_graph *g, int (*fn)(lua_State *L, bw_cli_graph *g));

#endif
