#!/usr/bin/env python3
"""lane_reduce_count.py — count the shared-memory work of the CSR row-block kernel's reductions
(backends/cuda_hip/csr_kernels.cuh) on a banded matrix (rows of `per_row` random columns inside a
band of `width`) and on its transpose, whose rows vary in length: per block of 2048 nonzeros, the
warp iterations and the shared-memory wavefronts (4-byte words, 32 banks: a wavefront per distinct
address a bank serves) of the lane reduction (zs_lane_rows: a group of lanes a row, the lanes
per row a power of two sized to the block's mean row) and of the thread reduction
(zs_thread_rows: 8 consecutive products a thread; its binary search left out).

    /usr/bin/python3 bench/gpu/lane_reduce_count.py [ROWS]   (default 2^17 rows; seconds)

A model of the kernel's schedule, not a measurement: it says which rows cost the reduction more.
"""
import sys

import numpy as np

BLOCK_NNZ, THREADS, MAX_ROWS, WARP = 2048, 256, 1024, 32


def banded(rows, width=128, per_row=20, seed=42):
    rng = np.random.default_rng(seed)
    half, cols = width // 2, []
    for i in range(rows):
        lo, hi = max(0, i - half), min(rows - 1, i + half)
        cols.append(np.sort(rng.choice(np.arange(lo, hi + 1), per_row, replace=False)))
    ptr = np.zeros(rows + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([len(c) for c in cols])
    return ptr, np.concatenate(cols)


def blocks(ptr):
    """The row plan's blocks (row_blocks.h, rows of at most 64 nonzeros)."""
    out, r, n = [], 0, len(ptr) - 1
    while r < n:
        s = r
        while r < n and r - s < MAX_ROWS and ptr[r + 1] - ptr[s] <= BLOCK_NNZ:
            r += 1
        out.append((s, r))
    return out


def wavefronts(addresses):
    return np.bincount(np.asarray(addresses) % 32, minlength=32).max() if addresses else 0


def lane_reduction(ptr):
    it = wf = 0
    plan = blocks(ptr)
    for s, e in plan:
        rows, lanes = e - s, 1
        while lanes < WARP and lanes * 2 * rows <= THREADS:
            lanes *= 2
        groups, offs = THREADS // lanes, ptr[s:e + 1] - ptr[s]
        for r0 in range(0, rows, groups):
            for w in range(THREADS // WARP):
                mine = [g for g in range(r0 + w * WARP // lanes, r0 + (w + 1) * WARP // lanes) if g < rows]
                if not mine:
                    continue
                lens = [offs[g + 1] - offs[g] for g in mine]
                steps = max((n + lanes - 1) // lanes for n in lens)
                it += steps
                for t in range(steps):
                    wf += wavefronts([offs[g] + t * lanes + ln for g, n in zip(mine, lens)
                                      for ln in range(lanes) if t * lanes + ln < n])
    return it / len(plan), wf / len(plan)


def thread_reduction(ptr, items=8):
    wf, plan = 0, blocks(ptr)
    for s, e in plan:
        n = ptr[e] - ptr[s]
        for w in range(THREADS // WARP):
            for i in range(items):
                wf += wavefronts([(w * WARP + ln) * items + i for ln in range(WARP)
                                  if (w * WARP + ln) * items + i < n])
    return wf / len(plan)


def main():
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 17
    ptr, col = banded(rows)
    t_ptr = np.zeros(rows + 1, dtype=np.int64)
    t_ptr[1:] = np.cumsum(np.bincount(col, minlength=rows))
    print("matrix  lanes: warp iterations  wavefronts   threads: wavefronts   (per block)")
    for name, p in (("A", ptr), ("Aᵀ", t_ptr)):
        it, wf = lane_reduction(p)
        print(f"{name:6}  {it:22.1f}  {wf:10.1f}   {thread_reduction(p):18.1f}")


if __name__ == "__main__":
    main()
