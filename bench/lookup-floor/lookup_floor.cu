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
 * the sums, so loads are in flight together as in the kernel.
 *
 * Candidate layouts of a stream version 5, in the kernel's occupancy (3 blocks of 256 threads a
 * multiprocessor, its 8 KiB stream ring reserved beside the tables). Their slots are 4 bytes
 * {next-state base, bit count, symbol} of an FSE-style table: a thread keeps 8 states, each the
 * base plus bit-count bits of the last lookup, so every lookup waits on the one before it.
 *   slot4+shfl    4096 slots; the symbol's delta and f64 value by 3 warp shuffles (32 symbols)
 *   slot4+shfl64  the same with 64 symbols: 5 shuffles (deltas packed two a word) and 2 selects
 *   slot4+dict    4096 slots, 64 symbols; delta by 1 shuffle, value from a dictionary with a copy
 *                 a lane (16 KiB: conflict-free)
 *   rep-10        1024 slots in 16 interleaved copies (64 KiB), lane l on copy l mod 16; 3 shuffles
 *   rep-11        2048 slots in 8 interleaved copies (64 KiB); 3 shuffles
 *   lane-8        256 slots, a copy a lane (32 KiB): each lane in its own bank; 3 shuffles
 *   lane-9        512 slots, a copy a lane (64 KiB); 3 shuffles
 *   slot4x2+dict  two lookups a nonzero, a delta table (32 symbols) and a value table (64), as 64
 *                 values need when their (delta, value) pairs are more than 64; value by dictionary
 *   lane-8x2      two lane-private 256-slot tables (64 KiB); delta by 1 shuffle, value by 4
 * each bare, +x, +rx2 and +rmat (the x gathers of the old variants of those names);
 *   pair2(+x)     16-byte slots {meta, two deltas, value}: 3 slots in 4 decode two nonzeros, the
 *                 second the likely symbol; a lane looks up until it has its segment's 8 nonzeros
 *   template+ids  thread per row, 27-point rows (a 3-D stencil, n = 160): column offsets from the
 *                 diagonal in a per-slice template (shared memory, a broadcast), 6-bit value ids
 *                 read 5 a word column-major from global memory, the value from the dictionary, x
 *                 at row + offset
 *   template+raw  the same with f64 values read column-major (no value lookup)
 *   template+ids5 / template+raw5  the same with 5-point rows (a 2-D stencil, n = 4096)
 *   packed-band(+x)  packed rows (no template): thread per row, each nonzero a field of b bits
 *                 (b per slice of 32 rows, the bits of its largest field) in its lane's bit stream,
 *                 words column-major; the field's low 6 bits a value id (dictionary copied per
 *                 lane), the rest the column step: a funnel shift, a mask, an add, no lookup.
 *                 Rows of the banded matrix (width 128, 20 a row), x gathered at their columns
 *   packed-band+raw+x  the same with the values raw, f64 read position-major (fields = steps)
 *   packed-er(+x), packed-er+shfl+x  Erdős–Rényi rows (16 uniform columns of 2^22); shfl: the
 *                 value by 4 warp shuffles instead of the dictionary (no shared memory)
 *   packed-rmat+x, packed-rmat+shfl+x  16 columns a row at R-MAT's column marginal
 * The template and packed variants read their stream (ids or values) from memory; the packed
 * ones also read the row lengths and slice descriptors and write y, as a kernel would. The others
 * leave their stream words out, as the old variants do, and write no y. */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "probe_rows.h"

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
static_assert(PROBE_COLS <= X_LEN && PROBE_VALUES == VALUES, "the probe rows index x and vals");

__device__ __forceinline__ uint32_t xorshift(uint32_t &s) {
  s ^= s << 13, s ^= s >> 17, s ^= s << 5;
  return s;
}

/* A thread's random seed, and its first row: the warp's lanes on 32 consecutive rows (lockstep),
 * a stencil's offsets around them */
__device__ __forceinline__ uint32_t thread_seed() {
  return 0x9e3779b9u * (uint32_t)(blockIdx.x * blockDim.x + threadIdx.x + 1);
}
__device__ __forceinline__ int64_t first_row() {
  const int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  return warp * 4096 % (X_LEN - 4096) + 1024 + threadIdx.x % 32;
}
/* After segment k: the next 32 rows every 4 segments, wrapped inside x */
__device__ __forceinline__ void next_rows(int64_t &row, int64_t k) {
  row += (k & 24) == 24 ? 32 : 0;
  if (row >= X_LEN - 64) row -= X_LEN / 2;
}

/* x gathers, by the variants' suffixes: none, +x, +rx, +rx2, +rmat */
enum { X_NONE, X_LOCK, X_R1, X_R2, X_RMAT };

/* x for nonzero i of segment k with column step c; acc keeps c live where x does not use it */
template <int XM>
__device__ __forceinline__ double gather(const double *x, int64_t row, int64_t k, int i, int32_t c,
                                         uint32_t &s, uint32_t &acc) {
  if (XM == X_LOCK) /* every lane at the same offset: one coalesced load */
    return acc += (uint32_t)c, x[row + (3 * i + (int)(k & 8)) % 27 - 13];
  if (XM == X_R1 || XM == X_R2) /* uniform over 2^22 (2^21) columns */
    return x[((uint32_t)c * 2654435761u + (uint32_t)(row * 40503)) >> (XM == X_R1 ? 10 : 11)];
  if (XM == X_RMAT) /* R-MAT's column marginal: each of 22 bits is 1 with p = 1/4 */
    return x[(xorshift(s) & xorshift(s) & (X_LEN - 1)) ^ (uint32_t)c];
  return (double)c;
}

/* The segment loop of every lockstep variant, as the kernel decodes: a thread's 8 nonzeros'
 * lookups (decode(k, i, value, step)), then their 8 gathers, then the sums */
template <int XM, typename Decode>
__device__ __forceinline__ double segments(const double *x, int64_t per, uint32_t &s, uint32_t &acc,
                                           Decode decode) {
  int64_t row = first_row();
  double sum = 0.0;
  for (int64_t k = 0; k < per; k += 8) {
    double v[8];
    int32_t c[8];
#pragma unroll
    for (int i = 0; i < 8; i++) decode(k, i, v[i], c[i]);
    double xv[8];
#pragma unroll
    for (int i = 0; i < 8; i++) xv[i] = gather<XM>(x, row, k, i, c[i], s, acc);
#pragma unroll
    for (int i = 0; i < 8; i++) sum += v[i] * xv[i];
    next_rows(row, k);
  }
  return sum;
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
  uint32_t s = thread_seed();
  uint32_t acc = 0;
  constexpr int XM = V == JOINT_X || V == CODED_X ? X_LOCK
                     : V == CODED_RX              ? X_R1
                     : V == CODED_RX2             ? X_R2
                     : V == CODED_RMAT            ? X_RMAT
                                                  : X_NONE;
  const double sum = segments<XM>(x, per, s, acc, [&](int64_t k, int i, double &v, int32_t &c) {
    const uint32_t r = xorshift(s);
    const uint32_t slot = V == LINEAR ? (uint32_t)(lane + 32 * (k + i)) & (K - 1) : r & (K - 1);
    if (V == INLINE) {
      const uint4 e = wide[slot];
      v = __hiloint2double((int)e.w, (int)e.z), c = (int32_t)e.y;
    } else {
      const uint2 e = dtab[slot];
      c = (int32_t)e.y;
      if (V == LINEAR || V == SLOT)
        acc += e.x, v = 0.0;
      else if (V >= CODED)
        v = vals[vtab[r >> 20] >> 9 & (VALUES - 1)];
      else
        v = vals[e.x >> 9 & (VALUES - 1)];
    }
  });
  if (sum == 12345.0 || acc == 12345u) out[0] = sum + acc; /* keeps every load live */
}

/* Times launch(): 2 warm-ups, then the median of 10 */
template <typename F>
static float time_launch(F launch) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int rep = 0; rep < 12; rep++) {
    CHECK(cudaEventRecord(a));
    launch();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaGetLastError());
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    if (rep >= 2) t.push_back(ms);
  }
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <int V>
static float time_variant(int blocks, const uint2 *dtab, const uint32_t *vtab, const double *vals,
                          const double *x, int64_t per, double *out) {
  /* the kernel's layout: slots, coded values' slots, the 64 values */
  const size_t smem = K * (V == INLINE ? sizeof(uint4) : sizeof(uint2)) +
                      (V >= CODED ? K * sizeof(uint32_t) : 0) + VALUES * sizeof(double);
  CHECK(cudaFuncSetAttribute(probe<V>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  return time_launch([&] { probe<V><<<blocks, THREADS, smem>>>(dtab, vtab, vals, x, per, out); });
}

/* ---- the candidate layouts of stream version 5 -------------------------------------------- */

/* Shared memory the dtANS kernel holds beside its tables (the stream ring of 8 slices of 256
 * words): the new layouts reserve it too, so their occupancy and L1 carve-out are the kernel's. */
#define RING_BYTES (4 * 8 * 256)
/* Table layouts of 4-byte slots {base 12 bits, bit count 4, symbol 6}, an FSE-style table: the
 * next state is base + the next (bit count) stream bits, so each of a thread's 8 states is a
 * chain of dependent lookups, as a version 5 decoder's would be. */
enum {
  L_SHFL,   /* 4096 slots, one copy; delta and value of 32 symbols by 3 shuffles */
  L_SHFL64, /* the same with 64 symbols: 1 shuffle of packed deltas, 4 of values, 2 selects */
  L_DICT,   /* 4096 slots; delta by 1 shuffle, value from a lane-replicated dictionary */
  L_REP10,  /* 1024 slots, 16 interleaved copies: lanes l and l + 16 share one */
  L_REP11,  /* 2048 slots, 8 interleaved copies: 4 lanes share one */
  L_LANE8,  /* 256 slots, a copy per lane (bank = lane): conflict-free */
  L_LANE9,  /* 512 slots, a copy per lane */
  /* Two lookups a nonzero, a delta table (32 symbols) and a value table (64): what 64 values need
   * when their (delta, value) pairs are more than 64, as in every few-valued matrix of the suite */
  L_SHFL2, /* two 4096-slot tables; delta by 1 shuffle, value from the lane-replicated dictionary */
  L_LANE8X2, /* two 256-slot tables a lane; delta by 1 shuffle, value by 4 shuffles (64 values) */
  LAYOUTS
};
static const int layout_log[LAYOUTS] = {12, 12, 12, 10, 11, 8, 9, 12, 8};
static const int layout_copies[LAYOUTS] = {1, 1, 1, 16, 8, 32, 32, 1, 32};
static const int layout_symbols[LAYOUTS] = {32, 64, 64, 32, 32, 32, 32, 32, 32};

__device__ __forceinline__ int delta_of(int sym) { return sym % 27; }

/* Value sym (< 64) of the lanes' registers: lane l holds values l (lo0, hi0) and l + 32 (lo1,
 * hi1); 4 shuffles, then the half that sym names */
__device__ __forceinline__ double value64(int lo0, int hi0, int lo1, int hi1, uint32_t sym) {
  const int src = (int)sym & 31;
  const int l0 = __shfl_sync(0xffffffffu, lo0, src), h0 = __shfl_sync(0xffffffffu, hi0, src);
  const int l1 = __shfl_sync(0xffffffffu, lo1, src), h1 = __shfl_sync(0xffffffffu, hi1, src);
  const bool up = sym >= 32;
  return __hiloint2double(up ? h1 : h0, up ? l1 : l0);
}

template <int LAYOUT, int XM>
__global__ void __launch_bounds__(THREADS, 3)
    chain(const uint32_t *gtab, const double *gvals, const double *x, int64_t per, double *out) {
  constexpr int LOG = LAYOUT == L_REP10                          ? 10
                      : LAYOUT == L_REP11                        ? 11
                      : LAYOUT == L_LANE8 || LAYOUT == L_LANE8X2 ? 8
                      : LAYOUT == L_LANE9                        ? 9
                                                                 : 12;
  constexpr int COPIES = LAYOUT == L_REP10                                               ? 16
                         : LAYOUT == L_REP11                                             ? 8
                         : LAYOUT == L_LANE8 || LAYOUT == L_LANE9 || LAYOUT == L_LANE8X2 ? 32
                                                                                         : 1;
  constexpr bool TWO = LAYOUT == L_SHFL2 || LAYOUT == L_LANE8X2;
  constexpr bool DICT = LAYOUT == L_DICT || LAYOUT == L_SHFL2;
  extern __shared__ uint64_t smem64[];
  uint32_t *tab = (uint32_t *)smem64 + RING_BYTES / 4; /* after the ring, as the kernel's tables */
  uint32_t *vtab = tab + (COPIES << LOG);              /* TWO: the value table, laid out as tab */
  double *dict = (double *)(vtab + (TWO ? COPIES << LOG : 0)); /* DICT: value v, lane l: v·32 + l */
  for (int i = threadIdx.x; i < (TWO ? 2 : 1) * COPIES << LOG; i += blockDim.x)
    tab[i] = gtab[i / COPIES];
  if (DICT)
    for (int i = threadIdx.x; i < VALUES * 32; i += blockDim.x) dict[i] = gvals[i / 32];
  __syncthreads();
  const int lane = threadIdx.x % 32;
  /* the symbols' deltas and values in registers: lane l holds symbol l's (and l + 32's) */
  const double mine0 = gvals[lane], mine1 = gvals[lane + 32];
  const int dpack = delta_of(lane) | delta_of(lane + 32) << 16;
  const int lo0 = __double2loint(mine0), hi0 = __double2hiint(mine0);
  const int lo1 = __double2loint(mine1), hi1 = __double2hiint(mine1);
  const uint32_t *my = tab + (COPIES == 1 ? 0 : lane % COPIES); /* this lane's copy */
  const uint32_t *myv = my + (COPIES << LOG);
  uint32_t s = thread_seed();
  uint32_t st[8], vst[8];
#pragma unroll
  for (int i = 0; i < 8; i++) st[i] = xorshift(s) & ((1u << LOG) - 1), vst[i] = TWO ? st[i] ^ 1 : 0;
  uint32_t acc = 0;
  const double sum = segments<XM>(x, per, s, acc, [&](int64_t, int i, double &v, int32_t &c) {
    const uint32_t bits = xorshift(s); /* the stream's next bits */
    const uint32_t e = my[st[i] * COPIES];
    const uint32_t nb = e >> 12 & 15, sym = e >> 16 & 63;
    st[i] = (e & 0xfff) + (bits & ~(0xffffffffu << nb));
    if (TWO) { /* the value's own chain: its bits are the same draw's top bits */
      const uint32_t f = myv[vst[i] * COPIES], vnb = f >> 12 & 15, vsym = f >> 16 & 63;
      vst[i] = (f & 0xfff) + (bits >> 20 & ~(0xffffffffu << vnb));
      c = __shfl_sync(0xffffffffu, dpack, (int)sym) & 0xffff;
      v = DICT ? dict[vsym * 32 + lane] : value64(lo0, hi0, lo1, hi1, vsym);
    } else if (LAYOUT == L_SHFL64 || LAYOUT == L_DICT) {
      const int dp = __shfl_sync(0xffffffffu, dpack, (int)sym & 31);
      c = sym >= 32 ? dp >> 16 : dp & 0xffff;
      v = LAYOUT == L_DICT ? dict[sym * 32 + lane] : value64(lo0, hi0, lo1, hi1, sym);
    } else {
      c = __shfl_sync(0xffffffffu, dpack, (int)sym) & 0xffff;
      v = __hiloint2double(__shfl_sync(0xffffffffu, hi0, (int)sym),
                           __shfl_sync(0xffffffffu, lo0, (int)sym));
    }
  });
#pragma unroll
  for (int i = 0; i < 8; i++) acc += st[i] + vst[i];
  if (sum == 12345.0 || acc == 12345u) out[0] = sum + acc;
}

/* pair2: 16-byte slots {meta, two deltas, value}: meta as the 4-byte slot's, plus bit 22 = the
 * slot decodes two nonzeros, the second being the likely symbol (its value in a register). A
 * lane takes lookups until it has its segment's 8 nonzeros (one more carries to the next), so
 * the warp runs as many lookups as its slowest lane; 4 states a thread. */
template <int XM>
__global__ void __launch_bounds__(THREADS, 3)
    pair2(const uint4 *gwide, const double *x, int64_t per, double *out) {
  extern __shared__ uint64_t smem64[];
  uint4 *wide = (uint4 *)(smem64 + RING_BYTES / 8);
  for (int i = threadIdx.x; i < K; i += blockDim.x) wide[i] = gwide[i];
  __syncthreads();
  const double likely = 1.5;
  uint32_t s = thread_seed();
  uint32_t st[4];
#pragma unroll
  for (int i = 0; i < 4; i++) st[i] = xorshift(s) & (K - 1);
  int64_t row = first_row();
  double sum = 0.0;
  uint32_t acc = 0;
  int got = 0;
  for (int64_t k = 0; k < per; k += 8) {
#pragma unroll
    for (int i = 0; i < 8; i++) {
      if (got < 8) {
        const uint32_t bits = xorshift(s);
        const uint4 e = wide[st[i & 3]];
        const uint32_t nb = e.x >> 12 & 15;
        st[i & 3] = (e.x & 0xfff) + (bits & ~(0xffffffffu << nb));
        const double v = __hiloint2double((int)e.w, (int)e.z);
        const int two = e.x >> 22 & 1;
        if (XM == X_LOCK) {
          sum += v * x[row + (3 * got + (int)(k & 8)) % 27 - 13];
          if (two) sum += likely * x[row + (3 * got + 3 + (int)(k & 8)) % 27 - 13];
          acc += e.y;
        } else {
          sum += v * (double)(int)(e.y & 0xffff);
          if (two) sum += likely * (double)(int)(e.y >> 16);
        }
        got += 1 + two;
      }
    }
    got -= 8;
    next_rows(row, k);
  }
#pragma unroll
  for (int i = 0; i < 4; i++) acc += st[i];
  if (sum == 12345.0 || acc == 12345u) out[0] = sum + acc;
}

/* Template rows: thread per row, a slice of 32 consecutive rows per warp with one template (LEN
 * column offsets from the diagonal, read from shared memory as a broadcast); values as 6-bit ids,
 * 5 a 32-bit word, words column-major per slice (word w of the slice's row l at w·32 + l), each
 * id looked up in a lane-replicated dictionary; or (RAW) f64 values column-major. The ids or
 * values are read from global memory: they are the stream. */
#define TEMPLATES 16
template <bool RAW, int LEN>
__global__ void __launch_bounds__(THREADS, 3)
    templ(const int32_t *gtmpl, const double *gvals, const uint32_t *ids, const double *raw,
          const double *x, int64_t rows_per_thread, double *out) {
  constexpr int WORDS = (LEN + 4) / 5;
  extern __shared__ uint64_t smem64[];
  int32_t *tmpl = (int32_t *)(smem64 + RING_BYTES / 8);
  double *dict = (double *)(smem64 + RING_BYTES / 8 + TEMPLATES * LEN / 2 + 1);
  for (int i = threadIdx.x; i < TEMPLATES * LEN; i += blockDim.x) tmpl[i] = gtmpl[i];
  if (!RAW)
    for (int i = threadIdx.x; i < VALUES * 32; i += blockDim.x) dict[i] = gvals[i / 32];
  __syncthreads();
  const int lane = threadIdx.x % 32;
  const int64_t warps = (int64_t)gridDim.x * blockDim.x / 32;
  const int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int reach = LEN == 27 ? 160 * 160 + 161 : 4096;
  double sum = 0.0;
  for (int64_t r = 0; r < rows_per_thread; r++) {
    const int64_t g = warp + r * warps; /* this warp's slice */
    const int32_t *t = tmpl + (int)(g % TEMPLATES) * LEN;
    const int64_t row = (g * 32 + lane) % (X_LEN - 2 * reach) + reach;
    double rs = 0.0;
    if (RAW) {
      const double *val = raw + g * (32 * LEN) + lane;
#pragma unroll
      for (int j = 0; j < LEN; j++) rs += __ldcs(val + 32 * j) * x[row + t[j]];
    } else {
      const uint32_t *w = ids + g * (32 * WORDS) + lane;
#pragma unroll
      for (int q = 0; q < WORDS; q++) {
        const uint32_t word = __ldcs(w + 32 * q);
#pragma unroll
        for (int j = 0; j < 5 && 5 * q + j < LEN; j++)
          rs += dict[(word >> 6 * j & (VALUES - 1)) * 32 + lane] * x[row + t[5 * q + j]];
      }
    }
    sum += rs; /* y[row] would take it: the floor leaves y out, as the other variants do */
  }
  if (sum == 12345.0) out[0] = sum;
}

/* Packed rows: thread per row, a slice of 32 consecutive rows per warp. Each row's nonzeros are
 * fields of b bits (b per slice, at most 32) in its lane's bit stream, the lowest bits first and
 * straddling words; the lane's words sit column-major (word j of lane l at slice + 32 j + l), so
 * a warp reads 32 consecutive words. A field holds the value id in its low 6 bits (PV_DICT,
 * PV_SHFL) and the column step above them: the first nonzero's column is row + bias + step (bias
 * per slice), each next one previous + 1 + step. Raw values (PV_RAW) leave the id out and sit
 * position-major as template+raw's. Unlike the other new variants these read their stream,
 * row lengths and slice descriptors from memory and write y: they are a kernel without checks. */
enum { PV_DICT, PV_SHFL, PV_RAW };
struct pstream {
  const uint32_t *words;
  const int64_t *slice_word, *slice_raw; /* slice s: its words, its raw values (32 a position) */
  const uint32_t *slice_meta;            /* b | width << 8 */
  const int32_t *slice_bias;
  const uint8_t *len; /* nonzeros of each row */
  const double *raw;
  const double *x; /* the gathers' x: the pattern's columns */
  int64_t rows, slices, nnz;
};

template <bool X, int PV>
__global__ void __launch_bounds__(THREADS, 6) packed(pstream p, const double *gvals, double *y) {
  extern __shared__ uint64_t smem64[];
  double *dict = (double *)smem64; /* value v, lane l: v·32 + l */
  if (PV == PV_DICT) {
    for (int i = threadIdx.x; i < VALUES * 32; i += blockDim.x) dict[i] = gvals[i / 32];
    __syncthreads();
  }
  const int lane = threadIdx.x % 32;
  const double mine0 = gvals[lane], mine1 = gvals[lane + 32];
  const int lo0 = __double2loint(mine0), hi0 = __double2hiint(mine0);
  const int lo1 = __double2loint(mine1), hi1 = __double2hiint(mine1);
  const int64_t warps = (int64_t)gridDim.x * blockDim.x / 32;
  constexpr int VB = PV == PV_RAW ? 0 : 6;
  for (int64_t g = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; g < p.slices;
       g += warps) {
    const int64_t row = g * 32 + lane;
    const int n = row < p.rows ? p.len[row] : 0;
    const int64_t w0 = p.slice_word[g];
    const int nw = (int)((p.slice_word[g + 1] - w0) / 32);
    const uint32_t meta = p.slice_meta[g];
    const int b = (int)(meta & 63), width = (int)(meta >> 8);
    const uint32_t mask = (uint32_t)(0xffffffffull >> (32 - b));
    const uint32_t *w = p.words + w0 + lane;
    /* two words in the buffer, a third in flight: a field never waits on the load that fills it */
    uint64_t buf = (uint64_t)(nw > 0 ? __ldcs(w) : 0u) | (uint64_t)(nw > 1 ? __ldcs(w + 32) : 0u)
                                                             << 32;
    uint32_t next = nw > 2 ? __ldcs(w + 64) : 0u;
    int have = 64, j = 3;
    int64_t col = row + p.slice_bias[g] - 1;
    const double *rv = PV == PV_RAW ? p.raw + p.slice_raw[g] + lane : nullptr;
    double s = 0.0;
    for (int k = 0; k < width; k++) { /* the slice's width: the warp stays converged */
      const uint32_t f = (uint32_t)buf & mask;
      buf >>= b, have -= b;
      if (have <= 32) {
        buf |= (uint64_t)next << have, have += 32;
        next = j < nw ? __ldcs(w + 32 * j) : 0u;
        j++;
      }
      double v;
      if (PV == PV_RAW)
        v = __ldcs(rv + 32 * k);
      else if (PV == PV_DICT)
        v = dict[(f & (VALUES - 1)) * 32 + lane];
      else
        v = value64(lo0, hi0, lo1, hi1, f & (VALUES - 1));
      col += 1 + (f >> VB);
      if (k < n) s += v * (X ? p.x[col] : (double)(int32_t)col);
    }
    if (row < p.rows) y[row] = s;
  }
}

/* ---- packed rows' streams, built on the host ---------------------------------------------- */

enum { P_BAND, P_BAND_RAW, P_ER, P_RMAT, PATTERNS };

/* A row of the banded matrix (width 128: columns row − 64 … row + 64), 20 distinct columns */
static int band_row(int64_t r, int64_t rows, uint64_t st, int32_t *out) {
  const int64_t lo = std::max<int64_t>(0, r - 64), hi = std::min<int64_t>(rows - 1, r + 64);
  const int m = (int)(hi - lo + 1), k = std::min(20, m);
  bool pick[129] = {false};
  for (int got = 0; got < k;) {
    const int u = (int)(probe_splitmix(&st) % (uint64_t)m);
    if (!pick[u]) pick[u] = true, got++;
  }
  int n = 0;
  for (int u = 0; u < m; u++)
    if (pick[u]) out[n++] = (int32_t)(lo + u);
  return n;
}

/* Erdős–Rényi's and R-MAT's rows: the probe rows of probe_rows.h */
static int er_row(int64_t, int64_t, uint64_t st, int32_t *out) { return probe_row(0, st, out); }
static int rmat_row(int64_t, int64_t, uint64_t st, int32_t *out) { return probe_row(1, st, out); }

/* A row's columns: row, rows, seed, out; returns their count */
using row_fn = int (*)(int64_t, int64_t, uint64_t, int32_t *);

struct host_packed {
  std::vector<uint32_t> words, meta;
  std::vector<int64_t> sw{0}, sraw{0};
  std::vector<int32_t> bias;
  std::vector<uint8_t> len;
  int64_t nnz = 0;
};

/* The packed rows of `rows` rows whose columns row_cols gives, with value ids (vb = 6) or not */
static host_packed build_packed(int64_t rows, int vb, row_fn row_cols) {
  host_packed h;
  static int32_t c[32][64];
  int n[32];
  for (int64_t s = 0; s * 32 < rows; s++) {
    int width = 0;
    int64_t bias = INT64_MAX;
    for (int l = 0; l < 32; l++) {
      const int64_t r = s * 32 + l;
      n[l] = r < rows ? row_cols(r, rows, probe_row_seed(r), c[l]) : 0;
      if (r < rows) h.len.push_back((uint8_t)n[l]);
      if (n[l]) bias = std::min<int64_t>(bias, c[l][0] - r);
      width = std::max(width, n[l]), h.nnz += n[l];
    }
    if (bias == INT64_MAX) bias = 0;
    uint32_t any = 0; /* the OR of the slice's steps: its bit length is the largest's */
    for (int l = 0; l < 32; l++)
      for (int k = 0; k < n[l]; k++)
        any |= (uint32_t)(k ? c[l][k] - c[l][k - 1] - 1 : c[l][0] - (s * 32 + l) - bias);
    const int b = std::max(1, 32 - __builtin_clz(any | 1)) + vb;
    if (b > 32) fprintf(stderr, "zs-lookup-floor: a field of %d bits\n", b), exit(1);
    const int per_lane = (width * b + 31) / 32;
    const size_t base = h.words.size();
    h.words.resize(base + 32 * (size_t)per_lane);
    for (int l = 0; l < 32; l++)
      for (int k = 0, pos = 0; k < n[l]; k++, pos += b) {
        const uint64_t step =
            (uint64_t)(k ? c[l][k] - c[l][k - 1] - 1 : c[l][0] - (s * 32 + l) - bias);
        const uint64_t id = probe_value_id(s * 32 + l, k);
        const uint64_t f = (step << vb | (vb ? id : 0)) << (pos & 31);
        h.words[base + 32 * (size_t)(pos >> 5) + l] |= (uint32_t)f;
        if ((pos & 31) + b > 32)
          h.words[base + 32 * (size_t)(pos / 32 + 1) + l] |= (uint32_t)(f >> 32);
      }
    h.sw.push_back((int64_t)h.words.size());
    h.sraw.push_back(h.sraw.back() + 32 * width);
    h.meta.push_back((uint32_t)b | (uint32_t)width << 8);
    h.bias.push_back((int32_t)bias);
  }
  return h;
}

/* Decodes the first slices on the host as the kernel does and compares with the rows' columns:
 * the probe must time the stream it claims to */
static void check_packed(const host_packed &h, int64_t rows, int vb, row_fn row_cols) {
  int32_t want[64];
  for (int64_t s = 0; s < std::min<int64_t>(64, (int64_t)h.meta.size()); s++)
    for (int l = 0; l < 32 && s * 32 + l < rows; l++) {
      const int64_t r = s * 32 + l;
      const int n = row_cols(r, rows, probe_row_seed(r), want);
      const int b = (int)(h.meta[s] & 63), nw = (int)((h.sw[s + 1] - h.sw[s]) / 32);
      const uint32_t *w = h.words.data() + h.sw[s] + l;
      uint64_t buf = (uint64_t)(nw > 0 ? w[0] : 0u) | (uint64_t)(nw > 1 ? w[32] : 0u) << 32;
      uint32_t next = nw > 2 ? w[64] : 0u;
      int have = 64, j = 3;
      int64_t col = r + h.bias[s] - 1;
      for (int k = 0; k < n; k++) {
        const uint32_t f = (uint32_t)buf & (uint32_t)(0xffffffffull >> (32 - b));
        buf >>= b, have -= b;
        if (have <= 32)
          buf |= (uint64_t)next << have, have += 32, next = j < nw ? w[32 * j] : 0u, j++;
        col += 1 + (f >> vb);
        if (col != want[k] || n != h.len[r]) {
          fprintf(stderr, "zs-lookup-floor: packed row %lld, nonzero %d: %lld, not %d\n",
                  (long long)r, k, (long long)col, want[k]);
          exit(1);
        }
      }
    }
}

template <typename E>
static const E *upload(const std::vector<E> &v) {
  E *d;
  CHECK(cudaMalloc(&d, std::max<size_t>(1, v.size()) * sizeof(E)));
  CHECK(cudaMemcpy(d, v.data(), v.size() * sizeof(E), cudaMemcpyHostToDevice));
  return d;
}

static pstream upload_packed(const host_packed &h, int64_t rows, const double *x, bool raw) {
  pstream p{};
  p.words = upload(h.words), p.slice_word = upload(h.sw), p.slice_raw = upload(h.sraw);
  p.slice_meta = upload(h.meta), p.slice_bias = upload(h.bias), p.len = upload(h.len);
  p.x = x, p.rows = rows, p.slices = (int64_t)h.meta.size(), p.nnz = h.nnz;
  if (raw) {
    double *d;
    CHECK(cudaMalloc(&d, h.sraw.back() * sizeof(double)));
    CHECK(cudaMemset(d, 0x3f, h.sraw.back() * sizeof(double)));
    p.raw = d;
  }
  return p;
}

/* An FSE-style decode table of 2^log slots for nsym symbols, half of them three times as likely
 * as the other half: slot = base | bit count << 12 | symbol << 16, next state = base + bits. */
static std::vector<uint32_t> fse_table(int log, int nsym) {
  const uint32_t size = 1u << log, step = (size >> 1) + (size >> 3) + 3;
  std::vector<uint32_t> count(nsym), next(nsym), sym(size), t(size);
  for (int i = 0; i < nsym; i++) count[i] = size / nsym * (i % 2 ? 3 : 1) / 2;
  for (uint32_t i = 0, pos = 0; i < (uint32_t)nsym; i++) /* spread as FSE does */
    for (uint32_t n = 0; n < count[i]; n++) sym[pos] = i, pos = (pos + step) & (size - 1);
  for (int i = 0; i < nsym; i++) next[i] = count[i];
  for (uint32_t u = 0; u < size; u++) {
    const uint32_t xs = next[sym[u]]++;
    const int nb = log - (31 - __builtin_clz(xs)); /* xs << nb lands in [size, 2 size) */
    t[u] = ((xs << nb) - size) | (uint32_t)nb << 12 | sym[u] << 16;
  }
  return t;
}

struct ctx {
  const uint32_t *tab[LAYOUTS];
  const uint4 *wide;
  const int32_t *tmpl27, *tmpl5;
  const uint32_t *ids;
  const double *raw, *vals, *x;
  double *out;
  int sms;
  pstream pk[PATTERNS]; /* packed rows: band (ids, raw values), er, rmat */
  double *y;
};

/* Sets the kernel's shared memory; false where per_sm blocks of it do not fit a multiprocessor */
template <typename Kern>
static bool fits(Kern kernel, size_t smem, int per_sm) {
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  int n = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, THREADS, smem));
  return n >= per_sm;
}

/* A new variant at per_sm blocks a multiprocessor and about nnz nonzeros: false where it does not
 * fit; else its time in ms and the nonzeros it did */
using runner = bool (*)(const ctx &, int per_sm, int64_t nnz, float *ms, double *done);

template <int LAYOUT, int XM>
static bool run_chain(const ctx &c, int per_sm, int64_t nnz, float *ms, double *done) {
  const bool two = LAYOUT == L_SHFL2 || LAYOUT == L_LANE8X2;
  const size_t smem = RING_BYTES +
                      ((size_t)layout_copies[LAYOUT] << layout_log[LAYOUT]) * 4 * (two ? 2 : 1) +
                      (LAYOUT == L_DICT || LAYOUT == L_SHFL2 ? VALUES * 32 * sizeof(double) : 0);
  if (!fits(chain<LAYOUT, XM>, smem, per_sm)) return false;
  const int blocks = c.sms * per_sm;
  const int64_t threads = (int64_t)blocks * THREADS;
  const int64_t per = (nnz + 8 * threads - 1) / (8 * threads) * 8;
  *done = (double)per * threads;
  *ms = time_launch([&] {
    chain<LAYOUT, XM><<<blocks, THREADS, smem>>>(c.tab[LAYOUT], c.vals, c.x, per, c.out);
  });
  return true;
}

template <int XM>
static bool run_pair2(const ctx &c, int per_sm, int64_t nnz, float *ms, double *done) {
  const size_t smem = RING_BYTES + K * sizeof(uint4);
  if (!fits(pair2<XM>, smem, per_sm)) return false;
  const int blocks = c.sms * per_sm;
  const int64_t threads = (int64_t)blocks * THREADS;
  const int64_t per = (nnz + 8 * threads - 1) / (8 * threads) * 8;
  *done = (double)per * threads;
  *ms = time_launch([&] { pair2<XM><<<blocks, THREADS, smem>>>(c.wide, c.x, per, c.out); });
  return true;
}

/* Slices of 32 rows the template arrays hold: 2^27 nonzeros of 5-point rows */
#define TMPL_SLICES (((int64_t)1 << 27) / (5 * 32) + 1)

template <bool RAW, int LEN>
static bool run_templ(const ctx &c, int per_sm, int64_t nnz, float *ms, double *done) {
  const size_t smem = RING_BYTES + (TEMPLATES * LEN / 2 + 1) * 8 + (RAW ? 0 : VALUES * 32 * 8);
  if (!fits(templ<RAW, LEN>, smem, per_sm)) return false;
  const int blocks = c.sms * per_sm;
  const int64_t warps = (int64_t)blocks * THREADS / 32;
  int64_t rows = (nnz + LEN * 32 * warps - 1) / (LEN * 32 * warps); /* rows a thread */
  while (rows > 1 && rows * warps > TMPL_SLICES * 5 / LEN) rows--;  /* the arrays' size */
  *done = (double)rows * LEN * warps * 32;
  *ms = time_launch([&] {
    templ<RAW, LEN><<<blocks, THREADS, smem>>>(LEN == 27 ? c.tmpl27 : c.tmpl5, c.vals, c.ids, c.raw,
                                               c.x, rows, c.out);
  });
  return true;
}

template <bool X, int PV, int PAT>
static bool run_packed(const ctx &c, int per_sm, int64_t, float *ms, double *done) {
  const size_t smem = PV == PV_DICT ? VALUES * 32 * sizeof(double) : 0;
  if (!fits(packed<X, PV>, smem, per_sm)) return false;
  const int blocks = c.sms * per_sm;
  *done = (double)c.pk[PAT].nnz;
  *ms = time_launch([&] { packed<X, PV><<<blocks, THREADS, smem>>>(c.pk[PAT], c.vals, c.y); });
  return true;
}

struct variant {
  const char *name;
  runner run;
};
#define CHAIN(NAME, L)                                             \
  {NAME, run_chain<L, X_NONE>}, {NAME "+x", run_chain<L, X_LOCK>}, \
      {NAME "+rx2", run_chain<L, X_R2>}, {                         \
    NAME "+rmat", run_chain<L, X_RMAT>                             \
  }
static const variant news[] = {
    CHAIN("slot4+shfl", L_SHFL),
    CHAIN("slot4+shfl64", L_SHFL64),
    CHAIN("slot4+dict", L_DICT),
    CHAIN("rep-10", L_REP10),
    CHAIN("rep-11", L_REP11),
    CHAIN("lane-8", L_LANE8),
    CHAIN("lane-9", L_LANE9),
    CHAIN("slot4x2+dict", L_SHFL2),
    CHAIN("lane-8x2", L_LANE8X2),
    {"pair2", run_pair2<X_NONE>},
    {"pair2+x", run_pair2<X_LOCK>},
    {"template+ids", run_templ<false, 27>},
    {"template+raw", run_templ<true, 27>},
    {"template+ids5", run_templ<false, 5>},
    {"template+raw5", run_templ<true, 5>},
    {"packed-band", run_packed<false, PV_DICT, P_BAND>},
    {"packed-band+x", run_packed<true, PV_DICT, P_BAND>},
    {"packed-band+raw+x", run_packed<true, PV_RAW, P_BAND_RAW>},
    {"packed-er", run_packed<false, PV_DICT, P_ER>},
    {"packed-er+x", run_packed<true, PV_DICT, P_ER>},
    {"packed-er+shfl+x", run_packed<true, PV_SHFL, P_ER>},
    {"packed-rmat+x", run_packed<true, PV_DICT, P_RMAT>},
    {"packed-rmat+shfl+x", run_packed<true, PV_SHFL, P_RMAT>},
};

/* Fills the id words with a hash of their index (ids 0–63 all used) */
__global__ void fill_ids(uint32_t *ids, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    ids[i] = (uint32_t)(i * 2654435761u) ^ (uint32_t)(i >> 7) * 40503u;
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

  /* The new layouts' tables and streams */
  ctx c{};
  c.sms = sms, c.vals = d_vals, c.x = d_x, c.out = d_out;
  for (int l = 0; l < LAYOUTS; l++) {
    std::vector<uint32_t> t = fse_table(layout_log[l], layout_symbols[l]);
    if (l == L_SHFL2 || l == L_LANE8X2) { /* the value table after the delta table */
      const std::vector<uint32_t> v = fse_table(layout_log[l], VALUES);
      t.insert(t.end(), v.begin(), v.end());
    }
    uint32_t *d;
    CHECK(cudaMalloc(&d, t.size() * sizeof(uint32_t)));
    CHECK(cudaMemcpy(d, t.data(), t.size() * sizeof(uint32_t), cudaMemcpyHostToDevice));
    c.tab[l] = d;
  }
  { /* pair2: 3 slots in 4 decode two nonzeros */
    const std::vector<uint32_t> t = fse_table(12, 32);
    std::vector<uint4> w(K);
    for (uint32_t u = 0; u < K; u++) {
      const uint32_t sym = t[u] >> 16 & 63, two = (u * 2654435761u >> 9) % 4 != 0;
      const double v = vals[sym];
      uint32_t lo, hi;
      memcpy(&lo, &v, 4), memcpy(&hi, (const char *)&v + 4, 4);
      w[u] = make_uint4(t[u] | two << 22, sym % 27 | 1u << 16, lo, hi);
    }
    uint4 *d;
    CHECK(cudaMalloc(&d, K * sizeof(uint4)));
    CHECK(cudaMemcpy(d, w.data(), K * sizeof(uint4), cudaMemcpyHostToDevice));
    c.wide = d;
  }
  { /* templates: a 3-D 27-point stencil of n = 160 and a 2-D 5-point one of n = 4096 */
    std::vector<int32_t> t27, t5;
    for (int q = 0; q < TEMPLATES; q++) {
      for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
          for (int dx = -1; dx <= 1; dx++) t27.push_back(dz * 160 * 160 + dy * 160 + dx);
      for (int o : {-4096, -1, 0, 1, 4096}) t5.push_back(o);
    }
    int32_t *d27, *d5;
    CHECK(cudaMalloc(&d27, t27.size() * sizeof(int32_t)));
    CHECK(cudaMalloc(&d5, t5.size() * sizeof(int32_t)));
    CHECK(cudaMemcpy(d27, t27.data(), t27.size() * sizeof(int32_t), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d5, t5.data(), t5.size() * sizeof(int32_t), cudaMemcpyHostToDevice));
    c.tmpl27 = d27, c.tmpl5 = d5;
    const int64_t nids = TMPL_SLICES * 36, nraw = TMPL_SLICES * 5 * 32;
    uint32_t *ids;
    double *raw;
    CHECK(cudaMalloc(&ids, nids * sizeof(uint32_t)));
    CHECK(cudaMalloc(&raw, nraw * sizeof(double)));
    fill_ids<<<1024, 256>>>(ids, nids);
    CHECK(cudaGetLastError());
    CHECK(cudaMemset(raw, 0x3f, nraw * sizeof(double)));
    c.ids = ids, c.raw = raw;
  }

  { /* packed rows: the banded matrix's (x of its rows), Erdős–Rényi's and R-MAT's (x of X_LEN) */
    const int64_t band_rows = std::max<int64_t>(32, nnz / 20),
                  rows16 = std::max<int64_t>(32, nnz / 16);
    std::vector<double> xb(band_rows, 0.5);
    const double *d_xb = upload(xb);
    const struct {
      int pattern, vb;
      int64_t rows;
      row_fn cols;
      const double *x;
    } pats[PATTERNS] = {{P_BAND, 6, band_rows, band_row, d_xb},
                        {P_BAND_RAW, 0, band_rows, band_row, d_xb},
                        {P_ER, 6, rows16, er_row, d_x},
                        {P_RMAT, 6, rows16, rmat_row, d_x}};
    for (const auto &q : pats) {
      const host_packed h = build_packed(q.rows, q.vb, q.cols);
      check_packed(h, q.rows, q.vb, q.cols);
      c.pk[q.pattern] = upload_packed(h, q.rows, q.x, q.pattern == P_BAND_RAW);
      fprintf(stderr, "packed %d: %.2f bits a nonzero\n", q.pattern, 32.0 * h.words.size() / h.nnz);
    }
    CHECK(cudaMalloc(&c.y, std::max(band_rows, rows16) * sizeof(double)));
  }

  if (csv) { /* the device on stderr, so that the CSV stays the data file's */
    fprintf(stderr, "device %s, %d SMs, clock attribute %.0f MHz; %lld nonzeros\n", prop.name, sms,
            clock_khz / 1e3, (long long)nnz);
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
    for (const variant &v : news) {
      float ms;
      double did;
      if (!v.run(c, per_sm, nnz, &ms, &did)) continue; /* its shared memory lets fewer in */
      const double cycles = ms * 1e-3 * clock_khz * 1e3 * sms / (did / 32);
      printf(csv ? "%s,%d,%.1f,%.1f,%.2f\n" : "%-14s %6d %10.1f %14.1f %16.2f\n", v.name,
             csv ? per_sm : blocks, ms * 1e3, ms * 1e3 * 1e8 / did, cycles);
    }
  }
  return 0;
}
