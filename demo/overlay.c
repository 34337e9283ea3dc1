/* overlay.c - the demo's 2D overlays (overlay.h). */
#include "overlay.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "font.h"

#define LINE DEMO_FONT_LINE
#define ADV DEMO_FONT_ADVANCE
#define PANEL_W 250
#define BOX_W 78
#define BOX_H 14
#define BOX_COLS 3
#define MAX_WEIGHTS 32
#define MAX_EVENTS 8
#define MAX_ERROR_LINES 12 /* rows of the error band */

static void colour(SDL_Renderer *r, Uint8 red, Uint8 green, Uint8 blue, Uint8 alpha)
{
    SDL_SetRenderDrawColor(r, red, green, blue, alpha);
}

static void panel(SDL_Renderer *r, int x, int y, int w, int h)
{
    colour(r, 10, 14, 22, 170);
    SDL_Rect rc = {x - 4, y - 4, w + 8, h + 8};
    SDL_RenderFillRect(r, &rc);
}

static void text(SDL_Renderer *r, int x, int y, const char *s) { demo_font_draw(r, x, y, 1, s); }

/* ---- state machines ---- */

static void box_centre(int x0, int y0, int i, int *cx, int *cy)
{
    *cx = x0 + (i % BOX_COLS) * (BOX_W + 6) + BOX_W / 2;
    *cy = y0 + (i / BOX_COLS) * (BOX_H + 8) + BOX_H / 2;
}

/* A line from (ax, ay) to (bx, by): the part up to `fill` bright, the rest
 * dim, an arrow head at b. */
static void arrow(SDL_Renderer *r, int ax, int ay, int bx, int by, float fill)
{
    float fx = (float)ax + (float)(bx - ax) * fill, fy = (float)ay + (float)(by - ay) * fill;
    colour(r, 90, 90, 60, 255);
    SDL_RenderDrawLine(r, (int)fx, (int)fy, bx, by);
    colour(r, 255, 220, 80, 255);
    for (int o = -1; o <= 1; o++) {
        SDL_RenderDrawLine(r, ax + o, ay, (int)fx + o, (int)fy);
        SDL_RenderDrawLine(r, ax, ay + o, (int)fx, (int)fy + o);
    }
    float dx = (float)(bx - ax), dy = (float)(by - ay), n = sqrtf(dx * dx + dy * dy);
    if (n < 1) return;
    dx /= n;
    dy /= n;
    for (int s = -1; s <= 1; s += 2)
        SDL_RenderDrawLine(r, bx, by, (int)((float)bx - 8 * dx + 4 * (float)s * dy), (int)((float)by - 8 * dy - 4 * (float)s * dx));
}

static int draw_layer(SDL_Renderer *r, const bw_graph *g, const bw_graph_cursor *c, int layer, int x, int y)
{
    bw_graph_layer_status st;
    if (bw_graph_cursor_layer_status(c, layer, &st) != BW_OK) return y;
    char line[96];
    snprintf(line, sizeof line, "layer %s  w=%.2f  p=%.2f", bw_graph_layer_name(g, layer), (double)st.weight,
             (double)st.normalized);
    colour(r, 200, 210, 230, 255);
    text(r, x, y, line);
    y += LINE + 2;
    int n = bw_graph_state_count(g, layer);
    for (int s = 0; s < n; s++) {
        int cx, cy;
        box_centre(x, y, s, &cx, &cy);
        SDL_Rect rc = {cx - BOX_W / 2, cy - BOX_H / 2, BOX_W, BOX_H};
        bool current = s == st.state;
        bool source = st.transition.active && s == st.transition.source_state;
        if (current) colour(r, 60, 170, 90, 255);
        else if (source) colour(r, 70, 90, 60, 255);
        else colour(r, 40, 48, 64, 255);
        SDL_RenderFillRect(r, &rc);
        colour(r, current ? 230 : 120, current ? 255 : 130, current ? 230 : 150, 255);
        SDL_RenderDrawRect(r, &rc);
        const char *name = bw_graph_state_name(g, layer, s);
        size_t len = strlen(name);
        size_t fit = (BOX_W - 4) / ADV;
        demo_font_draw_n(r, rc.x + 3, rc.y + 4, 1, name, len < fit ? len : fit);
    }
    const bw_graph_transition_status *tr = &st.transition;
    if (tr->active) {
        int bx, by;
        box_centre(x, y, tr->to, &bx, &by);
        if (tr->from >= 0) {
            int ax, ay;
            box_centre(x, y, tr->from, &ax, &ay);
            if (ax == bx && ay == by) ay -= BOX_H; /* to itself: from just above */
            arrow(r, ax, ay, bx, by, tr->weight);
        } else {
            arrow(r, bx, by - BOX_H - 6, bx, by - BOX_H / 2, tr->weight); /* a reload's fade */
        }
    }
    int rows = (n + BOX_COLS - 1) / BOX_COLS;
    return y + rows * (BOX_H + 8) + 2;
}

/* ---- parameters, clips ---- */

static int draw_params(SDL_Renderer *r, const bw_graph *g, const bw_graph_cursor *c, int x, int y)
{
    colour(r, 200, 210, 230, 255);
    text(r, x, y, "parameters");
    y += LINE;
    for (int p = 0; p < bw_graph_param_count(g); p++) {
        char line[96];
        if (bw_graph_param_kind_of(g, p) == BW_GRAPH_PARAM_TRIGGER)
            snprintf(line, sizeof line, "  %-10s %s", bw_graph_param_name(g, p),
                     bw_graph_cursor_param(c, p) != 0 ? "set" : "-");
        else
            snprintf(line, sizeof line, "  %-10s %7.3f", bw_graph_param_name(g, p), (double)bw_graph_cursor_param(c, p));
        colour(r, 170, 180, 200, 255);
        text(r, x, y, line);
        y += LINE;
    }
    return y + 4;
}

static void bar(SDL_Renderer *r, int x, int y, float w, Uint8 red, Uint8 green, Uint8 blue)
{
    SDL_Rect back = {x, y, 100, LINE - 2};
    colour(r, 40, 48, 64, 255);
    SDL_RenderFillRect(r, &back);
    SDL_Rect fill = {x, y, (int)(100.0f * fminf(fmaxf(w, 0.0f), 1.0f) + 0.5f), back.h};
    colour(r, red, green, blue, 255);
    SDL_RenderFillRect(r, &fill);
}

static int draw_clips(SDL_Renderer *r, const demo_app *app, int x, int y)
{
    demo_clip_weight w[MAX_WEIGHTS];
    int n = demo_app_clip_weights(app, w, MAX_WEIGHTS);
    if (n > MAX_WEIGHTS) n = MAX_WEIGHTS;
    const bw_graph *g = demo_app_graph(app);
    colour(r, 200, 210, 230, 255);
    text(r, x, y, "active clips");
    y += LINE;
    for (int i = 0; i < n; i++) {
        if (w[i].weight < 0.005f) continue;
        char line[96];
        snprintf(line, sizeof line, "%-6.6s %-12.12s", w[i].layer >= 0 ? bw_graph_layer_name(g, w[i].layer) : "base",
                 demo_app_clip_name(app, w[i].clip));
        colour(r, 170, 180, 200, 255);
        text(r, x, y, line);
        bar(r, x + 20 * ADV, y, w[i].weight, 90, 170, 240);
        y += LINE;
    }
    /* the gesture slot (additive over the base) and the one fading out */
    const bw_animator *an = demo_app_animator(app);
    float gw = bw_animator_gesture_weight(an), go = bw_animator_gesture_outgoing_weight(an);
    if (gw > 0 || go > 0) {
        colour(r, 170, 180, 200, 255);
        text(r, x, y, go > 0 ? "gesture (+ fading)" : "gesture");
        bar(r, x + 20 * ADV, y, gw, 240, 170, 90);
        y += LINE;
    }
    return y + 4;
}

/* ---- the blend space ---- */

static int draw_blend(SDL_Renderer *r, const demo_app *app, int x, int y)
{
    const bw_graph *g = demo_app_graph(app);
    const bw_graph_cursor *c = demo_app_cursor(app);
    bw_graph_layer_status st;
    if (!g || bw_graph_cursor_layer_status(c, 0, &st) != BW_OK) return y;
    const bw_blend_tree *tree = bw_graph_state_blend(g, 0, st.state);
    const bw_blend_node *root = tree ? bw_blend_tree_node(tree, bw_blend_tree_root(tree)) : NULL;
    if (!root || (root->kind != BW_BLEND_NODE_2D && root->kind != BW_BLEND_NODE_DIRECTIONAL)) return y;
    float params[16];
    int count = 0; /* the leaves the cursor evaluated in the last update: read, not evaluated again */
    const bw_blend_leaf *leaves = bw_graph_cursor_leaves(c, 0, false, &count);
    if (demo_app_tree_params(app, tree, params, 16) > 16 || !leaves) return y;
    float extent = 0.5f;
    for (int i = 0; i < root->child_count; i++)
        extent = fmaxf(extent, fmaxf(fabsf(root->positions[2 * i]), fabsf(root->positions[2 * i + 1])));
    float px = root->param_x >= 0 && root->param_x < 16 ? params[root->param_x] : 0;
    float py = root->param_y >= 0 && root->param_y < 16 ? params[root->param_y] : 0;
    extent = fmaxf(extent, fmaxf(fabsf(px), fabsf(py))) * 1.15f;
    const int size = 140, cx = x + size / 2, cy = y + LINE + size / 2;
    char title[96];
    const char *nx = bw_graph_param_name(g, root->param_x), *ny = bw_graph_param_name(g, root->param_y);
    snprintf(title, sizeof title, "blend %s (%s, %s)", bw_graph_state_name(g, 0, st.state), nx ? nx : "x", ny ? ny : "y");
    colour(r, 200, 210, 230, 255);
    text(r, x, y, title);
    SDL_Rect frame = {x, y + LINE, size, size};
    colour(r, 30, 36, 50, 255);
    SDL_RenderFillRect(r, &frame);
    colour(r, 70, 80, 100, 255);
    SDL_RenderDrawLine(r, x, cy, x + size, cy);
    SDL_RenderDrawLine(r, cx, y + LINE, cx, y + LINE + size);
    const float k = (float)size / 2 / extent;
    for (int i = 0; i < root->child_count; i++) {
        /* the sample's weight: the leaves under this child */
        float w = 0;
        const bw_blend_node *child = bw_blend_tree_node(tree, root->children[i]);
        for (int l = 0; l < count; l++)
            if (leaves[l].node == root->children[i] || (child && child->kind == BW_BLEND_NODE_CLIP && leaves[l].clip == child->clip))
                w += leaves[l].weight;
        /* +x (the character's left) drawn to the left, +y (forward) up */
        int sx = cx - (int)(root->positions[2 * i] * k), sy = cy - (int)(root->positions[2 * i + 1] * k);
        int rad = 2 + (int)(6.0f * w);
        SDL_Rect dot = {sx - rad, sy - rad, 2 * rad, 2 * rad};
        colour(r, (Uint8)(90 + 165 * w), (Uint8)(120 + 100 * w), 240, 255);
        SDL_RenderFillRect(r, &dot);
        char label[16];
        snprintf(label, sizeof label, "%.2f", (double)w);
        colour(r, 220, 225, 235, 255);
        text(r, sx + 6, sy - 3, label);
    }
    int ix = cx - (int)(px * k), iy = cy - (int)(py * k);
    colour(r, 255, 90, 80, 255);
    SDL_RenderDrawLine(r, ix - 6, iy, ix + 6, iy);
    SDL_RenderDrawLine(r, ix, iy - 6, ix, iy + 6);
    return y + LINE + size + 6;
}

/* ---- events, head aim ---- */

static int draw_events(SDL_Renderer *r, const demo_app *app, int x, int y)
{
    colour(r, 200, 210, 230, 255);
    text(r, x, y, "recent events");
    y += LINE;
    long n = demo_app_event_count(app);
    for (long i = n > MAX_EVENTS ? n - MAX_EVENTS : 0; i < n; i++) {
        const char *e = demo_app_event(app, i);
        if (!e) continue;
        colour(r, 170, 180, 200, 255);
        text(r, x, y, e);
        y += LINE;
    }
    return y + 4;
}

static void needle(SDL_Renderer *r, int cx, int cy, float yaw, float len)
{
    /* from above, the character facing up the screen; +yaw turns toward
     * its +X (its left), drawn to the left */
    SDL_RenderDrawLine(r, cx, cy, cx - (int)(sinf(yaw) * len), cy - (int)(cosf(yaw) * len));
}

static int draw_aim(SDL_Renderer *r, const demo_app *app, int x, int y)
{
    const bw_animator *an = demo_app_animator(app);
    float yaw = 0, pitch = 0;
    bw_animator_head_aim(an, &yaw, &pitch);
    const float *gaze = demo_app_gaze(app);
    /* the limits in force: the animator's, or the aiming control's */
    float lim[4];
    int whose = demo_app_head_limits(app, lim);
    const float head_yaw = lim[0], head_pitch = lim[1] > 0 ? lim[1] : 1.0f, eye_yaw = lim[2];
    int hj = whose >= DEMO_AIM_CONTROL ? demo_app_joint(app, DEMO_JOINT_HEAD) : -1;
    if (hj >= 0) { /* a control's aim lives in its state: the head's facing in the pose shown */
        const float(*m)[4][4] = demo_app_model(app);
        float fy = m[hj][2][1] < -1.0f ? -1.0f : m[hj][2][1] > 1.0f ? 1.0f : m[hj][2][1];
        yaw = atan2f(m[hj][2][0], m[hj][2][2]);
        pitch = asinf(fy);
    }
    char line[160];
    if (whose == DEMO_AIM_ANIMATOR)
        snprintf(line, sizeof line, "head aim yaw %+.2f pitch %+.2f (limits %g, %g)", (double)yaw, (double)pitch,
                 (double)lim[0], (double)lim[1]);
    else if (whose == DEMO_AIM_CONTROL)
        snprintf(line, sizeof line, "control aim: head %+.2f %+.2f (limits %g, %g; eyes %g, %g)", (double)yaw,
                 (double)pitch, (double)lim[0], (double)lim[1], (double)lim[2], (double)lim[3]);
    else
        snprintf(line, sizeof line, "head aim: %s", whose == DEMO_AIM_NONE ? "none" : "a control's (limits not published)");
    colour(r, 200, 210, 230, 255);
    text(r, x, y, line);
    snprintf(line, sizeof line, "gaze L %+.2f %+.2f  R %+.2f %+.2f", (double)gaze[1], (double)gaze[0], (double)gaze[3],
             (double)gaze[2]);
    text(r, x, y + LINE, line);
    const int cx = x + 60, cy = y + 2 * LINE + 56;
    colour(r, 70, 80, 100, 255);
    for (int s = -1; s <= 1 && (whose == DEMO_AIM_ANIMATOR || whose == DEMO_AIM_CONTROL); s += 2) {
        needle(r, cx, cy, (float)s * head_yaw, 50);
        needle(r, cx, cy, (float)s * (head_yaw + eye_yaw), 56);
    }
    colour(r, 120, 230, 140, 255);
    if (whose != DEMO_AIM_NONE) needle(r, cx, cy, yaw, 48);
    colour(r, 255, 200, 90, 255);
    needle(r, cx, cy, yaw + 0.5f * (gaze[1] + gaze[3]), 56);
    /* pitch as a bar beside it */
    SDL_Rect bar = {x + 130, cy - 50, 8, 100};
    colour(r, 40, 48, 64, 255);
    SDL_RenderFillRect(r, &bar);
    int py = cy - (int)(pitch / head_pitch * 50);
    colour(r, 120, 230, 140, 255);
    SDL_RenderDrawLine(r, x + 126, py, x + 142, py);
    return cy + 60;
}

/* ---- errors and status ---- */

/* The session's problems (every broken source's lines, demo_app_error)
 * in red at the bottom, up to MAX_ERROR_LINES lines (past that, the last
 * row counts the lines left out); else the last reload's note in green. */
static void draw_error(SDL_Renderer *r, const demo_app *app, int width, int height, const demo_overlay_info *info)
{
    const char *e = demo_app_error(app);
    const char *note = demo_app_reload_note(app);
    if (!e[0] && (!note[0] || demo_app_time(app) > info->note_until)) return;
    int total = 1;
    for (const char *p = e; *p; p++) total += *p == '\n';
    int lines = total > MAX_ERROR_LINES ? MAX_ERROR_LINES : total;
    int y = height - 12 - lines * LINE;
    panel(r, 8, y, width - 16, lines * LINE);
    if (!e[0]) {
        colour(r, 140, 230, 150, 255);
        text(r, 8, y, note);
        return;
    }
    colour(r, 255, 110, 100, 255);
    const char *p = e;
    int shown = total > lines ? lines - 1 : lines;
    for (int i = 0; i < shown && *p; i++) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        demo_font_draw_n(r, 8, y + i * LINE, 1, p, len);
        p = end ? end + 1 : p + len;
    }
    if (shown < lines) {
        char more[48];
        snprintf(more, sizeof more, "(%d more line%s)", total - shown, total - shown == 1 ? "" : "s");
        text(r, 8, y + shown * LINE, more);
    }
}

static const char *base_name(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path;
}

static void draw_status(SDL_Renderer *r, const demo_app *app, const demo_overlay_info *info, int x, int y)
{
    char line[160];
    const char *graph = base_name(demo_app_graph_path(app)), *ch = base_name(demo_app_label(app));
    float pos[3], yaw;
    demo_app_place(app, pos, &yaw);
    int controls = demo_app_control_count(app), rows = controls ? 5 : 4;
    panel(r, x, y, 380, info->help ? (rows + 11) * LINE : rows * LINE);
    colour(r, 230, 235, 245, 255);
    snprintf(line, sizeof line, "blendwerk demo  %s%s%s", ch, graph ? " + " : "", graph ? graph : "");
    text(r, x, y, line);
    if (info->frame_ms >= 0)
        snprintf(line, sizeof line, "t=%.2f s  frame %.2f ms  anim %.3f ms  speed %.2fx%s", demo_app_time(app),
                 info->frame_ms, demo_app_anim_ms(app), (double)info->speed, info->paused ? "  PAUSED" : "");
    else
        snprintf(line, sizeof line, "t=%.2f s  speed %.2fx%s", demo_app_time(app), (double)info->speed,
                 info->paused ? "  PAUSED" : "");
    text(r, x, y + LINE, line);
    snprintf(line, sizeof line, "pos %.2f %.2f  yaw %.2f  reloads %d  rejected %d", (double)pos[0], (double)pos[2],
             (double)yaw, demo_app_reloads(app), demo_app_rejections(app));
    text(r, x, y + 2 * LINE, line);
    if (controls) { /* which controls run, their reloads and failed updates */
        int used = snprintf(line, sizeof line, "controls");
        for (int i = 0; i < controls && used > 0 && (size_t)used < sizeof line; i++)
            used += snprintf(line + used, sizeof line - (size_t)used, " %s", demo_app_control_name(app, i));
        if (used > 0 && (size_t)used < sizeof line)
            snprintf(line + used, sizeof line - (size_t)used, "  reloads %d%s", demo_app_control_reloads(app),
                     demo_app_control_failures(app) ? "  FAILING" : "");
        text(r, x, y + 3 * LINE, line);
        y += LINE;
    }
    colour(r, 150, 160, 180, 255);
    text(r, x, y + 3 * LINE, "H help  O overlays  P pause  N step  [ ] speed  R reload");
    if (!info->help) return;
    static const char *const help[] = {
        "W A S D / up down  move (Shift: run), Q E / left right: turn",
        "Space  jump           1  wave (gesture)   2  nod (gesture)",
        "3  wave layer (upper)  F  next face      T  travel to next state",
        "mouse  look-at target  L  look ahead again",
        "P  pause  N  single step  [ ]  slow motion 0.1x .. 1x",
        "O / Tab  cycle overlays  R  reload now  Esc  quit",
        "gamepad: left stick move, right stick turn, A jump,",
        "  X wave, Y nod, B wave layer, shoulders run, Start pause",
        "saving the graph, character or a control file reloads it on the fly",
        NULL};
    for (int i = 0; help[i]; i++) text(r, x, y + (5 + i) * LINE, help[i]);
}

void demo_overlay_draw(SDL_Renderer *r, const demo_app *app, int width, int height, const demo_overlay_info *info)
{
    SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_BLEND);
    if (info->mode != DEMO_OVERLAY_OFF) draw_status(r, app, info, 10, 10);
    if (info->mode == DEMO_OVERLAY_ALL) {
        const bw_graph *g = demo_app_graph(app);
        const bw_graph_cursor *c = demo_app_cursor(app);
        int x = width - PANEL_W - 10, y = 10;
        if (g) {
            int layers = bw_graph_layer_count(g), rows = 0;
            for (int l = 0; l < layers; l++) rows += (bw_graph_state_count(g, l) + BOX_COLS - 1) / BOX_COLS;
            panel(r, x, y, PANEL_W, layers * (LINE + 4) + rows * (BOX_H + 8) + (bw_graph_param_count(g) + 1) * LINE + 8);
            for (int l = 0; l < layers; l++) y = draw_layer(r, g, c, l, x, y);
            y = draw_params(r, g, c, x, y + 4);
        }
        panel(r, x, y, PANEL_W, 9 * LINE);
        y = draw_clips(r, app, x, y);
        int lx = 10, ly = 10 + 5 * LINE + 8;
        if (info->help) ly += 11 * LINE;
        panel(r, lx, ly, 250, 150 + LINE);
        ly = draw_blend(r, app, lx, ly);
        panel(r, lx, ly, 250, (MAX_EVENTS + 1) * LINE);
        ly = draw_events(r, app, lx, ly);
        if (ly + 140 < height - 40) {
            panel(r, lx, ly, 250, 2 * LINE + 116);
            draw_aim(r, app, lx, ly);
        }
    }
    draw_error(r, app, width, height, info);
    SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_NONE);
}
