/* kept_files: files read once, kept and served again (see kept_files.h). */
#include "runtime/session/kept_files.h"

#include <errno.h>
#include <string.h>

#include "lang/compile.h"
#include "runtime/base/mem.h"

bool kept_files_add(kept_files *k, const char *path, const char *module, const char *text, size_t len)
{
    for (size_t i = 0; i < k->n; i++)
        if (!strcmp(k->list[i].path, path))
            return true;
    kept_file *grown = mem_grow(k->list, sizeof *grown, &k->cap, k->n + 1);
    if (!grown)
        return false;
    k->list = grown;
    kept_file f = {.path = mem_strndup(path, strlen(path)),
                   .module = module ? mem_strndup(module, strlen(module)) : NULL,
                   .text = mem_strndup(text, len), /* freed as len + 1: it may hold NULs */
                   .len = len};
    if (!f.path || (module && !f.module) || !f.text) {
        mem_strfree(f.path);
        mem_strfree(f.module);
        if (f.text)
            mem_free(f.text, len + 1);
        return false;
    }
    k->list[k->n++] = f;
    return true;
}

bool kept_files_copy(kept_files *to, const kept_files *from)
{
    for (size_t i = 0; i < from->n; i++) {
        const kept_file *f = &from->list[i];
        if (!kept_files_add(to, f->path, f->module, f->text, f->len))
            return false;
    }
    return true;
}

void kept_files_free(kept_files *k)
{
    for (size_t i = 0; i < k->n; i++) {
        mem_strfree(k->list[i].path);
        mem_strfree(k->list[i].module);
        mem_free(k->list[i].text, k->list[i].len + 1);
    }
    if (k->list)
        mem_free(k->list, k->cap * sizeof *k->list);
    *k = (kept_files){0};
}

int kept_files_serve(const kept_files *k, compile_read *rq, char **text, size_t *len)
{
    const kept_file *found = NULL;
    for (size_t i = 0; i < k->n && !found; i++)
        if (!strcmp(k->list[i].path, rq->path))
            found = &k->list[i];
    for (size_t i = 0; i < k->n && !found && rq->module; i++)
        if (k->list[i].module && !strcmp(k->list[i].module, rq->module)) {
            found = &k->list[i];
            rq->served_as = found->path;
        }
    if (!found)
        return ENOENT;
    *text = mem_strndup(found->text, found->len);
    if (!*text)
        return ENOMEM;
    *len = found->len;
    return 0;
}
