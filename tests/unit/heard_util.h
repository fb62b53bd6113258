/* heard_util: what a session prints, kept line by line for a test to read
 * (test_session, test_hidden). Header-only: each test program includes it
 * once. */
#ifndef FRAY_HEARD_UTIL_H
#define FRAY_HEARD_UTIL_H

#include <check.h>
#include <string.h>

typedef struct heard {
    char text[1 << 17];
    size_t n;
    int lines;
    int errors, too_many; /* what a test's callbacks count besides */
    int marked;
} heard;

static void heard_add(heard *h, const char *line)
{
    size_t len = strlen(line);
    ck_assert_uint_lt(h->n + len + 2, sizeof h->text);
    memcpy(h->text + h->n, line, len);
    h->n += len;
    h->text[h->n++] = '\n';
    h->text[h->n] = '\0';
    h->lines++;
}

#endif
