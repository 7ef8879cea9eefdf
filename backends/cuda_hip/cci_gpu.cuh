/* cci_gpu.cuh — CCI operators of the GPU modules (included by gpu_module.cuh, inside its
 * anonymous namespace, after the shared helpers fail/check/upload_array). */

/* Placeholder until the kernels land: op_create says so (the backend never falls back). */
zs_status cci_gpu_create(void **state, const zsb_encoded_view *v, const char *options) {
  (void)state, (void)v, (void)options;
  return fail(ZS_ERR_UNSUPPORTED, "backend '%s' has no CCI kernel yet", ZS_GPU_BACKEND_NAME);
}
void cci_gpu_destroy(void *state) { (void)state; }
zs_status cci_gpu_apply(void *state, zs_op which, double alpha, const void *x, double beta,
                        void *y) {
  (void)state, (void)which, (void)alpha, (void)x, (void)beta, (void)y;
  return ZS_ERR_UNSUPPORTED;
}
const gpu_format cci_gpu_format = {ZS_FORMAT_CCI, cci_gpu_create, cci_gpu_destroy, cci_gpu_apply};
