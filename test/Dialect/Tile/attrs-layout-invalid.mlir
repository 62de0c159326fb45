// RUN: tile-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{expected positive extents, got 0}}
func.func private @f() attributes {l = #tile.layout<[0, 4], row_major>}

// -----

// expected-error @+1 {{expected a layout map or one of row_major, padded, swizzle, linear, got 'col_major'}}
func.func private @f() attributes {l = #tile.layout<[4, 4], col_major>}

// -----

// expected-error @+1 {{expected a 2-d tile and a non-negative padding, got 3-d and 8}}
func.func private @f() attributes {l = #tile.layout<[4, 4, 4], padded<8>>}

// -----

// expected-error @+1 {{expected a 2-d tile with a multiple of 8 rows and of the swizzle width per row, swizzle bytes 32, 64 or 128 and element bits 8, 16, 32 or 64, got swizzle<128, 16> of 2-d tile [8, 32]}}
func.func private @f() attributes {l = #tile.layout<[8, 32], swizzle<128, 16>>}

// -----

// expected-error @+1 {{got swizzle<96, 16>}}
func.func private @f() attributes {l = #tile.layout<[8, 64], swizzle<96, 16>>}

// -----

// expected-error @+1 {{expected power-of-two extents for a linear layout, got 3}}
func.func private @f() attributes {l = #tile.layout<[3, 4], linear<[[1, 2], [4, 8]]>>}

// -----

// expected-error @+1 {{expected 2 bases for dimension 1 of extent 4, got 1}}
func.func private @f() attributes {l = #tile.layout<[4, 4], linear<[[4, 8], [1]]>>}

// -----

// expected-error @+1 {{expected bases for 2 dimensions, got 3}}
func.func private @f() attributes {l = #tile.layout<[4, 4], linear<[[4, 8], [1, 2], []]>>}

// -----

// Tiles too large to enumerate get the structural checks only.
func.func private @f() attributes {l = #tile.fragment<[1152921504606846976, 4], threads = 4, (d0, d1) -> (d1, d0)>}

// -----

// expected-error @+1 {{expected non-negative bases, got -1}}
func.func private @f() attributes {l = #tile.layout<[4, 4], linear<[[4, 8], [1, -1]]>>}

// -----

// expected-error @+1 {{expected bases of 1 values, got 2}}
func.func private @f() attributes {l = #tile.layout<[4, 4], linear<[[4, (8, 1)], [1, 2]]>>}

// -----

// expected-error @+1 {{expected a layout map without symbols, got affine_map<(d0)[s0] -> (d0 + s0)>}}
func.func private @f() attributes {l = #tile.layout<[4], (d0)[s0] -> (d0 + s0)>}

// -----

// expected-error @+1 {{expected a layout map with 1 result (the offset), got 2}}
func.func private @f() attributes {l = #tile.layout<(d0, d1) -> (d1, d0)>}

// -----

// expected-error @+1 {{expected a layout map with at least 1 result, got affine_map<(d0) -> ()>}}
func.func private @f() attributes {l = #tile.layout<[4], (d0) -> ()>}

// -----

// expected-error @+1 {{expected a swizzle shift of at least its bits and below bit 48, got xor<3, 3, 2>}}
func.func private @f() attributes {l = #tile.layout<[8, 64], (d0, d1) -> (d0 * 64 + d1), xor<3, 3, 2>>}

// -----

// expected-error @+1 {{expected a layout map over 2 dimensions, got 1}}
func.func private @f() attributes {l = #tile.layout<[8, 64], (d0) -> (d0)>}

// -----

// expected-error @+1 {{expected non-negative offsets, got -1 at (0, 1)}}
func.func private @f() attributes {l = #tile.layout<[4, 4], (d0, d1) -> (d0 - d1)>}

// -----

// expected-error @+1 {{expected a positive thread count, got 0}}
func.func private @f() attributes {l = #tile.fragment<[4], threads = 0, (d0) -> (d0, 0)>}

// -----

// expected-error @+1 {{expected a positive replication, got 0}}
func.func private @f() attributes {l = #tile.fragment<[4], threads = 4, (d0) -> (d0, 0), replicate = 0>}

// -----

// expected-error @+1 {{expected at most 4 replicas (one per thread), got 1099511627776}}
func.func private @f() attributes {l = #tile.fragment<[4], threads = 4, (d0)[s0] -> (d0, 0), replicate = 1099511627776>}

// -----

// expected-error @+1 {{expected a fragment map with at most one symbol (the replica), got affine_map<(d0)[s0, s1] -> (d0, 0)>}}
func.func private @f() attributes {l = #tile.fragment<[4], threads = 4, (d0)[s0, s1] -> (d0, 0)>}

// -----

// expected-error @+1 {{expected a fragment map with 2 results (thread, register), got 1}}
func.func private @f() attributes {l = #tile.fragment<[4], threads = 4, (d0) -> (d0)>}

// -----

// expected-error @+1 {{expected a register result independent of the replica s0, got s0}}
func.func private @f() attributes {l = #tile.fragment<[4], threads = 8, (d0)[s0] -> (d0, s0), replicate = 2>}

// -----

// expected-error @+1 {{expected a product with a constant, got d0 * s0}}
func.func private @f() attributes {l = #tile.fragment<[4], threads = 8, (d0)[s0] -> (d0 * s0, 0), replicate = 2>}

// -----

// expected-error @+1 {{expected a positive constant divisor, got d0 floordiv s0}}
func.func private @f() attributes {l = #tile.fragment<[4], threads = 8, (d0)[s0] -> (d0 floordiv s0, 0), replicate = 2>}

// -----

// expected-error @+1 {{expected a fragment map over 2 dimensions, got 1}}
func.func private @f() attributes {l = #tile.fragment<[4, 4], threads = 4, (d0) -> (d0, 0)>}

// -----

// expected-error @+1 {{element (0, 1) has negative register -1}}
func.func private @f() attributes {l = #tile.fragment<[4, 4], threads = 4, (d0, d1) -> (d0, -d1)>}

// -----

// expected-error @+1 {{element (2, 0) is on thread 4, outside the 4 threads}}
func.func private @f() attributes {l = #tile.fragment<[4, 4], threads = 4, (d0, d1) -> (d0 * 2, d1)>}

// -----

// expected-error @+1 {{elements (0, 0) and (0, 1) share register 0 of thread 0}}
func.func private @f() attributes {l = #tile.fragment<[4, 4], threads = 4, (d0, d1) -> (d0, 0)>}

// -----

// Two replicas of one element on the same thread are a clash too.
// expected-error @+1 {{elements (0) and (0) share register 0 of thread 0}}
func.func private @f() attributes {l = #tile.fragment<[4], threads = 4, (d0)[s0] -> (d0, 0), replicate = 2>}

// -----

// expected-error @+1 {{expected positive extents, got -2}}
func.func private @f() attributes {l = #tile.fragment<[-2], mma_m16n8k16_a>}

// -----

// expected-error @+1 {{unknown built-in fragment 'mma_m16n8k4_a'}}
func.func private @f() attributes {l = #tile.fragment<[16, 4], mma_m16n8k4_a>}

// -----

// expected-error @+1 {{expected mma_m16n8k16_a over a 16x16 tile}}
func.func private @f() attributes {l = #tile.fragment<[16, 8], mma_m16n8k16_a>}

// -----

// expected-error @+1 {{expected wgmma_c over a 64xN (N = 8, 16, ..., 256) tile}}
func.func private @f() attributes {l = #tile.fragment<[64, 12], wgmma_c>}

// -----

// expected-error @+1 {{expected ldmatrix element bits of 8, 16 or 32, got 64}}
func.func private @f() attributes {l = #tile.fragment<[16, 16], ldmatrix<64>>}

// -----

// expected-error @+1 {{ldmatrix_trans needs 16-bit elements, got 8}}
func.func private @f() attributes {l = #tile.fragment<[16, 16], ldmatrix_trans<8>>}

// -----

// expected-error @+1 {{expected an ldmatrix tile of 8k x 8k elements}}
func.func private @f() attributes {l = #tile.fragment<[12, 16], ldmatrix<16>>}

// -----

// expected-error @+1 {{expected 1, 2 or 4 ldmatrix matrices, got 8}}
func.func private @f() attributes {l = #tile.fragment<[32, 16], ldmatrix<16>>}

// -----

// expected-error @+1 {{expected a built-in fragment name or 'threads'}}
func.func private @f() attributes {l = #tile.fragment<[16, 16], (d0, d1) -> (d0, d1)>}

// -----

// expected-error @+1 {{expected dimension 0 of extent 20 to be a multiple of its 3 copies}}
func.func private @f() attributes {l = #tile.fragment<[20, 8], mma_m16n8k16_c, repeat = [3, 1]>}

// -----

// expected-error @+1 {{expected mma_m16n8k16_c over a 16x8 tile}}
func.func private @f() attributes {l = #tile.fragment<[24, 8], mma_m16n8k16_c, repeat = [2, 1]>}

// -----

// expected-error @+1 {{expected 2 repeat factors, one per dimension}}
func.func private @f() attributes {l = #tile.fragment<[32, 8], mma_m16n8k16_c, repeat = [2]>}

// -----

// expected-error @+1 {{expected positive repeat factors}}
func.func private @f() attributes {l = #tile.fragment<[16, 8], mma_m16n8k16_c, repeat_on_thread = [0, 1]>}

// -----

// expected-error @+1 {{expected a positive replication}}
func.func private @f() attributes {l = #tile.fragment<[16, 8], mma_m16n8k16_c, replicate = 0>}

// -----

// expected-error @+1 {{expected repeat, repeat_on_thread or replicate, got 'tile'}}
func.func private @f() attributes {l = #tile.fragment<[16, 8], mma_m16n8k16_c, tile = [1, 1]>}

// -----

// Offsets are int64: tiles and maps that leave it are rejected when
// parsed, before anything evaluates them.

// expected-error @+1 {{expected at most 2^63-1 elements, got shape [4294967296, 4294967296]}}
func.func private @f() attributes {l = #tile.layout<[4294967296, 4294967296], row_major>}

// -----

// expected-error @+1 {{expected offsets within int64 over the tile [1073741824, 4], got result 0 (d0 * 17179869184 + d1) ranging from 0 to more than 2^63-1}}
func.func private @f() attributes {l = #tile.layout<[1073741824, 4], (d0, d1) -> (d0 * 17179869184 + d1)>}

// -----

// expected-error @+1 {{expected offsets within int64 over the tile [4294967296, 4], got result 0 (d0 * 4294967296 + d1) ranging from 0 to more than 2^63-1}}
func.func private @f() attributes {l = #tile.layout<[4294967296, 4], padded<4294967292>>}

// -----

// expected-error @+1 {{expected offsets within int64 over the tile [2, 4], got result 0 (d0 * -9223372036854775807 - d1 * 9223372036854775807) ranging from less than -2^63 to 0}}
func.func private @f() attributes {l = #tile.layout<[2, 4], (d0, d1) -> (d0 * -9223372036854775807 + d1 * -9223372036854775807)>}

// -----

// expected-error @+1 {{expected threads and registers within int64 over the tile [4, 4294967296], got result 1 (d1 * 4294967296) ranging from 0 to more than 2^63-1}}
func.func private @f() attributes {l = #tile.fragment<[4, 4294967296], threads = 4, (d0, d1) -> (d0, d1 * 4294967296)>}
