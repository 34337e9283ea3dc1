/* control_bench.c - the cost of the Lua head-aim control per character
 * frame (issue 11 / the performance issue: at most 1 µs per character on
 * the 26-joint humanoid; bench/README.md "Procedural controls").
 *
 * 1,000 characters, each with its own pose of the built-in humanoid
 * (scripts/humanoid.lua), one bw_controls runner with scripts/head_aim.lua
 * for all of them in one sandbox. Every frame each character's pose is
 * reset to the rest pose (a stand-in for composition, timed apart and
 * subtracted with making the frame's input), its body turns and its
 * target moves, and the runner runs
 * the control over it. The same frames are then run with the C head aim
 * alone (procedural.h's bw_aim_head: model position, angles, clamp, chain
 * split; what the animator's head aim does), and with a control whose
 * update does nothing (the runner's and the sandbox's own cost per call: input
 * refresh, budget hook, protected call). Reports ns per character-frame,
 * the best of `rounds` rounds.
 *
 * With many characters (the third argument, e.g. 30000: some 80 MB of
 * Lua tables and poses, well past the last-level cache) each character's
 * data comes from memory, as in a crowd whose animation went through the
 * caches between two turns of the same character (character_bench.c).
 *
 * usage: blendwerk-control-bench [frames [rounds [characters]]]
 *        (default 200 frames, 5 rounds, 1000 characters) */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_common.h"
#include "blendwerk/procedural.h"
#include "character.h"
#include "controls.h"
#include "sandbox.h"

#define CHARACTERS 1000 /* the default */


static void input_of(int ch, int f, bw_control_input *in)
{
    double t = f / 60.0;
    memset(in, 0, sizeof *in);
    in->position[0] = (float)(ch % 40);
    in->position[2] = (float)(ch / 40);
    in->yaw = (float)(0.7 * t + ch);
    in->has_target = true;
    in->target[0] = in->position[0] + (float)(3 * sin(t + ch));
    in->target[1] = 1.5f + (float)(0.5 * sin(2 * t));
    in->target[2] = in->position[2] + (float)(3 * cos(0.8 * t + ch));
}

/* What one timed pass runs per character after making its input and
 * resetting its pose. */
enum { RUN_NOTHING, RUN_LUA, RUN_C, RUN_EMPTY, RUN_MODES };

typedef struct bench {
    const bw_rig *rig;
    int characters;
    bw_pose *poses;
    bw_controls *head_aim, *empty;
    int chain[3];
    float weights[3];
    bw_aim_limits limits;
    float *last; /* the C path's last yaw per character */
    float sink;
    int failed;
} bench;

/* ns per character-frame of `frames` frames of `mode` */
static double timed(bench *b, int mode, int frames)
{
    double t0 = bench_now_ns(CLOCK_MONOTONIC);
    for (int f = 0; f < frames; f++)
        for (int i = 0; i < b->characters; i++) {
            bw_control_input in;
            input_of(i, f, &in);
            bw_pose *pose = &b->poses[i];
            bw_pose_set_rest(pose, b->rig);
            if (mode == RUN_LUA || mode == RUN_EMPTY) {
                b->failed += bw_controls_run(mode == RUN_LUA ? b->head_aim : b->empty, i, pose, &in, 1.0f / 60);
            } else if (mode == RUN_C) {
                float aim[4];
                bw_aim_head(b->rig, pose, b->chain, b->weights, 3, in.position, in.yaw, in.target, b->last[i], &b->limits,
                            aim);
                b->last[i] = aim[0];
                b->sink += aim[2];
            } else {
                b->sink += in.target[0];
            }
        }
    return (bench_now_ns(CLOCK_MONOTONIC) - t0) / ((double)frames * b->characters);
}

/* A sandbox on `dir` and a runner for every character with control `file`. */
static bw_controls *make_runner(const char *dir, const char *file, const bw_rig *rig, int characters,
                                bw_sandbox **out_sb)
{
    char err[512] = "";
    bw_sandbox_desc sd = {0};
    sd.dir = dir;
    sd.limits.memory = (size_t)characters * 8192 > BW_SANDBOX_DEFAULT_MEMORY ? (size_t)characters * 8192
                                                                              : BW_SANDBOX_DEFAULT_MEMORY;
    bw_sandbox *sb = bw_sandbox_create(&sd, err, sizeof err);
    bw_controls_desc cd = {.sandbox = sb, .rig = rig, .character_count = characters, .dir = dir};
    bw_controls *c = sb ? bw_controls_create(&cd, err, sizeof err) : NULL;
    if (!c || bw_controls_load(c, file, NULL, err, sizeof err) < 0) {
        fprintf(stderr, "controls: %s\n", err);
        bw_controls_destroy(c);
        bw_sandbox_destroy(sb);
        return NULL;
    }
    *out_sb = sb;
    return c;
}

int main(int argc, char **argv)
{
    int frames = argc > 1 ? atoi(argv[1]) : 200, rounds = argc > 2 ? atoi(argv[2]) : 5;
    int characters = argc > 3 ? atoi(argv[3]) : CHARACTERS;
    if (frames < 1 || rounds < 1 || characters < 1 || characters > 65536) {
        fprintf(stderr, "usage: blendwerk-control-bench [frames [rounds [characters (1..65536)]]]\n");
        return 2;
    }
    const char *dir = BW_SOURCE_DIR "/scripts";
    char err[512];
    bw_character *h = NULL;
    if (!bw_character_load(BW_SOURCE_DIR "/scripts/humanoid.lua", NULL, &h, err, sizeof err)) {
        fprintf(stderr, "humanoid: %s\n", err);
        return 1;
    }
    bw_sandbox *sb = NULL, *sb2 = NULL;
    bw_controls *c = make_runner(dir, "head_aim.lua", h->rig, characters, &sb);
    if (!c) return 1;
    /* the empty control, in a folder of its own */
    char tmp[] = "/tmp/bw_control_bench_XXXXXX", empty[64];
    if (!mkdtemp(tmp)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(empty, sizeof empty, "%s/empty.lua", tmp);
    FILE *script = fopen(empty, "w");
    if (!script) {
        perror(empty);
        return 1;
    }
    fputs("return { update = function(state, pose, ctx, dt) end }\n", script);
    fclose(script);
    bw_controls *c2 = make_runner(tmp, "empty.lua", h->rig, characters, &sb2);
    if (!c2) return 1;
    bench b = {.rig = h->rig, .characters = characters, .head_aim = c, .empty = c2, .weights = {0.25f, 0.25f, 0.5f},
               .limits = {1.2f, 0.6f, 0.6f, 0.4f, 0.2f}};
    b.poses = calloc((size_t)characters, sizeof *b.poses);
    b.last = calloc((size_t)characters, sizeof *b.last);
    if (!b.poses || !b.last) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (int i = 0; i < characters; i++) bw_pose_init(&b.poses[i], h->rig, NULL);
    b.chain[0] = bw_rig_find_by_name(h->rig, "neck_01");
    b.chain[1] = bw_rig_find_by_name(h->rig, "neck_02");
    b.chain[2] = bw_rig_find_by_name(h->rig, "head");
    double best[RUN_MODES];
    for (int m = 0; m < RUN_MODES; m++) best[m] = 1e300;
    for (int r = 0; r < rounds; r++)
        for (int m = 0; m < RUN_MODES; m++) {
            double ns = timed(&b, m, frames);
            if (ns < best[m]) best[m] = ns;
        }
    printf("characters %d, frames %d, rounds %d (best round; making the input and resetting the pose, %.1f ns, "
           "subtracted)\n",
           characters, frames, rounds, best[RUN_NOTHING]);
    printf("lua head_aim.lua control: %8.1f ns per character-frame\n", best[RUN_LUA] - best[RUN_NOTHING]);
    printf("C head aim (procedural.h): %7.1f ns per character-frame\n", best[RUN_C] - best[RUN_NOTHING]);
    printf("an empty Lua control:      %7.1f ns per character-frame\n", best[RUN_EMPTY] - best[RUN_NOTHING]);
    if (b.failed) printf("(%d control calls failed)\n", b.failed);
    for (int i = 0; i < characters; i++) bw_pose_deinit(&b.poses[i]);
    free(b.poses);
    free(b.last);
    bw_controls_destroy(c);
    bw_sandbox_destroy(sb);
    bw_controls_destroy(c2);
    bw_sandbox_destroy(sb2);
    remove(empty);
    rmdir(tmp);
    bw_character_destroy(h);
    return b.failed ? 1 : 0;
}
