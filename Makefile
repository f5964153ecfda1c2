# The CUDA memory lab: one non-recursive Makefile for everything.
#
#   make                      build every stage, your exercise and the solution
#   make run EX=03            check, then time, exercises/03_tiled/kernel.cu
#   make run EX=03 TILE=32    ... with the stage's knob set (see stages.tsv)
#   make run EX=03 SOLUTION=1 run the solution instead (instructors)
#   make run EX=03 N=2048 SEED=7 SANITIZE=1
#   make sweep EX=03          build and time every knob value, one table (no GPU: the records)
#   make grade                grade every stage (EX=03: one; SANITIZE=1; SEED=)
#   make calibrate            instructors: thresholds for this GPU (grader/rubric.tsv),
#                             each tier's from its reference kernel (stages.tsv)
#   make profile EX=03        hardware counters of one call (Nsight Compute),
#                             beside the solution's
#   make ptxas EX=06 [TM=16]  registers and shared memory of each kernel
#   make resources-expected   instructors: the registers of the tiers' reference kernels
#                             (grader/resources.tsv, for a missed tier's advice)
#   make kernel EX=07 KERNEL=f.cu  any file keeping a stage's contract, built as its programs are
#   make bench                every solution timed once, records in results/
#   make status               where your stages stand: skeleton, compile error,
#                             compiles, correct; points of the last make grade
#   make check                the test suite (its GPU part where a GPU is)
#   make release DEST=dir     instructors: the student tree, without solutions
#   make class SUBMISSIONS=dir  instructors: grade a class (INSTRUCTORS.md); CHECK=1:
#                             build and check it without a GPU
#   make export OUT=dir       instructors: a class's gradebook for Gradescope, Canvas
#                             (FORMAT=gradescope canvas plain; ROSTER= to make class)
#   make gradescope DEST=dir  instructors: Gradescope's autograder.zip
#   make tables               README.md's and handouts/README.md's stage tables, from stages.tsv
#   make help                 the stages and these targets
#   make clean
#
# NVCC, NVCCFLAGS, CC, CFLAGS and CUDA_ARCH can be set on the command line,
# e.g. make CUDA_ARCH=all (7.5 to 9.0) or make CUDA_ARCH="80 90". V=1 shows every command
# in full, not one line a step (tools/loop.mk: also the notes on knobs).
#
# On a Slurm login node without a GPU, run, sweep, grade and profile build
# here and run on a GPU node through srun (tools/gpu-run.sh: its settings,
# LAB_SRUN_* or lab-slurm.env; LAB_LOCAL=1 runs here).

NVCC ?= nvcc
CC := $(if $(filter default,$(origin CC)),gcc,$(CC))

# What a build targets (and PTX for newer GPUs): a GPU here, its own
# architecture; none, the course GPU's (COURSE_ARCH), what a student's
# loop needs (the CPU emulation needs no other); none but Slurm to send the
# work to, every one (ALL_ARCHS: the GPU node may be any of them).
# CUDA_ARCH=all asks for every one anywhere, CUDA_ARCH="80 90" for those.
# On a GPU node that runs a login node's make grade through srun
# (tools/gpu-run.sh), LAB_CUDA_ARCH keeps the login node's choice, so that
# nothing is built again.
COURSE_ARCH := 90
ALL_ARCHS := 75 80 86 89 90
HAVE_GPU := $(shell nvidia-smi -L 2>/dev/null | grep -c '^GPU')
SLURM_HERE := $(if $(filter-out 0,$(HAVE_GPU)),,$(shell tools/gpu-run.sh --sends-to-slurm && echo 1))
ifneq ($(LAB_CUDA_ARCH),)
CUDA_ARCH := $(LAB_CUDA_ARCH)
else ifneq ($(filter-out 0,$(HAVE_GPU)),)
# the GPU's own architecture, asked here: the compiler's -arch=native would
# ask the GPU from inside the build's wall, which has no GPU device
CUDA_ARCH := $(or $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. '),native)
else
CUDA_ARCH := $(if $(SLURM_HERE),all,$(COURSE_ARCH))
endif
ARCHS := $(patsubst sm_%,%,$(patsubst compute_%,%,$(if $(filter all,$(CUDA_ARCH)),$(ALL_ARCHS),$(CUDA_ARCH))))
ifeq ($(ARCHS),native)
ARCH_FLAGS := -arch=native
else
ARCH_FLAGS := $(foreach a,$(ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
              -gencode arch=compute_$(lastword $(ARCHS)),code=compute_$(lastword $(ARCHS))
endif

NVCCFLAGS ?= -O3 -std=c++17 -lineinfo -Xcompiler -Wall
CFLAGS ?= -O2 -std=c11 -Wall -Wextra
ALL_NVCCFLAGS := $(ARCH_FLAGS) $(NVCCFLAGS) -Icommon
ALL_CFLAGS := $(CFLAGS) -D_GNU_SOURCE -Icommon
LDLIBS := -lcublas

# ---------------------------------------------------------------- the stages
# The stages' facts, made once from stages.tsv by tools/stages-gen.awk (its
# one reader): build/stages.mk (STAGES, and FAMILY_, KNOB_, SWEEP_, SIZES_
# and TIMED_ of each stage), build/references.mk (the tiers' reference
# kernels' rules, below), build/stages.env for the scripts (tools/stages.sh
# sources it) and build/stages.h for the grader.
STAGE_FACTS := build/stages.mk build/references.mk build/stages.env build/stages.h
include build/stages.mk
$(STAGE_FACTS) &: stages.tsv tools/stages-gen.awk
	@mkdir -p build
	@awk -v out=build -f tools/stages-gen.awk stages.tsv

FAMILIES := $(sort $(foreach s,$(STAGES),$(FAMILY_$(s))))
# The harness (common/harness.cu, family.h): one sequence for every stage,
# compiled once (with what the families share: the matrix families' input
# sets, sets.cu, and their check of a whole output, check_output.cu), linked
# with the family's file (common/<family>_family.cu) and its other files,
# common/<family>_*.cu and plain-C common/<family>_*.c (those are unit-tested
# with the rest), of which its compiled files are linked as source or object.
HARNESS_OBJS := $(addprefix build/common/,harness.o sets.o check_output.o args.o stats.o compare.o json.o hints.o \
                  policy.o gpu.o timing.o flush.o measure.o fdio.o phases.o)
FAMILY_C_SRCS := $(foreach f,$(FAMILIES),$(wildcard common/$(f)_*.c))
# A family's compiled files (stages.tsv's compiled lines: COMPILED_<family>,
# a stage's answer that a later stage is timed against) a student release
# ships as objects compiled by make release (common/<name>.o), without
# their source: link whichever is here.
COMPILED_OBJ = $(if $(wildcard common/$(1).cu),build/common/$(1).o,common/$(1).o)
FAMILY_CU = $(filter-out $(COMPILED_$(1):%=common/%.cu),$(wildcard common/$(1)_*.cu))
$(foreach f,$(FAMILIES),$(eval OBJS_$(f) := $(patsubst common/%.cu,build/common/%.o,$(call FAMILY_CU,$(f))) \
  $(patsubst common/%.c,build/common/%.o,$(wildcard common/$(f)_*.c)) $(HARNESS_OBJS) \
  $(foreach c,$(COMPILED_$(f)),$(call COMPILED_OBJ,$(c)))))

# Where the student's code runs (common/backend.h) is what is linked with the
# harness: kernel.cu and common/run_here.cu (build/<stage>/<variant>, make
# run), or the judge (judge/README.md, "The judge"): judge/judge.cu and the
# family's stand-in for the contract function (judge/calls.cu), talking to a
# runner that has kernel.cu (build/<stage>/<variant>-runner) and to the echo
# runner. Grades use the judge unless JUDGE=0; JUDGE=1 picks it for make run.
# Every program that runs confined is linked with judge/thread_names.c (the
# GPU driver's thread names, without a right to write under /proc) and
# exports its functions (-rdynamic), so that libcuda, loaded later, binds to them.
CONFINED_OBJS := build/judge/thread_names.o
CONFINED_LDFLAGS := -Xcompiler -rdynamic
HERE_OBJS := build/common/run_here.o $(CONFINED_OBJS)
# What a stage of family F links with kernel.cu to run in-process, for a
# test that builds such a program by hand: make -s objects-matmul
objects-%:
	@echo $(OBJS_$*) $(HERE_OBJS)
# The judge, its runners, their device server and the echo runner: judge/judge.mk.
include judge/judge.mk
# build/flags.txt changes when the compiler flags do, so that a build with
# another CUDA_ARCH or NVCCFLAGS recompiles everything instead of mixing.
FLAGS_TEXT := $(NVCC) $(ALL_NVCCFLAGS) | $(CC) $(ALL_CFLAGS)
build/flags.txt: FORCE
	@mkdir -p $(@D)
	@echo '$(FLAGS_TEXT)' | cmp -s - $@ || echo '$(FLAGS_TEXT)' > $@
FORCE:

build/common/%.o: common/%.cu build/flags.txt | build/common
	$(call step,NVCC,$<)$(NVCC) $(ALL_NVCCFLAGS) -MMD -MP -c $< -o $@
# The wall around every step that handles a kernel.cu's bytes: judge/wall.mk.
include judge/wall.mk

# A stage's sizes (stages.tsv's sizes line: SIZES_ and TIMED_), compiled
# into its binaries' common/build_info.c; build/<stage>/sizes.txt changes
# only when they do, so that a change relinks that stage's binaries alone.
$(foreach s,$(STAGES),$(eval build/$(s)/sizes.txt: FORCE ; @mkdir -p $$(@D) && echo '$(SIZES_$(s)) $(TIMED_$(s))' | \
  cmp -s - $$@ || echo '$(SIZES_$(s)) $(TIMED_$(s))' > $$@))

# One binary: stage $(1), kernel.cu from $(2)s/ (exercise or solution),
# output folder $(3) (build/<stage> or build/<stage>/k<value>), extra
# compiler flags $(4) (-D<knob>=<value>), knob text $(5) for the record;
# $(6), where given, is the kernel file instead (make kernel, below).
define binary_rules
$(3)/$(2).o: $(or $(6),$(2)s/$(1)/kernel.cu) build/flags.txt | $$(WALL_DEPS)
	$$(call step,NVCC,$$<$(if $(5), ($(5))))$$(call walled_nvcc,$$<,$$@,$$(ALL_NVCCFLAGS) $(4))
$(3)/$(2)_info.o $(3)/$(2)_judge_info.o: common/build_info.c build/flags.txt build/$(1)/sizes.txt
	@mkdir -p $$(@D)
	$$(call step,CC,$$@)$$(CC) $$(ALL_CFLAGS) -DLAB_STAGE_NAME='"$(1)"' -DLAB_VARIANT_NAME='"$(2)"' \
	    $$(if $$(findstring _judge_info,$$@),-DLAB_FAMILY_SYMBOL=lab_family_$(FAMILY_$(1))) \
	    -DLAB_KNOB_TEXT='"$(5)"' -DLAB_STAGE_SIZES='"$(SIZES_$(1))"' -DLAB_STAGE_TIMED='"$(TIMED_$(1))"' \
	    -c $$< -o $$@
$(3)/$(2): $(3)/$(2).o $(3)/$(2)_info.o $$(OBJS_$(FAMILY_$(1))) $$(HERE_OBJS) | $$(WALL_DEPS)
	$$(call step,LINK,$$@)$$(call walled_link,$$@,$$^,$$(LDLIBS))
$(3)/$(2)-judge: $(3)/$(2)_judge_info.o $$(JUDGE_ALL_OBJS)
	$$(call step,LINK,$$@)$$(NVCC) $$(ALL_NVCCFLAGS) $$^ -o $$@ $$(LDLIBS)
$(3)/$(2)-runner: $(3)/$(2).o build/judge/$(FAMILY_$(1))_call.o $$(RUNNER_OBJS) | $$(WALL_DEPS) $$(SERVER)
	$$(call step,LINK,$$@)$$(call walled_link,$$@,$$^,$$(RUNNER_LIBS))
endef

# Each stage's exercise and solution, and one build per knob value for sweeps.
$(foreach s,$(STAGES),$(foreach v,exercise solution,\
  $(eval $(call binary_rules,$(s),$(v),build/$(s))) \
  $(foreach k,$(SWEEP_$(s)),$(eval $(call binary_rules,$(s),$(v),build/$(s)/k$(k),-D$(KNOB_$(s))=$(k),$(KNOB_$(s))=$(k))))))

# The reference kernel of each speed tier (stages.tsv's reference lines),
# which make calibrate measures to set the tier's threshold:
# build/<stage>/<tier>/<source>, its judge and its runner, from solutions/
# or references/<stage>/kernel.cu with the line's compiler flags
# (build/references.mk). A student release has neither folder.
ifneq ($(wildcard solutions/*/kernel.cu),)
include build/references.mk
endif

# A student release (make release) has no solutions/: it builds the exercises.
RELEASE := $(if $(wildcard solutions/*/kernel.cu),,1)
BINARIES := $(foreach s,$(STAGES),build/$(s)/exercise $(if $(wildcard solutions/$(s)/kernel.cu),build/$(s)/solution))
JUDGE_BINARIES := build/judge/echo-runner $(SERVER) $(foreach b,$(BINARIES),$(b)-judge $(b)-runner)

.DEFAULT_GOAL := all
all: $(BINARIES) $(JUDGE_BINARIES) build/confine/cuda-probe
	@echo "built $(words $(BINARIES)) binaries for CUDA_ARCH=$(CUDA_ARCH)$(if $(filter-out 0,$(HAVE_GPU)),, (no GPU found \
	    here$(if $(filter-out $(COURSE_ARCH),$(CUDA_ARCH)),,: the course GPU's; CUDA_ARCH=all builds for every one)))$(if \
	    $(RELEASE), (a student release: exercises only))"

build/common:
	@mkdir -p $@
include common/common.mk

# ------------------------------------------------------------- one stage
# EX=03, EX=3 or EX=03_tiled picks the stage (a prefix that fits several,
# EX=0, picks none); the stage's knob (TILE=32) picks a build of that size;
# SOLUTION=1 picks solutions/ instead of exercises/.
EX_NAME := $(if $(filter 1 2 3 4 5 6 7 8 9,$(EX)),0$(EX),$(EX))
EX_MATCHES := $(if $(EX),$(filter $(EX_NAME)%,$(STAGES)))
STAGE := $(if $(filter 1,$(words $(EX_MATCHES))),$(EX_MATCHES))
KNOB := $(if $(STAGE),$(KNOB_$(STAGE)))
KNOB_VALUE := $(if $(KNOB),$($(KNOB)))
VARIANT := $(if $(filter-out 0,$(SOLUTION)),solution,exercise)
RUN_DIR := build/$(STAGE)$(if $(KNOB_VALUE),/k$(KNOB_VALUE))
RUN_BIN := $(RUN_DIR)/$(VARIANT)$(if $(filter-out 0,$(JUDGE)),-judge)
# JUDGE=1: the judge, which starts the stage's runner (and the echo runner)
RUN_DEPS := $(RUN_BIN) $(if $(filter-out 0,$(JUDGE)),$(RUN_DIR)/$(VARIANT)-runner build/judge/echo-runner)
RUN_ARGS := $(if $(N),--n $(N)) $(if $(SEED),--seed $(SEED)) $(if $(SIZES),--sizes $(SIZES)) $(ARGS)
SANITIZER := $(shell command -v compute-sanitizer 2>/dev/null)
# with the judge, the kernels run in its runner, a child the sanitizer follows
SANITIZE_FOLLOW := $(if $(filter-out 0,$(JUDGE)),--target-processes all)

# A knob value that is not in the table gets its own build rule on demand.
ifneq ($(KNOB_VALUE),)
ifeq ($(filter $(KNOB_VALUE),$(SWEEP_$(STAGE))),)
$(foreach v,exercise solution,$(eval $(call binary_rules,$(STAGE),$(v),$(RUN_DIR),-D$(KNOB)=$(KNOB_VALUE),$(KNOB)=$(KNOB_VALUE))))
endif
endif

.PHONY: all run sweep bench grade calibrate profile profile-expected check help clean stage-known FORCE

# Where there is no GPU (or with EMU=1), make run and make grade are the CPU
# emulation's: emu/emu.mk.
include emu/emu.mk
# What make says: one line a build step (V=1: the commands), notes on knobs, EX=, nvcc, help
include tools/loop.mk

# What needs the GPU runs through tools/gpu-run.sh: here where there is a
# GPU, else on a GPU node through srun (built here first; LAB_LOCAL=1: here).
GPU_RUN := tools/gpu-run.sh
run sweep grade profile: export LAB_CUDA_ARCH := $(CUDA_ARCH)

ifneq ($(EMU_ON),)
else ifeq ($(filter-out 0,$(SANITIZE)),)
# A wrong result or a CUDA error: the same kernel.cu is built for the CPU
# emulation (x86-64) and run through the launcher, which may name the
# cause (a race, a read past an array): grader/emulated.c. The run's record
# gives it the failing size and the seed.
RUN_RECORD := $(RUN_DIR)/$(VARIANT)-run.json
RUN_EMU := $(if $(filter x86_64,$(shell uname -m)),$(RUN_DIR)/$(VARIANT)-emu)
run: stage-known $(if $(STAGE),$(RUN_DEPS)) build/grader/grade
	@echo '$(GPU_RUN) $(RUN_BIN) $(RUN_ARGS)'
	@rm -f $(RUN_RECORD); $(GPU_RUN) $(RUN_BIN) $(RUN_ARGS) --json $(RUN_RECORD); st=$$?; \
	case $$st$(if $(RUN_EMU),,-) in 1|4) $(MAKE) -s --no-print-directory $(RUN_EMU) >$(RUN_EMU).log 2>&1 && \
	    build/grader/grade --emulated-cause $(STAGE) $(RUN_EMU) $(RUN_RECORD) --own ;; esac; exit $$st
else
# compute-sanitizer at small sizes: memcheck for out-of-bounds accesses, then
# racecheck for missing barriers, each whatever the other and the program
# said (a wrong result is when a race check is wanted); the status is the
# first that failed. Slow, so no timing. (Through srun: two jobs.) Each
# array is allocated with exactly its size (LAB_EXACT_BUFFERS, common/gpu.h)
# and, where this compute-sanitizer has --padding, with room after it that
# no allocation gets, so that a read past an array's end is one memcheck sees.
SANITIZE_PADDING = $(shell $(SANITIZER) --help 2>/dev/null | grep -q -- --padding && echo --padding 65536)
sanitize_cmd = $(GPU_RUN) $(SANITIZER) --tool $(1) $(SANITIZE_FOLLOW) --error-exitcode 1 $(RUN_BIN) --check-only \
               --sizes $(2) --n 128 $(ARGS)
sanitize_run = echo 'LAB_EXACT_BUFFERS=1 $(sanitize_cmd)'; LAB_EXACT_BUFFERS=1 $(sanitize_cmd) || { s=$$?; [ $$st != 0 ] || st=$$s; };
run: stage-known $(if $(STAGE),$(RUN_DEPS))
	@$(if $(SANITIZER),,echo "compute-sanitizer is not installed (it comes with the full CUDA Toolkit): cannot SANITIZE"; exit 3)
	@st=0; $(call sanitize_run,memcheck $(SANITIZE_PADDING),1$(comma)17$(comma)100) \
	    $(call sanitize_run,racecheck,17$(comma)100) exit $$st
endif

# make kernel EX=07 KERNEL=path/to/file.cu [KERNEL_FLAGS=-D...]: any file
# that keeps a stage's contract, built as that stage's programs are (inside
# the wall, linked with the stage's harness) into
# build/<stage>/kernels/<the file's name without .cu>, which runs like
# build/<stage>/solution (research/reduction-ladder.sh builds its rungs so).
KERNEL_NAME := $(basename $(notdir $(KERNEL)))
KERNEL_BIN := $(if $(and $(STAGE),$(wildcard $(KERNEL))),build/$(STAGE)/kernels/$(KERNEL_NAME))
ifneq ($(KERNEL_BIN),)
$(eval $(call binary_rules,$(STAGE),$(KERNEL_NAME),build/$(STAGE)/kernels,$(KERNEL_FLAGS),$(KERNEL_FLAGS),$(KERNEL)))
endif
.PHONY: kernel
kernel: stage-known $(KERNEL_BIN)
	@$(if $(KERNEL),,echo "error: say which file: make kernel EX=NN KERNEL=path/to/kernel.cu"; exit 2)
	@$(if $(KERNEL_BIN),echo "built $(KERNEL_BIN)",echo "error: KERNEL=$(KERNEL): no such file"; exit 2)

SWEEP_BINS := $(if $(STAGE),$(foreach k,$(SWEEP_$(STAGE)),build/$(STAGE)/k$(k)/$(VARIANT)))
# no GPU here nor Slurm (LAB_LOCAL=1 runs here all the same): nothing built, the records shown
SWEEP_RUNS := $(or $(filter-out 0,$(HAVE_GPU)),$(SLURM_HERE),$(filter-out 0,$(LAB_LOCAL)))
sweep: stage-known $(if $(SWEEP_RUNS),$(SWEEP_BINS))
	@LAB_COURSE_ARCH=$(COURSE_ARCH) $(if $(SWEEP_RUNS),$(GPU_RUN) tools/sweep.sh "$(STAGE)" "$(KNOB)" "$(VARIANT)" \
	    "$(RUN_ARGS)" $(SWEEP_BINS),tools/sweep.sh --no-gpu "$(STAGE)" "$(KNOB)")

# ---------------------------------------------------------------- grading
# The grader is plain C; it runs the stages one at a time, as make built them
# just before (tools/grade-build.sh: one make -k of what the grader's --plan
# names, so that one stage that does not compile stops no other; the
# grader reads its messages in build/grade-build.log). PREBUILT=1: the
# caller built them and wrote that log (make class builds ahead).
# GRADE_SRC=dir grades dir/<stage>/kernel.cu with this lab's harness;
# GRADE_DIR=dir puts grade.json and results.json there. (Its messages are
# cut to fixed-size buffers on purpose: hence -Wno-format-truncation.)
# GRADE_SRC= comes in through the one intake (grader/intake/intake.mk).
include grader/intake/intake.mk
GRADER_SRCS := $(wildcard grader/*.c)
build/grader/grade: $(GRADER_SRCS) grader/grader.h grader/grading.h build/stages.h $(HOST_LIB) $(wildcard common/*.h) \
                    $(INTAKE_LIB_SRCS) $(INTAKE_HEADERS)
	@mkdir -p $(@D)
	$(call step,CC,$@)$(CC) $(ALL_CFLAGS) -Wno-format-truncation -Igrader -Igrader/intake -Ibuild $(GRADER_SRCS) \
	    $(INTAKE_LIB_SRCS) $(HOST_LIB) -lm -o $@

# build/confine/cuda-probe: the GPU at work inside the confinement, which the
# grader checks once before it grades (grader/confinement.c)
build/confine/cuda-probe: judge/cuda_probe.cu $(CONFINED_OBJS) build/flags.txt
	@mkdir -p $(@D)
	$(call step,NVCC,$@)$(NVCC) $(ALL_NVCCFLAGS) $(CONFINED_LDFLAGS) $< $(CONFINED_OBJS) -o $@

# Grades (make grade, make class, make calibrate) are the judge's unless
# JUDGE=0 (judge/README.md, "The judge"); make run and make profile run the
# student's code in the driver's own process unless JUDGE=1.
GRADE_JUDGE := $(filter-out 0,$(or $(JUDGE),1))
GRADE_ARGS := $(EX) $(if $(SEED),--seed $(SEED)) $(if $(filter-out 0,$(SANITIZE)),--sanitize) \
              $(if $(filter-out 0,$(UNCONFINED)),--unconfined) $(if $(GRADE_JUDGE),--judge) \
              $(if $(filter-out 0,$(REQUIRE_CONFINEMENT)),--require-confinement) \
              $(if $(filter-out 0,$(PROBED)),--probed) $(if $(filter-out 0,$(ONCE)),--once) \
              $(if $(BASELINES),--baselines $(BASELINES)) $(if $(REFERENCE),--reference $(REFERENCE)) \
              $(if $(GRADE_SRC),--src $(GRADE_SRC)) $(if $(GRADE_DIR),--out $(GRADE_DIR))
# Hints from the hardware counters (tools/grade-hints.sh) follow the table:
# for one stage (EX=NN) by default, for all with HINTS=1, none with HINTS=0.
GRADE_HINTS := $(if $(GRADE_SRC)$(REFERENCE),,$(if $(filter 0,$(HINTS)),,$(if $(or $(EX),$(filter 1,$(HINTS))),1)))
# The build comes first, here (on a Slurm login node too: the grader then
# runs on a GPU node through tools/gpu-run.sh, and builds nothing there).
GRADE_BUILD = @$(if $(filter-out 0,$(PREBUILT)),echo "built before grading (build/grade-build.log)",NVCC="$(NVCC)" tools/grade-build.sh $(1))
ifeq ($(EMU_ON),)
grade: build/grader/grade build/confine/confine build/confine/objcheck build/confine/cuda-probe
	$(call GRADE_BUILD,$(GRADE_ARGS))
	@$(GPU_RUN) sh -c 'NVCC="$(NVCC)" build/grader/grade $(GRADE_ARGS)$(if $(GRADE_HINTS), && tools/grade-hints.sh $(or $(GRADE_DIR),.)/grade.tsv)'
endif
CALIBRATE_ARGS := --calibrate $(if $(GRADE_JUDGE),--judge) $(EX)
calibrate: build/grader/grade build/confine/confine build/confine/objcheck build/confine/cuda-probe
	@$(if $(RELEASE),echo "error: make calibrate measures the tiers' reference kernels and the solutions: this student release has neither"; exit 2)
	$(call GRADE_BUILD,$(CALIBRATE_ARGS))
	@NVCC="$(NVCC)" build/grader/grade $(CALIBRATE_ARGS)

# ---------------------------------------------------------------- profile
# make profile, make profile-expected, make ptxas: profile/profile.mk
include profile/profile.mk
# make resources-expected: what the compiler gave the tiers' reference kernels
include grader/resources.mk

# make bench: every stage's solution (SOLUTION=0, and in a student release:
# your exercises) checked and timed once, a record each in results/<stage>.json
# (for make plots), and one summary line each.
BENCH_VARIANT := $(if $(or $(filter 0,$(SOLUTION)),$(RELEASE)),exercise,solution)
bench: $(foreach s,$(STAGES),build/$(s)/$(BENCH_VARIANT))
	@mkdir -p results
	@for s in $(STAGES); do \
	    build/$$s/$(BENCH_VARIANT) --quiet --json results/$$s.json $(RUN_ARGS) >build/$$s/bench.log 2>&1; \
	    echo "$$s ($(BENCH_VARIANT)): exit $$?: $$(grep -E '^  your kernel:' -A1 build/$$s/bench.log | tr -s ' ' | tr '\n' ' ')"; \
	done

# ------------------------------------------------------------ instructors
# make release DEST=dir [GIT=1]: the student tree, without solutions/ and the
# instructors' tools (tools/release.sh says what it leaves out and why);
# GIT=1 makes it a fresh repository with one commit.
# make class SUBMISSIONS=dir [BACKEND=local|slurm] [OUT=dir] [EX=..] [SEED=..]
# [SANITIZE=1] [WAIT=1] [RETRY=1] [PER_TASK=N]: grade every student's kernel.cu
# files in a copy of the lab of their own; gradebook.csv and one folder per
# student in OUT (default class-grades). See INSTRUCTORS.md. ROSTER=file,
# TIMES=file, DEADLINE=time, LATE_PENALTY=points: the roster's rows and ids,
# each submission's time, the days late and the points off (kept in OUT).
# CHECK=1: built and checked without a GPU, for one architecture (the
# course GPU's: CUDA_ARCH=90), into class-check unless OUT says otherwise.
CLASS_OUT := $(if $(filter command line,$(origin OUT)),$(OUT),$(if $(filter-out 0,$(CHECK)),class-check,class-grades))
CHECK_ARCH := $(filter-out native,$(lastword $(ARCHS)))
.PHONY: release class
release:
	@test -x tools/release.sh || { echo "error: this is a student release; make release works in the instructors' copy of the lab"; exit 2; }
	@$(if $(DEST),,echo "error: say where: make release DEST=dir"; exit 2)
	@tools/release.sh $(if $(filter-out 0,$(GIT)),--git) '$(DEST)'
# The object that stands in for a compiled file (COMPILED_<family>) in a
# release: every architecture (ALL_ARCHS), and PTX for newer GPUs.
build/release/%.o: common/%.cu common/%.h common/gpu.h
	@mkdir -p $(@D)
	$(call step,NVCC,$@)$(NVCC) $(foreach a,$(ALL_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
	    -gencode arch=compute_$(lastword $(ALL_ARCHS)),code=compute_$(lastword $(ALL_ARCHS)) \
	    -O3 -std=c++17 -Icommon -c $< -o $@
# build/grader/class: class grading (grader/class/class.h), with the
# lab's one JSON reader (common/jsonread.c); left out of a student release with grader/class/.
# Its probe of the wall builds confine from CONFINE_SRCS, handed over here.
CLASS_SRCS := $(wildcard grader/class/*.c)
build/grader/class: $(CLASS_SRCS) grader/class/class.h grader/grader.h grader/util.c grader/sentence.c $(HOST_LIB) \
                    $(INTAKE_LIB_SRCS) $(INTAKE_HEADERS) build/stages.h Makefile
	@mkdir -p $(@D)
	$(call step,CC,$@)$(CC) $(ALL_CFLAGS) -Wno-format-truncation -Igrader -Igrader/intake -Ibuild \
	    '-DLAB_CONFINE_SRCS="$(CONFINE_SRCS)"' $(CLASS_SRCS) $(INTAKE_LIB_SRCS) grader/util.c grader/sentence.c \
	    $(HOST_LIB) -lm -o $@
# make gradescope DEST=dir: gradescope/gradescope.mk (not in a release)
-include gradescope/gradescope.mk
class: $(if $(CLASS_SRCS),build/grader/class)
	@$(if $(CLASS_SRCS),,echo "error: this is a student release; make class works in the instructors' copy of the lab"; exit 2)
	@$(if $(SUBMISSIONS),,echo "error: say whose work: make class SUBMISSIONS=dir (one folder or tarball per student)"; exit 2)
	@build/grader/class --submissions '$(SUBMISSIONS)' --out '$(CLASS_OUT)' --backend '$(or $(BACKEND),local)' \
	    $(if $(EX),--stages '$(EX)') $(if $(SEED),--seed '$(SEED)') $(if $(filter-out 0,$(SANITIZE)),--sanitize) \
	    $(if $(filter-out 0,$(UNCONFINED)),--unconfined) $(if $(GRADE_JUDGE),--judge) \
	    $(if $(filter-out 0,$(ONCE)),--once) $(if $(filter-out 0,$(WAIT)),--wait) $(if $(filter-out 0,$(RETRY)),--retry) \
	    $(if $(PER_TASK),--per-task '$(PER_TASK)') $(if $(filter-out 0,$(CHECK)),--check $(if $(CHECK_ARCH),--arch '$(CHECK_ARCH)')) \
	    $(if $(ROSTER),--roster '$(ROSTER)') $(if $(TIMES),--times '$(TIMES)') $(if $(DEADLINE),--deadline '$(DEADLINE)') \
	    $(if $(LATE_PENALTY),--late-penalty '$(LATE_PENALTY)')
	@$(if $(filter slurm,$(BACKEND)),,$(CLASS_AFTER))
# make export OUT=dir [FORMAT="gradescope canvas plain"] [ASSIGNMENT=name]: the
# class's gradebook as Gradescope's and Canvas's grade imports take it, and
# plain (id, total, stages): OUT/gradebook-FORMAT.csv (INSTRUCTORS.md).
.PHONY: export
export: $(if $(CLASS_SRCS),build/grader/class)
	@$(if $(CLASS_SRCS),,echo "error: this is a student release; make export works in the instructors' copy of the lab"; exit 2)
	@$(if $(filter command line,$(origin OUT)),,echo "error: say which class: make export OUT=dir (the OUT of make class)"; exit 2)
	@build/grader/class --export --out '$(OUT)' $(if $(FORMAT),--format '$(FORMAT)') \
	    $(if $(ASSIGNMENT),--assignment '$(ASSIGNMENT)')

# make report, make similarity (absent from a student release)
-include grader/class/report/report.mk

# ------------------------------------------------------------------ tests
UNIT_SRCS := $(wildcard tests/unit/*.c)
UNIT_LIB_SRCS := $(addprefix common/,args.c policy.c stats.c compare.c json.c hints.c measure.c spawn.c fdio.c text.c files.c util.c) $(FAMILY_C_SRCS)
build/tests/unit: $(UNIT_SRCS) $(UNIT_LIB_SRCS) $(wildcard common/*.h)
	@mkdir -p $(@D)
	$(call step,CC,$@)$(CC) $(ALL_CFLAGS) $(UNIT_SRCS) $(UNIT_LIB_SRCS) -lm -o $@

FIXTURE_SRCS := $(wildcard tests/fixtures/*.cu)
FIXTURES := $(patsubst tests/fixtures/%.cu,build/fixtures/%,$(FIXTURE_SRCS))
# A fixture is named <family>_<bug>.cu and links with its family's harness.
build/fixtures/%.o: tests/fixtures/%.cu build/flags.txt
	@mkdir -p $(@D)
	$(call step,NVCC,$<)$(NVCC) $(ALL_NVCCFLAGS) -MMD -MP -c $< -o $@
build/fixtures/%_info.o: common/build_info.c
	@mkdir -p $(@D)
	$(call step,CC,$@)$(CC) $(ALL_CFLAGS) -DLAB_STAGE_NAME='"fixture"' -DLAB_VARIANT_NAME='"$*"' -c $< -o $@
# keep the objects of pattern-built fixtures (make would delete them as intermediates)
.SECONDARY:
.SECONDEXPANSION:
build/fixtures/%: build/fixtures/%.o build/fixtures/%_info.o $$(OBJS_$$(firstword $$(subst _, ,$$*))) $$(HERE_OBJS)
	$(call step,LINK,$@)$(NVCC) $(ALL_NVCCFLAGS) $(CONFINED_LDFLAGS) $^ -o $@ $(LDLIBS)

# make check: host unit tests, builds of everything, and the GPU suite when a
# GPU is here (tests/run.sh; T=SUITE[:CHECK]: one suite, the checks matching).
# (in a student release: on the skeletons as handed out, status/status.mk)
include status/status.mk
# every suite builds for the architecture chosen now (a Slurm test cluster changes it)
check: export LAB_CUDA_ARCH := $(CUDA_ARCH)
check: $(if $(PRISTINE_CHECK),,check-build)
	@$(or $(PRISTINE_CHECK),tests/run.sh $(if $(T),--only '$(T)'))

# ------------------------------------------------------------------- docs
# make tables: the stage tables of README.md and handouts/README.md, written
# anew from stages.tsv (tools/tables.sh; make check fails when they are stale)
.PHONY: tables
tables: build/stages.env
	@tools/tables.sh

# make docs, make docs-check, make plots: see docs.mk
include docs.mk

# ------------------------------------------------------------------- misc
clean:
	rm -rf build results

# the compiler's lists of what each object was made from (not those of the
# lab copies under build/, e.g. build/grade-src), but those whose source is
# gone (a file moved since that build: the object is made anew from where
# its source is now)
-include $(shell find $(wildcard build/common build/judge build/fixtures $(addprefix build/,$(STAGES))) -name '*.d' \
             2>/dev/null | xargs -r awk 'FNR == 1 { src = $$0; sub(/^[^:]*:[[:space:]]*/, "", src); \
             sub(/[[:space:]\\].*/, "", src); if (src == "" || (getline x < src) >= 0) print FILENAME; close(src) }')
