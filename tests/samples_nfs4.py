#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""samples_nfs4.py: the NFSv4 samples' two outside truths agree.

    samples_nfs4.py SAMPLES_DIR

For every sample whose NAME.expect.json holds an "nfs4" record (written by
the generating client, samples/nfs4gen.c or samples/pynfsgen, from its own
counters), samples/compare-expect-truth must find it equal to
NAME.truth.json (tshark's per-operation view, tests/truth-from-tshark), and
the truth file must have been made from the committed capture (sha256).
Also checked: the samples together cover NFSv4 minor versions 0, 1 and 2,
and a truth file with one operation count changed is reported as a
difference (the comparison can fail). Needs no tshark.
"""
import copy
import hashlib
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

WANT_MINOR_VERSIONS = {"0", "1", "2"}


def compare(samples, exp_path, truth_path):
    return subprocess.run([sys.executable, os.path.join(samples, "compare-expect-truth"),
                           exp_path, truth_path], capture_output=True, text=True, timeout=120)


def main():
    samples = sys.argv[1]
    caps = sorted(f for f in os.listdir(samples)
                  if f.endswith((".pcap", ".pcapng")) and not f.startswith("."))
    v4, minors = [], set()
    for f in caps:
        name = f.rsplit(".", 1)[0]
        with open(os.path.join(samples, name + ".expect.json")) as fh:
            exp = json.load(fh)
        if "nfs4" not in exp:
            continue
        v4.append(name)
        minors |= set(exp["nfs4"]["by_minorversion"])
        truth_path = os.path.join(samples, name + ".truth.json")
        with open(truth_path) as fh:
            truth = json.load(fh)
        with open(os.path.join(samples, f), "rb") as fh:
            sha = hashlib.sha256(fh.read()).hexdigest()
        check(truth.get("sha256") == sha,
              "%s: %s.truth.json was made from this capture" % (name, name))
        p = compare(samples, os.path.join(samples, name + ".expect.json"), truth_path)
        check(p.returncode == 0, "%s: client record == tshark\n%s" % (name, p.stdout.strip()))
        check(exp["nfs4"]["compound"]["calls"] > 0, "%s: the client sent COMPOUNDs" % name)
    check(len(v4) > 0, "NFSv4 samples found in %s" % samples)
    check(minors >= WANT_MINOR_VERSIONS,
          "the NFSv4 samples cover minor versions %s (have %s)"
          % (sorted(WANT_MINOR_VERSIONS), sorted(minors)))

    # the comparison notices one wrong per-operation count
    if v4:
        name = v4[0]
        with open(os.path.join(samples, name + ".truth.json")) as fh:
            truth = json.load(fh)
        broken = copy.deepcopy(truth)
        op = sorted(broken["nfs4"]["ops"])[0]
        broken["nfs4"]["ops"][op]["count"] += 1
        with tempfile.NamedTemporaryFile("w", suffix=".truth.json", delete=False) as fh:
            json.dump(broken, fh)
        try:
            p = compare(samples, os.path.join(samples, name + ".expect.json"), fh.name)
        finally:
            os.unlink(fh.name)
        check(p.returncode == 1 and ("nfs4 %s count" % op) in p.stdout,
              "%s: a changed %s count is reported (%s)" % (name, op, p.stdout.strip()[-200:]))
    print("NFSv4 samples: %s" % " ".join(v4))
    return finish()


if __name__ == "__main__":
    sys.exit(main())
