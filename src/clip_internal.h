/* clip_internal.h - the compiled clip's and the binding's storage, shared by
 * the modules that read them directly (sampling, playback, root motion, the
 * benchmark). Not part of the public API.
 *
 * Clip memory: one allocation holds, in this order (each section aligned to
 * max_align_t, offsets from bw_align_up):
 *   struct bw_clip
 *   bw_track_data tracks[track_count]      (in creation order)
 *   bw_clip_marker markers[marker_count]   (sorted by time, stable)
 *   double marker times[marker_count], ring[marker_count], then
 *   int ring_index[marker_count]           (the walking order, marker_walk.h)
 *   float key data                         (per track, in track order:
 *                                           times[key_count], then
 *                                           values[key_count * stride])
 *   unsigned char easing                   (per track that needs it:
 *                                           styles[key_count], dirs[key_count])
 *   char strings                           (clip name, track names, marker names)
 * so a track's keys are two contiguous arrays. The optional uniform-grid
 * copy (clip->grid, below) is a second allocation made from the same
 * allocator; the last bw_clip_release (bw_clip_destroy) frees both.
 *
 * Value layout per key: `width` floats (bw_channel_width) for EASED tracks;
 * for CUBICSPLINE tracks `stride` = 3 × width floats in glTF order:
 * in-tangent, value, out-tangent (the value starts at offset `width`).
 * Rotation values are unit quaternions (x, y, z, w); a CUBICSPLINE rotation
 * key whose value was not unit had its tangents scaled by the same factor,
 * so the normalized curve is unchanged.
 *
 * The binding is likewise one allocation: the struct, then per-track
 * targets and statuses, then the driven joints and driven curves; its
 * optional grid lane map (binding->grid) is a second one.
 */
#ifndef BW_CLIP_INTERNAL_H
#define BW_CLIP_INTERNAL_H

#include <stdatomic.h>

#include "blendwerk/bind.h"
#include "blendwerk/clip.h"
#include "marker_walk.h"

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
    atomic_int refs;        /* references (bw_clip_retain / bw_clip_release); 1 at creation */
    int track_count;
    int marker_count;
    bw_track_data *tracks;
    bw_clip_marker *markers;
    bw_marker_list marker_list; /* the markers in walking order, built with the clip */
    struct bw_clip_grid *grid; /* the uniform-grid copy (clip_grid.c), NULL when ineligible */
};

/* FLOAT and ANGLE tracks drive rig curves; every other channel a joint. */
static inline bool bw_channel_is_curve(bw_channel channel)
{
    return channel == BW_CHANNEL_FLOAT || channel == BW_CHANNEL_ANGLE;
}

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
    if (track->uniform) {
        /* the grid's guess (keys lie on it to a few ulps), then walked to
         * the binary search's answer: a step or two, no unpredictable
         * branches (root motion samples a play's tracks several times a
         * frame); NaN t guesses 0 and stays there, as below */
        const int n = track->key_count;
        const float f = (t - track->times[0]) / track->spacing;
        int i = f > 0.0f ? (f < (float)n ? (int)f : n) : 0;
        while (i > 0 && !(track->times[i - 1] < t)) i--;
        while (i < n && track->times[i] < t) i++;
        return i;
    }
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
 * single constant key, with at least one track on the grid, also keeps a
 * structure-of-arrays copy of those keys. The clip's distinct target joints ("grid joints", in order of
 * first appearance) are packed in blocks of BW_GRID_LANES; row k holds, per
 * block, BW_GRID_COMPONENTS components × BW_GRID_LANES lanes at time
 * start + k × spacing (16 lanes: one AVX-512 vector per component, and
 * whole 4- or 8-lane vectors for the narrower kernels):
 *   tx ty tz  rx ry rz rw  sx sy sz  pose_weight mask_weight
 * Channels a grid joint does not key hold identity / weight defaults in
 * the rows and are marked in `missing`, so the binding can restore the
 * rig's current value after sampling. Padding lanes hold identity.
 * Sampling reads two adjacent rows in order, needs no key search, and
 * computes 4 to 16 joints per step with the same lerp and slerp as the
 * per-track path; tests/test_sample_grid.c checks the two agree. Curves
 * (float / angle channels) always take the per-track path. */
#define BW_GRID_COMPONENTS 12
#define BW_GRID_LANES 16
#define BW_GRID_BLOCK_FLOATS (BW_GRID_COMPONENTS * BW_GRID_LANES)
enum { BW_GRID_MISSING_T = 1, BW_GRID_MISSING_R = 2, BW_GRID_MISSING_S = 4 };
/* The slerp series (bw_math.h, 8 terms in x = cos − 1) cut to 4 terms
 * where the dropped terms add at most this much to a coefficient of order
 * 1: a tenth of a float ulp of 1. */
#define BW_GRID_SHORT_TERMS 4
#define BW_GRID_SHORT_TAIL 1e-8

typedef struct bw_clip_grid {
    int key_count;       /* rows, >= 2 */
    float start;         /* time of row 0 */
    float spacing;       /* seconds between rows, > 0 */
    float inv_spacing;
    const float *times;  /* the grid's key times as stored (one of its tracks'), key_count */
    int joint_count;     /* grid joints */
    int block_count;     /* ceil(joint_count / BW_GRID_LANES) */
    int row_floats;      /* block_count × BW_GRID_BLOCK_FLOATS */
    float *rows;         /* key_count × row_floats, 16-byte aligned */
    int *joint_track;    /* per grid joint: one of its track indices (for the binding) */
    int *track_joint;    /* per clip track: its grid joint, -1 for curve tracks */
    unsigned char *missing; /* per grid joint: BW_GRID_MISSING_* bits */
    unsigned char *full;    /* per block: 1 when every row has pose weight 1 and mask weight 0
                               in all its lanes (coverage 1 at any time: the mixer skips it) */
    bool short_series;      /* every lane's rotation moves little between rows, so the vector
                               kernels' slerp series needs only its first BW_GRID_SHORT_TERMS
                               terms (the rest adds at most BW_GRID_SHORT_TAIL; clip_grid.c) */
    size_t alloc_size;   /* bytes of this block: header, rows, then the arrays above */
} bw_clip_grid;

/* A driven joint that needs the rig's current value for some channels. */
typedef struct bw_grid_fixup {
    int joint;
    unsigned char missing; /* BW_GRID_MISSING_* */
} bw_grid_fixup;

typedef struct bw_grid_binding {
    int block_count;
    int *lane_joint;        /* block_count × BW_GRID_LANES: rig joint of each lane, -1 unbound / padding */
    int fixup_count;
    bw_grid_fixup *fixups;
    /* Lane l drives rig joint l for every joint of the rig, no channel needs
     * a fixup and no curve is driven: the mixer can then consume grid
     * blocks directly as its joint blocks (bw_mix_run_clips). */
    bool dense;
    size_t alloc_size;
} bw_grid_binding;

/* Build clip->grid when the clip is eligible (else leave it NULL).
 * BW_ERR_OUT_OF_MEMORY only when eligible and allocation failed. */
bw_result bw_clip_grid_build(bw_clip *clip);
void bw_clip_grid_free(bw_clip *clip);
/* Build binding->grid when its clip has a grid and every grid joint's
 * tracks bound to one rig joint (else leave it NULL: per-track path). */
bw_result bw_binding_grid_build(bw_binding *binding);
void bw_binding_grid_free(bw_binding *binding);

#endif
