/* rootmotion.c - travel of plays' root tracks, blended by the mixer's
 * rule (SPEC §5 over the root joint), and its removal from the evaluated
 * root (SPEC §8; the model is in rootmotion.h and docs/root-motion.md).
 *
 * Travel is a planar rigid motion (translation in 3D, rotation about +Y
 * only), computed in double: clip samples are float, but per-frame deltas
 * are tiny differences of them and a game sums thousands of frames. */
#include "blendwerk/rootmotion.h"

#include "blendwerk/sample.h"
#include "bw_math.h"
#include "clip_internal.h"
#include "common.h"

#define TWO_PI (2.0 * M_PI)

/* The root's parent frame in model space, from the rig's current joint
 * values: model point = lin · local point + pos; model rotation =
 * rot · local rotation. */
typedef struct parent_frame {
    double lin[3][3];
    double pos[3];
    float rot[4];
    bw_transform rest; /* the root's own current joint value */
} parent_frame;

/* Where one play's root channels live. */
typedef struct root_source {
    const bw_clip *clip;
    int t_track, r_track;   /* -1: the channel is unkeyed and holds the rest value */
    int pw_track, mw_track; /* pose and mask weight; -1: 1 and 0 */
    bool keyed;             /* some joint channel of the clip drives the root */
    const bw_track_data *r_data; /* the rotation track (for the yaw walk), NULL when unkeyed */
} root_source;

/* A planar rigid motion: move by d (in the frame at the motion's start),
 * then turn by yaw about +Y. */
typedef struct motion {
    double d[3];
    double yaw;
} motion;

static const motion motion_identity = {{0.0, 0.0, 0.0}, 0.0};

/* x reduced to [−π, π), in double (bw_wrap_angle is the float form for
 * curves; headings here are summed over many keys and cycles). */
static double wrap_pi(double x)
{
    return x - TWO_PI * floor((x + M_PI) / TWO_PI);
}

/* v rotated about +Y by the angle whose cosine and sine are c, s (+Z
 * turns toward +X). */
static void rot_y_cs(double c, double s, const double *v, double *out)
{
    double x = v[0] * c + v[2] * s;
    double z = -v[0] * s + v[2] * c;
    out[0] = x;
    out[1] = v[1];
    out[2] = z;
}

static void rot_y(double angle, const double *v, double *out) { rot_y_cs(cos(angle), sin(angle), v, out); }

/* A heading as the unit complex number (c, s) = (w, y) / |(w, y)| of a
 * rotation's twist about +Y (0, y, 0, w): the heading angle is twice its
 * argument, so the angle between two of them needs one atan2 and the
 * heading's cosine and sine none (segment() runs per play per frame). */
typedef struct twist {
    double c, s;
} twist;

static const twist twist_identity = {1.0, 0.0};

static twist twist_of(const float *q)
{
    double w = q[3], y = q[1], n = sqrt(w * w + y * y);
    if (!isfinite(n)) return (twist){NAN, NAN}; /* the travel comes out not finite: the play is skipped */
    if (!(n > 0.0)) return twist_identity;      /* a half turn about a level axis: heading 0, as atan2(0, 0) */
    return (twist){w / n, y / n};
}

/* The heading turn from a to b, in [−π, π). */
static double twist_turn(twist a, twist b)
{
    return wrap_pi(2.0 * atan2(b.s * a.c - b.c * a.s, b.c * a.c + b.s * a.s));
}

/* Twist angle about +Y of a rotation: the (x, y, z) part projected on Y
 * gives the twist quaternion (0, y, 0, w), whatever the swing. */
static double heading_of(const float *q)
{
    return wrap_pi(2.0 * atan2((double)q[1], (double)q[3]));
}

/* a then b, b measured in the frame a ends in. */
static motion compose(motion a, motion b)
{
    motion m;
    rot_y(a.yaw, b.d, m.d);
    for (int i = 0; i < 3; i++) m.d[i] += a.d[i];
    m.yaw = a.yaw + b.yaw;
    return m;
}

static motion inverse(motion a)
{
    motion m;
    rot_y(-a.yaw, a.d, m.d);
    for (int i = 0; i < 3; i++) m.d[i] = -m.d[i];
    m.yaw = -a.yaw;
    return m;
}

/* c composed with itself n times (powers of one motion commute, so the
 * binary method's order does not matter). */
static motion power(motion c, uint32_t n)
{
    motion result = motion_identity;
    while (n) {
        if (n & 1u) result = compose(result, c);
        c = compose(c, c);
        n >>= 1;
    }
    return result;
}

static void quat_to_matrix(const float *q, double m[3][3])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    m[0][0] = 1 - 2 * (y * y + z * z); m[0][1] = 2 * (x * y - z * w);     m[0][2] = 2 * (x * z + y * w);
    m[1][0] = 2 * (x * y + z * w);     m[1][1] = 1 - 2 * (x * x + z * z); m[1][2] = 2 * (y * z - x * w);
    m[2][0] = 2 * (x * z - y * w);     m[2][1] = 2 * (y * z + x * w);     m[2][2] = 1 - 2 * (x * x + y * y);
}

static void mat_vec(const double m[3][3], const double *v, double *out)
{
    double r[3];
    for (int i = 0; i < 3; i++) r[i] = m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2];
    out[0] = r[0]; out[1] = r[1]; out[2] = r[2];
}

/* Compose the ancestors of `root` bottom-up (local(parent) applied last
 * to the running frame), so no chain buffer is needed. Parent indices are
 * smaller than their children's (rig.h), which bounds the walk; the
 * counter guards it anyway. */
static void compute_parent_frame(const bw_rig *rig, int root, parent_frame *f)
{
    const bw_transform *rest = bw_rig_rest_pose(rig);
    int count = bw_rig_joint_count(rig);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) f->lin[i][j] = i == j ? 1.0 : 0.0;
        f->pos[i] = 0.0;
    }
    f->rot[0] = f->rot[1] = f->rot[2] = 0.0f;
    f->rot[3] = 1.0f;
    f->rest = rest[root];
    int guard = 0;
    for (int j = bw_rig_joint_parent(rig, root); j >= 0 && guard < count; j = bw_rig_joint_parent(rig, j), guard++) {
        const bw_transform *x = &rest[j];
        double a[3][3], lin[3][3];
        quat_to_matrix(x->r, a);
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) a[r][c] *= x->s[c];
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) lin[r][c] = a[r][0] * f->lin[0][c] + a[r][1] * f->lin[1][c] + a[r][2] * f->lin[2][c];
        memcpy(f->lin, lin, sizeof lin);
        mat_vec(a, f->pos, f->pos);
        for (int i = 0; i < 3; i++) f->pos[i] += x->t[i];
        bw_quat_mul(x->r, f->rot, f->rot);
        bw_quat_normalize(f->rot);
    }
}

/* The root's tracks in the play's clip: the binding's entry for the root
 * joint (driven joints are sorted by index, so a binary search), i.e. the
 * very tracks bw_sample_clip reads for it. No entry: nothing drives it. */
static void find_source(const bw_binding *binding, int root, root_source *src)
{
    src->clip = binding->clip;
    src->t_track = src->r_track = src->pw_track = src->mw_track = -1;
    src->keyed = false;
    src->r_data = NULL;
    int lo = 0, hi = binding->driven_joint_count;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (binding->driven_joints[mid].joint < root) lo = mid + 1;
        else hi = mid;
    }
    if (lo == binding->driven_joint_count || binding->driven_joints[lo].joint != root) return;
    const bw_joint_binding *jb = &binding->driven_joints[lo];
    src->keyed = true;
    src->t_track = jb->track[BW_SLOT_T];
    src->r_track = jb->track[BW_SLOT_R];
    src->pw_track = jb->track[BW_SLOT_POSE_WEIGHT];
    src->mw_track = jb->track[BW_SLOT_MASK_WEIGHT];
    if (src->r_track >= 0) {
        src->r_data = &src->clip->tracks[src->r_track];
    }
}

/* The clip's coverage of the root at clip time `time`, as bw_sample_clip
 * computes a joint's coverage: clamp(pose weight × (1 − mask weight), 0, 1)
 * where some track drives the root, else 0. */
static double root_coverage(const root_source *src, double time)
{
    if (!src->keyed) return 0.0;
    float pw = 1.0f, mw = 0.0f;
    if (src->pw_track >= 0) bw_sample_track(src->clip, src->pw_track, (float)time, &pw);
    if (src->mw_track >= 0) bw_sample_track(src->clip, src->mw_track, (float)time, &mw);
    return (double)bw_coverage(pw, mw);
}

/* Where the play's step ends, in the clip's own time (what the track set
 * samples, and so what the mixer shows, after the step). */
static double end_time(const bw_clip *clip, const bw_root_play *play)
{
    double len = (double)bw_clip_length(clip);
    if (!(len > 0.0)) return 0.0;
    double e = play->from + play->delta;
    if (!play->loop) return e < 0.0 ? 0.0 : (e > len ? len : e);
    e -= floor(e / len) * len;
    return (e >= 0.0 && e < len) ? e : 0.0; /* rounding at the wrap; a huge e */
}

/* The root's model position at clip time `time`, up to the parent's
 * translation (which cancels in differences). */
static void sample_position(const root_source *src, const parent_frame *f, double time, double *p)
{
    float tv[3];
    if (src->t_track >= 0) bw_sample_track(src->clip, src->t_track, (float)time, tv);
    else memcpy(tv, f->rest.t, sizeof tv);
    double td[3] = {tv[0], tv[1], tv[2]};
    mat_vec(f->lin, td, p);
}

/* The root's heading at clip time `time`; heading 0 when yaw is not
 * extracted, so every travel stays in the model frame. */
static twist sample_heading(const root_source *src, const parent_frame *f, double time, bool yaw_on)
{
    if (!yaw_on) return twist_identity;
    float rv[4], q[4];
    if (src->r_track >= 0) bw_sample_track(src->clip, src->r_track, (float)time, rv);
    else memcpy(rv, f->rest.r, sizeof rv);
    bw_quat_mul(f->rot, rv, q);
    return twist_of(q);
}

/* Travel from clip time a to b (a <= b) inside one cycle. The yaw is
 * accumulated key by key, each piece wrapped to (-π, π], so a turn of
 * more than half a circle within the interval is counted in full (a slerp
 * between two keys never turns more than half a circle). */
static motion segment(const root_source *src, const parent_frame *f, double a, double b, bool yaw_on)
{
    double pa[3], pb[3];
    sample_position(src, f, a, pa);
    const twist ha = sample_heading(src, f, a, yaw_on);
    double acc = 0.0;
    twist prev = ha;
    const bw_track_data *rt = src->r_data;
    if (yaw_on && rt && rt->key_count > 1) {
        float fa = (float)a, fb = (float)b;
        /* first key strictly after a: the sampler's search (the first at
         * or after a; a uniform track's from the grid's guess), past keys at a */
        int k = bw_track_find_key(rt, fa);
        while (k < rt->key_count && rt->times[k] <= fa) k++;
        for (; k < rt->key_count && rt->times[k] < fb; k++) {
            twist h = sample_heading(src, f, rt->times[k], true);
            acc += twist_turn(prev, h);
            prev = h;
        }
    }
    sample_position(src, f, b, pb);
    acc += twist_turn(prev, sample_heading(src, f, b, yaw_on));
    motion m;
    double d[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
    /* by −(heading at a): cos = c² − s², sin = −2cs */
    rot_y_cs(ha.c * ha.c - ha.s * ha.s, -2.0 * ha.c * ha.s, d, m.d);
    m.yaw = yaw_on ? acc : 0.0;
    return m;
}

static double clampd(double x, double lo, double hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

static uint32_t cap_cycles(double n)
{
    return n >= (double)BW_ROOT_MOTION_MAX_CYCLES ? (uint32_t)BW_ROOT_MOTION_MAX_CYCLES : (uint32_t)n;
}

/* One play's travel over its step (from, delta already checked finite). */
static motion play_travel(const root_source *src, const parent_frame *f, const bw_root_play *play, bool yaw_on)
{
    double len = (double)bw_clip_length(src->clip);
    if (!(len > 0.0)) return motion_identity;
    if (!play->loop) {
        /* from clamped first, then the step taken from there, clamped */
        double a = clampd(play->from, 0.0, len), b = clampd(a + play->delta, 0.0, len);
        return a <= b ? segment(src, f, a, b, yaw_on) : inverse(segment(src, f, b, a, yaw_on));
    }
    double a = play->from - floor(play->from / len) * len;
    a = (a >= 0.0 && a < len) ? a : 0.0; /* rounding at the wrap */
    double e = a + play->delta;
    double c = floor(e / len);
    if (c == 0.0) {
        return play->delta >= 0.0 ? segment(src, f, a, clampd(e, a, len), yaw_on)
                                  : inverse(segment(src, f, clampd(e, 0.0, a), a, yaw_on));
    }
    double r = clampd(e - c * len, 0.0, len); /* where the step ends in its own cycle */
    if (c > 0.0) {
        /* to the end, whole cycles, from the next start */
        motion m = segment(src, f, a, len, yaw_on);
        uint32_t n = cap_cycles(c - 1.0);
        if (n) m = compose(m, power(segment(src, f, 0.0, len, yaw_on), n));
        return compose(m, segment(src, f, 0.0, r, yaw_on));
    }
    /* reverse: back to the start, whole cycles backwards, from the end down */
    motion m = inverse(segment(src, f, 0.0, a, yaw_on));
    uint32_t n = cap_cycles(-c - 1.0);
    if (n) m = compose(m, power(inverse(segment(src, f, 0.0, len, yaw_on)), n));
    return compose(m, inverse(segment(src, f, r, len, yaw_on)));
}

static bw_result check_config(const bw_rig *rig, const bw_root_motion_config *cfg, unsigned *axes)
{
    if (!rig || !cfg) return BW_ERR_INVALID_ARGUMENT;
    if (cfg->axes & ~(unsigned)BW_ROOT_AXES_ALL) return BW_ERR_INVALID_ARGUMENT;
    if (cfg->root_joint < 0 || cfg->root_joint >= bw_rig_joint_count(rig)) return BW_ERR_RANGE;
    *axes = cfg->axes ? cfg->axes : (unsigned)BW_ROOT_AXES_DEFAULT;
    return BW_OK;
}

bw_result bw_root_motion_config_init(bw_root_motion_config *cfg, const bw_rig *rig, const char *root_name,
                                     unsigned axes, bw_error *err)
{
    if (!cfg || !rig) return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "root motion: NULL config or rig");
    if (axes & ~(unsigned)BW_ROOT_AXES_ALL)
        return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "root motion: unknown axis bits 0x%x", axes);
    if (bw_rig_joint_count(rig) <= 0) return bw_fail(err, BW_ERR_EMPTY, "root motion: the rig has no joints");
    int joint = 0;
    if (root_name) {
        joint = bw_rig_find_by_name(rig, root_name);
        if (joint == BW_RIG_AMBIGUOUS)
            return bw_fail(err, BW_ERR_DUPLICATE, "root motion: several joints are named '%s'; pass the index",
                           root_name);
        if (joint < 0) return bw_fail(err, BW_ERR_NOT_FOUND, "root motion: no joint named '%s'", root_name);
    }
    cfg->root_joint = joint;
    cfg->axes = axes;
    return BW_OK;
}

/* The smallest priority above `prev` (any priority when !have_prev) among
 * the plays; false when there is none. Ranks are visited this way, lowest
 * first, so grouping needs no sorted copy of the list (extraction never
 * allocates); the cost is one pass per distinct rank. */
static bool next_rank(const bw_root_play *plays, int count, bool have_prev, int prev, int *out)
{
    bool found = false;
    int best = 0;
    for (int i = 0; i < count; i++) {
        int p = plays[i].priority;
        if (have_prev && p <= prev) continue;
        if (!found || p < best) {
            best = p;
            found = true;
        }
    }
    *out = best;
    return found;
}

bw_result bw_root_motion_extract(const bw_rig *rig, const bw_root_motion_config *cfg, const bw_root_play *plays,
                                 int play_count, bw_root_delta *out)
{
    unsigned axes = 0;
    if (!out || play_count < 0 || (!plays && play_count > 0)) return BW_ERR_INVALID_ARGUMENT;
    bw_result res = check_config(rig, cfg, &axes);
    if (res != BW_OK) return res;

    bool yaw_on = (axes & BW_ROOT_YAW) != 0;
    parent_frame f;
    compute_parent_frame(rig, cfg->root_joint, &f);
    uint64_t signature = bw_rig_layout_signature(rig);
    uint32_t revision = bw_rig_topology_revision(rig);

    /* SPEC §5 over the root joint, the rest pose being "no travel": per
     * rank, the share-weighted mean travel overlays what lay below by the
     * rank's coverage. */
    motion result = motion_identity;
    double coverage = 0.0;
    int used = 0, skipped = 0, rank = 0;
    bool have_rank = false;
    while (next_rank(plays, play_count, have_rank, rank, &rank)) {
        have_rank = true;
        double sum[3] = {0, 0, 0}, sum_yaw = 0.0, sum_share = 0.0;
        for (int i = 0; i < play_count; i++) {
            const bw_root_play *p = &plays[i];
            if (p->priority != rank) continue;
            if (!p->binding || bw_binding_layout_signature(p->binding) != signature ||
                bw_binding_topology_revision(p->binding) != revision || !isfinite(p->from) ||
                !isfinite(p->delta) || !isfinite(p->weight)) {
                skipped++;
                continue;
            }
            if (!(p->weight > 0.0f)) continue; /* silent, not broken */
            root_source src;
            find_source(p->binding, cfg->root_joint, &src);
            double share = (double)p->weight * root_coverage(&src, end_time(src.clip, p));
            if (share > 1.0) share = 1.0;
            if (!(share > 0.0)) continue; /* the play does not show on the root */
            motion m = play_travel(&src, &f, p, yaw_on);
            if (!isfinite(m.d[0]) || !isfinite(m.d[1]) || !isfinite(m.d[2]) || !isfinite(m.yaw)) {
                skipped++;
                continue;
            }
            for (int k = 0; k < 3; k++) sum[k] += share * m.d[k];
            sum_yaw += share * m.yaw;
            sum_share += share;
            used++;
        }
        if (!(sum_share > 0.0)) continue;
        double c = sum_share < 1.0 ? sum_share : 1.0;
        for (int k = 0; k < 3; k++) result.d[k] = result.d[k] * (1.0 - c) + sum[k] / sum_share * c;
        result.yaw = result.yaw * (1.0 - c) + sum_yaw / sum_share * c;
        coverage += (1.0 - coverage) * c;
    }

    bw_root_delta d;
    memset(&d, 0, sizeof d);
    if (used > 0) {
        for (int k = 0; k < 3; k++) d.t[k] = result.d[k];
        d.yaw = result.yaw;
        d.coverage = coverage;
        d.used = used;
    }
    if (!(axes & BW_ROOT_X)) d.t[0] = 0.0;
    if (!(axes & BW_ROOT_Y)) d.t[1] = 0.0;
    if (!(axes & BW_ROOT_Z)) d.t[2] = 0.0;
    if (!yaw_on) d.yaw = 0.0;
    /* finite travels can still sum past the double range (2^20 cycles of
     * clip values near FLT_MAX) */
    if (!isfinite(d.t[0]) || !isfinite(d.t[1]) || !isfinite(d.t[2]) || !isfinite(d.yaw)) {
        memset(&d, 0, sizeof d);
        skipped += used;
    }
    d.skipped = skipped;
    *out = d;
    return BW_OK;
}

bw_result bw_root_motion_extract_tracks(const bw_track_set *set, const bw_rig *rig, const bw_root_motion_config *cfg,
                                        bw_root_delta *out)
{
    unsigned axes = 0;
    if (!set || !out) return BW_ERR_INVALID_ARGUMENT;
    bw_result res = check_config(rig, cfg, &axes);
    if (res != BW_OK) return res;

    int handles[BW_ROOT_MOTION_MAX_TRACKS];
    bw_root_play plays[BW_ROOT_MOTION_MAX_TRACKS];
    int n = bw_track_set_live_handles(set, handles, BW_ROOT_MOTION_MAX_TRACKS);
    if (n < 0) n = 0;
    if (n > BW_ROOT_MOTION_MAX_TRACKS) n = BW_ROOT_MOTION_MAX_TRACKS;
    int count = 0, missing = 0;
    for (int i = 0; i < n; i++) {
        bw_root_play *p = &plays[count];
        if (!bw_track_set_last_step(set, handles[i], &p->from, &p->delta)) {
            missing++;
            continue;
        }
        p->binding = bw_track_set_binding(set, handles[i]);
        p->loop = bw_track_set_looping(set, handles[i]);
        p->weight = bw_track_set_weight(set, handles[i]);
        p->priority = bw_track_set_priority(set, handles[i]);
        count++;
    }
    int live = bw_track_set_count(set);
    if (live > n) missing += live - n;

    bw_root_delta d;
    res = bw_root_motion_extract(rig, cfg, plays, count, &d);
    if (res != BW_OK) return res;
    d.skipped += missing;
    *out = d;
    return BW_OK;
}

bw_result bw_root_motion_remove(const bw_rig *rig, const bw_root_motion_config *cfg, bw_transform *root_local)
{
    unsigned axes = 0;
    if (!root_local) return BW_ERR_INVALID_ARGUMENT;
    bw_result res = check_config(rig, cfg, &axes);
    if (res != BW_OK) return res;
    if (!bw_transform_isfinite(root_local)) return BW_ERR_NON_FINITE;

    parent_frame f;
    compute_parent_frame(rig, cfg->root_joint, &f);
    double inv[3][3];
    {
        const double(*m)[3] = f.lin;
        double c00 = m[1][1] * m[2][2] - m[1][2] * m[2][1];
        double c01 = m[1][2] * m[2][0] - m[1][0] * m[2][2];
        double c02 = m[1][0] * m[2][1] - m[1][1] * m[2][0];
        double det = m[0][0] * c00 + m[0][1] * c01 + m[0][2] * c02;
        if (!isfinite(det) || fabs(det) < 1e-30) return BW_ERR_INVALID_ARGUMENT;
        double k = 1.0 / det;
        inv[0][0] = c00 * k;
        inv[0][1] = (m[0][2] * m[2][1] - m[0][1] * m[2][2]) * k;
        inv[0][2] = (m[0][1] * m[1][2] - m[0][2] * m[1][1]) * k;
        inv[1][0] = c01 * k;
        inv[1][1] = (m[0][0] * m[2][2] - m[0][2] * m[2][0]) * k;
        inv[1][2] = (m[0][2] * m[1][0] - m[0][0] * m[1][2]) * k;
        inv[2][0] = c02 * k;
        inv[2][1] = (m[0][1] * m[2][0] - m[0][0] * m[2][1]) * k;
        inv[2][2] = (m[0][0] * m[1][1] - m[0][1] * m[1][0]) * k;
    }

    float r[4] = {root_local->r[0], root_local->r[1], root_local->r[2], root_local->r[3]};
    bw_quat_normalize(r);
    double t[3] = {root_local->t[0], root_local->t[1], root_local->t[2]}, p[3];
    mat_vec(f.lin, t, p);
    for (int i = 0; i < 3; i++) p[i] += f.pos[i];
    float q[4];
    bw_quat_mul(f.rot, r, q);
    bw_quat_normalize(q);

    if (axes & BW_ROOT_YAW) {
        /* q = twist · swing' with swing' = twist⁻¹ · q: un-yawing on the
         * model side keeps a lean about the character's own axes as the
         * same lean about the model's axes (yaw 90° then pitch 20° becomes
         * pitch 20°, not roll). */
        double h = heading_of(q);
        float untwist[4] = {0.0f, (float)-sin(h * 0.5), 0.0f, (float)cos(h * 0.5)};
        bw_quat_mul(untwist, q, q);
        bw_quat_normalize(q);
        rot_y(-h, p, p);
    }
    if (axes & BW_ROOT_X) p[0] = 0.0;
    if (axes & BW_ROOT_Z) p[2] = 0.0;
    if (axes & BW_ROOT_Y) {
        double rest[3] = {f.rest.t[0], f.rest.t[1], f.rest.t[2]}, pr[3];
        mat_vec(f.lin, rest, pr);
        p[1] = pr[1] + f.pos[1];
    }

    for (int i = 0; i < 3; i++) p[i] -= f.pos[i];
    mat_vec(inv, p, t);
    float conj[4], nr[4];
    bw_quat_conjugate(f.rot, conj);
    bw_quat_mul(conj, q, nr);
    bw_quat_normalize(nr);
    float nt[3] = {(float)t[0], (float)t[1], (float)t[2]};
    if (!bw_isfinite3(nt)) return BW_ERR_NON_FINITE;
    memcpy(root_local->t, nt, sizeof nt);
    memcpy(root_local->r, nr, sizeof nr);
    return BW_OK;
}
