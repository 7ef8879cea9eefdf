// bicg_cusparse.cu — the end-to-end baseline: BiCG on cuSPARSE SpMV (N and T) and cuBLAS dots.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "zsparse.h"
#include "zsparse_solvers.h"

static const char usage[] =
    "usage: bicg-cusparse [--tol T] [--maxit N] [--dominant MARGIN] [--reps K] [--alg "
    "alg1|default]\n"
    "                     [--csv FILE] MATRIX...\n"
    "\n"
    "BiCG (f64, no preconditioner, x0 = 0, shadow residual r~0 = r0) written on cuSPARSE's\n"
    "generic SpMV (CSR, non-transposed and transposed) and cuBLAS dot products, with one fused\n"
    "axpby kernel: per iteration the same work as zsparse's BiCG (one SpMV, one SpMVT, three\n"
    "reductions, five axpby), so the two differ only in the products. MATRIX is read or generated\n"
    "(gen:SPEC) by zsparse and made dominant with --dominant like zs-bench-solve; b = A x* with\n"
    "the same x*. Prints CSV rows with zs-bench-solve's columns. Exit 77 without a CUDA device.\n";

#define CUDA_OK(e) check_cuda((e), #e, __LINE__)
#define SP_OK(e) check_sp((e), #e, __LINE__)
#define BL_OK(e) check_bl((e), #e, __LINE__)
static void check_cuda(cudaError_t e, const char *what, int line) {
  if (e == cudaSuccess) return;
  fprintf(stderr, "bicg-cusparse:%d: %s: %s\n", line, what, cudaGetErrorString(e));
  exit(1);
}
static void check_sp(cusparseStatus_t e, const char *what, int line) {
  if (e == CUSPARSE_STATUS_SUCCESS) return;
  fprintf(stderr, "bicg-cusparse:%d: %s: %s\n", line, what, cusparseGetErrorString(e));
  exit(1);
}
static void check_bl(cublasStatus_t e, const char *what, int line) {
  if (e == CUBLAS_STATUS_SUCCESS) return;
  fprintf(stderr, "bicg-cusparse:%d: %s: cuBLAS status %d\n", line, what, (int)e);
  exit(1);
}

static double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

__global__ void axpby_kernel(int64_t n, double a, const double *x, double b, double *y) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] = a * x[i] + b * y[i];
}

struct gpu {
  cusparseHandle_t sp;
  cublasHandle_t bl;
  int sms;
};

static void axpby(const gpu &g, int64_t n, double a, const double *x, double b, double *y) {
  const int64_t blocks = std::min<int64_t>((n + 255) / 256, (int64_t)g.sms * 16);
  axpby_kernel<<<(unsigned)std::max<int64_t>(blocks, 1), 256>>>(n, a, x, b, y);
  CUDA_OK(cudaGetLastError());
}

static double dot(const gpu &g, int64_t n, const double *x, const double *y) {
  double r = 0;
  BL_OK(cublasDdot(g.bl, (int)n, x, 1, y, 1, &r));
  return r;
}

struct dvec {
  double *p = nullptr;
  cusparseDnVecDescr_t d = nullptr;
};

struct result {
  const char *status = "ZS_OK", *reason = "converged";
  int64_t iterations = 0, spmv = 0, spmvt = 0;
  double rel = 1, time = 0;
};

// One descriptor and buffer per operation (as bench/gpu): each is preprocessed for its own op.
struct linsys {
  int64_t n, nnz;
  cusparseSpMatDescr_t A_n, A_t;
  cusparseSpMVAlg_t alg;
  void *buf_n, *buf_t;
};

static void spmv(const gpu &g, const linsys &s, cusparseOperation_t op, const dvec &x, dvec &y) {
  const double one = 1, zero = 0;
  const bool n = op == CUSPARSE_OPERATION_NON_TRANSPOSE;
  SP_OK(cusparseSpMV(g.sp, op, &one, n ? s.A_n : s.A_t, x.d, &zero, y.d, CUDA_R_64F, s.alg,
                     n ? s.buf_n : s.buf_t));
}

// BiCG exactly as solvers/solve.c's run_bicg without a preconditioner (same order of updates).
static result bicg(const gpu &g, const linsys &s, const dvec &b, dvec &x, dvec v[6], double tol,
                   int64_t maxit) {
  result res;
  const int64_t n = s.n;
  dvec &r = v[0], &rt = v[1], &p = v[2], &pt = v[3], &q = v[4], &qt = v[5];
  CUDA_OK(cudaDeviceSynchronize());
  const double t0 = now_s();
  CUDA_OK(cudaMemsetAsync(x.p, 0, n * sizeof(double)));
  CUDA_OK(cudaMemcpyAsync(r.p, b.p, n * sizeof(double), cudaMemcpyDeviceToDevice));
  CUDA_OK(cudaMemcpyAsync(rt.p, b.p, n * sizeof(double), cudaMemcpyDeviceToDevice));
  const double bnorm = std::sqrt(dot(g, n, b.p, b.p));
  double rho_prev = 1;
  for (int64_t k = 1; k <= maxit; k++) {
    const double rho = dot(g, n, r.p, rt.p);
    if (rho == 0 || !std::isfinite(rho)) {
      res.status = "ZS_ERR_BREAKDOWN", res.reason = "rho";
      break;
    }
    if (k == 1) {
      CUDA_OK(cudaMemcpyAsync(p.p, r.p, n * sizeof(double), cudaMemcpyDeviceToDevice));
      CUDA_OK(cudaMemcpyAsync(pt.p, rt.p, n * sizeof(double), cudaMemcpyDeviceToDevice));
    } else {
      const double beta = rho / rho_prev;
      axpby(g, n, 1, r.p, beta, p.p);
      axpby(g, n, 1, rt.p, beta, pt.p);
    }
    spmv(g, s, CUSPARSE_OPERATION_NON_TRANSPOSE, p, q);
    spmv(g, s, CUSPARSE_OPERATION_TRANSPOSE, pt, qt);
    res.spmv++, res.spmvt++;
    const double sigma = dot(g, n, pt.p, q.p);
    if (sigma == 0 || !std::isfinite(rho / sigma)) {
      res.status = "ZS_ERR_BREAKDOWN", res.reason = "p~'Ap";
      break;
    }
    const double alpha = rho / sigma;
    axpby(g, n, -alpha, q.p, 1, r.p);
    const double rnorm = std::sqrt(dot(g, n, r.p, r.p));
    // solve.c's residual_check (breakdown_tol 100 eps): stop rather than iterate to maxit.
    if (!std::isfinite(rnorm) || rnorm > bnorm / (100 * DBL_EPSILON)) {
      res.status = "ZS_ERR_BREAKDOWN";
      res.reason = std::isfinite(rnorm) ? "residual diverged" : "residual not finite";
      break;
    }
    axpby(g, n, alpha, p.p, 1, x.p);
    axpby(g, n, -alpha, qt.p, 1, rt.p);
    res.iterations = k, res.rel = rnorm / bnorm;
    if (res.rel <= tol) break;
    if (k == maxit) res.status = "ZS_INFO_NOT_CONVERGED", res.reason = "max_iter";
    rho_prev = rho;
  }
  CUDA_OK(cudaDeviceSynchronize());
  res.time = now_s() - t0;
  return res;
}

static dvec make_vec(int64_t n) {
  dvec v;
  CUDA_OK(cudaMalloc(&v.p, std::max<int64_t>(n, 1) * sizeof(double)));
  SP_OK(cusparseCreateDnVec(&v.d, n, v.p, CUDA_R_64F));
  return v;
}

static void free_vec(dvec &v) {
  cusparseDestroyDnVec(v.d);
  cudaFree(v.p);
}

static int run_matrix(const gpu &g, const char *spec, double margin, double tol, int64_t maxit,
                      int reps, bool alg1, FILE *csv) {
  zs_matrix *A = nullptr, *D = nullptr;
  zs_status st = strncmp(spec, "gen:", 4) == 0 ? zs_matrix_generate(&A, spec + 4, ZS_F64, 0)
                                               : zs_matrix_read(&A, spec, ZS_F64, 0, nullptr, 0);
  if (st == ZS_OK && margin > 0 && (st = zs_matrix_make_dominant(&D, A, margin)) == ZS_OK) {
    zs_matrix_destroy(&A);
    A = D;
  }
  if (st != ZS_OK) {
    fprintf(stderr, "bicg-cusparse: %s: %s\n", spec, zs_last_error());
    return 1;
  }
  const double t_setup = now_s();
  const int64_t n = zs_matrix_rows(A), nnz = zs_matrix_nnz(A);
  const int64_t *rp;
  const int32_t *ci;
  const void *vals;
  zs_matrix_csr(A, &rp, &ci, &vals);
  // 32-bit offsets when they fit (cuSPARSE's common case); 64-bit offsets and columns otherwise.
  const bool idx32 = nnz < INT32_MAX;
  void *d_rp, *d_ci, *d_v;
  uint64_t idx_bytes;
  if (idx32) {
    std::vector<int32_t> rp32(rp, rp + n + 1);
    CUDA_OK(cudaMalloc(&d_rp, (n + 1) * 4));
    CUDA_OK(cudaMalloc(&d_ci, std::max<int64_t>(nnz, 1) * 4));
    CUDA_OK(cudaMemcpy(d_rp, rp32.data(), (n + 1) * 4, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_ci, ci, nnz * 4, cudaMemcpyHostToDevice));
    idx_bytes = (uint64_t)(n + 1) * 4 + (uint64_t)nnz * 4;
  } else {
    std::vector<int64_t> ci64(ci, ci + nnz);
    CUDA_OK(cudaMalloc(&d_rp, (n + 1) * 8));
    CUDA_OK(cudaMalloc(&d_ci, nnz * 8));
    CUDA_OK(cudaMemcpy(d_rp, rp, (n + 1) * 8, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_ci, ci64.data(), nnz * 8, cudaMemcpyHostToDevice));
    idx_bytes = (uint64_t)(n + 1) * 8 + (uint64_t)nnz * 8;
  }
  CUDA_OK(cudaMalloc(&d_v, std::max<int64_t>(nnz, 1) * 8));
  CUDA_OK(cudaMemcpy(d_v, vals, nnz * 8, cudaMemcpyHostToDevice));
  linsys s{};
  s.n = n, s.nnz = nnz, s.alg = alg1 ? CUSPARSE_SPMV_CSR_ALG1 : CUSPARSE_SPMV_ALG_DEFAULT;
  const cusparseIndexType_t it = idx32 ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
  dvec b = make_vec(n), x = make_vec(n), xs = make_vec(n), v[6];
  for (auto &w : v) w = make_vec(n);
  const double one = 1, zero = 0;
  for (const bool tr : {false, true}) {
    const cusparseOperation_t op =
        tr ? CUSPARSE_OPERATION_TRANSPOSE : CUSPARSE_OPERATION_NON_TRANSPOSE;
    cusparseSpMatDescr_t &A_op = tr ? s.A_t : s.A_n;
    void *&buf = tr ? s.buf_t : s.buf_n;
    SP_OK(cusparseCreateCsr(&A_op, n, n, nnz, d_rp, d_ci, d_v, it, it, CUSPARSE_INDEX_BASE_ZERO,
                            CUDA_R_64F));
    size_t size = 0;
    SP_OK(cusparseSpMV_bufferSize(g.sp, op, &one, A_op, x.d, &zero, b.d, CUDA_R_64F, s.alg, &size));
    CUDA_OK(cudaMalloc(&buf, std::max<size_t>(size, 1)));
#if CUSPARSE_VERSION >= 12400
    // The baseline at its best, as bench/gpu measures it: preprocessed (setup time); if this
    // cuSPARSE refuses for this op, the products run without it.
    const cusparseStatus_t ps =
        cusparseSpMV_preprocess(g.sp, op, &one, A_op, x.d, &zero, b.d, CUDA_R_64F, s.alg, buf);
    if (ps != CUSPARSE_STATUS_SUCCESS)
      fprintf(stderr, "bicg-cusparse: %s: cusparseSpMV_preprocess (%s): %s; run without it\n", spec,
              tr ? "T" : "N", cusparseGetErrorString(ps));
#endif
  }
  // x* exactly as zs-bench-solve draws it (splitmix64 from 7, uniform in [-1, 1)).
  std::vector<double> h(n);
  uint64_t seed = 7;
  for (int64_t i = 0; i < n; i++) {
    uint64_t z = (seed += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    h[i] = (double)((z ^ (z >> 31)) >> 11) * 0x1p-53 * 2.0 - 1.0;
  }
  CUDA_OK(cudaMemcpy(xs.p, h.data(), n * 8, cudaMemcpyHostToDevice));
  spmv(g, s, CUSPARSE_OPERATION_NON_TRANSPOSE, xs, b);
  CUDA_OK(cudaDeviceSynchronize());
  const double setup = now_s() - t_setup;

  std::vector<double> times;
  result res;
  for (int r = 0; r <= reps; r++) {
    res = bicg(g, s, b, x, v, tol, maxit);
    times.push_back(res.time);
  }
  const double cold = times[0];
  std::sort(times.begin() + 1, times.end());
  const double *w = times.data() + 1;  // the warm solves, sorted; their median (cold without any)
  const double warm = !reps ? cold : reps % 2 ? w[reps / 2] : 0.5 * (w[reps / 2 - 1] + w[reps / 2]);
  // True residual and error against x*.
  spmv(g, s, CUSPARSE_OPERATION_NON_TRANSPOSE, x, v[0]);
  axpby(g, n, 1, b.p, -1, v[0].p);
  const double true_rel = std::sqrt(dot(g, n, v[0].p, v[0].p) / dot(g, n, b.p, b.p));
  const double xsn = std::sqrt(dot(g, n, xs.p, xs.p));
  axpby(g, n, 1, x.p, -1, xs.p);
  const double err = std::sqrt(dot(g, n, xs.p, xs.p)) / xsn;
  const char *base = strrchr(spec, '/');
  const uint64_t bytes = idx_bytes + (uint64_t)nnz * 8;
  char row[1024];
  snprintf(row, sizeof row,
           "\"%s\",%lld,%lld,f64,cusparse,%s,cuda,bicg,none,%.3g,%s,%s,%lld,%.4e,%.4e,%.4e,%llu,"
           "%.6f,%.6f,%.6f,%.6e,%lld,%lld\n",
           base ? base + 1 : spec, (long long)n, (long long)nnz, alg1 ? "csr-alg1" : "csr-default",
           tol, res.status, res.reason, (long long)res.iterations, res.rel, true_rel, err,
           (unsigned long long)bytes, setup, cold, warm,
           res.iterations ? warm / (double)res.iterations : 0.0, (long long)res.spmv,
           (long long)res.spmvt);
  fputs(row, stdout);
  if (csv) fputs(row, csv), fflush(csv);

  free_vec(b), free_vec(x), free_vec(xs);
  for (auto &w : v) free_vec(w);
  cusparseDestroySpMat(s.A_n), cusparseDestroySpMat(s.A_t);
  cudaFree(s.buf_n), cudaFree(s.buf_t), cudaFree(d_rp), cudaFree(d_ci), cudaFree(d_v);
  zs_matrix_destroy(&A);
  return 0;
}

int main(int argc, char **argv) {
  double tol = 1e-8, margin = 0;
  int64_t maxit = 10000;
  int reps = 5;
  bool alg1 = true;
  const char *csv_path = nullptr;
  std::vector<const char *> mats;
  for (int i = 1; i < argc; i++) {
    const std::string a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--help" || a == "-h") {
      fputs(usage, stdout);
      return 0;
    }
    if (a[0] != '-') {
      mats.push_back(argv[i]);
      continue;
    }
    if (!v) {
      fprintf(stderr, "bicg-cusparse: %s needs a value\n%s", a.c_str(), usage);
      return 2;
    }
    if (a == "--tol")
      tol = atof(v);
    else if (a == "--maxit")
      maxit = atoll(v);
    else if (a == "--dominant")
      margin = atof(v);
    else if (a == "--reps")
      reps = atoi(v);
    else if (a == "--alg")
      alg1 = strcmp(v, "default") != 0;
    else if (a == "--csv")
      csv_path = v;
    else {
      fprintf(stderr, "bicg-cusparse: unknown option %s\n%s", a.c_str(), usage);
      return 2;
    }
    i++;
  }
  if (mats.empty() || !(tol > 0) || maxit < 0 || reps < 0) {
    fputs(usage, stderr);
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("SKIP no CUDA device\n");
    return 77;
  }
  gpu g;
  SP_OK(cusparseCreate(&g.sp));
  BL_OK(cublasCreate(&g.bl));
  CUDA_OK(cudaDeviceGetAttribute(&g.sms, cudaDevAttrMultiProcessorCount, 0));
  FILE *csv = csv_path ? fopen(csv_path, "w") : nullptr;
  if (csv_path && !csv) {
    fprintf(stderr, "bicg-cusparse: cannot write %s\n", csv_path);
    return 1;
  }
  const char *header =
      "matrix,rows,nnz,type,library,format,backend,method,precond,tol,status,stop_reason,"
      "iterations,rel_residual,true_rel_residual,error_vs_known,encoded_bytes,setup_s,"
      "solve_cold_s,solve_warm_s,time_per_iter_s,spmv,spmvt\n";
  fputs(header, stdout);
  if (csv) fputs(header, csv);
  int failures = 0;
  for (const char *m : mats) failures += run_matrix(g, m, margin, tol, maxit, reps, alg1, csv);
  if (csv) fclose(csv);
  cublasDestroy(g.bl);
  cusparseDestroy(g.sp);
  return failures ? 1 : 0;
}
