/* auto_plan.c — the public face of the format chooser: zs_plan_* and zs_encode's
 * ZS_FORMAT_AUTO. Statistics, device and model are in the other files of this folder. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/auto/auto.h"
#include "zsparse_auto.h"

struct zs_plan {
  zsi_auto_stats stats;
  zsi_auto_device device;
  zsi_auto_workload work;
  zsi_auto_trial trial;
  char workload[32], tune[32];
  int n, choice;
  zsi_auto_candidate c[ZSI_AUTO_MAX_CANDIDATES];
  char reason[512];
};

static const char *const plan_keys[] = {"backend",     "device",    "workload",
                                        "calibration", "read_gbs",  "cache_mib",
                                        "tune",        "trial_top", NULL};

/* tune=model|trial[:MS] into t (MS milliseconds, default 200). */
static zs_status parse_tune(const char *v, zsi_auto_trial *t) {
  t->on = 0, t->ms = 200;
  if (strcmp(v, "model") == 0) return ZS_OK;
  if (strncmp(v, "trial", 5) == 0 && (v[5] == '\0' || v[5] == ':')) {
    t->on = 1;
    if (v[5] == '\0') return ZS_OK;
    char *end;
    errno = 0;
    const double ms = strtod(v + 6, &end);
    if (v[6] != '\0' && *end == '\0' && errno == 0 && isfinite(ms) && ms > 0 && ms <= 600000) {
      t->ms = ms;
      return ZS_OK;
    }
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "auto: tune=%s: the trial's bound must be a number of milliseconds in (0, "
                     "600000], e.g. tune=trial:200",
                     v);
  }
  return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                   "auto: unknown tune '%s' (known: model, trial, trial:MS with MS milliseconds)",
                   v);
}

/* A positive number option overriding constant k. */
static zs_status override(const char *options, const char *key, zsi_auto_device *d, int k) {
  double v;
  int found;
  zs_status s = zsi_option_double(options, key, &v, &found);
  if (s != ZS_OK || !found) return s;
  if (!(v > 0 && v < 1e9))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_plan_create: %s=%g must be in (0, 1e9)", key, v);
  d->k[k] = v;
  return ZS_OK;
}

/* The options into p's device, workload and name; nothing else of p is touched. */
static zs_status parse_options(const char *options, zs_plan *p) {
  zs_status s = zsi_option_check(options, plan_keys, "auto (zs_plan_create)");
  if (s != ZS_OK) return s;
  char backend[16] = "", device[16] = "", cal[4096] = "";
  int found;
  snprintf(p->workload, sizeof p->workload, "spmv");
  snprintf(p->tune, sizeof p->tune, "model");
  int64_t top = 3;
  if ((s = zsi_option_str(options, "tune", p->tune, sizeof p->tune, &found)) ||
      (s = parse_tune(p->tune, &p->trial)) ||
      (s = zsi_option_int(options, "trial_top", 1, 8, &top, &found)))
    return s;
  p->trial.top = (int)top;
  if ((s = zsi_option_str(options, "backend", backend, sizeof backend, &found)) ||
      (s = zsi_option_str(options, "device", device, sizeof device, &found)) ||
      (s = zsi_option_str(options, "workload", p->workload, sizeof p->workload, &found)) ||
      (s = zsi_option_str(options, "calibration", cal, sizeof cal, &found)))
    return s;
  if (!backend[0]) {
    const char *env = getenv("ZS_BACKEND");
    snprintf(backend, sizeof backend, "%s", env && *env ? env : "cpu");
  }
  if ((s = zsi_auto_workload_parse(p->workload, &p->work)) ||
      (s = zsi_auto_device_builtin(backend, device, &p->device)) ||
      (cal[0] && (s = zsi_auto_device_calibrate(&p->device, cal))) ||
      (s = override(options, "read_gbs", &p->device, ZSI_AUTO_K_read_gbs)))
    return s;
  return override(options, "cache_mib", &p->device, ZSI_AUTO_K_cache_mib);
}

zs_status zs_plan_check_options(const char *options) {
  zs_plan *p = calloc(1, sizeof *p);
  if (!p) return zsi_oom("zs_plan_check_options", sizeof *p);
  const zs_status s = parse_options(options, p);
  free(p);
  return s;
}

zs_status zs_plan_create(zs_plan **out, const zs_matrix *A, const char *options) {
  if (!out || !A) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_plan_create: out or A is NULL");
  zs_plan *p = calloc(1, sizeof *p);
  if (!p) return zsi_oom("zs_plan_create", sizeof *p);
  zs_status s = parse_options(options, p);
  if (s == ZS_OK) s = zsi_auto_stats_compute(A, &p->stats);
  if (s != ZS_OK) {
    free(p);
    return s;
  }
  p->choice =
      zsi_auto_model(&p->stats, &p->device, &p->work, p->c, &p->n, p->reason, sizeof p->reason);
  for (int i = 0; i < p->n; i++) p->c[i].measured_us = -1;
  if (p->trial.on &&
      (s = zsi_auto_trial_run(A, p->device.backend, &p->work, p->c, p->n, &p->choice, &p->trial))) {
    free(p);
    return s;
  }
  if (p->trial.overturned) { /* the reason names what runs, then what the model said */
    const zsi_auto_candidate *c = &p->c[p->choice], *m = &p->c[p->trial.model_choice];
    char model[sizeof p->reason];
    snprintf(model, sizeof model, "%s", p->reason);
    snprintf(p->reason, sizeof p->reason,
             "%s%s%s: measured %.1f us against %.1f us for the model's choice %s%s%s "
             "(tune=trial); the model: %.300s",
             zs_format_name(c->format), c->options[0] ? ":" : "", c->options, c->measured_us,
             m->measured_us, zs_format_name(m->format), m->options[0] ? ":" : "", m->options,
             model);
  }
  *out = p;
  return ZS_OK;
}

void zs_plan_destroy(zs_plan **p) {
  if (!p || !*p) return;
  free(*p);
  *p = NULL;
}

zs_status zs_plan_get_info(const zs_plan *p, zs_plan_info *out) {
  if (!p || !out) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_plan_get_info: p or out is NULL");
  *out = (zs_plan_info){p->device.backend,
                        p->device.name,
                        p->device.source,
                        p->workload,
                        p->n,
                        p->choice,
                        p->reason,
                        p->tune,
                        p->trial.on ? p->trial.note : "",
                        p->trial.on ? p->trial.model_choice : p->choice,
                        p->trial.overturned,
                        p->trial.on ? p->trial.spent_s : 0};
  return ZS_OK;
}

zs_status zs_plan_candidate_get(const zs_plan *p, int i, zs_plan_candidate *out) {
  if (!p || !out)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_plan_candidate_get: p or out is NULL");
  if (i < 0 || i >= p->n)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "zs_plan_candidate_get: candidate %d is outside [0, %d)", i, p->n);
  const zsi_auto_candidate *c = &p->c[i];
  *out = (zs_plan_candidate){c->format, c->options,  c->op_options, c->bytes,
                             c->us,     c->encode_s, c->why,        c->measured_us};
  return ZS_OK;
}

zs_status zs_plan_stats(const zs_plan *p, zs_stat_fn fn, void *ctx) {
  if (!p || !fn) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_plan_stats: p or fn is NULL");
  const zsi_auto_stats *st = &p->stats;
  const struct {
    const char *name;
    double value;
  } figures[] = {
      {"rows", (double)st->rows},
      {"cols", (double)st->cols},
      {"nnz", (double)st->nnz},
      {"row_mean", st->row_mean},
      {"row_cv", st->row_cv},
      {"len_misses", st->len_misses},
      {"row_max", (double)st->row_max},
      {"long_row_share", st->long_share},
      {"delta_entropy", st->delta_entropy},
      {"value_entropy", st->value_entropy},
      {"distinct_values", (double)st->distinct},
      {"bandwidth", st->bandwidth},
      {"far_share", st->far_share},
      {"top1_share", st->top1_share},
      {"hot_cols", st->hot_cols},
      {"blocks_per_nnz", st->blocks_per_nnz},
      {"sell_fill", st->sell_fill},
      {"sell_fill_sorted", st->sell_fill_sorted},
      {"templates", st->templates},
      {"packed_fill", st->packed_fill},
      {"packed_col_bits", st->packed_col_bits},
      {"packed_order", (double)st->packed_order},
      {"packed_long_share", st->packed_long_share},
      {"packed_row_max", (double)st->packed_row_max},
      {"block_row_max", (double)st->block_row_max},
      {"sell_fill_t_sorted", st->sell_fill_t_sorted},
      {"sell_fill_t", st->sell_fill_t},
      {"col_max", (double)st->col_max},
      {"sampled", st->sampled},
  };
  for (size_t i = 0; i < sizeof figures / sizeof *figures; i++)
    fn(ctx, figures[i].name, figures[i].value);
  for (int k = 0; k < ZSI_AUTO_NK; k++) { /* the device's constants, as the model read them */
    char name[64];
    snprintf(name, sizeof name, "device.%s", zsi_auto_constant_name(k));
    fn(ctx, name, p->device.k[k]);
  }
  return ZS_OK;
}

zs_status zs_plan_encode(zs_encoded **out, const zs_plan *p, const zs_matrix *A) {
  if (!out || !p || !A)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_plan_encode: out, p or A is NULL");
  if (A->rows != p->stats.rows || A->cols != p->stats.cols || A->nnz != p->stats.nnz ||
      A->type != p->stats.type)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "zs_plan_encode: the matrix is not the one planned for (shape, nonzeros or "
                     "value type differ)");
  const zsi_auto_candidate *c = &p->c[p->choice];
  zs_encoded *E = NULL;
  zs_status s = zs_encode(&E, A, c->format, c->options[0] ? c->options : NULL);
  if (s != ZS_OK) return s;
  char note[sizeof p->reason + sizeof p->trial.note + 256];
  snprintf(note, sizeof note,
           "format=%s options=%s op_options=%s backend=%s device=%s "
           "workload=%s tune=%s reason=%s%s%s",
           zs_format_name(c->format), c->options, c->op_options, p->device.backend, p->device.name,
           p->workload, p->tune, p->reason, p->trial.on ? " trial=" : "",
           p->trial.on ? p->trial.note : "");
  if ((s = zsi_encoded_set_note(E, note)) != ZS_OK) {
    zs_encoded_destroy(&E);
    return s;
  }
  *out = E;
  return ZS_OK;
}

/* zs_encode's ZS_FORMAT_AUTO (core/encoded.c). */
zs_status zsi_auto_encode(const zs_matrix *A, const char *options, zs_encoded **out) {
  zs_plan *p = NULL;
  zs_status s = zs_plan_create(&p, A, options);
  if (s == ZS_OK) s = zs_plan_encode(out, p, A);
  zs_plan_destroy(&p);
  return s;
}
