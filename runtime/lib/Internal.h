//===- Internal.h - helpers shared by the runtime's sources -----*- C -*-===//
//
// Error recording used by every part of libtile_runtime. Not installed.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_INTERNAL_H
#define TILE_RUNTIME_INTERNAL_H

#include "tile-runtime/Runtime.h"

#if defined(__GNUC__)
#define TILE_RT_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define TILE_RT_PRINTF(fmt, args)
#endif

/// Records a printf-style message as the thread's last error and returns
/// `status`, so that failures read `return tileRtFail(STATUS, "...", ...)`.
tileRtStatus tileRtFail(tileRtStatus status, const char *fmt, ...)
    TILE_RT_PRINTF(2, 3);

/// Records the driver result `code` of the last failed call.
void tileRtSetDriverError(int code);

/// tileRtEvalExpr with a check-only mode: when `checkOnly` is nonzero,
/// division by zero and overflow are not errors (names may stand for
/// placeholder values), so only the syntax and the names are checked.
tileRtStatus tileRtEvalExprImpl(const char *expr, tileRtExprLookup lookup,
                                void *context, int checkOnly, int64_t *result);

#endif // TILE_RUNTIME_INTERNAL_H
