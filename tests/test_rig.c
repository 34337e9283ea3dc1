/* test_rig.c - rigs: creation and validation errors (each naming the joint),
 * lookups, curves, topology revision and layout signature (SPEC §1). */
#include <math.h>
#include <string.h>

#include "blendwerk/rig.h"
#include "check.h"
#include "fixtures.h"
#include "test_alloc_counter.h"

static const bw_transform ID = {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};

static bw_rig_joint_desc J(const char *name, int parent)
{
    bw_rig_joint_desc d;
    d.name = name;
    d.parent = parent;
    d.rest = ID;
    return d;
}

/* Create from joints; returns the result, fills err and *rig. */
static bw_result make(const bw_rig_joint_desc *joints, int n, bw_rig **rig, bw_error *err)
{
    bw_rig_desc d;
    memset(&d, 0, sizeof d);
    d.joints = joints;
    d.joint_count = n;
    return bw_rig_create(&d, rig, err);
}

/* Independent FNV-1a 64 over the documented signature input: each joint's
 * name with its terminating NUL, then its parent index as 4 little-endian
 * bytes, in joint order. */
static uint64_t fnv(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}
static uint64_t expected_signature(const bw_rig_joint_desc *joints, int n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < n; i++) {
        h = fnv(h, (const unsigned char *)joints[i].name, strlen(joints[i].name) + 1);
        uint32_t p = (uint32_t)joints[i].parent;
        unsigned char b[4] = {(unsigned char)p, (unsigned char)(p >> 8), (unsigned char)(p >> 16),
                              (unsigned char)(p >> 24)};
        h = fnv(h, b, 4);
    }
    return h;
}

/* hips
 *  ├─ spine ── neck ── head
 *  ├─ arm_l ── hand
 *  └─ arm_r ── hand            (two "hand"s under different parents) */
static const bw_rig_joint_desc *humanoid(int *n)
{
    static bw_rig_joint_desc j[8];
    j[0] = J("hips", -1);
    j[1] = J("spine", 0);
    j[2] = J("neck", 1);
    j[3] = J("head", 2);
    j[4] = J("arm_l", 0);
    j[5] = J("hand", 4);
    j[6] = J("arm_r", 0);
    j[7] = J("hand", 6);
    *n = 8;
    return j;
}

static void create_valid_rig_and_query_it(void)
{
    int n;
    const bw_rig_joint_desc *j = humanoid(&n);
    bw_rig *rig = NULL;
    bw_error err;
    CHECK_INT(make(j, n, &rig, &err), BW_OK);
    CHECK_INT(bw_rig_joint_count(rig), 8);
    CHECK_STR(bw_rig_joint_name(rig, 3), "head");
    CHECK(bw_rig_joint_name(rig, 8) == NULL);
    CHECK(bw_rig_joint_name(rig, -1) == NULL);
    CHECK_INT(bw_rig_joint_parent(rig, 7), 6);
    CHECK_INT(bw_rig_joint_parent(rig, 0), -1);
    CHECK_INT(bw_rig_joint_parent(rig, 99), -1);
    const int *parents = bw_rig_parents(rig);
    const int want[8] = {-1, 0, 1, 2, 0, 4, 0, 6};
    for (int i = 0; i < 8; i++) CHECK_INT(parents[i], want[i]);
    CHECK_INT(bw_rig_topology_revision(rig), 1);
    CHECK(bw_rig_layout_signature(rig) == expected_signature(j, n));
    bw_rig_destroy(rig);
    bw_rig_destroy(NULL);
}

static void names_are_copied_and_rest_rotations_normalized(void)
{
    char name[16] = "pelvis";
    bw_rig_joint_desc j[3] = {J(name, -1), J("a", 0), J("b", 0)};
    /* (0,0,0,2) -> (0,0,0,1); (0,3,0,4)/5 = (0,0.6,0,0.8); a huge but
     * finite (1e30,0,0,1e30) must not overflow: (0.70710678,0,0,0.70710678). */
    j[0].rest.r[3] = 2.0f;
    j[1].rest.r[1] = 3.0f;
    j[1].rest.r[3] = 4.0f;
    j[2].rest.r[0] = 1e30f;
    j[2].rest.r[3] = 1e30f;
    j[2].rest.t[0] = 5.0f;
    bw_rig *rig = NULL;
    CHECK_INT(make(j, 3, &rig, NULL), BW_OK);
    strcpy(name, "XXXXXX");
    CHECK_STR(bw_rig_joint_name(rig, 0), "pelvis");
    CHECK_INT(bw_rig_find_by_name(rig, "pelvis"), 0);
    const bw_transform *rest = bw_rig_rest_pose(rig);
    CHECK_NEAR(rest[0].r[3], 1.0, 1e-7);
    CHECK_NEAR(rest[1].r[1], 0.6, 1e-7);
    CHECK_NEAR(rest[1].r[3], 0.8, 1e-7);
    CHECK_NEAR(rest[2].r[0], 0.70710678, 1e-7);
    CHECK_NEAR(rest[2].r[3], 0.70710678, 1e-7);
    CHECK_NEAR(rest[2].t[0], 5.0, 0);
    bw_rig_destroy(rig);
}

static void empty_rig_is_valid(void)
{
    bw_rig *rig = NULL;
    CHECK_INT(make(NULL, 0, &rig, NULL), BW_OK);
    CHECK_INT(bw_rig_joint_count(rig), 0);
    CHECK_INT(bw_rig_curve_count(rig), 0);
    CHECK_INT(bw_rig_find_by_name(rig, "hips"), -1);
    CHECK_INT(bw_rig_find(rig, "", "hips"), -1);
    CHECK_INT(bw_rig_topology_revision(rig), 1);
    /* FNV-1a of no bytes is its offset basis */
    CHECK(bw_rig_layout_signature(rig) == 0xcbf29ce484222325ull);
    /* it can grow */
    bw_rig_joint_desc root = J("root", -1);
    CHECK_INT(bw_rig_add_joint(rig, &root, NULL), BW_OK);
    CHECK_INT(bw_rig_find(rig, "", "root"), 0);
    CHECK_INT(bw_rig_topology_revision(rig), 2);
    bw_rig_destroy(rig);
}

static void lookups_by_parent_and_name(void)
{
    int n;
    const bw_rig_joint_desc *j = humanoid(&n);
    bw_rig *rig = NULL;
    CHECK_INT(make(j, n, &rig, NULL), BW_OK);
    CHECK_INT(bw_rig_find(rig, "", "hips"), 0);
    CHECK_INT(bw_rig_find(rig, "hips", "hips"), -1);
    CHECK_INT(bw_rig_find(rig, "spine", "neck"), 2);
    CHECK_INT(bw_rig_find(rig, "hips", "neck"), -1);
    CHECK_INT(bw_rig_find(rig, "arm_l", "hand"), 5);
    CHECK_INT(bw_rig_find(rig, "arm_r", "hand"), 7);
    CHECK_INT(bw_rig_find(rig, NULL, "hand"), BW_RIG_AMBIGUOUS);
    CHECK_INT(bw_rig_find_by_name(rig, "hand"), BW_RIG_AMBIGUOUS);
    CHECK_INT(bw_rig_find_by_name(rig, "head"), 3);
    CHECK_INT(bw_rig_find_by_name(rig, "arm_r"), 6);
    CHECK_INT(bw_rig_find_by_name(rig, "missing"), -1);
    CHECK_INT(bw_rig_find_by_name(rig, ""), -1);
    CHECK_INT(bw_rig_find_by_name(rig, "han"), -1);  /* prefixes do not match */
    CHECK_INT(bw_rig_find_by_name(rig, "hands"), -1);
    CHECK_INT(bw_rig_find_by_name(rig, NULL), -1);
    CHECK_INT(bw_rig_find_by_name(NULL, "hips"), -1);
    bw_rig_destroy(rig);

    /* Names with colons and dots are plain names. */
    bw_rig_joint_desc mx[3] = {J("mixamorig:Hips", -1), J("mixamorig:Spine", 0), J("Bone.001", 1)};
    CHECK_INT(make(mx, 3, &rig, NULL), BW_OK);
    CHECK_INT(bw_rig_find(rig, "mixamorig:Hips", "mixamorig:Spine"), 1);
    CHECK_INT(bw_rig_find_by_name(rig, "Bone.001"), 2);
    CHECK_INT(bw_rig_find_by_name(rig, "Spine"), -1);
    bw_rig_destroy(rig);
}

/* Expect `code`, a message naming `name`, *rig untouched. */
static void expect_error(const bw_rig_joint_desc *j, int n, bw_result code, const char *name, const char *where)
{
    bw_rig *sentinel = (bw_rig *)&sentinel, *rig = sentinel;
    bw_error err;
    memset(&err, 0, sizeof err);
    CHECK_INT(make(j, n, &rig, &err), code);
    CHECK_INT(err.code, code);
    CHECK(rig == sentinel);
    char quoted[128];
    snprintf(quoted, sizeof quoted, "'%s'", name);
    CHECK_CONTAINS(err.message, quoted);
    if (where) CHECK_STR(err.where, where);
    /* and without an error report it still fails the same way */
    CHECK_INT(make(j, n, &rig, NULL), code);
    CHECK(rig == sentinel);
}

static void cyclic_parents_are_reported(void)
{
    /* its own parent */
    bw_rig_joint_desc self[2] = {J("root", -1), J("loop", 1)};
    expect_error(self, 2, BW_ERR_CYCLE, "loop", "joints[1]");
    bw_rig_joint_desc self0[1] = {J("solo", 0)};
    expect_error(self0, 1, BW_ERR_CYCLE, "solo", "joints[0]");
    /* a ↔ b */
    bw_rig_joint_desc two[2] = {J("a", 1), J("b", 0)};
    expect_error(two, 2, BW_ERR_CYCLE, "a", "joints[0]");
    /* b leads into the loop c ↔ d without being on it */
    bw_rig_joint_desc into[4] = {J("root", -1), J("b", 2), J("c", 3), J("d", 2)};
    expect_error(into, 4, BW_ERR_CYCLE, "b", "joints[1]");
}

static void out_of_order_parents_are_reported(void)
{
    /* "arm" (0) has its parent "torso" (1) after it; torso is a root, so
     * the tree is fine but misordered. */
    bw_rig_joint_desc j[2] = {J("arm", 1), J("torso", -1)};
    expect_error(j, 2, BW_ERR_ORDER, "arm", "joints[0]");
    bw_error err;
    bw_rig *rig = NULL;
    make(j, 2, &rig, &err);
    CHECK_CONTAINS(err.message, "'torso'");
    /* deeper: c (0) -> b (2) -> a (1) -> root */
    bw_rig_joint_desc k[3] = {J("c", 2), J("a", -1), J("b", 1)};
    expect_error(k, 3, BW_ERR_ORDER, "c", "joints[0]");
}

static void bad_parent_indices_names_and_values(void)
{
    bw_rig_joint_desc range[2] = {J("root", -1), J("far", 5)};
    expect_error(range, 2, BW_ERR_RANGE, "far", "joints[1]");
    bw_rig_joint_desc neg[2] = {J("root", -1), J("neg", -2)};
    expect_error(neg, 2, BW_ERR_RANGE, "neg", "joints[1]");

    bw_rig_joint_desc empty[2] = {J("root", -1), J("", 0)};
    bw_rig *rig = NULL;
    bw_error err;
    CHECK_INT(make(empty, 2, &rig, &err), BW_ERR_EMPTY);
    CHECK_CONTAINS(err.message, "joint 1");
    CHECK_STR(err.where, "joints[1]");
    bw_rig_joint_desc null_name[2] = {J("root", -1), J(NULL, 0)};
    CHECK_INT(make(null_name, 2, &rig, &err), BW_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "joint 1");

    const float bad[] = {NAN, INFINITY, -INFINITY};
    for (int i = 0; i < 3; i++) {
        bw_rig_joint_desc j[2] = {J("root", -1), J("knee", 0)};
        j[1].rest.t[1] = bad[i];
        expect_error(j, 2, BW_ERR_NON_FINITE, "knee", "joints[1]");
        j[1].rest = ID;
        j[1].rest.s[2] = bad[i];
        expect_error(j, 2, BW_ERR_NON_FINITE, "knee", "joints[1]");
        j[1].rest = ID;
        j[1].rest.r[0] = bad[i];
        expect_error(j, 2, BW_ERR_NON_FINITE, "knee", "joints[1]");
    }
    bw_rig_joint_desc zero[1] = {J("zero_rot", -1)};
    zero[0].rest.r[3] = 0.0f;
    expect_error(zero, 1, BW_ERR_NON_FINITE, "zero_rot", "joints[0]");

    /* whole-desc errors */
    bw_rig_desc d;
    memset(&d, 0, sizeof d);
    CHECK_INT(bw_rig_create(NULL, &rig, &err), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_rig_create(&d, NULL, &err), BW_ERR_INVALID_ARGUMENT);
    d.joint_count = -1;
    CHECK_INT(bw_rig_create(&d, &rig, &err), BW_ERR_INVALID_ARGUMENT);
    d.joint_count = 2; /* joints NULL */
    CHECK_INT(bw_rig_create(&d, &rig, &err), BW_ERR_INVALID_ARGUMENT);
    d.joint_count = BW_RIG_MAX_JOINTS + 1;
    CHECK_INT(bw_rig_create(&d, &rig, &err), BW_ERR_LIMIT);
}

static void duplicate_parent_name_pairs_are_reported(void)
{
    bw_rig_joint_desc dup[4] = {J("hips", -1), J("arm", 0), J("hand", 1), J("hand", 1)};
    expect_error(dup, 4, BW_ERR_DUPLICATE, "hand", "joints[3]");
    bw_error err;
    bw_rig *rig = NULL;
    make(dup, 4, &rig, &err);
    CHECK_CONTAINS(err.message, "'arm'");
    CHECK_CONTAINS(err.message, "appears twice");
    /* two roots with one name */
    bw_rig_joint_desc roots[2] = {J("root", -1), J("root", -1)};
    expect_error(roots, 2, BW_ERR_DUPLICATE, "root", "joints[1]");
    /* different parents that share a name: the pair (arm, hand) occurs
     * twice and could not be told apart by a clip track */
    bw_rig_joint_desc same_parent_name[5] = {J("hips", -1), J("arm", 0), J("hand", 1), J("arm", 1), J("hand", 3)};
    expect_error(same_parent_name, 5, BW_ERR_DUPLICATE, "hand", "joints[4]");
    /* the same name under different parent names is fine */
    int n;
    const bw_rig_joint_desc *ok = humanoid(&n);
    CHECK_INT(make(ok, n, &rig, &err), BW_OK);
    bw_rig_destroy(rig);
}

static void curves_are_validated_and_found(void)
{
    bw_rig_curve_desc c[3] = {
        {"blink_l", BW_CURVE_FLOAT, 0.0f}, {"jaw", BW_CURVE_FLOAT, 0.25f}, {"yaw", BW_CURVE_ANGLE, 1.5f}};
    bw_rig_desc d;
    memset(&d, 0, sizeof d);
    d.curves = c;
    d.curve_count = 3;
    bw_rig *rig = NULL;
    bw_error err;
    CHECK_INT(bw_rig_create(&d, &rig, &err), BW_OK);
    CHECK_INT(bw_rig_curve_count(rig), 3);
    CHECK_INT(bw_rig_find_curve(rig, "jaw"), 1);
    CHECK_INT(bw_rig_find_curve(rig, "yaw"), 2);
    CHECK_INT(bw_rig_find_curve(rig, "blink_l"), 0);
    CHECK_INT(bw_rig_find_curve(rig, "blink_r"), -1);
    CHECK_INT(bw_rig_find_curve(rig, NULL), -1);
    CHECK_STR(bw_rig_curve_name(rig, 2), "yaw");
    CHECK(bw_rig_curve_name(rig, 3) == NULL);
    CHECK_INT(bw_rig_curve_kind(rig, 2), BW_CURVE_ANGLE);
    CHECK_INT(bw_rig_curve_kind(rig, 0), BW_CURVE_FLOAT);
    CHECK_INT(bw_rig_curve_kind(rig, -1), BW_CURVE_FLOAT);
    CHECK_NEAR(bw_rig_curve_rest(rig)[1], 0.25, 0);
    CHECK_NEAR(bw_rig_curve_rest(rig)[2], 1.5, 0);
    /* curves are not part of the joint layout */
    CHECK(bw_rig_layout_signature(rig) == 0xcbf29ce484222325ull);
    bw_rig_destroy(rig);

    rig = NULL;
    c[2].name = "jaw";
    CHECK_INT(bw_rig_create(&d, &rig, &err), BW_ERR_DUPLICATE);
    CHECK_CONTAINS(err.message, "'jaw'");
    CHECK_STR(err.where, "curves[2]");
    c[2].name = "";
    CHECK_INT(bw_rig_create(&d, &rig, &err), BW_ERR_EMPTY);
    c[2].name = "yaw";
    c[2].rest = NAN;
    CHECK_INT(bw_rig_create(&d, &rig, &err), BW_ERR_NON_FINITE);
    CHECK_CONTAINS(err.message, "'yaw'");
    c[2].rest = 0.0f;
    c[2].kind = (bw_curve_kind)7;
    CHECK_INT(bw_rig_create(&d, &rig, &err), BW_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "'yaw'");
    CHECK(rig == NULL);
}

static void set_rest_changes_values_only(void)
{
    int n;
    const bw_rig_joint_desc *j = humanoid(&n);
    bw_rig *rig = NULL;
    CHECK_INT(make(j, n, &rig, NULL), BW_OK);
    uint64_t sig = bw_rig_layout_signature(rig);
    bw_transform x = {{1, 2, 3}, {0, 0, 3, 4}, {2, 2, 2}};
    CHECK_INT(bw_rig_set_rest(rig, 3, &x), BW_OK);
    const bw_transform *rest = bw_rig_rest_pose(rig);
    CHECK_NEAR(rest[3].t[2], 3.0, 0);
    CHECK_NEAR(rest[3].r[2], 0.6, 1e-7); /* (0,0,3,4)/5 */
    CHECK_NEAR(rest[3].r[3], 0.8, 1e-7);
    CHECK_NEAR(rest[3].s[0], 2.0, 0);
    CHECK_INT(bw_rig_topology_revision(rig), 1);
    CHECK(bw_rig_layout_signature(rig) == sig);
    /* bad input: error and no change */
    bw_transform bad = x;
    bad.t[0] = NAN;
    CHECK_INT(bw_rig_set_rest(rig, 3, &bad), BW_ERR_NON_FINITE);
    bad = x;
    bad.r[0] = bad.r[1] = bad.r[2] = bad.r[3] = 0.0f;
    CHECK_INT(bw_rig_set_rest(rig, 3, &bad), BW_ERR_NON_FINITE);
    CHECK_NEAR(rest[3].t[0], 1.0, 0);
    CHECK_NEAR(rest[3].r[3], 0.8, 1e-7);
    CHECK_INT(bw_rig_set_rest(rig, 8, &x), BW_ERR_RANGE);
    CHECK_INT(bw_rig_set_rest(rig, -1, &x), BW_ERR_RANGE);
    CHECK_INT(bw_rig_set_rest(rig, 0, NULL), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_rig_set_rest(NULL, 0, &x), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_rig_topology_revision(rig), 1);
    CHECK(bw_rig_layout_signature(rig) == sig);
    bw_rig_destroy(rig);
}

static void add_joint_bumps_revision_and_signature(void)
{
    int n;
    const bw_rig_joint_desc *j = humanoid(&n);
    bw_rig *rig = NULL;
    CHECK_INT(make(j, n - 1, &rig, NULL), BW_OK); /* without the last "hand" */
    uint64_t sig = bw_rig_layout_signature(rig);
    CHECK_INT(bw_rig_find_by_name(rig, "hand"), 5);
    CHECK_INT(bw_rig_add_joint(rig, &j[7], NULL), BW_OK);
    CHECK_INT(bw_rig_topology_revision(rig), 2);
    CHECK(bw_rig_layout_signature(rig) != sig);
    /* equal to a rig created with all 8 joints in one go */
    CHECK(bw_rig_layout_signature(rig) == expected_signature(j, n));
    CHECK_INT(bw_rig_joint_count(rig), 8);
    CHECK_INT(bw_rig_find(rig, "arm_r", "hand"), 7);
    CHECK_INT(bw_rig_find_by_name(rig, "hand"), BW_RIG_AMBIGUOUS);
    CHECK_INT(bw_rig_joint_parent(rig, 7), 6);

    /* failures change nothing and name the joint */
    uint64_t sig8 = bw_rig_layout_signature(rig);
    bw_error err;
    bw_rig_joint_desc d = J("hand", 6);
    CHECK_INT(bw_rig_add_joint(rig, &d, &err), BW_ERR_DUPLICATE);
    CHECK_CONTAINS(err.message, "'hand'");
    d = J("self", 8);
    CHECK_INT(bw_rig_add_joint(rig, &d, &err), BW_ERR_CYCLE);
    CHECK_CONTAINS(err.message, "'self'");
    d = J("later", 9);
    CHECK_INT(bw_rig_add_joint(rig, &d, &err), BW_ERR_RANGE);
    CHECK_CONTAINS(err.message, "'later'");
    d = J("", 0);
    CHECK_INT(bw_rig_add_joint(rig, &d, &err), BW_ERR_EMPTY);
    d = J("nan", 0);
    d.rest.s[0] = NAN;
    CHECK_INT(bw_rig_add_joint(rig, &d, &err), BW_ERR_NON_FINITE);
    CHECK_CONTAINS(err.message, "'nan'");
    CHECK_INT(bw_rig_add_joint(rig, NULL, &err), BW_ERR_INVALID_ARGUMENT);
    CHECK_INT(bw_rig_topology_revision(rig), 2);
    CHECK(bw_rig_layout_signature(rig) == sig8);
    CHECK_INT(bw_rig_joint_count(rig), 8);

    /* growth: a 200-joint chain under head, every joint findable by pair */
    char names[200][16];
    for (int i = 0; i < 200; i++) {
        snprintf(names[i], sizeof names[i], "c%03d", 199 - i); /* reverse-sorted names */
        d = J(names[i], i == 0 ? 3 : 8 + i - 1);
        d.rest.t[1] = (float)i;
        CHECK_INT(bw_rig_add_joint(rig, &d, NULL), BW_OK);
    }
    CHECK_INT(bw_rig_topology_revision(rig), 202);
    CHECK_INT(bw_rig_joint_count(rig), 208);
    for (int i = 0; i < 200; i++) {
        const char *parent = i == 0 ? "head" : names[i - 1];
        CHECK_INT(bw_rig_find(rig, parent, names[i]), 8 + i);
        CHECK_INT(bw_rig_find_by_name(rig, names[i]), 8 + i);
        CHECK_NEAR(bw_rig_rest_pose(rig)[8 + i].t[1], (double)i, 0);
    }
    CHECK_INT(bw_rig_find(rig, "spine", "neck"), 2);
    bw_rig_destroy(rig);
}

static void allocation_failures_are_clean(void)
{
    int n;
    const bw_rig_joint_desc *j = humanoid(&n);
    bw_rig_curve_desc c[2] = {{"a", BW_CURVE_FLOAT, 0}, {"b", BW_CURVE_ANGLE, 0}};
    bw_rig_desc d = {.joints = j, .joint_count = n - 1, .curves = c, .curve_count = 2};
    int created = 0;
    for (int budget = 0; budget < 100 && !created; budget++) {
        alloc_counter ctr = ALLOC_COUNTER(budget);
        bw_allocator a = {alloc_counter_fn, &ctr};
        d.allocator = a;
        bw_rig *rig = NULL;
        bw_error err;
        bw_result r = bw_rig_create(&d, &rig, &err);
        if (r == BW_OK) {
            created = 1;
            bw_rig_destroy(rig);
        } else {
            CHECK_INT(r, BW_ERR_OUT_OF_MEMORY);
            CHECK(rig == NULL);
        }
        CHECK_INT(ctr.live_bytes, 0);
    }
    CHECK(created);

    /* add_joint under memory pressure: either succeeds or leaves the rig
     * exactly as it was. */
    int added = 0;
    for (int budget = 0; budget < 20 && !added; budget++) {
        alloc_counter ctr = ALLOC_COUNTER(-1);
        bw_allocator a = {alloc_counter_fn, &ctr};
        d.allocator = a;
        bw_rig *rig = NULL;
        CHECK_INT(bw_rig_create(&d, &rig, NULL), BW_OK);
        ctr.budget = budget;
        bw_result r = bw_rig_add_joint(rig, &j[7], NULL);
        if (r == BW_OK) {
            added = 1;
            CHECK_INT(bw_rig_joint_count(rig), 8);
        } else {
            CHECK_INT(r, BW_ERR_OUT_OF_MEMORY);
            CHECK_INT(bw_rig_joint_count(rig), 7);
            CHECK_INT(bw_rig_topology_revision(rig), 1);
            CHECK_INT(bw_rig_find(rig, "arm_l", "hand"), 5);
        }
        bw_rig_destroy(rig);
        CHECK_INT(ctr.live_bytes, 0);
    }
    CHECK(added);
}


/* ---- cloning ---- */

/* A rig with a non-trivial rest pose, both curve kinds and one appended
 * joint (revision 2), so the clone has every field to get right. */
static bw_rig *clone_source(const bw_allocator *allocator)
{
    bw_transform tilted = bw_transform_identity;
    tilted.t[1] = 0.75f;
    tilted.r[0] = 0.3f; /* normalized on creation: bits the clone must keep, not recompute */
    tilted.r[3] = 0.9f;
    tilted.s[2] = 2.0f;
    bw_rig_joint_desc joints[3] = {{"root", -1, bw_transform_identity}, {"spine", 0, tilted}, {"arm", 1, tilted}};
    bw_rig_curve_desc curves[2] = {{"blink", BW_CURVE_FLOAT, 0.25f}, {"yaw", BW_CURVE_ANGLE, -1.5f}};
    bw_rig_desc desc = {.joints = joints, .joint_count = 3, .curves = curves, .curve_count = 2};
    if (allocator) desc.allocator = *allocator;
    bw_rig *rig = fixture_rig_desc(&desc);
    bw_rig_joint_desc hand = {"hand", 2, tilted};
    CHECK_INT(bw_rig_add_joint(rig, &hand, NULL), BW_OK);
    return rig;
}

static void clone_should_copy_everything_and_outlive_the_source(void)
{
    bw_rig *src = clone_source(NULL);
    bw_transform rest[4];
    memcpy(rest, bw_rig_rest_pose(src), sizeof rest);
    const uint64_t signature = bw_rig_layout_signature(src), serial = bw_rig_serial(src);
    CHECK_INT(bw_rig_topology_revision(src), 2);

    bw_rig *clone = NULL;
    bw_error err = {0};
    CHECK_INT(bw_rig_clone(src, NULL, &clone, &err), BW_OK);
    if (!clone) return;
    bw_rig_destroy(src); /* the clone shares nothing with it (ASan checks) */

    CHECK_INT(bw_rig_joint_count(clone), 4);
    static const char *const names[4] = {"root", "spine", "arm", "hand"};
    for (int j = 0; j < 4; j++) {
        CHECK_STR(bw_rig_joint_name(clone, j), names[j]);
        CHECK_INT(bw_rig_joint_parent(clone, j), j - 1);
    }
    CHECK(memcmp(bw_rig_rest_pose(clone), rest, sizeof rest) == 0);
    CHECK_INT(bw_rig_curve_count(clone), 2);
    CHECK_STR(bw_rig_curve_name(clone, 1), "yaw");
    CHECK_INT(bw_rig_curve_kind(clone, 0), BW_CURVE_FLOAT);
    CHECK_INT(bw_rig_curve_kind(clone, 1), BW_CURVE_ANGLE);
    CHECK(bw_rig_curve_rest(clone)[0] == 0.25f);
    CHECK(bw_rig_curve_rest(clone)[1] == -1.5f);
    /* same topology identity, new object identity */
    CHECK_INT(bw_rig_topology_revision(clone), 2);
    CHECK(bw_rig_layout_signature(clone) == signature);
    CHECK(bw_rig_serial(clone) != serial);
    CHECK(bw_rig_serial(clone) != 0);
    /* the name index came along */
    CHECK_INT(bw_rig_find(clone, "arm", "hand"), 3);
    CHECK_INT(bw_rig_find_curve(clone, "yaw"), 1);
    /* and it is a full rig: it can grow (5 joints, capacity was 4) */
    bw_rig_joint_desc finger = {"finger", 3, bw_transform_identity};
    CHECK_INT(bw_rig_add_joint(clone, &finger, NULL), BW_OK);
    CHECK_INT(bw_rig_find(clone, "hand", "finger"), 4);
    CHECK_INT(bw_rig_topology_revision(clone), 3);
    bw_rig_destroy(clone);

    /* an empty rig clones to an empty rig that can grow */
    bw_rig_desc empty_desc = {0};
    bw_rig *empty = fixture_rig_desc(&empty_desc), *empty_clone = NULL;
    CHECK_INT(bw_rig_clone(empty, NULL, &empty_clone, NULL), BW_OK);
    bw_rig_destroy(empty);
    CHECK_INT(bw_rig_joint_count(empty_clone), 0);
    bw_rig_joint_desc root = {"root", -1, bw_transform_identity};
    CHECK_INT(bw_rig_add_joint(empty_clone, &root, NULL), BW_OK);
    CHECK_INT(bw_rig_find_by_name(empty_clone, "root"), 0);
    bw_rig_destroy(empty_clone);

    bw_rig *untouched = (bw_rig *)&err; /* any non-NULL sentinel */
    CHECK_INT(bw_rig_clone(NULL, NULL, &untouched, &err), BW_ERR_INVALID_ARGUMENT);
    CHECK(untouched == (bw_rig *)&err);
    bw_rig *again = clone_source(NULL);
    CHECK_INT(bw_rig_clone(again, NULL, NULL, NULL), BW_ERR_INVALID_ARGUMENT);
    bw_rig_destroy(again);
    CHECK(bw_rig_serial(NULL) == 0);
}

static void clone_allocation_failures_leave_nothing_behind(void)
{
    alloc_counter src_ctr = ALLOC_COUNTER(-1);
    bw_allocator src_alloc = {alloc_counter_fn, &src_ctr};
    bw_rig *src = clone_source(&src_alloc);
    const long src_blocks = src_ctr.live_blocks;
    /* struct, 4 joint arrays, 4 curve arrays, 4 + 2 names: 15 blocks */
    int cloned = 0, budget = 0;
    for (; budget < 40 && !cloned; budget++) {
        alloc_counter ctr = ALLOC_COUNTER(budget);
        bw_allocator a = {alloc_counter_fn, &ctr};
        bw_rig *clone = NULL;
        bw_error err = {0};
        bw_result r = bw_rig_clone(src, &a, &clone, &err);
        if (r == BW_OK) {
            cloned = 1;
            CHECK_INT(ctr.live_blocks, 15);
            CHECK_INT(bw_rig_joint_count(clone), 4);
            bw_rig_destroy(clone);
        } else {
            CHECK_INT(r, BW_ERR_OUT_OF_MEMORY);
            CHECK(clone == NULL);
        }
        CHECK_INT(ctr.live_blocks, 0);
        CHECK_INT(ctr.live_bytes, 0);
    }
    CHECK(cloned);
    CHECK_INT(budget, 16); /* failed at each of the 15 allocations first */
    CHECK_INT(src_ctr.live_blocks, src_blocks); /* the source was not touched */
    bw_rig_destroy(src);
    CHECK_INT(src_ctr.live_bytes, 0);
}

int main(void)
{
    RUN(create_valid_rig_and_query_it);
    RUN(names_are_copied_and_rest_rotations_normalized);
    RUN(empty_rig_is_valid);
    RUN(lookups_by_parent_and_name);
    RUN(cyclic_parents_are_reported);
    RUN(out_of_order_parents_are_reported);
    RUN(bad_parent_indices_names_and_values);
    RUN(duplicate_parent_name_pairs_are_reported);
    RUN(curves_are_validated_and_found);
    RUN(set_rest_changes_values_only);
    RUN(add_joint_bumps_revision_and_signature);
    RUN(allocation_failures_are_clean);
    RUN(clone_should_copy_everything_and_outlive_the_source);
    RUN(clone_allocation_failures_leave_nothing_behind);
    return check_summary();
}
