/* byte_source.h — the bytes of an input file, plain or gzip (detected from the content), read
 * from a path, a pipe or standard input ("-"); gzip data must end where the file ends. */
#ifndef ZS_BYTE_SOURCE_H
#define ZS_BYTE_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "core/zs_internal.h"

typedef struct zsi_source {
  int fd;
  int gzip, z_ready, member_end, raw_eof, pending;
  z_stream z;
  unsigned char *in; /* raw bytes not yet consumed: z.next_in, z.avail_in */
  size_t in_cap;
  uint64_t raw_bytes; /* read from fd so far */
  zs_status status;   /* of the last failure */
  char why[160];      /* what failed, without the file name */
} zsi_source;

/* Open `path` ("-": standard input; a FIFO waits for its writer, as cat does) and sniff the
 * gzip magic. in_cap: raw buffer bytes. On failure the message is recorded (naming path). */
ZSI_HIDDEN zs_status zsi_source_open(zsi_source *s, const char *path, size_t in_cap);
/* Up to cap bytes of content: > 0 bytes, 0 at the end, -1 on failure (status and why set:
 * read errors, corrupt or truncated gzip data, bytes after the last gzip member). */
ZSI_HIDDEN long zsi_source_read(zsi_source *s, char *dst, size_t cap);
ZSI_HIDDEN void zsi_source_close(zsi_source *s);

#endif /* ZS_BYTE_SOURCE_H */
