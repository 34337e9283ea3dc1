/* cmd_plot_blend.c - placeholder until the command is written. */
#include <stdio.h>

#include "commands.h"

int bw_cmd_plot_blend(int argc, char **argv)
{
    (void)argc;
    fprintf(stderr, "blendwerk %s: not implemented yet\n", argv[0]);
    return 2;
}
