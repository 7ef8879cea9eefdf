/* test_random.h — test helpers: the two small generators tests draw random matrices and vectors
 * from. A test keeps its own seed, so the numbers it draws stay those its checks were made for. */
#ifndef ZS_TEST_RANDOM_H
#define ZS_TEST_RANDOM_H

#include <stdint.h>

/* splitmix64: the next value of the stream whose state is *s. */
static inline uint64_t zs_test_splitmix64(uint64_t *s) {
  uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/* A double in [-1, 1) from 53 bits of the splitmix64 stream *s. */
static inline double zs_test_unit(uint64_t *s) {
  return (double)(zs_test_splitmix64(s) >> 11) * 0x1p-53 * 2.0 - 1.0;
}

/* Knuth's MMIX linear congruential step on *s; its top 64 - drop bits (an LCG's low bits repeat
 * with short periods, so a test drops them). */
static inline uint64_t zs_test_lcg(uint64_t *s, int drop) {
  *s = *s * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
  return *s >> drop;
}

#endif
