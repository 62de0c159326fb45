//===- kernels.cu - small CUDA kernels that exercise the runtime ----------===//
//
// Test inputs for tile-run, compiled ahead of time so the tests need no CUDA
// compiler (`nvcc -arch=sm_90 -ptx kernels.cu -o kernels.ptx`; the cubin
// for runtime/check-standalone.sh likewise with -cubin): a bare-pointer
// vector add, an f16 add whose memrefs come as MLIR expanded descriptors, a
// row reversal staged through 64 KiB of dynamic shared memory, and a copy
// through a TMA tensor map built by the runtime.
//
//===----------------------------------------------------------------------===//

#include <cuda.h>
#include <cuda_fp16.h>
#include <stdint.h>

/// c[i] = a[i] + b[i] for i < n.
extern "C" __global__ void vadd_f32(const float *a, const float *b, float *c,
                                    int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

/// The expansion of memref<?x?xf16> as a kernel argument list.
#define MEMREF2D(T, name)                                                      \
  T *name##Allocated, T *name, int64_t name##Offset, int64_t name##Size0,      \
      int64_t name##Size1, int64_t name##Stride0, int64_t name##Stride1

/// C = A + B on 2-D f16 memrefs passed as descriptors; block (32, 8).
extern "C" __global__ void add2d_f16(MEMREF2D(const __half, a),
                                     MEMREF2D(const __half, b),
                                     MEMREF2D(__half, c)) {
  int64_t col = blockIdx.x * 32 + threadIdx.x;
  int64_t row = blockIdx.y * 8 + threadIdx.y;
  if (row >= cSize0 || col >= cSize1)
    return;
  float x = __half2float(a[aOffset + row * aStride0 + col * aStride1]);
  float y = __half2float(b[bOffset + row * bStride0 + col * bStride1]);
  c[cOffset + row * cStride0 + col * cStride1] = __float2half_rn(x + y);
}

/// Each block reverses one row of A (16384 floats) into B, staging the
/// whole row in 64 KiB of dynamic shared memory.
extern "C" __global__ void rowrev_f32(MEMREF2D(const float, a),
                                      MEMREF2D(float, b)) {
  extern __shared__ float row[];
  int64_t r = blockIdx.x;
  for (int64_t j = threadIdx.x; j < aSize1; j += blockDim.x)
    row[j] = a[aOffset + r * aStride0 + j * aStride1];
  __syncthreads();
  for (int64_t j = threadIdx.x; j < aSize1; j += blockDim.x)
    b[bOffset + r * bStride0 + j * bStride1] = row[aSize1 - 1 - j];
}

/// Copies A to B one 32x32 f32 tile per block: the tile arrives through
/// the TMA engine (tensor map of A, zero fill out of bounds), then threads
/// store the in-bounds part. Block 128 threads.
extern "C" __global__ void tma_copy_f32(const __grid_constant__ CUtensorMap
                                            aMap,
                                        MEMREF2D(float, b)) {
  __shared__ alignas(128) float tile[32 * 32];
  __shared__ alignas(8) uint64_t barrier;
  uint32_t barrierAddr = (uint32_t)__cvta_generic_to_shared(&barrier);
  uint32_t tileAddr = (uint32_t)__cvta_generic_to_shared(tile);
  int col0 = blockIdx.x * 32, row0 = blockIdx.y * 32;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(barrierAddr));
    asm volatile("fence.proxy.async.shared::cta;");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(
                     barrierAddr),
                 "r"(32 * 32 * 4));
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
                 "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
                     tileAddr),
                 "l"(&aMap), "r"(col0), "r"(row0), "r"(barrierAddr)
                 : "memory");
  }
  __syncthreads();
  asm volatile("{\n"
               ".reg .pred done;\n"
               "wait:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
               "@!done bra wait;\n"
               "}" ::"r"(barrierAddr)
               : "memory");
  for (int k = threadIdx.x; k < 32 * 32; k += blockDim.x) {
    int64_t r = row0 + k / 32, c = col0 + k % 32;
    if (r < bSize0 && c < bSize1)
      b[bOffset + r * bStride0 + c * bStride1] = tile[k];
  }
}
