# bench/lib.sh: helpers shared by fray's benchmark scripts (sourced; they
# set $work, a scratch folder, before using best_us).

# stamp: sets $now to the wall clock in microseconds, read by bash itself
# (no fork, which would add its own time to every interval): EPOCHREALTIME
# needs bash 5; older bashes fall back on date(1).
now=0
stamp() {
    if [[ -n ${EPOCHREALTIME:-} ]]; then
        now=${EPOCHREALTIME/[.,]/}
        now=$((10#$now))
    else
        now=$(($(date +%s%N) / 1000))
    fi
}
now_us() { stamp; echo "$now"; }

# pin: the prefix that runs a timed command on one chosen core (BENCH_CPU,
# default 0). The cores of a virtual machine need not be equally fast (on
# this project's machine one runs the same program 1.65 times slower than
# the other), so every single-threaded figure that is set against another
# is taken on the same core. Empty without taskset or with one core.
pin=()
if command -v taskset >/dev/null && [[ $(nproc 2>/dev/null || echo 1) -gt 1 ]]; then
    pin=(taskset -c "${BENCH_CPU:-0}")
fi

# best_us K CMD...: the least wall time of K runs of CMD (pinned), in
# microseconds. Fails (status 1, message in $work/err) when any run fails.
best_us() {
    local k=$1 best='' t0 t1 i
    shift
    for ((i = 0; i < k; i++)); do
        stamp
        t0=$now
        "${pin[@]}" "$@" >"$work/out" 2>"$work/err" || return 1
        stamp
        t1=$now
        if [[ -z $best ]] || ((t1 - t0 < best)); then best=$((t1 - t0)); fi
    done
    echo "$best"
}

# fmt X: a float with 3 significant digits, or more before the point.
fmt() { awk -v x="$1" 'BEGIN { if (x >= 100) printf "%.0f", x; else if (x >= 10) printf "%.1f", x; else if (x >= 1) printf "%.2f", x; else printf "%.3g", x }'; }
# ratio A B: A / B to 3 significant digits, or n/a when either is n/a.
# A is n/a, a number, or ">N" (a lower bound); B is n/a, a number or "<N"
# (an upper bound); a bound on either side makes the ratio a lower bound.
ratio() {
    if [[ $1 == n/a || $2 == n/a ]]; then
        echo n/a
        return
    fi
    if [[ $1 == '>'* || $2 == '<'* ]]; then
        echo ">$(awk -v a="${1#>}" -v b="${2#<}" 'BEGIN { if (b <= 0) print "inf"; else printf "%.0f", a / b }')"
        return
    fi
    awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) { print "inf"; exit } r = a / b; if (r >= 100) printf "%.0f", r; else if (r >= 10) printf "%.1f", r; else printf "%.3g", r }'
}

