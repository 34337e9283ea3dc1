/* blendwerk/clip.h - animation clips: per-channel key tracks, named markers,
 * a length and a loop flag (SPEC §2-3).
 *
 * Two ways in, one object out:
 * - bw_clip_create from channel tracks (what loaders produce: one track per
 *   (joint, channel), each with its own key times and interpolation), and
 * - bw_clip_compile_sequence from a keyframe sequence (per-joint keys that
 *   each carry any of translation, rotation, scale, pose weight and mask
 *   weight, with the key's easing), which splits into channel tracks.
 * A compiled clip is immutable and may be shared across threads.
 *
 * Validation on creation (nothing is partially built on failure):
 * - key times must be finite and strictly increasing per track
 *   (BW_ERR_NON_FINITE, BW_ERR_UNSORTED; equal times: BW_ERR_DUPLICATE);
 * - values must be finite; rotations are normalized (a zero quaternion is
 *   BW_ERR_NON_FINITE); consecutive rotation keys are not re-signed, the
 *   sampler takes the shortest arc;
 * - a track with 0 keys is BW_ERR_EMPTY; a clip with no tracks and no
 *   markers is valid (it covers nothing);
 * - two tracks driving the same target are BW_ERR_DUPLICATE: same channel
 *   and same (parent, joint), where a NULL parent only equals NULL; a
 *   FLOAT and an ANGLE track of the same curve name also collide;
 * - unknown channel, interpolation, easing style or direction, a NULL or
 *   empty joint name, NULL key arrays: BW_ERR_INVALID_ARGUMENT; markers
 *   need a name and a finite time; desc.length must be finite;
 * - length: if desc.length > 0 it is used, else the last key or marker
 *   time (a clip whose keys all sit at 0 has length 0: sampling holds the
 *   first keys, looping playback stays at time 0 and fires no loop
 *   signals).
 * Key times may start after 0 (glTF rigged_simple starts at 0.0417 s):
 * before the first key the first value holds. Negative key and marker
 * times are accepted (a length never goes below 0).
 * Error messages name the track ("track 3, joint \"mixamorig:Hips\"
 * (parent \"Armature\") rotation: key 5 ...") and err->where holds the
 * desc path ("tracks[3].times[5]", "joints[1].keys[2]").
 * Nothing is partially built and *out_clip is untouched on failure.
 *
 * Lifetime (reference counts): a clip starts with one reference, its
 * creator's. bw_clip_retain adds one, bw_clip_release drops one, and the
 * last release frees the clip; bw_clip_destroy is bw_clip_release of the
 * creator's reference (the name stays for the common single-owner case).
 * Retain and release are atomic (C11 atomics), so threads sharing a clip
 * may retain and release it concurrently; everything else about a clip is
 * immutable. Whoever keeps a clip beyond the lifetime of the object that
 * handed it out (a running character holding a cache's clip across a
 * reload) retains it and releases it when done. A binding does not hold a
 * reference: it needs its clip alive for as long as it exists.
 *
 * Cloning: bw_clip_clone makes an exact, independent copy (name, length,
 * loop flag, every track with its channel kind, interpolation, key times,
 * values and easing bit for bit, markers in order, the uniform-grid fast
 * path data, sequence id and revision). It has a new serial (it is another
 * object: binding caches must not hand it the source's bindings), its own
 * reference count of 1, and shares no memory with the source, which may
 * be released right after.
 */
#ifndef BLENDWERK_CLIP_H
#define BLENDWERK_CLIP_H

#include "blendwerk/easing.h"
#include "blendwerk/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bw_clip bw_clip;

/* What a track animates; values per key: 3, 4 (x,y,z,w), 3, 1, 1, 1, 1. */
typedef enum bw_channel {
    BW_CHANNEL_TRANSLATION = 0,
    BW_CHANNEL_ROTATION,
    BW_CHANNEL_SCALE,
    BW_CHANNEL_POSE_WEIGHT, /* multiplies coverage; default 1 when absent */
    BW_CHANNEL_MASK_WEIGHT, /* coverage *= 1 - mask weight; default 0 when absent */
    BW_CHANNEL_FLOAT,       /* a rig curve: blendshape weight, custom curve */
    BW_CHANNEL_ANGLE,       /* a rig curve in radians, shortest-arc interpolation */
    BW_CHANNEL_COUNT
} bw_channel;

/* Number of floats one key of `channel` holds (3, 4, 3, 1, 1, 1, 1). */
BW_API int bw_channel_width(bw_channel channel);

typedef enum bw_interp {
    BW_INTERP_EASED = 0,  /* per-key easing of the destination key (linear by default);
                             glTF LINEAR = linear, glTF STEP = constant */
    BW_INTERP_CUBICSPLINE /* glTF CUBICSPLINE: each key holds in-tangent, value,
                             out-tangent (3 x width floats), Hermite with tangents
                             scaled by the key interval; rotations normalized after */
} bw_interp;

typedef struct bw_track_desc {
    /* Target joint: `joint` is its name. `parent` is its parent's name, ""
     * for a root, NULL when unknown (binding then uses the name alone, if
     * unambiguous). For FLOAT/ANGLE channels `joint` is the curve name and
     * `parent` is ignored. */
    const char *parent;
    const char *joint;
    bw_channel channel;
    bw_interp interp;
    int key_count;
    const float *times;          /* key_count seconds, strictly increasing */
    const float *values;         /* key_count * width (x3 for CUBICSPLINE) */
    const unsigned char *styles; /* optional, key_count bw_ease_style (NULL = linear);
                                    ignored for CUBICSPLINE */
    const unsigned char *dirs;   /* optional, key_count bw_ease_dir (NULL = in) */
} bw_track_desc;

typedef struct bw_marker_desc {
    const char *name; /* copied; several markers may share a name */
    float time;       /* seconds, finite; sorted by time on creation */
} bw_marker_desc;

typedef struct bw_clip_desc {
    const char *name; /* optional; copied */
    const bw_track_desc *tracks;   /* track_count entries; read during creation only
                                      (names, keys and easing are copied) */
    int track_count;               /* >= 0 */
    const bw_marker_desc *markers; /* marker_count entries; copied */
    int marker_count;              /* >= 0 */
    float length; /* seconds, finite; > 0 to set explicitly; <= 0: last key / marker time */
    bool loop;    /* default loop flag for tracks that play this clip */
    bw_allocator allocator;        /* copied; fn NULL = malloc (what it points to
                                      must outlive the clip) */
    bw_logger logger;              /* optional; warnings during creation only: rotation
                                      keys that were not unit length (normalized), one
                                      line per track */
} bw_clip_desc;

BW_API bw_result bw_clip_create(const bw_clip_desc *desc, bw_clip **out_clip, bw_error *err);
/* Release the creator's reference (see Lifetime above); frees the clip if
 * no other reference remains. NULL is a no-op. */
BW_API void bw_clip_destroy(bw_clip *clip);
/* Take / drop one reference; thread-safe. NULL is a no-op. Every retain
 * needs exactly one release. */
BW_API void bw_clip_retain(const bw_clip *clip);
BW_API void bw_clip_release(const bw_clip *clip);
/* Copy `src` (see Cloning above) into a new clip allocated through
 * `allocator` (NULL = malloc; copied, the allocator itself must outlive
 * the clone). *out is set only on success; on failure
 * (BW_ERR_OUT_OF_MEMORY, or BW_ERR_INVALID_ARGUMENT for a NULL src / out)
 * nothing is left behind. */
BW_API bw_result bw_clip_clone(const bw_clip *src, const bw_allocator *allocator, bw_clip **out, bw_error *err);

/* ---- keyframe sequences ---- */

/* Which fields of a bw_joint_key are set. */
enum {
    BW_KEY_T = 1 << 0,
    BW_KEY_R = 1 << 1,
    BW_KEY_S = 1 << 2,
    BW_KEY_POSE_WEIGHT = 1 << 3,
    BW_KEY_MASK_WEIGHT = 1 << 4
};

typedef struct bw_joint_key {
    float time;     /* seconds, finite */
    unsigned flags; /* BW_KEY_* bits; a channel is keyed only where its bit is set */
    float t[3], r[4], s[3];         /* translation, rotation (x,y,z,w; normalized on
                                       compile), scale; finite where flagged */
    float pose_weight, mask_weight; /* usually in [0, 1]; coverage clamps (SPEC §3) */
    bw_ease_style style; /* easing of the segment that ends at this key, for
                            every channel keyed here (a channel skipping
                            intermediate keys eases from its own previous key) */
    bw_ease_dir dir;
} bw_joint_key;

typedef struct bw_joint_keys {
    const char *parent; /* as in bw_track_desc */
    const char *joint;
    const bw_joint_key *keys;
    int key_count;
} bw_joint_keys;

typedef struct bw_curve_keys {
    const char *name;    /* the rig curve it drives; copied */
    bool angle;          /* true: BW_CHANNEL_ANGLE (values in radians) */
    const float *times;  /* key_count seconds, strictly increasing */
    const float *values; /* key_count values */
    const unsigned char *styles, *dirs; /* optional, as in bw_track_desc */
    int key_count;
} bw_curve_keys;

typedef struct bw_sequence_desc {
    uint64_t sequence_id; /* identity of the authored sequence */
    uint32_t revision;    /* bumped by the author on every edit */
    const char *name;     /* optional; copied */
    const bw_joint_keys *joints; /* joint_count entries; read during compilation only */
    int joint_count;
    const bw_curve_keys *curves; /* curve_count entries; read during compilation only */
    int curve_count;
    const bw_marker_desc *markers;
    int marker_count;
    float length;         /* as bw_clip_desc.length */
    bool loop;
    bw_allocator allocator;        /* as bw_clip_desc.allocator */
    bw_logger logger;              /* as bw_clip_desc.logger */
} bw_sequence_desc;

/* Split the sequence into channel tracks: per joint entry, in order,
 * translation, rotation, scale, pose weight and mask weight (each only if
 * some key sets its flag, with just those keys), then the curves. A joint's
 * keys must have finite, strictly increasing times whatever their flags;
 * a joint entry with no keys is BW_ERR_EMPTY; unknown flag bits are
 * BW_ERR_INVALID_ARGUMENT. */
BW_API bw_result bw_clip_compile_sequence(const bw_sequence_desc *desc, bw_clip **out_clip, bw_error *err);

/* ---- queries ---- */
BW_API const char *bw_clip_name(const bw_clip *clip); /* "" when unnamed */
BW_API float bw_clip_length(const bw_clip *clip);
BW_API bool bw_clip_loop(const bw_clip *clip);
BW_API int bw_clip_track_count(const bw_clip *clip);
/* Track i's description as stored (names, times and values point into
 * the clip; rotations normalized; styles and dirs are NULL when every key
 * is linear). BW_ERR_RANGE for a bad index. */
BW_API bw_result bw_clip_track(const bw_clip *clip, int track, bw_track_desc *out);
BW_API int bw_clip_marker_count(const bw_clip *clip);
/* Markers sorted by time (stable for equal times). NULL / NaN for a bad
 * index. */
BW_API const char *bw_clip_marker_name(const bw_clip *clip, int marker);
BW_API float bw_clip_marker_time(const bw_clip *clip, int marker);
/* Identity for caches: sequence id and revision (0, 0 for bw_clip_create),
 * and a process-unique serial number assigned at creation. */
BW_API uint64_t bw_clip_sequence_id(const bw_clip *clip);
BW_API uint32_t bw_clip_revision(const bw_clip *clip);
BW_API uint64_t bw_clip_serial(const bw_clip *clip);

/* ---- the compile cache ----
 * Maps (sequence id, revision) to a compiled clip, so re-requesting an
 * unchanged sequence returns the same object without recompiling. The cache
 * holds one reference to each clip it caches, one revision per sequence:
 * the last one requested. Requesting any other revision of a sequence,
 * newer or older (a hot reload that reverts a file asks for an older one),
 * compiles it, and on success it replaces the cached clip, which is
 * released (not destroyed): freed at once if nobody else holds it, and
 * otherwise valid until its last holder releases it. So the clip
 * bw_clip_cache_get returns is borrowed, valid until another revision of
 * that sequence is compiled successfully or the cache is destroyed; a
 * character that must keep playing it across a recompile retains it and
 * releases it when it lets go. Going back to a revision recompiles it.
 * Destroying the cache releases every clip. */
typedef struct bw_clip_cache bw_clip_cache;
BW_API bw_result bw_clip_cache_create(const bw_allocator *allocator, bw_clip_cache **out_cache);
BW_API void bw_clip_cache_destroy(bw_clip_cache *cache);
BW_API bw_result bw_clip_cache_get(bw_clip_cache *cache, const bw_sequence_desc *desc, const bw_clip **out_clip,
                            bw_error *err);
/* How many successful compiles the cache has performed (for tests and
 * tools). A failed compile counts nothing and leaves the cached revision,
 * if any, in place. */
BW_API int bw_clip_cache_compile_count(const bw_clip_cache *cache);

#ifdef __cplusplus
}
#endif
#endif
