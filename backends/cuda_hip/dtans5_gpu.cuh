/* dtans5_gpu.cuh — CSR-dtANS version 5 (template and packed rows) on the GPU modules: a thread per
 * row walks its template's offsets (or its packed column fields) and reads its values by slice,
 * position and lane, so 32 threads read 32 consecutive values, id words or column words
 * (docs/formats/dtans.md, "Version 5"). No table lookup per nonzero: the small dictionaries sit in
 * shared memory. A unit of its own
 * (backends/cuda/cuda_dtans5.cu, backends/hip/hip_dtans5.cpp), reached through dtans_gpu.cuh. */
#include "backends/cuda_hip/csr_kernels.cuh"
#include "backends/cuda_hip/dtans5_gpu.h"
#include "formats/dtans/dtans5_layout.h"
/* a packed row's walk, shared with the cpu backend: stream words read once, evict-first */
#define DTANS5_WORD(p) zs_load_stream(p)
#define DTANS5_WALK_FN static __device__ __forceinline__
#include "formats/dtans/dtans5_walk.h"

namespace zs_gpu {
namespace {

#define ZS_DT5_THREADS 256
/* Shared memory for the template dictionary (int2 per template and the offsets) and the packed
 * value dictionary: beyond these, the kernel reads them from global memory (through L1). */
#define ZS_DT5_TEMPLATE_SMEM 16384
#define ZS_DT5_DICT_SMEM 32768

/* What a walk over a row does: y = alpha A x + beta y; y += alpha Aᵀ x (atomics, y scaled
 * before); both, the SpMVT into pair_z; or the decoded CSR written at row_ptr. */
enum { DT5_SPMV = 0, DT5_SCATTER = 1, DT5_PAIR = 2, DT5_WRITE = 3 };
/* Where packed ids find their values: global memory, shared, or shared with a copy per lane
 * (value id·32 + lane: every lane its own bank, whatever the ids). */
enum { DT5_DICT_GLOBAL = 0, DT5_DICT_SHARED = 1, DT5_DICT_LANES = 2 };

struct dt5_args {
  const void *row_template;
  int tbytes;
  const int2 *tdesc; /* per template: first offset, length */
  const int32_t *toff;
  int templates, n_off;
  const int64_t *slice_at; /* raw: values, packed: words, per slice */
  const void *values;      /* raw: values; packed, constant: the dictionary */
  const uint32_t *words;
  int value_real, bits, per_word;
  unsigned dict_at; /* byte offset of the shared dictionary */
  int64_t rows;
  const void *pair_w; /* DT5_PAIR: z += pair_alpha Aᵀ pair_w */
  void *pair_z;
  double pair_alpha;
  const int64_t *row_ptr; /* DT5_WRITE */
  int32_t *out_col;
  void *out_val;
  const int64_t *col_at; /* packed rows: column words per slice + 1, field bits, base */
  const uint32_t *col_words;
  const uint8_t *col_bits;
  const int32_t *col_base;
  int split; /* SPLIT: packed rows longer than this are taken by the whole warp */
  /* rows and columns in another order (NULL: the matrix's): y and w by row_perm, the scatters by
   * col_perm; the gathers read x by encoded column (the SpMV and the pair copy it, dt5_by_column) */
  const int32_t *row_perm, *col_perm;
};

/* The matrix's row of encoded row i, and its column of encoded column j. */
__device__ __forceinline__ int64_t dt5_row(const dt5_args &a, int64_t i) {
  return a.row_perm ? a.row_perm[i] : i;
}
__device__ __forceinline__ int64_t dt5_col(const dt5_args &a, int64_t j) {
  return a.col_perm ? a.col_perm[j] : j;
}

/* A prefetch of p's line into L2 (nothing on HIP): the next row's slice descriptors, so that a
 * row starts one memory latency after its template id rather than two. */
__device__ __forceinline__ void dt5_prefetch_l2(const void *p) {
#if defined(__CUDA_ARCH__)
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
#else
  (void)p;
#endif
}

/* The packed rows of a slice longer than `split`, taken by the whole warp one after another
 * (SpMV, CUDA's 32-lane warps): 32 fields at a time, lane l reading field k0 + l straight from
 * the row's bit string (fields have the slice's fixed width), the columns from a prefix sum of
 * the steps across the warp, the products summed over the lanes in a fixed order. A slice then
 * waits for its longest row short of `split`, not for its longest row (R-MAT in natural order).
 * `todo`: the lanes whose rows these are; `row0`: the slice's first row. */
template <typename T, int VM, int DICT>
__device__ __forceinline__ void dt5_split_rows(const dt5_args &a, unsigned todo, int64_t row0,
                                               int lane, int64_t cw0, int64_t vw0, int cbits,
                                               int32_t cbase, const T *vd, const T *x, T *y,
                                               T alpha, T beta) {
  while (todo) {
    const int src = __ffs(todo) - 1;
    todo &= todo - 1;
    const int64_t i = row0 + src;
    const int n = (int)(dtans5_row_template(a.row_template, a.tbytes, i) - (uint32_t)a.templates);
    const uint32_t *cw = a.col_words + cw0 + src;
    int32_t carry = (int32_t)(i + cbase - 1); /* the column before field k0 */
    T part = T(0);
    for (int k0 = 0; k0 < n; k0 += DTANS5_LANES) {
      const int k = k0 + lane;
      /* 1 + field k: the column's advance */
      const uint32_t step = k < n ? 1u + dtans5_col_field(cw, cbits, k) : 0u;
      uint32_t scan = step; /* inclusive prefix sum over the lanes */
      for (int d = 1; d < DTANS5_LANES; d *= 2) {
        const uint32_t o = zs_shfl_up(scan, d);
        if (lane >= d) scan += o;
      }
      const int32_t col = carry + (int32_t)scan;
      carry += (int32_t)zs_shfl(scan, DTANS5_LANES - 1);
      if (k < n) {
        T v;
        if (VM == DTANS5_VALUES_RAW) {
          v = ((const T *)a.values)[vw0 + src + (int64_t)DTANS5_LANES * k];
        } else if (VM == DTANS5_VALUES_PACKED) {
          const uint32_t id = dtans5_id_at(a.words + vw0 + src, a.bits, a.per_word, k);
          v = vd[id * (DICT == DT5_DICT_LANES ? DTANS5_LANES : 1)];
        } else {
          v = ((const T *)a.values)[0];
        }
        part += v * x[col];
      }
    }
    for (int d = DTANS5_LANES / 2; d > 0; d /= 2) part += zs_shfl_xor(part, d);
    if (lane == src) {
      const int64_t r = dt5_row(a, i);
      y[r] = beta == T(0) ? alpha * part : alpha * part + beta * y[r];
    }
  }
}

/* PR: the blob has packed rows (row_template entries from `templates` on); U: a packed row's
 * nonzeros decoded U at a time before their gathers; SPLIT: packed rows longer than a.split
 * taken by the whole warp (both SpMV only; U = 1 and no SPLIT for the other walks) */
template <typename T, int VM, int OP, int DICT, bool TSM, bool PR, int U, bool SPLIT>
__global__ void __launch_bounds__(ZS_DT5_THREADS)
    zs_dtans5_kernel(dt5_args a, const T *__restrict__ x, T *__restrict__ y, T alpha, T beta) {
  static_assert((U == 1 && !SPLIT) || (PR && OP == DT5_SPMV), "packed rows' SpMV only");
  extern __shared__ __align__(16) unsigned char zs_dt5_smem[];
  int2 *s_desc = (int2 *)zs_dt5_smem;
  int32_t *s_off = (int32_t *)(s_desc + (TSM ? a.templates : 0));
  T *s_dict = (T *)(zs_dt5_smem + a.dict_at);
  const T *dict = (const T *)a.values;
  if (TSM) {
    for (int k = threadIdx.x; k < a.templates; k += blockDim.x) s_desc[k] = a.tdesc[k];
    for (int k = threadIdx.x; k < a.n_off; k += blockDim.x) s_off[k] = a.toff[k];
  }
  if (VM == DTANS5_VALUES_PACKED && DICT == DT5_DICT_LANES)
    for (int k = threadIdx.x; k < 32 * a.value_real; k += blockDim.x) s_dict[k] = dict[k / 32];
  if (VM == DTANS5_VALUES_PACKED && DICT == DT5_DICT_SHARED)
    for (int k = threadIdx.x; k < a.value_real; k += blockDim.x) s_dict[k] = dict[k];
  if (TSM || (VM == DTANS5_VALUES_PACKED && DICT != DT5_DICT_GLOBAL)) __syncthreads();
  const int2 *desc = TSM ? s_desc : a.tdesc;
  const int32_t *offs = TSM ? s_off : a.toff;
  /* the block and the grid stride are multiples of 32: a thread keeps its lane of the slice */
  const int lane = (int)(threadIdx.x % DTANS5_LANES);
  const T at = OP == DT5_SCATTER ? alpha : (T)a.pair_alpha;
  T *z = OP == DT5_PAIR ? (T *)a.pair_z : y;
  const T *vd = DICT == DT5_DICT_LANES ? s_dict + lane : DICT == DT5_DICT_SHARED ? s_dict : dict;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  /* SPLIT: the warp stays whole (its lanes past the last row idle) for the rows it shares */
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
       SPLIT ? i - lane < a.rows : i < a.rows; i += stride) {
    const int64_t s = i / DTANS5_LANES;
    /* with packed rows, the slice's descriptors are read before the row's id resolves (they
     * depend on the slice only), and the next row's are fetched into L2 meanwhile */
    int64_t cw0 = 0, vw0 = 0;
    int cbits = 0;
    int32_t cbase = 0;
    if (PR) {
      cw0 = a.col_at[s], cbits = a.col_bits[s], cbase = a.col_base[s];
      if (VM != DTANS5_VALUES_CONSTANT) vw0 = a.slice_at[s];
      const int64_t in = i + stride;
      if (lane == 0 && in < a.rows) {
        const int64_t sn = in / DTANS5_LANES;
        dt5_prefetch_l2((const char *)a.row_template + in * a.tbytes);
        dt5_prefetch_l2(a.col_at + sn), dt5_prefetch_l2(a.col_bits + sn);
        dt5_prefetch_l2(a.col_base + sn);
        if (VM != DTANS5_VALUES_CONSTANT) dt5_prefetch_l2(a.slice_at + sn);
      }
    }
    const uint32_t t =
        !SPLIT || i < a.rows ? dtans5_row_template(a.row_template, a.tbytes, i) : DTANS_LONG;
    if constexpr (SPLIT) {
      const bool big = t != DTANS_LONG && t >= (uint32_t)a.templates &&
                       (int64_t)(t - (uint32_t)a.templates) > a.split;
      const unsigned todo = (unsigned)zs_ballot(big);
      if (todo)
        dt5_split_rows<T, VM, DICT>(a, todo, i - lane, lane, cw0, vw0, cbits, cbase, vd, x, y,
                                    alpha, beta);
      if (big) continue;
    }
    if (t == DTANS_LONG) continue; /* long rows: zs_dtans5_long_kernel */
    const T wi = OP == DT5_SCATTER ? x[dt5_row(a, i)]
                 : OP == DT5_PAIR  ? ((const T *)a.pair_w)[dt5_row(a, i)]
                                   : T(0);
    T sum = T(0);
    /* nonzero k of the row, in column j */
    auto take = [&](int k, int64_t j, T v) {
      if (OP == DT5_SPMV || OP == DT5_PAIR) sum += v * x[j];
      if (OP == DT5_SCATTER || OP == DT5_PAIR) atomicAdd(&z[dt5_col(a, j)], at * (v * wi));
      if (OP == DT5_WRITE) { /* by encoded row and column (dt5_ensure_transpose maps them) */
        a.out_col[a.row_ptr[i] + k] = (int32_t)j;
        if (a.out_val) ((T *)a.out_val)[a.row_ptr[i] + k] = v;
      }
    };
    if (PR && t >= (uint32_t)a.templates) { /* a packed row: its fields, then its values */
      const int n = (int)(t - (uint32_t)a.templates);
      dtans5_fields f;
      dtans5_fields_start(&f, a.col_words + cw0 + lane, cbits, i + cbase, n);
      dtans5_ids ids;
      if (VM == DTANS5_VALUES_PACKED)
        dtans5_ids_start(&ids, a.words + vw0 + lane, a.bits, a.per_word, n);
      const T *vr = dict + vw0 + lane; /* raw values */
      auto value = [&](int k) -> T {
        if (VM == DTANS5_VALUES_RAW) return vr[DTANS5_LANES * k];
        if (VM == DTANS5_VALUES_PACKED)
          return vd[dtans5_ids_next(&ids) * (DICT == DT5_DICT_LANES ? DTANS5_LANES : 1)];
        return dict[0];
      };
      int k = 0;
      /* U > 1: U fields and values decoded, then their U gathers issued together, then the
       * sums in order (the same bits as one at a time): the gathers' latencies overlap */
      for (; U > 1 && k + U <= n; k += U) {
        int32_t c[U];
        T v[U], xv[U];
#pragma unroll
        for (int u = 0; u < U; u++) c[u] = dtans5_fields_step(&f), v[u] = value(k + u);
#pragma unroll
        for (int u = 0; u < U; u++) xv[u] = x[c[u]];
#pragma unroll
        for (int u = 0; u < U; u++) sum += v[u] * xv[u];
      }
      for (; k < n; k++) {
        const int32_t j = dtans5_fields_step(&f);
        take(k, j, value(k));
      }
    } else if (VM == DTANS5_VALUES_RAW) {
      const int2 d = desc[t];
      const int32_t *o = offs + d.x;
      const T *v = dict + a.slice_at[s] + lane;
#pragma unroll 4
      for (int k = 0; k < d.y; k++) take(k, i + o[k], v[DTANS5_LANES * k]);
    } else if (VM == DTANS5_VALUES_PACKED) {
      const int2 d = desc[t];
      const int32_t *o = offs + d.x;
      const uint32_t *wp = a.words + a.slice_at[s] + lane, mask = (1u << a.bits) - 1u;
      for (int k = 0; k < d.y; k += a.per_word, wp += DTANS5_LANES) {
        uint32_t w = *wp;
        const int m_end = d.y - k < a.per_word ? d.y - k : a.per_word;
        for (int m = 0; m < m_end; m++, w >>= a.bits) {
          const uint32_t id = w & mask;
          const T v = DICT == DT5_DICT_LANES    ? s_dict[id * DTANS5_LANES + lane]
                      : DICT == DT5_DICT_SHARED ? s_dict[id]
                                                : dict[id];
          take(k + m, i + o[k + m], v);
        }
      }
    } else {
      const int2 d = desc[t];
      const int32_t *o = offs + d.x;
      const T c = dict[0];
#pragma unroll 4
      for (int k = 0; k < d.y; k++) take(k, i + o[k], c);
    }
    if (OP == DT5_SPMV || OP == DT5_PAIR) {
      const int64_t r = dt5_row(a, i);
      y[r] = beta == T(0) ? alpha * sum : alpha * sum + beta * y[r];
    }
  }
}

#if !defined(__HIPCC__) /* 32 lanes a warp: the dictionary in two registers a lane */
/* Packed rows' SpMV with at most 64 values and no template rows, the value dictionary held in
 * registers (lane l: values l and l + 32) and read by warp shuffles, so that the kernel takes no
 * shared memory and L1 keeps more of x (the lookup probe's R-MAT rows: 69.8 -> 60.8 SM-cycles a
 * warp-nonzero). The shuffles need the whole warp: its lanes step together to the longest of
 * their rows, a lane past its own row's end (or on a long row, or past the last row) decoding
 * zero words and adding nothing. */
template <typename T>
__global__ void __launch_bounds__(ZS_DT5_THREADS, 6)
    zs_dtans5_shfl_kernel(dt5_args a, const T *__restrict__ x, T *__restrict__ y, T alpha, T beta) {
  const int lane = (int)(threadIdx.x % DTANS5_LANES);
  const T *dict = (const T *)a.values;
  const T d0 = lane < a.value_real ? dict[lane] : T(0);
  const T d1 = lane + 32 < a.value_real ? dict[lane + 32] : T(0);
  const bool two = a.value_real > 32;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i - lane < a.rows; i += stride) {
    const int64_t s = i / DTANS5_LANES;
    const int64_t cw0 = a.col_at[s], vw0 = a.slice_at[s];
    const int cbits = a.col_bits[s];
    const int32_t cbase = a.col_base[s];
    const uint32_t t = i < a.rows ? dtans5_row_template(a.row_template, a.tbytes, i) : DTANS_LONG;
    const int n = t == DTANS_LONG ? 0 : (int)(t - (uint32_t)a.templates);
    int w = n; /* the warp's longest row */
    for (int d = DTANS5_LANES / 2; d > 0; d /= 2) w = max(w, zs_shfl_xor(w, d));
    dtans5_fields f;
    dtans5_fields_start(&f, a.col_words + cw0 + lane, cbits, i + cbase, n);
    dtans5_ids ids;
    dtans5_ids_start(&ids, a.words + vw0 + lane, a.bits, a.per_word, n);
    T sum = T(0);
    for (int k = 0; k < w; k++) {
      const int32_t c = dtans5_fields_step(&f);
      const int id = (int)dtans5_ids_next(&ids);
      T v = zs_shfl(d0, id & 31);
      if (two) {
        const T v1 = zs_shfl(d1, id & 31);
        v = id < 32 ? v : v1;
      }
      if (k < n) sum += v * x[c];
    }
    if (i < a.rows && t != DTANS_LONG) {
      const int64_t r = dt5_row(a, i);
      y[r] = beta == T(0) ? alpha * sum : alpha * sum + beta * y[r];
    }
  }
}
#endif

/* Long rows (plain CSR), a block each: SpMV sums in a fixed order (deterministic), SpMVT and
 * the pair scatter, WRITE copies. */
template <typename T, int OP>
__global__ void __launch_bounds__(ZS_DT5_THREADS)
    zs_dtans5_long_kernel(int64_t n_long, const int32_t *rows, const int64_t *ptr,
                          const int32_t *cols, const T *vals, const T *__restrict__ x,
                          T *__restrict__ y, T alpha, T beta, dt5_args a) {
  __shared__ T red[ZS_DT5_THREADS];
  for (int64_t k = blockIdx.x; k < n_long; k += gridDim.x) {
    const int32_t r = rows[k];        /* encoded */
    const int64_t ry = dt5_row(a, r); /* the matrix's */
    const T wi = OP == DT5_SCATTER ? x[ry] : OP == DT5_PAIR ? ((const T *)a.pair_w)[ry] : T(0);
    T *z = OP == DT5_PAIR ? (T *)a.pair_z : y;
    const T at = OP == DT5_SCATTER ? alpha : (T)a.pair_alpha;
    T sum = T(0);
    for (int64_t j = ptr[k] + threadIdx.x; j < ptr[k + 1]; j += blockDim.x) {
      if (OP == DT5_SPMV || OP == DT5_PAIR) sum += vals[j] * x[cols[j]];
      if (OP == DT5_SCATTER || OP == DT5_PAIR)
        atomicAdd(&z[dt5_col(a, cols[j])], at * (vals[j] * wi));
      if (OP == DT5_WRITE) {
        const int64_t to = a.row_ptr[r] + j - ptr[k];
        a.out_col[to] = cols[j];
        if (a.out_val) ((T *)a.out_val)[to] = vals[j];
      }
    }
    if (OP == DT5_SPMV || OP == DT5_PAIR) {
      red[threadIdx.x] = sum;
      __syncthreads();
      for (int w = ZS_DT5_THREADS / 2; w > 0; w /= 2) {
        if ((int)threadIdx.x < w) red[threadIdx.x] += red[threadIdx.x + w];
        __syncthreads();
      }
      if (threadIdx.x == 0) y[ry] = beta == T(0) ? alpha * red[0] : alpha * red[0] + beta * y[ry];
      __syncthreads();
    }
  }
}

struct dtans5_gpu_op {
  const gpu_device *dev;
  zs_type type;
  int64_t rows, cols, nnz, slices, n_long, packed_rows;
  int mode, dict; /* DTANS5_VALUES_*, DT5_DICT_* */
  int unroll;     /* packed rows' SpMV: nonzeros decoded before their gathers (1, 2, 4) */
  int split;      /* packed rows' SpMV: rows longer than this taken by the warp (0: none) */
  bool atomic, tsm;
  bool shfl; /* packed rows' SpMV: the dictionary by warp shuffles (zs_dtans5_shfl_kernel) */
  size_t smem;
  occupancy_memo occupancy; /* of the kernels it has launched */
  dt5_args a;               /* device pointers of the arrays below */
  void *row_template, *values;
  int2 *tdesc;
  int32_t *toff, *long_rows, *long_cols;
  int64_t *slice_at, *long_ptr, *col_at;
  uint32_t *words, *col_words;
  uint8_t *col_bits;
  int32_t *col_base;
  int32_t *row_perm, *col_perm; /* rows and columns in another order, or NULL */
  int32_t *host_row_perm, *host_col_perm;
  void *xs; /* col_perm: x by encoded column (cols values) */
  void *long_values;
  int64_t *host_row_ptr; /* deterministic SpMVT: the decoded CSR's rows (NULL when atomic) */
  gpu_op *t_csr;         /* Aᵀ as CSR, built on the first deterministic SpMVT */
};

void dt5_free(dtans5_gpu_op *op) {
  if (!op) return;
  void *p[] = {op->row_template, op->values,    op->tdesc,    op->toff,     op->long_rows,
               op->long_cols,    op->slice_at,  op->long_ptr, op->words,    op->long_values,
               op->col_at,       op->col_words, op->col_bits, op->col_base, op->row_perm,
               op->col_perm,     op->xs};
  for (void *q : p) release(q);
  csr_op_free(op->t_csr);
  free(op->host_row_ptr), free(op->host_row_perm), free(op->host_col_perm);
  free(op);
}

/* Grid of a row kernel: the device filled (blocks per multiprocessor from the occupancy), no
 * more blocks than rows need; carveout as blocks_per_sm's. */
template <typename K>
unsigned dt5_grid(dtans5_gpu_op *op, K kernel, size_t smem, int carveout = -1) {
  int per_sm = 1;
  if (blocks_per_sm(&op->occupancy, kernel, ZS_DT5_THREADS, smem, &per_sm, carveout) != gpuSuccess)
    (void)gpuGetLastError(); /* one block a multiprocessor: slower, never wrong */
  const int64_t want = (op->rows + ZS_DT5_THREADS - 1) / ZS_DT5_THREADS;
  const int64_t fill = (int64_t)per_sm * op->dev->sm_count;
  const int64_t g = want < fill ? want : fill;
  return g < 1 ? 1u : (unsigned)g;
}

template <typename T, int VM, int OP, int DICT, bool TSM>
zs_status dt5_launch(dtans5_gpu_op *op, const T *x, T *y, T alpha, T beta) {
  if (op->rows == 0) return ZS_OK;
#if !defined(__HIPCC__)
  if constexpr (OP == DT5_SPMV && VM == DTANS5_VALUES_PACKED) {
    if (op->shfl) {
      auto kernel = zs_dtans5_shfl_kernel<T>; /* no shared memory: the SM's storage to L1, for x */
      kernel<<<dt5_grid(op, kernel, 0, 0), ZS_DT5_THREADS>>>(op->a, x, y, alpha, beta);
      return check_launch("dtans version 5 kernel (dictionary by shuffles)");
    }
  }
#endif
  if (op->packed_rows) {
    auto kernel = zs_dtans5_kernel<T, VM, OP, DICT, TSM, true, 1, false>;
    if constexpr (OP == DT5_SPMV) {
      if (op->unroll == 2) kernel = zs_dtans5_kernel<T, VM, OP, DICT, TSM, true, 2, false>;
      if (op->unroll == 4) kernel = zs_dtans5_kernel<T, VM, OP, DICT, TSM, true, 4, false>;
#if !defined(__HIPCC__) /* the warp's split rows assume 32 lanes, one slice */
      if (op->split && op->unroll == 1)
        kernel = zs_dtans5_kernel<T, VM, OP, DICT, TSM, true, 1, true>;
      if (op->split && op->unroll == 2)
        kernel = zs_dtans5_kernel<T, VM, OP, DICT, TSM, true, 2, true>;
      if (op->split && op->unroll == 4)
        kernel = zs_dtans5_kernel<T, VM, OP, DICT, TSM, true, 4, true>;
#endif
    }
    kernel<<<dt5_grid(op, kernel, op->smem), ZS_DT5_THREADS, op->smem>>>(op->a, x, y, alpha, beta);
  } else {
    auto kernel = zs_dtans5_kernel<T, VM, OP, DICT, TSM, false, 1, false>;
    kernel<<<dt5_grid(op, kernel, op->smem), ZS_DT5_THREADS, op->smem>>>(op->a, x, y, alpha, beta);
  }
  return check_launch("dtans version 5 kernel");
}

template <typename T, int VM, int OP>
zs_status dt5_by_dict(dtans5_gpu_op *op, const T *x, T *y, T alpha, T beta) {
  if (VM != DTANS5_VALUES_PACKED || op->dict == DT5_DICT_GLOBAL)
    return op->tsm ? dt5_launch<T, VM, OP, DT5_DICT_GLOBAL, true>(op, x, y, alpha, beta)
                   : dt5_launch<T, VM, OP, DT5_DICT_GLOBAL, false>(op, x, y, alpha, beta);
  if (op->dict == DT5_DICT_SHARED)
    return op->tsm ? dt5_launch<T, VM, OP, DT5_DICT_SHARED, true>(op, x, y, alpha, beta)
                   : dt5_launch<T, VM, OP, DT5_DICT_SHARED, false>(op, x, y, alpha, beta);
  return op->tsm ? dt5_launch<T, VM, OP, DT5_DICT_LANES, true>(op, x, y, alpha, beta)
                 : dt5_launch<T, VM, OP, DT5_DICT_LANES, false>(op, x, y, alpha, beta);
}

/* The rows' kernel and the long rows' kernel, for the operator's value mode. */
template <typename T, int OP>
zs_status dt5_run(dtans5_gpu_op *op, const T *x, T *y, T alpha, T beta) {
  zs_status s;
  if (op->mode == DTANS5_VALUES_RAW)
    s = dt5_by_dict<T, DTANS5_VALUES_RAW, OP>(op, x, y, alpha, beta);
  else if (op->mode == DTANS5_VALUES_PACKED)
    s = dt5_by_dict<T, DTANS5_VALUES_PACKED, OP>(op, x, y, alpha, beta);
  else
    s = dt5_by_dict<T, DTANS5_VALUES_CONSTANT, OP>(op, x, y, alpha, beta);
  if (s != ZS_OK || op->n_long == 0) return s;
  const unsigned g = op->n_long < 65535 ? (unsigned)op->n_long : 65535u;
  zs_dtans5_long_kernel<T, OP><<<g, ZS_DT5_THREADS>>>(op->n_long, op->long_rows, op->long_ptr,
                                                      op->long_cols, (const T *)op->long_values, x,
                                                      y, alpha, beta, op->a);
  return check_launch("dtans version 5 long rows");
}

/* xs[c] = x[perm[c]]: x by encoded column, for the gathers. */
template <typename T>
__global__ void zs_dt5_by_column_kernel(int64_t n, const int32_t *__restrict__ perm,
                                        const T *__restrict__ x, T *__restrict__ xs) {
  for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < n;
       c += (int64_t)gridDim.x * blockDim.x)
    xs[c] = x[perm[c]];
}

/* x as the gathers read it: by encoded column (a copy into op->xs with col_perm), else x. */
template <typename T>
const T *dt5_by_column(dtans5_gpu_op *op, const T *x, zs_status *s) {
  if (!op->col_perm) return x;
  zs_dt5_by_column_kernel<T>
      <<<grid_for(op->cols, 256), 256>>>(op->cols, op->col_perm, x, (T *)op->xs);
  *s = check_launch("dtans version 5 x by encoded column");
  return (const T *)op->xs;
}

/* The deterministic SpMVT: the matrix decoded on the device once, Aᵀ kept as a CSR operator. */
template <typename T>
zs_status dt5_ensure_transpose(dtans5_gpu_op *op) {
  if (op->t_csr) return ZS_OK;
  const size_t n = (size_t)(op->nnz ? op->nnz : 1);
  int32_t *col = NULL, *h_col = (int32_t *)malloc(n * 4), *rows_of = (int32_t *)malloc(n * 4);
  T *val = NULL;
  int64_t *row_ptr = NULL;
  zs_status s = h_col && rows_of ? ZS_OK
                                 : fail(ZS_ERR_OUT_OF_MEMORY, "dtans transpose (%lld nonzeros)",
                                        (long long)op->nnz);
  if (s == ZS_OK) s = check(gpuMalloc((void **)&col, n * 4), "dtans decoded columns");
  if (s == ZS_OK) s = check(gpuMalloc((void **)&val, n * sizeof(T)), "dtans decoded values");
  if (s == ZS_OK)
    s = upload_array(&row_ptr, op->host_row_ptr, (uint64_t)op->rows + 1, "dtans row offsets");
  if (s == ZS_OK) {
    op->a.row_ptr = row_ptr, op->a.out_col = col, op->a.out_val = val;
    s = dt5_run<T, DT5_WRITE>(op, (const T *)NULL, (T *)NULL, T(0), T(0));
    op->a.row_ptr = NULL, op->a.out_col = NULL, op->a.out_val = NULL;
  }
  if (s == ZS_OK && op->nnz)
    s = check(gpuMemcpy(h_col, col, (size_t)op->nnz * 4, gpuMemcpyDeviceToHost), "download");
  /* the decoded nonzeros are by encoded row and column: Aᵀ is built in the matrix's order */
  for (int64_t i = 0; s == ZS_OK && i < op->rows; i++)
    for (int64_t k = op->host_row_ptr[i]; k < op->host_row_ptr[i + 1]; k++)
      rows_of[k] = op->host_row_perm ? op->host_row_perm[i] : (int32_t)i;
  for (int64_t k = 0; s == ZS_OK && op->host_col_perm && k < op->nnz; k++)
    h_col[k] = op->host_col_perm[h_col[k]];
  if (s == ZS_OK)
    s = transpose_op(&op->t_csr, op->dev, op->type, op->rows, op->cols, op->nnz, rows_of, h_col,
                     val, 0);
  release(col), release(val), release(row_ptr);
  free(h_col), free(rows_of);
  return s;
}

template <typename T>
zs_status dt5_apply(dtans5_gpu_op *op, zs_op which, T alpha, const T *x, T beta, T *y) {
  if (which == ZS_OP_N) {
    zs_status s = ZS_OK;
    const T *xs = dt5_by_column(op, x, &s);
    return s == ZS_OK ? dt5_run<T, DT5_SPMV>(op, xs, y, alpha, beta) : s;
  }
  if (!op->atomic) {
    zs_status s = dt5_ensure_transpose<T>(op);
    return s == ZS_OK ? csr_apply(op->t_csr, ZS_OP_N, (double)alpha, x, (double)beta, y) : s;
  }
  zs_scale_kernel<T><<<grid_for(op->cols, 256), 256>>>(op->cols, beta, y);
  zs_status s = check_launch("dtans SpMVT scale");
  return s == ZS_OK ? dt5_run<T, DT5_SCATTER>(op, x, y, alpha, beta) : s;
}

template <typename T>
zs_status dt5_pair(dtans5_gpu_op *op, T alpha, const T *x, T beta, T *y, T alpha_t, const T *w,
                   T beta_t, T *z) {
  if (!op->atomic || op->rows == 0 || op->cols == 0) return ZS_ERR_UNSUPPORTED;
  zs_scale_kernel<T><<<grid_for(op->cols, 256), 256>>>(op->cols, beta_t, z);
  zs_status s = check_launch("dtans pair scale");
  op->a.pair_w = w, op->a.pair_z = z, op->a.pair_alpha = (double)alpha_t;
  const T *xs = s == ZS_OK ? dt5_by_column(op, x, &s) : x;
  if (s == ZS_OK) s = dt5_run<T, DT5_PAIR>(op, xs, y, alpha, beta);
  op->a.pair_w = NULL, op->a.pair_z = NULL, op->a.pair_alpha = 0;
  return s;
}

/* Packed rows' SpMV unroll by default: 2 where most slices' column fields are narrow (at most
 * 8 bits: columns near the row, x in L1; H100 banded f64 299 -> 282 us), else 1 (6 blocks a SM
 * instead of 5 pay where x comes from L2: Erdős–Rényi f64 678 with 1, 696 with 2). f32: 1, its
 * unroll not timed. */
int dt5_auto_unroll(const dtans5_layout *L, zs_type type) {
  if (!L->packed_rows || type != ZS_F64) return 1;
  int64_t narrow = 0, wide = 0;
  for (int64_t s = 0; s < L->slices; s++) {
    const int b = L->slice_col_bits[s];
    narrow += b > 0 && b <= 8, wide += b > 8;
  }
  return narrow > wide ? 2 : 1;
}

/* `count` elements of `size` bytes from the blob to the device (nothing for none). */
zs_status dt5_upload(void **dst, const void *src, uint64_t count, size_t size, const char *name) {
  *dst = NULL;
  if (count == 0) return ZS_OK;
  zs_status s = check(gpuMalloc(dst, (size_t)count * size), name);
  if (s == ZS_OK)
    s = check(gpuMemcpy(*dst, src, (size_t)count * size, gpuMemcpyHostToDevice), name);
  return s;
}

} /* namespace */

zs_status dtans5_gpu_create(const gpu_device *dev, void **state, const zsb_encoded_view *v,
                            const char *options) {
  bool atomic = false;
  int items = 0, slabs = 0;
  read_options(options, &atomic, &items, &slabs, NULL); /* column slabs do not apply here */
  dtans5_layout L;
  char why[256];
  zs_status s = dtans5_layout_parse(v, &L, why, sizeof why);
  if (s != ZS_OK) return fail(s, "backend '%s': %s", ZS_GPU_BACKEND_NAME, why);
  if (L.n_offsets > INT32_MAX || L.templates > INT32_MAX)
    return fail(ZS_ERR_UNSUPPORTED,
                "backend '%s': dtans version 5 with %llu template offsets (the GPU kernel takes "
                "< 2^31)",
                ZS_GPU_BACKEND_NAME, (unsigned long long)L.n_offsets);
  dtans5_gpu_op *op = (dtans5_gpu_op *)calloc(1, sizeof(dtans5_gpu_op));
  if (!op) return fail(ZS_ERR_OUT_OF_MEMORY, "dtans operator");
  op->dev = dev, op->type = v->type, op->rows = v->rows, op->cols = v->cols, op->nnz = v->nnz;
  op->slices = L.slices, op->n_long = L.n_long, op->mode = L.value_mode, op->atomic = atomic;
  op->packed_rows = L.packed_rows;
  char ubuf[16];
  const char *unroll = zsb_option(options, "experimental.packed_unroll", ubuf, sizeof ubuf);
  op->unroll = strcmp(unroll, "auto") == 0 ? dt5_auto_unroll(&L, v->type) : atoi(unroll);
  const char *split = zsb_option(options, "experimental.packed_split", ubuf, sizeof ubuf);
  op->split = strcmp(split, "auto") == 0 || strcmp(split, "off") == 0 ? 0 : atoi(split);
  /* the dictionary by shuffles: packed rows only, packed ids of at most 64 values (cuda) */
  const char *dict = zsb_option(options, "experimental.packed_dict", ubuf, sizeof ubuf);
  op->shfl = strcmp(dict, "shfl") == 0 && L.value_mode == DTANS5_VALUES_PACKED &&
             L.templates == 0 && L.packed_rows > 0 && L.value_real <= 64;
  const size_t es = type_size(v->type);
  /* shared memory: the templates when small, the packed dictionary a copy per lane or one */
  const size_t tbytes = 8 * (size_t)L.templates + 4 * (size_t)L.n_offsets;
  op->tsm = tbytes <= ZS_DT5_TEMPLATE_SMEM;
  const size_t dict_at = op->tsm ? (tbytes + 15) & ~(size_t)15 : 0;
  op->dict = DT5_DICT_GLOBAL;
  if (L.value_mode == DTANS5_VALUES_PACKED)
    op->dict = (size_t)L.value_real * es * DTANS5_LANES <= ZS_DT5_DICT_SMEM ? DT5_DICT_LANES
               : (size_t)L.value_real * es <= ZS_DT5_DICT_SMEM              ? DT5_DICT_SHARED
                                                                            : DT5_DICT_GLOBAL;
  const size_t dict_bytes = op->dict == DT5_DICT_LANES    ? (size_t)L.value_real * es * 32
                            : op->dict == DT5_DICT_SHARED ? (size_t)L.value_real * es
                                                          : 0;
  op->smem = dict_at + dict_bytes;
  /* template descriptors (first offset, length) in 32 bits */
  int2 *desc = (int2 *)malloc((size_t)(L.templates ? L.templates : 1) * sizeof(int2));
  if (!desc) s = fail(ZS_ERR_OUT_OF_MEMORY, "dtans templates");
  for (int64_t t = 0; s == ZS_OK && t < L.templates; t++)
    desc[t] = make_int2((int)L.template_ptr[t], (int)(L.template_ptr[t + 1] - L.template_ptr[t]));
  const uint64_t sl = (uint64_t)L.slices + 1;
  if (s == ZS_OK)
    s = dt5_upload(&op->row_template, L.row_template, (uint64_t)L.rows,
                   (size_t)L.row_template_bytes, "row_template");
  if (s == ZS_OK) s = dt5_upload((void **)&op->tdesc, desc, (uint64_t)L.templates, 8, "templates");
  free(desc);
  if (s == ZS_OK) s = dt5_upload((void **)&op->toff, L.template_offsets, L.n_offsets, 4, "offsets");
  if (s == ZS_OK && L.value_mode == DTANS5_VALUES_RAW) {
    s = dt5_upload((void **)&op->slice_at, L.slice_values, sl, 8, "slice_values");
    if (s == ZS_OK) s = dt5_upload(&op->values, L.values, L.n_values, es, "values");
  } else if (s == ZS_OK) {
    s = dt5_upload(&op->values, L.value_symbols, (uint64_t)L.value_real, es, "value_symbols");
    if (s == ZS_OK && L.value_mode == DTANS5_VALUES_PACKED)
      s = dt5_upload((void **)&op->slice_at, L.slice_value_words, sl, 8, "slice_value_words");
    if (s == ZS_OK && L.value_mode == DTANS5_VALUES_PACKED)
      s = dt5_upload((void **)&op->words, L.value_words, L.n_value_words, 4, "value_words");
  }
  if (s == ZS_OK && L.packed_rows) {
    s = dt5_upload((void **)&op->col_at, L.slice_col_words, sl, 8, "slice_col_words");
    if (s == ZS_OK)
      s = dt5_upload((void **)&op->col_words, L.col_words, L.n_col_words, 4, "col_words");
    if (s == ZS_OK)
      s = dt5_upload((void **)&op->col_bits, L.slice_col_bits, sl - 1, 1, "slice_col_bits");
    if (s == ZS_OK)
      s = dt5_upload((void **)&op->col_base, L.slice_col_base, sl - 1, 4, "slice_col_base");
  }
  if (s == ZS_OK)
    s = dt5_upload((void **)&op->long_rows, L.long_rows, (uint64_t)L.n_long, 4, "long_rows");
  if (s == ZS_OK)
    s = dt5_upload((void **)&op->long_ptr, L.long_ptr, (uint64_t)L.n_long + 1, 8, "long_ptr");
  if (s == ZS_OK) s = dt5_upload((void **)&op->long_cols, L.long_cols, L.long_nnz, 4, "long_cols");
  if (s == ZS_OK) s = dt5_upload(&op->long_values, L.long_values, L.long_nnz, es, "long_values");
  if (s == ZS_OK && L.row_perm) {
    s = dt5_upload((void **)&op->row_perm, L.row_perm, (uint64_t)L.rows, 4, "row_perm");
    op->host_row_perm = (int32_t *)malloc((size_t)(L.rows ? L.rows : 1) * 4);
    if (s == ZS_OK && !op->host_row_perm) s = fail(ZS_ERR_OUT_OF_MEMORY, "dtans row_perm");
    if (s == ZS_OK) memcpy(op->host_row_perm, L.row_perm, (size_t)L.rows * 4);
  }
  if (s == ZS_OK && L.col_perm) {
    s = dt5_upload((void **)&op->col_perm, L.col_perm, (uint64_t)L.cols, 4, "col_perm");
    if (s == ZS_OK) s = check(gpuMalloc(&op->xs, (size_t)L.cols * es), "dtans x by column");
    op->host_col_perm = (int32_t *)malloc((size_t)(L.cols ? L.cols : 1) * 4);
    if (s == ZS_OK && !op->host_col_perm) s = fail(ZS_ERR_OUT_OF_MEMORY, "dtans col_perm");
    if (s == ZS_OK) memcpy(op->host_col_perm, L.col_perm, (size_t)L.cols * 4);
  }
  if (s == ZS_OK && !atomic) { /* the decoded CSR's rows, for Aᵀ on the first SpMVT */
    op->host_row_ptr = (int64_t *)malloc(((size_t)op->rows + 1) * sizeof(int64_t));
    if (!op->host_row_ptr) s = fail(ZS_ERR_OUT_OF_MEMORY, "dtans row offsets");
    if (s == ZS_OK) op->host_row_ptr[0] = 0;
    for (int64_t i = 0, k = 0; s == ZS_OK && i < op->rows; i++) {
      const uint32_t t = dtans5_row_template(L.row_template, L.row_template_bytes, i);
      const int64_t n = t == DTANS_LONG ? L.long_ptr[k + 1] - L.long_ptr[k]
                                        : dtans5_entry_len(L.template_ptr, L.templates, t);
      k += t == DTANS_LONG;
      op->host_row_ptr[i + 1] = op->host_row_ptr[i] + n;
    }
  }
  dt5_args &a = op->a;
  a.row_template = op->row_template, a.tbytes = L.row_template_bytes, a.tdesc = op->tdesc;
  a.toff = op->toff, a.templates = (int)L.templates, a.n_off = (int)L.n_offsets;
  a.slice_at = op->slice_at, a.values = op->values, a.words = op->words;
  a.value_real = (int)L.value_real, a.bits = L.value_bits, a.per_word = L.ids_per_word;
  a.dict_at = (unsigned)dict_at, a.rows = L.rows;
  a.col_at = op->col_at, a.col_words = op->col_words, a.col_bits = op->col_bits;
  a.col_base = op->col_base, a.split = op->split;
  a.row_perm = op->row_perm, a.col_perm = op->col_perm;
  if (s != ZS_OK) {
    dt5_free(op);
    return s;
  }
  *state = op;
  return ZS_OK;
}

void dtans5_gpu_destroy(void *state) { dt5_free((dtans5_gpu_op *)state); }

zs_status dtans5_gpu_apply(void *state, zs_op which, double alpha, const void *x, double beta,
                           void *y) {
  dtans5_gpu_op *op = (dtans5_gpu_op *)state;
  if (op->type == ZS_F64)
    return dt5_apply<double>(op, which, alpha, (const double *)x, beta, (double *)y);
  return dt5_apply<float>(op, which, (float)alpha, (const float *)x, (float)beta, (float *)y);
}

zs_status dtans5_gpu_pair(void *state, double alpha, const void *x, double beta, void *y,
                          double alpha_t, const void *w, double beta_t, void *z) {
  dtans5_gpu_op *op = (dtans5_gpu_op *)state;
  if (op->type == ZS_F64)
    return dt5_pair<double>(op, alpha, (const double *)x, beta, (double *)y, alpha_t,
                            (const double *)w, beta_t, (double *)z);
  return dt5_pair<float>(op, (float)alpha, (const float *)x, (float)beta, (float *)y,
                         (float)alpha_t, (const float *)w, (float)beta_t, (float *)z);
}

} /* namespace zs_gpu */
