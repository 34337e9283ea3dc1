/* gltf.c - glTF 2.0 loader: skins (or the scene's node tree) become one rig,
 * animations become clips, morph targets become rig curves.
 *
 * Rules (the decisions the glTF spec leaves to a runtime):
 * - Rig joints. With skins: the union of every skin's joints, plus the
 *   nodes between a joint and its nearest joint ancestor, plus, when the
 *   union still has several roots inside one node tree, the nodes up to
 *   their lowest common ancestor (so two skins sharing a skeleton, or
 *   skins of one character split under an armature node, form one rig).
 *   Without skins: every node of the default scene (`scene`, else
 *   scenes[0], else every node). Order: parent-first, otherwise the first
 *   skin's joint order, then the next skin's new joints, then added nodes
 *   by node index (file order is kept where it is already parent-first).
 *   asset->joint_node[i] is the glTF node index of joint i.
 * - Joint names: the node's name, or "node<N>" when it has none. The rig
 *   (and clips) identify a joint by (parent name, name), roots by ("",
 *   name); when that pair is already taken the later joint is renamed
 *   "<name>#<N>" (N = its node index) and a warning is logged.
 * - Rest transforms: the node's TRS, or its matrix decomposed into
 *   translation, rotation and scale (a negative determinant flips x scale;
 *   shear is dropped). Rotations are normalized.
 * - Curves: every node with a mesh that has morph targets declares one
 *   float curve per target, rest value node.weights, else mesh.weights,
 *   else 0. Curve name: mesh.extras.targetNames[i] when given, else
 *   "<mesh name>/weight<i>", else "<node name>/weight<i>". A name already
 *   taken (two nodes sharing a mesh) becomes "<node name>/<target name or
 *   weight<i>>", then "node<N>/<...>".
 * - Clips: one per animation, named as in the file ("" when unnamed;
 *   bw_asset_find_clip reaches it as "#N"). Times are kept as given (a
 *   first key after 0 holds its value before it); the length is the last
 *   key time. translation / rotation / scale channels become tracks of the
 *   target joint with parent name = the rig parent's name ("" for roots);
 *   STEP is constant easing, LINEAR linear, CUBICSPLINE keeps glTF's
 *   (in-tangent, value, out-tangent) per key. A weights channel becomes one
 *   BW_CHANNEL_FLOAT track per target, named after the node's curves.
 *   Channels whose node is not a joint (translation/rotation/scale), has
 *   no morph targets (weights), is missing, or whose path is unknown
 *   (extensions) are skipped with one warning per animation.
 * - Refused: key times that are negative or not strictly increasing, a
 *   zero rotation, two channels driving the same (node, path) in one
 *   animation, required extensions that change how bytes are read
 *   (meshopt compression).
 *
 * Everything is validated and decoded before the rig and clips are built;
 * on failure nothing is returned and the scratch state is freed.
 */
#include <limits.h>
#include <stdio.h>

#include "blendwerk/asset.h"
#include "bw_math.h"
#include "gltf_internal.h"
#include "loaders.h"

/* ---- scratch arena: names, track descriptions, key data ---- */

typedef struct gltf_block {
    struct gltf_block *next;
    size_t size; /* bytes including this header */
    size_t used;
} gltf_block;

#define BLOCK_MIN ((size_t)64 << 10)
#define ALIGN_UP(n) (((n) + 15u) & ~(size_t)15u)

static void *arena_alloc(gltf_ctx *c, size_t n)
{
    n = ALIGN_UP(n ? n : 1);
    gltf_block *b = c->blocks;
    size_t head = ALIGN_UP(sizeof(gltf_block));
    if (!b || b->size - b->used < n) {
        size_t size = head + n > BLOCK_MIN ? head + n : BLOCK_MIN;
        b = (gltf_block *)bw_alloc(c->a, size);
        if (!b) return NULL;
        b->size = size;
        b->used = head;
        /* a big one-off block goes behind the current one so the current
         * block's free space stays usable */
        if (c->blocks && head + n > BLOCK_MIN) {
            b->next = c->blocks->next;
            c->blocks->next = b;
        } else {
            b->next = c->blocks;
            c->blocks = b;
        }
    }
    void *p = (char *)b + b->used;
    b->used += n;
    return p;
}

static char *arena_printf(gltf_ctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static char *arena_printf(gltf_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return NULL;
    char *s = (char *)arena_alloc(c, (size_t)n + 1);
    if (!s) return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* ---- a set of (parent name, name) pairs, for joint and curve clashes ----
 * The rig identifies a joint by its parent's name and its own (roots have
 * parent name ""), as clips do, so that pair must be unique. */

typedef struct name_set {
    int *slots; /* -1 empty, else index into names/parents */
    size_t mask;
    const char **names;
    const char **parents; /* NULL: every parent name is "" (curves) */
} name_set;

static uint64_t name_hash(const char *parent, const char *name)
{
    return bw_hash_string(bw_hash_string(BW_HASH_SEED, parent), name);
}

static bool set_init(gltf_ctx *c, name_set *s, size_t capacity, const char **names, const char **parents)
{
    size_t n = 16;
    while (n < capacity * 2) n *= 2;
    s->slots = (int *)arena_alloc(c, n * sizeof(int));
    if (!s->slots) return false;
    memset(s->slots, 0xff, n * sizeof(int));
    s->mask = n - 1;
    s->names = names;
    s->parents = parents;
    return true;
}

static int set_find(const name_set *s, const char *parent, const char *name)
{
    for (size_t i = name_hash(parent, name) & s->mask;; i = (i + 1) & s->mask) {
        int k = s->slots[i];
        if (k < 0) return -1;
        if (!strcmp(s->parents ? s->parents[k] : "", parent) && !strcmp(s->names[k], name)) return k;
    }
}

/* Insert entry k (names[k], parents[k] already set); the caller checked it is new. */
static void set_insert(name_set *s, int k)
{
    size_t i = name_hash(s->parents ? s->parents[k] : "", s->names[k]) & s->mask;
    while (s->slots[i] >= 0) i = (i + 1) & s->mask;
    s->slots[i] = k;
}

/* ---- nodes ---- */

typedef struct gltf_node {
    int mesh;        /* -1 when none */
    int rig_parent;  /* nearest ancestor in the rig, -1 */
    int joint;       /* rig joint index, -1 when not in the rig */
    int curve_first; /* first rig curve of its morph targets */
    int curve_count;
    bool in_rig;
    bool is_joint; /* listed by a skin */
    bool scene_root;
} gltf_node;

/* What the curves need from a mesh, read once however many nodes use it. */
typedef struct mesh_info {
    bool done;
    int targets;
    const cJSON *names;   /* extras.targetNames when an array */
    const cJSON *weights; /* default weights when present */
    const char *name;     /* NULL when unnamed */
} mesh_info;

typedef struct gltf_track_list {
    const char *name;
    bw_track_desc *tracks;
    int count;
} gltf_track_list;

typedef struct loader {
    gltf_ctx c;
    gltf_node *nodes;
    int *parent; /* per node: its parent node, -1 for a root (bw_gltf_node_children) */
    int *depth;  /* per node: roots 0 (bw_gltf_node_depths) */
    int *order;  /* node indices parent-first (by depth) */
    /* rig being assembled */
    bw_rig_joint_desc *joints;
    int *joint_node;
    const char **joint_names;
    const char **joint_parent_names; /* "" for roots */
    int joint_count;
    bw_rig_curve_desc *curves;
    const char **curve_names;
    int curve_count;
    /* clips being assembled */
    gltf_track_list *anims;
    int anim_count;
    mesh_info *mesh_infos;
    const cJSON **skins;
    int skin_count;
    const cJSON **animations;
} loader;

/* ---- the node tree (gltf_internal.h) ---- */

bw_result bw_gltf_node_children(gltf_ctx *c, int i, int *parent)
{
    char base[GLTF_PATH_SIZE], where[GLTF_PATH_SIZE];
    bw_gltf_path(base, "nodes[%d]", i);
    const cJSON *children;
    bw_result r = bw_gltf_member_array(c, c->nodes[i], base, "children", false, &children, NULL);
    if (r != BW_OK) return r;
    int k = 0;
    const cJSON *ch;
    cJSON_ArrayForEach(ch, children)
    {
        long long v;
        bw_gltf_path(where, "%s.children[%d]", base, k++);
        r = bw_gltf_int(c, ch, where, 0, (long long)c->node_count - 1, &v);
        if (r != BW_OK) return r;
        if (v == i) return bw_gltf_fail(c, BW_ERR_CYCLE, where, "node %d lists itself as a child", i);
        if (parent[v] >= 0)
            return bw_gltf_fail(c, BW_ERR_PARSE, where, "node %lld already has parent %d (a glTF node has one parent)", v,
                                parent[v]);
        parent[v] = i;
    }
    return BW_OK;
}

bw_result bw_gltf_node_depths(gltf_ctx *c, const int *parent, int *depth, int *mark, int *path)
{
    /* Depths by walking up with memoization; a walk that meets a node it
     * marked itself has found a cycle. Linear: each node is walked once. */
    int n = c->node_count;
    char where[GLTF_PATH_SIZE];
    for (int i = 0; i < n; i++) mark[i] = depth[i] = -1;
    for (int i = 0; i < n; i++) {
        if (depth[i] >= 0) continue;
        int sp = 0, p = i;
        while (p >= 0 && depth[p] < 0) {
            if (mark[p] == i)
                return bw_gltf_fail(c, BW_ERR_CYCLE, bw_gltf_path(where, "nodes[%d].children", p),
                                    "node %d is its own ancestor", p);
            mark[p] = i;
            path[sp++] = p;
            p = parent[p];
        }
        int d = p < 0 ? -1 : depth[p];
        while (sp > 0) depth[path[--sp]] = ++d;
    }
    return BW_OK;
}

const char *bw_gltf_node_name(const gltf_ctx *c, int node, char buf[GLTF_NODE_NAME_SIZE])
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(c->nodes[node], "name");
    if (cJSON_IsString(name) && name->valuestring && name->valuestring[0]) return name->valuestring;
    snprintf(buf, GLTF_NODE_NAME_SIZE, "node%d", node);
    return buf;
}

bool bw_gltf_is_joint_name(const gltf_ctx *c, int node, const char *joint)
{
    char buf[GLTF_NODE_NAME_SIZE], own[GLTF_NODE_NAME_SIZE];
    const char *name = bw_gltf_node_name(c, node, buf);
    size_t len = strlen(name);
    if (strncmp(joint, name, len)) return false;
    if (joint[len] == '\0') return true;
    snprintf(own, sizeof own, GLTF_RENAMED_SUFFIX, node);
    return !strcmp(joint + len, own);
}

static bw_result read_nodes(loader *L)
{
    gltf_ctx *c = &L->c;
    int n = c->node_count;
    char base[GLTF_PATH_SIZE];
    for (int i = 0; i < n; i++) {
        L->parent[i] = -1;
        L->nodes[i].joint = -1;
        L->nodes[i].rig_parent = -1;
    }
    for (int i = 0; i < n; i++) {
        bw_gltf_path(base, "nodes[%d]", i);
        long long v;
        bw_result r = bw_gltf_member_int(c, c->nodes[i], base, "mesh", false, 0, (long long)c->mesh_count - 1, -1, &v);
        if (r != BW_OK) return r;
        L->nodes[i].mesh = (int)v;
        r = bw_gltf_node_children(c, i, L->parent);
        if (r != BW_OK) return r;
    }
    int *path = (int *)arena_alloc(c, (size_t)(n ? n : 1) * sizeof(int));
    if (!path) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, "nodes", "out of memory");
    /* L->order is borrowed as scratch, filled properly below */
    bw_result r = bw_gltf_node_depths(c, L->parent, L->depth, L->order, path);
    if (r != BW_OK) return r;
    /* Parent-first order: counting sort by depth. */
    int *count = path; /* reuse: depth histogram, depths < n */
    memset(count, 0, (size_t)n * sizeof(int));
    for (int i = 0; i < n; i++) count[L->depth[i]]++;
    int sum = 0;
    for (int d = 0; d < n; d++) {
        int k = count[d];
        count[d] = sum;
        sum += k;
    }
    for (int i = 0; i < n; i++) L->order[count[L->depth[i]]++] = i;
    return BW_OK;
}

/* ---- choosing the rig's nodes ---- */

static bw_result select_from_skins(loader *L, int *appear, int *appear_count)
{
    gltf_ctx *c = &L->c;
    char base[GLTF_PATH_SIZE], where[GLTF_PATH_SIZE];
    int na = 0;
    for (int s = 0; s < L->skin_count; s++) {
        bw_gltf_path(base, "skins[%d]", s);
        const cJSON *joints;
        bw_result r = bw_gltf_member_array(c, L->skins[s], base, "joints", true, &joints, NULL);
        if (r != BW_OK) return r;
        int k = 0;
        const cJSON *j;
        cJSON_ArrayForEach(j, joints)
        {
            long long v;
            r = bw_gltf_int(c, j, bw_gltf_path(where, "%s.joints[%d]", base, k++), 0, (long long)c->node_count - 1, &v);
            if (r != BW_OK) return r;
            if (!L->nodes[v].is_joint) {
                L->nodes[v].is_joint = L->nodes[v].in_rig = true;
                appear[na++] = (int)v;
            }
        }
    }
    *appear_count = na;
    if (na == 0) return BW_OK;
    int n = c->node_count;
    /* nearest skin joint above each node, computed parent-first */
    int *nja = (int *)arena_alloc(c, (size_t)n * sizeof(int));
    if (!nja) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, "skins", "out of memory");
    for (int k = 0; k < n; k++) {
        int i = L->order[k], p = L->parent[i];
        nja[i] = p < 0 ? -1 : L->nodes[p].is_joint ? p : nja[p];
    }
    /* nodes between a joint and its nearest joint ancestor; a walk stops at
     * a node already taken, whose path up is already taken too */
    for (int k = 0; k < na; k++) {
        int j = appear[k];
        if (nja[j] < 0) continue;
        for (int p = L->parent[j]; p != nja[j] && !L->nodes[p].in_rig; p = L->parent[p])
            L->nodes[p].in_rig = true;
    }
    /* Roots of what we have so far; connect several through their lowest
     * common ancestor when they share one. */
    int *roots = (int *)arena_alloc(c, (size_t)na * sizeof(int));
    if (!roots) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, "skins", "out of memory");
    int nr = 0;
    for (int k = 0; k < na; k++)
        if (nja[appear[k]] < 0) roots[nr++] = appear[k];
    if (nr < 2) return BW_OK;
    int *reach = (int *)arena_alloc(c, (size_t)n * sizeof(int)); /* chain node reached, -2 none, -1 unknown */
    int *path = (int *)arena_alloc(c, (size_t)n * sizeof(int));
    if (!reach || !path) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, "skins", "out of memory");
    for (int i = 0; i < n; i++) reach[i] = -1;
    for (int p = roots[0]; p >= 0; p = L->parent[p]) reach[p] = p; /* the chain reaches itself */
    int lca = roots[0];
    for (int k = 1; k < nr && lca >= 0; k++) {
        int sp = 0, p = roots[k];
        while (p >= 0 && reach[p] == -1) {
            path[sp++] = p;
            p = L->parent[p];
        }
        int hit = p < 0 ? -2 : reach[p];
        while (sp > 0) reach[path[--sp]] = hit;
        if (hit == -2) lca = -1; /* another tree: leave several roots */
        else if (L->depth[hit] < L->depth[lca]) lca = hit;
    }
    if (lca < 0) return BW_OK;
    for (int k = 0; k < nr; k++) {
        if (roots[k] == lca) continue;
        for (int p = L->parent[roots[k]]; p >= 0 && !L->nodes[p].in_rig; p = L->parent[p]) {
            L->nodes[p].in_rig = true;
            if (p == lca) break;
        }
    }
    return BW_OK;
}

static bw_result select_from_scene(loader *L)
{
    gltf_ctx *c = &L->c;
    const cJSON **scenes;
    int scene_count;
    bw_result r = bw_gltf_table(c, "scenes", &scenes, &scene_count);
    if (r != BW_OK) return r;
    long long scene;
    r = bw_gltf_member_int(c, c->root, "", "scene", false, 0, (long long)scene_count - 1, 0, &scene);
    if (r == BW_OK && scene_count > 0) {
        char base[GLTF_PATH_SIZE], where[GLTF_PATH_SIZE];
        bw_gltf_path(base, "scenes[%lld]", scene);
        const cJSON *nodes;
        r = bw_gltf_member_array(c, scenes[scene], base, "nodes", false, &nodes, NULL);
        int k = 0;
        const cJSON *x;
        cJSON_ArrayForEach(x, nodes)
        {
            long long v;
            if (r != BW_OK) break;
            r = bw_gltf_int(c, x, bw_gltf_path(where, "%s.nodes[%d]", base, k++), 0, (long long)c->node_count - 1, &v);
            if (r == BW_OK) L->nodes[v].scene_root = true;
        }
    }
    if (scenes) bw_free(c->a, (void *)scenes, (size_t)scene_count * sizeof *scenes);
    if (r != BW_OK) return r;
    for (int k = 0; k < c->node_count; k++) {
        int i = L->order[k], p = L->parent[i];
        L->nodes[i].in_rig = scene_count == 0 || L->nodes[i].scene_root || (p >= 0 && L->nodes[p].in_rig);
    }
    return BW_OK;
}

/* ---- rest transforms ---- */

/* Column-major 4x4 to TRS. */
static bw_result decompose(gltf_ctx *c, const float *m, bw_transform *out, const char *where)
{
    if (fabsf(m[3]) > 1e-5f || fabsf(m[7]) > 1e-5f || fabsf(m[11]) > 1e-5f || fabsf(m[15] - 1.0f) > 1e-5f)
        return bw_gltf_fail(c, BW_ERR_UNSUPPORTED, where, "matrix is not affine (bottom row must be 0 0 0 1)");
    double col[3][3], s[3];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) col[i][j] = m[i * 4 + j];
        s[i] = sqrt(col[i][0] * col[i][0] + col[i][1] * col[i][1] + col[i][2] * col[i][2]);
    }
    double det = col[0][0] * (col[1][1] * col[2][2] - col[1][2] * col[2][1]) -
                 col[1][0] * (col[0][1] * col[2][2] - col[0][2] * col[2][1]) +
                 col[2][0] * (col[0][1] * col[1][2] - col[0][2] * col[1][1]);
    if (det < 0) s[0] = -s[0];
    double q[4] = {0, 0, 0, 1};
    if (fabs(s[0]) > 1e-20 && fabs(s[1]) > 1e-20 && fabs(s[2]) > 1e-20) {
        double R[3][3]; /* R[row][column] */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) R[j][i] = col[i][j] / s[i];
        double tr = R[0][0] + R[1][1] + R[2][2];
        if (tr > 0) {
            double S = sqrt(tr + 1.0) * 2.0;
            q[3] = 0.25 * S;
            q[0] = (R[2][1] - R[1][2]) / S;
            q[1] = (R[0][2] - R[2][0]) / S;
            q[2] = (R[1][0] - R[0][1]) / S;
        } else if (R[0][0] > R[1][1] && R[0][0] > R[2][2]) {
            double S = sqrt(1.0 + R[0][0] - R[1][1] - R[2][2]) * 2.0;
            q[3] = (R[2][1] - R[1][2]) / S;
            q[0] = 0.25 * S;
            q[1] = (R[0][1] + R[1][0]) / S;
            q[2] = (R[0][2] + R[2][0]) / S;
        } else if (R[1][1] > R[2][2]) {
            double S = sqrt(1.0 + R[1][1] - R[0][0] - R[2][2]) * 2.0;
            q[3] = (R[0][2] - R[2][0]) / S;
            q[0] = (R[0][1] + R[1][0]) / S;
            q[1] = 0.25 * S;
            q[2] = (R[1][2] + R[2][1]) / S;
        } else {
            double S = sqrt(1.0 + R[2][2] - R[0][0] - R[1][1]) * 2.0;
            q[3] = (R[1][0] - R[0][1]) / S;
            q[0] = (R[0][2] + R[2][0]) / S;
            q[1] = (R[1][2] + R[2][1]) / S;
            q[2] = 0.25 * S;
        }
    }
    for (int i = 0; i < 3; i++) {
        out->t[i] = m[12 + i];
        out->s[i] = (float)s[i];
    }
    for (int i = 0; i < 4; i++) out->r[i] = (float)q[i];
    bw_quat_normalize(out->r);
    if (!bw_transform_isfinite(out))
        return bw_gltf_fail(c, BW_ERR_NON_FINITE, where, "matrix does not decompose to a finite transform");
    return BW_OK;
}

bw_result bw_gltf_node_rest(gltf_ctx *c, int node_index, bw_transform *out)
{
    char base[GLTF_PATH_SIZE], where[GLTF_PATH_SIZE];
    bw_gltf_path(base, "nodes[%d]", node_index);
    const cJSON *node = c->nodes[node_index];
    *out = bw_transform_identity;
    float m[16];
    bool has_matrix, has;
    bw_result r = bw_gltf_member_floats(c, node, base, "matrix", 16, m, &has_matrix);
    if (r != BW_OK) return r;
    if (has_matrix) return decompose(c, m, out, bw_gltf_path(where, "%s.matrix", base));
    r = bw_gltf_member_floats(c, node, base, "translation", 3, out->t, NULL);
    if (r == BW_OK) r = bw_gltf_member_floats(c, node, base, "scale", 3, out->s, NULL);
    if (r == BW_OK) r = bw_gltf_member_floats(c, node, base, "rotation", 4, out->r, &has);
    if (r != BW_OK) return r;
    if (has && !(bw_quat_dot(out->r, out->r) > 1e-12f))
        return bw_gltf_fail(c, BW_ERR_NON_FINITE, bw_gltf_path(where, "%s.rotation", base), "zero-length rotation");
    bw_quat_normalize(out->r);
    return BW_OK;
}

/* ---- the rig ---- */

static const char *node_name(loader *L, int i)
{
    char buf[GLTF_NODE_NAME_SIZE];
    const char *name = bw_gltf_node_name(&L->c, i, buf);
    return name == buf ? arena_printf(&L->c, "%s", buf) : name;
}

static bw_result build_joints(loader *L)
{
    gltf_ctx *c = &L->c;
    int n = c->node_count;
    int *appear = (int *)arena_alloc(c, (size_t)(n ? n : 1) * sizeof(int));
    if (!appear) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, "nodes", "out of memory");
    int na = 0;
    bw_result r = bw_gltf_table(c, "skins", &L->skins, &L->skin_count);
    if (r == BW_OK) r = select_from_skins(L, appear, &na);
    if (r == BW_OK && na == 0) r = select_from_scene(L);
    if (r != BW_OK) return r;
    int total = 0;
    for (int i = 0; i < n; i++) {
        if (!L->nodes[i].in_rig) continue;
        total++;
        if (!L->nodes[i].is_joint) appear[na++] = i; /* added nodes and scene nodes, by index */
    }
    if (total > GLTF_MAX_JOINTS)
        return bw_gltf_fail(c, BW_ERR_LIMIT, "nodes", "%d rig joints exceed the limit %d", total, GLTF_MAX_JOINTS);
    for (int k = 0; k < n; k++) {
        int i = L->order[k], p = L->parent[i];
        L->nodes[i].rig_parent = p < 0 ? -1 : L->nodes[p].in_rig ? p : L->nodes[p].rig_parent;
    }
    size_t cap = (size_t)(total ? total : 1);
    L->joints = (bw_rig_joint_desc *)arena_alloc(c, cap * sizeof *L->joints);
    L->joint_names = (const char **)arena_alloc(c, cap * sizeof *L->joint_names);
    L->joint_parent_names = (const char **)arena_alloc(c, cap * sizeof(const char *));
    int *stack = (int *)arena_alloc(c, cap * sizeof(int));
    name_set names;
    if (!L->joints || !L->joint_names || !L->joint_parent_names || !stack ||
        !set_init(c, &names, cap, L->joint_names, L->joint_parent_names))
        return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, "nodes", "out of memory");
    char where[GLTF_PATH_SIZE];
    /* Emit each node after its not-yet-emitted rig ancestors. */
    for (int k = 0; k < na; k++) {
        int sp = 0;
        for (int p = appear[k]; p >= 0 && L->nodes[p].joint < 0; p = L->nodes[p].rig_parent) stack[sp++] = p;
        while (sp > 0) {
            int i = stack[--sp], j = L->joint_count++;
            const cJSON *nm = cJSON_GetObjectItemCaseSensitive(c->nodes[i], "name");
            if (nm && !cJSON_IsString(nm))
                return bw_gltf_fail(c, BW_ERR_PARSE, bw_gltf_path(where, "nodes[%d].name", i), "expected a string");
            L->nodes[i].joint = j;
            int parent = L->nodes[i].rig_parent < 0 ? -1 : L->nodes[L->nodes[i].rig_parent].joint;
            const char *name = node_name(L, i);
            if (!name) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, "nodes", "out of memory");
            const char *pname = parent < 0 ? "" : L->joint_names[parent];
            L->joint_parent_names[j] = pname;
            L->joint_names[j] = name;
            if (set_find(&names, pname, name) >= 0) {
                char *renamed = arena_printf(c, "%s" GLTF_RENAMED_SUFFIX, name, i);
                if (!renamed) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, "nodes", "out of memory");
                bw_gltf_warn(c, bw_gltf_path(where, "nodes[%d].name", i),
                             "another joint under a parent named \"%s\" is also named \"%s\"; this one becomes \"%s\"",
                             pname, name, renamed);
                L->joint_names[j] = renamed;
                if (set_find(&names, pname, renamed) >= 0)
                    return bw_gltf_fail(c, BW_ERR_DUPLICATE, where, "joint name \"%s\" is taken twice under one parent",
                                        renamed);
            }
            set_insert(&names, j);
            bw_rig_joint_desc *jd = &L->joints[j];
            jd->name = L->joint_names[j];
            jd->parent = parent;
            r = bw_gltf_node_rest(c, i, &jd->rest);
            if (r != BW_OK) return r;
        }
    }
    if (L->joint_count) {
        L->joint_node = (int *)bw_alloc(c->a, (size_t)L->joint_count * sizeof(int));
        if (!L->joint_node) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, "nodes", "out of memory");
        for (int i = 0; i < n; i++)
            if (L->nodes[i].joint >= 0) L->joint_node[L->nodes[i].joint] = i;
    }
    return BW_OK;
}

/* Morph target count of mesh m (validated), its target names and default
 * weights, memoized in L->mesh_infos. */
static bw_result mesh_targets(loader *L, int m, const mesh_info **out)
{
    gltf_ctx *c = &L->c;
    mesh_info *mi = &L->mesh_infos[m];
    *out = mi;
    if (mi->done) return BW_OK;
    char base[GLTF_PATH_SIZE], where[GLTF_PATH_SIZE];
    bw_gltf_path(base, "meshes[%d]", m);
    const cJSON *mesh = c->meshes[m];
    const cJSON *prims, *weights;
    bw_result r = bw_gltf_member_array(c, mesh, base, "primitives", false, &prims, NULL);
    int weight_count = 0;
    if (r == BW_OK) r = bw_gltf_member_array(c, mesh, base, "weights", false, &weights, &weight_count);
    if (r != BW_OK) return r;
    int targets = -1, k = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, prims)
    {
        bw_gltf_path(where, "%s.primitives[%d]", base, k++);
        if (!cJSON_IsObject(p)) return bw_gltf_fail(c, BW_ERR_PARSE, where, "expected an object");
        const cJSON *t;
        int tc;
        r = bw_gltf_member_array(c, p, where, "targets", false, &t, &tc);
        if (r != BW_OK) return r;
        if (targets >= 0 && tc != targets)
            return bw_gltf_fail(c, BW_ERR_PARSE, bw_gltf_path(where, "%s.primitives[%d].targets", base, k - 1),
                                "%d morph targets where primitive 0 has %d", tc, targets);
        targets = tc;
    }
    if (targets < 0) targets = 0;
    if (targets == 0) targets = weight_count;
    else if (weight_count && weight_count != targets)
        return bw_gltf_fail(c, BW_ERR_PARSE, bw_gltf_path(where, "%s.weights", base),
                            "%d default weights for %d morph targets", weight_count, targets);
    const cJSON *extras = cJSON_GetObjectItemCaseSensitive(mesh, "extras");
    const cJSON *names = cJSON_IsObject(extras) ? cJSON_GetObjectItemCaseSensitive(extras, "targetNames") : NULL;
    const cJSON *mname = cJSON_GetObjectItemCaseSensitive(mesh, "name");
    mi->names = cJSON_IsArray(names) ? names : NULL;
    mi->weights = weight_count ? weights : NULL;
    mi->targets = targets;
    mi->name = cJSON_IsString(mname) && mname->valuestring[0] ? mname->valuestring : NULL;
    mi->done = true;
    return BW_OK;
}

static bw_result build_curves(loader *L)
{
    gltf_ctx *c = &L->c;
    char base[GLTF_PATH_SIZE], where[GLTF_PATH_SIZE];
    if (c->mesh_count) {
        L->mesh_infos = (mesh_info *)arena_alloc(c, (size_t)c->mesh_count * sizeof *L->mesh_infos);
        if (!L->mesh_infos) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, "meshes", "out of memory");
        memset(L->mesh_infos, 0, (size_t)c->mesh_count * sizeof *L->mesh_infos);
    }
    /* Pass 1: count, so the tables are sized once. */
    size_t total = 0;
    for (int i = 0; i < c->node_count; i++) {
        int m = L->nodes[i].mesh;
        if (m < 0) continue;
        const mesh_info *mi;
        bw_result r = mesh_targets(L, m, &mi);
        if (r != BW_OK) return r;
        L->nodes[i].curve_count = mi->targets;
        total += (size_t)mi->targets;
        if (total > GLTF_MAX_CURVES)
            return bw_gltf_fail(c, BW_ERR_LIMIT, bw_gltf_path(where, "nodes[%d].mesh", i),
                                "more than %d morph-target curves", GLTF_MAX_CURVES);
    }
    size_t cap = total ? total : 1;
    L->curves = (bw_rig_curve_desc *)arena_alloc(c, cap * sizeof *L->curves);
    L->curve_names = (const char **)arena_alloc(c, cap * sizeof *L->curve_names);
    name_set set;
    if (!L->curves || !L->curve_names || !set_init(c, &set, cap, L->curve_names, NULL))
        return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, "meshes", "out of memory");
    for (int i = 0; i < c->node_count; i++) {
        int tc = L->nodes[i].curve_count, m = L->nodes[i].mesh;
        if (tc == 0) continue;
        const mesh_info *mi;
        bw_result r = mesh_targets(L, m, &mi);
        if (r != BW_OK) return r;
        const cJSON *names = mi->names, *weights = mi->weights;
        bw_gltf_path(base, "nodes[%d]", i);
        float *rest = (float *)arena_alloc(c, (size_t)tc * sizeof(float));
        if (!rest) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, base, "out of memory");
        memset(rest, 0, (size_t)tc * sizeof(float));
        bool has;
        r = bw_gltf_member_floats(c, c->nodes[i], base, "weights", tc, rest, &has);
        if (r == BW_OK && !has && weights)
            r = bw_gltf_member_floats(c, c->meshes[m], bw_gltf_path(where, "meshes[%d]", m), "weights", tc, rest, NULL);
        if (r != BW_OK) return r;
        const char *mesh_name = mi->name;
        const char *nname = node_name(L, i);
        if (!nname) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, base, "out of memory");
        const cJSON *tn = names ? names->child : NULL;
        L->nodes[i].curve_first = L->curve_count;
        for (int t = 0; t < tc; t++, tn = tn ? tn->next : NULL) {
            const char *target = cJSON_IsString(tn) && tn->valuestring[0] ? tn->valuestring : NULL;
            char *suffix = target ? (char *)target : arena_printf(c, "weight%d", t);
            char *cand[3];
            cand[0] = target ? (char *)target : arena_printf(c, "%s/%s", mesh_name ? mesh_name : nname, suffix);
            cand[1] = arena_printf(c, "%s/%s", nname, suffix);
            cand[2] = arena_printf(c, "node%d/%s", i, suffix);
            if (!suffix || !cand[0] || !cand[1] || !cand[2])
                return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, base, "out of memory");
            int k = L->curve_count, pick = 0;
            while (pick < 3 && set_find(&set, "", cand[pick]) >= 0) pick++;
            if (pick == 3)
                return bw_gltf_fail(c, BW_ERR_DUPLICATE, bw_gltf_path(where, "meshes[%d]", m),
                                    "curve name \"%s\" for morph target %d of node %d is taken", cand[0], t, i);
            L->curve_names[k] = cand[pick];
            set_insert(&set, k);
            L->curves[k].name = cand[pick];
            L->curves[k].kind = BW_CURVE_FLOAT;
            L->curves[k].rest = rest[t];
            L->curve_count++;
        }
    }
    return BW_OK;
}

/* ---- animations ---- */

enum { PATH_T, PATH_R, PATH_S, PATH_W, PATH_NONE };

typedef struct sampler_info {
    int input, output;
    bw_interp interp;
    bool step;
} sampler_info;

typedef struct channel_info {
    int sampler, node, path;
} channel_info;

static bw_result read_samplers(loader *L, const char *abase, const cJSON *arr, sampler_info *out)
{
    gltf_ctx *c = &L->c;
    char base[GLTF_PATH_SIZE], where[GLTF_PATH_SIZE];
    int k = 0;
    const cJSON *s;
    cJSON_ArrayForEach(s, arr)
    {
        bw_gltf_path(base, "%s.samplers[%d]", abase, k);
        if (!cJSON_IsObject(s)) return bw_gltf_fail(c, BW_ERR_PARSE, base, "expected an object");
        long long in, outp;
        const char *interp;
        long long hi = (long long)c->accessor_count - 1;
        bw_result r = bw_gltf_member_int(c, s, base, "input", true, 0, hi, 0, &in);
        if (r == BW_OK) r = bw_gltf_member_int(c, s, base, "output", true, 0, hi, 0, &outp);
        if (r == BW_OK) r = bw_gltf_member_string(c, s, base, "interpolation", false, &interp);
        if (r != BW_OK) return r;
        sampler_info *si = &out[k++];
        si->input = (int)in;
        si->output = (int)outp;
        si->interp = BW_INTERP_EASED;
        si->step = false;
        if (!interp || !strcmp(interp, "LINEAR")) {
        } else if (!strcmp(interp, "STEP")) {
            si->step = true;
        } else if (!strcmp(interp, "CUBICSPLINE")) {
            si->interp = BW_INTERP_CUBICSPLINE;
        } else {
            return bw_gltf_fail(c, BW_ERR_UNSUPPORTED, bw_gltf_path(where, "%s.interpolation", base),
                                "unknown interpolation \"%.32s\"", interp);
        }
    }
    return BW_OK;
}

static bw_result read_channels(loader *L, const char *abase, const cJSON *arr, int sampler_count,
                               channel_info *out)
{
    gltf_ctx *c = &L->c;
    char base[GLTF_PATH_SIZE], tbase[GLTF_PATH_SIZE];
    int k = 0;
    const cJSON *ch;
    cJSON_ArrayForEach(ch, arr)
    {
        bw_gltf_path(base, "%s.channels[%d]", abase, k);
        channel_info *ci = &out[k++];
        if (!cJSON_IsObject(ch)) return bw_gltf_fail(c, BW_ERR_PARSE, base, "expected an object");
        long long sampler, node;
        bw_result r = bw_gltf_member_int(c, ch, base, "sampler", true, 0, (long long)sampler_count - 1, 0, &sampler);
        if (r != BW_OK) return r;
        const cJSON *target = cJSON_GetObjectItemCaseSensitive(ch, "target");
        bw_gltf_path(tbase, "%s.target", base);
        if (!cJSON_IsObject(target)) return bw_gltf_fail(c, BW_ERR_PARSE, tbase, "required object is missing");
        const char *path;
        r = bw_gltf_member_int(c, target, tbase, "node", false, 0, (long long)c->node_count - 1, -1, &node);
        if (r == BW_OK) r = bw_gltf_member_string(c, target, tbase, "path", true, &path);
        if (r != BW_OK) return r;
        ci->sampler = (int)sampler;
        ci->node = (int)node;
        ci->path = !strcmp(path, "translation") ? PATH_T
                   : !strcmp(path, "rotation")  ? PATH_R
                   : !strcmp(path, "scale")     ? PATH_S
                   : !strcmp(path, "weights")   ? PATH_W
                                                : PATH_NONE;
    }
    return BW_OK;
}

static bw_result read_times(loader *L, const sampler_info *si, const char *where, const gltf_floats **out)
{
    gltf_ctx *c = &L->c;
    const gltf_floats *t;
    bw_result r = bw_gltf_accessor_floats(c, si->input, 1, where, &t);
    if (r != BW_OK) return r;
    for (size_t k = 0; k < t->count; k++) {
        if (t->data[k] < 0.0f)
            return bw_gltf_fail(c, BW_ERR_RANGE, where, "key time %zu is negative (%g)", k, (double)t->data[k]);
        if (k > 0 && !(t->data[k] > t->data[k - 1]))
            return bw_gltf_fail(c, t->data[k] == t->data[k - 1] ? BW_ERR_DUPLICATE : BW_ERR_UNSORTED, where,
                                "key times not strictly increasing at key %zu (%g after %g)", k, (double)t->data[k],
                                (double)t->data[k - 1]);
    }
    *out = t;
    return BW_OK;
}

static bw_result read_animation(loader *L, int ai, int *stamps)
{
    gltf_ctx *c = &L->c;
    char abase[GLTF_PATH_SIZE], where[GLTF_PATH_SIZE], owhere[GLTF_PATH_SIZE], iwhere[GLTF_PATH_SIZE];
    bw_gltf_path(abase, "animations[%d]", ai);
    const cJSON *anim = L->animations[ai];
    gltf_track_list *list = &L->anims[ai];
    const char *name;
    const cJSON *samplers, *channels;
    int ns, nc;
    bw_result r = bw_gltf_member_string(c, anim, abase, "name", false, &name);
    if (r == BW_OK) r = bw_gltf_member_array(c, anim, abase, "samplers", true, &samplers, &ns);
    if (r == BW_OK) r = bw_gltf_member_array(c, anim, abase, "channels", true, &channels, &nc);
    if (r != BW_OK) return r;
    list->name = name ? name : "";
    sampler_info *si = (sampler_info *)arena_alloc(c, (size_t)(ns ? ns : 1) * sizeof *si);
    channel_info *ci = (channel_info *)arena_alloc(c, (size_t)(nc ? nc : 1) * sizeof *ci);
    if (!si || !ci) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, abase, "out of memory");
    r = read_samplers(L, abase, samplers, si);
    if (r == BW_OK) r = read_channels(L, abase, channels, ns, ci);
    if (r != BW_OK) return r;
    /* Which channels make tracks, and how many. */
    size_t track_cap = 0;
    int skipped = 0;
    for (int k = 0; k < nc; k++) {
        channel_info *ch = &ci[k];
        bool use = ch->node >= 0 && ch->path != PATH_NONE &&
                   (ch->path == PATH_W ? L->nodes[ch->node].curve_count > 0 : L->nodes[ch->node].in_rig);
        if (!use) {
            ch->path = PATH_NONE;
            skipped++;
            continue;
        }
        int *stamp = &stamps[(size_t)ch->node * 4 + (size_t)ch->path];
        if (*stamp == ai + 1)
            return bw_gltf_fail(c, BW_ERR_DUPLICATE, bw_gltf_path(where, "%s.channels[%d].target", abase, k),
                                "a second channel drives the same node and path");
        *stamp = ai + 1;
        track_cap += ch->path == PATH_W ? (size_t)L->nodes[ch->node].curve_count : 1;
    }
    if (skipped)
        bw_gltf_warn(c, abase, "%d of %d channels skipped (node not in the rig, no morph targets, or unknown path)",
                     skipped, nc);
    r = bw_gltf_budget(c, track_cap * (sizeof(bw_track_desc) / sizeof(float)), abase);
    if (r != BW_OK) return r;
    list->tracks = (bw_track_desc *)arena_alloc(c, (track_cap ? track_cap : 1) * sizeof(bw_track_desc));
    if (!list->tracks) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, abase, "out of memory");
    for (int k = 0; k < nc; k++) {
        const channel_info *ch = &ci[k];
        if (ch->path == PATH_NONE) continue;
        const sampler_info *s = &si[ch->sampler];
        bw_gltf_path(iwhere, "%s.samplers[%d].input", abase, ch->sampler);
        bw_gltf_path(owhere, "%s.samplers[%d].output", abase, ch->sampler);
        /* NULL so no path can read them unset (GCC cannot see that
         * read_times sets `times` whenever it returns BW_OK) */
        const gltf_floats *times = NULL, *values = NULL;
        r = read_times(L, s, iwhere, &times);
        if (r != BW_OK) return r;
        static const int widths[] = {3, 4, 3, 1};
        int width = widths[ch->path];
        size_t per_key = s->interp == BW_INTERP_CUBICSPLINE ? 3 : 1;
        size_t targets = ch->path == PATH_W ? (size_t)L->nodes[ch->node].curve_count : 1;
        r = bw_gltf_accessor_floats(c, s->output, width, owhere, &values);
        if (r != BW_OK) return r;
        size_t keys = times->count;
        if (values->count != keys * per_key * targets)
            return bw_gltf_fail(c, BW_ERR_PARSE, owhere,
                                "%zu output elements, expected %zu (%zu keys%s%s)", values->count,
                                keys * per_key * targets, keys, per_key == 3 ? " x 3 for CUBICSPLINE" : "",
                                targets > 1 ? " x morph targets" : "");
        unsigned char *styles = NULL;
        if (s->step) {
            r = bw_gltf_budget(c, keys / 4 + 1, owhere);
            if (r != BW_OK) return r;
            styles = (unsigned char *)arena_alloc(c, keys);
            if (!styles) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, owhere, "out of memory");
            memset(styles, BW_EASE_CONSTANT, keys);
        }
        if (ch->path == PATH_R) {
            /* the value quaternion of each key must have a direction */
            for (size_t key = 0; key < keys; key++) {
                const float *q = values->data + (key * per_key + (per_key == 3 ? 1 : 0)) * 4;
                if (!(bw_quat_dot(q, q) > 1e-12f))
                    return bw_gltf_fail(c, BW_ERR_NON_FINITE, owhere, "rotation key %zu has zero length", key);
            }
        }
        if (ch->path != PATH_W) {
            int j = L->nodes[ch->node].joint;
            bw_track_desc *t = &list->tracks[list->count++];
            memset(t, 0, sizeof *t);
            t->joint = L->joint_names[j];
            t->parent = L->joint_parent_names[j];
            t->channel = ch->path == PATH_T ? BW_CHANNEL_TRANSLATION
                         : ch->path == PATH_R ? BW_CHANNEL_ROTATION
                                              : BW_CHANNEL_SCALE;
            t->interp = s->interp;
            t->key_count = (int)keys;
            t->times = times->data;
            t->values = values->data;
            t->styles = styles;
            continue;
        }
        /* weights: de-interleave one track per morph target */
        size_t floats = keys * per_key * targets;
        r = bw_gltf_budget(c, floats, owhere);
        if (r != BW_OK) return r;
        float *all = (float *)arena_alloc(c, floats * sizeof(float));
        if (!all) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, owhere, "out of memory");
        for (size_t tgt = 0; tgt < targets; tgt++) {
            float *v = all + tgt * keys * per_key;
            for (size_t key = 0; key < keys; key++)
                for (size_t e = 0; e < per_key; e++) v[key * per_key + e] = values->data[(key * per_key + e) * targets + tgt];
            bw_track_desc *t = &list->tracks[list->count++];
            memset(t, 0, sizeof *t);
            t->joint = L->curve_names[L->nodes[ch->node].curve_first + (int)tgt];
            t->parent = NULL;
            t->channel = BW_CHANNEL_FLOAT;
            t->interp = s->interp;
            t->key_count = (int)keys;
            t->times = times->data;
            t->values = v;
            t->styles = styles;
        }
    }
    return BW_OK;
}

static bw_result read_animations(loader *L)
{
    gltf_ctx *c = &L->c;
    bw_result r = bw_gltf_table(c, "animations", &L->animations, &L->anim_count);
    if (r != BW_OK || L->anim_count == 0) return r;
    L->anims = (gltf_track_list *)arena_alloc(c, (size_t)L->anim_count * sizeof *L->anims);
    int *stamps = (int *)arena_alloc(c, ((size_t)c->node_count * 4 + 1) * sizeof(int));
    if (!L->anims || !stamps) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, "animations", "out of memory");
    memset(L->anims, 0, (size_t)L->anim_count * sizeof *L->anims);
    memset(stamps, 0, ((size_t)c->node_count * 4 + 1) * sizeof(int));
    size_t tracks = 0;
    for (int i = 0; i < L->anim_count; i++) {
        r = read_animation(L, i, stamps);
        if (r != BW_OK) return r;
        tracks += (size_t)L->anims[i].count;
        if (tracks > GLTF_MAX_TRACKS)
            return bw_gltf_fail(c, BW_ERR_LIMIT, "animations", "more than %d tracks", GLTF_MAX_TRACKS);
    }
    return BW_OK;
}

/* ---- building and cleanup ---- */

static void release(loader *L)
{
    gltf_ctx *c = &L->c;
    bw_free(c->a, (void *)L->skins, (size_t)L->skin_count * sizeof *L->skins);
    bw_free(c->a, (void *)L->animations, (size_t)L->anim_count * sizeof *L->animations);
    bw_free(c->a, L->nodes, (size_t)c->node_count * sizeof *L->nodes);
    bw_free(c->a, L->order, (size_t)c->node_count * sizeof *L->order);
    bw_free(c->a, L->parent, (size_t)c->node_count * sizeof *L->parent);
    bw_free(c->a, L->depth, (size_t)c->node_count * sizeof *L->depth);
    bw_gltf_close(c);
    while (c->blocks) {
        gltf_block *next = c->blocks->next;
        bw_free(c->a, c->blocks, c->blocks->size);
        c->blocks = next;
    }
}

static bw_result load(loader *L, const void *data, size_t size, bw_asset *asset)
{
    gltf_ctx *c = &L->c;
    bw_result r = bw_gltf_open(c, data, size);
    if (r != BW_OK) return r;
    /* Tables sized by count; a zero count leaves NULL (release frees by count). */
    size_t nn = (size_t)c->node_count;
    if (nn) {
        L->nodes = (gltf_node *)bw_alloc_zeroed(c->a, nn * sizeof *L->nodes);
        L->order = (int *)bw_alloc(c->a, nn * sizeof *L->order);
        L->parent = (int *)bw_alloc(c->a, nn * sizeof *L->parent);
        L->depth = (int *)bw_alloc(c->a, nn * sizeof *L->depth);
    }
    if (nn && (!L->nodes || !L->order || !L->parent || !L->depth)) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, "", "out of memory");
    r = read_nodes(L);
    if (r == BW_OK) r = build_joints(L);
    if (r == BW_OK) r = build_curves(L);
    if (r == BW_OK) r = read_animations(L);
    if (r != BW_OK) return r;

    /* Everything is valid: build. */
    bw_rig_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.joints = L->joints;
    rd.joint_count = L->joint_count;
    rd.curves = L->curves;
    rd.curve_count = L->curve_count;
    if (c->a) rd.allocator = *c->a;
    bw_error sub;
    memset(&sub, 0, sizeof sub);
    bw_rig *rig = NULL;
    r = bw_rig_create(&rd, &rig, &sub);
    if (r != BW_OK) return bw_gltf_fail(c, r, "nodes", "building the rig: %s", sub.message);
    bw_clip **clips = NULL;
    if (L->anim_count) {
        clips = (bw_clip **)bw_alloc_zeroed(c->a, (size_t)L->anim_count * sizeof *clips);
        if (!clips) {
            bw_rig_destroy(rig);
            return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, "animations", "out of memory");
        }
    }
    for (int i = 0; i < L->anim_count; i++) {
        bw_clip_desc cd;
        memset(&cd, 0, sizeof cd);
        cd.name = L->anims[i].name;
        cd.tracks = L->anims[i].tracks;
        cd.track_count = L->anims[i].count;
        cd.loop = true;
        if (c->a) cd.allocator = *c->a;
        cd.logger = c->logger;
        r = bw_clip_create(&cd, &clips[i], &sub);
        if (r != BW_OK) {
            char where[GLTF_PATH_SIZE];
            for (int k = 0; k < i; k++) bw_clip_destroy(clips[k]);
            bw_free(c->a, clips, (size_t)L->anim_count * sizeof *clips);
            bw_rig_destroy(rig);
            return bw_gltf_fail(c, r, bw_gltf_path(where, "animations[%d]", i), "building the clip: %s", sub.message);
        }
    }
    asset->kind = BW_ASSET_GLTF;
    asset->rig = rig;
    asset->clips = clips;
    asset->clip_count = L->anim_count;
    asset->joint_node = L->joint_node;
    L->joint_node = NULL; /* now the asset's */
    asset->frame_time = 0.0f;
    asset->frame_count = 0;
    return BW_OK;
}

bw_result bw_gltf_load(const void *data, size_t size, const char *name, const bw_io_origin *origin,
                       const bw_asset_options *options, bw_asset *asset, bw_error *err)
{
    if (!data || !asset) return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "bw_gltf_load: NULL argument");
    loader L;
    memset(&L, 0, sizeof L);
    bw_gltf_ctx_init(&L.c, name, origin, options, err);
    bw_result r = load(&L, data, size, asset);
    if (L.joint_node) bw_free(L.c.a, L.joint_node, (size_t)L.joint_count * sizeof(int));
    release(&L);
    return r;
}
