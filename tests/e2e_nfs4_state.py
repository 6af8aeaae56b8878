#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_nfs4_state.py: the NFSv4 state in nfsscope -o json (nfs4.clients,
sessions, stateids, delegations) against outside truths: tshark's for every
NFSv4 sample (samples/NAME.truth.json) and public NFSv4 capture
(../shared/pcaps/public/truth-v4/, tshark 4.0.17), and the generating
client's own record for the samples (samples/NAME.expect.json).

  - SEQUENCE: the operations in calls (tshark: opcode 53), the distinct
    sessionids they name (nfs.session_id4) and the highest slot a call
    used (nfs.slotid);
  - OPEN results by delegation type (nfs.open.delegation_type) and the
    refusals by reason (nfs.open.why_no_delegation);
  - the fore channel CREATE_SESSION granted (the client's record);
  - the counts the state keeps of operations answered NFS4_OK, against the
    per-operation status truth: SETCLIENTID, EXCHANGE_ID, CREATE_SESSION,
    DESTROY_SESSION, DESTROY_CLIENTID, OPEN, OPEN_CONFIRM, CLOSE, LOCK,
    LOCKU, FREE_STATEID, DELEGRETURN; RENEW and DELEGRETURN calls; RENEW
    errors; SEQUENCE errors by status;
  - the per-file breakdown's paths, learned from LOOKUP, OPEN, CREATE and
    RENAME: made of the names tshark sees on the wire;
  - the text report's sessions summary: sessions created and destroyed,
    SEQUENCE calls and errors by status, the highest slot used (tshark's),
    the fore channel limits (the client's record).

  e2e_nfs4_state.py NFSSCOPE PCAPS_DIR SAMPLES_DIR
Exit 77 (skip) for the public part when the captures are absent (a failure
under CI)."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish, skip_part  # noqa: E402  (tests/checks.py)

SAMPLES = ('nfs40-ops', 'nfs41-session', 'nfs41-state', 'nfs41-grace', 'nfs41-ls',
           'nfs41-rep-too-big', 'nfs42-ops', 'nfs41-deleg')
# Every public NFSv4 capture with a truth. In the lossy mixed capture
# nfsscope decodes COMPOUNDs that tshark loses (tests/e2e_nfs4.py), so
# there its SEQUENCE count is at least tshark's; everything else is exact.
LOSSY = ('nfstrace-eth-ipv4-tcp-nfsv3-4-41-cifs1-2',)
PUBLIC = ('nfstrace-eth-ipv4-tcp-nfsv4-incorrect_mount', 'suricata-verify-nfs4-01-input',
          'nfstrace-eth-ipv4-tcp-nfsv41', 'tcpdump-nfs-v4', 'nfstrace-eth-ipv4-tcp-nfsv4',
          'nfstrace-eth-ipv4-tcp-nfsv3-4-41-cifs1-2')


def report(nfsscope, path, whole=False):
    data, arg = None, path
    if path.endswith('.bz2'):
        data = subprocess.run(['bzcat', path], capture_output=True, check=True).stdout
        arg = '-'
    p = subprocess.run([nfsscope, '-r', arg, '-o', 'json'], input=data, capture_output=True,
                       timeout=600)
    check(p.returncode == 0, f'{path}: nfsscope exit {p.returncode} {p.stderr[:200]!r}')
    if p.returncode != 0:
        return None
    r = json.loads(p.stdout)
    return r if whole else r['nfs4']


def ok_results(ops, name):
    return ops.get(name, {}).get('status', {}).get('NFS4_OK', 0)


def errors_of(ops, name):
    return {k: v for k, v in ops.get(name, {}).get('status', {}).items() if k != 'NFS4_OK' and v}


def nonzero(d):
    return {k: v for k, v in d.items() if v}


def compare(name, got, truth, lossy=False):
    se, de, cl, si = got['sessions'], got['delegations'], got['clients'], got['stateids']
    ts = truth['sessions']
    if lossy:
        check(se['sequence']['calls'] >= ts['sequence_ops'],
              f'{name}: SEQUENCE calls {se["sequence"]["calls"]} >= {ts["sequence_ops"]}')
    else:
        check(se['sequence']['calls'] == ts['sequence_ops'],
              f'{name}: SEQUENCE calls {se["sequence"]["calls"]} == {ts["sequence_ops"]}')
    used = [r for r in se['rows'] if r['sequence_calls']]
    check(se['rows_other'] == 0, f'{name}: every session listed')
    check(len(used) == ts['distinct_sessionids'],
          f'{name}: sessions with SEQUENCE calls {len(used)} == {ts["distinct_sessionids"]}')
    top = max((r['slotid']['max'] for r in used if r['slotid']), default=None)
    check(top == ts['max_slotid'], f'{name}: highest slot used {top} == {ts["max_slotid"]}')
    check(nonzero(de['by_type']) == truth['delegations_granted'],
          f'{name}: OPEN results by delegation type {nonzero(de["by_type"])} == '
          f'{truth["delegations_granted"]}')
    if 'why_no_delegation' in truth:
        check(nonzero(de['refused']) == truth['why_no_delegation'],
              f'{name}: refusals {nonzero(de["refused"])} == {truth["why_no_delegation"]}')
    ops = truth['ops']
    for key, got_n, op in (
            ('setclientid', cl['setclientid'], 'SETCLIENTID'),
            ('exchange_id', cl['exchange_id'], 'EXCHANGE_ID'),
            ('sessions created', se['created'], 'CREATE_SESSION'),
            ('sessions destroyed', se['destroyed'], 'DESTROY_SESSION'),
            ('clients destroyed', cl['destroyed'], 'DESTROY_CLIENTID'),
            ('opens', si['opens'], 'OPEN'),
            ('open confirms', si['open_confirms'], 'OPEN_CONFIRM'),
            ('closes', si['closes'], 'CLOSE'),
            ('locks', si['locks'], 'LOCK'),
            ('unlocks', si['unlocks'], 'LOCKU'),
            ('freed', si['freed'], 'FREE_STATEID'),
            ('delegations returned', de['delegreturn']['returned'], 'DELEGRETURN')):
        want = ok_results(ops, op)
        check(got_n == want, f'{name}: {key} {got_n} == {op} answered NFS4_OK {want}')
    want = ops.get('RENEW', {}).get('count', 0)
    check(cl['renewals']['renew'] == want, f'{name}: RENEW calls {cl["renewals"]["renew"]} == {want}')
    want = ops.get('DELEGRETURN', {}).get('count', 0)
    check(de['delegreturn']['calls'] == want,
          f'{name}: DELEGRETURN calls {de["delegreturn"]["calls"]} == {want}')
    check(cl['renewals']['status'] == errors_of(ops, 'RENEW'),
          f'{name}: RENEW errors {cl["renewals"]["status"]} == {errors_of(ops, "RENEW")}')
    check(se['sequence']['status'] == errors_of(ops, 'SEQUENCE'),
          f'{name}: SEQUENCE errors {se["sequence"]["status"]} == {errors_of(ops, "SEQUENCE")}')
    check(se['sequence']['errors'] == sum(errors_of(ops, 'SEQUENCE').values()),
          f'{name}: SEQUENCE error count')
    return used


def tshark_names(path):
    """Every component name tshark sees in the capture's NFSv4 operations
    (LOOKUP, OPEN, CREATE, RENAME, REMOVE: nfs.pathname.component, nfs.name)."""
    p = subprocess.run(['tshark', '-r', path, '-Y', 'nfs', '-T', 'fields', '-e',
                        'nfs.pathname.component', '-e', 'nfs.name', '-E', 'occurrence=a',
                        '-E', 'aggregator=/'], capture_output=True, text=True, timeout=300)
    names = set()
    for line in p.stdout.splitlines():
        for field in line.split('\t'):
            names.update(n for n in field.split('/') if n)
    return p.returncode == 0, names


def check_paths(name, path, got_report):
    """The per-file breakdown labels the names learned from LOOKUP, OPEN,
    CREATE and RENAME: each component of a path is a name the wire carried
    (tshark's), and some files have one."""
    ok, names = tshark_names(path)
    if not check(ok, f'{name}: tshark ran'):
        return
    rows = got_report['breakdowns']['file']['rows']
    paths = [r['key'] for r in rows if '/' in r['key']]
    check(len(paths) > 0, f'{name}: some file rows have a path ({[r["key"] for r in rows]})')
    for lab in paths:
        comps = [c for c in lab.split('/') if c and c != '...']
        check(all(c in names for c in comps), f'{name}: {lab} is made of names on the wire')


def check_text_sessions(nfsscope, name, path, truth, expect):
    """The text report's "sessions:" lines against tshark's truth and the
    client's record of the fore channel."""
    import re
    p = subprocess.run([nfsscope, '-r', path], capture_output=True, text=True, timeout=300)
    lines = p.stdout.splitlines()
    head = [l for l in lines if l.startswith('sessions: ')]
    ops = truth['ops']
    if not ok_results(ops, 'CREATE_SESSION') and not truth['sessions']['sequence_ops']:
        check(not head, f'{name}: no sessions line without sessions')
        return
    check(len(head) == 1, f'{name}: one sessions line')
    if not head:
        return
    m = re.match(r'sessions: (\d+) created, (\d+) destroyed; SEQUENCE (\d+) calls, (\d+) errors'
                 r'(?: \((.*)\))?, (\d+) calls on a busy slot', head[0])
    check(m is not None, f'{name}: sessions line {head[0]!r}')
    if not m:
        return
    errs = dict((k, int(v)) for k, v in (e.rsplit(' ', 1) for e in m[5].split(', '))) if m[5] \
        else {}
    want = (ok_results(ops, 'CREATE_SESSION'), ok_results(ops, 'DESTROY_SESSION'),
            truth['sessions']['sequence_ops'], sum(errors_of(ops, 'SEQUENCE').values()),
            errors_of(ops, 'SEQUENCE'))
    got = (int(m[1]), int(m[2]), int(m[3]), int(m[4]), errs)
    check(got == want, f'{name}: sessions line {got} == tshark\'s {want}')
    i = lines.index(head[0])
    used = [int(x) for x in re.findall(r'highest slot used (\d+)', '\n'.join(lines[i:i + 9]))]
    check(used and max(used) == truth['sessions']['max_slotid'],
          f'{name}: highest slot used {used} == tshark\'s {truth["sessions"]["max_slotid"]}')
    fore = re.findall(r'fore channel (\d+) slots, (\d+) ops, request (\d+) B, reply (\d+) B '
                      r'\(cached (\d+) B\)', '\n'.join(lines[i:i + 9]))
    want = [tuple(str(c[k]) for k in ('maxrequests', 'maxoperations', 'maxrequestsize',
                                       'maxresponsesize', 'maxresponsesize_cached'))
            for c in expect.get('fore_channels', [])]
    check(sorted(fore) == sorted(want), f'{name}: fore channels {fore} == the client\'s {want}')


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    nfsscope, pcaps, samples = sys.argv[1:]
    have_tshark = subprocess.run(['which', 'tshark'], capture_output=True).returncode == 0
    for s in SAMPLES:
        got = report(nfsscope, os.path.join(samples, s + '.pcap'), whole=True)
        if got is None:
            continue
        if have_tshark:
            check_paths(s, os.path.join(samples, s + '.pcap'), got)
        else:
            skip_part('tshark not installed: the paths are not checked')
        got = got['nfs4']
        with open(os.path.join(samples, f'{s}.truth.json')) as f:
            truth = json.load(f)['nfs4']
        with open(os.path.join(samples, f'{s}.expect.json')) as f:
            expect = json.load(f)['nfs4']
        check_text_sessions(nfsscope, s, os.path.join(samples, s + '.pcap'), truth, expect)
        for kind in ('truth', 'expect'):
            with open(os.path.join(samples, f'{s}.{kind}.json')) as f:
                ref = json.load(f)['nfs4']
            used = compare(f'{s} ({kind})', got, ref)
            if kind == 'expect' and 'fore_channels' in ref:
                fore = [{k: r['fore_channel'][k] for k in ref['fore_channels'][0]}
                        for r in used if r['fore_channel']]
                check(fore == ref['fore_channels'],
                      f'{s}: fore channels {fore} == the client\'s {ref["fore_channels"]}')
    if not os.path.isdir(os.path.join(pcaps, 'truth-v4')):
        skip_part('public captures not found: ' + pcaps, ci_required=True)
        return finish()
    for p in PUBLIC:
        path = os.path.join(pcaps, p + '.pcap')
        if not os.path.exists(path):
            path += '.bz2'
        with open(os.path.join(pcaps, 'truth-v4', p + '.json')) as f:
            truth = json.load(f)['nfs4']
        got = report(nfsscope, path)
        if got is not None:
            compare(p, got, truth, p in LOSSY)
    return finish()


if __name__ == '__main__':
    sys.exit(main())
