#include "lang/vocabulary.h"

#include <stdio.h>
#include <string.h>

#include "runtime/core/rules.h"

#define CLAUSES(name) name##_clauses, &name##_nclauses

const decl_vocabulary vocabulary_decls[] = {
    {"system", "system NAME [\"TITLE\"] [extends SYSTEM] { CLAUSES and DECLARATIONS }",
     "names the rule system; its block may hold the system's declarations", CLAUSES(system)},
    {"use", "use MODULE, ... | import \"FILE\"", "loads modules of rules (stdlib/, -I DIR, FRAY_PATH) or a file", NULL,
     NULL},
    {"stat", "stat NAME[: TYPE] = EXPR [in LOW..HIGH] [{ derived; internal; per side }]",
     "a number (or word, dice, item) every creature has; a formula makes it derived", CLAUSES(stat)},
    {"resource",
     "resource NAME[: number|distance|time] [max EXPR] [start EXPR] [min EXPR] [refresh per PERIOD] [{ internal }]",
     "a stat that is spent and regained, kept between its min and max", CLAUSES(resource)},
    {"track", "track NAME { boxes EXPR; absorb whole|part|level|spread; named; refresh per PERIOD, ... }",
     "a row of boxes or slots per creature that hits mark: stress, consequences, harm", CLAUSES(track)},
    {"enum", "enum NAME { MEMBER, MEMBER, ... }", "ordered words: sizes, range bands", NULL, NULL},
    {"economy", "economy { slot ...; limit ...; exclusive ... }", "the action economy: what a creature may spend",
     CLAUSES(economy)},
    {"exchange", "exchange SLOT -> SLOT [{ limit N per turn|round }]", "one use of a slot may be spent as another",
     CLAUSES(exchange)},
    {"initiative", "initiative { CLAUSES }", "how the order of turns is found", CLAUSES(initiative)},
    {"round", "round [LENGTH] { length ...; phase ... }", "what a round is made of", CLAUSES(round)},
    {"encounter", "encounter { out when ...; ends when ...; stands when ...; track ... }",
     "who is out of the fight, when the fight is over, and who won it", CLAUSES(encounter)},
    {"duration", "duration round|turn { CLAUSES } | duration NAME = EXPR | duration NAME until ...",
     "how rounds and turns are counted, or a named span of time", CLAUSES(duration)},
    {"range", "range NAME = EXPR [{ CLAUSES }] | range NAME { CLAUSES }",
     "a distance formula, or (zones) a range band and how it is reached", CLAUSES(range)},
    {"space grid", "space grid { CLAUSES }", "the battlefield is a grid of squares", CLAUSES(grid)},
    {"space zones", "space zones { CLAUSES }", "the battlefield is a set of named zones", CLAUSES(zones)},
    {"condition", "condition NAME [\"TITLE\"] { CLAUSES }",
     "a state a creature is in, with what it changes and how long it lasts", CLAUSES(condition)},
    {"bonus", "bonus NAME [stacks] [cancels OTHER]",
     "a type of modifier; without 'stacks', only the best of a type counts", CLAUSES(bonus)},
    {"relation", "relation NAME(ROLE, ROLE) { CLAUSES }",
     "a bond between two creatures: grappling, carrying, screening", CLAUSES(relation)},
    {"check", "check NAME(PARAMS) = DICE EXPR [{ CLAUSES }]",
     "a roll with its terms labelled; conditions may modify it", CLAUSES(check)},
    {"action", "action NAME[(PARAM[: KIND [or KIND]], ...)] [CLAUSES] { CLAUSES and STATEMENTS }",
     "something a creature does, what it takes, what it costs, and what happens", CLAUSES(action)},
    {"procedure", "procedure NAME(PARAMS) { STATEMENTS }", "a function the rules call", NULL, NULL},
    {"trigger", "trigger NAME { on ...; automatic | reaction of ...; do { ... } }",
     "what happens when an event does: automatically, or as a creature's reaction", CLAUSES(trigger)},
    {"ruling", "ruling NAME \"QUESTION\" { CLAUSES }", "a judgment the rules leave to the GM", CLAUSES(ruling)},
    {"side", "side NAME [\"TITLE\"] [{ § CITATION }]",
     "a side creatures fight on, named so rules can refer to it before anyone takes it", NULL, NULL},
    {"period", "period NAME [{ § CITATION; within PERIOD }]",
     "a period of play the GM begins and ends (a scene, a session, a day): durations count it, resources refresh "
     "per it",
     CLAUSES(period)},
    {"tactic", "tactic NAME { STATEMENTS }", "how a creature plays its turn in 'fight'", NULL, NULL},
    {"item", "item NAME[: BASE] [\"TITLE\"] { PROPERTY VALUE; ... }",
     "equipment with properties (reach, threat range, damage)", NULL, NULL},
    {"creature", "creature NAME [\"TITLE\"] [xN] [side SIDE] [tactic TACTIC] [hidden] { STAT VALUE; ... }",
     "brings creatures into play (also a command)", NULL, NULL},
    {"override", "override DECLARATION", "replaces an earlier declaration of the same name (a variant)", NULL, NULL},
};
const int vocabulary_ndecls = (int)(sizeof vocabulary_decls / sizeof vocabulary_decls[0]);

const word_vocabulary vocabulary_commands[] = {
#define COMMAND(id, word, usage, meaning) {word, usage, meaning},
#include "runtime/core/commands.def"
#undef COMMAND
};
const int vocabulary_ncommands = (int)(sizeof vocabulary_commands / sizeof vocabulary_commands[0]);

/* builtins.def starts each meaning with the call's form: "has(c, condition): ..." */
const word_vocabulary vocabulary_builtins[] = {
#define BUILTIN(name, lo, hi, result, params, effect, meaning) {#name, NULL, meaning},
#include "runtime/core/builtins.def"
#undef BUILTIN
};
const int vocabulary_nbuiltins = (int)(sizeof vocabulary_builtins / sizeof vocabulary_builtins[0]);

const word_vocabulary vocabulary_events[] = {
#define EVENT_WORD(id, word, n, form, meaning) {word, form, meaning},
    BUILTIN_EVENTS(EVENT_WORD)
#undef EVENT_WORD
};
const int vocabulary_nevents = (int)(sizeof vocabulary_events / sizeof vocabulary_events[0]);
