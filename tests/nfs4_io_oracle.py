# SPDX-License-Identifier: BSD-3-Clause
"""nfs4_io_oracle.py: tshark's view of the NFSv4 data operations of a capture,
and a synthetic capture of the ones the samples lack.

- tshark_io(path): every NFSv4 COMPOUND message tshark decodes (-T pdml, port
  2049 as RPC, TCP reassembly on), walked operation by operation: WRITE
  calls' stable_how4 and data length (nfs.stable_how4, nfs.write.data_length),
  NFS4_OK results of WRITE (nfs.count4, committed: nfs.stable_how4), READ
  (nfs.read.data_length, nfs.eof), READ_PLUS (RFC 7862 §15.10: each data
  segment's nfs.read.data_length, each hole's length, nfs.eof) and COPY
  (RFC 7862 §15.2: write_response4's count). Returns the totals and the
  power-of-two size histograms in the report's shape.
- io_capture(path): a pcap of NFSv4.2 COMPOUNDs with two WRITEs of
  different stable_how4 in one COMPOUND, a READ_PLUS with a data and a hole
  segment, a COPY answered NFS4_OK, and a READ and a READ_PLUS whose data
  runs past the 1,024 bytes nfsscope keeps of a message's head.

Standard library only."""
import collections
import subprocess
import tempfile
import xml.etree.ElementTree as ET

import pcapsyn
import wire_oracle

OP_READ, OP_WRITE, OP_COPY, OP_READ_PLUS = 25, 38, 60, 68
STABLE4 = ('UNSTABLE4', 'DATA_SYNC4', 'FILE_SYNC4')
IOSZ_BUCKETS = 22  # src/stats.h: [0] 0 bytes, [k] [2^(k-1), 2^k), the last 1 MiB and more


def bucket(n):
    return min(n.bit_length(), IOSZ_BUCKETS - 1)


def histogram(sizes):
    """The report's io_sizes list: [{lo, hi, count}] of the non-empty buckets."""
    c = collections.Counter(bucket(n) for n in sizes)
    out = []
    for k in sorted(c):
        lo = 0 if k == 0 else 1 << (k - 1)
        hi = None if k == IOSZ_BUCKETS - 1 else (0 if k == 0 else (1 << k) - 1)
        out.append({'lo': lo, 'hi': hi, 'count': c[k]})
    return out


def _ops(nfs):
    """[(opcode, [(field name, show)])] of one nfs proto element, in order."""
    ops = []
    for f in nfs.iter('field'):
        name = f.get('name')
        if name == 'nfs.opcode':
            ops.append((int(f.get('show')), []))
        elif ops and name:
            ops[-1][1].append((name, f.get('show')))
    return ops


def _first(fields, name):
    return next((v for n, v in fields if n == name), None)


def tshark_io(path):
    cmd = ['tshark', '-n', '-r', '-', '-T', 'pdml', '-d', 'udp.port==2049,rpc',
           '-d', 'tcp.port==2049,rpc', '-Y', 'nfs.procedure_v4 == 1']
    t = {'stable': collections.Counter(), 'committed': collections.Counter(),
         'write_sizes': [], 'read_sizes': [], 'read_eof': 0, 'read_plus_sizes': [],
         'read_plus_holes': 0, 'read_plus_eof': 0, 'copy_sizes': []}
    with tempfile.TemporaryFile() as src:
        src.write(wire_oracle._read(path))
        src.seek(0)
        with subprocess.Popen(cmd, stdin=src, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL) as p:
            for _, pkt in ET.iterparse(p.stdout):  # packet by packet: the data is long
                if pkt.tag == 'packet':
                    _packet(pkt, t)
                    pkt.clear()
        if p.returncode:
            raise RuntimeError(f'tshark failed on {path}')
    return t


def _packet(pkt, t):
        msgtyp = None
        for proto in pkt.iter('proto'):
            if proto.get('name') == 'rpc':
                m = next((f.get('show') for f in proto.iter('field')
                          if f.get('name') == 'rpc.msgtyp'), None)
                msgtyp = m
                continue
            if proto.get('name') != 'nfs' or msgtyp is None:
                continue
            for op, fields in _ops(proto):
                if msgtyp == '0':
                    if op == OP_WRITE:
                        t['stable'][STABLE4[int(_first(fields, 'nfs.stable_how4'))]] += 1
                        t['write_sizes'].append(int(_first(fields, 'nfs.write.data_length')))
                    continue
                if _first(fields, 'nfs.nfsstat4') != '0':
                    continue
                if op == OP_WRITE:
                    t['committed'][STABLE4[int(_first(fields, 'nfs.stable_how4'))]] += 1
                elif op == OP_READ:
                    t['read_sizes'].append(int(_first(fields, 'nfs.read.data_length')))
                    t['read_eof'] += _first(fields, 'nfs.eof') not in (None, '0')
                elif op == OP_READ_PLUS:
                    data = hole = 0
                    kind = None
                    for n, v in fields:
                        if n == 'nfs.content.type':
                            kind = v
                        elif n == 'nfs.read.data_length' and kind == '0':
                            data += int(v)
                        elif n == 'nfs.length4' and kind == '1':
                            hole += int(v)
                    t['read_plus_sizes'].append(data)
                    t['read_plus_holes'] += hole
                    t['read_plus_eof'] += _first(fields, 'nfs.eof') not in (None, '0')
                elif op == OP_COPY:
                    t['copy_sizes'].append(int(_first(fields, 'nfs.length4')))
            msgtyp = None


# ---- the synthetic capture ------------------------------------------------
u32 = pcapsyn.u32
SID = bytes(range(16))
FH_A, FH_B = b'\x01' * 24, b'\x02' * 24
STATEID = u32(1) + b'\x0a' * 12
VERF = b'\x5a' * 8


def u64(v):
    return u32(v >> 32) + u32(v)


def _call(ops):
    return pcapsyn.opaque(b'io') + u32(2) + u32(len(ops)) + b''.join(ops)


def _reply(res):
    return u32(0) + pcapsyn.opaque(b'io') + u32(len(res)) + b''.join(res)


def _seq(i):
    return u32(53) + SID + u32(i) + u32(0) + u32(0) + u32(0)


def _seq_res(i):
    return u32(53) + u32(0) + SID + u32(i) + u32(0) + u32(7) + u32(7) + u32(0)


def _putfh(fh):
    return u32(22) + pcapsyn.opaque(fh)


def _ok(op):
    return u32(op) + u32(0)


def _write(off, stable, data):
    return u32(OP_WRITE) + STATEID + u64(off) + u32(stable) + pcapsyn.opaque(data)


def _write_res(count, committed):
    return _ok(OP_WRITE) + u32(count) + u32(committed) + VERF


def _read_plus_res(eof, segs):
    body = u32(eof) + u32(len(segs))
    for kind, off, n in segs:
        if kind == 'data':
            body += u32(0) + u64(off) + pcapsyn.opaque(b'\xdd' * n)
        else:
            body += u32(1) + u64(off) + u64(n)
    return _ok(OP_READ_PLUS) + body


def io_capture(path):
    """The COMPOUNDs listed in the module's docstring, over one TCP connection."""
    frames = []
    c = pcapsyn.TcpConn(frames, cli=('10.9.0.1', 901), srv=('10.9.0.2', 2049))
    msgs = [
        ([_seq(1), _putfh(FH_A), _write(0, 0, b'\x11' * 3000), _write(3000, 2, b'\x22' * 100)],
         [_seq_res(1), _ok(22), _write_res(3000, 0), _write_res(100, 2)]),
        ([_seq(2), _putfh(FH_A), u32(OP_READ_PLUS) + STATEID + u64(0) + u32(8192)],
         [_seq_res(2), _ok(22), _read_plus_res(1, [('data', 0, 500), ('hole', 500, 7692)])]),
        ([_seq(3), _putfh(FH_A), u32(32), _putfh(FH_B),
          u32(OP_COPY) + STATEID + STATEID + u64(0) + u64(0) + u64(8192) + u32(1) + u32(1) + u32(0)],
         [_seq_res(3), _ok(22), _ok(32), _ok(22),
          _ok(OP_COPY) + u32(0) + u64(8192) + u32(2) + VERF + u32(1) + u32(1)]),
        ([_seq(4), _putfh(FH_B), u32(OP_READ) + STATEID + u64(0) + u32(65536)],
         [_seq_res(4), _ok(22), _ok(OP_READ) + u32(0) + pcapsyn.opaque(b'\xee' * 20000)]),
        ([_seq(5), _putfh(FH_B), u32(OP_READ_PLUS) + STATEID + u64(0) + u32(65536)],
         [_seq_res(5), _ok(22), _read_plus_res(0, [('data', 0, 30000)])]),
        ([_seq(6), _putfh(FH_B), _write(0, 1, b'\x33' * 40000), u32(9) + u32(1) + u32(0x18)],
         [_seq_res(6), _ok(22), _write_res(40000, 1),
          _ok(9) + u32(2) + u32(0x18) + u32(0) + u32(16) + u64(40000) + u64(7)]),
    ]
    for i, (call, reply) in enumerate(msgs):
        xid = 0x4000 + i
        c.send(0, pcapsyn.record(pcapsyn.rpc_call(xid, pcapsyn.NFS_PROG, 4, 1, _call(call))))
        c.send(1, pcapsyn.record(pcapsyn.rpc_reply(xid, _reply(reply))))
    pcapsyn.write_pcap(path, frames)
