/* world: the state of play a vm runs in, apart from the interpreter
 * (runtime/core/vm.h), as Lua keeps global_State apart from lua_State: the
 * creatures and their stats, the encounter, the economy's ledgers, the
 * effects in force, the tally of a simulated run, and the GM's callbacks.
 * A vm made by world_open carries one (v->world) and the calls the core
 * makes into it (vm_world_ops); combat code reaches it as v->world. */
#ifndef FRAY_WORLD_H
#define FRAY_WORLD_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/combat/combat.h"
#include "runtime/combat/tally.h"
#include "runtime/core/vm.h"

/* Stats of one creature that `hide NAME STAT` may keep from the players. */
#define VM_HIDDEN_STATS_MAX 8

/* A marked box of a track (tracks.c): the track, the box's place in it,
   and the name it carries (nothing, or a value copied with vm_keep). */
typedef struct track_mark {
    int32_t track, box;
    value name;
} track_mark;

typedef struct creature {
    char *name;   /* unique: goblin_2 */
    int display;  /* program string id or -1 */
    int side;     /* index into the rules' sides, or -1 */
    int decl;     /* the creature template it came from (rules creatures), or -1 */
    int tactic;   /* tactic index, or -1 */
    value *stats; /* by stat slot; V_NIL = not set, use the declared default */
    /* Moves on (world_touch) whenever a plain read of one of its stats
       could read otherwise: a value set in a slot, an effect put on it or
       taken off (stat_memo.h) */
    uint64_t serial;
    /* play */
    bool in_play;  /* taken into the encounter */
    bool gone;     /* taken out of play by the GM (`remove NAME`): in no encounter again */
    bool acted;    /* has had a turn in this encounter */
    bool delaying; /* waits to take its turn later */
    bool forfeit;  /* gives up its next turn to move in the order */
    bool surprised;
    bool resumed; /* its delayed turn, already started, goes on */
    /* whether it is out of the fight, as went_out and came_back last told
       it (out_known: told since its last change that nothing heard) */
    bool out_told, out_known;
    int32_t forfeit_next_to; /* where it moves: a creature, -1 */
    bool forfeit_after;
    uint32_t turn_epoch; /* turns started: per-turn counts reset with it */
    bool turn_begun;     /* has started a turn in this encounter: its "most recent turn" exists */
    uint32_t turn_round; /* the round (its epoch) of its last turn */
    int32_t effects;     /* first effect on it, -1 */
    counter *ledger;     /* spent actions: combat.h, ledger.c */
    int32_t *held;       /* applied effects of each condition (effect_index.c) */
    int32_t held_len;
    /* space */
    bool placed;
    int32_t x, y;
    int32_t zone; /* word id, -1 */
    /* what the players do not know: the creature itself (`hidden`, `hide
       NAME`), or only these stats of it (`hide NAME STAT`), by decl index */
    bool hidden;
    uint8_t nhidden_stats;
    int32_t hidden_stats[VM_HIDDEN_STATS_MAX];
    /* its tracks' marked boxes, in the order they were marked */
    track_mark *marks;
    size_t nmarks, marks_cap;
} creature;

/* What a stat read needs of a declaration, found once (world.c). */
typedef struct decl_info {
    int latest;   /* the declaration that stands (the last override) */
    int first;    /* the first of its name: modifiers and slots go by it */
    int stat;     /* its stat record, or -1 */
    int resource; /* its resource record, or -1 */
    /* for a stat read without a call: whether a value set on the creature
       (in its slot) is the value (not for a derived stat); its default when
       the formula is a constant (has_fixed) */
    bool direct, has_fixed;
    bool modifiable; /* a stat (not a resource): modifiers may change it */
    int alias;       /* or its default is this stat of the same creature, or -1 */
    value fixed;
} decl_info;

/* What a side holds (sides.c): its values of the stats declared `per
   side`, by stat slot (nil: never set). */
typedef struct side_state {
    value *stats;
    int nstats;
} side_state;

/* A tag (tags.c): a name made up in play on a creature, a side, a zone
   or the encounter, with its free uses and its duration. */
enum { TAG_ON_CREATURE, TAG_ON_SIDE, TAG_ON_ZONE, TAG_ON_ENCOUNTER };
typedef struct tag {
    char *name;     /* owned */
    uint8_t kind;   /* TAG_ON_* */
    int32_t holder; /* a creature, a side's index, a zone's word id; 0 for the encounter */
    int32_t uses;   /* free uses left */
    int32_t id;     /* for good: what its duration's effect names */
    int32_t effect; /* that effect, or -1: until removed */
    bool declared;  /* came with its holder's declaration (`zone hill with high`) */
} tag;

struct world {
    int *stat_slot;       /* per decl index: slot in creature->stats, -1 if not a stat */
    decl_info *decl_info; /* per decl index */
    size_t stat_slot_cap, decl_info_cap;
    size_t synced_decls; /* declarations already given a slot (or none) */
    int synced_stats, synced_resources;
    int nslots;

    creature *creatures;
    size_t ncreatures, creatures_cap;
    /* creatures hidden whole or in part (hidden.c): while none is, no line
       of the transcript is searched for them */
    int32_t secrets;
    int32_t *name_index; /* open addressing over creature names, -1 empty */
    size_t name_index_cap;

    /* by side index (the rules' sides) */
    side_state *side_state;
    size_t nside_state;
    /* the tags in play, in the order they were added */
    tag *tags;
    size_t ntags, tags_cap;
    int32_t tag_serial;

    /* the state of play */
    combat cb;
    /* a formula kept with the stats it read runs: what its reads note
       (stat_memo.h), else NULL; and which chunks are such formulas */
    struct stat_memo_record *recording;
    uint64_t serials; /* the last creature.serial given */
    uint8_t *memo_fits;
    size_t memo_fits_n;
    uint32_t memo_fits_generation;
    size_t ledgers_made; /* creatures [0, ledgers_made) have their ledger */
    int held_len;        /* and their held counts for this many conditions */
    int ledger_len;      /* counters per creature, and where each part starts */
    int ledger_slot_turn, ledger_slot_round, ledger_debt, ledger_lock, ledger_exchange, ledger_action, ledger_trigger;
    int ledger_nslots, ledger_nexclusives, ledger_nexchanges, ledger_nactions, ledger_ntriggers;
    counter *ledger_try; /* a copy of one creature's ledger, ledger_len long, that a cost is tried on */
    bool ledger_trying;  /* ledger_try is in use */

    /* what a simulated run tallies (tally.h); NULL when not simulating */
    tally *tally;

    /* The GM's answers at the REPL; NULL in scripts. Each follows the
       error convention (core/vm.h): false only when the command must stop
       (cancelled at the question, or answers that never fit), its error
       recorded. ask: *answered when the GM gave an answer (else the
       default stands), then *answer, and *for_all when it is for every
       creature (or side) the ruling is asked of, not this one only.
       offer: a reaction or held action, *take it or not. */
    bool (*ask)(void *user, int ruling, const char *question, value *answer, bool *answered, bool *for_all);
    bool (*offer)(void *user, const char *question, bool *take);
    void *ask_user;
};

/* A vm with a world of its own: the interpreter (vm_new) and an empty
 * state of play, the core's calls into it registered. NULL when out of
 * memory. world_close frees both. */
vm *world_open(program *p, uint64_t seed, const vm_limits *limits);
void world_close(vm *v);
/* The calls a vm makes into its world (for a copy made by world_clone). */
extern const vm_world_ops world_ops;
/* Whether v is between commands: nothing under way on its stack, in an
 * exact walk, a simulation or a roll. */
bool world_at_rest(const vm *v);
/* A copy of v, its own, running p (a copy of v's program); NULL when v is
 * not at rest or out of memory (world_clone.c). */
vm *world_clone(const vm *v, program *p);

/* Creatures and their stats (world.c). */
int world_find_creature(const vm *v, const char *name);
int world_add_creature(vm *v, const char *name, int decl, span at);
bool world_get_stat(vm *v, int creature, int decl_index, value *out);

/* Sets a stat, clamped to its declared `in LO..HI`. */
bool world_set_stat(vm *v, int creature, int decl_index, value x, span at);
/* x held to a stat's bound (`in LO..HI`, a resource's min and max), the
   bound's formula read for c (-1: for no creature, as a side's stat). */
bool world_clamp(vm *v, const rexpr *bound, int c, value *x, bool low);
int world_stat_slot(vm *v, int decl_index);
/* Whether what a read of the stat gives is worked out by the rules (a
   derived stat, a default that is a formula) rather than the value set on
   the creature, a constant default, or a resource's count. */
bool world_stat_computed(vm *v, int decl_index);
/* Whether a creature's state shows this declaration: a stat or resource
 * the creature was given, or one the encounter tracks (defaults are not
 * news), unless it is `internal`. The tracker, `show` and the JSON state
 * all ask it. */
bool world_stat_shown(vm *v, int c, int decl_index);
/* Whether the declaration of this stat that stands is `internal`. */
bool world_stat_internal(vm *v, int decl_index);

/* Stats held per side (sides.c). Whether decl_index is one; a side's
   value read or set (*set, when not NULL), or its creature c's side's; the
   world's call for `party.pool`; a line for each side that holds any, for
   show; and the sides' values freed with the world or copied with it. */
bool sides_holds(vm *v, int decl_index);
bool sides_read(vm *v, int side, int decl_index, value *out, span at);
bool sides_write(vm *v, int side, int decl_index, value x, span at);
bool sides_creature_stat(vm *v, int c, int decl_index, const value *set, value *out, span at);
bool sides_stat(vm *v, value side, int decl_index, const value *set, value *out, span at);
void sides_show(vm *v);
/* The encounter's tags on a line of their own, if it has any; `show SIDE`
   and `show encounter` (false: x is neither). */
void sides_show_encounter(vm *v);
bool sides_show_word(vm *v, value x);
/* A line of the table's variables (a top-level `let`) that hold something. */
void sides_show_table(vm *v);
void sides_free(struct world *w);
bool sides_clone(struct world *w, const struct world *from);

/* Tags (tags.c): the builtins of tags (one function, told apart by id);
   `tag` and `untag` at the table; the end of a tag's duration (effects.c
   calls it); the tags a holder is declared with (`zone hill with high`),
   added without a word; its tags added to a line (`before` first, those it
   was declared with apart, in brackets) and whether a holder has any;
   freed with the world, or copied with it. */
bool tags_builtin(vm *v, int id, value *args, int argc, span at, value *out);
bool tags_command(vm *v, bool add_it, value who, value name, value uses, value lasts, span at);
bool tags_expired(vm *v, int32_t id, const char *why, span at);
bool tags_declare(vm *v, uint8_t kind, int32_t holder_id, const char *name, span at);
void tags_show_declared(vm *v, uint8_t kind, int32_t holder_id, combat_line *line);
void tags_show_on(vm *v, uint8_t kind, int32_t holder_id, combat_line *line, const char *before);
bool tags_any_on(const vm *v, uint8_t kind, int32_t holder_id);
void tags_free(struct world *w);
bool tags_clone(struct world *w, const struct world *from);

/* Play commands (play.c). */
bool play_command(vm *v, int cmd, int operand, span at);
/* The builtins of play (combat_builtins.c): those builtins.def gives the combat layer. */
bool combat_builtin(vm *v, int id, value *args, int argc, span at, value *out);
/* The function of a builtin of play in combat's table, or NULL (for
   tests: each builtin has one function, in one layer's table). */
builtin_fn *combat_builtin_fn(int id);
/* Is c part of what is going on: in the encounter, or anyone when there
   is no encounter. */
static inline bool world_present(const vm *v, int c)
{
    return !v->world->creatures[c].gone && (!v->world->cb.active || v->world->creatures[c].in_play);
}
/* A creature's display: its name. */
const char *world_name(const vm *v, int c);
/* Adds a creature from a template (play.c), taking it into play. */
bool world_spawn(vm *v, int template_index, span at);
/* A stat of a creature as show and the tracker write it (`hp 3/10`), or
   "?" where it cannot be read for a display; it never fails. */
size_t play_stat_text(vm *v, int c, int decl_index, char *buf, size_t cap);
/* The same text, whole however long (a list), or NULL when out of
   memory; freed with mem_strfree. */
char *play_stat_text_whole(vm *v, int c, int decl_index);
/* `damage NAME N [KIND]` and `heal NAME N` (damage.c): the procedure the
   rules declare for it, run on the creature, then the resource echoed.
   args: the creature, the amount, the kind or nil. */
bool play_damage(vm *v, bool heal, const value *args, int argc, span at);

/* c's stats may read otherwise from now on (creature.serial). */
static inline void world_touch(struct world *w, int c)
{
    w->creatures[c].serial = ++w->serials;
}

/* --- plain stat reads, inline: the commonest reads of play ---------------------- */

static inline bool world_slots_in_sync(const vm *v)
{
    const struct world *w = v->world;
    return w->synced_decls >= v->p->ndecls && w->synced_stats == v->r->nstats &&
           w->synced_resources == v->r->nresources;
}

/* One step of a read without a call: true with *out when the value set
   on the creature (or a constant default) is the stat, with nothing that
   could modify it; else false, with *next the stat whose value stands in
   for an unset one (an alias), or -1 when the full read is needed. */
static inline bool world_plain_read(const struct world *w, const creature *cr, bool unmodified, int d, value *out,
                                    int *next)
{
    const decl_info *di = &w->decl_info[d];
    *next = -1;
    if (!di->direct || (di->modifiable && !unmodified))
        return false;
    value cur = cr->stats[w->stat_slot[d]];
    if (cur.type != V_NIL || di->has_fixed) {
        *out = cur.type != V_NIL ? cur : di->fixed;
        return true;
    }
    *next = di->alias;
    return false;
}

/* Most reads: world_plain_read through at most four aliases. The slots must be
   in sync. */
static inline bool world_stat_at_hand(const vm *v, int c, int decl_index, value *out)
{
    const struct world *w = v->world;
    const creature *cr = &w->creatures[c];
    bool unmodified = cr->effects < 0 && v->r->nholds_conditions == 0;
    for (int hops = 0; hops < 4 && decl_index >= 0; hops++)
        if (world_plain_read(w, cr, unmodified, decl_index, out, &decl_index))
            return true;
    return false;
}

/* A plain read of a stat (the value set on the creature, or a constant
   default, with nothing that could modify it): false when the read is
   not plain, and then *out is not set. */
static inline bool world_plain_stat(const vm *v, int c, int decl_index, value *out)
{
    return world_slots_in_sync(v) && world_stat_at_hand(v, c, decl_index, out);
}

#endif
