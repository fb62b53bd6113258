/* api_format: fray_format_file, a rules file in the canonical layout of
 * lang/format.c, printed, checked or rewritten in place. */
#include <errno.h>
#include <string.h>

#include "lang/files.h"
#include "lang/format.h"
#include "runtime/api/api_internal.h"
#include "runtime/base/fio.h"
#include "runtime/base/mem.h"
#include "runtime/base/safefile.h"

/* Replaces path whole, as a save is replaced (runtime/base/safefile.h): a
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

/* The file's text as a source, read as a rules file is for any command:
   once, a regular file, up to the memory a command may take, and only if
   it is rules text; NULL with the status when it cannot be. */
static source *read_rules_text(fray *f, const char *path, fray_status *st)
{
    size_t len = 0, limit = f->v->limits.memory;
    char *text;
    int code = fio_read_file(path, limit, &text, &len);
    if (code != 0) {
        char why[256];
        files_error_text(code, limit, why, sizeof why);
        diag_report(&f->sink, DIAG_ERROR, NULL, (span){0}, "cannot read '%s': %s", path, why);
        *st = FRAY_ERR_IO;
        return NULL;
    }
    size_t end = files_text_end(text, len);
    if (end < len) {
        files_report_not_text(&f->sink, path, text, end);
        mem_free(text, len + 1);
        *st = FRAY_ERR_RULES;
        return NULL;
    }
    source *src = source_new(path, text, len);
    mem_free(text, len + 1);
    if (!src) {
        diag_report(&f->sink, DIAG_ERROR, NULL, (span){0}, "out of memory");
        *st = FRAY_ERR_IO;
    }
    return src;
}

/* What the layout made of src: given out, written back, or only compared. */
static fray_status deliver_layout(fray *f, const source *src, fray_format_mode mode, const char *text, size_t len,
                                  fray_output_fn out, void *user, bool *changed)
{
    /* a byte order mark the file began with is kept, and is no part of the layout */
    *changed = len != src->len || memcmp(text, src->text, len) != 0;
    const char *bom = src->bom && mode != FRAY_FORMAT_TOKENS ? SOURCE_BOM : "";
    if (mode == FRAY_FORMAT_PRINT || mode == FRAY_FORMAT_TOKENS) {
        size_t nb = strlen(bom);
        char *whole = mem_alloc(nb + len + 1);
        if (!whole) {
            diag_report(&f->sink, DIAG_ERROR, NULL, (span){0}, "out of memory");
            return FRAY_ERR_IO;
        }
        memcpy(whole, bom, nb);
        memcpy(whole + nb, text, len);
        whole[nb + len] = '\0';
        out(user, whole);
        mem_free(whole, nb + len + 1);
    } else if (mode == FRAY_FORMAT_WRITE && *changed) {
        int why = write_in_place(src->name, bom, text, len);
        if (why != 0) {
            diag_report(&f->sink, DIAG_ERROR, NULL, (span){0}, "cannot write '%s': %s", src->name, fio_error_text(why));
            return FRAY_ERR_IO;
        }
    }
    return FRAY_OK;
}

fray_status fray_format_file(fray *f, const char *path, fray_format_mode mode, fray_output_fn out, void *user,
                             bool *changed)
{
    api_use(f);
    *changed = false;
    fray_status st = FRAY_OK;
    source *src = read_rules_text(f, path, &st);
    if (!src)
        return st;
    compile_options copts = {.max_string = f->v->limits.string_bytes,
                             .max_nesting = f->v->limits.nesting,
                             .max_memory = f->v->limits.memory};
    char *text;
    size_t len;
    format_status fs = mode == FRAY_FORMAT_TOKENS ? format_tokens(src, &copts, &f->sink, &text, &len)
                                                  : format_source(src, &copts, &f->sink, &text, &len);
    if (fs == FORMAT_SYNTAX) {
        st = FRAY_ERR_RULES;
    } else if (fs == FORMAT_NOMEM) {
        diag_report(&f->sink, DIAG_ERROR, NULL, (span){0}, "out of memory");
        st = FRAY_ERR_IO;
    } else if (fs == FORMAT_UNSAFE) {
        diag_report(&f->sink, DIAG_ERROR, NULL, (span){0},
                    "'%s' left as it is: its layout would change its tokens (a bug in fray fmt)", path);
        st = FRAY_ERR_RULES;
    } else {
        st = deliver_layout(f, src, mode, text, len, out, user, changed);
    }
    format_free(text, len);
    source_free(src);
    return st;
}
