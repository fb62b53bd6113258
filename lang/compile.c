/* compile: the driver. Reads files, resolves `use` and `import` on the
 * search path, and walks the items of each file: declarations become
 * program data, every other top-level item becomes one command chunk. */
#define _XOPEN_SOURCE 700 /* fileno, realpath */
#include "lang/compiler.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime/mem.h"
#include "runtime/builtins.h"

static const struct embedded {
    const char *name, *path, *text;
} embedded_stdlib[] = {
#include "stdlib/embedded.inc"
};

void comp_error(compiler *cc, span sp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(cc->sink, DIAG_ERROR, cc->p->sources[sp.source], sp, fmt, ap);
    va_end(ap);
}

void comp_note(compiler *cc, span sp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(cc->sink, DIAG_NOTE, cc->p->sources[sp.source], sp, fmt, ap);
    va_end(ap);
}

int comp_intern(compiler *cc, const char *s)
{
    int id = program_intern(cc->p, s, strlen(s));
    if (id < 0)
        cc->oom = true;
    return id < 0 ? 0 : id;
}

/* --- emitting ------------------------------------------------------------ */

void emit_byte(compiler *cc, uint8_t b, span sp)
{
    if (!cc->fn || !cc->fn->c || !chunk_write(cc->fn->c, b, sp))
        cc->oom = true;
}

void emit_op(compiler *cc, opcode op, span sp)
{
    emit_byte(cc, (uint8_t)op, sp);
}

void emit_op_u8(compiler *cc, opcode op, uint8_t a, span sp)
{
    emit_op(cc, op, sp);
    emit_byte(cc, a, sp);
}

void emit_op_u16(compiler *cc, opcode op, int a, span sp)
{
    emit_op(cc, op, sp);
    emit_byte(cc, (uint8_t)(a & 0xff), sp);
    emit_byte(cc, (uint8_t)((a >> 8) & 0xff), sp);
}

void emit_const(compiler *cc, value v, span sp)
{
    if (!cc->fn->c) {
        cc->oom = true;
        return;
    }
    int k = chunk_constant(cc->fn->c, v);
    if (k == -2) {
        cc->oom = true;
        return;
    }
    if (k < 0) {
        comp_error(cc, sp, "too many constants in one chunk (limit is 65536)");
        return;
    }
    emit_op_u16(cc, OP_CONST, k, sp);
}

size_t emit_jump(compiler *cc, opcode op, span sp)
{
    emit_op_u16(cc, op, 0xffff, sp);
    return cc->fn->c && cc->fn->c->len >= 2 ? cc->fn->c->len - 2 : 0;
}

void patch_jump(compiler *cc, size_t at)
{
    chunk *c = cc->fn->c;
    if (cc->oom || !c || at + 2 > c->len)
        return;
    size_t jump = c->len - (at + 2);
    if (jump > INT16_MAX) {
        comp_error(cc, c->spans[at], "body too large to jump over (limit is %d bytes)", INT16_MAX);
        return;
    }
    c->code[at] = (uint8_t)(jump & 0xff);
    c->code[at + 1] = (uint8_t)((jump >> 8) & 0xff);
}

void emit_loop(compiler *cc, size_t target, span sp)
{
    chunk *c = cc->fn->c;
    if (!c)
        return;
    long offset = (long)target - (long)(c->len + 3);
    if (offset < INT16_MIN) {
        comp_error(cc, sp, "loop body too large (limit is %d bytes)", INT16_MAX);
        return;
    }
    emit_op_u16(cc, OP_JUMP, (int)(offset & 0xffff), sp);
}

void fn_begin(compiler *cc, fn_state *fs, chunk_kind kind, const char *name, span where)
{
    memset(fs, 0, offsetof(fn_state, locals));
    fs->nlocals = 0;
    fs->depth = 0;
    fs->top_level = false;
    fs->c = chunk_new(kind, name, where);
    if (!fs->c)
        cc->oom = true;
    cc->fn = fs;
}

int fn_end(compiler *cc, fn_state *fs, span where)
{
    int id = -1;
    if (fs->c) {
        if (fs->c->len == 0 || fs->c->kind != CHUNK_FORMULA)
            emit_op(cc, OP_NIL, where);
        emit_op(cc, OP_RETURN, where);
        fs->c->nlocals = (uint8_t)fs->nlocals;
        chunk_trim(fs->c);
        id = program_add_chunk(cc->p, fs->c);
        if (id < 0) {
            chunk_free(fs->c);
            cc->oom = true;
        }
    }
    fs->c = NULL;
    cc->fn = NULL;
    return id;
}

int fn_add_local(compiler *cc, int name, sty type, span sp)
{
    fn_state *fs = cc->fn;
    if (fs->nlocals >= MAX_LOCALS) {
        comp_error(cc, sp, "too many local variables (limit is %d)", MAX_LOCALS);
        return 0;
    }
    fs->locals[fs->nlocals] = (local){name, fs->depth, type};
    return fs->nlocals++;
}

/* --- files and modules ----------------------------------------------------- */

static bool read_file(const char *path, char **text, size_t *len, char *why, size_t why_cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, why_cap, "%s", strerror(errno));
        return false;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        snprintf(why, why_cap, "is a directory");
        return false;
    }
    size_t cap = 4096, n = 0;
    char *buf = mem_alloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) {
            if (ferror(f)) {
                snprintf(why, why_cap, "%s", strerror(errno));
                mem_free(buf, cap);
                buf = NULL;
            }
            break;
        }
        char *grown = mem_realloc(buf, cap, cap * 2);
        if (!grown) {
            mem_free(buf, cap);
            buf = NULL;
            break;
        }
        buf = grown;
        cap *= 2;
    }
    fclose(f);
    if (!buf) {
        if (!why[0])
            snprintf(why, why_cap, "out of memory");
        return false;
    }
    char *exact = mem_strndup(buf, n);
    mem_free(buf, cap);
    if (!exact) {
        snprintf(why, why_cap, "out of memory");
        return false;
    }
    *text = exact;
    *len = n;
    return true;
}

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool compile_find_module(const char *name, const char *from_dir, const compile_options *opts, char *out, size_t cap)
{
    if (from_dir) {
        snprintf(out, cap, "%s/%s.rules", from_dir, name);
        if (file_exists(out))
            return true;
    }
    for (size_t i = 0; opts && i < opts->npaths; i++) {
        snprintf(out, cap, "%s/%s.rules", opts->search_path[i], name);
        if (file_exists(out))
            return true;
        snprintf(out, cap, "%s/stdlib/%s.rules", opts->search_path[i], name);
        if (file_exists(out))
            return true;
        snprintf(out, cap, "%s/rules/%s.rules", opts->search_path[i], name);
        if (file_exists(out))
            return true;
    }
#ifdef FRAY_DATADIR
    /* the installed library: the rule systems and the shared modules */
    static const char *const installed[] = {"%s/%s.rules", "%s/rules/%s.rules", "%s/stdlib/%s.rules"};
    for (size_t i = 0; i < sizeof installed / sizeof installed[0]; i++) {
        snprintf(out, cap, installed[i], FRAY_DATADIR, name);
        if (file_exists(out))
            return true;
    }
#endif
    return false;
}

bool compile_module_exists(const char *name, const compile_options *opts)
{
    char path[4096];
    if (compile_find_module(name, NULL, opts, path, sizeof path))
        return true;
    for (size_t i = 0; i < sizeof embedded_stdlib / sizeof embedded_stdlib[0]; i++)
        if (strcmp(embedded_stdlib[i].name, name) == 0)
            return true;
    return false;
}

static void dir_of(const char *path, char *out, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(out, cap, ".");
    else
        snprintf(out, cap, "%.*s", (int)(slash - path) == 0 ? 1 : (int)(slash - path), path);
}

static int compile_text(compiler *cc, const char *name, const char *text, size_t len);

/* Loads a module once; an import that reaches a file already being
 * imported is a cycle and an error, never a hang. */
/* What identifies a module: its canonical path (so `a/./b.rules` and
 * `a/b.rules` are one file), or its name for the built-in library. */
static const char *module_key(compiler *cc, const char *path, bool embedded)
{
    char canonical[PATH_MAX];
    if (embedded) {
        char key[512];
        snprintf(key, sizeof key, "<built-in>/%s", path);
        return program_string(cc->p, comp_intern(cc, key));
    }
    if (realpath(path, canonical))
        return program_string(cc->p, comp_intern(cc, canonical));
    return program_string(cc->p, comp_intern(cc, path));
}

static void load_module(compiler *cc, const char *path, const char *text, size_t len, span at)
{
    const char *key = module_key(cc, path, text != NULL);
    for (int i = 0; i < cc->nimporting; i++) {
        if (strcmp(cc->importing[i], key) == 0) {
            comp_error(cc, at, "import cycle: '%s' imports itself through this import", path);
            return;
        }
    }
    int id = comp_intern(cc, key);
    for (size_t i = 0; i < cc->p->nmodules; i++)
        if (cc->p->modules[i] == id)
            return;
    if (cc->nimporting >= MAX_IMPORT_DEPTH) {
        comp_error(cc, at, "imports nested too deeply (limit is %d)", MAX_IMPORT_DEPTH);
        return;
    }
    int *grown = mem_grow(cc->p->modules, sizeof(int), &cc->p->modules_cap, cc->p->nmodules + 1);
    if (!grown) {
        cc->oom = true;
        return;
    }
    cc->p->modules = grown;
    cc->p->modules[cc->p->nmodules++] = id;
    char *owned = NULL;
    size_t owned_len = 0;
    if (!text) {
        char why[256] = "";
        if (!read_file(path, &owned, &owned_len, why, sizeof why)) {
            comp_error(cc, at, "cannot read '%s': %s", path, why);
            return;
        }
        text = owned;
        len = owned_len;
    }
    compiler saved = *cc;
    cc->importing[cc->nimporting++] = key;
    compile_text(cc, path, text, len);
    int errors = cc->sink->errors;
    bool oom = cc->oom;
    /* the module may have grown the table of global types (and moved it):
       that one is kept, not the one saved before */
    sty *types = cc->global_types;
    size_t types_cap = cc->global_types_cap;
    *cc = saved;
    cc->oom = oom;
    cc->global_types = types;
    cc->global_types_cap = types_cap;
    (void)errors;
    if (owned)
        mem_free(owned, owned_len + 1);
}

static void compile_use(compiler *cc, const node *use)
{
    for (const node *n = use->list; n; n = n->next) {
        char path[4096];
        const compile_options *o = cc->opts;
        const char *name = n->text;
        if (o && o->use_instead_name && cc->nimporting == 1 && strcmp(name, o->use_instead_name) == 0) {
            const char *instead = o->use_instead_path;
            size_t len = strlen(instead);
            if (strchr(instead, '/') || (len > 6 && !strcmp(instead + len - 6, ".rules"))) {
                load_module(cc, instead, NULL, 0, n->sp);
                continue;
            }
            name = instead; /* a module by name */
        }
        bool found_module = compile_find_module(name, cc->dir, cc->opts, path, sizeof path);
        /* a file never means itself: `use x` in a file named x.rules (a
           profile named after its system) is the library's x */
        if (found_module && cc->nimporting > 0 &&
            !strcmp(module_key(cc, path, false), cc->importing[cc->nimporting - 1]))
            found_module = compile_find_module(name, NULL, cc->opts, path, sizeof path);
        if (found_module) {
            load_module(cc, path, NULL, 0, n->sp);
            continue;
        }
        bool found = false;
        for (size_t i = 0; i < sizeof embedded_stdlib / sizeof embedded_stdlib[0]; i++) {
            if (strcmp(embedded_stdlib[i].name, name) == 0) {
                load_module(cc, embedded_stdlib[i].path, embedded_stdlib[i].text, strlen(embedded_stdlib[i].text),
                            n->sp);
                found = true;
            }
        }
        if (!found)
            comp_error(cc, n->sp, "no module '%s' on the search path (the file's directory, FRAY_PATH, %s)", name,
                       "the installed library");
    }
}

/* `import "file"` reads a file relative to the importing file. Rules files
 * are sandboxed: no absolute paths and no way out through `..`. */
static void compile_import(compiler *cc, const node *imp)
{
    const char *rel = imp->text ? imp->text : "";
    if (rel[0] == '/' || strstr(rel, "..") != NULL || rel[0] == '\0') {
        comp_error(cc, imp->a ? imp->a->sp : imp->sp,
                   "import path must be relative and stay within the rules directory (no '/' prefix, no '..')");
        return;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", cc->dir, rel);
    if (!file_exists(path)) {
        comp_error(cc, imp->a ? imp->a->sp : imp->sp, "cannot import '%s': no such file", rel);
        return;
    }
    load_module(cc, path, NULL, 0, imp->sp);
}

static void compile_items(compiler *cc, const node *prog)
{
    /* Imports first, so this file's declarations see everything they
       bring; then every name of this file; then the bodies in order. */
    for (const node *it = prog->list; it && !cc->oom; it = it->next) {
        if (it->kind == AST_USE)
            compile_use(cc, it);
        else if (it->kind == AST_IMPORT)
            compile_import(cc, it);
    }
    declare_names(cc, prog);
    for (const node *it = prog->list; it && !cc->oom; it = it->next) {
        switch (it->kind) {
        case AST_USE:
        case AST_IMPORT: break;
        case AST_DECL:
        case AST_OVERRIDE:
            if (it->kind == AST_DECL && it->op == DK_CREATURE)
                compile_command(cc, it);
            else
                compile_decl(cc, it);
            break;
        case AST_CITE: comp_error(cc, it->sp, "a citation belongs inside the declaration it cites"); break;
        default: compile_command(cc, it); break;
        }
    }
}

/* The arena a parse builds its tree in, holding strings to the options'
   limit (--limit string-bytes=N). */
static ast_arena *new_arena(const compile_options *opts)
{
    ast_arena *ar = ast_arena_new();
    if (ar && opts && opts->max_string > 0)
        ast_arena_limit_strings(ar, (size_t)opts->max_string);
    return ar;
}

static int compile_text(compiler *cc, const char *name, const char *text, size_t len)
{
    int before = cc->sink->errors;
    source *src = source_new(name, text, len);
    int idx = src ? program_add_source(cc->p, src) : -1;
    if (idx < 0) {
        source_free(src);
        cc->oom = true;
        return 1;
    }
    ast_arena *ar = new_arena(cc->opts);
    if (!ar) {
        cc->oom = true;
        return 1;
    }
    node *root = parse_program(src, (uint32_t)idx, ar, cc->sink);
    if (!root && cc->sink->errors == before)
        cc->oom = true;
    if (root && cc->sink->errors == before && !(cc->opts && cc->opts->syntax_only)) {
        char dir[4096];
        dir_of(name, dir, sizeof dir);
        const char *saved_dir = cc->dir;
        const source *saved_src = cc->src;
        cc->dir = dir;
        cc->src = src;
        cc->src_index = (uint32_t)idx;
        compile_items(cc, root);
        cc->dir = saved_dir;
        cc->src = saved_src;
    }
    ast_arena_free(ar);
    return cc->sink->errors - before;
}

static void compiler_init(compiler *cc, program *p, diag_sink *sink, const compile_options *opts)
{
    memset(cc, 0, sizeof *cc);
    cc->p = p;
    cc->sink = sink;
    cc->opts = opts;
    cc->system = -1;
}

static void compiler_done(compiler *cc)
{
    if (cc->global_types)
        mem_free(cc->global_types, cc->global_types_cap * sizeof(sty));
    if (cc->oom)
        diag_report(cc->sink, DIAG_ERROR, NULL, (span){0}, "out of memory while compiling");
}

int compile_string(program *p, const char *name, const char *text, size_t len, diag_sink *sink,
                   const compile_options *opts)
{
    compiler cc;
    compiler_init(&cc, p, sink, opts);
    int before = sink->errors;
    char dir[4096];
    dir_of(name, dir, sizeof dir);
    cc.importing[cc.nimporting++] = module_key(&cc, name, false);
    compile_text(&cc, name, text, len);
    compiler_done(&cc);
    return sink->errors - before;
}

int compile_file(program *p, const char *path, diag_sink *sink, const compile_options *opts)
{
    char *text;
    size_t len;
    char why[256] = "";
    if (!read_file(path, &text, &len, why, sizeof why)) {
        diag_report(sink, DIAG_ERROR, NULL, (span){0}, "cannot read '%s': %s", path, why);
        return -1;
    }
    int errors = compile_string(p, path, text, len, sink, opts);
    mem_free(text, len + 1);
    return errors;
}

typedef enum { EXPR_EVAL, EXPR_DISTRIBUTION, EXPR_SAMPLE } expr_mode;

static int compile_one(program *p, const char *name, const char *text, size_t len, diag_sink *sink,
                       const compile_options *opts, int *chunk_out, expr_mode mode)
{
    compiler cc;
    compiler_init(&cc, p, sink, opts);
    bool distribution = mode == EXPR_DISTRIBUTION;
    cc.dist_mode = distribution;
    cc.roll_mode = mode == EXPR_SAMPLE;
    int before = sink->errors;
    *chunk_out = -1;
    source *src = source_new(name, text, len);
    int idx = src ? program_add_source(p, src) : -1;
    if (idx < 0) {
        source_free(src);
        diag_report(sink, DIAG_ERROR, NULL, (span){0}, "out of memory");
        return 1;
    }
    ast_arena *ar = new_arena(opts);
    node *expr = ar ? parse_expression(src, (uint32_t)idx, ar, sink) : NULL;
    if (expr && sink->errors == before) {
        cc.src = src;
        cc.src_index = (uint32_t)idx;
        fn_state fs;
        fn_begin(&cc, &fs, CHUNK_FORMULA, distribution ? "distribution" : "eval", expr->sp);
        if (distribution) /* as in dist(E): nothing rolled, nothing changed (vm_exact.c) */
            emit_op(&cc, OP_EXACT_ENTER, expr->sp);
        compile_expr(&cc, expr);
        if (distribution) { /* whatever the value, as a distribution */
            emit_op(&cc, OP_EXACT_LEAVE, expr->sp);
            emit_op(&cc, OP_CALL_BUILTIN, expr->sp);
            emit_byte(&cc, BI_dist, expr->sp);
            emit_byte(&cc, 1, expr->sp);
        }
        *chunk_out = fn_end(&cc, &fs, expr->sp);
    }
    ast_arena_free(ar);
    compiler_done(&cc);
    return sink->errors - before;
}

int compile_expression(program *p, const char *name, const char *text, size_t len, diag_sink *sink,
                       const compile_options *opts, int *chunk_out)
{
    return compile_one(p, name, text, len, sink, opts, chunk_out, EXPR_EVAL);
}

int compile_sample(program *p, const char *name, const char *text, size_t len, diag_sink *sink,
                   const compile_options *opts, int *chunk_out)
{
    return compile_one(p, name, text, len, sink, opts, chunk_out, EXPR_SAMPLE);
}

int compile_distribution(program *p, const char *name, const char *text, size_t len, diag_sink *sink,
                         const compile_options *opts, int *chunk_out)
{
    return compile_one(p, name, text, len, sink, opts, chunk_out, EXPR_DISTRIBUTION);
}
