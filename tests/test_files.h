/* test_files.h - small file helpers the C tests that write fixtures share.
 *
 * write_text_file writes `text` to `path` (a failure is printed, and the
 * test that then reads the file fails on its own checks). path_in joins a
 * folder and a name into one of eight rotating static buffers, so up to
 * eight paths may be held at once (e.g. as arguments of one call).
 * capture_command runs a shell command and keeps what it prints on stdout
 * (up to size - 1 bytes) in `out`, returning its exit status (-1 when it
 * could not run or did not exit). */
#ifndef BW_TEST_FILES_H
#define BW_TEST_FILES_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

static inline void write_text_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
        return;
    }
    fputs(text, f);
    fclose(f);
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

#endif
