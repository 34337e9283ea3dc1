/* cli_args.h - argument checks shared by the subcommands. */
#ifndef BW_CLI_ARGS_H
#define BW_CLI_ARGS_H

#include <stdbool.h>

/* A single-valued option (--asset, --timeline, --out, ...): `value` into
 * *slot, or, when the option was already given, false after printing
 * "blendwerk CMD: OPT is given twice ('FIRST' and 'SECOND')" on stderr
 * (a usage error: the caller prints its usage and exits 2). The last of
 * two silently winning hid a slip such as two --asset files. */
bool bw_cli_option_once(const char *cmd, const char *opt, const char **slot, const char *value);

#endif
