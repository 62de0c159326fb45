//===- Expr.c - the integer expressions of manifest grids ------*- C -*-===//
//
// A recursive-descent evaluator for grid expressions such as
// `ceildiv(A.dim0, 128) * 2` (and the rules of dispatching manifests, which
// compare two of them). It evaluates while it parses (there is no
// tree to allocate), checks every operation for overflow and bounds the
// nesting depth, so malformed or hostile input yields an error, never a
// crash.
//
// Grammar:
//   expr    := term (('+' | '-') term)*
//   term    := unary ('*' unary)*
//   unary   := '-' unary | primary
//   primary := integer | name | name '(' expr (',' expr)? ')' | '(' expr ')'
//              (primefloor takes one argument, the other functions two)
//   name    := [A-Za-z_][A-Za-z0-9_.]*
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

enum { kMaxDepth = 64 };

typedef struct Parser {
  const char *text;
  const char *pos;
  tileRtExprLookup lookup;
  void *context;
  bool checkOnly;
  int depth;
} Parser;

static int column(const Parser *p, const char *at) {
  return (int)(at - p->text) + 1;
}

static void skipSpace(Parser *p) {
  while (*p->pos == ' ' || *p->pos == '\t')
    ++p->pos;
}

static tileRtStatus syntaxError(Parser *p, const char *what) {
  if (*p->pos == '\0')
    return tileRtFail(TILE_RT_ERROR_PARSE, "%s at end of expression", what);
  return tileRtFail(TILE_RT_ERROR_PARSE, "%s at column %d, found '%c'", what,
                    column(p, p->pos), *p->pos);
}

/// Reports an arithmetic failure, or in check-only mode replaces the result
/// by 0 and carries on.
static tileRtStatus arithError(Parser *p, const char *at, const char *what,
                               int64_t *out) {
  if (p->checkOnly) {
    *out = 0;
    return TILE_RT_SUCCESS;
  }
  return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT, "%s at column %d", what,
                    column(p, at));
}

static tileRtStatus parseExpr(Parser *p, int64_t *out);

static tileRtStatus floorDiv(Parser *p, const char *at, int64_t a, int64_t b,
                             bool ceil, int64_t *out) {
  if (b == 0)
    return arithError(p, at, "division by zero", out);
  if (a == INT64_MIN && b == -1)
    return arithError(p, at, "integer overflow", out);
  int64_t q = a / b, r = a % b;
  // C division truncates; step away from zero when the exact quotient
  // lies below (floor) or above (ceil) the truncated one.
  if (r != 0) {
    bool negative = (r < 0) != (b < 0);
    if (!ceil && negative)
      --q;
    if (ceil && !negative)
      ++q;
  }
  *out = q;
  return TILE_RT_SUCCESS;
}

/// The largest prime not above `a`, or `a` itself below 2. Grids are at
/// most 2^31-1 blocks along x, so trial division stays cheap there; larger
/// arguments are errors.
static tileRtStatus primeFloor(Parser *p, const char *at, int64_t a,
                               int64_t *out) {
  if (a > INT32_MAX)
    return arithError(p, at, "primefloor of more than 2^31-1", out);
  for (int64_t n = a; n >= 2; --n) {
    bool prime = true;
    for (int64_t d = 2; d * d <= n && prime; ++d)
      prime = n % d != 0;
    if (prime) {
      *out = n;
      return TILE_RT_SUCCESS;
    }
  }
  *out = a;
  return TILE_RT_SUCCESS;
}

static tileRtStatus parseCall(Parser *p, const char *name, size_t len,
                              int64_t *out) {
  static const char *const functions[] = {"ceildiv", "floordiv", "min",
                                          "max",     "mod",      "primefloor"};
  enum { kPrimeFloor = 5 };
  int fn = -1;
  for (int i = 0; i < 6; ++i)
    if (strlen(functions[i]) == len && memcmp(functions[i], name, len) == 0)
      fn = i;
  if (fn < 0)
    return tileRtFail(TILE_RT_ERROR_PARSE,
                      "unknown function '%.*s' at column %d (expected "
                      "ceildiv, floordiv, min, max, mod or primefloor)",
                      (int)len, name, column(p, name));
  ++p->pos; // '('
  int64_t a, b;
  tileRtStatus s = parseExpr(p, &a);
  if (s != TILE_RT_SUCCESS)
    return s;
  skipSpace(p);
  if (fn == kPrimeFloor) {
    if (*p->pos != ')')
      return syntaxError(p, "expected ')' after the argument");
    ++p->pos;
    return primeFloor(p, name, a, out);
  }
  if (*p->pos != ',')
    return syntaxError(p, "expected ',' between the two arguments");
  ++p->pos;
  if ((s = parseExpr(p, &b)) != TILE_RT_SUCCESS)
    return s;
  skipSpace(p);
  if (*p->pos != ')')
    return syntaxError(p, "expected ')' after the second argument");
  ++p->pos;
  switch (fn) {
  case 0:
    return floorDiv(p, name, a, b, true, out);
  case 1:
    return floorDiv(p, name, a, b, false, out);
  case 2:
    *out = a < b ? a : b;
    return TILE_RT_SUCCESS;
  case 4: {
    // The remainder of floordiv, so it has the sign of `b` (alignment
    // rules of dispatching manifests read `mod(K, 8) == 0`).
    int64_t q;
    tileRtStatus s = floorDiv(p, name, a, b, false, &q);
    if (s != TILE_RT_SUCCESS)
      return s;
    *out = a - q * b;
    return TILE_RT_SUCCESS;
  }
  default:
    *out = a > b ? a : b;
    return TILE_RT_SUCCESS;
  }
}

static tileRtStatus parsePrimary(Parser *p, int64_t *out) {
  skipSpace(p);
  const char *start = p->pos;
  if (isdigit((unsigned char)*p->pos)) {
    int64_t v = 0;
    while (isdigit((unsigned char)*p->pos)) {
      if (__builtin_mul_overflow(v, 10, &v) ||
          __builtin_add_overflow(v, *p->pos - '0', &v))
        return tileRtFail(TILE_RT_ERROR_PARSE,
                          "integer literal out of range at column %d",
                          column(p, start));
      ++p->pos;
    }
    if (isalpha((unsigned char)*p->pos) || *p->pos == '_')
      return syntaxError(p, "expected an operator after an integer");
    *out = v;
    return TILE_RT_SUCCESS;
  }
  if (isalpha((unsigned char)*p->pos) || *p->pos == '_') {
    while (isalnum((unsigned char)*p->pos) || *p->pos == '_' || *p->pos == '.')
      ++p->pos;
    size_t len = (size_t)(p->pos - start);
    const char *afterName = p->pos;
    skipSpace(p);
    if (*p->pos == '(')
      return parseCall(p, start, len, out);
    p->pos = afterName;
    if (!p->lookup || !p->lookup(p->context, start, len, out))
      return tileRtFail(TILE_RT_ERROR_PARSE, "unknown name '%.*s' at column %d",
                        (int)len, start, column(p, start));
    return TILE_RT_SUCCESS;
  }
  if (*p->pos == '(') {
    ++p->pos;
    tileRtStatus s = parseExpr(p, out);
    if (s != TILE_RT_SUCCESS)
      return s;
    skipSpace(p);
    if (*p->pos != ')')
      return syntaxError(p, "expected ')'");
    ++p->pos;
    return TILE_RT_SUCCESS;
  }
  return syntaxError(p, "expected an integer, a name or '('");
}

static tileRtStatus parseUnary(Parser *p, int64_t *out) {
  skipSpace(p);
  if (*p->pos != '-')
    return parsePrimary(p, out);
  const char *at = p->pos++;
  if (++p->depth > kMaxDepth)
    return tileRtFail(TILE_RT_ERROR_PARSE, "expression nests too deeply");
  int64_t v;
  tileRtStatus s = parseUnary(p, &v);
  --p->depth;
  if (s != TILE_RT_SUCCESS)
    return s;
  if (v == INT64_MIN)
    return arithError(p, at, "integer overflow", out);
  *out = -v;
  return TILE_RT_SUCCESS;
}

static tileRtStatus parseTerm(Parser *p, int64_t *out) {
  tileRtStatus s = parseUnary(p, out);
  while (s == TILE_RT_SUCCESS) {
    skipSpace(p);
    if (*p->pos != '*')
      break;
    const char *at = p->pos++;
    int64_t rhs;
    if ((s = parseUnary(p, &rhs)) != TILE_RT_SUCCESS)
      break;
    if (__builtin_mul_overflow(*out, rhs, out))
      s = arithError(p, at, "integer overflow", out);
  }
  return s;
}

static tileRtStatus parseExpr(Parser *p, int64_t *out) {
  if (++p->depth > kMaxDepth)
    return tileRtFail(TILE_RT_ERROR_PARSE, "expression nests too deeply");
  tileRtStatus s = parseTerm(p, out);
  while (s == TILE_RT_SUCCESS) {
    skipSpace(p);
    char op = *p->pos;
    if (op != '+' && op != '-')
      break;
    const char *at = p->pos++;
    int64_t rhs;
    if ((s = parseTerm(p, &rhs)) != TILE_RT_SUCCESS)
      break;
    bool overflow = op == '+' ? __builtin_add_overflow(*out, rhs, out)
                              : __builtin_sub_overflow(*out, rhs, out);
    if (overflow)
      s = arithError(p, at, "integer overflow", out);
  }
  --p->depth;
  return s;
}

tileRtStatus tileRtEvalExprImpl(const char *expr, tileRtExprLookup lookup,
                                void *context, int checkOnly, int64_t *result) {
  if (!expr || !result)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "null expression or result");
  Parser p = {expr, expr, lookup, context, checkOnly != 0, 0};
  int64_t v = 0;
  tileRtStatus s = parseExpr(&p, &v);
  if (s != TILE_RT_SUCCESS)
    return s;
  skipSpace(&p);
  if (*p.pos != '\0')
    return syntaxError(&p, "expected an operator");
  *result = v;
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtEvalExpr(const char *expr, tileRtExprLookup lookup,
                            void *context, int64_t *result) {
  return tileRtEvalExprImpl(expr, lookup, context, 0, result);
}
