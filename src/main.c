/* main.c: command line (being built; see issue 2). */
#include <stdio.h>

int
main(void)
{
    fputs("usage: nfsscope -r FILE [options] [BPF expression]\n", stderr);
    return 2;
}
