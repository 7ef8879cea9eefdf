/* open_regular.h — opening an input that must be a regular file (a container, a calibration
 * file): a FIFO, device or directory named by mistake is refused at once, never waited on or
 * read without end. */
#ifndef ZS_OPEN_REGULAR_H
#define ZS_OPEN_REGULAR_H

#include <stdint.h>
#include <stdio.h>

#include "core/zs_internal.h"

/* *out: `path` opened for reading with `mode` ("r" or "rb"), a regular file; *size (where not
 * NULL) its size in bytes. Errors (ZS_ERR_IO) name path and the cause: cannot open or stat,
 * "is a directory", "is not a regular file". */
ZSI_HIDDEN zs_status zsi_open_regular(const char *path, const char *mode, FILE **out,
                                      uint64_t *size);

#endif /* ZS_OPEN_REGULAR_H */
