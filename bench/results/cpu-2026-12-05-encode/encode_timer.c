/* Throwaway timer (fourteenth session): best of 5 zs_encode calls in dtANS per option string.
 * Build: gcc -O2 -std=c11 -Iinclude encode_timer.c -Lbuild-host -lzsparse; run: ./a.out SPEC "" OPTIONS... */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>
#include <zsparse.h>
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
int main(int argc, char **argv) {
  zs_matrix *A = NULL;
  if (zs_matrix_generate(&A, argv[1], ZS_F64, 0)) return 1;
  for (int i = 2; i < argc; i++) {
    double best = 1e9;
    for (int r = 0; r < 5; r++) {
      zs_encoded *E = NULL;
      double t0 = now();
      if (zs_encode(&E, A, ZS_FORMAT_DTANS, argv[i][0] ? argv[i] : NULL)) {
        printf("%s\n", zs_last_error());
        return 1;
      }
      double t = now() - t0;
      if (t < best) best = t;
      zs_encoded_destroy(&E);
    }
    printf("%-40s %.3f s  %.1f M nnz/s\n", argv[i][0] ? argv[i] : "(defaults)", best,
           zs_matrix_nnz(A) / best / 1e6);
  }
  return 0;
}
