/* gpu_locality.c — each rank's GPU from hwloc locality, set before a GPU module is loaded.
 *
 * zsparse's GPU modules use the first device their runtime shows. With several ranks and GPUs
 * on a node, each rank is given one GPU through CUDA_VISIBLE_DEVICES (HIP_VISIBLE_DEVICES on
 * AMD): among the GPUs whose PCI bus hangs below the rank's bound cores (hwloc's non-I/O
 * ancestor), or among all when none does, the node-local rank takes them in turn. Indices are
 * in PCI bus order, and CUDA_DEVICE_ORDER=PCI_BUS_ID makes CUDA count the same way. A variable
 * the user already set is left alone. */
#include <stdio.h>
#include <stdlib.h>

#include "petsc/aijzsparse_impl.h"

#ifdef ZS_HAVE_HWLOC
#include <hwloc.h>
#endif

int ZspPickGpu(int ngpu, const int *near, int local_rank) {
  int nnear = 0;

  if (ngpu <= 0 || local_rank < 0) return -1;
  for (int i = 0; i < ngpu; i++) nnear += near[i] != 0;
  int k = local_rank % (nnear ? nnear : ngpu);
  for (int i = 0; i < ngpu; i++)
    if ((!nnear || near[i]) && k-- == 0) return i;
  return -1;
}

#ifdef ZS_HAVE_HWLOC
#define MAX_GPUS 64

typedef struct vendor {
  unsigned id;
  const char *var;
} vendor;

/* The node's GPUs of one vendor in PCI bus order (hwloc lists PCI devices in that order), and
 * whether each is local to the cores this process is bound to. */
static int list_gpus(hwloc_topology_t topo, hwloc_const_bitmap_t bound, unsigned vendor_id,
                     int *near, hwloc_obj_t *objs) {
  int n = 0;
  for (hwloc_obj_t o = hwloc_get_next_pcidev(topo, NULL); o && n < MAX_GPUS;
       o = hwloc_get_next_pcidev(topo, o)) {
    unsigned cls = o->attr->pcidev.class_id >> 8;
    if (o->attr->pcidev.vendor_id != vendor_id || cls != 0x03) continue;
    hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, o);
    near[n] = anc && anc->cpuset && hwloc_bitmap_intersects(anc->cpuset, bound);
    objs[n++] = o;
  }
  return n;
}

static PetscErrorCode map_vendor(hwloc_topology_t topo, hwloc_const_bitmap_t bound, const vendor *v,
                                 int rank, int local_rank, PetscBool verbose) {
  int near[MAX_GPUS];
  hwloc_obj_t objs[MAX_GPUS];
  char idx[16];

  PetscFunctionBegin;
  if (getenv(v->var)) {
    if (verbose)
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "aijzsparse: rank %d keeps %s=%s\n", rank, v->var,
                            getenv(v->var)));
    PetscFunctionReturn(0);
  }
  int n = list_gpus(topo, bound, v->id, near, objs);
  int pick = ZspPickGpu(n, near, local_rank);
  if (pick < 0) PetscFunctionReturn(0);
  snprintf(idx, sizeof idx, "%d", pick);
  if (setenv(v->var, idx, 1) != 0 || (v->id == 0x10de && !getenv("CUDA_DEVICE_ORDER") &&
                                      setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1) != 0))
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SYS, "aijzsparse: cannot set %s", v->var);
  if (verbose) {
    const struct hwloc_pcidev_attr_s *p = &objs[pick]->attr->pcidev;
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "aijzsparse: rank %d (node rank %d): %s=%d, PCI %04x:%02x:%02x.%x, %s "
                          "its cores (%d GPUs)\n",
                          rank, local_rank, v->var, pick, p->domain, p->bus, p->dev, p->func,
                          near[pick] ? "near" : "not near", n));
  }
  PetscFunctionReturn(0);
}
#endif

PetscErrorCode ZspMapGpu(MPI_Comm comm, PetscBool verbose) {
  PetscFunctionBegin;
#ifdef ZS_HAVE_HWLOC
  MPI_Comm node;
  int rank, local_rank;
  static const vendor vendors[] = {{0x10de, "CUDA_VISIBLE_DEVICES"},
                                   {0x1002, "HIP_VISIBLE_DEVICES"}};
  hwloc_topology_t topo;

  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_rank(node, &local_rank));
  PetscCallMPI(MPI_Comm_free(&node));
  if (hwloc_topology_init(&topo) != 0) PetscFunctionReturn(0);
  hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (hwloc_topology_load(topo) == 0) {
    hwloc_bitmap_t bound = hwloc_bitmap_alloc();
    if (bound && hwloc_get_cpubind(topo, bound, HWLOC_CPUBIND_PROCESS) != 0)
      hwloc_bitmap_copy(bound, hwloc_topology_get_topology_cpuset(topo));
    PetscErrorCode ierr = 0;
    for (size_t i = 0; bound && !ierr && i < sizeof vendors / sizeof *vendors; i++)
      ierr = map_vendor(topo, bound, &vendors[i], rank, local_rank, verbose);
    hwloc_bitmap_free(bound);
    hwloc_topology_destroy(topo);
    PetscCall(ierr);
  } else {
    hwloc_topology_destroy(topo);
  }
#else
  (void)comm;
  if (verbose) PetscCall(PetscPrintf(PETSC_COMM_SELF, "aijzsparse: built without hwloc\n"));
#endif
  PetscFunctionReturn(0);
}
