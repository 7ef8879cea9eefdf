/* backend_options.c — the operator options of every backend, declared once: which backends and
 * formats each applies to, its allowed values and its default. zs_operator_create checks the
 * user's string here and hands the backend a complete, valid one, so backends parse nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/runtime/runtime.h"

enum { ON_REF = 1, ON_CPU = 2, ON_GPU = 4, ON_ALL = ON_REF | ON_CPU | ON_GPU };
#define FMT(f) (1u << (f))
#define ALL_FORMATS 0u

typedef struct option_spec {
  const char *key;
  const char *values;   /* "a|b|c"; an entry "LO..HI" admits the decimal integers in it */
  const char *fallback; /* the value when the option is not given */
  unsigned backends;    /* ON_* */
  unsigned formats;     /* FMT(ZS_FORMAT_*) bits; ALL_FORMATS for every one */
  const char *doc;
} option_spec;

/* Keys under "experimental." tune kernels for benchmarks; docs/backends.md lists them and says
 * what each changes. They may change or go without notice. */
static const option_spec specs[] = {
    {"transpose", "deterministic|atomic|stored", "deterministic", ON_ALL, ALL_FORMATS,
     "SpMVT: fixed-order sums (the same bits every run), atomic adds, or Aᵀ stored encoded "
     "beside A (SpMV speed for a second copy's memory)"},
    {"spmv", "deterministic|atomic", "deterministic", ON_GPU,
     FMT(ZS_FORMAT_CSB) | FMT(ZS_FORMAT_GCSB), "SpMV: a warp per block row, or atomic adds"},
    {"block_nnz", "auto|256|512|1024|2048", "auto", ON_GPU, FMT(ZS_FORMAT_CSR),
     "nonzeros per thread block of the row plan"},
    {"kernel", "auto|rows|split", "auto", ON_GPU, FMT(ZS_FORMAT_CSR),
     "CSR SpMV: nonzero-balanced row blocks, or every thread an equal share of rows plus "
     "nonzeros (power-law rows; auto: by the rows' lengths, or the kernel whose own options "
     "are given)"},
    {"col_slabs", "auto|1..8", "auto", ON_GPU, FMT(ZS_FORMAT_CSR) | FMT(ZS_FORMAT_DTANS),
     "column slabs, each a pass whose part of x stays in the L2 cache"},
    {"experimental.raw_blocks", "auto|3|4", "auto", ON_GPU, FMT(ZS_FORMAT_DTANS),
     "raw-value kernel cut for 3 or 4 blocks per multiprocessor"},
    {"experimental.packed_unroll", "auto|1|2|4", "auto", ON_GPU, FMT(ZS_FORMAT_DTANS),
     "dtANS version 5 packed rows: nonzeros decoded before their x gathers are issued"},
    {"experimental.packed_split", "auto|off|8|16|32|64|128", "auto", ON_GPU, FMT(ZS_FORMAT_DTANS),
     "dtANS version 5 packed rows longer than this taken by the whole warp (cuda)"},
    {"experimental.packed_dict", "auto|shfl", "auto", ON_GPU, FMT(ZS_FORMAT_DTANS),
     "dtANS version 5 packed rows' SpMV: values (at most 64) by warp shuffles, no shared memory "
     "(cuda)"},
    {"experimental.raw_slices", "auto|stride|tickets", "auto", ON_GPU, FMT(ZS_FORMAT_DTANS),
     "raw-value kernel: slices at a fixed stride or from a ticket counter"},
    {"experimental.x_stage", "auto|on|off", "auto", ON_GPU,
     FMT(ZS_FORMAT_CSB) | FMT(ZS_FORMAT_GCSB), "stage each block's part of x in shared memory"},
    {"experimental.det_walk", "auto|warp|lanes", "auto", ON_GPU,
     FMT(ZS_FORMAT_CSB) | FMT(ZS_FORMAT_GCSB),
     "deterministic kernels: blocks read by the whole warp or in chunks per lane"},
    {"experimental.det_splits", "auto|1..64", "auto", ON_GPU,
     FMT(ZS_FORMAT_CSB) | FMT(ZS_FORMAT_GCSB), "warps that share one output block"},
    {"experimental.det_teams", "auto|1|2|4", "auto", ON_GPU,
     FMT(ZS_FORMAT_CSB) | FMT(ZS_FORMAT_GCSB), "output blocks one warp walks together"},
    {"experimental.kernel", "batched|slices", "batched", ON_GPU, FMT(ZS_FORMAT_CCI),
     "CCI kernel: rows decoded in batches, or one slice per lane"},
    {"experimental.reduce", "auto|lanes|threads", "auto", ON_GPU, FMT(ZS_FORMAT_CSR),
     "CSR rows summed by groups of lanes, or thread by thread with carries (short rows)"},
    {"experimental.long_rows", "auto|kernel|fused", "auto", ON_GPU, FMT(ZS_FORMAT_CSR),
     "CSR row blocks' rows longer than a block: chunks added by a second kernel, or by their "
     "last chunk (auto: the last chunk where at most 32 rows are that long; fused is refused "
     "with kernel=split)"},
    {"experimental.split_stage", "auto|plain|vector|early|vector_early", "auto", ON_GPU,
     FMT(ZS_FORMAT_CSR),
     "CSR split kernel: a tile's loads in one loop, 16-byte, row ends first, or both (auto: both "
     "in f32, row ends first in f64)"},
    {"experimental.split_spans", "auto|kernel|wait", "auto", ON_GPU, FMT(ZS_FORMAT_CSR),
     "CSR split kernel: rows over several tiles added by a second kernel, or by the tile that "
     "ends each, reading the earlier tiles' published sums (auto: the tile)"},
    {"experimental.evict_first", "auto|on|off", "auto", ON_GPU,
     FMT(ZS_FORMAT_CSR) | FMT(ZS_FORMAT_SELL),
     "evict-first loads of the matrix data (auto: where its arrays exceed half the L2 cache)"},
    {"experimental.sell_unroll", "auto|2|4|8|16", "auto", ON_GPU, FMT(ZS_FORMAT_SELL),
     "SELL entries a thread loads before it adds (16: in predicated batches)"},
    {"experimental.sell_tail", "auto|loop|batch|ahead", "auto", ON_GPU, FMT(ZS_FORMAT_SELL),
     "SELL SpMV past the last full batch: one entry at a time, predicated batches, or "
     "predicated batches whose next loads go out before the current gathers (auto: batches "
     "where the whole grid is resident at once)"},
    {"experimental.sell_threads", "auto|64|128|256", "auto", ON_GPU, FMT(ZS_FORMAT_SELL),
     "SELL threads per block"},
    {"experimental.sell_lanes", "auto|1|2|4", "auto", ON_GPU, FMT(ZS_FORMAT_SELL),
     "SELL SpMV threads a position, each walking every second or fourth entry in predicated "
     "batches, the partial sums added across the warp (auto: four where the grid is small and "
     "its slices wide, or one slice's walk outlasts the rest; else one)"},
    {"experimental.sell_transpose", "auto|csr|sell", "auto", ON_GPU, FMT(ZS_FORMAT_SELL),
     "SELL deterministic SpMVT through Aᵀ as our CSR, or as SELL-32 sorted in windows of 4096 "
     "rows (auto: SELL where it pads at most 10 %)"},
};
#define N_SPECS (sizeof specs / sizeof *specs)

/* Values of two options that cannot meet: the kernel the first forces never does what the second
 * asks, so the pair is refused rather than the second ignored without a word. other_value NULL:
 * any value of the other option but auto. */
typedef struct option_conflict {
  const char *key, *value, *other, *other_value;
  const char *why;
} option_conflict;

static const option_conflict conflicts[] = {
    {"kernel", "split", "experimental.long_rows", "fused",
     "long_rows applies to the row blocks only; the split kernel finishes the rows that span "
     "tiles itself"},
    {"kernel", "split", "experimental.reduce", "threads",
     "reduce applies to the row blocks only; the split kernel sums each thread's items in "
     "registers"},
    {"kernel", "rows", "experimental.split_stage", NULL,
     "split_stage applies to the split kernel only"},
    {"kernel", "rows", "experimental.split_spans", NULL,
     "split_spans applies to the split kernel only"},
};
#define N_CONFLICTS (sizeof conflicts / sizeof *conflicts)

/* Whether the completed options `norm` hold key=value (value NULL: key=anything but auto); the
 * value found goes to found_value. */
static int holds(const char *norm, const char *key, const char *value, char (*found_value)[32]) {
  int found;
  if (zsi_option_str(norm, key, *found_value, sizeof *found_value, &found) != ZS_OK || !found)
    return 0;
  return value ? !strcmp(*found_value, value) : strcmp(*found_value, "auto") != 0;
}

/* kernel=auto beside an option of one CSR kernel only (one the conflicts refuse with the other
 * kernel) takes that kernel, so that the option is obeyed rather than ignored where the module
 * would have chosen the other; options of both kernels are refused, naming one of each. `norm`
 * has room for "split" in place of "auto" (a key's share of it holds any value). */
static zs_status implied_kernel(char *norm, const char *backend) {
  char value[32], other[32], first[96] = "";
  const char *implied = NULL;
  if (!holds(norm, "kernel", "auto", &value)) return ZS_OK;
  for (size_t i = 0; i < N_CONFLICTS; i++) {
    const option_conflict *c = &conflicts[i];
    if (strcmp(c->key, "kernel") != 0 || !holds(norm, c->other, c->other_value, &other)) continue;
    const char *k = strcmp(c->value, "split") == 0 ? "rows" : "split";
    if (implied && strcmp(implied, k) != 0)
      return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                       "operator options %s and %s=%s cannot be combined on backend '%s' (the "
                       "first applies to kernel=%s only, the second to kernel=%s only)",
                       first, c->other, other, backend, implied, k);
    if (!implied) snprintf(first, sizeof first, "%s=%s", c->other, other);
    implied = k;
  }
  if (!implied) return ZS_OK;
  /* "kernel=auto" as a whole entry: not the tail of experimental.kernel=... */
  for (char *at = strstr(norm, "kernel=auto"); at; at = strstr(at + 1, "kernel=auto"))
    if ((at == norm || at[-1] == ',') && (at[11] == ',' || at[11] == '\0')) {
      memmove(at + 7 + strlen(implied), at + 11, strlen(at + 11) + 1);
      memcpy(at + 7, implied, strlen(implied));
      break;
    }
  return ZS_OK;
}

static unsigned backend_bit(const char *backend) {
  if (strcmp(backend, "ref") == 0) return ON_REF;
  if (strcmp(backend, "cpu") == 0) return ON_CPU;
  return ON_GPU;
}

static const char *backends_of(unsigned b) {
  static const char *const names[] = {"",
                                      "ref",
                                      "cpu",
                                      "ref and cpu",
                                      "cuda and hip",
                                      "ref, cuda and hip",
                                      "cpu, cuda and hip",
                                      "every backend"};
  return names[b & 7];
}

/* Whether `value` is one of spec's values ("a|b" or "LO..HI" ranges among them). */
static int allowed(const option_spec *o, const char *value) {
  const char *p = o->values;
  while (*p) {
    const size_t n = strcspn(p, "|");
    long lo, hi;
    char tail;
    if (n == strlen(value) && strncmp(p, value, n) == 0) return 1;
    if (sscanf(p, "%ld..%ld%c", &lo, &hi, &tail) >= 2 && value[0] >= '0' && value[0] <= '9') {
      char *end;
      const long v = strtol(value, &end, 10);
      if (*end == '\0' && (value[0] != '0' || value[1] == '\0') && v >= lo && v <= hi) return 1;
    }
    p += n + (p[n] == '|');
  }
  return 0;
}

/* The list of keys, for messages: "transpose, spmv, ...". */
static void key_list(char *buf, size_t len) {
  buf[0] = '\0';
  for (size_t i = 0; i < N_SPECS; i++)
    snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? ", " : "", specs[i].key);
}

zs_status zsi_backend_options(const char *backend, zs_format format, const char *user, char **out,
                              int *stored) {
  *out = NULL, *stored = 0;
  char known[512];
  key_list(known, sizeof known);
  const char *keys[N_SPECS + 1];
  for (size_t i = 0; i < N_SPECS; i++) keys[i] = specs[i].key;
  keys[N_SPECS] = NULL;
  char what[64];
  snprintf(what, sizeof what, "operator options for backend '%s'", backend);
  zs_status s = zsi_option_check(user, keys, what);
  if (s != ZS_OK) {
    char why[256];
    snprintf(why, sizeof why, "%s", zs_last_error());
    return zsi_error(s, "%s (known: %s)", why, known);
  }
  const unsigned be = backend_bit(backend);
  const char *fname = zs_format_name(format);
  size_t cap = 1;
  for (size_t i = 0; i < N_SPECS; i++) cap += strlen(specs[i].key) + 34;
  char *norm = malloc(cap);
  if (!norm) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "operator options: out of memory");
  norm[0] = '\0';
  for (size_t i = 0; i < N_SPECS; i++) {
    const option_spec *o = &specs[i];
    char value[32];
    int found;
    if ((s = zsi_option_str(user, o->key, value, sizeof value, &found)) != ZS_OK) break;
    const int applies = (o->backends & be) && (!o->formats || (o->formats & FMT(format)));
    if (found && !(o->backends & be)) {
      s = zsi_error(ZS_ERR_INVALID_ARGUMENT,
                    "backend '%s' has no operator option '%s' (an option of %s: %s)", backend,
                    o->key, backends_of(o->backends), o->doc);
      break;
    }
    if (found && !applies) {
      s = zsi_error(ZS_ERR_INVALID_ARGUMENT,
                    "operator option '%s' does not apply to format '%s' on backend '%s' (%s)",
                    o->key, fname ? fname : "?", backend, o->doc);
      break;
    }
    if (found && !allowed(o, value)) {
      s = zsi_error(ZS_ERR_INVALID_ARGUMENT, "operator option %s='%s' is not one of %s", o->key,
                    value, o->values);
      break;
    }
    if (!applies) continue;
    const char *v = found ? value : o->fallback;
    if (strcmp(o->key, "transpose") == 0 && strcmp(v, "stored") == 0) {
      *stored = 1; /* the library's: Aᵀ encoded beside A, each run forward */
      v = o->fallback;
    }
    snprintf(norm + strlen(norm), cap - strlen(norm), "%s%s=%s", norm[0] ? "," : "", o->key, v);
  }
  for (size_t i = 0; s == ZS_OK && i < N_CONFLICTS; i++) {
    const option_conflict *c = &conflicts[i];
    char mine[32], other[32];
    if (holds(norm, c->key, c->value, &mine) && holds(norm, c->other, c->other_value, &other))
      s = zsi_error(ZS_ERR_INVALID_ARGUMENT,
                    "operator options %s=%s and %s=%s cannot be combined on backend '%s' (%s)",
                    c->key, mine, c->other, other, backend, c->why);
  }
  if (s == ZS_OK) s = implied_kernel(norm, backend);
  if (s != ZS_OK) {
    free(norm);
    return s;
  }
  *out = norm;
  return ZS_OK;
}

const char *zs_operator_options_help(void) {
  static _Thread_local char text[8192]; /* made from the table on each call: no shared state */
  text[0] = '\0';
  for (size_t i = 0; i < N_SPECS; i++) {
    const option_spec *o = &specs[i];
    char formats[64] = "";
    for (int f = 1; o->formats && f < 32; f++)
      if ((o->formats & FMT(f)) && zs_format_name((zs_format)f))
        snprintf(formats + strlen(formats), sizeof formats - strlen(formats), "%s%s",
                 formats[0] ? ", " : "; ", zs_format_name((zs_format)f));
    snprintf(text + strlen(text), sizeof text - strlen(text), "%s=%s (default %s; %s%s): %s\n",
             o->key, o->values, o->fallback, backends_of(o->backends), formats, o->doc);
  }
  return text;
}
