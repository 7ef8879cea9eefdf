/* cpu_kernels.h — the cpu backend's kernel table and thread helpers. */
#ifndef ZS_CPU_KERNELS_H
#define ZS_CPU_KERNELS_H

#include "backends/format_kernels.h"
#include "core/zs_internal.h"

#include "core/zs_omp.h"
#include "formats/vans/vans_backend.h"

/* gcc 12 at -O3 -march=native turns the in-order f32 CSR sum into AVX-512 gathers plus a
 * lane-by-lane fold, which halved its speed (baselines/cpu.md); keep such loops scalar.
 * (gcc >= 14 has `#pragma GCC novector` for this.) */
#if defined(__GNUC__) && !defined(__clang__)
#define ZSI_NO_VECTORIZE __attribute__((optimize("no-tree-vectorize")))
#else
#define ZSI_NO_VECTORIZE
#endif

/* Kernels get the shared table type and options (backends/format_kernels.h). */
typedef zsi_kernel_opts zsi_cpu_opts;
typedef zsi_format_kernels zsi_cpu_kernel;

/* The cpu kernels of format f, or NULL when the cpu has none (backends/cpu/cpu_formats.c, one
 * `zsi_cpu_<name>` per line of formats/format_list.h). */
ZSI_HIDDEN const zsi_format_kernels *zsi_cpu_kernels_for(zs_format f);

/* MAT-VANS chains, the extension "vans-v2" (cpu_vans.c). */
ZSI_HIDDEN extern const zsb_vans_ops zsi_cpu_vans;

/* floor(total * c / n) without overflowing int64 (total < 2^63, n <= 2^31). */
ZSI_HIDDEN int64_t zsi_cpu_split_point(int64_t total, int64_t n, int64_t c);
/* Cut rows [0, rows) into n parts of about equal nonzeros + rows (a row costs its offset read and
 * y write even when empty): bounds[0..n] from the row offsets rp. */
ZSI_HIDDEN void zsi_cpu_split_rows(const int64_t *rp, int64_t rows, int n, int64_t *bounds);

/* Threads for work outside a context, such as encoding (>= 1): $ZS_NUM_THREADS, else OpenMP's
 * default. A context's cpu backend uses its own count: zsi_backend_cpu_threads(its state). */
ZSI_HIDDEN int zsi_cpu_threads(void);
ZSI_HIDDEN int zsi_backend_cpu_threads(const void *self);

#endif
