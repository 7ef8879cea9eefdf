/* fuzz_auto.c — libFuzzer target for the format chooser's inputs: its option string and its
 * calibration file. The input's bytes up to the first NUL are options (after "backend=cpu,"),
 * the rest is written to a file that the options name as calibration=FILE; the plan is made for
 * a fixed 40 x 40 matrix. Accepted, the plan's constants must be finite and >= 0 and a second
 * plan of the same options must choose the same; refused, the status must come with a message.
 * Options that time products (tune=trial) are skipped: they parse nothing more. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz/fuzz_container.h"
#include "zsparse.h"
#include "zsparse_auto.h"

/* Whether s[0..n) holds `word`. */
static int holds(const uint8_t *s, size_t n, const char *word) {
  const size_t w = strlen(word);
  for (size_t i = 0; i + w <= n; i++)
    if (memcmp(s + i, word, w) == 0) return 1;
  return 0;
}

static void check_constant(void *ctx, const char *name, double value) {
  (void)ctx;
  if (strncmp(name, "device.", 7) == 0 && !(isfinite(value) && value >= 0)) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static zs_matrix *A = NULL;
  if (!A && zs_matrix_generate(&A, "banded:rows=40,width=8,per_row=4,seed=1", ZS_F64, 0) != ZS_OK)
    abort();
  const uint8_t *nul = memchr(data, 0, size);
  const size_t opt_len = nul ? (size_t)(nul - data) : size;
  if (opt_len > 512 || holds(data, opt_len, "trial")) return 0;
  char path[4096];
  const uint8_t *file = nul ? nul + 1 : data + size;
  if (fuzz_temp_file(path, sizeof path, "zs-fuzz-auto", file, (size_t)(data + size - file)) == 0)
    return 0;
  char options[512 + 4200];
  snprintf(options, sizeof options, "backend=cpu,%.*s%scalibration=%s", (int)opt_len,
           (const char *)data, opt_len ? "," : "", path);
  zs_plan *p = NULL, *q = NULL;
  const zs_status s = zs_plan_create(&p, A, options);
  if (s == ZS_OK) {
    zs_plan_stats(p, check_constant, NULL);
    zs_plan_info a, b;
    zs_plan_get_info(p, &a);
    if (zs_plan_create(&q, A, options) != ZS_OK) abort();
    zs_plan_get_info(q, &b);
    if (a.choice != b.choice) abort(); /* deterministic for the same inputs */
  } else if (zs_last_error()[0] == '\0') {
    abort(); /* every refusal explains itself */
  }
  zs_plan_destroy(&p), zs_plan_destroy(&q);
  unlink(path);
  return 0;
}
