/* hip_csr.cpp — the zsparse-hip module's unit for CSR and COO operators (body shared with CUDA). */
#include "backends/cuda_hip/csr_gpu.cuh"
