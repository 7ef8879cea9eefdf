/* test_dtans_choice.c — the CSR-dtANS default's stream version against both encoded explicitly:
 * version 5 (templates=on) exactly where its blob is at most 3 % larger than versions 2-4's
 * (templates=off), else those, on every generated kind and, with an argument, the shared
 * matrices. The default decides from a lower bound of versions 2-4's size, or their sizing pass,
 * without writing them; this checks that it reaches the choice encoding both would make. */
#include <inttypes.h>
#include <string.h>

#include "core/zs_internal.h"
#include "formats/dtans/dtans.h"
#include "tests/common/blob_parts.h"
#include "tests/common/check.h"
#include "tests/common/same_matrix.h"
#include "tests/common/test_matrices.h"

/* E and F hold the same parameters, and the same bytes in arrays of the same names. */
static int same_blob(const zs_encoded *E, const zs_encoded *F) {
  if (E->n_arrays != F->n_arrays || E->n_params != F->n_params) return 0;
  for (int i = 0; i < E->n_params; i++)
    if (strcmp(E->params[i].name, F->params[i].name) || E->params[i].value != F->params[i].value)
      return 0;
  for (int i = 0; i < E->n_arrays; i++) {
    const zsi_array *a = &E->arrays[i], *b = &F->arrays[i];
    if (strcmp(a->name, b->name) || a->count != b->count || a->elem_size != b->elem_size ||
        memcmp(a->data, b->data, (size_t)(a->count * a->elem_size)))
      return 0;
  }
  return 1;
}

static int cases, fives;

/* The default, templates=on and templates=off of A (and `extra` options on all three): the
 * default is the blob of the one the size rule picks, byte for byte, and decodes to A. */
static void check_choice(const char *label, const zs_matrix *A, const char *extra) {
  char opt_on[128], opt_off[128];
  snprintf(opt_on, sizeof opt_on, "templates=on%s%s", *extra ? "," : "", extra);
  snprintf(opt_off, sizeof opt_off, "templates=off%s%s", *extra ? "," : "", extra);
  zs_encoded *D = NULL, *on = NULL, *off = NULL;
  zs_matrix *B = NULL;
  CHECK_STATUS(zs_encode(&D, A, ZS_FORMAT_DTANS, *extra ? extra : NULL), ZS_OK);
  CHECK_STATUS(zs_encode(&on, A, ZS_FORMAT_DTANS, opt_on), ZS_OK);
  CHECK_STATUS(zs_encode(&off, A, ZS_FORMAT_DTANS, opt_off), ZS_OK);
  if (D && on && off) {
    /* templates=on keeps versions 2-4 where the rows need too many templates */
    const int five = zs_test_param(on, "version") == DTANS_VERSION_TEMPLATES &&
                     100 * zs_test_array_bytes(on) <= 103 * zs_test_array_bytes(off);
    const zs_encoded *want = five ? on : off;
    if (!same_blob(D, want)) {
      fprintf(stderr,
              "%s [%s]: default gave version %" PRId64 ", %" PRIu64 " B; templates=on %" PRIu64
              " B (version %" PRId64 "), templates=off %" PRIu64 " B: want version %" PRId64 "\n",
              label, extra, zs_test_param(D, "version"), zs_test_array_bytes(D),
              zs_test_array_bytes(on), zs_test_param(on, "version"), zs_test_array_bytes(off),
              zs_test_param(want, "version"));
      check_failures++;
    }
    /* the size rule itself */
    CHECK(100 * zs_test_array_bytes(D) <= 103 * zs_test_array_bytes(off));
    CHECK(zs_test_param(off, "version") < DTANS_VERSION_TEMPLATES);
    CHECK_STATUS(zs_decode(&B, D), ZS_OK);
    if (B && !zs_test_same_matrix(A, B)) {
      fprintf(stderr, "%s [%s]: the default's blob decodes to another matrix\n", label, extra);
      check_failures++;
    }
    cases++, fives += five;
  }
  zs_matrix_destroy(&B);
  zs_encoded_destroy(&D), zs_encoded_destroy(&on), zs_encoded_destroy(&off);
}

/* Each kind of the benchmark suite, smaller, in four kinds of values, f64 and f32; then close
 * calls, where version 5 is over 3 % above versions 2-4's lower bound but within 3 % of their
 * blob, so that only their sizing pass decides (found by scanning sizes; with 300 values, the
 * f32 one). */
static void generated(void) {
  static const char *const close_calls[] = {"stencil3d:n=7,points=27,values=set,distinct=64",
                                            "stencil3d:n=20,points=27,values=set,distinct=300",
                                            "stencil3d:n=5,points=7,values=random"};
  for (size_t c = 0; c < sizeof close_calls / sizeof *close_calls; c++)
    for (int ti = 0; ti < 2; ti++) {
      zs_matrix *A = NULL;
      CHECK_STATUS(zs_matrix_generate(&A, close_calls[c], ti ? ZS_F32 : ZS_F64, 0), ZS_OK);
      if (A) check_choice(close_calls[c], A, "");
      zs_matrix_destroy(&A);
    }
  static const char *const kinds[] = {
      "stencil2d:n=200,points=5",
      "stencil2d:n=150,points=9",
      "stencil3d:n=24,points=27",
      "stencil3d:n=30,points=7",
      "erdos_renyi:rows=20000,per_row=16",
      "rmat:scale=14,per_row=16",
      "banded:rows=20000,width=128,per_row=20",
      "banded:rows=60000,width=3,per_row=3",
      "elasticity3d:n=9",
  };
  static const char *const values[] = {",values=random", ",values=set,distinct=64",
                                       ",values=set,distinct=2", ",values=pattern"};
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
    for (size_t v = 0; v < sizeof values / sizeof *values; v++)
      for (int ti = 0; ti < 2; ti++) {
        char spec[160];
        snprintf(spec, sizeof spec, "%s%s,seed=7", kinds[k], values[v]);
        zs_matrix *A = NULL;
        CHECK_STATUS(zs_matrix_generate(&A, spec, ti ? ZS_F32 : ZS_F64, 0), ZS_OK);
        if (!A) continue;
        check_choice(spec, A, "");
        /* options the choice passes on to both versions */
        if (v == 1 && ti == 0) check_choice(spec, A, "long_rows=20");
        if (v == 0 && ti == 0) check_choice(spec, A, "values=raw");
        zs_matrix_destroy(&A);
      }
}

static void choice_of(const char *name, zs_matrix *A) {
  check_choice(name, A, "");
  zs_matrix_destroy(&A);
}

static void shared_matrices(const char *dir) {
  const int n = zst_each_matrix(dir, choice_of);
  if (n < 0) {
    check_failures++;
    return;
  }
  printf("%d shared matrices\n", n);
  CHECK(n >= 40);
}

int main(int argc, char **argv) {
  const int shared = argc > 2 && !strcmp(argv[1], "matrices");
  if (shared)
    shared_matrices(zst_matrices_dir(argv[2]));
  else
    generated();
  printf("%d cases, %d of them version 5\n", cases, fives);
  CHECK(cases > 0);
  if (!shared) CHECK(fives > 0 && fives < cases); /* the shared matrices keep versions 2-4 */
  CHECK_DONE();
}
