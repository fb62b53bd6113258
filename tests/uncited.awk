# uncited.awk: prints each top-level declaration of a rules file that cites
# no passage (no § "Section" anywhere in it), as "FILE:LINE: KIND NAME".
# A `use` or `import` line loads rules and cites nothing.  Used by
# check-repo.test on the systems of rules/, where every declaration says
# which section of its document it transcribes.
function flush() {
    if (text != "" && text !~ /§/ && first !~ /^(use|import) /)
        print file ":" line ": " first
    text = ""
}
FNR == 1 { flush(); file = FILENAME }
/^[ \t]*#/ { next }
/^[A-Za-z_]/ {
    flush()
    first = $0
    sub(/[ \t]*[{=(].*$/, "", first)
    line = FNR
}
/^[ \t]*$/ { next }
{ text = text " " $0 }
END { flush() }
