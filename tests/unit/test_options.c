/* test_options.c — the "key=value,..." option parser used by encoders and backends. */
#include <string.h>

#include "core/zs_internal.h"
#include "tests/common/check.h"
#include "zsparse_vans.h"

int main(void) {
  int64_t v = 0;
  int found = 0;
  CHECK_STATUS(zsi_option_int("a=3,bb=16,c=-2", "bb", 0, 100, &v, &found), ZS_OK);
  CHECK(found && v == 16);
  CHECK_STATUS(zsi_option_int("a=3,bb=16", "b", 0, 100, &v, &found), ZS_OK);
  CHECK(!found);
  /* Decimal only: a leading zero is not octal, 0x is not hex. */
  CHECK_STATUS(zsi_option_int("n=010", "n", 0, 100, &v, &found), ZS_OK);
  CHECK(found && v == 10);
  CHECK_STATUS(zsi_option_int("n=08", "n", 0, 100, &v, &found), ZS_OK);
  CHECK(v == 8);
  CHECK_STATUS(zsi_option_int("n=0x10", "n", 0, 100, &v, &found), ZS_ERR_INVALID_ARGUMENT);
  CHECK(strstr(zs_last_error(), "'n'") &&
        strstr(zs_last_error(), "not an integer (decimal digits only)"));
  CHECK_STATUS(zsi_option_int("n= 5", "n", 0, 100, &v, &found), ZS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(zsi_option_int("n=+5", "n", 0, 100, &v, &found), ZS_OK);
  CHECK(v == 5);
  CHECK_STATUS(zsi_option_int("n=99999999999999999999", "n", 0, 100, &v, &found),
               ZS_ERR_INVALID_ARGUMENT);
  CHECK(strstr(zs_last_error(), "outside") != NULL);
  /* A repeated key is refused, naming the key, whichever value would have won. */
  CHECK_STATUS(zsi_option_int("n=1,m=2,n=3", "n", 0, 100, &v, &found), ZS_ERR_INVALID_ARGUMENT);
  CHECK(strstr(zs_last_error(), "'n'") != NULL);
  CHECK_STATUS(zsi_option_int("n=1,m=2,n=3", "m", 0, 100, &v, &found), ZS_OK);
  CHECK(v == 2);
  double d = 0;
  CHECK_STATUS(zsi_option_double("p=0.25,q=1e-3", "p", &d, &found), ZS_OK);
  CHECK(found && d == 0.25);
  CHECK_STATUS(zsi_option_double("p=0.25,q=-1.5E+2", "q", &d, &found), ZS_OK);
  CHECK(d == -150.0);
  CHECK_STATUS(zsi_option_double("p=.5", "p", &d, &found), ZS_OK);
  CHECK(d == 0.5);
  static const char *const bad_doubles[] = {
      "p=0x1p-2", "p=inf", "p=nan", "p=1e999", "p=", "p=1e", "p=.", "p=1-2", "p=e5", NULL};
  for (const char *const *b = bad_doubles; *b; b++) {
    CHECK_STATUS(zsi_option_double(*b, "p", &d, &found), ZS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(zs_last_error(), "'p'") != NULL);
  }
  CHECK_STATUS(zsi_option_int("a=3,c=-2", "c", 0, 100, &v, &found), ZS_ERR_INVALID_ARGUMENT);
  CHECK(strstr(zs_last_error(), "outside") != NULL);
  CHECK_STATUS(zsi_option_int("a=3x", "a", 0, 100, &v, &found), ZS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(zsi_option_int("a=", "a", 0, 100, &v, &found), ZS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(zsi_option_int(NULL, "a", 0, 100, &v, &found), ZS_OK);
  CHECK(!found);
  char buf[8];
  CHECK_STATUS(zsi_option_str("mode=atomic,x=1", "mode", buf, sizeof buf, &found), ZS_OK);
  CHECK(found && strcmp(buf, "atomic") == 0);
  CHECK_STATUS(zsi_option_str("mode=verylongvalue", "mode", buf, sizeof buf, &found),
               ZS_ERR_INVALID_ARGUMENT);
  static const char *const known[] = {"a", "mode", NULL};
  CHECK_STATUS(zsi_option_check("a=1,mode=x", known, "t"), ZS_OK);
  CHECK_STATUS(zsi_option_check("a=1,mod=x", known, "t"), ZS_ERR_INVALID_ARGUMENT);
  CHECK(strstr(zs_last_error(), "'mod'") != NULL);
  CHECK_STATUS(zsi_option_check("", known, "t"), ZS_OK);
  CHECK_STATUS(zsi_option_check("a=1,mode=x,a=1", known, "t"), ZS_ERR_INVALID_ARGUMENT);
  CHECK(strstr(zs_last_error(), "t: option 'a' is given more than once") != NULL);
  CHECK_STATUS(zsi_option_check("mode,mode=x", known, "t"), ZS_ERR_INVALID_ARGUMENT);
  CHECK(strstr(zs_last_error(), "'mode'") != NULL);
  /* The same rule through the public entry points that take option strings. */
  zs_matrix *A = NULL;
  CHECK_STATUS(zs_matrix_generate(&A, "stencil2d:n=010", ZS_F64, 0), ZS_OK);
  CHECK(A && zs_matrix_rows(A) == 100);
  zs_matrix *B = NULL;
  CHECK_STATUS(zs_matrix_generate(&B, "stencil2d:n=0x10", ZS_F64, 0), ZS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(zs_matrix_generate(&B, "stencil2d:n=8,n=9", ZS_F64, 0), ZS_ERR_INVALID_ARGUMENT);
  CHECK(strstr(zs_last_error(), "'n'") != NULL);
  CHECK_STATUS(zs_matrix_generate(&B, "erdos_renyi:n=64,p=0x1p-3", ZS_F64, 0),
               ZS_ERR_INVALID_ARGUMENT);
  CHECK(B == NULL);
  zs_encoded *E = NULL;
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_CSB, "beta=3,beta=4"), ZS_ERR_INVALID_ARGUMENT);
  CHECK(E == NULL && strstr(zs_last_error(), "'beta'") != NULL);
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_CSB, "beta=04"), ZS_OK);
  zs_encoded_destroy(&E);
  zs_vans *V = NULL;
  CHECK_STATUS(zs_vans_generate(&V, "n=16,k=1,entropy=0x1p1", 0), ZS_ERR_PARSE);
  CHECK_STATUS(zs_vans_generate(&V, "n=16,k=1,k=2", 0), ZS_ERR_INVALID_ARGUMENT);
  CHECK(V == NULL);
  zs_matrix_destroy(&A);
  CHECK_DONE();
}
