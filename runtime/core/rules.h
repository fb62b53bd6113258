/* rules: the declarations of a rule system as typed tables, the part of a
 * program the combat runtime reads. The declaration compilers (lang/decl_*.c)
 * check every clause against what it may say, report mistakes as located
 * diagnostics, and fill these tables; formulas are chunks.
 *
 * Everything here is general: an economy of slots, an initiative procedure,
 * phases, durations, conditions with modifiers, actions with costs,
 * triggers on events, rulings. Which slots, which phases and which
 * conditions exist is the rules file's business. Indices into these tables
 * are stable as a program grows (the REPL adds declarations): an object
 * keeps the index its name first got. */
#ifndef FRAY_RULES_H
#define FRAY_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/base/source.h"
#include "runtime/base/text.h"
#include "runtime/core/keymap.h"
#include "runtime/core/value.h"

/* An argument evaluated at run time: a constant, or a formula chunk
 * called with the parameters its clause binds. */
typedef enum { REXPR_NONE, REXPR_CONST, REXPR_CHUNK } rexpr_kind;
typedef struct rexpr {
    uint8_t kind;
    value v;
    int chunk;
    span where;
} rexpr;

static inline bool rexpr_present(const rexpr *e)
{
    return e->kind != REXPR_NONE;
}

/* How often a count resets: the turn, round and encounter the engine runs,
 * or a period the rules declare (`period NAME`), PER_DECLARED + its index. */
enum { PER_NONE, PER_TURN, PER_ROUND, PER_ENCOUNTER, PER_DECLARED };
typedef int period;
struct program;
const char *period_name(const struct program *p, period per);

/* What a slot is for, so tools can line up different systems' economies. */
#define SLOT_ROLES(X)       \
    X(NONE, "none")         \
    X(PRIMARY, "primary")   \
    X(MOVEMENT, "movement") \
    X(MINOR, "minor")       \
    X(FREE, "free")         \
    X(REACTION, "reaction")

typedef enum {
#define ROLE_ENUM(name, word) ROLE_##name,
    SLOT_ROLES(ROLE_ENUM)
#undef ROLE_ENUM
        ROLE_COUNT
} slot_role;
const char *slot_role_name(slot_role r);

/* Where a decl came from, for messages and explain output. */
typedef struct origin {
    int decl; /* index in program decls, -1 for none */
    span where;
    int cite; /* string id of the § citation, -1 */
} origin;

/* --- the action economy ------------------------------------------------ */

typedef struct econ_slot {
    int name;
    origin from;
    rexpr count; /* per creature; REXPR_NONE with unlimited */
    bool unlimited;
    period per; /* PER_TURN or PER_ROUND */
    slot_role role;
    int phase;                     /* only spendable in this phase (index), or -1 */
    int borrows;                   /* spending this also takes one of that slot ... */
    bool borrow_this, borrow_next; /* ... from this turn and/or the next */
} econ_slot;

#define LIMIT_MAX_SLOTS 8
typedef struct econ_limit {
    int slots[LIMIT_MAX_SLOTS];
    int nslots;
    int max;
    period per;
    origin from;
} econ_limit;

/* After spending `slot` for an action of one kind, other kinds may not
 * spend it until the creature's next turn starts. */
typedef struct econ_exclusive {
    int slot;
    origin from;
} econ_exclusive;

typedef struct econ_exchange {
    int from_slot, to_slot;
    int limit; /* 0 = any number */
    period per;
    origin from;
} econ_exchange;

/* One way to pay: slots and resources with counts. */
#define COST_MAX_PARTS 8
typedef enum { COST_SLOT, COST_RESOURCE } cost_part_kind;
typedef struct cost_part {
    uint8_t kind;
    int index; /* slot index, or resource (stat decl index) */
    int n;
    value amount; /* `15 ft of movement`: an amount in the resource's unit; nothing: n of it */
} cost_part;
typedef struct cost_option {
    cost_part parts[COST_MAX_PARTS];
    int nparts;
} cost_option;
/* `costs a or b + c`: options tried in order. No options: free. */
#define COST_MAX_OPTIONS 6
typedef struct cost {
    cost_option options[COST_MAX_OPTIONS];
    int noptions;
    span where;
} cost;

/* --- time ---------------------------------------------------------------- */

/* Named end points, as time kinds of a V_TIME value (value.h): see
 * TIME_UNTIL_*. A duration spec is a V_TIME value or nothing (lasts until
 * removed), given by a constant or a formula. */
typedef struct time_config {
    bool anchor_creature; /* counts the owner's turns, not an initiative position */
    int tick_phase;       /* begun in this phase: ticks at its start instead (or -1) */
    origin from;
} time_config;

/* A period of play the rules name (`period NAME`): the GM begins and ends
 * it; durations count its ends, resources refresh at them. */
typedef struct r_period {
    int name;
    origin from;
    int plural; /* string id: how a count of more than one is written */
    int within; /* `within OTHER`: ending OTHER ends this one's counts too (index, or -1) */
} r_period;

/* --- initiative, rounds, encounters --------------------------------------- */

typedef enum { INIT_INDIVIDUAL, INIT_SIDES, INIT_STATIC } init_mode;
typedef enum { TIE_EXPR, TIE_MODIFIER, TIE_REROLL, TIE_ROLL, TIE_ROLL_OFF, TIE_SIDE } tie_kind;
typedef struct tie_key {
    tie_kind kind;
    rexpr e;  /* TIE_EXPR: the key; TIE_ROLL: the dice */
    int side; /* TIE_SIDE: this side wins */
    span where;
} tie_key;

typedef enum { SURPRISE_NONE, SURPRISE_ROUND, SURPRISE_FREE_ROUND } surprise_kind;
#define SURPRISE_MAX_GROUPS 4
/* A condition on voluntary moves in the order: `reorder start|later ...
   requires EXPR [else "MESSAGE"]`, asked with self (the creature moving),
   above and below (the entries it would land between, or nothing). */
#define REORDER_MAX_RULES 8
enum { REORDER_START = 1, REORDER_LATER = 2 };
typedef struct r_reorder_rule {
    uint8_t kinds; /* REORDER_START, REORDER_LATER: the moves it is asked of */
    rexpr holds;
    int why;     /* MESSAGE's string id, or -1: the requirement is quoted */
    origin from; /* what a refusal cites */
} r_reorder_rule;

typedef struct r_initiative {
    bool present;
    origin from;
    init_mode mode;
    int check;   /* the check each participant rolls, or -1 */
    rexpr score; /* a formula with the roll bound to the check's name */
    bool lowest_first;
    tie_key ties[8];
    int nties;
    bool reroll_each_round;
    int group_side; /* creatures of this side roll once (individual mode), -1 */
    rexpr group_by; /* self: members of group_side roll once per value of this (`group SIDE by EXPR`) */
    surprise_kind surprise;
    rexpr surprised;      /* is this creature surprised (self) */
    origin surprise_from; /* a § in the surprise block cites its refusals; cite -1: the initiative's */
    /* surprise round: spend at most one slot of each group */
    int only_groups[SURPRISE_MAX_GROUPS][LIMIT_MAX_SLOTS];
    int only_group_len[SURPRISE_MAX_GROUPS];
    int nonly_groups;
    rexpr below; /* self: placed below everyone else (surprised, or who started the fight) */
    bool allow_delay, delay_round_only, allow_hold;
    bool delay_returns;             /* a creature that delayed takes its former place again next round */
    bool hold_moves;                /* a held action taken moves its creature after the one who set it off */
    cost hold_cost;                 /* what taking a held action costs besides the action */
    rexpr hold_lasts;               /* how long a held action waits (default: until the creature's next turn) */
    int hold_only[LIMIT_MAX_SLOTS]; /* an action may be held only if every way to pay it spends one of these */
    int nhold_only;                 /* 0: any action may be held */
    origin hold_from;               /* what a refused hold cites */
    /* voluntary changes of position */
    bool reorder_start;          /* right after the roll, downward only */
    bool reorder_later;          /* later, by forfeiting a turn */
    bool reorder_at_round_start; /* the new place is taken as the next round starts, before any phase */
    origin reorder_from_origin;  /* what a refusal of the mechanism itself cites */
    r_reorder_rule reorder_rules[REORDER_MAX_RULES];
    int nreorder_rules;
} r_initiative;

typedef enum { PHASE_TURNS, PHASE_STEPS, PHASE_OPEN } phase_kind;
typedef struct r_phase {
    int name;
    origin from;
    phase_kind kind;
    rexpr skip_when, skip_unless; /* no self; round.number etc. */
    rexpr only;                   /* self: takes part in this phase */
} r_phase;

#define ENCOUNTER_MAX_TRACK 8
typedef struct r_encounter {
    rexpr out;                      /* self: cannot act, skipped, does not count for its side */
    rexpr ends;                     /* the encounter is over */
    rexpr stands;                   /* self: counts for its side when the winner is told (default: not out) */
    int track[ENCOUNTER_MAX_TRACK]; /* stat decl indices shown in the tracker */
    int ntrack;
    origin from;
} r_encounter;

/* --- conditions and modifiers --------------------------------------------- */

typedef enum { MOD_ADD, MOD_SET, MOD_SCALE, MOD_DICE } mod_op;
typedef enum { MODT_STAT, MODT_CHECK, MODT_INCOMING } mod_target;
/* What a MOD_DICE modifier (`roll CHECK ...`) does to the check's die. */
typedef enum { CHANGE_KEEP_HIGHEST, CHANGE_KEEP_LOWEST, CHANGE_REROLL, CHANGE_WITH } dice_change;
typedef struct r_modifier {
    uint8_t op;         /* mod_op */
    uint8_t target;     /* mod_target */
    uint8_t change;     /* dice_change, for MOD_DICE */
    uint8_t reroll_cmp; /* CHANGE_REROLL: DICE_CMP_EQ (`reroll N`) or DICE_CMP_LT (`reroll below N`) */
    bool once;          /* CHANGE_REROLL: `once` */
    int index;          /* stat decl index or check index */
    int bonus;          /* bonus type index, or -1 (untyped: always stacks) */
    rexpr amount;
    rexpr when;  /* may be NONE */
    bool negate; /* `unless` */
    span where;
} r_modifier;

typedef enum { FORBID_ACTION, FORBID_SLOT, FORBID_KIND } forbid_kind;
typedef struct r_forbid {
    uint8_t kind;
    int index; /* action, slot, or kind word */
    rexpr when;
    bool negate;
    span where;
} r_forbid;

typedef struct r_implies {
    int condition;
    rexpr when;
    bool negate;
    span where;
} r_implies;

typedef struct r_ends_on {
    int event;
    rexpr when;
    bool negate;
    span where;
} r_ends_on;

typedef struct r_condition {
    int name;
    origin from;
    r_modifier *mods;
    int nmods;
    r_forbid *forbids; /* the bearer cannot take it */
    int nforbids;
    r_forbid *protects; /* the bearer cannot be its target */
    int nprotects;
    r_implies *implies;
    int nimplies;
    int *excludes;
    int nexcludes;
    int display; /* the title transcripts use (`condition sick "summoning sick"`): a string id, or -1 */
    rexpr requires;
    int requires_else; /* the refusal's text (a string id), or -1 */
    rexpr lasts;       /* default duration */
    r_ends_on *ends_on;
    int nends_on;
    bool stacks;
    rexpr holds; /* applies by itself while this holds (self) */
    bool has_why;
    int why; /* string id: what the tracker says of it while it holds by itself */
} r_condition;

typedef struct r_bonus {
    int name;
    origin from;
    bool stacks;
    int cancels; /* `cancels OTHER`: the bonus type it cancels one for one, or -1 */
} r_bonus;

/* --- checks, actions, triggers, rulings ------------------------------------ */

#define CHECK_MAX_PARAMS 8
/* Beyond the value types a parameter takes: a word that must name a
   declared condition, or a zone of the map. */
#define TAKES_CONDITION (UINT32_C(1) << 30)
#define TAKES_ZONE (UINT32_C(1) << 31)
#define ACTION_MAX_PARAMS 16 /* and a procedure's (lang/decl.h FCTX_MAX) */
typedef struct r_check {
    int name;
    origin from;
    int formula; /* chunk returning the list of terms */
    int nparams;
    int params[CHECK_MAX_PARAMS]; /* names: the first is who rolls, the second whom it is against */
    int *labels;                  /* string id per term of the top-level sum */
    int nterms;
    int success, failure; /* words shown after a comparison, or -1 */
    bool quiet;
    bool low;         /* `succeeds low`: a roll at or under its target succeeds */
    bool asked_after; /* a ruling is asked `after` its rolls */
} r_check;

typedef enum { TARGET_ANY, TARGET_ENEMY, TARGET_ALLY, TARGET_SELF, TARGET_OTHER } target_kind;

typedef struct r_action {
    int name;
    origin from;
    cost cost;
    int kind;         /* word, or -1 */
    uint8_t provokes; /* 0 no, 1 yes, 2 when `provokes_when` */
    rexpr provokes_when;
    rexpr *requires;
    int *requires_else; /* per requirement: the refusal's text (a string id), or -1: the requirement quoted */
    int nrequires;
    uint8_t target;   /* target_kind */
    bool has_target;  /* a `target` clause */
    int target_range; /* range index, or -1 */
    bool anytime, borrows_next;
    rexpr cooldown;
    int limit;
    period limit_per;
    int body;
    int nparams;
    int params[ACTION_MAX_PARAMS]; /* names (string ids): what a play command's arguments are */
    /* `dest: square or creature`: per parameter, the value types it takes
       (a bit per value_type; 0 takes anything, and may be left out) and
       how a message names them ("a square or a creature", a string id) */
    uint32_t takes[ACTION_MAX_PARAMS]; /* with TAKES_CONDITION, TAKES_ZONE */
    int takes_text[ACTION_MAX_PARAMS];
    int nrequired; /* through the last parameter that says what it takes */
} r_action;

#define TRIGGER_MAX_ON 4
#define TRIGGER_MAX_PARAMS 12
typedef struct r_on {
    int event;
    int nparams;
    int param_slot[TRIGGER_MAX_PARAMS]; /* event argument i -> trigger parameter slot */
    rexpr when;
    rexpr unless;
    span where;
} r_on;

typedef struct r_trigger {
    int name;
    origin from;
    r_on on[TRIGGER_MAX_ON];
    int non;
    int nparams; /* union of the `on` patterns' names */
    bool reaction;
    int reactor;       /* parameter slot of the reacting creature */
    bool reactor_free; /* not an event argument: every creature may react */
    cost cost;
    int limit;
    period limit_per;
    int limit_each; /* parameter slot the limit counts per, or -1 */
    int kind;
    int body;
} r_trigger;

typedef enum { ANSWER_YES_NO, ANSWER_NUMBER, ANSWER_CREATURE, ANSWER_WORD } answer_kind;
typedef enum { ASKED_PER_USE, ASKED_PER_CREATURE, ASKED_PER_ENCOUNTER, ASKED_PER_GAME, ASKED_PER_SIDE } asked_per;
/* A question has a few answers to choose from, not a list to scroll. */
#define RULING_MOST_CHOICES 16
typedef struct r_ruling {
    int name;
    origin from;
    int question; /* string id */
    answer_kind answer;
    asked_per per;
    bool of_player;      /* `asked of player`: the player of the creature it is asked for answers, not the GM */
    bool each_encounter; /* asked per creature or side, and again in each encounter */
    rexpr def;
    int choices[RULING_MOST_CHOICES]; /* string ids of the words that answer it (`answer one of ...`) */
    int nchoices;                     /* 0: any word (or any answer of its kind) */
    /* `after CHECK [when EXPR]`: asked after each roll of the check, before
       it is judged, where EXPR holds (its formulas see the check's
       parameters and `result`, the roll); `then reroll|add EXPR [{ BODY }]`: what a yes
       does to the roll, and the statements it runs */
    int after; /* check index, or -1 */
    rexpr after_when;
    bool after_negate;
    uint8_t then; /* ruling_then */
    rexpr then_amount;
    int then_body; /* chunk, or -1 */
} r_ruling;
typedef enum { THEN_NOTHING, THEN_REROLL, THEN_ADD } ruling_then;

typedef struct r_relation {
    int name;
    origin from;
    int a_name, b_name; /* role names */
    bool one_per_a, one_per_b;
    bool moves_together;
    rexpr lasts;
    /* `group [max N]`: held by a whole group, not a pair (group_max 0: any size) */
    bool group;
    int group_max;
    bool within_zone; /* `within zone`: a creature moving to another zone leaves it */
} r_relation;

typedef struct r_tactic {
    int name;
    origin from;
    int body;
} r_tactic;

#define RESOURCE_MAX_KINDS 16
typedef struct r_resource {
    int stat; /* decl index of the resource */
    origin from;
    rexpr max, start, min;
    period refresh;
    uint8_t unit; /* what it counts: V_INT (numbers), V_DIST or V_TIME (`resource NAME: distance`) */
    /* `damage by PROC [kinds K, ...]`, `heal by PROC`: the procedures a GM's
       damage and heal commands call (name ids, -1: none), and the kinds of
       damage PROC takes as its third argument (word ids; the first is the
       default) */
    int damage_by, heal_by;
    int kinds[RESOURCE_MAX_KINDS];
    int nkinds;
} r_resource;

/* A per-creature row of boxes (or slots) that hits mark (`track`). How a
   hit is absorbed is one of a few general rules (runtime/combat/tracks.c
   says each). */
#define ABSORB_RULES(X)                                                                                          \
    X(WHOLE, "whole", "one free box of at least the hit takes it whole")                                         \
    X(PART, "part", "one free slot takes up to its value of the hit (the smallest that fits, else the largest)") \
    X(LEVEL, "level", "the hit is a level: the first free slot of that level, else of the next level up")        \
    X(SPREAD, "spread", "free boxes in order, each taking up to its value, until the hit is spent")
typedef enum {
#define ABSORB_ENUM(name, word, meaning) ABSORB_##name,
    ABSORB_RULES(ABSORB_ENUM)
#undef ABSORB_ENUM
        ABSORB_COUNT
} absorb_rule;
const char *absorb_rule_name(absorb_rule a);
#define TRACK_MAX_PERIODS 8
#define TRACK_MAX_BOXES 64
typedef struct r_track {
    int name;
    origin from;
    rexpr boxes; /* for the creature: a list of box values, or a count of 1-valued boxes */
    absorb_rule absorb;
    bool named; /* a marked box may carry a name given in play */
    /* `refresh per P1, P2, ...`: box i clears with clear[min(i, nclear - 1)] */
    period clear[TRACK_MAX_PERIODS];
    int nclear;
} r_track;

/* --- space and ranges -------------------------------------------------------- */

typedef enum { SPACE_NONE, SPACE_GRID, SPACE_ZONES } space_kind;
/* How cover() is found: not at all, from the target's corners seen from any
   point of the attacker, or from the attacker's best corner by the lines
   to the target's corners (`cover from corners|lines`). */
typedef enum { COVER_UNDECLARED, COVER_CORNERS, COVER_LINES } cover_geometry;
#define COVER_LEVELS_MAX 8
#define COVER_BY_MAX 4
/* `cover creatures LEVEL|block [when EXPR]`: a creature on a line grants a
   level (an index of the levels), or blocks the line (-1) as a wall does;
   self: the creature in between; attacker, target, how: cover()'s. */
typedef struct r_cover_by {
    int level;
    rexpr when;
} r_cover_by;
typedef struct r_cover {
    int from;                     /* cover_geometry */
    int levels[COVER_LEVELS_MAX]; /* string ids, in order (none, half, full by default) */
    int nlevels;
    int8_t count[5]; /* the level for 0..4 hidden corners or blocked lines */
    int8_t unseen;   /* the level without sight, or -1: unseen */
    r_cover_by by[COVER_BY_MAX];
    int nby;
    bool creatures_block; /* some `cover creatures block`: sight asks them too */
    bool explained;       /* a clause beyond `cover from corners`: explain says why */
} r_cover;
typedef struct r_space {
    space_kind kind;
    origin from;
    value square;               /* a distance: the side of a square */
    int64_t diag_num, diag_den; /* a diagonal step counts num/den squares */
    bool diag_alternate;        /* 1, 2, 1, 2 ... */
    int difficult;              /* cost multiplier of difficult terrain */
    bool difficult_entering;    /* the square entered costs more, not the one left */
    int reach_range;            /* range index of what a creature threatens, or -1 */
    rexpr occupies;             /* self: squares per side a creature fills (default 1) */
    r_cover cover;              /* what cover() gives and how (undeclared: not asked) */
    rexpr share;                /* self: others may enter and end a move in its square */
} r_space;

typedef enum { ZONE_ZONE = 1 } zone_bond; /* what creatures in range share */
#define RANGE_WITHIN_MOST 8
typedef struct r_range {
    int name;
    origin from;
    int decl;                          /* its declaration, for the formula (decl->value) */
    bool ordinal;                      /* no formula: zones decide */
    int within;                        /* zone_bond mask */
    int within_rel[RANGE_WITHIN_MOST]; /* relations whose related creatures are in range */
    int nwithin_rel;
    int apart;       /* at most this many zones apart */
    rexpr diag_when; /* grid: for whom the range counts diagonals thus: */

    int64_t diag_num, diag_den; /* a diagonal step counts num/den squares, */
    bool diag_alternate;        /* or 1, 2, 1, 2 ... (`diagonal`) */
} r_range;

/* --- stats, items, creatures --------------------------------------------------- */

typedef struct r_stat {
    int decl;     /* the stat's declaration (its default formula: decl->value) */
    rexpr lo, hi; /* `in LO..HI`: assignments clamp */
    bool derived;
    bool whole;    /* `: int`: only whole numbers may be stored */
    bool per_side; /* `per side`: each side holds one value, its creatures share it */
} r_stat;

typedef struct r_prop {
    int name;
    value v;
} r_prop;
typedef struct r_item {
    int name;
    origin from;
    int base;    /* item index it extends, or -1 */
    int display; /* string id or -1 */
    r_prop *props;
    int nprops;
} r_item;

typedef struct r_setting {
    int stat; /* decl index of a stat or resource */
    rexpr value;
} r_setting;
typedef struct r_creature {
    int name;
    origin from;
    int count;   /* `x3` */
    int display; /* string id or -1 */
    int side;    /* string id or -1 */
    int tactic;  /* tactic index or -1 */
    bool hidden; /* `hidden`: the players do not know of them yet */
    r_setting *settings;
    int nsettings;
} r_creature;

/* --- the whole ---------------------------------------------------------------- */

/* Built-in events the runtime emits; rules add their own with `emit`.
   X(id, word, arguments, form, meaning) */
#define BUILTIN_EVENTS(X)                                                                                              \
    X(ENCOUNTER_START, "encounter_start", 0, "encounter_start()", "an encounter begins")                               \
    X(ENCOUNTER_END, "encounter_end", 0, "encounter_end()", "the encounter ends")                                      \
    X(INITIATIVE_ROLLED, "initiative_rolled", 0, "initiative_rolled()", "the order of turns is settled")               \
    X(ROUND_START, "round_start", 1, "round_start(n)", "round n begins")                                               \
    X(ROUND_END, "round_end", 1, "round_end(n)", "round n ends")                                                       \
    X(PHASE_START, "phase_start", 1, "phase_start(phase)", "a phase of the round begins")                              \
    X(PHASE_END, "phase_end", 1, "phase_end(phase)", "a phase of the round ends")                                      \
    X(TURN_START, "turn_start", 1, "turn_start(c)", "c's turn begins")                                                 \
    X(TURN_END, "turn_end", 1, "turn_end(c)", "c's turn ends")                                                         \
    X(ACTING, "acting", 3, "acting(c, action, target)",                                                                \
      "c starts an action (its first argument, or nothing); reactions here interrupt it")                              \
    X(ACTED, "acted", 3, "acted(c, action, target)", "c's action is done")                                             \
    X(PROVOKING, "provoking", 2, "provoking(c, action)", "c starts an action that provokes")                           \
    X(LEAVES_SQUARE, "leaves_square", 3, "leaves_square(c, square, next)", "c steps out of a square, toward the next") \
    X(ENTERS_SQUARE, "enters_square", 3, "enters_square(c, previous, square)", "c steps into a square")                \
    X(LEAVES_THREATENED, "leaves_threatened", 4, "leaves_threatened(mover, foe, how, steps)",                          \
      "mover leaves a square foe threatens; how is the move's kind, steps the squares moved within reach")             \
    X(MOVED, "moved", 4, "moved(c, origin, destination, how)", "c's move is over")                                     \
    X(CONDITION_APPLIED, "condition_applied", 3, "condition_applied(c, condition, source)",                            \
      "c enters a condition (source: who caused it, or nothing)")                                                      \
    X(CONDITION_ENDED, "condition_ended", 2, "condition_ended(c, condition)", "a condition on c ends")                 \
    X(CHANGED, "changed", 4, "changed(c, stat, old, new)", "a stat or resource of c changes")                          \
    X(RELATED, "related", 3, "related(relation, a, b)", "a and b enter a relation")                                    \
    X(UNRELATED, "unrelated", 3, "unrelated(relation, a, b)", "a relation between a and b ends")                       \
    X(ZONE_CHANGED, "zone_changed", 3, "zone_changed(c, old_zone, new_zone)", "c moves to another zone")               \
    X(CHECK_ROLLED, "rolled", 3, "rolled(check, c, roll)", "c rolls a check (roll.natural is the die)")                \
    X(WENT_OUT, "went_out", 1, "went_out(c)", "c goes out of the fight, by whatever change puts it there")             \
    X(CAME_BACK, "came_back", 1, "came_back(c)", "c comes back into the fight, by whatever change brings it")          \
    X(MARKED, "marked", 4, "marked(c, track, value, name)",                                                            \
      "a box of c's track is marked (value: what the box is worth; name: what it carries, or nothing)")                \
    X(PERIOD_START, "period_start", 1, "period_start(period)", "a period the rules declare begins")                    \
    X(PERIOD_END, "period_end", 1, "period_end(period)", "a period the rules declare ends")                            \
    X(TAG_ADDED, "tag_added", 2, "tag_added(holder, name)",                                                            \
      "a tag is added to a creature, side, zone or the encounter (name: its text)")                                    \
    X(TAG_REMOVED, "tag_removed", 2, "tag_removed(holder, name)", "a tag is removed, by hand or as its time runs out") \
    X(REORDERED, "reordered", 3, "reordered(c, old, new)",                                                             \
      "c takes a new place in the order by reorder or a forfeited turn (old, new: its places, 0 the first)")

typedef enum {
#define EVENT_ENUM(name, word, n, form, meaning) EV_##name,
    BUILTIN_EVENTS(EVENT_ENUM)
#undef EVENT_ENUM
        EV_BUILTIN_COUNT
} builtin_event;

typedef struct r_event {
    int name;      /* string id */
    int nargs;     /* -1: as emitted (rules events) */
    int *triggers; /* trigger indices listening, in declaration order */
    int ntriggers, triggers_cap;
    int *ending; /* conditions with `ends on` this event */
    int nending, ending_cap;
    bool emitted; /* some chunk emits it (or built in) */
} r_event;

#define RULES_TABLE(type, name) \
    type *name;                 \
    int n##name, name##_cap

typedef struct rules {

    RULES_TABLE(econ_slot, slots);
    RULES_TABLE(econ_limit, limits);
    RULES_TABLE(econ_exclusive, exclusives);
    RULES_TABLE(econ_exchange, exchanges);
    RULES_TABLE(r_phase, phases);
    RULES_TABLE(r_condition, conditions);
    RULES_TABLE(r_bonus, bonuses);
    RULES_TABLE(r_check, checks);
    RULES_TABLE(r_action, actions);
    RULES_TABLE(r_trigger, triggers);
    RULES_TABLE(r_ruling, rulings);
    RULES_TABLE(r_relation, relations);
    RULES_TABLE(r_tactic, tactics);
    RULES_TABLE(r_resource, resources);
    RULES_TABLE(r_track, tracks);
    RULES_TABLE(r_range, ranges);
    RULES_TABLE(r_event, events);
    RULES_TABLE(r_stat, stats);
    RULES_TABLE(r_item, items);
    RULES_TABLE(r_creature, creatures);
    RULES_TABLE(int, sides); /* string ids, in order of first mention */
    RULES_TABLE(r_period, periods);

    r_initiative initiative;
    r_encounter encounter;
    r_space space;
    rexpr round_length;
    origin round_from;
    time_config rounds_cfg, turns_cfg;

    int *holds_conditions; /* conditions with `holds when` */
    int nholds_conditions, holds_conditions_cap;
    bool has_economy, has_initiative, has_round, has_space, has_encounter;
    uint32_t generation; /* counts declarations compiled: indexes built from the tables compare it */
    /* (table, name) -> index for the lookups by name, and (stats, decl)
       -> stat, so that a file of many declarations compiles in linear time */
    keymap named;
    bool unindexed; /* the map ran out of memory: lookups scan */
} rules;

rules *rules_new(void);
/* The space of rules that declare none: 5 ft squares, diagonals of 1. */
void rules_space_defaults(r_space *s);
/* A copy of r, its own; NULL when out of memory. */
rules *rules_clone(const rules *r);
void rules_free(rules *r);
/* A ruling's choices as a GM reads them, "a/b/c", appended to out. */
struct program;
void rules_choices_text(const struct program *p, const r_ruling *rl, text_buf *out);
/* The choice (its string id) a word answers a ruling of choices with, or -1. */
int rules_choice(const struct program *p, const r_ruling *rl, const char *word);

/* Lookups by name (string id); -1 when absent. */
int rules_slot(const rules *r, int name);
int rules_phase(const rules *r, int name);
int rules_condition(const rules *r, int name);
/* How transcripts name condition cond: its title, or its name. */
const char *rules_condition_title(const struct program *p, int cond);
int rules_check(const rules *r, int name);
int rules_action(const rules *r, int name);
int rules_relation(const rules *r, int name);
int rules_ruling(const rules *r, int name);
int rules_trigger(const rules *r, int name);
int rules_tactic(const rules *r, int name);
int rules_range(const rules *r, int name);
int rules_bonus(const rules *r, int name);
int rules_item(const rules *r, int name);
int rules_side(const rules *r, int name);
int rules_track(const rules *r, int name);
int rules_period(const rules *r, int name);
/* How a count of more than one of a period is written: NAME + "s" ("es"
 * after s, x, z, ch, sh). */
void rules_period_plural(const char *name, text_buf *out);
/* The period a word names, singular or plural (`scene`, `scenes`); -1. */
int rules_period_word(const struct program *p, const char *word);
/* How a count of a time kind is written: "round"/"rounds", a declared
 * period's name or plural. */
const char *rules_time_name(const struct program *p, time_kind k, int64_t count);
int rules_stat(const rules *r, int decl_index);
/* Lists condition ci among those with `holds when`, once; false when out
 * of memory. */
bool rules_add_holds(rules *r, int ci);
/* Records that stat entry si is decl_index's (the compiler makes them). */
void rules_index_stat(rules *r, int decl_index, int si);
/* The event with that name, created if new; -1 when out of memory. */
int rules_event(rules *r, int name);
int rules_find_event(const rules *r, int name);
/* Resource record for a stat declaration index, or NULL. */
const r_resource *rules_resource_of(const rules *r, int decl_index);
/* The resource a GM's `damage` (heal false) or `heal` goes to: the last
   standing declaration with the clause; NULL when the rules say nothing
   of it (rules.c). */
struct program;
const r_resource *rules_damage_resource(const struct program *p, bool heal);
/* The index of a kind of damage the resource takes, or -1. */
int rules_damage_kind(const r_resource *res, int word);
/* Entries by name, created on first sight (the compiler's first pass) so
 * declarations may refer to each other in any order; -1 when out of
 * memory. rules_add_named takes condition, action, check, relation,
 * ruling, tactic, range, bonus, item, trigger, creature and track. */
int rules_add_slot(rules *r, int name);
int rules_add_phase(rules *r, int name);
int rules_add_named(rules *r, decl_kind kind, int name);
/* Clears an object for an override (keeps its name and index). */
void rules_reset(rules *r, decl_kind kind, int index);
/* A side's index, added if new; -1 when out of memory. */
int rules_add_side(rules *r, int name);
/* An item's property, looked up through its bases; NULL if it has none. */
const value *rules_item_prop(const rules *r, int item, int name);

#endif
