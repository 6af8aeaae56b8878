#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# promtool_test.sh: contrib/prometheus/nfsscope-rules.yml is valid
# (promtool check rules) and passes its unit tests (promtool test rules
# nfsscope-rules.test.yml: recorded values and alerts on series made by
# hand). Exit 77 without promtool (Debian package prometheus).
set -eu
dir=${1:?usage: promtool_test.sh CONTRIB_PROMETHEUS_DIR}
command -v promtool >/dev/null 2>&1 || { echo "SKIPPED: no promtool (apt install prometheus)"; exit 77; }
cd "$dir"
promtool check rules nfsscope-rules.yml
promtool test rules nfsscope-rules.test.yml
