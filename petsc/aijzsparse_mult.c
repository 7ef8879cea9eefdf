/* aijzsparse_mult.c — MatMult(Add) and MatMultTranspose(Add) of aijzsparse through zsparse.
 *
 * PETSc's vectors live in host memory (Debian's PETSc has no CUDA vectors). On a backend whose
 * vectors are host memory too (cpu, ref) the products read and write PETSc's arrays in place,
 * wrapped as zsparse vectors (zs_vector_wrap); elsewhere (cuda, hip), or with
 * -mat_zsparse_copy_vectors, every product uploads its inputs to the matrix's work vectors and
 * downloads its output. The MPI products follow MPIAIJ's order:
 *   y = A x:    start the ghost scatter, diagonal block product, end the scatter, off-diagonal
 *               block product over the ghosts added (one backend vector holds y throughout);
 *   y = Aᵀ x:   diagonal block SpMVT, off-diagonal block SpMVT into the ghost buffer, reverse
 *               scatter adding the ghosts' contributions into their owners' y. */
#include "petsc/aijzsparse_impl.h"

/* How a product sees one PETSc vector: in place (its array, held from view_in or view_out to
 * view_end) or through a work vector (uploaded at the start; downloaded at the end when the
 * product writes it). */
typedef enum { VIEW_READ, VIEW_WRITE, VIEW_UPDATE } view_kind;
typedef struct zsp_view {
  Vec vec;
  view_kind kind;
  PetscScalar *a;
} zsp_view;

/* *v over the array a of vec (in place): wrapped at the first product, rewrapped after. A vector
 * of length 0 gets none (its products are skipped, as for the work vectors). */
static PetscErrorCode wrap(MPI_Comm comm, const zsp_mat *z, zs_vector **v, Vec vec,
                           const PetscScalar *a) {
  zs_context *ctx;
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(vec, &n));
  if (n == 0) PetscFunctionReturn(0);
  /* zsparse only reads a vector it is given as input: a read-only array may stand for it. */
  void *data = (void *)a;
  if (*v) {
    ZspCall(comm, zs_vector_rewrap(*v, data), "wrapping a PETSc vector's array");
  } else {
    PetscCall(ZspContext(&ctx));
    ZspCall(comm,
            zs_vector_wrap(v, ctx, z->backend[0] ? z->backend : NULL, ZSP_TYPE, (int64_t)n, data),
            "wrapping a PETSc vector's array");
  }
  PetscFunctionReturn(0);
}

/* The copies are timed apart (MatZsparseGetInfo's copy_seconds): they are the price of vectors
 * that the backend cannot use in place. */
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

/* Input x of a product as the backend vector *v. */
static PetscErrorCode view_in(zsp_mat *z, MPI_Comm comm, zs_vector **v, Vec x, zsp_view *h) {
  PetscFunctionBegin;
  h->vec = x, h->kind = VIEW_READ, h->a = NULL;
  if (!z->in_place) {
    PetscCall(upload(z, comm, *v, x));
    PetscFunctionReturn(0);
  }
  PetscCall(VecGetArrayRead(x, (const PetscScalar **)&h->a));
  PetscCall(wrap(comm, z, v, x, h->a));
  PetscFunctionReturn(0);
}

/* Output w of a product as the backend vector *v; with y (MatMult...Add), w starts as y. */
static PetscErrorCode view_out(zsp_mat *z, MPI_Comm comm, zs_vector **v, Vec w, Vec y,
                               zsp_view *h) {
  PetscFunctionBegin;
  h->vec = w, h->kind = y ? VIEW_UPDATE : VIEW_WRITE, h->a = NULL;
  if (!z->in_place) {
    if (y) PetscCall(upload(z, comm, *v, y));
    PetscFunctionReturn(0);
  }
  if (y && y != w) PetscCall(VecCopy(y, w));
  if (y)
    PetscCall(VecGetArray(w, &h->a));
  else
    PetscCall(VecGetArrayWrite(w, &h->a));
  PetscCall(wrap(comm, z, v, w, h->a));
  PetscFunctionReturn(0);
}

/* The product is done with the vector: give PETSc its array back, or download an output. */
static PetscErrorCode view_end(zsp_mat *z, MPI_Comm comm, const zs_vector *v, zsp_view *h) {
  PetscFunctionBegin;
  if (!z->in_place) {
    if (h->kind != VIEW_READ) PetscCall(download(z, comm, v, h->vec));
    PetscFunctionReturn(0);
  }
  if (h->kind == VIEW_READ)
    PetscCall(VecRestoreArrayRead(h->vec, (const PetscScalar **)&h->a));
  else if (h->kind == VIEW_UPDATE)
    PetscCall(VecRestoreArray(h->vec, &h->a));
  else
    PetscCall(VecRestoreArrayWrite(h->vec, &h->a));
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
  zsp_view hx, hw, hg;

  PetscFunctionBegin;
  PetscCall(current(A, &z));
  const double beta = y ? 1.0 : 0.0;
  if (z->scatter)
    PetscCall(VecScatterBegin(z->scatter, x, z->lvec, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(view_in(z, comm, &z->vcol, x, &hx));
  PetscCall(view_out(z, comm, &z->vrow, w, y, &hw));
  PetscCall(block_product(comm, &z->blk[0], ZS_OP_N, z->vcol, beta, z->vrow));
  PetscCall(view_end(z, comm, z->vcol, &hx));
  if (z->scatter) {
    PetscCall(VecScatterEnd(z->scatter, x, z->lvec, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(view_in(z, comm, &z->vghost, z->lvec, &hg));
    PetscCall(block_product(comm, &z->blk[1], ZS_OP_N, z->vghost, 1.0, z->vrow));
    PetscCall(view_end(z, comm, z->vghost, &hg));
  }
  PetscCall(view_end(z, comm, z->vrow, &hw));
  PetscCall(finish(z));
  PetscFunctionReturn(0);
}

/* w = Aᵀ x (+ y when y is not NULL; y may be w). */
static PetscErrorCode mult_transpose(Mat A, Vec x, Vec y, Vec w) {
  MPI_Comm comm = PetscObjectComm((PetscObject)A);
  zsp_mat *z;
  zsp_view hx, hw, hg;

  PetscFunctionBegin;
  PetscCall(current(A, &z));
  const double beta = y ? 1.0 : 0.0;
  PetscCall(view_in(z, comm, &z->vrow, x, &hx));
  PetscCall(view_out(z, comm, &z->vcol, w, y, &hw));
  PetscCall(block_product(comm, &z->blk[0], ZS_OP_T, z->vrow, beta, z->vcol));
  if (z->scatter) {
    PetscCall(view_out(z, comm, &z->vghost, z->lvec, NULL, &hg));
    PetscCall(block_product(comm, &z->blk[1], ZS_OP_T, z->vrow, 0.0, z->vghost));
    PetscCall(view_end(z, comm, z->vghost, &hg));
  }
  PetscCall(view_end(z, comm, z->vrow, &hx));
  PetscCall(view_end(z, comm, z->vcol, &hw));
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
