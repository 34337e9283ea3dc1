/* test_files.h - small file helpers the C tests that write fixtures share.
 *
 * write_text_file writes `text` to `path` (a failure is printed and false
 * returned; a test that ignores it fails on its own checks when it reads
 * the file). slurp reads a whole file into a malloc'ed, NUL-terminated
 * buffer (NULL when it cannot be read; free it). replaced returns a
 * malloc'ed copy of `text` with the first `old` replaced by `new_text`
 * (NULL when `old` does not occur; free it). path_in joins a
 * folder and a name into one of eight rotating static buffers, so up to
 * eight paths may be held at once (e.g. as arguments of one call).
 * capture_command runs a shell command and keeps what it prints on stdout
 * (up to size - 1 bytes) in `out`, returning its exit status (-1 when it
 * could not run or did not exit). remove_tree removes `dir` and all it
 * holds, depth first; a symbolic link is removed, never followed. It walks
 * with opendir/readdir rather than nftw, which glibc declares only under
 * _XOPEN_SOURCE while the tests that include this header ask for POSIX
 * 2008 alone. It returns false (and prints the path) when something could
 * not be removed, so a test may CHECK it or ignore it at exit. */
#ifndef BW_TEST_FILES_H
#define BW_TEST_FILES_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static inline bool write_text_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
        return false;
    }
    fputs(text, f);
    fclose(f);
    return true;
}

static inline char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? (char *)malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) n = 0;
    if (buf) buf[n] = '\0';
    fclose(f);
    return buf;
}

static inline char *replaced(const char *text, const char *old, const char *new_text)
{
    const char *at = strstr(text, old);
    if (!at) return NULL;
    size_t a = (size_t)(at - text), o = strlen(old), n = strlen(new_text), rest = strlen(at + o);
    char *out = (char *)malloc(a + n + rest + 1);
    if (!out) return NULL;
    memcpy(out, text, a);
    memcpy(out + a, new_text, n);
    memcpy(out + a + n, at + o, rest + 1);
    return out;
}

static inline const char *path_in(const char *dir, const char *name)
{
    static char paths[8][1024];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, sizeof paths[0], "%s/%s", dir, name);
    return p;
}

static inline int capture_command(const char *cmd, char *out, size_t size)
{
    FILE *p = popen(cmd, "r");
    out[0] = '\0';
    if (!p) return -1;
    size_t n = fread(out, 1, size - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static inline bool remove_tree(const char *dir)
{
    struct stat st;
    if (lstat(dir, &st) != 0) return errno == ENOENT;
    bool ok = true;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(dir);
        if (!d) ok = false;
        for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            char path[4096];
            if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path) {
                ok = false;
                continue;
            }
            ok = remove_tree(path) && ok;
        }
        if (d) closedir(d);
    }
    if (remove(dir) != 0) {
        fprintf(stderr, "could not remove %s: %s\n", dir, strerror(errno));
        ok = false;
    }
    return ok;
}

#endif
