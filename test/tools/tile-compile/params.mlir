// Kernel parameters: `// tile.params:` lines declare them with defaults,
// -D overrides them (as `-D NAME=VALUE` or `-DNAME=VALUE`), every `${NAME}`
// is replaced before parsing, and the manifest records the values used in a
// comment the runtime skips.

// RUN: rm -rf %t && split-file %s %t

// Defaults, then overrides in both spellings.
// RUN: tile-compile %t/fill.mlir --print-source | FileCheck %s --check-prefix=DEFAULT
// RUN: tile-compile %t/fill.mlir --print-source -D THREADS=64 -DT=i32 -D VALUE=3 \
// RUN:   | FileCheck %s --check-prefix=OVERRIDE
// DEFAULT:      // tile.params: THREADS=32 T=f32
// DEFAULT-NEXT: // tile.params: VALUE=7.5
// DEFAULT:      func.func @fill(%out: memref<?xf32>) {
// DEFAULT:        tile.kernel blocks(%bx) in (%n) threads(32) {
// DEFAULT-NEXT:     %v = arith.constant 7.5 : f32
// DEFAULT-NEXT:     memref.store %v, %out[%bx] : memref<?xf32>
// DEFAULT-NOT:  ${
// OVERRIDE:     func.func @fill(%out: memref<?xi32>) {
// OVERRIDE:       tile.kernel blocks(%bx) in (%n) threads(64) {
// OVERRIDE-NEXT:    %v = arith.constant 3 : i32
// OVERRIDE-NEXT:    memref.store %v, %out[%bx] : memref<?xi32>

// The manifest records every parameter in declaration order, and the
// runtime reads it back.
// RUN: tile-compile %t/fill.mlir -o %t/out --no-cubin -D VALUE=2.25 > /dev/null
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/out/fill_kernel.manifest
// RUN: tile-run %t/out/fill_kernel.manifest --dry-run --arg arg0=5 | FileCheck %s --check-prefix=DRY
// MANIFEST:      tile-launch-manifest 1
// MANIFEST-NEXT: # compiled by tile-compile
// MANIFEST-NEXT: # params THREADS=32 T=f32 VALUE=2.25
// MANIFEST-NEXT: kernel fill_kernel
// MANIFEST:      block 32 1 1
// DRY: grid 5 1 1

// A file without parameters gets no params line.
// RUN: tile-compile %t/plain.mlir -o %t/plain --no-cubin > /dev/null
// RUN: FileCheck %s --check-prefix=PLAIN < %t/plain/plain_kernel.manifest
// PLAIN:     tile-launch-manifest 1
// PLAIN-NOT: # params

// Errors in -D.
// RUN: not tile-compile %t/fill.mlir --print-source -D BLOCK=4 2>&1 | FileCheck %s --check-prefix=UNDECLARED
// RUN: not tile-compile %t/plain.mlir --print-source -D BLOCK=4 2>&1 | FileCheck %s --check-prefix=NOPARAMS
// RUN: not tile-compile %t/fill.mlir --print-source -D THREADS 2>&1 | FileCheck %s --check-prefix=NOVALUE
// RUN: not tile-compile %t/fill.mlir --print-source -D THREADS= 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not tile-compile %t/fill.mlir --print-source -D T=f3-2 2>&1 | FileCheck %s --check-prefix=BADVALUE
// RUN: not tile-compile %t/fill.mlir --print-source -D 2T=f32 2>&1 | FileCheck %s --check-prefix=BADNAME
// RUN: not tile-compile %t/fill.mlir --print-source -D T=f32 -D T=f16 2>&1 | FileCheck %s --check-prefix=TWICE
// UNDECLARED: tile-compile: -D BLOCK: {{.*}}fill.mlir declares no parameter 'BLOCK' (declared: THREADS T VALUE)
// NOPARAMS: tile-compile: -D BLOCK: {{.*}}plain.mlir declares no parameter 'BLOCK' (it has no '// tile.params:' line)
// NOVALUE: tile-compile: malformed -D 'THREADS' (expected -D NAME=VALUE
// EMPTY: tile-compile: malformed -D 'THREADS=' (expected -D NAME=VALUE
// BADVALUE: tile-compile: malformed -D 'T=f3-2' (expected -D NAME=VALUE, NAME of [A-Za-z_][A-Za-z0-9_]*, VALUE of [A-Za-z0-9_.,]+)
// BADNAME: tile-compile: malformed -D '2T=f32'
// TWICE: tile-compile: -D T given twice

// Errors in the file, reported at their line and column.
// RUN: not tile-compile %t/novalue.mlir --print-source 2>&1 | FileCheck %s --check-prefix=REF
// RUN: not tile-compile %t/malformed.mlir --print-source 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not tile-compile %t/declarations.mlir --print-source 2>&1 | FileCheck %s --check-prefix=DECL
// REF: novalue.mlir:3:33: error: parameter 'N' has no value (declare it with a default in a '// tile.params:' line)
// REF: novalue.mlir:4:8: error: parameter 'WIDTH' has no value
// MALFORMED: malformed.mlir:2:29: error: malformed parameter reference (expected ${NAME}, NAME of [A-Za-z_][A-Za-z0-9_]*)
// MALFORMED: malformed.mlir:3:23: error: malformed parameter reference
// DECL: declarations.mlir:1:21: error: malformed parameter declaration 'B' (expected NAME=VALUE
// DECL: declarations.mlir:1:23: error: malformed parameter declaration 'C=x;y'
// DECL: declarations.mlir:2:17: error: parameter 'A' declared twice
// DECL: declarations.mlir:1:17: note: first declared here

// `// tile.params(NAME=VALUE):` lines set defaults where another parameter
// has a value, after -D (which still wins for the names it sets); a key may
// also name one chip, and holds where every condition does on that chip.
// RUN: tile-compile %t/keyed.mlir --print-source | FileCheck %s --check-prefix=KEYED-F16
// RUN: tile-compile %t/keyed.mlir --print-source -D T=bf16 | FileCheck %s --check-prefix=KEYED-BF16
// RUN: tile-compile %t/keyed.mlir --print-source -D T=bf16 -D ACC=bf16 \
// RUN:   | FileCheck %s --check-prefix=KEYED-GIVEN
// RUN: tile-compile %t/keyed.mlir --print-source -D T=bf16 -D N=2 \
// RUN:   | FileCheck %s --check-prefix=KEYED-N2
// RUN: tile-compile %t/keyed.mlir --print-source --chip sm_80 -D T=bf16 -D N=2 \
// RUN:   | FileCheck %s --check-prefix=KEYED-N2-SM80
// RUN: tile-compile %t/keyed.mlir --print-source --chip sm_80 -D N=2 \
// RUN:   | FileCheck %s --check-prefix=KEYED-N2-SM80-F16
// RUN: not tile-compile %t/keyed-errors.mlir --print-source 2>&1 | FileCheck %s --check-prefix=KEYED-ERR
// KEYED-F16:   func.func @acc(%x: memref<?xf16>, %y: memref<?xf16>) {
// KEYED-BF16:  func.func @acc(%x: memref<?xbf16>, %y: memref<?xf32>) {
// KEYED-GIVEN: func.func @acc(%x: memref<?xbf16>, %y: memref<?xbf16>) {
// KEYED-N2:    func.func @acc(%x: memref<?xbf16>, %y: memref<?xf32>) {
// KEYED-N2-SM80: func.func @acc(%x: memref<?xbf16>, %y: memref<?xf64>) {
// KEYED-N2-SM80-F16: func.func @acc(%x: memref<?xf16>, %y: memref<?xf16>) {
// KEYED-ERR: keyed-errors.mlir:2:16: error: malformed parameter condition 'T=' (expected '// tile.params([CHIP] NAME=VALUE...): NAME=VALUE...')
// KEYED-ERR: keyed-errors.mlir:3:16: error: parameter 'U' of the condition has no '// tile.params:' declaration
// KEYED-ERR: keyed-errors.mlir:4:24: error: parameter 'B' has a default for T=f32 but no '// tile.params:' declaration
// KEYED-ERR: keyed-errors.mlir:5:24: error: malformed parameter default 'ACC' (expected NAME=VALUE)
// KEYED-ERR: keyed-errors.mlir:6:22: error: malformed parameter condition 'sm_80 sm_90a T=f32' (expected '// tile.params([CHIP] NAME=VALUE...): NAME=VALUE...')

// Diagnostics after substitution keep the file's line numbers.
// RUN: not tile-compile %t/fill.mlir -o %t/bad --no-cubin -D THREADS=2048 2>&1 | FileCheck %s --check-prefix=VERIFY
// VERIFY: fill.mlir:9:3: error: 'tile.kernel' op expected at most 1024 threads per block, got 2048

//--- fill.mlir
// tile.params: THREADS=32 T=f32
// tile.params: VALUE=7.5
// A kernel of one block per element that stores VALUE into each; the
// parameters are used in types, attributes and constants.
func.func @fill(%out: memref<?x${T}>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %out, %c0 : memref<?x${T}>
  // The store runs on every thread of the block: the same value each time.
  tile.kernel blocks(%bx) in (%n) threads(${THREADS}) {
    %v = arith.constant ${VALUE} : ${T}
    memref.store %v, %out[%bx] : memref<?x${T}>
  }
  return
}

//--- plain.mlir
func.func @plain(%out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %out, %c0 : memref<?xf32>
  tile.kernel blocks(%bx) in (%n) threads(32) {
    %v = arith.constant 1.0 : f32
    memref.store %v, %out[%bx] : memref<?xf32>
  }
  return
}

//--- novalue.mlir
// tile.params: T=f32
func.func @f(%out: memref<?x${T}>) {
  %c = arith.constant 0 : index ${N}
  %w = ${WIDTH}
  return
}

//--- malformed.mlir
// tile.params: T=f32
func.func @f(%out: memref<?x${ T}>) {
  %c = arith.constant ${T
  return
}

//--- declarations.mlir
// tile.params: A=1 B C=x;y
// tile.params: A=2
func.func @f() {
  return
}

//--- keyed.mlir
// tile.params: T=f16 ACC=f16 N=1
// tile.params(T=bf16): ACC=f32
// tile.params(sm_80): ACC=f16
// tile.params(sm_80 T=bf16 N=2): ACC=f64
func.func @acc(%x: memref<?x${T}>, %y: memref<?x${ACC}>) {
  return
}

//--- keyed-errors.mlir
// tile.params: T=f32 ACC=f32
// tile.params(T=): ACC=f16
// tile.params(U=1): ACC=f16
// tile.params(T=f32): B=1
// tile.params(T=f32): ACC
// tile.params(sm_80 sm_90a T=f32): ACC=f16
func.func @f() {
  return
}
