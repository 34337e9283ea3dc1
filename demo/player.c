/* player.c - playback of a demo character and hot swapping (player.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "player.h"

/* What playback of one character version needs beside the character. */
typedef struct kit {
    bw_track_set *set;
    bw_mixer *mixer;
    bw_pose pose;
    float (*model)[4][4];
    bw_binding *bindings[DEMO_MAX_CLIPS];
} kit;

static void kit_destroy(kit *k)
{
    bw_track_set_destroy(k->set); /* before the bindings its tracks use */
    for (int i = 0; i < DEMO_MAX_CLIPS; i++) bw_binding_destroy(k->bindings[i]);
    bw_mixer_destroy(k->mixer);
    bw_pose_deinit(&k->pose);
    free(k->model);
    memset(k, 0, sizeof *k);
}

/* Everything for playing character `c`; the track set only when
 * `with_set` (a swap keeps the player's set and moves it to the new rig). */
static bool kit_create(kit *k, const demo_character *c, bool with_set, char *err, size_t err_size)
{
    memset(k, 0, sizeof *k);
    int joints = bw_rig_joint_count(c->rig);
    bw_track_set_desc sd = {.rig = c->rig, .capacity = DEMO_TRACK_CAPACITY, .signal_capacity = 256};
    bw_mixer_desc md = {.rig = c->rig, .max_contributions = DEMO_TRACK_CAPACITY};
    bw_error e = {0};
    const char *what = NULL;
    if (with_set && bw_track_set_create(&sd, &k->set) != BW_OK)
        what = "the track set";
    else if (bw_mixer_create(&md, &k->mixer) != BW_OK)
        what = "the mixer";
    else if (bw_pose_init(&k->pose, c->rig, NULL) != BW_OK)
        what = "the pose";
    else if (!(k->model = calloc((size_t)(joints > 0 ? joints : 1), sizeof *k->model)))
        what = "the model-space buffer";
    for (int i = 0; !what && i < c->clip_count; i++) {
        if (bw_binding_create(&(bw_binding_desc){.clip = c->clips[i].clip, .rig = c->rig}, &k->bindings[i], &e) != BW_OK) {
            snprintf(err, err_size, "binding clip '%s': %s", c->clips[i].name, e.message);
            kit_destroy(k);
            return false;
        }
    }
    if (what) {
        snprintf(err, err_size, "cannot create %s (out of memory)", what);
        kit_destroy(k);
        return false;
    }
    bw_pose_set_rest(&k->pose, c->rig);
    bw_pose_local_to_model(c->rig, &k->pose, k->model);
    return true;
}

static void kit_take(demo_player *p, kit *k)
{
    p->set = k->set;
    p->mixer = k->mixer;
    p->pose = k->pose;
    p->model = k->model;
    memcpy(p->bindings, k->bindings, sizeof p->bindings);
}

static kit kit_of(demo_player *p)
{
    kit k;
    k.set = p->set;
    k.mixer = p->mixer;
    k.pose = p->pose;
    k.model = p->model;
    memcpy(k.bindings, p->bindings, sizeof k.bindings);
    return k;
}

/* ---- events ---- */

static demo_event *log_push(demo_player *p, demo_event_kind kind, const demo_track *tr)
{
    demo_event *ev = &p->log[p->log_total % DEMO_EVENT_LOG];
    p->log_total++;
    memset(ev, 0, sizeof *ev);
    ev->kind = kind;
    ev->time = p->time;
    if (tr) memcpy(ev->clip, tr->name, sizeof ev->clip);
    return ev;
}

/* When, in simulated time, the playhead crossed clip time `m` during the
 * last step: the clip time travelled since, divided by the speed. */
static double marker_sim_time(const demo_player *p, int h, const bw_clip *clip, float m)
{
    double t = bw_track_set_time(p->set, h);
    double speed = (double)bw_track_set_speed(p->set, h);
    double len = (double)bw_clip_length(clip);
    if (!(fabs(speed) > 0.0) || !isfinite(t)) return p->time;
    double d;
    if (bw_track_set_looping(p->set, h) && len > 0.0) {
        d = fmod(speed > 0 ? t - (double)m : (double)m - t, len);
        if (d < 0) d += len;
    } else {
        d = fabs(t - (double)m);
    }
    double when = p->time - d / fabs(speed);
    double earliest = p->time - (double)p->last_dt;
    return when < earliest ? earliest : when;
}

static void on_signal(void *user, const bw_signal *s)
{
    demo_player *p = (demo_player *)user;
    demo_track *tr = (demo_track *)s->user;
    if (!tr || !tr->used) return;
    switch (s->kind) {
    case BW_SIGNAL_MARKER: {
        demo_event *ev = log_push(p, DEMO_EVENT_MARKER, tr);
        snprintf(ev->name, sizeof ev->name, "%s", s->name ? s->name : "");
        ev->clip_time = s->marker_time;
        ev->time = marker_sim_time(p, s->track, tr->clip, s->marker_time);
        break;
    }
    case BW_SIGNAL_ENDED:
        log_push(p, DEMO_EVENT_ENDED, tr);
        if (tr->one_shot && !bw_track_set_stopping(p->set, s->track)) {
            float fade = p->character->scene.gesture_fade_out;
            bw_track_set_stop(p->set, s->track, fade);
            tr->target = 0.0f;
            tr->fade_end = p->time + fade;
        }
        break;
    case BW_SIGNAL_STOPPED:
        log_push(p, DEMO_EVENT_STOPPED, tr);
        tr->used = false;
        p->reap = true;
        break;
    case BW_SIGNAL_LOOP:
        break;
    }
}

static void free_retired(demo_retired *slots)
{
    for (int i = 0; i < DEMO_MAX_RETIRED; i++) {
        bw_binding_destroy(slots[i].binding);
        bw_clip_destroy(slots[i].clip);
    }
}

/* Free retired clips no track plays any more. */
static void reap_retired(demo_player *p)
{
    p->reap = false;
    for (int i = 0; i < DEMO_MAX_RETIRED; i++) {
        demo_retired *r = &p->retired[i];
        if (!r->clip) continue;
        bool used = false;
        for (int t = 0; t < DEMO_TRACK_CAPACITY && !used; t++)
            used = p->tracks[t].used && p->tracks[t].clip == r->clip;
        if (used) continue;
        bw_binding_destroy(r->binding);
        bw_clip_destroy(r->clip);
        r->clip = NULL;
        r->binding = NULL;
    }
}

/* ---- starting tracks ---- */

static demo_track *free_record(demo_player *p)
{
    for (int i = 0; i < DEMO_TRACK_CAPACITY; i++)
        if (!p->tracks[i].used) return &p->tracks[i];
    return NULL;
}

typedef struct start_args {
    int clip;
    demo_role role;
    int priority;
    float weight, speed, time, fade_in;
    int loop;
    bool one_shot;
} start_args;

static demo_track *start_track(demo_player *p, const start_args *a)
{
    demo_track *tr = free_record(p);
    if (!tr || a->clip < 0 || a->clip >= p->character->clip_count) return NULL;
    bw_play_desc d = bw_play_desc_defaults(p->bindings[a->clip]);
    d.time = a->time;
    d.speed = a->speed;
    d.weight = a->weight;
    d.held = a->speed == 0.0f; /* a scene's speed 0 / weight 0 mean just that */
    d.silent = a->weight == 0.0f;
    d.fade_in = a->fade_in;
    d.priority = a->priority;
    d.loop = a->loop < 0 ? BW_LOOP_CLIP : a->loop ? BW_LOOP_ON : BW_LOOP_OFF;
    d.user = tr;
    int h = -1;
    if (bw_track_set_play(p->set, &d, &h) != BW_OK) return NULL;
    memset(tr, 0, sizeof *tr);
    tr->used = true;
    tr->handle = h;
    tr->clip = p->character->clips[a->clip].clip;
    memcpy(tr->name, p->character->clips[a->clip].name, sizeof tr->name);
    tr->role = a->role;
    tr->priority = a->priority;
    tr->one_shot = a->one_shot;
    tr->target = a->weight;
    tr->fade_end = p->time + a->fade_in;
    tr->fresh = true;
    return tr;
}

static void start_scene(demo_player *p)
{
    const demo_scene *s = &p->character->scene;
    for (int i = 0; i < s->play_count; i++) {
        const demo_play *pl = &s->plays[i];
        start_args a = {pl->clip, pl->base ? DEMO_ROLE_BASE : DEMO_ROLE_LAYER, pl->priority, pl->weight, pl->speed,
                        pl->time, pl->fade_in, pl->loop, false};
        start_track(p, &a);
    }
}

static void stop_record(demo_player *p, demo_track *tr, float fade)
{
    bw_track_set_stop(p->set, tr->handle, fade);
    tr->target = 0.0f;
    tr->fade_end = p->time + fade;
}

/* ---- public ---- */

bool demo_player_init(demo_player *player, demo_character *character, char *err, size_t err_size)
{
    if (!player || !character || !character->rig) {
        if (err && err_size) snprintf(err, err_size, "demo_player_init: no character");
        return false;
    }
    memset(player, 0, sizeof *player);
    kit k;
    if (!kit_create(&k, character, true, err, err_size)) return false;
    kit_take(player, &k);
    player->character = character;
    start_scene(player);
    return true;
}

void demo_player_deinit(demo_player *player)
{
    if (!player) return;
    kit k = kit_of(player);
    kit_destroy(&k);
    free_retired(player->retired);
    demo_character_destroy(player->character);
    memset(player, 0, sizeof *player);
}

void demo_player_step(demo_player *p, float dt)
{
    if (!p || !p->set) return;
    if (!(dt >= 0.0f) || !isfinite(dt)) dt = 0.0f;
    bw_track_set_advance(p->set, dt);
    p->time += (double)dt;
    p->last_dt = dt;
    p->frame++;
    if (dt > 0.0f)
        for (int i = 0; i < DEMO_TRACK_CAPACITY; i++) p->tracks[i].fresh = false;
    /* compose only fails on mismatched buffers, which kit_create rules out;
     * the previous pose then stays on screen */
    bw_track_set_compose(p->set, p->mixer, NULL, &p->pose);
    bw_track_set_drain(p->set, on_signal, p);
    if (p->reap) reap_retired(p);
    bw_pose_local_to_model(p->character->rig, &p->pose, p->model);
}

bool demo_player_crossfade(demo_player *p, int clip)
{
    if (!p || clip < 0 || clip >= p->character->clip_count) return false;
    float cf = p->character->scene.crossfade;
    const bw_clip *target = p->character->clips[clip].clip;
    bool kept = false;
    int base_priority = 0;
    for (int i = 0; i < p->character->scene.play_count; i++) {
        if (p->character->scene.plays[i].base) {
            base_priority = p->character->scene.plays[i].priority;
            break;
        }
    }
    for (int i = 0; i < DEMO_TRACK_CAPACITY; i++) {
        demo_track *tr = &p->tracks[i];
        if (!tr->used || tr->role != DEMO_ROLE_BASE) continue;
        bool stopping = bw_track_set_stopping(p->set, tr->handle);
        if (tr->clip == target && !kept) {
            kept = true;
            if (stopping || tr->target < 1.0f) { /* a fade cancels a stop: bring it back */
                bw_track_set_fade(p->set, tr->handle, 1.0f, cf);
                tr->target = 1.0f;
                tr->fade_end = p->time + cf;
            }
        } else if (!stopping) {
            stop_record(p, tr, cf);
        }
    }
    if (kept) return true;
    start_args a = {clip, DEMO_ROLE_BASE, base_priority, 1.0f, 1.0f, 0.0f, cf, -1, false};
    return start_track(p, &a) != NULL;
}

bool demo_player_fire_gesture(demo_player *p)
{
    if (!p) return false;
    const demo_scene *s = &p->character->scene;
    if (s->gesture_clip < 0) return false;
    const bw_clip *clip = p->character->clips[s->gesture_clip].clip;
    for (int i = 0; i < DEMO_TRACK_CAPACITY; i++) {
        demo_track *tr = &p->tracks[i];
        if (tr->used && tr->clip == clip && !bw_track_set_stopping(p->set, tr->handle))
            stop_record(p, tr, s->gesture_fade_in);
    }
    start_args a = {s->gesture_clip, DEMO_ROLE_GESTURE, s->gesture_priority, s->gesture_weight, 1.0f, 0.0f,
                    s->gesture_fade_in, 0, true};
    return start_track(p, &a) != NULL;
}

void demo_player_restart(demo_player *p)
{
    if (!p || !p->set) return;
    /* a fresh set is simplest: nothing of the old tracks may linger */
    kit k;
    char err[DEMO_ERROR_MAX];
    if (!kit_create(&k, p->character, true, err, sizeof err)) return;
    kit old = kit_of(p);
    kit_destroy(&old);
    kit_take(p, &k);
    memset(p->tracks, 0, sizeof p->tracks);
    reap_retired(p);
    start_scene(p);
}

/* The slot of `slots` for `clip`: the one already holding it, else a free
 * one (NULL when none is left). */
static demo_retired *retired_slot(demo_retired *slots, const bw_clip *clip)
{
    demo_retired *free_slot = NULL;
    for (int i = 0; i < DEMO_MAX_RETIRED; i++) {
        if (slots[i].clip == clip) return &slots[i];
        if (!slots[i].clip && !free_slot) free_slot = &slots[i];
    }
    return free_slot;
}

/* Move ownership of `clip` out of the old character or the old retired
 * slots (whichever holds it); NULL if neither does. */
static bw_clip *take_clip(demo_player *p, const bw_clip *clip)
{
    demo_character *old = p->character;
    for (int i = 0; i < old->clip_count; i++) {
        if (old->clips[i].clip == clip) {
            bw_clip *owned = old->clips[i].clip;
            old->clips[i].clip = NULL;
            return owned;
        }
    }
    for (int i = 0; i < DEMO_MAX_RETIRED; i++) {
        if (p->retired[i].clip == clip) {
            bw_clip *owned = p->retired[i].clip;
            p->retired[i].clip = NULL;
            return owned;
        }
    }
    return NULL;
}

/* The swap keeps the track set and its tracks: it moves the set to the new
 * rig (bw_track_set_set_rig) and rebinds each live track in place
 * (bw_track_set_rebind), which keeps time, speed, weight, fade, stop,
 * priority, loop choice and user and fires nothing. Everything that can
 * fail happens first (kit, retired bindings, set_rig), so a failure
 * changes nothing. */
bool demo_player_swap(demo_player *p, demo_character *c, char *err, size_t err_size)
{
    if (!p || !c || !c->rig || !p->set) {
        if (err && err_size) snprintf(err, err_size, "demo_player_swap: no character");
        return false;
    }
    kit k;
    if (!kit_create(&k, c, false, err, err_size)) return false;
    /* Each live track's new binding: its clip in the new version, else its
     * old clip retired and bound to the new rig. Retired slots only record
     * the clip here; ownership moves once nothing can fail. */
    demo_retired next_retired[DEMO_MAX_RETIRED];
    memset(next_retired, 0, sizeof next_retired);
    const bw_binding *bind_to[DEMO_TRACK_CAPACITY];
    int ci_of[DEMO_TRACK_CAPACITY];
    const char *fail = NULL;
    for (int j = 0; j < DEMO_TRACK_CAPACITY && !fail; j++) {
        demo_track *tr = &p->tracks[j];
        bind_to[j] = NULL;
        ci_of[j] = -1;
        if (!tr->used || !bw_track_set_alive(p->set, tr->handle)) continue;
        int ci = tr->removed ? -1 : demo_character_find_clip(c, tr->name);
        ci_of[j] = ci;
        if (ci >= 0) {
            bind_to[j] = k.bindings[ci];
            continue;
        }
        demo_retired *slot = retired_slot(next_retired, tr->clip);
        if (!slot) fail = "too many removed clips still playing";
        else if (!slot->binding && bw_binding_create(&(bw_binding_desc){.clip = tr->clip, .rig = c->rig}, &slot->binding, NULL) != BW_OK)
            fail = "cannot bind a removed clip to the new rig (out of memory)";
        else slot->clip = (bw_clip *)tr->clip; /* owner recorded below */
        bind_to[j] = slot ? slot->binding : NULL;
    }
    if (!fail && bw_track_set_set_rig(p->set, c->rig) != BW_OK) fail = "cannot move the track set to the new rig";
    if (fail) {
        for (int i = 0; i < DEMO_MAX_RETIRED; i++) bw_binding_destroy(next_retired[i].binding);
        kit_destroy(&k);
        if (err && err_size) snprintf(err, err_size, "%s", fail);
        return false;
    }
    /* From here on nothing fails. */
    for (int i = 0; i < DEMO_MAX_RETIRED; i++)
        if (next_retired[i].clip) next_retired[i].clip = take_clip(p, next_retired[i].clip);
    for (int j = 0; j < DEMO_TRACK_CAPACITY; j++) {
        demo_track *tr = &p->tracks[j];
        if (!bind_to[j]) continue;
        bw_track_set_rebind(p->set, tr->handle, bind_to[j]);
        if (ci_of[j] >= 0) {
            tr->clip = c->clips[ci_of[j]].clip;
        } else if (!tr->removed) {
            /* its clip left the character: fade it out over the new scene's
             * crossfade, or sooner if it was stopping already */
            float fade = c->scene.crossfade;
            double remaining = tr->fade_end - p->time;
            if (bw_track_set_stopping(p->set, tr->handle) && remaining < fade)
                fade = remaining > 0 ? (float)remaining : 0.0f;
            bw_track_set_stop(p->set, tr->handle, fade);
            tr->removed = true;
            tr->target = 0.0f;
            tr->fade_end = p->time + fade;
        }
    }
    /* retire the old version: bindings (no track uses them now), then clips */
    kit old = kit_of(p);
    old.set = NULL; /* kept */
    kit_destroy(&old);
    free_retired(p->retired); /* those still used moved to next_retired */
    demo_character_destroy(p->character);
    k.set = p->set;
    kit_take(p, &k);
    memcpy(p->retired, next_retired, sizeof p->retired);
    p->character = c;
    /* show the new rest pose until the next step composes */
    bw_pose_local_to_model(c->rig, &p->pose, p->model);
    return true;
}

int demo_player_tracks(const demo_player *p, const demo_track **out, int max)
{
    if (!p || !p->set || !out || max <= 0) return 0;
    int handles[DEMO_TRACK_CAPACITY];
    int count = bw_track_set_live_handles(p->set, handles, DEMO_TRACK_CAPACITY);
    int n = 0;
    for (int i = 0; i < count && n < max; i++) {
        for (int j = 0; j < DEMO_TRACK_CAPACITY; j++) {
            if (p->tracks[j].used && p->tracks[j].handle == handles[i]) {
                out[n++] = &p->tracks[j];
                break;
            }
        }
    }
    return n;
}

const demo_track *demo_player_find_track(const demo_player *p, const char *name)
{
    if (!p || !name) return NULL;
    const demo_track *best = NULL;
    float best_w = -1.0f;
    for (int j = 0; j < DEMO_TRACK_CAPACITY; j++) {
        const demo_track *tr = &p->tracks[j];
        if (!tr->used || strcmp(tr->name, name) != 0) continue;
        float w = bw_track_set_weight(p->set, tr->handle);
        if (w > best_w) {
            best = tr;
            best_w = w;
        }
    }
    return best;
}

const demo_event *demo_player_event(const demo_player *p, long n)
{
    if (!p || n < 0 || n >= p->log_total || n < p->log_total - DEMO_EVENT_LOG) return NULL;
    return &p->log[n % DEMO_EVENT_LOG];
}
