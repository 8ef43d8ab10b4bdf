# ELF: two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed
CONFIG ?= elf.toml

.PHONY: install run test test-fast test-external stack-up stack-down bench lint clean soak fuzz

install: $(STAMP)

$(STAMP): pyproject.toml clients/python/pyproject.toml
	bash scripts/install.sh
	touch $(STAMP)

run: install
	bash scripts/run.sh $(CONFIG)

test: install
	bash scripts/test.sh

# ELF on services it does not manage (docs/deploying.md): Postgres with a non-superuser owner role, Redis with a
# password and a Qdrant server started apart from elf-stack, elf-api and elf-worker from two checkouts.
# The unit lane alone (tests/README.md, "Lanes"): every test that needs no stack; nothing is started.
test-fast: install
	$(VENV)/bin/python -m pytest -m unit -q -p no:cacheprovider -n 2

test-external: install
	bash scripts/test_external.sh

stack-up: install
	$(VENV)/bin/elf-stack up -c $(CONFIG)

stack-down:
	$(VENV)/bin/elf-stack down -c $(CONFIG)

bench: install
	$(VENV)/bin/elf-bench embedder
	$(VENV)/bin/elf-bench qdrant

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/python -m mypy

# The tenant-isolation property test at length (docs/testing.md): prints operations and leaks found.
ELF_SOAK_OPS ?= 10000
soak: install
	ELF_SOAK_OPS=$(ELF_SOAK_OPS) ELF_ISOLATION_OPS_PER_EXAMPLE=$${ELF_ISOLATION_OPS_PER_EXAMPLE:-100} \
	  $(VENV)/bin/python -m pytest tests/kernel/test_tenant_isolation.py -q -s -p no:cacheprovider

# Schemathesis against both binds at length (docs/testing.md): prints examples sent and 5xx (0).
ELF_FUZZ_EXAMPLES ?= 1000
ELF_FUZZ_SCENARIOS ?= 400
fuzz: install
	ELF_FUZZ_EXAMPLES=$(ELF_FUZZ_EXAMPLES) ELF_FUZZ_SCENARIOS=$(ELF_FUZZ_SCENARIOS) \
	  $(VENV)/bin/python -m pytest tests/kernel/test_fuzz_openapi.py -q -s -p no:cacheprovider

clean:
	rm -rf $(VENV) var
