/* vans_gpu.cuh — MAT-VANS layer kernels of the GPU modules, reached through the backend's
 * "vans-v2" extension table; one unit of its own (backends/cuda/cuda_vans.cu,
 * backends/hip/hip_vans.cpp). */
#include <time.h>

#include "backends/cuda_hip/csr_kernels.cuh"
#include "backends/cuda_hip/gpu_common.cuh"
#include "formats/vans/vans_backend.h"

namespace zs_gpu {
namespace {

#define VANS_GROUP 32    /* lanes of the interleaved layout: one row per group of 32 lanes */
#define VANS_THREADS 256 /* rows kernel and requantisation */
#define VANS_LANES_THREADS 512
#define VANS_CHUNK (4 * VANS_GROUP) /* columns of one dp4a round: four per lane */
#define VANS_TAB_WORDS (256 * VANS_GROUP)
#define VANS_PREFETCH_WORDS 256 /* words of stream fetched ahead into L1: ~32 steps */
#define VANS_SHARED_X_MAX 45056 /* rows kernel: bytes of x kept in shared memory; beyond, L1 */

/* Decode table entry of quantile q (built at upload, not stored in the container): the
 * quantile's offset inside its symbol's slot b = q - cdf[r] in byte 0, the weight in byte 1
 * and its probability p_r in byte 3, so a step is st = (st >> 8) * p + b. */
__device__ __forceinline__ uint32_t vans_next(uint32_t &st, uint32_t e) {
  st = (st >> 8) * (e >> 24) + (e & 0xffu);
  return e;
}

__device__ __forceinline__ uint32_t vans_step(uint32_t &st, const uint32_t *tab) {
  return (vans_next(st, tab[st & 0xffu]) >> 8) & 0xffu;
}

__device__ __forceinline__ int vans_dot4(int a, int b, int c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 610
  return __dp4a(a, b, c);
#else
  for (int i = 0; i < 32; i += 8) c += (int)(int8_t)(a >> i) * (int)(int8_t)(b >> i);
  return c;
#endif
}

/* The weights (byte 1) of four table entries as one dp4a operand. */
__device__ __forceinline__ int vans_pack4(uint32_t e0, uint32_t e1, uint32_t e2, uint32_t e3) {
  return (int)__byte_perm(__byte_perm(e0, e1, 0x51), __byte_perm(e2, e3, 0x51), 0x5410);
}

/* A refill word loaded by every lane: volatile, so that the compiler does not move the load
 * under the refill's condition (a divergent branch per step). */
__device__ __forceinline__ uint32_t vans_word(const uint16_t *p) {
#if defined(__CUDA_ARCH__)
  unsigned short w;
  asm volatile("ld.global.nc.u16 %0, [%1];" : "=h"(w) : "l"(p));
  return w;
#else
  return *p;
#endif
}

/* A prefetch of p's line into L1, or into L2 with L2. */
template <bool L2>
__device__ __forceinline__ void vans_prefetch(const void *p) {
#if defined(__CUDA_ARCH__)
  if (L2)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
  else
    asm volatile("prefetch.global.L1 [%0];" ::"l"(p));
#else
  (void)p;
#endif
}

__device__ __forceinline__ void vans_note_max(unsigned long long *amax, int64_t z) {
  atomicMax(amax, (unsigned long long)(z < 0 ? -z : z));
}

/* A chain's kernels may be launched before the previous kernel in the stream ends (Hopper's
 * programmatic dependent launch, vans_launch): each lets the next one launch as soon as it
 * starts, and waits for the previous one before it reads x, z, the maxima or the row counter,
 * so that a launch and the staging of a layer's table overlap the kernel before. Both are
 * no-ops on a kernel launched plainly, and before sm_90. */
__device__ __forceinline__ void vans_let_next_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

__device__ __forceinline__ void vans_wait_previous() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* Bytes of a 16-byte piece of x at byte `base` that lie below `cols`, the rest zeroed. */
__device__ __forceinline__ uint4 vans_x_below(uint4 v, uint32_t base, uint32_t cols) {
  if (base + 16 <= cols) return v;
  uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (uint32_t k = 0; k < 4; k++) {
    const uint32_t b = base + 4 * k;
    w[k] = b >= cols ? 0u : b + 4 <= cols ? w[k] : w[k] & ((1u << 8 * (cols - b)) - 1u);
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

#define VANS_COPY_AHEAD 4 /* 16-byte loads a thread issues before it stores them */

/* Copy n 16-byte pieces from global to shared memory, each thread issuing its loads (up to
 * VANS_COPY_AHEAD) before its stores, so that a block stages its table and x in about one round
 * trip to L2. A loop of one load and store per trip, as before, took one round trip per word of
 * the table and per byte of x a thread copied: ~8 + N / 512 trips per layer. X: pieces of x,
 * bytes from `cols` on zeroed. */
template <bool X>
__device__ __forceinline__ void vans_copy16(uint4 *dst, const uint4 *__restrict__ src, uint32_t n,
                                            uint32_t cols) {
  for (uint32_t i = threadIdx.x; i < n; i += VANS_COPY_AHEAD * blockDim.x) {
    uint4 v[VANS_COPY_AHEAD];
#pragma unroll
    for (uint32_t a = 0; a < VANS_COPY_AHEAD; a++)
      if (i + a * blockDim.x < n) v[a] = src[i + a * blockDim.x];
#pragma unroll
    for (uint32_t a = 0; a < VANS_COPY_AHEAD; a++) {
      const uint32_t k = i + a * blockDim.x;
      if (k < n) dst[k] = X ? vans_x_below(v[a], 16 * k, cols) : v[a];
    }
  }
}

/* Stage x (zero-padded to `padded` bytes) and the decode table of `words` words in shared
 * memory: `copies` copies of the table interleaved word by word, so that with 32 copies lane l
 * reads only bank l and the random quantiles of a warp never collide. x and tab must be 16-byte
 * aligned. The next kernel of the chain may launch from here on; x is read only after the
 * previous one ended (vans_wait_previous). */
template <bool SHARED_X>
__device__ __forceinline__ void vans_stage(const int8_t *x, uint32_t cols, uint32_t padded,
                                           const uint32_t *tab_g, uint32_t words, uint32_t copies,
                                           uint32_t *tab, int8_t *sx) {
  vans_let_next_launch();
  if (copies == 1)
    vans_copy16<false>((uint4 *)tab, (const uint4 *)tab_g, words / 4, 0);
  else
    for (uint32_t i = threadIdx.x; i < words * copies; i += blockDim.x) tab[i] = tab_g[i / copies];
  vans_wait_previous();
  if (SHARED_X && padded % 16 == 0)
    vans_copy16<true>((uint4 *)sx, (const uint4 *)x, padded / 16, cols);
  else if (SHARED_X)
    for (uint32_t j = threadIdx.x; j < padded; j += blockDim.x) sx[j] = j < cols ? x[j] : 0;
  __syncthreads();
}

/* Interleaved layout (docs/formats/vans.md §2): a group of 32 lanes per row, lane l holding the
 * state of sub-stream l. At each step every lane decodes one weight; lanes whose state fell
 * below 2^16 take the next words of the shared stream in lane order, so a refill is one
 * coalesced read. Four steps fill a lane's four neighbouring weights, which meet four x bytes
 * in one dp4a.
 *
 * The step is a serial chain per lane (table load, multiply-add, compare, ballot, prefix count,
 * refill load); the kernel is bound by issue and by the refill's latency (docs/performance.md).
 * This kernel refills by global loads; vans_layer_ring below, the default, stages the stream in
 * shared memory. Options, measured on the H100 (ZS_EXPERIMENTAL_VANS_VARIANT):
 * - REP: the table replicated per lane (lane l reads only bank l); gained nothing measurable;
 * - PAIRS: a lane that refilled holds a state >= 2^24, so it cannot refill at the next step
 *   (with every initial state >= 2^16, checked at upload). The masks m0, m1 of two steps are
 *   then disjoint, and step 1's word index popc(m0) + popc(m1 & below) is one popc of
 *   m0 | (m1 & below); the pair advances by popc(m0 | m1): 3 popc per 2 steps instead of 4;
 * - PF: the stream prefetched into L1 ~32 steps ahead; gained nothing (CCTL.E.PF1);
 * - full 128-column chunks run two at a time without column checks or branches; the last
 *   partial chunks are separate;
 * - rows are handed out by an atomic counter, so no warp waits on a long tail of rows. */
/* Table entry of state st: with REP, lane l's copy (bank l) at byte offset q * 128 + 4 l. */
template <bool REP>
__device__ __forceinline__ uint32_t vans_lookup(uint32_t st, const uint32_t *tab, uint32_t lane4) {
  if (REP) return *(const uint32_t *)((const char *)tab + (((st << 7) & 0x7f80u) | lane4));
  return tab[st & 0xffu];
}

/* Two steps of a full chunk (every lane active): decode, then refill in lane order from pc. */
template <bool PAIRS, bool REP>
__device__ __forceinline__ void vans_two_steps(uint32_t &st, const uint16_t *&pc, uint32_t &e0,
                                               uint32_t &e1, const uint32_t *tab, uint32_t lane4,
                                               uint32_t below, uint32_t shift) {
  e0 = vans_next(st, vans_lookup<REP>(st, tab, lane4));
  bool need = st < 0x10000u;
  const uint32_t m0 = (uint32_t)((uint64_t)zs_ballot(need) >> shift);
  /* Every lane loads (a word of the same one or two lines), only the needy keep it: no branch. */
  uint32_t w = vans_word(pc + zs_popc(m0 & below));
  if (need) st = st << 16 | w;
  if (!PAIRS) pc += zs_popc(m0);
  e1 = vans_next(st, vans_lookup<REP>(st, tab, lane4));
  need = st < 0x10000u;
  const uint32_t m1 = (uint32_t)((uint64_t)zs_ballot(need) >> shift);
  w = vans_word(pc + zs_popc(PAIRS ? m0 | (m1 & below) : m1 & below));
  if (need) st = st << 16 | w;
  pc += zs_popc(PAIRS ? m0 | m1 : m1);
}

/* Interleaved layout (docs/formats/vans.md §2): a group of 32 lanes per row, lane l holding the
 * state of sub-stream l. At each step every lane decodes one weight; lanes whose state fell
 * below 2^16 take the next words of the shared stream in lane order, so a refill is one
 * coalesced read. Four steps fill a lane's four neighbouring weights, which meet four x bytes
 * in one dp4a.
 *
 * The step is a serial chain per lane (table load, multiply-add, compare, ballot, prefix count,
 * refill load), and at ~16 warp instructions per 32 weights the kernel is bound by issue, the
 * 16-per-clock popc and shared-memory wavefronts. What is done about it:
 * - the table is replicated per lane (REP): conflict-free lookups, 1 wavefront instead of ~3.5;
 * - PAIRS: a lane that refilled holds a state >= 2^24, so it cannot refill at the next step
 *   (with every initial state >= 2^16, checked at upload). The masks m0, m1 of two steps are
 *   then disjoint, and step 1's word index popc(m0) + popc(m1 & below) is one popc of
 *   m0 | (m1 & below); the pair advances by popc(m0 | m1): 3 popc per 2 steps instead of 4;
 * - full 128-column chunks run two at a time without column checks or branches; the last
 *   partial chunks are separate;
 * - the stream is prefetched into L1 ~32 steps ahead (PF), two lines per eight steps;
 * - rows are handed out by an atomic counter, so no warp waits on a long tail of rows. */
template <bool SHARED_X, bool PAIRS, bool PF, bool REP>
__global__ void __launch_bounds__(VANS_LANES_THREADS)
    vans_layer_lanes(uint32_t rows, uint32_t cols, const uint32_t *__restrict__ cursors,
                     const uint16_t *__restrict__ payload, const uint32_t *__restrict__ tab_g,
                     const int32_t *__restrict__ mult, const int8_t *__restrict__ x,
                     int64_t *__restrict__ z, unsigned long long *amax, uint32_t *next_row) {
  extern __shared__ __align__(16) uint32_t vans_smem[]; /* 16: vans_copy16 */
  const uint32_t copies = REP ? VANS_GROUP : 1;
  uint32_t *tab = vans_smem;
  int8_t *sx = (int8_t *)(vans_smem + 256 * copies);
  const uint32_t full = cols / VANS_CHUNK, chunks = (cols + VANS_CHUNK - 1) / VANS_CHUNK;
  vans_stage<SHARED_X>(x, cols, chunks * VANS_CHUNK, tab_g, 256, copies, tab, sx);
  const int8_t *xv = SHARED_X ? sx : x;
  const uint32_t lane = threadIdx.x % VANS_GROUP, lane4 = 4 * lane;
  const uint32_t shift = threadIdx.x % ZS_WARP_SIZE - lane; /* the group's place in its warp */
  const uint32_t below = (1u << lane) - 1u;
  const uint32_t groups_total = gridDim.x * (blockDim.x / VANS_GROUP);
  uint32_t row = blockIdx.x * (blockDim.x / VANS_GROUP) + threadIdx.x / VANS_GROUP;
  while (row < rows) {
    /* The row after this one, fetched now so that its latency hides behind this row. */
    uint32_t next = 0;
    if (lane == 0) next = groups_total + atomicAdd(next_row, 1u);
    const uint16_t *pc = payload + cursors[row];
    uint32_t st = (uint32_t)pc[2 * lane] << 16 | pc[2 * lane + 1];
    pc += 2 * VANS_GROUP;
    int acc = 0;
    const int8_t *xc = xv + lane4;
    uint32_t ch = 0;
    for (; ch + 2 <= full; ch += 2, xc += 2 * VANS_CHUNK) {
      uint32_t e[8];
#pragma unroll
      for (int h = 0; h < 8; h += 2)
        vans_two_steps<PAIRS, REP>(st, pc, e[h], e[h + 1], tab, lane4, below, shift);
      if (PF) vans_prefetch<false>(pc + VANS_PREFETCH_WORDS + 64 * (lane & 1));
      int x0, x1;
      if (SHARED_X) {
        x0 = *(const int *)xc, x1 = *(const int *)(xc + VANS_CHUNK);
      } else {
        x0 = (int)__ldg((const unsigned *)xc), x1 = (int)__ldg((const unsigned *)(xc + VANS_CHUNK));
      }
      acc = vans_dot4(vans_pack4(e[0], e[1], e[2], e[3]), x0, acc);
      acc = vans_dot4(vans_pack4(e[4], e[5], e[6], e[7]), x1, acc);
    }
    for (; ch < chunks; ch++) { /* the last chunks: lanes past the columns stand still */
      const uint32_t base = ch * VANS_CHUNK + lane4;
      uint32_t packed = 0;
#pragma unroll
      for (int u = 0; u < 4; u++) {
        const bool active = base + u < cols;
        uint32_t s2 = st;
        const uint32_t w = (vans_next(s2, vans_lookup<REP>(st, tab, lane4)) >> 8) & 0xffu;
        if (active) st = s2, packed |= w << (8 * u);
        const bool need = active && st < 0x10000u;
        const uint32_t mask = (uint32_t)((uint64_t)zs_ballot(need) >> shift);
        if (need) st = st << 16 | pc[zs_popc(mask & below)];
        pc += zs_popc(mask);
      }
      int xw = 0;
      for (int u = 0; u < 4; u++)
        if (base + u < cols) xw |= (int)(uint8_t)xv[base + u] << (8 * u);
      acc = vans_dot4((int)packed, xw, acc);
    }
    acc = zs_group_sum(acc, VANS_GROUP);
    if (lane == 0) {
      const int64_t v = (int64_t)acc * (mult ? mult[row] : 1);
      z[row] = v;
      vans_note_max(amax, v);
    }
    row = zs_shfl(next, (int)shift);
  }
}

#define VANS_RING 1024 /* words of a group's stream ring in shared memory: four fills */
#define VANS_FILL 256  /* words of one fill: 16 bytes per lane */

/* Fill: words [f, f + 256) of the payload into the ring (16 bytes per lane, asynchronous on
 * CUDA). The ring slot of word a is a mod 1024, so aligned 8-word pieces never wrap. */
__device__ __forceinline__ void vans_ring_fill(uint16_t *ring, const uint16_t *payload, uint32_t f,
                                               uint32_t lane) {
  const uint32_t a = f + 8 * lane;
  uint16_t *dst = ring + (a & (VANS_RING - 1));
#if defined(__CUDA_ARCH__)
  asm volatile(
      "cp.async.cg.shared.global [%0], [%1], 16;" ::"r"((uint32_t)__cvta_generic_to_shared(dst)),
      "l"(payload + a)
      : "memory");
#else
  *(uint4 *)dst = *(const uint4 *)(payload + a);
#endif
}

/* Close the fills issued since the last turn into one group, wait for all but that group, and
 * make the ring visible to the whole group of lanes. */
__device__ __forceinline__ void vans_ring_wait(bool all) {
#if defined(__CUDA_ARCH__)
  if (all)
    asm volatile("cp.async.wait_all;" ::: "memory");
  else
    asm volatile("cp.async.commit_group;\n\tcp.async.wait_group 1;" ::: "memory");
#else
  (void)all;
#endif
  zs_syncwarp();
}

/* One turn of the ring before at most 128 words are taken from word p on: with fills issued up
 * to f >= p + 256, top up to f >= p + 512 and wait for all but the newest fill, so words below
 * f - 256 >= p + 256 are in. A fill overwrites words f - 1024 .. f - 768, all below p. */
__device__ __forceinline__ void vans_ring_turn(uint16_t *ring, const uint16_t *payload, uint32_t p,
                                               uint32_t &f, uint32_t lane) {
  if (f < p + 2 * VANS_FILL) {
    vans_ring_fill(ring, payload, f, lane);
    f += VANS_FILL;
  }
  vans_ring_wait(false);
}

/* Two steps of a full chunk, refilled from the ring; p is the stream's next word. Pairs are
 * required: at most 128 words per four pairs, what a ring turn provides. */
__device__ __forceinline__ void vans_two_steps_ring(uint32_t &st, uint32_t &p, uint32_t &e0,
                                                    uint32_t &e1, const uint32_t *tab,
                                                    const volatile uint16_t *ring, uint32_t below,
                                                    uint32_t shift) {
  e0 = vans_next(st, tab[st & 0xffu]);
  bool need = st < 0x10000u;
  const uint32_t m0 = (uint32_t)((uint64_t)zs_ballot(need) >> shift);
  uint32_t w = ring[(p + zs_popc(m0 & below)) & (VANS_RING - 1)]; /* volatile: no branch */
  if (need) st = st << 16 | w;
  e1 = vans_next(st, tab[st & 0xffu]);
  need = st < 0x10000u;
  const uint32_t m1 = (uint32_t)((uint64_t)zs_ballot(need) >> shift);
  w = ring[(p + zs_popc(m0 | (m1 & below))) & (VANS_RING - 1)];
  if (need) st = st << 16 | w;
  p += zs_popc(m0 | m1);
}

/* The lanes kernel with the stream staged through a ring of shared memory per group: the
 * refill of a step is a shared load, never a miss in L1 (the H100 profile of the kernel above
 * spent half its cycles waiting on those). Fills of 256 words run two turns ahead. Requires the
 * step pairs (initial states >= 2^16). */
template <bool SHARED_X>
__global__ void __launch_bounds__(VANS_LANES_THREADS)
    vans_layer_ring(uint32_t rows, uint32_t cols, const uint32_t *__restrict__ cursors,
                    const uint16_t *__restrict__ payload, const uint32_t *__restrict__ tab_g,
                    const int32_t *__restrict__ mult, const int8_t *__restrict__ x,
                    int64_t *__restrict__ z, unsigned long long *amax, uint32_t *next_row) {
  extern __shared__ __align__(16) uint32_t vans_smem[]; /* 16: vans_copy16 */
  const uint32_t groups = blockDim.x / VANS_GROUP, group = threadIdx.x / VANS_GROUP;
  uint16_t *ring = (uint16_t *)vans_smem + group * VANS_RING;
  uint32_t *tab = vans_smem + groups * VANS_RING / 2;
  int8_t *sx = (int8_t *)(tab + 256);
  const uint32_t full = cols / VANS_CHUNK, chunks = (cols + VANS_CHUNK - 1) / VANS_CHUNK;
  vans_stage<SHARED_X>(x, cols, chunks * VANS_CHUNK, tab_g, 256, 1, tab, sx);
  const int8_t *xv = SHARED_X ? sx : x;
  const uint32_t lane = threadIdx.x % VANS_GROUP;
  const uint32_t shift = threadIdx.x % ZS_WARP_SIZE - lane; /* the group's place in its warp */
  const uint32_t below = (1u << lane) - 1u;
  const volatile uint16_t *vring = ring;
  uint32_t row = blockIdx.x * groups + group;
  while (row < rows) {
    uint32_t next = 0;
    if (lane == 0) next = gridDim.x * groups + atomicAdd(next_row, 1u);
    const uint32_t c0 = cursors[row];
    uint32_t st = (uint32_t)payload[c0 + 2 * lane] << 16 | payload[c0 + 2 * lane + 1];
    uint32_t p = c0 + 2 * VANS_GROUP, f = p & ~7u;
    vans_ring_fill(ring, payload, f, lane);
    vans_ring_wait(false);
    vans_ring_fill(ring, payload, f + VANS_FILL, lane);
    f += 2 * VANS_FILL;
    int acc = 0;
    const int8_t *xc = xv + 4 * lane;
    uint32_t ch = 0;
    for (; ch + 2 <= full; ch += 2, xc += 2 * VANS_CHUNK) {
      vans_ring_turn(ring, payload, p, f, lane);
      uint32_t e[8];
#pragma unroll
      for (int h = 0; h < 8; h += 2)
        vans_two_steps_ring(st, p, e[h], e[h + 1], tab, vring, below, shift);
      int x0, x1;
      if (SHARED_X) {
        x0 = *(const int *)xc, x1 = *(const int *)(xc + VANS_CHUNK);
      } else {
        x0 = (int)__ldg((const unsigned *)xc), x1 = (int)__ldg((const unsigned *)(xc + VANS_CHUNK));
      }
      acc = vans_dot4(vans_pack4(e[0], e[1], e[2], e[3]), x0, acc);
      acc = vans_dot4(vans_pack4(e[4], e[5], e[6], e[7]), x1, acc);
    }
    for (; ch < chunks; ch++) { /* the last chunks: lanes past the columns stand still */
      vans_ring_turn(ring, payload, p, f, lane);
      const uint32_t base = ch * VANS_CHUNK + 4 * lane;
      uint32_t packed = 0;
#pragma unroll
      for (int u = 0; u < 4; u++) {
        const bool active = base + u < cols;
        uint32_t s2 = st;
        const uint32_t w = (vans_next(s2, tab[st & 0xffu]) >> 8) & 0xffu;
        if (active) st = s2, packed |= w << (8 * u);
        const bool need = active && st < 0x10000u;
        const uint32_t mask = (uint32_t)((uint64_t)zs_ballot(need) >> shift);
        const uint32_t rw = vring[(p + zs_popc(mask & below)) & (VANS_RING - 1)];
        if (need) st = st << 16 | rw;
        p += zs_popc(mask);
      }
      int xw = 0;
      for (int u = 0; u < 4; u++)
        if (base + u < cols) xw |= (int)(uint8_t)xv[base + u] << (8 * u);
      acc = vans_dot4((int)packed, xw, acc);
    }
    vans_ring_wait(true); /* no fill of this row may land in the next row's ring */
    acc = zs_group_sum(acc, VANS_GROUP);
    if (lane == 0) {
      const int64_t v = (int64_t)acc * (mult ? mult[row] : 1);
      z[row] = v;
      vans_note_max(amax, v);
    }
    row = zs_shfl(next, (int)shift);
  }
}

/* A refill word of the pair layout, loaded by every lane (see vans_word). L2H: each miss
 * brings 256 bytes of the stream into L2 (the stream is read front to back). */
template <bool L2H>
__device__ __forceinline__ uint32_t vans_word32(const uint32_t *p) {
#if defined(__CUDA_ARCH__)
  uint32_t w;
  if (L2H)
    asm volatile("ld.global.nc.L2::256B.u32 %0, [%1];" : "=r"(w) : "l"(p));
  else
    asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(w) : "l"(p));
  return w;
#else
  return *p;
#endif
}

#define VANS_PAIR_SLOTS 4096 /* the pair model's quantiles (12 bits) */

/* One pair step on the 64-bit state hi:lo: st = (st >> 12) * f + offset, with the table entry
 * of quantile st mod 4096 (built at upload). NARROW (every f <= 255, as the encoder writes):
 * one 32-bit word, f in byte 0, the quantile's offset in its slot in byte 1, the two weights in
 * bytes 2 and 3; a 16 KiB table whose 4-byte loads take half the shared-memory wavefronts of
 * the 8-byte entries that larger f need (.x = f, .y = offset in bits 0-11 and the weights in
 * bytes 2 and 3). Written on 32-bit halves so that the product is one wide multiply-add onto
 * (hi >> 12) * f : offset. Returns the word holding the weights. */
template <bool NARROW>
__device__ __forceinline__ uint32_t vans_pair(uint32_t &lo, uint32_t &hi, const uint32_t *tab) {
  uint32_t f, off, y;
  if (NARROW) {
    y = tab[lo & (VANS_PAIR_SLOTS - 1)];
    f = y & 0xffu, off = __byte_perm(y, 0, 0x4441);
  } else {
    const uint2 e = ((const uint2 *)tab)[lo & (VANS_PAIR_SLOTS - 1)];
    f = e.x, off = e.y & 0xfffu, y = e.y;
  }
  const uint32_t qlo = __funnelshift_r(lo, hi, 12), qhi = hi >> 12;
  const uint64_t st = (uint64_t)qlo * f + ((uint64_t)(qhi * f) << 32 | off);
  lo = (uint32_t)st, hi = (uint32_t)(st >> 32);
  return y;
}

/* Lookahead (PF): the stream VANS_PAIR_AHEAD words (1 KiB, ~15 chunks) past a row's cursor is
 * prefetched into L2 once per chunk, so that the refills find their lines in L2 instead of
 * waiting on DRAM (H100, N = 16384: L2 hit rate 47 %, L1 35 %, and 8 of 20 stall cycles per
 * instruction on the refill load). It gains 1-4 % with two rows a group and loses 4 % with
 * one. A lookahead into L1 by cp.async.ca was slower (docs/performance.md, "Tried and dropped"). */
#define VANS_PAIR_AHEAD 256

/* The lanes of a row whose state fell below 2^32 after a chunk: their ballot, and whether this
 * lane is one of them. */
__device__ __forceinline__ uint32_t vans_pair_need(uint32_t hi, bool &need, uint32_t shift) {
  need = hi == 0;
  return (uint32_t)((uint64_t)zs_ballot(need) >> shift);
}

/* The refill of a row's lanes after a chunk: lanes whose state fell below 2^32 take the next
 * words of the row's stream in lane order (every lane loads, the payload is padded). */
template <bool L2H>
__device__ __forceinline__ void vans_pair_refill(uint32_t &lo, uint32_t &hi, const uint32_t *&pc,
                                                 uint32_t below, uint32_t shift) {
  bool need;
  const uint32_t m = vans_pair_need(hi, need, shift);
  const uint32_t w = vans_word32<L2H>(pc + zs_popc(m & below));
  if (need) hi = lo, lo = w;
  pc += zs_popc(m);
}

/* The dynamic shared memory of the kernels, for helpers that need its address. */
__device__ __forceinline__ char *vans_smem_base() {
  extern __shared__ __align__(16) uint32_t vans_smem[]; /* 16: vans_copy16 */
  return (char *)vans_smem;
}

/* An address for the pair ring's helpers: in the shared window on CUDA (for ld.shared and
 * cp.async), elsewhere the offset from vans_smem_base(). */
__device__ __forceinline__ uint32_t vans_shared_address(const void *p) {
#if defined(__CUDA_ARCH__)
  return (uint32_t)__cvta_generic_to_shared(p);
#else
  return (uint32_t)((const char *)p - vans_smem_base());
#endif
}

/* Rings of the pair kernel: RB bytes of a row's stream in shared memory (2048 or 1024; 0 for
 * the kernels without rings), four fills of RB / 4 bytes (RB / 128 from each lane), a turn
 * every RB / 512 chunks, in which at most RB / 4 bytes are taken (128 per chunk). */
template <int RB>
struct vans_pair_ring_geometry {
  static_assert(RB == 2048 || RB == 1024 || RB == 0, "vans: pair rings of 2 or 1 KiB");
  static constexpr uint32_t fill = RB / 4, piece = RB / 128, turn = RB ? RB / 512 : 1;
};
#define VANS_PAIR_RING_MAX 2048
/* Fills run up to 4 fills (a ring) past a row's last word; the payload's zero padding covers
 * them. */
static_assert(VANS_PAIR_RING_MAX <= 2 * (VANS_RING + 64), "vans: pair ring fills past the padding");

/* Ring of the pair kernel: the stream's byte b sits at ring + b mod RB, ring being a shared
 * address aligned to RB bytes, so that a word's address is one LOP3 of its stream offset. */
template <int RB>
__device__ __forceinline__ uint32_t vans_pair_slot(uint32_t ring, uint32_t b) {
  return ring | (b & ((uint32_t)RB - 4u));
}

/* The refill from a row's ring: qb is the byte offset of the stream's next word. On CUDA the
 * lanes that refill load straight into lo (a predicated load: one select fewer). */
template <int RB>
__device__ __forceinline__ void vans_pair_refill_ring(uint32_t &lo, uint32_t &hi, uint32_t &qb,
                                                      uint32_t ring, uint32_t below,
                                                      uint32_t shift) {
  bool need;
  const uint32_t m = vans_pair_need(hi, need, shift);
  const uint32_t a = vans_pair_slot<RB>(ring, qb + 4 * zs_popc(m & below));
#if defined(__CUDA_ARCH__)
  hi = need ? lo : hi;
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %2, 0;\n\t"
      "@p ld.volatile.shared.u32 %0, [%1];\n\t}"
      : "+r"(lo)
      : "r"(a), "r"((uint32_t)need));
#else
  const uint32_t w = *(volatile uint32_t *)(vans_smem_base() + a);
  if (need) hi = lo, lo = w;
#endif
  qb += 4 * zs_popc(m);
}

/* Fill, if `go`: stream bytes [fb, fb + RB / 4) into a row's ring, asynchronously on CUDA, as a
 * predicated copy rather than a branch; every lane copies one aligned piece, which never wraps
 * (fb is a multiple of 16). */
template <int RB>
__device__ __forceinline__ void vans_pair_fill(uint32_t ring, const uint16_t *payload, uint32_t fb,
                                               uint32_t lane, bool go) {
  constexpr uint32_t piece = vans_pair_ring_geometry<RB>::piece;
  const uint32_t b = fb + piece * lane;
#if defined(__CUDA_ARCH__)
  if (piece == 16)
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %2, 0;\n\t"
        "@p cp.async.cg.shared.global [%0], [%1], 16;\n\t}" ::"r"(vans_pair_slot<RB>(ring, b)),
        "l"((const char *)payload + b), "r"((uint32_t)go)
        : "memory");
  else /* .cg copies only 16 bytes */
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %2, 0;\n\t"
        "@p cp.async.ca.shared.global [%0], [%1], 8;\n\t}" ::"r"(vans_pair_slot<RB>(ring, b)),
        "l"((const char *)payload + b), "r"((uint32_t)go)
        : "memory");
#else
  char *dst = vans_smem_base() + vans_pair_slot<RB>(ring, b);
  const char *src = (const char *)payload + b;
  if (go && piece == 16) *(uint4 *)dst = *(const uint4 *)src;
  if (go && piece == 8) *(uint2 *)dst = *(const uint2 *)src;
#endif
}

/* A ring turn before at most F = RB / 4 bytes of each of the ROWS streams are taken, with fills
 * issued up to fb >= qb + 2F: a row short of qb + 3F gets one more fill, and if any did, every
 * fill but the newest two is waited for. Then the bytes below fb - 2F >= qb + F are in: the two
 * newest fills are past them, and a turn without fills finds fb >= qb + 3F with every older fill
 * waited for at an earlier turn. A fill overwrites bytes fb - 4F .. fb - 3F, below qb: taken.
 * Two fills in flight rather than one: 1-3 % faster on the H100. */
template <int ROWS, int RB>
__device__ __forceinline__ void vans_pair_turn(const uint32_t *ring, const uint16_t *payload,
                                               const uint32_t *qb, uint32_t *fb, uint32_t lane) {
  constexpr uint32_t F = vans_pair_ring_geometry<RB>::fill;
  bool any = false;
#pragma unroll
  for (int r = 0; r < ROWS; r++) {
    const bool go = fb[r] < qb[r] + 3 * F; /* the same in every lane */
    vans_pair_fill<RB>(ring[r], payload, fb[r], lane, go);
    fb[r] += go ? F : 0;
    any |= go;
  }
#if defined(__CUDA_ARCH__)
  if (any) asm volatile("cp.async.commit_group;\n\tcp.async.wait_group 2;" ::: "memory");
#endif
  zs_syncwarp(); /* in every turn, so that the compiler knows the votes after it converged */
}

/* Both pairs of a chunk for each of ROWS rows, into their sums: xw is the chunk's x word of
 * this lane. */
template <bool NARROW, int ROWS>
__device__ __forceinline__ void vans_pair_chunk(uint32_t *lo, uint32_t *hi, const uint32_t *tab,
                                                int xw, int *acc) {
#pragma unroll
  for (int r = 0; r < ROWS; r++) {
    const uint32_t y0 = vans_pair<NARROW>(lo[r], hi[r], tab);
    const uint32_t y1 = vans_pair<NARROW>(lo[r], hi[r], tab);
    acc[r] = vans_dot4((int)__byte_perm(y0, y1, 0x7632), xw, acc[r]);
  }
}

/* A whole chunk of ROWS rows with rings: every lane holds both pairs, and refills after them
 * from its row's ring. */
template <bool NARROW, int ROWS, int RB>
__device__ __forceinline__ void vans_pair_whole_ring(uint32_t *lo, uint32_t *hi, uint32_t *qb,
                                                     int *acc, const uint32_t *tab, int xw,
                                                     const uint32_t *ring, uint32_t below,
                                                     uint32_t shift) {
  vans_pair_chunk<NARROW, ROWS>(lo, hi, tab, xw, acc);
#pragma unroll
  for (int r = 0; r < ROWS; r++)
    vans_pair_refill_ring<RB>(lo[r], hi[r], qb[r], ring[r], below, shift);
}

template <bool SHARED_X>
__device__ __forceinline__ int vans_x_word(const int8_t *p) {
  return SHARED_X ? *(const int *)p : (int)__ldg((const unsigned *)p);
}

/* Pair layout (docs/formats/vans.md §3): a group of 32 lanes per row as in the kernels above,
 * but each table lookup decodes two neighbouring weights, and a lane refills once per chunk
 * (after both of its pairs) with a 32-bit word into a 64-bit state. Per lane and chunk of 128
 * columns: two lookups and multiply-adds, one ballot and refill, one byte permute and dp4a;
 * the 8-bit layouts need four steps and four refill checks for the same four weights. The
 * table (16 KiB, or 32 with 8-byte entries) and, where it fits, x stay in shared memory; rows
 * come from the counter, ROWS at a time: a group walks ROWS rows side by side, so one row's
 * decode hides another's refill latency. RB > 0: each row's stream is staged through a ring of
 * RB bytes of shared memory filled ahead by cp.async, so that a refill is a shared load
 * (vans_pair_turn). */
template <bool SHARED_X, int ROWS, bool L2H, bool NARROW, bool PF, int RB>
__global__ void __launch_bounds__(VANS_LANES_THREADS)
    vans_layer_pairs(uint32_t rows, uint32_t cols, const uint32_t *__restrict__ cursors,
                     const uint16_t *__restrict__ payload, const uint32_t *__restrict__ tab_g,
                     const int32_t *__restrict__ mult, const int8_t *__restrict__ x,
                     int64_t *__restrict__ z, unsigned long long *amax, uint32_t *next_row) {
  extern __shared__ __align__(16) uint32_t vans_smem[]; /* 16: vans_copy16 */
  const uint32_t tab_words = (NARROW ? 1 : 2) * VANS_PAIR_SLOTS;
  uint32_t *tab = vans_smem;
  int8_t *sx = (int8_t *)(vans_smem + tab_words);
  const uint32_t full = cols / VANS_CHUNK, chunks = (cols + VANS_CHUNK - 1) / VANS_CHUNK;
  const uint32_t group = threadIdx.x / VANS_GROUP, groups = blockDim.x / VANS_GROUP;
  uint32_t ring[ROWS]; /* the rings, past x, aligned to their size */
  const uint32_t rings = vans_shared_address(sx + (SHARED_X ? chunks * VANS_CHUNK : 0));
#pragma unroll
  for (int r = 0; r < ROWS; r++) ring[r] = (rings + RB - 1 & ~(RB - 1)) + (group * ROWS + r) * RB;
  vans_stage<SHARED_X>(x, cols, chunks * VANS_CHUNK, tab_g, tab_words, 1, tab, sx);
  const int8_t *xv = (SHARED_X ? sx : x) + 4 * (threadIdx.x % VANS_GROUP); /* zero-padded */
  const uint32_t lane = threadIdx.x % VANS_GROUP;
  const uint32_t shift = threadIdx.x % ZS_WARP_SIZE - lane; /* the group's place in its warp */
  const uint32_t below = (1u << lane) - 1u;
  const uint32_t groups_total = gridDim.x * groups;
  const uint32_t *words = (const uint32_t *)payload;
  const uint32_t tickets = (rows + ROWS - 1) / ROWS;
  uint32_t ticket = blockIdx.x * groups + group;
  while (ticket < tickets) {
    uint32_t next = 0;
    if (lane == 0) next = groups_total + atomicAdd(next_row, 1u);
    uint32_t row[ROWS], lo[ROWS], hi[ROWS], qb[ROWS], fb[ROWS];
    const uint32_t *pc[ROWS];
    int acc[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
      row[r] = ticket * ROWS + r < rows ? ticket * ROWS + r : ticket * ROWS; /* spare: again */
      pc[r] = words + cursors[row[r]] / 2;
      if (RB) { /* the stream past the initial states, in bytes, and its first three fills */
        qb[r] = 2 * cursors[row[r]] + 8 * VANS_GROUP;
        fb[r] = qb[r] & ~15u;
        vans_pair_fill<RB>(ring[r], payload, fb[r], lane, true);
        vans_pair_fill<RB>(ring[r], payload, fb[r] + RB / 4, lane, true);
        vans_pair_fill<RB>(ring[r], payload, fb[r] + RB / 2, lane, true);
        fb[r] += 3 * (RB / 4);
      }
      hi[r] = pc[r][2 * lane], lo[r] = pc[r][2 * lane + 1];
      pc[r] += 2 * VANS_GROUP;
      acc[r] = 0;
    }
    if (!RB) {
      for (uint32_t ch = 0; ch < full; ch++) { /* whole chunks: every lane holds both pairs */
        vans_pair_chunk<NARROW, ROWS>(lo, hi, tab, vans_x_word<SHARED_X>(xv + ch * VANS_CHUNK),
                                      acc);
#pragma unroll
        for (int r = 0; r < ROWS; r++) {
          vans_pair_refill<L2H>(lo[r], hi[r], pc[r], below, shift);
          if (PF) vans_prefetch<true>(pc[r] + VANS_PAIR_AHEAD);
        }
      }
    } else {
      vans_ring_wait(true); /* the first fills */
      uint32_t ch = 0;
      constexpr uint32_t turn = vans_pair_ring_geometry<RB>::turn;
      for (; ch + turn <= full; ch += turn) { /* whole turns, unrolled */
        vans_pair_turn<ROWS, RB>(ring, payload, qb, fb, lane);
#pragma unroll
        for (uint32_t j = 0; j < turn; j++)
          vans_pair_whole_ring<NARROW, ROWS, RB>(lo, hi, qb, acc, tab,
                                                 vans_x_word<SHARED_X>(xv + (ch + j) * VANS_CHUNK),
                                                 ring, below, shift);
      }
      for (; ch < full; ch++) { /* the whole chunks left */
        if (ch % turn == 0) vans_pair_turn<ROWS, RB>(ring, payload, qb, fb, lane);
        vans_pair_whole_ring<NARROW, ROWS, RB>(
            lo, hi, qb, acc, tab, vans_x_word<SHARED_X>(xv + ch * VANS_CHUNK), ring, below, shift);
      }
    }
    if (full < chunks) /* the last, partial chunk: x is zero past cols, and no refill follows */
      vans_pair_chunk<NARROW, ROWS>(lo, hi, tab, vans_x_word<SHARED_X>(xv + full * VANS_CHUNK),
                                    acc);
    if (RB) vans_ring_wait(true); /* no fill of these rows may land in the next rows' rings */
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
      acc[r] = zs_group_sum(acc[r], VANS_GROUP);
      if (lane == 0 && (r == 0 || ticket * ROWS + r < rows)) {
        const int64_t v = (int64_t)acc[r] * (mult ? mult[row[r]] : 1);
        z[row[r]] = v;
        vans_note_max(amax, v);
      }
    }
    ticket = zs_shfl(next, (int)shift);
  }
}

/* The kernel before the work above (bench comparison only, ZS_EXPERIMENTAL_VANS_VARIANT=3). */
template <bool SHARED_X>
__global__ void __launch_bounds__(VANS_THREADS)
    vans_layer_lanes_old(uint32_t rows, uint32_t cols, const uint32_t *__restrict__ cursors,
                         const uint16_t *__restrict__ payload, const uint32_t *__restrict__ tab_g,
                         const int32_t *__restrict__ mult, const int8_t *__restrict__ x,
                         int64_t *__restrict__ z, unsigned long long *amax, uint32_t *) {
  extern __shared__ __align__(16) uint32_t vans_smem[]; /* 16: vans_copy16 */
  uint32_t *tab = vans_smem;
  int8_t *sx = (int8_t *)(vans_smem + 256);
  const uint32_t chunks = (cols + 4 * VANS_GROUP - 1) / (4 * VANS_GROUP);
  vans_stage<SHARED_X>(x, cols, chunks * 4 * VANS_GROUP, tab_g, 256, 1, tab, sx);
  const int8_t *xv = SHARED_X ? sx : x;
  const uint32_t lane = threadIdx.x % VANS_GROUP;
  const uint32_t shift = threadIdx.x % ZS_WARP_SIZE - lane;
  const uint32_t below = (1u << lane) - 1u;
  const uint32_t groups = blockDim.x / VANS_GROUP;
  for (uint32_t row = blockIdx.x * groups + threadIdx.x / VANS_GROUP; row < rows;
       row += gridDim.x * groups) {
    const uint16_t *p = payload + cursors[row];
    uint32_t st = (uint32_t)p[2 * lane] << 16 | p[2 * lane + 1];
    p += 2 * VANS_GROUP;
    int acc = 0;
    for (uint32_t ch = 0; ch < chunks; ch++) {
      const uint32_t base = ch * 4 * VANS_GROUP + 4 * lane;
      uint32_t packed = 0;
#pragma unroll
      for (int u = 0; u < 4; u++) {
        const bool active = base + u < cols;
        uint32_t s2 = st;
        const uint32_t w = vans_step(s2, tab);
        if (active) st = s2, packed |= w << (8 * u);
        const bool need = active && st < 0x10000u;
        const uint32_t mask = (uint32_t)((uint64_t)zs_ballot(need) >> shift);
        if (need) st = st << 16 | p[zs_popc(mask & below)];
        p += zs_popc(mask);
      }
      int xw;
      if (SHARED_X) {
        xw = *(const int *)(xv + base);
      } else {
        xw = 0;
        for (int u = 0; u < 4; u++)
          if (base + u < cols) xw |= (int)(uint8_t)xv[base + u] << (8 * u);
      }
      acc = vans_dot4((int)packed, xw, acc);
    }
    acc = zs_group_sum(acc, VANS_GROUP);
    if (lane == 0) {
      const int64_t v = (int64_t)acc * (mult ? mult[row] : 1);
      z[row] = v;
      vans_note_max(amax, v);
    }
  }
}

/* The report's layout: one thread per row, its stream read sequentially. */
template <bool SHARED_X>
__global__ void __launch_bounds__(VANS_THREADS)
    vans_layer_rows(uint32_t rows, uint32_t cols, const uint32_t *__restrict__ cursors,
                    const uint16_t *__restrict__ payload, const uint32_t *__restrict__ tab_g,
                    const int32_t *__restrict__ mult, const int8_t *__restrict__ x,
                    int64_t *__restrict__ z, unsigned long long *amax) {
  extern __shared__ __align__(16) uint32_t vans_smem[]; /* 16: vans_copy16 */
  uint32_t *tab = vans_smem;
  int8_t *sx = (int8_t *)(vans_smem + 256);
  vans_stage<SHARED_X>(x, cols, cols, tab_g, 256, 1, tab, sx);
  const int8_t *xv = SHARED_X ? sx : x;
  for (uint32_t row = blockIdx.x * blockDim.x + threadIdx.x; row < rows;
       row += gridDim.x * blockDim.x) {
    const uint16_t *p = payload + cursors[row];
    uint32_t st = (uint32_t)p[0] << 16 | p[1];
    p += 2;
    int acc = 0;
    for (uint32_t j = 0; j < cols; j++) {
      acc += (int)(int8_t)vans_step(st, tab) * xv[j];
      if (st < 0x10000u) st = st << 16 | *p++;
    }
    const int64_t v = (int64_t)acc * (mult ? mult[row] : 1);
    z[row] = v;
    vans_note_max(amax, v);
  }
}

__global__ void vans_requant(uint32_t n, const int64_t *__restrict__ z,
                             const unsigned long long *amax, int8_t *__restrict__ y) {
  vans_let_next_launch();
  vans_wait_previous();
  const int64_t m = (int64_t)*amax;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int64_t v = z[i], a = v < 0 ? -v : v;
    const int64_t q = m ? (2 * 127 * a + m) / (2 * m) : 0;
    y[i] = (int8_t)(v < 0 ? -q : q);
  }
}

typedef void (*vans_kernel)(uint32_t, uint32_t, const uint32_t *, const uint16_t *,
                            const uint32_t *, const int32_t *, const int8_t *, int64_t *,
                            unsigned long long *, uint32_t *);

struct vans_dev_layer {
  const gpu_device *dev; /* its chain's copy of the device */
  uint32_t rows, cols, lanes;
  vans_kernel kern; /* lanes layout: the kernel, its grid, block and shared bytes */
  uint32_t blocks, threads;
  size_t smem;
  bool pairs;          /* every initial lane state >= 2^16: the lanes kernel may pair its steps */
  bool pair_model;     /* the pair layout: vans_layer_pairs */
  bool pair_narrow;    /* its table in 32-bit entries (every f <= 255), else 64-bit */
  int pair_ring;       /* bytes of its stream rings (0: refills from global memory) */
  uint32_t group_rows; /* rows a group of lanes takes at a time (a ticket) */
  uint32_t fit_blocks; /* blocks of the kernel that fit on the device at once */
  uint32_t *cursors, *tab;
  uint16_t *payload;
  int32_t *mult;
};

struct vans_chain {
  gpu_device dev; /* the context's device, with the shared-memory reserve this chain checked */
  int n;
  vans_dev_layer *layers;
  int8_t *x[2];
  int64_t *z;
  unsigned long long *amax; /* one per layer, then one row counter per layer (uint32_t);
                               cleared together once per run */
  uint32_t *next_row;
  uint32_t n0, n_out;
  int sms, variant;
  int early; /* kernels launched early (vans_launch): 1 the layers', 2 the requantisations' */
};

/* Where a kernel's dynamic shared memory starts in the shared window, for the alignment slack
 * of the pair rings (vans_pairs_smem). */
__global__ void vans_smem_probe(uint32_t *base) { *base = vans_shared_address(vans_smem_base()); }

/* Launch a kernel of the chain; `early`: it may start before the previous kernel in the stream
 * ends, and waits for it in vans_wait_previous (CUDA only). */
template <typename... P, typename... A>
gpuError_t vans_launch(bool early, void (*k)(P...), uint32_t blocks, uint32_t threads, size_t smem,
                       A... args) {
#if defined(__HIPCC__)
  (void)early;
#else
  if (early) {
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(blocks), cfg.blockDim = dim3(threads), cfg.dynamicSmemBytes = smem;
    cfg.attrs = &attr, cfg.numAttrs = 1;
    return cudaLaunchKernelEx(&cfg, k, args...);
  }
#endif
  k<<<blocks, threads, smem>>>(args...);
  return gpuGetLastError();
}

/* Columns of x as the lanes kernels stage them: whole chunks, zero-padded. */
uint32_t vans_padded_cols(const vans_dev_layer *d) {
  return (d->cols + VANS_CHUNK - 1) / VANS_CHUNK * VANS_CHUNK;
}

/* Tickets of a layer: the row groups its kernel's groups of lanes take from the counter. */
uint32_t vans_tickets(const vans_dev_layer *d) {
  const uint32_t per = d->group_rows ? d->group_rows : 1;
  return (d->rows + per - 1) / per;
}

/* The launch of a kernel that takes its rows from a counter, group_rows at a time: as many
 * blocks of VANS_LANES_THREADS as fit on the device, no more than its tickets fill. */
zs_status vans_fit_launch(vans_dev_layer *d, vans_kernel k, size_t smem, int sms, const char *name,
                          uint32_t group_rows = 1) {
  d->kern = k;
  d->group_rows = group_rows;
  d->threads = VANS_LANES_THREADS;
  d->smem = smem;
  /* The largest any layer may ask: the limit is the kernel's, not the layer's. */
  zs_status s = check(gpuFuncSetMaxDynamicShared(k, (int)d->dev->smem_optin), "vans shared memory");
  int per_sm = 0;
  if (s == ZS_OK)
    s = check(gpuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, (int)d->threads, d->smem),
              "vans occupancy");
  if (s == ZS_OK && per_sm < 1) s = fail(ZS_ERR_DEVICE, "vans: the %s kernel does not fit", name);
  const uint32_t groups = d->threads / VANS_GROUP, tickets = vans_tickets(d);
  d->blocks = d->fit_blocks = (uint32_t)sms * (uint32_t)per_sm;
  if (d->blocks > (tickets + groups - 1) / groups) d->blocks = (tickets + groups - 1) / groups;
  return s;
}

/* Choose the lanes kernel of a layer and its launch: x in shared memory when it fits beside the
 * replicated table, as many blocks as fit on the device (rows are handed out at run time). */
template <bool SX, bool PAIRS, bool PF, bool REP>
zs_status vans_config(vans_dev_layer *d, int sms) {
  const size_t smem = (size_t)256 * (REP ? VANS_GROUP : 1) * 4 + (SX ? vans_padded_cols(d) : 0);
  return vans_fit_launch(d, vans_layer_lanes<SX, PAIRS, PF, REP>, smem, sms, "lanes");
}

template <bool SX>
zs_status vans_config_old(vans_dev_layer *d, int sms) {
  d->kern = vans_layer_lanes_old<SX>;
  d->threads = VANS_THREADS;
  d->smem = 1024 + (SX ? vans_padded_cols(d) : 0);
  d->blocks = (d->rows + 7) / 8;
  if (d->blocks > (uint32_t)sms * (SX ? 4u : 8u)) d->blocks = (uint32_t)sms * (SX ? 4u : 8u);
  return ZS_OK;
}

template <bool SX>
zs_status vans_config_ring(vans_dev_layer *d, int sms) {
  const size_t smem = (size_t)VANS_LANES_THREADS / VANS_GROUP * VANS_RING * 2 + 1024 +
                      (SX ? vans_padded_cols(d) : 0);
  return vans_fit_launch(d, vans_layer_ring<SX>, smem, sms, "ring");
}

/* Shared bytes of the pair kernel: its table, x (SX), then ROWS rings of rb bytes per group
 * with the slack that aligns them to rb in the shared window. Where dynamic shared memory starts
 * in that window is known on CUDA (past the driver's reserve: 1 KiB on the H100; checked by
 * vans_smem_probe), so the slack is exact there; elsewhere it is a whole ring. At N = 32768 the
 * exact slack lets two blocks with 2 KiB rings keep x in shared memory (113 KiB each): 10 %
 * faster per layer than 1 KiB rings on the H100. */
size_t vans_pairs_smem(const vans_dev_layer *d, bool sx, int rows, int rb) {
  const size_t front =
      (size_t)VANS_PAIR_SLOTS * (d->pair_narrow ? 4 : 8) + (sx ? vans_padded_cols(d) : 0);
  if (!rb) return front;
  const size_t base = d->dev->smem_reserved;
  const size_t slack = base == (size_t)-1 ? (size_t)rb : (rb - (base + front) % rb) % rb;
  return front + slack + (size_t)(VANS_LANES_THREADS / VANS_GROUP * rows) * rb;
}

/* The pair kernel: ROWS rows per group of lanes; RB > 0 the stream through rings of RB bytes
 * of shared memory, else refills from global memory with L2H, the L2 prefetch hint, and PF, the
 * lookahead into L2. */
template <bool SX, int ROWS, bool L2H, bool PF, int RB = 0>
zs_status vans_config_pairs(vans_dev_layer *d, int sms) {
  const size_t smem = vans_pairs_smem(d, SX, ROWS, RB);
  return d->pair_narrow ? vans_fit_launch(d, vans_layer_pairs<SX, ROWS, L2H, true, PF, RB>, smem,
                                          sms, "pairs", ROWS)
                        : vans_fit_launch(d, vans_layer_pairs<SX, ROWS, L2H, false, PF, RB>, smem,
                                          sms, "pairs", ROWS);
}

/* Pair layers: the ring kernel with two rows per group (one row's decode hides the other's
 * refill) wherever its shared memory fits, with the ring size of vans_pair_plan: 10-12 %
 * faster on the H100 than the best kernel without rings.
 * Where the rings do not fit (64 KiB of LDS on AMD), the kernels that refill from global memory:
 * two rows per group once the rows fill the groups that fit at least 0.9 times over in pairs,
 * with the L2 lookahead; one row per group below that, where two would leave groups idle,
 * without it. The L2 hint always. Variants for bench comparisons: 11, 12, 13 (one row: plain,
 * the hint, hint and lookahead), 21, 22, 23 (two rows, the same), 14 and 24 (one and two rows,
 * rings of 2 KiB), 15 and 25 (the same, rings of 1 KiB). */
template <bool SX>
zs_status vans_config_pairs_variant(vans_dev_layer *d, int sms, int variant) {
  switch (variant) {
  case 11: return vans_config_pairs<SX, 1, false, false>(d, sms);
  case 12: return vans_config_pairs<SX, 1, true, false>(d, sms);
  case 13: return vans_config_pairs<SX, 1, true, true>(d, sms);
  case 21: return vans_config_pairs<SX, 2, false, false>(d, sms);
  case 22: return vans_config_pairs<SX, 2, true, false>(d, sms);
  case 23: return vans_config_pairs<SX, 2, true, true>(d, sms);
  case 14: return vans_config_pairs<SX, 1, false, false, 2048>(d, sms);
  case 24: return vans_config_pairs<SX, 2, false, false, 2048>(d, sms);
  case 15: return vans_config_pairs<SX, 1, false, false, 1024>(d, sms);
  case 25: return vans_config_pairs<SX, 2, false, false, 1024>(d, sms);
  default: {
    if (d->pair_ring == 2048) return vans_config_pairs<SX, 2, false, false, 2048>(d, sms);
    if (d->pair_ring == 1024) return vans_config_pairs<SX, 2, false, false, 1024>(d, sms);
    zs_status s = vans_config_pairs<SX, 1, true, false>(d, sms);
    const uint64_t fit = (uint64_t)d->fit_blocks * (VANS_LANES_THREADS / VANS_GROUP);
    if (s == ZS_OK && 10 * (uint64_t)d->rows >= 18 * fit)
      s = vans_config_pairs<SX, 2, true, true>(d, sms);
    return s;
  }
  }
}

template <bool SX>
zs_status vans_config_variant(vans_dev_layer *d, int sms, int variant) {
  if (d->pair_model) return vans_config_pairs_variant<SX>(d, sms, variant);
  if (!d->pairs) return vans_config<SX, false, false, false>(d, sms);
  switch (variant) {
  case 1: return vans_config<SX, true, false, false>(d, sms);
  case 5: return vans_config<SX, true, true, true>(d, sms);
  case 2: return vans_config<SX, true, true, false>(d, sms);
  case 3: return vans_config_old<SX>(d, sms);
  case 4: return vans_config<SX, false, true, true>(d, sms);
  default: return vans_config_ring<SX>(d, sms);
  }
}

/* The ring size of a pair layer's kernel (d->pair_ring) and whether x goes to shared memory.
 * x is in shared memory while two blocks with the rings of two-row groups still fit on an SM
 * (the opt-in size and 1 KiB reserved per block): one block of 16 groups does not hide the
 * refills (1.3x slower on the H100 at N = 32768). By default the rings are 2 KiB; where x then
 * no longer fits, 1 KiB where it does, else 2 KiB with x through L1. 1 KiB rings turn every 2
 * chunks instead of 4 (13 % more instructions), and were 24 % slower at N = 16384 where both
 * keep x; where x fits beside them and not beside 2 KiB rings they win. Without rings
 * (variants 11-23, or no room for
 * them), x is in shared memory while it fits at all. */
bool vans_pair_plan(vans_dev_layer *d, int variant) {
  const size_t optin = d->dev->smem_optin;
  const auto two_blocks = [&](int rb) {
    return 2 * (vans_pairs_smem(d, true, 2, rb) + 1024) <= optin + 1024;
  };
  if (variant == 0)
    d->pair_ring = two_blocks(2048) || !two_blocks(1024) ? 2048 : 1024;
  else
    d->pair_ring = variant == 15 || variant == 25   ? 1024
                   : variant == 14 || variant == 24 ? 2048
                                                    : 0;
  if (d->pair_ring && vans_pairs_smem(d, false, 2, d->pair_ring) > optin) d->pair_ring = 0;
  return d->pair_ring ? two_blocks(d->pair_ring) : vans_pairs_smem(d, true, 2, 0) + 1024 <= optin;
}

void vans_chain_free(vans_chain *c) {
  if (!c) return;
  for (int k = 0; k < c->n && c->layers; k++) {
    release(c->layers[k].cursors);
    release(c->layers[k].tab);
    release(c->layers[k].payload);
    release(c->layers[k].mult);
  }
  free(c->layers);
  release(c->x[0]);
  release(c->x[1]);
  release(c->z);
  release(c->amax);
  free(c);
}

zs_status vans_chain_create(void *self, void **out, int n, const zsb_vans_layer *L) {
  vans_chain *c = (vans_chain *)calloc(1, sizeof *c);
  if (!c || !(c->layers = (vans_dev_layer *)calloc((size_t)n, sizeof *c->layers))) {
    free(c);
    return fail(ZS_ERR_OUT_OF_MEMORY, "vans: chain");
  }
  c->dev = *context_device(self);
  for (int k = 0; k < n; k++) c->layers[k].dev = &c->dev;
  c->n = n;
  c->n0 = L[0].cols;
  c->n_out = L[n - 1].rows;
  uint64_t big = L[0].cols;
  zs_status s = ZS_OK;
  for (int k = 0; k < n && s == ZS_OK; k++) {
    if (L[k].lanes != 0 && L[k].lanes != VANS_GROUP)
      s = fail(ZS_ERR_UNSUPPORTED, "vans: layer %d has %u lanes; the kernels take 0 or %d", k,
               L[k].lanes, VANS_GROUP);
    vans_dev_layer *d = &c->layers[k];
    d->rows = L[k].rows, d->cols = L[k].cols, d->lanes = L[k].lanes;
    if (d->rows > big) big = d->rows;
    uint32_t tab[2 * VANS_PAIR_SLOTS]; /* host staging of the decode table */
    uint32_t tab_words = 256;
    d->pair_model = L[k].pairs > 0;
    if (d->pair_model) {
      d->pair_narrow = true;
      for (uint32_t e = 0; e < L[k].pairs; e++) d->pair_narrow &= L[k].pair_f[e] <= 255;
      tab_words = (d->pair_narrow ? 1 : 2) * VANS_PAIR_SLOTS;
      for (uint32_t e = 0, q = 0; e < L[k].pairs; e++)
        for (uint32_t o = 0; o < L[k].pair_f[e]; o++, q++) {
          const uint32_t w =
              (uint32_t)(uint8_t)L[k].pair_a[e] << 16 | (uint32_t)(uint8_t)L[k].pair_b[e] << 24;
          if (d->pair_narrow) {
            tab[q] = L[k].pair_f[e] | o << 8 | w;
          } else {
            tab[2 * q] = L[k].pair_f[e];
            tab[2 * q + 1] = o | w;
          }
        }
    } else {
      for (uint32_t q = 0; q < 256; q++) {
        const uint32_t r = L[k].ppf[q];
        const uint32_t p = (uint8_t)(L[k].cdf[r + 1] - L[k].cdf[r]);
        const uint32_t w = (uint8_t)(int8_t)(L[k].w_min + (int32_t)r);
        tab[q] = (uint8_t)(q - L[k].cdf[r]) | w << 8 | p << 24;
      }
    }
    /* A state starts >= 2^16 when its first word is not zero; the encoder always writes such
     * states, but a valid stream need not (docs/formats/vans.md §2). */
    d->pairs = true;
    for (uint32_t i = 0; i < d->rows && d->lanes && !d->pair_model; i++)
      for (uint32_t l = 0; l < d->lanes; l++)
        if (L[k].payload[L[k].cursors[i] + 2 * l] == 0) d->pairs = false;
    if (s == ZS_OK) s = upload_array(&d->tab, tab, tab_words, "vans decode table");
    if (s == ZS_OK) s = upload_array(&d->cursors, L[k].cursors, d->rows, "vans cursors");
    /* The payload is followed by zeros that prefetches and ring fills of the last row touch. */
    const size_t pw = L[k].payload_words + VANS_RING + 64; /* fills run ahead of the last row */
    if (s == ZS_OK) s = check(gpuMalloc((void **)&d->payload, pw * 2), "vans payload");
    if (s == ZS_OK) s = check(gpuMemset(d->payload, 0, pw * 2), "vans payload");
    if (s == ZS_OK)
      s = check(gpuMemcpy(d->payload, L[k].payload, L[k].payload_words * 2, gpuMemcpyHostToDevice),
                "vans payload");
    if (s == ZS_OK && L[k].row_mult)
      s = upload_array(&d->mult, L[k].row_mult, d->rows, "vans row multipliers");
  }
  /* x buffers are read in whole 128-byte chunks by the interleaved kernel. */
  const size_t xb = (size_t)((big + 4 * VANS_GROUP - 1) / (4 * VANS_GROUP) * 4 * VANS_GROUP);
  if (s == ZS_OK) s = check(gpuMalloc((void **)&c->x[0], xb), "vans activations");
  if (s == ZS_OK) s = check(gpuMalloc((void **)&c->x[1], xb), "vans activations");
  if (s == ZS_OK) s = check(gpuMemset(c->x[0], 0, xb), "vans activations");
  if (s == ZS_OK) s = check(gpuMemset(c->x[1], 0, xb), "vans activations");
  if (s == ZS_OK) s = check(gpuMalloc((void **)&c->z, (size_t)big * 8), "vans accumulators");
  if (s == ZS_OK) s = check(gpuMalloc((void **)&c->amax, (size_t)n * 12), "vans maxima");
  if (s == ZS_OK) c->next_row = (uint32_t *)(c->amax + n);
  gpuDeviceProp prop;
  if (s == ZS_OK) s = check(gpuGetDeviceProperties(&prop, 0), "vans device properties");
  if (s != ZS_OK) {
    vans_chain_free(c);
    return s;
  }
  c->sms = prop.multiProcessorCount;
  /* The ring slack assumes dynamic shared memory starts past the driver's reserve: check. A
   * kernel that cannot run here leaves the whole-ring slack. */
  if (c->dev.smem_reserved != (size_t)-1) {
    uint32_t base = UINT32_MAX;
    vans_smem_probe<<<1, 1, 16>>>((uint32_t *)c->z);
    if (gpuGetLastError() != gpuSuccess ||
        gpuMemcpy(&base, c->z, 4, gpuMemcpyDeviceToHost) != gpuSuccess ||
        base != c->dev.smem_reserved)
      c->dev.smem_reserved = (size_t)-1;
  }
  const char *e = getenv("ZS_EXPERIMENTAL_VANS_EARLY"); /* bench comparisons only */
  c->early = prop.major >= 9 ? (e ? atoi(e) : 3) : 0;
  const char *v = getenv("ZS_EXPERIMENTAL_VANS_VARIANT"); /* bench comparisons only */
  c->variant = v ? atoi(v) : 0;
  for (int k = 0; k < n && s == ZS_OK; k++) {
    vans_dev_layer *d = &c->layers[k];
    if (!d->lanes) continue;
    bool sx;
    if (d->pair_model) {
      sx = vans_pair_plan(d, c->variant);
    } else {
      const uint32_t padded = vans_padded_cols(d);
      const size_t tab = (size_t)256 * VANS_GROUP * 4;
      sx = c->variant == 3 ? padded <= VANS_SHARED_X_MAX : tab + padded + 1024 <= c->dev.smem_optin;
    }
    s = sx ? vans_config_variant<true>(d, c->sms, c->variant)
           : vans_config_variant<false>(d, c->sms, c->variant);
  }
  if (s != ZS_OK) {
    vans_chain_free(c);
    return s;
  }
  *out = c;
  return ZS_OK;
}

void vans_chain_destroy(void *c) { vans_chain_free((vans_chain *)c); }

/* The layers back to back on the device: x[0] holds the input, the result ends in *out. */
zs_status vans_chain_launch(vans_chain *c, int8_t **out) {
  zs_status s = check(gpuMemset(c->amax, 0, (size_t)c->n * 12), "vans maxima");
  const int8_t *in = c->x[0];
  for (int k = 0; k < c->n && s == ZS_OK; k++) {
    const vans_dev_layer *d = &c->layers[k];
    int8_t *o = c->x[(k + 1) % 2];
    /* The first kernel follows the memset of the maxima; the rows kernel launches plainly. A
     * layer kernel launched early has its blocks placed where the previous layer's left room:
     * with fewer tickets than groups, busy blocks may then share a multiprocessor (15 % slower
     * on the H100 at N = 4096), so it launches early only when
     * its tickets fill nine tenths of the groups that fit. */
    const uint64_t groups = (uint64_t)d->fit_blocks * d->threads / VANS_GROUP;
    const bool early = (c->early & 1) && k > 0 && 10 * (uint64_t)vans_tickets(d) >= 9 * groups;
    if (d->lanes) {
      s = check(vans_launch(early, d->kern, d->blocks, d->threads, d->smem, d->rows, d->cols,
                            (const uint32_t *)d->cursors, (const uint16_t *)d->payload,
                            (const uint32_t *)d->tab, (const int32_t *)d->mult, in, c->z,
                            c->amax + k, c->next_row + k),
                "vans layer");
    } else {
      const bool shared_x = d->cols <= VANS_SHARED_X_MAX;
      const size_t smem = 1024 + (shared_x ? d->cols : 0);
      /* Enough blocks to fill the device a few times over; each stages x once for many rows. */
      uint32_t blocks = (d->rows + VANS_THREADS - 1) / VANS_THREADS;
      const uint32_t cap = (uint32_t)c->sms * (shared_x ? 4u : 8u);
      if (blocks > cap) blocks = cap;
      if (shared_x)
        vans_layer_rows<true><<<blocks, VANS_THREADS, smem>>>(
            d->rows, d->cols, d->cursors, d->payload, d->tab, d->mult, in, c->z, c->amax + k);
      else
        vans_layer_rows<false><<<blocks, VANS_THREADS, smem>>>(
            d->rows, d->cols, d->cursors, d->payload, d->tab, d->mult, in, c->z, c->amax + k);
      s = check_launch("vans layer");
    }
    if (s == ZS_OK)
      s = check(vans_launch((c->early & 2) != 0, vans_requant, grid_for(d->rows, VANS_THREADS),
                            VANS_THREADS, 0, d->rows, (const int64_t *)c->z,
                            (const unsigned long long *)c->amax + k, o),
                "vans requantisation");
    in = o;
  }
  *out = (int8_t *)in;
  return s;
}

zs_status vans_chain_run(void *opaque, const int8_t *x, int8_t *y) {
  vans_chain *c = (vans_chain *)opaque;
  zs_status s = check(gpuMemcpy(c->x[0], x, c->n0, gpuMemcpyHostToDevice), "vans input");
  int8_t *res = NULL;
  if (s == ZS_OK) s = vans_chain_launch(c, &res);
  if (s == ZS_OK) s = check(gpuMemcpy(y, res, c->n_out, gpuMemcpyDeviceToHost), "vans output");
  return s;
}

double vans_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

zs_status vans_chain_time(void *opaque, int reps, double *ms) {
  vans_chain *c = (vans_chain *)opaque;
  int8_t *res;
  zs_status s = vans_chain_launch(c, &res); /* warm-up */
  if (s == ZS_OK) s = check(gpuDeviceSynchronize(), "vans warm-up");
  const double t0 = vans_seconds();
  for (int r = 0; r < reps && s == ZS_OK; r++) s = vans_chain_launch(c, &res);
  if (s == ZS_OK) s = check(gpuDeviceSynchronize(), "vans timing");
  *ms = (vans_seconds() - t0) * 1e3 / reps;
  return s;
}

const zsb_vans_ops g_vans_ops = {2, vans_chain_create, vans_chain_destroy, vans_chain_run,
                                 vans_chain_time};

} /* namespace */

const void *vans_gpu_extension(const char *name) {
  return strcmp(name, ZSB_VANS_EXTENSION) == 0 ? &g_vans_ops : NULL;
}

} /* namespace zs_gpu */
