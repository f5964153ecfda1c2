# tests/grader/json.sh, sourced by tests/grader/run.sh: tools/json.c, the lab's
# JSON reader for scripts ($out/json, built by tests/grader/programs.sh):
# its values, its flat listing, its check and an exit status for each failure.
j=$out/json
printf '{"a": {"b": [1.50, "x\\ty\\nz", true, null]}, "n": 1e+06, "s": "back\\\\slash"}\n' >"$out/json-in.json"
printf '{"a": 1,}\n' >"$out/json-bad.json"
check "json: get prints a number as written, a string as it is, an array's size" \
    "$([ "$("$j" get "$out/json-in.json" a.b.0)" = 1.50 ] && [ "$("$j" get "$out/json-in.json" n)" = 1e+06 ] &&
       [ "$("$j" get "$out/json-in.json" a.b.1)" = $'x\ty\nz' ] && [ "$("$j" get "$out/json-in.json" a.b)" = 4 ] &&
       [ "$("$j" get "$out/json-in.json" a.b.3)" = null ]; echo $?)"
check "json: flat lists every scalar in order, one a line, tabs, newlines and backslashes escaped" \
    "$([ "$("$j" flat "$out/json-in.json")" = $'a.b.0\t1.50\na.b.1\tx\\ty\\nz\na.b.2\ttrue\na.b.3\tnull\nn\t1e+06\ns\tback\\\\slash' ]; echo $?)" \
    "$("$j" flat "$out/json-in.json" 2>&1)"
check "json: flat --names begins each line with its file" \
    "$([ "$("$j" flat --names "$out/json-in.json" "$out/json-in.json" | grep -c "^$out/json-in.json"$'\t')" = 12 ]; echo $?)"
"$j" get "$out/json-none.json" a 2>/dev/null; no_file=$?
"$j" get "$out/json-bad.json" a 2>/dev/null; not_json=$?
"$j" get "$out/json-in.json" a.c 2>/dev/null; no_path=$?
"$j" frob 2>/dev/null; usage=$?
said=$("$j" check "$out/json-in.json" n a.b.3 s 2>&1); present=$?
missing=$("$j" check "$out/json-in.json" n a.c score 2>&1); absent=$?
"$j" check "$out/json-bad.json" 2>/dev/null; check_bad=$?
check "json: check is silent where the file is JSON with each path; else names each missing one, exit 4 (3 not JSON)" \
    "$([ "$present" = 0 ] && [ -z "$said" ] && [ $absent = 4 ] && [ $check_bad = 3 ] &&
       [ "$missing" = "json: $out/json-in.json: no value at a.c"$'\n'"json: $out/json-in.json: no value at score" ]; echo $?)" \
    "check: exit $present, said '$said'; missing: exit $absent, said '$missing'; not JSON: exit $check_bad"
check "json: exit status 2 no such file, 3 not JSON, 4 no such path, 1 usage" \
    "$([ "$no_file $not_json $no_path $usage" = "2 3 4 1" ]; echo $?)" "got $no_file $not_json $no_path $usage"
