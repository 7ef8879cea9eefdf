/* cuda_csb.cu — the zsparse-cuda module's unit for CSB and GCSB operators (body shared with HIP). */
#include "backends/cuda_hip/csb_gpu.cuh"
