/* aijzsparse_impl.h — internal state of an aijzsparse matrix, shared by the type and its products. */
#ifndef ZSPARSE_PETSC_AIJZSPARSE_IMPL_H
#define ZSPARSE_PETSC_AIJZSPARSE_IMPL_H

#include <petscmat.h>
/* The one private PETSc header used: object state (PetscObjectStateGet) and argument checks. */
#include <petsc/private/petscimpl.h>

#include "zsparse.h"
#include "zsparse_petsc.h"

#if defined(PETSC_USE_COMPLEX)
#error "aijzsparse needs a PETSc built with real scalars"
#elif defined(PETSC_USE_REAL_SINGLE)
#define ZSP_TYPE ZS_F32
#elif defined(PETSC_USE_REAL_DOUBLE)
#define ZSP_TYPE ZS_F64
#else
#error "aijzsparse needs PetscScalar to be float or double"
#endif

#define ZSP_FIELD 256 /* longest option string kept (format, options, backend) */

/* One local block (the diagonal block, or the off-diagonal block over its ghost columns) as a
 * zsparse operator; op is NULL while the block holds no nonzeros (its product is zero). */
typedef struct zsp_block {
  zs_operator *op;
  Mat mat;                /* the SeqAIJ block (borrowed from the matrix) */
  PetscObjectState state; /* mat's state the operator was encoded from */
  PetscInt64 nnz, bytes;
} zsp_block;

typedef PetscErrorCode (*zsp_mult_fn)(Mat, Vec, Vec);
typedef PetscErrorCode (*zsp_multadd_fn)(Mat, Vec, Vec, Vec);

typedef struct zsp_mat {
  char format[ZSP_FIELD], options[ZSP_FIELD], backend[ZSP_FIELD], backend_options[ZSP_FIELD];
  zs_format fmt;
  PetscBool mpi;
  /* Setting: copy vectors even where the backend could use PETSc's arrays in place (for
   * measuring what the copies cost; -mat_zsparse_copy_vectors). */
  PetscBool copy_vectors;
  /* The products use PETSc's arrays in place: the backend's vectors are host memory (cpu,
   * ref) and copy_vectors is off. The work vectors are then wrapped over the arrays at each
   * product, and made at the first one (NULL until then, and for a length 0). */
  PetscBool in_place;
  zsp_block blk[2]; /* [0] diagonal block, [1] off-diagonal block (MPI only) */
  /* Work vectors on the backend: the rank's rows, its columns, its ghost columns. NULL when
   * the length is 0 (nothing to carry); wrapped over PETSc's arrays when in_place. */
  zs_vector *vrow, *vcol, *vghost;
  /* The ghost exchange, built from the off-diagonal block's compressed columns (garray). */
  VecScatter scatter;
  Vec lvec;
  PetscBool ready;        /* operators, work vectors and scatter match the matrix */
  PetscObjectState state; /* the matrix's state they match */
  PetscInt encodes;
  PetscLogDouble encode_seconds;
  PetscInt64 products;         /* products run since the matrix was made */
  PetscLogDouble copy_seconds; /* their vector copies' wall time (MatZsparseGetInfo) */
  /* The AIJ operations this type wraps, restored when it converts back to AIJ. */
  PetscErrorCode (*base_assemblyend)(Mat, MatAssemblyType);
  PetscErrorCode (*base_destroy)(Mat);
  PetscErrorCode (*base_duplicate)(Mat, MatDuplicateOption, Mat *);
  PetscErrorCode (*base_setfromoptions)(Mat, PetscOptionItems *);
  zsp_mult_fn base_mult, base_multtranspose;
  zsp_multadd_fn base_multadd, base_multtransposeadd;
} zsp_mat;

/* The process-wide zsparse context (created on first use, destroyed at PetscFinalize). */
PETSC_INTERN PetscErrorCode ZspContext(zs_context **ctx);
/* A zsparse error as a PETSc error on comm, naming what was being done. */
PETSC_INTERN PetscErrorCode ZspError(MPI_Comm comm, zs_status s, const char *what);
#define ZspCall(comm, expr, what)                  \
  do {                                             \
    zs_status zsp_s_ = (expr);                     \
    if (zsp_s_ != ZS_OK) {                         \
      PetscCall(ZspError((comm), zsp_s_, (what))); \
    }                                              \
  } while (0)

/* The state of an aijzsparse matrix; error for any other matrix. */
PETSC_INTERN PetscErrorCode ZspGet(Mat A, zsp_mat **z);
/* Bring the operators up to date with A's values (encode again when A changed since). */
PETSC_INTERN PetscErrorCode ZspEnsureCurrent(Mat A, zsp_mat *z);

PETSC_INTERN PetscErrorCode MatMult_AIJZsparse(Mat A, Vec x, Vec y);
PETSC_INTERN PetscErrorCode MatMultAdd_AIJZsparse(Mat A, Vec x, Vec y, Vec w);
PETSC_INTERN PetscErrorCode MatMultTranspose_AIJZsparse(Mat A, Vec x, Vec y);
PETSC_INTERN PetscErrorCode MatMultTransposeAdd_AIJZsparse(Mat A, Vec x, Vec y, Vec w);

PETSC_INTERN PetscErrorCode MatCreate_SeqAIJZsparse(Mat A);
PETSC_INTERN PetscErrorCode MatCreate_MPIAIJZsparse(Mat A);

/* GPU choice by hwloc locality: sets CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES for this rank
 * before the zsparse context loads a GPU module, unless the user set them. */
PETSC_INTERN PetscErrorCode ZspMapGpu(MPI_Comm comm, PetscBool verbose);
/* The pure choice: of ngpu GPUs (near[i] non-zero when GPU i is local to the rank's cores), the
 * one the node-local rank local_rank takes: the near ones in turn, or all when none is near. */
PETSC_INTERN int ZspPickGpu(int ngpu, const int *near, int local_rank);

#endif
