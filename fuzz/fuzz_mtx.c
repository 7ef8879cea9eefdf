/* fuzz_mtx.c — libFuzzer target for the Matrix Market reader and writer: the input bytes become
 * a file (plain or, when they start with the gzip magic, gzip) and are read as f64 and as f32;
 * what is accepted is written back (plain and gzip, through the safe output) and must read back
 * bit for bit. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "fuzz/fuzz_matrix.h"
#include "zsparse.h"

/* Valid files may declare sizes whose CSR needs gigabytes (rows up to 2^31-1): that is memory,
 * not a bug, so such inputs are skipped. The size line is the first line that is neither blank
 * nor a comment (or the banner), after the leading white space the reader skips too. */
static int declares_huge_size(const uint8_t *data, size_t size) {
  size_t p = 0;
  while (p < size) {
    size_t e = p;
    while (e < size && data[e] != '\n') e++;
    size_t b = p;
    while (b < e && strchr(" \t\r\f\v", data[b]) && data[b]) b++;
    if (b < e && data[b] != '%') {
      char line[128];
      size_t n = e - b < sizeof line - 1 ? e - b : sizeof line - 1;
      memcpy(line, data + b, n);
      line[n] = '\0';
      double a = 0, c = 0;
      const int got = sscanf(line, "%lf %lf", &a, &c);
      return got >= 1 && (a > 1e5 || c > 1e5 || a * c > 1e7);
    }
    p = e + 1;
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char path[64];
  if (!path[0]) {
    snprintf(path, sizeof path, "/tmp/zs-fuzz-mtx-%ld.mtx", (long)getpid());
  }
  if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
    /* gzip input: apply the same check to the start of the decompressed text. */
    uint8_t head[4096];
    z_stream z = {0};
    if (inflateInit2(&z, 15 + 16) != Z_OK) return 0;
    z.next_in = (uint8_t *)data, z.avail_in = (uInt)size;
    z.next_out = head, z.avail_out = sizeof head;
    inflate(&z, Z_NO_FLUSH);
    size_t got = sizeof head - z.avail_out;
    inflateEnd(&z);
    if (declares_huge_size(head, got)) return 0;
  } else if (declares_huge_size(data, size)) {
    return 0;
  }
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  fwrite(data, 1, size, f);
  fclose(f);
  const zs_type types[2] = {ZS_F64, ZS_F32};
  for (int t = 0; t < 2; t++) {
    zs_matrix *A = NULL;
    zs_mm_info info;
    zs_status s = zs_matrix_read(&A, path, types[t], t ? ZS_MATRIX_ALLOW_NONFINITE : 0, &info, 0);
    if (s == ZS_OK) {
      /* Touch the result so a bad structure shows under the sanitizers. */
      const int64_t *rp;
      const int32_t *ci;
      zs_matrix_csr(A, &rp, &ci, NULL);
      int64_t sum = 0;
      for (int64_t i = 0; i < zs_matrix_rows(A); i++)
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) sum += ci[k];
      if (sum < 0) abort();
      fuzz_write_read_back(A, (int)(size & 1), t ? ZS_MATRIX_ALLOW_NONFINITE : 0);
      zs_matrix_destroy(&A);
    } else if (zs_last_error()[0] == '\0') {
      abort(); /* every failure must explain itself */
    }
  }
  unlink(path);
  return 0;
}
