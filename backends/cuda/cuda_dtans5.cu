/* cuda_dtans5.cu — the zsparse-cuda module's unit for CSR-dtANS version 5 kernels (body shared with HIP). */
#include "backends/cuda_hip/dtans5_gpu.cuh"
