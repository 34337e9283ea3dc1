/* affine.h - a local transform as the 3x3 rotation-scale part and
 * translation of its affine matrix (private; pose.c and the
 * local-to-model kernel in kernels.h share it). */
#ifndef BW_AFFINE_H
#define BW_AFFINE_H

#include <math.h>

#include "blendwerk/types.h"

/* Columns of R(q)·S: the 3x3 part of T·R·S. The rotation is taken as
 * q / |q| (2/|q|² instead of 2 below), so a slightly denormalized q does not
 * shear the matrix; a zero or non-finite q counts as identity. */
static inline void rotation_scale_columns(const bw_transform *x, float c[3][3])
{
    float qx = x->r[0], qy = x->r[1], qz = x->r[2], qw = x->r[3];
    float n2 = qx * qx + qy * qy + qz * qz + qw * qw;
    float k = 0.0f;
    if (n2 > 1e-30f && n2 < INFINITY) k = 2.0f / n2; /* NaN fails both tests */
    else qx = qy = qz = qw = 0.0f;
    float xx = qx * qx * k, yy = qy * qy * k, zz = qz * qz * k;
    float xy = qx * qy * k, xz = qx * qz * k, yz = qy * qz * k;
    float wx = qw * qx * k, wy = qw * qy * k, wz = qw * qz * k;
    float sx = x->s[0], sy = x->s[1], sz = x->s[2];
    c[0][0] = (1.0f - yy - zz) * sx;
    c[0][1] = (xy + wz) * sx;
    c[0][2] = (xz - wy) * sx;
    c[1][0] = (xy - wz) * sy;
    c[1][1] = (1.0f - xx - zz) * sy;
    c[1][2] = (yz + wx) * sy;
    c[2][0] = (xz + wy) * sz;
    c[2][1] = (yz - wx) * sz;
    c[2][2] = (1.0f - xx - yy) * sz;
}

/* The affine matrix [c | t] (last row 0 0 0 1). */
static inline void store_affine(const float c[3][3], const float *t, float m[4][4])
{
    for (int k = 0; k < 3; k++) {
        m[k][0] = c[k][0];
        m[k][1] = c[k][1];
        m[k][2] = c[k][2];
        m[k][3] = 0.0f;
    }
    m[3][0] = t[0];
    m[3][1] = t[1];
    m[3][2] = t[2];
    m[3][3] = 1.0f;
}

#endif
