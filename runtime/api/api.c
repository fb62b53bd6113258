/* api: the public interface (fray.h) over the compiler and the VM. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "fray.h"
#include "lang/compile.h"
#include "runtime/dice/dist.h"
#include "runtime/base/mem.h"
#include "runtime/combat/world.h"
#include "runtime/api/api_internal.h"
#include "runtime/api/api_files.h"

const char *fray_version(void)
{
    return PACKAGE_VERSION;
}

static void default_output(void *user, const char *line)
{
    (void)user;
    fputs(line, stdout);
    fputc('\n', stdout);
}

static void default_diag(void *user, const fray_diagnostic *d)
{
    (void)user;
    fflush(stdout); /* keep the transcript in the order things happened */
    fputs(d->text, stderr);
}

/* Bridges the internal sink to the host's callback, with the GCC text. */
static void deliver(void *user, const diag *d)
{
    fray *f = user;
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (mem) {
        diag_print(mem, d, f->color);
        fclose(mem);
    }
    fray_diagnostic out = {.level = d->level == DIAG_ERROR     ? FRAY_ERROR
                                    : d->level == DIAG_WARNING ? FRAY_WARNING
                                                               : FRAY_NOTE,
                           .message = d->message,
                           .text = text ? text : d->message};
    if (d->src) {
        out.file = d->src->name;
        source_line_col(d->src, d->where.start, &out.line, &out.column);
    }
    f->on_diag(f->diag_user, &out);
    free(text); /* allocated by open_memstream, not by us */
}

static void forward_output(void *user, const char *text)
{
    fray *f = user;
    f->on_output(f->output_user, text);
}

fray *fray_open(const fray_options *opts)
{
    fray *f = MEM_NEW(fray);
    if (!f)
        return NULL;
    fray_options o = opts ? *opts : (fray_options){0};
    vm_limits lim = vm_default_limits;
    if (o.max_steps)
        lim.steps = o.max_steps;
    if (o.max_call_depth) /* the VM holds no more frames than that */
        lim.call_depth = o.max_call_depth < VM_FRAMES_MAX ? o.max_call_depth : VM_FRAMES_MAX;
    if (o.max_creatures)
        lim.creatures = o.max_creatures;
    f->p = program_new();
    f->v = f->p ? world_open(f->p, o.seed, &lim) : NULL;
    if (!f->v) {
        program_free(f->p);
        mem_free(f, sizeof *f);
        return NULL;
    }
    f->v->world->cb.quiet = o.quiet;
    f->copts.search_path = o.search_path;
    f->copts.npaths = o.search_path_len;
    f->copts.follow_symlinks = o.follow_symlinks;
    f->copts.max_read = lim.memory; /* a file read whole may take what a command may */
    f->copts.max_memory = lim.memory;
    f->color = o.color;
    f->on_diag = default_diag;
    f->on_output = default_output;
    f->sink = (diag_sink){.fn = deliver, .user = f, .max_errors = 50};
    f->eval_self = -1;
    text_init(&f->said);
    vm_set_output(f->v, forward_output, f);
    return f;
}

void fray_close(fray *f)
{
    if (!f)
        return;
    world_close(f->v);
    program_free(f->p);
    text_free(&f->said);
    mem_free(f, sizeof *f);
}

/* A copy of from; with spare, one that takes spare's arrays (spare is
   then closed: see api_clone_over); with kept, one whose program holds
   its arrays through its keeps (api_clone_kept). */
static fray *clone_taking(const fray *from, fray *spare, bool kept)
{
    if (!world_at_rest(from->v))
        return NULL;
    fray *f = MEM_NEW(fray);
    if (!f)
        return NULL;
    *f = *from;
    text_init(&f->said); /* the copy's own, not the text the original returned */
    f->p = kept ? program_clone_kept(from->p) : program_clone_part(from->p, !spare);
    f->v = f->p ? world_clone(from->v, f->p) : NULL;
    if (!f->v) {
        program_free(f->p);
        mem_free(f, sizeof *f);
        return NULL;
    }
    if (spare) {
        /* its world first, while its program is whole */
        world_close(spare->v);
        program_take_arrays(f->p, from->p, spare->p);
        spare->v = NULL;
        fray_close(spare);
    }
    /* what calls back with the context calls back with the copy */
    f->sink.user = f;
    vm_set_output(f->v, forward_output, f);
    if (f->v->world->ask_user)
        f->v->world->ask_user = f;
    return f;
}

fray *fray_clone(const fray *from)
{
    return clone_taking(from, NULL, false);
}

fray *api_clone_over(const fray *from, fray *spare)
{
    if (!program_arrays_shared(from->p, spare->p)) {
        fray *f = clone_taking(from, NULL, false);
        if (f)
            fray_close(spare);
        return f;
    }
    return clone_taking(from, spare, false);
}

fray *api_clone_kept(const fray *from)
{
    return clone_taking(from, NULL, true);
}

void fray_on_diagnostic(fray *f, fray_diagnostic_fn fn, void *user)
{
    f->on_diag = fn ? fn : default_diag;
    f->diag_user = user;
}

void fray_on_output(fray *f, fray_output_fn fn, void *user)
{
    f->on_output = fn ? fn : default_output;
    f->output_user = user;
}

fray_status api_runtime_failure(fray *f)
{
    vm *v = f->v;
    const source *src = v->error_at.source < f->p->nsources ? f->p->sources[v->error_at.source] : NULL;
    diag_report(&f->sink, DIAG_ERROR, src, v->error_at, "%s", v->error.s);
    if (v->error_in) {
        const source *inside = f->p->sources[v->error_inside.source];
        diag_report(&f->sink, DIAG_NOTE, inside, v->error_inside, "the error arose here, inside %s", v->error_in->name);
        v->error_in = NULL;
    }
    vm_clear_error(v);
    return FRAY_ERR_RULES;
}

static fray_status run_pending(fray *f)
{
    size_t first = f->commands_done;
    f->commands_done = f->p->ncommands;
    if (!vm_run_commands(f->v, first))
        return api_runtime_failure(f);
    return FRAY_OK;
}

fray_status fray_run_file(fray *f, const char *path)
{
    api_use(f);
    int errors = compile_file(f->p, path, &f->sink, &f->copts);
    if (errors < 0)
        return FRAY_ERR_IO;
    if (errors > 0) {
        f->commands_done = f->p->ncommands; /* a failed compile runs nothing */
        return FRAY_ERR_RULES;
    }
    return run_pending(f);
}

/* Compiles text (a rules file's when as_file) and runs what it added. A
   text refused before any of it is compiled leaves f as it was: the
   errors it counted are taken back too, so that the cap on errors
   reported (max_errors) counts as it would in a context that never saw
   it. */
static fray_status run_text(fray *f, const char *name, const char *text, size_t len, bool as_file)
{
    api_use(f);
    diag_sink before = f->sink;
    bool unchanged;
    /* a command written without its actor says whose turn it is */
    int acting = f->v ? encounter_acting(f->v) : -1;
    f->copts.turn_of = acting >= 0 ? f->v->world->creatures[acting].name : NULL;
    int errors = compile_or_nothing(f->p, name, text, len, as_file, &f->sink, &f->copts, &unchanged);
    f->copts.turn_of = NULL;
    if (errors > 0) {
        f->failed_unchanged = unchanged;
        if (unchanged) {
            f->sink.errors = before.errors;
            f->sink.warnings = before.warnings;
        }
        f->commands_done = f->p->ncommands;
        return FRAY_ERR_RULES;
    }
    f->failed_unchanged = false;
    return run_pending(f);
}

fray_status fray_run_string(fray *f, const char *name, const char *text, size_t len)
{
    return run_text(f, name, text, len, false);
}

fray_status api_run_typed(fray *f, const char *text, size_t len)
{
    f->copts.typed = true;
    fray_status st = fray_run_string(f, "<repl>", text, len);
    f->copts.typed = false;
    return st;
}

void api_read_through(fray *f, compile_read_fn fn, void *user)
{
    f->copts.read = fn;
    f->copts.read_user = user;
}

uint64_t api_source_bytes(const fray *f)
{
    return f->p->source_bytes;
}

void api_adopt(fray *f, const char *const *paths, size_t npaths, compile_read_fn fn, void *user)
{
    f->copts.search_path = paths;
    f->copts.npaths = npaths;
    api_read_through(f, fn, user);
}

size_t api_read_limit(const fray *f)
{
    return f->copts.max_read;
}

fray_status api_run_file_text(fray *f, const char *path, const char *text, size_t len)
{
    return run_text(f, path, text, len, true);
}

void api_settle(fray *f)
{
    program_settle(f->p);
}

uint64_t api_uses(const fray *f)
{
    return f->uses;
}

bool api_failed_unchanged(const fray *f)
{
    return f->failed_unchanged;
}

fray_status fray_check_file(fray *f, const char *path, bool syntax_only)
{
    api_use(f);
    compile_options o = f->copts;
    o.syntax_only = syntax_only;
    int errors = compile_file(f->p, path, &f->sink, &o);
    f->commands_done = f->p->ncommands;
    return errors < 0 ? FRAY_ERR_IO : errors > 0 ? FRAY_ERR_RULES : FRAY_OK;
}

/* Written as a path: with a '/', or ending in .rules. */
static bool path_like(const char *what)
{
    size_t n = strlen(what);
    return !n || strchr(what, '/') || (n >= 6 && !strcmp(what + n - 6, ".rules"));
}

bool fray_names_module(fray *f, const char *what)
{
    struct stat st;
    if (path_like(what) || (stat(what, &st) == 0 && !S_ISDIR(st.st_mode)))
        return false; /* a file of that name: read as a file, whatever it is */
    return compile_module_exists(what, &f->copts);
}

bool api_rules_missing(fray *f, const char *what, text_buf *why)
{
    struct stat st;
    if (path_like(what) || stat(what, &st) == 0 || compile_module_exists(what, &f->copts))
        return false;
    const char *like = compile_module_like(what);
    text_add(why, "cannot read '%s': no such file, and no module of that name%s%s%s", what,
             like ? "; did you mean '" : "", like ? like : "", like ? "'?" : "");
    return true;
}

/* A name that is neither a file nor a module: said as both. */
static bool neither(fray *f, const char *what)
{
    text_buf why;
    text_init(&why);
    bool missing = api_rules_missing(f, what, &why);
    if (missing)
        diag_report(&f->sink, DIAG_ERROR, NULL, (span){0}, "%s", why.s);
    text_free(&why);
    return missing;
}

/* `use NAME` for a module named on the command line */
static fray_status use_module(fray *f, const char *name, bool run)
{
    char *text = mem_alloc(strlen(name) + sizeof "use \n");
    if (!text)
        return FRAY_ERR_IO;
    int len = sprintf(text, "use %s\n", name);
    fray_status st;
    if (run) {
        st = fray_run_string(f, name, text, (size_t)len);
    } else {
        int errors = compile_string(f->p, name, text, (size_t)len, &f->sink, &f->copts);
        f->commands_done = f->p->ncommands;
        st = errors > 0 ? FRAY_ERR_RULES : FRAY_OK;
    }
    mem_free(text, strlen(name) + sizeof "use \n");
    return st;
}

fray_status fray_run_rules(fray *f, const char *what)
{
    api_use(f);
    if (fray_names_module(f, what))
        return use_module(f, what, true);
    return neither(f, what) ? FRAY_ERR_IO : fray_run_file(f, what);
}

fray_status fray_check_rules(fray *f, const char *what, bool syntax_only)
{
    api_use(f);
    if (fray_names_module(f, what))
        return use_module(f, what, false);
    return neither(f, what) ? FRAY_ERR_IO : fray_check_file(f, what, syntax_only);
}

static bool ensure_eval_self(fray *f)
{
    if (f->eval_self >= 0)
        return true;
    f->eval_self = world_add_creature(f->v, "self", -1, (span){0});
    return f->eval_self >= 0;
}

fray_status api_eval_as(fray *f, const char *expr, int self, value *out)
{
    api_use(f);
    int formula;
    if (compile_expression(f->p, "<eval>", expr, strlen(expr), &f->sink, &f->copts, &formula) > 0 || formula < 0)
        return FRAY_ERR_RULES;
    vm_begin_command(f->v);
    bool ok = vm_call(f->v, formula, self, NULL, 0, out);
    vm_end_command(f->v);
    if (!ok)
        return api_runtime_failure(f);
    return FRAY_OK;
}

static fray_status eval_chunk(fray *f, const char *expr, value *out)
{
    api_use(f);
    if (!ensure_eval_self(f))
        return api_runtime_failure(f);
    return api_eval_as(f, expr, f->eval_self, out);
}

fray_status fray_eval_with(fray *f, const char *stat, const char *expr)
{
    api_use(f);
    int id = program_find_string(f->p, stat);
    const decl *d = id >= 0 ? program_find_decl(f->p, DK_STAT, id) : NULL;
    if (!d && id >= 0)
        d = program_find_decl(f->p, DK_RESOURCE, id);
    if (!d) {
        diag_report(&f->sink, DIAG_ERROR, NULL, (span){0}, "no stat or resource '%s' in these rules", stat);
        return FRAY_ERR_USAGE;
    }
    int index = program_decl_index(f->p, d);
    value x;
    fray_status st = eval_chunk(f, expr, &x);
    if (st != FRAY_OK)
        return st;
    if (!world_set_stat(f->v, f->eval_self, index, x, (span){0}))
        return api_runtime_failure(f);
    return FRAY_OK;
}

/* The text of x, kept in f until the next call that returns one. */
const char *api_said(fray *f, value x)
{
    text_clear(&f->said);
    vm_format_text(f->v, x, &f->said);
    return f->said.s;
}

fray_status fray_eval(fray *f, const char *expr, const char **out)
{
    value x;
    fray_status st = eval_chunk(f, expr, &x);
    *out = st == FRAY_OK ? api_said(f, x) : NULL;
    return st;
}

struct fray_distribution {
    dist *d;
    bool yes_no;     /* of a comparison: 1 is yes, 0 no */
    size_t n;        /* outcomes from lowest to highest */
    double *at_most; /* [n], computed once: a table reads every row */
    double *at_least;
};

static fray_status prob_of(fray *f, const char *expr, fray_distribution **out);

fray_status fray_prob(fray *f, const char *expr, fray_distribution **out)
{
    api_use(f);
    size_t nsources = f->p->nsources, nchunks = f->p->nchunks;
    fray_status st = prob_of(f, expr, out);
    program_release(f->p, nsources, nchunks); /* *out holds a copy */
    return st;
}

static fray_status prob_of(fray *f, const char *expr, fray_distribution **out)
{
    *out = NULL;
    int formula;
    bool yes_no;
    if (compile_distribution(f->p, "<prob>", expr, strlen(expr), &f->sink, &f->copts, &formula, &yes_no) > 0 ||
        formula < 0)
        return FRAY_ERR_RULES;
    if (!ensure_eval_self(f))
        return api_runtime_failure(f);
    vm_begin_command(f->v);
    value x;
    bool ok = vm_call(f->v, formula, f->eval_self, NULL, 0, &x);
    vm_end_command(f->v);
    if (!ok)
        return api_runtime_failure(f);
    const dist *d = vm_dist_lookup(f->v, x);
    dist_error err = {.limits = &f->v->limits.exact};
    fray_distribution *fd = MEM_NEW(fray_distribution);
    if (fd && (fd->d = d ? dist_copy(d, &err) : NULL) != NULL) {
        fd->n = (size_t)(dist_highest(d) - dist_lowest(d) + 1);
        fd->yes_no = yes_no;
        fd->at_most = MEM_NEW_ARRAY(double, fd->n);
        fd->at_least = MEM_NEW_ARRAY(double, fd->n);
        if (fd->at_most && fd->at_least) {
            dist_cumulative(fd->d, fd->at_most, fd->at_least);
            *out = fd;
            return FRAY_OK;
        }
    }
    fray_distribution_free(fd);
    diag_report(&f->sink, DIAG_ERROR, NULL, (span){0}, "%s", err.message[0] ? err.message : "out of memory");
    return FRAY_ERR_RULES;
}

void fray_distribution_free(fray_distribution *d)
{
    if (!d)
        return;
    dist_free(d->d);
    if (d->at_most)
        mem_free(d->at_most, d->n * sizeof *d->at_most);
    if (d->at_least)
        mem_free(d->at_least, d->n * sizeof *d->at_least);
    mem_free(d, sizeof *d);
}

int64_t fray_distribution_lowest(const fray_distribution *d)
{
    return dist_lowest(d->d);
}
int64_t fray_distribution_highest(const fray_distribution *d)
{
    return dist_highest(d->d);
}
double fray_distribution_p(const fray_distribution *d, int64_t outcome)
{
    return dist_p(d->d, outcome);
}
double fray_distribution_at_least(const fray_distribution *d, int64_t x)
{
    int64_t lo = dist_lowest(d->d);
    return x <= lo ? d->at_least[0] : x > dist_highest(d->d) ? 0.0 : d->at_least[x - lo];
}
double fray_distribution_at_most(const fray_distribution *d, int64_t x)
{
    int64_t lo = dist_lowest(d->d);
    return x < lo ? 0.0 : x >= dist_highest(d->d) ? d->at_most[d->n - 1] : d->at_most[x - lo];
}
double fray_distribution_mean(const fray_distribution *d)
{
    return dist_mean(d->d);
}
double fray_distribution_stddev(const fray_distribution *d)
{
    return dist_stddev(d->d);
}
int64_t fray_distribution_quantile(const fray_distribution *d, double q)
{
    return dist_quantile(d->d, q);
}
double fray_distribution_remainder(const fray_distribution *d)
{
    return dist_remainder(d->d);
}

bool fray_distribution_yes_no(const fray_distribution *d)
{
    return d->yes_no;
}

bool fray_distribution_exact(const fray_distribution *d, int64_t outcome, char *buf, size_t cap)
{
    dist_count num, den;
    if (!dist_exact_p(d->d, outcome, &num, &den))
        return false;
    /* reduce the fraction for reading */
    dist_count a = num, b = den;
    while (b) {
        dist_count t = a % b;
        a = b;
        b = t;
    }
    if (a > 1) {
        num /= a;
        den /= a;
    }
    char n[64], m[64];
    dist_count_format(num, n, sizeof n);
    dist_count_format(den, m, sizeof m);
    snprintf(buf, cap, "%s/%s", n, m);
    return true;
}

static fray_status sample_of(fray *f, const char *expr, size_t n, int64_t *values);

fray_status fray_sample(fray *f, const char *expr, size_t n, int64_t *values)
{
    api_use(f);
    size_t nsources = f->p->nsources, nchunks = f->p->nchunks;
    fray_status st = sample_of(f, expr, n, values);
    program_release(f->p, nsources, nchunks); /* only numbers come out */
    return st;
}

static fray_status sample_of(fray *f, const char *expr, size_t n, int64_t *values)
{
    int formula;
    if (compile_sample(f->p, "<sample>", expr, strlen(expr), &f->sink, &f->copts, &formula) > 0 || formula < 0)
        return FRAY_ERR_RULES;
    if (!ensure_eval_self(f))
        return api_runtime_failure(f);
    for (size_t i = 0; i < n; i++) {
        vm_begin_command(f->v);
        value x;
        bool ok = vm_call(f->v, formula, f->eval_self, NULL, 0, &x);
        vm_end_command(f->v);
        if (!ok)
            return api_runtime_failure(f);
        if (x.type == V_BOOL || x.type == V_INT || x.type == V_ROLL)
            values[i] = x.num;
        else {
            diag_report(&f->sink, DIAG_ERROR, NULL, (span){0}, "'%s' is not a whole number, so it cannot be sampled",
                        expr);
            return FRAY_ERR_RULES;
        }
    }
    return FRAY_OK;
}

void fray_disasm(fray *f, FILE *out)
{
    for (size_t i = 0; i < f->p->nchunks; i++) {
        if (i)
            fputc('\n', out);
        chunk_disasm(out, f->p, f->p->chunks[i]);
    }
}
