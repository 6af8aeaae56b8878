#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_public.py: nfsscope against tshark's truth on the public captures.

For every capture in ../shared/pcaps/public whose truth file lists no
warnings, nfsscope's NFSv3 per-procedure calls, replies, error statuses and
WRITE stable_how counts must equal tshark's, and latency min/mean/max must
agree to within rounding (tshark's rpc.time and ours use the same packets).
The same holds for every other program nfsscope decodes (NFSv2, MOUNT,
portmap/rpcbind, NLM, NSM, NFS_ACL: see OTHER_PROGRAMS): per procedure,
calls, replies, unanswered calls, error statuses (tshark's names mapped to
ours), RPC-level errors and latency; a program tshark does not list must
have no calls in nfsscope either. This holds on every capture with a truth
file, warnings or not, unless pinned in PINNED_OTHER.
Where the truth has warnings (tshark's view is incomplete) the procedures it
misses are checked against an oracle outside nfsscope instead (ORACLES:
tcpdump, a byte scan of the streams, IP headers, tshark's own fields), and
every other procedure of that capture against tshark as usual.
Latency min and max are exact values: equal to tshark's to the microsecond.
Every capture, malformed ones included, must run to completion (exit 0) and
produce a valid report.

usage: e2e_public.py NFSSCOPE PCAP_DIR [NFSSCOPE_OPTION...]
  NFSSCOPE_OPTION: added to every run (--threads 3 --no-findings: the
  connections on three decoding threads); with options, a .bz2 capture is
  read as it is (the builtin reader decompresses it), not from a pipe
Exit 77 (ctest: skipped) when PCAP_DIR, tcpdump or tshark is absent; under CI
(CI=true) that is a failure instead.
"""
import json
import os
import shutil
import subprocess
import sys

import wire_oracle

PROCS = ["null", "getattr", "setattr", "lookup", "access", "readlink", "read", "write",
         "create", "mkdir", "symlink", "mknod", "remove", "rmdir", "rename", "link",
         "readdir", "readdirplus", "fsstat", "fsinfo", "pathconf", "commit"]

# Captures whose truth carries warnings (tshark's view is incomplete there).
# Each is checked against an oracle outside nfsscope instead (tests/
# wire_oracle.py: tcpdump's per-packet lines, a byte scan of the TCP payloads
# for RPC record heads, the IP fragment headers, tshark with other
# preferences). ORACLES[name] = (procedures the oracle covers, check): the
# covered procedures' calls, replies and statuses come from the oracle; every
# other procedure of that capture is compared with tshark as usual.


def oracle_1_packet(path, rep):
    """One frame: the first IP fragment of a UDP WRITE call whose other
    fragments are missing. tshark decodes only complete datagrams; tcpdump
    prints the request from its first fragment, and nfsscope counts it."""
    t = wire_oracle.Tcpdump(path)
    yield "nfs3.ops.write.calls", t.count("write"), "tcpdump"
    yield "nfs3.ops.write.replies", t.replies("write"), "tcpdump"
    yield "rpc.unanswered_calls", t.unanswered(), "tcpdump"
    yield "anomalies.ipfrag_expired", wire_oracle.ipv4_incomplete_datagrams(path), "IP headers"


def oracle_udp_retransm(path, rep):
    """UDP WRITEs with IP fragments and client retransmissions. tshark counts
    each call message (retransmissions too) as a call; the contract counts a
    call once (per client port and XID) and a retransmission apart. tcpdump
    prints one line per call message (from its first fragment) and per reply;
    the latencies are tshark's rpc.time (its srt table), which times the same
    packets as long as the call was not lost."""
    t = wire_oracle.Tcpdump(path)
    yield "nfs3.ops.write.calls", t.count("write"), "tcpdump"
    yield "nfs3.ops.write.replies", t.replies("write"), "tcpdump"
    yield "rpc.retransmissions", t.retransmissions, "tcpdump"
    yield "rpc.duplicate_replies", t.duplicates, "tcpdump"
    yield "rpc.unanswered_calls", t.unanswered(), "tcpdump"
    yield "rpc.orphan_replies", t.orphans, "tcpdump"
    yield "anomalies.ipfrag_expired", wire_oracle.ipv4_incomplete_datagrams(path), "IP headers"
    # stable_how and committed: tshark decoding each first fragment alone
    # (ip.defragment off), once per XID as the contract counts calls.
    stable, committed, calls = {}, {}, set()
    for xid, typ, st, co in wire_oracle.tshark_fields(
            path, ["rpc.xid", "rpc.msgtyp", "nfs.write.stable", "nfs.write.committed"],
            ["ip.defragment:FALSE"]):
        if typ == "0" and st:
            stable.setdefault(xid, int(st))
            calls.add(xid)
        elif typ == "1" and co and xid in calls:
            committed.setdefault(xid, int(co))
    for i, name in enumerate(wire_oracle.STABLE):
        yield f"nfs3.write.stable.{name}", list(stable.values()).count(i), "tshark, no defrag"
        yield f"nfs3.write.committed.{name}", list(committed.values()).count(i), "tshark, no defrag"


def oracle_bad_alloc(path, rep):
    """A storm of MKDIR + ACCESS over TCP/IPv6 with a corrupt server segment
    (SYN+PSH inside the running stream at an old sequence number) and an
    RST-with-data frame: tshark takes the first for a new session and loses
    the records after both. A receiver drops a SYN inside a synchronised
    stream (RFC 9293 §3.10.7.4) and RST data is not stream data; tcpdump
    prints every request and reply (one per segment here), and the byte scan
    of the stream finds the same."""
    t, s = wire_oracle.Tcpdump(path), wire_oracle.tcp_scan(path)
    for proc in ("access", "mkdir"):
        yield f"nfs3.ops.{proc}.calls", t.count(proc), "tcpdump"
        yield f"nfs3.ops.{proc}.replies", t.replies(proc), "tcpdump"
        yield f"nfs3.ops.{proc}.calls", s.count(proc), "byte scan"
        yield f"nfs3.ops.{proc}.replies", s.replies(proc), "byte scan"
    yield "rpc.unanswered_calls", t.unanswered(), "tcpdump"
    yield "rpc.orphan_replies", t.orphans, "tcpdump"


def oracle_json_analyzer(path, rep):
    """REMOVE 0x82e7df93: the server's first reply was not captured; the
    client retransmitted the call segment and the server resent its reply
    after an ACK at a later sequence number. tshark loses that reply
    ("previous segment not captured"); tcpdump prints it, and its latency is
    the time from the call's first segment to that reply. min/max are exact
    values: compared exactly."""
    t, s = wire_oracle.Tcpdump(path), wire_oracle.tcp_scan(path)
    yield "nfs3.ops.remove.calls", s.count("remove"), "byte scan"
    yield "nfs3.ops.remove.replies", s.replies("remove"), "byte scan"
    yield "nfs3.ops.remove.replies", t.replies("remove"), "tcpdump"
    lat = t.latencies("remove")
    yield "nfs3.ops.remove.latency_us.max", max(lat), "tcpdump times"
    yield "nfs3.ops.remove.latency_us.min", min(lat), "tcpdump times"
    yield "nfs3.ops.remove.latency_us.count", len(lat), "tcpdump"
    yield "rpc.unanswered_calls", len(s.unanswered()), "byte scan"


class Near:
    """An oracle's value that nfsscope's must equal within rel (relative) or
    abs_us (absolute): percentiles read from a histogram, microsecond rounding."""

    def __init__(self, want, rel, abs_us=0.0):
        self.want, self.rel, self.abs = want, rel, abs_us

    def __eq__(self, got):
        return got is not None and abs(got - self.want) <= max(self.abs, self.rel * self.want)

    def __ne__(self, got):
        return not self.__eq__(got)

    def __repr__(self):
        return f"{self.want:.1f} (within {max(self.abs, self.rel * self.want):.1f})"


def oracle_seq_overlap(path, rep):
    """6,169 WRITE call heads whose records are partly missing from the
    capture: tshark reassembles none of them (it shows 6,168 replies without
    calls). The byte scan finds every call head and every reply head; 6,168
    calls are answered, and the last head, in the last client frame, starts a
    record the capture ends inside: nfsscope counts that one as a message cut
    short (rpc_truncated), not as a call. The WRITE latencies are timed from
    the scan's record ends."""
    s = wire_oracle.tcp_scan(path)
    for proc in wire_oracle.NFS3_PROCS:
        yield f"nfs3.ops.{proc}.replies", s.replies(proc), "byte scan"
        yield f"nfs3.ops.{proc}.calls", s.replies(proc), "byte scan (answered heads)"
    yield ("rpc.unanswered_calls+anomalies.rpc_truncated", len(s.unanswered()),
           "byte scan (unanswered heads)")
    answered = {k: v for k, v in s.stable.items() if k in s.replied}
    yield ("nfs3.write.stable.UNSTABLE",
           sum(1 for v in answered.values() if v == 0), "byte scan (stable_how)")
    yield "rpc.orphan_replies", 0, "byte scan (every reply has a call head)"
    # The WRITE latencies, timed from the frames that carry each record's last
    # byte (rpc.time's definition); a few calls lost their last byte, so the
    # percentiles are compared within the histogram's 3 % and the maximum to
    # the microsecond.
    lat = wire_oracle.tcp_scan_latencies(path, "write")
    known = sorted(v * 1e6 for v in lat if v is not None)
    yield "nfs3.ops.write.latency_us.count", len(lat), "byte scan (answered WRITEs)"
    yield ("nfs3.ops.write.latency_us.p50", Near(known[len(known) // 2], 0.03),
           "byte scan frame times")
    yield ("nfs3.ops.write.latency_us.p90", Near(known[len(known) * 9 // 10], 0.03),
           "byte scan frame times")
    yield "nfs3.ops.write.latency_us.max", Near(known[-1], 0, 0.5), "byte scan frame times"


def oracle_mixed(path, rep):
    """Mixed NFSv3/v4/CIFS with 134 frames cut by the snapshot length and
    missing segments. tshark drops every record that touches them (7,055
    WRITE calls); the byte scan finds every NFSv3 record head in the stream
    (7,077 WRITE calls, 7,076 answered), as nfsscope does by keeping each
    record's head and skipping the lost payload. Every procedure: calls and
    replies from the scan."""
    s = wire_oracle.tcp_scan(path)
    for proc in wire_oracle.NFS3_PROCS:
        yield f"nfs3.ops.{proc}.calls", s.count(proc), "byte scan"
        yield f"nfs3.ops.{proc}.replies", s.replies(proc), "byte scan"


def oracle_bad_stable_how(path, rep):
    """Zeek's copy with a scrambled WRITE reply: tshark's own field shows
    committed = 1128481603, not a stable_how (RFC 1813 §3.3.7). nfsscope
    counts the reply, not the impossible value, and an nfs_decode_error."""
    rows = wire_oracle.tshark_fields(path, ["nfs.write.committed"],
                                     ["tcp.desegment_tcp_streams:TRUE"])
    vals = [int(v) for r in rows for v in r[0].split(",") if v]
    yield "nfs3.ops.write.replies", len(vals), "tshark nfs.write.committed"
    for i, name in enumerate(wire_oracle.STABLE):
        yield f"nfs3.write.committed.{name}", sum(1 for v in vals if v == i), "tshark"
    yield "anomalies.nfs_decode_error", sum(1 for v in vals if v > 2), "tshark"


# name -> (procedures whose counts come from the oracle, not tshark; the
# oracle; does the oracle also cover WRITE stable_how/committed?)
ORACLES = {
    "nfstrace-1-packet.pcap": ({"write"}, oracle_1_packet, True),
    "nfstrace-eth-ipv4-udp-nfsv3-dup-retransm.pcap": ({"write"}, oracle_udp_retransm, True),
    "nfstrace-eth-ipv6-tcp-nfsv3-bad_alloc.pcap": ({"access", "mkdir"}, oracle_bad_alloc, False),
    "nfstrace-json-analyzer-trace.pcap": ({"remove"}, oracle_json_analyzer, False),
    "nfstrace-tcp-seq-overlap-in-fragment-12721.pcap.bz2":
        (set(wire_oracle.NFS3_PROCS), oracle_seq_overlap, True),
    "nfstrace-eth-ipv4-tcp-nfsv3-4-41-cifs1-2.pcap.bz2":
        (set(wire_oracle.NFS3_PROCS), oracle_mixed, True),
    "zeek-nfs_write_bad_stable_how.pcap": ({"write"}, oracle_bad_stable_how, True),
}

# Captures whose truth has warnings that do not touch NFSv3 (only tshark's
# no-reassembly view differs, or a frame of another protocol is malformed):
# compared with tshark like the clean ones.
TRUTH_DESPITE_WARNINGS = {
    "nfstrace-2sessions-tcp-wsize32k-tcp-wsize512k.pcap.bz2",
    "nfstrace-eth-ipv4-tcp-nfsv3.pcap.bz2",
    "nfstrace-eth-ipv4-udp-nfsv3-reply-first.pcap",
    "nfstrace-eth-ipv6-tcp-nfsv3.pcap.bz2",
    "zeek-nfs_write.pcap",
    # NFSv4 only: the warnings are about v4 records; no NFSv3 on either side.
    "nfstrace-eth-ipv4-tcp-nfsv4.pcap.bz2",
    "tcpdump-nfs-v4.pcap",
    # Portmap only (its stress of 5,000 unanswered calls is compared below).
    "zeek-portmapper-many-unanswered-calls.pcapng",
    # Fuzzer and crafted inputs: no complete NFSv3 message for tshark, and
    # none for nfsscope (tcpdump prints a request from a header whose
    # credential is longer than RFC 5531's 400 bytes, or cut by the snapshot
    # length: counted as anomalies, not calls).
    "tcpdump-hoobr_nfs_printfh.pcap",
    "tcpdump-hoobr_nfs_xid_map_enter.pcap",
    "tcpdump-nfs-attr-oobr.pcap",
    "tcpdump-nfs-cannot-pad-32-bit.pcap",
    "tcpdump-nfs-seg-fault-1.pcapng",
    "tcpdump-nfs_large_credentials_length.pcap",
    "tcpdump-unaligned-nfs-1.pcap",
}

# tshark's (program, version) in the truth's "other_rpc" (or a top-level
# section, for NFSv2) -> the nfsscope program that decodes it.
OTHER_PROGRAMS = {
    ("nfs2", None): "nfs2",
    ("mount", "v1"): "mount1", ("mount", "v2"): "mount2", ("mount", "v3"): "mount3",
    ("portmap", "v2"): "portmap2", ("portmap", "v3"): "rpcbind3", ("portmap", "v4"): "rpcbind4",
    ("nlm", "v1"): "nlm1", ("nlm", "v3"): "nlm3", ("nlm", "v4"): "nlm4",
    ("status", "v1"): "nsm1",
    ("nfs_acl", "v2"): "nfsacl2", ("nfs_acl", "v3"): "nfsacl3",
}

# Status names tshark gives (its value_strings: tshark -G values) that are
# not ours, by nfsscope program; a name missing here is mapped by rule (see
# our_status). None: the status-0 name, not an error.
_MNT_ERR = {"ERR_PERM": 1, "ERR_NOENT": 2, "ERR_IO": 5, "ERR_ACCESS": 13, "ERR_NOTDIR": 20,
            "ERR_INVAL": 22, "ERR_NAMETOOLONG": 63, "ERR_NOTSUPP": 10004,
            "ERR_SERVERFAULT": 10006}
_MNT1_NAMES = {1: "EPERM", 2: "ENOENT", 5: "EIO", 13: "EACCES", 20: "ENOTDIR", 22: "EINVAL",
               63: "ENAMETOOLONG"}
_NFS2_RFC = {"PERM", "NOENT", "IO", "NXIO", "ACCES", "EXIST", "NODEV", "NOTDIR", "ISDIR", "FBIG",
             "NOSPC", "ROFS", "NAMETOOLONG", "NOTEMPTY", "DQUOT", "STALE", "WFLUSH"}
_NFS2_OTHER = {"EAGAIN": 11, "XDEV": 18, "INVAL": 22, "TXTBSY": 26, "MLINK": 31, "OPNOTSUPP": 45,
               "REMOTE": 71, "BADHANDLE": 10001, "NOT_SYNC": 10002, "BAD_COOKIE": 10003,
               "NOTSUPP": 10004, "TOOSMALL": 10005, "SERVERFAULT": 10006, "BADTYPE": 10007,
               "JUKEBOX": 10008}
_NLM_STAT = ["GRANTED", "DENIED", "DENIED_NOLOCKS", "BLOCKED", "DENIED_GRACE_PERIOD", "DEADLCK",
             "ROFS", "STALE_FH", "BIG", "FAILED"]


def our_status(prog, name):
    """nfsscope's name for tshark's status name; None for the OK value."""
    if name.startswith("Unknown("):
        return name.replace("Unknown(", "unknown(")
    if prog == "mount3":
        if name == "OK":
            return None
        return "MNT3" + name.replace("ERR_ACCESS", "ERR_ACCES") if name in _MNT_ERR else name
    if prog in ("mount1", "mount2"):
        if name == "OK":
            return None
        v = _MNT_ERR.get(name)
        return _MNT1_NAMES.get(v, f"unknown({v})") if v is not None else name
    if prog in ("nfs2", "nfsacl2"):
        if name == "NFS_OK":
            return None
        x = name[len("NFS2ERR_"):] if name.startswith("NFS2ERR_") else None
        if x in _NFS2_RFC:
            return "NFSERR_" + x
        return f"unknown({_NFS2_OTHER[x]})" if x in _NFS2_OTHER else name
    if prog == "nfsacl3":
        return None if name == "NFS3_OK" else name
    if prog.startswith("nlm"):
        x = name[len("NLM_"):] if name.startswith("NLM_") else None
        if x not in _NLM_STAT:
            return name
        v = _NLM_STAT.index(x)
        if v == 0:
            return None
        if prog == "nlm4":
            return "NLM4_" + ("FBIG" if x == "BIG" else x)
        return "LCK_" + x if v <= 5 else f"unknown({v})"
    if prog == "nsm1":
        return None if name == "STAT_SUCC" else name
    return name


def other_sections(truth):
    """{nfsscope program: tshark's per-procedure table} for OTHER_PROGRAMS."""
    out = {}
    if truth.get("nfs2"):
        out["nfs2"] = truth["nfs2"]
    for tprog, versions in (truth.get("other_rpc") or {}).items():
        for vers, table in versions.items():
            ours = OTHER_PROGRAMS.get((tprog, vers))
            if ours:
                out[ours] = table
    return out


# The other programs are compared on every capture with a truth file, those
# with warnings included: each warning was checked and none touches them
# (tshark's losses there are NFSv3/v4 records; its MOUNT, portmap, NSM,
# NFS_ACL and NFSv2 tables equal nfsscope's). Where tshark's view of another
# program is incomplete, nfsscope's numbers go here instead, pinned with the
# reason (paths into the report, as in PINNED).
PINNED_OTHER = {}

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)


def run(nfsscope, path, extra=()):
    if extra:
        return subprocess.run([nfsscope, "-o", "json", "-r", path, *extra], capture_output=True,
                              timeout=600)
    if path.endswith(".bz2"):
        bz = subprocess.Popen(["bzip2", "-dc", path], stdout=subprocess.PIPE)
        p = subprocess.run([nfsscope, "-o", "json", "-r", "-"], stdin=bz.stdout,
                           capture_output=True, timeout=600)
        bz.stdout.close()
        bz.wait()
    else:
        p = subprocess.run([nfsscope, "-o", "json", "-r", path], capture_output=True, timeout=600)
    return p


def lat_close(ours, theirs_s, exact):
    """min/max: the same microsecond; mean: to within rounding."""
    tv = theirs_s * 1e6
    if ours is None:
        return False
    return abs(ours - tv) <= 0.5 + 1e-6 if exact else abs(ours - tv) <= 1.0 + 0.005 * tv


def compare_truth(name, rep, truth, covered=frozenset(), write_covered=False):
    """NFSv3 per procedure against tshark, but for the `covered` procedures
    (and WRITE stable_how/committed when write_covered), which an oracle
    checks instead."""
    t3 = truth.get("nfs3") or {}
    ops = rep["nfs3"]["ops"]
    for proc in PROCS:
        if proc in covered:
            continue
        t = t3.get(proc.upper()) or {"calls": 0, "replies": 0, "status": None, "srt": None}
        o = ops[proc]
        if o["calls"] != t["calls"]:
            fail(f"{name}: {proc} calls {o['calls']} != tshark {t['calls']}")
        if o["replies"] != t["replies"]:
            fail(f"{name}: {proc} replies {o['replies']} != tshark {t['replies']}")
        # Values with no RFC name: tshark writes "Unknown(N)", nfsscope "unknown(N)".
        terr = {k.replace("Unknown(", "unknown("): v
                for k, v in (t.get("status") or {}).items() if k != "NFS3_OK"}
        if o.get("status", {}) != terr:
            fail(f"{name}: {proc} error statuses {o.get('status')} != tshark {terr}")
        srt = t.get("srt")
        lat = o["latency_us"]
        if srt and srt.get("n"):
            if lat["count"] != srt["n"]:
                fail(f"{name}: {proc} latency count {lat['count']} != tshark {srt['n']}")
            for ours, theirs in (("min", "min_s"), ("max", "max_s"), ("mean", "mean_s")):
                if not lat_close(lat[ours], srt[theirs], ours != "mean"):
                    fail(f"{name}: {proc} latency {ours} {lat[ours]} us"
                         f" != tshark {srt[theirs] * 1e6:.1f} us")
    if write_covered:
        return
    ws = truth.get("write_stable_how_in_calls")
    if ws and rep["nfs3"]["write"]["stable"] != ws:
        fail(f"{name}: write stable_how {rep['nfs3']['write']['stable']} != tshark {ws}")
    wc = truth.get("write_committed_in_replies")
    if wc and rep["nfs3"]["write"]["committed"] != wc:
        fail(f"{name}: write committed {rep['nfs3']['write']['committed']} != tshark {wc}")


def compare_other(name, rep, truth):
    """Every program in OTHER_PROGRAMS against tshark's table (absent: no calls)."""
    tables = other_sections(truth)
    for prog in sorted(set(OTHER_PROGRAMS.values())):
        if prog not in rep:
            fail(f"{name}: report lacks program {prog}")
            continue
        table = {k.lower(): v for k, v in (tables.get(prog) or {}).items()}
        ops = rep[prog]["ops"]
        for proc in sorted(set(table) - set(ops)):
            fail(f"{name}: {prog}: tshark lists {proc}, which nfsscope does not name")
        for proc, o in ops.items():
            t = table.get(proc) or {"calls": 0, "replies": 0, "unanswered_calls": 0,
                                    "status": None, "srt": None}
            for ours, theirs in (("calls", "calls"), ("replies", "replies"),
                                 ("unanswered", "unanswered_calls")):
                if o[ours] != t[theirs]:
                    fail(f"{name}: {prog} {proc} {ours} {o[ours]} != tshark {t[theirs]}")
            terr, rpc_err = {}, 0
            for k, v in (t.get("status") or {}).items():
                if k.startswith("RPC:"):  # accept_stat/reject_stat: our rpc_errors
                    rpc_err += v
                    continue
                k = our_status(prog, k)
                if k is not None:
                    terr[k] = terr.get(k, 0) + v
            if o.get("status", {}) != terr:
                fail(f"{name}: {prog} {proc} error statuses {o.get('status')} != tshark {terr}")
            if o["rpc_errors"] != rpc_err:
                fail(f"{name}: {prog} {proc} rpc_errors {o['rpc_errors']} != tshark {rpc_err}")
            srt, lat = t.get("srt"), o["latency_us"]
            if srt and srt.get("n"):
                if lat["count"] != srt["n"]:
                    fail(f"{name}: {prog} {proc} latency count {lat['count']} != tshark {srt['n']}")
                    continue
                for ours, theirs in (("min", "min_s"), ("max", "max_s"), ("mean", "mean_s")):
                    if not lat_close(lat[ours], srt[theirs], ours != "mean"):
                        fail(f"{name}: {prog} {proc} latency {ours} {lat[ours]} us"
                             f" != tshark {srt[theirs] * 1e6:.1f} us")
            elif lat["count"] and o["replies"]:
                fail(f"{name}: {prog} {proc} has {lat['count']} latencies, tshark none")


def value(rep, path):
    """A report value by dotted path; "a+b" adds two."""
    total = 0
    for part in path.split("+"):
        cur = rep
        for k in part.split("."):
            cur = cur[k]
        total += cur
    return total


def compare_oracle(name, path, rep):
    covered, oracle, write_covered = ORACLES[name]
    n = 0
    for key, want, source in oracle(path, rep):
        n += 1
        got = value(rep, key)
        if got != want:
            fail(f"{name}: {key} = {got}, {source} says {want}")
    if n == 0:
        fail(f"{name}: the oracle checked nothing")
    return covered, write_covered


def compare_pinned(name, rep, pin):
    for path, want in pin["expect"].items():
        cur = rep
        for k in path.split("."):
            cur = cur[k]
        if cur != want:
            fail(f"{name}: {path} = {cur}, pinned {want}")


def main():
    nfsscope, pcaps, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
    missing = [] if os.path.isdir(pcaps) else [pcaps + " (public captures)"]
    missing += [tool for tool in ("tcpdump", "tshark") if not shutil.which(tool)]
    if missing:
        print(f"{'FAIL' if os.environ.get('CI') == 'true' else 'SKIP'}: missing "
              + ", ".join(missing))
        return 1 if os.environ.get("CI") == "true" else 77
    names = sorted(f for f in os.listdir(pcaps) if f.endswith((".pcap", ".pcapng", ".bz2")))
    compared = oracled = others = 0
    for name in names:
        p = run(nfsscope, os.path.join(pcaps, name), extra)
        if p.returncode != 0:
            fail(f"{name}: exit {p.returncode}: {p.stderr.decode(errors='replace').strip()}")
            continue
        try:
            rep = json.loads(p.stdout)
        except ValueError as e:
            fail(f"{name}: report is not JSON: {e}")
            continue
        if rep.get("schema") != "nfsscope/1" or "nfs3" not in rep:
            fail(f"{name}: report lacks schema/nfs3")
            continue
        tpath = os.path.join(pcaps, "truth", name + ".json")
        if not os.path.exists(tpath):
            fail(f"{name}: no truth file {tpath}")
            continue
        truth = json.load(open(tpath))
        if name in ORACLES:
            covered, write_covered = compare_oracle(name, os.path.join(pcaps, name), rep)
            compare_truth(name, rep, truth, covered, write_covered)
            oracled += 1
        elif not truth.get("warnings") or name in TRUTH_DESPITE_WARNINGS:
            compare_truth(name, rep, truth)
            compared += 1
        else:
            fail(f"{name}: tshark's truth has warnings and no oracle covers them")
        if name in PINNED_OTHER:
            compare_pinned(name, rep, PINNED_OTHER[name])
        else:
            compare_other(name, rep, truth)
            others += 1
    print(f"{len(names)} captures run, {compared} compared with tshark,"
          f" {oracled} with an outside oracle and tshark for the rest;"
          f" other programs: {others} compared, {len(PINNED_OTHER)} pinned")
    bad = {f.split(":")[0] for f in failures}
    print(f"{len(names) - len(bad)} passed, {len(bad)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
