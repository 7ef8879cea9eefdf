/* cci_gpu.cuh — CCI operators of the GPU modules: one unit of its own (backends/cuda/cuda_cci.cu,
 * backends/hip/hip_cci.cpp). */
#include "backends/cuda_hip/csr_kernels.cuh"
#include "backends/cuda_hip/gpu_common.cuh"
#include "formats/cci/cci_layout.h"

namespace zs_gpu {
namespace {

#define ZS_CCI_THREADS 256

struct cci_table {
  uint32_t e[ZS_CCI_TABLE];
};

/* One code from the stream at *pos with the decode table in shared memory. */
__device__ __forceinline__ uint64_t cci_next_dev(const uint64_t *__restrict__ codes, uint64_t *pos,
                                                 const uint32_t *tab) {
  const uint64_t m = zs_cci_peek(codes, *pos);
  const uint32_t t = tab[m & 7];
  *pos += t & 0xff;
  return (m >> ((t >> 8) & 0xff)) & ((UINT64_C(1) << (t >> 16)) - 1);
}

/* The first kernel (slower than the batched one), kept for comparisons: the operator option
 * experimental.kernel=slices. S lanes per row, lane s decoding slice s (the row's entries s, s + S,
 * ...). The slices' first columns chain (entry s is entry s - 1 plus 1 + its code), so step 0
 * ends with an inclusive scan over the S lanes; later steps are independent per lane. Then a
 * segmented reduction of the S partial sums. ATOMIC: SpMVT, each product added into y[col]. */
template <typename T, typename CS, int S, bool ATOMIC>
__global__ void __launch_bounds__(ZS_CCI_THREADS)
    zs_cci_kernel(int64_t rows, int64_t cols, int64_t shift, const int64_t *__restrict__ rp,
                  const CS *__restrict__ cstart, const uint64_t *__restrict__ codes,
                  const T *__restrict__ val, const T *__restrict__ x, T *__restrict__ y, T alpha,
                  T beta, cci_table table) {
  __shared__ uint32_t tab[ZS_CCI_TABLE];
  if (threadIdx.x < ZS_CCI_TABLE) tab[threadIdx.x] = table.e[threadIdx.x];
  __syncthreads();
  const int64_t t = (int64_t)blockIdx.x * ZS_CCI_THREADS + threadIdx.x;
  const int64_t row = t / S;
  const int s = (int)(t % S);
  const bool live = row < rows;
  int64_t b = 0, n = 0;
  if (live) b = rp[row], n = rp[row + 1] - b;
  uint64_t pos = 0;
  int64_t col = 0;
  if (s < n) {
    pos = cstart[row * S + s];
    const uint64_t u = cci_next_dev(codes, &pos, tab);
    col = s == 0 ? zs_cci_ref(row, rows, cols, shift) + zs_cci_unzigzag(u) : (int64_t)u + 1;
  }
  for (int d = 1; d < S; d *= 2) {
    const int64_t up = zs_shfl_up(col, d);
    if (s >= d) col += up;
  }
  const T xr = ATOMIC && live ? alpha * x[row] : T(0);
  T sum = 0;
  if (s < n) {
    if (ATOMIC)
      atomicAdd(&y[col], val[b + s] * xr);
    else
      sum = val[b + s] * x[col];
  }
  for (int64_t k = s + S; k < n; k += S) {
    col += S + (int64_t)cci_next_dev(codes, &pos, tab);
    if (ATOMIC)
      atomicAdd(&y[col], val[b + k] * xr);
    else
      sum += val[b + k] * x[col];
  }
  if (ATOMIC) return;
  sum = zs_group_sum(sum, S);
  if (live && s == 0) y[row] = beta == T(0) ? alpha * sum : alpha * sum + beta * y[row];
}

/* ---- the batched kernel (default) ----
 * The same lanes as zs_cci_kernel (S per row, lane s walks slice s), restructured so that a
 * lane's DRAM reads are issued together instead of one dependent round trip per code:
 * - a warp takes ZS_CCI_STEPS consecutive groups of rows and loads the next group's row
 *   offset and stream start while it works on the current one, so only the values and the
 *   stream words (issued together) wait on DRAM in each group;
 * - codes are decoded from a register window of 32-bit words with the table in a kernel
 *   parameter, and the gathers of x are issued as the columns come out, cci_chunk<T, S>() per
 *   lane before the first product is summed;
 * - in longer rows the next chunk's values are requested before this chunk's products are
 *   summed. */
#define ZS_CCI_STEPS 4

/* Codes per lane and chunk: 8 in f64 with S <= 4 (12 % less time than 4 on the H100), else 4: f32
 * gained nothing from 8, and at S = 8 a lane's row share is short (st27: 3-4 codes), so 8-code
 * chunks would mostly decode padding (1.4x slower). */
template <typename T, int S>
__host__ __device__ constexpr int cci_chunk() {
  return sizeof(T) == 8 && S <= 4 ? 8 : 4;
}

/* One lane's stream as a window of three 32-bit words (the stream's bits in little-endian
 * order): a code (at most 35 bits) starting at bit `off` < 32 of w0 lies inside it, so every
 * shift is a 32-bit funnel shift. The window steps on right after a code. A lane decodes up to
 * a chunk of codes past the end of its stream (unused, so that its lanes never branch apart):
 * with the window's lead that reads at most ZS_CCI_CODES_PAD 64-bit words beyond the array,
 * which the device copy of `codes` pads with zeros. */
#define ZS_CCI_CODES_PAD 12
template <typename CS>
struct cci_window {
  uint32_t w0, w1, w2;
  CS next; /* index of the word after w2 */
  unsigned off;
};

template <typename CS>
__device__ __forceinline__ cci_window<CS> cci_window_at(const uint32_t *__restrict__ codes,
                                                        CS pos) {
  const CS at = pos >> 5;
  return cci_window<CS>{codes[at], codes[at + 1], codes[at + 2], at + 3, (unsigned)(pos & 31)};
}

/* The next code's immediate. `tab` holds the decode table as 8 bytes, entry t in byte t as
 * opcode length | width << 2 (zs_cci_bytes_table): one byte permute (CUDA and HIP both have
 * __byte_perm) of a kernel parameter instead of a shared-memory load on the decode's
 * dependency chain. The step is written as selects so that no branch splits the warp. LONG:
 * the table has codes of 33-35 bits, which can leave `off` at 32 or more after one step. */
template <bool LONG, typename CS>
__device__ __forceinline__ uint32_t cci_take(cci_window<CS> &w, const uint32_t *__restrict__ codes,
                                             uint64_t tab) {
  const uint32_t m = __funnelshift_r(w.w0, w.w1, w.off), mh = __funnelshift_r(w.w1, w.w2, w.off);
  const unsigned e = __byte_perm((uint32_t)tab, (uint32_t)(tab >> 32), m & 7);
  const unsigned len = e & 3, width = (e >> 2) & 63;
  w.off += len + width;
  for (int k = 0; k < (LONG ? 2 : 1); k++) {
    const bool step = w.off >= 32;
    const uint32_t fresh = step ? codes[w.next] : w.w2;
    w.w0 = step ? w.w1 : w.w0, w.w1 = step ? w.w2 : w.w1, w.w2 = fresh;
    w.next += step ? 1 : 0, w.off -= step ? 32 : 0;
  }
  /* the immediate's width low bits; the mask is 2^width - 1 for width 0 ... 32 */
  return __funnelshift_r(m, mh, len) & __funnelshift_lc(0xffffffffu, 0u, width);
}

/* What a lane needs to know of its row before it can load anything else. */
template <typename CS>
struct cci_lane_start {
  int64_t b; /* the row's first nonzero */
  int n;     /* its length */
  CS pos;    /* the first bit of this lane's stream */
};

template <typename CS, int S>
__device__ __forceinline__ cci_lane_start<CS> cci_start(int64_t row, int s, int64_t rows,
                                                        const int64_t *__restrict__ rp,
                                                        const CS *__restrict__ cstart) {
  cci_lane_start<CS> r{0, 0, 0};
  if (row < rows) r.b = rp[row], r.n = (int)(rp[row + 1] - r.b), r.pos = cstart[row * S + s];
  return r;
}

/* Blocks per SM asked of the compiler: each resident warp keeps about one group of rows in
 * flight, and latency hiding needs ~40 KB in flight per SM, so registers are capped where that
 * costs no spills (ptxas -v, sm_90): f64 64 with 8-code chunks, else 48; f32 40. On HIP the
 * second bound means waves per EU; harmless. */
template <typename T, int S>
constexpr int cci_min_blocks() {
  return sizeof(T) == 4 ? 6 : cci_chunk<T, S>() == 8 ? 4 : 5;
}

/* Columns are int32 (the host checks cols < 2^31): every partial sum of the first-column scan
 * is itself a column of the row, so none overflows. */
template <typename T, typename CS, int S, bool ATOMIC, bool LONG>
__global__ void __launch_bounds__(ZS_CCI_THREADS, (cci_min_blocks<T, S>()))
    zs_cci_batched_kernel(int64_t rows, int64_t cols, int64_t shift, const int64_t *__restrict__ rp,
                          const CS *__restrict__ cstart, const uint32_t *__restrict__ codes32,
                          const T *__restrict__ val, const T *__restrict__ x, T *__restrict__ y,
                          T alpha, T beta, uint64_t tab) {
  constexpr int K = cci_chunk<T, S>(), G = ZS_WARP_SIZE / S; /* G rows per warp and step */
  const int lane = (int)threadIdx.x % ZS_WARP_SIZE, s = lane % S;
  const int64_t warp =
      (int64_t)blockIdx.x * (ZS_CCI_THREADS / ZS_WARP_SIZE) + (int64_t)threadIdx.x / ZS_WARP_SIZE;
  const int64_t first = warp * G * ZS_CCI_STEPS; /* the warp's first row */
  cci_lane_start<CS> next = cci_start<CS, S>(first + lane / S, s, rows, rp, cstart);
#pragma unroll 1
  for (int step = 0; step < ZS_CCI_STEPS && first + step * G < rows; step++) {
    const int64_t row = first + step * G + lane / S;
    const cci_lane_start<CS> r = next;
    const int n = r.n;
    T v[K];
#pragma unroll
    for (int j = 0; j < K; j++) v[j] = s + j * S < n ? val[r.b + s + j * S] : T(0);
    cci_window<CS> w{0, 0, 0, 0, 0};
    if (s < n) w = cci_window_at(codes32, r.pos);
    if (step + 1 < ZS_CCI_STEPS) next = cci_start<CS, S>(row + G, s, rows, rp, cstart);
    const T xr = ATOMIC && row < rows ? alpha * x[row] : T(0);
    int col = 0;
    if (s < n) {
      const uint32_t u = cci_take<LONG>(w, codes32, tab);
      col = s == 0 ? (int)((rows == cols ? row : row * cols / rows) + shift + zs_cci_unzigzag(u))
                   : (int)u + 1;
    }
    for (int d = 1; d < S; d *= 2) {
      const int up = zs_shfl_up(col, d);
      if (s >= d) col += up;
    }
    /* Every chunk decodes K codes, the last one's beyond the row unused (the padding), so
     * that only loads are predicated and the lanes never branch apart. */
    T sum = 0;
    for (int c = s; c < n; c += K * S) { /* c: the lane's first entry of this chunk */
      T xv[K];
#pragma unroll
      for (int j = 0; j < K; j++) {
        const bool live = c + j * S < n;
        if (ATOMIC) {
          if (live) atomicAdd(&y[col], v[j] * xr);
        } else {
          xv[j] = live ? x[col] : T(0);
        }
        col += S + (int)cci_take<LONG>(w, codes32, tab);
      }
      T vn[K];
#pragma unroll
      for (int j = 0; j < K; j++) vn[j] = c + (K + j) * S < n ? val[r.b + c + (K + j) * S] : T(0);
#pragma unroll
      for (int j = 0; j < K; j++) {
        if (!ATOMIC && c + j * S < n) sum += v[j] * xv[j];
        v[j] = vn[j];
      }
    }
    if (!ATOMIC) {
      sum = zs_group_sum(sum, S);
      if (row < rows && s == 0) y[row] = beta == T(0) ? alpha * sum : alpha * sum + beta * y[row];
    }
  }
}

struct cci_gpu_op {
  const gpu_device *dev; /* its context's device */
  zs_type type;
  int64_t rows, cols, nnz, S, shift;
  bool atomic, cstart64;
  bool slices; /* run zs_cci_kernel, the first kernel (kernel=slices), for comparisons */
  cci_table table;
  uint64_t tab8;   /* the table as bytes, for the batched kernel (zs_cci_bytes_table) */
  bool long_codes; /* some code is longer than 32 bits */
  int64_t *rp;
  void *cstart;
  uint64_t *codes;
  void *val;
  /* host copies of the index arrays, for the transpose */
  int64_t *h_rp;
  uint64_t *h_cstart, *h_codes;
  gpu_op *t_csr; /* Aᵀ as a CSR operator, built at the first deterministic SpMVT */
};

void cci_gpu_destroy(void *state) {
  cci_gpu_op *op = (cci_gpu_op *)state;
  if (!op) return;
  csr_op_free(op->t_csr);
  void *ptrs[] = {op->rp, op->cstart, op->codes, op->val};
  for (void *p : ptrs) release(p);
  free(op->h_rp), free(op->h_cstart), free(op->h_codes);
  free(op);
}

/* Entry t of the decode table as byte t: opcode length (1..3) | width (0..32) << 2. */
uint64_t zs_cci_bytes_table(const uint32_t *e) {
  uint64_t t = 0;
  for (int i = 0; i < ZS_CCI_TABLE; i++)
    t |= (uint64_t)(((e[i] >> 8) & 0xff) | (e[i] >> 16) << 2) << (8 * i);
  return t;
}

zs_status cci_gpu_create(const gpu_device *dev, void **state, const zsb_encoded_view *v,
                         const char *options) {
  cci_layout L; /* the blob, typed, read as the reference decoder and the cpu read it */
  char why[ZSI_LAYOUT_WHY];
  zs_status s = cci_layout_parse(v, &L, why, sizeof why);
  if (s != ZS_OK) return fail(s, "backend '%s': %s", ZS_GPU_BACKEND_NAME, why);
  cci_gpu_op *op = (cci_gpu_op *)calloc(1, sizeof(cci_gpu_op));
  if (!op) return fail(ZS_ERR_OUT_OF_MEMORY, "CCI operator");
  op->dev = dev;
  op->type = L.type, op->rows = L.rows, op->cols = L.cols, op->nnz = L.nnz;
  op->S = L.slices, op->shift = L.first_shift;
  const uint64_t ncs = (uint64_t)L.rows * (uint64_t)L.slices + 1; /* cstart: a stream's start */
  /* The library checked the options against its table and filled in the defaults. */
  op->slices = zsb_option_is(options, "experimental.kernel", "slices");
  op->atomic = zsb_option_is(options, "transpose", "atomic");
  if (op->S > ZS_WARP_SIZE)
    s = fail(ZS_ERR_UNSUPPORTED, "backend '%s': CCI slices=%lld exceed the warp width %d",
             ZS_GPU_BACKEND_NAME, (long long)op->S, ZS_WARP_SIZE);
  if (s == ZS_OK) {
    memcpy(op->table.e, L.optable, sizeof op->table.e);
    op->tab8 = zs_cci_bytes_table(op->table.e);
    for (int e = 0; e < ZS_CCI_TABLE; e++)
      if ((op->table.e[e] & 0xff) > 32) op->long_codes = true;
    /* the batched kernel keeps columns in int32 */
    if (op->cols > INT32_MAX) op->slices = true;
    op->cstart64 = L.cstart_bytes == 8;
    op->h_rp = (int64_t *)malloc((size_t)(L.rows + 1) * 8);
    op->h_cstart = (uint64_t *)malloc((size_t)ncs * 8);
    op->h_codes = (uint64_t *)malloc((size_t)L.n_codes * 8);
    if (!op->h_rp || !op->h_cstart || !op->h_codes)
      s = fail(ZS_ERR_OUT_OF_MEMORY, "CCI host index copies");
    if (s == ZS_OK) {
      memcpy(op->h_rp, L.row_ptr, (size_t)(L.rows + 1) * 8);
      memcpy(op->h_codes, L.codes, (size_t)L.n_codes * 8);
      for (uint64_t q = 0; q < ncs; q++) op->h_cstart[q] = cci_start_at(&L, q);
    }
  }
  if (s == ZS_OK) s = upload_array(&op->rp, L.row_ptr, (uint64_t)L.rows + 1, "CCI row_ptr");
  if (s == ZS_OK)
    s = op->cstart64 ? upload_array((uint64_t **)&op->cstart, L.cstart, ncs, "CCI cstart")
                     : upload_array((uint32_t **)&op->cstart, L.cstart, ncs, "CCI cstart");
  if (s == ZS_OK) s = upload_array(&op->codes, L.codes, L.n_codes, "CCI codes", ZS_CCI_CODES_PAD);
  if (s == ZS_OK)
    s = op->type == ZS_F64
            ? upload_array((double **)&op->val, L.values, (uint64_t)L.nnz, "CCI values")
            : upload_array((float **)&op->val, L.values, (uint64_t)L.nnz, "CCI values");
  if (s != ZS_OK) {
    cci_gpu_destroy(op);
    return s;
  }
  *state = op;
  return ZS_OK;
}

/* The deterministic SpMVT runs Aᵀ forward as CSR (our CSR kernel, its rows balanced by
 * nonzeros): columns decoded on the host (the blob passed validate), sorted by column as CSR's
 * transpose is (build_transpose_host), the values permuted on the device. Memory: a second copy
 * of the matrix (4-byte rows and the values per nonzero, offsets per column). */
zs_status cci_ensure_transpose(cci_gpu_op *op) {
  if (op->t_csr) return ZS_OK;
  if (op->rows > INT32_MAX || op->nnz > INT32_MAX)
    return fail(ZS_ERR_UNSUPPORTED,
                "CCI deterministic SpMVT: %lld rows, %lld nonzeros exceed 32-bit indices "
                "(create the operator with transpose=atomic)",
                (long long)op->rows, (long long)op->nnz);
  const int64_t S = op->S, nnz = op->nnz;
  const size_t n = (size_t)(nnz ? nnz : 1);
  int32_t *col = (int32_t *)malloc(n * 4), *rows_of = (int32_t *)malloc(n * 4);
  zs_status s = col && rows_of
                    ? ZS_OK
                    : fail(ZS_ERR_OUT_OF_MEMORY, "CCI transpose (%lld nonzeros)", (long long)nnz);
  zs_cci_entry tab[ZS_CCI_TABLE];
  for (int e = 0; e < ZS_CCI_TABLE; e++) tab[e] = zs_cci_unpack(op->table.e[e]);
  for (int64_t i = 0; s == ZS_OK && i < op->rows; i++) {
    const int64_t b = op->h_rp[i], len = op->h_rp[i + 1] - b;
    uint64_t pos[ZS_CCI_MAX_SLICES];
    for (int64_t sl = 0; sl < S; sl++) pos[sl] = op->h_cstart[i * S + sl];
    for (int64_t k = 0; k < len; k++) {
      const int64_t sl = k % S;
      const uint64_t m = zs_cci_peek(op->h_codes, pos[sl]);
      const zs_cci_entry e = tab[m & 7];
      const uint64_t u = (m >> e.shift) & e.mask;
      pos[sl] += e.count;
      const int64_t c = k == 0  ? zs_cci_ref(i, op->rows, op->cols, op->shift) + zs_cci_unzigzag(u)
                        : k < S ? (int64_t)col[b + k - 1] + 1 + (int64_t)u
                                : (int64_t)col[b + k - S] + S + (int64_t)u;
      col[b + k] = (int32_t)c, rows_of[b + k] = (int32_t)i;
    }
  }
  if (s == ZS_OK)
    s = transpose_op(&op->t_csr, op->dev, op->type, op->rows, op->cols, nnz, rows_of, col, op->val,
                     0);
  free(col), free(rows_of);
  return s;
}

template <typename T, typename CS, bool ATOMIC>
void cci_launch(cci_gpu_op *op, T alpha, const T *x, T beta, T *y) {
  /* zs_cci_kernel: a thread per row and slice; the batched one: ZS_CCI_STEPS of them */
  const int64_t threads = op->rows * op->S,
                per_block = ZS_CCI_THREADS * (op->slices ? 1 : ZS_CCI_STEPS);
  const unsigned blocks = (unsigned)((threads + per_block - 1) / per_block);
  if (blocks == 0) return;
#define ZS_CCI_CASE(SL)                                                                  \
  case SL:                                                                               \
    if (op->slices)                                                                      \
      zs_cci_kernel<T, CS, SL, ATOMIC><<<blocks, ZS_CCI_THREADS>>>(                      \
          op->rows, op->cols, op->shift, op->rp, (const CS *)op->cstart, op->codes,      \
          (const T *)op->val, x, y, alpha, beta, op->table);                             \
    else if (op->long_codes)                                                             \
      zs_cci_batched_kernel<T, CS, SL, ATOMIC, true><<<blocks, ZS_CCI_THREADS>>>(        \
          op->rows, op->cols, op->shift, op->rp, (const CS *)op->cstart,                 \
          (const uint32_t *)op->codes, (const T *)op->val, x, y, alpha, beta, op->tab8); \
    else                                                                                 \
      zs_cci_batched_kernel<T, CS, SL, ATOMIC, false><<<blocks, ZS_CCI_THREADS>>>(       \
          op->rows, op->cols, op->shift, op->rp, (const CS *)op->cstart,                 \
          (const uint32_t *)op->codes, (const T *)op->val, x, y, alpha, beta, op->tab8); \
    break;
  switch (op->S) {
    ZS_CCI_CASE(1)
    ZS_CCI_CASE(2)
    ZS_CCI_CASE(4)
    ZS_CCI_CASE(8)
    ZS_CCI_CASE(16)
  default: ZS_CCI_CASE(32)
  }
#undef ZS_CCI_CASE
}

template <typename T>
zs_status cci_apply_typed(cci_gpu_op *op, zs_op which, T alpha, const T *x, T beta, T *y) {
  if (which == ZS_OP_N) {
    if (op->rows == 0) return ZS_OK;
    if (op->cstart64)
      cci_launch<T, uint64_t, false>(op, alpha, x, beta, y);
    else
      cci_launch<T, uint32_t, false>(op, alpha, x, beta, y);
    return check_launch("CCI SpMV kernel");
  }
  if (op->atomic) {
    zs_scale_kernel<T><<<grid_for(op->cols, 256), 256>>>(op->cols, beta, y);
    if (op->rows > 0) {
      if (op->cstart64)
        cci_launch<T, uint64_t, true>(op, alpha, x, beta, y);
      else
        cci_launch<T, uint32_t, true>(op, alpha, x, beta, y);
    }
    return check_launch("CCI atomic SpMVT kernel");
  }
  zs_status s = cci_ensure_transpose(op);
  if (s != ZS_OK) return s;
  return csr_apply(op->t_csr, ZS_OP_N, (double)alpha, x, (double)beta, y);
}

zs_status cci_gpu_apply(void *state, zs_op which, double alpha, const void *x, double beta,
                        void *y) {
  cci_gpu_op *op = (cci_gpu_op *)state;
  if (op->type == ZS_F64)
    return cci_apply_typed<double>(op, which, alpha, (const double *)x, beta, (double *)y);
  return cci_apply_typed<float>(op, which, (float)alpha, (const float *)x, (float)beta, (float *)y);
}

} /* namespace */

const gpu_format *gpu_format_cci() {
  /* a function's static, not a namespace-scope constant: HIP would also emit one for the device */
  static const gpu_format table = {ZS_FORMAT_CCI, cci_gpu_create, cci_gpu_destroy, cci_gpu_apply,
                                   NULL};
  return &table;
}

} /* namespace zs_gpu */
