/* test_gpu_pick.c — the choice of a rank's GPU from locality (ZspPickGpu), on made-up nodes. */
#include <stdio.h>

#include "petsc/aijzsparse_impl.h"

static int failures;

static void expect(int ngpu, const int *near, int local_rank, int want, const char *what) {
  int got = ZspPickGpu(ngpu, near, local_rank);
  if (got != want) {
    printf("FAIL %s: node rank %d got GPU %d, want %d\n", what, local_rank, got, want);
    failures++;
  }
}

int main(void) {
  /* Two sockets with two GPUs each; ranks 0,1 bound to socket 0, ranks 2,3 to socket 1. */
  const int s0[4] = {1, 1, 0, 0}, s1[4] = {0, 0, 1, 1}, none[4] = {0, 0, 0, 0};
  expect(4, s0, 0, 0, "socket 0");
  expect(4, s0, 1, 1, "socket 0");
  expect(4, s1, 2, 2, "socket 1");
  expect(4, s1, 3, 3, "socket 1");
  /* Eight ranks on four GPUs: two per GPU, each on its own socket's GPUs. */
  expect(4, s0, 2, 0, "two per GPU");
  expect(4, s1, 5, 3, "two per GPU");
  /* Unbound ranks (every GPU near) or no locality known: round robin over all. */
  const int all[4] = {1, 1, 1, 1};
  expect(4, all, 6, 2, "unbound");
  expect(4, none, 5, 1, "no locality");
  /* One GPU, no GPU, a bad rank. */
  const int one[1] = {0};
  expect(1, one, 3, 0, "one GPU");
  expect(0, one, 0, -1, "no GPU");
  expect(4, all, -1, -1, "negative rank");
  printf("%d failures\n", failures);
  return failures != 0;
}
