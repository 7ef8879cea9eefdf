/* cuda_cci.cu — the zsparse-cuda module's unit for CCI operators (body shared with HIP). */
#include "backends/cuda_hip/cci_gpu.cuh"
