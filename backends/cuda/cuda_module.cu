/* cuda_module.cu — the zsparse-cuda module's unit for the backend table, per-context state, memory and BLAS-1 (body shared with HIP). */
#include "backends/cuda_hip/gpu_module.cuh"
