/* aijzsparse_mult.c — MatMult(Add) and MatMultTranspose(Add) of aijzsparse through zsparse.
 *
 * PETSc's vectors live in host memory (Debian's PETSc has no CUDA vectors), zsparse's on the
 * operator's backend: every product uploads its inputs and downloads its output (a copy on the
 * cpu backend, a host-device transfer on a GPU). The MPI products follow MPIAIJ's order:
 *   y = A x:    start the ghost scatter, diagonal block product, end the scatter, off-diagonal
 *               block product over the ghosts added (one device vector holds y throughout);
 *   y = Aᵀ x:   diagonal block SpMVT, off-diagonal block SpMVT into the ghost buffer, reverse
 *               scatter adding the ghosts' contributions into their owners' y. */
#include "petsc/aijzsparse_impl.h"

/* The copies are timed apart (MatZsparseGetInfo's copy_seconds): they are the price of host
 * vectors, and what a zs_vector over PETSc's own array would save. */
static PetscErrorCode upload(zsp_mat *z, MPI_Comm comm, zs_vector *v, Vec x) {
  const PetscScalar *a;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  if (!v) PetscFunctionReturn(0);
  PetscCall(VecGetArrayRead(x, &a));
  PetscCall(PetscTime(&t0));
  zs_status s = zs_vector_upload(v, a);
  PetscCall(PetscTime(&t1));
  PetscCall(VecRestoreArrayRead(x, &a));
  ZspCall(comm, s, "copying a vector to the backend");
  z->copy_seconds += t1 - t0;
  PetscFunctionReturn(0);
}

static PetscErrorCode download(zsp_mat *z, MPI_Comm comm, const zs_vector *v, Vec y) {
  PetscScalar *a;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  if (!v) PetscFunctionReturn(0);
  /* A GPU product may still be running: wait for it outside the copy's time. */
  for (int b = 0; b < 2; b++)
    if (z->blk[b].op) ZspCall(comm, zs_operator_sync(z->blk[b].op), "waiting for a product");
  PetscCall(VecGetArrayWrite(y, &a));
  PetscCall(PetscTime(&t0));
  zs_status s = zs_vector_download(v, a);
  PetscCall(PetscTime(&t1));
  PetscCall(VecRestoreArrayWrite(y, &a));
  ZspCall(comm, s, "copying a vector from the backend");
  z->copy_seconds += t1 - t0;
  PetscFunctionReturn(0);
}

/* out = op(block) in + beta out (beta 0 or 1); a block without nonzeros adds nothing. */
static PetscErrorCode block_product(MPI_Comm comm, const zsp_block *b, zs_op op,
                                    const zs_vector *in, double beta, zs_vector *out) {
  PetscFunctionBegin;
  if (!out) PetscFunctionReturn(0);
  if (b->op)
    ZspCall(comm, zs_spmv(b->op, op, 1.0, in, beta, out), "a block product");
  else if (beta == 0.0)
    ZspCall(comm, zs_vector_fill(out, 0.0), "zeroing a product");
  PetscFunctionReturn(0);
}

/* Count the product and log its flops. */
static PetscErrorCode finish(zsp_mat *z) {
  PetscFunctionBegin;
  z->products++;
  PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)(z->blk[0].nnz + z->blk[1].nnz)));
  PetscFunctionReturn(0);
}

/* A's state with operators that match its values. */
static PetscErrorCode current(Mat A, zsp_mat **z) {
  PetscFunctionBegin;
  PetscCall(ZspGet(A, z));
  PetscCall(ZspEnsureCurrent(A, *z));
  PetscFunctionReturn(0);
}

/* w = A x (+ y when y is not NULL; y may be w). */
static PetscErrorCode mult(Mat A, Vec x, Vec y, Vec w) {
  MPI_Comm comm = PetscObjectComm((PetscObject)A);
  zsp_mat *z;

  PetscFunctionBegin;
  PetscCall(current(A, &z));
  const double beta = y ? 1.0 : 0.0;
  if (z->scatter)
    PetscCall(VecScatterBegin(z->scatter, x, z->lvec, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(upload(z, comm, z->vcol, x));
  if (y) PetscCall(upload(z, comm, z->vrow, y));
  PetscCall(block_product(comm, &z->blk[0], ZS_OP_N, z->vcol, beta, z->vrow));
  if (z->scatter) {
    PetscCall(VecScatterEnd(z->scatter, x, z->lvec, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(upload(z, comm, z->vghost, z->lvec));
    PetscCall(block_product(comm, &z->blk[1], ZS_OP_N, z->vghost, 1.0, z->vrow));
  }
  PetscCall(download(z, comm, z->vrow, w));
  PetscCall(finish(z));
  PetscFunctionReturn(0);
}

/* w = Aᵀ x (+ y when y is not NULL; y may be w). */
static PetscErrorCode mult_transpose(Mat A, Vec x, Vec y, Vec w) {
  MPI_Comm comm = PetscObjectComm((PetscObject)A);
  zsp_mat *z;

  PetscFunctionBegin;
  PetscCall(current(A, &z));
  const double beta = y ? 1.0 : 0.0;
  PetscCall(upload(z, comm, z->vrow, x));
  if (y) PetscCall(upload(z, comm, z->vcol, y));
  PetscCall(block_product(comm, &z->blk[0], ZS_OP_T, z->vrow, beta, z->vcol));
  if (z->scatter) {
    PetscCall(block_product(comm, &z->blk[1], ZS_OP_T, z->vrow, 0.0, z->vghost));
    PetscCall(download(z, comm, z->vghost, z->lvec));
  }
  PetscCall(download(z, comm, z->vcol, w));
  if (z->scatter) {
    PetscCall(VecScatterBegin(z->scatter, z->lvec, w, ADD_VALUES, SCATTER_REVERSE));
    PetscCall(VecScatterEnd(z->scatter, z->lvec, w, ADD_VALUES, SCATTER_REVERSE));
  }
  PetscCall(finish(z));
  PetscFunctionReturn(0);
}

PetscErrorCode MatMult_AIJZsparse(Mat A, Vec x, Vec y) { return mult(A, x, NULL, y); }
PetscErrorCode MatMultAdd_AIJZsparse(Mat A, Vec x, Vec y, Vec w) { return mult(A, x, y, w); }
PetscErrorCode MatMultTranspose_AIJZsparse(Mat A, Vec x, Vec y) {
  return mult_transpose(A, x, NULL, y);
}
PetscErrorCode MatMultTransposeAdd_AIJZsparse(Mat A, Vec x, Vec y, Vec w) {
  return mult_transpose(A, x, y, w);
}
