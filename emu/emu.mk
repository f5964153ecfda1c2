# emu/emu.mk: the CPU emulation (emu/README.md), included by the Makefile.
#
#   make run EX=03 EMU=1      check exercises/03_tiled/kernel.cu on the CPU
#                             (what make run does by itself where there is no
#                             GPU and no Slurm to send it to)
#   make grade EMU=1          every stage's correctness on the CPU, and of a
#                             correct stage whether its technique is there: no
#                             speed, no points (the same where there is no GPU)
#   make explain EX=01        what the memory system sees of one launch of
#                             the kernel: global sectors per request, shared
#                             wavefronts per instruction, line by line
#   build/<stage>/<variant>-emu   the stage's checks on the CPU (variant
#                             exercise, solution or reference); exit 0 correct,
#                             1 wrong, 2 usage, 4 what the emulator cannot run
#
# Everything is built with the host compiler. The harness's .cu files are
# rewritten (emu/rewrite.c: launches into calls) and compiled once; a
# kernel.cu is rewritten and compiled inside the build's wall (the Makefile's
# wall, with the emulator's headers and its rewriter added), instrumented
# for the memory checks (-fsanitize=thread, whose hooks are emu/check.cc's).

EMU_CXX := $(if $(filter default,$(origin CXX)),g++,$(CXX))
EMU_INCLUDES := -include emu/cuda_emu.h -Iemu/include -Iemu -Icommon
EMU_CXXFLAGS := -std=c++17 -O2 -Wall -Wno-unknown-pragmas -D_GNU_SOURCE
# the student's file: line tables for the messages, every access a call;
# a value just stored is not loaded again (-ftree-pre), as nvcc does, so
# that make explain counts the loads a GPU makes
EMU_KERNEL_FLAGS := -std=c++17 -O1 -ftree-pre -gdwarf-4 -Wall -Wno-unknown-pragmas -Wno-sign-compare -fsanitize=thread \
                    -fno-threadsafe-statics -D_GNU_SOURCE
# kernel.cu's host code sees what it sees under nvcc (whose passes define
# these), so that its host path is the one a GPU runs: an #ifndef __CUDACC__
# branch is dead here as there
EMU_NVCC_VERSION := $(if $(NVCC_FOUND),$(subst ., ,$(shell $(NVCC) --version | sed -n 's/.*release \([0-9.]*\).*V\([0-9.]*\).*/\2/p')))
EMU_KERNEL_FLAGS += -D__CUDACC__=1 -D__NVCC__=1 -U__SANITIZE_THREAD__ \
                    $(if $(EMU_NVCC_VERSION),$(join -D__CUDACC_VER_MAJOR__= -D__CUDACC_VER_MINOR__= -D__CUDACC_VER_BUILD__=,\
                    $(EMU_NVCC_VERSION)))
EMU_HEADERS := $(wildcard emu/*.h emu/include/*.h)
# build/emu/flags.txt changes when a kernel's compiler flags do, so that
# every emulated kernel is compiled again with them
EMU_FLAGS_TEXT := $(EMU_CXX) $(EMU_KERNEL_FLAGS)
build/emu/flags.txt: FORCE
	@mkdir -p $(@D) && echo '$(EMU_FLAGS_TEXT)' | cmp -s - $@ || echo '$(EMU_FLAGS_TEXT)' > $@

# EMU=1 forces the emulation; without a GPU and without Slurm (srun) to
# send the work to, make run and make grade use it by themselves.
EMU_AUTO := $(if $(filter-out 0,$(HAVE_GPU)),,$(if $(SLURM_HERE),,1))
EMU_ON := $(if $(filter 0,$(EMU)),,$(or $(filter-out 0,$(EMU)),$(EMU_AUTO)))
EMU_WHY := $(if $(filter-out 0,$(EMU)),EMU=1,no GPU here and no Slurm to send it to)

build/emu/bin/rewrite: emu/rewrite.c
	@mkdir -p $(@D)
	$(call step,CC,$@)$(CC) $(ALL_CFLAGS) $< -o $@

# the harness, for the CPU: common/*.cu rewritten, then compiled
build/emu/common/%.cc: common/%.cu build/emu/bin/rewrite
	@mkdir -p $(@D)
	@build/emu/bin/rewrite $< $@
build/emu/common/harness.o: EMU_MAIN := -Dmain=lab_emu_harness_main
build/emu/common/%.o: build/emu/common/%.cc $(EMU_HEADERS) $(LAB_HEADERS)
	$(call step,CXX,$@)$(EMU_CXX) -x c++ $(EMU_CXXFLAGS) $(EMU_INCLUDES) $(EMU_MAIN) -c $< -o $@
build/emu/%.o: emu/%.cc $(EMU_HEADERS) $(LAB_HEADERS)
	@mkdir -p $(@D)
	$(call step,CXX,$<)$(EMU_CXX) -x c++ $(EMU_CXXFLAGS) $(EMU_INCLUDES) -c $< -o $@
build/emu/lines.o: emu/lines.c
	@mkdir -p $(@D)
	$(call step,CC,$<)$(CC) $(ALL_CFLAGS) -c $< -o $@
build/emu/main-%.o: emu/main.cc build/emu/contract-%.sym $(EMU_HEADERS) $(LAB_HEADERS)
	@mkdir -p $(@D)
	$(call step,CXX,$@)$(EMU_CXX) -x c++ $(EMU_CXXFLAGS) $(EMU_INCLUDES) -include common/$*.h \
	    -DLAB_CONTRACT_SYMBOL='"'"$$(cat build/emu/contract-$*.sym)"'"' -c $< -o $@
# The contract function's C++ symbol (_Z6matmulPKfS0_Pfi), as the compiler
# names it: the one symbol an object that takes its address needs.
build/emu/contract-%.sym: common/%.h common/contract.h
	@mkdir -p $(@D)
	@printf '#include "%s.h"\nvoid *lab_contract_address() { return (void *)&LAB_CONTRACT_NAME; }\n' $* | \
	    $(EMU_CXX) -x c++ -std=c++17 -fno-pic -Icommon -c - -o $@.o && nm -u $@.o | awk '{ print $$NF }' > $@ && rm -f $@.o
	@test "$$(wc -l < $@)" = 1 || { echo "error: common/$*.h: no one contract function (LAB_CONTRACT_NAME)"; \
	    rm -f $@; exit 2; }

# What a family's emulated program links: its harness as make builds it
# for the GPU (OBJS_<family>, run_here.o), each object made for the CPU,
# and the emulator's parts, from the bottom up (each calls only those
# before it: emu/README.md, "How it works").
EMU_RUNTIME := $(addprefix build/emu/,lines.o state.o memory.o races.o explain.o runtime.o check.o api.o explain_report.o \
  technique.o)
# the technique lines of stages.tsv (build/stages.h)
build/emu/technique.o: build/stages.h
build/emu/technique.o: EMU_CXXFLAGS += -Ibuild
# (plain-C objects are the GPU build's own)
EMU_OF = $(foreach o,$(patsubst common/%,build/common/%,$(1)),$(if $(wildcard common/$(basename $(notdir $(o))).c),$(o),\
         $(patsubst build/common/%,build/emu/common/%,$(o))))
# A student release has a family's compiled files (COMPILED_<family>) as
# objects: the GPU's and this one, common/<name>-emu.o.
EMU_COMPILED = $(if $(wildcard common/$(1).cu),build/emu/common/$(1).o,common/$(1)-emu.o)
$(foreach f,$(FAMILIES),$(eval EMU_OBJS_$(f) := $(call EMU_OF,$(filter-out $(foreach c,$(COMPILED_$(f)),$(call COMPILED_OBJ,$(c))),$(OBJS_$(f))) \
  $(HERE_OBJS)) $(foreach c,$(COMPILED_$(f)),$(call EMU_COMPILED,$(c))) $(EMU_RUNTIME) build/emu/main-$(f).o))
# the calls emu/main.cc stands between (the linker's --wrap): each symbol
# whose __real_ main-<family>.o asks for (the contract function's, and the
# harness's it names)
EMU_WRAPS = $$(nm -u build/emu/main-$(1).o | sed -n 's/^ *U __real_/-Wl,--wrap=/p')
comma := ,

# The Makefile's wall, with the emulator's headers to read and its
# rewriter to run: $(call emu_wall,SOURCE,OUTPUT_FOLDER)
emu_wall = $(subst --label ,--read-exec build/emu/bin --read emu --label ,$(call wall,$(1),$(2)))

# the link, as the Makefile's (judge/wall.mk): inside the wall, never through
# GCC's LTO plugin, with a stack that is never executable
EMU_LINK_FLAGS := -fno-use-linker-plugin -fno-lto -Wl,-z,noexecstack

# The object the launcher's pre-run checks read (judge/launch.sh): nvcc's,
# as a grade's, for one architecture; not linked into the program
EMU_CHECK_NVCCFLAGS := $(if $(filter native,$(ARCHS)),$(ARCH_FLAGS),-gencode arch=compute_$(firstword $(ARCHS)),code=sm_$(firstword \
                       $(ARCHS))) $(NVCCFLAGS) -Icommon
EMU_LINKED = $(filter-out %.check.o,$^)
# EMU_CHECK_OBJECT=0 (a class check: grader/class/check.c): no nvcc object
# of its own for the pre-run checks; they read the runner's
# build/<stage>/exercise.o, which the check builds anyway, as a grade does
EMU_CHECK_OBJ = $(if $(filter 0,$(EMU_CHECK_OBJECT)),,$(1).check.o)

# One emulated program: family $(1), kernel file $(2), program $(3), its
# build_info object $(4) (the stage, variant and knob it names), compiler
# flags $(5) (-D<knob>=<value>).
define emu_binary
$(3).o: $(2) build/emu/bin/rewrite build/emu/flags.txt $(EMU_HEADERS) $(LAB_HEADERS) | $$(WALL_DEPS)
	@rm -rf $(3).wall && mkdir -p $(3).wall
	@$$(call emu_wall,$$<,$(3).wall) build/emu/bin/rewrite $$< $(3).wall/kernel.cc
	$$(call step,EMU,$$<$(if $(5), ($(patsubst -D%,%,$(5)))))$$(call emu_wall,$$<,$(3).wall) $(EMU_CXX) -x c++ $(EMU_KERNEL_FLAGS) $(EMU_INCLUDES) $(5) \
	    -c $(3).wall/kernel.cc -o $(3).wall/kernel.o
	@build/confine/objcheck --label $$< $(3).wall/kernel.o
	@mv $(3).wall/kernel.o $$@ && rm -rf $(3).wall
$(3).check.o: $(2) build/flags.txt | $$(WALL_DEPS)
	$$(call step,NVCC,$$< (its checks))$$(call walled_nvcc,$$<,$$@,$$(EMU_CHECK_NVCCFLAGS) $(5))
$(3): $(3).o $(call EMU_CHECK_OBJ,$(3)) $(4) $$(EMU_OBJS_$(1)) | $$(WALL_DEPS)
	$$(call emu_link,$(1))
endef
# the link of an emulated program of family $(1), from $^ (inside the wall)
emu_link = $(call step,LINK,$@)rm -rf $@.link && mkdir -p $@.link && $(call wall,$(EMU_LINKED),$@.link,link) $(EMU_CXX) \
    -no-pie $(EMU_LINK_FLAGS) $(EMU_LINKED) -o $@.link/program $(call EMU_WRAPS,$(1)) -lm && mv $@.link/program $@ && \
    rmdir $@.link

# every stage's exercise and solution, at each value of its knob too
$(foreach s,$(STAGES),$(foreach v,exercise solution,\
  $(eval $(call emu_binary,$(FAMILY_$(s)),$(v)s/$(s)/kernel.cu,build/$(s)/$(v)-emu,build/$(s)/$(v)_info.o)) \
  $(foreach k,$(SWEEP_$(s)),$(eval $(call emu_binary,$(FAMILY_$(s)),$(v)s/$(s)/kernel.cu,build/$(s)/k$(k)/$(v)-emu,\
    build/$(s)/k$(k)/$(v)_info.o,-D$(KNOB_$(s))=$(k))))))
# a knob value that is not in the table (make run EX=03 TILE=4 EMU=1)
ifneq ($(KNOB_VALUE),)
ifeq ($(filter $(KNOB_VALUE),$(SWEEP_$(STAGE))),)
$(foreach v,exercise solution,$(eval $(call emu_binary,$(FAMILY_$(STAGE)),$(v)s/$(STAGE)/kernel.cu,$(RUN_DIR)/$(v)-emu,\
  $(RUN_DIR)/$(v)_info.o,-D$(KNOB)=$(KNOB_VALUE))))
endif
endif
# The build_info object $(3) of an emulated program of stage $(1), variant $(2)
define emu_info
$(3): common/build_info.c build/flags.txt
	@mkdir -p $$(@D)
	$$(call step,CC,$$@)$$(CC) $$(ALL_CFLAGS) -DLAB_STAGE_NAME='"$(1)"' -DLAB_VARIANT_NAME='"$(2)"' -DLAB_KNOB_TEXT='""' \
	    -DLAB_STAGE_SIZES='"$(SIZES_$(1))"' -DLAB_STAGE_TIMED='"$(TIMED_$(1))"' -c $$< -o $$@
endef
# the instructors' reference kernels (references/<stage>/kernel.cu)
$(foreach s,$(STAGES),$(if $(wildcard references/$(s)/kernel.cu),\
  $(eval $(call emu_binary,$(FAMILY_$(s)),references/$(s)/kernel.cu,build/$(s)/reference-emu,build/$(s)/reference-emu_info.o)) \
  $(eval $(call emu_info,$(s),reference,build/$(s)/reference-emu_info.o))))
# the deliberately wrong kernels: tests/fixtures (the GPU's too) and
# tests/emu (the bugs a GPU hides, and make explain's padded tile), named
# <family>_<what>.cu
EMU_FIXTURE_SRCS := $(wildcard tests/fixtures/*.cu tests/emu/*.cu)
$(foreach f,$(EMU_FIXTURE_SRCS),$(eval $(call emu_binary,$(firstword $(subst _, ,$(notdir $(f)))),$(f),\
  build/fixtures/$(basename $(notdir $(f)))-emu,build/fixtures/$(basename $(notdir $(f)))_info.o)))
EMU_FIXTURES := $(patsubst %.cu,build/fixtures/%-emu,$(notdir $(EMU_FIXTURE_SRCS)))
# the kernels whose technique the emulation judges in tests/emu/technique.sh,
# each built as the stage its line of tests/emu/technique.tsv names, from
# its file with its flags: build/<stage>/technique/<name>-emu (a row is
# stage|name|file|flags, a flag's blanks as ~). A row whose file, without
# flags, is one emu-all builds anyway (a stage's solution or reference, a
# fixture) links that program's objects, and its checks' object and their
# header list are hard links of that one's (judge/launch.sh reads
# <program>.check.o and .check.d)
EMU_TECHNIQUE_ROWS := $(shell awk -F'\t+' '!/^\#/ && NF >= 4 { gsub(/ /, "~", $$4); print $$2 "|" $$1 "|" $$3 "|" $$4 }' \
  tests/emu/technique.tsv 2>/dev/null)
technique_field = $(word $(2),$(subst |, ,$(1)))
technique_prog = build/$(call technique_field,$(1),1)/technique/$(call technique_field,$(1),2)-emu
technique_from = $(if $(filter -,$(call technique_field,$(1),4)),$(or \
  $(patsubst solutions/%/kernel.cu,build/%/solution-emu,$(filter solutions/%/kernel.cu,$(call technique_field,$(1),3))),\
  $(patsubst references/%/kernel.cu,build/%/reference-emu,$(filter references/%/kernel.cu,$(call technique_field,$(1),3))),\
  $(patsubst %.cu,build/fixtures/%-emu,$(notdir $(filter $(EMU_FIXTURE_SRCS),$(call technique_field,$(1),3))))))
# An emulated program of family $(1) linked from program $(5)'s objects:
# program $(3), its build_info object $(4)
define emu_shared
$(3).check.o: $(5).check.o
	@mkdir -p $$(@D) && ln -f $$< $$@ && ln -f $(5).check.d $(3).check.d
$(3): $(5).o $(call EMU_CHECK_OBJ,$(3)) $(4) $$(EMU_OBJS_$(1)) | $$(WALL_DEPS)
	$$(call emu_link,$(1))
endef
$(foreach r,$(EMU_TECHNIQUE_ROWS),$(eval $(if $(call technique_from,$(r)),\
  $(call emu_shared,$(FAMILY_$(call technique_field,$(r),1)),-,$(call technique_prog,$(r)),$(call technique_prog,$(r))_info.o,\
    $(call technique_from,$(r))),\
  $(call emu_binary,$(FAMILY_$(call technique_field,$(r),1)),$(call technique_field,$(r),3),$(call technique_prog,$(r)),\
    $(call technique_prog,$(r))_info.o,$(subst ~, ,$(filter-out -,$(call technique_field,$(r),4)))))) \
  $(eval $(call emu_info,$(call technique_field,$(r),1),$(call technique_field,$(r),2),$(call technique_prog,$(r))_info.o)))
EMU_TECHNIQUE := $(foreach r,$(EMU_TECHNIQUE_ROWS),$(call technique_prog,$(r)))

# make grade GRADE_SRC=dir on the CPU: what the one intake took in of dir
# (emu/grade.sh runs build/grader/take first: plain files of their own,
# size capped, archives unpacked) into GRADE_SRC_COPY/<stage>/kernel.cu,
# the GPU grade's copy too (grader/build.c); built as the stage's exercise
# is, into EMU_GRADE_DIR. Nothing of dir itself is compiled or read.
ifneq ($(GRADE_SRC),)
export GRADE_SRC_COPY := build/grade-src/exercises
export EMU_GRADE_DIR := build/emu-grade/src
$(foreach s,$(STAGES),$(eval $(call emu_binary,$(FAMILY_$(s)),$(GRADE_SRC_COPY)/$(s)/kernel.cu,$(EMU_GRADE_DIR)/$(s)-emu,\
  build/$(s)/exercise_info.o)))
endif

.PHONY: emu-all
# every emulated program make check runs
emu-all: $(foreach s,$(STAGES),build/$(s)/exercise-emu $(if $(wildcard solutions/$(s)/kernel.cu),build/$(s)/solution-emu) \
  $(if $(wildcard references/$(s)/kernel.cu),build/$(s)/reference-emu)) $(EMU_FIXTURES) $(EMU_TECHNIQUE)

# make run, on the CPU
ifneq ($(EMU_ON),)
# SANITIZE=1 asks for compute-sanitizer, which needs a GPU: here it says so
EMU_SANITIZE_NOTE := $(if $(filter-out 0,$(SANITIZE)),@echo "SANITIZE=1: compute-sanitizer needs a GPU; on the CPU \
  the emulator's own checks (races, barriers, accesses past an array, uninitialized shared reads) are always on")
EMU_RUN_BIN := $(RUN_DIR)/$(VARIANT)-emu
run: stage-known $(if $(STAGE),$(EMU_RUN_BIN)) build/grader/grade
	@echo "make run: on the CPU emulation ($(EMU_WHY)): correctness, and the stage's technique; speed needs a GPU"
	$(EMU_SANITIZE_NOTE)
	@judge/launch.sh --stage $(STAGE) --object $(EMU_RUN_BIN).check.o --emulated --own -- $(EMU_RUN_BIN) $(RUN_ARGS)
# make grade, on the CPU: emu/grade.sh builds and runs each stage's
# program inside the wall; nothing of it reaches a grade's points
grade: build/confine/confine build/emu/bin/rewrite build/grader/grade $(if $(GRADE_SRC),build/grader/take)
	@echo "make grade: on the CPU emulation ($(EMU_WHY)): correctness, and each correct stage's technique; no speed, no points"
	$(EMU_SANITIZE_NOTE)
	@MAKE="$(MAKE)" emu/grade.sh $(if $(EX),$(STAGE),$(STAGES))
endif

# make explain EX=NN [SOLUTION=1] [<knob>=<value>] [SIZES=512] [KERNEL=file.cu]:
# the first launch of the kernel at the explained size (the first of SIZES,
# else the family's: matmul 256, transpose 256x256, reduce 2097153), its
# global sectors per request and shared wavefronts per instruction, line by
# line, counted on the CPU emulation (emu/explain.cc), here with or without
# a GPU. KERNEL=file.cu: any file that keeps the stage's contract, as make
# kernel builds it (build/<stage>/kernels/<name>-emu), from the copy the one
# intake takes of it (build/grader/take --file: a plain file of its own,
# never through a link, size capped), left as it is while it is the same.
EXPLAIN_KERNEL := $(if $(and $(STAGE),$(wildcard $(KERNEL))),build/$(STAGE)/kernels/$(basename $(notdir $(KERNEL))))
EXPLAIN_COPY := $(if $(EXPLAIN_KERNEL),$(EXPLAIN_KERNEL).src/$(STAGE)/kernel.cu)
ifneq ($(EXPLAIN_KERNEL),)
$(EXPLAIN_COPY): build/grader/take FORCE
	@said=$$(build/grader/take --file '$(KERNEL)' $(EXPLAIN_KERNEL).src $(STAGE)) || \
	    { echo "error: KERNEL=$(KERNEL) is not taken in: $$said"; exit 3; }
$(eval $(call emu_binary,$(FAMILY_$(STAGE)),$(EXPLAIN_COPY),$(EXPLAIN_KERNEL)-emu,$(EXPLAIN_KERNEL)_info.o,$(KERNEL_FLAGS)))
# KERNEL_FLAGS kept beside the file's programs: a change of them alone
# rebuilds what make explain and make kernel build of it (the same names)
$(EXPLAIN_KERNEL).flags: FORCE
	@echo '$(KERNEL_FLAGS)' | cmp -s - $@ 2>/dev/null || { mkdir -p $(@D) && echo '$(KERNEL_FLAGS)' > $@; }
$(EXPLAIN_KERNEL).o $(EXPLAIN_KERNEL)-emu.o $(EXPLAIN_KERNEL)-emu.check.o: $(EXPLAIN_KERNEL).flags
endif
EXPLAIN_BIN := $(if $(KERNEL),$(if $(EXPLAIN_KERNEL),$(EXPLAIN_KERNEL)-emu),$(RUN_DIR)/$(VARIANT)-emu)
.PHONY: explain
explain: stage-known $(if $(STAGE),$(EXPLAIN_BIN)) build/grader/grade
	@$(if $(KERNEL),$(if $(EXPLAIN_KERNEL),,echo "error: KERNEL=$(KERNEL): no such file"; exit 2))
	@echo "make explain: on the CPU emulation: counts of memory accesses, no time (a GPU's make profile has both)"
	@judge/launch.sh --stage $(STAGE) --object $(EXPLAIN_BIN).check.o --emulated $(if $(KERNEL),,--own) \
	    --source $(or $(EXPLAIN_COPY),$(if $(filter solution,$(VARIANT)),solutions,exercises)/$(STAGE)/kernel.cu) -- \
	    $(EXPLAIN_BIN) --explain $(RUN_ARGS)
