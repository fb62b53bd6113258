/* entry_files: the files a session's entry read (imports, `use` modules
 * from disk), kept with it, and the compiler's reader that serves them
 * (see entry_files in session.h). An entry that runs for the first time
 * reads from disk and keeps what it read; from then on, in this process
 * or from a save or journal in another, it reads only what it kept. */
#include <errno.h>

#include "lang/compile.h"
#include "runtime/base/mem.h"
#include "runtime/session/session.h"

int session_read_file(void *user, const compile_options *opts, compile_read *rq, char **text, size_t *len)
{
    session *s = user;
    const session_entry *e = s->replaying ? s->replaying : s->recording;
    if (!e || e->files.from == FILES_DISK) /* not an entry (:explain N), or one that kept nothing */
        return compile_read_disk(opts, rq, text, len);
    if (e->files.from == FILES_KEPT)
        return kept_files_serve(&e->files.kept, rq, text, len);
    int code = compile_read_disk(opts, rq, text, len);
    if (code == 0 && !kept_files_add(&s->recording->files.kept, rq->path, rq->module, *text, *len)) {
        mem_free(*text, *len + 1);
        return ENOMEM;
    }
    return code;
}
