# profile/profile.mk, included by the Makefile: what the tools measure of
# one stage's kernel, make profile, make profile-expected and make ptxas.
# It uses the Makefile's stage variables (STAGE, VARIANT, RUN_BIN, GPU_RUN).
# make profile EX=03: one call of the kernel under Nsight Compute (after its
# checks), in plain words, beside the solution's where solutions/ exists and
# the values in profile/expected.tsv where it does not (a student release).
# make profile-expected [EX=03] (instructors) stores the solutions' values
# for this GPU in profile/expected.tsv. NCU=/path/to/ncu picks an ncu.
# tools/profile.sh hands the work to build/tools/profile-report, plain C
# (profile/*.c): it runs ncu, reads its raw page and writes the report.
PROFILE_REPORT := build/tools/profile-report
PROFILE_SRCS := $(wildcard profile/*.c)
$(PROFILE_REPORT): $(PROFILE_SRCS) $(wildcard profile/*.h) $(wildcard common/*.h) build/stages.h $(HOST_LIB)
	@mkdir -p $(@D)
	$(call step,CC,$@)$(CC) $(ALL_CFLAGS) -Iprofile -Ibuild $(PROFILE_SRCS) $(HOST_LIB) -lm -o $@

PROFILE_REF := $(if $(filter exercise,$(VARIANT)),$(if $(wildcard solutions/$(STAGE)/kernel.cu),$(RUN_DIR)/solution))
profile: stage-known $(PROFILE_REPORT) $(if $(STAGE),$(RUN_DEPS) $(PROFILE_REF))
	@$(if $(NCU),NCU='$(NCU)') $(GPU_RUN) tools/profile.sh $(STAGE) $(RUN_BIN) $(PROFILE_REF) -- $(RUN_ARGS)

EXPECTED_STAGES := $(foreach s,$(or $(STAGE),$(STAGES)),$(if $(wildcard solutions/$(s)/kernel.cu),$(s)))
profile-expected: $(PROFILE_REPORT) $(foreach s,$(EXPECTED_STAGES),build/$(s)/solution)
	@for s in $(EXPECTED_STAGES); do \
	    $(if $(NCU),NCU='$(NCU)') tools/profile.sh --expected $$s build/$$s/solution -- $(RUN_ARGS) || exit 1; \
	done

# What the compiler gives each kernel of one stage: registers per thread,
# shared memory per block, spills. make ptxas EX=06 [TM=16] [SOLUTION=1]
DEMANGLE := $(or $(shell command -v cu++filt 2>/dev/null),$(shell command -v c++filt 2>/dev/null),cat)
.PHONY: ptxas
ptxas: stage-known
	@mkdir -p build
	$(call step,PTXAS,$(VARIANT)s/$(STAGE)/kernel.cu$(if $(KNOB_VALUE), ($(KNOB)=$(KNOB_VALUE))))$(NVCC) $(ALL_NVCCFLAGS) $(if $(KNOB_VALUE),-D$(KNOB)=$(KNOB_VALUE)) -Xptxas -v \
	    -c $(VARIANT)s/$(STAGE)/kernel.cu -o /dev/null 2>build/ptxas.txt || { cat build/ptxas.txt; exit 1; }
	@$(DEMANGLE) <build/ptxas.txt
