/* cli_args.c - see cli_args.h. */
#include "cli_args.h"

#include <stdio.h>

bool bw_cli_option_once(const char *cmd, const char *opt, const char **slot, const char *value)
{
    if (*slot) {
        fprintf(stderr, "blendwerk %s: %s is given twice ('%s' and '%s')\n", cmd, opt, *slot, value);
        return false;
    }
    *slot = value;
    return true;
}
