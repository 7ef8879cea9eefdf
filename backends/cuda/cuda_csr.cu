/* cuda_csr.cu — the zsparse-cuda module's unit for CSR and COO operators (body shared with HIP). */
#include "backends/cuda_hip/csr_gpu.cuh"
