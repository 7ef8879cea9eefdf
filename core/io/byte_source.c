/* byte_source.c — plain or gzip input through one read call. zlib's gzread is not used: it
 * ignores whatever follows a gzip member that is not another member, and a file with junk
 * after its data should be refused, not half-trusted. */
#include "core/io/byte_source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long failed(zsi_source *s, zs_status status, const char *fmt, ...) ZSI_PRINTF(3, 4);
static long failed(zsi_source *s, zs_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->why, sizeof s->why, fmt, ap);
  va_end(ap);
  s->status = status;
  return -1;
}

static long raw_read(zsi_source *s, void *buf, size_t n) {
  for (;;) {
    const ssize_t k = read(s->fd, buf, n);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return failed(s, ZS_ERR_IO, "read failed: %s", strerror(errno));
    if (k == 0) s->raw_eof = 1;
    s->raw_bytes += (uint64_t)k;
    return (long)k;
  }
}

/* Make at least `want` raw bytes available unless the file ends first; 0 ok, -1 failed. */
static int need(zsi_source *s, size_t want) {
  if (s->z.avail_in >= want || s->raw_eof) return 0;
  if (s->z.avail_in) memmove(s->in, s->z.next_in, s->z.avail_in);
  s->z.next_in = s->in;
  while (s->z.avail_in < want && !s->raw_eof) {
    const long k = raw_read(s, s->in + s->z.avail_in, s->in_cap - s->z.avail_in);
    if (k < 0) return -1;
    s->z.avail_in += (uInt)k;
  }
  return 0;
}

zs_status zsi_source_open(zsi_source *s, const char *path, size_t in_cap) {
  memset(s, 0, sizeof *s);
  s->fd = strcmp(path, "-") == 0 ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC);
  if (s->fd < 0) return zsi_error(ZS_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  s->in_cap = in_cap < 64 ? 64 : in_cap;
  if (!(s->in = malloc(s->in_cap))) {
    zsi_source_close(s);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "%s: out of memory for the read buffer", path);
  }
  s->z.next_in = s->in;
  if (need(s, 2) != 0) { /* reported by the first read, where the caller names the line */
    s->pending = 1;
    return ZS_OK;
  }
  s->gzip = s->z.avail_in >= 2 && s->in[0] == 0x1f && s->in[1] == 0x8b;
  if (s->gzip) {
    if (inflateInit2(&s->z, 15 + 16) != Z_OK) {
      zsi_source_close(s);
      return zsi_error(ZS_ERR_OUT_OF_MEMORY, "%s: out of memory for gzip decoding", path);
    }
    s->z_ready = 1;
  }
  return ZS_OK;
}

long zsi_source_read(zsi_source *s, char *dst, size_t cap) {
  if (s->pending) return -1;
  if (!s->gzip) {
    if (s->z.avail_in) { /* the sniffed bytes first */
      const size_t n = s->z.avail_in < cap ? s->z.avail_in : cap;
      memcpy(dst, s->z.next_in, n);
      s->z.next_in += n, s->z.avail_in -= (uInt)n;
      return (long)n;
    }
    return s->raw_eof ? 0 : raw_read(s, dst, cap);
  }
  for (;;) {
    if (s->member_end) {
      /* Another gzip member may follow (gzip concatenates them); anything else is refused. */
      if (need(s, 2) != 0) return -1;
      if (s->z.avail_in == 0) return 0;
      const uint64_t at = s->raw_bytes - s->z.avail_in;
      if (s->z.avail_in < 2 || s->z.next_in[0] != 0x1f || s->z.next_in[1] != 0x8b)
        return failed(s, ZS_ERR_IO,
                      "trailing data after the gzip stream at byte %llu (not another gzip "
                      "member)",
                      (unsigned long long)at);
      inflateReset(&s->z);
      s->member_end = 0;
    }
    if (s->z.avail_in == 0 && need(s, 1) != 0) return -1;
    s->z.next_out = (Bytef *)dst;
    s->z.avail_out = (uInt)(cap > UINT32_MAX ? UINT32_MAX : cap);
    const int ret = inflate(&s->z, Z_NO_FLUSH);
    const long produced = (long)((uInt)(cap > UINT32_MAX ? UINT32_MAX : cap) - s->z.avail_out);
    if (ret == Z_STREAM_END)
      s->member_end = 1;
    else if (ret == Z_MEM_ERROR)
      return failed(s, ZS_ERR_OUT_OF_MEMORY, "out of memory decoding gzip data");
    else if (ret != Z_OK && ret != Z_BUF_ERROR)
      return failed(s, ZS_ERR_IO, "corrupt gzip data at byte %llu (zlib: %s)",
                    (unsigned long long)(s->raw_bytes - s->z.avail_in),
                    s->z.msg ? s->z.msg : "error");
    if (produced > 0) return produced;
    if (!s->member_end && s->z.avail_in == 0 && s->raw_eof)
      return failed(s, ZS_ERR_IO, "truncated gzip data: the file ends inside the stream");
  }
}

void zsi_source_close(zsi_source *s) {
  if (s->z_ready) inflateEnd(&s->z);
  if (s->fd >= 0) close(s->fd);
  free(s->in);
  s->in = NULL, s->fd = -1, s->z_ready = 0;
}
