/* zsparse_vans.h — MAT-VANS: int8 layers, rANS-coded per row, decoded inside chained
 * matrix-vector products (docs/formats/vans.md). */
#ifndef ZSPARSE_VANS_H
#define ZSPARSE_VANS_H

#include <stddef.h>
#include <stdint.h>

#include "zsparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A chain of K coded layers W_0..W_{K-1} (W_k is N_{k+1} x N_k) and the int8 vector v0. */
typedef struct zs_vans zs_vans;

/* File-level options of zs_vans_create. */
enum {
  ZS_VANS_PER_ROW = 1u,     /* one scale per row instead of one per layer */
  ZS_VANS_INTERLEAVED = 2u, /* rows coded as ZS_VANS_LANES interleaved sub-streams */
  /* Rows as ZS_VANS_LANES interleaved sub-streams of weight pairs under a 12-bit model, 64-bit
   * states and 32-bit words: half the decode steps of the other layouts (the fastest on GPUs).
   * Layers with more than 4096 distinct (even column, odd column) pairs are refused. */
  ZS_VANS_PAIRS = 4u,
};
#define ZS_VANS_LANES 32
#define ZS_VANS_MAX_DIM 131071 /* keeps every int32 accumulator of int8 products exact */
#define ZS_VANS_MAX_LAYERS 4096

/* An empty chain for input vectors of n0 entries; v0 (n0 int8, copied) is the stored input, or
 * NULL for zeros. Errors: ZS_ERR_INVALID_ARGUMENT (flags), ZS_ERR_OVERFLOW (n0 outside
 * 1..ZS_VANS_MAX_DIM), ZS_ERR_OUT_OF_MEMORY. *out is set only on success. */
ZS_API zs_status zs_vans_create(zs_vans **out, int64_t n0, const int8_t *v0, unsigned flags);
/* Append a layer of `rows` x (rows of the previous layer, or n0) f32 weights, row-major
 * (borrowed): quantised to int8 in [-127, 127] with delta = absmax/127 per layer (per row with
 * ZS_VANS_PER_ROW), entropy-modelled and coded. Errors: ZS_ERR_OUT_OF_RANGE (a non-finite
 * weight), ZS_ERR_OVERFLOW (rows, layer count), ZS_ERR_OUT_OF_MEMORY. */
ZS_API zs_status zs_vans_add_layer(zs_vans *V, int64_t rows, const float *w);
/* Append already quantised weights (row-major, borrowed) with their scales: one delta, or one
 * per row when the chain is ZS_VANS_PER_ROW. Weights must span at most 255 values. Errors as
 * zs_vans_add_layer, plus ZS_ERR_OUT_OF_RANGE for a non-positive or non-finite scale. */
ZS_API zs_status zs_vans_add_layer_int8(zs_vans *V, int64_t rows, const int8_t *w,
                                        const float *scales);
/* Test layers: spec "n=4096,k=20,seed=1[,rows=R][,entropy=BITS][,v0=SEED]": K square (or
 * R x n, then R x R) layers of Gaussian weights (sigma 1/sqrt(cols)); with entropy=BITS the
 * quantisation step is chosen so the int8 weights have about that entropy (clipped to
 * [-127, 127]). Errors: ZS_ERR_INVALID_ARGUMENT / ZS_ERR_PARSE naming the key. */
ZS_API zs_status zs_vans_generate(zs_vans **out, const char *spec, unsigned flags);
ZS_API void zs_vans_destroy(zs_vans **V);

/* The report's container (Table 1), or the extended container when flags are set. Reading
 * validates every field and decodes every row once; ZS_ERR_CORRUPT names the layer, field and
 * limit, ZS_ERR_IO the file. write_memory returns a malloc'ed buffer the caller free()s. */
ZS_API zs_status zs_vans_read(zs_vans **out, const char *path);
ZS_API zs_status zs_vans_read_memory(zs_vans **out, const void *data, size_t size);
ZS_API zs_status zs_vans_write(const zs_vans *V, const char *path);
ZS_API zs_status zs_vans_write_memory(const zs_vans *V, void **data, size_t *size);
/* The report's baseline file (Appendix A: plain int8 weights, column-major). read_baseline
 * codes the layers with `flags` as zs_vans_create does. */
ZS_API zs_status zs_vans_read_baseline(zs_vans **out, const char *path, unsigned flags);
ZS_API zs_status zs_vans_write_baseline(const zs_vans *V, const char *path);

/* NULL V: 0 layers, dimension 0, flags 0, v0 NULL. */
ZS_API int zs_vans_layers(const zs_vans *V);
ZS_API int64_t zs_vans_dim(const zs_vans *V, int k); /* N_k, k = 0..K; 0 when out of range */
ZS_API unsigned zs_vans_flags(const zs_vans *V);
ZS_API const int8_t *zs_vans_v0(const zs_vans *V);

typedef struct zs_vans_layer_info {
  int64_t rows, cols;
  float delta; /* the layer's scale (largest row scale with ZS_VANS_PER_ROW) */
  int w_min, grid;
  int64_t payload_words;
  int64_t bytes;             /* the layer's record in the container */
  double entropy_bits;       /* empirical entropy of the int8 weights, bits per weight */
  double cross_entropy_bits; /* expected code length under the layer's model, bits per weight */
  double payload_bits_per_weight;
} zs_vans_layer_info;
ZS_API zs_status zs_vans_layer_info_get(const zs_vans *V, int k, zs_vans_layer_info *info);
/* Decode layer k's int8 weights, row-major, into w (rows * cols) with the reference decoder. */
ZS_API zs_status zs_vans_layer_decode(const zs_vans *V, int k, int8_t *w);

/* A chain bound to a backend ("ref", "cpu", "cuda", "hip"; NULL: the context's default). GPU
 * backends receive the coded layers here (the upload) through their "vans-v2" extension.
 * V must outlive the chain. Errors: ZS_ERR_BACKEND_UNAVAILABLE, ZS_ERR_UNSUPPORTED (a backend
 * without MAT-VANS kernels), ZS_ERR_DEVICE, ZS_ERR_OUT_OF_MEMORY. */
typedef struct zs_vans_chain zs_vans_chain;
ZS_API zs_status zs_vans_chain_create(zs_vans_chain **out, zs_context *ctx, const zs_vans *V,
                                      const char *backend);
/* y (N_K int8) = the chained product applied to x (N_0 int8; NULL: the stored v0). Each layer
 * accumulates int32, multiplies by its integer row multipliers (all 1 without row scales) and
 * requantises to int8 as round(127 z / max|z|), halves away from zero: integer arithmetic, the
 * same bits on every backend. */
ZS_API zs_status zs_vans_chain_run(zs_vans_chain *c, const int8_t *x, int8_t *y);
/* Milliseconds per run of the chain without transfers (device time on GPUs); reps >= 1. */
ZS_API zs_status zs_vans_chain_time(zs_vans_chain *c, int reps, double *ms);
ZS_API void zs_vans_chain_destroy(zs_vans_chain **c);

#ifdef __cplusplus
}
#endif
#endif
