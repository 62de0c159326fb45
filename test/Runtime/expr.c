//===- expr.c - grid expression evaluation of the tile runtime -*- C -*-===//
//
// Evaluates each command-line argument with tileRtEvalExpr, binding
// A.dim0 = 1000, A.dim1 = 33, n = -7 and big = INT64_MAX, and prints the
// value or the error, so the RUN line below checks values, operator
// precedence, rounding of ceildiv/floordiv, the sign of mod on negative
// operands, primefloor, and the errors (syntax, unknown names, division by
// zero, overflow, nesting).
//
// clang-format off
/*
RUN: %tile_obj/test/Runtime/tile-rt-expr '1 + 2 * 3' '(1 + 2) * 3' \
RUN:   '-2 * -3' 'ceildiv(A.dim0, 128)' 'floordiv(A.dim0, 128)' \
RUN:   'ceildiv(n, 2)' 'floordiv(n, 2)' 'ceildiv(7, -2)' 'floordiv(7, -2)' \
RUN:   'mod(A.dim0, 64)' 'mod(n, 4)' 'mod(7, -2)' 'mod(5, 0)' 'min(A.dim0, A.dim1) - max(n, 0)' \
RUN:   'ceildiv(A.dim0,128)*ceildiv(A.dim1,64)' \
RUN:   '  42  ' 'big' 'big + 1' '-big - 2' 'big * 2' 'ceildiv(1, 0)' \
RUN:   'floordiv(A.dim0, A.dim1 - 33)' 'x + 1' 'A.dim2' 'foo(1, 2)' \
RUN:   'ceildiv(1)' '1 +' '(1' '1 2' '3a' '' '99999999999999999999' \
RUN:   '((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((1))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))' \
RUN:   '1 / 2' 'primefloor(132)' 'primefloor(131)' 'primefloor(264)' \
RUN:   'primefloor(A.dim0)' 'primefloor(2)' 'primefloor(1)' 'primefloor(0)' \
RUN:   'primefloor(big)' 'primefloor(1, 2)' | FileCheck %s
*/
//
// CHECK: '1 + 2 * 3' = 7
// CHECK: '(1 + 2) * 3' = 9
// CHECK: '-2 * -3' = 6
// CHECK: 'ceildiv(A.dim0, 128)' = 8
// CHECK: 'floordiv(A.dim0, 128)' = 7
// CHECK: 'ceildiv(n, 2)' = -3
// CHECK: 'floordiv(n, 2)' = -4
// CHECK: 'ceildiv(7, -2)' = -3
// CHECK: 'floordiv(7, -2)' = -4
// CHECK: 'mod(A.dim0, 64)' = 40
// CHECK: 'mod(n, 4)' = 1
// CHECK: 'mod(7, -2)' = -1
// CHECK: 'mod(5, 0)': error: division by zero at column 1
// CHECK: 'min(A.dim0, A.dim1) - max(n, 0)' = 33
// CHECK: 'ceildiv(A.dim0,128)*ceildiv(A.dim1,64)' = 8
// CHECK: '  42  ' = 42
// CHECK: 'big' = 9223372036854775807
// CHECK: 'big + 1': error: integer overflow at column 5
// CHECK: '-big - 2': error: integer overflow at column 6
// CHECK: 'big * 2': error: integer overflow at column 5
// CHECK: 'ceildiv(1, 0)': error: division by zero at column 1
// CHECK: 'floordiv(A.dim0, A.dim1 - 33)': error: division by zero at column 1
// CHECK: 'x + 1': error: unknown name 'x' at column 1
// CHECK: 'A.dim2': error: unknown name 'A.dim2' at column 1
// CHECK: 'foo(1, 2)': error: unknown function 'foo' at column 1 (expected ceildiv, floordiv, min, max, mod or primefloor)
// CHECK: 'ceildiv(1)': error: expected ',' between the two arguments at column 10, found ')'
// CHECK: '1 +': error: expected an integer, a name or '(' at end of expression
// CHECK: '(1': error: expected ')' at end of expression
// CHECK: '1 2': error: expected an operator at column 3, found '2'
// CHECK: '3a': error: expected an operator after an integer at column 2, found 'a'
// CHECK: '': error: expected an integer, a name or '(' at end of expression
// CHECK: '99999999999999999999': error: integer literal out of range at column 1
// CHECK: '(((({{.*}}': error: expression nests too deeply
// CHECK: '1 / 2': error: expected an operator at column 3, found '/'
// CHECK: 'primefloor(132)' = 131
// CHECK: 'primefloor(131)' = 131
// CHECK: 'primefloor(264)' = 263
// CHECK: 'primefloor(A.dim0)' = 997
// CHECK: 'primefloor(2)' = 2
// CHECK: 'primefloor(1)' = 1
// CHECK: 'primefloor(0)' = 0
// CHECK: 'primefloor(big)': error: primefloor of more than 2^31-1 at column 1
// CHECK: 'primefloor(1, 2)': error: expected ')' after the argument at column 13, found ','
//
// clang-format on
//===----------------------------------------------------------------------===//

#include "tile-runtime/Runtime.h"

#include <stdio.h>
#include <string.h>

static int lookup(void *context, const char *name, size_t len, int64_t *value) {
  (void)context;
  static const struct {
    const char *name;
    int64_t value;
  } bindings[] = {
      {"A.dim0", 1000}, {"A.dim1", 33}, {"n", -7}, {"big", INT64_MAX}};
  for (size_t i = 0; i < sizeof(bindings) / sizeof(bindings[0]); ++i)
    if (strlen(bindings[i].name) == len &&
        memcmp(bindings[i].name, name, len) == 0) {
      *value = bindings[i].value;
      return 1;
    }
  return 0;
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    int64_t v;
    if (tileRtEvalExpr(argv[i], lookup, NULL, &v) == TILE_RT_SUCCESS)
      printf("'%s' = %lld\n", argv[i], (long long)v);
    else
      printf("'%s': error: %s\n", argv[i], tileRtErrorString());
  }
  return 0;
}
