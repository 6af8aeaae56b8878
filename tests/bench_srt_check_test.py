#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench_srt_check_test.py: bench/srt-check, the cross-check of nfsscope's
NFS calls per procedure against tshark's SRT table that bench/run makes on
its captures.

samples/lossy-cms.pcap holds two replies (a LOOKUP's and an ACCESS's) whose
TCP segment the server retransmitted: the same sequence numbers and bytes
twice on the wire. The generating client's record (lossy-cms.expect.json)
says one call and one reply each; tshark's default SRT table counts the
reply twice. Checked here, from sources other than nfsscope:
  - the default SRT table exceeds the client's record on this sample, by
    exactly the replies tshark marks rpc.reply.dup (so the sample does
    exercise the duplicate path);
  - tshark with -o tcp.reassemble_out_of_order:TRUE (which does not dissect
    the retransmitted copy) counts what the client recorded;
  - nfsscope's calls equal the client's record and srt-check accepts them;
  - srt-check rejects a report one call off, and one that matches the raw
    default SRT table (the naive comparison);
  - an NFSv4 sample passes (NULL, COMPOUND) and a broken COMPOUND count fails.

usage: bench_srt_check_test.py NFSSCOPE REPO WORKDIR
"""
import json
import os
import re
import shutil
import subprocess
import sys

failures = []


def check(ok, msg):
    print(("ok   " if ok else "FAIL ") + msg)
    if not ok:
        failures.append(msg)


def srt_table(pcap, version, *opts):
    """{procedure name: SRT calls} from tshark -z rpc,srt,100003,VERSION."""
    out = subprocess.run(["tshark", "-n", *opts, "-q", "-r", pcap, "-z", "rpc,srt,100003,%d" % version],
                         check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    return {m.group(1).lower(): int(m.group(2))
            for m in re.finditer(r"^\s*\d+\s+([A-Z_0-9]+)\s+(\d+)\s", out, re.M)}


def dup_replies(pcap):
    """The NFS replies tshark marks as duplicates: the frames of the replies they repeat."""
    out = subprocess.run(["tshark", "-n", "-r", pcap, "-Y", "rpc.reply.dup && rpc.program == 100003",
                          "-T", "fields", "-e", "rpc.reply.dup"],
                         check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    return [f for line in out.split() for f in line.split(",")]


def srt_check(script, report, pcap, version, workdir, name):
    path = os.path.join(workdir, name + ".json")
    with open(path, "w") as fh:
        json.dump(report, fh)
    p = subprocess.run([sys.executable, script, path, pcap, "--version", str(version)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(p.stdout.rstrip())
    return p.returncode


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    nfsscope, repo, workdir = sys.argv[1:]
    if not shutil.which("tshark"):
        print("SKIP: bench_srt_check: tshark is not installed")
        return 77
    os.makedirs(workdir, exist_ok=True)
    script = os.path.join(repo, "bench", "srt-check")
    samples = os.path.join(repo, "samples")

    pcap = os.path.join(samples, "lossy-cms.pcap")
    with open(os.path.join(samples, "lossy-cms.expect.json")) as fh:
        client = {k: v["calls"] for k, v in json.load(fh)["nfs3"]["ops"].items() if v["calls"]}
    default = srt_table(pcap, 3)
    dups = dup_replies(pcap)
    over = {k: default.get(k, 0) - client.get(k, 0) for k in set(default) | set(client)
            if default.get(k, 0) != client.get(k, 0)}
    check(sum(over.values()) == len(dups) > 0 and min(over.values()) > 0,
          "lossy-cms: default SRT minus the client's record %s = the %d replies tshark marks duplicate"
          % (over, len(dups)))
    ooo = srt_table(pcap, 3, "-o", "tcp.reassemble_out_of_order:TRUE")
    check(ooo == client, "lossy-cms: SRT with tcp.reassemble_out_of_order equals the client's record")

    report = json.loads(subprocess.run([nfsscope, "-r", pcap, "-o", "json"], check=True,
                                       stdout=subprocess.PIPE).stdout)
    ours = {k: v["calls"] for k, v in report["nfs3"]["ops"].items() if v["calls"]}
    check(ours == client, "lossy-cms: nfsscope's calls equal the client's record")
    check(srt_check(script, report, pcap, 3, workdir, "lossy") == 0,
          "srt-check accepts nfsscope on lossy-cms (SRT minus duplicates)")
    proc = max(over, key=over.get)
    naive = json.loads(json.dumps(report))
    for k, v in over.items():
        for f in ("calls", "replies"):
            naive["nfs3"]["ops"][k][f] += v
    check(srt_check(script, naive, pcap, 3, workdir, "naive") == 1,
          "srt-check rejects a report that counts the duplicate replies as calls")
    off = json.loads(json.dumps(report))
    off["nfs3"]["ops"][proc]["calls"] -= 1
    check(srt_check(script, off, pcap, 3, workdir, "off") == 1,
          "srt-check rejects a report one %s call short" % proc)

    pcap4 = os.path.join(samples, "nfs41-session.pcap")
    rep4 = json.loads(subprocess.run([nfsscope, "-r", pcap4, "-o", "json"], check=True,
                                     stdout=subprocess.PIPE).stdout)
    check(srt_check(script, rep4, pcap4, 4, workdir, "v4") == 0,
          "srt-check accepts nfsscope's NULL and COMPOUND calls on nfs41-session")
    rep4["nfs4"]["compound"]["calls"] += 1
    check(srt_check(script, rep4, pcap4, 4, workdir, "v4-off") == 1,
          "srt-check rejects a COMPOUND count one off")

    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("bench_srt_check: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
