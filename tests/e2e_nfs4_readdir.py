#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_nfs4_readdir.py: names an NFSv4 READDIR teaches (RFC 8881 §18.23:
entry4 names with FATTR4_FILEHANDLE in their attributes), as NFSv3
READDIRPLUS teaches them, hostile ones escaped.

A synthetic NFSv4.0 capture (tests/pcapsyn.py): PUTROOTFH + GETFH (the root,
"/"), PUTFH(root) + READDIR listing two entries with their handles, one name
carrying an escape sequence and a newline, then a GETATTR and a READ on each
entry's handle. tshark's decoding of the READDIR reply (nfs.name,
nfs.fhandle per entry) is the oracle: the file breakdown's rows of those
handles must be named "/" + the entry's name, and the text report must
carry no control byte of the names, nor the CSV report's rows of the
hostile file (its file_nfs4_op rows with the results tshark gives its
handle). Then the public NFSv4.1 capture of a
Linux client listing its directories: every READDIR entry tshark decodes
with its handle names that handle's file row "PARENT/" + the entry's name
(but the names a RENAME moved).

  e2e_nfs4_readdir.py NFSSCOPE WORK_DIR [PCAPS_DIR]"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402
import pcapsyn  # noqa: E402
import wire_oracle  # noqa: E402

u32, opaque = pcapsyn.u32, pcapsyn.opaque
ROOT, FH_A, FH_B = b'\x0f' * 20, b'\x0a' * 24, b'\x0b' * 28
NAMES = (b'a.txt', b'evil\x1b[31mred\nline')


def u64(v):
    return u32(v >> 32) + u32(v)


def call(ops):
    return opaque(b'') + u32(0) + u32(len(ops)) + b''.join(ops)


def reply(res):
    return u32(0) + opaque(b'') + u32(len(res)) + b''.join(res)


def entry(cookie, name, fh, fileid):
    attrs = opaque(fh) + u64(fileid)  # FATTR4_FILEHANDLE (19), FATTR4_FILEID (20)
    return u32(1) + u64(cookie) + opaque(name) + u32(1) + u32(0x00180000) + opaque(attrs)


def capture(path):
    frames = []
    c = pcapsyn.TcpConn(frames, cli=('10.8.0.1', 801), srv=('10.8.0.2', 2049))
    msgs = [
        ([u32(24), u32(10)], [u32(24) + u32(0), u32(10) + u32(0) + opaque(ROOT)]),
        ([u32(22) + opaque(ROOT),
          u32(26) + u64(0) + b'\0' * 8 + u32(4096) + u32(8192) + u32(1) + u32(0x00180000)],
         [u32(22) + u32(0),
          u32(26) + u32(0) + b'\1' * 8 + entry(1, NAMES[0], FH_A, 11) +
          entry(2, NAMES[1], FH_B, 12) + u32(0) + u32(1)]),
        ([u32(22) + opaque(FH_A), u32(9) + u32(1) + u32(0x10)],
         [u32(22) + u32(0), u32(9) + u32(0) + u32(1) + u32(0x10) + opaque(u64(5))]),
        ([u32(22) + opaque(FH_B), u32(25) + u32(0) + b'\0' * 12 + u64(0) + u32(10)],
         [u32(22) + u32(0), u32(25) + u32(0) + u32(1) + opaque(b'x' * 10)]),
    ]
    for i, (args, res) in enumerate(msgs):
        xid = 0x7000 + i
        c.send(0, pcapsyn.record(pcapsyn.rpc_call(xid, pcapsyn.NFS_PROG, 4, 1, call(args))))
        c.send(1, pcapsyn.record(pcapsyn.rpc_reply(xid, reply(res))))
    pcapsyn.write_pcap(path, frames)


def tshark_entries(path):
    """{handle hex: name} of the READDIR replies' entries, as tshark decodes
    them (replies whose names and handles pair up one to one)."""
    rows = wire_oracle.tshark_fields(path, ['nfs.name', 'nfs.fhandle'],
                                     dfilter='nfs.opcode == 26 && rpc.msgtyp == 1')
    out = {}
    for r in rows:
        names = r[0].split(',') if r[0] else []
        fhs = [f.replace(':', '') for f in r[1].split(',') if f]
        if len(names) == len(fhs):
            out.update(zip(fhs, names))
    return out


def public(nfsscope, path):
    """The names of the handles the capture lists and never renames (a
    RENAME's names, as tshark decodes them, leave their handles out: the
    names cache follows the move)."""
    renamed = {n for r in wire_oracle.tshark_fields(path, ['nfs.pathname.component'],
                                                     dfilter='nfs.opcode == 29 && rpc.msgtyp == 0')
               for n in r[0].split(',') if n}
    want = {fh: n for fh, n in tshark_entries(path).items() if n not in renamed}
    rep = json.loads(subprocess.run([nfsscope, '-r', path, '-o', 'json', '--top', '1000'],
                                    capture_output=True, check=True).stdout)
    rows = {r['fh']: r['key'] for r in rep['breakdowns']['file']['rows']}
    seen = [fh for fh in want if fh in rows]
    check(len(seen) >= 10, f'{len(seen)} listed handles have file rows')
    for fh in seen:
        name = want[fh]
        check(rows[fh].endswith('/' + name) and not rows[fh].startswith('//'),
              f'{fh[-8:]}: {rows[fh]!r} ends with "/{name}"')


def csv_escaped(nfsscope, path):
    """The CSV report's rows of the hostile file (--by file): its row and its
    file_nfs4_op rows carry the same escaped key, no control byte, and the
    operations' results tshark's decoding gives its handle
    (e2e_nfs4_file_ops.py walks the current file handle)."""
    from e2e_nfs4_file_ops import tshark_truth
    want = tshark_truth(path).get(FH_B.hex(), {})
    out = subprocess.run([nfsscope, '-r', path, '-o', 'csv', '--by', 'file'],
                         capture_output=True, check=True, text=True).stdout
    table = list(csv.reader(io.StringIO(out, newline=''), strict=True))
    col = {name: i for i, name in enumerate(table[0])}
    evil = [r for r in table[1:] if 'evil' in r[col['key']]]
    check(evil and evil[0][col['dimension']] == 'file' and
          all(r[col['key']] == evil[0][col['key']] for r in evil) and
          not any(c < ' ' for r in evil for c in r[col['key']]),
          f'csv: the hostile file\'s rows share one escaped key: {[r[:2] for r in evil]}')
    ops = {r[col['operation']]: int(r[col['replies']]) for r in evil
           if r[col['dimension']] == 'file_nfs4_op'}
    check(want and ops == want, f'csv: the hostile file\'s operations {ops}, tshark\'s {want}')


def main():
    nfsscope, work = sys.argv[1:3]
    pcaps = sys.argv[3] if len(sys.argv) > 3 else None
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, 'nfs4-readdir.pcap')
    capture(path)
    rep = json.loads(subprocess.run([nfsscope, '-r', path, '-o', 'json'], capture_output=True,
                                    check=True).stdout)
    rows = {r['fh']: r['key'] for r in rep['breakdowns']['file']['rows']}
    if shutil.which('tshark'):
        want = tshark_entries(path)
        check(set(want) == {FH_A.hex(), FH_B.hex()},
              f'tshark decodes both entries with their handles: {sorted(want)}')
        a = want.get(FH_A.hex())
        check(rows.get(FH_A.hex()) == '/' + str(a), f'{rows.get(FH_A.hex())!r} == "/{a}"')
        # tshark prints the hostile name's control bytes its own way; JSON
        # keeps the name exact (as for NFSv3, tests/e2e_termsafe.py), the
        # text report escapes it.
        check(FH_B.hex() in want, 'tshark: the hostile entry has a handle')
        check(rows.get(FH_B.hex()) == '/' + NAMES[1].decode(),
              f'the hostile entry is named exactly in JSON: {rows.get(FH_B.hex())!r}')
    else:
        print('SKIP: no tshark')
        sys.exit(1 if os.environ.get('CI') else 77)
    check(rep['breakdowns']['names_known'] >= 3, 'the root and both entries are known names')
    text = subprocess.run([nfsscope, '-r', path, '--by', 'file'], capture_output=True,
                          check=True).stdout
    check(b'\x1b' not in text and b'/a.txt' in text and b'/evil' in text and
          b'\nline' not in text, 'the text report: both named, no escape byte, no line break')
    csv_escaped(nfsscope, path)
    cap = os.path.join(pcaps or '', 'nfstrace-eth-ipv4-tcp-nfsv41.pcap')
    if pcaps and os.path.exists(cap):
        public(nfsscope, cap)
    finish()


if __name__ == '__main__':
    main()
