/* hip_cci.cpp — the zsparse-hip module's unit for CCI operators (body shared with CUDA). */
#include "backends/cuda_hip/cci_gpu.cuh"
