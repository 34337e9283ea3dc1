/* blendwerk/graph_lint.h - the lint pass over graph descs (`blendwerk
 * check`, docs/graphs.md "Linting").
 *
 * bw_graph_lint reads a bw_graph_desc (graph.h) and reports, through a
 * callback, what compile refuses (errors) and what compile accepts but is
 * almost certainly a mistake (warnings), each with the desc path of the
 * offending entry ("layers[0].transitions[2]", the paths compile uses), so
 * the Lua reader can map a path back to FILE:LINE. It changes nothing,
 * keeps nothing and may run on a desc that does not compile: every check
 * skips what it cannot resolve, so every mistake is reported at once.
 *
 * What it reports, in this order:
 * 1. errors compile reports (unknown state, parameter, mask or clip names,
 *    wrong parameter kinds, duplicates, bad values), as compile words them;
 * 2. with a rig: mask joints missing from the rig or ambiguous in it
 *    (errors, as bw_graph_cursor_create words them), and with clips too:
 *    played clips none of whose tracks bind to the rig (warnings);
 * 3. per layer: states unreachable from the entry over transitions
 *    (any-state transitions included); transitions that can never fire on
 *    their own: shadowed by an earlier always-true transition of the same
 *    source with no exit time (or by an always-true any-state transition,
 *    which selection checks first), conditions that contradict each other,
 *    an exit time > 1 on a non-looping state (its normalized time stops at
 *    1); cycles of zero-duration transitions without exit times whose
 *    conditions can hold together (the layer would change state every
 *    update, never showing a fade); all warnings;
 * 4. parameters nothing reads (no condition, state speed, layer weight or
 *    blend node reads it; not reported for numbers and bools when a
 *    predicate exists, since a predicate sees every parameter), triggers
 *    no condition names (nothing would ever consume them) and masks no
 *    layer uses; all warnings.
 * Shadowed transitions can still be taken by travel (which ignores
 * conditions); the warning says so.
 *
 * Cost: O(n log n) in the desc's size for every check but the cycle
 * search, which searches once per zero-duration transition that could
 * close a cycle. A layer's cycle search stops after
 * BW_GRAPH_LINT_CYCLE_STEPS steps (a step: one state or transition
 * examined), with one instant-cycle warning at the transition it stopped
 * before, so a hostile file cannot stall `blendwerk check`; no graph
 * written by hand comes near it.
 *
 * Setup-time only: compares strings and allocates (through the desc's
 * allocator) while it runs. */
#ifndef BLENDWERK_GRAPH_LINT_H
#define BLENDWERK_GRAPH_LINT_H

#include "blendwerk/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most search steps one layer's zero-duration cycle check takes. */
#define BW_GRAPH_LINT_CYCLE_STEPS (1 << 24)

typedef enum bw_graph_lint_severity {
    BW_GRAPH_LINT_WARNING = 0, /* compiles and runs, but almost certainly not what was meant */
    BW_GRAPH_LINT_ERROR        /* compile or cursor creation refuses it */
} bw_graph_lint_severity;

typedef enum bw_graph_lint_code {
    BW_GRAPH_LINT_COMPILE = 0,         /* error: a bw_graph_compile problem (result: its code) */
    BW_GRAPH_LINT_MASK_JOINT,          /* error: a mask joint missing (BW_ERR_NOT_FOUND) or
                                           ambiguous (BW_ERR_DUPLICATE) in the rig */
    BW_GRAPH_LINT_CLIP_UNBOUND,        /* a played clip drives no joint of the rig */
    BW_GRAPH_LINT_UNREACHABLE_STATE,   /* no transition path from the entry reaches the state */
    BW_GRAPH_LINT_SHADOWED_TRANSITION, /* an earlier always-true, gate-less transition wins first */
    BW_GRAPH_LINT_CONTRADICTION,       /* the transition's conditions cannot hold together */
    BW_GRAPH_LINT_EXIT_TIME_NEVER,     /* exit time > 1 on a non-looping state */
    BW_GRAPH_LINT_INSTANT_CYCLE,       /* a cycle of zero-duration transitions without exit times */
    BW_GRAPH_LINT_UNUSED_PARAM,        /* a number or bool parameter nothing reads */
    BW_GRAPH_LINT_UNUSED_TRIGGER,      /* a trigger no condition names */
    BW_GRAPH_LINT_UNUSED_MASK,         /* a mask no layer uses */
    BW_GRAPH_LINT_CODE_COUNT
} bw_graph_lint_code;

/* One finding. The strings live only during the callback. */
typedef struct bw_graph_lint_item {
    bw_graph_lint_severity severity;
    bw_graph_lint_code code;
    bw_result result;    /* errors: the code compile / cursor creation gives; warnings: BW_OK */
    const char *where;   /* desc path: "layers[0].transitions[2]", "params[3]", "masks[0].entries[1].joint" */
    const char *message; /* e.g. "state 'fall' is unreachable from the entry 'idle'" */
} bw_graph_lint_item;

typedef void (*bw_graph_lint_fn)(void *user, const bw_graph_lint_item *item);

/* Lint `desc`; `rig` (optional, NULL: the rig checks are skipped) is the
 * rig the graph will run on; desc->clips, when present, enable the clip
 * checks. Every finding goes to fn (NULL: only the result is wanted).
 * Returns BW_ERR_INVALID_ARGUMENT for a NULL desc, BW_ERR_OUT_OF_MEMORY if
 * the lint could not finish (findings already delivered stand), otherwise
 * the result of the first error found, or BW_OK when there is none
 * (warnings do not change the result). */
BW_API bw_result bw_graph_lint(const bw_graph_desc *desc, const bw_rig *rig, bw_graph_lint_fn fn, void *user);

/* A stable lowercase name for a code ("unreachable-state", ...), for tools
 * that filter findings; "unknown" out of range. */
BW_API const char *bw_graph_lint_code_name(bw_graph_lint_code code);

#ifdef __cplusplus
}
#endif
#endif
