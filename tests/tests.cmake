# SPDX-License-Identifier: BSD-3-Clause
# End-to-end tests: the built binary on real captures.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
set(NFSSCOPE_PCAPS "${CMAKE_SOURCE_DIR}/../shared/pcaps/public" CACHE PATH
    "Public NFS captures with tshark truth (read-only; never copied into the repo)")

add_test(NAME e2e_public COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_public.py
         $<TARGET_FILE:nfsscope> ${NFSSCOPE_PCAPS})
set_tests_properties(e2e_public PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)

add_test(NAME e2e_samples COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_samples.py
         $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/samples)
set_tests_properties(e2e_samples PROPERTIES TIMEOUT 600)

# The same truth with the connections on three decoding threads.
add_test(NAME e2e_public_shards COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_public.py
         $<TARGET_FILE:nfsscope> ${NFSSCOPE_PCAPS} --threads 3 --no-findings)
set_tests_properties(e2e_public_shards PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
add_test(NAME e2e_samples_shards COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_samples.py
         $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/samples --threads 3 --no-findings)
set_tests_properties(e2e_samples_shards PROPERTIES TIMEOUT 600)

add_test(NAME cli COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/cli_test.py
         $<TARGET_FILE:nfsscope> ${NFSSCOPE_PCAPS} ${CMAKE_BINARY_DIR}/cli_test_work)
set_tests_properties(cli PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)

# Bash completion: options from --help, subcommands, enumerated values, files.
add_test(NAME completion COMMAND bash ${CMAKE_SOURCE_DIR}/tests/completion_test.sh
         $<TARGET_FILE:nfsscope>)
set_tests_properties(completion PROPERTIES TIMEOUT 120)

add_test(NAME truth_from_tshark COMMAND ${CMAKE_SOURCE_DIR}/tests/truth_from_tshark_test.sh)
set_tests_properties(truth_from_tshark PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)

# The NFSv4 samples: the generating client's record equals tshark's view.
add_test(NAME samples_nfs4 COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/samples_nfs4.py
         ${CMAKE_SOURCE_DIR}/samples)
set_tests_properties(samples_nfs4 PROPERTIES TIMEOUT 120)

# Fuzz targets and corpus replay (tests/fuzz/README.md).
include(tests/fuzz/fuzz.cmake OPTIONAL)

# Derived variants of the samples (samples/derive: snaplen, VLAN, cooked, dup,
# reorder, loss, UDP fragment loss), built at test time into derived_work.
add_test(NAME e2e_derived COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_derived.py
         $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/samples ${CMAKE_BINARY_DIR}/derived_work)
set_tests_properties(e2e_derived PROPERTIES TIMEOUT 600)

# Reconnects on the same ports, record fragments of every size, server-to-
# client calls: captures built at test time into reconnect_work.
add_test(NAME e2e_reconnect COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_reconnect.py
         $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/samples ${CMAKE_BINARY_DIR}/reconnect_work)
set_tests_properties(e2e_reconnect PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)

add_test(NAME e2e_breakdowns COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_breakdowns.py
         $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/samples)
set_tests_properties(e2e_breakdowns PROPERTIES TIMEOUT 600)

# NLM v4 lock waits: blocked, granted, cancelled and the wait time on
# the NLM samples, against what samples/nfsgen.c did.
add_test(NAME e2e_lockwaits COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_lockwaits.py
         $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/samples)
set_tests_properties(e2e_lockwaits PROPERTIES TIMEOUT 300)

# Packaging: scripts/build-deb, lintian (0 errors, 0 warnings), hardening,
# contents; as root, install with apt, use, purge (skipped otherwise after
# the checks that need no root). One at a time; only in builds without
# sanitizers (it builds the package from the source, not from this build).
set(_deb_san "")
if(NFSSCOPE_SANITIZE)
  set(_deb_san --sanitized) # the package does not depend on this build
endif()
add_test(NAME deb COMMAND ${CMAKE_SOURCE_DIR}/tests/deb_test.sh ${_deb_san} ${CMAKE_SOURCE_DIR}
         ${CMAKE_BINARY_DIR}/deb_work)
set_tests_properties(deb PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600 RESOURCE_LOCK dpkg)

# The exporter's systemd unit: systemd-analyze verify and security, its
# privileges against nfsscope's own drop, and (root) its command run with
# the unit's credentials on lo. Skipped without systemd-analyze.
add_test(NAME systemd_unit COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/systemd_unit_test.py
         $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/contrib/systemd/nfsscope@.service
         ${CMAKE_BINARY_DIR}/systemd_unit_work)
set_tests_properties(systemd_unit PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 RESOURCE_LOCK loopback)

# The Prometheus rules: promtool check rules and promtool test rules
# (skipped without promtool); the rules' and the Grafana dashboard's metric
# and label names against real scrapes of every sample (and, as root, of a
# live capture on lo).
add_test(NAME promtool_rules COMMAND ${CMAKE_SOURCE_DIR}/tests/promtool_test.sh
         ${CMAKE_SOURCE_DIR}/contrib/prometheus)
set_tests_properties(promtool_rules PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
add_test(NAME contrib_names COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/contrib_names_test.py
         $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/samples ${CMAKE_SOURCE_DIR}/contrib
         ${CMAKE_BINARY_DIR}/contrib_names_work)
set_tests_properties(contrib_names PROPERTIES TIMEOUT 300 RESOURCE_LOCK loopback)
# The Grafana dashboard's layout: unique ids, ${datasource} everywhere,
# panels within the grid and not overlapping.
add_test(NAME contrib_dashboard COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/dashboard_test.py
         ${CMAKE_SOURCE_DIR}/contrib/grafana/nfsscope-dashboard.json)
# A real Prometheus (skipped without it) scrapes nfsscope replaying steady
# traffic made at test time and evaluates the rules; the recorded
# percentiles, rates and error ratios against nfsscope's JSON report, the
# Kerberos and TLS counters, rules, alert and dashboard panels against tshark.
add_test(NAME e2e_prometheus COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_prometheus.py
         $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/contrib/prometheus/nfsscope-rules.yml
         ${CMAKE_SOURCE_DIR}/contrib/grafana/nfsscope-dashboard.json
         ${CMAKE_BINARY_DIR}/e2e_prometheus_work)
set_tests_properties(e2e_prometheus PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 RESOURCE_LOCK loopback)

# The licence: an SPDX-License-Identifier line in every source file.
add_test(NAME spdx COMMAND ${CMAKE_SOURCE_DIR}/tests/spdx_test.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(spdx PROPERTIES TIMEOUT 60)

# Live capture and the ncurses view. tui: the view driven in tmux
# (skipped without tmux); live: capture on lo while tcpreplay sends samples
# (root only; skipped otherwise).
add_test(NAME tui COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/tui_test.py
         $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/samples ${CMAKE_BINARY_DIR}/tui_work)
set_tests_properties(tui PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
add_test(NAME live COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/live_test.py
         $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/samples ${CMAKE_BINARY_DIR}/live_work)
set_tests_properties(live PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 RESOURCE_LOCK loopback)

# Resource floods: tests/flood/floodgen.c writes each flood at test
# time into `nfsscope -r -`; tests/e2e_flood.py checks that peak RSS (taken by
# tests/flood/rssrun.c) is flat between N/10 and N units and within the
# configured tables' budget, and that the report counts what was evicted.
# N is 1 million SYNs, calls, fragments, ...; sanitizer builds run a quarter.
add_executable(floodgen tests/flood/floodgen.c)
add_executable(rssrun tests/flood/rssrun.c)
set(_flood_scale "")
if(NFSSCOPE_SANITIZE)
  set(_flood_scale --scale 0.25 --asan)
endif()
foreach(k syn calls frags record recfrag conns ooo names bd16)
  add_test(NAME flood_${k} COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_flood.py
           $<TARGET_FILE:nfsscope> $<TARGET_FILE:floodgen> $<TARGET_FILE:rssrun> ${_flood_scale}
           ${k})
  set_tests_properties(flood_${k} PROPERTIES TIMEOUT 300)
endforeach()

# Findings: stable writes, redundancy, fan-out and the what-if
# estimate against what samples/nfsgen.c did; nfsscope diff.
add_test(NAME e2e_findings COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_findings.py
         $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/samples ${NFSSCOPE_PCAPS})
set_tests_properties(e2e_findings PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)

# NFSv4 findings (stable writes, failed lookups, lock contention, grace
# retries, stale state, session limits, redundant GETATTR) against the
# client's record and tshark's decoding of the NFSv4 samples.
add_test(NAME e2e_findings_nfs4 COMMAND Python3::Interpreter
         ${CMAKE_SOURCE_DIR}/tests/e2e_findings_nfs4.py $<TARGET_FILE:nfsscope>
         ${CMAKE_SOURCE_DIR}/samples)
set_tests_properties(e2e_findings_nfs4 PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)

# Diagnosis: the top finding is the cause a sample was made with (TCP loss
# from nftables drop rules, stable writes), failed lookups named, findings
# ranked by cost; against tshark and the generator's record.
add_test(NAME e2e_diagnosis COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_diagnosis.py
         $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/samples ${NFSSCOPE_PCAPS})
set_tests_properties(e2e_diagnosis PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)

# Per-call records: --records CSV (strict RFC 4180 reader) and
# JSON Lines on the samples; rows == rpc.calls, per procedure == the report.
add_test(NAME e2e_records COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_records.py
         $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/samples ${CMAKE_BINARY_DIR}/records_work)
set_tests_properties(e2e_records PROPERTIES TIMEOUT 300)
# DuckDB reads the records (skipped where there is no duckdb CLI).
add_test(NAME e2e_records_duckdb COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_records.py
         --duckdb $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/samples ${CMAKE_BINARY_DIR}/records_work)
set_tests_properties(e2e_records_duckdb PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
# The records' columns that point back at the wire: community_id against
# hashlib, call_frame/reply_frame/name/retransmissions against tshark, on
# every sample and public capture; doc/records.sql loaded into sqlite3.
add_test(NAME e2e_records_wire COMMAND Python3::Interpreter
         ${CMAKE_SOURCE_DIR}/tests/e2e_records_wire.py $<TARGET_FILE:nfsscope>
         ${CMAKE_SOURCE_DIR}/samples ${NFSSCOPE_PCAPS} ${CMAKE_BINARY_DIR}/records_wire_work)
set_tests_properties(e2e_records_wire PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)

# Hostile and broken input: captures built at test time
# (tests/pcapsyn.py); exit codes and one-line errors for unreadable files,
# bad flags and bad filters.
# RPCSEC_GSS (krb5, krb5i, krb5p) and RPC-over-TLS captures built by
# tests/pcapsyn.py, against tshark's decoding of them.
add_test(NAME e2e_gss COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_gss.py
         $<TARGET_FILE:nfsscope> ${CMAKE_BINARY_DIR}/gss_work)
set_tests_properties(e2e_gss PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)

add_test(NAME e2e_badinput COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_badinput.py
         $<TARGET_FILE:nfsscope> ${CMAKE_BINARY_DIR}/badinput_work)
set_tests_properties(e2e_badinput PROPERTIES TIMEOUT 300)

# nfsscope merge: samples split by connection; the merge of the
# halves' reports equals the report of the whole capture.
add_test(NAME e2e_merge COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_merge.py
         $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/samples ${CMAKE_BINARY_DIR}/merge_work)
set_tests_properties(e2e_merge PROPERTIES TIMEOUT 300)

# Terminal safety: hostile names (escapes, CR/LF, NUL, invalid
# UTF-8, C1, CSV/JSON metacharacters) taught by MOUNT and LOOKUP replies,
# checked in the text, JSON and CSV reports and the per-call records.
add_test(NAME e2e_termsafe COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_termsafe.py
         $<TARGET_FILE:nfsscope> ${CMAKE_BINARY_DIR}/termsafe_work)
set_tests_properties(e2e_termsafe PROPERTIES TIMEOUT 300)

# valgrind memcheck: samples, records, floods and error exits with
# no errors and no leaks. Skipped (77) without valgrind and in sanitizer
# builds (valgrind cannot run ASan binaries): scripts/check runs it in the
# release build.
set(_vg_san "")
if(NFSSCOPE_SANITIZE)
  set(_vg_san --sanitized)
endif()
add_test(NAME valgrind COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/valgrind_test.py
         $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/samples ${CMAKE_BINARY_DIR}/valgrind_work
         $<TARGET_FILE:floodgen> ${_vg_san})
set_tests_properties(valgrind PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)

# Prometheus metrics: --metrics scraped with urllib and curl while
# a file replays (and live on lo as root with tcpreplay); every scrape parsed
# strictly; the last scrape equals the final JSON report; 404/405/400/431,
# slow clients, a port in use, bad ADDR:PORT.
add_test(NAME e2e_metrics COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_metrics.py
         $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/samples ${CMAKE_BINARY_DIR}/metrics_work)
set_tests_properties(e2e_metrics PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 RESOURCE_LOCK loopback)

# -w FILE: the RPC packets written to a pcap give the same report;
# non-RPC packets are left out (synthetic mix, public captures).
add_test(NAME e2e_writepcap COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_writepcap.py
         $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/samples ${NFSSCOPE_PCAPS}
         ${CMAKE_BINARY_DIR}/writepcap_work)
set_tests_properties(e2e_writepcap PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)

# The findings on a second thread (--threads): the same reports with
# one thread and two on every sample and public capture; the thread is there.
add_test(NAME e2e_threads COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_threads.py
         $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/samples ${NFSSCOPE_PCAPS}
         ${CMAKE_BINARY_DIR}/threads_work)
set_tests_properties(e2e_threads PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)

# Connections decoded by several threads (--threads N --no-findings): the
# same reports with 1, 2, 3 and 4 decoding threads on every sample and
# public capture; one client's connections to 8 servers merge into one
# client row; the threads are there, and not where they may not be.
# Sanitizer builds, where every run is several times slower, compare JSON
# only (e2e_shards: with 2 and 3 threads); the release build compares all.
set(_json_only "")
if(NFSSCOPE_SANITIZE)
  set(_json_only --json-only)
endif()
add_test(NAME e2e_shards COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_shards.py
         ${_json_only} $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/samples ${NFSSCOPE_PCAPS}
         ${CMAKE_BINARY_DIR}/shards_work)
set_tests_properties(e2e_shards PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)

# The NFSv4 decoder on the public NFSv4 captures against tshark's per-operation
# truth (truth-v4/), through a test-only driver that keeps whole RPC messages
# (and again decoding only a 4 KiB head and a 512-byte tail of each).
add_executable(nfs4_truth ${CMAKE_SOURCE_DIR}/tests/nfs4_truth.c)
target_link_libraries(nfs4_truth PRIVATE nfsscope_core)
add_test(NAME nfs4_truth COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/nfs4_truth_test.py
         $<TARGET_FILE:nfs4_truth> ${NFSSCOPE_PCAPS} ${CMAKE_SOURCE_DIR}/samples
         ${CMAKE_BINARY_DIR}/nfs4_truth_work)
set_tests_properties(nfs4_truth PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)

# nfsscope's nfs4 object against tshark's truth and the NFSv4 samples' clients.
add_test(NAME e2e_nfs4 COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_nfs4.py
         $<TARGET_FILE:nfsscope> ${NFSSCOPE_PCAPS} ${CMAKE_SOURCE_DIR}/samples)
set_tests_properties(e2e_nfs4 PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)

# The file rows' per-operation NFSv4 counts (JSON nfs4_ops, CSV file_nfs4_op
# rows, the text report's "nfs4 ops:" lines) against tshark's
# per-operation decoding, the current file handle walked op by op.
add_test(NAME e2e_nfs4_file_ops COMMAND Python3::Interpreter
         ${CMAKE_SOURCE_DIR}/tests/e2e_nfs4_file_ops.py $<TARGET_FILE:nfsscope>
         ${CMAKE_BINARY_DIR}/nfs4_file_ops_work ${CMAKE_SOURCE_DIR}/samples ${NFSSCOPE_PCAPS})
set_tests_properties(e2e_nfs4_file_ops PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)

# Names an NFSv4 READDIR teaches (entries with FATTR4_FILEHANDLE), hostile
# ones escaped, against tshark's decoding of a synthetic listing.
add_test(NAME e2e_nfs4_readdir COMMAND Python3::Interpreter
         ${CMAKE_SOURCE_DIR}/tests/e2e_nfs4_readdir.py $<TARGET_FILE:nfsscope>
         ${CMAKE_BINARY_DIR}/nfs4_readdir_work ${NFSSCOPE_PCAPS})
set_tests_properties(e2e_nfs4_readdir PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)

# NFSv4 COMPOUNDs of two samples re-segmented: many per segment, one over many.
add_test(NAME e2e_nfs4_segments COMMAND Python3::Interpreter
         ${CMAKE_SOURCE_DIR}/tests/e2e_nfs4_segments.py $<TARGET_FILE:nfsscope>
         ${CMAKE_SOURCE_DIR}/samples ${CMAKE_BINARY_DIR}/nfs4_segments_work)
set_tests_properties(e2e_nfs4_segments PROPERTIES TIMEOUT 600)

# The NFSv4 numbers of the text report, -o csv and --records against
# tshark's per-operation truth (and tshark's SEQUENCE fields, if installed);
# the text report's NFS v3 section only when tshark sees NFSv3 calls.
add_test(NAME e2e_nfs4_views COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_nfs4_views.py
         $<TARGET_FILE:nfsscope> ${NFSSCOPE_PCAPS} ${CMAKE_SOURCE_DIR}/samples
         ${CMAKE_BINARY_DIR}/e2e_nfs4_views_work)
set_tests_properties(e2e_nfs4_views PROPERTIES TIMEOUT 600)

# The NFSv4 state (nfs4.clients, sessions, stateids, delegations) against
# tshark's truth and the clients' records.
add_test(NAME e2e_nfs4_state COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_nfs4_state.py
         $<TARGET_FILE:nfsscope> ${NFSSCOPE_PCAPS} ${CMAKE_SOURCE_DIR}/samples)
set_tests_properties(e2e_nfs4_state PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)

# The capture readers (src/capfile.c against --reader libpcap): byte-identical
# reports on every sample, public capture and derived variant; compressed
# input; a pcapng with interfaces of two link types, against tshark.
add_test(NAME e2e_readers COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_readers.py
         ${_json_only} $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/samples ${NFSSCOPE_PCAPS}
         ${CMAKE_BINARY_DIR}/readers_work)
set_tests_properties(e2e_readers PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)

# tshark reads the NFSv4 unit tests' byte streams (every op's call and reply)
# and must find the same op lists: the encodings have the RFCs' lengths.
add_test(NAME nfs4_tshark COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/nfs4_tshark_test.py
         $<TARGET_FILE:nfs4_test> ${CMAKE_BINARY_DIR}/nfs4_tshark_work)
set_tests_properties(nfs4_tshark PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)

# The report contract (doc/contract.md): every JSON report of every sample
# and public capture, merge's and diff's, validates against
# doc/nfsscope-report.schema.json; mutated reports must not.
add_test(NAME e2e_schema COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_schema.py
         $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/samples ${NFSSCOPE_PCAPS}
         ${CMAKE_BINARY_DIR}/schema_work ${CMAKE_SOURCE_DIR}/doc/nfsscope-report.schema.json)
set_tests_properties(e2e_schema PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)

# slow_server on a synthetic capture whose generator keeps each call's
# latency: the slow server, operation and period it made, found.
add_test(NAME e2e_slow_server COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_slow_server.py
         $<TARGET_FILE:nfsscope> ${CMAKE_BINARY_DIR}/slow_server_work)
set_tests_properties(e2e_slow_server PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)

# diff's workload lines (duration, ops/s, MB/s, time in NFS calls, bytes
# per READ/WRITE), changes in %, verdict and percentile warnings against
# capinfos, tshark and the generators' records.
add_test(NAME e2e_diff COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_diff.py
         $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/samples)
set_tests_properties(e2e_diff PROPERTIES TIMEOUT 600)

# --interval with -r: reports by capture time, each counting the NFS calls
# tshark sees before its boundary; the final report unchanged.
add_test(NAME e2e_interval COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_interval.py
         $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/samples)
set_tests_properties(e2e_interval PROPERTIES TIMEOUT 600)

# small_io on bulk-io: sizes, FSINFO rtmax/wtmax and latencies from tshark.
add_test(NAME e2e_small_io COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_small_io.py
         $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/samples)
set_tests_properties(e2e_small_io PROPERTIES TIMEOUT 300)

# serialized_io on serial-io (one call at a time) and bulk-io (calls in
# flight together): call intervals, sizes and latencies from tshark.
add_test(NAME e2e_serial_io COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_serial_io.py
         $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/samples)
set_tests_properties(e2e_serial_io PROPERTIES TIMEOUT 300)

# NFSv4 callbacks (nfs4.callbacks) against tshark: the public captures' back
# channel CB_NULLs, the real sample nfs41-deleg (a recalled delegation, also
# against its client's record) and a synthetic capture with both kinds of
# callback channel, a learned callback program and a recalled delegation.
add_test(NAME e2e_callbacks COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_callbacks.py
         $<TARGET_FILE:nfsscope> ${NFSSCOPE_PCAPS} ${CMAKE_BINARY_DIR}/callbacks_work
         ${CMAKE_SOURCE_DIR}/samples)
set_tests_properties(e2e_callbacks PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)

# Two NFSv4 servers with the same client ids, sessionids and stateids: a
# sample merged with a copy of itself on other addresses, against tshark's
# counts on the sample, twice.
add_test(NAME e2e_nfs4_servers COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_nfs4_servers.py
         $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR}/samples ${CMAKE_BINARY_DIR}/nfs4_servers_work)
set_tests_properties(e2e_nfs4_servers PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)

# bench/srt-check, bench/run's cross-check against tshark's SRT table, on
# lossy-cms (duplicate replies by TCP retransmission) and an NFSv4 sample.
add_test(NAME bench_srt_check COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/bench_srt_check_test.py
         $<TARGET_FILE:nfsscope> ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/bench_srt_check_work)
set_tests_properties(bench_srt_check PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
