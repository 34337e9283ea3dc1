/* cli_load.c - see cli_load.h. */
#include "cli_load.h"

#include <stdio.h>
#include <string.h>

/* The loader's message, made sure to name the file, its line and JSON path
 * (loaders usually put them in the message already). */
static void report_load_error(const char *cmd, const char *path, const bw_error *err)
{
    fprintf(stderr, "blendwerk %s: ", cmd);
    if (!strstr(err->message, path)) {
        if (err->line > 0) fprintf(stderr, "%s:%d: ", path, err->line);
        else fprintf(stderr, "%s: ", path);
    }
    fprintf(stderr, "%s", err->message[0] ? err->message : bw_result_name(err->code));
    if (err->where[0] && !strstr(err->message, err->where)) fprintf(stderr, " (at %s)", err->where);
    fprintf(stderr, "\n");
}

/* The loader's logger: one line per message on stderr. Loader messages
 * usually start with the file name (and line or JSON path) already, so the
 * name is added only when it is missing. `user` is the path. */
static void print_log(void *user, bw_log_level level, const char *message)
{
    const char *path = (const char *)user;
    const char *label = level == BW_LOG_ERROR ? "error" : level == BW_LOG_INFO ? "note" : "warning";
    if (strstr(message, path)) fprintf(stderr, "%s: %s\n", label, message);
    else fprintf(stderr, "%s: %s: %s\n", label, path, message);
}

bw_asset *bw_cli_load_asset(const char *cmd, const char *path)
{
    bw_asset *asset = NULL;
    bw_error err;
    memset(&err, 0, sizeof err);
    bw_asset_options options;
    memset(&options, 0, sizeof options);
    options.logger.fn = print_log;
    options.logger.user = (void *)path;
    if (bw_asset_load_file(path, &options, &asset, &err) != BW_OK) {
        report_load_error(cmd, path, &err);
        return NULL;
    }
    return asset;
}
