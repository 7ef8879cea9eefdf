/* zs_omp.h — OpenMP in the library's host code, spelled one way: ZSI_OMP(directive without the
 * leading "omp") and the thread helpers. Built without OpenMP the pragmas vanish and everything
 * runs on the calling thread. */
#ifndef ZS_OMP_H
#define ZS_OMP_H

#include "core/zs_internal.h"

#if defined(_OPENMP)
#include <omp.h>
#define ZSI_PRAGMA(...) _Pragma(#__VA_ARGS__)
#define ZSI_OMP(...) ZSI_PRAGMA(omp __VA_ARGS__)
static inline int zsi_omp_tid(void) { return omp_get_thread_num(); }
static inline int zsi_omp_nth(void) { return omp_get_num_threads(); }
/* Threads for library work outside a backend (encoders, decoders, generators): $ZS_NUM_THREADS
 * when set, else OpenMP's default. */
static inline int zsi_omp_threads(void) { return zsi_threads_from_env(omp_get_max_threads()); }
#else
#define ZSI_OMP(...)
static inline int zsi_omp_tid(void) { return 0; }
static inline int zsi_omp_nth(void) { return 1; }
static inline int zsi_omp_threads(void) { return 1; }
#endif

#endif
