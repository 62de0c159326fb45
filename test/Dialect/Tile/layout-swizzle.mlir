// RUN: tile-opt -test-tile-layout %s -o /dev/null | FileCheck %s

// The NVIDIA shared-memory swizzles. In a B-byte swizzle (B = 32, 64, 128)
// a tile row holds B bytes, and the 16-byte chunk index of every element is
// XORed with the bits of its 128-byte line index within an 8-line period
// (the TMA / wgmma canonical layouts): for 128B the chunk is XORed with
// row % 8, for 64B (two rows per line) with (row / 2) % 4, for 32B (four
// rows per line) with (row / 4) % 2. The offset of the first element of
// every chunk is checked; each swizzle must be a bijection of the tile,
// invert exactly, and let ldmatrix read 8 rows of one chunk column without
// bank conflicts.

func.func private @sw128_f16() attributes {layout = #tile.layout<[8, 64], swizzle<128, 16>>, print = "table", inverse, ldmatrix_bits = 16 : i64}
// CHECK-LABEL: === sw128_f16: #tile.layout<[8, 64], swizzle<128, 16>>
// CHECK-NEXT: codomain: [512]
// CHECK-NEXT: bijective: true
// CHECK: (0, 0) -> 0
// CHECK: (0, 8) -> 8
// CHECK: (0, 16) -> 16
// CHECK: (0, 24) -> 24
// CHECK: (0, 32) -> 32
// CHECK: (0, 40) -> 40
// CHECK: (0, 48) -> 48
// CHECK: (0, 56) -> 56
// CHECK: (1, 0) -> 72
// CHECK: (1, 8) -> 64
// CHECK: (1, 16) -> 88
// CHECK: (1, 24) -> 80
// CHECK: (1, 32) -> 104
// CHECK: (1, 40) -> 96
// CHECK: (1, 48) -> 120
// CHECK: (1, 56) -> 112
// CHECK: (2, 0) -> 144
// CHECK: (2, 8) -> 152
// CHECK: (2, 16) -> 128
// CHECK: (2, 24) -> 136
// CHECK: (2, 32) -> 176
// CHECK: (2, 40) -> 184
// CHECK: (2, 48) -> 160
// CHECK: (2, 56) -> 168
// CHECK: (3, 0) -> 216
// CHECK: (3, 8) -> 208
// CHECK: (3, 16) -> 200
// CHECK: (3, 24) -> 192
// CHECK: (3, 32) -> 248
// CHECK: (3, 40) -> 240
// CHECK: (3, 48) -> 232
// CHECK: (3, 56) -> 224
// CHECK: (4, 0) -> 288
// CHECK: (4, 8) -> 296
// CHECK: (4, 16) -> 304
// CHECK: (4, 24) -> 312
// CHECK: (4, 32) -> 256
// CHECK: (4, 40) -> 264
// CHECK: (4, 48) -> 272
// CHECK: (4, 56) -> 280
// CHECK: (5, 0) -> 360
// CHECK: (5, 8) -> 352
// CHECK: (5, 16) -> 376
// CHECK: (5, 24) -> 368
// CHECK: (5, 32) -> 328
// CHECK: (5, 40) -> 320
// CHECK: (5, 48) -> 344
// CHECK: (5, 56) -> 336
// CHECK: (6, 0) -> 432
// CHECK: (6, 8) -> 440
// CHECK: (6, 16) -> 416
// CHECK: (6, 24) -> 424
// CHECK: (6, 32) -> 400
// CHECK: (6, 40) -> 408
// CHECK: (6, 48) -> 384
// CHECK: (6, 56) -> 392
// CHECK: (7, 0) -> 504
// CHECK: (7, 8) -> 496
// CHECK: (7, 16) -> 488
// CHECK: (7, 24) -> 480
// CHECK: (7, 32) -> 472
// CHECK: (7, 40) -> 464
// CHECK: (7, 48) -> 456
// CHECK: (7, 56) -> 448
// CHECK: inverse round-trip: ok
// CHECK-NEXT: ldmatrix conflict-free: true (worst 1-way)

func.func private @sw64_f16() attributes {layout = #tile.layout<[8, 32], swizzle<64, 16>>, print = "table", inverse, ldmatrix_bits = 16 : i64}
// CHECK-LABEL: === sw64_f16: #tile.layout<[8, 32], swizzle<64, 16>>
// CHECK-NEXT: codomain: [256]
// CHECK-NEXT: bijective: true
// CHECK: (0, 0) -> 0
// CHECK: (0, 8) -> 8
// CHECK: (0, 16) -> 16
// CHECK: (0, 24) -> 24
// CHECK: (1, 0) -> 32
// CHECK: (1, 8) -> 40
// CHECK: (1, 16) -> 48
// CHECK: (1, 24) -> 56
// CHECK: (2, 0) -> 72
// CHECK: (2, 8) -> 64
// CHECK: (2, 16) -> 88
// CHECK: (2, 24) -> 80
// CHECK: (3, 0) -> 104
// CHECK: (3, 8) -> 96
// CHECK: (3, 16) -> 120
// CHECK: (3, 24) -> 112
// CHECK: (4, 0) -> 144
// CHECK: (4, 8) -> 152
// CHECK: (4, 16) -> 128
// CHECK: (4, 24) -> 136
// CHECK: (5, 0) -> 176
// CHECK: (5, 8) -> 184
// CHECK: (5, 16) -> 160
// CHECK: (5, 24) -> 168
// CHECK: (6, 0) -> 216
// CHECK: (6, 8) -> 208
// CHECK: (6, 16) -> 200
// CHECK: (6, 24) -> 192
// CHECK: (7, 0) -> 248
// CHECK: (7, 8) -> 240
// CHECK: (7, 16) -> 232
// CHECK: (7, 24) -> 224
// CHECK: inverse round-trip: ok
// CHECK-NEXT: ldmatrix conflict-free: true (worst 1-way)

func.func private @sw32_f16() attributes {layout = #tile.layout<[8, 16], swizzle<32, 16>>, print = "table", inverse, ldmatrix_bits = 16 : i64}
// CHECK-LABEL: === sw32_f16: #tile.layout<[8, 16], swizzle<32, 16>>
// CHECK-NEXT: codomain: [128]
// CHECK-NEXT: bijective: true
// CHECK: (0, 0) -> 0
// CHECK: (0, 8) -> 8
// CHECK: (1, 0) -> 16
// CHECK: (1, 8) -> 24
// CHECK: (2, 0) -> 32
// CHECK: (2, 8) -> 40
// CHECK: (3, 0) -> 48
// CHECK: (3, 8) -> 56
// CHECK: (4, 0) -> 72
// CHECK: (4, 8) -> 64
// CHECK: (5, 0) -> 88
// CHECK: (5, 8) -> 80
// CHECK: (6, 0) -> 104
// CHECK: (6, 8) -> 96
// CHECK: (7, 0) -> 120
// CHECK: (7, 8) -> 112
// CHECK: inverse round-trip: ok
// CHECK-NEXT: ldmatrix conflict-free: true (worst 1-way)

func.func private @sw128_f32() attributes {layout = #tile.layout<[8, 32], swizzle<128, 32>>, print = "table", inverse, ldmatrix_bits = 32 : i64}
// CHECK-LABEL: === sw128_f32: #tile.layout<[8, 32], swizzle<128, 32>>
// CHECK-NEXT: codomain: [256]
// CHECK-NEXT: bijective: true
// CHECK: (0, 0) -> 0
// CHECK: (0, 4) -> 4
// CHECK: (0, 8) -> 8
// CHECK: (0, 12) -> 12
// CHECK: (0, 16) -> 16
// CHECK: (0, 20) -> 20
// CHECK: (0, 24) -> 24
// CHECK: (0, 28) -> 28
// CHECK: (1, 0) -> 36
// CHECK: (1, 4) -> 32
// CHECK: (1, 8) -> 44
// CHECK: (1, 12) -> 40
// CHECK: (1, 16) -> 52
// CHECK: (1, 20) -> 48
// CHECK: (1, 24) -> 60
// CHECK: (1, 28) -> 56
// CHECK: (2, 0) -> 72
// CHECK: (2, 4) -> 76
// CHECK: (2, 8) -> 64
// CHECK: (2, 12) -> 68
// CHECK: (2, 16) -> 88
// CHECK: (2, 20) -> 92
// CHECK: (2, 24) -> 80
// CHECK: (2, 28) -> 84
// CHECK: (3, 0) -> 108
// CHECK: (3, 4) -> 104
// CHECK: (3, 8) -> 100
// CHECK: (3, 12) -> 96
// CHECK: (3, 16) -> 124
// CHECK: (3, 20) -> 120
// CHECK: (3, 24) -> 116
// CHECK: (3, 28) -> 112
// CHECK: (4, 0) -> 144
// CHECK: (4, 4) -> 148
// CHECK: (4, 8) -> 152
// CHECK: (4, 12) -> 156
// CHECK: (4, 16) -> 128
// CHECK: (4, 20) -> 132
// CHECK: (4, 24) -> 136
// CHECK: (4, 28) -> 140
// CHECK: (5, 0) -> 180
// CHECK: (5, 4) -> 176
// CHECK: (5, 8) -> 188
// CHECK: (5, 12) -> 184
// CHECK: (5, 16) -> 164
// CHECK: (5, 20) -> 160
// CHECK: (5, 24) -> 172
// CHECK: (5, 28) -> 168
// CHECK: (6, 0) -> 216
// CHECK: (6, 4) -> 220
// CHECK: (6, 8) -> 208
// CHECK: (6, 12) -> 212
// CHECK: (6, 16) -> 200
// CHECK: (6, 20) -> 204
// CHECK: (6, 24) -> 192
// CHECK: (6, 28) -> 196
// CHECK: (7, 0) -> 252
// CHECK: (7, 4) -> 248
// CHECK: (7, 8) -> 244
// CHECK: (7, 12) -> 240
// CHECK: (7, 16) -> 236
// CHECK: (7, 20) -> 232
// CHECK: (7, 24) -> 228
// CHECK: (7, 28) -> 224
// CHECK: inverse round-trip: ok
// CHECK-NEXT: ldmatrix conflict-free: true (worst 1-way)

func.func private @sw128_i8() attributes {layout = #tile.layout<[8, 128], swizzle<128, 8>>, print = "table", inverse, ldmatrix_bits = 8 : i64}
// CHECK-LABEL: === sw128_i8: #tile.layout<[8, 128], swizzle<128, 8>>
// CHECK-NEXT: codomain: [1024]
// CHECK-NEXT: bijective: true
// CHECK: (0, 0) -> 0
// CHECK: (0, 16) -> 16
// CHECK: (0, 32) -> 32
// CHECK: (0, 48) -> 48
// CHECK: (0, 64) -> 64
// CHECK: (0, 80) -> 80
// CHECK: (0, 96) -> 96
// CHECK: (0, 112) -> 112
// CHECK: (1, 0) -> 144
// CHECK: (1, 16) -> 128
// CHECK: (1, 32) -> 176
// CHECK: (1, 48) -> 160
// CHECK: (1, 64) -> 208
// CHECK: (1, 80) -> 192
// CHECK: (1, 96) -> 240
// CHECK: (1, 112) -> 224
// CHECK: (2, 0) -> 288
// CHECK: (2, 16) -> 304
// CHECK: (2, 32) -> 256
// CHECK: (2, 48) -> 272
// CHECK: (2, 64) -> 352
// CHECK: (2, 80) -> 368
// CHECK: (2, 96) -> 320
// CHECK: (2, 112) -> 336
// CHECK: (3, 0) -> 432
// CHECK: (3, 16) -> 416
// CHECK: (3, 32) -> 400
// CHECK: (3, 48) -> 384
// CHECK: (3, 64) -> 496
// CHECK: (3, 80) -> 480
// CHECK: (3, 96) -> 464
// CHECK: (3, 112) -> 448
// CHECK: (4, 0) -> 576
// CHECK: (4, 16) -> 592
// CHECK: (4, 32) -> 608
// CHECK: (4, 48) -> 624
// CHECK: (4, 64) -> 512
// CHECK: (4, 80) -> 528
// CHECK: (4, 96) -> 544
// CHECK: (4, 112) -> 560
// CHECK: (5, 0) -> 720
// CHECK: (5, 16) -> 704
// CHECK: (5, 32) -> 752
// CHECK: (5, 48) -> 736
// CHECK: (5, 64) -> 656
// CHECK: (5, 80) -> 640
// CHECK: (5, 96) -> 688
// CHECK: (5, 112) -> 672
// CHECK: (6, 0) -> 864
// CHECK: (6, 16) -> 880
// CHECK: (6, 32) -> 832
// CHECK: (6, 48) -> 848
// CHECK: (6, 64) -> 800
// CHECK: (6, 80) -> 816
// CHECK: (6, 96) -> 768
// CHECK: (6, 112) -> 784
// CHECK: (7, 0) -> 1008
// CHECK: (7, 16) -> 992
// CHECK: (7, 32) -> 976
// CHECK: (7, 48) -> 960
// CHECK: (7, 64) -> 944
// CHECK: (7, 80) -> 928
// CHECK: (7, 96) -> 912
// CHECK: (7, 112) -> 896
// CHECK: inverse round-trip: ok
// CHECK-NEXT: ldmatrix conflict-free: true (worst 1-way)

func.func private @sw128_f16_wide() attributes {layout = #tile.layout<[16, 128], swizzle<128, 16>>, print = "table", inverse, ldmatrix_bits = 16 : i64}
// CHECK-LABEL: === sw128_f16_wide: #tile.layout<[16, 128], swizzle<128, 16>>
// CHECK-NEXT: codomain: [2048]
// CHECK-NEXT: bijective: true
// CHECK: (0, 0) -> 0
// CHECK: (0, 8) -> 8
// CHECK: (0, 16) -> 16
// CHECK: (0, 24) -> 24
// CHECK: (0, 32) -> 32
// CHECK: (0, 40) -> 40
// CHECK: (0, 48) -> 48
// CHECK: (0, 56) -> 56
// CHECK: (0, 64) -> 1024
// CHECK: (0, 72) -> 1032
// CHECK: (0, 80) -> 1040
// CHECK: (0, 88) -> 1048
// CHECK: (0, 96) -> 1056
// CHECK: (0, 104) -> 1064
// CHECK: (0, 112) -> 1072
// CHECK: (0, 120) -> 1080
// CHECK: (1, 0) -> 72
// CHECK: (1, 8) -> 64
// CHECK: (1, 16) -> 88
// CHECK: (1, 24) -> 80
// CHECK: (1, 32) -> 104
// CHECK: (1, 40) -> 96
// CHECK: (1, 48) -> 120
// CHECK: (1, 56) -> 112
// CHECK: (1, 64) -> 1096
// CHECK: (1, 72) -> 1088
// CHECK: (1, 80) -> 1112
// CHECK: (1, 88) -> 1104
// CHECK: (1, 96) -> 1128
// CHECK: (1, 104) -> 1120
// CHECK: (1, 112) -> 1144
// CHECK: (1, 120) -> 1136
// CHECK: (2, 0) -> 144
// CHECK: (2, 8) -> 152
// CHECK: (2, 16) -> 128
// CHECK: (2, 24) -> 136
// CHECK: (2, 32) -> 176
// CHECK: (2, 40) -> 184
// CHECK: (2, 48) -> 160
// CHECK: (2, 56) -> 168
// CHECK: (2, 64) -> 1168
// CHECK: (2, 72) -> 1176
// CHECK: (2, 80) -> 1152
// CHECK: (2, 88) -> 1160
// CHECK: (2, 96) -> 1200
// CHECK: (2, 104) -> 1208
// CHECK: (2, 112) -> 1184
// CHECK: (2, 120) -> 1192
// CHECK: (3, 0) -> 216
// CHECK: (3, 8) -> 208
// CHECK: (3, 16) -> 200
// CHECK: (3, 24) -> 192
// CHECK: (3, 32) -> 248
// CHECK: (3, 40) -> 240
// CHECK: (3, 48) -> 232
// CHECK: (3, 56) -> 224
// CHECK: (3, 64) -> 1240
// CHECK: (3, 72) -> 1232
// CHECK: (3, 80) -> 1224
// CHECK: (3, 88) -> 1216
// CHECK: (3, 96) -> 1272
// CHECK: (3, 104) -> 1264
// CHECK: (3, 112) -> 1256
// CHECK: (3, 120) -> 1248
// CHECK: (4, 0) -> 288
// CHECK: (4, 8) -> 296
// CHECK: (4, 16) -> 304
// CHECK: (4, 24) -> 312
// CHECK: (4, 32) -> 256
// CHECK: (4, 40) -> 264
// CHECK: (4, 48) -> 272
// CHECK: (4, 56) -> 280
// CHECK: (4, 64) -> 1312
// CHECK: (4, 72) -> 1320
// CHECK: (4, 80) -> 1328
// CHECK: (4, 88) -> 1336
// CHECK: (4, 96) -> 1280
// CHECK: (4, 104) -> 1288
// CHECK: (4, 112) -> 1296
// CHECK: (4, 120) -> 1304
// CHECK: (5, 0) -> 360
// CHECK: (5, 8) -> 352
// CHECK: (5, 16) -> 376
// CHECK: (5, 24) -> 368
// CHECK: (5, 32) -> 328
// CHECK: (5, 40) -> 320
// CHECK: (5, 48) -> 344
// CHECK: (5, 56) -> 336
// CHECK: (5, 64) -> 1384
// CHECK: (5, 72) -> 1376
// CHECK: (5, 80) -> 1400
// CHECK: (5, 88) -> 1392
// CHECK: (5, 96) -> 1352
// CHECK: (5, 104) -> 1344
// CHECK: (5, 112) -> 1368
// CHECK: (5, 120) -> 1360
// CHECK: (6, 0) -> 432
// CHECK: (6, 8) -> 440
// CHECK: (6, 16) -> 416
// CHECK: (6, 24) -> 424
// CHECK: (6, 32) -> 400
// CHECK: (6, 40) -> 408
// CHECK: (6, 48) -> 384
// CHECK: (6, 56) -> 392
// CHECK: (6, 64) -> 1456
// CHECK: (6, 72) -> 1464
// CHECK: (6, 80) -> 1440
// CHECK: (6, 88) -> 1448
// CHECK: (6, 96) -> 1424
// CHECK: (6, 104) -> 1432
// CHECK: (6, 112) -> 1408
// CHECK: (6, 120) -> 1416
// CHECK: (7, 0) -> 504
// CHECK: (7, 8) -> 496
// CHECK: (7, 16) -> 488
// CHECK: (7, 24) -> 480
// CHECK: (7, 32) -> 472
// CHECK: (7, 40) -> 464
// CHECK: (7, 48) -> 456
// CHECK: (7, 56) -> 448
// CHECK: (7, 64) -> 1528
// CHECK: (7, 72) -> 1520
// CHECK: (7, 80) -> 1512
// CHECK: (7, 88) -> 1504
// CHECK: (7, 96) -> 1496
// CHECK: (7, 104) -> 1488
// CHECK: (7, 112) -> 1480
// CHECK: (7, 120) -> 1472
// CHECK: (8, 0) -> 512
// CHECK: (8, 8) -> 520
// CHECK: (8, 16) -> 528
// CHECK: (8, 24) -> 536
// CHECK: (8, 32) -> 544
// CHECK: (8, 40) -> 552
// CHECK: (8, 48) -> 560
// CHECK: (8, 56) -> 568
// CHECK: (8, 64) -> 1536
// CHECK: (8, 72) -> 1544
// CHECK: (8, 80) -> 1552
// CHECK: (8, 88) -> 1560
// CHECK: (8, 96) -> 1568
// CHECK: (8, 104) -> 1576
// CHECK: (8, 112) -> 1584
// CHECK: (8, 120) -> 1592
// CHECK: (9, 0) -> 584
// CHECK: (9, 8) -> 576
// CHECK: (9, 16) -> 600
// CHECK: (9, 24) -> 592
// CHECK: (9, 32) -> 616
// CHECK: (9, 40) -> 608
// CHECK: (9, 48) -> 632
// CHECK: (9, 56) -> 624
// CHECK: (9, 64) -> 1608
// CHECK: (9, 72) -> 1600
// CHECK: (9, 80) -> 1624
// CHECK: (9, 88) -> 1616
// CHECK: (9, 96) -> 1640
// CHECK: (9, 104) -> 1632
// CHECK: (9, 112) -> 1656
// CHECK: (9, 120) -> 1648
// CHECK: (10, 0) -> 656
// CHECK: (10, 8) -> 664
// CHECK: (10, 16) -> 640
// CHECK: (10, 24) -> 648
// CHECK: (10, 32) -> 688
// CHECK: (10, 40) -> 696
// CHECK: (10, 48) -> 672
// CHECK: (10, 56) -> 680
// CHECK: (10, 64) -> 1680
// CHECK: (10, 72) -> 1688
// CHECK: (10, 80) -> 1664
// CHECK: (10, 88) -> 1672
// CHECK: (10, 96) -> 1712
// CHECK: (10, 104) -> 1720
// CHECK: (10, 112) -> 1696
// CHECK: (10, 120) -> 1704
// CHECK: (11, 0) -> 728
// CHECK: (11, 8) -> 720
// CHECK: (11, 16) -> 712
// CHECK: (11, 24) -> 704
// CHECK: (11, 32) -> 760
// CHECK: (11, 40) -> 752
// CHECK: (11, 48) -> 744
// CHECK: (11, 56) -> 736
// CHECK: (11, 64) -> 1752
// CHECK: (11, 72) -> 1744
// CHECK: (11, 80) -> 1736
// CHECK: (11, 88) -> 1728
// CHECK: (11, 96) -> 1784
// CHECK: (11, 104) -> 1776
// CHECK: (11, 112) -> 1768
// CHECK: (11, 120) -> 1760
// CHECK: (12, 0) -> 800
// CHECK: (12, 8) -> 808
// CHECK: (12, 16) -> 816
// CHECK: (12, 24) -> 824
// CHECK: (12, 32) -> 768
// CHECK: (12, 40) -> 776
// CHECK: (12, 48) -> 784
// CHECK: (12, 56) -> 792
// CHECK: (12, 64) -> 1824
// CHECK: (12, 72) -> 1832
// CHECK: (12, 80) -> 1840
// CHECK: (12, 88) -> 1848
// CHECK: (12, 96) -> 1792
// CHECK: (12, 104) -> 1800
// CHECK: (12, 112) -> 1808
// CHECK: (12, 120) -> 1816
// CHECK: (13, 0) -> 872
// CHECK: (13, 8) -> 864
// CHECK: (13, 16) -> 888
// CHECK: (13, 24) -> 880
// CHECK: (13, 32) -> 840
// CHECK: (13, 40) -> 832
// CHECK: (13, 48) -> 856
// CHECK: (13, 56) -> 848
// CHECK: (13, 64) -> 1896
// CHECK: (13, 72) -> 1888
// CHECK: (13, 80) -> 1912
// CHECK: (13, 88) -> 1904
// CHECK: (13, 96) -> 1864
// CHECK: (13, 104) -> 1856
// CHECK: (13, 112) -> 1880
// CHECK: (13, 120) -> 1872
// CHECK: (14, 0) -> 944
// CHECK: (14, 8) -> 952
// CHECK: (14, 16) -> 928
// CHECK: (14, 24) -> 936
// CHECK: (14, 32) -> 912
// CHECK: (14, 40) -> 920
// CHECK: (14, 48) -> 896
// CHECK: (14, 56) -> 904
// CHECK: (14, 64) -> 1968
// CHECK: (14, 72) -> 1976
// CHECK: (14, 80) -> 1952
// CHECK: (14, 88) -> 1960
// CHECK: (14, 96) -> 1936
// CHECK: (14, 104) -> 1944
// CHECK: (14, 112) -> 1920
// CHECK: (14, 120) -> 1928
// CHECK: (15, 0) -> 1016
// CHECK: (15, 8) -> 1008
// CHECK: (15, 16) -> 1000
// CHECK: (15, 24) -> 992
// CHECK: (15, 32) -> 984
// CHECK: (15, 40) -> 976
// CHECK: (15, 48) -> 968
// CHECK: (15, 56) -> 960
// CHECK: (15, 64) -> 2040
// CHECK: (15, 72) -> 2032
// CHECK: (15, 80) -> 2024
// CHECK: (15, 88) -> 2016
// CHECK: (15, 96) -> 2008
// CHECK: (15, 104) -> 2000
// CHECK: (15, 112) -> 1992
// CHECK: (15, 120) -> 1984
// CHECK: inverse round-trip: ok
// CHECK-NEXT: ldmatrix conflict-free: true (worst 1-way)

// Without a swizzle, 128-byte rows put the same chunk of 8 rows in one bank
// group (8-way conflict), 64-byte rows in two (4-way); padding a row by 16
// bytes spreads them.
func.func private @row_major_128B() attributes {layout = #tile.layout<[8, 64], row_major>, ldmatrix_bits = 16 : i64}
// CHECK-LABEL: === row_major_128B: #tile.layout<[8, 64], row_major>
// CHECK: bijective: true
// CHECK-NEXT: ldmatrix conflict-free: false (worst 8-way)
func.func private @row_major_64B() attributes {layout = #tile.layout<[8, 32], row_major>, ldmatrix_bits = 16 : i64}
// CHECK-LABEL: === row_major_64B:
// CHECK: ldmatrix conflict-free: false (worst 4-way)
func.func private @padded() attributes {layout = #tile.layout<[8, 64], padded<8>>, ldmatrix_bits = 16 : i64, inverse}
// CHECK-LABEL: === padded: #tile.layout<[8, 64], padded<8>>
// CHECK-NEXT: codomain: [568]
// CHECK-NEXT: bijective: false
// CHECK-NEXT: inverse: none
// CHECK-NEXT: ldmatrix conflict-free: true (worst 1-way)

// The general form spells the same swizzle as an affine map and an XOR of
// offset bits [6, 9) into bits [3, 6); it is the built-in, so it prints as
// one, and evaluates identically. Its GF(2) form has one basis per input
// bit: row bits r0..r2 also flip chunk bits (72 = 64 + 8).
func.func private @xor_form() attributes {layout = #tile.layout<[8, 64], (d0, d1) -> (d0 * 64 + d1 mod 64), xor<3, 3, 3>>, equals = #tile.layout<[8, 64], swizzle<128, 16>>, linear}
// CHECK-LABEL: === xor_form: #tile.layout<[8, 64], swizzle<128, 16>>
// CHECK: linear: #tile.layout<[8, 64], linear<{{\[}}[72, 144, 288], [1, 2, 4, 8, 16, 32]]>>
// CHECK-NEXT: equivalent: true

// XOR with the wrong bits is a different layout.
func.func private @xor_other() attributes {layout = #tile.layout<[8, 64], (d0, d1) -> (d0 * 64 + d1), xor<3, 3, 4>>, equals = #tile.layout<[8, 64], swizzle<128, 16>>, ldmatrix_bits = 16 : i64}
// CHECK-LABEL: === xor_other: #tile.layout<[8, 64], (d0, d1) -> (d0 * 64 + d1), xor<3, 3, 4>>
// CHECK: bijective: true
// CHECK-NEXT: equivalent: false
// CHECK-NEXT: ldmatrix conflict-free: false (worst 2-way)
