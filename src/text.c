/* text.c - the escaper of untrusted text (blendwerk/text.h; moved here
 * from cli/cli_json.c so that every layer prints names one way). */
#include "blendwerk/text.h"

#include <stdbool.h>
#include <string.h>

/* The one rule: byte c as it is printed, into out (NUL-terminated);
 * returns its length, 1 or 4. */
static size_t escape_byte(unsigned char c, char out[5])
{
    static const char hex[] = "0123456789abcdef";
    if (c >= 0x20 && c != 0x7f) {
        out[0] = (char)c;
        out[1] = '\0';
        return 1;
    }
    out[0] = '\\';
    out[1] = 'x';
    out[2] = hex[c >> 4];
    out[3] = hex[c & 15];
    out[4] = '\0';
    return 4;
}

int bw_text_print_n(FILE *to, const char *s, size_t len)
{
    if (!s || !to) return 0;
    int n = 0;
    for (const unsigned char *p = (const unsigned char *)s, *end = p + len; p < end; p++) {
        char e[5];
        size_t k = escape_byte(*p, e);
        n += (int)fwrite(e, 1, k, to);
    }
    return n;
}

size_t bw_text_escape(char *out, size_t size, const char *s)
{
    if (!out) size = 0; /* snprintf(NULL, n, ...): only the length */
    size_t need = 0, used = 0;
    bool cut = false;
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        char e[5];
        size_t k = escape_byte(*p, e);
        cut = cut || used + k >= size; /* room for the NUL too */
        if (!cut) {
            memcpy(out + used, e, k);
            used += k;
        }
        need += k;
    }
    if (size > 0) out[used] = '\0';
    return need;
}

int bw_text_print(FILE *to, const char *s) { return s ? bw_text_print_n(to, s, strlen(s)) : 0; }

int bw_text_print_padded(FILE *to, const char *s, int width)
{
    if (!to) return 0;
    int n = bw_text_print(to, s);
    for (; n < width; n++) fputc(' ', to);
    return n;
}

int bw_text_print_lines(FILE *to, const char *text)
{
    if (!text || !to) return 0;
    int n = 0;
    for (;;) {
        const char *nl = strchr(text, '\n');
        n += bw_text_print_n(to, text, nl ? (size_t)(nl - text) : strlen(text));
        if (!nl) return n;
        n += fputc('\n', to) != EOF;
        text = nl + 1;
    }
}
