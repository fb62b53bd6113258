/* cmd_run: `fray run`, `fray check` and `fray disasm`, which differ only in
 * what they do after compiling each file. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

typedef enum { MODE_RUN, MODE_CHECK, MODE_DISASM } mode;

static const char usage_run[] = "Usage: fray run [OPTION]... FILE...\n"
                                "Compile each FILE (rules and play commands) and run its commands in order.\n"
                                "Output goes to stdout, diagnostics to stderr. Stops at the first file with\n"
                                "an error unless --keep-going is given.\n"
                                "\n"
                                "  --seed N        seed for the dice\n"
                                "  --keep-going    run the remaining files after an error\n"
                                "  --quiet         print no transcript of play (print statements still print)\n"
                                "  --state         at the end, print the state of play as JSON (see fray.h:\n"
                                "                  fray_state): the encounter, and every creature's stats\n"
                                "                  and conditions\n"
                                "  --dice DIE=FACE,...\n"
                                "                  the first dice of that kind show these faces, as if the\n"
                                "                  script began with 'force DIE FACE, ...' (--dice d20=20,1)\n"
                                "  -I DIR          search DIR for `use` modules\n"
                                "  --max-steps N   instructions allowed per command\n";
static const char usage_check[] = "Usage: fray check [OPTION]... FILE...\n"
                                  "Compile each FILE and report every diagnostic; run nothing.\n"
                                  "Exit status 1 if any file has an error.\n"
                                  "\n"
                                  "  --syntax-only   parse only (names and types are not checked)\n"
                                  "  -I DIR          search DIR for `use` modules\n";
static const char usage_disasm[] = "Usage: fray disasm [OPTION]... FILE...\n"
                                   "Compile the FILEs and list every bytecode chunk with its source lines.\n";
static const char *const usages[] = {usage_run, usage_check, usage_disasm};

static const char *const names[] = {"run", "check", "disasm"};

static void print_line(void *user, const char *text)
{
    (void)user;
    puts(text);
}

/* --dice DIE=FACE,...: the command `force DIE FACE, ...`, run first; its
   errors are located in "--dice". */
static int force_dice(fray *f, const cli_options *o)
{
    for (int i = 0; i < o->ndice; i++) {
        char text[1024];
        const char *eq = strchr(o->dice[i], '=');
        int n = snprintf(text, sizeof text, "force %.*s %s", (int)(eq - o->dice[i]), o->dice[i], eq + 1);
        if (n < 0 || (size_t)n >= sizeof text) {
            fprintf(stderr, "fray run: --dice %s: too long (at most %zu bytes)\n", o->dice[i], sizeof text - 7);
            return EXIT_USAGE;
        }
        int code = cli_exit_code(fray_run_string(f, "--dice", text, (size_t)n));
        if (code != EXIT_OK)
            return code;
    }
    return EXIT_OK;
}

static int run_files(mode m, int argc, char **argv)
{
    cli_options o;
    int first, rc = cli_parse(names[m], argc, argv, &o, &first, usages[m]);
    if (rc != EXIT_OK)
        return rc < 0 ? EXIT_OK : rc;
    if (first >= argc) {
        fprintf(stderr, "fray %s: no input files\nTry 'fray %s --help'.\n", names[m], names[m]);
        return EXIT_USAGE;
    }
    int worst = EXIT_OK;
    /* One context for all files: later files see earlier rules. `check`
       uses a fresh context per file so each is judged on its own. */
    fray *f = m == MODE_CHECK ? NULL : cli_open(&o);
    if (m != MODE_CHECK && !f)
        return EXIT_IO;
    worst = force_dice(f, &o);
    if (worst != EXIT_OK) {
        fray_close(f);
        return worst;
    }
    for (int i = first; i < argc; i++) {
        fray_status st;
        if (m == MODE_CHECK) {
            fray *g = cli_open(&o);
            if (!g)
                return EXIT_IO;
            st = fray_check_rules(g, argv[i], o.syntax_only);
            fray_close(g);
        } else if (m == MODE_DISASM) {
            st = fray_check_rules(f, argv[i], false);
        } else {
            st = fray_run_rules(f, argv[i]);
        }
        int code = cli_exit_code(st);
        if (code > worst || (worst == EXIT_OK && code != EXIT_OK))
            worst = code;
        if (code != EXIT_OK && m == MODE_RUN && !o.keep_going)
            break;
    }
    if (m == MODE_DISASM && worst == EXIT_OK)
        fray_disasm(f, stdout);
    if (m == MODE_RUN && o.state && worst == EXIT_OK)
        worst = cli_exit_code(fray_state(f, print_line, NULL));
    fray_close(f);
    fflush(stdout);
    return worst;
}

int cmd_run(int argc, char **argv)
{
    return run_files(MODE_RUN, argc, argv);
}
int cmd_check(int argc, char **argv)
{
    return run_files(MODE_CHECK, argc, argv);
}
int cmd_disasm(int argc, char **argv)
{
    return run_files(MODE_DISASM, argc, argv);
}
