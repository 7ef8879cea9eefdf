/* same_file.h — test helper for golden files: an encoded matrix saved today gives the frozen
 * file's bytes. */
#ifndef ZS_TEST_SAME_FILE_H
#define ZS_TEST_SAME_FILE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/zs_internal.h"

/* The whole file in *out (caller frees; set even when the read falls short); its size, or -1. */
static inline long zs_test_file_bytes(const char *path, unsigned char **out) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  const long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  *out = malloc((size_t)n + 1);
  const size_t got = fread(*out, 1, (size_t)n, f);
  fclose(f);
  return (long)got == n ? n : -1;
}

/* 1 when E, saved to "$TMPDIR/<stem>-<pid>-<index>.zsm" (removed afterwards), has the bytes of
 * the file `frozen`; 0 otherwise, also when the save fails (reported on stderr). A format's golden
 * file freezes the format's arrays: E is saved without the encoder options it keeps (the
 * container's record of them is frozen by tests/golden/zsm). */
static inline int zs_test_saves_as(const zs_encoded *E, const char *frozen, const char *stem,
                                   size_t index) {
  char tmp[4096];
  const char *td = getenv("TMPDIR");
  snprintf(tmp, sizeof tmp, "%s/%s-%d-%zu.zsm", td && *td ? td : "/tmp", stem, (int)getpid(),
           index);
  zs_encoded *plain = malloc(sizeof *plain);
  if (!plain) return 0;
  *plain = *E; /* shares E's arrays: freed with free(), not zs_encoded_destroy */
  plain->options = NULL;
  const zs_status s = zs_encoded_save(plain, tmp);
  free(plain);
  if (s != ZS_OK)
    fprintf(stderr, "zs_encoded_save(%s) returned %s (%s)\n", tmp, zs_status_name(s),
            zs_last_error());
  unsigned char *a = NULL, *b = NULL;
  const long na = zs_test_file_bytes(frozen, &a), nb = zs_test_file_bytes(tmp, &b);
  const int same = na >= 0 && na == nb && memcmp(a, b, (size_t)na) == 0;
  remove(tmp);
  free(a), free(b);
  return same;
}

#endif
