// The tile library FlashAttention forward: O = softmax(Q Kᵀ · scale) V for
// multi-head attention with Q, K, V and O stored [batch, heads, seq, dim]
// row-major. Q and O have HQ heads, K and V have HKV heads, and HKV divides
// HQ (grouped-query attention: query head h reads key/value head
// h / (HQ / HKV)). seq_q and seq_kv are the runtime sizes of Q's and K's
// third dimension and need not divide the tiles: the copies mask the ragged
// rows and a select masks the keys past seq_kv. With CAUSAL=true query i
// sees the keys j <= i + seq_kv - seq_q (the mask aligned to the bottom
// right corner, as torch's causal_lower_right); the loop stops at the last
// block that a row of the query tile can see.
//
// Each block owns BM query rows of one head: it stages them in shared
// memory once, then walks the keys BN at a time through a STAGES-deep
// pipeline. Per key block it computes S = Q Kᵀ on the tensor cores, the
// running row maximum, the probabilities P = exp2(S · scale · log2(e) - m)
// (one FMA and one exp2 per element), their row sums, rescales the output
// accumulator and adds P V, with P fed to the second gemm from registers.
// The row statistics live in registers replicated over the threads that
// share a row; the compiler infers every layout.
//
// Parameters (tile-compile -D NAME=VALUE):
//   D        head dimension (64, 128 or 256; 256 on NVIDIA chips only: Q's
//            128 x 256 tile alone fills an AMD chip's 64 KiB of LDS), with
//            narrower key blocks for 256 (`tile.params(CHIP D=256)`)
//   BM, BN   query rows and key rows of one block step
//   STAGES   pipeline depth over key blocks: slots of K and V
//   ORDER, STAGE  the loop's schedule (tile.pipelined `order` and `stage`
//            over its twelve scheduled operations: the K and V copies,
//            Q·Kᵀ, the mask, the max, the rescale factor, exp2, the sum,
//            the row sums, the output rescale, the cast to P and P·V).
//            sm_90a runs P·V one block late (stage 2), issued right after
//            the next block's Q·Kᵀ: the softmax of block j runs while the
//            tensor cores do P·V of block j - 1, and the copies take the
//            third slot.
//   THREADS  threads per block
//   T        element type of Q, K, V and O: f16 or bf16
//   CAUSAL   true or false
//   PANEL    the blocks' launch order (the kernel's rasterize clause):
//            row blocks of PANEL heads at a time, each row block in all of
//            them before the next. Causal row blocks are taken heaviest
//            first, so with PANEL = 8 (causal on sm_90a) the heaviest
//            blocks of eight heads start before the lighter ones, while
//            those heads' K and V stay in L2; 1 keeps the grid's order
//   PERSISTENT  true: one block per SM walks the tiles (tile-compile's
//            --persistent, through the tile.options line), the producer
//            loading the next tile's K, V and Q while the consumers finish
//            this one. The default for head dims 64 and 128 on sm_90a, where it
//            measured faster (docs/FlashAttention.md); causal tiles
//            differ in length, so persistent causal kernels take them in
//            pairs of equal work (CHUNK)
//   CHUNK    tiles a persistent block takes at a time (the kernel's
//            persistent clause). With CHUNK = 2 causal row blocks are
//            launched folded, the heaviest next to the lightest (i and
//            n - 1 - i), so that every pair holds the same number of key
//            blocks and the blocks' static shares of the grid are even
//   BLOCKS   how many blocks a persistent kernel launches (the persistent
//            clause): `resident`, all the device holds, or `prime`, the
//            largest prime not above that (131 of 132). With an odd
//            number of row blocks n, causal pairs cross from one head into
//            the next and their work repeats every n pairs; where n shares
//            a factor with the block count (11 and 132) a block would draw
//            the same pairs every round. A prime count meets every phase
//            of any shorter period. Causal kernels take `prime`
//            (docs/FlashAttention.md, "Persistent blocks, a prime number")
// On sm_90a the kernel is built with 32-bit indices (the tile.options
// line): Q, K, O and LSE must each have fewer than 2^31 elements, which
// the runtime checks at launch; a build with --index-bitwidth 64 lifts it.
// Every chip builds it with fast-math (the tile.options lines): each exp2
// is one ex2.approx.ftz.f32 (one v_exp_f32 on AMD chips), where keeping f32
// subnormals costs three more instructions per probability, which a
// softmax never needs; --fast-math=false keeps them.
// The softmax scale is the runtime f32 argument `scale` (1/sqrt(D) for
// torch's default).
//
// LSE, [batch, heads, seq_q] f32, receives each row's log-sum-exp of the
// scaled scores, ln Σ_j exp(s_ij · scale) (natural log, as torch's and
// FlashAttention's softmax_lse; -inf for a row that sees no key), which a
// backward pass or a split-KV combine needs. It is optional at run time: an
// LSE whose seq dimension is 0 (e.g. shape [batch, heads, 0]) is not
// written.
//
// tile.dispatch: B=arg0.dim0 HQ=arg0.dim1 SQ=arg0.dim2 SKV=arg1.dim2
// (tile-compile --dispatch kernels/flash_attn_tuned.txt: on sm_90a causal
// launches choose per launch between the persistent pairs and one block
// per tile, by how full the pairs leave the persistent blocks' rounds)
// tile.params(sm_90a): BM=128 BN=128 STAGES=3 THREADS=256 ORDER=0,1,2,4,5,6,7,8,9,10,11,3 STAGE=0,0,1,1,1,1,1,1,1,1,1,2
// tile.params(sm_80): BM=128 BN=64 STAGES=2 THREADS=256
// tile.params(gfx942): BM=128 BN=32 STAGES=2 THREADS=256
// tile.params(gfx90a): BM=128 BN=32 STAGES=2 THREADS=256
// tile.params(sm_90a D=256): BN=64 STAGES=2 ORDER=0,1,2,3,4,5,6,7,8,9,10,11 STAGE=0,0,1,1,1,1,1,1,1,1,1,1
// tile.params(sm_80 D=256): BN=32
// tile.params(sm_90a CAUSAL=true): PANEL=8
// tile.params(sm_90a D=128): PERSISTENT=true
// tile.params(sm_90a D=64): PERSISTENT=true
// tile.params(CAUSAL=true PERSISTENT=true): PANEL=1 CHUNK=2 BLOCKS=prime
// tile.options(sm_90a): persistent=${PERSISTENT} index-bitwidth=32 fast-math=true
// tile.options(sm_80): fast-math=true
// tile.options(gfx942): fast-math=true
// tile.options(gfx90a): fast-math=true
// tile.params: D=128 BM=128 BN=64 STAGES=2 THREADS=256 T=f16 CAUSAL=false
// tile.params: ORDER=0,1,2,3,4,5,6,7,8,9,10,11 STAGE=0,0,1,1,1,1,1,1,1,1,1,1 PANEL=1
// tile.params: PERSISTENT=false CHUNK=1 BLOCKS=resident
func.func @flash_attn(%Q: memref<?x?x?x${D}x${T}>, %K: memref<?x?x?x${D}x${T}>,
                      %V: memref<?x?x?x${D}x${T}>, %O: memref<?x?x?x${D}x${T}>,
                      %LSE: memref<?x?x?xf32>, %scale: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %bm = arith.constant ${BM} : index
  %bn = arith.constant ${BN} : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %log2e = arith.constant 1.44269504088896340736 : f32
  %causal = arith.constant ${CAUSAL}
  %batch = memref.dim %Q, %c0 : memref<?x?x?x${D}x${T}>
  %hq = memref.dim %Q, %c1 : memref<?x?x?x${D}x${T}>
  %sq = memref.dim %Q, %c2 : memref<?x?x?x${D}x${T}>
  %hkv = memref.dim %K, %c1 : memref<?x?x?x${D}x${T}>
  %skv = memref.dim %K, %c2 : memref<?x?x?x${D}x${T}>
  %gx = arith.ceildivui %sq, %bm : index
  %gy = arith.muli %batch, %hq : index
  tile.kernel blocks(%bx, %bh) in (%gx, %gy) threads(${THREADS})
      rasterize(panel = ${PANEL}, order = row) persistent(chunk = ${CHUNK}, blocks = ${BLOCKS}) {
    // scale · log2(e): the exponent of exp2 is s · c - m · c, one FMA.
    %c = arith.mulf %scale, %log2e : f32
    %Qs = tile.alloc : memref<${BM}x${D}x${T}, #gpu.address_space<workgroup>>
    %Ks = tile.alloc : memref<${BN}x${D}x${T}, #gpu.address_space<workgroup>>
    %Vs = tile.alloc : memref<${BN}x${D}x${T}, #gpu.address_space<workgroup>>
    %S = tile.alloc : memref<${BM}x${BN}xf32, #tile.fragment>
    %P = tile.alloc : memref<${BM}x${BN}x${T}, #tile.fragment>
    %Of = tile.alloc : memref<${BM}x${D}xf32, #tile.fragment>
    %m = tile.alloc : memref<${BM}xf32, #tile.fragment>
    %mNew = tile.alloc : memref<${BM}xf32, #tile.fragment>
    %rowSum = tile.alloc : memref<${BM}xf32, #tile.fragment>
    %rescale = tile.alloc : memref<${BM}xf32, #tile.fragment>
    %l = tile.alloc : memref<${BM}xf32, #tile.fragment>
    %b = arith.divui %bh, %hq : index
    %h = arith.remui %bh, %hq : index
    %group = arith.divui %hq, %hkv : index
    %hk = arith.divui %h, %group : index
    // Causal blocks are dispatched last row block first (within each
    // panel of heads): the blocks with the most keys start early and the
    // light ones fill the tail. Persistent blocks that take two tiles at a
    // time get them folded: row blocks n - 1 - i and i.
    %gxLast = arith.subi %gx, %c1 : index
    %bxRev = arith.subi %gxLast, %bx : index
    %chunk = arith.constant ${CHUNK} : index
    %paired = arith.cmpi eq, %chunk, %c2 : index
    %half = arith.divui %bx, %c2 : index
    %odd = arith.remui %bx, %c2 : index
    %isOdd = arith.cmpi eq, %odd, %c1 : index
    %far = arith.subi %gxLast, %half : index
    %bxFold = arith.select %isOdd, %half, %far : index
    %bxCausal = arith.select %paired, %bxFold, %bxRev : index
    %bq = arith.select %causal, %bxCausal, %bx : index
    %q0 = arith.muli %bq, %bm : index
    tile.copy %Q[%b, %h, %q0, %c0] -> %Qs
        : memref<?x?x?x${D}x${T}> -> memref<${BM}x${D}x${T}, #gpu.address_space<workgroup>>
    tile.fill %m, %ninf : memref<${BM}xf32, #tile.fragment>
    tile.clear %l : memref<${BM}xf32, #tile.fragment>
    tile.clear %Of : memref<${BM}x${D}xf32, #tile.fragment>
    // Query row i sees keys up to i + skv - sq; the block's last row, up to
    // q0 + BM - 1 + skv - sq: causal blocks stop after that key's block.
    %nall = arith.ceildivui %skv, %bn : index
    %qEnd = arith.addi %q0, %bm : index
    %kEnd0 = arith.addi %qEnd, %skv : index
    %kEndPos = arith.cmpi ugt, %kEnd0, %sq : index
    %kEnd1 = arith.subi %kEnd0, %sq : index
    %kEnd = arith.select %kEndPos, %kEnd1, %c0 : index
    %ncausal0 = arith.ceildivui %kEnd, %bn : index
    %ncausal = arith.minui %ncausal0, %nall : index
    %nblocks = arith.select %causal, %ncausal, %nall : index
    %diag = arith.subi %skv, %sq : index
    tile.pipelined %j = %c0 to %nblocks step %c1 stages(${STAGES})
        order [${ORDER}] stage [${STAGE}] {
      %k0 = arith.muli %j, %bn : index
      tile.copy %K[%b, %hk, %k0, %c0] -> %Ks
          : memref<?x?x?x${D}x${T}> -> memref<${BN}x${D}x${T}, #gpu.address_space<workgroup>>
      tile.copy %V[%b, %hk, %k0, %c0] -> %Vs
          : memref<?x?x?x${D}x${T}> -> memref<${BN}x${D}x${T}, #gpu.address_space<workgroup>>
      tile.gemm %Qs, %Ks -> %S transpose_b clear_accum policy(full_row)
          : memref<${BM}x${D}x${T}, #gpu.address_space<workgroup>>,
            memref<${BN}x${D}x${T}, #gpu.address_space<workgroup>>
         -> memref<${BM}x${BN}xf32, #tile.fragment>
      // Keys past seq_kv, and with CAUSAL those past the row's diagonal,
      // get -inf: only blocks that hold such keys pay for the mask.
      %kNext = arith.addi %k0, %bn : index
      %ragged = arith.cmpi sgt, %kNext, %skv : index
      %kLast = arith.subi %kNext, %c1 : index
      %firstSees = arith.addi %q0, %diag : index
      %crosses0 = arith.cmpi sgt, %kLast, %firstSees : index
      %crosses = arith.andi %causal, %crosses0 : i1
      %needMask = arith.ori %ragged, %crosses : i1
      scf.if %needMask {
      tile.parallel (%i, %jj) in (${BM}, ${BN}) {
        %key = arith.addi %k0, %jj : index
        %query = arith.addi %q0, %i : index
        %last = arith.addi %query, %diag : index
        %past = arith.cmpi sge, %key, %skv : index
        %above = arith.cmpi sgt, %key, %last : index
        %masked0 = arith.andi %causal, %above : i1
        %masked = arith.ori %past, %masked0 : i1
        %s = memref.load %S[%i, %jj] : memref<${BM}x${BN}xf32, #tile.fragment>
        %sm = arith.select %masked, %ninf, %s : f32
        memref.store %sm, %S[%i, %jj] : memref<${BM}x${BN}xf32, #tile.fragment>
      }
      }
      tile.reduce max %S -> %mNew dim(1)
          : memref<${BM}x${BN}xf32, #tile.fragment> -> memref<${BM}xf32, #tile.fragment>
      // The new row maximum m' (kept as is: a row with no visible key yet
      // keeps -inf and exp2 sees 0 · c, never nan) and the rescale factor
      // of the sums so far, r = exp2((m - m') · c).
      tile.parallel (%i) in (${BM}) {
        %a = memref.load %mNew[%i] : memref<${BM}xf32, #tile.fragment>
        %old = memref.load %m[%i] : memref<${BM}xf32, #tile.fragment>
        %mx = arith.maximumf %a, %old : f32
        %inf = arith.cmpf oeq, %mx, %ninf : f32
        %diff = arith.subf %old, %mx : f32
        %x0 = arith.mulf %diff, %c : f32
        %x = arith.select %inf, %zero, %x0 : f32
        %r = math.exp2 %x : f32
        memref.store %r, %rescale[%i] : memref<${BM}xf32, #tile.fragment>
        memref.store %mx, %m[%i] : memref<${BM}xf32, #tile.fragment>
      }
      // P = exp2(S · c - m' · c), one FMA and one exp2 per element.
      tile.parallel (%i, %jj) in (${BM}, ${BN}) {
        %s = memref.load %S[%i, %jj] : memref<${BM}x${BN}xf32, #tile.fragment>
        %mx = memref.load %m[%i] : memref<${BM}xf32, #tile.fragment>
        %inf = arith.cmpf oeq, %mx, %ninf : f32
        %ms = arith.mulf %mx, %c : f32
        %msafe = arith.select %inf, %zero, %ms : f32
        %neg = arith.negf %msafe : f32
        %x = math.fma %s, %c, %neg : f32
        %p = math.exp2 %x : f32
        memref.store %p, %S[%i, %jj] : memref<${BM}x${BN}xf32, #tile.fragment>
      }
      tile.reduce sum %S -> %rowSum dim(1)
          : memref<${BM}x${BN}xf32, #tile.fragment> -> memref<${BM}xf32, #tile.fragment>
      tile.parallel (%i) in (${BM}) {
        %r = memref.load %rescale[%i] : memref<${BM}xf32, #tile.fragment>
        %l0 = memref.load %l[%i] : memref<${BM}xf32, #tile.fragment>
        %sum = memref.load %rowSum[%i] : memref<${BM}xf32, #tile.fragment>
        %t = math.fma %l0, %r, %sum : f32
        memref.store %t, %l[%i] : memref<${BM}xf32, #tile.fragment>
      }
      // The output accumulator and P are touched last: on sm_90a the P·V
      // of the previous block runs on the tensor cores until here.
      tile.parallel (%i, %d) in (${BM}, ${D}) {
        %o = memref.load %Of[%i, %d] : memref<${BM}x${D}xf32, #tile.fragment>
        %r = memref.load %rescale[%i] : memref<${BM}xf32, #tile.fragment>
        %n = arith.mulf %o, %r : f32
        memref.store %n, %Of[%i, %d] : memref<${BM}x${D}xf32, #tile.fragment>
      }
      tile.parallel (%i, %jj) in (${BM}, ${BN}) {
        %p = memref.load %S[%i, %jj] : memref<${BM}x${BN}xf32, #tile.fragment>
        %pt = arith.truncf %p : f32 to ${T}
        memref.store %pt, %P[%i, %jj] : memref<${BM}x${BN}x${T}, #tile.fragment>
      }
      tile.gemm %P, %Vs -> %Of policy(full_row)
          : memref<${BM}x${BN}x${T}, #tile.fragment>,
            memref<${BN}x${D}x${T}, #gpu.address_space<workgroup>>
         -> memref<${BM}x${D}xf32, #tile.fragment>
    }
    // One division per row, in the row statistics' layout, and a product
    // per element. A row that saw no key (causal with seq_q > seq_kv) has
    // l = 0 and writes zeros.
    %linv = tile.alloc : memref<${BM}xf32, #tile.fragment>
    tile.parallel (%i) in (${BM}) {
      %s = memref.load %l[%i] : memref<${BM}xf32, #tile.fragment>
      %empty = arith.cmpf oeq, %s, %zero : f32
      %one = arith.constant 1.0 : f32
      %q = arith.divf %one, %s : f32
      %r = arith.select %empty, %zero, %q : f32
      memref.store %r, %linv[%i] : memref<${BM}xf32, #tile.fragment>
    }
    tile.parallel (%i, %d) in (${BM}, ${D}) {
      %o = memref.load %Of[%i, %d] : memref<${BM}x${D}xf32, #tile.fragment>
      %r = memref.load %linv[%i] : memref<${BM}xf32, #tile.fragment>
      %n = arith.mulf %o, %r : f32
      memref.store %n, %Of[%i, %d] : memref<${BM}x${D}xf32, #tile.fragment>
    }
    tile.copy %Of -> %O[%b, %h, %q0, %c0]
        : memref<${BM}x${D}xf32, #tile.fragment> -> memref<?x?x?x${D}x${T}>
    // lse = m · scale + ln l = (m · c + log2 l) · ln 2, from the row
    // statistics' own layout; the copy masks rows past seq_q.
    %lseLen = memref.dim %LSE, %c2 : memref<?x?x?xf32>
    %wantLse = arith.cmpi ne, %lseLen, %c0 : index
    scf.if %wantLse {
      %lse = tile.alloc : memref<${BM}xf32, #tile.fragment>
      %ln2 = arith.constant 0.69314718055994530942 : f32
      tile.parallel (%i) in (${BM}) {
        %mx = memref.load %m[%i] : memref<${BM}xf32, #tile.fragment>
        %s = memref.load %l[%i] : memref<${BM}xf32, #tile.fragment>
        %empty = arith.cmpf oeq, %s, %zero : f32
        %lg = math.log2 %s : f32
        %x = math.fma %mx, %c, %lg : f32
        %y = arith.mulf %x, %ln2 : f32
        %r = arith.select %empty, %ninf, %y : f32
        memref.store %r, %lse[%i] : memref<${BM}xf32, #tile.fragment>
      }
      tile.copy %lse -> %LSE[%b, %h, %q0]
          : memref<${BM}xf32, #tile.fragment> -> memref<?x?x?xf32>
    }
  }
  return
}
