#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Test tests/truth-from-tshark: run it on committed samples and check that
# its output is byte-for-byte the committed samples/NAME.truth.json.
# Without tshark (or with a tshark other than the one the truth files were
# made with) it prints SKIP and exits 77, the ctest/automake skip code.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
SCRIPT=$HERE/truth-from-tshark
SAMPLES_DIR=${SAMPLES_DIR:-$REPO/samples}
TSHARK=${TSHARK:-tshark}

if ! command -v "$TSHARK" > /dev/null 2>&1; then
    echo "SKIP: truth_from_tshark_test: tshark is not installed"
    exit 77
fi
want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["generated_by"])' \
    "$SAMPLES_DIR/all-ops.truth.json")
have=$("$TSHARK" --version 2> /dev/null | head -1)
if [ "$want" != "$have" ]; then
    echo "SKIP: truth_from_tshark_test: truth files were made with '$want', this is '$have'"
    exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
for cap in all-ops.pcap udp-frag.pcap multi-client.pcapng cooked-any.pcap nfs40-ops.pcap nfs41-session.pcap; do
    name=${cap%.*}
    python3 "$SCRIPT" "$SAMPLES_DIR/$cap" -o "$tmp/$name.truth.json"
    if cmp -s "$tmp/$name.truth.json" "$SAMPLES_DIR/$name.truth.json"; then
        echo "ok: $cap"
        pass=$((pass + 1))
    else
        echo "FAIL: $cap: output differs from samples/$name.truth.json"
        diff -u "$SAMPLES_DIR/$name.truth.json" "$tmp/$name.truth.json" | head -40
        fail=$((fail + 1))
    fi
done

# The cross-check must notice a wrong count: break one, expect a difference.
python3 - "$tmp/all-ops.truth.json" "$tmp/broken.truth.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["nfs3"]["ops"]["getattr"]["calls"] += 1
json.dump(t, open(sys.argv[2], "w"))
PY
if python3 "$SAMPLES_DIR/compare-expect-truth" "$SAMPLES_DIR/all-ops.expect.json" \
    "$tmp/broken.truth.json" > "$tmp/broken.out"; then
    echo "FAIL: compare-expect-truth accepted a broken getattr count"
    fail=$((fail + 1))
else
    echo "ok: a broken count is reported"
    pass=$((pass + 1))
fi
if python3 "$SAMPLES_DIR/compare-expect-truth" "$SAMPLES_DIR/all-ops.expect.json" \
    "$SAMPLES_DIR/all-ops.truth.json" > /dev/null; then
    echo "ok: all-ops generator record agrees with its truth"
    pass=$((pass + 1))
else
    echo "FAIL: all-ops generator record disagrees with its truth"
    fail=$((fail + 1))
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
