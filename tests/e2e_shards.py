#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_shards.py: connections decoded by several threads (--threads N
--no-findings, src/shards.h).

- every sample and every public capture gives byte-identical reports (JSON;
  text with every breakdown; CSV) with one decoding thread (--threads 1)
  and with 2, 3 and 4 (the .bz2 captures read as they are, which the
  builtin reader decompresses: every thread reads them); so does
  nfs41-deleg.pcap merged with a copy of itself on other addresses
  (e2e_nfs4_servers.py: two servers' NFSv4 state with the same
  identifiers; skipped without tcprewrite, editcap and mergecap);
- a synthetic capture of one client with a TCP connection to each of 8
  servers (which pipeline_test shows land on at least two shards for 2, 3
  and 4 threads): one client row holding every call the generator made,
  one row per server with that server's, the same with every thread count;
- the decoding threads are there: N-1 threads named "decode" besides the
  main one (strace's prctl log; skipped without strace), and none with the
  findings on, from standard input, with --records or -w (e2e_threads
  checks --threads' range).

usage: e2e_shards.py [--json-only] NFSSCOPE SAMPLES_DIR PUBLIC_PCAPS_DIR WORK_DIR
  --json-only: JSON reports only and 2 and 3 threads (scripts/check's
  ThreadSanitizer build, where every run is slow)
"""
import glob
import json
import os
import shutil
import subprocess
import sys

from checks import check, finish, json_only_args, skip_part
import pcapsyn as ps
from e2e_nfs4_servers import merged_capture

ENV = dict(os.environ, NFSSCOPE_HASH_SEED="7")


def run(nfsscope, args, **kw):
    return subprocess.run([nfsscope, *args], capture_output=True, timeout=600, env=ENV, **kw)


def captures(samples, public):
    caps = sorted(glob.glob(os.path.join(samples, "*.pcap")) +
                  glob.glob(os.path.join(samples, "*.pcapng")))
    if not os.path.isdir(public):
        skip_part(f"public captures: {public} is absent (samples only)", ci_required=True)
        return caps
    return caps + sorted(glob.glob(os.path.join(public, "*.pcap*")))


def one_client_eight_servers(path):
    """10.9.0.1 calls GETATTR on each of 10.9.1.1 .. 10.9.1.8, 3 + i times
    on server i (one TCP connection each, interleaved); every call answered
    (NFS3ERR_NOENT). Returns the calls per server address."""
    frames, conns, want = [], [], {}
    for i in range(8):
        srv = f"10.9.1.{i + 1}"
        conns.append(ps.TcpConn(frames, cli=("10.9.0.1", 700 + i), srv=(srv, 2049),
                                isn=(1000 * i + 1, 50000 + i)))
        want[srv] = 3 + i
    xid = 0x5000
    for rnd in range(3 + 7):
        for i, c in enumerate(conns):
            if rnd >= 3 + i:
                continue
            xid += 1
            call = ps.rpc_call(xid, ps.NFS_PROG, 3, 1, ps.fh3(b"FH%d" % i))
            c.send(0, ps.record(call))
            c.send(1, ps.record(ps.rpc_reply(xid, ps.nfs3_getattr_res_err(2))))
    ps.write_pcap(path, frames)
    return want


# LeakSanitizer cannot run under ptrace (an ASan build under strace).
TRACED = dict(ENV, ASAN_OPTIONS="detect_leaks=0")


def decode_threads(nfsscope, args, work):
    """Threads that named themselves "decode" in a run (strace -f)."""
    log = os.path.join(work, "strace.log")
    p = subprocess.run(["strace", "-f", "-qq", "-e", "trace=prctl", "-o", log, nfsscope, *args],
                       capture_output=True, timeout=600, env=TRACED)
    if p.returncode != 0:
        return -1
    with open(log, errors="replace") as f:
        return sum('"decode"' in line for line in f)


def main():
    parsed = json_only_args(sys.argv[1:], 4)
    if not parsed:
        print(__doc__)
        return 2
    json_only, (nfsscope, samples, public, work) = parsed
    os.makedirs(work, exist_ok=True)
    modes = [["-o", "json"]]
    shards = [2, 3] if json_only else [2, 3, 4]
    if not json_only:
        modes += [["-o", "text", "--by", "client,server,pair,export,file,user"], ["-o", "csv"]]
    caps = captures(samples, public)
    check(len(caps) >= 12, f"{len(caps)} captures found")
    if all(shutil.which(p) for p in ("tcprewrite", "editcap", "mergecap")):
        caps.append(merged_capture(os.path.join(samples, "nfs41-deleg.pcap"), work))
    else:
        skip_part("two NFSv4 servers: tcprewrite, editcap or mergecap absent")
    for cap in caps:
        name = os.path.basename(cap)
        for mode in modes:
            one = run(nfsscope, ["-r", cap, "--no-findings", "--threads", "1", *mode])
            check(len(one.stdout) > 100, f"{name} {mode[1]}: a report")
            for n in shards:
                more = run(nfsscope, ["-r", cap, "--no-findings", "--threads", str(n), *mode])
                check(one.returncode == more.returncode,
                      f"{name} {mode[1]}: exit {one.returncode} vs {more.returncode} ({n} threads)")
                check(one.stdout == more.stdout, f"{name} {mode[1]}: --threads 1 and {n} differ")
                check(one.stderr == more.stderr, f"{name} {mode[1]}: stderr differs ({n} threads)")

    syn = os.path.join(work, "one-client-eight-servers.pcap")
    want = one_client_eight_servers(syn)
    base = None
    for n in [1] + shards:
        p = run(nfsscope, ["-r", syn, "--no-findings", "--threads", str(n), "-o", "json"])
        check(p.returncode == 0, f"synthetic, {n} threads: exit {p.returncode}")
        rep = json.loads(p.stdout)
        bd = rep["breakdowns"]
        clients = {r["key"]: r["calls"] for r in bd["client"]["rows"]}
        servers = {r["key"]: r["calls"] for r in bd["server"]["rows"]}
        check(clients == {"10.9.0.1": sum(want.values())},
              f"synthetic, {n} threads: client rows {clients}, expected one of {sum(want.values())}")
        check(servers == want, f"synthetic, {n} threads: server rows {servers}")
        check(rep["rpc"]["calls"] == rep["rpc"]["replies"] == sum(want.values()),
              f"synthetic, {n} threads: calls {rep['rpc']['calls']}")
        if base is None:
            base = p.stdout
        check(p.stdout == base, f"synthetic: --threads 1 and {n} differ")

    if shutil.which("strace") is None:
        skip_part("decoding threads: no strace")
    else:
        cap = os.path.join(samples, "ls-storm.pcap")
        for n in shards:
            got = decode_threads(nfsscope, ["-r", cap, "--no-findings", "--threads", str(n)], work)
            check(got == n - 1, f"--threads {n} --no-findings: {got} decoding threads, expected {n - 1}")
        rec = os.path.join(work, "records.jsonl")
        wp = os.path.join(work, "out.pcap")
        for extra in (["--threads", "3"], ["--threads", "2", "--no-findings", "--records", rec],
                      ["--threads", "2", "--no-findings", "-w", wp]):
            got = decode_threads(nfsscope, ["-r", cap, *extra], work)
            check(got == 0, f"{' '.join(extra)}: {got} decoding threads, expected 0")
        with open(cap, "rb") as f:
            got = subprocess.run(["strace", "-f", "-qq", "-e", "trace=prctl", nfsscope, "-r", "-",
                                  "--no-findings", "--threads", "4"], stdin=f, env=TRACED,
                                 capture_output=True, timeout=600)
        check(got.returncode == 0 and got.stderr.count(b'"decode"') == 0,
              "standard input: one decoding thread")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
