/* sell_lanes.h — how many threads SELL's GPU SpMV gives a position by default
 * (backends/cuda_hip/sell_gpu.cuh), from the slice offsets alone: plain C, so that the rule is
 * checked on a host without a GPU (tests/unit/test_sell_lanes.c) and the auto model prices it
 * with the same constants (core/auto/auto_model.c). docs/formats/sell.md. */
#ifndef ZS_SELL_LANES_H
#define ZS_SELL_LANES_H

#include <stdint.h>

/* 4 where the time is the longest chain of a few threads, not the walk of all: a grid of at most
 * ZS_SELL_LANES_WARPS_PER_SM warps a multiprocessor whose slices are ZS_SELL_LANES_MIN_WIDTH wide
 * or more on average, or a slice whose batches of 8 outnumber a multiprocessor's share of all
 * slices' batches (power-law rows, and grids of under a batch a lane of every multiprocessor);
 * else 1. On the H100 (zs-bench-gpu, SpMV f64, natural order, 1 -> 4 threads): bayer10 4.96 ->
 * 3.44 us, netscience 4.79 -> 3.46, elasticity 16^3 8.12 -> 5.20, Barabasi-Albert 91.7 -> 38.3;
 * 4 lose where every slice is short or the grid is large: Watts-Strogatz 5.23 -> 7.24, 7-point
 * stencil 4.21 -> 7.56, banded 5.46 -> 11.73. sms: multiprocessors (0: unknown, 1); warp: the
 * warp's width; c = 2^lc rows a slice. */
#define ZS_SELL_LANES_WARPS_PER_SM 4
#define ZS_SELL_LANES_MIN_WIDTH 12
static inline int zs_sell_lanes_rule(int64_t sms, int64_t warp, const int64_t *slice_ptr,
                                     int64_t n_slices, int lc) {
  const int64_t c = INT64_C(1) << lc;
  if (sms <= 0 || n_slices == 0) return 1;
  int64_t max_w = 0, batches = 0; /* batches of 8 entries, summed over the warps' threads */
  for (int64_t s = 0; s < n_slices; s++) {
    const int64_t w = (slice_ptr[s + 1] - slice_ptr[s]) >> lc;
    max_w = w > max_w ? w : max_w, batches += (w + 7) / 8 * c;
  }
  const int64_t positions = n_slices * c, warps = (positions + warp - 1) / warp;
  const int few = warps <= sms * ZS_SELL_LANES_WARPS_PER_SM &&
                  slice_ptr[n_slices] >= ZS_SELL_LANES_MIN_WIDTH * positions;
  const int skewed = (max_w + 7) / 8 * warp * sms > batches;
  return few || skewed ? 4 : 1;
}

#endif
