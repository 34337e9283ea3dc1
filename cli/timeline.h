/* timeline.h - the timelines of `blendwerk simulate` and `blendwerk watch`
 * (SPEC §12.3): the reader of a timeline table against a graph, and the
 * step that applies the entries that are due.
 *
 * A timeline is a Lua table { dt = 1/60, duration = s | frames = n,
 * { at = s, set = { p = v } | fire = "t" | travel = "state", layer = "l" |
 * layer_weight = { l = w }, fade = s }, ... }, run with line-recording
 * table constructors (bw_lua_run_source) so every problem prints as
 * "TIMELINE:LINE: message" on stderr. Names resolve against one graph:
 * after a graph reload, read the same table again against the new graph
 * (cli_timeline_read with `applied_until`, so entries already applied stay
 * applied). */
#ifndef BW_CLI_TIMELINE_H
#define BW_CLI_TIMELINE_H

#include <lua.h>
#include <stdbool.h>
#include <stddef.h>

#include "blendwerk/graph.h"

#define CLI_TIMELINE_AT_EPSILON 1e-9
#define CLI_TIMELINE_MAX_FRAMES 10000000

typedef enum { CLI_ACT_SET, CLI_ACT_FIRE, CLI_ACT_TRAVEL, CLI_ACT_WEIGHT } cli_act_kind;

typedef struct cli_action {
    cli_act_kind kind;
    int entry; /* index of its entry */
    int index; /* param or layer */
    int state; /* travel */
    float value;
    float fade;
    bool done;
} cli_action;

typedef struct cli_timeline {
    const char *path;      /* the timeline file, for messages */
    const bw_graph *graph; /* what the names resolved against */
    int errors;            /* problems printed by the last read */
    double dt;
    long frames;
    int entry_count;
    double *at;       /* per entry */
    int *line;        /* per entry */
    cli_action *acts; /* in application order */
    int act_count;
} cli_timeline;

/* Read the timeline table on top of L's stack (left there) against
 * `graph` into *t (freed first). Entries with at <= applied_until count as
 * applied (pass a negative time for none). False when a problem was
 * printed; the actions that resolved are kept either way. */
bool cli_timeline_read(cli_timeline *t, lua_State *L, const bw_graph *graph, const char *path, double applied_until);
void cli_timeline_free(cli_timeline *t);

/* Apply to `cursor` (of t->graph), in list order, every action of an entry
 * with at <= now + CLI_TIMELINE_AT_EPSILON not applied yet. A travel with
 * no route prints "TIMELINE:LINE: travel to ... (frame N)" and makes it
 * return false. */
bool cli_timeline_apply(cli_timeline *t, bw_graph_cursor *cursor, double now, long frame);

/* The whole file, malloc'ed (NULL when it cannot be read; at most 4 MiB). */
char *cli_read_text(const char *path, size_t *size);

#endif
