/* safe_file.c - opening and reading files for the loaders without
 * following links, blocking or reading more than was asked for (see
 * safe_file.h for the rules).
 *
 * Files beneath a folder are reached by an openat walk: each folder
 * component is opened with O_NOFOLLOW | O_DIRECTORY relative to the
 * descriptor of the one before, so a link swapped in between a check and
 * the open cannot redirect the walk (there is no separate check). This
 * works on every POSIX system; openat2(RESOLVE_BENEATH) would only add a
 * second code path that tests on older kernels could not reach
 * (docs/decisions.md). */
#define _GNU_SOURCE /* O_NOFOLLOW, O_CLOEXEC, O_DIRECTORY, openat, fstatat under -std=c11 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safe_file.h"

#ifndef O_NOCTTY
#define O_NOCTTY 0
#endif

/* Flags of every open of a file (not a folder) the loaders read. */
#define FILE_FLAGS (O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* How messages name the file: the caller's label or the path (so the
 * message starts with err->file, as the other loader messages do). */
typedef struct file_name {
    char text[320];
} file_name;

static const char *name_of(file_name *n, const bw_io_read *req, const char *path, size_t path_len)
{
    if (req->label) snprintf(n->text, sizeof n->text, "%s", req->label);
    else snprintf(n->text, sizeof n->text, "%.*s", (int)(path_len > 300 ? 300 : path_len), path);
    return n->text;
}

static const char *kind_of(mode_t mode)
{
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "FIFO";
    if (S_ISCHR(mode)) return "character device";
    if (S_ISBLK(mode)) return "block device";
    if (S_ISSOCK(mode)) return "socket";
    if (S_ISLNK(mode)) return "symbolic link";
    return "special file";
}

/* Why an open of `comp` in `dfd` failed with `e`: a link is named as such
 * whatever errno the system chose for it (ELOOP on Linux, EMLINK on some
 * BSDs, ENOTDIR with O_DIRECTORY). */
static bw_result open_failed(bw_error *err, const char *file, const char *name, int dfd, const char *comp, int e,
                             bool folder)
{
    struct stat st;
    if (fstatat(dfd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
        if (folder)
            return bw_fail_at(err, BW_ERR_UNSUPPORTED, file, 0, NULL,
                              "%s: folder '%s' is a symbolic link (links are not followed)", name, comp);
        return bw_fail_at(err, BW_ERR_UNSUPPORTED, file, 0, NULL, "%s: is a symbolic link (links are not followed)",
                          name);
    }
    if (folder && e == ENOTDIR)
        return bw_fail_at(err, BW_ERR_IO, file, 0, NULL, "%s: '%s' is not a folder", name, comp);
    return bw_fail_at(err, BW_ERR_IO, file, 0, NULL, "%s: cannot open: %s", name, strerror(e));
}

/* fstat, check, read: the part both entry points share. Closes fd. */
static bw_result read_fd(int fd, const char *file, const char *name, const bw_io_read *req, void **out_data,
                         size_t *out_size, bw_error *err)
{
    struct stat st;
    bw_result r = BW_OK;
    size_t size = 0;
    if (fstat(fd, &st) != 0) {
        r = bw_fail_at(err, BW_ERR_IO, file, 0, NULL, "%s: cannot stat: %s", name, strerror(errno));
    } else if (S_ISDIR(st.st_mode)) {
        r = bw_fail_at(err, BW_ERR_IO, file, 0, NULL, "%s: is a directory, not a regular file", name);
    } else if (!S_ISREG(st.st_mode)) {
        r = bw_fail_at(err, BW_ERR_IO, file, 0, NULL, "%s: not a regular file (%s)", name, kind_of(st.st_mode));
    } else if (st.st_size < 0) {
        r = bw_fail_at(err, BW_ERR_IO, file, 0, NULL, "%s: negative file size", name);
    } else if (req->want_bytes) {
        if (req->want_bytes > req->max_bytes)
            r = bw_fail_at(err, BW_ERR_LIMIT, file, 0, NULL, "%s: %zu bytes exceed the %zu-byte limit", name,
                           req->want_bytes, req->max_bytes);
        else if ((unsigned long long)st.st_size < (unsigned long long)req->want_bytes)
            r = bw_fail_at(err, BW_ERR_RANGE, file, 0, NULL, "%s: the file holds %lld bytes but byteLength is %zu",
                           name, (long long)st.st_size, req->want_bytes);
        size = req->want_bytes;
    } else if ((unsigned long long)st.st_size > (unsigned long long)req->max_bytes) {
        r = bw_fail_at(err, BW_ERR_LIMIT, file, 0, NULL, "%s: %lld bytes exceed the %zu-byte limit", name,
                       (long long)st.st_size, req->max_bytes);
    } else {
        size = (size_t)st.st_size;
    }
    unsigned char *data = NULL;
    if (r == BW_OK) {
        data = (unsigned char *)bw_alloc(req->allocator, size ? size : 1);
        if (!data) r = bw_fail_at(err, BW_ERR_OUT_OF_MEMORY, file, 0, NULL, "%s: out of memory for %zu bytes", name, size);
    }
    size_t got = 0;
    while (r == BW_OK && got < size) {
        ssize_t n = read(fd, data + got, size - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) r = bw_fail_at(err, BW_ERR_IO, file, 0, NULL, "%s: read error: %s", name, strerror(errno));
        else if (n == 0)
            r = bw_fail_at(err, BW_ERR_IO, file, 0, NULL, "%s: the file shrank while being read (%zu of %zu bytes)",
                           name, got, size);
        else got += (size_t)n;
    }
    close(fd);
    if (r != BW_OK) {
        if (data) bw_free(req->allocator, data, size ? size : 1);
        return r;
    }
    *out_data = data;
    *out_size = size;
    return BW_OK;
}

bw_result bw_io_read_path(const char *path, size_t path_len, const bw_io_read *req, void **out_data,
                          size_t *out_size, bw_error *err)
{
    file_name n;
    const char *name = name_of(&n, req, path, path_len);
    if (memchr(path, '\0', path_len) || path_len == 0)
        return bw_fail_at(err, BW_ERR_UNSUPPORTED, NULL, 0, NULL, "%s: %s", name,
                          path_len ? "the path contains a NUL byte" : "empty path");
    int fd = open(path, FILE_FLAGS);
    if (fd < 0) return open_failed(err, path, name, AT_FDCWD, path, errno, false);
    return read_fd(fd, path, name, req, out_data, out_size, err);
}

static bool is_separator(char ch) { return ch == '/' || ch == '\\'; }

/* One step of the walk: open `comp` (a folder, or the file) relative to
 * *fd, which is closed either way and replaced by the new descriptor. */
static bw_result step(int *fd, const char *comp, bool folder, const char *file, const char *name, bw_error *err)
{
    int next = openat(*fd, comp, folder ? DIR_FLAGS : FILE_FLAGS);
    bw_result r = next < 0 ? open_failed(err, file, name, *fd, comp, errno, folder) : BW_OK;
    close(*fd);
    *fd = next;
    return r;
}

bw_result bw_io_read_beneath(const char *dir, const char *rel, size_t rel_len, const bw_io_read *req,
                             void **out_data, size_t *out_size, bw_error *err)
{
    file_name n;
    const char *name = name_of(&n, req, rel, rel_len);
    const char *file = rel; /* NUL-terminated by the caller (perhaps early, at a NUL refused below) */
    if (memchr(rel, '\0', rel_len))
        return bw_fail_at(err, BW_ERR_UNSUPPORTED, file, 0, NULL, "%s: the path contains a NUL byte", name);
    if (rel_len == 0) return bw_fail_at(err, BW_ERR_UNSUPPORTED, file, 0, NULL, "%s: empty path", name);
    if (is_separator(rel[0]))
        return bw_fail_at(err, BW_ERR_UNSUPPORTED, file, 0, NULL, "%s: absolute paths are refused", name);
    /* Check every component before opening anything. */
    size_t last = 0; /* start of the last component */
    for (size_t i = 0; i < rel_len;) {
        size_t j = i;
        while (j < rel_len && !is_separator(rel[j])) j++;
        if (j - i == 2 && rel[i] == '.' && rel[i + 1] == '.')
            return bw_fail_at(err, BW_ERR_UNSUPPORTED, file, 0, NULL, "%s: \"..\" would leave the folder", name);
        if (j - i > 255) return bw_fail_at(err, BW_ERR_UNSUPPORTED, file, 0, NULL, "%s: a component is too long", name);
        if (j > i) last = i;
        i = j + 1;
    }
    if (is_separator(rel[rel_len - 1]) || (rel_len - last == 1 && rel[last] == '.'))
        return bw_fail_at(err, BW_ERR_IO, file, 0, NULL, "%s: names a folder, not a file", name);

    const char *folder = dir && dir[0] ? dir : ".";
    int dfd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* the folder itself is trusted */
    if (dfd < 0)
        return bw_fail_at(err, BW_ERR_IO, file, 0, NULL, "%s: cannot open the folder '%s': %s", name, folder,
                          strerror(errno));
    char comp[256];
    for (size_t i = 0; i < last;) {
        size_t j = i;
        while (j < rel_len && !is_separator(rel[j])) j++;
        size_t len = j - i;
        i = j + 1;
        if (len == 0 || (len == 1 && rel[j - 1] == '.')) continue;
        memcpy(comp, rel + j - len, len);
        comp[len] = '\0';
        bw_result r = step(&dfd, comp, true, file, name, err);
        if (r != BW_OK) return r;
    }
    memcpy(comp, rel + last, rel_len - last);
    comp[rel_len - last] = '\0';
    bw_result r = step(&dfd, comp, false, file, name, err);
    if (r != BW_OK) return r;
    return read_fd(dfd, file, name, req, out_data, out_size, err);
}

void bw_io_free(const bw_allocator *allocator, void *data, size_t size)
{
    if (data) bw_free(allocator, data, size ? size : 1);
}

size_t bw_io_dir_length(const char *path)
{
    size_t dir = 0;
    for (size_t i = 0; path[i]; i++)
        if (is_separator(path[i])) dir = i + 1;
    return dir;
}
