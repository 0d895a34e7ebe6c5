# The project's commands. Each sets up what it needs first: a virtual environment in
# .venv with the package installed in development mode (which compiles core/*.pyx).
# `make run` installs only what serving needs; every other command the test tool chain too.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# What the install depends on: a change to any of these reinstalls (and so recompiles).
BUILD_INPUTS := pyproject.toml setup.py $(wildcard core/*.pyx core/*.pxd core/*/*.pyx core/*/*.pxd)
RUN_STAMP    := $(VENV)/.installed-run
# Every compiled module, by its dotted name (core.search, core.poison.engine, ...): the shared
# ones and each game's folder's, as setup.py builds them, for stubtest.
COMPILED     := $(subst /,.,$(basename $(wildcard core/*.pyx core/*/*.pyx)))
DEV_STAMP    := $(VENV)/.installed-test

.PHONY: setup run check test typecheck bench archive-bench load servers instructions instructions-moves fuzz thorough lint playthroughs annotate cluster vendor clean

setup: $(DEV_STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The runtime dependencies alone (pyproject.toml's `dependencies`).
$(RUN_STAMP): $(BUILD_INPUTS) | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(RUN_STAMP)

# The runtime and the test tool chain (the `test` extra); it holds everything `run` needs,
# so it stamps that install too.
$(DEV_STAMP): $(BUILD_INPUTS) | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(DEV_STAMP) $(RUN_STAMP)

## run: the service on http://127.0.0.1:8000 (POISON_PORT, POISON_WORKERS, ...), its store an
## embedded Valkey in ./poison-data unless POISON_REDIS_URL is set
run: $(RUN_STAMP)
	$(BIN)/poison serve

# The kinds of test make check leaves out (pyproject.toml's markers; tests/tiers.py).
SLOW_KINDS := not (subprocess or faults or cluster or browser)
# Spread over every core: a module's tests stay together on one worker, so a module's
# own server (a poison serve, a cluster) is started once.
SPREAD     := -n auto --dist loadscope

## check: lint, type-check, then every fast test: none that runs poison as a process, injects
## a fault, needs the cluster or the browser (the loop while working)
check: setup lint typecheck
	$(BIN)/python -m pytest tests benchmarks --benchmark-disable $(SPREAD) -m "$(SLOW_KINDS)" --durations=10

## test: lint, type-check, then every test (benchmarks run once each, untimed, to check their results)
test: setup lint typecheck
	$(BIN)/python -m pytest tests benchmarks --benchmark-disable $(SPREAD) --durations=25

lint: setup
	$(BIN)/ruff check .

## typecheck: mypy over the package and the benchmarks ([tool.mypy] in pyproject.toml; its
## cache in .mypy_cache), then the stubs of the compiled modules against those modules
typecheck: setup
	$(BIN)/python -m mypy
	$(BIN)/python -m mypy.stubtest $(COMPILED) \
		--allowlist .ci/stubtest-allowlist.txt

## bench: time core against reference and check the bars (core ≥ 50× the reference in simulate and replay;
## simulate ≥ 50% of a plain-C loop of the same game; 2 threads ≥ 1.7× one), both games; and the store's
## (an fsynced append ≤ 2× the fsynced bare-socket SET of the same run)
bench: setup
	mkdir -p .benchmarks
	$(BIN)/python -m pytest benchmarks --benchmark-only --benchmark-json=.benchmarks/latest.json
	$(BIN)/python -m benchmarks.ratios .benchmarks/latest.json
	$(BIN)/python -m benchmarks.roofline .benchmarks/latest.json

## archive-bench: the archive's benchmark on 100,000 finished games: store memory per game before and
## after they move, an archived game's keys (bar: at most 512 bytes all told), archived reads
## (bar: median at most 5 ms), the mover's games/s
archive-bench: setup
	$(BIN)/python -m benchmarks.archive --games 100000

## load: the load benchmark, one worker, at 16 and at 64 clients in one run: poison serve against the
## bare Litestar route on the same server (requests/s ≥ 0.5× at each; p99 ≤ 2.5× at 64) and, with
## AGAINST=PATH (a checkout with its .venv, or an installed build's python), against that build's poison
## serve (requests/s ≥ 1.0×, p99 ≤ 1.0× at 64): issue 28's bars; then at each client count clocked games
## fired beside the load (a deadline ≤ 1 s late at the p99) and an idle service's store commands/s; each bar
## printed PASS or FAIL
load: setup
	$(BIN)/python -m benchmarks.load --clients 16 64 $(if $(AGAINST),--against $(AGAINST))

## servers: the three yardsticks (a raw ASGI function, the bare Litestar route, the game's own app)
## each under uvicorn and under granian, side by side in one run, at 16 and at 64 clients
servers: setup
	$(BIN)/python -m benchmarks.servers --clients 16 64

## instructions: user-space instructions a request (valgrind's callgrind, which the machine's load does
## not disturb) in one worker of poison serve playing games, of the bare Litestar endpoint and of a raw
## ASGI app, each under uvicorn, 16 clients; needs valgrind
instructions: setup
	$(BIN)/python -m benchmarks.instructions --clients 16

## instructions-moves: instructions a move (a GET and a POST) of the application called in-process,
## no server and no socket (valgrind's callgrind): its own request path measured alone; needs valgrind
instructions-moves: setup
	$(BIN)/python -m benchmarks.inprocess --moves 300

## cluster: a local Redis Cluster of the embedded Valkey (3 masters, a replica of each; data in
## ./poison-cluster, formed on the first run and recovered after) and two poison serve on it, on
## http://127.0.0.1:8000 and :8001, each given another master's URL; Ctrl-C stops them all
cluster: $(RUN_STAMP)
	$(BIN)/python -m events.cluster poison-cluster --serve 2

## thorough: every property test of the rules with ten times its everyday examples
## (POISON_EXAMPLES_SCALE=10, tests/examples.py): the engine/reference equivalence over 5,000 games
thorough: setup
	POISON_EXAMPLES_SCALE=10 $(BIN)/python -m pytest tests/core --benchmark-disable --durations=5

## fuzz: schemathesis, every check and phase, 250 examples per operation and phase (over 5,000
## requests) against a fresh poison serve; fails on any 5xx or answer the document does not describe
fuzz: setup
	$(BIN)/python -m tests.reliability.test_fuzzing --examples 250

## playthroughs: write the golden playthrough files of both games (Poison, then the pot game)
## from the engines. A missing file is written and an equal one left alone; a file that differs
## is refused, its first changed line named, and the target fails. Read the change, and only
## if it is meant: make playthroughs ACCEPT=1 (passes --accept), then read the diff again.
playthroughs: setup
	@status=0; \
	$(BIN)/python -m tests.core.playthrough $(if $(ACCEPT),--accept) || status=1; \
	$(BIN)/python -m tests.core.pot.playthrough $(if $(ACCEPT),--accept) || status=1; \
	exit $$status

## annotate: Cython's annotated HTML of each ruleset's rules and of the search (core/poison/rules.html,
## core/pot/rules.html, core/search.html)
annotate: setup
	mkdir -p build
	$(BIN)/cython -3 -a core/poison/rules.pyx -o build/rules-annotated.c && mv build/rules-annotated.html core/poison/rules.html
	$(BIN)/cython -3 -a core/pot/rules.pyx -o build/pot-rules-annotated.c && mv build/pot-rules-annotated.html core/pot/rules.html
	$(BIN)/cython -3 -a core/search.pyx -o build/search-annotated.c && mv build/search-annotated.html core/search.html

## vendor: rebuild the page's vendored libraries (service/static/vendor/) from the exact npm
## versions tools/vendor/package-lock.json pins; needs node and npm (nothing else does)
vendor:
	tools/vendor/build.sh

clean:
	rm -rf $(VENV) build *.egg-info core/*.c core/*.so core/*.html core/*/*.c core/*/*.so core/*/*.html \
		.benchmarks .pytest_cache .hypothesis .mypy_cache .ruff_cache .schemathesis poison-data poison-cluster
