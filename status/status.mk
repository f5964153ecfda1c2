# status/status.mk: make status, and make check in a student release
# (included by the Makefile).
#
#   make status [EX="01 03"]   per stage: still the skeleton, does not compile
#                              (the first error), compiles, correct (on the GPU
#                              or the CPU emulator), points of the last make grade
#
# In a student release (.lab/skeletons/ holds the skeletons as handed out),
# make check tests the lab on a copy whose exercises/ are those skeletons
# (status/pristine-check.sh), so that a student's own work, finished or
# broken, never fails it; their files are make status's and make grade's.
.PHONY: status
status: build/stages.env build/grader/grade build/confine/confine $(if $(filter-out 0,$(HAVE_GPU)),build/confine/cuda-probe)
	@status/status.sh "$(EX)"
PRISTINE_CHECK := $(if $(wildcard .lab/skeletons/*/kernel.cu),status/pristine-check.sh)
# make check-build: what make check builds before its tests (the release's
# make check builds it first, a job a core: status/pristine-check.sh)
.PHONY: check-build
check-build: build/tests/unit all $(FIXTURES) build/grader/grade build/confine/confine build/confine/objcheck emu-all $(JSON_TOOL)
