/* vans_io.c — the report's files, read and written byte for byte: the container (Table 1, with
 * zsparse's extended header for row scales and lane layouts) and the baseline file (Appendix
 * A), in memory and through the safe output. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/io/safe_output.h"
#include "formats/vans/vans.h"

static const char ext_magic[8] = {'Z', 'S', 'V', 'A', 'N', 'S', 'X', '1'};

/* ---- containers ---- */

typedef struct wbuf {
  uint8_t *p;
  size_t n;
} wbuf;
static void put(wbuf *b, const void *src, size_t len) {
  if (src)
    memcpy(b->p + b->n, src, len);
  else
    memset(b->p + b->n, 0, len);
  b->n += len;
}
static void put32(wbuf *b, uint32_t v) {
  const uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
  put(b, x, 4);
}
static void putf(wbuf *b, float f) {
  uint32_t v;
  memcpy(&v, &f, 4);
  put32(b, v);
}

/* N_0, v0 and its zero padding to 4 bytes: both files have them. */
static void put_v0(wbuf *b, const zs_vans *V) {
  put32(b, V->n0);
  put(b, V->v0, V->n0);
  put(b, NULL, 3 - (V->n0 + 3) % 4);
}
/* N_{k+1}, N_k, delta: the head of a layer in both files. */
static void put_layer_head(wbuf *b, const zsi_vans_layer *L) {
  put32(b, L->rows);
  put32(b, L->cols);
  putf(b, L->delta);
}

static uint32_t s_max_words(const zs_vans *V) {
  uint64_t m = 0;
  for (uint32_t k = 0; k < V->k; k++) {
    const uint64_t b = zsi_vans_record_bytes(&V->layers[k]) / 2;
    if (b > m) m = b;
  }
  return m > UINT32_MAX ? UINT32_MAX : (uint32_t)m;
}

zs_status zs_vans_write_memory(const zs_vans *V, void **data, size_t *size) {
  if (!V || !data || !size)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vans_write_memory: V, data or size is NULL");
  if (V->k == 0) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "vans: a chain without layers");
  uint64_t total = 12 + V->n0 + (3 - (V->n0 + 3) % 4);
  if (V->flags) total += 16;
  for (uint32_t k = 0; k < V->k; k++) {
    total += zsi_vans_record_bytes(&V->layers[k]);
    if (V->flags & ZS_VANS_PER_ROW) total += 4 * (uint64_t)V->layers[k].rows;
  }
  if (total > SIZE_MAX) return zsi_error(ZS_ERR_OVERFLOW, "vans: container too large");
  wbuf b = {malloc(total ? (size_t)total : 1), 0};
  if (!b.p)
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: %llu-byte container", (unsigned long long)total);
  if (V->flags) {
    put(&b, ext_magic, 8);
    put32(&b, V->flags);
    put32(&b, V->lanes);
  }
  put32(&b, V->k);
  put32(&b, s_max_words(V));
  put_v0(&b, V);
  for (uint32_t k = 0; k < V->k; k++) {
    const zsi_vans_layer *L = &V->layers[k];
    put_layer_head(&b, L);
    for (uint32_t i = 0; i < L->rows; i++) put32(&b, L->cursors[i]);
    put32(&b, L->payload_words);
    if (L->pairs) {
      const zsi_vans_pairs *P = L->pairs;
      const uint8_t n[2] = {(uint8_t)P->n, (uint8_t)(P->n >> 8)};
      put(&b, n, 2);
      for (uint32_t k = 0; k < P->n; k++) {
        const uint8_t e[4] = {(uint8_t)P->a[k], (uint8_t)P->b[k], (uint8_t)P->f[k],
                              (uint8_t)(P->f[k] >> 8)};
        put(&b, e, 4);
      }
    } else {
      const uint8_t head[2] = {(uint8_t)(int8_t)L->w_min, (uint8_t)L->grid};
      put(&b, head, 2);
      put(&b, L->cdf, L->grid + 1);
      put(&b, NULL, (L->grid + 1) % 2);
      put(&b, L->ppf, 256);
    }
    for (uint32_t i = 0; i < L->payload_words; i++) {
      const uint8_t x[2] = {(uint8_t)L->payload[i], (uint8_t)(L->payload[i] >> 8)};
      put(&b, x, 2);
    }
  }
  if (V->flags & ZS_VANS_PER_ROW)
    for (uint32_t k = 0; k < V->k; k++)
      for (uint32_t i = 0; i < V->layers[k].rows; i++) putf(&b, V->layers[k].row_scales[i]);
  *data = b.p;
  *size = b.n;
  return ZS_OK;
}

typedef struct rbuf {
  const uint8_t *p;
  size_t n, off;
} rbuf;

/* Take len bytes or fail naming the field: every read of the container goes through here. */
static zs_status take(rbuf *r, size_t len, const void **out, int k, const char *field) {
  if (len > r->n - r->off) {
    if (k < 0)
      return zsi_error(ZS_ERR_CORRUPT, "vans: truncated at byte %zu: %s needs %zu bytes, %zu left",
                       r->off, field, len, r->n - r->off);
    return zsi_error(ZS_ERR_CORRUPT,
                     "vans: truncated at byte %zu: layer %d: %s needs %zu bytes, %zu left", r->off,
                     k, field, len, r->n - r->off);
  }
  *out = r->p + r->off;
  r->off += len;
  return ZS_OK;
}
/* Padding must be zero: otherwise a file would not be written back byte for byte. */
static zs_status take_pad(rbuf *r, size_t len, int k, const char *field) {
  const void *p = NULL;
  zs_status s = take(r, len, &p, k, field);
  for (size_t i = 0; s == ZS_OK && i < len; i++)
    if (((const uint8_t *)p)[i])
      s = zsi_error(ZS_ERR_CORRUPT, "vans: byte %zu: %s%s is %u, must be 0", r->off - len + i,
                    k < 0 ? "" : "a layer's ", field, ((const uint8_t *)p)[i]);
  return s;
}
static uint32_t get32(const void *p) {
  const uint8_t *b = p;
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
static float getf(const void *p) {
  const uint32_t v = get32(p);
  float f;
  memcpy(&f, &v, 4);
  return f;
}
#define TAKE(len, ptr, k, field)                                            \
  do {                                                                      \
    if ((s = take(&r, (len), &(ptr), k, field)) != ZS_OK) goto fail_status; \
  } while (0)

static zs_status check_dims(uint32_t v, int k, const char *field) {
  if (v < 1 || v > ZS_VANS_MAX_DIM) {
    if (k < 0)
      return zsi_error(ZS_ERR_CORRUPT, "vans: %s = %u outside 1..%d", field, v, ZS_VANS_MAX_DIM);
    return zsi_error(ZS_ERR_CORRUPT, "vans: layer %d: %s = %u outside 1..%d", k, field, v,
                     ZS_VANS_MAX_DIM);
  }
  return ZS_OK;
}

/* v0 (n0 entries) and its zero padding into a new chain *V, which the caller frees on failure. */
static zs_status take_v0(rbuf *r, uint32_t n0, uint32_t flags, zs_vans **V) {
  const void *p = NULL;
  zs_status s = check_dims(n0, -1, "N_0");
  if (s == ZS_OK) s = take(r, n0, &p, -1, "v0");
  if (s == ZS_OK) s = zs_vans_create(V, n0, p, flags);
  if (s == ZS_OK) s = take_pad(r, 3 - (n0 + 3) % 4, -1, "v0 padding");
  return s;
}

/* Check the entropy model tables: strictly increasing cdf from 0 to 256 (stored modulo 256),
 * so no symbol has probability zero, and a ppf that inverts it quantile by quantile. */
static zs_status check_model(zsi_vans_layer *L, int k) {
  if (L->grid < 2)
    return zsi_error(ZS_ERR_CORRUPT, "vans: layer %d: |G| = %u, rANS needs at least 2 symbols", k,
                     L->grid);
  if (L->w_min + (int32_t)L->grid - 1 > 127)
    return zsi_error(ZS_ERR_CORRUPT, "vans: layer %d: w_min %d + |G| %u - 1 exceeds int8 127", k,
                     L->w_min, L->grid);
  if (L->cdf[0] != 0)
    return zsi_error(ZS_ERR_CORRUPT, "vans: layer %d: cdf[0] = %u, must be 0", k, L->cdf[0]);
  uint32_t prev = 0;
  for (uint32_t s = 1; s <= L->grid; s++) {
    const uint32_t c = s == L->grid && L->cdf[s] == 0 ? 256u : L->cdf[s];
    if (c <= prev)
      return zsi_error(ZS_ERR_CORRUPT,
                       "vans: layer %d: cdf[%u] = %u after %u: symbol %u would have probability "
                       "%s (cdf must rise strictly to 256, stored as 0)",
                       k, s, L->cdf[s], prev, s - 1, c == prev ? "zero" : "negative");
    if (s == L->grid && c != 256)
      return zsi_error(ZS_ERR_CORRUPT, "vans: layer %d: cdf[|G| = %u] = %u, must be 256 (0)", k, s,
                       L->cdf[s]);
    L->prob[s - 1] = (uint16_t)(c - prev);
    for (uint32_t q = prev; q < c; q++)
      if (L->ppf[q] != s - 1)
        return zsi_error(ZS_ERR_CORRUPT,
                         "vans: layer %d: ppf[%u] = %u, the cdf puts quantile %u in symbol %u", k,
                         q, L->ppf[q], q, s - 1);
    prev = c;
  }
  return ZS_OK;
}

zs_status zs_vans_read_memory(zs_vans **out, const void *data, size_t size) {
  if (!out || (!data && size))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vans_read_memory: out or data is NULL");
  rbuf r = {data, size, 0};
  const void *p = NULL;
  zs_vans *V = NULL;
  zs_status s = ZS_OK;
  uint32_t flags = 0, lanes = 0;
  zsi_vans_layer L; /* the layer being read; freed on failure */
  memset(&L, 0, sizeof L);
  if (size >= 8 && memcmp(data, ext_magic, 8) == 0) {
    r.off = 8;
    TAKE(8, p, -1, "extended header");
    flags = get32(p);
    lanes = get32((const uint8_t *)p + 4);
    const uint32_t known = ZS_VANS_PER_ROW | ZS_VANS_INTERLEAVED | ZS_VANS_PAIRS;
    if ((flags & ~known) || ((flags & ZS_VANS_INTERLEAVED) && (flags & ZS_VANS_PAIRS))) {
      s = zsi_error(ZS_ERR_CORRUPT, "vans: extended header: flags 0x%x (%s)", flags,
                    flags & ~known ? "unknown bits" : "two layouts at once");
      goto fail_status;
    }
    const uint32_t want = flags & (ZS_VANS_INTERLEAVED | ZS_VANS_PAIRS) ? ZS_VANS_LANES : 0u;
    if (lanes != want) {
      s = zsi_error(ZS_ERR_CORRUPT, "vans: extended header: lanes = %u, must be %u", lanes, want);
      goto fail_status;
    }
  }
  TAKE(12, p, -1, "header (K, S_max, N_0)");
  const uint32_t K = get32(p), s_max = get32((const uint8_t *)p + 4),
                 n0 = get32((const uint8_t *)p + 8);
  if (K < 1 || K > ZS_VANS_MAX_LAYERS) {
    s = zsi_error(ZS_ERR_CORRUPT, "vans: K = %u outside 1..%d", K, ZS_VANS_MAX_LAYERS);
    goto fail_status;
  }
  if ((s = take_v0(&r, n0, flags, &V)) != ZS_OK) goto fail_status;
  uint32_t cols_expected = n0;
  for (uint32_t k = 0; k < K; k++) {
    const int ki = (int)k;
    TAKE(12, p, ki, "N_{k+1}, N_k, delta");
    L.rows = get32(p);
    L.cols = get32((const uint8_t *)p + 4);
    L.delta = getf((const uint8_t *)p + 8);
    if ((s = check_dims(L.rows, ki, "N_{k+1} (rows)")) != ZS_OK) goto fail_status;
    if (L.cols != cols_expected) {
      s = zsi_error(ZS_ERR_CORRUPT, "vans: layer %d: N_k (cols) = %u, the vector has %u entries",
                    ki, L.cols, cols_expected);
      goto fail_status;
    }
    if (!isfinite(L.delta) || !(L.delta > 0)) {
      s = zsi_error(ZS_ERR_CORRUPT, "vans: layer %d: delta = %g, must be finite and positive", ki,
                    (double)L.delta);
      goto fail_status;
    }
    TAKE(4 * (size_t)L.rows, p, ki, "cursors");
    L.cursors = zsi_alloc_array(L.rows, 4);
    if (!L.cursors) goto fail_oom;
    for (uint32_t i = 0; i < L.rows; i++) L.cursors[i] = get32((const uint8_t *)p + 4 * i);
    if (flags & ZS_VANS_PAIRS) {
      TAKE(6, p, ki, "payload_size, pairs");
      L.payload_words = get32(p);
      if (!(L.pairs = zsi_alloc(sizeof *L.pairs))) goto fail_oom;
      memset(L.pairs, 0, sizeof *L.pairs);
      L.pairs->n = (uint32_t)((const uint8_t *)p)[4] | (uint32_t)((const uint8_t *)p)[5] << 8;
      if (L.pairs->n > ZSI_VANS_PAIR_SLOTS) {
        s = zsi_error(ZS_ERR_CORRUPT, "vans: layer %d: %u pairs, must be 2..%u", ki, L.pairs->n,
                      ZSI_VANS_PAIR_SLOTS);
        goto fail_status;
      }
      TAKE(4 * (size_t)L.pairs->n, p, ki, "pair table");
      for (uint32_t e = 0; e < L.pairs->n; e++) {
        const uint8_t *q = (const uint8_t *)p + 4 * e;
        L.pairs->a[e] = (int8_t)q[0], L.pairs->b[e] = (int8_t)q[1];
        L.pairs->f[e] = (uint16_t)(q[2] | q[3] << 8);
      }
      if ((s = zsi_vans_pairs_index(L.pairs, ki)) != ZS_OK) goto fail_status;
      if (L.payload_words % 2) {
        s = zsi_error(ZS_ERR_CORRUPT,
                      "vans: layer %d: payload_size = %u is odd; the pair layout's words are "
                      "32-bit",
                      ki, L.payload_words);
        goto fail_status;
      }
    } else {
      TAKE(6, p, ki, "payload_size, w_min, |G|");
      L.payload_words = get32(p);
      L.w_min = (int8_t)((const uint8_t *)p)[4];
      L.grid = ((const uint8_t *)p)[5];
      TAKE(L.grid + 1, p, ki, "cdf");
      memcpy(L.cdf, p, L.grid + 1);
      if ((s = take_pad(&r, (L.grid + 1) % 2, ki, "cdf padding")) != ZS_OK) goto fail_status;
      TAKE(256, p, ki, "ppf");
      memcpy(L.ppf, p, 256);
      if ((s = check_model(&L, ki)) != ZS_OK) goto fail_status;
    }
    for (uint32_t i = 0; i < L.rows; i++)
      if (L.cursors[i] > L.payload_words || (i && L.cursors[i] < L.cursors[i - 1])) {
        s = zsi_error(ZS_ERR_CORRUPT, "vans: layer %d: cursors[%u] = %u is %s (payload_size %u)",
                      ki, i, L.cursors[i],
                      L.cursors[i] > L.payload_words ? "past the payload" : "below cursors[i-1]",
                      L.payload_words);
        goto fail_status;
      }
    TAKE(2 * (size_t)L.payload_words, p, ki, "payload");
    L.payload = zsi_alloc_array(L.payload_words ? L.payload_words : 1, 2);
    if (!L.payload) goto fail_oom;
    for (uint32_t i = 0; i < L.payload_words; i++)
      L.payload[i] = (uint16_t)(((const uint8_t *)p)[2 * i] | ((const uint8_t *)p)[2 * i + 1] << 8);
    if ((s = zsi_vans_check_streams(&L, V->lanes, ki)) != ZS_OK) goto fail_status;
    uint64_t n_weights;
    if (L.pairs && !zsi_vans_grid(&L, L.hist, &n_weights)) { /* w_min, |G| for info only */
      s = zsi_error(ZS_ERR_CORRUPT, "vans: layer %d: no weights", ki);
      goto fail_status;
    }
    if ((s = zsi_vans_append(V, &L)) != ZS_OK) goto fail_status;
    cols_expected = V->layers[k].rows;
  }
  if (flags & ZS_VANS_PER_ROW)
    for (uint32_t k = 0; k < K; k++) {
      zsi_vans_layer *L = &V->layers[k];
      TAKE(4 * (size_t)L->rows, p, (int)k, "row scales");
      L->row_scales = zsi_alloc_array(L->rows, 4);
      if (!L->row_scales) goto fail_oom;
      float top = 0;
      for (uint32_t i = 0; i < L->rows; i++) {
        const float f = getf((const uint8_t *)p + 4 * i);
        if (!isfinite(f) || !(f > 0) || f > L->delta) {
          s = zsi_error(ZS_ERR_CORRUPT,
                        "vans: layer %u: row scale %u = %g, must be finite, positive and at most "
                        "delta %g",
                        k, i, (double)f, (double)L->delta);
          goto fail_status;
        }
        L->row_scales[i] = f;
        if (f > top) top = f;
      }
      if (top != L->delta) {
        s = zsi_error(ZS_ERR_CORRUPT, "vans: layer %u: delta %g is not the largest row scale %g", k,
                      (double)L->delta, (double)top);
        goto fail_status;
      }
      if ((s = zsi_vans_row_mult(L)) != ZS_OK) goto fail_status;
    }
  if (r.off != r.n) {
    s = zsi_error(ZS_ERR_CORRUPT, "vans: %zu bytes after the last %s", r.n - r.off,
                  flags & ZS_VANS_PER_ROW ? "row scales" : "layer");
    goto fail_status;
  }
  if (s_max != s_max_words(V)) {
    s = zsi_error(ZS_ERR_CORRUPT, "vans: S_max = %u, the largest layer record is %u 16-bit words",
                  s_max, s_max_words(V));
    goto fail_status;
  }
  *out = V;
  return ZS_OK;
fail_oom:
  s = zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: reading layer arrays");
fail_status:
  zsi_vans_layer_free(&L);
  zs_vans_destroy(&V);
  return s;
}

static zs_status read_file(const char *path, uint8_t **data, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return zsi_error(ZS_ERR_IO, "%s: cannot open", path);
  uint8_t *buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n == cap) {
      cap = cap ? 2 * cap : 1 << 16;
      uint8_t *nb = realloc(buf, cap);
      if (!nb) {
        free(buf);
        fclose(f);
        return zsi_error(ZS_ERR_OUT_OF_MEMORY, "%s: reading", path);
      }
      buf = nb;
    }
    const size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  const int err = ferror(f);
  fclose(f);
  if (err) {
    free(buf);
    return zsi_error(ZS_ERR_IO, "%s: read error", path);
  }
  *data = buf;
  *size = n;
  return ZS_OK;
}

static zs_status write_file(const char *path, const void *data, size_t size) {
  zsi_output out;
  zs_status s = zsi_output_open(&out, path, ZSI_OUTPUT_BINARY);
  if (s != ZS_OK) return s;
  const unsigned char *p = data;
  for (size_t done = 0; done < size;) {
    const ssize_t n = write(out.fd, p + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      s = zsi_error(ZS_ERR_IO, "%s: writing the output failed: %s", path,
                    n < 0 ? strerror(errno) : "no progress");
      zsi_output_abort(&out);
      return s;
    }
    done += (size_t)n;
  }
  return zsi_output_commit(&out);
}

zs_status zs_vans_read(zs_vans **out, const char *path) {
  if (!out || !path) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vans_read: out or path is NULL");
  uint8_t *d;
  size_t n;
  zs_status s = read_file(path, &d, &n);
  if (s != ZS_OK) return s;
  s = zs_vans_read_memory(out, d, n);
  free(d);
  return s == ZS_OK ? s : zsi_error_prefix(s, "%s", path);
}

zs_status zs_vans_write(const zs_vans *V, const char *path) {
  if (!V || !path) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vans_write: V or path is NULL");
  void *d;
  size_t n;
  zs_status s = zs_vans_write_memory(V, &d, &n);
  if (s != ZS_OK) return s;
  s = write_file(path, d, n);
  free(d);
  return s;
}

/* ---- the baseline file (Appendix A): plain int8, column-major ---- */

zs_status zs_vans_write_baseline(const zs_vans *V, const char *path) {
  if (!V || !path)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vans_write_baseline: V or path is NULL");
  if (V->flags & ZS_VANS_PER_ROW)
    return zsi_error(ZS_ERR_UNSUPPORTED,
                     "vans: the baseline file holds one scale per layer, "
                     "this chain has row scales");
  uint64_t total = 8 + V->n0 + (3 - (V->n0 + 3) % 4), big = 0;
  for (uint32_t k = 0; k < V->k; k++) {
    const uint64_t e = (uint64_t)V->layers[k].rows * V->layers[k].cols;
    total += 12 + e + e % 2;
    if (e > big) big = e;
  }
  wbuf b = {malloc((size_t)total), 0};
  int8_t *w = zsi_alloc(big), *col = zsi_alloc(big);
  zs_status s = ZS_OK;
  if (!b.p || !w || !col) {
    s = zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: %llu-byte baseline file", (unsigned long long)total);
    goto done;
  }
  put32(&b, V->k);
  put_v0(&b, V);
  for (uint32_t k = 0; k < V->k; k++) {
    const zsi_vans_layer *L = &V->layers[k];
    put_layer_head(&b, L);
    zs_vans_layer_decode(V, (int)k, w);
    for (uint64_t j = 0; j < L->cols; j++)
      for (uint64_t i = 0; i < L->rows; i++) col[j * L->rows + i] = w[i * L->cols + j];
    const uint64_t e = (uint64_t)L->rows * L->cols;
    put(&b, col, e);
    put(&b, NULL, e % 2);
  }
  s = write_file(path, b.p, b.n);
done:
  free(b.p);
  zsi_free(w);
  zsi_free(col);
  return s;
}

zs_status zs_vans_read_baseline(zs_vans **out, const char *path, unsigned flags) {
  if (!out || !path)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vans_read_baseline: out or path is NULL");
  uint8_t *d;
  size_t n;
  zs_status s = read_file(path, &d, &n);
  if (s != ZS_OK) return s;
  rbuf r = {d, n, 0};
  const void *p = NULL;
  zs_vans *V = NULL;
  int8_t *w = NULL;
  float *scales = NULL;
  TAKE(8, p, -1, "baseline header (K, N_0)");
  const uint32_t K = get32(p), n0 = get32((const uint8_t *)p + 4);
  if (K < 1 || K > ZS_VANS_MAX_LAYERS) {
    s = zsi_error(ZS_ERR_CORRUPT, "vans: baseline K = %u outside 1..%d", K, ZS_VANS_MAX_LAYERS);
    goto fail_status;
  }
  if ((s = take_v0(&r, n0, flags, &V)) != ZS_OK) goto fail_status;
  for (uint32_t k = 0; k < K; k++) {
    TAKE(12, p, (int)k, "N_{k+1}, N_k, delta");
    const uint32_t rows = get32(p), cols = get32((const uint8_t *)p + 4);
    const float delta = getf((const uint8_t *)p + 8);
    if ((s = check_dims(rows, (int)k, "N_{k+1} (rows)")) != ZS_OK) goto fail_status;
    if (cols != zs_vans_dim(V, (int)k)) {
      s = zsi_error(ZS_ERR_CORRUPT, "vans: baseline layer %u: N_k = %u, the vector has %lld", k,
                    cols, (long long)zs_vans_dim(V, (int)k));
      goto fail_status;
    }
    const uint64_t e = (uint64_t)rows * cols;
    TAKE(e, p, (int)k, "weights");
    zsi_free(w);
    zsi_free(scales);
    w = zsi_alloc(e);
    scales = zsi_alloc_array(rows, 4);
    if (!w || !scales) {
      s = zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: baseline layer %u", k);
      goto fail_status;
    }
    const int8_t *cm = p;
    for (uint64_t j = 0; j < cols; j++)
      for (uint64_t i = 0; i < rows; i++) w[i * cols + j] = cm[j * rows + i];
    for (uint32_t i = 0; i < rows; i++) scales[i] = delta;
    if ((s = zs_vans_add_layer_int8(V, rows, w, scales)) != ZS_OK) {
      zsi_error_prefix(s, "%s: baseline layer %u", path, k);
      goto fail_status;
    }
    if ((s = take_pad(&r, e % 2, (int)k, "weights padding")) != ZS_OK) goto fail_status;
  }
  if (r.off != r.n) {
    s = zsi_error(ZS_ERR_CORRUPT, "vans: %zu bytes after the last baseline layer", r.n - r.off);
    goto fail_status;
  }
  free(d);
  zsi_free(w);
  zsi_free(scales);
  *out = V;
  return ZS_OK;
fail_status:
  if (s == ZS_ERR_CORRUPT) zsi_error_prefix(s, "%s", path);
  free(d);
  zsi_free(w);
  zsi_free(scales);
  zs_vans_destroy(&V);
  return s;
}
