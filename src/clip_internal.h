/* clip_internal.h - the compiled clip's and the binding's storage, shared by
 * the modules that read them directly (sampling, playback, root motion, the
 * benchmark). Not part of the public API.
 *
 * Clip memory: one allocation holds, in this order (each section aligned to
 * max_align_t):
 *   struct bw_clip
 *   bw_track_data tracks[track_count]      (in creation order)
 *   bw_clip_marker markers[marker_count]   (sorted by time, stable)
 *   float key data                         (per track, in track order:
 *                                           times[key_count], then
 *                                           values[key_count * stride])
 *   unsigned char easing                   (per track that needs it:
 *                                           styles[key_count], dirs[key_count])
 *   char strings                           (clip name, track names, marker names)
 * so destroying a clip is a single free, and a track's keys are two
 * contiguous arrays that a later uniform-grid fast path can index directly.
 *
 * Value layout per key: `width` floats (bw_channel_width) for EASED tracks;
 * for CUBICSPLINE tracks `stride` = 3 × width floats in glTF order:
 * in-tangent, value, out-tangent (the value starts at offset `width`).
 * Rotation values are unit quaternions (x, y, z, w); a CUBICSPLINE rotation
 * key whose value was not unit had its tangents scaled by the same factor,
 * so the normalized curve is unchanged.
 *
 * The binding is likewise one allocation: the struct, then per-track
 * targets and statuses, then the driven joints and driven curves.
 */
#ifndef BW_CLIP_INTERNAL_H
#define BW_CLIP_INTERNAL_H

#include "blendwerk/bind.h"
#include "blendwerk/clip.h"

typedef struct bw_track_data {
    const char *parent;   /* joint's parent name; "" root; NULL unknown or a curve track */
    const char *joint;    /* joint or curve name, never NULL */
    bw_channel channel;
    bw_interp interp;
    int width;            /* floats per value: bw_channel_width(channel) */
    int stride;           /* floats per key: width, or 3 × width for CUBICSPLINE */
    int key_count;        /* >= 1 */
    const float *times;   /* key_count, finite, strictly increasing */
    const float *values;  /* key_count × stride */
    /* Per-key easing of the segment ending at that key. NULL (both) when
     * every key is linear or the track is CUBICSPLINE: the sampler then
     * skips bw_ease entirely. Entries are valid bw_ease_style / bw_ease_dir. */
    const unsigned char *styles;
    const unsigned char *dirs;
    /* True when key_count >= 2 and every key lies on the grid
     * times[0] + i × spacing within 1e-6 relative to the largest |time|
     * (a few float ulps), so key i = floor((τ − times[0]) / spacing) up to
     * a rounding at grid points. `spacing` = (last − first)/(key_count − 1)
     * when uniform, else 0. */
    bool uniform;
    float spacing;
} bw_track_data;

typedef struct bw_clip_marker {
    const char *name; /* never NULL */
    float time;       /* seconds, finite */
} bw_clip_marker;

struct bw_clip {
    bw_allocator allocator; /* copy of what created it ({NULL, NULL} = malloc) */
    size_t alloc_size;      /* bytes of the single block */
    const char *name;       /* "" when unnamed */
    float length;           /* seconds, >= 0 */
    bool loop;
    uint64_t sequence_id;   /* 0 for bw_clip_create */
    uint32_t revision;
    uint64_t serial;        /* process-unique, from 1 */
    int track_count;
    int marker_count;
    bw_track_data *tracks;
    bw_clip_marker *markers;
    float max_key_time;     /* largest key time over all tracks (0 with no tracks) */
    struct bw_clip_grid *grid; /* the uniform-grid copy (clip_grid.c), NULL when ineligible */
};

/* Channels a joint can be driven on, the slots of bw_joint_binding. */
enum { BW_SLOT_T = 0, BW_SLOT_R, BW_SLOT_S, BW_SLOT_POSE_WEIGHT, BW_SLOT_MASK_WEIGHT, BW_SLOT_COUNT };

/* One joint some track drives: the track index for each channel (-1 when
 * that channel is not keyed and takes the rig's current joint value). */
typedef struct bw_joint_binding {
    int joint;
    int track[BW_SLOT_COUNT];
} bw_joint_binding;

typedef struct bw_curve_binding {
    int curve;
    int track;
} bw_curve_binding;

struct bw_binding {
    bw_allocator allocator;
    size_t alloc_size;
    const bw_clip *clip;          /* not owned; never dereferenced by destroy */
    uint64_t layout_signature;
    uint32_t topology_revision;
    uint64_t retarget_id;
    int joint_count;              /* the rig's counts at binding time */
    int curve_count;
    int track_count;              /* = clip's */
    int *targets;                 /* per track: joint / curve index, -1 unbound */
    unsigned char *status;        /* per track: bw_bind_status */
    bw_bind_report report;
    int driven_joint_count;
    bw_joint_binding *driven_joints; /* ascending joint index */
    int driven_curve_count;
    bw_curve_binding *driven_curves; /* ascending curve index */
    struct bw_grid_binding *grid;    /* offsets into the clip's grid rows (clip_grid.c), or NULL */
};

/* Index of the first key with time >= t in a track (key_count when none);
 * the sampler's segment search, shared so every reader agrees on it. */
static inline int bw_track_find_key(const bw_track_data *track, float t)
{
    int lo = 0, hi = track->key_count;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (track->times[mid] < t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* ---- the uniform-grid fast path (clip_grid.c) ----
 *
 * A clip whose joint tracks (translation, rotation, scale, pose and mask
 * weight) are all linear and keyed on one uniform time grid, or hold a
 * single constant key, also keeps a frame-major copy of those keys: row k
 * holds every grid track's value at time start + k × spacing, so sampling
 * reads two adjacent rows in order and needs no key search. Sampling this
 * copy is the same interpolation as the per-track path (the same lerp and
 * slerp), evaluated on the ideal grid times; tests/test_sample_grid.c
 * checks the two agree. Curves (float / angle channels) always take the
 * per-track path. */
typedef struct bw_clip_grid {
    int key_count;       /* rows, >= 2 */
    float start;         /* time of row 0 */
    float spacing;       /* seconds between rows, > 0 */
    float inv_spacing;
    const float *times;  /* the grid's key times as stored (one of its tracks'), key_count */
    int row_width;       /* floats per row */
    int *track_offset;   /* per clip track: its first float in a row, -1 if not in the grid */
    float *rows;         /* key_count × row_width */
    size_t alloc_size;
} bw_clip_grid;

/* Per driven joint: the row offset of each BW_SLOT_* channel, -1 when
 * that channel takes the rig's current value (or the weight default). */
typedef struct bw_grid_joint {
    int joint;
    int offset[BW_SLOT_COUNT];
} bw_grid_joint;

typedef struct bw_grid_binding {
    int joint_count;
    bw_grid_joint *joints; /* same order as the binding's driven_joints */
    size_t alloc_size;
} bw_grid_binding;

/* Build clip->grid when the clip is eligible (else leave it NULL).
 * BW_ERR_OUT_OF_MEMORY only when eligible and allocation failed. */
bw_result bw_clip_grid_build(bw_clip *clip);
void bw_clip_grid_free(bw_clip *clip);
/* Build binding->grid when its clip has a grid. */
bw_result bw_binding_grid_build(bw_binding *binding);
void bw_binding_grid_free(bw_binding *binding);

#endif
