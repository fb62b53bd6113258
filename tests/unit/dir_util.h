/* dir_util: a scratch folder for a unit test that works with files:
 * made, filled and removed by the test, in /tmp. */
#ifndef FRAY_TEST_DIR_UTIL_H
#define FRAY_TEST_DIR_UTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

static char dir[64];

/* A new empty folder in dir, its name starting /tmp/fray-test-NAME. */
static void make_dir_named(const char *name)
{
    snprintf(dir, sizeof dir, "/tmp/fray-test-%s.XXXXXX", name);
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* A path in the test's folder; four can be held at once. */
static const char *in_dir(const char *name)
{
    static char paths[4][160];
    static int next;
    char *path = paths[next++ % 4];
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
