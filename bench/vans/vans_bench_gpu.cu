/* vans_bench_gpu.cu — MAT-VANS layers on the GPU against cuBLAS int8 GEMV (cublasGemmEx, int32
 * accumulation) and cublasSgemv, per layer, with and without the weights' upload. */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zsparse_vans.h"

/* A failed call ends the bench, naming the call, where and why. */
static void die_unless(bool ok, const char *file, int line, const char *call, const char *why) {
  if (ok) return;
  fprintf(stderr, "%s:%d: %s: %s\n", file, line, call, why);
  exit(1);
}
static const char *cublas_why(cublasStatus_t s) {
  static char buf[32];
  snprintf(buf, sizeof buf, "cuBLAS status %d", (int)s);
  return buf;
}
#define CK(call)                                                                      \
  do {                                                                                \
    const cudaError_t e_ = (call);                                                    \
    die_unless(e_ == cudaSuccess, __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
  } while (0)
#define CB(call)                                                                        \
  do {                                                                                  \
    const cublasStatus_t s_ = (call);                                                   \
    die_unless(s_ == CUBLAS_STATUS_SUCCESS, __FILE__, __LINE__, #call, cublas_why(s_)); \
  } while (0)
#define CZ(call)                                                         \
  do {                                                                   \
    const zs_status z_ = (call);                                         \
    die_unless(z_ == ZS_OK, __FILE__, __LINE__, #call, zs_last_error()); \
  } while (0)

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The baseline's requantisation: the same integer rule as the library's chains, so the int8
 * chain's output must equal ours bit for bit. */
__global__ void absmax_i32(int n, const int *z, unsigned long long *m) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicMax(m, (unsigned long long)(z[i] < 0 ? -(long long)z[i] : (long long)z[i]));
}
__global__ void requant_i32(int n, const int *z, const unsigned long long *m, signed char *y) {
  const long long a_max = (long long)*m;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const long long v = z[i], a = v < 0 ? -v : v;
    const long long q = a_max ? (2 * 127 * a + a_max) / (2 * a_max) : 0;
    y[i] = (signed char)(v < 0 ? -q : q);
  }
}

int main(int argc, char **argv) {
  int sizes[16], n_sizes = 0, K = 4, reps = 20;
  double entropy = 0;
  const char *variants = NULL; /* lanes kernel variants to compare (ZS_EXPERIMENTAL_VANS_VARIANT) */
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--layers") && i + 1 < argc)
      K = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--entropy") && i + 1 < argc)
      entropy = atof(argv[++i]);
    else if (!strcmp(argv[i], "--variants") && i + 1 < argc)
      variants = argv[++i];
    else if (!strcmp(argv[i], "--help")) {
      printf(
          "usage: vans-bench-gpu [--layers K] [--reps R] [--entropy BITS] [--variants V,V..]"
          " [N ...]\n"
          "Default N: 4096 8192 16384 32768. Times per layer in ms (mean over R chains after\n"
          "a warm-up); '+upload' adds the host-to-device copy of the weights from pageable\n"
          "memory, as a program loading a model would. Layouts: pairs (ZS_VANS_PAIRS; '-' when\n"
          "a layer has more than 4096 distinct pairs), lanes (interleaved) and rows (the\n"
          "report's); bits/w (lanes) and pairs/w count whole records with tables and cursors.\n"
          "--variants times kernel variants (ZS_EXPERIMENTAL_VANS_VARIANT, backends/cuda_hip/\n"
          "vans_gpu.cuh: below 10 the lanes kernel's, from 10 up the pair kernel's) and checks\n"
          "each against the int8 chain.\n");
      return 0;
    } else if (n_sizes < 16)
      sizes[n_sizes++] = atoi(argv[i]);
  }
  if (!n_sizes) sizes[0] = 4096, sizes[1] = 8192, sizes[2] = 16384, sizes[3] = 32768, n_sizes = 4;
  zs_context *ctx;
  CZ(zs_context_create(&ctx));
  cublasHandle_t h;
  CB(cublasCreate(&h));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  printf("%6s %3s %7s %7s %7s | %9s %9s | %9s %9s | %9s %9s | %9s %9s | %9s %9s | %s\n", "N", "K",
         "H bits", "bits/w", "pairs/w", "pairs", "+upload", "lanes", "+upload", "rows", "+upload",
         "int8 gemv", "+upload", "Sgemv", "+upload", "int8 chain == ours (pairs)");
  for (int si = 0; si < n_sizes; si++) {
    const int N = sizes[si];
    char spec[128];
    if (entropy > 0)
      snprintf(spec, sizeof spec, "n=%d,k=%d,seed=1,entropy=%g", N, K, entropy);
    else
      snprintf(spec, sizeof spec, "n=%d,k=%d,seed=1", N, K);
    /* the same weights in three layouts: interleaved, the report's rows, pairs (refused when a
     * layer has more than 4096 distinct pairs: then "-") */
    zs_vans *V[3];
    CZ(zs_vans_generate(&V[0], spec, ZS_VANS_INTERLEAVED));
    CZ(zs_vans_generate(&V[1], spec, 0));
    const int n_layouts = zs_vans_generate(&V[2], spec, ZS_VANS_PAIRS) == ZS_OK ? 3 : 2;
    double hbits = 0, bits[3] = {0, 0, 0};
    for (int v = 0; v < n_layouts; v += 2)
      for (int k = 0; k < K; k++) {
        zs_vans_layer_info in;
        CZ(zs_vans_layer_info_get(V[v], k, &in));
        if (v == 0) hbits += in.entropy_bits / K;
        bits[v] += 8.0 * (double)in.bytes / ((double)N * N) / K;
      }
    /* ours: create = upload of the coded layers; time = the chain without transfers */
    double ours[3] = {0, 0, 0}, ours_up[3] = {0, 0, 0};
    signed char *y_ours = (signed char *)malloc(N), *y_int8 = (signed char *)malloc(N);
    signed char *y_pairs = (signed char *)malloc(N);
    for (int v = 0; v < n_layouts; v++) {
      zs_vans_chain *c;
      const double t0 = now();
      CZ(zs_vans_chain_create(&c, ctx, V[v], "cuda"));
      CK(cudaDeviceSynchronize());
      const double up = (now() - t0) * 1e3 / K;
      double ms;
      CZ(zs_vans_chain_time(c, reps, &ms));
      ours[v] = ms / K;
      ours_up[v] = ours[v] + up;
      if (v != 1) CZ(zs_vans_chain_run(c, NULL, (int8_t *)(v == 0 ? y_ours : y_pairs)));
      zs_vans_chain_destroy(&c);
    }
    /* baselines: the decoded int8 weights, row-major N x N = column-major W^T */
    const size_t nn = (size_t)N * N;
    signed char *w8 = (signed char *)malloc(nn * K);
    float *w32 = (float *)malloc(nn * sizeof(float));
    for (int k = 0; k < K; k++) CZ(zs_vans_layer_decode(V[0], k, (int8_t *)w8 + nn * k));
    signed char *d_w8, *d_x;
    int *d_z;
    float *d_w32, *d_xf, *d_yf;
    unsigned long long *d_m;
    CK(cudaMalloc(&d_w8, nn * K));
    CK(cudaMalloc(&d_x, 2 * (size_t)N));
    CK(cudaMalloc(&d_z, (size_t)N * 4));
    CK(cudaMalloc(&d_m, 8 * (size_t)K));
    CK(cudaMalloc(&d_w32, nn * sizeof(float)));
    CK(cudaMalloc(&d_xf, (size_t)N * 4));
    CK(cudaMalloc(&d_yf, (size_t)N * 4));
    float ms;
    CK(cudaEventRecord(e0));
    CK(cudaMemcpy(d_w8, w8, nn * K, cudaMemcpyHostToDevice));
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    const double up8 = ms / K;
    const int one = 1, zero = 0;
    double int8_ms = 0;
    for (int r = -1; r < reps; r++) {
      CK(cudaMemcpy(d_x, zs_vans_v0(V[0]), N, cudaMemcpyHostToDevice));
      CK(cudaMemset(d_m, 0, 8 * (size_t)K));
      CK(cudaEventRecord(e0));
      for (int k = 0; k < K; k++) {
        signed char *xin = d_x + (size_t)N * (k % 2), *xout = d_x + (size_t)N * ((k + 1) % 2);
        CB(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, N, 1, N, &one, d_w8 + nn * k, CUDA_R_8I, N,
                        xin, CUDA_R_8I, N, &zero, d_z, CUDA_R_32I, N, CUBLAS_COMPUTE_32I,
                        CUBLAS_GEMM_DEFAULT));
        absmax_i32<<<264, 256>>>(N, d_z, d_m + k);
        requant_i32<<<(N + 255) / 256, 256>>>(N, d_z, d_m + k, xout);
      }
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      CK(cudaEventElapsedTime(&ms, e0, e1));
      if (r >= 0) int8_ms += ms / K / reps;
    }
    CK(cudaMemcpy(y_int8, d_x + (size_t)N * (K % 2), N, cudaMemcpyDeviceToHost));
    const int same = memcmp(y_int8, y_ours, N) == 0;
    const int same_pairs = n_layouts == 3 && memcmp(y_int8, y_pairs, N) == 0;
    /* Sgemv on the same weights as f32: upload measured on one layer */
    for (size_t i = 0; i < nn; i++) w32[i] = (float)w8[i];
    CK(cudaEventRecord(e0));
    CK(cudaMemcpy(d_w32, w32, nn * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    const double up32 = ms;
    CK(cudaMemset(d_xf, 0, (size_t)N * 4));
    const float fone = 1.0f, fzero = 0.0f;
    CB(cublasSgemv(h, CUBLAS_OP_T, N, N, &fone, d_w32, N, d_xf, 1, &fzero, d_yf, 1));
    CK(cudaEventRecord(e0));
    for (int r = 0; r < reps; r++)
      CB(cublasSgemv(h, CUBLAS_OP_T, N, N, &fone, d_w32, N, r % 2 ? d_yf : d_xf, 1, &fzero,
                     r % 2 ? d_xf : d_yf, 1));
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    const double sg = ms / reps;
    char pw[16] = "-", pt[16] = "-", pu[16] = "-";
    if (n_layouts == 3) {
      snprintf(pw, sizeof pw, "%.3f", bits[2]);
      snprintf(pt, sizeof pt, "%.4f", ours[2]);
      snprintf(pu, sizeof pu, "%.4f", ours_up[2]);
    }
    printf(
        "%6d %3d %7.3f %7.3f %7s | %9s %9s | %9.4f %9.4f | %9.4f %9.4f | %9.4f %9.4f | %9.4f "
        "%9.4f | %s (%s)\n",
        N, K, hbits, bits[0], pw, pt, pu, ours[0], ours_up[0], ours[1], ours_up[1], int8_ms,
        int8_ms + up8, sg, sg + up32, same ? "yes" : "NO",
        n_layouts < 3 ? "-"
        : same_pairs  ? "yes"
                      : "NO");
    for (const char *v = variants; v && *v;) {
      char name[16];
      size_t len = strcspn(v, ",");
      if (len >= sizeof name) len = sizeof name - 1;
      memcpy(name, v, len);
      name[len] = 0;
      v += strcspn(v, ",");
      if (*v) v++;
      /* variants from 10 up are the pair kernel's, below the lanes kernel's */
      const int pair_variant = atoi(name) >= 10;
      if (pair_variant && n_layouts < 3) continue;
      setenv("ZS_EXPERIMENTAL_VANS_VARIANT", name, 1);
      zs_vans_chain *c;
      CZ(zs_vans_chain_create(&c, ctx, V[pair_variant ? 2 : 0], "cuda"));
      double ms;
      CZ(zs_vans_chain_time(c, reps, &ms));
      memset(y_ours, 0x55, N);
      CZ(zs_vans_chain_run(c, NULL, (int8_t *)y_ours));
      printf("       variant %-3s %s %9.4f ms/layer, == int8 chain: %s\n", name,
             pair_variant ? "pairs" : "lanes", ms / K,
             memcmp(y_int8, y_ours, N) == 0 ? "yes" : "NO");
      zs_vans_chain_destroy(&c);
      unsetenv("ZS_EXPERIMENTAL_VANS_VARIANT");
    }
    fflush(stdout);
    cudaFree(d_w8), cudaFree(d_x), cudaFree(d_z), cudaFree(d_m), cudaFree(d_w32);
    cudaFree(d_xf), cudaFree(d_yf);
    free(w8), free(w32), free(y_ours), free(y_int8), free(y_pairs);
    for (int v = 0; v < n_layouts; v++) zs_vans_destroy(&V[v]);
  }
  cublasDestroy(h);
  zs_context_destroy(&ctx);
  return 0;
}
