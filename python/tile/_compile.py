"""tile.compile: run tile-compile with a cache.

The cache key is a hash of everything the output depends on: the kernel
file's bytes, the parameters, the chip, the other options, the dispatch
table's bytes and those of the kernel files its `via=` entries name, and
the tile-compile binary (path, size and modification time), so an edited
kernel, table or compiler never serves a stale build.
Builds go to a directory per key under the cache directory (the
environment variable TILE_CACHE_DIR, else ~/.cache/tile), written to a
temporary directory first and renamed into place, so concurrent or
interrupted builds leave no partial entries.
"""

import hashlib
import os
import re
import shutil
import subprocess
import tempfile


def cache_dir():
    """The directory of compiled kernels."""
    return os.environ.get("TILE_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "tile")


def _compiler():
    found = os.environ.get("TILE_COMPILE") or shutil.which("tile-compile")
    if not found:
        from . import TileError
        raise TileError("tile-compile not found: put it on PATH or set "
                        "TILE_COMPILE to its path")
    return found


def _digest(path, h):
    with open(path, "rb") as f:
        h.update(hashlib.sha256(f.read()).digest())


def _digest_siblings(path, dispatch, h):
    """Digests the kernel files next to `path` that the `via=` entries of
    the table `dispatch` build instead of it."""
    with open(dispatch) as f:
        names = sorted(set(re.findall(r"(?:^|\s)via=(\w+)\(", f.read())))
    for name in names:
        sibling = os.path.join(os.path.dirname(path), name + ".mlir")
        h.update(name.encode())
        if os.path.isfile(sibling):
            _digest(sibling, h)


def compile(path, chip="sm_90a", dispatch=None, options=(), device=None,
            **params):
    """Compiles the kernel file `path` for `chip` with the parameters
    `params` (NAME=VALUE, as tile-compile -D), or with `dispatch`, a tuned
    table, into one dispatching kernel; `options` are further tile-compile
    flags. Returns the loaded kernel (tile.Kernel) when the file has one,
    else a dict of them by kernel name. Cached: see cache_dir()."""
    from . import Kernel, TileError
    compiler = _compiler()
    h = hashlib.sha256()
    _digest(path, h)
    st = os.stat(compiler)
    h.update(repr((os.path.abspath(compiler), st.st_size, st.st_mtime_ns,
                   chip, sorted(params.items()), list(options),
                   dispatch is not None)).encode())
    if dispatch is not None:
        _digest(dispatch, h)
        _digest_siblings(path, dispatch, h)
    key = h.hexdigest()[:32]
    out = os.path.join(cache_dir(), key)
    if not os.path.isdir(out):
        os.makedirs(cache_dir(), exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=key + ".", dir=cache_dir())
        cmd = [compiler, path, "-o", tmp, "--chip", chip]
        cmd += ["-D%s=%s" % (k, v) for k, v in sorted(params.items())]
        if dispatch is not None:
            cmd += ["--dispatch", dispatch]
        cmd += list(options)
        run = subprocess.run(cmd, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, universal_newlines=True)
        if run.returncode != 0:
            shutil.rmtree(tmp, ignore_errors=True)
            raise TileError("%s failed (exit %d):\n%s" % (
                " ".join(cmd), run.returncode, run.stderr.strip()))
        try:
            os.rename(tmp, out)
        except OSError:
            # Another process built the same key first; keep its build.
            shutil.rmtree(tmp, ignore_errors=True)
    names = sorted(f[:-len(".manifest")] for f in os.listdir(out)
                   if f.endswith(".manifest")
                   and not f.endswith(".fallback.manifest"))
    kernels = dict((n, Kernel(os.path.join(out, n + ".manifest"), device))
                   for n in names)
    if len(kernels) == 1:
        return next(iter(kernels.values()))
    return kernels
