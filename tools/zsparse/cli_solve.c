/* cli_solve.c — `zsparse solve`: iterative solvers. */
#include "cli.h"

/* Placeholder until the subcommand lands: it fails and says so. */
int zs_cli_solve(int argc, char **argv) {
  (void)argc, (void)argv;
  fprintf(stderr, "zsparse solve: not implemented yet\n");
  return ZS_CLI_FAIL;
}
