/* test_text.c - the escaper of untrusted text (blendwerk/text.h): what
 * each form writes and returns, worked out by hand byte by byte (a
 * control byte is the 4 characters \xNN, any other byte itself). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendwerk/text.h"
#include "check.h"

/* A memory stream the printers write to; printed() closes it and returns
 * the text (free it). */
static char *buffer;
static size_t buffer_size;
static FILE *stream(void)
{
    FILE *f = open_memstream(&buffer, &buffer_size);
    CHECK(f != NULL);
    if (!f) exit(1);
    return f;
}
static char *printed(FILE *f)
{
    fclose(f);
    return buffer;
}

static void names_print_their_control_bytes_as_hex(void)
{
    FILE *f = stream();
    CHECK_INT(bw_text_print(f, "a\x1b[2Jb"), 1 + 4 + 3 + 1);
    CHECK_INT(bw_text_print(f, "|\t\r\n\x7f|"), 1 + 4 * 4 + 1);
    CHECK_INT(bw_text_print(f, "caf\xc3\xa9"), 5); /* UTF-8 as it is */
    CHECK_INT(bw_text_print(f, NULL), 0);
    char *text = printed(f);
    CHECK_STR(text, "a\\x1b[2Jb|\\x09\\x0d\\x0a\\x7f|caf\xc3\xa9");
    free(text);
}

/* Bytes 1..255 once each: 31 below 0x20 and 0x7f escaped (4 bytes each),
 * the other 223 as they are: 32 * 4 + 223 = 351 bytes. */
static void every_byte_value_follows_the_rule(void)
{
    char all[256];
    for (int i = 1; i < 256; i++) all[i - 1] = (char)i;
    all[255] = '\0';
    FILE *f = stream();
    CHECK_INT(bw_text_print(f, all), 351);
    char *text = printed(f);
    CHECK_INT((int)strlen(text), 351);
    CHECK(strncmp(text, "\\x01\\x02", 8) == 0);
    CHECK(strncmp(text + 30 * 4, "\\x1f !\"#", 8) == 0); /* 0x1f, then 0x20 onwards raw */
    CHECK(strncmp(text + 31 * 4 + 94, "~\\x7f\x80", 6) == 0); /* 0x7e, 0x7f, 0x80 */
    CHECK((unsigned char)text[350] == 0xff);
    free(text);
}

static void the_other_forms(void)
{
    FILE *f = stream();
    CHECK_INT(bw_text_print_n(f, "a\0b", 3), 6); /* a NUL among the bytes */
    CHECK_INT(bw_text_print_n(f, "xyz", 2), 2);
    fputc('|', f);
    CHECK_INT(bw_text_print_padded(f, "ab\a", 8), 8); /* 6 written, 2 spaces */
    fputc('|', f);
    CHECK_INT(bw_text_print_padded(f, "abcdef", 3), 6); /* not cut */
    fputc('|', f);
    CHECK_INT(bw_text_print_lines(f, "one\x1b\ntwo\n"), 3 + 4 + 1 + 3 + 1);
    CHECK_INT(bw_text_print_lines(f, "\tlast"), 8);
    char *text = printed(f);
    CHECK_STR(text, "a\\x00bxy|ab\\x07  |abcdef|one\\x1b\ntwo\n\\x09last");
    free(text);
}

/* Into a buffer: "ab\x1b" needs 2 + 4 = 6 bytes and a NUL. With 7 it
 * fits; with 6 or 5 the escape does not, and is left out whole. */
static void the_buffer_form_cuts_between_escapes(void)
{
    char out[16];
    CHECK_INT((int)bw_text_escape(out, sizeof out, "a\nb"), 6);
    CHECK_STR(out, "a\\x0ab");
    CHECK_INT((int)bw_text_escape(out, 7, "ab\x1b"), 6);
    CHECK_STR(out, "ab\\x1b");
    CHECK_INT((int)bw_text_escape(out, 6, "ab\x1b"), 6);
    CHECK_STR(out, "ab");
    CHECK_INT((int)bw_text_escape(out, 5, "ab\x1bz"), 7); /* nothing after the cut */
    CHECK_STR(out, "ab");
    memset(out, '#', sizeof out);
    CHECK_INT((int)bw_text_escape(out, 0, "abc"), 3);
    CHECK(out[0] == '#'); /* size 0 writes nothing */
    CHECK_INT((int)bw_text_escape(out, 1, "abc"), 3);
    CHECK_STR(out, "");
    CHECK_INT((int)bw_text_escape(out, sizeof out, NULL), 0);
    CHECK_STR(out, "");
}

/* NULL stream: nothing printed, 0 returned, by every printer; a NULL
 * buffer with a size counts as size 0 (the length only, snprintf-like). */
static void null_stream_and_null_buffer_are_tolerated(void)
{
    CHECK_INT(bw_text_print(NULL, "abc"), 0);
    CHECK_INT(bw_text_print_n(NULL, "a\nb", 3), 0);
    CHECK_INT(bw_text_print_padded(NULL, "abc", 10), 0);
    CHECK_INT(bw_text_print_lines(NULL, "one\ntwo"), 0);
    CHECK_INT((int)bw_text_escape(NULL, 64, "a\x1b"), 5);
    CHECK_INT((int)bw_text_escape(NULL, 0, "a\nb"), 6);
    CHECK_INT((int)bw_text_escape(NULL, 64, NULL), 0);
}

int main(void)
{
    RUN(names_print_their_control_bytes_as_hex);
    RUN(every_byte_value_follows_the_rule);
    RUN(the_other_forms);
    RUN(the_buffer_form_cuts_between_escapes);
    RUN(null_stream_and_null_buffer_are_tolerated);
    return check_summary();
}
