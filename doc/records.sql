-- SPDX-License-Identifier: BSD-3-Clause
-- records.sql: typed tables for the rows of `nfsscope --records calls.csv`
-- (one row per call; columns in nfsscope(1), PER-CALL RECORDS), for SQLite,
-- DuckDB and ClickHouse. Each section below stands alone: copy the one for
-- your database, or run this file through sed, e.g.
--
--   sed -n '/^-- ==== SQLite/,/^-- ==== end/p' records.sql | sqlite3 calls.db
--
-- Every section reads ./calls.csv (the CSV form, with its header row); edit
-- the name to load another file. Empty CSV fields are NULL (not known, or
-- not applicable to the procedure). `time` is the call's capture time in
-- seconds since 1970 with 9 decimals; latencies are whole microseconds.
-- The tables have this version's columns, in the order nfsscope writes them.

-- ==== SQLite (sqlite3 3.32 or later: .import --csv --skip)
-- sqlite3's .import stores an empty field as '', not NULL, so the rows go
-- through a text table first. REAL keeps `time` to about 0.1 us.
CREATE TABLE calls (
    time REAL NOT NULL,
    client TEXT, server TEXT, client_port INTEGER, server_port INTEGER, transport TEXT,
    xid INTEGER NOT NULL, program INTEGER NOT NULL, program_name TEXT, version INTEGER NOT NULL,
    procedure TEXT NOT NULL,
    uid INTEGER, gid INTEGER, fh TEXT, path TEXT,
    "offset" INTEGER, count INTEGER, stable_how TEXT, status TEXT,
    latency_us INTEGER, call_bytes INTEGER NOT NULL, reply_bytes INTEGER,
    outcome TEXT NOT NULL CHECK (outcome IN ('replied', 'rpc_error', 'no_reply')),
    retransmissions INTEGER NOT NULL,
    call_frame INTEGER, reply_frame INTEGER, name TEXT, community_id TEXT,
    minor_version INTEGER, ops TEXT, kind TEXT, first_error_op TEXT, first_error_status TEXT,
    sessionid TEXT, slotid INTEGER, sequenceid INTEGER
);
CREATE TEMP TABLE calls_csv (
    time, client, server, client_port, server_port, transport, xid, program, program_name,
    version, procedure, uid, gid, fh, path, "offset", count, stable_how, status, latency_us,
    call_bytes, reply_bytes, outcome, retransmissions, call_frame, reply_frame, name,
    community_id, minor_version, ops, kind, first_error_op, first_error_status, sessionid,
    slotid, sequenceid
);
.import --csv --skip 1 calls.csv calls_csv
INSERT INTO calls
SELECT CAST(time AS REAL), NULLIF(client, ''), NULLIF(server, ''),
       CAST(NULLIF(client_port, '') AS INTEGER), CAST(NULLIF(server_port, '') AS INTEGER),
       NULLIF(transport, ''), CAST(xid AS INTEGER), CAST(program AS INTEGER),
       NULLIF(program_name, ''), CAST(version AS INTEGER), procedure,
       CAST(NULLIF(uid, '') AS INTEGER), CAST(NULLIF(gid, '') AS INTEGER), NULLIF(fh, ''),
       NULLIF(path, ''), CAST(NULLIF("offset", '') AS INTEGER),
       CAST(NULLIF(count, '') AS INTEGER), NULLIF(stable_how, ''), NULLIF(status, ''),
       CAST(NULLIF(latency_us, '') AS INTEGER), CAST(call_bytes AS INTEGER),
       CAST(NULLIF(reply_bytes, '') AS INTEGER), outcome, CAST(retransmissions AS INTEGER),
       CAST(NULLIF(call_frame, '') AS INTEGER), CAST(NULLIF(reply_frame, '') AS INTEGER),
       NULLIF(name, ''), NULLIF(community_id, ''),
       CAST(NULLIF(minor_version, '') AS INTEGER), NULLIF(ops, ''), NULLIF(kind, ''),
       NULLIF(first_error_op, ''), NULLIF(first_error_status, ''), NULLIF(sessionid, ''),
       CAST(NULLIF(slotid, '') AS INTEGER), CAST(NULLIF(sequenceid, '') AS INTEGER)
FROM calls_csv;
DROP TABLE calls_csv;
-- ==== end

-- ==== DuckDB
-- CSV empty fields are NULL in DuckDB's reader. DECIMAL(19,9) keeps `time`
-- exact (to the nanosecond).
CREATE TABLE calls (
    time DECIMAL(19, 9) NOT NULL,
    client VARCHAR, server VARCHAR, client_port USMALLINT, server_port USMALLINT,
    transport VARCHAR,
    xid UINTEGER NOT NULL, program UINTEGER NOT NULL, program_name VARCHAR,
    version UINTEGER NOT NULL, procedure VARCHAR NOT NULL,
    uid UINTEGER, gid UINTEGER, fh VARCHAR, path VARCHAR,
    "offset" UBIGINT, count UBIGINT, stable_how VARCHAR, status VARCHAR,
    latency_us UBIGINT, call_bytes UINTEGER NOT NULL, reply_bytes UINTEGER,
    outcome VARCHAR NOT NULL, retransmissions USMALLINT NOT NULL,
    call_frame UBIGINT, reply_frame UBIGINT, name VARCHAR, community_id VARCHAR,
    minor_version UINTEGER, ops VARCHAR, kind VARCHAR, first_error_op VARCHAR,
    first_error_status VARCHAR, sessionid VARCHAR, slotid UINTEGER, sequenceid UINTEGER
);
COPY calls FROM 'calls.csv' (FORMAT csv, HEADER true);
-- ==== end

-- ==== ClickHouse (clickhouse-client or clickhouse-local)
-- CSVWithNames: empty fields of Nullable columns are NULL
-- (input_format_csv_empty_as_default, on by default).
-- `time` is kept as the exact decimal: toDateTime64(time, 9) gives the time.
CREATE TABLE calls (
    time Decimal(19, 9),
    client Nullable(String), server Nullable(String),
    client_port Nullable(UInt16), server_port Nullable(UInt16),
    transport LowCardinality(Nullable(String)),
    xid UInt32, program UInt32, program_name LowCardinality(Nullable(String)), version UInt32,
    procedure LowCardinality(String),
    uid Nullable(UInt32), gid Nullable(UInt32), fh Nullable(String), path Nullable(String),
    "offset" Nullable(UInt64), count Nullable(UInt64),
    stable_how LowCardinality(Nullable(String)),
    status LowCardinality(Nullable(String)),
    latency_us Nullable(UInt64), call_bytes UInt32, reply_bytes Nullable(UInt32),
    outcome LowCardinality(String), retransmissions UInt16,
    call_frame Nullable(UInt64), reply_frame Nullable(UInt64), name Nullable(String),
    community_id Nullable(String),
    minor_version Nullable(UInt32), ops Nullable(String), kind LowCardinality(Nullable(String)),
    first_error_op LowCardinality(Nullable(String)),
    first_error_status LowCardinality(Nullable(String)),
    sessionid Nullable(String), slotid Nullable(UInt32), sequenceid Nullable(UInt32)
) ENGINE = MergeTree ORDER BY time;
INSERT INTO calls FROM INFILE 'calls.csv' FORMAT CSVWithNames;
-- ==== end
