/* atomic_file.h - writing an output file all at once (the tools' SVG and
 * PNG outputs): a reader of the file sees the old bytes or all of the new
 * ones, never a cut-off file, and a failed write leaves the old file as it
 * was.
 *
 * bw_atomic_file_open creates a temporary file beside the target (same
 * folder, so the final rename cannot cross file systems), named
 * ".NAME.tmp-PID-N" and created with mode 0666 less the umask, as fopen
 * would create the target. bw_atomic_file_commit flushes and closes it and,
 * only when every write, the flush and the close succeeded, renames it
 * over the target; on any failure, and in bw_atomic_file_abort, the
 * temporary file is removed and the target is untouched.
 *
 * A target that exists and is not a regular file (a device such as
 * /dev/stdout or /dev/full, a FIFO) or is a symbolic link cannot be
 * replaced by a rename without replacing the device node or the link
 * itself: it is opened and written in place, as fopen(path, "wb") does,
 * and a failed write is still reported by the commit. So is an existing
 * file whose folder refuses the temporary file (EACCES, EPERM: a writable
 * file in a folder the user may not write), as fopen would have.
 *
 * A process killed between open and commit leaves its ".NAME.tmp-PID-N"
 * beside the target (the target itself is whole); nothing cleans those up.
 * Readers are safe, not power loss: there is no fsync.
 *
 * Messages: "cannot write PATH: why" with the system's word for the
 * failure ("No such file or directory", "No space left on device"). */
#ifndef BW_IO_ATOMIC_FILE_H
#define BW_IO_ATOMIC_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct bw_atomic_file {
    FILE *f;           /* write here between open and commit */
    char *path;        /* the target */
    char *tmp_path;    /* the temporary file; NULL when written in place */
    int error;         /* errno of a failure the caller noted (bw_atomic_file_fail) */
} bw_atomic_file;

/* Open `path` for writing (binary). NULL with the reason in err; then
 * nothing was created and af needs no commit or abort. */
FILE *bw_atomic_file_open(bw_atomic_file *af, const char *path, char *err, size_t err_size);

/* Note a failure of a write the caller made through its own means (a
 * callback that counts fwrite's result): the commit then fails with
 * `error` (an errno; 0 counts as EIO) and keeps the target. */
void bw_atomic_file_fail(bw_atomic_file *af, int error);

/* Finish: true when every byte reached the target. af is closed either
 * way. */
bool bw_atomic_file_commit(bw_atomic_file *af, char *err, size_t err_size);

/* Give up: close and remove the temporary file; the target is untouched. */
void bw_atomic_file_abort(bw_atomic_file *af);

/* True when `output` and `input` name one existing file (through links,
 * other spellings of the path, hard links): a tool checks its output
 * against its inputs with it before writing, so a slip of the shell's
 * completion cannot replace a source with a picture. False when either is
 * NULL or does not exist. */
bool bw_io_same_file(const char *output, const char *input);

#endif
