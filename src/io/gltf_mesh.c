/* gltf_mesh.c - a glTF file's meshes as one skinnable bw_mesh (mesh.h).
 *
 * It reads the document with the rig loader's own pieces (gltf_internal.h:
 * bw_gltf_open, the typed JSON reads, bw_gltf_accessor_floats / _uints,
 * bw_gltf_node_rest) and maps the skins' joint nodes to rig joints through
 * the asset's joint_node table. Three passes: list the primitives, decode
 * and validate each one (nothing of the mesh is allocated yet), then copy
 * into the mesh.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>

#include "blendwerk/mesh.h"
#include "blendwerk/pose.h"
#include "gltf_internal.h"
#include "mesh_internal.h"
#include "safe_file.h"

typedef struct prim_info {
    int node, mesh, prim;
    int skin;      /* -1: follows its node */
    int bind_base; /* first palette entry of its skin or node */
    int vertex_count, index_count;
    int targets; /* morph targets applied (0 when none or not applicable) */
    bool target_normals; /* some target has NORMAL offsets (used when the primitive has NORMAL) */
    const cJSON *target_list;
    const gltf_floats *pos, *nrm, *jnt, *wgt, *idx;
} prim_info;

typedef struct mesh_loader {
    gltf_ctx c;
    const bw_asset *asset;
    int *node_parent;     /* per node, -1 for roots */
    int *node_joint;      /* per node: rig joint, -1 */
    const cJSON **skins;
    int skin_count;
    int *skin_bind_base;  /* per skin: first palette entry, -1 while unused */
    int *skin_joint_count;
    prim_info *prims;
    int prim_count;
    int bind_count;
    int vertex_total, index_total;
    int *node_curve_first; /* per node: the rig curve of its first morph target, -1 */
    bool morph_ok;         /* the rig's curves are this file's morph targets */
    int morph_count;       /* primitives with morph targets */
    int morph_fill;        /* blocks written so far (build) */
} mesh_loader;

/* ---- nodes ---- */

/* The node tree (the rig loader's reader and checks, gltf_internal.h)
 * and the rig's joints found on it. */
static bw_result read_tree(mesh_loader *L)
{
    gltf_ctx *c = &L->c;
    int n = c->node_count;
    int *scratch = NULL; /* depths, marks, path: 3 n ints, only for the cycle check */
    if (n) {
        L->node_parent = (int *)bw_alloc(c->a, (size_t)n * sizeof(int));
        L->node_joint = (int *)bw_alloc(c->a, (size_t)n * sizeof(int));
        scratch = (int *)bw_alloc(c->a, (size_t)n * 3 * sizeof(int));
        if (!L->node_parent || !L->node_joint || !scratch) {
            bw_free(c->a, scratch, scratch ? (size_t)n * 3 * sizeof(int) : 0);
            return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, "nodes", "out of memory");
        }
    }
    for (int i = 0; i < n; i++) L->node_parent[i] = L->node_joint[i] = -1;
    bw_result r = BW_OK;
    for (int i = 0; i < n && r == BW_OK; i++) r = bw_gltf_node_children(c, i, L->node_parent);
    if (r == BW_OK && n) r = bw_gltf_node_depths(c, L->node_parent, scratch, scratch + n, scratch + 2 * n);
    bw_free(c->a, scratch, scratch ? (size_t)n * 3 * sizeof(int) : 0);
    if (r != BW_OK) return r;
    /* the asset's joints */
    const bw_asset *a = L->asset;
    int joints = bw_rig_joint_count(a->rig);
    for (int j = 0; j < joints; j++) {
        int node = a->joint_node[j];
        if (node < 0 || node >= n || L->node_joint[node] >= 0 || !bw_gltf_is_joint_name(c, node, bw_rig_joint_name(a->rig, j)))
            return bw_gltf_fail(c, BW_ERR_INVALID_ARGUMENT, "nodes",
                                "the asset's joint %d (\"%s\") is not a node of this file: was the asset loaded "
                                "from another file?",
                                j, bw_rig_joint_name(a->rig, j));
        L->node_joint[node] = j;
    }
    return BW_OK;
}

/* Local matrix of a node. */
static bw_result node_matrix(mesh_loader *L, int node, float m[4][4])
{
    bw_transform t;
    bw_result r = bw_gltf_node_rest(&L->c, node, &t);
    if (r == BW_OK) bw_transform_to_matrix(&t, m);
    return r;
}

/* Product of the local matrices of the nodes from `node` up to, not
 * including, `stop` (-1: to the root). */
static bw_result chain_matrix(mesh_loader *L, int node, int stop, float out[4][4])
{
    bw_affine_identity(out);
    for (int n = node; n >= 0 && n != stop; n = L->node_parent[n]) {
        float local[4][4], t[4][4];
        bw_result r = node_matrix(L, n, local);
        if (r != BW_OK) return r;
        bw_affine_mul(local, out, t);
        memcpy(out, t, sizeof t);
    }
    return BW_OK;
}

/* ---- skins ---- */

static bw_result use_skin(mesh_loader *L, int s)
{
    gltf_ctx *c = &L->c;
    if (L->skin_bind_base[s] >= 0) return BW_OK;
    char base[GLTF_PATH_SIZE], where[GLTF_PATH_SIZE];
    bw_gltf_path(base, "skins[%d]", s);
    const cJSON *joints;
    int count = 0;
    bw_result r = bw_gltf_member_array(c, L->skins[s], base, "joints", true, &joints, &count);
    if (r != BW_OK) return r;
    if (count < 1) return bw_gltf_fail(c, BW_ERR_EMPTY, bw_gltf_path(where, "%s.joints", base), "a skin needs joints");
    for (int k = 0; k < count; k++) {
        long long node;
        bw_gltf_path(where, "%s.joints[%d]", base, k);
        r = bw_gltf_int(c, cJSON_GetArrayItem(joints, k), where, 0, c->node_count - 1, &node);
        if (r != BW_OK) return r;
        if (L->node_joint[node] < 0)
            return bw_gltf_fail(c, BW_ERR_NOT_FOUND, where, "node %lld is not a joint of the asset's rig", node);
    }
    if (L->bind_count > INT_MAX - count) return bw_gltf_fail(c, BW_ERR_LIMIT, base, "too many skin joints");
    L->skin_bind_base[s] = L->bind_count;
    L->skin_joint_count[s] = count;
    L->bind_count += count;
    return BW_OK;
}

/* Write skin s's palette entries: rig joints and inverse bind matrices. */
static bw_result fill_skin(mesh_loader *L, int s, bw_mesh *m)
{
    gltf_ctx *c = &L->c;
    char base[GLTF_PATH_SIZE], where[GLTF_PATH_SIZE];
    bw_gltf_path(base, "skins[%d]", s);
    const cJSON *joints = cJSON_GetObjectItemCaseSensitive(L->skins[s], "joints");
    int count = L->skin_joint_count[s], b0 = L->skin_bind_base[s];
    long long ibm = -1;
    bw_result r = bw_gltf_member_int(c, L->skins[s], base, "inverseBindMatrices", false, 0,
                                     (long long)c->accessor_count - 1, -1, &ibm);
    if (r != BW_OK) return r;
    const gltf_floats *f = NULL;
    bw_gltf_path(where, "%s.inverseBindMatrices", base);
    if (ibm >= 0) {
        r = bw_gltf_accessor_floats(c, (int)ibm, 16, where, &f);
        if (r != BW_OK) return r;
        if (f->count < (size_t)count)
            return bw_gltf_fail(c, BW_ERR_RANGE, where, "%zu matrices for %d joints", f->count, count);
    }
    for (int k = 0; k < count; k++) {
        m->bind_joint[b0 + k] = L->node_joint[cJSON_GetArrayItem(joints, k)->valueint];
        if (!f) {
            bw_affine_identity(m->inverse_bind[b0 + k]);
            continue;
        }
        const float *e = f->data + (size_t)k * 16;
        if (fabsf(e[3]) > 1e-4f || fabsf(e[7]) > 1e-4f || fabsf(e[11]) > 1e-4f || fabsf(e[15] - 1.0f) > 1e-4f)
            return bw_gltf_fail(c, BW_ERR_UNSUPPORTED, where, "matrix %d is not affine (last row %g %g %g %g)", k,
                                (double)e[3], (double)e[7], (double)e[11], (double)e[15]);
        memcpy(m->inverse_bind[b0 + k], e, 16 * sizeof(float));
        for (int col = 0; col < 4; col++) m->inverse_bind[b0 + k][col][3] = col == 3 ? 1.0f : 0.0f;
    }
    return BW_OK;
}

static bw_result attribute(mesh_loader *L, const cJSON *attrs, const char *abase, const char *name, bool required,
                           long long *out);

/* ---- morph targets ---- */

/* The rig loader declares one curve per morph target of every node with a
 * mesh, in node order (gltf.c, build_curves): a mesh's target count is
 * its primitives' (the loader checked they agree), else its default
 * weights'. Find each node's first curve; when the totals do not match
 * the rig's curves, morphs are left out with a warning. */
static bw_result map_curves(mesh_loader *L)
{
    gltf_ctx *c = &L->c;
    int total = 0;
    for (int i = 0; i < c->node_count; i++) {
        L->node_curve_first[i] = -1;
        const cJSON *mesh = cJSON_GetObjectItemCaseSensitive(c->nodes[i], "mesh");
        if (!cJSON_IsNumber(mesh) || mesh->valueint < 0 || mesh->valueint >= c->mesh_count) continue;
        const cJSON *m = c->meshes[mesh->valueint];
        const cJSON *prim0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(m, "primitives"), 0);
        int targets = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(prim0, "targets"));
        if (targets == 0) targets = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(m, "weights"));
        if (targets == 0) continue;
        L->node_curve_first[i] = total;
        total += targets;
    }
    L->morph_ok = total == bw_rig_curve_count(L->asset->rig);
    if (!L->morph_ok)
        bw_gltf_warn(c, "meshes", "%d morph targets but the asset's rig has %d curves: morphs are not applied", total,
                     bw_rig_curve_count(L->asset->rig));
    return BW_OK;
}

/* One target attribute's offsets (float VEC3, one per vertex), or none. */
static bw_result target_offsets(mesh_loader *L, const prim_info *pi, const cJSON *target, const char *tbase,
                                const char *name, const gltf_floats **out)
{
    gltf_ctx *c = &L->c;
    char where[GLTF_PATH_SIZE];
    long long acc = -1;
    *out = NULL;
    bw_result r = attribute(L, target, tbase, name, false, &acc);
    if (r != BW_OK || acc < 0) return r;
    r = bw_gltf_accessor_floats(c, (int)acc, 3, bw_gltf_path(where, "%s.%s", tbase, name), out);
    if (r != BW_OK) return r;
    if ((*out)->count != (size_t)pi->vertex_count)
        return bw_gltf_fail(c, BW_ERR_RANGE, where, "%zu offsets for %d vertices", (*out)->count, pi->vertex_count);
    return BW_OK;
}

/* Validate a primitive's morph targets (POSITION offsets and, when the
 * primitive has NORMAL (read before), NORMAL offsets, one per vertex;
 * other attributes are ignored). */
static bw_result read_targets(mesh_loader *L, prim_info *pi, const cJSON *prim, const char *base)
{
    gltf_ctx *c = &L->c;
    const cJSON *targets;
    int count = 0;
    bw_result r = bw_gltf_member_array(c, prim, base, "targets", false, &targets, &count);
    if (r != BW_OK || count == 0 || !L->morph_ok || L->node_curve_first[pi->node] < 0) return r;
    for (int t = 0; t < count; t++) {
        char tbase[GLTF_PATH_SIZE];
        bw_gltf_path(tbase, "%s.targets[%d]", base, t);
        const cJSON *target = cJSON_GetArrayItem(targets, t);
        if (!cJSON_IsObject(target)) return bw_gltf_fail(c, BW_ERR_PARSE, tbase, "expected an object");
        const gltf_floats *d;
        r = target_offsets(L, pi, target, tbase, "POSITION", &d);
        if (r != BW_OK) return r;
        if (!pi->nrm) continue; /* normals made from the triangles: NORMAL offsets do not apply */
        r = target_offsets(L, pi, target, tbase, "NORMAL", &d);
        if (r != BW_OK) return r;
        pi->target_normals |= d != NULL;
    }
    pi->targets = count;
    pi->target_list = targets;
    L->morph_count++;
    return BW_OK;
}

/* ---- primitives ---- */

/* Walk every node's mesh primitives: count them (out == NULL) or list
 * them into L->prims. */
static bw_result list_prims(mesh_loader *L, bool fill)
{
    gltf_ctx *c = &L->c;
    int k = 0;
    for (int i = 0; i < c->node_count; i++) {
        char base[GLTF_PATH_SIZE], where[GLTF_PATH_SIZE];
        bw_gltf_path(base, "nodes[%d]", i);
        long long mesh = -1, skin = -1;
        bw_result r = bw_gltf_member_int(c, c->nodes[i], base, "mesh", false, 0, (long long)c->mesh_count - 1, -1, &mesh);
        if (r == BW_OK)
            r = bw_gltf_member_int(c, c->nodes[i], base, "skin", false, 0, (long long)L->skin_count - 1, -1, &skin);
        if (r != BW_OK) return r;
        if (mesh < 0) continue;
        const cJSON *prims;
        int count = 0;
        bw_gltf_path(where, "meshes[%lld]", mesh);
        r = bw_gltf_member_array(c, c->meshes[mesh], where, "primitives", true, &prims, &count);
        if (r != BW_OK) return r;
        for (int p = 0; p < count; p++, k++) {
            if (!fill) continue;
            prim_info *pi = &L->prims[k];
            memset(pi, 0, sizeof *pi);
            pi->node = i;
            pi->mesh = (int)mesh;
            pi->prim = p;
            pi->skin = (int)skin;
        }
        if (k > GLTF_MAX_KEYS) return bw_gltf_fail(c, BW_ERR_LIMIT, "meshes", "more than %d primitives", GLTF_MAX_KEYS);
    }
    L->prim_count = k;
    return BW_OK;
}

/* Attribute `name` of a primitive: its accessor index, -1 when absent. */
static bw_result attribute(mesh_loader *L, const cJSON *attrs, const char *abase, const char *name, bool required,
                           long long *out)
{
    return bw_gltf_member_int(&L->c, attrs, abase, name, required, 0, (long long)L->c.accessor_count - 1, -1, out);
}

/* Decode and validate one primitive; false in *keep for skipped modes. */
static bw_result read_prim(mesh_loader *L, prim_info *pi, bool *keep)
{
    gltf_ctx *c = &L->c;
    char base[GLTF_PATH_SIZE], abase[GLTF_PATH_SIZE], where[GLTF_PATH_SIZE];
    bw_gltf_path(base, "meshes[%d].primitives[%d]", pi->mesh, pi->prim);
    const cJSON *prim = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(c->meshes[pi->mesh], "primitives"), pi->prim);
    if (!cJSON_IsObject(prim)) return bw_gltf_fail(c, BW_ERR_PARSE, base, "expected an object");
    long long mode = 4, indices = -1;
    bw_result r = bw_gltf_member_int(c, prim, base, "mode", false, 0, 6, 4, &mode);
    if (r == BW_OK)
        r = bw_gltf_member_int(c, prim, base, "indices", false, 0, (long long)c->accessor_count - 1, -1, &indices);
    if (r != BW_OK) return r;
    *keep = mode == 4;
    if (!*keep) {
        bw_gltf_warn(c, bw_gltf_path(where, "%s.mode", base), "mode %lld is not TRIANGLES (4): skipped", mode);
        return BW_OK;
    }
    const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(prim, "attributes");
    bw_gltf_path(abase, "%s.attributes", base);
    if (!cJSON_IsObject(attrs)) return bw_gltf_fail(c, BW_ERR_PARSE, abase, "required object is missing");
    long long pos, nrm, jnt = -1, wgt = -1;
    bool skinned = pi->skin >= 0;
    r = attribute(L, attrs, abase, "POSITION", true, &pos);
    if (r == BW_OK) r = attribute(L, attrs, abase, "NORMAL", false, &nrm);
    if (r == BW_OK && skinned) r = attribute(L, attrs, abase, "JOINTS_0", true, &jnt);
    if (r == BW_OK && skinned) r = attribute(L, attrs, abase, "WEIGHTS_0", true, &wgt);
    if (r != BW_OK) return r;
    r = bw_gltf_accessor_floats(c, (int)pos, 3, bw_gltf_path(where, "%s.POSITION", abase), &pi->pos);
    if (r != BW_OK) return r;
    size_t n = pi->pos->count;
    if (n > (size_t)(BW_MESH_MAX_VERTICES - L->vertex_total))
        return bw_gltf_fail(c, BW_ERR_LIMIT, where, "more than %d vertices in the file's meshes", BW_MESH_MAX_VERTICES);
    pi->vertex_count = (int)n;
    if (nrm >= 0) {
        r = bw_gltf_accessor_floats(c, (int)nrm, 3, bw_gltf_path(where, "%s.NORMAL", abase), &pi->nrm);
        if (r != BW_OK) return r;
        if (pi->nrm->count != n)
            return bw_gltf_fail(c, BW_ERR_RANGE, where, "%zu normals for %zu positions", pi->nrm->count, n);
    }
    r = read_targets(L, pi, prim, base);
    if (r != BW_OK) return r;
    if (skinned) {
        r = use_skin(L, pi->skin);
        if (r != BW_OK) return r;
        int joints = L->skin_joint_count[pi->skin];
        r = bw_gltf_accessor_uints(c, (int)jnt, 4, bw_gltf_path(where, "%s.JOINTS_0", abase), &pi->jnt);
        if (r != BW_OK) return r;
        if (pi->jnt->count != n)
            return bw_gltf_fail(c, BW_ERR_RANGE, where, "%zu joint sets for %zu positions", pi->jnt->count, n);
        for (size_t v = 0; v < n * 4; v++)
            if (pi->jnt->data[v] >= (float)joints)
                return bw_gltf_fail(c, BW_ERR_RANGE, where, "vertex %zu: joint %.0f is not below the skin's %d joints",
                                    v / 4, (double)pi->jnt->data[v], joints);
        r = bw_gltf_accessor_floats(c, (int)wgt, 4, bw_gltf_path(where, "%s.WEIGHTS_0", abase), &pi->wgt);
        if (r != BW_OK) return r;
        if (pi->wgt->count != n)
            return bw_gltf_fail(c, BW_ERR_RANGE, where, "%zu weight sets for %zu positions", pi->wgt->count, n);
        for (size_t v = 0; v < n; v++) {
            const float *w = pi->wgt->data + v * 4;
            if (w[0] < 0.0f || w[1] < 0.0f || w[2] < 0.0f || w[3] < 0.0f)
                return bw_gltf_fail(c, BW_ERR_RANGE, where, "vertex %zu has a negative weight", v);
            if (!(w[0] + w[1] + w[2] + w[3] > 0.0f))
                return bw_gltf_fail(c, BW_ERR_RANGE, where, "vertex %zu has no weight (all four are 0)", v);
        }
        pi->bind_base = L->skin_bind_base[pi->skin];
    } else {
        pi->bind_base = -1; /* one palette entry per node, given below */
    }
    if (indices >= 0) {
        bw_gltf_path(where, "%s.indices", base);
        r = bw_gltf_accessor_uints(c, (int)indices, 1, where, &pi->idx);
        if (r != BW_OK) return r;
        for (size_t k = 0; k < pi->idx->count; k++)
            if (pi->idx->data[k] >= (float)n)
                return bw_gltf_fail(c, BW_ERR_RANGE, where, "index %zu is %.0f, not below the vertex count %zu", k,
                                    (double)pi->idx->data[k], n);
        if (pi->idx->count % 3)
            return bw_gltf_fail(c, BW_ERR_PARSE, where, "%zu indices are not whole triangles", pi->idx->count);
        if (pi->idx->count > (size_t)(GLTF_MAX_KEYS - L->index_total))
            return bw_gltf_fail(c, BW_ERR_LIMIT, where, "more than %d indices in the file's meshes", GLTF_MAX_KEYS);
        pi->index_count = (int)pi->idx->count;
    } else {
        if (n % 3)
            return bw_gltf_fail(c, BW_ERR_PARSE, bw_gltf_path(where, "%s.POSITION", abase),
                                "%zu vertices without indices are not whole triangles", n);
        if (n > (size_t)(GLTF_MAX_KEYS - L->index_total))
            return bw_gltf_fail(c, BW_ERR_LIMIT, base, "more than %d indices in the file's meshes", GLTF_MAX_KEYS);
        pi->index_count = (int)n;
    }
    L->vertex_total += pi->vertex_count;
    L->index_total += pi->index_count;
    return BW_OK;
}

/* Smooth normals of one primitive's vertices from its triangles. */
static void face_normals(float *nrm, const float *pos, int vertex_count, const uint32_t *idx, int index_count,
                         uint32_t first)
{
    memset(nrm, 0, (size_t)vertex_count * 3 * sizeof(float));
    for (int t = 0; t + 2 < index_count; t += 3) {
        uint32_t a = idx[t] - first, b = idx[t + 1] - first, d = idx[t + 2] - first;
        const float *pa = pos + a * 3, *pb = pos + b * 3, *pd = pos + d * 3;
        float e1[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]}, e2[3] = {pd[0] - pa[0], pd[1] - pa[1], pd[2] - pa[2]};
        float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        const uint32_t tri[3] = {a, b, d};
        for (int k = 0; k < 3; k++)
            for (int j = 0; j < 3; j++) nrm[tri[k] * 3 + (uint32_t)j] += n[j]; /* area-weighted */
    }
    for (int v = 0; v < vertex_count; v++) {
        float *n = nrm + (size_t)v * 3;
        float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (l > 0.0f && isfinite(l)) {
            n[0] /= l;
            n[1] /= l;
            n[2] /= l;
        } else {
            n[0] = n[1] = n[2] = 0.0f;
        }
    }
}

/* q turned by the upper 3x3 of `place` when `moved`, else as it is. */
static void turn3(bool moved, const float place[4][4], const float *q, float out[3])
{
    for (int r = 0; r < 3; r++) out[r] = moved ? place[0][r] * q[0] + place[1][r] * q[1] + place[2][r] * q[2] : q[r];
}

/* The matrix that turns normals as `place` turns positions
 * (bw_normal_columns of its upper 3x3); only the upper 3x3 is set and
 * read (turn3). */
static void normal_matrix(const float place[4][4], float out[4][4])
{
    float cols[3][3];
    bw_normal_columns(place[0], place[1], place[2], cols);
    bw_affine_identity(out);
    for (int k = 0; k < 3; k++)
        for (int r = 0; r < 3; r++) out[k][r] = cols[k][r];
}

/* 1 / |v|, 0 for a zero vector. */
static float inverse_length3(const float *v)
{
    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    return l > 1e-20f ? 1.0f / l : 0.0f;
}

/* One target attribute's offsets into `o` (n x 3), turned like the
 * positions when the node is carried by a joint above it, and times
 * scale[v] when given; zeros when the target has no such attribute. */
static bw_result copy_offsets(mesh_loader *L, const prim_info *pi, int t, const char *name, bool moved,
                              const float place[4][4], const float *scale, float *o)
{
    const cJSON *acc = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(pi->target_list, t), name);
    if (!acc) return BW_OK;
    const gltf_floats *d;
    bw_result r = bw_gltf_accessor_floats(&L->c, acc->valueint, 3, "targets", &d); /* decoded and checked before */
    if (r != BW_OK) return r;
    for (size_t v = 0; v < (size_t)pi->vertex_count; v++) {
        turn3(moved, place, d->data + v * 3, o + v * 3);
        if (scale)
            for (int c = 0; c < 3; c++) o[v * 3 + (size_t)c] *= scale[v];
    }
    return BW_OK;
}

/* Fill morph block `mb` from a primitive's targets (offsets turned like
 * its positions when its node is carried by a joint above it, by
 * `place`; normal offsets like its normals, by `normal_place`). Normal
 * offsets (kept only when the primitive has NORMAL) are scaled like the
 * bind normals, which are normalized after turning, by `scale` (per
 * vertex, the bind normal's 1 / |turned normal|, copy_prim), so that bind
 * + offsets is the turned morphed normal up to its length. */
static bw_result copy_targets(mesh_loader *L, const prim_info *pi, bw_mesh_morph *mb, int v0, bool moved,
                              const float place[4][4], const float normal_place[4][4], const float *scale)
{
    gltf_ctx *c = &L->c;
    size_t n = (size_t)pi->vertex_count, size = (size_t)pi->targets * n * 3 * sizeof(float);
    mb->v0 = v0;
    mb->n = pi->vertex_count;
    mb->curve_first = L->node_curve_first[pi->node];
    mb->deltas = (float *)bw_alloc_zeroed(c->a, size);
    if (pi->target_normals && mb->deltas) { /* set only where the primitive has NORMAL (read_targets) */
        mb->normal_deltas = (float *)bw_alloc_zeroed(c->a, size);
        if (!mb->normal_deltas) {
            bw_free(c->a, mb->deltas, size);
            mb->deltas = NULL;
        }
    }
    if (!mb->deltas) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, "meshes", "out of memory");
    mb->targets = pi->targets; /* set once allocated: bw_mesh_destroy frees by it */
    bw_result r = BW_OK;
    for (int t = 0; t < pi->targets && r == BW_OK; t++) {
        r = copy_offsets(L, pi, t, "POSITION", moved, place, NULL, mb->deltas + (size_t)t * n * 3);
        if (r == BW_OK && mb->normal_deltas)
            r = copy_offsets(L, pi, t, "NORMAL", moved, normal_place, scale, mb->normal_deltas + (size_t)t * n * 3);
    }
    return r;
}

/* Copy a decoded primitive into the mesh at vertex `v0`, index `i0`. */
static bw_result copy_prim(mesh_loader *L, const prim_info *pi, bw_mesh *m, int v0, int i0)
{
    int n = pi->vertex_count;
    float *pos = m->positions + (size_t)v0 * 3, *nrm = m->normals + (size_t)v0 * 3;
    int32_t *jnt = m->joints + (size_t)v0 * 4;
    float *wgt = m->weights + (size_t)v0 * 4;
    uint32_t *idx = m->indices + i0;
    float place[4][4], normal_place[4][4];
    bw_affine_identity(place);
    bool moved = false;
    if (pi->skin < 0) {
        /* carried by the nearest rig joint at or above the node */
        int carrier = pi->node;
        while (carrier >= 0 && L->node_joint[carrier] < 0) carrier = L->node_parent[carrier];
        int b = pi->bind_base;
        m->bind_joint[b] = carrier >= 0 ? L->node_joint[carrier] : -1;
        bw_affine_identity(m->inverse_bind[b]);
        bw_result r = chain_matrix(L, pi->node, carrier, place);
        if (r != BW_OK) return r;
        moved = carrier != pi->node;
    }
    normal_matrix(place, normal_place);
    for (int v = 0; v < n; v++) {
        const float *p = pi->pos->data + (size_t)v * 3;
        float *o = pos + (size_t)v * 3;
        if (moved) {
            for (int r = 0; r < 3; r++) o[r] = place[0][r] * p[0] + place[1][r] * p[1] + place[2][r] * p[2] + place[3][r];
        } else {
            memcpy(o, p, 3 * sizeof(float));
        }
        if (pi->skin >= 0) {
            const float *w = pi->wgt->data + (size_t)v * 4;
            float sum = w[0] + w[1] + w[2] + w[3];
            for (int k = 0; k < 4; k++) {
                jnt[v * 4 + k] = pi->bind_base + (int32_t)pi->jnt->data[(size_t)v * 4 + (size_t)k];
                wgt[v * 4 + k] = w[k] / sum;
            }
        } else {
            jnt[v * 4] = jnt[v * 4 + 1] = jnt[v * 4 + 2] = jnt[v * 4 + 3] = pi->bind_base;
            wgt[v * 4] = 1.0f;
            wgt[v * 4 + 1] = wgt[v * 4 + 2] = wgt[v * 4 + 3] = 0.0f;
        }
    }
    for (int k = 0; k < pi->index_count; k++) idx[k] = (uint32_t)v0 + (pi->idx ? (uint32_t)pi->idx->data[k] : (uint32_t)k);
    /* each bind normal's 1 / |turned normal|, kept for the normal offsets
     * (copy_targets) when the primitive has them */
    float *scale = NULL;
    const size_t scale_size = pi->nrm && pi->targets && pi->target_normals ? (size_t)n * sizeof(float) : 0;
    if (scale_size) {
        scale = (float *)bw_alloc(L->c.a, scale_size);
        if (!scale) return bw_gltf_fail(&L->c, BW_ERR_OUT_OF_MEMORY, "meshes", "out of memory");
    }
    if (pi->nrm) {
        for (int v = 0; v < n; v++) {
            float *o = nrm + (size_t)v * 3;
            turn3(moved, normal_place, pi->nrm->data + (size_t)v * 3, o);
            float k = inverse_length3(o);
            o[0] *= k;
            o[1] *= k;
            o[2] *= k;
            if (scale) scale[v] = k;
        }
    } else {
        face_normals(nrm, pos, n, idx, pi->index_count, (uint32_t)v0);
    }
    bw_result r = BW_OK;
    if (pi->targets) {
        bw_mesh_morph *mb = &m->morphs[L->morph_fill++];
        r = copy_targets(L, pi, mb, v0, moved, place, normal_place, scale);
        m->normal_morphs |= r == BW_OK && mb->normal_deltas != NULL;
    }
    if (scale) bw_free(L->c.a, scale, scale_size);
    return r;
}

static bw_result build(mesh_loader *L, bw_mesh **out)
{
    gltf_ctx *c = &L->c;
    bw_mesh *m = (bw_mesh *)bw_alloc_zeroed(c->a, sizeof *m);
    if (!m) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, "meshes", "out of memory");
    if (c->a) m->allocator = *c->a;
    size_t n = (size_t)L->vertex_total, b = (size_t)L->bind_count;
    m->vertex_count = L->vertex_total;
    m->index_count = L->index_total;
    m->bind_count = L->bind_count;
    if (n) {
        m->positions = (float *)bw_alloc(c->a, n * 3 * sizeof(float));
        m->normals = (float *)bw_alloc(c->a, n * 3 * sizeof(float));
        m->joints = (int32_t *)bw_alloc(c->a, n * 4 * sizeof(int32_t));
        m->weights = (float *)bw_alloc(c->a, n * 4 * sizeof(float));
    }
    if (m->index_count) m->indices = (uint32_t *)bw_alloc(c->a, (size_t)m->index_count * sizeof(uint32_t));
    if (b) {
        m->bind_joint = (int *)bw_alloc(c->a, b * sizeof(int));
        m->inverse_bind = (float(*)[4][4])bw_alloc(c->a, b * sizeof *m->inverse_bind);
    }
    if (L->morph_count) m->morphs = (bw_mesh_morph *)bw_alloc_zeroed(c->a, (size_t)L->morph_count * sizeof *m->morphs);
    if (m->morphs) m->morph_count = L->morph_count; /* zeroed blocks free as empty */
    bw_result r = BW_OK;
    if ((L->morph_count && !m->morphs) || (n && (!m->positions || !m->normals || !m->joints || !m->weights)) || (m->index_count && !m->indices) ||
        (b && (!m->bind_joint || !m->inverse_bind)))
        r = bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, "meshes", "out of memory");
    for (int s = 0; r == BW_OK && s < L->skin_count; s++)
        if (L->skin_bind_base[s] >= 0) r = fill_skin(L, s, m);
    int v0 = 0, i0 = 0;
    for (int k = 0; r == BW_OK && k < L->prim_count; k++) {
        const prim_info *pi = &L->prims[k];
        if (!pi->pos) continue; /* skipped mode */
        r = copy_prim(L, pi, m, v0, i0);
        v0 += pi->vertex_count;
        i0 += pi->index_count;
    }
    /* the scene above the rig: the nodes over the first root joint */
    bw_affine_identity(m->scene);
    const bw_asset *a = L->asset;
    if (r == BW_OK && bw_rig_joint_count(a->rig) > 0) r = chain_matrix(L, L->node_parent[a->joint_node[0]], -1, m->scene);
    if (r != BW_OK) {
        bw_mesh_destroy(m);
        return r;
    }
    m->rig_joint_count = bw_rig_joint_count(a->rig);
    m->rig_curve_count = bw_rig_curve_count(a->rig);
    m->rig_layout = bw_rig_layout_signature(a->rig);
    *out = m;
    return BW_OK;
}

static bw_result load(mesh_loader *L, const void *data, size_t size, bw_mesh **out)
{
    gltf_ctx *c = &L->c;
    bw_result r = bw_gltf_open(c, data, size);
    if (r == BW_OK) r = read_tree(L);
    if (r == BW_OK && cJSON_GetObjectItemCaseSensitive(c->root, "skins"))
        r = bw_gltf_table(c, "skins", &L->skins, &L->skin_count);
    if (r != BW_OK) return r;
    if (L->skin_count) {
        L->skin_bind_base = (int *)bw_alloc(c->a, (size_t)L->skin_count * sizeof(int));
        L->skin_joint_count = (int *)bw_alloc(c->a, (size_t)L->skin_count * sizeof(int));
        if (!L->skin_bind_base || !L->skin_joint_count) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, "skins", "out of memory");
        for (int s = 0; s < L->skin_count; s++) L->skin_bind_base[s] = L->skin_joint_count[s] = -1;
    }
    if (c->node_count) {
        L->node_curve_first = (int *)bw_alloc(c->a, (size_t)c->node_count * sizeof(int));
        if (!L->node_curve_first) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, "nodes", "out of memory");
    }
    r = map_curves(L);
    if (r == BW_OK) r = list_prims(L, false);
    if (r != BW_OK) return r;
    if (L->prim_count) {
        L->prims = (prim_info *)bw_alloc_zeroed(c->a, (size_t)L->prim_count * sizeof *L->prims);
        if (!L->prims) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, "meshes", "out of memory");
    }
    r = list_prims(L, true);
    int last_node = -1;
    for (int k = 0; r == BW_OK && k < L->prim_count; k++) {
        bool keep = false;
        prim_info *pi = &L->prims[k];
        r = read_prim(L, pi, &keep);
        if (r != BW_OK || !keep) {
            pi->pos = NULL;
            continue;
        }
        if (pi->skin < 0) { /* one palette entry per unskinned node, shared by its primitives */
            if (pi->node != last_node) {
                if (L->bind_count == INT_MAX) return bw_gltf_fail(c, BW_ERR_LIMIT, "nodes", "too many mesh nodes");
                L->bind_count++;
            }
            pi->bind_base = L->bind_count - 1;
        }
        last_node = pi->skin < 0 ? pi->node : -1;
    }
    if (r != BW_OK) return r;
    if (L->index_total == 0) return bw_gltf_fail(c, BW_ERR_EMPTY, "meshes", "the file has no triangle meshes");
    return build(L, out);
}

static bw_result load_mesh(const void *data, size_t size, const char *name, const bw_io_origin *origin,
                           const bw_asset *asset, const bw_asset_options *options, bw_mesh **out, bw_error *err)
{
    if (!data || !asset || !out || !asset->rig) return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "bw_mesh_load: NULL argument");
    if (asset->kind != BW_ASSET_GLTF || (bw_rig_joint_count(asset->rig) > 0 && !asset->joint_node))
        return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "bw_mesh_load: the asset is not a glTF asset");
    mesh_loader L;
    memset(&L, 0, sizeof L);
    L.asset = asset;
    bw_gltf_ctx_init(&L.c, name, origin, options, err);
    if (size > L.c.max_bytes)
        return bw_fail_at(err, BW_ERR_LIMIT, name, 0, NULL, "%s: larger than the %zu-byte limit", name ? name : "(memory)",
                          L.c.max_bytes);
    bw_result r = load(&L, data, size, out);
    gltf_ctx *c = &L.c;
    size_t nn = (size_t)c->node_count;
    bw_free(c->a, L.node_parent, L.node_parent ? nn * sizeof(int) : 0);
    bw_free(c->a, L.node_joint, L.node_joint ? nn * sizeof(int) : 0);
    bw_free(c->a, L.node_curve_first, L.node_curve_first ? nn * sizeof(int) : 0);
    bw_free(c->a, (void *)L.skins, (size_t)L.skin_count * sizeof *L.skins);
    bw_free(c->a, L.skin_bind_base, (size_t)L.skin_count * sizeof(int));
    bw_free(c->a, L.skin_joint_count, (size_t)L.skin_count * sizeof(int));
    bw_free(c->a, L.prims, (size_t)L.prim_count * sizeof *L.prims);
    bw_gltf_close(c);
    return r;
}

bw_result bw_mesh_load_memory(const void *data, size_t size, const char *name, const bw_asset *asset,
                              const bw_asset_options *options, bw_mesh **out, bw_error *err)
{
    bw_io_origin origin = {name, name ? bw_io_dir_length(name) : 0, "", 0};
    return load_mesh(data, size, name, name ? &origin : NULL, asset, options, out, err);
}

bw_result bw_mesh_load_file(const char *path, const bw_asset *asset, const bw_asset_options *options, bw_mesh **out,
                            bw_error *err)
{
    if (!path || !out) return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "bw_mesh_load_file: NULL argument");
    size_t max = options && options->max_bytes ? options->max_bytes : ((size_t)512 << 20);
    bw_io_read req = {NULL, options ? &options->allocator : NULL, max, 0};
    void *data = NULL;
    size_t size = 0;
    bw_result r = bw_io_read_path(path, strlen(path), &req, &data, &size, err);
    if (r != BW_OK) return r;
    bw_io_origin origin = {path, bw_io_dir_length(path), "", 0};
    r = load_mesh(data, size, path, &origin, asset, options, out, err);
    bw_io_free(req.allocator, data, size);
    return r;
}
