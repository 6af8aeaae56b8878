#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_diagnosis.py: the findings blame the cause the sample was made with,
checked against oracles outside nfsscope:

- lossy-cms (cms-page over a veth with nftables dropping ~3 % of the data
  segments, samples/generate): the drop rules' own counters say segments
  were dropped; tshark's TCP analysis (retransmission, out-of-order, lost
  segment) on each call's connection between its call and its reply frame
  says which calls waited on the network. network_loss counts exactly those
  calls, its cost is the sum of their rpc.time, and it is the top finding;
- stable-writes (every WRITE FILE_SYNC or DATA_SYNC, the generator's
  record): stable_writes is the top finding;
- cms-page and lossy-cms: negative_lookups counts the LOOKUP replies tshark
  decodes as NFS3ERR_NOENT (the generator's record: 40), and names each
  missing (directory, name) with as many repeats as tshark's calls have;
- findings are ordered by cost_us, largest first;
- the text report's first 15 lines hold the diagnosis, the top finding first.

usage: e2e_diagnosis.py NFSSCOPE SAMPLES_DIR
"""
import collections
import json
import os
import re
import subprocess
import sys

from checks import check, finish

NOENT = 2  # nfsstat3 NFS3ERR_NOENT (RFC 1813 §2.6)
PREFS = ("tcp.reassemble_out_of_order:TRUE",)


def report(nfsscope, path):
    p = subprocess.run([nfsscope, "-o", "json", "-r", path], capture_output=True, timeout=300)
    check(p.returncode == 0, f"{path}: exit {p.returncode} {p.stderr!r}")
    return json.loads(p.stdout)


def text_head(nfsscope, path, lines=15):
    p = subprocess.run([nfsscope, "-r", path], capture_output=True, timeout=300)
    check(p.returncode == 0, f"{path}: text exit {p.returncode} {p.stderr!r}")
    return p.stdout.decode(errors="replace").splitlines()[:lines]


def check_text_top(nfsscope, name, path, kind):
    """The first finding line of the diagnosis, within 15 lines, is `kind`."""
    head = text_head(nfsscope, path)
    rows = [l.split() for l in head if l.startswith("  ") and len(l.split()) > 1
            and l.split()[1].endswith("%")]
    check(rows and rows[0][0] == kind,
          f"{name}: first ranked line of the text report's first 15 is {rows[:1]}, not {kind}")


def ranked(rep):
    """The findings that carry a cost, in report order."""
    return [f for f in rep["findings"] if "cost_us" in f]


TROUBLE = ("tcp.analysis.retransmission", "tcp.analysis.fast_retransmission",
           "tcp.analysis.spurious_retransmission", "tcp.analysis.out_of_order",
           "tcp.analysis.lost_segment")


def _pairs(kv):
    return kv  # keep repeated keys (several RPC messages in one frame)


def _get(pairs, key):
    for k, v in pairs if isinstance(pairs, list) else ():
        if k == key:
            return v
    return None


def _walk(pairs):
    """Every (key, value) in a tree of pair lists."""
    if isinstance(pairs, list):
        for k, v in pairs:
            yield k, v
            yield from _walk(v)


def tshark_messages(path):
    """Per frame: (time, tcp stream, TCP analysis flagged it, [(rpc, nfs)...])
    from tshark's JSON (reassembly of out-of-order segments on)."""
    cmd = ["tshark", "-n", "-r", path, "-o", PREFS[0], "-d", "tcp.port==2049,rpc", "-T", "json",
           "-J", "frame tcp rpc nfs"]
    out = subprocess.run(cmd, capture_output=True, check=True).stdout
    frames = []
    for pkt in json.loads(out, object_pairs_hook=_pairs):
        layers = _get(_get(pkt, "_source"), "layers")
        fr, tcp = _get(layers, "frame"), _get(layers, "tcp")
        t = float(_get(fr, "frame.time_epoch"))
        stream = _get(tcp, "tcp.stream") if tcp else None
        flagged = bool(tcp) and any(k in TROUBLE for k, _ in _walk(tcp))
        msgs, cur = [], None
        for k, v in layers:
            if k == "rpc":
                cur = [v, None]
                msgs.append(cur)
            elif k == "nfs" and cur is not None and cur[1] is None:
                cur[1] = v
        frames.append((t, stream, flagged, msgs))
    return frames


def nfs_calls(frames):
    """NFS calls tshark matched to a reply: (stream, t_call, t_reply, call nfs
    tree, reply nfs tree), the first transmission of each (stream, XID)."""
    pending, done = {}, []
    for t, stream, _, msgs in frames:
        for rpc, nfs in msgs:
            if _get(rpc, "rpc.program") not in ("100003", None):
                continue
            key = (stream, _get(rpc, "rpc.xid"))
            if _get(rpc, "rpc.msgtyp") == "0":
                if _get(rpc, "rpc.program") == "100003" and key not in pending:
                    pending[key] = (t, nfs)
            elif _get(rpc, "rpc.msgtyp") == "1" and key in pending:
                tc, cn = pending.pop(key)
                done.append((stream, tc, t, cn, nfs))
    return done


def network_oracle(frames):
    """Calls whose connection had a segment tshark flags (retransmitted, out
    of order, behind a lost segment) at or after the call's frame and at or
    before its reply's: how many, and their summed latency in us."""
    trouble = collections.defaultdict(list)
    for t, stream, flagged, _ in frames:
        if flagged:
            trouble[stream].append(t)
    n, cost_us = 0, 0
    for stream, tc, tr, _, _ in nfs_calls(frames):
        if any(tc <= x <= tr for x in trouble[stream]):
            n += 1
            cost_us += round((tr - tc) * 1e6)
    return n, cost_us


def drops(path):
    return sum(int(m) for m in re.findall(r"counter packets (\d+)", open(path).read()))


def noent_oracle(frames):
    """(directory handle hash, name) -> LOOKUP calls answered NFS3ERR_NOENT."""
    c = collections.Counter()
    for _, _, _, cn, rn in nfs_calls(frames):
        if _get(cn, "nfs.procedure_v3") != "3" or rn is None:
            continue
        if dict((k, v) for k, v in _walk(rn)).get("nfs.status3") != str(NOENT):
            continue
        w = dict((k, v) for k, v in _walk(cn))
        c[(w.get("nfs.fh.hash"), w.get("nfs.name"))] += 1
    return c


def check_negative(name, rep, oracle, expect):
    fs = {f["kind"]: f for f in rep["findings"]}
    neg = fs.get("negative_lookups")
    check(neg is not None, f"{name}: negative_lookups finding")
    if not neg:
        return
    want = expect["nfs3"]["ops"]["lookup"]["status"]["NFS3ERR_NOENT"]
    check(sum(oracle.values()) == want, f"{name}: tshark NOENT {sum(oracle.values())} != "
                                        f"generator {want}")
    check(neg["count"] == want, f"{name}: negative_lookups count {neg['count']} != {want}")
    got = sorted((n["name"], n["count"]) for n in neg["evidence"]["names"])
    exp = sorted((nm, k) for (_, nm), k in oracle.items())
    check(got == exp, f"{name}: missing names {got} != tshark {exp}")
    check(all(n["status_name"] == "NFS3ERR_NOENT" for n in neg["evidence"]["names"]),
          f"{name}: status names")
    check(neg["evidence"]["failures_not_kept"] == 0, f"{name}: every failure named")


def main():
    nfsscope, samples = sys.argv[1], sys.argv[2]
    S = lambda n: os.path.join(samples, n)

    # lossy-cms: real TCP loss, made by nftables drop rules.
    path = S("lossy-cms.pcap")
    frames = tshark_messages(path)
    dropped = drops(S("lossy-cms.drops"))
    check(dropped > 0, f"lossy-cms: the drop rules dropped {dropped} segments")
    rep = report(nfsscope, path)
    top = ranked(rep)
    check(top and top[0]["kind"] == "network_loss",
          f"lossy-cms: top finding {top[0]['kind'] if top else None}, not network_loss")
    nl = {f["kind"]: f for f in top}.get("network_loss")
    n, cost = network_oracle(frames)
    print(f"lossy-cms: {dropped} segments dropped; tshark: {n} calls waited on TCP recovery, "
          f"{cost} us")
    check(n > 0, "lossy-cms: tshark sees calls delayed by retransmissions")
    if nl:
        check(nl["count"] == n, f"lossy-cms: network_loss count {nl['count']} != tshark {n}")
        check(nl["cost_us"] == cost, f"lossy-cms: network_loss cost {nl['cost_us']} != "
                                     f"tshark {cost}")
        lat = nl["evidence"]["latency_us"]
        check(lat["delayed"]["p99"] > lat["other"]["p99"],
              f"lossy-cms: delayed p99 {lat['delayed']['p99']} above the rest's")
    check_text_top(nfsscope, "lossy-cms", path, "network_loss")
    check_negative("lossy-cms", rep, noent_oracle(frames),
                   json.load(open(S("lossy-cms.expect.json"))))

    # cms-page: no loss, the failed lookups named.
    rep = report(nfsscope, S("cms-page.pcap"))
    check("network_loss" not in {f["kind"] for f in rep["findings"]},
          "cms-page: no network_loss on a clean loopback capture")
    check_negative("cms-page", rep, noent_oracle(tshark_messages(S("cms-page.pcap"))),
                   json.load(open(S("cms-page.expect.json"))))

    # stable-writes: the client forced every write stable.
    expect = json.load(open(S("stable-writes.expect.json")))
    st = expect["nfs3"]["write"]["stable"]
    check(st["UNSTABLE"] == 0 and st["FILE_SYNC"] + st["DATA_SYNC"] > 0,
          "stable-writes: the generator wrote stable only")
    for name in ("stable-writes.pcap", "lossy-cms.pcap", "cms-page.pcap", "ls-storm.pcap"):
        rep = report(nfsscope, S(name))
        costs = [f["cost_us"] for f in ranked(rep)]
        check(costs == sorted(costs, reverse=True), f"{name}: findings by cost_us {costs}")
        if name == "stable-writes.pcap":
            top = ranked(rep)
            check(top and top[0]["kind"] == "stable_writes",
                  f"stable-writes: top finding {top[0]['kind'] if top else None}")
            check_text_top(nfsscope, "stable-writes", S(name), "stable_writes")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
