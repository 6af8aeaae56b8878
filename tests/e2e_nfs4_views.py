#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_nfs4_views.py: the NFSv4 numbers of every output but JSON (the text
report, -o csv, --records) against tshark's per-operation truth
(samples/NAME.truth.json of the NFSv4 samples, tests/truth-from-tshark;
../shared/pcaps/public/truth-v4/ for the public captures e2e_nfs4 compares),
never against nfsscope's own JSON.

Per capture:
  text  the "NFS v4.x" section: COMPOUND calls, replies, unanswered and
        errors per minor version and in total; COMPOUNDs by kind
        (nfs.main_opcode); per operation count, results, not evaluated and
        errors;
  csv   the same numbers in the rows "compound" (per minor version),
        "kind" and "operation" (in total and per minor version);
  records one row per COMPOUND: rows per minor version = COMPOUND calls;
        the replied rows per kind = nfs.main_opcode; the operation lists
        together = every operation's count; first_error_op and
        first_error_status together = every operation's error statuses
        (a COMPOUND stops at its first failure, RFC 8881 §16.2.3, so each
        failed operation is the first failure of its COMPOUND); no row says
        "proc<N>"; and, when tshark 4.0.17 is installed, each row's
        sessionid, slotid and sequenceid = tshark's nfs.session_id4,
        nfs.slotid, nfs.seqid of the call's SEQUENCE (by XID);
  prom  the final scrape of a replay with --metrics: COMPOUND calls and
        replies per minor version, COMPOUND errors by status, COMPOUNDs and
        their latency counts by kind, per operation count, results, not
        evaluated and errors by status;
  v3    the text report's "NFS v3 (nfs3)" section is there exactly when
        tshark decodes NFSv3 calls (nfs.procedure_v3 of the RPC calls),
        with their number: absent on the NFSv4-only captures, present on
        NFSv3 captures (samples/all-ops.pcap, the public
        suricata-verify-nfs3-01-input.pcap).

  e2e_nfs4_views.py NFSSCOPE PCAPS_DIR SAMPLES_DIR WORKDIR"""
import collections
import csv
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish, skip_part  # noqa: E402  (tests/checks.py)

PUBLIC = {  # the captures e2e_nfs4 compares, with their truth
    'nfstrace-eth-ipv4-tcp-nfsv4-incorrect_mount.pcap': 'nfstrace-eth-ipv4-tcp-nfsv4-incorrect_mount.json',
    'suricata-verify-nfs4-01-input.pcap': 'suricata-verify-nfs4-01-input.json',
}
TSHARK = 'TShark (Wireshark) 4.0.17'


def errors_only(status):
    return {k: v for k, v in status.items() if k != 'NFS4_OK' and v}


def op_name(truth_name):
    return 'illegal' if truth_name == 'ILLEGAL' else truth_name.lower()


def truth_ops(ops):
    """{op: (count, results, not_evaluated, errors)} from tshark's ops."""
    return {op_name(k): (v['count'], v['in_replies'], v['not_evaluated'],
                         sum(errors_only(v['status']).values())) for k, v in ops.items()}


def truth_compound(c, rpc_errors=None):
    """calls, replies, unanswered, errors (NFSv4 statuses and RPC-level:
    the truth has those in total only, given as rpc_errors)."""
    rpc = c.get('rpc_level_errors', {}) if rpc_errors is None else rpc_errors
    return (c['calls'], c['replies'], c.get('unanswered_calls', 0),
            sum(errors_only(c.get('status', {})).values()) + sum(rpc.values()))


def minor_compounds(n4):
    """{minor: truth_compound} per minor version (the total's RPC-level
    errors go to the only minor version, if there is one)."""
    by = n4.get('by_minorversion', {})
    rpc = n4['compound'].get('rpc_level_errors', {})
    if rpc and not check(len(by) == 1, 'RPC-level errors with one minor version only'):
        return {}
    return {m: truth_compound(t['compound'], rpc) for m, t in by.items()}


def run(cmd):
    return subprocess.run(cmd, capture_output=True, check=True, timeout=300).stdout


# ---- text ------------------------------------------------------------------

def text_section(out):
    """The lines of the NFS v4.x section, up to the next blank line."""
    lines = out.split('\n')
    start = next((i for i, ln in enumerate(lines) if ln.startswith('NFS v4.x (nfs4)')), None)
    if start is None:
        return []
    end = next((i for i in range(start, len(lines)) if lines[i] == ''), len(lines))
    return lines[start:end]


def table(sec, head):
    """The rows of the table whose header line starts with head: {name: [cells]}."""
    rows, inside = {}, False
    for ln in sec:
        if ln.split()[:1] == [head]:
            inside = True
            continue
        if inside:
            cells = ln.split()
            if not cells or not re.match(r'^\d+$', cells[1] if len(cells) > 1 else ''):
                break
            rows[cells[0]] = cells[1:]
    return rows


def check_text(name, out, n4):
    sec = text_section(out)
    if not check(sec, f'{name}: text has the NFS v4.x section'):
        return
    comp = table(sec, 'COMPOUND')
    for minor, want in minor_compounds(n4).items():
        got = tuple(int(x) for x in comp.get('v4.' + minor, ['-1'] * 4)[:4])
        check(got == want, f'{name}: text v4.{minor} COMPOUND {got} == {want}')
    got = tuple(int(x) for x in comp.get('total', ['-1'] * 4)[:4])
    check(got == truth_compound(n4['compound']),
          f'{name}: text COMPOUND total {got} == {truth_compound(n4["compound"])}')
    kinds = {k: int(v[0]) for k, v in table(sec, 'kind').items()}
    want = {k.lower(): v for k, v in n4.get('main_opcode', {}).items()}
    check(kinds == want, f'{name}: text kinds {kinds} == {want}')
    ops = {k: tuple(int(x) for x in v[:4]) for k, v in table(sec, 'op').items()}
    want = truth_ops(n4.get('ops', {}))
    check(ops == want, f'{name}: text operations {ops} == {want}')
    check(any('latency: of the COMPOUNDs containing the operation' in ln for ln in sec),
          f'{name}: text labels the operations\' latency as the COMPOUNDs\'')


def check_v3_section(name, out, pcap, tshark_options):
    """The NFS v3 section of the text report against tshark's NFSv3 calls."""
    opts = (tshark_options or '').split()
    p = subprocess.run(['tshark', '-n', '-r', pcap] + opts +
                       ['-Y', 'rpc.msgtyp == 0', '-T', 'fields', '-E', 'occurrence=a',
                        '-E', 'aggregator=,', '-e', 'nfs.procedure_v3'],
                       capture_output=True, text=True, timeout=300)
    if not check(p.returncode == 0, f'{name}: tshark: {p.stderr[-300:]}'):
        return
    # one nfs.procedure_v3 per NFSv3 call (a frame carrying calls carries no
    # reply of the same connection's client)
    calls = sum(len(ln.split(',')) for ln in p.stdout.split('\n') if ln.strip())
    lines = [ln for ln in out.split('\n') if ln.startswith('NFS v3 (nfs3):')]
    want = [f'NFS v3 (nfs3): {calls} calls'] if calls else []
    check([ln.split(',')[0] for ln in lines] == want,
          f'{name}: text NFS v3 section {lines}, tshark {calls} NFSv3 calls')


# ---- csv -------------------------------------------------------------------

def check_csv(name, out, n4):
    rows = list(csv.DictReader(io.StringIO(out.decode(), newline=''), strict=True))
    v4 = [r for r in rows if r['program'] == 'nfs4']

    def ops_of(minor):
        return {r['procedure']: (int(r['calls']), int(r['replies']), int(r['not_evaluated']),
                                 int(r['errors']))
                for r in v4 if r['row'] == 'operation' and r['minor_version'] == minor}

    def kinds_of(minor):
        return {r['procedure']: int(r['replies']) for r in v4
                if r['row'] == 'kind' and r['minor_version'] == minor}

    check(ops_of('') == truth_ops(n4.get('ops', {})), f'{name}: csv operation rows == truth')
    want = {k.lower(): v for k, v in n4.get('main_opcode', {}).items()}
    check(kinds_of('') == want, f'{name}: csv kind rows {kinds_of("")} == {want}')
    wants = minor_compounds(n4)
    for minor, t in n4.get('by_minorversion', {}).items():
        c = [r for r in v4 if r['row'] == 'compound' and r['minor_version'] == minor]
        got = tuple((int(r['calls']), int(r['replies']), int(r['unanswered']), int(r['errors']))
                    for r in c)
        check(got == (wants.get(minor),), f'{name}: csv v4.{minor} compound row {got} == '
                                          f'{wants.get(minor)}')
        check(ops_of(minor) == truth_ops(t.get('ops', {})),
              f'{name}: csv v4.{minor} operation rows == truth')
    minors = {r['minor_version'] for r in v4 if r['row'] == 'compound'}
    check(minors == set(n4.get('by_minorversion', {})),
          f'{name}: csv minor versions {minors} == the truth\'s')


# ---- records ---------------------------------------------------------------

def tshark_sequences(pcap, options):
    """{xid: (sessionid, slotid, sequenceid)} of every call whose first
    operation is SEQUENCE, from tshark's PDML (one rpc and one nfs element
    per RPC message, several messages per frame in order)."""
    import xml.etree.ElementTree as ET
    out = subprocess.run(['tshark', '-r', pcap] + options.split() +
                         ['-Y', 'rpc.msgtyp == 0 && nfs.opcode == 53', '-T', 'pdml'],
                         capture_output=True, timeout=300, check=True).stdout
    seqs = {}
    for pkt in ET.fromstring(out).iter('packet'):
        xid = None
        for proto in pkt.iter('proto'):
            if proto.get('name') == 'rpc':
                f = {c.get('name'): c.get('show') for c in proto.iter('field')}
                xid = int(f['rpc.xid'], 16) if f.get('rpc.msgtyp') == '0' else None
            elif proto.get('name') == 'nfs' and xid is not None:
                op = next((c for c in proto.iter('field') if c.get('name') == 'nfs.opcode'), None)
                if op is not None and op.get('show') == '53':
                    f = {c.get('name'): c for c in op.iter('field')}
                    seqs[xid] = (f['nfs.session_id4'].get('value'), int(f['nfs.slotid'].get('show')),
                                 int(f['nfs.seqid'].get('show'), 16))
                xid = None
    return seqs


def check_records(name, path, n4, pcap, tshark_options):
    text = open(path, 'rb').read().decode()
    rows = [r for r in csv.DictReader(io.StringIO(text, newline=''), strict=True)]
    v4 = [r for r in rows if r['program_name'] == 'nfs4']
    check(v4 and all(r['procedure'] in ('null', 'compound') for r in v4),
          f'{name}: every NFSv4 record is a NULL or a COMPOUND (never proc<N>)')
    comp = [r for r in v4 if r['procedure'] == 'compound']
    per_minor = collections.Counter(r['minor_version'] for r in comp)
    want = {m: t['compound']['calls'] for m, t in n4.get('by_minorversion', {}).items()}
    check(dict(per_minor) == want, f'{name}: records per minor version {dict(per_minor)} == {want}')
    kinds = collections.Counter(r['kind'] for r in comp if r['outcome'] == 'replied')
    want = {k.lower(): v for k, v in n4.get('main_opcode', {}).items()}
    check(dict(kinds) == want, f'{name}: replied records per kind {dict(kinds)} == {want}')
    ops = collections.Counter(op for r in comp for op in r['ops'].split())
    want = {op_name(k): v['count'] for k, v in n4.get('ops', {}).items()}
    check(dict(ops) == want, f'{name}: operations in the records {dict(ops)} == {want}')
    firsts = collections.Counter((r['first_error_op'], r['first_error_status'])
                                 for r in comp if r['first_error_op'])
    want = {(op_name(k), st): n for k, v in n4.get('ops', {}).items()
            for st, n in errors_only(v['status']).items()}
    check(dict(firsts) == want, f'{name}: first failing operations {dict(firsts)} == {want}')
    check(all(r['status'] == (r['first_error_status'] or 'NFS4_OK')
              for r in comp if r['outcome'] == 'replied' and r['status']),
          f'{name}: a COMPOUND\'s status is its first failing operation\'s')
    if tshark_options is None:
        return
    seqs = tshark_sequences(pcap, tshark_options)
    have = {int(r['xid']): (r['sessionid'], int(r['slotid']), int(r['sequenceid']))
            for r in comp if r['sessionid']}
    check(have == seqs, f'{name}: session, slot and sequence ids of {len(have)} records == '
                        f'tshark\'s {len(seqs)} ({sorted(set(have.items()) ^ set(seqs.items()))[:4]})')


# ---- Prometheus ------------------------------------------------------------

def metrics(nfsscope, pcap, work):
    """{(name, labels): value} of the final scrape of a replay (--metrics)."""
    from e2e_metrics import parse_exposition, scrape, wait_for
    err = os.path.join(work, os.path.basename(pcap) + '.metrics.err')
    with open(os.devnull, 'w') as o, open(err, 'w') as e:
        ns = subprocess.Popen([nfsscope, '-r', pcap, '--metrics', '127.0.0.1:0', '--speed', '0',
                               '-o', 'json'], stdout=o, stderr=e)
    try:
        m = wait_for(err, r'until interrupted', 60, ns)
        m = m and wait_for(err, r'metrics at (http://\S+/metrics)', 1, ns)
        if not check(m is not None, f'{pcap}: metrics served'):
            return {}
        samples, _ = parse_exposition(scrape(m.group(1))[2])
    finally:
        ns.send_signal(signal.SIGINT)
        ns.wait(timeout=30)
    return samples


def family(samples, name, key):
    """{label value of key: summed value} of one family."""
    out = collections.Counter()
    for (n, labels), v in samples.items():
        if n == name:
            out[dict(labels)[key]] += int(v)
    return dict(out)


def check_prom(name, samples, n4):
    want = {m: t['compound']['calls'] for m, t in n4.get('by_minorversion', {}).items()}
    got = family(samples, 'nfsscope_nfs4_compounds_total', 'minor')
    check(got == want, f'{name}: prometheus COMPOUNDs per minor {got} == {want}')
    want = {m: t['compound']['replies'] for m, t in n4.get('by_minorversion', {}).items()}
    got = family(samples, 'nfsscope_nfs4_compound_replies_total', 'minor')
    check(got == want, f'{name}: prometheus COMPOUND replies per minor {got} == {want}')
    want = collections.Counter()
    for k, v in n4['compound'].get('status', {}).items():
        if k != 'NFS4_OK' and v:
            want[k] += v
    if sum(n4['compound'].get('rpc_level_errors', {}).values()):
        want['RPC_ERROR'] = sum(n4['compound']['rpc_level_errors'].values())
    got = family(samples, 'nfsscope_nfs4_compound_errors_total', 'status')
    check(got == dict(want), f'{name}: prometheus COMPOUND errors {got} == {dict(want)}')
    want = {k.lower(): v for k, v in n4.get('main_opcode', {}).items()}
    got = family(samples, 'nfsscope_nfs4_kind_compounds_total', 'kind')
    check(got == want, f'{name}: prometheus kinds {got} == {want}')
    got = {k: int(v) for (n, labels), v in samples.items()
           if n == 'nfsscope_nfs4_kind_latency_seconds_count' for k in [dict(labels)['kind']]}
    check(got == want, f'{name}: prometheus kind latency counts {got} == {want}')
    ops = truth_ops(n4.get('ops', {}))
    for fam, i in (('nfsscope_nfs4_ops_total', 0), ('nfsscope_nfs4_op_results_total', 1),
                   ('nfsscope_nfs4_op_not_evaluated_total', 2)):
        got = family(samples, fam, 'op')
        want = {k: v[i] for k, v in ops.items()}
        check(got == want, f'{name}: prometheus {fam} {got} == {want}')
    got = collections.Counter()
    for (n, labels), v in samples.items():
        if n == 'nfsscope_nfs4_op_errors_total':
            d = dict(labels)
            got[(d['op'], d['status'])] += int(v)
    want = {(op_name(k), st): c for k, v in n4.get('ops', {}).items()
            for st, c in errors_only(v['status']).items()}
    check(dict(got) == want, f'{name}: prometheus operation errors {dict(got)} == {want}')


# ---- merge and diff ----------------------------------------------------------

def check_merge_diff(nfsscope, work, a, b):
    """a, b: (name, pcap, nfs4 truth). merge -o json of their reports adds
    every NFSv4 count up; diff -o json pairs them."""
    (na, pa, ta), (nb, pb, tb) = a, b
    ja, jb = os.path.join(work, na + '.json'), os.path.join(work, nb + '.json')
    for pcap, path in ((pa, ja), (pb, jb)):
        with open(path, 'wb') as f:
            f.write(run([nfsscope, '-r', pcap, '-o', 'json']))
    m = json.loads(run([nfsscope, 'merge', '-o', 'json', ja, jb]))['nfs4']
    tag = f'merge {na} {nb}'
    want = truth_compound(ta['compound'])[:2]
    want = (want[0] + tb['compound']['calls'], want[1] + tb['compound']['replies'])
    check((m['compound']['calls'], m['compound']['replies']) == want,
          f'{tag}: COMPOUND calls, replies {m["compound"]["calls"]}, {m["compound"]["replies"]}'
          f' == {want}')
    want = collections.Counter({k.lower(): v for k, v in ta.get('main_opcode', {}).items()})
    want.update({k.lower(): v for k, v in tb.get('main_opcode', {}).items()})
    have = {k: v['compounds'] for k, v in m['kinds'].items()}
    check(have == dict(want), f'{tag}: kinds {have} == {dict(want)}')
    want = collections.Counter()
    for t in (ta, tb):
        for k, v in t.get('ops', {}).items():
            want[op_name(k)] += v['count']
    have = {k: v['count'] for k, v in m['ops'].items()}
    check(have == dict(want), f'{tag}: operation counts {have} == {dict(want)}')
    for minor in set(ta.get('by_minorversion', {})) | set(tb.get('by_minorversion', {})):
        want = sum(t.get('by_minorversion', {}).get(minor, {'compound': {'calls': 0}})
                   ['compound']['calls'] for t in (ta, tb))
        have = m['minor_versions'].get(minor, {}).get('compound', {}).get('calls')
        check(have == want, f'{tag}: v4.{minor} COMPOUNDs {have} == {want}')

    d = json.loads(run([nfsscope, 'diff', '-o', 'json', ja, jb]))
    tag = f'diff {na} {nb}'
    if not check('nfs4' in d, f'{tag}: has nfs4'):
        return
    d = d['nfs4']
    check(d['compound']['calls'] == [ta['compound']['calls'], tb['compound']['calls']],
          f'{tag}: COMPOUND calls {d["compound"]["calls"]}')
    kinds = set(k.lower() for t in (ta, tb) for k in t.get('main_opcode', {}))
    check(set(d['kinds']) == kinds, f'{tag}: kinds {sorted(d["kinds"])} == {sorted(kinds)}')
    for k in kinds:
        want = [next((v for kk, v in t.get('main_opcode', {}).items() if kk.lower() == k), None)
                for t in (ta, tb)]
        check(d['kinds'][k]['compounds'] == want, f'{tag}: kind {k} {d["kinds"][k]["compounds"]}'
                                                  f' == {want}')
    ops = set(op_name(k) for t in (ta, tb) for k in t.get('ops', {}))
    for op in ops:
        want = [next((v['count'] for kk, v in t.get('ops', {}).items() if op_name(kk) == op),
                     None) for t in (ta, tb)]
        check(d['ops'].get(op, {}).get('count') == want,
              f'{tag}: op {op} count {d["ops"].get(op, {}).get("count")} == {want}')
    text = run([nfsscope, 'diff', ja, jb]).decode()
    check('NFS v4.x COMPOUNDs by kind' in text and 'NFS v4.x operations' in text,
          f'{tag}: the text has the NFSv4 tables')


def tshark_ok():
    exe = shutil.which('tshark')
    if not exe:
        return False
    v = subprocess.run([exe, '--version'], capture_output=True, text=True).stdout
    return v.startswith(TSHARK)


def one(nfsscope, work, name, pcap, n4, tshark_options, has_tshark):
    text = run([nfsscope, '-r', pcap]).decode()
    check_text(name, text, n4)
    if has_tshark:
        check_v3_section(name, text, pcap, tshark_options)
    check_csv(name, run([nfsscope, '-r', pcap, '-o', 'csv']), n4)
    rec = os.path.join(work, os.path.basename(pcap) + '.records.csv')
    run([nfsscope, '-r', pcap, '-o', 'json', '--records', rec])
    check_records(name, rec, n4, pcap, tshark_options)
    check_prom(name, metrics(nfsscope, pcap, work), n4)


def main():
    nfsscope, pcaps, samples, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    has_tshark = tshark_ok()
    if not has_tshark:
        print(f'note: no {TSHARK}: the session ids in --records are not compared')
    truth_dir = os.path.join(pcaps, 'truth-v4')
    if os.path.isdir(truth_dir):
        for cap, tname in PUBLIC.items():
            ref = json.load(open(os.path.join(truth_dir, tname)))
            one(nfsscope, work, cap, os.path.join(pcaps, cap), ref['nfs4'], None, has_tshark)
    else:
        print('note: no truth-v4 in', pcaps, ': only the samples are compared')
    n, seen = 0, []
    for f in sorted(os.listdir(samples)):
        if not f.endswith('.truth.json'):
            continue
        truth = json.load(open(os.path.join(samples, f)))
        if 'nfs4' not in truth:
            continue
        base = f[:-len('.truth.json')]
        pcap = next(os.path.join(samples, base + e) for e in ('.pcap', '.pcapng')
                    if os.path.exists(os.path.join(samples, base + e)))
        one(nfsscope, work, base, pcap, truth['nfs4'],
            truth['tshark_options'] if has_tshark else None, has_tshark)
        seen.append((base, pcap, truth['nfs4']))
        n += 1
    check(n >= 3, f'{n} NFSv4 samples compared')
    # NFSv3 captures keep their NFS v3 section
    v3 = [(os.path.join(samples, 'all-ops.pcap'),
           json.load(open(os.path.join(samples, 'all-ops.truth.json')))['tshark_options'])]
    if os.path.isdir(truth_dir):
        v3.append((os.path.join(pcaps, 'suricata-verify-nfs3-01-input.pcap'), None))
    for pcap, options in v3 if has_tshark else []:
        check_v3_section(os.path.basename(pcap), run([nfsscope, '-r', pcap]).decode(), pcap,
                         options)
    if not has_tshark:
        skip_part(f'no {TSHARK}: the NFS v3 sections are not compared with tshark')
    # two samples of different minor versions (4.0 and 4.1)
    pick = [next((x for x in seen if set(x[2]['by_minorversion']) == {m}), None)
            for m in ('0', '1')]
    if check(all(pick), 'samples of NFSv4.0 and of NFSv4.1 to merge and diff'):
        check_merge_diff(nfsscope, work, pick[0], pick[1])
    finish()


if __name__ == '__main__':
    main()
