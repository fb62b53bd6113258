/* api_internal: what the files of the public interface share. */
#ifndef FRAY_API_INTERNAL_H
#define FRAY_API_INTERNAL_H

#include "fray.h"
#include "lang/compile.h"
#include "runtime/api/api_files.h"
#include "runtime/combat/world.h"

struct fray {
    program *p;
    vm *v;
    compile_options copts;
    diag_sink sink;
    fray_diagnostic_fn on_diag;
    void *diag_user;
    fray_output_fn on_output;
    void *output_user;
    fray_ask_fn on_ask;
    void *ask_user;
    bool cancelled; /* fray_cancel at a question: the command stops */
    bool color;
    size_t commands_done;  /* commands already run */
    int eval_self;         /* the creature `fray eval` evaluates for */
    uint64_t uses;         /* calls that may have changed it (api_uses) */
    bool failed_unchanged; /* the last run failed with nothing compiled or run */
    text_buf said;         /* what fray_eval, fray_eval_for or fray_cite returned last */
};

/* A call that may change f begins (api_uses counts it); the cap on errors
 * reported counts from here, so that one command's errors are capped on
 * their own, not with all a long session made before. */
static inline void api_use(fray *f)
{
    f->uses++;
    diag_sink_restart(&f->sink);
}

/* The text of x, kept in f until the next call that returns one. */
const char *api_said(fray *f, value x);
/* Reports the VM's pending error as a diagnostic and clears it. */
fray_status api_runtime_failure(fray *f);
/* Compiles and evaluates one expression with `self` the creature given. */
fray_status api_eval_as(fray *f, const char *expr, int self, value *out);

#endif
