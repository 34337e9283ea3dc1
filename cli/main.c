/* main.c - the `blendwerk` command-line tool: dispatches to subcommands. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "blendwerk/version.h"
#include "cli_json.h"
#include "commands.h"

typedef struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *usage;
} command;

static const command commands[] = {
    {"run", bw_cmd_run, "run SCRIPT.lua [ARGS...]        run a trusted Lua script with the blendwerk module preloaded\n"
                        "  run --sandbox SCRIPT.lua [--budget N] [--memory-mb N] [--time-limit S] [ARGS...]\n"
                        "                                  run a script as untrusted mod code (docs/sandbox.md)"},
    {"info", bw_cmd_info, "info FILE                       joint tree and clips of a glTF / BVH file or Lua character"},
    {"sample", bw_cmd_sample, "sample FILE --at CLIP:TIME[:WEIGHT[:PRIORITY]] [--at ...] [--json]\n"
                              "                                  sample and mix clips, print every joint"},
    {"simulate", bw_cmd_simulate, "simulate GRAPH.lua --asset FILE --timeline TIMELINE.lua [--json] [--joints]\n"
                                  "                                  run a graph over a scripted timeline, one trace line per frame"},
    {"check", bw_cmd_check, "check GRAPH.lua [--asset FILE]  lint a graph file: FILE:LINE: error|warning: ... per finding"},
    {"watch", bw_cmd_watch, "watch GRAPH.lua --asset FILE [--timeline TIMELINE.lua] [--seconds N] [--fade S] [--poll]\n"
                            "                                  run a graph in real time, reloading it on every save"},
    {"plot-blend", bw_cmd_plot_blend, "plot-blend SPEC.lua --out FILE.svg [--res N]\n"
                                      "  plot-blend GRAPH.lua --state NAME [--asset FILE] --out FILE.svg [--res N]\n"
                                      "                                  draw a 2D blend space's weights"},
};

static void usage(FILE *to)
{
    fprintf(to, "usage: blendwerk COMMAND [ARGS...]\n       blendwerk --version\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) fprintf(to, "  %s\n", commands[i].usage);
}

/* A command's output that did not reach stdout (a full disk, a closed
 * pipe) is a failure of the work, not a success with nothing written. */
static int finish(const char *cmd, int status)
{
    bool flushed = bw_cli_flush();
    if (flushed && !ferror(stdout)) return status;
    int why = bw_cli_output_error(); /* this flush's reason, or an earlier one's */
    fprintf(stderr, "blendwerk%s%s: cannot write the output: %s\n", cmd ? " " : "", cmd ? cmd : "",
            why ? strerror(why) : "a write failed");
    return status ? status : 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return finish(NULL, 0); /* the help lost (a full disk) is a failure too */
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("blendwerk %s\n", BW_VERSION_STRING);
        return finish(NULL, 0);
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) return finish(commands[i].name, commands[i].fn(argc - 1, argv + 1));
    fprintf(stderr, "blendwerk: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
