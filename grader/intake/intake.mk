# grader/intake/intake.mk: the one intake (grader/intake/intake.h),
# included by the Makefile; in the student release too.
#
# build/grader/take: the intake as a program (make grade GRADE_SRC= on the
# CPU, make explain KERNEL=, the Gradescope bundle); the GPU grade, make
# class and make similarity link INTAKE_LIB_SRCS (or names.c alone).
INTAKE_LIB_SRCS := grader/intake/submission.c grader/intake/names.c grader/intake/helpers.c
INTAKE_HEADERS := $(wildcard grader/intake/*.h)
# The archivers it runs on a submission's archive run inside the build's
# wall beside it (build/confine/confine: grader/intake/helpers.c).
build/grader/take: grader/intake/take.c $(INTAKE_LIB_SRCS) $(INTAKE_HEADERS) grader/util.c grader/grader.h build/stages.h \
                   $(HOST_LIB) | build/confine/confine
	@mkdir -p $(@D)
	$(call step,CC,$@)$(CC) $(ALL_CFLAGS) -Igrader/intake -Igrader -Ibuild $(filter %.c,$^) $(HOST_LIB) -lm -o $@
