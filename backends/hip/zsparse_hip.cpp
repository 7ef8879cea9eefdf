/* zsparse_hip.cpp — the zsparse-hip module: the shared GPU backend compiled by hipcc. */
#include "backends/cuda_hip/gpu_module.cuh"
