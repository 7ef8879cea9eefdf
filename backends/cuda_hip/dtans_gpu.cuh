/* dtans_gpu.cuh — CSR-dtANS operators of the GPU modules (docs/formats/dtans.md): one warp
 * decodes a slice of 32 lanes in lockstep with the tables in shared memory (a 64-wide wavefront
 * decodes two slices). One unit of its own (backends/cuda/cuda_dtans.cu, backends/hip/hip_dtans.cpp). */
#include "backends/cuda_hip/csr_kernels.cuh"
#include "backends/cuda_hip/dtans5_gpu.h"
#include "backends/cuda_hip/gpu_common.cuh"
#include "formats/dtans/dtans5_layout.h"
#include "formats/dtans/dtans_layout.h"

namespace zs_gpu {
namespace {

/* The kernels' value path (template parameter VMODE): a dtans_value_mode (0 coded, 1 constant,
 * 2 raw, 3 joint), or joint pairs beside raw columns (column_mode raw), a path of its own: the
 * values come through the pair table and the columns from a plain array, read like raw values.
 * It is a kernel choice, not a mode of the stream. */
#define DT_JOINT_RAW_COLUMNS 4
#define ZS_DT_LANES 32
#define ZS_DT_THREADS 256
/* Blocks per multiprocessor the register budget is cut for: coded tables take 57 KiB of shared
 * memory, so 3 blocks fit; constant and raw ones 40 KiB, and a fourth block pays for raw values
 * (a quarter less time on the H100) while coded tables lose with it. Raw
 * values have a second kernel cut for 3 (80 registers instead of 64: the raw SpMV spills 112–124
 * bytes at 64), taken where it needs no more rounds of slices (dtans_launch, dtans_rounds). */
#define ZS_DT_MIN_BLOCKS(VMODE) ((VMODE) == 0 || (VMODE) >= 3 ? 3 : 4)
#define ZS_DT_SUBS (ZS_WARP_SIZE / ZS_DT_LANES)             /* slices per warp */
#define ZS_DT_DYNAMIC(VMODE) ((VMODE) == 0 || (VMODE) >= 3) /* slices from a ticket counter */
/* Raw values take tickets too where their slices need this many rounds of the 4-block kernel or
 * more (small lanes, e.g. lane_symbols=256): the last round is then a small part of the work
 * (13 % less time on the H100's random-valued 3-D stencil); and
 * where the encoder shrank them (guided): at a stride, a warp's small slices would not make up
 * for another's full ones. */
#define ZS_DT_RAW_DYNAMIC_ROUNDS 3

/* Device arrays of an operator, as the kernel reads them. Slot tables are rebuilt for the GPU
 * (dtans_gpu_tables): a delta slot is {meta, delta}, a value slot is meta (zs_dt_meta); with
 * joint pairs a delta slot's meta holds its pair's value id. */
struct zs_dt_args {
  const uint32_t *stream, *row_nnz, *vtab;
  const int32_t *row_perm; /* version 3: the matrix's row of each encoded row; NULL: the same */
  const uint2 *dtab;
  const int64_t *slice_words, *slice_desc, *slice_vesc, *slice_raw, *slice_rows;
  const int32_t *desc;
  const void *vsym, *vesc, *raw;
  int64_t slices;
  int vreal;
  /* Column slab of this pass: only nonzeros with col - col_lo < col_span (unsigned) gather x
   * (SpMV) or scatter into y (SpMVT); the whole matrix is one slab of span 2^32 - 1. */
  uint32_t col_lo, col_span;
  unsigned long long *tickets;    /* slice-group tickets: a counter that only grows */
  unsigned long long ticket_base; /* this launch's first ticket */
  int dynamic;                    /* slices from the tickets (always for ZS_DT_DYNAMIC modes) */
  /* ZS_DT_PAIR: z += alpha_t Aᵀ w beside the SpMV (z scaled by beta_t before) */
  const void *pair_w;
  void *pair_z;
  double pair_alpha;
};

/* PAIR: SPMV, and each decoded nonzero also scattered into z as SCATTER does (zs_spmv_pair) */
enum { ZS_DT_SPMV = 0, ZS_DT_SCATTER = 1, ZS_DT_WRITE = 2, ZS_DT_PAIR = 3 };
template <bool B>
struct zs_dt_bool {
  static constexpr bool value = B;
};

/* Lane exclusive prefix of v within its slice of 32 lanes; *total is the slice's sum. */
__device__ __forceinline__ int zs_dt_scan(int v, int l, int *total) {
  int inc = v;
  for (int d = 1; d < ZS_DT_LANES; d *= 2) {
    const int up = zs_shfl_up(inc, d);
    if (l >= d) inc += up;
  }
  *total = zs_shfl(inc, (int)(threadIdx.x % ZS_WARP_SIZE) | (ZS_DT_LANES - 1));
  return inc - v;
}

/* Slot metadata on the GPU: digit in bits 0–7, the escape flag in bit 8, a value id in
 * bits 9–20 (0 for escapes), the base (1 … 256) in bits 23–31: one instruction per field. */
#define ZS_DT_ESCAPE 0x100u
__host__ __device__ __forceinline__ uint32_t zs_dt_meta(uint32_t digit, uint32_t base, uint32_t id,
                                                        bool escape) {
  return digit | (escape ? ZS_DT_ESCAPE : 0u) | id << 9 | base << 23;
}
__device__ __forceinline__ uint32_t zs_dt_value_id(uint32_t m) { return m >> 9 & 0xfffu; }
__device__ __forceinline__ int zs_dt_escaped(uint32_t m) { return (int)(m >> 8 & 1u); }

/* A half (4 slots) enters the state: d·B + D and r·B with B = Π bases ≤ 2^32, carried as B − 1
 * (mod 2^32) so that 32-bit operands suffice; when r reaches 2^32 the low word of d is the
 * half's next word. */
__device__ __forceinline__ bool zs_dt_half(uint32_t m0, uint32_t m1, uint32_t m2, uint32_t m3,
                                           uint32_t &d, uint32_t &r, uint32_t &word) {
  const uint32_t b1 = m1 >> 23, b2 = m2 >> 23, b3 = m3 >> 23;
  const uint32_t D = (((m0 & 0xffu) * b1 + (m1 & 0xffu)) * b2 + (m2 & 0xffu)) * b3 + (m3 & 0xffu);
  const uint32_t bm1 = (m0 >> 23) * b1 * b2 * b3 - 1u;
  const uint64_t nd = (uint64_t)d * bm1 + d + D, nr = (uint64_t)r * bm1 + r;
  const bool ext = (nr >> 32) != 0;
  word = (uint32_t)nd;
  d = ext ? (uint32_t)(nd >> 32) : (uint32_t)nd;
  r = ext ? (uint32_t)(nr >> 32) : (uint32_t)nr;
  return ext;
}

/* Stream words staged per slice in shared memory: the slice's words are consumed in order, so a
 * batch of ZS_DT_BATCH words is loaded into registers a segment or more before it is stored to
 * the ring and read; the decode never waits on global memory for its stream. */
#define ZS_DT_RING 256
#define ZS_DT_BATCH 128
#define ZS_DT_SLICES_PER_BLOCK (ZS_DT_THREADS / ZS_DT_LANES)
/* Zero words after the stream: a slice's last batches read past it. */
#define ZS_DT_STREAM_PAD (2 * ZS_DT_RING)

/* MODE: SPMV (y = alpha A x + beta y), SCATTER (y += alpha Aᵀ x; y scaled by beta before) or
 * WRITE (the decoded CSR into out_col/out_val at row_ptr). VMODE: 0 coded, 1 constant, 2 raw,
 * 3 joint, 4 joint beside raw columns (a.raw holds the columns; pairs have delta 0). PERM: the
 * rows are encoded in another order (a.row_perm); a template parameter because the matrix's
 * row kept beside the encoded one costs the 64-register raw kernel spills (H100, random-valued
 * 3-D stencil f64: 8 % slower in natural order). WIN: a column slab
 * (a.col_lo, a.col_span) limits the gathers or scatters; a template parameter because the
 * test costs the few-valued 3-D stencil 3 % when every column is in (H100, f64 SpMV).
 * Offsets inside a slice are 32-bit (dtans_gpu_create checks the slices' sizes). BLOCKS: blocks
 * per multiprocessor the registers are cut for (ZS_DT_MIN_BLOCKS). */
template <typename T, int VMODE, int MODE, bool PERM, bool WIN, int BLOCKS>
__global__ void __launch_bounds__(ZS_DT_THREADS, BLOCKS)
    zs_dtans_kernel(const zs_dt_args a, T constant, const T *__restrict__ x, T *__restrict__ y,
                    T alpha, T beta, const int64_t *row_ptr, int32_t *out_col, T *out_val) {
  constexpr bool CODED = VMODE == DTANS_VALUES_CODED, RAW = VMODE == DTANS_VALUES_RAW;
  constexpr bool RAWCOL = VMODE == DT_JOINT_RAW_COLUMNS;
  constexpr bool JOINT = VMODE == DTANS_VALUES_JOINT || RAWCOL;
  constexpr bool PAIR = MODE == ZS_DT_PAIR, PRODUCT = MODE == ZS_DT_SPMV || PAIR; /* y = A x */
  constexpr bool VSYM = CODED || JOINT; /* values from a dictionary in shared memory */
  constexpr int PER = CODED ? 4 : 8;    /* nonzeros per segment */
  extern __shared__ uint64_t zs_dt_smem64[];
  uint2 *dtab = (uint2 *)zs_dt_smem64; /* first, at a fixed offset: immediate addressing */
  uint32_t *vtab = (uint32_t *)(dtab + DTANS_K);
  T *vsym = (T *)(vtab + (CODED ? DTANS_K : 0));
  uint32_t *ring_all = (uint32_t *)(vsym + (VSYM ? a.vreal : 0));
  for (int i = threadIdx.x; i < DTANS_K; i += blockDim.x) {
    dtab[i] = a.dtab[i];
    if (CODED) vtab[i] = a.vtab[i];
  }
  if (VSYM)
    for (int i = threadIdx.x; i < a.vreal; i += blockDim.x) vsym[i] = ((const T *)a.vsym)[i];
  __syncthreads();

  const int lane = threadIdx.x % ZS_WARP_SIZE, l = lane % ZS_DT_LANES, sub = lane / ZS_DT_LANES;
  uint32_t *ring = ring_all + (threadIdx.x / ZS_DT_LANES) * ZS_DT_RING;
  const zs_lane_mask lt = ((zs_lane_mask)1 << lane) - 1;
  const zs_lane_mask half = ZS_DT_SUBS == 1 ? ~(zs_lane_mask)0
                                            : (zs_lane_mask)0xffffffffu
                                                  << (ZS_DT_LANES * sub); /* my slice's lanes */
  const int64_t groups = (a.slices + ZS_DT_SUBS - 1) / ZS_DT_SUBS;
  /* Coded and joint values: warps take slice groups in order as they finish (the encoder makes
   * the last slices smaller, so they run out of work together); each warp takes one ticket per
   * group and one that ends its loop, so a launch uses groups + warps tickets (dtans_launch moves
   * the base on). Raw and constant values: a fixed stride, measured faster for them where their
   * equal slices fit one or two rounds (a.dynamic: raw slices that need more take tickets). */
  const int wpb = blockDim.x / ZS_WARP_SIZE;
  auto next_group = [&](int64_t g) {
    if (!ZS_DT_DYNAMIC(VMODE) && !(RAW && a.dynamic))
      return g < 0 ? (int64_t)blockIdx.x * wpb + threadIdx.x / ZS_WARP_SIZE
                   : g + (int64_t)gridDim.x * wpb;
    unsigned long long t = 0;
    if (lane == 0) t = atomicAdd(a.tickets, 1ull);
    return (int64_t)(zs_shfl(t, 0) - a.ticket_base);
  };
  for (int64_t g = next_group(-1); g < groups; g = next_group(g)) {
    const int64_t s = g * ZS_DT_SUBS + sub;
    const bool live = s < a.slices;
    const int32_t first = live ? (int32_t)a.slice_rows[s] + l : 0;
    const int32_t stop = live ? (int32_t)a.slice_rows[s + 1] : 0;
    const uint32_t *stream = a.stream + (live ? a.slice_words[s] : 0);
    const int32_t *desc = a.desc + (live ? a.slice_desc[s] : 0);
    /* joint: an escaped pair's value sits at its delta's place in value_escapes */
    const T *vesc = (const T *)a.vesc + (live && CODED   ? a.slice_vesc[s]
                                         : live && JOINT ? a.slice_desc[s]
                                                         : 0);
    const T *raw = (const T *)a.raw + (live && RAW ? a.slice_raw[s] : 0);
    const int32_t *raw_col = (const int32_t *)a.raw + (live && RAWCOL ? a.slice_raw[s] : 0);
    int32_t n = 0;
    for (int32_t i = first; i < stop; i += ZS_DT_LANES) n += dtans_coded_len(a.row_nnz[i]);
    const int32_t segs = (n + PER - 1) / PER;
    int32_t max_segs = segs, min_segs = segs;
    for (int o = ZS_WARP_SIZE / 2; o > 0; o /= 2) {
      max_segs = max(max_segs, zs_shfl_xor(max_segs, o));
      min_segs = min(min_segs, zs_shfl_xor(min_segs, o));
    }

    /* Ring: words [cur, fill) of the slice are staged; `batch` is in flight. */
    int32_t cur = 0, fill = 0;
    uint32_t batch[ZS_DT_BATCH / ZS_DT_LANES];
    auto issue = [&]() {
#pragma unroll
      for (int k = 0; k < ZS_DT_BATCH / ZS_DT_LANES; k++)
        batch[k] = zs_load_stream(stream + fill + l + ZS_DT_LANES * k);
    };
    auto land = [&]() {
      zs_syncwarp(); /* every lane has read the words this overwrites */
#pragma unroll
      for (int k = 0; k < ZS_DT_BATCH / ZS_DT_LANES; k++)
        ring[(fill + l + ZS_DT_LANES * k) & (ZS_DT_RING - 1)] = batch[k];
      fill += ZS_DT_BATCH;
      zs_syncwarp();
    };
    /* One load step: the lanes that need a word take consecutive words in lane order. */
    auto take = [&](bool need) {
      const zs_lane_mask m = zs_ballot(need) & half;
      const uint32_t w = ring[(cur + zs_popc(m & lt)) & (ZS_DT_RING - 1)];
      cur += zs_popc(m);
      return w;
    };
    auto take_all = [&]() { /* a step in which every lane takes a word */
                            const uint32_t w = ring[(cur + l) & (ZS_DT_RING - 1)];
                            cur += ZS_DT_LANES;
                            return w;
    };
    issue(), land(), issue(), land(), issue();
    uint32_t w0 = take(segs > 0), w1 = take(segs > 0), w2 = take(segs > 0);
    uint32_t d = 0, r = 1;

    /* The lane's rows: `row` has `left` nonzeros still to come; the next row's length is loaded
     * a row ahead. Rows without coded nonzeros are passed over (SpMV writes their y). */
    int32_t row = first - ZS_DT_LANES, left = 0, col = 0, nrow = first;
    int32_t orow = 0; /* PERM: the matrix's row of `row`, where y is written, x read, CSR placed */
    uint32_t nlen = first < stop ? a.row_nnz[first] : 0; /* as stored: DTANS_LONG marks long */
    int64_t at = 0;
    T sum = T(0), xr = T(0);
    /* SpMV: y of a coded row without nonzeros */
    auto no_nonzeros = [&](int32_t q) {
      if (PERM) q = a.row_perm[q];
      if (beta != T(1)) y[q] = beta == T(0) ? T(0) : beta * y[q];
    };
    auto next_row = [&]() {
      row = nrow, left = (int32_t)dtans_coded_len(nlen);
      while (left == 0) {
        if (PRODUCT && nlen != DTANS_LONG) no_nonzeros(row);
        row += ZS_DT_LANES, nlen = a.row_nnz[row], left = (int32_t)dtans_coded_len(nlen);
      }
      nrow = row + ZS_DT_LANES;
      nlen = nrow < stop ? a.row_nnz[nrow] : 0;
      col = row;
      if (PERM) orow = a.row_perm[row];
      if (MODE == ZS_DT_SCATTER) xr = alpha * x[PERM ? orow : row];
      if (MODE == ZS_DT_WRITE) at = row_ptr[PERM ? orow : row];
    };

    /* Raw values and raw columns of a segment step (dtans_raw_step): this lane's i-th at
     * *off + i * *rs from the slice's cursor, which moves on by the returned count. A step in which
     * every lane with a segment has a full one is position-major (rs = its lanes: each load is
     * coalesced), any other lane-major. */
    auto raw_step = [&](bool full_step, int todo, int *off, int *rs) {
      if (full_step) { /* every lane of the warp: a full step */
        *rs = ZS_DT_LANES, *off = l;
        return PER * ZS_DT_LANES;
      }
      const zs_lane_mask act = zs_ballot(todo > 0) & half;
      const zs_lane_mask partial = zs_ballot(todo > 0 && todo < PER);
      int total;
      *rs = 1;
      if (partial == 0) { /* every slice of the warp: a full step */
        *rs = zs_popc(act), *off = zs_popc(act & lt), total = PER * *rs;
      } else { /* two slices per wavefront: each has its own kind of step */
        *off = zs_dt_scan(todo, l, &total);
        if ((partial & half) == 0) *rs = zs_popc(act), *off = zs_popc(act & lt);
      }
      return total;
    };
    const bool has_beta = beta != T(0);
    /* Segment t. FULL: every lane of the warp decodes PER nonzeros and has a segment after
     * this one (most segments of a slice), so no lane-dependent bounds and an unconditional
     * last load step. */
    auto segment = [&](int32_t t, auto full) {
      constexpr bool FULL = decltype(full)::value;
      const int32_t rem = n - t * PER;
      const int todo = FULL ? PER : rem < 0 ? 0 : rem < PER ? rem : PER;
      /* Raw columns are loaded first: the table lookups below hide their latency. */
      int32_t rc[RAWCOL ? PER : 1];
      if (RAWCOL) {
        int off, rs;
        const int total = raw_step(FULL, todo, &off, &rs);
#pragma unroll
        for (int i = 0; i < PER; i++) rc[i] = i < todo ? zs_load_stream(raw_col + off + i * rs) : 0;
        raw_col += total;
      }
      /* (a) Slots and their table entries. */
      uint32_t slot[8];
#pragma unroll
      for (int k = 0; k < 8; k++) slot[k] = dtans_unpack(w0, w1, w2, k);
      uint32_t meta[8], esc = 0;
      int32_t dl[PER];
      T v[PER];
#pragma unroll
      for (int i = 0; i < PER; i++) {
        const uint2 e = dtab[slot[CODED ? 2 * i : i]];
        meta[CODED ? 2 * i : i] = e.x, dl[i] = (int32_t)e.y;
        if (CODED) meta[2 * i + 1] = vtab[slot[2 * i + 1]];
        if (i < todo) esc |= e.x | (CODED ? meta[2 * i + 1] : 0u);
        if (VSYM) v[i] = vsym[zs_dt_value_id(meta[CODED ? 2 * i + 1 : i])];
        if (VMODE == 1) v[i] = constant;
      }

      /* (b) Escapes (rare) and raw values: this segment's, lanes in order, positions in order. */
      if (zs_ballot((esc & ZS_DT_ESCAPE) != 0)) {
        int nd = 0, nv = 0, total;
#pragma unroll
        for (int i = 0; i < PER; i++)
          if (i < todo) {
            nd += zs_dt_escaped(meta[CODED ? 2 * i : i]);
            if (CODED) nv += zs_dt_escaped(meta[2 * i + 1]);
          }
        int dp = zs_dt_scan(nd, l, &total);
        const int32_t *dq = desc;
        const T *jq = vesc; /* joint: the escaped pairs' values, beside dq */
        desc += total;
        if (JOINT) vesc += total;
        int vp = CODED ? zs_dt_scan(nv, l, &total) : 0;
        const T *vq = vesc;
        if (CODED) vesc += total;
#pragma unroll
        for (int i = 0; i < PER; i++)
          if (i < todo) {
            if (zs_dt_escaped(meta[CODED ? 2 * i : i])) {
              if (JOINT) v[i] = jq[dp];
              if (!RAWCOL) dl[i] = dq[dp]; /* raw columns: an escaped pair has its value alone */
              dp++;
            }
            if (CODED && zs_dt_escaped(meta[2 * i + 1])) v[i] = vq[vp++];
          }
      }
      /* Raw values, loaded with the gathers (fewer registers live): value i of this lane's
       * segment is rv[i * rs]. */
      const T *rv = raw;
      int rs = 1;
      if (RAW) {
        int off;
        const int total = raw_step(FULL, todo, &off, &rs);
        rv = raw + off, raw += total;
      }

      /* (c) Columns and rows of the segment's nonzeros; row ends marked in `fin`. Past `todo`
       * (a lane's last segment) the columns are junk and nothing is marked or loaded. */
      int32_t c[PER], rw[PRODUCT ? PER : 1];
      int64_t ats[MODE == ZS_DT_WRITE ? PER : 1];
      unsigned fin = 0;
#pragma unroll
      for (int i = 0; i < PER; i++) {
        const bool ok = i < todo;
        if (ok && left == 0) next_row();
        if (RAWCOL) {
          c[i] = rc[i];
        } else {
          col += dl[i];
          c[i] = col;
        }
        if (PRODUCT) rw[i] = PERM ? orow : row;
        if (MODE == ZS_DT_WRITE) ats[i] = at, at += ok;
        if (MODE == ZS_DT_SCATTER)
          v[i] = (RAW ? (ok ? zs_load_stream(rv + i * rs) : T(0)) : v[i]) * xr;
        left -= ok;
        fin |= ok && left == 0 ? 1u << i : 0u;
      }
      /* (d) The gathers go out now; the state update below runs while they are in flight. */
      constexpr int CH = (RAW || JOINT) && sizeof(T) == 8 ? 4 : PER; /* f64: 16 doubles not live */
      /* The raw kernel cut for 3 blocks has the registers to issue the second chunk before the
       * first chunk's products instead of after them (6 % faster on the H100's banded matrix);
       * the 4-block kernel spilled and the joint kernel lost with it (docs/performance.md). */
      constexpr bool EARLY = RAW && BLOCKS == 3 && CH < PER;
      T xv[PER];
      /* x (and raw values) of the nonzeros from .. from + CH - 1 */
      auto gather = [&](int from) {
#pragma unroll
        for (int k = from; k < from + CH; k++) {
          const bool in = k < todo && (!WIN || (uint32_t)(c[k] - (int32_t)a.col_lo) < a.col_span);
          xv[k] = in ? x[c[k]] : T(0);
          if (RAW) v[k] = in ? zs_load_stream(rv + k * rs) : T(0);
        }
      };
      if (PRODUCT) gather(0);

      /* (e) Words of the next segment: from the state where it yields them, else the stream. */
      const bool more = FULL || t + 1 < segs;
      uint32_t s0, s1;
      const bool e0 = zs_dt_half(meta[0], meta[1], meta[2], meta[3], d, r, s0);
      const bool e1 = zs_dt_half(meta[4], meta[5], meta[6], meta[7], d, r, s1);
      const uint32_t l0 = take(more && !e0), l1 = take(more && !e1);
      const uint32_t l2 = FULL ? take_all() : take(more);
      w0 = e0 ? s0 : l0, w1 = e1 ? s1 : l1, w2 = l2;
      if (fill - cur <= ZS_DT_BATCH) land(), issue();
      if (EARLY && PRODUCT)
#pragma unroll
        for (int k = CH; k < PER; k += CH) gather(k);

      /* (f) The products, in row order. */
      if (PRODUCT) {
        const T *pw = (const T *)a.pair_w;
        T *pz = (T *)a.pair_z;
#pragma unroll
        for (int i = 0; i < PER; i++) {
          if (!EARLY && i >= CH && i % CH == 0) gather(i);
          sum += v[i] * xv[i]; /* past todo only after the lane's last row: never stored */
          /* the nonzero's z: at x's column, w at y's row (gather's test, as SCATTER's) */
          if (PAIR && i < todo && (!WIN || (uint32_t)(c[i] - (int32_t)a.col_lo) < a.col_span))
            atomicAdd(&pz[c[i]], v[i] * (T(a.pair_alpha) * pw[rw[i]]));
          if (fin >> i & 1) {
            T out = alpha * sum;
            if (has_beta) out += beta * y[rw[i]];
            y[rw[i]] = out;
            sum = T(0);
          }
        }
      } else if (MODE == ZS_DT_SCATTER) {
#pragma unroll
        for (int i = 0; i < PER; i++)
          if (i < todo && (!WIN || (uint32_t)(c[i] - (int32_t)a.col_lo) < a.col_span))
            atomicAdd(&y[c[i]], v[i]);
      } else {
#pragma unroll
        for (int i = 0; i < PER; i++)
          if (i < todo) out_col[ats[i]] = c[i];
#pragma unroll
        for (int i = 0; i < PER; i++) /* out_val NULL: the columns alone */
          if (i < todo && out_val) out_val[ats[i]] = RAW ? zs_load_stream(rv + i * rs) : v[i];
      }
    };
    int32_t t = 0;
    for (; t + 1 < min_segs; t++) segment(t, zs_dt_bool<true>());
    for (; t < max_segs; t++) segment(t, zs_dt_bool<false>());
    /* The lane's rows after its last nonzero have none: their y. */
    if (PRODUCT)
      for (int32_t q = row + ZS_DT_LANES; q < stop; q += ZS_DT_LANES)
        if (a.row_nnz[q] != DTANS_LONG) no_nonzeros(q);
    zs_syncwarp();
  }
}

/* Long rows (plain CSR, few but long: an R-MAT hub holds 10^5 nonzeros) in chunks of
 * ZS_DT_CHUNK nonzeros, a block each: SpMV leaves one partial per chunk, which the fix-up adds in
 * chunk order (deterministic); SpMVT scatters, the CSR copy writes. */
#define ZS_DT_CHUNK 4096
#define ZS_DT_CHUNK_THREADS 256

template <typename T, int MODE>
__global__ void __launch_bounds__(ZS_DT_CHUNK_THREADS)
    zs_dtans_long_kernel(int64_t n_chunks, const int32_t *chunk_long, const int64_t *chunk_ptr,
                         const int32_t *rows, const int64_t *ptr, const int32_t *cols,
                         const T *vals, const T *__restrict__ x, T *__restrict__ y, T alpha,
                         T *partial, const int64_t *row_ptr, int32_t *out_col, T *out_val) {
  __shared__ T red[ZS_DT_CHUNK_THREADS];
  for (int64_t c = blockIdx.x; c < n_chunks; c += gridDim.x) {
    const int32_t k = chunk_long[c], r = rows[k];
    const int64_t b = ptr[k] + (c - chunk_ptr[k]) * ZS_DT_CHUNK;
    const int64_t e = b + ZS_DT_CHUNK < ptr[k + 1] ? b + ZS_DT_CHUNK : ptr[k + 1];
    T sum = T(0);
    for (int64_t j = b + threadIdx.x; j < e; j += ZS_DT_CHUNK_THREADS) {
      if (MODE == ZS_DT_SPMV)
        sum += vals[j] * x[cols[j]];
      else if (MODE == ZS_DT_SCATTER)
        atomicAdd(&y[cols[j]], alpha * (vals[j] * x[r]));
      else {
        const int64_t at = row_ptr[r] + j - ptr[k];
        out_col[at] = cols[j];
        if (out_val) out_val[at] = vals[j];
      }
    }
    if (MODE == ZS_DT_SPMV) {
      red[threadIdx.x] = sum;
      __syncthreads();
      for (int w = ZS_DT_CHUNK_THREADS / 2; w > 0; w /= 2) {
        if (threadIdx.x < w) red[threadIdx.x] += red[threadIdx.x + w];
        __syncthreads();
      }
      if (threadIdx.x == 0) partial[c] = red[0];
      __syncthreads();
    }
  }
}

template <typename T>
__global__ void zs_dtans_long_fixup(int64_t n_long, const int32_t *rows, const int64_t *chunk_ptr,
                                    const T *partial, T *y, T alpha, T beta) {
  for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n_long;
       k += (int64_t)gridDim.x * blockDim.x) {
    T sum = T(0);
    for (int64_t c = chunk_ptr[k]; c < chunk_ptr[k + 1]; c++) sum += partial[c];
    const int32_t r = rows[k];
    y[r] = beta == T(0) ? alpha * sum : alpha * sum + beta * y[r];
  }
}

struct dtans_gpu_op {
  const gpu_device *dev; /* its context's device */
  zs_type type;
  int vmode; /* the kernels' value path: a dtans_value_mode, or DT_JOINT_RAW_COLUMNS */
  int dreal, vreal;
  int64_t rows, cols, nnz, slices;
  bool atomic;
  double constant;
  uint32_t *stream, *row_nnz, *vtab;
  uint2 *dtab;
  int64_t *slice_words, *slice_desc, *slice_vesc, *slice_raw, *slice_rows;
  int32_t *desc;
  void *vsym, *vesc, *raw;
  int64_t n_long, n_chunks;
  int32_t *long_rows, *long_cols, *chunk_long; /* chunk c belongs to long row chunk_long[c] */
  int32_t *row_perm;  /* version 3: the matrix's row of each encoded row (long_rows mapped) */
  int32_t *col_perm;  /* version 4: the matrix's column of each encoded column; else NULL */
  void *xs, *ys;      /* version 4: x and SpMVT's y (the pair's z) by encoded column */
  int64_t *chunk_ptr; /* long row k: chunks [chunk_ptr[k], [k + 1]) */
  void *partial;
  int64_t *long_ptr;
  void *long_values;
  size_t smem;
  occupancy_memo occupancy; /* of the kernels it has launched */
  int64_t *host_row_ptr; /* kept for the deterministic SpMVT's CSR (NULL with transpose=atomic) */
  unsigned long long *tickets; /* the kernel's slice-group counter (zs_dt_args) */
  unsigned long long ticket_base;
  int slabs; /* column slabs: x (SpMV) or y (atomic SpMVT) in passes */
  /* raw values: the kernel and the slices' order, forced by options (else 0) */
  raw_choice raw_kernel;
  bool guided;   /* the encoder shrank the slices (parameter guided): raw ones take tickets */
  bool far;      /* rows gather x at random (dtans_far_deltas) */
  gpu_op *t_csr; /* Aᵀ as CSR, built on the first deterministic SpMVT */
  /* zs_spmv_pair's SpMVT operands for the ZS_DT_PAIR launches (dtans_pair_typed) */
  const void *pair_w;
  void *pair_z;
  double pair_alpha;
  void *v5; /* version 5 (template rows): its own operator (dtans5_gpu.h), nothing else here */
};

void dtans_gpu_destroy(void *state) {
  dtans_gpu_op *op = (dtans_gpu_op *)state;
  if (!op) return;
  dtans5_gpu_destroy(op->v5);
  void *p[] = {op->stream,      op->row_nnz,    op->dtab,       op->vtab,      op->slice_words,
               op->slice_desc,  op->slice_vesc, op->slice_raw,  op->desc,      op->vsym,
               op->vesc,        op->raw,        op->long_rows,  op->long_cols, op->long_ptr,
               op->long_values, op->slice_rows, op->chunk_long, op->chunk_ptr, op->partial,
               op->tickets,     op->row_perm,   op->col_perm,   op->xs,        op->ys};
  for (void *q : p) release(q);
  csr_op_free(op->t_csr);
  free(op->host_row_ptr);
  free(op);
}

/* `count` elements of `size` bytes from the blob to the device (nothing for none). */
zs_status dtans_upload(void **dst, const void *src, uint64_t count, size_t size, const char *name) {
  *dst = NULL;
  if (count == 0) return ZS_OK;
  const size_t bytes = (size_t)count * size;
  zs_status s = check(gpuMalloc(dst, bytes), name);
  if (s == ZS_OK) s = check(gpuMemcpy(*dst, src, bytes, gpuMemcpyHostToDevice), name);
  return s;
}

/* The GPU's slot tables (zs_dt_args): the delta itself beside each delta slot's meta, so a
 * delta costs one shared-memory load; value slots keep the id of their symbol. */
zs_status dtans_gpu_tables(dtans_gpu_op *op, const dtans_layout *L) {
  uint32_t words[DTANS_K];
  uint2 *entries = (uint2 *)malloc(DTANS_K * sizeof(uint2)); /* 32 KiB: not on the stack */
  if (!entries) return fail(ZS_ERR_OUT_OF_MEMORY, "dtans delta table (%d entries)", DTANS_K);
  dtans_table_words(L->delta_counts, L->delta_entries, words);
  const int32_t *sym = L->delta_symbols;
  const uint16_t *pv = L->pair_values; /* joint pairs only, else NULL */
  for (int k = 0; k < DTANS_K; k++) {
    const int id = (int)(words[k] >> 16);
    const uint32_t value_id = pv && id < op->dreal ? pv[id] : 0u;
    entries[k].x =
        zs_dt_meta(words[k] & 0xffu, (words[k] >> 8 & 0xffu) + 1, value_id, id >= op->dreal);
    entries[k].y = id < op->dreal ? (uint32_t)sym[id] : 0u;
  }
  zs_status s = upload_array(&op->dtab, entries, DTANS_K, "dtans delta table");
  free(entries);
  if (s != ZS_OK || op->vmode != DTANS_VALUES_CODED) return s;
  dtans_table_words(L->value_counts, L->value_entries, words);
  for (int k = 0; k < DTANS_K; k++) {
    const uint32_t id = words[k] >> 16;
    const bool escape = (int)id >= op->vreal; /* escapes read value 0, then their own */
    words[k] = zs_dt_meta(words[k] & 0xffu, (words[k] >> 8 & 0xffu) + 1, escape ? 0 : id, escape);
  }
  return upload_array(&op->vtab, words, DTANS_K, "dtans value table");
}

/* The stream with ZS_DT_STREAM_PAD zero words after it (the ring's batches read ahead). */
zs_status dtans_upload_stream(dtans_gpu_op *op, const dtans_layout *L) {
  const size_t bytes = (size_t)L->stream_words * 4, padded = bytes + 4 * ZS_DT_STREAM_PAD;
  zs_status s = check(gpuMalloc((void **)&op->stream, padded), "dtans stream");
  if (s == ZS_OK) s = check(gpuMemset(op->stream, 0, padded), "dtans stream");
  if (s == ZS_OK && bytes)
    s = check(gpuMemcpy(op->stream, L->stream, bytes, gpuMemcpyHostToDevice), "dtans stream");
  return s;
}

/* The kernel keeps offsets inside a slice (words, escapes, raw values) and row numbers in 32
 * bits: refuse, naming the limit, a blob whose slices are larger. */
zs_status dtans_check_sizes(const dtans_gpu_op *op, const dtans_layout *L,
                            const int64_t *raw_start) {
  const int64_t lim = INT32_MAX - 2 * ZS_DT_STREAM_PAD;
  if (op->rows > lim)
    return fail(ZS_ERR_UNSUPPORTED,
                "backend '%s': dtans with %lld rows (the GPU kernel takes < 2^31)",
                ZS_GPU_BACKEND_NAME, (long long)op->rows);
  const char *names[] = {"slice_words", "slice_delta_escapes", "slice_value_escapes"};
  const int64_t *offsets[] = {L->slice_words, L->slice_delta_esc, L->slice_value_esc};
  const char *raw = op->vmode == DT_JOINT_RAW_COLUMNS ? "columns" : "values"; /* raw_start's */
  for (int k = 0; k < 4; k++) {
    const int64_t *off = k < 3 ? offsets[k] : raw_start;
    for (int64_t s = 0; off && s < op->slices; s++)
      if (off[s + 1] - off[s] > lim)
        return fail(ZS_ERR_UNSUPPORTED,
                    "backend '%s': dtans slice %lld holds %lld entries of %s (the GPU kernel takes "
                    "< 2^31 per slice; encode with a smaller lane_symbols)",
                    ZS_GPU_BACKEND_NAME, (long long)s, (long long)(off[s + 1] - off[s]),
                    k < 3 ? names[k] : raw);
  }
  return ZS_OK;
}

int dtans_slab_count(dtans_gpu_op *op, int forced, bool far);

/* Whether at least a quarter of the table's probability is on column deltas over 64 or the
 * escape (which takes the deltas too large or too rare for the table): rows that gather x at
 * random, for which column slabs are worth a look. Stencil and banded rows step by a few
 * columns. */
bool dtans_far_deltas(const dtans_layout *L) {
  const uint16_t *count = L->delta_counts;
  const int32_t *sym = L->delta_symbols;
  const int dreal = L->delta_real;
  uint64_t far = 0, all = 0;
  const bool escape = L->delta_escape != 0;
  for (int64_t j = 0; j < (int64_t)L->delta_entries; j++) {
    /* fillers (ids past the symbols and the escape) never occur: not probability */
    if (j < dreal) {
      all += count[j], far += sym[j] > 64 || sym[j] < -64 ? count[j] : 0u;
    } else if (j == dreal && escape) {
      all += count[j], far += count[j];
    }
  }
  return all > 0 && 4 * far >= all;
}

zs_status dtans_gpu_create(const gpu_device *dev, void **state, const zsb_encoded_view *v,
                           const char *options) {
  if (dtans_view_version(v) == DTANS_VERSION_TEMPLATES) {
    dtans_gpu_op *op = (dtans_gpu_op *)calloc(1, sizeof(dtans_gpu_op));
    if (!op) return fail(ZS_ERR_OUT_OF_MEMORY, "dtans operator");
    const zs_status s = dtans5_gpu_create(dev, &op->v5, v, options);
    if (s != ZS_OK) {
      free(op);
      return s;
    }
    *state = op;
    return ZS_OK;
  }
  bool atomic = false;
  int items = 0, slabs = 0; /* block_nnz does not apply to CSR-dtANS: items stays 0 */
  raw_choice raw = {0, 0};
  read_options(options, &atomic, &items, &slabs, &raw);
  dtans_layout L; /* the blob, typed, read as the reference decoder and the cpu read it */
  char why[256];
  zs_status s = dtans_layout_parse(v, &L, why, sizeof why);
  if (s != ZS_OK) return fail(s, "backend '%s': %s", ZS_GPU_BACKEND_NAME, why);
  dtans_gpu_op *op = (dtans_gpu_op *)calloc(1, sizeof(dtans_gpu_op));
  if (!op) return fail(ZS_ERR_OUT_OF_MEMORY, "dtans operator");
  op->dev = dev;
  op->raw_kernel = raw;
  op->type = v->type, op->rows = v->rows, op->cols = v->cols, op->nnz = v->nnz;
  op->atomic = atomic;
  op->slabs = 1; /* until the stream is on the device (dtans_slab_count) */
  op->slices = L.slices;
  op->guided = L.guided > 0;
  op->vmode = L.column_mode == DTANS_COLUMNS_RAW ? DT_JOINT_RAW_COLUMNS : (int)L.value_mode;
  op->dreal = L.delta_real;
  op->vreal = L.value_real;
  const size_t es = type_size(v->type);
  op->smem = 4 * (size_t)ZS_DT_SLICES_PER_BLOCK * ZS_DT_RING + sizeof(uint2) * DTANS_K;
  if (op->vmode == DTANS_VALUES_CODED) op->smem += 4 * DTANS_K + es * (size_t)op->vreal;
  if (op->vmode >= DTANS_VALUES_JOINT) op->smem += es * (size_t)op->vreal;
  if (op->smem > dev->smem_optin) {
    dtans_gpu_destroy(op);
    return fail(ZS_ERR_UNSUPPORTED,
                "backend '%s': dtans tables need %zu bytes of shared memory, the device allows "
                "%zu per block",
                ZS_GPU_BACKEND_NAME, op->smem, dev->smem_optin);
  }
  /* Row lengths, widened to 4 bytes when the blob holds 1 or 2 a row: the kernels read them as
   * u32, since a width chosen at run time cost the decode-bound kernels 2-19 % on the H100
   * (docs/performance.md, "Tried and dropped"). */
  uint32_t *row_nnz = (uint32_t *)malloc(((size_t)op->rows + 1) * sizeof(uint32_t));
  int64_t *row_ptr = (int64_t *)malloc(((size_t)op->rows + 1) * sizeof(int64_t));
  if (!row_ptr || !row_nnz) s = fail(ZS_ERR_OUT_OF_MEMORY, "dtans row offsets");
  if (s == ZS_OK) dtans_row_nnz_widen(L.row_nnz, L.row_nnz_bytes, op->rows, row_nnz);
  const int64_t *lptr = L.long_ptr;
  /* Version 3: rows are encoded in another order; y, x and the decoded CSR keep the matrix's. */
  const int32_t *perm = L.row_perm;
  if (s == ZS_OK) dtans_matrix_row_ptr(row_nnz, 4, lptr, perm, op->rows, row_ptr);
  /* Coded nonzeros before each slice: where its raw values start, and its size. */
  int64_t *coded_before = (int64_t *)malloc(((size_t)op->slices + 1) * sizeof(int64_t));
  if (!coded_before) s = fail(ZS_ERR_OUT_OF_MEMORY, "dtans slice offsets");
  if (s == ZS_OK) dtans_coded_before_slices(row_nnz, 4, L.slice_rows, op->slices, coded_before);
  if (s == ZS_OK) s = dtans_check_sizes(op, &L, coded_before);
  if (s == ZS_OK) s = dtans_upload_stream(op, &L);
  if (s == ZS_OK) s = check(gpuMalloc((void **)&op->tickets, sizeof *op->tickets), "dtans tickets");
  if (s == ZS_OK) s = check(gpuMemset(op->tickets, 0, sizeof *op->tickets), "dtans tickets");
  if (s == ZS_OK) s = upload_array(&op->row_nnz, row_nnz, (uint64_t)op->rows, "row_nnz");
  free(row_nnz);
  const uint64_t sl = (uint64_t)op->slices + 1;
  if (s == ZS_OK) s = dtans_upload((void **)&op->slice_words, L.slice_words, sl, 8, "slice_words");
  if (s == ZS_OK) s = dtans_upload((void **)&op->slice_rows, L.slice_rows, sl, 8, "slice_rows");
  if (s == ZS_OK)
    s = dtans_upload((void **)&op->slice_desc, L.slice_delta_esc, sl, 8, "slice_delta_escapes");
  if (s == ZS_OK)
    s = dtans_upload((void **)&op->desc, L.delta_escapes, L.n_delta_escapes, 4, "delta_escapes");
  if (s == ZS_OK) s = dtans_gpu_tables(op, &L);
  if (s == ZS_OK && perm) s = upload_array(&op->row_perm, perm, (uint64_t)op->rows, "row_perm");
  /* Version 4: every column on the device is an encoded one; apply and pair copy x, and SpMVT's
   * y, through col_perm into xs and ys and back (dtans_apply_typed). */
  const int32_t *cperm = L.col_perm;
  if (s == ZS_OK && cperm) s = upload_array(&op->col_perm, cperm, (uint64_t)op->cols, "col_perm");
  if (s == ZS_OK && cperm) s = check(gpuMalloc(&op->xs, (size_t)op->cols * es), "dtans x copy");
  if (s == ZS_OK && cperm) s = check(gpuMalloc(&op->ys, (size_t)op->cols * es), "dtans y copy");
  if (s == ZS_OK && perm) { /* long rows by the matrix's row at once */
    int32_t *mapped = (int32_t *)malloc((size_t)(L.n_long ? L.n_long : 1) * sizeof(int32_t));
    if (!mapped) s = fail(ZS_ERR_OUT_OF_MEMORY, "dtans long rows");
    for (int64_t k = 0; s == ZS_OK && k < L.n_long; k++) mapped[k] = perm[L.long_rows[k]];
    if (s == ZS_OK) s = upload_array(&op->long_rows, mapped, (uint64_t)L.n_long, "long_rows");
    free(mapped);
  } else if (s == ZS_OK) {
    s = dtans_upload((void **)&op->long_rows, L.long_rows, (uint64_t)L.n_long, 4, "long_rows");
  }
  if (s == ZS_OK)
    s = dtans_upload((void **)&op->long_ptr, L.long_ptr, (uint64_t)L.n_long + 1, 8, "long_ptr");
  if (s == ZS_OK)
    s = dtans_upload((void **)&op->long_cols, L.long_cols, L.long_nnz, 4, "long_cols");
  if (s == ZS_OK) s = dtans_upload(&op->long_values, L.long_values, L.long_nnz, es, "long_values");
  op->n_long = L.n_long;
  if (s == ZS_OK && op->n_long > 0) {
    int64_t *cptr = (int64_t *)malloc(((size_t)op->n_long + 1) * sizeof(int64_t));
    if (!cptr) s = fail(ZS_ERR_OUT_OF_MEMORY, "dtans long-row chunks");
    for (int64_t k = 0; s == ZS_OK && k <= op->n_long; k++)
      cptr[k] = k ? cptr[k - 1] + (lptr[k] - lptr[k - 1] + ZS_DT_CHUNK - 1) / ZS_DT_CHUNK : 0;
    int32_t *owner = NULL;
    if (s == ZS_OK) {
      op->n_chunks = cptr[op->n_long];
      owner = (int32_t *)malloc((size_t)op->n_chunks * sizeof(int32_t));
      if (!owner) s = fail(ZS_ERR_OUT_OF_MEMORY, "dtans long-row chunks");
      for (int64_t k = 0; s == ZS_OK && k < op->n_long; k++)
        for (int64_t c = cptr[k]; c < cptr[k + 1]; c++) owner[c] = (int32_t)k;
    }
    if (s == ZS_OK) s = upload_array(&op->chunk_ptr, cptr, (uint64_t)op->n_long + 1, "chunks");
    if (s == ZS_OK) s = upload_array(&op->chunk_long, owner, (uint64_t)op->n_chunks, "chunks");
    if (s == ZS_OK) s = check(gpuMalloc(&op->partial, (size_t)op->n_chunks * es), "partials");
    free(cptr), free(owner);
  }
  if (s == ZS_OK && (op->vmode == DTANS_VALUES_CODED || op->vmode >= DTANS_VALUES_JOINT)) {
    s = dtans_upload(&op->vsym, L.value_symbols, (uint64_t)op->vreal, es, "value_symbols");
    if (s == ZS_OK && op->vmode == DTANS_VALUES_CODED)
      s = dtans_upload((void **)&op->slice_vesc, L.slice_value_esc, sl, 8, "slice_value_escapes");
    if (s == ZS_OK)
      s = dtans_upload(&op->vesc, L.value_escapes, L.n_value_escapes, es, "value_escapes");
    if (s == ZS_OK && op->vmode == DT_JOINT_RAW_COLUMNS) /* laid out as raw values */
      s = dtans_upload(&op->raw, L.columns, L.n_columns, 4, "columns");
    if (s == ZS_OK && op->vmode == DT_JOINT_RAW_COLUMNS)
      s = upload_array(&op->slice_raw, coded_before, (uint64_t)op->slices + 1, "offsets");
  } else if (s == ZS_OK && op->vmode == DTANS_VALUES_CONSTANT) {
    const void *c = L.value_symbols;
    op->constant = v->type == ZS_F64 ? *(const double *)c : (double)*(const float *)c;
  } else if (s == ZS_OK) {
    s = dtans_upload(&op->raw, L.values, L.n_values, es, "values");
    if (s == ZS_OK)
      s = upload_array(&op->slice_raw, coded_before, (uint64_t)op->slices + 1, "offsets");
  }
  free(coded_before);
  if (s == ZS_OK) {
    op->host_row_ptr = row_ptr, row_ptr = NULL;
    op->far = op->vmode == DT_JOINT_RAW_COLUMNS || dtans_far_deltas(&L); /* raw: deltas too far */
    op->slabs = dtans_slab_count(op, slabs, op->far);
    if (atomic) free(op->host_row_ptr), op->host_row_ptr = NULL;
  }
  free(row_ptr);
  if (s != ZS_OK) {
    dtans_gpu_destroy(op);
    return s;
  }
  *state = op;
  return ZS_OK;
}

/* Blocks of a kernel that fit a multiprocessor with op's shared memory (at least 1). The limit on
 * shared memory is the kernel's, for every operator: it is set on every call, since another
 * operator may have set it lower since. */
template <typename K>
zs_status dtans_occupancy(dtans_gpu_op *op, K kernel, int *per_sm) {
  zs_status s = check(gpuFuncSetMaxDynamicShared(kernel, (int)op->smem), "dtans shared memory");
  if (s == ZS_OK)
    s = check(blocks_per_sm(&op->occupancy, kernel, ZS_DT_THREADS, op->smem, per_sm),
              "dtans occupancy");
  return s;
}

/* Rounds in which a fixed-stride grid of per_sm blocks per multiprocessor decodes op's slices. */
int64_t dtans_rounds(const dtans_gpu_op *op, int per_sm) {
  const int64_t per_round =
      (int64_t)per_sm * op->dev->sm_count * (ZS_DT_THREADS / ZS_WARP_SIZE) * ZS_DT_SUBS;
  return (op->slices + per_round - 1) / per_round;
}

/* Slab k of op->slabs holds columns [k w, (k + 1) w), w = ceil(cols / slabs); WIN launches
 * read only those. */
template <typename T, int VMODE, int MODE, bool PERM, bool WIN>
zs_status dtans_launch(dtans_gpu_op *op, int slab, const T *x, T *y, T alpha, T beta,
                       const int64_t *row_ptr, int32_t *out_col, T *out_val) {
  if (op->slices == 0) return ZS_OK;
  auto kernel = zs_dtans_kernel<T, VMODE, MODE, PERM, WIN, ZS_DT_MIN_BLOCKS(VMODE)>;
  if (VMODE == 0 || VMODE >= 3)
    /* Coded and joint tables fill 41–57 KiB a block, so 3 blocks leave L1 about 60 KiB. Rows that
     * gather at random from an x whose hot part fits the L2 in one slab hit L1 more often with
     * half the storage kept for it (2 blocks): R-MAT's hubs (15 % less time on the H100); with 2
     * slabs, Erdős–Rényi f64 loses 13 % with it, the banded matrix, whose gathers are near,
     * 17 % (docs/performance.md). */
    gpuFuncPreferSharedPercent(kernel, op->far && op->slabs == 1 ? 50 : ZS_CARVEOUT_DEFAULT);
  int per_sm = 1;
  zs_status s = dtans_occupancy(op, kernel, &per_sm);
  bool dynamic = ZS_DT_DYNAMIC(VMODE);
  if constexpr (VMODE == 2) {
    /* Raw values at a fixed stride: the kernel cut for 3 blocks (no spills) unless it takes more
     * rounds of slices than the one for 4, since a round more is a slice's time more (on the
     * H100 a round more cost the 3-D stencil 28 %; at equal rounds the 3-block kernel is 11 %
     * faster). Slices needing ZS_DT_RAW_DYNAMIC_ROUNDS rounds or more go by tickets, and then
     * f64 takes the 3-block kernel, f32 the 4-block one (each the faster there). */
    auto lean = zs_dtans_kernel<T, 2, MODE, PERM, WIN, 3>;
    int lean_sm = 1;
    if (s == ZS_OK) s = dtans_occupancy(op, lean, &lean_sm);
    dynamic = op->raw_kernel.tickets
                  ? op->raw_kernel.tickets > 0
                  : op->guided || dtans_rounds(op, per_sm) >= ZS_DT_RAW_DYNAMIC_ROUNDS;
    const bool take_lean =
        dynamic ? sizeof(T) == 8 : dtans_rounds(op, lean_sm) <= dtans_rounds(op, per_sm);
    if (op->raw_kernel.blocks == 3 || (op->raw_kernel.blocks == 0 && take_lean))
      kernel = lean, per_sm = lean_sm;
  }
  if (s != ZS_OK) return s;
  /* A persistent grid: each block loads the tables once and walks many slices. */
  const int64_t wpb = ZS_DT_THREADS / ZS_WARP_SIZE;
  const int64_t need = ((op->slices + ZS_DT_SUBS - 1) / ZS_DT_SUBS + wpb - 1) / wpb;
  int64_t grid = (int64_t)per_sm * op->dev->sm_count;
  if (grid > need) grid = need;
  zs_dt_args a;
  a.stream = op->stream, a.row_nnz = op->row_nnz, a.dtab = op->dtab, a.vtab = op->vtab;
  a.row_perm = op->row_perm;
  a.slice_words = op->slice_words, a.slice_desc = op->slice_desc, a.slice_vesc = op->slice_vesc;
  a.slice_raw = op->slice_raw, a.slice_rows = op->slice_rows, a.desc = op->desc;
  a.vsym = op->vsym, a.vesc = op->vesc, a.raw = op->raw, a.slices = op->slices;
  a.vreal = op->vreal, a.tickets = op->tickets, a.ticket_base = op->ticket_base;
  a.dynamic = dynamic;
  a.pair_w = op->pair_w, a.pair_z = op->pair_z, a.pair_alpha = op->pair_alpha;
  const int64_t w = (op->cols + op->slabs - 1) / op->slabs;
  a.col_lo = WIN ? (uint32_t)(slab * w) : 0u, a.col_span = WIN ? (uint32_t)w : UINT32_MAX;
  kernel<<<(unsigned)grid, ZS_DT_THREADS, op->smem>>>(a, (T)op->constant, x, y, alpha, beta,
                                                      row_ptr, out_col, out_val);
  const zs_status st = check_launch("dtans kernel");
  if (st == ZS_OK && dynamic)
    op->ticket_base +=
        (unsigned long long)((op->slices + ZS_DT_SUBS - 1) / ZS_DT_SUBS + grid * wpb);
  return st;
}

template <typename T, int MODE, bool PERM, bool WIN>
zs_status dtans_by_mode(dtans_gpu_op *op, int slab, const T *x, T *y, T alpha, T beta,
                        const int64_t *row_ptr, int32_t *out_col, T *out_val) {
  if (op->vmode == 0)
    return dtans_launch<T, 0, MODE, PERM, WIN>(op, slab, x, y, alpha, beta, row_ptr, out_col,
                                               out_val);
  if (op->vmode == 1)
    return dtans_launch<T, 1, MODE, PERM, WIN>(op, slab, x, y, alpha, beta, row_ptr, out_col,
                                               out_val);
  if (op->vmode == 3)
    return dtans_launch<T, 3, MODE, PERM, WIN>(op, slab, x, y, alpha, beta, row_ptr, out_col,
                                               out_val);
  if (op->vmode == DT_JOINT_RAW_COLUMNS)
    return dtans_launch<T, DT_JOINT_RAW_COLUMNS, MODE, PERM, WIN>(op, slab, x, y, alpha, beta,
                                                                  row_ptr, out_col, out_val);
  return dtans_launch<T, 2, MODE, PERM, WIN>(op, slab, x, y, alpha, beta, row_ptr, out_col,
                                             out_val);
}

/* Slab `slab` of op->slabs (long rows, plain CSR, run with the first). */
template <typename T, int MODE>
zs_status dtans_dispatch(dtans_gpu_op *op, int slab, const T *x, T *y, T alpha, T beta,
                         const int64_t *row_ptr, int32_t *out_col, T *out_val) {
  if (slab == 0 && op->n_long > 0) {
    const int64_t grid = op->n_chunks < 65535 ? op->n_chunks : 65535;
    constexpr int LONG_MODE = MODE == ZS_DT_PAIR ? ZS_DT_SPMV : MODE; /* its z: dtans_pair_typed */
    zs_dtans_long_kernel<T, LONG_MODE><<<(unsigned)grid, ZS_DT_CHUNK_THREADS>>>(
        op->n_chunks, op->chunk_long, op->chunk_ptr, op->long_rows, op->long_ptr, op->long_cols,
        (const T *)op->long_values, x, y, alpha, (T *)op->partial, row_ptr, out_col, out_val);
    if (LONG_MODE == ZS_DT_SPMV)
      zs_dtans_long_fixup<T><<<grid_for(op->n_long, 256), 256>>>(
          op->n_long, op->long_rows, op->chunk_ptr, (const T *)op->partial, y, alpha, beta);
    zs_status s = check_launch("dtans long rows");
    if (s != ZS_OK) return s;
  }
  if constexpr (MODE != ZS_DT_WRITE) { /* slabs: SpMV and SpMVT */
    if (op->slabs > 1) {
      if (op->row_perm)
        return dtans_by_mode<T, MODE, true, true>(op, slab, x, y, alpha, beta, row_ptr, out_col,
                                                  out_val);
      return dtans_by_mode<T, MODE, false, true>(op, slab, x, y, alpha, beta, row_ptr, out_col,
                                                 out_val);
    }
  }
  if (op->row_perm)
    return dtans_by_mode<T, MODE, true, false>(op, slab, x, y, alpha, beta, row_ptr, out_col,
                                               out_val);
  return dtans_by_mode<T, MODE, false, false>(op, slab, x, y, alpha, beta, row_ptr, out_col,
                                              out_val);
}

/* The decoded CSR on the device, rows in the matrix's order at op->host_row_ptr: the columns in
 * *col, and the values in *val unless val is NULL (the caller releases both). */
template <typename T>
zs_status dtans_decode_device(dtans_gpu_op *op, int32_t **col, T **val) {
  const size_t n = (size_t)(op->nnz ? op->nnz : 1);
  int64_t *row_ptr = NULL;
  *col = NULL;
  if (val) *val = NULL;
  zs_status s = check(gpuMalloc((void **)col, n * 4), "dtans decoded columns");
  if (s == ZS_OK && val) s = check(gpuMalloc((void **)val, n * sizeof(T)), "dtans decoded values");
  if (s == ZS_OK)
    s = upload_array(&row_ptr, op->host_row_ptr, (uint64_t)op->rows + 1, "dtans row offsets");
  if (s == ZS_OK)
    s = dtans_dispatch<T, ZS_DT_WRITE>(op, 0, (const T *)NULL, (T *)NULL, T(0), T(0), row_ptr, *col,
                                       val ? *val : (T *)NULL);
  if (s == ZS_OK) s = check(gpuDeviceSynchronize(), "dtans decode");
  release(row_ptr);
  return s;
}

/* The decoded columns col copied to the host (*h_col, malloc'ed; the caller frees it). */
zs_status dtans_download_columns(const dtans_gpu_op *op, const int32_t *col, int32_t **h_col) {
  *h_col = (int32_t *)malloc((size_t)(op->nnz ? op->nnz : 1) * 4);
  if (!*h_col)
    return fail(ZS_ERR_OUT_OF_MEMORY, "dtans columns (%lld nonzeros)", (long long)op->nnz);
  if (!op->nnz) return ZS_OK;
  return check(gpuMemcpy(*h_col, col, (size_t)op->nnz * 4, gpuMemcpyDeviceToHost), "download");
}

/* The decoded columns on the host (*h_col, malloc'ed; the caller frees it). */
template <typename T>
zs_status dtans_host_columns(dtans_gpu_op *op, int32_t **h_col) {
  int32_t *col = NULL;
  *h_col = NULL;
  zs_status s = dtans_decode_device<T>(op, &col, (T **)NULL);
  if (s == ZS_OK) s = dtans_download_columns(op, col, h_col);
  release(col);
  return s;
}

/* Column slabs, chosen as for CSR (csr_slab_count) from the decoded columns, which are looked at
 * only when the deltas are far (dtans_far_deltas) and all of x passes the L2 share the rule
 * allows. Finding them takes a decode and 4 bytes per nonzero on the device and the host for a
 * moment; without that memory, one slab. */
int dtans_slab_count(dtans_gpu_op *op, int forced, bool far) {
  const size_t es = type_size(op->type);
  if (forced || !far || (double)op->cols * (double)es <= 0.4 * (double)op->dev->l2_bytes)
    return csr_slab_count(op->dev, forced, false, NULL, op->nnz, op->cols, es);
  int32_t *h_col = NULL;
  const zs_status s = op->type == ZS_F64 ? dtans_host_columns<double>(op, &h_col)
                                         : dtans_host_columns<float>(op, &h_col);
  int k = 1;
  if (s == ZS_OK) {
    const bool scattered = rows_scattered(op->host_row_ptr, h_col, op->rows);
    k = csr_slab_count(op->dev, 0, scattered, h_col, op->nnz, op->cols, es);
  } else {
    (void)gpuGetLastError(); /* a choice of speed, not a failure: no error left for later checks */
  }
  free(h_col);
  return k;
}

/* The deterministic SpMVT: decode once on the device, then keep Aᵀ as a CSR operator to run
 * forward (memory: that copy; the decoded CSR is freed). */
template <typename T>
zs_status dtans_ensure_transpose(dtans_gpu_op *op) {
  if (op->t_csr) return ZS_OK;
  int32_t *col = NULL;
  T *val = NULL;
  const size_t n = (size_t)(op->nnz ? op->nnz : 1);
  int32_t *h_col = NULL, *rows_of = (int32_t *)malloc(n * 4);
  zs_status s = dtans_decode_device<T>(op, &col, &val);
  if (s == ZS_OK) s = dtans_download_columns(op, col, &h_col);
  if (s == ZS_OK && !rows_of)
    s = fail(ZS_ERR_OUT_OF_MEMORY, "dtans transpose (%lld nonzeros)", (long long)op->nnz);
  for (int64_t i = 0; s == ZS_OK && i < op->rows; i++)
    for (int64_t k = op->host_row_ptr[i]; k < op->host_row_ptr[i + 1]; k++) rows_of[k] = (int32_t)i;
  if (s == ZS_OK && op->col_perm) { /* version 4: Aᵀ's rows by the matrix's column, y as given */
    int32_t *perm = (int32_t *)malloc((size_t)op->cols * 4);
    s = perm ? check(gpuMemcpy(perm, op->col_perm, (size_t)op->cols * 4, gpuMemcpyDeviceToHost),
                     "col_perm download")
             : fail(ZS_ERR_OUT_OF_MEMORY, "dtans transpose (%lld columns)", (long long)op->cols);
    for (int64_t k = 0; s == ZS_OK && k < op->nnz; k++) h_col[k] = perm[h_col[k]];
    free(perm);
  }
  if (s == ZS_OK)
    s = transpose_op(&op->t_csr, op->dev, op->type, op->rows, op->cols, op->nnz, rows_of, h_col,
                     val, 0);
  release(col), release(val);
  free(h_col), free(rows_of);
  return s;
}

/* With column slabs every pass decodes the whole stream but gathers (SpMV) or scatters (atomic
 * SpMVT) only its slab's columns, so that part of x or y stays in the L2 cache; the first
 * SpMV pass applies beta, the others add, and long rows run once. */
template <typename T>
zs_status dtans_apply_encoded(dtans_gpu_op *op, zs_op which, T alpha, const T *x, T beta, T *y) {
  zs_status s = ZS_OK;
  if (which == ZS_OP_N) {
    for (int k = 0; s == ZS_OK && k < op->slabs; k++)
      s = dtans_dispatch<T, ZS_DT_SPMV>(op, k, x, y, alpha, k ? T(1) : beta, NULL, NULL, NULL);
    return s;
  }
  if (!op->atomic) {
    s = dtans_ensure_transpose<T>(op);
    if (s != ZS_OK) return s;
    return csr_apply(op->t_csr, ZS_OP_N, (double)alpha, x, (double)beta, y);
  }
  zs_scale_kernel<T><<<grid_for(op->cols, 256), 256>>>(op->cols, beta, y);
  s = check_launch("dtans SpMVT scale");
  for (int k = 0; s == ZS_OK && k < op->slabs; k++)
    s = dtans_dispatch<T, ZS_DT_SCATTER>(op, k, x, y, alpha, beta, NULL, NULL, NULL);
  return s;
}

/* zs_spmv_pair in one decode (ZS_DT_PAIR) where SpMVT is atomic anyway: each slab pass gathers
 * and scatters its columns, as SpMV's and the atomic SpMVT's passes do apart; long rows (plain
 * CSR) take their SpMV and SpMVT kernels. ZS_ERR_UNSUPPORTED with the deterministic SpMVT. One
 * decode for both pays on the stencils and banded matrices; on scattered rows (Erdős–Rényi,
 * R-MAT) the random atomics cost what the decode saves (docs/performance.md, "CSR-dtANS"). */
template <typename T>
zs_status dtans_pair_encoded(dtans_gpu_op *op, T alpha, const T *x, T beta, T *y, T alpha_t,
                             const T *w, T beta_t, T *z) {
  if (!op->atomic || op->rows == 0 || op->cols == 0) return ZS_ERR_UNSUPPORTED;
  zs_scale_kernel<T><<<grid_for(op->cols, 256), 256>>>(op->cols, beta_t, z);
  zs_status s = check_launch("dtans pair scale");
  if (s == ZS_OK && op->n_long > 0) {
    const int64_t grid = op->n_chunks < 65535 ? op->n_chunks : 65535;
    zs_dtans_long_kernel<T, ZS_DT_SCATTER><<<(unsigned)grid, ZS_DT_CHUNK_THREADS>>>(
        op->n_chunks, op->chunk_long, op->chunk_ptr, op->long_rows, op->long_ptr, op->long_cols,
        (const T *)op->long_values, w, z, alpha_t, (T *)op->partial, NULL, NULL, NULL);
    s = check_launch("dtans long rows");
  }
  op->pair_w = w, op->pair_z = z, op->pair_alpha = (double)alpha_t;
  for (int k = 0; s == ZS_OK && k < op->slabs; k++)
    s = dtans_dispatch<T, ZS_DT_PAIR>(op, k, x, y, alpha, k ? T(1) : beta, NULL, NULL, NULL);
  op->pair_w = NULL, op->pair_z = NULL, op->pair_alpha = 0;
  return s;
}

/* Version 4: by[c] = v[perm[c]] (TO_ENCODED), or v[perm[c]] = by[c]. */
template <typename T, bool TO_ENCODED>
__global__ void zs_dtans_col_perm_kernel(int64_t n, const int32_t *perm, T *v, T *by) {
  for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < n;
       c += (int64_t)gridDim.x * blockDim.x)
    if (TO_ENCODED)
      by[c] = v[perm[c]];
    else
      v[perm[c]] = by[c];
}

template <typename T>
zs_status dtans_col_perm(const dtans_gpu_op *op, const T *v, T *by, bool to_encoded) {
  const unsigned g = grid_for(op->cols, 256);
  if (to_encoded)
    zs_dtans_col_perm_kernel<T, true><<<g, 256>>>(op->cols, op->col_perm, (T *)v, by);
  else
    zs_dtans_col_perm_kernel<T, false><<<g, 256>>>(op->cols, op->col_perm, (T *)v, by);
  return check_launch("dtans col_perm copy");
}

template <typename T>
zs_status dtans_apply_typed(dtans_gpu_op *op, zs_op which, T alpha, const T *x, T beta, T *y) {
  if (!op->col_perm) return dtans_apply_encoded<T>(op, which, alpha, x, beta, y);
  T *xs = (T *)op->xs, *ys = (T *)op->ys;
  if (which == ZS_OP_N) {
    zs_status s = dtans_col_perm<T>(op, x, xs, true);
    return s == ZS_OK ? dtans_apply_encoded<T>(op, which, alpha, xs, beta, y) : s;
  }
  if (!op->atomic) return dtans_apply_encoded<T>(op, which, alpha, x, beta, y); /* Aᵀ mapped */
  zs_status s = dtans_col_perm<T>(op, y, ys, true); /* beta = 0 ignores the copy as it would y */
  if (s == ZS_OK) s = dtans_apply_encoded<T>(op, which, alpha, x, beta, ys);
  return s == ZS_OK ? dtans_col_perm<T>(op, y, ys, false) : s;
}

template <typename T>
zs_status dtans_pair_typed(dtans_gpu_op *op, T alpha, const T *x, T beta, T *y, T alpha_t,
                           const T *w, T beta_t, T *z) {
  if (!op->col_perm) return dtans_pair_encoded<T>(op, alpha, x, beta, y, alpha_t, w, beta_t, z);
  if (!op->atomic || op->rows == 0 || op->cols == 0) return ZS_ERR_UNSUPPORTED;
  T *xs = (T *)op->xs, *ys = (T *)op->ys;
  zs_status s = dtans_col_perm<T>(op, x, xs, true);
  if (s == ZS_OK) s = dtans_col_perm<T>(op, z, ys, true);
  if (s == ZS_OK) s = dtans_pair_encoded<T>(op, alpha, xs, beta, y, alpha_t, w, beta_t, ys);
  return s == ZS_OK ? dtans_col_perm<T>(op, z, ys, false) : s;
}

zs_status dtans_gpu_pair(void *state, double alpha, const void *x, double beta, void *y,
                         double alpha_t, const void *w, double beta_t, void *z) {
  dtans_gpu_op *op = (dtans_gpu_op *)state;
  if (op->v5) return dtans5_gpu_pair(op->v5, alpha, x, beta, y, alpha_t, w, beta_t, z);
  if (op->type == ZS_F64)
    return dtans_pair_typed<double>(op, alpha, (const double *)x, beta, (double *)y, alpha_t,
                                    (const double *)w, beta_t, (double *)z);
  return dtans_pair_typed<float>(op, (float)alpha, (const float *)x, (float)beta, (float *)y,
                                 (float)alpha_t, (const float *)w, (float)beta_t, (float *)z);
}

zs_status dtans_gpu_apply(void *state, zs_op which, double alpha, const void *x, double beta,
                          void *y) {
  dtans_gpu_op *op = (dtans_gpu_op *)state;
  if (op->v5) return dtans5_gpu_apply(op->v5, which, alpha, x, beta, y);
  if (op->type == ZS_F64)
    return dtans_apply_typed<double>(op, which, alpha, (const double *)x, beta, (double *)y);
  return dtans_apply_typed<float>(op, which, (float)alpha, (const float *)x, (float)beta,
                                  (float *)y);
}

} /* namespace */

const gpu_format *gpu_format_dtans() {
  /* a function's static, not a namespace-scope constant: HIP would also emit one for the device */
  static const gpu_format table = {ZS_FORMAT_DTANS, dtans_gpu_create, dtans_gpu_destroy,
                                   dtans_gpu_apply, dtans_gpu_pair};
  return &table;
}

} /* namespace zs_gpu */
