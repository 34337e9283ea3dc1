/* test_check.c - `blendwerk check GRAPH.lua [--asset FILE]` and
 * `blendwerk plot-blend GRAPH.lua --state NAME`, run as a user would
 * (popen on the built binary, stdout and stderr together) on small graph
 * files written to a temp dir: each lint's exact FILE:LINE line, a clean
 * graph, a file that does not parse, every example of graphs/ against the
 * built-in humanoid, and a state's blend drawn or refused. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "test_files.h"

#define BIN BW_BINARY_DIR "/blendwerk"
#define HUMANOID BW_SOURCE_DIR "/scripts/humanoid.lua"

static char out[1 << 16];
static char dir[256];

static const char unknown_lua[] = "return {\n"
                                  "  params = { speed = 0 },\n"
                                  "  layers = {\n"
                                  "    { name = \"base\", entry = \"idle\", mask = \"legs\",\n"
                                  "      states = { idle = { clip = \"idle\" }, walk = { clip = \"walk\" } },\n"
                                  "      transitions = {\n"
                                  "        { from = \"idle\", to = \"walk\", when = { \"sped > 1\" } },\n"
                                  "        { from = \"walk\", to = \"run\", when = { \"speed < 1\" } },\n"
                                  "      },\n"
                                  "    },\n"
                                  "  },\n"
                                  "}\n";

static const char unreachable_lua[] = "return {\n"
                                      "  layers = {\n"
                                      "    { name = \"base\", entry = \"idle\",\n"
                                      "      states = {\n"
                                      "        idle = { clip = \"idle\" },\n"
                                      "        lost = { clip = \"idle\" },\n"
                                      "      },\n"
                                      "    },\n"
                                      "  },\n"
                                      "}\n";

static const char unused_lua[] = "return {\n"
                                 "  params = {\n"
                                 "    speed = 0,\n"
                                 "    jump = \"trigger\",\n"
                                 "  },\n"
                                 "  layers = {\n"
                                 "    { name = \"base\", entry = \"idle\", states = { idle = { clip = \"idle\" } } },\n"
                                 "  },\n"
                                 "}\n";

static const char shadowed_lua[] =
    "return {\n"
    "  params = { speed = 0 },\n"
    "  layers = {\n"
    "    { name = \"base\", entry = \"idle\",\n"
    "      states = { idle = { clip = \"idle\" }, walk = { clip = \"walk\" }, run = { clip = \"run\" } },\n"
    "      transitions = {\n"
    "        { from = \"idle\", to = \"walk\" },\n"
    "        { from = \"idle\", to = \"run\", when = { \"speed > 2\" } },\n"
    "        { from = \"walk\", to = \"idle\" },\n"
    "        { from = \"run\", to = \"idle\" },\n"
    "      },\n"
    "    },\n"
    "  },\n"
    "}\n";

static const char cycle_lua[] =
    "return {\n"
    "  params = { speed = 0 },\n"
    "  layers = {\n"
    "    { name = \"base\", entry = \"idle\",\n"
    "      states = { idle = { clip = \"idle\" }, walk = { clip = \"walk\" } },\n"
    "      transitions = {\n"
    "        { from = \"idle\", to = \"walk\", when = { \"speed > 1\" }, duration = 0 },\n"
    "        { from = \"walk\", to = \"idle\", when = { \"speed > 0.5\" }, duration = 0 },\n"
    "      },\n"
    "    },\n"
    "  },\n"
    "}\n";

static const char exit_lua[] =
    "return {\n"
    "  layers = {\n"
    "    { name = \"base\", entry = \"land\",\n"
    "      states = { land = { clip = \"land\", loop = false }, idle = { clip = \"idle\" } },\n"
    "      transitions = {\n"
    "        { from = \"land\", to = \"idle\",\n"
    "          exit_time = 1.5 },\n"
    "        { from = \"idle\", to = \"land\", exit_time = 2 },\n"
    "      },\n"
    "    },\n"
    "  },\n"
    "}\n";

static const char asset_lua[] =
    "return {\n"
    "  params = { speed = 0 },\n"
    "  masks = {\n"
    "    arm = { { \"upperarm_r\", 1 },\n"
    "            { \"wing_r\", 1 } },\n"
    "  },\n"
    "  layers = {\n"
    "    { name = \"base\", entry = \"idle\",\n"
    "      states = { idle = { clip = \"idle\" }, fly = { clip = \"fly\" } },\n"
    "      transitions = {\n"
    "        { from = \"idle\", to = \"fly\", when = { \"speed > 1\" } },\n"
    "        { from = \"fly\", to = \"idle\", when = { \"speed <= 1\" } },\n"
    "      },\n"
    "    },\n"
    "    { name = \"upper\", entry = \"wave\", mask = \"arm\", states = { wave = { clip = \"wave\" } } },\n"
    "  },\n"
    "}\n";

#define BLEND_GRAPH(extra)                                                                                    \
    "return {\n"                                                                                               \
    "  params = { vx = 0, speed = 0 },\n"                                                                      \
    "  layers = {\n"                                                                                           \
    "    { name = \"base\", entry = \"move\",\n"                                                                \
    "      states = {\n"                                                                                       \
    "        move = { blend = { kind = \"1d\", param = \"vx\"" extra ",\n"                                       \
    "                           children = { { clip = \"idle\", at = 0 }, { clip = \"walk_fwd\", at = 1 } } } },\n" \
    "      },\n"                                                                                               \
    "    },\n"                                                                                                 \
    "  },\n"                                                                                                   \
    "}\n"
static const char refused_blend_lua[] = BLEND_GRAPH(", bogus = 1");
static const char read_blend_lua[] = BLEND_GRAPH("");
#undef BLEND_GRAPH

static const char clean_lua[] = "return {\n"
                                "  params = { speed = 0 },\n"
                                "  layers = {\n"
                                "    { name = \"base\", entry = \"idle\",\n"
                                "      states = { idle = { clip = \"idle\" }, walk = { clip = \"walk_fwd\" } },\n"
                                "      transitions = {\n"
                                "        { from = \"idle\", to = \"walk\", when = { \"speed > 0.1\" } },\n"
                                "        { from = \"walk\", to = \"idle\", when = { \"speed <= 0.1\" } },\n"
                                "      },\n"
                                "    },\n"
                                "  },\n"
                                "}\n";

static const char broken_lua[] = "return {\n"
                                 "  params = { speed = 0 \n"
                                 "  layers = {}\n"
                                 "}\n";

/* a predicate reads every parameter, so 'ok' is not reported unused */
static const char contradiction_lua[] =
    "return {\n"
    "  params = { speed = 0, ok = true },\n"
    "  masks = { unused = { { \"upperarm_r\", 1 } } },\n"
    "  layers = {\n"
    "    { name = \"base\", entry = \"idle\",\n"
    "      states = { idle = { clip = \"idle\" }, walk = { clip = \"walk\" } },\n"
    "      transitions = {\n"
    "        { from = \"idle\", to = \"walk\", when = { \"speed > 2\", \"speed < 1\" } },\n"
    "        { from = \"walk\", to = \"idle\", when = { function(p) return p.ok end } },\n"
    "      },\n"
    "    },\n"
    "  },\n"
    "}\n";

/* a state whose name forges a problem line, a target name with a
 * terminal escape */
static const char forging_lua[] =
    "return {\n"
    "  layers = {\n"
    "    { name = \"base\", entry = \"idle\",\n"
    "      states = { idle = { clip = \"idle\" }, [\"a\\nfake.lua:1: error: forged\"] = { clip = \"idle\" } },\n"
    "      transitions = { { from = \"idle\", to = \"x\\nfake.lua:1: forged\" } },\n"
    "    },\n"
    "  },\n"
    "}\n";

/* Run `blendwerk ARGS` in dir (from `from`, NULL: dir), stdout and stderr
 * into out; returns the exit status. */
static int run_in(const char *from, const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s 2>&1", from ? from : dir, BIN, args);
    return capture_command(cmd, out, sizeof out);
}

static int run(const char *args) { return run_in(NULL, args); }

/* `blendwerk ARGS` in dir exits with `status` and prints exactly `expected`. */
#define expect(args, status, expected) \
    do {                               \
        CHECK_INT(run(args), status);  \
        CHECK_STR(out, expected);      \
    } while (0)

static void unknown_names_are_errors(void)
{
    expect("check unknown.lua", 1,
           "unknown.lua:4: error: layers[1].mask: unknown mask 'legs'\n"
           "unknown.lua:7: error: layers[1].transitions[1].when[1].param: unknown parameter 'sped'\n"
           "unknown.lua:8: error: layers[1].transitions[2].to: unknown state 'run'\n");
}

static void unreachable_state(void)
{
    expect("check unreachable.lua", 0,
           "unreachable.lua:6: warning: layers[1].states.lost: state 'lost' is unreachable from the entry 'idle'\n");
}

static void params_and_triggers_nothing_reads(void)
{
    expect("check unused.lua", 0,
           "unused.lua:3: warning: params.speed: parameter 'speed' is never read: no condition, state speed, "
           "layer weight or blend node uses it\n"
           "unused.lua:4: warning: params.jump: trigger 'jump' is never consumed: no transition's conditions "
           "name it\n");
}

/* A blend node the reader refuses (a misspelt field) drops out with the
 * parameter it names: while the file has such problems, `check` lists
 * them and holds back what nothing reads (it warned that 'vx', read by the
 * refused node, was never read); once the file reads whole, the warning
 * for 'speed', which truly nothing reads, is back. */
static void nothing_reads_waits_for_a_file_that_reads_whole(void)
{
    expect("check refused_blend.lua", 1,
           "refused_blend.lua:6: error: layers[1].states.move.blend: unknown field 'bogus' (accepted fields: kind, "
           "param, rate_scale, speed, children, at)\n");
    expect("check read_blend.lua", 0,
           "read_blend.lua:2: warning: params.speed: parameter 'speed' is never read: no condition, state speed, "
           "layer weight or blend node uses it\n");
}

static void shadowed_transition(void)
{
    expect("check shadowed.lua", 0,
           "shadowed.lua:8: warning: layers[1].transitions[2]: never fires on its own: transitions[1] ('idle' "
           "-> 'walk') has no conditions and no exit time and is checked first (travel may still take this "
           "one)\n");
}

static void zero_duration_cycle(void)
{
    expect("check cycle.lua", 0,
           "cycle.lua:7: warning: layers[1].transitions[1]: zero-duration cycle 'idle' -> 'walk' -> 'idle' "
           "with no exit time: while its conditions hold the layer changes state every update and never "
           "shows a fade\n");
}

static void contradiction_and_unused_mask(void)
{
    expect("check contradiction.lua", 0,
           "contradiction.lua:8: warning: layers[1].transitions[1]: never fires: its conditions on 'speed' "
           "cannot all hold at once\n"
           "contradiction.lua:3: warning: masks.unused: mask 'unused' is not used by any layer\n");
}

/* land says loop = false; idle's placeholder clip loops, so its exit time
 * 2 is fine: only the field's own line is named */
static void exit_time_past_the_end(void)
{
    expect("check exit.lua", 0,
           "exit.lua:7: warning: layers[1].transitions[1].exit_time: exit time 1.5 never opens: state 'land' "
           "does not loop, so its normalized time stops at 1\n");
}

/* without --asset the clip "fly" and the joint "wing_r" cannot be checked */
static void asset_clips_and_mask_joints(void)
{
    expect("check asset.lua --asset '" HUMANOID "'", 1,
           "asset.lua:9: error: layers[1].states.fly: state 'fly': unknown clip 'fly'\n"
           "asset.lua:5: error: masks.arm[2].joint: no joint 'wing_r' in the rig (mask 'arm')\n");
    expect("check asset.lua", 0, "");
}

static void clean_graph_prints_nothing(void)
{
    expect("check clean.lua", 0, "");
    expect("check clean.lua --asset '" HUMANOID "'", 0, "");
}

static void broken_file_names_its_line(void)
{
    expect("check broken.lua", 1, "broken.lua:3: error: '}' expected (to close '{' at line 2) near 'layers'\n");
    CHECK_INT(run("check missing.lua"), 1);
    CHECK_CONTAINS(out, "missing.lua");
    CHECK_INT(run("check"), 2);
}

/* A table nested 50 and 62 deep in an unknown field: the usual problem
 * (the NUL walk of the reader went that deep without room on the Lua
 * stack: heap corruption under ASan at 50, "error object is a nil value"
 * at 62). */
static void a_deeply_nested_table_is_read_like_any_other(void)
{
    static const int depths[2] = {50, 62};
    for (int k = 0; k < 2; k++) {
        char text[1024];
        int n = snprintf(text, sizeof text, "return { extra = ");
        for (int i = 0; i < depths[k]; i++) text[n++] = '{';
        text[n++] = '1';
        for (int i = 0; i < depths[k]; i++) text[n++] = '}';
        snprintf(text + n, sizeof text - (size_t)n,
                 ",\n  layers = { { name = 'base', entry = 'idle', states = { idle = { clip = 'idle' } } } } }\n");
        write_text_file(path_in(dir, "deep.lua"), text);
        expect("check deep.lua", 1,
               "deep.lua:1: error: graph: unknown field 'extra' (accepted fields: params, masks, layers)\n");
    }
}

/* One problem is one line: the names a problem quotes print their line
 * breaks as \xNN in `check` and `simulate` (they print problem by
 * problem; the demo, which joins them, is tested in test_demo.c). */
static void names_cannot_forge_problem_lines(void)
{
    expect("check forging.lua", 1,
           "forging.lua:5: error: layers[1].transitions[1].to: unknown state 'x\\x0afake.lua:1: forged'\n"
           "forging.lua:4: warning: layers[1].states.a\\x0afake.lua:1: error: forged: state 'a\\x0afake.lua:1: "
           "error: forged' is unreachable from the entry 'idle'\n");
    write_text_file(path_in(dir, "one_frame.lua"), "return { dt = 0.1, frames = 1 }\n");
    expect("simulate forging.lua --asset '" HUMANOID "' --timeline one_frame.lua", 1,
           "forging.lua:5: layers[1].transitions[1].to: unknown state 'x\\x0afake.lua:1: forged'\n");
}

static void every_example_passes(void)
{
    static const char *const examples[] = {"locomotion", "jump", "upper_wave", "breathing", "travel", "demo"};
    for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++) {
        char args[256];
        snprintf(args, sizeof args, "check graphs/%s.lua --asset scripts/humanoid.lua", examples[i]);
        CHECK_INT(run_in(BW_SOURCE_DIR, args), 0);
        CHECK_STR(out, "");
    }
}

/* Every whole graph file docs/graphs.md shows (a ```lua block that starts
 * with "return {") passes `check` against the built-in humanoid with no
 * finding at all, so the doc's examples cannot go stale: its main example
 * once named parameters it never declared and clips the humanoid lacks.
 * The count pins the blocks found (the main example and the 1D blend). */
static void graphs_md_examples_pass(void)
{
    FILE *f = fopen(BW_SOURCE_DIR "/docs/graphs.md", "rb");
    CHECK(f != NULL);
    if (!f) return;
    static char line[1024], block[1 << 14];
    int found = 0, in_block = 0, first = 0;
    size_t used = 0;
    while (fgets(line, sizeof line, f)) {
        if (!in_block && !strcmp(line, "```lua\n")) {
            in_block = 1;
            first = 1;
            used = 0;
            continue;
        }
        if (!in_block) continue;
        if (!strcmp(line, "```\n")) {
            in_block = 0;
            if (!used) continue;
            char name[64], args[512];
            snprintf(name, sizeof name, "doc_example_%d.lua", ++found);
            write_text_file(path_in(dir, name), block);
            snprintf(args, sizeof args, "check '%s' --asset '" HUMANOID "'", path_in(dir, name));
            CHECK_INT(run(args), 0);
            CHECK_STR(out, "");
            continue;
        }
        if (first && strcmp(line, "return {\n")) in_block = 0; /* a fragment, not a graph file */
        first = 0;
        size_t n = strlen(line);
        if (in_block && used + n < sizeof block) {
            memcpy(block + used, line, n + 1);
            used += n;
        }
    }
    fclose(f);
    CHECK_INT(found, 2);
}

/* plot-blend graphs/locomotion.lua --state STATE EXTRA --out DIR/plot.svg */
static int plot_state(const char *state, const char *extra)
{
    char args[512];
    snprintf(args, sizeof args, "plot-blend graphs/locomotion.lua --state %s %s --out '%s'", state, extra,
             path_in(dir, "plot.svg"));
    return run_in(BW_SOURCE_DIR, args);
}

static void plot_blend_draws_a_graph_state(void)
{
    CHECK_INT(plot_state("walk", "--asset scripts/humanoid.lua"), 0);
    CHECK_STR(out, "");
    FILE *f = fopen(path_in(dir, "plot.svg"), "rb");
    CHECK(f != NULL);
    if (!f) return;
    static char svg[1 << 20];
    size_t n = fread(svg, 1, sizeof svg - 1, f);
    svg[n] = '\0';
    fclose(f);
    CHECK(strncmp(svg, "<svg ", 5) == 0);
    CHECK_CONTAINS(svg, "graphs/locomotion.lua state walk \xe2\x80\x94 directional blend space, 5 samples");
    CHECK_CONTAINS(svg, "font-weight=\"bold\">walk_fwd</text>");
    CHECK_CONTAINS(svg, "font-weight=\"bold\">walk_right</text>");
    CHECK_CONTAINS(svg, "</svg>\n");
}

static void plot_blend_refuses_a_state_without_a_blend(void)
{
    CHECK_INT(plot_state("idle", "--asset scripts/humanoid.lua"), 1);
    CHECK_STR(out, "blendwerk plot-blend: graphs/locomotion.lua:19: state 'idle' has no blend (it plays one clip): "
                   "plot-blend --state draws a blend state\n");
    CHECK_INT(plot_state("swim", ""), 1);
    CHECK_STR(out, "blendwerk plot-blend: graphs/locomotion.lua: no state 'swim' in any layer\n");
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/bw_check_%d", (int)getpid());
    char cmd[400];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    if (system(cmd) != 0) return 1;
    static const struct {
        const char *name, *text;
    } files[] = {{"unknown.lua", unknown_lua}, {"unreachable.lua", unreachable_lua},
                 {"unused.lua", unused_lua},   {"shadowed.lua", shadowed_lua},
                 {"refused_blend.lua", refused_blend_lua}, {"read_blend.lua", read_blend_lua},
                 {"cycle.lua", cycle_lua},     {"exit.lua", exit_lua},
                 {"asset.lua", asset_lua},     {"clean.lua", clean_lua},
                 {"broken.lua", broken_lua},   {"contradiction.lua", contradiction_lua},
                 {"forging.lua", forging_lua}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        write_text_file(path_in(dir, files[i].name), files[i].text);
    RUN(unknown_names_are_errors);
    RUN(unreachable_state);
    RUN(params_and_triggers_nothing_reads);
    RUN(nothing_reads_waits_for_a_file_that_reads_whole);
    RUN(shadowed_transition);
    RUN(zero_duration_cycle);
    RUN(exit_time_past_the_end);
    RUN(contradiction_and_unused_mask);
    RUN(asset_clips_and_mask_joints);
    RUN(clean_graph_prints_nothing);
    RUN(broken_file_names_its_line);
    RUN(a_deeply_nested_table_is_read_like_any_other);
    RUN(names_cannot_forge_problem_lines);
    RUN(every_example_passes);
    RUN(graphs_md_examples_pass);
    RUN(plot_blend_draws_a_graph_state);
    RUN(plot_blend_refuses_a_state_without_a_blend);
    if (!remove_tree(dir)) return 1;
    return check_summary();
}
