/* character.h - loading a character file: the one loader for the Lua
 * character chunks the demo plays and the command line reads.
 *
 * A character file is a Lua 5.4 text chunk that builds a rig and clips with
 * the `blendwerk` module and returns
 *
 *     { rig = Rig, clips = { Clip, ... } }        -- a list, or
 *     { rig = Rig, clips = { walk = Clip, ... } } -- name = Clip
 *
 * plus any top-level fields the host declares it reads (the demo's
 * `scene`). bw_character_load runs it as untrusted mod code in a fresh
 * sandbox (sandbox.h: the script's folder is the mod's folder, so
 * blendwerk.load, require and include reach the files beside it, and
 * options->asset is granted on top), validates what it returned, copies
 * the rig and clips into core objects allocated with malloc
 * (bw_rig_clone / bw_clip_clone) and closes the state. Nothing of the
 * script stays alive: the character never depends on a Lua state, and a
 * reload builds the next version beside the current one.
 *
 * What the chunk sees: the sandbox's allowlist, plus
 * - include(name): run another file beside this one (the rules of a mod's
 *   file names; a name holding a NUL byte is refused, not cut there) and
 *   return its results; a file that includes a file still running (itself,
 *   or one that included it) is an error naming the loop, "include
 *   'a.lua': an include loop (a.lua -> b.lua -> a.lua)"; includes nest
 *   at most BW_CHARACTER_MAX_INCLUDE_DEPTH files below the script (one
 *   more is an error naming the first and the last two files of the
 *   chain, well before Lua's own C-stack limit, about 200); a failed
 *   include (an error a pcall catches, a missing or refused file) leaves
 *   no trace: its file is off the list of includes in flight and the
 *   error reaches the caller as it was raised. Each file, the script and
 *   every include, has globals of its own (sandbox.h): a file hands
 *   another what it made through its return values;
 * - whatever options->setup adds (no shipped host adds any). The tables
 *   among the globals it adds are read-only to the scripts, as the
 *   libraries are (sandbox.h bw_sandbox_protect_globals): every file of
 *   the load sees them as the host made them, and `host.x = 1` (or
 *   rawset) raises "the library 'host' is read-only" at its line. A host
 *   that wants data from the script reads the returned table
 *   (options->fields, options->read).
 *
 * The returned table (read raw: plain data, no metamethods):
 * - rig: a live blendwerk.Rig (any number of joints; hosts that need
 *   joints check in options->read);
 * - clips: a non-empty list of live blendwerk.Clip, or a table of
 *   name = Clip (string keys, not both forms). A list entry is named by
 *   its clip's name, an unnamed one "#N" with N its 1-based position; a
 *   named entry by its key, in which case the entries are sorted by name.
 *   Names are unique, shorter than BW_CHARACTER_NAME_MAX bytes, without
 *   NUL bytes (a key "x\0y" is refused, not filed as "x"), and every
 *   copied clip carries its name (bw_clip_name(clip) == name: a clip
 *   filed under another name is rebuilt under that name, tracks, markers,
 *   length and loop flag unchanged). Each entry needs a Clip of its own
 *   (one Clip listed twice is refused), so the copies never weigh more
 *   than the clips did in the capped state, and there are at most
 *   options->max_clips entries;
 * - any other field is refused ("returned table: unknown field 'x'")
 *   unless it is in options->fields.
 *
 * Warnings: what the core changed in the character's data while making
 * it reaches options->logger, after the load succeeded and before
 * bw_character_load returns, one message per call, in order: the returned
 * rig's creation warnings, then each clip's in the character's clip
 * order. They are the objects' own (rig:warnings(), clip:warnings(),
 * docs/lua-api.md), each after the "file:line: " of the blendwerk.rig or
 * blendwerk.clip call that made the object, e.g.
 * "hero.lua:3: rig: joint 'spine' (index 1): rest rotation had length 2;
 * normalized" or "hero.lua:9: clip "walk": track 0 (joint "spine"
 * rotation): 1 of 2 keys were not unit length (first: key 0, length 3);
 * normalized"; a rig or clip of a blendwerk.load asset brings that
 * asset's loader warnings (asset:warnings(), which name the file and
 * line), once however many of its objects were returned. Rigs and clips
 * the script made but did not return are not the character's: their
 * warnings are not told (the script can read them itself). The text is
 * the mod's (its names): a host printing it on a terminal escapes it
 * (blendwerk/text.h).
 *
 * Errors: on failure false is returned, *out is untouched and `err`
 * holds one line:
 * - "file:line: message" for syntax and runtime errors, failed asserts,
 *   bad clip data at the offending blendwerk.clip call, budget, time and
 *   memory stops (the line where the stop happened), here `file` being the
 *   chunk name (the file name; an included file names itself);
 * - "file: returned value: FIELD: message" for a bad returned table (a
 *   table has no line; the message names the field, e.g. "clips[2]: the
 *   name 'c' repeats clips[1]'s"), also for errors raised by
 *   options->read;
 * - "no script path given", "PATH: the path is too long (at most 1023
 *   bytes)", "file: out of memory", or the sandbox's message when the
 *   state cannot be built.
 *
 * Threads: one load uses one sandbox of its own; loads on different
 * threads share nothing. The result is plain data owned by the caller. */
#ifndef BW_CHARACTER_H
#define BW_CHARACTER_H

#include <lua.h>
#include <stdbool.h>
#include <stddef.h>

#include "blendwerk/clip.h"
#include "blendwerk/rig.h"
#include "sandbox.h"

#define BW_CHARACTER_NAME_MAX 64   /* bytes of a clip name, with its NUL */
#define BW_CHARACTER_MAX_INCLUDE_DEPTH 32 /* include() nesting below the script */
#define BW_CHARACTER_PATH_MAX 1024 /* bytes of the script's path, with its NUL */
#define BW_CHARACTER_DEFAULT_MAX_CLIPS 1024 /* when bw_character_options.max_clips is 0 */

/* One clip of a character. */
typedef struct bw_character_clip {
    bw_clip *clip;                    /* owned (malloc); a host may take it and set NULL */
    char name[BW_CHARACTER_NAME_MAX]; /* unique within the character; == bw_clip_name(clip) */
} bw_character_clip;

typedef struct bw_character {
    bw_rig *rig;              /* owned (malloc); a host may take it and set NULL */
    bw_character_clip *clips; /* clip_count entries, owned */
    int clip_count;           /* >= 1 after a successful load */
    char path[BW_CHARACTER_PATH_MAX]; /* the script's path as given */
} bw_character;

/* Reads the host's own fields of the returned table. Runs inside the
 * sandbox's protected call after the rig and clips were copied into
 * `character` (so clip references can be resolved by name); `table` is
 * the returned table's stack index. Raise a Lua error (luaL_error) for a
 * bad field: the message becomes "file: returned value: MESSAGE". Leave
 * the stack as found. */
typedef void (*bw_character_read_fn)(void *user, lua_State *L, int table, const bw_character *character);

/* All-zero means: sandbox defaults, no granted file, no host fields. */
typedef struct bw_character_options {
    bw_sandbox_limits limits;    /* per run; zero fields take the sandbox's defaults */
    const char *asset;           /* a file outside the script's folder blendwerk.load may open; NULL: none */
    const char *const *fields;   /* NULL-terminated names of extra top-level fields the host reads
                                    (the first 16 count); may be NULL */
    bw_character_read_fn read;   /* reads those fields; may be NULL */
    lua_CFunction setup;         /* run in the sandbox before the chunk with `user` as a light
                                    userdata argument, to add host globals (its tables then
                                    become read-only, above); may be NULL */
    bw_sandbox_open_fn on_open;  /* told every file the run opens except the script itself
                                    (included, required and loaded files), before it is opened;
                                    may refuse it (a host watching files for reload); may be NULL */
    int max_clips;               /* clips a character may have; 0: BW_CHARACTER_DEFAULT_MAX_CLIPS */
    void *user;                  /* passed to read, setup and on_open */
    bw_logger logger;            /* optional: the character's warnings (see Warnings above), each
                                    once, BW_LOG_WARNING, with logger.user; a failed load tells none */
} bw_character_options;

/* Run the character file at `path` (see above) and build the character.
 * On success *out receives it (free it with bw_character_destroy) and
 * true is returned; on failure *out is untouched, `err` holds the message
 * and false is returned. `options` may be NULL. */
bool bw_character_load(const char *path, const bw_character_options *options, bw_character **out, char *err,
                       size_t err_size);
/* Destroys the rig and clips still held (NULL entries are skipped) and the
 * character. NULL is a no-op. */
void bw_character_destroy(bw_character *character);

/* Index of the clip named `name`, or -1. */
int bw_character_find_clip(const bw_character *character, const char *name);

#endif
