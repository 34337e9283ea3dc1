/* timeline.h - the timelines of `blendwerk simulate` and `blendwerk watch`
 * (SPEC §12.3): the reader of a timeline table against a graph, and the
 * step that applies the entries that are due.
 *
 * A timeline is a Lua table { dt = 1/60, duration = s | frames = n,
 * { at = s, set = { p = v } | fire = "t" | travel = "state", layer = "l" |
 * layer_weight = { l = w }, fade = s }, ... }, run with line-recording
 * table constructors (bw_lua_run_source) so every problem names its line:
 * it goes to the timeline's report callback (below), by default printed
 * as "TIMELINE:LINE: message" on stderr. Every number (dt, duration, at,
 * set values, layer weights, fade, yaw, turn) must be finite and within a
 * float's range (|x| <= FLT_MAX, about 3.4e38: the cursor and the inputs
 * take floats), velocity and look_at components below 1e30; a
 * layer_weight names a layer with a numeric weight (one that follows a
 * parameter is a problem: the cursor would not fade it). Names
 * resolve against one graph: after a graph reload, read the same table again against the new graph
 * (bw_timeline_read with `applied_until`, so entries already applied stay
 * applied). */
#ifndef BW_BW_TIMELINE_H
#define BW_BW_TIMELINE_H

#include <lua.h>
#include <stdbool.h>
#include <stddef.h>

#include "blendwerk/clip.h"
#include "blendwerk/graph.h"
#include "sandbox.h"

#define BW_TIMELINE_AT_EPSILON 1e-9
#define BW_TIMELINE_MAX_FRAMES 10000000
/* Entries a timeline may have. The reader keeps per entry its time and
 * line, and grows its action list as the file's entries add actions (as
 * many as the file writes, in the sandbox's time and memory limits), so
 * an untrusted file cannot make it reserve room for actions it does not
 * have. */
#define BW_TIMELINE_MAX_ENTRIES 100000

typedef enum {
    BW_TL_ACT_SET,
    BW_TL_ACT_FIRE,
    BW_TL_ACT_TRAVEL,
    BW_TL_ACT_WEIGHT,
    BW_TL_ACT_VELOCITY, /* vec */
    BW_TL_ACT_YAW,      /* value */
    BW_TL_ACT_TURN,     /* value */
    BW_TL_ACT_LOOK_AT,  /* vec; state 0: clear */
    BW_TL_ACT_GESTURE   /* index: clip, -1 unresolved */
} bw_timeline_act_kind;

typedef struct bw_timeline_action {
    bw_timeline_act_kind kind;
    int entry; /* index of its entry */
    int index; /* param or layer */
    int state; /* travel */
    float value;
    float fade;
    float vec[3]; /* velocity, look_at */
    bool done;
} bw_timeline_action;

/* The character inputs a timeline has set so far (see the top). The host
 * zeroes it once (bw_timeline_input_init) and reads it every frame; yaw and
 * gesture are one-shot: the host clears has_yaw and sets gesture to -1
 * after using them. */
typedef struct bw_timeline_input {
    float velocity[3];
    float turn;
    bool has_yaw;
    float yaw;
    bool has_look_at;
    float look_at[3];
    int gesture; /* clip index to start, -1: none */
} bw_timeline_input;

void bw_timeline_input_init(bw_timeline_input *input);

/* Where a timeline's problems go, one call per problem: `path` the
 * timeline file as the host gave it, `line` the file's line the problem is
 * on (0: none, e.g. "not a table"), `message` the problem's text without
 * the "PATH:LINE: " prefix and without a newline. The message is raw: it
 * quotes the file's names (and the graph's) as written, control bytes
 * included, so a callback that prints it escapes it (blendwerk/text.h).
 * The strings live for the call only. Called during bw_timeline_read*
 * and, for a travel with no route, bw_timeline_apply*. */
typedef void (*bw_timeline_report_fn)(void *user, const char *path, int line, const char *message);

/* The default report (a NULL t->report): "PATH:LINE: message" (or
 * "PATH: message" for line 0) and a newline on stderr, path and message
 * each printed by bw_text_print (every control byte, line breaks too, as
 * \xNN: one problem stays one line); `user` is unused. For printable
 * names exactly the "TIMELINE:LINE: message" form of SPEC §12.3. */
void bw_timeline_report_stderr(void *user, const char *path, int line, const char *message);

typedef struct bw_timeline {
    /* Set by the host before the first read (and kept by every read; a
     * zeroed timeline reports through bw_timeline_report_stderr). */
    bw_timeline_report_fn report;
    void *report_user;
    const char *path;      /* the timeline file, for messages */
    const bw_graph *graph; /* what the names resolved against */
    const bw_clip *const *clips; /* gesture names (NULL: not resolved) */
    int clip_count;
    int errors;            /* problems the last read reported */
    double dt;
    long frames;
    int entry_count;
    double *at;       /* per entry */
    int *line;        /* per entry */
    bw_timeline_action *acts; /* in application order */
    int act_count;
    int act_capacity; /* acts' room, grown as a read adds actions (as many as the file writes) */
} bw_timeline;

/* Read the timeline table on top of L's stack (left there) against
 * `graph` into *t (freed first, its report and report_user kept). Entries
 * with at <= applied_until count as applied (pass a negative time for
 * none). False when a problem was reported; the actions that resolved are kept either way. The tables are
 * read raw (no metamethod of the script's runs) inside a protected call
 * of its own (a memory error is a reported problem), so a host may call it
 * outside one (watch and simulate do). */
bool bw_timeline_read(bw_timeline *t, lua_State *L, const bw_graph *graph, const char *path, double applied_until);
/* The same with the character's clips (clip_count entries) for gesture
 * names; graph may be NULL (a character without a graph: every set, fire,
 * travel or layer_weight is then a problem). */
bool bw_timeline_read_clips(bw_timeline *t, lua_State *L, const bw_graph *graph, const bw_clip *const *clips,
                            int clip_count, const char *path, double applied_until);
/* Frees the arrays and zeroes *t (its report too). */
void bw_timeline_free(bw_timeline *t);

/* Apply to `cursor` (of t->graph), in list order, every action of an entry
 * with at <= now + BW_TIMELINE_AT_EPSILON not applied yet. A travel with
 * no route reports "travel to ... (frame N)" on its entry's line (printed
 * by default as "TIMELINE:LINE: travel to ...") and makes it return
 * false. Allocates nothing unless that report's text passes 1 KiB. */
bool bw_timeline_apply(bw_timeline *t, bw_graph_cursor *cursor, double now, long frame);
/* The same, also writing the character inputs into *input (NULL: they are
 * dropped); cursor may be NULL when the timeline has no graph actions. */
bool bw_timeline_apply_input(bw_timeline *t, bw_graph_cursor *cursor, bw_timeline_input *input, double now, long frame);

/* Run the timeline file at `path` in a new sandbox (bindings/sandbox.h)
 * whose folder is the file's, with line-recording table constructors, and
 * return that sandbox with the table at stack index 1 (read it with
 * bw_timeline_read*; destroy the sandbox with bw_sandbox_destroy). The
 * file is read by the sandbox's own reader, as one of its mod files (a
 * symbolic link is not followed; at most 4 MiB). NULL with the problem
 * ("FILE:LINE: message", or "cannot open FILE: why" with FILE as given)
 * in err. */
bw_sandbox *bw_timeline_load(const char *path, char *err, size_t err_size);

#endif
