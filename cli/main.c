/* main: dispatch to the subcommands. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const char usage[] = "Usage: fray COMMAND [OPTION]... [ARG]...\n"
                            "Fray runs tabletop RPG combat rules written in the Fray rules language.\n"
                            "\n"
                            "Commands:\n"
                            "  repl [RULES...]      play at the table: commands, rulings, undo, save\n"
                            "  run FILE...          compile rules and scripts, then run their commands\n"
                            "  check FILE...        report diagnostics only (exit 1 on any error)\n"
                            "  eval [-r RULES] EXPR evaluate one expression, e.g. a range formula\n"
                            "  prob EXPR...         exact probability distributions of dice expressions\n"
                            "  sim SCENARIO         play a scenario many times: who wins, how often\n"
                            "  sweep SCENARIO       a sim at each value of a stat (--set C.STAT=A..B)\n"
                            "  diff A B             two rule systems side by side, by meaning\n"
                            "  disasm FILE...       list the bytecode compiled from FILEs with their source\n"
                            "  fmt FILE...          print rules files in the canonical layout (--check, -w)\n"
                            "  help [TOPIC|WORD]    the language's declarations, clauses, commands, functions\n"
                            "\n"
                            "Options for every command:\n"
                            "  --seed N             seed for the dice (default 0); same seed, same rolls\n"
                            "  -I, --include DIR    look for `use` modules in DIR (also FRAY_PATH=DIR:DIR)\n"
                            "  --follow-symlinks    let imports and modules be symbolic links that lead out\n"
                            "                       of their directory (refused otherwise)\n"
                            "  --color[=WHEN]       color diagnostics: auto (default), always, never\n"
                            "  --max-steps N        instructions allowed per command (default 10000000); in\n"
                            "                       a fight, per turn, and 100 times that for the fight\n"
                            "  --max-depth N        nested calls and triggers allowed (default 200, at most 256)\n"
                            "  --max-creatures N    creatures allowed at once (default 100000)\n"
                            "  --limit NAME=N       any limit by name: steps, depth, memory (MiB), ...;\n"
                            "                       'fray help limits' lists them\n"
                            "  -h, --help           show help for a command\n"
                            "  --version            show the version\n"
                            "\n"
                            "Exit status: 0 ok, 1 an error in rules or a script, 2 usage, 3 a file could\n"
                            "not be read.  Color is off when NO_COLOR is set or output is not a terminal.\n"
                            "Run 'fray COMMAND --help' for a command's own options.\n";

/* What a command printed reached its file: a full disk, or a closed
   pipe's reader gone, is said, and the exit status says so too (a part
   of a simulation half written is no part). */
static int output_written(int code)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return code;
    if (errno != EPIPE)
        fprintf(stderr, "fray: cannot write the output: %s\n",
                errno ? strerror(errno) : "a write failed (a full disk?)");
    return code == EXIT_OK ? EXIT_IO : code;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "help"))
        return cmd_help(argc - 1, argv + 1);
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        fputs(usage, stdout);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "--version")) {
        printf("fray %s\n", fray_version());
        return EXIT_OK;
    }
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } commands[] = {
        {"run", cmd_run},   {"check", cmd_check}, {"eval", cmd_eval},   {"prob", cmd_prob}, {"disasm", cmd_disasm},
        {"repl", cmd_repl}, {"sim", cmd_sim},     {"sweep", cmd_sweep}, {"diff", cmd_diff}, {"fmt", cmd_fmt},
    };
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(cmd, commands[i].name))
            return output_written(commands[i].fn(argc - 1, argv + 1));
    fprintf(stderr, "fray: '%s' is not a command\n", cmd);
    fprintf(stderr, "Try 'fray --help'.\n");
    return EXIT_USAGE;
}
