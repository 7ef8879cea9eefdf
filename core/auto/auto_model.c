/* auto_model.c — predicted bytes and time of each candidate (format, encoder options, operator
 * options) for a backend and a workload, and the choice. The formulas and where their constants
 * come from are in docs/auto.md. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/auto/auto.h"
#include "formats/sell/sell_lanes.h"

#define K(name) (d->k[ZSI_AUTO_K_##name])

/* One product y = A x: the format's bytes, its time and what bounds it. */
typedef struct product {
  double bytes, us;
  double launch_us;        /* the fixed part of us, which a fused pair pays once */
  double walk_us, read_us; /* SELL: the longest row's chain of loads (GPU), the bytes' time */
  double lanes;            /* SELL: threads a row of its SpMV (GPU; 0 read as 1) */
  double misses_us;        /* cpu: its mispredicted row ends (row_misses_us), in us */
  const char *bound;
} product;

/* Time of streaming `bytes` at `eff` of the read ceiling, in microseconds. */
static double stream_us(const zsi_auto_device *d, double bytes, double eff) {
  return bytes / (K(read_gbs) * 1e3 * (eff > 0 ? eff : 1e-3));
}

/* The vectors a product reads and writes once each. */
static double vector_bytes(const zsi_auto_stats *st) {
  return (double)(st->rows + st->cols) * (double)zs_type_size(st->type);
}

/* Gathers of x that do not coalesce (each a sector of its own), in microseconds. On a GPU,
 * columns that stay within a band (under a quarter of the columns wide) whose part of x fits
 * gather_window_kib are served by the SM's L1 however they jump from row to row: free (H100, a
 * band 2048 wide at 2e7 nonzeros f32: CSR 65.1 us and SELL 63.0, their bytes alone 59 and 57,
 * where 68 % scattered gathers at gather_ps would add 78). */
static double gather_us(const zsi_auto_stats *st, const zsi_auto_device *d, double ps) {
  const double x_bytes = (double)st->cols * (double)zs_type_size(st->type);
  const double window = 2.0 * st->bandwidth * x_bytes;
  if (d->gpu && st->bandwidth < 0.25 && window <= K(gather_window_kib) * 1024.0) return 0;
  /* an x that fits the window whole is gathered from the L1 at gather_l1_ps (H100, Erdos-Renyi
   * of 4096 columns, 205 a row, f32: CSR 6.1 us, 1.7 over its bytes and launch for 6.4 x 10^5
   * scattered gathers, where gather_ps priced them at 3.6) */
  if (d->gpu && K(gather_l1_ps) > 0 && x_bytes <= K(gather_window_kib) * 1024.0)
    ps = K(gather_l1_ps);
  return st->far_share * (double)st->nnz * ps * 1e-6;
}

/* Whether the hot part of x fits in 40 % of the cache (the CSR column-slab rule). */
static int x_fits(const zsi_auto_stats *st, const zsi_auto_device *d) {
  return st->hot_cols * (double)zs_type_size(st->type) <= 0.4 * K(cache_mib) * 1048576.0;
}

/* gather_us at the rate of a hot part of x in the cache (gather_ps), else of one that is not. */
static double x_gather_us(const zsi_auto_stats *st, const zsi_auto_device *d) {
  return gather_us(st, d, x_fits(st, d) ? K(gather_ps) : K(gather_far_ps));
}

/* The cpu backend runs a product whose work (nonzeros, or SELL's padded entries, plus rows and
 * columns) is below serial_work on the calling thread (a fork/join costs more there): its
 * streamed part then takes serial_factor times as long. 1 elsewhere. */
static double serial(const zsi_auto_device *d, double work) {
  return !d->gpu && work < K(serial_work) ? fmax(K(serial_factor), 1.0) : 1.0;
}

/* The nonzeros plus rows and columns of the matrix: the cpu backend's measure of a product's
 * work. */
static double work_of(const zsi_auto_stats *st) { return (double)(st->nnz + st->rows + st->cols); }

static const char *larger(double a, double b, const char *na, const char *nb) {
  return a >= b ? na : nb;
}

/* Column slabs the GPU's CSR kernel runs with col_slabs=auto: where rows gather at random and
 * x's hot part outgrows 40 % of the cache, as many as bring each slab's part within it (the
 * kernel's own rule, backends/cuda_hip/csr_gpu.cuh); 1 elsewhere. */
static int csr_slabs(const zsi_auto_stats *st, const zsi_auto_device *d) {
  if (!d->gpu || st->far_share < 0.5 || x_fits(st, d)) return 1;
  const double k =
      ceil(st->hot_cols * (double)zs_type_size(st->type) / (0.4 * K(cache_mib) * 1048576.0));
  return k < 1 ? 1 : k > 8 ? 8 : (int)k;
}

/* Whether the GPU's CSR kernel shrinks its row blocks: fewer nonzeros than one default block per
 * SM, csr_small_nnz for blocks of 2048 nonzeros, half that on rows that gather at random (blocks
 * of 1024). */
static int csr_shrunk(const zsi_auto_stats *st, const zsi_auto_device *d) {
  return d->gpu && (double)st->nnz < K(csr_small_nnz) * (st->far_share >= 0.5 ? 0.5 : 1.0);
}

/* Whether the GPU's CSR kernel splits the nonzeros evenly instead of walking row blocks: rows of
 * widely spread lengths (coefficient of variation csr_split_cv or more) on a matrix too large
 * for shrunk blocks (the kernel's own rule, backends/cuda_hip/csr_gpu.cuh). */
static int csr_split(const zsi_auto_stats *st, const zsi_auto_device *d) {
  return d->gpu && K(csr_split_cv) > 0 && st->row_cv >= K(csr_split_cv) && !csr_shrunk(st, d);
}

/* Kernels that load the matrix without an evict-first hint (version 5's template and packed rows,
 * GCSB; CSR and SELL where it fits half the L2, plain_l2): where it and the vectors fit
 * l2_resident_mib, products repeated on it read it from the
 * L2 at l2_gbs (H100: st7's template rows, 8 MB, 4.5 us against 6.1 priced from the ceiling;
 * band-narrow's packed rows, 17 MB, 6.5 against 9.3), elsewhere at eff of the read ceiling. */
static double resident_stream_us(const zsi_auto_device *d, double bytes, double eff) {
  if (K(l2_resident_mib) > 0 && bytes <= K(l2_resident_mib) * 1048576.0 && K(l2_gbs) > 0)
    return bytes / (K(l2_gbs) * 1e3);
  return stream_us(d, bytes, eff);
}

/* CSR's and SELL's matrix streams: plain loads on a GPU where the matrix fits half the L2
 * (plain_l2: stream_matrix, backends/cuda_hip/gpu_common.cuh), so repeated products read it from
 * there; evict-first loads elsewhere, and in modules before that rule (plain_l2 0). */
static double csr_sell_stream_us(const zsi_auto_device *d, double bytes, double eff) {
  return d->gpu && K(plain_l2) > 0 ? resident_stream_us(d, bytes, eff) : stream_us(d, bytes, eff);
}

/* SELL's stream: as CSR's, but from the L2 at sell_l2_gbs where set (its coalesced column-major
 * loads stream the L2 faster than CSR's staged row blocks: H100, Watts-Strogatz f64 16.3 MB and
 * the narrow band 22.7 MB, each about 9.5 TB/s past a 3 us launch, CSR's 5.5-6) */
static double sell_stream_us(const zsi_auto_device *d, double bytes, double eff) {
  if (!d->gpu || K(plain_l2) <= 0 || K(sell_l2_gbs) <= 0) return csr_sell_stream_us(d, bytes, eff);
  zsi_auto_device l2 = *d;
  l2.k[ZSI_AUTO_K_l2_gbs] = K(sell_l2_gbs);
  return resident_stream_us(&l2, bytes, eff);
}

/* A cpu thread's loop mispredicts the end of a row whose length its branch predictor could not
 * foresee (len_misses; cpu: Erdos-Renyi of 10^5 rows, 10 a row, CSR 661 us with equal lengths
 * and 1058 with Poisson ones, about 4 ns a changed row). A predictor learns the sequence of a
 * few thousand row ends, repeated product after product: below row_miss_min they cost nothing
 * (memplus, 6 190 missed of 17 758 rows: CSR 35.8 us, sorted SELL 37.9; rmat-s14, 10 935 of
 * 16 384: 85.2 and 51.5). The formats that walk A row by row pay it (CSR, COO, GCSB's rows in a
 * block, CCI's row streams); SELL's slices walk 32 rows padded to one length. */
static double row_misses_us(const zsi_auto_stats *st, const zsi_auto_device *d) {
  const double n = (double)st->rows * st->len_misses;
  return d->gpu || n < K(row_miss_min) ? 0 : n * K(row_miss_ps) * 1e-6;
}

/* no_slabs: col_slabs=1, where the kernel would otherwise cut x into slabs; small: block_nnz=1024
 * (blocks of 1024 nonzeros: more blocks for a small matrix, a shorter fixed cost). */
static product csr_product(const zsi_auto_stats *st, const zsi_auto_device *d, int no_slabs,
                           int small) {
  const double vs = (double)zs_type_size(st->type);
  product p = {0};
  p.bytes = 8.0 * (double)(st->rows + 1) + (double)st->nnz * (4.0 + vs);
  /* Slabs keep x's hot part in L2 (gathers at gather_ps); each further slab reads the row
   * offsets again and adds into y once more. A CPU has no slabs. */
  const int slabs = no_slabs ? 1 : csr_slabs(st, d);
  const double extra = (slabs - 1) * (8.0 * (double)(st->rows + 1) + 2.0 * (double)st->rows * vs);
  const int near = x_fits(st, d) || slabs > 1;
  /* the split kernel's tiles of 1024 items keep more gathers in flight than row blocks that
   * wait for their longest row (H100, R-MAT at 8-12 M nonzeros: 62.5, 76.2 and 82.4 us against
   * the row blocks' 75.1, 79.2 and 124.1; its gathers 3.9-4.8 ps a nonzero, 5.7 for the rows) */
  const double split = csr_split(st, d) ? K(csr_split_gathers) : 1.0;
  const double g = split * gather_us(st, d, near ? K(gather_ps) : K(gather_far_ps));
  const double eff = st->type == ZS_F32 ? K(csr_eff_f32) : K(csr_eff);
  const double b = csr_sell_stream_us(d, p.bytes + extra + vector_bytes(st), eff);
  /* the kernel's default blocks (and the split kernel's tiles) are 1024 nonzeros on rows that
   * gather at random and shrink below csr_small_nnz (132 SMs x 2048 nonzeros on the H100): the
   * fixed cost is then small blocks' */
  const int shrunk = csr_shrunk(st, d) || (d->gpu && st->far_share >= 0.5);
  const double launch = small || shrunk ? K(csr_small_launch_us) : K(csr_launch_us);
  /* a row that fits a block (1024 nonzeros with block_nnz=1024, else up to 2048: small matrices'
   * blocks grow to hold their longest row) is summed by at most 32 lanes of it, a dependent step
   * per 32 nonzeros; a longer row is cut into chunks of a block each. On a small matrix that
   * chain is the time (H100, plain loads: rajat01, a row of 1442, 7.2 us, 5.3 with blocks of
   * 1024; adder_dcop_05, 1310: 6.2 and 5.0; rmat-s14, 1540: 8.2 and 7.1; rows under 100: 3.1-3.5) */
  const double misses = row_misses_us(st, d), one = serial(d, work_of(st));
  const double chunk = fmin((double)st->row_max, small ? 1024 : 2048);
  const double walk = d->gpu ? ceil(chunk / 32) * K(csr_row_step_ns) * 1e-3 : 0;
  p.us = launch + fmax((b + g + misses) * one, walk), p.launch_us = launch;
  p.misses_us = misses * one;
  p.bound = walk > b + g + misses     ? "longest row"
            : launch > b + g + misses ? "launch"
            : misses > fmax(b, g)     ? "mispredicted row ends"
                                      : larger(b, g, "bytes", "gathers");
  return p;
}

static product coo_product(const zsi_auto_stats *st, const zsi_auto_device *d) {
  const double vs = (double)zs_type_size(st->type);
  product p = {0};
  p.bytes = (double)st->nnz * (8.0 + vs);
  const double g = x_gather_us(st, d);
  const double b = stream_us(d, p.bytes + vector_bytes(st), K(coo_eff));
  const double one = serial(d, work_of(st));
  p.misses_us = row_misses_us(st, d) * one;
  p.us = K(coo_launch_us) + (b + g) * one + p.misses_us;
  p.launch_us = K(coo_launch_us);
  p.bound = larger(b, g, "bytes", "gathers");
  return p;
}

static product gcsb_product(const zsi_auto_stats *st, const zsi_auto_device *d) {
  const double vs = (double)zs_type_size(st->type);
  product p = {0};
  /* values and 16-bit local indices, ~5 % group padding, 16 bytes of index per block */
  p.bytes = (double)st->nnz * (vs + 2.0) * 1.05 + 16.0 * st->blocks_per_nnz * (double)st->nnz;
  const double eff = st->type == ZS_F32 ? K(gcsb_eff_f32) : K(gcsb_eff);
  const double g = x_gather_us(st, d);
  /* GCSB loads its blocks without an evict-first hint: a matrix that fits the L2 stays there
   * between products. A GPU warp walks an output block's blocks (beta rows) 32 elements a step:
   * the fullest one bounds the product (H100: elast16, 1296 nonzeros in 16 rows, 9.5 us;
   * bcsstk16, 1251, 8.5; their bytes ~2) */
  const double b = resident_stream_us(d, p.bytes + vector_bytes(st), eff);
  const double walk = d->gpu ? ceil((double)st->block_row_max / 32.0) * K(gcsb_step_ns) * 1e-3 : 0;
  p.us = K(gcsb_launch_us) + fmax((b + g + row_misses_us(st, d)) * serial(d, work_of(st)), walk);
  p.launch_us = K(gcsb_launch_us);
  p.bound = walk > b + g ? "fullest block row" : larger(b, g, "bytes", "gathers");
  return p;
}

/* A GPU thread walks its SELL row alone: the longest row's chain of loads bounds the product,
 * a step of it taking longer the more entries the other warps stream beside it (H100, f64:
 * 76-94 ns on the shared matrices under 10^5 entries, 237-305 on bcsstk16, bayer10 and elast16
 * at 2.4-9.3 x 10^5, 227-232 on wiki-Vote, ba and R-MAT; f32: 150-155 on R-MAT and er-dense):
 * from sell_step_near_ns to the value type's step over sell_step_entries entries. */
static double sell_step_ns(const zsi_auto_stats *st, const zsi_auto_device *d, double entries,
                           double lanes) {
  const double far = st->type == ZS_F32 ? K(sell_step_f32_ns) : K(sell_step_ns);
  const double near = fmin(K(sell_step_near_ns), far);
  /* four threads a row walk in predicated batches, whose steps stay near the short one over
   * far more entries (H100, (time - launch) over a quarter of the longest row: 74-87 ns on
   * wiki-Vote, rmat-s14, memplus, rajat01 and adder_dcop_05 at 0.06-1.1 x 10^6 entries; 107 on
   * elasticity 16^3, 0.9 x 10^6; 122 on Barabasi-Albert, 2 x 10^6; 178-189 on R-MAT, 6 x 10^7) */
  const double full = lanes > 1 && K(sell_lanes_step_entries) > 0 ? K(sell_lanes_step_entries)
                                                                  : K(sell_step_entries);
  const double share = full > 0 ? fmin(1.0, entries / full) : 1;
  return near + (far - near) * share;
}

/* Threads a padded row of SELL's SpMV on a GPU: the kernel's rule (zs_sell_lanes_rule in
 * formats/sell/sell_lanes.h) on sell_lanes_sms multiprocessors: 4 where at most 4 warps a
 * multiprocessor hold slices 12 entries wide or more on average, or where the longest row's
 * batches of 8 outnumber a multiprocessor's share of all batches; else 1. */
static double sell_lanes(const zsi_auto_stats *st, const zsi_auto_device *d, double entries,
                         double slices) {
  const double sms = d->gpu ? K(sell_lanes_sms) : 0;
  if (sms <= 0 || slices <= 0) return 1;
  const int few = slices <= ZS_SELL_LANES_WARPS_PER_SM * sms &&
                  entries >= ZS_SELL_LANES_MIN_WIDTH * 32 * slices;
  const int skewed = ceil((double)st->row_max / 8) * 32 * sms > entries / 8 + 16 * slices;
  return few || skewed ? 4 : 1;
}

#define SELL_CPU_SUMS_ROWS (8 * 4096) /* sell_sums_pay's line on two threads */

/* SELL-C-sigma with c = 32 (docs/formats/sell.md), in natural order (sell_fill) or sorted by
 * length in windows of 4096 rows (sorted: sell_fill_sorted): every slice of 32 rows padded to its
 * longest row, columns and values of every entry, a slice offset per 32 rows; the kernels do not
 * read row_len. Padding repeats the row's last column, whose line of x was just read: no gathers
 * of its own. */
static product sell_product(const zsi_auto_stats *st, const zsi_auto_device *d, int sorted) {
  const double vs = (double)zs_type_size(st->type);
  const double fill = fmax(1.0, sorted ? st->sell_fill_sorted : st->sell_fill); /* >= 1 */
  const double entries = (double)st->nnz * fill, slices = ceil((double)st->rows / 32);
  const double rl = st->row_max < 256 ? 1 : st->row_max < 65536 ? 2 : 4;
  /* sorted: the row order too (4 bytes a row), read to place each row's sum; where the sort
   * moves rows (their lengths differ) a warp's 32 sums land on 32 sectors of y, not on 32
   * neighbouring values, and their rows' gathers of x no longer share lines: sell_sorted_row_ps
   * a row (H100, Watts-Strogatz f64, rows of 10 +- 2, plain loads: 6.1 us sorted against 5.3
   * in natural order, though 17 % smaller). A cpu thread's sums land in its own window's part
   * of y, 4096 values in its caches, except below SELL_CPU_SUMS_ROWS rows, where the windows
   * that two threads share write their sums in position order and a second pass writes y
   * (backends/cpu/cpu_sell.c, sell_sums_pay, on two threads), priced as the GPU's scatter */
  const int moves = sorted && st->row_cv > 0;
  const int scattered = d->gpu || st->rows < SELL_CPU_SUMS_ROWS;
  const double scatter = moves && scattered ? (32.0 - vs) * (double)st->rows : 0;
  const double moved = moves ? (double)st->rows * K(sell_sorted_row_ps) * 1e-6 : 0;
  const double read = (4.0 + vs) * entries + 8.0 * (slices + 1) + (sorted ? 4.0 * st->rows : 0);
  product p = {0};
  p.bytes = read + rl * (double)st->rows;
  const double eff = st->type == ZS_F32 ? K(sell_eff_f32) : K(sell_eff);
  const double g = x_gather_us(st, d);
  const double b = sell_stream_us(d, read + scatter + vector_bytes(st), eff);
  /* the longest row's chain of steps, shared by the threads of its row */
  const double lanes = sell_lanes(st, d, entries, slices);
  const double walk = (double)st->row_max * sell_step_ns(st, d, entries, lanes) * 1e-3 / lanes;
  const double one = serial(d, entries + (double)(st->rows + st->cols)); /* padded entries */
  /* the SpMV walks in predicated batches where its whole grid is resident at once, a thread a
   * padded row (sell_batch_rows: the kernel's rule, backends/cuda_hip/sell_gpu.cuh) */
  const double batched =
      d->gpu && K(sell_batch_rows) > 0 && 32 * slices <= K(sell_batch_rows) ? K(sell_batch) : 1;
  p.us = K(sell_launch_us) + fmax(b + g, walk) * one * batched + moved;
  p.launch_us = K(sell_launch_us);
  /* the fused pair's walk (read_us) reads the matrix as evict-first loads did: its atomics into z
   * keep the L2 busy (H100, Watts-Strogatz: 15.1 us with plain loads, 16.7 evict-first) */
  p.walk_us = walk, p.read_us = stream_us(d, read + vector_bytes(st), eff) * one, p.lanes = lanes;
  p.bound = walk > b + g                ? "longest row"
            : K(sell_launch_us) > b + g ? "launch"
                                        : larger(b, g, "bytes", "gathers");
  return p;
}

/* CCI's code length for a delta of w bits: the paper's opcodes (a step of 1 in the 0 code). */
static double cci_code_bits(int w) {
  return w == 0 ? 1 : w <= 5 ? 8 : w <= 15 ? 18 : w <= 20 ? 23 : 32;
}

static product cci_product(const zsi_auto_stats *st, const zsi_auto_device *d, int slices,
                           int auto_opcodes) {
  const double vs = (double)zs_type_size(st->type);
  double bits = 0;
  for (int w = 0; w < ZSI_AUTO_WIDTHS; w++) bits += st->width_share[w] * cci_code_bits(w);
  if (auto_opcodes) bits *= 0.85; /* opcodes fitted to the matrix's widths */
  product p = {0};
  /* per (row, slice): a start offset and half a 16-byte stream word of padding */
  p.bytes = (double)st->nnz * (vs + bits / 8.0) + 9.0 * slices * (double)st->rows;
  const double b = stream_us(d, p.bytes + vector_bytes(st), K(cci_eff));
  const double dec = (double)st->nnz * K(cci_decode_ps) * 1e-6;
  /* hub rows take one slice group (23x CSR on R-MAT) */
  const double g = x_gather_us(st, d) + st->long_share * (double)st->nnz * 50 * K(gather_ps) * 1e-6;
  p.us = K(cci_launch_us) +
         (fmax(b, dec) + (double)st->rows * K(cci_row_ps) * 1e-6 + g + row_misses_us(st, d)) *
             serial(d, work_of(st));
  p.launch_us = K(cci_launch_us);
  p.bound = g > fmax(b, dec) ? "gathers" : larger(b, dec, "bytes", "decode");
  return p;
}

/* How CSR-dtANS stores the values: coded with the columns (few distinct values) or raw. */
static int dtans_coded_values(const zsi_auto_stats *st) {
  return st->distinct < ZSI_AUTO_MANY_VALUES && st->delta_entropy + st->value_entropy <= 16.0;
}

/* The share of the device a CSR-dtANS kernel keeps busy: one warp decodes a slice of 32 lanes of
 * lane_symbols symbols each (2 per nonzero with coded values, else 1), and below the slices that
 * fill the device (fitted: the suite at an eighth of its size runs the default 1024-symbol lanes
 * at a third of the speed per nonzero it reaches at full size) the product slows in proportion. */
static double dtans_busy(const zsi_auto_stats *st, const zsi_auto_device *d, int coded,
                         int lane256) {
  if (!d->gpu) return 1.0;
  const double symbols = (double)st->nnz * (coded ? 2.0 : 1.0);
  const double slices = symbols / (32.0 * (lane256 ? 256.0 : 1024.0));
  const double full = coded ? K(dtans_full_slices) : K(dtans_full_slices_raw);
  return full > 0 && slices < full ? fmax(slices, 1.0) / full : 1.0;
}

/* Whether the encoder's default (templates=auto) keeps stream version 5: rows that repeat a
 * pattern relative to the diagonal (stencils, FEM grids), which the statistics see as column
 * deltas of a few bits and no scattered or hub rows. */
static int dtans_templates(const zsi_auto_stats *st) {
  return st->delta_entropy < 2.5 && st->long_share == 0 && st->far_share < 0.1 &&
         st->templates * 64 <= (double)st->rows && st->row_mean >= 4;
}

/* Version 5 (docs/formats/dtans.md): a 2-byte template id per row, the values raw, as 1- or
 * 2-byte ids (up to 256 or 65536 distinct) or none (one value); a GPU thread, or a cpu thread's
 * walk, per row. */
static product dtans5_product(const zsi_auto_stats *st, const zsi_auto_device *d) {
  const double vs = (double)zs_type_size(st->type), n = (double)st->nnz;
  const double ids = st->distinct <= 1                     ? 0
                     : st->distinct <= 256                 ? 1
                     : st->distinct < ZSI_AUTO_MANY_VALUES ? 2
                                                           : vs;
  product p = {0};
  p.bytes = 2.0 * (double)st->rows + n * fmin(ids, vs);
  const double b = resident_stream_us(d, p.bytes + vector_bytes(st), K(dtans5_eff));
  const double dec = (n * K(dtans5_decode_ps) + (double)st->rows * K(dtans5_row_ps)) * 1e-6;
  const double g = gather_us(st, d, K(gather_ps));
  /* a thread per row: below the rows that fill the device, latency bounds each walk */
  const double full = K(dtans5_full_rows), busy = full > 0 && st->rows < full ? st->rows / full : 1;
  /* one kernel: a small CSR's fixed cost (H100, the re-time at 10^6 nonzeros: st7 4.65 us, its
   * bytes 2.8; lap2d-9pt-s 4.57) */
  p.us = K(csr_small_launch_us) + fmax(b, dec) / fmax(busy, 1e-3) + g;
  p.launch_us = K(csr_small_launch_us);
  p.bound = busy < 1           ? "occupancy"
            : g > fmax(b, dec) ? "gathers"
                               : larger(b, dec, "bytes", "decode");
  return p;
}

/* Version 5's packed rows (row_kind=packed): per slice of 32 rows, every lane padded to the
 * slice's longest row (packed_fill) with column fields of the slice's widest step
 * (packed_col_bits) and the values as packed ids (b bits, 32 / b a word) or raw; a 2-byte
 * template entry per row. A thread per row as with templates, at dtans5_packed_ps per entry;
 * its gathers are CSR's without column slabs. In the encoder's default order for power-law rows
 * (packed_order: R-MAT) the rows come by length and the columns by count: 4 bytes a row and a
 * column of order, the rows over long_rows stored apart as CSR and run by a kernel of their own
 * at CSR's rate, x copied through col_perm and y written through row_perm on every call
 * (R-MAT scale 22, f64, 64 values: the blob 1225.8 -> 466.8 MB; the copies ~25 and ~15 us, the
 * long rows ~180, the ordered rows ~330: docs/performance.md, "Packed rows on power-law
 * rows"). */
static product dtans_packed_product(const zsi_auto_stats *st, const zsi_auto_device *d) {
  const double vs = (double)zs_type_size(st->type), n = (double)st->nnz;
  const double entries = n * fmax(st->packed_fill, 1.0 - st->packed_long_share);
  const double rows = (double)st->rows, cols = (double)st->cols;
  double value_bytes = entries * vs; /* raw */
  if (st->distinct <= 1) {
    value_bytes = 0;
  } else if (st->distinct < ZSI_AUTO_MANY_VALUES) { /* ids: half a word a lane of padding */
    const double b = ceil(log2((double)st->distinct)), per_word = floor(32.0 / b);
    value_bytes = fmin(entries * 4.0 / per_word + 2.0 * rows, value_bytes);
  }
  const int by_rows = st->packed_order & ZSI_AUTO_ORDER_ROWS;
  const int by_cols = st->packed_order & ZSI_AUTO_ORDER_COLS;
  const double long_bytes = n * st->packed_long_share * (4.0 + vs);
  product p = {0};
  p.bytes = 2.0 * rows + n * st->packed_col_bits / 8.0 + value_bytes;
  const double b = resident_stream_us(d, p.bytes + vector_bytes(st), K(dtans5_eff));
  p.bytes += long_bytes + (by_rows ? 4.0 * rows : 0) + (by_cols ? 4.0 * cols : 0);
  /* per call: x read through col_perm into a copy by encoded column, y written through row_perm
   * (each a scattered access to the vector: its bytes once more with the order's 4) */
  const double order_us = stream_us(
      d, (by_cols ? cols * (4.0 + 2.0 * vs) : 0) + (by_rows ? rows * (4.0 + vs) : 0), 1.0);
  /* the long rows' and x's copy are kernels of their own, each launched after the last (a
   * second launch ~2 us on the H100: SELL's one-walk pair 5.6-5.9 us where its SpMV took
   * 3.0-4.2 on the smallest shared matrices) */
  const double eff = st->type == ZS_F32 ? K(csr_eff_f32) : K(csr_eff);
  const double long_us = long_bytes > 0 ? stream_us(d, long_bytes, eff) + K(dtans5_kernel_us) : 0;
  const double kernels = by_cols ? K(dtans5_kernel_us) : 0;
  /* narrow fields: words read ahead cover more of them (and f64 decodes two ahead of their
   * gathers): band-set 282 us f64, 298 f32 (1.54, 1.63 ps an entry); er-set 678, 541 (1.80,
   * 2.13 past its gathers). Raw f32 values take longer (band at 2e7 nonzeros: 72.4 us f32
   * against 80.4 f64 and 40.4 with 64 values' ids; band-wide f32 77.8; er f32 71.0 under its
   * gathers) */
  const int narrow = st->packed_col_bits <= 8;
  const int raw32 = st->distinct >= ZSI_AUTO_MANY_VALUES && st->type == ZS_F32;
  const double ps = raw32    ? K(dtans5_packed_raw32_ps)
                    : narrow ? K(dtans5_packed_narrow_ps)
                             : K(dtans5_packed_ps);
  const double dec = (entries * ps + rows * K(dtans5_row_ps)) * 1e-6;
  const double g = x_gather_us(st, d);
  const double full = K(dtans5_full_rows), busy = full > 0 && rows < full ? rows / full : 1;
  /* one kernel: a small CSR's fixed cost (H100, the smallest shared matrices: 4.5-5.0 us;
   * band-narrow, 1.6e6 nonzeros, 6.5) */
  /* a thread walks its packed row alone: the longest one that is not stored apart bounds the
   * rows' kernel (H100: ba, rows up to 887, 343 us; R-MAT scale 19, up to 508, 254-373 us: 380-
   * 640 ns a step). Ordered rows' gathers cost more than CSR's: a slice's 32 rows come from all over the
   * matrix (R-MAT scale 22 measured 836.6 us f64, 704.8 f32 with 64 values, 907.7 random f64:
   * 3.5-5.5 ps an entry over the rest of the model) */
  const double walk = (double)st->packed_row_max * K(dtans5_packed_step_ns) * 1e-3;
  const double scattered = by_rows ? entries * K(dtans5_packed_order_ps) * 1e-6 : 0;
  const double rows_us = fmax(fmax(b, dec) / fmax(busy, 1e-3) + g + scattered, walk);
  p.us = K(csr_small_launch_us) + rows_us + long_us + order_us + kernels;
  p.launch_us = K(csr_small_launch_us);
  p.bound = walk >= rows_us                ? "longest row"
            : busy < 1                     ? "occupancy"
            : g + scattered > fmax(b, dec) ? "gathers"
                                           : larger(b, dec, "bytes", "decode");
  return p;
}

/* lane256: lane_symbols=256; guided: guided=start (both keep versions 2-4). */
static product dtans_product(const zsi_auto_stats *st, const zsi_auto_device *d, int lane256,
                             int guided) {
  if (!lane256 && !guided && dtans_templates(st)) return dtans5_product(st, d);
  const double vs = (double)zs_type_size(st->type), n = (double)st->nnz;
  const int coded = dtans_coded_values(st);
  /* A symbol costs at least 4 bits (K = 4096 slots, M = 256), ~3 % over its entropy; wide
   * deltas escape, and raw columns (4 bytes) cap it. Per row: stream words and a length. */
  const double h = coded ? st->delta_entropy + st->value_entropy : st->delta_entropy;
  double bits = fmax(4.0, h) * 1.03 + (h > 12 ? 0.5 * (h - 12) : 0);
  if (bits > 34) bits = 34;
  product p = {0};
  p.bytes = n * bits / 8.0 + (coded ? 0 : n * vs) + 1.5 * (double)st->rows;
  const double g = gather_us(st, d, K(dtans_gather_ps));
  const double busy = dtans_busy(st, d, coded, lane256);
  double dec = (n * K(dtans_decode_ps) + (double)st->rows * K(dtans_row_ps)) * 1e-6;
  if (lane256) dec *= K(dtans_lane256);
  const double eff = coded ? 1.0 : st->type == ZS_F32 ? K(dtans_raw_eff_f32) : K(dtans_raw_eff);
  const double b = stream_us(d, p.bytes + vector_bytes(st), eff);
  double t = fmax(dec, b) / busy;
  /* guided slices even out long regular rows and cost elsewhere (docs/performance.md) */
  if (guided && !coded)
    t *= st->row_mean >= 20 && st->far_share < 0.3 ? K(dtans_guided) : K(dtans_guided_loss);
  p.us = K(dtans_launch_us) + t + g, p.launch_us = K(dtans_launch_us);
  p.bound = busy < 1 ? "occupancy" : g > t ? "gathers" : larger(dec, b, "decode", "bytes");
  return p;
}

/* How a candidate serves SpMVT and the pair. */
typedef enum tmode { T_DEFAULT, T_STORED, T_ATOMIC } tmode;

typedef struct spec {
  zs_format format;
  const char *options;
  int slices, flag_a, flag_b; /* cci: slices, auto opcodes; dtans: lane256, guided (both: packed
                                 rows); csr: flag_a col_slabs=1, flag_b block_nnz=1024; sell:
                                 flag_a sigma=4096 */
} spec;

static product product_of(const spec *s, const zsi_auto_stats *st, const zsi_auto_device *d) {
  switch (s->format) {
  case ZS_FORMAT_COO: return coo_product(st, d);
  case ZS_FORMAT_GCSB: return gcsb_product(st, d);
  case ZS_FORMAT_CCI: return cci_product(st, d, s->slices, s->flag_a);
  case ZS_FORMAT_DTANS:
    return s->flag_a && s->flag_b ? dtans_packed_product(st, d)
                                  : dtans_product(st, d, s->flag_a, s->flag_b);
  case ZS_FORMAT_SELL: return sell_product(st, d, s->flag_a);
  default: return csr_product(st, d, s->flag_a, s->flag_b);
  }
}

static double encode_ns(zs_format f, const zsi_auto_device *d) {
  switch (f) {
  case ZS_FORMAT_COO: return K(encode_coo_ns);
  case ZS_FORMAT_GCSB: return K(encode_gcsb_ns);
  case ZS_FORMAT_CCI: return K(encode_cci_ns);
  case ZS_FORMAT_DTANS: return K(encode_dtans_ns);
  case ZS_FORMAT_SELL: return K(encode_sell_ns);
  default: return K(encode_csr_ns);
  }
}

/* Adds into z at one step of a warp that land off their neighbours' columns, on a GPU: rows that
 * repeat no pattern near the diagonal (sell_add_ps each of the near ones). */
static double adds_apart_us(const zsi_auto_stats *st, const zsi_auto_device *d) {
  const double apart = st->templates * 64 > (double)st->rows ? 1 - st->far_share : 0;
  return apart * (double)st->nnz * K(sell_add_ps) * 1e-6;
}

/* Aᵀ's statistics as far as the sample knows them: A's, with rows and columns swapped and the
 * slices' padding from the column counts (sell_fill_t, sell_fill_t_sorted). */
static zsi_auto_stats transposed_stats(const zsi_auto_stats *st) {
  zsi_auto_stats t = *st;
  t.sell_fill = t.packed_fill = fmax(st->sell_fill_t, 1.0);
  t.sell_fill_sorted = fmax(st->sell_fill_t_sorted, 1.0);
  t.rows = st->cols, t.cols = st->rows, t.row_mean = (double)st->nnz / fmax((double)st->cols, 1);
  t.row_max = st->col_max;
  return t;
}

/* A stored Aᵀ's product: A's statistics, but for the slices' padding where the format pads
 * (SELL, packed rows: Aᵀ's rows are A's columns, whose counts may spread where A's rows do not,
 * e.g. Erdos-Renyi's 16 a row against Poisson counts a column: SELL's stored pair measured 174 us
 * against 161.7 with CSR's transpose), and whose longest bounds the walk of SELL sorted or not
 * (illc1850, 1850 x 712: sorted SELL's stored pair 14.1 us, its one-copy pair 7.1). */
static double stored_t_us(const spec *s, const product *p, const zsi_auto_stats *st,
                          const zsi_auto_device *d) {
  const int packed = s->format == ZS_FORMAT_DTANS && s->flag_a && s->flag_b;
  if (s->format != ZS_FORMAT_SELL && !packed) return p->us;
  /* packed rows the encoder orders by length: Aᵀ's too where its columns spread as its rows do
   * (R-MAT); priced as A's, whose order pads no slice */
  if (packed && (st->packed_order & ZSI_AUTO_ORDER_ROWS)) return p->us;
  const zsi_auto_stats t = transposed_stats(st);
  return product_of(s, &t, d).us;
}

/* d with nothing kept in the L2 between products: every stream priced from memory. */
static zsi_auto_device from_memory(const zsi_auto_device *d) {
  zsi_auto_device m = *d;
  m.k[ZSI_AUTO_K_l2_resident_mib] = 0;
  return m;
}

/* The bytes of the copy of Aᵀ a candidate keeps beside A: A's own format where stored, else
 * the Aᵀ its deterministic SpMVT builds on first use (CSR's size; SELL's sorted Aᵀ is about as
 * large); none for one-copy SpMVT (atomic, and GCSB's, which walks A's own blocks). */
static double second_copy_bytes(const spec *s, tmode m, const product *p, const product *csr) {
  if (m == T_ATOMIC) return 0;
  if (m == T_STORED) return p->bytes;
  return s->format == ZS_FORMAT_GCSB || s->format == ZS_FORMAT_COO ? 0 : csr->bytes;
}

/* SpMVT time and pair time of a candidate from its SpMV time p. */
static void transposed(const spec *s, tmode m, const product *p, const product *csr,
                       const zsi_auto_stats *st, const zsi_auto_device *d, double *t_us,
                       double *pair_us) {
  /* A and the copy of Aᵀ beside it that fit the L2 apart but not together (over 1.3
   * l2_resident_mib for both and the vectors) each read from memory, CSR's and SELL's plain
   * loads included (H100: the narrow band, 20.8 MB a copy, SELL's deterministic pair 25.1 us
   * where its SpMV alone takes 5.4; its packed rows stored, 34.4 MB with the vectors, 6.5 us for
   * the SpMV and 19.5-23.0 for the pair; Watts-Strogatz's SELL stored, 32.5 MB, fits: 10.7) */
  const double second = second_copy_bytes(s, m, p, csr);
  if (d->gpu && K(l2_resident_mib) > 0 && second > 0 &&
      p->bytes + second + 2.0 * vector_bytes(st) > 1.3 * K(l2_resident_mib) * 1048576.0) {
    const zsi_auto_device apart = from_memory(d);
    const product q = product_of(s, st, &apart), c = csr_product(st, &apart, 0, 0);
    transposed(s, m, &q, &c, st, &apart, t_us, pair_us);
    return;
  }
  /* One-copy SpMVT adds into z at the columns: along diagonals the adds of a warp meet in a few
   * lines, at random each is a sector of its own (atomic_ps per scattered nonzero). */
  const double atomics = st->far_share * (double)st->nnz * K(atomic_ps) * 1e-6;
  /* A fused pair reads the matrix once: its factor applies to the streamed part, while each
   * product gathers (x for y, w for z) on its own. */
  const double g =
      gather_us(st, d, s->format == ZS_FORMAT_DTANS ? K(dtans_gather_ps) : K(gather_ps));
  const double stream = fmax(p->us - g, 0);
  if (s->format == ZS_FORMAT_CSR && s->flag_b && d->gpu) {
    /* block_nnz is A's product's: Aᵀ, stored or built at first use, keeps the default blocks
     * (bayer10 on the H100: 4.6 us with 1024, 11.3 for the pair, 6.4 the default's SpMV) */
    *t_us = K(csr_t) * csr->us, *pair_us = p->us + *t_us;
    return;
  }
  if (m == T_STORED) { /* Aᵀ encoded beside A with A's options: a forward product each */
    /* on the cpu the two products cost no more than twice one where both copies and the vectors
     * stay in the cache that holds one (pair / SpMV 1.7-2.2 up to 1.6 MB a copy, 2.2-5.0 past) */
    const double both = 2.0 * p->bytes + 2.0 * vector_bytes(st);
    const int fit = !d->gpu && both <= K(pair_cache_mib) * 1048576.0;
    *t_us = stored_t_us(s, p, st, d), *pair_us = (fit ? 1.0 : K(stored_pair)) * (p->us + *t_us);
    return;
  }
  switch (s->format) {
  /* the cpu's SpMVT walks A's rows as the SpMV does, and its pair walks them once for both */
  case ZS_FORMAT_CSR:
    *t_us = K(csr_t) * (p->us - p->misses_us) + p->misses_us;
    *pair_us = K(csr_pair) * (p->us - p->misses_us) + p->misses_us;
    return;
  case ZS_FORMAT_COO:
    *t_us = K(coo_t) * (p->us - p->misses_us) + p->misses_us;
    *pair_us = K(coo_pair) * (p->us - p->misses_us) + p->misses_us;
    return;
  case ZS_FORMAT_GCSB:
    *t_us = K(gcsb_t) * p->us;
    if (m == T_ATOMIC) {
      const double f = st->type == ZS_F32 ? K(gcsb_pair_f32) : K(gcsb_pair);
      /* the fused walk reads the matrix from memory even where it fits the L2, as SELL's does:
       * its atomics into z keep the L2 busy (H100, the narrow band f64, 16.8 MB: 19.2-19.8 us
       * against 17.5 for the SpMV and the deterministic SpMVT) */
      double streamed = stream;
      if (d->gpu && K(l2_resident_mib) > 0) {
        const zsi_auto_device apart = from_memory(d);
        streamed = fmax(gcsb_product(st, &apart).us - g, 0);
      }
      /* f32 pays for adds off their neighbours' columns too (band f32: 185 us, f64 172) */
      *pair_us =
          f * streamed + g + atomics + (st->type == ZS_F32 && d->gpu ? adds_apart_us(st, d) : 0);
    } else {
      *pair_us = p->us + *t_us;
    }
    return;
  case ZS_FORMAT_SELL: /* its deterministic SpMVT: on a GPU Aᵀ stored as CSR, or as SELL sorted
                          in windows of 4096 where that pads at most sell_t_pad (H200: band f32
                          49.3 us against 63.1 through CSR); on a cpu its own scatter */
    if (d->gpu && K(sell_t_pad) > 0 && st->sell_fill_t_sorted <= 1.0 + K(sell_t_pad)) {
      const spec sorted = {ZS_FORMAT_SELL, "sigma=4096", 0, 1, 0};
      const zsi_auto_stats t = transposed_stats(st);
      *t_us = product_of(&sorted, &t, d).us;
    } else {
      *t_us = K(sell_t) > 0 ? K(sell_t) * p->us : csr->us * K(csr_t);
    }
    if (m != T_ATOMIC) {
      *pair_us = p->us + *t_us;
    } else if (d->gpu) { /* one launch walks both, each row's chain of loads once; at least
                            sell_pair_min_us (H100: 7.0-9.7 us, median 8.4, on the 15 smallest
                            shared matrices, their SpMV 3.6-4.8; netscience 8.7 in a later
                            call, where CSR's pair took 6.65) */
      /* rows that repeat no pattern near the diagonal: a warp's 32 adds at one step land on 32
       * different columns of the band, not on consecutive ones (band f64: 204.5 us, 1.98x the
       * SpMV, against 1.3-1.6x on the stencils) */
      const double adds = adds_apart_us(st, d), once = p->launch_us;
      const double lanes = fmax(p->lanes, 1); /* the pair's walk: a thread a row */
      const double walks = fmax(K(sell_pair) * p->read_us + g, lanes * p->walk_us);
      const double fused = fmax(K(sell_pair_min_us), once + walks + atomics + adds);
      /* where the SpMV takes 4 threads a row the walks are not fused (y keeps the SpMV's bits):
       * the SpMV, then the atomic SpMVT, priced as the fused walk */
      *pair_us = lanes > 1 ? p->us + fused : fused;
    } else {
      *pair_us = K(sell_pair) * stream + g + atomics;
    }
    return;
  case ZS_FORMAT_DTANS:
    if (m == T_ATOMIC) { /* one decode serves both products, atomics into z */
      const int v5 = !s->flag_a && !s->flag_b && dtans_templates(st);
      *t_us = p->us + atomics;
      *pair_us = (v5 ? K(dtans5_pair) : K(dtans_pair)) * stream + g + atomics;
      return;
    }
    *t_us = csr->us * K(csr_t), *pair_us = p->us + *t_us;
    return;
  default: /* deterministic SpMVT of CCI: an uncompressed Aᵀ, CSR's speed */
    *t_us = csr->us * K(csr_t), *pair_us = p->us + *t_us;
    return;
  }
}

static const char *const tmode_options[] = {"", "transpose=stored", "transpose=atomic"};

/* The candidates per backend: plain CSR first, which the choice falls back to. */
static int specs_for(const zsi_auto_device *d, const zsi_auto_stats *st, spec *out) {
  int n = 0;
  out[n++] = (spec){ZS_FORMAT_CSR, "", 0, 0, 0};
  if (strcmp(d->backend, "ref") == 0) return n; /* the oracle: its CSR is the plain product */
  /* where the GPU kernel would cut x into slabs, CSR without them is a candidate of its own */
  if (csr_slabs(st, d) > 1) out[n++] = (spec){ZS_FORMAT_CSR, "", 0, 1, 0};
  /* blocks of 1024 nonzeros where the default keeps 2048 (rows that do not gather at random, from
   * csr_small_nnz to 2e6 nonzeros: 1.0-1.3 us faster on the H100); below csr_small_nnz the
   * default's own blocks are as small or smaller, and on scattered rows they are 1024 already */
  /* and on small matrices whose longest row passes 1024: the default's blocks grow to hold it,
   * blocks of 1024 cut it (rajat01, 1442: 5.3 us against 7.2) */
  const int long_small = d->gpu && K(csr_fused_long) > 0 && (double)st->nnz < K(csr_small_nnz) &&
                         st->row_max > 1024 && st->row_max <= 2048;
  /* (not where rows average 64 nonzeros or more, which the kernel gives blocks of their own:
   * elasticity 16^3, 71 a row, 7.2 us against the default's 6.7; er-dense f32, 205, 6.9 and 6.1) */
  if ((d->gpu && (double)st->nnz >= K(csr_small_nnz) && st->nnz < 2000000 && st->far_share < 0.5 &&
       st->row_mean < 64 && !csr_split(st, d)) || /* the split kernel's tiles are 1024 already */
      long_small)
    out[n++] = (spec){ZS_FORMAT_CSR, "", 0, 0, 1};
  if (!d->gpu) out[n++] = (spec){ZS_FORMAT_COO, "", 0, 0, 0};
  out[n++] = (spec){ZS_FORMAT_SELL, "", 0, 0, 0};
  out[n++] = (spec){ZS_FORMAT_SELL, "sigma=4096", 0, 1, 0};
  out[n++] = (spec){ZS_FORMAT_GCSB, "", 0, 0, 0};
  out[n++] = (spec){ZS_FORMAT_CCI, "", 8, 0, 0};
  if (d->gpu) {
    out[n++] = (spec){ZS_FORMAT_CCI, "slices=4,opcodes=auto", 4, 1, 0};
    out[n++] = (spec){ZS_FORMAT_CCI, "slices=2,opcodes=auto", 2, 1, 0};
  }
  out[n++] = (spec){ZS_FORMAT_DTANS, "", 0, 0, 0};
  if (d->gpu) out[n++] = (spec){ZS_FORMAT_DTANS, "lane_symbols=256", 0, 1, 0};
  if (d->gpu && !dtans_coded_values(st))
    out[n++] = (spec){ZS_FORMAT_DTANS, "guided=start", 0, 0, 1};
  /* packed rows where rows share no template and none is long, or where the encoder orders the
   * rows by length and stores the long ones apart (measured on a GPU only) */
  if (K(dtans5_packed_ps) > 0 && !dtans_templates(st) &&
      (st->long_share == 0 || (st->packed_order & ZSI_AUTO_ORDER_ROWS)))
    out[n++] = (spec){ZS_FORMAT_DTANS, "row_kind=packed", 0, 1, 1};
  return n;
}

/* Transpose modes worth listing for a candidate under a workload. Packed rows' fused pair ran
 * 2.5-4.6x their SpMV on the H100 (bench/data/h100-dtans5-packed.csv), behind their stored
 * transpose's two products: not listed. */
static int tmodes_for(const spec *s, zsi_auto_work w, int gpu, tmode *out) {
  const zs_format f = s->format;
  if (w == ZSI_WORK_SPMV) return out[0] = T_DEFAULT, 1;
  int n = 0;
  out[n++] = T_DEFAULT;
  if (f != ZS_FORMAT_COO) out[n++] = T_STORED;
  const int packed = f == ZS_FORMAT_DTANS && s->flag_a && s->flag_b;
  const int sorted_gpu = f == ZS_FORMAT_SELL && s->flag_a && gpu;
  if ((f == ZS_FORMAT_GCSB || f == ZS_FORMAT_DTANS || f == ZS_FORMAT_SELL) && w != ZSI_WORK_T &&
      !packed && !sorted_gpu)
    out[n++] = T_ATOMIC;
  return n;
}

static const char *feature_line(const zsi_auto_stats *st, char *buf, size_t len) {
  char values[48];
  if (st->distinct >= ZSI_AUTO_MANY_VALUES)
    snprintf(values, sizeof values, "values random");
  else
    snprintf(values, sizeof values, "%lld values (%.1f bits)", (long long)st->distinct,
             st->value_entropy);
  snprintf(buf, len, "%.1f nnz/row, column deltas %.1f bits, %s, %.0f %% scattered gathers",
           st->row_mean, st->delta_entropy, values, 100 * st->far_share);
  return buf;
}

int zsi_auto_model(const zsi_auto_stats *st, const zsi_auto_device *d, const zsi_auto_workload *w,
                   zsi_auto_candidate *c, int *n_out, char *reason, size_t reason_len) {
  spec specs[ZSI_AUTO_MAX_CANDIDATES];
  const int n_specs = specs_for(d, st, specs);
  const product csr = csr_product(st, d, 0, 0);
  int n = 0;
  for (int i = 0; i < n_specs; i++) {
    const product p = product_of(&specs[i], st, d);
    tmode modes[3];
    const int n_modes = tmodes_for(&specs[i], w->kind, d->gpu, modes);
    for (int m = 0; m < n_modes && n < ZSI_AUTO_MAX_CANDIDATES; m++) {
      zsi_auto_candidate *x = &c[n++];
      memset(x, 0, sizeof *x);
      x->format = specs[i].format;
      snprintf(x->options, sizeof x->options, "%s", specs[i].options);
      const int is_csr = specs[i].format == ZS_FORMAT_CSR;
      const char *slab = is_csr && specs[i].flag_a   ? "col_slabs=1"
                         : is_csr && specs[i].flag_b ? "block_nnz=1024"
                                                     : "";
      snprintf(x->op_options, sizeof x->op_options, "%s%s%s", slab, slab[0] && modes[m] ? "," : "",
               tmode_options[modes[m]]);
      double t_us, pair_us;
      transposed(&specs[i], modes[m], &p, &csr, st, d, &t_us, &pair_us);
      const int stored = modes[m] == T_STORED;
      x->bytes = p.bytes * (stored ? 2 : 1);
      x->encode_s = (double)st->nnz * 1e-9 *
                    (encode_ns(x->format, d) * (stored ? 2 : 1) + (stored ? K(transpose_ns) : 0));
      x->product_us = w->kind == ZSI_WORK_SPMV ? p.us : w->kind == ZSI_WORK_T ? t_us : pair_us;
      x->us = x->product_us;
      if (w->calls > 0) x->us += x->encode_s * 1e6 / (double)w->calls;
      snprintf(x->why, sizeof x->why, "%s-bound, %.2f bytes/nnz", p.bound,
               st->nnz ? p.bytes / (double)st->nnz : 0.0);
    }
  }
  /* The fastest; ties (within 0.1 %) go to fewer bytes, then to the earlier candidate. */
  int best = 0, plain = 0;
  for (int i = 1; i < n; i++) {
    const double a = c[i].us, b = c[best].us;
    if (a < b * 0.999 || (a <= b * 1.001 && c[i].bytes < c[best].bytes)) best = i;
    if (c[i].format == ZS_FORMAT_CSR && c[i].us < c[plain].us * 0.999) plain = i;
  }
  char features[160];
  feature_line(st, features, sizeof features);
  const char *bname = zs_format_name(c[best].format);
  int choice = best;
  if (c[best].format != ZS_FORMAT_CSR && c[best].us > K(margin) * c[plain].us) {
    choice = plain;
    snprintf(reason, reason_len,
             "csr: no other format predicted %.0f %% faster (best %s%s%s %.1f us vs %.1f us) on "
             "%s; %s",
             100 * (1 - K(margin)), bname, c[best].options[0] ? ":" : "", c[best].options,
             c[best].us, c[plain].us, d->name, features);
  } else if (c[best].format == ZS_FORMAT_CSR) {
    snprintf(reason, reason_len, "csr: the fastest predicted (%.1f us, %s) on %s; %s", c[best].us,
             c[best].why, d->name, features);
  } else {
    snprintf(reason, reason_len, "%s%s%s: %.1f us vs csr %.1f us (%.2fx, %s) on %s; %s", bname,
             c[best].options[0] ? ":" : "", c[best].options, c[best].us, c[plain].us,
             c[plain].us / c[best].us, c[best].why, d->name, features);
  }
  *n_out = n;
  return choice;
}
