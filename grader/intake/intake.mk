# grader/intake/intake.mk: the one intake (grader/intake/intake.h),
# included by the Makefile; in the student release too.
#
# build/grader/take: the intake as a program (make grade GRADE_SRC= on the
# CPU, make explain KERNEL=, the Gradescope bundle); the GPU grade, make
# class and make similarity link INTAKE_LIB_SRCS (or names.c alone).
INTAKE_LIB_SRCS := grader/intake/submission.c grader/intake/names.c grader/intake/helpers.c
INTAKE_HEADERS := $(wildcard grader/intake/*.h)
build/grader/take: grader/intake/take.c $(INTAKE_LIB_SRCS) $(INTAKE_HEADERS) grader/util.c grader/grader.h build/stages.h \
                   $(HOST_LIB)
	@mkdir -p $(@D)
	$(call step,CC,$@)$(CC) $(ALL_CFLAGS) -Igrader/intake -Igrader -Ibuild $(filter %.c,$^) $(HOST_LIB) -lm -o $@
