/* test_example_graphs.c - every example graph of graphs/ (each file that
 * is not a timeline), loaded the way hosts load graph files (the reloader
 * of bindings/graph_reload.h, in a sandbox, against the built-in humanoid
 * scripts/humanoid.lua), driven for 10,000 frames of 1/60 s: float
 * parameters swept by sines, booleans toggled, triggers fired, travel
 * requested, layer weights faded. After the cursor's creation nothing
 * allocates (the counting allocator sees 0 allocations over the 10,000
 * updates, evaluations, root-motion extractions and event drains), every
 * pose stays finite, and the driving really exercises the graph: the
 * entry events seen are counted and each graph enters states more than
 * once per layer that has transitions. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendwerk/bind.h"
#include "blendwerk/graph.h"
#include "blendwerk/pose.h"
#include "blendwerk/rootmotion.h"
#include "character.h"
#include "check.h"
#include "graph_reload.h"
#include "test_alloc_counter.h"

#define GRAPHS BW_SOURCE_DIR "/graphs"
#define HUMANOID BW_SOURCE_DIR "/scripts/humanoid.lua"
#define FRAMES 10000
#define MAX_LAYERS 16

static bw_character *humanoid;

typedef struct enter_count {
    long per_layer[MAX_LAYERS];
} enter_count;

static void count_event(void *user, const bw_graph_event *e)
{
    enter_count *c = (enter_count *)user;
    if (e->kind == BW_GRAPH_EVENT_ENTER && e->layer >= 0 && e->layer < MAX_LAYERS) c->per_layer[e->layer]++;
}

static bool pose_is_finite(const bw_pose *p)
{
    for (int j = 0; j < p->joint_count; j++) {
        const bw_transform *x = &p->joints[j];
        for (int k = 0; k < 4; k++)
            if (!isfinite(x->r[k])) return false;
        for (int k = 0; k < 3; k++)
            if (!isfinite(x->t[k]) || !isfinite(x->s[k])) return false;
    }
    return true;
}

/* Set the frame's inputs: the same driving for every graph. */
static void drive(bw_graph_cursor *c, const bw_graph *g, int frame)
{
    for (int p = 0; p < bw_graph_param_count(g); p++) {
        switch (bw_graph_param_kind_of(g, p)) {
        case BW_GRAPH_PARAM_FLOAT:
            bw_graph_cursor_set_param(c, p, 4.5f * sinf(6.2831853f * (float)frame / 700.0f + (float)p));
            break;
        case BW_GRAPH_PARAM_BOOL:
            bw_graph_cursor_set_param(c, p, ((frame / 173 + p) & 1) ? 1.0f : 0.0f);
            break;
        default: /* triggers */
            if ((frame + 37 * p) % 211 == 0) bw_graph_cursor_fire(c, p);
            break;
        }
    }
    if (frame % 500 == 250) {
        int states = bw_graph_state_count(g, 0);
        if (states > 0) (void)bw_graph_cursor_travel(c, 0, (frame / 500) % states); /* no route: refused */
    }
    if (frame % 900 == 450)
        for (int l = 1; l < bw_graph_layer_count(g); l++)
            (void)bw_graph_cursor_set_layer_weight(c, l, (frame / 900) % 2 ? 1.0f : 0.25f, 0.3f);
}

static void run_graph(const char *path)
{
    printf("  %s\n", path);
    const bw_clip *clips[64];
    int n = humanoid->clip_count < 64 ? humanoid->clip_count : 64;
    for (int i = 0; i < n; i++) clips[i] = humanoid->clips[i].clip;
    bw_graph_reload_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.path = path;
    rd.rig = humanoid->rig;
    rd.clips = clips;
    rd.clip_count = n;
    rd.host_cursors = true;
    char err[2048];
    bw_graph_reload *r = bw_graph_reload_create(&rd, err, sizeof err);
    if (!r) printf("    %s\n", err);
    CHECK(r != NULL);
    if (!r) return;
    const bw_graph *g = bw_graph_reload_acquire(r);
    CHECK(g != NULL);

    alloc_counter counter = ALLOC_COUNTER(-1);
    bw_allocator alloc = {alloc_counter_fn, &counter};
    bw_binding *bindings[64] = {0};
    for (int i = 0; i < n; i++) {
        bw_binding_desc bd;
        memset(&bd, 0, sizeof bd);
        bd.clip = clips[i];
        bd.rig = humanoid->rig;
        bd.allocator = alloc;
        bw_error e;
        CHECK_INT(bw_binding_create(&bd, &bindings[i], &e), BW_OK);
    }
    bw_graph_cursor_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.rig = humanoid->rig;
    cd.bindings = (const bw_binding *const *)bindings;
    cd.binding_count = n;
    cd.allocator = alloc;
    bw_graph_cursor *c = NULL;
    CHECK_INT(bw_graph_cursor_create(g, &cd, &c, NULL), BW_OK);
    bw_pose base, out;
    CHECK_INT(bw_pose_init(&base, humanoid->rig, &alloc), BW_OK);
    CHECK_INT(bw_pose_init(&out, humanoid->rig, &alloc), BW_OK);
    bw_pose_set_rest(&base, humanoid->rig);
    bw_root_motion_config rm;
    CHECK_INT(bw_root_motion_config_init(&rm, humanoid->rig, "root", 0, NULL), BW_OK);
    if (!c) goto done;

    long before = counter.allocations;
    enter_count enters;
    memset(&enters, 0, sizeof enters);
    bool finite = true;
    int refused = 0;
    for (int frame = 0; frame < FRAMES; frame++) {
        drive(c, g, frame);
        bw_graph_cursor_update(c, 1.0f / 60.0f);
        if (bw_graph_cursor_evaluate(c, &base, &out) != BW_OK) refused++;
        bw_root_delta d;
        if (bw_graph_cursor_root_motion(c, &rm, &d) != BW_OK) refused++;
        bw_graph_cursor_drain(c, count_event, &enters);
        if (!pose_is_finite(&out)) finite = false;
    }
    CHECK_INT(counter.allocations - before, 0);
    CHECK_INT(refused, 0);
    CHECK(finite);
    /* a layer with transitions enters states again and again under this driving */
    for (int l = 0; l < bw_graph_layer_count(g) && l < MAX_LAYERS; l++) {
        if (bw_graph_state_count(g, l) < 2) continue;
        printf("    layer %s: %ld state entries\n", bw_graph_layer_name(g, l), enters.per_layer[l]);
        CHECK(enters.per_layer[l] >= 2);
    }

done:
    bw_pose_deinit(&base);
    bw_pose_deinit(&out);
    bw_graph_cursor_destroy(c);
    for (int i = 0; i < n; i++) bw_binding_destroy(bindings[i]);
    CHECK_INT(counter.live_blocks, 0);
    CHECK(bw_graph_reload_release(r, g));
    bw_graph_reload_destroy(r);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void every_example_graph_should_run_ten_thousand_frames_without_allocating(void)
{
    DIR *d = opendir(GRAPHS);
    CHECK(d != NULL);
    if (!d) return;
    char *names[64];
    int count = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL && count < 64;) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".lua") != 0) continue;
        if (len > 13 && strcmp(e->d_name + len - 13, ".timeline.lua") == 0) continue;
        names[count++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)count, sizeof names[0], by_name);
    CHECK(count >= 5); /* locomotion, jump, upper_wave, breathing, travel at least */
    for (int i = 0; i < count; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", GRAPHS, names[i]);
        run_graph(path);
        free(names[i]);
    }
}

int main(void)
{
    char err[1024];
    if (!bw_character_load(HUMANOID, NULL, &humanoid, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    RUN(every_example_graph_should_run_ten_thousand_frames_without_allocating);
    bw_character_destroy(humanoid);
    return check_summary();
}
