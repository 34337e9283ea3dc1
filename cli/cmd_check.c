/* cmd_check.c - `blendwerk check GRAPH.lua [--asset FILE]`: read a graph
 * file, lint it (bw_graph_lint, docs/graphs.md "Linting") and print every
 * finding on stdout as "FILE:LINE: error|warning: PATH: message", LINE and
 * PATH the Lua entry's (the reader's path -> line map, lua_graph.h
 * bw_lua_graph_lint). A file that does not run (a syntax error, a runtime
 * error) is one "FILE:LINE: error: message" line.
 *
 * With --asset the clips are the asset's (unknown clip names are errors)
 * and its rig is checked against the masks and the clips; without it the
 * graph is compiled against placeholder clips (cli_graph.h: 1 s, looping,
 * no tracks), so clip names are not checked and neither is anything that
 * depends on a clip's content.
 *
 * Exit codes: 0 no errors (warnings allowed), 1 errors (or the file or the
 * asset did not load), 2 usage. */
#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#include "cli_args.h"
#include "cli_graph.h"
#include "commands.h"
#include "lua_graph.h"

static void usage(FILE *to)
{
    fprintf(to, "usage: blendwerk check GRAPH.lua [--asset FILE]\n"
                "  prints FILE:LINE: error|warning: PATH: message for every finding;\n"
                "  exit 1 when there are errors\n"
                "  --asset FILE  the character (.glb / .gltf / .bvh / .lua) whose clips and rig the graph uses;\n"
                "                without it clip names and the rig are not checked\n");
}

static int lint(lua_State *L, bw_cli_graph *g)
{
    int errors = bw_lua_graph_lint(L, 1, g->path, 0, g->clips, g->clip_count, g->rig);
    bw_cli_print_list(L, -1, stdout, "");
    return errors > 0 ? 1 : 0;
}

int bw_cmd_check(int argc, char **argv)
{
    bw_cli_graph g;
    memset(&g, 0, sizeof g);
    g.cmd = "check";
    g.tag_errors = true;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--asset") && i + 1 < argc) {
            if (!bw_cli_option_once("check", a, &g.asset_path, argv[++i])) {
                usage(stderr);
                return 2;
            }
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (a[0] != '-' && !g.path) g.path = a;
        else {
            fprintf(stderr, "blendwerk check: unexpected argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!g.path) {
        fprintf(stderr, "blendwerk check: GRAPH.lua is missing\n");
        usage(stderr);
        return 2;
    }
    return bw_cli_graph_run(&g, lint); /* main flushes (and names a write's failure) */
}
