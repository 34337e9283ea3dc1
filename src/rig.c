/* rig.c - skeletons: validation, storage, name index, revision and layout
 * signature (SPEC §1).
 *
 * Joints live in parallel arrays (names, parents, rest transforms) so that
 * bw_rig_parents and bw_rig_rest_pose can hand out plain arrays. Name
 * lookups go through `order`, the joint indices sorted by (name, parent
 * name); duplicate detection is then a neighbour comparison. Curves get the
 * same treatment by name. None of this is per-frame code.
 */
#include "blendwerk/rig.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "common.h"

struct bw_rig {
    bw_allocator alloc_copy;
    const bw_allocator *alloc; /* &alloc_copy, or NULL for the C library */

    int joint_count;
    int joint_capacity;
    char **names;
    int *parents;
    bw_transform *rest;
    int *order; /* joint indices sorted by (name, parent name) */

    int curve_count;
    char **curve_names;
    bw_curve_kind *curve_kinds;
    float *curve_rest;
    int *curve_order; /* curve indices sorted by name */

    uint32_t revision;
    uint64_t signature;
    uint64_t curve_signature; /* FNV-1a of curve names and kinds, in order */
    uint64_t serial; /* process-unique, from 1; a clone gets its own */
};

/* Process-unique rig serials: the binding cache tells rigs apart by them,
 * so a rig created at a reused address is never taken for a destroyed one. */
static atomic_uint_fast64_t next_serial = 1;

/* ---- sorting index arrays with a context (qsort has none in C11) ---- */

typedef int (*index_cmp)(const bw_rig *rig, int a, int b);

/* Bottom-up merge sort of v[0..n) using tmp[0..n); stable. */
static void sort_indices(int *v, int *tmp, int n, index_cmp cmp, const bw_rig *rig)
{
    int *src = v, *dst = tmp;
    for (int width = 1; width < n; width *= 2) {
        for (int lo = 0; lo < n; lo += 2 * width) {
            int mid = lo + width < n ? lo + width : n;
            int hi = lo + 2 * width < n ? lo + 2 * width : n;
            int i = lo, j = mid, k = lo;
            while (i < mid && j < hi) dst[k++] = cmp(rig, src[j], src[i]) < 0 ? src[j++] : src[i++];
            while (i < mid) dst[k++] = src[i++];
            while (j < hi) dst[k++] = src[j++];
        }
        int *t = src;
        src = dst;
        dst = t;
    }
    if (src != v) memcpy(v, src, (size_t)n * sizeof *v);
}

static const char *parent_name_of(const bw_rig *rig, int joint)
{
    int p = rig->parents[joint];
    return p >= 0 ? rig->names[p] : "";
}

static int joint_key_cmp(const bw_rig *rig, int a, int b)
{
    int c = strcmp(rig->names[a], rig->names[b]);
    return c ? c : strcmp(parent_name_of(rig, a), parent_name_of(rig, b));
}

static int curve_key_cmp(const bw_rig *rig, int a, int b)
{
    return strcmp(rig->curve_names[a], rig->curve_names[b]);
}

/* First position in rig->order whose joint name is >= name. */
static int joint_lower_bound(const bw_rig *rig, const char *name)
{
    int lo = 0, hi = rig->joint_count;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (strcmp(rig->names[rig->order[mid]], name) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* ---- validation helpers ---- */

/* The layout signature folds each joint's name (with its terminator, so
 * "ab","c" and "a","bc" differ) and its parent index as 4 little-endian
 * bytes, in joint order. Appending a joint therefore extends the fold. */
static uint64_t hash_joint(uint64_t h, const char *name, int parent)
{
    uint32_t p = (uint32_t)parent;
    unsigned char bytes[4] = {(unsigned char)(p & 0xffu), (unsigned char)((p >> 8) & 0xffu),
                              (unsigned char)((p >> 16) & 0xffu), (unsigned char)((p >> 24) & 0xffu)};
    return bw_hash_bytes(bw_hash_string(h, name), bytes, sizeof bytes);
}

/* Normalize a rest rotation, scaling by the largest component first so that
 * huge finite components do not overflow the squared norm. 0 when the
 * quaternion is zero or non-finite. */
static int normalize_rest_rotation(const float *q, float *out)
{
    if (!bw_isfinite4(q)) return 0;
    float m = 0.0f;
    for (int i = 0; i < 4; i++) {
        float a = fabsf(q[i]);
        if (a > m) m = a;
    }
    if (!(m > 0.0f)) return 0;
    float v[4] = {q[0] / m, q[1] / m, q[2] / m, q[3] / m};
    float n = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
    for (int i = 0; i < 4; i++) out[i] = v[i] / n;
    return 1;
}

/* One warning per rest rotation whose length was not 1 (to the tolerance
 * clips use): the rig stores it normalized, which the author may not have
 * meant (a quaternion written in the wrong order, say). */
static void warn_unnormalized_rest(const bw_logger *logger, const bw_rig_joint_desc *joints, int n)
{
    if (!logger->fn) return;
    for (int i = 0; i < n; i++) {
        const float *q = joints[i].rest.r;
        double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
        if (fabs(len - 1.0) > BW_QUAT_WARN_TOLERANCE)
            bw_log(logger, BW_LOG_WARNING, "rig: joint '%s' (index %d): rest rotation had length %g; normalized",
                   joints[i].name, i, len);
    }
}

/* Check a rest transform and produce its stored (normalized) form. */
static bw_result prepare_rest(const bw_transform *in, bw_transform *out, bw_error *err, const char *what,
                              int index, const char *name)
{
    char where[64];
    bw_transform x = *in;
    if (!bw_isfinite3(x.t) || !bw_isfinite3(x.s) || !normalize_rest_rotation(in->r, x.r)) {
        snprintf(where, sizeof where, "%s[%d]", what, index);
        return bw_fail_at(err, BW_ERR_NON_FINITE, NULL, 0, where,
                          "joint '%s' (index %d): rest transform is not finite or its rotation is zero", name,
                          index);
    }
    *out = x;
    return BW_OK;
}

static bw_result check_name(const char *name, bw_error *err, const char *what, const char *kind, int index)
{
    char where[64];
    snprintf(where, sizeof where, "%s[%d]", what, index);
    if (!name) return bw_fail_at(err, BW_ERR_INVALID_ARGUMENT, NULL, 0, where, "%s %d has no name (NULL)", kind, index);
    if (!name[0]) return bw_fail_at(err, BW_ERR_EMPTY, NULL, 0, where, "%s %d has an empty name", kind, index);
    return BW_OK;
}

/* Parent ranges, order and cycles of desc joints (names already checked). */
static bw_result check_parents(const bw_rig_joint_desc *joints, int n, bw_error *err)
{
    char where[64];
    for (int i = 0; i < n; i++) {
        int p = joints[i].parent;
        if (p < -1 || p >= n) {
            snprintf(where, sizeof where, "joints[%d]", i);
            return bw_fail_at(err, BW_ERR_RANGE, NULL, 0, where,
                              "joint '%s' (index %d): parent index %d is outside [-1, %d)", joints[i].name, i, p, n);
        }
    }
    for (int i = 0; i < n; i++) {
        int p = joints[i].parent;
        if (p < i) continue;
        snprintf(where, sizeof where, "joints[%d]", i);
        if (p == i)
            return bw_fail_at(err, BW_ERR_CYCLE, NULL, 0, where, "joint '%s' (index %d) is its own parent",
                              joints[i].name, i);
        /* A parent after its child is either a misordered tree (the chain
         * reaches a root) or a loop: walk at most n steps to tell which. */
        int cur = i, steps = 0;
        while (cur >= 0 && steps <= n) {
            cur = joints[cur].parent;
            steps++;
            if (cur == i) break;
        }
        if (cur >= 0)
            return bw_fail_at(err, BW_ERR_CYCLE, NULL, 0, where,
                              "joint '%s' (index %d): cyclic parents (its parent chain through '%s' loops)",
                              joints[i].name, i, joints[p].name);
        return bw_fail_at(err, BW_ERR_ORDER, NULL, 0, where,
                          "joint '%s' (index %d): parent '%s' (index %d) is listed after it; joints must be "
                          "stored parent-first",
                          joints[i].name, i, joints[p].name, p);
    }
    return BW_OK;
}

/* ---- creation ---- */

static void free_joint_arrays(const bw_allocator *a, char **names, int *parents, bw_transform *rest, int *order,
                              int count, int capacity)
{
    if (names)
        for (int i = 0; i < count; i++) bw_free_string(a, names[i]);
    bw_free(a, names, (size_t)capacity * sizeof *names);
    bw_free(a, parents, (size_t)capacity * sizeof *parents);
    bw_free(a, rest, (size_t)capacity * sizeof *rest);
    bw_free(a, order, (size_t)capacity * sizeof *order);
}

void bw_rig_destroy(bw_rig *rig)
{
    if (!rig) return;
    const bw_allocator *a = rig->alloc;
    free_joint_arrays(a, rig->names, rig->parents, rig->rest, rig->order, rig->joint_count, rig->joint_capacity);
    if (rig->curve_names)
        for (int i = 0; i < rig->curve_count; i++) bw_free_string(a, rig->curve_names[i]);
    size_t cn = (size_t)rig->curve_count;
    bw_free(a, rig->curve_names, cn * sizeof *rig->curve_names);
    bw_free(a, rig->curve_kinds, cn * sizeof *rig->curve_kinds);
    bw_free(a, rig->curve_rest, cn * sizeof *rig->curve_rest);
    bw_free(a, rig->curve_order, cn * sizeof *rig->curve_order);
    /* The rig holds a copy of the allocator, so read it out before freeing. */
    bw_allocator copy = rig->alloc_copy;
    bw_free(rig->alloc ? &copy : NULL, rig, sizeof *rig);
}

bw_result bw_rig_create(const bw_rig_desc *desc, bw_rig **out_rig, bw_error *err)
{
    if (!desc || !out_rig) return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "bw_rig_create: desc and out_rig are required");
    int n = desc->joint_count, nc = desc->curve_count;
    if (n < 0 || nc < 0)
        return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "bw_rig_create: negative joint_count (%d) or curve_count (%d)", n,
                       nc);
    if (n > BW_RIG_MAX_JOINTS || nc > BW_RIG_MAX_CURVES)
        return bw_fail(err, BW_ERR_LIMIT, "bw_rig_create: %d joints / %d curves exceed the limits (%d / %d)", n, nc,
                       BW_RIG_MAX_JOINTS, BW_RIG_MAX_CURVES);
    if ((n > 0 && !desc->joints) || (nc > 0 && !desc->curves))
        return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "bw_rig_create: joints or curves array is NULL");

    bw_result r;
    for (int i = 0; i < n; i++)
        if ((r = check_name(desc->joints[i].name, err, "joints", "joint", i)) != BW_OK) return r;
    if ((r = check_parents(desc->joints, n, err)) != BW_OK) return r;
    for (int i = 0; i < nc; i++) {
        const bw_rig_curve_desc *c = &desc->curves[i];
        if ((r = check_name(c->name, err, "curves", "curve", i)) != BW_OK) return r;
        char where[64];
        snprintf(where, sizeof where, "curves[%d]", i);
        if (c->kind != BW_CURVE_FLOAT && c->kind != BW_CURVE_ANGLE)
            return bw_fail_at(err, BW_ERR_INVALID_ARGUMENT, NULL, 0, where, "curve '%s' (index %d): unknown kind %d",
                              c->name, i, (int)c->kind);
        if (!isfinite(c->rest))
            return bw_fail_at(err, BW_ERR_NON_FINITE, NULL, 0, where, "curve '%s' (index %d): rest value is not finite",
                              c->name, i);
    }

    bw_rig *rig = (bw_rig *)bw_alloc_zeroed(&desc->allocator, sizeof *rig);
    if (!rig) return bw_fail(err, BW_ERR_OUT_OF_MEMORY, "bw_rig_create: out of memory");
    rig->alloc_copy = desc->allocator;
    rig->alloc = &rig->alloc_copy;
    const bw_allocator *a = rig->alloc;
    rig->revision = 1;
    rig->signature = BW_HASH_SEED;
    rig->serial = atomic_fetch_add(&next_serial, 1);

    /* Capacity at least 1 so add_joint on an empty rig has arrays to grow. */
    int cap = n > 0 ? n : 1;
    rig->joint_capacity = cap;
    rig->names = (char **)bw_alloc_zeroed(a, (size_t)cap * sizeof *rig->names);
    rig->parents = (int *)bw_alloc(a, (size_t)cap * sizeof *rig->parents);
    rig->rest = (bw_transform *)bw_alloc(a, (size_t)cap * sizeof *rig->rest);
    rig->order = (int *)bw_alloc(a, (size_t)cap * sizeof *rig->order);
    size_t cc = (size_t)nc;
    rig->curve_count = nc;
    rig->curve_names = (char **)bw_alloc_zeroed(a, cc * sizeof *rig->curve_names);
    rig->curve_kinds = (bw_curve_kind *)bw_alloc(a, cc * sizeof *rig->curve_kinds);
    rig->curve_rest = (float *)bw_alloc(a, cc * sizeof *rig->curve_rest);
    rig->curve_order = (int *)bw_alloc(a, cc * sizeof *rig->curve_order);
    int *tmp = (int *)bw_alloc(a, (size_t)(n > nc ? n : nc) * sizeof(int));
    size_t tmp_size = (size_t)(n > nc ? n : nc) * sizeof(int);
    if (!rig->names || !rig->parents || !rig->rest || !rig->order || !rig->curve_names || !rig->curve_kinds ||
        !rig->curve_rest || !rig->curve_order || !tmp)
        goto oom;

    for (int i = 0; i < n; i++) {
        const bw_rig_joint_desc *j = &desc->joints[i];
        if ((r = prepare_rest(&j->rest, &rig->rest[i], err, "joints", i, j->name)) != BW_OK) goto fail;
        rig->parents[i] = j->parent;
        if (!(rig->names[i] = bw_strdup(a, j->name))) goto oom;
        rig->joint_count = i + 1; /* so destroy frees exactly the copied names */
        rig->order[i] = i;
        rig->signature = hash_joint(rig->signature, j->name, j->parent);
    }
    rig->curve_signature = BW_HASH_SEED;
    for (int i = 0; i < nc; i++) {
        if (!(rig->curve_names[i] = bw_strdup(a, desc->curves[i].name))) goto oom;
        unsigned char kind = (unsigned char)desc->curves[i].kind;
        rig->curve_signature = bw_hash_bytes(bw_hash_string(rig->curve_signature, rig->curve_names[i]), &kind, 1);
        rig->curve_kinds[i] = desc->curves[i].kind;
        rig->curve_rest[i] = desc->curves[i].rest;
        rig->curve_order[i] = i;
    }

    sort_indices(rig->order, tmp, n, joint_key_cmp, rig);
    for (int k = 1; k < n; k++) {
        int x = rig->order[k - 1], y = rig->order[k];
        if (joint_key_cmp(rig, x, y) == 0) {
            int hi = x < y ? y : x;
            char where[64];
            snprintf(where, sizeof where, "joints[%d]", hi);
            const char *pn = parent_name_of(rig, hi);
            r = bw_fail_at(err, BW_ERR_DUPLICATE, NULL, 0, where,
                           "joint '%s' appears twice under %s%s%s (a (parent, name) pair must be unique)",
                           rig->names[hi], pn[0] ? "parent '" : "the root", pn, pn[0] ? "'" : "");
            goto fail;
        }
    }
    sort_indices(rig->curve_order, tmp, nc, curve_key_cmp, rig);
    for (int k = 1; k < nc; k++) {
        int x = rig->curve_order[k - 1], y = rig->curve_order[k];
        if (curve_key_cmp(rig, x, y) == 0) {
            int hi = x < y ? y : x;
            char where[64];
            snprintf(where, sizeof where, "curves[%d]", hi);
            r = bw_fail_at(err, BW_ERR_DUPLICATE, NULL, 0, where, "curve '%s' (index %d) duplicates curve %d",
                           rig->curve_names[hi], hi, x < y ? x : y);
            goto fail;
        }
    }
    bw_free(a, tmp, tmp_size);
    warn_unnormalized_rest(&desc->logger, desc->joints, n);
    *out_rig = rig;
    return BW_OK;

oom:
    r = bw_fail(err, BW_ERR_OUT_OF_MEMORY, "bw_rig_create: out of memory");
fail:
    bw_free(a, tmp, tmp_size);
    bw_rig_destroy(rig);
    return r;
}

/* ---- cloning ---- */

/* `capacity` elements of `size` bytes, the first `count` copied from src. */
static void *clone_array(const bw_allocator *a, const void *src, size_t count, size_t capacity, size_t size)
{
    void *p = bw_alloc(a, capacity * size);
    if (p && count) memcpy(p, src, count * size);
    return p;
}

bw_result bw_rig_clone(const bw_rig *src, const bw_allocator *allocator, bw_rig **out, bw_error *err)
{
    if (!src || !out) return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "bw_rig_clone: src and out are required");
    bw_allocator copy = {0};
    if (allocator) copy = *allocator;
    bw_rig *rig = (bw_rig *)bw_alloc_zeroed(allocator ? &copy : NULL, sizeof *rig);
    if (!rig) return bw_fail(err, BW_ERR_OUT_OF_MEMORY, "bw_rig_clone: out of memory");
    rig->alloc_copy = copy;
    rig->alloc = allocator ? &rig->alloc_copy : NULL;
    const bw_allocator *a = rig->alloc;
    const size_t n = (size_t)src->joint_count, cn = (size_t)src->curve_count;
    const size_t cap = n > 0 ? n : 1; /* as bw_rig_create: add_joint needs arrays to grow */
    /* joint_count stays 0 until names are copied, so destroy on failure
     * frees exactly what exists */
    rig->joint_capacity = (int)cap;
    rig->names = (char **)bw_alloc_zeroed(a, cap * sizeof *rig->names);
    rig->parents = (int *)clone_array(a, src->parents, n, cap, sizeof *rig->parents);
    rig->rest = (bw_transform *)clone_array(a, src->rest, n, cap, sizeof *rig->rest);
    rig->order = (int *)clone_array(a, src->order, n, cap, sizeof *rig->order);
    rig->curve_names = (char **)bw_alloc_zeroed(a, cn * sizeof *rig->curve_names);
    rig->curve_kinds = (bw_curve_kind *)clone_array(a, src->curve_kinds, cn, cn, sizeof *rig->curve_kinds);
    rig->curve_rest = (float *)clone_array(a, src->curve_rest, cn, cn, sizeof *rig->curve_rest);
    rig->curve_order = (int *)clone_array(a, src->curve_order, cn, cn, sizeof *rig->curve_order);
    rig->curve_count = (int)cn;
    bool ok = rig->names && rig->parents && rig->rest && rig->order && rig->curve_names && rig->curve_kinds &&
              rig->curve_rest && rig->curve_order;
    for (size_t i = 0; ok && i < n; i++) {
        ok = (rig->names[i] = bw_strdup(a, src->names[i])) != NULL;
        rig->joint_count = (int)i + 1;
    }
    for (size_t i = 0; ok && i < cn; i++) ok = (rig->curve_names[i] = bw_strdup(a, src->curve_names[i])) != NULL;
    if (!ok) {
        bw_rig_destroy(rig);
        return bw_fail(err, BW_ERR_OUT_OF_MEMORY, "bw_rig_clone: out of memory");
    }
    rig->revision = src->revision;
    rig->signature = src->signature;
    rig->curve_signature = src->curve_signature;
    rig->serial = atomic_fetch_add(&next_serial, 1);
    *out = rig;
    return BW_OK;
}

/* ---- queries ---- */

int bw_rig_joint_count(const bw_rig *rig) { return rig ? rig->joint_count : 0; }

const char *bw_rig_joint_name(const bw_rig *rig, int joint)
{
    return rig && joint >= 0 && joint < rig->joint_count ? rig->names[joint] : NULL;
}

int bw_rig_joint_parent(const bw_rig *rig, int joint)
{
    return rig && joint >= 0 && joint < rig->joint_count ? rig->parents[joint] : -1;
}

const int *bw_rig_parents(const bw_rig *rig) { return rig ? rig->parents : NULL; }
const bw_transform *bw_rig_rest_pose(const bw_rig *rig) { return rig ? rig->rest : NULL; }

int bw_rig_curve_count(const bw_rig *rig) { return rig ? rig->curve_count : 0; }

const char *bw_rig_curve_name(const bw_rig *rig, int curve)
{
    return rig && curve >= 0 && curve < rig->curve_count ? rig->curve_names[curve] : NULL;
}

bw_curve_kind bw_rig_curve_kind(const bw_rig *rig, int curve)
{
    return rig && curve >= 0 && curve < rig->curve_count ? rig->curve_kinds[curve] : BW_CURVE_FLOAT;
}

const float *bw_rig_curve_rest(const bw_rig *rig) { return rig ? rig->curve_rest : NULL; }

int bw_rig_find_curve(const bw_rig *rig, const char *name)
{
    if (!rig || !name) return -1;
    int lo = 0, hi = rig->curve_count;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        int c = strcmp(rig->curve_names[rig->curve_order[mid]], name);
        if (c == 0) return rig->curve_order[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

int bw_rig_find(const bw_rig *rig, const char *parent_name, const char *name)
{
    if (!rig || !name) return -1;
    int k = joint_lower_bound(rig, name);
    int found = -1;
    /* Entries with this name are contiguous and sorted by parent name. */
    for (; k < rig->joint_count && strcmp(rig->names[rig->order[k]], name) == 0; k++) {
        int j = rig->order[k];
        if (parent_name) {
            if (strcmp(parent_name_of(rig, j), parent_name) == 0) return j;
        } else {
            if (found >= 0) return BW_RIG_AMBIGUOUS;
            found = j;
        }
    }
    return found;
}

int bw_rig_find_by_name(const bw_rig *rig, const char *name) { return bw_rig_find(rig, NULL, name); }

uint32_t bw_rig_topology_revision(const bw_rig *rig) { return rig ? rig->revision : 0; }
uint64_t bw_rig_layout_signature(const bw_rig *rig) { return rig ? rig->signature : 0; }
uint64_t bw_rig_serial(const bw_rig *rig) { return rig ? rig->serial : 0; }
uint64_t bw_rig_curve_signature(const bw_rig *rig) { return rig ? rig->curve_signature : 0; }

/* ---- edits ---- */

bw_result bw_rig_set_rest(bw_rig *rig, int joint, const bw_transform *rest)
{
    if (!rig || !rest) return BW_ERR_INVALID_ARGUMENT;
    if (joint < 0 || joint >= rig->joint_count) return BW_ERR_RANGE;
    bw_transform x;
    bw_result r = prepare_rest(rest, &x, NULL, "joints", joint, rig->names[joint]);
    if (r != BW_OK) return r;
    rig->rest[joint] = x;
    return BW_OK;
}

bw_result bw_rig_add_joint(bw_rig *rig, const bw_rig_joint_desc *joint, bw_error *err)
{
    if (!rig || !joint) return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "bw_rig_add_joint: rig and joint are required");
    int n = rig->joint_count;
    bw_result r = check_name(joint->name, err, "joints", "joint", n);
    if (r != BW_OK) return r;
    char where[64];
    snprintf(where, sizeof where, "joints[%d]", n);
    if (n >= BW_RIG_MAX_JOINTS)
        return bw_fail_at(err, BW_ERR_LIMIT, NULL, 0, where, "joint '%s': the rig already has %d joints (the limit)",
                          joint->name, n);
    if (joint->parent == n)
        return bw_fail_at(err, BW_ERR_CYCLE, NULL, 0, where, "joint '%s' (index %d) is its own parent", joint->name, n);
    if (joint->parent < -1 || joint->parent > n)
        return bw_fail_at(err, BW_ERR_RANGE, NULL, 0, where,
                          "joint '%s' (index %d): parent index %d does not exist (the rig has %d joints)", joint->name,
                          n, joint->parent, n);
    bw_transform rest;
    if ((r = prepare_rest(&joint->rest, &rest, err, "joints", n, joint->name)) != BW_OK) return r;
    const char *pn = joint->parent >= 0 ? rig->names[joint->parent] : "";
    int existing = bw_rig_find(rig, pn, joint->name);
    if (existing >= 0)
        return bw_fail_at(err, BW_ERR_DUPLICATE, NULL, 0, where,
                          "joint '%s' appears twice under %s%s%s (a (parent, name) pair must be unique)", joint->name,
                          pn[0] ? "parent '" : "the root", pn, pn[0] ? "'" : "");

    const bw_allocator *a = rig->alloc;
    char *name = bw_strdup(a, joint->name);
    if (!name) return bw_fail(err, BW_ERR_OUT_OF_MEMORY, "bw_rig_add_joint: out of memory");
    if (n == rig->joint_capacity) {
        /* Allocate every grown array before touching the rig, so a failure
         * leaves it exactly as it was. */
        int cap = rig->joint_capacity > BW_RIG_MAX_JOINTS / 2 ? BW_RIG_MAX_JOINTS : rig->joint_capacity * 2;
        char **names = (char **)bw_alloc(a, (size_t)cap * sizeof *names);
        int *parents = (int *)bw_alloc(a, (size_t)cap * sizeof *parents);
        bw_transform *rests = (bw_transform *)bw_alloc(a, (size_t)cap * sizeof *rests);
        int *order = (int *)bw_alloc(a, (size_t)cap * sizeof *order);
        if (!names || !parents || !rests || !order) {
            free_joint_arrays(a, NULL, parents, rests, order, 0, cap);
            bw_free(a, names, (size_t)cap * sizeof *names);
            bw_free_string(a, name);
            return bw_fail(err, BW_ERR_OUT_OF_MEMORY, "bw_rig_add_joint: out of memory");
        }
        if (n > 0) {
            memcpy(names, rig->names, (size_t)n * sizeof *names);
            memcpy(parents, rig->parents, (size_t)n * sizeof *parents);
            memcpy(rests, rig->rest, (size_t)n * sizeof *rests);
            memcpy(order, rig->order, (size_t)n * sizeof *order);
        }
        free_joint_arrays(a, NULL, rig->parents, rig->rest, rig->order, 0, rig->joint_capacity);
        bw_free(a, rig->names, (size_t)rig->joint_capacity * sizeof *rig->names);
        rig->names = names;
        rig->parents = parents;
        rig->rest = rests;
        rig->order = order;
        rig->joint_capacity = cap;
    }
    rig->names[n] = name;
    rig->parents[n] = joint->parent;
    rig->rest[n] = rest;
    /* Insert into the sorted index after every key <= the new one. */
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        int other = rig->order[mid];
        int c = strcmp(rig->names[other], name);
        if (c == 0) c = strcmp(parent_name_of(rig, other), pn);
        if (c <= 0) lo = mid + 1;
        else hi = mid;
    }
    memmove(&rig->order[lo + 1], &rig->order[lo], (size_t)(n - lo) * sizeof *rig->order);
    rig->order[lo] = n;
    rig->joint_count = n + 1;
    rig->revision++;
    rig->signature = hash_joint(rig->signature, name, joint->parent);
    return BW_OK;
}
