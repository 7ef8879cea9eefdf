/* cli_main.c — the zsparse command line tool: subcommand dispatch, help and version. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
} commands[] = {
    {"devices", zs_cli_devices, "hardware topology, devices and usable backends"},
    {"info", zs_cli_info, "statistics of a .mtx/.mtx.gz matrix or a .zsm container"},
    {"convert", zs_cli_convert, "Matrix Market <-> .zsm (encode in a format / decode back)"},
    {"spmv", zs_cli_spmv, "time y = op(A) x on a backend and check it against a reference"},
    {"gen", zs_cli_gen, "generate a benchmark matrix (stencils, random graphs, banded)"},
    {"demo", zs_cli_demo, "every format on the best backend: sizes, speed, correctness"},
    {"solve", zs_cli_solve, "solve Ax = b with BiCG, BiCGSTAB or CG on any format and backend"},
    {"plan", zs_cli_plan, "the format chooser: candidates, predicted bytes and time, choice"},
    {"calibrate", zs_cli_calibrate, "time the backend; write the chooser's constants to a file"},
    {"vans", zs_cli_vans, "MAT-VANS: ANS-coded int8 layers (gen, encode, info, run)"},
};
#define N_COMMANDS (int)(sizeof commands / sizeof *commands)

static void usage(FILE *f) {
  fprintf(f,
          "zsparse %s — compressed sparse matrices decoded inside SpMV / SpMVT kernels\n"
          "\n"
          "usage: zsparse <command> [options]   (zsparse <command> --help for details)\n"
          "\n"
          "commands:\n",
          zs_version());
  for (int i = 0; i < N_COMMANDS; i++)
    fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
  fprintf(f,
          "  help      this text (or: zsparse help <command>)\n"
          "\n"
          "options: --version, --help\n"
          "exit status: 0 ok; 1 runtime error (unreadable or bad input, out of memory, a backend\n"
          "  not usable here, a device error) or --check failed; 2 usage error (unknown command,\n"
          "  option, format or backend name; a missing, empty or malformed value), found before\n"
          "  any work\n"
          "environment: ZS_BACKEND (default backend), ZS_NUM_THREADS (cpu backend threads)\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return ZS_CLI_USAGE;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
    printf("zsparse %s\n", zs_version());
    return ZS_CLI_OK;
  }
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    if (strcmp(cmd, "help") == 0 && argc >= 3) {
      for (int i = 0; i < N_COMMANDS; i++)
        if (strcmp(argv[2], commands[i].name) == 0) {
          char *help_argv[] = {argv[2], "--help", NULL};
          return commands[i].run(2, help_argv);
        }
      fprintf(stderr, "zsparse help: unknown command '%s'\n", argv[2]);
      return ZS_CLI_USAGE;
    }
    usage(stdout);
    return ZS_CLI_OK;
  }
  for (int i = 0; i < N_COMMANDS; i++)
    if (strcmp(cmd, commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "zsparse: unknown command '%s' (see 'zsparse help')\n", cmd);
  return ZS_CLI_USAGE;
}
