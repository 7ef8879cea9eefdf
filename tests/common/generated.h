/* generated.h — test helper: the matrix a gen: spec describes, or a reported failure. A matrix
 * the test needs but cannot make is the test's failure, never a silent skip. */
#ifndef ZS_TEST_GENERATED_H
#define ZS_TEST_GENERATED_H

#include <stdio.h>
#include <stdlib.h>

#include "tests/common/check.h"
#include "zsparse.h"

/* The matrix of `spec` in type t (the caller destroys it); NULL when it cannot be made, after a
 * line on stderr (the spec, the status and the library's message) and one more in
 * check_failures. */
static inline zs_matrix *zs_test_generate(const char *spec, zs_type t) {
  zs_matrix *A = NULL;
  const zs_status s = zs_matrix_generate(&A, spec, t, 0);
  if (s != ZS_OK) {
    fprintf(stderr, "generate '%s' failed: %s (%s)\n", spec, zs_status_name(s), zs_last_error());
    check_failures++;
    return NULL;
  }
  return A;
}

/* The same for a test that cannot go on without the matrix: reported, then exit(1). */
static inline zs_matrix *zs_test_generate_or_exit(const char *spec, zs_type t) {
  zs_matrix *A = zs_test_generate(spec, t);
  if (!A) exit(1);
  return A;
}

#endif
