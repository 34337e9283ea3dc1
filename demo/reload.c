/* reload.c - hot reload of a character script (reload.h). */
#include <stdio.h>
#include <string.h>

#include "reload.h"

void demo_reloader_init(demo_reloader *r, const char *script, const char *asset, const demo_limits *limits)
{
    memset(r, 0, sizeof *r);
    if (script && strlen(script) < sizeof r->script) snprintf(r->script, sizeof r->script, "%s", script);
    if (asset && strlen(asset) < sizeof r->asset) snprintf(r->asset, sizeof r->asset, "%s", asset);
    r->limits = demo_limits_resolve(limits);
}

demo_character *demo_reloader_load(demo_reloader *r)
{
    demo_character *c = NULL;
    if (!demo_character_load(r->script, r->asset[0] ? r->asset : NULL, &r->limits, &c, &r->watch, r->error,
                             sizeof r->error)) {
        r->failures++;
        return NULL;
    }
    r->error[0] = '\0';
    r->loads++;
    return c;
}

bool demo_reloader_changed(const demo_reloader *r)
{
    return demo_watch_changed(&r->watch);
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
