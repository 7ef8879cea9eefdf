/* mtx_read.c — Matrix Market reader (.mtx and .mtx.gz): chunked reads, exact number parsing, every
 * error naming the file and line. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "core/io/byte_source.h"
#include "core/zs_internal.h"

/* Large reads keep the per-call cost of zlib and the kernel negligible next to parsing; a small
 * file gets buffers of about its size (4 MiB of line buffer and zlib's 3 MiB for a 100-byte file
 * cost more than reading it: the fuzz target ran at ~50 files/s under the sanitizers). */
#define MTX_CHUNK ((size_t)4 << 20)
#define MTX_SMALL_CHUNK ((size_t)64 << 10)
/* A line this long is not a Matrix Market line; refusing it bounds the buffer. */
#define MTX_MAX_LINE ((size_t)64 << 20)

typedef struct mtx_reader {
  const char *path;
  zsi_source src;
  int open;
  char *buf; /* cap + 1 bytes: buf[end] is always '\n', so every line ends at a newline */
  size_t cap, pos, end;
  int eof;
  int64_t line; /* number of the line being handled (1-based) */
  /* Comment and blank lines among the entries, ascending: with them an entry's line number is
   * known without storing one per entry. */
  int64_t *skipped, n_skipped, cap_skipped;
  zsi_progress progress;
} mtx_reader;

typedef struct mtx_header {
  int dense; /* array */
  zs_mm_field field;
  zs_mm_symmetry symmetry;
  int64_t rows, cols, declared; /* declared: entries the file must hold */
  int64_t size_line;
} mtx_header;

/* COO triplets as they are read; grown by doubling up to the declared count so a file that lies
 * about its size cannot make us allocate memory it does not fill. */
typedef struct mtx_entries {
  int64_t *row, *col;
  void *val; /* NULL for pattern files */
  size_t es;
  int64_t n, cap;
} mtx_entries;

static zs_status fail(const mtx_reader *r, zs_status s, const char *fmt, ...) ZSI_PRINTF(3, 4);
static zs_status fail(const mtx_reader *r, zs_status s, const char *fmt, ...) {
  char msg[640];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return zsi_error(s, "%s:%" PRId64 ": %s", r->path, r->line, msg);
}

static inline int is_ws(char c) {
  /* space, \t, \n, \v, \f, \r ('\n' only ever appears as a line's end) */
  return c == ' ' || (unsigned char)(c - '\t') <= 4;
}

static inline char *skip_ws(char *p, const char *e) {
  while (p < e && is_ws(*p)) p++;
  return p;
}

static char *token_end(char *p, const char *e) {
  while (p < e && !is_ws(*p)) p++;
  return p;
}

/* Refuse the token starting at p: quote it (escaped, shortened) or say it holds a NUL byte. */
static zs_status bad_token(const mtx_reader *r, char *p, const char *e, const char *expected) {
  const char *t = token_end(p, e);
  if (memchr(p, '\0', (size_t)(t - p)))
    return fail(r, ZS_ERR_PARSE, "embedded NUL byte where %s was expected", expected);
  char q[80];
  size_t n = 0;
  for (const char *c = p; c < t && n < 60; c++) {
    unsigned char u = (unsigned char)*c;
    if (u >= 0x20 && u < 0x7f && u != '"')
      q[n++] = (char)u;
    else
      n += (size_t)snprintf(q + n, sizeof q - n, "\\x%02x", u);
  }
  q[n] = '\0';
  return fail(r, ZS_ERR_PARSE, "expected %s, found \"%s%s\"", expected, q, t - p > 60 ? "..." : "");
}

/* Fetch more bytes after the unfinished line at pos; 1 ok, 0 nothing more, or an error status
 * (negative, message set). */
static int refill(mtx_reader *r) {
  size_t keep = r->end - r->pos;
  if (r->pos > 0) {
    memmove(r->buf, r->buf + r->pos, keep);
    r->pos = 0, r->end = keep;
  }
  if (r->end == r->cap) {
    if (r->cap >= MTX_MAX_LINE)
      return fail(r, ZS_ERR_PARSE, "line longer than %zu MiB", MTX_MAX_LINE >> 20);
    char *nb = realloc(r->buf, 2 * r->cap + 1);
    if (!nb) return fail(r, ZS_ERR_OUT_OF_MEMORY, "no memory for a %zu-byte line", r->cap);
    r->buf = nb, r->cap *= 2;
  }
  const long n = zsi_source_read(&r->src, r->buf + r->end, r->cap - r->end);
  if (n < 0) return fail(r, r->src.status, "%s", r->src.why);
  if (n == 0) {
    r->eof = 1;
    return 0;
  }
  r->end += (size_t)n;
  r->buf[r->end] = '\n';
  zsi_progress_update(&r->progress, r->src.raw_bytes);
  return 1;
}

/* Next line as [*b, *e) with *e == '\n': 1 ok, 0 end of file, or an error status. Advances
 * r->line. */
static int next_line(mtx_reader *r, char **b, char **e) {
  r->line++;
  for (;;) {
    char *s = r->buf + r->pos;
    char *nl = memchr(s, '\n', r->end - r->pos);
    if (nl) {
      *b = s, *e = nl;
      r->pos = (size_t)(nl - r->buf) + 1;
      return 1;
    }
    if (r->eof) {
      if (r->pos == r->end) return 0;
      *b = s, *e = r->buf + r->end; /* last line without a newline: the sentinel ends it */
      r->pos = r->end;
      return 1;
    }
    int got = refill(r);
    if (got < 0) return got;
  }
}

/* A comment or blank line is skipped anywhere after the banner; 1 if [b, e) is one. */
static int skippable(const mtx_reader *r, char *b, const char *e, zs_status *s) {
  char *p = skip_ws(b, e);
  if (p < e && *p != '%') return 0;
  if (memchr(b, '\0', (size_t)(e - b)))
    *s = fail(r, ZS_ERR_PARSE, "embedded NUL byte in a comment or blank line");
  return 1;
}

/* Non-negative decimal integer token ending at whitespace or e. */
static inline zs_status parse_count(const mtx_reader *r, char **pp, const char *e, const char *what,
                                    int64_t *out) {
  char *p = skip_ws(*pp, e);
  if (p == e) return fail(r, ZS_ERR_PARSE, "missing %s", what);
  char *start = p;
  if (*p == '+') p++;
  if ((unsigned char)(*p - '0') > 9) {
    if (*p == '-' && (unsigned char)(p[1] - '0') <= 9)
      return fail(r, ZS_ERR_PARSE, "%s is negative", what);
    return bad_token(r, start, e, what);
  }
  uint64_t v = 0;
  for (; (unsigned char)(*p - '0') <= 9; p++) {
    uint64_t d = (uint64_t)(*p - '0');
    if (v > ((uint64_t)INT64_MAX - d) / 10) {
      return fail(r, ZS_ERR_OVERFLOW, "%s does not fit in a 64-bit integer", what);
    }
    v = v * 10 + d;
  }
  if (p < e && !is_ws(*p)) return bad_token(r, start, e, what);
  *pp = p;
  *out = (int64_t)v;
  return ZS_OK;
}

/* Signed decimal integer token (values of `integer` files). */
static zs_status parse_int_value(const mtx_reader *r, char **pp, const char *e, int64_t *out) {
  char *p = skip_ws(*pp, e);
  if (p == e) return fail(r, ZS_ERR_PARSE, "missing value");
  char *start = p;
  int neg = *p == '-';
  if (*p == '-' || *p == '+') p++;
  if ((unsigned char)(*p - '0') > 9) return bad_token(r, start, e, "an integer value");
  uint64_t v = 0, lim = (uint64_t)INT64_MAX + (uint64_t)neg;
  for (; (unsigned char)(*p - '0') <= 9; p++) {
    uint64_t d = (uint64_t)(*p - '0');
    if (v > (lim - d) / 10)
      return fail(r, ZS_ERR_OVERFLOW, "integer value does not fit in 64 bits");
    v = v * 10 + d;
  }
  if (p < e && !is_ws(*p)) return bad_token(r, start, e, "an integer value");
  *pp = p;
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return ZS_OK;
}

static const double pow10_f64[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Exact fast path for plain decimals (Clinger): when the digits form an integer m < 2^53 and
 * |k| <= 22, m * 10^k is one correctly rounded double operation, the same result strtod gives.
 * For f32, that double is rounded again; this is exact unless the double lands on a midpoint
 * between two floats (every such midpoint is a double, and rounding is monotonic, so otherwise
 * the decimal and its double lie on the same side of every midpoint), so midpoints go to strtof.
 * The fast path's range (1e-22 .. 9e37) holds no float subnormals and no overflow. Returns 0
 * when the caller must fall back to strtod/strtof. */
static inline int fast_decimal(const char *p, const char *e, zs_type type, double *out_d,
                               float *out_f, const char **endp) {
  int neg = 0;
  if (*p == '-' || *p == '+') neg = *p++ == '-';
  uint64_t m = 0;
  int k = 0, digits = 0;
  for (; (unsigned char)(*p - '0') <= 9; p++, digits++) {
    if (m > UINT64_C(99999999999999999)) return 0;
    m = m * 10 + (uint64_t)(*p - '0');
  }
  if (*p == '.') {
    for (p++; (unsigned char)(*p - '0') <= 9; p++, digits++, k--) {
      if (m > UINT64_C(99999999999999999)) return 0;
      m = m * 10 + (uint64_t)(*p - '0');
    }
  }
  if (digits == 0) return 0;
  if (*p == 'e' || *p == 'E') {
    p++;
    int eneg = 0, x = 0, xd = 0;
    if (*p == '-' || *p == '+') eneg = *p++ == '-';
    for (; (unsigned char)(*p - '0') <= 9; p++, xd++) {
      if (xd >= 4) return 0;
      x = x * 10 + (*p - '0');
    }
    if (xd == 0) return 0;
    k += eneg ? -x : x;
  }
  if (p < e && !is_ws(*p)) return 0;
  if (m > (UINT64_C(1) << 53) || k < -22 || k > 22) return 0;
  double v = (double)m;
  v = k < 0 ? v / pow10_f64[-k] : v * pow10_f64[k];
  if (neg) v = -v;
  if (type == ZS_F32) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    if ((bits & ((UINT64_C(1) << 29) - 1)) == (UINT64_C(1) << 28)) return 0;
    *out_f = (float)v;
  } else {
    *out_d = v;
  }
  *endp = p;
  return 1;
}

/* One value token of a real or integer file, stored as `type` at dst. */
static inline zs_status parse_value(const mtx_reader *r, char **pp, const char *e,
                                    const mtx_header *h, zs_type type, unsigned flags, void *dst) {
  char *p = skip_ws(*pp, e);
  if (p == e) return fail(r, ZS_ERR_PARSE, "missing value");
  double d = 0;
  float f = 0;
  if (h->field == ZS_MM_INTEGER) {
    int64_t v = 0;
    zs_status s = parse_int_value(r, &p, e, &v);
    if (s != ZS_OK) return s;
    d = (double)v, f = (float)v;
  } else {
    const char *end;
    if (!fast_decimal(p, e, type, &d, &f, &end)) {
      const char *t = token_end(p, e);
      if (memchr(p, 'x', (size_t)(t - p)) || memchr(p, 'X', (size_t)(t - p)))
        return bad_token(r, p, e, "a decimal value (hexadecimal floats are not Matrix Market)");
      char *q;
      if (type == ZS_F64)
        d = strtod(p, &q);
      else
        f = strtof(p, &q);
      end = q;
      /* strtod stops at the '\n' that ends every line, so it never reads past e. */
      if (end == p || (end < e && !is_ws(*end))) return bad_token(r, p, e, "a value");
      if (!(flags & ZS_MATRIX_ALLOW_NONFINITE) && !isfinite(type == ZS_F64 ? d : (double)f)) {
        char tok[40];
        size_t n = (size_t)(end - p) < sizeof tok - 1 ? (size_t)(end - p) : sizeof tok - 1;
        memcpy(tok, p, n);
        tok[n] = '\0';
        return fail(r, ZS_ERR_OUT_OF_RANGE,
                    "value \"%s\" is NaN or infinite in %s (pass ZS_MATRIX_ALLOW_NONFINITE to "
                    "accept it)",
                    tok, zs_type_name(type));
      }
    }
    p = (char *)end;
  }
  if (type == ZS_F64)
    memcpy(dst, &d, sizeof d);
  else
    memcpy(dst, &f, sizeof f);
  *pp = p;
  return ZS_OK;
}

static zs_status entries_grow(const mtx_reader *r, mtx_entries *t, int64_t limit) {
  int64_t cap = t->cap < 4096 ? 4096 : 2 * t->cap;
  if (cap > limit) cap = limit;
  int64_t *row = realloc(t->row, (size_t)cap * sizeof *row);
  if (row) t->row = row;
  int64_t *col = row ? realloc(t->col, (size_t)cap * sizeof *col) : NULL;
  if (col) t->col = col;
  void *val = t->val;
  if (col && t->es) val = realloc(t->val, (size_t)cap * t->es);
  if (!row || !col || (t->es && !val))
    return fail(r, ZS_ERR_OUT_OF_MEMORY, "no memory for %" PRId64 " entries", cap);
  t->val = t->es ? val : NULL;
  t->cap = cap;
  return ZS_OK;
}

static void entries_free(mtx_entries *t) {
  free(t->row), free(t->col), free(t->val);
  memset(t, 0, sizeof *t);
}

/* Case-insensitive comparison of [b, e) with a lower-case word. */
static int word_is(const char *b, const char *e, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(e - b) != n) return 0;
  for (size_t i = 0; i < n; i++) {
    char c = b[i];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c != word[i]) return 0;
  }
  return 1;
}

static zs_status parse_banner(mtx_reader *r, mtx_header *h) {
  char *b, *e;
  int got = next_line(r, &b, &e);
  if (got < 0) return (zs_status)got;
  if (got == 0) return fail(r, ZS_ERR_PARSE, "empty file: expected the %%%%MatrixMarket banner");
  if (e - b >= 7 && memcmp(b, "ZSPARSE", 7) == 0)
    return fail(r, ZS_ERR_PARSE,
                "this is a .zsm container, not Matrix Market; a container is read from a "
                "regular file (save it to one and give its name)");
  if (memchr(b, '\0', (size_t)(e - b)))
    return fail(r, ZS_ERR_PARSE, "embedded NUL byte in the banner");
  char *tb[6], *te[6];
  int n = 0;
  for (char *p = skip_ws(b, e); p < e && n < 6; p = skip_ws(p, e)) {
    tb[n] = p;
    p = token_end(p, e);
    te[n++] = p;
  }
  if (n == 0 || !word_is(tb[0], te[0], "%%matrixmarket"))
    return fail(r, ZS_ERR_PARSE, "missing %%%%MatrixMarket banner on the first line");
  if (n < 5)
    return fail(r, ZS_ERR_PARSE,
                "banner has %d fields, expected \"%%%%MatrixMarket matrix <format> <field> "
                "<symmetry>\"",
                n);
  if (n > 5)
    return fail(r, ZS_ERR_PARSE, "unexpected \"%.*s\" after the banner's symmetry field",
                (int)(te[5] - tb[5] > 40 ? 40 : te[5] - tb[5]), tb[5]);
  if (!word_is(tb[1], te[1], "matrix"))
    return fail(r, ZS_ERR_PARSE, "unknown object \"%.*s\" (expected matrix)",
                (int)(te[1] - tb[1] > 40 ? 40 : te[1] - tb[1]), tb[1]);
  if (word_is(tb[2], te[2], "coordinate"))
    h->dense = 0;
  else if (word_is(tb[2], te[2], "array"))
    h->dense = 1;
  else
    return fail(r, ZS_ERR_PARSE, "unknown format \"%.*s\" (expected coordinate or array)",
                (int)(te[2] - tb[2] > 40 ? 40 : te[2] - tb[2]), tb[2]);
  int complex = 0;
  if (word_is(tb[3], te[3], "real"))
    h->field = ZS_MM_REAL;
  else if (word_is(tb[3], te[3], "integer"))
    h->field = ZS_MM_INTEGER;
  else if (word_is(tb[3], te[3], "pattern"))
    h->field = ZS_MM_PATTERN;
  else if (word_is(tb[3], te[3], "complex"))
    complex = 1;
  else
    return fail(r, ZS_ERR_PARSE,
                "unknown field \"%.*s\" (expected real, integer, pattern or complex)",
                (int)(te[3] - tb[3] > 40 ? 40 : te[3] - tb[3]), tb[3]);
  if (word_is(tb[4], te[4], "general"))
    h->symmetry = ZS_MM_GENERAL;
  else if (word_is(tb[4], te[4], "symmetric"))
    h->symmetry = ZS_MM_SYMMETRIC;
  else if (word_is(tb[4], te[4], "skew-symmetric"))
    h->symmetry = ZS_MM_SKEW_SYMMETRIC;
  else if (word_is(tb[4], te[4], "hermitian"))
    complex = 1;
  else
    return fail(r, ZS_ERR_PARSE,
                "unknown symmetry \"%.*s\" (expected general, symmetric, skew-symmetric or "
                "hermitian)",
                (int)(te[4] - tb[4] > 40 ? 40 : te[4] - tb[4]), tb[4]);
  if (complex)
    return fail(r, ZS_ERR_UNSUPPORTED, "complex matrices are not supported (%.*s %.*s)",
                (int)(te[3] - tb[3]), tb[3], (int)(te[4] - tb[4]), tb[4]);
  if (h->field == ZS_MM_PATTERN && h->dense)
    return fail(r, ZS_ERR_PARSE, "an array file cannot have the pattern field");
  if (h->field == ZS_MM_PATTERN && h->symmetry == ZS_MM_SKEW_SYMMETRIC)
    return fail(r, ZS_ERR_PARSE, "pattern skew-symmetric is not a valid combination");
  return ZS_OK;
}

static zs_status parse_size_line(mtx_reader *r, mtx_header *h) {
  char *b, *e;
  zs_status s = ZS_OK;
  for (;;) {
    int got = next_line(r, &b, &e);
    if (got < 0) return (zs_status)got;
    if (got == 0) return fail(r, ZS_ERR_PARSE, "file ends before the size line");
    if (!skippable(r, b, e, &s)) break;
    if (s != ZS_OK) return s;
  }
  h->size_line = r->line;
  char *p = b;
  if ((s = parse_count(r, &p, e, "row count", &h->rows)) != ZS_OK) return s;
  if ((s = parse_count(r, &p, e, "column count", &h->cols)) != ZS_OK) return s;
  if (!h->dense && (s = parse_count(r, &p, e, "entry count", &h->declared)) != ZS_OK) return s;
  p = skip_ws(p, e);
  if (p < e) return bad_token(r, p, e, "the end of the size line");
  if (h->rows > ZS_MAX_DIM || h->cols > ZS_MAX_DIM)
    return fail(r, ZS_ERR_OVERFLOW,
                "size %" PRId64 " x %" PRId64 " exceeds the dimension limit 2^31-1", h->rows,
                h->cols);
  if (h->symmetry != ZS_MM_GENERAL && h->rows != h->cols)
    return fail(r, ZS_ERR_PARSE, "a %s matrix must be square, not %" PRId64 " x %" PRId64,
                h->symmetry == ZS_MM_SYMMETRIC ? "symmetric" : "skew-symmetric", h->rows, h->cols);
  /* Both dimensions are below 2^31, so these products fit in 64 bits. */
  int64_t cells = h->rows * h->cols;
  if (h->dense) {
    int64_t n = h->rows;
    h->declared = h->symmetry == ZS_MM_GENERAL     ? cells
                  : h->symmetry == ZS_MM_SYMMETRIC ? n * (n + 1) / 2
                                                   : (n > 0 ? n * (n - 1) / 2 : 0);
  } else if (h->declared > cells) {
    return fail(r, ZS_ERR_OVERFLOW,
                "entry count %" PRId64 " exceeds rows x cols = %" PRId64 " of a %" PRId64
                " x %" PRId64 " matrix",
                h->declared, cells, h->rows, h->cols);
  }
  /* Mirroring may double the entries; keep the result within the nnz limit. */
  int64_t bound = h->symmetry == ZS_MM_GENERAL ? h->declared : 2 * h->declared;
  if (bound > ZS_MAX_NNZ)
    return fail(r, ZS_ERR_OVERFLOW, "%" PRId64 " entries exceed the nnz limit 2^62", bound);
  return ZS_OK;
}

/* Index token in 1..limit (1-based in the file), returned 0-based. */
static inline zs_status parse_index(const mtx_reader *r, char **p, const char *e, const char *what,
                                    int64_t limit, int64_t *out) {
  int64_t v = 0;
  zs_status s = parse_count(r, p, e, what, &v);
  if (s != ZS_OK) return s;
  if (v < 1 || v > limit)
    return fail(r, ZS_ERR_OUT_OF_RANGE, "%s %" PRId64 " is outside 1..%" PRId64, what, v, limit);
  *out = v - 1;
  return ZS_OK;
}

static zs_status note_skipped(mtx_reader *r) {
  if (r->n_skipped == r->cap_skipped) {
    const int64_t cap = r->cap_skipped ? 2 * r->cap_skipped : 16;
    int64_t *n = realloc(r->skipped, (size_t)cap * sizeof *n);
    if (!n) return fail(r, ZS_ERR_OUT_OF_MEMORY, "out of memory noting comment lines");
    r->skipped = n, r->cap_skipped = cap;
  }
  r->skipped[r->n_skipped++] = r->line;
  return ZS_OK;
}

/* The line of entry k (0-based, in file order). */
static int64_t entry_line(const mtx_reader *r, const mtx_header *h, int64_t k) {
  int64_t line = h->size_line + 1 + k;
  for (int64_t n = 0; n < r->n_skipped && r->skipped[n] <= line; n++) line++;
  return line;
}

static zs_status read_entries(mtx_reader *r, const mtx_header *h, zs_type type, unsigned flags,
                              mtx_entries *t, int64_t *offdiag) {
  char *b, *e;
  zs_status s = ZS_OK;
  int64_t di = 0, dj = 0; /* next position of an array file (column-major) */
  if (h->dense && h->symmetry == ZS_MM_SKEW_SYMMETRIC) di = 1;
  for (;;) {
    int got = next_line(r, &b, &e);
    if (got < 0) return (zs_status)got;
    if (got == 0) break;
    if (skippable(r, b, e, &s)) {
      if (s != ZS_OK) return s;
      if ((s = note_skipped(r)) != ZS_OK) return s;
      continue;
    }
    if (t->n == h->declared)
      return fail(r, ZS_ERR_PARSE, "more entries than the %" PRId64 " declared on line %" PRId64,
                  h->declared, h->size_line);
    if (t->n == t->cap && (s = entries_grow(r, t, h->declared)) != ZS_OK) return s;
    char *p = b;
    int64_t i = 0, j = 0;
    if (h->dense) {
      i = di, j = dj;
      if (++di == h->rows) {
        dj++;
        di = h->symmetry == ZS_MM_GENERAL ? 0 : h->symmetry == ZS_MM_SYMMETRIC ? dj : dj + 1;
      }
    } else {
      if ((s = parse_index(r, &p, e, "row index", h->rows, &i)) != ZS_OK) return s;
      if ((s = parse_index(r, &p, e, "column index", h->cols, &j)) != ZS_OK) return s;
      if (h->symmetry == ZS_MM_SKEW_SYMMETRIC && i == j)
        return fail(r, ZS_ERR_PARSE,
                    "diagonal entry (%" PRId64 ", %" PRId64
                    ") in a skew-symmetric matrix, whose diagonal is zero",
                    i + 1, j + 1);
    }
    if (h->field != ZS_MM_PATTERN &&
        (s = parse_value(r, &p, e, h, type, flags, (char *)t->val + (size_t)t->n * t->es)) != ZS_OK)
      return s;
    p = skip_ws(p, e);
    if (p < e) return bad_token(r, p, e, "the end of the entry");
    t->row[t->n] = i, t->col[t->n] = j;
    t->n++;
    *offdiag += i != j;
  }
  if (t->n < h->declared)
    return fail(r, ZS_ERR_PARSE,
                "file ends after %" PRId64 " of the %" PRId64 " entries declared on line %" PRId64,
                t->n, h->declared, h->size_line);
  return ZS_OK;
}

typedef struct pair_key {
  uint64_t key; /* min(i, j) << 31 | max(i, j): both below 2^31 */
  int64_t k;    /* entry index, file order */
} pair_key;

static int pair_key_cmp(const void *a, const void *b) {
  const pair_key *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->k > y->k) - (x->k < y->k);
}

/* A symmetric or skew-symmetric file stores one of (i, j) and (j, i), never both: mirroring
 * both would double the value (or cancel it, skew). Which triangle a file uses is free, so the
 * costly search runs only when both triangles appear. */
static zs_status check_one_triangle(mtx_reader *r, const mtx_header *h, const mtx_entries *t,
                                    int64_t offdiag) {
  if (h->symmetry == ZS_MM_GENERAL || h->dense || offdiag == 0) return ZS_OK;
  int64_t lower = 0;
  for (int64_t k = 0; k < t->n; k++) lower += t->row[k] > t->col[k];
  if (lower == 0 || lower == offdiag) return ZS_OK;
  pair_key *p = zsi_alloc_array((uint64_t)offdiag, sizeof *p);
  if (!p)
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "%s: out of memory checking %" PRId64 " entries",
                     r->path, offdiag);
  int64_t n = 0;
  for (int64_t k = 0; k < t->n; k++) {
    const int64_t i = t->row[k], j = t->col[k];
    if (i != j) p[n++] = (pair_key){(uint64_t)(i < j ? i : j) << 31 | (uint64_t)(i < j ? j : i), k};
  }
  qsort(p, (size_t)n, sizeof *p, pair_key_cmp);
  int64_t bad = -1, first = -1; /* the later of a mirrored pair, earliest in the file */
  for (int64_t a = 0, b; a < n; a = b) {
    int64_t lo = -1, up = -1; /* first entry of each orientation in this group */
    for (b = a; b < n && p[b].key == p[a].key; b++) {
      const int64_t k = p[b].k;
      if (t->row[k] > t->col[k] && lo < 0) lo = k;
      if (t->row[k] < t->col[k] && up < 0) up = k;
    }
    if (lo >= 0 && up >= 0 && (bad < 0 || (lo > up ? lo : up) < bad))
      bad = lo > up ? lo : up, first = lo > up ? up : lo;
  }
  zsi_free(p);
  if (bad < 0) return ZS_OK;
  const int64_t first_line = entry_line(r, h, first);
  r->line = entry_line(r, h, bad);
  return fail(r, ZS_ERR_PARSE,
              "entry (%" PRId64 ", %" PRId64 ") mirrors (%" PRId64 ", %" PRId64 ") on line %" PRId64
              ": a %s file stores only one triangle",
              t->row[bad] + 1, t->col[bad] + 1, t->row[first] + 1, t->col[first] + 1, first_line,
              h->symmetry == ZS_MM_SYMMETRIC ? "symmetric" : "skew-symmetric");
}

/* Append the transposed copy of every off-diagonal entry (negated for skew-symmetric). */
static zs_status mirror(const mtx_reader *r, const mtx_header *h, zs_type type, mtx_entries *t,
                        int64_t offdiag) {
  if (h->symmetry == ZS_MM_GENERAL || offdiag == 0) return ZS_OK;
  int64_t total = t->n + offdiag;
  int64_t *row = realloc(t->row, (size_t)total * sizeof *row);
  if (row) t->row = row;
  int64_t *col = row ? realloc(t->col, (size_t)total * sizeof *col) : NULL;
  if (col) t->col = col;
  void *val = t->val;
  if (col && t->es) val = realloc(t->val, (size_t)total * t->es);
  if (!row || !col || (t->es && !val))
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "%s: no memory to mirror %" PRId64 " entries", r->path,
                     offdiag);
  t->val = t->es ? val : NULL;
  t->cap = total;
  const int neg = h->symmetry == ZS_MM_SKEW_SYMMETRIC;
  int64_t w = t->n;
  for (int64_t k = 0; k < t->n; k++) {
    if (t->row[k] == t->col[k]) continue;
    t->row[w] = t->col[k], t->col[w] = t->row[k];
    if (type == ZS_F64 && t->val) {
      double *v = t->val;
      v[w] = neg ? -v[k] : v[k];
    } else if (t->val) {
      float *v = t->val;
      v[w] = neg ? -v[k] : v[k];
    }
    w++;
  }
  t->n = w;
  return ZS_OK;
}

zs_status zs_matrix_read(zs_matrix **out, const char *path, zs_type type, unsigned flags,
                         zs_mm_info *info, int progress) {
  if (!out || !path)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_matrix_read: out or path is NULL");
  if (type != ZS_F32 && type != ZS_F64)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "zs_matrix_read: %s: value type %d is neither f32 "
                     "nor f64",
                     path, (int)type);
  mtx_reader r = {.path = path};
  struct stat st;
  const int regular = strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
  const uint64_t file_bytes = regular ? (uint64_t)st.st_size : 0; /* 0: a pipe, say */
  r.cap = MTX_CHUNK;
  if (regular && file_bytes < MTX_SMALL_CHUNK) r.cap = MTX_SMALL_CHUNK; /* grows for a line */
  zs_status s = zsi_source_open(&r.src, path, r.cap / 4);
  if (s != ZS_OK) return s;
  r.open = 1;
  r.buf = malloc(r.cap + 1);
  mtx_entries t = {0};
  if (!r.buf) {
    zsi_source_close(&r.src);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "%s: out of memory for the read buffer", path);
  }
  r.buf[0] = '\n';
  zsi_progress_begin(&r.progress, path, file_bytes, progress);
  mtx_header h = {0};
  int64_t offdiag = 0;
  if ((s = parse_banner(&r, &h)) != ZS_OK || (s = parse_size_line(&r, &h)) != ZS_OK) goto done;
  t.es = h.field == ZS_MM_PATTERN ? 0 : zs_type_size(type);
  if ((s = read_entries(&r, &h, type, flags, &t, &offdiag)) != ZS_OK) goto done;
  if ((s = check_one_triangle(&r, &h, &t, offdiag)) != ZS_OK) goto done;
  const int64_t stored = t.n;
  zsi_source_close(&r.src), r.open = 0;
  free(r.buf), r.buf = NULL;
  if ((s = mirror(&r, &h, type, &t, offdiag)) != ZS_OK) goto done;
  zs_matrix *A = NULL;
  s = zs_matrix_from_coo(&A, h.rows, h.cols, t.n, t.row, t.col, t.val, type, flags);
  if (s != ZS_OK) {
    /* Entries were range- and value-checked per line above, so what is left is memory or a
     * limit: name the file. */
    zsi_error_prefix(s, "%s", path);
    goto done;
  }
  *out = A;
  if (info) {
    info->field = h.field;
    info->symmetry = h.symmetry;
    info->dense = h.dense;
    info->entries_stored = stored;
  }
done:
  zsi_progress_end(&r.progress);
  if (r.open) zsi_source_close(&r.src);
  free(r.buf);
  free(r.skipped);
  entries_free(&t);
  return s;
}
