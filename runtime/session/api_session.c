/* api_session: the public interface of sessions (fray.h) around their
 * timeline (session.c): opening and closing one, its settings and
 * callbacks, reading its entries. */
#include <string.h>

#include "fray.h"
#include "runtime/api/api_files.h"
#include "runtime/base/mem.h"
#include "runtime/session/session.h"

static void free_search_path(session *s)
{
    char **paths = (char **)s->opts.search_path; /* the session's own copies */
    if (!paths)
        return;
    for (size_t i = 0; i < s->opts.search_path_len; i++)
        mem_strfree(paths[i]);
    mem_free(paths, s->opts.search_path_len * sizeof *paths);
}

fray_session *fray_session_open(const fray_options *opts)
{
    session *s = MEM_NEW(session);
    if (!s)
        return NULL;
    s->journal_fd = s->recovered_fd = -1;
    if (opts)
        s->opts = *opts;
    s->opts.search_path = NULL;
    s->opts.search_path_len = 0;
    if (opts && opts->search_path_len) {
        /* copied: the caller's may go once this returns */
        char **paths = MEM_NEW_ARRAY(char *, opts->search_path_len);
        if (!paths)
            goto fail;
        s->opts.search_path = (const char *const *)paths;
        s->opts.search_path_len = opts->search_path_len;
        for (size_t i = 0; i < opts->search_path_len; i++)
            if (!(paths[i] = mem_strndup(opts->search_path[i], strlen(opts->search_path[i]))))
                goto fail;
    }
    s->f = session_open_context(s, false);
    if (!s->f)
        goto fail;
    return s;
fail:
    fray_session_close(s);
    return NULL;
}

void fray_session_close(fray_session *s)
{
    if (!s)
        return;
    session_entries_free(&s->done, &s->ndone, &s->done_cap);
    session_entries_free(&s->undone, &s->nundone, &s->undone_cap);
    checkpoints_clear(s);
    fray_close(s->f);
    fray_session_sync_journal(s); /* a group synced later waits no longer */
    journal_release(s);           /* its file stays: the session did not say it ended */
    for (size_t i = 0; i < s->nlimits; i++)
        mem_strfree(s->limits[i].name);
    if (s->limits)
        mem_free(s->limits, s->limits_cap * sizeof *s->limits);
    free_search_path(s);
    mem_free(s, sizeof *s);
}

fray *fray_session_context(fray_session *s)
{
    return s->f;
}

void fray_session_on_output(fray_session *s, fray_output_fn fn, void *user)
{
    s->hooks.print = fn;
    s->hooks.print_user = user;
    fray_on_output(s->f, fn, user);
}

void fray_session_on_diagnostic(fray_session *s, fray_diagnostic_fn fn, void *user)
{
    s->hooks.diagnose = fn;
    s->hooks.diagnose_user = user;
    fray_on_diagnostic(s->f, fn, user);
}

void fray_session_on_ask(fray_session *s, fray_ask_fn fn, void *user)
{
    s->hooks.ask = fn; /* the context's is set entry by entry (session.c) */
    s->hooks.ask_user = user;
}

fray_status fray_session_set_limit(fray_session *s, const char *name, uint64_t value)
{
    /* before any entry, the context is as a rebuild would open it */
    bool settled = s->ndone == 0 && api_uses(s->f) == s->settled_uses;
    fray_status st = fray_set_limit(s->f, name, value); /* checks it, with a diagnostic when wrong */
    if (st != FRAY_OK)
        return st;
    if (settled)
        s->settled_uses = api_uses(s->f);
    for (int i = 0; i < s->ncheckpoints; i++) /* as the context, rebuilt from one, would have it */
        fray_set_limit(s->checkpoints[i].f, name, value);
    for (size_t i = 0; i < s->nlimits; i++)
        if (!strcmp(s->limits[i].name, name)) {
            s->limits[i].value = value;
            return FRAY_OK;
        }
    session_limit *grown = mem_grow(s->limits, sizeof *grown, &s->limits_cap, s->nlimits + 1);
    char *copy = grown ? mem_strndup(name, strlen(name)) : NULL;
    if (grown)
        s->limits = grown;
    if (!copy) {
        session_report(s, FRAY_ERROR, NULL, 0, "out of memory");
        return FRAY_ERR_IO;
    }
    s->limits[s->nlimits++] = (session_limit){.name = copy, .value = value};
    return FRAY_OK;
}

size_t fray_session_done(const fray_session *s)
{
    return s->ndone;
}

size_t fray_session_undone(const fray_session *s)
{
    return s->nundone;
}

static void entry_out(const session_entry *e, fray_entry *out)
{
    *out = (fray_entry){.kind = e->kind == ENTRY_COMMAND ? FRAY_ENTRY_COMMAND
                                : e->kind == ENTRY_FILE  ? FRAY_ENTRY_RULES
                                                         : FRAY_ENTRY_SEED,
                        .text = e->text,
                        .len = e->len,
                        .path = e->path,
                        .seed = e->seed,
                        .rerolled = e->reseed,
                        .looks = session_entry_looks(e)};
}

bool fray_session_entry(const fray_session *s, size_t i, fray_entry *out)
{
    if (i >= s->ndone)
        return false;
    entry_out(&s->done[i], out);
    return true;
}

bool fray_session_undone_entry(const fray_session *s, size_t k, fray_entry *out)
{
    if (k >= s->nundone)
        return false;
    entry_out(&s->undone[s->nundone - 1 - k], out); /* the next to redo last */
    return true;
}

uint64_t fray_session_seed(const fray_session *s)
{
    return s->opts.seed;
}
