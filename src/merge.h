/* SPDX-License-Identifier: BSD-3-Clause */
/* merge.h: `nfsscope merge A.json B.json ...`. */
#ifndef NFSSCOPE_MERGE_H
#define NFSSCOPE_MERGE_H

/* argv[0] is "merge". Exit status: 0, 1 (unreadable input), 2 (usage). */
int merge_main(int argc, char **argv);

#endif
