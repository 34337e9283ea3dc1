/* commands.h - the `blendwerk` command-line tool's subcommands. Each lives
 * in its own cli/cmd_<name>.c and returns the process exit code
 * (0 success, 1 failure of the work, 2 usage error). argv[0] is the
 * subcommand's name. */
#ifndef BW_COMMANDS_H
#define BW_COMMANDS_H

int bw_cmd_run(int argc, char **argv);        /* run SCRIPT.lua [ARGS...] */
int bw_cmd_info(int argc, char **argv);       /* info FILE */
int bw_cmd_sample(int argc, char **argv);     /* sample FILE --at CLIP:TIME[:W[:P]] ... [--json] */
int bw_cmd_plot_blend(int argc, char **argv); /* plot-blend SPEC.lua | GRAPH.lua --state NAME --out FILE.svg */
int bw_cmd_simulate(int argc, char **argv);   /* simulate GRAPH.lua --asset FILE --timeline T.lua [--json] [--joints] */
int bw_cmd_check(int argc, char **argv);      /* check GRAPH.lua [--asset FILE] */
int bw_cmd_watch(int argc, char **argv);      /* watch GRAPH.lua --asset FILE [--timeline T.lua] [--seconds N] */

#endif
