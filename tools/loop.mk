# tools/loop.mk: what make says to a student (included by the Makefile,
# after the stages' facts and emu/emu.mk): one short line a build step,
# a note for a knob that a target does not use, one sentence when nvcc is
# missing, the errors of EX= and SOLUTION=, and make help.
#
#   V=1   every command in full, as make runs it (the wall's long
#         build/confine/confine --build lines too). Without it a step prints
#         one line, its tool and its file, then the tool's own messages as
#         they are (the compiler's errors with their file:line, the wall's
#         notes):   NVCC  exercises/03_tiled/kernel.cu
#                   LINK  build/03_tiled/exercise
#         make -s prints the messages alone (tools/grade-build.sh's log).

# $(call step,TOOL,WHAT): the start of a recipe line (which then has no @)
LOOP_QUIET := $(if $(filter-out 0,$(V)),,1)
step = $(if $(LOOP_QUIET),@$(if $(findstring s,$(firstword -$(MAKEFLAGS))),,printf '  %-5s %s\n' '$(1)' '$(2)';) )

# ------------------------------------------------------------ EX= and SOLUTION=
stage-known:
	@$(if $(EX),,echo "error: say which stage: make $(MAKECMDGOALS) EX=03 (stages: $(STAGES))"; exit 2)
	@$(if $(filter-out 0 1,$(words $(EX_MATCHES))),echo "error: EX=$(EX) fits more than one stage ($(EX_MATCHES)): name one (EX=03 or EX=3)"; exit 2)
	@$(if $(STAGE),,echo "error: no stage matches EX=$(EX); the stages are: $(STAGES)"; exit 2)

# SOLUTION=1 where the solution is not here: say why before make looks for it.
ifeq ($(VARIANT)$(if $(STAGE),,-)$(wildcard solutions/$(STAGE)/kernel.cu),solution)
$(error SOLUTION=1: there is no solutions/$(STAGE)/kernel.cu$(if $(RELEASE), (this is a student release of the lab: it has no solutions; SOLUTION=1 works in the instructors' copy)))
endif

# ---------------------------------------------------------------- knobs
# A stage's knob (stages.tsv: TILE, BLOCK, ...) given on the command line
# reaches only the goals that build the stage at its value (make run,
# profile, ptxas: RUN_DIR, build/<stage>/k<value>). Any other use gets one
# note, and make goes on as it would: a goal that never uses a knob (make
# grade grades kernel.cu as it is), or a knob that is another stage's. A
# value that is no size (TILE=abc, TILE=016: octal 14 to the compiler) is
# an error; a size the kernel cannot take is the kernel's static_assert's.
LOOP_GOALS := $(or $(MAKECMDGOALS),all)
LOOP_USES := $(firstword $(filter run profile ptxas,$(LOOP_GOALS)))
LOOP_IGNORES := $(firstword $(filter grade calibrate class sweep bench all check status kernel,$(LOOP_GOALS)))
LOOP_GIVEN := $(foreach k,$(sort $(filter-out -,$(foreach s,$(STAGES),$(KNOB_$(s))))),\
                $(if $(filter command line,$(origin $(k))),$(k)))
loop_nn = $(firstword $(subst _, ,$(1)))
# the stages whose knob $(1) is; loop_whose: this one where it is, else every one
loop_owners = $(foreach s,$(STAGES),$(if $(filter $(1),$(KNOB_$(s))),$(s)))
loop_whose = $(or $(filter $(STAGE),$(call loop_owners,$(1))),$(call loop_owners,$(1)))
loop_list = $(subst $(loop_space),$(comma)$(loop_space),$(strip $(foreach s,$(1),$(call loop_nn,$(s)))))
loop_space := $(subst ,, )
loop_try = make run EX=$(call loop_nn,$(firstword $(2))) $(1)=$($(1)) times that value$(if $(word 2,$(2)), \
           ($(1) is also the knob of $(call loop_list,$(wordlist 2,99,$(2)))))
loop_why_grade = $(if $(STAGE),the stage is,each stage is) graded as its kernel.cu defines it
loop_why_calibrate = the reference kernels are measured as stages.tsv builds them
loop_why_class = each student's kernel.cu is graded as it defines it
loop_why_sweep = it times each value of $(STAGE)'s $(KNOB) ($(SWEEP_$(STAGE)))
loop_why_kernel = give it as KERNEL_FLAGS=-D$(1)=$($(1))
loop_why = $(or $(loop_why_$(LOOP_IGNORES)),it builds each stage as its kernel.cu defines it)
loop_digits = $(strip $(subst 0,,$(subst 1,,$(subst 2,,$(subst 3,,$(subst 4,,$(subst 5,,$(subst 6,,$(subst 7,,\
              $(subst 8,,$(subst 9,,$(1))))))))))))
loop_bad = $(or $(filter-out 1,$(words $(1))),$(call loop_digits,$(1)),$(filter 0%,$(1)))
define loop_knob
ifneq ($(and $(LOOP_USES),$(STAGE),$(filter $(1),$(KNOB_$(STAGE)))),)
$$(if $$(call loop_bad,$$($(1))),$$(error $(1)=$$($(1)): a knob's value is a size, a whole number \
  (make sweep EX=$(call loop_nn,$(STAGE)) tries $(SWEEP_$(STAGE))); leave $(1) out for kernel.cu's own))
$$(if $(LOOP_IGNORES),$$(info note: $(1)=$$($(1)) is not used by make $(LOOP_IGNORES): $$(call loop_why,$(1))))
else ifneq ($(and $(LOOP_USES),$(STAGE)),)
$$(info note: $(1)=$$($(1)) is not used by $(STAGE), $(if $(filter-out -,$(KNOB)),whose knob is $(KNOB) \
  (make $(LOOP_USES) EX=$(call loop_nn,$(STAGE)) $(KNOB)=$$($(1))),which has no knob))
else ifneq ($(LOOP_IGNORES),)
$$(info note: $(1)=$$($(1)) is not used by make $(LOOP_IGNORES): $$(call loop_why,$(1))$(if $(filter-out kernel,\
  $(LOOP_IGNORES)),$$(if $$(call loop_bad,$$($(1))),,; $$(call loop_try,$(1),$$(call loop_whose,$(1))))))
endif
endef
$(foreach k,$(LOOP_GIVEN),$(eval $(call loop_knob,$(k))))

# ----------------------------------------------------------------- nvcc
# Every goal that compiles for the GPU stops at once where nvcc is not, with
# one sentence (make's status 2), instead of each tool's own failure. The
# CPU emulation (make run and make grade without a GPU) needs no nvcc; nor
# does make grade PREBUILT=1 (make class's, built before): its grader names
# a missing nvcc itself, with the status class grading reads (4).
LOOP_NVCC_GOALS := all run sweep grade calibrate profile profile-expected ptxas kernel bench check status \
                   release class gradescope resources-expected
LOOP_NO_NVCC := $(if $(EMU_ON),run grade) $(if $(filter-out 0,$(PREBUILT)),grade)
ifeq ($(NVCC_FOUND),)
ifneq ($(filter $(LOOP_NVCC_GOALS),$(filter-out $(LOOP_NO_NVCC),$(LOOP_GOALS))),)
$(error nvcc not found$(if $(filter-out nvcc,$(NVCC)), (NVCC=$(NVCC))): install the CUDA Toolkit or put its bin \
  folder on PATH (README.md, "Building"))
endif
endif

# ----------------------------------------------------------------- help
help:
	@echo "The CUDA memory lab. Edit exercises/NN_*/kernel.cu, then:"
	@echo "  make run EX=NN        check and time your kernel (TILE=32 etc.: the stage's knob)"
	@echo "  make sweep EX=NN      time each value of the stage's knob"
	@echo "  make grade            grade every stage (EX=NN: one stage; SANITIZE=1: also compute-sanitizer)"
	@$(if $(RELEASE),,echo "  make calibrate        instructors: measure each tier's reference kernel, write this GPU's thresholds")
	@echo "  make profile EX=NN    hardware counters of one call, in plain words (needs ncu)"
	@echo "  make explain EX=NN    sectors per warp load, bank conflicts, line by line: counted on the CPU, no GPU needed"
	@echo "  make ptxas EX=NN      registers and shared memory of each kernel"
	@echo "  make docs             handouts and slides to build/docs/ (needs pandoc)"
	@echo "  make status           per stage: skeleton, compile error, compiles, correct; last grade's points"
	@echo "  make check            the lab's own test suite"
	@echo "  make tables           the stage tables of README.md and handouts/README.md, from stages.tsv"
	@echo "  V=1                   with any of them: every command in full (else one line a step)"
	@$(if $(RELEASE),,echo "instructors (INSTRUCTORS.md):")
	@$(if $(RELEASE),,echo "  make release DEST=dir          the student tree: no solutions, no instructors' tools")
	@$(if $(RELEASE),,echo "  make class SUBMISSIONS=dir     grade every student's kernel.cu files; OUT/gradebook.csv (CHECK=1: no GPU)")
	@$(if $(RELEASE),,echo "  make export OUT=dir [FORMAT=..] the gradebook for Gradescope, Canvas, or plain (ROSTER= to make class)")
	@$(if $(RELEASE),,echo "  make report OUT=dir [ANON=1]   the class report, OUT/report.html (make class writes it too)")
	@$(if $(RELEASE),,echo "  make similarity OUT=dir        how alike the students' kernels are, for a person to review")
	@$(if $(RELEASE),,echo "  make gradescope DEST=dir       Gradescope's autograder.zip (the release inside)")
	@echo "stages (EX=, knob and its sweep):"
	@. build/stages.env && $(foreach s,$(STAGES),printf '  %-22s %-10s %-9s %s\n' $(s) $(KNOB_$(s)) '$(SWEEP_$(s))' "$$LAB_LESSON_$(s)";)
