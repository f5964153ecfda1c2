# gradescope/gradescope.mk: make gradescope DEST=dir (included by the
# Makefile; instructors only: the student release leaves gradescope/ out).
#
# DEST/autograder.zip, for Gradescope's "Zipped autograder": setup.sh and
# run_autograder (gradescope/), and lab/, the student release (make
# release), whose grader/intake/ is the bundle's intake, all as of the
# last commit (HEAD), as a release is; with EX=NN, a stages file naming
# that stage; with VISIBILITY=, a visibility file: when students see the
# grade of a runner with a GPU (Gradescope's visibility: visible, hidden,
# after_due_date, after_published; after_due_date when there is no file).
# Written by the lab's own zip writer (build/gradescope/zipstore:
# files stored, modes kept), so that zip(1) is not needed. INSTRUCTORS.md,
# "Gradescope", says how it is used.
build/gradescope/zipstore: gradescope/zipstore.c
	@mkdir -p $(@D)
	$(call step,CC,$@)$(CC) $(ALL_CFLAGS) $< -o $@
GRADESCOPE_DIR := build/gradescope/bundle
# Gradescope's visibility settings, for VISIBILITY=
GRADESCOPE_VISIBILITY := visible hidden after_due_date after_published
GRADESCOPE_VISIBILITY_WORDS = $(subst $() ,$(comma) ,$(GRADESCOPE_VISIBILITY))
# EX=NN: an assignment for one stage (the bundle's stages file names it),
# where a kernel.cu uploaded alone is that stage's
.PHONY: gradescope
gradescope: build/gradescope/zipstore
	@test -x tools/release.sh || { echo "error: this is a student release; make gradescope works in the instructors' copy of the lab"; exit 2; }
	@$(if $(DEST),,echo "error: say where: make gradescope DEST=dir"; exit 2)
	@$(if $(EX),$(if $(STAGE),,echo "error: EX=$(EX) names no single stage: one of $(STAGES)"; exit 2))
	@$(if $(VISIBILITY),$(if $(or $(word 2,$(VISIBILITY)),$(filter-out $(GRADESCOPE_VISIBILITY),$(VISIBILITY))),echo "error: VISIBILITY=$(VISIBILITY): one of $(GRADESCOPE_VISIBILITY_WORDS) (Gradescope's)"; exit 2))
	@rm -rf $(GRADESCOPE_DIR) && mkdir -p $(GRADESCOPE_DIR) '$(DEST)'
	@tools/release.sh $(GRADESCOPE_DIR)/lab
	@if git rev-parse -q --verify HEAD >/dev/null 2>&1; then \
	    git archive --format=tar HEAD gradescope/setup.sh gradescope/run_autograder | tar -xf - -C $(GRADESCOPE_DIR) --strip-components=1; \
	else cp -p gradescope/setup.sh gradescope/run_autograder $(GRADESCOPE_DIR)/; fi
	@$(if $(STAGE),echo $(STAGE) >$(GRADESCOPE_DIR)/stages)
	@$(if $(VISIBILITY),echo $(VISIBILITY) >$(GRADESCOPE_DIR)/visibility)
	@rm -f '$(DEST)/autograder.zip' && build/gradescope/zipstore '$(DEST)/autograder.zip' $(GRADESCOPE_DIR)
	@echo "gradescope: $(DEST)/autograder.zip (setup.sh, run_autograder, lab/: the student release$(if $(STAGE),; stage $(STAGE) alone)$(if $(VISIBILITY),; a GPU's grade $(VISIBILITY)); INSTRUCTORS.md, \"Gradescope\")"
