/* cli_vans.c — `zsparse vans`: MAT-VANS. */
#include "cli.h"

/* Placeholder until the subcommand lands: it fails and says so. */
int zs_cli_vans(int argc, char **argv) {
  (void)argc, (void)argv;
  fprintf(stderr, "zsparse vans: not implemented yet\n");
  return ZS_CLI_FAIL;
}
