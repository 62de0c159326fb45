//===- Error.c - status names and per-thread error messages ----*- C -*-===//
//
// The last failure of each thread is kept as text in thread-local storage,
// so callers can report it after any failing call without passing buffers.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char lastError[2048];
static _Thread_local int lastDriverError;

tileRtStatus tileRtFail(tileRtStatus status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(lastError, sizeof(lastError), fmt, ap);
  va_end(ap);
  return status;
}

void tileRtSetDriverError(int code) { lastDriverError = code; }

const char *tileRtErrorString(void) { return lastError; }

int tileRtLastDriverError(void) { return lastDriverError; }

const char *tileRtStatusName(tileRtStatus status) {
  switch (status) {
  case TILE_RT_SUCCESS:
    return "TILE_RT_SUCCESS";
  case TILE_RT_ERROR_NO_DRIVER:
    return "TILE_RT_ERROR_NO_DRIVER";
  case TILE_RT_ERROR_NO_DEVICE:
    return "TILE_RT_ERROR_NO_DEVICE";
  case TILE_RT_ERROR_DRIVER:
    return "TILE_RT_ERROR_DRIVER";
  case TILE_RT_ERROR_INVALID_ARGUMENT:
    return "TILE_RT_ERROR_INVALID_ARGUMENT";
  case TILE_RT_ERROR_IO:
    return "TILE_RT_ERROR_IO";
  case TILE_RT_ERROR_PARSE:
    return "TILE_RT_ERROR_PARSE";
  case TILE_RT_ERROR_OUT_OF_MEMORY:
    return "TILE_RT_ERROR_OUT_OF_MEMORY";
  case TILE_RT_ERROR_NOT_INITIALIZED:
    return "TILE_RT_ERROR_NOT_INITIALIZED";
  }
  return "TILE_RT_ERROR_UNKNOWN";
}
