#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_nfs4_file_ops.py: the file breakdown's per-operation counts
(`nfs4_ops`: each NFSv4 result under the current file handle it ran with)
against tshark's per-operation decoding.

tshark decodes every operation of a COMPOUND (nfs.opcode, the handle of
PUTFH arguments and GETFH results as nfs.fhandle) but tracks no current
file handle, so this script walks each call's operations itself (RFC 8881
§16.2.3.1.1): PUTFH sets the current handle to its argument; PUTROOTFH,
PUTPUBFH, LOOKUP, LOOKUPP, OPEN by name (CLAIM_NULL, CLAIM_DELEGATE_CUR,
CLAIM_DELEGATE_PREV: §18.16.3), CREATE and OPENATTR set it to a handle the
reply's GETFH names, if one does; SECINFO and SECINFO_NO_NAME consume it;
SAVEFH and RESTOREFH copy it. Each result of the reply counts under the
handle current before its operation ran, "" when none or unnamed. Every
file row of nfsscope's JSON (all rows: no eviction at these sizes) must
carry exactly those counts, the "(none)" row those of "". So must the CSV
report's file_nfs4_op rows under each file row and the text report's
"nfs4 ops:" line under it (--by file; the rows in the JSON's order).

Besides the samples and the public Linux captures, synthetic NFSv4.1
COMPOUNDs (tests/pcapsyn.py) that name many handles: six distinct PUTFH
handles in one COMPOUND, SAVEFH/RESTOREFH interleaved with them, RENAME and
LINK (SAVEFH, PUTFH), a handle named twice, LOOKUP, LOOKUPP and OPEN by name
with and without a GETFH after them, PUTROOTFH. Then COMPOUNDs of 128-byte
handles, more than a pending call has room for (nfsscope(1): the handles
after the names in 255 bytes, 3 bytes of entry each): the results of the
handles not kept go to "(none)", each such PUTFH counted in the
nfs4_fh_not_kept anomaly.

  e2e_nfs4_file_ops.py NFSSCOPE WORK_DIR SAMPLES_DIR [PCAPS_DIR]"""
import collections
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish, skip_part  # noqa: E402
import pcapsyn  # noqa: E402
from plaincap import plain  # noqa: E402

u32, opaque = pcapsyn.u32, pcapsyn.opaque

PUTFH, GETFH, SAVEFH, RESTOREFH, OPEN, PUTROOTFH = 22, 10, 32, 31, 18, 24
# LOOKUP LOOKUPP OPEN CREATE OPENATTR PUTPUBFH PUTROOTFH start a new current
# handle; SECINFO, SECINFO_NO_NAME leave none (§18.29.3, §18.45.3).
SETS = {15, 16, 18, 6, 19, 23, 24, 33, 52}
OPEN_BY_NAME = (0, 2, 3)
NAMES = {3: 'access', 4: 'close', 5: 'commit', 6: 'create', 7: 'delegpurge', 8: 'delegreturn',
         9: 'getattr', 10: 'getfh', 11: 'link', 12: 'lock', 13: 'lockt', 14: 'locku', 15: 'lookup',
         16: 'lookupp', 17: 'nverify', 18: 'open', 19: 'openattr', 20: 'open_confirm',
         21: 'open_downgrade', 22: 'putfh', 23: 'putpubfh', 24: 'putrootfh', 25: 'read',
         26: 'readdir', 27: 'readlink', 28: 'remove', 29: 'rename', 30: 'renew', 31: 'restorefh',
         32: 'savefh', 33: 'secinfo', 34: 'setattr', 35: 'setclientid', 36: 'setclientid_confirm',
         37: 'verify', 38: 'write', 39: 'release_lockowner', 40: 'backchannel_ctl',
         41: 'bind_conn_to_session', 42: 'exchange_id', 43: 'create_session',
         44: 'destroy_session', 45: 'free_stateid', 46: 'get_dir_delegation', 47: 'getdeviceinfo',
         48: 'getdevicelist', 49: 'layoutcommit', 50: 'layoutget', 51: 'layoutreturn',
         52: 'secinfo_no_name', 53: 'sequence', 54: 'set_ssv', 55: 'test_stateid',
         56: 'want_delegation', 57: 'destroy_clientid', 58: 'reclaim_complete',
         59: 'allocate', 60: 'copy', 61: 'copy_notify', 62: 'deallocate', 63: 'io_advise',
         64: 'layouterror', 65: 'layoutstats', 66: 'offload_cancel', 67: 'offload_status',
         68: 'read_plus', 69: 'seek', 70: 'write_same', 71: 'clone', 72: 'getxattr',
         73: 'setxattr', 74: 'listxattrs', 75: 'removexattr'}


def messages(pdml):
    """(tcp stream, xid, msgtyp, [(opcode, handle hex or None, sets_fh)]) of
    each NFSv4 COMPOUND message, in capture order (several per packet)."""
    for _, el in ET.iterparse(pdml):
        if el.tag != 'packet':
            continue
        stream = cur = None
        for p in el.findall('proto'):
            name = p.get('name')
            if name in ('tcp', 'udp'):
                for f in p.iter('field'):
                    if f.get('name') in ('tcp.stream', 'udp.stream'):
                        stream = name + f.get('show')
            elif name == 'rpc':
                xid = typ = None
                for f in p.iter('field'):
                    if f.get('name') == 'rpc.xid' and xid is None:
                        xid = f.get('show')
                    if f.get('name') == 'rpc.msgtyp' and typ is None:
                        typ = f.get('show')
                cur = (stream, xid, typ)
            elif name == 'nfs' and cur:
                proc = [f.get('show') for f in p.iter('field')
                        if f.get('name') == 'nfs.procedure_v4']
                ops = []
                for f in p.iter('field'):
                    if f.get('name') != 'nfs.opcode':
                        continue
                    fh = claim = None
                    for c in f.iter('field'):
                        if c.get('name') == 'nfs.fhandle' and fh is None:
                            fh = c.get('value')
                        if c.get('name') == 'nfs.open.claim_type' and claim is None:
                            claim = int(c.get('show'))
                    op = int(f.get('show'))
                    sets = op in SETS and not (op == OPEN and claim is not None and
                                               claim not in OPEN_BY_NAME)
                    ops.append((op, fh, sets))
                if proc == ['1']:
                    yield cur + (ops,)
                cur = None
        el.clear()


def truth(pdml):
    """{handle hex ('' none): Counter(op name: results)} from tshark."""
    calls = {}
    counts = collections.defaultdict(collections.Counter)
    for stream, xid, typ, ops in messages(pdml):
        if typ == '0':
            calls[(stream, xid)] = ops
            continue
        cops = calls.pop((stream, xid), None)
        if cops is None:
            continue
        gen_fh, cur, saved, ran = {0: None}, 0, 0, []
        for op, fh, sets in cops:
            ran.append(cur)
            if op == PUTFH:
                cur = len(gen_fh)
                gen_fh[cur] = fh
            elif sets:
                cur = len(gen_fh)
                gen_fh[cur] = None
            elif op == SAVEFH:
                saved = cur
            elif op == RESTOREFH:
                cur = saved
        for i, (op, fh, _) in enumerate(ops[:len(cops)]):
            if op == GETFH and fh and gen_fh.get(ran[i]) is None:
                gen_fh[ran[i]] = fh
        for i, (op, _, _) in enumerate(ops[:len(cops)]):
            counts[gen_fh.get(ran[i]) or ''][NAMES.get(op, 'op%d' % op)] += 1
    return counts


def tshark_truth(pcap):
    """{handle hex ('' none): {op name: results}} of pcap, by tshark (its
    PDML parsed as it comes: 1.7 GB for the public NFSv4.0 capture)."""
    with subprocess.Popen(['tshark', '-r', pcap, '-T', 'pdml', '-Y', 'nfs'],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as p:
        got = {fh: dict(c) for fh, c in truth(p.stdout).items()}
    check(p.returncode == 0, f'{os.path.basename(pcap)}: tshark exit {p.returncode}')
    return got


def compare(nfsscope, pcap, not_kept=()):
    """not_kept: handles (hex) whose results go to "(none)", each PUTFH of
    them counted in nfs4_fh_not_kept, as many as `not_kept` lists."""
    base = os.path.basename(pcap)
    want = {fh: collections.Counter(c) for fh, c in tshark_truth(pcap).items()}
    for fh in set(not_kept):
        check(fh in want, f'{base}: tshark decodes results under {fh[:16]}...')
        want.setdefault('', collections.Counter()).update(want.pop(fh, {}))
    want = {fh: dict(c) for fh, c in want.items()}
    report = json.loads(subprocess.run([nfsscope, '-r', pcap, '-o', 'json', '--top', '1000000'],
                                       check=True, capture_output=True).stdout)
    files = report['breakdowns']['file']
    check(files['evicted'] == 0 and not files['other']['nfs4_ops'],
          f'{base}: no file row evicted')
    got = {r['fh']: r['nfs4_ops'] for r in files['rows'] if r['nfs4_ops']}
    check(sum(map(len, want.values())) > 0, f'{base}: tshark decodes NFSv4 results')
    for fh in sorted(set(want) | set(got)):
        check(got.get(fh, {}) == want.get(fh, {}),
              f'{base}: file {fh or "(none)"}: tshark {want.get(fh)} nfsscope {got.get(fh)}')
    check(report['anomalies']['nfs4_fh_not_kept'] == len(not_kept),
          f'{base}: nfs4_fh_not_kept {report["anomalies"]["nfs4_fh_not_kept"]} == '
          f'{len(not_kept)}')
    rows = files['rows']
    csv_ops(nfsscope, pcap, base, [want.get(r['fh'], {}) for r in rows], [r['key'] for r in rows])
    text_ops(nfsscope, pcap, base, [want.get(r['fh'], {}) for r in rows])
    print(f'{base}: {len(want)} handles, {sum(sum(c.values()) for c in want.values())} results')


def most_first(ops):
    """Results descending (ties in any order), "other" last."""
    n = [c for name, c in ops if name != 'other']
    return n == sorted(n, reverse=True) and all(name != 'other' for name, _ in ops[:-1])


def csv_ops(nfsscope, pcap, base, want, keys):
    """-o csv --by file: after each file row, its file_nfs4_op rows (replies:
    the operation's results) equal tshark's counts for the JSON row at the
    same place (the same order and --top: the JSON only names the handle)."""
    out = subprocess.run([nfsscope, '-r', pcap, '-o', 'csv', '--by', 'file', '--top', '1000000'],
                         check=True, capture_output=True, text=True).stdout
    table = list(csv.reader(io.StringIO(out, newline=''), strict=True))
    head = table[0]
    check(head[-1] == 'operation' and all(len(r) == len(head) for r in table),
          f'{base}: csv --by file: an operation column, every row as wide as the header')
    col = {name: i for i, name in enumerate(head)}
    got, key, ops = [], None, []
    for r in table[1:] + [['file', '(end)'] + [''] * (len(head) - 2)]:
        if r[col['dimension']] == 'file_nfs4_op':
            check(r[col['key']] == key and r[col['calls']] == '' and r[col['errors']] == '',
                  f'{base}: csv: {r[:2]} follows its file row {key}')
            ops.append((r[col['operation']], int(r[col['replies']])))
            continue
        if key is not None:
            got.append((key, ops))
        key, ops = r[col['key']], []
    check(got and got[-1][0] == '(other)' and not got[-1][1], f'{base}: csv: (other) has none')
    got = got[:-1]
    check(len(got) == len(want), f'{base}: csv: {len(got)} file rows, the JSON {len(want)}')
    for i, ((k, ops), w) in enumerate(zip(got, want)):
        if keys[i].isascii() and keys[i].isprintable() and keys[i][:1] not in '=+-@':
            check(k == keys[i], f'{base}: csv row {i}: key {k!r}, the JSON {keys[i]!r}')
        check(dict(ops) == w and len(ops) == len(w) and most_first(ops),
              f'{base}: csv row {i} {k}: tshark {w} nfsscope {ops}')


def text_ops(nfsscope, pcap, base, want):
    """The text report's --by file table: the "nfs4 ops:" line under each
    row (wrapped) lists tshark's counts for the JSON row at the same place."""
    out = subprocess.run([nfsscope, '-r', pcap, '--by', 'file', '--top', '1000000'], check=True,
                         capture_output=True, text=True).stdout
    lines = out.split('\n')
    start = next(i for i, line in enumerate(lines) if re.match(r'top \d+ of \d+ by \w+: file$', line))
    got = []
    for line in lines[start + 2:]:
        if not line:
            break
        if line.startswith('  nfs4 ops: '):
            got[-1] += line[len('  nfs4 ops: '):]
        elif line.startswith(' ' * 12):
            got[-1] += ' ' + line.strip()
        else:
            got.append('')
    check(len(got) == len(want), f'{base}: text: {len(got)} file rows, the JSON {len(want)}')
    for i, (g, w) in enumerate(zip(got, want)):
        ops = [(m.group(1), int(m.group(2))) for m in re.finditer(r'(\w+) (\d+)(?:,|$)', g)]
        check(dict(ops) == w and len(ops) == len(w) and most_first(ops),
              f'{base}: text row {i}: tshark {w} nfsscope {g!r}')


# ---- synthetic COMPOUNDs (RFC 8881 §18: arguments and results as sent) ----
def u64(v):
    return u32(v >> 32) + u32(v)


SESSION = bytes(range(0x50, 0x60))
STATEID = u32(1) + b'\x77' * 12
CINFO = u32(1) + u64(7) + u64(8)  # change_info4


def op_putfh(fh):
    return u32(PUTFH) + opaque(fh), u32(PUTFH) + u32(0)


def op_getfh(fh):
    return u32(GETFH), u32(GETFH) + u32(0) + opaque(fh)


def op_plain(op, res=b''):
    """An op without arguments (SAVEFH, RESTOREFH, LOOKUPP, PUTROOTFH)."""
    return u32(op), u32(op) + u32(0) + res


def op_sequence(seq):
    return (u32(53) + SESSION + u32(seq) + u32(0) + u32(0) + u32(0),
            u32(53) + u32(0) + SESSION + u32(seq) + u32(0) + u32(0) + u32(0) + u32(0))


GETATTR = (u32(9) + u32(1) + u32(0x10),
           u32(9) + u32(0) + u32(1) + u32(0x10) + opaque(u64(4096)))
READ = (u32(25) + STATEID + u64(0) + u32(10), u32(25) + u32(0) + u32(1) + opaque(b'r' * 10))
WRITE = (u32(38) + STATEID + u64(0) + u32(2) + opaque(b'w' * 6),
         u32(38) + u32(0) + u32(6) + u32(2) + b'\x09' * 8)


def op_lookup(name):
    return u32(15) + opaque(name), u32(15) + u32(0)


def op_open(name=None):
    """OPEN by name (CLAIM_NULL), or of the current handle (CLAIM_FH) when
    name is None; no create, no delegation."""
    claim = u32(0) + opaque(name) if name is not None else u32(4)
    args = (u32(18) + u32(0) + u32(1) + u32(0) + u64(0x1234) + opaque(b'owner') + u32(0) +
            claim)
    res = (u32(18) + u32(0) + STATEID + CINFO + u32(4) + u32(0) + u32(0))
    return args, res


def op_create_dir(name):
    """CREATE of a directory (NF4DIR), no attributes."""
    return (u32(6) + u32(2) + opaque(name) + u32(0) + opaque(b''),
            u32(6) + u32(0) + CINFO + u32(0))


SECINFO_NO_NAME = (u32(52) + u32(0), u32(52) + u32(0) + u32(0))


def op_rename(old, new):
    return u32(29) + opaque(old) + opaque(new), u32(29) + u32(0) + CINFO + CINFO


def op_link(name):
    return u32(11) + opaque(name), u32(11) + u32(0) + CINFO


def capture(path, compounds):
    """Each COMPOUND (a list of (args, result) pairs) sent as an NFSv4.1
    call and answered in full, over one TCP connection."""
    frames = []
    c = pcapsyn.TcpConn(frames, cli=('10.9.0.1', 870), srv=('10.9.0.2', 2049))
    for i, ops in enumerate(compounds):
        xid = 0x4f00 + i
        args = opaque(b'') + u32(1) + u32(len(ops)) + b''.join(a for a, _ in ops)
        res = u32(0) + opaque(b'') + u32(len(ops)) + b''.join(r for _, r in ops)
        c.send(0, pcapsyn.record(pcapsyn.rpc_call(xid, pcapsyn.NFS_PROG, 4, 1, args)))
        c.send(1, pcapsyn.record(pcapsyn.rpc_reply(xid, res)))
    pcapsyn.write_pcap(path, frames)


def many_handles(path):
    """Six distinct handles (of 20 to 40 bytes) in one COMPOUND, SAVEFH and
    RESTOREFH among them, RENAME and LINK as Linux sends them, a handle
    named twice, the ops that set a handle the call does not carry (CREATE
    among them; OPEN of the current handle sets none), SECINFO_NO_NAME,
    which leaves none."""
    h = [bytes([0xa0 + i]) * (20 + 4 * i) + bytes([i]) * 4 for i in range(7)]
    ga = GETATTR
    capture(path, [
        [op_sequence(1), op_putfh(h[0]), ga, op_putfh(h[1]), ga, op_putfh(h[2]), ga,
         op_putfh(h[3]), ga, op_putfh(h[4]), ga, op_putfh(h[5]), READ],
        [op_sequence(2), op_putfh(h[0]), op_plain(SAVEFH), op_putfh(h[1]), ga, op_putfh(h[2]),
         ga, op_plain(RESTOREFH), ga, op_putfh(h[3]), op_plain(SAVEFH), op_putfh(h[4]), ga,
         op_plain(RESTOREFH), READ, op_putfh(h[5]), ga],
        [op_sequence(3), op_putfh(h[1]), op_plain(SAVEFH), op_putfh(h[2]),
         op_rename(b'old', b'new'), ga, op_plain(RESTOREFH), ga],
        [op_sequence(4), op_putfh(h[3]), op_plain(SAVEFH), op_putfh(h[4]), op_link(b'ln'), ga,
         op_plain(RESTOREFH), ga],
        [op_sequence(5), op_putfh(h[0]), ga, op_putfh(h[1]), ga, op_putfh(h[0]), ga,
         op_putfh(h[1]), WRITE, op_putfh(h[2]), ga],
        [op_sequence(6), op_putfh(h[5]), op_lookup(b'x'), op_getfh(h[6]), ga, op_putfh(h[4]),
         op_lookup(b'y'), ga, op_putfh(h[3]), op_plain(16), ga, op_putfh(h[2]), ga],
        [op_sequence(7), op_putfh(h[0]), op_open(b'f'), op_getfh(h[6]), ga, op_putfh(h[1]),
         op_open(b'g'), ga, op_putfh(h[2]), ga],
        [op_sequence(8), op_plain(PUTROOTFH), ga, op_putfh(h[3]), ga, op_plain(PUTROOTFH),
         op_getfh(h[6]), ga, op_putfh(h[4]), ga],
        [op_sequence(9), op_putfh(h[2]), op_create_dir(b'd'), op_getfh(h[6]), ga,
         op_putfh(h[3]), op_create_dir(b'e'), ga, op_putfh(h[5]), op_open(), ga,
         op_putfh(h[1]), SECINFO_NO_NAME, op_putfh(h[4]), ga],
    ])


def no_room(path):
    """Handles of NFS4_FHSIZE (128) bytes. First COMPOUND: PUTFH h0..h5,
    each with a GETATTR, then READ on h5 (the main operation's handle, kept
    with the pending call): h0 takes 3 + 128 of the 255 bytes, h1..h4 find
    no room. Second: its LOOKUP's name (255 bytes) leaves no room for h1."""
    h = [bytes([0xc0 + i]) * 128 for i in range(6)]
    first = [op_sequence(1)]
    for fh in h:
        first += [op_putfh(fh), GETATTR]
    capture(path, [first + [op_putfh(h[5]), READ],
                   [op_sequence(2), op_putfh(h[0]), op_lookup(b'n' * 255), GETATTR,
                    op_putfh(h[1]), GETATTR]])
    return [fh.hex() for fh in h[1:5]] + [h[1].hex()]


def main():
    nfsscope, work, samples = sys.argv[1:4]
    pcaps = sys.argv[4] if len(sys.argv) > 4 else ''
    if not shutil.which('tshark'):
        print('SKIP: no tshark')
        return 1 if os.environ.get('CI') else 77
    os.makedirs(work, exist_ok=True)
    many = os.path.join(work, 'nfs4-many-handles.pcap')
    many_handles(many)
    compare(nfsscope, many)
    room = os.path.join(work, 'nfs4-handles-no-room.pcap')
    compare(nfsscope, room, not_kept=no_room(room))
    for s in ('nfs40-ops', 'nfs41-ls', 'nfs41-state', 'nfs42-ops'):
        compare(nfsscope, os.path.join(samples, s + '.pcap'))
    v41 = os.path.join(pcaps, 'nfstrace-eth-ipv4-tcp-nfsv41.pcap')
    v40 = os.path.join(pcaps, 'nfstrace-eth-ipv4-tcp-nfsv4.pcap.bz2')
    if pcaps and os.path.exists(v41) and os.path.exists(v40):
        compare(nfsscope, v41)
        with plain(v40, work) as p:
            compare(nfsscope, p)
    else:
        skip_part('the public Linux NFSv4.0/4.1 captures', ci_required=True)
    return finish()


if __name__ == '__main__':
    sys.exit(main())
