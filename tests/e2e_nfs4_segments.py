#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_nfs4_segments.py: the NFSv4 COMPOUNDs of a sample, re-segmented, are
counted as tshark counts them in the original capture.

The RPC records of each direction of the sample's connections (real NFSv4.1
and 4.2 bodies from nfs-ganesha and pynfs) are sent again over a synthetic
TCP connection (tests/pcapsyn.py) in two ways: every call, then every reply,
packed into segments of 3,000 bytes (many COMPOUNDs in one segment, some
across two), and every record split into segments of 1 to 7 bytes (a COMPOUND over
many segments, record marks split). The calls, replies, per-operation
occurrences, results, not-evaluated operations and error statuses, kinds and
WRITE stable_how must equal the sample's tshark truth (samples/NAME.truth.json);
latency is not compared (the replies are moved).

  e2e_nfs4_segments.py NFSSCOPE SAMPLES_DIR WORK_DIR"""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402
import e2e_nfs4  # noqa: E402
import pcapsyn  # noqa: E402
import wire_oracle  # noqa: E402

SAMPLES = ('nfs41-session', 'nfs42-ops')


def records(run):
    """The RPC records (marks included) of a direction's stream."""
    out, p, cur = [], 0, b''
    while p + 4 <= len(run):
        m = struct.unpack('>I', run[p:p + 4])[0]
        n = m & 0x7FFFFFFF
        cur += run[p:p + 4 + n]
        p += 4 + n
        if m & 0x80000000:
            out.append(cur)
            cur = b''
    return out


def no_latency(n4):
    n4 = json.loads(json.dumps(n4))
    for where in [n4] + list(n4.get('by_minorversion', {}).values()):
        where['compound'].pop('srt', None)
    n4.get('null', {}).pop('srt', None)
    return n4


def main():
    nfsscope, samples, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    for name in SAMPLES:
        pcap = os.path.join(samples, name + '.pcap')
        truth = no_latency(json.load(open(os.path.join(samples, name + '.truth.json')))['nfs4'])
        conns = wire_oracle._tcp_runs_at(pcap)
        for how in ('packed', 'split'):
            frames = []
            for i, (key, runs) in enumerate(sorted(conns.items())):
                if key[3] != 2049:  # each connection from its client's direction
                    continue
                back = conns.get((key[2], key[3], key[0], key[1]), [])
                if not check(len(runs) == 1 and len(back) == 1, f'{name}: a stream without holes'):
                    continue
                c = pcapsyn.TcpConn(frames, cli=('10.0.0.1', 700 + i), srv=('10.0.0.2', 2049))
                calls, replies = records(runs[0][1]), records(back[0][1])
                if how == 'packed':
                    c.send(0, b''.join(calls), mss=3000)
                    c.send(1, b''.join(replies), mss=3000)
                    continue
                for k, (a, b) in enumerate(zip(calls, replies)):
                    for d, rec in ((0, a), (1, b)):
                        p = 0
                        while p < len(rec):
                            n = 1 + (p + k) % 7
                            c.send(d, rec[p:p + n], mss=n)
                            p += n
                for d, rest in ((0, calls[len(replies):]), (1, replies[len(calls):])):
                    if rest:
                        c.send(d, b''.join(rest))
            out = os.path.join(work, f'{name}-{how}.pcap')
            pcapsyn.write_pcap(out, frames)
            e2e_nfs4.compare(f'{name} {how}', e2e_nfs4.report(nfsscope, out), truth)
    finish()


if __name__ == '__main__':
    main()
