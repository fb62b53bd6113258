/* check_main: the main() of every Check unit-test program.
 *
 *     int main(void) { return check_main(lexer_suite()); }
 *
 * Runs the suite with the verbosity from CK_VERBOSITY (silent, minimal,
 * normal, verbose; CK_ENV defaults to normal), prints a final line exactly
 * "N passed, N failed" (the CI script sums these over all logs), frees the
 * runner and returns EXIT_SUCCESS only if every test passed and at least one
 * ran.
 *
 * Everything else is left to Check's environment variables, so nothing here
 * changes between a plain and a sanitizer build: CK_FORK=no to run tests in
 * one process (for gdb), CK_DEFAULT_TIMEOUT=SECONDS (default 4) for slow
 * builds such as ASan, CK_RUN_SUITE / CK_RUN_CASE to pick tests. Forking
 * stays on by default: each test's leaks and crashes are reported against
 * that test, and ASan/LSan work in the forked children. */
#ifndef FRAY_CHECK_MAIN_H
#define FRAY_CHECK_MAIN_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

static inline int check_main(Suite *s)
{
    /* Check forks once per test; a child inheriting unwritten stdout would
     * write it again when it exits, so keep the buffer empty at each fork. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    fflush(stdout);

    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int run = srunner_ntests_run(sr);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);

    printf("%d passed, %d failed\n", run - failed, failed);
    fflush(stdout);
    return failed == 0 && run > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
