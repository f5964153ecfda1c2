# common/common.mk, included by the Makefile: build/common/libhost.a, the
# helper library every host program links (the grader, the class tools,
# the profiler's report, the JSON tool): common/util.h, with the
# JSON writer (lab.h), starting programs (spawn.h), inside the build's wall
# (walled.h), and descriptors (fdio.h).
HOST_LIB := build/common/libhost.a
# archived under a name of its own (the shell's PID) and renamed into place:
# two suites of make check may remake it at once, and one that links it
# must find a whole archive
$(HOST_LIB): $(addprefix build/common/,json.o jsonread.o files.o text.o util.o signals.o spawn.o fdio.o walled.o)
	$(call step,AR,$@)$(AR) rcs $@.$$$$ $^ && mv -f $@.$$$$ $@

# build/tools/json: the same JSON reader for the scripts (tools/json.c):
# json get FILE PATH, json flat FILE..., json check FILE [PATH...]
JSON_TOOL := build/tools/json
$(JSON_TOOL): tools/json.c common/util.h $(HOST_LIB)
	@mkdir -p $(@D)
	$(call step,CC,$@)$(CC) $(ALL_CFLAGS) $< $(HOST_LIB) -lm -o $@

# build/cflags.txt changes when the C compiler's flags do (build/flags.txt
# when any compiler's do): a C object is not made again for another
# CUDA_ARCH, which a Slurm cluster coming or going changes (Makefile)
CFLAGS_TEXT := $(CC) $(ALL_CFLAGS)
build/cflags.txt: FORCE
	@mkdir -p $(@D)
	@echo '$(CFLAGS_TEXT)' | cmp -s - $@ || echo '$(CFLAGS_TEXT)' > $@
build/common/%.o: common/%.c build/cflags.txt | build/common
	$(call step,CC,$<)$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@
