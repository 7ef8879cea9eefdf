/* cuda_vans.cu — the zsparse-cuda module's unit for MAT-VANS layer kernels (body shared with HIP). */
#include "backends/cuda_hip/vans_gpu.cuh"
