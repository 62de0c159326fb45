# lit configuration of the tile test suite.
import os
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TILE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".c", ".test"]
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py",
                   "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tile_obj_root, "test")

llvm_config.use_default_substitutions()
config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%tile_src", config.tile_src_root))
config.substitutions.append(("%tile_obj", config.tile_obj_root))
config.substitutions.append(("%tile_libs", config.tile_lib_dir))
config.substitutions.append(("%llvm_tools", config.llvm_tools_dir))
# tile-plugin: the mlir-opt plugin was built (not with TILE_STATIC_TOOLS).
if os.path.exists(os.path.join(config.tile_lib_dir, "TilePlugin.so")):
    config.available_features.add("tile-plugin")
config.substitutions.append(("%mlir_opt", config.mlir_opt))
config.substitutions.append(("%cc", config.c_compiler))
config.substitutions.append(("%mlir_include", config.mlir_include_dir))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP", "CUDA_HOME"])
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.tile_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["tile-opt", "tile-run", "tile-compile"],
                                   tool_dirs)

# cuda-gpu: a CUDA device is usable through the driver. tile-run probes it
# and fails cleanly where there is no driver or no device.
tile_run = os.path.join(config.tile_tools_dir, "tile-run")
if os.path.exists(tile_run):
    try:
        probe = subprocess.run([tile_run, "--list-devices"],
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=120)
        if probe.returncode == 0:
            config.available_features.add("cuda-gpu")
    except (OSError, subprocess.TimeoutExpired):
        pass

# ptxas: the CUDA toolkit's assembler exists, so tile-compile makes cubins
# (found as tile-compile finds it).
import shutil
ptxas_dirs = [os.path.join(os.environ.get("CUDA_HOME", ""), "bin"),
              "/usr/local/cuda/bin"]
ptxas = next((os.path.join(d, "ptxas") for d in ptxas_dirs
              if os.access(os.path.join(d, "ptxas"), os.X_OK)),
             shutil.which("ptxas"))
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))

# hsaco: the toolkit directory the build assembled for AMD chips links
# code objects (ld.lld), so tile-compile --chip gfx942 writes HSACO; with
# rocm-device-libs, kernels calling ocml math functions link too.
rocm_toolkit = os.path.join(config.tile_obj_root, "rocm-toolkit")
if os.path.exists(os.path.join(rocm_toolkit, "llvm", "bin", "ld.lld")):
    config.available_features.add("hsaco")
if os.path.exists(os.path.join(rocm_toolkit, "amdgcn", "bitcode", "ocml.bc")):
    config.available_features.add("rocm-device-libs")

# python-extension: the build made the Python package's C launch path
# (build/python/tile/_launch*.so) for the python3 the tests run.
try:
    suffixes = subprocess.run(
        ["python3", "-c", "import importlib.machinery as m; "
         "print(' '.join(m.EXTENSION_SUFFIXES))"], capture_output=True,
        text=True, timeout=60).stdout.split()
except (OSError, subprocess.TimeoutExpired):
    suffixes = []
if any(os.path.exists(os.path.join(config.tile_obj_root, "python", "tile",
                                   "_launch" + s)) for s in suffixes):
    config.available_features.add("python-extension")
