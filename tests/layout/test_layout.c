/* test_layout.c — the list of formats and their typed layouts: every line of
 * formats/format_list.h reaches the library's tables, both host backends and a golden blob; every
 * golden blob parses, the C and C++17 builds of a parser agree byte for byte, and a missing or
 * mis-sized array or parameter is refused with a message naming it; SELL's shape
 * (sell_shape.h) is the same from C and C++17. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/check.h"
#include "backends/format_kernels.h"
#include "core/zs_internal.h"
#include "formats/cci/cci_layout.h"
#include "formats/coo/coo_layout.h"
#include "formats/csb/csb_layout.h"
#include "formats/csr/csr_layout.h"
#include "formats/dtans/dtans_layout.h"
#include "formats/format_list.h"
#include "formats/sell/sell_layout.h"
#include "formats/sell/sell_shape.h"
#include "layout_cpp.h"

#define CHECK_MSG(cond, ...)                                        \
  do {                                                              \
    if (!(cond)) {                                                  \
      fprintf(stderr, "%s:%d: CHECK failed: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                                 \
      fputc('\n', stderr);                                          \
      check_failures++;                                             \
    }                                                               \
  } while (0)

/* Every format of the list has a typed layout `<folder>_layout` with its parser. */
#define PARSER(ID, name, folder, summary)                                              \
  static int parse_##name(const zsb_encoded_view *v, void *out, char *why, size_t n) { \
    return folder##_layout_parse(v, (folder##_layout *)out, why, n);                   \
  }
ZSI_FORMAT_LIST(PARSER)

typedef struct layout_case {
  zs_format format;
  size_t size;
  int (*parse)(const zsb_encoded_view *v, void *out, char *why, size_t n);
} layout_case;

#define CASE(ID, name, folder, summary) {ZS_FORMAT_##ID, sizeof(folder##_layout), parse_##name},
static const layout_case cases[] = {ZSI_FORMAT_LIST(CASE)};
#define N_CASES (sizeof cases / sizeof *cases)

/* The host backends' tables (backends/cpu/cpu_formats.c, backends/ref/ref_spmv.c). */
const zsi_format_kernels *zsi_cpu_kernels_for(zs_format f);
const zsi_format_kernels *zsi_ref_kernels_for(zs_format f);

/* A view of E whose arrays and parameters the caller may then damage. */
typedef struct view_copy {
  zsb_encoded_view v;
  zsb_array arrays[ZSI_MAX_ARRAYS];
  zsb_param params[ZSI_MAX_PARAMS];
} view_copy;

static void view_of(const zs_encoded *E, view_copy *c) {
  zsi_encoded_view(E, &c->v, c->arrays, c->params);
}

/* Parse with the C and the C++ build; both must give the same status, layout and message. */
static zs_status parse_both(const layout_case *lc, const zsb_encoded_view *v, char *why,
                            const char *label) {
  void *a = calloc(1, lc->size), *b = calloc(1, lc->size);
  char why_cpp[ZSI_LAYOUT_WHY] = "";
  why[0] = 0;
  const zs_status s = lc->parse(v, a, why, ZSI_LAYOUT_WHY);
  const zs_status t = layout_cpp_parse(v, b, lc->size, why_cpp, sizeof why_cpp);
  CHECK_MSG(s == t, "%s: C parse %d, C++ parse %d", label, (int)s, (int)t);
  if (s == ZS_OK)
    CHECK_MSG(memcmp(a, b, lc->size) == 0, "%s: C and C++ layouts differ", label);
  else
    CHECK_MSG(strcmp(why, why_cpp) == 0, "%s: '%s' vs '%s'", label, why, why_cpp);
  free(a);
  free(b);
  return s;
}

static void drop_array(view_copy *c, const char *name) {
  for (int i = 0; i < c->v.n_arrays; i++)
    if (strcmp(c->arrays[i].name, name) == 0) c->arrays[i].name = "(dropped)";
}

static void drop_param(view_copy *c, const char *name) {
  for (int i = 0; i < c->v.n_params; i++)
    if (strcmp(c->params[i].name, name) == 0) c->params[i].name = "(dropped)";
}

/* Damage each array of the blob in two ways (gone; an element size no array has), and every
 * parameter in one (gone); a parameter the format has a default for may be dropped. */
static void damaged(const layout_case *lc, const zs_encoded *E, const char *file) {
  char why[ZSI_LAYOUT_WHY], label[512];
  view_copy c;
  for (int i = 0; i < E->n_arrays; i++) {
    const char *name = E->arrays[i].name;
    view_of(E, &c);
    drop_array(&c, name);
    snprintf(label, sizeof label, "%s without '%s'", file, name);
    if (parse_both(lc, &c.v, why, label) != ZS_OK)
      CHECK_MSG(strstr(why, name) != NULL, "%s: message '%s' does not name it", label, why);
    view_of(E, &c);
    /* a size no array has: a legal one (4 for 8) would make the view lie about its buffer,
     * which a parser cannot see and must not be asked to */
    c.arrays[i].elem_size = 3;
    snprintf(label, sizeof label, "%s with '%s' of other elements", file, name);
    CHECK_MSG(parse_both(lc, &c.v, why, label) == ZS_ERR_CORRUPT, "%s: accepted", label);
    CHECK_MSG(strstr(why, name) != NULL, "%s: message '%s' does not name it", label, why);
  }
  for (int i = 0; i < E->n_params; i++) {
    const char *name = E->params[i].name;
    view_of(E, &c);
    drop_param(&c, name);
    snprintf(label, sizeof label, "%s without parameter '%s'", file, name);
    /* one with a default changes how the arrays are read: the message may name an array */
    if (parse_both(lc, &c.v, why, label) != ZS_OK)
      CHECK_MSG(strstr(why, name) || strstr(why, "array '"), "%s: message '%s' names nothing",
                label, why);
  }
}

/* Every golden blob under root/<dir>/ parses, in C and C++ alike, and survives damage with a
 * message; counts the blobs of each format. */
static void blobs_in(const char *dir, int *count) {
  char path[2048], why[ZSI_LAYOUT_WHY];
  DIR *d = opendir(dir);
  if (!d) return;
  for (struct dirent *e; (e = readdir(d));) {
    const size_t len = strlen(e->d_name);
    if (len < 4 || strcmp(e->d_name + len - 4, ".zsm") != 0) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    zs_encoded *E = NULL;
    if (zs_encoded_load(&E, path) != ZS_OK) {
      CHECK_MSG(0, "%s: %s", path, zs_last_error());
      continue;
    }
    for (size_t i = 0; i < N_CASES; i++) {
      if (cases[i].format != E->format) continue;
      view_copy c;
      view_of(E, &c);
      CHECK_MSG(parse_both(&cases[i], &c.v, why, e->d_name) == ZS_OK, "%s: %s", e->d_name, why);
      damaged(&cases[i], E, e->d_name);
      count[i]++;
    }
    zs_encoded_destroy(&E);
  }
  closedir(d);
}

/* Golden blobs pin every format of the list: each has one at least, in any folder of root. */
static void every_format_golden(const char *root) {
  int count[N_CASES] = {0};
  char dir[1024];
  DIR *d = opendir(root);
  CHECK_MSG(d != NULL, "cannot open %s", root);
  for (struct dirent *e; d && (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    snprintf(dir, sizeof dir, "%s/%s", root, e->d_name);
    blobs_in(dir, count);
  }
  if (d) closedir(d);
  for (size_t i = 0; i < N_CASES; i++)
    CHECK_MSG(count[i] > 0, "format '%s' has no golden blob under %s",
              zs_format_name(cases[i].format), root);
}

/* dtans: the modes come out typed, and stream version 1 is refused as unsupported. */
static void dtans_modes(const char *root) {
  char path[1024], why[ZSI_LAYOUT_WHY];
  snprintf(path, sizeof path, "%s/dtans/dtans_144x144_joint_f64.zsm", root);
  zs_encoded *E = NULL;
  CHECK_MSG(zs_encoded_load(&E, path) == ZS_OK, "%s: %s", path, zs_last_error());
  if (!E) return;
  view_copy c;
  view_of(E, &c);
  dtans_layout L;
  CHECK(dtans_layout_parse(&c.v, &L, why, sizeof why) == ZS_OK);
  CHECK(L.value_mode == DTANS_VALUES_JOINT && L.column_mode == DTANS_COLUMNS_DELTAS);
  CHECK(L.pair_values != NULL && L.values == NULL && L.value_counts == NULL);
  CHECK(L.value_bytes == 8 && L.rows == 144 && L.slices >= 1);
  for (int i = 0; i < c.v.n_params; i++)
    if (strcmp(c.params[i].name, "version") == 0) c.params[i].value = 1;
  const layout_case *lc = NULL;
  for (size_t i = 0; i < N_CASES; i++)
    if (cases[i].format == ZS_FORMAT_DTANS) lc = &cases[i];
  CHECK(lc && parse_both(lc, &c.v, why, "version 1") == ZS_ERR_UNSUPPORTED);
  CHECK(strstr(why, "version 1") != NULL);
  zs_encoded_destroy(&E);
}

/* Each line of the list reaches the library's table, the names and both host backends. */
#define AGREES(ID, nm, folder, summary)                                                       \
  do {                                                                                        \
    const zsi_format_ops *f = zsi_format_lookup(ZS_FORMAT_##ID);                              \
    zs_format back = (zs_format)0;                                                            \
    CHECK_MSG(f && f->id == ZS_FORMAT_##ID && strcmp(f->name, #nm) == 0, "%s: ops", #nm);     \
    CHECK_MSG(zs_format_name(ZS_FORMAT_##ID) && !strcmp(zs_format_name(ZS_FORMAT_##ID), #nm), \
              "%s: zs_format_name", #nm);                                                     \
    CHECK_MSG(zs_format_from_name(#nm, &back) == ZS_OK && back == ZS_FORMAT_##ID,             \
              "%s: zs_format_from_name", #nm);                                                \
    CHECK_MSG(zsi_cpu_kernels_for(ZS_FORMAT_##ID) && zsi_ref_kernels_for(ZS_FORMAT_##ID),     \
              "%s: a host backend has no kernel", #nm);                                       \
  } while (0);
static void registry_agrees(void) {
  ZSI_FORMAT_LIST(AGREES)
  zs_format f;
  CHECK(zs_format_from_name("nonesuch", &f) == ZS_ERR_INVALID_ARGUMENT);
  CHECK(strstr(zs_last_error(), "known: csr coo") != NULL);
  CHECK(zsi_format_lookup(ZS_FORMAT_VANS) == NULL && zsi_ref_kernels_for(ZS_FORMAT_VANS) == NULL);
  CHECK(zs_format_name(ZS_FORMAT_VANS) && strcmp(zs_format_name(ZS_FORMAT_VANS), "vans") == 0);
}

/* SELL's shape from C and from C++17 alike: window order and slice widths of rows of lengths
 * with runs of equal ones, empty rows and a few long ones, for windows of one row to all of
 * them, slices of 1 to 32 rows. The order itself is checked here too: longest first inside each
 * window, equal lengths in row order. */
static void sell_shape_both(void) {
  enum { ROWS = 1000 };
  int64_t ptr[ROWS + 1] = {0}, widths_c[ROWS], widths_cpp[ROWS];
  int32_t order_c[ROWS], order_cpp[ROWS];
  uint64_t key[ROWS], tmp[ROWS], r = 12345;
  for (int i = 0; i < ROWS; i++) {
    r = r * 6364136223846793005u + 1442695040888963407u;
    const int64_t len = i % 97 == 0 ? 300 + (int64_t)(r >> 55) : (int64_t)(r >> 61);
    ptr[i + 1] = ptr[i] + len;
  }
  static const int64_t sigmas[] = {1, 8, 64, 100, ROWS, 4 * ROWS}, cs[] = {1, 4, 32};
  for (size_t a = 0; a < sizeof sigmas / sizeof *sigmas; a++)
    for (size_t b = 0; b < sizeof cs / sizeof *cs; b++) {
      const int64_t sigma = sigmas[a], c = cs[b], slices = (ROWS + c - 1) / c;
      sell_sort_windows(ptr, ROWS, sigma, order_c, key, tmp);
      for (int64_t s = 0; s < slices; s++) widths_c[s] = sell_slice_width(ptr, order_c, ROWS, c, s);
      CHECK_MSG(layout_cpp_sell_shape(ptr, ROWS, sigma, c, order_cpp, widths_cpp),
                "sell shape: C++ out of memory");
      CHECK_MSG(!memcmp(order_c, order_cpp, sizeof order_c) &&
                    !memcmp(widths_c, widths_cpp, (size_t)slices * sizeof *widths_c),
                "sell shape sigma=%lld c=%lld: C and C++ differ", (long long)sigma, (long long)c);
      for (int p = 1; p < ROWS; p++) {
        const int32_t i = order_c[p - 1], j = order_c[p];
        const int64_t li = ptr[i + 1] - ptr[i], lj = ptr[j + 1] - ptr[j];
        CHECK_MSG(j / sigma == p / sigma, "sell shape: row %d outside its window", (int)j);
        if (p % sigma)
          CHECK_MSG(li > lj || (li == lj && i < j),
                    "sell shape sigma=%lld: position %d out of order", (long long)sigma, p);
      }
    }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s GOLDEN_DIR\n", argv[0]);
    return 2;
  }
  registry_agrees();
  every_format_golden(argv[1]);
  dtans_modes(argv[1]);
  sell_shape_both();
  CHECK_DONE();
}
