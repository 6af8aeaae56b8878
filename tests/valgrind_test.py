#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""valgrind_test.py: nfsscope under valgrind memcheck: no errors, no leaks.

    valgrind_test.py NFSSCOPE SAMPLES_DIR WORKDIR [FLOODGEN] [--sanitized]

Runs the (release) binary under
    valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible
on every sample in each output format, with breakdowns and per-call records,
several files at once, standard input, the hostile-names capture of
e2e_termsafe.py, small floods (evictions of every table) and the error
exits (missing file, not a capture, bad filter). Each run must end with its
normal exit status and "ERROR SUMMARY: 0 errors". Exit 77 (skipped) when
valgrind is not installed or the build uses sanitizers (valgrind cannot run
ASan binaries; scripts/check runs this in its release build).
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

VG = ["valgrind", "--error-exitcode=1", "--leak-check=full",
      "--errors-for-leak-kinds=definite,indirect,possible", "--track-origins=yes",
      "--num-callers=30"]
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL " + what, flush=True)


def vg(name, args, want_rc=0, stdin=None):
    log = os.path.join(WORK, name + ".vglog")
    p = subprocess.run(VG + ["--log-file=" + log, NFSSCOPE] + args, stdin=stdin,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=600)
    text = open(log, errors="replace").read()
    m = re.search(r"ERROR SUMMARY: (\d+) errors", text)
    ok = p.returncode == want_rc and m is not None and m.group(1) == "0"
    check(ok, f"{name}: exit {p.returncode} (want {want_rc}), "
          f"{m.group(0) if m else 'no summary'}\n{text[-4000:]}")


def main():
    global NFSSCOPE, WORK
    args = [a for a in sys.argv[1:] if a != "--sanitized"]
    NFSSCOPE, samples, WORK = args[0], args[1], args[2]
    floodgen = args[3] if len(args) > 3 else None
    if "--sanitized" in sys.argv:
        print("SKIP: sanitizer build (valgrind runs in the release build)")
        return 77
    if not shutil.which("valgrind"):
        print("SKIP: valgrind not installed (scripts/install-deps)")
        return 77
    os.makedirs(WORK, exist_ok=True)

    caps = sorted(f for f in os.listdir(samples) if f.endswith((".pcap", ".pcapng")))
    for f in caps:
        vg(f + "-json", ["-r", os.path.join(samples, f), "-o", "json"])
    s = lambda f: os.path.join(samples, f)  # noqa: E731
    vg("all-ops-text-by", ["-r", s("all-ops.pcap"), "--by", "client,server,pair,export,file,user"])
    vg("udp-frag-csv", ["-r", s("udp-frag.pcap"), "-o", "csv"])
    vg("udp-frag-csv-by", ["-r", s("udp-frag.pcap"), "-o", "csv", "--by", "file,export"])
    vg("records-csv", ["-r", s("all-ops.pcap"), "--records", os.path.join(WORK, "r.csv")])
    vg("records-jsonl", ["-r", s("udp-frag.pcap"), "--records", os.path.join(WORK, "r.jsonl"),
                         "--records-format", "jsonl", "-o", "json"])
    vg("several-files", ["-r", s("all-ops.pcap"), "-r", s("udp-frag.pcap"), "-r",
                         s("multi-client.pcapng"), "-o", "json"])
    with open(s("all-ops-udp.pcap"), "rb") as f:
        vg("stdin", ["-r", "-"], stdin=f)
    vg("small-tables", ["-r", s("ls-storm.pcap"), "--max-flows", "16", "--max-pending", "16",
                        "--max-names", "16", "--max-rows", "2", "--max-frags", "1"])
    vg("filter", ["-r", s("all-ops.pcap"), "udp"])

    import e2e_termsafe  # the hostile-names capture
    hostile = os.path.join(WORK, "hostile-names.pcap")
    open(hostile, "wb").write(e2e_termsafe.capture())
    vg("hostile-text", ["-r", hostile, "--by", "file,export"])
    vg("hostile-json", ["-r", hostile, "-o", "json"])

    if floodgen:
        limits = ["--max-flows", "64", "--max-pending", "64", "--max-names", "64",
                  "--max-rows", "8", "--max-frags", "8", "-o", "json"]
        for kind, n in (("conns", 3000), ("frags", 5000), ("ooo", 20000), ("names", 2000),
                        ("recfrag", 300)):
            path = os.path.join(WORK, kind + ".pcap")
            with open(path, "wb") as f:
                subprocess.run([floodgen, kind, str(n)], stdout=f, check=True)
            vg("flood-" + kind, ["-r", path] + limits)
            os.unlink(path)

    junk = os.path.join(WORK, "junk.pcap")
    open(junk, "wb").write(b"not a capture\n" * 8)
    vg("missing", ["-r", os.path.join(WORK, "missing.pcap")], want_rc=1)
    vg("not-a-capture", ["-r", junk], want_rc=1)
    vg("bad-filter", ["-r", s("all-ops.pcap"), "port", "nonsense("], want_rc=2)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
