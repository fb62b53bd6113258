/* script_util: compile a script and run its commands with the output
 * captured, for the unit tests that check what play prints (test_vm,
 * test_combat). Header-only: each test program includes it once. */
#ifndef FRAY_SCRIPT_UTIL_H
#define FRAY_SCRIPT_UTIL_H

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/compile.h"
#include "runtime/combat/world.h"

typedef struct run {
    program *p;
    vm *v;
    char out[32768];
    size_t len;
    int compile_errors;
    char first_error[512];
    bool ok; /* every command ran without an error */
} run;

static void on_print(void *user, const char *text)
{
    run *r = user;
    size_t n = strlen(text);
    if (r->len + n + 2 < sizeof r->out) {
        memcpy(r->out + r->len, text, n);
        r->len += n;
        r->out[r->len++] = '\n';
        r->out[r->len] = '\0';
    }
}

static void on_diag(void *user, const diag *d)
{
    run *r = user;
    if (d->level == DIAG_ERROR && !r->first_error[0])
        snprintf(r->first_error, sizeof r->first_error, "%s", d->message);
}

/* Compiles text (it must compile) and runs its commands. */
static run *run_script(const char *text, uint64_t seed, const vm_limits *limits)
{
    run *r = calloc(1, sizeof *r);
    ck_assert_ptr_nonnull(r);
    r->p = program_new();
    diag_sink sink = {.fn = on_diag, .user = r};
    r->compile_errors = compile_string(r->p, "t.rules", text, strlen(text), &sink, NULL);
    ck_assert_msg(r->compile_errors == 0, "compile error: %s", r->first_error);
    r->v = world_open(r->p, seed, limits);
    ck_assert_ptr_nonnull(r->v);
    vm_set_output(r->v, on_print, r);
    r->ok = vm_run_commands(r->v, 0);
    return r;
}

static void run_free(run *r)
{
    world_close(r->v);
    program_free(r->p);
    free(r);
}

/* The output holds each line, in this order (the list ends with NULL).
   Inline: a test program that asks nothing of the output does not use it. */
static inline void lines_in_order(run *r, ...)
{
    va_list ap;
    va_start(ap, r);
    const char *at = r->out;
    for (const char *want = va_arg(ap, const char *); want; want = va_arg(ap, const char *)) {
        const char *found = strstr(at, want);
        ck_assert_msg(found, "missing (in order) \"%s\" in:\n%s", want, r->out);
        at = found + strlen(want);
    }
    va_end(ap);
}

#endif
