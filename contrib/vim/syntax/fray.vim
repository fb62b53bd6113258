" Vim syntax file
" Language:	Fray rules (*.rules), the language of the Fray interpreter
" Maintainer:	the Fray project
"
" Install: put contrib/vim in 'runtimepath' (set rtp+=/path/to/contrib/vim),
" or copy syntax/fray.vim and ftdetect/fray.vim under ~/.vim/.
"
" The words come from the language itself: the keywords of doc/language.md
" (section 2.3) and the first word of each line of `fray help --forms`
" (declarations, clauses, commands, built-in functions, built-in events).
" tests/contrib.test fails when one of them is missing here (outside a
" lookbehind such as \%(\<on\s\+\)\@<=, which only gives a context).
"
" What is highlighted where (doc/language.md sections 2-4):
"   - keywords everywhere, except directly before '(' (`round(x)` is a call;
"     `roll(`, `not(`, `if(`, `and(`, `or(`, `emit(` stay keywords);
"   - the soft keywords bonus, check, encounter, item, relation, side, period
"     and tactic only where they start a declaration: at the start of an item and
"     followed by a name or '{' (`stat bonus = 0`, `{ bonus 2 }` are names);
"   - clause words outside ( ) and [ ], not after or before '.', '(' or '[';
"     those that read as ordinary names (target, order, kind, ...) and the
"     play commands only at the start of an item;
"   - built-in functions and events only as calls, `name(`; after `on` or
"     `emit`, any call is an event;
"   - a number followed by a unit is one token (`5 ft`, `2 rounds`, `6s`);
"     dice literals are one token (`4d6kh3`, `d%`, `dF`, `d6!>=5`).

if exists("b:current_syntax")
  finish
endif

scriptencoding utf-8

let s:cpo_save = &cpo
set cpo&vim

syn case match

" --- comments and strings ---------------------------------------------------
syn keyword frayTodo		contained TODO FIXME XXX NOTE
syn match   frayComment		"#.*$" contains=frayTodo,@Spell

syn match   frayBadEscape	contained "\\."
syn match   frayEscape		contained +\\[nt"\\]+
syn region  frayString		start=+"+ skip=+\\.+ end=+"+ end=+$+ contains=frayEscape,frayBadEscape,@Spell

" the citation: `§ "Section"`, or `cite "Section"`
syn match   frayCite		"§"
syn match   frayCite		"\<cite\>"
syn region  frayCitation	start=+\%(\%(§\|\<cite\>\)\s*\)\@<="+ skip=+\\.+ end=+"+ end=+$+ contains=frayEscape,frayBadEscape

" --- numbers, quantities, dice ------------------------------------------------
" Of several matches at one place, the one defined last wins: a quantity or
" a dice literal over an invalid number (`3x`), which wins over a number.
syn match   frayNumber		"\<\d\+\%(\.\d\+\|%\)\="
syn match   frayError		"\<\d\+\h\w*"
syn match   frayQuantity	"\<\d\+\%(\.\d\+\)\=[ \t]*\%(ft\|feet\|foot\|sq\|squares\=\|m\|meters\=\|metres\=\|s\|secs\=\|seconds\=\|min\|minutes\=\|hours\=\|rounds\=\|turns\=\|encounters\=\|scenes\=\|quests\=\|arcs\=\)\w\@!"
" [COUNT]d SIDES MODIFIERS..., one token: d20 3d6 d% 4dF 4d6kh3 2d20kl1 4d6d1
" d6! d6!>=5 d6!! d6!p d20r<3 d20ro1 10d10>=8f1 6d6=6
syn match   frayDice		"\<\d*d\%(\d\+\|%\|F\)\%(\%(kh\|kl\|dh\|dl\|k\|d\)\d\+\|!\%(!\|p\)\=\%(\%([<>]=\=\|=\)\=\d\+\)\=\|ro\=\%([<>]=\=\|=\)\=\d\+\|\%([<>]=\=\|=\)\d\+\|f\%([<>]=\=\|=\)\=\d\+\)*\w\@!"
" squares of the grid (C4, AA12) and a creature's count (creature goblin x3)
syn match   fraySquare		"\<[A-Z]\+\d\+\>"
syn match   frayCount		"\<x\d\+\>"

" --- operators ------------------------------------------------------------------
syn match   frayOperator	"->\|\.\.\|//\|==\|!=\|<=\|>=\|+=\|-=\|[-+*/<>=?:]"
syn match   frayDelimiter	"[,;{}]"
syn region  frayParen		matchgroup=frayDelimiter start="(" end=")" contains=@frayExpr
syn region  frayBracket		matchgroup=frayDelimiter start="\[" end="]" contains=@frayExpr

" --- clause words -----------------------------------------------------------------
" Clauses of the declarations (fray help declarations, fray help NAME), and
" the words inside their forms; not inside ( ) or [ ], not a member.
syn match   frayClause		"\.\@1<!\<\%(absorb\|after\|allow\|anchor\|boxes\|named\|answer\|anytime\|apart\|asked\|automatic\|below\|borrows\|cancels\|cooldown\|corners\|costs\|cover\|derived\|diagonal\|difficult\|ends\|excludes\|exclusive\|extends\|failure\|forbid\|holds\|implies\|internal\|label\|lasts\|limit\|max\|min\|modify\|moves\|occupies\|on\|protect\|provokes\|quiet\|reaction\|refresh\|reorder\|requires\|reroll\|side\|stacks\|stands\|start\|succeeds\|success\|surprise\|surprised\|tactic\|then\|ticks\|tiebreak\|ties\|why\|within\)\>[.([]\@!"
syn match   frayClause		"\.\@1<!\<\%(role\|during\|until\|only\|skip\|as\|incoming\|via\|spending\|entering\|leaving\|levels\)\>[.([]\@!"
" clause words that read as ordinary names (a local `target`, `order`):
" only where they start an item
syn match   frayClause		"\%(\%(^\|[;{}]\)\s*\)\@<=\<\%(default\|do\|group\|kind\|length\|mode\|one\|order\|out\|phase\|reach\|scale\|score\|set\|share\|slot\|source\|square\|target\|track\)\>\%([.([]\|\s*=[^=]\)\@!"

" --- play commands (fray help commands), at the start of an item ---------------------
syn match   frayCommand		"\%(\%(^\|[;{}]\)\s*\)\@<=\<\%(next\|delay\|resume\|hold\|forfeit\|policy\|apply\|remove\|place\|move\|wall\|terrain\|zone\|fight\|explain\|can\|hide\|reveal\|force\|damage\|heal\|mark\|clear\|tag\|untag\)\>\%([.([]\|\s*=[^=]\)\@!"

" --- built-in functions and events: calls ---------------------------------------------
syn match   frayEvent		"\<\%(encounter_start\|encounter_end\|initiative_rolled\|round_start\|round_end\|phase_start\|phase_end\|turn_start\|turn_end\|acting\|acted\|provoking\|leaves_square\|enters_square\|leaves_threatened\|moved\|condition_applied\|condition_ended\|changed\|related\|unrelated\|zone_changed\|rolled\|went_out\|came_back\|marked\|period_start\|period_end\|tag_added\|tag_removed\|reordered\)\ze("
syn match   frayFunction	"\<\%(min\|max\|floor\|ceil\|round\|abs\|len\|sum\|any\|all\|count\|text\|dice\|feet\|squares\|square_side\|prob\|mean\|dist\|maximum\|minimum\|has\|apply\|remove\|spent\|left\|spend\|out\|acted\|surprised\|acting\|initiator\|round_number\|phase\|creatures\|enemies\|allies\|members\|sides_standing\|cancel\|can\|relate\|unrelate\|related\|partners\|holders\|distance\|within\|adjacent\|threatens\|cover\|cover_rank\|sees\|nearest\|square_of\|placed\|blocked\|walk\|push\|range_between\|zone_of\|enter\|zones_apart\|absorb\|marks\|mark_names\|unmarked\|clear\|tag\|untag\|has_tag\|tags\|tag_uses\|use_tag\)\ze("
" `on acting(c, ...)`, `emit hit(...)`: the event of a trigger or an emit
syn match   frayEventCall	"\%(\<\%(on\|emit\)\s\+\)\@<=\h\w*\ze("

" a local: let NAME, for NAME in
syn match   frayLocal		"\%(\<\%(let\|for\)\s\+\)\@<=\h\w*"

" --- the name a declaration gives (condition prone, slot move, ...) ----------------------
syn match   frayName		"\%(\%(^\|[;{}]\)\s*\%(\<override\s\+\)\=\<\%(stat\|resource\|enum\|condition\|bonus\|relation\|check\|action\|procedure\|trigger\|ruling\|side\|period\|tactic\|item\|creature\|range\|duration\|system\|use\|slot\|phase\|track\)\s\+\)\@<=\h\w*"

" --- keywords (doc/language.md 2.3) --------------------------------------------------------
" Before '(' a word is a call, except roll, not, if, and, or, emit.
syn keyword frayOperatorWord	and or not
syn keyword frayRoll		roll
syn keyword frayConditional	if
syn match   frayConditional	"\<else\>(\@!"
syn keyword frayStatement	emit
syn match   frayStatement	"\<\%(let\|print\|fail\|return\)\>(\@!"
syn match   frayRepeat		"\<\%(for\|repeat\)\>(\@!"
syn match   frayConnective	"\<\%(by\|of\|per\|to\|from\|with\|when\|unless\|in\)\>(\@!"
syn match   frayBoolean		"\<\%(true\|false\|yes\|no\)\>(\@!"
syn match   frayConstant	"\<\%(nothing\|self\)\>(\@!"
" play commands that are keywords
syn match   frayKwCommand	"\<\%(begin\|end\|show\)\>(\@!"
" declaration keywords; usable as names (`per round`, `phase action`)
syn match   frayDeclaration	"\<\%(action\|condition\|creature\|duration\|economy\|enum\|exchange\|import\|initiative\|override\|procedure\|range\|resource\|round\|ruling\|space\|stat\|system\|trigger\|use\)\>(\@!"
syn match   frayDeclaration	"\%(\<space\s\+\)\@<=\<\%(grid\|zones\)\>"
" soft keywords: a declaration only at the start of an item, before a name or '{'
syn match   frayDeclSoft	"\%(\%(^\|[;{}]\)\s*\%(\<override\s\+\)\=\)\@<=\<\%(bonus\|check\|encounter\|item\|relation\|side\|period\|tactic\)\>\%(\s*[A-Za-z_{]\)\@="
" the count of time after per/begin/end: per turn, begin encounter, end round
syn match   frayPeriod		"\%(\<\%(per\|begin\|end\)\s\+\)\@<=\<\%(turn\|round\|encounter\|scene\|quest\|arc\)\>(\@!"

syn cluster frayExpr contains=frayComment,frayString,frayCite,frayCitation,frayNumber,frayError,frayQuantity,frayDice,fraySquare,frayCount,frayOperator,frayDelimiter,frayParen,frayBracket,frayEvent,frayFunction,frayEventCall,frayOperatorWord,frayRoll,frayConditional,frayStatement,frayRepeat,frayConnective,frayBoolean,frayConstant,frayKwCommand,frayDeclaration,frayPeriod

syn sync fromstart

hi def link frayTodo		Todo
hi def link frayComment		Comment
hi def link frayString		String
hi def link frayEscape		SpecialChar
hi def link frayBadEscape	Error
hi def link frayCite		SpecialChar
hi def link frayCitation	SpecialComment
hi def link frayNumber		Number
hi def link frayError		Error
hi def link frayQuantity	Number
hi def link frayDice		Special
hi def link fraySquare		Constant
hi def link frayCount		Number
hi def link frayOperator	Operator
hi def link frayDelimiter	Delimiter
hi def link frayClause		Keyword
hi def link frayCommand		Statement
hi def link frayKwCommand	frayCommand
hi def link frayFunction	Function
hi def link frayEvent		PreProc
hi def link frayEventCall	frayEvent
hi def link frayName		Identifier
hi def link frayOperatorWord	Operator
hi def link frayRoll		Keyword
hi def link frayConditional	Conditional
hi def link frayStatement	Statement
hi def link frayRepeat		Repeat
hi def link frayConnective	Keyword
hi def link frayBoolean		Boolean
hi def link frayConstant	Constant
hi def link frayDeclaration	Structure
hi def link frayDeclSoft	frayDeclaration
hi def link frayPeriod		Type

let b:current_syntax = "fray"

let &cpo = s:cpo_save
unlet s:cpo_save
