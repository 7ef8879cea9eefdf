/* cli_util.c — small helpers for the zsparse tool: file kind, timing, test-vector RNG, median. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

int zs_cli_ends_with(const char *path, const char *suffix) {
  size_t n = strlen(path), k = strlen(suffix);
  return n >= k && strcmp(path + n - k, suffix) == 0;
}

int zs_cli_is_zsm(const char *path) {
  /* gen:SPEC is a generator's spec, whatever it ends with (zs_cli_read_matrix). A .zsm name goes
   * to the container loader even when damaged, so its message is the one the user sees; other
   * names are containers when they begin with the magic. Only a regular file is peeked at:
   * reading a pipe would consume what the Matrix Market reader needs (a pipe holding a container
   * is named as such by that reader). */
  if (strncmp(path, "gen:", 4) == 0) return 0;
  if (zs_cli_ends_with(path, ".zsm")) return 1;
  struct stat st;
  if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  const int fd = open(path, O_RDONLY | O_NONBLOCK);
  if (fd < 0) return 0;
  char magic[7];
  const ssize_t got = read(fd, magic, sizeof magic);
  close(fd);
  return got == (ssize_t)sizeof magic && memcmp(magic, "ZSPARSE", sizeof magic) == 0;
}

int zs_cli_memory_check(const char *cmd, const char *what, uint64_t bytes) {
  const double gib = (double)(UINT64_C(1) << 30);
  if (bytes <= (UINT64_C(1) << 30)) return 0;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  const uint64_t have = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
  if (have && bytes > have) {
    fprintf(stderr,
            "zsparse %s: out of memory: %s need %.1f GiB, more than this machine's %.1f GiB\n", cmd,
            what, (double)bytes / gib, (double)have / gib);
    return 1;
  }
  fprintf(stderr, "zsparse %s: %s need %.1f GiB of memory\n", cmd, what, (double)bytes / gib);
  return 0;
}

int zs_cli_progress(void) { return isatty(STDERR_FILENO); }

zs_status zs_cli_read_matrix(zs_matrix **A, const char *source, zs_type type) {
  if (strncmp(source, "gen:", 4) == 0)
    return zs_matrix_generate(A, source + 4, type, zs_cli_progress());
  return zs_matrix_read(A, source, type, 0, NULL, zs_cli_progress());
}

zs_status zs_cli_save(const zs_matrix *A, const char *out, int as_zsm, zs_format *format,
                      const char *enc_opts, uint64_t *bytes) {
  *bytes = 0;
  if (!as_zsm) return zs_matrix_write(A, out);
  zs_encoded *E = NULL;
  zs_status s = zs_encode(&E, A, *format, enc_opts);
  if (s == ZS_OK) *format = zs_encoded_format(E); /* what auto chose */
  if (s == ZS_OK) s = zs_encoded_save(E, out);
  if (s == ZS_OK) *bytes = zs_encoded_bytes(E);
  zs_encoded_destroy(&E);
  return s;
}

double zs_cli_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

uint64_t zs_cli_rng_next(zs_cli_rng *r) {
  uint64_t z = (r->state += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

double zs_cli_rng_uniform(zs_cli_rng *r) {
  /* 53 random bits -> [0, 1) -> [-1, 1) */
  return 2.0 * ((double)(zs_cli_rng_next(r) >> 11) * 0x1.0p-53) - 1.0;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double zs_cli_median(double *v, int n) {
  if (n <= 0) return 0.0;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
