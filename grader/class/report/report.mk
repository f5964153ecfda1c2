# grader/class/report/report.mk: the class report and the similarity review
# (included by the Makefile; absent from a student release, as grader/class/ is).
#
# make report OUT=dir [ANON=1]       OUT/report.html from a class's gradebook
#                                    (ANON=1: OUT/report-anon.html, names as student-NN)
# make similarity SUBMISSIONS=dir OUT=dir [EX="03 07"] [KNOWN=dir]
#                                    OUT/similarity.csv and similarity.html: each stage's
#                                    kernel.cu files, pair by pair and against the lab's own
#                                    (without SUBMISSIONS: the kernels make class took into OUT)
# make class runs both at its end (CLASS_AFTER), on the students it took in.
REPORT_DIR := grader/class/report
build/grader/report: $(addprefix $(REPORT_DIR)/,report.c page.c checkpage.c classdata.c text.c report.h) common/util.h \
    $(HOST_LIB) build/stages.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Ibuild $(filter %.c,$^) $(HOST_LIB) -lm -o $@
# its preprocessor runs inside the build's wall (preprocess.c)
build/grader/similarity: $(addprefix $(REPORT_DIR)/,similarity.c marks.c fingerprint.c simpage.c preprocess.c tokens.c text.c report.h) \
    grader/intake/names.c grader/intake/names.h $(HOST_LIB) \
    | build/confine/confine build/wall/compile.paths
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Igrader/intake $(filter %.c,$^) $(HOST_LIB) -o $@

.PHONY: report similarity
report: build/grader/report
	@$(if $(filter command line,$(origin OUT)),,echo "error: say which class: make report OUT=dir (the OUT of make class)"; exit 2)
	@build/grader/report --out '$(OUT)' $(if $(filter-out 0,$(ANON)),--anon --html '$(OUT)/report-anon.html')
similarity: build/grader/similarity
	@$(if $(filter command line,$(origin OUT)),,echo "error: say where: make similarity SUBMISSIONS=dir OUT=dir (or OUT=a class's OUT alone)"; exit 2)
	@$(if $(SUBMISSIONS),,test -d '$(OUT)/students' || { echo "error: say whose work: make similarity SUBMISSIONS=dir OUT=dir (the folders make class takes)"; exit 2; })
	@mkdir -p '$(OUT)' && build/grader/similarity --lab . $(if $(SUBMISSIONS),--submissions '$(SUBMISSIONS)',--class '$(OUT)') \
	    --out '$(OUT)' $(if $(EX),--stages '$(EX)') $(if $(KNOWN),--known '$(KNOWN)')

# after make class (local back end: its gradebook is there when it returns):
# the report (a check's: what compiled, what was correct on the CPU
# emulator, each first message), and similarity over the kernels class
# intake took in.
class: build/grader/report build/grader/similarity
CLASS_AFTER = test ! -f '$(CLASS_OUT)/gradebook.csv' || { \
    build/grader/report --out '$(CLASS_OUT)' && \
    build/grader/similarity --lab . --class '$(CLASS_OUT)' --out '$(CLASS_OUT)'; }
