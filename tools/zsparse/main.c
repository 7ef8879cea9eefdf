/* main.c — STUB until the command line tool lands. */
#include <stdio.h>
#include "zsparse.h"
int main(void) {
  printf("zsparse %s\n", zs_version());
  return 0;
}
