#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_lockwaits.py: NLM v4 lock waits on the real NLM samples.

usage: e2e_lockwaits.py NFSSCOPE SAMPLES_DIR

nlm-locks: one blocking LOCK is answered NLM4_BLOCKED and cancelled while the
conflicting lock is held (samples/nfsgen.c, wl_nlm_locks): 1 blocked, 1
cancelled, nothing granted or left waiting.

nlm-blocked: a blocked lock granted by the server's GRANTED_MSG callback 1 s
later (the holder kept its lock NLM_HOLD_MS).

Samples whose NAME.expect.json has a "lock_waits" object (written by nfsgen,
which ran the waits and knows how long it held the conflicting lock) must
match it: blocked, granted, cancelled and pending exactly, and each granted
wait at least the time the holder kept its lock (min_wait_us) and at most
that plus max_extra_us.
"""
import json
import os
import subprocess
import sys

from checks import check, finish


def run(nfsscope, path, fmt):
    p = subprocess.run([nfsscope, "-o", fmt, "-r", path], capture_output=True, timeout=300)
    check(p.returncode == 0, f"{path}: exit {p.returncode} {p.stderr!r}")
    return p.stdout.decode(errors="replace")


def main():
    nfsscope, d = sys.argv[1], sys.argv[2]
    checked = 0
    for f in sorted(os.listdir(d)):
        if not f.endswith((".pcap", ".pcapng")) or f.startswith("."):
            continue
        name = f.rsplit(".", 1)[0]
        with open(os.path.join(d, name + ".expect.json")) as fp:
            exp = json.load(fp)
        lw = json.loads(run(nfsscope, os.path.join(d, f), "json"))["nlm4"]["lock_waits"]
        want = exp.get("lock_waits")
        if name == "nlm-locks":
            blocked = exp["nlm4"]["ops"]["lock"]["status"].get("NLM4_BLOCKED", 0)
            check(blocked == 1, f"nlm-locks: nfsgen saw {blocked} BLOCKED")
            want = {"blocked": 1, "granted": 0, "cancelled": 1, "pending": 0}
        if want is None:
            # No NLM waits in this sample: nothing counted.
            check(lw["blocked"] == 0 and lw["unmatched_grants"] == 0, f"{name}: {lw}")
            continue
        checked += 1
        for k in ("blocked", "granted", "cancelled", "pending"):
            check(lw[k] == want[k], f"{name}: lock_waits {k} {lw[k]} != {want[k]}")
        check(lw["evicted"] == 0 and lw["unmatched_grants"] == 0, f"{name}: {lw}")
        w = lw["wait"]["latency_us"]
        check(w["count"] == want["granted"], f"{name}: {w['count']} waits timed")
        if want["granted"]:
            lo, extra = want["min_wait_us"], want["max_extra_us"]
            check(lo <= w["min"] and w["max"] <= lo + extra,
                  f"{name}: waits {w['min']}..{w['max']} us, want {lo}..{lo + extra}")
        text = run(nfsscope, os.path.join(d, f), "text")
        line = next((l for l in text.splitlines() if l.startswith("lock waits: ")), "")
        check(line.startswith(f"lock waits: {want['blocked']} blocked, {want['granted']} granted, "
                              f"{want['cancelled']} cancelled"), f"{name}: text {line!r}")
    check(checked >= 1, "no sample with NLM lock waits")
    # nfsscope merge adds lock waits like every count.
    one = run(nfsscope, os.path.join(d, "nlm-locks.pcap"), "json")
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".json") as t:
        t.write(one)
        t.flush()
        p = subprocess.run([nfsscope, "merge", t.name, t.name, "-o", "json"], capture_output=True,
                           timeout=300)
    check(p.returncode == 0, f"merge: exit {p.returncode} {p.stderr!r}")
    if p.returncode == 0:
        m = json.loads(p.stdout)["nlm4"]["lock_waits"]
        check(m["blocked"] == 2 and m["cancelled"] == 2, f"merged lock waits {m}")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
