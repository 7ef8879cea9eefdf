/* header_c.c — zsparse.h and zsparse_backend.h compiled alone as strict C11, then exercised. */
/* The backend header first: it must pull in everything it needs by itself. */
#include "zsparse_backend.h"

/* A second inclusion: the include guards must hold. */
#include "zsparse.h"

#include <stdio.h>
#include <string.h>

static int failures = 0;

static void expect(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "FAIL: %s\n", what);
    failures++;
  }
}

int main(void) {
  /* The version string the library reports must agree with the header's macros, so a program
   * built against one header and run against another library is caught. */
  char want[32];
  snprintf(want, sizeof want, "%d.%d.%d", ZS_VERSION_MAJOR, ZS_VERSION_MINOR, ZS_VERSION_PATCH);
  expect(strcmp(zs_version(), want) == 0, "zs_version() matches ZS_VERSION_* macros");
  expect(ZS_VERSION_NUMBER == ZS_VERSION_MAJOR * 10000 + ZS_VERSION_MINOR * 100 + ZS_VERSION_PATCH,
         "ZS_VERSION_NUMBER");

  /* Stable codes: these numbers are part of the ABI and of .zsm files. */
  expect(ZS_OK == 0 && ZS_ERR_INVALID_ARGUMENT == -1 && ZS_ERR_OUT_OF_RANGE == -12,
         "status codes unchanged");
  expect(ZS_FORMAT_CSR == 1 && ZS_FORMAT_COO == 2 && ZS_FORMAT_VANS == 7, "format ids unchanged");
  expect(strcmp(zs_status_name(ZS_ERR_PARSE), "ZS_ERR_PARSE") == 0, "zs_status_name");
  expect(zs_type_size(ZS_F32) == 4 && zs_type_size(ZS_F64) == 8, "zs_type_size");
  expect(strcmp(zs_type_name(ZS_F32), "f32") == 0, "zs_type_name");

  zs_format f = ZS_FORMAT_COO;
  expect(zs_format_from_name("csr", &f) == ZS_OK && f == ZS_FORMAT_CSR, "zs_format_from_name");
  expect(zs_format_from_name("no-such-format", &f) == ZS_ERR_INVALID_ARGUMENT,
         "zs_format_from_name refuses unknown names");

  /* NULL handles are accepted by destroy functions and set to NULL. */
  zs_matrix *A = NULL;
  zs_matrix_destroy(&A);
  zs_context_destroy(NULL);
  expect(A == NULL, "zs_matrix_destroy(&NULL)");

  /* Backend ABI helpers are header-only; check they find by exact name, not by prefix. */
  const double vals[2] = {1.0, 2.0};
  const zsb_array arrays[2] = {{"values", vals, 2, 8}, {"values2", vals, 1, 8}};
  const zsb_param params[1] = {{"beta", 16}};
  zsb_encoded_view view;
  memset(&view, 0, sizeof view);
  view.format = ZS_FORMAT_CSR;
  view.type = ZS_F64;
  view.n_arrays = 2;
  view.arrays = arrays;
  view.n_params = 1;
  view.params = params;
  expect(zsb_find_array(&view, "values2") == &arrays[1], "zsb_find_array exact match");
  expect(zsb_find_array(&view, "value") == NULL, "zsb_find_array refuses a prefix");
  expect(zsb_find_param(&view, "beta", -1) == 16, "zsb_find_param");
  expect(zsb_find_param(&view, "bet", -1) == -1, "zsb_find_param fallback");
  expect(ZS_BACKEND_ABI_VERSION >= 1, "ZS_BACKEND_ABI_VERSION");

  if (failures) return 1;
  printf("header C11 test: ok (zsparse %s)\n", zs_version());
  return 0;
}
