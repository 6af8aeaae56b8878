#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_writepcap.py: -w FILE writes the packets that carried RPC.

1. For every sample (samples/*.pcap, *.pcapng), a few derived variants of them
   (samples/derive: loss, reordering, duplicates, lost fragments, snaplen 96,
   VLAN) and a few public captures that mix NFS with other traffic (skipped,
   with a message, when absent):
   `nfsscope -r X -w out.pcap -o json`, then `nfsscope -r out.pcap -o json`
   must report the same RPC totals and, per program and procedure, the same
   calls, replies, errors, statuses, latency count/min/max and bytes.
   out.pcap must be a classic pcap (nanosecond magic) with the input's link
   type, and no bigger than the input (smaller when the input has other traffic).
2. A synthetic capture (tests/pcapsyn.py) of RPC over UDP (one datagram
   fragmented), RPC over TCP to port 2049 with its handshake and FIN, and
   non-RPC traffic between the same hosts (DNS-like UDP, HTTP-like TCP with a
   handshake, a fragmented non-RPC datagram, ARP, a UDP datagram to port 2049
   that is not RPC): out.pcap must hold exactly the expected frames, in order,
   byte for byte with their timestamps. A fragment sent before its datagram's
   first fragment is not written and is reported on stderr.
3. tshark (if installed) must read every out.pcap without error and count the
   same RPC calls in it as in the input.
4. Errors: an unwritable path (exit 1, one line, before any packet is read),
   '-w -' (exit 2), -r files of different link types (exit 2), a full disk
   (/dev/full: exit 1, "write failed").
5. Live (root, on lo; skipped otherwise): the file is opened after the switch
   to nobody, so a root-only directory is refused (exit 1); -Z root writes it.

usage: e2e_writepcap.py NFSSCOPE SAMPLES_DIR PUBLIC_PCAPS_DIR WORKDIR
"""
import glob
import json
import os
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcapsyn as ps  # noqa: E402
from checks import check, finish, skip_part  # noqa: E402

# Public captures (small ones: the machine is shared) with non-RPC traffic
# mixed in (incorrect_mount: 1,020 packets, 14 of them RPC) or odd shapes:
# duplicates and retransmissions, reply before call, loopback, pcapng, IPv6.
PUBLIC = [
    "nfstrace-eth-ipv4-tcp-nfsv4-incorrect_mount.pcap",
    "conntrack-tools-nfsv3.pcap",
    "nfstrace-eth-ipv4-udp-nfsv3-dup-retransm.pcap",
    "nfstrace-eth-ipv4-udp-nfsv3-reply-first.pcap",
    "nfstrace-json-analyzer-trace.pcap",
    "nfstrace-lo-ipv4-tcp-nfsv3-nfsacl.pcap",
    "suricata-verify-nfs3-procedure-input.pcap",
    "zeek-nfs_write.pcap",
    "zeek-rpc-portmap-sadmind.pcap",
    "zeek-portmapper-many-unanswered-calls.pcapng",
]

DERIVED = [("all-ops.pcap", "reorder"), ("bulk-io.pcap", "loss"), ("bulk-io.pcap", "dup"),
           ("udp-frag.pcap", "udploss"), ("all-ops.pcap", "snap96"), ("ipv6.pcap", "reorder"),
           ("cooked-any.pcap", "vlan")]


def run(args, timeout=300):
    return subprocess.run(args, capture_output=True, timeout=timeout)


def report(nfsscope, pcap, extra=()):
    p = run([nfsscope, "-o", "json", "-r", pcap] + list(extra))
    if p.returncode != 0:
        raise SystemExit("nfsscope failed on %s: %s" % (pcap, p.stderr.decode(errors="replace")))
    return json.loads(p.stdout), p.stderr.decode(errors="replace")


def summary(rep):
    """What -w must keep: RPC totals and per program/procedure counts and latency."""
    out = {"rpc": {k: rep["rpc"][k] for k in ("calls", "replies", "retransmissions",
                                              "unanswered_calls", "orphan_replies",
                                              "rpc_errors")}}
    for pname, pv in rep.items():
        if not (isinstance(pv, dict) and isinstance(pv.get("ops"), dict)):
            continue
        rows = dict(pv["ops"])
        for msg in ("null", "compound"):  # NFSv4: its messages beside its operations
            if isinstance(pv.get(msg), dict):
                rows[msg] = dict(pv[msg], errors=pv[msg].get("errors", 0))
        for proc, o in rows.items():
            calls = o["calls"] if "calls" in o else o["count"]  # NFSv4 operations: "count"
            if not (calls or o["replies"]):
                continue
            lat = o["latency_us"]
            out["%s.%s" % (pname, proc)] = {
                "calls": calls, "replies": o["replies"], "errors": o["errors"],
                "status": o.get("status"), "bytes": o.get("bytes"),
                "latency": (lat["count"], lat["min"], lat["max"]),
            }
    for k in ("write", "read"):
        if k in rep.get("nfs3", {}):
            out["nfs3." + k] = rep["nfs3"][k]
    return out


def pcap_frames(path):
    """[(sec, frac, caplen, wirelen, data)] of a classic pcap, plus (magic, linktype)."""
    raw = open(path, "rb").read()
    magic, _, _, _, _, _, linktype = struct.unpack("<IHHiIII", raw[:24])
    frames, off = [], 24
    while off + 16 <= len(raw):
        sec, frac, cap, wire = struct.unpack("<IIII", raw[off:off + 16])
        frames.append((sec, frac, cap, wire, raw[off + 16:off + 16 + cap]))
        off += 16 + cap
    check(off == len(raw), "%s: trailing bytes after the last record" % path)
    return frames, (magic, linktype)


def linktype_of(path):
    """Link type of a pcap or (first interface of) a pcapng file."""
    raw = open(path, "rb").read(65536)
    if raw[:4] == b"\x0a\x0d\x0d\x0a":
        blen = struct.unpack("<I", raw[4:8])[0]
        return struct.unpack("<H", raw[blen + 8:blen + 10])[0]
    return struct.unpack("<I", raw[20:24])[0]


def tshark_calls(path):
    """RPC calls tshark sees (rpc.msgtyp == 0), or None without tshark."""
    if not shutil.which("tshark"):
        return None
    p = run(["tshark", "-n", "-r", path, "-Y", "rpc.msgtyp == 0", "-T", "fields",
             "-e", "rpc.xid"])
    check(p.returncode == 0, "tshark cannot read %s: %s" % (path, p.stderr.decode(errors="replace")))
    return sum(len(l.split(",")) for l in p.stdout.decode().splitlines() if l.strip())


def roundtrip(nfsscope, name, src, work):
    out = os.path.join(work, os.path.basename(name) + ".w.pcap")
    a, _ = report(nfsscope, src, ["-w", out])
    b, _ = report(nfsscope, out)
    sa, sb = summary(a), summary(b)
    for k in sorted(set(sa) | set(sb)):
        check(sa.get(k) == sb.get(k), "%s: %s differs after -w: %s vs %s" %
              (name, k, sa.get(k), sb.get(k)))
    check(a["rpc"]["calls"] > 0, "%s: no RPC calls (bad test input)" % name)
    frames, (magic, lt) = pcap_frames(out)
    check(magic == 0xA1B23C4D, "%s: out.pcap is not a nanosecond pcap (magic %#x)" % (name, magic))
    check(lt == linktype_of(src), "%s: link type %d, input %d" % (name, lt, linktype_of(src)))
    check(b["capture"]["packets"] == len(frames), "%s: re-read packets %d != records %d" %
          (name, b["capture"]["packets"], len(frames)))
    check(len(frames) <= a["capture"]["packets"], "%s: more packets written than read" % name)
    tc_in, tc_out = tshark_calls(src), tshark_calls(out)
    if tc_in is not None:
        check(tc_in == tc_out, "%s: tshark sees %s RPC calls in the input, %s in out.pcap" %
              (name, tc_in, tc_out))
    return a, len(frames), out


# ---- 2. synthetic mix --------------------------------------------------------
CLI, SRV, OTHER = "10.0.0.1", "10.0.0.2", "10.0.0.3"


def frag_frames(src, dst, sport, dport, payload, ident, mtu_data=1480):
    """An IPv4 UDP datagram cut into fragments (RFC 791 §3.2), in order."""
    l4 = ps.udp(sport, dport, payload)
    out = []
    for off in range(0, len(l4), mtu_data):
        piece = l4[off:off + mtu_data]
        more = off + mtu_data < len(l4)
        out.append(ps.eth(ps.ipv4(src, dst, 17, piece, ident=ident, mf=more, frag_off=off)))
    return out


def synthetic(work):
    """Frames and, for each, whether -w must write it."""
    fr = []   # (frame, expected)

    def add(frames, keep):
        for f in frames:
            fr.append((f, keep))

    lookup = ps.nfs3_lookup_args(b"\x01" * 32, b"name")
    # ARP and non-RPC UDP between the same hosts.
    add([ps.eth(b"\0\1\x08\0\6\4\0\1" + b"\0" * 20, ethertype=0x0806)], False)
    add([ps.udp_frame(CLI, 5353, SRV, 53, b"\x12\x34\x01\x00" + b"\0" * 30)], False)
    # RPC over UDP: call and reply (the call is what recognises the flow).
    add([ps.udp_frame(CLI, 901, SRV, 2049, ps.rpc_call(0x100, ps.NFS_PROG, 3, 3, lookup),
                      ident=10)], True)
    add([ps.udp_frame(SRV, 2049, CLI, 901, ps.rpc_reply(0x100, ps.nfs3_lookup_res(b"\2" * 32)),
                      ident=11)], True)
    # A UDP datagram to port 2049 that is not RPC: not written (not by port).
    add([ps.udp_frame(OTHER, 4000, SRV, 2049, b"hello, not rpc" * 3, ident=12)], False)
    # A fragmented RPC call (a big WRITE-sized GETATTR with padding): all fragments.
    big = ps.rpc_call(0x101, ps.NFS_PROG, 3, 1, ps.fh3(b"\3" * 32) + b"\0" * 4000)
    add(frag_frames(CLI, SRV, 901, 2049, big, ident=20), True)
    add([ps.udp_frame(SRV, 2049, CLI, 901, ps.rpc_reply(0x101, ps.nfs3_getattr_res_err(2)),
                      ident=21)], True)
    # A fragmented non-RPC datagram: none of it.
    add(frag_frames(OTHER, SRV, 7000, 7001, b"\xee" * 3500, ident=30), False)
    # HTTP-like TCP with a handshake: none of it.
    http = []
    c = ps.TcpConn(http, cli=(OTHER, 40000), srv=(SRV, 80), isn=(7, 9))
    c.send(0, b"GET / HTTP/1.0\r\n\r\n")
    c.send(1, b"HTTP/1.0 200 OK\r\n\r\nhi")
    add(http, False)
    # RPC over TCP to 2049: SYN and SYN-ACK (port 2049), the bare ACK of the
    # handshake is not (the connection is not yet known as RPC), then all.
    tcpf = []
    c = ps.TcpConn(tcpf, cli=(CLI, 800), srv=(SRV, 2049), isn=(1000, 5000))
    add(tcpf[:2], True)
    add(tcpf[2:], False)
    tcpf = []
    c.f = tcpf
    c.send(0, ps.record(ps.rpc_call(0x200, ps.NFS_PROG, 3, 3, lookup)))
    c.send(1, ps.record(ps.rpc_reply(0x200, ps.nfs3_lookup_res(b"\4" * 32))))
    c.send(0, b"", flags=ps.TH_ACK | ps.TH_FIN)
    add(tcpf, True)
    # RPC over TCP on another port, handshake not written (not 111/2049).
    tcpf = []
    c = ps.TcpConn(tcpf, cli=(CLI, 801), srv=(SRV, 4045), isn=(100, 200))
    add(tcpf, False)
    tcpf = []
    c.f = tcpf
    c.send(0, ps.record(ps.rpc_call(0x300, 100021, 4, 0)))
    c.send(1, ps.record(ps.rpc_reply(0x300, b"")))
    add(tcpf, True)
    # A connection whose first RPC message (a 4 KiB WRITE) spans three
    # segments: all three are written, from the one with the record mark.
    tcpf = []
    c = ps.TcpConn(tcpf, cli=(CLI, 802), srv=(SRV, 20049), isn=(300, 400))
    add(tcpf, False)
    tcpf = []
    c.f = tcpf
    data = b"\x5a" * 4096
    write = ps.fh3(b"\6" * 32) + ps.u32(0) + ps.u32(0) + ps.u32(len(data)) + ps.u32(2) + \
        ps.opaque(data)
    c.send(0, ps.record(ps.rpc_call(0x500, ps.NFS_PROG, 3, 7, write)))
    check(len(tcpf) == 3, "mix: the WRITE should take 3 segments, not %d" % len(tcpf))
    c.send(1, ps.record(ps.rpc_reply(0x500, ps.nfs3_getattr_res_err(28))))  # NFS3ERR_NOSPC
    add(tcpf, True)
    path = os.path.join(work, "mix.pcap")
    ps.write_pcap(path, [f for f, _ in fr])
    return path, fr


def check_synthetic(nfsscope, work):
    src, fr = synthetic(work)
    out = os.path.join(work, "mix.w.pcap")
    a, err = report(nfsscope, src, ["-w", out])
    frames, _ = pcap_frames(out)
    inframes, _ = pcap_frames(src)
    want = [inframes[i] for i, (_, keep) in enumerate(fr) if keep]
    got = [(s, f // 1000, c, w, d) for s, f, c, w, d in frames]  # ns -> us to compare
    check(len(got) == len(want), "mix: %d packets written, expected %d" % (len(got), len(want)))
    check(got == want, "mix: the written packets are not exactly the RPC ones")
    check(os.path.getsize(out) < os.path.getsize(src), "mix: out.pcap is not smaller")
    check(err == "", "mix: unexpected stderr: %r" % err)
    b, _ = report(nfsscope, out)
    check(summary(a) == summary(b), "mix: report differs after -w")
    check(a["rpc"]["calls"] == 5 and a["rpc"]["replies"] == 5,
          "mix: expected 5 calls and 5 replies, got %s" % a["rpc"])
    check(a["nfs3"]["ops"]["write"]["calls"] == 1, "mix: the WRITE was not counted")
    tc, tc_in = tshark_calls(out), tshark_calls(src)
    if tc is not None:  # (tshark's TCP heuristics miss the WRITE on port 20049)
        check(tc == tc_in and tc >= 4, "mix: tshark counts %s calls in out.pcap, %s in the"
              " input" % (tc, tc_in))

    # A fragment before its datagram's first one: not written, and said so.
    big = ps.rpc_call(0x400, ps.NFS_PROG, 3, 1, ps.fh3(b"\5" * 32) + b"\0" * 4000)
    ff = frag_frames(CLI, SRV, 902, 2049, big, ident=40)
    order = [ff[1], ff[0], ff[2]]
    src2 = os.path.join(work, "late.pcap")
    ps.write_pcap(src2, order)
    out2 = os.path.join(work, "late.w.pcap")
    _, err2 = report(nfsscope, src2, ["-w", out2])
    frames2, _ = pcap_frames(out2)
    check([d for _, _, _, _, d in frames2] == [ff[0], ff[2]],
          "late: expected the first and last fragments only")
    check("1 IP fragments not written" in err2 and err2.count("\n") == 1,
          "late: stderr does not report the unwritten fragment: %r" % err2)


def check_errors(nfsscope, samples, work):
    s = sorted(glob.glob(os.path.join(samples, "*.pcap")))[0]
    p = run([nfsscope, "-r", s, "-w", "/nonexistent-dir/x.pcap"])
    e = p.stderr.decode(errors="replace")
    check(p.returncode == 1 and e.count("\n") == 1 and "/nonexistent-dir/x.pcap" in e
          and p.stdout == b"", "unwritable -w: rc %d, %r, stdout %r" % (p.returncode, e, p.stdout))
    p = run([nfsscope, "-r", s, "-w", "-"])
    check(p.returncode == 2 and p.stderr.decode().startswith("nfsscope: -w:"),
          "-w -: rc %d, %r" % (p.returncode, p.stderr))
    p = run([nfsscope, "-r", s, "-w"])
    check(p.returncode == 2, "-w without a value: rc %d" % p.returncode)
    cooked = os.path.join(samples, "cooked-any.pcap")
    if os.path.exists(cooked):
        p = run([nfsscope, "-r", s, "-r", cooked, "-w", os.path.join(work, "two.pcap")])
        e = p.stderr.decode()
        check(p.returncode == 2 and "link types" in e, "mixed link types: rc %d, %r" %
              (p.returncode, e))
    if os.path.exists("/dev/full"):
        p = run([nfsscope, "-r", s, "-w", "/dev/full"])
        e = p.stderr.decode()
        check(p.returncode == 1 and "write failed" in e and e.count("\n") == 1,
              "/dev/full: rc %d, %r" % (p.returncode, e))
        check(p.stdout.startswith(b"nfsscope"), "/dev/full: the report is still printed")


def check_live(nfsscope, work):
    """-w is opened after the switch to the -Z user (as tcpdump -w): started as
    root, the default user (nobody) cannot write a root-only directory."""
    if os.geteuid() != 0:
        skip_part("live -w checks: not root")
        return
    probe = run([nfsscope, "-i", "lo", "--no-tui", "--duration", "0.2", "-Z", "root",
                 "-o", "json"])
    if probe.returncode != 0:
        skip_part("live -w checks: cannot capture on lo: %s" % probe.stderr.decode().strip())
        return
    private = os.path.join(work, "root-only")
    os.makedirs(private, exist_ok=True)
    os.chmod(private, 0o700)
    target = os.path.join(private, "live.pcap")
    if os.path.exists(target):  # from an earlier run
        os.unlink(target)
    p = run([nfsscope, "-i", "lo", "--no-tui", "--duration", "0.2", "-w", target, "-o", "json"])
    e = p.stderr.decode(errors="replace")
    check(p.returncode == 1 and "-w: cannot write" in e and "Permission denied" in e
          and not os.path.exists(target), "live -w as nobody into a root-only dir: rc %d, %r" %
          (p.returncode, e))
    p = run([nfsscope, "-i", "lo", "--no-tui", "--duration", "0.2", "-Z", "root", "-w", target,
             "-o", "json"])
    check(p.returncode == 0 and os.path.exists(target), "live -w -Z root: rc %d, %r" %
          (p.returncode, p.stderr))
    if os.path.exists(target):
        hdr = open(target, "rb").read(24)
        check(len(hdr) == 24 and struct.unpack("<I", hdr[:4])[0] == 0xA1B23C4D and
              struct.unpack("<I", hdr[20:24])[0] == 1, "live -w: not a nanosecond EN10MB pcap")


def main():
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    nfsscope, samples, public, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    srcs = sorted(glob.glob(os.path.join(samples, "*.pcap")) +
                  glob.glob(os.path.join(samples, "*.pcapng")))
    check(len(srcs) >= 5, "too few samples in %s" % samples)
    for s in srcs:
        roundtrip(nfsscope, os.path.basename(s), s, work)
    # Derived variants (samples/derive): loss, reordering, duplicates, lost
    # fragments, snaplen 96, VLAN tags must survive the round trip too.
    for sample, variant in DERIVED:
        src = os.path.join(samples, sample)
        dst = os.path.join(work, "%s.%s.pcap" % (sample.split(".")[0], variant))
        p = run([sys.executable, os.path.join(samples, "derive"), variant, src, dst])
        check(p.returncode == 0, "derive %s %s: %s" % (variant, sample, p.stderr))
        if p.returncode == 0:
            roundtrip(nfsscope, os.path.basename(dst), dst, work)
    shrunk = 0
    for name in PUBLIC:
        path = os.path.join(public, name)
        if not os.path.exists(path):
            skip_part("%s: not present" % name, ci_required=True)
            continue
        a, n, out = roundtrip(nfsscope, name, path, work)
        if n < a["capture"]["packets"]:
            shrunk += 1
            check(os.path.getsize(out) < os.path.getsize(path),
                  "%s: fewer packets but not a smaller file" % name)
    if os.path.isdir(public):
        check(shrunk >= 1, "no public capture shrank: they were chosen for their non-RPC traffic")
    check_synthetic(nfsscope, work)
    check_errors(nfsscope, samples, work)
    check_live(nfsscope, work)
    if not shutil.which("tshark"):
        skip_part("tshark checks: tshark not installed")
    sys.exit(finish("checks passed"))


if __name__ == "__main__":
    main()
