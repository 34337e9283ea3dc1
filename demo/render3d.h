/* render3d.h - the demo's 3D drawing over SDL_Renderer (SDL_RenderGeometry,
 * so a software renderer works and headless runs need no display).
 *
 * The world: +Y up, metres, the character stands on the ground plane y = 0
 * at `position`, facing `yaw` about +Y (0 faces +Z, the animator's
 * convention, SPEC §9). A frame is built as one batch of triangles:
 *
 *     demo_r3d_begin(r, &camera);
 *     demo_r3d_ground(r, ...);            // grid, trail
 *     demo_r3d_shadow(r, x, z, radius);
 *     demo_r3d_figure(r, &figure);        // the mannequin, its face
 *     demo_r3d_mesh(r, &mesh);            // or a skinned glTF mesh
 *     demo_r3d_line(r, a, b, colour);     // gaze rays, limit arcs, ...
 *     demo_r3d_end(r, renderer);          // depth-sort, draw
 *
 * Depth: triangles are sorted back to front by their centroid's view
 * depth before drawing (the painter's algorithm per triangle; solids are
 * small and convex, so this is correct for everything the demo draws but
 * interpenetrating faces). Shading: one directional light plus ambient,
 * flat per triangle (Lambert on the face normal).
 *
 * Memory: demo_r3d_create allocates the triangle and vertex buffers for
 * `max_triangles`; a frame never allocates. Triangles beyond the capacity
 * are dropped and counted (demo_r3d_dropped), never written out of bounds.
 * Triangles with a corner behind the near plane, or more than 10^6 pixels
 * off screen (beyond SDL's fixed-point rasterizer), are left out (not
 * counted as dropped); lines are clipped to the near plane instead.
 * demo_r3d_end draws even when begin found a degenerate camera (it then
 * draws nothing). No function here reads files or Lua.
 */
#ifndef BW_DEMO_RENDER3D_H
#define BW_DEMO_RENDER3D_H

#include <SDL.h>
#include <stdbool.h>
#include <stdint.h>

#include "blendwerk/rig.h"

typedef struct demo_camera {
    float eye[3];      /* world position */
    float target[3];   /* world point looked at (screen centre) */
    float fov_y;       /* vertical field of view, radians; 0 = 0.8 */
    int width, height; /* viewport in pixels */
} demo_camera;

/* Project a world point: pixel coordinates (origin top-left) and view depth
 * (metres in front of the eye). False when the point is behind the near
 * plane (0.05 m) or the camera is degenerate. */
bool demo_camera_project(const demo_camera *camera, const float world[3], float out_pixel[2], float *out_depth);
/* The inverse: the world ray through the pixel-space point (px, py) (a
 * pixel's centre is (x + 0.5, y + 0.5)). out_dir is scaled so that its
 * component along the view direction is 1 (eye + out_dir * d is the point
 * at view depth d); out_fwd (may be NULL) is the unit view direction. The
 * basis is demo_camera_project's (straight up / down views included).
 * False (outputs unchanged) for a degenerate camera or non-finite point. */
bool demo_camera_ray(const demo_camera *camera, float px, float py, float out_dir[3], float out_fwd[3]);

typedef struct demo_colour {
    uint8_t r, g, b, a;
} demo_colour;

/* A character drawn as a mannequin: one lit solid (a tapered box) per bone
 * segment from each joint to its parent, a sphere-ish head, hands and
 * feet; a simple face on the head. Joints are found by name once per rig
 * (demo_r3d_figure caches the lookups per rig pointer, so a reload that
 * brings a new rig is picked up). */
typedef struct demo_face {
    const float *arkit52; /* 52 ARKit values (bw_arkit52_name order), NULL = neutral face */
    float gaze[4];        /* pitch_l, yaw_l, pitch_r, yaw_r, radians (animator convention:
                             +yaw toward the character's +X, +pitch up) */
} demo_face;

typedef struct demo_figure {
    const bw_rig *rig;
    const float (*model)[4][4]; /* joint_count model-space matrices (bw_pose_local_to_model) */
    float position[3];          /* world placement of the model origin */
    float yaw;                  /* radians about +Y */
    demo_face face;             /* eyes follow gaze, lids follow eyeBlinkLeft/Right,
                                   the jaw opens with jawOpen */
    demo_colour colour;         /* base colour; {0} = the default mannequin grey-blue */
} demo_figure;

/* A triangle mesh already skinned into model space (CPU skinning is the
 * caller's), placed like a figure. */
typedef struct demo_mesh_draw {
    const float *positions; /* vertex_count × 3, model space */
    const float *normals;   /* vertex_count × 3 or NULL (face normals are used) */
    int vertex_count;
    const uint32_t *indices; /* index_count, a multiple of 3; each < vertex_count */
    int index_count;
    float position[3];
    float yaw;
    float scale;             /* model units to metres; 0 = 1 */
    demo_colour colour;
} demo_mesh_draw;

typedef struct demo_r3d demo_r3d;

demo_r3d *demo_r3d_create(int max_triangles); /* NULL on out of memory */
void demo_r3d_destroy(demo_r3d *r);           /* NULL is a no-op */

void demo_r3d_begin(demo_r3d *r, const demo_camera *camera);
/* A square grid of `extent` metres around (centre_x, centre_z), lines every
 * `spacing` metres at world multiples of `spacing` (so it scrolls when the
 * centre follows the character); `trail` is trail_count (x, z) pairs drawn
 * as a fading line on the ground, oldest first. `extent` is the side
 * (centre ± extent / 2, fading out toward it); at most 400 cells across. */
void demo_r3d_ground(demo_r3d *r, float centre_x, float centre_z, float extent, float spacing,
                     const float *trail, int trail_count);
void demo_r3d_shadow(demo_r3d *r, float x, float z, float radius);
void demo_r3d_figure(demo_r3d *r, const demo_figure *figure);
void demo_r3d_mesh(demo_r3d *r, const demo_mesh_draw *mesh);
/* A world-space line `width_px` pixels wide, depth-sorted with the rest. */
void demo_r3d_line(demo_r3d *r, const float a[3], const float b[3], float width_px, demo_colour colour);
/* Sort and draw the batch; returns the number of triangles drawn. */
int demo_r3d_end(demo_r3d *r, SDL_Renderer *renderer);
int demo_r3d_dropped(const demo_r3d *r); /* triangles dropped in the last frame */

#endif
