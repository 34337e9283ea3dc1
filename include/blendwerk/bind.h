/* blendwerk/bind.h - binding a clip's tracks to a rig's joints and curves
 * (SPEC §2).
 *
 * Each track binds by (parent name, joint name) first. When that fails, a
 * name-only match is used only if the name is unambiguous in both the rig
 * (one joint of that name) and the clip (no other track of the same channel
 * names a different (parent, joint) with that name). Float and angle
 * tracks bind to rig curves by name. The binding report counts bound,
 * ambiguous and unbound tracks; unbound tracks are ignored by sampling.
 *
 * A binding depends on (clip, rig layout and curve signatures, retarget
 * binding) and is cached on that key by bw_binding_cache; a rig topology
 * revision bump invalidates it. Rest-value changes do not.
 */
#ifndef BLENDWERK_BIND_H
#define BLENDWERK_BIND_H

#include "blendwerk/clip.h"
#include "blendwerk/rig.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bw_binding bw_binding;

typedef enum bw_bind_status {
    BW_BIND_EXACT = 0,   /* matched by (parent, joint) */
    BW_BIND_BY_NAME,     /* matched by the unambiguous name alone */
    BW_BIND_AMBIGUOUS,   /* name-only match refused: several candidates */
    BW_BIND_UNBOUND      /* no joint / curve of that name */
} bw_bind_status;

typedef struct bw_bind_report {
    int bound;     /* EXACT + BY_NAME */
    int by_name;   /* of which BY_NAME */
    int ambiguous;
    int unbound;
} bw_bind_report;

/* What a binding is made of; all-zero fields mean the defaults.
 * The binding points at `clip` (which must outlive it: it holds no
 * reference, so whoever keeps a binding keeps the clip alive, e.g. with
 * bw_clip_retain) but keeps nothing of the rig except its indices, layout
 * signature and revision. */
typedef struct bw_binding_desc {
    const bw_clip *clip;    /* required */
    const bw_rig *rig;      /* required */
    uint64_t retarget_id;   /* distinguishes bindings of the same clip and rig made
                               for different retarget mappings (0 = none); part of
                               the cache key */
    bw_allocator allocator; /* copied; fn NULL = malloc */
    bw_logger logger;       /* optional: one warning per track that a name-only
                               match would bind but several joints share the name
                               (at most 8, then a count) */
} bw_binding_desc;

/* BW_ERR_INVALID_ARGUMENT for a NULL desc, clip, rig or out_binding;
 * BW_ERR_OUT_OF_MEMORY. *out_binding is set only on success. */
BW_API bw_result bw_binding_create(const bw_binding_desc *desc, bw_binding **out_binding, bw_error *err);
BW_API void bw_binding_destroy(bw_binding *binding);

BW_API bw_bind_report bw_binding_report(const bw_binding *binding);
BW_API bw_bind_status bw_binding_track_status(const bw_binding *binding, int track);
/* Joint (or curve, for float channels) a track drives, -1 if unbound or
 * ambiguous. Out-of-range tracks report UNBOUND / -1. */
BW_API int bw_binding_track_target(const bw_binding *binding, int track);
BW_API const bw_clip *bw_binding_clip(const bw_binding *binding);
/* The key this binding was made for. */
BW_API uint64_t bw_binding_layout_signature(const bw_binding *binding);
BW_API uint32_t bw_binding_topology_revision(const bw_binding *binding);
BW_API uint64_t bw_binding_retarget_id(const bw_binding *binding);

/* Cache of bindings keyed by (clip serial, layout signature, curve
 * signature, topology revision, retarget id). Owns its bindings.
 * bw_binding_cache_get returns the cached binding or creates one. Rigs with
 * equal layouts, curves and revisions share a binding (indices are the
 * same). When the rig that made an entry
 * (told apart by bw_rig_serial, so a new rig at a reused address is
 * another rig) asks for the same clip and retarget id after a topology
 * change, its old binding is destroyed and replaced, so callers must
 * re-fetch bindings after bw_rig_add_joint; an entry that was also handed
 * to another rig is kept instead (that rig may still use it) and the new
 * binding gets its own entry. A failed get leaves the cache unchanged. */
typedef struct bw_binding_cache bw_binding_cache;
BW_API bw_result bw_binding_cache_create(const bw_allocator *allocator, bw_binding_cache **out_cache);
BW_API void bw_binding_cache_destroy(bw_binding_cache *cache);
BW_API bw_result bw_binding_cache_get(bw_binding_cache *cache, const bw_clip *clip, const bw_rig *rig,
                               uint64_t retarget_id, const bw_binding **out_binding, bw_error *err);
BW_API int bw_binding_cache_create_count(const bw_binding_cache *cache);
/* Destroy every cached binding of `clip` (call before destroying or
 * replacing the clip, e.g. on hot reload; entries of a destroyed clip are
 * otherwise kept, unreachable, until the cache is destroyed). */
BW_API void bw_binding_cache_remove_clip(bw_binding_cache *cache, const bw_clip *clip);

#ifdef __cplusplus
}
#endif
#endif
