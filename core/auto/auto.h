/* auto.h — the format chooser's internals: matrix statistics, device descriptions and the model
 * that predicts each candidate's bytes and time (docs/auto.md). */
#ifndef ZS_AUTO_H
#define ZS_AUTO_H

#include "core/zs_internal.h"

/* ---- statistics (auto_stats.c) ---- */
#define ZSI_AUTO_WIDTHS 33 /* column deltas by bit width 0..32 */

typedef struct zsi_auto_stats {
  int64_t rows, cols, nnz;
  zs_type type;
  double row_mean, row_cv; /* nonzeros per row: mean and coefficient of variation */
  double len_misses;       /* share of rows (from the third) whose length is not the one that
                              last followed the two lengths before it: row ends a cpu's branch
                              predictor cannot foresee */
  int64_t row_max;
  double long_share;    /* share of nonzeros in rows longer than 256 and 16x the mean */
  double delta_entropy; /* bits per nonzero of the column deltas (a row's first relative to
                             its row index), with wide deltas as bucket + raw bits */
  double width_share[ZSI_AUTO_WIDTHS]; /* share of deltas needing w bits (w = 0: delta 1) */
  double value_entropy;                /* bits per nonzero; the value size in bits when "many" */
  int64_t distinct;        /* distinct values in the sample, ZSI_AUTO_MANY_VALUES past the cap */
  double bandwidth;        /* largest |col - row * cols / rows| in the sample, share of cols */
  double far_share;        /* share of nonzeros whose column is over 64 from the one in the same
                             place of the previous row: gathers that do not coalesce */
  double top1_share;       /* share of nonzeros in the 1 % fullest columns */
  double hot_cols;         /* fewest columns holding 90 % of the nonzeros */
  double blocks_per_nnz;   /* nonempty 32 x 32 blocks per nonzero */
  double sell_fill;        /* entries of slices of 32 rows padded to their longest, per nonzero
                            (SELL-32 in natural order; every row) */
  double sell_fill_sorted; /* the same with rows sorted by length in windows of
                              ZSI_AUTO_SELL_SIGMA rows (SELL-32 with that sigma) */
  double templates;        /* distinct row patterns relative to the diagonal (CSR-dtANS version 5's
                       templates), estimated from the sample */
  double packed_fill;      /* CSR-dtANS packed rows: entries of slices of 32 rows padded to their
                              longest (long rows aside), per nonzero (from the sample) */
  double packed_col_bits;  /* their column fields' bits (whole words) per nonzero */
  double sell_fill_t;      /* sell_fill of Aᵀ (slices of 32 columns), from the sample's counts */
  int64_t col_max;         /* the fullest column (Aᵀ's longest row), the same way */
  double sampled;          /* share of the nonzeros examined */
  /* the encoder's default order for packed rows, by its rule over every row: ZSI_AUTO_ORDER_*
   * bits; with the rows ordered, packed_fill and packed_col_bits are the ordered slices' */
  int packed_order;
  /* the share of nonzeros in the rows packed rows store apart as CSR (long_rows' default) */
  double packed_long_share;
  int64_t packed_row_max;    /* the longest row packed rows do not store apart */
  int64_t block_row_max;     /* most nonzeros in an output block of GCSB's default beta rows */
  double sell_fill_t_sorted; /* sell_fill_sorted of Aᵀ, from the sample's column counts */
} zsi_auto_stats;

#define ZSI_AUTO_SELL_SIGMA 4096  /* the sorted SELL candidate's window (sell:sigma=4096) */
#define ZSI_AUTO_MANY_VALUES 4097 /* more distinct values than the sample keeps */
#define ZSI_AUTO_ORDER_ROWS 1     /* packed_order: rows by length, longest first (row_perm) */
#define ZSI_AUTO_ORDER_COLS 2     /* packed_order: columns by count, fullest first (col_perm) */

/* One pass over row_ptr and one over a deterministic sample of bands of 64 rows (at most
 * ~8 M nonzeros): O(rows + sample). */
ZSI_HIDDEN zs_status zsi_auto_stats_compute(const zs_matrix *A, zsi_auto_stats *st);

/* ---- devices and constants (auto_device.c) ---- */
/* Every constant of the model has a name, so a calibration file can set any of them. */
#define ZSI_AUTO_CONSTANTS(X)                                                                    \
  X(read_gbs, "read ceiling, GB/s")                                                              \
  X(cache_mib, "last-level cache that holds x, MiB")                                             \
  X(gather_ps, "a gather that does not coalesce, x hot part in cache, ps per nonzero")           \
  X(gather_far_ps, "the same when x's hot part exceeds 40 % of the cache")                       \
  X(atomic_ps, "an atomic add into y at a scattered row (one-copy SpMVT), ps per nonzero")       \
  X(csr_eff, "CSR SpMV, share of the read ceiling")                                              \
  X(csr_eff_f32, "the same for f32")                                                             \
  X(csr_launch_us, "CSR fixed cost per product, us")                                             \
  X(csr_t, "CSR SpMVT time / SpMV time")                                                         \
  X(csr_pair, "CSR pair time / SpMV time")                                                       \
  X(coo_eff, "COO SpMV, share of the read ceiling")                                              \
  X(coo_t, "COO SpMVT time / SpMV time")                                                         \
  X(coo_pair, "COO pair time / SpMV time")                                                       \
  X(gcsb_eff, "GCSB SpMV f64, share of the read ceiling")                                        \
  X(gcsb_eff_f32, "GCSB SpMV f32, share of the read ceiling")                                    \
  X(gcsb_launch_us, "GCSB fixed cost per product, us")                                           \
  X(gcsb_t, "GCSB deterministic SpMVT time / SpMV time")                                         \
  X(gcsb_pair, "GCSB fused pair (transpose=atomic) time / SpMV time, f64")                       \
  X(gcsb_pair_f32, "the same for f32")                                                           \
  X(cci_eff, "CCI, share of the read ceiling")                                                   \
  X(cci_row_ps, "CCI cost per row (stream starts), ps")                                          \
  X(cci_decode_ps, "CCI decode, ps per nonzero (the larger of it and the bytes)")                \
  X(cci_launch_us, "CCI fixed cost per product, us")                                             \
  X(dtans_decode_ps, "CSR-dtANS coded decode, ps per nonzero")                                   \
  X(dtans_row_ps, "CSR-dtANS cost per row, ps")                                                  \
  X(dtans_raw_eff, "CSR-dtANS with raw values, share of the read ceiling")                       \
  X(dtans_raw_eff_f32, "the same for f32 values")                                                \
  X(dtans_gather_ps, "CSR-dtANS gather that does not coalesce, ps per nonzero")                  \
  X(dtans_launch_us, "CSR-dtANS fixed cost per product, us")                                     \
  X(dtans_lane256, "lane_symbols=256: decode time factor for coded values")                      \
  X(dtans_guided, "guided=start: raw-value time factor on long regular rows")                    \
  X(dtans_guided_loss, "guided=start: time factor elsewhere")                                    \
  X(encode_csr_ns, "host encode of CSR, ns per nonzero")                                         \
  X(encode_coo_ns, "host encode of COO, ns per nonzero")                                         \
  X(encode_gcsb_ns, "host encode of GCSB, ns per nonzero")                                       \
  X(encode_cci_ns, "host encode of CCI, ns per nonzero")                                         \
  X(encode_dtans_ns, "host encode of CSR-dtANS, ns per nonzero")                                 \
  X(transpose_ns, "building A^T for transpose=stored (its encode aside), ns per nonzero")        \
  X(dtans_pair, "CSR-dtANS fused pair (transpose=atomic) time / SpMV time")                      \
  X(dtans_full_slices, "CSR-dtANS slices (warps) that fill the device, coded values")            \
  X(dtans_full_slices_raw, "the same with raw values")                                           \
  X(sell_eff, "SELL-32 SpMV f64, share of the read ceiling")                                     \
  X(sell_eff_f32, "the same for f32")                                                            \
  X(sell_launch_us, "SELL fixed cost per product, us")                                           \
  X(sell_pair, "SELL one-walk pair (transpose=atomic) time / SpMV time, streamed part")          \
  X(encode_sell_ns, "host encode of SELL, ns per nonzero")                                       \
  X(dtans5_eff, "CSR-dtANS version 5 (template rows), share of the read ceiling")                \
  X(dtans5_decode_ps, "the same, ps per nonzero (value ids and the row walk)")                   \
  X(dtans5_row_ps, "the same, ps per row (its template)")                                        \
  X(dtans5_pair, "the same, fused pair (transpose=atomic) time / SpMV time, streamed part")      \
  X(sell_t, "SELL deterministic SpMVT time / SpMV time (0: A^T stored as CSR, CSR's time)")      \
  X(stored_pair, "transpose=stored: the pair's time / twice the SpMV time")                      \
  X(csr_small_launch_us, "CSR with block_nnz=1024 (small matrices), fixed cost per product, us") \
  X(dtans5_full_rows, "CSR-dtANS version 5: rows (threads) that fill the device")                \
  X(sell_step_ns, "SELL: a thread's step along its row, f64, ns (the longest row bounds it)")    \
  X(dtans5_packed_ps,                                                                            \
    "CSR-dtANS packed rows (row_kind=packed): ps per entry (0: not a candidate)")                \
  X(csr_small_nnz, "CSR on a GPU: nonzeros below which its row blocks shrink")                   \
  X(sell_add_ps, "SELL's one-walk pair on a GPU: an add into z off its neighbours', ps")         \
  X(dtans5_packed_narrow_ps, "packed rows of fields up to 8 bits, ps per entry")                 \
  X(csr_split_cv, "CSR on a GPU: row-length spread from which nonzeros split evenly (0: never)") \
  X(csr_split_gathers, "the nonzero-split kernel's gathers over the row blocks' time")           \
  X(serial_work, "cpu: nonzeros (entries) + rows + cols below which a product runs on 1 thread") \
  X(serial_factor, "cpu: a product's time on one thread over its time on all")                   \
  X(coo_launch_us, "COO fixed cost per product, us")                                             \
  X(pair_cache_mib,                                                                              \
    "cpu: transpose=stored pairs whose two copies fit this (MiB) pay no stored_pair")            \
  X(gather_window_kib, "GPU: gathers within a band of x this size (KiB) cost nothing")           \
  X(dtans5_packed_raw32_ps, "packed rows with raw f32 values, ps per entry")                     \
  X(l2_resident_mib, "version 5 matrices up to this size (MiB, with x and y) stay in the L2")    \
  X(l2_gbs, "the L2's read rate for them, GB/s")                                                 \
  X(dtans5_kernel_us, "packed rows: each further kernel (long rows, x's copy), us")              \
  X(sell_step_f32_ns, "SELL's longest-row step for f32 values, ns")                              \
  X(sell_step_near_ns, "SELL's longest-row step beside few entries, ns")                         \
  X(sell_step_entries, "SELL entries from which a step takes sell_step_ns (f32: _f32_ns)")       \
  X(dtans5_packed_step_ns, "packed rows: a thread's step along its row, ns")                     \
  X(dtans5_packed_order_ps, "packed rows in the encoder's order: more ps an entry")              \
  X(sell_pair_min_us, "SELL's one-walk pair on a GPU: its least time, us")                       \
  X(gcsb_step_ns, "GCSB on a GPU: a warp's step through its output block, ns")                   \
  X(sell_t_pad, "SELL on a GPU: SpMVT by Aᵀ as sorted SELL where that pads at most this share")  \
  X(sell_batch_rows, "SELL on a GPU: padded rows up to which SpMV walks in batches")             \
  X(sell_batch, "SELL's SpMV in batches: time over the loop's, less the launch")                 \
  X(sell_lanes_sms, "SELL on a GPU: multiprocessors of the rule for 4 threads a row (0: one)")   \
  X(plain_l2, "CSR and SELL on a GPU: plain loads where the matrix fits the L2 (1), never (0)")  \
  X(sell_l2_gbs, "SELL on a GPU: its stream from the L2 in GB/s (0: l2_gbs)")                    \
  X(sell_sorted_row_ps, "SELL sorted in windows: ps a row where the sort moves rows")            \
  X(csr_row_step_ns, "CSR on a GPU: a block's step through its longest row, 32 nonzeros, ns")    \
  X(csr_fused_long, "CSR on a GPU: rows longer than a block finished by their last chunk (1)")   \
  X(sell_lanes_step_entries, "SELL with 4 threads a row: entries from which a step is full")     \
  X(gather_l1_ps, "a scattered gather from an x that fits gather_window_kib whole, ps (GPU)")    \
  X(row_miss_ps, "cpu: a row end its loop mispredicts (len_misses), ps")                         \
  X(row_miss_min, "cpu: mispredicted row ends a product must pass before any costs")             \
  X(margin, "another format is chosen over CSR when predicted under this share of its time")

#define ZSI_AUTO_K_ENUM(name, doc) ZSI_AUTO_K_##name,
enum { ZSI_AUTO_CONSTANTS(ZSI_AUTO_K_ENUM) ZSI_AUTO_NK };

typedef struct zsi_auto_device {
  char name[32];    /* "h100", "h200", "gpu", "cpu", "ref" */
  char backend[16]; /* the backend it describes */
  int gpu;          /* 1 for cuda and hip */
  char source[160]; /* where the constants came from: "built-in h100", a calibration file */
  double k[ZSI_AUTO_NK];
} zsi_auto_device;

ZSI_HIDDEN const char *zsi_auto_constant_name(int i);
ZSI_HIDDEN const char *zsi_auto_constant_doc(int i);
/* The built-in description of a device class for a backend: device "" takes the backend's
 * default (cuda: h100, hip: gpu, cpu: cpu, ref: ref). */
ZSI_HIDDEN zs_status zsi_auto_device_builtin(const char *backend, const char *device,
                                             zsi_auto_device *d);
/* Override constants from a calibration file: lines "name value", '#' comments. Errors name the
 * file and line. */
ZSI_HIDDEN zs_status zsi_auto_device_calibrate(zsi_auto_device *d, const char *path);

/* ---- workloads ---- */
typedef enum zsi_auto_work { ZSI_WORK_SPMV, ZSI_WORK_T, ZSI_WORK_PAIR } zsi_auto_work;

typedef struct zsi_auto_workload {
  zsi_auto_work kind;
  int64_t calls; /* products the encode is amortised over; 0: not counted */
} zsi_auto_workload;

/* "spmv", "t", "pair", each with an optional ":N" (N calls, the encode amortised over them), or
 * "solve:N" (N BiCG iterations: "pair:N"); N in 1..10^9. The text is kept in `name`. */
ZSI_HIDDEN zs_status zsi_auto_workload_parse(const char *s, zsi_auto_workload *w);

/* ---- the model (auto_model.c) ---- */
#define ZSI_AUTO_MAX_CANDIDATES 32

typedef struct zsi_auto_candidate {
  zs_format format;
  char options[64];    /* encoder options */
  char op_options[64]; /* operator options */
  double bytes;        /* predicted encoded bytes (both copies with transpose=stored) */
  double product_us;   /* predicted time of one product of the workload (pair: both) */
  double encode_s;     /* predicted host encode time, transpose included */
  double us;           /* what the choice minimises: product_us, or per iteration with the
                          encode amortised over the solve */
  char why[96];        /* what bounds it: "bytes", "decode", "gathers", "launch" */
  double measured_us;  /* tune=trial: one product of the workload as timed (on the band when
                          one was timed), -1 when not timed */
} zsi_auto_candidate;

/* Fill the candidates for this backend and workload (*n of them, at most
 * ZSI_AUTO_MAX_CANDIDATES) and return the index of the choice; reason gets one line. The first
 * candidate is the backend's plain CSR, which the choice falls back to unless another is
 * predicted faster by the margin. Deterministic: the same statistics and device give the same
 * result. */
ZSI_HIDDEN int zsi_auto_model(const zsi_auto_stats *st, const zsi_auto_device *d,
                              const zsi_auto_workload *w, zsi_auto_candidate *c, int *n,
                              char *reason, size_t reason_len);

/* ---- tune=trial (auto_trial.c) ---- */
typedef struct zsi_auto_trial {
  int on;                /* tune=trial */
  double ms;             /* the wall-time bound: band, encodes, uploads and timed calls */
  int top;               /* candidates timed at most */
  double spent_s;        /* what the trial took, within the bound */
  double context_s;      /* creating the backend's context, outside the bound */
  int timed, overturned; /* candidates timed; whether the fastest measured replaced the model's */
  int model_choice;      /* the model's own choice */
  int64_t band_lo, band_hi; /* rows timed: all, or a band from the middle */
  double band_share;        /* share of the nonzeros timed */
  char note[512];           /* one line: the times, the band, the outcome */
} zsi_auto_trial;

/* Time the model's choice and the next best predicted (t->top in all) on `backend` of a context
 * of its own, within t->ms milliseconds; *choice becomes the fastest measured when it is 2 %
 * faster than the model's. Fills c[].measured_us and t. Not deterministic. Errors: those of the
 * backend (a format it lacks is skipped, not an error). */
ZSI_HIDDEN zs_status zsi_auto_trial_run(const zs_matrix *A, const char *backend,
                                        const zsi_auto_workload *w, zsi_auto_candidate *c, int n,
                                        int *choice, zsi_auto_trial *t);

#endif /* ZS_AUTO_H */
