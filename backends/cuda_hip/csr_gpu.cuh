/* csr_gpu.cuh — the CSR and COO operators of the GPU modules: nonzero-balanced row blocks,
 * column slabs where x outgrows the L2 cache, and the deterministic SpMVT through Aᵀ stored as
 * CSR, which the compressed formats reuse (transpose_op). */
#include <math.h>

#include <type_traits>

#include "backends/cuda_hip/coo_kernels.cuh"
#include "backends/cuda_hip/csr_kernels.cuh"
#include "backends/cuda_hip/csr_split.cuh"
#include "backends/cuda_hip/gpu_common.cuh"
#include "backends/cuda_hip/row_blocks.h"
#include "formats/coo/coo_layout.h"
#include "formats/csr/csr_layout.h"

namespace zs_gpu {

/* Row offsets on the device: narrowed to int32 when every offset fits, which saves 4 bytes per
 * row of traffic in every product. */
zs_status upload_offsets(void **dst, const int64_t *src, int64_t n, bool offsets32,
                         const char *what) {
  if (!offsets32) return upload_array((int64_t **)dst, src, (uint64_t)n, what);
  int32_t *narrow = (int32_t *)malloc((size_t)(n ? n : 1) * sizeof(int32_t));
  if (!narrow) return fail(ZS_ERR_OUT_OF_MEMORY, "%s", what);
  for (int64_t i = 0; i < n; i++) narrow[i] = (int32_t)src[i];
  zs_status s = upload_array((int32_t **)dst, narrow, (uint64_t)n, what);
  free(narrow);
  return s;
}

/* ---- CSR and COO operators ---- */
#define ZS_MAX_SLABS 8

/* The row plan of one CSR product: nonzero-balanced row blocks, the rows too long for one block
 * and the partial sums of their chunks; with long_rows=fused, a counter of finished chunks per
 * long row (zeros between products). */
struct csr_plan {
  zs_row_block *blocks;
  zs_long_row *long_rows;
  int64_t n_blocks, n_long_rows;
  void *partials;
  unsigned *counters;
  /* the nonzero-split kernel's tiles (kernel=split): their first items, the rows spanning
   * tiles, and per tile the sum of its open last row (carry) and of a spanning first row */
  zs_split_coord *coords;
  zs_split_span *spans;
  int64_t n_tiles, n_spans;
  void *carry, *head;
  /* split_spans=wait: the tiles' published carries (zs_split_sync) and the last call's epoch */
  unsigned long long *ready;
  unsigned epoch;
};

/* Kernel choices of a CSR operator (operator options; each -1 or 0 where chosen). fused = 1
 * never comes with split = 1: the library refuses that pair before the module sees it
 * (core/runtime/backend_options.c), as the split kernel has no fused long rows. */
struct csr_choice {
  int items;       /* block_nnz / ZS_BLOCK_THREADS: 1, 2, 4, 8; 0 chosen */
  int evict_first; /* experimental.evict_first: 1 on, 0 off, -1 chosen */
  int threads;     /* experimental.reduce: 1 threads, 0 lanes, -1 chosen */
  int fused;       /* experimental.long_rows: 1 fused, 0 kernel, -1 chosen */
  int split;       /* kernel: 1 split, 0 rows, -1 chosen */
  int stage;       /* experimental.split_stage: ZS_SPLIT_* bits, -1 chosen by the value type */
  int wait;        /* experimental.split_spans: 1 wait, 0 kernel, -1 chosen */
};

struct gpu_op {
  const gpu_device *dev; /* its context's device */
  zs_format format;
  zs_type type;
  int64_t rows, cols, nnz;
  bool atomic_transpose;
  int items;            /* nonzeros per thread of a row block: 1, 2, 4 or 8 */
  bool scattered;       /* rows gather x at random */
  bool stream;          /* evict-first loads of the matrix data (by default past the L2) */
  bool threads;         /* blocks of short rows reduce thread by thread (reduce=threads) */
  bool fused;           /* long rows finished by their last chunk (long_rows=fused) */
  bool split;           /* SpMV by the nonzero-split kernel (kernel=split) */
  int stage;            /* its staging of a tile (ZS_SPLIT_* bits; 0: one loop, in order) */
  bool wait;            /* spanning rows finished by their last tile (split_spans=wait) */
  zs_row_stats lengths; /* of the rows (csr_row_stats); longer[k]: a block of 1 << k items */
  /* CSR: ptr/idx/val; COO: row/idx/val. Row offsets are int32 when nnz < 2^31 (offsets32).
   * A CSR matrix whose x does not fit the L2 cache is stored in column slabs (csr_slab_count):
   * slab k holds the nonzeros of columns [k w, (k + 1) w), all rows, as its own CSR at
   * ptr + k (rows + 1) (offsets into the shared idx/val), so each product gathers from a part
   * of x that stays in L2. */
  bool offsets32;
  int n_slabs;
  void *ptr;
  int32_t *row, *idx;
  void *val;
  csr_plan plan[ZS_MAX_SLABS]; /* per slab */
  int forced_slabs;            /* col_slabs=K (0: chosen), for Aᵀ too */
  csr_choice choice;           /* the kernel choices forced by options, for Aᵀ too */
  /* Deterministic SpMVT, built on first use. CSR: Aᵀ as a CSR operator run forward. COO: per
   * nonzero in column order, its row (t_idx), column (t_row) and position (t_perm). */
  struct gpu_op *t_op;
  int32_t *t_row, *t_idx, *t_perm;
  bool have_transpose;
  /* COO carries (per range of ZS_COO_RANGE nonzeros) */
  int64_t ranges;
  int32_t *head_row, *tail_row;
  void *head_sum, *tail_sum;
};

void op_free(gpu_op *op) {
  void *ptrs[] = {op->ptr,    op->row,      op->idx,      op->val,      op->t_row,   op->t_idx,
                  op->t_perm, op->head_row, op->tail_row, op->head_sum, op->tail_sum};
  for (void *p : ptrs) release(p);
  for (csr_plan &c : op->plan) {
    release(c.blocks), release(c.long_rows), release(c.partials), release(c.counters);
    release(c.coords), release(c.spans), release(c.carry), release(c.head), release(c.ready);
  }
  if (op->t_op) op_free(op->t_op);
  free(op);
}

zs_status upload_plan(const int64_t *host_ptr, int64_t rows, int items, size_t value_size,
                      bool fused, csr_plan *c) {
  zs_row_plan plan;
  if (!zs_row_plan_build(&plan, host_ptr, rows, (int64_t)items * ZS_BLOCK_THREADS)) {
    zs_row_plan_free(&plan);
    return fail(ZS_ERR_OUT_OF_MEMORY, "row plan for %lld rows", (long long)rows);
  }
  zs_status s = upload_array(&c->blocks, plan.blocks, (uint64_t)plan.n_blocks, "row blocks");
  if (s == ZS_OK)
    s = upload_array(&c->long_rows, plan.long_rows, (uint64_t)plan.n_long_rows, "long rows");
  if (s == ZS_OK && plan.n_partials > 0)
    s = check(gpuMalloc(&c->partials, (size_t)plan.n_partials * value_size), "partials");
  if (s == ZS_OK && fused && plan.n_long_rows > 0)
    s = check(gpuMalloc((void **)&c->counters, (size_t)plan.n_long_rows * sizeof(unsigned)),
              "long-row counters");
  if (s == ZS_OK && c->counters)
    s = check(gpuMemset(c->counters, 0, (size_t)plan.n_long_rows * sizeof(unsigned)),
              "long-row counters");
  c->n_blocks = plan.n_blocks, c->n_long_rows = plan.n_long_rows;
  zs_row_plan_free(&plan);
  return s;
}

/* The nonzero-split kernel's plan: tiles of ZS_BLOCK_THREADS x items items. */
zs_status upload_split_plan(const int64_t *host_ptr, int64_t rows, int items, size_t value_size,
                            csr_plan *c) {
  zs_split_plan plan;
  if (!zs_split_plan_build(&plan, host_ptr, rows, (int64_t)items * ZS_BLOCK_THREADS))
    return fail(ZS_ERR_OUT_OF_MEMORY, "split plan for %lld rows", (long long)rows);
  zs_status s = ZS_OK;
  if (plan.n_tiles > 0)
    s = upload_array(&c->coords, plan.coords, (uint64_t)plan.n_tiles + 1, "split tiles");
  if (s == ZS_OK) s = upload_array(&c->spans, plan.spans, (uint64_t)plan.n_spans, "split spans");
  const size_t n = (size_t)(plan.n_tiles ? plan.n_tiles : 1) * value_size;
  if (s == ZS_OK) s = check(gpuMalloc(&c->carry, n), "split carries");
  if (s == ZS_OK) s = check(gpuMalloc(&c->head, n), "split carries");
  const size_t n_ready = (size_t)(plan.n_tiles ? plan.n_tiles : 1) * ZS_SPLIT_WORDS * 8;
  if (s == ZS_OK) s = check(gpuMalloc((void **)&c->ready, n_ready), "split carries");
  if (s == ZS_OK) s = check(gpuMemset(c->ready, 0, n_ready), "split carries");
  c->epoch = 0; /* the words hold epoch 0: the first call publishes epoch 1 */
  c->n_tiles = plan.n_tiles, c->n_spans = plan.n_spans;
  zs_split_plan_free(&plan);
  return s;
}

/* Counting sort of the nonzeros by column: t_ptr (cols + 1), and per position in column order
 * the nonzero's row and its index in the original arrays. */
zs_status build_transpose_host(const int32_t *rows_of, const int32_t *col, int64_t nnz,
                               int64_t cols, int64_t **t_ptr, int32_t **t_row, int32_t **t_perm) {
  *t_ptr = (int64_t *)calloc((size_t)cols + 1, sizeof(int64_t));
  *t_row = (int32_t *)malloc((size_t)(nnz ? nnz : 1) * sizeof(int32_t));
  *t_perm = (int32_t *)malloc((size_t)(nnz ? nnz : 1) * sizeof(int32_t));
  if (!*t_ptr || !*t_row || !*t_perm) return fail(ZS_ERR_OUT_OF_MEMORY, "transpose index");
  for (int64_t k = 0; k < nnz; k++) (*t_ptr)[col[k] + 1]++;
  for (int64_t j = 0; j < cols; j++) (*t_ptr)[j + 1] += (*t_ptr)[j];
  int64_t *next = (int64_t *)malloc(((size_t)cols + 1) * sizeof(int64_t));
  if (!next) return fail(ZS_ERR_OUT_OF_MEMORY, "transpose index");
  memcpy(next, *t_ptr, ((size_t)cols + 1) * sizeof(int64_t));
  for (int64_t k = 0; k < nnz; k++) {
    const int64_t p = next[col[k]]++;
    (*t_row)[p] = rows_of[k];
    (*t_perm)[p] = (int32_t)k;
  }
  free(next);
  return ZS_OK;
}

/* A's values in Aᵀ's order on the device, dst[p] = src[perm[p]] (perm on the device, from
 * build_transpose_host): Aᵀ then runs forward through the CSR rows kernel, reading its values
 * contiguously instead of gathering them (2x faster). */
zs_status permute_values(zs_type type, int64_t nnz, const int32_t *perm, const void *src,
                         void **dst) {
  *dst = NULL;
  zs_status s =
      check(gpuMalloc(dst, (size_t)(nnz ? nnz : 1) * type_size(type)), "transpose values");
  if (s != ZS_OK || nnz == 0) return s;
  if (type == ZS_F64)
    zs_permute_kernel<double>
        <<<grid_for(nnz, 256), 256>>>(nnz, perm, (const double *)src, (double *)*dst);
  else
    zs_permute_kernel<float>
        <<<grid_for(nnz, 256), 256>>>(nnz, perm, (const float *)src, (float *)*dst);
  s = check_launch("transpose values");
  return s == ZS_OK ? check(gpuDeviceSynchronize(), "transpose values") : s;
}

/* The deterministic SpMVT indexes nonzeros with 32 bits (transpose positions). */
zs_status transpose_fits(int64_t nnz) {
  if (nnz <= INT32_MAX) return ZS_OK;
  return fail(ZS_ERR_UNSUPPORTED,
              "deterministic SpMVT indexes nonzeros with 32 bits; this matrix has %lld "
              "(create the operator with transpose=atomic)",
              (long long)nnz);
}

zs_status csr_split_slabs(const int64_t *ptr, const int32_t *col, const void *val,
                          size_t value_size, int64_t rows, int64_t cols, int slabs,
                          int64_t **ptr_out, int32_t **col_out, void **val_out);
zs_status csr_op_adopt(gpu_op **out, const gpu_device *dev, zs_type type, int64_t rows,
                       int64_t cols, int64_t nnz, const int64_t *host_ptr, int slabs,
                       bool scattered, const csr_choice *choice, int32_t *d_idx, void *d_val);
zs_status transpose_op_with(gpu_op **out, const gpu_device *dev, zs_type type, int64_t rows,
                            int64_t cols, int64_t nnz, const int32_t *rows_of, const int32_t *col,
                            const void *d_val, int slabs, const csr_choice *choice);

/* Aᵀ of a rows x cols matrix as a CSR operator to run forward: the deterministic SpMVT of CSR and
 * of the compressed formats. rows_of/col: each nonzero's row and column on the host; d_val: its
 * value on the device, same order (not taken over). Aᵀ gets its own column slabs (slabs: 0
 * choose, else forced). Memory: 4 bytes plus the value per nonzero, plus the offsets: a second
 * copy of the matrix, with its values in Aᵀ's order so the product reads them contiguously. */
zs_status transpose_op(gpu_op **out, const gpu_device *dev, zs_type type, int64_t rows,
                       int64_t cols, int64_t nnz, const int32_t *rows_of, const int32_t *col,
                       const void *d_val, int slabs) {
  return transpose_op_with(out, dev, type, rows, cols, nnz, rows_of, col, d_val, slabs, NULL);
}

/* transpose_op, with the kernel choices forced on A's operator (NULL: none) applied to Aᵀ. */
zs_status transpose_op_with(gpu_op **out, const gpu_device *dev, zs_type type, int64_t rows,
                            int64_t cols, int64_t nnz, const int32_t *rows_of, const int32_t *col,
                            const void *d_val, int slabs, const csr_choice *choice) {
  *out = NULL;
  zs_status s = transpose_fits(nnz);
  if (s != ZS_OK) return s;
  int64_t *t_ptr = NULL, *s_ptr = NULL;
  int32_t *t_row = NULL, *t_perm = NULL, *s_row = NULL, *d_perm = NULL, *d_row = NULL;
  void *s_perm = NULL, *d_tval = NULL;
  s = build_transpose_host(rows_of, col, nnz, cols, &t_ptr, &t_row, &t_perm);
  const bool scattered = s == ZS_OK && rows_scattered(t_ptr, t_row, cols);
  const int k =
      s == ZS_OK ? csr_slab_count(dev, slabs, scattered, t_row, nnz, rows, type_size(type)) : 1;
  if (s == ZS_OK && k > 1) /* the row positions (perm) travel with the rows */
    s = csr_split_slabs(t_ptr, t_row, t_perm, 4, cols, rows, k, &s_ptr, &s_row, &s_perm);
  const bool split = s == ZS_OK && k > 1;
  if (s == ZS_OK) s = upload_array(&d_perm, split ? s_perm : t_perm, (uint64_t)nnz, "transpose");
  if (s == ZS_OK) s = permute_values(type, nnz, d_perm, d_val, &d_tval);
  release(d_perm);
  if (s == ZS_OK) s = upload_array(&d_row, split ? s_row : t_row, (uint64_t)nnz, "transpose rows");
  if (s == ZS_OK) /* it takes d_row and d_tval over, also when it fails */
    s = csr_op_adopt(out, dev, type, cols, rows, nnz, split ? s_ptr : t_ptr, split ? k : 1,
                     scattered, choice, d_row, d_tval);
  else
    release(d_row), release(d_tval);
  free(t_ptr), free(t_row), free(t_perm), free(s_ptr), free(s_row), free(s_perm);
  return s;
}

/* Built on first use, from the device copy, so operators used only for Ax pay nothing. */
zs_status ensure_transpose(gpu_op *op) {
  if (op->have_transpose) return ZS_OK;
  zs_status s = transpose_fits(op->nnz);
  if (s != ZS_OK) return s;
  const size_t n = (size_t)(op->nnz ? op->nnz : 1);
  int32_t *rows_of = (int32_t *)malloc(n * sizeof(int32_t));
  int32_t *col = (int32_t *)malloc(n * sizeof(int32_t));
  if (!rows_of || !col) s = fail(ZS_ERR_OUT_OF_MEMORY, "transpose index");
  if (s == ZS_OK && op->nnz)
    s = check(gpuMemcpy(col, op->idx, (size_t)op->nnz * 4, gpuMemcpyDeviceToHost), "download");
  if (s == ZS_OK && op->format == ZS_FORMAT_COO && op->nnz)
    s = check(gpuMemcpy(rows_of, op->row, (size_t)op->nnz * 4, gpuMemcpyDeviceToHost), "download");
  if (s == ZS_OK && op->format == ZS_FORMAT_CSR) {
    const size_t n_ptr = (size_t)op->n_slabs * ((size_t)op->rows + 1);
    const size_t width = op->offsets32 ? 4 : 8;
    void *ptr = malloc(n_ptr * width);
    s = ptr ? check(gpuMemcpy(ptr, op->ptr, n_ptr * width, gpuMemcpyDeviceToHost), "download")
            : fail(ZS_ERR_OUT_OF_MEMORY, "transpose index");
    for (int64_t j = 0; s == ZS_OK && j < op->n_slabs * (op->rows + 1); j++) {
      const int64_t i = j % (op->rows + 1);
      if (i == op->rows) continue;
      const int64_t b = op->offsets32 ? ((int32_t *)ptr)[j] : ((int64_t *)ptr)[j];
      const int64_t e = op->offsets32 ? ((int32_t *)ptr)[j + 1] : ((int64_t *)ptr)[j + 1];
      for (int64_t k = b; k < e; k++) rows_of[k] = (int32_t)i;
    }
    free(ptr);
    if (s == ZS_OK)
      s = transpose_op_with(&op->t_op, op->dev, op->type, op->rows, op->cols, op->nnz, rows_of, col,
                            op->val, op->forced_slabs, &op->choice);
  }
  if (s == ZS_OK && op->format == ZS_FORMAT_COO) {
    int64_t *t_ptr = NULL;
    int32_t *t_row = NULL, *t_perm = NULL;
    s = build_transpose_host(rows_of, col, op->nnz, op->cols, &t_ptr, &t_row, &t_perm);
    if (s == ZS_OK) s = upload_array(&op->t_row, t_row, (uint64_t)op->nnz, "transpose index");
    if (s == ZS_OK) s = upload_array(&op->t_perm, t_perm, (uint64_t)op->nnz, "transpose index");
    /* Aᵀ in COO: rows are A's columns (sorted), columns are A's rows. */
    for (int64_t j = 0; s == ZS_OK && j < op->cols; j++)
      for (int64_t p = t_ptr[j]; p < t_ptr[j + 1]; p++) col[p] = (int32_t)j;
    if (s == ZS_OK) s = upload_array(&op->t_idx, col, (uint64_t)op->nnz, "transpose index");
    free(t_ptr), free(t_row), free(t_perm);
  }
  free(rows_of), free(col);
  if (s == ZS_OK) op->have_transpose = true;
  return s;
}

/* One forward CSR product through a row plan: y = alpha A x + beta y. */
template <typename T, typename I, int ITEMS, bool STREAM, bool THREADS>
void run_rows(const csr_plan &c, const I *ptr, const int32_t *idx, const T *val, T alpha,
              const T *x, T beta, T *y) {
  if (c.n_blocks > 0)
    zs_csr_rows_kernel<T, I, ITEMS, STREAM, THREADS><<<(unsigned)c.n_blocks, ZS_BLOCK_THREADS>>>(
        c.blocks, ptr, idx, val, x, y, (T *)c.partials, c.long_rows, c.counters, alpha, beta);
  if (c.n_long_rows > 0 && !c.counters)
    zs_long_rows_kernel<T><<<(unsigned)((c.n_long_rows + 127) / 128), 128>>>(
        c.long_rows, (int)c.n_long_rows, (const T *)c.partials, y, alpha, beta);
}

/* The split kernel's launch, one tile per block. */
template <typename T, typename I, int ITEMS, bool STREAM, int STAGE, bool WAIT>
void launch_split(const csr_plan &c, const I *ptr, const int32_t *idx, const T *val, T alpha,
                  const T *x, T beta, T *y) {
  const zs_split_sync sync = {c.ready, c.epoch};
  zs_csr_split_kernel<T, I, ITEMS, STREAM, STAGE, WAIT><<<(unsigned)c.n_tiles, ZS_BLOCK_THREADS>>>(
      c.coords, ptr, idx, val, x, y, (T *)c.carry, (T *)c.head, sync, alpha, beta);
}

/* Where the split kernel's variants (its stagings and split_spans=wait) are compiled: evict-first
 * loads, 32-bit offsets, tiles of 512 or 1024 items (the default tiles). */
template <typename I, int ITEMS, bool STREAM>
constexpr bool split_variants_compiled() {
  return STREAM && std::is_same<I, int32_t>::value && (ITEMS == 2 || ITEMS == 4);
}

/* The staging `stage` asks for (ZS_SPLIT_* bits), where it is compiled (split_variants_compiled);
 * 16-byte loads only from 16-byte-aligned arrays (else the rest of `stage`). Elsewhere the plain
 * staging. */
template <typename T, typename I, int ITEMS, bool STREAM, bool WAIT>
void launch_split_stage(const csr_plan &c, int stage, const I *ptr, const int32_t *idx,
                        const T *val, T alpha, const T *x, T beta, T *y) {
  if constexpr (split_variants_compiled<I, ITEMS, STREAM>()) {
    constexpr int V = ZS_SPLIT_VECTOR, E = ZS_SPLIT_EARLY;
    if (((uintptr_t)idx | (uintptr_t)val) % 16 != 0) stage &= ~V;
    if (stage == V)
      return launch_split<T, I, ITEMS, STREAM, V, WAIT>(c, ptr, idx, val, alpha, x, beta, y);
    if (stage == E)
      return launch_split<T, I, ITEMS, STREAM, E, WAIT>(c, ptr, idx, val, alpha, x, beta, y);
    if (stage == (V | E))
      return launch_split<T, I, ITEMS, STREAM, V | E, WAIT>(c, ptr, idx, val, alpha, x, beta, y);
  }
  launch_split<T, I, ITEMS, STREAM, 0, WAIT>(c, ptr, idx, val, alpha, x, beta, y);
}

/* One forward CSR product by the nonzero-split kernel: the tiles, then the rows spanning them
 * (by a second kernel, or by the tile that ends each: `wait`, compiled where the staging
 * variants are; elsewhere the second kernel). */
template <typename T, typename I, int ITEMS, bool STREAM>
void run_split(csr_plan &c, int stage, bool wait, const I *ptr, const int32_t *idx, const T *val,
               T alpha, const T *x, T beta, T *y) {
  if (c.n_tiles == 0) return;
  if constexpr (split_variants_compiled<I, ITEMS, STREAM>()) {
    if (wait) {
      /* calls on one operator run in stream order, each rewriting every tile's words: the
       * words hold the last call's epoch, never this one's (wrapping included) */
      c.epoch++;
      return launch_split_stage<T, I, ITEMS, STREAM, true>(c, stage, ptr, idx, val, alpha, x, beta,
                                                           y);
    }
  }
  launch_split_stage<T, I, ITEMS, STREAM, false>(c, stage, ptr, idx, val, alpha, x, beta, y);
  if (c.n_spans > 0)
    zs_split_spans_kernel<T><<<(unsigned)((c.n_spans + 127) / 128), 128>>>(
        c.spans, c.n_spans, (const T *)c.carry, (const T *)c.head, y, alpha, beta);
}

template <typename T>
zs_status apply_csr(gpu_op *op, zs_op which, T alpha, const T *x, T beta, T *y);

template <typename T, typename I, int ITEMS, bool STREAM, bool THREADS>
zs_status apply_csr_typed(gpu_op *op, zs_op which, T alpha, const T *x, T beta, T *y) {
  const I *ptr = (const I *)op->ptr;
  const int64_t stride = op->rows + 1; /* between the slabs' row offsets */
  if (which == ZS_OP_N) {
    /* slab by slab: the first applies beta, the others add */
    for (int k = 0; k < op->n_slabs; k++)
      if (op->split)
        run_split<T, I, ITEMS, STREAM>(op->plan[k], op->stage, op->wait, ptr + k * stride, op->idx,
                                       (const T *)op->val, alpha, x, k ? T(1) : beta, y);
      else
        run_rows<T, I, ITEMS, STREAM, THREADS>(op->plan[k], ptr + k * stride, op->idx,
                                               (const T *)op->val, alpha, x, k ? T(1) : beta, y);
    return check_launch("CSR SpMV kernel");
  }
  if (!op->atomic_transpose) {
    zs_status s = ensure_transpose(op);
    return s == ZS_OK ? apply_csr<T>(op->t_op, ZS_OP_N, alpha, x, beta, y) : s;
  }
  zs_scale_kernel<T><<<grid_for(op->cols, 256), 256>>>(op->cols, beta, y);
  for (int k = 0; k < op->n_slabs; k++)
    if (op->plan[k].n_blocks > 0)
      zs_csr_scatter_kernel<T, I, ITEMS, STREAM>
          <<<(unsigned)op->plan[k].n_blocks, ZS_BLOCK_THREADS>>>(
              op->plan[k].blocks, ptr + k * stride, op->idx, (const T *)op->val, x, y, op->cols,
              alpha);
  return check_launch("CSR atomic SpMVT kernel");
}

template <typename T, int ITEMS, bool STREAM>
zs_status apply_csr_loads(gpu_op *op, zs_op which, T alpha, const T *x, T beta, T *y) {
  if (op->threads)
    return op->offsets32
               ? apply_csr_typed<T, int32_t, ITEMS, STREAM, true>(op, which, alpha, x, beta, y)
               : apply_csr_typed<T, int64_t, ITEMS, STREAM, true>(op, which, alpha, x, beta, y);
  return op->offsets32
             ? apply_csr_typed<T, int32_t, ITEMS, STREAM, false>(op, which, alpha, x, beta, y)
             : apply_csr_typed<T, int64_t, ITEMS, STREAM, false>(op, which, alpha, x, beta, y);
}

template <typename T, int ITEMS>
zs_status apply_csr_items(gpu_op *op, zs_op which, T alpha, const T *x, T beta, T *y) {
  return op->stream ? apply_csr_loads<T, ITEMS, true>(op, which, alpha, x, beta, y)
                    : apply_csr_loads<T, ITEMS, false>(op, which, alpha, x, beta, y);
}

template <typename T>
zs_status apply_csr(gpu_op *op, zs_op which, T alpha, const T *x, T beta, T *y) {
  switch (op->items) {
  case 1: return apply_csr_items<T, 1>(op, which, alpha, x, beta, y);
  case 2: return apply_csr_items<T, 2>(op, which, alpha, x, beta, y);
  case 4: return apply_csr_items<T, 4>(op, which, alpha, x, beta, y);
  default: return apply_csr_items<T, 8>(op, which, alpha, x, beta, y);
  }
}

template <typename T>
zs_status apply_coo(gpu_op *op, zs_op which, T alpha, const T *x, T beta, T *y) {
  const int64_t ny = which == ZS_OP_N ? op->rows : op->cols;
  zs_scale_kernel<T><<<grid_for(ny, 256), 256>>>(ny, beta, y);
  if (op->nnz == 0) return check_launch("COO kernel");
  if (which == ZS_OP_T && op->atomic_transpose) {
    zs_coo_scatter_kernel<T><<<grid_for(op->nnz, 256), 256>>>(op->nnz, op->row, op->idx,
                                                              (const T *)op->val, x, y, alpha);
    return check_launch("COO atomic SpMVT kernel");
  }
  if (which == ZS_OP_T) {
    zs_status s = ensure_transpose(op);
    if (s != ZS_OK) return s;
  }
  zs_coo_carry<T> c = {op->head_row, op->tail_row, (T *)op->head_sum, (T *)op->tail_sum};
  const int warps_per_block = 256 / ZS_WARP_SIZE;
  const unsigned blocks = (unsigned)((op->ranges + warps_per_block - 1) / warps_per_block);
  if (which == ZS_OP_N)
    zs_coo_ranges_kernel<T, false>
        <<<blocks, 256>>>(op->nnz, op->row, op->idx, NULL, (const T *)op->val, x, y, alpha, c);
  else
    zs_coo_ranges_kernel<T, true><<<blocks, 256>>>(op->nnz, op->t_idx, op->t_row, op->t_perm,
                                                   (const T *)op->val, x, y, alpha, c);
  zs_coo_fixup_kernel<T><<<(unsigned)((op->ranges + 255) / 256), 256>>>(op->ranges, y, alpha, c);
  return check_launch("COO SpMV kernel");
}

/* Rows whose first columns jump far from one row to the next gather x at random: there
 * smaller row blocks and evict-first matrix loads pay (9-17 % on the H100's Erdős–Rényi and
 * R-MAT), while banded and stencil rows prefer 2048-nonzero blocks and plain loads
 * (docs/performance.md, "CSR and COO"). Decided from a sample of at most 4096 row pairs. */
bool rows_scattered(const int64_t *ptr, const int32_t *col, int64_t rows) {
  const int64_t pairs = rows > 1 ? rows - 1 : 0, samples = pairs < 4096 ? pairs : 4096;
  int64_t seen = 0, far = 0;
  for (int64_t s = 0; s < samples; s++) {
    const int64_t i = s * pairs / samples;
    if (ptr[i] == ptr[i + 1] || ptr[i + 1] == ptr[i + 2]) continue;
    const int64_t d = (int64_t)col[ptr[i + 1]] - (int64_t)col[ptr[i]];
    seen++, far += d > 64 || d < -64;
  }
  return seen > 0 && 2 * far > seen;
}

void read_options(const char *options, bool *atomic, int *items, int *slabs, raw_choice *raw) {
  char buf[16];
  *atomic = zsb_option_is(options, "transpose", "atomic");
  const char *block = zsb_option(options, "block_nnz", buf, sizeof buf);
  *items = strcmp(block, "auto") == 0 ? 0 : atoi(block) / ZS_BLOCK_THREADS; /* 256..2048 */
  *slabs = atoi(zsb_option(options, "col_slabs", buf, sizeof buf));         /* auto: 0 */
  if (!raw) return;
  raw->blocks = atoi(zsb_option(options, "experimental.raw_blocks", buf, sizeof buf));
  const char *slices = zsb_option(options, "experimental.raw_slices", buf, sizeof buf);
  raw->tickets = strcmp(slices, "tickets") == 0 ? 1 : strcmp(slices, "stride") == 0 ? -1 : 0;
}

/* The experimental CSR kernel choices (-1 where the operator chooses) and block_nnz. */
csr_choice read_csr_choice(const char *options) {
  char buf[16];
  bool atomic;
  int slabs;
  csr_choice c;
  read_options(options, &atomic, &c.items, &slabs, NULL);
  const auto tri = [&](const char *key, const char *yes, const char *no) {
    const char *v = zsb_option(options, key, buf, sizeof buf);
    return strcmp(v, yes) == 0 ? 1 : strcmp(v, no) == 0 ? 0 : -1;
  };
  c.evict_first = tri("experimental.evict_first", "on", "off");
  c.threads = tri("experimental.reduce", "threads", "lanes");
  c.fused = tri("experimental.long_rows", "fused", "kernel");
  c.split = tri("kernel", "split", "rows");
  const char *stage = zsb_option(options, "experimental.split_stage", buf, sizeof buf);
  const int VE = ZS_SPLIT_VECTOR | ZS_SPLIT_EARLY;
  c.stage = strcmp(stage, "plain") == 0          ? 0
            : strcmp(stage, "vector") == 0       ? ZS_SPLIT_VECTOR
            : strcmp(stage, "early") == 0        ? ZS_SPLIT_EARLY
            : strcmp(stage, "vector_early") == 0 ? VE
                                                 : -1;
  c.wait = tri("experimental.split_spans", "wait", "kernel");
  return c;
}

/* A matrix with fewer nonzeros than ZS_CSR_MIN_BLOCKS_PER_SM default-sized row blocks per
 * multiprocessor gets smaller blocks (halved down to 256 nonzeros), so that every
 * multiprocessor has work: on the H100 zenios (27 K nonzeros) 7.9 -> 4.7 us with 256,
 * bcsstk13 (84 K) 7.1 -> 5.1 with 512 (docs/backends.md, "CSR SpMV"). But never smaller than
 * its longest row: a row longer than a block needs the second kernel, which costs more than
 * the idle multiprocessors (H100, f64: memplus, rows up to 574, 8.0 us with 512 against 6.4
 * with 1024; rmat-s14, rows up to 1540, 10.3 with 512, 9.5 with 2048). */
#define ZS_CSR_MIN_BLOCKS_PER_SM 1

/* The nonzero-split kernel is the default where row lengths spread at least this much (standard
 * deviation over mean) on a matrix too large for smaller blocks. H100, SpMV: R-MAT (4.3-8)
 * 62.5 us against the row blocks' 75.1 in f32, 76.2 against 79.2 in f64, 82.4 against 124.1
 * (scale 19, 24 per row); Barabási-Albert (1.5) 22.1 against 19.4 and every regular matrix
 * (under 0.1) 16-43 % slower. The threshold lies between the two measured groups. */
#define ZS_SPLIT_MIN_CV 2.5

/* Row-length statistics of `slabs` offset arrays (rows + 1 each, a row's length summed over
 * them) into op, with the rows longer than a block of each size: one pass over the offsets. */
void csr_row_stats(gpu_op *op, const int64_t *ptr, int64_t rows, int slabs) {
  zs_split_row_stats(ptr, rows, slabs, ZS_BLOCK_THREADS, &op->lengths);
}

/* The split kernel's staging of a tile by default (H100, SpMV warm, one process per matrix; the
 * choices in docs/performance.md, "Staging a tile"): in f32 16-byte loads and the row ends early
 * (R-MAT 62.2 -> 60.0 us, 2-D stencil 75.5 -> 68.5, banded 117.0 -> 112.1), in f64 the row ends
 * early alone (R-MAT 78.0 -> 76.8, at scale 14 9.4 -> 9.0; 16-byte loads, two per 4 values,
 * lose: R-MAT 84.1). */
int split_stage_default(zs_type type) {
  return type == ZS_F64 ? ZS_SPLIT_EARLY : ZS_SPLIT_VECTOR | ZS_SPLIT_EARLY;
}

/* Rows longer than a block finished by their last chunk (long_rows=fused) where there are at
 * most this many: the second kernel's launch then costs more than the chunks' fences and
 * counters. H200, Barabási-Albert f64 (3 rows over 1024 nonzeros): 17.9 -> 15.5 us, cuSPARSE's
 * COO 16.8; R-MAT (scale 19, thousands of long rows) was 3 % slower fused on the H100. */
#define ZS_FUSED_MAX_LONG_ROWS 32

/* A CSR operator's kernel choices (rows, nnz, type, scattered, row statistics and dev set):
 * forced ones, else the defaults. Row blocks of 1024 nonzeros where rows gather x at random,
 * else 2048, smaller for small matrices; evict-first matrix loads where the matrix exceeds half
 * the L2 (stream_matrix; faster for f32 too: lap2d 55.0 -> 44.6 us, band 84.4 -> 69.1 on the
 * H100), plain loads where it stays there between products; lanes per row; long rows by a second
 * kernel, or by their last chunk where they are few (ZS_FUSED_MAX_LONG_ROWS; reduce=threads and
 * long_rows=fused on many long rows measured slower on R-MAT: docs/backends.md). On
 * skewed rows of a matrix too large for smaller blocks, the nonzero-split kernel in tiles of
 * 1024 items (faster than 512 and 2048 on every R-MAT measured). */
void csr_choose(gpu_op *op, const csr_choice *c) {
  const int full = op->scattered ? 4 : ZS_BLOCK_ITEMS_DEFAULT;
  const int64_t sms = op->dev && op->dev->sm_count > 0 ? op->dev->sm_count : 0;
  int items = full;
  while (items > 1 && op->nnz < (int64_t)ZS_CSR_MIN_BLOCKS_PER_SM * sms * items * ZS_BLOCK_THREADS)
    items /= 2;
  const bool small = items < full;
  const bool split = !small && op->lengths.cv >= ZS_SPLIT_MIN_CV;
  op->split = c && c->split >= 0 ? c->split == 1 : split;
  if (op->split && !small) /* tiles hold any row: their size is not the rows' business */
    items = 4;
  else if (!op->split)
    while (small && items < ZS_BLOCK_ITEMS_DEFAULT &&
           op->lengths.longest > items * ZS_BLOCK_THREADS)
      items *= 2;
  op->items = c && c->items ? c->items : items;
  const double bytes =
      (double)op->nnz * (4.0 + (double)type_size(op->type)) + 8.0 * (double)op->rows;
  op->stream = c && c->evict_first >= 0 ? c->evict_first == 1 : stream_matrix(op->dev, bytes);
  op->threads = c && c->threads >= 0 ? c->threads == 1 : false;
  int k = 0;
  while (k < 3 && (1 << k) < op->items) k++;
  const bool few_long =
      op->lengths.longer[k] > 0 && op->lengths.longer[k] <= ZS_FUSED_MAX_LONG_ROWS;
  op->fused = c && c->fused >= 0 ? c->fused == 1 : !op->split && few_long;
  op->stage = c && c->stage >= 0 ? c->stage : split_stage_default(op->type);
  op->wait = c && c->wait >= 0 ? c->wait == 1 : true;
  if (c)
    op->choice = *c;
  else
    op->choice = csr_choice{0, -1, -1, -1, -1, -1, -1};
}

/* The fewest columns that hold 90 % of the nonzeros: the part of x a product keeps coming back
 * to (all of it for uniform columns, a small hot set for power-law ones); -1 out of memory. */
int64_t hot_columns(const int32_t *col, int64_t nnz, int64_t cols) {
  enum { CAP = 4096 }; /* columns with more nonzeros are counted together */
  uint32_t *count = (uint32_t *)calloc((size_t)(cols ? cols : 1), sizeof *count);
  int64_t *hist = (int64_t *)calloc(CAP, sizeof *hist);
  if (!count || !hist) {
    free(count), free(hist);
    return -1;
  }
  for (int64_t k = 0; k < nnz; k++) count[col[k]] += count[col[k]] < UINT32_MAX;
  int64_t big_cols = 0, big_nnz = 0;
  for (int64_t j = 0; j < cols; j++)
    if (count[j] >= CAP)
      big_cols++, big_nnz += count[j];
    else
      hist[count[j]]++;
  int64_t hot = big_cols, held = big_nnz;
  for (int c = CAP - 1; c > 0 && 10 * held < 9 * nnz; c--) hot += hist[c], held += c * hist[c];
  free(count), free(hist);
  return hot;
}

/* Column slabs for a CSR product that gathers x at random: as many as keep each slab's share of
 * x's hot columns within 40 % of the L2 cache. On the H100 (50 MB of L2), Erdős–Rényi f64 with 4 M
 * uniform columns (33.5 MB of x, all of it hot) runs in 2 slabs 1.24x faster (its atomic SpMVT
 * 1.7x), while R-MAT's hot columns fit and 2 slabs cost it 14 % (docs/performance.md). Rows with
 * locality reuse their lines of x anyway: one slab. */
int csr_slab_count(const gpu_device *dev, int forced, bool scattered, const int32_t *col,
                   int64_t nnz, int64_t cols, size_t value_size) {
  int k = forced; /* col_slabs=K, never more slabs than columns */
  if (!k) {
    const double cap = 0.4 * (double)dev->l2_bytes;
    if (!scattered || cap <= 0 || (double)cols * (double)value_size <= cap) return 1;
    const int64_t hot = hot_columns(col, nnz, cols);
    const double want = ceil((double)(hot < 0 ? cols : hot) * (double)value_size / cap);
    k = want < 1 ? 1 : want < ZS_MAX_SLABS ? (int)want : ZS_MAX_SLABS;
  }
  return k > cols ? (cols > 0 ? (int)cols : 1) : k;
}

/* A's nonzeros reordered slab by slab (columns [k w, (k + 1) w) for w = ceil(cols / slabs);
 * rows keep their column order inside a slab), with each slab's row offsets into the new order
 * at *ptr_out + k (rows + 1); the three arrays are allocated here (the caller frees them, also
 * when this fails). */
zs_status csr_split_slabs(const int64_t *ptr, const int32_t *col, const void *val,
                          size_t value_size, int64_t rows, int64_t cols, int slabs,
                          int64_t **ptr_out_, int32_t **col_out_, void **val_out_) {
  const size_t n = (size_t)ptr[rows];
  int64_t *ptr_out = *ptr_out_ = (int64_t *)malloc((size_t)slabs * ((size_t)rows + 1) * 8);
  int32_t *col_out = *col_out_ = (int32_t *)malloc(n ? n * 4 : 1);
  void *val_out = *val_out_ = malloc(n ? n * value_size : 1);
  if (!ptr_out || !col_out || !val_out)
    return fail(ZS_ERR_OUT_OF_MEMORY, "column slabs of a %lld-nonzero matrix", (long long)n);
  const int64_t w = (cols + slabs - 1) / slabs, stride = rows + 1;
  /* counts, then offsets: slab k starts after every nonzero of slabs < k */
  for (int k = 0; k < slabs; k++) ptr_out[k * stride] = 0;
  for (int64_t i = 0; i < rows; i++) {
    for (int k = 0; k < slabs; k++) ptr_out[k * stride + i + 1] = 0;
    for (int64_t p = ptr[i]; p < ptr[i + 1]; p++) ptr_out[(col[p] / w) * stride + i + 1]++;
  }
  int64_t base = 0;
  for (int k = 0; k < slabs; k++) {
    int64_t *o = ptr_out + k * stride;
    o[0] = base;
    for (int64_t i = 0; i < rows; i++) o[i + 1] += o[i];
    base = o[rows];
  }
  char *vo = (char *)val_out;
  const char *vi = (const char *)val;
  for (int64_t i = 0; i < rows; i++)
    for (int64_t p = ptr[i], k = 0, q = ptr_out[i]; p < ptr[i + 1]; p++) {
      while (col[p] >= (k + 1) * w) k++, q = ptr_out[k * stride + i];
      col_out[q] = col[p];
      memcpy(vo + (size_t)q * value_size, vi + (size_t)p * value_size, value_size);
      q++;
    }
  return ZS_OK;
}

/* A CSR operator's row offsets (n_slabs (rows + 1) of them, from the host) and each slab's row
 * plan on the device; rows, n_slabs, offsets32, items and type set before. */
zs_status upload_slabs(gpu_op *op, const int64_t *host_ptr) {
  const int64_t stride = op->rows + 1;
  zs_status s = upload_offsets(&op->ptr, host_ptr, op->n_slabs * stride, op->offsets32, "row_ptr");
  for (int k = 0; s == ZS_OK && k < op->n_slabs; k++) {
    s = upload_plan(host_ptr + k * stride, op->rows, op->items, type_size(op->type), op->fused,
                    &op->plan[k]);
    if (s == ZS_OK && op->split)
      s = upload_split_plan(host_ptr + k * stride, op->rows, op->items, type_size(op->type),
                            &op->plan[k]);
  }
  return s;
}

/* A CSR operator around device arrays (it takes them over), with `slabs` column slabs whose row
 * offsets are host_ptr + k (rows + 1): transpose_op's result. */
zs_status csr_op_adopt(gpu_op **out, const gpu_device *dev, zs_type type, int64_t rows,
                       int64_t cols, int64_t nnz, const int64_t *host_ptr, int slabs,
                       bool scattered, const csr_choice *choice, int32_t *d_idx, void *d_val) {
  gpu_op *op = (gpu_op *)calloc(1, sizeof(gpu_op));
  if (!op) {
    release(d_idx), release(d_val);
    return fail(ZS_ERR_OUT_OF_MEMORY, "operator");
  }
  op->dev = dev;
  op->format = ZS_FORMAT_CSR, op->type = type, op->rows = rows, op->cols = cols, op->nnz = nnz;
  op->idx = d_idx, op->val = d_val;
  op->offsets32 = nnz <= INT32_MAX;
  op->scattered = scattered;
  op->n_slabs = slabs;
  csr_row_stats(op, host_ptr, rows, slabs);
  csr_choose(op, choice);
  zs_status s = upload_slabs(op, host_ptr);
  if (s != ZS_OK) {
    op_free(op);
    return s;
  }
  *out = op;
  return ZS_OK;
}

zs_status csr_apply(gpu_op *op, zs_op which, double alpha, const void *x, double beta, void *y) {
  if (op->type == ZS_F64)
    return op->format == ZS_FORMAT_CSR
               ? apply_csr<double>(op, which, alpha, (const double *)x, beta, (double *)y)
               : apply_coo<double>(op, which, alpha, (const double *)x, beta, (double *)y);
  return op->format == ZS_FORMAT_CSR
             ? apply_csr<float>(op, which, (float)alpha, (const float *)x, (float)beta, (float *)y)
             : apply_coo<float>(op, which, (float)alpha, (const float *)x, (float)beta, (float *)y);
}

void csr_op_free(gpu_op *op) {
  if (op) op_free(op);
}

/* The arrays of a CSR (row_ptr) or COO (row_idx) blob, read through the format's typed layout
 * as the reference decoder and the cpu read them. */
struct plain_arrays {
  const int64_t *row_ptr; /* CSR; else NULL */
  const int32_t *row_idx; /* COO; else NULL */
  const int32_t *col_idx;
  const void *values;
};

zs_status plain_parse(const zsb_encoded_view *v, plain_arrays *a) {
  char why[ZSI_LAYOUT_WHY];
  zs_status s;
  *a = plain_arrays{};
  if (v->format == ZS_FORMAT_CSR) {
    csr_layout L;
    if ((s = csr_layout_parse(v, &L, why, sizeof why)) == ZS_OK)
      a->row_ptr = L.row_ptr, a->col_idx = L.col_idx, a->values = L.values;
  } else {
    coo_layout L;
    if ((s = coo_layout_parse(v, &L, why, sizeof why)) == ZS_OK)
      a->row_idx = L.row_idx, a->col_idx = L.col_idx, a->values = L.values;
  }
  return s == ZS_OK ? ZS_OK : fail(s, "backend '%s': %s", ZS_GPU_BACKEND_NAME, why);
}

/* A CSR or COO operator (the view's format) for the context whose device is dev. */
zs_status csr_gpu_create(const gpu_device *dev, void **out, const zsb_encoded_view *v,
                         const char *options) {
  plain_arrays a;
  zs_status s = plain_parse(v, &a);
  if (s != ZS_OK) return s;
  gpu_op *op = (gpu_op *)calloc(1, sizeof(gpu_op));
  if (!op) return fail(ZS_ERR_OUT_OF_MEMORY, "operator");
  op->dev = dev, op->format = v->format, op->type = v->type;
  op->rows = v->rows, op->cols = v->cols, op->nnz = v->nnz;
  int slabs = 0, items = 0;
  read_options(options, &op->atomic_transpose, &items, &slabs, NULL);
  const csr_choice choice = read_csr_choice(options);
  const size_t vs = type_size(v->type);
  const void *val_data = a.values, *col_data = a.col_idx;
  const int64_t *ptr = NULL;
  int64_t *slab_ptr = NULL; /* host arrays of a CSR split into column slabs */
  int32_t *slab_col = NULL;
  void *slab_val = NULL;
  op->n_slabs = 1;
  if (s == ZS_OK && v->format == ZS_FORMAT_CSR) {
    ptr = a.row_ptr;
    op->scattered = rows_scattered(ptr, a.col_idx, v->rows);
    op->forced_slabs = slabs;
    op->n_slabs = csr_slab_count(op->dev, slabs, op->scattered, a.col_idx, v->nnz, v->cols, vs);
  }
  if (s == ZS_OK && op->n_slabs > 1) {
    s = csr_split_slabs(ptr, a.col_idx, a.values, vs, v->rows, v->cols, op->n_slabs, &slab_ptr,
                        &slab_col, &slab_val);
    val_data = slab_val, col_data = slab_col;
  }
  if (s == ZS_OK) s = check(gpuMalloc(&op->val, (size_t)(v->nnz ? v->nnz : 1) * vs), "values");
  if (s == ZS_OK && v->nnz)
    s = check(gpuMemcpy(op->val, val_data, (size_t)v->nnz * vs, gpuMemcpyHostToDevice), "values");
  if (s == ZS_OK) s = upload_array(&op->idx, col_data, (uint64_t)v->nnz, "col_idx");
  if (s == ZS_OK && v->format == ZS_FORMAT_CSR) {
    op->offsets32 = v->nnz <= INT32_MAX;
    csr_row_stats(op, ptr, v->rows, 1);
    csr_choose(op, &choice);
    s = upload_slabs(op, slab_ptr ? slab_ptr : ptr);
  }
  free(slab_ptr), free(slab_col), free(slab_val);
  if (s == ZS_OK && v->format == ZS_FORMAT_COO) {
    op->items = ZS_BLOCK_ITEMS_DEFAULT;
    s = upload_array(&op->row, a.row_idx, (uint64_t)v->nnz, "row_idx");
    op->ranges = (v->nnz + ZS_COO_RANGE - 1) / ZS_COO_RANGE;
    const size_t r = (size_t)(op->ranges ? op->ranges : 1);
    if (s == ZS_OK) s = check(gpuMalloc((void **)&op->head_row, r * 4), "COO carries");
    if (s == ZS_OK) s = check(gpuMalloc((void **)&op->tail_row, r * 4), "COO carries");
    if (s == ZS_OK) s = check(gpuMalloc(&op->head_sum, r * vs), "COO carries");
    if (s == ZS_OK) s = check(gpuMalloc(&op->tail_sum, r * vs), "COO carries");
  }
  if (s != ZS_OK) {
    op_free(op);
    return s;
  }
  *out = op;
  return ZS_OK;
}

void csr_gpu_destroy(void *state) { csr_op_free((gpu_op *)state); }

zs_status csr_gpu_apply(void *state, zs_op which, double alpha, const void *x, double beta,
                        void *y) {
  return csr_apply((gpu_op *)state, which, alpha, x, beta, y);
}

const gpu_format *gpu_format_csr() {
  /* a function's static, not a namespace-scope constant: HIP would also emit one for the device */
  static const gpu_format table = {ZS_FORMAT_CSR, csr_gpu_create, csr_gpu_destroy, csr_gpu_apply,
                                   NULL};
  return &table;
}
const gpu_format *gpu_format_coo() {
  /* a function's static, not a namespace-scope constant: HIP would also emit one for the device */
  static const gpu_format table = {ZS_FORMAT_COO, csr_gpu_create, csr_gpu_destroy, csr_gpu_apply,
                                   NULL};
  return &table;
}

} /* namespace zs_gpu */
