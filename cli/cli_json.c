/* cli_json.c - see cli_json.h (moved here from cmd_sample.c so that
 * `sample --json` and `simulate --joints` print joints one way). */
#include "cli_json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "blendwerk/rig.h"
#include "blendwerk/text.h"

void bw_cli_json_string(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    putchar('"');
    while (*p) {
        unsigned char c = *p;
        if (c == '"' || c == '\\') {
            printf("\\%c", c);
            p++;
        } else if (c < 0x20) {
            printf("\\u%04x", c);
            p++;
        } else if (c < 0x80) {
            putchar(c);
            p++;
        } else {
            int len = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
            int ok = len > 0;
            for (int i = 1; ok && i < len; i++) ok = (p[i] & 0xc0) == 0x80;
            if (ok && len == 3) {
                unsigned cp = ((c & 0x0fu) << 12) | ((p[1] & 0x3fu) << 6) | (p[2] & 0x3fu);
                ok = cp >= 0x800 && (cp < 0xd800 || cp > 0xdfff);
            }
            if (ok && len == 4) {
                unsigned cp = ((c & 0x07u) << 18) | ((p[1] & 0x3fu) << 12) | ((p[2] & 0x3fu) << 6) | (p[3] & 0x3fu);
                ok = cp >= 0x10000 && cp <= 0x10ffff;
            }
            if (ok) {
                fwrite(p, 1, (size_t)len, stdout);
                p += len;
            } else {
                printf("\\ufffd");
                p++;
            }
        }
    }
    putchar('"');
}

void bw_cli_json_number(float v)
{
    if (isfinite(v)) printf("%.9g", (double)v);
    else printf("null"); /* never expected: the core keeps poses finite */
}

void bw_cli_json_array(const float *v, int n)
{
    putchar('[');
    for (int i = 0; i < n; i++) {
        if (i) putchar(',');
        bw_cli_json_number(v[i]);
    }
    putchar(']');
}

void bw_cli_json_joints(const bw_asset *asset, const bw_pose *pose)
{
    const bw_rig *rig = asset->rig;
    printf("\"joints\":[");
    for (int j = 0; j < pose->joint_count; j++) {
        const bw_transform *x = &pose->joints[j];
        int parent = bw_rig_joint_parent(rig, j);
        printf("%s{\"name\":", j ? "," : "");
        bw_cli_json_string(bw_rig_joint_name(rig, j));
        if (parent >= 0) printf(",\"parent\":%d", parent);
        else printf(",\"parent\":null");
        if (asset->kind == BW_ASSET_GLTF && asset->joint_node && asset->joint_node[j] >= 0)
            printf(",\"node\":%d", asset->joint_node[j]);
        printf(",\"t\":");
        bw_cli_json_array(x->t, 3);
        printf(",\"r\":");
        bw_cli_json_array(x->r, 4);
        printf(",\"s\":");
        bw_cli_json_array(x->s, 3);
        printf(",\"coverage\":");
        bw_cli_json_number(pose->coverage[j]);
        putchar('}');
    }
    printf("]");
}


void bw_cli_error_line(const char *cmd, const char *message)
{
    if (cmd) fprintf(stderr, "blendwerk %s: ", cmd);
    bw_text_print_lines(stderr, message ? message : "(no message)");
    fputc('\n', stderr);
}

const char *bw_cli_curve_kind_name(const bw_rig *rig, int curve)
{
    return bw_rig_curve_kind(rig, curve) == BW_CURVE_ANGLE ? "angle" : "float";
}

void bw_cli_json_curves(const bw_asset *asset, const bw_pose *pose)
{
    const bw_rig *rig = asset->rig;
    printf("\"curves\":[");
    for (int c = 0; c < pose->curve_count; c++) {
        printf("%s{\"name\":", c ? "," : "");
        bw_cli_json_string(bw_rig_curve_name(rig, c));
        printf(",\"kind\":\"%s\",\"value\":", bw_cli_curve_kind_name(rig, c));
        bw_cli_json_number(pose->curves[c]);
        printf(",\"coverage\":");
        bw_cli_json_number(pose->curve_coverage[c]);
        putchar('}');
    }
    printf("]");
}

static int first_output_error; /* errno of the first failed bw_cli_flush */

bool bw_cli_flush(void)
{
    errno = 0;
    if (fflush(stdout) == 0) return true;
    if (!first_output_error) first_output_error = errno ? errno : EIO;
    return false;
}

int bw_cli_output_error(void) { return first_output_error; }
