# stage-plot.gp: bar chart of one stage's measured rates, from tools/records2dat.sh output.
#
#   gnuplot -c tools/stage-plot.gp build/plots/03_tiled.dat handouts/plots/03_tiled.svg
#
# The kernel under test (student or solution) is drawn in orange, the references (cuBLAS, baseline,
# copy, memcpy) in blue; each bar carries its value.

data = ARG1
out = ARG2
# the "# key: value" header lines written by records2dat.sh
meta(key) = system(sprintf("sed -n 's/^# %s: //p' '%s' | head -n 1", key, data))

set terminal svg size 640,360 font "DejaVu Sans,12" background rgb "white" noenhanced
set output out
set title meta("title")
set ylabel meta("metric")
set style fill solid 0.85 border rgb "#333333"
set yrange [0:*]
set offsets 0.2, 0.2, graph 0.12, 0
set grid ytics lc rgb "#dddddd"
set xtics nomirror scale 0
set ytics nomirror
set border 3
unset key

bar_colour(name) = (name eq "student" || name eq "solution") ? 0xE69F00 : 0x0072B2
plot data using 0:2:(0.6):(bar_colour(strcol(1))):xtic(1) with boxes lc rgb variable, \
     data using 0:2:(sprintf("%.0f", $2)) with labels offset 0,0.8
