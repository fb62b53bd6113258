/* output: bars, JSON strings and the terminal's width for the reports. */
#define _POSIX_C_SOURCE 200809L
#include "cli/output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/cli.h"

bool cli_utf8_terminal(void)
{
    if (!isatty(STDOUT_FILENO))
        return false;
    const char *vars[] = {"LC_ALL", "LC_CTYPE", "LANG"};
    for (size_t i = 0; i < 3; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return strstr(v, "UTF-8") || strstr(v, "utf8") || strstr(v, "utf-8");
    }
    return false;
}

int64_t cli_round_width(int64_t w)
{
    for (int64_t ten = 1; ten <= INT64_MAX / 10; ten *= 10)
        for (int k = 0; k < 3; k++) {
            int64_t step = ten * (int64_t[]){1, 2, 5}[k];
            if (step >= w)
                return step;
        }
    return w;
}

int cli_bar(FILE *out, double fraction, int width, bool unicode)
{
    static const char *const eighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
    if (fraction < 0)
        fraction = 0;
    if (fraction > 1)
        fraction = 1;
    int units = (int)(fraction * width * (unicode ? 8 : 1) + 0.5);
    if (!unicode) {
        for (int i = 0; i < units; i++)
            fputc('#', out);
        return units;
    }
    for (int i = 0; i < units / 8; i++)
        fputs("█", out);
    fputs(eighths[units % 8], out);
    return units / 8 + (units % 8 != 0);
}

void cli_json_string_to(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

void cli_json_string(const char *s)
{
    cli_json_string_to(stdout, s);
}

int cli_terminal_width(void)
{
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
        return ws.ws_col;
    uint64_t n;
    return cli_parse_u64(getenv("COLUMNS"), 40, 1000, &n) ? (int)n : 80; /* atoi past 2^31 is undefined */
}

void cli_print_trimmed(const char *text)
{
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        size_t keep = n;
        while (keep > 0 && line[keep - 1] == ' ')
            keep--;
        printf("%.*s\n", (int)keep, line);
        line += n + (end != NULL);
    }
}

void cli_csv_field(const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, stdout);
        return;
    }
    putchar('"');
    for (; *s; s++) {
        if (*s == '"')
            putchar('"');
        putchar(*s);
    }
    putchar('"');
}
