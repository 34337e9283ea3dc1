/* cmd_sample.c - `blendwerk sample FILE --at CLIP:TIME[:WEIGHT[:PRIORITY]]
 * [--at ...] [--json]`: sample clips of a glTF, BVH or Lua character file
 * (cli_load.h) and mix them the way the runtime does, then print every
 * joint's local transform and every rig curve's value.
 *
 * Each --at is one looping track: the clip is sampled at the Euclidean
 * remainder of TIME by its length (TIME = length samples time 0), and the
 * tracks go through the priority mixer (SPEC §5) over the rig's rest pose
 * with their WEIGHT (default 1; beyond float range it clamps to FLT_MAX as
 * in Lua's blendwerk.mix, so it is full weight) and PRIORITY (default 0).
 * Angle curves mix along the shortest arc. CLIP is a clip
 * name or "#N" (the N-th clip). Clip names may contain ':', so the numbers
 * are taken from the right: up to three trailing numeric fields are tried,
 * most first, and the first split whose remaining prefix names a clip wins.
 * When no split with valid numbers names a clip but one with number-shaped
 * fields does (walk:0.3:-1, walk:0.3:nan), the bad field is reported by
 * name (a bad WEIGHT, TIME or PRIORITY, exit 2) rather than as a missing
 * clip. Loader warnings go to stderr as "warning: FILE: message".
 *
 * Output: one line per joint, then one per curve, or with --json exactly
 *   {"joints":[{"name":...,"parent":P,"node":N,"t":[x,y,z],"r":[x,y,z,w],
 *               "s":[x,y,z],"coverage":c},...],
 *    "curves":[{"name":...,"kind":"float"|"angle","value":v,"coverage":c},...]}
 * where P is the parent's joint index in this same "joints" array (null
 * for roots; never a glTF node index), "node" is the glTF node index
 * (omitted for BVH and Lua files), "curves" is [] when the rig has none,
 * an angle curve's value is in radians exactly as the mixer leaves it (the
 * running value plus the weighted shortest-arc offsets, not reduced to a
 * range) and numbers are printed with %.9g.
 * Exit codes: 0 done, 1 the file could not be loaded or a clip is missing,
 * 2 bad arguments. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendwerk/asset.h"
#include "blendwerk/bind.h"
#include "blendwerk/mix.h"
#include "blendwerk/pose.h"
#include "blendwerk/sample.h"
#include "blendwerk/text.h"
#include "clamp_float.h"
#include "cli_json.h"
#include "cli_load.h"
#include "commands.h"

static void usage(FILE *to)
{
    fprintf(to, "usage: blendwerk sample FILE --at CLIP:TIME[:WEIGHT[:PRIORITY]] [--at ...] [--json]\n"
                "  FILE      a .gltf, .glb or .bvh file, or a .lua character file (run in the sandbox)\n"
                "  CLIP      clip name or #N (N-th clip, from 0)\n"
                "  TIME      playback time in seconds; the clip loops (Euclidean remainder by its length)\n"
                "  WEIGHT    mix weight >= 0, default 1; a share is min(weight x coverage, 1) (SPEC 5):\n"
                "            a weight above 1 counts as 1 (for 2:1 give 1 and 0.5)\n"
                "  PRIORITY  integer rank, default 0; higher ranks overlay lower ones\n"
                "  --json    print {\"joints\":[...],\"curves\":[...]} instead of one line per joint and\n"
                "            curve; each joint's \"parent\" is its parent's index in that same array (null\n"
                "            for a root), not a glTF node index (that one is \"node\")\n"
                "prints every joint's local transform and every rig curve (angle curves in radians)\n");
}

/* Copy the n-byte field s into buf as a C string; 0 if empty or too long. */
static int terminate(const char *s, size_t n, char *buf, size_t size)
{
    if (n == 0 || n >= size) return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return 1;
}

/* A whole string read by strtod, finite or not ("nan", "-inf", "1e999"
 * count): the shape of a number, whatever its value. */
static int numeric_shape(const char *s, size_t n)
{
    char buf[64];
    if (!terminate(s, n, buf, sizeof buf)) return 0;
    char *end = NULL;
    (void)strtod(buf, &end);
    return end != buf && *end == '\0';
}

/* A whole string as a finite double / an int. A number too small for a
 * double (1e-400) is the 0 or the subnormal strtod gives (a finite number
 * >= 0, however strtod flags the underflow); one too large is infinite. */
static int parse_double(const char *s, size_t n, double *out)
{
    char buf[64];
    if (!terminate(s, n, buf, sizeof buf)) return 0;
    char *end = NULL;
    double v = strtod(buf, &end);
    if (end == buf || *end != '\0' || !isfinite(v)) return 0;
    *out = v;
    return 1;
}

static int parse_int(const char *s, size_t n, int *out)
{
    char buf[32];
    if (!terminate(s, n, buf, sizeof buf)) return 0;
    char *end = NULL;
    errno = 0;
    long v = strtol(buf, &end, 10);
    if (*end != '\0' || errno == ERANGE || v < INT_MIN || v > INT_MAX) return 0;
    *out = (int)v;
    return 1;
}

/* One --at request. */
typedef struct request {
    const char *spec;
    int clip;
    double time;
    double weight;
    int priority;
} request;

/* Position of the k-th ':' from the right in spec (k >= 1), or NULL. */
static const char *colon_from_right(const char *spec, int k)
{
    for (const char *p = spec + strlen(spec); p > spec;) {
        p--;
        if (*p == ':' && --k == 0) return p;
    }
    return NULL;
}

/* Read `k` trailing numeric fields (TIME[, WEIGHT[, PRIORITY]]) after the
 * k-th colon from the right. Returns 0 when they are not all valid. */
static int parse_numbers(const char *spec, int k, request *r)
{
    const char *colon = colon_from_right(spec, k);
    if (!colon || colon == spec) return 0; /* the clip part must not be empty */
    const char *field = colon + 1;
    for (int i = 0; i < k; i++) {
        const char *stop = strchr(field, ':');
        size_t n = stop ? (size_t)(stop - field) : strlen(field);
        if (i == 0 && !parse_double(field, n, &r->time)) return 0;
        if (i == 1 && (!parse_double(field, n, &r->weight) || r->weight < 0)) return 0;
        if (i == 2 && !parse_int(field, n, &r->priority)) return 0;
        field += n + 1;
    }
    return 1;
}

/* The clip name before the k-th colon from the right, or -1. */
static int clip_before(const bw_asset *asset, const char *spec, int k)
{
    const char *colon = colon_from_right(spec, k);
    if (!colon || colon == spec) return -1;
    size_t n = (size_t)(colon - spec);
    char *name = (char *)malloc(n + 1);
    if (!name) return -1;
    memcpy(name, spec, n);
    name[n] = '\0';
    int clip = bw_asset_find_clip(asset, name);
    free(name);
    return clip;
}

/* After resolve() failed: is there a split whose prefix names a clip and
 * whose fields all look like numbers, one of them out of range? Then the
 * user meant that clip and got a value wrong; name the field. Returns 1
 * after printing the message. */
static int report_bad_field(const bw_asset *asset, const char *path, const char *spec)
{
    static const char *const what[3] = {"time", "weight", "priority"};
    static const char *const rule[3] = {"TIME must be a finite number", "WEIGHT must be a finite number >= 0",
                                        "PRIORITY must be an integer"};
    for (int k = 3; k >= 1; k--) {
        const char *colon = colon_from_right(spec, k);
        if (!colon || colon == spec) continue;
        const char *field = colon + 1;
        int shaped = 1;
        for (int i = 0; i < k && shaped; i++) {
            const char *stop = strchr(field, ':');
            size_t n = stop ? (size_t)(stop - field) : strlen(field);
            shaped = numeric_shape(field, n);
            field += n + 1;
        }
        if (!shaped || clip_before(asset, spec, k) < 0) continue;
        field = colon + 1;
        for (int i = 0; i < k; i++) {
            const char *stop = strchr(field, ':');
            size_t n = stop ? (size_t)(stop - field) : strlen(field);
            double d;
            int p;
            int ok = i == 0 ? parse_double(field, n, &d)
                     : i == 1 ? parse_double(field, n, &d) && d >= 0
                              : parse_int(field, n, &p);
            if (!ok) {
                fprintf(stderr, "blendwerk sample: %s: bad %s '%.*s' in '--at %s': %s\n", path, what[i], (int)n, field,
                        spec, rule[i]);
                return 1;
            }
            field += n + 1;
        }
    }
    return 0;
}

/* CLIP:TIME:WEIGHT with a number-shaped but non-finite WEIGHT (walk:0.3:nan)
 * fails the TIME check of a one-number split; whether it is a bad WEIGHT
 * or a bad TIME of a clip named "walk:0.3" depends on the clip names, so
 * the verdict waits until the file is loaded. */
static int maybe_bad_weight(const char *spec)
{
    const char *c1 = colon_from_right(spec, 1), *c2 = colon_from_right(spec, 2);
    if (!c1 || !c2 || c2 == spec) return 0;
    double t;
    return numeric_shape(c1 + 1, strlen(c1 + 1)) && parse_double(c2 + 1, (size_t)(c1 - c2 - 1), &t);
}

/* Resolve a request against the loaded clips, trying the most numeric
 * fields first. Returns 0 when no split names a clip. */
static int resolve(const bw_asset *asset, request *r)
{
    for (int k = 3; k >= 1; k--) {
        request trial = {r->spec, -1, 0.0, 1.0, 0};
        if (!parse_numbers(r->spec, k, &trial)) continue;
        trial.clip = clip_before(asset, r->spec, k);
        if (trial.clip >= 0) {
            *r = trial;
            return 1;
        }
    }
    return 0;
}

static void print_json(const bw_asset *asset, const bw_pose *pose)
{
    putchar('{');
    bw_cli_json_joints(asset, pose);
    putchar(',');
    bw_cli_json_curves(asset, pose);
    printf("}\n");
}

static void print_text(const bw_asset *asset, const bw_pose *pose)
{
    const bw_rig *rig = asset->rig;
    for (int j = 0; j < pose->joint_count; j++) {
        const bw_transform *x = &pose->joints[j];
        printf("%d ", j);
        bw_text_print(stdout, bw_rig_joint_name(rig, j));
        printf(" parent %d", bw_rig_joint_parent(rig, j));
        if (asset->kind == BW_ASSET_GLTF && asset->joint_node && asset->joint_node[j] >= 0)
            printf(" node %d", asset->joint_node[j]);
        printf("  t %.6g %.6g %.6g  r %.6g %.6g %.6g %.6g  s %.6g %.6g %.6g  coverage %.6g\n", (double)x->t[0],
               (double)x->t[1], (double)x->t[2], (double)x->r[0], (double)x->r[1], (double)x->r[2], (double)x->r[3],
               (double)x->s[0], (double)x->s[1], (double)x->s[2], (double)pose->coverage[j]);
    }
    for (int c = 0; c < pose->curve_count; c++) {
        printf("curve %d ", c);
        bw_text_print(stdout, bw_rig_curve_name(rig, c));
        printf(" %s  value %.6g  coverage %.6g\n", bw_cli_curve_kind_name(rig, c), (double)pose->curves[c],
               (double)pose->curve_coverage[c]);
    }
}

/* Euclidean remainder of t by the clip length, in [0, length). */
static float loop_time(double t, float length)
{
    if (!(length > 0.0f)) return 0.0f;
    double r = fmod(t, (double)length);
    if (r < 0) r += (double)length;
    float f = (float)r;
    return f >= length ? 0.0f : f;
}

/* Sample and mix every request over the rest pose, then print: one fused
 * pass (bw_mix_run_clips) through a mixer made for the rig, so angle
 * curves mix along the shortest arc, as in a track set. */
static int run(const bw_asset *asset, const request *reqs, int count, int json)
{
    const bw_rig *rig = asset->rig;
    int status = 1;
    bw_pose out;
    memset(&out, 0, sizeof out);
    bw_binding **bindings = (bw_binding **)calloc((size_t)count, sizeof *bindings);
    bw_clip_contribution *clips = (bw_clip_contribution *)calloc((size_t)count, sizeof *clips);
    bw_mixer *mixer = NULL;
    bw_mixer_desc md = {rig, count, {NULL, NULL}, false};
    if (!bindings || !clips || bw_pose_init(&out, rig, NULL) != BW_OK || bw_mixer_create(&md, &mixer) != BW_OK) {
        fprintf(stderr, "blendwerk sample: out of memory\n");
        goto done;
    }
    for (int i = 0; i < count; i++) {
        const bw_clip *clip = asset->clips[reqs[i].clip];
        bw_error err;
        memset(&err, 0, sizeof err);
        if (bw_binding_create(&(bw_binding_desc){.clip = clip, .rig = rig}, &bindings[i], &err) != BW_OK) {
            fputs("blendwerk sample: cannot bind clip '", stderr);
            bw_text_print(stderr, bw_clip_name(clip));
            fputs("': ", stderr);
            bw_text_print_lines(stderr, err.message);
            fputc('\n', stderr);
            goto done;
        }
        clips[i].binding = bindings[i];
        clips[i].time = loop_time(reqs[i].time, bw_clip_length(clip));
        /* the same float conversion as Lua's blendwerk.mix: 3.5e38 is full
         * weight (FLT_MAX), not an overflow to inf that counts as 0 */
        clips[i].weight = bw_clamp_to_float(reqs[i].weight);
        clips[i].priority = reqs[i].priority;
    }
    bw_pose_set_rest(&out, rig);
    if (bw_mix_run_clips(mixer, rig, NULL, clips, count, &out) != BW_OK) {
        fprintf(stderr, "blendwerk sample: mixing failed\n");
        goto done;
    }
    if (json) print_json(asset, &out);
    else print_text(asset, &out);
    status = 0;
done:
    if (bindings)
        for (int i = 0; i < count; i++) bw_binding_destroy(bindings[i]);
    free(bindings);
    free(clips);
    bw_mixer_destroy(mixer);
    bw_pose_deinit(&out);
    return status;
}

int bw_cmd_sample(int argc, char **argv)
{
    const char *path = NULL;
    int json = 0, count = 0;
    request *reqs = (request *)calloc((size_t)(argc > 0 ? argc : 1), sizeof *reqs);
    if (!reqs) {
        fprintf(stderr, "blendwerk sample: out of memory\n");
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *spec = NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            free(reqs);
            return 0;
        } else if (!strcmp(a, "--json")) {
            json = 1;
            continue;
        } else if (!strcmp(a, "--at")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "blendwerk sample: --at needs CLIP:TIME\n");
                goto bad;
            }
            spec = argv[++i];
        } else if (!strncmp(a, "--at=", 5)) {
            spec = a + 5;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "blendwerk sample: unknown option '%s'\n", a);
            goto bad;
        } else if (path) {
            fprintf(stderr, "blendwerk sample: one FILE only ('%s' and '%s')\n", path, a);
            goto bad;
        } else {
            path = a;
            continue;
        }
        /* the shape is checked now, the clip name once the file is loaded */
        request r = {spec, -1, 0.0, 1.0, 0};
        if (!parse_numbers(spec, 1, &r) && !maybe_bad_weight(spec)) {
            fprintf(stderr, "blendwerk sample: '--at %s' is not CLIP:TIME[:WEIGHT[:PRIORITY]] with a finite TIME\n",
                    spec);
            goto bad;
        }
        reqs[count++] = r;
    }
    if (!path || count == 0) {
        fprintf(stderr, "blendwerk sample: %s\n", !path ? "FILE is missing" : "at least one --at is needed");
        goto bad;
    }

    bw_asset *asset = bw_cli_load_asset("sample", path);
    if (!asset) {
        free(reqs);
        return 1;
    }
    for (int i = 0; i < count; i++) {
        if (!resolve(asset, &reqs[i])) {
            if (report_bad_field(asset, path, reqs[i].spec)) {
                bw_asset_destroy(asset);
                free(reqs);
                return 2;
            }
            fprintf(stderr, "blendwerk sample: %s: no clip matches '--at %s' (clips:", path, reqs[i].spec);
            for (int c = 0; c < asset->clip_count; c++) {
                fprintf(stderr, " #%d \"", c);
                bw_text_print(stderr, bw_clip_name(asset->clips[c]));
                fputc('"', stderr);
            }
            fprintf(stderr, ")\n");
            bw_asset_destroy(asset);
            free(reqs);
            return 1;
        }
    }
    int status = run(asset, reqs, count, json);
    bw_asset_destroy(asset);
    free(reqs);
    return status;

bad:
    usage(stderr);
    free(reqs);
    return 2;
}
