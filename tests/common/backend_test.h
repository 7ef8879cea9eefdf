/* backend_test.h — helpers for tests that run on one named backend (GPU tests skip with exit 77
 * where it is not usable). */
#ifndef ZS_TEST_BACKEND_TEST_H
#define ZS_TEST_BACKEND_TEST_H

#include <stdio.h>
#include <string.h>

#include "zsparse.h"

/* Whether the context has a backend of that name and can run it here. */
static inline int zs_test_backend_usable(zs_context *ctx, const char *name) {
  for (int i = 0; i < zs_context_backend_count(ctx); i++) {
    zs_backend_info bi;
    if (zs_context_backend_info(ctx, i, &bi) == ZS_OK && strcmp(bi.name, name) == 0)
      return bi.usable;
  }
  return 0;
}

/* A context for a test on backend `name`: 0 with *ctx set; 77 (SKIP, said on stdout) where the
 * backend is not usable here; 1 when no context can be made. */
static inline int zs_test_context_for(const char *name, zs_context **ctx) {
  *ctx = NULL;
  if (zs_context_create(ctx) != ZS_OK) return 1;
  if (zs_test_backend_usable(*ctx, name)) return 0;
  printf("SKIP: backend '%s' is not usable here\n", name);
  zs_context_destroy(ctx);
  return 77;
}

#endif
