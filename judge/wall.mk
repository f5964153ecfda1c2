# judge/wall.mk: the wall's rules (included by the Makefile): what a build of a
# kernel.cu may read, run and write, and the programs that enforce it.
#
# The compile and the link of every program that holds a kernel.cu's object
# run inside build/confine/confine --build, and build/confine/objcheck reads
# the object before anything else opens it; what each step may read, write
# and run: judge/README.md, "The wall around the build". Where this machine
# cannot confine, the build runs plainly with a note (as root: as the user
# nobody, or not at all), unless REQUIRE_CONFINEMENT=1 (make class): then it
# stops. WALL_LIMIT_S, WALL_MEMORY_MB: its limits; WALL_EXEC_DIRS: more
# folders of tools.
NVCC_FOUND := $(shell command -v $(NVCC) 2>/dev/null)
TOOLKIT_DIR := $(if $(NVCC_FOUND),$(patsubst %/bin,%,$(patsubst %/,%,$(dir $(realpath $(NVCC_FOUND))))))
WALL_LIMIT_S ?= 300
WALL_MEMORY_MB ?= 8192
LAB_HEADERS := $(wildcard common/*.h)
build/wall/compile.paths build/wall/link.paths: build/wall/%.paths: tools/wall-paths.sh build/flags.txt
	@mkdir -p $(@D)
	@tools/wall-paths.sh $* "$(NVCC)" gcc "$(CC)" "$(EMU_CXX)" > $@.tmp && mv $@.tmp $@
WALL_DEPS := build/confine/confine build/confine/objcheck build/wall/compile.paths build/wall/link.paths
# $(call wall,SOURCE,OUTPUT_FOLDER[,KIND]): KIND compile (the default) or link
wall = build/confine/confine --build $(if $(filter-out 0,$(REQUIRE_CONFINEMENT)),,--or-unconfined) \
       --paths build/wall/$(or $(3),compile).paths $(foreach d,$(WALL_EXEC_DIRS),--read-exec $(d)) \
       $(foreach f,$(1) $(if $(3),,$(LAB_HEADERS)),--read $(f)) --write $(2) --label $(firstword $(1)) \
       --time-limit $(WALL_LIMIT_S) --memory-mb $(WALL_MEMORY_MB) --
# nvcc's compile of a kernel.cu, inside the wall, with its list of headers
# beside the object (grader/library.c reads it), the object read by
# objcheck, which writes its device code beside it (OBJECT's name with
# .fatbin: all the judge's device server loads for it):
# $(call walled_nvcc,SOURCE,OBJECT,FLAGS)
walled_nvcc = rm -rf $(2).wall && mkdir -p $(2).wall && \
	$(call wall,$(1),$(2).wall) $(NVCC) $(3) -MD -MP -MT $(2) -MF $(2).wall/kernel.d -c $(1) -o $(2).wall/kernel.o && \
	build/confine/objcheck --label $(1) --fatbin $(basename $(2)).fatbin $(2).wall/kernel.o && \
	mv $(2).wall/kernel.d $(basename $(2)).d && mv $(2).wall/kernel.o $(2) && rmdir $(2).wall
# the link of a program holding a student's object: inside the wall, never
# through GCC's LTO plugin, with a stack that is never executable.
# $(call walled_link,OUTPUT,OBJECTS,LIBRARIES)
LINK_FLAGS := -Xcompiler -fno-use-linker-plugin -Xcompiler -fno-lto -Xlinker -z -Xlinker noexecstack $(CONFINED_LDFLAGS)
walled_link = rm -rf $(1).link && mkdir -p $(1).link && \
	$(call wall,$(2),$(1).link,link) $(NVCC) $(ALL_NVCCFLAGS) $(LINK_FLAGS) $(2) -o $(1).link/program $(3) && \
	mv $(1).link/program $(1) && rmdir $(1).link

# build/confine/confine: the wall around student code in graded runs
# (judge/confine.h). Plain C and Linux; position-independent, so that the
# address its one allowed execve names is random (judge/seccomp.c).
CONFINE_SRCS := $(addprefix judge/,confine.c confine_build.c landlock.c libraries.c namespaces.c seccomp.c) \
                common/spawn.c common/fdio.c
build/confine/confine: $(CONFINE_SRCS) judge/confine.h common/spawn.h common/fdio.h
	@mkdir -p $(@D)
	$(call step,CC,$@)$(CC) $(ALL_CFLAGS) -fPIE -pie $(CONFINE_SRCS) -o $@
# build/confine/objcheck: whether a compiled kernel.cu holds only what a CUDA
# compile makes, read by the lab's own ELF reader before any link or tool
build/confine/objcheck: judge/objcheck.c
	@mkdir -p $(@D)
	$(call step,CC,$@)$(CC) $(ALL_CFLAGS) $< -o $@
