/* lua_support.h - helpers shared by the bindings/lua_<type>.c files.
 *
 * Every Lua type of the module (blendwerk.Rig, .Clip, .Binding, .Pose,
 * .TrackSet, .Asset) is a full userdata whose block starts with a
 * bw_lua_object header. The header implements the lifetime rule that keeps
 * the C objects safe from the garbage collector and from explicit close():
 *
 * - A userdata is created empty (header initialised, C pointer NULL) and
 *   given its metatable before the C object it will own is created, so a
 *   failure at any point leaves nothing to leak: __gc destroys whatever
 *   was built.
 * - An object that needs another one (a Binding needs its Clip and Rig, a
 *   Pose its Rig, a borrowed Rig its Asset) holds it twice: as a uservalue
 *   (so the collector keeps the Lua handle) and as a counted "use" on its
 *   header (so an explicit close() cannot free the C object underneath).
 * - Closing or collecting a handle makes that handle unusable (every method
 *   raises "bad argument #1 (blendwerk.X is closed)"); the C object is
 *   destroyed once no other object uses it.
 * - A borrowed handle is one an owner hands out and hands out again on
 *   later calls (binding:clip(), binding:rig(), pose:rig(), set:clip(h),
 *   the track set's output pose, asset:rig(), asset:clip(i),
 *   root_motion:rig()): many holders share it, so close() and <close> on
 *   it do nothing (it stays usable for everyone); only __gc releases it.
 *   For a Rig or Clip the user made (owned), the accessors hand out its
 *   shared twin (bw_lua_push_shared): a second, borrowed handle on the
 *   same C object, made once and cached on the original, which compares
 *   equal (__eq) to the original. Closing the original closes only the
 *   original; the twin keeps the C object alive until it is collected.
 *   __gc and __close share one function (bw_lua_object_gc_or_close tells
 *   them apart), and close(), __gc, __close and __tostring are the same
 *   for every type (bw_lua_register_object_type): a type writes only the
 *   description of a live handle.
 *
 * Indices on the Lua side are 1-based (joints, curves, tracks, markers,
 * clips of an asset); track handles returned by TrackSet:play are opaque.
 *
 * Errors: misuse (wrong argument type, an unknown joint name, NaN where a
 * number is needed) raises with luaL_argerror / luaL_typeerror so the
 * message names the argument; expected failures (bad clip data, a file
 * that will not load) return nil plus a message. See docs/lua-api.md.
 */
#ifndef BW_LUA_SUPPORT_H
#define BW_LUA_SUPPORT_H

#include <lauxlib.h>
#include <lua.h>
#include <stdbool.h>
#include <string.h>

#include "blendwerk/asset.h"
#include "blendwerk/bind.h"
#include "blendwerk/clip.h"
#include "blendwerk/mix.h"
#include "blendwerk/play.h"
#include "blendwerk/pose.h"
#include "blendwerk/rig.h"
#include "blendwerk/sample.h"
#include "lua_blendwerk.h"

#define BW_LUA_RIG "blendwerk.Rig"
#define BW_LUA_CLIP "blendwerk.Clip"
#define BW_LUA_BINDING "blendwerk.Binding"
#define BW_LUA_POSE "blendwerk.Pose"
#define BW_LUA_TRACK_SET "blendwerk.TrackSet"
#define BW_LUA_ASSET "blendwerk.Asset"

/* Stack-balance checks for debug builds: BW_LUA_STACK_BEGIN(L) at the top
 * of a block, BW_LUA_STACK_END(L, n) where it should have pushed n more. */
#ifndef NDEBUG
#include <assert.h>
#define BW_LUA_STACK_BEGIN(L) const int bw_lua_stack_top_ = lua_gettop(L)
#define BW_LUA_STACK_END(L, n) assert(lua_gettop(L) == bw_lua_stack_top_ + (n))
#else
#define BW_LUA_STACK_BEGIN(L) ((void)0)
#define BW_LUA_STACK_END(L, n) ((void)0)
#endif

/* ---- object lifetime ---- */

typedef struct bw_lua_object bw_lua_object;
typedef void (*bw_lua_destroy_fn)(bw_lua_object *self);

#define BW_LUA_MAX_DEPS 2

struct bw_lua_object {
    const char *type_name;        /* BW_LUA_RIG etc., for messages */
    bw_lua_destroy_fn destroy;    /* frees the owned C object (tolerates NULL pointers) */
    bw_lua_object *deps[BW_LUA_MAX_DEPS]; /* objects this one uses (each counted there) */
    int users;                    /* how many live objects use this one */
    bool closed;                  /* the Lua handle was closed or collected */
    bool borrowed;                /* shared handle: close() is a no-op, only __gc closes it */
    bool destroyed;               /* the C object is gone */
};

/* Create a userdata of `size` bytes (starting with a bw_lua_object) with
 * `nuv` uservalues, zero it, initialise the header and set the metatable
 * registered under `type_name`. Leaves it on the stack. */
void *bw_lua_new_object(lua_State *L, size_t size, int nuv, const char *type_name, bw_lua_destroy_fn destroy);
/* Record that `self` uses `dep` (dep->users++). At most BW_LUA_MAX_DEPS. */
void bw_lua_object_use(bw_lua_object *self, bw_lua_object *dep);
/* Drop a use taken by bw_lua_object_use or by hand (dep->users--), and
 * destroy dep if it is closed and unused. */
void bw_lua_object_unuse(bw_lua_object *dep);
/* close() / <close> on the handle: destroy when unused. Idempotent; does
 * nothing on a borrowed handle. */
void bw_lua_object_close(bw_lua_object *self);
/* __gc: the handle is gone (borrowed or not): destroy when unused. */
void bw_lua_object_collect(bw_lua_object *self);
/* The body of the one function a type registers as both __gc and
 * __close: Lua calls __gc with the object alone and __close with the
 * object and an error value (nil when there is none), so one argument
 * collects and two close (a no-op on a borrowed handle). */
void bw_lua_object_gc_or_close(lua_State *L, bw_lua_object *self);
/* Push the shared (borrowed) handle of the Rig or Clip at `idx`: itself if
 * it is borrowed already, else its twin, made on first use and cached in
 * the original's BW_LUA_UV_*_SHARED slot. For accessors that hand out an
 * object the caller may not own. */
void bw_lua_push_shared(lua_State *L, int idx);
/* __eq of Rig and Clip: true when both handles wrap the same C object (a
 * handle and its shared twin), also after either was closed while the
 * object lives on. */
int bw_lua_shared_eq(lua_State *L);

/* luaL_checkudata plus the closed check; returns the block. */
void *bw_lua_check_object(lua_State *L, int arg, const char *type_name);
/* Like bw_lua_check_object but returns NULL (no error) when the value is
 * not of that type; still raises if it is of that type but closed. */
void *bw_lua_test_object(lua_State *L, int arg, const char *type_name);

/* What bw_lua_register_object_type installs for a type whose block starts
 * with a bw_lua_object: the same close(), __gc, __close and __tostring
 * for every type, so each type writes only its description. */
typedef struct bw_lua_lifetime {
    const char *type_name; /* BW_LUA_RIG etc. */
    /* __tostring of a live handle (at index 1, its type checked): pushes
     * the text without the address ("blendwerk.Rig (3 joints, 0 curves)")
     * and returns 1, or pushes nothing and returns 0 when the block has no
     * C object (it then prints as closed). NULL: no __tostring (Lua's
     * default "TYPE: ADDRESS"). */
    lua_CFunction describe;
    int clear_uservalue;       /* a uservalue slot closing or collecting sets to nil
                                  (what the handle's callbacks hold), 0: none */
    bool close_closed_quietly; /* close() on a closed handle is a no-op (else it
                                  raises "blendwerk.X is closed" like every method) */
    bool no_address;           /* __tostring prints no ": ADDRESS" (also when closed) */
} bw_lua_lifetime;

/* Register the type life->type_name (`life` must outlive the state:
 * static storage): a metatable of that name whose __index is a table of
 * `methods` plus close(), and the `meta` entries (may be NULL) plus
 * - __gc and __close: one function (bw_lua_object_gc_or_close), which
 *   raises on a value of another type;
 * - __tostring when life->describe is set: the description followed by
 *   ": ADDRESS", or "TYPE (closed): ADDRESS" once the handle is closed;
 * close() is bw_lua_object_close on the checked handle (a no-op on a
 * borrowed one). Neither list may hold these names. The metatable is
 * guarded: its __metatable is a read-only view, so getmetatable(handle)
 * in Lua gives { __name = type, __close = __gc = a function that closes
 * like handle:close() without raising on a closed handle }, and
 * setmetatable on a handle fails. Leaves the stack unchanged. */
void bw_lua_register_object_type(lua_State *L, const bw_lua_lifetime *life, const luaL_Reg *methods,
                                 const luaL_Reg *meta);

/* t[key] = v for the table t on top of the stack. */
static inline void bw_lua_set_number(lua_State *L, const char *key, double v)
{
    /* raw: the table may be one a script keeps (an output refreshed in
     * place) and gave a metatable; no script code runs mid-refresh */
    lua_pushstring(L, key);
    lua_pushnumber(L, (lua_Number)v);
    lua_rawset(L, -3);
}

/* Push a read-only view of the table at `idx` (bindings/lua_view.c; the
 * one builder of such views): reading a key reads the table, pairs(view)
 * iterates it without handing the table out, writing a key raises
 * `message` (copied), and getmetatable(view) is false. `userdata` true:
 * the view is a full userdata, so rawset cannot write into it either (for
 * views only the bindings hand out); false: an empty table, for values
 * scripts expect to be tables (the sandbox's libraries, whose rawset is
 * guarded separately). # gives the table's raw length (__len) and
 * ipairs reads through (Lua 5.4 reads each t[i] through __index), so a
 * list read through a view keeps working (table.concat, table.unpack). */
void bw_lua_push_readonly_view(lua_State *L, int idx, bool userdata, const char *message);
/* Check that argument `arg` is a table a binding may write its results
 * into raw (an `out` table): a table, and not a read-only view (a
 * sandbox library), which rawset refuses and a raw write would bypass.
 * Raises naming the argument otherwise. */
void bw_lua_check_out_table(lua_State *L, int arg);

/* ---- the types' blocks (shared so one type's file can use another) ---- */

typedef struct bw_lua_rig {
    bw_lua_object hdr;
    bw_rig *rig;  /* owned unless borrowed from an Asset (hdr.deps[0]) */
    bool owned;
} bw_lua_rig;

typedef struct bw_lua_clip {
    bw_lua_object hdr;
    bw_clip *clip; /* owned unless borrowed from an Asset (hdr.deps[0]) */
    bool owned;
    bw_binding_cache *bindings; /* the state's cache once it bound this clip
                                   (its entries go when the clip does), or NULL */
} bw_lua_clip;

typedef struct bw_lua_binding {
    bw_lua_object hdr; /* deps: clip, rig */
    bw_binding *binding; /* owned, or borrowed from the state's cache when `cached` */
    bw_lua_clip *clip;
    bw_lua_rig *rig;
    bool cached;
} bw_lua_binding;

typedef struct bw_lua_pose {
    bw_lua_object hdr; /* deps: rig */
    bw_pose pose;
    bw_lua_rig *rig;
} bw_lua_pose;

typedef struct bw_lua_asset {
    bw_lua_object hdr;
    bw_asset *asset;
    bw_binding_cache *bindings; /* the state's cache once one of its clips bound
                                   (the clips' entries go with the asset), or NULL */
} bw_lua_asset;

/* Uservalue slots. */
enum {
    BW_LUA_UV_RIG_ASSET = 1,     /* Rig: the Asset (or owned Rig) it is borrowed from, or nil */
    BW_LUA_UV_RIG_SHARED = 2,    /* Rig: its shared twin (bw_lua_push_shared), or nil */
    BW_LUA_UV_CLIP_ASSET = 1,    /* Clip: the Asset (or owned Clip) it is borrowed from, or nil */
    BW_LUA_UV_CLIP_SHARED = 2,   /* Clip: its shared twin (bw_lua_push_shared), or nil */
    BW_LUA_UV_RIG_WARNINGS = 3,  /* Rig: its creation warnings, a list, or nil (none) */
    BW_LUA_UV_CLIP_WARNINGS = 3, /* Clip: its creation warnings, a list, or nil (none) */
    BW_LUA_UV_BINDING_CLIP = 1,  /* Binding: its Clip */
    BW_LUA_UV_BINDING_RIG = 2,   /* Binding: its Rig */
    BW_LUA_UV_POSE_RIG = 1,      /* Pose: its Rig */
    BW_LUA_UV_ASSET_CACHE = 1    /* Asset: table { rig = Rig, clips = { [i] = Clip } } */
};

/* Checked access to the C objects of each type (raise on misuse). */
bw_lua_rig *bw_lua_check_rig(lua_State *L, int arg);
bw_lua_clip *bw_lua_check_clip(lua_State *L, int arg);
bw_lua_binding *bw_lua_check_binding(lua_State *L, int arg);
bw_lua_pose *bw_lua_check_pose(lua_State *L, int arg);
/* The C track set behind a blendwerk.TrackSet at `arg` (raises if it is
 * not one, or closed) and the rig it plays on. */
const struct bw_track_set *bw_lua_check_track_set(lua_State *L, int arg, const bw_rig **out_rig);

/* Push a Rig / Clip handle wrapping `rig` / `clip`. If `owner_idx` is not
 * 0 the object is borrowed from the handle at that stack index (an Asset,
 * or the Rig / Clip it is the shared twin of; kept alive through it) and
 * the new handle is marked borrowed; otherwise the handle owns it and
 * destroys it. */
bw_lua_rig *bw_lua_push_rig(lua_State *L, bw_rig *rig, int owner_idx);
bw_lua_clip *bw_lua_push_clip(lua_State *L, bw_clip *clip, int owner_idx);

/* Push a new Pose for the Rig at stack index `rig_idx` (identity
 * transforms, coverage 0). Raises on out of memory. */
bw_lua_pose *bw_lua_push_pose(lua_State *L, int rig_idx);
/* The binding of the Clip at `clip_idx` to the Rig at `rig_idx` from the
 * state's bw_binding_cache (lua_binding.c), made on first use. Pushes
 * nothing on success; on failure pushes nil and a message and returns
 * NULL. Valid while the Clip's C object lives. */
const bw_binding *bw_lua_cached_binding(lua_State *L, int clip_idx, int rig_idx);
/* The same binding wrapped in a new Binding handle that borrows it (and
 * keeps the Clip and Rig alive). On failure pushes nil and a message and
 * returns NULL. */
bw_lua_binding *bw_lua_push_cached_binding(lua_State *L, int clip_idx, int rig_idx);
/* Push a fresh Binding (not cached). On failure pushes nil + message. */
bw_lua_binding *bw_lua_push_binding(lua_State *L, int clip_idx, int rig_idx);

/* A joint argument: a 1-based index or a joint name (unambiguous).
 * Returns the 0-based joint index; raises naming the argument. */
int bw_lua_check_joint(lua_State *L, int arg, const bw_rig *rig);
/* A curve argument: a 1-based index or a curve name. */
int bw_lua_check_curve(lua_State *L, int arg, const bw_rig *rig);

/* ---- blend trees (lua_blendtree.c), for the graph reader ---- */

/* blendwerk.blend_tree(root [, options]) as a C function. */
int bw_lua_blend_tree(lua_State *L);
/* The compiled tree of the blendwerk.BlendTree at arg (raises otherwise);
 * pushes the list of its leaves' clip values (leaf clip id i + 1). */
const struct bw_blend_tree *bw_lua_check_blend_tree(lua_State *L, int arg);

/* ---- loading for sandboxing hosts ---- */

/* Push a function load(path [, {max_bytes=}]) -> Asset | nil, message that
 * behaves like blendwerk.load but resolves `path` beneath the folder `dir`
 * (copied; NULL or "" = the current folder) with bw_asset_load_beneath:
 * relative, no "..", no symbolic link in any component, regular files
 * only. A host that confines scripts to a folder installs it (or calls it
 * from its own blendwerk.load) instead of joining dir and path itself:
 * a joined path would follow links out of the folder. */
void bw_lua_push_loader_beneath(lua_State *L, const char *dir);

/* ---- numbers, vectors, transforms ---- */

/* A finite number that fits a float; raises naming the argument. */
float bw_lua_check_float(lua_State *L, int arg);
float bw_lua_opt_float(lua_State *L, int arg, float def);

/* A time argument: any number. NaN and infinities pass through (the core
 * defines them: sampling treats a non-finite time as 0); finite values
 * beyond float range clamp to +-FLT_MAX. */
float bw_lua_check_time(lua_State *L, int arg);
/* The same conversion for a number already read: NaN and infinities pass
 * through, finite values beyond float range clamp to +-FLT_MAX (so "huge"
 * stays "far past the end" instead of becoming inf). */
float bw_lua_clamp_float(double v);

/* Convert a Lua number to a finite float. Returns NULL on success or a
 * short reason ("is NaN", "is infinite", "is too large for a float"). */
const char *bw_lua_to_float(double v, float *out);

/* Read the optional fields t, r, s of the table at `idx` into *x, leaving
 * absent fields as they are. Each vector is an array {x, y, z[, w]} or
 * named fields {x=, y=, z=[, w=]} of finite numbers, with nothing else in
 * it; s may be a number (uniform scale). A zero rotation fails. On failure
 * returns false and writes "t.y is NaN" (etc.) into why. Raw access, no
 * metamethods. The caller checks the table's own fields
 * (bw_lua_check_fields with its list, e.g. bw_lua_transform_fields). */
bool bw_lua_read_transform(lua_State *L, int idx, bw_transform *x, char *why, size_t why_size);
/* {"t", "r", "s", NULL} and {"t", "r", "s", "coverage", NULL} (the shape
 * pose:get returns, accepted back by pose:set and root_motion:remove). */
extern const char *const bw_lua_transform_fields[];
extern const char *const bw_lua_joint_fields[];

/* Check that every key of the table at `idx` is one of the NULL-terminated
 * `allowed` strings (catches typos such as `rot =` for `r =`). On failure
 * writes "unknown field 'rot'" (or "unexpected list entry [1]") into why
 * and returns false; callers may append their own context. */
bool bw_lua_check_fields(lua_State *L, int idx, const char *const *allowed, char *why, size_t why_size);
/* The same check, the message naming what is accepted: "unknown field
 * 'rot' (accepted fields: t, r, s, coverage)". Every description the core
 * types read from Lua (rig, clip, pose:set, rig:set_rest, load options,
 * root motion) goes through this one. */
bool bw_lua_check_fields_hint(lua_State *L, int idx, const char *const *allowed, char *why, size_t why_size);
/* Check that the table at `idx` is a plain list: its keys are exactly
 * 1..#t ("unknown field 'jionts' (a list of 2 entries)" otherwise). */
bool bw_lua_check_list(lua_State *L, int idx, char *why, size_t why_size);
/* Push a new table with each of the NULL-terminated `keys` set to
 * `value` (false: a record whose keys are then only overwritten, which
 * allocates nothing; true: a set for bw_lua_fields_in_set). */
void bw_lua_push_keys(lua_State *L, const char *const *keys, bool value);
/* The per-frame form of the field check: whether every key of the table
 * at `t` is a key of the set at `set` ({ name = true }, made once by
 * bw_lua_push_keys and kept by the caller, its keys anchoring the names),
 * one raw lookup per key (no string compared, nothing allocated). On
 * false the caller asks bw_lua_check_fields(_hint) for the message. */
bool bw_lua_fields_in_set(lua_State *L, int t, int set);
/* Raw field read (no metamethods): pushes t[name], returns its type.
 * Pushing the name may allocate (a string not interned yet): call it from
 * inside a protected call, or use the _protected form. */
int bw_lua_raw_field(lua_State *L, int idx, const char *name);
/* The same read for C code outside any protected call (a host between
 * sandbox calls, where a memory error would panic the process): pushes
 * t[name], or nil when memory ran out, and returns the type, LUA_TNONE
 * when memory ran out. */
int bw_lua_raw_field_protected(lua_State *L, int idx, const char *name);
/* Pop the value on top into a registry reference, in protected mode (the
 * registry may have to grow at the memory cap): LUA_NOREF when memory ran
 * out, LUA_REFNIL for nil. */
int bw_lua_ref_protected(lua_State *L);
/* Whether the value at idx is a string holding a NUL byte, which C reads
 * only up to it ("speed\0evil" as "speed"); the readers of graph files
 * and timelines refuse such names with BW_LUA_NUL_NAME ("%s": the part C
 * sees). */
static inline bool bw_lua_holds_nul(lua_State *L, int idx)
{
    size_t n = 0;
    const char *s = lua_type(L, idx) == LUA_TSTRING ? lua_tolstring(L, idx, &n) : NULL;
    return s && strlen(s) != n;
}
#define BW_LUA_NUL_NAME "the name '%s' is followed by a NUL byte (names cannot hold one)"

/* Whether the value at idx is a usable name: a non-empty string with no
 * NUL byte (C would read "a\0b" as "a", which may be another joint's). */
static inline bool bw_lua_is_name(lua_State *L, int idx)
{
    size_t n = 0;
    const char *s = lua_type(L, idx) == LUA_TSTRING ? lua_tolstring(L, idx, &n) : NULL;
    return s && n > 0 && strlen(s) == n;
}

/* Warnings a core create function logs (a loader's, an animator's),
 * gathered in a fixed buffer, not in Lua tables: the logger runs inside
 * the C function, where a Lua allocation error would jump over its
 * cleanup. NUL-terminated messages back to back; what does not fit (16
 * KiB, dozens of messages) is counted. */
typedef struct bw_lua_warnings {
    char text[16384];
    size_t used;
    int count;
    int dropped;
} bw_lua_warnings;
/* Push an empty buffer (a userdata: Lua frees it whatever happens) and
 * return it with *logger set to collect into it. */
bw_lua_warnings *bw_lua_push_warnings(lua_State *L, bw_logger *logger);
/* Push the collected warnings as a list of strings, in order, each after
 * `prefix` (NULL: none), a last "(N more warnings not kept)" when some did
 * not fit. */
void bw_lua_push_warning_list(lua_State *L, const bw_lua_warnings *w, const char *prefix);
/* A Rig's or Clip's creation warnings (rig:warnings(), clip:warnings()),
 * for the functions that make one from a table (blendwerk.rig,
 * blendwerk.clip). Before the core call, bw_lua_begin_made_warnings pushes
 * the Lua call site (luaL_where(L, 1): "file:line: ", or "" when a C
 * function called) and a buffer, and sets *logger to collect into it;
 * once the object is made, bw_lua_keep_made_warnings stores them, each
 * message after the call site, in uservalue `slot` of the handle at `idx`
 * (nothing when there were none) and pops what begin pushed. */
bw_lua_warnings *bw_lua_begin_made_warnings(lua_State *L, bw_logger *logger);
void bw_lua_keep_made_warnings(lua_State *L, int idx, int slot);
/* Push the creation warnings of the Rig or Clip at idx: a list, or nil
 * when there were none. A borrowed handle has its owner's: those of the
 * Rig or Clip it is the shared twin of, or, for an Asset's rig and clips,
 * the Asset's (the loader's, asset:warnings(): one file, one load). */
void bw_lua_push_made_warnings(lua_State *L, int idx);
/* Push a copy of the list at idx (a method's result: the caller may
 * change it freely), or an empty list when idx holds none. */
void bw_lua_push_list_copy(lua_State *L, int idx);

/* Push the array {v[0], ..., v[n-1]} (1-based) / {t=, r=, s=}. */
void bw_lua_push_floats(lua_State *L, const float *v, int n);
void bw_lua_push_transform(lua_State *L, const bw_transform *x);

/* Push the message of a bw_error (file, line and where prefixed when set),
 * or of a bare result when err is NULL or empty, prefixed by `context`
 * ("clip 'walk'") when it is not NULL. */
void bw_lua_push_error(lua_State *L, const char *context, bw_result result, const bw_error *err);

/* The allocator every core object made from Lua uses: the lua_State's own
 * (lua_getallocf), so that a host's memory cap on the state also bounds
 * the rigs, clips and poses its scripts create. Registered by
 * luaopen_blendwerk; lives as long as the state. */
const bw_allocator *bw_lua_allocator(lua_State *L);
/* The same allocator by value, for descs that take one (fn NULL: malloc). */
bw_allocator bw_lua_allocator_value(lua_State *L);

#endif
