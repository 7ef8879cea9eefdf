/* hip_sell.cpp — the zsparse-hip module's unit for SELL-C-sigma operators (body shared with CUDA). */
#include "backends/cuda_hip/sell_gpu.cuh"
