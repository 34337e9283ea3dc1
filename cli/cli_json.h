/* cli_json.h - JSON output shared by subcommands: strings (escaped, invalid
 * UTF-8 replaced by U+FFFD), numbers (%.9g, null when not finite) and the
 * "joints" and "curves" arrays in the shape `blendwerk sample --json` prints. */
#ifndef BW_CLI_JSON_H
#define BW_CLI_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "blendwerk/asset.h"
#include "blendwerk/pose.h"

void bw_cli_json_string(const char *s);
void bw_cli_json_number(float v);
void bw_cli_json_array(const float *v, int n);
/* "joints":[{"name":...,"parent":P,"node":N,"t":[..],"r":[..],"s":[..],"coverage":c},...]
 * (P the parent's index in the array or null; "node" only for glTF). */
void bw_cli_json_joints(const bw_asset *asset, const bw_pose *pose);
/* "curves":[{"name":...,"kind":"float"|"angle","value":v,"coverage":c},...]
 * (angle values in radians as mixed, not reduced to a range). */
void bw_cli_json_curves(const bw_asset *asset, const bw_pose *pose);
/* An error on stderr: "blendwerk CMD: " (nothing when cmd is NULL) and
 * `message` (a loader's or a script's, which may quote the file's own
 * text; one problem a line) as bw_text_print_lines prints it (control
 * bytes as \xNN, blendwerk/text.h), then a newline. */
void bw_cli_error_line(const char *cmd, const char *message);
/* fflush(stdout); false when it failed, remembering the reason (errno) of
 * the first failure for bw_cli_output_error. Commands flush through it so
 * that main's final check can name why the output was lost ("No space
 * left on device") even when the write failed in an earlier flush. */
bool bw_cli_flush(void);
/* errno of the first failed bw_cli_flush, 0 when none failed. */
int bw_cli_output_error(void);
/* "angle" or "float": a rig curve's kind as the outputs name it. */
const char *bw_cli_curve_kind_name(const bw_rig *rig, int curve);

#endif
