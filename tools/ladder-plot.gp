# ladder-plot.gp: bar chart of one family's ladder, from tools/records2ladder.sh output.
#
#   gnuplot -c tools/ladder-plot.gp build/plots/ladder_matmul.dat handouts/plots/ladder_matmul.svg
#
# The stages' kernels are drawn in orange, in stage order, the library references in blue, as in
# tools/stage-plot.gp; each bar carries its rate and its percentage of the family's reference.

data = ARG1
out = ARG2
# the "# key: value" header lines written by records2ladder.sh
meta(key) = system(sprintf("sed -n 's/^# %s: //p' '%s' | head -n 1", key, data))

set terminal svg size 720,400 font "DejaVu Sans,12" background rgb "white" noenhanced
set output out
set datafile separator "\t"
set title meta("title") . "\n" . meta("metric") . " and % of " . meta("reference") . ", each measured in its stage's run"
set ylabel meta("metric")
set style fill solid 0.85 border rgb "#333333"
set yrange [0:*]
set offsets 0.2, 0.2, graph 0.2, 0
set grid ytics lc rgb "#dddddd"
set xtics nomirror scale 0
set ytics nomirror
set border 3
set bmargin 4
unset key

# a tick label on two lines, broken at the first "_" or blank: "01_naive" -> "01", "naive"
cut(s) = strstrt(s, "_") > 0 ? strstrt(s, "_") : strstrt(s, " ")
tick(s) = cut(s) > 0 ? s[1:cut(s) - 1] . "\n" . s[cut(s) + 1:] : s
# rates rounded half up, as the texts quote them (sprintf alone rounds 37864.5 to even)
rounded(x) = sprintf("%.0f", floor(x + 0.5))
bar_label(rate, pct) = pct eq "-" ? rounded(rate) : rounded(rate) . "\n" . pct . "%"
bar_colour(role) = role eq "stage" ? 0xE69F00 : 0x0072B2
plot data using 0:2:(0.6):(bar_colour(strcol(4))):xtic(tick(strcol(1))) with boxes lc rgb variable, \
     data using 0:2:(bar_label($2, strcol(3))) with labels offset 0,1.6
