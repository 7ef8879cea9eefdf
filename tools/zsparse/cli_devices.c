/* cli_devices.c — `zsparse devices`: topology, discovered devices, backends and why not. */
#include <stdio.h>

#include "cli.h"

static const char help_text[] =
    "usage: zsparse devices [--json]\n"
    "\n"
    "Prints what the library discovered when creating a context:\n"
    "  topology  CPU packages, cores, processing units (PUs), NUMA nodes, the OpenMP threads\n"
    "            the cpu backend uses (cores, or $ZS_NUM_THREADS), GPUs seen on the PCI bus\n"
    "            by vendor, and whether hwloc was used\n"
    "  devices   one line per discovered object (PCI GPUs, hwloc OS devices)\n"
    "  backends  ref, cpu, cuda, hip: usable yes/no with what was found or why not\n"
    "  default   the backend used when none is named ($ZS_BACKEND, else cuda > hip > cpu)\n"
    "\n"
    "options:\n"
    "  --json    one JSON object on stdout: topology{packages, cores, pus, numa_nodes,\n"
    "            threads, gpus_nvidia, gpus_amd, hwloc}, devices[], backends[{name, usable,\n"
    "            detail}], default_backend\n";

int zs_cli_devices(int argc, char **argv) {
  zs_cli_opt opts[] = {{"json", 0, 0, NULL}};
  const char *pos[1];
  int n_pos, help;
  int rc = zs_cli_parse("devices", argc, argv, opts, 1, pos, 0, &n_pos, &help);
  if (rc) return rc;
  if (help) {
    fputs(help_text, stdout);
    return ZS_CLI_OK;
  }
  const int json = zs_cli_get(opts, 1, "json") != NULL;
  zs_context *ctx = NULL;
  zs_status s = zs_context_create(&ctx);
  if (s != ZS_OK) {
    zs_cli_lib_error("devices", s);
    return ZS_CLI_FAIL;
  }
  zs_topology t;
  zs_context_topology(ctx, &t);
  const int n_dev = zs_context_device_count(ctx), n_be = zs_context_backend_count(ctx);
  if (json) {
    zs_json j;
    zs_json_begin(&j, stdout);
    zs_json_object(&j, "topology");
    zs_json_int(&j, "packages", t.packages);
    zs_json_int(&j, "cores", t.cores);
    zs_json_int(&j, "pus", t.pus);
    zs_json_int(&j, "numa_nodes", t.numa_nodes);
    zs_json_int(&j, "threads", t.threads);
    zs_json_int(&j, "gpus_nvidia", t.gpus_nvidia);
    zs_json_int(&j, "gpus_amd", t.gpus_amd);
    zs_json_bool(&j, "hwloc", t.hwloc);
    zs_json_object_end(&j);
    zs_json_array(&j, "devices");
    for (int i = 0; i < n_dev; i++) zs_json_str(&j, NULL, zs_context_device(ctx, i));
    zs_json_array_end(&j);
    zs_json_array(&j, "backends");
    for (int i = 0; i < n_be; i++) {
      zs_backend_info b;
      if (zs_context_backend_info(ctx, i, &b) != ZS_OK) continue;
      zs_json_object(&j, NULL);
      zs_json_str(&j, "name", b.name);
      zs_json_bool(&j, "usable", b.usable);
      zs_json_str(&j, "detail", b.detail);
      zs_json_object_end(&j);
    }
    zs_json_array_end(&j);
    zs_json_str(&j, "default_backend", zs_context_default_backend(ctx));
    zs_json_end(&j);
  } else {
    printf(
        "topology: %d package(s), %d core(s), %d PU(s), %d NUMA node(s); cpu backend "
        "threads: %d; hwloc: %s\n",
        t.packages, t.cores, t.pus, t.numa_nodes, t.threads, t.hwloc ? "yes" : "no");
    printf("PCI GPUs: %d NVIDIA, %d AMD\n", t.gpus_nvidia, t.gpus_amd);
    printf("devices:%s\n", n_dev ? "" : " (none found)");
    for (int i = 0; i < n_dev; i++) printf("  %s\n", zs_context_device(ctx, i));
    printf("backends:\n");
    for (int i = 0; i < n_be; i++) {
      zs_backend_info b;
      if (zs_context_backend_info(ctx, i, &b) != ZS_OK) continue;
      printf("  %-5s %-10s %s\n", b.name, b.usable ? "usable" : "not usable",
             b.detail ? b.detail : "");
    }
    printf("default backend: %s\n", zs_context_default_backend(ctx));
  }
  zs_context_destroy(&ctx);
  return ZS_CLI_OK;
}
