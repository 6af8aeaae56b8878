# SPDX-License-Identifier: BSD-3-Clause
"""wire_oracle.py: what a capture holds, found without nfsscope's code.

The oracles the end-to-end tests use where tshark's view is incomplete
(lost segments, IP fragments it cannot reassemble, retransmitted replies):

- tcp_scan(): every TCP payload of a capture, laid out by sequence number per
  direction into contiguous runs (data on SYN or RST segments is not stream
  data: RFC 9293 §3.10.7.4), then searched byte by byte for ONC RPC record
  heads (RFC 5531 §9, §11): a record mark with the last-fragment bit, then an
  NFSv3 CALL header, or an accepted, successful REPLY with an AUTH_NONE
  verifier. Calls are keyed by (connection, XID); a reply answers the call
  of the same XID going the other way. Nothing is decoded past the header but
  WRITE's stable_how (RFC 1813 §3.3.7).
- tcp_scan_latencies(): the scan's answered calls of one NFSv3 procedure
  timed as rpc.time is, from the first frame carrying the call record's last
  byte to the first frame carrying the reply record's last byte.
- tcp_scan_nfs4(): the same scan for NFSv4 COMPOUND calls and replies
  (RFC 7530 §16.2, RFC 8881 §16.2), with the operation lists of the I/O
  COMPOUNDs: SEQUENCE, PUTFH, WRITE (its stable_how), GETATTR and COMMIT
  arguments and results are skipped by their XDR lengths, across lost
  bytes when the bytes after them were captured (RFC 8881 §18).
- tcpdump_rpc(): tcpdump's own per-packet NFS lines ("NFS request xid N ...
  PROC", "NFS reply xid N reply ok|ERR ..."), matched the same way, with
  tcpdump's timestamps for the latencies.
- ipv4_incomplete_datagrams(): IPv4 datagrams of which a fragment is in the
  capture but not all of it.

Standard library only (bz2 for the compressed public captures)."""
import bisect
import bz2
import collections
import re
import socket
import struct
import subprocess

NFS_PROG = 100003
NFS3_PROCS = ["null", "getattr", "setattr", "lookup", "access", "readlink", "read", "write",
              "create", "mkdir", "symlink", "mknod", "remove", "rmdir", "rename", "link",
              "readdir", "readdirplus", "fsstat", "fsinfo", "pathconf", "commit"]
STABLE = ["UNSTABLE", "DATA_SYNC", "FILE_SYNC"]


def _read(path):
    if path.endswith(".bz2"):
        with bz2.open(path, "rb") as f:
            return f.read()
    with open(path, "rb") as f:
        return f.read()


def pcap_frames(path):
    """(frame number, seconds as float, link type, bytes) of a classic pcap."""
    d = _read(path)
    magic = struct.unpack("<I", d[:4])[0]
    if magic in (0xA1B2C3D4, 0xA1B23C4D):
        e = "<"
    elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
        e = ">"
    else:
        raise ValueError(f"{path}: not a classic pcap file")
    nano = magic in (0xA1B23C4D, 0x4D3CB2A1)
    lt = struct.unpack(e + "I", d[20:24])[0]
    off, n = 24, 0
    while off + 16 <= len(d):
        sec, frac, caplen, _ = struct.unpack(e + "IIII", d[off:off + 16])
        off += 16
        n += 1
        yield n, sec + frac / (1e9 if nano else 1e6), lt, d[off:off + caplen]
        off += caplen


def _ip(lt, f):
    """(version, src, dst, proto, l4 bytes, ipv4 fragment info or None)."""
    if lt != 1 or len(f) < 14:
        return None
    et, p = struct.unpack(">H", f[12:14])[0], 14
    while et == 0x8100 and len(f) >= p + 4:
        et, p = struct.unpack(">H", f[p + 2:p + 4])[0], p + 4
    if et == 0x0800 and len(f) >= p + 20:
        ihl = (f[p] & 15) * 4
        tot, ident, fl = struct.unpack(">HHH", f[p + 2:p + 8])
        frag = (ident, bool(fl & 0x2000), (fl & 0x1FFF) * 8, tot - ihl)
        return 4, f[p + 12:p + 16], f[p + 16:p + 20], f[p + 9], f[p + ihl:p + tot], frag
    if et == 0x86DD and len(f) >= p + 40:
        plen = struct.unpack(">H", f[p + 4:p + 6])[0]
        return 6, f[p + 8:p + 24], f[p + 24:p + 40], f[p + 6], f[p + 40:p + 40 + plen], None
    return None


def ipv4_incomplete_datagrams(path):
    """IPv4 datagrams with a fragment in the capture but not every byte."""
    seen = collections.defaultdict(list)
    for _, _, lt, f in pcap_frames(path):
        r = _ip(lt, f)
        if not r or r[0] != 4:
            continue
        ident, mf, off, length = r[5]
        if mf or off:
            seen[(r[1], r[2], r[3], ident)].append((off, length, mf))
    bad = 0
    for frags in seen.values():
        frags.sort()
        end, last = 0, False
        for off, length, mf in frags:
            if off > end:
                break
            end = max(end, off + length)
            last = last or not mf
        else:
            if last:
                continue
        bad += 1
    return bad


def _tcp_runs(path):
    """{(src, sport, dst, dport): [contiguous payload bytes, ...]}."""
    return {k: [r for _, r in v] for k, v in _tcp_runs_at(path).items()}


def _tcp_runs_at(path):
    """{(src, sport, dst, dport): [(sequence number of its first byte,
    contiguous payload bytes), ...]} in sequence order."""
    segs = collections.defaultdict(dict)
    for _, _, lt, f in pcap_frames(path):
        r = _ip(lt, f)
        if not r or r[3] != 6 or len(r[4]) < 20:
            continue
        l4 = r[4]
        sport, dport, seq = struct.unpack(">HHI", l4[:8])
        flags = l4[13]
        data = l4[(l4[12] >> 4) * 4:]
        if not data or flags & 0x06:  # SYN or RST: not stream data
            continue
        key, old = (r[1], sport, r[2], dport), segs[(r[1], sport, r[2], dport)].get(seq)
        if old is None or len(data) > len(old):
            segs[key][seq] = data
    out = {}
    for key, d in segs.items():
        runs, cur, start = [], None, 0
        for s in sorted(d):
            p = d[s]
            if cur is not None and s <= start + len(cur):
                if s + len(p) > start + len(cur):
                    cur += p[start + len(cur) - s:]
            else:
                if cur is not None:
                    runs.append((start, bytes(cur)))
                cur, start = bytearray(p), s
        if cur is not None:
            runs.append((start, bytes(cur)))
        out[key] = runs
    return out


_CALL = struct.pack(">IIII", 0, 2, NFS_PROG, 3)     # CALL, rpcvers 2, NFS, v3
_REPLY = struct.pack(">IIIII", 1, 0, 0, 0, 0)        # REPLY, ACCEPTED, AUTH_NONE, SUCCESS


def _write_stable(run, i):
    """stable_how of the WRITE call whose header starts at run[i-4] (xid)."""
    try:
        p = i + 20                                  # after proc
        for _ in range(2):                          # credential, verifier
            n = struct.unpack(">I", run[p + 4:p + 8])[0]
            p += 8 + n + (-n % 4)
        n = struct.unpack(">I", run[p:p + 4])[0]    # nfs_fh3
        p += 4 + n + (-n % 4) + 8 + 4               # offset, count
        v = struct.unpack(">I", run[p:p + 4])[0]
        return v if v < 3 else None
    except struct.error:
        return None


class Scan:
    """NFSv3 calls and replies found by tcp_scan()."""

    def __init__(self):
        self.calls = {}        # (conn, xid) -> procedure name
        self.stable = {}       # (conn, xid) -> stable_how index, WRITE calls
        self.replied = set()   # (conn of the call, xid)

    def count(self, proc):
        return sum(1 for p in self.calls.values() if p == proc)

    def replies(self, proc):
        return sum(1 for k, p in self.calls.items() if p == proc and k in self.replied)

    def unanswered(self):
        return [k for k in self.calls if k not in self.replied]

    def write_stable(self):
        c = collections.Counter(self.stable.values())
        return {name: c.get(i, 0) for i, name in enumerate(STABLE)}


def tcp_scan(path):
    s, reply_keys = Scan(), set()
    for conn, runs in _tcp_runs(path).items():
        back = (conn[2], conn[3], conn[0], conn[1])
        for run in runs:
            i = run.find(_CALL)
            while i >= 8:
                mark, xid = struct.unpack(">II", run[i - 8:i])
                if mark & 0x80000000 and i + 20 <= len(run):
                    proc = struct.unpack(">I", run[i + 16:i + 20])[0]
                    if proc < len(NFS3_PROCS) and (conn, xid) not in s.calls:
                        s.calls[(conn, xid)] = NFS3_PROCS[proc]
                        if proc == 7:
                            st = _write_stable(run, i)
                            if st is not None:
                                s.stable[(conn, xid)] = st
                i = run.find(_CALL, i + 1)
            i = run.find(_REPLY)
            while i >= 8:
                mark, xid = struct.unpack(">II", run[i - 8:i])
                if mark & 0x80000000:
                    reply_keys.add((back, xid))
                i = run.find(_REPLY, i + 1)
    s.replied = {k for k in s.calls if k in reply_keys}
    return s


def _first_carrier(path):
    """{(src, sport, dst, dport): fn(pos)} giving the capture time of the first
    frame that carried stream byte pos in that direction (None if no frame did)."""
    segs = collections.defaultdict(list)
    for _, t, lt, f in pcap_frames(path):
        r = _ip(lt, f)
        if not r or r[3] != 6 or len(r[4]) < 20:
            continue
        l4 = r[4]
        sport, dport, seq = struct.unpack(">HHI", l4[:8])
        n = len(l4) - (l4[12] >> 4) * 4
        if n > 0 and not l4[13] & 0x06:
            segs[(r[1], sport, r[2], dport)].append((seq, n, t))
    out = {}
    for key, lst in segs.items():
        lst.sort()
        starts, longest = [s for s, _, _ in lst], max(n for _, n, _ in lst)

        def at(pos, lst=lst, starts=starts, longest=longest):
            best, i = None, bisect.bisect_right(starts, pos) - 1
            while i >= 0 and starts[i] + longest > pos:
                s, n, t = lst[i]
                if pos < s + n and (best is None or t < best):
                    best = t
                i -= 1
            return best
        out[key] = at
    return out


def tcp_scan_latencies(path, proc):
    """Latency in seconds of every answered NFSv3 call of procedure `proc`
    found by the byte scan, as rpc.time defines it: from the frame that
    completes the call record (carries its last byte) to the frame that
    completes the reply record. None where either last byte was never
    captured."""
    want = NFS3_PROCS.index(proc)
    calls, replies = {}, {}
    for conn, runs in _tcp_runs_at(path).items():
        for start, run in runs:
            for pat, heads in ((_CALL, calls), (_REPLY, replies)):
                i = run.find(pat)
                while i >= 8:
                    mark, xid = struct.unpack(">II", run[i - 8:i])
                    is_call = pat is _CALL
                    if mark & 0x80000000 and (not is_call or (
                            i + 20 <= len(run)
                            and struct.unpack(">I", run[i + 16:i + 20])[0] == want)):
                        pos = start + i - 4
                        heads.setdefault((conn, xid), pos + (mark & 0x7FFFFFFF))
                    i = run.find(pat, i + 1)
    at = _first_carrier(path)
    out = []
    for (conn, xid), end in calls.items():
        back = (conn[2], conn[3], conn[0], conn[1])
        if (back, xid) not in replies:
            continue
        tc, tr = at[conn](end - 1), at[back](replies[(back, xid)] - 1)
        out.append(None if tc is None or tr is None else tr - tc)
    return out


_CALL4 = struct.pack(">IIIII", 0, 2, NFS_PROG, 4, 1)  # CALL, rpcvers 2, NFS, v4, COMPOUND
# The operations whose arguments and results the NFSv4 scan skips (RFC 8881 §18).
NFS4_SCAN_OPS = {5: "commit", 9: "getattr", 22: "putfh", 38: "write", 53: "sequence"}
STABLE4 = ["UNSTABLE4", "DATA_SYNC4", "FILE_SYNC4"]
_NFS4_STATUS = {0: "NFS4_OK", 1: "NFS4ERR_PERM", 2: "NFS4ERR_NOENT", 5: "NFS4ERR_IO",
                13: "NFS4ERR_ACCESS", 17: "NFS4ERR_EXIST", 28: "NFS4ERR_NOSPC",
                10011: "NFS4ERR_EXPIRED", 10013: "NFS4ERR_GRACE",
                10052: "NFS4ERR_BADSESSION", 10053: "NFS4ERR_BADSLOT"}  # RFC 8881 §15.1


def nfs4_status_name(status):
    return _NFS4_STATUS.get(status, f"nfsstat4 {status}")


class _Stream:
    """One direction's captured bytes by sequence number."""

    def __init__(self, runs):
        self.starts = [s for s, _ in runs]
        self.runs = runs

    def u32(self, pos):
        i = bisect.bisect_right(self.starts, pos) - 1
        if i < 0:
            return None
        s, r = self.runs[i]
        if pos + 4 > s + len(r):
            return None
        return struct.unpack(">I", r[pos - s:pos - s + 4])[0]


def _pad(n):
    return n + (-n % 4)


def _nfs4_call(st, p, end):
    """(minorversion, [(op, stable_how or None)], every op skipped) of the
    COMPOUND call whose cred starts at p; None if its head is not captured."""
    for _ in range(2):  # credential, verifier
        n = st.u32(p + 4)
        if n is None:
            return None
        p += 8 + _pad(n)
    n = st.u32(p)  # tag
    if n is None:
        return None
    p += 4 + _pad(n)
    minor, nops = st.u32(p), st.u32(p + 4)
    if minor is None or nops is None:
        return None
    p += 8
    ops = []
    for _ in range(nops):
        op = st.u32(p) if p < end else None
        if op not in NFS4_SCAN_OPS:
            return minor, ops, False
        p += 4
        stable = None
        if op == 53:
            p += 32  # sessionid, sequenceid, slotid, highest_slotid, cachethis
        elif op == 22 or op == 9:  # nfs_fh4<>, bitmap4<>
            n = st.u32(p)
            if n is None:
                return minor, ops, False
            p += 4 + (_pad(n) if op == 22 else 4 * n)
        elif op == 38:  # stateid, offset, stable, data<>
            stable, n = st.u32(p + 24), st.u32(p + 28)
            if n is None:
                return minor, ops, False
            p += 32 + _pad(n)
        else:  # COMMIT: offset, count
            p += 12
        ops.append((NFS4_SCAN_OPS[op], stable))
    return minor, ops, True


def _nfs4_reply(st, p, end):
    """(status, [(op, status, committed or None)], every result skipped) of
    the COMPOUND reply whose status starts at p."""
    status = st.u32(p)
    n = st.u32(p + 4)  # tag
    nres = st.u32(p + 8 + _pad(n)) if n is not None else None
    if nres is None:
        return status, [], False
    p += 12 + _pad(n)
    res = []
    for _ in range(nres):
        op, rst = (st.u32(p), st.u32(p + 4)) if p < end else (None, None)
        if op not in NFS4_SCAN_OPS or rst is None:
            return status, res, False
        p += 8
        committed = None
        if rst == 0:
            if op == 53:
                p += 36  # sessionid, sequenceid, slotid, highest, target, status flags
            elif op == 38:  # count, committed, writeverf
                committed = st.u32(p + 4)
                p += 16
            elif op == 9:  # bitmap4<>, attrlist4<>
                n = st.u32(p)
                m = st.u32(p + 4 + 4 * n) if n is not None else None
                if m is None:
                    return status, res, False
                p += 8 + 4 * n + _pad(m)
            elif op == 5:
                p += 8
        res.append((NFS4_SCAN_OPS[op], rst, committed))
    return status, res, True


class Nfs4Scan:
    """NFSv4 COMPOUNDs found by tcp_scan_nfs4(), keyed (connection, XID)."""

    def __init__(self):
        self.calls = {}    # key -> (minorversion, [(op, stable_how)], complete)
        self.replies = {}  # key of the call -> (status, [(op, status, committed)], complete)


def tcp_scan_nfs4(path):
    s = Nfs4Scan()
    heads = []
    for conn, runs in _tcp_runs_at(path).items():
        st = _Stream(runs)
        for start, run in runs:
            for pat, typ in ((_CALL4, 0), (_REPLY, 1)):
                i = run.find(pat)
                while i >= 8:
                    mark, xid = struct.unpack(">II", run[i - 8:i])
                    if mark & 0x80000000:
                        pos = start + i - 4  # the message's first byte (xid)
                        heads.append((typ, conn, xid, st, pos, pos + (mark & 0x7FFFFFFF)))
                    i = run.find(pat, i + 1)
    for typ, conn, xid, st, pos, end in heads:
        if typ == 0 and (conn, xid) not in s.calls:
            c = _nfs4_call(st, pos + 24, end)
            if c is not None:
                s.calls[(conn, xid)] = c
    for typ, conn, xid, st, pos, end in heads:
        key = ((conn[2], conn[3], conn[0], conn[1]), xid)
        if typ == 1 and key in s.calls and key not in s.replies:
            s.replies[key] = _nfs4_reply(st, pos + 24, end)
    return s


def tshark_nfs4_calls(path, prefs=()):
    """tshark's NFSv4 COMPOUND records: ({call key: [op names] or None},
    {call key: [result op names] or None}), keyed as tcp_scan_nfs4's
    (IPv4). None: the frame carries several RPC messages, so which
    operations are whose is not known."""
    rows = tshark_fields(path, ["ip.src", "tcp.srcport", "ip.dst", "tcp.dstport", "rpc.xid",
                                "rpc.msgtyp", "rpc.program", "rpc.programversion",
                                "rpc.procedure", "nfs.opcode"], prefs, "nfs.procedure_v4")
    calls, replies = {}, {}
    for r in rows:
        if len(r) < 10 or not r[4] or not r[0] or "100003" not in r[6].split(","):
            continue
        conn = (socket.inet_aton(r[0]), int(r[1]), socket.inet_aton(r[2]), int(r[3]))
        back = (conn[2], conn[3], conn[0], conn[1])
        xids, types, procs = r[4].split(","), r[5].split(","), r[8].split(",")
        one = len(xids) == 1 and r[7].split(",")[0] == "4"
        ops = [NFS4_SCAN_OPS.get(int(o), "op%s" % o) for o in r[9].split(",") if o]
        for x, t, pr in zip(xids, types, procs if len(procs) == len(xids) else ["1"] * len(xids)):
            if pr != "1":  # NULL (or another program's message in the frame)
                continue
            if t == "0":
                calls[(conn, int(x, 16))] = ops if one else None
            else:
                replies[(back, int(x, 16))] = ops if one else None
    return calls, replies


_TD_REQ = re.compile(r"^(\d+\.\d+) IP6? (\S+) > (\S+): .*?NFS request xid (\d+) \d+ (\w+)")
_TD_REP = re.compile(r"^(\d+\.\d+) IP6? (\S+) > (\S+): .*?NFS reply xid (\d+) reply")


def _secs(text):
    """tcpdump -tt's time; microseconds are exact in a float of this size."""
    return float(text)


class Tcpdump:
    """tcpdump's NFS lines, matched: calls once per (connection, XID)."""

    def __init__(self, path):
        cmd = ["tcpdump", "-nn", "-tt", "-r", "-"]
        data = _read(path)
        out = subprocess.run(cmd, input=data, capture_output=True, check=True).stdout
        self.calls = {}          # (client, server, xid) -> (proc, time of first line)
        self.retransmissions = 0
        self.answered = {}       # key -> latency in microseconds
        self.duplicates = 0
        self.orphans = 0
        for line in out.decode(errors="replace").splitlines():
            m = _TD_REQ.match(line)
            if m:
                key = (m[2], m[3], m[4])
                if key in self.calls:
                    self.retransmissions += 1
                else:
                    self.calls[key] = (m[5], _secs(m[1]))
                continue
            m = _TD_REP.match(line)
            if m:
                key = (m[3], m[2], m[4])
                if key not in self.calls:
                    self.orphans += 1
                elif key in self.answered:
                    self.duplicates += 1
                else:
                    self.answered[key] = round((_secs(m[1]) - self.calls[key][1]) * 1e6)

    def count(self, proc):
        return sum(1 for p, _ in self.calls.values() if p == proc)

    def replies(self, proc):
        return sum(1 for k, (p, _) in self.calls.items() if p == proc and k in self.answered)

    def unanswered(self):
        return len(self.calls) - len(self.answered)

    def latencies(self, proc):
        return [v for k, v in self.answered.items() if self.calls[k][0] == proc]


def tshark_fields(path, fields, prefs=(), dfilter=None):
    """tshark -T fields rows (lists of strings) with the given preferences,
    port 2049 decoded as RPC (as in the public truth files), of the frames
    that pass the display filter if one is given."""
    cmd = ["tshark", "-n", "-r", "-", "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,",
           "-d", "udp.port==2049,rpc", "-d", "tcp.port==2049,rpc"]
    if dfilter:
        cmd += ["-Y", dfilter]
    for p in prefs:
        cmd += ["-o", p]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, input=_read(path), capture_output=True, check=True).stdout
    return [line.split("\t") for line in out.decode().splitlines()]
