/* cli_load.c - see cli_load.h. */
#include "cli_load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendwerk/text.h"
#include "character.h"
#include "cli_json.h"

/* The loader's message, made sure to name the file, its line and JSON path
 * (loaders usually put them in the message already). The message quotes
 * the file's own names and tokens: printed through blendwerk/text.h. */
static void report_load_error(const char *cmd, const char *path, const bw_error *err)
{
    fprintf(stderr, "blendwerk %s: ", cmd);
    if (!strstr(err->message, path)) {
        bw_text_print(stderr, path);
        if (err->line > 0) fprintf(stderr, ":%d", err->line);
        fputs(": ", stderr);
    }
    bw_text_print_lines(stderr, err->message[0] ? err->message : bw_result_name(err->code));
    if (err->where[0] && !strstr(err->message, err->where)) {
        fputs(" (at ", stderr);
        bw_text_print(stderr, err->where);
        fputc(')', stderr);
    }
    fputc('\n', stderr);
}

/* The loader's logger: one line per message on stderr. Loader messages
 * usually start with the file name (and line or JSON path) already, so the
 * name is added only when it is missing. `user` is the path. */
static void print_log(void *user, bw_log_level level, const char *message)
{
    const char *path = (const char *)user;
    const char *label = level == BW_LOG_ERROR ? "error" : level == BW_LOG_INFO ? "note" : "warning";
    fprintf(stderr, "%s: ", label);
    if (!strstr(message, path)) {
        bw_text_print(stderr, path);
        fputs(": ", stderr);
    }
    bw_text_print(stderr, message);
    fputc('\n', stderr);
}

bool bw_cli_is_character(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return n > 4 && strcmp(path + n - 4, ".lua") == 0;
}

/* The character's rig and clips moved into an asset allocated with malloc
 * (what bw_asset_destroy frees with the default allocator); NULL when out
 * of memory, the character keeping everything. */
static bw_asset *asset_from_character(bw_character *ch)
{
    int joints = bw_rig_joint_count(ch->rig);
    bw_asset *asset = (bw_asset *)calloc(1, sizeof *asset);
    bw_clip **clips = (bw_clip **)calloc((size_t)ch->clip_count, sizeof *clips);
    int *nodes = (int *)malloc(sizeof(int) * (size_t)(joints > 0 ? joints : 1));
    if (!asset || !clips || !nodes) {
        free(asset);
        free(clips);
        free(nodes);
        return NULL;
    }
    for (int j = 0; j < joints; j++) nodes[j] = -1;
    for (int i = 0; i < ch->clip_count; i++) {
        clips[i] = ch->clips[i].clip;
        ch->clips[i].clip = NULL;
    }
    asset->kind = BW_ASSET_LUA; /* no BVH frames, no nodes (joint_node -1) */
    asset->rig = ch->rig;
    ch->rig = NULL;
    asset->clips = clips;
    asset->clip_count = ch->clip_count;
    asset->joint_node = nodes;
    return asset;
}

/* A .lua character file through the shared loader, as untrusted mod code.
 * No host fields: the tools take exactly what the demo takes (a field the
 * demo refuses, such as `scene`, is refused here with the demo's message).
 * The character's warnings (its rig's and clips' creation warnings) go to
 * stderr as the other loaders' do. */
static bw_asset *load_character(const char *cmd, const char *path)
{
    static char err[BW_CLI_ERROR_MAX];
    bw_character *ch = NULL;
    bw_character_options options = {0};
    options.logger.fn = print_log;
    options.logger.user = (void *)path;
    if (!bw_character_load(path, &options, &ch, err, sizeof err)) {
        bw_cli_error_line(cmd, err); /* the script's own error text: control bytes as \xNN */
        return NULL;
    }
    bw_asset *asset = asset_from_character(ch);
    bw_character_destroy(ch);
    if (!asset) fprintf(stderr, "blendwerk %s: %s: out of memory\n", cmd, path);
    return asset;
}

bw_asset *bw_cli_load_asset(const char *cmd, const char *path)
{
    if (bw_cli_is_character(path)) return load_character(cmd, path);
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
