/* zs_bench_gpu.cu — zs-bench-gpu: zsparse cuda CSR/COO SpMV and SpMVT beside cuSPARSE (CSR ALG1
 * and ALG2, COO, SELL-32, transposed CSR, stored Aᵀ) and a read-bandwidth probe, in one run. */

#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_host.h"
#include "bench_vendor.h"

using namespace zb;

namespace {

const char kUsage[] =
    "usage: zs-bench-gpu [options] MATRIX...\n"
    "\n" ZB_BUILD_NOTE
    "Times zsparse's cuda backend (CSR SpMV, CSR SpMVT deterministic and atomic, COO SpMV and\n"
    "atomic SpMVT) beside cuSPARSE (generic API, 32-bit indices, alpha = 1, beta = 0: CSR ALG1\n"
    "and ALG2, COO ALG1, SELL-32, each after cusparseSpMV_preprocess; CSR and COO and SELL with\n"
    "CUSPARSE_OPERATION_TRANSPOSE from one copy; Aᵀ stored as CSR and run forward), f64 and f32,\n"
    "after measuring the device's read-bandwidth ceiling (16-byte streaming loads) and the\n"
    "host's launch floor (an empty kernel's calls issued back to back: us a call).\n"
    "\n"
    "MATRIX   a Matrix Market file (.mtx or .mtx.gz), gen:SPEC for a generator spec (e.g.\n"
    "         gen:stencil2d:n=4096,points=5; see docs/generators.md), or `suite`: lap2d\n"
    "         (stencil2d 4096^2, 5 points), st27 (stencil3d 160^3, 27 points), er (erdos_renyi\n"
    "         4M rows x 16), rmat (scale 22 x 16), band (banded 8M rows, |i-j| <= 64 (width=128), "
    "20/row);\n"
    "         values uniform random, seed 42. `suite-set`: the same matrices with values from a "
    "set\n"
    "         of 64 (values=set,distinct=64). With --quick, ~1M-nonzero versions of these.\n"
    "\n"
    "options:\n"
    "  --types LIST     f64,f32 (default both)\n"
    "  --reps N         timed calls per kernel and cache state (default 30; 10 with --quick)\n"
    "  --warmup N       untimed calls first (default 3)\n"
    "  --batch N        warm timing: N back-to-back calls between one pair of events, the time\n"
    "                   divided by N (default 1: each call between its own events). Products of\n"
    "                   a few us are issued by the host no faster than they run: a batch times\n"
    "                   their throughput, as a solver's loop sees it\n"
    "  --csv FILE       one line per (matrix, type, kernel): warm and cold medians, bytes, GB/s,\n"
    "                   fraction of the ceiling, check result (rewritten after each matrix)\n"
    "  --json FILE      the same lines plus device, cuSPARSE version and the ceiling\n"
    "  --md FILE        the summary table (also printed on stdout at the end)\n"
    "  --quick          small suite, fewer reps: a smoke run\n"
    "  --no-vendor      zsparse kernels only\n"
    "  --format F       also time zsparse format F (NAME[:ENCODER_OPTIONS][@OPERATOR_OPTIONS],\n"
    "                   repeatable, e.g. dtans, dtans:values=raw or "
    "gcsb@experimental.x_stage=off): SpMV,\n"
    "                   deterministic and atomic SpMVT (csb, gcsb: also the atomic format-order\n"
    "                   SpMV); operator options go to both operators. Also BiCG's pair\n"
    "                   (op P: zs_spmv_pair, y = A x and z = A^T w in one call) on an operator\n"
    "                   with transpose=atomic (csb, gcsb: a third one, SpMV deterministic);\n"
    "                   both outputs checked, bytes = the format once + four vectors\n"
    "                   (lines named by F; `csr` and `coo`, whose default lines have those\n"
    "                   names, as `csr@` and `coo@`)\n"
    "  --format-spmv-only  the --format operators' SpMV alone (no SpMVT, no pair): what\n"
    "                   bench/auto times auto's choice by, beside cuSPARSE in one process\n"
    "  --no-cold        skip the cold-cache timing\n"
    "  --flush-mib N    scratch overwritten and read before each cold call (default 200)\n"
    "  --ceiling-gib N  buffer of the read probe (default 2, at least 1)\n"
    "  --seed N         seed of x (default 42)\n"
    "  --host-selftest  check the host SELL / Aᵀ / COO builders and the checker; no GPU needed\n"
    "  --host-only      only the host preparation (load, Aᵀ, SELL, references), timed; no GPU\n"
    "  --help\n"
    "\n"
    "Timing: CUDA events around each call (each --batch of calls) on the legacy default stream;\n"
    "warm = median of --reps back-to-back calls (batches); cold = median of --reps calls each\n"
    "after overwriting and reading the scratch buffer (larger than the 50 MiB L2 of an H100).\n"
    "host_mean_us is wall time per call\n"
    "over a synchronised batch: a cross-check of the events. launch_floor_us (every CSV line) is\n"
    "the run's launch floor: no product of this host issues faster.\n"
    "Bytes: the format's arrays (zs_encoded_bytes for zsparse; int32 offsets and indices for\n"
    "cuSPARSE; SELL with its padding) + x + y, each once.\n"
    "Check: one call with y poisoned (NaN) per kernel, against a long double host reference; row\n"
    "i passes when |y_i - ref_i| <= eps * (len_i + 2) * sum_j |a_ij x_j|. The deterministic\n"
    "SpMVT must also give the same bits twice. Any failure is printed and makes the exit status\n"
    "1 (timings are still reported).\n"
    "Exit status: 0 all checks passed, 1 a check or a kernel failed, 2 usage, 77 no GPU.\n";

struct Options {
  std::vector<zs_type> types{ZS_F64, ZS_F32};
  int reps = -1, warmup = 3;
  int batch = 1; /* warm timing: calls between one pair of events */
  std::string csv, json, md;
  bool quick = false, vendor = true, cold = true, help = false, selftest = false;
  bool host_only = false;
  bool n_only = false; /* --format's operators: their SpMV alone */
  double flush_mib = 200, ceiling_gib = 2;
  uint64_t seed = 42;
  double sell_limit_gb = 24;
  std::vector<std::string> inputs;
  std::vector<std::string> formats; /* beyond csr and coo: NAME[:ENCODER_OPTIONS] */
};

/* A CUDA runtime error. sticky: the context is lost (illegal address, launch failure), so
 * nothing more can run in this process. */
struct CudaError : std::runtime_error {
  bool sticky;
  CudaError(const std::string &m, bool s) : std::runtime_error(m), sticky(s) {}
};

void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
  if (e == cudaSuccess) return;
  char b[512];
  snprintf(b, sizeof b, "%s:%d: %s: %s (%s)", file, line, what, cudaGetErrorString(e),
           cudaGetErrorName(e));
  const bool sticky = e != cudaErrorMemoryAllocation && e != cudaErrorInvalidValue;
  if (!sticky) (void)cudaGetLastError(); /* clear it */
  throw CudaError(b, sticky);
}
#define CUDA_CHECK(expr) cuda_check((expr), #expr, __FILE__, __LINE__)

/* Outcome of one step: 0 ok, 1 not supported (n/a), 2 error. */
struct St {
  int code = 0;
  std::string msg;
};

St zs_st(zs_status s, const char *what) {
  if (s == ZS_OK) return {};
  return {2, std::string(what) + ": " + zs_status_name(s) + ": " + zs_last_error()};
}

St sp_st(cusparseStatus_t s, const char *what, bool optional) {
  if (s == CUSPARSE_STATUS_SUCCESS) return {};
  const std::string m =
      std::string(what) + ": " + zb_sparse_status_name(s) + " (" + zb_sparse_status_text(s) + ")";
  if (s == CUSPARSE_STATUS_NOT_SUPPORTED || optional) return {1, m};
  return {2, m};
}

struct DevBuf {
  void *p = nullptr;
  size_t bytes = 0;
  DevBuf() = default;
  DevBuf(const DevBuf &) = delete;
  DevBuf &operator=(const DevBuf &) = delete;
  ~DevBuf() { release(); }
  void alloc(size_t b, const char *what) {
    release();
    const cudaError_t e = cudaMalloc(&p, b ? b : 16);
    if (e != cudaSuccess) {
      p = nullptr;
      char m[256];
      snprintf(m, sizeof m, "cudaMalloc of %.3f GB for %s", (double)b / 1e9, what);
      cuda_check(e, m, __FILE__, __LINE__);
    }
    bytes = b;
  }
  template <typename T>
  void upload(const T *host, size_t n, const char *what) {
    alloc(n * sizeof(T), what);
    if (n) CUDA_CHECK(cudaMemcpy(p, host, n * sizeof(T), cudaMemcpyHostToDevice));
  }
  void release() {
    if (p) (void)cudaFree(p);
    p = nullptr;
    bytes = 0;
  }
};

/* ---- device kernels: read probe and cache flush ---------------------------------------- */

__global__ void probe_fill(double2 *a, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    a[i] = make_double2(1.0 + (double)(i & 1023) * 1e-3, 0.5);
}

/* Four independent 16-byte loads in flight per thread per iteration. The sum is stored only when
 * it is negative (never: all inputs are positive) so the loads cannot be dropped. */
__global__ void probe_read(const double2 *__restrict__ a, size_t n, double *out) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  double s0 = 0, s1 = 0;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const double2 v0 = a[i], v1 = a[i + stride], v2 = a[i + 2 * stride], v3 = a[i + 3 * stride];
    s0 += (v0.x + v1.x) + (v2.x + v3.x);
    s1 += (v0.y + v1.y) + (v2.y + v3.y);
  }
  for (; i < n; i += stride) {
    const double2 v = a[i];
    s0 += v.x;
    s1 += v.y;
  }
  if (s0 + s1 < 0) out[0] = s0 + s1;
}

/* Nothing: what a launch costs without a product (measure_launch_floor). */
__global__ void empty_kernel() {}

/* Reads and overwrites the scratch buffer: evicts the matrix and vectors from L2. */
__global__ void flush_kernel(float4 *b, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    float4 v = b[i];
    v.x = v.x * 0.5f + 1.0f, v.y = v.y * 0.5f + 1.0f, v.z = v.z * 0.5f + 1.0f;
    v.w = v.w * 0.5f + 1.0f;
    b[i] = v;
  }
}

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Gpu {
  std::string name;
  int sms = 0;
  cusparseHandle_t sp = nullptr;
  std::vector<cudaEvent_t> ev0, ev1;
  DevBuf flush;
  double ceiling = NAN;
  ~Gpu() {
    for (cudaEvent_t e : ev0) (void)cudaEventDestroy(e);
    for (cudaEvent_t e : ev1) (void)cudaEventDestroy(e);
    if (sp) cusparseDestroy(sp);
  }
  void do_flush() {
    const size_t n = flush.bytes / sizeof(float4);
    flush_kernel<<<(unsigned)sms * 8, 256>>>((float4 *)flush.p, n);
  }
};

double measure_ceiling(Gpu &g, double gib) {
  size_t free_b = 0, total_b = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  size_t bytes = (size_t)(gib * (double)(1ull << 30));
  if (bytes > free_b / 2) bytes = free_b / 2;
  bytes &= ~(size_t)15;
  if (bytes < (1ull << 30))
    logf("warning: read probe on %.2f GiB only (free device memory %.2f GiB)",
         (double)bytes / (1ull << 30), (double)free_b / (1ull << 30));
  DevBuf a, out;
  a.alloc(bytes, "read probe");
  out.alloc(sizeof(double), "read probe result");
  const size_t n = bytes / sizeof(double2);
  probe_fill<<<(unsigned)g.sms * 8, 256>>>((double2 *)a.p, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  const int configs[][2] = {{2, 1024}, {4, 512}, {8, 256}, {4, 256}, {16, 256}, {32, 128}};
  const int reps = 15;
  double best = 0;
  for (const auto &c : configs) {
    const unsigned blocks = (unsigned)(g.sms * c[0]);
    for (int w = 0; w < 2; w++)
      probe_read<<<blocks, c[1]>>>((const double2 *)a.p, n, (double *)out.p);
    std::vector<double> t;
    for (int r = 0; r < reps; r++) {
      CUDA_CHECK(cudaEventRecord(g.ev0[0]));
      probe_read<<<blocks, c[1]>>>((const double2 *)a.p, n, (double *)out.p);
      CUDA_CHECK(cudaEventRecord(g.ev1[0]));
      CUDA_CHECK(cudaEventSynchronize(g.ev1[0]));
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, g.ev0[0], g.ev1[0]));
      t.push_back(ms);
    }
    const double gbps = (double)bytes / (median(t) * 1e-3) / 1e9;
    logf("read probe: %u blocks x %d threads: %.0f GB/s", blocks, c[1], gbps);
    best = std::max(best, gbps);
    CUDA_CHECK(cudaGetLastError());
  }
  return best;
}

/* The launch floor: wall time per call of an empty kernel of one warp issued back to back by
 * this host, then synchronised once (median of 9 batches of 2000). Every product is a launch at
 * least, so a product of a few us times this host's issue rate as much as the GPU. The floor
 * moves with the host and between processes on one host, not with the GPU's work. */
double measure_launch_floor() {
  std::vector<double> t;
  for (int r = 0; r < 10; r++) {
    CUDA_CHECK(cudaDeviceSynchronize());
    const double t0 = now_s();
    for (int k = 0; k < 2000; k++) empty_kernel<<<1, 32>>>();
    CUDA_CHECK(cudaDeviceSynchronize());
    if (r) t.push_back(1e6 * (now_s() - t0) / 2000); /* the first batch warms up */
  }
  CUDA_CHECK(cudaGetLastError());
  return median(t);
}

/* ---- one kernel: check, then time ------------------------------------------------------- */

struct Launch {
  std::string lib, kernel;
  zs_op op = ZS_OP_N;
  uint64_t bytes = 0;
  double setup_ms = NAN, encode_ms = NAN;
  bool det = false;
  bool pair = false; /* zs_spmv_pair: fetch gives y = A x, fetch_t z = Aᵀ w, both checked */
  std::string note;
  std::function<St()> call, poison;
  std::function<St(void *)> fetch, fetch_t;
};

struct MatrixCtx {
  std::string name;
  const Structure *S = nullptr;
  const char *type = "";
  const Reference *ref_n = nullptr, *ref_t = nullptr;
  const Options *opt = nullptr;
  Gpu *gpu = nullptr;
  std::vector<Result> *results = nullptr;
  int *failures = nullptr;
};

Result base_result(const MatrixCtx &c, const Launch &L) {
  Result r;
  r.matrix = c.name, r.type = c.type, r.library = L.lib, r.kernel = L.kernel;
  r.op = L.pair ? "P" : L.op == ZS_OP_N ? "N" : "T";
  r.rows = c.S->rows, r.cols = c.S->cols, r.nnz = c.S->nnz;
  r.bytes = L.bytes, r.setup_ms = L.setup_ms, r.encode_ms = L.encode_ms, r.note = L.note;
  return r;
}

void record(const MatrixCtx &c, Result r) {
  if (r.status == "FAIL" || r.status == "error") {
    ++*c.failures;
    fprintf(stderr, "\n*** %s: %s %s %s %s op %s: %s ***\n\n",
            r.status == "FAIL" ? "CHECK FAILED" : "ERROR", r.matrix.c_str(), r.type.c_str(),
            r.library.c_str(), r.kernel.c_str(), r.op.c_str(), r.note.c_str());
    fflush(stderr);
  }
  auto f = [](double v, const char *fmt) {
    if (std::isnan(v)) return std::string("-");
    char b[32];
    snprintf(b, sizeof b, fmt, v);
    return std::string(b);
  };
  printf(
      "%-16.16s %s %-8s %-18s %s  warm %9s us  cold %9s us  %6s GB/s  frac %5s  err %8s  "
      "%s%s%s\n",
      r.matrix.c_str(), r.type.c_str(), r.library.c_str(), r.kernel.c_str(), r.op.c_str(),
      f(r.time_warm_us, "%.1f").c_str(), f(r.time_cold_us, "%.1f").c_str(),
      f(r.gbps, "%.0f").c_str(), f(r.frac_ceiling, "%.3f").c_str(),
      f(r.max_rel_err, "%.1e").c_str(), r.status.c_str(), r.note.empty() ? "" : ": ",
      r.note.c_str());
  fflush(stdout);
  c.results->push_back(r);
}

/* Not run (setup failed or unsupported): one line saying why. */
void record_skip(const MatrixCtx &c, const Launch &L, const St &s) {
  Result r = base_result(c, L);
  r.status = s.code == 1 ? "n/a" : "error";
  r.note = s.msg + (L.note.empty() ? "" : "; " + L.note);
  record(c, r);
}

template <typename T>
void measure(const MatrixCtx &c, Launch &L, const St &setup) {
  if (setup.code != 0) return record_skip(c, L, setup);
  Result r = base_result(c, L);
  const Structure &S = *c.S;
  const bool t = L.op == ZS_OP_T;
  const Reference &ref = t ? *c.ref_t : *c.ref_n;
  const int64_t *ptr = t ? S.t_ptr.data() : S.rp;
  const int64_t ny = t ? S.cols : S.rows;
  const int reps = c.opt->reps;
  Gpu &g = *c.gpu;
  auto fail = [&](const St &s, const char *when) {
    r.status = s.code == 1 ? "n/a" : "error";
    r.note = std::string(when) + ": " + s.msg + (r.note.empty() ? "" : "; " + r.note);
    record(c, r);
  };
  std::vector<T> y((size_t)std::max<int64_t>(ny, 1)), y2;
  St s = L.poison();
  if (s.code) return fail(s, "poisoning y");
  const double t0 = now_s();
  if ((s = L.call()).code) return fail(s, "first call");
  CUDA_CHECK(cudaDeviceSynchronize());
  r.first_call_ms = 1e3 * (now_s() - t0);
  if ((s = L.fetch(y.data())).code) return fail(s, "fetching y");
  const Check chk = check_result<T>(y.data(), ref, ptr, ny);
  r.max_rel_err = chk.max_rel_err;
  r.tolerance = chk.tolerance;
  r.status = chk.ok ? "pass" : "FAIL";
  if (!chk.ok) {
    char b[256];
    snprintf(b, sizeof b,
             "%" PRId64 " of %" PRId64 " outputs out of bound; first: y[%" PRId64
             "] = %.17g, reference %.17g",
             chk.bad, ny, chk.first_bad, chk.y_first, chk.ref_first);
    r.note += (r.note.empty() ? "" : "; ") + std::string(b);
  }
  if (L.pair) { /* the pair's z = Aᵀ w, against the SpMVT reference */
    std::vector<T> z((size_t)std::max<int64_t>(S.cols, 1));
    if ((s = L.fetch_t(z.data())).code) return fail(s, "fetching z");
    const Check ct = check_result<T>(z.data(), *c.ref_t, S.t_ptr.data(), S.cols);
    r.max_rel_err = std::max(r.max_rel_err, ct.max_rel_err);
    if (!ct.ok) {
      r.status = "FAIL";
      char b[256];
      snprintf(b, sizeof b,
               "z: %" PRId64 " of %" PRId64 " outputs out of bound; first: z[%" PRId64
               "] = %.17g, reference %.17g",
               ct.bad, S.cols, ct.first_bad, ct.y_first, ct.ref_first);
      r.note += (r.note.empty() ? "" : "; ") + std::string(b);
    }
  }
  if (L.det) {
    y2.resize(y.size());
    if ((s = L.poison()).code || (s = L.call()).code) return fail(s, "second call");
    CUDA_CHECK(cudaDeviceSynchronize());
    if ((s = L.fetch(y2.data())).code) return fail(s, "fetching y");
    if (memcmp(y.data(), y2.data(), (size_t)ny * sizeof(T)) != 0) {
      r.status = "FAIL";
      r.note += (r.note.empty() ? "" : "; ") + std::string("two calls gave different bits");
    }
  }
  for (int w = 0; w < c.opt->warmup; w++)
    if ((s = L.call()).code) return fail(s, "warm-up");
  /* reps calls between events, each after an L2 flush when flush is set: their median in us;
   * without flush, reps batches of --batch calls, each batch's time over its calls */
  std::vector<double> ts;
  const auto timed = [&](bool flush, double *median_us) -> bool {
    ts.clear();
    const int batch = flush ? 1 : c.opt->batch;
    for (int i = 0; i < reps; i++) {
      if (flush) g.do_flush();
      CUDA_CHECK(cudaEventRecord(g.ev0[i]));
      for (int b = 0; b < batch; b++)
        if ((s = L.call()).code) return false;
      CUDA_CHECK(cudaEventRecord(g.ev1[i]));
    }
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventSynchronize(g.ev1[reps - 1]));
    for (int i = 0; i < reps; i++) {
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, g.ev0[i], g.ev1[i]));
      ts.push_back(1e3 * ms / batch);
    }
    *median_us = median(ts);
    return true;
  };
  if (!timed(false, &r.time_warm_us)) return fail(s, "timed call");
  CUDA_CHECK(cudaDeviceSynchronize());
  const double h0 = now_s();
  for (int i = 0; i < reps; i++)
    if ((s = L.call()).code) return fail(s, "timed call");
  CUDA_CHECK(cudaDeviceSynchronize());
  r.host_mean_us = 1e6 * (now_s() - h0) / reps;
  if (c.opt->cold && !timed(true, &r.time_cold_us)) return fail(s, "timed call");
  CUDA_CHECK(cudaDeviceSynchronize());
  r.gbps = (double)r.bytes / (r.time_warm_us * 1e3);
  r.frac_ceiling = r.gbps / g.ceiling;
  if (!std::isnan(r.time_cold_us)) {
    r.gbps_cold = (double)r.bytes / (r.time_cold_us * 1e3);
    r.frac_ceiling_cold = r.gbps_cold / g.ceiling;
  }
  /* The zsparse module launches through its own (static) CUDA runtime on the legacy default
   * stream; if events ever stopped covering its kernels the event time would collapse. */
  if (r.host_mean_us > 100 && r.time_warm_us < 0.5 * r.host_mean_us)
    r.note += (r.note.empty() ? "" : "; ") +
              std::string("warning: event time below half the wall time per call");
  record(c, r);
}

/* ---- zsparse kernels -------------------------------------------------------------------- */

struct ZsVec {
  zs_vector *v = nullptr;
  ~ZsVec() {
    if (v) zs_vector_destroy(&v);
  }
};
struct ZsOp {
  zs_operator *o = nullptr;
  ~ZsOp() {
    if (o) zs_operator_destroy(&o);
  }
};
struct ZsEnc {
  zs_encoded *e = nullptr;
  ~ZsEnc() {
    if (e) zs_encoded_destroy(&e);
  }
};

template <typename T>
void bench_zsparse(const MatrixCtx &c, zs_context *ctx, const zs_matrix *A, zs_type type,
                   const std::vector<T> &xn, const std::vector<T> &xt) {
  const Structure &S = *c.S;
  const uint64_t vs = sizeof(T), xy = vs * (uint64_t)(S.rows + S.cols);
  std::vector<T> nan_y((size_t)std::max<int64_t>(std::max(S.rows, S.cols), 1),
                       std::numeric_limits<T>::quiet_NaN());
  ZsVec vxn, vyn, vxt, vyt;
  St s = zs_st(zs_vector_create(&vxn.v, ctx, ZB_BACKEND, type, S.cols), "zs_vector_create x");
  if (!s.code)
    s = zs_st(zs_vector_create(&vyn.v, ctx, ZB_BACKEND, type, S.rows), "zs_vector_create y");
  if (!s.code)
    s = zs_st(zs_vector_create(&vxt.v, ctx, ZB_BACKEND, type, S.rows), "zs_vector_create xt");
  if (!s.code)
    s = zs_st(zs_vector_create(&vyt.v, ctx, ZB_BACKEND, type, S.cols), "zs_vector_create yt");
  if (!s.code) s = zs_st(zs_vector_upload(vxn.v, xn.data()), "zs_vector_upload x");
  if (!s.code) s = zs_st(zs_vector_upload(vxt.v, xt.data()), "zs_vector_upload xt");

  auto make = [&](const char *kernel, zs_op op, zs_operator **opp, uint64_t fmt_bytes,
                  double enc_ms, double setup_ms, bool det) {
    Launch L;
    L.lib = "zsparse", L.kernel = kernel, L.op = op, L.bytes = fmt_bytes + xy;
    L.encode_ms = enc_ms, L.setup_ms = setup_ms, L.det = det;
    zs_vector *x = op == ZS_OP_N ? vxn.v : vxt.v, *y = op == ZS_OP_N ? vyn.v : vyt.v;
    L.call = [=] { return zs_st(zs_spmv(*opp, op, 1.0, x, 0.0, y), "zs_spmv"); };
    L.poison = [=, &nan_y] { return zs_st(zs_vector_upload(y, nan_y.data()), "poison y"); };
    L.fetch = [=](void *h) { return zs_st(zs_vector_download(y, h), "zs_vector_download"); };
    return L;
  };
  /* BiCG's pair: y = A x and z = Aᵀ w in one zs_spmv_pair call (x and w the inputs above) */
  auto make_pair = [&](const char *kernel, zs_operator **opp, uint64_t fmt_bytes, double enc_ms,
                       double setup_ms) {
    Launch L = make(kernel, ZS_OP_N, opp, fmt_bytes + xy, enc_ms, setup_ms, false);
    L.pair = true;
    zs_vector *x = vxn.v, *y = vyn.v, *w = vxt.v, *z = vyt.v;
    L.call = [=] {
      return zs_st(zs_spmv_pair(*opp, 1.0, x, 0.0, y, 1.0, w, 0.0, z), "zs_spmv_pair");
    };
    L.poison = [=, &nan_y] {
      St p = zs_st(zs_vector_upload(y, nan_y.data()), "poison y");
      return p.code ? p : zs_st(zs_vector_upload(z, nan_y.data()), "poison z");
    };
    L.fetch_t = [=](void *h) { return zs_st(zs_vector_download(z, h), "zs_vector_download"); };
    return L;
  };

  for (int f = 0; f < 2; f++) {
    const zs_format fmt = f == 0 ? ZS_FORMAT_CSR : ZS_FORMAT_COO;
    ZsEnc E;
    double t0 = now_s();
    St se = s;
    if (!se.code) se = zs_st(zs_encode(&E.e, A, fmt, nullptr), "zs_encode");
    const double enc_ms = 1e3 * (now_s() - t0);
    const uint64_t fb = se.code ? 0 : zs_encoded_bytes(E.e);
    if (!se.code)
      logf("%s %s: zs_encode %s %.0f ms, %.3f GB", c.name.c_str(), c.type, f == 0 ? "csr" : "coo",
           enc_ms, (double)fb / 1e9);
    /* CSR: default operator (N, deterministic T), then an atomic one (T). COO: the atomic
     * operator gives N and the atomic T; its deterministic T would need a second index. */
    const int n_ops = f == 0 ? 2 : 1;
    for (int o = 0; o < n_ops; o++) {
      const bool atomic = f == 1 || o == 1;
      ZsOp op;
      St so = se;
      t0 = now_s();
      if (!so.code)
        so = zs_st(
            zs_operator_create(&op.o, ctx, E.e, ZB_BACKEND, atomic ? "transpose=atomic" : nullptr),
            "zs_operator_create");
      if (!so.code) so = zs_st(zs_operator_sync(op.o), "zs_operator_sync");
      const double setup_ms = 1e3 * (now_s() - t0);
      if (f == 0 && o == 0) {
        Launch ln = make("csr", ZS_OP_N, &op.o, fb, enc_ms, setup_ms, false);
        measure<T>(c, ln, so);
        /* It reads the transpose index (row and position per nonzero, cols + 1 offsets)
         * instead of row_ptr and col_idx: count what it moves. */
        const uint64_t det_bytes =
            fb + 4 * (uint64_t)c.S->nnz + 8 * (uint64_t)c.S->cols - 8 * (uint64_t)c.S->rows;
        Launch lt = make("csr-det", ZS_OP_T, &op.o, det_bytes, enc_ms, setup_ms, true);
        lt.note = "transpose index built on first call (first_call_ms); bytes include it";
        measure<T>(c, lt, so);
      } else if (f == 0) {
        Launch lt = make("csr-atomic", ZS_OP_T, &op.o, fb, enc_ms, setup_ms, false);
        measure<T>(c, lt, so);
      } else {
        Launch ln = make("coo", ZS_OP_N, &op.o, fb, enc_ms, setup_ms, false);
        measure<T>(c, ln, so);
        Launch lt = make("coo-atomic", ZS_OP_T, &op.o, fb, enc_ms, setup_ms, false);
        measure<T>(c, lt, so);
      }
    }
  }

  /* Further formats: the default operator (SpMV, deterministic SpMVT) and an atomic one. Lines
   * are named by the spec as given; `csr` and `coo` (the lines above have those names) end in
   * an `@` of no operator options, so that no two lines of a run share a name. */
  for (const std::string &given : c.opt->formats) {
    const std::string spec = given == "csr" || given == "coo" ? given + "@" : given;
    const size_t at_sign = spec.find('@');
    const std::string enc_spec = spec.substr(0, at_sign);
    const std::string op_opts = at_sign == std::string::npos ? "" : spec.substr(at_sign + 1);
    const size_t colon = enc_spec.find(':');
    const std::string name = enc_spec.substr(0, colon);
    const std::string enc_opts = colon == std::string::npos ? "" : enc_spec.substr(colon + 1);
    zs_format fmt;
    St se = s;
    if (!se.code) se = zs_st(zs_format_from_name(name.c_str(), &fmt), "zs_format_from_name");
    ZsEnc E;
    double t0 = now_s();
    if (!se.code)
      se = zs_st(zs_encode(&E.e, A, fmt, enc_opts.empty() ? nullptr : enc_opts.c_str()),
                 "zs_encode");
    const double enc_ms = 1e3 * (now_s() - t0);
    const uint64_t fb = se.code ? 0 : zs_encoded_bytes(E.e);
    if (!se.code)
      logf("%s %s: zs_encode %s %.0f ms (%.1f M nnz/s), %.3f GB, %.3f B/nnz", c.name.c_str(),
           c.type, spec.c_str(), enc_ms, (double)c.S->nnz / enc_ms * 1e-3, (double)fb / 1e9,
           (double)fb / (double)(c.S->nnz ? c.S->nnz : 1));
    /* CSB and GCSB also have a format-order (atomic) SpMV: the second operator runs it, and a
     * third (its SpMV deterministic, its SpMVT atomic) the pair, which the others run too. */
    const bool blocked = !se.code && (fmt == ZS_FORMAT_CSB || fmt == ZS_FORMAT_GCSB);
    std::string opts[3] = {op_opts, blocked ? "spmv=atomic,transpose=atomic" : "transpose=atomic",
                           "transpose=atomic"};
    for (int o = 1; o < 3; o++)
      if (!op_opts.empty()) opts[o] += "," + op_opts;
    const int n_ops = c.opt->n_only ? 1 : blocked ? 3 : 2;
    for (int o = 0; o < n_ops; o++) {
      ZsOp op;
      St so = se;
      t0 = now_s();
      if (!so.code)
        so = zs_st(zs_operator_create(&op.o, ctx, E.e, ZB_BACKEND,
                                      opts[o].empty() ? nullptr : opts[o].c_str()),
                   "zs_operator_create");
      if (!so.code) so = zs_st(zs_operator_sync(op.o), "zs_operator_sync");
      const double setup_ms = 1e3 * (now_s() - t0);
      if (o == 2 || (o == 1 && !blocked)) {
        const std::string pr = spec + "-pair";
        Launch lp = make_pair(pr.c_str(), &op.o, fb, enc_ms, setup_ms);
        lp.note = "zs_spmv_pair, SpMVT atomic: one pass where the backend fuses it";
        measure<T>(c, lp, so);
      }
      if (o == 2) continue;
      if (o == 0) {
        Launch ln = make(spec.c_str(), ZS_OP_N, &op.o, fb, enc_ms, setup_ms, false);
        measure<T>(c, ln, so);
        if (c.opt->n_only) continue;
        const std::string det = spec + "-det";
        Launch lt = make(det.c_str(), ZS_OP_T, &op.o, fb, enc_ms, setup_ms, true);
        lt.note = blocked
                      ? "deterministic SpMVT: a warp per block column"
                      : "deterministic SpMVT through a decoded CSR transpose built on first call";
        measure<T>(c, lt, so);
      } else {
        const std::string at = spec + "-atomic";
        if (blocked) {
          Launch ln = make(at.c_str(), ZS_OP_N, &op.o, fb, enc_ms, setup_ms, false);
          measure<T>(c, ln, so);
        }
        Launch lt = make(at.c_str(), ZS_OP_T, &op.o, fb, enc_ms, setup_ms, false);
        measure<T>(c, lt, so);
      }
    }
  }
}

/* ---- cuSPARSE kernels ------------------------------------------------------------------- */

struct SpKernel {
  cusparseSpMatDescr_t A = nullptr;
  cusparseDnVecDescr_t x = nullptr, y = nullptr;
  DevBuf buf;
  SpKernel() = default;
  SpKernel(const SpKernel &) = delete;
  ~SpKernel() {
    if (A) cusparseDestroySpMat(A);
    if (x) cusparseDestroyDnVec(x);
    if (y) cusparseDestroyDnVec(y);
  }
};

template <typename T>
cudaDataType dtype() {
  return sizeof(T) == 8 ? CUDA_R_64F : CUDA_R_32F;
}

/* Descriptors, buffer and preprocess for one (matrix descriptor, op, algorithm); each kernel
 * gets its own matrix descriptor because preprocess state belongs to it. */
template <typename T>
St sp_setup(Gpu &g, SpKernel &k, const std::function<cusparseStatus_t(cusparseSpMatDescr_t *)> &mk,
            cusparseOperation_t opA, cusparseSpMVAlg_t alg, void *x, int64_t nx, void *y,
            int64_t ny, bool optional, double *ms, std::string *note) {
  const double t0 = now_s();
  St s = sp_st(mk(&k.A), "create matrix descriptor", optional);
  if (!s.code)
    s = sp_st(cusparseCreateDnVec(&k.x, nx, x, dtype<T>()), "cusparseCreateDnVec", false);
  if (!s.code)
    s = sp_st(cusparseCreateDnVec(&k.y, ny, y, dtype<T>()), "cusparseCreateDnVec", false);
  const T one = 1, zero = 0;
  size_t size = 0;
  if (!s.code)
    s = sp_st(
        cusparseSpMV_bufferSize(g.sp, opA, &one, k.A, k.x, &zero, k.y, dtype<T>(), alg, &size),
        "cusparseSpMV_bufferSize", optional);
  if (s.code) return s;
  k.buf.alloc(size, "cuSPARSE SpMV buffer");
#if ZB_HAVE_PREPROCESS
  /* An optimisation only: if it is refused, the product is still measured without it. */
  const St ps = sp_st(
      cusparseSpMV_preprocess(g.sp, opA, &one, k.A, k.x, &zero, k.y, dtype<T>(), alg, k.buf.p),
      "cusparseSpMV_preprocess", true);
  if (ps.code) *note += (note->empty() ? "" : "; ") + ps.msg + ": measured without it";
#else
  *note += (note->empty() ? "" : "; ") + std::string("no SpMV_preprocess in this " ZB_VENDOR_NAME);
#endif
  CUDA_CHECK(cudaDeviceSynchronize());
  *ms = 1e3 * (now_s() - t0);
  return s;
}

template <typename T>
Launch sp_launch(Gpu &g, SpKernel &k, const char *kernel, zs_op op, cusparseOperation_t opA,
                 cusparseSpMVAlg_t alg, void *y, int64_t ny, uint64_t bytes, bool optional) {
  Launch L;
  L.lib = ZB_VENDOR, L.kernel = kernel, L.op = op, L.bytes = bytes;
  cusparseHandle_t h = g.sp;
  SpKernel *kp = &k;
  L.call = [=] {
    const T one = 1, zero = 0;
    return sp_st(cusparseSpMV(h, opA, &one, kp->A, kp->x, &zero, kp->y, dtype<T>(), alg, kp->buf.p),
                 "cusparseSpMV", optional);
  };
  const size_t yb = (size_t)ny * sizeof(T);
  L.poison = [=] {
    CUDA_CHECK(cudaMemset(y, 0xff, yb)); /* all-ones bits: a NaN in f32 and f64 */
    return St();
  };
  L.fetch = [=](void *hst) {
    CUDA_CHECK(cudaMemcpy(hst, y, yb, cudaMemcpyDeviceToHost));
    return St();
  };
  return L;
}

template <typename T>
void bench_cusparse(const MatrixCtx &c, const T *val, const std::vector<T> &xn,
                    const std::vector<T> &xt) {
  const Structure &S = *c.S;
  Gpu &g = *c.gpu;
  const int64_t rows = S.rows, cols = S.cols, nnz = S.nnz;
  const uint64_t vs = sizeof(T), xy = vs * (uint64_t)(rows + cols);
  const cudaDataType dt = dtype<T>();
  const uint64_t csr_b = 4 * (uint64_t)(rows + 1) + (4 + vs) * (uint64_t)nnz;
  const uint64_t csrt_b = 4 * (uint64_t)(cols + 1) + (4 + vs) * (uint64_t)nnz;
  const uint64_t coo_b = (8 + vs) * (uint64_t)nnz;
  const uint64_t sell_b = 4 * (uint64_t)(S.sell_slices + 1) + (4 + vs) * (uint64_t)S.sell_size;
  const auto N = CUSPARSE_OPERATION_NON_TRANSPOSE, Tr = CUSPARSE_OPERATION_TRANSPOSE;
  const cusparseIndexType_t I32 = CUSPARSE_INDEX_32I;
  const cusparseIndexBase_t B0 = CUSPARSE_INDEX_BASE_ZERO;
  struct Spec {
    const char *kernel;
    zs_op op;
    uint64_t bytes;
  };
  const Spec all[] = {{"csr-alg1", ZS_OP_N, csr_b}, {"csr-alg2", ZS_OP_N, csr_b},
                      {"coo-alg1", ZS_OP_N, coo_b}, {"sell32", ZS_OP_N, sell_b},
                      {"csr-alg1", ZS_OP_T, csr_b}, {"coo-alg1", ZS_OP_T, coo_b},
                      {"sell32", ZS_OP_T, sell_b},  {"csr-alg1-stored-At", ZS_OP_T, csrt_b}};
  if (nnz > INT32_MAX) {
    for (const Spec &sp : all) {
      Launch L;
      L.lib = ZB_VENDOR, L.kernel = sp.kernel, L.op = sp.op, L.bytes = sp.bytes + xy;
      record_skip(c, L, {1, "nnz exceeds the 32-bit indices of this baseline"});
    }
    return;
  }
  DevBuf dx, dxt, dy, dyt;
  dx.upload(xn.data(), (size_t)cols, "x");
  dxt.upload(xt.data(), (size_t)rows, "xt");
  dy.alloc((size_t)rows * vs, "y");
  dyt.alloc((size_t)cols * vs, "yt");

  {
    std::vector<int32_t> rp32((size_t)rows + 1);
    for (int64_t i = 0; i <= rows; i++) rp32[(size_t)i] = (int32_t)S.rp[i];
    DevBuf drp, dci, dval, drow;
    drp.upload(rp32.data(), rp32.size(), "CSR row offsets");
    dci.upload(S.ci, (size_t)nnz, "CSR column indices");
    dval.upload(val, (size_t)nnz, "CSR values");
    drow.upload(S.coo_row.data(), (size_t)nnz, "COO row indices");
    auto mk_csr = [&](cusparseSpMatDescr_t *d) {
      return cusparseCreateCsr(d, rows, cols, nnz, drp.p, dci.p, dval.p, I32, I32, B0, dt);
    };
    auto mk_coo = [&](cusparseSpMatDescr_t *d) {
      return cusparseCreateCoo(d, rows, cols, nnz, drow.p, dci.p, dval.p, I32, B0, dt);
    };
    struct Run {
      const char *kernel;
      zs_op op;
      int coo;
      cusparseSpMVAlg_t alg;
      uint64_t bytes;
      bool optional;
    };
    const Run runs[] = {{"csr-alg1", ZS_OP_N, 0, CUSPARSE_SPMV_CSR_ALG1, csr_b, false},
                        {"csr-alg2", ZS_OP_N, 0, CUSPARSE_SPMV_CSR_ALG2, csr_b, false},
                        {"coo-alg1", ZS_OP_N, 1, CUSPARSE_SPMV_COO_ALG1, coo_b, false},
                        {"csr-alg1", ZS_OP_T, 0, CUSPARSE_SPMV_CSR_ALG1, csr_b, false},
                        {"coo-alg1", ZS_OP_T, 1, CUSPARSE_SPMV_COO_ALG1, coo_b, true}};
    for (const Run &r : runs) {
      const bool t = r.op == ZS_OP_T;
      SpKernel k;
      double ms = NAN;
      std::function<cusparseStatus_t(cusparseSpMatDescr_t *)> mk = mk_csr;
      if (r.coo) mk = mk_coo;
      std::string note;
      const St s = sp_setup<T>(g, k, mk, t ? Tr : N, r.alg, t ? dxt.p : dx.p, t ? rows : cols,
                               t ? dyt.p : dy.p, t ? cols : rows, r.optional, &ms, &note);
      Launch L = sp_launch<T>(g, k, r.kernel, r.op, t ? Tr : N, r.alg, t ? dyt.p : dy.p,
                              t ? cols : rows, r.bytes + xy, r.optional);
      L.setup_ms = ms;
      L.note = note;
      measure<T>(c, L, s);
    }
  }
  {
    /* Aᵀ stored as CSR (built on the host) and run forward. */
    const double t0 = now_s();
    std::vector<int32_t> tp32((size_t)cols + 1);
    for (int64_t j = 0; j <= cols; j++) tp32[(size_t)j] = (int32_t)S.t_ptr[(size_t)j];
    std::vector<T> tval((size_t)nnz);
#pragma omp parallel for schedule(static)
    for (int64_t p = 0; p < nnz; p++) tval[(size_t)p] = val[S.t_perm[(size_t)p]];
    const double host_ms = S.transpose_ms + 1e3 * (now_s() - t0);
    DevBuf dtp, dtc, dtv;
    dtp.upload(tp32.data(), tp32.size(), "Aᵀ row offsets");
    dtc.upload(S.t_col.data(), (size_t)nnz, "Aᵀ column indices");
    dtv.upload(tval.data(), (size_t)nnz, "Aᵀ values");
    auto mk = [&](cusparseSpMatDescr_t *d) {
      return cusparseCreateCsr(d, cols, rows, nnz, dtp.p, dtc.p, dtv.p, I32, I32, B0, dt);
    };
    SpKernel k;
    double ms = NAN;
    char b[128];
    snprintf(b, sizeof b, "host transposition %.0f ms (not in setup_ms)", host_ms);
    std::string note = b;
    const St s = sp_setup<T>(g, k, mk, N, CUSPARSE_SPMV_CSR_ALG1, dxt.p, rows, dyt.p, cols, false,
                             &ms, &note);
    Launch L = sp_launch<T>(g, k, "csr-alg1-stored-At", ZS_OP_T, N, CUSPARSE_SPMV_CSR_ALG1, dyt.p,
                            cols, csrt_b + xy, false);
    L.setup_ms = ms;
    L.note = note;
    measure<T>(c, L, s);
  }
  {
    /* SELL-32 from the host builder (the vendor library may have no sliced ELL). */
    const std::string sell_skip = ZB_HAVE_SELL ? S.sell_skip : ZB_VENDOR_NAME " has no sliced ELL";
    if (!sell_skip.empty()) {
      for (int t = 0; t < 2; t++) {
        Launch L;
        L.lib = ZB_VENDOR, L.kernel = "sell32", L.op = t ? ZS_OP_T : ZS_OP_N, L.bytes = sell_b + xy;
        record_skip(c, L, {1, sell_skip});
      }
      return;
    }
#if ZB_HAVE_SELL
    std::vector<int32_t> off32((size_t)S.sell_slices + 1);
    for (int64_t q = 0; q <= S.sell_slices; q++) off32[(size_t)q] = (int32_t)S.sell_off[(size_t)q];
    std::vector<T> sv((size_t)S.sell_size);
    sell_values(S, val, sv.data());
    DevBuf doff, dcol, dval;
    doff.upload(off32.data(), off32.size(), "SELL slice offsets");
    dcol.upload(S.sell_col.data(), (size_t)S.sell_size, "SELL column indices");
    dval.upload(sv.data(), (size_t)S.sell_size, "SELL values");
    auto mk = [&](cusparseSpMatDescr_t *d) {
      return cusparseCreateSlicedEll(d, rows, cols, nnz, S.sell_size, kSellSlice, doff.p, dcol.p,
                                     dval.p, I32, I32, B0, dt);
    };
    char note[160];
    snprintf(note, sizeof note, "padding %.2fx nnz; host build %.0f ms (not in setup_ms)",
             nnz ? (double)S.sell_size / (double)nnz : 0.0, S.sell_ms);
    for (int t = 0; t < 2; t++) {
      SpKernel k;
      double ms = NAN;
      std::string sn = note;
      const St s =
          sp_setup<T>(g, k, mk, t ? Tr : N, CUSPARSE_SPMV_SELL_ALG1, t ? dxt.p : dx.p,
                      t ? rows : cols, t ? dyt.p : dy.p, t ? cols : rows, t == 1, &ms, &sn);
      Launch L =
          sp_launch<T>(g, k, "sell32", t ? ZS_OP_T : ZS_OP_N, t ? Tr : N, CUSPARSE_SPMV_SELL_ALG1,
                       t ? dyt.p : dy.p, t ? cols : rows, sell_b + xy, t == 1);
      L.setup_ms = ms;
      L.note = sn;
      measure<T>(c, L, s);
    }
#endif
  }
}

/* ---- one matrix ------------------------------------------------------------------------- */

struct Input {
  std::string name, spec, path; /* spec for generators, path for files */
};

template <typename T>
void bench_type(MatrixCtx c, zs_context *ctx, const zs_matrix *A, zs_type type,
                const std::vector<double> &xd_n, const std::vector<double> &xd_t) {
  const Structure &S = *c.S;
  const void *vv = nullptr;
  zs_matrix_csr(A, nullptr, nullptr, &vv);
  const T *val = (const T *)vv;
  const std::vector<T> xn(xd_n.begin(), xd_n.end()), xt(xd_t.begin(), xd_t.end());
  const double t0 = now_s();
  Reference rn, rt;
  reference_n(S, val, xn.data(), rn);
  reference_t(S, val, xt.data(), rt);
  logf("%s %s: host references (long double) %.1f s", c.name.c_str(), c.type, now_s() - t0);
  c.ref_n = &rn, c.ref_t = &rt;
  bench_zsparse<T>(c, ctx, A, type, xn, xt);
  if (c.opt->vendor) bench_cusparse<T>(c, val, xn, xt);
}

/* Matrices freed on every way out, exceptions included: a CUDA error on one matrix must not
 * leak gigabytes of host memory into the next. */
struct ZsMat {
  zs_matrix *m = nullptr;
  ~ZsMat() {
    if (m) zs_matrix_destroy(&m);
  }
};

void bench_matrix(const Input &in, const Options &opt, zs_context *ctx, Gpu &g,
                  std::vector<Result> &results, int &failures) {
  ZsMat M64;
  zs_matrix *&A64 = M64.m;
  logf("%s: %s %s", in.name.c_str(), in.path.empty() ? "generating" : "reading",
       in.path.empty() ? in.spec.c_str() : in.path.c_str());
  const zs_status st = in.path.empty()
                           ? zs_matrix_generate(&A64, in.spec.c_str(), ZS_F64, 1)
                           : zs_matrix_read(&A64, in.path.c_str(), ZS_F64, 0, nullptr, 1);
  if (st != ZS_OK) {
    fprintf(stderr, "\n*** ERROR: %s: %s: %s ***\n\n", in.name.c_str(), zs_status_name(st),
            zs_last_error());
    failures++;
    Result r;
    r.matrix = in.name, r.status = "error", r.library = "zsparse", r.kernel = "load";
    r.note = std::string(zs_status_name(st)) + ": " + zs_last_error();
    results.push_back(r);
    return;
  }
  Structure S;
  build_structure(S, A64, opt.vendor, (uint64_t)(opt.sell_limit_gb * 1e9));
  logf("%s: %" PRId64 " x %" PRId64 ", %" PRId64 " nnz, longest row %" PRId64 ", column %" PRId64
       "; Aᵀ %.0f ms, SELL-32 %s",
       in.name.c_str(), S.rows, S.cols, S.nnz, S.max_row, S.max_col, S.transpose_ms,
       !opt.vendor           ? "not needed"
       : S.sell_skip.empty() ? (std::to_string(S.sell_size) + " slots").c_str()
                             : S.sell_skip.c_str());
  std::vector<double> xd_n, xd_t;
  make_x(xd_n, S.cols, opt.seed);
  make_x(xd_t, S.rows, opt.seed + 1);
  MatrixCtx c;
  c.name = in.name, c.S = &S, c.opt = &opt, c.gpu = &g, c.results = &results;
  c.failures = &failures;
  for (zs_type type : opt.types) {
    c.type = zs_type_name(type);
    if (type == ZS_F64) {
      bench_type<double>(c, ctx, A64, type, xd_n, xd_t);
    } else {
      ZsMat M32;
      const zs_status s = zs_matrix_convert(&M32.m, A64, ZS_F32);
      if (s != ZS_OK) {
        fprintf(stderr, "\n*** ERROR: %s: f32 conversion: %s: %s ***\n\n", in.name.c_str(),
                zs_status_name(s), zs_last_error());
        failures++;
        continue;
      }
      bench_type<float>(c, ctx, M32.m, type, xd_n, xd_t);
    }
  }
}

/* ---- arguments -------------------------------------------------------------------------- */

bool parse_num(const char *s, double lo, double hi, double *out) {
  char *end = nullptr;
  errno = 0;
  const double v = strtod(s, &end);
  if (errno || end == s || *end || !(v >= lo && v <= hi)) return false;
  *out = v;
  return true;
}

int parse_args(int argc, char **argv, Options &o) {
  for (int i = 1; i < argc; i++) {
    const std::string a = argv[i];
    auto value = [&](const char *name) -> const char * {
      if (i + 1 >= argc) {
        fprintf(stderr, "zs-bench-gpu: %s needs a value\n", name);
        return nullptr;
      }
      return argv[++i];
    };
    double d;
    const char *v = nullptr;
    if (a == "--help" || a == "-h") {
      o.help = true;
    } else if (a == "--host-selftest") {
      o.selftest = true;
    } else if (a == "--host-only") {
      o.host_only = true;
    } else if (a == "--quick") {
      o.quick = true;
    } else if (a == "--no-vendor") {
      o.vendor = false;
    } else if (a == "--no-cold") {
      o.cold = false;
    } else if (a == "--format-spmv-only") {
      o.n_only = true;
    } else if (a == "--format") {
      if (!(v = value("--format"))) return 2;
      o.formats.push_back(v);
    } else if (a == "--types") {
      if (!(v = value("--types"))) return 2;
      o.types.clear();
      std::string s = v;
      size_t p = 0;
      while (p <= s.size()) {
        const size_t q = std::min(s.find(',', p), s.size());
        const std::string t = s.substr(p, q - p);
        if (t == "f64")
          o.types.push_back(ZS_F64);
        else if (t == "f32")
          o.types.push_back(ZS_F32);
        else {
          fprintf(stderr, "zs-bench-gpu: --types: unknown type '%s' (f64, f32)\n", t.c_str());
          return 2;
        }
        p = q + 1;
      }
    } else if (a == "--reps" || a == "--warmup" || a == "--flush-mib" || a == "--ceiling-gib" ||
               a == "--seed" || a == "--batch") {
      if (!(v = value(a.c_str()))) return 2;
      const double lo = a == "--ceiling-gib" || a == "--reps" || a == "--batch" ? 1 : 0;
      const double hi = a == "--seed" ? 9e15 : a == "--reps" || a == "--batch" ? 10000 : 1e5;
      if (!parse_num(v, lo, hi, &d)) {
        fprintf(stderr, "zs-bench-gpu: %s: '%s' is not a number in [%g, %g]\n", a.c_str(), v, lo,
                hi);
        return 2;
      }
      if (a == "--reps")
        o.reps = (int)d;
      else if (a == "--batch")
        o.batch = (int)d;
      else if (a == "--warmup")
        o.warmup = (int)d;
      else if (a == "--flush-mib")
        o.flush_mib = d;
      else if (a == "--ceiling-gib")
        o.ceiling_gib = d;
      else
        o.seed = (uint64_t)d;
    } else if (a == "--csv" || a == "--json" || a == "--md") {
      if (!(v = value(a.c_str()))) return 2;
      (a == "--csv" ? o.csv : a == "--json" ? o.json : o.md) = v;
    } else if (a.size() > 1 && a[0] == '-') {
      fprintf(stderr, "zs-bench-gpu: unknown option '%s' (see --help)\n", a.c_str());
      return 2;
    } else {
      o.inputs.push_back(a);
    }
  }
  if (o.reps < 0) o.reps = o.quick ? 10 : 30;
  return 0;
}

std::vector<Input> expand(const Options &o) {
  std::vector<Input> v;
  for (const std::string &a : o.inputs) {
    if (a == "suite" || a == "suite-set") {
      const bool set = a == "suite-set";
      const std::string vals = set ? ",values=set,distinct=64" : ",values=random";
      const std::string sfx = std::string(set ? "-set" : "") + (o.quick ? "-quick" : "");
      auto add = [&](const char *name, const char *quick, const char *full) {
        v.push_back({name + sfx, std::string(o.quick ? quick : full) + vals + ",seed=42", ""});
      };
      add("lap2d", "stencil2d:n=512,points=5", "stencil2d:n=4096,points=5");
      add("st27", "stencil3d:n=36,points=27", "stencil3d:n=160,points=27");
      add("er", "erdos_renyi:rows=65536,per_row=16", "erdos_renyi:rows=4194304,per_row=16");
      add("rmat", "rmat:scale=16,per_row=16", "rmat:scale=22,per_row=16");
      add("band", "banded:rows=65536,width=128,per_row=20",
          "banded:rows=8388608,width=128,per_row=20");
    } else if (a.compare(0, 4, "gen:") == 0) {
      v.push_back({a.substr(4), a.substr(4), ""});
    } else {
      const size_t sl = a.find_last_of('/');
      v.push_back({sl == std::string::npos ? a : a.substr(sl + 1), "", a});
    }
  }
  return v;
}

void write_outputs(const Options &o, const RunInfo &info, const std::vector<Result> &rs) {
  if (!o.csv.empty()) write_csv(o.csv, info, rs);
  if (!o.json.empty()) write_json(o.json, info, rs);
  if (!o.md.empty()) {
    FILE *f = fopen(o.md.c_str(), "w");
    if (!f)
      logf("error: cannot write %s", o.md.c_str());
    else {
      fputs(summary_markdown(info, rs).c_str(), f);
      fclose(f);
    }
  }
}

/* The host side of a run without any device call: how long preparation takes per matrix. */
int host_only(const Options &opt) {
  int failures = 0;
  for (const Input &in : expand(opt)) {
    ZsMat A;
    logf("%s: %s", in.name.c_str(), in.path.empty() ? in.spec.c_str() : in.path.c_str());
    const zs_status st = in.path.empty()
                             ? zs_matrix_generate(&A.m, in.spec.c_str(), ZS_F64, 1)
                             : zs_matrix_read(&A.m, in.path.c_str(), ZS_F64, 0, nullptr, 1);
    if (st != ZS_OK) {
      fprintf(stderr, "*** ERROR: %s: %s: %s ***\n", in.name.c_str(), zs_status_name(st),
              zs_last_error());
      failures++;
      continue;
    }
    logf("%s: loaded", in.name.c_str());
    Structure S;
    build_structure(S, A.m, opt.vendor, (uint64_t)(opt.sell_limit_gb * 1e9));
    logf("%s: %" PRId64 " x %" PRId64 ", %" PRId64 " nnz; Aᵀ %.0f ms; SELL-32 %.0f ms, %.2fx%s%s",
         in.name.c_str(), S.rows, S.cols, S.nnz, S.transpose_ms, S.sell_ms,
         S.nnz ? (double)S.sell_size / (double)S.nnz : 0.0, S.sell_skip.empty() ? "" : ": ",
         S.sell_skip.c_str());
    std::vector<double> xn, xt;
    make_x(xn, S.cols, opt.seed);
    make_x(xt, S.rows, opt.seed + 1);
    const void *vv = nullptr;
    zs_matrix_csr(A.m, nullptr, nullptr, &vv);
    Reference rn, rt;
    reference_n(S, (const double *)vv, xn.data(), rn);
    reference_t(S, (const double *)vv, xt.data(), rt);
    const Check c = check_result<double>(rn.ref.data(), rn, S.rp, S.rows);
    logf("%s: references done (self-check %s)", in.name.c_str(), c.ok ? "pass" : "FAIL");
    failures += !c.ok;
  }
  return failures ? 1 : 0;
}

int run(const Options &opt, int argc, char **argv) {
  const std::vector<Input> inputs = expand(opt);
  int n_dev = 0;
  const cudaError_t e = cudaGetDeviceCount(&n_dev);
  if (e != cudaSuccess || n_dev == 0) {
    fprintf(stderr,
            "zs-bench-gpu: no " ZB_RUNTIME_NAME
            " device (%s): nothing to measure, exit 77 (skip)\n",
            e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    return 77;
  }
  RunInfo info;
  info.vendor = ZB_VENDOR, info.vendor_short = ZB_VENDOR_SHORT;
  for (int i = 0; i < argc; i++) info.command += (i ? " " : "") + std::string(argv[i]);
  info.reps = opt.reps, info.warmup = opt.warmup, info.flush_mib = opt.flush_mib;
  Gpu g;
  std::vector<Result> results;
  int failures = 0;
  zs_context *ctx = nullptr;
  try {
    CUDA_CHECK(cudaSetDevice(0));
    cudaDeviceProp p;
    CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
    g.name = p.name, g.sms = p.multiProcessorCount;
    int rt = 0;
    CUDA_CHECK(cudaRuntimeGetVersion(&rt));
    char b[256];
    snprintf(b, sizeof b, "%.200s (cc %d.%d, %d SMs, %.1f GiB, L2 %.0f MiB)", p.name, p.major,
             p.minor, p.multiProcessorCount, (double)p.totalGlobalMem / (1ull << 30),
             (double)p.l2CacheSize / (1 << 20));
    info.device = b;
    info.runtime =
        ZB_RUNTIME_NAME " " + std::to_string(rt / 1000) + "." + std::to_string(rt % 1000 / 10);
    logf("device 0: %s; %s runtime", b, info.runtime.c_str());

    zs_status s = zs_context_create(&ctx);
    if (s != ZS_OK) {
      fprintf(stderr, "zs-bench-gpu: zs_context_create: %s: %s\n", zs_status_name(s),
              zs_last_error());
      return 1;
    }
    bool backend_ok = false;
    for (int i = 0; i < zs_context_backend_count(ctx); i++) {
      zs_backend_info bi;
      if (zs_context_backend_info(ctx, i, &bi) != ZS_OK) continue;
      if (strcmp(bi.name, ZB_BACKEND) == 0) {
        logf("zsparse backend " ZB_BACKEND ": %s: %s", bi.usable ? "usable" : "NOT usable",
             bi.detail ? bi.detail : "");
        backend_ok = bi.usable;
      }
    }
    if (!backend_ok) {
      fprintf(stderr,
              "zs-bench-gpu: a " ZB_RUNTIME_NAME " device is present but zsparse's " ZB_BACKEND
              " backend is not usable (see the line above, and `zsparse devices`)\n");
      zs_context_destroy(&ctx);
      return 1;
    }

    if (cusparseCreate(&g.sp) != CUSPARSE_STATUS_SUCCESS) {
      fprintf(stderr, "zs-bench-gpu: " ZB_VENDOR " handle: create failed\n");
      zs_context_destroy(&ctx);
      return 1;
    }
    int spv = 0;
    cusparseGetVersion(g.sp, &spv);
    info.vendor_version = ZB_VENDOR_NAME " " + std::to_string(ZB_VERSION_MAJOR(spv)) + "." +
                          std::to_string(ZB_VERSION_MINOR(spv)) + "." +
                          std::to_string(ZB_VERSION_PATCH(spv));
#if !ZB_HAVE_PREPROCESS
    info.vendor_version += " (built without SpMV_preprocess)";
#endif
    g.ev0.resize((size_t)opt.reps), g.ev1.resize((size_t)opt.reps);
    for (int i = 0; i < opt.reps; i++) {
      CUDA_CHECK(cudaEventCreate(&g.ev0[(size_t)i]));
      CUDA_CHECK(cudaEventCreate(&g.ev1[(size_t)i]));
    }
    g.flush.alloc((size_t)(opt.flush_mib * (1 << 20)) & ~(size_t)15, "cache flush scratch");
    CUDA_CHECK(cudaMemset(g.flush.p, 0, g.flush.bytes));
    g.ceiling = info.ceiling_gbps = measure_ceiling(g, opt.ceiling_gib);
    info.launch_floor_us = measure_launch_floor();
    logf("read ceiling: %.0f GB/s; launch floor %.2f us a call; %s", g.ceiling,
         info.launch_floor_us, info.vendor_version.c_str());
    printf("read ceiling %.0f GB/s, launch floor %.2f us a call on %s; %s\n", g.ceiling,
           info.launch_floor_us, info.device.c_str(), info.vendor_version.c_str());

    for (const Input &in : inputs) {
      try {
        bench_matrix(in, opt, ctx, g, results, failures);
      } catch (const CudaError &ce) {
        fprintf(stderr, "\n*** " ZB_RUNTIME_NAME " ERROR on %s: %s ***\n\n", in.name.c_str(),
                ce.what());
        failures++;
        Result r;
        r.matrix = in.name, r.status = "error", r.library = "bench", r.kernel = ZB_BACKEND;
        r.note = ce.what();
        results.push_back(r);
        if (ce.sticky) {
          fprintf(stderr, "zs-bench-gpu: the " ZB_RUNTIME_NAME " context is lost; stopping\n");
          write_outputs(opt, info, results);
          return 1;
        }
      }
      write_outputs(opt, info, results);
      CUDA_CHECK(cudaDeviceSynchronize());
      size_t fr = 0, tot = 0;
      CUDA_CHECK(cudaMemGetInfo(&fr, &tot));
      logf("%s done; device memory in use %.2f GB", in.name.c_str(), (double)(tot - fr) / 1e9);
    }
  } catch (const CudaError &ce) {
    fprintf(stderr, "\n*** " ZB_RUNTIME_NAME " ERROR: %s ***\n\n", ce.what());
    write_outputs(opt, info, results);
    if (ctx) zs_context_destroy(&ctx);
    return 1;
  }
  write_outputs(opt, info, results);
  printf("\n%s", summary_markdown(info, results).c_str());
  if (failures)
    printf("\n%d FAILURE%s (checks or errors): see the lines marked *** on stderr\n", failures,
           failures == 1 ? "" : "S");
  else
    printf("\nall checks passed\n");
  zs_context_destroy(&ctx);
  return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char **argv) {
  Options opt;
  const int rc = parse_args(argc, argv, opt);
  if (rc) {
    fputs(kUsage, stderr);
    return rc;
  }
  if (opt.help) {
    fputs(kUsage, stdout);
    return 0;
  }
  if (opt.selftest) return host_selftest();
  if (opt.host_only) return host_only(opt);
  if (opt.inputs.empty()) {
    fprintf(stderr, "zs-bench-gpu: no MATRIX given (try `suite`, or see --help)\n");
    return 2;
  }
  return run(opt, argc, argv);
}
