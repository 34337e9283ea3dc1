/* fuzz_graph_common.h - what the graph-file and timeline fuzz targets
 * share: the built-in humanoid (scripts/humanoid.lua through the one
 * character loader, bindings/character.h) with one binding per clip,
 * loaded once; a private folder the input is written into as a mod's
 * file, so it is read by the sandbox's own file reader exactly as
 * `blendwerk simulate` reads its files; the sandbox limits of a fuzz
 * iteration; and the checks: every joint and curve of an evaluated pose,
 * the root motion, the parameters are finite (a NaN or an infinity the
 * loaders let through traps), and every message names its file.
 * Include it first (it asks for POSIX 2008: mkdtemp). */
#ifndef BW_FUZZ_GRAPH_COMMON_H
#define BW_FUZZ_GRAPH_COMMON_H

#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blendwerk/bind.h"
#include "blendwerk/graph.h"
#include "blendwerk/pose.h"
#include "blendwerk/rootmotion.h"
#include "character.h"
#include "sandbox.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fuzz_world {
    bw_character *character;
    const bw_clip **clips;
    bw_binding **bindings;
    int clip_count;
    bw_root_motion_config root;
    char dir[512]; /* the private folder the inputs are written into */
} fuzz_world;

static fuzz_world fuzz_w;

/* Smaller than the defaults so that an input that loops or allocates
 * forever ends in a few milliseconds (the stop is what is fuzzed, not its
 * length); what the CLI's defaults allow more of is only more of the same. */
static inline bw_sandbox_limits fuzz_limits(void)
{
    bw_sandbox_limits l;
    memset(&l, 0, sizeof l);
    l.instructions = 2000000;
    l.seconds = 0.5;
    l.memory = (size_t)32 << 20;
    l.callback_instructions = 20000;
    l.callback_seconds = 0.002;
    l.max_string = (size_t)1 << 20;
    return l;
}

static inline void fuzz_fail(const char *what, const char *why)
{
    fprintf(stderr, "fuzz setup: %s: %s\n", what, why);
    abort();
}

/* The files the targets write, removed with the folder at exit. */
static const char *const fuzz_file_names[] = {"graph.lua", "fuzz.timeline.lua"};

static inline void fuzz_world_remove_folder(void)
{
    char path[1024];
    for (size_t i = 0; i < sizeof fuzz_file_names / sizeof fuzz_file_names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", fuzz_w.dir, fuzz_file_names[i]);
        unlink(path);
    }
    rmdir(fuzz_w.dir);
}

/* Load the humanoid and make the folder; called from LLVMFuzzerInitialize. */
static inline void fuzz_world_init(void)
{
    char err[BW_SANDBOX_ERROR_MAX];
    if (!bw_character_load(BW_SOURCE_DIR "/scripts/humanoid.lua", NULL, &fuzz_w.character, err, sizeof err))
        fuzz_fail("scripts/humanoid.lua", err);
    bw_character *ch = fuzz_w.character;
    fuzz_w.clip_count = ch->clip_count;
    fuzz_w.clips = (const bw_clip **)calloc((size_t)ch->clip_count, sizeof *fuzz_w.clips);
    fuzz_w.bindings = (bw_binding **)calloc((size_t)ch->clip_count, sizeof *fuzz_w.bindings);
    if (!fuzz_w.clips || !fuzz_w.bindings) fuzz_fail("humanoid", "out of memory");
    for (int i = 0; i < ch->clip_count; i++) {
        fuzz_w.clips[i] = ch->clips[i].clip;
        bw_binding_desc bd;
        memset(&bd, 0, sizeof bd);
        bd.clip = ch->clips[i].clip;
        bd.rig = ch->rig;
        if (bw_binding_create(&bd, &fuzz_w.bindings[i], NULL) != BW_OK) fuzz_fail(ch->clips[i].name, "cannot bind");
    }
    if (bw_root_motion_config_init(&fuzz_w.root, ch->rig, "root", 0, NULL) != BW_OK) fuzz_fail("humanoid", "no root joint");
    const char *tmp = getenv("TMPDIR");
    snprintf(fuzz_w.dir, sizeof fuzz_w.dir, "%s/bw_fuzz_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(fuzz_w.dir)) fuzz_fail(fuzz_w.dir, "cannot make the folder");
    atexit(fuzz_world_remove_folder);
}

/* Write the input as the mod file `name` (one of fuzz_file_names) of the
 * folder; its path in `path`. */
static inline void fuzz_write_file(const char *name, const uint8_t *data, size_t size, char *path, size_t path_size)
{
    snprintf(path, path_size, "%s/%s", fuzz_w.dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) fuzz_fail(path, "cannot write");
}

/* A cursor of `graph` on the humanoid, or NULL when it does not make one
 * (each problem must then say something). */
static inline bw_graph_cursor *fuzz_cursor(const bw_graph *graph)
{
    bw_graph_cursor_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.rig = fuzz_w.character->rig;
    cd.bindings = (const bw_binding *const *)fuzz_w.bindings;
    cd.binding_count = fuzz_w.clip_count;
    bw_error errs[8];
    bw_graph_errors list = {errs, 8, 0};
    bw_graph_cursor *cursor = NULL;
    if (bw_graph_cursor_create(graph, &cd, &cursor, &list) == BW_OK) return cursor;
    if (list.count < 1) __builtin_trap(); /* a refused cursor without a reason */
    for (int i = 0; i < list.count && i < 8; i++)
        if (!errs[i].message[0]) __builtin_trap();
    return NULL;
}

static inline void fuzz_check_finite_pose(const bw_pose *pose)
{
    for (int j = 0; j < pose->joint_count; j++) {
        const bw_transform *x = &pose->joints[j];
        for (int k = 0; k < 4; k++)
            if (!isfinite(x->r[k])) __builtin_trap(); /* NaN or infinity reached a pose */
        for (int k = 0; k < 3; k++)
            if (!isfinite(x->t[k]) || !isfinite(x->s[k])) __builtin_trap();
        if (!isfinite(pose->coverage[j])) __builtin_trap();
    }
    for (int k = 0; k < pose->curve_count; k++)
        if (!isfinite(pose->curves[k]) || !isfinite(pose->curve_coverage[k])) __builtin_trap();
}

static inline void fuzz_read_event(void *user, const bw_graph_event *e)
{
    *(size_t *)user += e->name ? strlen(e->name) : 0;
}

/* One frame after the update: evaluate, check the pose, the root motion,
 * the parameters and every layer's status, deliver the events. */
static inline void fuzz_check_frame(bw_graph_cursor *cursor, const bw_graph *graph, bw_pose *pose)
{
    if (bw_graph_cursor_evaluate(cursor, NULL, pose) == BW_OK) fuzz_check_finite_pose(pose);
    bw_root_delta rd;
    if (bw_graph_cursor_root_motion(cursor, &fuzz_w.root, &rd) == BW_OK) {
        for (int k = 0; k < 3; k++)
            if (!isfinite(rd.t[k])) __builtin_trap();
        if (!isfinite(rd.yaw) || !isfinite(rd.coverage)) __builtin_trap();
    }
    for (int p = 0; p < bw_graph_param_count(graph); p++)
        if (!isfinite(bw_graph_cursor_param(cursor, p))) __builtin_trap();
    for (int l = 0; l < bw_graph_layer_count(graph); l++) {
        bw_graph_layer_status st;
        if (bw_graph_cursor_layer_status(cursor, l, &st) != BW_OK) __builtin_trap();
        if (!isfinite(st.progress) || !isfinite(st.normalized) || !isfinite(st.weight)) __builtin_trap();
    }
    size_t names = 0;
    bw_graph_cursor_drain(cursor, fuzz_read_event, &names);
}

/* A message a loader gave for a refused input: non-empty, names `file`. */
static inline void fuzz_check_message(const char *message, const char *file)
{
    if (!message || !message[0] || !strstr(message, file)) {
        fprintf(stderr, "fuzz: a refusal that does not name %s: '%s'\n", file, message ? message : "(null)");
        __builtin_trap();
    }
}

/* Failure reports of per-frame callbacks: read, not printed. */
static inline void fuzz_read_report(void *user, const char *message)
{
    *(size_t *)user += strlen(message);
}

#endif
