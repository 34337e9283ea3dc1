/* cli_load.h - loading an asset for a command-line subcommand: loader
 * warnings go to stderr as "warning: FILE: message", and a failure is
 * reported as "blendwerk CMD: FILE[:LINE]: message (at JSON path)". */
#ifndef BW_CLI_LOAD_H
#define BW_CLI_LOAD_H

#include "blendwerk/asset.h"

/* The loaded asset, or NULL after printing why. */
bw_asset *bw_cli_load_asset(const char *cmd, const char *path);

#endif
