/* files: reading rules files from disk (see files.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "lang/files.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/fio.h"

/* Whether the real path `real` lies inside the real directory `dir`. */
static bool inside(const char *real, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/')
        return real[0] == '/';
    return strncmp(real, dir, n) == 0 && real[n] == '/';
}

/* Reads the real path of a file that must stay inside `within`. */
static int read_inside(const char *path, const char *within, size_t limit, char **text, size_t *len)
{
    char *real = realpath(path, NULL);
    if (!real)
        return errno;
    char *base = realpath(within, NULL);
    if (!base) {
        int why = errno;
        free(real); /* realpath's own allocation */
        return why;
    }
    int code = inside(real, base) ? 0 : FILES_ERR_OUTSIDE;
    free(base);
    if (code == 0) {
        /* the path checked is the one opened: it holds no symbolic link
           now, and one put in its last place since is not followed */
        int fd = fio_open(real, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW, 0);
        if (fd < 0) {
            code = errno == ELOOP ? FILES_ERR_OUTSIDE : errno;
        } else {
            code = fio_read_fd(fd, limit, text, len);
            close(fd);
        }
    }
    free(real);
    return code;
}

int files_read(const char *path, const char *within, bool follow_symlinks, size_t limit, char **text, size_t *len)
{
    if (within && !follow_symlinks)
        return read_inside(path, within, limit, text, len);
    return fio_read_file(path, limit, text, len);
}

size_t files_text_end(const char *text, size_t len)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t i = 0;
    while (i < len) {
        unsigned c = p[i];
        if (c == 0)
            return i;
        if (c < 0x80) {
            i++;
            continue;
        }
        /* the bytes that may follow a lead byte (RFC 3629's table) */
        size_t need;
        unsigned lo = 0x80, hi = 0xbf;
        if (c >= 0xc2 && c <= 0xdf)
            need = 1;
        else if (c >= 0xe0 && c <= 0xef)
            need = 2, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
        else if (c >= 0xf0 && c <= 0xf4)
            need = 3, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
        else
            return i;
        if (len - i <= need || p[i + 1] < lo || p[i + 1] > hi)
            return i;
        for (size_t k = 2; k <= need; k++)
            if ((p[i + k] & 0xc0) != 0x80)
                return i;
        i += need + 1;
    }
    return len;
}

void files_bad_byte(unsigned char byte, char *out, size_t cap)
{
    if (byte == 0)
        snprintf(out, cap, "a NUL byte (binary data?)");
    else
        snprintf(out, cap, "byte 0x%02x is not UTF-8", byte);
}

void files_error_text(int code, size_t limit, char *out, size_t cap)
{
    switch (code) {
    case ENOENT: snprintf(out, cap, "no such file"); break;
    case FILES_ERR_OUTSIDE:
        snprintf(out, cap, "leads out of its directory through a symbolic link (see --follow-symlinks)");
        break;
    case FIO_ERR_TOO_BIG:
        snprintf(out, cap, "is too large (more than %zu MiB; see --limit memory=N)", limit >> 20);
        break;
    default:
        snprintf(out, cap, "%s", fio_error_text(code));
        /* strerror's words begin a sentence; here they follow a name */
        if (code > 0 && out[0] && isupper((unsigned char)out[0]) && !isupper((unsigned char)out[1]))
            out[0] = (char)tolower((unsigned char)out[0]);
        break;
    }
}

void files_report_not_text(diag_sink *sink, const char *path, const char *text, size_t end)
{
    /* located at its first bad byte, but no line of it shown: it may be
       anything, a binary file or one never meant to be read */
    source *src = source_new(path, text, end + 1);
    if (!src) {
        diag_report(sink, DIAG_ERROR, NULL, (span){0}, "out of memory");
        return;
    }
    src->not_text = true;
    char why[64];
    files_bad_byte((unsigned char)text[end], why, sizeof why);
    diag_report(sink, DIAG_ERROR, src, (span){(uint32_t)end, (uint32_t)end + 1, 0},
                "not rules text: %s; a rules file is UTF-8 text", why);
    source_free(src);
}
