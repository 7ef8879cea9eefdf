/* test_dtans5.c — CSR-dtANS version 5 (template and packed rows): round trips in every value mode,
 * the encoder's choices and refusals, and every damaged array or parameter refused by name. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/zs_internal.h"
#include "formats/dtans/dtans.h"
#include "tests/common/blob_parts.h"
#include "tests/common/check.h"
#include "tests/common/generated.h"
#include "tests/common/same_matrix.h"

/* Encode with options, validate, decode and compare; the blob (NULL on failure). */
static zs_encoded *round_trip(const char *label, const zs_matrix *A, const char *options) {
  zs_encoded *E = NULL;
  zs_matrix *B = NULL;
  zs_status s = zs_encode(&E, A, ZS_FORMAT_DTANS, options);
  if (s != ZS_OK) {
    fprintf(stderr, "%s [%s]: encode: %s: %s\n", label, options, zs_status_name(s),
            zs_last_error());
    check_failures++;
    return NULL;
  }
  const zsi_format_ops *f = zsi_format_lookup(ZS_FORMAT_DTANS);
  if ((s = f->validate(E)) != ZS_OK || (s = zs_decode(&B, E)) != ZS_OK) {
    fprintf(stderr, "%s [%s]: validate/decode: %s: %s\n", label, options, zs_status_name(s),
            zs_last_error());
    check_failures++;
  } else if (!zs_test_same_matrix(A, B)) {
    fprintf(stderr, "%s [%s]: decoded matrix differs from the input\n", label, options);
    check_failures++;
  }
  zs_matrix_destroy(&B);
  return E;
}

/* Every generator that has template rows, each value mode forced and chosen, long rows apart. */
static void round_trips(void) {
  static const struct {
    const char *spec;
    int templates; /* distinct row patterns the encoder must find */
  } cases[] = {
      {"stencil2d:n=37,points=5,values=random,seed=3", 9},
      {"stencil2d:n=33,points=9,values=set,distinct=300", 9},
      {"stencil3d:n=9,points=7,values=pattern", 27},
      {"stencil3d:n=11,points=27,values=set,distinct=64", 27},
      {"elasticity3d:n=5,values=set,distinct=5", 81},
  };
  static const struct {
    const char *options;
    int mode; /* the value mode it must give; 0: the values decide */
  } opts[] = {
      {"templates=on", 0},
      {"templates=on,values=raw", DTANS5_VALUES_RAW},
      {"values=packed", DTANS5_VALUES_PACKED},
      {"templates=on,long_rows=20", 0},
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
    for (int ti = 0; ti < 2; ti++) {
      zs_matrix *A = zs_test_generate(cases[c].spec, ti ? ZS_F32 : ZS_F64);
      if (!A) continue;
      for (size_t o = 0; o < sizeof opts / sizeof *opts; o++) {
        const int pattern = strstr(cases[c].spec, "pattern") != NULL;
        if (pattern && opts[o].mode == DTANS5_VALUES_PACKED) continue; /* one value */
        zs_encoded *E = round_trip(cases[c].spec, A, opts[o].options);
        if (!E) continue;
        CHECK(zs_test_param(E, "version") == DTANS_VERSION_TEMPLATES);
        const int64_t mode = zs_test_param(E, "value_mode");
        if (opts[o].mode) CHECK(mode == opts[o].mode);
        if (!opts[o].mode && pattern) CHECK(mode == DTANS5_VALUES_CONSTANT);
        if (!strstr(opts[o].options, "long_rows"))
          CHECK(zs_test_param(E, "templates") == cases[c].templates);
        zs_encoded_destroy(&E);
      }
      zs_matrix_destroy(&A);
    }
}

/* templates=auto keeps the smaller of version 5 and the stream versions; matrices whose rows
 * need more than 65535 templates keep the streams. */
static void auto_choice(void) {
  static const char *const specs[] = {"stencil3d:n=20,points=27,values=set,distinct=64",
                                      "stencil2d:n=150,points=5,values=random",
                                      "stencil2d:n=150,points=9,values=pattern",
                                      "erdos_renyi:rows=70000,per_row=4,values=set,distinct=8",
                                      "banded:rows=2000,width=16,per_row=5,values=random"};
  for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
    zs_matrix *A = zs_test_generate(specs[i], ZS_F64);
    if (!A) continue;
    zs_encoded *E = round_trip(specs[i], A, NULL), *F = round_trip(specs[i], A, "templates=off");
    zs_encoded *G = NULL;
    const zs_status s = zs_encode(&G, A, ZS_FORMAT_DTANS, "templates=on");
    CHECK_STATUS(s, ZS_OK);
    if (E && F && G) {
      const uint64_t five = zs_test_param(G, "version") == 5 ? zs_test_array_bytes(G) : UINT64_MAX;
      const uint64_t want = five <= zs_test_array_bytes(F) ? five : zs_test_array_bytes(F);
      printf("%-56s v5 %" PRIu64 " B, v2-4 %" PRIu64 " B, auto %" PRIu64 " B (version %" PRId64
             ")\n",
             specs[i], five == UINT64_MAX ? 0 : five, zs_test_array_bytes(F),
             zs_test_array_bytes(E), zs_test_param(E, "version"));
      CHECK(zs_test_array_bytes(E) == want);
      CHECK(zs_test_param(F, "version") < DTANS_VERSION_TEMPLATES);
      if (strstr(specs[i], "stencil"))
        CHECK(zs_test_param(E, "version") == DTANS_VERSION_TEMPLATES);
      if (strstr(specs[i], "erdos")) CHECK(zs_test_param(G, "version") < DTANS_VERSION_TEMPLATES);
    }
    zs_encoded_destroy(&E), zs_encoded_destroy(&F), zs_encoded_destroy(&G);
    zs_matrix_destroy(&A);
  }
}

/* Options that cannot meet: refused with ZS_ERR_INVALID_ARGUMENT. */
static void refusals(void) {
  zs_matrix *A = zs_test_generate("stencil2d:n=20,points=5,values=random", ZS_F64);
  zs_matrix *P = zs_test_generate("stencil2d:n=20,points=5,values=pattern", ZS_F64);
  zs_matrix *R = zs_test_generate("erdos_renyi:rows=70000,per_row=3,values=set,distinct=4", ZS_F64);
  static const char *const bad[] = {
      "values=packed,templates=off",      "row_kind=packed,templates=off",
      "row_kind=packed,values=joint",     "row_kind=rows",
      "templates=on,values=joint",        "templates=on,values=coded",
      "templates=on,columns=raw",         "templates=on,row_order=length",
      "templates=on,col_order=frequency", "templates=maybe",
      "templates=on,values=constant"};
  for (size_t i = 0; A && i < sizeof bad / sizeof *bad; i++) {
    zs_encoded *E = NULL;
    CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_DTANS, bad[i]), ZS_ERR_INVALID_ARGUMENT);
    zs_encoded_destroy(&E);
  }
  zs_encoded *E = NULL;
  if (P) CHECK_STATUS(zs_encode(&E, P, ZS_FORMAT_DTANS, "values=packed"), ZS_ERR_INVALID_ARGUMENT);
  zs_encoded_destroy(&E);
  if (R) CHECK_STATUS(zs_encode(&E, R, ZS_FORMAT_DTANS, "values=packed"), ZS_ERR_INVALID_ARGUMENT);
  zs_encoded_destroy(&E);
  zs_matrix_destroy(&A), zs_matrix_destroy(&P), zs_matrix_destroy(&R);
}

/* Edge shapes: empty, no entries, one row, all rows long, empty rows between full ones. */
static void edges(void) {
  static const struct {
    int64_t rows, cols, n;
    int64_t r[6], c[6];
    const char *options;
  } cases[] = {
      {0, 5, 0, {0}, {0}, "templates=on"},
      {7, 0, 0, {0}, {0}, "templates=on"},
      {40, 30, 0, {0}, {0}, "templates=on"},
      {1, 1, 1, {0}, {0}, "templates=on"},
      {3, 301, 4, {0, 0, 1, 2}, {0, 300, 5, 299}, "templates=on,long_rows=1"},
      {70, 70, 5, {0, 33, 34, 35, 69}, {0, 1, 2, 69, 0}, "templates=on,values=raw"},
      {70, 70, 6, {0, 33, 34, 35, 69, 69}, {0, 1, 2, 69, 0, 1}, "values=packed"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const double v[6] = {1.5, -2, 3, 1.5, 0.25, -2};
    zs_matrix *A = NULL;
    CHECK_STATUS(zs_matrix_from_coo(&A, cases[i].rows, cases[i].cols, cases[i].n, cases[i].r,
                                    cases[i].c, v, ZS_F64, 0),
                 ZS_OK);
    zs_encoded *E = A ? round_trip("edge", A, cases[i].options) : NULL;
    if (E) CHECK(zs_test_param(E, "version") == DTANS_VERSION_TEMPLATES);
    zs_encoded_destroy(&E);
    zs_matrix_destroy(&A);
  }
}

static zs_status validate(const zs_encoded *E) {
  return zsi_format_lookup(ZS_FORMAT_DTANS)->validate(E);
}

/* Refused, ZS_ERR_CORRUPT, with a message naming `name`. */
static void refused(const zs_encoded *E, const char *what, const char *name) {
  const zs_status s = validate(E);
  if (s != ZS_ERR_CORRUPT || !strstr(zs_last_error(), name)) {
    fprintf(stderr, "damaged %s: validate gave %s (%s), want ZS_ERR_CORRUPT naming '%s'\n", what,
            zs_status_name(s), zs_last_error(), name);
    check_failures++;
  }
}

/* One damage at a time, undone after its check. */
static void damaged(const char *options) {
  zs_matrix *A = zs_test_generate("stencil2d:n=30,points=5,values=set,distinct=12,seed=9", ZS_F64);
  zs_encoded *E = A ? round_trip("damage", A, options) : NULL;
  if (!E) {
    zs_matrix_destroy(&A);
    return;
  }
  CHECK_STATUS(validate(E), ZS_OK);
  const int raw = zs_test_param(E, "value_mode") == DTANS5_VALUES_RAW;
  /* truncation of every array by one element */
  for (int i = 0; i < E->n_arrays; i++) {
    zsi_array *a = &E->arrays[i];
    if (a->count == 0) continue;
    a->count--;
    refused(E, "truncated array", a->name);
    a->count++;
  }
  zsi_array *tp = zs_test_array(E, "template_ptr"), *to = zs_test_array(E, "template_offsets");
  zsi_array *rt = zs_test_array(E, "row_template"), *lr = zs_test_array(E, "long_rows");
  int64_t *ptr = tp->data;
  int32_t *off = to->data;
  const int64_t p1 = ptr[1];
  ptr[1] = ptr[2] + 1, refused(E, "template_ptr decreasing", "template_ptr"), ptr[1] = p1;
  ptr[0] = 1, refused(E, "template_ptr start", "template_ptr"), ptr[0] = 0;
  const int32_t o1 = off[1];
  off[1] = off[0], refused(E, "offsets not ascending", "template_offsets"), off[1] = o1;
  /* an offset that sends a row's column past the matrix: the last offset of template 0 */
  const int32_t last = off[ptr[1] - 1];
  off[ptr[1] - 1] = INT32_MAX, refused(E, "column out of range", "column outside"),
               off[ptr[1] - 1] = last;
  uint8_t *ids = rt->data; /* 9 templates: one byte a row */
  CHECK(rt->elem_size == 1);
  const uint8_t id0 = ids[0];
  ids[0] = (uint8_t)zs_test_param(E, "templates"), refused(E, "template id", "row_template");
  ids[0] = UINT8_MAX, refused(E, "long mark without long row", "long");
  ids[0] = id0;
  CHECK(lr->count == 0);
  zsi_param *pm = zs_test_param_ref(E, "value_mode");
  const int64_t mode = pm->value;
  pm->value = 3, refused(E, "value_mode 3", "value_mode"), pm->value = 0;
  refused(E, "value_mode 0", "value_mode"), pm->value = mode;
  zsi_param *ps = zs_test_param_ref(E, "slices");
  ps->value++, refused(E, "slices", "slices"), ps->value--;
  zsi_param *pt = zs_test_param_ref(E, "templates");
  pt->value--, refused(E, "templates", "template_ptr"), pt->value++;
  zsi_array *so = zs_test_array(E, raw ? "slice_values" : "slice_value_words");
  int64_t *sv = so->data;
  sv[1]++, refused(E, "slice offset", so->name), sv[1]--;
  if (raw) {
    /* row 0 has 3 nonzeros (a corner), so its entry 4 is padding */
    double *v = zs_test_array(E, "values")->data;
    v[4 * 32] = 1, refused(E, "raw padding", "padding"), v[4 * 32] = 0;
  } else {
    uint32_t *w = zs_test_array(E, "value_words")->data;
    const int bits = dtans5_id_bits(zs_test_param(E, "value_real"));
    const uint32_t w0 = w[0];
    w[0] = w0 | ((1u << bits) - 1u); /* id 15 of 12 values */
    refused(E, "packed id", "value_real");
    w[0] = w0 | (1u << 31), refused(E, "packed padding bits", "padding"), w[0] = w0;
    zsi_param *pr = zs_test_param_ref(E, "value_real");
    const int64_t real = pr->value;
    pr->value = 1, refused(E, "value_real 1", "value_real"), pr->value = real;
  }
  CHECK_STATUS(validate(E), ZS_OK);
  zs_encoded_destroy(&E);
  zs_matrix_destroy(&A);
}

/* Long rows beside the templates: a row marked long that long_rows does not list, and back. */
static void damaged_long_rows(void) {
  zs_matrix *A = zs_test_generate("stencil2d:n=30,points=9,values=random", ZS_F32);
  zs_encoded *E = A ? round_trip("long rows", A, "templates=on,long_rows=8") : NULL;
  if (E) {
    zsi_array *lr = zs_test_array(E, "long_rows"), *lc = zs_test_array(E, "long_cols");
    CHECK(lr->count > 0);
    int32_t *rows = lr->data, *cols = lc->data;
    const int32_t r0 = rows[0], c0 = cols[0];
    rows[0] = r0 - 1, refused(E, "long row not marked", "long_rows"), rows[0] = r0;
    cols[0] = -1, refused(E, "long column", "long_cols"), cols[0] = c0;
    CHECK_STATUS(validate(E), ZS_OK);
  }
  zs_encoded_destroy(&E);
  zs_matrix_destroy(&A);
}

/* Packed rows: rows that share no pattern, every value mode, long rows apart; the fields' bits
 * are those of the slice's largest step. */
static void packed_rows(void) {
  static const char *const specs[] = {
      "banded:rows=3000,width=128,per_row=20,values=set,distinct=64,seed=4",
      "erdos_renyi:rows=2000,cols=100000,per_row=7,values=random,seed=5",
      "rmat:scale=11,per_row=6,values=set,distinct=3,seed=6",
      "stencil2d:n=37,points=5,values=pattern",
  };
  static const char *const opts[] = {"row_kind=packed", "row_kind=packed,values=raw",
                                     "row_kind=packed,long_rows=9", "templates=on,row_kind=auto"};
  for (size_t c = 0; c < sizeof specs / sizeof *specs; c++)
    for (int ti = 0; ti < 2; ti++) {
      zs_matrix *A = zs_test_generate(specs[c], ti ? ZS_F32 : ZS_F64);
      for (size_t o = 0; A && o < sizeof opts / sizeof *opts; o++) {
        zs_encoded *E = round_trip(specs[c], A, opts[o]);
        if (!E) continue;
        CHECK(zs_test_param(E, "version") == DTANS_VERSION_TEMPLATES);
        const int auto_kind = strstr(opts[o], "auto") != NULL;
        /* auto packs rows only when the templates overflow: never on these small matrices */
        const int64_t packed = zs_test_param(E, "packed_rows"); /* -1: absent, none */
        CHECK(auto_kind
                  ? packed == -1
                  : (uint64_t)(packed < 0 ? 0 : packed) + zs_test_array(E, "long_rows")->count ==
                        (uint64_t)zs_matrix_rows(A));
        if (!auto_kind) CHECK(zs_test_param(E, "templates") == 0);
        const zsi_array *bits = zs_test_array(E, "slice_col_bits");
        if (!strstr(specs[c], "stencil") && bits && !auto_kind) {
          /* banded steps stay below 2^7, Erdős–Rényi's first columns reach past 2^14 */
          const uint8_t b = ((const uint8_t *)bits->data)[1];
          if (strstr(specs[c], "banded")) CHECK(b >= 4 && b <= 7);
          if (strstr(specs[c], "erdos")) CHECK(b >= 15 && b <= 17);
        }
        zs_encoded_destroy(&E);
      }
      zs_matrix_destroy(&A);
    }
}

/* row_kind=auto where the rows need more templates than version 5 holds: rows of a shared
 * pattern keep their template, the others (each its own pattern) become packed rows. */
static void mixed_rows(void) {
  const int64_t shared = 1000, own = 66000, rows = shared + own, cols = own + 2;
  int64_t *r = malloc((size_t)(3 * shared + 2 * own) * sizeof *r);
  int64_t *c = malloc((size_t)(3 * shared + 2 * own) * sizeof *c);
  double *v = malloc((size_t)(3 * shared + 2 * own) * sizeof *v);
  int64_t n = 0;
  for (int64_t i = 0; i < shared; i++) /* a tridiagonal block: one template */
    for (int64_t d = -1; d <= 1; d++)
      if (i + d >= 0) r[n] = i, c[n] = i + d, v[n++] = (double)(d + 2);
  for (int64_t i = shared; i < rows; i++) /* column 0 and its own: offsets -i, i - shared + 1 - i */
    r[n] = i, c[n] = 0, v[n++] = 0.5, r[n] = i, c[n] = i - shared + 1, v[n++] = 1.5;
  zs_matrix *A = NULL;
  CHECK_STATUS(zs_matrix_from_coo(&A, rows, cols, n, r, c, v, ZS_F64, 0), ZS_OK);
  zs_encoded *E = A ? round_trip("mixed", A, "row_kind=auto,templates=on") : NULL;
  if (E) {
    CHECK(zs_test_param(E, "version") == DTANS_VERSION_TEMPLATES);
    CHECK(zs_test_param(E, "templates") == 1); /* the tridiagonal rows' (row 0's is its own) */
    CHECK(zs_test_param(E, "packed_rows") == own + 1);
    CHECK(zs_test_array(E, "row_template")->elem_size == 1);
  }
  zs_encoded *F = A ? round_trip("mixed", A, "templates=on") : NULL;
  CHECK(F && zs_test_param(F, "version") < DTANS_VERSION_TEMPLATES); /* templates alone: too many */
  zs_encoded_destroy(&E), zs_encoded_destroy(&F);
  zs_matrix_destroy(&A);
  free(r), free(c), free(v);
}

/* Words of col_words in a blob (0 without packed rows). */
static uint64_t col_words_of(zs_encoded *E) {
  const zsi_array *a = zs_test_array(E, "col_words");
  return a ? a->count : 0;
}

/* Packed rows with the rows by length and the columns by count: row_perm and col_perm in the
 * blob, the decode back in the matrix's order, power-law rows packed tighter, the orders `auto`
 * takes; damaged permutations refused by name. */
static void ordered_rows(void) {
  static const char *const specs[] = {
      "rmat:scale=12,per_row=8,values=set,distinct=16,seed=3",
      "erdos_renyi:rows=3000,cols=5000,per_row=5,values=random,seed=8",
      "banded:rows=700,width=30,per_row=4,values=set,distinct=5,seed=1",
  };
  static const char *const opts[] = {
      "row_kind=packed,row_order=length",
      "row_kind=packed,col_order=frequency",
      "row_kind=packed,row_order=length,col_order=frequency",
      "row_kind=packed,row_order=length,col_order=frequency,values=raw",
      "row_kind=packed,row_order=length,long_rows=9",
      "row_kind=auto,templates=on,row_order=length",
      "row_kind=packed,row_order=auto,col_order=auto"};
  for (size_t c = 0; c < sizeof specs / sizeof *specs; c++)
    for (int ti = 0; ti < 2; ti++) {
      zs_matrix *A = zs_test_generate(specs[c], ti ? ZS_F32 : ZS_F64);
      zs_encoded *N = A ? round_trip(specs[c], A, "row_kind=packed") : NULL;
      for (size_t o = 0; N && o < sizeof opts / sizeof *opts; o++) {
        zs_encoded *E = round_trip(specs[c], A, opts[o]);
        if (!E) continue;
        CHECK(zs_test_param(E, "version") == DTANS_VERSION_TEMPLATES);
        const int rows = strstr(opts[o], "=length") != NULL;
        const int cols = strstr(opts[o], "=frequency") != NULL; /* auto: the order kept */
        CHECK((zs_test_array(E, "row_perm") != NULL) == rows);
        CHECK((zs_test_array(E, "col_perm") != NULL) == cols);
        /* R-MAT's rows by length: a slice's lanes of like lengths, far fewer padded words */
        if (rows && c == 0 && !strstr(opts[o], "auto"))
          CHECK(2 * col_words_of(E) < col_words_of(N));
        zs_encoded_destroy(&E);
      }
      zs_encoded_destroy(&N);
      zs_matrix_destroy(&A);
    }
  /* auto, packed rows alone, 2^16 rows or more: R-MAT's rows ordered (its slices' lane steps
   * fall several-fold) and its skewed columns renumbered; Erdős–Rényi's kept */
  static const struct {
    const char *spec, *options;
    int rows, cols;
  } autos[] = {
      {"rmat:scale=16,per_row=4,values=set,distinct=8,seed=2", "row_kind=packed", 1, 1},
      {"rmat:scale=16,per_row=4,values=set,distinct=8,seed=2",
       "row_kind=packed,row_order=natural,col_order=natural", 0, 0},
      {"rmat:scale=16,per_row=4,values=set,distinct=8,seed=2", "row_kind=auto,templates=on", 0, 0},
      {"erdos_renyi:rows=70000,per_row=4,values=set,distinct=8,seed=2", "row_kind=packed", 0, 0},
  };
  for (size_t c = 0; c < sizeof autos / sizeof *autos; c++) {
    zs_matrix *A = zs_test_generate(autos[c].spec, ZS_F64);
    zs_encoded *E = A ? round_trip(autos[c].spec, A, autos[c].options) : NULL;
    if (E) {
      CHECK((zs_test_array(E, "row_perm") != NULL) == autos[c].rows);
      CHECK((zs_test_array(E, "col_perm") != NULL) == autos[c].cols);
    }
    zs_encoded_destroy(&E);
    zs_matrix_destroy(&A);
  }
  zs_matrix *A = zs_test_generate(specs[0], ZS_F64);
  zs_encoded *E =
      A ? round_trip("damage order", A, "row_kind=packed,row_order=length,col_order=frequency")
        : NULL;
  if (E) {
    static const char *const names[] = {"row_perm", "col_perm"};
    for (int k = 0; k < 2; k++) {
      zsi_array *a = zs_test_array(E, names[k]);
      int32_t *p = a->data;
      const int32_t p0 = p[0], p1 = p[1];
      p[1] = p0, refused(E, "repeated index", names[k]), p[1] = p1;
      p[0] = -1, refused(E, "negative index", names[k]), p[0] = p0;
      p[0] = (int32_t)a->count, refused(E, "index past the end", names[k]), p[0] = p0;
      a->count--, refused(E, "truncated", names[k]), a->count++;
    }
    CHECK_STATUS(validate(E), ZS_OK);
  }
  zs_encoded_destroy(&E);
  zs_matrix_destroy(&A);
}

/* Damaged packed rows, one at a time. */
static void damaged_packed(void) {
  zs_matrix *A =
      zs_test_generate("banded:rows=200,width=40,per_row=6,values=set,distinct=9,seed=2", ZS_F64);
  zs_encoded *E = A ? round_trip("damage packed", A, "row_kind=packed") : NULL;
  if (!E) {
    zs_matrix_destroy(&A);
    return;
  }
  CHECK_STATUS(validate(E), ZS_OK);
  for (int i = 0; i < E->n_arrays; i++) {
    zsi_array *a = &E->arrays[i];
    if (a->count == 0 || (strncmp(a->name, "slice_col", 9) && strcmp(a->name, "col_words")))
      continue;
    a->count--;
    refused(E, "truncated array", a->name);
    a->count++;
  }
  uint8_t *bits = zs_test_array(E, "slice_col_bits")->data;
  int32_t *base = zs_test_array(E, "slice_col_base")->data;
  uint32_t *w = zs_test_array(E, "col_words")->data;
  int64_t *off = zs_test_array(E, "slice_col_words")->data;
  uint8_t *rt = zs_test_array(E, "row_template")->data;
  const uint8_t b0 = bits[0];
  bits[0] = 0, refused(E, "no field bits", "slice_col_bits");
  bits[0] = 33, refused(E, "33 field bits", "slice_col_bits");
  bits[0] = (uint8_t)(b0 + 1), refused(E, "more field bits", "slice_col_words"), bits[0] = b0;
  off[1]++, refused(E, "slice words", "slice_col_words"), off[1]--;
  const int32_t base0 = base[0];
  base[0] = -100, refused(E, "column below 0", "outside"), base[0] = base0;
  const int32_t base6 = base[6];
  base[6] = 300, refused(E, "column past cols", "outside"), base[6] = base6;
  const uint32_t w0 = w[0];
  w[0] = w0 | 1u << 31, refused(E, "bits past the fields", "past the fields"), w[0] = w0;
  const uint8_t r0 = rt[0];
  rt[0] = (uint8_t)(r0 + 1), refused(E, "longer packed row", "nonzeros"), rt[0] = r0;
  zsi_param *pp = zs_test_param_ref(E, "packed_rows");
  const int64_t packed = pp->value;
  pp->value--, refused(E, "packed_rows", "packed_rows"), pp->value = packed;
  pp->value = 0, refused(E, "packed_rows 0", "row_template"), pp->value = packed;
  CHECK_STATUS(validate(E), ZS_OK);
  zs_encoded_destroy(&E);
  zs_matrix_destroy(&A);
}

int main(void) {
  round_trips();
  packed_rows();
  mixed_rows();
  damaged_packed();
  ordered_rows();
  auto_choice();
  refusals();
  edges();
  damaged("templates=on,values=raw");
  damaged("values=packed");
  damaged_long_rows();
  CHECK_DONE();
}
