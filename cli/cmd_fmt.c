/* cmd_fmt: `fray fmt`, rules files in the canonical layout of
 * lang/format.c: printed, checked (--check) or rewritten in place (-w). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "lang/files.h"
#include "lang/format.h"
#include "runtime/fio.h"
#include "runtime/mem.h"
#include "runtime/safefile.h"
#include "runtime/vm.h"

static const char usage[] = "Usage: fray fmt [OPTION]... FILE...\n"
                            "Print each rules FILE in the canonical layout. A file with a syntax error is\n"
                            "reported as `fray check` reports it, and not printed.\n"
                            "\n"
                            "  --check         print nothing; list each FILE not in the layout on stderr\n"
                            "                  (\"FILE: not formatted\") and exit 1 if there is one\n"
                            "  -w, --write     rewrite each FILE in place (atomically) instead of printing it\n"
                            "  --tokens        print the tokens the parser sees instead, one a line, without\n"
                            "                  the `;` that change nothing (the layout never changes them)\n"
                            "  --limit NAME=N  a limit the parse meets, as for every command: nesting,\n"
                            "                  string-bytes, memory (fray help limits)\n"
                            "\n"
                            "The layout keeps the line breaks (a newline ends an item) and the comments, and:\n"
                            "  - indents 2 spaces per `{`, and a line continuing an item 4 more than the\n"
                            "    line that opened its bracket, or than the item's first line;\n"
                            "  - puts a block's `{` last on its line and its `}` on a line of its own, unless\n"
                            "    the whole block is on one line that fits in 100 columns;\n"
                            "  - puts one space around binary operators (not `..`: 1..20), after `,` and `;`\n"
                            "    and between words; none inside ( ) and [ ], before `(` of a call, after a\n"
                            "    unary `-`, around `.`, before the `:` of a type or a command;\n"
                            "  - drops a `;` at the end of a line or one that separates nothing;\n"
                            "  - aligns the trailing comments of consecutive lines, indents a comment line\n"
                            "    as the code after it;\n"
                            "  - leaves at most one blank line in a row, none at the start or end of a block,\n"
                            "    no trailing spaces, and a final newline.\n"
                            "Formatting a formatted file changes nothing, and a file compiles to the same\n"
                            "program before and after (checked on every run: the tokens are compared).\n"
                            "\n"
                            "Exit status: 0 ok, 1 a syntax error (or, with --check, a file to format),\n"
                            "2 usage, 3 a file could not be read or written.\n";

typedef enum { FMT_PRINT, FMT_CHECK, FMT_WRITE, FMT_TOKENS } fmt_mode;

static void error(bool color, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void error(bool color, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag d = {.level = DIAG_ERROR, .message = msg};
    diag_print(stderr, &d, color);
}

/* Replaces path whole, as a save is replaced (runtime/safefile.h): a
 * temporary beside it, renamed over it, so that readers and a kill see
 * the old file or the new one, never half of it; through a symbolic link
 * the file it names is rewritten (the link stays), and its mode is kept.
 * 0 or an errno value or FIO_ERR_ code. */
static int write_in_place(const char *path, const char *bom, const char *text, size_t len)
{
    safefile sf;
    int code = safefile_begin(&sf, path, 0666);
    if (code != 0)
        return code;
    size_t nb = strlen(bom);
    if (fio_write(sf.fd, bom, nb) && fio_write(sf.fd, text, len))
        code = safefile_commit(&sf, true);
    else
        code = errno ? errno : EIO;
    safefile_close(&sf);
    return code;
}

static void print_diag(void *user, const diag *d)
{
    fflush(stdout); /* the files before this one come first */
    diag_print(stderr, d, *(bool *)user);
}

static fray_status set_limit(void *limits, const char *name, uint64_t n)
{
    if (vm_limit_set(limits, name, n))
        return FRAY_OK;
    fprintf(stderr, "fray: error: no limit '%s' takes %llu (fray help limits)\n", name, (unsigned long long)n);
    return FRAY_ERR_USAGE;
}

/* The limits a parse meets, from --limit as every command takes them:
   nesting, string bytes and memory. False when one is out of its range. */
static bool parse_limits(const cli_options *o, compile_options *copts)
{
    vm_limits lim = vm_default_limits;
    if (!cli_apply_limits(o, set_limit, &lim))
        return false;
    *copts = (compile_options){.max_string = lim.string_bytes, .max_nesting = lim.nesting, .max_memory = lim.memory};
    return true;
}

/* Formats one file as mode says; an exit code. A file is read as a rules
 * file is for any command: once, a regular file, up to the memory a command
 * may take, and only if it is rules text. */
static int format_file(const char *path, const compile_options *copts, fmt_mode mode, bool color)
{
    size_t len = 0;
    char *text;
    size_t limit = copts->max_memory;
    int code = fio_read_file(path, limit, &text, &len);
    if (code != 0) {
        char why[256];
        files_error_text(code, limit, why, sizeof why);
        error(color, "cannot read '%s': %s", path, why);
        return EXIT_IO;
    }
    diag_sink sink = {.fn = print_diag, .user = &color, .max_errors = 50};
    size_t end = files_text_end(text, len);
    if (end < len) {
        files_report_not_text(&sink, path, text, end);
        mem_free(text, len + 1);
        return EXIT_RULES;
    }
    source *src = source_new(path, text, len);
    mem_free(text, len + 1);
    if (!src) {
        error(color, "out of memory");
        return EXIT_IO;
    }
    char *out;
    size_t out_len;
    format_status st = mode == FMT_TOKENS ? format_tokens(src, copts, &sink, &out, &out_len)
                                          : format_source(src, copts, &sink, &out, &out_len);
    int rc = EXIT_OK;
    if (st == FORMAT_SYNTAX) {
        rc = EXIT_RULES;
    } else if (st == FORMAT_NOMEM) {
        error(color, "out of memory");
        rc = EXIT_IO;
    } else if (st == FORMAT_UNSAFE) {
        error(color, "'%s' left as it is: its layout would change its tokens (a bug in fray fmt)", path);
        rc = EXIT_RULES;
    } else {
        /* a byte order mark the file began with is kept, and is no part of the layout */
        bool same = out_len == src->len && memcmp(out, src->text, out_len) == 0;
        const char *bom = src->bom && mode != FMT_TOKENS ? SOURCE_BOM : "";
        if (mode == FMT_PRINT || mode == FMT_TOKENS) {
            fputs(bom, stdout);
            fwrite(out, 1, out_len, stdout);
        } else if (mode == FMT_CHECK && !same) {
            fflush(stdout);
            fprintf(stderr, "%s: not formatted\n", path);
            rc = EXIT_RULES;
        } else if (mode == FMT_WRITE && !same) {
            int why = write_in_place(path, bom, out, out_len);
            if (why != 0) {
                error(color, "cannot write '%s': %s", path, fio_error_text(why));
                rc = EXIT_IO;
            }
        }
    }
    format_free(out, out_len);
    source_free(src);
    return rc;
}

int cmd_fmt(int argc, char **argv)
{
    /* fmt's own flags are taken out; the shared ones go to cli_parse */
    char **rest = malloc(((size_t)argc + 1) * sizeof *rest);
    if (!rest)
        return EXIT_IO;
    int nrest = 0, modes = 0;
    fmt_mode mode = FMT_PRINT;
    bool options = true;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        fmt_mode m = FMT_PRINT;
        if (i > 0 && options && !strcmp(a, "--check"))
            m = FMT_CHECK;
        else if (i > 0 && options && (!strcmp(a, "-w") || !strcmp(a, "--write")))
            m = FMT_WRITE;
        else if (i > 0 && options && !strcmp(a, "--tokens"))
            m = FMT_TOKENS;
        if (m != FMT_PRINT) {
            modes += m != mode;
            mode = m;
            continue;
        }
        options = options && strcmp(a, "--") != 0;
        rest[nrest++] = argv[i];
    }
    rest[nrest] = NULL;
    cli_options o;
    int first, rc = cli_parse("fmt", nrest, rest, &o, &first, usage);
    if (rc == EXIT_OK && modes > 1) {
        fprintf(stderr, "fray fmt: --check, --write and --tokens exclude each other\n");
        rc = EXIT_USAGE;
    }
    if (rc == EXIT_OK && first >= nrest) {
        fprintf(stderr, "fray fmt: no input files\nTry 'fray fmt --help'.\n");
        rc = EXIT_USAGE;
    }
    compile_options copts;
    if (rc == EXIT_OK && !parse_limits(&o, &copts))
        rc = EXIT_USAGE;
    if (rc != EXIT_OK) {
        free(rest);
        return rc < 0 ? EXIT_OK : rc;
    }
    bool color = o.color == 1;
    if (o.color == -1) {
        const char *no_color = getenv("NO_COLOR");
        color = isatty(STDERR_FILENO) && !(no_color && *no_color);
    }
    int worst = EXIT_OK;
    for (int i = first; i < nrest; i++) {
        int code = format_file(rest[i], &copts, mode, color);
        if (code > worst)
            worst = code;
    }
    free(rest);
    fflush(stdout);
    return worst;
}
