/* zsparse_petsc.h — the PETSc matrix type "aijzsparse": PETSc's AIJ whose products are zsparse's. */
#ifndef ZSPARSE_PETSC_H
#define ZSPARSE_PETSC_H

#include <petscmat.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The type names. MATAIJZSPARSE is the root name: it resolves to the sequential type on a
 * one-rank communicator and to the MPI type otherwise, as MATAIJ does. */
#define MATAIJZSPARSE "aijzsparse"
#define MATSEQAIJZSPARSE "seqaijzsparse"
#define MATMPIAIJZSPARSE "mpiaijzsparse"

/* Register the types with PETSc (MatRegister) so that MatSetType and `-mat_type aijzsparse`
 * find them. Call after PetscInitialize; calling it again does nothing. A program that does not
 * call it gets the same through PETSc's dynamic loading: `-dll_append
 * <libdir>/libzsparse-petsc.so` runs PetscDLLibraryRegister_zsparse_petsc, which calls it.
 * Errors: PETSC_ERR_LIB when the zsparse context cannot be created (the message names why). */
PETSC_EXTERN PetscErrorCode ZsparsePetscInitialize(void);

/* The zsparse format (a name such as "csr", "gcsb", "dtans"; whatever zs_format_from_name
 * knows) and its encoder options ("key=value,...", or NULL for the defaults) of an aijzsparse
 * matrix, as `-mat_zsparse_format` and `-mat_zsparse_options` do. Takes effect at the next
 * assembly, or at once (re-encoding) on an assembled matrix. Collective. Default: "csr".
 * Errors: PETSC_ERR_ARG_WRONG for a matrix of another type; PETSC_ERR_ARG_UNKNOWN_TYPE for an
 * unknown format; PETSC_ERR_LIB when zsparse refuses the options (the message is zsparse's). */
PETSC_EXTERN PetscErrorCode MatZsparseSetFormat(Mat A, const char format[], const char options[]);

/* The zsparse backend ("cpu", "ref", "cuda", "hip"; NULL for zsparse's default) and its
 * operator options (e.g. "transpose=stored"), as `-mat_zsparse_backend` and
 * `-mat_zsparse_backend_options` do. Same timing, collectivity and errors as above. */
PETSC_EXTERN PetscErrorCode MatZsparseSetBackend(Mat A, const char backend[], const char options[]);

/* What the last encoding of the rank's local blocks made: the diagonal block and, for the MPI
 * type, the off-diagonal block over its ghost columns. */
typedef struct MatZsparseInfo {
  const char *format;            /* the format's name (static) */
  const char *backend;           /* the backend the operators live on (static while A lives) */
  PetscInt encodes;              /* how many times this rank's blocks were encoded */
  PetscLogDouble encode_seconds; /* wall time of the last encoding and upload, this rank */
  PetscInt64 nnz[2];             /* diagonal, off-diagonal block: stored nonzeros */
  PetscInt64 bytes[2];           /* their encoded sizes (zs_encoded_bytes) */
  PetscInt ghosts;               /* ghost columns (off-diagonal block's width); 0 sequential */
  PetscBool in_place;            /* the products use PETSc's arrays in place (host backends) */
  PetscInt64 products;           /* products (MatMult..., MatMultTranspose...) run, this rank */
  PetscLogDouble copy_seconds;   /* their time spent copying vectors between PETSc's arrays and
                                    the backend (uploads and downloads), this rank */
} MatZsparseInfo;

/* Fill *info for this rank. Not collective. Errors: PETSC_ERR_ARG_WRONG for another type. */
PETSC_EXTERN PetscErrorCode MatZsparseGetInfo(Mat A, MatZsparseInfo *info);

#ifdef __cplusplus
}
#endif
#endif /* ZSPARSE_PETSC_H */
