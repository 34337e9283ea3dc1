/* bind.c - resolving a clip's tracks to rig joints and curves, and the
 * binding cache.
 *
 * All name comparison happens here, once per (clip, rig layout); the
 * binding stores plain indices (per track, and per driven joint a track
 * per channel) so sampling never touches a string. */
#include <stdlib.h>

#include "clip_internal.h"
#include "common.h"

static uint64_t name_hash(bw_channel channel, const char *joint)
{
    int ch = (int)channel;
    uint64_t h = bw_hash_bytes(BW_HASH_SEED, &ch, sizeof ch);
    return bw_hash_string(h, joint);
}

static bool same_parent(const char *a, const char *b)
{
    if (!a || !b) return a == b;
    return !strcmp(a, b);
}

/* A track's name hash (channel + joint name) and index, sorted so that
 * tracks sharing a name are adjacent. */
typedef struct hashed_track {
    uint64_t hash;
    int index;
} hashed_track;

static int compare_hashed(const void *pa, const void *pb)
{
    const hashed_track *a = pa, *b = pb;
    if (a->hash != b->hash) return a->hash < b->hash ? -1 : 1;
    return a->index - b->index;
}

static bool same_name(const bw_track_data *a, const bw_track_data *b)
{
    return a->channel == b->channel && !strcmp(a->joint, b->joint);
}

/* ambiguous[i] = another track of the same channel names a different
 * (parent, joint) with track i's joint name, so a name-only match for
 * track i would be a guess. Sorting by name hash keeps this O(n log n).
 * Two tracks with the same channel, joint and parent are rejected when the
 * clip is built, so within one name every other track has another parent. */
static void mark_ambiguous(const bw_clip *clip, hashed_track *h, unsigned char *ambiguous)
{
    const int n = clip->track_count;
    for (int i = 0; i < n; i++) {
        h[i].hash = name_hash(clip->tracks[i].channel, clip->tracks[i].joint);
        h[i].index = i;
        ambiguous[i] = 0;
    }
    qsort(h, (size_t)n, sizeof *h, compare_hashed);
    for (int start = 0, end; start < n; start = end) {
        for (end = start + 1; end < n && h[end].hash == h[start].hash;) end++;
        if (end - start < 2) continue;
        /* The usual run: one name. Duplicates were rejected, so its tracks
         * all have different parents and each is ambiguous. */
        bool one_name = true;
        for (int r = start + 1; r < end && one_name; r++)
            one_name = same_name(&clip->tracks[h[start].index], &clip->tracks[h[r].index]);
        if (one_name) {
            for (int r = start; r < end; r++) ambiguous[h[r].index] = 1;
            continue;
        }
        /* a hash collision between different names: pair them by name */
        for (int p = start; p < end; p++)
            for (int q = p + 1; q < end; q++) {
                const bw_track_data *a = &clip->tracks[h[p].index], *b = &clip->tracks[h[q].index];
                if (same_name(a, b) && !same_parent(a->parent, b->parent))
                    ambiguous[h[p].index] = ambiguous[h[q].index] = 1;
            }
    }
}

/* Target and status of one track. */
static bw_bind_status resolve(const bw_clip *clip, const unsigned char *ambiguous, int track, const bw_rig *rig,
                              int *out_target)
{
    const bw_track_data *t = &clip->tracks[track];
    *out_target = -1;
    if (bw_channel_is_curve(t->channel)) {
        int c = bw_rig_find_curve(rig, t->joint);
        if (c < 0) return BW_BIND_UNBOUND;
        *out_target = c;
        return BW_BIND_EXACT;
    }
    if (t->parent) {
        int j = bw_rig_find(rig, t->parent, t->joint);
        if (j >= 0) {
            *out_target = j;
            return BW_BIND_EXACT;
        }
    }
    int j = bw_rig_find_by_name(rig, t->joint);
    if (j == -1) return BW_BIND_UNBOUND;
    if (j < 0 || ambiguous[track]) return BW_BIND_AMBIGUOUS;
    *out_target = j;
    return BW_BIND_BY_NAME;
}

static int slot_of(bw_channel channel)
{
    switch (channel) {
    case BW_CHANNEL_TRANSLATION: return BW_SLOT_T;
    case BW_CHANNEL_ROTATION: return BW_SLOT_R;
    case BW_CHANNEL_SCALE: return BW_SLOT_S;
    case BW_CHANNEL_POSE_WEIGHT: return BW_SLOT_POSE_WEIGHT;
    default: return BW_SLOT_MASK_WEIGHT;
    }
}

/* At most this many ambiguous tracks are named one by one in the log. */
#define AMBIGUITY_WARNINGS 8

static void warn_ambiguous(const bw_logger *logger, const bw_clip *clip, const bw_rig *rig,
                           const unsigned char *status, int tracks, int ambiguous_count)
{
    if (!logger->fn || ambiguous_count == 0) return;
    int named = 0;
    for (int i = 0; i < tracks && named < AMBIGUITY_WARNINGS; i++) {
        if (status[i] != BW_BIND_AMBIGUOUS) continue;
        const bw_track_data *t = &clip->tracks[i];
        bw_log(logger, BW_LOG_WARNING,
               "clip '%s': track %d (joint '%s'%s%s%s) matches %s by name alone; it stays unbound", bw_clip_name(clip), i,
               t->joint, t->parent ? " under '" : "", t->parent ? t->parent : "", t->parent ? "'" : "",
               bw_rig_find_by_name(rig, t->joint) == BW_RIG_AMBIGUOUS ? "several joints of the rig"
                                                       : "a joint other tracks of the clip also name");
        named++;
    }
    if (ambiguous_count > named)
        bw_log(logger, BW_LOG_WARNING, "clip '%s': %d more ambiguous tracks stay unbound", bw_clip_name(clip),
               ambiguous_count - named);
}

bw_result bw_binding_create(const bw_binding_desc *desc, bw_binding **out_binding, bw_error *err)
{
    if (!desc || !desc->clip || !desc->rig || !out_binding)
        return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "binding: a desc with clip and rig, and out_binding, are required");
    const bw_clip *clip = desc->clip;
    const bw_rig *rig = desc->rig;
    const uint64_t retarget_id = desc->retarget_id;
    const bw_allocator *allocator = &desc->allocator;
    const int tracks = clip->track_count;
    const int joints = bw_rig_joint_count(rig), curves = bw_rig_curve_count(rig);
    if (joints < 0 || curves < 0) return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "binding: invalid rig");

    /* scratch: per-track name hash, target, status and ambiguity; per-joint
     * slots; per-curve track */
    size_t n_slots = (size_t)joints * BW_SLOT_COUNT;
    size_t scratch_size = sizeof(hashed_track) * (size_t)tracks + sizeof(int) * (size_t)tracks +
                          sizeof(int) * (n_slots + (size_t)curves) + 2 * (size_t)tracks;
    hashed_track *hashes = bw_alloc(allocator, scratch_size);
    if (!hashes) return bw_fail(err, BW_ERR_OUT_OF_MEMORY, "binding: out of memory");
    int *target = (int *)(hashes + tracks);
    int *slots = target + tracks;
    int *curve_track = slots + n_slots;
    unsigned char *status = (unsigned char *)(curve_track + curves);
    unsigned char *ambiguous = status + tracks;

    mark_ambiguous(clip, hashes, ambiguous);
    for (size_t i = 0; i < n_slots; i++) slots[i] = -1;
    for (int i = 0; i < curves; i++) curve_track[i] = -1;

    bw_bind_report report = {0, 0, 0, 0};
    for (int i = 0; i < tracks; i++) {
        bw_bind_status s = resolve(clip, ambiguous, i, rig, &target[i]);
        if (target[i] >= (bw_channel_is_curve(clip->tracks[i].channel) ? curves : joints)) { /* defensive */
            target[i] = -1;
            s = BW_BIND_UNBOUND;
        }
        status[i] = (unsigned char)s;
        switch (s) {
        case BW_BIND_EXACT: report.bound++; break;
        case BW_BIND_BY_NAME: report.bound++; report.by_name++; break;
        case BW_BIND_AMBIGUOUS: report.ambiguous++; break;
        default: report.unbound++; break;
        }
    }
    /* Exact matches claim their slots before name-only ones; creation
     * rejects duplicate targets and name-only matches that collide with
     * another track are ambiguous, so this order only matters defensively. */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < tracks; i++) {
            if (target[i] < 0 || (pass == 0) != (status[i] == BW_BIND_EXACT)) continue;
            const bw_track_data *t = &clip->tracks[i];
            int *slot = bw_channel_is_curve(t->channel) ? &curve_track[target[i]]
                                                     : &slots[(size_t)target[i] * BW_SLOT_COUNT + slot_of(t->channel)];
            if (*slot < 0) *slot = i;
        }

    int driven_joints = 0, driven_curves = 0;
    for (int j = 0; j < joints; j++)
        for (int s = 0; s < BW_SLOT_COUNT; s++)
            if (slots[(size_t)j * BW_SLOT_COUNT + s] >= 0) { driven_joints++; break; }
    for (int c = 0; c < curves; c++) driven_curves += curve_track[c] >= 0;

    size_t off_targets = bw_align_up(sizeof(struct bw_binding), BW_MAX_ALIGN);
    size_t off_status = off_targets + bw_align_up(sizeof(int) * (size_t)tracks, BW_MAX_ALIGN);
    size_t off_joints = off_status + bw_align_up((size_t)tracks, BW_MAX_ALIGN);
    size_t off_curves = off_joints + bw_align_up(sizeof(bw_joint_binding) * (size_t)driven_joints, BW_MAX_ALIGN);
    size_t total = off_curves + sizeof(bw_curve_binding) * (size_t)driven_curves;
    unsigned char *block = bw_alloc_zeroed(allocator, total);
    if (!block) {
        bw_free(allocator, hashes, scratch_size);
        return bw_fail(err, BW_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    bw_binding *b = (bw_binding *)block;
    b->allocator = desc->allocator;
    b->alloc_size = total;
    b->clip = clip;
    b->layout_signature = bw_rig_layout_signature(rig);
    b->topology_revision = bw_rig_topology_revision(rig);
    b->retarget_id = retarget_id;
    b->joint_count = joints;
    b->curve_count = curves;
    b->track_count = tracks;
    b->targets = (int *)(block + off_targets);
    b->status = block + off_status;
    b->report = report;
    b->driven_joint_count = driven_joints;
    b->driven_joints = (bw_joint_binding *)(block + off_joints);
    b->driven_curve_count = driven_curves;
    b->driven_curves = (bw_curve_binding *)(block + off_curves);
    if (tracks > 0) {
        memcpy(b->targets, target, sizeof(int) * (size_t)tracks);
        memcpy(b->status, status, (size_t)tracks);
    }
    int dj = 0;
    for (int j = 0; j < joints; j++) {
        const int *s = &slots[(size_t)j * BW_SLOT_COUNT];
        bool any = false;
        for (int k = 0; k < BW_SLOT_COUNT; k++) any |= s[k] >= 0;
        if (!any) continue;
        b->driven_joints[dj].joint = j;
        memcpy(b->driven_joints[dj].track, s, sizeof(int) * BW_SLOT_COUNT);
        dj++;
    }
    int dc = 0;
    for (int c = 0; c < curves; c++)
        if (curve_track[c] >= 0) {
            b->driven_curves[dc].curve = c;
            b->driven_curves[dc].track = curve_track[c];
            dc++;
        }
    bw_free(allocator, hashes, scratch_size);
    if (bw_binding_grid_build(b) != BW_OK) {
        bw_free(allocator, block, total);
        return bw_fail(err, BW_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    warn_ambiguous(&desc->logger, clip, rig, b->status, tracks, report.ambiguous);
    *out_binding = b;
    return BW_OK;
}

void bw_binding_destroy(bw_binding *binding)
{
    if (!binding) return;
    bw_binding_grid_free(binding);
    bw_allocator a = binding->allocator;
    bw_free(&a, binding, binding->alloc_size);
}

bw_bind_report bw_binding_report(const bw_binding *binding)
{
    bw_bind_report none = {0, 0, 0, 0};
    return binding ? binding->report : none;
}

bw_bind_status bw_binding_track_status(const bw_binding *binding, int track)
{
    if (!binding || track < 0 || track >= binding->track_count) return BW_BIND_UNBOUND;
    return (bw_bind_status)binding->status[track];
}

int bw_binding_track_target(const bw_binding *binding, int track)
{
    if (!binding || track < 0 || track >= binding->track_count) return -1;
    return binding->targets[track];
}

const bw_clip *bw_binding_clip(const bw_binding *binding) { return binding ? binding->clip : NULL; }
uint64_t bw_binding_layout_signature(const bw_binding *binding) { return binding ? binding->layout_signature : 0; }
uint32_t bw_binding_topology_revision(const bw_binding *binding) { return binding ? binding->topology_revision : 0; }
uint64_t bw_binding_retarget_id(const bw_binding *binding) { return binding ? binding->retarget_id : 0; }

/* ---- the binding cache ---- */

typedef struct binding_entry {
    uint64_t clip_serial;
    uint64_t layout_signature;
    uint64_t curve_signature; /* same joints but other curves: other targets */
    uint32_t topology_revision;
    uint64_t retarget_id;
    uint64_t rig_serial; /* the rig that made it: finds the entry a topology
                            change of that rig replaces */
    bool shared;         /* another rig (same layout) was handed it too, so a
                            topology change of the first must not free it */
    bw_binding *binding;
} binding_entry;

struct bw_binding_cache {
    bw_allocator allocator;
    binding_entry *entries;
    int count, capacity;
    int create_count;
};

bw_result bw_binding_cache_create(const bw_allocator *allocator, bw_binding_cache **out_cache)
{
    if (!out_cache) return BW_ERR_INVALID_ARGUMENT;
    bw_binding_cache *c = bw_alloc_zeroed(allocator, sizeof *c);
    if (!c) return BW_ERR_OUT_OF_MEMORY;
    if (allocator) c->allocator = *allocator;
    *out_cache = c;
    return BW_OK;
}

void bw_binding_cache_destroy(bw_binding_cache *cache)
{
    if (!cache) return;
    bw_allocator a = cache->allocator;
    for (int i = 0; i < cache->count; i++) bw_binding_destroy(cache->entries[i].binding);
    bw_free(&a, cache->entries, sizeof(binding_entry) * (size_t)cache->capacity);
    bw_free(&a, cache, sizeof *cache);
}

bw_result bw_binding_cache_get(bw_binding_cache *cache, const bw_clip *clip, const bw_rig *rig,
                               uint64_t retarget_id, const bw_binding **out_binding, bw_error *err)
{
    if (!cache || !clip || !rig || !out_binding)
        return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "binding cache: cache, clip, rig and out_binding are required");
    const uint64_t serial = clip->serial, signature = bw_rig_layout_signature(rig);
    const uint64_t rig_serial = bw_rig_serial(rig), curves = bw_rig_curve_signature(rig);
    const uint32_t revision = bw_rig_topology_revision(rig);
    int replace = -1;
    for (int i = 0; i < cache->count; i++) {
        binding_entry *e = &cache->entries[i];
        if (e->clip_serial != serial || e->retarget_id != retarget_id) continue;
        if (e->layout_signature == signature && e->topology_revision == revision && e->curve_signature == curves) {
            if (e->rig_serial != rig_serial) e->shared = true;
            *out_binding = e->binding;
            return BW_OK;
        }
        if (e->rig_serial == rig_serial && !e->shared) replace = i;
    }
    if (replace < 0 && cache->count == cache->capacity) {
        int cap = cache->capacity ? cache->capacity * 2 : 8;
        binding_entry *e = bw_realloc(&cache->allocator, cache->entries, sizeof *e * (size_t)cache->capacity,
                                      sizeof *e * (size_t)cap);
        if (!e) return bw_fail(err, BW_ERR_OUT_OF_MEMORY, "binding cache: out of memory");
        cache->entries = e;
        cache->capacity = cap;
    }
    bw_binding *b = NULL;
    bw_binding_desc desc = {.clip = clip, .rig = rig, .retarget_id = retarget_id, .allocator = cache->allocator};
    bw_result r = bw_binding_create(&desc, &b, err);
    if (r != BW_OK) return r;
    cache->create_count++;
    if (replace >= 0) bw_binding_destroy(cache->entries[replace].binding);
    else replace = cache->count++;
    binding_entry *e = &cache->entries[replace];
    e->clip_serial = serial;
    e->layout_signature = signature;
    e->curve_signature = curves;
    e->topology_revision = revision;
    e->retarget_id = retarget_id;
    e->rig_serial = rig_serial;
    e->shared = false;
    e->binding = b;
    *out_binding = b;
    return BW_OK;
}

int bw_binding_cache_create_count(const bw_binding_cache *cache) { return cache ? cache->create_count : 0; }

void bw_binding_cache_remove_clip(bw_binding_cache *cache, const bw_clip *clip)
{
    if (!cache || !clip) return;
    const uint64_t serial = clip->serial;
    int kept = 0;
    for (int i = 0; i < cache->count; i++) {
        if (cache->entries[i].clip_serial == serial) bw_binding_destroy(cache->entries[i].binding);
        else cache->entries[kept++] = cache->entries[i];
    }
    cache->count = kept;
}
