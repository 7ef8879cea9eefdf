/* mtx_write.c — Matrix Market writer: coordinate real general, values that read back bit for bit,
 * gzip for ".gz" paths, written through a safe output (core/io/safe_output.c) so a failure never
 * leaves a half file. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "core/io/safe_output.h"
#include "core/zs_internal.h"

#define MTXW_BUF ((size_t)1 << 20)

typedef struct mtx_writer {
  const char *path;
  FILE *f;
  gzFile gz;
  char *buf;
  size_t len;
  int failed;
} mtx_writer;

static void flush_buf(mtx_writer *w) {
  if (w->failed || w->len == 0) return;
  errno = 0;
  if (w->gz) {
    if (gzwrite(w->gz, w->buf, (unsigned)w->len) != (int)w->len) w->failed = errno ? errno : EIO;
  } else if (fwrite(w->buf, 1, w->len, w->f) != w->len) {
    w->failed = errno ? errno : EIO;
  }
  w->len = 0;
}

/* Decimal digits of v at p; returns the length. */
static size_t put_u64(char *p, uint64_t v) {
  char tmp[24];
  size_t n = 0;
  do tmp[n++] = (char)('0' + v % 10), v /= 10;
  while (v);
  for (size_t i = 0; i < n; i++) p[i] = tmp[n - 1 - i];
  return n;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

zs_status zs_matrix_write(const zs_matrix *A, const char *path) {
  if (!A || !path)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_matrix_write: matrix or path is NULL");
  char *buf = malloc(MTXW_BUF);
  if (!buf) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "%s: out of memory for the write buffer", path);
  zsi_output out;
  zs_status s = zsi_output_open(&out, path, 0);
  if (s != ZS_OK) {
    free(buf);
    return s;
  }
  mtx_writer w = {.path = path, .buf = buf};
  errno = 0;
  if (ends_with(path, ".gz")) {
    const int fd = dup(out.fd);
    w.gz = fd >= 0 ? gzdopen(fd, "wb6") : NULL;
    if (w.gz)
      gzbuffer(w.gz, 1u << 20);
    else if (fd >= 0)
      close(fd);
  } else {
    w.f = zsi_output_stdio(&out);
  }
  if (!w.gz && !w.f) {
    s = zsi_error(ZS_ERR_IO, "%s: cannot write the output: %s", path,
                  errno ? strerror(errno) : "out of memory");
    zsi_output_abort(&out);
    free(buf);
    return s;
  }
  w.len = (size_t)snprintf(buf, MTXW_BUF,
                           "%%%%MatrixMarket matrix coordinate real general\n"
                           "%% written by zsparse %s (%s values)\n"
                           "%" PRId64 " %" PRId64 " %" PRId64 "\n",
                           zs_version(), zs_type_name(A->type), A->rows, A->cols, A->nnz);
  /* One entry is at most 2 x 20 digits + a 24-character value + 3 separators. */
  const size_t room = 80;
  for (int64_t i = 0; i < A->rows && !w.failed; i++) {
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
      if (MTXW_BUF - w.len < room) flush_buf(&w);
      char *p = buf + w.len;
      p += put_u64(p, (uint64_t)i + 1);
      *p++ = ' ';
      p += put_u64(p, (uint64_t)A->col_idx[k] + 1);
      *p++ = ' ';
      /* 17 (f64) / 9 (f32) significant digits identify a binary value uniquely. */
      const double v = zsi_value_get(A->type, A->values, k);
      p += snprintf(p, 32, A->type == ZS_F64 ? "%.17g" : "%.9g", v);
      *p++ = '\n';
      w.len = (size_t)(p - buf);
    }
  }
  flush_buf(&w);
  int closed;
  errno = 0;
  if (w.gz)
    closed = gzclose(w.gz) == Z_OK;
  else
    closed = fclose(w.f) == 0;
  if (!closed && !w.failed) w.failed = errno ? errno : EIO;
  if (w.failed) {
    s = zsi_error(ZS_ERR_IO, "%s: writing the output failed: %s", path, strerror(w.failed));
    zsi_output_abort(&out);
  } else {
    s = zsi_output_commit(&out);
  }
  free(buf);
  return s;
}
