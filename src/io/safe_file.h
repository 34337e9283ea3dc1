/* safe_file.h - the one way the loaders open and read a file.
 *
 * Everything src/io reads from disk goes through here, so the rules hold
 * for the top-level file, glTF external buffers and any file added later:
 *
 * - never follow a symbolic link in the last component (O_NOFOLLOW);
 *   files resolved beneath a folder (bw_io_read_beneath) follow no link in
 *   any component, may not be absolute and may not leave the folder with
 *   "..": the file stays inside the folder whatever is on disk;
 * - never block: the open is O_NONBLOCK (a FIFO opens at once instead of
 *   waiting for a writer) and the descriptor is fstat'ed before a byte is
 *   read; only regular files are accepted (FIFO, device, socket, directory
 *   are named in the message);
 * - sizes are checked against the limit and the expected length with that
 *   fstat, before reading: a 400 MB "buffer" costs nothing to refuse;
 * - a path containing NUL (a %00 in a glTF URI) is refused, not truncated;
 * - descriptors are O_CLOEXEC and closed on every path.
 *
 * Messages start with the caller's label ("buffers[0].uri 'x.bin'") or,
 * without one, the path: "x.bin: not a regular file (FIFO)"; err->file is
 * the path.
 * Result codes: BW_ERR_UNSUPPORTED for paths refused by the rules above
 * (absolute, "..", a symbolic link, NUL), BW_ERR_IO for files that do not
 * exist, are not regular or fail to read, BW_ERR_LIMIT over max_bytes,
 * BW_ERR_RANGE for a file shorter than want_bytes. */
#ifndef BW_IO_SAFE_FILE_H
#define BW_IO_SAFE_FILE_H

#include "common.h"

typedef struct bw_io_read {
    const char *label;       /* names the file in messages; NULL = the path */
    const bw_allocator *allocator;
    size_t max_bytes;        /* files larger than this are refused (BW_ERR_LIMIT); > 0 */
    size_t want_bytes;       /* 0: read the whole file; else the file must hold at least
                                this many bytes and exactly this many are read */
} bw_io_read;

/* Read the file at `path` (`path_len` bytes, may hold a NUL to be refused;
 * the path itself may pass through symbolic links to folders, the host
 * named it). On success *out_data (allocated through req->allocator,
 * *out_size bytes; at least 1 byte is allocated so an empty file frees
 * with size 1 when *out_size is 0 - use bw_io_free) is the content. */
bw_result bw_io_read_path(const char *path, size_t path_len, const bw_io_read *req, void **out_data,
                          size_t *out_size, bw_error *err);

/* Read `rel` (`rel_len` bytes, NUL-terminated at rel_len or earlier)
 * resolved beneath the folder `dir` (NULL or
 * "" = the current folder; the folder itself is trusted): relative, no
 * ".." component, no symbolic link in any component, "." and empty
 * components skipped, '/' and '\\' both separate. */
bw_result bw_io_read_beneath(const char *dir, const char *rel, size_t rel_len, const bw_io_read *req,
                             void **out_data, size_t *out_size, bw_error *err);

/* Free what bw_io_read_* returned. */
void bw_io_free(const bw_allocator *allocator, void *data, size_t size);

/* The folder part of `path` ("a/b/c.gltf" -> 3 bytes, "a/"), 0 when none. */
size_t bw_io_dir_length(const char *path);

#endif
