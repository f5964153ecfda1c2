# function-lengths.awk: "file:line name lines linkage" for each function
# defined in the C and CUDA files given, in the lab's style: the signature
# starts in column 0, the opening brace has a line of its own (or the whole
# function is on the signature's line), the closing brace starts a line;
# the count runs from the signature's first line to the closing brace;
# linkage is "static" or "global" (tools/check-function-length.sh,
# tests/layout/names.sh).
FNR == 1 { sig = ""; prev = ""; in_fn = 0 }
in_fn {
    if ($0 ~ /^}/) {
        printf "%s:%d %s %d %s\n", FILENAME, start, name, FNR - start + 1, linkage
        in_fn = 0
    }
    next
}
# a line that may begin a signature: not a declaration's end, a type, a
# preprocessor line, a comment or a brace
/^[A-Za-z_]/ && !/;[ \t]*$/ && !/^(typedef|struct|enum|union|extern "C"|static_assert)/ {
    sig = $0; sigline = FNR
}
# a whole function on one line: "void f(int x) { g(x); }"
/^[A-Za-z_][^=;]*\([^;]*\)[ \t]*(const[ \t]*)?\{.*\}[ \t]*$/ && !/^(typedef|struct|enum|union)/ {
    s = $0; sub(/\(.*/, "", s); n = split(s, w, /[ \t*&]+/)
    printf "%s:%d %s 1 %s\n", FILENAME, FNR, w[n], s ~ /(^|[ \t])static[ \t]/ ? "static" : "global"
    sig = ""
}
/^\{[ \t]*$/ && prev ~ /\)[ \t]*(const[ \t]*)?$/ && sig != "" {
    s = sig; sub(/\(.*/, "", s); n = split(s, w, /[ \t*&]+/)
    name = w[n]; start = sigline; in_fn = 1
    linkage = s ~ /(^|[ \t])static[ \t]/ ? "static" : "global"
}
!/^[ \t]*$/ { prev = $0 }
