//===- Manifest.c - launch manifest parser, printer and checks -*- C -*-===//
//
// Launch manifests are line-based text (docs/Runtime.md has the grammar):
// one directive per line, words separated by blanks, '#' starting a
// comment. The parser works on a copy of one line at a time and reports
// every problem as "file:line: message". This file also evaluates grids
// against run-time arguments and checks arguments against static sizes.
//
//===----------------------------------------------------------------------===//

#define _POSIX_C_SOURCE 200809L

#include "Internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { kMaxLine = 8192, kMaxWords = 256, kMaxManifestBytes = 1 << 20 };

/// The name by which a grid reads the blocks of its kernel the device holds
/// at once (tileRtFunctionResidentBlocks), known at launch.
static const char kResidentBlocks[] = "resident_blocks";

static bool isResidentBlocks(const char *name, size_t len) {
  return len == sizeof(kResidentBlocks) - 1 &&
         memcmp(name, kResidentBlocks, len) == 0;
}

typedef struct LineCtx {
  const char *file;
  int line;
} LineCtx;

#define PARSE_FAIL(ctx, ...) lineFail((ctx), __VA_ARGS__)

TILE_RT_PRINTF(2, 3)
static tileRtStatus lineFail(const LineCtx *ctx, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  return tileRtFail(TILE_RT_ERROR_PARSE, "%s:%d: %s", ctx->file, ctx->line,
                    msg);
}

static bool isIdentifier(const char *s) {
  if (!isalpha((unsigned char)*s) && *s != '_')
    return false;
  for (++s; *s; ++s)
    if (!isalnum((unsigned char)*s) && *s != '_')
      return false;
  return true;
}

/// Parses a non-negative decimal integer no larger than `max`.
static bool parseUnsigned(const char *s, int64_t max, int64_t *out) {
  if (!isdigit((unsigned char)*s))
    return false;
  int64_t v = 0;
  for (; *s; ++s) {
    if (!isdigit((unsigned char)*s))
      return false;
    v = v * 10 + (*s - '0');
    if (v > max)
      return false;
  }
  *out = v;
  return true;
}

/// Parses "4096x?x16" (or "" for rank 0 when `allowEmpty`) into dims.
static tileRtStatus parseDims(const LineCtx *ctx, const char *text,
                              bool allowDynamic, const char *what, int *rank,
                              int64_t *dims) {
  char buf[512];
  if (strlen(text) >= sizeof(buf))
    return PARSE_FAIL(ctx, "%s too long", what);
  strcpy(buf, text);
  *rank = 0;
  if (!*buf)
    return TILE_RT_SUCCESS;
  char *save = NULL;
  for (char *tok = strtok_r(buf, "x", &save); tok;
       tok = strtok_r(NULL, "x", &save)) {
    if (*rank == TILE_RT_MAX_RANK)
      return PARSE_FAIL(ctx, "%s '%s' has more than %d dimensions", what, text,
                        TILE_RT_MAX_RANK);
    int64_t v;
    if (allowDynamic && strcmp(tok, "?") == 0)
      v = TILE_RT_DYNAMIC_DIM;
    else if (!parseUnsigned(tok, INT64_C(1) << 40, &v))
      return PARSE_FAIL(ctx, "invalid dimension '%s' in %s '%s'", tok, what,
                        text);
    dims[(*rank)++] = v;
  }
  // strtok_r skips empty fields; "4x" or "x4" are still malformed.
  if (text[0] == 'x' || text[strlen(text) - 1] == 'x' || strstr(text, "xx"))
    return PARSE_FAIL(ctx, "empty dimension in %s '%s'", what, text);
  return TILE_RT_SUCCESS;
}

/// Parses "memref<4096x?xf16>" (rank 0: "memref<f16>").
static tileRtStatus parseMemRefType(const LineCtx *ctx, const char *text,
                                    tileRtParam *param) {
  size_t len = strlen(text);
  if (len < 8 || strncmp(text, "memref<", 7) != 0 || text[len - 1] != '>')
    return PARSE_FAIL(ctx, "expected a type like memref<?x128xf16>, got '%s'",
                      text);
  char body[512];
  size_t bodyLen = len - 8;
  if (bodyLen >= sizeof(body))
    return PARSE_FAIL(ctx, "memref type too long");
  memcpy(body, text + 7, bodyLen);
  body[bodyLen] = '\0';
  char *elt = strrchr(body, 'x');
  const char *eltName = elt ? elt + 1 : body;
  param->dtype = tileRtDTypeFromName(eltName, strlen(eltName));
  if (param->dtype == TILE_RT_DTYPE_INVALID)
    return PARSE_FAIL(ctx, "unknown element type '%s' in '%s'", eltName, text);
  if (!elt) {
    param->rank = 0;
    return TILE_RT_SUCCESS;
  }
  *elt = '\0';
  if (!*body)
    return PARSE_FAIL(ctx, "empty dimension in '%s'", text);
  return parseDims(ctx, body, true, "shape", &param->rank, param->dims);
}

typedef struct NamedValue {
  const char *name;
  int value;
} NamedValue;

static bool lookupNamed(const NamedValue *table, const char *name, int *out) {
  for (; table->name; ++table)
    if (strcmp(table->name, name) == 0) {
      *out = table->value;
      return true;
    }
  return false;
}

static const NamedValue swizzleNames[] = {
    {"none", 0}, {"32b", 1}, {"64b", 2}, {"128b", 3}, {NULL, 0}};
static const NamedValue interleaveNames[] = {
    {"none", 0}, {"16b", 1}, {"32b", 2}, {NULL, 0}};
static const NamedValue l2Names[] = {
    {"none", 0}, {"64b", 1}, {"128b", 2}, {"256b", 3}, {NULL, 0}};
static const NamedValue oobNames[] = {{"zero", 0}, {"nan", 1}, {NULL, 0}};

static const char *nameOf(const NamedValue *table, int value) {
  for (; table->name; ++table)
    if (table->value == value)
      return table->name;
  return "?";
}

/// param NAME tensormap SOURCE box DIMS [swizzle S] [interleave I] [l2 L]
/// [oob O]
static tileRtStatus parseTensorMap(const LineCtx *ctx, tileRtManifest *m,
                                   char **words, int numWords,
                                   tileRtParam *param) {
  param->kind = TILE_RT_PARAM_TENSOR_MAP;
  if (numWords < 6 || strcmp(words[4], "box") != 0)
    return PARSE_FAIL(ctx,
                      "expected 'param %s tensormap <memref parameter> "
                      "box <dims> [swizzle S] [interleave I] [l2 L] "
                      "[oob O]'",
                      words[1]);
  int source = tileRtManifestFindParam(m, words[3]);
  if (source < 0 || m->params[source].kind != TILE_RT_PARAM_MEMREF)
    return PARSE_FAIL(ctx,
                      "tensor map '%s' needs a memref parameter declared "
                      "before it, got '%s'",
                      words[1], words[3]);
  const tileRtParam *src = &m->params[source];
  param->source = source;
  param->dtype = src->dtype;
  param->rank = src->rank;
  memcpy(param->dims, src->dims, sizeof(param->dims));
  int boxRank;
  int64_t box[TILE_RT_MAX_RANK];
  tileRtStatus s = parseDims(ctx, words[5], false, "box", &boxRank, box);
  if (s != TILE_RT_SUCCESS)
    return s;
  if (boxRank != src->rank || boxRank == 0)
    return PARSE_FAIL(ctx,
                      "box '%s' has rank %d, expected %d (the rank of '%s')",
                      words[5], boxRank, src->rank, src->name);
  for (int i = 0; i < boxRank; ++i) {
    if (box[i] < 1 || box[i] > 256)
      return PARSE_FAIL(ctx, "box dimension %d is %lld, expected 1 to 256", i,
                        (long long)box[i]);
    param->box[i] = (uint32_t)box[i];
  }
  for (int i = 6; i < numWords; i += 2) {
    if (i + 1 >= numWords)
      return PARSE_FAIL(ctx, "missing value after '%s'", words[i]);
    const NamedValue *table = NULL;
    int *field = NULL;
    if (strcmp(words[i], "swizzle") == 0)
      table = swizzleNames, field = &param->swizzle;
    else if (strcmp(words[i], "interleave") == 0)
      table = interleaveNames, field = &param->interleave;
    else if (strcmp(words[i], "l2") == 0)
      table = l2Names, field = &param->l2Promotion;
    else if (strcmp(words[i], "oob") == 0)
      table = oobNames, field = &param->oobFill;
    else
      return PARSE_FAIL(ctx,
                        "unknown tensor map option '%s' (expected swizzle, "
                        "interleave, l2 or oob)",
                        words[i]);
    if (!lookupNamed(table, words[i + 1], field))
      return PARSE_FAIL(ctx, "invalid %s value '%s'", words[i], words[i + 1]);
  }
  return TILE_RT_SUCCESS;
}

static tileRtStatus parseParam(const LineCtx *ctx, tileRtManifest *m,
                               char **words, int numWords) {
  if (numWords < 3)
    return PARSE_FAIL(ctx, "expected 'param <name> <type> ...'");
  if (!isIdentifier(words[1]) || strlen(words[1]) >= TILE_RT_MAX_NAME)
    return PARSE_FAIL(ctx, "invalid parameter name '%s'", words[1]);
  if (tileRtManifestFindParam(m, words[1]) >= 0)
    return PARSE_FAIL(ctx, "duplicate parameter '%s'", words[1]);
  if (strcmp(words[1], kResidentBlocks) == 0)
    return PARSE_FAIL(ctx,
                      "parameter name '%s' is reserved: grids read it as the "
                      "blocks of the kernel the device holds at once",
                      words[1]);
  if (m->numParams == TILE_RT_MAX_PARAMS)
    return PARSE_FAIL(ctx, "more than %d parameters", TILE_RT_MAX_PARAMS);
  tileRtParam param;
  memset(&param, 0, sizeof(param));
  strcpy(param.name, words[1]);
  param.line = ctx->line;
  param.source = -1;
  if (strcmp(words[2], "tensormap") == 0) {
    tileRtStatus s = parseTensorMap(ctx, m, words, numWords, &param);
    if (s != TILE_RT_SUCCESS)
      return s;
  } else if (strncmp(words[2], "memref", 6) == 0) {
    param.kind = TILE_RT_PARAM_MEMREF;
    tileRtStatus s = parseMemRefType(ctx, words[2], &param);
    if (s != TILE_RT_SUCCESS)
      return s;
    if (numWords != 4)
      return PARSE_FAIL(ctx,
                        "expected 'param %s %s descriptor|bare|none' (how the "
                        "memref is passed)",
                        words[1], words[2]);
    if (strcmp(words[3], "descriptor") == 0)
      param.passing = TILE_RT_PASS_DESCRIPTOR;
    else if (strcmp(words[3], "bare") == 0)
      param.passing = TILE_RT_PASS_BARE;
    else if (strcmp(words[3], "none") == 0)
      param.passing = TILE_RT_PASS_NONE;
    else
      return PARSE_FAIL(ctx,
                        "unknown memref passing '%s' (expected descriptor, "
                        "bare or none)",
                        words[3]);
  } else {
    param.kind = TILE_RT_PARAM_SCALAR;
    param.dtype = tileRtDTypeFromName(words[2], strlen(words[2]));
    if (param.dtype == TILE_RT_DTYPE_INVALID)
      return PARSE_FAIL(ctx,
                        "unknown parameter type '%s' (expected memref<...>, "
                        "tensormap or a scalar type such as i32 or f32)",
                        words[2]);
    // A trailing `none` declares a scalar the grid reads but the kernel
    // does not take.
    if (numWords == 4 && strcmp(words[3], "none") == 0)
      param.passing = TILE_RT_PASS_NONE;
    else if (numWords != 3)
      return PARSE_FAIL(ctx, "unexpected '%s' after scalar parameter '%s'",
                        words[3], words[1]);
  }
  m->params[m->numParams++] = param;
  return TILE_RT_SUCCESS;
}

/// Parses 1 to 3 positive extents ("block 128", "cluster 2 1 1").
static tileRtStatus parseTriple(const LineCtx *ctx, char **words, int numWords,
                                unsigned out[3]) {
  if (numWords < 2 || numWords > 4)
    return PARSE_FAIL(ctx, "expected '%s <x> [<y> [<z>]]'", words[0]);
  out[0] = out[1] = out[2] = 1;
  for (int i = 1; i < numWords; ++i) {
    int64_t v;
    if (!parseUnsigned(words[i], 0x7fffffff, &v) || v == 0)
      return PARSE_FAIL(ctx,
                        "invalid %s extent '%s' (expected a positive "
                        "integer)",
                        words[0], words[i]);
    out[i - 1] = (unsigned)v;
  }
  return TILE_RT_SUCCESS;
}

/// Resolves `name` (`len` bytes) in an expression to what it reads: an
/// integer scalar parameter (`*dim` -1) or dimension `*dim` of a memref
/// parameter, `*index` in the manifest. Returns 0 for an unknown name.
static int resolveName(const tileRtManifest *m, const char *name, size_t len,
                       int *index, int *dim) {
  for (int i = 0; i < m->numParams; ++i) {
    const tileRtParam *p = &m->params[i];
    size_t n = strlen(p->name);
    if (len < n || memcmp(p->name, name, n) != 0)
      continue;
    if (len == n) {
      if (p->kind != TILE_RT_PARAM_SCALAR || tileRtDTypeIsFloat(p->dtype))
        continue;
      *index = i;
      *dim = -1;
      return 1;
    }
    if (p->kind != TILE_RT_PARAM_MEMREF || len < n + 5 ||
        memcmp(name + n, ".dim", 4) != 0)
      continue;
    int64_t d = 0;
    bool ok = true;
    for (size_t k = n + 4; k < len; ++k) {
      if (!isdigit((unsigned char)name[k]) || d > TILE_RT_MAX_RANK)
        ok = false;
      else
        d = d * 10 + (name[k] - '0');
    }
    if (!ok || d >= p->rank)
      continue;
    *index = i;
    *dim = (int)d;
    return 1;
  }
  return 0;
}

/// Name lookup while checking a grid expression: memref dims and integer
/// scalars exist, with placeholder values.
static int checkName(const tileRtManifest *m, const char *name, size_t len,
                     int64_t *value) {
  int i, dim;
  if (!resolveName(m, name, len, &i, &dim))
    return 0;
  const tileRtParam *p = &m->params[i];
  *value = dim < 0 || p->dims[dim] == TILE_RT_DYNAMIC_DIM ? 1 : p->dims[dim];
  return 1;
}

static int checkLookup(void *context, const char *name, size_t len,
                       int64_t *value) {
  return checkName((const tileRtManifest *)context, name, len, value);
}

/// checkLookup for a grid or a rule, which may also read `resident_blocks`.
static int checkGridLookup(void *context, const char *name, size_t len,
                           int64_t *value) {
  if (isResidentBlocks(name, len)) {
    *value = 1;
    return 1;
  }
  return checkLookup(context, name, len, value);
}

/// Splits `line` in place at blanks into at most kMaxWords words; -1 where
/// it has more (a word dropped would change what the line says: a
/// `variant` line's `when` past the limit would lose its rule).
static int splitWords(char *line, char **words) {
  int n = 0;
  char *save = NULL;
  for (char *tok = strtok_r(line, " \t\r", &save); tok;
       tok = strtok_r(NULL, " \t\r", &save)) {
    if (n == kMaxWords)
      return -1;
    words[n++] = tok;
  }
  return n;
}

/// Resolves `path`, named in the manifest `fileName`, against the
/// manifest's directory into `out` (`size` bytes).
static void resolvePath(char *out, size_t size, const char *fileName,
                        const char *path) {
  const char *slash = fileName ? strrchr(fileName, '/') : NULL;
  if (path[0] == '/' || !slash) {
    snprintf(out, size, "%s", path);
    return;
  }
  snprintf(out, size, "%.*s/%s", (int)(slash - fileName), fileName, path);
}

/// Appends a `variant` (or, with `isFallback`, a `fallback`) directive.
static tileRtStatus addVariant(const LineCtx *ctx, tileRtManifest *m,
                               const char *fileName, const char *path,
                               const char *rule, int isFallback) {
  if (m->numVariants == TILE_RT_MAX_VARIANTS)
    return PARSE_FAIL(ctx, "more than %d variants", TILE_RT_MAX_VARIANTS);
  tileRtVariant *v = &m->variants[m->numVariants];
  size_t len = strlen(rule);
  while (len && isspace((unsigned char)rule[len - 1]))
    --len;
  if (len >= TILE_RT_MAX_EXPR)
    return PARSE_FAIL(ctx, "variant rule too long");
  memset(v, 0, sizeof(*v));
  resolvePath(v->path, sizeof(v->path), fileName, path);
  memcpy(v->rule, rule, len);
  v->rule[len] = '\0';
  v->isFallback = isFallback;
  v->line = ctx->line;
  ++m->numVariants;
  return TILE_RT_SUCCESS;
}

const char *tileRtViewName(tileRtViewKind kind) {
  switch (kind) {
  case TILE_RT_VIEW_TRANSPOSE:
    return "transpose";
  }
  return "?";
}

/// Parses the view `kind` of parameter `name` of a `variant` line into
/// `views[numViews]`: a rank-2 memref parameter declared before the line,
/// viewed once.
static tileRtStatus parseView(const LineCtx *ctx, const tileRtManifest *m,
                              const char *kind, const char *name,
                              tileRtView *views, int numViews) {
  if (strcmp(kind, "transpose") != 0)
    return PARSE_FAIL(ctx, "unknown view '%s' (expected transpose)", kind);
  int p = tileRtManifestFindParam(m, name);
  if (p < 0 || m->params[p].kind != TILE_RT_PARAM_MEMREF ||
      m->params[p].rank != 2)
    return PARSE_FAIL(ctx,
                      "view 'transpose %s' needs a rank-2 memref parameter "
                      "declared before it",
                      name);
  for (int i = 0; i < numViews; ++i)
    if (views[i].param == p)
      return PARSE_FAIL(ctx, "'%s' is viewed twice", name);
  views[numViews].kind = TILE_RT_VIEW_TRANSPOSE;
  views[numViews].param = p;
  return TILE_RT_SUCCESS;
}

/// Parses `bind NAME FROM` of a `variant` line into `binds[numBinds]`: the
/// variant's parameter NAME, each named once, takes the argument of
/// parameter FROM, declared before the line.
static tileRtStatus parseBind(const LineCtx *ctx, const tileRtManifest *m,
                              const char *name, const char *from,
                              tileRtBind *binds, int numBinds) {
  if (!isIdentifier(name) || strlen(name) >= TILE_RT_MAX_NAME)
    return PARSE_FAIL(ctx, "bad parameter name '%s' after 'bind'", name);
  int p = tileRtManifestFindParam(m, from);
  if (p < 0 || m->params[p].kind == TILE_RT_PARAM_TENSOR_MAP)
    return PARSE_FAIL(ctx,
                      "'bind %s %s' needs a parameter '%s' declared before it "
                      "(not a tensor map)",
                      name, from, from);
  for (int i = 0; i < numBinds; ++i)
    if (strcmp(binds[i].name, name) == 0)
      return PARSE_FAIL(ctx, "'%s' is bound twice", name);
  snprintf(binds[numBinds].name, sizeof(binds[numBinds].name), "%s", name);
  binds[numBinds].param = p;
  return TILE_RT_SUCCESS;
}

/// Copies the `len` bytes at `from` to `to` (`size` bytes), truncated and
/// NUL-terminated; rules are evaluated at every launch, so no formatting.
static void copyPrefix(char *to, size_t size, const char *from, size_t len) {
  if (len >= size)
    len = size - 1;
  memcpy(to, from, len);
  to[len] = '\0';
}

/// Evaluates (or, with `checkOnly`, checks the syntax and names of) the
/// variant rule `rule`: clauses `EXPR OP EXPR` joined by the word `and`.
static tileRtStatus evalRule(const char *rule, tileRtExprLookup lookup,
                             void *context, int checkOnly, int *holds) {
  *holds = 1;
  const char *p = rule;
  while (*p == ' ' || *p == '\t')
    ++p;
  if (!*p)
    return TILE_RT_SUCCESS;
  while (*p) {
    // One clause: up to the next ` and ` outside parentheses.
    const char *end = p, *op = NULL;
    size_t opLen = 0;
    int depth = 0;
    for (; *end; ++end) {
      if (*end == '(')
        ++depth;
      else if (*end == ')')
        --depth;
      if (depth)
        continue;
      if (isspace((unsigned char)*end) && strncmp(end + 1, "and", 3) == 0 &&
          isspace((unsigned char)end[4]))
        break;
      if (!op && strchr("<>=!", *end)) {
        op = end;
        opLen = end[1] == '=' ? 2 : 1;
      }
    }
    if (!op || (opLen == 1 && (*op == '=' || *op == '!')))
      return tileRtFail(TILE_RT_ERROR_PARSE,
                        "rule clause '%.*s' is not a comparison (expected "
                        "EXPR <= < >= > == or != EXPR)",
                        (int)(end - p), p);
    // Each side without its blanks, so error columns count from it.
    const char *r = op + opLen;
    while (*r == ' ' || *r == '\t')
      ++r;
    char lhs[TILE_RT_MAX_EXPR], rhs[TILE_RT_MAX_EXPR];
    copyPrefix(lhs, sizeof(lhs), p, (size_t)(op - p));
    copyPrefix(rhs, sizeof(rhs), r, (size_t)(end - r));
    int64_t a = 0, b = 0;
    tileRtStatus s = tileRtEvalExprImpl(lhs, lookup, context, checkOnly, &a);
    if (s == TILE_RT_SUCCESS)
      s = tileRtEvalExprImpl(rhs, lookup, context, checkOnly, &b);
    if (s != TILE_RT_SUCCESS) {
      char msg[1024];
      snprintf(msg, sizeof(msg), "%s", tileRtErrorString());
      return tileRtFail(s, "in rule clause '%.*s': %s", (int)(end - p), p, msg);
    }
    int holdsHere;
    switch (op[0]) {
    case '<':
      holdsHere = opLen == 2 ? a <= b : a < b;
      break;
    case '>':
      holdsHere = opLen == 2 ? a >= b : a > b;
      break;
    case '=':
      holdsHere = a == b;
      break;
    default:
      holdsHere = a != b;
      break;
    }
    *holds &= holdsHere;
    p = *end ? end + 5 : end;
    while (*p == ' ' || *p == '\t')
      ++p;
  }
  return TILE_RT_SUCCESS;
}

/// Checks the syntax and names of every variant rule of `m`.
static tileRtStatus checkRules(tileRtManifest *m) {
  for (int i = 0; i < m->numVariants; ++i) {
    int ignored;
    if (evalRule(m->variants[i].rule, checkGridLookup, m, 1, &ignored) !=
        TILE_RT_SUCCESS) {
      char msg[1024];
      snprintf(msg, sizeof(msg), "%s", tileRtErrorString());
      return tileRtFail(TILE_RT_ERROR_PARSE, "%s:%d: %s", m->path,
                        m->variants[i].line, msg);
    }
  }
  return TILE_RT_SUCCESS;
}

/// Checks the `dependent-launch` directive on line `line` (0: none) of the
/// parsed `m`: it promises that the kernel waits before it touches its
/// zeroed outputs, which means nothing without a kernel or a `zero`
/// directive, so either is more likely a mistake than a no-op.
static tileRtStatus checkDependentLaunch(LineCtx *ctx, const tileRtManifest *m,
                                         int line) {
  if (!line)
    return TILE_RT_SUCCESS;
  ctx->line = line;
  if (!m->hasKernel)
    return PARSE_FAIL(ctx, "'dependent-launch' in a dispatching manifest "
                           "(its variants' manifests say it)");
  for (int i = 0; i < m->numParams; ++i)
    if (m->params[i].zeroInit)
      return TILE_RT_SUCCESS;
  return PARSE_FAIL(ctx, "'dependent-launch' without a 'zero' directive");
}

/// Checks the `stage` directives of the parsed `m`: each names a memref
/// that a tensor map of the manifest's own kernel reads, and not one the
/// runtime zeroes (which the kernel reaches through its pointer).
static tileRtStatus checkStages(LineCtx *ctx, const tileRtManifest *m) {
  for (int i = 0; i < m->numParams; ++i) {
    const tileRtParam *p = &m->params[i];
    if (p->stage == TILE_RT_STAGE_NONE)
      continue;
    ctx->line = p->stageLine;
    if (!m->hasKernel)
      return PARSE_FAIL(ctx, "'stage' in a dispatching manifest (its "
                             "variants' manifests say it)");
    if (p->zeroInit)
      return PARSE_FAIL(ctx, "'stage %s' of a memref the runtime zeroes",
                        p->name);
    int mapped = 0;
    for (int j = 0; j < m->numParams; ++j)
      mapped |= m->params[j].kind == TILE_RT_PARAM_TENSOR_MAP &&
                m->params[j].source == i;
    if (!mapped)
      return PARSE_FAIL(ctx, "'stage %s' without a tensor map of %s", p->name,
                        p->name);
  }
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtManifestParseString(const char *text, const char *fileName,
                                       tileRtManifest *m) {
  if (!text || !m)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "null manifest text or output");
  memset(m, 0, sizeof(*m));
  LineCtx ctx = {fileName ? fileName : "<string>", 0};
  snprintf(m->path, sizeof(m->path), "%s", ctx.file);
  m->indexBits = 64;
  m->block[0] = m->block[1] = m->block[2] = 0;
  m->cluster[0] = m->cluster[1] = m->cluster[2] = 1;
  for (int i = 0; i < 3; ++i)
    strcpy(m->grid[i], "1");

  // First line of each once-only directive, to name duplicates.
  int seenHeader = 0, seenKernel = 0, seenBinary = 0, seenBlock = 0,
      seenShared = 0, seenCluster = 0, seenIndex = 0, seenFallback = 0,
      seenDependent = 0;
  int numStages = 0;
  char line[kMaxLine];
  const char *cursor = text;
  while (*cursor) {
    ++ctx.line;
    const char *end = strchr(cursor, '\n');
    size_t len = end ? (size_t)(end - cursor) : strlen(cursor);
    if (len >= sizeof(line))
      return PARSE_FAIL(&ctx, "line longer than %d characters", kMaxLine - 1);
    memcpy(line, cursor, len);
    line[len] = '\0';
    cursor = end ? end + 1 : cursor + len;
    char *hash = strchr(line, '#');
    if (hash)
      *hash = '\0';
    char *words[kMaxWords];
    char rest[kMaxLine];
    strcpy(rest, line);
    int n = splitWords(line, words);
    if (n < 0)
      return PARSE_FAIL(&ctx, "more than %d words on a line", kMaxWords);
    if (n == 0)
      continue;
    const char *d = words[0];
    if (!seenHeader && strcmp(d, "tile-launch-manifest") != 0)
      return PARSE_FAIL(&ctx, "expected 'tile-launch-manifest 1' before '%s'",
                        d);

#define ONCE(flag)                                                             \
  do {                                                                         \
    if (flag)                                                                  \
      return PARSE_FAIL(&ctx, "duplicate '%s' directive (first on line %d)",   \
                        d, flag);                                              \
    flag = ctx.line;                                                           \
  } while (0)

    if (strcmp(d, "tile-launch-manifest") == 0) {
      ONCE(seenHeader);
      if (n != 2 || (strcmp(words[1], "1") != 0 && strcmp(words[1], "2")))
        return PARSE_FAIL(&ctx,
                          "unsupported manifest version '%s' (this runtime "
                          "reads versions 1 and 2)",
                          n > 1 ? words[1] : "");
      m->version = atoi(words[1]);
    } else if (strcmp(d, "kernel") == 0) {
      ONCE(seenKernel);
      if (n != 2)
        return PARSE_FAIL(&ctx, "expected 'kernel <symbol>'");
      if (strlen(words[1]) >= sizeof(m->kernel))
        return PARSE_FAIL(&ctx, "kernel name too long");
      strcpy(m->kernel, words[1]);
    } else if (strcmp(d, "binary") == 0) {
      ONCE(seenBinary);
      if (n != 3)
        return PARSE_FAIL(&ctx, "expected 'binary <path> ptx|cubin|hsaco'");
      if (strcmp(words[2], "ptx") == 0)
        m->binaryKind = TILE_RT_BINARY_PTX;
      else if (strcmp(words[2], "cubin") == 0)
        m->binaryKind = TILE_RT_BINARY_CUBIN;
      else if (strcmp(words[2], "hsaco") == 0)
        m->binaryKind = TILE_RT_BINARY_HSACO;
      else
        return PARSE_FAIL(&ctx,
                          "unknown binary kind '%s' (expected ptx, cubin or "
                          "hsaco)",
                          words[2]);
      resolvePath(m->binary, sizeof(m->binary), fileName, words[1]);
    } else if (strcmp(d, "fallback") == 0) {
      ONCE(seenFallback);
      if (n != 2)
        return PARSE_FAIL(&ctx, "expected 'fallback <manifest path>'");
      resolvePath(m->fallback, sizeof(m->fallback), fileName, words[1]);
      tileRtStatus s = addVariant(&ctx, m, fileName, words[1], "", 1);
      if (s != TILE_RT_SUCCESS)
        return s;
    } else if (strcmp(d, "variant") == 0) {
      if (m->version < 2)
        return PARSE_FAIL(&ctx, "'variant' needs 'tile-launch-manifest 2', "
                                "this manifest is version 1");
      static const char *const syntax =
          "expected 'variant <manifest path> [bind <its parameter> "
          "<parameter>]... [view transpose <parameter>]... [cost <weight>] "
          "[when <rule>]'";
      if (n < 2)
        return PARSE_FAIL(&ctx, "%s", syntax);
      tileRtBind binds[TILE_RT_MAX_BINDS];
      int numBinds = 0, w = 2;
      for (; w < n && strcmp(words[w], "bind") == 0; w += 3) {
        if (numBinds == TILE_RT_MAX_BINDS)
          return PARSE_FAIL(&ctx, "more than %d binds", TILE_RT_MAX_BINDS);
        if (w + 2 >= n)
          return PARSE_FAIL(&ctx, "%s", syntax);
        tileRtStatus s =
            parseBind(&ctx, m, words[w + 1], words[w + 2], binds, numBinds);
        if (s != TILE_RT_SUCCESS)
          return s;
        ++numBinds;
      }
      tileRtView views[TILE_RT_MAX_VIEWS];
      int numViews = 0;
      for (; w < n && strcmp(words[w], "view") == 0; w += 3) {
        if (numViews == TILE_RT_MAX_VIEWS)
          return PARSE_FAIL(&ctx, "more than %d views", TILE_RT_MAX_VIEWS);
        if (w + 2 >= n)
          return PARSE_FAIL(&ctx, "%s", syntax);
        tileRtStatus s =
            parseView(&ctx, m, words[w + 1], words[w + 2], views, numViews);
        if (s != TILE_RT_SUCCESS)
          return s;
        ++numViews;
      }
      int64_t cost = 0;
      if (w < n && strcmp(words[w], "cost") == 0) {
        char *end = NULL;
        long long value = w + 1 < n ? strtoll(words[w + 1], &end, 10) : 0;
        if (w + 1 == n || *end || end == words[w + 1] || value <= 0 ||
            value > INT32_MAX)
          return PARSE_FAIL(&ctx,
                            "expected a cost of 1 to %d after 'cost', got "
                            "'%s'",
                            INT32_MAX, w + 1 < n ? words[w + 1] : "");
        cost = value;
        w += 2;
      }
      if (w < n && (strcmp(words[w], "when") != 0 || w + 1 == n))
        return PARSE_FAIL(&ctx, "%s", syntax);
      // The rule is the rest of the line after `when`.
      const char *rule = "";
      if (w < n) {
        rule = rest + (words[w + 1] - line);
        while (*rule == ' ' || *rule == '\t')
          ++rule;
      }
      tileRtStatus s = addVariant(&ctx, m, fileName, words[1], rule, 0);
      if (s != TILE_RT_SUCCESS)
        return s;
      tileRtVariant *v = &m->variants[m->numVariants - 1];
      v->numBinds = numBinds;
      memcpy(v->binds, binds, sizeof(binds[0]) * (size_t)numBinds);
      v->numViews = numViews;
      memcpy(v->views, views, sizeof(views[0]) * (size_t)numViews);
      v->cost = cost;
    } else if (strcmp(d, "index-bitwidth") == 0) {
      ONCE(seenIndex);
      if (n != 2 || (strcmp(words[1], "32") != 0 && strcmp(words[1], "64")))
        return PARSE_FAIL(&ctx, "expected 'index-bitwidth 32|64'");
      m->indexBits = atoi(words[1]);
    } else if (strcmp(d, "param") == 0) {
      tileRtStatus s = parseParam(&ctx, m, words, n);
      if (s != TILE_RT_SUCCESS)
        return s;
    } else if (strcmp(d, "zero") == 0) {
      if (n != 2)
        return PARSE_FAIL(&ctx, "expected 'zero <memref parameter>'");
      int p = tileRtManifestFindParam(m, words[1]);
      if (p < 0 || m->params[p].kind != TILE_RT_PARAM_MEMREF)
        return PARSE_FAIL(&ctx,
                          "'zero' names '%s', which is not a memref "
                          "parameter declared before it",
                          words[1]);
      m->params[p].zeroInit = 1;
    } else if (strcmp(d, "stage") == 0) {
      int p = n == 3 ? tileRtManifestFindParam(m, words[1]) : -1;
      tileRtStageKind kind = TILE_RT_STAGE_NONE;
      if (n == 3 && strcmp(words[2], "in") == 0)
        kind = TILE_RT_STAGE_IN;
      else if (n == 3 && strcmp(words[2], "out") == 0)
        kind = TILE_RT_STAGE_OUT;
      else if (n == 3 && strcmp(words[2], "inout") == 0)
        kind = TILE_RT_STAGE_INOUT;
      if (kind == TILE_RT_STAGE_NONE)
        return PARSE_FAIL(&ctx,
                          "expected 'stage <memref parameter> in|out|inout'");
      if (p < 0 || m->params[p].kind != TILE_RT_PARAM_MEMREF ||
          m->params[p].rank < 2)
        return PARSE_FAIL(&ctx,
                          "'stage' names '%s', which is not a memref "
                          "parameter of rank 2 or more declared before it",
                          words[1]);
      if (m->params[p].stage != TILE_RT_STAGE_NONE)
        return PARSE_FAIL(&ctx, "duplicate 'stage %s' (first on line %d)",
                          words[1], m->params[p].stageLine);
      if (++numStages > TILE_RT_MAX_STAGED)
        return PARSE_FAIL(&ctx, "more than %d 'stage' directives",
                          TILE_RT_MAX_STAGED);
      m->params[p].stage = kind;
      m->params[p].stageLine = ctx.line;
    } else if (strcmp(d, "dependent-launch") == 0) {
      ONCE(seenDependent);
      if (n != 1)
        return PARSE_FAIL(&ctx, "'dependent-launch' takes no arguments");
      m->dependentLaunch = 1;
    } else if (strcmp(d, "block") == 0) {
      ONCE(seenBlock);
      tileRtStatus s = parseTriple(&ctx, words, n, m->block);
      if (s != TILE_RT_SUCCESS)
        return s;
      uint64_t threads = (uint64_t)m->block[0] * m->block[1] * m->block[2];
      if (threads > 1024)
        return PARSE_FAIL(&ctx, "block of %llu threads exceeds 1024",
                          (unsigned long long)threads);
    } else if (strcmp(d, "cluster") == 0) {
      ONCE(seenCluster);
      tileRtStatus s = parseTriple(&ctx, words, n, m->cluster);
      if (s != TILE_RT_SUCCESS)
        return s;
      uint64_t blocks = (uint64_t)m->cluster[0] * m->cluster[1] * m->cluster[2];
      if (blocks > 16)
        return PARSE_FAIL(&ctx, "cluster of %llu blocks exceeds 16",
                          (unsigned long long)blocks);
    } else if (strcmp(d, "shared") == 0) {
      ONCE(seenShared);
      int64_t v;
      if (n != 2 || !parseUnsigned(words[1], 0x7fffffff, &v))
        return PARSE_FAIL(&ctx, "expected 'shared <bytes>'");
      m->sharedBytes = (unsigned)v;
    } else if (strcmp(d, "grid") == 0) {
      int axis = n >= 2 && strlen(words[1]) == 1 ? words[1][0] - 'x' : -1;
      if (axis < 0 || axis > 2 || n < 3)
        return PARSE_FAIL(&ctx, "expected 'grid x|y|z <expression>'");
      if (m->gridLine[axis])
        return PARSE_FAIL(&ctx, "duplicate 'grid %c' (first on line %d)",
                          'x' + axis, m->gridLine[axis]);
      // The expression is the rest of the line after the axis word.
      const char *expr = rest + (words[2] - line);
      while (*expr == ' ' || *expr == '\t')
        ++expr;
      size_t elen = strlen(expr);
      while (elen && isspace((unsigned char)expr[elen - 1]))
        --elen;
      if (elen >= TILE_RT_MAX_EXPR)
        return PARSE_FAIL(&ctx, "grid expression too long");
      memcpy(m->grid[axis], expr, elen);
      m->grid[axis][elen] = '\0';
      m->gridLine[axis] = ctx.line;
    } else {
      return PARSE_FAIL(&ctx, "unknown directive '%s'", d);
    }
#undef ONCE
  }

  ctx.line = ctx.line + 1;
  if (!seenHeader)
    return tileRtFail(TILE_RT_ERROR_PARSE,
                      "%s:1: expected 'tile-launch-manifest 1'", ctx.file);
  // A dispatching manifest: parameters and variants, no kernel of its own.
  m->hasKernel = !(m->numVariants && !seenKernel && !seenBinary && !seenBlock &&
                   !m->gridLine[0] && !m->gridLine[1] && !m->gridLine[2] &&
                   !seenShared && !seenCluster);
  tileRtStatus dependent = checkDependentLaunch(&ctx, m, seenDependent);
  if (dependent != TILE_RT_SUCCESS)
    return dependent;
  tileRtStatus stage = checkStages(&ctx, m);
  if (stage != TILE_RT_SUCCESS)
    return stage;
  if (!m->hasKernel)
    return checkRules(m);
  if (!seenKernel)
    return tileRtFail(TILE_RT_ERROR_PARSE, "%s: missing 'kernel' directive",
                      ctx.file);
  if (!seenBinary)
    return tileRtFail(TILE_RT_ERROR_PARSE, "%s: missing 'binary' directive",
                      ctx.file);
  if (!seenBlock)
    return tileRtFail(TILE_RT_ERROR_PARSE, "%s: missing 'block' directive",
                      ctx.file);
  if (!m->gridLine[0])
    return tileRtFail(TILE_RT_ERROR_PARSE, "%s: missing 'grid x' directive",
                      ctx.file);
  // Names and syntax of the grid: evaluated once with placeholder values.
  for (int axis = 0; axis < 3; ++axis) {
    if (!m->gridLine[axis])
      continue;
    int64_t ignored;
    ctx.line = m->gridLine[axis];
    tileRtStatus s =
        tileRtEvalExprImpl(m->grid[axis], checkGridLookup, m, 1, &ignored);
    if (s != TILE_RT_SUCCESS) {
      char msg[1024];
      snprintf(msg, sizeof(msg), "%s", tileRtErrorString());
      return PARSE_FAIL(&ctx, "in grid %c: %s", 'x' + axis, msg);
    }
  }
  return checkRules(m);
}

tileRtStatus tileRtManifestParseFile(const char *path, tileRtManifest *out) {
  if (!path || !out)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "null manifest path or output");
  FILE *f = fopen(path, "rb");
  if (!f)
    return tileRtFail(TILE_RT_ERROR_IO, "cannot open manifest '%s': %s", path,
                      strerror(errno));
  struct stat info;
  if (fstat(fileno(f), &info) != 0 || !S_ISREG(info.st_mode)) {
    fclose(f);
    return tileRtFail(TILE_RT_ERROR_IO, "manifest '%s' is not a regular file",
                      path);
  }
  char *text = (char *)malloc(kMaxManifestBytes + 1);
  if (!text) {
    fclose(f);
    return tileRtFail(TILE_RT_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  size_t n = fread(text, 1, kMaxManifestBytes + 1, f);
  bool readError = ferror(f);
  fclose(f);
  if (readError || n > kMaxManifestBytes) {
    free(text);
    return tileRtFail(TILE_RT_ERROR_IO, "%s: %s", path,
                      readError ? "read error" : "manifest larger than 1 MiB");
  }
  text[n] = '\0';
  if (memchr(text, '\0', n)) {
    free(text);
    return tileRtFail(TILE_RT_ERROR_PARSE, "%s: not a text file", path);
  }
  tileRtStatus s = tileRtManifestParseString(text, path, out);
  free(text);
  return s;
}

int tileRtManifestFindParam(const tileRtManifest *m, const char *name) {
  if (!m || !name)
    return -1;
  for (int i = 0; i < m->numParams; ++i)
    if (strcmp(m->params[i].name, name) == 0)
      return i;
  return -1;
}

static void printDims(FILE *os, int rank, const int64_t *dims) {
  for (int i = 0; i < rank; ++i) {
    if (i)
      fputc('x', os);
    if (dims[i] == TILE_RT_DYNAMIC_DIM)
      fputc('?', os);
    else
      fprintf(os, "%lld", (long long)dims[i]);
  }
}

tileRtStatus tileRtManifestPlatform(const tileRtManifest *manifest,
                                    tileRtPlatform *out) {
  if (!manifest || !out)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "null manifest or output");
  *out = TILE_RT_PLATFORM_CUDA;
  if (manifest->hasKernel || !manifest->numVariants) {
    *out = tileRtBinaryPlatform(manifest->binaryKind);
    return TILE_RT_SUCCESS;
  }
  // A dispatching manifest: its variants are built for one chip; the
  // first says which, or, itself dispatching, its first, and so on.
  // Parsed on the heap, as a manifest is large.
  tileRtManifest *variant = (tileRtManifest *)malloc(sizeof(*variant));
  if (!variant)
    return tileRtFail(TILE_RT_ERROR_OUT_OF_MEMORY, "out of memory");
  tileRtStatus s = tileRtManifestParseFile(manifest->variants[0].path, variant);
  for (int depth = 1;
       s == TILE_RT_SUCCESS && !variant->hasKernel && variant->numVariants;
       ++depth) {
    if (depth > TILE_RT_MAX_VARIANT_DEPTH) {
      s = tileRtFail(TILE_RT_ERROR_PARSE,
                     "%s: variants nested more than %d deep (a cycle?)",
                     manifest->path, TILE_RT_MAX_VARIANT_DEPTH);
      break;
    }
    char path[sizeof(variant->variants[0].path)];
    snprintf(path, sizeof(path), "%s", variant->variants[0].path);
    s = tileRtManifestParseFile(path, variant);
  }
  if (s == TILE_RT_SUCCESS)
    *out = tileRtBinaryPlatform(variant->binaryKind);
  free(variant);
  return s;
}

const char *tileRtBinaryKindName(tileRtBinaryKind kind) {
  switch (kind) {
  case TILE_RT_BINARY_PTX:
    return "ptx";
  case TILE_RT_BINARY_CUBIN:
    return "cubin";
  case TILE_RT_BINARY_HSACO:
    return "hsaco";
  }
  return "unknown";
}

/// The word of a `stage` directive for `kind`.
static const char *stageKindName(tileRtStageKind kind) {
  switch (kind) {
  case TILE_RT_STAGE_IN:
    return "in";
  case TILE_RT_STAGE_OUT:
    return "out";
  case TILE_RT_STAGE_INOUT:
    return "inout";
  default:
    return "none";
  }
}

void tileRtManifestPrint(const tileRtManifest *m, FILE *os) {
  static const char *const passing[] = {"descriptor", "bare", "none"};
  fprintf(os, "tile-launch-manifest %d\n", m->version);
  if (m->hasKernel) {
    fprintf(os, "kernel %s\n", m->kernel);
    fprintf(os, "binary %s %s\n", m->binary,
            tileRtBinaryKindName(m->binaryKind));
  }
  fprintf(os, "index-bitwidth %d\n", m->indexBits);
  for (int i = 0; i < m->numParams; ++i) {
    const tileRtParam *p = &m->params[i];
    fprintf(os, "param %s ", p->name);
    switch (p->kind) {
    case TILE_RT_PARAM_MEMREF:
      fprintf(os, "memref<");
      printDims(os, p->rank, p->dims);
      fprintf(os, "%s%s> %s\n", p->rank ? "x" : "", tileRtDTypeName(p->dtype),
              passing[p->passing]);
      break;
    case TILE_RT_PARAM_SCALAR:
      fprintf(os, "%s%s\n", tileRtDTypeName(p->dtype),
              p->passing == TILE_RT_PASS_NONE ? " none" : "");
      break;
    case TILE_RT_PARAM_TENSOR_MAP: {
      int64_t box[TILE_RT_MAX_RANK];
      for (int k = 0; k < p->rank; ++k)
        box[k] = p->box[k];
      fprintf(os, "tensormap %s box ", m->params[p->source].name);
      printDims(os, p->rank, box);
      fprintf(os, " swizzle %s interleave %s l2 %s oob %s\n",
              nameOf(swizzleNames, p->swizzle),
              nameOf(interleaveNames, p->interleave),
              nameOf(l2Names, p->l2Promotion), nameOf(oobNames, p->oobFill));
      break;
    }
    }
  }
  for (int i = 0; i < m->numParams; ++i)
    if (m->params[i].zeroInit)
      fprintf(os, "zero %s\n", m->params[i].name);
  for (int i = 0; i < m->numParams; ++i)
    if (m->params[i].stage != TILE_RT_STAGE_NONE)
      fprintf(os, "stage %s %s\n", m->params[i].name,
              stageKindName(m->params[i].stage));
  if (m->dependentLaunch)
    fprintf(os, "dependent-launch\n");
  if (m->hasKernel) {
    fprintf(os, "block %u %u %u\n", m->block[0], m->block[1], m->block[2]);
    fprintf(os, "cluster %u %u %u\n", m->cluster[0], m->cluster[1],
            m->cluster[2]);
    fprintf(os, "shared %u\n", m->sharedBytes);
    for (int axis = 0; axis < 3; ++axis)
      fprintf(os, "grid %c %s\n", 'x' + axis, m->grid[axis]);
  }
  for (int i = 0; i < m->numVariants; ++i) {
    const tileRtVariant *v = &m->variants[i];
    if (v->isFallback) {
      fprintf(os, "fallback %s\n", v->path);
      continue;
    }
    fprintf(os, "variant %s", v->path);
    for (int k = 0; k < v->numBinds; ++k)
      fprintf(os, " bind %s %s", v->binds[k].name,
              m->params[v->binds[k].param].name);
    for (int k = 0; k < v->numViews; ++k)
      fprintf(os, " view %s %s", tileRtViewName(v->views[k].kind),
              m->params[v->views[k].param].name);
    if (v->cost)
      fprintf(os, " cost %lld", (long long)v->cost);
    fprintf(os, "%s%s\n", v->rule[0] ? " when " : "", v->rule);
  }
}

int tileRtManifestNumParams(const tileRtManifest *m) {
  return m ? m->numParams : 0;
}

const char *tileRtManifestPath(const tileRtManifest *m) {
  return m ? m->path : "";
}

tileRtStatus tileRtManifestParamText(const tileRtManifest *m, int index,
                                     char *buf, size_t len) {
  if (!m || !buf || index < 0 || index >= m->numParams)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "no parameter %d (the manifest has %d)", index,
                      m ? m->numParams : 0);
  // Print into a scratch manifest of this one parameter, then cut the line.
  char *text = NULL;
  size_t size = 0;
  FILE *os = open_memstream(&text, &size);
  if (!os)
    return tileRtFail(TILE_RT_ERROR_OUT_OF_MEMORY, "out of memory");
  static const char *const passing[] = {"descriptor", "bare", "none"};
  const tileRtParam *p = &m->params[index];
  fprintf(os, "%s ", p->name);
  if (p->kind == TILE_RT_PARAM_MEMREF) {
    fprintf(os, "memref<");
    printDims(os, p->rank, p->dims);
    fprintf(os, "%s%s> %s", p->rank ? "x" : "", tileRtDTypeName(p->dtype),
            passing[p->passing]);
  } else if (p->kind == TILE_RT_PARAM_SCALAR) {
    fprintf(os, "%s%s", tileRtDTypeName(p->dtype),
            p->passing == TILE_RT_PASS_NONE ? " none" : "");
  } else {
    fprintf(os, "tensormap %s", m->params[p->source].name);
  }
  fclose(os);
  tileRtStatus s = TILE_RT_SUCCESS;
  if (size >= len)
    s = tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                   "parameter text of %zu bytes does not fit %zu", size, len);
  else
    memcpy(buf, text, size + 1);
  free(text);
  return s;
}

/// The error of `subject` (a grid or a rule) reading `resident_blocks`, the
/// blocks of `whose` the device holds at once, where that is unknown.
static tileRtStatus residentUnknown(const char *subject, const char *whose) {
  return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                    "%s reads %s, the blocks of %s the device holds at once, "
                    "which only a kernel loaded on the device knows",
                    subject, kResidentBlocks, whose);
}

typedef struct ArgLookup {
  const tileRtManifest *m;
  const tileRtArgValue *args;
  /// The value of `resident_blocks` in a grid or a rule; negative where it
  /// is unknown.
  int64_t residentBlocks;
} ArgLookup;

/// Name lookup while evaluating a grid or a rule: each name resolves to
/// the argument's size or value.
static int argLookup(void *context, const char *name, size_t len,
                     int64_t *value) {
  const ArgLookup *a = (const ArgLookup *)context;
  if (a->residentBlocks >= 0 && isResidentBlocks(name, len)) {
    *value = a->residentBlocks;
    return 1;
  }
  int i, dim;
  if (!resolveName(a->m, name, len, &i, &dim))
    return 0;
  *value = dim < 0 ? a->args[i].i : a->args[i].sizes[dim];
  return 1;
}

/// Lookup that only notes whether `resident_blocks` is read.
static int noteResidentBlocks(void *context, const char *name, size_t len,
                              int64_t *value) {
  *value = 1;
  if (isResidentBlocks(name, len))
    *(int *)context = 1;
  return 1;
}

int tileRtManifestUsesResidentBlocks(const tileRtManifest *m) {
  int uses = 0;
  for (int axis = 0; axis < 3; ++axis) {
    int64_t ignored;
    (void)tileRtEvalExprImpl(m->grid[axis], noteResidentBlocks, &uses, 1,
                             &ignored);
  }
  return uses;
}

tileRtStatus tileRtManifestEvalGrid(const tileRtManifest *m,
                                    const tileRtArgValue *args,
                                    unsigned grid[3]) {
  return tileRtManifestEvalGridResident(m, args, -1, grid);
}

tileRtStatus tileRtManifestEvalGridResident(const tileRtManifest *m,
                                            const tileRtArgValue *args,
                                            int64_t residentBlocks,
                                            unsigned grid[3]) {
  if (!m || !args || !grid)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "null manifest, arguments or grid");
  if (residentBlocks < 0 && tileRtManifestUsesResidentBlocks(m)) {
    char subject[TILE_RT_MAX_PATH + 16];
    snprintf(subject, sizeof(subject), "%s: the grid", m->path);
    return residentUnknown(subject, "its kernel");
  }
  ArgLookup ctx = {m, args, residentBlocks};
  static const int64_t limits[3] = {0x7fffffff, 65535, 65535};
  for (int axis = 0; axis < 3; ++axis) {
    int64_t v;
    tileRtStatus s = tileRtEvalExpr(m->grid[axis], argLookup, &ctx, &v);
    if (s != TILE_RT_SUCCESS) {
      char msg[1024];
      snprintf(msg, sizeof(msg), "%s", tileRtErrorString());
      return tileRtFail(s, "%s:%d: in grid %c: %s", m->path, m->gridLine[axis],
                        'x' + axis, msg);
    }
    if (v < 0 || v > limits[axis])
      return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                        "%s:%d: grid %c is %lld, expected 0 to %lld", m->path,
                        m->gridLine[axis], 'x' + axis, (long long)v,
                        (long long)limits[axis]);
    grid[axis] = (unsigned)v;
  }
  return TILE_RT_SUCCESS;
}

/// The range of an integer scalar of `dtype` as the kernel reads it: signed,
/// at the type's width (`index` at the manifest's index width). Values
/// outside it would be packed truncated while the grid saw them whole.
static void integerRange(const tileRtManifest *m, tileRtDType dtype,
                         int64_t *min, int64_t *max) {
  int bits = 64;
  switch (dtype) {
  case TILE_RT_DTYPE_I1:
    *min = 0, *max = 1;
    return;
  case TILE_RT_DTYPE_I8:
    bits = 8;
    break;
  case TILE_RT_DTYPE_I16:
    bits = 16;
    break;
  case TILE_RT_DTYPE_I32:
    bits = 32;
    break;
  case TILE_RT_DTYPE_INDEX:
    bits = m->indexBits;
    break;
  default:
    break;
  }
  *max = bits == 64 ? INT64_MAX : (INT64_C(1) << (bits - 1)) - 1;
  *min = -*max - 1;
}

/// The largest finite value of a float scalar type narrower than double.
static double largestFinite(tileRtDType dtype) {
  switch (dtype) {
  case TILE_RT_DTYPE_F16:
    return 65504.0;
  case TILE_RT_DTYPE_BF16:
    return 0x1.fep127;
  case TILE_RT_DTYPE_F32:
    return 0x1.fffffep127;
  case TILE_RT_DTYPE_F8E4M3FN:
    return 448.0;
  case TILE_RT_DTYPE_F8E5M2:
    return 57344.0;
  default:
    return 0;
  }
}

static tileRtStatus checkScalar(const tileRtManifest *m, const tileRtParam *p,
                                const tileRtArgValue *a) {
  if (tileRtDTypeIsFloat(p->dtype)) {
    double max = largestFinite(p->dtype);
    if (max == 0 || a->f != a->f || a->f == INFINITY || a->f == -INFINITY)
      return TILE_RT_SUCCESS;
    // A finite value that rounds to infinity (or NaN for f8E4M3FN) is not
    // what the caller meant; one that rounds to the largest value is.
    unsigned char bytes[8];
    tileRtStoreElement(p->dtype, bytes, 0, a->f);
    double back = tileRtLoadElement(p->dtype, bytes, 0);
    if (back == back && back <= max && back >= -max)
      return TILE_RT_SUCCESS;
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "%s: %g is out of range for %s, expected a value from "
                      "%g to %g",
                      p->name, a->f, tileRtDTypeName(p->dtype), -max, max);
  }
  int64_t min, max;
  integerRange(m, p->dtype, &min, &max);
  if (a->i >= min && a->i <= max)
    return TILE_RT_SUCCESS;
  return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                    "%s: %lld is out of range for %s%s, expected %lld to %lld",
                    p->name, (long long)a->i, tileRtDTypeName(p->dtype),
                    p->dtype == TILE_RT_DTYPE_INDEX
                        ? (m->indexBits == 32 ? " (index-bitwidth 32)"
                                              : " (index-bitwidth 64)")
                        : "",
                    (long long)min, (long long)max);
}

/// Checks that the sizes of memref `p` and the offsets into it fit the
/// index type the kernel computes them in, and that its byte size fits
/// int64. With index-bitwidth 32 the kernel computes in 32 bits: the
/// sizes, strides and offsets of a descriptor, and the element offsets
/// into a bare pointer, are bounded by the element count, which must be at
/// most 2^31-1 then; a memref the kernel does not receive (passing `none`:
/// the source of tensor maps, whose addresses TMA computes, or sizes only
/// the grid reads) has its coordinates computed in 32 bits, so each of its
/// sizes must be at most 2^31-1.
static tileRtStatus checkExtent(const tileRtManifest *m, const tileRtParam *p,
                                const tileRtArgValue *a) {
  // Every stride and offset is at most the element count, so bounding the
  // sizes and the count bounds them all.
  int64_t limit = INT64_MAX, countLimit = INT64_MAX;
  if (m->indexBits == 32) {
    limit = INT32_MAX;
    if (p->passing != TILE_RT_PASS_NONE)
      countLimit = INT32_MAX;
  }
  int64_t count = 1;
  for (int d = p->rank - 1; d >= 0; --d) {
    if (a->sizes[d] > limit)
      return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                        "%s: dimension %d is %lld, expected at most %lld "
                        "(index-bitwidth 32)",
                        p->name, d, (long long)a->sizes[d], (long long)limit);
    if (__builtin_mul_overflow(count, a->sizes[d], &count))
      return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                        "%s: the element count overflows 64 bits (dimension "
                        "%d is %lld)",
                        p->name, d, (long long)a->sizes[d]);
  }
  if (count > countLimit)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "%s: %lld elements, expected at most %lld so that "
                      "%s fit index-bitwidth 32",
                      p->name, (long long)count, (long long)countLimit,
                      p->passing == TILE_RT_PASS_BARE ? "element offsets"
                                                      : "strides and offsets");
  int64_t bytes;
  if (__builtin_mul_overflow(count, (int64_t)tileRtDTypeSize(p->dtype), &bytes))
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "%s: %lld %s elements do not fit in 2^63-1 bytes",
                      p->name, (long long)count, tileRtDTypeName(p->dtype));
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtManifestEvalRule(const tileRtManifest *m, const char *rule,
                                    const tileRtArgValue *args, int *holds) {
  if (!m || !rule || !args || !holds)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "null manifest, rule, arguments or result");
  return tileRtManifestEvalRuleResident(m, rule, args, -1, holds);
}

tileRtStatus tileRtManifestEvalRuleResident(const tileRtManifest *m,
                                            const char *rule,
                                            const tileRtArgValue *args,
                                            int64_t residentBlocks,
                                            int *holds) {
  if (!m || !rule || !args || !holds)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "null manifest, rule, arguments or result");
  if (residentBlocks < 0 && tileRtRuleUsesResidentBlocks(rule)) {
    char subject[TILE_RT_MAX_EXPR + 16];
    snprintf(subject, sizeof(subject), "rule '%s'", rule);
    return residentUnknown(subject, "the variant's kernel");
  }
  ArgLookup ctx = {m, args, residentBlocks};
  return evalRule(rule, argLookup, &ctx, 0, holds);
}

int tileRtRuleUsesResidentBlocks(const char *rule) {
  int uses = 0, ignored;
  (void)evalRule(rule, noteResidentBlocks, &uses, 1, &ignored);
  return uses;
}

tileRtStatus tileRtManifestCheckArgs(const tileRtManifest *m,
                                     const tileRtArgValue *args) {
  if (!m || !args)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "null manifest or arguments");
  for (int i = 0; i < m->numParams; ++i) {
    const tileRtParam *p = &m->params[i];
    if (p->kind == TILE_RT_PARAM_SCALAR) {
      tileRtStatus s = checkScalar(m, p, &args[i]);
      if (s != TILE_RT_SUCCESS)
        return s;
    }
    if (p->kind != TILE_RT_PARAM_MEMREF)
      continue;
    for (int d = 0; d < p->rank; ++d) {
      int64_t size = args[i].sizes[d];
      if (size < 0)
        return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                          "%s: dimension %d is %lld, expected a size >= 0",
                          p->name, d, (long long)size);
      if (p->dims[d] != TILE_RT_DYNAMIC_DIM && p->dims[d] != size)
        return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                          "%s: dimension %d is %lld, expected %lld (static "
                          "in the manifest)",
                          p->name, d, (long long)size, (long long)p->dims[d]);
    }
    tileRtStatus s = checkExtent(m, p, &args[i]);
    if (s != TILE_RT_SUCCESS)
      return s;
  }
  return TILE_RT_SUCCESS;
}

/// The alignment TMA needs of map `p`'s address and strides: 16 bytes, 32
/// with 32-byte interleave (the driver's enumerators: none, 16 B, 32 B).
static uint64_t mapAlignment(const tileRtParam *p) {
  return p->interleave == 2 ? 32 : 16;
}

/// Checks map `p` over its source `src` at `address` with `sizes`, whose
/// rows are `pitch` bytes apart (0: contiguous). `*layout` is set when the
/// address or a stride, not a size, breaks the rules.
static tileRtStatus checkMap(const tileRtParam *p, const tileRtParam *src,
                             uint64_t address, const int64_t *sizes,
                             uint64_t pitch, int *layout) {
  *layout = 0;
  uint64_t align = mapAlignment(p);
  for (int d = p->rank - 1; d >= 0; --d)
    if (sizes[d] < 1 || sizes[d] > (INT64_C(1) << 32))
      return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                        "tensor map '%s': dimension %d of %s is %lld, "
                        "expected 1 to 2^32",
                        p->name, d, src->name, (long long)sizes[d]);
  *layout = 1;
  if (address % align)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "tensor map '%s': the address of %s (0x%llx) is not "
                      "%llu-byte aligned",
                      p->name, src->name, (unsigned long long)address,
                      (unsigned long long)align);
  uint64_t stride = tileRtDTypeSize(p->dtype);
  for (int d = p->rank - 1; d >= 0; --d) {
    if (d != p->rank - 1 && (stride % align || stride >= (UINT64_C(1) << 40)))
      return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                        "tensor map '%s': dimension %d of %s has a stride "
                        "of %llu bytes, expected a multiple of %llu below "
                        "2^40",
                        p->name, d, src->name, (unsigned long long)stride,
                        (unsigned long long)align);
    stride = d == p->rank - 1 && pitch ? pitch : stride * (uint64_t)sizes[d];
  }
  *layout = 0;
  return TILE_RT_SUCCESS;
}

uint64_t tileRtStagedPitch(const tileRtManifest *m, int param,
                           const int64_t *sizes, uint64_t *rows,
                           uint64_t *rowBytes) {
  const tileRtParam *src = &m->params[param];
  uint64_t align = 16;
  for (int i = 0; i < m->numParams; ++i)
    if (m->params[i].kind == TILE_RT_PARAM_TENSOR_MAP &&
        m->params[i].source == param && mapAlignment(&m->params[i]) > align)
      align = mapAlignment(&m->params[i]);
  *rows = 1;
  for (int d = 0; d + 1 < src->rank; ++d)
    *rows *= (uint64_t)sizes[d];
  *rowBytes = tileRtDTypeSize(src->dtype) * (uint64_t)sizes[src->rank - 1];
  return (*rowBytes + align - 1) / align * align;
}

tileRtStatus tileRtCheckTensorMapsStaged(const tileRtManifest *m,
                                         const tileRtArgValue *args,
                                         unsigned char *staged) {
  if (!m || !args)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                      "null manifest or arguments");
  if (staged)
    memset(staged, 0, (size_t)m->numParams);
  for (int i = 0; i < m->numParams; ++i) {
    const tileRtParam *p = &m->params[i];
    if (p->kind != TILE_RT_PARAM_TENSOR_MAP)
      continue;
    const tileRtParam *src = &m->params[p->source];
    const tileRtArgValue *a = &args[p->source];
    int layout;
    tileRtStatus s = checkMap(p, src, a->ptr, a->sizes, 0, &layout);
    if (s == TILE_RT_SUCCESS)
      continue;
    if (!layout || !staged || src->stage == TILE_RT_STAGE_NONE)
      return s;
    // Staged: the workspace is 256-byte aligned, its rows padded.
    uint64_t rows, rowBytes;
    uint64_t pitch =
        tileRtStagedPitch(m, p->source, a->sizes, &rows, &rowBytes);
    s = checkMap(p, src, 256, a->sizes, pitch, &layout);
    if (s != TILE_RT_SUCCESS)
      return s;
    staged[p->source] = 1;
  }
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtManifestCheckTensorMaps(const tileRtManifest *m,
                                           const tileRtArgValue *args) {
  return tileRtCheckTensorMapsStaged(m, args, NULL);
}

int tileRtVariantSource(const tileRtManifest *m, const tileRtVariant *variant,
                        const char *name) {
  for (int i = 0; variant && i < variant->numBinds; ++i)
    if (strcmp(variant->binds[i].name, name) == 0)
      return variant->binds[i].param;
  return tileRtManifestFindParam(m, name);
}

const tileRtView *tileRtFindView(const tileRtVariant *variant, int param) {
  for (int i = 0; variant && i < variant->numViews; ++i)
    if (variant->views[i].param == param)
      return &variant->views[i];
  return NULL;
}

tileRtStatus tileRtManifestCheckCompatible(const tileRtManifest *from,
                                           const tileRtManifest *to) {
  return tileRtCheckVariantCompatible(from, NULL, to);
}

tileRtStatus tileRtCheckVariantCompatible(const tileRtManifest *from,
                                          const tileRtVariant *variant,
                                          const tileRtManifest *to) {
  if (!from || !to)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT, "null manifest");
  for (int i = 0; i < to->numParams; ++i) {
    const tileRtParam *p = &to->params[i];
    // Encoded from their source, which is checked on its own.
    if (p->kind == TILE_RT_PARAM_TENSOR_MAP)
      continue;
    int j = tileRtVariantSource(from, variant, p->name);
    if (j < 0)
      return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                        "%s:%d: parameter '%s' is not a parameter of %s",
                        to->path, p->line, p->name, from->path);
    const tileRtParam *q = &from->params[j];
    int same = p->kind == q->kind && p->dtype == q->dtype &&
               p->rank == q->rank && p->kind != TILE_RT_PARAM_TENSOR_MAP;
    // A transposed argument arrives with its sizes swapped (rank 2).
    const tileRtView *view = tileRtFindView(variant, j);
    for (int d = 0; same && d < p->rank; ++d)
      same = p->dims[d] == q->dims[view ? p->rank - 1 - d : d];
    if (!same) {
      char bound[TILE_RT_MAX_NAME + 32] = "";
      if (strcmp(p->name, q->name) != 0)
        snprintf(bound, sizeof(bound), " (bound to '%s')", q->name);
      return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                        "%s:%d: parameter '%s'%s differs from its declaration "
                        "on line %d of %s%s",
                        to->path, p->line, p->name, bound, q->line, from->path,
                        view ? " (transposed by the variant's view)" : "");
    }
  }
  for (int i = 0; variant && i < variant->numBinds; ++i) {
    int k = tileRtManifestFindParam(to, variant->binds[i].name);
    if (k < 0 || to->params[k].kind == TILE_RT_PARAM_TENSOR_MAP)
      return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT,
                        "%s:%d: 'bind %s %s': %s has no parameter '%s'",
                        from->path, variant->line, variant->binds[i].name,
                        from->params[variant->binds[i].param].name, to->path,
                        variant->binds[i].name);
  }
  return TILE_RT_SUCCESS;
}

tileRtStatus tileRtManifestMapArgs(const tileRtManifest *from,
                                   const tileRtArgValue *args,
                                   const tileRtManifest *to,
                                   tileRtArgValue *toArgs) {
  if (!args || !toArgs)
    return tileRtFail(TILE_RT_ERROR_INVALID_ARGUMENT, "null arguments");
  tileRtStatus s = tileRtManifestCheckCompatible(from, to);
  if (s != TILE_RT_SUCCESS)
    return s;
  for (int i = 0; i < to->numParams; ++i) {
    if (to->params[i].kind == TILE_RT_PARAM_TENSOR_MAP)
      memset(&toArgs[i], 0, sizeof(toArgs[i]));
    else
      toArgs[i] = args[tileRtManifestFindParam(from, to->params[i].name)];
  }
  return TILE_RT_SUCCESS;
}
