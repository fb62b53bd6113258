/* cmd_fmt: `fray fmt`, rules files in the canonical layout (fray_format_file):
 * printed, checked (--check) or rewritten in place (-w). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

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

static void print_text(void *user, const char *text)
{
    (void)user;
    fputs(text, stdout);
}

/* Formats one file as mode says; an exit code. */
static int format_file(fray *f, const char *path, fray_format_mode mode)
{
    bool changed;
    fray_status st = fray_format_file(f, path, mode, print_text, NULL, &changed);
    if (st != FRAY_OK)
        return cli_exit_code(st);
    if (mode == FRAY_FORMAT_CHECK && changed) {
        fflush(stdout);
        fprintf(stderr, "%s: not formatted\n", path);
        return EXIT_RULES;
    }
    return EXIT_OK;
}

int cmd_fmt(int argc, char **argv)
{
    /* fmt's own flags are taken out; the shared ones go to cli_parse */
    char **rest = malloc(((size_t)argc + 1) * sizeof *rest);
    if (!rest)
        return EXIT_IO;
    int nrest = 0, modes = 0;
    fray_format_mode mode = FRAY_FORMAT_PRINT;
    bool options = true;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        fray_format_mode m = FRAY_FORMAT_PRINT;
        if (i > 0 && options && !strcmp(a, "--check"))
            m = FRAY_FORMAT_CHECK;
        else if (i > 0 && options && (!strcmp(a, "-w") || !strcmp(a, "--write")))
            m = FRAY_FORMAT_WRITE;
        else if (i > 0 && options && !strcmp(a, "--tokens"))
            m = FRAY_FORMAT_TOKENS;
        if (m != FRAY_FORMAT_PRINT) {
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
    fray *f = NULL;
    if (rc == EXIT_OK && !(f = cli_open(&o)))
        rc = EXIT_USAGE;
    if (rc != EXIT_OK) {
        free(rest);
        return rc < 0 ? EXIT_OK : rc;
    }
    int worst = EXIT_OK;
    for (int i = first; i < nrest; i++) {
        int code = format_file(f, rest[i], mode);
        if (code > worst)
            worst = code;
    }
    fray_close(f);
    free(rest);
    fflush(stdout);
    return worst;
}
