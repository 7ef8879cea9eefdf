/* lookup_floor.cu — how fast can a GPU do the shared-memory lookups that CSR-dtANS's decode needs
 * per nonzero, and nothing else? The "lookup floor" of docs/performance.md: a standalone bench
 * program, not linked with the library. Each thread draws uniform slots of a 4096-entry table (as
 * an ANS state yields them), looks them up as the dtANS kernel does (8-byte slot {meta, delta} at
 * shared offset 0, then the value by the id in meta), optionally gathers x, and sums what it read
 * so nothing is dropped.
 *
 *   zs-lookup-floor [--csv] [NONZEROS]
 *
 * NONZEROS defaults to 2^27. Prints, per variant and for 3 and 6 blocks of 256 threads per SM,
 * the time, µs per 10^8 nonzeros and SM-cycles per warp-nonzero at the clock attribute; --csv
 * prints the same as the CSV of bench/data/h100-lookup-floor.csv. Exit 77 without a CUDA device.
 *
 * Variants (per nonzero):
 *   linear   one 8-byte slot load, lanes on consecutive slots: no bank conflict (2 wavefronts a
 *            warp); calibrates the pipe's rate
 *   slot     one 8-byte slot load at a uniform random slot
 *   joint    slot, then its value (8 bytes, 64 values) by the slot's id: joint values' lookups
 *   inline   one 16-byte slot {meta, delta, value} at a uniform random slot: joint values with the
 *            value kept in the slot (64 KiB of table) instead of looked up by id
 *   joint+x  joint, plus an x gather of 8 bytes where the warp's lanes read consecutive rows at
 *            the same offset (a stencil's or banded matrix's nonzeros decoded in lockstep)
 *   coded    coded values: two random slots (8-byte delta slot, 4-byte value slot), then the value
 *   coded+x  coded, plus the lockstep x gather
 *   coded+rx coded values with x gathered at pseudo-random places, a hash of the slot's delta and
 *            the lane's row (Erdős–Rényi's columns; x of 2^22 doubles)
 *   coded+rx2 the same over 2^21 doubles (one of two column slabs)
 *   coded+rmat coded values, x gathered at R-MAT's column marginal in natural column order (a
 *            column's 22 bits each 1 with probability 1/4: a=0.57, b=c=0.19 gives 0.24)
 * Each thread takes 8 nonzeros at a time (a segment): their lookups, then their 8 gathers, then
 * the sums, so loads are in flight together as in the kernel. */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static void check(cudaError_t e, const char *what, int line) {
  if (e == cudaSuccess) return;
  fprintf(stderr, "zs-lookup-floor: lookup_floor.cu:%d: %s: %s\n", line, what,
          cudaGetErrorString(e));
  exit(1);
}
#define CHECK(call) check((call), #call, __LINE__)

enum {
  LINEAR,
  SLOT,
  JOINT,
  INLINE,
  JOINT_X,
  CODED,
  CODED_X,
  CODED_RX,
  CODED_RX2,
  CODED_RMAT,
  VARIANTS
};
static const char *variant_name[VARIANTS] = {"linear",    "slot",      "joint",   "inline",
                                             "joint+x",   "coded",     "coded+x", "coded+rx",
                                             "coded+rx2", "coded+rmat"};

#define K 4096
#define VALUES 64
#define THREADS 256
#define X_LEN (1 << 22)

__device__ __forceinline__ uint32_t xorshift(uint32_t &s) {
  s ^= s << 13, s ^= s >> 17, s ^= s << 5;
  return s;
}

template <int V>
__global__ void __launch_bounds__(THREADS)
    probe(const uint2 *gdtab, const uint32_t *gvtab, const double *gvals, const double *x,
          int64_t per, double *out) {
  extern __shared__ uint64_t smem64[];
  uint2 *dtab = (uint2 *)smem64; /* offset 0, as in the kernel */
  uint4 *wide = (uint4 *)smem64; /* INLINE: 16-byte slots {meta, delta, value} */
  uint32_t *vtab = (uint32_t *)(V == INLINE ? (void *)(wide + K) : (void *)(dtab + K));
  double *vals = (double *)(vtab + (V >= CODED ? K : 0));
  for (int i = threadIdx.x; i < K; i += blockDim.x) {
    if (V == INLINE)
      wide[i] = make_uint4(gdtab[i].x, gdtab[i].y, i, i ^ 0x3ff00000u);
    else
      dtab[i] = gdtab[i];
    if (V >= CODED) vtab[i] = gvtab[i];
  }
  for (int i = threadIdx.x; i < VALUES; i += blockDim.x) vals[i] = gvals[i];
  __syncthreads();
  const int lane = threadIdx.x % 32;
  const int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  uint32_t s = 0x9e3779b9u * (uint32_t)(blockIdx.x * blockDim.x + threadIdx.x + 1);
  /* lockstep rows: the warp's lanes on 32 consecutive rows, a stencil's offsets around them */
  int64_t row = warp * 4096 % (X_LEN - 4096) + 1024 + lane;
  double sum = 0.0;
  uint32_t acc = 0;
  /* A segment at a time, as the kernel decodes: 8 nonzeros' lookups, then their gathers */
  for (int64_t k = 0; k < per; k += 8) {
    double v[8];
    int32_t c[8];
#pragma unroll
    for (int i = 0; i < 8; i++) {
      const uint32_t r = xorshift(s);
      const uint32_t slot = V == LINEAR ? (uint32_t)(lane + 32 * (k + i)) & (K - 1) : r & (K - 1);
      if (V == INLINE) {
        const uint4 e = wide[slot];
        v[i] = __hiloint2double((int)e.w, (int)e.z), c[i] = (int32_t)e.y;
      } else {
        const uint2 e = dtab[slot];
        c[i] = (int32_t)e.y;
        if (V == LINEAR || V == SLOT)
          acc += e.x, v[i] = 0.0;
        else if (V >= CODED)
          v[i] = vals[vtab[r >> 20] >> 9 & (VALUES - 1)];
        else
          v[i] = vals[e.x >> 9 & (VALUES - 1)];
      }
    }
    double xv[8];
#pragma unroll
    for (int i = 0; i < 8; i++) {
      if (V == JOINT_X || V == CODED_X) /* every lane at the same offset: one coalesced load */
        xv[i] = x[row + (3 * i + (int)(k & 8)) % 27 - 13], acc += (uint32_t)c[i];
      else if (V == CODED_RX || V == CODED_RX2) /* uniform over 2^22 (2^21) columns */
        xv[i] = x[((uint32_t)c[i] * 2654435761u + (uint32_t)(row * 40503)) >>
                  (V == CODED_RX ? 10 : 11)];
      else if (V == CODED_RMAT) /* R-MAT's column marginal: each of 22 bits is 1 with p = 1/4 */
        xv[i] = x[(xorshift(s) & xorshift(s) & (X_LEN - 1)) ^ (uint32_t)c[i]];
      else
        xv[i] = (double)c[i];
    }
#pragma unroll
    for (int i = 0; i < 8; i++) sum += v[i] * xv[i];
    row += (k & 24) == 24 ? 32 : 0;
    if (row >= X_LEN - 64) row -= X_LEN / 2;
  }
  if (sum == 12345.0 || acc == 12345u) out[0] = sum + acc; /* keeps every load live */
}

template <int V>
static float time_variant(int blocks, const uint2 *dtab, const uint32_t *vtab, const double *vals,
                          const double *x, int64_t per, double *out) {
  /* the kernel's layout: slots, coded values' slots, the 64 values */
  const size_t smem = K * (V == INLINE ? sizeof(uint4) : sizeof(uint2)) +
                      (V >= CODED ? K * sizeof(uint32_t) : 0) + VALUES * sizeof(double);
  CHECK(cudaFuncSetAttribute(probe<V>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int rep = 0; rep < 12; rep++) {
    CHECK(cudaEventRecord(a));
    probe<V><<<blocks, THREADS, smem>>>(dtab, vtab, vals, x, per, out);
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaGetLastError());
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    if (rep >= 2) t.push_back(ms); /* two warm-ups */
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main(int argc, char **argv) {
  int64_t nnz = (int64_t)1 << 27;
  bool csv = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--csv")) {
      csv = true;
    } else if ((nnz = atoll(argv[i])) < 8) {
      fprintf(stderr, "usage: zs-lookup-floor [--csv] [NONZEROS >= 8]\n");
      return 2;
    }
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    fprintf(stderr, "zs-lookup-floor: no CUDA device: skipped\n");
    return 77;
  }
  int dev = 0, sms = 0, clock_khz = 0;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, dev));

  /* A table like the encoder's: ids with their copies spread by slot = (start + digit)·2563 mod
   * K; meta holds a value id in bits 9–20, delta a small column step. */
  std::vector<uint2> dtab(K);
  std::vector<uint32_t> vtab(K);
  std::vector<double> vals(VALUES);
  for (uint32_t i = 0; i < K; i++) {
    const uint32_t slot = i * 2563u % K, id = i / 64;
    dtab[slot] = make_uint2(id % VALUES << 9 | (i % 64) | 64u << 23, i % 27);
    vtab[slot] = (id * 7 % VALUES) << 9;
  }
  for (int i = 0; i < VALUES; i++) vals[i] = 1.0 + i / 64.0;
  std::vector<double> xh(X_LEN, 0.5);
  uint2 *d_dtab;
  uint32_t *d_vtab;
  double *d_vals, *d_x, *d_out;
  CHECK(cudaMalloc(&d_dtab, K * sizeof(uint2)));
  CHECK(cudaMalloc(&d_vtab, K * sizeof(uint32_t)));
  CHECK(cudaMalloc(&d_vals, VALUES * sizeof(double)));
  CHECK(cudaMalloc(&d_x, X_LEN * sizeof(double)));
  CHECK(cudaMalloc(&d_out, sizeof(double)));
  CHECK(cudaMemcpy(d_dtab, dtab.data(), K * sizeof(uint2), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_vtab, vtab.data(), K * sizeof(uint32_t), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_vals, vals.data(), VALUES * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_x, xh.data(), X_LEN * sizeof(double), cudaMemcpyHostToDevice));

  if (csv) {
    printf("variant,blocks_per_sm,time_us,us_per_1e8_nnz,sm_cycles_per_warp_nnz\n");
  } else {
    printf("device %s, %d SMs, clock attribute %.0f MHz; %lld nonzeros\n", prop.name, sms,
           clock_khz / 1e3, (long long)nnz);
    printf("%-9s %6s %10s %14s %16s\n", "variant", "blocks", "us", "us/1e8 nnz",
           "SM-cycles/warp-nz");
  }
  using timer = float (*)(int, const uint2 *, const uint32_t *, const double *, const double *,
                          int64_t, double *);
  const timer timers[VARIANTS] = {time_variant<LINEAR>,    time_variant<SLOT>,
                                  time_variant<JOINT>,     time_variant<INLINE>,
                                  time_variant<JOINT_X>,   time_variant<CODED>,
                                  time_variant<CODED_X>,   time_variant<CODED_RX>,
                                  time_variant<CODED_RX2>, time_variant<CODED_RMAT>};
  /* 3 blocks a SM is the dtANS kernel's occupancy; 6 (as many as shared memory lets in) give the
   * pipe more warps to choose from */
  for (int per_sm : {3, 6}) {
    const int blocks = sms * per_sm;
    const int64_t threads = (int64_t)blocks * THREADS;
    const int64_t per = (nnz + 8 * threads - 1) / (8 * threads) * 8;
    const double done = (double)per * threads;
    for (int v = 0; v < VARIANTS; v++) {
      const float ms = timers[v](blocks, d_dtab, d_vtab, d_vals, d_x, per, d_out);
      /* SM cycles per warp-nonzero (32 nonzeros) at the clock attribute: the shared-memory
       * wavefronts a warp's lookups took, where the pipe is the bound */
      const double cycles = ms * 1e-3 * clock_khz * 1e3 * sms / (done / 32);
      printf(csv ? "%s,%d,%.1f,%.1f,%.2f\n" : "%-9s %6d %10.1f %14.1f %16.2f\n", variant_name[v],
             csv ? per_sm : blocks, ms * 1e3, ms * 1e3 * 1e8 / done, cycles);
    }
  }
  return 0;
}
