/* test_matrices.h — where a test finds the real SuiteSparse matrices (a folder holding
 * MANIFEST.tsv): $ZS_TEST_MATRICES, else the folder the build names (shared/matrices beside
 * the source tree). They are not part of the repository, so a test that needs them exits 77
 * (SKIP) with one line when neither is there; a ZS_TEST_MATRICES naming no such folder is a
 * failure, so that a mistyped path cannot turn a run into skips. */
#ifndef ZS_TEST_MATRICES_H
#define ZS_TEST_MATRICES_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zsparse.h"

static inline int zst_has_manifest(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
  FILE *f = fopen(path, "r");
  if (f) fclose(f);
  return f != NULL;
}

/* The tab-separated fields of a MANIFEST.tsv line, split in place into fields[] (at most 12): how
 * many there are. Its columns: file, name, source_repo, source_path, source_commit, rows, cols,
 * nnz_stored, symmetry, field, kind, bytes; the first line names them. */
static inline int zst_manifest_fields(char *line, char *fields[12]) {
  int n = 0;
  for (char *p = strtok(line, "\t\n"); p && n < 12; p = strtok(NULL, "\t\n")) fields[n++] = p;
  return n;
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

/* Each matrix file of `dir` (.mtx or .mtx.gz), read in f64 and then in f32, handed to `use` with
 * its file name; `use` destroys it. Complex files, which zs_matrix_read refuses as unsupported,
 * are passed over. Returns how many matrices were handed over, or -1 (with a line) when `dir`
 * cannot be opened or another file cannot be read (after walking the rest). */
static inline int zst_each_matrix(const char *dir, void (*use)(const char *name, zs_matrix *A)) {
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "cannot open %s\n", dir);
    return -1;
  }
  int n = 0, unread = 0;
  for (struct dirent *e; (e = readdir(d));) {
    const char *name = e->d_name;
    const size_t len = strlen(name);
    if (!(len > 4 && !strcmp(name + len - 4, ".mtx")) &&
        !(len > 7 && !strcmp(name + len - 7, ".mtx.gz")))
      continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    for (int ti = 0; ti < 2; ti++) {
      zs_matrix *A = NULL;
      const zs_status s = zs_matrix_read(&A, path, ti ? ZS_F32 : ZS_F64, 0, NULL, 0);
      if (s == ZS_ERR_UNSUPPORTED) continue; /* complex */
      if (s != ZS_OK) {
        fprintf(stderr, "%s\n", zs_last_error());
        unread++;
        continue;
      }
      use(name, A);
      n++;
    }
  }
  closedir(d);
  return unread ? -1 : n;
}

#endif
