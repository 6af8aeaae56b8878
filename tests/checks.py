# SPDX-License-Identifier: BSD-3-Clause
"""checks.py: the tally the end-to-end scripts share.

check(cond, msg) counts one assertion and prints "FAIL msg" when it does not
hold; finish() prints "N passed, N failed" and returns the exit status
(1 on any failure).
"""
failures = []
passed = 0


def check(cond, msg):
    global passed
    if cond:
        passed += 1
    else:
        failures.append(msg)
        print("FAIL " + msg)


def finish(label="passed"):
    print("%d %s, %d failed" % (passed, label, len(failures)))
    return 1 if failures else 0
