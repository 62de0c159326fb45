//===- Common.h - helpers shared by the C API test programs -----*- C -*-===//
//
// Printing callbacks of the C API tests: IR and diagnostics go to stderr, so
// FileCheck reads one ordered stream. Header-only (static inline functions), so
// each test program stays one C file linked against libTileCAPI.so alone.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TEST_CAPI_COMMON_H
#define TILE_TEST_CAPI_COMMON_H

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <stdio.h>

/// Writes a printed chunk of IR or text to stderr.
static inline void printToStderr(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stderr);
}

/// Prints each diagnostic as `<severity>: <message>` and marks it handled.
static inline MlirLogicalResult printDiagnostic(MlirDiagnostic diagnostic,
                                                void *userData) {
  (void)userData;
  static const char *const kSeverity[] = {"error", "warning", "note", "remark"};
  fprintf(stderr, "%s: ", kSeverity[mlirDiagnosticGetSeverity(diagnostic)]);
  mlirDiagnosticPrint(diagnostic, printToStderr, NULL);
  fprintf(stderr, "\n");
  return mlirLogicalResultSuccess();
}

#endif // TILE_TEST_CAPI_COMMON_H
