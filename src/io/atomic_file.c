/* atomic_file.c - output files written all at once (atomic_file.h). */
#define _POSIX_C_SOURCE 200809L
#include "atomic_file.h"

#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Temporary names tried before giving up (another writer racing on the
 * same name takes one each). */
#define TMP_ATTEMPTS 100

static void clear(bw_atomic_file *af)
{
    bw_free_string(NULL, af->path);
    free(af->tmp_path);
    memset(af, 0, sizeof *af);
}

/* "DIR/.NAME.tmp-PID-N" for path "DIR/NAME" ("NAME" alone: in the working
 * folder). */
static char *tmp_name(const char *path, int n)
{
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
    const char *base = path + dir_len;
    size_t size = strlen(path) + 48;
    char *t = (char *)malloc(size);
    if (t) snprintf(t, size, "%.*s.%s.tmp-%ld-%d", (int)dir_len, path, base, (long)getpid(), n);
    return t;
}

FILE *bw_atomic_file_open(bw_atomic_file *af, const char *path, char *err, size_t err_size)
{
    memset(af, 0, sizeof *af);
    struct stat st;
    bool exists = lstat(path, &st) == 0;
    af->path = bw_strdup(NULL, path);
    if (!af->path) {
        snprintf(err, err_size, "cannot write %s: out of memory", path);
        return NULL;
    }
    if (exists && !S_ISREG(st.st_mode)) { /* a device, a FIFO, a link: in place */
        af->f = fopen(path, "wb");
        if (!af->f) {
            snprintf(err, err_size, "cannot write %s: %s", path, strerror(errno));
            clear(af);
        }
        return af->f;
    }
    /* an existing file keeps its permission bits; a new one gets fopen's */
    mode_t mode = exists ? st.st_mode & 07777 : 0666;
    for (int n = 0; n < TMP_ATTEMPTS; n++) {
        char *t = tmp_name(path, n);
        if (!t) break;
        int fd = open(t, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
        if (fd < 0) {
            int e = errno;
            free(t);
            if (e == EEXIST) continue;
            if (exists && (e == EACCES || e == EPERM)) { /* the file is writable, its folder not */
                af->f = fopen(path, "wb");
                if (af->f) return af->f;
                e = errno;
            }
            snprintf(err, err_size, "cannot write %s: %s", path, strerror(e));
            clear(af);
            return NULL;
        }
        if (exists) (void)fchmod(fd, mode); /* open's mode passed through the umask */
        af->f = fdopen(fd, "wb");
        if (!af->f) {
            int e = errno;
            close(fd);
            unlink(t);
            free(t);
            snprintf(err, err_size, "cannot write %s: %s", path, strerror(e));
            clear(af);
            return NULL;
        }
        af->tmp_path = t;
        return af->f;
    }
    snprintf(err, err_size, "cannot write %s: no free temporary name beside it", path);
    clear(af);
    return NULL;
}

void bw_atomic_file_fail(bw_atomic_file *af, int error)
{
    if (!af->error) af->error = error ? error : EIO;
}

bool bw_atomic_file_commit(bw_atomic_file *af, char *err, size_t err_size)
{
    int e = af->error;
    errno = 0;
    if (fflush(af->f) != 0 && !e) e = errno ? errno : EIO;
    if (ferror(af->f) && !e) e = EIO;
    errno = 0;
    if (fclose(af->f) != 0 && !e) e = errno ? errno : EIO;
    af->f = NULL;
    if (!e && af->tmp_path && rename(af->tmp_path, af->path) != 0) e = errno;
    if (e) {
        if (af->tmp_path) unlink(af->tmp_path);
        snprintf(err, err_size, "cannot write %s: %s", af->path, strerror(e));
    }
    clear(af);
    return !e;
}

void bw_atomic_file_abort(bw_atomic_file *af)
{
    if (af->f) fclose(af->f);
    if (af->tmp_path) unlink(af->tmp_path);
    clear(af);
}

bool bw_io_same_file(const char *output, const char *input)
{
    struct stat a, b;
    return output && input && stat(output, &a) == 0 && stat(input, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}
