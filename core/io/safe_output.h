/* safe_output.h — writing an output file so it is never half-written, hijacked or mistyped:
 * a unique temporary beside the target, fsync, the old file's mode kept, one rename. */
#ifndef ZS_SAFE_OUTPUT_H
#define ZS_SAFE_OUTPUT_H

#include <stdio.h>
#include <sys/types.h>

#include "core/zs_internal.h"

/* The output is binary: refuse a terminal instead of writing to it. */
#define ZSI_OUTPUT_BINARY 1u

typedef struct zsi_output {
  const char *path; /* as the caller named it, for messages */
  char *target;     /* the file the rename replaces (a symlink resolved), NULL when direct */
  char *tmp;        /* the unique temporary, NULL when direct or once renamed */
  int fd;           /* where the bytes go; -1 when closed */
  int direct;       /* standard output, a pipe/FIFO or a terminal: written in place */
  int keep_mode;    /* the target exists: its mode (and owner, where allowed) carry over */
  mode_t mode;
  uid_t uid;
  gid_t gid;
} zsi_output;

/* Open `path` for writing (see docs/bad-input.md for every rule):
 *  - "-" is standard output; a FIFO or terminal is written in place (with ZSI_OUTPUT_BINARY a
 *    terminal is refused);
 *  - a directory, character or block device, socket, a dangling symlink or the empty name are
 *    refused (ZS_ERR_IO; ZS_ERR_INVALID_ARGUMENT for the empty name);
 *  - otherwise the bytes go to a new unique file in the target's directory (O_EXCL, never
 *    following a planted link), which zsi_output_commit renames over the target. A symlinked
 *    target is resolved: the file it points to is replaced, the link stays.
 * Errors name `path` and the cause; nothing is left behind. */
ZSI_HIDDEN zs_status zsi_output_open(zsi_output *o, const char *path, unsigned flags);
/* A stdio stream on a duplicate of the descriptor (the caller fcloses it before committing). */
ZSI_HIDDEN FILE *zsi_output_stdio(zsi_output *o);
/* fsync, keep the old file's mode, rename over the target, close. On failure the temporary is
 * removed and the old file is untouched. */
ZSI_HIDDEN zs_status zsi_output_commit(zsi_output *o);
/* The whole of data[0..n) as `path`'s new content, through open, one write and commit: the old
 * file stays on any failure, and the error names path and the cause. */
ZSI_HIDDEN zs_status zsi_output_write_all(const char *path, unsigned flags, const void *data,
                                          size_t n);
/* Close and remove the temporary (any error path; safe to call twice). */
ZSI_HIDDEN void zsi_output_abort(zsi_output *o);

#endif /* ZS_SAFE_OUTPUT_H */
