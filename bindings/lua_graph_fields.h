/* lua_graph_fields.h - what the graph cursor's Lua binding (lua_graph.c)
 * and the animator's (lua_animator.c) share about a graph: the layer
 * argument, a layer's status table, a parameter's Lua value, the
 * parameter name table and the fields of a graph event. One
 * implementation, in lua_graph.c; each binding keeps its documented table shape (a cursor's
 * events leave absent fields nil and give the clip's index,
 * docs/graphs.md; an animator's set them false and give the clip's name,
 * docs/animator.md). */
#ifndef BW_LUA_GRAPH_FIELDS_H
#define BW_LUA_GRAPH_FIELDS_H

#include <lua.h>
#include <stdbool.h>

#include "blendwerk/graph.h"

/* The layer at stack index `arg`: a name, a 1-based index, or none / nil
 * (the first layer); returns it 0-based. Raises an argument error naming
 * an unknown layer ("unknown layer 'x'") or an index out of range
 * ("layer index 4 out of range 1..2"). */
int bw_lua_check_layer(lua_State *L, const bw_graph *graph, int arg);

/* Push the status table of `layer` (0-based, in range) of a cursor of
 * `graph`: { state, progress, normalized, weight, travel_pending,
 * transition = { from (nil: a hot-reload fade), to, elapsed, duration,
 * weight, mode ("live" | "freeze"), frozen, index (1-based transition of
 * the layer, 0: a hot-reload fade) } | nil }. cursor:status and
 * animator:status (docs/lua-api.md). */
void bw_lua_push_layer_status(lua_State *L, const bw_graph *graph, const bw_graph_cursor *cursor, int layer);

/* travel(state [, layer]) on `cursor` of `graph`: the state (a name or a
 * 1-based index) at stack index `state_arg`, the layer (as
 * bw_lua_check_layer) at state_arg + 1. Returns 1 with true pushed, or 2
 * with nil and "no route from 'a' to 'b' in layer 'l'"; a bad state or
 * layer raises an argument error. cursor:travel and animator:travel. */
int bw_lua_graph_travel(lua_State *L, const bw_graph *graph, bw_graph_cursor *cursor, int state_arg);

/* Push parameter `param`'s value `value` as Lua sees it: a number for a
 * float parameter, a boolean (value != 0) for a bool or a trigger. */
void bw_lua_push_param_value(lua_State *L, const bw_graph *graph, int param, float value);

/* Push the Graph at idx's table { parameter name -> 0-based index } (the
 * one cursor:set looks names up in; read only: do not write to it; an
 * empty table for a graph without one). Raises when idx is not a Graph. */
void bw_lua_graph_push_param_indices(lua_State *L, int idx);

/* A graph event's fields, as strings the graph owns. */
typedef struct bw_lua_graph_event {
    const char *kind;  /* "enter", "exit" or "marker" */
    const char *name;  /* the event's name: a marker's name, else the state's (bw_graph_event.name) */
    const char *layer; /* layer name */
    const char *state; /* state name */
    bool marker;
    int clip;          /* a marker's graph clip index (in range), else -1 */
    double time;       /* a marker's time in its clip, else 0 */
} bw_lua_graph_event;

void bw_lua_graph_event_fields(const bw_graph *graph, const bw_graph_event *e, bw_lua_graph_event *out);

#endif
