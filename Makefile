# TVEKit: the two commands are `make demo` and `make test` (see README.md).
# Both install the system packages they need with apt-get when they are missing.

SWIFT ?= swift
# pkg-config finds the libraries for SwiftPM; openssl (the tool) is used by `make speed` for its comparison; xmlsec1 is the
# independent XML-DSig verifier that the SAML interoperability test runs on SAMLSigner's output.
APT_PACKAGES := pkg-config libssl-dev libxml2-dev openssl python3 xmlsec1

.PHONY: docs docs-check fleet-bench saml-compare failover-test all deps build browser-test conformance lint openapi openapi-generator test postgres postgres-stop demo speed sanitize asan fuzz fuzz-one benchmarks fixtures clean

all: build

deps:
	@missing=""; \
	for package in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: deps
	$(SWIFT) build

# House rules that a compiler does not check: the formatter's configuration (.swift-format), no source file over
# 400 lines, the module graph in ARCHITECTURE.md is the one in Package.swift, and TVEAccessEnabler's folders follow
# the layers ARCHITECTURE.md draws.
LINT_PATHS := Sources Tests Fuzz Benchmarks Package.swift
lint: openapi-generator
	$(SWIFT) format lint --strict --recursive $(LINT_PATHS)
	python3 scripts/openapi.py --generator $(OPENAPI_GENERATOR) --check
	@over=$$(find Sources Fuzz scripts Benchmarks -path '*/.build*' -prune -o -path '*/Generated' -prune -o \( -name '*.swift' -o -name '*.c' -o -name '*.h' -o -name '*.py' \) \
	  -exec wc -l {} + | awk '$$2 != "total" && $$1 > 400'); \
	if [ -n "$$over" ]; then echo "source files over 400 lines:"; echo "$$over"; exit 1; fi
	python3 scripts/check-architecture.py
	python3 scripts/check-folders.py

# The REST API v2 and DCR contracts: Adobe's files (OpenAPI/adobe) with TVEKit's overlays (OpenAPI/overlays) through
# swift-openapi-generator 1.14.3, pinned by the nested package OpenAPI/generator and built into its own folder, so that
# no build of the library ever builds the generator. `make openapi` regenerates the committed code; `make lint` checks it.
OPENAPI_GENERATOR := .build-openapi/debug/swift-openapi-generator
openapi-generator:
	cd OpenAPI/generator && $(SWIFT) build --scratch-path ../../.build-openapi --product swift-openapi-generator

openapi: openapi-generator
	python3 scripts/openapi.py --generator $(OPENAPI_GENERATOR)

# The whole suite: the lint, unit tests, all Wycheproof vectors, the CLI run as a user would, and the fleet tests on a
# real PostgreSQL: a throw-away cluster under .postgres/ (scripts/postgres.sh, which installs PostgreSQL from apt when
# missing), started before the tests and stopped after them, whatever their outcome; and the outage test's own cluster
# (.postgres-outage/), started beforehand too, so that its creation does not stall the clusters' commits mid-suite.
test: deps lint
	$(SWIFT) build --build-tests
	@url=$$(scripts/postgres.sh start) || { echo "error: the PostgreSQL test cluster did not start (see postgres.log in .postgres/ or the folder named in .postgres/cluster)"; exit 1; }; \
	echo "PostgreSQL test cluster: $$url"; \
	TVEKIT_POSTGRES_DIR=$(CURDIR)/.postgres-outage scripts/postgres.sh start >/dev/null || { scripts/postgres.sh stop; echo "error: the outage test's PostgreSQL cluster did not start (.postgres-outage/)"; exit 1; }; \
	TVEKIT_POSTGRES_URL="$$url" $(SWIFT) test --skip-build; status=$$?; \
	scripts/postgres.sh stop; TVEKIT_POSTGRES_DIR=$(CURDIR)/.postgres-outage scripts/postgres.sh stop; exit $$status

# The fleet's failover, counted: a PostgreSQL primary and its synchronous standby (scripts/postgres-pair.sh, made fresh
# and deleted after), three `tvekit serve --verifier-only` instances on their multi-host URL under load (first uses and
# replays), the primary killed mid-load (SIGKILL, all its processes) and the standby promoted; fails if a token is
# answered VALID_TOKEN twice, a first use TOKEN_REPLAYED, an answer in the gap is not 503, or an instance takes 10 s or
# more to recover (scripts/failover-test.py; about a minute and a half; the instances' logs in .build/failover-test/).
failover-test: deps
	@scripts/postgres.sh install
	$(SWIFT) build --product tvekit
	python3 scripts/failover-test.py

# A PostgreSQL cluster on loopback for trying a verification fleet by hand (see README.md); `make postgres-stop` ends it.
postgres:
	@scripts/postgres.sh start

postgres-stop:
	@scripts/postgres.sh stop

# The second-screen REST API v2 login in a real browser: headless Chromium (Debian's chromium and chromium-driver, installed
# when missing) driven over WebDriver by scripts/browser-test.py against `tvekit serve` on loopback, with JavaScript
# on and off; screenshots in .build/browser-test/.
BROWSER_PACKAGES := chromium chromium-driver
browser-test: deps
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(BROWSER_PACKAGES)"
	$(SWIFT) build --product tvekit
	python3 scripts/browser-test.py

# The local service provider's answers against Adobe's REST API v2 and DCR contracts: schemathesis (PyPI, pinned in
# scripts/conformance-requirements.txt, installed into .venv-conformance/ when missing) sends valid and invalid
# requests to `tvekit serve` on loopback and checks each answer's status code, content type, headers and schema
# (scripts/conformance.py; settings in scripts/conformance.toml, the contracts' corrections and the sandbox's values in
# scripts/conformance_hooks.py). Reports and the server's log of the last run: .build/conformance/.
conformance: deps
	@$(MAKE) --no-print-directory deps APT_PACKAGES="python3-venv"
	python3 scripts/conformance.py

# The main job: walk the AccessEnabler cookbook against the local service provider (tvekit demo), over REST API v2
# (make demo API=v1 for the old API).
demo: deps
	$(SWIFT) build --product tvekit
	.build/debug/tvekit demo --api $(or $(API),v2)

# Measure the crypto layer against OpenSSL on this machine.
speed: deps
	$(SWIFT) build -c release --product tvekit
	.build/release/tvekit speed --seconds 4 --compare-openssl

# SAML verification against python-xmlsec and signxml (installed from PyPI into a throwaway virtual environment under
# /tmp on the first run), three interleaved rounds, with the goal of five times python-xmlsec.
saml-compare: deps
	$(SWIFT) build -c release --product tvekit
	python3 Benchmarks/saml-compare/compare.py --seconds 3 --rounds 3

# The DocC documentation of every library product, built with the toolchain's docc into .build-docs/site/ (a static
# site: serve the folder, e.g. `python3 -m http.server -d .build-docs/site`), DocC warnings as errors, after checking
# that every public declaration has a documentation comment. `make docs-check` runs only the check.
docs: deps
	scripts/docs.sh

docs-check: deps
	scripts/docs.sh --check

# ThreadSanitizer over every test target (the libraries, the local service provider, the flow layer, the verification
# server and the fleet on its own PostgreSQL cluster, the CLI), one test at a time: in parallel on two cores, the
# sanitizer's slowdown runs the suites' transport deadlines (5 s) out. tsan.supp holds one known false positive of
# swift-nio's (its receive-buffer pool), explained there.
sanitize: deps
	TSAN_OPTIONS=suppressions=$(CURDIR)/tsan.supp $(SWIFT) test --sanitize=thread --scratch-path .build-tsan --no-parallel

# AddressSanitizer and LeakSanitizer over every test target. XCTest and libcurl (under
# FoundationNetworking's URLSession) leak a little; those reports are suppressed (lsan.supp), nothing from OpenSSL
# or TVEKit is.
asan: deps
	LSAN_OPTIONS=suppressions=$(CURDIR)/lsan.supp $(SWIFT) test --sanitize=address --scratch-path .build-asan --no-parallel

# libFuzzer over every fuzzer in turn (media tokens, metadata, SAML, C14N, REST API v2 requests, the /verify reader, the
# verification server's HTTP/1.1 reader), with
# AddressSanitizer, for FUZZ_SECONDS each (default 60).
# New inputs go to .build-fuzz/corpus; crashes to Fuzz/artifacts (copy them to Fuzz/Regressions, which the tests replay).
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= 1
fuzz: deps
	$(MAKE) fuzz-one FUZZER=FuzzMediaToken MAX_LEN=70000
	$(MAKE) fuzz-one FUZZER=FuzzMetadata MAX_LEN=140000
	$(MAKE) fuzz-one FUZZER=FuzzSAMLParser MAX_LEN=60000 DICT=Fuzz/FuzzSAML.dict
	$(MAKE) fuzz-one FUZZER=FuzzC14N MAX_LEN=60000 DICT=Fuzz/FuzzSAML.dict
	$(MAKE) fuzz-one FUZZER=FuzzSAMLVerify MAX_LEN=60000 DICT=Fuzz/FuzzSAML.dict
	$(MAKE) fuzz-one FUZZER=FuzzV2Requests MAX_LEN=20000
	$(MAKE) fuzz-one FUZZER=FuzzVerifyReader MAX_LEN=16384
	$(MAKE) fuzz-one FUZZER=FuzzHTTPReader MAX_LEN=8192 DICT=Fuzz/FuzzHTTPReader.dict

# The verification fleet under load (wrk, 16 connections; memory and PostgreSQL; single tokens and batches of 64), with
# its peers beside it: in-process token-verify; nginx's and the NIO floor's CPU per request beside the server's /health
# and in-memory /verify; pgbench running the replay store's statements (the PostgreSQL limit: transactions/s, average and p99
# latency). Prints every figure, the ratios and issue 31's goals with PASS or MISS. FLEET_SECONDS per run (default 10),
# FLEET_JSON=1 for JSON, FLEET_ONLY=http for nginx, the NIO floor, /health and in-memory /verify alone. Installs wrk
# and nginx when missing; starts and stops its own PostgreSQL cluster when none is running.
fleet-bench: deps
	@FLEET_ONLY=$(or $(FLEET_ONLY),all) bash Benchmarks/fleet-load/run.sh $(if $(filter 1,$(FLEET_JSON)),--json) $(or $(FLEET_SECONDS),10)

# One fuzzer: make fuzz-one FUZZER=FuzzMetadata [FUZZ_SECONDS=...] [FUZZ_JOBS=...]
MAX_LEN ?= 70000
fuzz-one:
	$(SWIFT) build -c release --product $(FUZZER) --scratch-path .build-fuzz \
	  --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
	mkdir -p .build-fuzz/corpus/$(FUZZER) Fuzz/artifacts/$(FUZZER)
	SWIFT_BACKTRACE=enable=no .build-fuzz/release/$(FUZZER) -max_total_time=$(FUZZ_SECONDS) -max_len=$(MAX_LEN) \
	  $(if $(DICT),-dict=$(DICT),$(if $(wildcard Fuzz/$(FUZZER).dict),-dict=Fuzz/$(FUZZER).dict)) -artifact_prefix=Fuzz/artifacts/$(FUZZER)/ -print_final_stats=1 \
	  $(if $(filter-out 1,$(FUZZ_JOBS)),-jobs=$(FUZZ_JOBS) -workers=$(FUZZ_JOBS)) \
	  .build-fuzz/corpus/$(FUZZER) Fuzz/Corpus/$(FUZZER)

# package-benchmark (Benchmarks/CryptoBenchmarks). Package.swift declares it only when TVEKIT_BENCHMARKS=1, so library
# users never resolve or build it. It builds in its own folder, .build-bench, and the root Package.resolved (which
# SwiftPM shares between build folders) is put back afterwards, so the everyday .build never checks out
# package-benchmark's pins. Pass BENCHMARK_ARGS to choose, e.g. BENCHMARK_ARGS='--filter "RSA-2048 verify.*"'.
BENCHMARK_ARGS ?=
benchmarks: deps
	@mkdir -p .build-bench; rm -f .build-bench/Package.resolved.main; \
	if [ -f Package.resolved ]; then cp Package.resolved .build-bench/Package.resolved.main; fi; \
	TVEKIT_BENCHMARKS=1 $(SWIFT) package --scratch-path .build-bench benchmark --no-progress $(BENCHMARK_ARGS); \
	status=$$?; \
	if [ -f .build-bench/Package.resolved.main ]; then mv .build-bench/Package.resolved.main Package.resolved; \
	else rm -f Package.resolved; fi; \
	exit $$status

# Regenerate the key, certificate and PKCS#12 fixtures (needs the openssl tool).
fixtures:
	bash TestVectors/fixtures/generate.sh

clean:
	rm -rf .build .build-tsan .build-asan .build-fuzz .build-bench .build-speed .build-openapi Benchmarks/.build
