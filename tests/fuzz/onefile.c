/* SPDX-License-Identifier: BSD-3-Clause */
/* onefile.c: replay files through LLVMFuzzerTestOneInput without libFuzzer.
 *
 *   replay_fuzz_pcap FILE|DIR...
 *
 * Each file is read whole into a buffer of exactly its size (so ASan sees
 * any read past the end) and run once. Directories are walked recursively
 * in name order; names starting with '.' and README* files are skipped.
 * Arguments starting with '-' (libFuzzer flags) are ignored, so a crash
 * command line can be pasted as is. Exit 0 when every input ran, 1 when a
 * path could not be read; a bug in the target aborts under the sanitizers.
 * (The idea is libpcap's testprogs/fuzz/onefile.c; this is our own code.) */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static unsigned long ninputs;

static int
run_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    uint8_t *buf;
    long len;
    size_t got;

    if (!fp) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    if (fseek(fp, 0, SEEK_END) != 0 || (len = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) != 0) {
        fprintf(stderr, "%s: cannot size the file\n", path);
        fclose(fp);
        return -1;
    }
    /* malloc(0) may return NULL; keep a real (empty) allocation. */
    buf = malloc(len > 0 ? (size_t)len : 1);
    if (!buf) {
        fprintf(stderr, "%s: out of memory\n", path);
        fclose(fp);
        return -1;
    }
    got = fread(buf, 1, (size_t)len, fp);
    fclose(fp);
    if (got != (size_t)len) {
        fprintf(stderr, "%s: short read\n", path);
        free(buf);
        return -1;
    }
    LLVMFuzzerTestOneInput(buf, got);
    free(buf);
    ninputs++;
    return 0;
}

static int
by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path);

static int
run_dir(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, cap = 0, i;
    int rc = 0;

    if (!d) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    while ((e = readdir(d)) != NULL) {
        size_t len;
        char *full;
        if (e->d_name[0] == '.' || strncmp(e->d_name, "README", 6) == 0)
            continue;
        if (n == cap) {
            char **nn = realloc(names, (cap ? cap * 2 : 64) * sizeof *names);
            if (!nn) {
                rc = -1;
                break;
            }
            names = nn;
            cap = cap ? cap * 2 : 64;
        }
        len = strlen(path) + 1 + strlen(e->d_name) + 1;
        full = malloc(len);
        if (!full) {
            rc = -1;
            break;
        }
        snprintf(full, len, "%s/%s", path, e->d_name);
        names[n++] = full;
    }
    closedir(d);
    if (n > 0)
        qsort(names, n, sizeof *names, by_name);
    for (i = 0; i < n; i++) {
        if (rc == 0 && run_path(names[i]) != 0)
            rc = -1;
        free(names[i]);
    }
    free(names);
    return rc;
}

static int
run_path(const char *path)
{
    struct stat st;

    if (stat(path, &st) != 0) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode))
        return run_dir(path);
    return run_file(path);
}

int
main(int argc, char **argv)
{
    int i, rc = 0;

    for (i = 1; i < argc; i++) {
        if (argv[i][0] == '-')
            continue;
        if (run_path(argv[i]) != 0)
            rc = 1;
    }
    printf("%lu inputs replayed%s\n", ninputs, rc ? " (some paths failed)" : "");
    return rc;
}
