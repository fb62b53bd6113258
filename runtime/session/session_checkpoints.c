/* session_checkpoints: copies of a session's context as it stood after
 * some of its entries, so that the state of play is rebuilt (after an
 * undo, a failed command, a look back) by replaying from the nearest copy
 * instead of from the first entry: loading a rule system again costs
 * milliseconds a time, and a long session's replay grows with it.
 *
 * A copy is taken after an entry once the entries since the latest copy
 * have compiled CHECKPOINT_BYTES of source (a rule system loaded) or
 * numbered CHECKPOINT_ENTRIES. At most SESSION_CHECKPOINTS are kept, spaced
 * more widely the further back they stand: when one more is taken, the one
 * whose going leaves the smallest gap for how far back that gap is goes.
 * So a rebuild at any point replays a part of the distance from the end
 * (the newest copy is never more than CHECKPOINT_ENTRIES back), however
 * long the session, with memory for SESSION_CHECKPOINTS copies.
 * A copy after entry n holds only while the first n entries stand: undo
 * and reroll drop the ones past what is left, a load drops them all.
 *
 * Taking a copy costs nothing as long as the session (it holds what was
 * compiled through the keeps it shares, and shares the log's blocks), so
 * they are taken often: a rebuild near the end replays fewer than
 * CHECKPOINT_ENTRIES entries, and one that copies a checkpoint into the
 * place of the context it replaces copies no array as long as the
 * session either (api_clone_over). */
#include "runtime/session/session.h"

#include "runtime/api/api_files.h"

#define CHECKPOINT_BYTES 16384
#define CHECKPOINT_ENTRIES 64

static void drop(session *s, int i)
{
    fray_close(s->checkpoints[i].f);
    for (int j = i + 1; j < s->ncheckpoints; j++)
        s->checkpoints[j - 1] = s->checkpoints[j];
    s->ncheckpoints--;
}

void checkpoints_trim(session *s, size_t n)
{
    while (s->ncheckpoints > 0 && s->checkpoints[s->ncheckpoints - 1].at > n)
        drop(s, s->ncheckpoints - 1);
}

void checkpoints_clear(session *s)
{
    while (s->ncheckpoints > 0)
        drop(s, s->ncheckpoints - 1);
}

/* The copy to let go when all are kept (never the newest): the one whose
 * going leaves the gap (from the copy before it to the one after) that is
 * the smallest for how far back from the end the gap ends, which keeps
 * the copies spaced in proportion to their distance from the end. */
static int to_drop(const session *s)
{
    int best = 0;
    double best_cost = 0;
    for (int i = 0; i + 1 < s->ncheckpoints; i++) {
        size_t lo = i ? s->checkpoints[i - 1].at : 0, hi = s->checkpoints[i + 1].at;
        double cost = (double)(hi - lo) / (double)(s->ndone - hi + 1);
        if (i == 0 || cost < best_cost)
            best = i, best_cost = cost;
    }
    return best;
}

void checkpoints_maybe(session *s)
{
    if (api_uses(s->f) != s->settled_uses)
        return; /* the context holds more than the timeline */
    const session_checkpoint *last = s->ncheckpoints ? &s->checkpoints[s->ncheckpoints - 1] : NULL;
    size_t at = last ? last->at : 0;
    uint64_t bytes = last ? api_source_bytes(last->f) : 0;
    if (s->ndone <= at || (api_source_bytes(s->f) - bytes < CHECKPOINT_BYTES && s->ndone - at < CHECKPOINT_ENTRIES))
        return;
    /* what was compiled so far is shared by the copies from here on, not
       referenced one by one in each: copies stay cheap however long */
    api_settle(s->f);
    fray *copy = api_clone_kept(s->f); /* nothing of it as long as the session: see program_clone_kept */
    if (!copy)
        return; /* out of memory: rebuilds replay more, nothing else */
    if (s->ncheckpoints == SESSION_CHECKPOINTS)
        drop(s, to_drop(s));
    s->checkpoints[s->ncheckpoints++] = (session_checkpoint){.f = copy, .at = s->ndone};
}

fray *checkpoints_open(const session *s, size_t n, size_t *at, fray **spare)
{
    for (int i = s->ncheckpoints - 1; i >= 0; i--)
        if (s->checkpoints[i].at <= n) {
            /* made in the place of the context it replaces, whose arrays
               as long as the session it takes rather than copying the
               checkpoint's */
            fray *f = *spare ? api_clone_over(s->checkpoints[i].f, *spare) : fray_clone(s->checkpoints[i].f);
            if (f) {
                *at = s->checkpoints[i].at;
                *spare = NULL;
            }
            return f;
        }
    return NULL;
}

bool checkpoints_copy(session *s, const session *from)
{
    for (int i = 0; i < from->ncheckpoints; i++) {
        fray *f = api_clone_kept(from->checkpoints[i].f);
        if (!f)
            return false;
        api_adopt(f, s->opts.search_path, s->opts.search_path_len, session_read_file, s);
        s->checkpoints[s->ncheckpoints++] = (session_checkpoint){.f = f, .at = from->checkpoints[i].at};
    }
    return true;
}
