/* test_layout.c — the formats' typed layouts: every golden blob parses, the C and the C++17
 * builds of a parser agree byte for byte, and a missing or mis-sized array or parameter is
 * refused with a message naming it. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/check.h"
#include "core/zs_internal.h"
#include "formats/dtans/dtans_layout.h"
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

static int dtans_parse(const zsb_encoded_view *v, void *out, char *why, size_t n) {
  return dtans_layout_parse(v, out, why, n);
}

typedef struct layout_case {
  zs_format format;
  const char *dir; /* under tests/golden */
  size_t size;
  int (*parse)(const zsb_encoded_view *v, void *out, char *why, size_t n);
} layout_case;

static const layout_case cases[] = {
    {ZS_FORMAT_DTANS, "dtans", sizeof(dtans_layout), dtans_parse},
};

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

/* Damage each array of the blob in two ways (gone; other element size), and every
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
    c.arrays[i].elem_size = c.arrays[i].elem_size == 8 ? 3 : 8;
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

static int blobs_of(const char *root, const layout_case *lc) {
  char dir[1024], path[2048], why[ZSI_LAYOUT_WHY];
  snprintf(dir, sizeof dir, "%s/%s", root, lc->dir);
  DIR *d = opendir(dir);
  CHECK_MSG(d != NULL, "cannot open %s", dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));) {
    const size_t len = strlen(e->d_name);
    if (len < 4 || strcmp(e->d_name + len - 4, ".zsm") != 0) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    zs_encoded *E = NULL;
    if (zs_encoded_load(&E, path) != ZS_OK) {
      CHECK_MSG(0, "%s: %s", path, zs_last_error());
      continue;
    }
    if (E->format != lc->format) {
      zs_encoded_destroy(&E);
      continue;
    }
    view_copy c;
    view_of(E, &c);
    CHECK_MSG(parse_both(lc, &c.v, why, e->d_name) == ZS_OK, "%s: %s", e->d_name, why);
    damaged(lc, E, e->d_name);
    zs_encoded_destroy(&E);
    n++;
  }
  if (d) closedir(d);
  CHECK_MSG(n > 0, "no %s golden blob in %s", zs_format_name(lc->format), dir);
  return n;
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
  CHECK(parse_both(&cases[0], &c.v, why, "version 1") == ZS_ERR_UNSUPPORTED);
  CHECK(strstr(why, "version 1") != NULL);
  zs_encoded_destroy(&E);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s GOLDEN_DIR\n", argv[0]);
    return 2;
  }
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) blobs_of(argv[1], &cases[i]);
  dtans_modes(argv[1]);
  CHECK_DONE();
}
