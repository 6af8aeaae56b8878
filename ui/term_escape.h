/* SPDX-License-Identifier: BSD-3-Clause */
/* term_escape.h: make untrusted bytes safe to print on a terminal.
 *
 * Anything that may come from the wire (file names, machine names, ...) or
 * from the user (file names on the command line) goes through term_escape()
 * before it reaches a terminal, so it can never move the cursor, clear the
 * screen or change the terminal's state (\x1b[2J, OSC sequences, C1 CSI).
 *
 * Rules:
 *   - printable ASCII (0x20..0x7e) is copied, except '\' which becomes "\\";
 *   - C0 controls (0x00..0x1f) and DEL (0x7f) become "\xNN" (lower-case hex);
 *   - well-formed UTF-8 sequences (RFC 3629: no overlongs, no surrogates,
 *     nothing above U+10FFFF) are copied, except the C1 controls
 *     U+0080..U+009F, whose two bytes become "\xc2\xNN" (some terminals
 *     obey 8-bit C1, e.g. U+009B as CSI), and the bidirectional embedding,
 *     override and isolate controls U+202A..U+202E and U+2066..U+2069,
 *     whose three bytes become "\xe2\xNN\xNN" (they reorder the text that
 *     follows, so a name could display as something else: CVE-2021-42574);
 *   - the overlong pair C0 80, which names.h uses for a NUL inside a name
 *     (a C string cannot hold the NUL itself), becomes "\x00" like a NUL;
 *   - every byte of any other ill-formed sequence becomes "\xNN".
 * Output is pure text in the encoding of the input's valid parts (UTF-8).
 * It decodes back to the input bytes, except that NUL and C0 80 look alike. */
#ifndef NFSSCOPE_TERM_ESCAPE_H
#define NFSSCOPE_TERM_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Escape n bytes of src into dst (dstsz bytes, always NUL-terminated when
 * dstsz > 0). Output is cut only between whole characters or escapes, never
 * inside one. Returns the length the complete escaped string needs, not
 * counting the NUL (snprintf-style): truncated iff the result >= dstsz. At
 * most 4 * n + 1 bytes are ever needed. src may be NULL when n is 0. */
size_t term_escape(char *dst, size_t dstsz, const uint8_t *src, size_t n);

/* Length (1..4) of the well-formed UTF-8 character at s (n bytes available),
 * or 0 if the bytes at s do not start one (RFC 3629 table 3-7 rules). Used by
 * the JSON writer too, so both outputs agree on what is valid. */
size_t term_escape_utf8_len(const uint8_t *s, size_t n);

/* Whether the n bytes at s start with one of the bidirectional controls
 * above (escaped by term_escape; the JSON writer writes them as \uXXXX). */
bool term_escape_is_bidi(const uint8_t *s, size_t n);
/* Whether the n bytes at s start with C0 80, a NUL inside a name. */
bool term_escape_is_nul2(const uint8_t *s, size_t n);

#endif
