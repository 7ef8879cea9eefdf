/* zs_petsc_bench.c — aijzsparse in each format against PETSc's aij, in one run on the same ranks:
 * time per MatMult, per MatMultTranspose and per KSP iteration, the encoding time at assembly and
 * the per-product vector copies (alone, and inside each aijzsparse MatMult), as medians (-stat
 * min: minima) over repetitions of the slowest rank's time.
 *
 *   mpirun -n 2 zs-petsc-bench -matrix gen:stencil2d:n=1000 -formats csr,gcsb,dtans \
 *     [-mat_zsparse_backend cpu|cuda] [-reps 20] [-ksp_type bicg] [-ksp_its 50] [-dominant 1] \
 *     [-csv FILE] [-mat_zsparse_copy_vectors]
 *
 * A format written FORMAT/copy (csr/copy) runs with -mat_zsparse_copy_vectors: its vectors are
 * copied to the backend even where the backend could use PETSc's arrays in place (cpu, ref).
 *
 * aij is timed before and after the formats; ratios are zsparse's time over the mean of the two
 * (below 1: faster than aij), and the two aij figures show how much the machine drifted. */
#include <petscksp.h>
#include <stdlib.h>
#include <string.h>

#include "zs_petsc_load.h"
#include "zsparse.h"
#include "zsparse_petsc.h"

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef struct timing {
  double mult, multt, iter; /* seconds: median (or min) over repetitions of the slowest rank */
  double copy; /* aijzsparse: seconds of the vector copies inside one MatMult (timed apart by the
                  type: MatZsparseGetInfo), the same statistic; 0 for aij */
} timing;

/* -stat min reports the fastest repetition instead of the median: on a loaded machine the
 * median measures the other tenants as much as the product. */
static PetscBool use_min;

/* Sort t[0..n) and return its median, or its minimum with -stat min. */
static double summary(double *t, PetscInt n) {
  qsort(t, (size_t)n, sizeof *t, cmp_double);
  return use_min ? t[0] : t[n / 2];
}

/* The copies inside Z's products so far, this rank's seconds (0 for aij: copies is NULL). */
static PetscErrorCode copies_so_far(Mat Z, const double *copies, double *out) {
  MatZsparseInfo zi;

  PetscFunctionBegin;
  *out = 0;
  if (copies) {
    PetscCall(MatZsparseGetInfo(Z, &zi));
    *out = zi.copy_seconds;
  }
  PetscFunctionReturn(0);
}

/* The slowest rank's time of one call of op, as the median over reps calls; with copies (an
 * aijzsparse A), the same statistic of the vector copies inside each call, timed apart by the
 * matrix type itself. */
typedef PetscErrorCode (*timed_fn)(Mat, Vec, Vec);
static PetscErrorCode time_op(Mat A, timed_fn op, Vec x, Vec y, PetscInt reps, double *out,
                              double *copies) {
  double *t, *c;
  PetscLogDouble t0, t1;
  MPI_Comm comm = PetscObjectComm((PetscObject)A);

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(reps, &t, reps, &c));
  PetscCall(op(A, x, y)); /* warm-up */
  for (PetscInt r = 0; r < reps; r++) {
    double local[2], c0, c1;
    PetscCallMPI(MPI_Barrier(comm));
    PetscCall(copies_so_far(A, copies, &c0));
    PetscCall(PetscTime(&t0));
    PetscCall(op(A, x, y));
    PetscCall(PetscTime(&t1));
    PetscCall(copies_so_far(A, copies, &c1));
    local[0] = t1 - t0, local[1] = c1 - c0;
    PetscCallMPI(MPI_Allreduce(local, &t[r], 1, MPI_DOUBLE, MPI_MAX, comm));
    PetscCallMPI(MPI_Allreduce(&local[1], &c[r], 1, MPI_DOUBLE, MPI_MAX, comm));
  }
  *out = summary(t, reps);
  if (copies) *copies = summary(c, reps);
  PetscCall(PetscFree2(t, c));
  PetscFunctionReturn(0);
}

/* Time per iteration of a KSP run to exactly its iterations (no convergence test stops it). */
static PetscErrorCode time_ksp(Mat A, Vec b, Vec x, PetscInt its, PetscInt reps, double *out) {
  KSP ksp;
  PC pc;
  double *t;
  PetscInt done;
  PetscLogDouble t0, t1;
  MPI_Comm comm = PetscObjectComm((PetscObject)A);

  PetscFunctionBegin;
  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPBICG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCNONE));
  PetscCall(KSPSetFromOptions(ksp)); /* -ksp_type, -pc_type may change the method */
  PetscCall(KSPSetTolerances(ksp, 0, 0, PETSC_DEFAULT, its));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_NONE));
  PetscCall(KSPSetConvergenceTest(ksp, KSPConvergedSkip, NULL, NULL));
  PetscCall(PetscMalloc1(reps, &t));
  PetscCall(KSPSetUp(ksp));
  for (PetscInt r = 0; r < reps; r++) {
    double local;
    PetscCall(VecSet(x, 0));
    PetscCallMPI(MPI_Barrier(comm));
    PetscCall(PetscTime(&t0));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(PetscTime(&t1));
    PetscCall(KSPGetIterationNumber(ksp, &done));
    local = (t1 - t0) / (double)PetscMax(done, 1);
    PetscCallMPI(MPI_Allreduce(&local, &t[r], 1, MPI_DOUBLE, MPI_MAX, comm));
  }
  *out = summary(t, reps);
  PetscCall(PetscFree(t));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(0);
}

/* All timings of A; zs says A is aijzsparse (its MatMult's copies are then timed apart). */
static PetscErrorCode time_all(Mat A, PetscBool zs, PetscInt reps, PetscInt its, timing *tm) {
  Vec x, y, b;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecDuplicate(y, &b));
  PetscCall(VecSet(x, 1));
  PetscCall(VecSet(b, 1));
  tm->copy = 0;
  PetscCall(time_op(A, MatMult, x, y, reps, &tm->mult, zs ? &tm->copy : NULL));
  PetscCall(time_op(A, MatMultTranspose, y, x, reps, &tm->multt, NULL));
  PetscCall(time_ksp(A, b, x, its, PetscMax(reps / 5, 3), &tm->iter));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(0);
}

/* What a product's copies cost: one upload of the rank's x and one download of its y on the
 * backend the matrices use (a memcpy on cpu, host-device transfers on a GPU). */
static PetscErrorCode time_copies(Mat A, const char *backend, PetscInt reps, double *out) {
  zs_context *ctx = NULL;
  zs_vector *vx = NULL, *vy = NULL;
  PetscInt m, n;
  PetscScalar *host;
  double *t;
  PetscLogDouble t0, t1;
  MPI_Comm comm = PetscObjectComm((PetscObject)A);

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCall(PetscCalloc1(PetscMax(m, n) + 1, &host));
  PetscCall(PetscMalloc1(reps, &t));
  PetscCheck(zs_context_create(&ctx) == ZS_OK, PETSC_COMM_SELF, PETSC_ERR_LIB, "%s",
             zs_last_error());
  const zs_type type = sizeof(PetscScalar) == 4 ? ZS_F32 : ZS_F64;
  const char *be = backend[0] ? backend : NULL;
  PetscCheck(zs_vector_create(&vx, ctx, be, type, PetscMax(n, 1)) == ZS_OK &&
                 zs_vector_create(&vy, ctx, be, type, PetscMax(m, 1)) == ZS_OK,
             PETSC_COMM_SELF, PETSC_ERR_LIB, "%s", zs_last_error());
  for (PetscInt r = 0; r < reps; r++) {
    double local;
    PetscCall(PetscTime(&t0));
    PetscCheck(zs_vector_upload(vx, host) == ZS_OK && zs_vector_download(vy, host) == ZS_OK,
               PETSC_COMM_SELF, PETSC_ERR_LIB, "%s", zs_last_error());
    PetscCall(PetscTime(&t1));
    local = t1 - t0;
    PetscCallMPI(MPI_Allreduce(&local, &t[r], 1, MPI_DOUBLE, MPI_MAX, comm));
  }
  *out = summary(t, reps);
  zs_vector_destroy(&vx);
  zs_vector_destroy(&vy);
  zs_context_destroy(&ctx);
  PetscCall(PetscFree(t));
  PetscCall(PetscFree(host));
  PetscFunctionReturn(0);
}

/* Re-assemble Z unchanged: the assembly hook encodes again; the slowest rank's encoding time. */
static PetscErrorCode encode_time(Mat Z, double *sec, double *bytes) {
  MatZsparseInfo info;
  double local[2], global[2];

  PetscFunctionBegin;
  PetscCall(MatAssemblyBegin(Z, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Z, MAT_FINAL_ASSEMBLY));
  PetscCall(MatZsparseGetInfo(Z, &info));
  local[0] = info.encode_seconds;
  local[1] = (double)(info.bytes[0] + info.bytes[1]);
  PetscCallMPI(MPI_Allreduce(&local[0], &global[0], 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
  PetscCallMPI(MPI_Allreduce(&local[1], &global[1], 1, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
  *sec = global[0], *bytes = global[1];
  PetscFunctionReturn(0);
}

/* One line of the result: aij (enc < 0) or a format. */
typedef struct row {
  char name[64];
  const char *backend; /* where the format's blocks ran; "-" for aij */
  double bpn, enc;     /* encoded bytes per nonzero, encoding seconds */
  timing t;
} row;

/* The run's description, repeated on every CSV line so that files concatenate (the matrix
 * quoted: generator specs hold commas). */
typedef struct run_info {
  const char *source, *ksp, *stat;
  PetscInt n;
  double nnz, copy_alone;
  int ranks;
  PetscInt reps;
} run_info;

#define CSV_HEADER                                                                            \
  "matrix,n,nnz,ranks,backend,ksp,stat,reps,type,bytes_per_nnz,encode_ms,mult_us,mult_ratio," \
  "multt_us,multt_ratio,iter_us,iter_ratio,copy_in_mult_us,copy_alone_us\n"

/* Print r as a table line and (when csv is open) a CSV line; ratios against base. */
static PetscErrorCode emit(FILE *csv, const run_info *ri, const row *r, const timing *base,
                           const char *note) {
  char enc[32] = "-", copy[32] = "-";
  const double rm = r->t.mult / base->mult, rt = r->t.multt / base->multt,
               rit = r->t.iter / base->iter;

  PetscFunctionBegin;
  if (r->enc >= 0) {
    PetscCall(PetscSNPrintf(enc, sizeof enc, "%.2f", 1e3 * r->enc));
    PetscCall(PetscSNPrintf(copy, sizeof copy, "%.1f", 1e6 * r->t.copy));
  }
  PetscCall(PetscPrintf(
      PETSC_COMM_WORLD, "%-10s %8.2f %10s %9.1f %6.2f %9.1f %6.2f %9.1f %6.2f %8s%s\n", r->name,
      r->bpn, enc, 1e6 * r->t.mult, rm, 1e6 * r->t.multt, rt, 1e6 * r->t.iter, rit, copy, note));
  if (csv)
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, csv,
                           "\"%s\",%" PetscInt_FMT ",%.0f,%d,%s,%s,%s,%" PetscInt_FMT
                           ",%s,%.3f,%s,%.2f,%.4f,%.2f,%.4f,%.2f,%.4f,%s,%.2f\n",
                           ri->source, ri->n, ri->nnz, ri->ranks, r->backend, ri->ksp, ri->stat,
                           ri->reps, r->name, r->bpn, enc, 1e6 * r->t.mult, rm, 1e6 * r->t.multt,
                           rt, 1e6 * r->t.iter, rit, copy, 1e6 * ri->copy_alone));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv) {
  char source[PETSC_MAX_PATH_LEN] = "gen:stencil2d:n=512",
       formats[1024] = "csr,coo,csb,gcsb,cci,dtans";
  char backend[64] = "", csv_path[PETSC_MAX_PATH_LEN] = "";
  PetscReal dominant = 0;
  PetscInt reps = 20, its = 50, N;
  PetscMPIInt size;
  MatInfo info;
  Mat A, Z;
  KSPType ktype = KSPBICG;
  char kbuf[64];
  FILE *csv = NULL;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(ZsparsePetscInitialize());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-matrix", source, sizeof source, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-formats", formats, sizeof formats, NULL));
  PetscCall(
      PetscOptionsGetString(NULL, NULL, "-mat_zsparse_backend", backend, sizeof backend, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-csv", csv_path, sizeof csv_path, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-dominant", &dominant, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-ksp_its", &its, NULL));
  char stat[16] = "median";
  PetscCall(PetscOptionsGetString(NULL, NULL, "-stat", stat, sizeof stat, NULL));
  use_min = strcmp(stat, "min") == 0;
  PetscBool kset, copy_all = PETSC_FALSE;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-ksp_type", kbuf, sizeof kbuf, &kset));
  if (kset) ktype = kbuf;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-mat_zsparse_copy_vectors", &copy_all, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (csv_path[0]) {
    PetscCall(PetscFOpen(PETSC_COMM_WORLD, csv_path, "w", &csv));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, csv, CSV_HEADER));
  }

  PetscCall(ZsPetscLoad(PETSC_COMM_WORLD, source, dominant, PETSC_DECIDE, MATAIJ, &A));
  PetscCall(MatGetSize(A, &N, NULL));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  run_info ri = {source, ktype, use_min ? "min" : "median", N, info.nz_used, 0, size, reps};
  PetscCall(time_copies(A, backend, reps, &ri.copy_alone));
  row before = {"aij", "-", 12.0, -1, {0, 0, 0, 0}}, after = before, rows[32];
  PetscCall(time_all(A, PETSC_FALSE, reps, its, &before.t));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "# %s: n %" PetscInt_FMT
                        ", nnz %.0f, %d rank(s), backend %s, ksp %s, %" PetscInt_FMT
                        " reps, %s\n# per-product vector copies (upload x + download y): %.1f us\n",
                        source, N, info.nz_used, size, backend[0] ? backend : "(default)", ktype,
                        reps, ri.stat, 1e6 * ri.copy_alone));
  int nrows = 0;
  for (char *f = strtok(formats, ","); f && nrows < 32; f = strtok(NULL, ",")) {
    MatZsparseInfo zi;
    row *r = &rows[nrows++];
    double bytes = 0;
    /* FORMAT/copy: with the vectors copied, where the backend could use PETSc's in place */
    char *slash = strchr(f, '/');
    const PetscBool copy = copy_all || (slash && strcmp(slash, "/copy") == 0);
    PetscCall(PetscStrncpy(r->name, f, sizeof r->name));
    if (slash) *slash = '\0';
    PetscCall(PetscOptionsSetValue(NULL, "-mat_zsparse_format", f));
    PetscCall(PetscOptionsSetValue(NULL, "-mat_zsparse_copy_vectors", copy ? "1" : "0"));
    PetscCall(MatConvert(A, MATAIJZSPARSE, MAT_INITIAL_MATRIX, &Z));
    PetscCall(encode_time(Z, &r->enc, &bytes));
    PetscCall(time_all(Z, PETSC_TRUE, reps, its, &r->t));
    PetscCall(MatZsparseGetInfo(Z, &zi));
    r->backend = zi.backend; /* static: the backend's name outlives the matrix */
    r->bpn = bytes / info.nz_used;
    PetscCall(MatDestroy(&Z));
  }
  PetscCall(time_all(A, PETSC_FALSE, reps, its, &after.t));
  const timing base = {(before.t.mult + after.t.mult) / 2, (before.t.multt + after.t.multt) / 2,
                       (before.t.iter + after.t.iter) / 2, 0.0};
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %8s %10s %9s %6s %9s %6s %9s %6s %8s\n", "type",
                        "B/nnz", "encode_ms", "mult_us", "ratio", "multT_us", "ratio", "iter_us",
                        "ratio", "copy_us"));
  PetscCall(emit(csv, &ri, &before, &base, ""));
  for (int r = 0; r < nrows; r++) PetscCall(emit(csv, &ri, &rows[r], &base, ""));
  PetscCall(PetscStrncpy(after.name, "aij-again", sizeof after.name));
  PetscCall(emit(csv, &ri, &after, &base, "   (aij timed again after the formats)"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "# ratio: time / aij's mean of its two rows; copy_us: the vector copies "
                        "inside each aijzsparse MatMult\n"));
  if (csv) PetscCall(PetscFClose(PETSC_COMM_WORLD, csv));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
