/* gcsb.c — GCSB: CSB blocks sorted by nnz (descending), grouped, the k-th elements of a group's
 * blocks stored together, padded to the group's largest block (docs/formats/csb.md). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/csb/csb.h"

typedef struct ranked {
  int64_t count, id;
} ranked;

/* Most elements first; ties keep row-major block order, so the layout is unique. */
static int ranked_cmp(const void *a, const void *b) {
  const ranked *x = a, *y = b;
  if (x->count != y->count) return x->count > y->count ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

static int u64_cmp(const void *a, const void *b) {
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static zs_status gcsb_encode(const zs_matrix *A, const char *options, zs_encoded **out) {
  int64_t beta, group;
  zs_status s = csb_options(options, "gcsb", A, &beta, &group);
  if (s != ZS_OK) return s;
  csb_geom g;
  csb_geom_init(&g, A->rows, A->cols, beta);
  csb_blocks B;
  if ((s = csb_blocks_build(A, &g, &B)) != ZS_OK) return s;
  const int64_t nb = B.nb, ng = (nb + group - 1) / group;
  ranked *order = zsi_alloc_array((uint64_t)(nb ? nb : 1), sizeof(ranked));
  int64_t *brow = zsi_alloc_array((uint64_t)(nb ? nb : 1), 8);
  int64_t *go = zsi_alloc_array((uint64_t)ng + 1, 8);
  zs_encoded *E = NULL;
  if (!order || !brow || !go) {
    s = zsi_error(ZS_ERR_OUT_OF_MEMORY, "gcsb: block order of %" PRId64 " blocks", nb);
    goto done;
  }
  for (int64_t r = 0; r < g.nbr; r++)
    for (int64_t b = B.block_ptr[r]; b < B.block_ptr[r + 1]; b++) brow[b] = r;
  for (int64_t b = 0; b < nb; b++) order[b] = (ranked){B.block_off[b + 1] - B.block_off[b], b};
  qsort(order, (size_t)nb, sizeof *order, ranked_cmp);
  for (int64_t q = 0; q < ng; q++) {
    const int64_t first = q * group, nbg = nb - first < group ? nb - first : group;
    uint64_t slots;
    if (!zsi_mul_u64((uint64_t)nbg, (uint64_t)order[first].count, &slots) ||
        !zsi_add_u64((uint64_t)go[q], slots, &slots) || slots > (uint64_t)ZS_MAX_NNZ) {
      s = zsi_error(ZS_ERR_OVERFLOW, "gcsb: padded groups exceed %" PRId64 " slots", ZS_MAX_NNZ);
      goto done;
    }
    go[q + 1] = (int64_t)slots;
  }
  const int64_t S = go[ng];
  const size_t es = zs_type_size(A->type);
  void *v, *li, *bi, *gop;
  if ((s = zsi_encoded_new(&E, ZS_FORMAT_GCSB, A->type, A->rows, A->cols, A->nnz)) != ZS_OK ||
      (s = zsi_encoded_add_param(E, "beta", beta)) != ZS_OK ||
      (s = zsi_encoded_add_param(E, "group_size", group)) != ZS_OK ||
      (s = zsi_encoded_add_array(E, "values", (uint32_t)es, (uint64_t)S, &v)) != ZS_OK ||
      (s = zsi_encoded_add_array(E, "local_idx", g.idx_size, (uint64_t)S, &li)) != ZS_OK ||
      (s = zsi_encoded_add_array(E, "block_index", g.bidx_size, (uint64_t)nb, &bi)) != ZS_OK ||
      (s = zsi_encoded_add_array(E, "group_offset", 8, (uint64_t)ng + 1, &gop)) != ZS_OK)
    goto done;
  memcpy(gop, go, ((size_t)ng + 1) * 8);
  for (int64_t p = 0; p < nb; p++) {
    const int64_t q = p / group, t = p % group, first = q * group;
    const int64_t nbg = nb - first < group ? nb - first : group;
    const int64_t depth = (go[q + 1] - go[q]) / nbg;
    const int64_t b = order[p].id, k0 = B.block_off[b], cnt = order[p].count;
    const uint64_t lin = (uint64_t)brow[b] * (uint64_t)g.nbc + (uint64_t)B.block_col[b];
    if (g.bidx_size == 4)
      ((uint32_t *)bi)[p] = (uint32_t)lin;
    else
      ((uint64_t *)bi)[p] = lin;
    /* Padding repeats the block's last index with +0.0: the only place where a block's
     * indices stop ascending in Morton order, which is how readers find it. */
    for (int64_t j = 0; j < depth; j++) {
      const int64_t slot = go[q] + j * nbg + t, k = j < cnt ? k0 + j : k0 + cnt - 1;
      if (j < cnt) memcpy((char *)v + slot * es, (const char *)A->values + B.src[k] * es, es);
      if (g.idx_size == 2)
        ((uint16_t *)li)[slot] = (uint16_t)B.local[k];
      else
        ((uint32_t *)li)[slot] = B.local[k];
    }
  }
  *out = E;
  E = NULL;
done:
  zs_encoded_destroy(&E);
  zsi_free(order), zsi_free(brow), zsi_free(go);
  csb_blocks_free(&B);
  return s;
}

/* Real elements of the block at group position t: the ascending Morton prefix of its slots. */
static int64_t block_count(const csb_geom *g, const void *li, int64_t base, int64_t nbg,
                           int64_t depth, int64_t t) {
  uint32_t prev = csb_morton(csb_idx_get(li, g->idx_size, base + t), g->lb);
  for (int64_t j = 1; j < depth; j++) {
    const uint32_t m = csb_morton(csb_idx_get(li, g->idx_size, base + j * nbg + t), g->lb);
    if (m <= prev) return j;
    prev = m;
  }
  return depth;
}

static zs_status gcsb_validate(const zs_encoded *E) {
  csb_layout L;
  zs_status s = csb_layout_of(E, &L);
  if (s != ZS_OK) return s;
  const csb_geom g = L.geom;
  const int64_t nb = L.n_blocks, ng = L.n_groups, group = L.group_size, S = (int64_t)L.slots;
  const void *v = L.values, *li = L.local_idx, *bi = L.block_index;
  const int64_t *go = L.group_offset;
  const size_t es = L.value_bytes;
  if (go[0] != 0)
    return zsi_error(ZS_ERR_CORRUPT, "gcsb: group_offset[0] is %" PRId64 ", not 0", go[0]);
  for (int64_t q = 0; q < ng; q++) {
    const int64_t nbg = nb - q * group < group ? nb - q * group : group;
    if (go[q + 1] <= go[q] || go[q + 1] > S || (go[q + 1] - go[q]) % nbg)
      return zsi_error(ZS_ERR_CORRUPT,
                       "gcsb: group_offset[%" PRId64 "] = %" PRId64
                       " is not above its predecessor by a multiple of the group's %" PRId64
                       " blocks, or beyond the %" PRId64 " slots",
                       q + 1, go[q + 1], nbg, S);
  }
  if (go[ng] != S)
    return zsi_error(ZS_ERR_CORRUPT, "gcsb: group_offset ends at %" PRId64 ", values has %" PRId64,
                     go[ng], S);
  const uint64_t nblin = (uint64_t)g.nbr * (uint64_t)g.nbc;
  static const unsigned char zero[8];
  int64_t total = 0, prev_count = 0;
  for (int64_t p = 0; p < nb; p++) {
    const int64_t q = p / group, t = p % group;
    const int64_t nbg = nb - q * group < group ? nb - q * group : group;
    const int64_t depth = (go[q + 1] - go[q]) / nbg;
    const uint64_t lin = csb_bidx_get(bi, g.bidx_size, p);
    if (lin >= nblin)
      return zsi_error(ZS_ERR_CORRUPT,
                       "gcsb: block_index[%" PRId64 "] = %" PRIu64 " is outside the %" PRIu64
                       " blocks",
                       p, lin, nblin);
    const int64_t cnt = block_count(&g, li, go[q], nbg, depth, t);
    if (t == 0 && cnt != depth)
      return zsi_error(ZS_ERR_CORRUPT,
                       "gcsb: group %" PRId64 " is %" PRId64
                       " slots deep (group_offset) but local_idx gives its first block %" PRId64
                       " elements",
                       q, depth, cnt);
    if (p > 0 &&
        (cnt > prev_count || (cnt == prev_count && lin <= csb_bidx_get(bi, g.bidx_size, p - 1))))
      return zsi_error(ZS_ERR_CORRUPT,
                       "gcsb: block_index[%" PRId64
                       "] is out of order (blocks go by nnz "
                       "descending, then block_index ascending)",
                       p);
    if ((s = csb_check_block(&g, E->rows, E->cols, (int64_t)(lin / (uint64_t)g.nbc),
                             (int64_t)(lin % (uint64_t)g.nbc), li, go[q] + t, cnt, nbg, "gcsb",
                             p)) != ZS_OK)
      return s;
    const uint32_t last = csb_idx_get(li, g.idx_size, go[q] + (cnt - 1) * nbg + t);
    for (int64_t j = cnt; j < depth; j++) {
      const int64_t slot = go[q] + j * nbg + t;
      if (csb_idx_get(li, g.idx_size, slot) != last ||
          memcmp((const char *)v + slot * es, zero, es))
        return zsi_error(ZS_ERR_CORRUPT,
                         "gcsb: padding slot %" PRId64 " (block %" PRId64
                         ") must repeat local_idx %" PRIu32 " with value +0.0",
                         slot, p, last);
    }
    total += cnt, prev_count = cnt;
  }
  if (total != E->nnz)
    return zsi_error(ZS_ERR_CORRUPT, "gcsb: the blocks hold %" PRId64 " elements, nnz is %" PRId64,
                     total, E->nnz);
  /* Equal counts ascend, but a block could still repeat across counts. */
  uint64_t *sorted = zsi_alloc_array((uint64_t)(nb ? nb : 1), 8);
  if (!sorted) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "gcsb: checking %" PRId64 " blocks", nb);
  for (int64_t p = 0; p < nb; p++) sorted[p] = csb_bidx_get(bi, g.bidx_size, p);
  qsort(sorted, (size_t)nb, 8, u64_cmp);
  for (int64_t p = 1; p < nb; p++)
    if (sorted[p] == sorted[p - 1]) {
      const uint64_t twice = sorted[p];
      zsi_free(sorted);
      return zsi_error(ZS_ERR_CORRUPT, "gcsb: block_index holds block %" PRIu64 " twice", twice);
    }
  zsi_free(sorted);
  return ZS_OK;
}

static zs_status gcsb_decode(const zs_encoded *E, zs_matrix **out) {
  csb_layout L;
  zs_status s = csb_layout_of(E, &L);
  if (s != ZS_OK) return s;
  const csb_geom g = L.geom;
  const int64_t nb = L.n_blocks, group = L.group_size;
  const void *v = L.values, *li = L.local_idx, *bi = L.block_index;
  const int64_t *go = L.group_offset;
  const size_t es = L.value_bytes;
  const uint32_t mask = (uint32_t)g.beta - 1;
  zs_matrix *A;
  if ((s = zsi_matrix_alloc(&A, E->rows, E->cols, E->nnz, E->type)) != ZS_OK) return s;
  ranked *order = zsi_alloc_array((uint64_t)(nb ? nb : 1), sizeof(ranked));
  int64_t *next = zsi_alloc_array((uint64_t)(E->rows ? E->rows : 1), 8);
  if (!order || !next) {
    zsi_free(order), zsi_free(next);
    zs_matrix_destroy(&A);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "gcsb: decoding %" PRId64 " blocks", nb);
  }
  /* Row-major block order: rows then come out with ascending columns, as in csb_decode. */
  for (int64_t p = 0; p < nb; p++)
    order[p] = (ranked){(int64_t)csb_bidx_get(bi, g.bidx_size, p), p};
  qsort(order, (size_t)nb, sizeof *order, ranked_cmp);
  for (int pass = 0; pass < 2; pass++) {
    for (int64_t i = nb - 1; i >= 0; i--) { /* ranked_cmp sorted descending */
      const int64_t p = order[i].id, q = p / group, t = p % group;
      const int64_t nbg = nb - q * group < group ? nb - q * group : group;
      const int64_t depth = (go[q + 1] - go[q]) / nbg,
                    cnt = block_count(&g, li, go[q], nbg, depth, t);
      const uint64_t lin = (uint64_t)order[i].count;
      const int64_t r0 = (int64_t)(lin / (uint64_t)g.nbc) << g.lb;
      const int64_t c0 = (int64_t)(lin % (uint64_t)g.nbc) << g.lb;
      for (int64_t j = 0; j < cnt; j++) {
        const int64_t slot = go[q] + j * nbg + t;
        const uint32_t idx = csb_idx_get(li, g.idx_size, slot);
        if (pass == 0) {
          A->row_ptr[r0 + (idx >> g.lb) + 1]++;
          continue;
        }
        const int64_t pos = next[r0 + (idx >> g.lb)]++;
        A->col_idx[pos] = (int32_t)(c0 + (idx & mask));
        memcpy((char *)A->values + pos * es, (const char *)v + slot * es, es);
      }
    }
    if (pass == 0) {
      for (int64_t i = 0; i < E->rows; i++) A->row_ptr[i + 1] += A->row_ptr[i];
      memcpy(next, A->row_ptr, (size_t)E->rows * 8);
    }
  }
  zsi_free(order), zsi_free(next);
  *out = A;
  return ZS_OK;
}

static void gcsb_stats(const zs_encoded *E, zs_stat_fn emit, void *ctx) {
  zsi_view_buf vb;
  csb_layout L;
  if (csb_layout_parse(zsi_encoded_as_view(E, &vb), &L, NULL, 0) != ZS_OK) return;
  const int64_t beta = L.geom.beta, group = L.group_size;
  const double nb = (double)L.n_blocks, slots = (double)L.slots;
  const double bytes = (double)zs_encoded_bytes(E), csr = csb_csr_bytes(E);
  const double nnz = (double)E->nnz;
  emit(ctx, "beta", (double)beta);
  emit(ctx, "group_size", (double)group);
  emit(ctx, "blocks", nb);
  emit(ctx, "groups", (double)L.n_groups);
  emit(ctx, "nnz_per_block", nb > 0 ? nnz / nb : 0);
  emit(ctx, "padding_slots", slots - nnz);
  emit(ctx, "padding_overhead", nnz > 0 ? (slots - nnz) / nnz : 0);
  emit(ctx, "bytes_per_nnz", nnz > 0 ? bytes / nnz : 0);
  emit(ctx, "csr_bytes", csr);
  emit(ctx, "bytes_vs_csr", csr > 0 ? bytes / csr : 0);
}

const zsi_format_ops zsi_format_gcsb = {ZS_FORMAT_GCSB, "gcsb",      gcsb_encode,
                                        gcsb_validate,  gcsb_decode, gcsb_stats};
