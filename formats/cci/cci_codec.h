/* cci_codec.h — CCI code tables and bit reads, shared by the encoder, validate, the reference
 * decoder, the cpu kernels and the GPU modules (plain C that also compiles as C++/CUDA). */
#ifndef ZS_CCI_CODEC_H
#define ZS_CCI_CODEC_H

#include <stdint.h>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define ZS_CCI_FN __host__ __device__ static inline
#else
#define ZS_CCI_FN static inline
#endif

/* The decode table always has 8 entries: a code's low 3 bits index it (docs/formats/cci.md). */
#define ZS_CCI_TABLE 8
#define ZS_CCI_MAX_WIDTH 32 /* immediate bits: a first column's zigzag offset needs 32 */
#define ZS_CCI_MAX_SLICES 32

/* One table entry, packed in the `optable` array as count | shift << 8 | width << 16. */
typedef struct zs_cci_entry {
  uint32_t count; /* bits consumed: opcode length + width */
  uint32_t shift; /* opcode length, where the immediate starts */
  uint64_t mask;  /* (1 << width) - 1 */
} zs_cci_entry;

ZS_CCI_FN uint32_t zs_cci_pack(uint32_t oplen, uint32_t width) {
  return (oplen + width) | oplen << 8 | width << 16;
}

ZS_CCI_FN zs_cci_entry zs_cci_unpack(uint32_t packed) {
  zs_cci_entry e;
  const uint32_t width = (packed >> 16) & 0xff;
  e.count = packed & 0xff, e.shift = (packed >> 8) & 0xff;
  e.mask = width >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << width) - 1;
  return e;
}

/* 64 bits of the stream starting at bit `pos`: two aligned words and a funnel shift (GPUs have
 * no unaligned loads; the `codes` array carries one word of padding so `w + 1` exists). */
ZS_CCI_FN uint64_t zs_cci_peek(const uint64_t *codes, uint64_t pos) {
  const uint64_t w = pos >> 6;
  const unsigned sh = (unsigned)(pos & 63);
  return (codes[w] >> sh) | ((codes[w + 1] << 1) << (63 - sh));
}

/* A row's first column is coded as zigzag(col - ref) so columns left of ref stay small. */
ZS_CCI_FN uint64_t zs_cci_zigzag(int64_t d) {
  return d < 0 ? ((uint64_t)(-(d + 1)) << 1) | 1 : (uint64_t)d << 1;
}
ZS_CCI_FN int64_t zs_cci_unzigzag(uint64_t z) {
  return (z & 1) ? -(int64_t)(z >> 1) - 1 : (int64_t)(z >> 1);
}

/* Where row i's first column is expected: the diagonal scaled to the matrix's shape, moved by
 * the encoder's first_shift (i < 2^31 and cols < 2^31, so the product fits). */
ZS_CCI_FN int64_t zs_cci_ref(int64_t i, int64_t rows, int64_t cols, int64_t first_shift) {
  return (rows > 0 ? i * cols / rows : 0) + first_shift;
}

#endif
