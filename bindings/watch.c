/* watch.c - the file watcher (watch.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__)
#include <fcntl.h>
#include <sys/inotify.h>
#define BW_WATCH_INOTIFY 1
#define WATCH_MASK (IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE)
#endif

#include "watch.h"

#define WATCH_PATH_MAX 1024

typedef struct watched {
    char path[WATCH_PATH_MAX];
    const char *base; /* into path */
    int dir;          /* index into dirs */
    bw_file_stamp st;
} watched;

typedef struct folder {
    char path[WATCH_PATH_MAX];
    int wd; /* -1: none */
} folder;

struct bw_watch {
    double debounce;
    bool polling;
    int fd; /* inotify, -1 when polling */
    watched *files;
    int count, cap;
    folder *dirs;
    int dir_count, dir_cap;
    bool pending;
    double last_change;
};

static bw_file_stamp stamp_of(int ok, const struct stat *st)
{
    if (ok != 0) return (bw_file_stamp){-1, -1};
    return (bw_file_stamp){(long long)st->st_mtim.tv_sec * 1000000000LL + (long long)st->st_mtim.tv_nsec,
                           (long long)st->st_size};
}

bw_file_stamp bw_file_stamp_path(const char *path)
{
    struct stat st;
    return stamp_of(stat(path, &st), &st);
}

bw_file_stamp bw_file_stamp_fd(int fd)
{
    struct stat st;
    return stamp_of(fstat(fd, &st), &st);
}

bool bw_file_stamp_same(bw_file_stamp a, bw_file_stamp b) { return a.mtime_ns == b.mtime_ns && a.size == b.size; }

/* Stop using inotify: from now on every poll compares stamps. */
static void fall_back(bw_watch *w)
{
#if BW_WATCH_INOTIFY
    if (w->fd >= 0) close(w->fd);
#endif
    w->fd = -1;
    w->polling = true;
    for (int i = 0; i < w->dir_count; i++) w->dirs[i].wd = -1;
}

bw_watch *bw_watch_create(const bw_watch_desc *desc)
{
    bw_watch *w = (bw_watch *)calloc(1, sizeof *w);
    if (!w) return NULL;
    w->debounce = desc ? desc->debounce : BW_WATCH_DEFAULT_DEBOUNCE;
    if (!(w->debounce >= 0)) w->debounce = 0;
    w->fd = -1;
    w->polling = true;
#if BW_WATCH_INOTIFY
    if (!desc || !desc->force_polling) {
        w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        w->polling = w->fd < 0;
    }
#endif
    return w;
}

void bw_watch_destroy(bw_watch *w)
{
    if (!w) return;
    bw_watch_clear(w);
    fall_back(w);
    free(w->files);
    free(w->dirs);
    free(w);
}

void bw_watch_clear(bw_watch *w)
{
    if (!w) return;
#if BW_WATCH_INOTIFY
    for (int i = 0; i < w->dir_count; i++)
        if (w->fd >= 0 && w->dirs[i].wd >= 0) inotify_rm_watch(w->fd, w->dirs[i].wd);
#endif
    w->count = 0;
    w->dir_count = 0;
    w->pending = false;
}

int bw_watch_count(const bw_watch *w) { return w ? w->count : 0; }

bool bw_watch_polling(const bw_watch *w) { return !w || w->polling; }

static bool grow(void **items, int *cap, int need, size_t size)
{
    if (need <= *cap) return true;
    int n = *cap ? *cap * 2 : 8;
    void *more = realloc(*items, (size_t)n * size);
    if (!more) return false;
    *items = more;
    *cap = n;
    return true;
}

static int add_dir(bw_watch *w, const char *dir)
{
    for (int i = 0; i < w->dir_count; i++)
        if (strcmp(w->dirs[i].path, dir) == 0) return i;
    if (!grow((void **)&w->dirs, &w->dir_cap, w->dir_count + 1, sizeof *w->dirs)) return -1;
    folder *f = &w->dirs[w->dir_count];
    snprintf(f->path, sizeof f->path, "%s", dir);
    f->wd = -1;
#if BW_WATCH_INOTIFY
    if (w->fd >= 0) {
        f->wd = inotify_add_watch(w->fd, dir, WATCH_MASK | IN_ONLYDIR);
        if (f->wd < 0) fall_back(w); /* no such folder, no watches left, ... */
    }
#endif
    return w->dir_count++;
}

bool bw_watch_add(bw_watch *w, const char *path)
{
    if (!w || !path || !path[0] || strlen(path) >= WATCH_PATH_MAX) return false;
    for (int i = 0; i < w->count; i++)
        if (strcmp(w->files[i].path, path) == 0) return true;
    if (!grow((void **)&w->files, &w->cap, w->count + 1, sizeof *w->files)) return false;
    watched *f = &w->files[w->count];
    snprintf(f->path, sizeof f->path, "%s", path);
    const char *slash = strrchr(f->path, '/');
    char dir[WATCH_PATH_MAX];
    if (slash) {
        size_t n = (size_t)(slash - f->path);
        if (n == 0) n = 1; /* "/name" */
        memcpy(dir, f->path, n);
        dir[n] = '\0';
        f->base = slash + 1;
    } else {
        snprintf(dir, sizeof dir, ".");
        f->base = f->path;
    }
    f->dir = add_dir(w, dir);
    if (f->dir < 0) return false;
    f->st = bw_file_stamp_path(f->path);
    w->count++;
    return true;
}

/* What inotify queued since the last poll: true when a watched file was
 * touched (or when the watcher had to fall back to stamps). */
static bool read_events(bw_watch *w)
{
    bool hit = false;
#if BW_WATCH_INOTIFY
    _Alignas(struct inotify_event) char buf[4096];
    for (;;) {
        ssize_t n = read(w->fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        for (ssize_t off = 0; off < n;) {
            const struct inotify_event *e = (const struct inotify_event *)(const void *)(buf + off);
            off += (ssize_t)(sizeof *e + e->len);
            if (e->mask & (IN_Q_OVERFLOW | IN_IGNORED)) {
                hit = true; /* lost events or a folder: compare stamps from now on */
                fall_back(w);
                return hit;
            }
            for (int i = 0; i < w->count && e->len; i++)
                if (w->dirs[w->files[i].dir].wd == e->wd && strcmp(w->files[i].base, e->name) == 0) hit = true;
        }
    }
#else
    (void)w;
#endif
    return hit;
}

static bool compare_stamps(bw_watch *w)
{
    bool hit = false;
    for (int i = 0; i < w->count; i++) {
        bw_file_stamp now = bw_file_stamp_path(w->files[i].path);
        if (!bw_file_stamp_same(now, w->files[i].st)) {
            w->files[i].st = now;
            hit = true;
        }
    }
    return hit;
}

bool bw_watch_poll(bw_watch *w, double now)
{
    if (!w) return false;
    bool hit = false;
    if (!w->polling) hit = read_events(w);
    if (w->polling) hit = compare_stamps(w) || hit;
    if (hit) {
        w->pending = true;
        w->last_change = now;
    }
    if (w->pending && now - w->last_change >= w->debounce) {
        w->pending = false;
        return true;
    }
    return false;
}

double bw_watch_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
