#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""nfs4_tshark_test.py: tshark as an independent reader of the NFSv4 unit
tests' byte streams. dissectors/nfs4_test --pcap writes every operation's
call and reply (the COMPOUNDs [op, PUTROOTFH] and CB_COMPOUNDs [op,
CB_RECALL_SLOT] that nfs4_test decodes) into a capture; tshark must read
the same op list from each message, so the arguments and results have the
length the RFCs' XDR gives them, with no malformed frame.

Where tshark 4.0.17 itself does not follow the RFCs the expected list says
so (EXPECT_TSHARK): it has no decoder for GET_DIR_DELEGATION, SET_SSV and
WANT_DELEGATION (it stops there), reads WRITE_SAME with a draft's
app_data_block4 (no adb_pattern), decodes no arguments of CB_NOTIFY,
CB_PUSH_DELEG, CB_RECALL_SLOT, CB_WANTS_CANCELLED and CB_NOTIFY_DEVICEID
(it takes their first word for the next op), and lists the op masks of
EXCHANGE_ID's state protection under nfs.opcode.

  nfs4_tshark_test.py NFS4_TEST WORK_DIR
Exit 77 (skipped) without tshark 4.0.17, as truth_from_tshark_test does."""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

WANT = 'TShark (Wireshark) 4.0.17'
FWD = list(range(3, 76)) + [10044]
CB = list(range(3, 16)) + [10044]
EXPECT_TSHARK = {  # (xid, msgtyp) -> op list tshark 4.0.17 shows
    (0x1000 + FWD.index(42), 0): [42, 0, 33, 24],
    (0x1000 + FWD.index(42), 1): [42, 0, 1, 24],
    (0x1000 + FWD.index(46), 0): [46], (0x1000 + FWD.index(46), 1): [46],
    (0x1000 + FWD.index(54), 0): [54], (0x1000 + FWD.index(54), 1): [54],
    (0x1000 + FWD.index(56), 0): [56], (0x1000 + FWD.index(56), 1): [56],
    (0x1000 + FWD.index(70), 0): [70, 0],
    (0x2006, 0): [6, 1], (0x2007, 0): [7, 32], (0x200a, 0): [10, 7],
    (0x200c, 0): [12, 1], (0x200e, 0): [14, 1],
}


def main():
    nfs4_test, work = sys.argv[1:3]
    tshark = shutil.which('tshark')
    if not tshark:
        print('SKIP: nfs4_tshark_test: tshark is not installed')
        return 77
    have = subprocess.run([tshark, '--version'], capture_output=True, text=True).stdout
    if not have.startswith(WANT + ' '):
        print(f'SKIP: nfs4_tshark_test: the expectations are for {WANT}, this is {have.splitlines()[0]}')
        return 77
    os.makedirs(work, exist_ok=True)
    pcap = os.path.join(work, 'every-op.pcap')
    subprocess.run([nfs4_test, '--pcap', pcap], check=True)
    out = subprocess.run([tshark, '-r', pcap, '-d', 'tcp.port==2049,rpc', '-d', 'tcp.port==1023,rpc',
                          '-T', 'fields', '-e', 'rpc.xid', '-e', 'rpc.msgtyp', '-e', 'nfs.opcode',
                          '-e', 'nfs.cb.operation', '-e', '_ws.malformed'],
                         check=True, capture_output=True, text=True).stdout
    seen = {}
    for line in out.splitlines():
        xid, typ, ops, cbops, bad = (line.split('\t') + [''] * 5)[:5]
        ops = ops or cbops
        seen[(int(xid, 16), int(typ))] = ([int(o) for o in ops.split(',')] if ops else [], bad)
    for i, op in enumerate(FWD):
        for typ in (0, 1):
            key = (0x1000 + i, typ)
            want = EXPECT_TSHARK.get(key, [op, 24])
            got, bad = seen.get(key, (None, ''))
            check(got == want, f'op {op} {"reply" if typ else "call"}: tshark reads {got}, expected {want}')
            check(not bad, f'op {op} {"reply" if typ else "call"}: tshark says malformed')
    for op in CB:
        for typ in (0, 1):
            key = (0x2000 + (16 if op == 10044 else op), typ)
            want = EXPECT_TSHARK.get(key, [op, 10])
            got, bad = seen.get(key, (None, ''))
            check(got == want, f'cb op {op} {"reply" if typ else "call"}: tshark reads {got}, expected {want}')
            check(not bad, f'cb op {op} {"reply" if typ else "call"}: tshark says malformed')
    return finish()


if __name__ == '__main__':
    sys.exit(main())
