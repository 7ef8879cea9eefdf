/* plain_petsc.c — a PETSc program that knows nothing of zsparse: a 1-D Laplacian with a
 * nonsymmetric convection term, assembled with MatSetValues, solved with the KSP of the command
 * line. With -expect_type T it fails unless the matrix ended up of type T (so a test can show
 * that -dll_append and -mat_type reached it); its solution must have converged. */
#include <petscksp.h>
#include <string.h>

int main(int argc, char **argv) {
  const PetscInt n = 400;
  PetscInt lo, hi, its;
  char expect[64] = "";
  Mat A;
  Vec x, b;
  KSP ksp;
  MatType type;
  KSPConvergedReason reason;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-expect_type", expect, sizeof expect, NULL));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatSetUp(A));
  PetscCall(MatGetOwnershipRange(A, &lo, &hi));
  for (PetscInt i = lo; i < hi; i++) {
    if (i > 0) PetscCall(MatSetValue(A, i, i - 1, -1.3, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(A, i, i + 1, -0.7, INSERT_VALUES));
    PetscCall(MatSetValue(A, i, i, 2.5, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1));
  PetscCall(MatGetType(A, &type)); /* set by MatSetFromOptions above */
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "plain_petsc: type %s, %" PetscInt_FMT " iterations, %s\n", type, its,
                        KSPConvergedReasons[reason]));
  const int bad = (expect[0] && strcmp(expect, type) != 0) || reason <= 0;
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return bad;
}
