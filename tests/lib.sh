# shellcheck shell=sh
# tests/lib.sh: shared helpers for the script tests (tests/*.test).
# POSIX sh; sourced, never run.  A test script does:
#
#     here=$(cd "$(dirname "$0")" && pwd)
#     . "$here/lib.sh"
#     t_init "$@"
#     ... t_pass NAME / t_fail NAME [WHY] ...
#     t_summary
#
# Environment (make check sets the first two, see Makefile.am):
#   FRAY          the fray binary (default: ./fray, relative to where the
#                 test is started; made absolute here)
#   srcdir        the top source directory (default: the directory above
#                 tests/); made absolute here
#   FRAY_BLESS=1  golden/diag tests write expectations instead of comparing
#   FRAY_TEST_TIMEOUT  seconds allowed per fray invocation (default 60)
#
# Arguments to a test script, if any, select cases by name.

set -u

LC_ALL=C
export LC_ALL
# No color, no pager, nothing interactive in transcripts.
NO_COLOR=1
TERM=dumb
export NO_COLOR TERM

t_passed=0
t_failed=0
t_selected=
t_tmp=

# t_init ARGS...: resolve FRAY and srcdir, make a scratch directory.
t_init()
{
    t_selected="$*"
    : "${srcdir:=$here/..}"
    srcdir=$(cd "$srcdir" && pwd) || t_hard_error "srcdir '$srcdir' is not a directory"
    [ -f "$srcdir/configure.ac" ] || t_hard_error "srcdir '$srcdir' is not the Fray source tree"
    : "${FRAY:=./fray}"
    case $FRAY in
        /*) ;;
        */*) FRAY=$(pwd)/$FRAY ;;
        *) FRAY=$(command -v "$FRAY" || printf '%s' "$FRAY") ;;
    esac
    [ -x "$FRAY" ] || t_hard_error "FRAY='$FRAY' is not an executable (build first, or set FRAY)"
    export FRAY srcdir
    t_tmp=$(mktemp -d "${TMPDIR:-/tmp}/fray-test.XXXXXX") || t_hard_error "mktemp failed"
    trap 't_cleanup' EXIT
    trap 't_cleanup; exit 130' INT
    trap 't_cleanup; exit 143' TERM
    if command -v timeout >/dev/null 2>&1; then
        t_timeout="timeout ${FRAY_TEST_TIMEOUT:-60}"
    else
        t_timeout=
    fi
}

t_cleanup()
{
    if [ -n "$t_tmp" ] && [ -d "$t_tmp" ]; then
        rm -rf "$t_tmp"
    fi
}

# A broken harness, not a failed case: automake reports exit 99 as ERROR.
t_hard_error()
{
    printf 'ERROR: %s\n' "$*" >&2
    exit 99
}

# t_want NAME: true if NAME was selected on the command line (or no
# selection was given).
t_want()
{
    [ -z "$t_selected" ] && return 0
    for t_w in $t_selected; do
        [ "$t_w" = "$1" ] && return 0
    done
    return 1
}

t_pass()
{
    t_passed=$((t_passed + 1))
    printf 'PASS: %s\n' "$*"
}

# t_fail NAME [WHY...]
t_fail()
{
    t_failed=$((t_failed + 1))
    t_n=$1
    shift
    if [ $# -gt 0 ]; then
        printf 'FAIL: %s: %s\n' "$t_n" "$*"
    else
        printf 'FAIL: %s\n' "$t_n"
    fi
}

# t_summary: the final line, exactly "N passed, N failed"; exits 1 if any
# case failed, 77 (SKIP) if there were no cases at all, else 0.
t_summary()
{
    printf '%d passed, %d failed\n' "$t_passed" "$t_failed"
    [ "$t_failed" -eq 0 ] || exit 1
    [ "$t_passed" -gt 0 ] || exit 77
    exit 0
}

# t_run OUT CMD ARGS...: run CMD with stdin from /dev/null, stdout and
# stderr into OUT (interleaved as written), under the per-run timeout.
# Sets t_status to the exit status.
t_run()
{
    t_out=$1
    shift
    t_status=0
    # t_timeout is deliberately split into words.
    # shellcheck disable=SC2086
    $t_timeout "$@" </dev/null >"$t_out" 2>&1 || t_status=$?
}

# t_transcript OUT CMD ARGS...: like t_run, then append the transcript
# trailer: a line "[no newline at end of output]" if the output did not end
# with one, and a final line "[exit N]".
t_transcript()
{
    t_run "$@"
    if [ -s "$1" ] && [ "$(tail -c 1 "$1" | wc -l)" -eq 0 ]; then
        printf '\n[no newline at end of output]\n' >>"$1"
    fi
    printf '[exit %d]\n' "$t_status" >>"$1"
}

# t_show FILE: indent a file into the log, at most 60 lines.
t_show()
{
    sed -n '1,60s/^/    | /p' "$1"
    t_lines=$(wc -l <"$1")
    if [ "$t_lines" -gt 60 ]; then
        printf '    | ... (%d more lines)\n' $((t_lines - 60))
    fi
}

# t_compare NAME EXPECTED ACTUAL: the golden comparison shared by
# golden.test and diag.test.  With FRAY_BLESS=1, writes EXPECTED from
# ACTUAL (only if it changed) and counts a pass.
t_compare()
{
    if [ "${FRAY_BLESS:-0}" = 1 ]; then
        if [ -f "$2" ] && cmp -s "$2" "$3"; then
            t_pass "$1"
        else
            cp "$3" "$2" || t_hard_error "cannot write $2"
            t_pass "$1 (blessed: wrote $2)"
        fi
    elif [ ! -f "$2" ]; then
        t_fail "$1" "no expectation ($2); actual transcript:"
        t_show "$3"
    elif cmp -s "$2" "$3"; then
        t_pass "$1"
    else
        t_fail "$1" "transcript differs from $2:"
        diff -u --label "$2 (expected)" --label "$1 (actual)" "$2" "$3" | sed -n '1,200p'
    fi
}

# t_located FILE: true if FILE's first line is a located diagnostic,
# "path:line:col: error: message".
t_located()
{
    head -n 1 "$1" | grep -q '^[^:]*:[0-9][0-9]*:[0-9][0-9]*: error: '
}
