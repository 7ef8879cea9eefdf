/* fuzz_dtans.c — libFuzzer target for CSR-dtANS containers: whatever the loader (and so
 * validate) accepts must decode, round-trip through the encoder, and multiply on the cpu kernels
 * as the decoded CSR does (BiCG's pair with the two products' bits). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/cpu/cpu_kernels.h"
#include "core/zs_internal.h"
#include "formats/dtans/dtans_layout.h"
#include "fuzz/fuzz_container.h"

static int64_t param(const zs_encoded *E, const char *name) {
  for (int i = 0; i < E->n_params; i++)
    if (strcmp(E->params[i].name, name) == 0) return E->params[i].value;
  return -1;
}

static double val_at(const zs_matrix *A, int64_t k) {
  return A->type == ZS_F64 ? ((const double *)A->values)[k] : ((const float *)A->values)[k];
}

/* y = alpha·op(A)·x + beta·y0 in long double, with the sum of magnitudes for the tolerance. */
static void reference(const zs_matrix *A, zs_op op, double alpha, const double *x, double beta,
                      const double *y0, long double *ref, long double *mag) {
  const int64_t n = op == ZS_OP_N ? A->rows : A->cols;
  for (int64_t i = 0; i < n; i++) ref[i] = 0, mag[i] = 0;
  for (int64_t i = 0; i < A->rows; i++)
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
      const int64_t o = op == ZS_OP_N ? i : A->col_idx[k], in = op == ZS_OP_N ? A->col_idx[k] : i;
      const long double p = (long double)val_at(A, k) * x[in];
      ref[o] += p, mag[o] += fabsl(p);
    }
  for (int64_t i = 0; i < n; i++) {
    ref[i] = alpha * ref[i] + beta * (long double)y0[i];
    mag[i] = fabsl((long double)alpha) * mag[i] + fabsl(beta * (long double)y0[i]);
  }
}

/* Element i of an f32 or f64 vector set to v. */
static void set_at(void *p, zs_type t, int64_t i, double v) {
  if (t == ZS_F64)
    ((double *)p)[i] = v;
  else
    ((float *)p)[i] = (float)v;
}

/* Run one product on the cpu kernel and compare with the reference where it is finite. */
static void product(const zsi_cpu_kernel *kern, void *op, const zs_matrix *A, zs_op which,
                    double beta) {
  const int64_t nin = which == ZS_OP_N ? A->cols : A->rows;
  const int64_t nout = which == ZS_OP_N ? A->rows : A->cols;
  const size_t es = zs_type_size(A->type);
  double *x = malloc((size_t)(nin + 1) * 8), *y0 = malloc((size_t)(nout + 1) * 8);
  long double *ref = malloc((size_t)(nout + 1) * sizeof *ref);
  long double *mag = malloc((size_t)(nout + 1) * sizeof *mag);
  void *xt = malloc((size_t)(nin + 1) * es), *yt = malloc((size_t)(nout + 1) * es);
  if (!x || !y0 || !ref || !mag || !xt || !yt) goto done;
  uint64_t s = 0x9e3779b97f4a7c15u ^ (uint64_t)A->nnz;
  for (int64_t i = 0; i < nin + nout; i++) {
    s = s * 6364136223846793005u + 1442695040888963407u;
    const double r = (double)(s >> 11) * 0x1.0p-53 * 2 - 1; /* exact in f32 too: 24 bits */
    const double v = (double)(float)r;
    if (i < nin)
      x[i] = v;
    else
      y0[i - nin] = v;
  }
  for (int64_t i = 0; i < nin; i++) set_at(xt, A->type, i, x[i]);
  for (int64_t i = 0; i < nout; i++) /* beta = 0 must ignore y */
    set_at(yt, A->type, i, beta != 0 ? y0[i] : NAN);
  const double alpha = 0.75;
  if (kern->apply(op, which, alpha, xt, beta, yt) != ZS_OK) abort();
  reference(A, which, alpha, x, beta, y0, ref, mag);
  /* Relative to the magnitudes, plus an absolute term for results among the subnormals, where
   * each rounding may lose up to half of the smallest subnormal. */
  const long double eps = A->type == ZS_F64 ? 0x1.0p-52L : 0x1.0p-23L;
  const long double tiny = A->type == ZS_F64 ? 0x1.0p-1074L : 0x1.0p-149L;
  for (int64_t i = 0; i < nout; i++) {
    if (!isfinite((double)mag[i]) || mag[i] > 1e300L) continue; /* mutated values: inf, NaN */
    const long double got =
        A->type == ZS_F64 ? (long double)((double *)yt)[i] : (long double)((float *)yt)[i];
    const int64_t len = which == ZS_OP_N ? A->row_ptr[i + 1] - A->row_ptr[i] : A->rows;
    const long double terms = (long double)(len < 1024 ? len + 2 : 1026);
    const long double tol = 16 * eps * terms * mag[i] + 4 * terms * tiny;
    if (!(fabsl(got - ref[i]) <= tol)) {
      fprintf(stderr, "fuzz_dtans: op %c element %lld: kernel %Lg, reference %Lg\n",
              which == ZS_OP_N ? 'N' : 'T', (long long)i, got, ref[i]);
      abort();
    }
  }
done:
  free(x), free(y0), free(ref), free(mag), free(xt), free(yt);
}

/* Equal bits, or both NaN (a mutated blob's NaN values may carry any payload). */
static int same_value(const void *a, const void *b, zs_type t, int64_t i) {
  if (t == ZS_F64) {
    const double u = ((const double *)a)[i], v = ((const double *)b)[i];
    return (isnan(u) && isnan(v)) || memcmp(&u, &v, sizeof u) == 0;
  }
  const float u = ((const float *)a)[i], v = ((const float *)b)[i];
  return (isnan(u) && isnan(v)) || memcmp(&u, &v, sizeof u) == 0;
}

/* BiCG's pair (y = 0.75 A x + 0.5 y, z = -A^T w + 0.25 z) in one call; with a deterministic
 * SpMVT its y and z must have the bits of the two products made apart. */
static void pair(const zsi_cpu_kernel *kern, void *op, const zs_matrix *A, int atomic) {
  const size_t es = zs_type_size(A->type);
  const int64_t r = A->rows, c = A->cols;
  unsigned char *x = malloc((size_t)(c + 1) * es), *w = malloc((size_t)(r + 1) * es);
  unsigned char *y = malloc((size_t)(r + 1) * es), *z = malloc((size_t)(c + 1) * es);
  unsigned char *y2 = malloc((size_t)(r + 1) * es), *z2 = malloc((size_t)(c + 1) * es);
  if (!x || !w || !y || !z || !y2 || !z2) goto done;
  for (int64_t i = 0; i < c; i++) set_at(x, A->type, i, 0.5 - 0.125 * (double)(i % 7));
  for (int64_t i = 0; i < r; i++) set_at(w, A->type, i, 0.25 + 0.125 * (double)(i % 5));
  for (int64_t i = 0; i < r; i++) set_at(y, A->type, i, 1), set_at(y2, A->type, i, 1);
  for (int64_t i = 0; i < c; i++) set_at(z, A->type, i, 2), set_at(z2, A->type, i, 2);
  const zs_status s = kern->pair(op, 0.75, x, 0.5, y, -1.0, w, 0.25, z);
  if (s == ZS_ERR_UNSUPPORTED || s == ZS_ERR_OUT_OF_MEMORY) goto done;
  if (s != ZS_OK) abort();
  if (atomic) goto done; /* the SpMVT's sums in no fixed order: run for ASan only */
  if (kern->apply(op, ZS_OP_N, 0.75, x, 0.5, y2) != ZS_OK ||
      kern->apply(op, ZS_OP_T, -1.0, w, 0.25, z2) != ZS_OK)
    abort();
  for (int64_t i = 0; i < r; i++)
    if (!same_value(y, y2, A->type, i)) {
      fprintf(stderr, "fuzz_dtans: pair y[%lld] differs from SpMV's\n", (long long)i);
      abort();
    }
  for (int64_t i = 0; i < c; i++)
    if (!same_value(z, z2, A->type, i)) {
      fprintf(stderr, "fuzz_dtans: pair z[%lld] differs from SpMVT's\n", (long long)i);
      abort();
    }
done:
  free(x), free(w), free(y), free(z), free(y2), free(z2);
}

static void check_loaded(const zs_encoded *E) {
  /* Huge but valid dimensions make legitimately large vectors and tables: skip those. */
  if (E->format != ZS_FORMAT_DTANS || E->rows > (1 << 16) || E->cols > (1 << 20) ||
      E->nnz > (1 << 18))
    return;
  zs_matrix *A = NULL, *B = NULL;
  zs_encoded *E2 = NULL;
  zs_status s = zs_decode(&A, E);
  if (s == ZS_ERR_OUT_OF_MEMORY) return;
  if (s != ZS_OK) abort(); /* validated blobs must decode */
  /* Re-encode in the blob's own mode, R and long-row threshold: the encoder must accept any
   * matrix a blob can hold, and its output must decode to the same bits. A mutated blob's
   * parameters may not fit its data (a constant mode with long rows other than long_min would
   * give), so the encoder's own choice of mode is the fallback. */
  /* value_mode's numbers (DTANS_VALUES_*, then version 5's packed ids, 4) as option names */
  static const char *const modes[] = {"coded", "constant", "raw", "joint", "packed"};
  const int64_t mode = param(E, "value_mode"), R = param(E, "rows_per_lane");
  const int64_t long_min = param(E, "long_min");
  char rpl[40] = "", lng[40] = "", opts[160];
  /* no decoder reads a parameter rows_per_lane, so a mutated blob may carry any value there: only
   * the encoder's range is passed on (an option outside it is refused, rightly) */
  if (R >= 1 && R <= DTANS_MAX_ROWS_PER_LANE)
    snprintf(rpl, sizeof rpl, ",rows_per_lane=%lld", (long long)R);
  if (long_min >= 0) snprintf(lng, sizeof lng, ",long_rows=%lld", (long long)long_min);
  snprintf(opts, sizeof opts, "values=%s%s%s",
           (mode == 1 && A->nnz == 0) || mode < 0 || mode > 4 ? "auto" : modes[mode], rpl, lng);
  s = zs_encode(&E2, A, ZS_FORMAT_DTANS, opts);
  if (s == ZS_ERR_INVALID_ARGUMENT) {
    snprintf(opts, sizeof opts, "values=auto%s", rpl);
    s = zs_encode(&E2, A, ZS_FORMAT_DTANS, opts);
  }
  if (s == ZS_ERR_OUT_OF_MEMORY) goto done;
  if (s != ZS_OK || zsi_format_lookup(ZS_FORMAT_DTANS)->validate(E2) != ZS_OK) abort();
  if (zs_decode(&B, E2) != ZS_OK) abort();
  if (B->rows != A->rows || B->cols != A->cols || B->nnz != A->nnz || B->type != A->type ||
      memcmp(A->row_ptr, B->row_ptr, (size_t)(A->rows + 1) * sizeof *A->row_ptr) ||
      memcmp(A->col_idx, B->col_idx, (size_t)A->nnz * sizeof *A->col_idx) ||
      memcmp(A->values, B->values, (size_t)A->nnz * zs_type_size(A->type)))
    abort();
  /* The cpu kernels trust a validated blob: both products and the pair, through the kernel
   * table so that no context (hardware discovery) is made per input; ASan catches stray reads. */
  zsb_array arrays[ZSI_MAX_ARRAYS];
  zsb_param params[ZSI_MAX_PARAMS];
  zsb_encoded_view view;
  zsi_encoded_view(E, &view, arrays, params);
  const zsi_cpu_kernel *kern = zsi_cpu_kernels_for(ZS_FORMAT_DTANS);
  for (int atomic = 0; atomic < 2; atomic++) {
    const zsi_cpu_opts o = {.threads = 2, .transpose_atomic = atomic};
    void *op = NULL;
    s = kern->create(&op, &view, &o);
    if (s == ZS_ERR_OUT_OF_MEMORY) break;
    if (s != ZS_OK) abort();
    product(kern, op, A, ZS_OP_N, atomic ? 0.0 : -1.25);
    product(kern, op, A, ZS_OP_T, atomic ? 0.5 : 0.0);
    if (kern->pair) pair(kern, op, A, atomic);
    kern->destroy(op);
  }
done:
  zs_matrix_destroy(&A), zs_matrix_destroy(&B);
  zs_encoded_destroy(&E2);
}

static void load_bytes(const uint8_t *data, size_t size) {
  char path[512];
  const int made = fuzz_temp_file(path, sizeof path, "fuzz-dtans", data, size);
  if (made == 0) return;
  zs_encoded *E = NULL;
  if (made > 0 && zs_encoded_load(&E, path) == ZS_OK) check_loaded(E);
  zs_encoded_destroy(&E);
  unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_with_fixed_crcs(data, size, load_bytes);
  return 0;
}
