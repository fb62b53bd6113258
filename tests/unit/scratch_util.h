/* scratch_util: a folder of its own for a unit test that writes files, and
 * the files in it. */
#ifndef FRAY_TEST_SCRATCH_UTIL_H
#define FRAY_TEST_SCRATCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char dir[64];

/* A new folder, in memory where there is such a place (the tests flush
 * what they write to the disk, many times over). */
static void make_scratch_dir(const char *name)
{
    snprintf(dir, sizeof dir, "%s/fray-test-%s.XXXXXX", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", name);
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* A path in the folder; eight can be held at once. */
static const char *in_dir(const char *name)
{
    static char paths[8][128];
    static int next;
    char *path = paths[next++ % 8];
    snprintf(path, sizeof paths[0], "%s/%s", dir, name);
    return path;
}

static void write_text(const char *path, const char *text)
{
    FILE *out = fopen(path, "w");
    ck_assert_ptr_nonnull(out);
    fputs(text, out);
    ck_assert_int_eq(fclose(out), 0);
}

#endif
