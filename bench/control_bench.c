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
 * alone (procedural.h: model position, angles, clamp, chain split; what
 * the animator's head aim does). Reports ns per character-frame, the best
 * of `rounds` rounds.
 *
 * usage: blendwerk-control-bench [frames [rounds]]   (default 200 frames, 5 rounds) */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blendwerk/procedural.h"
#include "character.h"
#include "controls.h"
#include "sandbox.h"

#define CHARACTERS 1000

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

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

int main(int argc, char **argv)
{
    int frames = argc > 1 ? atoi(argv[1]) : 200, rounds = argc > 2 ? atoi(argv[2]) : 5;
    if (frames < 1 || rounds < 1) {
        fprintf(stderr, "usage: blendwerk-control-bench [frames [rounds]]\n");
        return 2;
    }
    const char *dir = BW_SOURCE_DIR "/scripts";
    char err[512];
    bw_character *h = NULL;
    if (!bw_character_load(BW_SOURCE_DIR "/scripts/humanoid.lua", NULL, &h, err, sizeof err)) {
        fprintf(stderr, "humanoid: %s\n", err);
        return 1;
    }
    bw_sandbox_desc sd = {0};
    sd.dir = dir;
    bw_sandbox *sb = bw_sandbox_create(&sd, err, sizeof err);
    bw_controls_desc cd = {sb, h->rig, CHARACTERS, dir, false, 0};
    bw_controls *c = sb ? bw_controls_create(&cd, err, sizeof err) : NULL;
    if (!c || bw_controls_load(c, "head_aim.lua", NULL, err, sizeof err) < 0) {
        fprintf(stderr, "controls: %s\n", err);
        return 1;
    }
    bw_pose *poses = calloc(CHARACTERS, sizeof *poses);
    for (int i = 0; i < CHARACTERS; i++) bw_pose_init(&poses[i], h->rig, NULL);
    int chain[3] = {bw_rig_find_by_name(h->rig, "neck_01"), bw_rig_find_by_name(h->rig, "neck_02"),
                    bw_rig_find_by_name(h->rig, "head")};
    const float weights[3] = {0.25f, 0.25f, 0.5f};
    const bw_aim_limits limits = {1.2f, 0.6f, 0.6f, 0.4f, 0.2f};
    float *last = calloc(CHARACTERS, sizeof *last);
    double best_reset = 1e300, best_lua = 1e300, best_c = 1e300;
    float sink = 0.0f;
    int failed = 0;
    for (int r = 0; r < rounds; r++) {
        double t0 = now_ns();
        for (int f = 0; f < frames; f++)
            for (int i = 0; i < CHARACTERS; i++) {
                bw_control_input in;
                input_of(i, f, &in);
                bw_pose_set_rest(&poses[i], h->rig);
                sink += in.target[0];
            }
        double t1 = now_ns();
        for (int f = 0; f < frames; f++)
            for (int i = 0; i < CHARACTERS; i++) {
                bw_control_input in;
                input_of(i, f, &in);
                bw_pose_set_rest(&poses[i], h->rig);
                failed += bw_controls_run(c, i, &poses[i], &in, 1.0f / 60);
            }
        double t2 = now_ns();
        for (int f = 0; f < frames; f++)
            for (int i = 0; i < CHARACTERS; i++) {
                bw_control_input in;
                input_of(i, f, &in);
                bw_pose_set_rest(&poses[i], h->rig);
                float origin[3], yaw, pitch, aim[4];
                bw_model_position(h->rig, &poses[i], chain[2], origin);
                bw_aim_angles(in.position, in.yaw, origin, in.target, &yaw, &pitch);
                bw_aim_clamp(yaw, pitch, last[i], &limits, aim);
                last[i] = aim[0];
                bw_aim_chain(h->rig, &poses[i], chain, weights, 3, aim[0], aim[1], NULL);
                sink += aim[2];
            }
        double t3 = now_ns();
        double n = (double)frames * CHARACTERS;
        if ((t1 - t0) / n < best_reset) best_reset = (t1 - t0) / n;
        if ((t2 - t1) / n < best_lua) best_lua = (t2 - t1) / n;
        if ((t3 - t2) / n < best_c) best_c = (t3 - t2) / n;
    }
    printf("characters %d, frames %d, rounds %d (best round; making the input and resetting the pose, %.1f ns, subtracted)\n", CHARACTERS,
           frames, rounds, best_reset);
    printf("lua head_aim.lua control: %8.1f ns per character-frame\n", best_lua - best_reset);
    printf("C head aim (procedural.h): %7.1f ns per character-frame\n", best_c - best_reset);
    if (failed) printf("(%d control calls failed)\n", failed);
    (void)sink;
    for (int i = 0; i < CHARACTERS; i++) bw_pose_deinit(&poses[i]);
    free(poses);
    free(last);
    bw_controls_destroy(c);
    bw_sandbox_destroy(sb);
    bw_character_destroy(h);
    return failed ? 1 : 0;
}
