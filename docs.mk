# docs.mk: the handouts and slides, the plots of measured runs, and their checks.
#
# The top-level Makefile includes this file; it also works on its own from the
# repository root, e.g. `make -f docs.mk docs`.
#
#   docs        handouts/*.md -> build/docs/*.html (README.md -> index.html),
#               slides/lab.md -> build/docs/slides.html, and slides.pdf when LaTeX is there
#   docs-check  build the docs, then fail on a broken link or anchor, a missing
#               figure, a figure nothing references, a page that needs the network,
#               or a measured number that its record does not hold: the handouts,
#               the exercises' READMEs and the slides name the record (a file under
#               measurements/ or profile/) of each number they quote, and the one
#               value of it each number is, in a comment after it
#               (tools/check-numbers.sh, tools/record-values.sh); or a threshold a
#               stage's text quotes that is no row of the rubric (tools/check-thresholds.sh)
#   docs-test   tests of the checker (tests/docs/) and of the plot pipeline
#   plots       results/<stage>.json -> handouts/plots/<stage>.svg, and one ladder per
#               family of stages.tsv that has a record there: every stage's kernel beside
#               the library references (tools/ladder-references.tsv), from the same
#               records -> handouts/plots/ladder_<family>.svg. The committed plots come
#               from the bench run in measurements/: make plots PLOTS_RESULTS=measurements/<run>
#   docs-clean  remove what the targets above built under build/
#
# Tools, each optional with a one-line message when absent:
#   pandoc                                    docs (docs-check fails without it)
#   pdflatex, beamer, pgf, lmodern and
#   rsvg-convert                              the PDF slides
#   gnuplot                                   plots
# The pages are self-contained (figures and styles embedded) and work offline.

PANDOC       := pandoc
PDFLATEX     := pdflatex
RSVG_CONVERT := rsvg-convert
GNUPLOT      := gnuplot

DOCS_OUT     := build/docs
PLOTS_RESULTS := results
PLOTS_DIR    := handouts/plots
PLOTS_DATA   := build/plots

# remember the including Makefile's default goal; restored at the end of this file
docs_saved_goal := $(.DEFAULT_GOAL)
docs_standalone := $(filter 1,$(words $(MAKEFILE_LIST)))

docs_have = $(shell command -v $(1) 2>/dev/null)
docs_handouts := $(sort $(wildcard handouts/*.md))
docs_figures  := $(wildcard handouts/figures/*.svg)
docs_pages    := $(patsubst handouts/%.md,$(DOCS_OUT)/%.html,$(filter-out handouts/README.md,$(docs_handouts))) \
                 $(DOCS_OUT)/index.html $(DOCS_OUT)/slides.html
docs_pdf      := $(if $(and $(call docs_have,$(PDFLATEX)),$(call docs_have,$(RSVG_CONVERT)),$(shell kpsewhich beamer.cls pgf.sty lmodern.sty 2>/dev/null | sed -n 3p)),$(DOCS_OUT)/slides.pdf)

# pandoc 2.19 renamed --self-contained to --embed-resources --standalone; ask
# pandoc once, the first time a recipe needs it (the eval caches the answer)
docs_embed = $(eval docs_embed := $(if $(shell $(PANDOC) --help 2>/dev/null | grep -e --embed-resources),--embed-resources --standalone,--self-contained --standalone))$(docs_embed)

# anchors as GitHub makes them, so that links work both on the forge and in build/docs
docs_reader := markdown+gfm_auto_identifiers
docs_handout_cmd = $(PANDOC) -f $(docs_reader) -t html5 $(docs_embed) --wrap=none \
    --resource-path=handouts:. --css=handouts/handout.css -V document-css --lua-filter=tools/docs-links.lua -o $@ $<

.PHONY: docs docs-check docs-test plots docs-clean

ifeq ($(call docs_have,$(PANDOC)),)
docs:
	@echo "docs: pandoc is missing; install it (Debian/Ubuntu: apt-get install pandoc) to build the handouts and slides"
docs-check:
	tools/check-numbers.sh
	tools/check-thresholds.sh
	@echo "docs-check: pandoc is missing; install it (Debian/Ubuntu: apt-get install pandoc)" >&2; exit 1
else
docs: $(docs_pages) $(docs_pdf)
	@$(if $(docs_pdf),,echo "docs: slides PDF skipped: needs pdflatex, beamer, pgf, lmodern and rsvg-convert (Debian/Ubuntu: apt-get install texlive-latex-recommended texlive-pictures lmodern librsvg2-bin)")
	@echo "docs: open $(DOCS_OUT)/index.html (handouts) and $(DOCS_OUT)/slides.html"

docs-check: docs
	tools/check-docs.sh --html $(DOCS_OUT) handouts slides
	tools/check-numbers.sh
	tools/check-thresholds.sh
	@echo "docs-check: links, anchors, figures, measured numbers and quoted thresholds are fine"
endif

$(DOCS_OUT)/index.html: handouts/README.md handouts/handout.css tools/docs-links.lua | $(DOCS_OUT)
	$(docs_handout_cmd)

$(DOCS_OUT)/%.html: handouts/%.md handouts/handout.css tools/docs-links.lua $(docs_figures) | $(DOCS_OUT)
	$(docs_handout_cmd)

# dzslides: the slide engine is part of pandoc's template, so nothing is fetched
$(DOCS_OUT)/slides.html: slides/lab.md slides/dzslides-style.html tools/docs-links.lua $(docs_figures) | $(DOCS_OUT)
	$(PANDOC) -f $(docs_reader)-implicit_figures -t dzslides $(docs_embed) --slide-level=2 \
	    --resource-path=slides:. -H slides/dzslides-style.html --lua-filter=tools/docs-links.lua -o $@ $<

# pandoc converts the SVG figures with rsvg-convert on the way
$(DOCS_OUT)/slides.pdf: slides/lab.md slides/beamer-header.tex tools/docs-links.lua $(docs_figures) | $(DOCS_OUT)
	$(PANDOC) -f $(docs_reader)-implicit_figures -t beamer --pdf-engine=$(PDFLATEX) --slide-level=2 \
	    -V aspectratio=169 --resource-path=slides:. -H slides/beamer-header.tex \
	    --lua-filter=tools/docs-links.lua -o $@ $<

$(DOCS_OUT):
	mkdir -p $@

docs-test:
	tests/docs/run.sh

# ---- plots of measured runs --------------------------------------------------------

plots_records := $(wildcard $(PLOTS_RESULTS)/*.json)
plots_svg     := $(patsubst $(PLOTS_RESULTS)/%.json,$(PLOTS_DIR)/%.svg,$(plots_records))
# the stages' facts (STAGES, FAMILY_<stage>): the Makefile's, or, when this
# file runs on their own, made here by their one generator (tools/stages-gen.awk)
ifeq ($(STAGES),)
docs_facts := $(shell mkdir -p build && awk -v out=build -f tools/stages-gen.awk stages.tsv)
include build/stages.mk
endif
# "stage:family" for each stage; a family gets a ladder when one of its stages has a record
plots_stage_family := $(foreach s,$(STAGES),$(s):$(FAMILY_$(s)))
plots_families := $(sort $(foreach sf,$(plots_stage_family),$(if $(wildcard $(PLOTS_RESULTS)/$(firstword $(subst :, ,$(sf))).json),$(lastword $(subst :, ,$(sf))))))
plots_ladders  := $(patsubst %,$(PLOTS_DIR)/ladder_%.svg,$(plots_families))

ifeq ($(call docs_have,$(GNUPLOT)),)
plots:
	@echo "plots: gnuplot is missing; install it (Debian/Ubuntu: apt-get install gnuplot-nox) to draw $(PLOTS_DIR)/"
else
plots: $(plots_svg) $(plots_ladders)
	@$(if $(plots_records),echo "plots: $(words $(plots_svg)) plot(s) and $(words $(plots_ladders)) ladder(s) in $(PLOTS_DIR)/",echo "plots: no records in $(PLOTS_RESULTS)/; run an exercise first (make run EX=NN)")
endif

$(PLOTS_DATA)/%.dat: $(PLOTS_RESULTS)/%.json tools/records2dat.sh
	@mkdir -p $(@D)
	tools/records2dat.sh $< > $@.tmp && mv $@.tmp $@

$(PLOTS_DIR)/%.svg: $(PLOTS_DATA)/%.dat tools/stage-plot.gp
	@mkdir -p $(@D)
	$(GNUPLOT) -c tools/stage-plot.gp $< $@

# a ladder reads every record of its family, so it depends on all the records
$(PLOTS_DATA)/ladder_%.dat: $(plots_records) build/stages.env tools/ladder-references.tsv tools/records2ladder.sh tools/records2dat.sh
	@mkdir -p $(@D)
	tools/records2ladder.sh $* $(PLOTS_RESULTS) > $@.tmp && mv $@.tmp $@

$(PLOTS_DIR)/ladder_%.svg: $(PLOTS_DATA)/ladder_%.dat tools/ladder-plot.gp
	@mkdir -p $(@D)
	$(GNUPLOT) -c tools/ladder-plot.gp $< $@

docs-clean:
	rm -rf $(DOCS_OUT) $(PLOTS_DATA) build/docs-test

.DEFAULT_GOAL := $(or $(docs_saved_goal),$(if $(docs_standalone),docs))
