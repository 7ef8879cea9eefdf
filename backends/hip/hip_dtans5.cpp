/* hip_dtans5.cpp — the zsparse-hip module's unit for CSR-dtANS version 5 kernels (body shared with CUDA). */
#include "backends/cuda_hip/dtans5_gpu.cuh"
