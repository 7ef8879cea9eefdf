/* cuda_sell.cu — the zsparse-cuda module's unit for SELL-C-sigma operators (body shared with HIP). */
#include "backends/cuda_hip/sell_gpu.cuh"
