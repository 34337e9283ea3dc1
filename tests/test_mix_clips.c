/* test_mix_clips.c - bw_mix_run_clips (sample + mix in one pass) against
 * its definition: bw_sample_clip into poses, then bw_mix_run; and the
 * track set's compose, which is that fused pass, against sampling each
 * track alone and mixing. */
#include "blendwerk/blendwerk.h"
#include "check.h"
#include "simd.h"
#include "clip_internal.h"
#include "fixtures.h"
#include "mix_internal.h"

#define JOINTS 37 /* whole vectors of 4, 8 and 16 joints and a tail on every path */
#define KEYS 16

static bw_rig *make_rig(void)
{
    static char names[JOINTS][8];
    bw_rig_joint_desc j[JOINTS];
    for (int i = 0; i < JOINTS; i++) {
        snprintf(names[i], sizeof names[i], "j%d", i);
        j[i].name = names[i];
        j[i].parent = i - 1;
        j[i].rest = bw_transform_identity;
        j[i].rest.t[0] = 0.25f * (float)i;
        j[i].rest.s[2] = 2.0f;
    }
    bw_rig_curve_desc curve = {"blink", BW_CURVE_FLOAT, 0.5f};
    bw_rig_desc d = {.joints = j, .joint_count = JOINTS, .curves = &curve, .curve_count = 1};
    return fixture_rig_desc(&d);
}

/* kind 0: dense grid clip; 1: grid clip whose joint 3 has no scale track
 * and which skips joint 7 (so not dense); 2: eased keys (no grid) with a
 * pose-weight track and a curve; 3: kind 0 plus a linear pose-weight
 * track on joint 2 (a dense grid clip with partial coverage); 4: kind 0
 * with small rotation steps (half-angle 0.22 sin(a), steps up to 0.19:
 * the short series, with its 4 terms all needed). */
static bw_clip *make_clip(const bw_rig *rig, int kind, float phase)
{
    static float times[KEYS], v[JOINTS][3][KEYS * 4], pw[KEYS], curve[KEYS];
    static unsigned char styles[KEYS];
    bw_track_desc tracks[JOINTS * 3 + 2];
    int n = 0;
    for (int k = 0; k < KEYS; k++) {
        times[k] = 0.1f * (float)k;
        styles[k] = BW_EASE_SINE;
        pw[k] = 0.5f + 0.5f * sinf((float)k);
        curve[k] = 0.05f * (float)k;
    }
    for (int j = 0; j < JOINTS; j++) {
        if (kind == 1 && j == 7) continue;
        for (int k = 0; k < KEYS; k++) {
            float a = phase + 0.9f * (float)k + 0.3f * (float)j, ang = (kind == 4 ? 0.22f : 1.2f) * sinf(a);
            v[j][0][3 * k] = sinf(a);
            v[j][0][3 * k + 1] = cosf(a);
            v[j][0][3 * k + 2] = (float)j;
            v[j][1][4 * k] = 0.6f * sinf(ang);
            v[j][1][4 * k + 1] = 0.8f * sinf(ang);
            v[j][1][4 * k + 2] = 0.0f;
            v[j][1][4 * k + 3] = cosf(ang);
            v[j][2][3 * k] = v[j][2][3 * k + 1] = v[j][2][3 * k + 2] = 1.0f + 0.3f * cosf(a);
        }
        const bw_channel ch[3] = {BW_CHANNEL_TRANSLATION, BW_CHANNEL_ROTATION, BW_CHANNEL_SCALE};
        for (int c = 0; c < 3; c++) {
            if (kind == 1 && j == 3 && c == 2) continue;
            bw_track_desc *t = &tracks[n++];
            memset(t, 0, sizeof *t);
            t->parent = j == 0 ? "" : bw_rig_joint_name(rig, j - 1);
            t->joint = bw_rig_joint_name(rig, j);
            t->channel = ch[c];
            t->key_count = KEYS;
            t->times = times;
            t->values = v[j][c];
            t->styles = kind == 2 ? styles : NULL;
        }
    }
    if (kind == 2 || kind == 3) {
        bw_track_desc *t = &tracks[n++];
        memset(t, 0, sizeof *t);
        t->parent = "j1";
        t->joint = "j2";
        t->channel = BW_CHANNEL_POSE_WEIGHT;
        t->key_count = KEYS;
        t->times = times;
        t->values = pw;
    }
    if (kind == 2) {
        bw_track_desc *t = &tracks[n++];
        memset(t, 0, sizeof *t);
        t->joint = "blink";
        t->channel = BW_CHANNEL_FLOAT;
        t->key_count = KEYS;
        t->times = times;
        t->values = curve;
    }
    bw_clip_desc desc = {0};
    desc.tracks = tracks;
    desc.track_count = n;
    desc.length = 0.1f * (float)(KEYS - 1);
    desc.loop = true;
    return fixture_clip_desc(&desc);
}

static double pose_difference(const bw_pose *a, const bw_pose *b)
{
    double worst = 0;
    for (int j = 0; j < a->joint_count; j++) {
        const bw_transform *x = &a->joints[j], *y = &b->joints[j];
        float sign = x->r[0] * y->r[0] + x->r[1] * y->r[1] + x->r[2] * y->r[2] + x->r[3] * y->r[3] < 0 ? -1.f : 1.f;
        /* relative beyond 1: translations reach 36 here, where a float
         * ulp is 3.8e-6 */
        for (int c = 0; c < 3; c++)
            worst = fmax(worst, fmax(fabs(x->t[c] - y->t[c]) / fmax(1.0, fabs(y->t[c])),
                                     fabs(x->s[c] - y->s[c]) / fmax(1.0, fabs(y->s[c]))));
        for (int c = 0; c < 4; c++) worst = fmax(worst, fabs(x->r[c] - sign * y->r[c]));
        worst = fmax(worst, fabs(a->coverage[j] - b->coverage[j]));
    }
    for (int c = 0; c < a->curve_count; c++)
        worst = fmax(worst, fmax(fabs(a->curves[c] - b->curves[c]), fabs(a->curve_coverage[c] - b->curve_coverage[c])));
    return worst;
}

/* The rig and four clips at the given phases: two dense grid clips, a
 * sparse grid clip and an eased one (so every path really occurs). */
typedef struct four_clips {
    bw_rig *rig;
    bw_clip *clips[4];
    bw_binding *bindings[4];
} four_clips;

static four_clips make_four(const float phase[4])
{
    four_clips f;
    f.rig = make_rig();
    const int kinds[4] = {0, 0, 1, 2};
    for (int i = 0; i < 4; i++) {
        f.clips[i] = make_clip(f.rig, kinds[i], phase[i]);
        f.bindings[i] = fixture_binding(f.clips[i], f.rig);
    }
    CHECK(f.bindings[0]->grid && f.bindings[0]->grid->dense);
    CHECK(f.bindings[2]->grid && !f.bindings[2]->grid->dense);
    CHECK(f.bindings[3]->grid == NULL);
    return f;
}

static void free_four(four_clips *f)
{
    for (int i = 0; i < 4; i++) {
        bw_binding_destroy(f->bindings[i]);
        bw_clip_destroy(f->clips[i]);
    }
    bw_rig_destroy(f->rig);
}

/* make_rig() plus one more joint: a layout no binding above was made for. */
static bw_rig *make_grown_rig(void)
{
    bw_rig *other = make_rig();
    bw_rig_joint_desc extra = {"extra", 0, bw_transform_identity};
    CHECK_INT(bw_rig_add_joint(other, &extra, NULL), BW_OK);
    return other;
}

static void one_pass_equals_sample_then_mix(void)
{
    four_clips f = make_four((const float[4]){0.0f, 1.3f, 2.1f, 0.4f});
    bw_rig *rig = f.rig;
    bw_binding **bindings = f.bindings;

    /* one mixer per kernel path (portable first); paths this CPU or build
     * lacks fall back and are skipped */
    bw_mixer *mixers[BW_SIMD_PATH_COUNT] = {NULL};
    for (int mode = BW_SIMD_PORTABLE; mode < BW_SIMD_PATH_COUNT; mode++) {
        bw_mixer_desc md = {rig, 4, {NULL, NULL}, (bw_simd_path)mode};
        CHECK_INT(bw_mixer_create(&md, &mixers[mode]), BW_OK);
    }
    bw_mixer *mixer = mixers[BW_SIMD_PORTABLE];
    bw_pose sampled[4], expected, got, portable;
    for (int i = 0; i < 4; i++) bw_pose_init(&sampled[i], rig, NULL);
    bw_pose_init(&expected, rig, NULL);
    bw_pose_init(&got, rig, NULL);
    bw_pose_init(&portable, rig, NULL);

    /* weights, priorities (two ranks, one contribution at 0.3 weight) */
    const float weights[4] = {0.5f, 0.5f, 0.3f, 0.8f};
    const int priorities[4] = {0, 0, 1, 0};
    double worst = 0, worst_path = 0;
    for (int mode = BW_SIMD_PORTABLE; mode < BW_SIMD_PATH_COUNT; mode++) {
        if (!bw_simd_supported((bw_simd_path)mode)) continue;
        const bw_sample_options so = {(bw_simd_path)mode};
        for (int step = -3; step < 40; step++) {
            float time = 0.037f * (float)step;
            bw_clip_contribution cc[4];
            bw_contribution pc[4];
            for (int i = 0; i < 4; i++) {
                float ti = time + 0.11f * (float)i;
                cc[i] = (bw_clip_contribution){bindings[i], ti, weights[i], priorities[i]};
                bw_sample_clip_with(bindings[i], rig, ti, &so, &sampled[i]);
                pc[i] = (bw_contribution){&sampled[i], weights[i], priorities[i]};
                /* sampling on this path against the portable kernel */
                const bw_sample_options po = {BW_SIMD_PORTABLE};
                bw_sample_clip_with(bindings[i], rig, ti, &po, &portable);
                worst_path = fmax(worst_path, pose_difference(&portable, &sampled[i]));
            }
            bw_pose_set_rest(&expected, rig);
            CHECK_INT(bw_mix_run(mixers[mode], NULL, pc, 4, &expected), BW_OK);
            bw_pose_set_rest(&got, rig);
            CHECK_INT(bw_mix_run_clips(mixers[mode], rig, NULL, cc, 4, &got), BW_OK);
            worst = fmax(worst, pose_difference(&expected, &got));
            /* and each path against the portable kernels, fused pass */
            bw_pose_set_rest(&portable, rig);
            CHECK_INT(bw_mix_run_clips(mixers[BW_SIMD_PORTABLE], rig, NULL, cc, 4, &portable), BW_OK);
            worst_path = fmax(worst_path, pose_difference(&portable, &got));
        }
    }
    printf("every path vs portable (sampling, fused mixing): worst difference %.3g\n", worst_path);
    /* FMA contraction and reordered sums only: a few float ulps of values
     * of order 1 */
    CHECK(worst_path < 1e-6);
    printf("mix_run_clips vs sample + mix_run: worst difference %.3g\n", worst);
    CHECK(worst < 1e-6);
    /* the curve really was mixed: at time 0.5 the eased clip's curve is
     * 0.05 × 5 = 0.25 with weight 0.8 over rest 0.5 → 0.5 + 0.8 × (0.25 − 0.5) */
    bw_clip_contribution only = {bindings[3], 0.5f, 0.8f, 0};
    bw_pose_set_rest(&got, rig);
    CHECK_INT(bw_mix_run_clips(mixer, rig, NULL, &only, 1, &got), BW_OK);
    CHECK_NEAR(got.curves[0], 0.5 + 0.8 * (0.25 - 0.5), 1e-6);

    /* misuse: a binding for another rig layout, too many clips */
    bw_rig *other = make_grown_rig();
    bw_clip_contribution bad = {bindings[0], 0.0f, 1.0f, 0};
    CHECK_INT(bw_mix_run_clips(mixer, other, NULL, &bad, 1, &got), BW_ERR_INVALID_ARGUMENT);
    bw_clip_contribution five[5] = {bad, bad, bad, bad, bad};
    CHECK_INT(bw_mix_run_clips(mixer, rig, NULL, five, 5, &got), BW_ERR_LIMIT);
    bw_rig_destroy(other);

    for (int i = 0; i < 4; i++) bw_pose_deinit(&sampled[i]);
    bw_pose_deinit(&expected);
    bw_pose_deinit(&got);
    bw_pose_deinit(&portable);
    for (int mode = 0; mode < BW_SIMD_PATH_COUNT; mode++) bw_mixer_destroy(mixers[mode]);
    free_four(&f);
}

/* The track set's compose is the fused pass: it must equal sampling each
 * track alone (bw_track_set_sample_track) and mixing the poses with
 * bw_mix_run, for dense bindings (straight from the key rows) and the
 * others (the mixer's scratch poses), over the rest pose and over a base. */
static void track_set_compose_equals_per_track_sampling(void)
{
    four_clips f = make_four((const float[4]){0.2f, 0.9f, 1.7f, 0.6f});
    bw_rig *rig = f.rig;
    bw_mixer_desc md = {.rig = rig}; /* default capacity (16) */
    bw_mixer *mixer = NULL;
    CHECK_INT(bw_mixer_create(&md, &mixer), BW_OK);
    bw_track_set_desc sd = {.rig = rig};
    bw_track_set *set = NULL;
    CHECK_INT(bw_track_set_create(&sd, &set), BW_OK);
    const float weights[4] = {0.7f, 0.4f, 0.3f, 0.9f}, speeds[4] = {1.0f, -0.5f, 1.25f, 0.75f};
    const int priorities[4] = {0, 0, 2, 1};
    int handles[4];
    for (int i = 0; i < 4; i++) {
        bw_play_desc pd = {.binding = f.bindings[i], .time = 0.3 * i, .speed = speeds[i], .weight = weights[i],
                           .fade_in = i == 1 ? 0.5f : 0.0f, .priority = priorities[i]};
        CHECK_INT(bw_track_set_play(set, &pd, &handles[i]), BW_OK);
    }
    bw_pose sampled[4], expected, got, base;
    for (int i = 0; i < 4; i++) bw_pose_init(&sampled[i], rig, NULL);
    bw_pose_init(&expected, rig, NULL);
    bw_pose_init(&got, rig, NULL);
    bw_pose_init(&base, rig, NULL);
    bw_pose_set_rest(&base, rig);
    for (int j = 0; j < JOINTS; j++) base.joints[j].t[1] = 0.5f; /* a base that is not the rest pose */
    bw_pose rest;
    bw_pose_init(&rest, rig, NULL);
    bw_pose_set_rest(&rest, rig);
    double worst = 0, moved = 0;
    for (int frame = 0; frame < 40; frame++) {
        bw_track_set_advance(set, 1.0f / 30.0f);
        const bw_pose *over = frame % 2 ? &base : NULL;
        bw_contribution pc[4];
        for (int i = 0; i < 4; i++) {
            CHECK_INT(bw_track_set_sample_track(set, handles[i], &sampled[i]), BW_OK);
            pc[i] = (bw_contribution){&sampled[i], bw_track_set_weight(set, handles[i]), priorities[i]};
        }
        if (over) bw_pose_copy(&expected, over);
        else bw_pose_set_rest(&expected, rig);
        CHECK_INT(bw_mix_run(mixer, NULL, pc, 4, &expected), BW_OK);
        CHECK_INT(bw_track_set_compose(set, mixer, over, &got), BW_OK);
        worst = fmax(worst, pose_difference(&expected, &got));
        /* how far the tracks moved the pose from what lay below: real motion */
        moved = fmax(moved, pose_difference(over ? &base : &rest, &got));
    }
    CHECK(moved > 0.1);
    printf("track set compose vs per-track sampling + mix_run: worst difference %.3g\n", worst);
    CHECK(worst < 1e-5);
    /* a mixer for another rig is refused, out untouched */
    bw_rig *other = make_grown_rig();
    bw_mixer_desc od = {.rig = other};
    bw_mixer *wrong = NULL;
    CHECK_INT(bw_mixer_create(&od, &wrong), BW_OK);
    got.joints[0].t[0] = 42.0f;
    CHECK_INT(bw_track_set_compose(set, wrong, NULL, &got), BW_ERR_INVALID_ARGUMENT);
    CHECK(got.joints[0].t[0] == 42.0f);
    bw_mixer_destroy(wrong);
    bw_rig_destroy(other);

    bw_track_set_destroy(set);
    for (int i = 0; i < 4; i++) bw_pose_deinit(&sampled[i]);
    bw_pose_deinit(&expected);
    bw_pose_deinit(&got);
    bw_pose_deinit(&base);
    bw_pose_deinit(&rest);
    bw_mixer_destroy(mixer);
    free_four(&f);
}

/* The fused pass skips the coverage of grid blocks whose pose weights are
 * all 1 and mask weights all 0 (bw_clip_grid.full, set at clip creation).
 * Clip kind 3 keys a pose weight on joint 2, so block 0 (joints 0-15) is
 * not full and blocks 1 and 2 are (block 2's padding lanes hold the
 * defaults 1 and 0). Mixed alone at weight 0.75 over the rest pose (full
 * coverage), joint j's translation x is the overlay of SPEC §5:
 * share = 0.75·c_j, total = (1 − share) + share = 1, so
 * x = (1 − share)·rest_x + share·clip_x, with rest_x = 0.25·j, clip_x the
 * lerp of the keys sin(0.7 + 0.9k + 0.3j) at t = 0.1k, and c_2 the lerp
 * of the keys 0.5 + 0.5·sin(k), every other c_j = 1. */
static void grid_blocks_of_full_coverage(void)
{
    bw_rig *rig = make_rig();
    bw_clip *partial = make_clip(rig, 3, 0.7f), *plain = make_clip(rig, 0, 0.7f);
    bw_binding *b = fixture_binding(partial, rig);
    CHECK(b->grid && b->grid->dense);
    const bw_clip_grid *g = partial->grid;
    CHECK_INT(g->block_count, 3);
    CHECK_INT(g->full[0], 0);
    CHECK_INT(g->full[1], 1);
    CHECK_INT(g->full[2], 1);
    for (int i = 0; i < plain->grid->block_count; i++) CHECK_INT(plain->grid->full[i], 1);

    bw_pose got, portable;
    bw_pose_init(&got, rig, NULL);
    bw_pose_init(&portable, rig, NULL);
    bw_mixer_desc pd = {rig, 1, {NULL, NULL}, BW_SIMD_PORTABLE};
    bw_mixer *reference;
    CHECK_INT(bw_mixer_create(&pd, &reference), BW_OK);
    double worst_formula = 0, worst_path = 0;
    for (int mode = BW_SIMD_PORTABLE; mode < BW_SIMD_PATH_COUNT; mode++) {
        if (!bw_simd_supported((bw_simd_path)mode)) continue;
        bw_mixer_desc md = {rig, 1, {NULL, NULL}, (bw_simd_path)mode};
        bw_mixer *mixer;
        CHECK_INT(bw_mixer_create(&md, &mixer), BW_OK);
        for (int step = 0; step < 40; step++) {
            const float time = 0.037f * (float)step;
            bw_clip_contribution cc = {b, time, 0.75f, 0};
            bw_pose_set_rest(&got, rig);
            CHECK_INT(bw_mix_run_clips(mixer, rig, NULL, &cc, 1, &got), BW_OK);
            bw_pose_set_rest(&portable, rig);
            CHECK_INT(bw_mix_run_clips(reference, rig, NULL, &cc, 1, &portable), BW_OK);
            worst_path = fmax(worst_path, pose_difference(&portable, &got));
            const int k = (int)(time / 0.1f) < KEYS - 1 ? (int)(time / 0.1f) : KEYS - 2;
            const double u = ((double)time - 0.1 * k) / 0.1;
            for (int j = 0; j < JOINTS; j++) {
                double x0 = sin(0.7 + 0.9 * k + 0.3 * j), x1 = sin(0.7 + 0.9 * (k + 1) + 0.3 * j);
                double c = j == 2 ? (0.5 + 0.5 * sin((double)k)) * (1 - u) + (0.5 + 0.5 * sin(k + 1.0)) * u : 1.0;
                double share = 0.75 * c, x = (1 - share) * 0.25 * j + share * (x0 + (x1 - x0) * u);
                worst_formula = fmax(worst_formula, fabs(got.joints[j].t[0] - x));
                worst_formula = fmax(worst_formula, fabs(got.coverage[j] - 1.0));
            }
        }
        bw_mixer_destroy(mixer);
    }
    printf("partial-coverage grid clip: every path vs portable %.3g, vs the overlay formula %.3g\n", worst_path,
           worst_formula);
    CHECK(worst_path < 1e-6);
    /* values up to 9 (rest 0.25 × 36): a few float ulps of the key lerp */
    CHECK(worst_formula < 5e-6);
    bw_mixer_destroy(reference);
    bw_pose_deinit(&got);
    bw_pose_deinit(&portable);
    bw_binding_destroy(b);
    bw_clip_destroy(partial);
    bw_clip_destroy(plain);
    bw_rig_destroy(rig);
}

/* Grids whose rotations move little between keys take the first 4 terms
 * of the slerp series on the vector paths (bw_clip_grid.short_series; the
 * dropped terms add at most 1e-8). Clip kind 4 keys joint j with the
 * half-angle h_k = 0.22 sin(0.7 + 0.9k + 0.3j) about the fixed axis
 * (0.6, 0.8, 0), so between keys the slerp turns the half-angle linearly:
 * at fraction u the rotation is (0.6 sin h, 0.8 sin h, 0, cos h) with
 * h = h_k + (h_{k+1} − h_k) u, the reference here (double precision).
 * Kind 0 (half-angles up to 1.2) keeps the whole series. */
static void short_series_grids(void)
{
    bw_rig *rig = make_rig();
    bw_clip *small = make_clip(rig, 4, 0.7f), *large = make_clip(rig, 0, 0.7f);
    CHECK(small->grid && small->grid->short_series);
    CHECK(large->grid && !large->grid->short_series);
    bw_binding *b = fixture_binding(small, rig);
    CHECK(b->grid && b->grid->dense);
    bw_pose got, portable, mixed;
    bw_pose_init(&got, rig, NULL);
    bw_pose_init(&portable, rig, NULL);
    bw_pose_init(&mixed, rig, NULL);
    double worst_path = 0, worst_formula = 0, worst_fused = 0;
    for (int mode = BW_SIMD_PORTABLE; mode < BW_SIMD_PATH_COUNT; mode++) {
        if (!bw_simd_supported((bw_simd_path)mode)) continue;
        bw_mixer_desc md = {rig, 1, {NULL, NULL}, (bw_simd_path)mode};
        bw_mixer *mixer;
        CHECK_INT(bw_mixer_create(&md, &mixer), BW_OK);
        const bw_sample_options so = {(bw_simd_path)mode}, po = {BW_SIMD_PORTABLE};
        for (int step = 0; step < 40; step++) {
            const float time = 0.037f * (float)step;
            bw_sample_clip_with(b, rig, time, &so, &got);
            bw_sample_clip_with(b, rig, time, &po, &portable);
            worst_path = fmax(worst_path, pose_difference(&portable, &got));
            /* alone at weight 1 over the rest pose, the fused pass gives the sample */
            bw_clip_contribution cc = {b, time, 1.0f, 0};
            bw_pose_set_rest(&mixed, rig);
            CHECK_INT(bw_mix_run_clips(mixer, rig, NULL, &cc, 1, &mixed), BW_OK);
            /* the clip drives no curve: the sample leaves it uncovered, the
             * mix keeps the rest value; compare the joints */
            for (int c = 0; c < got.curve_count; c++) {
                got.curves[c] = mixed.curves[c];
                got.curve_coverage[c] = mixed.curve_coverage[c];
            }
            worst_fused = fmax(worst_fused, pose_difference(&got, &mixed));
            const int k = (int)(time / 0.1f) < KEYS - 1 ? (int)(time / 0.1f) : KEYS - 2;
            const double u = ((double)time - 0.1 * k) / 0.1;
            for (int j = 0; j < JOINTS; j++) {
                double h0 = 0.22 * sin(0.7 + 0.9 * k + 0.3 * j), h1 = 0.22 * sin(0.7 + 0.9 * (k + 1) + 0.3 * j);
                double h = h0 + (h1 - h0) * u;
                const double q[4] = {0.6 * sin(h), 0.8 * sin(h), 0.0, cos(h)};
                for (int c = 0; c < 4; c++) worst_formula = fmax(worst_formula, fabs(got.joints[j].r[c] - q[c]));
            }
        }
        bw_mixer_destroy(mixer);
    }
    printf("short-series grid: every path vs portable %.3g, fused vs sampled %.3g, vs the same-axis slerp %.3g\n",
           worst_path, worst_fused, worst_formula);
    /* tighter than the other path checks: without its x^2 and x^3 terms
     * the short series is off by about 7e-7 here */
    CHECK(worst_path < 3e-7);
    CHECK(worst_fused < 3e-7);
    /* float keys (sin h rounded to 1.2e-7 relative) and float arithmetic */
    CHECK(worst_formula < 5e-7);
    bw_pose_deinit(&got);
    bw_pose_deinit(&portable);
    bw_pose_deinit(&mixed);
    bw_binding_destroy(b);
    bw_clip_destroy(small);
    bw_clip_destroy(large);
    bw_rig_destroy(rig);
}

/* The mixer's empty view as a run's base against the straightforward
 * form, a cleared pose mixed over in place: the same bits (joints,
 * coverage, curves) on every kernel path, for the fused clip pass (joint 7
 * is uncovered by the sparse clip alone, so the base shows through) and
 * for poses, over a target holding other numbers first. A rig beyond
 * BW_MIX_EMPTY_MAX joints gets no view. */
static bool same_pose_bits(const bw_pose *a, const bw_pose *b)
{
    size_t nj = (size_t)a->joint_count, nc = (size_t)a->curve_count;
    return memcmp(a->joints, b->joints, nj * sizeof *a->joints) == 0 &&
           memcmp(a->coverage, b->coverage, nj * sizeof *a->coverage) == 0 &&
           (nc == 0 || (memcmp(a->curves, b->curves, nc * sizeof *a->curves) == 0 &&
                        memcmp(a->curve_coverage, b->curve_coverage, nc * sizeof *a->curve_coverage) == 0));
}

/* The mixer's hot part ends with its flattened entries, one per
 * contribution: a caller asking for runs of n contributions gets the
 * part before them plus n entries, clamped to [0, max]. */
static void hot_bytes_for_counts_whole_entries(void)
{
    four_clips f = make_four((const float[4]){0.3f, 1.1f, 0.7f, 1.9f});
    bw_mixer_desc md = {f.rig, 10, {NULL, NULL}, BW_SIMD_PORTABLE};
    bw_mixer *m = NULL;
    CHECK_INT(bw_mixer_create(&md, &m), BW_OK);
    size_t none = bw_mixer_hot_bytes_for(m, 0);
    CHECK(none > 0);
    CHECK(bw_mixer_hot_bytes_for(m, 5) == none + 5 * sizeof(bw_mix_entry));
    CHECK(bw_mixer_hot_bytes_for(m, 10) == bw_mixer_hot_bytes(m));
    CHECK(bw_mixer_hot_bytes_for(m, 11) == bw_mixer_hot_bytes(m));
    CHECK(bw_mixer_hot_bytes_for(m, -3) == none);
    CHECK(bw_mixer_hot_bytes_for(NULL, 5) == 0);
    bw_mixer_destroy(m);
    free_four(&f);
}

static void the_empty_view_equals_a_cleared_pose(void)
{
    four_clips f = make_four((const float[4]){0.3f, 1.1f, 0.7f, 1.9f});
    bw_pose expected, got, sampled;
    bw_pose_init(&expected, f.rig, NULL);
    bw_pose_init(&got, f.rig, NULL);
    bw_pose_init(&sampled, f.rig, NULL);
    int compared = 0, differing = 0;
    for (int mode = BW_SIMD_PORTABLE; mode < BW_SIMD_PATH_COUNT; mode++) {
        if (!bw_simd_supported((bw_simd_path)mode)) continue;
        bw_mixer_desc md = {f.rig, 4, {NULL, NULL}, (bw_simd_path)mode};
        bw_mixer *m = NULL;
        CHECK_INT(bw_mixer_create(&md, &m), BW_OK);
        bw_pose empty;
        CHECK(bw_mix_empty_view(m, &empty));
        for (int step = 0; step < 12; step++) {
            float t = 0.09f * (float)step;
            /* one clip alone (each kind), then all four at two ranks */
            for (int set = 0; set < 5; set++) {
                bw_clip_contribution cc[4];
                int n = 0;
                for (int i = 0; i < 4; i++)
                    if (set == 4 || set == i) cc[n++] = (bw_clip_contribution){f.bindings[i], t + 0.2f * (float)i, 0.6f, i == 2};
                bw_pose_clear(&expected);
                CHECK_INT(bw_mix_run_clips(m, f.rig, NULL, cc, n, &expected), BW_OK);
                bw_pose_set_rest(&got, f.rig); /* other numbers: the run must overwrite them all */
                CHECK_INT(bw_mix_run_clips(m, f.rig, &empty, cc, n, &got), BW_OK);
                differing += !same_pose_bits(&expected, &got);
                compared++;
            }
            bw_sample_clip(f.bindings[2], f.rig, t, &sampled);
            bw_contribution pc = {&sampled, 0.7f, 0};
            bw_pose_clear(&expected);
            CHECK_INT(bw_mix_run(m, NULL, &pc, 1, &expected), BW_OK);
            bw_pose_set_rest(&got, f.rig);
            CHECK_INT(bw_mix_run(m, &empty, &pc, 1, &got), BW_OK);
            differing += !same_pose_bits(&expected, &got);
            compared++;
        }
        /* joint 7 is not in the sparse clip: alone it shows the empty base */
        bw_clip_contribution sparse = {f.bindings[2], 0.5f, 1.0f, 0};
        bw_pose_set_rest(&got, f.rig);
        CHECK_INT(bw_mix_run_clips(m, f.rig, &empty, &sparse, 1, &got), BW_OK);
        CHECK(got.coverage[7] == 0.0f && got.joints[7].t[0] == 0.0f && got.joints[7].r[3] == 1.0f &&
              got.joints[7].s[2] == 1.0f);
        bw_mixer_destroy(m);
    }
    printf("empty view vs cleared pose: %d of %d runs differ\n", differing, compared);
    CHECK(compared > 0);
    CHECK_INT(differing, 0);
    /* too many joints for the view */
    static bw_rig_joint_desc big[BW_MIX_EMPTY_MAX + 1];
    for (int i = 0; i <= BW_MIX_EMPTY_MAX; i++) {
        static char names[BW_MIX_EMPTY_MAX + 1][8];
        snprintf(names[i], sizeof names[i], "b%d", i);
        big[i] = (bw_rig_joint_desc){names[i], i - 1, bw_transform_identity};
    }
    bw_rig_desc bd = {.joints = big, .joint_count = BW_MIX_EMPTY_MAX + 1};
    bw_rig *big_rig = fixture_rig_desc(&bd);
    bw_mixer_desc md = {big_rig, 1, {NULL, NULL}, BW_SIMD_AUTO};
    bw_mixer *m = NULL;
    CHECK_INT(bw_mixer_create(&md, &m), BW_OK);
    bw_pose untouched = {0};
    CHECK(!bw_mix_empty_view(m, &untouched) && untouched.joints == NULL);
    bw_mixer_destroy(m);
    bw_rig_destroy(big_rig);
    bw_pose_deinit(&expected);
    bw_pose_deinit(&got);
    bw_pose_deinit(&sampled);
    free_four(&f);
}

int main(void)
{
    RUN(one_pass_equals_sample_then_mix);
    RUN(track_set_compose_equals_per_track_sampling);
    RUN(grid_blocks_of_full_coverage);
    RUN(short_series_grids);
    RUN(the_empty_view_equals_a_cleared_pose);
    RUN(hot_bytes_for_counts_whole_entries);
    return check_summary();
}
