/* combat: the state of play the VM holds beside its values: the encounter
 * (round, phase, turn, the order of turns), every creature's ledger of
 * spent actions, the effects in force (conditions, cooldowns, relations,
 * held actions) with the queues that end them, the answers to rulings, the
 * map, and the log. Each mechanism lives in its own file:
 *
 *   encounter.c   rounds, phases and turns; begin and end
 *   initiative.c  the order of turns
 *   ledger.c      the action economy
 *   effects.c     conditions, durations, modifiers, relations
 *   events.c      events, triggers, reactions, rulings
 *   checks.c      rolls with modifiers and their breakdowns
 *   grid.c        squares, distance, sight, movement
 *   zones.c       zones, and the range bands between them
 *   groups.c      relations held by a whole group
 *   log.c         the transcript and explain
 *   hidden.c      what the players do not know, and the lines that tell it
 *
 * Nothing here knows a rule system: every number and name comes from the
 * rules tables (rules.h). */
#ifndef FRAY_COMBAT_H
#define FRAY_COMBAT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "runtime/base/text.h"
#include "runtime/core/program.h"
#include "runtime/core/rules.h"
#include "runtime/core/value.h"

/* A count that resets by itself: it holds for one epoch (a creature's turn,
 * a round, an encounter...) and reads as 0 once the epoch has moved on, so
 * nothing has to sweep every creature when a round starts. */
typedef struct counter {
    int32_t n;
    uint32_t epoch;
} counter;

/* --- effects --------------------------------------------------------------- */

typedef enum { EFF_CONDITION, EFF_COOLDOWN, EFF_RELATION, EFF_HOLD, EFF_TAG } effect_kind;

/* The queue that ticks an effect down. */
typedef enum {
    Q_NONE,       /* lasts until removed */
    Q_TURN_START, /* the anchor creature's turn starts */
    Q_TURN_END,   /* the anchor creature's turn ends */
    Q_ROUND_START,
    Q_ROUND_END,
    Q_PHASE,     /* a phase of the round starts */
    Q_POSITION,  /* the turn at an initiative position comes round */
    Q_ENCOUNTER, /* `end encounter` */
    Q_PERIOD,    /* the end of a period the rules declare: Q_PERIOD + its index */
} queue_kind;

typedef struct effect {
    uint8_t kind;  /* effect_kind */
    uint8_t queue; /* queue_kind */
    bool live;
    int32_t what;    /* condition, action (cooldown), relation, or hold index */
    int32_t bearer;  /* the creature it is on (a relation's first role) */
    int32_t partner; /* a relation's second role, or -1 */
    int32_t source;  /* who caused it, or -1 */
    int32_t anchor;  /* whose turns or which phase count it down, or -1 */
    int32_t remaining;
    int32_t due_round;    /* Q_POSITION: the round it ends in */
    int32_t due_phase;    /* Q_POSITION: the phase it began in (-1: the start of the round) */
    int64_t due_key;      /* Q_POSITION: the position it ends at */
    value lasts;          /* as given, for show and explain (nil: until removed) */
    uint32_t seq;         /* creation order: ties break by it */
    int32_t next, prev;   /* the bearer's list */
    int32_t qnext, qprev; /* its queue's list (not Q_POSITION) */
    int32_t heap_at;      /* Q_POSITION: index in the heap */
} effect;

/* --- the order of turns ------------------------------------------------------ */

typedef struct entry {
    int32_t creature; /* -1: the turn of a whole side */
    int32_t side;
    int64_t key;   /* where in the round: entries are sorted by key, lowest first */
    value score;   /* as shown */
    value check;   /* the roll that placed it, or nil */
    bool away;     /* moved by a delay this round (allow delay ... returns) */
    int64_t home;  /* if away: the key it had before */
    bool unrolled; /* joined after the order was rolled, put last without a roll */
    bool moved;    /* moved from where its score put it (delay, reorder, ...): the score no longer places it */
} entry;

/* A held action: taken when a matching event is emitted. */
typedef struct hold {
    int32_t creature;
    int32_t action;
    value args[ACTION_MAX_PARAMS];
    int nargs;
    int32_t event;
    value pattern[TRIGGER_MAX_PARAMS]; /* nil matches anything */
    int npattern;
    bool live;
} hold;

typedef struct answer {
    int32_t ruling;
    int32_t creature; /* who it is for: a creature (asked per creature), ANSWER_KEY_SIDE
                         (per side), ANSWER_KEY_EVERYONE or ANSWER_KEY_ONE */
    value v;
} answer;
#define ANSWER_KEY_ONE (-1)           /* a ruling asked once for all (per use, encounter, game) */
#define ANSWER_KEY_EVERYONE (-2)      /* every creature or side not answered on its own */
#define ANSWER_KEY_SIDE(s) (-4 - (s)) /* a side (from -3 for the creatures of no side) */

/* A creature's place in a group of a group relation. */
typedef struct group_member {
    int32_t rel, creature, group;
} group_member;

/* --- space ----------------------------------------------------------------------- */

typedef struct cell_flags {
    int32_t x, y;
    uint8_t flags; /* CELL_* */
} cell_flags;
/* bits 4-6: the index of the level of cover the square grants (0: none);
   CELL_SET_COVER, given to grid_wall, replaces it rather than adding */
enum { CELL_BLOCKED = 1, CELL_DIFFICULT = 2, CELL_COVER_SHIFT = 4, CELL_COVER_MASK = 0x70, CELL_SET_COVER = 0x80 };

typedef struct zone_info {
    int32_t name;        /* string id */
    int32_t *neighbours; /* the zones next to it (both ways) */
    int nneighbours;
    size_t neighbours_cap;
} zone_info;

/* --- the log ------------------------------------------------------------------------ */

/* The log keeps this many lines; past it, the oldest quarter goes, and
   `show log` says how many went. */
#define COMBAT_LOG_MOST 8192

typedef struct log_line {
    uint32_t command; /* which top-level command wrote it */
    bool detail;      /* shown by explain only */
    bool action;      /* a creature's action starts here (explain begins at the last) */
    bool hidden;      /* it told something hidden from the players when it was said */
    char *text;
    bool players; /* the players' view alone shows it: a hidden line as they may know it */
} log_line;

/* COMBAT_LOG_MOST / 4 (what goes at once) is a whole number of blocks */
#define COMBAT_LOG_BLOCK 256
_Static_assert(COMBAT_LOG_MOST / 4 % COMBAT_LOG_BLOCK == 0, "the log drops whole blocks");
typedef struct log_block {
    atomic_size_t refs; /* the logs that hold it */
    log_line lines[COMBAT_LOG_BLOCK];
} log_block;

/* Line i of the log (0: the oldest kept), to read. */
#define COMBAT_LOG_AT(cb, i) (&(cb)->log_blocks[(i) / COMBAT_LOG_BLOCK]->lines[(i) % COMBAT_LOG_BLOCK])

/* --- the whole ----------------------------------------------------------------------- */

typedef struct combat {
    /* the encounter */
    bool active;
    bool over;       /* it ended by itself (`ends when`, or one side left): until the next begins */
    int32_t round;   /* 0 before round 1 and in a surprise round */
    bool surprise;   /* the surprise round is under way */
    bool free_round; /* the free round before initiative is under way */
    value *given;    /* rolls entered with `roll initiative` for after the free round */
    int ngiven;
    int32_t phase; /* index into the round's phases, -1: the one implicit phase */
    int32_t turn;  /* index into order, -1 between turns */
    bool in_turn;  /* a turn (or step) has started and not ended */
    uint32_t round_epoch;
    uint32_t encounters_ended;
    uint32_t *period_ends; /* per declared period: how many have ended */
    size_t period_ends_cap;
    entry *order;
    int norder, order_cap;
    bool ordered;        /* initiative has been rolled */
    bool awaiting_start; /* the order may still be changed before round 1 */
    int32_t initiator;   /* who started the fight, or -1 */
    int32_t fighting;    /* `fight`: rounds left, or 0 */
    bool fight_paused;   /* `fight N rounds` has played its rounds */
    /* a tactic playing a turn (their depth), and encounters_ended when the
       outermost began: once its encounter has ended, the tactic's next
       action stops it (tactic_stopped), rather than be taken out of it */
    int32_t tactic_depth;
    /* the creature whose reaction runs (-1: none): what it deals is its
       own, in a simulation's tally, not the acting creature's */
    int32_t reacting;
    uint32_t tactic_encounter;
    bool tactic_stopped;
    bool checking_over;
    int32_t standing[2];  /* two creatures of different sides last seen standing, or -1 */
    bool round_announced; /* the round's first turn has named it */

    /* effects and the queues that end them */
    effect *effects;
    int neffects, effects_cap;
    int live_effects; /* in force now: held against --limit effects */
    int32_t free_effects;
    uint32_t effect_seq;
    int32_t *q_turn_start, *q_turn_end; /* per creature: first effect, -1 */
    size_t q_turn_start_cap, q_turn_end_cap;
    int32_t q_global[Q_PERIOD]; /* round start/end and the encounter */
    int32_t *q_period;          /* per declared period */
    size_t q_period_cap;
    int32_t *q_phase; /* per phase */
    int q_phase_cap;
    int32_t *heap; /* Q_POSITION effects, soonest first */
    int nheap, heap_cap;
    /* which conditions can change a stat, a check or what may be done
       (effect_index.c) */
    struct effect_index *index;
    /* which conditions hold on each creature, and whether it is out, as
       last worked out (conditions.c) */
    struct conditions_cache *conditions;
    /* each creature's footprint, as last worked out (footprint.c) */
    struct footprint_cache *footprints;
    /* the encounter's `ends when`, kept as a formula of the roster
       (stat_memo.h) */
    struct roster_memo *ends_memo;

    hold *holds;
    int nholds, holds_cap;

    answer *answers;
    int nanswers, answers_cap;
    uint64_t answers_serial; /* moves on at every change of the answers (stat_memo.h) */
    /* the rules' generation and the creatures combat_sync last made room
       for (synced_any: it has) */
    uint32_t synced_generation;
    size_t synced_creatures;
    bool synced_any;

    /* policies for reactions where no one is asked */
    int8_t reactions_policy; /* 1 take (default), 0 decline */
    int8_t *trigger_policy;  /* per trigger: -1 as reactions_policy */
    int trigger_policy_cap;
    counter *trigger_counts; /* per trigger: firings toward a `limit` not kept per creature */
    int trigger_counts_cap;
    uint32_t turn_serial; /* turns started: the epoch of per-turn counts kept for no one */

    /* the grid */
    cell_flags *cells;
    int ncells, cells_cap;
    int32_t *cell_index; /* open addressing over cells, -1 empty */
    int cell_index_cap;
    /* zones */
    zone_info *zones;
    int nzones, zones_cap;
    /* the groups of group relations (groups.c) */
    group_member *members;
    int nmembers, members_cap;
    int32_t next_group;

    /* what the command under way is resolving */
    bool cancelled;      /* cancel() was called, or the actor fell */
    int32_t actor;       /* who takes the action being resolved, or -1 */
    int32_t actor_depth; /* the trigger depth its own events are emitted at */
    int32_t trigger_depth;
    int32_t in_holds;    /* evaluating a `holds when` */
    const char *roll_as; /* who a roll is shown for, instead of its creature (a side), or NULL */

    /* the log: its lines in blocks of COMBAT_LOG_BLOCK, each full but the
       last (log.c); copies of the world share the blocks, and one that
       is shared is copied before it changes, so a copy of a long log
       costs a reference to each block */
    log_block **log_blocks;
    int nlog, log_blocks_cap;
    uint64_t log_dropped; /* lines no longer kept: the oldest go past COMBAT_LOG_MOST */
    uint32_t command_no;
    uint32_t explain_command; /* the command `explain` describes */
    bool quiet;               /* sim: keep no log and print nothing */
    int64_t pending_roll;     /* a check roll not yet printed (its seq), or 0 */
    int64_t shown_early;      /* a roll printed before its verdict, for a reaction's question (seq), or 0 */
    int pending_log;          /* its line in the log (completed when it is compared), or -1 */
    bool pending_hidden;
    char *pending_line; /* its text so far, however long (pending_cap bytes held) */
    size_t pending_cap;
} combat;

struct vm;

/* Lifecycle (combat.c). */
void combat_init(combat *cb);
void combat_free(combat *cb);
/* A log line's text (log.c): made once, never changed, and shared by the
 * copies of the world that hold the line (combat_clone takes a reference,
 * not a copy, so copying a long session's log costs no allocation per
 * line); freed with its last holder. NULL when out of memory. */
char *log_text_new(const char *text);
char *log_text_share(char *text);
void log_text_free(char *text);
/* Lets go of block i of cb's log, and frees it when no log holds it. */
void log_block_release(combat *cb, int i);
/* Makes cb a copy of from, its own (but for the log's blocks, shared), at
 * rest (no command under way), its effect index left to be built again;
 * false when out of memory (cb then holds nothing). Copies each array
 * combat_free frees: keep the two in step. */
bool combat_clone(combat *cb, const combat *from);
/* Makes room for creatures and rules that arrived since the last call. */
bool combat_sync(struct vm *v);
/* A formula of the rules tables for self, with args bound as its chunk's
   parameters: a constant as it is, an absent one (REXPR_NONE) true. */
bool combat_eval(struct vm *v, const rexpr *e, int self, const value *args, int nargs, value *out);

/* The transcript (log.c): a line of play, or a detail shown by explain. */
void combat_say(struct vm *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A line of play of any length (what the rules print). */
void combat_say_line(struct vm *v, const char *line);
/* A line of play for the players' view alone, said with a hidden one: what
   they may know of it (the order without the creatures hidden from them). */
void combat_say_for_players(struct vm *v, const char *line);
/* Output that is not play, of any length (show): printed, not logged. */
void combat_print_line(struct vm *v, const char *line);
void combat_note(struct vm *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Output that is not play (show, explain): printed, not logged. */
void combat_print(struct vm *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void combat_flush_roll(struct vm *v);
/* A check's line, printed once its comparison (if any) completes it. */
void combat_pending_roll(struct vm *v, int64_t seq, const char *line);
/* Adds to the end of the pending roll's line (its comparison). */
void combat_pending_add(struct vm *v, const char *more);
/* The line of an action: explain starts from the last one. */
void combat_say_action(struct vm *v, const char *line);
void combat_explain(struct vm *v);
void combat_show_log(struct vm *v);
/* Whether log line i tells something hidden: it did when it was said, or
   it names what is hidden now. */
bool combat_log_hidden(const struct vm *v, int i);
/* What the rules print in a quiet run: printed (marked if hidden), not kept. */
void combat_output(struct vm *v, const char *line);
/* A line built piece by piece, said (logged) or printed: a piece that would
   not fit ends the line there and starts the next, indented, so that a long
   list (of creatures, say) is never cut off. */
typedef struct combat_line {
    bool say;     /* combat_say, else combat_print */
    bool spilled; /* the last piece was too long for a line and went out whole */
    size_t len;
    char text[1000];
} combat_line;
void combat_line_add(struct vm *v, combat_line *l, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void combat_line_end(struct vm *v, combat_line *l);
/* `§ "Section"` of a declaration, or "": written over out, and returned. */
const char *combat_cite(struct vm *v, const origin *o, text_buf *out);

/* Encounter (encounter.c). */
bool encounter_begin(struct vm *v, span at);
bool encounter_end(struct vm *v, span at);
bool encounter_next(struct vm *v, span at);
/* `begin NAME` and `end NAME` of the declared period index per. */
bool period_begin(struct vm *v, int per, span at);
bool period_end(struct vm *v, int per, span at);
bool encounter_delay(struct vm *v, span at);
bool encounter_resume(struct vm *v, int c, span at);
/* `remove NAME`: c leaves play for good, its effects, holds, relations,
   engagement and place on the map ended; in an encounter it leaves the
   order, the turn passing on if it was its own, and the encounter ends if
   it is over without it. */
bool encounter_remove(struct vm *v, int c, span at);
bool encounter_fight(struct vm *v, int rounds, span at);
/* c plays its turn by its tactic. */
bool encounter_play_tactic(struct vm *v, int c, span at);
/* Is c out of the fight? */
bool encounter_out(struct vm *v, int c, bool *out, span at);
/* Around a change of c's stats or conditions, in an encounter: before it,
   what c was (out or not) is known; after it (and the events it set off),
   went_out(c) or came_back(c) is emitted if that is no longer so. Nothing
   is worked out while no trigger (or held action) hears either event. */
bool encounter_out_before(struct vm *v, int c, span at);
bool encounter_out_after(struct vm *v, int c, span at);
/* Does c still stand for its side (`stands when`, else not out)? */
bool encounter_stands(struct vm *v, int c, bool *stands, span at);
/* The creature whose turn it is (or any member of the acting side), -1. */
int encounter_acting(const struct vm *v);
/* The phase under way is one of turns (not of steps, not open). */
bool encounter_in_turns_phase(struct vm *v);
bool encounter_is_turn_of(const struct vm *v, int c);
/* Checks `ends when`; ends the encounter if it holds. */
bool encounter_check_over(struct vm *v, span at);
/* The position key of the current moment in the round. */
int64_t encounter_now_key(const struct vm *v);
/* A new place in the order (reorder.c): `reorder` right after the roll,
   `forfeit` (taken as the next round starts), or a held action's. */
typedef enum { MOVE_REORDER, MOVE_FORFEIT, MOVE_HELD } order_move;
bool encounter_reorder(struct vm *v, int c, bool after, int other, order_move how, span at);
/* The moves promised by forfeited turns, made now. */
bool encounter_apply_forfeits(struct vm *v, span at);
/* Moves the entry at index `from` to stand before the one now at `to`. */
bool encounter_move_entry(struct vm *v, int from, int to, span at);
bool encounter_roll_initiative(struct vm *v, const value *given, int ngiven, span at);
/* Has c an entry of its own in the order (not only its side's)? */
bool encounter_has_place(const struct vm *v, int c);
/* c's own entry in the order, or -1. */
int encounter_index_of(const struct vm *v, int c);
bool encounter_start_rounds(struct vm *v, span at);

/* Initiative (initiative.c). */
bool initiative_roll(struct vm *v, const value *given, int ngiven, span at);
void initiative_show(struct vm *v);
/* Does e's creature wait (delay)? Shown after the others: it has no place
   until it resumes. */
bool initiative_waiting(const struct vm *v, const entry *e);
/* The entries of the order as play goes, first those that do not wait,
   then those that do: `for (int row = 0, i; (i = initiative_each(v, &row))
   >= 0;)` visits each entry's index once; -1 after the last. */
int initiative_each(const struct vm *v, int *row);
/* How e's place is shown: its score while the score places it; else none,
   and a note (`moved; rolled 21`, `delaying; rolled 21`, `no roll yet`). */
void initiative_entry_text(struct vm *v, const entry *e, text_buf *score, text_buf *note);
/* `roll initiative NAME [N], ...` once the order is rolled: each creature
   named that has no place of its own yet (it joined later) rolls, or takes
   the number given, and is put where the rules' order puts it. */
bool initiative_place(struct vm *v, const value *given, int ngiven, span at);
/* Puts e at index `to` of the order, its key between its neighbours'. */
bool encounter_insert_entry(struct vm *v, entry e, int to, span at);

/* Ledger (ledger.c). */
typedef struct refusal {
    text_buf why; /* in words, however long */
    origin rule;
    bool missing; /* for want of an argument the action needs */
} refusal;
/* A refusal is started before use and given back after, as a text is. */
void refusal_init(refusal *r);
void refusal_free(refusal *r);
/* Says why (over anything said before) and which rule; r may be NULL. */
void refusal_set(refusal *r, const origin *rule, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Can c pay cost now (for action `kind`, off its turn unless on_turn)?
   *affordable says; with pay, it is paid. Fills *why when it cannot.
   False only on an error (in v->error). */
bool ledger_pay(struct vm *v, int c, const cost *k, int kind, bool anytime, bool borrows_next, bool pay, refusal *why,
                bool *affordable);
int ledger_spent(struct vm *v, int c, int slot);
/* How many of a slot c has left (*unlimited: no count); false on an error. */
bool ledger_left(struct vm *v, int c, int slot, bool *unlimited, int *left);
/* Spends n of a slot; *spent false (why filled) when c has not enough. */
bool ledger_spend_slot(struct vm *v, int c, int slot, int n, refusal *why, bool *spent);
/* A creature's turn starts: debts become this turn's uses, locks lapse. */
void ledger_turn_start(struct vm *v, int c);
/* An encounter begins: the turns of the last one, and what they owe or were
   charged, are over. */
void ledger_encounter_start(struct vm *v, int c);
bool ledger_show(struct vm *v, int c);
uint32_t ledger_epoch(const struct vm *v, int c, period per);

/* Effects (effects.c). */
bool effects_apply(struct vm *v, int c, int cond, value lasts, int source, span at, bool *applied);
bool effects_remove(struct vm *v, int c, int cond, span at, bool *removed);
bool effects_has(struct vm *v, int c, int cond, bool *has, span at);
bool effects_tick(struct vm *v, queue_kind q, int anchor, span at);
/* Ends what is due at or before this moment: round, phase (INT32_MAX: the
   end of the round) and initiative position. */
bool effects_tick_position(struct vm *v, int round, int phase, int64_t key, span at);
bool effects_end_encounter(struct vm *v, span at);
/* A stat with every modifier of c's conditions. */
bool effects_stat(struct vm *v, int c, int stat_decl, value base, value *out, span at);
/* effect_index.c: the conditions that may bear on a stat, a check, or on
   what a creature may do or be targeted by, with those implying them.
   *none is set when no such condition is on c (applied, or holding by its
   own formula): then nothing needs to look at c's effects. */
typedef enum { BEARS_STAT, BEARS_CHECK, BEARS_FORBIDS } bears_kind;
bool effects_none_bear(struct vm *v, int c, bears_kind kind, int index, bool *none, span at);
void effect_index_free(combat *cb);
/* Whether condition cond holds on c by its own `holds when` formula. */
bool effects_holds_by_itself(struct vm *v, int c, int cond, bool *yes, span at);
/* The modifier terms a check gets for its participants (checks.c). */
/* A modifier of a check that holds for one roll: the clause, the
   condition it is of, and its amount (nil for a change that has none). */
typedef struct check_mod {
    const r_modifier *mod;
    int cond;
    value amount;
} check_mod;
bool effects_check_mods(struct vm *v, int check, const value *args, int nargs, value *amounts, int *labels, int *cites,
                        int *n, int max, check_mod *changes, int *nchanges, span at);
/* What became of each change of a check's dice: it applies, or not, and
   with which other change it cancelled (-1). */
typedef enum { FATE_APPLIES, FATE_NOT_STACKING, FATE_CANCELLED, FATE_SUPERSEDED } change_fate;
#define CHECK_MODS_MAX 24 /* ROLL_MAX_EXTRA: a roll's terms, and so its modifiers */
typedef struct dice_verdict {
    uint8_t fate[CHECK_MODS_MAX];
    int8_t pair[CHECK_MODS_MAX];
} dice_verdict;
/* Changes the dice a check rolls (`rolled`, its first die) by the changes
   effects_check_mods found, combined by their bonus types; `said` gets what
   the transcript shows of them, "advantage from invisible", or nothing.
   checks_note_dice gives explain a note for each, after the roll's line. */
bool checks_change_dice(struct vm *v, int check, const check_mod *changes, int n, dexpr *rolled, text_buf *said,
                        dice_verdict *verdict, span at);
void checks_note_dice(struct vm *v, const check_mod *changes, int n, const dice_verdict *verdict);
/* Does a condition of c forbid it the action (*no, why filled)? False
   only on an error, like the two below. */
bool effects_forbids(struct vm *v, int c, int action, refusal *why, bool *no, span at);
/* Does a condition of target protect it from actor's action? */
bool effects_protects(struct vm *v, int target, int action, int actor, refusal *why, bool *no, span at);
/* Does a condition of c forbid it reactions of this kind (a word id)? */
bool effects_forbids_kind(struct vm *v, int c, int kind, refusal *why, bool *no, span at);
bool effects_cooldown(struct vm *v, int c, int action, value lasts, span at);
/* A tag's duration: an effect on no creature, anchored to c's turns (or
   -1), that ends the tag tag_id through tags_expired; -1 on an error.
   Dropped silently when the tag goes first; its text as the tracker says it. */
int32_t effects_tag(struct vm *v, int32_t tag_id, int anchor, value lasts, span at);
void effects_drop_tag(struct vm *v, int32_t effect);
const char *effects_lasts_text(struct vm *v, int32_t effect, text_buf *out);
bool effects_on_cooldown(struct vm *v, int c, int action);
/* A held action waits as an effect, so it lapses like one. */
bool effects_hold(struct vm *v, int c, int hold_index, value lasts, span at);
/* The held action was taken: its timer goes, silently. */
void effects_drop_hold(struct vm *v, int c, int hold_index);
bool effects_relate(struct vm *v, int rel, int a, int b, value lasts, span at, bool *done);
bool effects_unrelate(struct vm *v, int rel, int a, int b, span at, bool *done);
bool effects_related(struct vm *v, int rel, int a, int b);
bool effects_partners(struct vm *v, int rel, int c, bool holders, value *out, span at);
/* Ends every pair of rel c is in, either role (why: said, or NULL). */
bool effects_unrelate_all(struct vm *v, int rel, int c, const char *why, span at, bool *done);
/* c's effects, oldest first, added to a line: `before` ahead of the first,
   ", " between them. */
void effects_show(struct vm *v, int c, combat_line *line, const char *before);
/* The same, then every condition c is in without an effect of its own
   (section 7.8), with what makes it hold: `flat_footed (until its first
   turn)` (its `why`), `exposed (from unconscious)`. Read without asking
   or changing anything (vm_peek_begin). */
void effects_show_held(struct vm *v, int c, combat_line *line, const char *before);
/* Each effect on c, oldest first: its kind ("condition", "cooldown",
   "relation", "hold"), name, partner (a relation's, or NULL) and what is
   left of it, as show prints it. */
typedef void (*effects_each_fn)(void *user, const char *kind, const char *name, const char *partner, const char *lasts);
void effects_each(struct vm *v, int c, effects_each_fn fn, void *user);
/* Ends every effect on c, and every relation with c (it leaves play). */
bool effects_clear(struct vm *v, int c, span at);

/* Events (events.c). */
bool events_emit(struct vm *v, int event, const value *args, int nargs, span at);
/* Whether anything would hear the event (a trigger, a condition that
   ends on it, a held action): else emitting it does nothing, and what it
   would carry need not be worked out. */
bool events_heard(const struct vm *v, int event);
bool rulings_ask(struct vm *v, int ruling, int self, value *out, span at);
struct roll_extra;
/* rulings_ask for a ruling whose formulas see args (a check's arguments and
   its roll), with what is at stake (the roll so far) shown in the question. */
bool rulings_ask_about(struct vm *v, int ruling, int self, const value *args, int nargs, const char *stakes, value *out,
                       span at);
/* The rulings asked `after` a check's roll: each that is taken changes the
   roll (*roll) as its `then` says, runs its statements, and says so on the
   roll's line ("; lucky: reroll d20 (15) + 3 = 18"). rolled, extra and
   nextra are what the roll was made of, to make it again. */
bool checks_after_roll(struct vm *v, int check, const value *args, int nargs, const dexpr *rolled,
                       const struct roll_extra *extra, int nextra, value *roll, span at);
/* Keeps the GM's answer for a creature (its side, for a ruling asked per
 * side), or with creature -1 for all not answered on their own. */
bool rulings_answer(struct vm *v, int ruling, value answer, int creature, span at);
void rulings_end_encounter(struct vm *v);

/* Actions (act.c). */
/* held: a held action, taken when its event comes, off the creature's turn. */
bool act_take(struct vm *v, int actor, int action, const value *args, int nargs, bool held, bool *allowed, span at);
/* May actor take the action now (*can; why filled when not)? False only on an error. */
bool act_can(struct vm *v, int actor, int action, const value *args, int nargs, refusal *why, bool *can, span at);

/* Checks (checks.c). */
bool checks_roll(struct vm *v, int check, const value *args, int nargs, value *out, span at);
bool checks_compare(struct vm *v, value roll, int cmp, value target, int label, bool *result, span at);

/* A walk's budget (budget.c): a resource counting distance, spent by
   what the walk moves. */
typedef struct walk_budget {
    int decl;   /* the resource's declaration; -1: none */
    value have; /* what is left of it before the walk */
} walk_budget;
bool budget_open(struct vm *v, int c, value named, walk_budget *b, span at);
bool budget_left(struct vm *v, const walk_budget *b, value moved, value *left, span at);
bool budget_pay(struct vm *v, int c, const walk_budget *b, value left, span at);

/* Grid (grid.c). */
bool grid_place(struct vm *v, int c, int32_t x, int32_t y, span at);
bool grid_wall(struct vm *v, int32_t x0, int32_t y0, int32_t x1, int32_t y1, uint8_t flag, span at);
bool grid_distance(struct vm *v, value a, value b, value *out, span at);
bool grid_within(struct vm *v, int a, int b, int range, bool *ok, span at);
bool grid_threatens(struct vm *v, int a, value target, bool *ok, span at);
/* The squares per side of c's footprint (1 to 16; -1 when the rules'
   formula failed), kept between two changes of the state (footprint.c). */
int32_t grid_footprint(struct vm *v, int c);
/* The footprints kept, freed with the combat (not copied with it). */
void grid_footprints_free(combat *cb);
/* Sight and cover (grid_sight.c). cover: the index of the rules' level of
   cover for b attacked by a (how: cover()'s third argument, or nothing),
   or -1 when a does not see b. */
bool grid_cover(struct vm *v, int a, int b, value how, int *level, span at);
/* The index of the level of cover called word (with unseen, `unseen` is
   one past the rules' levels); an error listing them when none is. */
bool grid_cover_level_named(struct vm *v, const char *word, bool unseen, int *level, span at);
bool grid_sees(struct vm *v, int a, int b, bool *out, span at);
/* max: a distance, nothing (no limit) or the word of a resource counting
   distance, which the walk spends; whole: a move its budget cannot pay in
   full is refused, not cut short (the table's `move`). */
bool grid_walk(struct vm *v, int c, value to, value max, bool whole, int how, const value *via, int nvia, value *moved,
               span at);
bool grid_push(struct vm *v, int c, int from, value distance, value *moved, span at);
bool grid_show(struct vm *v, span at);
bool grid_adjacent(struct vm *v, int a, int b);
/* Is the square x (or a square of creature x's footprint) a wall? */
bool grid_blocked(struct vm *v, value x, bool *out, span at);

/* Hidden information (hidden.c). A line that tells something hidden
   from the players is printed with this mark before it. */
#define COMBAT_HIDDEN_MARK "(gm) "
/* Does the line tell something hidden? A line of play (of_play: not a
   display) does too when it is said in a hidden creature's action or turn. */
bool hidden_line(const struct vm *v, const char *text, bool of_play);
/* Is this stat of c kept from the players (`hide NAME STAT`)? */
bool hidden_stat(const struct vm *v, int c, int decl_index);
/* A creature comes into play, hidden or not. */
void hidden_spawn(struct vm *v, int c, bool hidden);
/* `hide`/`reveal`: c whole (nstats 0), or these stats of it (decl indices). */
bool hidden_set(struct vm *v, int c, bool hide, const value *stats, int nstats, span at);

/* Zones (zones.c). */
/* A zone, or more about one: neighbours and tags (words, tags.c) add to
   what it has. */
bool zones_declare(struct vm *v, int name, const value *neighbours, int nneighbours, const value *tags, int ntags,
                   span at);
/* Zones between two zones through neighbours: 0 for the same zone, 1000
   when no chain joins them, -1 when either is not a zone. */
int zones_between(const struct vm *v, int za, int zb);
bool zones_place(struct vm *v, int c, int zone, span at);
/* The zone closest to the word `name`, mistyped (none: ""), for "did you
   mean"; out holds SUGGEST_MAX + 1. */
const char *zones_like(const struct vm *v, int name, char *out);
bool zones_range_between(struct vm *v, int a, int b, int *range, span at);
void zones_show(struct vm *v);

/* Group relations (groups.c): `relation R(a, b) { group [max N] }`. */
/* c's group of rel (a number), or -1. */
int groups_of(const struct vm *v, int rel, int c);
/* a and b are two members of one group. */
bool groups_related(const struct vm *v, int rel, int a, int b);
/* a joins b's group, leaving its own; refused (said, done false) past the
   relation's max or across zones for one `within zone`. */
bool groups_relate(struct vm *v, int rel, int a, int b, span at, bool *done);
/* a leaves its group (b >= 0: only if b is in it too). */
bool groups_unrelate(struct vm *v, int rel, int a, int b, span at, bool *done);
/* The other members of c's group, a list. */
bool groups_members(struct vm *v, int rel, int c, value *out, span at);
/* c leaves every relation `within zone` (zone_only), or every group (it
   leaves play). */
bool groups_leave_all(struct vm *v, int c, bool zone_only, span at);
/* "R with a, b; S with c" for c's groups, for show map. */
void groups_describe(struct vm *v, int c, text_buf *out);

#endif
