/* reload.c - hot reload of a character script (reload.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reload.h"
#include "watch.h"

/* The reloader's watcher and its latch. The reloader is a plain value
 * without a required deinit (reload.h), so every watcher is also on this
 * list and the ones not released by demo_reloader_deinit are at exit. */
struct demo_reload_watch {
    bw_watch *w;
    bool dirty; /* a change was seen since the last attempt */
    struct demo_reload_watch *next;
};

static struct demo_reload_watch *live;

static void release_all(void)
{
    while (live) {
        struct demo_reload_watch *n = live->next;
        bw_watch_destroy(live->w);
        free(live);
        live = n;
    }
}

static struct demo_reload_watch *watch_new(void)
{
    static bool registered;
    if (!registered) registered = atexit(release_all) == 0;
    if (!registered) return NULL;
    struct demo_reload_watch *rw = (struct demo_reload_watch *)calloc(1, sizeof *rw);
    bw_watch_desc wd = {0, false};
    if (rw) rw->w = bw_watch_create(&wd);
    if (rw && !rw->w) {
        free(rw);
        return NULL;
    }
    if (rw) {
        rw->next = live;
        live = rw;
    }
    return rw;
}

void demo_reloader_deinit(demo_reloader *r)
{
    if (!r || !r->watcher) return;
    for (struct demo_reload_watch **p = &live; *p; p = &(*p)->next)
        if (*p == r->watcher) {
            *p = r->watcher->next;
            bw_watch_destroy(r->watcher->w);
            free(r->watcher);
            break;
        }
    r->watcher = NULL;
}

void demo_reloader_init(demo_reloader *r, const char *script, const char *asset, const demo_limits *limits)
{
    memset(r, 0, sizeof *r);
    if (script && strlen(script) < sizeof r->script) snprintf(r->script, sizeof r->script, "%s", script);
    if (asset && strlen(asset) < sizeof r->asset) snprintf(r->asset, sizeof r->asset, "%s", asset);
    r->limits = demo_limits_resolve(limits);
    r->watcher = watch_new();
}

demo_character *demo_reloader_load(demo_reloader *r)
{
    demo_character *c = NULL;
    /* what happened before this attempt is consumed by it; a save during
     * the load is seen by the next poll */
    if (r->watcher) {
        bw_watch_poll(r->watcher->w, bw_watch_now());
        r->watcher->dirty = false;
    }
    bool ok = demo_character_load(r->script, r->asset[0] ? r->asset : NULL, &r->limits, &c, &r->watch, r->error,
                                  sizeof r->error);
    /* the files of this attempt (a failed one too: its files are what a
     * fix will touch) */
    for (int i = 0; r->watcher && i < r->watch.count; i++) bw_watch_add(r->watcher->w, r->watch.files[i].path);
    if (!ok) {
        r->failures++;
        return NULL;
    }
    r->error[0] = '\0';
    r->loads++;
    return c;
}

bool demo_reloader_changed(const demo_reloader *r)
{
    if (!r->watcher) return demo_watch_changed(&r->watch);
    if (bw_watch_poll(r->watcher->w, bw_watch_now())) r->watcher->dirty = true;
    return r->watcher->dirty;
}

bool demo_reloader_apply(demo_reloader *r, demo_player *player)
{
    demo_character *c = demo_reloader_load(r);
    if (!c) return false;
    char err[DEMO_ERROR_MAX];
    if (!demo_player_swap(player, c, err, sizeof err)) {
        snprintf(r->error, sizeof r->error, "%s", err);
        r->loads--;
        r->failures++;
        demo_character_destroy(c);
        return false;
    }
    return true;
}
