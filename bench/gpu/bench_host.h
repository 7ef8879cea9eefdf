/* bench_host.h — host side of zs-bench-gpu: derived structures, references, checks, reports. */
#ifndef ZS_BENCH_HOST_H
#define ZS_BENCH_HOST_H

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "zsparse.h"

namespace zb {

double now_s();
/* "[  12.3 s] message" on stderr, flushed: the device run keeps stderr as its progress log. */
void logf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Everything that depends on the sparsity pattern only, shared by the f64 and f32 runs. The
 * CSR arrays are borrowed from the matrix the structure was built from. */
struct Structure {
  int64_t rows = 0, cols = 0, nnz = 0;
  const int64_t *rp = nullptr;
  const int32_t *ci = nullptr;
  int64_t max_row = 0, max_col = 0; /* longest row of A and of Aᵀ */
  /* vendor inputs, built only when the vendor kernels run */
  bool vendor = false;
  std::vector<int32_t> coo_row; /* row of each nonzero (COO, and 32-bit CSR row offsets) */
  std::vector<int64_t> t_ptr;   /* CSR of Aᵀ: cols + 1 offsets */
  std::vector<int32_t> t_col;   /* its column indices (rows of A) */
  std::vector<int64_t> t_perm;  /* position of each Aᵀ entry in A's CSR */
  /* SELL-32 as cuSPARSE reads it: slice s holds 32 rows column-major from sell_off[s], each
   * row padded to the slice's longest row with column -1 and value 0 (a partial last slice is
   * padded to 32 rows too, so the stride is always 32). */
  int64_t sell_slices = 0, sell_size = 0;
  std::vector<int64_t> sell_off;
  std::vector<int32_t> sell_col;
  std::string sell_skip; /* why SELL was not built; empty when it was */
  double transpose_ms = 0, sell_ms = 0;
};

enum { kSellSlice = 32 };

/* Fill S from A (any value type). vendor: also build COO rows, Aᵀ and SELL-32. */
void build_structure(Structure &S, const zs_matrix *A, bool vendor, uint64_t sell_limit_bytes);

/* x for a product: uniform magnitudes in [1e-3, 1) with random signs (never 0), a pure function
 * of (seed, i). */
void make_x(std::vector<double> &x, int64_t n, uint64_t seed);

/* Reference y = op(A) x in long double, plus den_i = sum_j |a_ij x_j| (also long double). */
struct Reference {
  std::vector<double> ref, den;
};
template <typename T>
void reference_n(const Structure &S, const T *val, const T *x, Reference &out);
template <typename T>
void reference_t(const Structure &S, const T *val, const T *x, Reference &out);

/* Row i passes when |y_i - ref_i| <= eps * (len_i + 2) * den_i: the worst-case bound of a sum of
 * len_i rounded products in any order (any order, so atomics and trees are covered) with slack
 * 2x; NaN or Inf never passes. len from `ptr` (A's row_ptr for N, Aᵀ's for T). */
struct Check {
  bool ok = false;
  double max_rel_err = 0; /* max |y_i - ref_i| / (den_i + tiny) */
  double tolerance = 0;   /* eps * (max_len + 2): the loosest per-row bound, for the record */
  int64_t bad = 0, first_bad = -1;
  double y_first = 0, ref_first = 0;
};
template <typename T>
Check check_result(const T *y, const Reference &r, const int64_t *ptr, int64_t n);

/* SELL values in the slot order of S.sell_col (0 in padding slots). */
template <typename T>
void sell_values(const Structure &S, const T *val, T *out);

/* SELL host product in long double (for --host-selftest: validates the layout builder). */
template <typename T>
void sell_product(const Structure &S, const T *sell_val, const T *x, std::vector<double> &y);

/* One output line. Numbers left NaN are written as empty (CSV) / null (JSON). */
struct Result {
  std::string matrix, type, library, kernel, op;
  int64_t rows = 0, cols = 0, nnz = 0;
  uint64_t bytes = 0;
  double time_warm_us = NAN, time_cold_us = NAN, gbps = NAN, frac_ceiling = NAN;
  double gbps_cold = NAN, frac_ceiling_cold = NAN, host_mean_us = NAN;
  double max_rel_err = NAN, tolerance = NAN, setup_ms = NAN, encode_ms = NAN, first_call_ms = NAN;
  std::string status; /* pass, FAIL, n/a, error */
  std::string note;
};

struct RunInfo {
  std::string device, vendor_version, runtime, command;
  std::string vendor, vendor_short; /* library column of the vendor's results, table label */
  double ceiling_gbps = NAN;
  double launch_floor_us = NAN; /* an empty kernel's calls back to back, us a call */
  int reps = 0, warmup = 0;
  double flush_mib = 0;
};

/* launch_floor_us: the run's, on every line (empty where not measured) */
bool write_csv(const std::string &path, const RunInfo &info, const std::vector<Result> &rs);
bool write_json(const std::string &path, const RunInfo &info, const std::vector<Result> &rs);
/* Side-by-side table (ours vs cuSPARSE) per matrix and type. */
std::string summary_markdown(const RunInfo &info, const std::vector<Result> &rs);

int host_selftest();

}  // namespace zb

#endif
