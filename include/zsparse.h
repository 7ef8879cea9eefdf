/* zsparse.h — public API: compressed sparse matrices decoded inside SpMV / SpMVT kernels. */
#ifndef ZSPARSE_H
#define ZSPARSE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ZS_VERSION_MAJOR 0
#define ZS_VERSION_MINOR 1
#define ZS_VERSION_PATCH 0
#define ZS_VERSION_NUMBER (ZS_VERSION_MAJOR * 10000 + ZS_VERSION_MINOR * 100 + ZS_VERSION_PATCH)

#if defined(_WIN32)
#define ZS_API
#elif defined(__GNUC__)
#define ZS_API __attribute__((visibility("default")))
#else
#define ZS_API
#endif

/* Status codes are stable: never renumbered. 0 ok, < 0 error, > 0 information. */
typedef enum zs_status {
  ZS_OK = 0,
  ZS_INFO_NOT_CONVERGED = 1,
  ZS_ERR_INVALID_ARGUMENT = -1,
  ZS_ERR_OUT_OF_MEMORY = -2,
  ZS_ERR_OVERFLOW = -3,    /* a size or index does not fit its type or limit */
  ZS_ERR_IO = -4,          /* open/read/write failed */
  ZS_ERR_PARSE = -5,       /* malformed text input (Matrix Market, option string) */
  ZS_ERR_CORRUPT = -6,     /* container or encoded blob fails validation */
  ZS_ERR_UNSUPPORTED = -7, /* valid request this build/backend/format cannot do */
  ZS_ERR_BACKEND_UNAVAILABLE = -8,
  ZS_ERR_DEVICE = -9,     /* the device runtime reported an error */
  ZS_ERR_BREAKDOWN = -10, /* a solver hit a zero divisor */
  ZS_ERR_INTERNAL = -11,
  ZS_ERR_OUT_OF_RANGE = -12, /* an index outside the matrix, or a value that is NaN/Inf */
} zs_status;

typedef enum zs_type { ZS_F32 = 1, ZS_F64 = 2 } zs_type;

typedef enum zs_op {
  ZS_OP_N = 0, /* y = alpha*A*x + beta*y */
  ZS_OP_T = 1, /* y = alpha*A^T*x + beta*y */
} zs_op;

/* Format ids are stored in .zsm files: never renumbered. */
typedef enum zs_format {
  ZS_FORMAT_CSR = 1,
  ZS_FORMAT_COO = 2,
  ZS_FORMAT_CSB = 3,
  ZS_FORMAT_GCSB = 4,
  ZS_FORMAT_CCI = 5,
  ZS_FORMAT_DTANS = 6,
  ZS_FORMAT_VANS = 7,
  ZS_FORMAT_SELL = 8,
  /* Not a format: asks zs_encode to choose one (zsparse_auto.h). Never stored: a container
   * holds the format chosen. Its name is "auto". */
  ZS_FORMAT_AUTO = -1,
} zs_format;

/* Opaque handles. */
typedef struct zs_context zs_context;
typedef struct zs_matrix zs_matrix;
typedef struct zs_encoded zs_encoded;
typedef struct zs_operator zs_operator;
typedef struct zs_vector zs_vector;

/* Arguments, for every function of the public headers: a function returning zs_status returns
 * ZS_ERR_INVALID_ARGUMENT, with a message naming the function, for a NULL object, array or
 * out-pointer that is not documented as optional, and sets its out-pointers only on success.
 * A getter given a NULL object returns 0 (counts, sizes, flags; (zs_type)0 and (zs_format)0
 * mean "no type" and "no format") or NULL (names, strings, arrays), as noted at each one.
 * Destroy functions accept NULL and a pointer to NULL. tests/api/api_walk.c checks all of it. */

/* Library version as "MAJOR.MINOR.PATCH"; static storage. */
ZS_API const char *zs_version(void);

/* Message describing the last error on the calling thread (file, line, array or limit involved);
 * "" when none yet. Meaningful only right after a call that returned an error: successful calls
 * do not clear it. Valid until the next zs_ call on this thread. Thread-safe. */
ZS_API const char *zs_last_error(void);
/* Short stable name of a status code, e.g. "ZS_ERR_PARSE"; "ZS_ERR_UNKNOWN" for another value. */
ZS_API const char *zs_status_name(zs_status s);
ZS_API const char *zs_type_name(zs_type t);     /* "f32" / "f64"; "invalid" for another value */
ZS_API size_t zs_type_size(zs_type t);          /* 4 / 8, 0 for an invalid type */
ZS_API const char *zs_format_name(zs_format f); /* "csr", "coo", ... ; NULL if unknown */
/* Parse a format name; ZS_ERR_INVALID_ARGUMENT for an unknown name. */
ZS_API zs_status zs_format_from_name(const char *name, zs_format *out);

/* ------------------------------------------------------------------------------------------ */
/* Matrices: canonical host CSR (rows sorted by column, duplicates summed, validated).          */
/* Limits: rows, cols <= 2^31 - 1; nnz < 2^62; a row's entries before its duplicates are        */
/* summed < 2^32. Indices are 0-based.                                                          */

enum {
  ZS_MATRIX_DROP_ZEROS = 1u << 0, /* drop explicit zeros (kept by default: they are structure) */
  ZS_MATRIX_ALLOW_NONFINITE = 1u << 1, /* accept NaN/Inf values (refused by default) */
};

/* Build from COO triplets. values: `type` elements, or NULL for a pattern matrix (all ones).
 * The arrays are borrowed and copied. Errors: ZS_ERR_INVALID_ARGUMENT, ZS_ERR_OVERFLOW (sizes
 * beyond the limits), ZS_ERR_OUT_OF_RANGE (index outside the matrix, non-finite value: the
 * message names the entry), ZS_ERR_OUT_OF_MEMORY. *out is set only on success. */
ZS_API zs_status zs_matrix_from_coo(zs_matrix **out, int64_t rows, int64_t cols, int64_t nnz,
                                    const int64_t *row_idx, const int64_t *col_idx,
                                    const void *values, zs_type type, unsigned flags);
/* Build from CSR arrays (row_ptr has rows + 1 entries, need not be sorted within rows). */
ZS_API zs_status zs_matrix_from_csr(zs_matrix **out, int64_t rows, int64_t cols,
                                    const int64_t *row_ptr, const int32_t *col_idx,
                                    const void *values, zs_type type, unsigned flags);
/* A copy of A with values converted to `type` (f64 -> f32 rounds to nearest). */
ZS_API zs_status zs_matrix_convert(zs_matrix **out, const zs_matrix *A, zs_type type);
/* Aᵀ (cols x rows, same value type, rows ascending within each of its rows). */
ZS_API zs_status zs_matrix_transpose(zs_matrix **out, const zs_matrix *A);
ZS_API void zs_matrix_destroy(zs_matrix **A);

/* NULL A: 0, and (zs_type)0 for the type. */
ZS_API int64_t zs_matrix_rows(const zs_matrix *A);
ZS_API int64_t zs_matrix_cols(const zs_matrix *A);
ZS_API int64_t zs_matrix_nnz(const zs_matrix *A);
ZS_API zs_type zs_matrix_type(const zs_matrix *A);
/* Borrow the CSR arrays (row_ptr: rows + 1 int64, col_idx: nnz int32, values: nnz of type).
 * Valid while A lives. Any out-pointer may be NULL; a NULL A sets each of them to NULL. */
ZS_API void zs_matrix_csr(const zs_matrix *A, const int64_t **row_ptr, const int32_t **col_idx,
                          const void **values);

/* Matrix Market. Field and symmetry as read from the header. */
typedef enum zs_mm_field { ZS_MM_REAL = 1, ZS_MM_INTEGER = 2, ZS_MM_PATTERN = 3 } zs_mm_field;
typedef enum zs_mm_symmetry {
  ZS_MM_GENERAL = 1,
  ZS_MM_SYMMETRIC = 2,
  ZS_MM_SKEW_SYMMETRIC = 3,
} zs_mm_symmetry;
typedef struct zs_mm_info {
  zs_mm_field field;
  zs_mm_symmetry symmetry;
  int dense;              /* 1 for `array` files */
  int64_t entries_stored; /* data lines in the file */
} zs_mm_info;

/* Read a .mtx or .mtx.gz (gzip detected from the content, not the name; bytes after the gzip
 * stream are refused); path "-" is standard input, and pipes are read like files. Symmetric and
 * skew-symmetric files are mirrored (a file storing both (i, j) and (j, i) is refused);
 * values converted to `type` (decimal only; NaN, Inf and sums of duplicates past the type's
 * range refused unless `flags` has ZS_MATRIX_ALLOW_NONFINITE); explicit zeros kept unless
 * `flags` has ZS_MATRIX_DROP_ZEROS. info may be NULL. Complex and Hermitian files are refused
 * (ZS_ERR_UNSUPPORTED). Errors name the file and line (docs/bad-input.md). Progress goes to
 * stderr when `progress` is non-zero and reading takes longer than a second. */
ZS_API zs_status zs_matrix_read(zs_matrix **out, const char *path, zs_type type, unsigned flags,
                                zs_mm_info *info, int progress);
/* Write as `coordinate real general` (gzip when path ends in ".gz"); values printed with
 * enough digits to read back bit for bit. Outputs follow docs/bad-input.md: a unique temporary
 * renamed over the target (mode kept, a symlink's target replaced), "-" or a pipe or terminal
 * written in place, directories and devices refused. */
ZS_API zs_status zs_matrix_write(const zs_matrix *A, const char *path);

/* Generate a matrix from a spec such as "stencil2d:n=1024,points=5" (see `zsparse gen --help`
 * and docs/generators.md for kinds and keys). Deterministic for a given spec and seed. */
ZS_API zs_status zs_matrix_generate(zs_matrix **out, const char *spec, zs_type type, int progress);

/* ------------------------------------------------------------------------------------------ */
/* Encoded matrices: named typed arrays + integer parameters, in one format.                    */

/* Encode A into `format`. options: "key=value,key=value" or NULL for the format's defaults;
 * an unknown key, a key given twice, or a number not in decimal is ZS_ERR_INVALID_ARGUMENT
 * (this holds for every option string: encoders, backends, generators). A is borrowed.
 * ZS_FORMAT_AUTO takes zs_plan_create's options (backend=, device=, workload=, ...) and encodes
 * in the format and encoder options the plan chooses; zs_encoded_note says which and why. */
ZS_API zs_status zs_encode(zs_encoded **out, const zs_matrix *A, zs_format format,
                           const char *options);
/* Reference decode back to canonical CSR, bit for bit. */
ZS_API zs_status zs_decode(zs_matrix **out, const zs_encoded *E);
ZS_API void zs_encoded_destroy(zs_encoded **E);

/* .zsm container (docs/container.md): little-endian, 64-byte aligned arrays, CRC32 per array,
 * finite values only (ZS_ERR_OUT_OF_RANGE naming the array and element, on save and on load).
 * Saving writes a unique temporary and renames it (docs/bad-input.md), so a failed save leaves
 * no half file and an existing file untouched; a terminal is refused. Loading validates everything (header, bounds, CRCs, then the format's own
 * validate) and refuses truncated or corrupted files with ZS_ERR_CORRUPT naming the file, array
 * and offset; a missing or non-regular file gives ZS_ERR_IO. The encoder options zs_encode was
 * given travel in the file (a stored transpose uses them); options that are not "key=value"
 * entries of printable ASCII are ZS_ERR_INVALID_ARGUMENT on save, ZS_ERR_CORRUPT on load. */
ZS_API zs_status zs_encoded_save(const zs_encoded *E, const char *path);
ZS_API zs_status zs_encoded_load(zs_encoded **out, const char *path);

/* NULL E: 0 ((zs_format)0, (zs_type)0). */
ZS_API zs_format zs_encoded_format(const zs_encoded *E);
ZS_API zs_type zs_encoded_type(const zs_encoded *E);
ZS_API int64_t zs_encoded_rows(const zs_encoded *E);
ZS_API int64_t zs_encoded_cols(const zs_encoded *E);
ZS_API int64_t zs_encoded_nnz(const zs_encoded *E);
/* Bytes of all arrays together (what a kernel reads, not counting x and y). */
ZS_API uint64_t zs_encoded_bytes(const zs_encoded *E);
ZS_API int zs_encoded_array_count(const zs_encoded *E);
/* Name (static while E lives), element size in bytes and element count of array i (any
 * out-pointer may be NULL); ZS_ERR_INVALID_ARGUMENT for i outside [0, array count). */
ZS_API zs_status zs_encoded_array_info(const zs_encoded *E, int i, const char **name,
                                       size_t *elem_size, uint64_t *count);
ZS_API int zs_encoded_param_count(const zs_encoded *E);
/* Format-specific figures (for dtANS: cross-entropy, predicted and actual size, shares of
 * tables, row lengths, escapes and streams): fn is called once per figure with a name such as
 * "stream_bytes" and its value. Formats without extra figures call it never. */
typedef void (*zs_stat_fn)(void *ctx, const char *name, double value);
ZS_API zs_status zs_encoded_stats(const zs_encoded *E, zs_stat_fn fn, void *ctx);
ZS_API zs_status zs_encoded_param_info(const zs_encoded *E, int i, const char **name,
                                       int64_t *value);
/* What chose E's format, when ZS_FORMAT_AUTO did: one line "format=F options=O op_options=P
 * reason=..." kept in .zsm files (docs/container.md); "" when none; NULL for a NULL E. Static
 * while E lives. */
ZS_API const char *zs_encoded_note(const zs_encoded *E);
/* The encoder options E was encoded with: zs_encode's string as given, kept in .zsm files, with
 * which a "transpose=stored" operator encodes Aᵀ; "" when none; NULL for a NULL E. Static while
 * E lives. */
ZS_API const char *zs_encoded_options(const zs_encoded *E);

/* ------------------------------------------------------------------------------------------ */
/* Context and backends.                                                                        */

/* Discover hardware (hwloc: cores, NUMA nodes, PCI GPUs) and register backends ("ref", "cpu",
 * and "cuda"/"hip" modules when a device of that vendor is found and its runtime confirms it).
 * Each context has its own backend state: any number may exist at once, be created from
 * several threads, and be destroyed while others work on. A context's objects (vectors,
 * operators, solvers, chains) may be used from several threads on distinct objects; objects of
 * two contexts never mix (ZS_ERR_INVALID_ARGUMENT). Destroy a context's objects before it. */
ZS_API zs_status zs_context_create(zs_context **out);
ZS_API void zs_context_destroy(zs_context **ctx);

typedef struct zs_backend_info {
  const char *name;   /* "ref", "cpu", "cuda", "hip" */
  int usable;         /* 1 if operators can be created on it */
  const char *detail; /* what was found, or why it is not usable */
} zs_backend_info;
ZS_API int zs_context_backend_count(const zs_context *ctx); /* 0 for a NULL ctx */
/* ZS_ERR_INVALID_ARGUMENT for i outside [0, backend count). */
ZS_API zs_status zs_context_backend_info(const zs_context *ctx, int i, zs_backend_info *info);
/* The backend used when none is named: $ZS_BACKEND if set, else cuda > hip > cpu; NULL for a
 * NULL ctx. */
ZS_API const char *zs_context_default_backend(const zs_context *ctx);

typedef struct zs_topology {
  int packages, cores, pus, numa_nodes;
  int gpus_nvidia, gpus_amd; /* PCI display/3D controllers by vendor id */
  int threads;               /* OpenMP threads the cpu backend uses */
  int hwloc;                 /* 1 if hwloc was used */
} zs_topology;
/* NULL ctx: *out zeroed; NULL out: nothing. */
ZS_API void zs_context_topology(const zs_context *ctx, zs_topology *out);
/* One line of text per discovered object (PCI GPUs, OS devices); static while ctx lives. NULL
 * ctx: 0 devices; i out of range: NULL. */
ZS_API int zs_context_device_count(const zs_context *ctx);
ZS_API const char *zs_context_device(const zs_context *ctx, int i);

/* ------------------------------------------------------------------------------------------ */
/* Vectors and operators, resident on one backend. backend: a name, or NULL for the default.   */

/* Errors: ZS_ERR_INVALID_ARGUMENT (NULL out or ctx, a bad type, an unknown backend name),
 * ZS_ERR_OVERFLOW (n outside [0, 2^31 - 1]), ZS_ERR_BACKEND_UNAVAILABLE, ZS_ERR_OUT_OF_MEMORY. */
ZS_API zs_status zs_vector_create(zs_vector **out, zs_context *ctx, const char *backend,
                                  zs_type type, int64_t n);
/* A vector over n elements of `type` at `data`, memory the caller owns, on a host backend
 * ("ref", "cpu"): no copy, nothing allocated for the elements; every call on the vector reads
 * and writes `data` in place, so NumPy arrays, PETSc Vec arrays and the like are used as they
 * are. Lifetime: `data` must stay valid until the vector is destroyed or rewrapped, and
 * zs_vector_destroy frees only the vector, never `data`. Alignment: `data` must be a multiple
 * of the element size (4 or 8 bytes); no padding is read past element n - 1. A vector only
 * read (x of zs_spmv, x and w of zs_spmv_pair) may wrap read-only memory. Vectors over
 * overlapping memory are refused where one of them is written (ZS_ERR_INVALID_ARGUMENT).
 * Thread safety: as for any vector; nothing else may write `data` while a call uses it.
 * Errors: those of zs_vector_create; ZS_ERR_INVALID_ARGUMENT for NULL data with n > 0 or
 * misaligned data; ZS_ERR_UNSUPPORTED on a backend whose vectors live in device memory (cuda,
 * hip: create a vector and upload to it). */
ZS_API zs_status zs_vector_wrap(zs_vector **out, zs_context *ctx, const char *backend, zs_type type,
                                int64_t n, void *data);
/* Point a vector made by zs_vector_wrap at other caller memory of its length and type, under
 * the same rules: one vector serves a stream of arrays without a create per call. Errors:
 * ZS_ERR_INVALID_ARGUMENT for a NULL v, a vector made by zs_vector_create, NULL data with
 * n > 0 or misaligned data (v is then unchanged). */
ZS_API zs_status zs_vector_rewrap(zs_vector *v, void *data);
ZS_API void zs_vector_destroy(zs_vector **v);
ZS_API int64_t zs_vector_size(const zs_vector *v); /* NULL v: 0, and (zs_type)0 for the type */
ZS_API zs_type zs_vector_type(const zs_vector *v);
/* Copy n elements of v's type from / to host memory. */
ZS_API zs_status zs_vector_upload(zs_vector *v, const void *host);
ZS_API zs_status zs_vector_download(const zs_vector *v, void *host);
ZS_API zs_status zs_vector_fill(zs_vector *v, double value);
ZS_API zs_status zs_vector_copy(zs_vector *dst, const zs_vector *src);
/* BLAS-1 (deterministic: same bits every run on a backend). */
ZS_API zs_status zs_vector_dot(const zs_vector *x, const zs_vector *y, double *out);
ZS_API zs_status zs_vector_nrm2(const zs_vector *x, double *out);
/* y = alpha*x + beta*y (beta = 0 ignores y's old contents). */
ZS_API zs_status zs_vector_axpby(double alpha, const zs_vector *x, double beta, zs_vector *y);
/* BiCG's vector updates, each one pass over its vectors where the backend fuses them (cuda,
 * hip), else composed of axpby and dot (same results up to rounding; deterministic either way).
 * Residuals: r = r - alpha*q and s = s - alpha*t, then rs = r.s and rr = r.r (either may be
 * NULL). Directions: x = x + alpha*p, then p = z + beta*p and pt = zt + beta*pt. The vectors
 * written must be distinct from each other and from the vectors only read. */
ZS_API zs_status zs_vector_residual_update(double alpha, const zs_vector *q, zs_vector *r,
                                           const zs_vector *t, zs_vector *s, double *rs,
                                           double *rr);
ZS_API zs_status zs_vector_direction_update(double alpha, zs_vector *p, zs_vector *x, double beta,
                                            const zs_vector *z, const zs_vector *zt, zs_vector *pt);

/* Upload E (a copy; E may be destroyed afterwards) to a backend. ZS_ERR_UNSUPPORTED when the
 * backend has no kernel for E's format; it never falls back to another backend. options:
 * "key=value,...", or NULL for the defaults: one table of options for every backend
 * (zs_operator_options_help lists it); ZS_ERR_INVALID_ARGUMENT for an unknown key, a key given
 * twice, a value not allowed, an option that the backend or E's format does not have (the
 * message names which backends have it), or two values that cannot meet (kernel=split with
 * the row blocks' long_rows=fused or reduce=threads, kernel=rows with the split kernel's
 * split_stage or split_spans; the message names both). "transpose=stored", on every backend, encodes Aᵀ in
 * E's format with the encoder options E was encoded with (kept in .zsm files; the defaults for
 * an E with none) and uploads it beside A: SpMVT is then a forward product of
 * that copy (deterministic, as fast as SpMV), for the memory of a second encoded copy and the
 * encoding time at creation. Keys under "experimental." tune kernels for benchmarks and may
 * change without notice. */
ZS_API zs_status zs_operator_create(zs_operator **out, zs_context *ctx, const zs_encoded *E,
                                    const char *backend, const char *options);
ZS_API void zs_operator_destroy(zs_operator **op);
/* The operator options, one line each: key, allowed values, default, the backends that have
 * it, what it does. Static text. */
ZS_API const char *zs_operator_options_help(void);
ZS_API const char *zs_operator_backend(const zs_operator *op); /* NULL for a NULL op */
/* The operator's shape (A's, whatever the op) and value type; 0 and (zs_type)0 for a NULL
 * operator. */
ZS_API int64_t zs_operator_rows(const zs_operator *op);
ZS_API int64_t zs_operator_cols(const zs_operator *op);
ZS_API zs_type zs_operator_type(const zs_operator *op);
/* y = alpha*op(A)*x + beta*y. x and y live on the operator's backend, with its value type;
 * with beta = 0, y's old contents (NaN included) are ignored. SpMVT is deterministic unless the
 * operator was created with an atomic transpose option. */
ZS_API zs_status zs_spmv(zs_operator *op, zs_op which, double alpha, const zs_vector *x,
                         double beta, zs_vector *y);
/* BiCG's two products of one iteration, in one call: y = alpha*A*x + beta*y and
 * z = alpha_t*Aᵀ*w + beta_t*z. x and z have A's column count, y and w its row count; all live
 * on the operator's backend with its value type. y and z must be distinct from each other and
 * from x and w (x and w may be the same vector); with beta = 0 (beta_t = 0) y's (z's) old
 * contents, NaN included, are ignored. Where the backend has a fused kernel for the operator
 * (docs/backends.md: on cpu, CSR with its deterministic SpMVT and CSR-dtANS; on cuda and hip,
 * CSB and GCSB whose SpMV takes the warp walk, and CSR-dtANS, created with "transpose=atomic"),
 * one pass over the matrix serves both products; elsewhere it makes the two zs_spmv products,
 * with their results and their determinism. z is deterministic unless the operator was created
 * with an atomic transpose option, as with zs_spmv; y always is. Returns
 * ZS_ERR_INVALID_ARGUMENT for NULL, mis-sized, mistyped, foreign or aliased vectors, else what
 * the products return. */
ZS_API zs_status zs_spmv_pair(zs_operator *op, double alpha, const zs_vector *x, double beta,
                              zs_vector *y, double alpha_t, const zs_vector *w, double beta_t,
                              zs_vector *z);
/* Wait for the operator's backend to finish queued work (for timing). */
ZS_API zs_status zs_operator_sync(zs_operator *op);

#ifdef __cplusplus
}
#endif
#endif /* ZSPARSE_H */
