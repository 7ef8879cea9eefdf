/* context.c — context lifetime, backend registry, module loading and backend selection. */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/runtime/runtime.h"

#ifndef ZS_MODULE_INSTALL_DIR
#define ZS_MODULE_INSTALL_DIR ""
#endif
#ifndef ZS_MODULE_BUILD_DIR
#define ZS_MODULE_BUILD_DIR ""
#endif

static zsi_backend_slot *add_slot(zs_context *ctx, const char *name) {
  zsi_backend_slot *b = &ctx->backends[ctx->n_backends++];
  snprintf(b->name, sizeof b->name, "%s", name);
  return b;
}

/* The backend's state for this context; a slot whose init failed is kept, unusable, with why. */
static void init_slot(const zs_context *ctx, zsi_backend_slot *b, const zsb_backend *ops) {
  if (ops->abi_version != ZS_BACKEND_ABI_VERSION) {
    snprintf(b->detail, sizeof b->detail, "module ABI %u, library expects %u", ops->abi_version,
             (unsigned)ZS_BACKEND_ABI_VERSION);
    return;
  }
  const zsb_init_args args = {zsi_backend_error, ctx->topo.threads};
  b->ops = ops;
  const zs_status s = ops->init(&b->self, &args, b->detail, sizeof b->detail);
  b->usable = s == ZS_OK;
  b->out_of_memory = s == ZS_ERR_OUT_OF_MEMORY;
}

/* dlopen libzsparse-<name>.so from $ZS_MODULE_DIR, the build tree, then the install dir. */
static void load_module(const zs_context *ctx, zsi_backend_slot *b, const char *name) {
  /* The build tree keeps each module in backends/<name>/. */
  char build_dir[512];
  snprintf(build_dir, sizeof build_dir, "%s/%s", ZS_MODULE_BUILD_DIR, name);
  const char *dirs[] = {getenv("ZS_MODULE_DIR"), ZS_MODULE_BUILD_DIR[0] ? build_dir : NULL,
                        ZS_MODULE_INSTALL_DIR};
  char path[1024], tried[ZSI_DETAIL_LEN] = "";
  for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
    if (!dirs[i] || !dirs[i][0]) continue;
    snprintf(path, sizeof path, "%s/libzsparse-%s.so", dirs[i], name);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      snprintf(tried + strlen(tried), sizeof tried - strlen(tried), "%s%s", tried[0] ? "; " : "",
               dlerror());
      continue;
    }
    zsb_entry_fn entry = (zsb_entry_fn)dlsym(h, ZSB_ENTRY_SYMBOL);
    if (!entry) {
      snprintf(b->detail, sizeof b->detail, "%.200s has no %s", path, ZSB_ENTRY_SYMBOL);
      dlclose(h);
      return;
    }
    b->module = h;
    init_slot(ctx, b, entry());
    return;
  }
  snprintf(b->detail, sizeof b->detail, "module libzsparse-%s.so not loaded: %s", name,
           tried[0] ? tried : "not built (configure with -Dcuda/-Dhip=enabled)");
}

/* Adds to a backend's detail line (cut at its size). */
static void append_detail(zsi_backend_slot *b, const char *fmt, ...) {
  const size_t used = strlen(b->detail);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(b->detail + used, sizeof b->detail - used, fmt, ap);
  va_end(ap);
}

/* The module names its device's PCI bus id ("pci 0000:3b:00.0"); check that hwloc found the
 * same device, so the runtime and the topology agree on which GPU is used. */
static void match_pci(const zs_context *ctx, zsi_backend_slot *b) {
  const char *p = strstr(b->detail, "pci ");
  if (!b->usable || !p || !ctx->topo.hwloc) return;
  char id[24];
  size_t n = strcspn(p + 4, " ,)");
  snprintf(id, sizeof id, "pci %.*s", (int)(n < 16 ? n : 16), p + 4);
  for (int i = 0; i < ctx->n_devices; i++)
    if (strncmp(ctx->devices[i], id, strlen(id)) == 0) {
      append_detail(b, "; found by hwloc, %s", id);
      return;
    }
  append_detail(b, "; warning: hwloc lists no %s", id);
}

zs_status zs_context_create(zs_context **out) {
  if (!out) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_context_create: out is NULL");
  zs_context *ctx = calloc(1, sizeof *ctx);
  if (!ctx) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "context");
  zsi_discover(ctx);
  init_slot(ctx, add_slot(ctx, "ref"), zsi_backend_ref());
  init_slot(ctx, add_slot(ctx, "cpu"), zsi_backend_cpu());
  static const struct {
    const char *name, *vendor;
    int pci_id;
  } gpu[] = {{"cuda", "NVIDIA", 0x10de}, {"hip", "AMD", 0x1002}};
  /* hwloc finds GPUs by PCI vendor id. Where it lists no PCI device at all (built without it,
   * a container that hides the bus, HWLOC_COMPONENTS=-pci), the vendor runtimes are asked
   * instead, so a present GPU is never missed. */
  const int bus_seen = ctx->topo.hwloc && ctx->pci_objects > 0;
  for (int i = 0; i < 2; i++) {
    zsi_backend_slot *b = add_slot(ctx, gpu[i].name);
    int found = i == 0 ? ctx->topo.gpus_nvidia : ctx->topo.gpus_amd;
    if (found || !bus_seen) {
      load_module(ctx, b, gpu[i].name);
      if (found)
        match_pci(ctx, b);
      else if (b->usable)
        append_detail(b, "; found by the runtime: hwloc %s",
                      ctx->topo.hwloc ? "lists no PCI devices" : "not built in");
    } else
      snprintf(b->detail, sizeof b->detail, "no %s GPU found (hwloc PCI vendor 0x%04x)",
               gpu[i].vendor, gpu[i].pci_id);
  }
  /* A backend that could not make its state for want of memory is an allocation failure of
   * this call, not a backend missing from the machine: the caller may try again. */
  for (int i = 0; i < ctx->n_backends; i++)
    if (ctx->backends[i].out_of_memory) {
      char name[sizeof ctx->backends[i].name], why[ZSI_DETAIL_LEN];
      snprintf(name, sizeof name, "%s", ctx->backends[i].name);
      snprintf(why, sizeof why, "%s", ctx->backends[i].detail);
      zs_context_destroy(&ctx);
      return zsi_error(ZS_ERR_OUT_OF_MEMORY, "zs_context_create: backend '%s': %s", name, why);
    }
  *out = ctx;
  return ZS_OK;
}

void zs_context_destroy(zs_context **ctx) {
  if (!ctx || !*ctx) return;
  for (int i = 0; i < (*ctx)->n_backends; i++) {
    zsi_backend_slot *b = &(*ctx)->backends[i];
    if (b->ops && b->usable && b->ops->fini) b->ops->fini(b->self);
    if (b->module) dlclose(b->module);
  }
  free(*ctx);
  *ctx = NULL;
}

int zs_context_backend_count(const zs_context *ctx) { return ctx ? ctx->n_backends : 0; }

zs_status zs_context_backend_info(const zs_context *ctx, int i, zs_backend_info *info) {
  if (!ctx || !info)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_context_backend_info: ctx or info is NULL");
  if (i < 0 || i >= ctx->n_backends)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "zs_context_backend_info: backend index %d is outside [0, %d)", i,
                     ctx->n_backends);
  const zsi_backend_slot *b = &ctx->backends[i];
  *info = (zs_backend_info){b->name, b->usable, b->detail};
  return ZS_OK;
}

const char *zs_context_default_backend(const zs_context *ctx) {
  if (!ctx) return NULL;
  const char *env = getenv("ZS_BACKEND");
  if (env && *env) return env;
  static const char *const order[] = {"cuda", "hip", "cpu"};
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < ctx->n_backends; i++)
      if (ctx->backends[i].usable && strcmp(ctx->backends[i].name, order[k]) == 0) return order[k];
  return "cpu";
}

void zs_context_topology(const zs_context *ctx, zs_topology *out) {
  if (out) *out = ctx ? ctx->topo : (zs_topology){0};
}
int zs_context_device_count(const zs_context *ctx) { return ctx ? ctx->n_devices : 0; }
const char *zs_context_device(const zs_context *ctx, int i) {
  return ctx && i >= 0 && i < ctx->n_devices ? ctx->devices[i] : NULL;
}

zs_status zsi_backend_get(zs_context *ctx, const char *name, const zsi_backend_slot **out) {
  if (!ctx) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "context is NULL");
  if (!name) name = zs_context_default_backend(ctx);
  for (int i = 0; i < ctx->n_backends; i++) {
    const zsi_backend_slot *b = &ctx->backends[i];
    if (strcmp(b->name, name) != 0) continue;
    if (!b->usable)
      return zsi_error(ZS_ERR_BACKEND_UNAVAILABLE, "backend '%s' is not usable: %s", name,
                       b->detail);
    *out = b;
    return ZS_OK;
  }
  return zsi_error(ZS_ERR_INVALID_ARGUMENT, "unknown backend '%s' (known: ref, cpu, cuda, hip)",
                   name);
}
