# WebImage — the two commands people need are `make demo` and `make test`.
SWIFT ?= swift
DEBS  := libjpeg62-turbo-dev libpng-dev libgif-dev libwebp-dev
export DEBIAN_FRONTEND := noninteractive

.PHONY: deps build test demo bench

# Installs the missing Debian -dev packages (as root), or says exactly what to run.
deps:
	@missing=""; for p in $(DEBS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	  else \
	    echo "missing Debian packages:$$missing"; \
	    echo "run: sudo apt-get install -y$$missing"; exit 1; \
	  fi; \
	fi

build: deps
	$(SWIFT) build

# Serial: CPU-heavy decode tests running beside the loopback network tests would
# starve their timers on a 2-core machine; serial keeps every test's timing honest.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --no-parallel

demo: deps
	$(SWIFT) build -c release --product webimage
	.build/release/webimage demo

bench: deps
	$(MAKE) -C Benchmarks bench
