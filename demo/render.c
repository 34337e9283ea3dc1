/* render.c - drawing the demo (render.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "font.h"
#include "render.h"

#ifndef M_PI /* strict C11 headers do not define it */
#define M_PI 3.14159265358979323846
#endif

/* Text is drawn at scale 2, or 1 in windows narrower than WIDE_WINDOW so
 * the figure keeps its room. Set once per frame by demo_render. */
#define WIDE_WINDOW 900
static int text_scale = 2;
#define CHAR_W (DEMO_FONT_ADVANCE * text_scale)
#define LINE_H (DEMO_FONT_LINE * text_scale)
#define MARGIN 12
#define PANEL_CHARS 36 /* the text column on the left; the figure stands right of it */

typedef struct rgb {
    Uint8 r, g, b;
} rgb;

static const rgb color_bg = {20, 22, 28};
static const rgb color_grid = {48, 54, 66};
static const rgb color_grid_axis = {70, 78, 96};
static const rgb color_text = {205, 208, 218};
static const rgb color_dim = {112, 118, 134};
static const rgb color_accent = {255, 208, 96};
static const rgb color_ok = {120, 220, 140};
static const rgb color_error = {255, 112, 112};
static const rgb color_centre = {232, 232, 238};
static const rgb color_left = {96, 164, 255};
static const rgb color_right = {255, 150, 72};

static void set_color(SDL_Renderer *r, rgb c, Uint8 alpha)
{
    SDL_SetRenderDrawColor(r, c.r, c.g, c.b, alpha);
}

static rgb shade(rgb c, float f)
{
    rgb out = {(Uint8)(c.r * f), (Uint8)(c.g * f), (Uint8)(c.b * f)};
    return out;
}

/* ---- the view ---- */

void demo_view_init(demo_view *view, float yaw, float pitch)
{
    memset(view, 0, sizeof *view);
    view->yaw = yaw;
    view->pitch = pitch;
    view->zoom = 1.0f;
}

static bool name_has(const char *name, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = name; *p; p++) {
        size_t i = 0;
        while (i < n && p[i] && tolower((unsigned char)p[i]) == word[i]) i++;
        if (i == n) return true;
    }
    return false;
}

/* Which side a joint belongs to, from its name: "left"/"right" anywhere,
 * or an "_l"/".l"/"l_" style suffix or prefix; 0 when the name says
 * nothing (the parent's side is used then). */
static int side_from_name(const char *name)
{
    if (name_has(name, "left")) return 1;
    if (name_has(name, "right")) return -1;
    size_t n = strlen(name);
    if (n >= 2 && (name[n - 2] == '_' || name[n - 2] == '.' || name[n - 2] == '-')) {
        char c = (char)tolower((unsigned char)name[n - 1]);
        if (c == 'l') return 1;
        if (c == 'r') return -1;
    }
    if (n >= 2 && (name[1] == '_' || name[1] == '.')) {
        char c = (char)tolower((unsigned char)name[0]);
        if (c == 'l') return 1;
        if (c == 'r') return -1;
    }
    return 0;
}

/* Fit to the rest pose of the player's character. */
static void refit(demo_view *v, const demo_player *p)
{
    const bw_rig *rig = p->character->rig;
    int n = bw_rig_joint_count(rig);
    bw_pose pose = {0};
    float(*model)[4][4] = calloc((size_t)(n > 0 ? n : 1), sizeof *model);
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    if (model && bw_pose_init(&pose, rig, NULL) == BW_OK) {
        bw_pose_set_rest(&pose, rig);
        bw_pose_local_to_model(rig, &pose, model);
        for (int j = 0; j < n; j++) {
            for (int k = 0; k < 3; k++) {
                float x = model[j][3][k];
                if (!isfinite(x)) continue;
                if (x < lo[k]) lo[k] = x;
                if (x > hi[k]) hi[k] = x;
            }
        }
    }
    bw_pose_deinit(&pose);
    free(model);
    if (!(lo[0] <= hi[0]) || !(lo[1] <= hi[1]) || !(lo[2] <= hi[2])) {
        for (int k = 0; k < 3; k++) lo[k] = hi[k] = 0.0f;
    }
    float extent = fmaxf(hi[1] - lo[1], fmaxf(hi[0] - lo[0], hi[2] - lo[2]));
    if (!(extent > 1e-6f)) extent = 1.0f;
    /* keep the framing across small edits; refit for a different figure */
    bool keep = v->fitted && v->extent > 0.0f && extent / v->extent < 1.5f && v->extent / extent < 1.5f;
    if (!keep) {
        v->extent = extent;
        v->center[0] = 0.5f * (lo[0] + hi[0]);
        v->center[1] = lo[1];
        v->center[2] = 0.5f * (lo[2] + hi[2]);
        v->ground_y = lo[1];
    }
    /* a leaf whose parent is named "...head..." is the top of the head:
     * its bone is drawn as a circle through both ends */
    memset(v->head_tip, 0, sizeof v->head_tip);
    for (int j = 0; j < n && j < DEMO_MAX_JOINTS; j++) {
        int parent = bw_rig_joint_parent(rig, j);
        if (parent < 0 || !name_has(bw_rig_joint_name(rig, parent), "head")) continue;
        bool leaf = true;
        for (int k = j + 1; k < n && leaf; k++) leaf = bw_rig_joint_parent(rig, k) != j;
        const float *t = bw_rig_rest_pose(rig)[j].t;
        float len = sqrtf(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
        if (leaf && len > 0.0f && isfinite(len)) {
            v->head_tip[j] = true;
            v->head_length[j] = len;
        }
    }
    for (int j = 0; j < n && j < DEMO_MAX_JOINTS; j++) {
        int side = side_from_name(bw_rig_joint_name(rig, j));
        int parent = bw_rig_joint_parent(rig, j);
        if (side == 0 && parent >= 0) side = v->side[parent];
        v->side[j] = (signed char)side;
    }
    v->fitted = p->character;
}

void demo_view_update(demo_view *view, const demo_player *player, float dt)
{
    if (!player || !player->character) return;
    if (view->fitted != player->character) refit(view, player);
    /* the ground moves at the weighted ground speed of what plays */
    double speed = 0.0;
    const demo_character *c = player->character;
    for (int i = 0; i < DEMO_TRACK_CAPACITY; i++) {
        const demo_track *tr = &player->tracks[i];
        if (!tr->used) continue;
        for (int k = 0; k < c->clip_count; k++) {
            if (c->clips[k].clip == tr->clip) {
                speed += (double)c->scene.ground_speed[k] * (double)bw_track_set_weight(player->set, tr->handle) *
                         (double)bw_track_set_speed(player->set, tr->handle);
                break;
            }
        }
    }
    if (isfinite(speed) && dt > 0.0f) view->ground_offset = fmod(view->ground_offset + speed * (double)dt, 1e6);
}

/* ---- projection ---- */

typedef struct frame_geom {
    float ox, oy;  /* screen position of the view centre */
    float scale;   /* pixels per model unit */
    float cy, sy, cp, sp;
} frame_geom;

static frame_geom make_geom(const demo_view *v, int w, int h)
{
    frame_geom g;
    float panel = (float)(MARGIN + PANEL_CHARS * CHAR_W);
    /* right of the text column when there is room, else overlapping it */
    g.ox = (float)w - panel >= 0.4f * (float)w ? panel + 0.5f * ((float)w - panel) : 0.6f * (float)w;
    g.oy = 0.84f * (float)h;
    float extent = v->extent > 0.0f ? v->extent : 1.0f;
    g.scale = v->zoom * 0.66f * (float)h / extent;
    float yaw = v->yaw * (float)M_PI / 180.0f, pitch = v->pitch * (float)M_PI / 180.0f;
    g.cy = cosf(yaw);
    g.sy = sinf(yaw);
    g.cp = cosf(pitch);
    g.sp = sinf(pitch);
    return g;
}

/* Model point -> screen x, y and depth (larger = nearer the viewer). The
 * camera looks down -Z with the figure turned by yaw, then tilted by pitch
 * (positive: seen from above). */
static void project(const frame_geom *g, const demo_view *v, const float p[3], float *sx, float *sy, float *depth)
{
    float x = p[0] - v->center[0], y = p[1] - v->center[1], z = p[2] - v->center[2];
    float x1 = x * g->cy + z * g->sy;
    float z1 = -x * g->sy + z * g->cy;
    float y2 = y * g->cp - z1 * g->sp;
    float z2 = y * g->sp + z1 * g->cp;
    *sx = g->ox + x1 * g->scale;
    *sy = g->oy - y2 * g->scale;
    *depth = z2;
}

static void thick_line(SDL_Renderer *r, float ax, float ay, float bx, float by, float width, rgb c)
{
    float dx = bx - ax, dy = by - ay;
    float len = sqrtf(dx * dx + dy * dy);
    if (!(len > 0.5f)) return;
    float nx = -dy / len * width * 0.5f, ny = dx / len * width * 0.5f;
    SDL_Color col = {c.r, c.g, c.b, 255};
    SDL_Vertex v[4] = {
        {{ax + nx, ay + ny}, col, {0, 0}},
        {{ax - nx, ay - ny}, col, {0, 0}},
        {{bx - nx, by - ny}, col, {0, 0}},
        {{bx + nx, by + ny}, col, {0, 0}},
    };
    static const int idx[6] = {0, 1, 2, 0, 2, 3};
    SDL_RenderGeometry(r, NULL, v, 4, idx, 6);
}

static void draw_ground(SDL_Renderer *r, const frame_geom *g, const demo_view *v)
{
    float spacing = v->extent / 4.0f;
    float reach = v->extent * 0.9f;
    int lines = 8;
    float shift = (float)fmod(v->ground_offset, (double)spacing);
    for (int i = -lines / 2; i <= lines / 2; i++) {
        /* lines across the walking direction scroll toward -Z */
        float z = (float)i * spacing - shift;
        if (z < -reach - 1e-4f || z > reach + 1e-4f) continue;
        float a[3] = {v->center[0] - reach, v->ground_y, v->center[2] + z};
        float b[3] = {v->center[0] + reach, v->ground_y, v->center[2] + z};
        float ax, ay, bx, by, d;
        project(g, v, a, &ax, &ay, &d);
        project(g, v, b, &bx, &by, &d);
        set_color(r, color_grid, 255);
        SDL_RenderDrawLineF(r, ax, ay, bx, by);
    }
    for (int i = -lines / 2; i <= lines / 2; i++) {
        float x = (float)i * spacing;
        if (x < -reach - 1e-4f || x > reach + 1e-4f) continue;
        float a[3] = {v->center[0] + x, v->ground_y, v->center[2] - reach};
        float b[3] = {v->center[0] + x, v->ground_y, v->center[2] + reach};
        float ax, ay, bx, by, d;
        project(g, v, a, &ax, &ay, &d);
        project(g, v, b, &bx, &by, &d);
        set_color(r, i == 0 ? color_grid_axis : color_grid, 255);
        SDL_RenderDrawLineF(r, ax, ay, bx, by);
    }
}

/* A ring (outline circle) of radius `rad` and line width `width`. */
static void ring(SDL_Renderer *r, float cx, float cy, float rad, float width, rgb c)
{
    enum { SEGMENTS = 28 };
    SDL_Vertex v[2 * SEGMENTS];
    int idx[6 * SEGMENTS];
    SDL_Color col = {c.r, c.g, c.b, 255};
    float inner = rad - width * 0.5f, outer = rad + width * 0.5f;
    if (inner < 0.0f) inner = 0.0f;
    for (int i = 0; i < SEGMENTS; i++) {
        float a = 2.0f * (float)M_PI * (float)i / (float)SEGMENTS;
        float ca = cosf(a), sa = sinf(a);
        v[2 * i] = (SDL_Vertex){{cx + inner * ca, cy + inner * sa}, col, {0, 0}};
        v[2 * i + 1] = (SDL_Vertex){{cx + outer * ca, cy + outer * sa}, col, {0, 0}};
        int j = (i + 1) % SEGMENTS;
        int *q = &idx[6 * i];
        q[0] = 2 * i;
        q[1] = 2 * i + 1;
        q[2] = 2 * j + 1;
        q[3] = 2 * i;
        q[4] = 2 * j + 1;
        q[5] = 2 * j;
    }
    SDL_RenderGeometry(r, NULL, v, 2 * SEGMENTS, idx, 6 * SEGMENTS);
}

/* A filled circle (a triangle fan). */
static void disc(SDL_Renderer *r, float cx, float cy, float rad, rgb c)
{
    enum { SEGMENTS = 28 };
    SDL_Vertex v[SEGMENTS + 1];
    int idx[3 * SEGMENTS];
    SDL_Color col = {c.r, c.g, c.b, 255};
    v[SEGMENTS] = (SDL_Vertex){{cx, cy}, col, {0, 0}};
    for (int i = 0; i < SEGMENTS; i++) {
        float a = 2.0f * (float)M_PI * (float)i / (float)SEGMENTS;
        v[i] = (SDL_Vertex){{cx + rad * cosf(a), cy + rad * sinf(a)}, col, {0, 0}};
        idx[3 * i] = SEGMENTS;
        idx[3 * i + 1] = i;
        idx[3 * i + 2] = (i + 1) % SEGMENTS;
    }
    SDL_RenderGeometry(r, NULL, v, SEGMENTS + 1, idx, 3 * SEGMENTS);
}

typedef struct bone_order {
    float depth;
    int joint;
} bone_order;

static int by_depth(const void *a, const void *b)
{
    float da = ((const bone_order *)a)->depth, db = ((const bone_order *)b)->depth;
    return (da > db) - (da < db);
}

static void draw_skeleton(SDL_Renderer *r, const frame_geom *g, const demo_view *v, const demo_player *p)
{
    const bw_rig *rig = p->character->rig;
    int n = bw_rig_joint_count(rig);
    if (n > DEMO_MAX_JOINTS) n = DEMO_MAX_JOINTS;
    static float sx[DEMO_MAX_JOINTS], sy[DEMO_MAX_JOINTS], dz[DEMO_MAX_JOINTS];
    static bone_order order[DEMO_MAX_JOINTS];
    float dmin = INFINITY, dmax = -INFINITY;
    for (int j = 0; j < n; j++) {
        const float *pos = p->model[j][3];
        project(g, v, pos, &sx[j], &sy[j], &dz[j]);
        if (!isfinite(sx[j]) || !isfinite(sy[j]) || !isfinite(dz[j])) sx[j] = sy[j] = dz[j] = 0.0f;
        if (dz[j] < dmin) dmin = dz[j];
        if (dz[j] > dmax) dmax = dz[j];
    }
    for (int j = 0; j < n; j++) {
        int parent = bw_rig_joint_parent(rig, j);
        order[j].joint = j;
        order[j].depth = parent >= 0 ? 0.5f * (dz[j] + dz[parent]) : dz[j];
    }
    qsort(order, (size_t)n, sizeof order[0], by_depth);
    float width = 0.028f * v->extent * g->scale;
    if (width < 2.0f) width = 2.0f;
    if (width > 9.0f) width = 9.0f;
    float box = width * 1.7f;
    if (box < 5.0f) box = 5.0f;
    float range = dmax - dmin;
    for (int k = 0; k < n; k++) {
        int j = order[k].joint;
        int parent = bw_rig_joint_parent(rig, j);
        rgb base = v->side[j] > 0 ? color_left : v->side[j] < 0 ? color_right : color_centre;
        /* nearer bones brighter, so crossing limbs read in depth */
        float f = range > 1e-6f ? 0.55f + 0.45f * (order[k].depth - dmin) / range : 1.0f;
        if (v->head_tip[j] && parent >= 0) {
            /* the bone from a head joint to its tip, drawn as a head; filled
             * first so limbs behind it are hidden */
            float rad = 0.5f * v->head_length[j] * g->scale;
            float mx = 0.5f * (sx[j] + sx[parent]), my = 0.5f * (sy[j] + sy[parent]);
            disc(r, mx, my, rad, color_bg);
            ring(r, mx, my, rad, width, shade(base, f));
            continue;
        }
        if (parent >= 0) thick_line(r, sx[parent], sy[parent], sx[j], sy[j], width, shade(base, f));
        set_color(r, shade(base, fminf(1.0f, f + 0.15f)), 255);
        SDL_FRect sq = {sx[j] - box * 0.5f, sy[j] - box * 0.5f, box, box};
        SDL_RenderFillRectF(r, &sq);
        set_color(r, color_bg, 255);
        SDL_FRect inner = {sx[j] - box * 0.2f, sy[j] - box * 0.2f, box * 0.4f, box * 0.4f};
        SDL_RenderFillRectF(r, &inner);
    }
}

/* ---- text ---- */

static int text(SDL_Renderer *r, int x, int y, rgb c, const char *s)
{
    set_color(r, c, 255);
    return demo_font_draw(r, x, y, text_scale, s);
}

/* Text in the left column: at most PANEL_CHARS characters from column x. */
static int panel_text(SDL_Renderer *r, int x, int y, rgb c, const char *s)
{
    int cols = PANEL_CHARS - (x - MARGIN) / CHAR_W;
    set_color(r, c, 255);
    return demo_font_draw_n(r, x, y, text_scale, s, cols > 0 ? (size_t)cols : 0);
}

/* Word-wrap `msg` into lines of at most `cols` characters, starting at y;
 * at most `max_lines` lines. Returns the y below the last line. */
static int wrapped(SDL_Renderer *r, int x, int y, int cols, int max_lines, rgb c, const char *msg)
{
    set_color(r, c, 255);
    const char *s = msg;
    for (int line = 0; *s && line < max_lines; line++) {
        size_t len = strcspn(s, "\n");
        size_t take = len;
        if ((int)take > cols) {
            take = (size_t)cols;
            for (size_t k = take; k > (size_t)cols / 2; k--) {
                if (s[k] == ' ') {
                    take = k;
                    break;
                }
            }
        }
        demo_font_draw_n(r, x, y, text_scale, s, take);
        y += LINE_H;
        s += take;
        while (*s == ' ' || *s == '\n') s++;
    }
    return y;
}

static bool clip_playing(const demo_player *p, const bw_clip *clip)
{
    for (int i = 0; i < DEMO_TRACK_CAPACITY; i++) {
        const demo_track *tr = &p->tracks[i];
        if (tr->used && tr->clip == clip && !bw_track_set_stopping(p->set, tr->handle)) return true;
    }
    return false;
}

static int draw_panel(SDL_Renderer *r, int y, const demo_player *p, const demo_hud *hud)
{
    char line[160];
    int x = MARGIN;
    snprintf(line, sizeof line, "t %.2f s  frame %ld  dt %.4f", p->time, p->frame, (double)hud->dt);
    panel_text(r, x, y, color_dim, line);
    y += LINE_H + 6;

    panel_text(r, x, y, color_accent, "CLIPS");
    y += LINE_H;
    int cx = x;
    for (int i = 0; i < p->character->clip_count; i++) {
        if (i < 9)
            snprintf(line, sizeof line, "%d %.24s  ", i + 1, p->character->clips[i].name);
        else
            snprintf(line, sizeof line, "- %.24s  ", p->character->clips[i].name);
        int wpx = (int)strlen(line) * CHAR_W;
        if (cx + wpx > MARGIN + PANEL_CHARS * CHAR_W && cx > x) {
            cx = x;
            y += LINE_H;
        }
        cx += panel_text(r, cx, y, clip_playing(p, p->character->clips[i].clip) ? color_text : color_dim, line);
    }
    y += LINE_H + 6;

    /* name, priority, clip time, a weight bar, the weight, and what the
     * track is doing: "fade" (stopping), "once" (the gesture one-shot),
     * "gone" (its clip was removed by a reload) */
    panel_text(r, x, y, color_accent, "TRACKS    pr  time weight");
    y += LINE_H;
    const demo_track *recs[DEMO_TRACK_CAPACITY];
    int n = demo_player_tracks(p, recs, DEMO_TRACK_CAPACITY);
    for (int i = 0; i < n; i++) {
        const demo_track *tr = recs[i];
        float w = bw_track_set_weight(p->set, tr->handle);
        double t = bw_track_set_time(p->set, tr->handle);
        bool stopping = bw_track_set_stopping(p->set, tr->handle);
        snprintf(line, sizeof line, "%-8.8s %2d %5.2f", tr->name, tr->priority, t);
        rgb c = stopping ? color_dim : color_text;
        int wx = x + panel_text(r, x, y, c, line) + CHAR_W;
        int bar = 7 * CHAR_W;
        set_color(r, color_grid, 255);
        SDL_Rect back = {wx, y + text_scale, bar, LINE_H - 4 * text_scale};
        SDL_RenderFillRect(r, &back);
        set_color(r, tr->role == DEMO_ROLE_GESTURE ? color_accent : tr->removed ? color_error : color_left, 255);
        SDL_Rect fill = {wx, y + text_scale, (int)((float)bar * fminf(fmaxf(w, 0.0f), 1.0f) + 0.5f),
                         LINE_H - 4 * text_scale};
        SDL_RenderFillRect(r, &fill);
        snprintf(line, sizeof line, "%4.2f %s", (double)w,
                 tr->removed ? "gone" : stopping ? "fade" : tr->role == DEMO_ROLE_GESTURE ? "once" : "");
        panel_text(r, wx + bar + CHAR_W, y, c, line);
        y += LINE_H;
    }
    if (n == 0) {
        panel_text(r, x, y, color_dim, "(nothing plays: press 1-9)");
        y += LINE_H;
    }
    y += 6;

    panel_text(r, x, y, color_accent, "EVENTS");
    y += LINE_H;
    for (long k = p->log_total - 1; k >= 0 && k >= p->log_total - 10; k--) {
        const demo_event *ev = demo_player_event(p, k);
        if (!ev) break;
        if (ev->kind == DEMO_EVENT_MARKER)
            snprintf(line, sizeof line, "%6.2f %-8.8s %s", ev->time, ev->clip, ev->name);
        else
            snprintf(line, sizeof line, "%6.2f %-8.8s <%s>", ev->time, ev->clip,
                     ev->kind == DEMO_EVENT_ENDED ? "ended" : "stopped");
        panel_text(r, x, y, ev->kind == DEMO_EVENT_MARKER ? color_text : color_dim, line);
        y += LINE_H;
    }
    return y;
}

void demo_render(SDL_Renderer *r, int w, int h, const demo_view *view, const demo_player *p, const demo_hud *hud)
{
    text_scale = w >= WIDE_WINDOW ? 2 : 1;
    SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_BLEND);
    set_color(r, color_bg, 255);
    SDL_RenderClear(r);
    if (p && p->character && view->fitted == p->character) {
        frame_geom g = make_geom(view, w, h);
        draw_ground(r, &g, view);
        draw_skeleton(r, &g, view, p);
    }

    char line[160];
    int y = MARGIN;
    snprintf(line, sizeof line, "BLENDWERK DEMO  %s", hud->script_name ? hud->script_name : "");
    panel_text(r, MARGIN, y, color_accent, line);
    y += LINE_H + 4;
    if (p && p->character) draw_panel(r, y, p, hud);

    const char *help = "1-9 crossfade  SPACE gesture  ARROWS view  R reload  0 restart  ESC quit";
    int help_y = h - MARGIN - LINE_H + 4;
    text(r, MARGIN, help_y, color_dim, help);

    if (hud->flash && hud->flash_alpha > 0.0f) {
        int fw = (int)strlen(hud->flash) * CHAR_W;
        set_color(r, color_ok, (Uint8)(255.0f * fminf(hud->flash_alpha, 1.0f)));
        demo_font_draw(r, w - MARGIN - fw, MARGIN, text_scale, hud->flash);
    }

    const char *err = hud->reloader && hud->reloader->error[0] ? hud->reloader->error : NULL;
    if (err) {
        int cols = (w - 4 * MARGIN) / CHAR_W;
        if (cols < 10) cols = 10;
        int max_lines = 6;
        /* count the wrapped lines by laying them out off-screen first */
        int lines = 0;
        for (const char *s = err; *s && lines < max_lines; lines++) {
            size_t len = strcspn(s, "\n"), take = len;
            if ((int)take > cols) {
                take = (size_t)cols;
                for (size_t k = take; k > (size_t)cols / 2; k--)
                    if (s[k] == ' ') {
                        take = k;
                        break;
                    }
            }
            s += take;
            while (*s == ' ' || *s == '\n') s++;
        }
        int box_h = (lines + 1) * LINE_H + 2 * MARGIN;
        SDL_Rect box = {MARGIN, help_y - 8 - box_h, w - 2 * MARGIN, box_h};
        SDL_SetRenderDrawColor(r, 72, 18, 24, 235);
        SDL_RenderFillRect(r, &box);
        set_color(r, color_error, 255);
        SDL_RenderDrawRect(r, &box);
        int ty = box.y + MARGIN;
        text(r, box.x + MARGIN, ty, color_error,
             p ? "RELOAD FAILED - the last good version keeps running" : "LOAD FAILED - fix the script and save it");
        wrapped(r, box.x + MARGIN, ty + LINE_H, cols, max_lines, color_text, err);
    }
}
