# SPDX-License-Identifier: BSD-3-Clause
"""checks.py: the tally the end-to-end scripts share.

check(cond, msg) counts one assertion, prints "FAIL msg" when it does not
hold and returns cond; skip_part(why) says that a part of the test could not run here;
finish() prints "N passed, N failed" and returns the exit status: 1 on any
failure, else 77 (ctest's SKIP_RETURN_CODE: the test is reported skipped, not
passed) when a part was skipped, else 0. Scripts with a tally of their own
return status(number failed) instead.

Under CI (CI=true) a part that CI always provides for (the public captures
in ../shared/pcaps/public) is a failure when missing, not a skip: pass
ci_required=True.
"""
import os

failures = []
skipped = []
passed = 0


def check(cond, msg):
    global passed
    if cond:
        passed += 1
    else:
        failures.append(msg)
        print("FAIL " + msg)
    return cond


def skip_part(why, ci_required=False):
    if ci_required and os.environ.get("CI") == "true":
        failures.append("missing under CI: " + why)
        print("FAIL missing under CI: " + why)
        return
    skipped.append(why)
    print("SKIP (part): " + why)


def json_only_args(argv, count):
    """A script's arguments: an optional leading --json-only (a slow
    sanitizer build runs JSON reports only), then `count` more. Returns
    (json_only, args), or None when the count is wrong."""
    json_only = argv[:1] == ["--json-only"]
    args = argv[1:] if json_only else argv
    return (json_only, args) if len(args) == count else None


def status(nfailed):
    if nfailed or failures:
        return 1
    if skipped:
        print("%d part(s) skipped: the test counts as skipped, not passed" % len(skipped))
        return 77
    return 0


def finish(label="passed"):
    print("%d %s, %d failed" % (passed, label, len(failures)))
    return status(0)
