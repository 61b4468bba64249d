# Two commands on a fresh machine: `make run` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip -q --disable-pip-version-check
PYTHON3 ?= python3

.PHONY: run test test-dist lint format bench install test-install dist deb test-deb clean

$(VENV)/.installed: pyproject.toml requirements/data.txt
	test -x $(PY) || $(PYTHON3) -m venv $(VENV)
	$(PIP) install --upgrade pip
	$(PIP) install -e .
	$(PIP) install --no-deps -r requirements/data.txt
	touch $@

$(VENV)/.test-installed: $(VENV)/.installed requirements/test.txt
	$(PIP) install -e '.[test]'
	$(PIP) install -r requirements/test.txt
	./scripts/install-system-deps.sh
	cd tests/e2e/webext && npm ci --no-audit --no-fund --loglevel=error  # web-ext for the extension lint test
	cd tests/e2e/editors && npm ci --no-audit --no-fund --loglevel=error && node build.mjs  # real editors, bundled
	touch $@

install: $(VENV)/.installed
test-install: $(VENV)/.test-installed

# Prepares the embedded default model once (offline), then runs the main job on the bundled example.
run: install
	$(VENV)/bin/fantasma setup
	$(VENV)/bin/fantasma demo examples/forum_post.txt

# mypy first: the typed seams (rewrite/seams.py and the like) are checked only by it.
test: test-install
	$(VENV)/bin/mypy
	$(PY) -m pytest -q -ra

# Every release file, each at most 100 MB, into dist/ (scripts/build_dist.py): the fantasma wheel and sdist,
# the model wheels it requires (fantasma_model_*.whl), fantasma-chromium.zip, fantasma-chrome-web-store.zip,
# fantasma-firefox.xpi, fantasma-firefox-source.zip and SHA256SUMS. docs/install.md says what each is for.
dist: install
	$(PY) scripts/build_dist.py --out dist

# The release as a user gets it (about 4 min; also part of `make test`): `make dist`'s files installed
# offline from a local index into a fresh venv, set up and run offline; the store packages rebuilt the same.
test-dist: test-install
	$(PY) -m pytest -q -ra tests/install/test_wheel.py tests/install/test_dist_files.py

# The Debian 12 package, dist/fantasma_<version>_amd64.deb: its own venv of Debian's python3.11 under
# /usr/lib/fantasma, the models prepared, the host registered system-wide (scripts/build_deb.py; root,
# dpkg-deb, PyPI). `test-deb` installs it in a clean debootstrap root with the network off, rewrites,
# speaks to the host, removes and purges it, and compares the file lists (scripts/check_deb.py;
# docs/install.md, "Debian package").
deb: install
	$(PY) scripts/build_deb.py --out dist

test-deb: test-install
	FANTASMA_TEST_DEB=1 $(PY) -m pytest -q -ra tests/deb

lint: test-install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

format: test-install
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench: test-install
	for f in bench/bench_*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info dist
