/* SPDX-License-Identifier: BSD-3-Clause */
/* cli.c: the command line (contract.md): --help, every option and its
 * checks, and the one-line messages with exit 2 for bad input. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "breakdown.h"
#include "capture.h"
#include "cli.h"
#include "iflist.h"
#include "metrics.h"
#include "term_escape.h"
#include "tui.h"

static const char usage_text[] =
    "usage: nfsscope [-r FILE ... | -i IFACE] [options] [BPF expression]\n"
    "\n"
    "Input\n"
    "  -r FILE            read a pcap or pcapng file, plain or gzip, zstd, xz or bzip2\n"
    "                     compressed ('-' = standard input); repeat to analyse\n"
    "                     several files as one capture, in timestamp order\n"
    "  --reader builtin|libpcap\n"
    "                     how files are read: builtin (default; each pcapng\n"
    "                     interface with its own link type, compressed files) or\n"
    "                     libpcap (uncompressed, one link type per file)\n"
    "  FILE               a lone capture file name first, without -r or -i: read it\n"
    "                     (it must end in .pcap, .pcapng or .cap, optionally .gz,\n"
    "                     .zst, .xz or .bz2)\n"
    "  -i IFACE           capture live from IFACE ('any' allowed)\n"
    "  -D                 list the interfaces -i can open, as tcpdump -D\n"
    "  -c COUNT           stop after COUNT packets\n"
    "  --duration SECONDS stop after SECONDS (live: wall clock; files: packet time)\n"
    "  BPF expression     a libpcap filter, as in tcpdump (default: none; NFS is\n"
    "                     recognised by validating RPC headers, not by port)\n"
    "  -F FILE            read the BPF expression from FILE (as tcpdump; '#' starts\n"
    "                     a comment); not with an expression on the command line\n"
    "  -n                 accepted, as in tcpdump: nfsscope never resolves names\n"
    "Live capture (as in tcpdump)\n"
    "  -s SNAPLEN         bytes kept per packet (default 262144)\n"
    "  -B KIB             kernel capture buffer in KiB (default: 32768)\n"
    "  -p                 do not put the interface in promiscuous mode\n"
    "  -Z USER            run as USER once the capture is open; started as root,\n"
    "                     -i runs as 'nobody' unless -Z names another user\n"
    "                     (-Z root keeps root)\n"
    "Output\n"
    "  -o text|json|csv   report format on standard output (default: text)\n"
    "  -q, -v             text report: -q the short form (header, procedure tables,\n"
    "                     capture quality); -v every breakdown too (as --by with\n"
    "                     all six dimensions, unless --by says which) and the\n"
    "                     what-if model's assumptions\n"
    "  --all              text report and view: procedures without calls too\n"
    "                     (hidden by default)\n"
    "  --tui, --no-tui    the interactive view (default for -i on a terminal); with\n"
    "                     -r it replays the file; the final report follows on exit\n"
    "  --speed X          replay speed of -r in the view or with --metrics: 1 = the\n"
    "                     file's own pace (default), 10 = ten times faster, 0 = as\n"
    "                     fast as possible\n"
    "  --interval SECONDS without the view: a report every SECONDS (-i: of the wall\n"
    "                     clock; -r: of the capture's time), JSON one object per\n"
    "                     line, then the final report\n"
    "  --records FILE     one row per matched or unanswered call to FILE (not '-':\n"
    "                     the report is on standard output)\n"
    "  --records-format csv|jsonl\n"
    "                     CSV (RFC 4180, header row, CRLF; default) or JSON Lines\n"
    "  --metrics ADDR:PORT\n"
    "                     serve Prometheus metrics at http://ADDR:PORT/metrics\n"
    "                     (e.g. 127.0.0.1:9753, [::1]:9753; port 0: any free one);\n"
    "                     -i: while capturing; -r: the file plays at --speed, then\n"
    "                     its final counters are served until SIGINT or SIGTERM\n"
    "  -w FILE            write the packets that carried RPC to FILE, a pcap (not\n"
    "                     '-'): the RPC connections from their first record, SYNs\n"
    "                     to ports 111 and 2049, the fragments of RPC datagrams\n"
    "Breakdowns (who and what)\n"
    "  --by DIM[,DIM...]  top-N tables in the text report per client, server, pair,\n"
    "                     export, file or user (JSON always has all of them); file\n"
    "                     rows list the NFSv4 operations run on each file\n"
    "  --top N            rows per breakdown (default 10)\n"
    "  --sort calls|latency|bytes\n"
    "                     order of the top-N rows (default calls; latency = total time)\n"
    "Limits (bounded memory; what falls out is counted in the report)\n"
    "  --max-flows N      connections tracked (default 65536)\n"
    "  --max-pending N    calls awaiting a reply (default 65536)\n"
    "  --call-timeout S   seconds of packet time before a call counts as unanswered\n"
    "                     (default 120)\n"
    "  --max-rows N       rows per breakdown table; the rest is summed in \"other\"\n"
    "                     (default 1024)\n"
    "  --max-names N      file handles whose names are remembered (default 65536)\n"
    "  --max-frags N      IP datagrams in reassembly at once, 64 KiB each at most\n"
    "                     (default 1024)\n"
    "Findings\n"
    "  --window SECONDS   a GETATTR or ACCESS repeated within this long is counted\n"
    "                     as redundant (default 3, like acregmin)\n"
    "  --max-findings N   entries per findings table (default 16384)\n"
    "  --no-findings      skip the findings (about half the work per call)\n"
    "  --threads N        1..16 (default 2): the findings on a thread of their own,\n"
    "                     the decoding on one other; with --no-findings and -r\n"
    "                     files the connections shared by all N (by address pair),\n"
    "                     with the same report while no table fills; one decoding\n"
    "                     thread with -i, --tui, --metrics, --interval, -w,\n"
    "                     --records or standard input\n"
    "  nfsscope diff [-o text|json] A B\n"
    "                     compare two captures or saved JSON reports (-o json):\n"
    "                     calls, latency, WRITE stable_how and findings, with the change\n"
    "  nfsscope merge [-o text|json|csv] A.json B.json ...\n"
    "                     combine saved JSON reports exactly (counts and histograms add)\n"
    "Other\n"
    "  -h, --help         this help\n"
    "  --version          print the version\n"
    "\n"
    "Exit status: 0 success, 1 run-time failure (file missing, not a capture,\n"
    "no permission), 2 usage error.\n";

static void vsay(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* "nfsscope: MESSAGE\n" on stderr, where the message may hold what the user
 * typed (an option's value) or an error string: control bytes and invalid
 * UTF-8 are escaped (term_escape), so the message stays one line and cannot
 * drive the terminal. A backslash is left as it is: messages that carry a
 * file name were escaped where they were made. */
static void
vsay(const char *fmt, va_list ap)
{
    char msg[2048], esc[4 * 256 + 1];
    const char *p, *bs;

    vsnprintf(msg, sizeof msg, fmt, ap);
    fputs("nfsscope: ", stderr);
    for (p = msg;; p = bs + 1) {
        size_t n;

        bs = strchr(p, '\\');
        n = bs ? (size_t)(bs - p) : strlen(p);
        while (n) { /* in pieces of at most 256 bytes, cut between characters */
            size_t k = n < 256 ? n : 256;

            while (k < n && k > 0 && ((unsigned char)p[k] & 0xc0) == 0x80)
                k--;
            if (k == 0)
                k = n < 256 ? n : 256;
            term_escape(esc, sizeof esc, (const uint8_t *)p, k);
            fputs(esc, stderr);
            p += k;
            n -= k;
        }
        if (!bs)
            break;
        fputc('\\', stderr);
    }
    fputc('\n', stderr);
}

void
cli_say(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
}

/* One line naming the bad argument, a short usage, exit 2 (contract.md). */
void
cli_usage_error(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
    fputs("usage: nfsscope [-r FILE ... | -i IFACE] [options] [BPF expression]"
          " (nfsscope --help for more)\n",
          stderr);
    exit(2);
}

static uint64_t
parse_count(const char *opt, const char *arg, uint64_t min, uint64_t max)
{
    char *end;
    unsigned long long v;

    errno = 0;
    if (!arg || !*arg || *arg == '-')
        goto bad;
    v = strtoull(arg, &end, 10);
    if (errno || *end || v < min || v > max)
        goto bad;
    return v;
bad:
    cli_usage_error("%s: \"%s\" is not a whole number from %" PRIu64 " to %" PRIu64, opt,
                arg ? arg : "", min, max);
}

/* A number of seconds (or a speed factor): decimal, at least min, at most a
 * year. */
static double
parse_seconds(const char *opt, const char *arg, double min)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(arg, &end);
    if (errno || end == arg || *end || !(v >= min) || v > 31536000.0)
        cli_usage_error("%s: \"%s\" is not a number from %g to 31536000", opt, arg, min);
    return v;
}

/* The BPF expression: the remaining arguments joined with spaces (tcpdump). */
static char *
join_args(int argc, char **argv)
{
    size_t len = 1;
    int i;
    char *s;

    if (argc <= 0)
        return NULL;
    for (i = 0; i < argc; i++)
        len += strlen(argv[i]) + 1;
    s = malloc(len);
    if (!s) {
        fputs("nfsscope: out of memory\n", stderr);
        exit(1);
    }
    s[0] = '\0';
    for (i = 0; i < argc; i++) {
        if (i)
            strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

enum {
    OPT_VERSION = 256,
    OPT_MAX_FLOWS,
    OPT_MAX_PENDING,
    OPT_CALL_TIMEOUT,
    OPT_BY,
    OPT_TOP,
    OPT_SORT,
    OPT_MAX_ROWS,
    OPT_MAX_NAMES,
    OPT_MAX_FRAGS,
    OPT_TUI,
    OPT_NO_TUI,
    OPT_INTERVAL,
    OPT_DURATION,
    OPT_SPEED,
    OPT_WINDOW,
    OPT_MAX_FINDINGS,
    OPT_NO_FINDINGS,
    OPT_THREADS,
    OPT_RECORDS,
    OPT_RECORDS_FORMAT,
    OPT_METRICS,
    OPT_READER,
    OPT_ALL,
};

/* --by client,file: a mask of enum bd_dim bits. */
static unsigned
parse_by(const char *arg)
{
    char buf[256], *tok, *save = NULL;
    unsigned mask = 0;

    if (strlen(arg) >= sizeof buf)
        cli_usage_error("--by: \"%s\" is too long", arg);
    strcpy(buf, arg);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        enum bd_dim d;
        if (!bd_dim_parse(tok, &d))
            cli_usage_error("--by: \"%s\" is not one of client, server, pair, export, file,"
                            " user",
                            tok);
        mask |= 1u << d;
    }
    if (!mask)
        cli_usage_error("--by: \"%s\" names no breakdown", arg);
    return mask;
}

/* The option table: getopt_long's long names beside the short ones, and one
 * switch below that sets each. */
static const struct option longopts[] = {
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, OPT_VERSION },
    { "max-flows", required_argument, NULL, OPT_MAX_FLOWS },
    { "max-pending", required_argument, NULL, OPT_MAX_PENDING },
    { "call-timeout", required_argument, NULL, OPT_CALL_TIMEOUT },
    { "by", required_argument, NULL, OPT_BY },
    { "top", required_argument, NULL, OPT_TOP },
    { "sort", required_argument, NULL, OPT_SORT },
    { "max-rows", required_argument, NULL, OPT_MAX_ROWS },
    { "max-names", required_argument, NULL, OPT_MAX_NAMES },
    { "max-frags", required_argument, NULL, OPT_MAX_FRAGS },
    { "tui", no_argument, NULL, OPT_TUI },
    { "no-tui", no_argument, NULL, OPT_NO_TUI },
    { "interval", required_argument, NULL, OPT_INTERVAL },
    { "duration", required_argument, NULL, OPT_DURATION },
    { "speed", required_argument, NULL, OPT_SPEED },
    { "window", required_argument, NULL, OPT_WINDOW },
    { "max-findings", required_argument, NULL, OPT_MAX_FINDINGS },
    { "no-findings", no_argument, NULL, OPT_NO_FINDINGS },
    { "threads", required_argument, NULL, OPT_THREADS },
    { "records", required_argument, NULL, OPT_RECORDS },
    { "records-format", required_argument, NULL, OPT_RECORDS_FORMAT },
    { "metrics", required_argument, NULL, OPT_METRICS },
    { "reader", required_argument, NULL, OPT_READER },
    { "all", no_argument, NULL, OPT_ALL },
    { NULL, 0, NULL, 0 },
};
static const char shortopts[] = "r:i:o:c:hs:B:pZ:w:DF:nqv";

/* -F FILE: the BPF expression, as tcpdump reads it: the whole file, each '#'
 * to the end of its line a comment. An unreadable file is exit 1. */
#define FILTER_FILE_MAX (64u << 10)
static char *
read_filter_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf, *p;
    size_t n;
    bool comment = false;

    if (!f) {
        cli_say("-F: cannot open %s: %s", path, strerror(errno));
        exit(1);
    }
    buf = malloc(FILTER_FILE_MAX + 1);
    if (!buf) {
        fputs("nfsscope: out of memory\n", stderr);
        exit(1);
    }
    n = fread(buf, 1, FILTER_FILE_MAX + 1, f);
    if (ferror(f)) {
        cli_say("-F: cannot read %s: %s", path, strerror(errno));
        exit(1);
    }
    fclose(f);
    if (n > FILTER_FILE_MAX)
        cli_usage_error("-F: %s is longer than %u bytes", path, FILTER_FILE_MAX);
    buf[n] = '\0';
    for (p = buf; p < buf + n; p++) { /* comments and control bytes become spaces */
        if (*p == '#')
            comment = true;
        else if (*p == '\n')
            comment = false;
        if (comment || (unsigned char)*p < 0x20)
            *p = ' ';
    }
    if (memchr(buf, '\0', n))
        cli_usage_error("-F: %s holds a NUL byte", path);
    { /* one space between words, none around: the report shows the expression */
        char *w = buf;

        for (p = buf; *p; p++)
            if (*p != ' ' || (w > buf && w[-1] != ' '))
                *w++ = *p;
        while (w > buf && w[-1] == ' ')
            w--;
        *w = '\0';
    }
    if (!buf[0]) { /* only comments: no filter */
        free(buf);
        return NULL;
    }
    return buf;
}

/* A capture file's name, as the lone first argument may give it. */
static bool
capture_name(const char *a)
{
    static const char *const ext[] = { ".pcap", ".pcapng", ".cap" };
    static const char *const comp[] = { "", ".gz", ".zst", ".xz", ".bz2" };
    size_t n = strlen(a), i, j;

    for (i = 0; i < sizeof ext / sizeof ext[0]; i++)
        for (j = 0; j < sizeof comp / sizeof comp[0]; j++) {
            size_t k = strlen(ext[i]) + strlen(comp[j]);

            if (n > k && strncmp(a + n - k, ext[i], strlen(ext[i])) == 0 &&
                strcmp(a + n - strlen(comp[j]), comp[j]) == 0)
                return true;
        }
    return false;
}

bool
cli_parse(int argc, char **argv, struct cli *c)
{
    struct nfsscope_config *cfg = &c->cfg;
    char err[512] = "";
    const char *filter_file = NULL;
    bool quiet = false, verbose = false, no_findings = false;
    int opt;

    memset(c, 0, sizeof *c);
    config_defaults(cfg);
    c->records_fmt = RECORDS_CSV;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        switch (opt) {
        case 'r':
            if (cfg->nfiles >= NFSSCOPE_MAX_FILES)
                cli_usage_error("-r: at most %d files", NFSSCOPE_MAX_FILES);
            cfg->files[cfg->nfiles++] = optarg;
            break;
        case 'i':
            cfg->iface = optarg;
            break;
        case 'o':
            cfg->format = optarg;
            break;
        case 'c':
            cfg->max_packets = parse_count("-c", optarg, 1, UINT64_MAX);
            break;
        case OPT_MAX_FLOWS:
            cfg->max_flows = parse_count("--max-flows", optarg, 16, 1u << 24);
            break;
        case OPT_MAX_PENDING:
            cfg->max_pending = parse_count("--max-pending", optarg, 16, 1u << 24);
            break;
        case OPT_CALL_TIMEOUT:
            cfg->call_timeout_s = (unsigned)parse_count("--call-timeout", optarg, 1, 86400);
            break;
        case OPT_BY:
            cfg->by_mask |= parse_by(optarg);
            break;
        case OPT_TOP:
            cfg->top_n = (unsigned)parse_count("--top", optarg, 1, 1u << 22);
            break;
        case OPT_SORT: {
            enum bd_order o;
            if (!bd_order_parse(optarg, &o))
                cli_usage_error("--sort: \"%s\" is not one of calls, latency, bytes", optarg);
            cfg->order = (int)o;
            break;
        }
        case OPT_MAX_ROWS:
            cfg->bd_rows = parse_count("--max-rows", optarg, 1, 1u << 22);
            break;
        case OPT_MAX_NAMES:
            cfg->names_max = parse_count("--max-names", optarg, 16, 1u << 24);
            break;
        case OPT_MAX_FRAGS:
            cfg->ipfrag_max = parse_count("--max-frags", optarg, 1, 1u << 16);
            break;
        case OPT_RECORDS:
            if (strcmp(optarg, "-") == 0)
                cli_usage_error("--records: '-' is not allowed (the report is on standard"
                                " output); give a file name");
            c->records_path = optarg;
            break;
        case 'w':
            if (strcmp(optarg, "-") == 0)
                cli_usage_error("-w: '-' is not allowed (the report is on standard output);"
                                " give a file name");
            c->wpcap_path = optarg;
            break;
        case OPT_METRICS: {
            struct sockaddr_storage ss;
            socklen_t sslen;

            if (metrics_parse_addr(optarg, &ss, &sslen, err, sizeof err) != 0)
                cli_usage_error("%s", err);
            cfg->metrics_addr = optarg;
            break;
        }
        case OPT_READER:
            if (!capture_reader_parse(optarg, &cfg->reader))
                cli_usage_error("--reader: \"%s\" is not one of builtin, libpcap", optarg);
            break;
        case OPT_RECORDS_FORMAT:
            if (!records_format_parse(optarg, &c->records_fmt))
                cli_usage_error("--records-format: \"%s\" is not one of csv, jsonl", optarg);
            break;
        case OPT_MAX_FINDINGS:
            cfg->findings_max = parse_count("--max-findings", optarg, 16, 1u << 22);
            break;
        case OPT_NO_FINDINGS:
            no_findings = true;
            break;
        case OPT_THREADS:
            cfg->threads = (unsigned)parse_count("--threads", optarg, 1, 16);
            break;
        case OPT_WINDOW:
            cfg->window_s = (unsigned)parse_count("--window", optarg, 1, 86400);
            break;
        case 's': /* tcpdump: 0 means the default */
            cfg->snaplen = (int)parse_count("-s", optarg, 0, 262144);
            break;
        case 'B':
            cfg->buffer_kib = (int)parse_count("-B", optarg, 1, 1u << 21);
            break;
        case 'p':
            cfg->no_promisc = true;
            break;
        case 'Z':
            cfg->user = optarg;
            break;
        case OPT_TUI:
            cfg->tui = 1;
            break;
        case OPT_NO_TUI:
            cfg->tui = 0;
            break;
        case OPT_INTERVAL:
            cfg->interval_s = parse_seconds("--interval", optarg, 0.01);
            break;
        case OPT_DURATION:
            cfg->duration_s = parse_seconds("--duration", optarg, 0.001);
            break;
        case OPT_SPEED:
            cfg->speed = parse_seconds("--speed", optarg, 0);
            break;
        case 'D': {
            char e[512];

            if (iflist_print(stdout, e, sizeof e) != 0) {
                cli_say("%s", e);
                exit(1);
            }
            return false;
        }
        case 'F':
            filter_file = optarg;
            break;
        case 'n': /* tcpdump's "don't resolve": nfsscope never resolves names */
            break;
        case 'q':
            quiet = true;
            break;
        case OPT_ALL:
            cfg->all_rows = true;
            break;
        case 'v':
            verbose = true;
            break;
        case 'h':
            fputs(usage_text, stdout);
            return false;
        case OPT_VERSION:
            printf("nfsscope %s\n", NFSSCOPE_VERSION);
            return false;
        case '?':
        default:
            if (optopt && optopt < 256)
                cli_usage_error("unknown option or missing value: -%c", optopt);
            cli_usage_error("unknown option or missing value: %s", argv[optind - 1]);
        }
    }
    /* The hashes' seed (getrandom() otherwise): the same seed gives the same
     * report even when full tables evict (which entry goes depends on it). */
    if (getenv("NFSSCOPE_HASH_SEED"))
        cfg->hash_seed = parse_count("NFSSCOPE_HASH_SEED", getenv("NFSSCOPE_HASH_SEED"), 1,
                                     UINT64_MAX);
    /* A lone capture file name first (tcpdump has no such thing): without -r
     * and -i, a first argument that names a capture file by its suffix is
     * read as -r; with -r or -i, such an argument naming an existing file is
     * ambiguous (a file, or a filter?) and refused. */
    if (optind < argc && capture_name(argv[optind])) {
        if (!cfg->nfiles && !cfg->iface)
            cfg->files[cfg->nfiles++] = argv[optind++];
        else if (access(argv[optind], F_OK) == 0)
            cli_usage_error("\"%s\" is a capture file but -r or -i is given: add -r before it,"
                            " or quote it as part of the filter",
                            argv[optind]);
    }
    if (no_findings) /* whatever --max-findings says */
        cfg->findings_max = 0;
    if (quiet && verbose)
        cli_usage_error("-q and -v cannot be used together");
    cfg->detail = quiet ? -1 : verbose ? 1 : 0;
    if (verbose && !cfg->by_mask)
        cfg->by_mask = (1u << BD__COUNT) - 1;
    if (filter_file && optind < argc)
        cli_usage_error("-F: not with a BPF expression on the command line (\"%s\"): use one"
                        " or the other",
                        argv[optind]);
    if (cfg->nfiles && cfg->iface)
        cli_usage_error("-r and -i cannot be used together");
    if (!cfg->nfiles && !cfg->iface)
        cli_usage_error("no input: give -r FILE or -i IFACE");
    c->view = view_find(cfg->format);
    if (!c->view)
        cli_usage_error("-o: \"%s\" is not one of text, json, csv", cfg->format);
    if (cfg->interval_s > 0 && !c->view->tick)
        cli_usage_error("--interval: -o %s has no periodic report", cfg->format);
    if (cfg->metrics_addr && cfg->tui == 1)
        cli_usage_error("--metrics: not with --tui (the view runs its own loop); drop --tui");
    c->use_tui = cfg->tui == 1 || (cfg->tui == -1 && cfg->iface && !cfg->metrics_addr &&
                                  isatty(STDIN_FILENO) && isatty(STDOUT_FILENO));
    if (c->use_tui && !tui_usable(err, sizeof err))
        cli_usage_error("--tui: %s", err);
    c->filter = filter_file ? read_filter_file(filter_file) : join_args(argc - optind, argv + optind);
    cfg->filter = c->filter;
    return true;
}

void
cli_fini(struct cli *c)
{
    free(c->filter);
    c->filter = NULL;
}
