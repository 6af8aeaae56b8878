/* SPDX-License-Identifier: BSD-3-Clause */
/* cli.h: the command line (contract.md) parsed into a configuration, and
 * the one-line messages on standard error. */
#ifndef NFSSCOPE_CLI_H
#define NFSSCOPE_CLI_H

#include <stdbool.h>

#include "config.h"
#include "records.h"
#include "view.h"

/* What the command line asks for, checked. */
struct cli {
    struct nfsscope_config cfg;
    const struct view_ops *view;     /* -o */
    bool use_tui;                    /* the interactive view runs */
    const char *records_path;        /* --records, or NULL */
    enum records_format records_fmt; /* --records-format */
    const char *wpcap_path;          /* -w, or NULL */
    char *filter;                    /* the BPF expression (owned), or NULL */
};

/* Parse argv (getopt_long, so argv may be permuted). Bad input: one line
 * naming it, a short usage and exit 2. Returns false when the command line
 * asked for --help or --version, which is then printed; true to run. */
bool cli_parse(int argc, char **argv, struct cli *c);
void cli_fini(struct cli *c);

/* "nfsscope: MESSAGE\n" on standard error, the message escaped
 * (term_escape) except for backslashes. */
void cli_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* cli_say(), then the short usage line, then exit 2. */
void cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
