/* zsparse_petsc.c — registration of the aijzsparse types, the process's zsparse context, errors. */
#include "petsc/aijzsparse_impl.h"

static zs_context *context;
static PetscBool registered;

static PetscErrorCode finalize(void) {
  PetscFunctionBegin;
  zs_context_destroy(&context);
  registered = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode ZspError(MPI_Comm comm, zs_status s, const char *what) {
  (void)comm;
  /* Not collective: a rank's own block can fail alone, so the error is raised on PETSC_COMM_SELF. */
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "aijzsparse: %s: %s (%s)", what, zs_last_error(),
          zs_status_name(s));
}

PetscErrorCode ZspContext(zs_context **ctx) {
  PetscFunctionBegin;
  if (!context) ZspCall(PETSC_COMM_SELF, zs_context_create(&context), "creating the context");
  *ctx = context;
  PetscFunctionReturn(0);
}

PetscErrorCode ZsparsePetscInitialize(void) {
  PetscBool map = PETSC_TRUE, verbose = PETSC_FALSE;

  PetscFunctionBegin;
  if (registered) PetscFunctionReturn(0);
  PetscCall(MatRegisterRootName(MATAIJZSPARSE, MATSEQAIJZSPARSE, MATMPIAIJZSPARSE));
  PetscCall(MatRegister(MATSEQAIJZSPARSE, MatCreate_SeqAIJZsparse));
  PetscCall(MatRegister(MATMPIAIJZSPARSE, MatCreate_MPIAIJZsparse));
  /* The GPU of each rank is chosen here, collectively, before any context loads a GPU module. */
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-zsparse_gpu_map", &map, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-zsparse_gpu_map_view", &verbose, NULL));
  if (map) PetscCall(ZspMapGpu(PETSC_COMM_WORLD, verbose));
  PetscCall(PetscRegisterFinalize(finalize));
  registered = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* Found by PETSc's dynamic loading (-dll_append .../libzsparse-petsc.so): the '-' of the file
 * name becomes '_' in the symbol it looks for. */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_zsparse_petsc(void);
PetscErrorCode PetscDLLibraryRegister_zsparse_petsc(void) { return ZsparsePetscInitialize(); }
