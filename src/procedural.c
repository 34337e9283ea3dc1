/* procedural.c - the math of procedural controls
 * (include/blendwerk/procedural.h). */
#include "blendwerk/procedural.h"

#include <math.h>

#include "bw_math.h"

void bw_swing_twist(const float q[4], const float axis[3], float out_swing[4], float out_twist[4])
{
    float qn[4] = {q[0], q[1], q[2], q[3]};
    bw_quat_normalize(qn);
    float twist[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    float n[3] = {axis[0], axis[1], axis[2]};
    if (bw_rescale_if_needed(n, 3)) { /* any finite length; the common one as it is */
        float inv = 1.0f / sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        n[0] *= inv;
        n[1] *= inv;
        n[2] *= inv;
        float d = qn[0] * n[0] + qn[1] * n[1] + qn[2] * n[2];
        twist[0] = d * n[0];
        twist[1] = d * n[1];
        twist[2] = d * n[2];
        twist[3] = qn[3];
        /* the projection vanishes for a half-turn swing: no twist then */
        if (bw_quat_dot(twist, twist) < 1e-12f) {
            twist[0] = twist[1] = twist[2] = 0.0f;
            twist[3] = 1.0f;
        }
        bw_quat_normalize(twist);
    }
    float inv_twist[4];
    bw_quat_conjugate(twist, inv_twist);
    float swing[4];
    bw_quat_mul(qn, inv_twist, swing);
    bw_quat_normalize(swing);
    for (int i = 0; i < 4; i++) {
        out_swing[i] = swing[i];
        out_twist[i] = twist[i];
    }
}

static float length3(const float *v) { return sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

static void cross3(const float *a, const float *b, float *out)
{
    float x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

void bw_look_rotation(const float forward[3], const float up[3], float out[4])
{
    /* both rescaled where their squared length leaves float range (1e20,
     * 1e-20), so any finite length keeps its direction */
    float z[3] = {forward[0], forward[1], forward[2]}, u[3] = {up[0], up[1], up[2]}, x[3], y[3];
    if (!bw_rescale_if_needed(z, 3)) {
        out[0] = out[1] = out[2] = 0.0f;
        out[3] = 1.0f;
        return;
    }
    float fl = length3(z);
    z[0] /= fl;
    z[1] /= fl;
    z[2] /= fl;
    if (!bw_rescale_if_needed(u, 3)) u[0] = u[1] = u[2] = 0.0f;
    cross3(u, z, x);
    float xl = length3(x), ul = length3(u);
    if (!(xl > 1e-6f * (ul > 0.0f ? ul : 1.0f))) {
        const float world_up[3] = {0.0f, 1.0f, 0.0f}, world_x[3] = {1.0f, 0.0f, 0.0f};
        cross3(world_up, z, x);
        xl = length3(x);
        if (!(xl > 1e-6f)) { /* forward vertical as well: build x from +X */
            cross3(z, world_x, y);
            cross3(y, z, x);
            xl = length3(x);
        }
    }
    x[0] /= xl;
    x[1] /= xl;
    x[2] /= xl;
    cross3(z, x, y);
    /* rotation matrix with columns x, y, z to a quaternion (the largest
     * diagonal term decides which component is computed from the root) */
    float m00 = x[0], m11 = y[1], m22 = z[2], tr = m00 + m11 + m22;
    float q[4];
    if (tr > 0.0f) {
        float s = sqrtf(tr + 1.0f) * 2.0f;
        q[3] = 0.25f * s;
        q[0] = (y[2] - z[1]) / s;
        q[1] = (z[0] - x[2]) / s;
        q[2] = (x[1] - y[0]) / s;
    } else if (m00 > m11 && m00 > m22) {
        float s = sqrtf(1.0f + m00 - m11 - m22) * 2.0f;
        q[3] = (y[2] - z[1]) / s;
        q[0] = 0.25f * s;
        q[1] = (y[0] + x[1]) / s;
        q[2] = (z[0] + x[2]) / s;
    } else if (m11 > m22) {
        float s = sqrtf(1.0f + m11 - m00 - m22) * 2.0f;
        q[3] = (z[0] - x[2]) / s;
        q[0] = (y[0] + x[1]) / s;
        q[1] = 0.25f * s;
        q[2] = (z[1] + y[2]) / s;
    } else {
        float s = sqrtf(1.0f + m22 - m00 - m11) * 2.0f;
        q[3] = (x[1] - y[0]) / s;
        q[0] = (z[0] + x[2]) / s;
        q[1] = (z[1] + y[2]) / s;
        q[2] = 0.25f * s;
    }
    bw_quat_normalize(q);
    for (int i = 0; i < 4; i++) out[i] = q[i];
}

void bw_model_position(const bw_rig *rig, const bw_pose *pose, int joint, float out[3])
{
    out[0] = out[1] = out[2] = 0.0f;
    if (!rig || !pose || joint < 0 || joint >= pose->joint_count || pose->joint_count != bw_rig_joint_count(rig))
        return;
    const int *parents = bw_rig_parents(rig);
    const bw_transform *x = &pose->joints[joint];
    float v[3] = {x->t[0], x->t[1], x->t[2]};
    for (int k = parents[joint]; k >= 0; k = parents[k]) {
        const bw_transform *p = &pose->joints[k];
        float sv[3] = {v[0] * p->s[0], v[1] * p->s[1], v[2] * p->s[2]}, q[4] = {p->r[0], p->r[1], p->r[2], p->r[3]};
        float n2 = bw_quat_dot(q, q);
        if (!(fabsf(n2 - 1.0f) < 1e-6f)) bw_quat_normalize(q); /* as bw_transform_to_matrix uses q / |q| */
        bw_quat_rotate(q, sv, v);
        v[0] += p->t[0];
        v[1] += p->t[1];
        v[2] += p->t[2];
    }
    out[0] = v[0];
    out[1] = v[1];
    out[2] = v[2];
}

void bw_model_rotation(const bw_rig *rig, const bw_pose *pose, int joint, float out[4])
{
    float q[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    if (rig && pose && joint >= 0 && joint < pose->joint_count && pose->joint_count == bw_rig_joint_count(rig)) {
        const int *parents = bw_rig_parents(rig);
        for (int k = joint; k >= 0; k = parents[k]) bw_quat_mul(pose->joints[k].r, q, q);
    }
    for (int i = 0; i < 4; i++) out[i] = q[i];
}

/* bw_wrap_angle's [−π, π] moved to the aim's (−π, π]: a target straight
 * behind is +π whichever way the difference came (the mixer's angle curves
 * keep the sign of theirs, so the shared wrap stays as it is). */
static float wrap_aim(float d)
{
    d = bw_wrap_angle(d);
    return d <= -(float)M_PI ? d + (float)(2.0 * M_PI) : d;
}

void bw_aim_angles(const float body_position[3], float body_yaw, const float model_origin[3], const float target[3],
                   float *out_yaw, float *out_pitch)
{
    const float *p = model_origin;
    float c = cosf(body_yaw), s = sinf(body_yaw);
    float hw[3] = {body_position[0] + p[0] * c + p[2] * s, body_position[1] + p[1],
                   body_position[2] - p[0] * s + p[2] * c};
    float dx = target[0] - hw[0], dy = target[1] - hw[1], dz = target[2] - hw[2];
    float flat = sqrtf(dx * dx + dz * dz);
    *out_yaw = (flat > 1e-6f) ? wrap_aim(atan2f(dx, dz) - body_yaw) : 0.0f;
    *out_pitch = atan2f(dy, flat);
}

static float clampf(float x, float lim) { return x > lim ? lim : (x < -lim ? -lim : x); }

void bw_aim_clamp(float yaw, float pitch, float last_yaw, const bw_aim_limits *limits, float out[4])
{
    const float pi = (float)M_PI;
    if (fabsf(yaw) > pi - limits->behind && last_yaw * yaw < 0.0f) yaw += last_yaw > 0.0f ? 2.0f * pi : -2.0f * pi;
    float hy = clampf(yaw, limits->yaw), hp = clampf(pitch, limits->pitch);
    out[0] = hy;
    out[1] = hp;
    out[2] = clampf(yaw - hy, limits->eye_yaw);
    out[3] = clampf(pitch - hp, limits->eye_pitch);
}

void bw_aim_rotation(float yaw, float pitch, float out[4])
{
    /* Ry(yaw) = (0, sy, 0, cy) times Rx(-pitch) = (sp, 0, 0, cp), the
     * quaternion product without its terms in the zero components */
    float sy = sinf(yaw * 0.5f), cy = cosf(yaw * 0.5f), sp = sinf(-pitch * 0.5f), cp = cosf(-pitch * 0.5f);
    out[0] = cy * sp;
    out[1] = sy * cp;
    out[2] = -(sy * sp);
    out[3] = cy * cp;
}

void bw_rotate_toward(const float body[4], const float dir[3], float yaw_limit, float pitch_limit, float out[4])
{
    float b[4] = {body[0], body[1], body[2], body[3]}, inv[4], local[3];
    bw_quat_normalize(b);
    bw_quat_conjugate(b, inv);
    bw_quat_rotate(inv, dir, local);
    float flat = sqrtf(local[0] * local[0] + local[2] * local[2]);
    float d[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    if (flat > 1e-6f || fabsf(local[1]) > 1e-6f) {
        float yaw = flat > 1e-6f ? atan2f(local[0], local[2]) : 0.0f;
        float pitch = atan2f(local[1], flat);
        bw_aim_rotation(clampf(yaw, yaw_limit), clampf(pitch, pitch_limit), d);
    }
    bw_quat_mul(b, d, out);
}

void bw_aim_chain(const bw_rig *rig, bw_pose *pose, const int *chain, const float *weights, int count, float yaw,
                  float pitch, float *out_local)
{
    if (!rig || !pose || pose->joint_count != bw_rig_joint_count(rig)) return;
    const int *parents = bw_rig_parents(rig);
    /* With P the parent's model rotation and r the joint's rotation,
     * (P^-1 D P) r = P^-1 (D (P r)): the joint's model rotation M = P r
     * does not wait for D's sines and cosines, and D M is the joint's new
     * model rotation, the next joint's P when it is a direct child, so the
     * chain's dependent work per joint is one product. */
    float rp[4]; /* the parent's model rotation; carried down a chain of direct children */
    int rp_of = -2;
    for (int i = 0; i < count; i++) {
        int j = chain[i];
        if (j < 0 || j >= pose->joint_count) continue;
        float w = weights[i], d[4], inv[4], m[4];
        bw_aim_rotation(w * yaw, w * pitch, d);
        if (rp_of != parents[j]) bw_model_rotation(rig, pose, parents[j], rp);
        float *r = pose->joints[j].r;
        bw_quat_conjugate(rp, inv);
        bw_quat_mul(rp, r, m);
        bw_quat_mul(d, m, rp); /* the joint's model rotation after its turn */
        bw_quat_mul(inv, rp, r);
        bw_quat_normalize(r);
        if (out_local)
            for (int k = 0; k < 4; k++) out_local[4 * i + k] = r[k];
        rp_of = j;
    }
}

void bw_aim_head(const bw_rig *rig, bw_pose *pose, const int *chain, const float *weights, int count,
                 const float body_position[3], float body_yaw, const float target[3], float last_yaw,
                 const bw_aim_limits *limits, float out[4])
{
    float origin[3] = {0.0f, 0.0f, 0.0f}, yaw, pitch;
    if (count > 0) bw_model_position(rig, pose, chain[count - 1], origin);
    bw_aim_angles(body_position, body_yaw, origin, target, &yaw, &pitch);
    bw_aim_clamp(yaw, pitch, last_yaw, limits, out);
    bw_aim_chain(rig, pose, chain, weights, count, out[0], out[1], NULL);
}
