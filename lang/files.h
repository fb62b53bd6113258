/* files: how a rules file is read from disk. It is opened once, through
 * runtime/fio (a regular file, read up to a limit; never a directory, pipe
 * or device); a file that must stay inside a directory (an import, a `use`
 * module) is resolved to its real path first, and refused when a symbolic
 * link leads out of that directory; and what is read is rules text only
 * when it is UTF-8 without NUL bytes. */
#ifndef FRAY_LANG_FILES_H
#define FRAY_LANG_FILES_H

#include <stdbool.h>
#include <stddef.h>

#include "lang/diag.h"

/* An error of files_read beyond fio's (errno values and FIO_ERR_ codes). */
enum {
    FILES_ERR_OUTSIDE = -100, /* its real path is outside the directory it must stay in */
};

/* Reads the file at path into *text (NUL-terminated, mem_alloc'd, *len + 1
 * bytes), at most `limit` bytes. With `within` (a directory), the file's
 * real path must lie inside within's real path, unless follow_symlinks;
 * the file opened is then the real path checked. Returns 0, or an errno
 * value (ENOENT when there is no such file), a FIO_ERR_ code or
 * FILES_ERR_OUTSIDE. */
int files_read(const char *path, const char *within, bool follow_symlinks, size_t limit, char **text, size_t *len);

/* Where text stops being rules text: the offset of its first NUL byte or
 * of the first byte that does not belong to a valid UTF-8 sequence (no
 * overlong forms, surrogates or code points past U+10FFFF); len when it is
 * rules text throughout. */
size_t files_text_end(const char *text, size_t len);

/* Why a byte ends rules text, in words: "a NUL byte (binary data?)" or
 * "byte 0xe9 is not UTF-8". */
void files_bad_byte(unsigned char byte, char *out, size_t cap);

/* Reports that the file at path is not rules text, at its first bad byte
 * (text[end]), with no line of it shown. */
void files_report_not_text(diag_sink *sink, const char *path, const char *text, size_t end);

/* Words for a code of files_read, after the file's name ("'x.rules' is a
 * directory"): "is a directory", "is too large (more than 1024 MiB; see
 * --limit memory=N)" for a limit of 1 GiB, "does not exist", ... */
void files_error_text(int code, size_t limit, char *out, size_t cap);

#endif
