/* zsparse_auto.h — the format chooser: a plan of candidates (format, encoder options, operator
 * options) with predicted bytes and time for a backend and workload, and the choice. */
#ifndef ZSPARSE_AUTO_H
#define ZSPARSE_AUTO_H

#include "zsparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A plan: the matrix's statistics, the device description, the candidates and the choice
 * (docs/auto.md). It borrows nothing: A may be destroyed after zs_plan_create. */
typedef struct zs_plan zs_plan;

/* Plan for A. options: "key=value,..." or NULL:
 *   backend=ref|cpu|cuda|hip   the backend the operator will run on (default: $ZS_BACKEND, else
 *                              cpu; the command line passes its context's default backend)
 *   device=h100|h200|gpu|cpu|ref  the device class whose constants the model uses (default: the
 *                              backend's: cuda h100, hip gpu, cpu cpu, ref ref)
 *   workload=spmv|t|pair[:N]|solve:N  what the operator will do: SpMV, SpMVT, BiCG's pair; with
 *                              :N, N calls with the host encode amortised over them; solve:N =
 *                              pair:N (default spmv)
 *   calibration=PATH           a file of "constant value" lines overriding the device's constants
 *   read_gbs=G, cache_mib=M    the device's read ceiling (GB/s) and cache, overriding both
 *   tune=model|trial[:MS]      model (default): the prediction alone; trial: then encode the
 *                              model's choice and the next best predicted (trial_top in all)
 *                              and time them on the backend, within MS milliseconds of wall time
 *                              (default 200: encodes, uploads and timed calls; a band of rows
 *                              from the middle when the whole matrix cannot fit; creating a
 *                              context for the backend is outside it), and take the fastest
 *                              measured when it is 2 % faster than the model's choice
 *   trial_top=K                candidates the trial times, 1..8 (default 3)
 * With tune=model the choice is deterministic for a given matrix, options and calibration file,
 * and takes well under a second (statistics from a sample of at most ~8 M nonzeros); a trial is
 * not deterministic (it follows measured times). Errors:
 * ZS_ERR_INVALID_ARGUMENT (an unknown key, backend, device, workload or tune, a bad number, a
 * trial bound <= 0), those of the backend when a trial cannot run there,
 * ZS_ERR_IO / ZS_ERR_PARSE (calibration file: the message names the file and line),
 * ZS_ERR_OUT_OF_MEMORY. *out is set only on success. */
ZS_API zs_status zs_plan_create(zs_plan **out, const zs_matrix *A, const char *options);
ZS_API void zs_plan_destroy(zs_plan **p);
/* Check options as zs_plan_create does (a calibration file is read), without a matrix: the
 * same errors. */
ZS_API zs_status zs_plan_check_options(const char *options);

typedef struct zs_plan_info {
  const char *backend;  /* "cuda" */
  const char *device;   /* the device class: "h100" */
  const char *source;   /* where its constants came from: built-in or a calibration file */
  const char *workload; /* as given: "spmv", "solve:500" */
  int candidates;       /* how many (zs_plan_candidate's indices) */
  int choice;           /* the chosen candidate's index */
  const char *reason;   /* one line: why the model chose its choice */
  const char *tune;     /* "model", or "trial:MS" as given ("trial" for the default bound) */
  const char *trial;    /* tune=trial: one line of the times measured, the band of rows timed
                           when the whole could not fit, and the outcome; "" otherwise */
  int model_choice;     /* the model's own choice (= choice unless the trial overturned it) */
  int overturned;       /* 1 when the trial's fastest measured replaced the model's choice */
  double trial_s;       /* the trial's wall time, within its bound (0 without a trial) */
} zs_plan_info;
/* Strings static while p lives. */
ZS_API zs_status zs_plan_get_info(const zs_plan *p, zs_plan_info *out);

typedef struct zs_plan_candidate {
  zs_format format;
  const char *options;    /* encoder options ("" for the defaults) */
  const char *op_options; /* operator options ("" for the defaults) */
  double predicted_bytes; /* encoded bytes, both copies with transpose=stored */
  double predicted_us;    /* one product of the workload (pair: both), plus the encode over the
                             calls when the workload has :N */
  double encode_s;        /* predicted host encode time */
  const char *bound;      /* what bounds it: "bytes-bound, 1.23 bytes/nnz" */
  double measured_us;     /* tune=trial: one product of the workload as timed on the backend (on
                             the band of rows named by zs_plan_info.trial when one was timed);
                             -1 when the candidate was not timed */
} zs_plan_candidate;
/* Candidate i (ZS_ERR_INVALID_ARGUMENT outside [0, candidates)); strings static while p lives. */
ZS_API zs_status zs_plan_candidate_get(const zs_plan *p, int i, zs_plan_candidate *out);
/* The statistics the model read (rows, nnz, delta_entropy, distinct_values, ...), then the
 * device's constants as "device.<name>" (device.read_gbs, ...; docs/auto.md): fn is called once
 * per figure, as zs_encoded_stats does. */
ZS_API zs_status zs_plan_stats(const zs_plan *p, zs_stat_fn fn, void *ctx);
/* Encode A (the matrix the plan was made for) in the chosen format with its options; the result
 * records the choice and its reason (zs_encoded_note, kept in .zsm files). Errors: those of
 * zs_encode, and ZS_ERR_INVALID_ARGUMENT when A's shape, nonzeros or type differ from the
 * plan's. */
ZS_API zs_status zs_plan_encode(zs_encoded **out, const zs_plan *p, const zs_matrix *A);

#ifdef __cplusplus
}
#endif
#endif /* ZSPARSE_AUTO_H */
