/* auto_device.c — the model's constants per device class, their sources, calibration files that
 * override them, and the workload names. Where each built-in figure comes from: docs/auto.md. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/auto/auto.h"
#include "core/io/open_regular.h"

#define NAME_ENTRY(name, doc) #name,
#define DOC_ENTRY(name, doc) doc,
static const char *const constant_names[] = {ZSI_AUTO_CONSTANTS(NAME_ENTRY)};
static const char *const constant_docs[] = {ZSI_AUTO_CONSTANTS(DOC_ENTRY)};

const char *zsi_auto_constant_name(int i) {
  return i >= 0 && i < ZSI_AUTO_NK ? constant_names[i] : NULL;
}
const char *zsi_auto_constant_doc(int i) {
  return i >= 0 && i < ZSI_AUTO_NK ? constant_docs[i] : NULL;
}

/* H100 figures: bench/data/h100-*.csv (docs/performance.md), fitted as docs/auto.md shows. */
static const double h100[ZSI_AUTO_NK] = {
    [ZSI_AUTO_K_read_gbs] = 3128,
    [ZSI_AUTO_K_cache_mib] = 50,
    [ZSI_AUTO_K_gather_ps] = 5.7,
    [ZSI_AUTO_K_gather_far_ps] = 8.1,
    [ZSI_AUTO_K_atomic_ps] = 10,
    [ZSI_AUTO_K_csr_eff] = 0.96,
    [ZSI_AUTO_K_csr_eff_f32] = 0.96,
    [ZSI_AUTO_K_csr_launch_us] = 5,
    [ZSI_AUTO_K_csr_t] = 1.0,
    [ZSI_AUTO_K_csr_pair] = 2.0,
    [ZSI_AUTO_K_coo_eff] = 0.72,
    [ZSI_AUTO_K_coo_t] = 1.1,
    [ZSI_AUTO_K_coo_pair] = 2.1,
    [ZSI_AUTO_K_gcsb_eff] = 0.88,
    [ZSI_AUTO_K_gcsb_eff_f32] = 0.74,
    [ZSI_AUTO_K_gcsb_launch_us] = 5,
    [ZSI_AUTO_K_gcsb_t] = 1.17,
    [ZSI_AUTO_K_gcsb_pair] = 1.8,
    [ZSI_AUTO_K_gcsb_pair_f32] = 1.6,
    [ZSI_AUTO_K_cci_eff] = 0.9,
    [ZSI_AUTO_K_cci_row_ps] = 18,
    [ZSI_AUTO_K_cci_decode_ps] = 0,
    [ZSI_AUTO_K_cci_launch_us] = 8,
    [ZSI_AUTO_K_dtans_decode_ps] = 2.5,
    [ZSI_AUTO_K_dtans_row_ps] = 10,
    [ZSI_AUTO_K_dtans_raw_eff] = 0.70,
    [ZSI_AUTO_K_dtans_raw_eff_f32] = 0.56,
    [ZSI_AUTO_K_dtans_gather_ps] = 7.5,
    [ZSI_AUTO_K_dtans_launch_us] = 15,
    [ZSI_AUTO_K_dtans_lane256] = 0.9,
    [ZSI_AUTO_K_dtans_guided] = 0.84,
    [ZSI_AUTO_K_dtans_guided_loss] = 1.1,
    [ZSI_AUTO_K_encode_csr_ns] = 2,
    [ZSI_AUTO_K_encode_coo_ns] = 3,
    [ZSI_AUTO_K_encode_gcsb_ns] = 30,
    [ZSI_AUTO_K_encode_cci_ns] = 15,
    [ZSI_AUTO_K_encode_dtans_ns] = 13,
    [ZSI_AUTO_K_transpose_ns] = 22,
    [ZSI_AUTO_K_dtans_pair] = 2.05,
    [ZSI_AUTO_K_dtans_full_slices] = 3000,
    [ZSI_AUTO_K_dtans_full_slices_raw] = 1200,
    [ZSI_AUTO_K_sell_eff] = 0.95,
    [ZSI_AUTO_K_sell_eff_f32] = 0.97,
    [ZSI_AUTO_K_sell_launch_us] = 3,
    [ZSI_AUTO_K_sell_pair] = 1.55,
    [ZSI_AUTO_K_encode_sell_ns] = 4,
    [ZSI_AUTO_K_dtans5_eff] = 0.92,
    [ZSI_AUTO_K_dtans5_decode_ps] = 1.2,
    [ZSI_AUTO_K_dtans5_row_ps] = 2.5,
    [ZSI_AUTO_K_dtans5_pair] = 1.85,
    [ZSI_AUTO_K_sell_t] = 0,
    [ZSI_AUTO_K_stored_pair] = 1.0,
    [ZSI_AUTO_K_csr_small_launch_us] = 3.3,
    [ZSI_AUTO_K_dtans5_full_rows] = 74000,
    [ZSI_AUTO_K_sell_step_ns] = 230,
    [ZSI_AUTO_K_sell_step_f32_ns] = 150,
    [ZSI_AUTO_K_sell_step_near_ns] = 80,
    [ZSI_AUTO_K_sell_step_entries] = 4e5,
    [ZSI_AUTO_K_dtans5_packed_ps] = 2.0,
    [ZSI_AUTO_K_dtans5_packed_narrow_ps] = 1.6,
    [ZSI_AUTO_K_csr_small_nnz] = 270336,
    [ZSI_AUTO_K_sell_add_ps] = 2.8,
    [ZSI_AUTO_K_csr_split_cv] = 2.5,
    [ZSI_AUTO_K_csr_split_gathers] = 0.79,
    [ZSI_AUTO_K_coo_launch_us] = 5,
    [ZSI_AUTO_K_gather_window_kib] = 64,
    [ZSI_AUTO_K_dtans5_packed_raw32_ps] = 3.1,
    [ZSI_AUTO_K_l2_resident_mib] = 24,
    [ZSI_AUTO_K_l2_gbs] = 6000,
    [ZSI_AUTO_K_dtans5_kernel_us] = 2.0,
    [ZSI_AUTO_K_dtans5_packed_step_ns] = 300,
    [ZSI_AUTO_K_dtans5_packed_order_ps] = 5.1,
    [ZSI_AUTO_K_sell_pair_min_us] = 8.4,
    [ZSI_AUTO_K_gcsb_step_ns] = 120,
    [ZSI_AUTO_K_sell_t_pad] = 0.10,
    [ZSI_AUTO_K_sell_batch_rows] = 135168,
    [ZSI_AUTO_K_sell_batch] = 0.75,
    [ZSI_AUTO_K_sell_lanes_sms] = 132,
    [ZSI_AUTO_K_plain_l2] = 1,
    [ZSI_AUTO_K_sell_l2_gbs] = 9500,
    [ZSI_AUTO_K_sell_sorted_row_ps] = 8,
    [ZSI_AUTO_K_csr_row_step_ns] = 70,
    [ZSI_AUTO_K_sell_lanes_step_entries] = 6.4e6,
    [ZSI_AUTO_K_gather_l1_ps] = 2.7,
    [ZSI_AUTO_K_csr_fused_long] = 1,
    /* the model's replays on the H100 runs: 98-100 % of lines within 10 %, so a 2 % lead holds */
    [ZSI_AUTO_K_margin] = 0.98,
};

/* The 2-core development machine: bench/data/cpu-lap2d.csv and cpu-dtans.csv. */
static const double cpu[ZSI_AUTO_NK] = {
    [ZSI_AUTO_K_read_gbs] = 34,
    [ZSI_AUTO_K_cache_mib] = 16,
    [ZSI_AUTO_K_gather_ps] = 100,
    [ZSI_AUTO_K_gather_far_ps] = 150,
    [ZSI_AUTO_K_atomic_ps] = 3000,
    [ZSI_AUTO_K_csr_eff] = 0.81,
    [ZSI_AUTO_K_csr_launch_us] = 0.3,
    [ZSI_AUTO_K_csr_t] = 1.45,
    [ZSI_AUTO_K_csr_pair] = 1.68,
    [ZSI_AUTO_K_coo_eff] = 0.78,
    [ZSI_AUTO_K_coo_t] = 1.0,
    [ZSI_AUTO_K_coo_pair] = 1.57,
    [ZSI_AUTO_K_gcsb_eff] = 0.70,
    [ZSI_AUTO_K_gcsb_eff_f32] = 0.49,
    [ZSI_AUTO_K_gcsb_launch_us] = 0.4,
    [ZSI_AUTO_K_gcsb_t] = 1.47,
    [ZSI_AUTO_K_gcsb_pair] = 2.3,
    [ZSI_AUTO_K_gcsb_pair_f32] = 2.3,
    [ZSI_AUTO_K_cci_eff] = 0.9,
    [ZSI_AUTO_K_cci_row_ps] = 0,
    [ZSI_AUTO_K_cci_decode_ps] = 1900,
    [ZSI_AUTO_K_cci_launch_us] = 0.5,
    [ZSI_AUTO_K_dtans_decode_ps] = 3000,
    [ZSI_AUTO_K_dtans_row_ps] = 0,
    [ZSI_AUTO_K_dtans_raw_eff] = 0.9,
    [ZSI_AUTO_K_dtans_raw_eff_f32] = 0.9,
    [ZSI_AUTO_K_dtans_gather_ps] = 1200,
    [ZSI_AUTO_K_dtans_launch_us] = 1.0,
    [ZSI_AUTO_K_dtans_lane256] = 1.0,
    [ZSI_AUTO_K_dtans_guided] = 1.0,
    [ZSI_AUTO_K_dtans_guided_loss] = 1.0,
    [ZSI_AUTO_K_encode_csr_ns] = 2,
    [ZSI_AUTO_K_encode_coo_ns] = 3,
    [ZSI_AUTO_K_encode_gcsb_ns] = 30,
    [ZSI_AUTO_K_encode_cci_ns] = 15,
    [ZSI_AUTO_K_encode_dtans_ns] = 40,
    [ZSI_AUTO_K_transpose_ns] = 10,
    [ZSI_AUTO_K_dtans_pair] = 2.3,
    [ZSI_AUTO_K_dtans_full_slices] = 0,
    [ZSI_AUTO_K_dtans_full_slices_raw] = 0,
    [ZSI_AUTO_K_sell_eff] = 0.93,
    [ZSI_AUTO_K_sell_eff_f32] = 0.89,
    [ZSI_AUTO_K_sell_launch_us] = 0.3,
    [ZSI_AUTO_K_sell_pair] = 11.6,
    [ZSI_AUTO_K_encode_sell_ns] = 4,
    [ZSI_AUTO_K_dtans5_eff] = 0.35,
    [ZSI_AUTO_K_dtans5_decode_ps] = 600,
    [ZSI_AUTO_K_dtans5_row_ps] = 1500,
    [ZSI_AUTO_K_dtans5_pair] = 2.3,
    [ZSI_AUTO_K_sell_t] = 1.85,
    [ZSI_AUTO_K_stored_pair] = 1.2,
    [ZSI_AUTO_K_csr_small_launch_us] = 0.3,
    [ZSI_AUTO_K_dtans5_full_rows] = 0,
    [ZSI_AUTO_K_sell_step_ns] = 0,
    [ZSI_AUTO_K_csr_eff_f32] = 0.64,
    [ZSI_AUTO_K_serial_work] = 32768,
    [ZSI_AUTO_K_serial_factor] = 2.0,
    [ZSI_AUTO_K_coo_launch_us] = 0.8,
    [ZSI_AUTO_K_pair_cache_mib] = 4,
    [ZSI_AUTO_K_row_miss_ps] = 4000,
    [ZSI_AUTO_K_row_miss_min] = 6000,
    /* short cpu products move by more between runs: a lead under 3 % is noise there */
    [ZSI_AUTO_K_margin] = 0.97,
};

/* Device classes: the GPU ones share the H100's decode constants (the H200 runs the same
 * kernels no faster: its decode, not its bytes, bounds CSR-dtANS) with their own memory. */
static const struct {
  const char *name;
  int gpu;
  const double *base;
  double read_gbs, cache_mib;
  const char *source;
} classes[] = {
    {"h100", 1, h100, 3128, 50, "built-in h100 (bench/data/h100-*.csv)"},
    {"h200", 1, h100, 4520, 60, "built-in h200 (h100 constants, H200 read ceiling and L2)"},
    {"gpu", 1, h100, 2000, 40, "built-in generic gpu (h100 constants at 2000 GB/s)"},
    {"cpu", 0, cpu, 34, 16, "built-in cpu (bench/data/cpu-*.csv, a 2-core machine)"},
    {"ref", 0, cpu, 34, 16, "built-in ref (the scalar oracle: plain CSR)"},
};
#define N_CLASSES (sizeof classes / sizeof *classes)

zs_status zsi_auto_device_builtin(const char *backend, const char *device, zsi_auto_device *d) {
  memset(d, 0, sizeof *d);
  const char *want = device && *device ? device : NULL;
  if (strcmp(backend, "cuda") == 0)
    want = want ? want : "h100";
  else if (strcmp(backend, "hip") == 0)
    want = want ? want : "gpu";
  else if (strcmp(backend, "cpu") == 0 || strcmp(backend, "ref") == 0)
    want = want ? want : backend;
  else
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "auto: unknown backend '%s' (known: ref, cpu, cuda, hip)", backend);
  for (size_t i = 0; i < N_CLASSES; i++) {
    if (strcmp(classes[i].name, want) != 0) continue;
    const int backend_gpu = strcmp(backend, "cuda") == 0 || strcmp(backend, "hip") == 0;
    if (classes[i].gpu != backend_gpu)
      return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                       "auto: device '%s' is not a device of backend '%s' (%s)", want, backend,
                       backend_gpu ? "h100, h200, gpu" : "cpu, ref");
    snprintf(d->name, sizeof d->name, "%s", want);
    snprintf(d->backend, sizeof d->backend, "%s", backend);
    snprintf(d->source, sizeof d->source, "%s", classes[i].source);
    d->gpu = classes[i].gpu;
    memcpy(d->k, classes[i].base, sizeof d->k);
    d->k[ZSI_AUTO_K_read_gbs] = classes[i].read_gbs;
    d->k[ZSI_AUTO_K_cache_mib] = classes[i].cache_mib;
    return ZS_OK;
  }
  return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                   "auto: unknown device '%s' (known: h100, h200, gpu for cuda and hip; cpu, ref)",
                   want);
}

#define CALIBRATION_MAX_BYTES (UINT64_C(1) << 20)

zs_status zsi_auto_device_calibrate(zsi_auto_device *d, const char *path) {
  FILE *f = NULL;
  uint64_t size = 0;
  zs_status s = zsi_open_regular(path, "r", &f, &size);
  if (s != ZS_OK) {
    char why[512];
    snprintf(why, sizeof why, "%s", zs_last_error());
    return zsi_error(s, "auto: calibration file %s", why);
  }
  /* a few dozen short lines: anything far larger is not a calibration file */
  if (size > CALIBRATION_MAX_BYTES) {
    fclose(f);
    return zsi_error(ZS_ERR_PARSE, "auto: calibration file %s: larger than 1 MiB", path);
  }
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  int lineno = 0;
  while (s == ZS_OK && (n = getline(&line, &cap, f)) >= 0) {
    lineno++;
    if (memchr(line, '\0', (size_t)n)) {
      s = zsi_error(ZS_ERR_PARSE, "auto: calibration file %s line %d: holds a NUL byte", path,
                    lineno);
      break;
    }
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    char name[64], extra[8];
    double v;
    const int got = sscanf(line, "%63s %lf %7s", name, &v, extra);
    if (got <= 0) continue; /* blank or comment */
    if (got != 2 || !isfinite(v) || v < 0) {
      s = zsi_error(ZS_ERR_PARSE,
                    "auto: calibration file %s line %d: expected 'name value' with a finite "
                    "value >= 0",
                    path, lineno);
      break;
    }
    int k = 0;
    while (k < ZSI_AUTO_NK && strcmp(constant_names[k], name) != 0) k++;
    if (k == ZSI_AUTO_NK)
      s = zsi_error(ZS_ERR_PARSE, "auto: calibration file %s line %d: unknown constant '%s'", path,
                    lineno, name);
    else if (v == 0 &&
             (k == ZSI_AUTO_K_read_gbs || k == ZSI_AUTO_K_csr_eff || k == ZSI_AUTO_K_csr_eff_f32))
      s = zsi_error(ZS_ERR_PARSE, "auto: calibration file %s line %d: %s must be > 0", path, lineno,
                    name);
    else if (k == ZSI_AUTO_K_margin && (v <= 0 || v > 1))
      s = zsi_error(ZS_ERR_PARSE, "auto: calibration file %s line %d: margin must be in (0, 1]",
                    path, lineno);
    else
      d->k[k] = v;
  }
  free(line);
  if (s == ZS_OK && ferror(f))
    s = zsi_error(ZS_ERR_IO, "auto: calibration file %s: read error", path);
  fclose(f);
  if (s == ZS_OK) snprintf(d->source, sizeof d->source, "calibration %.140s", path);
  return s;
}

zs_status zsi_auto_workload_parse(const char *s, zsi_auto_workload *w) {
  static const struct {
    const char *name;
    zsi_auto_work kind;
  } kinds[] = {{"spmv", ZSI_WORK_SPMV},
               {"t", ZSI_WORK_T},
               {"pair", ZSI_WORK_PAIR},
               {"solve", ZSI_WORK_PAIR}};
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
    const size_t n = strlen(kinds[i].name);
    if (strncmp(s, kinds[i].name, n) != 0 || (s[n] != '\0' && s[n] != ':')) continue;
    const int solve = i == 3; /* "solve" needs its N */
    w->kind = kinds[i].kind, w->calls = 0;
    if (s[n] == '\0' && !solve) return ZS_OK;
    char *end;
    errno = 0;
    const long long calls = s[n] == ':' ? strtoll(s + n + 1, &end, 10) : 0;
    if (s[n] == ':' && s[n + 1] >= '1' && s[n + 1] <= '9' && *end == '\0' && errno == 0 &&
        calls <= 1000000000) {
      w->calls = calls;
      return ZS_OK;
    }
    break;
  }
  return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                   "auto: unknown workload '%s' (known: spmv, t, pair, each with an optional :N "
                   "calls, and solve:N; N in 1..10^9)",
                   s);
}
