/* vans_gpu.cuh — MAT-VANS layer kernels of the GPU modules, reached through the backend's
 * "vans-v1" extension table (included by gpu_module.cuh inside its anonymous namespace). */

/* Placeholder until the kernels land: no table, so the library reports the backend lacks it. */
const void *vans_gpu_extension(const char *name) {
  (void)name;
  return NULL;
}
