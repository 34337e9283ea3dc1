/* cmd_watch.c - `blendwerk watch GRAPH.lua --asset FILE [--timeline T.lua]
 * [--seconds N] [--fade S] [--poll]`: run a character on a graph file in
 * real time and reload the graph whenever it is saved (issue 11;
 * docs/scripting.md, docs/cli.md).
 *
 * The reload is bindings/graph_reload.h (a fresh sandbox per version, an
 * all-or-nothing swap with bw_graph_cursor_carry_over, the watcher of
 * bindings/watch.h); this file only drives it. Each frame: poll the
 * reloader (between frames), apply the timeline's due entries (cli/
 * timeline.c, as simulate does, at the real elapsed time), update,
 * evaluate, drain. dt comes from a monotonic clock, capped at 0.1 s; the
 * loop sleeps to about 60 frames a second.
 *
 * One line per attempt on stdout:
 *   reloaded graphs/x.lua in 3.1 ms; base: walk kept
 *   graphs/x.lua:14: unknown state 'jmup' (still running the previous version)
 * (every problem on its own line, the note on the last). The timeline is
 * read again against every new version; entries already applied stay
 * applied. Ends after --seconds when given (stdin is then ignored, so
 * scripts can run it without input), else at end of input on stdin.
 * Exit codes: 0 done, 1 the first load failed or the timeline did not load
 * (a problem of its own or an entry the first graph cannot take), 2 bad
 * arguments. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blendwerk/asset.h"
#include "blendwerk/pose.h"
#include "blendwerk/text.h"
#include "cli_args.h"
#include "cli_json.h"
#include "cli_load.h"
#include "commands.h"
#include "graph_reload.h"
#include "lua_graph.h"
#include "sandbox.h"
#include "timeline.h"

#define MAX_DT 0.1
#define FRAME_SECONDS (1.0 / 60.0)

static void usage(FILE *to)
{
    fprintf(to, "usage: blendwerk watch GRAPH.lua --asset FILE [--timeline TIMELINE.lua] [--seconds N] [--fade S] [--poll]\n"
                "  FILE       a .glb / .gltf / .bvh file or Lua character whose clips the graph names\n"
                "  TIMELINE   entries applied at their real time (as `blendwerk simulate` reads them)\n"
                "  --seconds  stop after N seconds (stdin ignored); default: at end of input on stdin\n"
                "  --fade     seconds a reload crossfades what cannot carry over (a removed state,\n"
                "             an edited clip) from the old pose (default 0.2)\n"
                "  --poll     compare file times instead of inotify\n");
}

/* The timeline's own sandbox holding its table at index 1; NULL after
 * printing why, as simulate does ("blendwerk watch: " and the problem). */
static bw_sandbox *load_timeline(const char *path)
{
    static char err[BW_CLI_ERROR_MAX];
    bw_sandbox *sb = bw_timeline_load(path, err, sizeof err);
    if (!sb) bw_cli_error_line("watch", err);
    return sb;
}

/* Whether stdin reached its end (reads and drops what was typed). */
static bool input_ended(void)
{
    struct pollfd p = {0, POLLIN, 0};
    if (poll(&p, 1, 0) <= 0) return false;
    if (p.revents & (POLLHUP | POLLERR | POLLNVAL) && !(p.revents & POLLIN)) return true;
    char buf[256];
    ssize_t n = read(0, buf, sizeof buf);
    return n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN);
}

static void sleep_seconds(double s)
{
    if (s <= 0) return;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static void report(bw_graph_reload *r, bw_graph_reload_result res, const char *path)
{
    if (res == BW_GRAPH_RELOAD_DONE) {
        printf("reloaded %s in %.1f ms; ", path, bw_graph_reload_last_ms(r));
        bw_text_print_lines(stdout, bw_graph_reload_summary(r)); /* layer and state names */
        putchar('\n');
    } else if (res == BW_GRAPH_RELOAD_REJECTED) {
        /* one problem a line, each as the text outputs print names (the
         * file's own names and error texts); the note on the last */
        bw_text_print_lines(stdout, bw_graph_reload_error(r));
        printf(" (still running the previous version)\n");
    }
    bw_cli_flush(); /* a failure named at the end (main.c) */
}

int bw_cmd_watch(int argc, char **argv)
{
    const char *graph_path = NULL, *asset_path = NULL, *timeline_path = NULL, *seconds_arg = NULL, *fade_arg = NULL;
    double seconds = -1, fade = 0.2;
    bool force_polling = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char *end = NULL;
        const char **once = !strcmp(a, "--asset")      ? &asset_path
                            : !strcmp(a, "--timeline") ? &timeline_path
                            : !strcmp(a, "--seconds")  ? &seconds_arg
                            : !strcmp(a, "--fade")     ? &fade_arg
                                                       : NULL;
        if (once && i + 1 < argc && !bw_cli_option_once("watch", a, once, argv[i + 1])) {
            usage(stderr);
            return 2;
        }
        if ((!strcmp(a, "--asset") || !strcmp(a, "--timeline")) && i + 1 < argc) i++;
        else if ((!strcmp(a, "--seconds") || !strcmp(a, "--fade")) && i + 1 < argc) {
            double v = strtod(argv[++i], &end);
            if (!end || *end || !(v >= 0) || v > 1e9) {
                fprintf(stderr, "blendwerk watch: %s wants a number >= 0, not '%s'\n", a, argv[i]);
                return 2;
            }
            if (a[2] == 's') seconds = v;
            else fade = v;
        } else if (!strcmp(a, "--poll")) force_polling = true;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (a[0] != '-' && !graph_path) graph_path = a;
        else {
            fprintf(stderr, "blendwerk watch: unexpected argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!graph_path || !asset_path) { /* what is wrong, then the usage */
        fprintf(stderr, "blendwerk watch: %s\n", !graph_path ? "GRAPH.lua is missing"
                                                             : "--asset FILE is missing (the character whose clips the graph names)");
        usage(stderr);
        return 2;
    }
    bw_asset *asset = bw_cli_load_asset("watch", asset_path);
    if (!asset) return 1;
    bw_sandbox *tl_sb = timeline_path ? load_timeline(timeline_path) : NULL;
    bw_watch_desc wd = {BW_WATCH_DEFAULT_DEBOUNCE, force_polling};
    bw_graph_reload_desc d;
    memset(&d, 0, sizeof d);
    d.path = graph_path;
    d.rig = asset->rig;
    d.clips = (const bw_clip *const *)asset->clips;
    d.clip_count = asset->clip_count;
    d.cursor_count = 1;
    d.fade = (float)fade;
    d.watch = &wd;
    char err[BW_GRAPH_RELOAD_TEXT_MAX];
    bw_graph_reload *r = timeline_path && !tl_sb ? NULL : bw_graph_reload_create(&d, err, sizeof err);
    if (!r && (tl_sb || !timeline_path)) bw_cli_error_line(NULL, err);
    bw_timeline tl;
    memset(&tl, 0, sizeof tl);
    /* its problems, after a reload too, on stderr beside the reload lines
     * on stdout: "TIMELINE:LINE: message", the file's names escaped */
    tl.report = bw_timeline_report_stderr;
    bw_pose pose;
    memset(&pose, 0, sizeof pose);
    int status = r && bw_pose_init(&pose, asset->rig, NULL) == BW_OK ? 0 : 1;
    /* a timeline whose entries do not read against the first graph did not
     * load (its problems are on stderr), as in simulate: exit 1, nothing run */
    if (status == 0 && tl_sb && !bw_timeline_read(&tl, bw_sandbox_state(tl_sb), bw_graph_reload_graph(r), timeline_path, -1))
        status = 1;
    if (status == 0) {
        printf("watching %s (%s); end of input or --seconds stops\n", graph_path,
               bw_watch_polling(bw_graph_reload_watcher(r)) ? "polling" : "inotify");
        bw_cli_flush();
        const double start = bw_watch_now();
        double last = start, elapsed = 0;
        for (long frame = 0;; frame++) {
            double now = bw_watch_now();
            double dt = now - last;
            if (dt > MAX_DT) dt = MAX_DT;
            last = now;
            if ((seconds >= 0 && now - start >= seconds) || (seconds < 0 && input_ended())) break;
            bw_graph_reload_result res = bw_graph_reload_poll(r, now);
            report(r, res, graph_path);
            if (res == BW_GRAPH_RELOAD_DONE && tl_sb)
                bw_timeline_read(&tl, bw_sandbox_state(tl_sb), bw_graph_reload_graph(r), timeline_path, elapsed);
            bw_graph_cursor *c = bw_graph_reload_cursor(r, 0);
            if (tl_sb) bw_timeline_apply(&tl, c, elapsed, frame);
            bw_graph_cursor_update(c, (float)dt);
            bw_graph_cursor_evaluate(c, NULL, &pose);
            bw_graph_cursor_drain(c, NULL, NULL);
            elapsed += dt;
            sleep_seconds(FRAME_SECONDS - (bw_watch_now() - now));
        }
    }
    bw_pose_deinit(&pose);
    bw_timeline_free(&tl);
    bw_graph_reload_destroy(r);
    bw_sandbox_destroy(tl_sb);
    bw_asset_destroy(asset);
    return status;
}
