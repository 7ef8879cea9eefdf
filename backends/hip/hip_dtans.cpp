/* hip_dtans.cpp — the zsparse-hip module's unit for CSR-dtANS operators (body shared with CUDA). */
#include "backends/cuda_hip/dtans_gpu.cuh"
