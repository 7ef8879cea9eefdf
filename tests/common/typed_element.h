/* typed_element.h — test helper: one element of a host array of f64 or f32 values (a vector or a
 * matrix's values), read as a double, so that a check is written once for both types. */
#ifndef ZS_TEST_TYPED_ELEMENT_H
#define ZS_TEST_TYPED_ELEMENT_H

#include <stdint.h>

#include "zsparse.h"

/* Element i of a host vector of type t, as a double. */
static inline double zs_test_element(const void *v, zs_type t, int64_t i) {
  return t == ZS_F64 ? ((const double *)v)[i] : (double)((const float *)v)[i];
}

#endif
