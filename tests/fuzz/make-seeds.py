#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""make-seeds.py: (re)generate the committed seed corpora in tests/fuzz/corpus/.

    tests/fuzz/make-seeds.py            # from the repository root or anywhere

Inputs are only the repository's own samples/ (never ../shared/pcaps).
  fuzz_pcap/    the two small captures whole (< 60 KB), the first packets of
                the others (~12 KB each), a pcapng slice, nanosecond and
                big-endian rewrites
  fuzz_stream/  the TCP segments of samples/all-ops.pcap in FuzzBuffer form
                ("\\1PKT" + flags + extra + payload, see fuzz_stream.c), whole
                and cut, plus variants with loss, reordering and truncation
  fuzz_nfs3/    call arguments / reply results of every procedure seen
                (header layout in fuzz_nfs3.c)
  fuzz_rpc/     whole RPC messages, one per (type, program, procedure), and a
                few hand-made headers (AUTH_NONE, RPCSEC_GSS, denied replies)
  fuzz_nfs4/    every COMPOUND call (and its reply) of the NFSv4 samples, whole
                and as head + tail (header layout in fuzz_nfs4.c); a WRITE
                call whose data's middle is missing, resumed from its tail;
                a hand-made CB_COMPOUND call and reply
  fuzz_capfile/ the first packets of samples/all-ops.pcap (~3 KB) compressed:
                gzip (two members: the halves), zstd, xz, bzip2; zstd through
                the zstd program (skipped with a note if it is not installed)
  gss-*, tls-*  hand-made RPCSEC_GSS (RFC 2203: integrity, privacy, control
                messages, checksum verifiers) and RPC-over-TLS (RFC 9289: the
                AUTH_TLS probe, STARTTLS, TLS records) messages for fuzz_rpc,
                and streams of them for fuzz_stream, whole and with loss
Deterministic: the same samples give the same files. Only the standard
library is used, and the zstd program for the zstd seed.

    tests/fuzz/make-seeds.py fuzz_capfile   # only the steps writing these targets'
                                            # seeds (listed in main())"""
import bz2
import gzip
import lzma
import os
import random
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..'))
SAMPLES = os.path.join(ROOT, 'samples')
CORPUS = os.path.join(HERE, 'corpus')
MAGIC = b'\x01PKT'


def read_pcap(path):
    """(header fields, [(ts_sec, ts_frac, caplen, wirelen, data)]) of a classic pcap."""
    d = open(path, 'rb').read()
    magic = struct.unpack('<I', d[:4])[0]
    if magic in (0xa1b2c3d4, 0xa1b23c4d):
        e = '<'
    else:
        e = '>'
        magic = struct.unpack('>I', d[:4])[0]
    _, vmaj, vmin, zone, sigfigs, snap, linktype = struct.unpack(e + 'IHHiIII', d[:24])
    pkts, off = [], 24
    while off + 16 <= len(d):
        s, f, cl, wl = struct.unpack(e + 'IIII', d[off:off + 16])
        pkts.append((s, f, cl, wl, d[off + 16:off + 16 + cl]))
        off += 16 + cl
    return dict(magic=magic, snap=snap, linktype=linktype), pkts


def pcap_bytes(linktype, pkts, nano=False, endian='<', snap=262144):
    magic = 0xa1b23c4d if nano else 0xa1b2c3d4
    out = [struct.pack(endian + 'IHHiIII', magic, 2, 4, 0, 0, snap, linktype)]
    for s, f, cl, wl, data in pkts:
        out.append(struct.pack(endian + 'IIII', s, f, cl, wl) + data)
    return b''.join(out)


def write_pcap(path, linktype, pkts, nano=False, endian='<', snap=262144):
    open(path, 'wb').write(pcap_bytes(linktype, pkts, nano, endian, snap))


def first_bytes(pkts, budget):
    out, n = [], 0
    for p in pkts:
        if out and n + len(p[4]) > budget:
            break
        out.append(p)
        n += len(p[4]) + 16
    return out


def pcapng_slice(path, budget):
    """Section header, interface blocks, and packet blocks up to budget bytes."""
    d = open(path, 'rb').read()
    e = '<' if d[8:12] == b'\x4d\x3c\x2b\x1a' else '>'
    out, n, off = [], 0, 0
    while off + 12 <= len(d):
        btype, blen = struct.unpack(e + 'II', d[off:off + 8])
        if blen < 12 or off + blen > len(d):
            break
        block = d[off:off + blen]
        if btype in (0x0A0D0D0A, 1) or n + blen <= budget:
            out.append(block)
            if btype not in (0x0A0D0D0A, 1):
                n += blen
        off += blen
    return b''.join(out)


def l4(linktype, data):
    """(proto, src, sport, dst, dport, seq, ack, flags, payload) or None. Ethernet/SLL2, v4/v6."""
    if linktype == 1:
        et, off = struct.unpack('>H', data[12:14])[0], 14
        while et in (0x8100, 0x88a8) and len(data) >= off + 4:
            et, off = struct.unpack('>H', data[off + 2:off + 4])[0], off + 4
    elif linktype == 276:
        et, off = struct.unpack('>H', data[0:2])[0], 20
    else:
        return None
    ip = data[off:]
    if et == 0x0800 and len(ip) >= 20:
        ihl = (ip[0] & 15) * 4
        tot = struct.unpack('>H', ip[2:4])[0]
        if struct.unpack('>H', ip[6:8])[0] & 0x3fff:
            return None  # fragment
        proto, src, dst, t = ip[9], ip[12:16], ip[16:20], ip[ihl:tot]
    elif et == 0x86dd and len(ip) >= 40:
        proto, src, dst = ip[6], ip[8:24], ip[24:40]
        t = ip[40:40 + struct.unpack('>H', ip[4:6])[0]]
    else:
        return None
    if proto == 6 and len(t) >= 20:
        sp, dp, seq, ack = struct.unpack('>HHII', t[:12])
        return (6, src, sp, dst, dp, seq, ack, t[13], t[(t[12] >> 4) * 4:])
    if proto == 17 and len(t) >= 8:
        sp, dp = struct.unpack('>HH', t[:4])
        return (17, src, sp, dst, dp, 0, 0, 0, t[8:])
    return None


def tcp_segments(linktype, pkts):
    """[(conn index, dir, flags, payload)] in capture order; dir 1 = from port 2049 side."""
    conns, out = {}, []
    for p in pkts:
        r = l4(linktype, p[4])
        if not r or r[0] != 6:
            continue
        _, src, sp, dst, dp, seq, ack, fl, pay = r
        key = tuple(sorted([(src, sp), (dst, dp)]))
        if key not in conns:
            conns[key] = len(conns)
        servers = (2049, 20048, 111)
        d = 1 if sp in servers else 0 if dp in servers else int(sp < dp)
        out.append((conns[key], d, fl, pay))
    return out


def fuzzbuf(segs, tweak=None):
    out = []
    for i, (ci, d, fl, pay) in enumerate(segs):
        f = d
        if fl & 0x02:
            f |= 0x02
        if fl & 0x01:
            f |= 0x04
        if fl & 0x04:
            f |= 0x80
        if tweak:
            f |= tweak(i)
        out.append(MAGIC + bytes([f, (ci & 7) << 4]) + pay)
    return b''.join(out)


def tcp_records(payloads):
    """Split one direction's concatenated stream into RPC records (marks removed)."""
    s, off, recs, cur = b''.join(payloads), 0, [], b''
    while off + 4 <= len(s):
        mark = struct.unpack('>I', s[off:off + 4])[0]
        n = mark & 0x7fffffff
        cur += s[off + 4:off + 4 + n]
        off += 4 + n
        if mark & 0x80000000:
            recs.append(cur)
            cur = b''
    return recs


def rpc_messages(linktype, pkts):
    msgs = []
    streams = {}
    for p in pkts:
        r = l4(linktype, p[4])
        if not r:
            continue
        proto, src, sp, dst, dp, _, _, _, pay = r
        if proto == 17 and pay:
            msgs.append(pay)
        elif proto == 6 and pay:
            streams.setdefault((src, sp, dst, dp), []).append(pay)
    for k in streams:
        msgs += tcp_records(streams[k])
    return msgs


def opaque_auth_end(m, off):
    ln = struct.unpack('>I', m[off + 4:off + 8])[0]
    return off + 8 + ((ln + 3) & ~3)


def parse_rpc(m):
    """('call', xid, prog, vers, proc, body) / ('reply', xid, body) / None."""
    try:
        xid, mtype = struct.unpack('>II', m[:8])
        if mtype == 0:
            _, prog, vers, proc = struct.unpack('>IIII', m[8:24])
            off = opaque_auth_end(m, 24)
            off = opaque_auth_end(m, off)
            return ('call', xid, prog, vers, proc, m[off:])
        stat = struct.unpack('>I', m[8:12])[0]
        if stat != 0:
            return None
        off = opaque_auth_end(m, 12)
        if struct.unpack('>I', m[off:off + 4])[0] != 0:
            return None
        return ('reply', xid, m[off + 4:])
    except struct.error:
        return None


def put(dirname, name, data):
    d = os.path.join(CORPUS, dirname)
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, name), 'wb').write(data)


def seeds_pcap():
    t = 'fuzz_pcap'
    for name in ('all-ops.pcap', 'all-ops-udp.pcap'):
        data = open(os.path.join(SAMPLES, name), 'rb').read()
        assert len(data) < 60000, name
        put(t, name, data)
    for name in ('cooked-any.pcap', 'ipv6.pcap', 'udp-frag.pcap', 'stable-writes.pcap',
                 'ls-storm.pcap', 'bulk-io.pcap', 'cms-page.pcap'):
        hdr, pkts = read_pcap(os.path.join(SAMPLES, name))
        out = os.path.join(CORPUS, t, name.replace('.pcap', '-head.pcap'))
        write_pcap(out, hdr['linktype'], first_bytes(pkts, 12000),
                   nano=hdr['magic'] == 0xa1b23c4d)
    hdr, pkts = read_pcap(os.path.join(SAMPLES, 'all-ops.pcap'))
    nano = [(s, f * 1000, cl, wl, d) for s, f, cl, wl, d in pkts[:24]]
    write_pcap(os.path.join(CORPUS, t, 'all-ops-nano.pcap'), 1, nano, nano=True)
    write_pcap(os.path.join(CORPUS, t, 'all-ops-bigendian.pcap'), 1, pkts[:24], endian='>')
    # Snaplen 96: every NFS message cut short.
    cut = [(s, f, min(cl, 96), wl, d[:96]) for s, f, cl, wl, d in pkts[:40]]
    write_pcap(os.path.join(CORPUS, t, 'all-ops-snap96.pcap'), 1, cut, snap=96)
    put(t, 'multi-client-head.pcapng',
        pcapng_slice(os.path.join(SAMPLES, 'multi-client.pcapng'), 12000))


def seeds_capfile():
    """A valid capture, compressed each way the reader decompresses."""
    t = 'fuzz_capfile'
    hdr, pkts = read_pcap(os.path.join(SAMPLES, 'all-ops.pcap'))
    cap = pcap_bytes(hdr['linktype'], first_bytes(pkts, 3000))
    half = len(cap) // 2
    gz = gzip.compress(cap[:half], 9, mtime=0) + gzip.compress(cap[half:], 9, mtime=0)
    xz = lzma.compress(cap, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64)
    bz = bz2.compress(cap, 9)
    assert gzip.decompress(gz) == cap and lzma.decompress(xz) == cap and bz2.decompress(bz) == cap
    put(t, 'gzip-two-members', gz)
    put(t, 'xz', xz)
    put(t, 'bzip2', bz)
    if shutil.which('zstd'):
        z = subprocess.run(['zstd', '-q', '-19', '-c'], input=cap, stdout=subprocess.PIPE,
                           check=True).stdout
        put(t, 'zstd', z)
    else:
        print('zstd not installed: %s/zstd left as it is' % t, file=sys.stderr)


def seeds_stream():
    t = 'fuzz_stream'
    hdr, pkts = read_pcap(os.path.join(SAMPLES, 'all-ops.pcap'))
    segs = tcp_segments(hdr['linktype'], pkts)
    whole = fuzzbuf(segs)
    if len(whole) <= 60000:
        put(t, 'all-ops-whole', whole)
    put(t, 'all-ops-first40', fuzzbuf(segs[:40]))
    put(t, 'all-ops-mid-start', fuzzbuf(segs[7:47]))  # no SYN: starts mid-stream
    rnd = random.Random(8)
    put(t, 'all-ops-reorder', fuzzbuf(segs[:60], lambda i: 0x20 if rnd.random() < 0.15 else 0))
    put(t, 'all-ops-loss', fuzzbuf(segs[:60], lambda i: 0x40 if rnd.random() < 0.08 else 0))
    put(t, 'all-ops-trunc', fuzzbuf(segs[:60], lambda i: 0x10 if rnd.random() < 0.2 else 0))
    # Every payload split into 3-byte segments: marks and headers cut everywhere.
    small = []
    for ci, d, fl, pay in segs[:14]:
        if not pay:
            small.append((ci, d, fl, pay))
        for i in range(0, len(pay), 3):
            small.append((ci, d, fl if i + 3 >= len(pay) else fl & ~1, pay[i:i + 3]))
    put(t, 'all-ops-tiny-segments', fuzzbuf(small))


def seeds_rpc_and_nfs3():
    msgs = []
    for name in ('all-ops.pcap', 'all-ops-udp.pcap'):
        hdr, pkts = read_pcap(os.path.join(SAMPLES, name))
        msgs += rpc_messages(hdr['linktype'], pkts)
    calls, seen_rpc, seen_nfs = {}, set(), set()
    for m in msgs:
        r = parse_rpc(m)
        if not r:
            continue
        if r[0] == 'call':
            _, xid, prog, vers, proc, body = r
            calls[xid] = (prog, vers, proc, body)
            key = ('call', prog, vers, proc)
        else:
            c = calls.get(r[1])
            if not c:
                continue
            prog, vers, proc, cbody = c
            key = ('reply', prog, vers, proc)
        if key not in seen_rpc:
            seen_rpc.add(key)
            put('fuzz_rpc', '%s-%d-v%d-%d' % key, m[:4096])
        if key in seen_nfs:
            continue
        seen_nfs.add(key)
        hdr3 = bytes([prog & 0xff, vers & 0xff])
        if r[0] == 'call':
            put('fuzz_nfs3', 'call-%d-v%d-%d' % key[1:], hdr3 + bytes([proc & 0x3f]) + body[:4096])
        else:
            args = cbody[:1024]
            put('fuzz_nfs3', 'reply-%d-v%d-%d' % key[1:],
                hdr3 + bytes([0x80 | (proc & 0x3f)]) + struct.pack('>H', len(args)) + args +
                r[2][:4096])
    # Hand-made headers the samples lack.
    def call(flavor, cred, proc=0):
        return struct.pack('>IIIIII', 0x1234, 0, 2, 100003, 3, proc) + \
            struct.pack('>II', flavor, len(cred)) + cred + struct.pack('>II', 0, 0)
    put('fuzz_rpc', 'hand-call-auth-none', call(0, b''))
    put('fuzz_rpc', 'hand-call-gss-data',
        call(6, struct.pack('>IIII', 1, 0, 2, 4) + b'ctx1', 6)[:-8] +
        struct.pack('>II', 6, 8) + b'\0' * 8 + b'\0' * 16)
    put('fuzz_rpc', 'hand-call-auth-sys-16-gids',
        call(1, struct.pack('>II', 1, 4) + b'host' + struct.pack('>III', 0, 0, 16) +
             struct.pack('>16I', *range(16))))
    put('fuzz_rpc', 'hand-reply-denied-mismatch', struct.pack('>IIIIII', 0x1234, 1, 1, 0, 2, 2))
    put('fuzz_rpc', 'hand-reply-denied-auth', struct.pack('>IIIII', 0x1234, 1, 1, 1, 5))
    put('fuzz_rpc', 'hand-reply-prog-mismatch',
        struct.pack('>IIIIIIII', 0x1234, 1, 0, 0, 0, 2, 3, 3))


def io_op(args):
    """The op after SEQUENCE and PUTFH (or after PUTFH) of COMPOUND4args."""
    try:
        tag = struct.unpack('>I', args[:4])[0]
        off = 4 + ((tag + 3) & ~3) + 8
        op = struct.unpack('>I', args[off:off + 4])[0]
        if op == 53:  # SEQUENCE4args: 32 bytes
            off += 36
            op = struct.unpack('>I', args[off:off + 4])[0]
        if op == 22:  # PUTFH: nfs_fh4<>
            n = struct.unpack('>I', args[off + 4:off + 8])[0]
            off += 8 + ((n + 3) & ~3)
            op = struct.unpack('>I', args[off:off + 4])[0]
        return op
    except struct.error:
        return None
def seeds_gss_tls():
    """RPCSEC_GSS and RPC-over-TLS, which the samples lack."""
    def hdr(xid, proc, flavor, cred, vflavor=0, verf=b'', vers=3):
        return struct.pack('>IIIIII', xid, 0, 2, 100003, vers, proc) + \
            struct.pack('>II', flavor, len(cred)) + cred + \
            struct.pack('>II', vflavor, len(verf)) + verf

    def gcred(gproc, seq, svc, handle=b'ctx1'):
        return struct.pack('>IIIII', 1, gproc, seq, svc, len(handle)) + handle

    def opq(b):
        return struct.pack('>I', len(b)) + b + b'\0' * (-len(b) % 4)

    def reply(xid, res, vflavor=6, verf=b'\xa5' * 28):
        return struct.pack('>IIIII', xid, 1, 0, vflavor, len(verf)) + verf + b'\0' * 4 + res

    fh = opq(b'\x01' * 16)
    lookup = fh + opq(b'foo')
    integ_call = hdr(0x21, 3, 6, gcred(0, 5, 2), 6, b'\x5a' * 28) + \
        opq(struct.pack('>I', 5) + lookup) + opq(b'\xc3' * 28)
    integ_reply = reply(0x21, opq(struct.pack('>II', 5, 2) + b'\0' * 4) + opq(b'\xc3' * 28))
    priv_call = hdr(0x22, 1, 6, gcred(0, 6, 3), 6, b'\x5a' * 28) + opq(b'\x99' * 60)
    priv_reply = reply(0x22, opq(b'\x98' * 40))
    init_call = hdr(0x23, 0, 6, gcred(1, 0, 1, b''), 0, b'') + opq(b'\x60\x82' + b'\x11' * 30)
    init_reply = reply(0x23, opq(b'ctx1') + struct.pack('>IIII', 0, 0, 128, 0), 0, b'')
    destroy_call = hdr(0x24, 0, 6, gcred(3, 7, 1), 6, b'\x5a' * 28)
    probe = hdr(0x25, 0, 7, b'', vers=4)
    starttls = struct.pack('>IIIII', 0x25, 1, 0, 0, 8) + b'STARTTLS' + b'\0' * 4
    for name, m in (('gss-integ-call', integ_call), ('gss-integ-reply', integ_reply),
                    ('gss-priv-call', priv_call), ('gss-priv-reply', priv_reply),
                    ('gss-init-call', init_call), ('gss-init-reply', init_reply),
                    ('gss-destroy-call', destroy_call), ('tls-probe-call', probe),
                    ('tls-starttls-reply', starttls)):
        put('fuzz_rpc', name, m)

    def rec(m):
        return struct.pack('>I', 0x80000000 | len(m)) + m

    def tls(t, n, fill):
        return struct.pack('>BHH', t, 0x0303, n) + bytes([fill]) * n

    def seg(d, pay, f=0):
        return MAGIC + bytes([d | f, 0]) + pay

    gss = [seg(2, b''), seg(0, rec(init_call)), seg(1, rec(init_reply)),
           seg(0, rec(integ_call) + rec(priv_call)), seg(1, rec(integ_reply)),
           seg(1, rec(priv_reply)), seg(0, rec(destroy_call))]
    put('fuzz_stream', 'gss-krb5-mix', b''.join(gss))
    t = [seg(2, b''), seg(0, rec(probe)), seg(1, rec(starttls)), seg(0, tls(22, 60, 1)),
         seg(1, tls(22, 90, 2) + tls(20, 1, 1) + tls(23, 200, 3)[:100]),
         seg(1, tls(23, 200, 3)[100:] + tls(23, 40, 4)), seg(0, tls(23, 500, 5))]
    put('fuzz_stream', 'tls-after-probe', b''.join(t))
    t[4] = seg(1, t[4][6:], 0x40)  # the middle of a record lost
    put('fuzz_stream', 'tls-after-probe-loss', b''.join(t))
    # The STARTTLS reply and the server's first TLS bytes in one segment.
    put('fuzz_stream', 'tls-same-segment',
        b''.join([seg(2, b''), seg(0, rec(probe)), seg(1, rec(starttls) + tls(22, 30, 6)),
                  seg(0, tls(23, 20, 7))]))


def seeds_nfs4():
    """COMPOUND calls and call+reply pairs of the NFSv4 samples, distinct by
    the ops of the call (layout in fuzz_nfs4.c)."""
    seen, tails = set(), set()
    for name in ('nfs41-session.pcap', 'nfs42-ops.pcap', 'nfs41-rep-too-big.pcap'):
        hdr, pkts = read_pcap(os.path.join(SAMPLES, name))
        calls = {}
        for m in rpc_messages(hdr['linktype'], pkts):
            r = parse_rpc(m)
            if not r:
                continue
            if r[0] == 'call':
                _, xid, prog, vers, proc, body = r
                if prog == 100003 and vers == 4 and proc == 1:
                    calls[xid] = body
                continue
            args = calls.pop(r[1], None)
            if args is None:
                continue
            try:  # the call's op numbers name the seed
                tag = struct.unpack('>I', args[:4])[0]
                off = 4 + ((tag + 3) & ~3) + 8
                op = struct.unpack('>I', args[off:off + 4])[0]
            except struct.error:
                continue
            key = (name, len(args) // 64, op)
            if key in seen:
                continue
            seen.add(key)
            stem = '%s-%d-%d' % (name[:-5], op, len(seen))
            whole_args, whole_res, io = args, r[2], io_op(args)
            args, res = args[:4096], r[2][:4096]
            put('fuzz_nfs4', stem + '-call', b'\x00\x00\x00' + args)
            put('fuzz_nfs4', stem + '-reply',
                b'\x80\x00\x00' + struct.pack('>H', len(args)) + args + res)
            if len(res) > 64:  # the reply from a head and a 32-byte tail 16 bytes off
                put('fuzz_nfs4', stem + '-reply-tail',
                    b'\xa0\x20\x04' + struct.pack('>H', len(args)) + args + res)
            # WRITE data (a call) or READ data (a reply) whose middle the RPC
            # layer did not keep: 1,020 bytes cut out of the data, the message
            # decoded from its head and a 64-byte tail that resumes after it.
            for kind, body, ctl, want in (('call', whole_args, 0x20, 38),
                                          ('reply', whole_res, 0xa0, 25)):
                if len(body) > 1400 and io == want and kind not in tails:
                    tails.add(kind)
                    cut = body[:len(body) - 64 - 1020] + body[len(body) - 64:]
                    pre = struct.pack('>H', len(args)) + args if kind == 'reply' else b''
                    put('fuzz_nfs4', '%s-%s-data-tail' % (stem, kind),
                        bytes([ctl, 65, 255]) + pre + cut)
    # CB_COMPOUND (RFC 8881 §20.2): CB_SEQUENCE then CB_RECALL, and its reply.
    cb = struct.pack('>IIII', 0, 1, 0, 2)  # tag "", minorversion 1, callback_ident, 2 ops
    cb += struct.pack('>I', 11) + b'\x5a' * 16 + struct.pack('>IIIII', 7, 0, 0, 0, 0)
    cb += struct.pack('>I', 4) + struct.pack('>I', 1) + b'\x33' * 12 + struct.pack('>I', 0)
    cb += struct.pack('>I', 8) + b'\xfe' * 8
    put('fuzz_nfs4', 'hand-cb-sequence-recall-call', b'\x40\x00\x00' + cb)
    res = struct.pack('>III', 0, 0, 2) + struct.pack('>II', 11, 0) + b'\x5a' * 16
    res += struct.pack('>IIII', 7, 0, 0, 0) + struct.pack('>II', 4, 0)
    put('fuzz_nfs4', 'hand-cb-sequence-recall-reply',
        b'\xc0\x00\x00' + struct.pack('>H', len(cb)) + cb + res)


def main():
    if not os.path.isdir(SAMPLES):
        sys.exit('samples/ not found at %s' % SAMPLES)
    only = set(sys.argv[1:])
    steps = [(('fuzz_pcap',), seeds_pcap), (('fuzz_capfile',), seeds_capfile),
             (('fuzz_stream',), seeds_stream), (('fuzz_rpc', 'fuzz_nfs3'), seeds_rpc_and_nfs3),
             (('fuzz_nfs4',), seeds_nfs4), (('fuzz_rpc', 'fuzz_stream'), seeds_gss_tls)]
    for targets, step in steps:
        if not only or only.intersection(targets):
            step()
    for t in sorted(os.listdir(CORPUS)):
        files = os.listdir(os.path.join(CORPUS, t))
        size = sum(os.path.getsize(os.path.join(CORPUS, t, f)) for f in files)
        print('%-12s %3d files %7d bytes' % (t, len(files), size))


if __name__ == '__main__':
    main()
