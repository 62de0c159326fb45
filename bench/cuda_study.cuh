// Helpers of the CUDA studies in bench/ (gemv_w4a16_floor.cu,
// gemv_w4a16_producer.cu): error checks, the cp.async and mbarrier PTX
// they issue, and timing of a launch from a cold L2 (each launch after a
// 256 MiB read, as bench/harness.py's flush_l2 does for the Python scripts).
#ifndef TILE_BENCH_CUDA_STUDY_CUH
#define TILE_BENCH_CUDA_STUDY_CUH

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e));         \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

__device__ __forceinline__ unsigned smem(const void *p) {
  return (unsigned)__cvta_generic_to_shared(p);
}
/// One 16-byte cp.async from global `src` to shared `dst`.
__device__ __forceinline__ void cpasync16(void *dst, const void *src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem(dst)),
               "l"(src));
}
__device__ __forceinline__ void commit() {
  asm volatile("cp.async.commit_group;\n");
}
template <int N> __device__ __forceinline__ void waitg() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}
__device__ __forceinline__ void mbar_init(uint64_t *b, int n) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem(b)),
               "r"(n));
}
__device__ __forceinline__ void mbar_expect(uint64_t *b, unsigned bytes) {
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem(b)),
      "r"(bytes));
}
/// Spins until phase `parity` of `b` has completed.
__device__ __forceinline__ void mbar_wait(uint64_t *b, unsigned parity) {
  asm volatile(
      "{\n.reg .pred p;\nW%=: mbarrier.try_wait.parity.shared::cta.b64 p, "
      "[%0], %1;\n@!p bra W%=;\n}\n" ::"r"(smem(b)),
      "r"(parity)
      : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t *b) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem(b))
               : "memory");
}
/// Arrives on `b` once this thread's earlier cp.async copies have landed.
__device__ __forceinline__ void cpasync_arrive(uint64_t *b) {
  asm volatile(
      "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(smem(b))
      : "memory");
}
/// A bulk copy of `bytes` (a multiple of 16) completing on `b`.
__device__ __forceinline__ void bulk(void *dst, const void *src, unsigned bytes,
                                     uint64_t *b) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::"
               "bytes [%0], [%1], %2, [%3];\n" ::"r"(smem(dst)),
               "l"(src), "r"(bytes), "r"(smem(b))
               : "memory");
}

__global__ void k_flush(const float4 *p, size_t n, float *out) {
  float acc = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    float4 v = p[i];
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == 1234.5f)
    out[0] = acc;
}

/// Times launches, each between CUDA events after a read of 256 MiB that
/// evicts L2.
struct ColdTimer {
  float4 *flush = nullptr;
  float *sink = nullptr;
  size_t n = (256u << 20) / 16;
  int sms = 0;
  cudaEvent_t e0, e1;

  ColdTimer() {
    CK(cudaMalloc(&flush, n * 16));
    CK(cudaMemset(flush, 0, n * 16));
    CK(cudaMalloc(&sink, 4));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
  }

  /// Median and minimum of `reps` timed launches (after 10 untimed), us.
  template <typename F> std::pair<double, double> time(F launch, int reps) {
    std::vector<float> ts;
    for (int i = 0; i < reps + 10; ++i) {
      k_flush<<<sms * 8, 512>>>(flush, n, sink);
      CK(cudaEventRecord(e0));
      launch();
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      if (i >= 10)
        ts.push_back(ms);
    }
    CK(cudaGetLastError());
    std::sort(ts.begin(), ts.end());
    return {ts[ts.size() / 2] * 1e3, ts[0] * 1e3};
  }
};

#endif // TILE_BENCH_CUDA_STUDY_CUH
