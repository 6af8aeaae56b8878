/* SPDX-License-Identifier: BSD-3-Clause */
/* rssrun.c: run a command and write its peak resident set size.
 *
 *   rssrun RSS_FILE CMD [ARG ...]
 *
 * Runs CMD (stdin, stdout and stderr inherited), writes its ru_maxrss in KiB
 * to RSS_FILE, and exits with CMD's status (128 + signal if killed).
 *
 * Why not wait4() from the test script itself: a child's ru_maxrss starts
 * from the memory of the process that forked it (after fork() the pages are
 * shared; after vfork()/posix_spawn() exec records the parent's high-water
 * mark), so a command started by Python reports at least Python's ~10 MiB
 * and small differences vanish. Started from this small program, the floor
 * is about 1 MiB. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
    struct rusage ru;
    pid_t pid;
    int status;
    FILE *f;

    if (argc < 3) {
        fputs("usage: rssrun RSS_FILE CMD [ARG ...]\n", stderr);
        return 2;
    }
    pid = fork();
    if (pid < 0) {
        perror("rssrun: fork");
        return 126;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        perror("rssrun: exec");
        _exit(127);
    }
    if (wait4(pid, &status, 0, &ru) != pid) {
        perror("rssrun: wait4");
        return 126;
    }
    f = fopen(argv[1], "w");
    if (!f || fprintf(f, "%ld\n", ru.ru_maxrss) < 0 || fclose(f) != 0) {
        perror("rssrun: write");
        return 126;
    }
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}
