/* hidden: what the players do not know. A creature may be hidden whole
 * (`creature ... hidden`, `hide NAME`), or be seen with some of its stats
 * kept from them (`hide NAME hp`). A line of the transcript tells
 * something hidden when it is said in a hidden creature's action or turn,
 * when it names a hidden creature, or when it names a creature and one of
 * its hidden stats; such a line is marked, and a view for the players
 * leaves it out. Names are matched as whole words, so that a line is
 * rather hidden too often than shown once too often. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "runtime/combat/world.h"

static bool word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Does text hold word as a whole word (folding case if asked)? */
static bool has_word(const char *text, const char *word, bool fold)
{
    size_t n = strlen(word);
    if (n == 0)
        return false;
    for (const char *s = text; *s; s++) {
        if (s > text && word_char(s[-1]))
            continue;
        if ((fold ? strncasecmp(s, word, n) : strncmp(s, word, n)) == 0 && !word_char(s[n]))
            return true;
    }
    return false;
}

static bool secret(const creature *cr)
{
    return cr->hidden || cr->nhidden_stats > 0;
}

static bool names_creature(const vm *v, const creature *cr, const char *text)
{
    if (has_word(text, cr->name, false))
        return true;
    return cr->display >= 0 && strstr(text, program_string(v->p, cr->display)) != NULL;
}

static bool same_stat(const vm *v, int a, int b)
{
    return v->p->decls[a].name == v->p->decls[b].name; /* an override is the same stat */
}

bool hidden_stat(const vm *v, int c, int decl_index)
{
    const creature *cr = &v->world->creatures[c];
    for (int i = 0; i < cr->nhidden_stats; i++)
        if (same_stat(v, cr->hidden_stats[i], decl_index))
            return true;
    return false;
}

static bool hidden_creature(const vm *v, int c)
{
    return c >= 0 && (size_t)c < v->world->ncreatures && v->world->creatures[c].hidden;
}

bool hidden_line(const vm *v, const char *text, bool of_play)
{
    if (v->world->secrets <= 0)
        return false;
    const combat *cb = &v->world->cb;
    if (of_play && hidden_creature(v, cb->actor))
        return true;
    if (of_play && cb->active && cb->in_turn && cb->turn >= 0 && cb->turn < cb->norder &&
        hidden_creature(v, cb->order[cb->turn].creature))
        return true;
    for (size_t c = 0; c < v->world->ncreatures; c++) {
        const creature *cr = &v->world->creatures[c];
        if (!secret(cr) || !names_creature(v, cr, text))
            continue;
        if (cr->hidden)
            return true;
        for (int i = 0; i < cr->nhidden_stats; i++)
            if (has_word(text, program_string(v->p, v->p->decls[cr->hidden_stats[i]].name), true))
                return true;
    }
    return false;
}

/* Keeps the count of creatures with something hidden as c changes. */
static void change(vm *v, int c, void (*how)(creature *, int), int arg)
{
    creature *cr = &v->world->creatures[c];
    bool was = secret(cr);
    how(cr, arg);
    vm_play_changed(v);
    v->world->secrets += (int32_t)secret(cr) - (int32_t)was;
}

static void set_hidden(creature *cr, int on)
{
    cr->hidden = on;
}

static void add_stat(creature *cr, int decl_index)
{
    cr->hidden_stats[cr->nhidden_stats++] = decl_index;
}

static void drop_stat(creature *cr, int at)
{
    cr->hidden_stats[at] = cr->hidden_stats[--cr->nhidden_stats];
}

void hidden_spawn(vm *v, int c, bool hidden)
{
    change(v, c, set_hidden, hidden);
}

bool hidden_set(vm *v, int c, bool hide, const value *stats, int nstats, span at)
{
    const char *name = v->world->creatures[c].name;
    if (nstats == 0) {
        if (v->world->creatures[c].hidden == hide) {
            combat_print(v, "%s is %s", name, hide ? "hidden already" : "not hidden");
            return true;
        }
        change(v, c, set_hidden, hide);
        const creature *cr = &v->world->creatures[c];
        combat_say(v, "%s is %s%s", name, hide ? "hidden from the players" : "revealed to the players",
                   !hide && cr->nhidden_stats ? " (its hidden stats stay hidden)" : "");
        return true;
    }
    /* too many is refused before any is hidden */
    int more = 0;
    for (int i = 0; hide && i < nstats; i++) {
        bool again = hidden_stat(v, c, (int)stats[i].num);
        for (int k = 0; k < i; k++)
            again |= same_stat(v, (int)stats[k].num, (int)stats[i].num);
        more += !again;
    }
    if (v->world->creatures[c].nhidden_stats + more > VM_HIDDEN_STATS_MAX)
        return vm_error(v, at, "a creature may have %d stats hidden, not %d (%s has %d hidden already)",
                        VM_HIDDEN_STATS_MAX, v->world->creatures[c].nhidden_stats + more, name,
                        v->world->creatures[c].nhidden_stats);
    for (int i = 0; i < nstats; i++) {
        int d = (int)stats[i].num;
        const char *stat = program_string(v->p, v->p->decls[d].name);
        const creature *cr = &v->world->creatures[c];
        int found = -1;
        for (int k = 0; k < cr->nhidden_stats; k++)
            if (same_stat(v, cr->hidden_stats[k], d))
                found = k;
        if ((found >= 0) == hide) {
            combat_print(v, "%s's %s is %s", name, stat, hide ? "hidden already" : "not hidden");
            continue;
        }
        if (hide)
            change(v, c, add_stat, d);
        else
            change(v, c, drop_stat, found);
        combat_say(v, "%s's %s is %s", name, stat, hide ? "hidden from the players" : "shown to the players");
    }
    return true;
}
