# judge/judge.mk: the judge's programs (judge/README.md, "The judge"),
# included by the Makefile: the objects a stage's judge links beside the
# harness, the runner's and the device server's, their compile rules, and
# the echo runner and the server themselves. A stage's own judge and runner
# are linked by the Makefile's binary_rules.
# judge/remote.c starts a runner and its device server with common/spawn.c;
# fdio.o (writing all of a request) is the harness's in the judge, the
# server's and the runner's own here. A runner has no CUDA runtime: it is
# linked with judge/forward_runtime.c instead (-cudart none), whose every
# call goes to the device server (build/judge/server, judge/forward.h).
REMOTE_OBJS := build/judge/remote.o build/common/spawn.o build/common/signals.o
JUDGE_OBJS := build/judge/judge.o build/judge/worker.o $(REMOTE_OBJS)
# A judge links every family, so that one judge can run a whole grade's
# stages (judge/worker.cu): each family's file compiled again with its
# lab_family_this named lab_family_<family>, and each family's stand-in.
JUDGE_ALL_OBJS = $(sort $(foreach f,$(FAMILIES),$(filter-out build/common/$(f)_family.o,$(OBJS_$(f))) \
                   build/judge/$(f)_family.o build/judge/$(f)_stub.o)) $(JUDGE_OBJS)
RUNNER_OBJS := build/judge/runner.o build/judge/forward.o build/judge/forward_runtime.o build/common/fdio.o
RUNNER_LIBS := -cudart none
SERVER := build/judge/server

build/judge/%.o: judge/%.cu build/flags.txt
	@mkdir -p $(@D)
	$(call step,NVCC,$<)$(NVCC) $(ALL_NVCCFLAGS) -Ijudge -MMD -MP -c $< -o $@
build/judge/%.o: judge/%.c build/cflags.txt
	@mkdir -p $(@D)
	$(call step,CC,$<)$(CC) $(ALL_CFLAGS) -Ijudge -MMD -MP -c $< -o $@
# the worker's table of the stages
build/judge/worker.o: ALL_NVCCFLAGS += -Ibuild
build/judge/%_family.o: common/%_family.cu build/flags.txt
	@mkdir -p $(@D)
	$(call step,NVCC,$@)$(NVCC) $(ALL_NVCCFLAGS) -Dlab_family_this=lab_family_$* -MMD -MP -c $< -o $@
build/judge/%_stub.o: judge/calls.cu build/flags.txt
	@mkdir -p $(@D)
	$(call step,NVCC,$@)$(NVCC) $(ALL_NVCCFLAGS) -Ijudge -include common/$*.h -DLAB_JUDGE_STUB -MMD -MP -c $< -o $@
build/judge/%_call.o: judge/calls.cu build/flags.txt
	@mkdir -p $(@D)
	$(call step,NVCC,$@)$(NVCC) $(ALL_NVCCFLAGS) -Ijudge -include common/$*.h -DLAB_RUNNER_FAMILY=$* -MMD -MP -c $< -o $@
build/judge/echo_call.o: judge/calls.cu build/flags.txt
	@mkdir -p $(@D)
	$(call step,NVCC,$@)$(NVCC) $(ALL_NVCCFLAGS) -Ijudge -DLAB_RUNNER_ECHO -MMD -MP -c $< -o $@
build/judge/forward_runtime.o: judge/forward_runtime.c judge/forward.h build/flags.txt
	@mkdir -p $(@D)
	$(call step,CC,$<)$(NVCC) $(ALL_NVCCFLAGS) -Ijudge -c $< -o $@
build/judge/echo-runner: build/judge/echo_call.o $(RUNNER_OBJS) | $(SERVER)
	$(call step,LINK,$@)$(NVCC) $(ALL_NVCCFLAGS) $^ -o $@ $(RUNNER_LIBS)
$(SERVER): build/judge/server.o build/judge/serve.o build/judge/forward.o $(REMOTE_OBJS) build/common/fdio.o $(CONFINED_OBJS)
	$(call step,LINK,$@)$(NVCC) $(ALL_NVCCFLAGS) $(CONFINED_LDFLAGS) $^ -o $@
