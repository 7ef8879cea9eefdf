/* test_mtx_malformed.c — every malformed Matrix Market input is refused with the right status
 * and a message that starts with "<path>:<line>: ". */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "mtx_test_util.h"

#define BANNER "%%MatrixMarket matrix coordinate real general\n"

typedef struct bad_case {
  const char *name;
  const char *text;
  size_t len; /* 0: strlen(text) */
  zs_status status;
  int line;
  const char *word; /* expected somewhere in the message, or NULL */
} bad_case;

static const bad_case cases[] = {
    {"empty", "", 0, ZS_ERR_PARSE, 1, "empty"},
    {"blank-first-line", "\n" BANNER "1 1 0\n", 0, ZS_ERR_PARSE, 1, "banner"},
    {"banner-typo", "%%MatrixMarkt matrix coordinate real general\n1 1 0\n", 0, ZS_ERR_PARSE, 1,
     "banner"},
    {"comment-before-banner", "% hi\n" BANNER "1 1 0\n", 0, ZS_ERR_PARSE, 1, "banner"},
    {"banner-short", "%%MatrixMarket matrix coordinate real\n1 1 0\n", 0, ZS_ERR_PARSE, 1,
     "fields"},
    {"banner-extra", "%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", 0,
     ZS_ERR_PARSE, 1, "extra"},
    {"object", "%%MatrixMarket vector coordinate real general\n1 1 0\n", 0, ZS_ERR_PARSE, 1,
     "vector"},
    {"format", "%%MatrixMarket matrix coordinat real general\n1 1 0\n", 0, ZS_ERR_PARSE, 1,
     "coordinat"},
    {"field", "%%MatrixMarket matrix coordinate reel general\n1 1 0\n", 0, ZS_ERR_PARSE, 1, "reel"},
    {"symmetry", "%%MatrixMarket matrix coordinate real symmetrc\n1 1 0\n", 0, ZS_ERR_PARSE, 1,
     "symmetrc"},
    {"complex", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 2\n", 0,
     ZS_ERR_UNSUPPORTED, 1, "complex matrices are not supported"},
    {"hermitian", "%%MatrixMarket matrix coordinate complex hermitian\n1 1 0\n", 0,
     ZS_ERR_UNSUPPORTED, 1, "complex"},
    {"array-pattern", "%%MatrixMarket matrix array pattern general\n1 1\n", 0, ZS_ERR_PARSE, 1,
     "pattern"},
    {"no-size-line", BANNER "% only comments\n\n", 0, ZS_ERR_PARSE, 4, "size line"},
    {"size-missing-nnz", BANNER "% c\n\n2 2\n", 0, ZS_ERR_PARSE, 4, "entry count"},
    {"size-junk", BANNER "2 2 1 9\n1 1 1\n", 0, ZS_ERR_PARSE, 2, "9"},
    {"size-garbage", BANNER "2 x 1\n1 1 1\n", 0, ZS_ERR_PARSE, 2, "x"},
    {"size-negative", BANNER "-2 2 1\n1 1 1\n", 0, ZS_ERR_PARSE, 2, "negative"},
    {"rows-overflow", BANNER "% c\n2147483648 2 1\n1 1 1\n", 0, ZS_ERR_OVERFLOW, 3, "2^31-1"},
    {"cols-overflow", BANNER "2 4294967296 1\n1 1 1\n", 0, ZS_ERR_OVERFLOW, 2, "2^31-1"},
    {"size-token-overflow", BANNER "99999999999999999999 2 1\n1 1 1\n", 0, ZS_ERR_OVERFLOW, 2,
     "64-bit"},
    {"nnz-over-cells", BANNER "2 2 5\n1 1 1\n", 0, ZS_ERR_OVERFLOW, 2, "rows x cols"},
    {"sym-not-square", "%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n1 1 1\n", 0,
     ZS_ERR_PARSE, 2, "square"},
    {"too-few", BANNER "3 3 3\n1 1 1\n2 2 1\n", 0, ZS_ERR_PARSE, 5, "2 of the 3"},
    {"too-few-empty", BANNER "3 3 1\n", 0, ZS_ERR_PARSE, 3, "0 of the 1"},
    {"too-many", BANNER "2 2 1\n1 1 1\n\n2 2 1\n", 0, ZS_ERR_PARSE, 5, "more entries"},
    {"row-zero", BANNER "2 2 1\n0 1 1\n", 0, ZS_ERR_OUT_OF_RANGE, 3, "row index 0"},
    {"col-zero", BANNER "2 2 2\n1 1 1\n1 0 1\n", 0, ZS_ERR_OUT_OF_RANGE, 4, "column index 0"},
    {"row-too-big", BANNER "2 2 1\n3 1 1\n", 0, ZS_ERR_OUT_OF_RANGE, 3, "outside 1..2"},
    {"col-too-big", BANNER "2 5 1\n2 6 1\n", 0, ZS_ERR_OUT_OF_RANGE, 3, "outside 1..5"},
    {"index-overflow", BANNER "2 2 1\n1 99999999999999999999 1\n", 0, ZS_ERR_OVERFLOW, 3, "64-bit"},
    {"index-negative", BANNER "2 2 1\n-1 1 1\n", 0, ZS_ERR_PARSE, 3, "negative"},
    {"garbage-value", BANNER "2 2 1\n1 1 abc\n", 0, ZS_ERR_PARSE, 3, "abc"},
    {"garbage-index", BANNER "2 2 1\n1x 1 1\n", 0, ZS_ERR_PARSE, 3, "1x"},
    {"garbage-after-value", BANNER "2 2 1\n1 1 1.5junk\n", 0, ZS_ERR_PARSE, 3, "1.5junk"},
    {"trailing-token", BANNER "2 2 1\n1 1 1.5 2.5\n", 0, ZS_ERR_PARSE, 3, "2.5"},
    {"missing-value", BANNER "2 2 2\n1 1 1\n2 2\n", 0, ZS_ERR_PARSE, 4, "missing value"},
    {"missing-col", BANNER "2 2 1\n1\n", 0, ZS_ERR_PARSE, 3, "column index"},
    {"truncated-mid-line", BANNER "3 3 3\n1 1 1.5\n2 2 2.5\n3 3", 0, ZS_ERR_PARSE, 5,
     "missing value"},
    {"nan", BANNER "2 2 2\n1 1 1\n2 2 nan\n", 0, ZS_ERR_OUT_OF_RANGE, 4, "NaN"},
    {"inf", BANNER "2 2 1\n2 2 -Infinity\n", 0, ZS_ERR_OUT_OF_RANGE, 3, "infinite"},
    {"value-overflow", BANNER "2 2 1\n2 2 1e999\n", 0, ZS_ERR_OUT_OF_RANGE, 3, "1e999"},
    {"hex-float", BANNER "2 2 1\n1 1 0x1p3\n", 0, ZS_ERR_PARSE, 3, "hexadecimal"},
    {"hex-float-f32", BANNER "2 2 1\n1 1 -0X1.8P+1\n", 0, ZS_ERR_PARSE, 3, "hexadecimal"},
    {"sym-both-triangles",
     "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n2 1 1.5\n\n% c\n3 3 1\n1 2 1.5\n", 0,
     ZS_ERR_PARSE, 7, "mirrors (2, 1) on line 3"},
    {"skew-both-triangles",
     "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 3 -1\n3 2 1\n", 0,
     ZS_ERR_PARSE, 4, "one triangle"},
    {"zsm-magic", "ZSPARSE\0\1\0\0\0", 13, ZS_ERR_PARSE, 1, ".zsm container"},
    {"dup-overflow", BANNER "2 2 2\n1 2 1.5e308\n1 2 1.5e308\n", 0, ZS_ERR_OUT_OF_RANGE, 0,
     "infinite"},
    {"skew-diagonal", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 1\n",
     0, ZS_ERR_PARSE, 4, "diagonal"},
    {"pattern-skew", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n2 2 0\n", 0,
     ZS_ERR_PARSE, 1, "pattern"},
    {"pattern-with-value", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 3\n", 0,
     ZS_ERR_PARSE, 3, "3"},
    {"integer-fraction", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n", 0,
     ZS_ERR_PARSE, 3, "1.5"},
    {"integer-overflow",
     "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 -99999999999999999999\n", 0,
     ZS_ERR_OVERFLOW, 3, "64 bits"},
    {"nul-in-entry", BANNER "2 2 1\n1 1\0 1\n", sizeof(BANNER "2 2 1\n1 1\0 1\n") - 1, ZS_ERR_PARSE,
     3, "NUL"},
    {"nul-in-comment", BANNER "% a\0b\n2 2 0\n", sizeof(BANNER "% a\0b\n2 2 0\n") - 1, ZS_ERR_PARSE,
     2, "NUL"},
    {"nul-in-banner", "%%MatrixMarket matrix\0 coordinate real general\n1 1 0\n",
     sizeof("%%MatrixMarket matrix\0 coordinate real general\n1 1 0\n") - 1, ZS_ERR_PARSE, 1,
     "NUL"},
    {"array-too-few", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", 0, ZS_ERR_PARSE,
     6, "3 of the 4"},
    {"array-too-many", "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n4\n", 0,
     ZS_ERR_PARSE, 6, "more entries"},
    {"array-two-per-line", "%%MatrixMarket matrix array real general\n2 1\n1 2\n", 0, ZS_ERR_PARSE,
     3, "2"},
    {"array-size-junk", "%%MatrixMarket matrix array real general\n2 1 2\n1\n2\n", 0, ZS_ERR_PARSE,
     2, "2"},
};

/* Read path, expect status s and a message starting "<path>:<line>: " containing word. */
static void expect_fail(const char *name, const char *path, zs_status s, int line,
                        const char *word) {
  zs_matrix *A = (zs_matrix *)(uintptr_t)0x1; /* must stay untouched on failure */
  zs_mm_info info;
  zs_status got = zs_matrix_read(&A, path, ZS_F64, 0, &info, 0);
  const char *msg = zs_last_error();
  CHECK(got == s, "%s: status %s, expected %s (%s)", name, zs_status_name(got), zs_status_name(s),
        msg);
  CHECK(A == (zs_matrix *)(uintptr_t)0x1, "%s: out was changed on failure", name);
  char prefix[4200];
  if (line > 0)
    snprintf(prefix, sizeof prefix, "%s:%d: ", path, line);
  else
    snprintf(prefix, sizeof prefix, "%s", path);
  CHECK(strncmp(msg, prefix, strlen(prefix)) == 0, "%s: message \"%s\" does not start with \"%s\"",
        name, msg, prefix);
  CHECK(!word || strstr(msg, word), "%s: message \"%s\" lacks \"%s\"", name, msg, word);
  if (got == ZS_OK) zs_matrix_destroy(&A);
}

static void write_gz(const char *path, const char *text) {
  gzFile g = gzopen(path, "wb9");
  if (!g || gzwrite(g, text, (unsigned)strlen(text)) != (int)strlen(text) || gzclose(g) != Z_OK) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
}

static unsigned char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  fseek(f, 0, SEEK_END);
  *n = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc(*n);
  if (fread(b, 1, *n, f) != *n) exit(1);
  fclose(f);
  return b;
}

/* Newlines in what zlib can inflate from a truncated gzip member: the reader must stop at the
 * line after them. Computed here with inflate directly, independently of gzread. */
static int inflatable_lines(const unsigned char *gz, size_t n) {
  z_stream z = {0};
  if (inflateInit2(&z, 15 + 16) != Z_OK) exit(1);
  unsigned char out[1 << 16];
  int lines = 0;
  z.next_in = (unsigned char *)gz, z.avail_in = (uInt)n;
  for (;;) {
    z.next_out = out, z.avail_out = sizeof out;
    int r = inflate(&z, Z_NO_FLUSH);
    for (size_t k = 0; k < sizeof out - z.avail_out; k++) lines += out[k] == '\n';
    if (r != Z_OK || z.avail_in == 0) break;
  }
  inflateEnd(&z);
  return lines;
}

int main(void) {
  const char *dir = tmpdir_make();
  char path[4200];
  int n = 0;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++, n++) {
    const bad_case *b = &cases[c];
    snprintf(path, sizeof path, "%s/%s.mtx", dir, b->name);
    write_bytes(path, b->text, b->len ? b->len : strlen(b->text));
    expect_fail(b->name, path, b->status, b->line, b->word);
  }

  /* Non-finite values are accepted when asked for. */
  snprintf(path, sizeof path, "%s/nan.mtx", dir);
  zs_matrix *A = NULL;
  zs_status s = zs_matrix_read(&A, path, ZS_F64, ZS_MATRIX_ALLOW_NONFINITE, NULL, 0);
  CHECK(s == ZS_OK, "nan with ZS_MATRIX_ALLOW_NONFINITE: %s", zs_last_error());
  if (s == ZS_OK) {
    const void *v;
    zs_matrix_csr(A, NULL, NULL, &v);
    CHECK(zs_matrix_nnz(A) == 2 && isnan(((const double *)v)[1]), "nan not kept");
    zs_matrix_destroy(&A);
  }

  /* A file that does not exist. */
  snprintf(path, sizeof path, "%s/missing.mtx", dir);
  expect_fail("missing", path, ZS_ERR_IO, 0, "cannot open");
  n++;

  /* Truncated gzip: inside the trailer (all data inflates), in the middle, in the header. */
  char big[1 << 16];
  size_t len = (size_t)snprintf(big, sizeof big, "%s2000 2000 1500\n", BANNER);
  for (int k = 0; k < 1500; k++)
    len += (size_t)snprintf(big + len, sizeof big - len, "%d %d %.17g\n", k + 1, (k * 7) % 2000 + 1,
                            1.0 / (k + 3));
  snprintf(path, sizeof path, "%s/full.mtx.gz", dir);
  write_gz(path, big);
  s = zs_matrix_read(&A, path, ZS_F64, 0, NULL, 0);
  CHECK(s == ZS_OK && zs_matrix_nnz(A) == 1500, "intact gz: %s", zs_last_error());
  zs_matrix_destroy(&A);
  size_t gzlen;
  unsigned char *gz = slurp(path, &gzlen);
  const size_t cut[3] = {gzlen - 4, gzlen / 2, 5};
  for (int k = 0; k < 3; k++, n++) {
    snprintf(path, sizeof path, "%s/truncated%d.mtx.gz", dir, k);
    write_bytes(path, gz, cut[k]);
    int line = inflatable_lines(gz, cut[k]) + 1;
    CHECK(k != 0 || line == 1502 + 1, "the trailer cut should leave every line: %d", line);
    expect_fail("truncated gz", path, ZS_ERR_IO, line, "gzip");
  }
  /* Corrupt deflate data in the middle. */
  for (size_t k = gzlen / 3; k < gzlen / 3 + 16; k++) gz[k] ^= 0x5a;
  snprintf(path, sizeof path, "%s/corrupt.mtx.gz", dir);
  write_bytes(path, gz, gzlen);
  s = zs_matrix_read(&A, path, ZS_F64, 0, NULL, 0);
  CHECK(s != ZS_OK && strncmp(zs_last_error(), path, strlen(path)) == 0, "corrupt gz: %s %s",
        zs_status_name(s), zs_last_error());
  if (s == ZS_OK) zs_matrix_destroy(&A);
  free(gz);
  n++;

  /* Bytes after the gzip stream are refused (another gzip member is not). */
  snprintf(path, sizeof path, "%s/trailing.mtx.gz", dir);
  write_gz(path, "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2\n");
  FILE *tf = fopen(path, "ab");
  fputs("junk\n", tf);
  fclose(tf);
  expect_fail("gzip trailing data", path, ZS_ERR_IO, 4, "trailing data after the gzip");
  n++;

  /* A directory is not a file. */
  expect_fail("directory", dir, ZS_ERR_IO, 1, "read failed");
  n++;

  tmpdir_remove(dir);
  printf("%d malformed inputs checked, %d failures\n", n, g_failures);
  return g_failures ? 1 : 0;
}
