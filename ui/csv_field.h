/* SPDX-License-Identifier: BSD-3-Clause */
/* csv_field: one RFC 4180 field, shared by the CSV report and --records. */
#ifndef NFSSCOPE_CSV_FIELD_H
#define NFSSCOPE_CSV_FIELD_H

#include <stdbool.h>
#include <stddef.h>

/* Enough for a field made of `n` input bytes: every byte a doubled quote,
 * the two enclosing quotes, a leading apostrophe and the NUL. */
#define CSV_FIELD_MAX(n) (2 * (n) + 4)

/* Writes `s` to `dst` (NUL-terminated, at most `cap` bytes with the NUL) as
 * one field: enclosed in double quotes when it holds a comma, a double quote,
 * CR or LF or starts or ends with a space, quotes inside doubled (RFC 4180
 * §2). `wire`: `s` came from the network (a file name, an export path): if
 * it starts with '=', '+', '-', '@', TAB or CR, a spreadsheet would run it
 * as a formula (OWASP "CSV injection"), so an apostrophe goes first; the
 * JSON outputs keep such strings exact. A field that does not fit is cut at
 * a byte boundary that leaves the quoting valid. Returns the length. */
size_t csv_field(char *dst, size_t cap, const char *s, bool wire);

#endif
