# coverage.awk: checks a coverage table (doc/coverage/NAME.md) against the
# rules it describes.  Run as
#
#     awk -f tests/coverage.awk doc/coverage/NAME.md RULES_FILE STDLIB_FILE...
#
# and prints one line per problem (nothing when all is well):
# - a table row with neither a declaration nor a note saying why;
# - a declaration named in the table (`condition prone`, `action charge`,
#   `procedure f`, ...) that no file declares;
# - a section the rules cite (§ "Section") that has no row of its own.
# Rows are "| Section | Declarations | Notes |" under the table's header.
FNR == 1 { file++ }
file == 1 && /^\|/ {
    n = split($0, cell, "|")
    if (n < 5 || cell[2] ~ /^ *-+ *$/ || cell[2] ~ /^ *Section *$/)
        next
    section = cell[2]; gsub(/^ +| +$/, "", section)
    rows[section] = 1
    # "Initiative (*unheaded*)": a heading with a remark after it
    bare = section; sub(/ +\([^)]*\)$/, "", bare)
    rows[bare] = 1
    decls = cell[3]; notes = cell[4]
    if (decls !~ /[^ ]/ && notes !~ /[^ ]/)
        print FILENAME ": section \"" section "\" has neither a declaration nor a reason"
    while (match(decls, /`[^`]*`/)) {
        token = substr(decls, RSTART + 1, RLENGTH - 2)
        decls = substr(decls, RSTART + RLENGTH)
        if (split(token, w, /[ (]/) >= 2 && w[1] ~ /^(stat|resource|enum|item|condition|action|procedure|trigger|ruling|check|relation|range|duration|tactic|bonus|side|system)$/)
            wanted[w[1] " " w[2]] = section
    }
    next
}
file > 1 {
    line = $0
    sub(/^override +/, "", line)
    if (match(line, /^[a-z]+ +[A-Za-z_][A-Za-z_0-9]*/)) {
        split(substr(line, RSTART, RLENGTH), w, / +/)
        declared[w[1] " " w[2]] = 1
    }
    if (file == 2) {
        rest = $0
        while (match(rest, /§ *"[^"]*"/)) {
            cited = substr(rest, RSTART, RLENGTH)
            rest = substr(rest, RSTART + RLENGTH)
            sub(/^§ *"/, "", cited); sub(/"$/, "", cited)
            if (!(cited in seen)) {
                seen[cited] = 1
                order[++ncited] = cited
            }
        }
    }
}
END {
    for (k in wanted)
        if (!(k in declared))
            print "section \"" wanted[k] "\" names `" k "`, which is not declared"
    for (i = 1; i <= ncited; i++)
        if (!(order[i] in rows))
            print "the rules cite § \"" order[i] "\", which has no row in the table"
}
