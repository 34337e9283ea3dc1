/* test_atomic_file.c - output files written all at once
 * (src/io/atomic_file.h): the target keeps its old bytes until the
 * commit, a failed or abandoned write leaves it and no temporary file
 * behind, permissions are kept (or fopen's for a new file), devices and
 * links are written in place, and the messages name the path and the
 * system's reason. Fixtures live in a fresh folder under the build tree. */
#define _GNU_SOURCE /* mkdtemp, symlink under -std=c11 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "io/atomic_file.h"
#include "test_files.h"

static char dir[900];

/* Entries of dir, "." and ".." aside. */
static int entries(void)
{
    int n = 0;
    DIR *d = opendir(dir);
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

static void check_text(const char *path, const char *want)
{
    char *text = slurp(path);
    CHECK(text != NULL);
    if (text) CHECK_STR(text, want);
    free(text);
}

static void the_target_changes_only_at_the_commit(void)
{
    const char *path = path_in(dir, "out.svg");
    CHECK(write_text_file(path, "old"));
    CHECK_INT(chmod(path, 0640), 0);
    char err[300] = "";
    bw_atomic_file af;
    FILE *f = bw_atomic_file_open(&af, path, err, sizeof err);
    CHECK(f != NULL);
    if (!f) return;
    fputs("new bytes", f);
    fflush(f);
    check_text(path, "old"); /* a reader sees the old file until the commit */
    CHECK_INT(entries(), 2);  /* out.svg and the temporary beside it */
    CHECK(bw_atomic_file_commit(&af, err, sizeof err));
    CHECK_STR(err, "");
    check_text(path, "new bytes");
    CHECK_INT(entries(), 1);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0640);
    remove(path);
}

static void a_failed_write_keeps_the_old_file(void)
{
    const char *path = path_in(dir, "out.png");
    CHECK(write_text_file(path, "old"));
    char err[300], want[1200];
    bw_atomic_file af;
    FILE *f = bw_atomic_file_open(&af, path, err, sizeof err);
    CHECK(f != NULL);
    if (!f) return;
    fputs("half a pic", f);
    bw_atomic_file_fail(&af, ENOSPC);
    bw_atomic_file_fail(&af, EIO); /* the first failure is the one named */
    CHECK(!bw_atomic_file_commit(&af, err, sizeof err));
    snprintf(want, sizeof want, "cannot write %s: %s", path, strerror(ENOSPC));
    CHECK_STR(err, want);
    check_text(path, "old");
    CHECK_INT(entries(), 1);
    /* abandoned: the same */
    f = bw_atomic_file_open(&af, path, err, sizeof err);
    CHECK(f != NULL);
    if (!f) return;
    fputs("never", f);
    bw_atomic_file_abort(&af);
    check_text(path, "old");
    CHECK_INT(entries(), 1);
    remove(path);
}

static void a_new_file_gets_fopens_mode(void)
{
    const char *path = path_in(dir, "fresh.svg");
    mode_t old_mask = umask(022);
    char err[300];
    bw_atomic_file af;
    FILE *f = bw_atomic_file_open(&af, path, err, sizeof err);
    umask(old_mask);
    CHECK(f != NULL);
    if (!f) return;
    fputs("x", f);
    CHECK(bw_atomic_file_commit(&af, err, sizeof err));
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0644 && st.st_size == 1);
    remove(path);
}

static void devices_and_links_are_written_in_place(void)
{
    char err[300], want[300];
    bw_atomic_file af;
    /* /dev/full: written in place, the full device's failure reported,
     * the device node untouched */
    FILE *f = bw_atomic_file_open(&af, "/dev/full", err, sizeof err);
    CHECK(f != NULL);
    if (f) {
        fputs("bytes", f);
        CHECK(!bw_atomic_file_commit(&af, err, sizeof err));
        snprintf(want, sizeof want, "cannot write /dev/full: %s", strerror(ENOSPC));
        CHECK_STR(err, want);
    }
    struct stat st;
    CHECK(lstat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode));
    f = bw_atomic_file_open(&af, "/dev/null", err, sizeof err);
    CHECK(f != NULL);
    if (f) {
        fputs("bytes", f);
        CHECK(bw_atomic_file_commit(&af, err, sizeof err));
    }
    /* a link: the file it names gets the bytes, the link stays a link */
    const char *real = path_in(dir, "real.svg"), *link = path_in(dir, "link.svg");
    CHECK(write_text_file(real, "old"));
    CHECK_INT(symlink("real.svg", link), 0);
    f = bw_atomic_file_open(&af, link, err, sizeof err);
    CHECK(f != NULL);
    if (f) {
        fputs("through", f);
        CHECK(bw_atomic_file_commit(&af, err, sizeof err));
    }
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    check_text(real, "through");
    CHECK_INT(entries(), 2);
    remove(link);
    remove(real);
}

/* A writable file in a folder the writer may not change: no temporary
 * file can be made, so it is written in place, as fopen would. Root
 * writes any folder, so as root the writing runs in a child that drops to
 * the user "nobody" (uid 65534). */
static void a_file_in_a_closed_folder_is_written_in_place(void)
{
    char closed[1000];
    snprintf(closed, sizeof closed, "%s/closed", dir);
    CHECK_INT(mkdir(closed, 0755), 0);
    const char *path = path_in(closed, "out.svg");
    CHECK(write_text_file(path, "old"));
    CHECK_INT(chmod(path, 0666), 0);
    CHECK_INT(chmod(closed, 0555), 0);
    CHECK_INT(chmod(dir, 0755), 0); /* mkdtemp's 0700 would shut the child out */
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(77);
        struct stat st;
        if (lstat(path, &st) != 0) _exit(78); /* a folder above is closed to nobody */
        char err[300];
        bw_atomic_file af;
        FILE *f = bw_atomic_file_open(&af, path, err, sizeof err);
        if (!f) _exit(1);
        fputs("new", f);
        _exit(bw_atomic_file_commit(&af, err, sizeof err) ? 0 : 2);
    }
    int status = -1;
    CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status));
    if (WEXITSTATUS(status) == 77 || WEXITSTATUS(status) == 78) {
        printf("  (%s: not checked)\n", WEXITSTATUS(status) == 77 ? "no uid 65534 to drop to"
                                                                     : "the build folder is closed to uid 65534");
    } else {
        CHECK_INT(WEXITSTATUS(status), 0);
        check_text(path, "new");
    }
    chmod(closed, 0755);
    remove(path);
    rmdir(closed);
}

static void opens_that_fail_name_the_path(void)
{
    char err[300], want[1200];
    bw_atomic_file af;
    const char *missing = path_in(dir, "no/such/folder.svg");
    CHECK(bw_atomic_file_open(&af, missing, err, sizeof err) == NULL);
    snprintf(want, sizeof want, "cannot write %s: %s", missing, strerror(ENOENT));
    CHECK_STR(err, want);
    CHECK(bw_atomic_file_open(&af, dir, err, sizeof err) == NULL); /* a folder: fopen's EISDIR */
    snprintf(want, sizeof want, "cannot write %s: %s", dir, strerror(EISDIR));
    CHECK_STR(err, want);
    CHECK_INT(entries(), 0);
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/test_atomic_file_XXXXXX", BW_BINARY_DIR);
    if (!mkdtemp(dir)) {
        fprintf(stderr, "mkdtemp %s failed\n", dir);
        return 1;
    }
    RUN(the_target_changes_only_at_the_commit);
    RUN(a_failed_write_keeps_the_old_file);
    RUN(a_new_file_gets_fopens_mode);
    RUN(devices_and_links_are_written_in_place);
    RUN(a_file_in_a_closed_folder_is_written_in_place);
    RUN(opens_that_fail_name_the_path);
    remove_tree(dir);
    return check_summary();
}
