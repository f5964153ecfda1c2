# tests/class/similarity/corpus.sh (sourced): the copies a similarity mark
# must catch, and the class of honest kernels and copies that each stage's
# mark is measured on (research/similarity-class.sh marks) and tested
# against (tests/class/similarity/run.sh). Run from the lab's root.
#
#   sim_renamed SRC     SRC with every name it declares changed and its
#                       comments gone: a copy that a glance does not know
#   sim_wrapped SRC     SRC whole as the body of one #define, comments and
#                       pragmas gone (issue 43)
#   sim_semis SRC       SRC with every statement's ; doubled (issue 43)
#   sim_corpus DIR      DIR/subs/NAME/NN_name/kernel.cu, one student a kernel
#                       of honest.tsv and one a copy, and DIR/who.tsv
#   sim_pairs CSV WHO   each pair of similarity.csv that is honest (two
#                       origins) or a copy and its source: stage, kind,
#                       score, review, student, other

sim_renamed() {
    perl -0777 -pe '
        s{//[^\n]*}{}g; s{/\*.*?\*/}{}gs;
        my %new; my $i = 0;
        my $type = qr/(?:#define|\b(?:struct|void|int|unsigned|float|float4|size_t|dim3|bool|auto))/;
        while (/$type[\s*&]+(?:const\s+)?([A-Za-z_]\w*)/g) { $new{$1} //= "q" . $i++ unless $1 =~ /^__/ }
        delete @new{qw(matmul transpose reduce main const volatile static inline char short long signed
                       double float int unsigned)};
        s{(?<![\w.])(?<!->)([A-Za-z_]\w*)}{exists $new{$1} ? $new{$1} : $1}ge;' "$1"
}

sim_wrapped() {
    sed 's://.*$::' "$1" | awk '/^[ \t]*#[ \t]*pragma/ { next } /^#/ { print; next }
        { body = body $0 " \\\n" } END { print "#define LAB_BODY \\"; printf "%s", body; print ""; print "LAB_BODY" }'
}

sim_semis() {
    sed 's/;\s*$/;;/' "$1"
}

# one student of the corpus: name, stage, role, origin, kernel (its file),
# the text on stdin
sim_student() {
    mkdir -p "$sim_dir/subs/$1/$2" && cat >"$sim_dir/subs/$1/$2/kernel.cu" &&
        printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >>"$sim_dir/who.tsv"
}

sim_corpus() {
    sim_dir=$1
    local k=tests/class/similarity stage origin kernel name
    rm -rf "$sim_dir/subs" && mkdir -p "$sim_dir/subs" && : >"$sim_dir/who.tsv" || return 2
    while IFS=$'\t' read -r stage origin kernel; do
        name=$(sed 's:/:.:g; s:\.cu$::' <<<"$kernel")
        sim_student "$name" "$stage" honest "$origin" "$kernel" <"$kernel"
        sim_renamed "$kernel" | sim_student "renamed.$name" "$stage" copy "$origin" "$kernel"
        case $kernel in
        solutions/*)
            sim_wrapped "$kernel" | sim_student "wrapped.$name" "$stage" copy "$origin" "$kernel"
            sim_semis "$kernel" | sim_student "semis.$name" "$stage" copy "$origin" "$kernel" ;;
        esac
    done < <(grep -v '^#' "$k/honest.tsv")
    sim_student copier 03_tiled copy indep_a "$k/03_tiled/indep_a.cu" <"$k/03_tiled/copy_of_a.cu"
    sim_student paster 07_reduction copy harris_reduce6 grader/class/report/known/07_reduction/harris_reduce6.cu \
        <"$k/07_reduction/pasted.cu"
}

sim_pairs() {
    awk -F'\t' -v OFS='\t' '
        FNR == 1 { file++ }
        file == 1 { if (!/^#/) origin[$1 SUBSEP "lab:" $3] = $2; next }
        file == 2 { role[$1] = $3; origin[$2 SUBSEP $1] = $4; kernel[$1] = $5; next }
        FNR == 1 { next }
        function id(x) { return x ~ /^lab:/ ? substr(x, 5) : role[x] == "honest" ? kernel[x] : x }
        function put(kind, a, b) {
            key = s SUBSEP (id(a) < id(b) ? id(a) SUBSEP id(b) : id(b) SUBSEP id(a))
            if (!seen[key]++)
                print s, kind, f[4], f[5], a, b
        }
        {
            split($0, f, ","); s = f[1]
            a = f[2]; b = f[3]; sub(/^known:/, "lab:grader/class/report/known/", b)
            if (role[a] == "copy" && ("lab:" kernel[a] == b || kernel[b] == kernel[a] && role[b] == "honest"))
                put("copy", a, b)
            else if (role[b] == "copy" && kernel[b] == kernel[a] && role[a] == "honest")
                put("copy", b, a)
            else if (role[a] == "honest" && (role[b] == "honest" || b ~ /^lab:/) &&
                     origin[s SUBSEP a] != origin[s SUBSEP b])
                put("honest", a, b)
        }' tests/class/similarity/honest.tsv "$2" "$1"
}
