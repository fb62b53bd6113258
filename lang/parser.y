/* parser: Fray's grammar. A pure parser: all state is in the lexer struct
 * and the scanner handle passed to it, so any number of parses can be alive
 * at once. One grammar holds rules and play: a file is a list of items,
 * each a declaration, a command, a statement or a clause.
 *
 * Clauses (`word args... [block]`) are the generic part: inside a
 * declaration they carry its properties (`slot standard 1 per turn`,
 * `order highest first`), and the compiler checks them against the
 * declaration's schema, so the grammar stays small and the messages
 * specific. */
%require "3.8"
%define api.pure full
%define api.prefix {lang_yy}
%define api.location.type {span}
%define parse.error custom
%define parse.lac full
%locations
%param {yyscan_t scanner}
%parse-param {struct lexer *lx}
%expect 0

%code requires {
#include "lang/ast.h"
typedef void *yyscan_t;
struct lexer;
}

%code provides {
int lang_yylex(LANG_YYSTYPE *yylval, LANG_YYLTYPE *yylloc, yyscan_t scanner);
}

%code top {
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <stddef.h>
#include "runtime/core/value.h"
/* The parser's stacks come from the one allocator (parse.c). They grow
   only with nesting (brackets, prefix operators, `else if`, `? :`), at
   most a few entries a level, so they can hold any text whose nesting is
   within NESTING_MAX; past that they are full, which parse.c reports as
   the nesting limit. */
void *parse_stack_alloc(size_t size);
void parse_stack_free(void *p);
#define YYMALLOC parse_stack_alloc
#define YYFREE parse_stack_free
#define YYMAXDEPTH (8 * NESTING_MAX + 64)
#define YYLLOC_DEFAULT(cur, rhs, n)                                  \
    do {                                                             \
        if (n) {                                                     \
            (cur).start = YYRHSLOC(rhs, 1).start;                    \
            (cur).end = YYRHSLOC(rhs, n).end;                        \
            (cur).source = YYRHSLOC(rhs, 1).source;                  \
        } else {                                                     \
            (cur).start = (cur).end = YYRHSLOC(rhs, 0).end;          \
            (cur).source = YYRHSLOC(rhs, 0).source;                  \
        }                                                            \
    } while (0)
}

%code {
#include <ctype.h>
#include <string.h>

#include "lang/dice_hint.h"
#include "lang/lexer.h"
#include "runtime/base/mem.h"

static node *mk(struct lexer *lx, ast_kind kind, span sp);
static node *mk_binary(struct lexer *lx, int op, node *a, node *b, span sp);
static node *mk_decl(struct lexer *lx, decl_kind k, span sp, node *name, node *args, node *body);
static node *mk_command(struct lexer *lx, decl_kind k, span sp, node *args);
static node *made_of(struct lexer *lx, ast_kind kind, span sp, node *list);
static node *word(struct lexer *lx, span sp, ast_kind kind, const char *text);
static void top_items(struct lexer *lx, node *items);
static node *lift_tracks(struct lexer *lx, node *items);
static void lang_yyerror(LANG_YYLTYPE *loc, yyscan_t scanner, struct lexer *lx, const char *msg);
}

%union {
    struct node *n;
}

%token <n> IDENT "name" CALLNAME "function name" INT "number" QTY "quantity" DICE "dice" STRING "string"
%token ACTION "action" AND "and" BEGIN_ "begin" BY "by" CONDITION "condition"
%token CREATURE "creature" DURATION "duration" ECONOMY "economy" ELSE "else" EMIT "emit" END "end"
%token ENUM "enum" EXCHANGE "exchange" FAIL "fail" FALSE_ "false" FOR "for" FROM "from" IF "if"
%token IMPORT "import" IN "in" INITIATIVE "initiative" LET "let" NOT "not" OF "of" OR "or"
%token OVERRIDE "override" PER "per" PRINT "print" PROCEDURE "procedure" RANGE "range"
%token REPEAT "repeat" RESOURCE "resource" RETURN "return" ROLL "roll" ROUND "round"
%token RULING "ruling" SHOW "show" SPACE "space" STAT "stat" SYSTEM "system" TO "to"
%token TRIGGER "trigger" TRUE_ "true" UNLESS "unless" USE "use" WHEN "when" WITH "with"
%token BONUS "bonus" CHECK "check" ENCOUNTER "encounter" ITEM "item" RELATION "relation" TACTIC "tactic" SIDE "side" PERIOD "period"
%token CITE_SIGN "§"
%token START_EXPR "start of expression"
%token INDEX "[ (an index)"
%token ARROW "->" DOTDOT ".." IDIV "//" EQ "==" NE "!=" LE "<=" GE ">=" PLUS_EQ "+=" MINUS_EQ "-="

%type <n> program items opt_item item block block_opt cite clause args arg connective
%type <n> decl command stmt else_opt lvalue expr postfix primary name exprs exprs_ne
%type <n> params params_ne param kinds type_opt init_opt names module action_head keyword_name

/* Juxtaposed clause arguments: `arg: expr` yields to any operator that can
   continue the expression, so `a - b` is one argument. Write `(-b)` or use
   a connective (`by -2`) to start a new argument with a sign. */
%precedence ARG
%precedence LET_IN
%right '?' ':'
%left OR
%left AND
%precedence NOT
%nonassoc EQ NE '<' LE '>' GE
%precedence ROLLP
%nonassoc DOTDOT
%left '+' '-'
%left '*' '/' IDIV
%precedence UMINUS

%start program

%%

program:
    items opt_item              { $$ = lift_tracks(lx, ast_append($1, $2)); $$->kind = AST_PROGRAM; lx->root = $$; }
  | START_EXPR expr semis       { $$ = $2; lx->root = $$; }
    ;

semis: %empty | semis ';' ;

items:
    %empty                      { $$ = mk(lx, AST_BLOCK, @$); top_items(lx, $$); }
  | items ';'                   { $$ = $1; }
  | items item ';'              { $$ = ast_append($1, $2); if ($1 == lx->top_items) ast_arena_item_done(lx->ar); }
  | items error ';'             { $$ = $1; yyerrok; }
    ;

opt_item:
    %empty                      { $$ = NULL; }
  | item
    ;

item: decl | command | stmt | clause | cite ;

block:
    '{' items opt_item '}'      { $$ = ast_append($2, $3); $$->sp = @$; }
    ;

block_opt:
    %empty                      { $$ = NULL; }
  | block
    ;

cite:
    CITE_SIGN STRING            { $$ = mk(lx, AST_CITE, @$); $$->text = $2->text; }
    ;

clause:
    IDENT args block_opt        { $$ = made_of(lx, AST_CLAUSE, @$, $2); $$->text = $1->text; $$->b = $3;
                                  $$->a = $1; /* the word, for messages about it */ }
  | ROLL args block_opt         { $$ = made_of(lx, AST_CLAUSE, @$, $2); $$->text = "roll"; $$->b = $3; }
  | PER args block_opt          { $$ = made_of(lx, AST_CLAUSE, @$, $2); $$->text = "per"; $$->b = $3; }
    ;

args:
    %empty                      { $$ = mk(lx, AST_LIST, @$); }
  | args arg                    { $$ = ast_append($1, $2); }
    ;

arg:
    expr %prec ARG
  | connective
  | ','                         { $$ = mk(lx, AST_SEP, @$); $$->text = ","; }
  | "->"                        { $$ = mk(lx, AST_WORD, @$); $$->text = "->"; }
    ;

/* Words that join clause arguments; they are not names. */
connective:
    PER                         { $$ = word(lx, @1, AST_WORD, "per"); }
  | BY                          { $$ = word(lx, @1, AST_WORD, "by"); }
  | OF                          { $$ = word(lx, @1, AST_WORD, "of"); }
  | TO                          { $$ = word(lx, @1, AST_WORD, "to"); }
  | FROM                        { $$ = word(lx, @1, AST_WORD, "from"); }
  | WITH                        { $$ = word(lx, @1, AST_WORD, "with"); }
  | WHEN                        { $$ = word(lx, @1, AST_WORD, "when"); }
  | UNLESS                      { $$ = word(lx, @1, AST_WORD, "unless"); }
  | IN                          { $$ = word(lx, @1, AST_WORD, "in"); }
  | ELSE                        { $$ = word(lx, @1, AST_WORD, "else"); }
  | FOR                         { $$ = word(lx, @1, AST_WORD, "for"); }
    ;

decl:
    SYSTEM name args block_opt                  { $$ = mk_decl(lx, DK_SYSTEM, @$, $2, $3, $4); }
  | USE names                                   { $$ = made_of(lx, AST_USE, @$, $2); }
  | IMPORT STRING                               { $$ = mk(lx, AST_IMPORT, @$); $$->text = $2->text; $$->a = $2; }
  | OVERRIDE decl                               { $$ = mk(lx, AST_OVERRIDE, @$); $$->a = $2; }
  | OVERRIDE clause                             { $$ = mk(lx, AST_OVERRIDE, @$); $$->a = $2; /* a track's */ }
  | STAT name type_opt init_opt args block_opt  { $$ = mk_decl(lx, DK_STAT, @$, $2, $5, $6); $$->c = $3; $$->a = $4; }
  | RESOURCE name type_opt args block_opt       { $$ = mk_decl(lx, DK_RESOURCE, @$, $2, $4, $5); $$->c = $3; }
  | ENUM name args block_opt                    { $$ = mk_decl(lx, DK_ENUM, @$, $2, $3, $4); }
  | ECONOMY args block_opt                      { $$ = mk_decl(lx, DK_ECONOMY, @$, NULL, $2, $3); }
  | EXCHANGE args block_opt                     { $$ = mk_decl(lx, DK_EXCHANGE, @$, NULL, $2, $3); }
  | INITIATIVE args block_opt                   { $$ = mk_decl(lx, DK_INITIATIVE, @$, NULL, $2, $3); }
  | ROUND args block_opt                        { $$ = mk_decl(lx, DK_ROUND, @$, NULL, $2, $3); }
  | SPACE args block_opt                        { $$ = mk_decl(lx, DK_SPACE, @$, NULL, $2, $3); }
  | DURATION name init_opt args block_opt       { $$ = mk_decl(lx, DK_DURATION, @$, $2, $4, $5); $$->a = $3; }
  | RANGE name init_opt args block_opt          { $$ = mk_decl(lx, DK_RANGE, @$, $2, $4, $5); $$->a = $3; }
  | CONDITION name args block_opt               { $$ = mk_decl(lx, DK_CONDITION, @$, $2, $3, $4); }
  | ACTION action_head args block_opt           { $$ = mk_decl(lx, DK_ACTION, @$, $2, $3, $4); $$->c = $2->c; }
  | PROCEDURE CALLNAME '(' params ')' args block { $$ = mk_decl(lx, DK_PROCEDURE, @$, $2, $6, $7); $$->c = $4; }
  | TRIGGER name args block_opt                 { $$ = mk_decl(lx, DK_TRIGGER, @$, $2, $3, $4); }
  | RULING name args block_opt                  { $$ = mk_decl(lx, DK_RULING, @$, $2, $3, $4); }
  | CREATURE name args block_opt                { $$ = mk_decl(lx, DK_CREATURE, @$, $2, $3, $4); }
  | CHECK action_head init_opt args block_opt   { $$ = mk_decl(lx, DK_CHECK, @$, $2, $4, $5); $$->c = $2->c; $$->a = $3; }
  | BONUS name args block_opt                   { $$ = mk_decl(lx, DK_BONUS, @$, $2, $3, $4); }
  | RELATION action_head args block_opt         { $$ = mk_decl(lx, DK_RELATION, @$, $2, $3, $4); $$->c = $2->c; }
  | ITEM name type_opt args block_opt           { $$ = mk_decl(lx, DK_ITEM, @$, $2, $4, $5); $$->a = $3; }
  | ENCOUNTER args block_opt                    { $$ = mk_decl(lx, DK_ENCOUNTER, @$, NULL, $2, $3); }
  | TACTIC name args block_opt                  { $$ = mk_decl(lx, DK_TACTIC, @$, $2, $3, $4); }
  | SIDE name args block_opt                    { $$ = mk_decl(lx, DK_SIDE, @$, $2, $3, $4); }
  | PERIOD name args block_opt                  { $$ = mk_decl(lx, DK_PERIOD, @$, $2, $3, $4); }
    ;

action_head:
    name
  | CALLNAME '(' params ')'     { $$ = $1; $$->c = $3; }
    ;

type_opt:
    %empty                      { $$ = NULL; }
  | ':' name                    { $$ = $2; }
    ;

init_opt:
    %empty                      { $$ = NULL; }
  | '=' expr %prec ARG          { $$ = $2; }
    ;

/* `use d20`: a module name may look like dice */
names:
    module                      { $$ = ast_append(mk(lx, AST_LIST, @$), $1); }
  | names ',' module            { $$ = ast_append($1, $3); }
    ;

module: name | DICE ;

params:
    %empty                      { $$ = mk(lx, AST_LIST, @$); }
  | params_ne
    ;

params_ne:
    param                       { $$ = ast_append(mk(lx, AST_LIST, @$), $1); }
  | params_ne ',' param         { $$ = ast_append($1, $3); }
    ;

/* `dest: square or creature`: a parameter with the kinds it accepts */
param:
    name
  | name ':' kinds              { $$ = $1; $$->a = $3; }
    ;

kinds:
    name                        { $$ = ast_append(mk(lx, AST_LIST, @$), $1); }
  | kinds OR name               { $$ = ast_append($1, $3); }
    ;

command:
    BEGIN_ args                 { $$ = mk_command(lx, DK_BEGIN, @$, $2); }
  | END args                    { $$ = mk_command(lx, DK_END, @$, $2); }
  | SHOW args                   { $$ = mk_command(lx, DK_SHOW, @$, $2); }
  | ROLL INITIATIVE args        { $$ = mk_command(lx, DK_ROLL_INITIATIVE, @$, $3); }
  | IDENT ':' args              { $$ = made_of(lx, AST_ACT, @$, $3); $$->text = $1->text; $$->a = $1; }
    ;

stmt:
    LET name '=' expr           { $$ = mk(lx, AST_LET, @$); $$->text = $2->text; $$->a = $2; $$->b = $4; }
  | lvalue '=' expr             { $$ = mk(lx, AST_ASSIGN, @$); $$->op = '='; $$->a = $1; $$->b = $3; }
  | lvalue "+=" expr            { $$ = mk(lx, AST_ASSIGN, @$); $$->op = '+'; $$->a = $1; $$->b = $3; }
  | lvalue "-=" expr            { $$ = mk(lx, AST_ASSIGN, @$); $$->op = '-'; $$->a = $1; $$->b = $3; }
  | IF expr block else_opt      { $$ = mk(lx, AST_IF, @$); $$->a = $2; $$->b = $3; $$->c = $4; }
  | FOR name IN expr block      { $$ = mk(lx, AST_FOR, @$); $$->text = $2->text; $$->a = $4; $$->b = $5; $$->c = $2; }
  | REPEAT expr block           { $$ = mk(lx, AST_REPEAT, @$); $$->a = $2; $$->b = $3; }
  | EMIT CALLNAME '(' exprs ')' { $$ = made_of(lx, AST_EMIT, @$, $4); $$->text = $2->text; $$->a = $2; }
  | RETURN                      { $$ = mk(lx, AST_RETURN, @$); }
  | RETURN expr                 { $$ = mk(lx, AST_RETURN, @$); $$->a = $2; }
  | PRINT exprs_ne              { $$ = made_of(lx, AST_PRINT, @$, $2); }
  | FAIL expr                   { $$ = mk(lx, AST_FAIL, @$); $$->a = $2; }
  | CALLNAME '(' exprs ')'      { node *call = made_of(lx, AST_CALL, @$, $3); call->text = $1->text;
                                  $$ = mk(lx, AST_EXPR_STMT, @$); $$->a = call; }
    ;

else_opt:
    %empty                      { $$ = NULL; }
  | ELSE block                  { $$ = $2; }
  | ELSE IF expr block else_opt { node *i = mk(lx, AST_IF, @$); i->a = $3; i->b = $4; i->c = $5;
                                  $$ = ast_append(mk(lx, AST_LIST, @$), i); $$->kind = AST_BLOCK; }
    ;

lvalue:
    IDENT                       { $$ = $1; }
  | lvalue '.' name             { $$ = mk(lx, AST_MEMBER, @$); $$->a = $1; $$->text = $3->text; }
    ;

expr:
    LET name '=' expr IN expr %prec LET_IN
                                { $$ = mk(lx, AST_LET_IN, @$); $$->text = $2->text; $$->a = $2; $$->b = $4; $$->c = $6; }
  | expr '?' expr ':' expr      { $$ = mk(lx, AST_COND, @$); $$->a = $1; $$->b = $3; $$->c = $5; }
  | expr OR expr                { $$ = mk_binary(lx, OR, $1, $3, @$); }
  | expr AND expr               { $$ = mk_binary(lx, AND, $1, $3, @$); }
  | NOT expr                    { $$ = mk(lx, AST_UNARY, @$); $$->op = NOT; $$->a = $2; }
  | expr "==" expr              { $$ = mk_binary(lx, EQ, $1, $3, @$); }
  | expr "!=" expr              { $$ = mk_binary(lx, NE, $1, $3, @$); }
  | expr '<' expr               { $$ = mk_binary(lx, '<', $1, $3, @$); }
  | expr "<=" expr              { $$ = mk_binary(lx, LE, $1, $3, @$); }
  | expr '>' expr               { $$ = mk_binary(lx, '>', $1, $3, @$); }
  | expr ">=" expr              { $$ = mk_binary(lx, GE, $1, $3, @$); }
  | ROLL expr %prec ROLLP       { $$ = mk(lx, AST_ROLL, @$); $$->a = $2; }
  | expr ".." expr              { $$ = mk(lx, AST_SPAN, @$); $$->a = $1; $$->b = $3; }
  | expr '+' expr               { $$ = mk_binary(lx, '+', $1, $3, @$); }
  | expr '-' expr               { $$ = mk_binary(lx, '-', $1, $3, @$); }
  | expr '*' expr               { $$ = mk_binary(lx, '*', $1, $3, @$); }
  | expr '/' expr               { $$ = mk_binary(lx, '/', $1, $3, @$); }
  | expr "//" expr              { $$ = mk_binary(lx, IDIV, $1, $3, @$); }
  | '-' expr %prec UMINUS       { $$ = mk(lx, AST_UNARY, @$); $$->op = '-'; $$->a = $2; }
  | '+' expr %prec UMINUS       { $$ = $2; }
  | postfix
    ;

postfix:
    primary
  | postfix '.' name            { $$ = mk(lx, AST_MEMBER, @$); $$->a = $1; $$->text = $3->text; }
  | postfix INDEX expr ']'      { $$ = mk(lx, AST_INDEX, @$); $$->a = $1; $$->b = $3; }
    ;

primary:
    INT | QTY | DICE | STRING | name
  | TRUE_                       { $$ = mk(lx, AST_BOOL, @$); $$->num = 1; }
  | FALSE_                      { $$ = mk(lx, AST_BOOL, @$); $$->num = 0; }
  | CALLNAME '(' exprs ')'      { $$ = made_of(lx, AST_CALL, @$, $3); $$->text = $1->text; }
  | '(' expr ')'                { $$ = $2; }
  | '[' exprs ']'               { $$ = $2; $$->sp = @$; }
    ;

/* Declaration keywords double as names where a name is expected, so
   `per round`, `until end of turn` and `phase action` read naturally. */
name:
    IDENT
  | keyword_name
    ;

keyword_name:
    ROUND                       { $$ = word(lx, @1, AST_NAME, "round"); }
  | ACTION                      { $$ = word(lx, @1, AST_NAME, "action"); }
  | RANGE                       { $$ = word(lx, @1, AST_NAME, "range"); }
  | CONDITION                   { $$ = word(lx, @1, AST_NAME, "condition"); }
  | DURATION                    { $$ = word(lx, @1, AST_NAME, "duration"); }
  | STAT                        { $$ = word(lx, @1, AST_NAME, "stat"); }
  | RESOURCE                    { $$ = word(lx, @1, AST_NAME, "resource"); }
  | SYSTEM                      { $$ = word(lx, @1, AST_NAME, "system"); }
  | SPACE                       { $$ = word(lx, @1, AST_NAME, "space"); }
  | TRIGGER                     { $$ = word(lx, @1, AST_NAME, "trigger"); }
  | RULING                      { $$ = word(lx, @1, AST_NAME, "ruling"); }
  | CREATURE                    { $$ = word(lx, @1, AST_NAME, "creature"); }
  | ECONOMY                     { $$ = word(lx, @1, AST_NAME, "economy"); }
  | EXCHANGE                    { $$ = word(lx, @1, AST_NAME, "exchange"); }
  | ENUM                        { $$ = word(lx, @1, AST_NAME, "enum"); }
  | BEGIN_                      { $$ = word(lx, @1, AST_NAME, "begin"); }
  | END                         { $$ = word(lx, @1, AST_NAME, "end"); }
  | SHOW                        { $$ = word(lx, @1, AST_NAME, "show"); }
  | BONUS                       { $$ = word(lx, @1, AST_NAME, "bonus"); }
  | CHECK                       { $$ = word(lx, @1, AST_NAME, "check"); }
  | ENCOUNTER                   { $$ = word(lx, @1, AST_NAME, "encounter"); }
  | ITEM                        { $$ = word(lx, @1, AST_NAME, "item"); }
  | RELATION                    { $$ = word(lx, @1, AST_NAME, "relation"); }
  | TACTIC                      { $$ = word(lx, @1, AST_NAME, "tactic"); }
  | SIDE                        { $$ = word(lx, @1, AST_NAME, "side"); }
  | PERIOD                      { $$ = word(lx, @1, AST_NAME, "period"); }
  | USE                         { $$ = word(lx, @1, AST_NAME, "use"); }
    ;

exprs:
    %empty                      { $$ = mk(lx, AST_LIST, @$); }
  | exprs_ne
    ;

exprs_ne:
    expr                        { $$ = ast_append(mk(lx, AST_LIST, @$), $1); }
  | exprs_ne ',' expr           { $$ = ast_append($1, $3); }
    ;

%%

static node *mk(struct lexer *lx, ast_kind kind, span sp)
{
    node *n = ast_node(lx->ar, kind, sp);
    if (!n) {
        /* Out of memory mid-parse: keep going with a static dummy so the
           actions need no checks; the caller sees lx->oom and discards. */
        static _Thread_local node dummy;
        lx->oom = true;
        memset(&dummy, 0, sizeof dummy);
        return &dummy;
    }
    return n;
}

/* `track NAME ...` among a file's items (or after `override`) is the
   declaration; in a block, `track` stays a clause word (the
   encounter's `track hp, ac`), so it is not a keyword. */
static node *lift_tracks(struct lexer *lx, node *items)
{
    if (lx->oom)
        return items; /* the tree may share the dummy node: it is discarded */
    for (node *item = items ? items->list : NULL; item; item = item->next) {
        node *it = item->kind == AST_OVERRIDE ? item->a : item;
        if (!it || it->kind != AST_CLAUSE || !it->text || strcmp(it->text, "track") != 0 || !it->list ||
            it->list->kind != AST_NAME)
            continue;
        it->kind = AST_DECL;
        it->op = (uint16_t)DK_TRACK;
        it->text = it->list->text;
        it->list = it->list->next;
        if (!it->list)
            it->tail = NULL;
        it->a = it->c = NULL;
    }
    return items;
}

/* A keyword where the tree keeps it: a connective between clause
   arguments, or a name. The scanner makes no node for a keyword, since
   most are only the grammar's (`stat`, `if`, `return`): the tree of a
   large file is most of what compiling it takes. */
static node *word(struct lexer *lx, span sp, ast_kind kind, const char *text)
{
    node *n = mk(lx, kind, sp);
    n->text = text;
    return n;
}

/* The file's own list of items is the first made (items reduces to
   nothing before the first token): its block is kept whole, and the
   compiler gives back the tree of each item it holds once done with it. */
static void top_items(struct lexer *lx, node *items)
{
    if (lx->top_items || lx->start_token || lx->oom)
        return;
    lx->top_items = items;
    ast_arena_keep_to_here(lx->ar);
}

/* A node of kind whose children are the list's: the LIST node the
   grammar gathered them in becomes it (rather than being copied and left
   behind), so a declaration, clause or call costs one node, not two. */
static node *made_of(struct lexer *lx, ast_kind kind, span sp, node *list)
{
    if (!list)
        return mk(lx, kind, sp);
    list->kind = (uint8_t)kind;
    list->sp = sp;
    return list;
}

static node *mk_binary(struct lexer *lx, int op, node *a, node *b, span sp)
{
    node *n = mk(lx, AST_BINARY, sp);
    n->op = (uint16_t)op;
    n->a = a;
    n->b = b;
    return n;
}

static node *mk_decl(struct lexer *lx, decl_kind k, span sp, node *name, node *args, node *body)
{
    node *n = made_of(lx, AST_DECL, sp, args);
    n->op = (uint16_t)k;
    if (name)
        n->text = name->text;
    n->b = body;
    n->c = NULL;
    (void)name;
    return n;
}

static node *mk_command(struct lexer *lx, decl_kind k, span sp, node *args)
{
    node *n = made_of(lx, AST_COMMAND, sp, args);
    n->op = (uint16_t)k;
    return n;
}

static void lang_yyerror(LANG_YYLTYPE *loc, yyscan_t scanner, struct lexer *lx, const char *msg)
{
    (void)scanner;
    if (!strcmp(msg, "memory exhausted")) {
        /* the stack is full (or out of memory): parse.c says which */
        lx->stack_full = true;
        lx->stack_full_at = *loc;
        return;
    }
    diag_report(lx->sink, DIAG_ERROR, lx->src, *loc, "%s", msg);
}

/* Whether the word at `where` follows a roll of dice (`d20 adv`) and the
   two are a notation of another dice tool: Fray's spelling in out. */
static bool dice_then_word(const struct lexer *lx, span where, char *out, size_t cap)
{
    const char *text = lx->src->text;
    size_t end = where.start, wend = where.start;
    while (wend < lx->src->len && (isalnum((unsigned char)text[wend]) || text[wend] == '_'))
        wend++;
    while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\t'))
        end--;
    size_t start = end;
    while (start > 0 && isalnum((unsigned char)text[start - 1]))
        start--;
    return end > start && wend > where.start && end < where.start &&
           dice_hint(text + start, end - start, text + where.start, wend - where.start, out, cap);
}

/* "unexpected X; expected Y, Z or W", with hints for common slips. */
static int yyreport_syntax_error(const yypcontext_t *ctx, yyscan_t scanner, struct lexer *lx)
{
    (void)scanner;
    enum { MAX_EXPECTED = 6 };
    yysymbol_kind_t expected[MAX_EXPECTED];
    int n = yypcontext_expected_tokens(ctx, expected, MAX_EXPECTED);
    yysymbol_kind_t got = yypcontext_token(ctx);
    span where = *yypcontext_location(ctx);
    char msg[400];
    size_t len = 0;
    if (got == YYSYMBOL_YYEOF)
        lx->hit_eof = true;
    /* the end of a line ends a statement as ';' does: said as the user sees it */
    bool semi = got != YYSYMBOL_YYEOF && got != YYSYMBOL_YYUNDEF && !strcmp(yysymbol_name(got), "';'");
    char next = where.start < lx->src->len ? lx->src->text[where.start] : '\0';
    bool end_of_line = semi && (next == '\n' || next == '\r' || next == '\0');
    if (got == YYSYMBOL_YYEOF)
        len += (size_t)snprintf(msg + len, sizeof msg - len, "unexpected end of input");
    else if (got == YYSYMBOL_YYUNDEF)
        len += (size_t)snprintf(msg + len, sizeof msg - len, "invalid token");
    else if (end_of_line)
        len += (size_t)snprintf(msg + len, sizeof msg - len, "unexpected end of line");
    else
        len += (size_t)snprintf(msg + len, sizeof msg - len, "unexpected %s", yysymbol_name(got));
    bool assignment = false; /* something that could be set was read: `x.hp +=` */
    if (n > 0 && n < MAX_EXPECTED) {
        len += (size_t)snprintf(msg + len, sizeof msg - len, "; expected ");
        for (int i = 0; i < n && len < sizeof msg; i++) {
            len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ",
                                    yysymbol_name(expected[i]));
            assignment = assignment || !strcmp(yysymbol_name(expected[i]), "+=");
        }
    }
    /* `d20 adv`, as other dice tools write it */
    char spelt[64];
    if (got != YYSYMBOL_YYEOF && got != YYSYMBOL_YYUNDEF && dice_then_word(lx, where, spelt, sizeof spelt) &&
        len < sizeof msg)
        len += (size_t)snprintf(msg + len, sizeof msg - len, "; did you mean '%s'?", spelt);
    /* `wolf.hp` alone, typed at the table to see it */
    if (assignment && semi && len < sizeof msg)
        len += (size_t)snprintf(msg + len, sizeof msg - len, " (a value alone is not a command: 'print' shows it)");
    int open = lx->depth + lx->braces;
    if (got == YYSYMBOL_YYEOF && open > 0 && len < sizeof msg)
        snprintf(msg + len, sizeof msg - len, " (an opening bracket is never closed)");
    diag_report(lx->sink, DIAG_ERROR, lx->src, where, "%s", msg);
    if (got == YYSYMBOL_YYEOF && open > 0 && open <= 64) {
        uint32_t at = lx->open_at[open - 1];
        span sp = {at, at + 1, where.source};
        diag_report(lx->sink, DIAG_NOTE, lx->src, sp, "this '%c' is never closed", lx->src->text[at]);
    }
    return 0;
}
