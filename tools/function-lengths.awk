# function-lengths.awk: "file:line name lines" for each function defined in
# the C and CUDA files given, in the lab's style: the signature starts in
# column 0, the opening brace has a line of its own, the closing brace
# starts a line; the count runs from the signature's first line to the
# closing brace (tools/check-function-length.sh).
FNR == 1 { sig = ""; prev = ""; in_fn = 0 }
in_fn {
    if ($0 ~ /^}/) {
        printf "%s:%d %s %d\n", FILENAME, start, name, FNR - start + 1
        in_fn = 0
    }
    next
}
# a line that may begin a signature: not a declaration's end, a type, a
# preprocessor line, a comment or a brace
/^[A-Za-z_]/ && !/;[ \t]*$/ && !/^(typedef|struct|enum|union|extern "C"|static_assert)/ {
    sig = $0; sigline = FNR
}
/^\{[ \t]*$/ && prev ~ /\)[ \t]*(const[ \t]*)?$/ && sig != "" {
    s = sig; sub(/\(.*/, "", s); n = split(s, w, /[ \t*&]+/)
    name = w[n]; start = sigline; in_fn = 1
}
!/^[ \t]*$/ { prev = $0 }
