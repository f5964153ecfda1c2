# grader/resources.mk, included by the Makefile: the table of what the
# compiler gave each tier's reference kernel (grader/resources.tsv), which
# the grader sets beside a student's kernel when a correct stage misses a
# tier (grader/resources.c). Instructors, after changing a reference:
#
#   make resources-expected [RESOURCES_STAGES="08_warptiling"] [CUDA_ARCH=all]
#
# builds the references' objects (in the wall, as for make calibrate) and
# runs cuobjdump on them; a stage without rows gets no such sentence.
RESOURCES_STAGES ?= 08_warptiling
RESOURCES_TABLE := build/tools/resources-table
$(RESOURCES_TABLE): tools/resources-table.c $(filter-out grader/grade.c,$(GRADER_SRCS)) grader/resources.h \
                    grader/grader.h grader/grading.h build/stages.h $(GRADER_COMMON_SRCS) $(INTAKE_LIB_SRCS) \
                    $(INTAKE_HEADERS) $(HOST_LIB)
	@mkdir -p $(@D)
	$(call step,CC,$@)$(CC) $(ALL_CFLAGS) -Wno-format-truncation -Igrader -Igrader/intake -Ibuild $(filter %.c,$^) $(HOST_LIB) -lm -o $@
.PHONY: resources-expected
resources-expected: $(RESOURCES_TABLE)
	@$(if $(RELEASE),echo "error: make resources-expected reads the tiers' reference kernels: this student release has none"; exit 2)
	@$(MAKE) -s --no-print-directory $$($(RESOURCES_TABLE) --objects $(RESOURCES_STAGES))
	@$(RESOURCES_TABLE) $(RESOURCES_STAGES) >build/resources.tsv && mv build/resources.tsv grader/resources.tsv
	@echo "grader/resources.tsv: $$(grep -vc '^#' grader/resources.tsv) rows for $(RESOURCES_STAGES)"
