/* auto_trial.c — tune=trial: the model's best few candidates encoded and timed on the real
 * backend within a wall-time bound, and the fastest measured taken (docs/auto.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/auto/auto.h"

/* Rows [lo, hi) of A, every column, as a matrix of its own. */
static zs_status row_band(const zs_matrix *A, int64_t lo, int64_t hi, zs_matrix **out) {
  const int64_t first = A->row_ptr[lo], nnz = A->row_ptr[hi] - first;
  const size_t vs = zs_type_size(A->type);
  zs_matrix *B = NULL;
  const zs_status s = zsi_matrix_alloc(&B, hi - lo, A->cols, nnz, A->type);
  if (s != ZS_OK) return s;
  for (int64_t i = 0; i <= hi - lo; i++) B->row_ptr[i] = A->row_ptr[lo + i] - first;
  memcpy(B->col_idx, A->col_idx + first, (size_t)nnz * sizeof *B->col_idx);
  memcpy(B->values, (const char *)A->values + (size_t)first * vs, (size_t)nnz * vs);
  *out = B;
  return ZS_OK;
}

/* The first row whose offset reaches k. */
static int64_t row_at(const zs_matrix *A, int64_t k) {
  int64_t lo = 0, hi = A->rows;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (A->row_ptr[mid] < k)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* One candidate's operator and the vectors its workload reads and writes. */
typedef struct bench {
  zs_operator *op;
  zs_vector *x, *y, *w, *z; /* x: cols, y: rows (A x); w: rows, z: cols (Aᵀ w) */
  zsi_auto_work kind;
} bench;

static zs_status call(bench *b) {
  switch (b->kind) {
  case ZSI_WORK_T: return zs_spmv(b->op, ZS_OP_T, 1.0, b->w, 0.0, b->z);
  case ZSI_WORK_PAIR: return zs_spmv_pair(b->op, 1.0, b->x, 0.0, b->y, 1.0, b->w, 0.0, b->z);
  default: return zs_spmv(b->op, ZS_OP_N, 1.0, b->x, 0.0, b->y);
  }
}

static void bench_free(bench *b) {
  zs_vector_destroy(&b->x), zs_vector_destroy(&b->y), zs_vector_destroy(&b->w);
  zs_vector_destroy(&b->z), zs_operator_destroy(&b->op);
}

static zs_status bench_init(bench *b, zs_context *ctx, const char *backend, const zs_matrix *M,
                            const zsi_auto_candidate *c, zsi_auto_work kind) {
  zs_encoded *E = NULL;
  zs_status s = zs_encode(&E, M, c->format, c->options[0] ? c->options : NULL);
  if (s == ZS_OK) s = zs_operator_create(&b->op, ctx, E, backend, c->op_options);
  zs_encoded_destroy(&E);
  b->kind = kind;
  if (kind != ZSI_WORK_T) { /* x and y for A x */
    if (s == ZS_OK) s = zs_vector_create(&b->x, ctx, backend, M->type, M->cols);
    if (s == ZS_OK) s = zs_vector_create(&b->y, ctx, backend, M->type, M->rows);
    if (s == ZS_OK) s = zs_vector_fill(b->x, 0.5);
  }
  if (kind != ZSI_WORK_SPMV) { /* w and z for Aᵀ w */
    if (s == ZS_OK) s = zs_vector_create(&b->w, ctx, backend, M->type, M->rows);
    if (s == ZS_OK) s = zs_vector_create(&b->z, ctx, backend, M->type, M->cols);
    if (s == ZS_OK) s = zs_vector_fill(b->w, -0.25);
  }
  return s;
}

/* Time one batch of up to k products of b, stopping at `end` (a zsi_now() time; the clock is
 * read after every product, so a host that slows down does not carry a batch past it): seconds
 * per product, or -1 on an error (*st says which). */
static double batch(bench *b, int64_t k, double end, zs_status *st) {
  const double t0 = zsi_now();
  int64_t done = 0;
  while (done < k) {
    if ((*st = call(b)) != ZS_OK) return -1;
    done++;
    if (zsi_now() >= end) break;
  }
  if ((*st = zs_operator_sync(b->op)) != ZS_OK) return -1;
  return (zsi_now() - t0) / (double)done;
}

/* Up to t->top candidates: the model's choice, then the others by predicted time. */
static int pick(const zsi_auto_candidate *c, int n, int choice, int top, int *out) {
  int k = 0;
  out[k++] = choice;
  while (k < top && k < n) {
    int next = -1;
    for (int i = 0; i < n; i++) {
      int taken = 0;
      for (int j = 0; j < k; j++) taken |= out[j] == i;
      if (!taken && (next < 0 || c[i].us < c[next].us)) next = i;
    }
    if (next < 0) break;
    out[k++] = next;
  }
  return k;
}

/* Host seconds expected to build candidate c's operator: the model's encode, and its bytes
 * copied at 1 GB/s (upload, vectors: a cautious figure, corrected by what the first set-ups
 * take). */
static double setup_s(const zsi_auto_candidate *c) { return c->encode_s + c->bytes / 1e9; }

zs_status zsi_auto_trial_run(const zs_matrix *A, const char *backend, const zsi_auto_workload *w,
                             zsi_auto_candidate *c, int n, int *choice, zsi_auto_trial *t) {
  int order[ZSI_AUTO_MAX_CANDIDATES];
  const int k = pick(c, n, *choice, t->top, order);
  for (int i = 0; i < n; i++) c[i].measured_us = -1;
  t->model_choice = *choice, t->timed = 0, t->overturned = 0;
  zs_context *ctx = NULL;
  double t0 = zsi_now();
  zs_status s = zs_context_create(&ctx);
  t->context_s = zsi_now() - t0;
  if (s != ZS_OK) return s;
  t0 = zsi_now(); /* the bound starts here: band, encodes, uploads and timed calls */
  const double bound = t->ms * 1e-3, deadline = t0 + bound;
  /* Set-ups that cannot fit half the bound are made on a band of rows from the middle. */
  double setups = 0;
  for (int i = 0; i < k; i++) setups += setup_s(&c[order[i]]);
  double share = setups > 0.5 * bound ? 0.5 * bound / setups : 1.0;
  zs_matrix *band = NULL;
  t->band_lo = 0, t->band_hi = A->rows, t->band_share = 1;
  if (share < 1 && A->rows > 1) {
    const int64_t want = (int64_t)(share * (double)A->nnz);
    int64_t lo = row_at(A, (A->nnz - want) / 2), hi = row_at(A, A->row_ptr[lo] + want);
    if (lo >= A->rows) lo = A->rows - 1;
    if (hi <= lo) hi = lo + 1;
    if ((s = row_band(A, lo, hi, &band)) != ZS_OK) {
      zs_context_destroy(&ctx);
      return s;
    }
    t->band_lo = lo, t->band_hi = hi;
    t->band_share = A->nnz ? (double)band->nnz / (double)A->nnz : 1;
    share = t->band_share;
  }
  const zs_matrix *M = band ? band : A;
  /* Set-ups first, the model's choice first: each encoded, its operator and vectors made and one
   * product run untimed (a transpose built at first use, threads started). A set-up is started
   * only where it is expected to end before the last quarter of the bound, kept for timing. */
  bench b[ZSI_AUTO_MAX_CANDIDATES] = {{0}};
  int live[ZSI_AUTO_MAX_CANDIDATES], n_live = 0, stopped = 0, no_memory = 0;
  double slow = 1; /* how much slower than the model's set-up this host was so far */
  const double setup_end = deadline - 0.25 * bound;
  for (int i = 0; i < k && s == ZS_OK; i++) {
    zsi_auto_candidate *x = &c[order[i]];
    const double ahead = slow * share * setup_s(x);
    if (zsi_now() + ahead > setup_end) {
      stopped = 1;
      break;
    }
    const double s0 = zsi_now();
    zs_status bs = bench_init(&b[i], ctx, backend, M, x, w->kind);
    const double took = zsi_now() - s0;
    if (ahead > 0 && took > ahead) slow *= took / ahead;
    if (bs == ZS_OK && (bs = call(&b[i])) == ZS_OK) bs = zs_operator_sync(b[i].op);
    if (bs == ZS_OK) live[n_live++] = i;
    /* a format without kernels on this backend is skipped, and so is one that does not fit the
     * memory beside the candidates set up before it (its part freed at once); any other failure
     * is the trial's */
    if (bs == ZS_ERR_OUT_OF_MEMORY) no_memory++, bench_free(&b[i]);
    if (bs != ZS_OK && bs != ZS_ERR_UNSUPPORTED && bs != ZS_ERR_OUT_OF_MEMORY) s = bs;
  }
  /* Then rounds until the bound, each a batch of every candidate set up, sized to an equal share
   * of the time left (rounds still to come counted, 32 at least), round r starting with
   * candidate r: a busy spell of the host falls on all of them alike, not on the one timed
   * during it. Each keeps its fastest batch. A first batch is one product, timed even past its
   * share while the bound allows. */
  double per[ZSI_AUTO_MAX_CANDIDATES], fastest[ZSI_AUTO_MAX_CANDIDATES];
  for (int i = 0; i < k; i++) per[i] = 0, fastest[i] = -1;
  enum { ROUNDS = 32 };
  for (int r = 0; s == ZS_OK && n_live > 0 && zsi_now() < deadline; r++) {
    for (int q = 0; q < n_live && s == ZS_OK; q++) {
      const int i = live[(r + q) % n_live];
      const double now = zsi_now();
      if (now >= deadline) break;
      const double rounds_left = r < ROUNDS ? ROUNDS - r : 1;
      const double slot = (deadline - now) / (rounds_left * (double)(n_live - q));
      const int64_t n = per[i] > 0 ? (int64_t)fmin(fmax(slot / per[i], 1), 1 << 20) : 1;
      const double t = batch(&b[i], n, per[i] > 0 ? fmin(now + slot, deadline) : deadline, &s);
      if (t < 0) break;
      per[i] = t;
      if (fastest[i] < 0 || t < fastest[i]) fastest[i] = t;
    }
  }
  for (int i = 0; i < k; i++) {
    zsi_auto_candidate *x = &c[order[i]];
    x->measured_us = fastest[i] > 0 ? fastest[i] * 1e6 : -1;
    t->timed += x->measured_us > 0;
    bench_free(&b[i]);
  }
  zs_matrix_destroy(&band);
  zs_context_destroy(&ctx);
  t->spent_s = zsi_now() - t0;
  if (s != ZS_OK) return s;
  /* The fastest measured, scaled to the whole matrix, with the encode amortised as the model
   * does; it replaces the model's choice only when 2 % faster, so that noise does not flip it. */
  int best = -1;
  double best_us = 0, model_us = -1;
  for (int i = 0; i < k; i++) {
    const zsi_auto_candidate *x = &c[order[i]];
    if (x->measured_us <= 0) continue;
    double us = x->measured_us / share;
    if (w->calls > 0) us += x->encode_s * 1e6 / (double)w->calls;
    if (order[i] == *choice) model_us = us;
    if (best < 0 || us < best_us) best = order[i], best_us = us;
  }
  if (best >= 0 && best != *choice && (model_us < 0 || best_us < 0.98 * model_us)) {
    *choice = best;
    t->overturned = 1;
  }
  /* The note: each timed candidate's time, where the bound stopped it, the band. */
  int len =
      snprintf(t->note, sizeof t->note, "trial %.0f ms (%.0f ms spent): ", t->ms, 1e3 * t->spent_s);
  for (int i = 0; i < k && len < (int)sizeof t->note; i++) {
    const zsi_auto_candidate *x = &c[order[i]];
    len += snprintf(t->note + len, sizeof t->note - (size_t)len, "%s%s%s%s%s%s ", i ? "; " : "",
                    zs_format_name(x->format), x->options[0] ? ":" : "", x->options,
                    x->op_options[0] ? "@" : "", x->op_options);
    if (len < (int)sizeof t->note)
      len += x->measured_us > 0
                 ? snprintf(t->note + len, sizeof t->note - (size_t)len, "%.1f us", x->measured_us)
                 : snprintf(t->note + len, sizeof t->note - (size_t)len, "not timed");
  }
  if (len < (int)sizeof t->note && t->band_share < 1)
    len += snprintf(t->note + len, sizeof t->note - (size_t)len,
                    "; on rows %lld-%lld only (%.1f %% of the nonzeros: the whole would not "
                    "fit the bound)",
                    (long long)t->band_lo, (long long)t->band_hi, 100 * t->band_share);
  if (len < (int)sizeof t->note && stopped)
    len += snprintf(t->note + len, sizeof t->note - (size_t)len, "; the bound stopped it");
  if (len < (int)sizeof t->note && no_memory)
    len += snprintf(t->note + len, sizeof t->note - (size_t)len,
                    "; %d not set up: out of memory beside the others", no_memory);
  if (len < (int)sizeof t->note)
    snprintf(t->note + len, sizeof t->note - (size_t)len, "; %s",
             !t->timed       ? "nothing timed: the model's choice stays"
             : t->overturned ? "overturned the model"
                             : "confirmed the model");
  return ZS_OK;
}
