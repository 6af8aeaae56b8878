#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""nfs4_truth_test.py: the NFSv4 decoder (through tests/nfs4_truth.c) against
tshark's per-operation truth for the public NFSv4 captures (truth-v4/, made
with tshark 4.0.17, see ../shared/pcaps/public/PROVENANCE.md).

Per capture and minor version: COMPOUND calls, replies and statuses; per
operation: occurrences in calls, results in replies, not evaluated, status
of each result; the kinds (nfs.main_opcode); WRITE stable_how and committed;
bytes written and read; SEQUENCE sessions and slots; CREATE_SESSION fore
channels; ops per COMPOUND and each COMPOUND's op list; OPEN delegation
types and why_no_delegation; the names
LOOKUP/OPEN/REMOVE/CREATE got NFS4ERR_NOENT for and the holders of DENIED
locks; NULL calls and replies. Also on the NFSv4 samples, against both
tshark's truth and the generating client's record (NAME.expect.json). Each capture is decoded twice: from whole messages,
and from a 4 KiB head and a 512-byte tail of each message (struct nfs4_tail),
which must give the same numbers.

  nfs4_truth_test.py DRIVER PCAPS_DIR SAMPLES_DIR WORK_DIR
Exit 77 (skip) when the captures are absent (1 under CI), as e2e_public does."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402  (tests/checks.py)
from plaincap import plain  # noqa: E402

# The captures whose NFSv4 traffic tshark sees whole. The lossy mixed one
# (nfstrace-eth-ipv4-tcp-nfsv3-4-41-cifs1-2) needs the pipeline's resync
# after loss, which this driver does not have: its check belongs to the
# end-to-end test of nfsscope itself.
CLEAN = [
    'nfstrace-eth-ipv4-tcp-nfsv4.pcap.bz2',
    'nfstrace-eth-ipv4-tcp-nfsv41.pcap',
    'nfstrace-eth-ipv4-tcp-nfsv4-incorrect_mount.pcap',
    'suricata-verify-nfs4-01-input.pcap',
    'tcpdump-nfs-v4.pcap',
]


def run(driver, path, cut=None):
    args = [driver, path] + ([str(c) for c in cut] if cut else [])
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    got = {'minor': {}, 'kind': {}, 'stable': {}, 'committed': {}, 'null': {}, 'bytes': {},
           'sessions': {}, 'fore': [], 'noent_names': {}, 'lock_denied': {}, 'per_compound': {},
           'deleg': {}, 'why_none': {}, 'shapes': {}}
    for line in out.splitlines():
        if line.startswith('shape\t'):
            _, shape, n = line.split('\t')
            got['shapes'][shape] = int(n)
            continue
        if line.startswith(('noent\t', 'denied\t')):
            what, op, key, n = line.split('\t')
            got['noent_names' if what == 'noent' else 'lock_denied'].setdefault(op, {})[key] = int(n)
            continue
        w = line.split()
        if w[0] == 'minor':
            m = got['minor'].setdefault(w[1], {'calls': 0, 'replies': 0, 'status': {}, 'ops': {}})
            if w[2] in ('calls', 'replies'):
                m[w[2]] = int(w[3])
            elif w[2] == 'status':
                m['status'][w[3]] = int(w[4])
            elif w[2] == 'op':
                m['ops'].setdefault(w[3], {'status': {}})[w[4]] = int(w[5])
            elif w[2] == 'opstatus':
                m['ops'].setdefault(w[3], {'status': {}})['status'][w[4]] = int(w[5])
        elif w[0] in ('kind', 'stable', 'committed', 'null', 'bytes', 'sessions', 'per_compound', 'deleg',
                      'why_none'):
            got[w[0]][w[1]] = int(w[2])
        elif w[0] == 'fore':
            got['fore'].append(dict(zip(('maxrequestsize', 'maxresponsesize', 'maxresponsesize_cached',
                                         'maxoperations', 'maxrequests'), map(int, w[1:]))))
        elif w[0] in ('malformed', 'orphans'):
            got[w[0]] = int(w[1])
    return got


def compare(name, got, ref, what):
    """got against ref (a truth file, or a client's expect file: only the
    members ref has are compared)."""
    n4 = ref['nfs4']
    name = f'{name} ({what})'
    by = n4.get('by_minorversion', {})
    for minor in sorted(set(by) | set(got['minor'])):
        t = by.get(minor, {'compound': {'calls': 0, 'replies': 0, 'status': {}}, 'ops': {}})
        g = got['minor'].get(minor, {'calls': 0, 'replies': 0, 'status': {}, 'ops': {}})
        tc = t['compound']
        check(g['calls'] == tc['calls'], f'{name} v4.{minor} COMPOUND calls {g["calls"]} == {tc["calls"]}')
        check(g['replies'] == tc['replies'],
              f'{name} v4.{minor} COMPOUND replies {g["replies"]} == {tc["replies"]}')
        check(g['status'] == tc.get('status', {}),
              f'{name} v4.{minor} COMPOUND status {g["status"]} == {tc.get("status", {})}')
        for op in sorted(set(t['ops']) | set(g['ops'])):
            to = t['ops'].get(op, {'count': 0, 'in_replies': 0, 'not_evaluated': 0, 'status': {}})
            go = g['ops'].get(op, {'count': 0, 'in_replies': 0, 'not_evaluated': 0, 'status': {}})
            for k in ('count', 'in_replies', 'not_evaluated'):
                check(go.get(k, 0) == to[k], f'{name} v4.{minor} {op} {k} {go.get(k, 0)} == {to[k]}')
            check(go['status'] == to['status'], f'{name} v4.{minor} {op} status {go["status"]} == {to["status"]}')
    if 'main_opcode' in n4:
        check(got['kind'] == n4['main_opcode'], f'{name} kinds {got["kind"]} == {n4["main_opcode"]}')
    for mine, theirs in (('stable', 'write_stable_how'), ('committed', 'write_committed')):
        if theirs in n4:
            check(got[mine] == n4[theirs], f'{name} WRITE {theirs} {got[mine]} == {n4[theirs]}')
    for k in ('write', 'read'):
        if k + '_bytes' in n4:
            check(got['bytes'].get(k) == n4[k + '_bytes'],
                  f'{name} {k} bytes {got["bytes"].get(k)} == {n4[k + "_bytes"]}')
    if 'sessions' in n4:
        for k, v in n4['sessions'].items():
            check(got['sessions'].get(k) == v, f'{name} sessions {k} {got["sessions"].get(k)} == {v}')
    if 'ops_per_compound' in n4:
        h = n4['ops_per_compound']['histogram']
        check(got['per_compound'] == h, f'{name} ops per COMPOUND {got["per_compound"]} == {h}')
    if 'delegations_granted' in n4:
        check(got['deleg'] == n4['delegations_granted'],
              f'{name} OPEN delegations {got["deleg"]} == {n4["delegations_granted"]}')
    if 'why_no_delegation' in n4:
        check(got['why_none'] == n4['why_no_delegation'],
              f'{name} why_no_delegation {got["why_none"]} == {n4["why_no_delegation"]}')
    if 'compound_shapes' in n4:
        check(got['shapes'] == n4['compound_shapes'],
              f'{name} COMPOUND shapes {got["shapes"]} == {n4["compound_shapes"]}')
    for k in ('noent_names', 'lock_denied'):
        if k in n4:
            check(got[k] == n4[k], f'{name} {k} {got[k]} == {n4[k]}')
    if 'fore_channels' in n4:
        check(got['fore'] == n4['fore_channels'], f'{name} fore channels {got["fore"]} == {n4["fore_channels"]}')
    null = n4.get('null', {'calls': 0, 'replies': 0})
    check(got['null'].get('calls', 0) == null['calls'] and got['null'].get('replies', 0) == null['replies'],
          f'{name} NULL {got["null"]} == calls {null["calls"]} replies {null["replies"]}')
    check(got['malformed'] == 0, f'{name} no COMPOUND failed to decode ({got["malformed"]})')


def both_ways(driver, path, name, refs):
    whole = run(driver, path)
    for what, ref in refs:
        compare(name, whole, ref, what)
    cut = run(driver, path, (4096, 512))
    check(cut == whole, f'{name}: a 4 KiB head and a 512-byte tail give the same numbers')


def main():
    driver, pcaps, samples, work = sys.argv[1:5]
    truth_dir = os.path.join(pcaps, 'truth-v4')
    if not os.path.isdir(truth_dir):
        print(f'SKIP: nfs4_truth_test: {truth_dir} is absent')
        return 1 if os.environ.get('CI') == 'true' else 77
    os.makedirs(work, exist_ok=True)
    for f in CLEAN:
        path = os.path.join(pcaps, f)
        base = f[:-4] if f.endswith('.bz2') else f
        with open(os.path.join(truth_dir, base[:-5] + '.json')) as fh:
            want = json.load(fh)
        with plain(path, work) as p:
            both_ways(driver, p, base, [('tshark', want)])
    # The NFSv4 samples: tshark's truth and the generating client's record.
    nsamples = 0
    for f in sorted(os.listdir(samples)):
        if not f.endswith('.expect.json'):
            continue
        stem = f[:-len('.expect.json')]
        with open(os.path.join(samples, f)) as fh:
            expect = json.load(fh)
        if not expect.get('nfs4', {}).get('compound', {}).get('calls'):
            continue
        with open(os.path.join(samples, stem + '.truth.json')) as fh:
            truth = json.load(fh)
        pcap = [p for p in os.listdir(samples) if p.startswith(stem + '.pcap')][0]
        both_ways(driver, os.path.join(samples, pcap), stem, [('tshark', truth), ('client', expect)])
        nsamples += 1
    check(nsamples >= 3, f'the NFSv4 samples were found ({nsamples})')
    return finish()


if __name__ == '__main__':
    sys.exit(main())
