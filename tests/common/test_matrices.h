/* test_matrices.h — where a test finds the real SuiteSparse matrices (a folder holding
 * MANIFEST.tsv): $ZS_TEST_MATRICES, else the folder the build names (shared/matrices beside
 * the source tree). They are not part of the repository, so a test that needs them exits 77
 * (SKIP) with one line when neither is there; a ZS_TEST_MATRICES naming no such folder is a
 * failure, so that a mistyped path cannot turn a run into skips. */
#ifndef ZS_TEST_MATRICES_H
#define ZS_TEST_MATRICES_H

#include <stdio.h>
#include <stdlib.h>

static inline int zst_has_manifest(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
  FILE *f = fopen(path, "r");
  if (f) fclose(f);
  return f != NULL;
}

/* The folder to read, or no return: exit 77 when there is none, 1 when ZS_TEST_MATRICES is
 * wrong. `fallback` is the folder passed by meson (may be NULL). */
static inline const char *zst_matrices_dir(const char *fallback) {
  const char *env = getenv("ZS_TEST_MATRICES");
  if (env && *env) {
    if (zst_has_manifest(env)) return env;
    printf("FAIL ZS_TEST_MATRICES=%s: no MANIFEST.tsv there\n", env);
    fflush(stdout);
    exit(1);
  }
  if (fallback && zst_has_manifest(fallback)) return fallback;
  printf(
      "SKIP no test matrices: set ZS_TEST_MATRICES to a folder with MANIFEST.tsv "
      "(none at %s)\n",
      fallback ? fallback : "(no default)");
  fflush(stdout);
  exit(77);
}

#endif
