/* csb_gpu.cuh — CSB/GCSB operators of the GPU modules: one unit of its own
 * (backends/cuda/cuda_csb.cu, backends/hip/hip_csb.cpp). */
#include <math.h>
#include "backends/cuda_hip/csr_kernels.cuh"
#include "backends/cuda_hip/gpu_common.cuh"
#include "formats/csb/csb_layout.h"

namespace zs_gpu {
namespace {

/* Kernels for both formats and both ops (TRANS swaps which half of local_idx indexes x). While
 * beta ≤ ZS_CSB_SHARED_BETA each thread sums its block's rows in shared memory, row r of thread
 * t at acc[r * ZS_CSB_THREADS + t]: a lane always hits its own bank, whatever rows the lanes
 * add to (a padded stride made those accesses collide and cost 2x on the 27-point stencil).
 * - deterministic (default for SpMV and SpMVT): a warp per output block (block row for Ax,
 *   block column for Aᵀx); its lanes read that block's blocks in a fixed order, together
 *   (zs_csb_warp_kernel) or in chunks of their own (zs_csb_owner_kernel: option experimental.det_walk=lanes,
 *   and beta > 32), and the lanes' sums are added in a fixed order, so no atomics and the same
 *   bits every run;
 * - atomic ("spmv=atomic", "transpose=atomic"): a thread per block in the format's order (the
 *   thesis' kernel: for GCSB the lanes of a warp read a group's k-th elements together, one
 *   coalesced load); then the warp flushes one run of lanes with the same output block at a
 *   time, lane r adding row r: one atomic instruction writes a block's beta contiguous sums
 *   (one or two cache lines) instead of every lane hitting its own line per row.
 * Larger beta: the deterministic kernel gives each output block beta / ZS_CSB_SHARED_BETA warps,
 * each summing its part of the outputs; the atomic one adds each nonzero with its own atomic. */
#define ZS_CSB_THREADS 128
#define ZS_CSB_SHARED_BETA 32
#define ZS_CSB_ROW ZS_CSB_THREADS /* row stride of the sums */
#define ZS_CSB_MAX_SPLITS 64      /* warps per output block of the warp walk (csb_splits) */
#define ZS_CSB_UNROLL 4           /* loads of a block's elements in flight per lane */
#define ZS_CSB_CHUNK 8            /* least elements per lane and step of the deterministic kernel */
/* A block is worth staging its segment of x (beta values) when it reads at least beta / 2 of
 * them: Erdos-Renyi 16384^2 at 1 %, f32 (beta 32, ~10 per block) lost 15 % when staged at 4. */
#define ZS_CSB_STAGE_WORTH(count, bsz) (2 * (int64_t)(count) >= (int64_t)(bsz))
/* With x staged: f64 gains 2-3 % from 8 loads in flight (fewer warps fit), f32 loses 13-16 %. */
#define ZS_CSB_STAGED_UNROLL(T) (sizeof(T) == 8 ? 8 : 4)

struct zs_csb_task {
  int64_t first;  /* slot of the block's first element */
  int32_t count;  /* real elements */
  int32_t stride; /* slots between its elements: 1 (CSB) or the group's block count (GCSB) */
  int32_t brow, bcol;
};

/* A block as the f64 warp walk reads it: its elements are contiguous (stride 1), and only the
 * block index on the input side is needed (bcol for SpMV, brow for SpMVT). 16 bytes, one load,
 * against 24 for zs_csb_task. f64 only: in f32 the 16-byte task costs the kernels more registers
 * than its bytes save, so they keep zs_csb_task (docs/performance.md, "Tried and dropped"). */
struct alignas(16) zs_csb_wtask {
  int64_t first;
  int32_t count, seg;
};
template <typename T>
using zs_csb_walk_task = typename std::conditional<sizeof(T) == 8, zs_csb_wtask, zs_csb_task>::type;

__host__ __device__ __forceinline__ int32_t zs_csb_in_block(const zs_csb_wtask &t, bool) {
  return t.seg;
}
__host__ __device__ __forceinline__ int32_t zs_csb_in_block(const zs_csb_task &t, bool trans) {
  return trans ? t.brow : t.bcol;
}

struct csb_gpu_op {
  const gpu_device *dev; /* its context's device */
  zs_type type;
  int64_t rows, cols, nb, nbr, nbc, beta;
  int64_t wave; /* warps of the split warp walk the device holds at once (csb_measure_wave) */
  int lb;
  bool idx16, atomic_n, atomic_t;
  bool stage[2];          /* the atomic kernel stages x, [0] SpMV, [1] SpMVT (csb_choose_staging) */
  bool warp_walk;         /* deterministic kernels: zs_csb_warp_kernel (csb_choose_walk) */
  int splits[2];          /* warp walk: warps per output block, [0] SpMV, [1] SpMVT */
  int teams[2];           /* warp walk: output blocks per warp (1, 2 or 4; csb_choose_teams) */
  void *partial;          /* their sums when a split is over 1 (csb_choose_splits) */
  unsigned *done;         /* per output block: its split warps finished (zs_csb_split_last) */
  void *val, *idx;        /* the format's layout (atomic kernels; every CSB kernel) */
  void *cval, *cidx;      /* GCSB: blocks contiguous in block-row order (deterministic) */
  zs_csb_task *blocks;    /* format order (atomic kernel) */
  int64_t *n_ptr, *t_ptr; /* per block row / column: its range of n_task / t_task */
  zs_csb_task *n_task, *t_task;    /* blocks by row (ascending column) and by column (lanes walk) */
  zs_csb_wtask *n_wtask, *t_wtask; /* the same, for the f64 warp walk */
};

template <typename T>
__device__ __forceinline__ T zs_csb_finish(T alpha, T s, T beta, const T *y) {
  return beta == T(0) ? alpha * s : alpha * s + beta * *y;
}

/* Adds block t's products into this thread's sums acc[out * ZS_CSB_ROW]; returns the rows (or
 * columns) of the output block it touched. xb is the block's segment of x, read at column
 * (row, for TRANS) c ^ sw: 0 for x itself, the lane's swizzle for a segment staged in shared
 * memory. U elements (ZS_CSB_UNROLL unless staged) are loaded before any is
 * used: a block's elements are independent, and one load in flight per lane left the kernel
 * waiting on memory latency. PART (beta > ZS_CSB_SHARED_BETA): only the outputs base .. base +
 * ZS_CSB_SHARED_BETA - 1 are summed (at out - base), the others skipped; nothing is returned. */
template <typename T, typename I, bool TRANS, bool PART = false, int U = ZS_CSB_UNROLL>
__device__ __forceinline__ uint32_t zs_csb_segment_sums(const zs_csb_task &t, int lb, const T *val,
                                                        const I *idx, const T *xb, uint32_t sw,
                                                        T *acc, uint32_t base = 0) {
  const uint32_t mask = (1u << lb) - 1u;
  const I *ip = idx + t.first;
  const T *vp = val + t.first;
  const int64_t st = t.stride;
  uint32_t touched = 0;
  int32_t j = 0;
  for (; j + U <= t.count; j += U) {
    uint32_t i[U];
    T v[U], xv[U];
#pragma unroll
    for (int u = 0; u < U; u++) i[u] = ip[u * st], v[u] = vp[u * st];
#pragma unroll
    for (int u = 0; u < U; u++) xv[u] = xb[(TRANS ? i[u] >> lb : i[u] & mask) ^ sw];
#pragma unroll
    for (int u = 0; u < U; u++) {
      const uint32_t out = (TRANS ? i[u] & mask : i[u] >> lb) - base;
      if (PART && out >= ZS_CSB_SHARED_BETA) continue;
      acc[out * ZS_CSB_ROW] += v[u] * xv[u];
      if (!PART) touched |= 1u << out;
    }
    ip += U * st, vp += U * st;
  }
  for (; j < t.count; j++, ip += st, vp += st) {
    const uint32_t i = *ip, out = (TRANS ? i & mask : i >> lb) - base;
    if (PART && out >= ZS_CSB_SHARED_BETA) continue;
    acc[out * ZS_CSB_ROW] += *vp * xb[(TRANS ? i >> lb : i & mask) ^ sw];
    if (!PART) touched |= 1u << out;
  }
  return touched;
}

/* The same, reading the block's segment of x in place. */
template <typename T, typename I, bool TRANS, bool PART = false>
__device__ __forceinline__ uint32_t zs_csb_block_sums(const zs_csb_task &t, int lb, const T *val,
                                                      const I *idx, const T *x, T *acc,
                                                      uint32_t base = 0) {
  return zs_csb_segment_sums<T, I, TRANS, PART>(
      t, lb, val, idx, x + ((int64_t)(TRANS ? t.brow : t.bcol) << lb), 0, acc, base);
}

/* Copies the segments of x that the warp's lanes will read (lane l's at seg_first, bsz
 * elements, lane l's slots stage[l * bsz + (c ^ l)]) into shared memory: the warp reads
 * ZS_WARP_SIZE / bsz whole segments per instruction, so a segment costs one pass over its cache
 * lines instead of a tag lookup per lane and element (the lanes' blocks have different
 * segments). The swizzle c ^ l gives lanes reading the same column distinct banks. */
template <typename T>
__device__ __forceinline__ void zs_csb_stage_x(const T *x, int64_t n_in, int64_t seg_first, int lb,
                                               T *stage) {
  const int lane = threadIdx.x % ZS_WARP_SIZE, bsz = 1 << lb;
  const uint32_t mask = (uint32_t)bsz - 1;
  for (int k = 0; k < bsz; k++) {
    const int owner = (k * ZS_WARP_SIZE + lane) >> lb; /* whose segment this lane copies */
    const uint32_t c = (uint32_t)lane & mask;
    const int64_t col = zs_shfl(seg_first, owner) + c;
    stage[owner * bsz + (c ^ ((uint32_t)owner & mask))] = col < n_in ? x[col] : T(0);
  }
  zs_syncwarp();
}

/* The lane whose block holds element base + tl of the elements of its team's blocks laid end to
 * end: a team is L lanes (the whole warp, or a part of it walking an output block of its own,
 * TEAMS of zs_csb_warp_kernel), tl a lane's place in it, and team lane j's block holds
 * [end_j - count_j, end_j) (end: an inclusive scan of the counts within the team; blocks are
 * never empty, lanes past the last block have count 0). The answer is the team's lanes whose blocks end by base, plus the
 * blocks that start after base and by base + tl: one ballot and one OR over the warp, instead of
 * a binary search of five dependent shuffles. Returned as a lane of the warp. */
template <int L>
__device__ __forceinline__ int zs_csb_run_owner(int end, int count, int base) {
  const int lane = threadIdx.x % ZS_WARP_SIZE, tl = lane % L;
  const int tb = L == ZS_WARP_SIZE ? 0 : lane - tl; /* the team's first lane */
  const zs_lane_mask team =
      L == ZS_WARP_SIZE ? ~(zs_lane_mask)0 : (((zs_lane_mask)1 << L) - 1) << tb;
  const int before = (int)zs_popc(zs_ballot(end <= base) & team), start = end - count;
  const bool inside = count > 0 && start > base && start - base < L;
  const zs_lane_mask starts =
      zs_reduce_or(inside ? (zs_lane_mask)1 << (tb + start - base) : 0) >> tb;
  const zs_lane_mask upto = ((zs_lane_mask)2 << tl) - 2; /* bits 1 .. tl */
  const int owner = before + (int)zs_popc(starts & upto);
  return tb + (owner < L ? owner : L - 1); /* past the team's last element: any of its lanes */
}

/* Deterministic: a warp per output block o. With beta > ZS_CSB_SHARED_BETA (PART) a warp per
 * part of ZS_CSB_SHARED_BETA outputs of o: each of o's `parts` warps reads all of o's blocks and
 * sums its own outputs (a thread per output block summing into y, the kernel before, ran 60-145x
 * slower than beta 16 on pruned-layer matrices: a few hundred threads in all). */
template <typename T, typename I, bool TRANS, bool PART>
__global__ void __launch_bounds__(ZS_CSB_THREADS)
    zs_csb_owner_kernel(int64_t n_blocks_out, int64_t n_out, int lb, int parts, const int64_t *ptr,
                        const zs_csb_task *task, const T *val, const I *idx, const T *x, T *y,
                        T alpha, T beta) {
  extern __shared__ unsigned char zs_csb_smem[];
  T *acc = (T *)zs_csb_smem + threadIdx.x;
  const int lane = threadIdx.x % ZS_WARP_SIZE;
  const int64_t w = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / ZS_WARP_SIZE;
  const int64_t o = PART ? w / parts : w;
  if (o >= n_blocks_out) return; /* the whole warp */
  const uint32_t base = PART ? (uint32_t)(w % parts) * ZS_CSB_SHARED_BETA : 0;
  const int bsz = PART ? ZS_CSB_SHARED_BETA : 1 << lb; /* sums this warp holds */
  for (int r = 0; r < bsz; r++) acc[r * ZS_CSB_ROW] = T(0);
  /* The output block's blocks, a warp's worth at a time, cut into chunks that the lanes share
   * out: a few long blocks no longer leave most lanes idle while one walks its block (a banded
   * block row has ~10 blocks of ~32 elements). Chunk size (measured on the H100): 8-byte values
   * (beta 16 by default) want about one chunk per lane, since chunks of 8 pay the share-out per
   * chunk; 4-byte values (beta 32: four times the elements per block) want chunks of 8, whose
   * lanes read neighbouring chunks. */
  for (int64_t p0 = ptr[o]; p0 < ptr[o + 1]; p0 += ZS_WARP_SIZE) {
    zs_csb_task t = {0, 0, 0, 0, 0};
    if (p0 + lane < ptr[o + 1]) t = task[p0 + lane];
    int csz = ZS_CSB_CHUNK;
    if (sizeof(T) == 8) {
      int elems = t.count;
      for (int d = ZS_WARP_SIZE / 2; d > 0; d /= 2) elems += zs_shfl_xor(elems, d);
      csz = max(ZS_CSB_CHUNK, (elems + ZS_WARP_SIZE - 1) / ZS_WARP_SIZE);
    }
    const int chunks = (t.count + csz - 1) / csz;
    int end = chunks; /* inclusive scan: this lane's chunks are [end - chunks, end) */
    for (int d = 1; d < ZS_WARP_SIZE; d *= 2) {
      const int u = zs_shfl_up(end, d);
      if (lane >= d) end += u;
    }
    const int total = zs_shfl(end, ZS_WARP_SIZE - 1);
    for (int c = lane; c - lane < total; c += ZS_WARP_SIZE) {
      int owner = 0; /* the first lane whose chunks end after chunk c */
      for (int step = ZS_WARP_SIZE / 2; step > 0; step /= 2)
        if (zs_shfl(end, owner + step - 1) <= c) owner += step;
      const int o_end = zs_shfl(end, owner), o_count = zs_shfl(t.count, owner);
      const int64_t o_first = zs_shfl(t.first, owner);
      zs_csb_task sub;
      sub.stride = zs_shfl(t.stride, owner);
      sub.brow = zs_shfl(t.brow, owner), sub.bcol = zs_shfl(t.bcol, owner);
      if (c < total) {
        const int j0 = (c - (o_end - (o_count + csz - 1) / csz)) * csz;
        sub.first = o_first + (int64_t)j0 * sub.stride;
        sub.count = o_count - j0 < csz ? o_count - j0 : csz;
        zs_csb_block_sums<T, I, TRANS, PART>(sub, lb, val, idx, x, acc, base);
      }
    }
  }
  zs_syncwarp();
  const int64_t o0 = (o << lb) + base;
  const int no = (int)(n_out - o0 < bsz ? n_out - o0 : bsz);
  if (lane < no) {
    /* Lane r adds row r of the warp's lanes starting at lane r, so that the lanes read
     * distinct banks; the order is fixed, so are the bits. */
    const T *row = (const T *)zs_csb_smem + lane * ZS_CSB_ROW + (threadIdx.x - lane);
    T s = T(0);
    for (int l = 0; l < ZS_WARP_SIZE; l++) s += row[(l + lane) & (ZS_WARP_SIZE - 1)];
    y[o0 + lane] = zs_csb_finish(alpha, s, beta, &y[o0 + lane]);
  }
}

/* Deterministic, the whole warp on the elements of its output block (beta <= ZS_CSB_SHARED_BETA):
 * a warp per output block o, as above, but the elements of up to 32 of o's blocks are laid end to
 * end and read in pieces of 32, lane l taking element l of a piece. SpMVT finds the element's
 * block with zs_csb_run_owner before loading it; SpMV reads an output block's blocks as one run
 * and learns the block from the element's index, whose tag (csb_tag_blocks) names the lane that
 * holds it. Every load of values and indices is then one or a few
 * contiguous runs instead of 32 lanes each walking a chunk of their own (a sector per lane and
 * load), and small blocks share a piece (the 27-point stencil's block rows hold 9 blocks of 46
 * elements and 18 of one). ZS_CSB_PIECES pieces are loaded before any is used. Each lane adds
 * into its own sums in a fixed order and lane r sums row r over the lanes as above: no atomics,
 * the same bits every run.
 * TEAMS > 1 (2 or 4): the warp's lanes form TEAMS teams, each walking an output block of its own
 * in the same way (pieces of ZS_WARP_SIZE / TEAMS elements). An output block of a few dozen
 * elements (the 2-D stencil's hold 80) is a chain of dependent loads (offsets, tasks, elements,
 * x) and a tail with little work in each link; TEAMS chains per warp keep TEAMS times the loads
 * in flight for the same sums in shared memory (the 2-D stencil f64 on the H100 runs 1.6x faster
 * with four teams than with one). The loops run as often as the warp's longest team needs,
 * since every lane takes part in the ballots and shuffles. */
#ifndef ZS_CSB_PIECES /* overridable for A/B builds of the module */
#define ZS_CSB_PIECES 4
#endif
/* Pieces in flight per lane when TEAMS > 1: 5, the fastest of 4, 5 and 8 on the 2-D stencil f64
 * (more pieces take more registers, which cost more warps per SM than the loads gain). */
#ifndef ZS_CSB_TEAM_PIECES
#define ZS_CSB_TEAM_PIECES 5
#endif
/* SpMV's pieces: without the block search (csb_tag_blocks) one team loads one more (5: faster
 * on the 27-point stencil), teams as many as SpMVT (6 was slower on the 2-D stencil). */
#ifndef ZS_CSB_PIECES_N
#define ZS_CSB_PIECES_N 5
#endif
#ifndef ZS_CSB_TEAM_PIECES_N
#define ZS_CSB_TEAM_PIECES_N ZS_CSB_TEAM_PIECES
#endif
/* Called by every lane of a split warp walk's warp once its parts are written: the output
 * block's last warp to finish (counted in done[o], which it sets back to 0 for the next product)
 * adds the parts in part order, the same bits every run for a given split count. A second
 * kernel did this before; its launch and ramp cost more than the fence and the counter (1-3 µs
 * a product on the H100's pruned layers). The parts of other warps are read through volatile
 * loads, past this SM's L1. */
template <typename T>
__device__ __forceinline__ void zs_csb_split_last(int64_t o, int splits, int lb, int no, int lane,
                                                  const T *partial, unsigned *done, T *y, T alpha,
                                                  T beta) {
  __threadfence(); /* this lane's parts are visible before the warp counts itself */
  zs_syncwarp();
  unsigned before = 0;
  if (lane == 0) before = atomicAdd(&done[o], 1u);
  if (zs_shfl(before, 0) != (unsigned)splits - 1) return;
  __threadfence();
  if (lane == 0) done[o] = 0;
  const volatile T *parts = partial + ((o * splits) << lb);
  for (int r = lane; r < no; r += ZS_WARP_SIZE) {
    T s = T(0);
    for (int k = 0; k < splits; k++) s += parts[((int64_t)k << lb) + r];
    const int64_t i = (o << lb) + r;
    y[i] = zs_csb_finish(alpha, s, beta, &y[i]);
  }
}

/* PAIR (SpMV only): BiCG's pair in the same walk (zs_spmv_pair). Each element also adds
 * alpha_t a_ij w_i into z_j (pw, pz), z scaled by beta_t before, with an atomic: z_j's address
 * is x_j's, and w_i is one of the β values of the output block's rows. The matrix is read once for
 * both products; z's sums are in no fixed order. */
template <typename T, typename I, bool TRANS, bool SPLIT, int TEAMS, bool PAIR = false>
__global__ void __launch_bounds__(ZS_CSB_THREADS)
    zs_csb_warp_kernel(int64_t n_blocks_out, int64_t n_out, int lb, int splits, const int64_t *ptr,
                       const zs_csb_walk_task<T> *task, const T *val, const I *idx, const T *x,
                       T *y, T alpha, T beta, T *partial, unsigned *done, const T *pw, T *pz,
                       T alpha_t) {
  static_assert(!(SPLIT && TEAMS > 1), "a split output block has the whole warp");
  static_assert(!(PAIR && TRANS), "the pair walks in row order");
  constexpr int L = ZS_WARP_SIZE / TEAMS; /* lanes per output block */
  constexpr int PIECES = TEAMS > 1 ? (TRANS ? ZS_CSB_TEAM_PIECES : ZS_CSB_TEAM_PIECES_N)
                                   : (TRANS ? ZS_CSB_PIECES : ZS_CSB_PIECES_N);
  /* Slots of the values and indices: 32-bit for teams (csb_choose_teams: fewer than 2^30
   * elements), one shuffle per block skew and fewer registers, faster on the H100; 64-bit for one
   * team, where 32-bit slots made the 27-point stencil's SpMVT slower (docs/performance.md). */
  using slot_t = typename std::conditional<(TEAMS > 1), int32_t, int64_t>::type;
  extern __shared__ unsigned char zs_csb_smem[];
  T *acc = (T *)zs_csb_smem + threadIdx.x;
  const int lane = threadIdx.x % ZS_WARP_SIZE, bsz = 1 << lb;
  const int tl = lane % L, tb = TEAMS > 1 ? lane - tl : 0; /* place in the team, team's lane 0 */
  const uint32_t mask = (uint32_t)bsz - 1;
  const int64_t w = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / ZS_WARP_SIZE;
  /* output block, and its part (a template parameter: the divisions cost the 27-point stencil
   * 3-4 % when every output block is one part) */
  const int64_t o = SPLIT ? w / splits : TEAMS > 1 ? w * TEAMS + lane / L : w;
  const int64_t k = SPLIT ? w % splits : 0;
  if ((SPLIT ? o : w * TEAMS) >= n_blocks_out) return; /* the whole warp */
  const bool mine = TEAMS == 1 || o < n_blocks_out;    /* a team past the last one walks nothing */
  for (int r = 0; r < bsz; r++) acc[r * ZS_CSB_ROW] = T(0);
  const int64_t n_tasks = mine ? ptr[o + 1] - ptr[o] : 0;
  const int64_t p_begin = mine ? (SPLIT ? ptr[o] + n_tasks * k / splits : ptr[o]) : 0;
  const int64_t p_end = SPLIT ? ptr[o] + n_tasks * (k + 1) / splits : p_begin + n_tasks;
  /* SpMV: tags count an output block's blocks from its first, turns a split part's from p_begin */
  const int tag_shift = 2 * lb;
  const uint32_t tag_first = SPLIT && !TRANS ? (uint32_t)(p_begin - ptr[o]) : 0u;
  int64_t p_stop = p_end; /* teams: as many turns of L blocks as the warp's longest team takes */
  if (TEAMS > 1) {
    int turns = (int)((p_end - p_begin + L - 1) / L);
    for (int d = L; d < ZS_WARP_SIZE; d *= 2) turns = max(turns, zs_shfl_xor(turns, d));
    p_stop = p_begin + (int64_t)turns * L;
  }
  /* A split part walks several turns: the next turn's tasks are loaded before this turn's
   * elements, one dependent load less per turn in the walk's chain. */
  zs_csb_walk_task<T> ahead = {};
  if (SPLIT && p_begin + tl < p_end) ahead = task[p_begin + tl];
  for (int64_t p0 = p_begin; p0 < p_stop; p0 += L) {
    zs_csb_walk_task<T> t = {};
    if (SPLIT) {
      t = ahead;
      ahead = {};
      if (p0 + L + tl < p_end) ahead = task[p0 + L + tl];
    } else if (p0 + tl < p_end) {
      t = task[p0 + tl];
    }
    int end = t.count; /* inclusive scan: this lane's block holds elements [end - count, end) */
    for (int d = 1; d < L; d *= 2) {
      const int u = zs_shfl_up(end, d);
      if (tl >= d) end += u;
    }
    const int total = zs_shfl(end, tb + L - 1);
    int longest = total;
    for (int d = L; d < ZS_WARP_SIZE; d *= 2) longest = max(longest, zs_shfl_xor(longest, d));
    /* first - start: slot of element e of the run is e + skew of its block. In SpMV an output
     * block's blocks lie end to end in row order (csb_row_runs), so every block has the skew of
     * the team's first: one shuffle per turn instead of two per piece. */
    const slot_t skew = (slot_t)(t.first - (end - t.count));
    const slot_t run_skew = TRANS ? 0 : zs_shfl(skew, tb);
    const int32_t seg = zs_csb_in_block(t, TRANS);
    for (int e0 = 0; e0 < longest; e0 += PIECES * L) {
      uint32_t i[PIECES];
      T v[PIECES], xv[PIECES];
      int32_t sg[PIECES];
      bool live[PIECES];
#pragma unroll
      for (int u = 0; u < PIECES; u++) {
        const int e = e0 + u * L + tl;
        slot_t slot = e + run_skew;
        if (TRANS) {
          const int owner = zs_csb_run_owner<L>(end, t.count, e0 + u * L);
          slot = e + zs_shfl(skew, owner);
          sg[u] = zs_shfl(seg, owner);
        }
        live[u] = e < total;
        i[u] = live[u] ? (uint32_t)idx[slot] : 0u;
        v[u] = live[u] ? val[slot] : T(0);
      }
      /* SpMV: the element's tag names its block's lane (csb_tag_blocks), no search */
#pragma unroll
      for (int u = 0; u < PIECES; u++)
        if (!TRANS) sg[u] = zs_shfl(seg, tb + (int)(((i[u] >> tag_shift) - tag_first) & (L - 1)));
#pragma unroll
      for (int u = 0; u < PIECES; u++)
        xv[u] =
            live[u]
                ? x[(int64_t)((uint64_t)(int64_t)sg[u] << lb) + (TRANS ? i[u] >> lb : i[u] & mask)]
                : T(0); /* unsigned: SpMVT's block rows may be below 0 (csb_tag_blocks) */
      T wv[PAIR ? PIECES : 1];
#pragma unroll
      for (int u = 0; u < PIECES; u++)
        if (PAIR) wv[u] = live[u] ? pw[(o << lb) + ((i[u] >> lb) & mask)] : T(0);
#pragma unroll
      for (int u = 0; u < PIECES; u++)
        if (live[u]) acc[(TRANS ? i[u] & mask : (i[u] >> lb) & mask) * ZS_CSB_ROW] += v[u] * xv[u];
#pragma unroll
      for (int u = 0; u < PIECES; u++)
        if (PAIR && live[u])
          atomicAdd(&pz[(int64_t)((uint64_t)(int64_t)sg[u] << lb) + (i[u] & mask)],
                    alpha_t * (v[u] * wv[u]));
    }
  }
  zs_syncwarp();
  const int64_t o0 = o << lb;
  const int no = mine ? (int)(n_out - o0 < bsz ? n_out - o0 : bsz) : 0;
  /* Lane r of the team adds row r of the team's sums (and r + L, ... when beta > L), starting at
   * its own lane as in zs_csb_owner_kernel: a fixed order, so the same bits every run. */
  for (int r = tl; r < no; r += L) {
    const T *row = (const T *)zs_csb_smem + r * ZS_CSB_ROW + (threadIdx.x - lane) + tb;
    T s = T(0);
    for (int l = 0; l < L; l++) s += row[(l + tl) & (L - 1)];
    if (SPLIT)
      partial[w * bsz + r] = s; /* zs_csb_split_last adds the parts */
    else
      y[o0 + r] = zs_csb_finish(alpha, s, beta, &y[o0 + r]);
    if (TEAMS == 1) break; /* beta <= ZS_WARP_SIZE: one row per lane */
  }
  if (SPLIT) zs_csb_split_last(o, splits, lb, no, lane, partial, done, y, alpha, beta);
}

/* y was scaled by beta before. STAGE (beta <= ZS_CSB_SHARED_BETA only): the lanes' segments of
 * x are copied into shared memory behind the sums, in warps where some block is worth it
 * (ZS_CSB_STAGE_WORTH); the other warps read x in place. */
template <typename T, typename I, bool TRANS, bool STAGE>
__global__ void __launch_bounds__(ZS_CSB_THREADS)
    zs_csb_atomic_kernel(int64_t nb, int lb, int64_t n_in, const zs_csb_task *blocks, const T *val,
                         const I *idx, const T *x, T *y, T alpha) {
  extern __shared__ unsigned char zs_csb_smem[];
  T *acc = (T *)zs_csb_smem + threadIdx.x;
  const int64_t b = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  const int bsz = 1 << lb, lane = threadIdx.x % ZS_WARP_SIZE;
  const uint32_t mask = (uint32_t)bsz - 1;
  if (bsz > ZS_CSB_SHARED_BETA) { /* the thesis' kernel: one atomic per nonzero */
    if (b >= nb) return;
    const zs_csb_task t = blocks[b];
    const T *xb = x + ((int64_t)(TRANS ? t.brow : t.bcol) << lb);
    T *yb = y + ((int64_t)(TRANS ? t.bcol : t.brow) << lb);
    for (int32_t j = 0; j < t.count; j++) {
      const int64_t k = t.first + (int64_t)j * t.stride;
      const uint32_t i = idx[k];
      atomicAdd(&yb[TRANS ? i & mask : i >> lb], alpha * (val[k] * xb[TRANS ? i >> lb : i & mask]));
    }
    return;
  }
  for (int r = 0; r < bsz; r++) acc[r * ZS_CSB_ROW] = T(0);
  uint32_t touched = 0; /* rows (or columns) of the output block this lane added to */
  int64_t key = -1;     /* the output block; -1 for lanes past the end */
  zs_csb_task t = {0, 0, 0, 0, 0};
  if (b < nb) t = blocks[b], key = TRANS ? t.bcol : t.brow;
  const int64_t seg_first = (int64_t)(TRANS ? t.brow : t.bcol) << lb;
  if (STAGE && zs_ballot(ZS_CSB_STAGE_WORTH(t.count, bsz))) {
    T *stage = (T *)zs_csb_smem + bsz * ZS_CSB_ROW + (threadIdx.x - lane) * bsz;
    zs_csb_stage_x(x, n_in, seg_first, lb, stage);
    if (b < nb)
      touched = zs_csb_segment_sums<T, I, TRANS, false, ZS_CSB_STAGED_UNROLL(T)>(
          t, lb, val, idx, stage + lane * bsz, (uint32_t)lane & mask, acc);
  } else if (b < nb) {
    touched = zs_csb_segment_sums<T, I, TRANS>(t, lb, val, idx, x + seg_first, 0, acc);
  }
  const int64_t prev_key = zs_shfl_up(key, 1);
  zs_lane_mask heads = zs_ballot(lane == 0 || prev_key != key);
  /* Rotate row r of the warp's sums by r lanes, so that lane r reading row r of one lane's
   * block (below) and each lane writing its own rows (here) both hit distinct banks. */
  T *wacc = (T *)zs_csb_smem + (threadIdx.x - lane);
  for (int r = 1; r < bsz; r++) { /* row by row: no registers held across the rows */
    const T v = wacc[r * ZS_CSB_ROW + lane];
    zs_syncwarp();
    wacc[r * ZS_CSB_ROW + ((lane + r) & (ZS_WARP_SIZE - 1))] = v;
  }
  zs_syncwarp();
  const T *row = wacc + lane * ZS_CSB_ROW;
  while (heads) { /* warp-uniform: one run [h, e) of lanes with the same output block */
    const int h = __ffsll((long long)heads) - 1;
    heads &= heads - 1;
    const int e = heads ? __ffsll((long long)heads) - 1 : ZS_WARP_SIZE;
    const int64_t k = zs_shfl(key, h);
    if (k < 0) break; /* lanes past the end come last */
    uint32_t run_touched = 0;
    T s = T(0);
    for (int l = h; l < e; l++) {
      run_touched |= zs_shfl(touched, l);
      if (lane < bsz) s += row[(l + lane) & (ZS_WARP_SIZE - 1)];
    }
    if (lane < bsz && ((run_touched >> lane) & 1u)) atomicAdd(&y[(k << lb) + lane], alpha * s);
  }
}

/* Real elements of a GCSB block: the prefix of its slots whose Morton keys ascend (padding
 * repeats the last index). */
uint32_t csb_morton(uint32_t i, int lb) {
  uint32_t m = 0;
  for (int b = 0; b < lb; b++)
    m |= ((i >> b) & 1u) << (2 * b) | ((i >> (lb + b)) & 1u) << (2 * b + 1);
  return m;
}

void csb_gpu_destroy(void *state) {
  csb_gpu_op *op = (csb_gpu_op *)state;
  if (!op) return;
  void *ptrs[] = {op->val,     op->idx,     op->cval,   op->cidx,   op->blocks,
                  op->n_ptr,   op->t_ptr,   op->n_task, op->t_task, op->n_wtask,
                  op->t_wtask, op->partial, op->done};
  for (void *p : ptrs) release(p);
  free(op);
}

/* Stable counting sort of tasks by row (by_row) or column; ptr gets n_keys + 1 entries. */
bool csb_sort_tasks(const zs_csb_task *in, int64_t nb, int64_t n_keys, bool by_row, int64_t *ptr,
                    zs_csb_task *out) {
  int64_t *next = (int64_t *)calloc((size_t)n_keys + 1, sizeof(int64_t));
  if (!next) return false;
  memset(ptr, 0, ((size_t)n_keys + 1) * sizeof(int64_t));
  for (int64_t b = 0; b < nb; b++) ptr[(by_row ? in[b].brow : in[b].bcol) + 1]++;
  for (int64_t k = 0; k < n_keys; k++) ptr[k + 1] += ptr[k];
  memcpy(next, ptr, (size_t)n_keys * sizeof(int64_t));
  for (int64_t b = 0; b < nb; b++) out[next[by_row ? in[b].brow : in[b].bcol]++] = in[b];
  free(next);
  return true;
}

/* The format-order SpMV's lanes share their output block, not their segment of x: each lane
 * gathers its own 128-byte segment, which the SM's L1 must hold while the block is walked.
 * Half the shared memory (6 blocks of 128 threads per SM) leaves it that room (1.6x faster on
 * the 27-point stencil, H100). SpMVT's neighbours (same block row) share x and want the
 * occupancy instead (the same setting made it 1.2x slower), so it keeps the default. */
template <typename T, typename I>
void csb_prefer_l1_for_spmv() {
  void (*spmv)(int64_t, int, int64_t, const zs_csb_task *, const T *, const I *, const T *, T *,
               T) = zs_csb_atomic_kernel<T, I, false, false>;
  gpuFuncPreferSharedPercent(spmv, 50);
  (void)gpuGetLastError(); /* a hint: a device that ignores it runs all the same */
}

/* With x staged, L1 holds nothing the kernels reuse: all of it goes to shared memory, which
 * the segments double (256 bytes per thread with the sums). At f64 and beta 32 that is 64 KiB
 * per block, past the 48 KiB a launch gets without asking: the limit is raised (a requirement,
 * not a hint). */
template <typename T, typename I>
zs_status csb_prefer_shared_for_staging() {
  void (*k[2])(int64_t, int, int64_t, const zs_csb_task *, const T *, const I *, const T *, T *,
               T) = {zs_csb_atomic_kernel<T, I, false, true>,
                     zs_csb_atomic_kernel<T, I, true, true>};
  const int bytes = 2 * ZS_CSB_SHARED_BETA * ZS_CSB_ROW * (int)sizeof(T);
  for (auto f : k) {
    zs_status s = check(gpuFuncSetMaxDynamicShared(f, bytes), "CSB staged shared memory");
    if (s != ZS_OK) return s;
    gpuFuncPreferSharedPercent(f, 100);
    (void)gpuGetLastError(); /* the carve-out is a hint, as above */
  }
  return ZS_OK;
}

/* What the operator's atomic kernels ask for: the shared memory staging needs, and the
 * carve-out hints above. */
template <typename T, typename I>
zs_status csb_set_carveouts(const csb_gpu_op *op) {
  if (op->atomic_n && !op->stage[0]) csb_prefer_l1_for_spmv<T, I>();
  return op->stage[0] || op->stage[1] ? csb_prefer_shared_for_staging<T, I>() : ZS_OK;
}

/* Whether the atomic (format-order) kernels stage x: for beta <= ZS_CSB_SHARED_BETA, forced by
 * stage_opt (1 on, 0 off) or, with -1, where at least half the nonzeros lie in blocks worth it
 * (ZS_CSB_STAGE_WORTH) whose segment of x differs from the previous lane's. The
 * lanes take blocks in format order: on the 27-point stencil 32 neighbouring blocks of a group
 * come from ~4 block rows, so the SpMVT's lanes share 4 segments of x, which L1 serves well
 * (staging them cost 16 %), while the SpMV's lanes all read different ones. */
void csb_choose_staging(csb_gpu_op *op, const zs_csb_task *blocks, int64_t elements,
                        int stage_opt) {
  int64_t own[2] = {0, 0};
  for (int64_t b = 0; b < op->nb; b++) {
    const zs_csb_task &t = blocks[b];
    if (!ZS_CSB_STAGE_WORTH(t.count, op->beta)) continue;
    const bool first = b % ZS_WARP_SIZE == 0;
    if (first || blocks[b - 1].bcol != t.bcol) own[0] += t.count; /* SpMV reads x by column */
    if (first || blocks[b - 1].brow != t.brow) own[1] += t.count;
  }
  for (int w = 0; w < 2; w++)
    op->stage[w] = op->beta <= ZS_CSB_SHARED_BETA &&
                   (stage_opt < 0 ? elements > 0 && 2 * own[w] >= elements : stage_opt == 1);
}

/* Warps per output block of the warp walk, when it runs and nothing is forced. A warp per output
 * block leaves most of the GPU idle when output blocks are few: a 16384-row pruned layer at beta
 * 16 has 1024, i.e. 8 warps per H100 SM each walking ~1000 blocks in a chain of loads. Split
 * each output block's blocks into parts of at least a piece's worth (32 blocks) while all the
 * warps still fit in one wave of the split kernel (op->wave), rounded down to a power of two so
 * that a block of 4 warps holds whole output blocks or whole parts of one. Past one wave, the
 * warps of the second run after the first, a whole walk later: on the H100's pruned layers the
 * largest power of two within one wave was as fast as any count, and one part past the wave
 * lost a fifth. */
int csb_auto_splits(const csb_gpu_op *op, int64_t n_blocks_out) {
  if (n_blocks_out == 0) return 1;
  const int64_t per_block = op->nb / n_blocks_out;
  int64_t k = op->wave / n_blocks_out;
  if (k > per_block / ZS_WARP_SIZE) k = per_block / ZS_WARP_SIZE;
  if (k > ZS_CSB_MAX_SPLITS) k = ZS_CSB_MAX_SPLITS;
  int p = 1;
  while (2 * p <= k) p *= 2;
  return p;
}

/* Shared memory of the deterministic kernels: a warp's sums of min(beta, ZS_CSB_SHARED_BETA)
 * outputs per lane. */
template <typename T>
size_t csb_sums_bytes(const csb_gpu_op *op) {
  const int64_t rows = op->beta < ZS_CSB_SHARED_BETA ? op->beta : ZS_CSB_SHARED_BETA;
  return (size_t)rows * ZS_CSB_ROW * sizeof(T);
}

/* op->wave: the warps the split kernels hold at once over the device, from the thread blocks per
 * SM the runtime reports for their registers and the beta sums in shared memory (the lesser of
 * SpMV's and SpMVT's). */
template <typename T, typename I>
zs_status csb_measure_wave(csb_gpu_op *op) {
  const size_t smem = csb_sums_bytes<T>(op);
  int n = 0, t = 0;
  zs_status s = check(gpuOccupancyMaxActiveBlocksPerMultiprocessor(
                          &n, zs_csb_warp_kernel<T, I, false, true, 1>, ZS_CSB_THREADS, smem),
                      "CSB split occupancy");
  if (s == ZS_OK)
    s = check(gpuOccupancyMaxActiveBlocksPerMultiprocessor(
                  &t, zs_csb_warp_kernel<T, I, true, true, 1>, ZS_CSB_THREADS, smem),
              "CSB split occupancy");
  op->wave = (int64_t)op->dev->sm_count * (n < t ? n : t) * (ZS_CSB_THREADS / ZS_WARP_SIZE);
  return s;
}

/* The split the operator runs: one unless the warp walk runs; each output block's last warp to
 * finish adds the parts (forced: experimental.det_splits=N). */
int csb_splits(const csb_gpu_op *op, int64_t n_blocks_out, int forced) {
  if (!op->warp_walk || n_blocks_out == 0) return 1;
  return forced > 0 ? forced : csb_auto_splits(op, n_blocks_out);
}

/* Whether the deterministic kernels run zs_csb_warp_kernel (walk_opt 1) or the lanes' chunks of
 * zs_csb_owner_kernel (walk_opt 0, and always for beta > 32). Auto (-1): the warp walk for 8-byte
 * values, whose lanes' chunks are long per-lane streams; for 4-byte values only while blocks
 * average under 48 elements: larger blocks give every lane whole 8-element chunks, one sector
 * each, and the warp walk's block search then costs more than it saves (measured on the H100 with
 * blocks of ~107, 51 and 37 elements: the lanes walk won on the first two), and for any type when
 * the warp walk would split its output blocks: few output blocks leave the lanes walk as idle as
 * the unsplit warp walk. */
void csb_choose_walk(csb_gpu_op *op, int64_t elements, int walk_opt) {
  const bool small_blocks = elements < 48 * op->nb;
  const bool few = csb_auto_splits(op, op->nbr) > 1 || csb_auto_splits(op, op->nbc) > 1;
  op->warp_walk = op->beta <= ZS_CSB_SHARED_BETA &&
                  (walk_opt < 0 ? op->type == ZS_F64 || small_blocks || few : walk_opt == 1);
}

/* Output blocks per warp of the warp walk (forced: experimental.det_teams=1|2|4), for unsplit output blocks
 * by the elements they average, in turns of the whole warp (ZS_CSB_PIECES pieces of
 * ZS_WARP_SIZE, 128 elements on CUDA): under 2 turns four teams, under 3 two, the fastest count
 * for each op measured on the H100 (the 2-D stencil's 80 and 158 elements per output block take
 * four, the banded matrix's 320 two, the 27-point stencil's 432 one: two teams lose there).
 * With transpose=atomic the SpMV's walk also serves BiCG's pair (its y keeps the SpMV's bits only
 * with the same teams), whose time is z's atomics and which wants more lanes per output block:
 * four teams under 1 turn, two under 2.25 (the 2-D stencil f32 pair 1.25x faster with two teams
 * than with four; docs/performance.md, "GCSB and CSB"). */
void csb_choose_teams(csb_gpu_op *op, int64_t elements, int forced) {
  const int64_t quarter_turn = (int64_t)ZS_CSB_PIECES * ZS_WARP_SIZE / 4;
  for (int w = 0; w < 2; w++) {
    const int64_t n_blocks_out = w ? op->nbc : op->nbr;
    const bool pair = w == 0 && op->atomic_t && !op->atomic_n;
    const int64_t four = pair ? 4 : 8, two = pair ? 9 : 12; /* quarter turns */
    const int auto_teams = elements < four * quarter_turn * n_blocks_out  ? 4
                           : elements < two * quarter_turn * n_blocks_out ? 2
                                                                          : 1;
    /* 32-bit slots (slot_t), with room for the slots that lanes past a block's last element
     * compute and never read */
    const bool can = op->warp_walk && op->splits[w] == 1 && elements < (INT64_C(1) << 30);
    op->teams[w] = !can ? 1 : forced ? forced : auto_teams;
  }
}

zs_status csb_choose_splits(csb_gpu_op *op, int forced) {
  op->splits[0] = csb_splits(op, op->nbr, forced), op->splits[1] = csb_splits(op, op->nbc, forced);
  const int64_t n0 = op->splits[0] > 1 ? op->nbr * op->splits[0] : 0;
  const int64_t n1 = op->splits[1] > 1 ? op->nbc * op->splits[1] : 0;
  const int64_t n = (n0 > n1 ? n0 : n1) << op->lb;
  if (n == 0) return ZS_OK;
  const int64_t n_done = op->nbr > op->nbc ? op->nbr : op->nbc;
  zs_status s = check(gpuMalloc(&op->partial, (size_t)n * type_size(op->type)), "CSB split sums");
  if (s == ZS_OK) s = check(gpuMalloc(&op->done, (size_t)n_done * sizeof(unsigned)), "CSB splits");
  if (s == ZS_OK)
    s = check(gpuMemset(op->done, 0, (size_t)n_done * sizeof(unsigned)), "CSB splits");
  return s;
}

/* The deterministic kernels walk an output block's blocks one after another, and GCSB's slots
 * put a block's elements a group apart: each element read a sector of its own (on the H100 twice
 * CSB-baseline's time on the same blocks).
 * So a GCSB operator whose deterministic kernels run copies its blocks contiguous, in block-row
 * order without padding, as the cpu backend does, and points the row- and column-order tasks at
 * the copy: both formats then run these kernels at the same speed. The copy is
 * made on the host (*hv, *hi: `elements` entries each; the caller tags and uploads them). */
zs_status csb_contiguous_copy(const csb_layout *L, zs_csb_task *tasks, int64_t nb, int64_t elements,
                              unsigned char **hv, unsigned char **hi) {
  const size_t vs = L->value_bytes, is = L->geom.idx_size, n = (size_t)(elements ? elements : 1);
  *hv = (unsigned char *)malloc(n * vs), *hi = (unsigned char *)malloc(n * is);
  if (!*hv || !*hi) return fail(ZS_ERR_OUT_OF_MEMORY, "GCSB contiguous copy");
  int64_t off = 0;
  for (int64_t b = 0; b < nb; b++) {
    zs_csb_task &t = tasks[b];
    for (int32_t j = 0; j < t.count; j++) {
      const int64_t k = t.first + (int64_t)j * t.stride;
      memcpy(*hv + (size_t)(off + j) * vs, (const unsigned char *)L->values + (size_t)k * vs, vs);
      memcpy(*hi + (size_t)(off + j) * is, (const unsigned char *)L->local_idx + (size_t)k * is,
             is);
    }
    t.first = off, t.stride = 1, off += t.count;
  }
  return ZS_OK;
}

/* SpMV's warp walk reads a block row's blocks as one run (csb_row_runs) and must know each
 * element's block: the position of the element's block among its block row's blocks, modulo
 * ZS_WARP_SIZE, is stored from bit 2 lb of its 16-bit index (5 bits, 6 on a 64-lane wavefront:
 * free while beta <= 32), and names the lane holding the block in the walk's turn. This saved
 * the search of zs_csb_run_owner per piece. Only the deterministic kernels'
 * indices are tagged, in the operator's device copy; the format is not changed.
 * SpMVT reads the same indices, and a local row then comes with its block's tag above it:
 * i >> lb is tag * beta + row. So the block row of each task (in `sorted`, row order) is lowered
 * by its tag: (brow - tag) * beta + (i >> lb) is the row of x, with no mask (one more
 * instruction that cost SpMVT's f32 kernels 8 registers). Call once SpMV's tasks are uploaded. */
void csb_tag_blocks(uint16_t *idx, zs_csb_task *sorted, const int64_t *ptr, int64_t nbr, int lb) {
  for (int64_t r = 0; r < nbr; r++)
    for (int64_t b = ptr[r]; b < ptr[r + 1]; b++) {
      const int32_t tag = (int32_t)((b - ptr[r]) & (ZS_WARP_SIZE - 1));
      for (int32_t j = 0; j < sorted[b].count; j++)
        idx[sorted[b].first + j] |= (uint16_t)(tag << (2 * lb));
      sorted[b].brow -= tag;
    }
}

/* The deterministic kernels' tasks in row order (n_task) or column order (t_task, trans), as
 * the chosen walk reads them (zs_csb_walk_task). */
zs_status csb_upload_tasks(csb_gpu_op *op, const zs_csb_task *tasks, bool trans) {
  const char *what = trans ? "CSB column order" : "CSB row order";
  if (!op->warp_walk || op->type != ZS_F64)
    return upload_array(trans ? &op->t_task : &op->n_task, tasks, op->nb, what);
  zs_csb_wtask *w = (zs_csb_wtask *)malloc((size_t)(op->nb ? op->nb : 1) * sizeof *w);
  if (!w) return fail(ZS_ERR_OUT_OF_MEMORY, "%s", what);
  for (int64_t b = 0; b < op->nb; b++)
    w[b] = {tasks[b].first, tasks[b].count, zs_csb_in_block(tasks[b], trans)};
  const zs_status s = upload_array(trans ? &op->t_wtask : &op->n_wtask, w, op->nb, what);
  free(w);
  return s;
}

/* Whether each block row's blocks (row order: ptr, tasks) lie end to end, as SpMV's warp walk
 * reads them (one skew per turn, which frees registers: 4-17 % faster SpMV on the H100):
 * the format's row-major blocks for CSB, the contiguous copy for GCSB. */
bool csb_row_runs(const zs_csb_task *tasks, const int64_t *ptr, int64_t nbr) {
  for (int64_t r = 0; r < nbr; r++)
    for (int64_t b = ptr[r] + 1; b < ptr[r + 1]; b++)
      if (tasks[b].stride != 1 || tasks[b].first != tasks[b - 1].first + tasks[b - 1].count)
        return false;
  return true;
}

zs_status csb_gpu_create(const gpu_device *dev, void **state, const zsb_encoded_view *v,
                         const char *options) {
  csb_layout L; /* the blob, typed, read as the reference decoder and the cpu read it */
  char why[ZSI_LAYOUT_WHY];
  zs_status s = csb_layout_parse(v, &L, why, sizeof why);
  if (s != ZS_OK) return fail(s, "backend '%s': %s", ZS_GPU_BACKEND_NAME, why);
  csb_gpu_op *op = (csb_gpu_op *)calloc(1, sizeof(csb_gpu_op));
  if (!op) return fail(ZS_ERR_OUT_OF_MEMORY, "CSB operator");
  op->dev = dev;
  /* The library checked the options against its table and filled in the defaults. */
  char buf[16];
  op->atomic_t = zsb_option_is(options, "transpose", "atomic");
  op->atomic_n = zsb_option_is(options, "spmv", "atomic");
  const char *stage = zsb_option(options, "experimental.x_stage", buf, sizeof buf);
  const int stage_opt = strcmp(stage, "on") == 0 ? 1 : strcmp(stage, "off") == 0 ? 0 : -1;
  const char *walk = zsb_option(options, "experimental.det_walk", buf, sizeof buf);
  const int walk_opt = strcmp(walk, "warp") == 0 ? 1 : strcmp(walk, "lanes") == 0 ? 0 : -1;
  const int split_opt = atoi(zsb_option(options, "experimental.det_splits", buf, sizeof buf));
  const int team_opt = atoi(zsb_option(options, "experimental.det_teams", buf, sizeof buf));
  op->type = L.type, op->rows = L.rows, op->cols = L.cols;
  op->beta = L.geom.beta, op->lb = L.geom.lb, op->nbr = L.geom.nbr, op->nbc = L.geom.nbc;
  op->idx16 = L.geom.idx_size == 2;
  const bool gcsb = L.format == ZS_FORMAT_GCSB;
  op->nb = L.n_blocks;
  const int64_t nb = op->nb;
  zs_csb_task *host = (zs_csb_task *)malloc((size_t)(nb ? nb : 1) * sizeof(zs_csb_task));
  zs_csb_task *sorted = (zs_csb_task *)malloc((size_t)(nb ? nb : 1) * sizeof(zs_csb_task));
  int64_t *ptr = (int64_t *)malloc((size_t)((op->nbr > op->nbc ? op->nbr : op->nbc) + 1) * 8);
  if (s == ZS_OK && (!host || !sorted || !ptr)) s = fail(ZS_ERR_OUT_OF_MEMORY, "CSB block tables");
  if (s == ZS_OK && !gcsb) {
    const int64_t *bp = L.block_ptr, *bo = L.block_offset;
    const int32_t *bc = L.block_col;
    for (int64_t r = 0; r < op->nbr; r++)
      for (int64_t b = bp[r]; b < bp[r + 1]; b++)
        host[b] = {bo[b], (int32_t)(bo[b + 1] - bo[b]), 1, (int32_t)r, bc[b]};
  } else if (s == ZS_OK) {
    const int64_t *go = L.group_offset;
    const int64_t G = L.group_size;
    for (int64_t p = 0; p < nb; p++) {
      const uint64_t lin = csb_bidx_get(L.block_index, L.geom.bidx_size, p);
      const int64_t q = p / G, t = p % G, nbg = nb - q * G < G ? nb - q * G : G;
      const int64_t depth = (go[q + 1] - go[q]) / nbg;
      int32_t count = 1;
      uint32_t prev = 0;
      for (int64_t j = 0; j < depth; j++) {
        const int64_t k = go[q] + j * nbg + t;
        const uint32_t i = csb_idx_get(L.local_idx, L.geom.idx_size, k);
        const uint32_t m = csb_morton(i, op->lb);
        if (j > 0 && m <= prev) break;
        prev = m, count = (int32_t)(j + 1);
      }
      host[p] = {go[q] + t, count, (int32_t)nbg, (int32_t)(lin / (uint64_t)op->nbc),
                 (int32_t)(lin % (uint64_t)op->nbc)};
    }
  }
  const size_t vs = L.value_bytes, is = L.geom.idx_size;
  int64_t elements = 0; /* real elements, padding not counted */
  for (int64_t b = 0; s == ZS_OK && b < nb; b++) elements += host[b].count;
  if (s == ZS_OK && op->type == ZS_F64)
    s = op->idx16 ? csb_measure_wave<double, uint16_t>(op) : csb_measure_wave<double, uint32_t>(op);
  else if (s == ZS_OK)
    s = op->idx16 ? csb_measure_wave<float, uint16_t>(op) : csb_measure_wave<float, uint32_t>(op);
  if (s == ZS_OK) csb_choose_walk(op, elements, walk_opt);
  /* The format's layout serves the atomic kernels, and CSB's values every kernel; the
   * deterministic ones read GCSB's contiguous copy, and tagged indices where SpMV walks warps. */
  const bool atomic = op->atomic_n || op->atomic_t;
  const bool contiguous = gcsb && !(op->atomic_n && op->atomic_t);
  const bool tagged = op->warp_walk && !op->atomic_n; /* the walk implies beta <= 32: idx16 */
  if (s == ZS_OK && (!gcsb || atomic))
    s = upload_array((unsigned char **)&op->val, L.values, L.slots * vs, "CSB values");
  if (s == ZS_OK && (atomic || (!gcsb && !tagged)))
    s = upload_array((unsigned char **)&op->idx, L.local_idx, L.slots * is, "CSB local_idx");
  if (s == ZS_OK) s = upload_array(&op->blocks, host, (uint64_t)nb, "CSB blocks");
  /* Blocks by row: a stable sort by column first makes the row order ascend in column. */
  zs_csb_task *by_col = (zs_csb_task *)malloc((size_t)(nb ? nb : 1) * sizeof(zs_csb_task));
  if (s == ZS_OK && (!by_col || !csb_sort_tasks(host, nb, op->nbc, false, ptr, by_col)))
    s = fail(ZS_ERR_OUT_OF_MEMORY, "CSB block order");
  if (s == ZS_OK && !csb_sort_tasks(by_col, nb, op->nbr, true, ptr, sorted))
    s = fail(ZS_ERR_OUT_OF_MEMORY, "CSB block order");
  unsigned char *hv = NULL, *hi = NULL; /* the deterministic kernels' host copies */
  if (s == ZS_OK && contiguous) s = csb_contiguous_copy(&L, sorted, nb, elements, &hv, &hi);
  if (s == ZS_OK && tagged && !csb_row_runs(sorted, ptr, op->nbr))
    s = fail(ZS_ERR_INTERNAL, "CSB warp walk: a block row's blocks are not end to end");
  if (s == ZS_OK && tagged && !hi &&
      !(hi = (unsigned char *)malloc((size_t)(L.slots ? L.slots : 1) * 2)))
    s = fail(ZS_ERR_OUT_OF_MEMORY, "CSB tagged indices");
  if (s == ZS_OK && tagged && !contiguous) memcpy(hi, L.local_idx, (size_t)L.slots * 2);
  if (s == ZS_OK) s = upload_array(&op->n_ptr, ptr, (uint64_t)op->nbr + 1, "CSB row order");
  if (s == ZS_OK) s = csb_upload_tasks(op, sorted, false);
  if (s == ZS_OK && tagged) csb_tag_blocks((uint16_t *)hi, sorted, ptr, op->nbr, op->lb);
  if (s == ZS_OK && hv)
    s = upload_array((unsigned char **)&op->cval, hv, (uint64_t)elements * vs,
                     "GCSB contiguous values");
  if (s == ZS_OK && hi)
    s = upload_array((unsigned char **)&op->cidx, hi,
                     (contiguous ? (uint64_t)elements : L.slots) * is, "CSB deterministic indices");
  free(hv), free(hi);
  if (s == ZS_OK && !csb_sort_tasks(sorted, nb, op->nbc, false, ptr, by_col))
    s = fail(ZS_ERR_OUT_OF_MEMORY, "CSB block order");
  if (s == ZS_OK) s = upload_array(&op->t_ptr, ptr, (uint64_t)op->nbc + 1, "CSB column order");
  if (s == ZS_OK) s = csb_upload_tasks(op, by_col, true);
  if (s == ZS_OK) csb_choose_staging(op, host, elements, stage_opt);
  if (s == ZS_OK) s = csb_choose_splits(op, split_opt);
  if (s == ZS_OK) csb_choose_teams(op, elements, team_opt);
  free(host), free(sorted), free(ptr), free(by_col);
  if (s == ZS_OK) {
    if (op->type == ZS_F64)
      s = op->idx16 ? csb_set_carveouts<double, uint16_t>(op)
                    : csb_set_carveouts<double, uint32_t>(op);
    else
      s = op->idx16 ? csb_set_carveouts<float, uint16_t>(op)
                    : csb_set_carveouts<float, uint32_t>(op);
  }
  if (s != ZS_OK) {
    csb_gpu_destroy(op);
    return s;
  }
  *state = op;
  return ZS_OK;
}

/* One warp walk over op's output blocks (block rows, block columns for TRANS), with the kernel
 * of the op's split and team counts (csb_choose_splits, _teams); PAIR (SpMV only): BiCG's pair,
 * z += alpha_t Aᵀ w as well. */
template <typename T, typename I, bool TRANS, bool PAIR = false>
void csb_walk_launch(const csb_gpu_op *op, const T *x, T *y, T alpha, T beta, const T *w, T *z,
                     T alpha_t) {
  const int64_t n_out = TRANS ? op->cols : op->rows, n_blocks_out = TRANS ? op->nbc : op->nbr;
  const int splits = op->splits[TRANS], teams = op->teams[TRANS];
  const int64_t per_cta = ZS_CSB_THREADS / ZS_WARP_SIZE; /* warps */
  const int64_t walk_warps = (n_blocks_out + teams - 1) / teams * splits;
  const unsigned g = (unsigned)((walk_warps + per_cta - 1) / per_cta);
  const zs_csb_walk_task<T> *task =
      (const zs_csb_walk_task<T> *)(sizeof(T) == 8
                                        ? (const void *)(TRANS ? op->t_wtask : op->n_wtask)
                                        : (const void *)(TRANS ? op->t_task : op->n_task));
  auto kernel = splits > 1   ? zs_csb_warp_kernel<T, I, TRANS, true, 1, PAIR>
                : teams == 4 ? zs_csb_warp_kernel<T, I, TRANS, false, 4, PAIR>
                : teams == 2 ? zs_csb_warp_kernel<T, I, TRANS, false, 2, PAIR>
                             : zs_csb_warp_kernel<T, I, TRANS, false, 1, PAIR>;
  kernel<<<g, ZS_CSB_THREADS, csb_sums_bytes<T>(op)>>>(
      n_blocks_out, n_out, op->lb, splits, TRANS ? op->t_ptr : op->n_ptr, task,
      (const T *)(op->cval ? op->cval : op->val), (const I *)(op->cidx ? op->cidx : op->idx), x, y,
      alpha, beta, (T *)op->partial, op->done, w, z, alpha_t);
}

template <typename T, typename I>
zs_status csb_apply_typed(csb_gpu_op *op, zs_op which, T alpha, const T *x, T beta, T *y) {
  const bool t = which == ZS_OP_T;
  const int64_t n_out = t ? op->cols : op->rows, n_blocks_out = t ? op->nbc : op->nbr;
  if (n_out == 0) return ZS_OK;
  const bool part = op->beta > ZS_CSB_SHARED_BETA;
  const size_t smem = csb_sums_bytes<T>(op);
  if (t ? op->atomic_t : op->atomic_n) {
    zs_scale_kernel<T><<<grid_for(n_out, 256), 256>>>(n_out, beta, y);
    if (op->nb > 0) {
      const unsigned grid = (unsigned)((op->nb + ZS_CSB_THREADS - 1) / ZS_CSB_THREADS);
      const size_t sums = part ? 0 : smem; /* beta > 32: an atomic per nonzero, no sums */
      const int64_t n_in = t ? op->rows : op->cols;
      const bool staged = op->stage[t];
      auto kernel = t ? (staged ? zs_csb_atomic_kernel<T, I, true, true>
                                : zs_csb_atomic_kernel<T, I, true, false>)
                      : (staged ? zs_csb_atomic_kernel<T, I, false, true>
                                : zs_csb_atomic_kernel<T, I, false, false>);
      kernel<<<grid, ZS_CSB_THREADS, staged ? 2 * sums : sums>>>(
          op->nb, op->lb, n_in, op->blocks, (const T *)op->val, (const I *)op->idx, x, y, alpha);
    }
    return check_launch("CSB atomic kernel");
  }
  if (op->warp_walk) {
    if (t)
      csb_walk_launch<T, I, true>(op, x, y, alpha, beta, nullptr, nullptr, T(0));
    else
      csb_walk_launch<T, I, false>(op, x, y, alpha, beta, nullptr, nullptr, T(0));
    return check_launch("CSB kernel");
  }
  const int parts = part ? (int)(op->beta / ZS_CSB_SHARED_BETA) : 1;
  const int64_t per_cta = ZS_CSB_THREADS / ZS_WARP_SIZE; /* warps */
  const int64_t warps = n_blocks_out * parts;
  const unsigned grid = (unsigned)((warps + per_cta - 1) / per_cta);
  const int64_t *ptr = t ? op->t_ptr : op->n_ptr;
  const zs_csb_task *task = t ? op->t_task : op->n_task;
  const T *val = (const T *)(op->cval ? op->cval : op->val);
  const I *idx = (const I *)(op->cidx ? op->cidx : op->idx);
  auto kernel =
      t ? (part ? zs_csb_owner_kernel<T, I, true, true> : zs_csb_owner_kernel<T, I, true, false>)
        : (part ? zs_csb_owner_kernel<T, I, false, true> : zs_csb_owner_kernel<T, I, false, false>);
  kernel<<<grid, ZS_CSB_THREADS, smem>>>(n_blocks_out, n_out, op->lb, parts, ptr, task, val, idx, x,
                                         y, alpha, beta);
  return check_launch("CSB kernel");
}

zs_status csb_gpu_apply(void *state, zs_op which, double alpha, const void *x, double beta,
                        void *y) {
  csb_gpu_op *op = (csb_gpu_op *)state;
  if (op->type == ZS_F64)
    return op->idx16 ? csb_apply_typed<double, uint16_t>(op, which, alpha, (const double *)x, beta,
                                                         (double *)y)
                     : csb_apply_typed<double, uint32_t>(op, which, alpha, (const double *)x, beta,
                                                         (double *)y);
  return op->idx16 ? csb_apply_typed<float, uint16_t>(op, which, (float)alpha, (const float *)x,
                                                      (float)beta, (float *)y)
                   : csb_apply_typed<float, uint32_t>(op, which, (float)alpha, (const float *)x,
                                                      (float)beta, (float *)y);
}

/* zs_spmv_pair in one walk (the PAIR warp kernel) where SpMVT is atomic anyway and SpMV takes
 * the tagged warp walk; ZS_ERR_UNSUPPORTED otherwise (the library makes the two products). */
template <typename T, typename I>
zs_status csb_pair_typed(csb_gpu_op *op, T alpha, const T *x, T beta, T *y, T alpha_t, const T *w,
                         T beta_t, T *z) {
  if (!op->atomic_t || op->atomic_n || !op->warp_walk || op->rows == 0 || op->cols == 0)
    return ZS_ERR_UNSUPPORTED;
  zs_scale_kernel<T><<<grid_for(op->cols, 256), 256>>>(op->cols, beta_t, z);
  csb_walk_launch<T, I, false, true>(op, x, y, alpha, beta, w, z, alpha_t);
  return check_launch("CSB pair kernel");
}

zs_status csb_gpu_pair(void *state, double alpha, const void *x, double beta, void *y,
                       double alpha_t, const void *w, double beta_t, void *z) {
  csb_gpu_op *op = (csb_gpu_op *)state;
  if (op->type == ZS_F64) {
    const double *xd = (const double *)x, *wd = (const double *)w;
    double *yd = (double *)y, *zd = (double *)z;
    return op->idx16
               ? csb_pair_typed<double, uint16_t>(op, alpha, xd, beta, yd, alpha_t, wd, beta_t, zd)
               : csb_pair_typed<double, uint32_t>(op, alpha, xd, beta, yd, alpha_t, wd, beta_t, zd);
  }
  const float *xf = (const float *)x, *wf = (const float *)w;
  float *yf = (float *)y, *zf = (float *)z;
  const float a = (float)alpha, b = (float)beta, at = (float)alpha_t, bt = (float)beta_t;
  return op->idx16 ? csb_pair_typed<float, uint16_t>(op, a, xf, b, yf, at, wf, bt, zf)
                   : csb_pair_typed<float, uint32_t>(op, a, xf, b, yf, at, wf, bt, zf);
}

} /* namespace */

const gpu_format *gpu_format_csb() {
  /* a function's static, not a namespace-scope constant: HIP would also emit one for the device */
  static const gpu_format table = {ZS_FORMAT_CSB, csb_gpu_create, csb_gpu_destroy, csb_gpu_apply,
                                   csb_gpu_pair};
  return &table;
}
const gpu_format *gpu_format_gcsb() {
  /* a function's static, not a namespace-scope constant: HIP would also emit one for the device */
  static const gpu_format table = {ZS_FORMAT_GCSB, csb_gpu_create, csb_gpu_destroy, csb_gpu_apply,
                                   csb_gpu_pair};
  return &table;
}

} /* namespace zs_gpu */
