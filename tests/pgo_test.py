#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""pgo_test.py: the profile-guided build (cmake/pgo.cmake) used its profile.

usage: pgo_test.py BUILD_DIR

GCC looks for an object's profile under the object's own path, '/' turned
into '#', in the -fprofile-use directory, and compiles without one, silently
(-Wno-missing-profile), when it is not there. So this checks that:
- every object of nfsscope_core and nfsscope that has code has its profile
  in BUILD_DIR/pgo/use, with counts (not an empty file);
- the objects were compiled with -fprofile-use (the compiler's own record
  of its options in the debug information, DW_AT_producer);
- nfsscope itself is not the instrumented copy (no __gcov_ symbol): that
  one writes .gcda files wherever it runs.
"""
import os
import subprocess
import sys

from checks import check, finish


def has_code(obj):
    out = subprocess.run(["nm", "--defined-only", obj], capture_output=True, text=True).stdout
    return any(len(l.split()) == 3 and l.split()[1] in "tT" for l in out.splitlines())


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    build = os.path.abspath(sys.argv[1])
    use = os.path.join(build, "pgo", "use")
    objs = []
    for target in ("nfsscope_core.dir", "nfsscope.dir"):
        for root, _, files in os.walk(os.path.join(build, "CMakeFiles", target)):
            objs += [os.path.join(root, f) for f in files if f.endswith(".o")]
    check(len(objs) > 50, "the objects of nfsscope_core and nfsscope found (%d)" % len(objs))
    missing, empty, coded = [], [], 0
    for o in sorted(objs):
        if not has_code(o):
            continue
        coded += 1
        gcda = os.path.join(use, o[:-2].replace("/", "#") + ".gcda")
        if not os.path.exists(gcda):
            missing.append(os.path.relpath(o, build))
        elif os.path.getsize(gcda) < 64:
            empty.append(os.path.relpath(o, build))
    check(coded > 50 and not missing,
          "every object with code has its profile (%d of %d without: %s)"
          % (len(missing), coded, missing[:5]))
    check(not empty, "no profile is empty (%s)" % empty[:5])
    # The compiler's options as recorded for the pipeline's main module.
    pipe = [o for o in objs if o.endswith("/src/pipeline.c.o")]
    info = subprocess.run(["readelf", "--debug-dump=info"] + pipe[:1], capture_output=True,
                          text=True).stdout if pipe else ""
    check("-fprofile-use" in info, "src/pipeline.c compiled with -fprofile-use")
    syms = subprocess.run(["nm", os.path.join(build, "nfsscope")], capture_output=True,
                          text=True).stdout
    check(syms != "" and "__gcov_" not in syms, "nfsscope is not the instrumented copy")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
