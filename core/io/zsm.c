/* zsm.c — the .zsm container: save and load a zs_encoded (layout in docs/container.md). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/io/open_regular.h"
#include "core/io/safe_output.h"
#include "core/zs_internal.h"

#define ZSM_VERSION 1u
#define ZSM_FIXED 64u       /* bytes of the fixed header */
#define ZSM_PARAM_ENTRY 40u /* name[32] + i64 */
#define ZSM_ARRAY_ENTRY 64u /* name[32] + elem_size + crc + count + offset + length */
#define ZSM_NAME_FIELD 32u
/* Version-1 limits, fixed by the format: not ZSI_MAX_*, which may grow in memory. */
#define ZSM_MAX_PARAMS 64
#define ZSM_MAX_ARRAYS 64
_Static_assert(ZSI_MAX_PARAMS >= ZSM_MAX_PARAMS && ZSI_MAX_ARRAYS >= ZSM_MAX_ARRAYS,
               "a zs_encoded must hold what a version-1 container may hold");
_Static_assert(ZSI_NAME_MAX + 1 == 32, "names are 32-byte fields in the container");
#define ZSM_ALIGN 64u
/* Data moves in chunks: bounded stack/heap use, and zlib's crc32() takes a 32-bit length. */
#define ZSM_CHUNK (UINT32_C(1) << 20)
#define ZSM_HEADER_MAX \
  (ZSM_FIXED + ZSM_PARAM_ENTRY * ZSM_MAX_PARAMS + ZSM_ARRAY_ENTRY * ZSM_MAX_ARRAYS + 4u)

#define ZSM_NOTE "meta.note" /* the container's array holding zs_encoded_note */
/* The container's record of the encoder options (docs/container.md, "the options"): a u32
 * record version, a u32 text length, then the text. */
#define ZSM_OPTIONS "meta.options"
#define ZSM_OPTIONS_VERSION 1u
#define ZSM_OPTIONS_HEAD 8u
#define ZSM_OPTIONS_MAX 4096u /* bytes of text: far more than every encoder key with its value */
static const unsigned char zsm_magic[8] = {'Z', 'S', 'P', 'A', 'R', 'S', 'E', '\0'};

/* ---- little-endian packing, independent of the host's byte order ---- */

static void put_u32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void put_u64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint32_t get_u32(const unsigned char *p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v |= (uint32_t)p[i] << (8 * i);
  return v;
}
static uint64_t get_u64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

static int host_is_little_endian(void) {
  const uint16_t one = 1;
  unsigned char b;
  memcpy(&b, &one, 1);
  return b == 1;
}

/* Reverse the bytes of each element (big-endian hosts only: the file is little-endian). */
static void swap_elements(unsigned char *p, uint64_t bytes, uint32_t elem_size) {
  for (uint64_t off = 0; off + elem_size <= bytes; off += elem_size)
    for (uint32_t i = 0; i < elem_size / 2; i++) {
      const unsigned char t = p[off + i];
      p[off + i] = p[off + elem_size - 1 - i];
      p[off + elem_size - 1 - i] = t;
    }
}

static uint64_t align_up(uint64_t v) { return (v + (ZSM_ALIGN - 1)) & ~(uint64_t)(ZSM_ALIGN - 1); }

static uint64_t header_bytes(uint32_t n_params, uint32_t n_arrays) {
  return ZSM_FIXED + (uint64_t)ZSM_PARAM_ENTRY * n_params + (uint64_t)ZSM_ARRAY_ENTRY * n_arrays +
         4u;
}

static int valid_elem_size(uint64_t s) { return s == 1 || s == 2 || s == 4 || s == 8; }

/* A name is 1..31 printable ASCII characters other than space. */
static int valid_name(const char *s) {
  size_t n = 0;
  for (; s[n]; n++)
    if ((unsigned char)s[n] < 0x21 || (unsigned char)s[n] > 0x7e) return 0;
  return n >= 1 && n <= ZSI_NAME_MAX;
}

/* Check a stored 32-byte name field: NUL-terminated, printable, zero after the NUL (so every
 * name has exactly one encoding). Returns NULL when valid, else what is wrong. */
static const char *check_name_field(const unsigned char *field, char out[ZSI_NAME_MAX + 1]) {
  size_t n = 0;
  while (n < ZSM_NAME_FIELD && field[n]) n++;
  if (n == ZSM_NAME_FIELD) return "name is not NUL-terminated within 32 bytes";
  if (n == 0) return "name is empty";
  for (size_t i = 0; i < n; i++)
    if (field[i] < 0x21 || field[i] > 0x7e) return "name has a non-printable character";
  for (size_t i = n; i < ZSM_NAME_FIELD; i++)
    if (field[i]) return "name field has non-zero bytes after its terminating NUL";
  memcpy(out, field, n + 1);
  return NULL;
}

/* Arrays that hold a format's matrix values, stored as the value type (the other arrays hold
 * indices, codes or counts). A format that stores values under another name adds it here. */
static const char *const value_arrays[] = {"values", "value_symbols", "value_escapes",
                                           "long_values"};

/* Containers hold finite values only, both ways: what is saved loads, and a NaN or infinity
 * never reaches a product or a Matrix Market file unnoticed. */
static zs_status check_finite_values(const zs_encoded *E, const char *path) {
  const size_t es = zs_type_size(E->type);
  for (int i = 0; i < E->n_arrays; i++) {
    const zsi_array *a = &E->arrays[i];
    int listed = 0;
    for (size_t n = 0; n < sizeof value_arrays / sizeof *value_arrays; n++)
      listed |= strcmp(a->name, value_arrays[n]) == 0;
    if (!listed || a->elem_size != es) continue;
    for (uint64_t k = 0; k < a->count; k++)
      if (!isfinite(zsi_value_get(E->type, a->data, (int64_t)k)))
        return zsi_error(ZS_ERR_OUT_OF_RANGE,
                         "%s: array '%s' element %" PRIu64
                         " is NaN or infinite; containers hold finite values only",
                         path, a->name, k);
  }
  return ZS_OK;
}

/* Why `text` (n bytes) cannot be kept encoder options, or NULL; *at is the offending byte. The
 * shape every encoder's parser accepts (core/options.c): "key=value" entries split by commas
 * (one trailing comma allowed), keys of letters, digits, '_' and '.', each key once, values of
 * printable ASCII other than space. Whether the format knows a key is its encoder's business:
 * a stored transpose encodes with the options and names them when they are refused. */
static int key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.';
}

static const char *options_text_problem(const char *text, size_t n, uint64_t *at) {
  *at = 0;
  if (n == 0) return "empty";
  if (n > ZSM_OPTIONS_MAX) return "longer than the 4096 bytes a container keeps";
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)text[i] < 0x21 || (unsigned char)text[i] > 0x7e) {
      *at = i;
      return "not printable ASCII (0x21..0x7e)";
    }
  for (size_t i = 0; i < n;) {
    size_t k = i;
    while (k < n && key_char(text[k])) k++;
    *at = k;
    if (k == i || k == n || text[k] != '=') return "an entry is not key=value";
    size_t v = k + 1;
    while (v < n && text[v] != ',') v++;
    if (v == k + 1) return "a value is empty";
    for (size_t j = 0; j < i;) { /* earlier keys: none the same */
      size_t e = j;
      while (text[e] != '=') e++;
      *at = i;
      if (e - j == k - i && memcmp(text + j, text + i, k - i) == 0) return "a key appears twice";
      while (j < n && text[j] != ',') j++;
      j++;
    }
    i = v + 1; /* past the comma; a trailing comma ends the text */
  }
  return NULL;
}

/* ---- save ---- */

typedef struct zsm_layout {
  uint64_t header; /* bytes up to and including the header CRC */
  uint64_t offset[ZSM_MAX_ARRAYS];
  uint64_t length[ZSM_MAX_ARRAYS];
  uint64_t file_length;
} zsm_layout;

/* Refuse to write what a reader would refuse, so every saved file loads. */
static zs_status check_for_save(const zs_encoded *E, const char *path, zsm_layout *L) {
  const zsi_format_ops *f = zsi_format_lookup(E->format);
  if (!f) {
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%.280s: ", path);
    return zsi_format_absent(E->format, prefix);
  }
  if (zs_type_size(E->type) == 0)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "%s: invalid value type %d", path, (int)E->type);
  if (E->rows < 0 || E->rows > ZS_MAX_DIM || E->cols < 0 || E->cols > ZS_MAX_DIM || E->nnz < 0 ||
      E->nnz > ZS_MAX_NNZ)
    return zsi_error(ZS_ERR_OVERFLOW,
                     "%s: sizes %" PRId64 " x %" PRId64 ", nnz %" PRId64 " exceed the limits", path,
                     E->rows, E->cols, E->nnz);
  if (E->n_params < 0 || E->n_params > ZSM_MAX_PARAMS || E->n_arrays < 0 ||
      E->n_arrays > ZSM_MAX_ARRAYS)
    return zsi_error(ZS_ERR_UNSUPPORTED,
                     "%s: %d parameters and %d arrays; the container holds at most %d of each",
                     path, E->n_params, E->n_arrays, ZSM_MAX_ARRAYS);
  for (int i = 0; i < E->n_params; i++) {
    if (!valid_name(E->params[i].name))
      return zsi_error(ZS_ERR_INVALID_ARGUMENT, "%s: parameter %d has an invalid name '%.31s'",
                       path, i, E->params[i].name);
    for (int j = 0; j < i; j++)
      if (strcmp(E->params[i].name, E->params[j].name) == 0)
        return zsi_error(ZS_ERR_INVALID_ARGUMENT, "%s: parameter '%s' appears twice", path,
                         E->params[i].name);
  }
  L->header = header_bytes((uint32_t)E->n_params, (uint32_t)E->n_arrays);
  uint64_t end = L->header;
  for (int i = 0; i < E->n_arrays; i++) {
    const zsi_array *a = &E->arrays[i];
    if (!valid_name(a->name))
      return zsi_error(ZS_ERR_INVALID_ARGUMENT, "%s: array %d has an invalid name '%.31s'", path, i,
                       a->name);
    for (int j = 0; j < i; j++)
      if (strcmp(a->name, E->arrays[j].name) == 0)
        return zsi_error(ZS_ERR_INVALID_ARGUMENT, "%s: array '%s' appears twice", path, a->name);
    if (!valid_elem_size(a->elem_size))
      return zsi_error(ZS_ERR_UNSUPPORTED,
                       "%s: array '%s' has %u-byte elements (the container stores 1, 2, 4 or 8)",
                       path, a->name, a->elem_size);
    L->offset[i] = align_up(end);
    if (!zsi_mul_u64(a->count, a->elem_size, &L->length[i]) ||
        !zsi_add_u64(L->offset[i], L->length[i], &end) || end > (UINT64_MAX >> 1))
      return zsi_error(ZS_ERR_OVERFLOW, "%s: array '%s' of %" PRIu64 " elements is too large", path,
                       a->name, a->count);
  }
  L->file_length = end;
  zs_status s = f->validate(E);
  if (s != ZS_OK)
    return zsi_error_prefix(s, "%s: refusing to save an invalid %s matrix", path, f->name);
  return check_finite_values(E, path);
}

static size_t build_header(const zs_encoded *E, const zsm_layout *L, const uint32_t *crcs,
                           unsigned char *h) {
  memset(h, 0, (size_t)L->header);
  memcpy(h, zsm_magic, 8);
  put_u32(h + 8, ZSM_VERSION);
  put_u32(h + 12, (uint32_t)E->format);
  put_u32(h + 16, (uint32_t)E->type);
  put_u32(h + 20, (uint32_t)E->n_params);
  put_u32(h + 24, (uint32_t)E->n_arrays);
  put_u32(h + 28, 0);
  put_u64(h + 32, (uint64_t)E->rows);
  put_u64(h + 40, (uint64_t)E->cols);
  put_u64(h + 48, (uint64_t)E->nnz);
  put_u64(h + 56, L->file_length);
  unsigned char *p = h + ZSM_FIXED;
  for (int i = 0; i < E->n_params; i++, p += ZSM_PARAM_ENTRY) {
    memcpy(p, E->params[i].name, strlen(E->params[i].name));
    put_u64(p + 32, (uint64_t)E->params[i].value);
  }
  for (int i = 0; i < E->n_arrays; i++, p += ZSM_ARRAY_ENTRY) {
    memcpy(p, E->arrays[i].name, strlen(E->arrays[i].name));
    put_u32(p + 32, E->arrays[i].elem_size);
    put_u32(p + 36, crcs ? crcs[i] : 0);
    put_u64(p + 40, E->arrays[i].count);
    put_u64(p + 48, L->offset[i]);
    put_u64(p + 56, L->length[i]);
  }
  put_u32(p, (uint32_t)crc32(0L, h, (uInt)(p - h)));
  return (size_t)L->header;
}

static int write_zeros(FILE *f, uint64_t n) {
  static const unsigned char zeros[ZSM_ALIGN];
  return n == 0 || fwrite(zeros, 1, (size_t)n, f) == n;
}

/* Stream one array in chunks, little-endian, with its CRC computed on the bytes written (with
 * f NULL, only the CRC). */
static int write_array(FILE *f, const zsi_array *a, uint64_t length, unsigned char *swap_buf,
                       uint32_t *crc_out) {
  uLong crc = crc32(0L, Z_NULL, 0);
  const unsigned char *data = a->data;
  for (uint64_t off = 0; off < length;) {
    const size_t n = (size_t)(length - off < ZSM_CHUNK ? length - off : ZSM_CHUNK);
    const unsigned char *src = data + off;
    if (swap_buf) {
      memcpy(swap_buf, src, n);
      swap_elements(swap_buf, n, a->elem_size);
      src = swap_buf;
    }
    crc = crc32(crc, src, (uInt)n);
    if (f && fwrite(src, 1, n, f) != n) return 0;
    off += n;
  }
  *crc_out = (uint32_t)crc;
  return 1;
}

static zs_status save_arrays(const zs_encoded *E, const char *path);

/* The container's own arrays follow the format's: "meta.options" (the encoder options, for a
 * stored transpose), then "meta.note" (what chose the format). Readers of version 1 that predate
 * them see arrays that no format reads (docs/container.md). */
zs_status zs_encoded_save(const zs_encoded *E, const char *path) {
  if (!E || !path) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_encoded_save: NULL argument");
  const int has_note = E->note && E->note[0], has_options = E->options && E->options[0];
  if (!has_note && !has_options) return save_arrays(E, path);
  if (E->n_arrays > ZSM_MAX_ARRAYS - has_note - has_options)
    return zsi_error(ZS_ERR_UNSUPPORTED, "%s: %d arrays leave no room for the %s", path,
                     E->n_arrays, has_options ? "encoder options" : "note");
  const size_t n_text = has_options ? strlen(E->options) : 0;
  uint64_t bad_at;
  const char *why = has_options ? options_text_problem(E->options, n_text, &bad_at) : NULL;
  if (why)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "%s: encoder options '%.200s' at byte %" PRIu64 ": %s", path, E->options,
                     bad_at, why);
  zs_encoded *C = malloc(sizeof *C);
  unsigned char *record = has_options ? malloc(ZSM_OPTIONS_HEAD + n_text) : NULL;
  if (!C || (has_options && !record)) {
    free(C), free(record);
    return zsi_oom("zs_encoded_save: the container's arrays", sizeof *C + n_text);
  }
  *C = *E;
  C->note = C->options = NULL;
  if (has_options) {
    put_u32(record, ZSM_OPTIONS_VERSION);
    put_u32(record + 4, (uint32_t)n_text);
    memcpy(record + ZSM_OPTIONS_HEAD, E->options, n_text);
    zsi_array *a = &C->arrays[C->n_arrays++];
    snprintf(a->name, sizeof a->name, "%s", ZSM_OPTIONS);
    a->elem_size = 1, a->count = ZSM_OPTIONS_HEAD + n_text, a->data = record;
  }
  if (has_note) {
    zsi_array *a = &C->arrays[C->n_arrays++];
    snprintf(a->name, sizeof a->name, "%s", ZSM_NOTE);
    a->elem_size = 1, a->count = strlen(E->note), a->data = E->note;
  }
  const zs_status s = save_arrays(C, path);
  free(C), free(record); /* the other arrays are E's */
  return s;
}

static zs_status save_arrays(const zs_encoded *E, const char *path) {
  zsm_layout L;
  zs_status s = check_for_save(E, path, &L);
  if (s != ZS_OK) return s;

  unsigned char *header = malloc(ZSM_HEADER_MAX);
  const int need_swap = !host_is_little_endian();
  unsigned char *swap_buf = need_swap ? malloc(ZSM_CHUNK) : NULL;
  if (!header || (need_swap && !swap_buf)) {
    free(header), free(swap_buf);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "%s: out of memory for the save buffers", path);
  }

  /* The header goes first with zero CRCs and is rewritten once the array CRCs are known, so
   * the data is read only once; on a pipe, where there is no going back, the CRCs are
   * computed in a first pass instead. */
  zsi_output out;
  FILE *f = NULL;
  if ((s = zsi_output_open(&out, path, ZSI_OUTPUT_BINARY)) != ZS_OK) goto done;
  if (!(f = zsi_output_stdio(&out))) {
    s = zsi_error(ZS_ERR_IO, "%s: cannot write the output: %s", path, strerror(errno));
    zsi_output_abort(&out);
    goto done;
  }
  uint32_t crcs[ZSM_MAX_ARRAYS];
  if (out.direct)
    for (int i = 0; i < E->n_arrays; i++)
      write_array(NULL, &E->arrays[i], L.length[i], swap_buf, &crcs[i]);
  const char *what = "header";
  size_t hn = build_header(E, &L, out.direct ? crcs : NULL, header);
  int ok = fwrite(header, 1, hn, f) == hn;
  uint64_t pos = L.header;
  for (int i = 0; ok && i < E->n_arrays; i++) {
    what = E->arrays[i].name;
    ok = write_zeros(f, L.offset[i] - pos) &&
         write_array(f, &E->arrays[i], L.length[i], swap_buf, &crcs[i]);
    pos = L.offset[i] + L.length[i];
  }
  if (ok && !out.direct) {
    what = "header";
    hn = build_header(E, &L, crcs, header);
    ok = fseek(f, 0, SEEK_SET) == 0 && fwrite(header, 1, hn, f) == hn;
  }
  if (ok) what = "file", ok = fflush(f) == 0 && !ferror(f);
  const int err = errno;
  if (fclose(f) != 0 && ok) ok = 0;
  if (!ok) {
    zsi_output_abort(&out);
    s = zsi_error(ZS_ERR_IO, "%s: writing %s%s%s failed: %s", path,
                  strcmp(what, "header") && strcmp(what, "file") ? "array '" : "", what,
                  strcmp(what, "header") && strcmp(what, "file") ? "'" : "",
                  strerror(err ? err : EIO));
    goto done;
  }
  s = zsi_output_commit(&out);
done:
  free(header), free(swap_buf);
  return s;
}

/* ---- load ---- */

typedef struct zsm_entry {
  char name[ZSI_NAME_MAX + 1];
  uint32_t elem_size, crc;
  uint64_t count, offset, length;
} zsm_entry;

typedef struct zsm_reader {
  FILE *f;
  const char *path;
  uint64_t pos;
} zsm_reader;

static zs_status read_bytes(zsm_reader *r, void *buf, size_t n) {
  if (n && fread(buf, 1, n, r->f) != n)
    return zsi_error(ZS_ERR_IO, "%s: read of %zu bytes at offset %" PRIu64 " failed: %s", r->path,
                     n, r->pos, ferror(r->f) ? strerror(errno) : "unexpected end of file");
  r->pos += n;
  return ZS_OK;
}

/* Padding must be zero: then every byte of a valid file is checked by something. */
static zs_status skip_zero_padding(zsm_reader *r, uint64_t to, const char *before) {
  unsigned char buf[256];
  while (r->pos < to) {
    const uint64_t start = r->pos;
    const size_t n = (size_t)(to - start < sizeof buf ? to - start : sizeof buf);
    zs_status s = read_bytes(r, buf, n);
    if (s != ZS_OK) return s;
    for (size_t i = 0; i < n; i++)
      if (buf[i])
        return zsi_error(ZS_ERR_CORRUPT,
                         "%s: padding before %s at offset %" PRIu64 ": byte is 0x%02x, not 0",
                         r->path, before, start + i, buf[i]);
  }
  return ZS_OK;
}

static zs_status read_array(zsm_reader *r, const zsm_entry *e, unsigned char *dst) {
  uLong crc = crc32(0L, Z_NULL, 0);
  for (uint64_t off = 0; off < e->length;) {
    const size_t n = (size_t)(e->length - off < ZSM_CHUNK ? e->length - off : ZSM_CHUNK);
    zs_status s = read_bytes(r, dst + off, n);
    if (s != ZS_OK) return s;
    crc = crc32(crc, dst + off, (uInt)n);
    off += n;
  }
  if ((uint32_t)crc != e->crc)
    return zsi_error(ZS_ERR_CORRUPT,
                     "%s: array '%s' at offset %" PRIu64 ": CRC mismatch (stored 0x%08" PRIx32
                     ", computed 0x%08" PRIx32 ")",
                     r->path, e->name, e->offset, e->crc, (uint32_t)crc);
  if (!host_is_little_endian()) swap_elements(dst, e->length, e->elem_size);
  return ZS_OK;
}

/* Everything in the header and directory, before anything is allocated for the data. */
static zs_status parse_header(zsm_reader *r, uint64_t size, unsigned char *h, zs_encoded *hdr,
                              zsm_entry *dir) {
  const char *path = r->path;
  zs_status s;
  if (size < ZSM_FIXED)
    return zsi_error(ZS_ERR_CORRUPT,
                     "%s: header at offset 0: file has %" PRIu64
                     " bytes, the fixed header alone needs %u (truncated?)",
                     path, size, ZSM_FIXED);
  if ((s = read_bytes(r, h, ZSM_FIXED)) != ZS_OK) return s;
  if (memcmp(h, zsm_magic, 8) != 0)
    return zsi_error(ZS_ERR_CORRUPT, "%s: magic at offset 0: not a .zsm file", path);
  const uint32_t version = get_u32(h + 8);
  if (version == 0)
    return zsi_error(ZS_ERR_CORRUPT, "%s: version at offset 8: 0 is not a valid version", path);
  if (version > ZSM_VERSION)
    return zsi_error(ZS_ERR_CORRUPT,
                     "%s: version at offset 8: container version %" PRIu32
                     " is newer than this library reads (%u)",
                     path, version, ZSM_VERSION);
  const uint64_t file_length = get_u64(h + 56);
  if (file_length != size)
    return zsi_error(ZS_ERR_CORRUPT,
                     "%s: file length at offset 56: header records %" PRIu64
                     " bytes, the file has %" PRIu64 " (%s)",
                     path, file_length, size, size < file_length ? "truncated" : "extended");
  const uint32_t format = get_u32(h + 12), type = get_u32(h + 16);
  if (format > INT32_MAX || !zsi_format_lookup((zs_format)format))
    return zsi_error(ZS_ERR_CORRUPT, "%s: format id at offset 12: %" PRIu32 " is not known", path,
                     format);
  if (type != ZS_F32 && type != ZS_F64)
    return zsi_error(ZS_ERR_CORRUPT,
                     "%s: value type at offset 16: %" PRIu32 " is neither 1 (f32) nor 2 (f64)",
                     path, type);
  const uint32_t n_params = get_u32(h + 20), n_arrays = get_u32(h + 24);
  if (n_params > ZSM_MAX_PARAMS)
    return zsi_error(ZS_ERR_CORRUPT, "%s: parameter count at offset 20: %" PRIu32 " exceeds %d",
                     path, n_params, ZSM_MAX_PARAMS);
  if (n_arrays > ZSM_MAX_ARRAYS)
    return zsi_error(ZS_ERR_CORRUPT, "%s: array count at offset 24: %" PRIu32 " exceeds %d", path,
                     n_arrays, ZSM_MAX_ARRAYS);
  if (get_u32(h + 28) != 0)
    return zsi_error(ZS_ERR_CORRUPT, "%s: reserved field at offset 28: 0x%08" PRIx32 ", not 0",
                     path, get_u32(h + 28));
  static const char *const dim_names[3] = {"rows", "cols", "nnz"};
  int64_t dims[3];
  for (int i = 0; i < 3; i++) {
    dims[i] = (int64_t)get_u64(h + 32 + 8 * i);
    const int64_t limit = i < 2 ? (int64_t)ZS_MAX_DIM : ZS_MAX_NNZ;
    if (dims[i] < 0 || dims[i] > limit)
      return zsi_error(ZS_ERR_CORRUPT,
                       "%s: %s at offset %d: %" PRId64 " is outside [0, %" PRId64 "]", path,
                       dim_names[i], 32 + 8 * i, dims[i], limit);
  }
  *hdr = (zs_encoded){.format = (zs_format)format,
                      .type = (zs_type)type,
                      .rows = dims[0],
                      .cols = dims[1],
                      .nnz = dims[2],
                      .n_arrays = (int)n_arrays,
                      .n_params = (int)n_params};

  const uint64_t hsize = header_bytes(n_params, n_arrays);
  if (hsize > size)
    return zsi_error(ZS_ERR_CORRUPT,
                     "%s: header at offset %u: %" PRIu32 " parameters and %" PRIu32
                     " arrays need %" PRIu64 " header bytes, the file has %" PRIu64,
                     path, ZSM_FIXED, n_params, n_arrays, hsize, size);
  if ((s = read_bytes(r, h + ZSM_FIXED, (size_t)(hsize - ZSM_FIXED))) != ZS_OK) return s;

  for (uint32_t i = 0; i < n_params; i++) {
    const uint64_t at = ZSM_FIXED + (uint64_t)ZSM_PARAM_ENTRY * i;
    zsi_param *p = &hdr->params[i];
    const char *bad = check_name_field(h + at, p->name);
    if (bad)
      return zsi_error(ZS_ERR_CORRUPT, "%s: parameter %" PRIu32 " at offset %" PRIu64 ": %s", path,
                       i, at, bad);
    for (uint32_t j = 0; j < i; j++)
      if (strcmp(p->name, hdr->params[j].name) == 0)
        return zsi_error(ZS_ERR_CORRUPT,
                         "%s: parameter '%s' at offset %" PRIu64 ": name appears twice", path,
                         p->name, at);
    p->value = (int64_t)get_u64(h + at + 32);
  }

  uint64_t prev_offset = 0, prev_end = hsize;
  const char *prev_name = NULL;
  for (uint32_t i = 0; i < n_arrays; i++) {
    const uint64_t at =
        ZSM_FIXED + (uint64_t)ZSM_PARAM_ENTRY * n_params + (uint64_t)ZSM_ARRAY_ENTRY * i;
    const unsigned char *d = h + at;
    zsm_entry *e = &dir[i];
    const char *bad = check_name_field(d, e->name);
    if (bad)
      return zsi_error(ZS_ERR_CORRUPT, "%s: array entry %" PRIu32 " at offset %" PRIu64 ": %s",
                       path, i, at, bad);
    for (uint32_t j = 0; j < i; j++)
      if (strcmp(e->name, dir[j].name) == 0)
        return zsi_error(ZS_ERR_CORRUPT, "%s: array '%s' at offset %" PRIu64 ": name appears twice",
                         path, e->name, at);
    e->elem_size = get_u32(d + 32);
    e->crc = get_u32(d + 36);
    e->count = get_u64(d + 40);
    e->offset = get_u64(d + 48);
    e->length = get_u64(d + 56);
    uint64_t bytes, end;
    if (!valid_elem_size(e->elem_size))
      return zsi_error(ZS_ERR_CORRUPT,
                       "%s: array '%s' entry at offset %" PRIu64 ": element size %" PRIu32
                       " is not 1, 2, 4 or 8",
                       path, e->name, at + 32, e->elem_size);
    if (!zsi_mul_u64(e->count, e->elem_size, &bytes))
      return zsi_error(ZS_ERR_CORRUPT,
                       "%s: array '%s' entry at offset %" PRIu64 ": %" PRIu64
                       " elements of %" PRIu32 " bytes overflow 64 bits",
                       path, e->name, at + 40, e->count, e->elem_size);
    if (bytes != e->length)
      return zsi_error(ZS_ERR_CORRUPT,
                       "%s: array '%s' entry at offset %" PRIu64 ": byte length %" PRIu64
                       " is not %" PRIu64 " elements x %" PRIu32 " bytes",
                       path, e->name, at + 56, e->length, e->count, e->elem_size);
    if (e->offset % ZSM_ALIGN != 0)
      return zsi_error(ZS_ERR_CORRUPT,
                       "%s: array '%s' entry at offset %" PRIu64 ": data offset %" PRIu64
                       " is not a multiple of %u",
                       path, e->name, at + 48, e->offset, ZSM_ALIGN);
    if (e->offset < hsize)
      return zsi_error(ZS_ERR_CORRUPT,
                       "%s: array '%s' entry at offset %" PRIu64 ": data offset %" PRIu64
                       " lies inside the %" PRIu64 "-byte header",
                       path, e->name, at + 48, e->offset, hsize);
    if (!zsi_add_u64(e->offset, e->length, &end) || end > size)
      return zsi_error(ZS_ERR_CORRUPT,
                       "%s: array '%s' entry at offset %" PRIu64 ": data [%" PRIu64 ", +%" PRIu64
                       ") lies outside the %" PRIu64 "-byte file",
                       path, e->name, at + 48, e->offset, e->length, size);
    if (prev_name && e->offset < prev_offset)
      return zsi_error(ZS_ERR_CORRUPT,
                       "%s: array '%s' entry at offset %" PRIu64 ": data offset %" PRIu64
                       " is below that of '%s' (%" PRIu64 "): arrays must ascend",
                       path, e->name, at + 48, e->offset, prev_name, prev_offset);
    if (prev_name && e->offset < prev_end)
      return zsi_error(ZS_ERR_CORRUPT,
                       "%s: array '%s' entry at offset %" PRIu64 ": data at %" PRIu64
                       " overlaps array '%s', which ends at %" PRIu64,
                       path, e->name, at + 48, e->offset, prev_name, prev_end);
    prev_offset = e->offset, prev_end = end, prev_name = e->name;
  }
  if (prev_end != size)
    return zsi_error(ZS_ERR_CORRUPT,
                     "%s: file length at offset 56: %" PRIu64
                     " bytes follow the %s at offset %" PRIu64,
                     path, size - prev_end, n_arrays ? "last array" : "header", prev_end);

  const uint64_t crc_at = hsize - 4;
  const uint32_t stored = get_u32(h + crc_at);
  const uint32_t computed = (uint32_t)crc32(0L, h, (uInt)crc_at);
  if (stored != computed)
    return zsi_error(ZS_ERR_CORRUPT,
                     "%s: header CRC at offset %" PRIu64 ": mismatch (stored 0x%08" PRIx32
                     ", computed 0x%08" PRIx32 ")",
                     path, crc_at, stored, computed);
  return ZS_OK;
}

/* The "meta.options" record at file offset `at`: the encoder options E keeps. A record of a
 * later version is skipped (the options only tune a stored transpose); a malformed one is
 * corruption. */
static zs_status take_options(zs_encoded *E, const zsi_array *a, uint64_t at, const char *path) {
  const unsigned char *p = a->data;
  if (a->elem_size != 1 || a->count < ZSM_OPTIONS_HEAD)
    return zsi_error(ZS_ERR_CORRUPT,
                     "%s: record '%s' at offset %" PRIu64 ": %" PRIu64 " elements of %" PRIu32
                     " bytes, not at least %u bytes",
                     path, a->name, at, a->count, a->elem_size, ZSM_OPTIONS_HEAD);
  const uint32_t version = get_u32(p), n = get_u32(p + 4);
  if (version == 0)
    return zsi_error(ZS_ERR_CORRUPT,
                     "%s: record '%s' at offset %" PRIu64 ": version 0 is not a valid version",
                     path, a->name, at);
  if (version > ZSM_OPTIONS_VERSION) return ZS_OK;
  if ((uint64_t)n + ZSM_OPTIONS_HEAD != a->count)
    return zsi_error(ZS_ERR_CORRUPT,
                     "%s: record '%s' at offset %" PRIu64 ": text length %" PRIu32
                     " does not fill the record's %" PRIu64 " bytes",
                     path, a->name, at + 4, n, a->count);
  const char *text = (const char *)p + ZSM_OPTIONS_HEAD;
  uint64_t bad;
  const char *why = options_text_problem(text, n, &bad);
  if (why)
    return zsi_error(ZS_ERR_CORRUPT, "%s: record '%s' at offset %" PRIu64 ": encoder options: %s",
                     path, a->name, at + ZSM_OPTIONS_HEAD + bad, why);
  char *copy = malloc((size_t)n + 1);
  if (!copy) return zsi_oom("zs_encoded_load: encoder options", (uint64_t)n + 1);
  memcpy(copy, text, n);
  copy[n] = '\0';
  free(E->options);
  E->options = copy;
  return ZS_OK;
}

/* Arrays named "meta.*" are the container's, not the format's: "meta.note" (printable text)
 * becomes E's note, "meta.options" its encoder options, others (from later writers) are dropped.
 * dir[j] is where the j-th array of the file lies, for the messages. */
static zs_status take_meta(zs_encoded *E, const zsm_entry *dir, const char *path) {
  for (int i = 0, j = 0; i < E->n_arrays; j++) {
    zsi_array *a = &E->arrays[i];
    if (strncmp(a->name, "meta.", 5) != 0) {
      i++;
      continue;
    }
    if (strcmp(a->name, ZSM_NOTE) == 0) {
      const unsigned char *t = a->data;
      for (uint64_t k = 0; k < a->count; k++)
        if (a->elem_size != 1 || t[k] < 0x20 || t[k] > 0x7E)
          return zsi_error(ZS_ERR_CORRUPT, "%s: array '%s': not printable text at element %" PRIu64,
                           path, a->name, k);
      char *note = malloc((size_t)a->count + 1);
      if (!note) return zsi_oom("zs_encoded_load: note", a->count + 1);
      memcpy(note, a->data, (size_t)a->count);
      note[a->count] = '\0';
      free(E->note);
      E->note = note;
    } else if (strcmp(a->name, ZSM_OPTIONS) == 0) {
      const zs_status s = take_options(E, a, dir[j].offset, path);
      if (s != ZS_OK) return s;
    }
    zsi_free(a->data);
    memmove(a, a + 1, sizeof *a * (size_t)(E->n_arrays - i - 1));
    E->n_arrays--;
  }
  return ZS_OK;
}

zs_status zs_encoded_load(zs_encoded **out, const char *path) {
  if (!out || !path) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_encoded_load: NULL argument");
  FILE *f = NULL;
  uint64_t file_size = 0;
  const zs_status opened = zsi_open_regular(path, "rb", &f, &file_size);
  if (opened != ZS_OK) return opened;
  zsm_reader r = {f, path, 0};
  unsigned char *h = malloc(ZSM_HEADER_MAX);
  zs_encoded *hdr = malloc(sizeof *hdr);
  zsm_entry *dir = malloc(sizeof *dir * ZSM_MAX_ARRAYS);
  zs_encoded *E = NULL;
  zs_status s;
  if (!h || !hdr || !dir) {
    s = zsi_error(ZS_ERR_OUT_OF_MEMORY, "%s: header buffers", path);
    goto done;
  }
  if ((s = parse_header(&r, file_size, h, hdr, dir)) != ZS_OK) goto done;

  /* Sizes are now known to fit inside the file, so allocating them is safe. */
  if ((s = zsi_encoded_new(&E, hdr->format, hdr->type, hdr->rows, hdr->cols, hdr->nnz)) != ZS_OK)
    goto done;
  for (int i = 0; i < hdr->n_params; i++)
    if ((s = zsi_encoded_add_param(E, hdr->params[i].name, hdr->params[i].value)) != ZS_OK)
      goto done;
  for (int i = 0; i < hdr->n_arrays; i++) {
    void *data;
    char before[64];
    snprintf(before, sizeof before, "array '%s'", dir[i].name);
    if ((s = zsi_encoded_add_array(E, dir[i].name, dir[i].elem_size, dir[i].count, &data)) !=
            ZS_OK ||
        (s = skip_zero_padding(&r, dir[i].offset, before)) != ZS_OK ||
        (s = read_array(&r, &dir[i], data)) != ZS_OK)
      goto done;
  }
  if ((s = take_meta(E, dir, path)) != ZS_OK) goto done;
  const zsi_format_ops *fmt = zsi_format_lookup(E->format);
  if ((s = fmt->validate(E)) != ZS_OK) {
    /* What the validator finds wrong is corruption; running out of memory is not. */
    s = zsi_error_prefix(s == ZS_ERR_OUT_OF_MEMORY ? s : ZS_ERR_CORRUPT, "%s: %s payload", path,
                         fmt->name);
    goto done;
  }
  if ((s = check_finite_values(E, path)) != ZS_OK) goto done;
  *out = E;
  E = NULL;
done:
  zs_encoded_destroy(&E);
  free(h), free(hdr), free(dir);
  fclose(f);
  return s;
}
