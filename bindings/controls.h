/* controls.h - procedural controls: Lua scripts that modify a composed
 * pose after mixing (SPEC §5: "procedural controls then modify the composed
 * pose in their priority order"), run inside the one sandbox (sandbox.h),
 * reloaded between frames when their file changes.
 *
 * A control script is a file of the sandbox's folder returning a table:
 *
 *   return {
 *       priority = 10,     -- integer, default 0: lower runs first; equal
 *                          -- priorities run in load order
 *       keep_state = true, -- a reload keeps the state tables (default false:
 *                          -- init runs again for every character)
 *       init = function(ctx, options) return state end, -- optional; default {}
 *       update = function(state, pose, ctx, dt) end,    -- required
 *       reload = function(state, ctx, options) return state end, -- optional
 *   }
 *
 * The file runs in the sandbox with globals of its own (sandbox.h: each
 * chunk's environment over a read-only base), as its module loading (a
 * require of itself is a require loop), its table constructors recording
 * their lines (the graph reader's bw_lua_run_source, lua_graph.h), so a
 * bad field is reported at its line ("c.lua:6: priority must be an
 * integer in [-2^30, 2^30]"; a field the table lacks at the table's line;
 * a table a module made, with the file's name alone).
 *
 * Per character there is one `ctx` table, shared by the controls, made once:
 *   inputs, refreshed by bw_controls_run before the first control runs:
 *     ctx.character (1-based), ctx.rig (a copy of desc.rig made at
 *     create: same joints and curves; changing it does not reach the
 *     host's rig), ctx.time
 *     (seconds, the sum of the dt so far), ctx.position {x, y, z} and
 *     ctx.yaw (the body in the world, bw_control_input), ctx.has_target and
 *     ctx.target {x, y, z} (world); written raw, position and target in
 *     place (a control must not replace those two tables);
 *   outputs, read by the host with bw_controls_read: ctx.gaze
 *     {pitch_l, yaw_l, pitch_r, yaw_r}, ctx.arkit (52 numbers, ARKit order),
 *     ctx.overrides (a list of 1-based joint indices whose parent-local
 *     rotations are published as joint overrides: a control adds its joints
 *     once, in init; the values are read from the pose after the run, see
 *     bw_controls_overrides) - made with zeros / empty; a control may add
 *     its own fields.
 *   A load or reload that is rejected (below) leaves every character's
 *   ctx exactly as it was: before the options, the file, init or reload
 *   of the new version run, the runner copies the ctx tables (the rules
 *   of the copy reload gets, below: every plain table reached from ctx,
 *   keys included, once), and on rejection puts every one of them back in
 *   place - the same tables (the host's position and target, ctx.gaze a
 *   state keeps), holding the keys and values they held - so the host's
 *   fields and what other controls stored in ctx are as before. Tables
 *   with a metatable, userdata (ctx.rig), functions and coroutines
 *   reached from ctx are shared, not copied: what a rejected version did
 *   inside them stays. A version that goes in keeps what it did to ctx
 *   (an init storing data other controls read). The copy is made at each
 *   load and reload, never per frame, in a sandbox call of its own (its
 *   work and tables against that call's budget and memory cap, in
 *   proportion to the size of the ctx tables; when it does not fit, the
 *   load is rejected: "file: saving ctx: message").
 * `pose` is a blendwerk.Pose over the host's bw_pose for the duration of
 * the call (its batch methods read and write it in place; outside a call
 * - a handle a script kept, used in a reload or another control's init -
 * it is a scratch pose of the rig's size that nobody reads). `options` is the table given at load (never nil).
 *
 * Per frame bw_controls_run allocates nothing on the C side; a control
 * that reuses its tables (state, ctx's, the batch `out` tables) allocates
 * nothing in Lua either. An update that fails (error, budget) is skipped
 * for that frame, counted, and its version's first failure is reported
 * once with file:line: to desc.report with the control's index when the
 * desc has one, else to the sandbox's report function; the pose keeps
 * what the control wrote before it failed.
 *
 * Reload: bw_controls_reload(name) (the host knows the file changed) or
 * bw_controls_poll (a bw_watch on the files, desc.watch) runs the file
 * again, between frames. The new version must load, return a valid table
 * and (unless it keeps the state) init every character without error;
 * otherwise the edit is rejected whole: the previous version keeps running
 * with its state and every ctx as it was (above), and the error
 * ("file:line: message") is kept for bw_controls_error. When the new version says keep_state = true the old
 * state tables carry over (init is not called): each character's state
 * as it is, or, when the new version has reload, what reload(state, ctx,
 * options) returns for it. reload gets a deep copy of the running state
 * (every plain table - no metatable - reached from it, keys included,
 * copied once, so shared tables and cycles keep their shape; tables with
 * a metatable, userdata, functions, coroutines, ctx and its tables and
 * the options shared as they are), so a reload that changes its state
 * and then raises leaves the running state untouched (changes to ctx are
 * taken back as above; to the other shared values they stay); nil: the copy as reload left it. init and reload
 * must return a table or nil: anything else rejects the version
 * ("count.lua:3: reload returned a number; return the state table (or
 * nil)", the function's first line). Without reload, a
 * state that is an empty table carries nothing: init makes that
 * character's state, as at a first load. A reload that raises
 * rejects the edit. Other fields of
 * the returned table are the script's own (a module may export helpers).
 *
 * Modules: the runner records the sandbox's modules (sandbox.h "Modules")
 * each control required while it loaded (its chunk, init, reload;
 * directly or through other modules) and, with desc.watch, watches their
 * files too. When one changes (bw_controls_poll, or bw_controls_reload
 * with the module's file name, e.g. "lib/util.lua"), it and every module
 * that required it are dropped from the sandbox's cache and every control
 * that required it reloads - read anew, under the rules above - as ONE
 * reload: accepted whole, or rejected whole with the previous controls
 * (and their states), every ctx as it was (what the controls of the
 * group that built did to it too) and the previous module values back
 * in the cache,
 * the error naming the module's file:line. A control that did not require
 * it is left alone. A rejected module stays pending: the next reload of a
 * control that required it reads it again, with every control that
 * required it (so a rejection caused by a control's file is mended by
 * saving that file). A control whose reload was rejected also watches the
 * modules that rejected version required and reloads when one changes (an
 * edit adding a require of a broken module is mended by saving the module
 * alone). A module required only from update is not recorded.
 *
 * One thread at a time; the sandbox must outlive the runner. */
#ifndef BW_CONTROLS_H
#define BW_CONTROLS_H

#include <stdbool.h>
#include <stddef.h>

#include "blendwerk/animator.h"
#include "blendwerk/pose.h"
#include "blendwerk/rig.h"
#include "sandbox.h"

#define BW_CONTROLS_MAX 32
#define BW_CONTROLS_ERROR_MAX 1024

/* Receives the first failure of each control version's update (above):
 * `control` is the index bw_controls_load returned, `message` "file:line:
 * message" (valid for the call). Only the update's own failure: another
 * callback failing while a control runs (one its script made and drives,
 * e.g. a graph predicate) goes to the sandbox's report function. Called
 * from inside bw_controls_run, which must not be called again from it. */
typedef void (*bw_controls_report_fn)(void *user, int control, const char *message);

typedef struct bw_controls_desc {
    bw_sandbox *sandbox;    /* required, borrowed: the control files are files of its folder */
    const bw_rig *rig;      /* required, borrowed; every pose run is of this rig */
    int character_count;    /* [1, 65536]: one ctx and one state per control per character */
    const char *dir;        /* the sandbox's folder, for the watcher (NULL: "."); copied */
    bool watch;             /* watch the loaded files (bw_controls_poll) */
    double debounce;        /* the watcher's, seconds (0: BW_WATCH_DEFAULT_DEBOUNCE) */
    bw_allocator allocator; /* the runner's own blocks, by value (fn NULL: malloc); Lua-side
                               objects use the sandbox's state, the watcher malloc */
    bw_controls_report_fn report; /* may be NULL: update failures go to the sandbox's report
                                     function, which cannot tell which control failed */
    void *user;                   /* passed to report */
} bw_controls_desc;

/* One character's frame input. All-zero: at the origin, facing +Z, no target. */
typedef struct bw_control_input {
    float position[3]; /* world, metres */
    float yaw;         /* body facing about +Y, radians (0 faces +Z) */
    bool has_target;
    float target[3];   /* world point to look at */
} bw_control_input;

typedef struct bw_controls bw_controls;

/* NULL with a message in err on a bad desc or out of memory. */
bw_controls *bw_controls_create(const bw_controls_desc *desc, char *err, size_t err_size);
void bw_controls_destroy(bw_controls *c); /* NULL is a no-op */

/* Load control file `name` (a file of the sandbox's folder) with `options`
 * (Lua table constructor text such as "{ yaw_limit = 1 }", evaluated in the
 * sandbox; NULL: {}), and init it for every character. Returns the
 * control's index, or -1 with "file:line: message" in err (and
 * bw_controls_error); nothing is added then, and every ctx is as it was
 * (above). */
int bw_controls_load(bw_controls *c, const char *name, const char *options, char *err, size_t err_size);
int bw_controls_count(const bw_controls *c);

typedef enum bw_controls_reload_result {
    BW_CONTROLS_RELOAD_NONE = 0, /* nothing changed (or no control uses that file) */
    BW_CONTROLS_RELOAD_DONE,     /* every control of the file runs its new version */
    BW_CONTROLS_RELOAD_REJECTED  /* a bad edit: the previous version keeps running */
} bw_controls_reload_result;

/* The file `name` (relative to the sandbox's folder) changed: reload every
 * control loaded from it; when no control is, and it is a module's file,
 * every control that required the module (above, "Modules") as one reload. */
bw_controls_reload_result bw_controls_reload(bw_controls *c, const char *name);
/* With desc.watch: once a frame, with the host's clock; reloads the files
 * whose modification time or size changed since they were loaded: first
 * the controls of the changed modules (one reload), then each changed
 * control file on its own. A rejected file is not tried again until it
 * changes again. Returns REJECTED when any reload was refused (the first
 * error in bw_controls_error), else DONE when any ran. */
bw_controls_reload_result bw_controls_poll(bw_controls *c, double now);
/* The last load or reload failure ("" after a success). */
const char *bw_controls_error(const bw_controls *c);
/* Successful reloads so far (each file reloaded counts once; a module's
 * reload once, however many controls it reloaded). */
int bw_controls_reloads(const bw_controls *c);

/* Run every control, lowest priority first, over `pose` (of desc.rig) for
 * character `character` (0-based), after composition. dt < 0 or
 * non-finite counts as 0; a non-finite input field counts as 0 (target:
 * none). Returns how many controls failed this frame (0: all ran), or -1
 * for a bad argument (nothing ran). The inputs are written raw into ctx,
 * which is the scripts': when a script removed one of its keys and the
 * sandbox is at its memory cap, that write fails and no control runs this
 * frame (all count as failed; ctx.time still advances). */
int bw_controls_run(bw_controls *c, int character, bw_pose *pose, const bw_control_input *in, float dt);

/* A hint for crowd loops: ask the cache for the Lua tables of
 * `character` that bw_controls_run reads first (its ctx, the input tables,
 * each control's state), so a loop calling it for character i + 1 while
 * it works on character i finds them in cache. bw_controls_run asks for
 * them itself at its start; this asks earlier. Changes nothing; a bad
 * argument does nothing. */
void bw_controls_prefetch(const bw_controls *c, int character);

/* Copy ctx[field][1..] of `character` into out (up to capacity numbers;
 * non-numbers and non-finite values read as 0). Returns how many numbers
 * the field holds (its length; 0 when it is not a table, or when the
 * sandbox is at its memory cap and the name needs a new string), which
 * may exceed capacity. Allocates nothing of its own. */
int bw_controls_read(bw_controls *c, int character, const char *field, float *out, int capacity);
/* The joint overrides of `character` after its run: for each joint listed
 * in ctx.overrides, its index (0-based) and its parent-local rotation in
 * `pose` (the pose the run just modified). Entries that are not integer
 * joint indices in [1, joint count] (out of range, fractional, huge, not
 * numbers) are skipped. Returns how many there are (may exceed capacity). */
int bw_controls_overrides(bw_controls *c, int character, const bw_pose *pose, bw_joint_override *out, int capacity);
/* Failures of control `control`'s update so far (the current version). */
int bw_controls_failures(const bw_controls *c, int control);
/* Per control (the index bw_controls_load returned), for a host that
 * shows each control's state: its reloads (its own file's or a module's
 * it requires) so far. Zeros and "" for a bad index. */
typedef struct bw_control_reloads {
    int done;          /* reloads that went in (0 as loaded) */
    int rejected;      /* reloads that were rejected */
    const char *error; /* the last reload's rejection ("file:line: message"); "" when it went in or none was tried */
} bw_control_reloads;
bw_control_reloads bw_controls_reload_status(const bw_controls *c, int control);

/* The Lua face of the procedural helpers (lua_control.c): blendwerk.swing_twist,
 * look_rotation, rotate_toward, aim_angles, aim_clamp, aim_chain, and
 * aim_setup / aim (a chain checked once, and the three aim steps in one
 * call; docs/scripting.md "Aim setups"). */
void bw_lua_open_control(lua_State *L);
/* blendwerk.controls and blendwerk.Controls (lua_controls.c): this runner
 * from a trusted Lua state, with a sandbox of its own. */
void bw_lua_open_controls(lua_State *L);

#endif
