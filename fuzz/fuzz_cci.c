/* fuzz_cci.c — libFuzzer target for the CCI validator and decoder: input bytes become the
 * arrays and parameters of a small CCI blob; whatever validate accepts must decode. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/zs_internal.h"

/* Layout of an input: rows, cols (1 byte each, +1), slices exponent, first_shift (1 byte,
 * signed), nnz (1 byte), 8 optable words (4 bytes each), then row lengths (rows bytes), then
 * the cstart words (4 bytes each) and the remaining bytes as code words. Missing bytes are 0. */
typedef struct reader {
  const uint8_t *p;
  size_t n, at;
} reader;
static uint32_t get(reader *r, int bytes) {
  uint32_t v = 0;
  for (int i = 0; i < bytes; i++, r->at++)
    v |= (uint32_t)(r->at < r->n ? r->p[r->at] : 0) << (8 * i);
  return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  reader r = {data, size, 0};
  const int64_t rows = get(&r, 1) % 17, cols = 1 + get(&r, 1), S = INT64_C(1) << (get(&r, 1) % 6);
  const int64_t shift = (int8_t)get(&r, 1), want_nnz = get(&r, 1);
  zs_encoded *E = NULL;
  if (zsi_encoded_new(&E, ZS_FORMAT_CCI, ZS_F64, rows, cols, 0) != ZS_OK) return 0;
  uint32_t *tab;
  int64_t *rp;
  void *cs, *codes, *vals;
  zs_status s = zsi_encoded_add_param(E, "slices", S);
  if (s == ZS_OK) s = zsi_encoded_add_param(E, "first_shift", shift);
  if (s == ZS_OK) s = zsi_encoded_add_array(E, "optable", 4, 8, (void **)&tab);
  if (s == ZS_OK) s = zsi_encoded_add_array(E, "row_ptr", 8, (uint64_t)rows + 1, (void **)&rp);
  if (s != ZS_OK) goto done;
  for (int e = 0; e < 8; e++) tab[e] = get(&r, 4);
  for (int64_t i = 0; i < rows; i++) rp[i + 1] = rp[i] + (int64_t)(get(&r, 1) % 9);
  E->nnz = rp[rows] ? rp[rows] : want_nnz % 3; /* sometimes inconsistent on purpose */
  const uint64_t ncs = (uint64_t)(rows * S + 1);
  if (zsi_encoded_add_array(E, "cstart", 4, ncs, &cs) != ZS_OK) goto done;
  for (uint64_t q = 0; q < ncs; q++)
    ((uint32_t *)cs)[q] = get(&r, 1) + (q ? ((uint32_t *)cs)[q - 1] : 0);
  const size_t rest = r.at < size ? size - r.at : 0;
  const uint64_t nwords = ((uint32_t *)cs)[ncs - 1] / 64 + 2;
  if (zsi_encoded_add_array(E, "codes", 8, nwords, &codes) != ZS_OK) goto done;
  memcpy(codes, data + r.at, rest < nwords * 8 ? rest : nwords * 8);
  if (zsi_encoded_add_array(E, "values", 8, (uint64_t)E->nnz, &vals) != ZS_OK) goto done;
  const zsi_format_ops *f = zsi_format_lookup(ZS_FORMAT_CCI);
  if (f->validate(E) == ZS_OK) {
    zs_matrix *A = NULL;
    if (zs_decode(&A, E) != ZS_OK) abort(); /* validated blobs must decode */
    zs_matrix_destroy(&A);
  }
done:
  zs_encoded_destroy(&E);
  return 0;
}
