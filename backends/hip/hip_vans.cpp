/* hip_vans.cpp — the zsparse-hip module's unit for MAT-VANS layer kernels (body shared with CUDA). */
#include "backends/cuda_hip/vans_gpu.cuh"
