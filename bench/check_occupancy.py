"""tile-compile's resident blocks per multiprocessor against the driver's.

    python3 bench/check_occupancy.py DIR...      # on the GPU machine

Every manifest under the DIRs whose kernel has a cubin carries the comment
tile-compile writes from `ptxas -v`:

    # resources 80 registers, 0 bytes spill stores, 0 bytes spill loads,
    #   0 bytes shared memory, 3 blocks of 256 threads per multiprocessor ...

This loads each cubin, asks the driver
(cuOccupancyMaxActiveBlocksPerMultiprocessor, through CuPy) how many blocks
of the manifest's size and shared memory one multiprocessor holds, and
prints both. Exit status 1 where any differ, so that the rule tile-compile
applies (dialect/lib/Target.cpp, residentBlocks) is checked on the device.
"""

import argparse
import os
import re
import sys

RESOURCES = re.compile(
    r"^# resources (\d+) registers, (\d+) bytes spill stores, (\d+) bytes "
    r"spill loads, (\d+) bytes shared memory, (\d+) blocks? of (\d+) threads "
    r"per multiprocessor \(limited by ([a-z ]+)\)")


def read_manifest(path):
    """The kernel, binary, threads, dynamic shared memory and the resources
    comment of a launch manifest (None where it has no cubin or comment)."""
    kernel = binary = resources = None
    threads, shared = 1, 0
    with open(path) as f:
        for line in f:
            match = RESOURCES.match(line)
            if match:
                resources = match
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            if words[0] == "kernel":
                kernel = words[1]
            elif words[0] == "binary" and words[2] == "cubin":
                binary = os.path.join(os.path.dirname(path), words[1])
            elif words[0] == "block":
                threads = int(words[1]) * int(words[2]) * int(words[3])
            elif words[0] == "shared":
                shared = int(words[1])
    if not (kernel and binary and resources):
        return None
    return kernel, binary, threads, shared, resources


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dirs", nargs="+")
    args = parser.parse_args()

    import cupy
    from cupy.cuda import driver

    device = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"device: {device}\n")
    print("| manifest | registers | shared bytes | tile-compile | driver |")
    print("|---|---|---|---|---|")
    checked = differ = 0
    for top in args.dirs:
        for root, _, files in sorted(os.walk(top)):
            for name in sorted(files):
                if not name.endswith(".manifest"):
                    continue
                path = os.path.join(root, name)
                found = read_manifest(path)
                if not found:
                    continue
                kernel, binary, threads, shared, res = found
                try:
                    function = cupy.RawModule(path=binary).get_function(kernel)
                    function.kernel  # loads the module
                except cupy.cuda.driver.CUDADriverError as error:
                    # A cubin of another chip (sm_80 on an H200, say).
                    print(f"| {os.path.relpath(path, top)} | {res.group(1)} | "
                          f"{res.group(4)} | {res.group(5)} | not loaded: "
                          f"{error} |")
                    continue
                if shared:
                    function.max_dynamic_shared_size_bytes = shared
                # RawKernel wraps the driver's CUfunction (its .kernel).
                handle = getattr(function, "ptr", None) or function.kernel.ptr
                blocks = driver.occupancyMaxActiveBlocksPerMultiprocessor(
                    handle, threads, shared)
                predicted = int(res.group(5))
                mark = "" if blocks == predicted else " **differs**"
                checked += 1
                differ += blocks != predicted
                print(f"| {os.path.relpath(path, top)} | {res.group(1)} | "
                      f"{res.group(4)} | {predicted} ({res.group(7)}) | "
                      f"{blocks}{mark} |")
    print(f"\n{checked} kernels, {differ} differ")
    return 1 if differ or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
