# decls.awk: prints each top-level declaration of a rules file on one line,
# as "FILE<TAB>TEXT", its comments and citations (§ "...") removed and its
# blanks squeezed, so that copies of one declaration compare equal however
# they are cited or laid out (a block left empty once its citations are
# removed is dropped: `stat dex = 0 { § "X" }` is `stat dex = 0`).  A
# declaration starts at a line that begins in column 1 with a word and runs
# to the line before the next such line.
# Used by check-repo.test to find declarations carried by two files.
function flush() {
    if (text != "") {
        gsub(/§ *"[^"]*" *;?/, "", text)
        gsub(/[ \t]+/, " ", text)
        gsub(/ ?([{};]) ?/, "&", text)
        gsub(/ *\{ *\}/, "", text)  # a block that held only the citation
        sub(/^ /, "", text); sub(/ $/, "", text)
        print file "\t" text
    }
    text = ""
}
FNR == 1 { flush(); file = FILENAME }
{ sub(/(^|[ \t])#.*$/, "") }          # comments (no '#' inside strings in rules files)
/^[ \t]*$/ { next }
/^[A-Za-z_]/ { flush() }
{ text = text " " $0 }
END { flush() }
