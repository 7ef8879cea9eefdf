/* cpu_csb.c — the cpu backend's CSB-baseline and GCSB operators: a block row (SpMV) or block
 * column (SpMVT) per task, summed in small per-thread buffers, so both ops are deterministic;
 * the SpMVT of small blocks by block rows into fixed per-range buffers (T_CHUNKS), and BiCG's
 * pair in one sweep by block rows the same way (pair_setup). */
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cpu_kernels.h"
#include "formats/csb/csb.h"

/* Tasks per thread (contiguous ranges of block rows or columns with equal work), static
 * schedule; below PARALLEL_MIN_WORK a product runs on the calling thread (as in cpu_spmv.c). */
#define CHUNKS_PER_THREAD 4
#define PARALLEL_MIN_WORK 32768

/* Sum buffers per output block: an element adds into copy (other coordinate & (NACC - 1)).
 * Morton neighbours of one row (SpMV) differ in the lowest column bits, so with one buffer each
 * add waited for the previous one's store (store forwarding + add: ~10 cycles a link, 9 cycles
 * per nonzero on a banded matrix); with 4 copies, adds to one slot are >= 16 Morton keys apart.
 * The copies are summed in a fixed order, so the result still does not depend on threads.
 * (8 copies measured slower: their zeroing and summing per output row cost more than the rarer
 * chains saved.) */
#define NACC 4

/* SpMVT walks the blocks of a block column: runs of a few hundred bytes, block rows apart in
 * memory, which the hardware prefetcher does not follow; so it prefetches the block
 * PREFETCH_AHEAD tasks ahead: of 2, 8, 16 and 32, 16 was the best over the stencil and banded
 * matrices in both types (one thread; 32 helps f64 stencils a little and costs f32 more). */
#define PREFETCH_AHEAD 16

/* SpMVT of matrices whose blocks are small (under SMALL_BLOCK elements on average: pruned
 * layers) walks the blocks in their memory order (by block row) instead of by block column,
 * where each block is a jump of its own to a few hundred bytes: T_CHUNKS fixed ranges of block
 * rows each add into a y buffer of their own (cols values), and the buffers are summed in chunk
 * order, so every thread count gives the same bits. Taken while the buffers stay under a quarter
 * of the value array. */
#define SMALL_BLOCK 16
#define T_CHUNKS 16

#if defined(__GNUC__)
#define CSB_INLINE static inline __attribute__((always_inline))
#define CSB_PREFETCH(p) __builtin_prefetch(p)
#else
#define CSB_INLINE static inline
#define CSB_PREFETCH(p) ((void)(p))
#endif

/* SpMV's sum buffer holds copy k of local row r at r * row_stride + k. For beta 4 .. 32 the
 * stride is beta, so the slot is the element's local index with the column bits above the
 * lowest two masked off (one AND per nonzero); the buffer then needs beta^2 values. */
static inline int64_t row_stride(int lb) { return lb >= 2 && lb <= 5 ? INT64_C(1) << lb : NACC; }

/* Values in one thread's sum buffers: SpMVT's NACC * beta, SpMV's beta * row_stride. */
static int64_t acc_size(int lb) {
  const int64_t b = INT64_C(1) << lb, n = b * row_stride(lb);
  return n > NACC * b ? n : NACC * b;
}

/* Every cache line of bytes [p, p + n). */
static inline void prefetch_run(const void *p, int64_t n) {
  for (int64_t b = 0; b < n; b += 64) CSB_PREFETCH((const char *)p + b);
}

/* One block as the kernels walk it: elements first .. first + count - 1 of the operator's
 * arrays, and the block column (SpMV) or block row (SpMVT) that places it in x. 16 bytes, so
 * the per-block read is one quarter of a cache line. */
typedef struct csb_task {
  int64_t first;
  int32_t count;
  int32_t other;
} csb_task;

typedef struct csb_op {
  zs_type type;
  int64_t rows, cols;
  int lb, idx16, threads, parallel;
  int64_t beta, nbr, nbc, nb;
  /* The operator's copy of the elements, each block contiguous (Morton order inside), blocks in
   * block-row order: CSB's own layout; GCSB's is rearranged at create (see gcsb_contiguous). */
  void *values, *local;
  /* Only while creating: GCSB slots of a block sit `stride` apart, the group's block count (the
   * last group may be smaller). CSB: group 0, stride 1. */
  int64_t group, last_group_first, last_group_stride;
  /* SpMV: blocks by block row (n_ptr, nbr + 1), ascending column inside; SpMVT: by block column
   * (t_ptr, nbc + 1), ascending row inside. */
  int64_t *n_ptr, *t_ptr;
  csb_task *n_task, *t_task;
  int n_chunks, t_chunks;
  int64_t *n_chunk, *t_chunk; /* chunk c covers block rows/cols [chunk[c], chunk[c + 1]) */
  void *acc;                  /* threads * acc_size(lb) values: sum buffers per thread */
  int64_t *t_rows;            /* SpMVT by block rows: chunk c covers [t_rows[c], t_rows[c + 1]) */
  void *t_buf;                /* their y buffers, T_CHUNKS * cols values; NULL: by columns */
  /* BiCG's pair by the same chunks of block rows (pair_setup): chunk c adds into z's columns
   * [p_lo[c], p_lo[c] + p_span[c]), buffered at p_buf + p_off[c] (p_buf inside t_buf, or its
   * own); between the boundaries seg_lo[k] .. seg_lo[k + 1] the chunks seg_mask[k] hold z's
   * terms. p_off NULL: no fused pair for this operator. */
  int64_t *p_lo, *p_span, *p_off;
  void *p_buf;
  int own_p_buf, n_seg;
  int64_t seg_lo[2 * T_CHUNKS + 3];
  uint32_t seg_mask[2 * T_CHUNKS + 2];
} csb_op;

static zs_status no_memory(const char *what) {
  return zsi_error(ZS_ERR_OUT_OF_MEMORY, "backend 'cpu': cannot allocate %s", what);
}

static void csb_destroy(void *state) {
  csb_op *A = state;
  if (!A) return;
  void *arrays[] = {A->values, A->local,   A->n_ptr,   A->t_ptr, A->n_task,
                    A->t_task, A->n_chunk, A->t_chunk, A->acc,   A->t_rows,
                    A->t_buf,  A->p_lo,    A->p_span,  A->p_off, A->own_p_buf ? A->p_buf : NULL};
  for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) zsi_free(arrays[i]);
  zsi_free(A);
}

static int64_t stride_of(const csb_op *A, int64_t first) {
  if (A->group == 0) return 1;
  return first >= A->last_group_first ? A->last_group_stride : A->group;
}

/* Block rows and columns of every block, and where its slots are, from either format. */
static zs_status read_blocks(csb_op *A, const csb_layout *L, int64_t **brow_out, int64_t **bcol_out,
                             int64_t **first_out, int32_t **count_out) {
  const int64_t nb = A->nb;
  int64_t *brow = zsi_alloc_array((uint64_t)(nb ? nb : 1), 8);
  int64_t *bcol = zsi_alloc_array((uint64_t)(nb ? nb : 1), 8);
  int64_t *first = zsi_alloc_array((uint64_t)(nb ? nb : 1), 8);
  int32_t *count = zsi_alloc_array((uint64_t)(nb ? nb : 1), 4);
  *brow_out = brow, *bcol_out = bcol, *first_out = first, *count_out = count;
  if (!brow || !bcol || !first || !count) return no_memory("block tables");
  if (L->format == ZS_FORMAT_CSB) {
    const int64_t *bp = L->block_ptr, *bo = L->block_offset;
    const int32_t *bc = L->block_col;
    for (int64_t r = 0; r < A->nbr; r++)
      for (int64_t b = bp[r]; b < bp[r + 1]; b++)
        brow[b] = r, bcol[b] = bc[b], first[b] = bo[b], count[b] = (int32_t)(bo[b + 1] - bo[b]);
    return ZS_OK;
  }
  const int64_t *go = L->group_offset;
  const int64_t G = A->group;
  for (int64_t p = 0; p < nb; p++) {
    const uint64_t lin = csb_bidx_get(L->block_index, L->geom.bidx_size, p);
    const int64_t q = p / G, t = p % G, nbg = nb - q * G < G ? nb - q * G : G;
    const int64_t depth = (go[q + 1] - go[q]) / nbg;
    brow[p] = (int64_t)(lin / (uint64_t)A->nbc), bcol[p] = (int64_t)(lin % (uint64_t)A->nbc);
    first[p] = go[q] + t;
    /* Real elements: the prefix whose Morton keys ascend (padding repeats the last index). */
    int64_t j = 1;
    uint32_t prev = 0;
    for (int64_t k = 0; k < depth; k++) {
      const uint32_t m =
          csb_morton(csb_idx_get(A->local, A->idx16 ? 2 : 4, go[q] + k * nbg + t), A->lb);
      if (k > 0 && m <= prev) break;
      prev = m, j = k + 1;
    }
    count[p] = (int32_t)j;
  }
  if (nb > 0) {
    const int64_t lq = (nb - 1) / G;
    A->last_group_first = go[lq], A->last_group_stride = nb - lq * G;
  }
  return ZS_OK;
}

/* Counting sort of the blocks by `key` (stable), filling ptr (nkeys + 1) and tasks. */
static zs_status order_tasks(int64_t nb, int64_t nkeys, const int64_t *key, const int64_t *other,
                             const int64_t *first, const int32_t *count, const int64_t *order_in,
                             int64_t **ptr_out, csb_task **task_out, int64_t *order_out) {
  int64_t *ptr = zsi_alloc_array((uint64_t)nkeys + 1, 8);
  csb_task *task = zsi_alloc_array((uint64_t)(nb ? nb : 1), sizeof(csb_task));
  int64_t *next = zsi_alloc_array((uint64_t)nkeys + 1, 8);
  *ptr_out = ptr, *task_out = task;
  if (!ptr || !task || !next) {
    zsi_free(next);
    return no_memory("block order");
  }
  for (int64_t b = 0; b < nb; b++) ptr[key[b] + 1]++;
  for (int64_t k = 0; k < nkeys; k++) ptr[k + 1] += ptr[k];
  memcpy(next, ptr, (size_t)nkeys * 8);
  for (int64_t i = 0; i < nb; i++) {
    const int64_t b = order_in ? order_in[i] : i, p = next[key[b]]++;
    task[p] = (csb_task){first[b], count[b], (int32_t)other[b]};
    if (order_out) order_out[p] = b;
  }
  zsi_free(next);
  return ZS_OK;
}

/* Copy n elements of es bytes, src[first + j * stride] for j < n, to dst. */
static void gather(void *dst, const void *src, size_t es, int64_t first, int64_t stride,
                   int64_t n) {
  for (int64_t j = 0; j < n; j++)
    memcpy((char *)dst + j * (int64_t)es, (const char *)src + (first + j * stride) * (int64_t)es,
           es);
}

/* GCSB's slot order is a GPU layout: element j of a group's blocks sits `group` slots apart, so
 * a cpu kernel walking a block reads a cache line per element, and the group's other blocks
 * (sorted by count, scattered over the matrix) come much later, long after the line is gone.
 * The operator holds its own copy of the arrays anyway, so it lays them out as CSB does: blocks
 * in block-row order (the SpMV tasks' order), each contiguous, padding dropped. Both ops then
 * read a block as one run; the copy is nnz instead of S elements. Updates the tasks' and
 * first[b]'s slots (rm: SpMV task p is block rm[p]). */
static zs_status gcsb_contiguous(csb_op *A, int64_t nnz, int64_t *first, const int64_t *rm) {
  const size_t vs = zs_type_size(A->type), is = A->idx16 ? 2 : 4;
  void *values = zsi_alloc_array((uint64_t)(nnz ? nnz : 1), (uint32_t)vs);
  void *local = zsi_alloc_array((uint64_t)(nnz ? nnz : 1), (uint32_t)is);
  if (!values || !local) {
    zsi_free(values), zsi_free(local);
    return no_memory("block-contiguous copy");
  }
  int64_t pos = 0;
  for (int64_t p = 0; p < A->nb; p++) {
    csb_task *T = &A->n_task[p];
    const int64_t st = stride_of(A, T->first);
    gather((char *)values + pos * (int64_t)vs, A->values, vs, T->first, st, T->count);
    gather((char *)local + pos * (int64_t)is, A->local, is, T->first, st, T->count);
    first[rm[p]] = T->first = pos;
    pos += T->count;
  }
  zsi_free(A->values), zsi_free(A->local);
  A->values = values, A->local = local;
  return ZS_OK;
}

static int cmp_i64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* BiCG's pair in one sweep (csb_pair): the T_CHUNKS chunks of block rows give their y as the
 * SpMV does and add their z terms into a buffer of their own, which spans the block columns the
 * chunk's blocks touch; the buffers are summed in chunk order. Where the SpMVT runs by block rows
 * (t_buf) that is its order, and the buffers fit in its t_buf. Otherwise the sweep is taken only
 * with transpose=atomic (the user gave up SpMVT's bits; z is still the same for any thread
 * count) and while the buffers stay under half the nonzeros: banded and stencil matrices, whose
 * chunks span their rows and a margin, not scattered ones. */
static zs_status pair_setup(csb_op *A, int64_t nnz) {
  int64_t lo[T_CHUNKS], span[T_CHUNKS], total = 0;
  for (int c = 0; c < T_CHUNKS; c++) {
    int64_t bmin = A->nbc, bmax = -1;
    for (int64_t p = A->n_ptr[A->t_rows[c]]; p < A->n_ptr[A->t_rows[c + 1]]; p++) {
      const int64_t b = A->n_task[p].other;
      bmin = b < bmin ? b : bmin, bmax = b > bmax ? b : bmax;
    }
    lo[c] = bmax < 0 ? 0 : bmin << A->lb;
    const int64_t hi = bmax < 0 ? 0 : (bmax + 1) << A->lb;
    span[c] = (hi < A->cols ? hi : A->cols) - lo[c];
    total += span[c];
  }
  if (!A->t_buf && 2 * total > nnz) return ZS_OK; /* no fused pair: two products */
  if (!(A->p_lo = zsi_alloc_array(T_CHUNKS, 8)) || !(A->p_span = zsi_alloc_array(T_CHUNKS, 8)) ||
      !(A->p_off = zsi_alloc_array(T_CHUNKS, 8)))
    return no_memory("pair chunks");
  A->p_buf = A->t_buf; /* T_CHUNKS * cols values: the spans fit */
  if (!A->p_buf) {
    if (!(A->p_buf =
              zsi_alloc_array((uint64_t)(total ? total : 1), (uint32_t)zs_type_size(A->type))))
      return no_memory("pair buffers");
    A->own_p_buf = 1;
  }
  int64_t bounds[2 * T_CHUNKS + 2], nbounds = 0, off = 0;
  bounds[nbounds++] = 0, bounds[nbounds++] = A->cols;
  for (int c = 0; c < T_CHUNKS; c++) {
    A->p_lo[c] = lo[c], A->p_span[c] = span[c], A->p_off[c] = off;
    off += span[c];
    if (span[c] > 0) bounds[nbounds++] = lo[c], bounds[nbounds++] = lo[c] + span[c];
  }
  qsort(bounds, (size_t)nbounds, sizeof *bounds, cmp_i64);
  A->n_seg = 0;
  for (int64_t k = 0; k + 1 < nbounds; k++) {
    if (bounds[k] == bounds[k + 1]) continue;
    uint32_t mask = 0; /* the boundaries include every chunk's: a chunk covers all or nothing */
    for (int c = 0; c < T_CHUNKS; c++)
      if (span[c] > 0 && lo[c] <= bounds[k] && bounds[k] < lo[c] + span[c])
        mask |= UINT32_C(1) << c;
    A->seg_lo[A->n_seg] = bounds[k], A->seg_mask[A->n_seg++] = mask;
  }
  A->seg_lo[A->n_seg] = A->cols;
  return ZS_OK;
}

static zs_status csb_create(void **state, const zsb_encoded_view *enc, const zsi_cpu_opts *o) {
  csb_layout L;
  char why[ZSI_LAYOUT_WHY];
  zs_status s = csb_layout_parse(enc, &L, why, sizeof why);
  if (s != ZS_OK) return zsi_error(s, "backend 'cpu': %s", why);
  csb_op *A = zsi_alloc(sizeof *A);
  if (!A) return no_memory("operator header");
  A->type = L.type, A->rows = L.rows, A->cols = L.cols;
  A->threads = o->threads < 1 ? 1 : o->threads;
  A->parallel = L.nnz + L.rows + L.cols >= PARALLEL_MIN_WORK;
  /* o->transpose_atomic is moot: the block-column SpMVT is deterministic and needs no
   * buffers, so it serves both settings. */
  A->beta = L.geom.beta, A->lb = L.geom.lb, A->group = L.group_size;
  A->nbr = L.geom.nbr, A->nbc = L.geom.nbc;
  A->idx16 = L.geom.idx_size == 2;
  A->nb = L.n_blocks;
  if (!(A->values = zsi_alloc_array(L.slots ? L.slots : 1, L.value_bytes)) ||
      !(A->local = zsi_alloc_array(L.slots ? L.slots : 1, L.geom.idx_size)))
    s = no_memory("values and indices");
  if (s == ZS_OK && L.slots) {
    memcpy(A->values, L.values, (size_t)L.slots * L.value_bytes);
    memcpy(A->local, L.local_idx, (size_t)L.slots * L.geom.idx_size);
  }
  int64_t *brow = NULL, *bcol = NULL, *first = NULL, *rm = NULL;
  int32_t *count = NULL;
  if (s == ZS_OK) s = read_blocks(A, &L, &brow, &bcol, &first, &count);
  /* Row-major order (sort by column, then stably by row), then column-major from it. */
  int64_t *by_col = NULL;
  csb_task *scratch = NULL;
  int64_t *scratch_ptr = NULL;
  if (s == ZS_OK && !((rm = zsi_alloc_array((uint64_t)(A->nb ? A->nb : 1), 8)) &&
                      (by_col = zsi_alloc_array((uint64_t)(A->nb ? A->nb : 1), 8))))
    s = no_memory("block order");
  if (s == ZS_OK)
    s = order_tasks(A->nb, A->nbc, bcol, brow, first, count, NULL, &scratch_ptr, &scratch, by_col);
  if (s == ZS_OK)
    s = order_tasks(A->nb, A->nbr, brow, bcol, first, count, by_col, &A->n_ptr, &A->n_task, rm);
  if (s == ZS_OK && A->group) s = gcsb_contiguous(A, L.nnz, first, rm);
  if (s == ZS_OK)
    s = order_tasks(A->nb, A->nbc, bcol, brow, first, count, rm, &A->t_ptr, &A->t_task, NULL);
  zsi_free(brow), zsi_free(bcol), zsi_free(first), zsi_free(count), zsi_free(rm);
  zsi_free(by_col), zsi_free(scratch), zsi_free(scratch_ptr);
  if (s == ZS_OK) {
    A->n_chunks = A->t_chunks = A->threads * CHUNKS_PER_THREAD;
    if (!(A->n_chunk = zsi_alloc_array((uint64_t)A->n_chunks + 1, 8)) ||
        !(A->t_chunk = zsi_alloc_array((uint64_t)A->t_chunks + 1, 8)) ||
        !(A->acc = zsi_alloc_array((uint64_t)A->threads * (uint64_t)acc_size(A->lb), 8)))
      s = no_memory("partition tables");
  }
  if (s == ZS_OK) {
    zsi_cpu_split_rows(A->n_ptr, A->nbr, A->n_chunks, A->n_chunk);
    zsi_cpu_split_rows(A->t_ptr, A->nbc, A->t_chunks, A->t_chunk);
  }
  /* The T_CHUNKS chunks of block rows: for the SpMVT by block rows and for the pair. */
  const uint64_t t_buf_values = (uint64_t)T_CHUNKS * (uint64_t)A->cols;
  const int by_rows = L.nnz < SMALL_BLOCK * A->nb && 4 * t_buf_values <= (uint64_t)L.nnz;
  if (s == ZS_OK && (by_rows || o->transpose_atomic)) {
    if (!(A->t_rows = zsi_alloc_array(T_CHUNKS + 1, 8)))
      s = no_memory("chunks of block rows");
    else
      zsi_cpu_split_rows(A->n_ptr, A->nbr, T_CHUNKS, A->t_rows);
  }
  if (s == ZS_OK && by_rows &&
      !(A->t_buf = zsi_alloc_array(t_buf_values, (uint32_t)zs_type_size(A->type))))
    s = no_memory("SpMVT row buffers");
  if (s == ZS_OK && A->t_rows) s = pair_setup(A, L.nnz);
  if (s != ZS_OK) {
    csb_destroy(A);
    return s;
  }
  *state = A;
  return ZS_OK;
}

/* The typed kernels, once per value type. */
#define ZSI_TEMPLATE "backends/cpu/cpu_csb_tmpl.inc"
#include "backends/each_value_type.h"

static zs_status csb_apply(void *state, zs_op which, double alpha, const void *x, double beta,
                           void *y) {
  const csb_op *A = state;
  if (A->type == ZS_F32)
    apply_f32(A, which, alpha, x, beta, y);
  else
    apply_f64(A, which, alpha, x, beta, y);
  return ZS_OK;
}

/* zs_spmv_pair in one sweep where pair_setup made its buffers; two products otherwise. */
static zs_status csb_pair(void *state, double alpha, const void *x, double beta, void *y,
                          double alpha_t, const void *w, double beta_t, void *z) {
  const csb_op *A = state;
  if (!A->p_off) return ZS_ERR_UNSUPPORTED;
  if (A->type == ZS_F32)
    pair_f32(A, alpha, x, beta, y, alpha_t, w, beta_t, z);
  else
    pair_f64(A, alpha, x, beta, y, alpha_t, w, beta_t, z);
  return ZS_OK;
}

const zsi_format_kernels zsi_cpu_csb = {csb_create, csb_destroy, csb_apply, csb_pair};
const zsi_format_kernels zsi_cpu_gcsb = {csb_create, csb_destroy, csb_apply, csb_pair};
