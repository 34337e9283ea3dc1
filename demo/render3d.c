/* render3d.c - the demo's 3D drawing (render3d.h).
 *
 * Everything becomes screen-space triangles in one preallocated batch. A
 * triangle belongs to one of two layers: the ground layer (floor, grid,
 * trail, shadow: all on y = 0, drawn first in the order they were added,
 * since nothing above the ground can be behind it for a camera above it)
 * and the scene layer (solids, face, lines), sorted back to front by
 * centroid depth. Solids are closed and convex, so their faces turned away
 * from the camera are dropped before sorting; that keeps the painter's
 * algorithm right where solids touch.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blendwerk/animator.h"
#include "blendwerk/pose.h"
#include "render3d.h"

#define NEAR_PLANE 0.05f
#define GUARD_PX 1.0e6f
#define DEFAULT_FOV 0.8f
/* Joints whose roles are looked up by name, per rig; joints past this
 * many are drawn as generic bones. */
#define KIND_CAP 1024

enum { LAYER_GROUND = 0, LAYER_SCENE = 1 };

/* Flags of a world-space triangle. */
enum {
    TRI_LIT = 1,    /* Lambert-shaded on its face normal */
    TRI_CULL = 2,   /* one-sided: dropped when its normal faces away */
    TRI_GROUND = 4, /* the ground layer */
};

/* What a joint is, decided once per rig from its name. */
typedef enum joint_kind {
    K_GENERIC = 0,
    K_ROOT,  /* the rig's ground root: no bone drawn from it */
    K_TORSO, /* hips, pelvis, spine, chest */
    K_NECK,
    K_HEAD,
    K_EYE,
    K_CLAVICLE,
    K_UPPERARM,
    K_LOWERARM,
    K_HAND,
    K_THIGH,
    K_CALF,
    K_FOOT,
    K_TOE,
    K_FINGER,
} joint_kind;

typedef struct tri_key {
    float depth;
    int layer;
    int seq;
} tri_key;

struct demo_r3d {
    int cap;
    int count;
    int dropped;
    SDL_Vertex *verts; /* cap × 3, in the order added */
    SDL_Vertex *out;   /* cap × 3, sorted */
    tri_key *keys;     /* cap */

    /* camera of the current frame */
    bool valid;
    float eye[3], right[3], up[3], fwd[3];
    float focal; /* pixels per unit of (lateral / depth) */
    float forced_depth; /* > 0: the sort depth of the triangles being added (decals) */
    float decal_bias;   /* decals sort this much nearer than their anchor (metres) */
    float half_w, half_h;
    int width, height;

    /* per-rig lookups (demo_r3d_figure) */
    uint64_t rig_serial;
    const bw_rig *rig;
    int joint_count;
    unsigned char kind[KIND_CAP];
    unsigned char main_child[KIND_CAP]; /* 1: the child continues its parent's chain */
    unsigned char has_child[KIND_CAP];
    int head, eye_l, eye_r;
    int hip_a, hip_b; /* two thighs of one parent: a pelvis is drawn between them */
    float size; /* the figure's height from its rest pose (model units) */
    float rest_model[KIND_CAP][4][4]; /* scratch for that */

    int jaw_open, blink_l, blink_r; /* ARKit slots */
};

/* ---- small vector helpers ---- */

static void v3_set(float o[3], float x, float y, float z)
{
    o[0] = x;
    o[1] = y;
    o[2] = z;
}
static void v3_sub(const float a[3], const float b[3], float o[3])
{
    v3_set(o, a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}
static void v3_add_scaled(const float a[3], const float d[3], float s, float o[3])
{
    v3_set(o, a[0] + d[0] * s, a[1] + d[1] * s, a[2] + d[2] * s);
}
static float v3_dot(const float a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static void v3_cross(const float a[3], const float b[3], float o[3])
{
    float x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
    v3_set(o, x, y, z);
}
static float v3_len(const float a[3])
{
    return sqrtf(v3_dot(a, a));
}
/* Normalize in place; false (and unchanged) for a (near) zero or non-finite vector. */
static bool v3_norm(float a[3])
{
    float l = v3_len(a);
    if (!(l > 1e-12f) || !isfinite(l)) return false;
    v3_set(a, a[0] / l, a[1] / l, a[2] / l);
    return true;
}
static bool finite3(const float a[3])
{
    return isfinite(a[0]) && isfinite(a[1]) && isfinite(a[2]);
}

static const float light_dir[3] = {0.381f, 0.762f, 0.524f}; /* toward the light, unit */
#define AMBIENT 0.38f
#define DIFFUSE 0.62f

static demo_colour rgba(int r, int g, int b, int a)
{
    demo_colour c = {(uint8_t)r, (uint8_t)g, (uint8_t)b, (uint8_t)a};
    return c;
}

static SDL_Color sdl_colour(demo_colour c, float f)
{
    if (f < 0.0f) f = 0.0f;
    if (f > 1.0f) f = 1.0f;
    SDL_Color s = {(Uint8)(c.r * f + 0.5f), (Uint8)(c.g * f + 0.5f), (Uint8)(c.b * f + 0.5f), c.a};
    return s;
}

/* ---- camera ---- */

/* The camera basis; false for a degenerate camera. */
static bool camera_basis(const demo_camera *cam, float right[3], float up[3], float fwd[3], float *focal)
{
    if (!cam || cam->width <= 0 || cam->height <= 0 || !finite3(cam->eye) || !finite3(cam->target)) return false;
    float fov = cam->fov_y == 0.0f ? DEFAULT_FOV : cam->fov_y;
    if (!(fov > 0.01f && fov < 3.1f)) return false;
    v3_sub(cam->target, cam->eye, fwd);
    if (!v3_norm(fwd)) return false;
    float world_up[3] = {0, 1, 0};
    if (fabsf(fwd[1]) > 0.999f) v3_set(world_up, 0, 0, fwd[1] > 0 ? -1.0f : 1.0f); /* looking straight up/down */
    v3_cross(fwd, world_up, right);
    if (!v3_norm(right)) return false;
    v3_cross(right, fwd, up);
    *focal = 0.5f * (float)cam->height / tanf(0.5f * fov);
    return true;
}

static void project_basis(const float eye[3], const float right[3], const float up[3], const float fwd[3],
                          float focal, float half_w, float half_h, const float p[3], float px[2], float *depth)
{
    float d[3];
    v3_sub(p, eye, d);
    float z = v3_dot(d, fwd);
    *depth = z;
    px[0] = half_w + focal * v3_dot(d, right) / z;
    px[1] = half_h - focal * v3_dot(d, up) / z;
}

bool demo_camera_project(const demo_camera *camera, const float world[3], float out_pixel[2], float *out_depth)
{
    float right[3], up[3], fwd[3], focal;
    if (!world || !finite3(world) || !camera_basis(camera, right, up, fwd, &focal)) return false;
    float px[2], z;
    project_basis(camera->eye, right, up, fwd, focal, 0.5f * (float)camera->width, 0.5f * (float)camera->height,
                  world, px, &z);
    if (!(z >= NEAR_PLANE)) return false;
    if (out_pixel) {
        out_pixel[0] = px[0];
        out_pixel[1] = px[1];
    }
    if (out_depth) *out_depth = z;
    return true;
}

bool demo_camera_ray(const demo_camera *camera, float px, float py, float out_dir[3], float out_fwd[3])
{
    float right[3], up[3], fwd[3], focal;
    if (!isfinite(px) || !isfinite(py) || !camera_basis(camera, right, up, fwd, &focal)) return false;
    float nx = (px - 0.5f * (float)camera->width) / focal, ny = (0.5f * (float)camera->height - py) / focal;
    for (int k = 0; k < 3; k++) out_dir[k] = fwd[k] + nx * right[k] + ny * up[k];
    if (out_fwd) v3_set(out_fwd, fwd[0], fwd[1], fwd[2]);
    return true;
}

/* ---- the batch ---- */

demo_r3d *demo_r3d_create(int max_triangles)
{
    if (max_triangles < 1) max_triangles = 1;
    if ((size_t)max_triangles > ((size_t)1 << 26)) return NULL;
    demo_r3d *r = SDL_calloc(1, sizeof *r);
    if (!r) return NULL;
    size_t n = (size_t)max_triangles;
    r->verts = SDL_malloc(n * 3 * sizeof *r->verts);
    r->out = SDL_malloc(n * 3 * sizeof *r->out);
    r->keys = SDL_malloc(n * sizeof *r->keys);
    if (!r->verts || !r->out || !r->keys) {
        demo_r3d_destroy(r);
        return NULL;
    }
    r->cap = max_triangles;
    r->head = r->eye_l = r->eye_r = -1;
    r->jaw_open = bw_arkit52_find("jawOpen");
    r->blink_l = BW_ARKIT52_EYE_BLINK_LEFT;
    r->blink_r = BW_ARKIT52_EYE_BLINK_RIGHT;
    return r;
}

void demo_r3d_destroy(demo_r3d *r)
{
    if (!r) return;
    SDL_free(r->verts);
    SDL_free(r->out);
    SDL_free(r->keys);
    SDL_free(r);
}

void demo_r3d_begin(demo_r3d *r, const demo_camera *camera)
{
    if (!r) return;
    r->count = 0;
    r->dropped = 0;
    r->valid = camera_basis(camera, r->right, r->up, r->fwd, &r->focal);
    if (!r->valid) return;
    memcpy(r->eye, camera->eye, sizeof r->eye);
    r->width = camera->width;
    r->height = camera->height;
    r->half_w = 0.5f * (float)camera->width;
    r->half_h = 0.5f * (float)camera->height;
}

int demo_r3d_dropped(const demo_r3d *r)
{
    return r ? r->dropped : 0;
}

/* Add a screen-space triangle. */
static void push_screen(demo_r3d *r, const float px[3][2], const SDL_Color col[3], float depth, int layer)
{
    float minx = fminf(px[0][0], fminf(px[1][0], px[2][0])), maxx = fmaxf(px[0][0], fmaxf(px[1][0], px[2][0]));
    float miny = fminf(px[0][1], fminf(px[1][1], px[2][1])), maxy = fmaxf(px[0][1], fmaxf(px[1][1], px[2][1]));
    if (!(maxx >= 0.0f && minx <= (float)r->width && maxy >= 0.0f && miny <= (float)r->height)) return; /* off screen or NaN */
    /* SDL's rasterizer works in fixed point: keep far-out corners (a huge
     * world coordinate, a point grazing the near plane) out of its range */
    if (minx < -GUARD_PX || miny < -GUARD_PX || maxx > GUARD_PX || maxy > GUARD_PX) return;
    if (r->count >= r->cap) {
        r->dropped++;
        return;
    }
    SDL_Vertex *v = r->verts + (size_t)r->count * 3;
    for (int i = 0; i < 3; i++) {
        v[i].position.x = px[i][0];
        v[i].position.y = px[i][1];
        v[i].color = col[i];
        v[i].tex_coord.x = v[i].tex_coord.y = 0.0f;
    }
    r->keys[r->count].depth = depth;
    r->keys[r->count].layer = layer;
    r->keys[r->count].seq = r->count;
    r->count++;
}

/* Add a world-space triangle with per-vertex colours (no shading). Dropped
 * when a corner is behind the near plane. */
static void push_world_colours(demo_r3d *r, const float *p[3], const demo_colour c[3], int layer)
{
    float px[3][2], z[3];
    for (int i = 0; i < 3; i++) {
        project_basis(r->eye, r->right, r->up, r->fwd, r->focal, r->half_w, r->half_h, p[i], px[i], &z[i]);
        if (!(z[i] >= NEAR_PLANE)) return;
    }
    SDL_Color col[3] = {sdl_colour(c[0], 1.0f), sdl_colour(c[1], 1.0f), sdl_colour(c[2], 1.0f)};
    push_screen(r, px, col, r->forced_depth > 0.0f ? r->forced_depth : (z[0] + z[1] + z[2]) * (1.0f / 3.0f), layer);
}

/* Add a world-space triangle. `inside`, when given, is a point the face
 * normal must point away from (the centre of the solid or the disc's
 * surface point behind it), so callers need not track winding. */
static void tri(demo_r3d *r, const float a[3], const float b[3], const float c[3], demo_colour col, int flags,
                const float *inside)
{
    if (!r->valid) return;
    float e1[3], e2[3], n[3];
    v3_sub(b, a, e1);
    v3_sub(c, a, e2);
    v3_cross(e1, e2, n);
    if (!v3_norm(n)) return; /* degenerate */
    if (inside) {
        float d[3];
        v3_sub(a, inside, d);
        if (v3_dot(d, n) < 0.0f) v3_set(n, -n[0], -n[1], -n[2]);
    }
    float to_eye[3];
    v3_sub(r->eye, a, to_eye);
    float facing = v3_dot(n, to_eye);
    if ((flags & TRI_CULL) && facing <= 0.0f) return;
    float f = 1.0f;
    if (flags & TRI_LIT) {
        float l = v3_dot(n, light_dir);
        if (facing < 0.0f) l = -l; /* two-sided: light the side we see */
        f = AMBIENT + DIFFUSE * (l > 0.0f ? l : 0.0f);
    }
    demo_colour shaded = col;
    SDL_Color s = sdl_colour(col, f);
    shaded.r = s.r;
    shaded.g = s.g;
    shaded.b = s.b;
    const float *p[3] = {a, b, c};
    demo_colour cs[3] = {shaded, shaded, shaded};
    push_world_colours(r, p, cs, (flags & TRI_GROUND) ? LAYER_GROUND : LAYER_SCENE);
}

static void quad(demo_r3d *r, const float a[3], const float b[3], const float c[3], const float d[3], demo_colour col,
                 int flags, const float *inside)
{
    tri(r, a, b, c, col, flags, inside);
    tri(r, a, c, d, col, flags, inside);
}

static int compare_keys(const void *pa, const void *pb)
{
    const tri_key *a = pa, *b = pb;
    if (a->layer != b->layer) return a->layer < b->layer ? -1 : 1;
    if (a->layer == LAYER_SCENE && a->depth != b->depth) return a->depth > b->depth ? -1 : 1; /* far first */
    return a->seq < b->seq ? -1 : (a->seq > b->seq);
}

int demo_r3d_end(demo_r3d *r, SDL_Renderer *renderer)
{
    if (!r || !r->valid || r->count == 0) return 0;
    qsort(r->keys, (size_t)r->count, sizeof *r->keys, compare_keys);
    for (int i = 0; i < r->count; i++) memcpy(r->out + (size_t)i * 3, r->verts + (size_t)r->keys[i].seq * 3, 3 * sizeof *r->out);
    if (!renderer) return r->count;
    SDL_BlendMode saved = SDL_BLENDMODE_NONE;
    SDL_GetRenderDrawBlendMode(renderer, &saved);
    /* Runs of opaque triangles draw unblended (cheaper in software), runs
     * with any translucent corner blended; order is kept across runs. */
    int start = 0;
    while (start < r->count) {
        const SDL_Vertex *v = r->out + (size_t)start * 3;
        bool opaque = v[0].color.a == 255 && v[1].color.a == 255 && v[2].color.a == 255;
        int end = start + 1;
        while (end < r->count) {
            const SDL_Vertex *w = r->out + (size_t)end * 3;
            bool o = w[0].color.a == 255 && w[1].color.a == 255 && w[2].color.a == 255;
            if (o != opaque) break;
            end++;
        }
        SDL_SetRenderDrawBlendMode(renderer, opaque ? SDL_BLENDMODE_NONE : SDL_BLENDMODE_BLEND);
        SDL_RenderGeometry(renderer, NULL, v, (end - start) * 3, NULL, 0);
        start = end;
    }
    SDL_SetRenderDrawBlendMode(renderer, saved);
    return r->count;
}

/* ---- ground, trail, shadow, lines ---- */

/* A ground-layer quad from four (x, z) corners at height y. */
static void ground_quad(demo_r3d *r, const float xz[4][2], float y, demo_colour col)
{
    float p[4][3];
    for (int i = 0; i < 4; i++) v3_set(p[i], xz[i][0], y, xz[i][1]);
    tri(r, p[0], p[1], p[2], col, TRI_GROUND, NULL);
    tri(r, p[0], p[2], p[3], col, TRI_GROUND, NULL);
}

/* Fade with distance from the grid's centre: 1 inside, 0 at the edge. */
static float edge_fade(float d, float half)
{
    float t = d / half;
    if (t < 0.6f) return 1.0f;
    if (t >= 1.0f) return 0.0f;
    return (1.0f - t) / 0.4f;
}

void demo_r3d_ground(demo_r3d *r, float centre_x, float centre_z, float extent, float spacing, const float *trail,
                     int trail_count)
{
    if (!r || !r->valid) return;
    if (isfinite(centre_x) && isfinite(centre_z) && isfinite(extent) && isfinite(spacing) && extent > 0.0f &&
        spacing > 0.0f && extent / spacing <= 400.0f) {
        float half = 0.5f * extent;
        /* the floor: cells of the grid, so the near plane only drops the few under the camera */
        int i0 = (int)floorf((centre_x - half) / spacing), i1 = (int)ceilf((centre_x + half) / spacing);
        int k0 = (int)floorf((centre_z - half) / spacing), k1 = (int)ceilf((centre_z + half) / spacing);
        for (int i = i0; i < i1; i++) {
            for (int k = k0; k < k1; k++) {
                float x = (float)i * spacing, z = (float)k * spacing;
                float dx = fabsf(x + 0.5f * spacing - centre_x), dz = fabsf(z + 0.5f * spacing - centre_z);
                float fade = edge_fade(sqrtf(dx * dx + dz * dz), half); /* a round fade: no corners */
                if (fade <= 0.0f) continue;
                float c[4][2] = {{x, z}, {x + spacing, z}, {x + spacing, z + spacing}, {x, z + spacing}};
                ground_quad(r, c, 0.0f, rgba(44, 50, 60, (int)(255.0f * fade)));
            }
        }
        /* lines at world multiples of spacing, one quad per cell edge */
        float w = fminf(0.018f, 0.06f * spacing); /* half-width */
        for (int axis = 0; axis < 2; axis++) {
            for (int i = i0; i <= i1; i++) {
                float line = (float)i * spacing;
                for (int k = k0; k < k1; k++) {
                    float a = (float)k * spacing, b = a + spacing;
                    float across = fabsf(line - (axis == 0 ? centre_x : centre_z));
                    float along = fabsf(0.5f * (a + b) - (axis == 0 ? centre_z : centre_x));
                    float fade = edge_fade(sqrtf(across * across + along * along), half);
                    if (fade <= 0.0f) continue;
                    demo_colour col = i == 0 ? rgba(96, 106, 130, (int)(255.0f * fade))
                                             : rgba(70, 78, 94, (int)(255.0f * fade));
                    float c[4][2];
                    if (axis == 0) { /* a line of constant x */
                        float q[4][2] = {{line - w, a}, {line + w, a}, {line + w, b}, {line - w, b}};
                        memcpy(c, q, sizeof c);
                    } else {
                        float q[4][2] = {{a, line - w}, {b, line - w}, {b, line + w}, {a, line + w}};
                        memcpy(c, q, sizeof c);
                    }
                    ground_quad(r, c, 0.001f, col);
                }
            }
        }
    }
    /* the trail: a ribbon 5 cm wide, fading toward its oldest point */
    if (trail && trail_count >= 2) {
        for (int i = 0; i + 1 < trail_count; i++) {
            const float *p = trail + 2 * i, *q = trail + 2 * i + 2;
            if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(q[0]) || !isfinite(q[1])) continue;
            float dx = q[0] - p[0], dz = q[1] - p[1], l = sqrtf(dx * dx + dz * dz);
            if (!(l > 1e-6f)) continue;
            float nx = -dz / l * 0.025f, nz = dx / l * 0.025f;
            float c[4][2] = {{p[0] - nx, p[1] - nz}, {q[0] - nx, q[1] - nz}, {q[0] + nx, q[1] + nz}, {p[0] + nx, p[1] + nz}};
            int alpha = 40 + (int)(200.0f * (float)(i + 1) / (float)(trail_count - 1));
            ground_quad(r, c, 0.002f, rgba(255, 196, 80, alpha));
        }
    }
}

#define SHADOW_SEGMENTS 24

void demo_r3d_shadow(demo_r3d *r, float x, float z, float radius)
{
    if (!r || !r->valid || !isfinite(x) || !isfinite(z) || !(radius > 0.0f) || !isfinite(radius)) return;
    /* a dark core fading to nothing at the rim */
    float centre[3] = {x, 0.003f, z};
    demo_colour core = rgba(0, 0, 0, 110), mid = rgba(0, 0, 0, 80), rim = rgba(0, 0, 0, 0);
    float inner = 0.6f * radius;
    for (int i = 0; i < SHADOW_SEGMENTS; i++) {
        float a0 = 6.2831853f * (float)i / SHADOW_SEGMENTS, a1 = 6.2831853f * (float)(i + 1) / SHADOW_SEGMENTS;
        float p0[3] = {x + inner * cosf(a0), 0.003f, z + inner * sinf(a0)};
        float p1[3] = {x + inner * cosf(a1), 0.003f, z + inner * sinf(a1)};
        float q0[3] = {x + radius * cosf(a0), 0.003f, z + radius * sinf(a0)};
        float q1[3] = {x + radius * cosf(a1), 0.003f, z + radius * sinf(a1)};
        const float *t0[3] = {centre, p0, p1};
        demo_colour c0[3] = {core, mid, mid};
        push_world_colours(r, t0, c0, LAYER_GROUND);
        const float *t1[3] = {p0, q0, q1};
        demo_colour c1[3] = {mid, rim, rim};
        push_world_colours(r, t1, c1, LAYER_GROUND);
        const float *t2[3] = {p0, q1, p1};
        demo_colour c2[3] = {mid, rim, mid};
        push_world_colours(r, t2, c2, LAYER_GROUND);
    }
}

void demo_r3d_line(demo_r3d *r, const float a[3], const float b[3], float width_px, demo_colour colour)
{
    if (!r || !r->valid || !a || !b || !finite3(a) || !finite3(b) || !isfinite(width_px)) return;
    if (width_px < 1.0f) width_px = 1.0f;
    /* clip the segment to the near plane */
    float pa[3], pb[3], da[3], db[3];
    memcpy(pa, a, sizeof pa);
    memcpy(pb, b, sizeof pb);
    v3_sub(pa, r->eye, da);
    v3_sub(pb, r->eye, db);
    float za = v3_dot(da, r->fwd), zb = v3_dot(db, r->fwd);
    if (za < NEAR_PLANE && zb < NEAR_PLANE) return;
    if (za < NEAR_PLANE || zb < NEAR_PLANE) {
        float t = (NEAR_PLANE - za) / (zb - za);
        float cut[3] = {pa[0] + (pb[0] - pa[0]) * t, pa[1] + (pb[1] - pa[1]) * t, pa[2] + (pb[2] - pa[2]) * t};
        memcpy(za < NEAR_PLANE ? pa : pb, cut, sizeof cut);
    }
    float sa[2], sb[2], depth_a, depth_b;
    project_basis(r->eye, r->right, r->up, r->fwd, r->focal, r->half_w, r->half_h, pa, sa, &depth_a);
    project_basis(r->eye, r->right, r->up, r->fwd, r->focal, r->half_w, r->half_h, pb, sb, &depth_b);
    float dx = sb[0] - sa[0], dy = sb[1] - sa[1], l = sqrtf(dx * dx + dy * dy);
    float nx, ny;
    if (l > 1e-3f) {
        nx = -dy / l * 0.5f * width_px;
        ny = dx / l * 0.5f * width_px;
    } else { /* seen end-on: a dot */
        nx = 0.5f * width_px;
        ny = 0.0f;
    }
    float depth = 0.5f * (depth_a + depth_b);
    SDL_Color c = sdl_colour(colour, 1.0f);
    SDL_Color cs[3] = {c, c, c};
    float t0[3][2] = {{sa[0] - nx, sa[1] - ny}, {sb[0] - nx, sb[1] - ny}, {sb[0] + nx, sb[1] + ny}};
    float t1[3][2] = {{sa[0] - nx, sa[1] - ny}, {sb[0] + nx, sb[1] + ny}, {sa[0] + nx, sa[1] + ny}};
    push_screen(r, t0, cs, depth, LAYER_SCENE);
    push_screen(r, t1, cs, depth, LAYER_SCENE);
}

/* ---- solids ---- */

/* A box tapered from half-widths (wa, da) at `a` to (wb, db) at `b`;
 * `side` is a direction roughly across the bone (the width axis). */
static void tapered_box(demo_r3d *r, const float a[3], const float b[3], const float side_hint[3], float wa, float da,
                        float wb, float db, demo_colour col)
{
    float axis[3], side[3], depth[3];
    v3_sub(b, a, axis);
    if (!v3_norm(axis)) return;
    /* side: the hint made perpendicular to the axis, or any perpendicular */
    v3_add_scaled(side_hint, axis, -v3_dot(side_hint, axis), side);
    if (!v3_norm(side)) {
        float alt[3] = {1, 0, 0};
        if (fabsf(axis[0]) > 0.9f) v3_set(alt, 0, 0, 1);
        v3_add_scaled(alt, axis, -v3_dot(alt, axis), side);
        if (!v3_norm(side)) return;
    }
    v3_cross(axis, side, depth);
    float corner[8][3];
    for (int end = 0; end < 2; end++) {
        const float *o = end ? b : a;
        float w = end ? wb : wa, d = end ? db : da;
        for (int k = 0; k < 4; k++) {
            float sw = (k == 0 || k == 3) ? -w : w, sd = (k < 2) ? -d : d;
            float *p = corner[end * 4 + k];
            for (int j = 0; j < 3; j++) p[j] = o[j] + side[j] * sw + depth[j] * sd;
        }
    }
    float centre[3] = {0.5f * (a[0] + b[0]), 0.5f * (a[1] + b[1]), 0.5f * (a[2] + b[2])};
    int flags = TRI_LIT | TRI_CULL;
    for (int k = 0; k < 4; k++) {
        int k1 = (k + 1) % 4;
        quad(r, corner[k], corner[k1], corner[4 + k1], corner[4 + k], col, flags, centre);
    }
    quad(r, corner[0], corner[1], corner[2], corner[3], col, flags, centre);
    quad(r, corner[4], corner[5], corner[6], corner[7], col, flags, centre);
}

#define SPHERE_SLICES 10
#define SPHERE_RINGS 7

/* A low-poly ellipsoid: radius `rad` scaled by `stretch` along `up`. */
static void ellipsoid(demo_r3d *r, const float c[3], float rad, const float up[3], const float side[3],
                      const float front[3], float stretch, demo_colour col)
{
    float ring[2][SPHERE_SLICES][3];
    for (int i = 0; i <= SPHERE_RINGS; i++) {
        float phi = 3.14159265f * (float)i / SPHERE_RINGS;
        float y = cosf(phi) * rad * stretch, rr = sinf(phi) * rad;
        float(*cur)[3] = ring[i & 1];
        for (int s = 0; s < SPHERE_SLICES; s++) {
            float th = 6.2831853f * (float)s / SPHERE_SLICES;
            float cx = cosf(th) * rr, cz = sinf(th) * rr;
            for (int j = 0; j < 3; j++) cur[s][j] = c[j] + up[j] * y + side[j] * cx + front[j] * cz;
        }
        if (i == 0) continue;
        float(*prev)[3] = ring[(i - 1) & 1];
        for (int s = 0; s < SPHERE_SLICES; s++) {
            int s1 = (s + 1) % SPHERE_SLICES;
            if (i > 1) tri(r, prev[s], prev[s1], cur[s1], col, TRI_LIT | TRI_CULL, c);
            if (i < SPHERE_RINGS) tri(r, prev[s], cur[s1], cur[s], col, TRI_LIT | TRI_CULL, c);
        }
    }
}

#define DISC_SEGMENTS 12

static void disc_fill(demo_r3d *r, const float c[3], const float n[3], const float u[3], const float v[3], float ru,
                      float rv, float cut, demo_colour col);

/* A one-sided disc (or its part above the chord at height `cut` in [-1, 1]
 * of the radius, along `v`) at `c`, facing `n`, spanned by `u` and `v`.
 * A decal: all its triangles sort at the depth of `anchor` less
 * `stack` millimetres, so discs stacked on one another (eye white, pupil,
 * lid) keep their order however the face is turned. */
static void disc(demo_r3d *r, const float c[3], const float anchor[3], const float n[3], const float u[3],
                 const float v[3], float ru, float rv, float cut, int stack, demo_colour col)
{
    float d[3];
    v3_sub(anchor, r->eye, d);
    float z = v3_dot(d, r->fwd) - r->decal_bias - 0.001f * (float)stack;
    if (!(z >= NEAR_PLANE)) return;
    r->forced_depth = z;
    disc_fill(r, c, n, u, v, ru, rv, cut, col);
    r->forced_depth = 0.0f;
}

static void disc_fill(demo_r3d *r, const float c[3], const float n[3], const float u[3], const float v[3], float ru,
                      float rv, float cut, demo_colour col)
{
    float behind[3];
    v3_add_scaled(c, n, -1.0f, behind);
    if (cut <= -1.0f) { /* the full disc */
        float prev[3];
        for (int s = 0; s <= DISC_SEGMENTS; s++) {
            float th = 6.2831853f * (float)s / DISC_SEGMENTS, p[3];
            for (int j = 0; j < 3; j++) p[j] = c[j] + u[j] * cosf(th) * ru + v[j] * sinf(th) * rv;
            if (s > 0) tri(r, c, prev, p, col, TRI_CULL, behind);
            memcpy(prev, p, sizeof prev);
        }
        return;
    }
    if (cut >= 1.0f) return;
    /* the segment above the chord: arc from asin(cut) to pi - asin(cut) */
    float a0 = asinf(cut), a1 = 3.14159265f - a0;
    float base[3];
    for (int j = 0; j < 3; j++) base[j] = c[j] + v[j] * cut * rv;
    float prev[3];
    for (int s = 0; s <= DISC_SEGMENTS / 2; s++) {
        float th = a0 + (a1 - a0) * (float)s / (DISC_SEGMENTS / 2), p[3];
        for (int j = 0; j < 3; j++) p[j] = c[j] + u[j] * cosf(th) * ru + v[j] * sinf(th) * rv;
        if (s > 0) tri(r, base, prev, p, col, TRI_CULL, behind);
        memcpy(prev, p, sizeof prev);
    }
}

/* ---- the mannequin ---- */

static bool name_has(const char *lower, const char *word)
{
    return strstr(lower, word) != NULL;
}

static int side_of(const char *n, size_t len)
{
    if (strstr(n, "left")) return 1;
    if (strstr(n, "right")) return 2;
    if (len >= 2 && (n[len - 2] == '_' || n[len - 2] == '.' || n[len - 2] == '-')) {
        if (n[len - 1] == 'l') return 1;
        if (n[len - 1] == 'r') return 2;
    }
    if (len >= 2 && (n[1] == '_' || n[1] == '.')) {
        if (n[0] == 'l') return 1;
        if (n[0] == 'r') return 2;
    }
    return 0;
}

static joint_kind classify(const char *name, int *side)
{
    char n[64];
    size_t len = 0;
    for (; name[len] && len + 1 < sizeof n; len++) {
        char ch = name[len];
        n[len] = (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') : ch;
    }
    n[len] = '\0';
    *side = side_of(n, len);
    if (!strcmp(n, "root") || !strcmp(n, "armature") || !strcmp(n, "rootnode")) return K_ROOT;
    if (name_has(n, "eye")) return K_EYE;
    if (name_has(n, "end") || name_has(n, "top") || name_has(n, "jaw")) return K_GENERIC;
    if (name_has(n, "head")) return K_HEAD;
    if (name_has(n, "neck")) return K_NECK;
    if (name_has(n, "thumb") || name_has(n, "index") || name_has(n, "middle") || name_has(n, "ring") ||
        name_has(n, "pinky") || name_has(n, "finger"))
        return K_FINGER;
    if (name_has(n, "toe")) return K_TOE;
    if (name_has(n, "foot") || name_has(n, "ankle")) return K_FOOT;
    if (name_has(n, "hand") || name_has(n, "wrist")) return K_HAND;
    if (name_has(n, "clavicle") || name_has(n, "shoulder") || name_has(n, "collar")) return K_CLAVICLE;
    if (name_has(n, "upperarm") || name_has(n, "upper_arm") || (name_has(n, "arm") && !name_has(n, "fore") &&
                                                                 !name_has(n, "lower")))
        return K_UPPERARM;
    if (name_has(n, "forearm") || name_has(n, "lowerarm") || name_has(n, "lower_arm") || name_has(n, "elbow"))
        return K_LOWERARM;
    if (name_has(n, "thigh") || name_has(n, "upleg") || name_has(n, "upperleg") || name_has(n, "hip_") ||
        (name_has(n, "hip") && *side))
        return K_THIGH;
    if (name_has(n, "calf") || name_has(n, "shin") || name_has(n, "knee") || name_has(n, "leg")) return K_CALF;
    if (name_has(n, "spine") || name_has(n, "chest") || name_has(n, "hips") || name_has(n, "pelvis") ||
        name_has(n, "torso") || name_has(n, "abdomen") || name_has(n, "hip"))
        return K_TORSO;
    return K_GENERIC;
}

static void cache_rig(demo_r3d *r, const bw_rig *rig)
{
    if (r->rig == rig && r->rig_serial == bw_rig_serial(rig)) return;
    r->rig = rig;
    r->rig_serial = bw_rig_serial(rig);
    r->joint_count = bw_rig_joint_count(rig);
    r->head = r->eye_l = r->eye_r = -1;
    r->hip_a = r->hip_b = -1;
    r->size = 0.0f;
    int n = r->joint_count < KIND_CAP ? r->joint_count : KIND_CAP;
    memset(r->kind, K_GENERIC, sizeof r->kind);
    memset(r->main_child, 0, sizeof r->main_child);
    memset(r->has_child, 0, sizeof r->has_child);
    for (int i = 0; i < n; i++) {
        int side = 0;
        joint_kind k = classify(bw_rig_joint_name(rig, i), &side);
        r->kind[i] = (unsigned char)k;
        if (k == K_HEAD && r->head < 0) r->head = i;
        if (k == K_EYE && side == 1 && r->eye_l < 0) r->eye_l = i;
        if (k == K_EYE && side == 2 && r->eye_r < 0) r->eye_r = i;
        int p = bw_rig_joint_parent(rig, i);
        if (p >= 0 && p < n) r->has_child[p] = 1;
    }
    for (int i = 0; i < n && r->hip_b < 0; i++) {
        if (r->kind[i] != K_THIGH) continue;
        if (r->hip_a < 0) r->hip_a = i;
        else if (bw_rig_joint_parent(rig, i) == bw_rig_joint_parent(rig, r->hip_a)) r->hip_b = i;
    }
    /* size: the rest pose's vertical extent, or its largest extent for a
     * rig lying down (a Z-up skeleton); from the rest pose so bones keep
     * their thickness whatever the figure does */
    const bw_transform *rest = bw_rig_rest_pose(rig);
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < n; i++) {
        float local[4][4];
        bw_transform_to_matrix(&rest[i], local);
        int p = bw_rig_joint_parent(rig, i);
        if (p < 0) {
            memcpy(r->rest_model[i], local, sizeof local);
        } else { /* parents come first: theirs is ready */
            const float(*a)[4] = r->rest_model[p];
            for (int c = 0; c < 4; c++)
                for (int k = 0; k < 4; k++)
                    r->rest_model[i][c][k] =
                        a[0][k] * local[c][0] + a[1][k] * local[c][1] + a[2][k] * local[c][2] + a[3][k] * local[c][3];
        }
        for (int j = 0; j < 3; j++) {
            lo[j] = fminf(lo[j], r->rest_model[i][3][j]);
            hi[j] = fmaxf(hi[j], r->rest_model[i][3][j]);
        }
    }
    float ext = fmaxf(hi[0] - lo[0], fmaxf(hi[1] - lo[1], hi[2] - lo[2]));
    r->size = hi[1] - lo[1] >= 0.3f * ext ? (hi[1] - lo[1]) * 1.08f : ext;
    if (!(r->size > 1e-6f) || !isfinite(r->size)) r->size = 1.0f;
    /* a child continues its parent's chain when the parent has one child,
     * or when both are on the trunk (spine to neck to head) */
    int children[KIND_CAP];
    memset(children, 0, sizeof children);
    for (int i = 0; i < n; i++) {
        int p = bw_rig_joint_parent(rig, i);
        if (p >= 0 && p < n && r->kind[i] != K_EYE) children[p]++;
    }
    for (int i = 0; i < n; i++) {
        int p = bw_rig_joint_parent(rig, i);
        if (p < 0 || p >= n) continue;
        joint_kind kp = (joint_kind)r->kind[p], ki = (joint_kind)r->kind[i];
        bool trunk_p = kp == K_TORSO || kp == K_NECK, trunk_i = ki == K_TORSO || ki == K_NECK || ki == K_HEAD;
        r->main_child[i] = (unsigned char)(children[p] <= 1 || (trunk_p && trunk_i));
    }
}

/* Half-width (across) and half-depth of the bone starting at a joint of
 * kind `k`, as fractions of the figure's height. */
static void bone_size(joint_kind k, float *w, float *d)
{
    switch (k) {
    case K_TORSO: *w = 0.075f; *d = 0.05f; return;
    case K_NECK: *w = 0.025f; *d = 0.025f; return;
    case K_CLAVICLE: *w = 0.022f; *d = 0.022f; return;
    case K_UPPERARM: *w = 0.028f; *d = 0.028f; return;
    case K_LOWERARM: *w = 0.023f; *d = 0.023f; return;
    case K_HAND: *w = 0.025f; *d = 0.012f; return;
    case K_THIGH: *w = 0.042f; *d = 0.042f; return;
    case K_CALF: *w = 0.032f; *d = 0.032f; return;
    case K_FOOT: *w = 0.027f; *d = 0.022f; return;
    case K_TOE: *w = 0.025f; *d = 0.015f; return;
    case K_FINGER: *w = 0.006f; *d = 0.006f; return;
    default: *w = *d = 0.0f; return;
    }
}

/* World position of joint i and its model axes (unit), placed by the figure. */
typedef struct placement {
    float pos[3];
    float c, s; /* cos / sin of yaw */
} placement;

static void place_point(const placement *pl, const float m[3], float o[3])
{
    v3_set(o, pl->pos[0] + pl->c * m[0] + pl->s * m[2], pl->pos[1] + m[1], pl->pos[2] - pl->s * m[0] + pl->c * m[2]);
}
static void place_dir(const placement *pl, const float m[3], float o[3])
{
    v3_set(o, pl->c * m[0] + pl->s * m[2], m[1], -pl->s * m[0] + pl->c * m[2]);
}

static void joint_world(const placement *pl, const float (*model)[4][4], int i, float o[3])
{
    place_point(pl, model[i][3], o);
}
static void joint_axis(const placement *pl, const float (*model)[4][4], int i, int axis, float o[3])
{
    place_dir(pl, model[i][axis], o);
    if (!v3_norm(o)) v3_set(o, axis == 0, axis == 1, axis == 2);
}

static float arkit(const demo_face *f, int slot)
{
    if (!f->arkit52 || slot < 0 || slot >= BW_ARKIT52_COUNT) return 0.0f;
    float v = f->arkit52[slot];
    if (!isfinite(v)) return 0.0f;
    return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
}

static float gaze_angle(float v)
{
    if (!isfinite(v)) return 0.0f;
    return v > 1.4f ? 1.4f : (v < -1.4f ? -1.4f : v);
}

/* The head, eyes, lids and mouth. */
static void draw_head(demo_r3d *r, const demo_figure *fig, const placement *pl, demo_colour col)
{
    const float(*model)[4][4] = fig->model;
    int h = r->head;
    float head[3], up[3], front[3], side[3];
    joint_world(pl, model, h, head);
    joint_axis(pl, model, h, 1, up);
    float rad = 0.058f * r->size;
    /* front: toward the eyes when the rig has them, else the head's +Z */
    bool have_eyes = r->eye_l >= 0 && r->eye_r >= 0 && bw_rig_joint_parent(fig->rig, r->eye_l) >= 0;
    float el[3], er[3];
    if (have_eyes) {
        joint_world(pl, model, r->eye_l, el);
        joint_world(pl, model, r->eye_r, er);
        float mid[3] = {0.5f * (el[0] + er[0]), 0.5f * (el[1] + er[1]), 0.5f * (el[2] + er[2])}, to[3];
        v3_sub(mid, head, to);
        v3_add_scaled(to, up, -v3_dot(to, up), front);
        if (!v3_norm(front)) have_eyes = false;
    }
    if (!have_eyes) joint_axis(pl, model, h, 2, front);
    v3_cross(up, front, side);
    if (!v3_norm(side)) return;
    v3_cross(front, side, up); /* re-orthogonalize: up ⟂ front */
    float centre[3];
    v3_add_scaled(head, up, 0.9f * rad, centre);
    ellipsoid(r, centre, rad, up, side, front, 1.18f, col);
    /* the face's discs sort in front of the head's facets around them (a
     * facet's centroid can be nearer than a disc's anchor where the head
     * curves toward the camera) */
    r->decal_bias = 0.15f * rad;

    /* eyes: on the head's surface, where the rig's eye joints point */
    for (int e = 0; e < 2; e++) {
        float dir[3];
        if (have_eyes) {
            v3_sub(e == 0 ? el : er, centre, dir);
            v3_add_scaled(dir, front, 0.02f * rad, dir);
        } else {
            for (int j = 0; j < 3; j++) dir[j] = front[j] * 0.86f + up[j] * 0.28f + side[j] * (e == 0 ? 0.36f : -0.36f);
        }
        if (!v3_norm(dir)) continue;
        /* the disc's frame: u across (toward +side), v up */
        float u[3], v[3];
        v3_cross(up, dir, u);
        if (!v3_norm(u)) continue;
        v3_cross(dir, u, v);
        float er_ = 0.24f * rad;
        float at[3];
        v3_add_scaled(centre, dir, rad * 1.03f, at);
        disc(r, at, at, dir, u, v, er_, er_, -2.0f, 0, rgba(238, 238, 232, 255));
        /* pupil: moved across the white by the gaze angles */
        float pitch = gaze_angle(fig->face.gaze[e * 2]), yaw = gaze_angle(fig->face.gaze[e * 2 + 1]);
        float pc[3];
        for (int j = 0; j < 3; j++)
            pc[j] = at[j] + dir[j] * 0.01f * rad + u[j] * sinf(yaw) * 0.55f * er_ + v[j] * sinf(pitch) * 0.55f * er_;
        disc(r, pc, at, dir, u, v, 0.45f * er_, 0.45f * er_, -2.0f, 1, rgba(28, 30, 40, 255));
        /* lid: covers the eye from the top down to 1 - 2 * blink */
        float blink = arkit(&fig->face, e == 0 ? r->blink_l : r->blink_r);
        if (blink > 0.02f) {
            float lc[3];
            v3_add_scaled(at, dir, 0.02f * rad, lc);
            demo_colour lid = rgba(col.r * 4 / 5, col.g * 4 / 5, col.b * 4 / 5, 255);
            disc(r, lc, at, dir, u, v, er_ * 1.08f, er_ * 1.08f, blink >= 0.98f ? -2.0f : 1.0f - 2.0f * blink, 2, lid);
        }
    }
    /* mouth: an opening that grows with jawOpen */
    float jaw = arkit(&fig->face, r->jaw_open);
    float mdir[3];
    for (int j = 0; j < 3; j++) mdir[j] = front[j] * 0.88f - up[j] * 0.5f;
    if (v3_norm(mdir)) {
        float u[3], v[3], mc[3];
        v3_cross(up, mdir, u);
        if (v3_norm(u)) {
            v3_cross(mdir, u, v);
            v3_add_scaled(centre, mdir, rad * 1.04f, mc);
            v3_add_scaled(mc, v, -jaw * 0.12f * rad, mc);
            disc(r, mc, mc, mdir, u, v, 0.36f * rad, (0.05f + 0.25f * jaw) * rad, -2.0f, 0, rgba(86, 30, 36, 255));
        }
    }
}

static bool is_default(demo_colour c)
{
    return c.r == 0 && c.g == 0 && c.b == 0 && c.a == 0;
}

void demo_r3d_figure(demo_r3d *r, const demo_figure *fig)
{
    if (!r || !r->valid || !fig || !fig->rig || !fig->model) return;
    cache_rig(r, fig->rig);
    int n = r->joint_count;
    if (n <= 0) return;
    placement pl = {{fig->position[0], fig->position[1], fig->position[2]}, cosf(fig->yaw), sinf(fig->yaw)};
    if (!finite3(pl.pos) || !isfinite(pl.c)) return;
    const float(*model)[4][4] = fig->model;
    for (int i = 0; i < n; i++)
        if (!finite3(model[i][3])) return; /* a broken pose draws nothing */
    float size = r->size;
    demo_colour col = is_default(fig->colour) ? rgba(150, 166, 192, 255) : fig->colour;
    col.a = 255; /* solids are opaque: the painter's order needs it */

    for (int i = 0; i < n; i++) {
        int p = bw_rig_joint_parent(fig->rig, i);
        joint_kind ki = i < KIND_CAP ? (joint_kind)r->kind[i] : K_GENERIC;
        if (ki == K_EYE) continue;
        float a[3], b[3], side[3];
        joint_world(&pl, model, i, b);
        if (p >= 0) {
            joint_kind kp = p < KIND_CAP ? (joint_kind)r->kind[p] : K_GENERIC;
            if (kp != K_ROOT && kp != K_HEAD) {
                joint_world(&pl, model, p, a);
                float d[3];
                v3_sub(b, a, d);
                float len = v3_len(d);
                if (len > 1e-5f * size) {
                    float w, dd;
                    bone_size(kp, &w, &dd);
                    bool main = i >= KIND_CAP || r->main_child[i];
                    if (w == 0.0f || !main) { /* generic: thickness from the bone's length */
                        w = fminf(fmaxf(0.16f * len / size, 0.01f), 0.04f);
                        if (kp == K_FINGER || ki == K_FINGER) w = fminf(w, 0.007f);
                        dd = w;
                    }
                    joint_axis(&pl, model, p, 0, side);
                    float taper = (kp == K_TORSO && main) ? 0.95f : 0.78f;
                    tapered_box(r, a, b, side, w * size, dd * size, w * size * taper, dd * size * taper, col);
                }
            }
        }
        /* ends: hands and other leaf joints get a short block past the joint */
        if (i < KIND_CAP && !r->has_child[i] && p >= 0 && ki != K_HEAD) {
            float a2[3], dir[3];
            joint_world(&pl, model, p, a2);
            v3_sub(b, a2, dir);
            float len = v3_len(dir);
            if (!v3_norm(dir)) continue;
            float w, dd, ext_len;
            bone_size(ki, &w, &dd);
            if (w == 0.0f) {
                w = dd = fminf(fmaxf(0.12f * len / size, 0.008f), 0.03f);
                ext_len = fminf(0.5f * len, 0.04f * size);
            } else {
                ext_len = ki == K_HAND ? 0.09f * size : (ki == K_TOE ? 0.03f * size : 0.4f * len);
            }
            float end[3];
            v3_add_scaled(b, dir, ext_len, end);
            joint_axis(&pl, model, i, 0, side);
            tapered_box(r, b, end, side, w * size, dd * size, w * size * 0.8f, dd * size * 0.8f, col);
        }
    }
    if (r->hip_b >= 0) { /* the pelvis: a block across the hip joints */
        float a[3], b[3], up[3];
        joint_world(&pl, model, r->hip_a, a);
        joint_world(&pl, model, r->hip_b, b);
        joint_axis(&pl, model, bw_rig_joint_parent(fig->rig, r->hip_a), 1, up);
        float w = 0.05f * size, d = 0.045f * size, dir[3];
        v3_sub(b, a, dir);
        if (v3_norm(dir)) { /* a little past each hip joint */
            v3_add_scaled(a, dir, -0.03f * size, a);
            v3_add_scaled(b, dir, 0.03f * size, b);
            tapered_box(r, a, b, up, w, d, w, d, col);
        }
    }
    if (r->head >= 0 && r->head < n) draw_head(r, fig, &pl, col);
    r->decal_bias = 0.0f;
}

/* ---- skinned meshes ---- */

void demo_r3d_mesh(demo_r3d *r, const demo_mesh_draw *mesh)
{
    if (!r || !r->valid || !mesh || !mesh->positions || !mesh->indices || mesh->vertex_count <= 0) return;
    float scale = mesh->scale == 0.0f ? 1.0f : mesh->scale;
    placement pl = {{mesh->position[0], mesh->position[1], mesh->position[2]}, cosf(mesh->yaw), sinf(mesh->yaw)};
    if (!finite3(pl.pos) || !isfinite(pl.c) || !isfinite(scale) || !(scale > 0.0f)) return;
    demo_colour col = is_default(mesh->colour) ? rgba(196, 178, 160, 255) : mesh->colour;
    col.a = 255;
    int n = mesh->index_count - mesh->index_count % 3;
    for (int t = 0; t < n; t += 3) {
        uint32_t ia = mesh->indices[t], ib = mesh->indices[t + 1], ic = mesh->indices[t + 2];
        if (ia >= (uint32_t)mesh->vertex_count || ib >= (uint32_t)mesh->vertex_count || ic >= (uint32_t)mesh->vertex_count)
            continue;
        float p[3][3];
        const uint32_t idx[3] = {ia, ib, ic};
        for (int k = 0; k < 3; k++) {
            const float *m = mesh->positions + (size_t)idx[k] * 3;
            float s[3] = {m[0] * scale, m[1] * scale, m[2] * scale};
            place_point(&pl, s, p[k]);
        }
        if (!finite3(p[0]) || !finite3(p[1]) || !finite3(p[2])) continue;
        /* counter-clockwise front faces (glTF); faces turned away are dropped */
        float e1[3], e2[3], fn[3], to_eye[3];
        v3_sub(p[1], p[0], e1);
        v3_sub(p[2], p[0], e2);
        v3_cross(e1, e2, fn);
        if (!v3_norm(fn)) continue;
        v3_sub(r->eye, p[0], to_eye);
        if (v3_dot(fn, to_eye) <= 0.0f) continue;
        float sn[3];
        memcpy(sn, fn, sizeof sn);
        if (mesh->normals) { /* shade on the mean of the vertex normals when there are some */
            float m[3] = {0, 0, 0};
            for (int k = 0; k < 3; k++) {
                const float *vn = mesh->normals + (size_t)idx[k] * 3;
                for (int j = 0; j < 3; j++) m[j] += vn[j];
            }
            float w[3];
            place_dir(&pl, m, w);
            if (finite3(w) && v3_norm(w)) memcpy(sn, w, sizeof sn);
        }
        float l = v3_dot(sn, light_dir);
        float f = AMBIENT + DIFFUSE * (l > 0.0f ? l : 0.0f);
        SDL_Color c = sdl_colour(col, f);
        demo_colour shaded = rgba(c.r, c.g, c.b, 255);
        const float *pp[3] = {p[0], p[1], p[2]};
        demo_colour cs[3] = {shaded, shaded, shaded};
        push_world_colours(r, pp, cs, LAYER_SCENE);
    }
}
