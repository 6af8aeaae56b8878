#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_nfs4.py: nfsscope -o json's nfs4 object against tshark's per-operation
truth for public NFSv4 captures (../shared/pcaps/public/truth-v4/, tshark
4.0.17, see PROVENANCE.md) and against both truths of the NFSv4 samples
(samples/NAME.truth.json: tshark; samples/NAME.expect.json: the generating
client's own record).

Per capture, in total and per minor version: COMPOUND calls, replies,
unanswered calls and error statuses; per operation the occurrences in calls,
the results in replies, the operations not evaluated and their error
statuses; COMPOUNDs by kind (nfs.main_opcode); WRITE stable_how4 and
committed; NULL calls and replies. COMPOUND latency: mean within 2 %, p50,
p90 and p99 within 3 % of tshark's rpc.time (its median_low for p50).
The lossy mixed capture, where tshark drops records, against tshark's truth
corrected per record by a byte scan of its TCP streams (lossy_truth()).

  e2e_nfs4.py NFSSCOPE PCAPS_DIR SAMPLES_DIR
Exit 77 (skip) when the captures are absent (1 under CI), as e2e_public does."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish, skip_part  # noqa: E402  (tests/checks.py)
import nfs4_io_oracle  # noqa: E402  (tests/nfs4_io_oracle.py)
import wire_oracle  # noqa: E402  (tests/wire_oracle.py)

# The public NFSv4 captures compared, each with its truth.
CAPTURES = {
    'nfstrace-eth-ipv4-tcp-nfsv4-incorrect_mount.pcap': 'nfstrace-eth-ipv4-tcp-nfsv4-incorrect_mount.json',
    'suricata-verify-nfs4-01-input.pcap': 'suricata-verify-nfs4-01-input.json',
    # WRITE data runs past the message head: the GETATTR after it is decoded
    # from the message's tail.
    'nfstrace-eth-ipv4-tcp-nfsv4.pcap.bz2': 'nfstrace-eth-ipv4-tcp-nfsv4.json',
    'nfstrace-eth-ipv4-tcp-nfsv41.pcap': 'nfstrace-eth-ipv4-tcp-nfsv41.json',
    # The LOOKUP call after a capture gap (frame 5) is timed from its own
    # frame, not from the reply (frame 6) whose ACK declared the gap.
    'tcpdump-nfs-v4.pcap': 'tcpdump-nfs-v4.json',
}


# The lossy mixed capture (134 frames cut by the snapshot length, missing
# segments): its truth is tshark's, corrected by lossy_truth().
LOSSY = ('nfstrace-eth-ipv4-tcp-nfsv3-4-41-cifs1-2.pcap.bz2',
         'nfstrace-eth-ipv4-tcp-nfsv3-4-41-cifs1-2.json')
TRUTH_PREFS = ('tcp.desegment_tcp_streams:TRUE', 'rpc.desegment_rpc_over_tcp:TRUE',
               'rpc.defragment_rpc_over_tcp:TRUE')
TIER = {'write': 1, 'commit': 1, 'getattr': 3, 'putfh': 4, 'sequence': 4}  # nfs4_op_tier()


def lossy_truth(path, n4):
    """tshark's truth for the lossy capture, corrected per COMPOUND by the
    byte scan of the TCP streams (wire_oracle.tcp_scan_nfs4), which finds
    every COMPOUND record head and skips the I/O COMPOUNDs' operations by
    their XDR lengths, across lost bytes. tshark drops every record that
    touches a lost segment (1,589 calls, 1,588 replies: all PUTFH, WRITE
    or COMMIT COMPOUNDs, 4.0 and 4.1), and decodes a record whose first
    frame the snapshot length cut from that frame alone (frame 716: 65,549
    bytes, 65,535 captured, "Operations (count: 3): PUTFH, WRITE ...
    Unreassembled Packet"): 17 WRITE calls whose GETATTR it does not list
    while the scan finds it after their data. The corrected truth: the
    COMPOUND counts from the scan (a superset of tshark's records); per
    operation tshark's counts plus the scan's operations in the records
    tshark lost or listed short; WRITE stable_how and committed likewise.
    Latency is not compared: what tshark drops are the records touching
    lost segments, whose times it has no frame for."""
    scan = wire_oracle.tcp_scan_nfs4(path)
    tcalls, treplies = wire_oracle.tshark_nfs4_calls(path, TRUTH_PREFS)
    out = json.loads(json.dumps(n4))
    missing = [hex(k[1]) for k in tcalls if k not in scan.calls]
    check(not missing, f'lossy: every COMPOUND call tshark decodes is among the scan\'s {missing}')
    check(all(k in scan.replies for k in treplies if k in scan.calls),
          'lossy: every COMPOUND reply tshark decodes is among the scan\'s')
    for where in [out] + list(out['by_minorversion'].values()):
        where['compound'].pop('srt', None)
    for minor in [None] + sorted({str(m) for m, _, _ in scan.calls.values()}):
        keys = [k for k, c in scan.calls.items() if minor is None or str(c[0]) == minor]
        dst = out if minor is None else out['by_minorversion'][minor]
        comp = dst['compound']
        comp['calls'] = len(keys)
        comp['replies'] = sum(1 for k in keys if k in scan.replies)
        comp['unanswered_calls'] = comp['calls'] - comp['replies']
        ops = dst.setdefault('ops', {})

        def op(name):
            return ops.setdefault(name.upper(), {'count': 0, 'in_replies': 0,
                                                 'not_evaluated': 0, 'status': {}})
        for k in keys:
            _, cops, complete = scan.calls[k]
            names = [o for o, _ in cops]
            t = tcalls.get(k, [])
            if k not in tcalls:  # lost by tshark: what the scan decoded
                for o in names:
                    op(o)['count'] += 1
            elif complete and t is not None and names != t:
                check(complete and names[:len(t)] == t,
                      f'lossy: tshark lists {t}, the scan {names} (xid {k[1]:#x})')
                for o in names[len(t):]:
                    op(o)['count'] += 1
            if k not in scan.replies or k in treplies:
                continue
            status, res, rcomplete = scan.replies[k]
            check(rcomplete, f'lossy: the scan skips every result (xid {k[1]:#x})')
            st = wire_oracle.nfs4_status_name(status)
            comp.setdefault('status', {})[st] = comp.get('status', {}).get(st, 0) + 1
            for o, s, _ in res:
                e = op(o)
                e['in_replies'] += 1
                name = wire_oracle.nfs4_status_name(s)
                e['status'][name] = e['status'].get(name, 0) + 1
            for o in names[len(res):]:
                op(o)['not_evaluated'] += 1
            if minor is None:
                low = min(TIER[o] for o in names)
                kind = '+'.join(dict.fromkeys(o for o in names if TIER[o] == low)).upper()
                out['main_opcode'][kind] = out['main_opcode'].get(kind, 0) + 1
                for o, _, committed in res:
                    if o == 'write' and committed is not None:
                        c = wire_oracle.STABLE4[committed]
                        out['write_committed'][c] = out['write_committed'].get(c, 0) + 1
        if minor is None:
            for k in keys:
                if k in tcalls:
                    continue
                for o, stable in scan.calls[k][1]:
                    if o == 'write' and stable is not None:
                        c = wire_oracle.STABLE4[stable]
                        out['write_stable_how'][c] = out['write_stable_how'].get(c, 0) + 1
    return out


def errors_only(status):
    return {k: v for k, v in status.items() if k != 'NFS4_OK' and v}


def op_name(truth_name):
    return 'illegal' if truth_name == 'ILLEGAL' else truth_name.lower()


def compare_ops(name, got, ref):
    for op in sorted(set(map(op_name, ref)) | set(got)):
        t = next((v for k, v in ref.items() if op_name(k) == op),
                 {'count': 0, 'in_replies': 0, 'not_evaluated': 0, 'status': {}})
        g = got.get(op, {'count': 0, 'replies': 0, 'not_evaluated': 0, 'status': {}})
        check(g['count'] == t['count'], f'{name} {op} count {g["count"]} == {t["count"]}')
        check(g['replies'] == t['in_replies'],
              f'{name} {op} results {g["replies"]} == {t["in_replies"]}')
        check(g['not_evaluated'] == t['not_evaluated'],
              f'{name} {op} not evaluated {g["not_evaluated"]} == {t["not_evaluated"]}')
        check(g['status'] == errors_only(t['status']),
              f'{name} {op} errors {g["status"]} == {errors_only(t["status"])}')


def compare_compound(name, g, t):
    check(g['calls'] == t['calls'], f'{name} COMPOUND calls {g["calls"]} == {t["calls"]}')
    check(g['replies'] == t['replies'], f'{name} COMPOUND replies {g["replies"]} == {t["replies"]}')
    if 'unanswered_calls' in t:
        check(g['unanswered_calls'] == t['unanswered_calls'],
              f'{name} COMPOUND unanswered {g["unanswered_calls"]} == {t["unanswered_calls"]}')
    want = errors_only(t.get('status', {}))
    check(g['status'] == want, f'{name} COMPOUND errors {g["status"]} == {want}')


def latency(name, g, srt):
    """nfsscope's microseconds against tshark's seconds."""
    if not srt or not srt.get('n'):
        return
    lat = g['latency_us']
    check(lat['count'] == srt['n'], f'{name} latency count {lat["count"]} == {srt["n"]}')
    for mine, theirs, tol in (('mean', 'mean_s', 0.02), ('p50', 'median_low_s', 0.03),
                              ('p90', 'p90_s', 0.03), ('p99', 'p99_s', 0.03)):
        want = srt[theirs] * 1e6
        got = lat[mine]
        check(got is not None and abs(got - want) <= tol * want + 1,
              f'{name} latency {mine} {got} us within {tol:.0%} of tshark {want:.0f} us')


def compare(name, rep, n4):
    got = rep['nfs4']
    compare_compound(name, got['compound'], n4['compound'])
    latency(name + ' COMPOUND', got['compound'], n4['compound'].get('srt'))
    for minor, t in n4.get('by_minorversion', {}).items():
        g = got['minor_versions'].get(minor)
        if not check(g is not None, f'{name} v4.{minor} reported'):
            continue
        compare_compound(f'{name} v4.{minor}', g['compound'], t['compound'])
        compare_ops(f'{name} v4.{minor}', g['ops'], t.get('ops', {}))
    for minor in got['minor_versions']:
        check(minor in n4.get('by_minorversion', {}), f'{name} v4.{minor} not in the truth')
    compare_ops(name, got['ops'], n4.get('ops', {}))
    if 'main_opcode' in n4:
        want = {k.lower(): v for k, v in n4['main_opcode'].items()}
        have = {k: v['compounds'] for k, v in got['kinds'].items()}
        check(have == want, f'{name} kinds {have} == {want}')
    for mine, theirs in (('stable', 'write_stable_how'), ('committed', 'write_committed')):
        if theirs in n4:
            have = {k: v for k, v in got['write'][mine].items() if v}
            check(have == n4[theirs], f'{name} WRITE {theirs} {have} == {n4[theirs]}')
    null = n4.get('null', {'calls': 0, 'replies': 0})
    check(got['null']['calls'] == null['calls'] and got['null']['replies'] == null['replies'],
          f'{name} NULL {got["null"]["calls"]}/{got["null"]["replies"]} == '
          f'{null["calls"]}/{null["replies"]}')


def compare_io(name, rep, t):
    """The data operations against tshark's, operation by operation
    (tests/nfs4_io_oracle.py): WRITE stable_how4, committed, bytes and
    sizes; READ bytes, eof and sizes; READ_PLUS data, holes, eof and sizes;
    COPY bytes and sizes."""
    got, h = rep['nfs4'], nfs4_io_oracle.histogram
    for mine, theirs in (('stable', 'stable'), ('committed', 'committed')):
        have = {k: v for k, v in got['write'][mine].items() if v}
        check(have == dict(t[theirs]), f'{name} WRITE {mine} {have} == tshark {dict(t[theirs])}')
    want = {
        ('write', 'bytes'): sum(t['write_sizes']),
        ('read', 'bytes'): sum(t['read_sizes']), ('read', 'eof'): t['read_eof'],
        ('read_plus', 'bytes'): sum(t['read_plus_sizes']),
        ('read_plus', 'hole_bytes'): t['read_plus_holes'],
        ('read_plus', 'eof'): t['read_plus_eof'],
        ('copy', 'bytes'): sum(t['copy_sizes']),
        ('io_sizes', 'write'): h(t['write_sizes']), ('io_sizes', 'read'): h(t['read_sizes']),
        ('io_sizes', 'read_plus'): h(t['read_plus_sizes']),
        ('io_sizes', 'copy'): h(t['copy_sizes']),
    }
    for (obj, key), v in want.items():
        check(got[obj][key] == v, f'{name} {obj}.{key} {got[obj][key]} == tshark {v}')


def report(nfsscope, path):
    p = subprocess.run([nfsscope, '-r', path, '-o', 'json'], capture_output=True, check=True)
    return json.loads(p.stdout)


def main():
    nfsscope, pcaps, samples = sys.argv[1:4]
    truth = os.path.join(pcaps, 'truth-v4')
    if not os.path.isdir(truth):
        print('SKIP: no truth-v4 in', pcaps)
        sys.exit(1 if os.environ.get('CI') else 77)
    tshark = shutil.which('tshark')
    for cap, tname in CAPTURES.items():
        ref = json.load(open(os.path.join(truth, tname)))
        rep = report(nfsscope, os.path.join(pcaps, cap))
        compare(cap, rep, ref['nfs4'])
        if tshark:
            compare_io(cap, rep, nfs4_io_oracle.tshark_io(os.path.join(pcaps, cap)))
    cap, tname = LOSSY
    if shutil.which('tshark'):
        ref = json.load(open(os.path.join(truth, tname)))
        path = os.path.join(pcaps, cap)
        compare(cap + ' (tshark + byte scan)', report(nfsscope, path), lossy_truth(path, ref['nfs4']))
    else:
        skip_part(f'{cap}: no tshark for its per-record view')
    for f in sorted(os.listdir(samples)):
        if not f.endswith('.truth.json'):
            continue
        base = f[:-len('.truth.json')]
        pcap = next((os.path.join(samples, base + e) for e in ('.pcap', '.pcapng')
                     if os.path.exists(os.path.join(samples, base + e))), None)
        if not check(pcap is not None, f'{base}: its capture'):
            continue
        truth = json.load(open(os.path.join(samples, f)))
        if 'nfs4' not in truth:  # an NFSv3 sample
            continue
        rep = report(nfsscope, pcap)
        compare(base + ' (tshark)', rep, truth['nfs4'])
        if tshark:
            compare_io(base, rep, nfs4_io_oracle.tshark_io(pcap))
        exp = os.path.join(samples, base + '.expect.json')
        if os.path.exists(exp):
            e = json.load(open(exp))
            if 'nfs4' in e:
                compare(base + ' (client)', rep, e['nfs4'])
    if tshark:  # what the samples lack: READ_PLUS data and holes, COPY, data past the head
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, 'nfs42-io.pcap')
            nfs4_io_oracle.io_capture(path)
            rep = report(nfsscope, path)
            t = nfs4_io_oracle.tshark_io(path)
            check(t['read_plus_holes'] and t['copy_sizes'] and len(t['stable']) == 3,
                  'the synthetic capture has holes, a COPY and every stable_how4 (tshark)')
            compare_io('nfs42-io (synthetic)', rep, t)
            b = rep['breakdowns']  # the rows' READ and WRITE bytes (READ_PLUS, COPY apart)
            rd = sum(r['read_bytes'] for r in b['client']['rows']) + b['client']['other']['read_bytes']
            wr = sum(r['write_bytes'] for r in b['file']['rows']) + b['file']['other']['write_bytes']
            check(rd == sum(t['read_sizes']) and wr == sum(t['write_sizes']),
                  f'nfs42-io: breakdown read {rd}, written {wr} == tshark READ, WRITE bytes')
            check(rep['anomalies']['nfs_decode_error'] == 0, 'nfs42-io: no decode error')
    else:
        skip_part('the data operations: no tshark')
    finish()


if __name__ == '__main__':
    main()
