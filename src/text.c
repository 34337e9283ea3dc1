/* text.c - the escaper of untrusted text (blendwerk/text.h; moved here
 * from cli/cli_json.c so that every layer prints names one way). */
#include "blendwerk/text.h"

#include <string.h>

int bw_text_print_n(FILE *to, const char *s, size_t len)
{
    if (!s) return 0;
    int n = 0;
    for (const unsigned char *p = (const unsigned char *)s, *end = p + len; p < end; p++) {
        if (*p < 0x20 || *p == 0x7f) n += fprintf(to, "\\x%02x", *p);
        else n += fputc(*p, to) != EOF;
    }
    return n;
}

int bw_text_print(FILE *to, const char *s) { return s ? bw_text_print_n(to, s, strlen(s)) : 0; }

int bw_text_print_padded(FILE *to, const char *s, int width)
{
    int n = bw_text_print(to, s);
    for (; n < width; n++) fputc(' ', to);
    return n;
}

int bw_text_print_lines(FILE *to, const char *text)
{
    if (!text) return 0;
    int n = 0;
    for (;;) {
        const char *nl = strchr(text, '\n');
        n += bw_text_print_n(to, text, nl ? (size_t)(nl - text) : strlen(text));
        if (!nl) return n;
        n += fputc('\n', to) != EOF;
        text = nl + 1;
    }
}
