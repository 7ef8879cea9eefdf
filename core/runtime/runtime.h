/* runtime.h — the context: discovered topology and the backend registry. */
#ifndef ZS_RUNTIME_H
#define ZS_RUNTIME_H

#include "core/zs_internal.h"

#define ZSI_MAX_BACKENDS 8
#define ZSI_MAX_DEVICES 32
#define ZSI_DETAIL_LEN 256

/* One backend of a context: its function table and this context's state of it. Vectors and
 * operators keep a pointer to their slot, so they call the backend with their own context's
 * state. */
typedef struct zsi_backend_slot {
  const zsb_backend *ops; /* NULL when the backend could not be loaded */
  void *self;             /* the state ops->init made for this context */
  char name[16];
  int usable;
  int out_of_memory; /* init failed for want of memory: the context is not made (not a backend
                        that is absent, which stays listed, unusable) */
  char detail[ZSI_DETAIL_LEN];
  void *module; /* dlopen handle, or NULL for built-in backends */
} zsi_backend_slot;

struct zs_context {
  zs_topology topo;
  int n_devices;
  char devices[ZSI_MAX_DEVICES][ZSI_DETAIL_LEN];
  int pci_objects; /* PCI devices of any class hwloc listed: 0 when it could not see the bus */
  int n_backends;
  zsi_backend_slot backends[ZSI_MAX_BACKENDS];
};

/* Fill ctx->topo and ctx->devices (hwloc when built with it, sysconf otherwise). */
ZSI_HIDDEN void zsi_discover(zs_context *ctx);
/* The usable backend named `name` (NULL: the default), or an error naming why not. */
ZSI_HIDDEN zs_status zsi_backend_get(zs_context *ctx, const char *name,
                                     const zsi_backend_slot **out);

/* The operator options for `backend` and `format`, checked against the one table of options
 * (core/runtime/backend_options.c): unknown keys, keys of other backends or formats, and values
 * not allowed are refused, naming what is known. *out (malloc'ed) gets every option that applies,
 * as key=value with the defaults filled in, for the backend's op_create; *stored = 1 for
 * transpose=stored, which the library carries out (the backend sees transpose=deterministic). */
ZSI_HIDDEN zs_status zsi_backend_options(const char *backend, zs_format format, const char *user,
                                         char **out, int *stored);

/* A vector's backend slot (its context's) and storage, for operators (core/runtime/vector.c). */
ZSI_HIDDEN const zsi_backend_slot *zsi_vector_backend(const zs_vector *v);
ZSI_HIDDEN void *zsi_vector_data(const zs_vector *v);
/* 1 if two vectors share any storage (wrapped caller memory may overlap in part). */
ZSI_HIDDEN int zsi_vector_overlap(const zs_vector *a, const zs_vector *b);

#endif
