/* mtx_write.c — Matrix Market writer: coordinate real general, values that read back bit for bit,
 * gzip for ".gz" paths, written to PATH.tmp and renamed so a failure never leaves a half file. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/zs_internal.h"

#define MTXW_BUF ((size_t)1 << 20)

typedef struct mtx_writer {
  const char *path, *tmp;
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
  size_t plen = strlen(path);
  char *tmp = malloc(plen + 5);
  char *buf = malloc(MTXW_BUF);
  if (!tmp || !buf) {
    free(tmp), free(buf);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "%s: no memory for the write buffer", path);
  }
  memcpy(tmp, path, plen);
  memcpy(tmp + plen, ".tmp", 5);
  mtx_writer w = {.path = path, .tmp = tmp, .buf = buf};
  errno = 0;
  if (ends_with(path, ".gz")) {
    w.gz = gzopen(tmp, "wb6");
    if (w.gz) gzbuffer(w.gz, 1u << 20);
  } else {
    w.f = fopen(tmp, "wb");
  }
  if (!w.gz && !w.f) {
    zs_status s = zsi_error(ZS_ERR_IO, "%s: cannot create %s: %s", path, tmp,
                            errno ? strerror(errno) : "out of memory");
    free(tmp), free(buf);
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
      if (A->type == ZS_F64)
        p += snprintf(p, 32, "%.17g", ((const double *)A->values)[k]);
      else
        p += snprintf(p, 32, "%.9g", (double)((const float *)A->values)[k]);
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
  zs_status s = ZS_OK;
  if (w.failed) {
    s = zsi_error(ZS_ERR_IO, "%s: writing %s failed: %s", path, tmp, strerror(w.failed));
    remove(tmp);
  } else if (rename(tmp, path) != 0) {
    s = zsi_error(ZS_ERR_IO, "%s: cannot rename %s into place: %s", path, tmp, strerror(errno));
    remove(tmp);
  }
  free(tmp), free(buf);
  return s;
}
