/* compile: the driver. Reads files, resolves `use` and `import` on the
 * search path, and walks the items of each file: declarations become
 * program data, every other top-level item becomes one command chunk. */
#define _XOPEN_SOURCE 700 /* stat */
#include "lang/compiler.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "lang/files.h"
#include "lang/parser.h"
#include "runtime/base/mem.h"
#include "runtime/core/builtins.h"

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
        size_t peak;
        if (!chunk_measure_stack(fs->c, &peak))
            cc->oom = true;
        else if ((uint64_t)fs->c->max_stack + VM_STACK_SLACK > VM_STACK_MAX)
            comp_error(cc, fs->c->spans[peak],
                       "too much to work out at once: this holds %u values while it is worked out (the limit is %d); "
                       "give parts of it names with 'let'",
                       fs->c->max_stack, VM_STACK_MAX - VM_STACK_SLACK);
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

int compile_read_disk(const compile_options *opts, compile_read *rq, char **text, size_t *len)
{
    size_t limit = opts && opts->max_read ? opts->max_read : COMPILE_DEFAULT_READ;
    return files_read(rq->path, rq->within, opts && opts->follow_symlinks, limit, text, len);
}

/* Reads a file through the options' reader, or from disk. */
static int read_source(const compile_options *opts, compile_read *rq, char **text, size_t *len)
{
    rq->served_as = NULL;
    if (opts && opts->read)
        return opts->read(opts->read_user, opts, rq, text, len);
    return compile_read_disk(opts, rq, text, len);
}

static void read_error(const compile_options *opts, int code, char *why, size_t cap)
{
    files_error_text(code, opts && opts->max_read ? opts->max_read : COMPILE_DEFAULT_READ, why, cap);
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && !strcmp(s + n - k, tail);
}

/* Writes a path into out; a path that does not fit is left empty (cut
 * short, it would name another file). */
static void make_path(char *out, size_t cap, const char *fmt, const char *dir, const char *name)
{
    int n = snprintf(out, cap, fmt, dir, name);
    if (n < 0 || (size_t)n >= cap)
        out[0] = '\0';
}

/* The i-th place `use NAME` looks (false past the last): NAME.rules in the
 * importing file's directory; in each directory of the search path, as
 * DIR/NAME.rules, DIR/stdlib/NAME.rules and DIR/rules/NAME.rules; in the
 * installed library. *within is the directory the file must stay in;
 * *on_path tells the search path and the library from the file's own
 * directory. out is left empty when the path is too long. */
static bool module_place(const compile_options *opts, const char *name, const char *from_dir, size_t i, char *out,
                         size_t cap, const char **within, bool *on_path)
{
    static const char *const on_search_path[] = {"%s/%s.rules", "%s/stdlib/%s.rules", "%s/rules/%s.rules"};
    *on_path = true;
    if (from_dir && i-- == 0) {
        *on_path = false;
        *within = from_dir;
        make_path(out, cap, "%s/%s.rules", from_dir, name);
        return true;
    }
    size_t npaths = opts ? opts->npaths : 0;
    if (i < 3 * npaths) {
        *within = opts->search_path[i / 3];
        make_path(out, cap, on_search_path[i % 3], *within, name);
        return true;
    }
#ifdef FRAY_DATADIR
    /* the installed library: the rule systems and the shared modules */
    static const char *const installed[] = {"%s/%s.rules", "%s/rules/%s.rules", "%s/stdlib/%s.rules"};
    i -= 3 * npaths;
    if (i < 3) {
        *within = FRAY_DATADIR;
        make_path(out, cap, installed[i], FRAY_DATADIR, name);
        return true;
    }
#endif
    return false;
}

const char *comp_library_module_of(const char *procedure)
{
    size_t n = strlen(procedure);
    for (size_t i = 0; i < sizeof embedded_stdlib / sizeof embedded_stdlib[0]; i++) {
        if (strncmp(embedded_stdlib[i].path, "stdlib/", 7) != 0)
            continue; /* the library's modules, not the rule systems */
        for (const char *t = embedded_stdlib[i].text; (t = strstr(t, "procedure ")) != NULL; t += 10)
            if ((t == embedded_stdlib[i].text || t[-1] == '\n') && !strncmp(t + 10, procedure, n) && t[10 + n] == '(')
                return embedded_stdlib[i].name;
    }
    return NULL;
}

static const struct embedded *find_embedded(const char *name)
{
    for (size_t i = 0; i < sizeof embedded_stdlib / sizeof embedded_stdlib[0]; i++)
        if (strcmp(embedded_stdlib[i].name, name) == 0)
            return &embedded_stdlib[i];
    return NULL;
}

const char *compile_module_like(const char *name)
{
    const char *best = NULL;
    int best_d = 3; /* a typo or two: farther is no suggestion */
    for (size_t i = 0; i < sizeof embedded_stdlib / sizeof embedded_stdlib[0]; i++) {
        int d = diag_edit_distance(name, embedded_stdlib[i].name, best_d);
        if (d < best_d) {
            best_d = d;
            best = embedded_stdlib[i].name;
        }
    }
    return best;
}

bool compile_module_exists(const char *name, const compile_options *opts)
{
    /* a look that opens nothing: loading the module says what is wrong
       with the file, if anything */
    char path[4096];
    const char *within;
    bool on_path;
    for (size_t i = 0; module_place(opts, name, NULL, i, path, sizeof path, &within, &on_path); i++) {
        struct stat st;
        if (stat(path, &st) == 0)
            return true;
    }
    return find_embedded(name) != NULL;
}

static void dir_of(const char *path, char *out, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(out, cap, ".");
    else
        snprintf(out, cap, "%.*s", (int)(slash - path) == 0 ? 1 : (int)(slash - path), path);
}

/* path without its `.` components and repeated or final '/'. */
static void normal_path(const char *path, char *out, size_t cap)
{
    size_t n = 0;
    bool absolute = path[0] == '/';
    if (absolute)
        out[n++] = '/';
    for (const char *p = path; *p;) {
        while (*p == '/')
            p++;
        size_t k = strcspn(p, "/");
        if (k > 0 && !(k == 1 && p[0] == '.') && n + k + 2 < cap) {
            if (n > (absolute ? 1u : 0u))
                out[n++] = '/';
            memcpy(out + n, p, k);
            n += k;
        }
        p += k;
    }
    if (n == 0)
        out[n++] = '.';
    out[n] = '\0';
}

static int compile_text(compiler *cc, const char *name, const char *text, size_t len);

/* What identifies a module: its path without `.` components or repeated
 * '/' (so `a/./b.rules` and `a/b.rules` are one file), worked out from
 * the path alone, so that a module is the same one whether it is read from
 * disk or served from what a session kept; or its name for the built-in
 * library. */
static const char *module_key(compiler *cc, const char *path, bool embedded)
{
    char key[4200];
    if (embedded)
        snprintf(key, sizeof key, "<built-in>/%s", path);
    else
        normal_path(path, key, sizeof key);
    return program_string(cc->p, comp_intern(cc, key));
}

/* A module is loaded once: an import that reaches a file already being
 * imported is a cycle and an error, never a hang. True when the module
 * by this key is to be loaded now. */
static bool module_is_new(compiler *cc, const char *key, const char *path, span at)
{
    for (int i = 0; i < cc->nimporting; i++) {
        if (strcmp(cc->importing[i], key) == 0) {
            comp_error(cc, at, "import cycle: '%s' imports itself through this import", path);
            return false;
        }
    }
    int id = comp_intern(cc, key);
    for (size_t i = 0; i < cc->p->nmodules; i++)
        if (cc->p->modules[i] == id)
            return false;
    return true;
}

/* library: a module of the library or the search path, not the user's own
   text (runtime errors inside it are reported at the user's call). */
static void load_module(compiler *cc, const char *key, const char *path, const char *text, size_t len, span at,
                        bool library)
{
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
    cc->p->modules[cc->p->nmodules++] = comp_intern(cc, key);
    compiler saved = *cc;
    cc->importing[cc->nimporting++] = key;
    size_t first = cc->p->nsources;
    compile_text(cc, path, text, len);
    if (library && first < cc->p->nsources)
        cc->p->sources[first]->library = true;
    bool oom = cc->oom;
    /* the module may have grown the table of global types (and moved it):
       that one is kept, not the one saved before */
    sty *types = cc->global_types;
    size_t types_cap = cc->global_types_cap;
    *cc = saved;
    cc->oom = oom;
    cc->global_types = types;
    cc->global_types_cap = types_cap;
}

/* Loads a module read from a file, once it is found to be rules text; a
 * file that is not is refused where it was asked for (`verb` 'what'),
 * without a line of it shown. */
static void load_read_module(compiler *cc, const char *path, const char *text, size_t len, span at, const char *verb,
                             const char *what, bool library)
{
    const char *key = module_key(cc, path, false);
    if (!module_is_new(cc, key, path, at))
        return;
    size_t end = files_text_end(text, len);
    if (end < len) {
        int line = 1, col = 1;
        for (size_t i = 0; i < end; i++) {
            if (text[i] == '\n')
                line++, col = 1;
            else if (((unsigned char)text[i] & 0xc0) != 0x80)
                col++;
        }
        char why[64];
        files_bad_byte((unsigned char)text[end], why, sizeof why);
        comp_error(cc, at, "cannot %s '%s': '%s' is not rules text (%s at line %d, column %d)", verb, what, path, why,
                   line, col);
        return;
    }
    load_module(cc, key, path, text, len, at, library);
}

/* Reads the file rq names and loads it as a module; the read's error
 * code (0 when it was read, whatever the module held). */
static int read_module(compiler *cc, compile_read *rq, span at, const char *verb, const char *what)
{
    char *text;
    size_t len;
    int code = read_source(cc->opts, rq, &text, &len);
    if (code != 0)
        return code;
    load_read_module(cc, rq->served_as ? rq->served_as : rq->path, text, len, at, verb, what, rq->module != NULL);
    mem_free(text, len + 1);
    return 0;
}

/* `use NAME`: the first place that has NAME.rules (module_place), else
 * the built-in library. A place that holds something other than a rules
 * file (a directory, a pipe, a link out of its directory) stops the
 * search with an error: the module is there, and cannot be read. */
static void use_module(compiler *cc, const char *name, span at)
{
    const char *self = cc->nimporting > 0 ? cc->importing[cc->nimporting - 1] : NULL;
    char path[4096];
    const char *within;
    bool on_path, itself = false;
    for (size_t i = 0; module_place(cc->opts, name, cc->dir, i, path, sizeof path, &within, &on_path); i++) {
        if (!path[0]) {
            comp_error(cc, at, "cannot use '%s': the path of a place to look is too long", name);
            return;
        }
        const char *key = module_key(cc, path, false);
        /* a file never means itself: `use x` in a file named x.rules (a
           profile named after its system) is the library's x */
        if (self && !strcmp(key, self)) {
            itself = true;
            continue;
        }
        if (!module_is_new(cc, key, path, at))
            return;
        compile_read rq = {.path = path, .within = within, .module = on_path ? name : NULL};
        int code = read_module(cc, &rq, at, "use", name);
        if (code == ENOENT || code == ENOTDIR)
            continue;
        if (code != 0) {
            char why[256];
            read_error(cc->opts, code, why, sizeof why);
            comp_error(cc, at, "cannot use '%s': '%s' %s", name, path, why);
        }
        return;
    }
    const struct embedded *e = find_embedded(name);
    if (!e && itself) {
        comp_error(cc, at,
                   "'%s' names this very file: a file does not use itself (a module of that name elsewhere on the "
                   "search path would be used)",
                   name);
        return;
    }
    if (!e) {
        comp_error(cc, at, "no module '%s' on the search path (the file's directory, FRAY_PATH, %s)", name,
                   "the installed library");
        return;
    }
    const char *key = module_key(cc, e->path, true);
    if (module_is_new(cc, key, e->path, at))
        load_module(cc, key, e->path, e->text, strlen(e->text), at, true);
}

static void compile_use(compiler *cc, const node *use)
{
    for (const node *n = use->list; n; n = n->next) {
        const compile_options *o = cc->opts;
        const char *name = n->text;
        if (o && o->use_instead_name && cc->nimporting == 1 && strcmp(name, o->use_instead_name) == 0) {
            const char *instead = o->use_instead_path;
            if (o->use_instead_taken)
                *o->use_instead_taken = true;
            if (strchr(instead, '/') || ends_with(instead, ".rules")) {
                /* a file the user named: read as given */
                compile_read rq = {.path = instead};
                int code = read_module(cc, &rq, n->sp, "use", instead);
                if (code != 0) {
                    char why[256];
                    read_error(cc->opts, code, why, sizeof why);
                    comp_error(cc, n->sp, "cannot read '%s': %s", instead, why);
                }
                continue;
            }
            name = instead; /* a module by name */
        }
        use_module(cc, name, n->sp);
    }
}

/* `import "file.rules"` reads a file relative to the importing file.
 * Rules files are sandboxed: no absolute paths, no way out through `..`,
 * nor through a symbolic link (unless the options allow it), and only
 * files named as rules files. */
static void compile_import(compiler *cc, const node *imp)
{
    const char *rel = imp->text ? imp->text : "";
    span at = imp->a ? imp->a->sp : imp->sp;
    if (rel[0] == '/' || strstr(rel, "..") != NULL || rel[0] == '\0') {
        comp_error(cc, at, "import path must be relative and stay within the rules directory (no '/' prefix, no '..')");
        return;
    }
    if (!ends_with(rel, ".rules")) {
        comp_error(cc, at, "cannot import '%s': only rules files are imported (a name that ends in .rules)", rel);
        return;
    }
    char path[4096];
    make_path(path, sizeof path, "%s/%s", cc->dir, rel);
    if (!path[0]) {
        comp_error(cc, at, "cannot import a path this long (%zu bytes in a folder of %zu)", strlen(rel),
                   strlen(cc->dir));
        return;
    }
    if (!module_is_new(cc, module_key(cc, path, false), path, imp->sp))
        return;
    compile_read rq = {.path = path, .within = cc->dir};
    int code = read_module(cc, &rq, imp->sp, "import", rel);
    if (code != 0) {
        char why[256];
        read_error(cc->opts, code, why, sizeof why);
        comp_error(cc, at, "cannot import '%s': %s", rel, why);
    }
}

static void compile_imports(compiler *cc, const node *prog)
{
    for (const node *it = prog->list; it && !cc->oom; it = it->next) {
        if (it->kind == AST_USE)
            compile_use(cc, it);
        else if (it->kind == AST_IMPORT)
            compile_import(cc, it);
    }
}

bool comp_left_out(const compiler *cc, const node *item)
{
    const compile_options *o = cc->opts;
    if (!o || !o->only_override_file || item->kind != AST_OVERRIDE || !item->a || !cc->src ||
        strcmp(cc->src->name, o->only_override_file))
        return false;
    const node *dn = item->a;
    bool kept = (int)dn->op == o->only_override_kind &&
                (o->only_override_name ? dn->text && !strcmp(dn->text, o->only_override_name) : !dn->text);
    return !kept;
}

static void compile_items(compiler *cc, const node *prog, bool imported, ast_arena *ar)
{
    /* Imports first, so this file's declarations see everything they
       bring; then every name of this file; then the bodies in order, the
       tree of each given back once it is compiled. */
    if (!imported)
        compile_imports(cc, prog);
    declare_names(cc, prog);
    size_t i = 0;
    for (const node *it = prog->list, *next; it && !cc->oom; it = next, i++) {
        next = it->next;
        switch (it->kind) {
        case AST_USE:
        case AST_IMPORT: break;
        case AST_DECL:
        case AST_OVERRIDE:
            if (comp_left_out(cc, it))
                break;
            if (it->kind == AST_DECL && it->op == DK_CREATURE)
                compile_command(cc, it);
            else
                compile_decl(cc, it);
            break;
        case AST_CITE: comp_error(cc, it->sp, "a citation belongs inside the declaration it cites"); break;
        default: compile_command(cc, it); break;
        }
        ast_arena_release(ar, i);
    }
}

ast_arena *compile_arena(const compile_options *opts)
{
    ast_arena *ar = ast_arena_new();
    if (ar && opts && opts->max_string > 0)
        ast_arena_limit_strings(ar, (size_t)opts->max_string);
    if (ar && opts && opts->max_nesting > 0)
        ast_arena_limit_nesting(ar, opts->max_nesting);
    return ar;
}

/* Whether a line of the text starts with `use` or `import`. */
static bool may_import(const source *src)
{
    const char *s = src->text, *end = s + src->len;
    for (const char *line = s; line < end;) {
        while (line < end && (*line == ' ' || *line == '\t'))
            line++;
        size_t left = (size_t)(end - line);
        if ((left > 4 && !memcmp(line, "use", 3) && (line[3] == ' ' || line[3] == '\t')) ||
            (left > 7 && !memcmp(line, "import", 6) && (line[6] == ' ' || line[6] == '\t')))
            return true;
        const char *nl = memchr(line, '\n', left);
        line = nl ? nl + 1 : end;
    }
    return false;
}

static void count_only(void *user, const diag *d)
{
    (void)user;
    (void)d;
}

/* The modules a text uses, loaded before the text is read for good: a
   count of a period one declares (`2 scenes`, scene declared by a module
   the text uses) is then read as one quantity. A first reading, whose mistakes are left to the
   second, finds them. True if it loaded them (the text may not parse:
   what it uses is loaded anyway). */
static bool import_first(compiler *cc, const source *src, uint32_t idx)
{
    if (!may_import(src))
        return false;
    ast_arena *ar = compile_arena(cc->opts);
    if (!ar) {
        cc->oom = true;
        return false;
    }
    diag_sink quiet = {.fn = count_only};
    node *root = parse_program_in(src, idx, ar, &quiet, cc->p);
    if (root)
        compile_imports(cc, root);
    ast_arena_free(ar);
    return root != NULL;
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
    ast_arena *ar = compile_arena(cc->opts);
    if (!ar) {
        cc->oom = true;
        return 1;
    }
    char dir[4096];
    dir_of(name, dir, sizeof dir);
    const char *saved_dir = cc->dir;
    const source *saved_src = cc->src;
    cc->dir = dir;
    cc->src = src;
    cc->src_index = (uint32_t)idx;
    bool syntax_only = cc->opts && cc->opts->syntax_only;
    bool imported = !syntax_only && import_first(cc, src, (uint32_t)idx);
    node *root = parse_program_in(src, (uint32_t)idx, ar, cc->sink, cc->p);
    if (!root && cc->sink->errors == before)
        cc->oom = true;
    if (root && cc->sink->errors == before && !syntax_only && !compile_unknown_words_only(cc, root)) {
        cc->items_compiled = true;
        compile_items(cc, root, imported, ar);
    }
    cc->dir = saved_dir;
    cc->src = saved_src;
    ast_arena_free(ar);
    return cc->sink->errors - before;
}

/* A compile may take as much memory as a command (--limit memory=N): the
   parse of a huge file stops there, with that limit's error, rather than
   growing without bound. */
static size_t compile_budget(const compile_options *opts)
{
    return opts && opts->max_memory ? opts->max_memory : MEM_DEFAULT_BUDGET;
}

static void compiler_init(compiler *cc, program *p, diag_sink *sink, const compile_options *opts)
{
    memset(cc, 0, sizeof *cc);
    cc->p = p;
    cc->sink = sink;
    cc->opts = opts;
    cc->system = -1;
    cc->outer = mem_get_budget();
    mem_set_budget(compile_budget(opts));
    mem_ceiling_reached(); /* what failed before is not this compile's */
}

static void compiler_done(compiler *cc, const char *name)
{
    if (cc->global_types)
        mem_free(cc->global_types, cc->global_types_cap * sizeof(sty));
    if (mem_ceiling_reached())
        diag_report(cc->sink, DIAG_ERROR, NULL, (span){0},
                    "memory limit reached (%zu MiB to compile %s; see --limit memory=N)",
                    compile_budget(cc->opts) >> 20, name);
    else if (cc->oom)
        diag_report(cc->sink, DIAG_ERROR, NULL, (span){0}, "out of memory while compiling");
    mem_restore_budget(cc->outer);
}

program *compile_modules_of(const source *src, const compile_options *opts)
{
    if (!may_import(src))
        return NULL;
    program *p = program_new();
    source *copy = p ? source_new(src->name, src->text, src->len) : NULL;
    int idx = copy ? program_add_source(p, copy) : -1;
    if (idx < 0) {
        source_free(copy);
        program_free(p);
        return NULL;
    }
    diag_sink quiet = {.fn = count_only};
    compiler cc;
    compiler_init(&cc, p, &quiet, opts);
    char dir[4096];
    dir_of(src->name, dir, sizeof dir);
    cc.dir = dir;
    cc.src = copy;
    cc.src_index = (uint32_t)idx;
    import_first(&cc, copy, (uint32_t)idx);
    compiler_done(&cc, src->name);
    return p;
}

/* With unchanged, nothing of the text was compiled when it is not rules
   text or does not parse: the source added for it is taken back, and the
   name interned for the import check must have been there already. */
int compile_or_nothing(program *p, const char *name, const char *text, size_t len, bool as_file, diag_sink *sink,
                       const compile_options *opts, bool *unchanged)
{
    if (unchanged)
        *unchanged = false;
    if (as_file) {
        size_t end = files_text_end(text, len);
        if (end < len) {
            files_report_not_text(sink, name, text, end);
            if (unchanged)
                *unchanged = true;
            return 1;
        }
    }
    compiler cc;
    compiler_init(&cc, p, sink, opts);
    int before = sink->errors;
    size_t nsources = p->nsources, nstrings = p->nstrings;
    cc.importing[cc.nimporting++] = module_key(&cc, name, false);
    compile_text(&cc, name, text, len);
    compiler_done(&cc, name);
    if (unchanged && !cc.items_compiled && p->nstrings == nstrings) {
        program_release(p, nsources, p->nchunks);
        *unchanged = true;
    }
    return sink->errors - before;
}

int compile_string(program *p, const char *name, const char *text, size_t len, diag_sink *sink,
                   const compile_options *opts)
{
    return compile_or_nothing(p, name, text, len, false, sink, opts, NULL);
}

int compile_file_text(program *p, const char *path, const char *text, size_t len, diag_sink *sink,
                      const compile_options *opts)
{
    return compile_or_nothing(p, path, text, len, true, sink, opts, NULL);
}

int compile_file(program *p, const char *path, diag_sink *sink, const compile_options *opts)
{
    char *text;
    size_t len;
    compile_read rq = {.path = path};
    int code = read_source(opts, &rq, &text, &len);
    if (code != 0) {
        char why[256];
        read_error(opts, code, why, sizeof why);
        diag_report(sink, DIAG_ERROR, NULL, (span){0}, "cannot read '%s': %s", path, why);
        return -1;
    }
    int errors = compile_file_text(p, path, text, len, sink, opts);
    mem_free(text, len + 1);
    return errors;
}

typedef enum { EXPR_EVAL, EXPR_DISTRIBUTION, EXPR_SAMPLE } expr_mode;

/* Whether an expression asks a yes or no: a comparison, or `and`, `or`
   or `not` of them (of distributions, its type does not say so). */
static bool asks_yes_no(const node *e)
{
    if (e->kind == AST_UNARY)
        return e->op == NOT;
    if (e->kind != AST_BINARY)
        return e->kind == AST_BOOL;
    switch (e->op) {
    case EQ:
    case NE:
    case '<':
    case LE:
    case '>':
    case GE:
    case AND:
    case OR: return true;
    default: return false;
    }
}

static int compile_one(program *p, const char *name, const char *text, size_t len, diag_sink *sink,
                       const compile_options *opts, int *chunk_out, expr_mode mode, bool *yes_no)
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
        cc.oom = true;
        compiler_done(&cc, name);
        return sink->errors - before;
    }
    ast_arena *ar = compile_arena(opts);
    node *expr = ar ? parse_expression_in(src, (uint32_t)idx, ar, sink, p) : NULL;
    if (expr && sink->errors == before) {
        cc.src = src;
        cc.src_index = (uint32_t)idx;
        fn_state fs;
        fn_begin(&cc, &fs, CHUNK_FORMULA, distribution ? "distribution" : "eval", expr->sp);
        if (distribution) /* as in dist(E): nothing rolled, nothing changed (vm_exact.c) */
            emit_op(&cc, OP_EXACT_ENTER, expr->sp);
        sty type = compile_expr(&cc, expr);
        if (yes_no)
            *yes_no = type == TY_BOOL || asks_yes_no(expr);
        if (distribution) { /* whatever the value, as a distribution */
            emit_op(&cc, OP_EXACT_LEAVE, expr->sp);
            emit_op(&cc, OP_CALL_BUILTIN, expr->sp);
            emit_byte(&cc, BI_dist, expr->sp);
            emit_byte(&cc, 1, expr->sp);
        }
        *chunk_out = fn_end(&cc, &fs, expr->sp);
    }
    ast_arena_free(ar);
    compiler_done(&cc, name);
    return sink->errors - before;
}

int compile_expression(program *p, const char *name, const char *text, size_t len, diag_sink *sink,
                       const compile_options *opts, int *chunk_out)
{
    return compile_one(p, name, text, len, sink, opts, chunk_out, EXPR_EVAL, NULL);
}

int compile_sample(program *p, const char *name, const char *text, size_t len, diag_sink *sink,
                   const compile_options *opts, int *chunk_out)
{
    return compile_one(p, name, text, len, sink, opts, chunk_out, EXPR_SAMPLE, NULL);
}

int compile_distribution(program *p, const char *name, const char *text, size_t len, diag_sink *sink,
                         const compile_options *opts, int *chunk_out, bool *yes_no)
{
    if (yes_no)
        *yes_no = false;
    return compile_one(p, name, text, len, sink, opts, chunk_out, EXPR_DISTRIBUTION, yes_no);
}
