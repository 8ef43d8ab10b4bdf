# ELF: two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed
CONFIG ?= elf.toml

.PHONY: install run test stack-up stack-down bench lint clean

install: $(STAMP)

$(STAMP): pyproject.toml
	bash scripts/install.sh
	touch $(STAMP)

run: install
	bash scripts/run.sh $(CONFIG)

test: install
	bash scripts/test.sh

stack-up: install
	$(VENV)/bin/elf-stack up -c $(CONFIG)

stack-down:
	$(VENV)/bin/elf-stack down -c $(CONFIG)

bench: install
	$(VENV)/bin/elf-bench embedder
	$(VENV)/bin/elf-bench qdrant

lint: install
	$(VENV)/bin/ruff check .

clean:
	rm -rf $(VENV) var
