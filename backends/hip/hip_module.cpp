/* hip_module.cpp — the zsparse-hip module's unit for the backend table, per-context state, memory and BLAS-1 (body shared with CUDA). */
#include "backends/cuda_hip/gpu_module.cuh"
