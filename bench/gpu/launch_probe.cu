/* launch_probe.cu — zs-launch-probe: what a host pays to issue one kernel, by each way of
 * launching it, beside cuSPARSE's SpMV on a 32-row matrix, in one process. A product of a few
 * µs is issued no faster than its launch: where cuSPARSE's whole SpMV issues faster than our
 * empty kernel, the runtime's launch path is the difference (docs/auto.md, "Where it is wrong").
 *
 * Each line is the median over 7 rounds of N back-to-back calls on the legacy default stream,
 * synchronised once a round: wall µs a call. Exit status 0, 1 a CUDA or cuSPARSE call failed,
 * 2 usage, 77 no GPU. */
#include <cuda.h>
#include <cudaTypedefs.h> /* PFN_cuLaunchKernel_v4000 */
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

const char kUsage[] =
    "usage: zs-launch-probe [--calls N]\n"
    "Prints the host's time to issue one kernel, µs a call, by: the runtime's <<<>>>, its\n"
    "cudaLaunchKernel, the driver's cuLaunchKernel on a handle looked up once (an empty kernel,\n"
    "and one of ten arguments as our SpMV kernels take), and cuSPARSE's SELL-32 SpMV on a\n"
    "32-row diagonal. N calls a round (default 4000), median of 7 rounds.\n";

__global__ void empty_kernel() {}

/* Ten arguments of an SpMV kernel's kinds; writes only where no thread is (1024 threads). */
__global__ void ten_kernel(const int *a, const int *b, const double *c, const double *x, double *y,
                           long n, double alpha, double beta, int *d, int e) {
  if (threadIdx.x == 1024) y[0] = alpha + beta + n + e + (a == b) + (c == x) + (d == nullptr);
}

int g_calls = 4000;

/* Median over 7 rounds of the wall time per call of `issue`, µs. */
template <typename F>
double per_call(F issue) {
  std::vector<double> t;
  for (int r = 0; r < 7; r++) {
    cudaDeviceSynchronize();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < g_calls; i++) issue();
    cudaDeviceSynchronize();
    const std::chrono::duration<double, std::micro> d = std::chrono::steady_clock::now() - t0;
    t.push_back(d.count() / g_calls);
  }
  std::sort(t.begin(), t.end());
  return t[3];
}

bool ok(cudaError_t e, const char *what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "zs-launch-probe: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

bool ok_sp(cusparseStatus_t s, const char *what) {
  if (s == CUSPARSE_STATUS_SUCCESS) return true;
  std::fprintf(stderr, "zs-launch-probe: %s: %s\n", what, cusparseGetErrorString(s));
  return false;
}

}  // namespace

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--calls") && i + 1 < argc) {
      g_calls = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--help")) {
      std::fputs(kUsage, stdout);
      return 0;
    } else {
      std::fputs(kUsage, stderr);
      return 2;
    }
  }
  if (g_calls < 1) {
    std::fputs("zs-launch-probe: --calls must be at least 1\n", stderr);
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fputs("zs-launch-probe: no CUDA device\n", stderr);
    return 77;
  }
  /* the driver's launch through the runtime's entry point: no link to libcuda */
  PFN_cuLaunchKernel_v4000 launch = nullptr; /* the legacy stream's version */
  cudaDriverEntryPointQueryResult found;
  cudaFunction_t f_empty, f_ten;
  double *y = nullptr;
  if (!ok(cudaGetDriverEntryPointByVersion("cuLaunchKernel", (void **)&launch, 12000,
                                           cudaEnableDefault, &found),
          "cuLaunchKernel's entry point") ||
      found != cudaDriverEntryPointSuccess ||
      !ok(cudaGetFuncBySymbol(&f_empty, (const void *)empty_kernel), "empty kernel's handle") ||
      !ok(cudaGetFuncBySymbol(&f_ten, (const void *)ten_kernel), "ten-argument kernel's handle") ||
      !ok(cudaMalloc(&y, 1024 * sizeof(double)), "allocation"))
    return 1;
  const int *a = nullptr;
  const double *c = nullptr;
  long n = 5;
  double alpha = 1, beta = 0;
  int *d = nullptr, e = 3;
  void *args[] = {&a, &a, &c, &c, &y, &n, &alpha, &beta, &d, &e};

  /* cuSPARSE's SELL-32 SpMV on a 32 x 32 diagonal of ones */
  const int rows = 32;
  std::vector<int> offsets{0, rows}, cols(rows);
  std::vector<double> ones(rows, 1.0);
  for (int i = 0; i < rows; i++) cols[i] = i;
  int *d_off = nullptr, *d_col = nullptr;
  double *d_val = nullptr, *d_x = nullptr, *d_y = nullptr;
  void *work = nullptr;
  size_t work_bytes = 0;
  cusparseHandle_t h = nullptr;
  cusparseSpMatDescr_t A = nullptr;
  cusparseDnVecDescr_t X = nullptr, Y = nullptr;
  const double one = 1, zero = 0;
  const auto spmv = [&] {
    return cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_64F,
                        CUSPARSE_SPMV_SELL_ALG1, work);
  };
  if (!ok(cudaMalloc(&d_off, 2 * sizeof(int)), "allocation") ||
      !ok(cudaMalloc(&d_col, rows * sizeof(int)), "allocation") ||
      !ok(cudaMalloc(&d_val, rows * sizeof(double)), "allocation") ||
      !ok(cudaMalloc(&d_x, rows * sizeof(double)), "allocation") ||
      !ok(cudaMalloc(&d_y, rows * sizeof(double)), "allocation") ||
      !ok(cudaMemcpy(d_off, offsets.data(), 2 * sizeof(int), cudaMemcpyHostToDevice), "upload") ||
      !ok(cudaMemcpy(d_col, cols.data(), rows * sizeof(int), cudaMemcpyHostToDevice), "upload") ||
      !ok(cudaMemcpy(d_val, ones.data(), rows * sizeof(double), cudaMemcpyHostToDevice),
          "upload") ||
      !ok(cudaMemcpy(d_x, ones.data(), rows * sizeof(double), cudaMemcpyHostToDevice), "upload") ||
      !ok_sp(cusparseCreate(&h), "cusparseCreate") ||
      !ok_sp(cusparseCreateSlicedEll(&A, rows, rows, rows, rows, 32, d_off, d_col, d_val,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
             "SELL descriptor") ||
      !ok_sp(cusparseCreateDnVec(&X, rows, d_x, CUDA_R_64F), "x descriptor") ||
      !ok_sp(cusparseCreateDnVec(&Y, rows, d_y, CUDA_R_64F), "y descriptor") ||
      !ok_sp(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y,
                                     CUDA_R_64F, CUSPARSE_SPMV_SELL_ALG1, &work_bytes),
             "SpMV buffer size") ||
      !ok(cudaMalloc(&work, work_bytes + 16), "allocation") || !ok_sp(spmv(), "SpMV") ||
      !ok(cudaDeviceSynchronize(), "first SpMV"))
    return 1;

  std::printf("µs a call, median of 7 rounds of %d calls; two passes\n", g_calls);
  for (int pass = 1; pass <= 2; pass++) {
    std::printf("pass %d\n", pass);
    std::printf("  %-40s %7.3f\n", "empty kernel, <<<>>>",
                per_call([] { empty_kernel<<<1, 32>>>(); }));
    std::printf("  %-40s %7.3f\n", "empty kernel, cudaLaunchKernel", per_call([] {
                  cudaLaunchKernel((const void *)empty_kernel, 1, 32, nullptr, 0, 0);
                }));
    std::printf("  %-40s %7.3f\n", "empty kernel, cuLaunchKernel", per_call([&] {
                  launch((CUfunction)f_empty, 1, 1, 1, 32, 1, 1, 0, 0, nullptr, nullptr);
                }));
    std::printf("  %-40s %7.3f\n", "ten arguments, <<<>>>",
                per_call([&] { ten_kernel<<<16, 256>>>(a, a, c, c, y, n, alpha, beta, d, e); }));
    std::printf("  %-40s %7.3f\n", "ten arguments, <<<>>> + cudaGetLastError", per_call([&] {
                  ten_kernel<<<16, 256>>>(a, a, c, c, y, n, alpha, beta, d, e);
                  (void)cudaGetLastError();
                }));
    std::printf("  %-40s %7.3f\n", "ten arguments, cuLaunchKernel", per_call([&] {
                  launch((CUfunction)f_ten, 16, 1, 1, 256, 1, 1, 0, 0, args, nullptr);
                }));
    std::printf("  %-40s %7.3f\n", "cuSPARSE SELL-32 SpMV, 32 rows", per_call([&] { spmv(); }));
  }
  const bool good = ok(cudaDeviceSynchronize(), "the probe's calls");
  cusparseDestroySpMat(A), cusparseDestroyDnVec(X), cusparseDestroyDnVec(Y), cusparseDestroy(h);
  cudaFree(work), cudaFree(d_off), cudaFree(d_col), cudaFree(d_val), cudaFree(d_x), cudaFree(d_y);
  cudaFree(y);
  return good ? 0 : 1;
}
