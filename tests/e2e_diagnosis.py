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
  missing (directory, name) with as many repeats as tshark's calls have,
  in JSON and in the text report's finding; on all-ops, LOOKUPs that tshark
  shows refused for another reason (NOTDIR, NAMETOOLONG) are not counted;
- findings are ordered by cost_us, largest first; a call's time counts in
  one finding only: the costs add up to at most time_by_cause.total_us, the
  causes add up to it exactly, and total_us is the sum of tshark's rpc.time
  over the samples' NFS calls (an unanswered call counts 0);
- the public capture nfstrace-eth-ipv4-udp-nfsv3-dup-retransm.pcap (NFSv3
  over UDP, WRITEs sent again): rpc_retransmissions counts the calls tshark
  flags with a duplicate call (rpc.dup) before their first reply, with the
  extra transmissions and the sum of those calls' rpc.time; the report's
  rpc.retransmissions counts every duplicate call tshark flags;
- the text report's first 15 lines hold the diagnosis, the top finding first;
  its capture line counts the NFS clients and RPC servers tshark sees.

usage: e2e_diagnosis.py NFSSCOPE SAMPLES_DIR [PUBLIC_PCAPS_DIR]
"""
import collections
import json
import os
import re
import subprocess
import sys

from checks import check, finish, skip_part

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


def check_negative_text(nfsscope, name, path, oracle):
    """The text report names every missing name tshark saw answered NOENT,
    with how often it was asked for."""
    p = subprocess.run([nfsscope, "-r", path], capture_output=True, timeout=300)
    lines = p.stdout.decode(errors="replace").splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith("negative_lookups (")), None)
    check(start is not None, f"{name}: text report has a negative_lookups section")
    if start is None:
        return
    got = collections.Counter()
    for l in lines[start + 1:]:
        if not l.strip():
            break
        m = re.fullmatch(r"    .*/([^/]+): (\d+) NFS3ERR_NOENT", l)
        if m:
            got[(m.group(1), int(m.group(2)))] += 1
    exp = collections.Counter((nm, k) for (_, nm), k in oracle.items())
    check(got == exp, f"{name}: text's missing names {sorted(got.items())} != tshark "
                      f"{sorted(exp.items())}")


def check_capture_line(nfsscope, name, path):
    """The diagnosis' capture line counts the NFS clients and the RPC servers
    tshark sees calls from and to."""
    out = subprocess.run(["tshark", "-n", "-r", path, "-Y", "rpc.msgtyp == 0", "-T", "fields",
                          "-e", "ip.src", "-e", "ipv6.src", "-e", "ip.dst", "-e", "ipv6.dst",
                          "-e", "rpc.program"], capture_output=True, text=True, check=True).stdout
    clients, servers = set(), set()
    for row in out.splitlines():
        f = row.split("\t")
        src, dst = f[0] or f[1], f[2] or f[3]
        servers.add(dst)
        if "100003" in f[4].split(","):
            clients.add(src)
    line = next((l for l in text_head(nfsscope, path) if re.search(r" calls?, ", l) and "loss:" in l),
                "")
    m = re.search(r"(\d+) clients?, (\d+) servers?,", line)
    check(m is not None, f"{name}: the capture line {line!r} counts clients and servers")
    if m:
        check((int(m.group(1)), int(m.group(2))) == (len(clients), len(servers)),
              f"{name}: {m.group(0)} != tshark's {len(clients)} NFS clients, "
              f"{len(servers)} RPC servers")


def check_time_split(name, rep, frames):
    """Each call's time once: costs within the total, causes adding up to it,
    the total tshark's."""
    t = rep.get("time_by_cause")
    check(t is not None, f"{name}: time_by_cause")
    if not t:
        return
    parts = t["network_us"] + t["server_us"] + t["client_us"] + t["unexplained_us"]
    check(parts == t["total_us"], f"{name}: causes add up to {parts}, not {t['total_us']}")
    costs = sum(f["cost_us"] for f in ranked(rep))
    check(costs <= t["total_us"], f"{name}: findings cost {costs} > time in calls {t['total_us']}")
    want = sum(round((tr - tc) * 1e6) for _, tc, tr, _, _ in nfs_calls(frames))
    # rounding: nfsscope rounds each call's ns latency to us, tshark prints us
    n = len(nfs_calls(frames))
    check(abs(t["total_us"] - want) <= n, f"{name}: time in calls {t['total_us']} us, tshark "
                                          f"{want} us")
    net = sum(f["cost_us"] for f in ranked(rep) if f["kind"] in ("network_loss",
                                                                  "rpc_retransmissions"))
    check(t["network_us"] == net, f"{name}: network time {t['network_us']} != its findings' {net}")


def retrans_oracle(path):
    """From tshark over UDP: (calls resent before their first reply, extra
    transmissions before it, the sum of those calls' rpc.time in us, every
    duplicate call)."""
    cmd = ["tshark", "-n", "-r", path, "-d", "udp.port==2049,rpc", "-Y", "rpc", "-T", "fields",
           "-e", "frame.number", "-e", "rpc.xid", "-e", "rpc.msgtyp", "-e", "rpc.repframe",
           "-e", "rpc.dup", "-e", "rpc.time", "-e", "udp.srcport", "-e", "udp.dstport"]
    out = subprocess.run(cmd, capture_output=True, check=True, text=True).stdout
    first_call, first_reply, dups = {}, {}, collections.defaultdict(list)
    every_dup = 0
    for line in out.splitlines():
        fr, xid, typ, repframe, dup, rtime, sp, dp = (line.split("\t") + [""] * 8)[:8]
        if not xid:
            continue
        if typ == "0":
            key = (xid, sp)
            if dup:
                every_dup += 1
                dups[key].append(int(fr))
            elif key not in first_call:
                first_call[key] = int(fr)
        elif typ == "1" and not dup:
            key = (xid, dp)
            first_reply.setdefault(key, (int(fr), round(float(rtime) * 1e6)))
    calls = extra = cost = 0
    for key, frames in dups.items():
        rep = first_reply.get(key)
        before = [x for x in frames if rep is None or x < rep[0]]
        if before and rep:
            calls += 1
            extra += len(before)
            cost += rep[1]
    return calls, extra, cost, every_dup


def check_retrans(nfsscope, public):
    path = os.path.join(public or "", "nfstrace-eth-ipv4-udp-nfsv3-dup-retransm.pcap")
    if not public or not os.path.exists(path):
        skip_part(f"{path}: public capture missing", ci_required=True)
        return
    calls, extra, cost, every = retrans_oracle(path)
    print(f"dup-retransm: tshark: {calls} calls resent before their reply, {extra} extra "
          f"transmissions, {cost} us; {every} duplicate calls in all")
    check(calls > 0, "dup-retransm: tshark sees calls resent before their reply")
    rep = report(nfsscope, path)
    check(rep["rpc"]["retransmissions"] == every,
          f"dup-retransm: rpc.retransmissions {rep['rpc']['retransmissions']} != tshark {every}")
    rt = {f["kind"]: f for f in ranked(rep)}.get("rpc_retransmissions")
    check(rt is not None, "dup-retransm: rpc_retransmissions finding")
    if rt:
        check(rt["count"] == calls, f"dup-retransm: count {rt['count']} != tshark {calls}")
        check(rt["evidence"]["extra_transmissions"] == extra,
              f"dup-retransm: extra {rt['evidence']['extra_transmissions']} != tshark {extra}")
        check(rt["cost_us"] == cost, f"dup-retransm: cost {rt['cost_us']} != tshark {cost}")


def main():
    nfsscope, samples = sys.argv[1], sys.argv[2]
    public = sys.argv[3] if len(sys.argv) > 3 else None
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
    check_time_split("lossy-cms", rep, frames)
    check_negative("lossy-cms", rep, noent_oracle(frames),
                   json.load(open(S("lossy-cms.expect.json"))))
    check_negative_text(nfsscope, "lossy-cms", S("lossy-cms.pcap"), noent_oracle(frames))

    # cms-page: no loss, the failed lookups named.
    rep = report(nfsscope, S("cms-page.pcap"))
    check("network_loss" not in {f["kind"] for f in rep["findings"]},
          "cms-page: no network_loss on a clean loopback capture")
    frames = tshark_messages(S("cms-page.pcap"))
    check_negative("cms-page", rep, noent_oracle(frames),
                   json.load(open(S("cms-page.expect.json"))))
    check_negative_text(nfsscope, "cms-page", S("cms-page.pcap"), noent_oracle(frames))

    check_capture_line(nfsscope, "multi-client", S("multi-client.pcapng"))
    check_capture_line(nfsscope, "lossy-cms", S("lossy-cms.pcap"))

    # all-ops: tshark sees LOOKUPs refused NFS3ERR_NOTDIR and NAMETOOLONG
    # beside one NOENT; only a missing name is a negative lookup, and one is
    # below the finding's two.
    aframes = tshark_messages(S("all-ops.pcap"))
    other = sum(1 for _, _, _, cn, rn in nfs_calls(aframes)
                if _get(cn, "nfs.procedure_v3") == "3" and rn is not None
                and dict(_walk(rn)).get("nfs.status3") not in (None, "0", str(NOENT)))
    noent = sum(noent_oracle(aframes).values())
    check(other >= 2 and noent == 1, f"all-ops: tshark's LOOKUPs refused otherwise {other}, "
                                     f"NOENT {noent}")
    fs = {f["kind"] for f in report(nfsscope, S("all-ops.pcap"))["findings"]}
    check("negative_lookups" not in fs, "all-ops: no negative_lookups from NOTDIR/NAMETOOLONG")
    check_time_split("cms-page", rep, frames)
    frames = tshark_messages(S("ls-storm.pcap"))
    check_time_split("ls-storm", report(nfsscope, S("ls-storm.pcap")), frames)

    check_retrans(nfsscope, public)

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
