/* cuda_dtans.cu — the zsparse-cuda module's unit for CSR-dtANS operators (body shared with HIP). */
#include "backends/cuda_hip/dtans_gpu.cuh"
