// The one-row W4A16 GEMV's read floor: CUDA kernels that read what
// kernels/gemv_w4a16.mlir reads at m = 1 (packed weights P, X, scales S and
// zero points Z; G = 128, blocks of 8 rows, K steps of 1024 weights, 4
// stages) and only XOR it, so that their times bound what any arithmetic
// on those bytes can reach: a grid-stride streaming read of P, S and Z; the
// GEMV's cp.async pipeline (every thread copying 16-byte pieces) over P
// stored by rows and over P stored tile by tile (each block's step one 4 KB
// run); one thread per block issuing bulk copies (cp.async.bulk on an
// mbarrier per stage) in both orders. Each timed launch follows a 256 MiB
// read that evicts L2; median of 50.
//
//   nvcc -O3 -arch=sm_90a -o /tmp/floor bench/gemv_w4a16_floor.cu
//   /tmp/floor N K        (default 9216 9216, the paper's V5)
#include "cuda_study.cuh"

constexpr int BN = 8, ST = 4, THREADS = 128;

struct Args {
  const uint4 *P;
  const uint4 *X;
  const uint4 *S;
  const uint4 *Z;
  unsigned *out;
  int N, K;  // K weights; P row = K/8 words = K/32 uint4
  int tiled; // P in [N/8][K/1024][8][32] uint4 order
};

// Per-thread cp.async: P 2 x 16 B, X 1 x 16 B, S and Z 8 threads x 16 B.
__global__ void __launch_bounds__(THREADS, 5) k_cpasync(Args a) {
  __shared__ uint4 ps[ST][BN * 32], xs[ST][128], ss[ST][8], zs[ST][8];
  int tid = threadIdx.x, n0 = blockIdx.x * BN;
  int rowq = a.K / 32, steps = a.K / 1024;
  auto issue = [&](int t) {
    int s = t % ST;
    for (int i = 0; i < 2; ++i) {
      int c = tid + i * THREADS, r = c / 32, w = c % 32;
      const uint4 *src =
          a.tiled ? a.P + ((size_t)(blockIdx.x * steps + t) * BN * 32 + c)
                  : a.P + (size_t)(n0 + r) * rowq + t * 32 + w;
      cpasync16(&ps[s][c], src);
    }
    cpasync16(&xs[s][tid], a.X + t * 128 + tid);
    if (tid < 8) {
      cpasync16(&ss[s][tid], a.S + (size_t)(n0 + tid) * (a.K / 1024) + t);
      cpasync16(&zs[s][tid], a.Z + (size_t)(n0 + tid) * (a.K / 1024) + t);
    }
  };
  for (int t = 0; t < ST - 1; ++t) {
    if (t < steps)
      issue(t);
    commit();
  }
  unsigned acc = 0;
  for (int t = 0; t < steps; ++t) {
    waitg<ST - 2>();
    __syncthreads();
    if (t + ST - 1 < steps)
      issue(t + ST - 1);
    commit();
    int s = t % ST;
    uint4 p0 = ps[s][tid], p1 = ps[s][tid + THREADS], x = xs[s][tid];
    uint4 sv = ss[s][tid % 8], zv = zs[s][tid % 8];
    acc ^= p0.x ^ p0.y ^ p0.z ^ p0.w ^ p1.x ^ p1.y ^ p1.z ^ p1.w ^ x.x ^ x.w ^
           sv.x ^ zv.y;
  }
  a.out[blockIdx.x * THREADS + tid] = acc;
}

// One thread issues bulk copies: P 8 rows x 512 B (or one 4 KB tile), X 2 KB,
// S and Z 8 x 16 B; an mbarrier per stage.
__global__ void __launch_bounds__(THREADS, 5) k_bulk(Args a) {
  __shared__ alignas(128) uint4 ps[ST][BN * 32];
  __shared__ alignas(128) uint4 xs[ST][128];
  __shared__ alignas(16) uint4 ss[ST][8], zs[ST][8];
  __shared__ uint64_t full[ST];
  int tid = threadIdx.x, n0 = blockIdx.x * BN;
  int rowq = a.K / 32, steps = a.K / 1024, gq = a.K / 1024;
  if (tid == 0)
    for (int s = 0; s < ST; ++s)
      mbar_init(&full[s], 1);
  asm volatile("fence.mbarrier_init.release.cluster;\n");
  __syncthreads();
  auto issue = [&](int t) {
    int s = t % ST;
    mbar_expect(&full[s], BN * 512 + 2048 + 2 * BN * 16);
    if (a.tiled)
      bulk(&ps[s][0], a.P + (size_t)(blockIdx.x * steps + t) * BN * 32,
           BN * 512, &full[s]);
    else
      for (int r = 0; r < BN; ++r)
        bulk(&ps[s][r * 32], a.P + (size_t)(n0 + r) * rowq + t * 32, 512,
             &full[s]);
    bulk(&xs[s][0], a.X + t * 128, 2048, &full[s]);
    for (int r = 0; r < BN; ++r) {
      bulk(&ss[s][r], a.S + (size_t)(n0 + r) * gq + t, 16, &full[s]);
      bulk(&zs[s][r], a.Z + (size_t)(n0 + r) * gq + t, 16, &full[s]);
    }
  };
  if (tid == 0)
    for (int t = 0; t < ST && t < steps; ++t)
      issue(t);
  unsigned acc = 0;
  for (int t = 0; t < steps; ++t) {
    int s = t % ST;
    mbar_wait(&full[s], (t / ST) & 1);
    uint4 p0 = ps[s][tid], p1 = ps[s][tid + THREADS], x = xs[s][tid];
    uint4 sv = ss[s][tid % 8], zv = zs[s][tid % 8];
    acc ^= p0.x ^ p0.y ^ p0.z ^ p0.w ^ p1.x ^ p1.y ^ p1.z ^ p1.w ^ x.x ^ x.w ^
           sv.x ^ zv.y;
    __syncthreads();
    if (tid == 0 && t + ST < steps)
      issue(t + ST);
  }
  a.out[blockIdx.x * THREADS + tid] = acc;
}

// Streaming read of `words` uint4, grid-stride.
__global__ void k_stream(const uint4 *p, size_t n, unsigned *out) {
  unsigned acc = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    uint4 v = __ldcs(p + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

int main(int argc, char **argv) {
  int N = argc > 1 ? atoi(argv[1]) : 9216, K = argc > 2 ? atoi(argv[2]) : 9216;
  size_t pq = (size_t)N * K / 32, xq = K / 8, sq = (size_t)N * K / 1024;
  uint4 *P, *X, *S, *Z;
  unsigned *out;
  CK(cudaMalloc(&P, (pq + 2 * sq) * 16));
  CK(cudaMalloc(&X, xq * 16));
  CK(cudaMalloc(&S, sq * 16));
  CK(cudaMalloc(&Z, sq * 16));
  CK(cudaMalloc(&out, 1 << 24));
  CK(cudaMemset(P, 1, (pq + 2 * sq) * 16));
  CK(cudaMemset(X, 2, xq * 16));
  CK(cudaMemset(S, 3, sq * 16));
  CK(cudaMemset(Z, 4, sq * 16));
  ColdTimer timer;
  int sms = timer.sms;
  auto timeit = [&](const char *name, auto launch, double bytes) {
    auto [med, min] = timer.time(launch, 50);
    printf("| %-28s | %7.2f us | %6.0f GB/s | min %7.2f |\n", name, med,
           bytes / med * 1e-3, min);
  };
  double dram = pq * 16.0 + sq * 32.0;
  printf("N=%d K=%d: P %.1f MB, S+Z %.1f MB\n", N, K, pq * 16e-6, sq * 32e-6);
  Args a{P, X, S, Z, out, N, K, 0};
  int blocks = N / BN;
  for (int rep = 0; rep < 2; ++rep) {
    timeit(
        "stream P+S+Z (bytes of P,S,Z)",
        [&] { k_stream<<<sms * 16, 256>>>(P, pq + 2 * sq, out); }, dram);
    a.tiled = 0;
    timeit(
        "cp.async rows", [&] { k_cpasync<<<blocks, THREADS>>>(a); }, dram);
    a.tiled = 1;
    timeit(
        "cp.async tiled", [&] { k_cpasync<<<blocks, THREADS>>>(a); }, dram);
    a.tiled = 0;
    timeit(
        "bulk rows", [&] { k_bulk<<<blocks, THREADS>>>(a); }, dram);
    a.tiled = 1;
    timeit(
        "bulk tiled", [&] { k_bulk<<<blocks, THREADS>>>(a); }, dram);
  }
  return 0;
}
