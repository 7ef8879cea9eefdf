/* test_petsc.c — aijzsparse against PETSc's AIJ, run under mpirun with 1 and 2 ranks.
 *
 *   test_petsc products FORMAT... [-- SOURCE...]   MatMult(Add), MatMultTranspose(Add) per format
 *   test_petsc ksp FORMAT... [-- SOURCE...]        KSP iterations against -mat_type aij
 *   test_petsc lifecycle FORMAT                    re-assembly, MatScale, duplicate, convert back,
 *                                                  empty blocks, a bad format
 * FORMAT is a format name or "name:options". A SOURCE is "gen:SPEC", a Matrix Market path, or
 * "@NAME" for a file of the real matrices (--matrices DIR first; $ZS_TEST_MATRICES wins; exit 77
 * without them, tests/common/test_matrices.h). Products must match AIJ's within the tolerance of `zsparse spmv --check`
 * (docs/cli.md): |y - y_aij| <= 16 eps min(len_max + 2, 1024) (|A| |x| + |beta y0|) per element. */
#include <petscksp.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/test_matrices.h"
#include "zs_petsc_load.h"
#include "zsparse_petsc.h"

static int failures;

#define EXPECT(cond, ...)                                    \
  do {                                                       \
    if (!(cond)) {                                           \
      failures++;                                            \
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL: "));    \
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, __VA_ARGS__)); \
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));        \
    }                                                        \
  } while (0)

/* A copy of the AIJ matrix A with every stored value replaced by |value| (abs) or by 1. */
static PetscErrorCode transformed(Mat A, PetscBool ones, Mat *B) {
  Mat blk[2] = {NULL, NULL};
  PetscBool mpi;

  PetscFunctionBegin;
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, B));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)*B, MATMPIAIJ, &mpi));
  if (mpi)
    PetscCall(MatMPIAIJGetSeqAIJ(*B, &blk[0], &blk[1], NULL));
  else
    blk[0] = *B;
  for (int b = 0; b < 2; b++) {
    PetscScalar *a;
    MatInfo info;
    if (!blk[b]) continue;
    PetscCall(MatGetInfo(blk[b], MAT_LOCAL, &info));
    PetscCall(MatSeqAIJGetArray(blk[b], &a));
    for (PetscInt k = 0; k < (PetscInt)info.nz_used; k++) a[k] = ones ? 1 : PetscAbsScalar(a[k]);
    PetscCall(MatSeqAIJRestoreArray(blk[b], &a));
  }
  PetscFunctionReturn(0);
}

/* The longest row (op N) or column (op T) of A. */
static PetscErrorCode longest(Mat A, PetscBool transpose, PetscReal *len) {
  Mat P;
  Vec one, cnt;

  PetscFunctionBegin;
  PetscCall(transformed(A, PETSC_TRUE, &P));
  if (transpose)
    PetscCall(MatCreateVecs(P, &cnt, &one));
  else
    PetscCall(MatCreateVecs(P, &one, &cnt));
  PetscCall(VecSet(one, 1));
  if (transpose)
    PetscCall(MatMultTranspose(P, one, cnt));
  else
    PetscCall(MatMult(P, one, cnt));
  PetscCall(VecMax(cnt, NULL, len));
  PetscCall(VecDestroy(&one));
  PetscCall(VecDestroy(&cnt));
  PetscCall(MatDestroy(&P));
  PetscFunctionReturn(0);
}

/* The AIJ matrix products are compared with, |A| for the bounds, and its longest row and column. */
typedef struct ref {
  Mat A, Aabs;
  PetscReal len[2]; /* op N, op T */
} ref;

static PetscErrorCode ref_create(Mat A, ref *r) {
  PetscFunctionBegin;
  r->A = A;
  PetscCall(transformed(A, PETSC_FALSE, &r->Aabs));
  for (int t = 0; t < 2; t++) PetscCall(longest(A, (PetscBool)t, &r->len[t]));
  PetscFunctionReturn(0);
}

static PetscErrorCode ref_destroy(ref *r) {
  PetscFunctionBegin;
  PetscCall(MatDestroy(&r->Aabs));
  PetscCall(MatDestroy(&r->A));
  PetscFunctionReturn(0);
}

/* y = op(M) x, or y = op(M) x + y0 with add (into y, which holds y0 on entry when in_place). */
static PetscErrorCode product(Mat M, PetscBool transpose, PetscBool add, Vec x, Vec y0, Vec y) {
  PetscFunctionBegin;
  if (transpose && add)
    PetscCall(MatMultTransposeAdd(M, x, y0, y));
  else if (transpose)
    PetscCall(MatMultTranspose(M, x, y));
  else if (add)
    PetscCall(MatMultAdd(M, x, y0, y));
  else
    PetscCall(MatMult(M, x, y));
  PetscFunctionReturn(0);
}

/* Compare op(Z) with op(A) (op N or T; add: w = op x + y0 computed in place, else w = op x over
 * a w of NaN, so that an element the product does not write fails). */
static PetscErrorCode compare_product(const ref *r, Mat Z, PetscBool transpose, PetscBool add,
                                      PetscRandom rnd, const char *what) {
  Vec x, y0, wa, wz, bound, xa;
  PetscReal worst;

  PetscFunctionBegin;
  if (transpose)
    PetscCall(MatCreateVecs(r->A, &y0, &x));
  else
    PetscCall(MatCreateVecs(r->A, &x, &y0));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(VecShift(x, -0.5));
  PetscCall(VecSetRandom(y0, rnd));
  PetscCall(VecDuplicate(y0, &wa));
  PetscCall(VecDuplicate(y0, &wz));
  PetscCall(VecDuplicate(y0, &bound));
  PetscCall(VecDuplicate(x, &xa));
  PetscCall(VecCopy(x, xa));
  PetscCall(VecAbs(xa));
  PetscCall(VecSet(wz, NAN));
  if (add) PetscCall(VecCopy(y0, wz));
  PetscCall(product(r->A, transpose, add, x, y0, wa));
  PetscCall(product(Z, transpose, add, x, wz, wz));
  PetscCall(product(r->Aabs, transpose, PETSC_FALSE, xa, NULL, bound));
  if (add) {
    PetscCall(VecAbs(y0));
    PetscCall(VecAXPY(bound, 1, y0));
  }
  PetscCall(VecShift(bound, 1e-300));
  PetscCall(VecAXPY(wz, -1, wa));
  PetscCall(VecAbs(wz));
  PetscCall(VecPointwiseDivide(wz, wz, bound));
  PetscCall(VecMax(wz, NULL, &worst));
  const PetscReal tol = 16 * PETSC_MACHINE_EPSILON * PetscMin(r->len[transpose] + 2, 1024);
  EXPECT(worst <= tol && !PetscIsNanReal(worst), "%s %s%s: max rel err %.3e > tolerance %.3e", what,
         transpose ? "T" : "N", add ? "+add" : "", (double)worst, (double)tol);
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y0));
  PetscCall(VecDestroy(&wa));
  PetscCall(VecDestroy(&wz));
  PetscCall(VecDestroy(&bound));
  PetscCall(VecDestroy(&xa));
  PetscFunctionReturn(0);
}

static PetscErrorCode compare_all(const ref *r, Mat Z, PetscRandom rnd, const char *what) {
  PetscFunctionBegin;
  for (int t = 0; t < 2; t++)
    for (int add = 0; add < 2; add++)
      PetscCall(compare_product(r, Z, (PetscBool)t, (PetscBool)add, rnd, what));
  PetscFunctionReturn(0);
}

/* Z: an aijzsparse copy of the AIJ matrix A in format spec ("name" or "name:options"). */
static PetscErrorCode to_zsparse(Mat A, const char *spec, Mat *Z) {
  char name[64];
  const char *colon = strchr(spec, ':');

  PetscFunctionBegin;
  /* Through the options the conversion encodes once, in the format asked for. */
  PetscCall(PetscStrncpy(name, spec, colon ? (size_t)(colon - spec + 1) : sizeof name));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_zsparse_format", name));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_zsparse_options", colon ? colon + 1 : ""));
  PetscCall(MatConvert(A, MATAIJZSPARSE, MAT_INITIAL_MATRIX, Z));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_zsparse_format"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_zsparse_options"));
  PetscFunctionReturn(0);
}

/* "@NAME" names a file of the real-matrix folder (--matrices DIR or $ZS_TEST_MATRICES). */
static const char *resolve(const char *src, const char *dir, char *buf, size_t size) {
  if (src[0] != '@') return src;
  snprintf(buf, size, "%s/%s", dir, src + 1);
  return buf;
}

static PetscErrorCode test_products(const char *src, int nfmt, char **fmt, PetscRandom rnd) {
  Mat A, Z;
  ref r;
  char what[PETSC_MAX_PATH_LEN + 128];

  PetscFunctionBegin;
  PetscCall(ZsPetscLoad(PETSC_COMM_WORLD, src, 0, PETSC_DECIDE, MATAIJ, &A));
  PetscCall(ref_create(A, &r));
  for (int f = 0; f < nfmt; f++) {
    PetscCall(to_zsparse(A, fmt[f], &Z));
    snprintf(what, sizeof what, "%s [%s]", src, fmt[f]);
    PetscCall(compare_all(&r, Z, rnd, what));
    PetscCall(MatDestroy(&Z));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "products %s: %d formats checked\n", src, nfmt));
  PetscCall(ref_destroy(&r));
  PetscFunctionReturn(0);
}

/* Iterations of one solve of A x = b (b = A 1) with the KSP and PC named. */
static PetscErrorCode solve(Mat A, const char *ksp_type, const char *pc_type, PetscInt *its,
                            KSPConvergedReason *reason) {
  KSP ksp;
  PC pc;
  Vec x, b;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(x, 1));
  PetscCall(MatMult(A, x, b));
  PetscCall(VecSet(x, 0));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, ksp_type));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, pc_type));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 5000));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, reason));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(0);
}

/* SOURCE may end in "#spd" (CG runs too), "#dominant" (made diagonally dominant) or
 * "#spd-dominant" (both: a symmetric matrix made dominant stays symmetric, and turns SPD). */
static PetscErrorCode test_ksp(const char *arg, int nfmt, char **fmt) {
  static const char *const ksps[] = {"bicg", "bcgs", "gmres", "cg"};
  static const char *const pcs[] = {"none", "jacobi"};
  char src[PETSC_MAX_PATH_LEN];
  Mat A, Z;

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(src, arg, sizeof src));
  char *tag = strchr(src, '#');
  const PetscBool spd = tag && strncmp(tag, "#spd", 4) == 0;
  const PetscBool dom = tag && strstr(tag, "dominant") != NULL;
  if (tag) *tag = 0;
  PetscCall(ZsPetscLoad(PETSC_COMM_WORLD, src, dom ? 1.0 : 0, PETSC_DECIDE, MATAIJ, &A));
  for (int k = 0; k < 4; k++) {
    if (!spd && strcmp(ksps[k], "cg") == 0) continue;
    for (int p = 0; p < 2; p++) {
      PetscInt its_aij, its;
      KSPConvergedReason r_aij, r;
      PetscCall(solve(A, ksps[k], pcs[p], &its_aij, &r_aij));
      EXPECT(r_aij > 0, "%s %s/%s: AIJ itself does not converge (%s)", src, ksps[k], pcs[p],
             KSPConvergedReasons[r_aij]);
      for (int f = 0; f < nfmt; f++) {
        PetscCall(to_zsparse(A, fmt[f], &Z));
        PetscCall(solve(Z, ksps[k], pcs[p], &its, &r));
        EXPECT(r > 0 && PetscAbsInt(its - its_aij) <= 1,
               "%s %s/%s [%s]: %" PetscInt_FMT " iterations (%s), aij %" PetscInt_FMT, src, ksps[k],
               pcs[p], fmt[f], its, KSPConvergedReasons[r], its_aij);
        PetscCall(MatDestroy(&Z));
      }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ksp %s %s/%s: aij %" PetscInt_FMT " iterations\n",
                            src, ksps[k], pcs[p], its_aij));
    }
  }
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* Change values of M through MatSetValues: each local row's first entry becomes 3.5 and, with
 * new_entries, each row gains an entry in the last global column (a new pattern, and new ghost
 * columns on every rank but the last). */
static PetscErrorCode reassemble(Mat M, PetscBool new_entries) {
  PetscInt lo, hi, N, *first;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(M, &lo, &hi));
  PetscCall(MatGetSize(M, NULL, &N));
  PetscCall(PetscMalloc1(hi - lo, &first));
  for (PetscInt i = lo; i < hi; i++) { /* MatGetRow needs the assembled matrix: read first */
    PetscInt ncols;
    const PetscInt *cols;
    PetscCall(MatGetRow(M, i, &ncols, &cols, NULL));
    first[i - lo] = ncols ? cols[0] : i;
    PetscCall(MatRestoreRow(M, i, &ncols, &cols, NULL));
  }
  if (new_entries) PetscCall(MatSetOption(M, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  for (PetscInt i = lo; i < hi; i++) {
    PetscCall(MatSetValue(M, i, first[i - lo], 3.5, INSERT_VALUES));
    if (new_entries) PetscCall(MatSetValue(M, i, N - 1, -0.25, INSERT_VALUES));
  }
  PetscCall(PetscFree(first));
  PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* Compare Z with a fresh reference built from (a copy of) the AIJ matrix A. */
static PetscErrorCode check_against(Mat A, Mat Z, PetscRandom rnd, const char *what) {
  ref r;
  Mat copy;

  PetscFunctionBegin;
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &copy));
  PetscCall(ref_create(copy, &r));
  PetscCall(compare_all(&r, Z, rnd, what));
  PetscCall(ref_destroy(&r));
  PetscFunctionReturn(0);
}

static PetscErrorCode check_type(Mat M, const char *seq, const char *mpi, const char *what) {
  MatType type;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)M), &size));
  PetscCall(MatGetType(M, &type));
  EXPECT(strcmp(type, size > 1 ? mpi : seq) == 0, "%s gave type %s", what, type);
  PetscFunctionReturn(0);
}

static PetscErrorCode test_lifecycle(const char *fmt, PetscRandom rnd) {
  const char *src = "gen:erdos_renyi:rows=300,per_row=6";
  Mat A, Z, D, C;
  PetscInt n0 = 0, n1 = 0, N = 300;
  PetscMPIInt rank, size;
  MatZsparseInfo info;
  char what[256];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(ZsPetscLoad(PETSC_COMM_WORLD, src, 0, PETSC_DECIDE, MATAIJ, &A));
  PetscCall(to_zsparse(A, fmt, &Z));

  /* Re-assembly, with the same pattern then with new entries: the products follow. */
  for (int pass = 0; pass < 2; pass++) {
    PetscCall(MatZsparseGetInfo(Z, &info));
    n0 = info.encodes;
    PetscCall(reassemble(A, (PetscBool)pass));
    PetscCall(reassemble(Z, (PetscBool)pass));
    PetscCall(MatZsparseGetInfo(Z, &info));
    n1 = info.encodes;
    EXPECT(n1 == n0 + 1, "re-assembly %d encoded %" PetscInt_FMT " times", pass, n1 - n0);
    snprintf(what, sizeof what, "%s [%s] re-assembled%s", src, fmt, pass ? ", new entries" : "");
    PetscCall(check_against(A, Z, rnd, what));
  }

  /* Values changed without an assembly are encoded again before the next product. */
  PetscCall(MatScale(A, -2));
  PetscCall(MatScale(Z, -2));
  snprintf(what, sizeof what, "%s [%s] after MatScale", src, fmt);
  PetscCall(check_against(A, Z, rnd, what));

  /* Every product is counted. On a host backend the products use PETSc's arrays in place and
   * copy nothing, unless -mat_zsparse_copy_vectors asks for copies (timed apart). */
  {
    MatZsparseInfo i0, i1;
    PetscBool copy = PETSC_FALSE;
    Vec x, y;
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-mat_zsparse_copy_vectors", &copy, NULL));
    PetscCall(MatCreateVecs(Z, &x, &y));
    PetscCall(VecSet(x, 1));
    PetscCall(MatZsparseGetInfo(Z, &i0));
    PetscCall(MatMult(Z, x, y));
    PetscCall(MatMultTranspose(Z, y, x));
    PetscCall(MatZsparseGetInfo(Z, &i1));
    const PetscBool host = strcmp(i1.backend, "cpu") == 0 || strcmp(i1.backend, "ref") == 0;
    EXPECT(i1.products == i0.products + 2, "[%s] two products counted as %" PetscInt64_FMT, fmt,
           i1.products - i0.products);
    EXPECT(i1.in_place == (host && !copy), "[%s] on %s%s: in_place %d", fmt, i1.backend,
           copy ? " with -mat_zsparse_copy_vectors" : "", (int)i1.in_place);
    EXPECT(i1.in_place ? i1.copy_seconds == i0.copy_seconds
                       : i1.copy_seconds >= i0.copy_seconds && i1.copy_seconds < 1e9,
           "[%s] copies went from %g s to %g s (in place: %d)", fmt, i0.copy_seconds,
           i1.copy_seconds, (int)i1.in_place);
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
  }

  /* A duplicate keeps the type and the format; conversion back gives plain AIJ. */
  PetscCall(MatDuplicate(Z, MAT_COPY_VALUES, &D));
  PetscCall(check_type(D, MATSEQAIJZSPARSE, MATMPIAIJZSPARSE, "MatDuplicate"));
  PetscCall(MatZsparseGetInfo(D, &info));
  EXPECT(strncmp(info.format, fmt, strlen(info.format)) == 0, "MatDuplicate gave format %s, not %s",
         info.format, fmt);
  snprintf(what, sizeof what, "%s [%s] duplicated", src, fmt);
  PetscCall(check_against(A, D, rnd, what));
  PetscCall(MatConvert(D, MATAIJ, MAT_INPLACE_MATRIX, &D));
  PetscCall(check_type(D, MATSEQAIJ, MATMPIAIJ, "MatConvert in place to aij"));
  PetscCall(MatConvert(Z, MATAIJ, MAT_INITIAL_MATRIX, &C));
  PetscCall(check_type(C, MATSEQAIJ, MATMPIAIJ, "MatConvert to a new aij"));
  snprintf(what, sizeof what, "%s [%s] converted back", src, fmt);
  PetscCall(check_against(A, C, rnd, what));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&Z));
  PetscCall(MatDestroy(&A));

  /* All rows on rank 0: the other ranks hold empty blocks, rank 0 an empty off-diagonal one. */
  PetscCall(ZsPetscLoad(PETSC_COMM_WORLD, src, 0, rank == 0 ? N : 0, MATAIJ, &A));
  PetscCall(to_zsparse(A, fmt, &Z));
  snprintf(what, sizeof what, "%s [%s] all rows on rank 0", src, fmt);
  PetscCall(check_against(A, Z, rnd, what));
  PetscCall(MatDestroy(&Z));
  PetscCall(MatDestroy(&A));
  /* A diagonal matrix: no off-diagonal entries on any rank. */
  PetscCall(ZsPetscLoad(PETSC_COMM_WORLD, "gen:banded:rows=301,width=1,per_row=1", 0, PETSC_DECIDE,
                        MATAIJ, &A));
  PetscCall(to_zsparse(A, fmt, &Z));
  snprintf(what, sizeof what, "diagonal matrix [%s]", fmt);
  PetscCall(check_against(A, Z, rnd, what));

  /* An unknown format is refused with an error naming it; the matrix keeps working. */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  PetscErrorCode e = MatZsparseSetFormat(Z, "no-such-format", NULL);
  PetscCall(PetscPopErrorHandler());
  EXPECT(e == PETSC_ERR_ARG_UNKNOWN_TYPE, "an unknown format gave error %d", (int)e);
  PetscCall(MatZsparseGetInfo(Z, &info));
  EXPECT(strncmp(info.format, fmt, strlen(info.format)) == 0, "the refused format left %s",
         info.format);
  snprintf(what, sizeof what, "diagonal matrix [%s] after a refused format", fmt);
  PetscCall(check_against(A, Z, rnd, what));
  PetscCall(MatDestroy(&Z));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "lifecycle [%s] on %d ranks checked\n", fmt, size));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv) {
  PetscRandom rnd;
  char buf[PETSC_MAX_PATH_LEN];
  const char *matrices = NULL;
  int nfmt = 0, first_src = argc;

  /* Arguments are read before PETSc sees them: "--matrices DIR" first, then the mode, the
   * formats, "--" and the sources. The real matrices are looked up before MPI starts, so a
   * missing folder exits 77 on every rank alike. */
  if (argc > 2 && strcmp(argv[1], "--matrices") == 0) {
    const char *dir = argv[2];
    argv[2] = argv[0];
    argv += 2, argc -= 2;
    for (int i = 1; i < argc; i++)
      if (argv[i][0] == '@') matrices = dir;
    if (matrices) matrices = zst_matrices_dir(dir);
  }
  for (int i = 2; i < argc; i++)
    if (strcmp(argv[i], "--") == 0) {
      first_src = i + 1;
      break;
    } else {
      nfmt++;
    }
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(ZsparsePetscInitialize());
  PetscCheck(argc >= 3 && nfmt > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG,
             "usage: test_petsc [--matrices DIR] products|ksp|lifecycle FORMAT... [-- SOURCE...]");
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 12345));
  PetscCall(PetscRandomSeed(rnd));
  const char *mode = argv[1];
  if (strcmp(mode, "lifecycle") == 0)
    for (int f = 0; f < nfmt; f++) PetscCall(test_lifecycle(argv[2 + f], rnd));
  for (int i = first_src; i < argc; i++) {
    PetscCheck(argv[i][0] != '@' || matrices, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG,
               "%s needs --matrices DIR", argv[i]);
    const char *src = resolve(argv[i], matrices, buf, sizeof buf);
    if (strcmp(mode, "products") == 0)
      PetscCall(test_products(src, nfmt, argv + 2, rnd));
    else if (strcmp(mode, "ksp") == 0)
      PetscCall(test_ksp(src, nfmt, argv + 2));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d failures\n", failures));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
