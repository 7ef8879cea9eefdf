/* bench_host.cpp — host side of zs-bench-gpu: Aᵀ and SELL-32 builders, long double references,
 * per-row checks, CSV/JSON/markdown writers and a host self-test of the builders. */
#include "bench_host.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <limits>
#include <map>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace zb {

double now_s() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const double g_t0 = now_s();

void logf(const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fprintf(stderr, "[%7.1f s] %s\n", now_s() - g_t0, buf);
  fflush(stderr);
}

static inline uint64_t mix64(uint64_t z) {
  z += UINT64_C(0x9E3779B97F4A7C15);
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

void make_x(std::vector<double> &x, int64_t n, uint64_t seed) {
  x.resize((size_t)n);
  const uint64_t key = mix64(seed ^ UINT64_C(0x5851F42D4C957F2D));
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) {
    const uint64_t h = mix64(key ^ mix64((uint64_t)i));
    const double mag = 1e-3 + (1.0 - 1e-3) * ((double)(h >> 11) * 0x1p-53);
    x[(size_t)i] = (h & 1) ? -mag : mag;
  }
}

void build_structure(Structure &S, const zs_matrix *A, bool vendor, uint64_t sell_limit_bytes) {
  S = Structure();
  S.rows = zs_matrix_rows(A), S.cols = zs_matrix_cols(A), S.nnz = zs_matrix_nnz(A);
  zs_matrix_csr(A, &S.rp, &S.ci, nullptr);
  const int64_t rows = S.rows, cols = S.cols, nnz = S.nnz;
  const int64_t *rp = S.rp;
  const int32_t *ci = S.ci;
  int64_t max_row = 0;
#pragma omp parallel for schedule(static) reduction(max : max_row)
  for (int64_t i = 0; i < rows; i++) max_row = std::max(max_row, rp[i + 1] - rp[i]);
  S.max_row = max_row;

  /* Aᵀ by a counting sort on columns. Each thread owns a range of columns and scans all of A:
   * no atomics (hub columns of power-law matrices made atomic cursors crawl), and rows are met
   * in order, so every column of Aᵀ comes out sorted whatever the thread count. */
  double t0 = now_s();
  S.t_ptr.assign((size_t)cols + 1, 0);
  int64_t *tp = S.t_ptr.data();
#pragma omp parallel
  {
    int t = 0, nt = 1;
#ifdef _OPENMP
    t = omp_get_thread_num(), nt = omp_get_num_threads();
#endif
    const int64_t lo = cols * t / nt, hi = cols * (t + 1) / nt;
    for (int64_t k = 0; k < nnz; k++)
      if (ci[k] >= lo && ci[k] < hi) tp[ci[k] + 1]++;
  }
  for (int64_t j = 0; j < cols; j++) tp[j + 1] += tp[j];
  S.t_col.resize((size_t)nnz);
  S.t_perm.resize((size_t)nnz);
  {
    std::vector<int64_t> cursor(S.t_ptr.begin(), S.t_ptr.end() - 1);
    int64_t *cur = cursor.data();
    int32_t *tc = S.t_col.data();
    int64_t *tq = S.t_perm.data();
#pragma omp parallel
    {
      int t = 0, nt = 1;
#ifdef _OPENMP
      t = omp_get_thread_num(), nt = omp_get_num_threads();
#endif
      /* columns [lo, hi) hold about nnz / nt entries */
      const int64_t lo = std::lower_bound(tp, tp + cols, nnz * t / nt) - tp;
      const int64_t hi =
          t + 1 == nt ? cols : std::lower_bound(tp, tp + cols, nnz * (t + 1) / nt) - tp;
      for (int64_t i = 0; i < rows; i++)
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
          const int64_t c = ci[k];
          if (c < lo || c >= hi) continue;
          const int64_t p = cur[c]++;
          tc[p] = (int32_t)i;
          tq[p] = k;
        }
    }
  }
  int64_t max_col = 0;
#pragma omp parallel for schedule(static) reduction(max : max_col)
  for (int64_t j = 0; j < cols; j++) max_col = std::max(max_col, tp[j + 1] - tp[j]);
  S.max_col = max_col;
  S.transpose_ms = 1e3 * (now_s() - t0);

  S.vendor = vendor;
  if (!vendor) return;
  S.coo_row.resize((size_t)nnz);
#pragma omp parallel for schedule(dynamic, 4096)
  for (int64_t i = 0; i < rows; i++)
    for (int64_t k = rp[i]; k < rp[i + 1]; k++) S.coo_row[(size_t)k] = (int32_t)i;

  t0 = now_s();
  const int64_t ns = (rows + kSellSlice - 1) / kSellSlice;
  S.sell_slices = ns;
  S.sell_off.assign((size_t)ns + 1, 0);
#pragma omp parallel for schedule(static)
  for (int64_t s = 0; s < ns; s++) {
    int64_t w = 0;
    for (int64_t i = s * kSellSlice; i < std::min(rows, (s + 1) * kSellSlice); i++)
      w = std::max(w, rp[i + 1] - rp[i]);
    S.sell_off[(size_t)s + 1] = w * kSellSlice;
  }
  for (int64_t s = 0; s < ns; s++) S.sell_off[(size_t)s + 1] += S.sell_off[(size_t)s];
  S.sell_size = S.sell_off[(size_t)ns];
  char why[256];
  const double sell_bytes = (double)S.sell_size * 12.0;
  if (S.sell_size > INT32_MAX) {
    snprintf(why, sizeof why, "sellValuesSize %" PRId64 " exceeds 32-bit slice offsets",
             S.sell_size);
    S.sell_skip = why;
  } else if (sell_bytes > (double)sell_limit_bytes) {
    snprintf(why, sizeof why,
             "SELL-32 would take %.1f GB (padding %.1fx nnz), over the %.1f GB "
             "limit",
             sell_bytes / 1e9, nnz ? (double)S.sell_size / (double)nnz : 0.0,
             (double)sell_limit_bytes / 1e9);
    S.sell_skip = why;
  }
  if (!S.sell_skip.empty()) {
    S.sell_off.clear();
    return;
  }
  S.sell_col.resize((size_t)S.sell_size);
#pragma omp parallel for schedule(dynamic, 64)
  for (int64_t s = 0; s < ns; s++) {
    const int64_t base = S.sell_off[(size_t)s];
    const int64_t w = (S.sell_off[(size_t)s + 1] - base) / kSellSlice;
    for (int64_t lr = 0; lr < kSellSlice; lr++) {
      const int64_t i = s * kSellSlice + lr;
      const int64_t len = i < rows ? rp[i + 1] - rp[i] : 0;
      for (int64_t k = 0; k < w; k++) {
        const size_t at = (size_t)(base + k * kSellSlice + lr);
        S.sell_col[at] = k < len ? ci[rp[i] + k] : -1;
      }
    }
  }
  S.sell_ms = 1e3 * (now_s() - t0);
}

template <typename T>
void sell_values(const Structure &S, const T *val, T *out) {
#pragma omp parallel for schedule(dynamic, 64)
  for (int64_t s = 0; s < S.sell_slices; s++) {
    const int64_t base = S.sell_off[(size_t)s];
    const int64_t w = (S.sell_off[(size_t)s + 1] - base) / kSellSlice;
    for (int64_t lr = 0; lr < kSellSlice; lr++) {
      const int64_t i = s * kSellSlice + lr;
      const int64_t len = i < S.rows ? S.rp[i + 1] - S.rp[i] : 0;
      for (int64_t k = 0; k < w; k++)
        out[base + k * kSellSlice + lr] = k < len ? val[S.rp[i] + k] : T(0);
    }
  }
}

template <typename T>
void reference_n(const Structure &S, const T *val, const T *x, Reference &out) {
  out.ref.resize((size_t)S.rows);
  out.den.resize((size_t)S.rows);
#pragma omp parallel for schedule(dynamic, 1024)
  for (int64_t i = 0; i < S.rows; i++) {
    long double s = 0, d = 0;
    for (int64_t k = S.rp[i]; k < S.rp[i + 1]; k++) {
      const long double p = (long double)val[k] * (long double)x[S.ci[k]];
      s += p;
      d += p < 0 ? -p : p;
    }
    out.ref[(size_t)i] = (double)s;
    out.den[(size_t)i] = (double)d;
  }
}

template <typename T>
void reference_t(const Structure &S, const T *val, const T *x, Reference &out) {
  out.ref.resize((size_t)S.cols);
  out.den.resize((size_t)S.cols);
#pragma omp parallel for schedule(dynamic, 1024)
  for (int64_t j = 0; j < S.cols; j++) {
    long double s = 0, d = 0;
    for (int64_t p = S.t_ptr[(size_t)j]; p < S.t_ptr[(size_t)j + 1]; p++) {
      const long double q =
          (long double)val[S.t_perm[(size_t)p]] * (long double)x[S.t_col[(size_t)p]];
      s += q;
      d += q < 0 ? -q : q;
    }
    out.ref[(size_t)j] = (double)s;
    out.den[(size_t)j] = (double)d;
  }
}

template <typename T>
Check check_result(const T *y, const Reference &r, const int64_t *ptr, int64_t n) {
  const double eps = (double)std::numeric_limits<T>::epsilon(), tiny = 1e-300;
  double max_rel = 0;
  int64_t bad = 0, first = INT64_MAX, max_len = 0;
#pragma omp parallel for schedule(static) reduction(max : max_rel, max_len) \
    reduction(+ : bad) reduction(min : first)
  for (int64_t i = 0; i < n; i++) {
    const int64_t len = ptr[i + 1] - ptr[i];
    max_len = std::max(max_len, len);
    const double yi = (double)y[i], err = std::fabs(yi - r.ref[(size_t)i]);
    const double bound = eps * (double)(len + 2) * r.den[(size_t)i];
    double rel = err / (r.den[(size_t)i] + tiny);
    if (!(rel == rel) || std::isinf(rel)) rel = std::numeric_limits<double>::infinity();
    max_rel = std::max(max_rel, rel);
    if (!(err <= bound)) {
      bad++;
      first = std::min(first, i);
    }
  }
  Check c;
  c.max_rel_err = max_rel;
  c.tolerance = eps * (double)(max_len + 2);
  c.bad = bad;
  c.ok = bad == 0;
  if (bad) {
    c.first_bad = first;
    c.y_first = (double)y[first];
    c.ref_first = r.ref[(size_t)first];
  }
  return c;
}

template <typename T>
void sell_product(const Structure &S, const T *sell_val, const T *x, std::vector<double> &y) {
  y.assign((size_t)S.rows, 0.0);
  for (int64_t s = 0; s < S.sell_slices; s++) {
    const int64_t base = S.sell_off[(size_t)s];
    const int64_t w = (S.sell_off[(size_t)s + 1] - base) / kSellSlice;
    for (int64_t lr = 0; lr < kSellSlice; lr++) {
      const int64_t i = s * kSellSlice + lr;
      long double acc = 0;
      for (int64_t k = 0; k < w; k++) {
        const size_t at = (size_t)(base + k * kSellSlice + lr);
        if (S.sell_col[at] >= 0) acc += (long double)sell_val[at] * (long double)x[S.sell_col[at]];
      }
      if (i < S.rows) y[(size_t)i] = (double)acc;
    }
  }
}

template void sell_values<float>(const Structure &, const float *, float *);
template void sell_values<double>(const Structure &, const double *, double *);
template void reference_n<float>(const Structure &, const float *, const float *, Reference &);
template void reference_n<double>(const Structure &, const double *, const double *, Reference &);
template void reference_t<float>(const Structure &, const float *, const float *, Reference &);
template void reference_t<double>(const Structure &, const double *, const double *, Reference &);
template Check check_result<float>(const float *, const Reference &, const int64_t *, int64_t);
template Check check_result<double>(const double *, const Reference &, const int64_t *, int64_t);
template void sell_product<float>(const Structure &, const float *, const float *,
                                  std::vector<double> &);
template void sell_product<double>(const Structure &, const double *, const double *,
                                   std::vector<double> &);

/* ---- writers ------------------------------------------------------------------------------ */

static std::string num(double v, const char *fmt = "%.6g") {
  if (!(v == v) || std::isinf(v)) return "";
  char b[64];
  snprintf(b, sizeof b, fmt, v);
  return b;
}

static std::string csv_field(const std::string &s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

static std::string json_str(const std::string &s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += (char)c;
    } else if (c < 0x20) {
      char b[8];
      snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else {
      o += (char)c;
    }
  }
  return o + "\"";
}

static std::string json_num(double v) {
  const std::string s = num(v, "%.9g");
  return s.empty() ? "null" : s;
}

static const char *ok_field(const Result &r) {
  if (r.status == "pass") return "1";
  if (r.status == "n/a") return "";
  return "0";
}

/* Results are written to PATH.tmp, then renamed over PATH: a reader never sees half a file. */
static FILE *open_tmp(const std::string &path) {
  const std::string tmp = path + ".tmp";
  FILE *f = fopen(tmp.c_str(), "w");
  if (!f) logf("error: cannot write %s: %s", tmp.c_str(), strerror(errno));
  return f;
}

static bool close_tmp(FILE *f, const std::string &path) {
  const bool ok = fclose(f) == 0 && rename((path + ".tmp").c_str(), path.c_str()) == 0;
  if (!ok) logf("error: cannot write %s", path.c_str());
  return ok;
}

bool write_csv(const std::string &path, const RunInfo &info, const std::vector<Result> &rs) {
  FILE *f = open_tmp(path);
  if (!f) return false;
  fprintf(f,
          "matrix,rows,cols,nnz,type,library,kernel,op,bytes,time_warm_us,time_cold_us,gbps,"
          "frac_ceiling,max_rel_err,ok,status,gbps_cold,frac_ceiling_cold,host_mean_us,"
          "tolerance,setup_ms,encode_ms,first_call_ms,note,launch_floor_us\n");
  for (const Result &r : rs)
    fprintf(f,
            "%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%s,%s,%s,%s,%" PRIu64
            ",%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n",
            csv_field(r.matrix).c_str(), r.rows, r.cols, r.nnz, r.type.c_str(), r.library.c_str(),
            csv_field(r.kernel).c_str(), r.op.c_str(), r.bytes, num(r.time_warm_us).c_str(),
            num(r.time_cold_us).c_str(), num(r.gbps).c_str(), num(r.frac_ceiling, "%.4f").c_str(),
            num(r.max_rel_err, "%.3e").c_str(), ok_field(r), r.status.c_str(),
            num(r.gbps_cold).c_str(), num(r.frac_ceiling_cold, "%.4f").c_str(),
            num(r.host_mean_us).c_str(), num(r.tolerance, "%.3e").c_str(), num(r.setup_ms).c_str(),
            num(r.encode_ms).c_str(), num(r.first_call_ms).c_str(), csv_field(r.note).c_str(),
            num(info.launch_floor_us, "%.3f").c_str());
  return close_tmp(f, path);
}

bool write_json(const std::string &path, const RunInfo &info, const std::vector<Result> &rs) {
  FILE *f = open_tmp(path);
  if (!f) return false;
  fprintf(f,
          "{\n  \"device\": %s,\n  \"vendor\": %s,\n  \"vendor_version\": %s,\n"
          "  \"runtime\": %s,\n"
          "  \"command\": %s,\n  \"read_ceiling_gbps\": %s,\n  \"launch_floor_us\": %s,\n"
          "  \"reps\": %d,\n  \"warmup\": %d,\n  \"flush_mib\": %s,\n  \"results\": [",
          json_str(info.device).c_str(), json_str(info.vendor).c_str(),
          json_str(info.vendor_version).c_str(), json_str(info.runtime).c_str(),
          json_str(info.command).c_str(), json_num(info.ceiling_gbps).c_str(),
          json_num(info.launch_floor_us).c_str(), info.reps, info.warmup,
          json_num(info.flush_mib).c_str());
  for (size_t i = 0; i < rs.size(); i++) {
    const Result &r = rs[i];
    const char *okv = r.status == "pass" ? "true" : r.status == "n/a" ? "null" : "false";
    fprintf(
        f,
        "%s\n    {\"matrix\": %s, \"rows\": %" PRId64 ", \"cols\": %" PRId64 ", \"nnz\": %" PRId64
        ", \"type\": %s, \"library\": %s, \"kernel\": %s, \"op\": %s, "
        "\"bytes\": %" PRIu64
        ", \"time_warm_us\": %s, \"time_cold_us\": %s, \"gbps\": %s, "
        "\"frac_ceiling\": %s, \"max_rel_err\": %s, \"ok\": %s, \"status\": %s, "
        "\"gbps_cold\": %s, \"frac_ceiling_cold\": %s, \"host_mean_us\": %s, "
        "\"tolerance\": %s, \"setup_ms\": %s, \"encode_ms\": %s, \"first_call_ms\": %s, "
        "\"note\": %s}",
        i ? "," : "", json_str(r.matrix).c_str(), r.rows, r.cols, r.nnz, json_str(r.type).c_str(),
        json_str(r.library).c_str(), json_str(r.kernel).c_str(), json_str(r.op).c_str(), r.bytes,
        json_num(r.time_warm_us).c_str(), json_num(r.time_cold_us).c_str(),
        json_num(r.gbps).c_str(), json_num(r.frac_ceiling).c_str(), json_num(r.max_rel_err).c_str(),
        okv, json_str(r.status).c_str(), json_num(r.gbps_cold).c_str(),
        json_num(r.frac_ceiling_cold).c_str(), json_num(r.host_mean_us).c_str(),
        json_num(r.tolerance).c_str(), json_num(r.setup_ms).c_str(), json_num(r.encode_ms).c_str(),
        json_num(r.first_call_ms).c_str(), json_str(r.note).c_str());
  }
  fprintf(f, "\n  ]\n}\n");
  return close_tmp(f, path);
}

/* ---- markdown summary --------------------------------------------------------------------- */

static const Result *find(const std::vector<Result> &rs, const std::string &m, const std::string &t,
                          const std::string &lib, const char *kernel, const char *op) {
  for (const Result &r : rs)
    if (r.matrix == m && r.type == t && r.library == lib && r.kernel == kernel && r.op == op)
      return &r;
  return nullptr;
}

static bool timed(const Result *r) { return r && r->status == "pass" && r->time_warm_us > 0; }

static std::string cell_us(const Result *r) {
  if (!r) return "-";
  if (r->status == "n/a") return "n/a";
  if (r->status != "pass") return r->status;
  return num(r->time_warm_us, "%.1f");
}

static std::string ratio(const Result *vendor, const Result *ours) {
  if (!timed(vendor) || !timed(ours)) return "-";
  return num(vendor->time_warm_us / ours->time_warm_us, "%.2fx");
}

std::string summary_markdown(const RunInfo &info, const std::vector<Result> &rs) {
  std::string o;
  char b[2048];
  snprintf(b, sizeof b,
           "## zs-bench-gpu: %s, %s\n\nRead ceiling %.0f GB/s (16-byte streaming loads); "
           "launch floor %.2f us a call (an empty kernel issued back to back). Times: "
           "warm median of %d calls, us. Speed-up = %s time / zsparse time (> 1: zsparse "
           "faster). frac = (format bytes + x + y) / time / ceiling.\n\n",
           info.device.c_str(), info.vendor_version.c_str(), info.ceiling_gbps,
           info.launch_floor_us, info.reps, info.vendor.c_str());
  o += b;
  const char *v = info.vendor_short.c_str();
  snprintf(b, sizeof b,
           "| matrix | type | nnz | zs CSR Ax | %s ALG1 Ax | speed-up | best %s Ax | zs frac | "
           "zs Aᵀx atomic | zs Aᵀx det | %s CSR Aᵀx | speed-up atomic | speed-up det | "
           "best %s one-copy Aᵀx | %s stored Aᵀ | CSR encode ms | checks |\n",
           v, v, v, v, v);
  o += b;
  o += "|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---|\n";
  std::vector<std::pair<std::string, std::string>> keys;
  for (const Result &r : rs) {
    const auto k = std::make_pair(r.matrix, r.type);
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  }
  for (const auto &k : keys) {
    const std::string &m = k.first, &t = k.second;
    const Result *zn = find(rs, m, t, "zsparse", "csr", "N");
    const Result *za = find(rs, m, t, "zsparse", "csr-atomic", "T");
    const Result *zd = find(rs, m, t, "zsparse", "csr-det", "T");
    const Result *c1 = find(rs, m, t, info.vendor, "csr-alg1", "N");
    const Result *ct = find(rs, m, t, info.vendor, "csr-alg1", "T");
    const Result *cs = find(rs, m, t, info.vendor, "csr-alg1-stored-At", "T");
    const Result *best = nullptr, *best_t = nullptr;
    int64_t nnz = 0;
    int pass = 0, total = 0;
    for (const Result &r : rs) {
      if (r.matrix != m || r.type != t) continue;
      nnz = r.nnz;
      if (r.status != "n/a") total++, pass += r.status == "pass";
      if (r.library == info.vendor && r.op == "N" && timed(&r) &&
          (!best || r.time_warm_us < best->time_warm_us))
        best = &r;
      if (r.library == info.vendor && r.op == "T" && r.kernel != "csr-alg1-stored-At" &&
          timed(&r) && (!best_t || r.time_warm_us < best_t->time_warm_us))
        best_t = &r;
    }
    std::string best_s = "-";
    if (best) best_s = num(best->time_warm_us, "%.1f") + " (" + best->kernel + ")";
    std::string best_ts = "-";
    if (best_t) best_ts = num(best_t->time_warm_us, "%.1f") + " (" + best_t->kernel + ")";
    snprintf(b, sizeof b,
             "| %s | %s | %" PRId64
             " | %s | %s | %s | %s | %s | %s | %s | %s | %s | "
             "%s | %s | %s | %s | %d/%d%s |\n",
             m.c_str(), t.c_str(), nnz, cell_us(zn).c_str(), cell_us(c1).c_str(),
             ratio(c1, zn).c_str(), best_s.c_str(),
             zn ? num(zn->frac_ceiling, "%.2f").c_str() : "-", cell_us(za).c_str(),
             cell_us(zd).c_str(), cell_us(ct).c_str(), ratio(ct, za).c_str(), ratio(ct, zd).c_str(),
             best_ts.c_str(), cell_us(cs).c_str(), zn ? num(zn->encode_ms, "%.0f").c_str() : "-",
             pass, total, pass == total ? "" : " FAIL");
    o += b;
  }
  return o;
}

/* ---- host self-test ----------------------------------------------------------------------- */

/* Builds the vendor structures for small matrices (square and rectangular, rows not a multiple
 * of 32, power-law rows) and checks SELL, Aᵀ and COO products computed from them against the
 * references; then corrupts one SELL column and expects the check to fail. */
int host_selftest() {
  const char *specs[] = {"stencil2d:n=37,points=5,values=random", "rmat:scale=9,per_row=8",
                         "banded:rows=1000,width=16,per_row=5",
                         "erdos_renyi:rows=300,cols=517,per_row=7",
                         "erdos_renyi:rows=517,cols=300,per_row=7"};
  int failures = 0;
  for (const char *spec : specs) {
    zs_matrix *A = nullptr;
    zs_status st = zs_matrix_generate(&A, spec, ZS_F64, 0);
    if (st != ZS_OK) {
      printf("selftest %s: generate failed: %s: %s\n", spec, zs_status_name(st), zs_last_error());
      failures++;
      continue;
    }
    Structure S;
    build_structure(S, A, true, UINT64_C(1) << 40);
    const double *val = nullptr;
    const void *vv = nullptr;
    zs_matrix_csr(A, nullptr, nullptr, &vv);
    val = (const double *)vv;
    std::vector<double> xn, xt;
    make_x(xn, S.cols, 42);
    make_x(xt, S.rows, 43);
    Reference rn, rt;
    reference_n(S, val, xn.data(), rn);
    reference_t(S, val, xt.data(), rt);
    bool ok = S.sell_skip.empty();
    /* SELL */
    std::vector<double> sv((size_t)S.sell_size), y;
    sell_values(S, val, sv.data());
    int64_t slots = 0;
    for (int64_t p = 0; p < S.sell_size; p++) slots += S.sell_col[(size_t)p] >= 0;
    ok = ok && slots == S.nnz;
    sell_product(S, sv.data(), xn.data(), y);
    const Check c_sell = check_result(y.data(), rn, S.rp, S.rows);
    /* stored Aᵀ as CSR, plain double sums */
    std::vector<double> yt((size_t)S.cols, 0.0);
    for (int64_t j = 0; j < S.cols; j++)
      for (int64_t p = S.t_ptr[(size_t)j]; p < S.t_ptr[(size_t)j + 1]; p++)
        yt[(size_t)j] += val[S.t_perm[(size_t)p]] * xt[(size_t)S.t_col[(size_t)p]];
    const Check c_t = check_result(yt.data(), rt, S.t_ptr.data(), S.cols);
    /* Aᵀx by a scatter over A's CSR: independent of the Aᵀ arrays the reference used */
    std::vector<double> ys((size_t)S.cols, 0.0);
    for (int64_t i = 0; i < S.rows; i++)
      for (int64_t k = S.rp[i]; k < S.rp[i + 1]; k++) ys[(size_t)S.ci[k]] += val[k] * xt[(size_t)i];
    const Check c_ts = check_result(ys.data(), rt, S.t_ptr.data(), S.cols);
    /* Aᵀ structure: every entry once, rows ascending within a column, perm consistent */
    bool t_ok = S.t_ptr[(size_t)S.cols] == S.nnz;
    std::vector<char> seen((size_t)S.nnz, 0);
    for (int64_t j = 0; t_ok && j < S.cols; j++)
      for (int64_t p = S.t_ptr[(size_t)j]; t_ok && p < S.t_ptr[(size_t)j + 1]; p++) {
        const int64_t q = S.t_perm[(size_t)p];
        const int32_t r = S.t_col[(size_t)p];
        t_ok = q >= 0 && q < S.nnz && !seen[(size_t)q] && S.ci[q] == j && r >= 0 && r < S.rows &&
               S.rp[r] <= q && q < S.rp[r + 1] &&
               (p == S.t_ptr[(size_t)j] || S.t_col[(size_t)p - 1] < r);
        if (t_ok) seen[(size_t)q] = 1;
      }
    /* COO scatter */
    std::vector<double> yc((size_t)S.rows, 0.0);
    for (int64_t k = 0; k < S.nnz; k++)
      yc[(size_t)S.coo_row[(size_t)k]] += val[k] * xn[(size_t)S.ci[k]];
    const Check c_coo = check_result(yc.data(), rn, S.rp, S.rows);
    /* f32 SELL */
    std::vector<float> v32((size_t)S.nnz), x32(xn.begin(), xn.end()), s32((size_t)S.sell_size);
    for (int64_t k = 0; k < S.nnz; k++) v32[(size_t)k] = (float)val[k];
    sell_values(S, v32.data(), s32.data());
    Reference r32;
    reference_n(S, v32.data(), x32.data(), r32);
    sell_product(S, s32.data(), x32.data(), y);
    std::vector<float> y32(y.begin(), y.end());
    const Check c_s32 = check_result(y32.data(), r32, S.rp, S.rows);
    /* the check must be able to fail: move one entry to another column */
    bool caught = true;
    for (int64_t p = 0; p < S.sell_size; p++)
      if (S.sell_col[(size_t)p] >= 0) {
        S.sell_col[(size_t)p] = (S.sell_col[(size_t)p] + 1) % (int32_t)S.cols;
        sell_product(S, sv.data(), xn.data(), y);
        caught = !check_result(y.data(), rn, S.rp, S.rows).ok;
        break;
      }
    ok = ok && c_sell.ok && c_t.ok && c_ts.ok && t_ok && c_coo.ok && c_s32.ok && caught;
    printf("selftest %-42s %6" PRId64 " x %-6" PRId64 " nnz %7" PRId64 " longest col %4" PRId64
           " sell %.2fx  sell %.1e  At %.1e/%.1e%s  coo %.1e  f32 %.1e  corrupt caught %s: %s\n",
           spec, S.rows, S.cols, S.nnz, S.max_col,
           S.nnz ? (double)S.sell_size / (double)S.nnz : 0.0, c_sell.max_rel_err, c_t.max_rel_err,
           c_ts.max_rel_err, t_ok ? "" : " (structure BAD)", c_coo.max_rel_err, c_s32.max_rel_err,
           caught ? "yes" : "NO", ok ? "pass" : "FAIL");
    failures += !ok;
    zs_matrix_destroy(&A);
  }
  return failures ? 1 : 0;
}

}  // namespace zb
