/* zsparse_cuda.cu — the zsparse-cuda module: the shared GPU backend compiled by nvcc. */
#include "backends/cuda_hip/gpu_module.cuh"
