/* csb_gpu.cuh — CSB/GCSB operators of the GPU modules (included by gpu_module.cuh, inside its
 * anonymous namespace, after the shared helpers fail/check/upload_array). */

/* Two kernels serve both formats and both ops (TRANS swaps which half of local_idx indexes x):
 * - deterministic (default for SpMV and SpMVT): a thread per output block (block row for Ax,
 *   block column for Aᵀx) walks that block's blocks in a fixed order and sums in shared memory;
 *   it owns its beta outputs, so no atomics and the same bits every run;
 * - atomic ("spmv=atomic", "transpose=atomic"): a thread per block in the format's order (the
 *   thesis' kernel: for GCSB the lanes of a warp read a group's k-th elements together), each
 *   summing its block's rows in shared memory; the lanes then reduce across the warp, lanes
 *   with the same output block together, so one atomic per (output block run, row) reaches y
 *   instead of one per nonzero. */
#define ZS_CSB_THREADS 128
#define ZS_CSB_SHARED_BETA 32 /* larger beta: sums in y itself, or an atomic per nonzero */

struct zs_csb_task {
  int64_t first;  /* slot of the block's first element */
  int32_t count;  /* real elements */
  int32_t stride; /* slots between its elements: 1 (CSB) or the group's block count (GCSB) */
  int32_t brow, bcol;
};

struct csb_gpu_op {
  zs_type type;
  int64_t rows, cols, nb, nbr, nbc, beta;
  int lb;
  bool idx16, atomic_n, atomic_t;
  void *val, *idx;
  zs_csb_task *blocks;          /* format order (atomic kernel) */
  int64_t *n_ptr, *t_ptr;       /* per block row / column: its range of n_task / t_task */
  zs_csb_task *n_task, *t_task; /* blocks by row (ascending column) and by column */
};

template <typename T>
__device__ __forceinline__ T zs_csb_finish(T alpha, T s, T beta, const T *y) {
  return beta == T(0) ? alpha * s : alpha * s + beta * *y;
}

template <typename T, typename I, bool TRANS>
__global__ void zs_csb_owner_kernel(int64_t n_blocks_out, int64_t n_out, int lb, const int64_t *ptr,
                                    const zs_csb_task *task, const T *val, const I *idx, const T *x,
                                    T *y, T alpha, T beta) {
  extern __shared__ unsigned char zs_csb_smem[];
  T *acc = (T *)zs_csb_smem; /* acc[r * blockDim.x + tid]: lanes hit distinct banks */
  const int64_t o = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (o >= n_blocks_out) return;
  const int64_t bsz = (int64_t)1 << lb, o0 = o << lb;
  const int no = (int)(n_out - o0 < bsz ? n_out - o0 : bsz);
  const uint32_t mask = (uint32_t)bsz - 1;
  const bool shared = bsz <= ZS_CSB_SHARED_BETA;
  for (int r = 0; r < no; r++) {
    if (shared)
      acc[r * blockDim.x + threadIdx.x] = T(0);
    else
      y[o0 + r] = beta == T(0) ? T(0) : beta * y[o0 + r];
  }
  for (int64_t p = ptr[o]; p < ptr[o + 1]; p++) {
    const zs_csb_task b = task[p];
    const T *xb = x + ((int64_t)(TRANS ? b.brow : b.bcol) << lb);
    for (int32_t j = 0; j < b.count; j++) {
      const int64_t k = b.first + (int64_t)j * b.stride;
      const uint32_t i = idx[k];
      const uint32_t out = TRANS ? i & mask : i >> lb, in = TRANS ? i >> lb : i & mask;
      if (shared)
        acc[out * blockDim.x + threadIdx.x] += val[k] * xb[in];
      else
        y[o0 + out] += alpha * (val[k] * xb[in]);
    }
  }
  if (shared)
    for (int r = 0; r < no; r++)
      y[o0 + r] = zs_csb_finish(alpha, acc[r * blockDim.x + threadIdx.x], beta, &y[o0 + r]);
}

/* y was scaled by beta before. */
template <typename T, typename I, bool TRANS>
__global__ void zs_csb_atomic_kernel(int64_t nb, int lb, const zs_csb_task *blocks, const T *val,
                                     const I *idx, const T *x, T *y, T alpha) {
  extern __shared__ unsigned char zs_csb_smem[];
  T *acc = (T *)zs_csb_smem;
  const int64_t b = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  const int bsz = 1 << lb, lane = threadIdx.x % ZS_WARP_SIZE;
  const uint32_t mask = (uint32_t)bsz - 1;
  if (bsz > ZS_CSB_SHARED_BETA) { /* the thesis' kernel: one atomic per nonzero */
    if (b >= nb) return;
    const zs_csb_task t = blocks[b];
    const T *xb = x + ((int64_t)(TRANS ? t.brow : t.bcol) << lb);
    T *yb = y + ((int64_t)(TRANS ? t.bcol : t.brow) << lb);
    for (int32_t j = 0; j < t.count; j++) {
      const int64_t k = t.first + (int64_t)j * t.stride;
      const uint32_t i = idx[k];
      atomicAdd(&yb[TRANS ? i & mask : i >> lb], alpha * (val[k] * xb[TRANS ? i >> lb : i & mask]));
    }
    return;
  }
  for (int r = 0; r < bsz; r++) acc[r * blockDim.x + threadIdx.x] = T(0);
  uint32_t touched = 0; /* rows (or columns) of the output block this lane added to */
  int64_t key = -1;     /* the output block; -1 for lanes past the end */
  if (b < nb) {
    const zs_csb_task t = blocks[b];
    const T *xb = x + ((int64_t)(TRANS ? t.brow : t.bcol) << lb);
    key = TRANS ? t.bcol : t.brow;
    for (int32_t j = 0; j < t.count; j++) {
      const int64_t k = t.first + (int64_t)j * t.stride;
      const uint32_t i = idx[k];
      const uint32_t out = TRANS ? i & mask : i >> lb;
      acc[out * blockDim.x + threadIdx.x] += val[k] * xb[TRANS ? i >> lb : i & mask];
      touched |= 1u << out;
    }
  }
  /* Runs of lanes with the same output block reduce together: lane i ends up with the sum
   * of lanes [i, seg_end) after the doubling steps, where seg_end is the next run head. */
  const int64_t prev_key = zs_shfl_up(key, 1);
  const zs_lane_mask heads = zs_ballot(lane == 0 || prev_key != key);
  const unsigned long long above =
      (unsigned long long)heads & ~((2ull << lane) - 1ull) & ((2ull << (ZS_WARP_SIZE - 1)) - 1ull);
  const int seg_end = above ? __ffsll((long long)above) - 1 : ZS_WARP_SIZE;
  const bool head = (((unsigned long long)heads >> lane) & 1ull) != 0;
  uint32_t seg_touched = touched;
  for (int d = 1; d < ZS_WARP_SIZE; d *= 2) {
    const uint32_t t = zs_shfl_down(seg_touched, d);
    if (lane + d < seg_end) seg_touched |= t;
  }
  for (int r = 0; r < bsz; r++) {
    if (!zs_ballot((touched >> r) & 1u)) continue; /* warp-uniform */
    T v = acc[r * blockDim.x + threadIdx.x];
    for (int d = 1; d < ZS_WARP_SIZE; d *= 2) {
      const T u = zs_shfl_down(v, d);
      if (lane + d < seg_end) v += u;
    }
    if (head && key >= 0 && ((seg_touched >> r) & 1u)) atomicAdd(&y[(key << lb) + r], alpha * v);
  }
}

/* Real elements of a GCSB block: the prefix of its slots whose Morton keys ascend (padding
 * repeats the last index). */
uint32_t csb_morton(uint32_t i, int lb) {
  uint32_t m = 0;
  for (int b = 0; b < lb; b++)
    m |= ((i >> b) & 1u) << (2 * b) | ((i >> (lb + b)) & 1u) << (2 * b + 1);
  return m;
}

void csb_gpu_destroy(void *state) {
  csb_gpu_op *op = (csb_gpu_op *)state;
  if (!op) return;
  void *ptrs[] = {op->val, op->idx, op->blocks, op->n_ptr, op->t_ptr, op->n_task, op->t_task};
  for (void *p : ptrs) release(p);
  free(op);
}

/* Stable counting sort of tasks by row (by_row) or column; ptr gets n_keys + 1 entries. */
bool csb_sort_tasks(const zs_csb_task *in, int64_t nb, int64_t n_keys, bool by_row, int64_t *ptr,
                    zs_csb_task *out) {
  int64_t *next = (int64_t *)calloc((size_t)n_keys + 1, sizeof(int64_t));
  if (!next) return false;
  memset(ptr, 0, ((size_t)n_keys + 1) * sizeof(int64_t));
  for (int64_t b = 0; b < nb; b++) ptr[(by_row ? in[b].brow : in[b].bcol) + 1]++;
  for (int64_t k = 0; k < n_keys; k++) ptr[k + 1] += ptr[k];
  memcpy(next, ptr, (size_t)n_keys * sizeof(int64_t));
  for (int64_t b = 0; b < nb; b++) out[next[by_row ? in[b].brow : in[b].bcol]++] = in[b];
  free(next);
  return true;
}

zs_status csb_gpu_create(void **state, const zsb_encoded_view *v, const char *options) {
  csb_gpu_op *op = (csb_gpu_op *)calloc(1, sizeof(csb_gpu_op));
  if (!op) return fail(ZS_ERR_OUT_OF_MEMORY, "CSB operator");
  zs_status s = ZS_OK;
  for (const char *p = options; p && *p && s == ZS_OK;) {
    const char *end = strchr(p, ',');
    const int len = (int)(end ? (size_t)(end - p) : strlen(p));
    char opt[64];
    snprintf(opt, sizeof opt, "%.*s", len, p);
    if (strcmp(opt, "transpose=atomic") == 0)
      op->atomic_t = true;
    else if (strcmp(opt, "spmv=atomic") == 0)
      op->atomic_n = true;
    else if (strcmp(opt, "transpose=deterministic") != 0 && strcmp(opt, "spmv=deterministic") != 0)
      s = fail(ZS_ERR_INVALID_ARGUMENT,
               "backend '%s': option '%s' unknown for %s (known: transpose=deterministic|atomic, "
               "spmv=deterministic|atomic)",
               ZS_GPU_BACKEND_NAME, opt, v->format == ZS_FORMAT_CSB ? "csb" : "gcsb");
    p = end ? end + 1 : p + len;
  }
  op->type = v->type, op->rows = v->rows, op->cols = v->cols;
  op->beta = zsb_find_param(v, "beta", 2);
  while ((INT64_C(1) << op->lb) < op->beta) op->lb++;
  op->nbr = (op->rows + op->beta - 1) >> op->lb, op->nbc = (op->cols + op->beta - 1) >> op->lb;
  op->idx16 = op->beta <= 256;
  const zsb_array *va = zsb_find_array(v, "values"), *ia = zsb_find_array(v, "local_idx");
  const bool gcsb = v->format == ZS_FORMAT_GCSB;
  const zsb_array *ba = zsb_find_array(v, gcsb ? "block_index" : "block_col");
  op->nb = (int64_t)ba->count;
  const int64_t nb = op->nb;
  zs_csb_task *host = (zs_csb_task *)malloc((size_t)(nb ? nb : 1) * sizeof(zs_csb_task));
  zs_csb_task *sorted = (zs_csb_task *)malloc((size_t)(nb ? nb : 1) * sizeof(zs_csb_task));
  int64_t *ptr = (int64_t *)malloc((size_t)((op->nbr > op->nbc ? op->nbr : op->nbc) + 1) * 8);
  if (s == ZS_OK && (!host || !sorted || !ptr)) s = fail(ZS_ERR_OUT_OF_MEMORY, "CSB block tables");
  if (s == ZS_OK && !gcsb) {
    const int64_t *bp = (const int64_t *)zsb_find_array(v, "block_ptr")->data;
    const int32_t *bc = (const int32_t *)ba->data;
    const int64_t *bo = (const int64_t *)zsb_find_array(v, "block_offset")->data;
    for (int64_t r = 0; r < op->nbr; r++)
      for (int64_t b = bp[r]; b < bp[r + 1]; b++)
        host[b] = {bo[b], (int32_t)(bo[b + 1] - bo[b]), 1, (int32_t)r, bc[b]};
  } else if (s == ZS_OK) {
    const int64_t *go = (const int64_t *)zsb_find_array(v, "group_offset")->data;
    const int64_t G = zsb_find_param(v, "group_size", 1);
    for (int64_t p = 0; p < nb; p++) {
      const uint64_t lin =
          ba->elem_size == 4 ? ((const uint32_t *)ba->data)[p] : ((const uint64_t *)ba->data)[p];
      const int64_t q = p / G, t = p % G, nbg = nb - q * G < G ? nb - q * G : G;
      const int64_t depth = (go[q + 1] - go[q]) / nbg;
      int32_t count = 1;
      uint32_t prev = 0;
      for (int64_t j = 0; j < depth; j++) {
        const int64_t k = go[q] + j * nbg + t;
        const uint32_t i =
            op->idx16 ? ((const uint16_t *)ia->data)[k] : ((const uint32_t *)ia->data)[k];
        const uint32_t m = csb_morton(i, op->lb);
        if (j > 0 && m <= prev) break;
        prev = m, count = (int32_t)(j + 1);
      }
      host[p] = {go[q] + t, count, (int32_t)nbg, (int32_t)(lin / (uint64_t)op->nbc),
                 (int32_t)(lin % (uint64_t)op->nbc)};
    }
  }
  const size_t vs = v->type == ZS_F64 ? 8 : 4;
  if (s == ZS_OK && va->count) {
    s = check(gpuMalloc(&op->val, va->count * vs), "CSB values");
    if (s == ZS_OK)
      s = check(gpuMemcpy(op->val, va->data, va->count * vs, gpuMemcpyHostToDevice), "CSB values");
  }
  if (s == ZS_OK && op->idx16)
    s = upload_array((uint16_t **)&op->idx, ia->data, ia->count, "CSB local_idx");
  else if (s == ZS_OK)
    s = upload_array((uint32_t **)&op->idx, ia->data, ia->count, "CSB local_idx");
  if (s == ZS_OK) s = upload_array(&op->blocks, host, (uint64_t)nb, "CSB blocks");
  /* Blocks by row: a stable sort by column first makes the row order ascend in column. */
  zs_csb_task *by_col = (zs_csb_task *)malloc((size_t)(nb ? nb : 1) * sizeof(zs_csb_task));
  if (s == ZS_OK && (!by_col || !csb_sort_tasks(host, nb, op->nbc, false, ptr, by_col)))
    s = fail(ZS_ERR_OUT_OF_MEMORY, "CSB block order");
  if (s == ZS_OK && !csb_sort_tasks(by_col, nb, op->nbr, true, ptr, sorted))
    s = fail(ZS_ERR_OUT_OF_MEMORY, "CSB block order");
  if (s == ZS_OK) s = upload_array(&op->n_ptr, ptr, (uint64_t)op->nbr + 1, "CSB row order");
  if (s == ZS_OK) s = upload_array(&op->n_task, sorted, (uint64_t)nb, "CSB row order");
  if (s == ZS_OK && !csb_sort_tasks(sorted, nb, op->nbc, false, ptr, by_col))
    s = fail(ZS_ERR_OUT_OF_MEMORY, "CSB block order");
  if (s == ZS_OK) s = upload_array(&op->t_ptr, ptr, (uint64_t)op->nbc + 1, "CSB column order");
  if (s == ZS_OK) s = upload_array(&op->t_task, by_col, (uint64_t)nb, "CSB column order");
  free(host), free(sorted), free(ptr), free(by_col);
  if (s != ZS_OK) {
    csb_gpu_destroy(op);
    return s;
  }
  *state = op;
  return ZS_OK;
}

template <typename T, typename I>
zs_status csb_apply_typed(csb_gpu_op *op, zs_op which, T alpha, const T *x, T beta, T *y) {
  const bool t = which == ZS_OP_T;
  const int64_t n_out = t ? op->cols : op->rows, n_blocks_out = t ? op->nbc : op->nbr;
  if (n_out == 0) return ZS_OK;
  const size_t smem =
      op->beta <= ZS_CSB_SHARED_BETA ? (size_t)op->beta * ZS_CSB_THREADS * sizeof(T) : 0;
  if (t ? op->atomic_t : op->atomic_n) {
    zs_scale_kernel<T><<<grid_for(n_out, 256), 256>>>(n_out, beta, y);
    if (op->nb > 0) {
      const unsigned grid = (unsigned)((op->nb + ZS_CSB_THREADS - 1) / ZS_CSB_THREADS);
      if (t)
        zs_csb_atomic_kernel<T, I, true><<<grid, ZS_CSB_THREADS, smem>>>(
            op->nb, op->lb, op->blocks, (const T *)op->val, (const I *)op->idx, x, y, alpha);
      else
        zs_csb_atomic_kernel<T, I, false><<<grid, ZS_CSB_THREADS, smem>>>(
            op->nb, op->lb, op->blocks, (const T *)op->val, (const I *)op->idx, x, y, alpha);
    }
    return check_launch("CSB atomic kernel");
  }
  const unsigned grid = (unsigned)((n_blocks_out + ZS_CSB_THREADS - 1) / ZS_CSB_THREADS);
  if (t)
    zs_csb_owner_kernel<T, I, true>
        <<<grid, ZS_CSB_THREADS, smem>>>(n_blocks_out, n_out, op->lb, op->t_ptr, op->t_task,
                                         (const T *)op->val, (const I *)op->idx, x, y, alpha, beta);
  else
    zs_csb_owner_kernel<T, I, false>
        <<<grid, ZS_CSB_THREADS, smem>>>(n_blocks_out, n_out, op->lb, op->n_ptr, op->n_task,
                                         (const T *)op->val, (const I *)op->idx, x, y, alpha, beta);
  return check_launch("CSB kernel");
}

zs_status csb_gpu_apply(void *state, zs_op which, double alpha, const void *x, double beta,
                        void *y) {
  csb_gpu_op *op = (csb_gpu_op *)state;
  if (op->type == ZS_F64)
    return op->idx16 ? csb_apply_typed<double, uint16_t>(op, which, alpha, (const double *)x, beta,
                                                         (double *)y)
                     : csb_apply_typed<double, uint32_t>(op, which, alpha, (const double *)x, beta,
                                                         (double *)y);
  return op->idx16 ? csb_apply_typed<float, uint16_t>(op, which, (float)alpha, (const float *)x,
                                                      (float)beta, (float *)y)
                   : csb_apply_typed<float, uint32_t>(op, which, (float)alpha, (const float *)x,
                                                      (float)beta, (float *)y);
}

const gpu_format csb_gpu_format = {ZS_FORMAT_CSB, csb_gpu_create, csb_gpu_destroy, csb_gpu_apply};
const gpu_format gcsb_gpu_format = {ZS_FORMAT_GCSB, csb_gpu_create, csb_gpu_destroy, csb_gpu_apply};
