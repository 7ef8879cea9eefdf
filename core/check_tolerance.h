/* check_tolerance.h — the error bound a computed SpMV output is checked against: one definition
 * for `zsparse spmv --check` (and demo) and the conformance tests (docs/cli.md, "spmv").
 * Header-only; not part of the library's ABI. */
#ifndef ZS_CHECK_TOLERANCE_H
#define ZS_CHECK_TOLERANCE_H

#include <float.h>
#include <math.h>
#include <stdint.h>

#include "zsparse.h"

/* Relative part, for rows of at most `len` terms: summing n terms in any order errs by at most
 * ~n eps of sum |terms|; rounding errors of random sign grow like sqrt(n), so beyond 1024 terms
 * the worst case is too loose to catch anything and the cap keeps the check meaningful. The +2
 * covers alpha, beta and the final rounding; the factor 16 any blocking or FMA of the kernels. */
static inline double zsi_check_tolerance(zs_type t, int64_t len) {
  const double eps = t == ZS_F32 ? (double)FLT_EPSILON : DBL_EPSILON;
  return 16.0 * eps * (double)(len + 2 < 1024 ? len + 2 : 1024);
}

/* Absolute floor for an output of `len` terms: near underflow a product loses up to half a
 * subnormal step, or everything below the smallest normal value where a kernel flushes
 * subnormals to zero (GPUs, fast-math CPUs), whatever its relative size. Each of the len
 * products (scaled by alpha), beta * y and the final rounding may do so once. */
static inline double zsi_check_floor(zs_type t, int64_t len, double alpha) {
  const double tiny = t == ZS_F32 ? (double)FLT_MIN : DBL_MIN;
  const double a = fabs(alpha) > 1.0 ? fabs(alpha) : 1.0;
  return ((double)len * a + 3.0) * tiny;
}

/* The error allowed for one output: |y_i - exact_i| <= tolerance * scale_i + floor_i, where
 * scale_i = |alpha| sum_j |a_ij x_j| + |beta y_i|. */
static inline double zsi_check_allowed(double tolerance, double scale, double floor) {
  return tolerance * scale + floor;
}

/* The same test as a relative error, for reports that quote one tolerance:
 * err / (scale + floor / tolerance) <= tolerance exactly when err <= zsi_check_allowed(). A NaN
 * or infinite output is an infinite error. */
static inline double zsi_check_rel_error(double err, double tolerance, double scale, double floor) {
  if (!(err <= INFINITY) || isinf(err)) return INFINITY;
  const double denom = scale + floor / tolerance;
  return denom > 0 ? err / denom : (err == 0 ? 0.0 : INFINITY);
}

#endif /* ZS_CHECK_TOLERANCE_H */
