/* clip.c - clip creation and validation, keyframe-sequence compilation,
 * queries and the (sequence id, revision) compile cache.
 *
 * Creation is two passes: validate everything (so nothing is built on
 * failure and every message can name the track and key), then size one
 * block, allocate it and copy. The storage layout is documented in
 * clip_internal.h. */
#include <float.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "clip_internal.h"
#include "common.h"

/* Process-unique clip serials: binding caches key on them, so a clip
 * created at a reused address is never mistaken for a destroyed one. */
static atomic_uint_fast64_t next_serial = 1;

static const char *const channel_names[BW_CHANNEL_COUNT] = {
    "translation", "rotation", "scale", "pose_weight", "mask_weight", "float", "angle",
};

int bw_channel_width(bw_channel channel)
{
    static const int widths[BW_CHANNEL_COUNT] = {3, 4, 3, 1, 1, 1, 1};
    return (unsigned)channel < BW_CHANNEL_COUNT ? widths[channel] : 0;
}

/* "joint \"Hips\" (parent \"root\") rotation" or "curve \"blink\" (float)":
 * how every validation message names a track. */
static void describe_target(char *buf, size_t size, const char *parent, const char *joint, bw_channel channel)
{
    const char *ch = (unsigned)channel < BW_CHANNEL_COUNT ? channel_names[channel] : "unknown channel";
    if (!joint) joint = "(null)";
    if (bw_channel_is_curve(channel)) snprintf(buf, size, "curve \"%s\" (%s)", joint, ch);
    else if (!parent) snprintf(buf, size, "joint \"%s\" (parent unknown) %s", joint, ch);
    else if (!parent[0]) snprintf(buf, size, "joint \"%s\" (root) %s", joint, ch);
    else snprintf(buf, size, "joint \"%s\" (parent \"%s\") %s", joint, parent, ch);
}

/* Norm of a quaternion, in double so huge or tiny finite components
 * neither overflow nor underflow. */
static double quat_norm(const float *q)
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    return sqrt(x * x + y * y + z * z + w * w);
}

/* ---- track validation ---- */

/* `label` / `array` name the track in messages and err->where: "track" /
 * "tracks" for bw_clip_create, "sequence curve" / "curves" for sequences. */
static bw_result check_track(const bw_track_desc *t, int index, const char *label, const char *array, bw_error *err)
{
    char what[400], where[64];
    snprintf(where, sizeof where, "%s[%d]", array, index);
    if (!t->joint || !t->joint[0])
        return bw_fail_at(err, BW_ERR_INVALID_ARGUMENT, NULL, 0, where, "%s %d: missing joint or curve name", label,
                          index);
    describe_target(what, sizeof what, t->parent, t->joint, t->channel);
    if ((unsigned)t->channel >= BW_CHANNEL_COUNT)
        return bw_fail_at(err, BW_ERR_INVALID_ARGUMENT, NULL, 0, where, "%s %d, %s: unknown channel %d", label, index,
                          what, (int)t->channel);
    if ((unsigned)t->interp > BW_INTERP_CUBICSPLINE)
        return bw_fail_at(err, BW_ERR_INVALID_ARGUMENT, NULL, 0, where, "%s %d, %s: unknown interpolation %d",
                          label, index, what, (int)t->interp);
    if (t->key_count < 0)
        return bw_fail_at(err, BW_ERR_INVALID_ARGUMENT, NULL, 0, where, "%s %d, %s: negative key count %d", label,
                          index, what, t->key_count);
    if (t->key_count == 0)
        return bw_fail_at(err, BW_ERR_EMPTY, NULL, 0, where, "%s %d, %s: no keys", label, index, what);
    if (!t->times || !t->values)
        return bw_fail_at(err, BW_ERR_INVALID_ARGUMENT, NULL, 0, where, "%s %d, %s: times or values is NULL", label,
                          index, what);

    const int width = bw_channel_width(t->channel);
    const bool cubic = t->interp == BW_INTERP_CUBICSPLINE;
    const int stride = cubic ? 3 * width : width;
    for (int k = 0; k < t->key_count; k++) {
        float tk = t->times[k];
        snprintf(where, sizeof where, "%s[%d].times[%d]", array, index, k);
        if (!isfinite(tk))
            return bw_fail_at(err, BW_ERR_NON_FINITE, NULL, 0, where, "%s %d, %s: key %d time is not finite",
                              label, index, what, k);
        if (k > 0 && tk < t->times[k - 1])
            return bw_fail_at(err, BW_ERR_UNSORTED, NULL, 0, where,
                              "%s %d, %s: key %d time %g is before key %d time %g", label, index, what, k, (double)tk,
                              k - 1, (double)t->times[k - 1]);
        if (k > 0 && tk == t->times[k - 1])
            return bw_fail_at(err, BW_ERR_DUPLICATE, NULL, 0, where,
                              "%s %d, %s: keys %d and %d share the time %g", label, index, what, k - 1, k, (double)tk);
        const float *v = t->values + (size_t)k * (size_t)stride;
        snprintf(where, sizeof where, "%s[%d].values[%d]", array, index, k);
        for (int c = 0; c < stride; c++)
            if (!isfinite(v[c]))
                return bw_fail_at(err, BW_ERR_NON_FINITE, NULL, 0, where, "%s %d, %s: key %d value is not finite",
                                  label, index, what, k);
        if (t->channel == BW_CHANNEL_ROTATION) {
            const float *q = cubic ? v + width : v;
            double n = quat_norm(q);
            if (n == 0.0)
                return bw_fail_at(err, BW_ERR_NON_FINITE, NULL, 0, where,
                                  "%s %d, %s: key %d is the zero quaternion", label, index, what, k);
            if (cubic) /* tangents scale with the value (see clip_internal.h); they must stay finite */
                for (int c = 0; c < stride; c++)
                    if (fabs((double)v[c] / n) > FLT_MAX)
                        return bw_fail_at(err, BW_ERR_NON_FINITE, NULL, 0, where,
                                          "%s %d, %s: key %d tangent overflows when the value is normalized",
                                          label, index, what, k);
        }
        if (!cubic && t->styles && t->styles[k] >= BW_EASE_STYLE_COUNT) {
            snprintf(where, sizeof where, "%s[%d].styles[%d]", array, index, k);
            return bw_fail_at(err, BW_ERR_INVALID_ARGUMENT, NULL, 0, where,
                              "%s %d, %s: key %d has unknown easing style %d", label, index, what, k, t->styles[k]);
        }
        if (!cubic && t->dirs && t->dirs[k] >= BW_EASE_DIR_COUNT) {
            snprintf(where, sizeof where, "%s[%d].dirs[%d]", array, index, k);
            return bw_fail_at(err, BW_ERR_INVALID_ARGUMENT, NULL, 0, where,
                              "%s %d, %s: key %d has unknown easing direction %d", label, index, what, k, t->dirs[k]);
        }
    }
    return BW_OK;
}

/* Two tracks that would drive the same thing: same channel (float and
 * angle count as one: both drive the rig curve) and target. */
static bool same_target(const bw_track_desc *a, const bw_track_desc *b)
{
    if (bw_channel_is_curve(a->channel)) return bw_channel_is_curve(b->channel) && !strcmp(a->joint, b->joint);
    if (a->channel != b->channel || strcmp(a->joint, b->joint)) return false;
    if (!a->parent || !b->parent) return !a->parent && !b->parent;
    return !strcmp(a->parent, b->parent);
}

static uint64_t target_hash(const bw_track_desc *t)
{
    int family = bw_channel_is_curve(t->channel) ? BW_CHANNEL_FLOAT : (int)t->channel;
    uint64_t h = bw_hash_bytes(BW_HASH_SEED, &family, sizeof family);
    h = bw_hash_string(h, t->joint);
    if (!bw_channel_is_curve(t->channel) && t->parent) h = bw_hash_string(h, t->parent);
    return h;
}

typedef struct hash_index {
    uint64_t hash;
    int index;
} hash_index;

static int compare_hash_index(const void *pa, const void *pb)
{
    const hash_index *a = pa, *b = pb;
    if (a->hash != b->hash) return a->hash < b->hash ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

/* Duplicate targets, found by sorting target hashes (a clip may have
 * thousands of tracks; pairwise string compares would be quadratic). */
static bw_result check_duplicates(const bw_track_desc *tracks, int count, const bw_allocator *a, bw_error *err)
{
    if (count < 2) return BW_OK;
    hash_index *h = bw_alloc(a, sizeof *h * (size_t)count);
    if (!h) return bw_fail(err, BW_ERR_OUT_OF_MEMORY, "out of memory checking %d tracks", count);
    for (int i = 0; i < count; i++) {
        h[i].hash = target_hash(&tracks[i]);
        h[i].index = i;
    }
    qsort(h, (size_t)count, sizeof *h, compare_hash_index);
    bw_result r = BW_OK;
    for (int i = 0; i < count && r == BW_OK; i++)
        for (int j = i + 1; j < count && h[j].hash == h[i].hash && r == BW_OK; j++) {
            const bw_track_desc *ta = &tracks[h[i].index], *tb = &tracks[h[j].index];
            if (!same_target(ta, tb)) continue;
            char what[400], where[64];
            describe_target(what, sizeof what, tb->parent, tb->joint, tb->channel);
            snprintf(where, sizeof where, "tracks[%d]", h[j].index);
            r = bw_fail_at(err, BW_ERR_DUPLICATE, NULL, 0, where, "tracks %d and %d both drive %s", h[i].index,
                           h[j].index, what);
        }
    bw_free(a, h, sizeof *h * (size_t)count);
    return r;
}

static bool track_needs_easing(const bw_track_desc *t)
{
    if (t->interp == BW_INTERP_CUBICSPLINE || !t->styles) return false;
    for (int k = 0; k < t->key_count; k++)
        if (t->styles[k] != BW_EASE_LINEAR) return true;
    return false;
}

static size_t string_size(const char *s) { return s ? strlen(s) + 1 : 0; }

static const char *copy_string(char **cursor, const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    memcpy(*cursor, s, n);
    const char *r = *cursor;
    *cursor += n;
    return r;
}

/* Evenly spaced keys (see clip_internal.h for the tolerance). */
static void detect_uniform(bw_track_data *t)
{
    t->uniform = false;
    t->spacing = 0.0f;
    if (t->key_count < 2) return;
    double first = t->times[0], last = t->times[t->key_count - 1];
    double spacing = (last - first) / (double)(t->key_count - 1);
    double tol = 1e-6 * fmax(fabs(first), fabs(last));
    for (int k = 1; k < t->key_count - 1; k++)
        if (fabs((double)t->times[k] - (first + spacing * (double)k)) > tol) return;
    t->uniform = true;
    t->spacing = (float)spacing;
}

typedef struct marker_sort {
    float time;
    int index;
} marker_sort;

static int compare_marker_sort(const void *pa, const void *pb)
{
    const marker_sort *a = pa, *b = pb;
    if (a->time != b->time) return a->time < b->time ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index); /* stable for equal times */
}

/* Validate and build a clip; the common path of bw_clip_create and
 * bw_clip_compile_sequence. */
static bw_result build_clip(const bw_clip_desc *desc, uint64_t sequence_id, uint32_t revision, bw_clip **out_clip,
                            bw_error *err)
{
    if (!desc || !out_clip) return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "clip: desc and out_clip are required");
    const char *clip_name = desc->name ? desc->name : "";
    if (desc->track_count < 0 || (desc->track_count > 0 && !desc->tracks))
        return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "clip \"%s\": bad track array (%d tracks)", clip_name,
                       desc->track_count);
    if (desc->marker_count < 0 || (desc->marker_count > 0 && !desc->markers))
        return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "clip \"%s\": bad marker array (%d markers)", clip_name,
                       desc->marker_count);
    if (!isfinite(desc->length))
        return bw_fail_at(err, BW_ERR_NON_FINITE, NULL, 0, "length", "clip \"%s\": length is not finite", clip_name);

    const bw_allocator *a = &desc->allocator;
    for (int i = 0; i < desc->track_count; i++) {
        bw_result r = check_track(&desc->tracks[i], i, "track", "tracks", err);
        if (r != BW_OK) return r;
    }
    for (int i = 0; i < desc->marker_count; i++) {
        char where[64];
        snprintf(where, sizeof where, "markers[%d]", i);
        const bw_marker_desc *m = &desc->markers[i];
        if (!m->name)
            return bw_fail_at(err, BW_ERR_INVALID_ARGUMENT, NULL, 0, where, "clip \"%s\": marker %d has no name",
                              clip_name, i);
        if (!isfinite(m->time))
            return bw_fail_at(err, BW_ERR_NON_FINITE, NULL, 0, where,
                              "clip \"%s\": marker %d \"%s\" time is not finite", clip_name, i, m->name);
    }
    bw_result r = check_duplicates(desc->tracks, desc->track_count, a, err);
    if (r != BW_OK) return r;

    /* ---- size the block ---- */
    size_t floats = 0, easing_bytes = 0, strings = string_size(clip_name);
    for (int i = 0; i < desc->track_count; i++) {
        const bw_track_desc *t = &desc->tracks[i];
        size_t width = (size_t)bw_channel_width(t->channel);
        size_t stride = t->interp == BW_INTERP_CUBICSPLINE ? 3 * width : width;
        floats += (size_t)t->key_count * (1 + stride);
        if (track_needs_easing(t)) easing_bytes += 2 * (size_t)t->key_count;
        strings += string_size(t->joint) + (bw_channel_is_curve(t->channel) ? 0 : string_size(t->parent));
    }
    for (int i = 0; i < desc->marker_count; i++) strings += string_size(desc->markers[i].name);
    if (floats > (SIZE_MAX / 8) / sizeof(float))
        return bw_fail(err, BW_ERR_LIMIT, "clip \"%s\": too many keys", clip_name);

    size_t off_tracks = bw_align_up(sizeof(struct bw_clip), BW_MAX_ALIGN);
    size_t off_markers = off_tracks + bw_align_up(sizeof(bw_track_data) * (size_t)desc->track_count, BW_MAX_ALIGN);
    size_t off_walk = off_markers + bw_align_up(sizeof(bw_clip_marker) * (size_t)desc->marker_count, BW_MAX_ALIGN);
    size_t walk_bytes = (2 * sizeof(double) + sizeof(int)) * (size_t)desc->marker_count;
    size_t off_floats = off_walk + bw_align_up(walk_bytes, BW_MAX_ALIGN);
    size_t off_easing = off_floats + bw_align_up(sizeof(float) * floats, BW_MAX_ALIGN);
    size_t off_strings = off_easing + bw_align_up(easing_bytes, BW_MAX_ALIGN);
    size_t total = off_strings + strings;

    /* markers are sorted through a scratch index before the block exists,
     * so an allocation failure can still leave nothing behind */
    marker_sort *order = NULL;
    if (desc->marker_count > 0) {
        order = bw_alloc(a, sizeof *order * (size_t)desc->marker_count);
        if (!order) return bw_fail(err, BW_ERR_OUT_OF_MEMORY, "clip \"%s\": out of memory", clip_name);
        for (int i = 0; i < desc->marker_count; i++) {
            order[i].time = desc->markers[i].time;
            order[i].index = i;
        }
        qsort(order, (size_t)desc->marker_count, sizeof *order, compare_marker_sort);
    }

    unsigned char *block = bw_alloc_zeroed(a, total);
    if (!block) {
        if (order) bw_free(a, order, sizeof *order * (size_t)desc->marker_count);
        return bw_fail(err, BW_ERR_OUT_OF_MEMORY, "clip \"%s\": out of memory (%zu bytes)", clip_name, total);
    }

    /* ---- fill ---- */
    bw_clip *clip = (bw_clip *)block;
    clip->allocator = *a;
    clip->alloc_size = total;
    clip->sequence_id = sequence_id;
    clip->revision = revision;
    clip->serial = atomic_fetch_add(&next_serial, 1);
    atomic_init(&clip->refs, 1);
    clip->loop = desc->loop;
    clip->track_count = desc->track_count;
    clip->marker_count = desc->marker_count;
    clip->tracks = (bw_track_data *)(block + off_tracks);
    clip->markers = (bw_clip_marker *)(block + off_markers);
    float *fcur = (float *)(block + off_floats);
    unsigned char *ecur = block + off_easing;
    char *scur = (char *)(block + off_strings);
    clip->name = copy_string(&scur, clip_name);

    float last_time = 0.0f;
    bool any_time = false;
    for (int i = 0; i < desc->track_count; i++) {
        const bw_track_desc *src = &desc->tracks[i];
        bw_track_data *t = &clip->tracks[i];
        const bool cubic = src->interp == BW_INTERP_CUBICSPLINE;
        t->joint = copy_string(&scur, src->joint);
        t->parent = bw_channel_is_curve(src->channel) ? NULL : copy_string(&scur, src->parent);
        t->channel = src->channel;
        t->interp = src->interp;
        t->width = bw_channel_width(src->channel);
        t->stride = cubic ? 3 * t->width : t->width;
        t->key_count = src->key_count;

        float *times = fcur;
        memcpy(times, src->times, sizeof(float) * (size_t)src->key_count);
        fcur += src->key_count;
        float *values = fcur;
        size_t nvalues = (size_t)src->key_count * (size_t)t->stride;
        memcpy(values, src->values, sizeof(float) * nvalues);
        fcur += nvalues;
        if (t->channel == BW_CHANNEL_ROTATION) {
            int off = 0, first = -1;
            double first_len = 1.0;
            for (int k = 0; k < t->key_count; k++) {
                float *v = values + (size_t)k * (size_t)t->stride;
                double n = quat_norm(cubic ? v + t->width : v);
                if (fabs(n - 1.0) > BW_QUAT_WARN_TOLERANCE && off++ == 0) {
                    first = k;
                    first_len = n;
                }
                for (int c = 0; c < t->stride; c++) v[c] = (float)((double)v[c] / n);
            }
            if (off)
                bw_log(&desc->logger, BW_LOG_WARNING,
                       "clip \"%s\": track %d (joint \"%s\" rotation): %d of %d keys were not unit length "
                       "(first: key %d, length %g); normalized",
                       clip_name, i, t->joint, off, t->key_count, first, first_len);
        }
        t->times = times;
        t->values = values;

        if (track_needs_easing(src)) {
            unsigned char *styles = ecur, *dirs = ecur + src->key_count;
            memcpy(styles, src->styles, (size_t)src->key_count);
            if (src->dirs) memcpy(dirs, src->dirs, (size_t)src->key_count);
            /* else zeroed: BW_EASE_IN */
            ecur += 2 * (size_t)src->key_count;
            t->styles = styles;
            t->dirs = dirs;
        }
        detect_uniform(t);
        float tl = times[t->key_count - 1];
        if (!any_time || tl > last_time) last_time = tl;
        any_time = true;
    }

    for (int i = 0; i < desc->marker_count; i++) {
        const bw_marker_desc *m = &desc->markers[order[i].index];
        clip->markers[i].name = copy_string(&scur, m->name);
        clip->markers[i].time = m->time;
        if (!any_time || m->time > last_time) last_time = m->time;
        any_time = true;
    }
    if (order) bw_free(a, order, sizeof *order * (size_t)desc->marker_count);

    if (desc->length > 0.0f) clip->length = desc->length;
    else clip->length = last_time > 0.0f ? last_time : 0.0f;

    double *walk_times = (double *)(block + off_walk), *ring = walk_times + desc->marker_count;
    int *ring_index = (int *)(ring + desc->marker_count);
    for (int i = 0; i < desc->marker_count; i++) walk_times[i] = (double)clip->markers[i].time;
    bw_marker_list_build((double)clip->length, walk_times, desc->marker_count, ring, ring_index);
    clip->marker_list = (bw_marker_list){walk_times, ring, ring_index, desc->marker_count};

    if (bw_clip_grid_build(clip) != BW_OK) {
        bw_free(a, block, total);
        return bw_fail(err, BW_ERR_OUT_OF_MEMORY, "clip \"%s\": out of memory", clip_name);
    }
    *out_clip = clip;
    return BW_OK;
}

bw_result bw_clip_create(const bw_clip_desc *desc, bw_clip **out_clip, bw_error *err)
{
    return build_clip(desc, 0, 0, out_clip, err);
}

void bw_clip_retain(const bw_clip *clip)
{
    /* The count is the one mutable part of a shared clip; the clip itself
     * was allocated non-const, so writing through the cast is defined. */
    if (clip) atomic_fetch_add_explicit(&((bw_clip *)clip)->refs, 1, memory_order_relaxed);
}

void bw_clip_release(const bw_clip *clip)
{
    if (!clip) return;
    bw_clip *c = (bw_clip *)clip;
    /* acq_rel: every other holder's reads happen before the free */
    if (atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) != 1) return;
    bw_clip_grid_free(c);
    bw_allocator a = c->allocator;
    bw_free(&a, c, c->alloc_size);
}

void bw_clip_destroy(bw_clip *clip) { bw_clip_release(clip); }

/* Where `p`, a pointer into `from`'s block, lands in the copy at `to`. */
static const void *relocate(const void *p, const bw_clip *from, unsigned char *to)
{
    return p ? to + ((const unsigned char *)p - (const unsigned char *)from) : NULL;
}

bw_result bw_clip_clone(const bw_clip *src, const bw_allocator *allocator, bw_clip **out, bw_error *err)
{
    if (!src || !out) return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "bw_clip_clone: src and out are required");
    unsigned char *block = bw_alloc(allocator, src->alloc_size);
    if (!block) return bw_fail(err, BW_ERR_OUT_OF_MEMORY, "bw_clip_clone: clip \"%s\": out of memory", src->name);
    /* The sections after the header are position-independent data plus
     * pointers into the block: copy them and move the pointers. The header
     * is copied field by field, never reading the source's reference
     * count, which other threads may be changing. */
    const size_t header = bw_align_up(sizeof(struct bw_clip), BW_MAX_ALIGN);
    memcpy(block + header, (const unsigned char *)src + header, src->alloc_size - header);
    bw_clip *clip = (bw_clip *)block;
    memset(clip, 0, sizeof *clip);
    if (allocator) clip->allocator = *allocator;
    clip->alloc_size = src->alloc_size;
    clip->name = relocate(src->name, src, block);
    clip->length = src->length;
    clip->loop = src->loop;
    clip->sequence_id = src->sequence_id;
    clip->revision = src->revision;
    clip->serial = atomic_fetch_add(&next_serial, 1);
    atomic_init(&clip->refs, 1);
    clip->track_count = src->track_count;
    clip->marker_count = src->marker_count;
    clip->tracks = (bw_track_data *)relocate(src->tracks, src, block);
    clip->markers = (bw_clip_marker *)relocate(src->markers, src, block);
    clip->marker_list = (bw_marker_list){relocate(src->marker_list.times, src, block),
                                         relocate(src->marker_list.ring, src, block),
                                         relocate(src->marker_list.ring_index, src, block), src->marker_count};
    for (int i = 0; i < clip->track_count; i++) {
        bw_track_data *t = &clip->tracks[i];
        t->parent = relocate(t->parent, src, block);
        t->joint = relocate(t->joint, src, block);
        t->times = relocate(t->times, src, block);
        t->values = relocate(t->values, src, block);
        t->styles = relocate(t->styles, src, block);
        t->dirs = relocate(t->dirs, src, block);
    }
    for (int i = 0; i < clip->marker_count; i++)
        clip->markers[i].name = relocate(clip->markers[i].name, src, block);
    /* The grid is derived from the tracks alone, so building it again gives
     * the source's rows bit for bit (and aligns them for this block). */
    if (bw_clip_grid_build(clip) != BW_OK) {
        bw_free(allocator, block, clip->alloc_size);
        return bw_fail(err, BW_ERR_OUT_OF_MEMORY, "bw_clip_clone: clip \"%s\": out of memory", src->name);
    }
    *out = clip;
    return BW_OK;
}

/* ---- keyframe sequences ---- */

#define KEY_ALL_FLAGS (BW_KEY_T | BW_KEY_R | BW_KEY_S | BW_KEY_POSE_WEIGHT | BW_KEY_MASK_WEIGHT)

/* Channel, flag bit and key field of each joint slot, in track order. */
static const struct {
    bw_channel channel;
    unsigned flag;
} joint_channels[5] = {
    {BW_CHANNEL_TRANSLATION, BW_KEY_T},
    {BW_CHANNEL_ROTATION, BW_KEY_R},
    {BW_CHANNEL_SCALE, BW_KEY_S},
    {BW_CHANNEL_POSE_WEIGHT, BW_KEY_POSE_WEIGHT},
    {BW_CHANNEL_MASK_WEIGHT, BW_KEY_MASK_WEIGHT},
};

static const float *key_field(const bw_joint_key *key, bw_channel channel)
{
    switch (channel) {
    case BW_CHANNEL_TRANSLATION: return key->t;
    case BW_CHANNEL_ROTATION: return key->r;
    case BW_CHANNEL_SCALE: return key->s;
    case BW_CHANNEL_POSE_WEIGHT: return &key->pose_weight;
    default: return &key->mask_weight;
    }
}

/* Sequence-level validation of joint keys, so messages name the joint
 * entry and its key index (a channel track's key index differs from the
 * joint key's when some keys leave the channel out). Curves are checked
 * with check_track under their own "curves[i]" path. */
static bw_result check_joint_keys(const bw_joint_keys *jk, int j, bw_error *err)
{
    char where[64];
    snprintf(where, sizeof where, "joints[%d]", j);
    if (!jk->joint || !jk->joint[0])
        return bw_fail_at(err, BW_ERR_INVALID_ARGUMENT, NULL, 0, where, "sequence joint %d has no name", j);
    char who[300];
    if (!jk->parent) snprintf(who, sizeof who, "joint \"%s\" (parent unknown)", jk->joint);
    else if (!jk->parent[0]) snprintf(who, sizeof who, "joint \"%s\" (root)", jk->joint);
    else snprintf(who, sizeof who, "joint \"%s\" (parent \"%s\")", jk->joint, jk->parent);
    if (jk->key_count < 0 || (jk->key_count > 0 && !jk->keys))
        return bw_fail_at(err, BW_ERR_INVALID_ARGUMENT, NULL, 0, where, "sequence joint %d, %s: bad key array", j,
                          who);
    if (jk->key_count == 0)
        return bw_fail_at(err, BW_ERR_EMPTY, NULL, 0, where, "sequence joint %d, %s: no keys", j, who);
    for (int k = 0; k < jk->key_count; k++) {
        const bw_joint_key *key = &jk->keys[k];
        snprintf(where, sizeof where, "joints[%d].keys[%d]", j, k);
        if (!isfinite(key->time))
            return bw_fail_at(err, BW_ERR_NON_FINITE, NULL, 0, where,
                              "sequence joint %d, %s: key %d time is not finite", j, who, k);
        if (k > 0 && key->time < jk->keys[k - 1].time)
            return bw_fail_at(err, BW_ERR_UNSORTED, NULL, 0, where,
                              "sequence joint %d, %s: key %d time %g is before key %d time %g", j, who, k,
                              (double)key->time, k - 1, (double)jk->keys[k - 1].time);
        if (k > 0 && key->time == jk->keys[k - 1].time)
            return bw_fail_at(err, BW_ERR_DUPLICATE, NULL, 0, where,
                              "sequence joint %d, %s: keys %d and %d share the time %g", j, who, k - 1, k,
                              (double)key->time);
        if (key->flags & ~(unsigned)KEY_ALL_FLAGS)
            return bw_fail_at(err, BW_ERR_INVALID_ARGUMENT, NULL, 0, where,
                              "sequence joint %d, %s: key %d has unknown flag bits 0x%x", j, who, k,
                              key->flags & ~(unsigned)KEY_ALL_FLAGS);
        if ((unsigned)key->style >= BW_EASE_STYLE_COUNT || (unsigned)key->dir >= BW_EASE_DIR_COUNT)
            return bw_fail_at(err, BW_ERR_INVALID_ARGUMENT, NULL, 0, where,
                              "sequence joint %d, %s: key %d has unknown easing (style %d, direction %d)", j, who, k,
                              (int)key->style, (int)key->dir);
        for (int c = 0; c < 5; c++) {
            if (!(key->flags & joint_channels[c].flag)) continue;
            const float *v = key_field(key, joint_channels[c].channel);
            int width = bw_channel_width(joint_channels[c].channel);
            for (int i = 0; i < width; i++)
                if (!isfinite(v[i]))
                    return bw_fail_at(err, BW_ERR_NON_FINITE, NULL, 0, where,
                                      "sequence joint %d, %s: key %d %s is not finite", j, who, k,
                                      channel_names[joint_channels[c].channel]);
            if (joint_channels[c].channel == BW_CHANNEL_ROTATION && quat_norm(v) == 0.0)
                return bw_fail_at(err, BW_ERR_NON_FINITE, NULL, 0, where,
                                  "sequence joint %d, %s: key %d rotation is the zero quaternion", j, who, k);
        }
    }
    return BW_OK;
}

bw_result bw_clip_compile_sequence(const bw_sequence_desc *desc, bw_clip **out_clip, bw_error *err)
{
    if (!desc || !out_clip) return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "sequence: desc and out_clip are required");
    if (desc->joint_count < 0 || (desc->joint_count > 0 && !desc->joints))
        return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "sequence: bad joint array (%d joints)", desc->joint_count);
    if (desc->curve_count < 0 || (desc->curve_count > 0 && !desc->curves))
        return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "sequence: bad curve array (%d curves)", desc->curve_count);
    for (int j = 0; j < desc->joint_count; j++) {
        bw_result r = check_joint_keys(&desc->joints[j], j, err);
        if (r != BW_OK) return r;
    }
    for (int i = 0; i < desc->curve_count; i++) {
        const bw_curve_keys *ck = &desc->curves[i];
        bw_track_desc t = {NULL, ck->name, ck->angle ? BW_CHANNEL_ANGLE : BW_CHANNEL_FLOAT, BW_INTERP_EASED,
                           ck->key_count, ck->times, ck->values, ck->styles, ck->dirs};
        bw_result r = check_track(&t, i, "sequence curve", "curves", err);
        if (r != BW_OK) return r;
    }

    /* count the channel tracks and their keys */
    size_t track_count = (size_t)desc->curve_count, floats = 0, bytes = 0;
    for (int j = 0; j < desc->joint_count; j++) {
        const bw_joint_keys *jk = &desc->joints[j];
        for (int c = 0; c < 5; c++) {
            size_t n = 0;
            for (int k = 0; k < jk->key_count; k++) n += (jk->keys[k].flags & joint_channels[c].flag) != 0;
            if (!n) continue;
            track_count++;
            floats += n * (1 + (size_t)bw_channel_width(joint_channels[c].channel));
            bytes += 2 * n;
        }
    }
    if (track_count > (size_t)INT32_MAX)
        return bw_fail(err, BW_ERR_LIMIT, "sequence: too many tracks");

    /* scratch: track descs, then times/values, then styles/dirs */
    const bw_allocator *a = &desc->allocator;
    size_t off_floats = bw_align_up(sizeof(bw_track_desc) * track_count, BW_MAX_ALIGN);
    size_t off_bytes = off_floats + bw_align_up(sizeof(float) * floats, BW_MAX_ALIGN);
    size_t scratch_size = off_bytes + bytes;
    unsigned char *scratch = bw_alloc(a, scratch_size);
    if (!scratch) return bw_fail(err, BW_ERR_OUT_OF_MEMORY, "sequence: out of memory");
    bw_track_desc *tracks = (bw_track_desc *)scratch;
    float *fcur = (float *)(scratch + off_floats);
    unsigned char *bcur = scratch + off_bytes;

    int ti = 0;
    for (int j = 0; j < desc->joint_count; j++) {
        const bw_joint_keys *jk = &desc->joints[j];
        for (int c = 0; c < 5; c++) {
            bw_channel ch = joint_channels[c].channel;
            int width = bw_channel_width(ch), n = 0;
            for (int k = 0; k < jk->key_count; k++) n += (jk->keys[k].flags & joint_channels[c].flag) != 0;
            if (!n) continue;
            bw_track_desc *t = &tracks[ti++];
            memset(t, 0, sizeof *t);
            t->parent = jk->parent;
            t->joint = jk->joint;
            t->channel = ch;
            t->interp = BW_INTERP_EASED;
            t->key_count = n;
            float *times = fcur, *values = fcur + n;
            fcur += (size_t)n * (1 + (size_t)width);
            unsigned char *styles = bcur, *dirs = bcur + n;
            bcur += 2 * (size_t)n;
            int m = 0;
            for (int k = 0; k < jk->key_count; k++) {
                const bw_joint_key *key = &jk->keys[k];
                if (!(key->flags & joint_channels[c].flag)) continue;
                times[m] = key->time;
                memcpy(values + (size_t)m * (size_t)width, key_field(key, ch), sizeof(float) * (size_t)width);
                styles[m] = (unsigned char)key->style;
                dirs[m] = (unsigned char)key->dir;
                m++;
            }
            t->times = times;
            t->values = values;
            t->styles = styles;
            t->dirs = dirs;
        }
    }
    for (int i = 0; i < desc->curve_count; i++) {
        const bw_curve_keys *ck = &desc->curves[i];
        bw_track_desc *t = &tracks[ti++];
        memset(t, 0, sizeof *t);
        t->joint = ck->name;
        t->channel = ck->angle ? BW_CHANNEL_ANGLE : BW_CHANNEL_FLOAT;
        t->interp = BW_INTERP_EASED;
        t->key_count = ck->key_count;
        t->times = ck->times;
        t->values = ck->values;
        t->styles = ck->styles;
        t->dirs = ck->dirs;
    }

    bw_clip_desc cd = {
        .name = desc->name,
        .tracks = tracks,
        .track_count = (int)track_count,
        .markers = desc->markers,
        .marker_count = desc->marker_count,
        .length = desc->length,
        .loop = desc->loop,
        .allocator = desc->allocator,
        .logger = desc->logger,
    };
    bw_result r = build_clip(&cd, desc->sequence_id, desc->revision, out_clip, err);
    bw_free(a, scratch, scratch_size);
    return r;
}

/* ---- queries ---- */

const char *bw_clip_name(const bw_clip *clip) { return clip ? clip->name : ""; }
float bw_clip_length(const bw_clip *clip) { return clip ? clip->length : 0.0f; }
bool bw_clip_loop(const bw_clip *clip) { return clip ? clip->loop : false; }
int bw_clip_track_count(const bw_clip *clip) { return clip ? clip->track_count : 0; }
int bw_clip_marker_count(const bw_clip *clip) { return clip ? clip->marker_count : 0; }
uint64_t bw_clip_sequence_id(const bw_clip *clip) { return clip ? clip->sequence_id : 0; }
uint32_t bw_clip_revision(const bw_clip *clip) { return clip ? clip->revision : 0; }
uint64_t bw_clip_serial(const bw_clip *clip) { return clip ? clip->serial : 0; }

bw_result bw_clip_track(const bw_clip *clip, int track, bw_track_desc *out)
{
    if (!clip || !out) return BW_ERR_INVALID_ARGUMENT;
    if (track < 0 || track >= clip->track_count) return BW_ERR_RANGE;
    const bw_track_data *t = &clip->tracks[track];
    out->parent = t->parent;
    out->joint = t->joint;
    out->channel = t->channel;
    out->interp = t->interp;
    out->key_count = t->key_count;
    out->times = t->times;
    out->values = t->values;
    out->styles = t->styles;
    out->dirs = t->dirs;
    return BW_OK;
}

const char *bw_clip_marker_name(const bw_clip *clip, int marker)
{
    if (!clip || marker < 0 || marker >= clip->marker_count) return NULL;
    return clip->markers[marker].name;
}

float bw_clip_marker_time(const bw_clip *clip, int marker)
{
    if (!clip || marker < 0 || marker >= clip->marker_count) return NAN;
    return clip->markers[marker].time;
}

/* ---- the compile cache ---- */

typedef struct cache_entry {
    uint64_t sequence_id;
    uint32_t revision;
    bw_clip *clip;
} cache_entry;

struct bw_clip_cache {
    bw_allocator allocator;
    cache_entry *entries;
    int count, capacity;
    int compile_count;
};

bw_result bw_clip_cache_create(const bw_allocator *allocator, bw_clip_cache **out_cache)
{
    if (!out_cache) return BW_ERR_INVALID_ARGUMENT;
    bw_clip_cache *c = bw_alloc_zeroed(allocator, sizeof *c);
    if (!c) return BW_ERR_OUT_OF_MEMORY;
    if (allocator) c->allocator = *allocator;
    *out_cache = c;
    return BW_OK;
}

void bw_clip_cache_destroy(bw_clip_cache *cache)
{
    if (!cache) return;
    bw_allocator a = cache->allocator;
    for (int i = 0; i < cache->count; i++) bw_clip_release(cache->entries[i].clip);
    bw_free(&a, cache->entries, sizeof(cache_entry) * (size_t)cache->capacity);
    bw_free(&a, cache, sizeof *cache);
}

bw_result bw_clip_cache_get(bw_clip_cache *cache, const bw_sequence_desc *desc, const bw_clip **out_clip,
                            bw_error *err)
{
    if (!cache || !desc || !out_clip)
        return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "clip cache: cache, desc and out_clip are required");
    int found = -1;
    for (int i = 0; i < cache->count; i++)
        if (cache->entries[i].sequence_id == desc->sequence_id) { found = i; break; }
    if (found >= 0 && cache->entries[found].revision == desc->revision) {
        *out_clip = cache->entries[found].clip;
        return BW_OK;
    }
    /* grow before compiling, so a failed growth leaves no orphan clip */
    if (found < 0 && cache->count == cache->capacity) {
        int cap = cache->capacity ? cache->capacity * 2 : 8;
        cache_entry *e = bw_realloc(&cache->allocator, cache->entries, sizeof *e * (size_t)cache->capacity,
                                    sizeof *e * (size_t)cap);
        if (!e) return bw_fail(err, BW_ERR_OUT_OF_MEMORY, "clip cache: out of memory");
        cache->entries = e;
        cache->capacity = cap;
    }
    bw_clip *clip = NULL;
    bw_result r = bw_clip_compile_sequence(desc, &clip, err);
    if (r != BW_OK) return r; /* the previous revision, if any, stays cached */
    cache->compile_count++;
    if (found >= 0) {
        bw_clip_release(cache->entries[found].clip); /* holders that retained it keep it */
    } else {
        found = cache->count++;
        cache->entries[found].sequence_id = desc->sequence_id;
    }
    cache->entries[found].revision = desc->revision;
    cache->entries[found].clip = clip;
    *out_clip = clip;
    return BW_OK;
}

int bw_clip_cache_compile_count(const bw_clip_cache *cache) { return cache ? cache->compile_count : 0; }
