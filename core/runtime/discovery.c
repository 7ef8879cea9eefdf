/* discovery.c — what the machine has: cores and NUMA nodes for the cpu backend, GPUs as PCI
 * devices (vendor id) and OS devices, found through hwloc when built with it. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/runtime/runtime.h"

#ifdef ZS_HAVE_HWLOC
#include <hwloc.h>
#endif

#define PCI_VENDOR_NVIDIA 0x10de
#define PCI_VENDOR_AMD 0x1002

static void add_device(zs_context *ctx, const char *line) {
  if (ctx->n_devices < ZSI_MAX_DEVICES)
    snprintf(ctx->devices[ctx->n_devices++], ZSI_DETAIL_LEN, "%s", line);
}

int zsi_threads_from_env(int fallback) {
  const char *s = getenv("ZS_NUM_THREADS");
  if (!s || !*s) return fallback;
  char *end;
  long n = strtol(s, &end, 10);
  if (*end || n < 1 || n > 4096) {
    fprintf(stderr, "zsparse: ignoring ZS_NUM_THREADS='%s' (want 1..4096)\n", s);
    return fallback;
  }
  return (int)n;
}

#ifdef ZS_HAVE_HWLOC
static const char *osdev_kind(hwloc_obj_osdev_type_t t) {
  switch (t) {
  case HWLOC_OBJ_OSDEV_GPU: return "gpu";
  case HWLOC_OBJ_OSDEV_COPROC: return "coproc";
  case HWLOC_OBJ_OSDEV_BLOCK: return "block";
  case HWLOC_OBJ_OSDEV_NETWORK: return "network";
  case HWLOC_OBJ_OSDEV_OPENFABRICS: return "openfabrics";
  case HWLOC_OBJ_OSDEV_DMA: return "dma";
  }
  return "other";
}

static int discover_hwloc(zs_context *ctx) {
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return 0;
  hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    return 0;
  }
  zs_topology *t = &ctx->topo;
  t->hwloc = 1;
  t->packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
  t->cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  t->pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  t->numa_nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  char line[ZSI_DETAIL_LEN];
  for (hwloc_obj_t o = NULL; (o = hwloc_get_next_pcidev(topo, o));) {
    const struct hwloc_pcidev_attr_s *p = &o->attr->pcidev;
    ctx->pci_objects++;
    /* Class 0x03xx: display, VGA and 3-D controllers (data-centre GPUs report 0x0302). */
    if ((p->class_id >> 8) != 0x03) continue;
    const char *vendor = p->vendor_id == PCI_VENDOR_NVIDIA ? "nvidia"
                         : p->vendor_id == PCI_VENDOR_AMD  ? "amd"
                                                           : "other";
    t->gpus_nvidia += p->vendor_id == PCI_VENDOR_NVIDIA;
    t->gpus_amd += p->vendor_id == PCI_VENDOR_AMD;
    snprintf(line, sizeof line,
             "pci %04x:%02x:%02x.%x vendor 0x%04x (%s) device 0x%04x class 0x%04x", p->domain,
             p->bus, p->dev, p->func, p->vendor_id, vendor, p->device_id, p->class_id);
    add_device(ctx, line);
  }
  for (hwloc_obj_t o = NULL; (o = hwloc_get_next_osdev(topo, o));) {
    hwloc_obj_osdev_type_t k = o->attr->osdev.type;
    if (k != HWLOC_OBJ_OSDEV_GPU && k != HWLOC_OBJ_OSDEV_COPROC) continue;
    snprintf(line, sizeof line, "osdev %s (%s)", o->name ? o->name : "?", osdev_kind(k));
    add_device(ctx, line);
  }
  hwloc_topology_destroy(topo);
  return 1;
}
#endif

void zsi_discover(zs_context *ctx) {
  zs_topology *t = &ctx->topo;
  int found = 0;
#ifdef ZS_HAVE_HWLOC
  found = discover_hwloc(ctx);
#endif
  if (!found) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    t->packages = 1, t->numa_nodes = 1;
    t->cores = t->pus = n > 0 ? (int)n : 1;
  }
  if (t->cores < 1) t->cores = 1;
  /* One thread per core: SpMV is bandwidth-bound, and hyperthreads only contend for it. */
  t->threads = zsi_threads_from_env(t->cores);
}
