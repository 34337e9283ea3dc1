/* blendwerk/rig.h - skeletons: joints stored parent-first, with names and
 * rest transforms, plus named float channels (blendshape weights, custom
 * curves).
 *
 * Contract (SPEC §1):
 * - A parent's index is always smaller than its children's. Creation fails
 *   with BW_ERR_ORDER when a parent comes after its child, BW_ERR_CYCLE when
 *   a joint is its own ancestor (including itself as parent, or a parent
 *   chain that loops), and BW_ERR_DUPLICATE for two joints with the same
 *   (parent name, name) pair (roots count as parent name ""): that pair is
 *   how clips name joints, so it must identify one joint. Other failures:
 *   a NULL name is BW_ERR_INVALID_ARGUMENT, an empty name BW_ERR_EMPTY, a
 *   parent index outside [-1, joint_count) BW_ERR_RANGE, a non-finite or
 *   zero rest rotation / non-finite translation or scale BW_ERR_NON_FINITE,
 *   more than BW_RIG_MAX_JOINTS joints or BW_RIG_MAX_CURVES curves
 *   BW_ERR_LIMIT. The error message names the joint (or curve) and its
 *   index; bw_error.where holds "joints[i]" / "curves[i]".
 * - The topology revision starts at 1 and is bumped by every change of
 *   joint membership or parenting (bw_rig_add_joint). The layout signature
 *   is a hash (FNV-1a, bw_hash_bytes) of every joint's name and parent
 *   index in joint order, so two rigs with the same joints in the same
 *   order share it. Setting rest values changes neither. Caches keyed by
 *   topology (bindings, masks) compare the layout signature and topology
 *   revision and nothing else.
 * - Name lookups use a sorted index built at creation (binary search plus
 *   strcmp): cheap, but not meant for per-frame code. Resolve names once.
 * - A rig is read-only while characters use it; bw_rig_add_joint and
 *   bw_rig_set_rest must not run concurrently with sampling.
 * - An empty rig (0 joints) is valid: every pose of it is empty.
 * - Every rig has a process-unique serial number (bw_rig_serial), assigned
 *   at creation and never reused, so caches can tell a new rig from a
 *   destroyed one that had the same address.
 * - bw_rig_clone makes an independent exact copy (reload keeps the running
 *   rig while a script's rig is rebuilt): same joints, names, parents, rest
 *   transforms bit for bit, curves with their kinds and rest values, the
 *   same topology revision and layout signature (so bindings made for the
 *   source fit the clone), and a new serial. It shares no memory with the
 *   source, which may be destroyed right after.
 */
#ifndef BLENDWERK_RIG_H
#define BLENDWERK_RIG_H

#include "blendwerk/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bw_rig bw_rig;

/* Documented size limits (BW_ERR_LIMIT beyond them). */
#define BW_RIG_MAX_JOINTS (1 << 20)
#define BW_RIG_MAX_CURVES (1 << 20)

typedef struct bw_rig_joint_desc {
    const char *name;  /* required, non-empty; copied */
    int parent;        /* index of the parent joint, or -1 for a root */
    bw_transform rest; /* rest local transform; rotation normalized on creation */
} bw_rig_joint_desc;

/* Kinds of float channel. An angle channel (radians) interpolates and
 * blends along the shortest arc. */
typedef enum bw_curve_kind { BW_CURVE_FLOAT = 0, BW_CURVE_ANGLE = 1 } bw_curve_kind;

typedef struct bw_rig_curve_desc {
    const char *name;   /* required, non-empty, unique among curves; copied */
    bw_curve_kind kind;
    float rest;         /* value when nothing drives the channel; finite */
} bw_rig_curve_desc;

typedef struct bw_rig_desc {
    const bw_rig_joint_desc *joints; /* joint_count entries, parent-first; copied */
    int joint_count;                 /* [0, BW_RIG_MAX_JOINTS] */
    const bw_rig_curve_desc *curves; /* optional float channels; copied */
    int curve_count;                 /* [0, BW_RIG_MAX_CURVES] */
    bw_allocator allocator;          /* copied; fn NULL = malloc (what it points to
                                        must outlive the rig) */
    bw_logger logger;                /* optional; creation only: one warning per rest
                                        rotation that was not unit length (normalized) */
} bw_rig_desc;

/* Validate `desc` and build a rig; *out_rig is set only on success. */
BW_API bw_result bw_rig_create(const bw_rig_desc *desc, bw_rig **out_rig, bw_error *err);
BW_API void bw_rig_destroy(bw_rig *rig); /* NULL is a no-op */
/* Copy `src` (see the contract above) into a new rig allocated through
 * `allocator` (NULL = malloc; copied, the allocator itself must outlive
 * the clone). *out is set only on success; on failure (BW_ERR_OUT_OF_MEMORY,
 * or BW_ERR_INVALID_ARGUMENT for a NULL src / out) nothing is left behind. */
BW_API bw_result bw_rig_clone(const bw_rig *src, const bw_allocator *allocator, bw_rig **out, bw_error *err);

BW_API int bw_rig_joint_count(const bw_rig *rig);
BW_API const char *bw_rig_joint_name(const bw_rig *rig, int joint); /* NULL when out of range */
BW_API int bw_rig_joint_parent(const bw_rig *rig, int joint);       /* -1 for roots and out of range */
/* Array of joint_count parent indices (-1 for roots). */
BW_API const int *bw_rig_parents(const bw_rig *rig);
/* Array of joint_count rest transforms, the rig's current joint values. */
BW_API const bw_transform *bw_rig_rest_pose(const bw_rig *rig);

BW_API int bw_rig_curve_count(const bw_rig *rig);
BW_API const char *bw_rig_curve_name(const bw_rig *rig, int curve);     /* NULL when out of range */
BW_API bw_curve_kind bw_rig_curve_kind(const bw_rig *rig, int curve); /* FLOAT when out of range */
BW_API const float *bw_rig_curve_rest(const bw_rig *rig); /* curve_count values */
BW_API int bw_rig_find_curve(const bw_rig *rig, const char *name); /* -1 if missing */

/* Joint by (parent name, name). parent_name "" means a root joint; NULL
 * means "any parent". Returns -1 if missing, BW_RIG_AMBIGUOUS (-2) when
 * parent_name is NULL and several joints carry `name`. */
#define BW_RIG_AMBIGUOUS (-2)
BW_API int bw_rig_find(const bw_rig *rig, const char *parent_name, const char *name);
/* Shorthand for bw_rig_find(rig, NULL, name). */
BW_API int bw_rig_find_by_name(const bw_rig *rig, const char *name);

BW_API uint32_t bw_rig_topology_revision(const bw_rig *rig);
BW_API uint64_t bw_rig_layout_signature(const bw_rig *rig);
/* Process-unique, from 1 (0 for NULL); a clone has its own. */
BW_API uint64_t bw_rig_serial(const bw_rig *rig);
/* FNV-1a hash of every curve's name and kind in curve order (curves never
 * change after creation). Rigs with the same joints but other curves have
 * the same layout signature and differ here; the binding cache keys on
 * both. */
BW_API uint64_t bw_rig_curve_signature(const bw_rig *rig);

/* Change a joint's rest transform (the rig's current joint value). Does not
 * touch the revision or signature. Fails on a non-finite transform or an
 * out-of-range joint; rotation is normalized. */
BW_API bw_result bw_rig_set_rest(bw_rig *rig, int joint, const bw_transform *rest);
/* Append a joint (its parent must already exist). Bumps the topology
 * revision and recomputes the layout signature. Validation and errors as
 * for creation (its own index as parent is BW_ERR_CYCLE); on failure the
 * rig is unchanged. Pointers from bw_rig_parents / bw_rig_rest_pose /
 * bw_rig_joint_name may move; poses sized for the old count must be
 * re-initialised. */
BW_API bw_result bw_rig_add_joint(bw_rig *rig, const bw_rig_joint_desc *joint, bw_error *err);

#ifdef __cplusplus
}
#endif
#endif
