#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_threads.py: the findings on a second thread (--threads).

- every sample and every public capture (the .bz2 ones decompressed into
  the work directory, one at a time) gives byte-identical reports, JSON and
  text with every breakdown, with --threads 1 and with the default (2), and
  so do the periodic JSON reports of --interval 1 (each waits for the
  findings thread to catch up);
- a replay with --metrics and --speed, scraped while it plays: every scrape
  is answered, and the last one (input done) gives the same findings and time
  by cause as with --threads 1;
- with the default, a report from standard input has a thread named
  "findings" once the capture is open (found in /proc/PID/task while
  nfsscope waits for the rest of its input); with --threads 1 it has none;
- the findings thread blocks SIGINT and SIGTERM, so SIGINT stops a run that
  waits on standard input at once, with the report of what was read;
- --threads outside 1..16 is a usage error (exit 2, a line that names it).

usage: e2e_threads.py [--json-only] NFSSCOPE SAMPLES_DIR PUBLIC_PCAPS_DIR WORK_DIR
  --json-only: no text reports (half the runs: scripts/check's ThreadSanitizer
  build, where every run is slow)
"""
import glob
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request

from checks import check, finish, json_only_args, skip_part
from plaincap import plain


# One hash seed for every run: which entry a full table evicts depends on it
# (nfstrace-...-bad_alloc fills the findings' tables), and that is not what
# this test compares.
ENV = dict(os.environ, NFSSCOPE_HASH_SEED="7")


def run(nfsscope, args):
    return subprocess.run([nfsscope, *args], capture_output=True, timeout=300, env=ENV)


def captures(samples, public, work):
    caps = sorted(glob.glob(os.path.join(samples, "*.pcap")) +
                  glob.glob(os.path.join(samples, "*.pcapng")))
    if not os.path.isdir(public):
        skip_part(f"public captures: {public} is absent (samples only)", ci_required=True)
        return caps
    return caps + sorted(glob.glob(os.path.join(public, "*.pcap*")))


def threads_of(pid):
    """nfsscope's threads named "findings" (a sanitizer may add threads of
    its own, unnamed)."""
    n = 0
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                n += f.read().strip() == "findings"
    except FileNotFoundError:
        return -1
    return n


def threads_while_reading(nfsscope, path, extra, more_than=None):
    """Start nfsscope on stdin, give it the file's first half, count its
    findings threads (waiting up to 10 s for more than `more_than`), then give
    it the rest; returns (threads, exit code, report)."""
    data = open(path, "rb").read()
    p = subprocess.Popen([nfsscope, "-o", "json", "-r", "-", *extra], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    p.stdin.write(data[:len(data) // 2])
    p.stdin.flush()
    n = -1
    deadline = time.monotonic() + (10 if more_than is not None else 0.3)
    while time.monotonic() < deadline:  # the second thread starts once the header is read
        n = threads_of(p.pid)
        if more_than is not None and n > more_than:
            break
        time.sleep(0.05)
    time.sleep(0.3)  # and no thread more after that
    n = threads_of(p.pid)
    p.stdin.write(data[len(data) // 2:])
    p.stdin.close()
    out = p.stdout.read()
    p.stderr.read()
    return n, p.wait(timeout=120), out


def findings_sigblk(pid):
    """The blocked-signal mask of nfsscope's findings thread, or None."""
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/comm") as f:
            if f.read().strip() != "findings":
                continue
        with open(f"/proc/{pid}/task/{tid}/status") as f:
            for line in f:
                if line.startswith("SigBlk:"):
                    return int(line.split()[1], 16)
    return None


def sigint_while_reading(nfsscope, path):
    """nfsscope on stdin, half the file given, then SIGINT: the findings
    thread blocks SIGINT and SIGTERM (so they interrupt the reading thread),
    nfsscope ends at once with the report of what it read."""
    data = open(path, "rb").read()
    p = subprocess.Popen([nfsscope, "-o", "json", "-r", "-"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    p.stdin.write(data[:len(data) // 2])
    p.stdin.flush()
    mask = None
    deadline = time.monotonic() + 10
    while mask is None and time.monotonic() < deadline:
        mask = findings_sigblk(p.pid)
        time.sleep(0.05)
    check(mask is not None and mask & (1 << (signal.SIGINT - 1)) and
          mask & (1 << (signal.SIGTERM - 1)),
          f"findings thread blocks SIGINT and SIGTERM (SigBlk {mask})")
    p.send_signal(signal.SIGINT)
    try:
        out, _ = p.communicate(timeout=10)  # stdin stays open: only the signal ends it
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        check(False, "SIGINT while reading stdin: nfsscope did not stop within 10 s")
        return
    check(p.returncode == 0, f"SIGINT while reading stdin: exit {p.returncode}")
    rep = json.loads(out)
    check(0 < rep["capture"]["packets"], "SIGINT: a report of the packets read")


def metrics_replay(nfsscope, path, extra):
    """`-r path --metrics 127.0.0.1:0 --speed 8`, scraped every 50 ms while it
    plays; returns (scrapes answered, failures, the findings' lines of the
    last scrape once nfsscope_input_done is 1)."""
    p = subprocess.Popen([nfsscope, "-r", path, "--metrics", "127.0.0.1:0", "--speed", "8",
                          *extra], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV,
                         text=True)
    line = p.stderr.readline()
    m = re.search(r"metrics at (http://\S+/metrics)", line)
    answered, failed, last = 0, 0, None
    deadline = time.monotonic() + 120
    while m and time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(m.group(1), timeout=10) as r:
                text = r.read().decode()
            answered += 1
        except OSError:
            failed += 1
            break
        if "\nnfsscope_input_done 1" in text:
            last = [ln for ln in text.splitlines() if ln.startswith("nfsscope_findings")]
            break
        time.sleep(0.05)
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=60)
    return answered, failed, last


def same_with_threads(nfsscope, cap, modes):
    """The reports of cap with --threads 1 and with the default are the same."""
    name = os.path.basename(cap)
    for mode in modes:
        one = run(nfsscope, ["-r", cap, "--threads", "1", *mode])
        two = run(nfsscope, ["-r", cap, *mode])
        check(one.returncode == two.returncode,
              f"{name} {mode[1]}: exit {one.returncode} vs {two.returncode}")
        check(one.stdout == two.stdout and len(one.stdout) > 100,
              f"{name} {mode[1]}: --threads 1 and 2 differ")
        check(one.stderr == two.stderr, f"{name} {mode[1]}: stderr differs")
    one = run(nfsscope, ["-r", cap, "--threads", "1", "-o", "json", "--interval", "1"])
    two = run(nfsscope, ["-r", cap, "-o", "json", "--interval", "1"])
    check(one.returncode == two.returncode and one.stdout == two.stdout,
          f"{name} --interval 1: --threads 1 and 2 differ")


def main():
    parsed = json_only_args(sys.argv[1:], 4)
    if not parsed:
        print(__doc__)
        return 2
    json_only, (nfsscope, samples, public, work) = parsed
    modes = [["-o", "json"]]
    if not json_only:
        modes.append(["-o", "text", "--by", "client,server,pair,export,file,user"])
    os.makedirs(work, exist_ok=True)
    caps = captures(samples, public, work)
    check(len(caps) >= 12, f"{len(caps)} captures found")
    for cap in caps:
        with plain(cap, work) as p:
            same_with_threads(nfsscope, p, modes)

    lossy = os.path.join(samples, "lossy-cms.pcap")
    a1, f1, last1 = metrics_replay(nfsscope, lossy, ["--threads", "1"])
    a2, f2, last2 = metrics_replay(nfsscope, lossy, [])
    check(f1 == 0 and f2 == 0 and a2 > 5, f"--metrics replay: {a2} scrapes answered, {f2} failed")
    check(last2 and last1 == last2 and any("redundant" in ln for ln in last2),
          f"--metrics replay: the last scrape's findings equal --threads 1's ({len(last2 or [])}"
          " lines)")

    ls_storm = os.path.join(samples, "ls-storm.pcap")
    n1, rc1, out1 = threads_while_reading(nfsscope, ls_storm, ["--threads", "1"])
    n2, rc2, out2 = threads_while_reading(nfsscope, ls_storm, [], more_than=0)
    check(n1 == 0, f"--threads 1: {n1} findings threads while reading stdin, expected 0")
    check(n2 == 1, f"default: {n2} findings threads while reading stdin, expected 1")
    check(rc1 == 0 and rc2 == 0, f"stdin runs exit {rc1}, {rc2}")
    check(out1 == out2 and b'"directory_fanout"' in out1, "stdin runs: reports differ")
    whole = json.loads(run(nfsscope, ["-o", "json", "-r", ls_storm]).stdout)
    piped = json.loads(out2)
    check(piped["capture"].pop("sources") == ["-"], "stdin run: sources [\"-\"]")
    whole["capture"].pop("sources")
    check(piped == whole, "stdin in two writes == the file (but for the source's name)")

    sigint_while_reading(nfsscope, ls_storm)

    for bad in ("0", "17", "x", ""):
        p = run(nfsscope, ["-r", ls_storm, "--threads", bad])
        first = p.stderr.split(b"\n")[0]
        check(p.returncode == 2 and first.startswith(b"nfsscope: --threads") and bad.encode() in first,
              f"--threads {bad!r}: exit {p.returncode} {p.stderr!r}")

    return finish()


if __name__ == "__main__":
    sys.exit(main())
