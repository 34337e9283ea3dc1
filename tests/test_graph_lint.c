/* test_graph_lint.c - bw_graph_lint (graph_lint.h): each lint found on a
 * small desc that has exactly that mistake (severity, code, result, desc
 * path and message checked), nothing on a clean desc, compile errors
 * forwarded while the other checks still run, the rig checks only with a
 * rig, and allocation failure reported with nothing leaked.
 *
 * Rig:  0 root, 1 spine <- root, 2 arm <- spine, 3 tip <- arm,
 *       4 tip <- spine (two joints named "tip").
 * Clips: LOOPC (root, looping), ONCE (root, not looping), ELSEWHERE (a
 *        track for a joint "wing" this rig does not have). */
#include <float.h>
#include "blendwerk/blendwerk.h"
#include "blendwerk/graph_lint.h"
#include "check.h"
#include "fixtures.h"
#include "test_alloc_counter.h"

enum { LOOPC, ONCE, ELSEWHERE, CLIPS };
static bw_rig *rig;
static bw_clip *clips[CLIPS];

static bw_clip *make_clip(const char *name, const char *parent, const char *joint, bool loop)
{
    static const float times[2] = {0, 1};
    static const float values[6] = {0, 0, 0, 1, 0, 0};
    bw_track_desc track = {parent, joint, BW_CHANNEL_TRANSLATION, BW_INTERP_EASED, 2, times, values, NULL, NULL};
    bw_clip_desc d = {0};
    d.name = name;
    d.tracks = &track;
    d.track_count = 1;
    d.length = 1;
    d.loop = loop;
    return fixture_clip_desc(&d);
}

static void make_world(void)
{
    static const char *const names[] = {"root", "spine", "arm", "tip", "tip"};
    static const int parents[] = {-1, 0, 1, 2, 1};
    rig = fixture_rig(names, parents, 5);
    clips[LOOPC] = make_clip("loop", "", "root", true);
    clips[ONCE] = make_clip("once", "", "root", false);
    clips[ELSEWHERE] = make_clip("elsewhere", "", "wing", true);
}

static void free_world(void)
{
    for (int i = 0; i < CLIPS; i++) bw_clip_destroy(clips[i]);
    bw_rig_destroy(rig);
}

/* ---- collecting findings ---- */

typedef struct finding {
    bw_graph_lint_severity severity;
    bw_graph_lint_code code;
    bw_result result;
    char where[128];
    char message[512];
} finding;

typedef struct findings {
    finding items[32];
    int count;
} findings;

static void collect(void *user, const bw_graph_lint_item *item)
{
    findings *f = user;
    if (f->count >= 32) return;
    finding *x = &f->items[f->count++];
    x->severity = item->severity;
    x->code = item->code;
    x->result = item->result;
    snprintf(x->where, sizeof x->where, "%s", item->where);
    snprintf(x->message, sizeof x->message, "%s", item->message);
}

/* On a failed case, what the lint said (the expected findings are above it). */
static void dump(const findings *f)
{
    if (check_failures_in_test == 0) return;
    for (int i = 0; i < f->count; i++)
        fprintf(stderr, "    %s %s: %s: %s\n", f->items[i].severity ? "error" : "warning",
                bw_graph_lint_code_name(f->items[i].code), f->items[i].where, f->items[i].message);
}

static bw_result lint(const bw_graph_desc *d, const bw_rig *r, findings *f)
{
    f->count = 0;
    return bw_graph_lint(d, r, collect, f);
}

/* The finding of `code` at `where`, or NULL. */
static const finding *find(const findings *f, bw_graph_lint_code code, const char *where)
{
    for (int i = 0; i < f->count; i++)
        if (f->items[i].code == code && strcmp(f->items[i].where, where) == 0) return &f->items[i];
    return NULL;
}

static int count_code(const findings *f, bw_graph_lint_code code)
{
    int n = 0;
    for (int i = 0; i < f->count; i++) n += f->items[i].code == code;
    return n;
}

/* Check that a finding of `code` at `where` exists and, unless message
 * is NULL, says exactly that; returns it (or NULL) for further checks. */
#define expect(f, code, where, message) expect_at_((f), (code), (where), (message), __LINE__)
static const finding *expect_at_(const findings *f, bw_graph_lint_code code, const char *where, const char *message,
                                 int line)
{
    const finding *x = find(f, code, where);
    if (!x) {
        fprintf(stderr, "%s:%d: no %s finding at %s\n", __FILE__, line, bw_graph_lint_code_name(code), where);
        check_failures_in_test++;
    } else if (message && strcmp(x->message, message) != 0) {
        fprintf(stderr, "%s:%d: message \"%s\", expected \"%s\"\n", __FILE__, line, x->message, message);
        check_failures_in_test++;
    }
    return x;
}

/* ---- building descs ---- */

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define CMP(p, o, v)                                     \
    {                                                    \
        BW_GRAPH_COND_COMPARE, (p), (o), (v), NULL, NULL \
    }
#define IS(p)                                     \
    {                                             \
        BW_GRAPH_COND_TRUE, (p), 0, 0, NULL, NULL \
    }
#define NOT(p)                                   \
    {                                            \
        BW_GRAPH_COND_NOT, (p), 0, 0, NULL, NULL \
    }

static bool pred_true(void *user, const float *params, int count)
{
    (void)user;
    (void)params;
    (void)count;
    return true;
}

/* Desc pieces as compound literals (all other fields zero: the defaults). */
#define desc_of(layers_, layer_count_, params_, param_count_) \
    ((bw_graph_desc){.layers = (layers_),                     \
                     .layer_count = (layer_count_),           \
                     .params = (params_),                     \
                     .param_count = (param_count_),           \
                     .clips = (const bw_clip *const *)clips,  \
                     .clip_count = CLIPS})
#define layer_of(name_, entry_, states_, state_count_, ts_, tc_) \
    ((bw_graph_layer_desc){.name = (name_),                      \
                           .entry = (entry_),                    \
                           .states = (states_),                  \
                           .state_count = (state_count_),        \
                           .transitions = (ts_),                 \
                           .transition_count = (tc_)})
#define tr(from_, to_, conds_, n_, duration_) \
    ((bw_graph_transition_desc){              \
        .from = (from_), .to = (to_), .conditions = (conds_), .condition_count = (n_), .duration = (duration_)})

/* ---- the clean desc ---- */

static const bw_graph_param_desc clean_params[] = {
    {"speed", BW_GRAPH_PARAM_FLOAT, 0, 0, false},
    {"jump", BW_GRAPH_PARAM_TRIGGER, 0, 0, false},
    {"grounded", BW_GRAPH_PARAM_BOOL, 1, 0, false},
    {"wave_weight", BW_GRAPH_PARAM_FLOAT, 1, 0, false},
};
static const bw_graph_condition_desc c_moving[] = {CMP("speed", BW_GRAPH_GT, 0.1f)};
static const bw_graph_condition_desc c_still[] = {CMP("speed", BW_GRAPH_LE, 0.1f)};
static const bw_graph_condition_desc c_jump[] = {IS("jump"), IS("grounded")};
static const bw_graph_state_desc clean_states[] = {
    {"idle", LOOPC, NULL, 0, NULL, 0, 0, NULL, {0, 0, 0}, false},
    {"move", LOOPC, NULL, 0, NULL, 0, 0, NULL, {0, 0, 0}, false},
    {"jump", ONCE, NULL, 0, NULL, 0, 0, NULL, {0, 0, 0}, false},
};
static const bw_graph_state_desc wave_states[] = {{"wave", LOOPC, NULL, 0, NULL, 0, 0, NULL, {0, 0, 0}, false}};
static const bw_graph_mask_entry_desc upper_entries[] = {{"spine", 1, false}, {"arm/tip", 0.5f, true}};
static const bw_graph_mask_desc clean_masks[] = {{"upper", upper_entries, 2}};

/* A base layer idle <-> move, any -> jump on the trigger, jump -> idle at
 * its exit time; an upper layer under the mask whose weight follows a
 * parameter. Every parameter is read, every state reachable. */
static void clean_desc(bw_graph_desc *d, bw_graph_layer_desc layers[2], bw_graph_transition_desc ts[4])
{
    ts[0] = tr("idle", "move", c_moving, 1, 0.2f);
    ts[1] = tr("move", "idle", c_still, 1, 0.2f);
    ts[2] = tr("*", "jump", c_jump, 2, 0.1f);
    ts[3] = tr("jump", "idle", NULL, 0, 0.2f);
    ts[3].has_exit_time = true;
    ts[3].exit_time = 0.9f;
    layers[0] = layer_of("base", "idle", clean_states, 3, ts, 4);
    layers[1] = layer_of("upper", "wave", wave_states, 1, NULL, 0);
    layers[1].mask = "upper";
    layers[1].weight_param = "wave_weight";
    *d = desc_of(layers, 2, clean_params, COUNT(clean_params));
    d->masks = clean_masks;
    d->mask_count = 1;
}

static void clean_desc_has_no_findings(void)
{
    bw_graph_desc d;
    bw_graph_layer_desc layers[2];
    bw_graph_transition_desc ts[4];
    clean_desc(&d, layers, ts);
    findings f;
    CHECK_INT(lint(&d, NULL, &f), BW_OK);
    CHECK_INT(f.count, 0);
    CHECK_INT(lint(&d, rig, &f), BW_OK); /* the mask resolves on the rig: spine, and arm/tip */
    CHECK_INT(f.count, 0);
    dump(&f);
    CHECK_INT(bw_graph_lint(&d, rig, NULL, NULL), BW_OK); /* fn may be NULL */
}

static void null_desc_is_an_invalid_argument(void)
{
    findings f = {.count = 0};
    CHECK_INT(bw_graph_lint(NULL, rig, collect, &f), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(f.count, 0);
}

/* ---- 1. compile errors ---- */

static void compile_errors_are_forwarded_and_the_other_checks_still_run(void)
{
    /* idle -> "jmup" (no such state) and an unread float "spare": compile
     * reports the unknown state at the transition's `to`; the unused
     * parameter is still found in the same pass. */
    static const bw_graph_param_desc params[] = {{"spare", BW_GRAPH_PARAM_FLOAT, 0, 0, false}};
    bw_graph_transition_desc ts[1] = {tr("idle", "jmup", NULL, 0, 0.2f)};
    bw_graph_layer_desc layers[1] = {layer_of("base", "idle", clean_states, 3, ts, 1)};
    bw_graph_desc d = desc_of(layers, 1, params, 1);
    findings f;
    CHECK_INT(lint(&d, NULL, &f), BW_ERR_NOT_FOUND);
    const finding *x = expect(&f, BW_GRAPH_LINT_COMPILE, "layers[0].transitions[0].to", NULL);
    if (x) {
        CHECK_INT(x->severity, BW_GRAPH_LINT_ERROR);
        CHECK_INT(x->result, BW_ERR_NOT_FOUND);
        CHECK_STR(x->message, "unknown state 'jmup'");
    }
    expect(&f, BW_GRAPH_LINT_UNUSED_PARAM, "params[0]", NULL);
    /* move and jump have no way in (the broken edge leads nowhere) */
    expect(&f, BW_GRAPH_LINT_UNREACHABLE_STATE, "layers[0].states[1]", NULL);
    expect(&f, BW_GRAPH_LINT_UNREACHABLE_STATE, "layers[0].states[2]", NULL);
    CHECK_INT(f.count, 4);
    dump(&f);
}

/* A reference (baked additive reference) on an override layer's state and
 * one naming a clip out of range on an additive layer: both are compile's
 * errors, forwarded with its paths, and `check` reports them. */
static void bad_references_are_compile_errors(void)
{
    bw_graph_state_desc base[1] = {clean_states[0]};
    base[0].reference.kind = BW_GRAPH_REF_REST;
    bw_graph_state_desc add[1] = {clean_states[0]};
    add[0].reference.kind = BW_GRAPH_REF_CLIP;
    add[0].reference.clip = 77;
    bw_graph_layer_desc layers[2] = {layer_of("base", "idle", base, 1, NULL, 0), layer_of("add", "idle", add, 1, NULL, 0)};
    layers[1].mode = BW_GRAPH_ADDITIVE;
    bw_graph_desc d = desc_of(layers, 2, NULL, 0);
    findings f;
    CHECK_INT(lint(&d, NULL, &f), BW_ERR_INVALID_ARGUMENT);
    const finding *x = expect(&f, BW_GRAPH_LINT_COMPILE, "layers[0].states[0].reference", NULL);
    if (x) CHECK_STR(x->message, "state 'idle': a reference is for additive layers only");
    x = expect(&f, BW_GRAPH_LINT_COMPILE, "layers[1].states[0].reference.clip", NULL);
    if (x) CHECK_INT(x->result, BW_ERR_RANGE);
    CHECK_INT(f.count, 2);
    dump(&f);
}

/* ---- 3. per layer ---- */

static void unreachable_states_are_found_over_any_state_edges_too(void)
{
    /* idle -> move; * -> jump (so jump is reachable from anywhere); fall
     * has no way in. */
    static const bw_graph_state_desc states[] = {
        {"idle", LOOPC, NULL, 0, NULL, 0, 0, NULL, {0, 0, 0}, false},
        {"move", LOOPC, NULL, 0, NULL, 0, 0, NULL, {0, 0, 0}, false},
        {"jump", ONCE, NULL, 0, NULL, 0, 0, NULL, {0, 0, 0}, false},
        {"fall", LOOPC, NULL, 0, NULL, 0, 0, NULL, {0, 0, 0}, false},
    };
    static const bw_graph_param_desc params[] = {{"go", BW_GRAPH_PARAM_TRIGGER, 0, 0, false}};
    static const bw_graph_condition_desc go[] = {IS("go")};
    bw_graph_transition_desc ts[3] = {tr("idle", "move", go, 1, 0.2f), tr("*", "jump", go, 1, 0.2f),
                                      tr("fall", "idle", go, 1, 0.2f)};
    bw_graph_layer_desc layers[1] = {layer_of("base", "idle", states, 4, ts, 3)};
    bw_graph_desc d = desc_of(layers, 1, params, 1);
    findings f;
    CHECK_INT(lint(&d, NULL, &f), BW_OK); /* warnings only */
    CHECK_INT(f.count, 1);
    const finding *x = expect(&f, BW_GRAPH_LINT_UNREACHABLE_STATE, "layers[0].states[3]", NULL);
    if (x) {
        CHECK_INT(x->severity, BW_GRAPH_LINT_WARNING);
        CHECK_INT(x->result, BW_OK);
        CHECK_STR(x->message, "state 'fall' is unreachable from the entry 'idle'");
    }
    dump(&f);
}

static void a_transition_behind_an_always_true_one_is_shadowed(void)
{
    /* transitions[0] idle -> move has no conditions and no exit time, so
     * idle -> jump (transitions[1]) never fires on its own; move -> idle
     * with an exit time does not shadow move -> jump after it. */
    static const bw_graph_param_desc params[] = {{"speed", BW_GRAPH_PARAM_FLOAT, 0, 0, false}};
    static const bw_graph_condition_desc fast[] = {CMP("speed", BW_GRAPH_GT, 1)};
    bw_graph_transition_desc ts[4] = {tr("idle", "move", NULL, 0, 0.2f), tr("idle", "jump", fast, 1, 0.2f),
                                      tr("move", "idle", NULL, 0, 0.2f), tr("move", "jump", fast, 1, 0.2f)};
    ts[2].has_exit_time = true;
    ts[2].exit_time = 0.5f;
    bw_graph_layer_desc layers[1] = {layer_of("base", "idle", clean_states, 3, ts, 4)};
    bw_graph_desc d = desc_of(layers, 1, params, 1);
    findings f;
    CHECK_INT(lint(&d, NULL, &f), BW_OK);
    CHECK_INT(f.count, 1);
    expect(&f, BW_GRAPH_LINT_SHADOWED_TRANSITION, "layers[0].transitions[1]",
           "never fires on its own: transitions[0] ('idle' -> 'move') has no conditions and no "
           "exit time and is checked first (travel may still take this one)");
    dump(&f);
}

static void an_always_true_any_state_transition_shadows_other_states_transitions(void)
{
    /* * -> jump, always true, no to_self: from idle and move it wins
     * first, so idle -> move and move -> idle are shadowed; from jump it
     * cannot fire (jump is its target), so jump -> idle is not. The later
     * any-state * -> jump with a condition shares the target: shadowed. */
    static const bw_graph_param_desc params[] = {{"speed", BW_GRAPH_PARAM_FLOAT, 0, 0, false}};
    static const bw_graph_condition_desc fast[] = {CMP("speed", BW_GRAPH_GT, 1)};
    bw_graph_transition_desc ts[5] = {tr("idle", "move", fast, 1, 0.2f), tr("move", "idle", fast, 1, 0.2f),
                                      tr("*", "jump", NULL, 0, 0.2f), tr("jump", "idle", fast, 1, 0.2f),
                                      tr("*", "jump", fast, 1, 0.2f)};
    bw_graph_layer_desc layers[1] = {layer_of("base", "idle", clean_states, 3, ts, 5)};
    bw_graph_desc d = desc_of(layers, 1, params, 1);
    findings f;
    CHECK_INT(lint(&d, NULL, &f), BW_OK);
    CHECK_INT(count_code(&f, BW_GRAPH_LINT_SHADOWED_TRANSITION), 3);
    expect(&f, BW_GRAPH_LINT_SHADOWED_TRANSITION, "layers[0].transitions[0]", NULL);
    expect(&f, BW_GRAPH_LINT_SHADOWED_TRANSITION, "layers[0].transitions[1]", NULL);
    expect(&f, BW_GRAPH_LINT_SHADOWED_TRANSITION, "layers[0].transitions[4]", NULL);
    CHECK_INT(f.count, 3);
    dump(&f);
}

static void contradicting_conditions_are_found(void)
{
    /* speed > 2 and speed < 1: no value; grounded and not grounded: no
     * value; speed == 1 and speed ~= 1: no value; speed > 1 and speed < 2:
     * 1.5 holds both (no finding); speed >= 1 and speed <= 1: 1 (none). */
    static const bw_graph_param_desc params[] = {{"speed", BW_GRAPH_PARAM_FLOAT, 0, 0, false},
                                                 {"grounded", BW_GRAPH_PARAM_BOOL, 0, 0, false}};
    static const bw_graph_condition_desc c0[] = {CMP("speed", BW_GRAPH_GT, 2), CMP("speed", BW_GRAPH_LT, 1)};
    static const bw_graph_condition_desc c1[] = {IS("grounded"), NOT("grounded")};
    static const bw_graph_condition_desc c2[] = {CMP("speed", BW_GRAPH_EQ, 1), CMP("speed", BW_GRAPH_NE, 1)};
    static const bw_graph_condition_desc c3[] = {CMP("speed", BW_GRAPH_GT, 1), CMP("speed", BW_GRAPH_LT, 2)};
    static const bw_graph_condition_desc c4[] = {CMP("speed", BW_GRAPH_GE, 1), CMP("speed", BW_GRAPH_LE, 1)};
    bw_graph_transition_desc ts[5] = {tr("idle", "move", c0, 2, 0.2f), tr("idle", "jump", c1, 2, 0.2f),
                                      tr("idle", "move", c2, 2, 0.2f), tr("idle", "move", c3, 2, 0.2f),
                                      tr("idle", "jump", c4, 2, 0.2f)};
    bw_graph_layer_desc layers[1] = {layer_of("base", "idle", clean_states, 3, ts, 5)};
    bw_graph_desc d = desc_of(layers, 1, params, 2);
    findings f;
    CHECK_INT(lint(&d, NULL, &f), BW_OK);
    CHECK_INT(f.count, 3);
    expect(&f, BW_GRAPH_LINT_CONTRADICTION, "layers[0].transitions[0]",
           "never fires: its conditions on 'speed' cannot all hold at once");
    expect(&f, BW_GRAPH_LINT_CONTRADICTION, "layers[0].transitions[1]", NULL);
    expect(&f, BW_GRAPH_LINT_CONTRADICTION, "layers[0].transitions[2]", NULL);
    dump(&f);
}

/* A parameter is a float, so the values that decide are floats: beyond
 * 2^53 "speed > 1e20" holds at the next float above 1e20 (100000002004087734272,
 * which hi + 2 in double did not reach: it read "never fires"), likewise
 * "speed < -1e20"; "speed > 1e20 and speed < 3e20" holds at 2e20; but
 * nothing lies strictly between the adjacent floats 1 and 1 + 2^-23, and
 * "speed > FLT_MAX" holds for no finite float. */
static void huge_and_adjacent_constants_are_judged_as_floats(void)
{
    static const bw_graph_param_desc params[] = {{"speed", BW_GRAPH_PARAM_FLOAT, 0, 0, false}};
    static const bw_graph_condition_desc c0[] = {CMP("speed", BW_GRAPH_GT, 1e20f)};
    static const bw_graph_condition_desc c1[] = {CMP("speed", BW_GRAPH_LT, -1e20f)};
    static const bw_graph_condition_desc c2[] = {CMP("speed", BW_GRAPH_GT, 1e20f), CMP("speed", BW_GRAPH_LT, 3e20f)};
    static const bw_graph_condition_desc c3[] = {CMP("speed", BW_GRAPH_GT, 1.0f),
                                                 CMP("speed", BW_GRAPH_LT, 1.0f + 0x1p-23f)};
    static const bw_graph_condition_desc c4[] = {CMP("speed", BW_GRAPH_GT, FLT_MAX)};
    bw_graph_transition_desc ts[5] = {tr("idle", "move", c0, 1, 0.2f), tr("idle", "move", c1, 1, 0.2f),
                                      tr("idle", "move", c2, 2, 0.2f), tr("idle", "move", c3, 2, 0.2f),
                                      tr("idle", "move", c4, 1, 0.2f)};
    bw_graph_layer_desc layers[1] = {layer_of("base", "idle", clean_states, 3, ts, 5)};
    bw_graph_desc d = desc_of(layers, 1, params, 1);
    findings f;
    CHECK_INT(lint(&d, NULL, &f), BW_OK);
    CHECK_INT(count_code(&f, BW_GRAPH_LINT_CONTRADICTION), 2);
    expect(&f, BW_GRAPH_LINT_CONTRADICTION, "layers[0].transitions[3]",
           "never fires: its conditions on 'speed' cannot all hold at once");
    expect(&f, BW_GRAPH_LINT_CONTRADICTION, "layers[0].transitions[4]", NULL);
    dump(&f);
}

static void exit_times_past_1_on_non_looping_states_are_found(void)
{
    /* jump (ONCE, not looping) -> idle at 1.5: never; idle (looping) ->
     * move at 1.5: a progress boundary, fine; move with loop = NO on a
     * looping clip -> idle at 2: never. */
    static const bw_graph_state_desc states[] = {
        {"idle", LOOPC, NULL, 0, NULL, 0, 0, NULL, {0, 0, 0}, false},
        {"move", LOOPC, NULL, 0, NULL, BW_GRAPH_LOOP_NO, 0, NULL, {0, 0, 0}, false},
        {"jump", ONCE, NULL, 0, NULL, 0, 0, NULL, {0, 0, 0}, false},
    };
    bw_graph_transition_desc ts[4] = {tr("jump", "idle", NULL, 0, 0.2f), tr("idle", "move", NULL, 0, 0.2f),
                                      tr("move", "idle", NULL, 0, 0.2f), tr("idle", "jump", NULL, 0, 0.2f)};
    float exits[4] = {1.5f, 1.5f, 2, 3};
    for (int i = 0; i < 4; i++) {
        ts[i].has_exit_time = true;
        ts[i].exit_time = exits[i];
    }
    bw_graph_layer_desc layers[1] = {layer_of("base", "idle", states, 3, ts, 4)};
    bw_graph_desc d = desc_of(layers, 1, NULL, 0);
    findings f;
    CHECK_INT(lint(&d, NULL, &f), BW_OK);
    CHECK_INT(f.count, 2);
    expect(&f, BW_GRAPH_LINT_EXIT_TIME_NEVER, "layers[0].transitions[0].exit_time",
           "exit time 1.5 never opens: state 'jump' does not loop, so its normalized time stops at 1");
    expect(&f, BW_GRAPH_LINT_EXIT_TIME_NEVER, "layers[0].transitions[2].exit_time", NULL);
    dump(&f);
}

static void exit_times_from_looping_states_that_stand_still_are_found(void)
{
    /* docs/decisions.md: a zero-length looping clip stands still, so
     * "still" (a clip of length 0, looping) never crosses n + e and its
     * exit-time edge never fires; so does "held" (LOOPC at a constant
     * speed 0). "idle" (LOOPC, 1 s) at exit time 1 is fine, "paced" at
     * speed 0 with a speed parameter may move, "once0" at speed 0 does not
     * loop (its gate is p >= e: the offset decides), and the any-state
     * edge's gate belongs to whichever state is current: none reported. */
    bw_clip_desc cd = {0};
    cd.name = "pose";
    cd.length = 0;
    cd.loop = true;
    bw_clip *zero = fixture_clip_desc(&cd);
    const bw_clip *list[CLIPS + 1] = {clips[LOOPC], clips[ONCE], clips[ELSEWHERE], zero};
    static const bw_graph_param_desc params[] = {{"rate", BW_GRAPH_PARAM_FLOAT, 1, 0, false}};
    bw_graph_state_desc states[5] = {
        {"idle", LOOPC, NULL, 0, NULL, 0, 0, NULL, {0, 0, 0}, false},
        {"still", CLIPS, NULL, 0, NULL, 0, 0, NULL, {0, 0, 0}, false},
        {"held", LOOPC, NULL, 0, NULL, 0, 0, NULL, {0, 0, 0}, true},
        {"paced", LOOPC, NULL, 0, "rate", 0, 0, NULL, {0, 0, 0}, true},
        {"once0", ONCE, NULL, 0, NULL, 0, 0, NULL, {0, 0, 0}, true},
    };
    bw_graph_transition_desc ts[6] = {tr("still", "idle", NULL, 0, 0.2f), tr("held", "idle", NULL, 0, 0.2f),
                                      tr("idle", "still", NULL, 0, 0.2f), tr("paced", "held", NULL, 0, 0.2f),
                                      tr("once0", "paced", NULL, 0, 0.2f), tr("*", "once0", NULL, 0, 0.2f)};
    for (int i = 0; i < 6; i++) {
        ts[i].has_exit_time = true;
        ts[i].exit_time = i == 1 ? 0.5f : 1.0f;
    }
    bw_graph_layer_desc layers[1] = {layer_of("base", "idle", states, 5, ts, 6)};
    bw_graph_desc d = desc_of(layers, 1, params, 1);
    d.clips = list;
    d.clip_count = CLIPS + 1;
    findings f;
    CHECK_INT(lint(&d, NULL, &f), BW_OK);
    CHECK_INT(count_code(&f, BW_GRAPH_LINT_EXIT_TIME_NEVER), 2);
    expect(&f, BW_GRAPH_LINT_EXIT_TIME_NEVER, "layers[0].transitions[0].exit_time",
           "exit time 1 never opens: state 'still' loops a clip of length 0, so its normalized time stands still");
    expect(&f, BW_GRAPH_LINT_EXIT_TIME_NEVER, "layers[0].transitions[1].exit_time",
           "exit time 0.5 never opens: state 'held' has speed 0, so its normalized time stands still");
    dump(&f);
    bw_clip_destroy(zero);
}

static void zero_duration_cycles_whose_conditions_can_hold_are_found(void)
{
    /* Layer 0: idle -> move (speed > 1) and move -> idle (speed > 0.5),
     * both instant without exit time: at speed 2 they flip every update.
     * Layer 1: the same with exclusive conditions (speed > 1, speed <= 1):
     * no cycle. Layer 2: instant but the way back needs a trigger (used up
     * when it fires): none. Layer 3: the way back fades (0.2 s): none.
     * Layer 4: * -> idle, to_self, always true, instant: every update. */
    static const bw_graph_param_desc params[] = {{"speed", BW_GRAPH_PARAM_FLOAT, 0, 0, false},
                                                 {"go", BW_GRAPH_PARAM_TRIGGER, 0, 0, false}};
    static const bw_graph_condition_desc fast[] = {CMP("speed", BW_GRAPH_GT, 1)};
    static const bw_graph_condition_desc half[] = {CMP("speed", BW_GRAPH_GT, 0.5f)};
    static const bw_graph_condition_desc slow[] = {CMP("speed", BW_GRAPH_LE, 1)};
    static const bw_graph_condition_desc go[] = {IS("go")};
    static const bw_graph_state_desc two[] = {{"idle", LOOPC, NULL, 0, NULL, 0, 0, NULL, {0, 0, 0}, false},
                                              {"move", LOOPC, NULL, 0, NULL, 0, 0, NULL, {0, 0, 0}, false}};
    bw_graph_transition_desc t0[2] = {tr("idle", "move", fast, 1, 0), tr("move", "idle", half, 1, 0)};
    bw_graph_transition_desc t1[2] = {tr("idle", "move", fast, 1, 0), tr("move", "idle", slow, 1, 0)};
    bw_graph_transition_desc t2[2] = {tr("idle", "move", fast, 1, 0), tr("move", "idle", go, 1, 0)};
    bw_graph_transition_desc t3[2] = {tr("idle", "move", fast, 1, 0), tr("move", "idle", half, 1, 0.2f)};
    bw_graph_transition_desc t4[2] = {tr("idle", "move", fast, 1, 0.2f), tr("*", "idle", NULL, 0, 0)};
    t4[1].to_self = true;
    bw_graph_layer_desc layers[5] = {layer_of("l0", "idle", two, 2, t0, 2), layer_of("l1", "idle", two, 2, t1, 2),
                                     layer_of("l2", "idle", two, 2, t2, 2), layer_of("l3", "idle", two, 2, t3, 2),
                                     layer_of("l4", "idle", two, 2, t4, 2)};
    bw_graph_desc d = desc_of(layers, 5, params, 2);
    findings f;
    CHECK_INT(lint(&d, NULL, &f), BW_OK);
    CHECK_INT(count_code(&f, BW_GRAPH_LINT_INSTANT_CYCLE), 2);
    const finding *x = expect(&f, BW_GRAPH_LINT_INSTANT_CYCLE, "layers[0].transitions[0]",
                              "zero-duration cycle 'idle' -> 'move' -> 'idle' with no exit time: while its "
                              "conditions hold the layer changes state every update and never shows a fade");
    x = expect(&f, BW_GRAPH_LINT_INSTANT_CYCLE, "layers[4].transitions[1]", NULL);
    if (x) CHECK(strstr(x->message, "cycle 'idle' -> 'idle' ") != NULL);
    /* layer 4's always-true any-state edge also shadows idle -> move */
    expect(&f, BW_GRAPH_LINT_SHADOWED_TRANSITION, "layers[4].transitions[0]", NULL);
    CHECK_INT(f.count, 3);
    dump(&f);
}

/* ---- 4. unused ---- */

static void parameters_triggers_and_masks_nothing_reads_are_found(void)
{
    /* Read: vx and vz by the directional blend node, rate by a state's
     * speed, w by the layer weight, on by a condition. Unread: spare
     * (float), dodge (trigger), mask legs. */
    static const bw_graph_param_desc params[] = {
        {"vx", BW_GRAPH_PARAM_FLOAT, 0, 0, false},      {"vz", BW_GRAPH_PARAM_FLOAT, 0, 0, false},
        {"rate", BW_GRAPH_PARAM_FLOAT, 1, 0, false},    {"w", BW_GRAPH_PARAM_FLOAT, 1, 0, false},
        {"on", BW_GRAPH_PARAM_BOOL, 0, 0, false},       {"spare", BW_GRAPH_PARAM_FLOAT, 0, 0, false},
        {"dodge", BW_GRAPH_PARAM_TRIGGER, 0, 0, false},
    };
    static const int children[] = {0, 1};
    static const float points[] = {0, 0, 0, 1.5f};
    bw_blend_node nodes[3] = {bw_blend_clip_node(LOOPC, 1), bw_blend_clip_node(LOOPC, 1),
                              bw_blend_2d_node(BW_BLEND_NODE_DIRECTIONAL, children, points, 2, 0, 1)};
    bw_blend_tree_desc td = {.nodes = nodes, .node_count = 3, .root = 2, .param_count = 2};
    bw_blend_tree *tree = NULL;
    CHECK(bw_blend_tree_compile(&td, &tree, NULL) == BW_OK);
    bw_graph_state_desc states[2] = {{"move", 0, tree, 0, "rate", 0, 0, NULL, {0, 0, 0}, false},
                                     {"idle", LOOPC, NULL, 0, NULL, 0, 0, NULL, {0, 0, 0}, false}};
    static const bw_graph_condition_desc on[] = {IS("on")};
    bw_graph_transition_desc ts[2] = {tr("move", "idle", on, 1, 0.2f), tr("idle", "move", on, 1, 0.2f)};
    static const bw_graph_mask_entry_desc legs[] = {{"root", 1, false}};
    static const bw_graph_mask_desc masks[] = {{"upper", upper_entries, 2}, {"legs", legs, 1}};
    bw_graph_layer_desc layers[1] = {layer_of("base", "move", states, 2, ts, 2)};
    layers[0].weight_param = "w";
    layers[0].mask = "upper";
    bw_graph_desc d = desc_of(layers, 1, params, COUNT(params));
    d.masks = masks;
    d.mask_count = 2;
    findings f;
    CHECK_INT(lint(&d, rig, &f), BW_OK);
    CHECK_INT(f.count, 3);
    expect(&f, BW_GRAPH_LINT_UNUSED_PARAM, "params[5]",
           "parameter 'spare' is never read: no condition, state speed, layer weight or blend node uses it");
    expect(&f, BW_GRAPH_LINT_UNUSED_TRIGGER, "params[6]",
           "trigger 'dodge' is never consumed: no transition's conditions name it");
    expect(&f, BW_GRAPH_LINT_UNUSED_MASK, "masks[1]", "mask 'legs' is not used by any layer");
    dump(&f);

    /* A predicate may read any parameter: spare is no longer reported, the
     * trigger still is (a predicate never consumes it). */
    bw_graph_condition_desc pred[] = {{BW_GRAPH_COND_PREDICATE, NULL, 0, 0, pred_true, NULL}};
    ts[1].conditions = pred;
    CHECK_INT(lint(&d, rig, &f), BW_OK);
    CHECK(find(&f, BW_GRAPH_LINT_UNUSED_PARAM, "params[5]") == NULL);
    expect(&f, BW_GRAPH_LINT_UNUSED_TRIGGER, "params[6]", NULL);
    CHECK_INT(f.count, 2);
    bw_blend_tree_destroy(tree);
}

/* ---- 2. the rig ---- */

static void mask_joints_and_clips_are_checked_against_the_rig(void)
{
    /* mask entries: "spnie" is not in the rig (error, NOT_FOUND), "tip"
     * names two joints (error, DUPLICATE), "spine/tip" is fine; the state
     * "wing" plays ELSEWHERE, whose only track binds to nothing. */
    static const bw_graph_mask_entry_desc entries[] = {{"spnie", 1, false}, {"tip", 1, false}, {"spine/tip", 1, false}};
    static const bw_graph_mask_desc masks[] = {{"upper", entries, 3}};
    static const bw_graph_state_desc states[] = {{"wing", ELSEWHERE, NULL, 0, NULL, 0, 0, NULL, {0, 0, 0}, false}};
    bw_graph_layer_desc layers[1] = {layer_of("base", "wing", states, 1, NULL, 0)};
    layers[0].mask = "upper";
    bw_graph_desc d = desc_of(layers, 1, NULL, 0);
    d.masks = masks;
    d.mask_count = 1;
    findings f;
    CHECK_INT(lint(&d, NULL, &f), BW_OK); /* without a rig: nothing to check them against */
    CHECK_INT(f.count, 0);
    CHECK_INT(lint(&d, rig, &f), BW_ERR_NOT_FOUND); /* the first error's result */
    CHECK_INT(f.count, 3);
    const finding *x = expect(&f, BW_GRAPH_LINT_MASK_JOINT, "masks[0].entries[0].joint", NULL);
    if (x) {
        CHECK_INT(x->severity, BW_GRAPH_LINT_ERROR);
        CHECK_INT(x->result, BW_ERR_NOT_FOUND);
        CHECK_STR(x->message, "no joint 'spnie' in the rig (mask 'upper')");
    }
    x = expect(&f, BW_GRAPH_LINT_MASK_JOINT, "masks[0].entries[1].joint", NULL);
    if (x) {
        CHECK_INT(x->result, BW_ERR_DUPLICATE);
        CHECK_STR(x->message, "joint name 'tip' is ambiguous in the rig (mask 'upper'; write 'parent/tip')");
    }
    x = expect(&f, BW_GRAPH_LINT_CLIP_UNBOUND, "clips[2]", NULL);
    if (x) {
        CHECK_INT(x->severity, BW_GRAPH_LINT_WARNING);
        CHECK_STR(x->message, "clip 'elsewhere' drives no joint of the rig (none of its 1 tracks binds)");
    }
    dump(&f);
}

/* A clip only an additive state's reference names is sampled too, so an
 * unbound one is reported: "idle" (LOOPC, on an additive layer) measures
 * against ELSEWHERE at 0, and nothing plays ELSEWHERE. */
static void a_reference_clip_is_checked_against_the_rig(void)
{
    bw_graph_state_desc states[1] = {clean_states[0]};
    states[0].reference = (bw_graph_reference_desc){BW_GRAPH_REF_CLIP, ELSEWHERE, 0.0f};
    bw_graph_layer_desc layers[1] = {layer_of("add", "idle", states, 1, NULL, 0)};
    layers[0].mode = BW_GRAPH_ADDITIVE;
    bw_graph_desc d = desc_of(layers, 1, NULL, 0);
    findings f;
    CHECK_INT(lint(&d, rig, &f), BW_OK);
    CHECK_INT(f.count, 1);
    expect(&f, BW_GRAPH_LINT_CLIP_UNBOUND, "clips[2]", NULL);
    dump(&f);
}

/* ---- allocation ---- */

static void allocation_failure_is_reported_and_leaks_nothing(void)
{
    /* The compile-error desc above, whose lint allocates (the error list,
     * per-layer scratch, the unused-parameter flags): with a budget of n
     * allocations it either finishes (the same findings as with malloc)
     * or returns BW_ERR_OUT_OF_MEMORY; every block comes back. */
    static const bw_graph_param_desc params[] = {{"spare", BW_GRAPH_PARAM_FLOAT, 0, 0, false}};
    bw_graph_transition_desc ts[1] = {tr("idle", "jmup", NULL, 0, 0.2f)};
    bw_graph_layer_desc layers[1] = {layer_of("base", "idle", clean_states, 3, ts, 1)};
    bw_graph_desc d = desc_of(layers, 1, params, 1);
    findings f;
    bool finished = false;
    for (long n = 0; n < 64 && !finished; n++) {
        alloc_counter counter = ALLOC_COUNTER(n);
        d.allocator = (bw_allocator){alloc_counter_fn, &counter};
        bw_result r = lint(&d, rig, &f);
        CHECK(r == BW_ERR_OUT_OF_MEMORY || r == BW_ERR_NOT_FOUND);
        CHECK_INT(counter.live_blocks, 0);
        if (r == BW_ERR_NOT_FOUND && counter.refused == 0) {
            finished = true;
            CHECK_INT(f.count, 4);
        }
    }
    CHECK(finished);
}

/* ---- size: every check but the cycle search is O(n log n) ---- */

enum { RING = 30000 };

/* A ring s1 -> s2 -> ... -> s30000 -> s1, each transition always true
 * with the given duration, in states[0 .. RING) and ts[0 .. RING). */
static void ring_of(char (*names)[8], bw_graph_state_desc *states, bw_graph_transition_desc *ts, float duration)
{
    for (int k = 0; k < RING; k++) {
        snprintf(names[k], sizeof names[k], "s%d", k + 1);
        states[k] = (bw_graph_state_desc){.name = names[k], .clip = LOOPC};
    }
    for (int k = 0; k < RING; k++) ts[k] = tr(names[k], names[(k + 1) % RING], NULL, 0, duration);
}

/* The old lint searched the states by name for every transition end,
 * ran its breadth-first search over every transition for each state
 * reached, compared every transition with every other for shadowing and
 * judged 20,001 conditions against each other per condition: far beyond
 * minutes. Here: one unreachable state, three shadowed transitions, one
 * contradiction among 20,001 conditions and none among another 20,001. */
static void a_30000_state_ring_is_linted_with_each_finding_once(void)
{
    enum { MANY = 20000 };
    char (*names)[8] = calloc(RING, sizeof *names);
    bw_graph_state_desc *states = calloc(RING + 1, sizeof *states);
    bw_graph_transition_desc *ts = calloc(RING + 3, sizeof *ts);
    bw_graph_condition_desc *never = calloc(MANY + 1, sizeof *never), *can = calloc(MANY + 1, sizeof *can);
    ring_of(names, states, ts, 0.2f);
    states[RING] = (bw_graph_state_desc){.name = "island", .clip = LOOPC};
    ts[RING] = tr("s5", "s7", NULL, 0, 0.2f);
    /* x > 0, x > 1, ..., x > 19999 and x < 5: no value; and x < 20001: 20000.5 holds */
    for (int k = 0; k < MANY; k++) never[k] = can[k] = (bw_graph_condition_desc)CMP("x", BW_GRAPH_GT, (float)k);
    never[MANY] = (bw_graph_condition_desc)CMP("x", BW_GRAPH_LT, 5.0f);
    can[MANY] = (bw_graph_condition_desc)CMP("x", BW_GRAPH_LT, 20001.0f);
    ts[RING + 1] = tr("s9", "s10", never, MANY + 1, 0.2f);
    ts[RING + 2] = tr("s11", "s12", can, MANY + 1, 0.2f);
    static const bw_graph_param_desc x[1] = {{"x", BW_GRAPH_PARAM_FLOAT, 0, 0, false}};
    bw_graph_layer_desc layers[1] = {layer_of("ring", "s1", states, RING + 1, ts, RING + 3)};
    bw_graph_desc d = desc_of(layers, 1, x, 1);
    findings f;
    CHECK(lint(&d, rig, &f) == BW_OK);
    CHECK_INT(f.count, 5);
    expect(&f, BW_GRAPH_LINT_UNREACHABLE_STATE, "layers[0].states[30000]",
           "state 'island' is unreachable from the entry 's1'");
    expect(&f, BW_GRAPH_LINT_SHADOWED_TRANSITION, "layers[0].transitions[30000]",
           "never fires on its own: transitions[4] ('s5' -> 's6') has no conditions and no exit time and is checked "
           "first (travel may still take this one)");
    expect(&f, BW_GRAPH_LINT_SHADOWED_TRANSITION, "layers[0].transitions[30001]",
           "never fires on its own: transitions[8] ('s9' -> 's10') has no conditions and no exit time and is checked "
           "first (travel may still take this one)");
    expect(&f, BW_GRAPH_LINT_SHADOWED_TRANSITION, "layers[0].transitions[30002]",
           "never fires on its own: transitions[10] ('s11' -> 's12') has no conditions and no exit time and is "
           "checked first (travel may still take this one)");
    expect(&f, BW_GRAPH_LINT_CONTRADICTION, "layers[0].transitions[30001]",
           "never fires: its conditions on 'x' cannot all hold at once");
    dump(&f);
    free(can);
    free(never);
    free(ts);
    free(states);
    free(names);
}

/* The same ring with duration 0: one cycle, found from transitions[0];
 * every later transition's search runs from its destination around to
 * s1 and stops there (transitions[0] is not later): 2 (30000 - e) steps
 * for transition e >= 1 (a state and its one edge, for the states from
 * e + 1 to 29999 and s1), 2 · 29999 for transition 0 (stopped on reaching
 * s1). Before transition e the steps total 2 · 29999 + 2 (e - 1) 30000 -
 * (e - 1) e: 16,721,878 before 280, 16,781,318 > 2^24 = 16,777,216 before
 * 281, so the check stops at transitions[281]. */
static void a_zero_duration_ring_is_one_cycle_and_the_search_stops_at_its_step_limit(void)
{
    char (*names)[8] = calloc(RING, sizeof *names);
    bw_graph_state_desc *states = calloc(RING, sizeof *states);
    bw_graph_transition_desc *ts = calloc(RING, sizeof *ts);
    ring_of(names, states, ts, 0.0f);
    bw_graph_layer_desc layers[1] = {layer_of("ring", "s1", states, RING, ts, RING)};
    bw_graph_desc d = desc_of(layers, 1, NULL, 0);
    findings f;
    CHECK(lint(&d, rig, &f) == BW_OK);
    CHECK_INT(f.count, 2);
    const finding *cycle = expect(&f, BW_GRAPH_LINT_INSTANT_CYCLE, "layers[0].transitions[0]", NULL);
    static const char route[] = "zero-duration cycle 's1' -> 's2' -> 's3' -> 's4' -> ";
    CHECK(cycle && strncmp(cycle->message, route, sizeof route - 1) == 0);
    expect(&f, BW_GRAPH_LINT_INSTANT_CYCLE, "layers[0].transitions[281]",
           "zero-duration cycles not checked from here on: the layer's search passed 16777216 steps");
    dump(&f);
    free(ts);
    free(states);
    free(names);
}

static void code_names_are_stable(void)
{
    CHECK_STR(bw_graph_lint_code_name(BW_GRAPH_LINT_COMPILE), "compile");
    CHECK_STR(bw_graph_lint_code_name(BW_GRAPH_LINT_UNREACHABLE_STATE), "unreachable-state");
    CHECK_STR(bw_graph_lint_code_name(BW_GRAPH_LINT_UNUSED_MASK), "unused-mask");
    CHECK_STR(bw_graph_lint_code_name(BW_GRAPH_LINT_CODE_COUNT), "unknown");
}

int main(void)
{
    make_world();
    RUN(clean_desc_has_no_findings);
    RUN(null_desc_is_an_invalid_argument);
    RUN(compile_errors_are_forwarded_and_the_other_checks_still_run);
    RUN(bad_references_are_compile_errors);
    RUN(a_reference_clip_is_checked_against_the_rig);
    RUN(unreachable_states_are_found_over_any_state_edges_too);
    RUN(a_transition_behind_an_always_true_one_is_shadowed);
    RUN(an_always_true_any_state_transition_shadows_other_states_transitions);
    RUN(contradicting_conditions_are_found);
    RUN(huge_and_adjacent_constants_are_judged_as_floats);
    RUN(exit_times_past_1_on_non_looping_states_are_found);
    RUN(exit_times_from_looping_states_that_stand_still_are_found);
    RUN(zero_duration_cycles_whose_conditions_can_hold_are_found);
    RUN(parameters_triggers_and_masks_nothing_reads_are_found);
    RUN(mask_joints_and_clips_are_checked_against_the_rig);
    RUN(allocation_failure_is_reported_and_leaks_nothing);
    RUN(code_names_are_stable);
    RUN(a_30000_state_ring_is_linted_with_each_finding_once);
    RUN(a_zero_duration_ring_is_one_cycle_and_the_search_stops_at_its_step_limit);
    free_world();
    return check_summary();
}
