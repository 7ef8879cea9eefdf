/* cci.c — CCI: compressed column indices with opcode decode tables (encode, validate, decode). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/cci/cci.h"
#include "formats/cci/cci_codec.h"

/* The paper's set: '0' (no immediate: the next column, S to the right in a slice), then
 * '001'+5, '011'+15, '101'+20, '111'+29 bits. Read low bits first, so a 1-bit opcode 0 fills
 * table entries 0, 2, 4, 6 and the 3-bit opcodes sit at 1, 3, 5, 7. */
static const int paper_len[5] = {1, 3, 3, 3, 3};
static const int paper_width[5] = {0, 5, 15, 20, 29};

typedef struct code_set {
  int n;
  int len[ZS_CCI_TABLE], width[ZS_CCI_TABLE];
} code_set;

static int bits_needed(uint64_t u) { return u ? 64 - __builtin_clzll(u) : 0; }

/* Opcode patterns by increasing length, each the smallest L-bit value that no shorter opcode
 * is a (low-bit) prefix of; the table then lists, for every 3-bit index, the opcode it starts
 * with. Returns 0 when the lengths do not fit (never for the sets built here). */
static int build_table(const code_set *c, uint32_t table[ZS_CCI_TABLE]) {
  int order[ZS_CCI_TABLE], pat[ZS_CCI_TABLE];
  for (int i = 0; i < c->n; i++) order[i] = i;
  for (int i = 1; i < c->n; i++) /* stable insertion sort by length */
    for (int j = i; j > 0 && c->len[order[j]] < c->len[order[j - 1]]; j--) {
      const int t = order[j];
      order[j] = order[j - 1], order[j - 1] = t;
    }
  for (int a = 0; a < c->n; a++) {
    const int o = order[a], L = c->len[o];
    pat[o] = -1;
    for (int v = 0; v < (1 << L) && pat[o] < 0; v++) {
      int clash = 0;
      for (int b = 0; b < a; b++) {
        const int q = order[b], m = (1 << c->len[q]) - 1;
        clash |= (v & m) == pat[q];
      }
      if (!clash) pat[o] = v;
    }
    if (pat[o] < 0) return 0;
  }
  for (int e = 0; e < ZS_CCI_TABLE; e++) {
    table[e] = 0;
    for (int o = 0; o < c->n; o++)
      if ((e & ((1 << c->len[o]) - 1)) == pat[o])
        table[e] = zs_cci_pack((uint32_t)c->len[o], (uint32_t)c->width[o]);
    if (!table[e]) return 0;
  }
  return 1;
}

/* Cost in bits of a code needing b immediate bits under `table`: the cheapest entry wide
 * enough; -1 when none is. */
static int cheapest(const uint32_t table[ZS_CCI_TABLE], int b, int *entry) {
  int best = -1;
  for (int e = 0; e < ZS_CCI_TABLE; e++) {
    const int w = (int)(table[e] >> 16), n = (int)(table[e] & 0xff);
    if (w >= b && (best < 0 || n < best)) best = n, *entry = e;
  }
  return best;
}

/* The optimiser: every complete prefix code of opcodes up to 3 bits (n1, n2, n3 opcodes of
 * length 1, 2, 3 with 4 n1 + 2 n2 + n3 = 8), every order of those lengths over classes of
 * increasing width, and for each a dynamic programme over the widths (class c takes the codes
 * needing more bits than class c - 1 and at most its own width). Exact for the rule "a code
 * takes the narrowest class that fits"; the encoder then takes the cheapest class that fits,
 * which is never worse. */
static void optimise(const uint64_t hist[ZS_CCI_MAX_WIDTH + 1], int maxb, code_set *best) {
  uint64_t cum[ZS_CCI_MAX_WIDTH + 2] = {0}; /* cum[w + 1] = codes needing <= w bits */
  for (int w = 0; w <= ZS_CCI_MAX_WIDTH; w++) cum[w + 1] = cum[w] + hist[w];
  double best_cost = -1;
  for (int n1 = 0; n1 <= 2; n1++)
    for (int n2 = 0; 4 * n1 + 2 * n2 <= 8; n2++) {
      const int n3 = 8 - 4 * n1 - 2 * n2, m = n1 + n2 + n3;
      int len[ZS_CCI_TABLE];
      for (int i = 0; i < m; i++) len[i] = i < n1 ? 1 : i < n1 + n2 ? 2 : 3;
      for (;;) {
        /* dp[c][w]: classes 0..c, class c of width w; from[c][w] the width of class c - 1. */
        double dp[ZS_CCI_TABLE][ZS_CCI_MAX_WIDTH + 1];
        int from[ZS_CCI_TABLE][ZS_CCI_MAX_WIDTH + 1];
        for (int c = 0; c < m; c++)
          for (int w = 0; w <= ZS_CCI_MAX_WIDTH; w++) {
            dp[c][w] = -1;
            if (c == 0) {
              dp[c][w] = (double)cum[w + 1] * (len[0] + w);
              continue;
            }
            for (int v = 0; v < w; v++) {
              if (dp[c - 1][v] < 0) continue;
              const double t = dp[c - 1][v] + (double)(cum[w + 1] - cum[v + 1]) * (len[c] + w);
              if (dp[c][w] < 0 || t < dp[c][w]) dp[c][w] = t, from[c][w] = v;
            }
          }
        for (int w = maxb; w <= ZS_CCI_MAX_WIDTH; w++) {
          if (dp[m - 1][w] < 0 || (best_cost >= 0 && dp[m - 1][w] >= best_cost)) continue;
          best_cost = dp[m - 1][w];
          best->n = m;
          for (int c = m - 1, x = w; c >= 0; c--) {
            best->len[c] = len[c], best->width[c] = x;
            if (c > 0) x = from[c][x];
          }
        }
        /* next distinct permutation of len[0..m) */
        int i = m - 2;
        while (i >= 0 && len[i] >= len[i + 1]) i--;
        if (i < 0) break;
        int j = m - 1;
        while (len[j] <= len[i]) j--;
        int t = len[i];
        len[i] = len[j], len[j] = t;
        for (int a = i + 1, b = m - 1; a < b; a++, b--) t = len[a], len[a] = len[b], len[b] = t;
      }
    }
}

/* The value a code carries for the k-th nonzero of a row (see docs/formats/cci.md). */
static uint64_t code_value(const int32_t *col, int64_t k, int S, int64_t ref) {
  if (k == 0) return zs_cci_zigzag((int64_t)col[0] - ref);
  if (k < S) return (uint64_t)((int64_t)col[k] - col[k - 1] - 1);
  return (uint64_t)((int64_t)col[k] - col[k - S] - S);
}

static int cmp_i64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* first_shift: the median offset of a row's first column from the scaled diagonal, over at
 * most 4096 evenly spaced rows (a stencil's interior rows then code their first column in one
 * opcode with no immediate). */
static int64_t choose_first_shift(const zs_matrix *A) {
  const int64_t n = A->rows < 4096 ? A->rows : 4096;
  int64_t *d = malloc((size_t)(n ? n : 1) * sizeof *d), m = 0;
  if (!d) return 0; /* only a size choice: any shift is valid */
  for (int64_t t = 0; t < n; t++) {
    const int64_t i = t * A->rows / n;
    if (A->row_ptr[i] < A->row_ptr[i + 1])
      d[m++] = A->col_idx[A->row_ptr[i]] - zs_cci_ref(i, A->rows, A->cols, 0);
  }
  qsort(d, (size_t)m, sizeof *d, cmp_i64);
  const int64_t shift = m ? d[m / 2] : 0;
  free(d);
  return shift;
}

static zs_status cci_encode(const zs_matrix *A, const char *options, zs_encoded **out) {
  static const char *const known[] = {"slices", "opcodes", NULL};
  zs_status s = zsi_option_check(options, known, "cci");
  if (s != ZS_OK) return s;
  int64_t S = 8;
  int found;
  char mode[16] = "paper";
  if ((s = zsi_option_int(options, "slices", 1, ZS_CCI_MAX_SLICES, &S, &found)) != ZS_OK ||
      (s = zsi_option_str(options, "opcodes", mode, sizeof mode, &found)) != ZS_OK)
    return s;
  if (S & (S - 1))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "cci option 'slices': %" PRId64 " is not a power of two in 1..32", S);
  if (strcmp(mode, "paper") != 0 && strcmp(mode, "auto") != 0)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "cci option 'opcodes': '%s' (known: paper, auto)",
                     mode);
  const int64_t rows = A->rows, *rp = A->row_ptr;
  const int32_t *ci = A->col_idx;
  const int64_t shift = choose_first_shift(A);

  /* Pass 1: how many immediate bits each code needs. */
  uint64_t hist[ZS_CCI_MAX_WIDTH + 1] = {0};
  int maxb = 0;
  for (int64_t i = 0; i < rows; i++) {
    const int64_t ref = zs_cci_ref(i, rows, A->cols, shift);
    for (int64_t k = 0; k < rp[i + 1] - rp[i]; k++) {
      const int b = bits_needed(code_value(ci + rp[i], k, (int)S, ref));
      hist[b]++;
      if (b > maxb) maxb = b;
    }
  }
  code_set cs = {5, {0}, {0}};
  for (int o = 0; o < 5; o++) cs.len[o] = paper_len[o], cs.width[o] = paper_width[o];
  if (maxb > cs.width[4]) cs.width[4] = maxb; /* columns beyond 2^29 apart: widen the last */
  if (strcmp(mode, "auto") == 0) optimise(hist, maxb, &cs);
  uint32_t table[ZS_CCI_TABLE];
  if (!build_table(&cs, table)) return zsi_error(ZS_ERR_INTERNAL, "cci: opcode table");
  int cost[ZS_CCI_MAX_WIDTH + 1], entry[ZS_CCI_MAX_WIDTH + 1];
  for (int b = 0; b <= maxb; b++) cost[b] = cheapest(table, b, &entry[b]);

  /* Pass 2: stream lengths, hence every stream's first bit. */
  const uint64_t nstreams = (uint64_t)rows * (uint64_t)S;
  uint64_t *start = zsi_alloc_array(nstreams + 1, 8);
  if (!start) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "cci: %" PRIu64 " stream starts", nstreams);
  uint64_t total = 0;
  for (int64_t i = 0; i < rows; i++) {
    const int64_t ref = zs_cci_ref(i, rows, A->cols, shift), n = rp[i + 1] - rp[i];
    for (int64_t sl = 0; sl < S; sl++) {
      start[i * S + sl] = total;
      for (int64_t k = sl; k < n; k += S)
        total += (uint64_t)cost[bits_needed(code_value(ci + rp[i], k, (int)S, ref))];
    }
  }
  start[nstreams] = total;

  zs_encoded *E;
  void *cs_data, *v;
  uint64_t *codes;
  uint32_t *tab;
  const uint32_t start_size = total <= UINT32_MAX ? 4 : 8;
  const size_t es = zs_type_size(A->type);
  if ((s = zsi_encoded_new(&E, ZS_FORMAT_CCI, A->type, rows, A->cols, A->nnz)) != ZS_OK) {
    zsi_free(start);
    return s;
  }
  int64_t *rp_out;
  if ((s = zsi_encoded_add_param(E, "slices", S)) != ZS_OK ||
      (s = zsi_encoded_add_param(E, "first_shift", shift)) != ZS_OK ||
      (s = zsi_encoded_add_array(E, "row_ptr", 8, (uint64_t)rows + 1, (void **)&rp_out)) != ZS_OK ||
      (s = zsi_encoded_add_array(E, "optable", 4, ZS_CCI_TABLE, (void **)&tab)) != ZS_OK ||
      (s = zsi_encoded_add_array(E, "cstart", start_size, nstreams + 1, &cs_data)) != ZS_OK ||
      (s = zsi_encoded_add_array(E, "codes", 8, (total + 63) / 64 + 1, (void **)&codes)) != ZS_OK ||
      (s = zsi_encoded_add_array(E, "values", (uint32_t)es, (uint64_t)A->nnz, &v)) != ZS_OK) {
    zsi_free(start);
    zs_encoded_destroy(&E);
    return s;
  }
  memcpy(rp_out, rp, ((size_t)rows + 1) * 8);
  memcpy(tab, table, sizeof table);
  memcpy(v, A->values, (size_t)A->nnz * es);
  for (uint64_t q = 0; q <= nstreams; q++) {
    if (start_size == 4)
      ((uint32_t *)cs_data)[q] = (uint32_t)start[q];
    else
      ((uint64_t *)cs_data)[q] = start[q];
  }
  /* Pass 3: the bits, low first; codes is zeroed, so OR-ing in is enough. */
  for (int64_t i = 0; i < rows; i++) {
    const int64_t ref = zs_cci_ref(i, rows, A->cols, shift), n = rp[i + 1] - rp[i];
    for (int64_t sl = 0; sl < S; sl++) {
      uint64_t pos = start[i * S + sl];
      for (int64_t k = sl; k < n; k += S) {
        const uint64_t u = code_value(ci + rp[i], k, (int)S, ref);
        const uint32_t t = table[entry[bits_needed(u)]];
        const unsigned oplen = (t >> 8) & 0xff, count = t & 0xff;
        /* the pattern of this entry is its index's low oplen bits */
        const uint64_t word = (uint64_t)(entry[bits_needed(u)] & ((1 << oplen) - 1)) | u << oplen;
        const unsigned sh = (unsigned)(pos & 63);
        codes[pos >> 6] |= word << sh;
        if (sh + count > 64) codes[(pos >> 6) + 1] |= word >> (64 - sh);
        pos += count;
      }
    }
  }
  zsi_free(start);
  *out = E;
  return ZS_OK;
}

/* ---- validate and decode: one walk over every stream ---- */

/* E's layout (cci_layout.h) with its row offsets, table, stream starts and padding checked. */
static zs_status cci_check(const zs_encoded *E, cci_layout *c) {
  zsi_view_buf vb;
  char why[ZSI_LAYOUT_WHY];
  zs_status s = cci_layout_parse(zsi_encoded_as_view(E, &vb), c, why, sizeof why);
  if (s != ZS_OK) return zsi_error(s, "%s", why);
  const uint64_t nstreams = (uint64_t)E->rows * (uint64_t)c->slices;
  const int64_t *rp = c->row_ptr;
  if (rp[0] != 0) return zsi_error(ZS_ERR_CORRUPT, "row_ptr[0] is %" PRId64 ", not 0", rp[0]);
  for (int64_t i = 0; i < E->rows; i++)
    if (rp[i + 1] < rp[i] || rp[i + 1] > E->nnz)
      return zsi_error(ZS_ERR_CORRUPT, "row_ptr[%" PRId64 "] = %" PRId64 " is out of order", i + 1,
                       rp[i + 1]);
  if (rp[E->rows] != E->nnz)
    return zsi_error(ZS_ERR_CORRUPT, "row_ptr ends at %" PRId64 ", nnz is %" PRId64, rp[E->rows],
                     E->nnz);
  for (int e = 0; e < ZS_CCI_TABLE; e++) {
    const uint32_t t = c->optable[e], oplen = (t >> 8) & 0xff, width = t >> 16;
    if (oplen < 1 || oplen > 3 || width > ZS_CCI_MAX_WIDTH || (t & 0xff) != oplen + width)
      return zsi_error(ZS_ERR_CORRUPT,
                       "optable[%d] = 0x%08x: opcode length must be 1..3, width <= 32, count "
                       "their sum",
                       e, t);
    /* Don't-care filling: every index sharing this opcode's low bits holds the same entry. */
    for (int f = 0; f < ZS_CCI_TABLE; f++)
      if ((f & ((1 << oplen) - 1)) == (e & ((1 << oplen) - 1)) && c->optable[f] != t)
        return zsi_error(ZS_ERR_CORRUPT,
                         "optable[%d] and optable[%d] share a %u-bit opcode but differ", e, f,
                         oplen);
  }
  if (cci_start_at(c, 0) != 0) return zsi_error(ZS_ERR_CORRUPT, "cstart[0] is not 0");
  for (uint64_t q = 0; q < nstreams; q++)
    if (cci_start_at(c, q + 1) < cci_start_at(c, q))
      return zsi_error(ZS_ERR_CORRUPT, "cstart[%" PRIu64 "] decreases", q + 1);
  /* Bits past the end are zero, so one matrix has one encoding. */
  const uint64_t last = c->total_bits / 64;
  for (uint64_t w = last; w < c->n_codes; w++) {
    const uint64_t used = w == last ? c->total_bits % 64 : 0;
    if (used < 64 && (c->codes[w] >> used) != 0)
      return zsi_error(ZS_ERR_CORRUPT, "codes[%" PRIu64 "] holds bits past the stream end", w);
  }
  return ZS_OK;
}

/* Decode every row; each code must lie inside its stream, every stream must end exactly where
 * the next begins, and columns must be in range and strictly ascending. */
static zs_status cci_walk(const cci_layout *c, int32_t *col) {
  const int64_t S = c->slices;
  zs_cci_entry tab[ZS_CCI_TABLE];
  for (int e = 0; e < ZS_CCI_TABLE; e++) tab[e] = zs_cci_unpack(c->optable[e]);
  for (int64_t i = 0; i < c->rows; i++) {
    const int64_t b = c->row_ptr[i], n = c->row_ptr[i + 1] - b;
    const int64_t ref = zs_cci_ref(i, c->rows, c->cols, c->first_shift);
    uint64_t pos[ZS_CCI_MAX_SLICES], end[ZS_CCI_MAX_SLICES];
    for (int64_t s = 0; s < S; s++)
      pos[s] = cci_start_at(c, (uint64_t)(i * S + s)),
      end[s] = cci_start_at(c, (uint64_t)(i * S + s + 1));
    for (int64_t k = 0; k < n; k++) {
      const int64_t s = k % S;
      if (pos[s] >= end[s])
        return zsi_error(ZS_ERR_CORRUPT,
                         "codes: stream of row %" PRId64 " slice %" PRId64
                         " ends before entry %" PRId64,
                         i, s, k);
      const uint64_t m = zs_cci_peek(c->codes, pos[s]);
      const zs_cci_entry e = tab[m & 7];
      const uint64_t u = (m >> e.shift) & e.mask;
      pos[s] += e.count;
      if (pos[s] > end[s])
        return zsi_error(ZS_ERR_CORRUPT,
                         "codes: a code of row %" PRId64 " slice %" PRId64 " runs past its stream",
                         i, s);
      int64_t x;
      if (k == 0)
        x = ref + zs_cci_unzigzag(u);
      else if (k < S)
        x = (int64_t)col[b + k - 1] + 1 + (int64_t)u;
      else
        x = (int64_t)col[b + k - S] + S + (int64_t)u;
      if (x < 0 || x >= c->cols || (k > 0 && x <= col[b + k - 1]))
        return zsi_error(ZS_ERR_CORRUPT,
                         "codes: row %" PRId64 " entry %" PRId64 " decodes to column %" PRId64
                         " (out of [0, %" PRId64 ") or not ascending)",
                         i, k, x, c->cols);
      col[b + k] = (int32_t)x;
    }
    for (int64_t s = 0; s < S; s++)
      if (pos[s] != end[s])
        return zsi_error(ZS_ERR_CORRUPT,
                         "cstart: stream of row %" PRId64 " slice %" PRId64 " has %" PRIu64
                         " bits its codes do not use",
                         i, s, end[s] - pos[s]);
  }
  return ZS_OK;
}

static zs_status cci_validate(const zs_encoded *E) {
  cci_layout c;
  zs_status s = cci_check(E, &c);
  if (s != ZS_OK) return s;
  int32_t *col = zsi_alloc_array((uint64_t)E->nnz, 4);
  if (!col && E->nnz)
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "cci validate: %" PRId64 " columns", E->nnz);
  s = cci_walk(&c, col);
  zsi_free(col);
  return s;
}

static zs_status cci_decode(const zs_encoded *E, zs_matrix **out) {
  cci_layout c;
  zs_status s = cci_check(E, &c); /* cheap next to the walk; decode never trusts blindly */
  if (s != ZS_OK) return s;
  zs_matrix *A;
  if ((s = zsi_matrix_alloc(&A, E->rows, E->cols, E->nnz, E->type)) != ZS_OK) return s;
  if ((s = cci_walk(&c, A->col_idx)) != ZS_OK) {
    zs_matrix_destroy(&A);
    return s;
  }
  memcpy(A->row_ptr, c.row_ptr, ((size_t)E->rows + 1) * 8);
  memcpy(A->values, c.values, (size_t)E->nnz * c.value_bytes);
  *out = A;
  return ZS_OK;
}

/* Column-index bytes against CSR's 4 per nonzero: the codes alone (the paper's measure) and
 * every index array CCI adds (codes, stream starts, table). */
static void cci_stats(const zs_encoded *E, zs_stat_fn emit, void *ctx) {
  zsi_view_buf vb;
  cci_layout L;
  if (cci_layout_parse(zsi_encoded_as_view(E, &vb), &L, NULL, 0) != ZS_OK) return;
  const double bits = (double)L.total_bits;
  const double csr = 4.0 * (double)E->nnz;
  const uint64_t starts = (uint64_t)E->rows * (uint64_t)L.slices + 1;
  const double index = (double)(L.n_codes * 8 + starts * L.cstart_bytes + ZS_CCI_TABLE * 4);
  emit(ctx, "slices", (double)L.slices);
  emit(ctx, "csr_col_idx_bytes", csr);
  emit(ctx, "code_bytes", bits / 8);
  emit(ctx, "index_bytes", index);
  emit(ctx, "code_bits_per_nnz", E->nnz ? bits / (double)E->nnz : 0);
  emit(ctx, "index_bits_per_nnz", E->nnz ? 8 * index / (double)E->nnz : 0);
  emit(ctx, "code_saved_pct", csr > 0 ? 100.0 * (1 - bits / 8 / csr) : 0);
  emit(ctx, "index_saved_pct", csr > 0 ? 100.0 * (1 - index / csr) : 0);
}

const zsi_format_ops zsi_format_cci = {ZS_FORMAT_CCI, "cci",      cci_encode,
                                       cci_validate,  cci_decode, cci_stats};
