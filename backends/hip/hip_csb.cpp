/* hip_csb.cpp — the zsparse-hip module's unit for CSB and GCSB operators (body shared with CUDA). */
#include "backends/cuda_hip/csb_gpu.cuh"
