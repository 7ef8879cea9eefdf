/* aijzsparse.c — the aijzsparse matrix type: PETSc's AIJ (sequential and MPI) whose local blocks
 * are encoded with zsparse at assembly; conversion from and to AIJ, options, duplicate, destroy.
 *
 * Only PETSc's public API is used: the wrapped operations are read and replaced with
 * MatGetOperation / MatSetOperation, the state lives in a composed PetscContainer, and the MPI
 * blocks come from MatMPIAIJGetSeqAIJ. Assembly, MatSetValues, preallocation, viewers,
 * MatGetDiagonal (Jacobi) and everything else stay AIJ's, on AIJ's own copy of the values. */
#include <string.h>

#include "petsc/aijzsparse_impl.h"

static const char state_key[] = "ZsparsePetscState";

PetscErrorCode ZspGet(Mat A, zsp_mat **z) {
  PetscObject obj = NULL;
  MatType type;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)A, state_key, &obj));
  PetscCall(MatGetType(A, &type));
  PetscCheck(obj, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG,
             "matrix of type %s is not an aijzsparse matrix", type ? type : "(none)");
  PetscCall(PetscContainerGetPointer((PetscContainer)obj, (void **)z));
  PetscFunctionReturn(0);
}

/* Operators, work vectors and the scatter: everything derived from the matrix's values. */
static PetscErrorCode reset(zsp_mat *z) {
  PetscFunctionBegin;
  for (int b = 0; b < 2; b++) {
    zs_operator_destroy(&z->blk[b].op);
    z->blk[b].mat = NULL, z->blk[b].nnz = 0, z->blk[b].bytes = 0;
  }
  zs_vector_destroy(&z->vrow);
  zs_vector_destroy(&z->vcol);
  zs_vector_destroy(&z->vghost);
  PetscCall(VecScatterDestroy(&z->scatter));
  PetscCall(VecDestroy(&z->lvec));
  z->ready = PETSC_FALSE;
  PetscFunctionReturn(0);
}

static PetscErrorCode destroy_state(void *p) {
  zsp_mat *z = p;

  PetscFunctionBegin;
  PetscCall(reset(z));
  PetscCall(PetscFree(z));
  PetscFunctionReturn(0);
}

static const char *backend_or_null(const char *s) { return s[0] ? s : NULL; }

/* A work vector of n values on the backend, kept while its length and backend still fit. */
static PetscErrorCode work_vector(MPI_Comm comm, zs_vector **v, PetscInt n, const char *backend) {
  zs_context *ctx;

  PetscFunctionBegin;
  zs_vector_destroy(v);
  if (n == 0) PetscFunctionReturn(0);
  PetscCall(ZspContext(&ctx));
  ZspCall(comm, zs_vector_create(v, ctx, backend, ZSP_TYPE, n), "creating a work vector");
  PetscFunctionReturn(0);
}

/* Whether the backend's vectors are host memory, so that PETSc's arrays can be wrapped. */
static PetscBool host_vectors(zs_context *ctx, const char *backend) {
  zs_vector *probe = NULL;
  const PetscBool yes = zs_vector_wrap(&probe, ctx, backend, ZSP_TYPE, 0, NULL) == ZS_OK;
  zs_vector_destroy(&probe);
  return yes;
}

/* Encode one SeqAIJ block with the matrix's format and options and upload it. A block without
 * nonzeros gets no operator: its product is zero. */
static PetscErrorCode encode_block(MPI_Comm comm, zsp_mat *z, zsp_block *blk, Mat B) {
  PetscInt m, n, nrow;
  const PetscInt *ia, *ja;
  const PetscScalar *aa;
  PetscBool done;
  int64_t *row_ptr = NULL;
  int32_t *cols = NULL;
  zs_matrix *M = NULL;
  zs_encoded *E = NULL;
  zs_context *ctx;
  zs_status s;

  PetscFunctionBegin;
  zs_operator_destroy(&blk->op);
  blk->mat = B, blk->nnz = 0, blk->bytes = 0;
  PetscCall(MatGetSize(B, &m, &n));
  PetscCall(MatGetRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ia, &ja, &done));
  PetscCheck(done, comm, PETSC_ERR_SUP, "aijzsparse: the local block gives no row structure");
  blk->nnz = ia[nrow];
  if (blk->nnz > 0) {
    PetscCall(PetscMalloc2(nrow + 1, &row_ptr, blk->nnz, &cols));
    for (PetscInt i = 0; i <= nrow; i++) row_ptr[i] = ia[i];
    for (PetscInt64 k = 0; k < blk->nnz; k++) cols[k] = (int32_t)ja[k];
    PetscCall(MatSeqAIJGetArrayRead(B, &aa));
    /* Non-finite values are kept: the products must be AIJ's, NaN included. */
    s = zs_matrix_from_csr(&M, m, n, row_ptr, cols, aa, ZSP_TYPE, ZS_MATRIX_ALLOW_NONFINITE);
    PetscCall(MatSeqAIJRestoreArrayRead(B, &aa));
    PetscCall(PetscFree2(row_ptr, cols));
    if (s == ZS_OK) s = zs_encode(&E, M, z->fmt, z->options[0] ? z->options : NULL);
    zs_matrix_destroy(&M);
    if (s == ZS_OK) {
      PetscCall(ZspContext(&ctx));
      s = zs_operator_create(&blk->op, ctx, E, backend_or_null(z->backend),
                             z->backend_options[0] ? z->backend_options : NULL);
      blk->bytes = (PetscInt64)zs_encoded_bytes(E);
    }
    zs_encoded_destroy(&E);
  } else {
    s = ZS_OK;
  }
  PetscCall(MatRestoreRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ia, &ja, &done));
  ZspCall(comm, s, "encoding a local block");
  PetscCall(PetscObjectStateGet((PetscObject)B, &blk->state));
  PetscFunctionReturn(0);
}

/* The ghost exchange: garray names the global columns of the off-diagonal block's compressed
 * columns, in order; the scatter gathers them from x into lvec. Collective. */
static PetscErrorCode build_scatter(Mat A, zsp_mat *z, Mat Ao, const PetscInt *garray) {
  PetscInt nghost;
  IS from;
  Vec x;

  PetscFunctionBegin;
  PetscCall(MatGetSize(Ao, NULL, &nghost));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, nghost, &z->lvec));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nghost, garray, PETSC_COPY_VALUES, &from));
  PetscCall(MatCreateVecs(A, &x, NULL));
  PetscCall(VecScatterCreate(x, from, z->lvec, NULL, &z->scatter));
  PetscCall(VecDestroy(&x));
  PetscCall(ISDestroy(&from));
  PetscFunctionReturn(0);
}

/* Encode every local block, build the work vectors and (MPI) the scatter. Collective. */
static PetscErrorCode setup(Mat A, zsp_mat *z) {
  MPI_Comm comm = PetscObjectComm((PetscObject)A);
  Mat Ad = A, Ao = NULL;
  const PetscInt *garray = NULL;
  PetscInt m, n, nghost = 0;
  PetscLogDouble t0, t1;
  zs_context *ctx;

  PetscFunctionBegin;
  PetscCall(ZspContext(&ctx)); /* its creation (hardware discovery) is not encoding time */
  PetscCall(PetscTime(&t0));
  PetscCall(reset(z));
  if (z->mpi) {
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
    PetscCall(build_scatter(A, z, Ao, garray));
    PetscCall(MatGetSize(Ao, NULL, &nghost));
  }
  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCall(encode_block(comm, z, &z->blk[0], Ad));
  if (Ao) PetscCall(encode_block(comm, z, &z->blk[1], Ao));
  z->in_place = !z->copy_vectors && host_vectors(ctx, backend_or_null(z->backend));
  if (!z->in_place) {
    PetscCall(work_vector(comm, &z->vrow, m, backend_or_null(z->backend)));
    PetscCall(work_vector(comm, &z->vcol, n, backend_or_null(z->backend)));
    PetscCall(work_vector(comm, &z->vghost, nghost, backend_or_null(z->backend)));
  }
  PetscCall(PetscTime(&t1));
  z->encodes++;
  z->encode_seconds = t1 - t0;
  z->ready = PETSC_TRUE;
  PetscCall(PetscObjectStateGet((PetscObject)A, &z->state));
  PetscFunctionReturn(0);
}

/* Values changed without an assembly (MatScale, MatShift, MatDiagonalScale, MatZeroEntries,
 * writing through MatSeqAIJGetArray, ...) move the object's state: encode again, locally. The
 * nonzero pattern and so the ghost columns only change through an assembly, which rebuilds all. */
PetscErrorCode ZspEnsureCurrent(Mat A, zsp_mat *z) {
  MPI_Comm comm = PetscObjectComm((PetscObject)A);
  PetscObjectState s;
  PetscBool stale = PETSC_FALSE;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  if (!z->ready) {
    PetscCall(setup(A, z));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscObjectStateGet((PetscObject)A, &s));
  stale = s != z->state;
  for (int b = 0; b < 2 && !stale; b++) {
    if (!z->blk[b].mat || z->blk[b].mat == A) continue; /* A's own state was checked */
    PetscCall(PetscObjectStateGet((PetscObject)z->blk[b].mat, &s));
    stale = s != z->blk[b].state;
  }
  if (!stale) PetscFunctionReturn(0);
  PetscCall(PetscTime(&t0));
  for (int b = 0; b < 2; b++)
    if (z->blk[b].mat) PetscCall(encode_block(comm, z, &z->blk[b], z->blk[b].mat));
  PetscCall(PetscTime(&t1));
  z->encodes++;
  z->encode_seconds = t1 - t0;
  PetscCall(PetscObjectStateGet((PetscObject)A, &z->state));
  PetscFunctionReturn(0);
}

static PetscErrorCode install_ops(Mat A, zsp_mat *z);

static PetscErrorCode MatAssemblyEnd_AIJZsparse(Mat A, MatAssemblyType mode) {
  zsp_mat *z;

  PetscFunctionBegin;
  PetscCall(ZspGet(A, &z));
  PetscCall(z->base_assemblyend(A, mode));
  /* AIJ's assembly may choose other products (inodes): keep them as the base, put ours back. */
  PetscCall(install_ops(A, z));
  if (mode == MAT_FLUSH_ASSEMBLY) PetscFunctionReturn(0);
  PetscCall(setup(A, z));
  /* MatAssemblyEnd raises the state once after this returns; the encoding matches that state. */
  z->state++;
  PetscFunctionReturn(0);
}

/* Options from the database (prefix and options object of A), without a PetscOptionItems. */
static PetscErrorCode read_options(Mat A, zsp_mat *z) {
  PetscOptions opts;
  const char *prefix;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetOptions((PetscObject)A, &opts));
  PetscCall(MatGetOptionsPrefix(A, &prefix));
  PetscCall(PetscOptionsGetString(opts, prefix, "-mat_zsparse_format", z->format, ZSP_FIELD, NULL));
  PetscCall(
      PetscOptionsGetString(opts, prefix, "-mat_zsparse_options", z->options, ZSP_FIELD, NULL));
  PetscCall(
      PetscOptionsGetString(opts, prefix, "-mat_zsparse_backend", z->backend, ZSP_FIELD, NULL));
  PetscCall(PetscOptionsGetString(opts, prefix, "-mat_zsparse_backend_options", z->backend_options,
                                  ZSP_FIELD, NULL));
  PetscCall(PetscOptionsGetBool(opts, prefix, "-mat_zsparse_copy_vectors", &z->copy_vectors, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode parse_format(MPI_Comm comm, zsp_mat *z) {
  PetscFunctionBegin;
  if (zs_format_from_name(z->format, &z->fmt) != ZS_OK)
    SETERRQ(comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "aijzsparse: -mat_zsparse_format: %s",
            zs_last_error());
  PetscFunctionReturn(0);
}

/* Settings changed: take them on at once when the matrix is assembled. Collective. */
static PetscErrorCode settings_changed(Mat A, zsp_mat *z) {
  PetscBool assembled;

  PetscFunctionBegin;
  PetscCall(parse_format(PetscObjectComm((PetscObject)A), z));
  PetscCall(MatAssembled(A, &assembled));
  if (assembled) PetscCall(setup(A, z));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSetFromOptions_AIJZsparse(Mat A, PetscOptionItems *PetscOptionsObject) {
  zsp_mat *z;
  char buf[4][ZSP_FIELD];
  PetscBool set[4], copy = PETSC_FALSE, copy_set = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(ZspGet(A, &z));
  if (z->base_setfromoptions) PetscCall(z->base_setfromoptions(A, PetscOptionsObject));
  PetscOptionsHeadBegin(PetscOptionsObject, "aijzsparse: AIJ with zsparse products");
  PetscCall(PetscOptionsString("-mat_zsparse_format", "zsparse format of the local blocks",
                               "MatZsparseSetFormat", z->format, buf[0], ZSP_FIELD, &set[0]));
  PetscCall(PetscOptionsString("-mat_zsparse_options", "encoder options key=value,...",
                               "MatZsparseSetFormat", z->options, buf[1], ZSP_FIELD, &set[1]));
  PetscCall(PetscOptionsString("-mat_zsparse_backend", "zsparse backend (cpu, ref, cuda, hip)",
                               "MatZsparseSetBackend", z->backend, buf[2], ZSP_FIELD, &set[2]));
  PetscCall(PetscOptionsString("-mat_zsparse_backend_options", "operator options key=value,...",
                               "MatZsparseSetBackend", z->backend_options, buf[3], ZSP_FIELD,
                               &set[3]));
  PetscCall(PetscOptionsBool("-mat_zsparse_copy_vectors",
                             "copy vectors to the backend even where PETSc's arrays serve in place",
                             "", z->copy_vectors, &copy, &copy_set));
  PetscOptionsHeadEnd();
  PetscBool changed = copy_set && copy != z->copy_vectors;
  if (copy_set) z->copy_vectors = copy;
  char *field[4] = {z->format, z->options, z->backend, z->backend_options};
  for (int i = 0; i < 4; i++)
    if (set[i] && strcmp(field[i], buf[i]) != 0) {
      PetscCall(PetscStrncpy(field[i], buf[i], ZSP_FIELD));
      changed = PETSC_TRUE;
    }
  if (changed) PetscCall(settings_changed(A, z));
  PetscFunctionReturn(0);
}

static PetscErrorCode detach(Mat A, zsp_mat *z);

static PetscErrorCode MatDestroy_AIJZsparse(Mat A) {
  zsp_mat *z;
  PetscErrorCode (*base_destroy)(Mat);

  PetscFunctionBegin;
  PetscCall(ZspGet(A, &z));
  base_destroy = z->base_destroy;
  PetscCall(detach(A, z));
  PetscCall(base_destroy(A));
  PetscFunctionReturn(0);
}

static PetscErrorCode attach(Mat A, PetscBool mpi, const zsp_mat *settings);

/* AIJ's duplicate makes the new matrix through MatSetType with this type's name, so it arrives
 * as an aijzsparse matrix with default settings: give it A's and encode it. */
static PetscErrorCode MatDuplicate_AIJZsparse(Mat A, MatDuplicateOption op, Mat *B) {
  zsp_mat *z, *zb;
  PetscBool assembled;

  PetscFunctionBegin;
  PetscCall(ZspGet(A, &z));
  PetscCall(z->base_duplicate(A, op, B));
  PetscCall(ZspGet(*B, &zb));
  PetscCall(PetscStrncpy(zb->format, z->format, ZSP_FIELD));
  PetscCall(PetscStrncpy(zb->options, z->options, ZSP_FIELD));
  PetscCall(PetscStrncpy(zb->backend, z->backend, ZSP_FIELD));
  PetscCall(PetscStrncpy(zb->backend_options, z->backend_options, ZSP_FIELD));
  zb->fmt = z->fmt;
  PetscCall(MatAssembled(*B, &assembled));
  if (assembled) PetscCall(setup(*B, zb));
  PetscFunctionReturn(0);
}

typedef void (*op_fn)(void);

/* Record AIJ's current operation `op` as the base unless it is already ours, then put ours. */
static PetscErrorCode wrap(Mat A, MatOperation op, op_fn ours, op_fn *base) {
  op_fn cur;

  PetscFunctionBegin;
  PetscCall(MatGetOperation(A, op, &cur));
  if (cur != ours) *base = cur;
  PetscCall(MatSetOperation(A, op, ours));
  PetscFunctionReturn(0);
}

static PetscErrorCode install_ops(Mat A, zsp_mat *z) {
  PetscFunctionBegin;
  PetscCall(wrap(A, MATOP_MULT, (op_fn)MatMult_AIJZsparse, (op_fn *)&z->base_mult));
  PetscCall(wrap(A, MATOP_MULT_ADD, (op_fn)MatMultAdd_AIJZsparse, (op_fn *)&z->base_multadd));
  PetscCall(wrap(A, MATOP_MULT_TRANSPOSE, (op_fn)MatMultTranspose_AIJZsparse,
                 (op_fn *)&z->base_multtranspose));
  PetscCall(wrap(A, MATOP_MULT_TRANSPOSE_ADD, (op_fn)MatMultTransposeAdd_AIJZsparse,
                 (op_fn *)&z->base_multtransposeadd));
  PetscCall(
      wrap(A, MATOP_ASSEMBLY_END, (op_fn)MatAssemblyEnd_AIJZsparse, (op_fn *)&z->base_assemblyend));
  PetscCall(wrap(A, MATOP_DESTROY, (op_fn)MatDestroy_AIJZsparse, (op_fn *)&z->base_destroy));
  PetscCall(wrap(A, MATOP_DUPLICATE, (op_fn)MatDuplicate_AIJZsparse, (op_fn *)&z->base_duplicate));
  PetscCall(wrap(A, MATOP_SET_FROM_OPTIONS, (op_fn)MatSetFromOptions_AIJZsparse,
                 (op_fn *)&z->base_setfromoptions));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatConvert_AIJZsparse_AIJ(Mat A, MatType type, MatReuse reuse, Mat *M);
static PetscErrorCode MatConvert_AIJ_AIJZsparse(Mat A, MatType type, MatReuse reuse, Mat *M);

static const char conv_seq_to[] = "MatConvert_seqaij_seqaijzsparse_C";
static const char conv_seq_from[] = "MatConvert_seqaijzsparse_seqaij_C";
static const char conv_mpi_to[] = "MatConvert_mpiaij_mpiaijzsparse_C";
static const char conv_mpi_from[] = "MatConvert_mpiaijzsparse_mpiaij_C";

static PetscErrorCode compose_converters(Mat A, PetscBool mpi, PetscBool on) {
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, mpi ? conv_mpi_to : conv_seq_to,
                                       on ? MatConvert_AIJ_AIJZsparse : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, mpi ? conv_mpi_from : conv_seq_from,
                                       on ? MatConvert_AIJZsparse_AIJ : NULL));
  PetscFunctionReturn(0);
}

/* Turn the AIJ matrix A into an aijzsparse one in place; encode it when it is assembled. */
static PetscErrorCode attach(Mat A, PetscBool mpi, const zsp_mat *settings) {
  zsp_mat *z;
  PetscContainer c;
  PetscBool assembled;

  PetscFunctionBegin;
  PetscCall(PetscNew(&z));
  z->mpi = mpi;
  if (settings) {
    PetscCall(PetscMemcpy(z->format, settings->format, sizeof z->format));
    PetscCall(PetscMemcpy(z->options, settings->options, sizeof z->options));
    PetscCall(PetscMemcpy(z->backend, settings->backend, sizeof z->backend));
    PetscCall(
        PetscMemcpy(z->backend_options, settings->backend_options, sizeof z->backend_options));
    z->copy_vectors = settings->copy_vectors;
  } else {
    PetscCall(PetscStrncpy(z->format, "csr", ZSP_FIELD));
    PetscCall(read_options(A, z));
  }
  PetscCall(parse_format(PetscObjectComm((PetscObject)A), z));
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
  PetscCall(PetscContainerSetPointer(c, z));
  PetscCall(PetscContainerSetUserDestroy(c, destroy_state));
  PetscCall(PetscObjectCompose((PetscObject)A, state_key, (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));
  PetscCall(install_ops(A, z));
  PetscCall(compose_converters(A, mpi, PETSC_TRUE));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, mpi ? MATMPIAIJZSPARSE : MATSEQAIJZSPARSE));
  PetscCall(MatAssembled(A, &assembled));
  if (assembled) PetscCall(setup(A, z));
  PetscFunctionReturn(0);
}

/* Back to plain AIJ in place: AIJ's operations, its type name, no zsparse state. */
static PetscErrorCode detach(Mat A, zsp_mat *z) {
  PetscBool mpi = z->mpi;

  PetscFunctionBegin;
  PetscCall(MatSetOperation(A, MATOP_MULT, (op_fn)z->base_mult));
  PetscCall(MatSetOperation(A, MATOP_MULT_ADD, (op_fn)z->base_multadd));
  PetscCall(MatSetOperation(A, MATOP_MULT_TRANSPOSE, (op_fn)z->base_multtranspose));
  PetscCall(MatSetOperation(A, MATOP_MULT_TRANSPOSE_ADD, (op_fn)z->base_multtransposeadd));
  PetscCall(MatSetOperation(A, MATOP_ASSEMBLY_END, (op_fn)z->base_assemblyend));
  PetscCall(MatSetOperation(A, MATOP_DESTROY, (op_fn)z->base_destroy));
  PetscCall(MatSetOperation(A, MATOP_DUPLICATE, (op_fn)z->base_duplicate));
  PetscCall(MatSetOperation(A, MATOP_SET_FROM_OPTIONS, (op_fn)z->base_setfromoptions));
  PetscCall(compose_converters(A, mpi, PETSC_FALSE));
  /* Dropping the container frees z (destroy_state). */
  PetscCall(PetscObjectCompose((PetscObject)A, state_key, NULL));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, mpi ? MATMPIAIJ : MATSEQAIJ));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatConvert_AIJ_AIJZsparse(Mat A, MatType type, MatReuse reuse, Mat *M) {
  PetscBool mpi;

  PetscFunctionBegin;
  (void)type;
  if (reuse == MAT_REUSE_MATRIX) { /* *M is already of this type: copy the values over */
    PetscCall(MatCopy(A, *M, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(0);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, M));
  PetscCall(PetscObjectTypeCompare((PetscObject)*M, MATMPIAIJ, &mpi));
  PetscCall(attach(*M, mpi, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatConvert_AIJZsparse_AIJ(Mat A, MatType type, MatReuse reuse, Mat *M) {
  zsp_mat *z;

  PetscFunctionBegin;
  (void)type;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, *M, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(0);
  }
  PetscCall(ZspGet(A, &z));
  /* AIJ's own duplicate: the copy arrives unencoded, so nothing is encoded only to be dropped. */
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(z->base_duplicate(A, MAT_COPY_VALUES, M));
  PetscCall(ZspGet(*M, &z));
  PetscCall(detach(*M, z));
  PetscFunctionReturn(0);
}

PetscErrorCode MatCreate_SeqAIJZsparse(Mat A) {
  PetscFunctionBegin;
  PetscCall(MatSetType(A, MATSEQAIJ));
  PetscCall(attach(A, PETSC_FALSE, NULL));
  PetscFunctionReturn(0);
}

PetscErrorCode MatCreate_MPIAIJZsparse(Mat A) {
  PetscFunctionBegin;
  PetscCall(MatSetType(A, MATMPIAIJ));
  PetscCall(attach(A, PETSC_TRUE, NULL));
  PetscFunctionReturn(0);
}

/* Store a setting and its options (NULL: none), then take them on. Collective. */
static PetscErrorCode set_pair(Mat A, zsp_mat *z, char *field, const char *value, char *opts_field,
                               const char *opts) {
  PetscFunctionBegin;
  PetscCall(PetscStrncpy(field, value ? value : "", ZSP_FIELD));
  PetscCall(PetscStrncpy(opts_field, opts ? opts : "", ZSP_FIELD));
  PetscCall(settings_changed(A, z));
  PetscFunctionReturn(0);
}

PetscErrorCode MatZsparseSetFormat(Mat A, const char format[], const char options[]) {
  zsp_mat *z;
  zs_format fmt;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(ZspGet(A, &z));
  PetscCheck(format, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_NULL,
             "MatZsparseSetFormat: format is NULL");
  /* Checked before anything changes, so a refused name leaves the matrix as it was. */
  PetscCheck(zs_format_from_name(format, &fmt) == ZS_OK, PetscObjectComm((PetscObject)A),
             PETSC_ERR_ARG_UNKNOWN_TYPE, "MatZsparseSetFormat: %s", zs_last_error());
  PetscCall(set_pair(A, z, z->format, format, z->options, options));
  PetscFunctionReturn(0);
}

PetscErrorCode MatZsparseSetBackend(Mat A, const char backend[], const char options[]) {
  zsp_mat *z;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(ZspGet(A, &z));
  PetscCall(set_pair(A, z, z->backend, backend, z->backend_options, options));
  PetscFunctionReturn(0);
}

PetscErrorCode MatZsparseGetInfo(Mat A, MatZsparseInfo *info) {
  zsp_mat *z;
  zs_context *ctx;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidPointer(info, 2);
  PetscCall(ZspGet(A, &z));
  PetscCall(PetscMemzero(info, sizeof *info));
  info->format = zs_format_name(z->fmt);
  if (z->blk[0].op)
    info->backend = zs_operator_backend(z->blk[0].op);
  else if (z->blk[1].op)
    info->backend = zs_operator_backend(z->blk[1].op);
  else if (z->backend[0])
    info->backend = z->backend;
  else {
    PetscCall(ZspContext(&ctx));
    info->backend = zs_context_default_backend(ctx);
  }
  info->encodes = z->encodes;
  info->encode_seconds = z->encode_seconds;
  for (int b = 0; b < 2; b++) info->nnz[b] = z->blk[b].nnz, info->bytes[b] = z->blk[b].bytes;
  if (z->lvec) PetscCall(VecGetSize(z->lvec, &info->ghosts));
  info->products = z->products;
  info->in_place = z->in_place;
  info->copy_seconds = z->copy_seconds;
  PetscFunctionReturn(0);
}
