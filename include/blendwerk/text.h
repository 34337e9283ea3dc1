/* blendwerk/text.h - untrusted text on a terminal: the one escaper.
 *
 * Names in character, graph and timeline files, the error messages that
 * quote them and what a mod script passes to print come from files the
 * user may not have written. Printed raw, a control byte can forge an
 * output line ("\n" then a line of its own) or send the terminal an
 * escape sequence ("\x1b[2J" clears the screen). These functions print
 * such text with every control byte (below 0x20, and 0x7f) as the four
 * characters \xNN (two lowercase hex digits); every other byte, UTF-8
 * included, is printed as it is. The CLI, the demo, the timeline reader's
 * default printer and the sandbox's print all go through them, and a host
 * that prints a Blendwerk message from a mod should too.
 *
 * The core itself never prints: these write only to the stream (or the
 * buffer) the caller passes, and allocate nothing. A NULL text prints
 * nothing, and so does a NULL stream (the printers then return 0: a host
 * whose log stream failed to open loses the text, not the process). The
 * printers return the bytes they wrote (an escape counted as 4). */
#ifndef BLENDWERK_TEXT_H
#define BLENDWERK_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "blendwerk/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* `s` up to its terminating NUL, every control byte escaped (line breaks
 * and tabs too: one name or one message stays one line). */
BW_API int bw_text_print(FILE *to, const char *s);
/* The `len` bytes at `s` the same way, a NUL byte among them as \x00 (a
 * Lua string may hold one). */
BW_API int bw_text_print_n(FILE *to, const char *s, size_t len);
/* As bw_text_print, then spaces up to `width` bytes written (a text
 * table's "%-Ns" column; a longer text is not cut). */
BW_API int bw_text_print_padded(FILE *to, const char *s, int width);
/* A text of lines (a report with one problem a line): each line as
 * bw_text_print prints it, the line breaks ("\n") kept as they are, no
 * newline added after the last. */
BW_API int bw_text_print_lines(FILE *to, const char *text);

/* The same escaping into a buffer, for a host whose log is not a FILE
 * (or that stores a message to show later): `s` as bw_text_print prints
 * it, into `out` (at most size - 1 bytes and a NUL; size 0 writes
 * nothing, and a NULL `out` counts as size 0 whatever size says; an
 * escape is never cut in half). Returns the length the whole escaped text
 * needs, as snprintf does: a result >= size means it was cut, and
 * bw_text_escape(NULL, 0, s) + 1 is the buffer to allocate. */
BW_API size_t bw_text_escape(char *out, size_t size, const char *s);

#ifdef __cplusplus
}
#endif

#endif
