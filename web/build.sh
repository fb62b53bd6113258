#!/bin/sh
# web/build.sh: the playground, web/dist/ (of the build directory): Fray
# in the browser, a static folder that works from any host and opened from
# disk (file://), offline.
#
#     web/build.sh SRCDIR FRAY PKGDATADIR SOURCE...     (what `make web` runs)
#
# SOURCE... are libfray's sources and the fray program's, as Makefile.am
# lists them (headers and all; the generated parser and scanner are found
# in the build directory, the others in SRCDIR). Those that need readline
# (the REPL) stay out. FRAY is the native program built from them: it
# gives the vocabulary for the editor's highlighting (`fray help`).
#
# 1. emcc compiles the C to WebAssembly (web/build/obj/, again only where
#    a source or a header it reads changed): the library as it is, the
#    commands with three calls renamed so that they reach web/fray_web.c
#    first (its comment says why), no threads (fray_sim on one thread never
#    starts one), the wasm embedded in the JavaScript (-sSINGLE_FILE);
# 2. the vocabulary (web/build/vocabulary.json) and the rules files the
#    page loads and the commands read (web/build/files.json: rules/ and
#    examples/, which `use` and `fray diff`'s reference fights find);
# 3. esbuild (web/node_modules: npm ci in web/, or ./bootstrap --web)
#    bundles web/src/ with CodeMirror into web/dist/: index.html,
#    playground.js (the Web Worker inside, started from a Blob URL) and
#    playground.css.
#
# EMCC, NODE and JOBS (parallel compiles, default: the cores) may be set.
set -eu

if [ $# -lt 4 ]; then
    echo "usage: web/build.sh SRCDIR FRAY PKGDATADIR SOURCE..." >&2
    exit 2
fi
srcdir=$1
fray=$2
pkgdatadir=$3
shift 3

say() { printf 'web: %s\n' "$*"; }
die() {
    printf 'web: %s\n' "$*" >&2
    exit 1
}

EMCC=${EMCC:-emcc}
NODE=${NODE:-node}
command -v "$EMCC" >/dev/null 2>&1 ||
    die "no emcc (Emscripten): ./bootstrap --web installs it (on Debian: apt-get install emscripten)"
command -v "$NODE" >/dev/null 2>&1 || die "no node: ./bootstrap --web installs it (apt-get install nodejs npm)"
[ -d "$srcdir/web/node_modules/esbuild" ] ||
    die "no $srcdir/web/node_modules: run 'npm ci' in web/ (or ./bootstrap --web)"
[ -x "$fray" ] || die "no native fray at $fray (make builds it)"
# Debian's emscripten runs its JavaScript tools with node, which finds
# Debian's node modules (acorn) only through NODE_PATH.
NODE_PATH=${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs
export NODE_PATH

build=web/build
dist=web/dist
mkdir -p "$build/obj" "$dist"

# --- 1. WebAssembly -------------------------------------------------------------
# config.h as configure wrote it, less computed goto: WebAssembly has no
# indirect jumps (the compiler would turn the table back into a switch).
grep -v 'FRAY_COMPUTED_GOTO' config.h >"$build/config.h.new"
if cmp -s "$build/config.h.new" "$build/config.h"; then rm -f "$build/config.h.new"; else mv "$build/config.h.new" "$build/config.h"; fi

WEB_EMCC=$EMCC
WEB_CFLAGS="-DHAVE_CONFIG_H -std=c11 -O2 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter -I$build -I. -I$srcdir -I$srcdir/include"
WEB_DATADIR=$pkgdatadir
export WEB_EMCC WEB_CFLAGS WEB_DATADIR
# The commands' calls that web/fray_web.c sees first; and what the
# program's sources get natively from readline's pkg-config flags (strdup,
# strndup: POSIX, not C11).
cli_flags="-D_DEFAULT_SOURCE -D_XOPEN_SOURCE=600 -Dfray_open=fray_web_open -Dfray_prob=fray_web_prob -Dfray_sim=fray_web_sim"

# flags changed since the objects were made: every object again
printf '%s\n' "$WEB_CFLAGS" "$cli_flags" "$WEB_DATADIR" >"$build/flags.new"
if cmp -s "$build/flags.new" "$build/flags"; then rm -f "$build/flags.new"; else
    rm -f "$build"/obj/*
    mv "$build/flags.new" "$build/flags"
fi

# where SOURCE is: the build directory (generated), else the source tree
locate() {
    if [ -f "$1" ]; then echo "$1"; else echo "$srcdir/$1"; fi
}

# out of date: no object, or a file it was made from is newer (its .d)
stale() {
    [ -f "$1" ] && [ -f "$1.d" ] || return 0
    for dep in $(sed -e 's/^[^:]*://' -e 's/\\$//' "$1.d"); do
        [ "$dep" -nt "$1" ] && return 0
    done
    return 1
}

: >"$build/compile.list"
objects=
for s in "$@"; do
    case $s in *.c) ;; *) continue ;; esac
    path=$(locate "$s")
    # the REPL (readline, the REPL's own header, the players' view it
    # serves over HTTP): a terminal's
    grep -Eq '^#include (<readline/|<microhttpd\.h>|"cli/repl.h")' "$path" && continue
    obj=$build/obj/$(printf '%s' "$s" | tr / _).o
    objects="$objects $obj"
    extra=
    case $s in cli/*) extra=$cli_flags ;; esac
    # (no blank at the end of a line: xargs -L would join the next one to it)
    stale "$obj" && printf '%s %s%s\n' "$path" "$obj" "${extra:+ $extra}" >>"$build/compile.list"
done
glue=$build/obj/fray_web.o
objects="$objects $glue"
stale "$glue" && printf '%s %s\n' "$srcdir/web/fray_web.c" "$glue" >>"$build/compile.list"

n=$(wc -l <"$build/compile.list")
if [ "$n" -gt 0 ]; then
    say "emcc: compiling $n C files"
    jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
    # each line: SOURCE OBJECT [FLAGS...]
    xargs -P "$jobs" -L 1 sh -c 'src=$1 obj=$2; shift 2
        # shellcheck disable=SC2086 # flags are words
        exec $WEB_EMCC $WEB_CFLAGS "-DFRAY_DATADIR=\"$WEB_DATADIR\"" "$@" -MMD -MF "$obj.d" -c "$src" -o "$obj"' sh \
        <"$build/compile.list"
fi

wasm=$build/fray-wasm.js
relink=no
[ -f "$wasm" ] || relink=yes
for o in $objects; do [ "$o" -nt "$wasm" ] && relink=yes; done
if [ "$relink" = yes ]; then
    say "emcc: linking $wasm"
    # A module the worker instantiates (createFray), that runs `fray ARGS`
    # through callMain as often as asked; stdout and stderr are the
    # worker's (not terminals: the commands print as into a pipe).
    # shellcheck disable=SC2086 # objects are words
    "$EMCC" -O2 $objects -o "$wasm" \
        -sSINGLE_FILE=1 -sMODULARIZE=1 -sEXPORT_NAME=createFray -sENVIRONMENT=web,worker,node \
        -sINVOKE_RUN=0 -sEXIT_RUNTIME=0 -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=33554432 \
        -sTOTAL_STACK=8388608 -sFORCE_FILESYSTEM=1 \
        -sEXPORTED_FUNCTIONS=_main,_fray_web_flush -sEXPORTED_RUNTIME_METHODS=callMain,FS
fi

# --- 2. vocabulary and files ------------------------------------------------------------
# The words of the language as the grammars of contrib/ take them
# (tests/contrib.test): the keywords of doc/language.md, and the
# declarations, clauses, commands, functions and events of `fray help`.
{
    awk '/These words are keywords:/ { marked = 1; next }
         marked && !inside && /^```text/ { inside = 1; next }
         inside && /^```/ { exit }
         inside { for (i = 1; i <= NF; i++) print "keywords", $i }' "$srcdir/doc/language.md"
    "$fray" help | awk '/^Declarations:/ { k = "declarations"; next }
        /^Clauses/ { k = "clauses"; next }
        /^Play commands:/ { k = "commands"; next }
        /^Built-in functions:/ { k = "functions"; next }
        /^Built-in events:/ { k = "events"; next }
        /^[^ ]/ { k = ""; next }
        k != "" { for (i = 1; i <= NF; i++) print k, $i }'
    # every first word of `fray help --forms` is one of them (checked in
    # bundle.mjs): a word the overview would leave out is a clause
    "$fray" help --forms | awk '{ w = $1; sub(/\(.*/, "", w); if (w ~ /^[A-Za-z_][A-Za-z0-9_]*$/) print "forms", w }'
} >"$build/vocabulary.txt"

# rules/ and examples/ (with their folders), as the worker's files
(cd "$srcdir" && find rules examples -name '*.rules' | LC_ALL=C sort) >"$build/files.txt"

# --- 3. the page ------------------------------------------------------------------------
say "esbuild: $dist/"
"$NODE" "$srcdir/web/bundle.mjs" "$srcdir" "$build" "$dist"
say "done: open $dist/index.html"
