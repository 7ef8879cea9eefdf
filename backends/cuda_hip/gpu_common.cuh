/* gpu_common.cuh — what the units of a GPU module share: the device description, the error and
 * memory helpers, the table every format's operator fills in, and the CSR operator that other
 * formats run Aᵀ through. Each format is its own translation unit (<format>_gpu.cuh, compiled by
 * a shim in backends/cuda and backends/hip), so an edit recompiles that format alone. */
#ifndef ZS_GPU_COMMON_CUH
#define ZS_GPU_COMMON_CUH

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>

#include "backends/cuda_hip/zs_gpu_compat.h"
#include "formats/format_list.h"
#include "zsparse_backend.h"

namespace zs_gpu {

/* The device a context runs on (device 0), read once at init: what grids and shared memory are
 * sized by. Operators keep a pointer to their context's copy. */
struct gpu_device {
  int sm_count;         /* multiprocessors: grids of persistent kernels */
  size_t smem_optin;    /* the most shared memory a block may ask for */
  size_t smem_reserved; /* shared bytes before a kernel's dynamic ones ((size_t)-1: unknown) */
  size_t l2_bytes;      /* L2 cache: how much of x a gathering product keeps */
};

/* The device of the context whose backend state is `self` (gpu_module.cuh). */
const gpu_device *context_device(void *self);

/* The library's error reporter: one function for every context (it writes the calling thread's
 * last error), so it is kept once for the module, not per context (set by init). */
extern std::atomic<zsb_error_fn> g_report;

inline zs_status fail(zs_status s, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const zsb_error_fn report = g_report.load();
  if (report) report(s, msg);
  return s;
}

inline zs_status check(gpuError_t e, const char *what) {
  if (e == gpuSuccess) return ZS_OK;
  return fail(e == gpuErrorMemoryAllocation ? ZS_ERR_OUT_OF_MEMORY : ZS_ERR_DEVICE,
              ZS_GPU_RUNTIME " %s: %s", what, gpuGetErrorString(e));
}

inline zs_status check_launch(const char *what) { return check(gpuGetLastError(), what); }

/* Grid for grid-stride loops: enough blocks to fill the device, never zero. */
inline unsigned grid_for(int64_t n, int threads) {
  int64_t b = (n + threads - 1) / threads;
  if (b > 65535) b = 65535;
  return b < 1 ? 1u : (unsigned)b;
}

inline size_t type_size(zs_type t) { return t == ZS_F64 ? 8 : 4; }

/* An operator's answers to the occupancy query, one per kernel and dynamic shared size it
 * launches (each kernel with one block size and one carve-out). The query costs host time of
 * the order of a launch: a product of a few microseconds asks it once, not on every call. */
struct occupancy_memo {
  static const int slots = 8; /* kernels an operator runs; more are asked every time */
  const void *kernel[slots];
  size_t smem[slots];
  int per_sm[slots];
  int n;
};

/* Thread blocks of `kernel` one multiprocessor holds at `threads` threads and `smem` dynamic
 * shared bytes (at least 1), from the memo or asked of the runtime; asked, it first gives the
 * kernel `carveout` (percent of the SM's storage it prefers as shared memory) unless < 0. */
template <typename K>
gpuError_t blocks_per_sm(occupancy_memo *memo, K kernel, int threads, size_t smem, int *per_sm,
                         int carveout = -1) {
  const void *k = (const void *)kernel;
  for (int i = 0; i < memo->n; i++)
    if (memo->kernel[i] == k && memo->smem[i] == smem) {
      *per_sm = memo->per_sm[i];
      return gpuSuccess;
    }
  if (carveout >= 0) gpuFuncPreferSharedPercent(kernel, carveout);
  *per_sm = 1;
  const gpuError_t e = gpuOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, kernel, threads, smem);
  if (*per_sm < 1) *per_sm = 1;
  if (e == gpuSuccess && memo->n < occupancy_memo::slots)
    memo->kernel[memo->n] = k, memo->smem[memo->n] = smem, memo->per_sm[memo->n++] = *per_sm;
  return e;
}

/* Evict-first loads of a matrix's arrays by default: only where they cannot stay in the L2
 * between products (over half of it). Where they fit, plain loads keep them there: evict-first
 * lines are the first victims of any other line, stale ones included, so an L2-sized matrix
 * read evict-first is read from memory again on every call once the L2 holds other data. On the
 * H100 (zs-bench-auto beside operators read with plain loads; evict-first -> plain): Watts-
 * Strogatz f64 (12.8 MB as CSR) CSR 7.98 -> 6.49 us, SELL 7.65 -> 5.29, elasticity 16^3
 * (10.6 MB) CSR 8.54 -> 6.67, SELL 7.81 -> 5.11; past the L2 evict-first stays ahead (banded
 * f64, 250 MB: CSR 96.4 against 106.1, SELL 85.6 against 94.4) or even (lap2d, Erdos-Renyi). */
inline bool stream_matrix(const gpu_device *dev, double matrix_bytes) {
  return !dev || dev->l2_bytes == 0 || matrix_bytes > 0.5 * (double)dev->l2_bytes;
}

/* `pad` zeroed elements follow the copy, for kernels that read a little past an array's end. */
template <typename V>
zs_status upload_array(V **dst, const void *src, uint64_t count, const char *what,
                       uint64_t pad = 0) {
  *dst = NULL;
  if (count == 0) return ZS_OK;
  zs_status s = check(gpuMalloc((void **)dst, (count + pad) * sizeof(V)), what);
  if (s == ZS_OK) s = check(gpuMemcpy(*dst, src, count * sizeof(V), gpuMemcpyHostToDevice), what);
  if (s == ZS_OK && pad) s = check(gpuMemset(*dst + count, 0, pad * sizeof(V)), what);
  return s;
}

inline void release(void *p) {
  if (p) (void)gpuFree(p); /* nothing useful to do if freeing fails */
}

/* One format's operators: every format, CSR and COO included, fills one of these. */
struct gpu_format {
  zs_format format;
  /* Upload what the kernels need from the view (the caller may free it afterwards), for the
   * context whose device is dev (which outlives the operator). */
  zs_status (*create)(const gpu_device *dev, void **state, const zsb_encoded_view *v,
                      const char *options);
  void (*destroy)(void *state);
  zs_status (*apply)(void *state, zs_op which, double alpha, const void *x, double beta, void *y);
  /* zs_spmv_pair in one pass; NULL, or ZS_ERR_UNSUPPORTED for this operator: two products */
  zs_status (*pair)(void *state, double alpha, const void *x, double beta, void *y, double alpha_t,
                    const void *w, double beta_t, void *z);
};

/* Each format's table, one getter gpu_format_<name> per line of formats/format_list.h, defined by
 * the format's unit (getters: HIP would emit a namespace-scope constant with external linkage for
 * the device too, where its host functions do not exist). Weak and hidden: where a module has no
 * unit for a format, the link leaves that getter's address NULL, and the module's table an empty
 * slot (gpu_module.cuh). */
#define ZS_GPU_FORMAT_GETTER(ID, name, folder, summary) \
  __attribute__((weak, visibility("hidden"))) const gpu_format *gpu_format_##name();
ZSI_FORMAT_LIST(ZS_GPU_FORMAT_GETTER)
#undef ZS_GPU_FORMAT_GETTER

/* The "vans-v2" extension table for `name`, else NULL (vans_gpu.cuh). */
const void *vans_gpu_extension(const char *name);

/* ---- the CSR operator (csr_gpu.cuh), which other formats run Aᵀ through ---- */

/* CSR-dtANS's raw-value kernel as an operator option forces it; 0: the operator chooses. */
struct raw_choice {
  int blocks;  /* 3 or 4: the kernel cut for that many blocks per multiprocessor */
  int tickets; /* 1: slices taken from the ticket counter, -1: at a fixed stride */
};

/* The CSR and dtANS options from op_create's string (checked and completed by the library):
 * transpose, block_nnz (*items 4 or 8 nonzeros a thread, 0 choose), col_slabs (0 choose), and
 * where raw is not NULL the dtANS raw-value kernel's experimental.raw_blocks/raw_slices. */
void read_options(const char *options, bool *atomic, int *items, int *slabs, raw_choice *raw);

/* Rows whose first columns jump far from one row to the next gather x at random. */
bool rows_scattered(const int64_t *ptr, const int32_t *col, int64_t rows);

/* Column slabs of a CSR product that gathers x at random (forced > 0: that many). */
int csr_slab_count(const gpu_device *dev, int forced, bool scattered, const int32_t *col,
                   int64_t nnz, int64_t cols, size_t value_size);

struct gpu_op; /* a CSR or COO operator */

/* Aᵀ of a rows x cols matrix as a CSR operator to run forward: rows_of/col, each nonzero's row
 * and column on the host; d_val its value on the device, same order (not taken over). */
zs_status transpose_op(gpu_op **out, const gpu_device *dev, zs_type type, int64_t rows,
                       int64_t cols, int64_t nnz, const int32_t *rows_of, const int32_t *col,
                       const void *d_val, int slabs);
zs_status csr_apply(gpu_op *op, zs_op which, double alpha, const void *x, double beta, void *y);
void csr_op_free(gpu_op *op);

} /* namespace zs_gpu */

#endif /* ZS_GPU_COMMON_CUH */
