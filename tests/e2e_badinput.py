#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_badinput.py: hostile and broken input ("Bad input").

    e2e_badinput.py NFSSCOPE WORKDIR

Every capture is built here (tests/pcapsyn.py), nothing is committed.

1. Broken captures and packets: truncated files (pcap and pcapng), a pcap
   header with a lying snaplen, zero-length and giant frames, captured length
   over the wire length, timestamps going backwards, non-NFS traffic on port
   2049, RPC and NFS with absurd lengths, credentials and file handles over
   their RFC limits. Each: the run finishes, exit 0, nothing on stderr, the
   anomaly is counted in the JSON report and listed in the text report's
   "capture quality" footer, and the good traffic around it is still counted.
2. Files that cannot be read: not a capture, empty, a directory, unreadable
   (chmod 000 when not root), missing: one line on stderr naming the file,
   exit 1, nothing on stdout.
3. Bad flags and bad filters: a first line naming the bad argument (plus at
   most the short usage line), exit 2, nothing on stdout.
"""
import json
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcapsyn as P  # noqa: E402

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL " + what, flush=True)


def run(args, stdin=None):
    return subprocess.run([NFSSCOPE] + args, input=stdin, capture_output=True, timeout=120)


CLI, SRV = ("10.0.0.1", 800), ("10.0.0.2", 2049)
FH = b"\x01" * 16


def call_udp(xid, proc=1, args=FH, cred=None, src=CLI, dst=SRV, prog=P.NFS_PROG, vers=3):
    if args is FH:
        args = P.fh3(FH)
    return P.udp_frame(src[0], src[1], dst[0], dst[1],
                       P.rpc_call(xid, prog, vers, proc, args, cred=cred))


def reply_udp(xid, results=b"", src=SRV, dst=CLI):
    return P.udp_frame(src[0], src[1], dst[0], dst[1], P.rpc_reply(xid, results))


def good_pair(xid=1):
    """An answered NFSv3 GETATTR over UDP (NFS3ERR_STALE: no attributes to build)."""
    return [call_udp(xid), reply_udp(xid, P.u32(70))]


def analyse(name, data, anomalies=(), min_calls=None, extra=None, text_too=True, args=()):
    """Run on `data` (capture bytes); check exit 0, quiet stderr, the anomalies
    (key -> minimum count, or an iterable of keys meaning >= 1) and the text
    footer. Returns the JSON report."""
    path = os.path.join(WORK, name + ".pcap")
    with open(path, "wb") as f:
        f.write(data)
    p = run(["-r", path, "-o", "json"] + list(args))
    check(p.returncode == 0, f"{name}: exit {p.returncode}: {p.stderr[-500:]!r}")
    check(p.stderr == b"", f"{name}: stderr {p.stderr[-500:]!r}")
    try:
        rep = json.loads(p.stdout)
    except ValueError:
        check(False, f"{name}: JSON report does not parse")
        return None
    want = anomalies if isinstance(anomalies, dict) else {k: 1 for k in anomalies}
    for k, n in want.items():
        got = rep["anomalies"].get(k, rep["capture"].get(k))
        check(got is not None and got >= n, f"{name}: {k} = {got}, want >= {n}")
    if min_calls is not None:
        check(rep["rpc"]["calls"] >= min_calls,
              f"{name}: {rep['rpc']['calls']} calls, want >= {min_calls}")
    if text_too:
        t = run(["-r", path] + list(args))
        check(t.returncode == 0, f"{name}: text exit {t.returncode}")
        foot = t.stdout.decode(errors="replace").split("capture quality", 1)
        check(len(foot) == 2, f"{name}: no capture quality footer")
        for k in want:
            if k in rep["anomalies"]:
                check(len(foot) == 2 and k in foot[1], f"{name}: text footer lacks {k}")
    if extra and rep:
        extra(rep)
    return rep


def cap(frames, **kw):
    return P.pcap_bytes(frames, **kw)


def tcp_stream(records_cli, records_srv=()):
    """One TCP connection: handshake, then each client record, each server record."""
    fr = []
    c = P.TcpConn(fr, cli=CLI, srv=SRV)
    for r in records_cli:
        c.send(0, r)
    for r in records_srv:
        c.send(1, r)
    return fr


def good_call_rec(xid=100):
    return P.record(P.rpc_call(xid, P.NFS_PROG, 3, 1, P.fh3(FH)))


# ---------------------------------------------------------------------------
def broken_files():
    good = cap(good_pair(1) + good_pair(2) + good_pair(3))
    # Header only: an empty capture.
    rep = analyse("header_only", good[:24], text_too=False)
    check(rep and rep["capture"]["packets"] == 0, "header_only: 0 packets")
    # Cut inside a record header, and inside a packet's data.
    rec1 = 24 + 16 + len(good_pair(1)[0])
    analyse("cut_record_header", good[:rec1 + 7], {"file_truncated": 1},
            extra=lambda r: check(r["capture"]["packets"] == 1, "cut_record_header: 1 packet"))
    analyse("cut_packet_data", good[:-5], {"file_truncated": 1},
            extra=lambda r: check(r["capture"]["packets"] == 5 and r["rpc"]["replies"] == 2,
                                  "cut_packet_data: the packets before the cut counted"))
    # pcapng cut inside an enhanced packet block.
    ng = P.pcapng_bytes(good_pair(1) + good_pair(2))
    analyse("cut_pcapng", ng[:-9], {"file_truncated": 1}, min_calls=2)


def lying_headers():
    frames = good_pair(1) + good_pair(2)
    # snaplen 100 in the file header, packets captured whole: libpcap cuts
    # them to the snaplen, the cut is counted and the calls still seen.
    analyse("snaplen_lies_small", cap(frames, snaplen=100), {"truncated_packets": 2},
            min_calls=2)
    # snaplen 0 and 2^32 - 1: treated as the maximum.
    for sl in (0, 0xFFFFFFFF):
        rep = analyse(f"snaplen_{sl:x}", cap(frames, snaplen=sl), min_calls=2)
        check(rep and rep["rpc"]["replies"] == 2, f"snaplen {sl:#x}: replies")
    # Captured length over the wire length (bytes past the wire length ignored).
    f = [{"data": fr, "wirelen": len(fr) - 10} for fr in frames[:1]] + frames[1:]
    analyse("caplen_over_wirelen", cap(f), {"pkt_caplen_bad": 1})
    # Zero-length frames, and a frame whose wire length is 4 GiB - 1.
    f = [{"data": b""}, {"data": b"", "wirelen": 1500},
         {"data": frames[0][:20], "wirelen": 0xFFFFFFFF}] + frames
    analyse("zero_and_huge_wirelen", cap(f), {"pkt_truncated": 3, "truncated_packets": 2},
            min_calls=2)
    # A frame larger than libpcap accepts (caplen 300,000 > 262,144): libpcap
    # cannot read past it, so the file ends there, counted as truncated.
    giant = frames[0] + b"\0" * (300000 - len(frames[0]))
    analyse("giant_frame", cap(frames + [giant] + frames), {"file_truncated": 1},
            extra=lambda r: check(r["capture"]["packets"] == 4, "giant_frame: 4 packets before"))
    # A giant frame libpcap does accept (256 KiB): an IPv4 packet claiming
    # more than the frame (ip_malformed) and a UDP length over the IP payload.
    big = P.eth(P.ipv4("10.0.0.1", "10.0.0.2", 17, P.udp(800, 2049, b"\0" * 65000),
                       total=65535))
    big = big + b"\0" * (262144 - len(big))
    short_ip = P.eth(P.ipv4("10.0.0.1", "10.0.0.2", 17, P.udp(800, 2049, b"x" * 40),
                            total=2000))
    bad_udp = P.eth(P.ipv4("10.0.0.1", "10.0.0.2", 17, P.udp(800, 2049, b"x" * 40, length=900)))
    analyse("giant_and_bad_lengths", cap([big, short_ip, bad_udp] + frames),
            {"ip_malformed": 1, "udp_malformed": 1}, min_calls=2)
    # IPv4 header length under 20, TCP data offset under 5.
    ihl = bytearray(frames[0])
    ihl[14] = 0x44
    tcp = bytearray(P.tcp_frame("10.0.0.1", 800, "10.0.0.2", 2049, 1, 1, P.TH_ACK, b"abcd"))
    tcp[14 + 20 + 12] = 0x40
    analyse("bad_header_lengths", cap([bytes(ihl), bytes(tcp)] + frames),
            {"ip_malformed": 1, "tcp_malformed": 1}, min_calls=2)


def backwards_time():
    # Call at t, its reply 50 s earlier; then a pair in order. Latencies are
    # never negative and the backwards steps are counted.
    f = good_pair(1) + good_pair(2)
    t = 1700000100
    recs = [{"data": f[0], "sec": t, "usec": 0}, {"data": f[1], "sec": t - 50, "usec": 0},
            {"data": f[2], "sec": t - 40, "usec": 0}, {"data": f[3], "sec": t - 40, "usec": 500}]

    def lat(r):
        lu = r["nfs3"]["ops"]["getattr"]["latency_us"]
        check(r["rpc"]["calls"] == 2 and r["rpc"]["replies"] == 2, "backwards: calls/replies")
        check(lu["min"] is None or lu["min"] >= 0, f"backwards: negative latency {lu}")
        check(r["capture"]["first_ts"] <= r["capture"]["last_ts"], "backwards: first <= last")
    analyse("ts_backwards", cap(recs), {"ts_backwards": 1}, extra=lat)
    # Timestamps past 2038 and a microsecond field over one second.
    recs = [{"data": f[0], "sec": 0xFFFFFFFF, "usec": 999999999}, {"data": f[1], "sec": 0,
                                                                     "usec": 0}]
    analyse("ts_extremes", cap(recs), {"ts_backwards": 1})


def not_nfs_on_2049():
    http = b"GET / HTTP/1.1\r\nHost: example\r\n\r\n" * 40
    fr = tcp_stream([http], [b"HTTP/1.1 200 OK\r\n\r\n" + b"<html>" * 500])
    rnd = bytes((i * 73 + 41) & 0xFF for i in range(1200))
    fr += [P.udp_frame(CLI[0], 999, SRV[0], 2049, rnd[:k]) for k in (0, 3, 11, 24, 400, 1200)]
    fr += [P.udp_frame(SRV[0], 2049, CLI[0], 999, rnd[k:]) for k in (0, 7, 100)]
    rep = analyse("not_nfs_2049", cap(fr + good_pair(9)), {"rpc_skipped_bytes": len(http)})
    check(rep and rep["rpc"]["calls"] == 1 and rep["rpc"]["orphan_replies"] == 0,
          "not_nfs_2049: only the real call counted, no false orphans")


def absurd_rpc():
    good = good_call_rec(1)
    # TCP: record marks of 2 GB and of 4 bytes (a first fragment under 8),
    # after a good call (the stream is in sync).
    for name, mark in (("mark_2g", 0xFFFFFFFF), ("mark_tiny", 0x80000004),
                       ("mark_16m_plus", 0x81000001)):
        fr = tcp_stream([good + P.u32(mark) + b"\0" * 64])
        analyse(name, cap(fr), {"rpc_bad_mark": 1}, min_calls=1)
    # NFS arguments with absurd lengths, over TCP after a good call:
    # LOOKUP name of 0xfffffff0 bytes, WRITE with a 4 GB count and data<>.
    lookup = P.rpc_call(2, P.NFS_PROG, 3, 3, P.fh3(FH) + P.u32(0xFFFFFFF0) + b"abcd")
    write = P.rpc_call(3, P.NFS_PROG, 3, 7, P.fh3(FH) + P.u32(0) + P.u32(0) + P.u32(0xFFFFFFFF)
                       + P.u32(2) + P.u32(0xFFFFFFFF) + b"data")
    # READ reply whose data<> claims 2 GB.
    read = P.rpc_reply(4, P.u32(0) + P.u32(0) + P.u32(100) + P.u32(0) + P.u32(0x7FFFFFFF)
                       + b"xx")
    fr = tcp_stream([good, P.record(lookup), P.record(write),
                     P.record(P.rpc_call(4, P.NFS_PROG, 3, 6, P.fh3(FH) + P.u32(0) * 2 +
                                         P.u32(100)))],
                    [P.record(read)])
    analyse("nfs_absurd_lengths", cap(fr), {"nfs_decode_error": 3}, min_calls=4,
            extra=lambda r: check(r["nfs3"]["write"]["bytes"] == 0 and
                                  r["nfs3"]["read"]["bytes"] == 0,
                                  "nfs_absurd_lengths: no absurd byte counts"))
    # UDP: an RPC header claiming a 1 GB credential in a 100-byte datagram.
    f = good_pair(1) + [P.udp_frame(CLI[0], CLI[1], SRV[0], SRV[1],
                                    P.u32(5) + P.u32(0) + P.u32(2) + P.u32(P.NFS_PROG) +
                                    P.u32(3) + P.u32(1) + P.u32(1) + P.u32(0x40000000) +
                                    b"\0" * 60)]
    analyse("udp_cred_1g", cap(f), {"rpc_bad_cred": 1})


def over_rfc_limits():
    # Credentials: a body over 400 bytes, a machine name over 255, 17 gids.
    big_body = P.auth_sys(machine=b"m" * 330, gids=range(16))
    long_name = P.auth_sys(machine=b"n" * 300)
    many_gids = P.auth_sys(gids=range(17))
    recs = [good_call_rec(1)] + [P.record(P.rpc_call(10 + i, P.NFS_PROG, 3, 1, P.fh3(FH), cred=c))
                                 for i, c in enumerate((big_body, long_name, many_gids))]
    analyse("cred_over_limits", cap(tcp_stream(recs)), {"rpc_bad_cred": 3}, min_calls=3)
    # Verifier over 400 bytes.
    v = P.record(P.rpc_call(20, P.NFS_PROG, 3, 1, P.fh3(FH), verf=b"v" * 404))
    analyse("verf_over_limit", cap(tcp_stream([good_call_rec(1), v])), {"rpc_bad_cred": 1})
    # File handles over NFS3_FHSIZE (64): in a GETATTR call, in a LOOKUP reply,
    # in a MOUNT MNT reply.
    f = [call_udp(30, args=P.fh3(b"h" * 65)), reply_udp(30, P.u32(70)),
         call_udp(31, proc=3, args=P.nfs3_lookup_args(FH, b"name")),
         reply_udp(31, P.nfs3_lookup_res(b"o" * 128)),
         call_udp(32, proc=1, prog=P.MOUNT_PROG, vers=3, args=P.mnt_args(b"/export")),
         reply_udp(32, P.mnt_res(b"r" * 65))]
    analyse("fh_over_limits", cap(f), {"nfs_decode_error": 3}, min_calls=3)
    # A MOUNT path over MNTPATHLEN (1024). (An NFSv3 filename3 is string<>,
    # no limit in RFC 1813: a 300-byte LOOKUP name is legal, just not kept.)
    f = [call_udp(40, proc=1, prog=P.MOUNT_PROG, vers=3, args=P.mnt_args(b"/" * 1100)),
         reply_udp(40, P.mnt_res(FH)),
         call_udp(41, proc=3, args=P.nfs3_lookup_args(FH, b"x" * 300)),
         reply_udp(41, P.u32(2) + P.u32(0))]  # NFS3ERR_NOENT, no dir attributes
    analyse("path_over_limit", cap(f), {"nfs_decode_error": 1}, min_calls=2,
            extra=lambda r: check(r["anomalies"]["nfs_decode_error"] == 1 and
                                  r["nfs3"]["ops"]["lookup"]["replies"] == 1,
                                  "path_over_limit: the long LOOKUP name is no error"))


# ---------------------------------------------------------------------------
def lines(p):
    return p.stderr.decode(errors="replace").strip().splitlines()


def runtime_error(name, args, words):
    p = run(args)
    ls = lines(p)
    check(p.returncode == 1, f"{name}: exit {p.returncode} != 1 {p.stderr!r}")
    check(len(ls) == 1 and ls[0].startswith("nfsscope: ") and all(w in ls[0] for w in words),
          f"{name}: stderr {ls!r} is not one line with {words}")
    check(p.stdout == b"", f"{name}: stdout not empty")


def usage_error(name, args, words):
    p = run(args)
    ls = lines(p)
    check(p.returncode == 2, f"{name}: exit {p.returncode} != 2 {p.stderr!r}")
    check(1 <= len(ls) <= 2 and ls[0].startswith("nfsscope: ") and
          all(w in ls[0] for w in words) and (len(ls) == 1 or ls[1].startswith("usage:")),
          f"{name}: stderr {ls!r}: want one line naming {words} (+ usage)")
    check(p.stdout == b"", f"{name}: stdout not empty")


def unreadable():
    junk = os.path.join(WORK, "junk.txt")
    open(junk, "wb").write(b"hello, this is text\n" * 10)
    runtime_error("not_a_capture", ["-r", junk], ["junk.txt"])
    empty = os.path.join(WORK, "empty.pcap")
    open(empty, "wb").close()
    runtime_error("empty_file", ["-r", empty], ["empty.pcap"])
    short = os.path.join(WORK, "short.pcap")
    open(short, "wb").write(cap([])[:10])
    runtime_error("short_header", ["-r", short], ["short.pcap"])
    runtime_error("elf", ["-r", NFSSCOPE], [os.path.basename(NFSSCOPE)])
    d = os.path.join(WORK, "a_directory")
    os.makedirs(d, exist_ok=True)
    runtime_error("directory", ["-r", d], ["a_directory"])
    runtime_error("missing", ["-r", os.path.join(WORK, "nope.pcap")], ["nope.pcap", "No such"])
    # The second of two files missing: still one line, exit 1.
    good = os.path.join(WORK, "good.pcap")
    open(good, "wb").write(cap(good_pair()))
    runtime_error("second_missing", ["-r", good, "-r", os.path.join(WORK, "nope2.pcap")],
                  ["nope2.pcap"])
    if os.geteuid() != 0:
        locked = os.path.join(WORK, "locked.pcap")
        open(locked, "wb").write(cap(good_pair()))
        os.chmod(locked, 0)
        runtime_error("no_permission", ["-r", locked], ["locked.pcap", "Permission denied"])
        os.chmod(locked, 0o600)
    else:
        # Root reads any file: a path whose read fails (EIO) stands in.
        runtime_error("read_error", ["-r", "/proc/self/mem"], ["/proc/self/mem"])
    # A file name with a terminal escape: the error line stays escaped.
    esc = os.path.join(WORK, "evil\x1b[2Jname.pcap")
    p = run(["-r", esc])
    check(p.returncode == 1 and b"\x1b" not in p.stderr, f"escape in file name: {p.stderr!r}")


def bad_usage():
    good = os.path.join(WORK, "good.pcap")
    open(good, "wb").write(cap(good_pair()))
    r = ["-r", good]
    for opt, val in (("--max-flows", "0"), ("--max-flows", "-5"), ("--max-flows", "1e9"),
                     ("--max-pending", "abc"), ("--max-names", "99999999999"),
                     ("--max-frags", "x"), ("--max-frags", "0"), ("--max-rows", ""),
                     ("--top", "0"), ("-c", "0"), ("-c", "-1"), ("--call-timeout", "999999")):
        usage_error(f"{opt}={val}", r + [opt, val], [opt])
    usage_error("sort", r + ["--sort", "bogus"], ["bogus"])
    usage_error("by", r + ["--by", "client,bogus"], ["bogus"])
    usage_error("format", r + ["-o", "yaml"], ["yaml"])
    usage_error("unknown_long", r + ["--frobnicate"], ["--frobnicate"])
    usage_error("unknown_short", r + ["-Q"], ["-Q"])
    usage_error("missing_value", r + ["--max-flows"], ["--max-flows"])
    for flt in ("port 99999", "tcp port", "host", "nonsense(", "udp and and tcp", "ether[1:3]"):
        usage_error(f"filter {flt!r}", r + flt.split(), ["filter"])


def main():
    global NFSSCOPE, WORK
    NFSSCOPE, WORK = sys.argv[1], sys.argv[2]
    os.makedirs(WORK, exist_ok=True)
    broken_files()
    lying_headers()
    backwards_time()
    not_nfs_on_2049()
    absurd_rpc()
    over_rfc_limits()
    unreadable()
    bad_usage()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
